/*
 * cl_fault_test.c — a faulting kernel seen through OpenCL (the loader and
 * the ICD), on the GPU or, with HCQCL_GPU_TESTS_ON_EMU=1, the emulated
 * device: the kernel's event ends with a negative status, clWaitForEvents
 * and clFinish return errors within a second instead of hanging, a later
 * blocking read fails just as fast, the context's pfn_notify hears once
 * with a message naming the driver's error code (Xid), and every object
 * is released cleanly.
 *
 * The kernel is queue_kernels.cu's ids2d (tests/api_queue), launched at
 * row 1 of a 2^30-wide grid: it writes 4 GiB past its buffer.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cl_setup.h"

static atomic_int notified; /* calls of the context's pfn_notify */
static atomic_int noticed;  /* set once notice holds the first call's text */
static char notice[512];

static void CL_CALLBACK on_error(const char *info, const void *priv, size_t cb, void *data)
{
    if (atomic_fetch_add(&notified, 1) == 0) {
        snprintf(notice, sizeof(notice), "%s", info);
        atomic_store(&noticed, 1);
    }
}

static atomic_int notified2; /* the second context's */
static void CL_CALLBACK on_error2(const char *info, const void *priv, size_t cb, void *data)
{
    atomic_fetch_add(&notified2, 1);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
    const bool on_emu = cltest_gpu_or_emu();
    cl_platform_id p = cltest_platform();
    REQUIRE(p != NULL);
    cl_device_id dev;
    cl_uint n = 0;
    REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, &n) == CL_SUCCESS && n > 0);
    char dname[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(dname), dname, NULL);
    printf("device: %s\n", dname);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, on_error, NULL, &err);
    REQUIRE(ctx != NULL);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q != NULL);
    /* A second context on the device, its own queue and buffer. */
    cl_context ctx2 = clCreateContext(NULL, 1, &dev, on_error2, NULL, &err);
    REQUIRE(ctx2 != NULL);
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx2, dev, NULL, &err);
    cl_mem b2 = clCreateBuffer(ctx2, CL_MEM_READ_WRITE, 4096, NULL, &err);
    REQUIRE(q2 && b2);
    cl_program prog = cltest_program(ctx, dev, "queue_kernels.cubin");
    cl_kernel k = clCreateKernel(prog, "ids2d", &err);
    REQUIRE(k != NULL);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    cl_mem loc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    REQUIRE(out && loc);
    unsigned width = 1u << 30;
    REQUIRE(clSetKernelArg(k, 0, sizeof(out), &out) == CL_SUCCESS);
    REQUIRE(clSetKernelArg(k, 1, sizeof(loc), &loc) == CL_SUCCESS);
    REQUIRE(clSetKernelArg(k, 2, sizeof(width), &width) == CL_SUCCESS);

    const size_t off[] = {0, 1}, g[] = {1, 1};
    cl_event bad = NULL;
    uint64_t t0 = now_ns();
    REQUIRE(clEnqueueNDRangeKernel(q, k, 2, off, g, NULL, 0, NULL, &bad) == CL_SUCCESS);
    REQUIRE(clFlush(q) == CL_SUCCESS);
    cl_int rw = clWaitForEvents(1, &bad);
    uint64_t dt = now_ns() - t0;
    cl_int st = 0;
    clGetEventInfo(bad, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
    check_report(rw == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST && st < 0 && dt < 1000000000ull,
                 "cl_fault_wait", "clWaitForEvents %d, kernel status %d, after %.3f ms", rw, st,
                 dt / 1e6);

    t0 = now_ns();
    cl_int rf = clFinish(q);
    char buf[64];
    cl_int rr = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(buf), buf, 0, NULL, NULL);
    dt = now_ns() - t0;
    check_report(rf == CL_OUT_OF_RESOURCES && rr != CL_SUCCESS && dt < 1000000000ull,
                 "cl_fault_after", "clFinish %d, blocking read %d, within %.3f ms", rf, rr,
                 dt / 1e6);

    for (int i = 0; i < 5000 && atomic_load(&noticed) == 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    bool named = atomic_load(&noticed) && strstr(notice, "Xid") != NULL;
    if (on_emu)
        named = named && strstr(notice, "MMU fault") != NULL;
    check_report(atomic_load(&notified) == 1 && named, "cl_fault_notify",
                 "pfn_notify %d time(s): \"%s\"", atomic_load(&notified), notice);

    /* The other context hears of the loss too, once, when its own work
     * fails for it; a device that lost one channel only runs it. */
    cl_int r2 = clEnqueueReadBuffer(q2, b2, CL_TRUE, 0, sizeof(buf), buf, 0, NULL, NULL);
    cl_int f2 = clFinish(q2);
    for (int i = 0; i < 5000 && r2 != CL_SUCCESS && atomic_load(&notified2) == 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    check_report(r2 == CL_SUCCESS ? atomic_load(&notified2) == 0 : atomic_load(&notified2) == 1,
                 "cl_fault_notify_other", "second context: read %d, finish %d, pfn_notify %d time(s)",
                 r2, f2, atomic_load(&notified2));
    bool clean2 = clReleaseMemObject(b2) == CL_SUCCESS && clReleaseCommandQueue(q2) == CL_SUCCESS &&
                  clReleaseContext(ctx2) == CL_SUCCESS;

    bool clean = clean2 && clReleaseEvent(bad) == CL_SUCCESS && clReleaseKernel(k) == CL_SUCCESS &&
                 clReleaseProgram(prog) == CL_SUCCESS && clReleaseMemObject(out) == CL_SUCCESS &&
                 clReleaseMemObject(loc) == CL_SUCCESS && clReleaseCommandQueue(q) == CL_SUCCESS &&
                 clReleaseContext(ctx) == CL_SUCCESS;
    check_report(clean, "cl_fault_release", "every object released");
    printf("cl_fault: %s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}

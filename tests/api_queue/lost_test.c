/*
 * lost_test.c — a kernel that writes outside every buffer faults its
 * channel; the device is then lost for the process: the command and those
 * after it end with a negative status, waits return, clFinish reports
 * CL_OUT_OF_RESOURCES, and the context's pfn_notify hears of it once.
 * With --no-event the kernel is enqueued without an event (the path of
 * src/api/command_lite.c): clFinish and pfn_notify still tell. Then
 * clCreateContextFromType leaves the lost device out: a context of the
 * others, or CL_DEVICE_NOT_AVAILABLE when there are none.
 * Its own process, since a lost device stays lost.
 */
#include "../api_platform/cltest.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

static atomic_int notified;

static void CL_CALLBACK on_error(const char *info, const void *priv, size_t cb, void *data)
{
    atomic_fetch_add(&notified, 1);
}

int main(int argc, char **argv)
{
    const bool no_event = argc > 1 && !strcmp(argv[1], "--no-event");
    if (!cltest_emulated()) {
        /* Faulting a real GPU on purpose is not what a test run is for. */
        printf("api_device_lost: skipped (real GPU)\n");
        return 0;
    }
    cl_platform_id p = cltest_platform();
    REQUIRE(p, "hcqcl platform not found");
    cl_device_id dev;
    cl_uint n = 0;
    REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, &n) == CL_SUCCESS && n > 0,
            "no device");
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, on_error, NULL, &err);
    REQUIRE(ctx, "context: %d", err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q, "queue: %d", err);
    cl_program prog = cltest_program(ctx, dev, "queue_kernels.cubin");
    cl_kernel k = clCreateKernel(prog, "ids2d", &err);
    REQUIRE(k, "kernel: %d", err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    cl_mem loc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    REQUIRE(out && loc, "buffers: %d", err);
    /* Row 1 of a 2^30-wide grid: 4 GiB past the buffer. */
    unsigned width = 1u << 30;
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(out), &out));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(loc), &loc));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(width), &width));
    const size_t off[] = {0, 1}, g[] = {1, 1};
    cl_event bad = NULL, after;
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 2, off, g, NULL, 0, NULL, no_event ? NULL : &bad));
    if (no_event) {
        EXPECT_ERR(clFinish(q), CL_OUT_OF_RESOURCES);
        goto notify;
    }
    cl_int rc = clEnqueueMarkerWithWaitList(q, 0, NULL, &after);
    EXPECT(rc == CL_SUCCESS || rc == CL_OUT_OF_RESOURCES, "marker after the fault: %d", rc);
    EXPECT_ERR(clWaitForEvents(1, &bad), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    cl_int st = 0;
    EXPECT_OK(clGetEventInfo(bad, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
    EXPECT(st < 0, "faulting kernel status %d", st);
    if (rc == CL_SUCCESS) {
        EXPECT_ERR(clWaitForEvents(1, &after), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        EXPECT_OK(clReleaseEvent(after));
    }
    EXPECT_ERR(clFinish(q), CL_OUT_OF_RESOURCES);
notify:
    for (int i = 0; i < 5000 && atomic_load(&notified) == 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    EXPECT(atomic_load(&notified) == 1, "pfn_notify called %d times", atomic_load(&notified));

    /* "CL_DEVICE_NOT_AVAILABLE if no devices that match device_type ...
     * are currently available": only when none is. */
    cl_uint ndev = 0;
    EXPECT_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &ndev));
    cl_context from_type = clCreateContextFromType(NULL, CL_DEVICE_TYPE_ALL, NULL, NULL, &err);
    if (ndev > 1) {
        EXPECT(from_type && err == CL_SUCCESS, "context from type beside a lost device: %d", err);
        cl_device_id got[8];
        size_t size = 0;
        if (from_type) {
            EXPECT_OK(clGetContextInfo(from_type, CL_CONTEXT_DEVICES, sizeof(got), got, &size));
            EXPECT(size == (ndev - 1) * sizeof(cl_device_id), "%zu devices, %u were there",
                   size / sizeof(cl_device_id), ndev);
            for (size_t i = 0; i < size / sizeof(cl_device_id); i++)
                EXPECT(got[i] != dev, "the lost device is in the context");
            EXPECT_OK(clReleaseContext(from_type));
        }
    } else {
        EXPECT(!from_type && err == CL_DEVICE_NOT_AVAILABLE, "context from type, device lost: %d",
               err);
    }
    if (bad)
        EXPECT_OK(clReleaseEvent(bad));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseProgram(prog));
    EXPECT_OK(clReleaseMemObject(out));
    EXPECT_OK(clReleaseMemObject(loc));
    EXPECT_OK(clReleaseCommandQueue(q));
    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_device_lost");
}

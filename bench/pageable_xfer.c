/*
 * pageable_xfer — clEnqueueWriteBuffer / clEnqueueReadBuffer from and to
 * malloc'ed (pageable) memory through the ICD loader, the rows clbench
 * calls "pageable", on their own: no kernels, so it also runs on the
 * emulated device (whose copy engine is a host memcpy: its figures bound
 * the CPU side, not PCIe).
 *
 *   pageable_xfer [MiB (64)] [runs (9)]
 *
 * Prints the median GB/s of blocking and non-blocking (enqueue + wait)
 * transfers each way on the first device of the platform named "hcqcl"
 * (or the first platform), after a warm-up run of each.
 */
#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_RUNS = 31 };

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cl_int e_ = (call);                                                               \
        if (e_ != CL_SUCCESS) {                                                           \
            fprintf(stderr, "pageable_xfer: %s failed: %d\n", #call, e_);                 \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static cl_platform_id pick_platform(void)
{
    cl_platform_id ps[16];
    cl_uint n = 0;
    CHECK(clGetPlatformIDs(16, ps, &n));
    for (cl_uint i = 0; i < n && i < 16; i++) {
        char name[64] = "";
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (!strcmp(name, "hcqcl"))
            return ps[i];
    }
    return ps[0];
}

static double xfer_gbs(cl_command_queue q, cl_mem m, void *host, size_t size, bool write,
                       bool blocking, int runs)
{
    double v[MAX_RUNS];
    for (int r = -1; r < runs; r++) {
        cl_event ev = NULL;
        double t0 = now_s();
        if (write)
            CHECK(clEnqueueWriteBuffer(q, m, blocking, 0, size, host, 0, NULL,
                                       blocking ? NULL : &ev));
        else
            CHECK(clEnqueueReadBuffer(q, m, blocking, 0, size, host, 0, NULL,
                                      blocking ? NULL : &ev));
        if (ev) {
            CHECK(clWaitForEvents(1, &ev));
            clReleaseEvent(ev);
        }
        double t1 = now_s();
        if (r >= 0)
            v[r] = (double)size / (t1 - t0) / 1e9;
    }
    qsort(v, (size_t)runs, sizeof(v[0]), cmp_double);
    return v[runs / 2];
}

int main(int argc, char **argv)
{
    size_t size = (size_t)(argc > 1 ? strtoull(argv[1], NULL, 0) : 64) << 20;
    int runs = argc > 2 ? atoi(argv[2]) : 9;
    if (!size || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: pageable_xfer [MiB] [runs <= %d]\n", MAX_RUNS);
        return 2;
    }
    cl_platform_id p = pick_platform();
    cl_device_id dev;
    CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK(err);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    CHECK(err);
    uint8_t *host = malloc(size), *back = malloc(size);
    if (!host || !back) {
        fprintf(stderr, "pageable_xfer: no %zu MiB of host memory\n", size >> 20);
        return 1;
    }
    /* Touched, so that first-touch page faults don't count. */
    for (size_t i = 0; i < size; i++)
        host[i] = (uint8_t)(i * 131 + (i >> 12));
    memset(back, 0, size);

    char name[128] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(name), name, NULL);
    printf("pageable_xfer: %s, %zu MiB, median of %d\n", name, size >> 20, runs);
    printf("  host->device blocking       %7.2f GB/s\n", xfer_gbs(q, m, host, size, true, true, runs));
    printf("  device->host blocking       %7.2f GB/s\n", xfer_gbs(q, m, back, size, false, true, runs));
    printf("  host->device non-blocking   %7.2f GB/s\n", xfer_gbs(q, m, host, size, true, false, runs));
    printf("  device->host non-blocking   %7.2f GB/s\n", xfer_gbs(q, m, back, size, false, false, runs));
    bool ok = memcmp(host, back, size) == 0;
    printf("  data verified               %s\n", ok ? "yes" : "NO");

    clReleaseMemObject(m);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(host);
    free(back);
    return ok ? 0 : 1;
}

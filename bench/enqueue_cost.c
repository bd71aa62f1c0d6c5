/*
 * enqueue_cost — the CPU cost of clEnqueueNDRangeKernel and the latency of
 * enqueue + clFinish, through the ICD loader.
 *
 * Runs the `empty` kernel of tests/kernels/gpu_kernels.cu (a cubin given
 * on the command line, built with the test kernels). On the emulated
 * device the host implementation of `empty` comes from the test kernel
 * library named in HCQCL_EMU_KERNELS, so the figures are the CPU cost of
 * the OpenCL layer, the core and the emulated driver, not GPU times.
 *
 *   enqueue_cost CUBIN [N] [ROUNDS]
 *
 * Phase 1 (steady state): N enqueues back to back, clFinish; repeated
 * ROUNDS times after a warm-up round. Reports ns per enqueue (best and
 * median round) and the heap growth and allocation count of the last
 * round (mallinfo2: arena bytes in use; nothing should grow in steady
 * state).
 *
 * Phase 1b: N enqueues in batches of 128 with a clFinish between (not
 * timed): the enqueue cost without waits for ring space.
 *
 * Phase 2: N times one enqueue then clFinish; reports median, p90, p99 and
 * the maximum of the round trip.
 *
 * ENQUEUE_COST_KERNEL names another kernel of the cubin whose one argument
 * is a buffer (atomic_inc): the cost with an object to retain.
 *
 * ENQUEUE_COST_RT sets the number of phase 2 round trips (default N), so a
 * profiler can look at mostly round trips.
 *
 * Under callgrind or strace set ENQUEUE_COST_ONLY=1 (no phase 2): the
 * difference of two runs with different N, divided by the difference of
 * N * (ROUNDS + 1), is the cost of one enqueue (docs/performance.md).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what, cl_int err)
{
    fprintf(stderr, "enqueue_cost: %s failed (%d)\n", what, err);
    exit(1);
}

/* CPU time of the calling thread: what an enqueue costs the application,
 * without the time it waited for the device to free ring space. */
static double thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static cl_platform_id find_platform(void)
{
    cl_platform_id ps[16];
    cl_uint n = 0;
    if (clGetPlatformIDs(16, ps, &n) != CL_SUCCESS)
        return NULL;
    for (cl_uint i = 0; i < n && i < 16; i++) {
        char name[128] = "";
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (strstr(name, "hcqcl"))
            return ps[i];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: enqueue_cost CUBIN [N] [ROUNDS]\n");
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 10000;
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    if (n < 1 || rounds < 1)
        return 2;

    cl_int err;
    cl_platform_id p = find_platform();
    if (!p)
        die("finding the hcqcl platform", CL_INVALID_PLATFORM);
    cl_device_id dev;
    if ((err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, NULL)) != CL_SUCCESS)
        die("clGetDeviceIDs", err);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (!ctx)
        die("clCreateContext", err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    if (!q)
        die("clCreateCommandQueueWithProperties", err);
    size_t size;
    unsigned char *bin = read_file(argv[1], &size);
    if (!bin)
        die("reading the cubin", CL_INVALID_VALUE);
    const unsigned char *bins[1] = {bin};
    cl_program prog = clCreateProgramWithBinary(ctx, 1, &dev, &size, bins, NULL, &err);
    if (!prog)
        die("clCreateProgramWithBinary", err);
    if ((err = clBuildProgram(prog, 1, &dev, NULL, NULL, NULL)) != CL_SUCCESS)
        die("clBuildProgram", err);
    /* ENQUEUE_COST_KERNEL=atomic_inc: a kernel with a buffer argument (one
     * more object to validate and retain per enqueue), as most are. */
    const char *kname = getenv("ENQUEUE_COST_KERNEL") ? getenv("ENQUEUE_COST_KERNEL") : "empty";
    cl_kernel k = clCreateKernel(prog, kname, &err);
    if (!k)
        die("clCreateKernel", err);
    cl_mem arg = NULL;
    if (strcmp(kname, "empty") != 0) {
        arg = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
        if (!arg)
            die("clCreateBuffer", err);
        if ((err = clSetKernelArg(k, 0, sizeof(arg), &arg)))
            die("clSetKernelArg", err);
    }
    const size_t gws = 1, lws = 1;

    /* Phase 1: back-to-back enqueues. Round 0 warms the pools up. */
    double *per = calloc((size_t)rounds, sizeof(*per));
    double *cpu = calloc((size_t)rounds, sizeof(*cpu));
    struct mallinfo2 m0 = {0}, m1 = {0};
    for (int r = 0; r <= rounds; r++) {
        bool last = r == rounds;
        if (last)
            m0 = mallinfo2();
        double t0 = now_ns(), c0 = thread_ns();
        for (int i = 0; i < n; i++)
            if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, &lws, 0, NULL, NULL)))
                die("clEnqueueNDRangeKernel", err);
        double t1 = now_ns(), c1 = thread_ns();
        if (last)
            m1 = mallinfo2();
        if ((err = clFinish(q)) != CL_SUCCESS)
            die("clFinish", err);
        if (r > 0) {
            per[r - 1] = (t1 - t0) / n;
            cpu[r - 1] = (c1 - c0) / n;
        }
    }
    qsort(per, (size_t)rounds, sizeof(*per), bench_cmp_double);
    qsort(cpu, (size_t)rounds, sizeof(*cpu), bench_cmp_double);
    printf("enqueue: %d x %d empty kernels: wall best %.0f ns, median %.0f ns per enqueue; "
           "thread CPU best %.0f ns, median %.0f ns\n",
           rounds, n, per[0], per[rounds / 2], cpu[0], cpu[rounds / 2]);
    printf("enqueue: heap in use %+lld bytes over the last %d enqueues\n",
           (long long)m1.uordblks - (long long)m0.uordblks, n);

    /* Phase 1b: the same in batches of BATCH, far below the ring's
     * capacity, with an untimed clFinish between: the cost of an enqueue
     * that never waits for ring space. */
    enum { BATCH = 128 };
    double bw = 0, bc = 0;
    for (int done = 0; done < n; done += BATCH) {
        int m = n - done < BATCH ? n - done : BATCH;
        double t0 = now_ns(), c0 = thread_ns();
        for (int i = 0; i < m; i++)
            if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, &lws, 0, NULL, NULL)))
                die("clEnqueueNDRangeKernel", err);
        bw += now_ns() - t0;
        bc += thread_ns() - c0;
        if ((err = clFinish(q)) != CL_SUCCESS)
            die("clFinish", err);
    }
    printf("enqueue: batches of %d: wall %.0f ns, thread CPU %.0f ns per enqueue\n", BATCH,
           bw / n, bc / n);

    /* Phase 2: enqueue + finish round trips (skipped with
     * ENQUEUE_COST_ONLY set, for instruction counts of phase 1). */
    const char *env_rt = getenv("ENQUEUE_COST_RT");
    int nrt = getenv("ENQUEUE_COST_ONLY") ? 0 : env_rt ? atoi(env_rt) : n;
    if (nrt < 0)
        nrt = 0;
    double *rt = calloc((size_t)(nrt ? nrt : 1), sizeof(*rt));
    for (int i = 0; i < nrt; i++) {
        double t0 = now_ns();
        if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, &lws, 0, NULL, NULL)))
            die("clEnqueueNDRangeKernel", err);
        if ((err = clFinish(q)) != CL_SUCCESS)
            die("clFinish", err);
        rt[i] = now_ns() - t0;
    }
    qsort(rt, (size_t)nrt, sizeof(*rt), bench_cmp_double);
    if (nrt)
        printf("enqueue+finish: %d round trips: median %.1f us, p90 %.1f us, p99 %.1f us, max %.1f "
           "us\n",
           nrt, rt[nrt / 2] / 1e3, rt[nrt * 9 / 10] / 1e3, rt[nrt * 99 / 100] / 1e3,
           rt[nrt - 1] / 1e3);

    free(rt);
    free(per);
    free(cpu);
    free(bin);
    clReleaseKernel(k);
    if (arg)
        clReleaseMemObject(arg);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}

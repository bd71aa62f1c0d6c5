/*
 * clbench — launch, latency, event and bandwidth figures for every OpenCL
 * platform on the machine, side by side, in one run.
 *
 * Each platform is measured in a child process of its own (two drivers
 * never share a process), which prints "key value" lines on a pipe; the
 * parent prints one table: the figure for each platform and the ratio
 * hcqcl / other, oriented so that > 1 means hcqcl is better.
 *
 *   clbench [--quick] [--kernels FILE] [--size MiB]
 *   clbench --peers [--quick] [--size MiB]
 *   clbench --child N   (internal: measure platform N)
 *
 * --peers measures every platform but hcqcl and prints, for each, a line
 * "platform NAME" and then its "key value" lines: hcqbench runs it to put
 * the other drivers' figures beside the raw core's.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#ifndef CLBENCH_KERNELS
#define CLBENCH_KERNELS "kernels.cl"
#endif

static const char *kernels_path = CLBENCH_KERNELS;
static size_t xfer_bytes = 256u << 20;
static int reps = 1000;
static FILE *out;

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cl_int e_ = (call);                                                               \
        if (e_ != CL_SUCCESS) {                                                           \
            fprintf(stderr, "clbench: %s failed: %d (line %d)\n", #call, e_, __LINE__);   \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double percentile(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    int i = (int)ceil(p * n) - 1;
    return v[i < 0 ? 0 : (i >= n ? n - 1 : i)];
}

static void emit(const char *key, double value) { fprintf(out, "%s %.6g\n", key, value); }

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "clbench: cannot open %s: %s\n", path, strerror(errno));
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
        exit(2);
    s[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return s;
}

struct ctx {
    cl_platform_id platform;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q, q2, qprof;
    cl_kernel empty, copy4, spin;
};

static void setup(struct ctx *c, cl_platform_id p)
{
    cl_int err;
    double t0 = now_us();
    c->platform = p;
    CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &c->dev, NULL));
    c->ctx = clCreateContext(NULL, 1, &c->dev, NULL, NULL, &err);
    CHECK(err);
    c->q = clCreateCommandQueueWithProperties(c->ctx, c->dev, NULL, &err);
    CHECK(err);
    emit("init_ms", (now_us() - t0) / 1e3);
    c->q2 = clCreateCommandQueueWithProperties(c->ctx, c->dev, NULL, &err);
    CHECK(err);
    cl_queue_properties pp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    c->qprof = clCreateCommandQueueWithProperties(c->ctx, c->dev, pp, &err);
    CHECK(err);

    size_t len;
    char *src = read_file(kernels_path, &len);
    const char *srcs[] = {src};
    cl_program prog = clCreateProgramWithSource(c->ctx, 1, srcs, &len, &err);
    CHECK(err);
    double tb = now_us();
    err = clBuildProgram(prog, 1, &c->dev, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(prog, c->dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
        fprintf(stderr, "clbench: build failed (%d):\n%s\n", err, log);
        exit(2);
    }
    emit("build_ms", (now_us() - tb) / 1e3);
    c->empty = clCreateKernel(prog, "empty", &err);
    CHECK(err);
    c->copy4 = clCreateKernel(prog, "copy4", &err);
    CHECK(err);
    c->spin = clCreateKernel(prog, "spin", &err);
    CHECK(err);
    clReleaseProgram(prog);
    free(src);
}

/* Median of 7 runs, microseconds from setting a user event to the end of
 * a chain of n empty kernels behind it, each waiting on the one before,
 * alternating between queues a and b. Not gated: the same chain with no
 * user event, timed from its first enqueue to its end. */
static double user_chain(struct ctx *c, cl_command_queue a, cl_command_queue b, int n,
                         bool gated)
{
    const size_t g = 32, l = 32;
    cl_int err;
    double w[7];
    for (int r = 0; r < 7; r++) {
        cl_event u = NULL;
        if (gated) {
            u = clCreateUserEvent(c->ctx, &err);
            CHECK(err);
        }
        cl_event prev = u;
        double t0 = now_us();
        for (int i = 0; i < n; i++) {
            cl_event e;
            CHECK(clEnqueueNDRangeKernel(i & 1 ? b : a, c->empty, 1, NULL, &g, &l, prev ? 1 : 0,
                                         prev ? &prev : NULL, &e));
            if (prev != u)
                clReleaseEvent(prev);
            prev = e;
        }
        CHECK(clFlush(a));
        CHECK(clFlush(b));
        if (gated) {
            t0 = now_us();
            CHECK(clSetUserEventStatus(u, CL_COMPLETE));
        }
        CHECK(clWaitForEvents(1, &prev));
        w[r] = now_us() - t0;
        clReleaseEvent(prev);
        if (u)
            clReleaseEvent(u);
    }
    return percentile(w, 7, 0.5);
}

/* Sets the spin kernel's arguments (m, and a step count doubled from 2^16
 * until one work-item's run on q, enqueue to clFinish, takes us). */
static void spin_for(struct ctx *c, cl_command_queue q, cl_mem m, double us)
{
    const size_t one = 1;
    CHECK(clSetKernelArg(c->spin, 0, sizeof(m), &m));
    for (cl_uint n = 1u << 16;; n *= 2) {
        CHECK(clSetKernelArg(c->spin, 1, sizeof(n), &n));
        double t0 = now_us();
        CHECK(clEnqueueNDRangeKernel(q, c->spin, 1, NULL, &one, &one, 0, NULL, NULL));
        CHECK(clFinish(q));
        if (now_us() - t0 >= us || n >= (1u << 30))
            break;
    }
}

/* Median of 5 runs, microseconds from enqueuing an empty kernel on q2 to
 * the end of clFinish(q2), while a kernel of 40+ ms (one work-item,
 * lengthened until it takes that long alone) runs on the context's first
 * queue, flushed 2 ms before. A driver that runs the two queues' kernels
 * side by side answers in microseconds; one that holds the second queue
 * behind the first answers with what was left of the long kernel. */
static double beside_long(struct ctx *c, cl_command_queue q2)
{
    cl_int err;
    cl_mem m = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(err);
    spin_for(c, c->q, m, 40000.0);
    const size_t one = 1, g = 32, l = 32;
    double w[5];
    for (int r = 0; r < 5; r++) {
        cl_event long_one;
        CHECK(clEnqueueNDRangeKernel(c->q, c->spin, 1, NULL, &one, &one, 0, NULL, &long_one));
        CHECK(clFlush(c->q));
        struct timespec nap = {0, 2000000};
        nanosleep(&nap, NULL);
        double t0 = now_us();
        CHECK(clEnqueueNDRangeKernel(q2, c->empty, 1, NULL, &g, &l, 0, NULL, NULL));
        CHECK(clFinish(q2));
        w[r] = now_us() - t0;
        CHECK(clWaitForEvents(1, &long_one));
        clReleaseEvent(long_one);
    }
    clReleaseMemObject(m);
    return percentile(w, 5, 0.5);
}

/* Median of 7 runs, microseconds: a kernel of 20+ ms (one work-item,
 * lengthened until it takes that long) enqueued on the profiling queue
 * and waited for with clFinish, the wall time from the enqueue to
 * clFinish's return less the kernel's profiled length (END - START). What
 * is left is the launch and how late the wait, asleep through most of
 * the kernel, saw its end. */
static double long_late(struct ctx *c)
{
    cl_int err;
    cl_mem m = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK(err);
    spin_for(c, c->qprof, m, 20000.0);
    const size_t one = 1;
    double w[7];
    for (int r = 0; r < 7; r++) {
        cl_event e;
        cl_ulong s, en;
        double t0 = now_us();
        CHECK(clEnqueueNDRangeKernel(c->qprof, c->spin, 1, NULL, &one, &one, 0, NULL, &e));
        CHECK(clFinish(c->qprof));
        double wall = now_us() - t0;
        CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof(s), &s, NULL));
        CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof(en), &en, NULL));
        w[r] = wall - (double)(en - s) / 1e3;
        clReleaseEvent(e);
    }
    clReleaseMemObject(m);
    return percentile(w, 7, 0.5);
}

static void bench_launch(struct ctx *c)
{
    cl_int err;
    cl_mem b = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(c->empty, 0, sizeof(b), &b));
    size_t g = 32, l = 32;
    for (int i = 0; i < 100; i++)
        CHECK(clEnqueueNDRangeKernel(c->q, c->empty, 1, NULL, &g, &l, 0, NULL, NULL));
    CHECK(clFinish(c->q));

    /* CPU cost of one enqueue, and the sustained back-to-back rate. */
    double batch[7], rate[7];
    for (int r = 0; r < 7; r++) {
        double t0 = now_us();
        for (int i = 0; i < reps; i++)
            CHECK(clEnqueueNDRangeKernel(c->q, c->empty, 1, NULL, &g, &l, 0, NULL, NULL));
        double t1 = now_us();
        CHECK(clFinish(c->q));
        double t2 = now_us();
        batch[r] = (t1 - t0) / reps;
        rate[r] = (t2 - t0) / reps;
    }
    emit("enqueue_us", percentile(batch, 7, 0.5));
    emit("launch_rate_us", percentile(rate, 7, 0.5));

    /* enqueue + finish round trip. */
    double *v = malloc(sizeof(double) * (size_t)reps);
    for (int i = 0; i < reps; i++) {
        double t0 = now_us();
        CHECK(clEnqueueNDRangeKernel(c->q, c->empty, 1, NULL, &g, &l, 0, NULL, NULL));
        CHECK(clFinish(c->q));
        v[i] = now_us() - t0;
    }
    emit("roundtrip_us", percentile(v, reps, 0.5));
    emit("roundtrip_p99_us", percentile(v, reps, 0.99));

    /* enqueue + wait on its event. */
    for (int i = 0; i < reps; i++) {
        cl_event e;
        double t0 = now_us();
        CHECK(clEnqueueNDRangeKernel(c->q, c->empty, 1, NULL, &g, &l, 0, NULL, &e));
        CHECK(clWaitForEvents(1, &e));
        v[i] = now_us() - t0;
        clReleaseEvent(e);
    }
    emit("event_wait_us", percentile(v, reps, 0.5));

    /* Behind a user event: one kernel, then a chain of 100 each waiting on
     * the one before, then the same chain across two queues (each kernel
     * on the other queue from the one before), timed from setting the
     * event to the end. */
    cl_command_queue q2 = clCreateCommandQueue(c->ctx, c->dev, 0, &err);
    CHECK(err);
    emit("user_gate_us", user_chain(c, c->q, c->q, 1, true));
    emit("user_chain_us", user_chain(c, c->q, c->q, 100, true));
    emit("user_xchain_us", user_chain(c, c->q, q2, 100, true));
    emit("event_chain_us", user_chain(c, c->q, c->q, 100, false));
    emit("event_xchain_us", user_chain(c, c->q, q2, 100, false));
    emit("beside_long_us", beside_long(c, q2));
    emit("long_late_us", long_late(c));
    clReleaseCommandQueue(q2);

    /* Profiled duration of an empty kernel. */
    int n = reps < 200 ? reps : 200;
    for (int i = 0; i < n; i++) {
        cl_event e;
        cl_ulong s, en;
        CHECK(clEnqueueNDRangeKernel(c->qprof, c->empty, 1, NULL, &g, &l, 0, NULL, &e));
        CHECK(clWaitForEvents(1, &e));
        CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof(s), &s, NULL));
        CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof(en), &en, NULL));
        v[i] = (double)(en - s) / 1e3;
        clReleaseEvent(e);
    }
    emit("kernel_profiled_us", percentile(v, n, 0.5));
    size_t res = 0;
    CHECK(clGetDeviceInfo(c->dev, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof(res), &res, NULL));
    emit("timer_resolution_ns", (double)res);
    free(v);
    clReleaseMemObject(b);
}

/* Object cycles: make, first use (a blocking 4-byte write: a driver that
 * allocates at first use allocates there), release. Median of reps/4. */
static void bench_objects(struct ctx *c)
{
    const int n = reps / 4 > 8 ? reps / 4 : 8;
    double *v = malloc(sizeof(double) * (size_t)n);
    const uint32_t word = 0x01020304u;
    cl_int err;
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        cl_mem b = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
        CHECK(err);
        CHECK(clEnqueueWriteBuffer(c->q, b, CL_TRUE, 0, sizeof(word), &word, 0, NULL, NULL));
        CHECK(clReleaseMemObject(b));
        v[i] = now_us() - t0;
    }
    emit("buffer_cycle_us", percentile(v, n, 0.5));
    cl_bool images = CL_FALSE;
    CHECK(clGetDeviceInfo(c->dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL));
    if (images) {
        const cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
        const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 64,
                                    .image_height = 64};
        const size_t origin[3] = {0, 0, 0}, region[3] = {1, 1, 1};
        for (int i = 0; i < n; i++) {
            double t0 = now_us();
            cl_mem im = clCreateImage(c->ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
            CHECK(err);
            CHECK(clEnqueueWriteImage(c->q, im, CL_TRUE, origin, region, 0, 0, &word, 0, NULL,
                                      NULL));
            CHECK(clReleaseMemObject(im));
            v[i] = now_us() - t0;
        }
        emit("image_cycle_us", percentile(v, n, 0.5));
    }
    free(v);
}

/* Median GB/s of `runs` transfers of `bytes` done by fn. */
typedef void (*xfer_fn)(struct ctx *c, void *arg);
static double time_gbs(struct ctx *c, xfer_fn fn, void *arg, double bytes, int runs)
{
    double v[16];
    fn(c, arg); /* warm-up */
    for (int r = 0; r < runs; r++) {
        double t0 = now_us();
        fn(c, arg);
        v[r] = bytes / ((now_us() - t0) * 1e3);
    }
    return percentile(v, runs, 0.5);
}

struct xfer {
    cl_mem dev, dev2;
    void *host;
    bool write;
    int count;
};

static void do_rw(struct ctx *c, void *a)
{
    struct xfer *x = a;
    if (x->write)
        CHECK(clEnqueueWriteBuffer(c->q, x->dev, CL_TRUE, 0, xfer_bytes, x->host, 0, NULL, NULL));
    else
        CHECK(clEnqueueReadBuffer(c->q, x->dev, CL_TRUE, 0, xfer_bytes, x->host, 0, NULL, NULL));
}

/* Map a device buffer for reading, copy it out on the CPU, unmap: what an
 * application that reads results through a map pays. */
static void do_map_read(struct ctx *c, void *a)
{
    struct xfer *x = a;
    cl_int err;
    void *p = clEnqueueMapBuffer(c->q, x->dev, CL_TRUE, CL_MAP_READ, 0, xfer_bytes, 0, NULL, NULL,
                                 &err);
    CHECK(err);
    memcpy(x->host, p, xfer_bytes);
    CHECK(clEnqueueUnmapMemObject(c->q, x->dev, p, 0, NULL, NULL));
    CHECK(clFinish(c->q));
}

static void do_bidir(struct ctx *c, void *a)
{
    struct xfer *x = a; /* x[0] write on q, x[1] read on q2 */
    CHECK(clEnqueueWriteBuffer(c->q, x[0].dev, CL_FALSE, 0, xfer_bytes, x[0].host, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(c->q2, x[1].dev, CL_FALSE, 0, xfer_bytes, x[1].host, 0, NULL, NULL));
    CHECK(clFlush(c->q));
    CHECK(clFlush(c->q2));
    CHECK(clFinish(c->q));
    CHECK(clFinish(c->q2));
}

/* Both directions again, on two profiling queues: each transfer's GPU
 * START..END gives its own rate while the link carries both (medians). */
static void bidir_split(struct ctx *c, const struct xfer *x, int runs, double *up, double *down)
{
    cl_int err;
    cl_queue_properties pp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q2 = clCreateCommandQueueWithProperties(c->ctx, c->dev, pp, &err);
    CHECK(err);
    double u[16], d[16];
    for (int r = -1; r < runs; r++) {
        cl_event ew, er;
        CHECK(clEnqueueWriteBuffer(c->qprof, x[0].dev, CL_FALSE, 0, xfer_bytes, x[0].host, 0, NULL,
                                   &ew));
        CHECK(clEnqueueReadBuffer(q2, x[1].dev, CL_FALSE, 0, xfer_bytes, x[1].host, 0, NULL, &er));
        CHECK(clFlush(c->qprof));
        CHECK(clFlush(q2));
        CHECK(clFinish(c->qprof));
        CHECK(clFinish(q2));
        cl_ulong t[4];
        CHECK(clGetEventProfilingInfo(ew, CL_PROFILING_COMMAND_START, 8, &t[0], NULL));
        CHECK(clGetEventProfilingInfo(ew, CL_PROFILING_COMMAND_END, 8, &t[1], NULL));
        CHECK(clGetEventProfilingInfo(er, CL_PROFILING_COMMAND_START, 8, &t[2], NULL));
        CHECK(clGetEventProfilingInfo(er, CL_PROFILING_COMMAND_END, 8, &t[3], NULL));
        if (r >= 0) {
            u[r] = t[1] > t[0] ? (double)xfer_bytes / (double)(t[1] - t[0]) : 0;
            d[r] = t[3] > t[2] ? (double)xfer_bytes / (double)(t[3] - t[2]) : 0;
        }
        clReleaseEvent(ew);
        clReleaseEvent(er);
    }
    *up = percentile(u, runs, 0.5);
    *down = percentile(d, runs, 0.5);
    clReleaseCommandQueue(q2);
}

static void do_d2d(struct ctx *c, void *a)
{
    struct xfer *x = a;
    for (int i = 0; i < x->count; i++)
        CHECK(clEnqueueCopyBuffer(c->q, x->dev, x->dev2, 0, 0, xfer_bytes, 0, NULL, NULL));
    CHECK(clFinish(c->q));
}

static void do_copy4(struct ctx *c, void *a)
{
    struct xfer *x = a;
    size_t g = xfer_bytes / 16, l = 256;
    for (int i = 0; i < x->count; i++)
        CHECK(clEnqueueNDRangeKernel(c->q, c->copy4, 1, NULL, &g, &l, 0, NULL, NULL));
    CHECK(clFinish(c->q));
}

static void bench_bandwidth(struct ctx *c, int runs)
{
    cl_int err;
    cl_mem d = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, xfer_bytes, NULL, &err);
    CHECK(err);
    cl_mem d2 = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, xfer_bytes, NULL, &err);
    CHECK(err);

    /* Pageable host memory, touched so that page faults don't count. */
    void *pageable = malloc(xfer_bytes);
    memset(pageable, 0x5a, xfer_bytes);
    struct xfer x = {.dev = d, .host = pageable, .write = true};
    emit("h2d_pageable_gbs", time_gbs(c, do_rw, &x, (double)xfer_bytes, runs));
    x.write = false;
    emit("d2h_pageable_gbs", time_gbs(c, do_rw, &x, (double)xfer_bytes, runs));
    /* A buffer made from host data, read back through a map. */
    cl_mem init = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, xfer_bytes,
                                 pageable, &err);
    CHECK(err);
    struct xfer mx = {.dev = init, .host = pageable};
    emit("map_read_gbs", time_gbs(c, do_map_read, &mx, (double)xfer_bytes, runs));
    clReleaseMemObject(init);

    /* Pinned: a mapped CL_MEM_ALLOC_HOST_PTR buffer (oclBandwidthTest). */
    cl_mem pin[2];
    void *pinp[2];
    for (int i = 0; i < 2; i++) {
        pin[i] = clCreateBuffer(c->ctx, CL_MEM_ALLOC_HOST_PTR, xfer_bytes, NULL, &err);
        CHECK(err);
        pinp[i] = clEnqueueMapBuffer(c->q, pin[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     xfer_bytes, 0, NULL, NULL, &err);
        CHECK(err);
        memset(pinp[i], 0x33, xfer_bytes);
    }
    x.host = pinp[0];
    x.write = true;
    emit("h2d_pinned_gbs", time_gbs(c, do_rw, &x, (double)xfer_bytes, runs));
    x.write = false;
    emit("d2h_pinned_gbs", time_gbs(c, do_rw, &x, (double)xfer_bytes, runs));

    struct xfer bx[2] = {{.dev = d, .host = pinp[0]}, {.dev = d2, .host = pinp[1]}};
    emit("bidir_pinned_gbs", time_gbs(c, do_bidir, bx, 2.0 * (double)xfer_bytes, runs));
    double up, down;
    bidir_split(c, bx, runs, &up, &down);
    emit("bidir_up_gbs", up);
    emit("bidir_down_gbs", down);

    struct xfer dd = {.dev = d, .dev2 = d2, .count = 10};
    emit("d2d_copy_gbs", time_gbs(c, do_d2d, &dd, 20.0 * (double)xfer_bytes, runs));
    CHECK(clSetKernelArg(c->copy4, 0, sizeof(d), &d));
    CHECK(clSetKernelArg(c->copy4, 1, sizeof(d2), &d2));
    emit("copy_kernel_gbs", time_gbs(c, do_copy4, &dd, 20.0 * (double)xfer_bytes, runs));

    /* Check the copies moved the data: d2 must now equal what was written. */
    CHECK(clEnqueueWriteBuffer(c->q, d, CL_TRUE, 0, 4096, pageable, 0, NULL, NULL));
    CHECK(clEnqueueCopyBuffer(c->q, d, d2, 0, 0, 4096, 0, NULL, NULL));
    unsigned char chk[4096];
    CHECK(clEnqueueReadBuffer(c->q, d2, CL_TRUE, 0, sizeof(chk), chk, 0, NULL, NULL));
    emit("data_ok", memcmp(chk, pageable, sizeof(chk)) == 0);

    for (int i = 0; i < 2; i++) {
        CHECK(clEnqueueUnmapMemObject(c->q, pin[i], pinp[i], 0, NULL, NULL));
        clReleaseMemObject(pin[i]);
    }
    CHECK(clFinish(c->q));
    clReleaseMemObject(d);
    clReleaseMemObject(d2);
    free(pageable);
}

static int child(int index, bool quick)
{
    cl_uint n = 0;
    cl_platform_id ps[16];
    double t0 = now_us();
    CHECK(clGetPlatformIDs(16, ps, &n));
    if ((cl_uint)index >= n)
        return 2;
    struct ctx c = {0};
    setup(&c, ps[index]);
    emit("platform_ms", (now_us() - t0) / 1e3);
    bench_launch(&c);
    bench_objects(&c);
    bench_bandwidth(&c, quick ? 3 : 7);
    clReleaseKernel(c.empty);
    clReleaseKernel(c.copy4);
    clReleaseCommandQueue(c.q);
    clReleaseCommandQueue(c.q2);
    clReleaseCommandQueue(c.qprof);
    clReleaseContext(c.ctx);
    return 0;
}

/* Figures: key, label, unit, higher is better. */
static const struct {
    const char *key, *label, *unit;
    bool higher_better;
} figs[] = {
    {"init_ms", "init: platform -> context + queue", "ms", false},
    {"build_ms", "build from source (cached for hcqcl)", "ms", false},
    {"enqueue_us", "CPU cost of one kernel enqueue", "us", false},
    {"launch_rate_us", "back-to-back empty kernels", "us/launch", false},
    {"roundtrip_us", "enqueue + finish, empty kernel", "us", false},
    {"roundtrip_p99_us", "enqueue + finish, p99", "us", false},
    {"event_wait_us", "enqueue + wait on its event", "us", false},
    {"user_gate_us", "user event set -> kernel behind it done", "us", false},
    {"user_chain_us", "user event set -> 100-kernel chain done", "us", false},
    {"user_xchain_us", "  the same chain across two queues", "us", false},
    {"event_chain_us", "100-kernel event chain, ungated", "us", false},
    {"event_xchain_us", "  the same chain across two queues", "us", false},
    {"beside_long_us", "kernel on queue 2 beside a long one, done", "us", false},
    {"long_late_us", "20 ms kernel: finish wall - profiled", "us", false},
    {"kernel_profiled_us", "profiled duration, empty kernel", "us", false},
    {"timer_resolution_ns", "profiling timer resolution", "ns", false},
    {"buffer_cycle_us", "4 KiB buffer: make, write, release", "us", false},
    {"image_cycle_us", "64x64 image: make, write, release", "us", false},
    {"h2d_pageable_gbs", "host->device pageable", "GB/s", true},
    {"d2h_pageable_gbs", "device->host pageable", "GB/s", true},
    {"map_read_gbs", "COPY_HOST_PTR buffer: map, read, unmap", "GB/s", true},
    {"h2d_pinned_gbs", "host->device pinned", "GB/s", true},
    {"d2h_pinned_gbs", "device->host pinned", "GB/s", true},
    {"bidir_pinned_gbs", "both directions at once, pinned", "GB/s", true},
    {"bidir_up_gbs", "  host->device meanwhile (GPU time)", "GB/s", true},
    {"bidir_down_gbs", "  device->host meanwhile (GPU time)", "GB/s", true},
    {"d2d_copy_gbs", "device->device copy (r+w)", "GB/s", true},
    {"copy_kernel_gbs", "copy kernel float4 (r+w)", "GB/s", true},
    {"data_ok", "data verified", "1=yes", true},
};
#define NFIGS (sizeof(figs) / sizeof(figs[0]))

struct result {
    char name[128];
    double v[NFIGS];
    bool have[NFIGS];
    int status;
};

static void run_child(const char *self, int index, bool quick, struct result *r)
{
    int fd[2];
    if (pipe(fd))
        exit(2);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 3);
        char idx[16];
        snprintf(idx, sizeof(idx), "%d", index);
        char size[32];
        snprintf(size, sizeof(size), "%zu", xfer_bytes >> 20);
        execl(self, self, "--child", idx, "--kernels", kernels_path, "--size", size,
              quick ? "--quick" : "--full", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char key[64];
    double val;
    while (f && fscanf(f, "%63s %lf", key, &val) == 2)
        for (size_t i = 0; i < NFIGS; i++)
            if (!strcmp(key, figs[i].key)) {
                r->v[i] = val;
                r->have[i] = true;
            }
    if (f)
        fclose(f);
    int st = 0;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    bool quick = false, peers = false;
    int child_index = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--full"))
            quick = false;
        else if (!strcmp(argv[i], "--peers"))
            peers = true;
        else if (!strcmp(argv[i], "--child") && i + 1 < argc)
            child_index = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
            kernels_path = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            xfer_bytes = (size_t)atol(argv[++i]) << 20;
        else {
            fprintf(stderr, "usage: clbench [--quick] [--peers] [--kernels FILE] [--size MiB]\n");
            return 2;
        }
    }
    if (quick)
        reps = 200;
    if (child_index >= 0) {
        out = fdopen(3, "w");
        if (!out)
            out = stdout;
        setvbuf(out, NULL, _IOLBF, 0);
        return child(child_index, quick);
    }

    cl_uint n = 0;
    cl_platform_id ps[16];
    if (clGetPlatformIDs(16, ps, &n) != CL_SUCCESS || n == 0) {
        fprintf(stderr, "clbench: no OpenCL platform\n");
        return 1;
    }
    struct result *res = calloc(n, sizeof(*res));
    int hcq = -1;
    for (cl_uint i = 0; i < n; i++) {
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(res[i].name), res[i].name, NULL);
        if (!strcmp(res[i].name, "hcqcl"))
            hcq = (int)i;
    }
    /* Measure each platform in its own process. */
    for (cl_uint i = 0; i < n; i++)
        if (!peers || (int)i != hcq)
            run_child("/proc/self/exe", (int)i, quick, &res[i]);
    if (peers) {
        int rc = 0;
        for (cl_uint i = 0; i < n; i++) {
            if ((int)i == hcq)
                continue;
            printf("platform %s\n", res[i].name);
            for (size_t f = 0; f < NFIGS; f++)
                if (res[i].have[f])
                    printf("%s %.6g\n", figs[f].key, res[i].v[f]);
            rc |= res[i].status != 0;
        }
        free(res);
        return rc;
    }

    printf("%-40s %-10s", "figure (medians)", "unit");
    for (cl_uint i = 0; i < n; i++)
        printf(" %14.14s", res[i].name);
    if (hcq >= 0)
        for (cl_uint i = 0; i < n; i++)
            if ((int)i != hcq)
                printf(" %10s", "hcqcl/x");
    printf("\n");
    for (size_t f = 0; f < NFIGS; f++) {
        printf("%-40s %-10s", figs[f].label, figs[f].unit);
        for (cl_uint i = 0; i < n; i++)
            if (res[i].have[f])
                printf(" %14.3f", res[i].v[f]);
            else
                printf(" %14s", "-");
        if (hcq >= 0)
            for (cl_uint i = 0; i < n; i++) {
                if ((int)i == hcq)
                    continue;
                if (res[i].have[f] && res[hcq].have[f] && res[i].v[f] > 0 && res[hcq].v[f] > 0)
                    printf(" %9.2fx", figs[f].higher_better ? res[hcq].v[f] / res[i].v[f]
                                                           : res[i].v[f] / res[hcq].v[f]);
                else
                    printf(" %10s", "-");
            }
        printf("\n");
    }
    printf("ratio: > 1 means hcqcl is better (faster or higher bandwidth)\n");
    int rc = 0;
    for (cl_uint i = 0; i < n; i++)
        if (res[i].status) {
            printf("platform '%s' exited with status %d\n", res[i].name, res[i].status);
            rc = 1;
        }
    free(res);
    return rc;
}

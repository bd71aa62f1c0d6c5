/*
 * lite_test.c — in-order commands enqueued without an event (no event
 * asked for, no wait list: src/api/command_lite.c), checked by data. The
 * kernel is vadd from tests/kernels, x = x + x + k in place, so a result
 * encodes the order of the steps. Covered: order among such commands and
 * with commands that have events, on the same channel and on the copy
 * channels; commands behind a user event; clFinish making earlier events
 * final; a kernel and buffers released while their commands are queued
 * (let go with no further call); a map that copies on the host right
 * after such a command; a callback releasing a queue whose last command
 * has none; more commands than the queue's ring holds; and work held
 * back while the GPU is busy reaching it with no call at all.
 */
#include "vadd_steps.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { N = 1000 };

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;
static cl_program prog;
static float x0[N], got[N];

static cl_kernel vadd(void)
{
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "vadd", &err);
    REQUIRE(k, "vadd: %d", err);
    return k;
}

static void step3(cl_kernel k, cl_mem a, cl_mem b, cl_mem c, int add, cl_event *e)
{
    vadd_step(q, k, a, b, c, add, N, 0, NULL, e);
}

static void step(cl_kernel k, cl_mem x, int add, cl_event *e) { step3(k, x, x, x, add, e); }

/* x[i] after the steps adds[0..n) from x0. */
static float expect(int i, const int *adds, int n)
{
    float v = x0[i];
    for (int s = 0; s < n; s++)
        v = v + v + (float)adds[s];
    return v;
}

static void check(const float *v, const int *adds, int n, const char *what)
{
    for (int i = 0; i < N; i++)
        if (v[i] != expect(i, adds, n)) {
            EXPECT(false, "%s: x[%d] = %g, want %g", what, i, v[i], expect(i, adds, n));
            return;
        }
}

static cl_mem buffer(cl_mem_flags flags)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, flags, N * 4, NULL, &err);
    REQUIRE(m, "buffer: %d", err);
    return m;
}

/* Steps without events between an upload and a download that run on the
 * copy channels, the upload not waited for; a step with an event among
 * them, which clFinish must have made final. */
static void test_order(void)
{
    cl_kernel k = vadd();
    cl_mem x = buffer(CL_MEM_READ_WRITE);
    static const int adds[] = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_OK(clEnqueueWriteBuffer(q, x, CL_FALSE, 0, N * 4, x0, 0, NULL, NULL));
    cl_event mid = NULL;
    for (int s = 0; s < 8; s++)
        step(k, x, adds[s], s == 3 ? &mid : NULL);
    cl_event rd;
    EXPECT_OK(clEnqueueReadBuffer(q, x, CL_FALSE, 0, N * 4, got, 0, NULL, &rd));
    EXPECT_OK(clWaitForEvents(1, &rd));
    check(got, adds, 8, "steps between an upload and a download");
    EXPECT_OK(clReleaseEvent(rd));
    EXPECT(status_of(mid) == CL_COMPLETE, "step with an event: status %d", status_of(mid));
    EXPECT_OK(clReleaseEvent(mid));

    /* An event before steps without: final once clFinish returns. */
    EXPECT_OK(clEnqueueWriteBuffer(q, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    cl_event first;
    step(k, x, 9, &first);
    for (int s = 0; s < 4; s++)
        step(k, x, s, NULL);
    EXPECT_OK(clFinish(q));
    EXPECT(status_of(first) == CL_COMPLETE, "event before them after clFinish: status %d",
           status_of(first));
    EXPECT_OK(clReleaseEvent(first));
    EXPECT_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * 4, got, 0, NULL, NULL));
    static const int adds2[] = {9, 0, 1, 2, 3};
    check(got, adds2, 5, "an event's step, then steps without");
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseKernel(k));
}

/* A step behind a user event, then steps without events: they wait too. */
static void test_user_event(void)
{
    cl_int err;
    cl_kernel k = vadd();
    cl_mem x = buffer(CL_MEM_READ_WRITE);
    EXPECT_OK(clEnqueueWriteBuffer(q, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    cl_event u = clCreateUserEvent(ctx, &err);
    EXPECT_OK(err);
    vadd_step(q, k, x, x, x, 7, N, 1, &u, NULL);
    for (int s = 0; s < 3; s++)
        step(k, x, s, NULL);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * 4, got, 0, NULL, NULL));
    static const int adds[] = {7, 0, 1, 2};
    check(got, adds, 4, "steps behind a user event");
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseKernel(k));
}

static atomic_int destroyed;
static void CL_CALLBACK on_destroy(cl_mem m, void *data)
{
    (void)m;
    (void)data;
    atomic_fetch_add(&destroyed, 1);
}

/* The kernel and the source buffers released right after the enqueue:
 * the command keeps them until it ran; they go soon after that, with no
 * further call needed. */
static void test_release_while_queued(void)
{
    cl_kernel k = vadd();
    cl_mem a = buffer(CL_MEM_READ_WRITE), b = buffer(CL_MEM_READ_WRITE);
    cl_mem c = buffer(CL_MEM_READ_WRITE);
    EXPECT_OK(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    EXPECT_OK(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    atomic_store(&destroyed, 0);
    EXPECT_OK(clSetMemObjectDestructorCallback(a, on_destroy, NULL));
    EXPECT_OK(clSetMemObjectDestructorCallback(b, on_destroy, NULL));
    step3(k, a, b, c, 3, NULL);
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseMemObject(a));
    EXPECT_OK(clReleaseMemObject(b));
    /* Without clFinish or another enqueue: the notifier lets them go. */
    uint64_t t0 = host_ns();
    while (atomic_load(&destroyed) < 2 && host_ns() - t0 < 5000000000ull)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    EXPECT(atomic_load(&destroyed) == 2, "destructor callbacks with no call: %d",
           atomic_load(&destroyed));
    EXPECT_OK(clFinish(q));
    EXPECT(atomic_load(&destroyed) == 2, "destructor callbacks after clFinish: %d",
           atomic_load(&destroyed));
    EXPECT_OK(clEnqueueReadBuffer(q, c, CL_TRUE, 0, N * 4, got, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        if (got[i] != x0[i] + x0[i] + 3.0f) {
            EXPECT(false, "released sources: c[%d] = %g", i, got[i]);
            break;
        }
    EXPECT_OK(clReleaseMemObject(c));
}

/* More commands than the queue's ring holds (x = x + 0 + 1 each), then
 * work held back while the GPU is busy, found with no call at all: the
 * last step writes a buffer the host watches through its mapping. */
static void test_many_and_held(void)
{
    cl_int err;
    cl_kernel k = vadd();
    cl_mem x = buffer(CL_MEM_READ_WRITE), zero = buffer(CL_MEM_READ_WRITE);
    EXPECT_OK(clEnqueueWriteBuffer(q, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    float zeros[N] = {0};
    EXPECT_OK(clEnqueueWriteBuffer(q, zero, CL_TRUE, 0, N * 4, zeros, 0, NULL, NULL));
    enum { STEPS = 1000 };
    for (int s = 0; s < STEPS; s++)
        step3(k, x, zero, x, 1, NULL);
    EXPECT_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * 4, got, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        if (got[i] != x0[i] + (float)STEPS) {
            EXPECT(false, "%d steps: x[%d] = %g", STEPS, i, got[i]);
            break;
        }

#ifdef __SANITIZE_THREAD__
    /* Watching memory a kernel writes is a race by design: left to the
     * other builds. */
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseMemObject(zero));
    EXPECT_OK(clReleaseKernel(k));
    return;
#endif
    cl_mem h = buffer(CL_MEM_ALLOC_HOST_PTR);
    volatile float *hp = clEnqueueMapBuffer(q, h, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, N * 4,
                                            0, NULL, NULL, &err);
    REQUIRE(hp, "map: %d", err);
    memset((void *)hp, 0, N * 4);
    for (int s = 0; s < 200; s++)
        step3(k, x, zero, x, 1, NULL);
    step3(k, x, zero, h, 0, NULL); /* h = x */
    const float want = x0[N - 1] + (float)STEPS + 200.0f;
    uint64_t t0 = host_ns();
    while (hp[N - 1] != want && host_ns() - t0 < 5000000000ull)
        ;
    EXPECT(hp[N - 1] == want, "held work with no call: %g, want %g", hp[N - 1], want);
    EXPECT_OK(clEnqueueUnmapMemObject(q, h, (void *)hp, 0, NULL, NULL));
    EXPECT_OK(clFinish(q));
    EXPECT_OK(clReleaseMemObject(h));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseMemObject(zero));
    EXPECT_OK(clReleaseKernel(k));
}

/* A blocking map of a buffer with a host copy (a USE_HOST_PTR pointer
 * not 16-byte aligned: the map copies on the host) right after a step
 * without an event: the map's copy waits for the step. */
static void test_map_after(void)
{
    cl_int err;
    cl_kernel k = vadd();
    static float store[N + 1];
    float *host = (float *)((char *)store + 4);
    memcpy(host, x0, N * 4);
    cl_mem x = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, N * 4, host, &err);
    REQUIRE(x, "USE_HOST_PTR buffer: %d", err);
    static const int adds[] = {5};
    for (int r = 0; r < 5; r++) {
        step(k, x, 5, NULL);
        float *m = clEnqueueMapBuffer(q, x, CL_TRUE, CL_MAP_READ, 0, N * 4, 0, NULL, NULL, &err);
        REQUIRE(m, "map: %d", err);
        check(m, adds, 1, "map right after a step");
        EXPECT_OK(clEnqueueUnmapMemObject(q, x, m, 0, NULL, NULL));
        EXPECT_OK(clEnqueueWriteBuffer(q, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    }
    EXPECT_OK(clFinish(q));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseKernel(k));
}

/* A callback (on the notifier thread) releases a queue whose last command
 * has no event and waits on the GPU for a read whose host copy only the
 * tracker does: the release must move the tracker while it waits. */
static atomic_int released;
static void CL_CALLBACK release_queue(cl_event e, cl_int status, void *data)
{
    (void)e;
    (void)status;
    EXPECT_OK(clReleaseCommandQueue((cl_command_queue)data));
    atomic_store(&released, 1);
}

static void test_release_in_callback(void)
{
    cl_int err;
    cl_program p = cltest_program(ctx, dev, "gpu_kernels.cubin");
    cl_kernel spin = clCreateKernel(p, "spin_ns", &err);
    REQUIRE(spin, "spin_ns: %d", err);
    cl_kernel k = vadd();
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q2, "queue: %d", err);
    cl_mem x = buffer(CL_MEM_READ_WRITE), out = buffer(CL_MEM_READ_WRITE);
    EXPECT_OK(clEnqueueWriteBuffer(q2, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    cl_ulong ns = 50000000;
    EXPECT_OK(clSetKernelArg(spin, 0, sizeof(ns), &ns));
    EXPECT_OK(clSetKernelArg(spin, 1, sizeof(out), &out));
    const size_t one = 1;
    EXPECT_OK(clEnqueueNDRangeKernel(q2, spin, 1, NULL, &one, &one, 0, NULL, NULL));
    static float head[4];
    EXPECT_OK(clEnqueueReadBuffer(q2, x, CL_FALSE, 0, sizeof(head), head, 0, NULL, NULL));
    vadd_step(q2, k, x, x, x, 1, N, 0, NULL, NULL);
    cl_event u = clCreateUserEvent(ctx, &err);
    EXPECT_OK(err);
    atomic_store(&released, 0);
    EXPECT_OK(clSetEventCallback(u, CL_COMPLETE, release_queue, q2));
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    uint64_t t0 = host_ns();
    while (!atomic_load(&released) && host_ns() - t0 < 5000000000ull)
        ;
    EXPECT(atomic_load(&released), "release from a callback did not return");
    EXPECT(head[1] == x0[1] && head[3] == x0[3], "read before the step: %g %g", head[1],
           head[3]);
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseMemObject(out));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseKernel(spin));
    EXPECT_OK(clReleaseProgram(p));
}

/* A destructor callback that finishes a queue and releases another, run
 * while the commands that held its buffer are retired (inside a release
 * stretch, on whichever thread retires them): it returns, as does the
 * application's own clFinish meanwhile. */
struct finisher {
    cl_command_queue finish, release;
    atomic_int ran;
};

static void CL_CALLBACK finish_in_destructor(cl_mem m, void *data)
{
    (void)m;
    struct finisher *f = data;
    EXPECT_OK(clFinish(f->finish));
    EXPECT_OK(clReleaseCommandQueue(f->release));
    atomic_fetch_add(&f->ran, 1);
}

static void test_finish_in_destructor(void)
{
    cl_int err;
    cl_kernel k = vadd();
    alarm(60); /* a wait for itself fails the test instead of hanging */
    for (int round = 0; round < 20; round++) {
        cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
        cl_command_queue q3 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
        REQUIRE(q2 && q3, "queues: %d", err);
        struct finisher f = {q2, q3, 0};
        cl_mem x = buffer(CL_MEM_READ_WRITE);
        EXPECT_OK(clSetMemObjectDestructorCallback(x, finish_in_destructor, &f));
        for (int s = 0; s < 4; s++) {
            step(k, x, s, NULL);
            vadd_step(q2, k, x, x, x, s, N, 0, NULL, NULL);
            vadd_step(q3, k, x, x, x, s, N, 0, NULL, NULL);
        }
        EXPECT_OK(clReleaseMemObject(x));
        EXPECT_OK(clFinish(q));
        uint64_t t0 = host_ns();
        while (!atomic_load(&f.ran) && host_ns() - t0 < 5000000000ull)
            ;
        EXPECT(atomic_load(&f.ran) == 1, "round %d: destructor ran %d times", round,
               atomic_load(&f.ran));
        EXPECT_OK(clReleaseCommandQueue(q2));
    }
    alarm(0);
    EXPECT_OK(clReleaseKernel(k));
}

/* One kernel launched again and again with its arguments set once: the
 * same launch each time (enqueue_kernel.c remembers it), its objects'
 * references handed from command to command (command_lite.c). Every
 * change the launch depends on is seen: an argument's value, a buffer
 * argument, the sizes, a buffer released behind the kernel's back, the
 * kernel itself released and another made. */
static void test_same_launch(void)
{
    cl_kernel k = vadd();
    cl_mem x = buffer(CL_MEM_READ_WRITE), zero = buffer(CL_MEM_READ_WRITE);
    cl_mem y = buffer(CL_MEM_READ_WRITE);
    float zeros[N] = {0};
    EXPECT_OK(clEnqueueWriteBuffer(q, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    EXPECT_OK(clEnqueueWriteBuffer(q, zero, CL_TRUE, 0, N * 4, zeros, 0, NULL, NULL));
    atomic_store(&destroyed, 0);
    EXPECT_OK(clSetMemObjectDestructorCallback(zero, on_destroy, NULL));
    int add = 1;
    vadd_args(k, x, zero, x, add, N);
    const size_t g = 1024, half = 512, l = 128;
    float want[N];
    memcpy(want, x0, sizeof(want));
    for (int s = 0; s < 300; s++) /* x += 1 */
        EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        want[i] += 300.0f;
    add = 2; /* a value changed: x += 2 */
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(add), &add));
    for (int s = 0; s < 10; s++)
        EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        want[i] += 20.0f;
    /* other sizes: only the first half moves */
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &half, &l, 0, NULL, NULL));
    for (int i = 0; i < (int)half; i++)
        want[i] += 2.0f;
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        want[i] += 2.0f;
    EXPECT_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * 4, got, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        if (got[i] != want[i]) {
            EXPECT(false, "same launch: x[%d] = %g, want %g", i, got[i], want[i]);
            break;
        }
    /* a buffer argument changed: y = x + 0 + 2, x left alone */
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(y), &y));
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(q, y, CL_TRUE, 0, N * 4, got, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        if (got[i] != want[i] + 2.0f) {
            EXPECT(false, "buffer argument changed: y[%d] = %g, want %g", i, got[i],
                   want[i] + 2.0f);
            break;
        }
    /* zero released while the kernel still names it: gone once its
     * commands ran, and the launch is refused rather than repeated */
    EXPECT_OK(clReleaseMemObject(zero));
    EXPECT_OK(clFinish(q));
    /* The notifier may be letting go of its last command as clFinish
     * returns (clFinish waits for that 100 ms at most). */
    for (int ms = 0; ms < 5000 && atomic_load(&destroyed) == 0; ms++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    EXPECT(atomic_load(&destroyed) == 1, "zero destroyed %d times", atomic_load(&destroyed));
    EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL) ==
               CL_INVALID_MEM_OBJECT,
           "a launch naming a released buffer");
    /* Nor when a new buffer took its address (where the allocator reuses
     * it: not under AddressSanitizer's quarantine). */
    cl_mem again[64];
    int reused = -1;
    for (int i = 0; i < 64 && reused < 0; i++) {
        again[i] = buffer(CL_MEM_READ_WRITE);
        if (again[i] == zero)
            reused = i;
    }
    if (reused >= 0)
        EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL) ==
                   CL_INVALID_MEM_OBJECT,
               "a launch naming a released buffer whose address a new one has");
    printf("api_event_lite: a new buffer at the released one's address: %s\n",
           reused >= 0 ? "made" : "not made (allocator)");
    for (int i = 0; i < 64 && (i <= reused || reused < 0); i++)
        EXPECT_OK(clReleaseMemObject(again[i]));
    /* the kernel released with launches queued, another one made */
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(y), &y));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(y), &y));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(y), &y));
    for (int s = 0; s < 10; s++) /* y += y + 2 */
        EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &half, &l, 0, NULL, NULL));
    EXPECT_OK(clReleaseKernel(k));
    for (int i = 0; i < (int)half; i++) {
        want[i] += 2.0f;
        for (int s = 0; s < 10; s++)
            want[i] = want[i] + want[i] + 2.0f;
    }
    for (int i = (int)half; i < N; i++)
        want[i] += 2.0f;
    k = vadd();
    vadd_args(k, y, x, y, 0, N);
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &half, &l, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * 4, got, 0, NULL, NULL));
    float xs[N];
    memcpy(xs, got, sizeof(xs));
    EXPECT_OK(clEnqueueReadBuffer(q, y, CL_TRUE, 0, N * 4, got, 0, NULL, NULL));
    for (int i = 0; i < N; i++) {
        float w = i < (int)half ? want[i] + xs[i] : want[i];
        if (got[i] != w) {
            EXPECT(false, "after the kernel's release: y[%d] = %g, want %g", i, got[i], w);
            break;
        }
    }
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseMemObject(y));
}

int main(void)
{
    for (int i = 0; i < N; i++)
        x0[i] = (float)(i % 97);
    cl_platform_id p;
    cltest_setup(&p, &dev, &ctx, &q);
    prog = cltest_program(ctx, dev, "test_kernels.cubin");

    test_order();
    test_user_event();
    test_release_while_queued();
    test_map_after();
    test_release_in_callback();
    test_finish_in_destructor();
    test_many_and_held();
    test_same_launch();

    EXPECT_OK(clReleaseProgram(prog));
    EXPECT_OK(clReleaseCommandQueue(q));
    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_event_lite");
}

/*
 * terminate_test.c — a user event that fails after commands waiting on it
 * were enqueued: "a negative integer value causes all enqueued commands
 * that wait on this user event to be terminated" (clSetUserEventStatus).
 * Checked by data: the terminated commands move nothing, nor do the
 * commands of other queues that wait on them; commands ordered after them
 * only by their queue run. The same commands behind an event set complete
 * all run, two gates on one queue decided in the other order each get
 * their own decision, a command waiting on one terminated at its enqueue
 * (not yet ended) is terminated too, and a chain of commands on one queue,
 * each waiting on the one before, all run or all are terminated. A chain
 * across two queues is decided whole in one pass of the tracker and then
 * follows on the GPU, and a command terminated on one channel still comes
 * after what its queue ran before it on another.
 */
#include "vadd_steps.h"
#include "park.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

enum { N = 1024, B = N * 4 };

static cl_device_id dev;
static cl_context ctx;
static cl_kernel vadd;

static cl_mem filled(float v)
{
    float h[N];
    for (int i = 0; i < N; i++)
        h[i] = v;
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, B, h, &err);
    REQUIRE(m, "buffer: %d", err);
    return m;
}

/* How many of m's values are not v. */
static int differ(cl_command_queue q, cl_mem m, float v, float *first)
{
    float h[N];
    EXPECT_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, B, h, 0, NULL, NULL));
    int n = 0;
    for (int i = 0; i < N; i++)
        n += h[i] != v;
    *first = h[0];
    return n;
}

/* Every kind of command that moves data waits on u, one of another queue
 * waits on the kernel, and one ordered only by the queue comes last; u is
 * then set to `status`. */
static void gated_kinds(cl_int status)
{
    const bool fail = status < 0;
    cl_int err;
    cl_command_queue q1 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q1 && q2, "queues: %d", err);
    cl_mem x = filled(0.0f), y = filled(1.0f), z = filled(0.0f), w = filled(0.0f);
    static float ones[N];
    for (int i = 0; i < N; i++)
        ones[i] = 1.0f;
    cl_event u = clCreateUserEvent(ctx, &err);
    cl_event ev[7] = {NULL};
    const float two = 2.0f, five = 5.0f;
    EXPECT_OK(clEnqueueFillBuffer(q1, x, &two, sizeof(two), 0, B, 1, &u, &ev[0]));
    EXPECT_OK(clEnqueueCopyBuffer(q1, y, x, 0, 0, B, 1, &u, &ev[1]));
    EXPECT_OK(clEnqueueWriteBuffer(q1, x, CL_FALSE, 0, B, ones, 1, &u, &ev[2]));
    const size_t org[3] = {0, 0, 0}, reg[3] = {16, 4, 1};
    EXPECT_OK(clEnqueueWriteBufferRect(q1, x, CL_FALSE, org, org, reg, 16, 0, 16, 0, ones, 1, &u,
                                       &ev[3]));
    EXPECT_OK(clEnqueueCopyBufferRect(q1, y, x, org, org, reg, 16, 0, 16, 0, 1, &u, &ev[4]));
    vadd_step(q1, vadd, y, y, x, 1, N, 1, &u, &ev[5]); /* x = 1 + 1 + 1 */
    /* Another queue, after the kernel: z = z + z + 1. */
    vadd_step(q2, vadd, z, z, z, 1, N, 1, &ev[5], &ev[6]);
    /* Ordered after all of them by q1 alone. */
    cl_event after = NULL;
    EXPECT_OK(clEnqueueFillBuffer(q1, w, &five, sizeof(five), 0, B, 0, NULL, &after));
    EXPECT_OK(clFlush(q1));
    EXPECT_OK(clFlush(q2));
    /* Nothing ran yet. */
    for (int i = 0; i < 7; i++)
        EXPECT(status_of(ev[i]) > CL_COMPLETE, "command %d ended before its gate: %d", i,
               status_of(ev[i]));
    EXPECT_OK(clSetUserEventStatus(u, status));
    for (int i = 0; i < 7; i++) {
        EXPECT_ERR(clWaitForEvents(1, &ev[i]),
                   fail ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS);
        EXPECT(fail ? status_of(ev[i]) < 0 : status_of(ev[i]) == CL_COMPLETE,
               "command %d: status %d", i, status_of(ev[i]));
    }
    EXPECT_OK(clWaitForEvents(1, &after));
    EXPECT(status_of(after) == CL_COMPLETE, "the queue's next command: %d", status_of(after));
    float got;
    int n = differ(q1, x, fail ? 0.0f : 3.0f, &got);
    EXPECT(n == 0, "%s: x has %d values off (x[0] = %g)", fail ? "terminated" : "run", n, got);
    n = differ(q1, z, fail ? 0.0f : 1.0f, &got);
    EXPECT(n == 0, "%s: z has %d values off (z[0] = %g)", fail ? "terminated" : "run", n, got);
    n = differ(q1, w, 5.0f, &got);
    EXPECT(n == 0, "w has %d values off (w[0] = %g)", n, got);
    for (int i = 0; i < 7; i++)
        EXPECT_OK(clReleaseEvent(ev[i]));
    EXPECT_OK(clReleaseEvent(after));
    EXPECT_OK(clReleaseEvent(u));
    cl_mem ms[] = {x, y, z, w};
    for (int i = 0; i < 4; i++)
        EXPECT_OK(clReleaseMemObject(ms[i]));
    EXPECT_OK(clReleaseCommandQueue(q1));
    EXPECT_OK(clReleaseCommandQueue(q2));
}

/* Two gated commands on one in-order queue, the second's event set
 * first: the first is terminated when its event fails, the second (which
 * only follows it in the queue) runs, and each moves what it should. */
static void two_gates_reversed(void)
{
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q, "queue: %d", err);
    cl_mem x = filled(0.0f), z = filled(0.0f);
    cl_event u1 = clCreateUserEvent(ctx, &err), u2 = clCreateUserEvent(ctx, &err);
    const float seven = 7.0f, nine = 9.0f;
    cl_event a = NULL, b = NULL;
    EXPECT_OK(clEnqueueFillBuffer(q, x, &seven, sizeof(seven), 0, B, 1, &u1, &a));
    EXPECT_OK(clEnqueueFillBuffer(q, z, &nine, sizeof(nine), 0, B, 1, &u2, &b));
    EXPECT_OK(clFlush(q));
    EXPECT_OK(clSetUserEventStatus(u2, CL_COMPLETE));
    EXPECT(status_of(b) > CL_COMPLETE, "the second command ran before the first: %d",
           status_of(b));
    EXPECT_OK(clSetUserEventStatus(u1, -9));
    EXPECT_ERR(clWaitForEvents(1, &a), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    EXPECT_OK(clWaitForEvents(1, &b));
    float got;
    int n = differ(q, x, 0.0f, &got);
    EXPECT(n == 0, "the terminated fill changed %d values (x[0] = %g)", n, got);
    n = differ(q, z, 9.0f, &got);
    EXPECT(n == 0, "the fill that ran left %d values off (z[0] = %g)", n, got);
    cl_event evs[] = {a, b, u1, u2};
    for (int i = 0; i < 4; i++)
        EXPECT_OK(clReleaseEvent(evs[i]));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseMemObject(z));
    EXPECT_OK(clReleaseCommandQueue(q));
}

/* A command terminated when it was enqueued (its user event had failed)
 * has not ended yet when the next ones are enqueued: a command of another
 * queue waiting on it, and a kernel of its own queue waiting on that one,
 * are terminated too and move nothing. */
static void known_failure(void)
{
    cl_int err;
    cl_command_queue q1 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q1 && q2, "queues: %d", err);
    cl_mem x = filled(0.0f), y = filled(1.0f), z = filled(0.0f);
    cl_event u = clCreateUserEvent(ctx, &err);
    REQUIRE(u, "user event: %d", err);
    EXPECT_OK(clSetUserEventStatus(u, -3));
    /* Keep q1 busy so that what comes next finds the terminated fill
     * not yet ended. */
    for (int i = 0; i < 64; i++)
        vadd_step(q1, vadd, y, y, z, i, N, 0, NULL, NULL);
    const float two = 2.0f, four = 4.0f;
    cl_event a = NULL, b = NULL, c = NULL;
    EXPECT_OK(clEnqueueFillBuffer(q1, x, &two, sizeof(two), 0, B, 1, &u, &a));
    EXPECT_OK(clEnqueueFillBuffer(q2, x, &four, sizeof(four), 0, B, 1, &a, &b));
    vadd_step(q2, vadd, y, y, x, 1, N, 1, &b, &c);
    EXPECT_OK(clFinish(q1));
    EXPECT_OK(clFinish(q2));
    cl_event evs[] = {a, b, c};
    for (int i = 0; i < 3; i++)
        EXPECT(status_of(evs[i]) < 0, "command %d: status %d", i, status_of(evs[i]));
    float got;
    int n = differ(q1, x, 0.0f, &got);
    EXPECT(n == 0, "terminated commands changed %d values of x (x[0] = %g)", n, got);
    for (int i = 0; i < 3; i++)
        EXPECT_OK(clReleaseEvent(evs[i]));
    EXPECT_OK(clReleaseEvent(u));
    cl_mem ms[] = {x, y, z};
    for (int i = 0; i < 3; i++)
        EXPECT_OK(clReleaseMemObject(ms[i]));
    EXPECT_OK(clReleaseCommandQueue(q1));
    EXPECT_OK(clReleaseCommandQueue(q2));
}

/* A chain on one in-order queue, each command waiting on the one before,
 * behind a user event: all of it runs once the event is set, or none of
 * it when the event fails. */
static void chain(cl_int status)
{
    enum { L = 400 };
    const bool fail = status < 0;
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q, "queue: %d", err);
    cl_mem x = filled(0.0f);
    cl_event u = clCreateUserEvent(ctx, &err), prev = u;
    for (int i = 0; i < L; i++) {
        const float v = (float)(i + 1);
        cl_event ev = NULL;
        EXPECT_OK(clEnqueueFillBuffer(q, x, &v, sizeof(v), (size_t)(i % N) * 4, 4, 1, &prev, &ev));
        if (prev != u)
            EXPECT_OK(clReleaseEvent(prev));
        prev = ev;
    }
    const uint64_t t0 = host_ns();
    EXPECT_OK(clSetUserEventStatus(u, status));
    EXPECT_ERR(clWaitForEvents(1, &prev),
               fail ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS);
    printf("chain of %d behind a user event set %s: %.0f us\n", L, fail ? "failed" : "complete",
           (double)(host_ns() - t0) / 1e3);
    float h[N];
    EXPECT_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, B, h, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += h[i] != (fail || i >= L ? 0.0f : (float)(i + 1));
    EXPECT(bad == 0, "chain %s: %d values off (x[0] = %g)", fail ? "failed" : "run", bad, h[0]);
    EXPECT_OK(clReleaseEvent(prev));
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseCommandQueue(q));
}

/* Behind a user event not yet set, commands wait on the host until the
 * channel's pushbuffer is full: the enqueue after that fails at once with
 * CL_OUT_OF_RESOURCES (it cannot wait for room that only setting the
 * event makes); those enqueued before all run once it is set, and the
 * queue goes on. */
static void full_behind_gate(void)
{
    enum { MAX = 200000 };
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q, "queue: %d", err);
    cl_mem x = filled(0.0f);
    cl_event u = clCreateUserEvent(ctx, &err), first = NULL;
    const float one = 1.0f;
    EXPECT_OK(clEnqueueFillBuffer(q, x, &one, sizeof(one), 0, 4, 1, &u, &first));
    int n = 0;
    cl_int r = CL_SUCCESS;
    const uint64_t t0 = host_ns();
    for (; n < MAX; n++) {
        const float v = (float)(n % 1000 + 2);
        r = clEnqueueFillBuffer(q, x, &v, sizeof(v), (size_t)(1 + n % (N - 1)) * 4, 4, 0, NULL,
                                NULL);
        if (r != CL_SUCCESS)
            break;
    }
    EXPECT(r == CL_OUT_OF_RESOURCES && n > 1000, "after %d fills: %d", n, r);
    EXPECT(host_ns() - t0 < 30000000000ull, "the fills took %.1f s", (host_ns() - t0) / 1e9);
    printf("%d commands held behind a user event before the pushbuffer was full\n", n);
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clFinish(q));
    EXPECT(status_of(first) == CL_COMPLETE, "the gated fill: %d", status_of(first));
    const float nine = 9.0f;
    EXPECT_OK(clEnqueueFillBuffer(q, x, &nine, sizeof(nine), 0, B, 0, NULL, NULL));
    float got;
    int bad = differ(q, x, 9.0f, &got);
    EXPECT(bad == 0, "after the gate: %d values off (x[0] = %g)", bad, got);
    EXPECT_OK(clReleaseEvent(first));
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseCommandQueue(q));
}

/* A value the GPU writes into host pages while the application looks:
 * a DMA write, which ThreadSanitizer sees as the emulated engine's plain
 * store racing with this load. */
__attribute__((no_sanitize("thread"))) static float peek(const volatile float *p)
{
    return *p;
}

/* A chain across two queues behind a user event: a fill on q1, a copy on
 * q2 waiting for it, a copy on q1 waiting for that, and a copy on q2 into
 * the application's own pages (a CL_MEM_USE_HOST_PTR buffer). With the
 * notifier parked in a callback, one status query after the event is set
 * makes the one pass that decides the whole chain: each step is on the
 * GPU once the one before is decided to run, and waits for it there. The
 * last copy lands with no further call. */
static void xchain_one_pass(void)
{
    cl_int err;
    cl_command_queue q1 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q1 && q2, "queues: %d", err);
    float *host = aligned_alloc(4096, B);
    REQUIRE(host, "host memory");
    for (int i = 0; i < N; i++)
        host[i] = 0.0f;
    cl_mem x = filled(0.0f), y = filled(0.0f), z = filled(0.0f);
    cl_mem h = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, B, host, &err);
    REQUIRE(h, "host buffer: %d", err);
    EXPECT_OK(clFinish(q1));

    cl_event u0 = clCreateUserEvent(ctx, &err), u = clCreateUserEvent(ctx, &err);
    REQUIRE(u0 && u, "user events: %d", err);
    atomic_store(&parked, 0);
    EXPECT_OK(clSetEventCallback(u0, CL_COMPLETE, park, NULL));
    EXPECT_OK(clSetUserEventStatus(u0, CL_COMPLETE));
    const uint64_t t0 = host_ns();
    while (!atomic_load(&parked) && host_ns() - t0 < 10000000000ull)
        usleep(100);
    REQUIRE(atomic_load(&parked) == 1, "the callback did not run");

    const float three = 3.0f;
    cl_event ev[4];
    EXPECT_OK(clEnqueueFillBuffer(q1, x, &three, sizeof(three), 0, B, 1, &u, &ev[0]));
    EXPECT_OK(clEnqueueCopyBuffer(q2, x, y, 0, 0, B, 1, &ev[0], &ev[1]));
    EXPECT_OK(clEnqueueCopyBuffer(q1, y, z, 0, 0, B, 1, &ev[1], &ev[2]));
    EXPECT_OK(clEnqueueCopyBuffer(q2, z, h, 0, 0, B, 1, &ev[2], &ev[3]));
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    (void)status_of(ev[0]); /* the one pass */
    const uint64_t t1 = host_ns();
    const float *last = &host[N - 1];
    while (peek(last) != three && host_ns() - t1 < 10000000000ull)
        usleep(50);
    EXPECT(peek(last) == three, "the chain's last copy did not land without another pass (%g)",
           peek(last));
    printf("chain across two queues, one pass: the last copy landed after %.0f us\n",
           (double)(host_ns() - t1) / 1e3);

    atomic_store(&parked, 2);
    EXPECT_OK(clWaitForEvents(4, ev));
    for (int i = 0; i < 4; i++) {
        EXPECT(status_of(ev[i]) == CL_COMPLETE, "step %d: %d", i, status_of(ev[i]));
        EXPECT_OK(clReleaseEvent(ev[i]));
    }
    float got;
    int bad = differ(q1, z, three, &got);
    EXPECT(bad == 0, "z: %d values off (%g)", bad, got);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += host[i] != three;
    EXPECT(bad == 0, "host pages: %d values off", bad);
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseEvent(u0));
    cl_mem ms[4] = {x, y, z, h};
    for (int i = 0; i < 4; i++)
        EXPECT_OK(clReleaseMemObject(ms[i]));
    EXPECT_OK(clReleaseCommandQueue(q1));
    EXPECT_OK(clReleaseCommandQueue(q2));
    free(host);
}

/* A command terminated behind a failed user event still comes after what
 * its queue ran before it on another channel: a kernel behind another
 * user event (set complete), a write terminated on the copy channel, then
 * a write of the kernel's output. The kernel stores its output after
 * spinning 100 ms; the last write must land after it. */
static void dropped_keeps_order(void)
{
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q, "queue: %d", err);
    cl_program p = cltest_program(ctx, dev, "gpu_kernels.cubin");
    cl_kernel spin = clCreateKernel(p, "spin_ns", &err);
    REQUIRE(spin, "spin_ns: %d", err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 8, NULL, &err);
    cl_mem other = filled(0.0f);
    REQUIRE(out, "buffer: %d", err);
    cl_event u1 = clCreateUserEvent(ctx, &err), u2 = clCreateUserEvent(ctx, &err);
    REQUIRE(u1 && u2, "user events: %d", err);
    const cl_ulong ns = 100000000, mark = 0x1234;
    EXPECT_OK(clSetKernelArg(spin, 0, sizeof(ns), &ns));
    EXPECT_OK(clSetKernelArg(spin, 1, sizeof(out), &out));
    const size_t one = 1;
    static const float seven[4] = {7, 7, 7, 7};
    cl_event ev[3];
    EXPECT_OK(clEnqueueNDRangeKernel(q, spin, 1, NULL, &one, &one, 1, &u1, &ev[0]));
    EXPECT_OK(clEnqueueWriteBuffer(q, other, CL_FALSE, 0, sizeof(seven), seven, 1, &u2, &ev[1]));
    EXPECT_OK(clEnqueueWriteBuffer(q, out, CL_FALSE, 0, sizeof(mark), &mark, 0, NULL, &ev[2]));
    EXPECT_OK(clSetUserEventStatus(u1, CL_COMPLETE));
    EXPECT_OK(clSetUserEventStatus(u2, -3));
    EXPECT_OK(clFinish(q));
    EXPECT(status_of(ev[0]) == CL_COMPLETE && status_of(ev[1]) < 0 &&
               status_of(ev[2]) == CL_COMPLETE,
           "statuses %d %d %d", status_of(ev[0]), status_of(ev[1]), status_of(ev[2]));
    cl_ulong got = 0;
    EXPECT_OK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(got), &got, 0, NULL, NULL));
    EXPECT(got == mark, "the last write landed before the kernel's store (%llu)",
           (unsigned long long)got);
    float first;
    EXPECT(differ(q, other, 0.0f, &first) == 0, "the terminated write moved data (%g)", first);
    for (int i = 0; i < 3; i++)
        EXPECT_OK(clReleaseEvent(ev[i]));
    EXPECT_OK(clReleaseEvent(u1));
    EXPECT_OK(clReleaseEvent(u2));
    EXPECT_OK(clReleaseMemObject(out));
    EXPECT_OK(clReleaseMemObject(other));
    EXPECT_OK(clReleaseKernel(spin));
    EXPECT_OK(clReleaseProgram(p));
    EXPECT_OK(clReleaseCommandQueue(q));
}

int main(void)
{
    cl_platform_id p = cltest_platform();
    REQUIRE(p, "hcqcl platform not found");
    cl_uint n = 0;
    REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, &n) == CL_SUCCESS && n > 0,
            "no device");
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(ctx, "context: %d", err);
    cl_program prog = cltest_program(ctx, dev, "test_kernels.cubin");
    vadd = clCreateKernel(prog, "vadd", &err);
    REQUIRE(vadd, "vadd: %d", err);
    gated_kinds(-5);
    gated_kinds(CL_COMPLETE);
    two_gates_reversed();
    known_failure();
    chain(-4);
    chain(CL_COMPLETE);
    full_behind_gate();
    xchain_one_pass();
    dropped_keeps_order();
    EXPECT_OK(clReleaseKernel(vadd));
    EXPECT_OK(clReleaseProgram(prog));
    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_event_terminate");
}

/*
 * graph_test.c — dependency graphs through the ICD loader, checked by
 * data: commands spread over three queues (two in-order, one out-of-order)
 * and two contexts, held back by user events, must run in the order their
 * wait lists give. The kernel is vadd from tests/kernels applied in place,
 * x = x + x + k, so the result encodes the order of the steps (2(2x+a)+b
 * differs from 2(2x+b)+a). Commands the queue holds back while the GPU
 * is busy must still run: when their status is polled, when another
 * queue waits for them, and with no call at all (their callback fires).
 * A user event's callback fires even before anything was enqueued.
 */
#include "vadd_steps.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

enum { N = 1000 };

static cl_device_id dev;

static cl_kernel vadd_kernel(cl_context ctx, cl_program *prog)
{
    cl_int err;
    *prog = cltest_program(ctx, dev, "test_kernels.cubin");
    cl_kernel k = clCreateKernel(*prog, "vadd", &err);
    REQUIRE(k, "vadd: %d", err);
    return k;
}

/* x = x + x + k over n floats, after the wait list. */
static cl_event step(cl_command_queue q, cl_kernel k, cl_mem x, int add, cl_uint nw,
                     const cl_event *wl)
{
    cl_event e = NULL;
    vadd_step(q, k, x, x, x, add, N, nw, wl, &e);
    return e;
}

static void settle(void)
{
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
}


static float x0[N], ya[N], zb[N];

struct bridge {
    cl_event ub;             /* user event of context B */
    atomic_ullong set_at;    /* host ns when it was set */
    atomic_int calls[3];     /* per status: COMPLETE, RUNNING, SUBMITTED */
};

/* Context A's last command completes -> release context B's chain. */
static void CL_CALLBACK release_b(cl_event e, cl_int status, void *data)
{
    struct bridge *b = data;
    atomic_fetch_add(&b->calls[0], 1);
    atomic_store(&b->set_at, host_ns());
    clSetUserEventStatus(b->ub, status == CL_COMPLETE ? CL_COMPLETE : -1);
}

static void CL_CALLBACK count_cb(cl_event e, cl_int status, void *data)
{
    struct bridge *b = data;
    if (status >= 0 && status <= 2)
        atomic_fetch_add(&b->calls[status], 1);
}

static void test_graph(void)
{
    cl_int err;
    cl_context ca = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_context cb = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(ca && cb, "contexts: %d", err);
    cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    cl_queue_properties prof[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue qa = clCreateCommandQueueWithProperties(ca, dev, NULL, &err);
    cl_command_queue qb = clCreateCommandQueueWithProperties(ca, dev, NULL, &err);
    cl_command_queue qc = clCreateCommandQueueWithProperties(ca, dev, ooo, &err);
    cl_command_queue qd = clCreateCommandQueueWithProperties(cb, dev, prof, &err);
    REQUIRE(qa && qb && qc && qd, "queues: %d", err);
    cl_program pa, pb;
    cl_kernel ka = vadd_kernel(ca, &pa), ka2 = vadd_kernel(ca, &pb), kb;
    cl_program pbb;
    kb = vadd_kernel(cb, &pbb);
    cl_mem x = clCreateBuffer(ca, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    cl_mem y = clCreateBuffer(ca, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    cl_mem z = clCreateBuffer(cb, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    REQUIRE(x && y && z, "buffers: %d", err);
    for (int i = 0; i < N; i++) {
        x0[i] = (float)i;
        ya[i] = -1.0f;
        zb[i] = -1.0f;
    }
    EXPECT_OK(clEnqueueWriteBuffer(qd, z, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));

    cl_event u = clCreateUserEvent(ca, &err);
    struct bridge br = {.ub = clCreateUserEvent(cb, &err)};
    REQUIRE(u && br.ub, "user events: %d", err);

    /* Context A: write -> step(1) -> step(2) -> copy -> step(3) -> read,
     * hopping between queues, everything behind u. */
    cl_event ew, e1, e2, e3, e4, e5;
    EXPECT_OK(clEnqueueWriteBuffer(qa, x, CL_FALSE, 0, N * 4, x0, 1, &u, &ew));
    e1 = step(qb, ka, x, 1, 1, &ew);
    e2 = step(qc, ka2, x, 2, 1, &e1);
    EXPECT_OK(clEnqueueCopyBuffer(qa, x, y, 0, 0, N * 4, 1, &e2, &e3));
    e4 = step(qb, ka, y, 3, 1, &e3);
    EXPECT_OK(clEnqueueReadBuffer(qc, y, CL_FALSE, 0, N * 4, ya, 1, &e4, &e5));
    EXPECT_OK(clSetEventCallback(e4, CL_SUBMITTED, count_cb, &br));
    EXPECT_OK(clSetEventCallback(e4, CL_RUNNING, count_cb, &br));
    EXPECT_OK(clSetEventCallback(e4, CL_COMPLETE, count_cb, &br));
    EXPECT_OK(clSetEventCallback(e5, CL_COMPLETE, release_b, &br));

    /* Context B: z = 2z + 5, behind A's completion (through br.ub). */
    cl_event f1, f2;
    f1 = step(qd, kb, z, 5, 1, &br.ub);
    EXPECT_OK(clEnqueueReadBuffer(qd, z, CL_FALSE, 0, N * 4, zb, 0, NULL, &f2));
    EXPECT_OK(clFlush(qa));
    EXPECT_OK(clFlush(qb));
    EXPECT_OK(clFlush(qc));
    EXPECT_OK(clFlush(qd));

    settle();
    cl_event held[] = {ew, e1, e2, e3, e4, e5, f1, f2};
    for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
        EXPECT(status_of(held[i]) > CL_COMPLETE, "event %zu ran before its user event", i);
    EXPECT(ya[0] == -1.0f && ya[N - 1] == -1.0f, "read landed before the graph was released");
    EXPECT(zb[7] == -1.0f, "context B ran before context A finished");

    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clWaitForEvents(1, &e5));
    EXPECT_OK(clWaitForEvents(1, &f2));
    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++) {
        float want = 8.0f * (float)i + 11.0f; /* 2(2(2i+1)+2)+3 */
        if (ya[i] != want) {
            bad++;
            EXPECT(false, "context A: y[%d] = %g, want %g", i, ya[i], want);
        }
        float wz = 2.0f * (float)i + 5.0f;
        if (zb[i] != wz) {
            bad++;
            EXPECT(false, "context B: z[%d] = %g, want %g", i, zb[i], wz);
        }
    }
    /* B's kernel started only after A's last command released it. */
    cl_ulong start = 0;
    EXPECT_OK(clGetEventProfilingInfo(f1, CL_PROFILING_COMMAND_START, sizeof(start), &start,
                                      NULL));
    EXPECT(atomic_load(&br.set_at) != 0 && start >= atomic_load(&br.set_at),
           "B started at %llu, released at %llu", (unsigned long long)start,
           (unsigned long long)atomic_load(&br.set_at));
    for (int i = 0; i < 200 && (atomic_load(&br.calls[1]) < 1 || atomic_load(&br.calls[2]) < 1);
         i++)
        settle();
    EXPECT(atomic_load(&br.calls[0]) == 2, "COMPLETE callbacks: %d (want e4 + e5)",
           atomic_load(&br.calls[0]));
    EXPECT(atomic_load(&br.calls[1]) == 1 && atomic_load(&br.calls[2]) == 1,
           "RUNNING %d, SUBMITTED %d callbacks", atomic_load(&br.calls[1]),
           atomic_load(&br.calls[2]));

    cl_event all[] = {ew, e1, e2, e3, e4, e5, f1, f2, u, br.ub};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        EXPECT_OK(clReleaseEvent(all[i]));
    cl_command_queue qs[] = {qa, qb, qc, qd};
    for (int i = 0; i < 4; i++) {
        EXPECT_OK(clFinish(qs[i]));
        EXPECT_OK(clReleaseCommandQueue(qs[i]));
    }
    cl_kernel ks[] = {ka, ka2, kb};
    cl_program ps[] = {pa, pb, pbb};
    for (int i = 0; i < 3; i++) {
        EXPECT_OK(clReleaseKernel(ks[i]));
        EXPECT_OK(clReleaseProgram(ps[i]));
    }
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseMemObject(y));
    EXPECT_OK(clReleaseMemObject(z));
    EXPECT_OK(clReleaseContext(ca));
    EXPECT_OK(clReleaseContext(cb));
}

/* One in-order queue: copies (copy channel) and kernels (compute channel)
 * interleaved with no wait lists must still run in order. */
static void test_in_order_channels(void)
{
    cl_int err;
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueueWithProperties(c, dev, NULL, &err);
    REQUIRE(c && q, "context/queue: %d", err);
    cl_program p;
    cl_kernel k = vadd_kernel(c, &p);
    cl_mem x = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    cl_mem y = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    for (int round = 0; round < 3; round++) {
        EXPECT_OK(clEnqueueWriteBuffer(q, x, CL_FALSE, 0, N * 4, x0, 0, NULL, NULL));
        clReleaseEvent(step(q, k, x, 1, 0, NULL));
        EXPECT_OK(clEnqueueCopyBuffer(q, x, y, 0, 0, N * 4, 0, NULL, NULL));
        clReleaseEvent(step(q, k, y, 2, 0, NULL));
        clReleaseEvent(step(q, k, x, 7, 0, NULL)); /* must not disturb y */
        EXPECT_OK(clEnqueueCopyBuffer(q, y, x, 0, 0, N * 4, 0, NULL, NULL));
        clReleaseEvent(step(q, k, x, 3, 0, NULL));
        EXPECT_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * 4, ya, 0, NULL, NULL));
        int bad = 0;
        for (int i = 0; i < N && bad < 5; i++)
            if (ya[i] != 8.0f * (float)i + 11.0f) {
                bad++;
                EXPECT(false, "round %d: x[%d] = %g, want %g", round, i, ya[i],
                       8.0f * (float)i + 11.0f);
            }
    }
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseProgram(p));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseMemObject(y));
    EXPECT_OK(clReleaseCommandQueue(q));
    EXPECT_OK(clReleaseContext(c));
}

/* One context with two in-order queues and the vadd kernel. */
struct two_queues {
    cl_context c;
    cl_command_queue q1, q2;
    cl_program p;
    cl_kernel k;
};

static void two_queues_open(struct two_queues *f)
{
    cl_int err;
    f->c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    f->q1 = clCreateCommandQueueWithProperties(f->c, dev, NULL, &err);
    f->q2 = clCreateCommandQueueWithProperties(f->c, dev, NULL, &err);
    REQUIRE(f->c && f->q1 && f->q2, "context/queues: %d", err);
    f->k = vadd_kernel(f->c, &f->p);
}

static void two_queues_close(struct two_queues *f)
{
    EXPECT_OK(clReleaseKernel(f->k));
    EXPECT_OK(clReleaseProgram(f->p));
    EXPECT_OK(clReleaseCommandQueue(f->q1));
    EXPECT_OK(clReleaseCommandQueue(f->q2));
    EXPECT_OK(clReleaseContext(f->c));
}

/* Wait up to 5 s, in 1 ms sleeps, for *v to leave the value old. */
static int await_change(atomic_int *v, int old)
{
    for (int i = 0; i < 5000 && atomic_load(v) == old; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return atomic_load(v);
}

/* A user event set to a negative status fails the kernels waiting on it,
 * and what waits on those, across queues. */
static void test_failure(void)
{
    cl_int err;
    struct two_queues f;
    two_queues_open(&f);
    cl_context c = f.c;
    cl_command_queue q1 = f.q1, q2 = f.q2;
    cl_kernel k = f.k;
    cl_mem x = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    cl_event u = clCreateUserEvent(c, &err);
    cl_event a = step(q1, k, x, 1, 1, &u);
    cl_event b = step(q2, k, x, 2, 1, &a);
    cl_event m;
    EXPECT_OK(clEnqueueMarkerWithWaitList(q2, 0, NULL, &m));
    EXPECT_OK(clSetUserEventStatus(u, -7));
    EXPECT_ERR(clWaitForEvents(1, &b), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    EXPECT(status_of(a) < 0 && status_of(b) < 0, "failed dependents: %d %d", status_of(a),
           status_of(b));
    /* Ordered after b without waiting on it: runs once b ended. */
    EXPECT(clWaitForEvents(1, &m) == CL_SUCCESS && status_of(m) == CL_COMPLETE,
           "in-order successor of a failed command: %d", status_of(m));
    /* The queues stay usable. */
    cl_event ok = step(q1, k, x, 1, 0, NULL);
    EXPECT_OK(clWaitForEvents(1, &ok));
    EXPECT_OK(clFinish(q2));
    cl_event evs[] = {u, a, b, m, ok};
    for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
        EXPECT_OK(clReleaseEvent(evs[i]));
    EXPECT_OK(clReleaseMemObject(x));
    two_queues_close(&f);
}

/* An event of the wait list failed before the command was enqueued: the
 * command is terminated ("all enqueued commands that wait on this user
 * event"), it moves nothing; its event fails, a blocking one returns the
 * wait-list error. Every kind of command that moves data. */
static void test_terminated(void)
{
    cl_int err;
    struct two_queues f;
    two_queues_open(&f);
    cl_context c = f.c;
    cl_command_queue q = f.q1;
    enum { B = N * 4 };
    float zero[N] = {0}, got[N], ones[N];
    for (int i = 0; i < N; i++)
        ones[i] = 1.0f;
    cl_mem x = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, B, zero, &err);
    cl_mem y = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, B, ones, &err);
    REQUIRE(x && y, "buffers: %d", err);
    cl_event u = clCreateUserEvent(c, &err);
    EXPECT_OK(clSetUserEventStatus(u, -3));
    cl_event ev[6] = {NULL};
    const float two = 2.0f;
    EXPECT_OK(clEnqueueFillBuffer(q, x, &two, sizeof(two), 0, B, 1, &u, &ev[0]));
    EXPECT_OK(clEnqueueCopyBuffer(q, y, x, 0, 0, B, 1, &u, &ev[1]));
    /* "If ... the enqueue is unsuccessful, no event will be created." */
    cl_event none = NULL;
    EXPECT_ERR(clEnqueueWriteBuffer(q, x, CL_TRUE, 0, B, ones, 1, &u, &none),
               CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    EXPECT(!none, "a blocking write that failed handed back an event");
    EXPECT_OK(clEnqueueWriteBuffer(q, x, CL_FALSE, 0, B, ones, 1, &u, &ev[2]));
    const size_t org[3] = {0, 0, 0}, reg[3] = {16, 4, 1};
    EXPECT_OK(clEnqueueWriteBufferRect(q, x, CL_FALSE, org, org, reg, 16, 0, 16, 0, ones, 1, &u,
                                       &ev[3]));
    EXPECT_OK(clEnqueueCopyBufferRect(q, y, x, org, org, reg, 16, 0, 16, 0, 1, &u, &ev[4]));
    const size_t g = N;
    vadd_args(f.k, y, y, x, 1, N); /* x = 1 + 1 + 1 */
    EXPECT_OK(clEnqueueNDRangeKernel(q, f.k, 1, NULL, &g, NULL, 1, &u, &ev[5]));
    for (int i = 0; i < 6; i++) {
        EXPECT_ERR(clWaitForEvents(1, &ev[i]), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        EXPECT(status_of(ev[i]) < 0, "command %d: status %d", i, status_of(ev[i]));
    }
    /* A read terminated the same way leaves the host memory alone. */
    for (int i = 0; i < N; i++)
        got[i] = -1.0f;
    EXPECT_ERR(clEnqueueReadBuffer(q, y, CL_TRUE, 0, B, got, 1, &u, NULL),
               CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    EXPECT(got[0] == -1.0f && got[N - 1] == -1.0f, "terminated read wrote %g", got[0]);
    EXPECT_OK(clFinish(q));
    EXPECT_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, B, got, 0, NULL, NULL));
    int moved = 0;
    for (int i = 0; i < N; i++)
        moved += got[i] != 0.0f;
    EXPECT(moved == 0, "terminated commands changed %d of %d values (x[0] = %g)", moved, N,
           got[0]);
    for (int i = 0; i < 6; i++)
        if (ev[i])
            clReleaseEvent(ev[i]);
    clReleaseEvent(u);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    two_queues_close(&f);
}

/* Sets a user event after 100 ms, after a non-blocking write on a queue
 * (when given) that a blocking call of the main thread may be in. */
struct late_setter {
    cl_event u;
    cl_command_queue q;
    cl_mem b;
    const void *src;
    size_t size;
    cl_int wrote;
};

static void *set_late(void *arg)
{
    struct late_setter *ls = arg;
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (ls->q)
        ls->wrote = clEnqueueWriteBuffer(ls->q, ls->b, CL_FALSE, 0, ls->size, ls->src, 0, NULL,
                                         NULL);
    clSetUserEventStatus(ls->u, CL_COMPLETE);
    return NULL;
}

/* Blocking transfers of more than 2 MiB behind a user event another thread
 * sets later: they wait for it and complete (they used to wait inline on
 * the GPU, behind a gate only a tracked command can have opened, holding
 * the queue's lock the setting thread's enqueue needed). */
static void test_gated_blocking(void)
{
    enum { MB = 1 << 20, SZ = 8 * MB };
    cl_int err;
    struct two_queues f;
    two_queues_open(&f);
    cl_context c = f.c;
    cl_command_queue q = f.q1;
    uint8_t *src = malloc(SZ), *got = malloc(SZ);
    REQUIRE(src && got, "host memory");
    for (size_t i = 0; i < SZ; i++)
        src[i] = (uint8_t)(i * 7 + 1);
    cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, SZ, src, &err);
    cl_mem b2 = clCreateBuffer(c, CL_MEM_READ_WRITE, SZ, NULL, &err);
    REQUIRE(b && b2, "buffers: %d", err);
    alarm(120); /* a hang fails the test instead of the suite's timeout */

    /* A read of 3 MiB behind the user event. */
    struct late_setter ls = {clCreateUserEvent(c, &err), NULL, NULL, NULL, 0, 0};
    pthread_t th;
    pthread_create(&th, NULL, set_late, &ls);
    memset(got, 0, SZ);
    EXPECT_OK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, 3 * MB, got, 1, &ls.u, NULL));
    pthread_join(th, NULL);
    EXPECT(!memcmp(got, src, 3 * MB), "gated blocking read: wrong bytes");
    clReleaseEvent(ls.u);

    /* A write of 6 MiB behind one (more pieces than the ring has chunks). */
    for (size_t i = 0; i < SZ; i++)
        src[i] ^= 0x5a;
    ls = (struct late_setter){clCreateUserEvent(c, &err), NULL, NULL, NULL, 0, 0};
    pthread_create(&th, NULL, set_late, &ls);
    EXPECT_OK(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, 6 * MB, src, 1, &ls.u, NULL));
    pthread_join(th, NULL);
    clReleaseEvent(ls.u);
    EXPECT_OK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, 6 * MB, got, 0, NULL, NULL));
    EXPECT(!memcmp(got, src, 6 * MB), "gated blocking write: wrong bytes");

    /* In order behind a gated marker: the other thread enqueues on the
     * same queue while the read blocks, then sets the event. */
    ls = (struct late_setter){clCreateUserEvent(c, &err), q, b2, src, SZ, 1};
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &ls.u, NULL));
    pthread_create(&th, NULL, set_late, &ls);
    EXPECT_OK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, SZ, got, 0, NULL, NULL));
    pthread_join(th, NULL);
    EXPECT_OK(ls.wrote);
    EXPECT(!memcmp(got, src, 6 * MB), "read behind a gated marker: wrong bytes");
    EXPECT_OK(clFinish(q));
    clReleaseEvent(ls.u);

    /* Out of order: writes behind a user event take every copy channel;
     * a large independent read then lands behind one of them, and the
     * call must still return before the event is set. */
    cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    cl_command_queue oq = clCreateCommandQueueWithProperties(c, dev, ooo, &err);
    REQUIRE(oq, "out-of-order queue: %d", err);
    cl_event u = clCreateUserEvent(c, &err);
    cl_mem small[6];
    for (int i = 0; i < 6; i++) {
        small[i] = clCreateBuffer(c, CL_MEM_READ_WRITE, 4096, NULL, &err);
        EXPECT_OK(clEnqueueWriteBuffer(oq, small[i], CL_FALSE, 0, 4096, src, 1, &u, NULL));
    }
    cl_event rd;
    memset(got, 0, SZ);
    EXPECT_OK(clEnqueueReadBuffer(oq, b, CL_FALSE, 0, SZ, got, 0, NULL, &rd));
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clWaitForEvents(1, &rd));
    EXPECT(!memcmp(got, src, 6 * MB), "read beside gated writes: wrong bytes");
    EXPECT_OK(clFinish(oq));
    clReleaseEvent(u);

    /* The same one step removed: a small write lands behind the gated
     * writes, and a large read on the in-order queue waits for it. */
    u = clCreateUserEvent(c, &err);
    for (int i = 0; i < 6; i++)
        EXPECT_OK(clEnqueueWriteBuffer(oq, small[i], CL_FALSE, 0, 4096, src, 1, &u, NULL));
    cl_event bev;
    EXPECT_OK(clEnqueueWriteBuffer(oq, small[0], CL_FALSE, 0, 4096, src, 0, NULL, &bev));
    cl_event rd2;
    memset(got, 0, SZ);
    EXPECT_OK(clEnqueueReadBuffer(q, b, CL_FALSE, 0, SZ, got, 1, &bev, &rd2));
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clWaitForEvents(1, &rd2));
    EXPECT(!memcmp(got, src, 6 * MB), "read after a write behind gated ones: wrong bytes");
    EXPECT_OK(clFinish(oq));
    clReleaseEvent(bev);
    clReleaseEvent(rd2);
    alarm(0);
    clReleaseEvent(rd);
    clReleaseEvent(u);
    for (int i = 0; i < 6; i++)
        clReleaseMemObject(small[i]);
    clReleaseCommandQueue(oq);
    clReleaseMemObject(b);
    clReleaseMemObject(b2);
    free(src);
    free(got);
    two_queues_close(&f);
}

/* Work the queue held back in front of a gated command goes to the GPU
 * with no further call once the gate's events are set: the gated command
 * waits for it. Seen in host memory the last step writes (any call,
 * a callback's registration included, would flush the queue). Under
 * ThreadSanitizer the emulated kernel's stores and this polling are a
 * race it reports, so there the check waits for clFinish instead. */
static void test_held_before_gate(void)
{
    cl_int err;
    struct two_queues f;
    two_queues_open(&f);
    cl_command_queue q = f.q1; /* in order */
    cl_mem x = clCreateBuffer(f.c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * 4, x0, &err);
    cl_mem h = clCreateBuffer(f.c, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, N * 4, NULL, &err);
    REQUIRE(x && h, "buffers: %d", err);
    volatile float *hp =
        clEnqueueMapBuffer(q, h, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, N * 4, 0, NULL, NULL, &err);
    REQUIRE(hp, "map: %d", err);
    for (int i = 0; i < N; i++)
        hp[i] = 0.0f;
    cl_event u0 = clCreateUserEvent(f.c, &err), u2 = clCreateUserEvent(f.c, &err);
    cl_event ev[4];
    vadd_step(q, f.k, x, x, x, 1, N, 1, &u0, &ev[0]); /* the GPU stops at its gate */
    vadd_step(q, f.k, x, x, x, 1, N, 0, NULL, &ev[1]);
    vadd_step(q, f.k, x, x, x, 1, N, 0, NULL, &ev[2]); /* held back: the GPU is busy */
    vadd_step(q, f.k, x, x, h, 1, N, 1, &u2, &ev[3]);  /* gated: waits for u2 and the above */
    float want = x0[N - 1];
    for (int s = 0; s < 4; s++)
        want = want + want + 1.0f;
    settle();
    EXPECT_OK(clSetUserEventStatus(u0, CL_COMPLETE));
    settle();
    EXPECT_OK(clSetUserEventStatus(u2, CL_COMPLETE));
#if !defined(__SANITIZE_THREAD__)
    uint64_t t0 = host_ns();
    while (hp[N - 1] != want && host_ns() - t0 < 5000000000ull)
        ;
    EXPECT(hp[N - 1] == want, "no call after the events: h[%d] = %g, want %g", N - 1,
           (double)hp[N - 1], (double)want);
#endif
    EXPECT_OK(clFinish(q));
    EXPECT(hp[N - 1] == want, "after clFinish: h[%d] = %g, want %g", N - 1, (double)hp[N - 1],
           (double)want);
    for (int i = 0; i < 4; i++)
        clReleaseEvent(ev[i]);
    clReleaseEvent(u0);
    clReleaseEvent(u2);
    EXPECT_OK(clEnqueueUnmapMemObject(q, h, (void *)hp, 0, NULL, NULL));
    EXPECT_OK(clFinish(q));
    clReleaseMemObject(x);
    clReleaseMemObject(h);
    two_queues_close(&f);
}

/* A large read after a small staged one (whose copy-out the tracker runs)
 * while the notifier is in an application callback that enqueues on the
 * same queue: the large read does not wait for the GPU with the queue
 * locked (the callback would wait for the lock, the GPU for the callback's
 * thread). */
static cl_command_queue cb_queue;
static atomic_int cb_done;
static void CL_CALLBACK enqueue_later(cl_event e, cl_int status, void *data)
{
    (void)e;
    (void)status;
    (void)data;
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    cl_event mk;
    if (clEnqueueMarkerWithWaitList(cb_queue, 0, NULL, &mk) == CL_SUCCESS)
        clReleaseEvent(mk);
    atomic_store(&cb_done, 1);
}

static void test_read_beside_callback(void)
{
    enum { BIG = 8 << 20 };
    cl_int err;
    struct two_queues f;
    two_queues_open(&f);
    cb_queue = f.q1;
    cl_mem b = clCreateBuffer(f.c, CL_MEM_READ_WRITE, BIG, NULL, &err);
    char *host = malloc(BIG), small[4096];
    REQUIRE(b && host, "buffer: %d", err);
    EXPECT_OK(clFinish(cb_queue));
    cl_event u = clCreateUserEvent(f.c, &err);
    atomic_store(&cb_done, 0);
    EXPECT_OK(clSetEventCallback(u, CL_COMPLETE, enqueue_later, NULL));
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL); /* the notifier is in the callback now */
    alarm(60);
    EXPECT_OK(clEnqueueReadBuffer(cb_queue, b, CL_FALSE, 0, sizeof(small), small, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(cb_queue, b, CL_FALSE, 0, BIG, host, 0, NULL, NULL));
    EXPECT_OK(clFinish(cb_queue));
    while (!atomic_load(&cb_done)) /* the queue lives until the callback is done */
        nanosleep(&ts, NULL);
    EXPECT_OK(clFinish(cb_queue));
    alarm(0);
    clReleaseEvent(u);
    clReleaseMemObject(b);
    free(host);
    two_queues_close(&f);
}

/* Two GPUs of one context: a command on the second waits for one on the
 * first (no common signal memory: the host bridges the dependency). The
 * buffer lives in host pages both GPUs map. */
static void test_two_devices(cl_platform_id plat)
{
    cl_device_id devs[2];
    cl_uint n = 0;
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 2, devs, &n) != CL_SUCCESS || n < 2) {
        printf("api_event_graph: one device, two-device graph skipped\n");
        return;
    }
    cl_int err;
    cl_context c = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
    REQUIRE(c, "two-device context: %d", err);
    cl_command_queue q0 = clCreateCommandQueueWithProperties(c, devs[0], NULL, &err);
    cl_command_queue q1 = clCreateCommandQueueWithProperties(c, devs[1], NULL, &err);
    REQUIRE(q0 && q1, "queues: %d", err);
    size_t size;
    unsigned char *bin = test_data_read("test_kernels.cubin", &size);
    REQUIRE(bin, "test_kernels.cubin");
    const unsigned char *bins[] = {bin, bin};
    size_t sizes[] = {size, size};
    cl_program p = clCreateProgramWithBinary(c, 2, devs, sizes, bins, NULL, &err);
    free(bin);
    REQUIRE(p, "program: %d", err);
    EXPECT_OK(clBuildProgram(p, 2, devs, NULL, NULL, NULL));
    cl_kernel k0 = clCreateKernel(p, "vadd", &err), k1 = clCreateKernel(p, "vadd", &err);
    REQUIRE(k0 && k1, "kernels: %d", err);
    cl_mem x = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    REQUIRE(x, "buffer: %d", err);
    EXPECT_OK(clEnqueueWriteBuffer(q0, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    cl_event u = clCreateUserEvent(c, &err);
    cl_event a = step(q0, k0, x, 1, 1, &u);
    cl_event b = step(q1, k1, x, 2, 1, &a);
    settle();
    EXPECT(status_of(b) > CL_COMPLETE, "second GPU ran before the first");
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clWaitForEvents(1, &b));
    EXPECT_OK(clEnqueueReadBuffer(q1, x, CL_TRUE, 0, N * 4, ya, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++)
        if (ya[i] != 4.0f * (float)i + 4.0f) {
            bad++;
            EXPECT(false, "two GPUs: x[%d] = %g, want %g", i, ya[i], 4.0f * (float)i + 4.0f);
        }
    cl_event evs[] = {u, a, b};
    for (int i = 0; i < 3; i++)
        EXPECT_OK(clReleaseEvent(evs[i]));
    EXPECT_OK(clReleaseKernel(k0));
    EXPECT_OK(clReleaseKernel(k1));
    EXPECT_OK(clReleaseProgram(p));
    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseCommandQueue(q0));
    EXPECT_OK(clReleaseCommandQueue(q1));
    EXPECT_OK(clReleaseContext(c));
}

static atomic_int held_done;
static void CL_CALLBACK held_cb(cl_event e, cl_int status, void *data)
{
    (void)e;
    (void)data;
    if (status == CL_COMPLETE)
        atomic_fetch_add(&held_done, 1);
}

/* Ten steps x = 2x + 1 on q, the first held by a new user event (the
 * GPU waits at it, so the later ones are held back: hcq_q_commit);
 * returns that user event and the last step's event. */
static cl_event held_chain(cl_context c, cl_command_queue q, cl_kernel k, cl_mem x,
                           cl_event *last)
{
    cl_int err;
    cl_event u = clCreateUserEvent(c, &err);
    EXPECT_OK(err);
    *last = step(q, k, x, 1, 1, &u);
    for (int i = 1; i < 10; i++) {
        clReleaseEvent(*last);
        *last = step(q, k, x, 1, 0, NULL);
    }
    return u;
}

static void check_held(cl_command_queue q, cl_mem x, const char *what)
{
    EXPECT_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * 4, ya, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < N && bad < 3; i++) {
        float want = (float)i;
        for (int s = 0; s < 10; s++)
            want = want + want + 1.0f;
        if (ya[i] != want) {
            bad++;
            EXPECT(false, "%s: x[%d] = %g, want %g", what, i, ya[i], want);
        }
    }
}

/* Before anything was enqueued in the process: a user event set to an
 * error status still calls its CL_COMPLETE callback (with that status). */
static atomic_int first_cb_status = 1;
static void CL_CALLBACK first_cb(cl_event e, cl_int status, void *data)
{
    (void)e;
    (void)data;
    atomic_store(&first_cb_status, status);
}

static void test_user_callback_first(void)
{
    cl_int err;
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(c, "context: %d", err);
    cl_event u = clCreateUserEvent(c, &err);
    EXPECT_OK(err);
    EXPECT_OK(clSetEventCallback(u, CL_COMPLETE, first_cb, NULL));
    EXPECT_OK(clSetUserEventStatus(u, -5));
    int st = await_change(&first_cb_status, 1);
    EXPECT(st == -5, "callback status %d", st);
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseContext(c));
}

static void test_held(void)
{
    cl_int err;
    struct two_queues f;
    two_queues_open(&f);
    cl_context c = f.c;
    cl_command_queue q1 = f.q1, q2 = f.q2;
    cl_kernel k = f.k;
    cl_mem x = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    cl_mem y = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    REQUIRE(x && y, "buffers: %d", err);
    cl_event last;

    /* Polling the status alone (no clFlush) moves the chain. */
    EXPECT_OK(clEnqueueWriteBuffer(q1, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    cl_event u = held_chain(c, q1, k, x, &last);
    settle();
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    uint64_t t0 = host_ns();
    while (status_of(last) != CL_COMPLETE && host_ns() - t0 < 5000000000ull)
        ;
    EXPECT(status_of(last) == CL_COMPLETE, "polled chain: status %d", status_of(last));
    check_held(q1, x, "polled chain");
    clReleaseEvent(u);
    clReleaseEvent(last);

    /* Another queue waiting for the held work, finished alone. */
    EXPECT_OK(clEnqueueWriteBuffer(q1, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    EXPECT_OK(clEnqueueWriteBuffer(q2, y, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    u = held_chain(c, q1, k, x, &last);
    cl_event ey = step(q2, k, y, 2, 1, &last);
    settle();
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clFinish(q2));
    EXPECT(status_of(ey) == CL_COMPLETE && status_of(last) == CL_COMPLETE,
           "cross-queue: %d after %d", status_of(ey), status_of(last));
    EXPECT_OK(clEnqueueReadBuffer(q2, y, CL_TRUE, 0, N * 4, zb, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        if (zb[i] != 2.0f * (float)i + 2.0f) {
            EXPECT(false, "cross-queue: y[%d] = %g", i, zb[i]);
            break;
        }
    check_held(q1, x, "cross-queue chain");
    clReleaseEvent(u);
    clReleaseEvent(ey);
    clReleaseEvent(last);

    /* No call at all: the chain's callback still fires. */
    EXPECT_OK(clEnqueueWriteBuffer(q1, x, CL_TRUE, 0, N * 4, x0, 0, NULL, NULL));
    u = held_chain(c, q1, k, x, &last);
    atomic_store(&held_done, 0);
    EXPECT_OK(clSetEventCallback(last, CL_COMPLETE, held_cb, NULL));
    settle();
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    int done = await_change(&held_done, 0);
    EXPECT(done == 1, "callback without a call: %d", done);
    check_held(q1, x, "chain without a call");
    clReleaseEvent(u);
    clReleaseEvent(last);

    EXPECT_OK(clReleaseMemObject(x));
    EXPECT_OK(clReleaseMemObject(y));
    two_queues_close(&f);
}

/* On a profiling queue a command reports CL_RUNNING once it started, and
 * its CL_RUNNING callback comes then, not at its end: a 300 ms kernel
 * behind a user event. */
static atomic_ullong running_at, complete_at;
static void CL_CALLBACK at_running(cl_event e, cl_int status, void *data)
{
    (void)e;
    (void)data;
    if (status == CL_RUNNING)
        atomic_store(&running_at, host_ns());
}
static void CL_CALLBACK at_complete(cl_event e, cl_int status, void *data)
{
    (void)e;
    (void)data;
    if (status == CL_COMPLETE)
        atomic_store(&complete_at, host_ns());
}

static void test_running_callback(void)
{
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(ctx, "context: %d", err);
    const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    REQUIRE(q, "queue: %d", err);
    cl_program p = cltest_program(ctx, dev, "gpu_kernels.cubin");
    cl_kernel spin = clCreateKernel(p, "spin_ns", &err);
    REQUIRE(spin, "spin_ns: %d", err);
    cl_mem out = clCreateBuffer(ctx, 0, 64, NULL, &err);
    REQUIRE(out, "buffer: %d", err);
    cl_ulong ns = 300000000;
    EXPECT_OK(clSetKernelArg(spin, 0, sizeof(ns), &ns));
    EXPECT_OK(clSetKernelArg(spin, 1, sizeof(out), &out));
    cl_event u = clCreateUserEvent(ctx, &err), e = NULL;
    EXPECT_OK(err);
    const size_t one = 1;
    EXPECT_OK(clEnqueueNDRangeKernel(q, spin, 1, NULL, &one, &one, 1, &u, &e));
    atomic_store(&running_at, 0);
    atomic_store(&complete_at, 0);
    EXPECT_OK(clSetEventCallback(e, CL_RUNNING, at_running, NULL));
    EXPECT_OK(clSetEventCallback(e, CL_COMPLETE, at_complete, NULL));
    settle();
    EXPECT(atomic_load(&running_at) == 0, "CL_RUNNING callback before the user event was set");
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    uint64_t t0 = host_ns();
    while (status_of(e) == CL_SUBMITTED && host_ns() - t0 < 5000000000ull)
        ;
    const uint64_t seen = host_ns();
    EXPECT(status_of(e) == CL_RUNNING, "status %d while the kernel runs", status_of(e));
    while (!atomic_load(&running_at) && host_ns() - t0 < 5000000000ull)
        ;
    const uint64_t run = atomic_load(&running_at);
    EXPECT(run && run < seen + 250000000ull && !atomic_load(&complete_at),
           "CL_RUNNING callback %.1f ms after the status read CL_RUNNING, complete at %llu",
           run ? (double)(run - seen) / 1e6 : -1.0,
           (unsigned long long)atomic_load(&complete_at));
    EXPECT_OK(clWaitForEvents(1, &e));
    t0 = host_ns();
    while (!atomic_load(&complete_at) && host_ns() - t0 < 5000000000ull)
        ;
    EXPECT(atomic_load(&complete_at) > run, "CL_COMPLETE callback after the CL_RUNNING one");
    clReleaseEvent(e);
    clReleaseEvent(u);
    clReleaseMemObject(out);
    clReleaseKernel(spin);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}

int main(void)
{
    cl_platform_id p = cltest_platform();
    REQUIRE(p, "hcqcl platform not found");
    cl_uint n = 0;
    REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, &n) == CL_SUCCESS && n > 0,
            "no device");
    for (int i = 0; i < N; i++)
        x0[i] = (float)i;
    test_user_callback_first();
    test_graph();
    test_in_order_channels();
    test_held();
    test_failure();
    test_terminated();
    test_gated_blocking();
    test_held_before_gate();
    test_read_beside_callback();
    test_two_devices(p);
    test_running_callback();
    return cltest_result("api_event_graph");
}

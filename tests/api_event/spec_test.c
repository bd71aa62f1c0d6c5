/*
 * spec_test.c — events against the wording of the OpenCL 3.0
 * specification, through the ICD loader: callbacks (each called once, also
 * when registered late or racing the status change, from any thread, and
 * free to release their event), user event status rules, negative statuses
 * passing to dependents and blocking calls, profiling availability,
 * reference counts under concurrency, and CL_RUNNING while a command's
 * host work runs. Needs no kernels.
 */
#include "../api_platform/cltest.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static cl_device_id dev;
static cl_context ctx;

static cl_int status_of(cl_event e)
{
    cl_int s = 1234;
    EXPECT_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(s), &s, NULL));
    return s;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static cl_command_queue make_queue(cl_command_queue_properties props)
{
    cl_int err;
    cl_queue_properties p[] = {CL_QUEUE_PROPERTIES, props, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props ? p : NULL, &err);
    REQUIRE(q, "queue: %d", err);
    return q;
}

/* Calls per registered type (index: CL_COMPLETE 0, CL_RUNNING 1,
 * CL_SUBMITTED 2) and the status each got last. */
struct calls {
    atomic_int n[3];
    atomic_int status[3];
};

struct reg {
    struct calls *c;
    int type;
};

static void CL_CALLBACK note_cb(cl_event e, cl_int status, void *data)
{
    (void)e;
    struct reg *r = data;
    atomic_fetch_add(&r->c->n[r->type], 1);
    atomic_store(&r->c->status[r->type], status);
}

/* Wait up to 5 s for *n to reach want, then a little for any extra call. */
static int await_n(atomic_int *n, int want)
{
    for (int i = 0; i < 5000 && atomic_load(n) < want; i++)
        sleep_ms(1);
    sleep_ms(10);
    return atomic_load(n);
}

/* ------------------------------------------------------------------ */
/* Callbacks registered from several threads while the status changes  */
/* ------------------------------------------------------------------ */

enum { REG_THREADS = 4, REG_EACH = 64 };

struct reg_job {
    cl_event e;
    struct calls *c;
    struct reg regs[REG_EACH * 3];
    atomic_int *go;
};

static void *register_many(void *arg)
{
    struct reg_job *j = arg;
    while (!atomic_load(j->go))
        sched_yield();
    for (int i = 0; i < REG_EACH; i++)
        for (int t = 0; t < 3; t++) {
            struct reg *r = &j->regs[3 * i + t];
            *r = (struct reg){j->c, t};
            EXPECT_OK(clSetEventCallback(j->e, t, note_cb, r));
        }
    return NULL;
}

/* "The registered callback function will be called when the execution
 * status of command associated with event changes to an execution status
 * equal to or past the status specified"; "All callbacks registered for
 * an event object must be called": registrations racing the user event
 * that gates the command, each called once. */
static void test_callbacks_racing_status(void)
{
    cl_command_queue q = make_queue(0);
    for (int round = 0; round < 8; round++) {
        cl_int err;
        cl_event u = clCreateUserEvent(ctx, &err), m;
        REQUIRE(u, "user event: %d", err);
        EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &u, &m));
        struct calls c = {0};
        atomic_int go = 0;
        struct reg_job jobs[REG_THREADS];
        pthread_t th[REG_THREADS];
        for (int i = 0; i < REG_THREADS; i++) {
            jobs[i] = (struct reg_job){.e = m, .c = &c, .go = &go};
            pthread_create(&th[i], NULL, register_many, &jobs[i]);
        }
        atomic_store(&go, 1);
        const cl_int set = round & 1 ? CL_COMPLETE : -7;
        EXPECT_OK(clSetUserEventStatus(u, set));
        for (int i = 0; i < REG_THREADS; i++)
            pthread_join(th[i], NULL);
        const int want = REG_THREADS * REG_EACH;
        for (int t = 0; t < 3; t++) {
            int n = await_n(&c.n[t], want);
            EXPECT(n == want, "round %d: callbacks of type %d called %d times, %d registered",
                   round, t, n, want);
        }
        EXPECT(atomic_load(&c.status[0]) == (set < 0 ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
                                                     : CL_COMPLETE),
               "round %d: CL_COMPLETE callback got %d", round, atomic_load(&c.status[0]));
        /* "event_command_status is equal to the command_exec_callback_type
         * used while registering the callback" (no termination). */
        EXPECT(set < 0 || (atomic_load(&c.status[1]) == CL_RUNNING &&
                           atomic_load(&c.status[2]) == CL_SUBMITTED),
               "round %d: RUNNING/SUBMITTED callbacks got %d %d", round,
               atomic_load(&c.status[1]), atomic_load(&c.status[2]));
        EXPECT_OK(clFinish(q));
        EXPECT_OK(clReleaseEvent(m));
        EXPECT_OK(clReleaseEvent(u));
    }
    EXPECT_OK(clReleaseCommandQueue(q));
}

/* ------------------------------------------------------------------ */
/* A callback releasing its own event                                   */
/* ------------------------------------------------------------------ */

static atomic_int released_in_cb;

static void CL_CALLBACK release_self(cl_event e, cl_int status, void *data)
{
    (void)status;
    (void)data;
    cl_int st = 1234;
    /* Still an event inside the callback. */
    if (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) ==
            CL_SUCCESS &&
        clReleaseEvent(e) == CL_SUCCESS)
        atomic_fetch_add(&released_in_cb, 1);
}

static void test_callback_releases_event(void)
{
    cl_int err;
    cl_command_queue q = make_queue(0);
    atomic_store(&released_in_cb, 0);
    /* A user event and a command event, each released by its own
     * CL_COMPLETE callback, the application's last reference. */
    cl_event u = clCreateUserEvent(ctx, &err), m;
    REQUIRE(u, "user event: %d", err);
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &u, &m));
    EXPECT_OK(clSetEventCallback(u, CL_COMPLETE, release_self, NULL));
    EXPECT_OK(clSetEventCallback(m, CL_COMPLETE, release_self, NULL));
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT(await_n(&released_in_cb, 2) == 2, "callbacks released %d events",
           atomic_load(&released_in_cb));
    EXPECT_OK(clFinish(q));
    EXPECT_OK(clReleaseCommandQueue(q));
}

/* ------------------------------------------------------------------ */
/* clSetUserEventStatus: once only, from racing threads                 */
/* ------------------------------------------------------------------ */

struct set_job {
    cl_event u;
    cl_int value, ret;
    atomic_int *go;
};

static void *set_status(void *arg)
{
    struct set_job *j = arg;
    while (!atomic_load(j->go))
        sched_yield();
    j->ret = clSetUserEventStatus(j->u, j->value);
    return NULL;
}

static void test_user_status_once(void)
{
    cl_int err;
    for (int round = 0; round < 200; round++) {
        cl_event u = clCreateUserEvent(ctx, &err);
        REQUIRE(u, "user event: %d", err);
        atomic_int go = 0;
        struct set_job j[2] = {{u, CL_COMPLETE, 99, &go}, {u, -3, 99, &go}};
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&th[i], NULL, set_status, &j[i]);
        atomic_store(&go, 1);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        const int ok = (j[0].ret == CL_SUCCESS) + (j[1].ret == CL_SUCCESS);
        const int refused = (j[0].ret == CL_INVALID_OPERATION) + (j[1].ret == CL_INVALID_OPERATION);
        EXPECT(ok == 1 && refused == 1, "round %d: %d and %d", round, j[0].ret, j[1].ret);
        const cl_int st = status_of(u);
        EXPECT(st == (j[0].ret == CL_SUCCESS ? CL_COMPLETE : -3), "round %d: status %d", round,
               st);
        EXPECT_OK(clReleaseEvent(u));
    }
    /* "CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a
     * negative integer value" */
    cl_event u = clCreateUserEvent(ctx, &err);
    EXPECT_ERR(clSetUserEventStatus(u, CL_SUBMITTED), CL_INVALID_VALUE);
    EXPECT_ERR(clSetUserEventStatus(u, CL_RUNNING), CL_INVALID_VALUE);
    EXPECT_ERR(clSetUserEventStatus(u, CL_QUEUED), CL_INVALID_VALUE);
    EXPECT(status_of(u) == CL_SUBMITTED, "refused values leave it submitted");
    EXPECT_OK(clSetUserEventStatus(u, -1));
    EXPECT_ERR(clSetUserEventStatus(u, -1), CL_INVALID_OPERATION);
    EXPECT_ERR(clSetUserEventStatus(u, CL_COMPLETE), CL_INVALID_OPERATION);
    EXPECT_OK(clReleaseEvent(u));
}

/* ------------------------------------------------------------------ */
/* Retain and release from several threads                              */
/* ------------------------------------------------------------------ */

struct ref_job {
    cl_event e;
    atomic_int *go;
    int fails;
};

static void *retain_release(void *arg)
{
    struct ref_job *j = arg;
    while (!atomic_load(j->go))
        sched_yield();
    for (int i = 0; i < 2000; i++) {
        if (clRetainEvent(j->e) != CL_SUCCESS)
            j->fails++;
        cl_int st;
        if (clGetEventInfo(j->e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) !=
            CL_SUCCESS)
            j->fails++;
        if (clReleaseEvent(j->e) != CL_SUCCESS)
            j->fails++;
    }
    return NULL;
}

static void test_refs_threads(void)
{
    cl_int err;
    cl_command_queue q = make_queue(0);
    cl_event u = clCreateUserEvent(ctx, &err), m;
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &u, &m));
    atomic_int go = 0;
    struct ref_job j[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        j[i] = (struct ref_job){.e = i & 1 ? u : m, .go = &go};
        pthread_create(&th[i], NULL, retain_release, &j[i]);
    }
    atomic_store(&go, 1);
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        EXPECT(j[i].fails == 0, "thread %d: %d calls failed", i, j[i].fails);
    }
    cl_uint refs = 0;
    EXPECT_OK(clGetEventInfo(m, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT(refs == 1, "marker refs %u", refs);
    EXPECT_OK(clGetEventInfo(u, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT(refs == 1, "user event refs %u", refs);
    EXPECT_OK(clWaitForEvents(1, &m));
    EXPECT_OK(clReleaseEvent(m));
    EXPECT_ERR(clReleaseEvent(m), CL_INVALID_EVENT);
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseCommandQueue(q));
}

/* ------------------------------------------------------------------ */
/* Failure passing on; blocking calls                                   */
/* ------------------------------------------------------------------ */

struct later {
    cl_event u;
    cl_int value;
};

static void *set_later(void *arg)
{
    struct later *l = arg;
    sleep_ms(30);
    clSetUserEventStatus(l->u, l->value);
    return NULL;
}

static void test_failure_passes_on(void)
{
    cl_int err;
    cl_command_queue q1 = make_queue(0), q2 = make_queue(0);
    cl_command_queue q3 = make_queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    cl_mem b = clCreateBuffer(ctx, 0, 4096, NULL, &err);
    REQUIRE(b, "buffer: %d", err);
    static cl_uint host[1024];
    const cl_uint pat = 0x1234;
    cl_event u = clCreateUserEvent(ctx, &err), a, bb, c, d;
    EXPECT_OK(clEnqueueFillBuffer(q1, b, &pat, 4, 0, 4096, 1, &u, &a));
    EXPECT_OK(clEnqueueMarkerWithWaitList(q2, 1, &a, &bb));
    EXPECT_OK(clEnqueueBarrierWithWaitList(q3, 1, &bb, &c));
    EXPECT_OK(clEnqueueMarkerWithWaitList(q3, 0, NULL, &d)); /* after the barrier */
    struct calls ca = {0};
    struct reg rs[3] = {{&ca, 0}, {&ca, 1}, {&ca, 2}};
    for (int t = 0; t < 3; t++)
        EXPECT_OK(clSetEventCallback(c, t, note_cb, &rs[t]));
    /* A blocking read behind a user event another thread fails. */
    struct later l = {u, -11};
    pthread_t th;
    pthread_create(&th, NULL, set_later, &l);
    EXPECT_ERR(clEnqueueReadBuffer(q1, b, CL_TRUE, 0, 4096, host, 1, &u, NULL),
               CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    pthread_join(th, NULL);
    cl_event all[] = {a, bb, c, d};
    EXPECT_ERR(clWaitForEvents(4, all), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    EXPECT(status_of(a) < 0 && status_of(bb) < 0 && status_of(c) < 0,
           "wait-list dependents fail: %d %d %d", status_of(a), status_of(bb), status_of(c));
    /* All four were waited for: final. */
    EXPECT(status_of(d) <= CL_COMPLETE, "marker after the barrier: %d", status_of(d));
    await_n(&ca.n[0], 1);
    EXPECT(atomic_load(&ca.n[0]) == 1 && atomic_load(&ca.status[0]) < 0,
           "COMPLETE callback of a terminated command: %d calls, status %d",
           atomic_load(&ca.n[0]), atomic_load(&ca.status[0]));
    EXPECT(atomic_load(&ca.n[1]) == 1 && atomic_load(&ca.n[2]) == 1,
           "RUNNING/SUBMITTED callbacks: %d %d", atomic_load(&ca.n[1]), atomic_load(&ca.n[2]));
    /* Already failed: a blocking call on it fails at once, and so do
     * blocking writes and maps. */
    EXPECT_ERR(clEnqueueWriteBuffer(q2, b, CL_TRUE, 0, 16, host, 1, &u, NULL),
               CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    void *p = clEnqueueMapBuffer(q2, b, CL_TRUE, CL_MAP_READ, 0, 16, 1, &a, NULL, &err);
    EXPECT(!p && err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "blocking map: %p %d", p,
           err);
    /* Callbacks registered after the failure are called too, once. */
    struct calls late = {0};
    struct reg lr[3] = {{&late, 0}, {&late, 1}, {&late, 2}};
    for (int t = 0; t < 3; t++)
        EXPECT_OK(clSetEventCallback(a, t, note_cb, &lr[t]));
    for (int t = 0; t < 3; t++)
        EXPECT(await_n(&late.n[t], 1) == 1, "late callback of type %d: %d calls", t,
               atomic_load(&late.n[t]));
    EXPECT(atomic_load(&late.status[0]) < 0, "late COMPLETE callback: %d",
           atomic_load(&late.status[0]));
    EXPECT_OK(clFinish(q1));
    EXPECT_OK(clFinish(q2));
    EXPECT_OK(clFinish(q3));
    for (int i = 0; i < 4; i++)
        EXPECT_OK(clReleaseEvent(all[i]));
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseMemObject(b));
    EXPECT_OK(clReleaseCommandQueue(q1));
    EXPECT_OK(clReleaseCommandQueue(q2));
    EXPECT_OK(clReleaseCommandQueue(q3));
}

/* ------------------------------------------------------------------ */
/* Profiling availability                                               */
/* ------------------------------------------------------------------ */

static void test_profiling_availability(void)
{
    cl_int err;
    cl_command_queue q = make_queue(CL_QUEUE_PROFILING_ENABLE);
    cl_event u = clCreateUserEvent(ctx, &err), failed, ok;
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &u, &failed));
    cl_ulong v;
    EXPECT_ERR(clGetEventProfilingInfo(failed, CL_PROFILING_COMMAND_QUEUED, sizeof(v), &v, NULL),
               CL_PROFILING_INFO_NOT_AVAILABLE);
    EXPECT_OK(clSetUserEventStatus(u, -2));
    EXPECT_ERR(clWaitForEvents(1, &failed), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    /* "if the execution status of the command identified by event is not
     * CL_COMPLETE" */
    EXPECT_ERR(clGetEventProfilingInfo(failed, CL_PROFILING_COMMAND_END, sizeof(v), &v, NULL),
               CL_PROFILING_INFO_NOT_AVAILABLE);
    EXPECT_ERR(clGetEventProfilingInfo(u, CL_PROFILING_COMMAND_END, sizeof(v), &v, NULL),
               CL_PROFILING_INFO_NOT_AVAILABLE);
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, &ok));
    EXPECT_OK(clWaitForEvents(1, &ok));
    size_t sz = 0;
    EXPECT_OK(clGetEventProfilingInfo(ok, CL_PROFILING_COMMAND_COMPLETE, 0, NULL, &sz));
    EXPECT(sz == sizeof(cl_ulong), "size %zu", sz);
    EXPECT_ERR(clGetEventProfilingInfo(ok, CL_PROFILING_COMMAND_QUEUED - 1, sizeof(v), &v, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clGetEventProfilingInfo(ok, CL_PROFILING_COMMAND_COMPLETE + 1, sizeof(v), &v, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clGetEventProfilingInfo(NULL, CL_PROFILING_COMMAND_END, sizeof(v), &v, NULL),
               CL_INVALID_EVENT);
    EXPECT_OK(clReleaseEvent(ok));
    EXPECT_OK(clReleaseEvent(failed));
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseCommandQueue(q));
}

/* ------------------------------------------------------------------ */
/* CL_RUNNING while a command's host work runs                          */
/* ------------------------------------------------------------------ */

static atomic_int in_free;

static void CL_CALLBACK slow_free(cl_command_queue q, cl_uint n, void *ptrs[], void *data)
{
    (void)q;
    (void)data;
    atomic_store(&in_free, 1);
    sleep_ms(300);
    for (cl_uint i = 0; i < n; i++)
        clSVMFree(ctx, ptrs[i]);
    atomic_store(&in_free, 2);
}

/* CL_RUNNING: "Device is currently executing this command". A command
 * whose work is done on the host after its GPU part (clEnqueueSVMFree's
 * callback, a staged read's copy-out) is running while that work runs,
 * on a queue with profiling or without, and its status never goes back
 * from CL_RUNNING to CL_SUBMITTED. */
static void test_running_during_host_work(void)
{
    for (int prof = 0; prof < 2; prof++) {
        cl_command_queue q = make_queue(prof ? CL_QUEUE_PROFILING_ENABLE : 0);
        void *p = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 4096, 0);
        REQUIRE(p, "clSVMAlloc");
        atomic_store(&in_free, 0);
        /* Behind a user event, so that the callback runs on the notifier,
         * not inline in this thread's enqueue or flush. */
        cl_int err;
        cl_event u = clCreateUserEvent(ctx, &err), ev;
        REQUIRE(u, "user event: %d", err);
        EXPECT_OK(clEnqueueSVMFree(q, 1, &p, slow_free, NULL, 1, &u, &ev));
        EXPECT_OK(clFlush(q));
        EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
        for (int i = 0; i < 5000 && !atomic_load(&in_free); i++)
            sleep_ms(1);
        REQUIRE(atomic_load(&in_free) == 1, "the free callback did not start");
        int seen = 0, not_running = 0;
        cl_int last = CL_QUEUED, st;
        do {
            const int before = atomic_load(&in_free);
            st = status_of(ev);
            if (before == 1 && atomic_load(&in_free) == 1) {
                seen++;
                not_running += st != CL_RUNNING;
            }
            EXPECT(st <= last, "status went back from %d to %d", last, st);
            last = st;
            sleep_ms(1);
        } while (st > CL_COMPLETE);
        EXPECT(seen > 0 && not_running == 0 && st == CL_COMPLETE,
               "%s: %d of %d reads while the free callback ran were not CL_RUNNING; final %d",
               prof ? "profiling" : "no profiling", not_running, seen, st);
        EXPECT_OK(clReleaseEvent(ev));
        EXPECT_OK(clReleaseEvent(u));
        EXPECT_OK(clFinish(q));
        EXPECT_OK(clReleaseCommandQueue(q));
    }
}

/* ------------------------------------------------------------------ */
/* clGetEventInfo                                                       */
/* ------------------------------------------------------------------ */

static void test_event_info(void)
{
    cl_int err;
    cl_event u = clCreateUserEvent(ctx, &err);
    cl_context c = NULL;
    size_t sz = 0;
    EXPECT_OK(clGetEventInfo(u, CL_EVENT_CONTEXT, sizeof(c), &c, &sz));
    EXPECT(c == ctx && sz == sizeof(c), "context %p (%zu bytes)", (void *)c, sz);
    cl_int st;
    EXPECT_ERR(clGetEventInfo(u, CL_EVENT_COMMAND_EXECUTION_STATUS, 2, &st, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clGetEventInfo(u, 0x7777, sizeof(st), &st, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetEventInfo(NULL, CL_EVENT_CONTEXT, sizeof(c), &c, NULL), CL_INVALID_EVENT);
    EXPECT_ERR(clWaitForEvents(1, (cl_event[]){NULL}), CL_INVALID_EVENT);
    EXPECT_ERR(clSetEventCallback(NULL, CL_COMPLETE, note_cb, NULL), CL_INVALID_EVENT);
    EXPECT_ERR(clRetainEvent(NULL), CL_INVALID_EVENT);
    EXPECT_ERR(clReleaseEvent(NULL), CL_INVALID_EVENT);
    EXPECT_ERR(clSetUserEventStatus(NULL, CL_COMPLETE), CL_INVALID_EVENT);
    cl_event none = clCreateUserEvent(NULL, &err);
    EXPECT(!none && err == CL_INVALID_CONTEXT, "user event without a context: %d", err);
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clReleaseEvent(u));
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

    test_event_info();
    test_user_status_once();
    test_callbacks_racing_status();
    test_callback_releases_event();
    test_refs_threads();
    test_failure_passes_on();
    test_profiling_availability();
    test_running_during_host_work();

    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_event_spec");
}

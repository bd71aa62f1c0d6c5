/*
 * queue_test.c — command queues, markers, barriers, user events, callbacks
 * and profiling through the ICD loader, on whatever device hcqcl finds
 * (the emulated one in CI). Needs no kernels: markers and barriers are
 * real commands (GPU waits and semaphore releases on the compute channel).
 */
#include "../api_platform/cltest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static cl_device_id dev;
static cl_context ctx, ctx2;

static cl_int status_of(cl_event e)
{
    cl_int s = 1234;
    EXPECT_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(s), &s, NULL));
    return s;
}

static void settle(void)
{
    /* Time for anything that (wrongly) would run to show. */
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static uint64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A default (in-order, no profiling) queue on dev. */
static cl_command_queue plain_queue(void)
{
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q, "queue: %d", err);
    return q;
}

static void test_create_errors(void)
{
    cl_int err;
    cl_queue_properties on_dev[] = {CL_QUEUE_PROPERTIES,
                                    CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    EXPECT(!clCreateCommandQueueWithProperties(ctx, dev, on_dev, &err), "on-device queue");
    EXPECT(err == CL_INVALID_QUEUE_PROPERTIES, "on-device: %d", err);
    cl_queue_properties size_only[] = {CL_QUEUE_SIZE, 4096, 0};
    EXPECT(!clCreateCommandQueueWithProperties(ctx, dev, size_only, &err), "size");
    EXPECT(err == CL_INVALID_VALUE, "CL_QUEUE_SIZE on a host queue: %d", err);
    cl_queue_properties bogus[] = {0x7777, 1, 0};
    EXPECT(!clCreateCommandQueueWithProperties(ctx, dev, bogus, &err), "bogus");
    EXPECT(err == CL_INVALID_VALUE, "unknown property: %d", err);
    cl_queue_properties badbits[] = {CL_QUEUE_PROPERTIES, 1 << 20, 0};
    EXPECT(!clCreateCommandQueueWithProperties(ctx, dev, badbits, &err), "bad bits");
    EXPECT(err == CL_INVALID_VALUE, "unknown property bits: %d", err);
    cl_queue_properties dflt_only[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE_DEFAULT, 0};
    EXPECT(!clCreateCommandQueueWithProperties(ctx, dev, dflt_only, &err), "default only");
    EXPECT(err == CL_INVALID_VALUE, "ON_DEVICE_DEFAULT alone: %d", err);
    /* "If CL_QUEUE_ON_DEVICE is set, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
     * must also be set": not valid, whatever the device supports. */
    cl_queue_properties on_dev_in_order[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
    EXPECT(!clCreateCommandQueueWithProperties(ctx, dev, on_dev_in_order, &err), "in order");
    EXPECT(err == CL_INVALID_VALUE, "ON_DEVICE without out-of-order: %d", err);
    /* A handle of the wrong type where a device belongs. */
    EXPECT(!clCreateCommandQueueWithProperties(ctx, (cl_device_id)ctx, NULL, &err), "bad dev");
    EXPECT(err == CL_INVALID_DEVICE, "context as device: %d", err);
    EXPECT(!clCreateCommandQueue(ctx, (cl_device_id)ctx, 0, &err), "1.x bad dev");
    EXPECT(err == CL_INVALID_DEVICE, "1.x context as device: %d", err);
    EXPECT(!clCreateCommandQueue((cl_context)dev, dev, 0, &err), "1.x bad context");
    EXPECT(err == CL_INVALID_CONTEXT, "1.x device as context: %d", err);
}

static void test_info(void)
{
    cl_int err;
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    REQUIRE(q && err == CL_SUCCESS, "queue: %d", err);
    cl_context c;
    EXPECT_OK(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(c), &c, NULL));
    EXPECT(c == ctx, "context");
    cl_device_id d;
    EXPECT_OK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(d), &d, NULL));
    EXPECT(d == dev, "device");
    cl_uint refs;
    EXPECT_OK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT(refs == 1, "refs %u", refs);
    EXPECT_OK(clRetainCommandQueue(q));
    EXPECT_OK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT(refs == 2, "refs after retain %u", refs);
    EXPECT_OK(clReleaseCommandQueue(q));
    cl_command_queue_properties p;
    EXPECT_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(p), &p, NULL));
    EXPECT(p == CL_QUEUE_PROFILING_ENABLE, "properties 0x%llx", (unsigned long long)p);
    cl_queue_properties arr[8];
    size_t sz = 0;
    EXPECT_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof(arr), arr, &sz));
    EXPECT(sz == 3 * sizeof(cl_queue_properties) && arr[0] == CL_QUEUE_PROPERTIES &&
               arr[1] == CL_QUEUE_PROFILING_ENABLE && arr[2] == 0,
           "properties array (%zu bytes)", sz);
    cl_command_queue dq = (cl_command_queue)1;
    EXPECT_OK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE_DEFAULT, sizeof(dq), &dq, NULL));
    EXPECT(dq == NULL, "no default device queue");
    cl_uint qsize;
    EXPECT_ERR(clGetCommandQueueInfo(q, CL_QUEUE_SIZE, sizeof(qsize), &qsize, NULL),
               CL_INVALID_COMMAND_QUEUE);
    EXPECT_ERR(clGetCommandQueueInfo(q, 0x1234, sizeof(p), &p, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, 1, &p, NULL), CL_INVALID_VALUE);

    /* Deprecated property switch: profiling may change, the mode not. */
    cl_command_queue_properties old = 0;
    EXPECT_OK(clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_FALSE, &old));
    EXPECT(old == CL_QUEUE_PROFILING_ENABLE, "old properties");
    /* Only the out-of-order and profiling bits are valid there. */
    EXPECT_ERR(clSetCommandQueueProperty(q, CL_QUEUE_ON_DEVICE, CL_TRUE, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clSetCommandQueueProperty(q, 1 << 20, CL_TRUE, NULL), CL_INVALID_VALUE);
    EXPECT_OK(clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, NULL));
    EXPECT_OK(clReleaseCommandQueue(q));

    cl_command_queue q1 = clCreateCommandQueue(ctx, dev, 0, &err);
    REQUIRE(q1 && err == CL_SUCCESS, "1.x queue: %d", err);
    EXPECT_OK(clGetCommandQueueInfo(q1, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &sz));
    EXPECT(sz == 0, "1.x queue has no properties array (%zu)", sz);
    EXPECT_OK(clFlush(q1));
    EXPECT_OK(clFinish(q1));
    EXPECT_OK(clReleaseCommandQueue(q1));
}

struct cb_count {
    atomic_int n[3];     /* COMPLETE, RUNNING, SUBMITTED */
    atomic_int status[3];
};

static void CL_CALLBACK count_cb(cl_event e, cl_int status, void *data)
{
    struct cb_count *c = data;
    cl_int idx = status < 0 ? 0 : status;
    if (idx > 2)
        return;
    atomic_fetch_add(&c->n[idx], 1);
    atomic_store(&c->status[idx], status);
}

static void CL_CALLBACK count_complete_cb(cl_event e, cl_int status, void *data)
{
    struct cb_count *c = data;
    atomic_fetch_add(&c->n[0], 1);
    atomic_store(&c->status[0], status);
}

/* Callbacks are asynchronous: wait up to 5 s for a counter. */
static void await_count(atomic_int *n, int want)
{
    for (int i = 0; i < 5000 && atomic_load(n) < want; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

static void test_user_events_and_markers(void)
{
    cl_int err;
    cl_command_queue q = plain_queue();
    cl_event u = clCreateUserEvent(ctx, &err);
    REQUIRE(u && err == CL_SUCCESS, "user event: %d", err);
    EXPECT(status_of(u) == CL_SUBMITTED, "user event starts submitted");
    cl_command_queue uq = (cl_command_queue)1;
    EXPECT_OK(clGetEventInfo(u, CL_EVENT_COMMAND_QUEUE, sizeof(uq), &uq, NULL));
    EXPECT(uq == NULL, "user event has no queue");
    cl_command_type t;
    EXPECT_OK(clGetEventInfo(u, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
    EXPECT(t == CL_COMMAND_USER, "type");

    cl_event m1, m2, m3;
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &u, &m1));
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m2));
    EXPECT_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, &m3));
    struct cb_count cc = {0};
    EXPECT_OK(clSetEventCallback(m2, CL_COMPLETE, count_cb, &cc));
    EXPECT_OK(clSetEventCallback(m2, CL_RUNNING, count_cb, &cc));
    EXPECT_OK(clSetEventCallback(m2, CL_SUBMITTED, count_cb, &cc));
    EXPECT_ERR(clSetEventCallback(m2, CL_QUEUED, count_cb, &cc), CL_INVALID_VALUE);
    EXPECT_ERR(clSetEventCallback(m2, CL_COMPLETE, NULL, &cc), CL_INVALID_VALUE);
    settle();
    EXPECT(status_of(m1) > CL_COMPLETE, "m1 ran before its user event");
    EXPECT(status_of(m2) > CL_COMPLETE, "m2 ran before m1 (in order)");
    EXPECT(status_of(m3) > CL_COMPLETE, "barrier ran early");
    EXPECT(atomic_load(&cc.n[0]) == 0, "COMPLETE callback before completion");
    cl_command_type mt;
    EXPECT_OK(clGetEventInfo(m1, CL_EVENT_COMMAND_TYPE, sizeof(mt), &mt, NULL));
    EXPECT(mt == CL_COMMAND_MARKER, "marker type");
    EXPECT_OK(clGetEventInfo(m3, CL_EVENT_COMMAND_TYPE, sizeof(mt), &mt, NULL));
    EXPECT(mt == CL_COMMAND_BARRIER, "barrier type");
    cl_command_queue eq;
    EXPECT_OK(clGetEventInfo(m1, CL_EVENT_COMMAND_QUEUE, sizeof(eq), &eq, NULL));
    EXPECT(eq == q, "event queue");

    EXPECT_ERR(clSetUserEventStatus(u, 1), CL_INVALID_VALUE);
    EXPECT_ERR(clSetUserEventStatus(m1, CL_COMPLETE), CL_INVALID_EVENT);
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_ERR(clSetUserEventStatus(u, CL_COMPLETE), CL_INVALID_OPERATION);
    cl_event all[] = {m1, m2, m3};
    EXPECT_OK(clWaitForEvents(3, all));
    EXPECT(status_of(m1) == CL_COMPLETE && status_of(m2) == CL_COMPLETE &&
               status_of(m3) == CL_COMPLETE,
           "markers complete");
    await_count(&cc.n[0], 1);
    await_count(&cc.n[1], 1);
    await_count(&cc.n[2], 1);
    settle();
    for (int i = 0; i < 3; i++)
        EXPECT(atomic_load(&cc.n[i]) == 1 && atomic_load(&cc.status[i]) == i,
               "callback for status %d fired %d times", i, atomic_load(&cc.n[i]));
    /* Registered after completion: fires once, with CL_COMPLETE. */
    struct cb_count late = {0};
    EXPECT_OK(clSetEventCallback(m1, CL_COMPLETE, count_complete_cb, &late));
    await_count(&late.n[0], 1);
    settle();
    EXPECT(atomic_load(&late.n[0]) == 1 && atomic_load(&late.status[0]) == CL_COMPLETE,
           "late callback fired %d times", atomic_load(&late.n[0]));

    cl_uint refs;
    EXPECT_OK(clRetainEvent(m1));
    EXPECT_OK(clGetEventInfo(m1, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT(refs == 2, "event refs %u", refs);
    EXPECT_OK(clReleaseEvent(m1));

    /* Wait-list validation. */
    cl_event x;
    EXPECT_ERR(clEnqueueMarkerWithWaitList(q, 1, NULL, &x), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT_ERR(clEnqueueMarkerWithWaitList(q, 0, &m1, &x), CL_INVALID_EVENT_WAIT_LIST);
    cl_event bad = (cl_event)q;
    EXPECT_ERR(clEnqueueBarrierWithWaitList(q, 1, &bad, &x), CL_INVALID_EVENT_WAIT_LIST);
    cl_event other = clCreateUserEvent(ctx2, &err);
    REQUIRE(other, "user event in the second context");
    EXPECT_ERR(clEnqueueMarkerWithWaitList(q, 1, &other, &x), CL_INVALID_CONTEXT);
    cl_event mixed[] = {m1, other};
    EXPECT_ERR(clWaitForEvents(2, mixed), CL_INVALID_CONTEXT);
    EXPECT_ERR(clWaitForEvents(0, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueMarker(q, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueWaitForEvents(q, 0, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueWaitForEvents(q, 1, &other), CL_INVALID_CONTEXT);
    EXPECT_ERR(clEnqueueNativeKernel(q, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    EXPECT_OK(clSetUserEventStatus(other, CL_COMPLETE));
    EXPECT_OK(clReleaseEvent(other));

    /* 1.x forms. */
    cl_event mk;
    EXPECT_OK(clEnqueueMarker(q, &mk));
    EXPECT_OK(clEnqueueBarrier(q));
    EXPECT_OK(clEnqueueWaitForEvents(q, 1, &mk));
    EXPECT_OK(clFinish(q));
    EXPECT(status_of(mk) == CL_COMPLETE, "1.x marker complete after clFinish");
    EXPECT_OK(clReleaseEvent(mk));

    for (int i = 0; i < 3; i++)
        EXPECT_OK(clReleaseEvent(all[i]));
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseCommandQueue(q));
}

static void test_failed_user_event(void)
{
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q && q2, "queues: %d", err);
    cl_event u = clCreateUserEvent(ctx, &err);
    cl_event a, b, c;
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &u, &a));
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, &b)); /* in order after a */
    EXPECT_OK(clEnqueueMarkerWithWaitList(q2, 1, &a, &c));  /* other queue, on a */
    struct cb_count cc = {0};
    EXPECT_OK(clSetEventCallback(a, CL_COMPLETE, count_complete_cb, &cc));
    settle();
    EXPECT(status_of(c) > CL_COMPLETE, "dependent ran early");
    EXPECT_OK(clSetUserEventStatus(u, -42));
    EXPECT(status_of(u) == -42, "user event keeps its status");
    EXPECT_ERR(clWaitForEvents(1, &a), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    EXPECT_ERR(clWaitForEvents(1, &c), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    EXPECT(status_of(a) < 0 && status_of(c) < 0,
           "wait-list dependents of a failed user event fail (%d %d)", status_of(a),
           status_of(c));
    /* The in-order successor is only ordered after a, it did not wait on
     * the failed event: it runs once a ended. */
    EXPECT_OK(clWaitForEvents(1, &b));
    EXPECT(status_of(b) == CL_COMPLETE, "in-order successor: %d", status_of(b));
    await_count(&cc.n[0], 1);
    EXPECT(atomic_load(&cc.n[0]) == 1 && atomic_load(&cc.status[0]) < 0,
           "COMPLETE callback of a failed command: %d calls, status %d",
           atomic_load(&cc.n[0]), atomic_load(&cc.status[0]));
    /* Enqueued on an already failed event: fails too, the queue goes on. */
    cl_event d, e;
    EXPECT_OK(clEnqueueMarkerWithWaitList(q2, 1, &u, &d));
    EXPECT_OK(clFinish(q2));
    EXPECT(status_of(d) < 0, "marker on a failed event");
    cl_event fresh = clCreateUserEvent(ctx, &err);
    EXPECT_OK(clSetUserEventStatus(fresh, CL_COMPLETE));
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &fresh, &e));
    EXPECT_OK(clWaitForEvents(1, &e));
    EXPECT(status_of(e) == CL_COMPLETE, "a later command on a clean wait list completes");
    cl_event evs[] = {u, a, b, c, d, e, fresh};
    for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
        EXPECT_OK(clReleaseEvent(evs[i]));
    EXPECT_OK(clReleaseCommandQueue(q));
    EXPECT_OK(clReleaseCommandQueue(q2));
}

static void test_out_of_order(void)
{
    cl_int err;
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                   0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    REQUIRE(q, "out-of-order queue: %d", err);
    cl_event u = clCreateUserEvent(ctx, &err), done = clCreateUserEvent(ctx, &err);
    EXPECT_OK(clSetUserEventStatus(done, CL_COMPLETE));
    cl_event held, free_run, all_prev, barrier, after;
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &u, &held));
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &done, &free_run));
    EXPECT_OK(clWaitForEvents(1, &free_run));
    EXPECT(status_of(held) > CL_COMPLETE, "held marker ran before its user event");
    /* No wait list: covers every command before, so it waits too. */
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, &all_prev));
    EXPECT_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, &barrier));
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &done, &after));
    settle();
    EXPECT(status_of(all_prev) > CL_COMPLETE, "marker without wait list ran early");
    EXPECT(status_of(after) > CL_COMPLETE, "command after a barrier ran early");
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clFinish(q));
    cl_event evs[] = {held, free_run, all_prev, barrier, after};
    for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
        EXPECT(status_of(evs[i]) == CL_COMPLETE, "event %zu complete after clFinish", i);
        EXPECT_OK(clReleaseEvent(evs[i]));
    }
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseEvent(done));
    EXPECT_OK(clReleaseCommandQueue(q));
}

/* An out-of-order queue with commands held back by user events on many
 * channels: a command that waits for none of them still runs while they
 * wait. Seven gated fills keep seven channels of the copy engine blocked;
 * the eighth command gets a channel of its own. */
static void test_out_of_order_gated(void)
{
    enum { GATED = 7 };
    cl_int err;
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                   0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    REQUIRE(q, "out-of-order queue: %d", err);
    cl_mem buf = clCreateBuffer(ctx, 0, 4096, NULL, &err);
    REQUIRE(buf, "buffer: %d", err);
    const cl_uint zero = 0;
    EXPECT_OK(clEnqueueFillBuffer(q, buf, &zero, 4, 0, 4096, 0, NULL, NULL));
    EXPECT_OK(clFinish(q));
    cl_event u[GATED], gated[GATED], free_run;
    for (cl_uint i = 0; i < GATED; i++) {
        u[i] = clCreateUserEvent(ctx, &err);
        REQUIRE(u[i], "user event: %d", err);
        const cl_uint v = 100 + i;
        EXPECT_OK(clEnqueueFillBuffer(q, buf, &v, 4, 64 * i, 64, 1, &u[i], &gated[i]));
    }
    const cl_uint one = 1;
    EXPECT_OK(clEnqueueFillBuffer(q, buf, &one, 4, 2048, 64, 0, NULL, &free_run));
    EXPECT_OK(clFlush(q));
    const uint64_t deadline = host_ns() + 10000000000ull;
    while (status_of(free_run) != CL_COMPLETE && host_ns() < deadline)
        settle();
    EXPECT(status_of(free_run) == CL_COMPLETE, "a command behind no user event waited for them");
    for (cl_uint i = 0; i < GATED; i++)
        EXPECT(status_of(gated[i]) > CL_COMPLETE, "gated fill %u ran before its user event", i);
    for (cl_uint i = GATED; i-- > 0;)
        EXPECT_OK(clSetUserEventStatus(u[i], CL_COMPLETE));
    EXPECT_OK(clFinish(q));
    cl_uint got[1024];
    EXPECT_OK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL));
    for (cl_uint i = 0; i < GATED; i++)
        EXPECT(got[16 * i] == 100 + i && got[16 * i + 15] == 100 + i, "fill %u: %u", i,
               got[16 * i]);
    EXPECT(got[512] == 1 && got[16 * GATED] == 0, "free fill %u, after the gated %u", got[512],
           got[16 * GATED]);
    for (cl_uint i = 0; i < GATED; i++) {
        EXPECT(status_of(gated[i]) == CL_COMPLETE, "gated fill %u complete", i);
        EXPECT_OK(clReleaseEvent(gated[i]));
        EXPECT_OK(clReleaseEvent(u[i]));
    }
    EXPECT_OK(clReleaseEvent(free_run));
    EXPECT_OK(clReleaseMemObject(buf));
    EXPECT_OK(clReleaseCommandQueue(q));
}

static void test_profiling(void)
{
    cl_int err;
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    cl_command_queue plain = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q && plain, "queues: %d", err);
    /* The device timer of clGetDeviceAndHostTimer is the profiling time
     * base: the four times fall between two readings of it. */
    cl_ulong d0 = 0, d1 = 0, h;
    EXPECT_OK(clGetDeviceAndHostTimer(dev, &d0, &h));
    uint64_t t0 = host_ns();
    cl_event m[4];
    for (int i = 0; i < 4; i++)
        EXPECT_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, &m[i]));
    EXPECT_OK(clWaitForEvents(4, m));
    uint64_t t1 = host_ns();
    EXPECT_OK(clGetDeviceAndHostTimer(dev, &d1, &h));
    cl_ulong prev_end = 0;
    for (int i = 0; i < 4; i++) {
        cl_ulong v[5];
        for (int k = 0; k < 5; k++)
            EXPECT_OK(clGetEventProfilingInfo(m[i], CL_PROFILING_COMMAND_QUEUED + k,
                                              sizeof(v[k]), &v[k], NULL));
        EXPECT(t0 <= v[0] && v[0] <= v[1] && v[1] <= v[2] && v[2] <= v[3] && v[3] <= v[4] &&
                   v[4] <= t1,
               "marker %d: %llu <= Q %llu <= S %llu <= ST %llu <= E %llu <= C %llu <= %llu", i,
               (unsigned long long)t0, (unsigned long long)v[0], (unsigned long long)v[1],
               (unsigned long long)v[2], (unsigned long long)v[3], (unsigned long long)v[4],
               (unsigned long long)t1);
        EXPECT(d0 <= v[0] && v[4] <= d1, "marker %d: device timer %llu <= Q %llu, C %llu <= %llu",
               i, (unsigned long long)d0, (unsigned long long)v[0], (unsigned long long)v[4],
               (unsigned long long)d1);
        EXPECT(v[2] >= prev_end, "in-order markers do not overlap");
        prev_end = v[3];
    }
    cl_ulong v;
    EXPECT_ERR(clGetEventProfilingInfo(m[0], 0x1234, sizeof(v), &v, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetEventProfilingInfo(m[0], CL_PROFILING_COMMAND_START, 4, &v, NULL),
               CL_INVALID_VALUE);
    cl_event u = clCreateUserEvent(ctx, &err);
    EXPECT_ERR(clGetEventProfilingInfo(u, CL_PROFILING_COMMAND_QUEUED, sizeof(v), &v, NULL),
               CL_PROFILING_INFO_NOT_AVAILABLE);
    cl_event pm;
    EXPECT_OK(clEnqueueMarkerWithWaitList(plain, 0, NULL, &pm));
    EXPECT_OK(clWaitForEvents(1, &pm));
    EXPECT_ERR(clGetEventProfilingInfo(pm, CL_PROFILING_COMMAND_END, sizeof(v), &v, NULL),
               CL_PROFILING_INFO_NOT_AVAILABLE);
    /* Not complete yet: no profiling information. */
    cl_event gated;
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &u, &gated));
    EXPECT_ERR(clGetEventProfilingInfo(gated, CL_PROFILING_COMMAND_END, sizeof(v), &v, NULL),
               CL_PROFILING_INFO_NOT_AVAILABLE);
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clWaitForEvents(1, &gated));
    EXPECT_OK(clGetEventProfilingInfo(gated, CL_PROFILING_COMMAND_END, sizeof(v), &v, NULL));
    for (int i = 0; i < 4; i++)
        EXPECT_OK(clReleaseEvent(m[i]));
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseEvent(pm));
    EXPECT_OK(clReleaseEvent(gated));
    EXPECT_OK(clReleaseCommandQueue(q));
    EXPECT_OK(clReleaseCommandQueue(plain));
}

/* Many commands, no events kept, then release: the pools and the
 * tracker must neither leak nor hang (ASan checks the former). */
static void test_churn(void)
{
    cl_command_queue q = plain_queue();
    for (int i = 0; i < 2000; i++)
        EXPECT_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, NULL));
    cl_event last;
    EXPECT_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, &last));
    EXPECT_OK(clReleaseCommandQueue(q)); /* waits for everything */
    EXPECT(status_of(last) == CL_COMPLETE, "released queue finished its work");
    EXPECT_OK(clReleaseEvent(last));
}

/* Several threads enqueue on one shared queue and on their own, wait on
 * each other's events and query them: every call is thread-safe. */
struct worker {
    cl_command_queue shared, own;
    cl_event last;      /* the shared queue's last event this thread made */
    int done;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    cl_event prev = NULL;
    for (int i = 0; i < 300; i++) {
        cl_event e, f;
        if (clEnqueueMarkerWithWaitList(w->shared, prev ? 1 : 0, prev ? &prev : NULL, &e) !=
            CL_SUCCESS)
            return NULL;
        if (clEnqueueBarrierWithWaitList(w->own, 1, &e, &f) != CL_SUCCESS)
            return NULL;
        if (prev)
            clReleaseEvent(prev);
        if (i % 50 == 49 && clWaitForEvents(1, &f) != CL_SUCCESS)
            return NULL;
        clReleaseEvent(f);
        prev = e;
    }
    w->last = prev;
    w->done = 1;
    return NULL;
}

static void test_threads(void)
{
    enum { NT = 4 };
    cl_int err;
    cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    cl_command_queue shared = clCreateCommandQueueWithProperties(ctx, dev, ooo, &err);
    REQUIRE(shared, "shared queue: %d", err);
    struct worker w[NT];
    pthread_t t[NT];
    for (int i = 0; i < NT; i++) {
        w[i] = (struct worker){.shared = shared};
        w[i].own = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
        REQUIRE(w[i].own, "own queue: %d", err);
        int rc = pthread_create(&t[i], NULL, worker_main, &w[i]);
        REQUIRE(rc == 0, "thread: %d", rc);
    }
    for (int i = 0; i < NT; i++) {
        pthread_join(t[i], NULL);
        EXPECT(w[i].done, "worker %d failed", i);
        EXPECT_OK(clFinish(w[i].own));
        if (w[i].last) {
            EXPECT(status_of(w[i].last) == CL_COMPLETE, "worker %d's last marker", i);
            EXPECT_OK(clReleaseEvent(w[i].last));
        }
        EXPECT_OK(clReleaseCommandQueue(w[i].own));
    }
    EXPECT_OK(clFinish(shared));
    EXPECT_OK(clReleaseCommandQueue(shared));
}

static void *complete_later(void *arg)
{
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
    clSetUserEventStatus((cl_event)arg, CL_COMPLETE);
    return NULL;
}

/* clSetCommandQueueProperty switches the execution mode: out of order,
 * then back in order, which blocks until every command queued before has
 * completed; in-order work after it runs in order (checked by data). */
static void test_mode_switch(void)
{
    cl_int err;
    cl_command_queue q = plain_queue();
    cl_command_queue_properties old = 1, p = 0;
    EXPECT_OK(clSetCommandQueueProperty(q, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_TRUE, &old));
    EXPECT(old == 0, "old properties 0x%llx", (unsigned long long)old);
    EXPECT_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(p), &p, NULL));
    EXPECT(p == CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, "properties 0x%llx", (unsigned long long)p);

    cl_event u = clCreateUserEvent(ctx, &err), held;
    EXPECT_OK(clEnqueueMarkerWithWaitList(q, 1, &u, &held));
    /* t0 before the thread starts: its 50 ms sleep then lies wholly
     * after t0, however late this thread is scheduled again. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t th;
    pthread_create(&th, NULL, complete_later, u);
    EXPECT_OK(clSetCommandQueueProperty(q, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_FALSE, &old));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_join(th, NULL);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    EXPECT(old == CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, "old properties 0x%llx",
           (unsigned long long)old);
    EXPECT(status_of(held) == CL_COMPLETE && ms >= 49.0,
           "back in order after %.1f ms, the held marker %d", ms, status_of(held));
    EXPECT_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(p), &p, NULL));
    EXPECT(p == 0, "properties 0x%llx", (unsigned long long)p);

    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    REQUIRE(a && b, "buffers: %d", err);
    static cl_uint one[1024], two[1024], got[1024];
    for (int i = 0; i < 1024; i++) {
        one[i] = 0x1000u + (cl_uint)i;
        two[i] = 0x2000u + (cl_uint)i;
    }
    EXPECT_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, 4096, one, 0, NULL, NULL));
    EXPECT_OK(clEnqueueCopyBuffer(q, a, b, 0, 0, 4096, 0, NULL, NULL));
    EXPECT_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, 4096, two, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, 4096, got, 0, NULL, NULL));
    EXPECT(memcmp(got, one, sizeof(one)) == 0, "in-order copy saw the write before it only");
    EXPECT_OK(clReleaseMemObject(a));
    EXPECT_OK(clReleaseMemObject(b));
    EXPECT_OK(clReleaseEvent(held));
    EXPECT_OK(clReleaseEvent(u));
    EXPECT_OK(clReleaseCommandQueue(q));
}

/* A queue and an event the application released whose command still
 * waits: the queue returned by CL_EVENT_COMMAND_QUEUE may be retained and
 * released again (the C++ bindings do), and a release too many of either
 * is refused instead of freeing what the command still uses. */
static void test_released_but_busy(void)
{
    cl_int err;
    cl_command_queue q = plain_queue();
    cl_mem b = clCreateBuffer(ctx, 0, 4096, NULL, &err);
    REQUIRE(b, "buffer: %d", err);
    static uint8_t host[4096];
    cl_event gate = clCreateUserEvent(ctx, &err), ev = NULL;
    REQUIRE(gate, "user event: %d", err);
    EXPECT_OK(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, sizeof(host), host, 1, &gate, &ev));
    EXPECT_OK(clReleaseCommandQueue(q));
    EXPECT_ERR(clReleaseCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
    cl_command_queue back = NULL;
    EXPECT_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof(back), &back, NULL));
    EXPECT(back == q, "the event's queue %p, expected %p", (void *)back, (void *)q);
    for (int i = 0; i < 3; i++) {
        EXPECT_OK(clRetainCommandQueue(back));
        EXPECT_OK(clReleaseCommandQueue(back));
    }
    cl_event extra = ev;
    EXPECT_OK(clRetainEvent(extra));
    EXPECT_OK(clReleaseEvent(extra));
    EXPECT_OK(clReleaseEvent(ev));
    EXPECT_ERR(clReleaseEvent(ev), CL_INVALID_EVENT);
    EXPECT_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    EXPECT_OK(clReleaseEvent(gate));
    /* The write still runs, on a queue the application holds no more. */
    cl_command_queue q2 = plain_queue();
    EXPECT_OK(clFinish(q2));
    uint8_t back_bytes[16];
    EXPECT_OK(clEnqueueReadBuffer(q2, b, CL_TRUE, 0, sizeof(back_bytes), back_bytes, 0, NULL,
                                  NULL));
    EXPECT_OK(clReleaseCommandQueue(q2));
    EXPECT_OK(clReleaseMemObject(b));
}

/* CL_RUNNING on a queue without profiling: a command behind one held by
 * a user event is not running; once that one ended it is, until it
 * completes (seen on the emulated device, where a 256 MiB fill takes a
 * while, unless the polling thread was held back for all of it: three
 * rounds at most; a GPU may finish it between two polls). */
static void test_running_status(void)
{
    cl_int err;
    cl_command_queue q = plain_queue();
    const size_t n = 256u << 20;
    cl_mem b = clCreateBuffer(ctx, 0, n, NULL, &err);
    REQUIRE(b, "buffer: %d", err);
    char name[256] = "";
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(name), name, NULL));
    const bool emulated = strstr(name, "emulated") != NULL;
    bool running = false;
    for (int round = 0; round < (emulated ? 3 : 1) && !running; round++) {
        cl_event gate = clCreateUserEvent(ctx, &err), first = NULL, fill = NULL;
        const cl_uint pattern = 0x5a5a5a5a;
        EXPECT_OK(clEnqueueFillBuffer(q, b, &pattern, 4, 0, 4096, 1, &gate, &first));
        EXPECT_OK(clEnqueueFillBuffer(q, b, &pattern, 4, 0, n, 0, NULL, &fill));
        EXPECT_OK(clFlush(q));
        cl_int st = 0;
        EXPECT_OK(clGetEventInfo(fill, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
        EXPECT(st == CL_SUBMITTED || st == CL_QUEUED, "behind a held command: status %d", st);
        EXPECT_OK(clSetUserEventStatus(gate, CL_COMPLETE));
        cl_int last = CL_SUBMITTED;
        for (;;) {
            EXPECT_OK(clGetEventInfo(fill, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
                                     NULL));
            EXPECT(st <= last, "status went back from %d to %d", last, st);
            last = st;
            running |= st == CL_RUNNING;
            if (st <= CL_COMPLETE)
                break;
        }
        EXPECT(st == CL_COMPLETE, "final status %d", st);
        clReleaseEvent(first);
        clReleaseEvent(fill);
        clReleaseEvent(gate);
    }
    if (emulated)
        EXPECT(running, "a 256 MiB fill was never seen CL_RUNNING, three times");
    clReleaseMemObject(b);
    clReleaseCommandQueue(q);
}

/* A chain of copies alternating between two queues, all behind a user
 * event set at the end: each enqueue flushes the other queue, and with
 * the GPU held at the gate the channels' rings fill. The work beyond
 * waits in the queues (no enqueue stalls, none is lost) and runs once the
 * event is set. */
static void test_full_rings_behind_gate(void)
{
    enum { N = 2600 };
    cl_int err;
    cl_command_queue q[2];
    for (int i = 0; i < 2; i++)
        q[i] = plain_queue();
    cl_mem a = clCreateBuffer(ctx, 0, 4096, NULL, &err), b = clCreateBuffer(ctx, 0, 4096, NULL, &err);
    REQUIRE(a && b, "buffers");
    cl_event start = clCreateUserEvent(ctx, &err), prev = start;
    double slowest = 0;
    for (int i = 0; i < N; i++) {
        cl_event ev = NULL;
        const double t0 = (double)host_ns() / 1e9;
        EXPECT_OK(clEnqueueCopyBuffer(q[i & 1], i & 1 ? a : b, i & 1 ? b : a, 0, 0, 4096, 1, &prev,
                                      &ev));
        const double dt = (double)host_ns() / 1e9 - t0;
        slowest = dt > slowest ? dt : slowest;
        if (prev != start)
            clReleaseEvent(prev);
        prev = ev;
    }
    EXPECT(slowest < 5.0, "an enqueue behind the gate took %.1f s", slowest);
    EXPECT_OK(clSetUserEventStatus(start, CL_COMPLETE));
    EXPECT_OK(clWaitForEvents(1, &prev));
    cl_int st = 1;
    EXPECT_OK(clGetEventInfo(prev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
    EXPECT(st == CL_COMPLETE, "the last copy: status %d", st);
    clReleaseEvent(prev);
    clReleaseEvent(start);
    for (int i = 0; i < 2; i++) {
        EXPECT_OK(clFinish(q[i]));
        clReleaseCommandQueue(q[i]);
    }
    clReleaseMemObject(a);
    clReleaseMemObject(b);
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
    ctx2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(ctx2, "second context: %d", err);

    test_create_errors();
    test_info();
    test_user_events_and_markers();
    test_failed_user_event();
    test_released_but_busy();
    test_running_status();
    test_full_rings_behind_gate();
    test_out_of_order();
    test_out_of_order_gated();
    test_mode_switch();
    test_profiling();
    test_churn();
    test_threads();

    EXPECT_OK(clReleaseContext(ctx2));
    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_queue");
}

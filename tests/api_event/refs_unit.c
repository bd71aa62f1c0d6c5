/*
 * refs_unit.c — white-box: an event's internal references across the
 * application's releases.
 *
 *  - clWaitForEvents holds each event it waits on: another thread may
 *    release it meanwhile ("those ... host threads will continue to wait
 *    for the event status to reach CL_COMPLETE or error, even after the
 *    application has released the object"). The waiter's hold shows in
 *    the internal count, and the wait ends with the event's status.
 *  - An event the application released while its command had not ended
 *    is retained again (as a callback may): the applications' share comes
 *    back, so the next release to 0 takes only that share, and the event
 *    ends and returns to the pool once.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <pthread.h>
#include <time.h>

#include "api/obj.h"
#include "check.h"
#include "unit_setup.h"

struct waiter {
    cl_event ev;
    cl_int ret;
};

static void *wait_main(void *arg)
{
    struct waiter *w = arg;
    w->ret = hcqcl_clWaitForEvents(1, &w->ev);
    return NULL;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Up to 5 s for a thread to be inside hcqcl_event_wait on e. */
static bool await_waiter(cl_event e)
{
    for (int i = 0; i < 5000 && atomic_load(&e->waiters) == 0; i++)
        nap_ms(1);
    return atomic_load(&e->waiters) != 0;
}

/* The tracker and the notifier may hold an event for a moment while they
 * look at it: its internal count, once such references are gone, is the
 * lowest of 20 readings 0.5 ms apart. */
static uint32_t settled_internal(cl_event e)
{
    uint32_t low = UINT32_MAX;
    for (int i = 0; i < 20; i++) {
        const uint32_t v = atomic_load(&e->internal);
        low = v < low ? v : low;
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
    return low;
}

/* Up to 2 s for e's internal count to read want; the last reading. */
static uint32_t internal_becomes(cl_event e, uint32_t want)
{
    uint32_t v = atomic_load(&e->internal);
    for (int i = 0; i < 2000 && v != want; i++) {
        nap_ms(1);
        v = atomic_load(&e->internal);
    }
    return v;
}

/* A marker behind a new user event (*u): pending until u is set. */
static cl_event pending_marker(cl_context ctx, cl_command_queue q, cl_event *u)
{
    cl_int err;
    *u = hcqcl_clCreateUserEvent(ctx, &err);
    REQUIRE(*u && err == CL_SUCCESS, "user event: %d", err);
    cl_event m = NULL;
    REQUIRE(hcqcl_clEnqueueMarkerWithWaitList(q, 1, u, &m) == CL_SUCCESS && m, "marker");
    return m;
}

static void check_wait_holds(cl_context ctx, cl_command_queue q)
{
    /* A marker behind a user event, waited on by a thread and released
     * by this one before the user event is set. */
    cl_event u;
    cl_event m = pending_marker(ctx, q, &u);
    const uint32_t before = settled_internal(m);
    struct waiter w = {.ev = m, .ret = 1};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, wait_main, &w) == 0, "thread");
    EXPECT(await_waiter(m), "the thread is not waiting on the marker");
    EXPECT(internal_becomes(m, before + 1) == before + 1, "a waiter holds the event (%u, was %u)",
           atomic_load(&m->internal), before);
    EXPECT(hcqcl_clReleaseEvent(m) == CL_SUCCESS, "release while waited on");
    EXPECT(internal_becomes(m, before) == before, "the release took the application's share only");
    EXPECT(hcqcl_clSetUserEventStatus(u, CL_COMPLETE) == CL_SUCCESS, "set");
    pthread_join(t, NULL);
    EXPECT(w.ret == CL_SUCCESS, "the wait ended with %d", w.ret);
    hcqcl_clFinish(q);
    hcqcl_clReleaseEvent(u);
}

static void check_retain_after_release(cl_context ctx, cl_command_queue q)
{
    cl_event u;
    cl_event m = pending_marker(ctx, q, &u);
    const uint32_t held = settled_internal(m);
    EXPECT(held >= 2, "a pending command's event has the tracker's share too (%u)", held);
    EXPECT(hcqcl_clReleaseEvent(m) == CL_SUCCESS, "release to 0");
    EXPECT(atomic_load(&m->obj.refs) == 0 && internal_becomes(m, held - 1) == held - 1,
           "refs %u, internal %u", atomic_load(&m->obj.refs), atomic_load(&m->internal));
    /* Still an event while its command is pending: taken back. */
    EXPECT(hcqcl_clRetainEvent(m) == CL_SUCCESS, "retain from 0");
    EXPECT(internal_becomes(m, held) == held, "the applications' share came back (%u, want %u)",
           atomic_load(&m->internal), held);
    EXPECT(hcqcl_clReleaseEvent(m) == CL_SUCCESS, "release to 0 again");
    EXPECT(internal_becomes(m, held - 1) == held - 1, "one share dropped (%u)",
           atomic_load(&m->internal));
    EXPECT(hcqcl_event_valid(m), "the pending command's event is still there");
    EXPECT(hcqcl_clSetUserEventStatus(u, CL_COMPLETE) == CL_SUCCESS, "set");
    hcqcl_clFinish(q);
    hcqcl_clReleaseEvent(u);
}

int main(void)
{
    cl_uint n = 0;
    cl_device_id *devs = unit_devices(&n);
    cl_context ctx = unit_context(1, devs);
    cl_command_queue q = unit_queue(ctx, devs[0]);
    check_wait_holds(ctx, q);
    check_retain_after_release(ctx, q);
    hcqcl_clReleaseCommandQueue(q);
    hcqcl_clReleaseContext(ctx);
    return check_done("api_event_refs");
}

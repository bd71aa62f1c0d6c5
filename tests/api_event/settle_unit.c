/*
 * settle_unit.c — white-box: a command recorded behind a user event
 * waits on the host (host_wait) until the event is set; once the tracker
 * decided it to run, what depends on it waits for it on the GPU again
 * (hcqcl_event_settled), not behind a gate of its own.
 *
 * The event notifier is parked in a callback throughout, so that the only
 * tracker passes are those these calls make, and the command decided to
 * run stays in phase GPU (no pass saw it end) while the next ones are
 * enqueued:
 *  - a command of the same queue waiting on it is not gated, does not wait
 *    on the host itself, and the channel is not blocked any more;
 *  - a command of another queue waiting on it is not gated either (it
 *    still counts as waiting on the host: an inline wait there could be
 *    for work another thread has yet to submit);
 *  - before the event is set, the same wait gates the command.
 * The fills' values then show the order they ran in.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdatomic.h>

#include "api/obj.h"
#include "check.h"
#include "park.h"
#include "unit_setup.h"

enum { N = 1024 };

static cl_mem buffer(cl_context ctx)
{
    cl_int err;
    cl_mem m = hcqcl_clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    REQUIRE(m, "buffer: %d", err);
    return m;
}

static cl_event fill(cl_command_queue q, cl_mem m, float v, cl_event after)
{
    cl_event e = NULL;
    REQUIRE(hcqcl_clEnqueueFillBuffer(q, m, &v, sizeof(v), 0, N * 4, after ? 1 : 0,
                                      after ? &after : NULL, &e) == CL_SUCCESS,
            "fill");
    return e;
}

static bool any_blocked(cl_command_queue q)
{
    for (unsigned e = 0; e < 2; e++)
        for (unsigned i = 0; i < HCQCL_QUEUE_CHANS; i++)
            if (q->chans[e][i].hq && hcqcl_chan_blocked(&q->chans[e][i]))
                return true;
    return false;
}


int main(void)
{
    cl_uint n = 0;
    cl_device_id *devs = unit_devices(&n);
    cl_context ctx = unit_context(1, devs);
    cl_command_queue q = unit_queue(ctx, devs[0]), q2 = unit_queue(ctx, devs[0]);
    cl_int err;
    cl_mem x = buffer(ctx), y = buffer(ctx), z = buffer(ctx);
    unit_park_notifier(ctx);

    cl_event u = hcqcl_clCreateUserEvent(ctx, &err);
    REQUIRE(u, "user event: %d", err);
    cl_event d = fill(q, x, 1.0f, u);
    EXPECT(atomic_load(&d->phase) == HCQCL_PH_GATED && d->host_wait, "behind the user event");
    /* Before the event is set, a wait on d gates. */
    cl_event early = fill(q2, z, 5.0f, d);
    EXPECT(atomic_load(&early->phase) == HCQCL_PH_GATED, "a wait on an undecided command gates");
    EXPECT(atomic_load(&d->gates_others), "it gates on d");

    /* One pass: d is decided and submitted. */
    EXPECT(unit_set_and_pass(u, d), "decided in the pass");
    const int ph = atomic_load(&d->phase);
    EXPECT(ph == HCQCL_PH_GPU, "d is on the GPU, no pass saw it end (phase %d)", ph);
    atomic_store(&d->gates_others, false);

    /* The other queue's first: the enqueue on d's own queue settles what
     * of its channel the GPU finished, d among them. */
    cl_event other = fill(q2, y, 3.0f, d);
    EXPECT(other->host_wait, "another queue's command may not wait inline for d");
    cl_event same = fill(q, x, 2.0f, d);
    EXPECT(!same->host_wait, "a command of d's queue waits on the host through d");
    EXPECT(!any_blocked(q), "d's channel still counts as blocked");
    EXPECT(!atomic_load(&d->gates_others), "a command waiting on d was gated");

    atomic_store(&parked, 2);
    cl_event all[] = {d, early, same, other};
    EXPECT(hcqcl_clWaitForEvents(4, all) == CL_SUCCESS, "wait");
    unit_check_floats(q, x, N, 2.0f, "x, d then the fill after it");
    unit_check_floats(q2, y, N, 3.0f, "y");
    unit_check_floats(q2, z, N, 5.0f, "z");
    for (unsigned i = 0; i < 4; i++)
        hcqcl_clReleaseEvent(all[i]);
    hcqcl_clReleaseEvent(u);
    hcqcl_clReleaseMemObject(x);
    hcqcl_clReleaseMemObject(y);
    hcqcl_clReleaseMemObject(z);
    hcqcl_clReleaseCommandQueue(q);
    hcqcl_clReleaseCommandQueue(q2);
    hcqcl_clReleaseContext(ctx);
    return check_done("api_event_settle");
}

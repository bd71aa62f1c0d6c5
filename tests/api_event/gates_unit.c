/*
 * gates_unit.c — white-box: a chain of commands behind one user event,
 * each waiting on the one before, goes to the GPU in one submission once
 * the event is set: the tracker decides the gates of a queue in one pass
 * and flushes the queue once, after its last (run_acts, event.c), and the
 * decided spans go as one GP entry where they follow one another in the
 * pushbuffer (core/queue.c). The event notifier is parked in a callback,
 * so the only tracker pass is the one the status query makes. The fills'
 * last value shows the chain ran whole, in order.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdatomic.h>

#include "api/obj.h"
#include "core/priv.h"
#include "check.h"
#include "park.h"
#include "unit_setup.h"

enum { N = 256, CHAIN = 24 };

/* GP entries the queue's channels were given so far. */
static uint64_t entries(cl_command_queue q)
{
    uint64_t n = 0;
    for (unsigned e = 0; e < 2; e++)
        for (unsigned i = 0; i < HCQCL_QUEUE_CHANS; i++)
            if (q->chans[e][i].hq)
                n += q->chans[e][i].hq->put;
    return n;
}

int main(void)
{
    cl_uint n = 0;
    cl_device_id *devs = unit_devices(&n);
    cl_context ctx = unit_context(1, devs);
    cl_command_queue q = unit_queue(ctx, devs[0]);
    cl_int err;
    cl_mem x = hcqcl_clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    REQUIRE(x, "buffer: %d", err);

    unit_park_notifier(ctx);

    cl_event u = hcqcl_clCreateUserEvent(ctx, &err), prev = u;
    REQUIRE(u, "user event: %d", err);
    for (int i = 0; i < CHAIN; i++) {
        const float v = (float)(i + 1);
        cl_event e = NULL;
        REQUIRE(hcqcl_clEnqueueFillBuffer(q, x, &v, sizeof(v), 0, N * 4, 1, &prev, &e) ==
                    CL_SUCCESS,
                "fill %d", i);
        EXPECT(atomic_load(&e->phase) == HCQCL_PH_GATED, "fill %d is not gated", i);
        if (prev != u)
            hcqcl_clReleaseEvent(prev);
        prev = e;
    }
    REQUIRE(hcqcl_clFlush(q) == CL_SUCCESS, "flush");
    const uint64_t before = entries(q);

    EXPECT(unit_set_and_pass(u, prev), "the chain's last fill was not decided in the pass");
    const uint64_t given = entries(q) - before;
    EXPECT(given >= 1 && given <= 2, "%d gated fills went as %llu GP entries", CHAIN,
           (unsigned long long)given);

    atomic_store(&parked, 2);
    EXPECT(hcqcl_clWaitForEvents(1, &prev) == CL_SUCCESS, "wait");
    unit_check_floats(q, x, N, (float)CHAIN, "x, the chain's last fill");

    hcqcl_clReleaseEvent(prev);
    hcqcl_clReleaseEvent(u);
    hcqcl_clReleaseMemObject(x);
    hcqcl_clReleaseCommandQueue(q);
    hcqcl_clReleaseContext(ctx);
    return check_done("api_event_gates");
}

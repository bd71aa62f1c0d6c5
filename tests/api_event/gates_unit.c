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
#include <unistd.h>

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

    cl_event u0 = hcqcl_clCreateUserEvent(ctx, &err);
    REQUIRE(u0, "user event: %d", err);
    REQUIRE(hcqcl_clSetEventCallback(u0, CL_COMPLETE, park, NULL) == CL_SUCCESS, "callback");
    REQUIRE(hcqcl_clSetUserEventStatus(u0, CL_COMPLETE) == CL_SUCCESS, "set");
    for (int i = 0; i < 10000 && !atomic_load(&parked); i++)
        usleep(1000);
    REQUIRE(atomic_load(&parked) == 1, "the notifier did not run the callback");
    hcqcl_clReleaseEvent(u0);

    cl_event u = hcqcl_clCreateUserEvent(ctx, &err), prev = u;
    REQUIRE(u, "user event: %d", err);
    for (int i = 0; i < CHAIN; i++) {
        const uint32_t v = (uint32_t)i + 1;
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

    EXPECT(hcqcl_clSetUserEventStatus(u, CL_COMPLETE) == CL_SUCCESS, "set");
    cl_int st = 0;
    EXPECT(hcqcl_clGetEventInfo(prev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) ==
               CL_SUCCESS,
           "status");
    EXPECT(atomic_load(&prev->decided), "the chain's last fill was not decided in the pass");
    const uint64_t given = entries(q) - before;
    EXPECT(given >= 1 && given <= 2, "%d gated fills went as %llu GP entries", CHAIN,
           (unsigned long long)given);

    atomic_store(&parked, 2);
    EXPECT(hcqcl_clWaitForEvents(1, &prev) == CL_SUCCESS, "wait");
    static uint32_t h[N];
    REQUIRE(hcqcl_clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * 4, h, 0, NULL, NULL) == CL_SUCCESS,
            "read");
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += h[i] != CHAIN;
    EXPECT(bad == 0, "%d values off (first %u, want %d)", bad, h[0], CHAIN);

    hcqcl_clReleaseEvent(prev);
    hcqcl_clReleaseEvent(u);
    hcqcl_clReleaseMemObject(x);
    hcqcl_clReleaseCommandQueue(q);
    hcqcl_clReleaseContext(ctx);
    return check_done("api_event_gates");
}

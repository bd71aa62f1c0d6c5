/*
 * ordered_unit.c — white-box: a gated command whose wait for another
 * channel's command is ordered after its own channel's last grid already
 * records no wait of its own for that grid (command.c, waited_for).
 *
 * - A chain behind a user event alternating between two queues, each
 *   fill (a grid: the built-in fill kernel) waiting for the one before:
 *   from the third on, no span waits for its own channel's timeline. The
 *   command it waits for waited, inside its own hold, for the value this
 *   channel's last grid releases.
 * - Such a wait inside a hold ran only if that command ran. A command
 *   that depends on it only by order (the in-order queue's previous
 *   command, on the copy channel) runs even when it is dropped, so it
 *   keeps the wait for its own grid; one whose wait list names it is
 *   dropped with it and needs none. Failing the user event shows both:
 *   the first fill, then the one that runs anyway.
 * - An ungated command waiting for another channel's waits for its own
 *   channel's last grid first.
 *   Set at once, they are decided in one pass, and the first fill's QMD
 *   heads a chain of all of them across the two queues (link_across).
 * - The same gated chain on one queue: each span waits for the grid of
 *   the one before, and set at once they are decided in one pass, so
 *   each later span's launch is scheduled by the QMD before (span_link).
 * The fills' values show the order the GPU kept.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <sched.h>
#include <stdatomic.h>

#include "api/obj.h"
#include "core/priv.h"
#include "check.h"
#include "pb_words.h"
#include "unit_setup.h"

/* 1 MiB: fills of it are grids. LONG: more gates than one tracker pass
 * takes (event.c, 128 actions), decided over several passes and still
 * flushed, and linked, as one chain. */
enum { N = 1 << 18, CHAIN = 8, LONG = 300 };

static cl_mem buffer(cl_context ctx, size_t bytes)
{
    cl_int err;
    cl_mem m = hcqcl_clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    REQUIRE(m, "buffer: %d", err);
    return m;
}

static cl_event fill(cl_command_queue q, cl_mem m, size_t bytes, float v, cl_uint nw,
                     const cl_event *wl)
{
    cl_event e = NULL;
    REQUIRE(hcqcl_clEnqueueFillBuffer(q, m, &v, sizeof(v), 0, bytes, nw, wl, &e) == CL_SUCCESS,
            "fill");
    return e;
}

/* Acquires of the channel's own timeline in the span of e's hold (held
 * back: the span is still pending, in the pushbuffer). */
static unsigned own_acquires(cl_event e)
{
    struct hcq_queue *hq = e->q->chans[HCQ_ENGINE_COMPUTE][0].hq;
    const struct hcq_hold *h = e->hold;
    REQUIRE(hq && h && h->ended && e->gpu_sig == hq->timeline, "a held fill of the queue");
    unsigned n = 0;
    for (unsigned i = h->start; i < h->end; i++) {
        const uint64_t gp = hq->pending_gp[i];
        const uint32_t *p = (const uint32_t *)(hq->pb.cpu + (nv_gp_entry_va(gp) - hq->pb.va));
        const uint32_t len = nv_gp_entry_length(gp);
        uint64_t va, value;
        for (uint32_t k = 0; k + 5 < len; k++)
            n += test_acquire_words(p + k, &va, &value) && va == hq->timeline->va;
    }
    return n;
}

/* A link count the core writes under its queue's lock. */
static uint64_t ld(const uint64_t *count) { return __atomic_load_n(count, __ATOMIC_RELAXED); }

/* Set u, then give the tracker up to 5 s to link `want` spans (*count,
 * rising) before this thread waits. A wait submits its queue's work as far
 * as it was decided then (hcqcl_queue_flush): part of a chain the tracker
 * (the notifier, say) is still deciding, or the chain's second queue
 * before its first, whose chain then starts behind a blocked acquire on
 * the second (docs/status.md). */
static void set_and_link(cl_event u, const uint64_t *count, uint64_t want)
{
    REQUIRE(hcqcl_clSetUserEventStatus(u, CL_COMPLETE) == CL_SUCCESS, "set");
    const uint64_t t0 = util_now_ns();
    while (ld(count) < want && util_now_ns() - t0 < 5000000000ull)
        sched_yield();
}

static void chain(cl_context ctx, cl_command_queue a, cl_command_queue b, int len)
{
    cl_int err;
    cl_mem x = buffer(ctx, N * 4), y = buffer(ctx, N * 4);
    /* Each queue's work before the chain is done by the time it starts:
     * the chain may then begin on either queue (link_across). */
    for (int i = 0; i < 2; i++) {
        cl_event e = fill(i ? b : a, i ? y : x, N * 4, 0.0f, 0, NULL);
        REQUIRE(hcqcl_clWaitForEvents(1, &e) == CL_SUCCESS, "warm-up fill");
        hcqcl_clReleaseEvent(e);
    }
    cl_event u = hcqcl_clCreateUserEvent(ctx, &err), prev = u, ev[LONG];
    REQUIRE(u, "user event: %d", err);
    for (int i = 0; i < len; i++) {
        ev[i] = fill(i & 1 ? b : a, i & 1 ? y : x, N * 4, (float)(i + 1), 1, &prev);
        EXPECT(atomic_load(&ev[i]->phase) == HCQCL_PH_GATED, "fill %d is not gated", i);
        prev = ev[i];
    }
    for (int i = 0; i < len; i++) {
        const unsigned n = own_acquires(ev[i]);
        /* The first of each queue follows a grid the other queue's
         * command did not wait for (or none). */
        if (i >= 2)
            EXPECT(n == 0, "fill %d waits for its own channel's grid (%u acquires)", i, n);
    }
    struct hcq_queue *ha = a->chans[HCQ_ENGINE_COMPUTE][0].hq,
                     *hb = b->chans[HCQ_ENGINE_COMPUTE][0].hq;
    for (int i = 1; i < len; i++)
        EXPECT(ev[i]->hold->x_va == ev[i - 1]->gpu_sig->va && ev[i]->hold->first_qmd,
               "fill %d: a wait for fill %d, then its launch", i, i - 1);
    const uint64_t links = ld(&ha->spans_linked_across) + ld(&hb->spans_linked_across);
    /* Queue a holds the chain's head: its settle links the rest. */
    set_and_link(u, &ha->spans_linked_across, ld(&ha->spans_linked_across) + (uint64_t)len - 1);
    EXPECT(hcqcl_clWaitForEvents(1, &ev[len - 1]) == CL_SUCCESS, "wait");
    /* Decided before the first flush: the first fill's QMD heads a chain
     * of them all (queue.c, link_across). */
    const uint64_t linked = ld(&ha->spans_linked_across) + ld(&hb->spans_linked_across) - links;
    EXPECT(linked == (uint64_t)len - 1, "%llu spans linked across the queues, want %d",
           (unsigned long long)linked, len - 1);
    unit_check_floats(a, x, N, (float)(len - 1), "x, the chain's last on a");
    unit_check_floats(b, y, N, (float)len, "y, the chain's last on b");
    for (int i = 0; i < len; i++)
        hcqcl_clReleaseEvent(ev[i]);
    hcqcl_clReleaseEvent(u);
    hcqcl_clReleaseMemObject(x);
    hcqcl_clReleaseMemObject(y);
}

static void one_queue(cl_context ctx, cl_command_queue q, int len)
{
    cl_int err;
    cl_mem x = buffer(ctx, N * 4);
    cl_event u = hcqcl_clCreateUserEvent(ctx, &err), prev = u, ev[LONG];
    REQUIRE(u, "user event: %d", err);
    for (int i = 0; i < len; i++) {
        ev[i] = fill(q, x, N * 4, (float)(i + 1), 1, &prev);
        prev = ev[i];
    }
    struct hcq_queue *hq = q->chans[HCQ_ENGINE_COMPUTE][0].hq;
    for (int i = 1; i < len; i++)
        EXPECT(own_acquires(ev[i]) == 1 && ev[i]->hold->first_qmd,
               "fill %d: one wait for the grid before, then its launch", i);
    const uint64_t links = ld(&hq->spans_linked);
    set_and_link(u, &hq->spans_linked, links + (uint64_t)len - 1);
    EXPECT(hcqcl_clWaitForEvents(1, &ev[len - 1]) == CL_SUCCESS, "wait");
    EXPECT(ld(&hq->spans_linked) - links == (uint64_t)len - 1, "%llu spans linked, want %d",
           (unsigned long long)(ld(&hq->spans_linked) - links), len - 1);
    unit_check_floats(q, x, N, (float)len, "x, the chain's last");
    for (int i = 0; i < len; i++)
        hcqcl_clReleaseEvent(ev[i]);
    hcqcl_clReleaseEvent(u);
    hcqcl_clReleaseMemObject(x);
}

/* The acquires recorded on hq's pushbuffer from offset `from` to its
 * head: up to max of them, their semaphore addresses and values. */
static unsigned acquires_since(struct hcq_queue *hq, uint64_t from, uint64_t *va,
                               uint64_t *val, unsigned max)
{
    unsigned n = 0;
    for (uint64_t at = from; at + 24 <= hq->pb.head && n < max; at += 4)
        n += test_acquire_words((const uint32_t *)(hq->pb.cpu + hcq_arena_off(&hq->pb, at)),
                                &va[n], &val[n]);
    return n;
}

/* A command waiting for another channel's waits for its own channel's
 * last grid first (held back here, behind a user event, so that it is
 * still open), then for the other channel. k1 is not held: where it was
 * seen done before k2 was recorded (the thread held back that long), k2
 * waits for nothing of it, and the round is made again, three at most. */
static void own_first(cl_context ctx, cl_command_queue q, cl_command_queue q2)
{
    cl_int err;
    cl_mem x = buffer(ctx, N * 4), y = buffer(ctx, N * 4);
    bool seen = false;
    for (int t = 0; t < 3 && !seen; t++) {
        cl_event u = hcqcl_clCreateUserEvent(ctx, &err);
        REQUIRE(u, "user event: %d", err);
        cl_event k0 = fill(q2, y, N * 4, 1.0f, 1, &u);
        cl_event k1 = fill(q, x, N * 4, 2.0f, 0, NULL);
        struct hcq_queue *hq = q2->chans[HCQ_ENGINE_COMPUTE][0].hq;
        const uint64_t from = hq->pb.head;
        cl_event k2 = fill(q2, y, N * 4, 3.0f, 1, &k1);
        for (size_t i = 0; i < k2->ndeps; i++)
            seen |= k2->deps[i] == k1;
        EXPECT(atomic_load(&k2->phase) != HCQCL_PH_GATED, "k2 is gated");
        uint64_t va[4], val[4];
        const unsigned n = acquires_since(hq, from, va, val, 4);
        EXPECT(!seen || (n == 2 && va[0] == hq->timeline->va && val[0] == k0->val &&
                         va[1] == k1->sig->va && val[1] == k1->val),
               "k2's waits: %u, the first for %#llx >= %llu", n,
               n ? (unsigned long long)va[0] : 0, n ? (unsigned long long)val[0] : 0);
        REQUIRE(hcqcl_clSetUserEventStatus(u, CL_COMPLETE) == CL_SUCCESS, "set");
        EXPECT(hcqcl_clWaitForEvents(1, &k2) == CL_SUCCESS, "wait");
        unit_check_floats(q2, y, N, 3.0f, "y, k0 then k2");
        unit_check_floats(q, x, N, 2.0f, "x");
        hcqcl_clReleaseEvent(k0);
        hcqcl_clReleaseEvent(k1);
        hcqcl_clReleaseEvent(k2);
        hcqcl_clReleaseEvent(u);
    }
    EXPECT(seen, "k1 was done before k2 was recorded, three times");
    hcqcl_clReleaseMemObject(x);
    hcqcl_clReleaseMemObject(y);
}

/* k0: a fill of x on q's compute channel behind u; d: a small fill on
 * its copy channel behind u too, after k0 by order (an inside-hold wait
 * for k0's value); c: a fill of x on the compute channel after d, named
 * in its wait list (named) or by order only. */
static void by_order(cl_context ctx, cl_command_queue q, bool named, bool fail)
{
    cl_int err;
    cl_mem x = buffer(ctx, N * 4), small = buffer(ctx, 64);
    cl_event u = hcqcl_clCreateUserEvent(ctx, &err);
    REQUIRE(u, "user event: %d", err);
    cl_event k0 = fill(q, x, N * 4, 1.0f, 0, NULL);
    REQUIRE(hcqcl_clWaitForEvents(1, &k0) == CL_SUCCESS, "k0");
    hcqcl_clReleaseEvent(k0);
    k0 = fill(q, x, N * 4, 2.0f, 1, &u);
    cl_event d = fill(q, small, 64, 3.0f, 1, &u);
    REQUIRE(d->gpu_sig != k0->gpu_sig, "the small fill went to the copy channel");
    EXPECT(atomic_load(&d->phase) == HCQCL_PH_GATED && d->waited_held == 1,
           "d waited for k0 inside its hold (%#x)", d->waited_held);
    cl_event c = fill(q, x, N * 4, 4.0f, named ? 1 : 0, named ? &d : NULL);
    const unsigned n = own_acquires(c);
    EXPECT(n == (named ? 0u : 1u), "%s: %u acquires of its own channel's grid",
           named ? "named" : "by order", n);
    REQUIRE(hcqcl_clSetUserEventStatus(u, fail ? -1 : CL_COMPLETE) == CL_SUCCESS, "set");
    hcqcl_clWaitForEvents(1, &c); /* fails when c was terminated */
    /* Failed: k0 and d dropped; c with them when it named d. */
    const float want = fail ? (named ? 1.0f : 4.0f) : 4.0f;
    unit_check_floats(q, x, N, want, named ? "x, c named d" : "x, c after d by order");
    hcqcl_clReleaseEvent(k0);
    hcqcl_clReleaseEvent(d);
    hcqcl_clReleaseEvent(c);
    hcqcl_clReleaseEvent(u);
    hcqcl_clReleaseMemObject(x);
    hcqcl_clReleaseMemObject(small);
}

int main(void)
{
    cl_uint n = 0;
    cl_device_id *devs = unit_devices(&n);
    cl_context ctx = unit_context(1, devs);
    cl_command_queue q = unit_queue(ctx, devs[0]), q2 = unit_queue(ctx, devs[0]);
    chain(ctx, q, q2, CHAIN);
    one_queue(ctx, q, CHAIN);
    chain(ctx, q, q2, LONG);
    one_queue(ctx, q, LONG);
    own_first(ctx, q, q2);
    for (int named = 0; named < 2; named++)
        for (int fail = 0; fail < 2; fail++)
            by_order(ctx, q, named, fail);
    hcqcl_clReleaseCommandQueue(q);
    hcqcl_clReleaseCommandQueue(q2);
    hcqcl_clReleaseContext(ctx);
    return check_done("api_event_ordered");
}

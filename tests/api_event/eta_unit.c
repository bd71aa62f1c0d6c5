/*
 * eta_unit.c — white-box: transfers get an expected end from the rate
 * their device has shown (command.c, hcqcl_cmd_expect), and waits that use
 * it still see every transfer end with the right bytes.
 *
 *  - A blocking pinned write on an idle channel teaches the device its
 *    host->device rate; the next one carries an expected end between its
 *    start and what the rate predicts.
 *  - Device->device copies queued back to back from an idle channel form a
 *    chain: a wait for the last alone teaches the rate, and once it is
 *    known each expected end is later than the one before.
 *  - A kernel before a copy on the same channel makes the copy's start
 *    unknown: no expected end, and the wait is the usual one.
 *  - A write behind a command whose end waits for a host hook (an SVM
 *    free with a callback still running) has no expected end either,
 *    though its channel is idle.
 *  - Transfers under the size limit get none.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"
#include "check.h"
#include "unit_setup.h"

enum { BIG = 16 << 20, SMALL = 1 << 20 };

static void check_pinned(cl_context ctx, cl_command_queue q, cl_device_id dev)
{
    cl_int err;
    cl_mem pin = hcqcl_clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, BIG, NULL, &err);
    cl_mem d = hcqcl_clCreateBuffer(ctx, 0, BIG, NULL, &err);
    EXPECT(pin && d, "buffers: %d", err);
    uint8_t *p = hcqcl_clEnqueueMapBuffer(q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, BIG, 0,
                                          NULL, NULL, &err);
    EXPECT(p && err == CL_SUCCESS, "map: %d", err);
    for (size_t i = 0; i < BIG; i++)
        p[i] = (uint8_t)(i * 7 + 3);
    EXPECT(atomic_load(&dev->rate[HCQCL_RATE_H2D]) == 0, "no rate before any transfer");
    cl_event e1 = NULL, e2 = NULL;
    EXPECT(hcqcl_clEnqueueWriteBuffer(q, d, CL_TRUE, 0, BIG, p, 0, NULL, &e1) == CL_SUCCESS,
           "first write");
    EXPECT(e1 && e1->eta_learn && e1->eta_bytes == BIG && e1->eta_ns == 0,
           "first write: rate unknown, started idle (learn %d, bytes %llu, eta %llu)",
           e1 ? e1->eta_learn : -1, e1 ? (unsigned long long)e1->eta_bytes : 0ull,
           e1 ? (unsigned long long)e1->eta_ns : 0ull);
    uint64_t rate = atomic_load(&dev->rate[HCQCL_RATE_H2D]);
    /* A wait that starts after its transfer ended (the thread was held
     * back that long) teaches nothing: two more writes at most. */
    for (int t = 0; t < 2 && !rate; t++) {
        EXPECT(hcqcl_clEnqueueWriteBuffer(q, d, CL_TRUE, 0, BIG, p, 0, NULL, NULL) ==
                   CL_SUCCESS,
               "write again");
        rate = atomic_load(&dev->rate[HCQCL_RATE_H2D]);
    }
    EXPECT(rate > 0, "a blocking write taught the rate");
    EXPECT(hcqcl_clEnqueueWriteBuffer(q, d, CL_TRUE, 0, BIG, p, 0, NULL, &e2) == CL_SUCCESS,
           "second write");
    if (e2 && rate) {
        uint64_t predict = (uint64_t)BIG * 1000u / rate;
        EXPECT(e2->eta_ns > e2->eta_start && e2->eta_ns - e2->eta_start <= predict,
               "second write: expected end within the prediction (%llu ns after its start, "
               "predicted %llu)",
               (unsigned long long)(e2->eta_ns - e2->eta_start), (unsigned long long)predict);
    }
    /* What was measured moved the bytes: read back through the device. */
    memset(p, 0, BIG);
    EXPECT(hcqcl_clEnqueueReadBuffer(q, d, CL_TRUE, 0, BIG, p, 0, NULL, NULL) == CL_SUCCESS,
           "read back");
    size_t bad = 0;
    for (size_t i = 0; i < BIG; i++)
        bad += p[i] != (uint8_t)(i * 7 + 3);
    EXPECT(bad == 0, "%zu bytes differ after the round trip", bad);
    /* As the writes: a wait that starts after its read ended teaches
     * nothing; two more reads at most. */
    for (int t = 0; t < 2 && !atomic_load(&dev->rate[HCQCL_RATE_D2H]); t++)
        EXPECT(hcqcl_clEnqueueReadBuffer(q, d, CL_TRUE, 0, BIG, p, 0, NULL, NULL) ==
                   CL_SUCCESS,
               "read again");
    EXPECT(atomic_load(&dev->rate[HCQCL_RATE_D2H]) > 0, "the read taught its rate");

    cl_event es = NULL;
    EXPECT(hcqcl_clEnqueueWriteBuffer(q, d, CL_TRUE, 0, SMALL, p, 0, NULL, &es) == CL_SUCCESS,
           "small write");
    EXPECT(es && es->eta_bytes == 0 && es->eta_ns == 0, "a small transfer has no expected end");
    hcqcl_clEnqueueUnmapMemObject(q, pin, p, 0, NULL, NULL);
    hcqcl_clFinish(q);
    hcqcl_clReleaseEvent(e1);
    hcqcl_clReleaseEvent(e2);
    hcqcl_clReleaseEvent(es);
    hcqcl_clReleaseMemObject(pin);
    hcqcl_clReleaseMemObject(d);
}

static void check_chain(cl_context ctx, cl_command_queue q, cl_device_id dev)
{
    cl_int err;
    cl_mem a = hcqcl_clCreateBuffer(ctx, 0, BIG, NULL, &err);
    cl_mem b = hcqcl_clCreateBuffer(ctx, 0, BIG, NULL, &err);
    EXPECT(a && b, "buffers: %d", err);
    const uint32_t pat = 0x5eed1234u;
    EXPECT(hcqcl_clEnqueueFillBuffer(q, a, &pat, 4, 0, BIG, 0, NULL, NULL) == CL_SUCCESS, "fill");
    hcqcl_clFinish(q);
    /* Three copies back to back from an idle channel, and a wait for the
     * last alone: the chain teaches the device->device rate. (A copy
     * that finds the channel idle starts a chain of its own.) */
    EXPECT(atomic_load(&dev->rate[HCQCL_RATE_D2D]) == 0, "no rate before any copy");
    /* A copy takes milliseconds here, an enqueue microseconds: the second
     * and third join the first one's chain, and the wait teaches the
     * rate, unless the thread is held back past a copy; then again, three
     * tries at most. */
    uint64_t chained = 0, rate = 0;
    for (int t = 0; t < 3 && (chained <= BIG || !rate); t++) {
        hcqcl_clFinish(q);
        cl_event first[3] = {0};
        for (int i = 0; i < 3; i++)
            EXPECT(hcqcl_clEnqueueCopyBuffer(q, a, b, 0, 0, BIG, 0, NULL, &first[i]) ==
                       CL_SUCCESS,
                   "copy %d", i);
        for (int i = 0; i < 3; i++) {
            EXPECT(first[i] && (t || (first[i]->eta_learn && first[i]->eta_ns == 0)),
                   "copy %d: rate unknown, in a chain from an idle channel", i);
            if (!i || !first[i] || !first[i - 1])
                continue;
            bool same = first[i]->eta_start == first[i - 1]->eta_start;
            EXPECT(first[i]->eta_bytes == (same ? first[i - 1]->eta_bytes + BIG : (uint64_t)BIG),
                   "copy %d: %llu bytes in its chain", i, (unsigned long long)first[i]->eta_bytes);
        }
        chained = first[2] ? first[2]->eta_bytes : 0;
        EXPECT(hcqcl_clWaitForEvents(1, &first[2]) == CL_SUCCESS, "wait for the last");
        rate = atomic_load(&dev->rate[HCQCL_RATE_D2D]);
        for (int i = 0; i < 3; i++)
            hcqcl_clReleaseEvent(first[i]);
    }
    EXPECT(chained > BIG, "the copies formed a chain (%llu bytes)", (unsigned long long)chained);
    EXPECT(rate > 0, "device->device rate learned");

    cl_event ev[4] = {0};
    for (int i = 0; i < 4; i++)
        EXPECT(hcqcl_clEnqueueCopyBuffer(q, i % 2 ? b : a, i % 2 ? a : b, 0, 0, BIG, 0, NULL,
                                         &ev[i]) == CL_SUCCESS,
               "copy %d", i);
    /* An expected end already behind the clock when a copy is recorded
     * (the host stalled) is none: 0. Every other one is later than the
     * one before, and the first has one. */
    EXPECT(ev[0] && ev[0]->eta_ns, "the first copy has an expected end");
    uint64_t last = ev[0] ? ev[0]->eta_ns : 0;
    for (int i = 1; i < 4; i++) {
        EXPECT(ev[i] && ev[i - 1] && ev[i]->eta_start >= ev[i - 1]->eta_start &&
                   (!ev[i]->eta_ns || ev[i]->eta_ns > last),
               "copy %d expected after the copies before (%llu, %llu)", i,
               ev[i] ? (unsigned long long)ev[i]->eta_ns : 0ull, (unsigned long long)last);
        if (ev[i] && ev[i]->eta_ns)
            last = ev[i]->eta_ns;
    }
    EXPECT(hcqcl_clWaitForEvents(4, ev) == CL_SUCCESS, "wait for the chain");
    for (int i = 0; i < 4; i++)
        hcqcl_clReleaseEvent(ev[i]);

    /* A fill (no expected length) before the copy on its channel: the
     * copy's start is not known. A user event holds the fill back, so
     * that it cannot have ended (the channel idle again) before the copy
     * is recorded, however fast the device. */
    cl_event after = NULL;
    cl_event gate = hcqcl_clCreateUserEvent(ctx, &err);
    EXPECT(gate && err == CL_SUCCESS, "user event");
    EXPECT(hcqcl_clEnqueueFillBuffer(q, a, &pat, 4, 0, BIG, 1, &gate, NULL) == CL_SUCCESS, "fill");
    EXPECT(hcqcl_clEnqueueCopyBuffer(q, a, b, 0, 0, BIG, 0, NULL, &after) == CL_SUCCESS, "copy");
    EXPECT(after && after->eta_ns == 0 && !after->eta_learn,
           "a copy queued behind a fill has no expected end");
    EXPECT(hcqcl_clSetUserEventStatus(gate, CL_COMPLETE) == CL_SUCCESS, "open the gate");
    hcqcl_clReleaseEvent(gate);
    EXPECT(hcqcl_clWaitForEvents(1, &after) == CL_SUCCESS, "wait");
    uint32_t *out = malloc(BIG);
    EXPECT(out && hcqcl_clEnqueueReadBuffer(q, b, CL_TRUE, 0, BIG, out, 0, NULL, NULL) ==
                      CL_SUCCESS,
           "read");
    size_t bad = 0;
    for (size_t i = 0; out && i < BIG / 4; i++)
        bad += out[i] != pat;
    EXPECT(bad == 0, "%zu words differ after the copies", bad);
    free(out);
    hcqcl_clReleaseEvent(after);
    hcqcl_clReleaseMemObject(a);
    hcqcl_clReleaseMemObject(b);
}

/* hook_in: 1 held on another thread, 2 ran on the test's own (a tracker
 * pass its call made), where holding it would hold the test. */
static atomic_int hook_in, hook_go;
static pthread_t test_thread;

static void CL_CALLBACK held_free(cl_command_queue q, cl_uint n, void *p[], void *user)
{
    (void)q, (void)n, (void)p, (void)user;
    if (pthread_equal(pthread_self(), test_thread)) {
        atomic_store(&hook_in, 2);
        return;
    }
    atomic_store(&hook_in, 1);
    while (!atomic_load(&hook_go))
        sched_yield();
}

/* The SVM free's GPU part is empty, on the copy channel; its end is set
 * after its callback, which is held until the write behind it (pinned,
 * on the same channel) is recorded. The channel is idle then, but the
 * write starts only when the callback returns. Where the callback ran on
 * the test's thread, the round is made again, three at most. */
static void check_after_hook(cl_context ctx, cl_command_queue q, cl_device_id dev)
{
    cl_int err;
    cl_mem pin = hcqcl_clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, BIG, NULL, &err);
    cl_mem d = hcqcl_clCreateBuffer(ctx, 0, BIG, NULL, &err);
    EXPECT(pin && d, "buffers: %d", err);
    void *p = hcqcl_clEnqueueMapBuffer(q, pin, CL_TRUE, CL_MAP_WRITE, 0, BIG, 0, NULL, NULL,
                                       &err);
    EXPECT(p && err == CL_SUCCESS, "map: %d", err);
    EXPECT(atomic_load(&dev->rate[HCQCL_RATE_H2D]) > 0, "the writes taught their rate");
    test_thread = pthread_self();
    bool held = false;
    for (int t = 0; t < 3 && !held; t++) {
        atomic_store(&hook_in, 0);
        atomic_store(&hook_go, 0);
        cl_event fr = NULL, wr = NULL;
        EXPECT(hcqcl_clEnqueueSVMFree(q, 0, NULL, held_free, NULL, 0, NULL, &fr) == CL_SUCCESS,
               "SVM free");
        EXPECT(hcqcl_clFlush(q) == CL_SUCCESS, "flush");
        const uint64_t t0 = util_now_ns();
        while (!atomic_load(&hook_in) && util_now_ns() - t0 < 10000000000ull)
            sched_yield();
        EXPECT(atomic_load(&hook_in), "the free's callback ran");
        held = atomic_load(&hook_in) == 1;
        EXPECT(p && hcqcl_clEnqueueWriteBuffer(q, d, CL_FALSE, 0, BIG, p, 0, NULL, &wr) ==
                        CL_SUCCESS,
               "write");
        EXPECT(fr && wr && fr->gpu_sig == wr->gpu_sig, "the free and the write on one channel");
        EXPECT(!held || (fr && wr && atomic_load(&fr->phase) != HCQCL_PH_DONE &&
                         wr->eta_ns == 0 && !wr->eta_learn),
               "a write behind a running host hook has no expected end (eta %llu, learn %d)",
               wr ? (unsigned long long)wr->eta_ns : 0ull, wr ? wr->eta_learn : -1);
        atomic_store(&hook_go, 1);
        EXPECT(hcqcl_clWaitForEvents(1, &wr) == CL_SUCCESS, "wait");
        hcqcl_clReleaseEvent(fr);
        hcqcl_clReleaseEvent(wr);
    }
    EXPECT(held, "the free's callback ran on the test's thread, three times");
    hcqcl_clEnqueueUnmapMemObject(q, pin, p, 0, NULL, NULL);
    hcqcl_clFinish(q);
    hcqcl_clReleaseMemObject(pin);
    hcqcl_clReleaseMemObject(d);
}

int main(void)
{
    cl_uint n;
    cl_int err;
    cl_device_id *devs = unit_devices(&n);
    cl_context ctx = unit_context(1, devs);
    cl_command_queue q = hcqcl_clCreateCommandQueueWithProperties(ctx, devs[0], NULL, &err);
    REQUIRE(q, "queue: %d", err);
    check_pinned(ctx, q, devs[0]);
    check_chain(ctx, q, devs[0]);
    check_after_hook(ctx, q, devs[0]);
    hcqcl_clReleaseCommandQueue(q);
    hcqcl_clReleaseContext(ctx);
    return check_done("api_event_eta");
}

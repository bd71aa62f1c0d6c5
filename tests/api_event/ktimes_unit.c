/*
 * ktimes_unit.c — white-box: kernels' expected lengths (kernel_times.c).
 *
 *  - A launch's key depends on the kernel, every size, every byte of the
 *    parameter block and its __local bytes, and is never 0.
 *  - Nothing learned: no expected end. Learned: the wake-up comes 1/64 of
 *    the length and 20 us before start + length, and the spin lasts twice
 *    that. A shorter sample is followed by 3/4, a longer one by 1/4.
 *  - Launches under half a millisecond, or over the 16.7 s an entry
 *    holds, get no expected end.
 *  - Another launch landing in the same entry replaces it: the first one
 *    has no expected end any more. Launches spread over the whole table.
 *  - A channel is idle once a wait saw its last value, and not while
 *    something recorded there was not seen done.
 *  - Through the API (spin_ns, 5 ms): the first launch gets a key and no
 *    expected end; after its wait the next gets one, with an event and
 *    in the ring without; one behind a running launch or a user event
 *    gets no key. With
 *    HCQCL_KERNEL_TIMES=off none gets a key.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"
#include "check.h"
#include "unit_setup.h"

static void check_key(void)
{
    const size_t off[3] = {0, 0, 0}, g[3] = {1024, 8, 1}, l[3] = {64, 1, 1};
    uint8_t block[40];
    memset(block, 7, sizeof(block));
    /* Kernels are told apart by address alone. */
    const struct hcq_kernel *hk = (const struct hcq_kernel *)(block + 8),
                            *hk2 = (const struct hcq_kernel *)(block + 16);
    const uint64_t k = hcqcl_ktimes_key(hk, 2, off, g, l, block, sizeof(block), 0);
    EXPECT(k != 0, "a key is never 0");
    EXPECT(k == hcqcl_ktimes_key(hk, 2, off, g, l, block, sizeof(block), 0), "same launch, same key");
    EXPECT(k != hcqcl_ktimes_key(hk, 2, off, g, NULL, block, sizeof(block), 0), "local size given");
    EXPECT(k != hcqcl_ktimes_key(hk2, 2, off, g, l, block, sizeof(block), 0), "another kernel");
    const size_t g2[3] = {1024, 16, 1};
    EXPECT(k != hcqcl_ktimes_key(hk, 2, off, g2, l, block, sizeof(block), 0), "another size");
    EXPECT(k != hcqcl_ktimes_key(hk, 1, off, g, l, block, sizeof(block), 0), "another work_dim");
    EXPECT(k != hcqcl_ktimes_key(hk, 2, off, g, l, block, sizeof(block), 256), "__local bytes");
    block[37] = 8; /* a byte of the tail, past the last whole word */
    EXPECT(k != hcqcl_ktimes_key(hk, 2, off, g, l, block, sizeof(block), 0), "another argument");
}

/* Launches of one kernel that differ in one argument spread over the
 * table: most entries take one. */
static void check_spread(cl_device_id d)
{
    const size_t off[1] = {0}, g[1] = {4096};
    uint64_t arg = 0;
    const struct hcq_kernel *hk = (const struct hcq_kernel *)&arg;
    for (arg = 0; arg < 4 * HCQCL_KTIMES; arg++)
        hcqcl_ktimes_learn(d, hcqcl_ktimes_key(hk, 1, off, g, NULL, &arg, sizeof(arg), 0), 1000000);
    unsigned used = 0;
    for (unsigned i = 0; i < HCQCL_KTIMES; i++)
        used += atomic_load(&d->ktimes[i]) != 0;
    EXPECT(used >= HCQCL_KTIMES * 7 / 8, "%u of %u entries used", used, HCQCL_KTIMES);
    for (unsigned i = 0; i < HCQCL_KTIMES; i++)
        atomic_store(&d->ktimes[i], 0);
}

static void check_table(cl_device_id d)
{
    const uint64_t key = 0x123456789abcdef1ull, start = 1000000000ull;
    uint64_t eta = 1, spin = 1;
    hcqcl_ktimes_expect(d, key, start, &eta, &spin);
    EXPECT(eta == 0 && spin == 0, "nothing learned: no expected end");

    hcqcl_ktimes_learn(d, key, 20000000ull);
    hcqcl_ktimes_expect(d, key, start, &eta, &spin);
    const uint64_t early = 20000000ull / 64 + 20000ull;
    EXPECT(eta == start + 20000000ull - early && spin == 2 * early,
           "20 ms learned: eta +%llu ns, spin %llu ns", (unsigned long long)(eta - start),
           (unsigned long long)spin);

    hcqcl_ktimes_learn(d, key, 12000000ull); /* shorter: (20 + 3 * 12) / 4 = 14 ms */
    hcqcl_ktimes_expect(d, key, start, &eta, &spin);
    EXPECT(eta == start + 14000000ull - (14000000ull / 64 + 20000ull), "a shorter sample: 14 ms");
    hcqcl_ktimes_learn(d, key, 18000000ull); /* longer: (3 * 14 + 18) / 4 = 15 ms */
    hcqcl_ktimes_expect(d, key, start, &eta, &spin);
    EXPECT(eta == start + 15000000ull - (15000000ull / 64 + 20000ull), "a longer sample: 15 ms");

    /* The same entry, another launch: it replaces the first. */
    const uint64_t other = key ^ (0xfull << 40);
    hcqcl_ktimes_learn(d, other, 300000ull);
    hcqcl_ktimes_expect(d, key, start, &eta, &spin);
    EXPECT(eta == 0, "replaced: the first launch has no expected end");
    hcqcl_ktimes_expect(d, other, start, &eta, &spin);
    EXPECT(eta == 0, "0.3 ms: too short to sleep through");
    const uint64_t huge = key ^ (0xf0ull << 40);
    hcqcl_ktimes_learn(d, huge, 30000000000ull);
    hcqcl_ktimes_expect(d, huge, start, &eta, &spin);
    EXPECT(eta == 0, "30 s: longer than an entry holds");
}

static void check_idle(cl_command_queue q)
{
    struct hcq_queue *hq = q->chans[HCQ_ENGINE_COMPUTE][0].hq;
    REQUIRE(hq, "the queue's compute channel");
    EXPECT(hcqcl_clFinish(q) == CL_SUCCESS, "finish");
    uint64_t v = 0;
    util_lock(&q->lock);
    EXPECT(hcq_q_signal_next(hq, &v) == 0 && hcq_q_submit(hq) == 0, "a release");
    util_unlock(&q->lock);
    EXPECT(!hcqcl_ktimes_idle(hq), "recorded, not seen done: not idle");
    EXPECT(hcq_signal_wait(hcq_queue_timeline(hq), v, 5000000000ull) == 0, "wait");
    const bool on = strcmp(util_env()->kernel_times, "off") != 0;
    EXPECT(hcqcl_ktimes_idle(hq) == on, "seen done by a wait: idle (unless switched off)");
}

/* Launches of spin_ns (the emulated device's sleeps ns) through the API:
 * the first on an idle channel gets a key and no expected end, its wait
 * teaches the length, the next like it gets an expected end (with an
 * event, and in the ring without one); one behind another still running
 * gets no key. */
static void check_launches(cl_context ctx, cl_command_queue q, cl_device_id dev)
{
    size_t size;
    uint8_t *bin = test_data_read("gpu_kernels.cubin", &size);
    REQUIRE(bin, "gpu_kernels.cubin");
    cl_int err;
    const unsigned char *b = bin;
    cl_program p = hcqcl_clCreateProgramWithBinary(ctx, 1, &dev, &size, &b, NULL, &err);
    REQUIRE(p && hcqcl_clBuildProgram(p, 0, NULL, NULL, NULL, NULL) == CL_SUCCESS, "program");
    cl_kernel k = hcqcl_clCreateKernel(p, "spin_ns", &err);
    cl_mem out = hcqcl_clCreateBuffer(ctx, 0, 8, NULL, &err);
    REQUIRE(k && out, "kernel and buffer");
    const cl_ulong ns = 5000000;
    const size_t one = 1;
    hcqcl_clSetKernelArg(k, 0, sizeof(ns), &ns);
    hcqcl_clSetKernelArg(k, 1, sizeof(out), &out);
    EXPECT(hcqcl_clFinish(q) == CL_SUCCESS, "finish");

    cl_event e1 = NULL, e2 = NULL, e3 = NULL;
    EXPECT(hcqcl_clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, &e1) == CL_SUCCESS,
           "first launch");
    if (!strcmp(util_env()->kernel_times, "off")) {
        EXPECT(e1 && e1->eta_key == 0, "HCQCL_KERNEL_TIMES=off: no key");
        EXPECT(hcqcl_clWaitForEvents(1, &e1) == CL_SUCCESS, "wait");
        e2 = e1;
        hcqcl_clRetainEvent(e2);
        e3 = e1;
        hcqcl_clRetainEvent(e3);
        goto out;
    }
    EXPECT(e1 && e1->eta_key && e1->eta_learn && e1->eta_ns == 0,
           "first launch: a key, nothing learned (key %llx, eta %llu)",
           e1 ? (unsigned long long)e1->eta_key : 0ull, e1 ? (unsigned long long)e1->eta_ns : 0ull);
    EXPECT(hcqcl_clWaitForEvents(1, &e1) == CL_SUCCESS, "wait");
    /* A wait that starts after the launch ended (the thread held back
     * past its 5 ms) teaches nothing: two more launches at most. */
    for (int t = 0; t < 3; t++) {
        EXPECT(hcqcl_clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, &e2) ==
                   CL_SUCCESS,
               "second launch");
        if (t == 2 || !e2 || e2->eta_ns)
            break;
        EXPECT(hcqcl_clWaitForEvents(1, &e2) == CL_SUCCESS, "wait");
        hcqcl_clReleaseEvent(e2);
        e2 = NULL;
    }
    EXPECT(e2 && e2->eta_key == e1->eta_key && e2->eta_ns > e2->eta_start &&
               e2->eta_ns - e2->eta_start >= ns - ns / 64 - 20000 && e2->eta_spin > 0,
           "second launch: an expected end %.3f ms after its start",
           e2 ? (double)(e2->eta_ns - e2->eta_start) / 1e6 : -1.0);
    EXPECT(hcqcl_clWaitForEvents(1, &e2) == CL_SUCCESS, "wait");

    /* Without an event: the ring's entry. */
    EXPECT(hcqcl_clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL) == CL_SUCCESS,
           "launch without an event");
    util_lock(&q->lock);
    const struct hcqcl_lite *l = &q->lite[(q->lite_head - 1) & (q->lite_cap - 1)];
    EXPECT(q->lite_head != q->lite_tail && l->key == e1->eta_key && l->eta > l->start,
           "the ring's entry has the key and an expected end");
    util_unlock(&q->lock);

    /* Behind it, still running: no key. */
    EXPECT(hcqcl_clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, &e3) == CL_SUCCESS,
           "launch behind another");
    EXPECT(e3 && e3->eta_key == 0 && e3->eta_ns == 0, "behind a running launch: no key");
    EXPECT(hcqcl_clFinish(q) == CL_SUCCESS, "finish");
    hcqcl_clReleaseEvent(e3);

    /* Behind a user event (gated), on an idle channel: no key. */
    cl_event u = hcqcl_clCreateUserEvent(ctx, &err);
    REQUIRE(u, "user event");
    EXPECT(hcqcl_clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 1, &u, &e3) == CL_SUCCESS,
           "launch behind a user event");
    EXPECT(e3 && e3->eta_key == 0 && e3->eta_ns == 0, "behind a user event: no key");
    EXPECT(hcqcl_clSetUserEventStatus(u, CL_COMPLETE) == CL_SUCCESS, "user event set");
    hcqcl_clReleaseEvent(u);
out:
    EXPECT(hcqcl_clFinish(q) == CL_SUCCESS, "finish");
    hcqcl_clReleaseEvent(e1);
    hcqcl_clReleaseEvent(e2);
    hcqcl_clReleaseEvent(e3);
    hcqcl_clReleaseMemObject(out);
    hcqcl_clReleaseKernel(k);
    hcqcl_clReleaseProgram(p);
    free(bin);
}

int main(void)
{
    cl_uint n;
    cl_device_id *devs = unit_devices(&n);
    cl_context ctx = unit_context(1, devs);
    cl_command_queue q = unit_queue(ctx, devs[0]);
    check_key();
    check_table(devs[0]);
    check_spread(devs[0]);
    check_idle(q);
    check_launches(ctx, q, devs[0]);
    hcqcl_clReleaseCommandQueue(q);
    hcqcl_clReleaseContext(ctx);
    return check_done("api_event_ktimes");
}

/*
 * kernel_times.c — how long a launch took before, so that a wait for it
 * can sleep through most of it and spin only at the end.
 *
 * A kernel enqueued again with the same sizes and the same parameter block
 * (buffer addresses included: the same data) takes about as long as it
 * did: an iterative program's step, a benchmark's repeat. A wait for such
 * a launch sleeps until a little before its expected end, then spins,
 * and sees the end within microseconds; without it, a sleeping wait learns
 * of a kernel's end only from a waker's interrupt or its next step
 * (src/core/waker.c: about 100 us late on an H100).
 *
 * Only a launch that starts on an idle channel has a known start: the
 * channel's timeline is at the last value recorded there, as a wait saw
 * it (seen_hi, a line the CPU writes: no read of the GPU's). Its length is
 * learned when a wait sees it end: the time from the enqueue to that
 * sight, launch included. Lengths live in a small table of the device,
 * one 64-bit word per entry (the key's top 40 bits, the length in
 * microseconds below), direct-mapped: a collision only replaces an entry,
 * and any entry only moves a wait's wake-up.
 */
#include "api/obj.h"

#include <string.h>

#define KTIMES_US_BITS 24u
#define KTIMES_US_MAX ((1u << KTIMES_US_BITS) - 1u) /* 16.7 s */
/* Launches shorter than this are left to the usual spin. */
#define KTIMES_MIN_NS 500000ull
/* The wake-up comes this much before the expected end: 1/64 of the length
 * (a kernel's own jitter, and how much faster it may run next) and the
 * host timer's lateness on top. The spin lasts twice that, at most 2 ms:
 * a long launch that runs longer than learned is left to the usual
 * sleeps, whose lateness is small beside it. */
#define KTIMES_EARLY_DIV 64u
#define KTIMES_EARLY_NS 20000ull
#define KTIMES_SPIN_MAX_NS 2000000ull

static inline uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

uint64_t hcqcl_ktimes_key(const struct hcq_kernel *hk, cl_uint work_dim, const size_t *offset,
                          const size_t *global, const size_t *local, const void *block,
                          uint32_t psize, uint32_t dyn)
{
    uint64_t h = mix(0x6b74696d6573ull, (uint64_t)(uintptr_t)hk);
    h = mix(h, work_dim);
    h = mix(h, dyn);
    for (cl_uint i = 0; i < work_dim; i++) {
        h = mix(h, offset[i]);
        h = mix(h, global[i]);
        h = mix(h, local ? local[i] : 0);
    }
    const uint8_t *p = block;
    uint32_t i = 0;
    for (; i + 8 <= psize; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = mix(h, w);
    }
    for (; i < psize; i++)
        h = mix(h, p[i]);
    return h ? h : 1; /* never 0, which means none */
}

/* HCQCL_KERNEL_TIMES=off: no launch gets a key. Read once (-1: not yet). */
static _Atomic int ktimes_on = -1;

bool hcqcl_ktimes_idle(struct hcq_queue *hq)
{
    int on = atomic_load_explicit(&ktimes_on, memory_order_relaxed);
    if (on < 0) {
        on = strcmp(util_env()->kernel_times, "off") != 0;
        atomic_store_explicit(&ktimes_on, on, memory_order_relaxed);
    }
    if (!on)
        return false;
    const struct hcq_signal *t = hcq_queue_timeline(hq);
    return atomic_load_explicit(&t->seen_hi, memory_order_relaxed) >= hcq_queue_last(hq);
}

static inline _Atomic uint64_t *slot(cl_device_id d, uint64_t key)
{
    return &d->ktimes[key % HCQCL_KTIMES];
}

static inline uint64_t tag(uint64_t key) { return key >> KTIMES_US_BITS; }

void hcqcl_ktimes_expect(cl_device_id d, uint64_t key, uint64_t start, uint64_t *eta,
                         uint64_t *spin)
{
    *eta = *spin = 0;
    const uint64_t w = atomic_load_explicit(slot(d, key), memory_order_relaxed);
    if (!w || tag(w) != tag(key))
        return;
    const uint64_t us = w & KTIMES_US_MAX;
    /* Under half a millisecond, or longer than the entry holds. */
    if (us * 1000u < KTIMES_MIN_NS || us == KTIMES_US_MAX)
        return;
    const uint64_t ns = us * 1000u;
    const uint64_t early = ns / KTIMES_EARLY_DIV + KTIMES_EARLY_NS;
    *eta = start + ns - early;
    *spin = UTIL_MIN(2 * early, KTIMES_SPIN_MAX_NS);
}

void hcqcl_ktimes_learn(cl_device_id d, uint64_t key, uint64_t ns)
{
    _Atomic uint64_t *s = slot(d, key);
    const uint64_t w = atomic_load_explicit(s, memory_order_relaxed);
    uint64_t us = UTIL_MIN(ns / 1000u, (uint64_t)KTIMES_US_MAX);
    /* As the transfer rates (hcqcl_learn_blend): a shorter sample is
     * followed at once (3/4 of it), a longer one by a quarter. A
     * wait that saw the end late measured its own lateness: longer. One
     * the entry cannot hold is kept as such (no expected end). */
    if (w && tag(w) == tag(key) && us < KTIMES_US_MAX) {
        const uint64_t old = w & KTIMES_US_MAX;
        us = hcqcl_learn_blend(old, us, us < old);
    }
    atomic_store_explicit(s, (tag(key) << KTIMES_US_BITS) | us, memory_order_relaxed);
}

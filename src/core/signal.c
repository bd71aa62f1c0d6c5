/* Signals: 16-byte slots (value, GPU timestamp) carved from pages of
 * pinned host memory, and the CPU side of waiting on them. */
#include "core/priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define SIG_PAGE_BYTES 0x4000u /* 1024 slots per page */
#define SIG_SLOT 16u
#define SIG_SLOTS (SIG_PAGE_BYTES / SIG_SLOT)

struct hcq_signal_page {
    struct hcq_signal_page *next;
    struct hcq_mem *mem;
    unsigned used;
    uint64_t bitmap[SIG_SLOTS / 64]; /* 1 = slot in use */
    struct hcq_signal sigs[SIG_SLOTS];
};

static struct hcq_signal_page *page_new(struct hcq_device *dev)
{
    struct hcq_signal_page *pg = calloc(1, sizeof(*pg));
    if (!pg)
        return NULL;
    if (hcq_mem_alloc_ex(dev, SIG_PAGE_BYTES, HCQ_MEM_HOST, HCQ_MEMF_LOW, &pg->mem)) {
        free(pg);
        return NULL;
    }
    for (unsigned i = 0; i < SIG_SLOTS; i++) {
        pg->sigs[i].dev = dev;
        pg->sigs[i].va = pg->mem->va + i * SIG_SLOT;
        pg->sigs[i].cpu = (volatile uint64_t *)((uint8_t *)pg->mem->cpu + i * SIG_SLOT);
    }
    return pg;
}

int hcq_signal_alloc(struct hcq_device *dev, struct hcq_signal **out)
{
    *out = NULL;
    pthread_mutex_lock(&dev->sig_lock);
    struct hcq_signal_page *pg = dev->sig_pages;
    while (pg && pg->used == SIG_SLOTS)
        pg = pg->next;
    if (!pg) {
        pg = page_new(dev);
        if (!pg) {
            pthread_mutex_unlock(&dev->sig_lock);
            return -ENOMEM;
        }
        /* Appended: allocation fills the oldest pages first, so a pool
         * that shrinks back keeps its newest pages idle. */
        struct hcq_signal_page **tail = &dev->sig_pages;
        while (*tail)
            tail = &(*tail)->next;
        *tail = pg;
    }
    for (unsigned w = 0; w < SIG_SLOTS / 64; w++) {
        if (pg->bitmap[w] == ~0ull)
            continue;
        unsigned b = (unsigned)__builtin_ctzll(~pg->bitmap[w]);
        pg->bitmap[w] |= 1ull << b;
        pg->used++;
        struct hcq_signal *s = &pg->sigs[w * 64 + b];
        /* A fresh signal reads 0 with no timestamp. */
        __atomic_store_n(&s->cpu[0], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&s->cpu[1], 0, __ATOMIC_RELEASE);
        atomic_store_explicit(&s->irq_hi, 0, memory_order_relaxed);
        atomic_store_explicit(&s->rec_hi, 0, memory_order_relaxed);
        atomic_store_explicit(&s->seen_hi, 0, memory_order_relaxed);
        *out = s;
        break;
    }
    pthread_mutex_unlock(&dev->sig_lock);
    return *out ? 0 : -ENOMEM;
}

void hcq_signal_free(struct hcq_signal *sig)
{
    if (!sig)
        return;
    struct hcq_device *dev = sig->dev;
    pthread_mutex_lock(&dev->sig_lock);
    for (struct hcq_signal_page *pg = dev->sig_pages; pg; pg = pg->next) {
        if (sig < pg->sigs || sig >= pg->sigs + SIG_SLOTS)
            continue;
        unsigned i = (unsigned)(sig - pg->sigs);
        if (pg->bitmap[i / 64] & (1ull << (i % 64))) {
            pg->bitmap[i / 64] &= ~(1ull << (i % 64));
            pg->used--;
        }
        break;
    }
    pthread_mutex_unlock(&dev->sig_lock);
}

void hcq_signal_pool_fini(struct hcq_device *dev)
{
    pthread_mutex_lock(&dev->sig_lock);
    struct hcq_signal_page *pg = dev->sig_pages;
    dev->sig_pages = NULL;
    pthread_mutex_unlock(&dev->sig_lock);
    while (pg) {
        struct hcq_signal_page *next = pg->next;
        if (pg->used)
            CORE_LOG("signal pool: %u signals still allocated at device close", pg->used);
        hcq_mem_free(pg->mem);
        free(pg);
        pg = next;
    }
}

unsigned hcq_signal_pool_pages(struct hcq_device *dev)
{
    unsigned n = 0;
    pthread_mutex_lock(&dev->sig_lock);
    for (struct hcq_signal_page *pg = dev->sig_pages; pg; pg = pg->next)
        n++;
    pthread_mutex_unlock(&dev->sig_lock);
    return n;
}

void hcq_signal_set(struct hcq_signal *s, uint64_t value)
{
    /* A forked child's signals are the parent's pages: a gate it opened
     * would let the parent's GPU past it (its devices are lost too:
     * device.c, fork_child). */
    if (nvdrv_forked())
        return;
    __atomic_store_n(&s->cpu[0], value, __ATOMIC_RELEASE);
}

enum wait_policy { WAIT_AUTO, WAIT_SPIN, WAIT_BLOCK };

/* HCQCL_WAIT, parsed once (the environment is read once anyway): a wait
 * costs no string compares. */
static enum wait_policy wait_policy(void)
{
    static _Atomic int cached = -1;
    int p = atomic_load_explicit(&cached, memory_order_relaxed);
    if (p >= 0)
        return (enum wait_policy)p;
    const char *w = util_env()->wait;
    p = !strcmp(w, "spin") ? WAIT_SPIN : !strcmp(w, "block") ? WAIT_BLOCK : WAIT_AUTO;
    atomic_store_explicit(&cached, p, memory_order_relaxed);
    return (enum wait_policy)p;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Polls of the value alone (each followed by a pause) between two
 * readings of the clock while spinning: a round of them is well under a
 * microsecond, the granularity the timeouts, stall kicks and lost-device
 * checks need. */
#define WAIT_SPIN_POLLS 16u

/* auto: spin this long before sleeping. Most GPU round trips are shorter
 * (an empty kernel's is ~5 us on the H200), and a sleep costs 50+ us of
 * wake-up latency, so spinning past the common case keeps the tail short.
 * Then each sleep lasts 1/WAIT_SLEEP_DIV of the time waited so far,
 * between WAIT_SLEEP_MIN_NS and WAIT_SLEEP_MAX_NS, with the thread's timer
 * slack (50 us by default) lowered for the wait: a wait oversleeps by
 * under 1 % (0.4 % on average: a 5 ms copy is seen done within ~40 us,
 * and bandwidth figures measured by the caller's clock depend on that;
 * 1/32 allowed up to 3 %), and a one-second wait
 * costs about 1200 wake-ups (under 1 % of a core). */
#define WAIT_SPIN_NS 75000ull
#define WAIT_SLEEP_DIV 128u
#define WAIT_SLEEP_MIN_NS 5000ull
#define WAIT_SLEEP_MAX_NS 10000000ull
#define WAIT_LOST_CHECK_NS 1000000ull
/* With interrupt wake-ups (irq.c) a sleep ends when a release of the
 * device's engines lands. The wake-up takes a few microseconds (block-mode
 * enqueue + finish of an empty kernel on the H200: 12.3 us, against 4.8
 * spinning), about as long as a stepped sleep of 1/128 of the time waited
 * lasts at 1 ms: `auto` waits sleep in steps until then, on interrupts
 * after (`block` waits at once). A sleep's timeout is only a safety net: 1/16 of
 * the time waited, up to 20 ms (a timeout of 1/128, ending a sleep at the
 * step when an interrupt is late, took 3.2-3.9 % of a core over a 1 s wait
 * on the emulated device against 1.3-1.6 %, and the H200's gpu_cl_timing
 * (which checks 5 %) failed once under load; transfers, where lateness shows, carry expected
 * ends instead: hcq_signal_wait_eta). Releases raise interrupts only
 * while a waiter sleeps on them (queue.c, push_release): one whose target
 * was recorded before, or is a kernel's end, asks a waker for one
 * (waker.c), and sleeps in steps where none can take it. A wake-up that was another
 * command's (back-to-back commands raise one interrupt each) is followed by a pause
 * of 1/256 of the time waited (2 us to 1 ms) before the next poll: an
 * interrupt arriving meanwhile stays pending, so the pause bounds how late
 * the wait's own release is seen, and a stream of other commands' releases
 * cannot turn the wait into a spin (about as many wake-ups as the stepped
 * sleeps, each sooner). */
#define WAIT_IRQ_AFTER_NS 1000000ull
#define WAIT_IRQ_SLEEP_DIV 16u
#define WAIT_IRQ_SLEEP_MAX_NS 20000000ull
#define WAIT_IRQ_GAP_DIV 256u
#define WAIT_IRQ_GAP_MIN_NS 2000ull
#define WAIT_IRQ_GAP_MAX_NS 1000000ull

/* The calling thread's timer slack, lowered to 1 us while it sleeps in a
 * wait and put back when the wait ends. */
struct slack {
    bool lowered;
    int old;
};

static void slack_lower(struct slack *sl)
{
    if (sl->lowered)
        return;
    int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (old > 1000 && prctl(PR_SET_TIMERSLACK, 1000ul, 0, 0, 0) == 0) {
        sl->old = old;
        sl->lowered = true;
    }
}

static void slack_restore(struct slack *sl)
{
    if (sl->lowered)
        prctl(PR_SET_TIMERSLACK, (unsigned long)sl->old, 0, 0, 0);
}

int hcq_signal_wait(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns)
{
    return hcq_signal_wait_since(s, target, timeout_ns, util_now_ns());
}

static int wait_for(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns,
                    uint64_t since_ns, uint64_t eta_ns, uint64_t eta_spin_ns,
                    const _Atomic uint32_t *stop, uint32_t seen);

int hcq_signal_wait_since(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns,
                          uint64_t since_ns)
{
    return wait_for(s, target, timeout_ns, since_ns, 0, 0, NULL, 0);
}

int hcq_signal_wait_stop(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns,
                         uint64_t since_ns, const _Atomic uint32_t *stop, uint32_t seen)
{
    return wait_for(s, target, timeout_ns, since_ns, 0, 0, stop, seen);
}

int hcq_signal_wait_eta(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns,
                        uint64_t since_ns, uint64_t eta_ns, uint64_t spin_ns)
{
    return wait_for(s, target, timeout_ns, since_ns, eta_ns, spin_ns, NULL, 0);
}

/* An expected end closer than this is left to the spin; a longer sleep
 * towards it is cut to WAIT_ETA_SLEEP_MAX_NS and to the call's timeout
 * (the loop then checks the device and sleeps on in steps, or the caller
 * calls again). The sleep goes in slices of WAIT_ETA_SLICES of the whole
 * wait (none under WAIT_ETA_SLEEP_MIN_NS) with a look at the value
 * between them: an expected end too late (a rate learned while a link
 * was shared, say) oversleeps the real one by a slice at most. */
#define WAIT_ETA_SLEEP_MIN_NS 50000ull
#define WAIT_ETA_SLEEP_MAX_NS 100000000ull
#define WAIT_ETA_SLICES 32u

/* What a wait saw: the channel's next command can tell it started on an
 * idle channel from this, a line the CPU writes (hcq.h, seen_hi). */
static inline void saw(const struct hcq_signal *s, uint64_t v)
{
    hcq_raise_to((_Atomic uint64_t *)&s->seen_hi, v);
}

static int wait_for(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns,
                    uint64_t since_ns, uint64_t eta_ns, uint64_t eta_spin_ns,
                    const _Atomic uint32_t *stop, uint32_t seen)
{
    struct hcq_device *dev = s->dev;
    uint64_t v = hcq_signal_value(s);
    if (v >= target) {
        saw(s, v);
        return 0;
    }
    /* A lost device never moves the value again: fail at once. */
    if (hcq_device_lost(dev))
        return -EIO;
    enum wait_policy pol = wait_policy();
    uint64_t start = util_now_ns(), moved = start, last_check = start;
    uint64_t kick_next = HCQ_KICK_FIRST_NS;
    if (since_ns > start)
        since_ns = start;
    struct slack slack = {0};
    uint64_t spin_until = 0;
    /* A spin given after the expected end goes on in the calls of a
     * caller that waits in slices. */
    if (pol == WAIT_AUTO && eta_ns && eta_ns + eta_spin_ns > start) {
        if (eta_ns > start && eta_ns - start > WAIT_ETA_SLEEP_MIN_NS) {
            slack_lower(&slack);
            /* No longer than the caller's slice either: it looks at
             * other things between slices. */
            const uint64_t until =
                start + UTIL_MIN(UTIL_MIN(eta_ns - start, WAIT_ETA_SLEEP_MAX_NS), timeout_ns);
            /* Slices of the whole wait's span, not of this call's. */
            const uint64_t span = UTIL_MIN(eta_ns - since_ns, WAIT_ETA_SLEEP_MAX_NS);
            const uint64_t slice = UTIL_MAX(WAIT_ETA_SLEEP_MIN_NS, span / WAIT_ETA_SLICES);
            for (uint64_t now = start; now < until && hcq_signal_value(s) < target;
                 now = util_now_ns()) {
                uint64_t ns = UTIL_MIN(slice, until - now);
                struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
                nanosleep(&ts, NULL);
            }
        }
        const uint64_t spin = eta_spin_ns ? eta_spin_ns : (eta_ns - start) / 3;
        spin_until = eta_ns + UTIL_MAX(WAIT_SPIN_NS, spin);
    }
    int rc;
    bool woken = false;  /* the last sleep ended on an interrupt */
    bool wanting = false; /* counted in dev->irq_want */
    bool armed = false;   /* a waker's interrupt follows the target */
    for (;;) {
        /* Read before the value: an interrupt after this read is seen by
         * the sleep below (irq.c). */
        uint32_t gen = hcq_irq_gen(dev);
        uint64_t nv = hcq_signal_value(s);
        if (nv >= target) {
            saw(s, nv);
            rc = 0;
            break;
        }
        /* After gen: a stop moved later comes with a poke that moves gen
         * too, which the sleep below sees. */
        if (stop && atomic_load(stop) != seen) {
            rc = -EINTR;
            break;
        }
        uint64_t now = util_now_ns();
        if (nv != v) {
            /* Progress: the timeout counts from here. */
            v = nv;
            moved = now;
            kick_next = HCQ_KICK_FIRST_NS;
        }
        hcq_device_kick_stalled(dev, now - moved, &kick_next);
        if (now - last_check >= WAIT_LOST_CHECK_NS) {
            last_check = now;
            if (hcq_device_check_lost(dev)) {
                rc = hcq_signal_value(s) >= target ? 0 : -EIO;
                break;
            }
        }
        if (timeout_ns != UINT64_MAX && now - moved >= timeout_ns) {
            rc = -ETIMEDOUT;
            break;
        }
        if (pol == WAIT_SPIN ||
            (pol == WAIT_AUTO && (now - since_ns < WAIT_SPIN_NS || now < spin_until))) {
            /* The value alone between rounds of the checks above: a clock
             * read costs more than a poll, and would make the wait see a
             * release later by up to its own length. */
            for (unsigned i = 0; i < WAIT_SPIN_POLLS && hcq_signal_value(s) < target; i++)
                cpu_relax();
            continue;
        }
        /* Stepped sleeps until interrupts pay off; on interrupts, a
         * pause after a wake-up that was not this wait's, else a sleep
         * that the next interrupt ends. */
        uint64_t waited = now - since_ns, sleep_ns;
        bool irq = atomic_load_explicit(&dev->irq_on, memory_order_relaxed) &&
                   (pol == WAIT_BLOCK || waited >= WAIT_IRQ_AFTER_NS);
        if (irq && !wanting &&
            atomic_load_explicit(&s->rec_hi, memory_order_relaxed) < target) {
            /* The target's release is not recorded yet (a command behind a
             * gate): releases recorded from now on raise interrupts. A
             * waiter for recorded work gains nothing from counting, and
             * would make every later command interrupt the driver's CPU. */
            atomic_fetch_add_explicit(&dev->irq_want, 1, memory_order_relaxed);
            wanting = true;
        }
        /* Work recorded while nobody slept, and a kernel's end, raise
         * none: a waker raises one once the value lands (waker.c), or,
         * where none can, the wait sleeps in steps until a release at or
         * after the target asks for one. */
        if (irq && !armed && atomic_load_explicit(&s->irq_hi, memory_order_relaxed) < target) {
            armed = atomic_load_explicit(&s->rec_hi, memory_order_relaxed) >= target &&
                    hcq_waker_arm(dev, s, target);
            irq = armed;
        }
        bool pause = irq && woken;
        if (pause)
            sleep_ns = UTIL_MAX(WAIT_IRQ_GAP_MIN_NS,
                                UTIL_MIN(waited / WAIT_IRQ_GAP_DIV, WAIT_IRQ_GAP_MAX_NS));
        else if (irq && !armed)
            sleep_ns = UTIL_MAX(WAIT_SLEEP_MIN_NS,
                                UTIL_MIN(waited / WAIT_IRQ_SLEEP_DIV, WAIT_IRQ_SLEEP_MAX_NS));
        else /* a step; a waker's interrupt may end it sooner */
            sleep_ns =
                UTIL_MAX(WAIT_SLEEP_MIN_NS, UTIL_MIN(waited / WAIT_SLEEP_DIV, WAIT_SLEEP_MAX_NS));
        if (timeout_ns != UINT64_MAX && timeout_ns - (now - moved) < sleep_ns)
            sleep_ns = timeout_ns - (now - moved);
        slack_lower(&slack);
        if (irq && !pause) {
            woken = hcq_irq_sleep(dev, gen, sleep_ns);
        } else if (stop) {
            hcq_irq_nap(dev, gen, sleep_ns); /* a sleep a poke ends */
            woken = false;
        } else {
            struct timespec ts = {0, (long)sleep_ns};
            nanosleep(&ts, NULL);
            woken = false;
        }
    }
    if (wanting)
        atomic_fetch_sub_explicit(&dev->irq_want, 1, memory_order_relaxed);
    slack_restore(&slack);
    return rc;
}

/* Wakers: interrupts for threads that sleep on releases that raise none.
 *
 * A release raises a non-stall interrupt only when a thread slept on
 * interrupts as it was recorded (queue.c, push_release), and one folded
 * into a kernel's QMD never does. The usual wait, clFinish after the
 * enqueue, is for such a value: past its first millisecond it slept in
 * steps of 1/128 of the time waited (signal.c), and so saw a 20 ms
 * kernel's end up to 156 us late.
 *
 * A waker is a channel of its own on a copy engine (the last one, which
 * copy queues reach last). Asked for (s, v), it waits for s >= v in a
 * blocked acquire, then releases its own timeline with the copy engine's
 * non-stall interrupt, which wakes the sleepers (irq.c).
 *
 * A channel runs its requests in order, so a waker takes a request only
 * when all of its own are done, or when they are all for the same signal
 * and lower values (which land first): a request never waits for
 * another's value. The waiter knows its interrupt comes when it arms one.
 * A waker whose last request has waited WAKER_STALE_NS is given no more
 * on that signal (its value may never come: a queue destroyed behind an
 * undecided hold); other waits go to another waker. At most HCQ_WAKER_MAX
 * per device, each with up to WAKER_DEPTH requests in flight, which its
 * small arenas always have room for: a request never waits for the GPU.
 * When all are busy, the stalest (past WAKER_STALE_NS) is retired: freed,
 * and replaced, by the next maker thread. An armed wait keeps its steps
 * of 1/128 of the time waited as timeouts (signal.c): a waker can only
 * make it end sooner, never later.
 *
 * The acquire yields its runlist while blocked (HCQCL_WAKER=switch, the
 * default) or polls (poll). On an H100 a waker saw a kernel's end about
 * 100 us late either way (docs/gpu-runs.md, 2026-12-07). So it shortens
 * waits of over about 15 ms, whose steps are longer; a launch seen before
 * is waited for by its expected length instead (api/kernel_times.c).
 *
 * The first waker is made in the background (a channel takes milliseconds
 * to make) by the first wait that could use one; that wait sleeps in steps
 * meanwhile. Wakers live until the device's last close, which frees them
 * without waiting for their acquires. HCQCL_WAKER=off asks for none. */
#include "core/priv.h"

#include <pthread.h>
#include <string.h>

#define WAKER_DEPTH 8u
#define WAKER_STALE_NS 1000000000ull

/* The acquire, then the release with the interrupt, submitted. A failure
 * (a lost device) may leave part of it recorded: that waker takes no more. */
static bool waker_request(struct hcq_device *dev, struct hcq_waker *w,
                          const struct hcq_signal *s, uint64_t target)
{
    uint64_t v = 0;
    int r = hcq_q_wait(w->q, s, target);
    if (r == 0)
        r = hcq_q_release_timeline(w->q, &v);
    if (r == 0)
        r = hcq_q_submit(w->q);
    if (r) {
        CORE_LOG("device %u: waker request failed (%d): that waker is retired", dev->index, r);
        *w = (struct hcq_waker){.q = w->q, .ticket = UINT64_MAX};
        return false;
    }
    *w = (struct hcq_waker){w->q, s, target, v, util_now_ns()};
    atomic_fetch_add_explicit(&dev->waker_requests, 1, memory_order_relaxed);
    return true;
}

/* A new waker's queue, added to the device's; waker_lock not held, and
 * waker_making set by the caller, which this clears (the device's last
 * close waits for that). */
static int waker_make(struct hcq_device *dev)
{
    pthread_mutex_lock(&dev->waker_lock);
    struct hcq_queue *q = dev->waker_retired;
    dev->waker_retired = NULL;
    pthread_mutex_unlock(&dev->waker_lock);
    hcq_queue_abandon(q);
    q = NULL;
    int r = hcq_queue_create_waker(dev, &q);
    pthread_mutex_lock(&dev->waker_lock);
    if (r == 0 && dev->nwakers < HCQ_WAKER_MAX) {
        dev->wakers[dev->nwakers++] = (struct hcq_waker){.q = q};
        q = NULL;
    } else if (r) {
        dev->waker_off = true;
        CORE_LOG("device %u: no waker (%d): waits on kernels' ends sleep in steps", dev->index,
                 r);
    }
    pthread_mutex_unlock(&dev->waker_lock);
    hcq_queue_abandon(q); /* only with HCQ_WAKER_MAX already made */
    pthread_mutex_lock(&dev->waker_lock);
    dev->waker_making = false;
    pthread_cond_broadcast(&dev->waker_made);
    pthread_mutex_unlock(&dev->waker_lock);
    return r;
}

static void *waker_maker(void *arg)
{
    (void)waker_make(arg); /* the device is not touched after it */
    return NULL;
}

/* A maker thread; waker_lock held. It holds no reference: the device's
 * last close waits for it (hcq_waker_drain), so that a close and a new
 * open right after it (a lost device's recovery) find the device closed.
 * From that drain to the next first open none is started (waker_closed):
 * a thread that opened the device meanwhile goes without wakers. */
static void waker_start(struct hcq_device *dev)
{
    if (dev->waker_making || dev->waker_off || dev->nwakers == HCQ_WAKER_MAX ||
        atomic_load(&dev->waker_closed))
        return;
    dev->waker_making = true;
    const int rc = util_thread_detached(waker_maker, dev);
    if (rc) {
        dev->waker_making = false;
        dev->waker_off = true;
    }
}

/* All HCQ_WAKER_MAX are busy: the one waiting longest, if over
 * WAKER_STALE_NS, is taken off the list for the next maker to free (a
 * waker whose value may never come would hold its place for good); a wait
 * it was to wake sleeps on its timeouts. waker_lock held. */
static void waker_retire_stale(struct hcq_device *dev, uint64_t now)
{
    unsigned oldest = HCQ_WAKER_MAX;
    for (unsigned i = 0; i < dev->nwakers; i++)
        if (now - dev->wakers[i].since_ns >= WAKER_STALE_NS &&
            (oldest == HCQ_WAKER_MAX || dev->wakers[i].since_ns < dev->wakers[oldest].since_ns))
            oldest = i;
    if (oldest == HCQ_WAKER_MAX)
        return;
    CORE_LOG("device %u: a waker waited %llu ms for one value: retired", dev->index,
             (unsigned long long)((now - dev->wakers[oldest].since_ns) / 1000000));
    dev->waker_retired = dev->wakers[oldest].q;
    dev->wakers[oldest] = dev->wakers[--dev->nwakers];
}

bool hcq_waker_arm(struct hcq_device *dev, const struct hcq_signal *s, uint64_t target)
{
    if (!strcmp(util_env()->waker, "off") || hcq_device_lost(dev) ||
        !atomic_load_explicit(&dev->irq_on, memory_order_relaxed) ||
        atomic_load_explicit(&dev->waker_closed, memory_order_relaxed))
        return false;
    pthread_mutex_lock(&dev->waker_lock);
    const uint64_t now = util_now_ns();
    struct hcq_waker *same = NULL, *idle = NULL;
    bool armed = false;
    for (unsigned i = 0; i < dev->nwakers && !armed; i++) {
        struct hcq_waker *w = &dev->wakers[i];
        const uint64_t done = hcq_signal_value(w->q->timeline); /* requests */
        if (done >= w->ticket) {
            if (!idle)
                idle = w;
        } else if (w->s == s && w->target == target) {
            armed = true; /* another thread asked for it */
        } else if (w->s == s && w->target < target && now - w->since_ns < WAKER_STALE_NS &&
                   w->ticket - done < WAKER_DEPTH) {
            same = w;
        }
    }
    if (!armed && (same || idle)) {
        armed = waker_request(dev, same ? same : idle, s, target);
    } else if (!armed) {
        if (dev->nwakers == HCQ_WAKER_MAX && !dev->waker_making && !dev->waker_retired)
            waker_retire_stale(dev, now);
        waker_start(dev);
    }
    pthread_mutex_unlock(&dev->waker_lock);
    return armed;
}

int hcq_waker_prepare(struct hcq_device *dev)
{
    pthread_mutex_lock(&dev->waker_lock);
    while (dev->waker_making)
        pthread_cond_wait(&dev->waker_made, &dev->waker_lock);
    const bool have = dev->nwakers > 0;
    if (!have)
        dev->waker_making = true;
    pthread_mutex_unlock(&dev->waker_lock);
    return have ? 0 : waker_make(dev);
}

void hcq_waker_drain(struct hcq_device *dev)
{
    struct hcq_waker all[HCQ_WAKER_MAX];
    pthread_mutex_lock(&dev->waker_lock);
    while (dev->waker_making)
        pthread_cond_wait(&dev->waker_made, &dev->waker_lock);
    atomic_store(&dev->waker_closed, true);
    const unsigned n = dev->nwakers;
    memcpy(all, dev->wakers, sizeof(all));
    struct hcq_queue *retired = dev->waker_retired;
    dev->waker_retired = NULL;
    dev->nwakers = 0;
    dev->waker_off = false;
    pthread_mutex_unlock(&dev->waker_lock);
    hcq_queue_abandon(retired);
    for (unsigned i = 0; i < n; i++)
        hcq_queue_abandon(all[i].q);
}

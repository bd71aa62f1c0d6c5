/* Non-stall interrupts as wake-ups for threads that wait on the GPU.
 *
 * While some waiter sleeps on them (dev->irq_want), every host release is
 * followed by NON_STALL_INTERRUPT and copy-engine releases ask for a
 * non-blocking interrupt (queue.c, push_release), so the engine raises a
 * non-stall interrupt once the value has landed. RM turns the
 * interrupts of an engine into OS events for whoever registered an
 * NV01_EVENT_OS_EVENT on the subdevice with that engine's notifier index;
 * the events are posted without data to a ctl fd of ours (irq_fd), whose
 * poll() reports a pending event and clears it in the same call.
 *
 * One flag per fd means one poller: the first sleeping waiter polls
 * irq_fd, and every other one waits on the futex irq_gen, which the poller
 * bumps (and wakes) each time its poll returns. A waiter reads irq_gen
 * before it reads its semaphore, so an interrupt between that read and its
 * sleep is never lost: either the flag is still set when the poll starts,
 * or irq_gen has moved and the futex wait returns at once. An interrupt
 * says only that some release of the engine landed: every wake-up is a
 * hint to look again, and every sleep has a timeout. hcq_device_poke
 * wakes them all the same way (the seam's poke ends the poller's poll)
 * for a waiter that watches more than the GPU (hcq_signal_wait_stop). */
#include "core/priv.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void irq_free_events(struct hcq_device *dev)
{
    for (unsigned i = 0; i < dev->nirq_events; i++)
        nvdrv_rm_free(dev->drv, dev->h_subdevice, dev->irq_events[i]);
    dev->nirq_events = 0;
}

void hcq_irq_setup(struct hcq_device *dev)
{
    struct nvdrv *d = dev->drv;
    atomic_store(&dev->irq_on, false);
    dev->irq_fd = -1;
    dev->nirq_events = 0;
    if (!strcmp(util_env()->irq, "off"))
        return;
    int r = nvdrv_event_open(d, &dev->irq_fd);
    /* Compute releases raise the graphics engine's interrupt; a copy
     * release its copy engine's own: an asynchronous one, or a graphics
     * copy engine for copy queues on the graphics runlist. */
    const struct hcq_device_info *in = &dev->info;
    uint32_t notify[UTIL_ARRAY_SIZE(dev->irq_events)];
    _Static_assert(UTIL_ARRAY_SIZE(notify) ==
                       1 + UTIL_ARRAY_SIZE(in->async_ce) + UTIL_ARRAY_SIZE(in->grce),
                   "an event for every engine");
    unsigned n = 0;
    notify[n++] = NV2080_NOTIFIERS_GRAPHICS;
    for (unsigned i = 0; i < in->async_ce_count; i++)
        notify[n++] = NV2080_NOTIFIERS_CE(NV2080_ENGINE_TYPE_COPY_IDX(in->async_ce[i]));
    for (unsigned i = 0; i < in->grce_count; i++)
        notify[n++] = NV2080_NOTIFIERS_CE(NV2080_ENGINE_TYPE_COPY_IDX(in->grce[i]));
    for (unsigned i = 0; r == 0 && i < n; i++) {
        r = nvdrv_event_attach(d, dev->irq_fd, dev->h_subdevice, notify[i],
                               &dev->irq_events[dev->nirq_events]);
        if (r == 0)
            dev->nirq_events++;
    }
    if (r) {
        CORE_LOG("device %u: no interrupt wake-ups (%s); waits sleep in steps", dev->index,
                 r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
        hcq_irq_teardown(dev);
        return;
    }
    atomic_store(&dev->irq_on, true);
    CORE_LOG("device %u: non-stall interrupts of %u engines wake waiters", dev->index, n);
}

void hcq_irq_teardown(struct hcq_device *dev)
{
    atomic_store(&dev->irq_on, false);
    irq_free_events(dev);
    nvdrv_event_close(dev->drv, dev->irq_fd);
    dev->irq_fd = -1;
}

static struct timespec ts_of(uint64_t ns)
{
    return (struct timespec){(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
}

void hcq_irq_nap(struct hcq_device *dev, uint32_t gen, uint64_t ns)
{
    struct timespec ts = ts_of(ns);
    syscall(SYS_futex, &dev->irq_gen, FUTEX_WAIT_PRIVATE, gen, &ts, NULL, 0);
}

/* A wake-up of everyone as an interrupt's: gen moves (the futex sleepers
 * and naps return) and the poller's poll returns (the seam's poke). */
void hcq_device_poke(struct hcq_device *dev)
{
    atomic_fetch_add(&dev->irq_gen, 1);
    syscall(SYS_futex, &dev->irq_gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    if (atomic_load_explicit(&dev->irq_on, memory_order_acquire))
        nvdrv_event_poke(dev->drv, dev->irq_fd);
}

bool hcq_irq_sleep(struct hcq_device *dev, uint32_t gen, uint64_t ns)
{
    if (!atomic_load_explicit(&dev->irq_on, memory_order_relaxed)) {
        struct timespec ts = ts_of(ns);
        nanosleep(&ts, NULL);
        return false;
    }
    if (hcq_irq_gen(dev) != gen)
        return true;
    if (!atomic_exchange_explicit(&dev->irq_polling, true, memory_order_acquire)) {
        /* The poller. A poll that starts after an interrupt returns at
         * once: the driver's flag stays set until a poll takes it. */
        /* Not cancellable inside: a poller cancelled in ppoll would keep
         * the role for good. */
        int cs;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
        int r = hcq_irq_gen(dev) == gen ? nvdrv_event_wait(dev->drv, dev->irq_fd, ns) : 1;
        pthread_setcancelstate(cs, NULL);
        atomic_fetch_add_explicit(&dev->irq_gen, 1, memory_order_release);
        atomic_store_explicit(&dev->irq_polling, false, memory_order_release);
        syscall(SYS_futex, &dev->irq_gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
        if (r < 0) {
            /* A broken fd would turn every wait into a spin: stop using it. */
            CORE_ERR("core: device %u: polling for interrupts failed (%s); waits sleep in steps",
                     dev->index, strerror(-r));
            atomic_store(&dev->irq_on, false);
            return false;
        }
        return r > 0;
    }
    struct timespec ts = ts_of(ns);
    long r = syscall(SYS_futex, &dev->irq_gen, FUTEX_WAIT_PRIVATE, gen, &ts, NULL, 0);
    return r == 0 || errno == EAGAIN;
}

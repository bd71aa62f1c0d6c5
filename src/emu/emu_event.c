/*
 * OS events of the emulated driver: what NV_ESC_ALLOC_OS_EVENT,
 * NV01_EVENT_OS_EVENT and poll() on a ctl fd do on the real one.
 *
 * NV_ESC_ALLOC_OS_EVENT issued on fd F registers (client, key) → F. An
 * NV01_EVENT_OS_EVENT object on a subdevice, with NV01_EVENT_NONSTALL_INTR
 * and an engine notifier index, names (its client, data = key): each
 * non-stall interrupt of that engine (a channel's NON_STALL_INTERRUPT
 * method, a copy's LAUNCH_DMA with a non-blocking interrupt) then sets F's
 * "event pending" flag, and the seam's poll on F reports and clears it.
 * Events are posted without data, as hcqcl asks for (the driver queues
 * data only for events allocated without NV01_EVENT_WITHOUT_EVENT_DATA,
 * which the model refuses).
 *
 * Locking: the tables are under their own lock, taken by the driver half
 * (under emu.lock) and by GPU workers posting (without it).
 */
#include "nvdrv/nvdrv.h"

#include "emu/emu.h"

#include <errno.h>
#include <time.h>

#define EMU_OS_EVENTS 64    /* ALLOC_OS_EVENT registrations */
#define EMU_EVENT_OBJS 256  /* NV01_EVENT_OS_EVENT objects */

struct os_event {
    bool used;
    uint32_t client;
    uint32_t key;
    int fd;
};

struct event_obj {
    bool used;
    const struct emu_gpu *gpu;
    uint32_t notify; /* NV2080_NOTIFIERS_* index */
    int fd;          /* where it is posted; -1 once that fd closed */
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct os_event regs[EMU_OS_EVENTS];
    struct event_obj objs[EMU_EVENT_OBJS];
    bool pending[EMU_MAX_FDS];
} ev = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static struct os_event *reg_find(uint32_t client, uint32_t key)
{
    for (unsigned i = 0; i < EMU_OS_EVENTS; i++)
        if (ev.regs[i].used && ev.regs[i].client == client && ev.regs[i].key == key)
            return &ev.regs[i];
    return NULL;
}

uint32_t emu_event_register(int fd, uint32_t client, uint32_t key)
{
    uint32_t st = NV_ERR_INSUFFICIENT_RESOURCES;
    pthread_mutex_lock(&ev.lock);
    /* Only one registration per (client, key), as allocate_os_event. */
    if (!reg_find(client, key)) {
        for (unsigned i = 0; i < EMU_OS_EVENTS; i++)
            if (!ev.regs[i].used) {
                ev.regs[i] = (struct os_event){true, client, key, fd};
                st = NV_OK;
                break;
            }
    }
    pthread_mutex_unlock(&ev.lock);
    return st;
}

uint32_t emu_event_unregister(uint32_t client, uint32_t key)
{
    pthread_mutex_lock(&ev.lock);
    struct os_event *r = reg_find(client, key);
    if (r)
        r->used = false;
    pthread_mutex_unlock(&ev.lock);
    return r ? NV_OK : NV_ERR_INVALID_EVENT;
}

int emu_event_attach(const struct emu_gpu *gpu, uint32_t client,
                     const NV0005_ALLOC_PARAMETERS *p, uint32_t *status)
{
    /* Engine events only: non-stall, dataless, an index the model raises. */
    uint32_t idx = NV0005_NOTIFY_INDEX_INDEX(p->notifyIndex);
    bool engine = idx == NV2080_NOTIFIERS_GRAPHICS ||
                  (idx >= NV2080_NOTIFIERS_CE0 && idx < NV2080_NOTIFIERS_CE0 + 10);
    if (p->hClass != NV01_EVENT_OS_EVENT || !(p->notifyIndex & NV01_EVENT_NONSTALL_INTR) ||
        !(p->notifyIndex & NV01_EVENT_WITHOUT_EVENT_DATA) || !engine) {
        *status = NV_ERR_NOT_SUPPORTED;
        return -1;
    }
    int slot = -1;
    pthread_mutex_lock(&ev.lock);
    struct os_event *r = p->data <= UINT32_MAX ? reg_find(client, (uint32_t)p->data) : NULL;
    if (!r) {
        *status = NV_ERR_OBJECT_NOT_FOUND;
    } else {
        *status = NV_ERR_INSUFFICIENT_RESOURCES;
        for (int i = 0; i < EMU_EVENT_OBJS; i++)
            if (!ev.objs[i].used) {
                ev.objs[i] = (struct event_obj){true, gpu, idx, r->fd};
                slot = i;
                *status = NV_OK;
                break;
            }
    }
    pthread_mutex_unlock(&ev.lock);
    return slot;
}

void emu_event_detach(int slot)
{
    if (slot < 0 || slot >= EMU_EVENT_OBJS)
        return;
    pthread_mutex_lock(&ev.lock);
    ev.objs[slot].used = false;
    pthread_mutex_unlock(&ev.lock);
}

void emu_event_close_fd(int fd)
{
    pthread_mutex_lock(&ev.lock);
    for (unsigned i = 0; i < EMU_OS_EVENTS; i++)
        if (ev.regs[i].used && ev.regs[i].fd == fd)
            ev.regs[i].used = false;
    for (unsigned i = 0; i < EMU_EVENT_OBJS; i++)
        if (ev.objs[i].used && ev.objs[i].fd == fd)
            ev.objs[i].fd = -1;
    ev.pending[fd - EMU_FD_BASE] = false;
    pthread_mutex_unlock(&ev.lock);
}

void emu_event_post(const struct emu_gpu *gpu, uint32_t notify)
{
    bool any = false;
    pthread_mutex_lock(&ev.lock);
    for (unsigned i = 0; i < EMU_EVENT_OBJS; i++) {
        const struct event_obj *o = &ev.objs[i];
        if (o->used && o->fd >= 0 && o->gpu == gpu && o->notify == notify) {
            ev.pending[o->fd - EMU_FD_BASE] = true;
            any = true;
        }
    }
    if (any)
        pthread_cond_broadcast(&ev.cond);
    pthread_mutex_unlock(&ev.lock);
}

int emu_event_poll(int fd, uint64_t timeout_ns)
{
    if (fd < EMU_FD_BASE || fd - EMU_FD_BASE >= EMU_MAX_FDS)
        return -EBADF;
    bool *pending = &ev.pending[fd - EMU_FD_BASE];
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    uint64_t ns = (uint64_t)until.tv_nsec + timeout_ns % 1000000000u;
    until.tv_sec += (time_t)(timeout_ns / 1000000000u + ns / 1000000000u);
    until.tv_nsec = (long)(ns % 1000000000u);
    pthread_mutex_lock(&ev.lock);
    while (!*pending)
        if (pthread_cond_clockwait(&ev.cond, &ev.lock, CLOCK_MONOTONIC, &until) == ETIMEDOUT)
            break;
    int r = *pending ? 1 : 0;
    *pending = false;
    pthread_mutex_unlock(&ev.lock);
    return r;
}

int emu_event_poke(int fd)
{
    if (fd < EMU_FD_BASE || fd - EMU_FD_BASE >= EMU_MAX_FDS)
        return -EBADF;
    pthread_mutex_lock(&ev.lock);
    ev.pending[fd - EMU_FD_BASE] = true;
    pthread_cond_broadcast(&ev.cond);
    pthread_mutex_unlock(&ev.lock);
    return 0;
}

uint32_t emu_chan_notifier(const struct emu_chan *c)
{
    return NV2080_ENGINE_TYPE_IS_COPY(c->engine)
               ? NV2080_NOTIFIERS_CE(NV2080_ENGINE_TYPE_COPY_IDX(c->engine))
               : NV2080_NOTIFIERS_GRAPHICS;
}

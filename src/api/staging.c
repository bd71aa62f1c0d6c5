/*
 * staging.c — per-device pools of pinned host buffers for transfers from
 * and to pageable host memory (interface in obj.h, "Pinned staging").
 *
 * Why a pool: pinning memory costs system calls and driver work that a
 * transfer of a few KiB can't afford, while a transfer of gigabytes must
 * not pin gigabytes. A handful of 4 MiB chunks, refilled while the copy
 * engine drains the previous one, keeps both the CPU memcpy and the PCIe
 * link busy; small transfers take 64 KiB slots of a few slab chunks, so a
 * burst of them in flight at once still needs no new pinned memory.
 */
#include <stdlib.h>

#include "api/obj.h"

enum { SLOTS_PER_SLAB = HCQCL_STAGING_CHUNK / HCQCL_STAGING_SLOT };
_Static_assert(SLOTS_PER_SLAB <= 64, "a slab's slots are tracked in one 64-bit mask");

/* A chunk cut into slots; slot handles live here, never freed. */
struct staging_slab {
    struct hcq_mem *mem;
    uint64_t busy; /* bit i: slot i handed out */
    struct hcqcl_staging slots[SLOTS_PER_SLAB];
};

/* One device's pool. Chunks and slabs are created lazily and kept. */
struct staging_pool {
    struct hcq_device *dev;
    pthread_mutex_t lock;
    struct hcqcl_staging *free; /* idle chunks */
    unsigned created;           /* pooled chunks in existence */
    struct staging_slab *slabs[HCQCL_STAGING_SLABS];
    bool slab_pending;          /* a slab is being allocated */
};

enum { STAGING_MAX_DEVICES = 64 };

static pthread_mutex_t staging_pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct staging_pool *staging_pools[STAGING_MAX_DEVICES];

/* A forked child inherits these locks as the parent's other threads left
 * them: the forking thread holds them all across fork(), so that both
 * processes go on with them unlocked (a child that goes on using OpenCL
 * gets errors back, and releasing its commands puts staging back). The
 * pools' locks are leaves, taken after the list's. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&staging_pools_lock);
    for (unsigned i = 0; i < STAGING_MAX_DEVICES && staging_pools[i]; i++)
        pthread_mutex_lock(&staging_pools[i]->lock);
}

static void fork_release(void)
{
    for (unsigned i = 0; i < STAGING_MAX_DEVICES && staging_pools[i]; i++)
        pthread_mutex_unlock(&staging_pools[i]->lock);
    pthread_mutex_unlock(&staging_pools_lock);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void atfork_register(void) { pthread_atfork(fork_prepare, fork_release, fork_release); }

/* The pool of dev, created (and the device opened for it) on first use. */
static struct staging_pool *staging_pool(struct hcq_device *dev)
{
    struct staging_pool *p = NULL;
    pthread_once(&atfork_once, atfork_register);
    pthread_mutex_lock(&staging_pools_lock);
    unsigned i;
    for (i = 0; i < STAGING_MAX_DEVICES && staging_pools[i]; i++) {
        if (staging_pools[i]->dev == dev) {
            p = staging_pools[i];
            goto out;
        }
    }
    if (i == STAGING_MAX_DEVICES)
        goto out; /* more devices than slots: dedicated buffers only */
    p = calloc(1, sizeof(*p));
    if (!p)
        goto out;
    /* The pool's memory must outlive every context on dev: keep it open. */
    if (hcq_device_open(dev) < 0) {
        free(p);
        p = NULL;
        goto out;
    }
    p->dev = dev;
    pthread_mutex_init(&p->lock, NULL);
    staging_pools[i] = p;
out:
    pthread_mutex_unlock(&staging_pools_lock);
    return p;
}

static struct hcqcl_staging *staging_alloc(struct hcq_device *dev, size_t size,
                                           enum hcqcl_staging_kind kind)
{
    struct hcqcl_staging *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    int rc = hcq_mem_alloc(dev, size, HCQ_MEM_HOST, &s->mem);
    if (rc == 0)
        rc = hcq_signal_alloc(dev, &s->sig);
    if (rc < 0) {
        UTIL_LOG(UTIL_LOG_API, "api: staging: %zu bytes: error %d", size, rc);
        hcq_mem_free(s->mem);
        free(s);
        return NULL;
    }
    s->cpu = s->mem->cpu;
    s->va = s->mem->va;
    s->size = size;
    s->sig_val = hcq_signal_value(s->sig);
    s->kind = kind;
    return s;
}

static void staging_destroy(struct hcqcl_staging *s)
{
    hcq_signal_free(s->sig);
    hcq_mem_free(s->mem);
    free(s);
}

/* Take one idle chunk, or create one while the pool may grow. */
static struct hcqcl_staging *staging_take(struct staging_pool *p)
{
    struct hcqcl_staging *s = NULL;
    bool grow = false;
    pthread_mutex_lock(&p->lock);
    if (p->free) {
        s = p->free;
        p->free = s->next;
    } else if (p->created < HCQCL_STAGING_POOL) {
        p->created++;
        grow = true;
    }
    pthread_mutex_unlock(&p->lock);
    if (grow) {
        /* Allocated outside the lock: pinning can take a while. */
        s = staging_alloc(p->dev, HCQCL_STAGING_CHUNK, HCQCL_STAGING_POOLED);
        if (!s) {
            pthread_mutex_lock(&p->lock);
            p->created--;
            pthread_mutex_unlock(&p->lock);
        }
    }
    if (s)
        s->next = NULL;
    return s;
}

/* A free slot of an existing slab; called with p->lock held. */
static struct hcqcl_staging *slot_take_locked(struct staging_pool *p)
{
    for (unsigned i = 0; i < HCQCL_STAGING_SLABS && p->slabs[i]; i++) {
        struct staging_slab *slab = p->slabs[i];
        if (slab->busy == UINT64_MAX >> (64 - SLOTS_PER_SLAB))
            continue;
        unsigned k = (unsigned)__builtin_ctzll(~slab->busy);
        slab->busy |= 1ull << k;
        slab->slots[k].next = NULL;
        return &slab->slots[k];
    }
    return NULL;
}

static struct staging_slab *slab_create(struct hcq_device *dev)
{
    struct staging_slab *slab = calloc(1, sizeof(*slab));
    if (!slab)
        return NULL;
    if (hcq_mem_alloc(dev, HCQCL_STAGING_CHUNK, HCQ_MEM_HOST, &slab->mem) < 0) {
        free(slab);
        return NULL;
    }
    for (unsigned k = 0; k < SLOTS_PER_SLAB; k++) {
        struct hcqcl_staging *s = &slab->slots[k];
        s->cpu = (uint8_t *)slab->mem->cpu + (size_t)k * HCQCL_STAGING_SLOT;
        s->va = slab->mem->va + (uint64_t)k * HCQCL_STAGING_SLOT;
        s->size = HCQCL_STAGING_SLOT;
        s->mem = slab->mem;
        s->kind = HCQCL_STAGING_SLOTTED;
        s->slot = k;
    }
    return slab;
}

/* A slot, adding a slab while there is room for one. */
static struct hcqcl_staging *slot_take(struct staging_pool *p)
{
    pthread_mutex_lock(&p->lock);
    struct hcqcl_staging *s = slot_take_locked(p);
    unsigned free_idx = HCQCL_STAGING_SLABS;
    if (!s && !p->slab_pending) {
        for (unsigned i = 0; i < HCQCL_STAGING_SLABS && free_idx == HCQCL_STAGING_SLABS; i++)
            if (!p->slabs[i])
                free_idx = i;
        p->slab_pending = free_idx < HCQCL_STAGING_SLABS;
    }
    pthread_mutex_unlock(&p->lock);
    if (s || free_idx == HCQCL_STAGING_SLABS)
        return s;
    struct staging_slab *slab = slab_create(p->dev);
    pthread_mutex_lock(&p->lock);
    p->slabs[free_idx] = slab;
    p->slab_pending = false;
    s = slab ? slot_take_locked(p) : NULL;
    pthread_mutex_unlock(&p->lock);
    return s;
}

struct hcqcl_staging *hcqcl_staging_get(struct hcq_device *dev, size_t size)
{
    struct staging_pool *p = size <= HCQCL_STAGING_CHUNK ? staging_pool(dev) : NULL;
    struct hcqcl_staging *s = NULL;
    if (p && size <= HCQCL_STAGING_SLOT)
        s = slot_take(p);
    if (p && !s)
        s = staging_take(p);
    if (!s)
        s = staging_alloc(dev, size ? size : 1, HCQCL_STAGING_DEDICATED);
    return s;
}

unsigned hcqcl_staging_get_chunks(struct hcq_device *dev, unsigned max,
                                  struct hcqcl_staging **chain)
{
    struct staging_pool *p = staging_pool(dev);
    struct hcqcl_staging *head = NULL;
    unsigned n = 0;
    while (p && n < max) {
        struct hcqcl_staging *s = staging_take(p);
        if (!s)
            break;
        s->next = head;
        head = s;
        n++;
    }
    if (n == 0 && max > 0) {
        head = staging_alloc(dev, HCQCL_STAGING_CHUNK, HCQCL_STAGING_DEDICATED);
        n = head ? 1 : 0;
    }
    *chain = head;
    return n;
}

void hcqcl_staging_put(struct hcqcl_staging *chain)
{
    while (chain) {
        struct hcqcl_staging *s = chain;
        chain = s->next;
        if (s->kind == HCQCL_STAGING_DEDICATED) {
            staging_destroy(s);
            continue;
        }
        struct staging_pool *p = staging_pool(s->mem->dev);
        pthread_mutex_lock(&p->lock);
        if (s->kind == HCQCL_STAGING_SLOTTED) {
            for (unsigned i = 0; i < HCQCL_STAGING_SLABS; i++)
                if (p->slabs[i] && p->slabs[i]->mem == s->mem)
                    p->slabs[i]->busy &= ~(1ull << s->slot);
        } else if (s->broken) {
            /* Its signal may lag behind what was queued on it and would
             * stall its next user forever: replace it instead. */
            p->created--;
        } else {
            s->next = p->free;
            p->free = s;
            s = NULL;
        }
        pthread_mutex_unlock(&p->lock);
        if (s && s->kind == HCQCL_STAGING_POOLED)
            staging_destroy(s);
    }
}

void hcqcl_staging_put_cb(void *chain)
{
    hcqcl_staging_put(chain);
}

/* ---- Ready before the first transfer ---------------------------------- */

void hcqcl_staging_fill(struct hcq_device *dev)
{
    struct staging_pool *p = staging_pool(dev);
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    bool empty = p->created == 0;
    pthread_mutex_unlock(&p->lock);
    if (!empty)
        return;
    struct hcqcl_staging *chain = NULL;
    hcqcl_staging_get_chunks(dev, HCQCL_STAGING_RING, &chain);
    hcqcl_staging_put(chain);
    hcqcl_staging_put(slot_take(p));
}

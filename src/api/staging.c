/*
 * staging.c — per-device pools of pinned host buffers for transfers from
 * and to pageable host memory (interface in obj.h, "Pinned staging").
 *
 * Why a pool: pinning memory costs system calls and driver work that a
 * transfer of a few KiB can't afford, while a transfer of gigabytes must
 * not pin gigabytes. A handful of 4 MiB chunks, refilled while the copy
 * engine drains the previous one, keeps both the CPU memcpy and the PCIe
 * link busy.
 */
#include <errno.h>
#include <stdlib.h>

#include "api/obj.h"

/* One device's pool. Chunks are created lazily and live until exit. */
struct staging_pool {
    struct hcq_device *dev;
    pthread_mutex_t lock;
    struct hcqcl_staging *free; /* idle chunks */
    unsigned created;           /* pooled chunks in existence */
};

enum { STAGING_MAX_DEVICES = 64 };

static pthread_mutex_t staging_pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct staging_pool *staging_pools[STAGING_MAX_DEVICES];

/* The pool of dev, created (and the device opened for it) on first use. */
static struct staging_pool *staging_pool(struct hcq_device *dev)
{
    struct staging_pool *p = NULL;
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
    /* The pool's chunks must outlive every context on dev: keep it open. */
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

static struct hcqcl_staging *staging_alloc(struct hcq_device *dev, size_t size, bool pooled)
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
    s->sig_val = hcq_signal_value(s->sig);
    s->pooled = pooled;
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
        s = staging_alloc(p->dev, HCQCL_STAGING_CHUNK, true);
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

struct hcqcl_staging *hcqcl_staging_get(struct hcq_device *dev, size_t size)
{
    if (size <= HCQCL_STAGING_CHUNK) {
        struct staging_pool *p = staging_pool(dev);
        struct hcqcl_staging *s = p ? staging_take(p) : NULL;
        if (s)
            return s;
    }
    return staging_alloc(dev, size ? size : 1, false);
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
        head = staging_alloc(dev, HCQCL_STAGING_CHUNK, false);
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
        struct staging_pool *p = s->pooled ? staging_pool(s->mem->dev) : NULL;
        /* A chunk whose signal may lag behind what was queued on it would
         * stall its next user forever: replace it instead. */
        if (!p || s->broken) {
            if (p) {
                pthread_mutex_lock(&p->lock);
                p->created--;
                pthread_mutex_unlock(&p->lock);
            }
            staging_destroy(s);
            continue;
        }
        pthread_mutex_lock(&p->lock);
        s->next = p->free;
        p->free = s;
        pthread_mutex_unlock(&p->lock);
    }
}

void hcqcl_staging_put_cb(void *chain)
{
    hcqcl_staging_put(chain);
}

/*
 * host_pending.c — host memory that commands still write: the destination
 * of a read whose bytes reach it when the command runs or ends (a staged
 * read's copy-out, the GPU writing registered pages, a map's copy into an
 * SVM allocation's pages), from enqueue until then. A transfer *from* host
 * memory overlapping one must read it when it runs, not when enqueued:
 * on an in-order queue a write of what a read brings in, or the unmap of
 * a region a non-blocking map is still filling, moves the new bytes.
 */
#include <stdlib.h>

#include "api/obj.h"

static struct {
    pthread_mutex_t lock;
    struct hcqcl_host_pending *first;
    atomic_uint count; /* entries listed: 0 lets the check skip the lock */
} P = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Held by the forking thread across fork(): a child inherits it unlocked
 * (its commands' releases remove their entries). */
static void fork_prepare(void) { pthread_mutex_lock(&P.lock); }
static void fork_release(void) { pthread_mutex_unlock(&P.lock); }
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void atfork_register(void) { pthread_atfork(fork_prepare, fork_release, fork_release); }

void hcqcl_host_pending_add(struct hcqcl_host_pending *p, const void *ptr, size_t size)
{
    if (!size || atomic_load_explicit(&p->listed, memory_order_relaxed))
        return;
    p->lo = (uintptr_t)ptr;
    p->hi = (uintptr_t)ptr + size;
    pthread_once(&atfork_once, atfork_register);
    pthread_mutex_lock(&P.lock);
    p->prev = NULL;
    p->next = P.first;
    if (P.first)
        P.first->prev = p;
    P.first = p;
    atomic_store_explicit(&p->listed, true, memory_order_relaxed);
    atomic_fetch_add(&P.count, 1);
    pthread_mutex_unlock(&P.lock);
}

void hcqcl_host_pending_remove(struct hcqcl_host_pending *p)
{
    /* Every transfer's job comes here when released, most never listed:
     * no lock for those. An entry is added before the command that fills
     * its range ends, and removed after, by the command's own hooks. */
    if (!atomic_load_explicit(&p->listed, memory_order_relaxed))
        return;
    pthread_mutex_lock(&P.lock);
    if (atomic_load_explicit(&p->listed, memory_order_relaxed)) {
        if (p->prev)
            p->prev->next = p->next;
        else
            P.first = p->next;
        if (p->next)
            p->next->prev = p->prev;
        atomic_store_explicit(&p->listed, false, memory_order_relaxed);
        atomic_fetch_sub(&P.count, 1);
    }
    pthread_mutex_unlock(&P.lock);
}

bool hcqcl_host_pending_overlaps(const void *ptr, size_t size)
{
    if (!size || !atomic_load(&P.count))
        return false;
    const uintptr_t lo = (uintptr_t)ptr, hi = lo + size;
    bool hit = false;
    pthread_mutex_lock(&P.lock);
    for (const struct hcqcl_host_pending *p = P.first; p && !hit; p = p->next)
        hit = lo < p->hi && p->lo < hi;
    pthread_mutex_unlock(&P.lock);
    return hit;
}

static void pending_release(void *arg)
{
    hcqcl_host_pending_remove(arg);
    free(arg);
}

cl_int hcqcl_host_pending_cmd(struct hcqcl_cmd *cmd, const void *ptr, size_t size)
{
    struct hcqcl_host_pending *p = calloc(1, sizeof(*p));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources required by the OpenCL implementation on the host */
    HCQCL_CHECK(p, CL_OUT_OF_HOST_MEMORY, "pending host range");
    cl_int err = hcqcl_cmd_on_release(cmd, pending_release, p);
    if (err != CL_SUCCESS) {
        free(p);
        return err;
    }
    hcqcl_host_pending_add(p, ptr, size);
    return CL_SUCCESS;
}

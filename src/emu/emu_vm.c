/*
 * Memory objects and the per-GPU page table of the emulated device.
 *
 * Backing stores are shared anonymous mappings with MAP_NORESERVE: a
 * 16 GiB buffer costs nothing until touched, and because they are shared,
 * the CPU mapping the driver hands out (emu_seam.c) is a second view of
 * the same pages (mremap with old_size 0).
 *
 * The page table is a sorted array of ranges. Lookups go through a
 * caller-owned last-hit cache validated by a generation counter, so the
 * common case (a channel walking its pushbuffer, a kernel touching one
 * buffer) takes no lock.
 */
#include "emu/emu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t page_size(void)
{
    static uint64_t ps;
    if (!ps)
        ps = (uint64_t)sysconf(_SC_PAGESIZE);
    return ps;
}

struct emu_mem *emu_mem_create(uint64_t size)
{
    if (!size)
        return NULL;
    struct emu_mem *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->size = util_align_up(size, page_size());
    void *p = mmap(NULL, m->size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        free(m);
        return NULL;
    }
    m->host = p;
    m->owned = m->shareable = true;
    atomic_init(&m->refs, 1);
    return m;
}

struct emu_mem *emu_mem_wrap(void *host, uint64_t size)
{
    struct emu_mem *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->host = host;
    m->size = size;
    atomic_init(&m->refs, 1);
    return m;
}

struct emu_mem *emu_mem_ref(struct emu_mem *m)
{
    if (m)
        atomic_fetch_add(&m->refs, 1);
    return m;
}

void emu_mem_unref(struct emu_mem *m)
{
    if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
        return;
    if (m->vidmem)
        atomic_fetch_sub(&m->vidmem->mem_used, m->size);
    if (m->owned)
        munmap(m->host, m->size);
    free(m);
}

void emu_vm_init(struct emu_vm *vm)
{
    memset(vm, 0, sizeof(*vm));
    pthread_rwlock_init(&vm->lock, NULL);
    atomic_init(&vm->gen, 1);
}

void emu_vm_fini(struct emu_vm *vm)
{
    for (size_t i = 0; i < vm->n; i++)
        emu_mem_unref(vm->r[i].mem);
    free(vm->r);
    pthread_rwlock_destroy(&vm->lock);
    memset(vm, 0, sizeof(*vm));
}

/* First range whose end is above va (ranges are sorted and disjoint). */
static size_t lower_bound(const struct emu_vm *vm, uint64_t va)
{
    size_t lo = 0, hi = vm->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct emu_range *r = &vm->r[mid];
        if (r->va + r->len <= va)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool overlaps_locked(const struct emu_vm *vm, uint64_t va, uint64_t len)
{
    size_t i = lower_bound(vm, va);
    return i < vm->n && vm->r[i].va < va + len;
}

bool emu_vm_overlaps(struct emu_vm *vm, uint64_t va, uint64_t len)
{
    pthread_rwlock_rdlock(&vm->lock);
    bool o = overlaps_locked(vm, va, len);
    pthread_rwlock_unlock(&vm->lock);
    return o;
}

int emu_vm_map(struct emu_vm *vm, uint64_t va, uint64_t len, uint8_t *host, struct emu_mem *mem,
               int owner)
{
    if (!len || va + len < va)
        return -EINVAL;
    pthread_rwlock_wrlock(&vm->lock);
    int rc = 0;
    if (overlaps_locked(vm, va, len)) {
        rc = -EEXIST;
        goto out;
    }
    if (vm->n == vm->cap) {
        size_t cap = vm->cap ? vm->cap * 2 : 64;
        struct emu_range *r = realloc(vm->r, cap * sizeof(*r));
        if (!r) {
            rc = -ENOMEM;
            goto out;
        }
        vm->r = r;
        vm->cap = cap;
    }
    size_t i = lower_bound(vm, va);
    memmove(&vm->r[i + 1], &vm->r[i], (vm->n - i) * sizeof(vm->r[0]));
    vm->r[i] = (struct emu_range){va, len, host, emu_mem_ref(mem), owner};
    vm->n++;
    atomic_fetch_add(&vm->gen, 1);
out:
    pthread_rwlock_unlock(&vm->lock);
    return rc;
}

/* Remove ranges matching pred; refs dropped after the lock is released
 * (unref may munmap). */
static int remove_if(struct emu_vm *vm, bool (*pred)(const struct emu_range *, const void *),
                     const void *arg)
{
    struct emu_mem *dead[64];
    int total = 0;
    for (;;) {
        size_t nd = 0;
        pthread_rwlock_wrlock(&vm->lock);
        size_t w = 0;
        for (size_t i = 0; i < vm->n; i++) {
            if (nd < UTIL_ARRAY_SIZE(dead) && pred(&vm->r[i], arg))
                dead[nd++] = vm->r[i].mem;
            else
                vm->r[w++] = vm->r[i];
        }
        vm->n = w;
        if (nd)
            atomic_fetch_add(&vm->gen, 1);
        pthread_rwlock_unlock(&vm->lock);
        for (size_t i = 0; i < nd; i++)
            emu_mem_unref(dead[i]);
        total += (int)nd;
        if (nd < UTIL_ARRAY_SIZE(dead))
            return total;
    }
}

struct span_arg {
    uint64_t va, len;
};
static bool in_span(const struct emu_range *r, const void *p)
{
    const struct span_arg *a = p;
    return r->va >= a->va && r->va - a->va < a->len;
}
int emu_vm_unmap(struct emu_vm *vm, uint64_t va, uint64_t len)
{
    struct span_arg a = {va, len};
    return remove_if(vm, in_span, &a);
}

static bool by_owner(const struct emu_range *r, const void *p)
{
    return r->owner == *(const int *)p;
}
void emu_vm_unmap_owner(struct emu_vm *vm, int owner)
{
    remove_if(vm, by_owner, &owner);
}

uint64_t emu_vm_span(struct emu_vm *vm, struct emu_tlb *tlb, uint64_t va, uint64_t len,
                     uint8_t **host)
{
    uint64_t gen = atomic_load_explicit(&vm->gen, memory_order_acquire);
    if (!tlb || tlb->gen != gen || va < tlb->va || va - tlb->va >= tlb->len) {
        pthread_rwlock_rdlock(&vm->lock);
        size_t i = lower_bound(vm, va);
        bool hit = i < vm->n && vm->r[i].va <= va;
        struct emu_tlb t = {0};
        if (hit)
            t = (struct emu_tlb){gen, vm->r[i].va, vm->r[i].len, vm->r[i].host};
        pthread_rwlock_unlock(&vm->lock);
        if (!hit)
            return 0;
        if (!tlb)
            tlb = &t;
        else
            *tlb = t;
        uint64_t off = va - tlb->va;
        *host = tlb->host + off;
        return UTIL_MIN(len, tlb->len - off);
    }
    uint64_t off = va - tlb->va;
    *host = tlb->host + off;
    return UTIL_MIN(len, tlb->len - off);
}

void *emu_vm_translate(struct emu_vm *vm, struct emu_tlb *tlb, uint64_t va, uint64_t len)
{
    uint8_t *h;
    if (!len)
        len = 1;
    if (emu_vm_span(vm, tlb, va, len, &h) != len)
        return NULL;
    return h;
}

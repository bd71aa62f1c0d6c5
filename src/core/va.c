/* GPU virtual address allocator: first fit over a sorted, coalesced free
 * list, so freed ranges are reused (a long-running process must not walk
 * off the end of the address space as a bump allocator would). */
#include "core/priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct hcq_va *va)
{
    size_t cap = va->cap ? va->cap * 2 : 64;
    struct hcq_va_range *n = realloc(va->free, cap * sizeof(*n));
    if (!n)
        return -ENOMEM;
    va->free = n;
    va->cap = cap;
    return 0;
}

int hcq_va_init(struct hcq_va *va, uint64_t base, uint64_t end)
{
    memset(va, 0, sizeof(*va));
    pthread_mutex_init(&va->lock, NULL);
    va->base = base;
    va->end = end;
    if (grow(va))
        return -ENOMEM;
    va->free[0] = (struct hcq_va_range){base, end - base};
    va->nfree = 1;
    return 0;
}

void hcq_va_fini(struct hcq_va *va)
{
    free(va->free);
    va->free = NULL;
    va->nfree = va->cap = 0;
    pthread_mutex_destroy(&va->lock);
}

/* Take [start, start + size) out of free range i, which holds it. */
static int take_locked(struct hcq_va *va, size_t i, uint64_t start, uint64_t size)
{
    struct hcq_va_range *f = &va->free[i];
    uint64_t lead = start - f->base;
    uint64_t tail = f->size - lead - size;
    if (lead && tail) {
        /* Split in two: keep the lead here, insert the tail after it. */
        if (va->nfree == va->cap && grow(va))
            return -ENOMEM;
        f = &va->free[i];
        memmove(&va->free[i + 2], &va->free[i + 1], (va->nfree - i - 1) * sizeof(*f));
        va->free[i + 1] = (struct hcq_va_range){start + size, tail};
        f->size = lead;
        va->nfree++;
    } else if (lead) {
        f->size = lead;
    } else if (tail) {
        f->base = start + size;
        f->size = tail;
    } else {
        memmove(f, f + 1, (va->nfree - i - 1) * sizeof(*f));
        va->nfree--;
    }
    return 0;
}

int hcq_va_alloc(struct hcq_va *va, uint64_t size, uint64_t align, uint64_t *out)
{
    if (!size || !util_is_pow2(align) || size % HCQ_PAGE_4K)
        return -EINVAL;
    int r = -ENOMEM;
    pthread_mutex_lock(&va->lock);
    for (size_t i = 0; i < va->nfree; i++) {
        const struct hcq_va_range *f = &va->free[i];
        uint64_t start = util_align_up(f->base, align);
        uint64_t lead = start - f->base;
        if (lead >= f->size || size > f->size - lead)
            continue;
        r = take_locked(va, i, start, size);
        if (r == 0)
            *out = start;
        break;
    }
    pthread_mutex_unlock(&va->lock);
    return r;
}

int hcq_va_claim(struct hcq_va *va, uint64_t base, uint64_t size)
{
    if (!size || size % HCQ_PAGE_4K || base + size < base)
        return -EINVAL;
    int r = -EEXIST;
    pthread_mutex_lock(&va->lock);
    for (size_t i = 0; i < va->nfree; i++) {
        const struct hcq_va_range *f = &va->free[i];
        if (base >= f->base && base + size <= f->base + f->size) {
            r = take_locked(va, i, base, size);
            break;
        }
    }
    pthread_mutex_unlock(&va->lock);
    return r;
}

void hcq_va_free(struct hcq_va *va, uint64_t base, uint64_t size)
{
    pthread_mutex_lock(&va->lock);
    size_t i = 0;
    while (i < va->nfree && va->free[i].base < base)
        i++;
    bool join_prev = i > 0 && va->free[i - 1].base + va->free[i - 1].size == base;
    bool join_next = i < va->nfree && base + size == va->free[i].base;
    if (join_prev && join_next) {
        va->free[i - 1].size += size + va->free[i].size;
        memmove(&va->free[i], &va->free[i + 1], (va->nfree - i - 1) * sizeof(va->free[0]));
        va->nfree--;
    } else if (join_prev) {
        va->free[i - 1].size += size;
    } else if (join_next) {
        va->free[i].base = base;
        va->free[i].size += size;
    } else if (va->nfree < va->cap || grow(va) == 0) {
        memmove(&va->free[i + 1], &va->free[i], (va->nfree - i) * sizeof(va->free[0]));
        va->free[i] = (struct hcq_va_range){base, size};
        va->nfree++;
    }
    /* else: out of host memory; the range is leaked rather than corrupted. */
    pthread_mutex_unlock(&va->lock);
}

uint64_t hcq_va_free_bytes(struct hcq_va *va)
{
    uint64_t n = 0;
    pthread_mutex_lock(&va->lock);
    for (size_t i = 0; i < va->nfree; i++)
        n += va->free[i].size;
    pthread_mutex_unlock(&va->lock);
    return n;
}

size_t hcq_va_fragments(struct hcq_va *va)
{
    pthread_mutex_lock(&va->lock);
    size_t n = va->nfree;
    pthread_mutex_unlock(&va->lock);
    return n;
}

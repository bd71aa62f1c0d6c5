/* Small allocations: power-of-two blocks carved from slabs of one kind of
 * memory (64 KiB, or 16 blocks where those are larger than 4 KiB), so
 * that objects of a few bytes or kilobytes (image descriptors, small
 * buffers and images) cost no driver call, no GPU mapping and no page of
 * their own each. A slab
 * is an ordinary allocation (memory.c); its blocks are hcq_mem objects
 * whose free (hcq_mem_free) gives the block back. */
#include "core/priv.h"

#include <errno.h>
#include <stdlib.h>

#define SLAB_MIN_BYTES 0x10000u
#define SLAB_MIN_BLOCKS 16u
#define SLAB_MAX_SLOTS (SLAB_MIN_BYTES / HCQ_SMALL_MIN)

struct hcq_slab {
    struct hcq_slab *next;
    struct hcq_mem *mem;
    unsigned cls;   /* block size HCQ_SMALL_MIN << cls */
    unsigned kind;  /* enum hcq_mem_kind */
    unsigned slots; /* slab_bytes(cls) / block size */
    unsigned used;
    uint64_t bitmap[SLAB_MAX_SLOTS / 64]; /* 1 = block in use */
};

_Static_assert((HCQ_SMALL_MIN & (HCQ_SMALL_MIN - 1)) == 0, "classes are powers of two");
_Static_assert(HCQ_SMALL_MIN << (HCQ_SMALL_CLASSES - 1) == HCQ_SMALL_MAX, "classes reach MAX");
_Static_assert(SLAB_MIN_BLOCKS <= SLAB_MAX_SLOTS, "no slab has more slots than the bitmap holds");
/* Blocks are aligned to their class because slabs are: hcq_mem_alloc
 * aligns GPU addresses to 64 KiB (memory.c). */
_Static_assert(HCQ_SMALL_MAX <= 0x10000, "no class above the slabs' own alignment");

/* A slab of class cls: 64 KiB, or 16 blocks of the larger classes. */
static uint64_t slab_bytes(unsigned cls)
{
    const uint64_t block = (uint64_t)HCQ_SMALL_MIN << cls;
    return block * SLAB_MIN_BLOCKS > SLAB_MIN_BYTES ? block * SLAB_MIN_BLOCKS : SLAB_MIN_BYTES;
}

static unsigned size_class(uint64_t size)
{
    unsigned cls = 0;
    while ((uint64_t)HCQ_SMALL_MIN << cls < size)
        cls++;
    return cls;
}

static struct hcq_slab *slab_new(struct hcq_device *dev, enum hcq_mem_kind kind, unsigned cls)
{
    struct hcq_slab *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    if (hcq_mem_alloc(dev, slab_bytes(cls), kind, &s->mem)) {
        free(s);
        return NULL;
    }
    s->cls = cls;
    s->kind = kind;
    s->slots = (unsigned)(slab_bytes(cls) / (HCQ_SMALL_MIN << cls));
    return s;
}

static void slab_free(struct hcq_slab *s)
{
    hcq_mem_free(s->mem);
    free(s);
}

/* The first slab of the list with a free block, or NULL. */
static struct hcq_slab *with_room(struct hcq_slab *s)
{
    while (s && s->used == s->slots)
        s = s->next;
    return s;
}

int hcq_mem_alloc_small(struct hcq_device *dev, uint64_t size, enum hcq_mem_kind kind,
                        struct hcq_mem **out)
{
    *out = NULL;
    if (!size || size > HCQ_SMALL_MAX || kind == HCQ_MEM_USER)
        return -EINVAL;
    const unsigned cls = size_class(size);
    struct hcq_mem_priv *m = calloc(1, sizeof(*m));
    if (!m)
        return -ENOMEM;
    pthread_mutex_lock(&dev->small_lock);
    struct hcq_slab *s = with_room(dev->small[kind][cls]), *extra = NULL;
    if (!s) {
        /* A slab is a driver allocation, made without the lock: frees
         * (the event notifier's among them) do not wait for it. Another
         * thread may make one meanwhile, or free a block: the slab then
         * not needed goes again. */
        pthread_mutex_unlock(&dev->small_lock);
        struct hcq_slab *made = slab_new(dev, kind, cls);
        if (!made) {
            free(m);
            return -ENOMEM;
        }
        pthread_mutex_lock(&dev->small_lock);
        s = with_room(dev->small[kind][cls]);
        if (s) {
            extra = made;
        } else {
            /* Appended: blocks fill the oldest slabs first, so a pool
             * that shrinks back empties its newest ones, which go. */
            struct hcq_slab **list = &dev->small[kind][cls];
            while (*list)
                list = &(*list)->next;
            *list = s = made;
        }
    }
    unsigned i = 0;
    for (unsigned w = 0; w * 64 < s->slots; w++) {
        if (s->bitmap[w] == ~0ull)
            continue;
        const unsigned b = (unsigned)__builtin_ctzll(~s->bitmap[w]);
        i = w * 64 + b;
        s->bitmap[w] |= 1ull << b;
        break;
    }
    s->used++;
    pthread_mutex_unlock(&dev->small_lock);
    if (extra)
        slab_free(extra);
    const uint64_t off = (uint64_t)i * (HCQ_SMALL_MIN << cls);
    m->pub.dev = dev;
    m->pub.kind = kind;
    m->pub.size = size;
    m->pub.va = s->mem->va + off;
    m->pub.cpu = s->mem->cpu ? (uint8_t *)s->mem->cpu + off : NULL;
    m->slab = s;
    m->slot = i;
    *out = &m->pub;
    return 0;
}

void hcq_small_free(struct hcq_mem_priv *m)
{
    struct hcq_device *dev = m->pub.dev;
    struct hcq_slab *s = m->slab, *gone = NULL;
    pthread_mutex_lock(&dev->small_lock);
    s->bitmap[m->slot / 64] &= ~(1ull << (m->slot % 64));
    s->used--;
    struct hcq_slab **list = &dev->small[s->kind][s->cls];
    if (!s->used && *list != s) {
        /* Empty and not the class's first slab: it goes (the first stays
         * for the next block). */
        while (*list != s)
            list = &(*list)->next;
        *list = s->next;
        gone = s;
    }
    pthread_mutex_unlock(&dev->small_lock);
    free(m);
    if (gone)
        slab_free(gone);
}

void hcq_small_fini(struct hcq_device *dev)
{
    pthread_mutex_lock(&dev->small_lock);
    for (unsigned k = 0; k < HCQ_SMALL_KINDS; k++) {
        for (unsigned c = 0; c < HCQ_SMALL_CLASSES; c++) {
            struct hcq_slab *s = dev->small[k][c];
            dev->small[k][c] = NULL;
            while (s) {
                struct hcq_slab *next = s->next;
                if (s->used)
                    CORE_LOG("small allocations: %u blocks of %u bytes still allocated at "
                             "device close", s->used, HCQ_SMALL_MIN << s->cls);
                slab_free(s);
                s = next;
            }
        }
    }
    pthread_mutex_unlock(&dev->small_lock);
}

unsigned hcq_small_slabs(struct hcq_device *dev)
{
    unsigned n = 0;
    pthread_mutex_lock(&dev->small_lock);
    for (unsigned k = 0; k < HCQ_SMALL_KINDS; k++)
        for (unsigned c = 0; c < HCQ_SMALL_CLASSES; c++)
            for (struct hcq_slab *s = dev->small[k][c]; s; s = s->next)
                n++;
    pthread_mutex_unlock(&dev->small_lock);
    return n;
}

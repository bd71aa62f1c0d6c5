/*
 * core_memory.c — the VA allocator (first fit, reuse, coalescing), every
 * memory kind with its CPU view and VA range, reuse of freed ranges, the
 * device-memory counter, large pinned host memory through a copy engine
 * (core_memory_driver_pages: with HCQCL_HOST_PAGES=driver), registration of user pages, memory
 * at a chosen address (SVM), reads of a CPU view (streaming loads of
 * write-combined memory), small blocks shared out of slabs, and 10 000 alloc/free cycles that must leave nothing behind.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "core_test.h"

static void test_va(void)
{
    struct hcq_va va;
    REQUIRE(hcq_va_init(&va, 0x100000, 0x100000 + (64ull << 20)) == 0);
    uint64_t total = hcq_va_free_bytes(&va), a, b, c, d;
    EXPECT_EQ(hcq_va_alloc(&va, 0x1000, 0x1000, &a), 0);
    EXPECT_EQ(a, 0x100000);
    EXPECT_EQ(hcq_va_alloc(&va, 0x3000, 0x1000, &b), 0);
    EXPECT_EQ(b, 0x101000);
    EXPECT_EQ(hcq_va_alloc(&va, 0x200000, 0x200000, &c), 0);
    EXPECT_EQ(c % 0x200000, 0);
    EXPECT_EQ(hcq_va_alloc(&va, 0x1000, 0x1000, &d), 0);
    EXPECT_EQ(d, 0x104000); /* first fit: the gap before the aligned block */
    EXPECT_EQ(hcq_va_alloc(&va, 0x1001, 0x1000, &d), -EINVAL);
    EXPECT_EQ(hcq_va_alloc(&va, 128ull << 20, 0x1000, &d), -ENOMEM);
    /* Freed ranges come back, and neighbours merge again. */
    hcq_va_free(&va, b, 0x3000);
    uint64_t e;
    EXPECT_EQ(hcq_va_alloc(&va, 0x2000, 0x1000, &e), 0);
    EXPECT_EQ(e, b);
    hcq_va_free(&va, e, 0x2000);
    hcq_va_free(&va, a, 0x1000);
    hcq_va_free(&va, 0x104000, 0x1000);
    hcq_va_free(&va, c, 0x200000);
    EXPECT_EQ(hcq_va_free_bytes(&va), total);
    EXPECT_EQ(hcq_va_fragments(&va), 1);
    /* Claims take exactly the range asked for, or nothing. */
    EXPECT_EQ(hcq_va_claim(&va, 0x180000, 0x10000), 0);
    EXPECT_EQ(hcq_va_fragments(&va), 2);
    EXPECT_EQ(hcq_va_claim(&va, 0x188000, 0x10000), -EEXIST); /* overlaps the first */
    EXPECT_EQ(hcq_va_claim(&va, 0x100000 + (64ull << 20) - 0x1000, 0x2000), -EEXIST);
    EXPECT_EQ(hcq_va_claim(&va, 0x100000, 0x80000), 0);       /* the head */
    EXPECT_EQ(hcq_va_claim(&va, 0x180000, 0x1000), -EEXIST);
    EXPECT_EQ(hcq_va_claim(&va, 0x190000, 0x1001), -EINVAL);
    EXPECT_EQ(hcq_va_alloc(&va, 0x1000, 0x1000, &a), 0);
    EXPECT_EQ(a, 0x190000); /* first fit after the claims */
    hcq_va_free(&va, a, 0x1000);
    hcq_va_free(&va, 0x180000, 0x10000);
    hcq_va_free(&va, 0x100000, 0x80000);
    EXPECT_EQ(hcq_va_free_bytes(&va), total);
    EXPECT_EQ(hcq_va_fragments(&va), 1);
    hcq_va_fini(&va);
}

/* Memory at a chosen address (an SVM allocation's host address): device
 * memory and registered host pages at the address of those pages, which
 * a copy engine then reaches there. The reservation refuses what the
 * plan already holds and the shader windows. */
static void test_fixed(struct hcq_device *dev)
{
    const uint64_t size = 16ull << 20;
    uint8_t *raw = mmap(NULL, size + (2u << 20), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(raw != MAP_FAILED);
    uint8_t *pages = (uint8_t *)(((uintptr_t)raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
    const uint64_t at = (uintptr_t)pages;
    REQUIRE(hcq_va_reserve(at, size) == 0);
    EXPECT_EQ(hcq_va_reserve(at + 0x10000, 0x10000), -EEXIST);
    EXPECT_EQ(hcq_va_reserve(HCQ_SHARED_WINDOW, 0x10000), -EEXIST);
    EXPECT_EQ(hcq_va_reserve(0x1000, 0x10000), -EEXIST); /* below every range */
    struct hcq_mem *d = NULL, *h = NULL, *dm = NULL;
    EXPECT_EQ(hcq_mem_alloc_at(dev, at + 0x8000, 0x10000, HCQ_MEM_DEVICE, NULL, false, &d),
              -EINVAL);
    REQUIRE(hcq_mem_alloc_at(dev, at, size, HCQ_MEM_DEVICE, NULL, false, &d) == 0);
    EXPECT_EQ(d->va, at);
    EXPECT(d->cpu == NULL);
    EXPECT_EQ(hcq_mem_priv(d)->page, 2u << 20);
    /* The host pages themselves, at another reserved address. */
    uint64_t hva = 0;
    REQUIRE(hcq_va_alloc(dev->va_high, size, 2u << 20, &hva) == 0);
    REQUIRE(hcq_mem_alloc_at(dev, hva, size, HCQ_MEM_USER, pages, false, &h) == 0);
    EXPECT(h->cpu == pages);
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_DEVICE, &dm) == 0);
    for (uint64_t i = 0; i < size; i += 4096)
        pages[i] = (uint8_t)(i >> 12);
    struct hcq_queue *q = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    uint64_t v = 0;
    /* pages -> device memory at their address -> elsewhere -> pages. */
    EXPECT_EQ(hcq_q_copy(q, at, hva, size), 0);
    EXPECT_EQ(hcq_q_fill(q, hva, size, &(uint32_t){0}, 4), 0);
    EXPECT_EQ(hcq_q_copy(q, dm->va, at, size), 0);
    EXPECT_EQ(hcq_q_copy(q, hva, dm->va, size), 0);
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, 10000000000ull), 0);
    bool same = true;
    for (uint64_t i = 0; i < size; i += 4096)
        same &= pages[i] == (uint8_t)(i >> 12);
    EXPECT(same);
    hcq_queue_destroy(q);
    hcq_mem_free(dm);
    hcq_mem_free(h);
    hcq_mem_free(d);
    hcq_va_free(dev->va_high, hva, size);
    hcq_va_unreserve(at, size);
    /* Given back: the same range can be reserved again. */
    EXPECT_EQ(hcq_va_reserve(at, size), 0);
    hcq_va_unreserve(at, size);
    munmap(raw, size + (2u << 20));
}

static void test_kinds(struct hcq_device *dev)
{
    uint64_t base = hcq_mem_in_use(dev);
    struct hcq_mem *dm, *mm, *hm, *big;
    EXPECT_EQ(hcq_mem_alloc(dev, 12345, HCQ_MEM_DEVICE, &dm), 0);
    EXPECT_EQ(hcq_mem_alloc(dev, 1 << 20, HCQ_MEM_DEVICE_MAPPED, &mm), 0);
    EXPECT_EQ(hcq_mem_alloc(dev, 3 << 12, HCQ_MEM_HOST, &hm), 0);
    EXPECT_EQ(hcq_mem_alloc(dev, 9ull << 20, HCQ_MEM_DEVICE, &big), 0);
    REQUIRE(dm && mm && hm && big);
    EXPECT(dm->cpu == NULL);
    EXPECT(mm->cpu && hm->cpu);
    EXPECT_EQ(dm->size, 12345);
    EXPECT_EQ(dm->kind, HCQ_MEM_DEVICE);
    /* GPU-only buffers above 2^40; what the CPU writes for the GPU below. */
    EXPECT(dm->va >= (1ull << 40));
    EXPECT(mm->va + mm->size <= (1ull << 40));
    EXPECT(hm->va + hm->size <= (1ull << 40));
    /* Large vidmem: 2 MiB pages, 2 MiB aligned. */
    EXPECT_EQ(big->va % (2u << 20), 0);
    EXPECT_EQ(hcq_mem_in_use(dev) - base, 4096 * 4 + (1 << 20) + (10ull << 20));
    /* CPU views are real memory. */
    memset(mm->cpu, 0xab, 1 << 20);
    EXPECT_EQ(((uint8_t *)mm->cpu)[(1 << 20) - 1], 0xab);
    memset(hm->cpu, 0xcd, 3 << 12);
    EXPECT_EQ(((uint8_t *)hm->cpu)[100], 0xcd);
    /* Distinct, non-overlapping GPU ranges. */
    struct hcq_mem *all[] = {dm, mm, hm, big};
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            EXPECT(all[i]->va + all[i]->size <= all[j]->va ||
                   all[j]->va + all[j]->size <= all[i]->va);
    /* A freed range is handed out again. */
    uint64_t dva = dm->va, hva = hm->va;
    hcq_mem_free(dm);
    hcq_mem_free(hm);
    EXPECT_EQ(hcq_mem_alloc(dev, 12345, HCQ_MEM_DEVICE, &dm), 0);
    EXPECT_EQ(hcq_mem_alloc(dev, 3 << 12, HCQ_MEM_HOST, &hm), 0);
    EXPECT_EQ(dm->va, dva);
    EXPECT_EQ(hm->va, hva);
    hcq_mem_free(dm);
    hcq_mem_free(hm);
    hcq_mem_free(mm);
    hcq_mem_free(big);
    hcq_mem_free(NULL);
    EXPECT_EQ(hcq_mem_in_use(dev), base);
    EXPECT_EQ(hcq_mem_alloc(dev, 0, HCQ_MEM_DEVICE, &dm), -EINVAL);
}

/* Pinned host memory of 2 MiB and more: our own pages pinned through an
 * OS descriptor, or with HCQCL_HOST_PAGES=driver pages RM allocates. Either
 * way the CPU writes it and a copy engine reads and writes it. */
static void test_host_pages(struct hcq_device *dev)
{
    const bool driver = !strcmp(util_env()->host_pages, "driver");
    const uint64_t size = (4u << 20) + 4096;
    struct hcq_mem *h = NULL, *back = NULL, *d = NULL;
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_HOST, &h) == 0);
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_HOST, &back) == 0);
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_DEVICE, &d) == 0);
    struct hcq_mem_priv *p = hcq_mem_priv(h);
    EXPECT(p->own_pages == !driver);
    EXPECT(p->h_memory != 0);
    EXPECT_EQ(h->va % (2u << 20), 0);
    uint32_t *w = h->cpu;
    for (uint64_t i = 0; i < size / 4; i++)
        w[i] = (uint32_t)(i * 2654435761u);
    memset(back->cpu, 0, size);
    struct hcq_queue *q = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    uint64_t v = 0;
    EXPECT_EQ(hcq_q_copy(q, d->va, h->va, size), 0);
    EXPECT_EQ(hcq_q_copy(q, back->va, d->va, size), 0);
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, 10000000000ull), 0);
    EXPECT(memcmp(h->cpu, back->cpu, size) == 0);
    hcq_queue_destroy(q);
    hcq_mem_free(h);
    hcq_mem_free(back);
    hcq_mem_free(d);
}

static void test_register(struct hcq_device *dev)
{
    /* An unaligned user pointer: va addresses the byte at host. */
    uint8_t *buf = aligned_alloc(4096, 5 * 4096);
    REQUIRE(buf);
    struct hcq_mem *um;
    EXPECT_EQ(hcq_mem_register(dev, buf + 100, 3 * 4096, &um), 0);
    if (um) {
        EXPECT_EQ(um->kind, HCQ_MEM_USER);
        EXPECT(um->cpu == buf + 100);
        EXPECT_EQ(um->va % 4096, 100);
        EXPECT_EQ(um->size, 3 * 4096);
        hcq_mem_free(um);
    }
    EXPECT_EQ(hcq_mem_register(dev, NULL, 4096, &um), -EINVAL);
    EXPECT_EQ(hcq_mem_register(dev, buf, 0, &um), -EINVAL);
    free(buf);
}

/* Small blocks: shared slabs, aligned to their class, disjoint, real
 * memory the GPU reads where the CPU wrote it, one driver allocation per
 * slab, and an emptied slab gone unless it is its class's first. */
static void test_small(struct hcq_device *dev)
{
    enum { N = 1500 };
    static struct hcq_mem *b[N];
    const unsigned slabs0 = hcq_small_slabs(dev);
    const uint64_t allocs0 = hcq_mem_allocs(dev);
    for (int i = 0; i < N; i++) {
        REQUIRE(hcq_mem_alloc_small(dev, 64, HCQ_MEM_DEVICE_MAPPED, &b[i]) == 0);
        EXPECT_EQ(b[i]->size, 64);
        EXPECT_EQ(b[i]->kind, HCQ_MEM_DEVICE_MAPPED);
        EXPECT_EQ(b[i]->va % 64, 0);
        REQUIRE(b[i]->cpu);
        memset(b[i]->cpu, (uint8_t)i, 64);
    }
    /* 1024 blocks of 64 bytes to a slab: two slabs, two driver calls. */
    EXPECT_EQ(hcq_small_slabs(dev) - slabs0, 2);
    EXPECT_EQ(hcq_mem_allocs(dev) - allocs0, 2);
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N && j < i + 1100; j += 97)
            EXPECT(b[i]->va + 64 <= b[j]->va || b[j]->va + 64 <= b[i]->va);
    /* The GPU sees what the CPU wrote: a copy engine gathers two blocks
     * from different slabs into one host buffer. */
    struct hcq_mem *h = NULL;
    struct hcq_queue *q = NULL;
    REQUIRE(hcq_mem_alloc(dev, 4096, HCQ_MEM_HOST, &h) == 0);
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    memset(h->cpu, 0, 4096);
    uint64_t v = 0;
    EXPECT_EQ(hcq_q_copy(q, h->va, b[7]->va, 64), 0);
    EXPECT_EQ(hcq_q_copy(q, h->va + 64, b[N - 3]->va, 64), 0);
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, 10000000000ull), 0);
    EXPECT_EQ(((uint8_t *)h->cpu)[0], 7);
    EXPECT_EQ(((uint8_t *)h->cpu)[127], (uint8_t)(N - 3));
    hcq_queue_destroy(q);
    hcq_mem_free(h);
    /* The second slab empties and goes; the first stays with its blocks. */
    for (int i = 1024; i < N; i++)
        hcq_mem_free(b[i]);
    EXPECT_EQ(hcq_small_slabs(dev) - slabs0, 1);
    /* A freed block is handed out again. */
    const uint64_t va5 = b[5]->va;
    hcq_mem_free(b[5]);
    REQUIRE(hcq_mem_alloc_small(dev, 33, HCQ_MEM_DEVICE_MAPPED, &b[5]) == 0);
    EXPECT_EQ(b[5]->va, va5);
    EXPECT_EQ(b[5]->size, 33);
    for (int i = 0; i < 1024; i++)
        hcq_mem_free(b[i]);
    EXPECT_EQ(hcq_small_slabs(dev) - slabs0, 1);
    /* Classes: a block is aligned to the power of two that holds it, and
     * each kind has slabs of its own. */
    static const uint64_t sizes[] = {1, 65, 100, 129, 1000, 2049, 4096, 4097, 40000, 65536};
    static const uint64_t cls[] = {64, 128, 128, 256, 1024, 4096, 4096, 8192, 65536, 65536};
    enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
    struct hcq_mem *s[NS], *t[NS];
    for (int i = 0; i < NS; i++) {
        REQUIRE(hcq_mem_alloc_small(dev, sizes[i], HCQ_MEM_HOST, &s[i]) == 0);
        REQUIRE(hcq_mem_alloc_small(dev, sizes[i], HCQ_MEM_DEVICE, &t[i]) == 0);
        EXPECT_EQ(s[i]->va % cls[i], 0);
        EXPECT_EQ(t[i]->va % cls[i], 0);
        EXPECT(s[i]->cpu != NULL);
        EXPECT(t[i]->cpu == NULL);
    }
    for (int i = 0; i < NS; i++) {
        hcq_mem_free(s[i]);
        hcq_mem_free(t[i]);
    }
    /* Blocks above 4 KiB come 16 to a slab. */
    struct hcq_mem *big[17];
    const unsigned slabs1 = hcq_small_slabs(dev);
    for (int i = 0; i < 17; i++)
        REQUIRE(hcq_mem_alloc_small(dev, 32768, HCQ_MEM_DEVICE, &big[i]) == 0);
    EXPECT(hcq_small_slabs(dev) - slabs1 <= 2);
    for (int i = 0; i < 17; i++)
        for (int j = 0; j < i; j++)
            EXPECT(big[i]->va + 32768 <= big[j]->va || big[j]->va + 32768 <= big[i]->va);
    for (int i = 0; i < 17; i++)
        hcq_mem_free(big[i]);
    struct hcq_mem *x = NULL;
    EXPECT_EQ(hcq_mem_alloc_small(dev, 0, HCQ_MEM_HOST, &x), -EINVAL);
    EXPECT_EQ(hcq_mem_alloc_small(dev, HCQ_SMALL_MAX + 1, HCQ_MEM_HOST, &x), -EINVAL);
    EXPECT_EQ(hcq_mem_alloc_small(dev, 64, HCQ_MEM_USER, &x), -EINVAL);
    EXPECT(x == NULL);
}

static void test_cycles(struct hcq_device *dev)
{
    /* Warm up once so lazily created state exists, then measure. */
    struct hcq_mem *m[4];
    static const enum hcq_mem_kind kinds[4] = {HCQ_MEM_DEVICE, HCQ_MEM_DEVICE_MAPPED,
                                               HCQ_MEM_HOST, HCQ_MEM_DEVICE};
    static const uint64_t sizes[4] = {4096, 65536, 8192, 8ull << 20};
    uint64_t use0 = hcq_mem_in_use(dev);
    uint64_t low0 = hcq_va_free_bytes(dev->va_low), high0 = hcq_va_free_bytes(dev->va_high);
    size_t frag_low0 = hcq_va_fragments(dev->va_low), frag_high0 = hcq_va_fragments(dev->va_high);
    uint8_t *user = aligned_alloc(4096, 8192);
    REQUIRE(user);
    for (int i = 0; i < 10000; i++) {
        int k = i % 4;
        int r = hcq_mem_alloc(dev, sizes[k] + (uint64_t)(i % 7) * 4096, kinds[k], &m[k]);
        if (r) {
            EXPECT_EQ(r, 0);
            break;
        }
        if (k == 3) {
            struct hcq_mem *um;
            EXPECT_EQ(hcq_mem_register(dev, user + (i % 64), 4096, &um), 0);
            hcq_mem_free(um);
            for (int j = 3; j >= 0; j--)
                hcq_mem_free(m[j]);
        }
    }
    free(user);
    EXPECT_EQ(hcq_mem_in_use(dev), use0);
    EXPECT_EQ(hcq_va_free_bytes(dev->va_low), low0);
    EXPECT_EQ(hcq_va_free_bytes(dev->va_high), high0);
    EXPECT_EQ(hcq_va_fragments(dev->va_low), frag_low0);
    EXPECT_EQ(hcq_va_fragments(dev->va_high), frag_high0);
}

/* Reads of a CPU view: hcq_wc_read at every alignment of both ends of a
 * span (the streaming loads read the 16-byte blocks holding the ends
 * whole and must keep only the bytes asked for), and hcq_mem_read of a
 * device-mapped allocation the GPU filled (BAR1 on a GPU). */
static void test_read(struct hcq_device *dev)
{
    enum { SPAN = 8192 };
    uint8_t *src = mmap(NULL, SPAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(src != MAP_FAILED);
    for (uint32_t i = 0; i < SPAN; i++)
        src[i] = (uint8_t)(i * 131u + (i >> 8));
    uint8_t dst[1200 + 32];
    bool same = true;
    for (uint32_t off = 0; off < 48; off++)
        for (uint32_t n = 0; n <= 1200; n += n < 80 ? 1 : 37) {
            memset(dst, 0xa5, sizeof(dst));
            hcq_wc_read(dst + 16, src + off, n);
            same &= memcmp(dst + 16, src + off, n) == 0;
            for (uint32_t k = 0; k < 16; k++)
                same &= dst[k] == 0xa5 && dst[16 + n + k] == 0xa5;
        }
    EXPECT(same);
    munmap(src, SPAN);

    const uint32_t size = 1u << 20;
    struct hcq_mem *m = NULL, *h = NULL;
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_DEVICE_MAPPED, &m) == 0);
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_HOST, &h) == 0);
    uint32_t *words = h->cpu;
    for (uint32_t i = 0; i < size / 4; i++)
        words[i] = i * 2654435761u;
    struct hcq_queue *q = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    uint64_t v = 0;
    EXPECT_EQ(hcq_q_copy(q, m->va, h->va, size), 0);
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, 10000000000ull), 0);
    uint8_t *back = malloc(size);
    REQUIRE(back != NULL);
    hcq_mem_read(m, 0, back, size);
    EXPECT(memcmp(back, words, size) == 0);
    memset(back, 0, size);
    hcq_mem_read(m, 8, back, 4093);
    EXPECT(memcmp(back, (uint8_t *)words + 8, 4093) == 0);
    hcq_mem_read(h, 12, back, 100);
    EXPECT(memcmp(back, (uint8_t *)words + 12, 100) == 0);
    free(back);
    hcq_queue_destroy(q);
    hcq_mem_free(h);
    hcq_mem_free(m);
}

int main(void)
{
    test_va();
    struct hcq_device *dev = core_test_device();
    test_kinds(dev);
    test_host_pages(dev);
    test_register(dev);
    test_fixed(dev);
    test_read(dev);
    test_small(dev);
    test_cycles(dev);
    hcq_device_close(dev);
    return core_test_done("core_memory");
}

/*
 * builtin_core.c — the built-in copy kernel through the core (hcq.h,
 * builtin.h), checked byte for byte on whatever device hcq_enumerate
 * finds: the emulated one in CI (the host version of builtin_emu.c), the
 * GPU when run there (the SASS of kernels.cu).
 *
 *  - every (src, dst) alignment mod 16 for sizes 0 .. 4 KiB + odd, 256
 *    launches per submission, with guard bytes around each destination;
 *  - large odd copies for every unit width (16, 8, 4, 2, 1 bytes) with
 *    launch shapes that make blocks loop over many rows, leave blocks
 *    without rows, use one warp per block, or the default shape, for each
 *    kernel variant (2, 4, 8 units per thread and row; with --bulk only
 *    the TMA bulk one);
 *  - fills with patterns of 1 .. 128 bytes at every phase, small to
 *    multi-row sizes;
 *  - the default block count, and the verbs' argument errors.
 */
#include "core_test.h"

#include "builtin/builtin.h"

#define WAIT_NS 30000000000ull

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint8_t rnd8(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint8_t)(rng_state >> 24);
}

static void finish(struct hcq_queue *q)
{
    uint64_t v = 0;
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    REQUIRE(hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS) == 0, "device lost or hung");
}

struct bufs {
    struct hcq_mem *src, *dst;
    uint8_t *want; /* what dst must hold */
    uint64_t size;
    uint64_t used;  /* bytes set up and compared: [0, used) */
};

static void bufs_reset(struct bufs *b, uint64_t used)
{
    uint8_t *s = b->src->cpu, *d = b->dst->cpu;
    REQUIRE(used <= b->size);
    for (uint64_t i = 0; i < used; i++) {
        s[i] = rnd8();
        d[i] = (uint8_t)(0xA5 ^ (i >> 4));
    }
    memcpy(b->want, d, used);
    b->used = used;
}

/* Record a copy and apply it to the model. */
static int copy(struct hcq_queue *q, struct bufs *b, uint64_t doff, uint64_t soff, uint64_t size,
                enum hcq_builtin_copy_variant v, uint32_t blocks, uint32_t threads)
{
    REQUIRE(doff <= b->used && size <= b->used - doff && soff <= b->used &&
            size <= b->used - soff);
    memcpy(b->want + doff, (const uint8_t *)b->src->cpu + soff, size);
    return hcq_builtin_copy_ex(q, b->dst->va + doff, b->src->va + soff, size, v, blocks, threads);
}

/* First differing byte of dst and the model, -1 when none. */
static long first_diff(const struct bufs *b)
{
    const uint8_t *d = b->dst->cpu;
    for (uint64_t i = 0; i < b->used; i++)
        if (d[i] != b->want[i])
            return (long)i;
    return -1;
}

static void test_alignments(struct hcq_queue *q, struct bufs *b)
{
    static const uint64_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33,
                                     47, 63, 64, 65, 100, 255, 256, 257, 1000, 4099};
    for (size_t k = 0; k < UTIL_ARRAY_SIZE(sizes); k++) {
        const uint64_t n = sizes[k], stride = util_align_up(n + 48, 16);
        bufs_reset(b, 256 * stride);
        for (unsigned sa = 0; sa < 16; sa++)
            for (unsigned da = 0; da < 16; da++) {
                uint64_t slot = (sa * 16 + da) * stride;
                /* 16 guard bytes before each destination stay untouched. */
                EXPECT_EQ(copy(q, b, slot + 16 + da, slot + 16 + sa, n, HCQ_BUILTIN_COPY_U4, 0,
                               HCQ_BUILTIN_COPY_THREADS),
                          0);
            }
        finish(q);
        long d = first_diff(b);
        if (d >= 0)
            fprintf(stderr, "size %llu: first wrong byte at %ld (slot %ld, +%ld)\n",
                    (unsigned long long)n, d, d / (long)stride, d % (long)stride);
        EXPECT(d < 0, "size %llu", (unsigned long long)n);
    }
}

/* The load/store variants, or (bulk) the TMA one alone: a fault there
 * must not hide the results of the others on the GPU. */
static void test_shapes(struct hcq_queue *q, struct bufs *b, bool bulk)
{
    /* (src, dst) offsets giving unit widths 16, 8, 4, 2, 1 with a head. */
    static const uint64_t offs[][2] = {{3, 19}, {5, 13}, {6, 2}, {1, 3}, {2, 7}};
    static const uint32_t shapes[][2] = {{1, 32}, {7, 96}, {0, 512}, {100000, 64}, {0, 256}};
    const uint64_t n = (3u << 20) + 5;
    for (unsigned v = 0; v < HCQ_BUILTIN_COPY_VARIANTS; v++)
        for (size_t s = 0; s < UTIL_ARRAY_SIZE(shapes); s++) {
            if ((v == HCQ_BUILTIN_COPY_BULK) != bulk)
                continue;
            bufs_reset(b, UTIL_ARRAY_SIZE(offs) * (n + 64));
            uint64_t at = 0;
            for (size_t o = 0; o < UTIL_ARRAY_SIZE(offs); o++) {
                EXPECT_EQ(copy(q, b, at + offs[o][1], at + offs[o][0], n,
                               (enum hcq_builtin_copy_variant)v, shapes[s][0], shapes[s][1]),
                          0);
                at += n + 64;
            }
            finish(q);
            long d = first_diff(b);
            EXPECT(d < 0, "%s, %u blocks x %u threads: first wrong byte at %ld",
                   hcq_builtin_copy_name((enum hcq_builtin_copy_variant)v), shapes[s][0],
                   shapes[s][1], d);
        }
}

/* Fills: every pattern size at several offsets (multiples of the pattern
 * size, as OpenCL gives them, and others), small, odd and multi-row
 * sizes, guard bytes around each range. */
static void test_fill(struct hcq_queue *q, struct bufs *b)
{
    static const uint64_t sizes[] = {1, 15, 16, 17, 100, 1000, 4096 + 48, (1u << 20) + 3 * 128};
    for (unsigned ps = 1; ps <= 128; ps *= 2)
        for (size_t k = 0; k < UTIL_ARRAY_SIZE(sizes); k++) {
            const uint64_t n = sizes[k] - sizes[k] % ps ? sizes[k] - sizes[k] % ps : ps;
            const uint64_t stride = util_align_up(n + 3 * 128, 128);
            uint8_t pat[128];
            for (unsigned i = 0; i < ps; i++)
                pat[i] = rnd8();
            bufs_reset(b, 8 * stride);
            for (unsigned o = 0; o < 8; o++) {
                /* Even o: a multiple of ps (as OpenCL gives them); odd o: not. */
                uint64_t at = o * stride + 128 + o * ps + (o & 1 ? o : 0);
                for (uint64_t j = 0; j < n; j++)
                    b->want[at + j] = pat[j % ps];
                EXPECT_EQ(hcq_builtin_fill(q, b->dst->va + at, n, pat, ps), 0);
            }
            finish(q);
            long d = first_diff(b);
            EXPECT(d < 0, "fill %llu bytes, pattern %u: first wrong byte at %ld",
                   (unsigned long long)n, ps, d);
        }
    EXPECT_EQ(hcq_builtin_fill(q, b->dst->va, 64, "abc", 3), -EINVAL);
    EXPECT_EQ(hcq_builtin_fill(q, b->dst->va, 64, NULL, 4), -EINVAL);
    uint8_t big[256] = {0};
    EXPECT_EQ(hcq_builtin_fill(q, b->dst->va, 512, big, 256), -EINVAL);
}

static void test_rules(struct hcq_device *dev, struct hcq_queue *q, struct bufs *b)
{
    const struct hcq_device_info *di = hcq_device_info(dev);
    /* 64 MiB in 16-byte units, 256 x 4 per row: 4096 rows, a block each. */
    EXPECT_EQ(hcq_builtin_copy_blocks(di, 0, 0, 64u << 20, 4, 256), 4096);
    /* 1 GiB: 65536 rows. */
    EXPECT_EQ(hcq_builtin_copy_blocks(di, 0, 0, 1ull << 30, 4, 256), 65536);
    EXPECT_EQ(hcq_builtin_copy_blocks(di, 0, 0, 16 * 1024 + 16, 4, 256), 2);
    EXPECT_EQ(hcq_builtin_copy_blocks(di, 0, 0, 15, 4, 256), 1);
    EXPECT_EQ(hcq_builtin_copy_blocks(di, 0, 0, 0, 4, 256), 1);
    /* Byte units: 1024 bytes per row. */
    EXPECT_EQ(hcq_builtin_copy_blocks(di, 1, 0, 3 * 1024, 4, 256), 3);

    struct hcq_queue *cq = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &cq) == 0);
    EXPECT_EQ(hcq_builtin_copy(cq, b->dst->va, b->src->va, 64), -EINVAL);
    hcq_queue_destroy(cq);
    EXPECT_EQ(hcq_builtin_copy(NULL, b->dst->va, b->src->va, 64), -EINVAL);
    EXPECT_EQ(hcq_builtin_copy_ex(q, b->dst->va, b->src->va, 64, HCQ_BUILTIN_COPY_U4, 0, 48),
              -EINVAL);
    EXPECT_EQ(hcq_builtin_copy_ex(q, b->dst->va, b->src->va, 64, HCQ_BUILTIN_COPY_U4, 0, 1024),
              -EINVAL);
    EXPECT_EQ(hcq_builtin_copy_ex(q, b->dst->va, b->src->va, 64, HCQ_BUILTIN_COPY_VARIANTS, 0,
                                  256),
              -EINVAL);
    EXPECT(hcq_builtin_copy_name(HCQ_BUILTIN_COPY_VARIANTS) == NULL);
    /* Nothing to copy: nothing recorded, nothing touched. */
    bufs_reset(b, 4096);
    EXPECT_EQ(hcq_builtin_copy(q, b->dst->va, b->src->va, 0), 0);
    finish(q);
    EXPECT(first_diff(b) < 0);
}

int main(int argc, char **argv)
{
    /* --bulk: only the TMA bulk variant (test builtin_core_bulk). */
    const bool bulk = argc > 1 && !strcmp(argv[1], "--bulk");
    struct hcq_device *dev = core_test_device();
    int rc = hcq_builtin_prepare(dev);
    REQUIRE(rc == 0, "built-in kernels not loaded: %d", rc);
    EXPECT_EQ(hcq_builtin_prepare(dev), 0); /* loaded once, answered again */

    struct hcq_queue *q = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &q) == 0);
    struct bufs b = {.size = 16u << 20};
    REQUIRE(hcq_mem_alloc(dev, b.size, HCQ_MEM_HOST, &b.src) == 0);
    REQUIRE(hcq_mem_alloc(dev, b.size, HCQ_MEM_HOST, &b.dst) == 0);
    b.want = malloc(b.size);
    REQUIRE(b.want);

    if (bulk) {
        test_shapes(q, &b, true);
    } else {
        test_alignments(q, &b);
        test_shapes(q, &b, false);
        test_fill(q, &b);
        test_rules(dev, q, &b);
    }

    free(b.want);
    hcq_mem_free(b.src);
    hcq_mem_free(b.dst);
    hcq_queue_destroy(q);
    hcq_device_close(dev);
    return core_test_done(bulk ? "builtin_core --bulk" : "builtin_core");
}

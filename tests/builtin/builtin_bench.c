/*
 * builtin_bench.c — tuning runs for the built-in copy kernel on the GPU:
 * every kernel variant (1, 2, 4, 8 units per thread and row, streaming or
 * plain; the aligned-only ones; TMA bulk copies) x threads per block x
 * blocks, copying between two HCQ_MEM_DEVICE buffers, timed by the GPU
 * timestamps of releases around a batch of back-to-back launches.
 * Prints one line per shape (read + write counted, GB/s) and the best,
 * then checks that a copy with the default shape moved the right bytes
 * (read back through a copy queue).
 *
 *   builtin_bench [--size MiB] [--reps N] [--quick] [--offsets S D] [--bulk]
 *
 * --quick: the default shape and two others, few repetitions (the
 * emulated device in CI runs it as a smoke test). --offsets: byte offsets
 * of source and destination (unaligned copies: narrower units). --bulk:
 * also the TMA bulk variant, last (run builtin_core --bulk first).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "core/hcq.h"
#include "util/util.h"

#define WAIT_NS 60000000000ull

#define CHECK(call)                                                                       \
    do {                                                                                  \
        int rc_ = (call);                                                                 \
        if (rc_ != 0) {                                                                   \
            fprintf(stderr, "builtin_bench: %s failed: %d (line %d)\n", #call, rc_, __LINE__); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static struct hcq_device *dev;
static struct hcq_queue *q;
static struct hcq_signal *t0, *t1;

static void finish(struct hcq_queue *qq)
{
    uint64_t v;
    CHECK(hcq_q_signal_next(qq, &v));
    CHECK(hcq_q_submit(qq));
    CHECK(hcq_signal_wait(hcq_queue_timeline(qq), v, WAIT_NS));
}

/* Rows of the copy's work split (builtin.h): one block each, no looping. */
static uint32_t rows_of(uint64_t dst, uint64_t src, uint64_t size, unsigned unroll,
                        uint32_t threads)
{
    const uint64_t x = (dst ^ src) | 16, w = x & (0 - x);
    const uint64_t head = UTIL_MIN((0 - dst) & (w - 1), size);
    const uint64_t units = (size - head) / w, row = (uint64_t)threads * unroll;
    return (uint32_t)UTIL_MAX(UTIL_MIN((units + row - 1) / row, 0x7FFFFFFFull), 1ull);
}

/* GB/s (read + write) of reps launches of one shape, GPU time. */
static double run(uint64_t dst, uint64_t src, uint64_t size, enum hcq_builtin_copy_variant v,
                  uint32_t blocks, uint32_t threads, int reps)
{
    CHECK(hcq_builtin_copy_ex(q, dst, src, size, v, blocks, threads)); /* warm-up */
    static uint64_t val;
    val++;
    CHECK(hcq_q_signal(q, t0, val));
    /* A release after each copy orders it after the one before (grids of
     * one channel overlap otherwise), as every OpenCL command is. */
    for (int i = 0; i < reps; i++) {
        uint64_t ignored;
        CHECK(hcq_builtin_copy_ex(q, dst, src, size, v, blocks, threads));
        CHECK(hcq_q_signal_next(q, &ignored));
    }
    CHECK(hcq_q_signal(q, t1, val));
    finish(q);
    uint64_t ns = hcq_signal_timestamp(t1) - hcq_signal_timestamp(t0);
    return ns ? 2.0 * (double)size * reps / (double)ns : 0.0;
}

int main(int argc, char **argv)
{
    uint64_t size = 256ull << 20, soff = 0, doff = 0;
    int reps = 20;
    bool quick = false, bulk = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size = strtoull(argv[++i], NULL, 0) << 20;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--bulk"))
            bulk = true;
        else if (!strcmp(argv[i], "--offsets") && i + 2 < argc) {
            soff = strtoull(argv[++i], NULL, 0);
            doff = strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: builtin_bench [--size MiB] [--reps N] [--quick] "
                            "[--offsets S D] [--bulk]\n");
            return 2;
        }
    }
    if (quick)
        reps = UTIL_MIN(reps, 2);
    struct hcq_device *const *devs;
    unsigned n = 0;
    hcq_enumerate(&devs, &n);
    if (!n) {
        fprintf(stderr, "builtin_bench: no device: %s\n", hcq_enumerate_error());
        return 1;
    }
    dev = devs[0];
    CHECK(hcq_device_open(dev));
    int rc = hcq_builtin_prepare(dev);
    if (rc) {
        fprintf(stderr, "builtin_bench: no built-in kernels: %d\n", rc);
        return 1;
    }
    const struct hcq_device_info *di = hcq_device_info(dev);
    struct hcq_queue *cq;
    struct hcq_mem *a, *b, *h;
    const uint64_t alloc = size + 64;
    CHECK(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &q));
    CHECK(hcq_queue_create(dev, HCQ_ENGINE_COPY, &cq));
    CHECK(hcq_mem_alloc(dev, alloc, HCQ_MEM_DEVICE, &a));
    CHECK(hcq_mem_alloc(dev, alloc, HCQ_MEM_DEVICE, &b));
    CHECK(hcq_mem_alloc(dev, alloc, HCQ_MEM_HOST, &h));
    CHECK(hcq_signal_alloc(dev, &t0));
    CHECK(hcq_signal_alloc(dev, &t1));
    uint64_t *w = h->cpu;
    for (uint64_t i = 0; i < alloc / 8; i++)
        w[i] = i * 0x9E3779B97F4A7C15ull;
    CHECK(hcq_q_copy(cq, a->va, h->va, alloc));
    finish(cq);

    printf("builtin_bench: %s, %u SMs, %llu MiB, offsets %llu -> %llu, %d launches per shape\n",
           di->name, di->sm_count, (unsigned long long)(size >> 20), (unsigned long long)soff,
           (unsigned long long)doff, reps);
    printf("%-18s %7s %8s %10s\n", "kernel", "threads", "blocks", "GB/s r+w");
    const uint64_t dst = b->va + doff, src = a->va + soff;
    /* Blocks per SM; 0: the default rule; ROWS: one block per row. */
    enum { ROWS = 1000 };
    static const uint32_t threads_all[] = {128, 256, 512},
                          per_sm_all[] = {1, 2, 4, 8, 16, 0, ROWS};
    double best = 0;
    char best_line[96] = "";
    for (unsigned v = 0; v < HCQ_BUILTIN_COPY_VARIANTS; v++)
        for (size_t t = 0; t < UTIL_ARRAY_SIZE(threads_all); t++)
            for (size_t p = 0; p < UTIL_ARRAY_SIZE(per_sm_all); p++) {
                uint32_t threads = threads_all[t];
                /* The bulk kernel moves its body from one thread: one
                 * warp per block, up to 2 blocks per SM, or the default. */
                if (v == HCQ_BUILTIN_COPY_BULK) {
                    if (!bulk || t || per_sm_all[p] > 2 || per_sm_all[p] == ROWS)
                        continue;
                    threads = 32;
                }
                /* The aligned kernels run only as one block per row. */
                if ((v == HCQ_BUILTIN_COPY_A16U1 || v == HCQ_BUILTIN_COPY_A16U2) &&
                    per_sm_all[p] != 0)
                    continue;
                uint32_t blocks = per_sm_all[p] * di->sm_count;
                if (per_sm_all[p] == ROWS)
                    blocks = rows_of(dst, src, size, hcq_builtin_copy_unroll(v), threads);
                if (quick && !(v == HCQ_BUILTIN_COPY_DEFAULT &&
                               threads == HCQ_BUILTIN_COPY_THREADS &&
                               (per_sm_all[p] == 0 || per_sm_all[p] == 1 || per_sm_all[p] == ROWS)))
                    continue;
                uint32_t shown = blocks ? blocks
                                        : hcq_builtin_copy_blocks(di, dst, src, size,
                                                                  hcq_builtin_copy_unroll(v),
                                                                  threads);
                if (!blocks && v == HCQ_BUILTIN_COPY_BULK && !((dst ^ src) & 15)) {
                    uint64_t chunks = (size - ((0 - dst) & 15) + HCQ_BUILTIN_BULK_CHUNK - 1) /
                                      HCQ_BUILTIN_BULK_CHUNK;
                    shown = (uint32_t)UTIL_MAX(
                        UTIL_MIN(chunks, (uint64_t)di->sm_count * HCQ_BUILTIN_BULK_BLOCKS_PER_SM),
                        1ull);
                }
                double gbs = run(dst, src, size, v, blocks, threads, reps);
                char line[96];
                snprintf(line, sizeof(line), "%-18s %7u %8u %10.1f%s", hcq_builtin_copy_name(v),
                         threads, shown, gbs, blocks ? "" : "  (default rule)");
                printf("%s\n", line);
                if (gbs > best) {
                    best = gbs;
                    snprintf(best_line, sizeof(best_line), "%s", line);
                }
            }
    printf("best: %s\n", best_line);

    /* The default copy moved the right bytes. */
    memset(h->cpu, 0, alloc);
    CHECK(hcq_q_copy(cq, b->va, h->va, alloc));
    finish(cq);
    CHECK(hcq_builtin_copy(q, dst, src, size));
    finish(q);
    CHECK(hcq_q_copy(cq, h->va, b->va, alloc));
    finish(cq);
    const uint8_t *got = h->cpu;
    long bad = -1;
    for (uint64_t i = 0; i < alloc && bad < 0; i++) {
        uint64_t x = 0;
        if (i >= doff && i - doff < size) {
            uint64_t s = i - doff + soff;
            x = (s / 8) * 0x9E3779B97F4A7C15ull;
            x = (x >> (8 * (s % 8))) & 0xFF;
        }
        if (got[i] != (uint8_t)x)
            bad = (long)i;
    }
    if (bad >= 0)
        printf("FAIL builtin_bench: byte %ld of the destination is wrong\n", bad);
    else
        printf("PASS builtin_bench: default copy checked byte for byte\n");

    hcq_signal_free(t0);
    hcq_signal_free(t1);
    hcq_mem_free(a);
    hcq_mem_free(b);
    hcq_mem_free(h);
    hcq_queue_destroy(q);
    hcq_queue_destroy(cq);
    hcq_device_close(dev);
    return bad >= 0;
}

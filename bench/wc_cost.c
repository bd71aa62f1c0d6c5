/*
 * wc_cost — what the CPU pays to write a launch into device memory.
 *
 * A launch is written as QMD, constant bank 0 and pushbuffer words into
 * device memory mapped through BAR1 (write-combined). Stores to such
 * memory collect in the core's write-combining buffers; a fence or any
 * locked instruction (a mutex, an atomic reference count) makes the core
 * wait until they have left. This program measures that, per pattern:
 *
 *   bytes written per step, by memcpy or in whole 64-byte lines as the
 *   launch writer does (hcq_wc_copy_lines), each step in the next slot of
 *   a 4 MiB ring as the scratch arena is used, then one of
 *     none     nothing (stores only: the rate the buffers drain at)
 *     sfence   a store fence
 *     locked   one locked add on a cached line
 *     work+lock  ~150 ns of work on cached memory, then a locked add
 *     mutex    a pthread mutex lock + unlock pair (glibc may skip the
 *              locked instructions in a single-threaded process)
 *
 * on device memory (BAR1) and, for comparison, on cached host memory.
 * Prints ns per step (median of 15 rounds of 4096 steps).
 *
 * Then reads back out of device memory (what the printf output of a
 * launch costs to collect), per size: memcpy, 8-byte loads, and
 * hcq_wc_read's streaming loads; µs per read and MB/s (median of 5).
 *
 *   wc_cost          both tables
 *   wc_cost read     the reads alone
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthread.h>

#include "bench_util.h"
#include "core/priv.h"

#define RING_BYTES (4u << 20)
#define STEPS 4096
#define ROUNDS 15

enum after { AFTER_NONE, AFTER_SFENCE, AFTER_LOCKED, AFTER_WORK_LOCKED, AFTER_MUTEX };
static const char *const after_name[] = {"none", "sfence", "locked", "work+lock", "mutex"};
/* How the bytes are written: glibc's memcpy (overlapping vector stores at
 * the ends of a copy) or whole 64-byte lines in address order. */
enum how { HOW_MEMCPY, HOW_LINES };
static const char *const how_name[] = {"memcpy", "lines"};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t counter;

/* About 100-200 ns of work on cached memory, no locked instruction. */
static volatile uint64_t sink;
static void cached_work(void)
{
    uint64_t x = sink;
    for (int i = 0; i < 100; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

/* One step: the bytes, then the pattern's ending. */
static inline void step(uint8_t *dst, const uint8_t *src, uint32_t bytes, enum after a,
                        enum how h)
{
    if (h == HOW_MEMCPY)
        memcpy(dst, src, bytes);
    else
        hcq_wc_copy_lines(dst, src, (bytes + 63u) & ~63u);
    switch (a) {
    case AFTER_NONE:
        break;
    case AFTER_SFENCE:
        hcq_store_fence();
        break;
    case AFTER_LOCKED:
        atomic_fetch_add(&counter, 1);
        break;
    case AFTER_WORK_LOCKED:
        cached_work();
        atomic_fetch_add(&counter, 1);
        break;
    case AFTER_MUTEX:
        pthread_mutex_lock(&mu);
        pthread_mutex_unlock(&mu);
        break;
    }
}

static double measure(uint8_t *ring, uint32_t bytes, uint32_t stride, enum after a, enum how h)
{
    static uint8_t src[8192] __attribute__((aligned(64)));
    double v[ROUNDS];
    uint32_t off = 0;
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t t0 = bench_now_ns();
        for (int i = 0; i < STEPS; i++) {
            step(ring + off, src, bytes, a, h);
            off += stride;
            if (off + stride > RING_BYTES)
                off = 0;
        }
        hcq_store_fence();
        v[r] = (double)(bench_now_ns() - t0) / STEPS;
    }
    qsort(v, ROUNDS, sizeof(v[0]), bench_cmp_double);
    return v[ROUNDS / 2];
}

static void writes(uint8_t *wc, uint8_t *host)
{
    /* Sizes of what an enqueue writes: the pushbuffer words alone, a
     * bank of sm_90 (0x210 + 8 bytes of parameters) and the QMD (384). */
    static const uint32_t sizes[] = {64, 128, 384, 536, 576, 920, 960, 1024};
    printf("%-8s %-8s %-10s %10s %10s   (ns per step, median)\n", "bytes", "written",
           "after", "device", "host");
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        uint32_t stride = (sizes[s] + 255u) & ~255u;
        for (int w = HOW_MEMCPY; w <= HOW_LINES; w++) {
            for (int a = AFTER_NONE; a <= AFTER_MUTEX; a++) {
                double d = measure(wc, sizes[s], stride, (enum after)a, (enum how)w);
                double h = measure(host, sizes[s], stride, (enum after)a, (enum how)w);
                printf("%-8u %-8s %-10s %10.1f %10.1f\n", sizes[s], how_name[w], after_name[a], d,
                       h);
            }
        }
    }
}

enum read_how { READ_MEMCPY, READ_WORDS, READ_STREAM };
static const char *const read_name[] = {"memcpy", "8-byte loads", "streaming"};

static void read_once(uint8_t *dst, const uint8_t *src, uint32_t bytes, enum read_how h)
{
    switch (h) {
    case READ_MEMCPY:
        memcpy(dst, src, bytes);
        break;
    case READ_WORDS: {
        const volatile uint64_t *s = (const volatile uint64_t *)src;
        uint64_t *d = (uint64_t *)dst;
        for (uint32_t i = 0; i < bytes / 8; i++)
            d[i] = s[i];
        break;
    }
    case READ_STREAM:
        hcq_wc_read(dst, src, bytes);
        break;
    }
}

static void reads(const uint8_t *wc, uint8_t *dst)
{
    static const uint32_t sizes[] = {256, 4096, 65536, 1u << 20};
    printf("\n%-8s %-13s %12s %10s   (reads of device memory, median of 5)\n", "bytes", "read",
           "us", "MB/s");
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (int h = READ_MEMCPY; h <= READ_STREAM; h++) {
            double v[5];
            for (int r = 0; r < 5; r++) {
                uint64_t t0 = bench_now_ns();
                read_once(dst, wc, sizes[s], (enum read_how)h);
                v[r] = (double)(bench_now_ns() - t0) / 1e3;
            }
            qsort(v, 5, sizeof(v[0]), bench_cmp_double);
            printf("%-8u %-13s %12.2f %10.1f\n", sizes[s], read_name[h], v[2],
                   sizes[s] / v[2]);
        }
}

int main(int argc, char **argv)
{
    const bool only_reads = argc > 1 && strcmp(argv[1], "read") == 0;
    struct hcq_device *const *devs;
    unsigned n = 0;
    hcq_enumerate(&devs, &n);
    if (!n) {
        fprintf(stderr, "wc_cost: no device: %s\n", hcq_enumerate_error());
        return 1;
    }
    struct hcq_device *dev = devs[0];
    int r = hcq_device_open(dev);
    struct hcq_mem *wc = NULL;
    if (r == 0)
        r = hcq_mem_alloc(dev, RING_BYTES, HCQ_MEM_DEVICE_MAPPED, &wc);
    if (r) {
        fprintf(stderr, "wc_cost: device memory: %s\n", strerror(-r));
        return 1;
    }
    uint8_t *host = aligned_alloc(4096, RING_BYTES);
    if (!host)
        return 1;
    memset(host, 0, RING_BYTES);

    if (!only_reads)
        writes(wc->cpu, host);
    reads(wc->cpu, host);
    hcq_mem_free(wc);
    free(host);
    hcq_device_close(dev);
    return 0;
}

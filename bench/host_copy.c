/*
 * host_copy — the CPU half of a pageable transfer, measured alone: the
 * memcpy between an application buffer and a ring of staging chunks, as
 * src/api's pipelined transfers do it (hcqcl_staging_copy_ex), for chunk
 * sizes, thread counts and plain vs non-temporal stores.
 *
 *   host_copy [total MiB (64)] [max threads (the default split)] [reps (7)]
 *
 * "h2d" copies the application buffer chunk by chunk into the ring (what
 * the CPU does while the engine drains the previous chunk), "d2h" the
 * ring into the application buffer. Staging chunks are shared anonymous
 * pages like HCQ_MEM_HOST's; no device is opened. Prints the median GB/s
 * of reps runs per row. A pipelined transfer can go no faster than the
 * slower of this figure and the copy engine's (55 GB/s on the H200).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "api/obj.h"

enum { RING = 4, MAX_REPS = 31 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double run(uint8_t *app, uint8_t *ring, size_t total, size_t chunk, unsigned threads,
                  enum hcqcl_copy_store store, bool h2d, int reps)
{
    double v[MAX_REPS];
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        uint64_t t0 = util_now_ns();
        for (size_t off = 0, i = 0; off < total; off += chunk, i++) {
            size_t len = UTIL_MIN(chunk, total - off);
            uint8_t *slot = ring + (i % RING) * chunk;
            if (h2d)
                hcqcl_staging_copy_ex(slot, app + off, len, threads, store);
            else
                hcqcl_staging_copy_ex(app + off, slot, len, threads, store);
        }
        uint64_t dt = util_now_ns() - t0;
        if (r >= 0)
            v[r] = (double)total / (double)dt;
    }
    qsort(v, (size_t)reps, sizeof(v[0]), cmp_double);
    return v[reps / 2];
}

int main(int argc, char **argv)
{
    size_t total = (argc > 1 ? strtoull(argv[1], NULL, 0) : 64) << 20;
    unsigned max_threads = argc > 2 ? (unsigned)atoi(argv[2]) : hcqcl_staging_copy_threads();
    int reps = argc > 3 ? atoi(argv[3]) : 7;
    if (!total || !max_threads || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: host_copy [total MiB] [max threads] [reps <= %d]\n", MAX_REPS);
        return 2;
    }
    const size_t chunks[] = {2u << 20, 4u << 20, 8u << 20, 16u << 20};
    const size_t max_chunk = chunks[UTIL_ARRAY_SIZE(chunks) - 1];
    uint8_t *app = malloc(total);
    uint8_t *ring = mmap(NULL, RING * max_chunk, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!app || ring == MAP_FAILED) {
        fprintf(stderr, "host_copy: no memory for %zu MiB\n", total >> 20);
        return 1;
    }
    memset(app, 0x5a, total);
    memset(ring, 0xa5, RING * max_chunk);
    printf("host_copy: %zu MiB through a ring of %d chunks, default split %u threads\n",
           total >> 20, RING, hcqcl_staging_copy_threads());
    printf("%-4s %6s %7s %10s %10s\n", "dir", "chunk", "threads", "plain GB/s", "NT GB/s");
    for (int h2d = 1; h2d >= 0; h2d--) {
        for (size_t c = 0; c < UTIL_ARRAY_SIZE(chunks); c++) {
            for (unsigned t = 1;; t = UTIL_MIN(t * 2, max_threads)) {
                double plain = run(app, ring, total, chunks[c], t, HCQCL_COPY_PLAIN, h2d, reps);
                double nt = run(app, ring, total, chunks[c], t, HCQCL_COPY_STREAM, h2d, reps);
                printf("%-4s %4zuMi %7u %10.2f %10.2f\n", h2d ? "h2d" : "d2h", chunks[c] >> 20,
                       t, plain, nt);
                if (t >= max_threads)
                    break;
            }
        }
    }
    munmap(ring, RING * max_chunk);
    free(app);
    return 0;
}

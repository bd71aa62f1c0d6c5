/*
 * bench_util.h — what the benchmark programs share: the monotonic clock
 * they time with and the comparison that sorts their samples.
 */
#ifndef HCQCL_BENCH_UTIL_H
#define HCQCL_BENCH_UTIL_H

#include <stdint.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* qsort comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif

/*
 * xfer_test.h — shared set-up and checks for the buffer-transfer tests.
 *
 * The tests run through the ICD loader on whatever hcqcl drives: the
 * emulated device in CI, the GPU on a machine that has one, on hcqcl's
 * first device (cl_setup.h).
 */
#ifndef HCQCL_TESTS_XFER_TEST_H
#define HCQCL_TESTS_XFER_TEST_H

#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cl_setup.h"

/* Expect an OpenCL call to return exactly `want`. */
#define EXPECT_ERR(want, call)                                                            \
    do {                                                                                  \
        cl_int got_ = (call);                                                             \
        if (got_ != (want)) {                                                             \
            fprintf(stderr, "%s:%d: FAILED: %s -> %d, want %s (%d)\n", __FILE__, __LINE__, \
                    #call, got_, #want, (int)(want));                                     \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)
#define EXPECT_OK(call) EXPECT_ERR(CL_SUCCESS, call)

struct xt {
    cl_platform_id platform;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
};

static inline void xt_init(struct xt *t)
{
    cltest_setup(&t->platform, &t->dev, &t->ctx, &t->q);
}

static inline void xt_fini(struct xt *t) { cltest_teardown(t->ctx, t->q); }

static inline cl_mem xt_buffer(struct xt *t, cl_mem_flags flags, size_t size, void *host)
{
    cl_int err;
    cl_mem m = clCreateBuffer(t->ctx, flags, size, host, &err);
    REQUIRE(err == CL_SUCCESS && m);
    return m;
}

/* Deterministic bytes: xorshift64 from seed, fast enough for gigabytes. */
static inline void xt_random(void *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    uint8_t *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(b + i, &x, 8);
    }
    for (; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = (uint8_t)x;
    }
}

static inline double xt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* First differing byte of a and b, or -1. */
static inline long xt_diff(const void *a, const void *b, size_t n)
{
    if (memcmp(a, b, n) == 0)
        return -1;
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return (long)i;
    return -1;
}

static inline int xt_done(const char *name) { return check_done(name); }

#endif

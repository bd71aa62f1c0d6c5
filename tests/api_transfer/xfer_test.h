/*
 * xfer_test.h — shared set-up and checks for the buffer-transfer tests.
 *
 * The tests run through the ICD loader on whatever hcqcl drives: the
 * emulated device in CI, the GPU on a machine that has one. They pick the
 * platform named "hcqcl" (else the first one) and its first GPU.
 */
#ifndef HCQCL_TESTS_XFER_TEST_H
#define HCQCL_TESTS_XFER_TEST_H

#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int xt_failures;

#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond);            \
            xt_failures++;                                                                \
        }                                                                                 \
    } while (0)

/* Expect an OpenCL call to return exactly `want`. */
#define EXPECT_ERR(want, call)                                                            \
    do {                                                                                  \
        cl_int got_ = (call);                                                             \
        if (got_ != (want)) {                                                             \
            fprintf(stderr, "%s:%d: FAILED: %s -> %d, want %s (%d)\n", __FILE__, __LINE__, \
                    #call, got_, #want, (int)(want));                                     \
            xt_failures++;                                                                \
        }                                                                                 \
    } while (0)
#define EXPECT_OK(call) EXPECT_ERR(CL_SUCCESS, call)

/* Fatal: the rest of the test can't run without it. */
#define REQUIRE(cond)                                                                     \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: REQUIRED: %s\n", __FILE__, __LINE__, #cond);          \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

struct xt {
    cl_platform_id platform;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
};

static inline void xt_init(struct xt *t)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    REQUIRE(clGetPlatformIDs(16, plats, &np) == CL_SUCCESS && np > 0);
    t->platform = plats[0];
    for (cl_uint i = 0; i < np && i < 16; i++) {
        char name[128] = "";
        clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (strcmp(name, "hcqcl") == 0)
            t->platform = plats[i];
    }
    REQUIRE(clGetDeviceIDs(t->platform, CL_DEVICE_TYPE_GPU, 1, &t->dev, NULL) == CL_SUCCESS);
    cl_int err;
    t->ctx = clCreateContext(NULL, 1, &t->dev, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS && t->ctx);
    t->q = clCreateCommandQueueWithProperties(t->ctx, t->dev, NULL, &err);
    REQUIRE(err == CL_SUCCESS && t->q);
}

static inline void xt_fini(struct xt *t)
{
    clReleaseCommandQueue(t->q);
    clReleaseContext(t->ctx);
}

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

static inline int xt_done(const char *name)
{
    if (xt_failures) {
        fprintf(stderr, "%s: %d failure(s)\n", name, xt_failures);
        return 1;
    }
    printf("%s: all passed\n", name);
    return 0;
}

#endif

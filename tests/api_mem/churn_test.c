/*
 * churn_test.c — buffers made and released at random, each holding bytes
 * of its own, checked against them: blocks of the small-buffer slabs
 * (every size class, their edges, the 64 KiB class's 1 MiB slabs) and
 * larger buffers, in device and host memory, given contents at creation,
 * written and filled while others come and go, read back whole and
 * through sub-buffers. Two buffers sharing bytes, or a block handed out
 * while still in use, shows as another buffer's bytes.
 *
 * HCQCL_CHURN_STEPS=n steps (default 4000), HCQCL_CHURN_SEED=s.
 */
#include "../api_platform/cltest.h"
#include "rng.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { LIVE = 96 };

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;

struct buf {
    cl_mem m;
    size_t size;
    uint8_t *want; /* its bytes */
    uint32_t id;
};

static struct buf live[LIVE];
static uint64_t rng;
static uint32_t next_id = 1;

static uint32_t rnd(uint32_t n) { return test_rand(&rng, n); }

/* Byte k of the buffer with this id. */
static uint8_t byte_of(uint32_t id, size_t k)
{
    return (uint8_t)(id * 131u + (uint32_t)k * 7u + (uint32_t)(k >> 8) * 3u);
}

/* Mostly small: a size class, one of its edges, or anything up to 64 KiB;
 * now and then larger. */
static size_t pick_size(void)
{
    switch (rnd(6)) {
    case 0: return (size_t)1 << rnd(17);               /* a class, 1 B .. 64 KiB */
    case 1: return ((size_t)1 << (1 + rnd(16))) + 1;   /* just over one */
    case 2: return ((size_t)1 << (1 + rnd(16))) - 1;   /* just under */
    case 3: return 1 + rnd(65536);
    case 4: return 65536 + 1 + rnd(300000);            /* above the slabs */
    default: return 1 + rnd(8192);
    }
}

static void make(struct buf *b)
{
    b->size = pick_size();
    b->id = next_id++;
    b->want = malloc(b->size);
    REQUIRE(b->want, "host memory");
    for (size_t k = 0; k < b->size; k++)
        b->want[k] = byte_of(b->id, k);
    cl_mem_flags f = CL_MEM_READ_WRITE;
    if (rnd(4) == 0)
        f |= CL_MEM_ALLOC_HOST_PTR;
    const bool given = rnd(2);
    cl_int err;
    b->m = clCreateBuffer(ctx, f | (given ? CL_MEM_COPY_HOST_PTR : 0), b->size,
                          given ? b->want : NULL, &err);
    REQUIRE(b->m, "buffer of %zu bytes: %d", b->size, err);
    if (!given) /* blocking: change() may rewrite b->want next */
        EXPECT_OK(clEnqueueWriteBuffer(q, b->m, CL_TRUE, 0, b->size, b->want, 0, NULL, NULL));
}

static void drop(struct buf *b)
{
    EXPECT_OK(clReleaseMemObject(b->m));
    free(b->want);
    memset(b, 0, sizeof(*b));
}

static void check(const struct buf *b, const char *when)
{
    uint8_t *got = malloc(b->size);
    REQUIRE(got, "host memory");
    EXPECT_OK(clEnqueueReadBuffer(q, b->m, CL_TRUE, 0, b->size, got, 0, NULL, NULL));
    for (size_t k = 0; k < b->size; k++)
        if (got[k] != b->want[k]) {
            EXPECT(false, "%s: buffer %u (%zu bytes) byte %zu = 0x%02x, want 0x%02x", when, b->id,
                   b->size, k, got[k], b->want[k]);
            break;
        }
    free(got);
}

/* Change part of a live buffer: a fill or a write of new bytes. */
static void change(struct buf *b)
{
    size_t off = rnd((uint32_t)b->size), len = 1 + rnd((uint32_t)(b->size - off));
    if (rnd(2)) {
        uint8_t v = (uint8_t)rnd(256);
        EXPECT_OK(clEnqueueFillBuffer(q, b->m, &v, 1, off, len, 0, NULL, NULL));
        memset(b->want + off, v, len);
    } else {
        for (size_t k = 0; k < len; k++)
            b->want[off + k] = (uint8_t)rnd(256);
        /* b->want is the source: blocking, so the next change may touch it. */
        EXPECT_OK(clEnqueueWriteBuffer(q, b->m, CL_TRUE, off, len, b->want + off, 0, NULL, NULL));
    }
}

/* A sub-buffer of a live buffer at an aligned origin reads its bytes. */
static void check_sub(const struct buf *b, cl_uint align)
{
    if (b->size <= align)
        return;
    size_t origin = (size_t)rnd((uint32_t)(b->size / align)) * align;
    if (origin >= b->size)
        return;
    size_t len = 1 + rnd((uint32_t)(b->size - origin));
    const cl_buffer_region r = {origin, len};
    cl_int err;
    cl_mem s = clCreateSubBuffer(b->m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    REQUIRE(s, "sub-buffer [%zu,+%zu) of %zu bytes: %d", origin, len, b->size, err);
    uint8_t *got = malloc(len);
    REQUIRE(got, "host memory");
    EXPECT_OK(clEnqueueReadBuffer(q, s, CL_TRUE, 0, len, got, 0, NULL, NULL));
    EXPECT(memcmp(got, b->want + origin, len) == 0,
           "sub-buffer [%zu,+%zu) of buffer %u (%zu bytes) differs", origin, len, b->id,
           b->size);
    free(got);
    EXPECT_OK(clReleaseMemObject(s));
}

int main(void)
{
    cl_platform_id p;
    cltest_setup(&p, &dev, &ctx, &q);
    cl_uint align_bits = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align_bits),
                              &align_bits, NULL));
    const cl_uint align = align_bits / 8 ? align_bits / 8 : 1;
    const char *steps_s = getenv("HCQCL_CHURN_STEPS"), *seed_s = getenv("HCQCL_CHURN_SEED");
    const int steps = steps_s ? atoi(steps_s) : 4000;
    rng = seed_s ? strtoull(seed_s, NULL, 0) : 0x5eedull;

    for (int s = 0; s < steps; s++) {
        struct buf *b = &live[rnd(LIVE)];
        switch (rnd(8)) {
        case 0: case 1: case 2:
            if (b->m)
                drop(b);
            make(b);
            break;
        case 3:
            if (b->m)
                drop(b);
            break;
        case 4:
            if (b->m)
                change(b);
            break;
        case 5:
            if (b->m)
                check_sub(b, align);
            break;
        default:
            if (b->m)
                check(b, "in the churn");
        }
    }
    EXPECT_OK(clFinish(q));
    for (int i = 0; i < LIVE; i++)
        if (live[i].m) {
            check(&live[i], "at the end");
            drop(&live[i]);
        }
    EXPECT_OK(clReleaseCommandQueue(q));
    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_mem_churn");
}

/*
 * builtin_copy.c — clEnqueueCopyBuffer through the ICD loader, checked
 * byte for byte against a host model of the destination. Copies of 1 MiB
 * and more between buffers in device memory run as the built-in copy
 * kernel on the compute engine, smaller ones and those touching host
 * memory on a copy engine; both must give the same bytes and keep the
 * same ordering rules:
 *  - sizes 1 B .. 64 KiB + odd with every (src, dst) offset mod 16, and
 *    1 MiB + 5 (a kernel copy) with every one of them too;
 *  - sizes around the 1 MiB switch, 64 MiB aligned and 64 MiB + 7 with
 *    offsets that share no alignment;
 *  - sub-buffers with offsets, a copy inside one buffer, a host-memory
 *    (CL_MEM_ALLOC_HOST_PTR) source;
 *  - clEnqueueFillBuffer with every pattern size, on both sides of the
 *    1 MiB switch (the fill kernel and the copy engine);
 *  - order in an in-order queue between writes on a copy engine and
 *    kernel copies (read after write and write after read), a wait on a
 *    user event in an out-of-order queue, a failed dependency, and
 *    profiling timestamps of a kernel copy.
 */
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cl_setup.h"

#define CL_OK(call)                                                                       \
    do {                                                                                  \
        cl_int e_ = (call);                                                               \
        if (e_ != CL_SUCCESS) {                                                           \
            fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #call, e_);          \
            atomic_fetch_add(&failures, 1);                                               \
        }                                                                                 \
    } while (0)

enum { MIB = 1u << 20, BUF = 80u << 20 };

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;
static cl_mem src, dst;
static uint8_t *sdata; /* what src holds */
static uint8_t *want;  /* what dst must hold */
static uint8_t *got;

static uint64_t rng = 0x243F6A8885A308D3ull;
static void randomize(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        p[i] = (uint8_t)(rng >> 32);
    }
}

static cl_mem buffer(cl_mem_flags flags, size_t size)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, flags, size, NULL, &err);
    REQUIRE(m && err == CL_SUCCESS, "clCreateBuffer(%zu): %d", size, err);
    return m;
}

/* src -> dst copy on q, applied to the model. */
static void copy(size_t soff, size_t doff, size_t n)
{
    CL_OK(clEnqueueCopyBuffer(q, src, dst, soff, doff, n, 0, NULL, NULL));
    memcpy(want + doff, sdata + soff, n);
}

/* dst[lo, hi) read back and compared with the model. */
static void verify(size_t lo, size_t hi, const char *what)
{
    CL_OK(clEnqueueReadBuffer(q, dst, CL_TRUE, lo, hi - lo, got + lo, 0, NULL, NULL));
    for (size_t i = lo; i < hi; i++)
        if (got[i] != want[i]) {
            check_fail(__FILE__, __LINE__, "dst == model", false,
                       " %s: first wrong byte at %zu: 0x%02x, want 0x%02x", what, i, got[i],
                       want[i]);
            return;
        }
}

static void test_alignments(void)
{
    static const size_t sizes[] = {1, 2, 3, 15, 16, 17, 255, 4097, 65537};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        const size_t n = sizes[k], stride = (n + 48 + 15) & ~(size_t)15;
        for (unsigned sa = 0; sa < 16; sa++)
            for (unsigned da = 0; da < 16; da++) {
                size_t slot = (sa * 16 + da) * stride;
                copy(slot + 16 * da + sa, slot + 16 + da, n); /* varied source spots */
            }
        char what[64];
        snprintf(what, sizeof(what), "%zu bytes, 16 x 16 alignments", n);
        verify(0, 256 * stride, what);
    }
    /* A kernel copy for every pair; a batch of 16 per source offset. */
    const size_t n = MIB + 5, stride = (n + 48 + 15) & ~(size_t)15;
    for (unsigned sa = 0; sa < 16; sa++) {
        for (unsigned da = 0; da < 16; da++)
            copy(da * stride + 16 * (da % 5) + sa, da * stride + 16 + da, n);
        char what[64];
        snprintf(what, sizeof(what), "1 MiB + 5, source offset %u mod 16", sa);
        verify(0, 16 * stride, what);
    }
}

static void test_sizes(void)
{
    static const size_t sizes[] = {MIB - 1, MIB, MIB + 1, 2 * MIB + 3, 5 * MIB + 4096 + 9};
    size_t at = 0;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        copy(at, at + 64, sizes[k]);
        copy(at + 3 * MIB + 7, at + sizes[k] + 128 + 3, sizes[k]);
        at += 2 * sizes[k] + 256;
    }
    verify(0, at, "sizes around the 1 MiB switch");
    copy(0, 0, 64u << 20);
    verify(0, 64u << 20, "64 MiB");
    copy(3, 12, (64u << 20) + 7);
    verify(0, (64u << 20) + 19, "64 MiB + 7, offsets 3 -> 12");
}

static void test_sub_buffers(void)
{
    cl_int err;
    cl_buffer_region rs = {MIB, 8 * MIB}, rd = {3 * MIB + 256, 8 * MIB};
    cl_mem s = clCreateSubBuffer(src, 0, CL_BUFFER_CREATE_TYPE_REGION, &rs, &err);
    REQUIRE(err == CL_SUCCESS);
    cl_mem d = clCreateSubBuffer(dst, 0, CL_BUFFER_CREATE_TYPE_REGION, &rd, &err);
    REQUIRE(err == CL_SUCCESS);
    const size_t n = 4 * MIB + 3;
    CL_OK(clEnqueueCopyBuffer(q, s, d, 5, 9, n, 0, NULL, NULL));
    memcpy(want + rd.origin + 9, sdata + rs.origin + 5, n);
    verify(rd.origin, rd.origin + rd.size, "sub-buffers");
    CL_OK(clReleaseMemObject(s));
    CL_OK(clReleaseMemObject(d));

    /* Inside one buffer, disjoint ranges. */
    CL_OK(clEnqueueCopyBuffer(q, dst, dst, 1, 40 * MIB + 1, 4 * MIB, 0, NULL, NULL));
    memmove(want + 40 * MIB + 1, want + 1, 4 * MIB);
    verify(40 * MIB, 44 * MIB + 2, "inside one buffer");

    /* A host-memory source stays on a copy engine: same bytes. */
    cl_mem h = buffer(CL_MEM_ALLOC_HOST_PTR, 2 * MIB);
    uint8_t hdata[4096];
    randomize(hdata, sizeof(hdata));
    for (size_t off = 0; off < 2 * MIB; off += sizeof(hdata))
        CL_OK(clEnqueueWriteBuffer(q, h, CL_FALSE, off, sizeof(hdata), hdata, 0, NULL, NULL));
    CL_OK(clEnqueueCopyBuffer(q, h, dst, 0, 50 * MIB + 4, 2 * MIB, 0, NULL, NULL));
    for (size_t off = 0; off < 2 * MIB; off += sizeof(hdata))
        memcpy(want + 50 * MIB + 4 + off, hdata, sizeof(hdata));
    verify(50 * MIB, 53 * MIB, "host-memory source");
    CL_OK(clReleaseMemObject(h));
}

/* clEnqueueFillBuffer: 1 MiB and more of device memory runs the fill
 * kernel, less a copy engine; every pattern size. */
static void test_fill(void)
{
    size_t at = 0;
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        uint8_t pat[128];
        randomize(pat, ps);
        const size_t sizes[] = {MIB + 8 * ps, 4096 * ps, 2 * MIB + 128 * ps};
        for (size_t k = 0; k < 3; k++) {
            size_t off = (at + ps * (k + 1) + 127) / ps * ps, n = sizes[k];
            CL_OK(clEnqueueFillBuffer(q, dst, pat, ps, off, n, 0, NULL, NULL));
            for (size_t j = 0; j < n; j++)
                want[off + j] = pat[j % ps];
            at = off + n;
        }
    }
    REQUIRE(at <= BUF);
    verify(0, at, "fills");
}

static void test_order(void)
{
    /* In order: write (copy engine), kernel copy, write again, copy. */
    const size_t n = 2 * MIB;
    uint8_t *x = malloc(n), *y = malloc(n);
    REQUIRE(x && y);
    randomize(x, n);
    randomize(y, n);
    CL_OK(clEnqueueWriteBuffer(q, src, CL_FALSE, 0, n, x, 0, NULL, NULL));
    CL_OK(clEnqueueCopyBuffer(q, src, dst, 0, 0, n, 0, NULL, NULL));
    CL_OK(clEnqueueWriteBuffer(q, src, CL_FALSE, 0, n, y, 0, NULL, NULL));
    CL_OK(clEnqueueCopyBuffer(q, src, dst, 0, n, n, 0, NULL, NULL));
    memcpy(want, x, n);
    memcpy(want + n, y, n);
    memcpy(sdata, y, n);
    verify(0, 2 * n, "in-order write / copy / write / copy");

    /* Out of order: the copy waits for a user event. */
    cl_int err;
    cl_command_queue oq = clCreateCommandQueueWithProperties(
        ctx, dev, (cl_queue_properties[]){CL_QUEUE_PROPERTIES,
                                           CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0},
        &err);
    REQUIRE(err == CL_SUCCESS);
    CL_OK(clFinish(q));
    cl_event user = clCreateUserEvent(ctx, &err), ev = NULL;
    REQUIRE(err == CL_SUCCESS);
    CL_OK(clEnqueueCopyBuffer(oq, src, dst, 4 * MIB, 8 * MIB, 3 * MIB, 1, &user, &ev));
    CL_OK(clFlush(oq));
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    cl_int st = 0;
    CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
    EXPECT(st > CL_COMPLETE, "copy behind an open user event has status %d", st);
    verify(8 * MIB, 11 * MIB, "before the user event"); /* model not yet updated */
    CL_OK(clSetUserEventStatus(user, CL_COMPLETE));
    CL_OK(clWaitForEvents(1, &ev));
    memcpy(want + 8 * MIB, sdata + 4 * MIB, 3 * MIB);
    verify(8 * MIB, 11 * MIB, "after the user event");
    CL_OK(clReleaseEvent(ev));
    CL_OK(clReleaseEvent(user));

    /* A failed dependency fails the copy's event. */
    user = clCreateUserEvent(ctx, &err);
    REQUIRE(err == CL_SUCCESS);
    CL_OK(clEnqueueCopyBuffer(oq, src, dst, 0, 12 * MIB, 2 * MIB, 1, &user, &ev));
    CL_OK(clSetUserEventStatus(user, -1));
    EXPECT(clWaitForEvents(1, &ev) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
    EXPECT(st < 0, "status %d", st);
    CL_OK(clReleaseEvent(ev));
    CL_OK(clReleaseEvent(user));
    CL_OK(clFinish(oq));
    CL_OK(clReleaseCommandQueue(oq));
    /* Whatever ran there is not checked: take it into the model. */
    CL_OK(clEnqueueReadBuffer(q, dst, CL_TRUE, 12 * MIB, 2 * MIB, want + 12 * MIB, 0, NULL, NULL));
    free(x);
    free(y);
}

static void test_profiling(void)
{
    cl_int err;
    cl_command_queue pq = clCreateCommandQueueWithProperties(
        ctx, dev, (cl_queue_properties[]){CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0},
        &err);
    REQUIRE(err == CL_SUCCESS);
    cl_event ev;
    CL_OK(clEnqueueCopyBuffer(pq, src, dst, 16 * MIB, 20 * MIB, 4 * MIB, 0, NULL, &ev));
    memcpy(want + 20 * MIB, sdata + 16 * MIB, 4 * MIB);
    CL_OK(clWaitForEvents(1, &ev));
    cl_ulong t[4] = {0};
    const cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                       CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    for (int i = 0; i < 4; i++)
        CL_OK(clGetEventProfilingInfo(ev, what[i], sizeof(t[i]), &t[i], NULL));
    EXPECT(t[0] && t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3],
           "profiling %llu %llu %llu %llu", (unsigned long long)t[0], (unsigned long long)t[1],
           (unsigned long long)t[2], (unsigned long long)t[3]);
    CL_OK(clReleaseEvent(ev));
    CL_OK(clReleaseCommandQueue(pq));
    verify(20 * MIB, 24 * MIB, "profiled copy");
}

int main(void)
{
    cl_platform_id platform;
    cltest_setup(&platform, &dev, &ctx, &q);
    sdata = malloc(BUF);
    want = malloc(BUF);
    got = malloc(BUF);
    REQUIRE(sdata && want && got);
    src = buffer(CL_MEM_READ_WRITE, BUF);
    dst = buffer(CL_MEM_READ_WRITE, BUF);
    randomize(sdata, BUF);
    for (size_t i = 0; i < BUF; i++)
        want[i] = (uint8_t)(0x5A ^ (i >> 12));
    CL_OK(clEnqueueWriteBuffer(q, src, CL_TRUE, 0, BUF, sdata, 0, NULL, NULL));
    CL_OK(clEnqueueWriteBuffer(q, dst, CL_TRUE, 0, BUF, want, 0, NULL, NULL));

    test_alignments();
    test_sizes();
    test_sub_buffers();
    test_fill();
    test_order();
    test_profiling();

    CL_OK(clReleaseMemObject(src));
    CL_OK(clReleaseMemObject(dst));
    cltest_teardown(ctx, q);
    free(sdata);
    free(want);
    free(got);
    return check_done("builtin_copy");
}

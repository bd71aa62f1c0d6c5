/*
 * data.c — buffer transfers move the right bytes: read/write round trips
 * (blocking, non-blocking, gated on user events, staged and pipelined
 * sizes), a write of host memory a read enqueued before it fills, the
 * profiled times of pipelined transfers, sub-buffer aliasing, copies, every fill pattern size with
 * offsets, rect transfers with pitches, map/unmap coherence for each kind
 * of memory, and migration.
 */
#include <pthread.h>

#include "xfer_test.h"

static struct xt t;

/* Sizes that take each path: a few bytes, one staging chunk, just over
 * one (pipelined when blocking), several chunks with a ragged tail. */
static const size_t sizes[] = {1, 3, 4096, 65537, 4u << 20, (4u << 20) + 1, (13u << 20) + 7};

static void test_round_trips(void)
{
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        uint8_t *in = malloc(n), *out = malloc(n);
        REQUIRE(in && out);
        xt_random(in, n, n);
        cl_mem m = xt_buffer(&t, 0, n + 512, NULL);
        /* blocking write, blocking read at an unaligned offset */
        EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_TRUE, 5, n, in, 0, NULL, NULL));
        memset(out, 0xAA, n);
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 5, n, out, 0, NULL, NULL));
        long d = xt_diff(in, out, n);
        if (d >= 0)
            fprintf(stderr, "blocking round trip of %zu bytes differs at %ld\n", n, d);
        EXPECT(d < 0);

        /* non-blocking both ways, ordered by the in-order queue */
        xt_random(in, n, n + 1);
        memset(out, 0x55, n);
        cl_event wev = NULL, rev = NULL;
        EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_FALSE, 500, n, in, 0, NULL, &wev));
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_FALSE, 500, n, out, 1, &wev, &rev));
        EXPECT_OK(clWaitForEvents(1, &rev));
        cl_int st = 1;
        EXPECT_OK(clGetEventInfo(rev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
        EXPECT(st == CL_COMPLETE);
        d = xt_diff(in, out, n);
        if (d >= 0)
            fprintf(stderr, "non-blocking round trip of %zu bytes differs at %ld\n", n, d);
        EXPECT(d < 0);
        cl_command_type type = 0;
        EXPECT_OK(clGetEventInfo(wev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
        EXPECT(type == CL_COMMAND_WRITE_BUFFER);
        EXPECT_OK(clGetEventInfo(rev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
        EXPECT(type == CL_COMMAND_READ_BUFFER);
        clReleaseEvent(wev);
        clReleaseEvent(rev);
        clReleaseMemObject(m);
        free(in);
        free(out);
    }
}

/* A non-blocking read behind a user event leaves the user's memory alone
 * until the event is set, and has the data there when its event completes. */
static void test_gated_read(void)
{
    const size_t sz[] = {4096, (9u << 20) + 3};
    for (size_t i = 0; i < 2; i++) {
        size_t n = sz[i];
        uint8_t *in = malloc(n), *out = malloc(n), *zero = calloc(1, n);
        REQUIRE(in && out && zero);
        xt_random(in, n, 77 + i);
        cl_mem m = xt_buffer(&t, 0, n, NULL);
        EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_TRUE, 0, n, in, 0, NULL, NULL));
        cl_int err;
        cl_event gate = clCreateUserEvent(t.ctx, &err), rev = NULL;
        REQUIRE(err == CL_SUCCESS);
        memset(out, 0, n);
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_FALSE, 0, n, out, 1, &gate, &rev));
        /* Nothing may land before the gate opens. */
        struct timespec ms = {0, 20 * 1000 * 1000};
        nanosleep(&ms, NULL);
        cl_int st = 0;
        EXPECT_OK(clGetEventInfo(rev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
        EXPECT(st > CL_COMPLETE);
        EXPECT(memcmp(out, zero, n) == 0);
        EXPECT_OK(clSetUserEventStatus(gate, CL_COMPLETE));
        EXPECT_OK(clWaitForEvents(1, &rev));
        EXPECT(xt_diff(in, out, n) < 0);
        clReleaseEvent(rev);
        clReleaseEvent(gate);
        clReleaseMemObject(m);
        free(in);
        free(out);
        free(zero);
    }
}

/* In order, a write from host memory that a read enqueued before it
 * fills moves the read's bytes, not what the memory held at enqueue:
 * buffer a -> host -> buffer b with both commands non-blocking, the read
 * held behind a user event (and not: a read still on the GPU), for the
 * staged, pipelined and registered sizes, and the same through rects. */
static void test_read_then_write(void)
{
    const size_t sz[] = {4096, (3u << 20) + 5, (9u << 20) + 3};
    for (size_t i = 0; i < 3; i++) {
        for (int gated = 0; gated < 2; gated++) {
            for (int rect = 0; rect < 2; rect++) {
                size_t n = sz[i];
                uint8_t *in = malloc(n), *mid = malloc(n), *out = malloc(n);
                REQUIRE(in && mid && out);
                xt_random(in, n, 91 + i);
                memset(mid, 0x5c, n);
                cl_mem a = xt_buffer(&t, 0, n, NULL), b = xt_buffer(&t, 0, n, NULL);
                EXPECT_OK(clEnqueueWriteBuffer(t.q, a, CL_TRUE, 0, n, in, 0, NULL, NULL));
                cl_int err = CL_SUCCESS;
                cl_event g = gated ? clCreateUserEvent(t.ctx, &err) : NULL;
                REQUIRE(err == CL_SUCCESS);
                /* n rows of one byte, or one row of n bytes. */
                const size_t org[3] = {0, 0, 0}, reg[3] = {1, n, 1};
                if (rect) {
                    EXPECT_OK(clEnqueueReadBufferRect(t.q, a, CL_FALSE, org, org, reg, 1, n, 1,
                                                      n, mid, g ? 1 : 0, g ? &g : NULL, NULL));
                    EXPECT_OK(clEnqueueWriteBufferRect(t.q, b, CL_FALSE, org, org, reg, 1, n, 1,
                                                       n, mid, 0, NULL, NULL));
                } else {
                    EXPECT_OK(clEnqueueReadBuffer(t.q, a, CL_FALSE, 0, n, mid, g ? 1 : 0,
                                                  g ? &g : NULL, NULL));
                    EXPECT_OK(clEnqueueWriteBuffer(t.q, b, CL_FALSE, 0, n, mid, 0, NULL, NULL));
                }
                if (g) {
                    EXPECT_OK(clSetUserEventStatus(g, CL_COMPLETE));
                    clReleaseEvent(g);
                }
                EXPECT_OK(clFinish(t.q));
                memset(out, 0, n);
                EXPECT_OK(clEnqueueReadBuffer(t.q, b, CL_TRUE, 0, n, out, 0, NULL, NULL));
                long d = xt_diff(in, out, n);
                EXPECT(d < 0, "%zu bytes read then written%s%s: differ from byte %ld", n,
                       gated ? " behind a user event" : "", rect ? " as rects" : "", d);
                clReleaseMemObject(a);
                clReleaseMemObject(b);
                free(in);
                free(mid);
                free(out);
            }
        }
    }
}

/* The same with the host memory a mapped pointer: a read into the mapped
 * region of an ALLOC_HOST_PTR buffer, then a rect write from it; and a
 * non-blocking map of a device buffer that a copy filled, then a write
 * from the mapped pointer, both before either command ran. */
static void test_mapped_then_write(void)
{
    const size_t n = 65536;
    uint8_t *in = malloc(n), *out = malloc(n);
    REQUIRE(in && out);
    for (int rect = 0; rect < 2; rect++) {
        xt_random(in, n, 7 + rect);
        cl_mem a = xt_buffer(&t, 0, n, NULL), c = xt_buffer(&t, 0, n, NULL);
        cl_mem m = xt_buffer(&t, CL_MEM_ALLOC_HOST_PTR, n, NULL);
        EXPECT_OK(clEnqueueWriteBuffer(t.q, a, CL_TRUE, 0, n, in, 0, NULL, NULL));
        cl_int err = CL_SUCCESS;
        uint8_t *p = clEnqueueMapBuffer(t.q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL,
                                        NULL, &err);
        REQUIRE(p && err == CL_SUCCESS);
        memset(p, 0, n);
        cl_event g = clCreateUserEvent(t.ctx, &err);
        REQUIRE(err == CL_SUCCESS);
        EXPECT_OK(clEnqueueReadBuffer(t.q, a, CL_FALSE, 0, n, p, 1, &g, NULL));
        const size_t org[3] = {0, 0, 0}, reg[3] = {256, n / 256, 1};
        if (rect)
            EXPECT_OK(clEnqueueWriteBufferRect(t.q, c, CL_FALSE, org, org, reg, 256, 0, 256, 0, p,
                                               0, NULL, NULL));
        else
            EXPECT_OK(clEnqueueWriteBuffer(t.q, c, CL_FALSE, 0, n, p, 0, NULL, NULL));
        EXPECT_OK(clSetUserEventStatus(g, CL_COMPLETE));
        clReleaseEvent(g);
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, m, p, 0, NULL, NULL));
        EXPECT_OK(clFinish(t.q));
        EXPECT_OK(clEnqueueReadBuffer(t.q, c, CL_TRUE, 0, n, out, 0, NULL, NULL));
        long d = xt_diff(in, out, n);
        EXPECT(d < 0, "read into a mapped pointer, then a %s from it: differ from byte %ld",
               rect ? "rect write" : "write", d);
        /* A map that copies in, not yet run, as a write's source. */
        xt_random(in, n, 17 + rect);
        EXPECT_OK(clEnqueueWriteBuffer(t.q, a, CL_TRUE, 0, n, in, 0, NULL, NULL));
        cl_mem dbuf = xt_buffer(&t, 0, n, NULL);
        g = clCreateUserEvent(t.ctx, &err);
        EXPECT_OK(clEnqueueCopyBuffer(t.q, a, dbuf, 0, 0, n, 1, &g, NULL));
        uint8_t *q = clEnqueueMapBuffer(t.q, dbuf, CL_FALSE, CL_MAP_READ, 0, n, 0, NULL, NULL,
                                        &err);
        REQUIRE(q && err == CL_SUCCESS);
        if (rect)
            EXPECT_OK(clEnqueueWriteBufferRect(t.q, c, CL_FALSE, org, org, reg, 256, 0, 256, 0, q,
                                               0, NULL, NULL));
        else
            EXPECT_OK(clEnqueueWriteBuffer(t.q, c, CL_FALSE, 0, n, q, 0, NULL, NULL));
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, dbuf, q, 0, NULL, NULL));
        EXPECT_OK(clSetUserEventStatus(g, CL_COMPLETE));
        clReleaseEvent(g);
        EXPECT_OK(clFinish(t.q));
        EXPECT_OK(clEnqueueReadBuffer(t.q, c, CL_TRUE, 0, n, out, 0, NULL, NULL));
        d = xt_diff(in, out, n);
        EXPECT(d < 0, "map not yet run, then a %s from its pointer: differ from byte %ld",
               rect ? "rect write" : "write", d);
        clReleaseMemObject(a);
        clReleaseMemObject(c);
        clReleaseMemObject(m);
        clReleaseMemObject(dbuf);
    }
    free(in);
    free(out);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Profiled large pageable transfers, which move inside the enqueue call
 * (pipelined): SUBMIT is when the first piece left, and START..END spans
 * the transfer (most of the call's time), not a sliver after it. */
static void test_profiled_pipeline(void)
{
    const size_t n = 64u << 20;
    uint8_t *h = malloc(n);
    REQUIRE(h);
    memset(h, 3, n);
    cl_int err;
    cl_command_queue pq = clCreateCommandQueueWithProperties(
        t.ctx, t.dev, (cl_queue_properties[]){CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0},
        &err);
    REQUIRE(pq && err == CL_SUCCESS);
    cl_mem m = xt_buffer(&t, 0, n, NULL);
    EXPECT_OK(clEnqueueWriteBuffer(pq, m, CL_TRUE, 0, n, h, 0, NULL, NULL)); /* warm */
    /* A thread held back before the first piece or after the last one
     * lengthens the call, not START..END: three tries each way at most. */
    for (int write = 0; write < 2; write++) {
        bool most = false;
        for (int tries = 0; tries < 3 && !most; tries++) {
            cl_event e;
            const double t0 = now_ms();
            if (write)
                EXPECT_OK(clEnqueueWriteBuffer(pq, m, CL_TRUE, 0, n, h, 0, NULL, &e));
            else
                EXPECT_OK(clEnqueueReadBuffer(pq, m, CL_TRUE, 0, n, h, 0, NULL, &e));
            const double wall = now_ms() - t0;
            cl_ulong q = 0, sub = 0, st = 0, en = 0;
            EXPECT_OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_QUEUED, sizeof(q), &q,
                                              NULL));
            EXPECT_OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_SUBMIT, sizeof(sub), &sub,
                                              NULL));
            EXPECT_OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof(st), &st,
                                              NULL));
            EXPECT_OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof(en), &en,
                                              NULL));
            const double run = (double)(en - st) / 1e6;
            EXPECT(q <= sub && sub <= st && st <= en,
                   "%s: QUEUED %llu SUBMIT %llu START %llu END %llu", write ? "write" : "read",
                   (unsigned long long)q, (unsigned long long)sub, (unsigned long long)st,
                   (unsigned long long)en);
            most = run >= 0.5 * wall;
            EXPECT(most || tries < 2, "%s of 64 MiB: START..END %.3f ms of a %.3f ms call",
                   write ? "write" : "read", run, wall);
            clReleaseEvent(e);
        }
    }
    clReleaseMemObject(m);
    clReleaseCommandQueue(pq);
    free(h);
}

static void test_sub_buffers(void)
{
    const size_t n = 1 << 20;
    uint8_t *model = malloc(n), *out = malloc(n), *data = malloc(n);
    REQUIRE(model && out && data);
    xt_random(model, n, 5);
    cl_mem parent = xt_buffer(&t, 0, n, NULL);
    EXPECT_OK(clEnqueueWriteBuffer(t.q, parent, CL_TRUE, 0, n, model, 0, NULL, NULL));
    cl_buffer_region reg = {256 * 7, 300000};
    cl_int err;
    cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    REQUIRE(err == CL_SUCCESS);
    /* write through the sub-buffer, read through the parent */
    xt_random(data, 1000, 6);
    EXPECT_OK(clEnqueueWriteBuffer(t.q, sub, CL_TRUE, 123, 1000, data, 0, NULL, NULL));
    memcpy(model + reg.origin + 123, data, 1000);
    EXPECT_OK(clEnqueueReadBuffer(t.q, parent, CL_TRUE, 0, n, out, 0, NULL, NULL));
    EXPECT(xt_diff(model, out, n) < 0);
    /* write through the parent, read through the sub-buffer */
    xt_random(data, 5000, 7);
    EXPECT_OK(clEnqueueWriteBuffer(t.q, parent, CL_TRUE, reg.origin + 2000, 5000, data, 0, NULL,
                                   NULL));
    memcpy(model + reg.origin + 2000, data, 5000);
    EXPECT_OK(clEnqueueReadBuffer(t.q, sub, CL_TRUE, 0, reg.size, out, 0, NULL, NULL));
    EXPECT(xt_diff(model + reg.origin, out, reg.size) < 0);
    /* copy from the sub-buffer into another part of the parent */
    EXPECT_OK(clEnqueueCopyBuffer(t.q, sub, parent, 0, 600000, 4096, 0, NULL, NULL));
    memcpy(model + 600000, model + reg.origin, 4096);
    /* fill inside the sub-buffer */
    cl_ushort pat = 0xBEEF;
    EXPECT_OK(clEnqueueFillBuffer(t.q, sub, &pat, 2, 10, 64, 0, NULL, NULL));
    for (size_t i = 0; i < 64; i += 2)
        memcpy(model + reg.origin + 10 + i, &pat, 2);
    EXPECT_OK(clEnqueueReadBuffer(t.q, parent, CL_TRUE, 0, n, out, 0, NULL, NULL));
    EXPECT(xt_diff(model, out, n) < 0);
    /* map the sub-buffer, change it, see the change through the parent */
    uint8_t *p = clEnqueueMapBuffer(t.q, sub, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 512, 8192, 0,
                                    NULL, NULL, &err);
    EXPECT(p && err == CL_SUCCESS);
    if (p) {
        EXPECT(xt_diff(model + reg.origin + 512, p, 8192) < 0);
        for (size_t i = 0; i < 8192; i += 97)
            model[reg.origin + 512 + i] = p[i] = (uint8_t)(i * 7);
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, sub, p, 0, NULL, NULL));
    }
    EXPECT_OK(clEnqueueReadBuffer(t.q, parent, CL_TRUE, 0, n, out, 0, NULL, NULL));
    EXPECT(xt_diff(model, out, n) < 0);
    clReleaseMemObject(sub);
    clReleaseMemObject(parent);
    free(model);
    free(out);
    free(data);
}

static void test_copies(void)
{
    const size_t n = (6u << 20) + 100;
    uint8_t *a = malloc(n), *out = malloc(n), *model = malloc(n);
    REQUIRE(a && out && model);
    xt_random(a, n, 9);
    cl_mem src = xt_buffer(&t, 0, n, NULL), dst = xt_buffer(&t, 0, n, NULL);
    EXPECT_OK(clEnqueueWriteBuffer(t.q, src, CL_FALSE, 0, n, a, 0, NULL, NULL));
    cl_uint zero = 0;
    EXPECT_OK(clEnqueueFillBuffer(t.q, dst, &zero, 4, 0, n - n % 4, 0, NULL, NULL));
    EXPECT_OK(clEnqueueFillBuffer(t.q, dst, &zero, 1, n - n % 4, n % 4, 0, NULL, NULL));
    memset(model, 0, n);
    const size_t cases[][3] = {{0, 0, n}, {1, 7, 1000}, {4096, 0, 3 << 20}, {17, 5000000, 1}};
    for (size_t i = 0; i < 4; i++) {
        EXPECT_OK(clEnqueueCopyBuffer(t.q, src, dst, cases[i][0], cases[i][1], cases[i][2], 0,
                                      NULL, NULL));
        memcpy(model + cases[i][1], a + cases[i][0], cases[i][2]);
    }
    /* within one buffer, non-overlapping */
    EXPECT_OK(clEnqueueCopyBuffer(t.q, dst, dst, 0, n - 4096, 4096, 0, NULL, NULL));
    memcpy(model + n - 4096, model, 4096);
    cl_event ev = NULL;
    EXPECT_OK(clEnqueueCopyBuffer(t.q, src, dst, 0, 0, 0, 0, NULL, &ev)); /* empty: still an event */
    EXPECT(ev != NULL);
    EXPECT_OK(clEnqueueReadBuffer(t.q, dst, CL_TRUE, 0, n, out, 1, &ev, NULL));
    clReleaseEvent(ev);
    EXPECT(xt_diff(model, out, n) < 0);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(a);
    free(out);
    free(model);
}

static void test_fills(void)
{
    const size_t n = 3u << 20; /* below and above one staging chunk */
    uint8_t *model = malloc(n), *out = malloc(n);
    REQUIRE(model && out);
    cl_mem m = xt_buffer(&t, 0, n, NULL);
    for (size_t ps = 1; ps <= 128; ps <<= 1) {
        for (int variant = 0; variant < 2; variant++) {
            uint8_t pat[128];
            xt_random(pat, sizeof(pat), ps * 2 + variant);
            if (variant == 1 && ps > 8) /* a pattern an 8-byte unit repeats */
                for (size_t i = 8; i < ps; i++)
                    pat[i] = pat[i % 8];
            xt_random(model, n, ps + 100 * variant);
            EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_FALSE, 0, n, model, 0, NULL, NULL));
            const size_t regions[][2] = {{0, ps}, {ps * 3, ps * 5}, {ps * 64, n / 2},
                                         {n - ps * 40, ps * 40}};
            for (size_t r = 0; r < 4; r++) {
                size_t off = regions[r][0], size = regions[r][1] - regions[r][1] % ps;
                EXPECT_OK(clEnqueueFillBuffer(t.q, m, pat, ps, off, size, 0, NULL, NULL));
                for (size_t i = 0; i < size; i += ps)
                    memcpy(model + off + i, pat, ps);
            }
            EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 0, NULL, NULL));
            long d = xt_diff(model, out, n);
            if (d >= 0)
                fprintf(stderr, "fill with a %zu-byte pattern (variant %d) differs at %ld\n", ps,
                        variant, d);
            EXPECT(d < 0);
        }
    }
    clReleaseMemObject(m);
    free(model);
    free(out);
}

/* Reference rectangle copy between two byte arrays. */
static void rect_model(uint8_t *dst, const size_t dorg[3], size_t drp, size_t dsp,
                       const uint8_t *src, const size_t sorg[3], size_t srp, size_t ssp,
                       const size_t region[3])
{
    if (!drp)
        drp = region[0];
    if (!dsp)
        dsp = region[1] * drp;
    if (!srp)
        srp = region[0];
    if (!ssp)
        ssp = region[1] * srp;
    for (size_t z = 0; z < region[2]; z++)
        for (size_t y = 0; y < region[1]; y++)
            memcpy(dst + (dorg[2] + z) * dsp + (dorg[1] + y) * drp + dorg[0],
                   src + (sorg[2] + z) * ssp + (sorg[1] + y) * srp + sorg[0], region[0]);
}

static void test_rects(void)
{
    const size_t n = 1 << 20;
    uint8_t *model = malloc(n), *out = malloc(n), *host = malloc(n), *hmodel = malloc(n);
    REQUIRE(model && out && host && hmodel);
    cl_mem m = xt_buffer(&t, 0, n, NULL), m2 = xt_buffer(&t, 0, n, NULL);
    struct {
        size_t borg[3], horg[3], region[3], brp, bsp, hrp, hsp;
    } cases[] = {
        {{0, 0, 0}, {0, 0, 0}, {64, 1, 1}, 0, 0, 0, 0},
        {{3, 2, 1}, {5, 1, 0}, {17, 9, 3}, 40, 400, 30, 300},
        {{100, 7, 0}, {0, 0, 2}, {200, 50, 1}, 512, 0, 256, 0},
        {{1, 1, 1}, {2, 3, 4}, {31, 7, 5}, 0, 0, 64, 64 * 11},
        {{0, 0, 0}, {0, 0, 0}, {1000, 100, 4}, 1024, 0, 1000, 0},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        xt_random(model, n, 31 + c);
        xt_random(host, n, 41 + c);
        EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_TRUE, 0, n, model, 0, NULL, NULL));
        EXPECT_OK(clEnqueueWriteBufferRect(t.q, m, c & 1, cases[c].borg, cases[c].horg,
                                           cases[c].region, cases[c].brp, cases[c].bsp,
                                           cases[c].hrp, cases[c].hsp, host, 0, NULL, NULL));
        rect_model(model, cases[c].borg, cases[c].brp, cases[c].bsp, host, cases[c].horg,
                   cases[c].hrp, cases[c].hsp, cases[c].region);
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 0, NULL, NULL));
        long d = xt_diff(model, out, n);
        if (d >= 0)
            fprintf(stderr, "write rect case %zu differs at %ld\n", c, d);
        EXPECT(d < 0);

        /* read the rectangle back into a fresh host image */
        xt_random(host, n, 51 + c);
        memcpy(hmodel, host, n);
        cl_event ev = NULL;
        EXPECT_OK(clEnqueueReadBufferRect(t.q, m, CL_FALSE, cases[c].borg, cases[c].horg,
                                          cases[c].region, cases[c].brp, cases[c].bsp,
                                          cases[c].hrp, cases[c].hsp, host, 0, NULL, &ev));
        EXPECT_OK(clWaitForEvents(1, &ev));
        clReleaseEvent(ev);
        rect_model(hmodel, cases[c].horg, cases[c].hrp, cases[c].hsp, model, cases[c].borg,
                   cases[c].brp, cases[c].bsp, cases[c].region);
        d = xt_diff(hmodel, host, n);
        if (d >= 0)
            fprintf(stderr, "read rect case %zu differs at %ld\n", c, d);
        EXPECT(d < 0);

        /* buffer to buffer with the buffer and host geometries */
        xt_random(hmodel, n, 61 + c);
        EXPECT_OK(clEnqueueWriteBuffer(t.q, m2, CL_TRUE, 0, n, hmodel, 0, NULL, NULL));
        EXPECT_OK(clEnqueueCopyBufferRect(t.q, m, m2, cases[c].borg, cases[c].horg,
                                          cases[c].region, cases[c].brp, cases[c].bsp,
                                          cases[c].hrp, cases[c].hsp, 0, NULL, NULL));
        rect_model(hmodel, cases[c].horg, cases[c].hrp, cases[c].hsp, model, cases[c].borg,
                   cases[c].brp, cases[c].bsp, cases[c].region);
        EXPECT_OK(clEnqueueReadBuffer(t.q, m2, CL_TRUE, 0, n, out, 0, NULL, NULL));
        d = xt_diff(hmodel, out, n);
        if (d >= 0)
            fprintf(stderr, "copy rect case %zu differs at %ld\n", c, d);
        EXPECT(d < 0);
    }
    /* within one buffer: columns side by side */
    size_t so[3] = {0, 0, 0}, dO[3] = {32, 0, 0}, reg[3] = {32, 100, 2};
    EXPECT_OK(clEnqueueCopyBufferRect(t.q, m, m, so, dO, reg, 64, 0, 64, 0, 0, NULL, NULL));
    rect_model(model, dO, 64, 0, model, so, 64, 0, reg);
    EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 0, NULL, NULL));
    EXPECT(xt_diff(model, out, n) < 0);
    clReleaseMemObject(m);
    clReleaseMemObject(m2);
    free(model);
    free(out);
    free(host);
    free(hmodel);
}

/* Map/unmap for each kind of buffer store. */
static void test_maps(void)
{
    const size_t n = (5u << 20) + 256;
    /* The second USE_HOST_PTR case starts 8 bytes into a page: memory the
     * buffer can't use in place, so it keeps a copy in step with it. */
    const cl_mem_flags kinds[] = {0,
                                  CL_MEM_ALLOC_HOST_PTR,
                                  CL_MEM_USE_HOST_PTR,
                                  CL_MEM_USE_HOST_PTR,
                                  CL_MEM_COPY_HOST_PTR,
                                  CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR};
    const size_t skew[] = {0, 0, 0, 8, 0, 0};
    const char *names[] = {"device",        "alloc_host_ptr", "use_host_ptr",
                           "use_host_ptr+8", "copy_host_ptr", "alloc+copy_host_ptr"};
    uint8_t *model = malloc(n), *out = malloc(n);
    REQUIRE(model && out);
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        uint8_t *alloc = NULL, *hp = NULL;
        xt_random(model, n, 200 + k);
        if (kinds[k] & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) {
            alloc = aligned_alloc(4096, (n + skew[k] + 4095) & ~(size_t)4095);
            REQUIRE(alloc);
            hp = alloc + skew[k];
            memcpy(hp, model, n);
        }
        cl_mem m = xt_buffer(&t, kinds[k], n, hp);
        if (!hp)
            EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_TRUE, 0, n, model, 0, NULL, NULL));

        /* map for reading: the latest bits */
        cl_int err;
        const size_t off = 4096 + 8, len = (4u << 20) + 100;
        uint8_t *p = clEnqueueMapBuffer(t.q, m, CL_TRUE, CL_MAP_READ, off, len, 0, NULL, NULL, &err);
        EXPECT(p && err == CL_SUCCESS);
        if (!p)
            goto next;
        if (kinds[k] & CL_MEM_USE_HOST_PTR)
            EXPECT(p == hp + off);
        if (xt_diff(model + off, p, len) >= 0) {
            fprintf(stderr, "map read on %s buffer: wrong bytes\n", names[k]);
            failures++;
        }
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, m, p, 0, NULL, NULL));

        /* map for writing: the host's changes land at unmap */
        p = clEnqueueMapBuffer(t.q, m, CL_TRUE, CL_MAP_WRITE, off, len, 0, NULL, NULL, &err);
        EXPECT(p && err == CL_SUCCESS);
        if (!p)
            goto next;
        EXPECT(xt_diff(model + off, p, len) < 0); /* MAP_WRITE also holds the latest bits */
        for (size_t i = 0; i < len; i += 4093) {
            p[i] ^= 0x5A;
            model[off + i] ^= 0x5A;
        }
        cl_event uev = NULL;
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, m, p, 0, NULL, &uev));
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 1, &uev, NULL));
        clReleaseEvent(uev);
        if (xt_diff(model, out, n) >= 0) {
            fprintf(stderr, "map write on %s buffer: changes lost\n", names[k]);
            failures++;
        }

        /* write-invalidate: the whole region is the host's */
        p = clEnqueueMapBuffer(t.q, m, CL_FALSE, CL_MAP_WRITE_INVALIDATE_REGION, 0, 8192, 0, NULL,
                               &uev, &err);
        EXPECT(p && err == CL_SUCCESS && uev);
        if (!p)
            goto next;
        EXPECT_OK(clWaitForEvents(1, &uev));
        clReleaseEvent(uev);
        xt_random(p, 8192, 300 + k);
        memcpy(model, p, 8192);
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, m, p, 0, NULL, NULL));
        /* a non-blocking read map after a GPU-side change */
        cl_uint pat = 0x01020304;
        EXPECT_OK(clEnqueueFillBuffer(t.q, m, &pat, 4, 8192, 4096, 0, NULL, NULL));
        for (size_t i = 0; i < 4096; i += 4)
            memcpy(model + 8192 + i, &pat, 4);
        p = clEnqueueMapBuffer(t.q, m, CL_FALSE, CL_MAP_READ, 0, 16384, 0, NULL, &uev, &err);
        EXPECT(p && err == CL_SUCCESS);
        if (!p)
            goto next;
        EXPECT_OK(clWaitForEvents(1, &uev));
        clReleaseEvent(uev);
        if (xt_diff(model, p, 16384) >= 0) {
            fprintf(stderr, "map read after fill on %s buffer: wrong bytes\n", names[k]);
            failures++;
        }
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, m, p, 0, NULL, NULL));
        /* the whole buffer */
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 0, NULL, NULL));
        EXPECT(xt_diff(model, out, n) < 0);
        /* migration keeps contents */
        EXPECT_OK(clEnqueueMigrateMemObjects(t.q, 1, &m, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, NULL));
        EXPECT_OK(clEnqueueMigrateMemObjects(t.q, 1, &m, 0, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 0, NULL, NULL));
        EXPECT(xt_diff(model, out, n) < 0);
        /* an unmapped copy serves the next map of the object, smaller
         * and elsewhere, with the buffer's bytes in it, not its own */
        p = clEnqueueMapBuffer(t.q, m, CL_TRUE, CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
        EXPECT(p && err == CL_SUCCESS);
        if (!p)
            goto next;
        uint8_t *first = p;
        xt_random(p, n, 400 + k);
        memcpy(model, p, n);
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, m, p, 0, NULL, NULL));
        EXPECT_OK(clFinish(t.q));
        p = clEnqueueMapBuffer(t.q, m, CL_TRUE, CL_MAP_READ, 8192, n / 2, 0, NULL, NULL, &err);
        EXPECT(p && err == CL_SUCCESS);
        if (!p)
            goto next;
        if (!kinds[k])
            EXPECT(p == first, "%p, then %p: the unmapped copy was not kept", (void *)first,
                   (void *)p);
        if (xt_diff(model + 8192, p, n / 2) >= 0) {
            fprintf(stderr, "map read through a kept copy on %s buffer: wrong bytes\n", names[k]);
            failures++;
        }
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, m, p, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 0, NULL, NULL));
        EXPECT(xt_diff(model, out, n) < 0);
    next:
        EXPECT_OK(clFinish(t.q));
        clReleaseMemObject(m);
        free(alloc);
    }
    free(model);
    free(out);
}

/* A mapped ALLOC_HOST_PTR buffer as the host side of reads and writes
 * (the usual way to reach pinned bandwidth), including after it is
 * unmapped again (then it is plain pageable memory to the transfers). */
static void test_pinned(void)
{
    const size_t n = (9u << 20) + 12;
    uint8_t *model = malloc(n), *out = malloc(n);
    REQUIRE(model && out);
    cl_mem pin = xt_buffer(&t, CL_MEM_ALLOC_HOST_PTR, n, NULL), dev = xt_buffer(&t, 0, n, NULL);
    cl_int err;
    uint8_t *p = clEnqueueMapBuffer(t.q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL,
                                    NULL, &err);
    REQUIRE(p && err == CL_SUCCESS);
    xt_random(p, n, 99);
    memcpy(model, p, n);
    EXPECT_OK(clEnqueueWriteBuffer(t.q, dev, CL_TRUE, 0, n, p, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(t.q, dev, CL_TRUE, 0, n, out, 0, NULL, NULL));
    EXPECT(xt_diff(model, out, n) < 0);
    /* part of the mapping, non-blocking both ways */
    memset(p + 100, 0, 4096);
    cl_event ev = NULL;
    EXPECT_OK(clEnqueueReadBuffer(t.q, dev, CL_FALSE, 100, 4096, p + 100, 0, NULL, &ev));
    EXPECT_OK(clWaitForEvents(1, &ev));
    clReleaseEvent(ev);
    EXPECT(xt_diff(model + 100, p + 100, 4096) < 0);
    xt_random(p + 7, n - 7, 98);
    memcpy(model + 7, p + 7, n - 7);
    EXPECT_OK(clEnqueueWriteBuffer(t.q, dev, CL_FALSE, 7, n - 7, p + 7, 0, NULL, &ev));
    EXPECT_OK(clWaitForEvents(1, &ev));
    clReleaseEvent(ev);
    EXPECT_OK(clEnqueueReadBuffer(t.q, dev, CL_TRUE, 0, n, out, 0, NULL, NULL));
    EXPECT(xt_diff(model, out, n) < 0);
    EXPECT_OK(clEnqueueUnmapMemObject(t.q, pin, p, 0, NULL, NULL));
    EXPECT_OK(clFinish(t.q));
    clReleaseMemObject(pin);
    clReleaseMemObject(dev);
    free(model);
    free(out);
}

/* Hundreds of small non-blocking transfers held in flight behind a user
 * event: more than the staging slots and chunks, so every kind of staging
 * buffer is in use at once. */
static void test_burst(void)
{
    enum { N = 300, LEN = 3000, STRIDE = 3072 };
    uint8_t *in = malloc((size_t)N * STRIDE), *out = calloc(N, STRIDE);
    REQUIRE(in && out);
    xt_random(in, (size_t)N * STRIDE, 123);
    cl_mem m = xt_buffer(&t, 0, (size_t)N * STRIDE, NULL);
    cl_int err;
    cl_event gate = clCreateUserEvent(t.ctx, &err);
    REQUIRE(err == CL_SUCCESS);
    for (size_t i = 0; i < N; i++)
        EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_FALSE, i * STRIDE, LEN, in + i * STRIDE,
                                       i == 0, i == 0 ? &gate : NULL, NULL));
    for (size_t i = 0; i < N; i++)
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_FALSE, i * STRIDE + 1, LEN - 1,
                                      out + i * STRIDE + 1, 0, NULL, NULL));
    EXPECT_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    EXPECT_OK(clFinish(t.q));
    for (size_t i = 0; i < N; i++) {
        if (memcmp(in + i * STRIDE + 1, out + i * STRIDE + 1, LEN - 1) != 0) {
            fprintf(stderr, "burst transfer %zu differs\n", i);
            failures++;
            break;
        }
    }
    clReleaseEvent(gate);
    clReleaseMemObject(m);
    free(in);
    free(out);
}

/* An out-of-order queue spreads copies over both copy channels; the
 * transfers still honour their wait lists. */
static void test_out_of_order(void)
{
    cl_int err;
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(t.ctx, t.dev, props, &err);
    if (err == CL_INVALID_QUEUE_PROPERTIES) {
        printf("out-of-order queues not supported: skipped\n");
        return;
    }
    REQUIRE(err == CL_SUCCESS);
    const size_t n = (6u << 20) + 40;
    uint8_t *in = malloc(n), *out = malloc(n), *model = malloc(n);
    REQUIRE(in && out && model);
    xt_random(in, n, 4242);
    cl_mem a = xt_buffer(&t, 0, n, NULL), b = xt_buffer(&t, 0, n, NULL);
    for (int it = 0; it < 3; it++) {
        cl_event w, f, c, r;
        EXPECT_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, n, in, 0, NULL, &w));
        cl_uchar pat = (cl_uchar)(0x11 * (it + 1));
        EXPECT_OK(clEnqueueFillBuffer(q, b, &pat, 1, 0, n, 0, NULL, &f));
        cl_event both[2] = {w, f};
        EXPECT_OK(clEnqueueCopyBuffer(q, a, b, 1000, 2000, n / 2, 2, both, &c));
        EXPECT_OK(clEnqueueReadBuffer(q, b, CL_FALSE, 0, n, out, 1, &c, &r));
        EXPECT_OK(clWaitForEvents(1, &r));
        memset(model, pat, n);
        memcpy(model + 2000, in + 1000, n / 2);
        long d = xt_diff(model, out, n);
        if (d >= 0)
            fprintf(stderr, "out-of-order chain %d differs at %ld\n", it, d);
        EXPECT(d < 0);
        clReleaseEvent(w);
        clReleaseEvent(f);
        clReleaseEvent(c);
        clReleaseEvent(r);
    }
    EXPECT_OK(clFinish(q));
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseCommandQueue(q);
    free(in);
    free(out);
    free(model);
}

/* Several threads, each with its own queue, pipelining large transfers
 * at once: they share the device's staging pool. */
struct worker {
    int id;
    int failures;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    const size_t n = (11u << 20) + (size_t)w->id * 4099;
    uint8_t *in = malloc(n), *out = malloc(n);
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(t.ctx, t.dev, NULL, &err);
    cl_mem m = clCreateBuffer(t.ctx, 0, n, NULL, &err);
    if (!in || !out || !q || !m) {
        w->failures++;
        goto out;
    }
    for (int it = 0; it < 4; it++) {
        xt_random(in, n, (uint64_t)w->id * 100 + it);
        memset(out, 0, n);
        if (clEnqueueWriteBuffer(q, m, CL_TRUE, 0, n, in, 0, NULL, NULL) != CL_SUCCESS ||
            clEnqueueReadBuffer(q, m, it & 1, 0, n, out, 0, NULL, NULL) != CL_SUCCESS ||
            clFinish(q) != CL_SUCCESS || memcmp(in, out, n) != 0)
            w->failures++;
    }
out:
    if (m)
        clReleaseMemObject(m);
    if (q)
        clReleaseCommandQueue(q);
    free(in);
    free(out);
    return NULL;
}

static void test_threads(void)
{
    enum { N = 4 };
    pthread_t th[N];
    struct worker w[N];
    for (int i = 0; i < N; i++) {
        w[i] = (struct worker){i, 0};
        REQUIRE(pthread_create(&th[i], NULL, worker_main, &w[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        if (w[i].failures)
            fprintf(stderr, "transfer thread %d: %d failed round trip(s)\n", i, w[i].failures);
        EXPECT(w[i].failures == 0);
    }
}

int main(void)
{
    xt_init(&t);
    test_round_trips();
    test_gated_read();
    test_read_then_write();
    test_mapped_then_write();
    test_profiled_pipeline();
    test_sub_buffers();
    test_copies();
    test_fills();
    test_rects();
    test_maps();
    test_pinned();
    test_burst();
    test_out_of_order();
    test_threads();
    xt_fini(&t);
    return xt_done("api_transfer_data");
}

/*
 * rect_spec_test.c — the rect transfers against the specification's rules,
 * through the ICD loader: clEnqueueCopyBufferRect within one buffer and
 * between sub-buffers of one buffer answers CL_MEM_COPY_OVERLAP exactly
 * when the appendix "Checking for Memory Copy Overlap" says the regions
 * overlap; random geometries (pitches of 0 and odd ones, 3D, origins past
 * the row pitch) move the right bytes for each kind of buffer store, from
 * pageable and from pinned (mapped) host memory, blocking and not, many
 * in flight at once, and through a dedicated staging buffer; blocking
 * calls after a failed wait-list event return
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST and leave the host memory
 * alone.
 */
#include <pthread.h>

#include "xfer_test.h"

static struct xt t;

static uint64_t rng_state = 12345;
static size_t rnd(size_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? (size_t)(rng_state % n) : 0;
}

/* The appendix's check_copy_overlap, as the specification writes it. */
static bool spec_overlap(const size_t src_origin[3], const size_t dst_origin[3],
                         const size_t region[3], size_t row_pitch, size_t slice_pitch)
{
    const size_t slice_size = (region[1] - 1) * row_pitch + region[0];
    const size_t block_size = (region[2] - 1) * slice_pitch + slice_size;
    const size_t src_start =
        src_origin[2] * slice_pitch + src_origin[1] * row_pitch + src_origin[0];
    const size_t src_end = src_start + block_size;
    const size_t dst_start =
        dst_origin[2] * slice_pitch + dst_origin[1] * row_pitch + dst_origin[0];
    const size_t dst_end = dst_start + block_size;
    if (dst_end <= src_start || src_end <= dst_start)
        return false;
    const size_t src_dx = src_origin[0] % row_pitch, dst_dx = dst_origin[0] % row_pitch;
    if ((dst_dx >= src_dx + region[0] && dst_dx + region[0] <= src_dx + row_pitch) ||
        (src_dx >= dst_dx + region[0] && src_dx + region[0] <= dst_dx + row_pitch))
        return false;
    const size_t src_dy = (src_origin[1] * row_pitch + src_origin[0]) % slice_pitch;
    const size_t dst_dy = (dst_origin[1] * row_pitch + dst_origin[0]) % slice_pitch;
    if ((dst_dy >= src_dy + slice_size && dst_dy + slice_size <= src_dy + slice_pitch) ||
        (src_dy >= dst_dy + slice_size && src_dy + slice_size <= dst_dy + slice_pitch))
        return false;
    return true;
}

/* Pitches of 0 resolved as the specification says. */
static void resolve(const size_t region[3], size_t *rp, size_t *sp)
{
    if (!*rp)
        *rp = region[0];
    if (!*sp)
        *sp = region[1] * *rp;
}

/* One past the last byte a rectangle touches. */
static size_t rect_end(const size_t org[3], const size_t region[3], size_t rp, size_t sp)
{
    resolve(region, &rp, &sp);
    return org[2] * sp + org[1] * rp + org[0] + (region[2] - 1) * sp + (region[1] - 1) * rp +
           region[0];
}

/* Reference rectangle copy (memmove: source and destination may share
 * a byte array, never bytes). */
static void rect_model(uint8_t *dst, const size_t dorg[3], size_t drp, size_t dsp,
                       const uint8_t *src, const size_t sorg[3], size_t srp, size_t ssp,
                       const size_t region[3])
{
    resolve(region, &drp, &dsp);
    resolve(region, &srp, &ssp);
    for (size_t z = 0; z < region[2]; z++)
        for (size_t y = 0; y < region[1]; y++)
            memmove(dst + (dorg[2] + z) * dsp + (dorg[1] + y) * drp + dorg[0],
                    src + (sorg[2] + z) * ssp + (sorg[1] + y) * srp + sorg[0], region[0]);
}

/* Random copies within one buffer, within one sub-buffer and between
 * overlapping sub-buffers of it: CL_MEM_COPY_OVERLAP exactly where the
 * appendix's rule (in the parent's bytes) finds overlap, else the copy. */
static void test_overlap_rule(void)
{
    const size_t n = 8192;
    cl_mem root = xt_buffer(&t, 0, n, NULL);
    cl_int err;
    cl_buffer_region r1 = {512, 4096}, r2 = {1024, 4096};
    cl_mem s1 = clCreateSubBuffer(root, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
    REQUIRE(err == CL_SUCCESS);
    cl_mem s2 = clCreateSubBuffer(root, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
    REQUIRE(err == CL_SUCCESS);
    cl_mem objs[3] = {root, s1, s2};
    const size_t base[3] = {0, 512, 1024}, size[3] = {n, 4096, 4096};
    uint8_t *model = malloc(n), *out = malloc(n);
    REQUIRE(model && out);
    xt_random(model, n, 1);
    EXPECT_OK(clEnqueueWriteBuffer(t.q, root, CL_TRUE, 0, n, model, 0, NULL, NULL));
    unsigned tried = 0, overlapping = 0, reported = 0;
    for (int i = 0; i < 3000; i++) {
        const size_t a = rnd(3), b = rnd(3);
        const size_t reg[3] = {1 + rnd(8), 1 + rnd(4), 1 + rnd(3)};
        const size_t rp = reg[0] + rnd(8), sp = rp * (reg[1] + rnd(3));
        const size_t so[3] = {rnd(a == b ? 24 : 600), rnd(6), rnd(3)};
        const size_t dO[3] = {rnd(a == b ? 24 : 600), rnd(6), rnd(3)};
        if (rect_end(so, reg, rp, sp) > size[a] || rect_end(dO, reg, rp, sp) > size[b])
            continue;
        const size_t ps[3] = {so[0] + base[a], so[1], so[2]};
        const size_t pd[3] = {dO[0] + base[b], dO[1], dO[2]};
        const bool want = spec_overlap(ps, pd, reg, rp, sp);
        /* Half of them with pitches of 0 where those are the defaults. */
        const bool zero = rnd(2) && rp == reg[0] && sp == reg[1] * rp;
        cl_int got = clEnqueueCopyBufferRect(t.q, objs[a], objs[b], so, dO, reg, zero ? 0 : rp,
                                             zero ? 0 : sp, zero ? 0 : rp, zero ? 0 : sp, 0,
                                             NULL, NULL);
        tried++;
        overlapping += want;
        reported += got == CL_MEM_COPY_OVERLAP;
        if (got != (want ? CL_MEM_COPY_OVERLAP : CL_SUCCESS)) {
            fprintf(stderr,
                    "copy %zu -> %zu: region {%zu, %zu, %zu}, pitches %zu/%zu, origins "
                    "{%zu, %zu, %zu} -> {%zu, %zu, %zu}: %d, the appendix says %s\n",
                    a, b, reg[0], reg[1], reg[2], rp, sp, so[0], so[1], so[2], dO[0], dO[1],
                    dO[2], got, want ? "overlap" : "none");
            failures++;
        } else if (got == CL_SUCCESS) {
            rect_model(model, pd, rp, sp, model, ps, rp, sp, reg);
        }
    }
    EXPECT_OK(clEnqueueReadBuffer(t.q, root, CL_TRUE, 0, n, out, 0, NULL, NULL));
    long d = xt_diff(model, out, n);
    if (d >= 0)
        fprintf(stderr, "copies within one buffer differ at %ld\n", d);
    EXPECT(d < 0);
    EXPECT(overlapping > 0 && overlapping < tried);
    printf("overlap rule: %u copies, %u overlapping, %u reported\n", tried, overlapping, reported);
    clReleaseMemObject(s1);
    clReleaseMemObject(s2);
    clReleaseMemObject(root);
    free(model);
    free(out);
}

/* Random geometries on a sub-buffer of a buffer of kind `flags` (a
 * USE_HOST_PTR one from pages at `skew`), from pageable or pinned host
 * memory: write rect, read rect, and a copy rect to another buffer. */
static void test_random(cl_mem_flags flags, size_t skew, bool pinned)
{
    const size_t n = 1 << 16, hn = 1 << 16;
    uint8_t *pages = NULL;
    if (flags & CL_MEM_USE_HOST_PTR) {
        pages = aligned_alloc(4096, 4 * n + 4096);
        REQUIRE(pages);
        memset(pages, 0, 4 * n + 4096);
    }
    cl_mem root = xt_buffer(&t, flags, 4 * n, pages ? pages + skew : NULL);
    cl_buffer_region br = {1024, n};
    cl_int err;
    cl_mem m = clCreateSubBuffer(root, 0, CL_BUFFER_CREATE_TYPE_REGION, &br, &err);
    REQUIRE(err == CL_SUCCESS);
    cl_mem m2 = xt_buffer(&t, 0, n, NULL), pin = NULL;
    uint8_t *host;
    if (pinned) {
        pin = xt_buffer(&t, CL_MEM_ALLOC_HOST_PTR, hn, NULL);
        host = clEnqueueMapBuffer(t.q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, hn, 0, NULL,
                                  NULL, &err);
        REQUIRE(host && err == CL_SUCCESS);
    } else {
        host = malloc(hn);
    }
    uint8_t *model = malloc(n), *out = malloc(n), *hmodel = malloc(hn), *m2model = malloc(n);
    REQUIRE(host && model && out && hmodel && m2model);
    for (int i = 0; i < 150; i++) {
        const size_t reg[3] = {1 + rnd(40), 1 + rnd(20), 1 + rnd(4)};
        const size_t brp = rnd(2) ? 0 : reg[0] + rnd(30), hrp = rnd(2) ? 0 : reg[0] + rnd(30);
        const size_t bsp = rnd(2) ? 0 : (brp ? brp : reg[0]) * (reg[1] + rnd(4));
        const size_t hsp = rnd(2) ? 0 : (hrp ? hrp : reg[0]) * (reg[1] + rnd(4));
        const size_t bo[3] = {rnd(50), rnd(10), rnd(3)}, ho[3] = {rnd(50), rnd(10), rnd(3)};
        const cl_bool blocking = rnd(2) ? CL_TRUE : CL_FALSE;
        if (rect_end(bo, reg, brp, bsp) > n || rect_end(ho, reg, hrp, hsp) > hn)
            continue;
        xt_random(model, n, 1000 + i);
        xt_random(host, hn, 2000 + i);
        EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_TRUE, 0, n, model, 0, NULL, NULL));
        EXPECT_OK(clEnqueueWriteBufferRect(t.q, m, blocking, bo, ho, reg, brp, bsp, hrp, hsp,
                                           host, 0, NULL, NULL));
        rect_model(model, bo, brp, bsp, host, ho, hrp, hsp, reg);
        EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 0, NULL, NULL));
        long d = xt_diff(model, out, n);
        if (d >= 0)
            fprintf(stderr, "write rect %d (flags 0x%llx, pinned %d) differs at %ld\n", i,
                    (unsigned long long)flags, pinned, d);
        EXPECT(d < 0);

        xt_random(host, hn, 3000 + i);
        memcpy(hmodel, host, hn);
        cl_event ev = NULL;
        EXPECT_OK(clEnqueueReadBufferRect(t.q, m, blocking, bo, ho, reg, brp, bsp, hrp, hsp, host,
                                          0, NULL, blocking ? NULL : &ev));
        if (ev) {
            EXPECT_OK(clWaitForEvents(1, &ev));
            clReleaseEvent(ev);
        }
        rect_model(hmodel, ho, hrp, hsp, model, bo, brp, bsp, reg);
        d = xt_diff(hmodel, host, hn);
        if (d >= 0)
            fprintf(stderr, "read rect %d (flags 0x%llx, pinned %d) differs at %ld\n", i,
                    (unsigned long long)flags, pinned, d);
        EXPECT(d < 0);

        /* buffer to buffer, the host geometry on the other side */
        if (rect_end(ho, reg, hrp, hsp) > n)
            continue;
        xt_random(m2model, n, 4000 + i);
        EXPECT_OK(clEnqueueWriteBuffer(t.q, m2, CL_TRUE, 0, n, m2model, 0, NULL, NULL));
        EXPECT_OK(clEnqueueCopyBufferRect(t.q, m, m2, bo, ho, reg, brp, bsp, hrp, hsp, 0, NULL,
                                          NULL));
        rect_model(m2model, ho, hrp, hsp, model, bo, brp, bsp, reg);
        EXPECT_OK(clEnqueueReadBuffer(t.q, m2, CL_TRUE, 0, n, out, 0, NULL, NULL));
        d = xt_diff(m2model, out, n);
        if (d >= 0)
            fprintf(stderr, "copy rect %d (flags 0x%llx) differs at %ld\n", i,
                    (unsigned long long)flags, d);
        EXPECT(d < 0);
    }
    if (pinned) {
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, pin, host, 0, NULL, NULL));
        clReleaseMemObject(pin);
    } else {
        free(host);
    }
    EXPECT_OK(clFinish(t.q));
    clReleaseMemObject(m);
    clReleaseMemObject(m2);
    clReleaseMemObject(root);
    free(pages);
    free(model);
    free(out);
    free(hmodel);
    free(m2model);
}

/* Many non-blocking rect reads and writes in flight on the in-order
 * queue, each with host memory of its own; the model applies them in
 * order. With n of 8 MiB some take pool chunks instead of slots. */
static void test_in_flight(size_t n, int nops, uint64_t seed)
{
    cl_mem m = xt_buffer(&t, 0, n, NULL);
    uint8_t *model = malloc(n), *out = malloc(n);
    uint8_t **hosts = calloc(nops, sizeof(*hosts)), **hmodels = calloc(nops, sizeof(*hmodels));
    size_t *hsize = calloc(nops, sizeof(*hsize));
    REQUIRE(model && out && hosts && hmodels && hsize);
    xt_random(model, n, seed);
    EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_TRUE, 0, n, model, 0, NULL, NULL));
    for (int i = 0; i < nops; i++) {
        size_t reg[3], brp, bsp, bo[3];
        do {
            reg[0] = 1 + rnd(n / 64);
            reg[1] = 1 + rnd(64);
            reg[2] = 1 + rnd(3);
            brp = reg[0] + rnd(100);
            bsp = brp * (reg[1] + rnd(3));
            bo[0] = rnd(100);
            bo[1] = rnd(5);
            bo[2] = rnd(2);
        } while (rect_end(bo, reg, brp, bsp) > n);
        const size_t hrp = reg[0] + rnd(50), hsp = hrp * (reg[1] + rnd(2));
        const size_t ho[3] = {rnd(30), rnd(3), rnd(2)};
        hsize[i] = rect_end(ho, reg, hrp, hsp) + 16;
        hosts[i] = malloc(hsize[i]);
        hmodels[i] = malloc(hsize[i]);
        REQUIRE(hosts[i] && hmodels[i]);
        xt_random(hosts[i], hsize[i], seed + 100 + i);
        memcpy(hmodels[i], hosts[i], hsize[i]);
        if (rnd(2)) {
            EXPECT_OK(clEnqueueWriteBufferRect(t.q, m, CL_FALSE, bo, ho, reg, brp, bsp, hrp, hsp,
                                               hosts[i], 0, NULL, NULL));
            rect_model(model, bo, brp, bsp, hosts[i], ho, hrp, hsp, reg);
        } else {
            EXPECT_OK(clEnqueueReadBufferRect(t.q, m, CL_FALSE, bo, ho, reg, brp, bsp, hrp, hsp,
                                              hosts[i], 0, NULL, NULL));
            rect_model(hmodels[i], ho, hrp, hsp, model, bo, brp, bsp, reg);
        }
    }
    EXPECT_OK(clFinish(t.q));
    for (int i = 0; i < nops; i++) {
        long d = xt_diff(hmodels[i], hosts[i], hsize[i]);
        if (d >= 0)
            fprintf(stderr, "rect %d of %d in flight differs at %ld\n", i, nops, d);
        EXPECT(d < 0);
        free(hosts[i]);
        free(hmodels[i]);
    }
    EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 0, NULL, NULL));
    long d = xt_diff(model, out, n);
    if (d >= 0)
        fprintf(stderr, "buffer after %d rects in flight differs at %ld\n", nops, d);
    EXPECT(d < 0);
    clReleaseMemObject(m);
    free(model);
    free(out);
    free(hosts);
    free(hmodels);
    free(hsize);
}

/* A rectangle of about 9 MiB packed: more than a staging chunk. */
static void test_large(void)
{
    const size_t reg[3] = {3001, 1000, 3}, rp = 4099, sp = 4099 * 1003, o[3] = {7, 2, 1};
    const size_t hrp = 3005, hsp = 3005 * 1001, ho[3] = {3, 1, 0};
    const size_t n = rect_end(o, reg, rp, sp) + 64, hn = rect_end(ho, reg, hrp, hsp) + 64;
    uint8_t *model = malloc(n), *out = malloc(n), *host = malloc(hn), *hmodel = malloc(hn);
    REQUIRE(model && out && host && hmodel);
    cl_mem m = xt_buffer(&t, 0, n, NULL);
    xt_random(model, n, 5);
    xt_random(host, hn, 6);
    EXPECT_OK(clEnqueueWriteBuffer(t.q, m, CL_TRUE, 0, n, model, 0, NULL, NULL));
    EXPECT_OK(clEnqueueWriteBufferRect(t.q, m, CL_FALSE, o, ho, reg, rp, sp, hrp, hsp, host, 0,
                                       NULL, NULL));
    rect_model(model, o, rp, sp, host, ho, hrp, hsp, reg);
    EXPECT_OK(clEnqueueReadBuffer(t.q, m, CL_TRUE, 0, n, out, 0, NULL, NULL));
    EXPECT(xt_diff(model, out, n) < 0);
    xt_random(host, hn, 7);
    memcpy(hmodel, host, hn);
    EXPECT_OK(clEnqueueReadBufferRect(t.q, m, CL_TRUE, o, ho, reg, rp, sp, hrp, hsp, host, 0,
                                      NULL, NULL));
    rect_model(hmodel, ho, hrp, hsp, model, o, rp, sp, reg);
    EXPECT(xt_diff(hmodel, host, hn) < 0);
    clReleaseMemObject(m);
    free(model);
    free(out);
    free(host);
    free(hmodel);
}

static cl_event fail_later;

static void *fail_after_50ms(void *arg)
{
    (void)arg;
    struct timespec ms = {0, 50 * 1000 * 1000};
    nanosleep(&ms, NULL);
    clSetUserEventStatus(fail_later, -5);
    return NULL;
}

/* "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the read or write
 * operations are blocking and the execution status of any of the events
 * in event_wait_list is a negative integer value": a wait-list command
 * that was terminated, and a user event that fails while the call waits.
 * The non-blocking copy rect is enqueued and its event fails. On a queue
 * of its own: what follows a terminated command is the implementation's
 * choice. */
static void test_failed_wait_list(void)
{
    cl_int err;
    cl_command_queue fq = clCreateCommandQueueWithProperties(t.ctx, t.dev, NULL, &err);
    REQUIRE(err == CL_SUCCESS);
    cl_mem a = xt_buffer(&t, 0, 4096, NULL), b = xt_buffer(&t, 0, 4096, NULL);
    static uint8_t host[4096], before[4096];
    const size_t o[3] = {0, 0, 0}, r[3] = {16, 4, 2};
    cl_event u = clCreateUserEvent(t.ctx, &err), c = NULL, e = NULL;
    REQUIRE(err == CL_SUCCESS);
    EXPECT_OK(clEnqueueCopyBuffer(fq, a, b, 0, 0, 64, 1, &u, &c));
    EXPECT_OK(clSetUserEventStatus(u, -1));
    memset(host, 0x77, sizeof(host));
    memcpy(before, host, sizeof(host));
    EXPECT_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
               clEnqueueReadBufferRect(fq, a, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 1, &c, NULL));
    EXPECT(memcmp(host, before, sizeof(host)) == 0);
    EXPECT_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
               clEnqueueWriteBufferRect(fq, a, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 1, &c, NULL));
    EXPECT_OK(clEnqueueCopyBufferRect(fq, a, b, o, o, r, 0, 0, 0, 0, 1, &c, &e));
    if (e) {
        cl_int st = 0;
        cl_command_type type = 0;
        clWaitForEvents(1, &e);
        EXPECT_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
        EXPECT(st < 0);
        EXPECT_OK(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
        EXPECT(type == CL_COMMAND_COPY_BUFFER_RECT);
        clReleaseEvent(e);
    }
    clReleaseEvent(u);
    clReleaseEvent(c);

    fail_later = clCreateUserEvent(t.ctx, &err);
    REQUIRE(err == CL_SUCCESS);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, fail_after_50ms, NULL) == 0);
    EXPECT_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
               clEnqueueReadBufferRect(fq, a, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 1, &fail_later,
                                       NULL));
    EXPECT(memcmp(host, before, sizeof(host)) == 0);
    pthread_join(th, NULL);
    clReleaseEvent(fail_later);
    EXPECT_OK(clFinish(fq));
    clReleaseCommandQueue(fq);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

int main(void)
{
    xt_init(&t);
    test_overlap_rule();
    test_random(0, 0, false);
    test_random(0, 0, true);
    test_random(CL_MEM_ALLOC_HOST_PTR, 0, false);
    test_random(CL_MEM_USE_HOST_PTR, 0, false);
    test_random(CL_MEM_USE_HOST_PTR, 0, true);
    test_random(CL_MEM_USE_HOST_PTR, 8, false); /* not usable in place: a pinned copy */
    test_in_flight(1 << 16, 200, 1);
    test_in_flight(8u << 20, 40, 2);
    test_large();
    test_failed_wait_list();
    xt_fini(&t);
    return xt_done("api_transfer_rect_spec");
}

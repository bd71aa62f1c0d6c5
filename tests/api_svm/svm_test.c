/*
 * svm_test.c — coarse-grained buffer SVM through the ICD loader: the
 * device's SVM capabilities, clSVMAlloc's rules (flags, sizes,
 * alignments) and clSVMFree, map / unmap round trips that go through
 * the device, clEnqueueSVMMemcpy in all four directions (small, large,
 * unaligned, blocking and not), clEnqueueSVMMemFill with every pattern
 * size, clEnqueueSVMFree with and without a callback (and its place in
 * an in-order queue), clEnqueueSVMMigrateMem, buffers made with
 * CL_MEM_USE_HOST_PTR on an SVM pointer, one allocation shared by two
 * devices of a context, and the errors of each entry point as the
 * OpenCL 3.0 specification words them.
 *
 * Host code touches an SVM allocation only between clEnqueueSVMMap and
 * clEnqueueSVMUnmap (coarse grain); an unmap enqueued behind a map still
 * in flight writes back what the map brought. Everything else is checked through
 * the device: a map round trip is read back by a copy on the device,
 * and a device write is read back by a map, so the host pages at the
 * SVM address cannot stand in for the device's copy.
 */
#include "../api_platform/cltest.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx, ctx2;
static cl_command_queue queue;

enum { KIB = 1024, MIB = 1024 * 1024 };

static uint32_t rng = 2026;
static void fill_random(void *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rng = rng * 1103515245u + 12345u;
        ((uint8_t *)p)[i] = (uint8_t)(rng >> 16);
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    REQUIRE(p, "%zu bytes of host memory", n);
    return p;
}

static uint8_t *svm_alloc(cl_svm_mem_flags flags, size_t size, cl_uint align)
{
    uint8_t *p = clSVMAlloc(ctx, flags, size, align);
    REQUIRE(p, "clSVMAlloc(flags 0x%llx, %zu bytes, alignment %u) returned NULL",
            (unsigned long long)flags, size, align);
    return p;
}

/* First index where a and b differ, -1 if none. */
static long diff_at(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (!memcmp(a, b, n))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (long)i;
    return -1;
}

/* ev's command type is want, of this queue and context; ev is waited for
 * (it must complete) and released. */
static void expect_command(cl_event ev, cl_command_type want, const char *what)
{
    EXPECT(ev, "%s: no event", what);
    if (!ev)
        return;
    cl_command_type type = 0;
    cl_command_queue q = NULL;
    cl_context c = NULL;
    cl_int status = 1;
    EXPECT_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
    EXPECT(type == want, "%s: command type 0x%x, expected 0x%x", what, type, want);
    EXPECT_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof(q), &q, NULL));
    EXPECT_OK(clGetEventInfo(ev, CL_EVENT_CONTEXT, sizeof(c), &c, NULL));
    EXPECT(q == queue && c == ctx, "%s: event of queue %p context %p", what, (void *)q,
           (void *)c);
    EXPECT_OK(clWaitForEvents(1, &ev));
    EXPECT_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                             NULL));
    EXPECT(status == CL_COMPLETE, "%s: status %d after the wait", what, status);
    clReleaseEvent(ev);
}

/* The device's bytes at svm, through a device copy into host memory. */
static void device_read(void *dst, const void *svm, size_t n)
{
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, dst, svm, n, 0, NULL, NULL));
}

static void device_write(void *svm, const void *src, size_t n)
{
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, svm, src, n, 0, NULL, NULL));
}

/* ---- Device and allocation ------------------------------------------- */

static bool test_device_info(void)
{
    cl_device_svm_capabilities caps = 0;
    size_t n = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, &n));
    EXPECT(n == sizeof(caps), "CL_DEVICE_SVM_CAPABILITIES is %zu bytes", n);
    EXPECT(caps == CL_DEVICE_SVM_COARSE_GRAIN_BUFFER,
           "CL_DEVICE_SVM_CAPABILITIES 0x%llx, expected coarse-grain buffer alone (0x%x)",
           (unsigned long long)caps, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
    return caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER;
}

static void expect_no_alloc(cl_context c, cl_svm_mem_flags flags, size_t size, cl_uint align,
                            const char *why)
{
    void *p = clSVMAlloc(c, flags, size, align);
    EXPECT(!p, "clSVMAlloc(flags 0x%llx, %zu, alignment %u) = %p: %s",
           (unsigned long long)flags, size, align, p, why);
    if (p)
        clSVMFree(c, p);
}

static void test_alloc(void)
{
    cl_ulong max_alloc = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc,
                              NULL));
    /* clSVMAlloc will fail if context is not a valid context */
    expect_no_alloc(NULL, 0, 64, 0, "NULL context");
    expect_no_alloc((cl_context)queue, 0, 64, 0, "a queue as the context");
    /* ... if size is 0 or > CL_DEVICE_MAX_MEM_ALLOC_SIZE value for any device in context */
    expect_no_alloc(ctx, 0, 0, 0, "size 0");
    expect_no_alloc(ctx, 0, (size_t)max_alloc + 1, 0, "size above CL_DEVICE_MAX_MEM_ALLOC_SIZE");
    expect_no_alloc(ctx, 0, SIZE_MAX, 0, "size SIZE_MAX");
    /* ... if the values specified in flags are not valid, i.e. do not match
     * those defined in the SVM Memory Flags table */
    expect_no_alloc(ctx, CL_MEM_USE_HOST_PTR, 64, 0, "CL_MEM_USE_HOST_PTR");
    expect_no_alloc(ctx, CL_MEM_COPY_HOST_PTR, 64, 0, "CL_MEM_COPY_HOST_PTR");
    expect_no_alloc(ctx, (cl_svm_mem_flags)1 << 40, 64, 0, "an unknown flag bit");
    /* ... if values specified in flags do not follow rules described for
     * supported values in the SVM Memory Flags table (READ_WRITE,
     * WRITE_ONLY and READ_ONLY are mutually exclusive) */
    expect_no_alloc(ctx, CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY, 64, 0, "READ_WRITE | WRITE_ONLY");
    expect_no_alloc(ctx, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0, "READ_WRITE | READ_ONLY");
    expect_no_alloc(ctx, CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, 64, 0, "WRITE_ONLY | READ_ONLY");
    /* ... if CL_MEM_SVM_FINE_GRAIN_BUFFER or CL_MEM_SVM_ATOMICS is specified in
     * flags and these are not supported by at least one device in context */
    expect_no_alloc(ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0, "fine grain (not offered)");
    expect_no_alloc(ctx, CL_MEM_READ_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0,
                    "fine grain (not offered)");
    expect_no_alloc(ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 64, 0,
                    "fine grain with atomics (not offered)");
    /* ... if flags does not contain CL_MEM_SVM_FINE_GRAIN_BUFFER but does
     * contain CL_MEM_SVM_ATOMICS */
    expect_no_alloc(ctx, CL_MEM_SVM_ATOMICS, 64, 0, "atomics without fine grain");
    expect_no_alloc(ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_ATOMICS, 64, 0,
                    "atomics without fine grain");
    /* ... if alignment is not a power of two */
    expect_no_alloc(ctx, 0, 64, 3, "alignment 3");
    expect_no_alloc(ctx, 0, 64, 48, "alignment 48");
    expect_no_alloc(ctx, 0, 64, 4097, "alignment 4097");

    /* Every flag the table allows, with alignments from the spec's default
     * (0: the largest data type, long16) up to the large ones this
     * implementation also supports (64 KiB, 2 MiB). */
    const cl_svm_mem_flags flags[] = {0, CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY};
    const cl_uint aligns[] = {0, 1, 8, 128, 4096, 64 * KIB, 2 * MIB};
    const size_t sizes[] = {1, 100, 4096, 3 * MIB + 5, 65};
    enum { NF = 4, NA = 7, NS = 5, N = NF * NA };
    uint8_t *p[N];
    size_t size[N];
    for (int i = 0; i < N; i++) {
        cl_uint a = aligns[i % NA];
        size[i] = sizes[i % NS];
        p[i] = clSVMAlloc(ctx, flags[i / NA], size[i], a);
        EXPECT(p[i], "clSVMAlloc(flags 0x%llx, %zu, alignment %u) failed",
               (unsigned long long)flags[i / NA], size[i], a);
        uintptr_t want = a ? a : 128;
        EXPECT(((uintptr_t)p[i] & (want - 1)) == 0, "alignment %u: %p is not a multiple of %zu",
               a, (void *)p[i], (size_t)want);
    }
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            if (p[i] && p[j])
                EXPECT(p[i] + size[i] <= p[j] || p[j] + size[j] <= p[i],
                       "allocations overlap: %p + %zu and %p + %zu", (void *)p[i], size[i],
                       (void *)p[j], size[j]);
    /* Each holds its own bytes on the device: filled there with its index,
     * then read on the host through a map. */
    for (int i = 0; i < N; i++) {
        uint8_t v = (uint8_t)(i + 1);
        if (p[i])
            EXPECT_OK(clEnqueueSVMMemFill(queue, p[i], &v, 1, size[i], 0, NULL, NULL));
    }
    EXPECT_OK(clFinish(queue));
    for (int i = 0; i < N; i++) {
        if (!p[i])
            continue;
        EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, p[i], size[i], 0, NULL, NULL));
        size_t bad = 0;
        for (size_t k = 0; k < size[i]; k++)
            bad += p[i][k] != (uint8_t)(i + 1);
        EXPECT(!bad, "allocation %d (%zu bytes): %zu bytes not %d", i, size[i], bad, i + 1);
        EXPECT_OK(clEnqueueSVMUnmap(queue, p[i], 0, NULL, NULL));
    }
    /* Whatever a kernel may do with it, the host copies in and out of
     * each (READ_ONLY and WRITE_ONLY are about kernels). */
    for (int i = 0; i < N; i++) {
        uint8_t in[64], out[64];
        const size_t n = size[i] < sizeof(in) ? size[i] : sizeof(in);
        fill_random(in, n);
        memset(out, 0, sizeof(out));
        if (!p[i])
            continue;
        device_write(p[i], in, n);
        device_read(out, p[i], n);
        EXPECT(!memcmp(in, out, n), "allocation %d (flags 0x%llx): copy in and out", i,
               (unsigned long long)flags[i / NA]);
    }
    EXPECT_OK(clFinish(queue));
    for (int i = 0; i < N; i++)
        clSVMFree(ctx, p[i]);
    /* If a NULL pointer is passed in svm_pointer, no action occurs */
    clSVMFree(ctx, NULL);

    /* Create/free cycles (LeakSanitizer checks the host side). */
    for (int i = 0; i < 200; i++) {
        const size_t n = (size_t)(i % 7 + 1) * 4096 + (size_t)i;
        void *q = clSVMAlloc(ctx, 0, n, 0);
        EXPECT(q, "create/free cycle %d: clSVMAlloc(%zu) failed", i, n);
        if (!q)
            break;
        clSVMFree(ctx, q);
    }
}

/* ---- Map and unmap --------------------------------------------------- */

/* Fresh random bytes in want and on the device at s, then a non-blocking
 * map of them with flags, held behind a user event when gated (returned,
 * for the caller to set and release; NULL otherwise). */
static cl_event map_fresh(uint8_t *s, uint8_t *want, size_t n, bool gated, cl_map_flags flags,
                          cl_event *ev)
{
    fill_random(want, n);
    device_write(s, want, n);
    cl_int err = 0;
    cl_event g = gated ? clCreateUserEvent(ctx, &err) : NULL;
    EXPECT_OK(clEnqueueSVMMap(queue, CL_FALSE, flags, s, n, g ? 1 : 0, g ? &g : NULL, ev));
    return g;
}

/* 9 MiB maps: the region travels as a large pageable read and write do
 * (pipelined through staging), and behind a user event, when the copy
 * waits for the host, through the pages registered for it. */
static void test_map_large(void)
{
    const size_t n = 9 * MIB + 5;
    uint8_t *s = svm_alloc(0, n, 0), *want = xmalloc(n), *got = xmalloc(n);
    for (int gated = 0; gated < 2; gated++) {
        cl_event ev = NULL;
        cl_event g = map_fresh(s, want, n, gated, CL_MAP_READ | CL_MAP_WRITE, &ev);
        if (g)
            EXPECT_OK(clSetUserEventStatus(g, CL_COMPLETE));
        EXPECT_OK(clWaitForEvents(1, &ev));
        clReleaseEvent(ev);
        long d = diff_at(s, want, n);
        EXPECT(d < 0, "9 MiB map%s: the host sees different bytes from %ld",
               gated ? " behind a user event" : "", d);
        for (size_t i = 0; i < n; i += 4099)
            s[i] = want[i] = (uint8_t)(want[i] + 1);
        cl_int err = 0;
        cl_event g2 = gated ? clCreateUserEvent(ctx, &err) : NULL;
        EXPECT_OK(clEnqueueSVMUnmap(queue, s, g2 ? 1 : 0, g2 ? &g2 : NULL, NULL));
        if (g2) {
            EXPECT_OK(clSetUserEventStatus(g2, CL_COMPLETE));
            clReleaseEvent(g2);
        }
        if (g)
            clReleaseEvent(g);
        memset(got, 0, n);
        device_read(got, s, n);
        d = diff_at(got, want, n);
        EXPECT(d < 0, "9 MiB unmap%s: the device has different bytes from %ld",
               gated ? " behind a user event" : "", d);
    }
    EXPECT_OK(clFinish(queue));
    clSVMFree(ctx, s);
    free(want);
    free(got);
}

/* An unmap enqueued right behind a non-blocking map, before the map has
 * brought the region in: in order, the unmap writes back what the map
 * brought, not what the pages held when it was enqueued. Staged, pipelined
 * and registered sizes; the map also held behind a user event. */
static void test_map_unmap_in_flight(void)
{
    static const size_t sizes[] = {4 * KIB, 3 * MIB + 7, 9 * MIB};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        const size_t n = sizes[k];
        uint8_t *s = svm_alloc(0, n, 0), *want = xmalloc(n), *got = xmalloc(n);
        for (int gated = 0; gated < 2; gated++) {
            cl_event g = map_fresh(s, want, n, gated, CL_MAP_WRITE, NULL);
            EXPECT_OK(clEnqueueSVMUnmap(queue, s, 0, NULL, NULL));
            if (g) {
                EXPECT_OK(clSetUserEventStatus(g, CL_COMPLETE));
                clReleaseEvent(g);
            }
            EXPECT_OK(clFinish(queue));
            memset(got, 0, n);
            device_read(got, s, n);
            long d = diff_at(got, want, n);
            EXPECT(d < 0, "%zu bytes mapped and unmapped at once%s: the device has other "
                   "bytes from %ld", n, gated ? " behind a user event" : "", d);
        }
        clSVMFree(ctx, s);
        free(want);
        free(got);
    }
}

static void test_map(void)
{
    enum { N = 64 * KIB };
    uint8_t *s = svm_alloc(0, N, 0), *t = svm_alloc(CL_MEM_READ_WRITE, N, 0);
    uint8_t *want = xmalloc(N), *got = xmalloc(N);
    fill_random(want, N);

    /* Written on the host between a blocking map for writing and the
     * unmap; read back by the device (a copy into t, then into host
     * memory). */
    cl_event ev = NULL;
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE, s, N, 0, NULL, &ev));
    expect_command(ev, CL_COMMAND_SVM_MAP, "map");
    memcpy(s, want, N);
    ev = NULL;
    EXPECT_OK(clEnqueueSVMUnmap(queue, s, 0, NULL, &ev));
    expect_command(ev, CL_COMMAND_SVM_UNMAP, "unmap");
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, t, s, N, 0, NULL, NULL));
    memset(got, 0, N);
    device_read(got, t, N);
    long d = diff_at(got, want, N);
    EXPECT(d < 0, "written through a map, the device has different bytes from %ld", d);

    /* Written by the device, read through a map for reading. */
    for (size_t i = 0; i < N; i++)
        want[i] ^= 0xa5;
    device_write(t, want, N);
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, t, N, 0, NULL, NULL));
    d = diff_at(t, want, N);
    EXPECT(d < 0, "mapped for reading, the host sees different bytes from %ld", d);
    EXPECT_OK(clEnqueueSVMUnmap(queue, t, 0, NULL, NULL));

    /* A non-blocking map: the region is the device's once its event is
     * complete. */
    ev = NULL;
    EXPECT_OK(clEnqueueSVMMap(queue, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, t, N, 0, NULL, &ev));
    EXPECT_OK(clWaitForEvents(1, &ev));
    d = diff_at(t, want, N);
    EXPECT(d < 0, "non-blocking map: different bytes from %ld", d);
    t[5] = 0x3c;
    want[5] = 0x3c;
    clReleaseEvent(ev);
    EXPECT_OK(clEnqueueSVMUnmap(queue, t, 0, NULL, NULL));
    device_read(got, t, N);
    EXPECT(got[5] == 0x3c && diff_at(got, want, N) < 0, "non-blocking map: write-back");

    /* A sub-range at an odd offset: only it is read and written back. */
    const size_t off = 4096 + 3, len = 1000;
    device_write(t, want, N);
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, t + off, len, 0, NULL,
                              NULL));
    d = diff_at(t + off, want + off, len);
    EXPECT(d < 0, "sub-range map: different bytes from %ld", d);
    for (size_t i = off; i < off + len; i++)
        t[i] = want[i] = (uint8_t)~want[i];
    EXPECT_OK(clEnqueueSVMUnmap(queue, t + off, 0, NULL, NULL));
    device_read(got, t, N);
    d = diff_at(got, want, N);
    EXPECT(d < 0, "sub-range map [%zu, %zu): device differs at %ld", off, off + len, d);

    /* Two disjoint ranges mapped at once, unmapped in the other order. */
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE, t, 100, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE, t + 8192, 100, 0, NULL, NULL));
    memset(t, 0x11, 100);
    memset(t + 8192, 0x22, 100);
    memset(want, 0x11, 100);
    memset(want + 8192, 0x22, 100);
    EXPECT_OK(clEnqueueSVMUnmap(queue, t + 8192, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMUnmap(queue, t, 0, NULL, NULL));
    device_read(got, t, N);
    d = diff_at(got, want, N);
    EXPECT(d < 0, "two ranges mapped at once: device differs at %ld", d);

    /* CL_MAP_WRITE_INVALIDATE_REGION: the whole allocation overwritten. */
    ev = NULL;
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, s, N, 0, NULL,
                              &ev));
    expect_command(ev, CL_COMMAND_SVM_MAP, "map (invalidate)");
    memset(s, 0x77, N);
    EXPECT_OK(clEnqueueSVMUnmap(queue, s, 0, NULL, NULL));
    memset(want, 0x77, N);
    device_read(got, s, N);
    d = diff_at(got, want, N);
    EXPECT(d < 0, "invalidate-region map: device differs at %ld", d);

    EXPECT_OK(clFinish(queue));
    clSVMFree(ctx, s);
    clSVMFree(ctx, t);
    free(want);
    free(got);
}

static void test_map_errors(void)
{
    uint8_t *s = svm_alloc(0, 4096, 0);
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    EXPECT_ERR(clEnqueueSVMMap(NULL, CL_TRUE, CL_MAP_READ, s, 64, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
    EXPECT_ERR(clEnqueueSVMMap((cl_command_queue)ctx, CL_TRUE, CL_MAP_READ, s, 64, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_VALUE if svm_ptr is NULL */
    EXPECT_ERR(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, NULL, 64, 0, NULL, NULL),
               CL_INVALID_VALUE);
    /* CL_INVALID_VALUE if size is zero */
    EXPECT_ERR(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, s, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
    /* CL_INVALID_VALUE if values specified in map_flags are not valid (CL_MAP_READ
     * or CL_MAP_WRITE and CL_MAP_WRITE_INVALIDATE_REGION are mutually exclusive) */
    EXPECT_ERR(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, s,
                               64, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION, s,
                               64, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMap(queue, CL_TRUE, (cl_map_flags)1 << 10, s, 64, 0, NULL, NULL),
               CL_INVALID_VALUE);

    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE, s, 64, 0, NULL, NULL));
    /* clEnqueueSVMUnmap: CL_INVALID_COMMAND_QUEUE if command_queue is not a
     * valid host command-queue */
    EXPECT_ERR(clEnqueueSVMUnmap(NULL, s, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT_ERR(clEnqueueSVMUnmap((cl_command_queue)ctx, s, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_VALUE if svm_ptr is NULL */
    EXPECT_ERR(clEnqueueSVMUnmap(queue, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_OK(clEnqueueSVMUnmap(queue, s, 0, NULL, NULL));

    /* CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the map operation is
     * blocking and the execution status of any of the events in
     * event_wait_list is a negative integer value. A queue of its own:
     * what a queue does after a failed dependency is implementation-defined. */
    cl_int err = 0;
    cl_command_queue fq = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(fq, "queue: %d", err);
    cl_event failed = clCreateUserEvent(ctx, &err);
    REQUIRE(failed, "user event: %d", err);
    EXPECT_OK(clSetUserEventStatus(failed, -1));
    EXPECT_ERR(clEnqueueSVMMap(fq, CL_TRUE, CL_MAP_READ, s, 64, 1, &failed, NULL),
               CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    uint8_t host[64];
    /* clEnqueueSVMMemcpy: the same, for a blocking copy */
    EXPECT_ERR(clEnqueueSVMMemcpy(fq, CL_TRUE, host, s, 64, 1, &failed, NULL),
               CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    clFinish(fq);
    clReleaseEvent(failed);
    clReleaseCommandQueue(fq);
    EXPECT_OK(clFinish(queue));
    clSVMFree(ctx, s);
}

/* ---- Memcpy ---------------------------------------------------------- */

/* One pass over the four directions: host src -> a (at a_off) -> b (at
 * b_off) -> host dst (at a_off) -> host dst2 (at b_off), n bytes each.
 * a, b and the host buffers start as known backgrounds; the copied
 * ranges and the bytes around them are checked. */
static void memcpy_pass(uint8_t *a, uint8_t *b, size_t cap, const uint8_t *src, uint8_t *bg,
                        uint8_t *dst, uint8_t *dst2, size_t n, size_t a_off, size_t b_off,
                        bool blocking)
{
    const cl_bool bl = blocking ? CL_TRUE : CL_FALSE;
    char what[96];
    snprintf(what, sizeof(what), "%zu bytes at %zu / %zu, %s", n, a_off, b_off,
             blocking ? "blocking" : "non-blocking");
    device_write(a, bg, cap);
    device_write(b, bg, cap);
    memset(dst, 0xee, cap);
    memset(dst2, 0xdd, cap);
    cl_event ev = NULL;
    /* host -> SVM, SVM -> SVM, SVM -> host, host -> host */
    EXPECT_OK(clEnqueueSVMMemcpy(queue, bl, a + a_off, src + a_off, n, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMemcpy(queue, bl, b + b_off, a + a_off, n, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMemcpy(queue, bl, dst + a_off, b + b_off, n, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMemcpy(queue, bl, dst2 + b_off, dst + a_off, n, 0, NULL,
                                 blocking ? NULL : &ev));
    if (!blocking) {
        /* In order: the last one's completion implies the others'. */
        EXPECT_OK(clWaitForEvents(1, &ev));
        clReleaseEvent(ev);
    }
    long d = diff_at(dst + a_off, src + a_off, n);
    EXPECT(d < 0, "%s: SVM -> host differs at %ld", what, d);
    EXPECT((a_off == 0 || dst[a_off - 1] == 0xee) && dst[a_off + n] == 0xee,
           "%s: SVM -> host wrote outside its range", what);
    d = diff_at(dst2 + b_off, src + a_off, n);
    EXPECT(d < 0, "%s: host -> host differs at %ld", what, d);
    EXPECT((b_off == 0 || dst2[b_off - 1] == 0xdd) && dst2[b_off + n] == 0xdd,
           "%s: host -> host wrote outside its range", what);
    /* b as the host sees it through a map: the copy and the background. */
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, b, cap, 0, NULL, NULL));
    d = diff_at(b + b_off, src + a_off, n);
    EXPECT(d < 0, "%s: SVM -> SVM differs at %ld", what, d);
    d = diff_at(b, bg, b_off);
    long d2 = diff_at(b + b_off + n, bg + b_off + n, cap - b_off - n);
    EXPECT(d < 0 && d2 < 0, "%s: SVM -> SVM wrote outside its range (%ld, %ld)", what, d, d2);
    EXPECT_OK(clEnqueueSVMUnmap(queue, b, 0, NULL, NULL));
    EXPECT_OK(clFinish(queue));
}

static void test_memcpy(void)
{
    /* 9 MiB: beyond any single staging chunk, so the bulk paths run. */
    const size_t big = 9 * MIB + 3, cap = big + 64;
    uint8_t *a = svm_alloc(0, cap, 0), *b = svm_alloc(0, cap, 0);
    uint8_t *src = xmalloc(cap), *bg = xmalloc(cap), *dst = xmalloc(cap), *dst2 = xmalloc(cap);
    fill_random(src, cap);
    fill_random(bg, cap);
    const size_t small[] = {1, 2, 3, 4, 7, 8, 13, 16, 31, 32, 33, 63, 64};
    const size_t offs[][2] = {{0, 0}, {1, 5}, {7, 2}, {16, 9}};
    for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
        for (size_t o = 0; o < 4; o++)
            memcpy_pass(a, b, 256, src, bg, dst, dst2, small[i], offs[o][0], offs[o][1],
                        (i + o) & 1);
    memcpy_pass(a, b, cap, src, bg, dst, dst2, big, 0, 0, true);
    memcpy_pass(a, b, cap, src, bg, dst, dst2, big, 3, 17, false);

    /* The event of each direction. */
    cl_event ev = NULL;
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_FALSE, a, src, 64, 0, NULL, &ev));
    expect_command(ev, CL_COMMAND_SVM_MEMCPY, "memcpy host -> SVM");
    ev = NULL;
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_FALSE, b, a, 64, 0, NULL, &ev));
    expect_command(ev, CL_COMMAND_SVM_MEMCPY, "memcpy SVM -> SVM");
    ev = NULL;
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, dst, b, 64, 0, NULL, &ev));
    expect_command(ev, CL_COMMAND_SVM_MEMCPY, "memcpy SVM -> host");
    ev = NULL;
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, dst2, dst, 64, 0, NULL, &ev));
    expect_command(ev, CL_COMMAND_SVM_MEMCPY, "memcpy host -> host");
    EXPECT(!memcmp(dst2, src, 64), "memcpy through all four directions with events");

    /* CL_MEM_COPY_OVERLAP if the values specified for dst_ptr, src_ptr and
     * size result in an overlapping copy (the CTS's three cases, in one SVM
     * allocation and in host memory) */
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, a + 16, a, 32, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, a, a + 16, 32, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, a, a, 32, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_FALSE, a + 1, a, 2, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, dst + 8, dst, 16, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, dst, dst + 8, 16, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
    /* Adjacent ranges do not overlap. */
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, a + 32, a, 32, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, a, a + 32, 32, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, dst + 16, dst, 16, 0, NULL, NULL));
    /* CL_INVALID_VALUE if dst_ptr is NULL; if src_ptr is NULL */
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, NULL, a, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, a, NULL, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_FALSE, dst, NULL, 16, 0, NULL, NULL),
               CL_INVALID_VALUE);
    /* A range that starts in an allocation and runs past its end is not
     * SVM memory, nor host memory one may copy: refused, not copied. */
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, a + cap - 8, dst, 16, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, dst, b + cap - 8, 16, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMemcpy(queue, CL_TRUE, a, b + cap - 8, 16, 0, NULL, NULL),
               CL_INVALID_VALUE);
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    EXPECT_ERR(clEnqueueSVMMemcpy(NULL, CL_TRUE, a, b, 16, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
    EXPECT_ERR(clEnqueueSVMMemcpy((cl_command_queue)ctx, CL_TRUE, a, b, 16, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);

    EXPECT_OK(clFinish(queue));
    clSVMFree(ctx, a);
    clSVMFree(ctx, b);
    free(src);
    free(bg);
    free(dst);
    free(dst2);
}

/* ---- Fill ------------------------------------------------------------ */

/* A host-to-host clEnqueueSVMMemcpy (neither pointer SVM) held behind a
 * user event, then a write of its destination into an SVM allocation: in
 * order, the write moves the copied bytes. */
static void test_memcpy_host_then_write(void)
{
    enum { N = 4096 };
    uint8_t *s = svm_alloc(0, N, 0), *src = xmalloc(N), *dst = xmalloc(N), *got = xmalloc(N);
    fill_random(src, N);
    memset(dst, 0x5c, N);
    cl_int err = 0;
    cl_event g = clCreateUserEvent(ctx, &err);
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_FALSE, dst, src, N, 1, &g, NULL));
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_FALSE, s, dst, N, 0, NULL, NULL));
    EXPECT_OK(clSetUserEventStatus(g, CL_COMPLETE));
    clReleaseEvent(g);
    EXPECT_OK(clFinish(queue));
    device_read(got, s, N);
    long d = diff_at(got, src, N);
    EXPECT(d < 0, "host copy, then a write of its destination: differ from byte %ld", d);
    clSVMFree(ctx, s);
    free(src);
    free(dst);
    free(got);
}

static void test_fill(void)
{
    enum { N = 8 * KIB };
    uint8_t *s = svm_alloc(0, N, 0);
    uint8_t bg[N];
    memset(bg, 0xcd, N);
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        uint8_t pat[128];
        for (size_t i = 0; i < ps; i++)
            pat[i] = (uint8_t)(ps * 7 + i * 13 + 1);
        /* Two fills: ps bytes at 0, 5 patterns at 3 * ps. */
        const size_t off = 3 * ps, size = 5 * ps;
        device_write(s, bg, N);
        cl_event ev = NULL;
        EXPECT_OK(clEnqueueSVMMemFill(queue, s, pat, ps, ps, 0, NULL, NULL));
        EXPECT_OK(clEnqueueSVMMemFill(queue, s + off, pat, ps, size, 0, NULL, &ev));
        pat[0] ^= 0xff; /* the pattern's memory can be reused once the call returns */
        expect_command(ev, CL_COMMAND_SVM_MEMFILL, "fill");
        pat[0] ^= 0xff;
        EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, s, N, 0, NULL, NULL));
        size_t bad = 0, first = N;
        for (size_t i = 0; i < N; i++) {
            uint8_t want = i < ps                          ? pat[i]
                           : (i >= off && i < off + size) ? pat[(i - off) % ps]
                                                          : 0xcd;
            if (s[i] != want) {
                bad++;
                first = first < i ? first : i;
            }
        }
        EXPECT(!bad, "pattern size %zu (at 0 and at %zu for %zu): %zu bytes wrong, first at %zu",
               ps, off, size, bad, first);
        EXPECT_OK(clEnqueueSVMUnmap(queue, s, 0, NULL, NULL));
    }

    /* A large fill (the bulk path), checked through a copy to the host. */
    const size_t big = 3 * MIB + 64;
    uint8_t *l = svm_alloc(0, big + 32, 0), *got = xmalloc(big + 32);
    const uint8_t pat16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const uint8_t z = 0;
    EXPECT_OK(clEnqueueSVMMemFill(queue, l, &z, 1, big + 32, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMemFill(queue, l + 16, pat16, 16, big, 0, NULL, NULL));
    device_read(got, l, big + 32);
    size_t bad = 0;
    for (size_t i = 0; i < big + 32; i++)
        bad += got[i] != (i >= 16 && i < 16 + big ? pat16[i % 16] : 0);
    EXPECT(!bad, "%zu-byte fill with a 16-byte pattern: %zu bytes wrong", big, bad);

    /* CL_INVALID_VALUE if svm_ptr is NULL */
    const uint8_t p8[128] = {0};
    EXPECT_ERR(clEnqueueSVMMemFill(queue, NULL, p8, 4, 64, 0, NULL, NULL), CL_INVALID_VALUE);
    /* ... if svm_ptr is not aligned to pattern_size bytes */
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s + 1, p8, 2, 64, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s + 4, p8, 8, 64, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s + 64, p8, 128, 128, 0, NULL, NULL),
               CL_INVALID_VALUE);
    /* ... if pattern is NULL */
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s, NULL, 4, 64, 0, NULL, NULL), CL_INVALID_VALUE);
    /* ... if pattern_size is zero */
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s, p8, 0, 64, 0, NULL, NULL), CL_INVALID_VALUE);
    /* ... if pattern_size is not a power of two */
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s, p8, 3, 63, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s, p8, 12, 48, 0, NULL, NULL), CL_INVALID_VALUE);
    /* ... if pattern_size is greater than 128 */
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s, p8, 256, 512, 0, NULL, NULL), CL_INVALID_VALUE);
    /* ... if size is not a multiple of pattern_size */
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s, p8, 4, 6, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMemFill(queue, s, p8, 128, 192, 0, NULL, NULL), CL_INVALID_VALUE);
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    EXPECT_ERR(clEnqueueSVMMemFill(NULL, s, p8, 4, 64, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);

    EXPECT_OK(clFinish(queue));
    clSVMFree(ctx, s);
    clSVMFree(ctx, l);
    free(got);
}

/* ---- Free ------------------------------------------------------------ */

/* What a free callback saw. It frees the pointers itself. */
struct free_rec {
    atomic_int calls;
    cl_command_queue queue;
    cl_uint n;
    void *ptrs[4];
    void *user_data;
    cl_event before;      /* when set: its status at the callback */
    cl_int before_status;
};

static void CL_CALLBACK free_cb(cl_command_queue q, cl_uint n, void *ptrs[], void *user_data)
{
    struct free_rec *r = user_data;
    r->queue = q;
    r->n = n;
    r->user_data = user_data;
    for (cl_uint i = 0; i < n && i < 4; i++)
        r->ptrs[i] = ptrs[i];
    if (r->before)
        clGetEventInfo(r->before, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(r->before_status),
                       &r->before_status, NULL);
    for (cl_uint i = 0; i < n; i++)
        clSVMFree(ctx, ptrs[i]);
    atomic_fetch_add(&r->calls, 1);
}

struct enq_rec {
    atomic_int calls;
    cl_int err;
    cl_event marker;
};

static void CL_CALLBACK free_enqueue_cb(cl_command_queue q, cl_uint n, void *ptrs[],
                                        void *user_data)
{
    struct enq_rec *r = user_data;
    for (cl_uint i = 0; i < n; i++)
        clSVMFree(ctx, ptrs[i]);
    r->err = clEnqueueMarkerWithWaitList(q, 0, NULL, &r->marker);
    atomic_fetch_add(&r->calls, 1);
}

static void test_free(void)
{
    /* With a callback: called once, with the queue, the count and list of
     * pointers and the user data; the list is the implementation's copy
     * (the caller's array may be reused once the call returns). */
    struct free_rec rec = {0};
    void *list[3] = {svm_alloc(0, 64, 0), svm_alloc(0, 4096, 0), svm_alloc(0, 3 * MIB, 0)};
    void *orig[3] = {list[0], list[1], list[2]};
    cl_event ev = NULL;
    EXPECT_OK(clEnqueueSVMFree(queue, 3, list, free_cb, &rec, 0, NULL, &ev));
    list[0] = list[1] = list[2] = NULL;
    expect_command(ev, CL_COMMAND_SVM_FREE, "free");
    EXPECT_OK(clFinish(queue));
    EXPECT(atomic_load(&rec.calls) == 1, "free callback called %d times",
           atomic_load(&rec.calls));
    EXPECT(rec.queue == queue && rec.n == 3 && rec.user_data == &rec,
           "callback got queue %p (want %p), %u pointers, user data %p", (void *)rec.queue,
           (void *)queue, rec.n, rec.user_data);
    EXPECT(!memcmp(rec.ptrs, orig, sizeof(orig)), "callback got other pointers");

    /* Without a callback the implementation frees (LeakSanitizer would
     * see a host-side leak). */
    void *two[2] = {svm_alloc(CL_MEM_READ_ONLY, 100, 0), svm_alloc(0, 9 * MIB, 4096)};
    ev = NULL;
    EXPECT_OK(clEnqueueSVMFree(queue, 2, two, NULL, NULL, 0, NULL, &ev));
    expect_command(ev, CL_COMMAND_SVM_FREE, "free (no callback)");

    /* It waits for its wait list: nothing is freed before the user event
     * completes. */
    struct free_rec gated = {0};
    cl_int err = 0;
    cl_event gate = clCreateUserEvent(ctx, &err);
    REQUIRE(gate, "user event: %d", err);
    void *one = svm_alloc(0, 256, 0);
    EXPECT_OK(clEnqueueSVMFree(queue, 1, &one, free_cb, &gated, 1, &gate, NULL));
    EXPECT_OK(clFlush(queue));
    nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
    EXPECT(atomic_load(&gated.calls) == 0, "free callback ran before its wait list completed");
    EXPECT_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    EXPECT_OK(clFinish(queue));
    EXPECT(atomic_load(&gated.calls) == 1 && gated.ptrs[0] == one,
           "gated free: %d calls, pointer %p", atomic_load(&gated.calls), gated.ptrs[0]);
    clReleaseEvent(gate);

    /* In order: a free enqueued after a non-blocking copy out of the
     * allocation runs after the copy completed, and the copy is whole. */
    const size_t n = 9 * MIB;
    uint8_t *src = svm_alloc(0, n, 0), *want = xmalloc(n), *got = xmalloc(n);
    fill_random(want, n);
    device_write(src, want, n);
    struct free_rec after = {0};
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_FALSE, got, src, n, 0, NULL, &after.before));
    void *p = src;
    EXPECT_OK(clEnqueueSVMFree(queue, 1, &p, free_cb, &after, 0, NULL, NULL));
    EXPECT_OK(clFinish(queue));
    EXPECT(atomic_load(&after.calls) == 1, "free after copy: %d calls",
           atomic_load(&after.calls));
    EXPECT(after.before_status == CL_COMPLETE,
           "the free ran while the copy before it had status %d", after.before_status);
    long d = diff_at(got, want, n);
    EXPECT(d < 0, "the copy before the free differs at %ld", d);
    clReleaseEvent(after.before);
    free(want);
    free(got);

    /* The callback may enqueue on its own queue (a common way to chain
     * work once memory is given back): it runs with no lock of the queue
     * held, whether its wait list was complete at the call or not. */
    for (int gated_free = 0; gated_free < 2; gated_free++) {
        struct enq_rec er = {0};
        cl_event g = gated_free ? clCreateUserEvent(ctx, &err) : NULL;
        void *ptr = svm_alloc(0, 512, 0);
        EXPECT_OK(clEnqueueSVMFree(queue, 1, &ptr, free_enqueue_cb, &er, g ? 1 : 0,
                                   g ? &g : NULL, NULL));
        if (g) {
            EXPECT_OK(clSetUserEventStatus(g, CL_COMPLETE));
            clReleaseEvent(g);
        }
        EXPECT_OK(clFinish(queue));
        EXPECT(atomic_load(&er.calls) == 1 && er.err == CL_SUCCESS,
               "free callback enqueuing a marker (%s): %d calls, error %d",
               gated_free ? "gated" : "ready", atomic_load(&er.calls), er.err);
        if (er.marker) {
            EXPECT_OK(clWaitForEvents(1, &er.marker));
            clReleaseEvent(er.marker);
        }
    }

    /* CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is non-NULL,
     * or if svm_pointers is NULL and num_svm_pointers is not 0 */
    struct free_rec none = {0};
    void *keep = svm_alloc(0, 64, 0);
    EXPECT_ERR(clEnqueueSVMFree(queue, 0, &keep, free_cb, &none, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMFree(queue, 1, NULL, free_cb, &none, 0, NULL, NULL),
               CL_INVALID_VALUE);
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    EXPECT_ERR(clEnqueueSVMFree(NULL, 1, &keep, free_cb, &none, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
    EXPECT_OK(clFinish(queue));
    EXPECT(atomic_load(&none.calls) == 0, "a refused free called its callback");
    clSVMFree(ctx, keep);
}

/* ---- Migrate --------------------------------------------------------- */

static void test_migrate(void)
{
    enum { N = 64 * KIB };
    uint8_t *a = svm_alloc(0, N, 0), *b = svm_alloc(0, 4096, 0);
    uint8_t *want = xmalloc(N), *got = xmalloc(N);
    fill_random(want, N);
    device_write(a, want, N);
    const void *both[2] = {a, b};
    cl_event ev = NULL;
    /* Whole allocations (sizes NULL), to the device. */
    EXPECT_OK(clEnqueueSVMMigrateMem(queue, 2, both, NULL, 0, 0, NULL, &ev));
    expect_command(ev, CL_COMMAND_SVM_MIGRATE_MEM, "migrate");
    /* Ranges, one of them a whole allocation (size 0), to the host. */
    const void *ranges[2] = {a + 100, b};
    const size_t sizes[2] = {1000, 0};
    EXPECT_OK(clEnqueueSVMMigrateMem(queue, 2, ranges, sizes, CL_MIGRATE_MEM_OBJECT_HOST, 0,
                                     NULL, NULL));
    EXPECT_OK(clEnqueueSVMMigrateMem(queue, 1, (const void *[]){b + 16}, (const size_t[]){64},
                                     CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMigrateMem(
        queue, 1, (const void *[]){b}, NULL,
        CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMigrateMem(queue, 1, (const void *[]){a}, NULL, 0, 0, NULL, NULL));
    /* Migrating without CONTENT_UNDEFINED keeps the contents. */
    device_read(got, a, N);
    long d = diff_at(got, want, N);
    EXPECT(d < 0, "contents changed by migration, from byte %ld", d);

    /* CL_INVALID_VALUE if num_svm_pointers is zero */
    EXPECT_ERR(clEnqueueSVMMigrateMem(queue, 0, both, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    /* ... if svm_pointers is NULL */
    EXPECT_ERR(clEnqueueSVMMigrateMem(queue, 1, NULL, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    /* ... if flags is not zero and is not a valid combination of the values
     * described in the Memory migration Flags table */
    EXPECT_ERR(clEnqueueSVMMigrateMem(queue, 2, both, NULL, (cl_mem_migration_flags)1 << 5, 0,
                                      NULL, NULL),
               CL_INVALID_VALUE);
    /* ... if sizes[i] is non-zero and the memory range described by
     * svm_pointers[i] and sizes[i] is not contained within an SVM
     * allocation returned by clSVMAlloc */
    EXPECT_ERR(clEnqueueSVMMigrateMem(queue, 1, (const void *[]){NULL}, (const size_t[]){16}, 0,
                                      0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMigrateMem(queue, 1, (const void *[]){a + N - 8},
                                      (const size_t[]){16}, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMigrateMem(queue, 2, both, (const size_t[]){16, 4097}, 0, 0, NULL,
                                      NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueSVMMigrateMem(queue, 1, (const void *[]){got}, (const size_t[]){16}, 0,
                                      0, NULL, NULL),
               CL_INVALID_VALUE);
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    EXPECT_ERR(clEnqueueSVMMigrateMem(NULL, 2, both, NULL, 0, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);

    EXPECT_OK(clFinish(queue));
    clSVMFree(ctx, a);
    clSVMFree(ctx, b);
    free(want);
    free(got);
}

/* ---- Wait lists ------------------------------------------------------ */

/* The wait-list errors every SVM enqueue shares, for `call` written with
 * its wait list as (NW_, WL_): a count without a list, a list without a
 * count, a handle that is not an event, an event of another context. */
#define EXPECT_WAIT_LIST_ERRORS(call)                                                     \
    do {                                                                                  \
        static const char *const cases_[] = {"(0, list)", "(1, NULL)", "(1, not an event)", \
                                             "(1, event of another context)"};            \
        const cl_int want_[] = {CL_INVALID_EVENT_WAIT_LIST, CL_INVALID_EVENT_WAIT_LIST,   \
                                CL_INVALID_EVENT_WAIT_LIST, CL_INVALID_CONTEXT};          \
        const cl_event lists_[][1] = {{good}, {NULL}, {(cl_event)ctx}, {foreign}};        \
        for (int c_ = 0; c_ < 4; c_++) {                                                  \
            cl_uint NW_ = c_ == 0 ? 0 : 1;                                                \
            const cl_event *WL_ = c_ == 1 ? NULL : lists_[c_];                            \
            cl_int e_ = (call);                                                           \
            EXPECT(e_ == want_[c_], "%s with wait list %s: %d, expected %d", #call,       \
                   cases_[c_], e_, want_[c_]);                                            \
        }                                                                                 \
    } while (0)

static void test_wait_lists(void)
{
    cl_int err = 0;
    cl_event good = clCreateUserEvent(ctx, &err);
    REQUIRE(good, "user event: %d", err);
    EXPECT_OK(clSetUserEventStatus(good, CL_COMPLETE));
    cl_event foreign = clCreateUserEvent(ctx2, &err);
    REQUIRE(foreign, "user event of a second context: %d", err);
    uint8_t *s = svm_alloc(0, 4096, 0), *t = svm_alloc(0, 4096, 0);
    uint8_t host[64];
    const uint32_t pat = 7;
    struct free_rec none = {0};
    void *fl[1] = {t};

    /* CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and
     * num_events_in_wait_list > 0, or event_wait_list is not NULL and
     * num_events_in_wait_list is 0, or if event objects in event_wait_list
     * are not valid events; CL_INVALID_CONTEXT if the context associated
     * with command_queue and events in event_wait_list are not the same */
    EXPECT_WAIT_LIST_ERRORS(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, s, 64, NW_, WL_, NULL));
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE, s, 64, 0, NULL, NULL));
    EXPECT_WAIT_LIST_ERRORS(clEnqueueSVMUnmap(queue, s, NW_, WL_, NULL));
    EXPECT_OK(clEnqueueSVMUnmap(queue, s, 1, &good, NULL));
    EXPECT_WAIT_LIST_ERRORS(clEnqueueSVMMemcpy(queue, CL_TRUE, host, s, 64, NW_, WL_, NULL));
    EXPECT_WAIT_LIST_ERRORS(clEnqueueSVMMemFill(queue, s, &pat, 4, 64, NW_, WL_, NULL));
    const void *ml[1] = {s};
    EXPECT_WAIT_LIST_ERRORS(clEnqueueSVMMigrateMem(queue, 1, ml, NULL, 0, NW_, WL_, NULL));
    /* clEnqueueSVMFree lists CL_INVALID_EVENT_WAIT_LIST only. */
    EXPECT_ERR(clEnqueueSVMFree(queue, 1, fl, free_cb, &none, 0, &good, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
    EXPECT_ERR(clEnqueueSVMFree(queue, 1, fl, free_cb, &none, 1, NULL, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
    EXPECT_ERR(clEnqueueSVMFree(queue, 1, fl, free_cb, &none, 1, (cl_event[]){(cl_event)ctx},
                                NULL),
               CL_INVALID_EVENT_WAIT_LIST);
    /* A valid list: each entry point runs after it. */
    EXPECT_OK(clEnqueueSVMMemFill(queue, s, &pat, 4, 64, 1, &good, NULL));
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, host, s, 64, 1, &good, NULL));
    EXPECT(host[0] == 7 && host[4] == 7 && host[63] == 0, "fill then copy with wait lists");
    EXPECT_OK(clEnqueueSVMMigrateMem(queue, 1, ml, NULL, 0, 1, &good, NULL));
    EXPECT_OK(clEnqueueSVMFree(queue, 1, fl, free_cb, &none, 1, &good, NULL));
    EXPECT_OK(clFinish(queue));
    EXPECT(atomic_load(&none.calls) == 1, "free with a wait list: %d calls",
           atomic_load(&none.calls));
    clSVMFree(ctx, s);
    clReleaseEvent(good);
    clReleaseEvent(foreign);
}

/* ---- Buffers on SVM -------------------------------------------------- */

static cl_bool uses_svm(cl_mem m)
{
    cl_bool b = 99;
    EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof(b), &b, NULL));
    return b;
}

static void test_use_host_ptr(void)
{
    enum { N = 64 * KIB, OFF = 4096, SZ = 8192 };
    uint8_t *s = svm_alloc(0, N, 0);
    cl_int err = 0;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, SZ, s + OFF, &err);
    EXPECT(buf && err == CL_SUCCESS, "buffer on an SVM pointer: %d", err);
    if (!buf) {
        clSVMFree(ctx, s);
        return;
    }
    /* CL_MEM_USES_SVM_POINTER: CL_TRUE for a buffer created with
     * CL_MEM_USE_HOST_PTR on an SVM pointer, or a sub-buffer of one */
    EXPECT(uses_svm(buf) == CL_TRUE, "CL_MEM_USES_SVM_POINTER of a buffer on SVM");
    void *hp = NULL;
    EXPECT_OK(clGetMemObjectInfo(buf, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
    EXPECT(hp == s + OFF, "CL_MEM_HOST_PTR %p, expected %p", hp, (void *)(s + OFF));
    cl_buffer_region reg = {1024, 1024};
    cl_mem sub = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    EXPECT(sub && err == CL_SUCCESS, "sub-buffer: %d", err);
    if (sub) {
        EXPECT(uses_svm(sub) == CL_TRUE, "CL_MEM_USES_SVM_POINTER of a sub-buffer");
        EXPECT_OK(clGetMemObjectInfo(sub, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
        EXPECT(hp == s + OFF + 1024, "sub-buffer CL_MEM_HOST_PTR %p, expected %p", hp,
               (void *)(s + OFF + 1024));
    }
    /* ... otherwise CL_FALSE */
    cl_mem plain = clCreateBuffer(ctx, 0, 64, NULL, &err);
    REQUIRE(plain, "buffer: %d", err);
    EXPECT(uses_svm(plain) == CL_FALSE, "CL_MEM_USES_SVM_POINTER of a plain buffer");
    uint8_t *mem = xmalloc(4096);
    cl_mem onhost = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 4096, mem, &err);
    REQUIRE(onhost, "USE_HOST_PTR buffer: %d", err);
    EXPECT(uses_svm(onhost) == CL_FALSE, "CL_MEM_USES_SVM_POINTER of a buffer on malloc'd memory");

    /* Written through the buffer, seen at the SVM address through a map. */
    uint8_t pat[512], got[512];
    fill_random(pat, sizeof(pat));
    EXPECT_OK(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 16, 256, pat, 0, NULL, NULL));
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, s + OFF + 16, 256, 0, NULL, NULL));
    EXPECT(!memcmp(s + OFF + 16, pat, 256), "buffer write not seen through the SVM map");
    EXPECT_OK(clEnqueueSVMUnmap(queue, s + OFF + 16, 0, NULL, NULL));
    /* Written through the SVM pointer, read through the buffer and its
     * sub-buffer (which starts 1024 bytes in). */
    fill_random(pat, sizeof(pat));
    device_write(s + OFF + 1000, pat, 500);
    memset(got, 0, sizeof(got));
    EXPECT_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 1000, 500, got, 0, NULL, NULL));
    EXPECT(!memcmp(got, pat, 500), "SVM memcpy not seen through the buffer");
    if (sub) {
        memset(got, 0, sizeof(got));
        EXPECT_OK(clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, 476, got, 0, NULL, NULL));
        EXPECT(!memcmp(got, pat + 24, 476), "SVM memcpy not seen through the sub-buffer");
    }
    /* Host writes through a map of the SVM range, read through the buffer. */
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE, s + OFF + SZ - 64, 64, 0, NULL,
                              NULL));
    memset(s + OFF + SZ - 64, 0x6b, 64);
    EXPECT_OK(clEnqueueSVMUnmap(queue, s + OFF + SZ - 64, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, SZ - 64, 64, got, 0, NULL, NULL));
    size_t bad = 0;
    for (int i = 0; i < 64; i++)
        bad += got[i] != 0x6b;
    EXPECT(!bad, "host write through an SVM map not seen through the buffer (%zu bytes)", bad);

    /* Mapped as a buffer: the pointer is derived from host_ptr (here the
     * SVM address) and holds the latest bits when the map completes. */
    void *mp = clEnqueueMapBuffer(queue, buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 1000, 500, 0,
                                  NULL, NULL, &err);
    EXPECT(mp == s + OFF + 1000, "clEnqueueMapBuffer on a buffer on SVM: %p (%d), expected %p",
           mp, err, (void *)(s + OFF + 1000));
    if (mp == s + OFF + 1000) {
        EXPECT(!memcmp(mp, pat, 500), "buffer map shows other bytes than the SVM memcpy wrote");
        memset(mp, 0x5c, 10);
        EXPECT_OK(clEnqueueUnmapMemObject(queue, buf, mp, 0, NULL, NULL));
        device_read(got, s + OFF + 1000, 10);
        EXPECT(got[0] == 0x5c && got[9] == 0x5c, "write through the buffer map not seen by "
               "an SVM memcpy");
    } else if (mp) {
        EXPECT_OK(clEnqueueUnmapMemObject(queue, buf, mp, 0, NULL, NULL));
    }

    /* The whole allocation is a valid size; one byte more is not:
     * CL_INVALID_BUFFER_SIZE if CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR is
     * set in flags, and host_ptr is a pointer returned by clSVMAlloc, and
     * size is greater than the size passed to clSVMAlloc */
    cl_mem whole = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, N, s, &err);
    EXPECT(whole && err == CL_SUCCESS, "buffer on the whole allocation: %d", err);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, N + 1, s, &err);
    EXPECT(!m && err == CL_INVALID_BUFFER_SIZE, "USE_HOST_PTR, one byte more: %d", err);
    m = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 2 * N, s, &err);
    EXPECT(!m && err == CL_INVALID_BUFFER_SIZE, "USE_HOST_PTR, twice the size: %d", err);
    m = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, 2 * N, s, &err);
    EXPECT(!m && err == CL_INVALID_BUFFER_SIZE, "COPY_HOST_PTR, twice the size: %d", err);

    /* Buffers are released before the SVM memory under them is freed. */
    EXPECT_OK(clFinish(queue));
    if (whole)
        clReleaseMemObject(whole);
    if (sub)
        clReleaseMemObject(sub);
    clReleaseMemObject(buf);
    clReleaseMemObject(plain);
    clReleaseMemObject(onhost);
    free(mem);
    clSVMFree(ctx, s);
}

/* ---- Two devices ---------------------------------------------------- */

/* Two devices share one context (HCQCL_EMU_GPUS=2: test api_svm_2gpus):
 * an allocation has one set of contents, whichever device writes or
 * reads it, and the host's map goes through either. */
/* A 2D image made with CL_MEM_USE_HOST_PTR on an SVM pointer (rows with a
 * pitch of their own) uses the allocation's memory, as a buffer does:
 * pixels copied in with clEnqueueSVMMemcpy are read back as the image's,
 * and pixels written as the image's are seen through an SVM map. */
static void test_image(void)
{
    cl_bool images = CL_FALSE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL));
    if (!images)
        return;
    enum { W = 37, H = 11, PITCH = 256, OFF = 4096 };
    uint8_t *s = svm_alloc(0, OFF + PITCH * H, 0);
    uint8_t *pix = xmalloc(PITCH * H), *got = xmalloc(W * 4 * H);
    fill_random(pix, PITCH * H);
    EXPECT_OK(clEnqueueSVMMemcpy(queue, CL_TRUE, s + OFF, pix, PITCH * H, 0, NULL, NULL));
    const cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                             .image_width = W,
                             .image_height = H,
                             .image_row_pitch = PITCH};
    cl_int err = 0;
    cl_mem im = clCreateImage(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                              &(cl_image_format){CL_RGBA, CL_UNSIGNED_INT8}, &d, s + OFF, &err);
    EXPECT(im && err == CL_SUCCESS, "image on an SVM pointer: %d", err);
    if (!im) {
        free(pix);
        free(got);
        clSVMFree(ctx, s);
        return;
    }
    cl_bool uses = CL_FALSE;
    EXPECT_OK(clGetMemObjectInfo(im, CL_MEM_USES_SVM_POINTER, sizeof(uses), &uses, NULL));
    /* "CL_TRUE if memobj is a buffer object that was created with ...": an
     * image on SVM memory is not one. */
    EXPECT(uses == CL_FALSE, "CL_MEM_USES_SVM_POINTER of an image on SVM");
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    EXPECT_OK(clEnqueueReadImage(queue, im, CL_TRUE, origin, region, W * 4, 0, got, 0, NULL,
                                 NULL));
    size_t bad = 0;
    for (size_t y = 0; y < H; y++)
        bad += memcmp(got + y * W * 4, pix + y * PITCH, W * 4) != 0;
    EXPECT(!bad, "%zu rows of the image differ from the SVM memory under it", bad);
    /* The other way: pixels written to the image, then the SVM map. */
    fill_random(got, W * 4 * H);
    EXPECT_OK(clEnqueueWriteImage(queue, im, CL_TRUE, origin, region, W * 4, 0, got, 0, NULL,
                                  NULL));
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, s + OFF, PITCH * H, 0, NULL, NULL));
    bad = 0;
    for (size_t y = 0; y < H; y++)
        bad += memcmp(s + OFF + y * PITCH, got + y * W * 4, W * 4) != 0;
    EXPECT(!bad, "%zu rows written to the image not seen through the SVM map", bad);
    EXPECT_OK(clEnqueueSVMUnmap(queue, s + OFF, 0, NULL, NULL));
    EXPECT_OK(clFinish(queue));
    clReleaseMemObject(im);
    clSVMFree(ctx, s);
    free(pix);
    free(got);
}

static void test_two_devices(void)
{
    cl_device_id devs[2];
    cl_uint nd = 0;
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 2, devs, &nd) != CL_SUCCESS || nd < 2) {
        printf("api_svm: one device: two-device SVM not tested\n");
        return;
    }
    cl_int err = 0;
    cl_context c2 = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
    REQUIRE(c2, "two-device context: %d", err);
    cl_command_queue q0 = clCreateCommandQueueWithProperties(c2, devs[0], NULL, &err);
    cl_command_queue q1 = clCreateCommandQueueWithProperties(c2, devs[1], NULL, &err);
    REQUIRE(q0 && q1, "queues: %d", err);
    const size_t n = 3 * MIB + 12;
    uint8_t *s = clSVMAlloc(c2, 0, n, 0);
    REQUIRE(s, "clSVMAlloc on a two-device context");
    uint8_t *want = xmalloc(n), *got = xmalloc(n);
    fill_random(want, n);
    /* Device 0 writes, device 1 reads; device 1 fills, the host maps
     * through device 0. */
    EXPECT_OK(clEnqueueSVMMemcpy(q0, CL_TRUE, s, want, n, 0, NULL, NULL));
    memset(got, 0, n);
    EXPECT_OK(clEnqueueSVMMemcpy(q1, CL_TRUE, got, s, n, 0, NULL, NULL));
    long d = diff_at(got, want, n);
    EXPECT(d < 0, "device 1 reads what device 0 wrote: differs at %ld", d);
    const uint32_t pat = 0x5eedf00d;
    EXPECT_OK(clEnqueueSVMMemFill(q1, s + 4096, &pat, 4, 8192, 0, NULL, NULL));
    EXPECT_OK(clFinish(q1));
    for (size_t i = 4096; i < 4096 + 8192; i += 4)
        memcpy(want + i, &pat, 4);
    EXPECT_OK(clEnqueueSVMMap(q0, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, s, n, 0, NULL, NULL));
    d = diff_at(s, want, n);
    EXPECT(d < 0, "mapped through device 0 after device 1's fill: differs at %ld", d);
    /* The host writes through that map; device 1 reads it. */
    memset(s + 100, 0x42, 50);
    memset(want + 100, 0x42, 50);
    EXPECT_OK(clEnqueueSVMUnmap(q0, s, 0, NULL, NULL));
    EXPECT_OK(clFinish(q0));
    EXPECT_OK(clEnqueueSVMMemcpy(q1, CL_TRUE, got, s, n, 0, NULL, NULL));
    d = diff_at(got, want, n);
    EXPECT(d < 0, "device 1 reads the host's write through device 0's map: differs at %ld", d);
    /* A buffer on the allocation, read on device 1. */
    cl_mem buf = clCreateBuffer(c2, CL_MEM_USE_HOST_PTR, 4096, s + 4096, &err);
    EXPECT(buf && err == CL_SUCCESS, "buffer on SVM, two devices: %d", err);
    if (buf) {
        EXPECT_OK(clEnqueueReadBuffer(q1, buf, CL_TRUE, 0, 4096, got, 0, NULL, NULL));
        EXPECT(!memcmp(got, want + 4096, 4096), "buffer on SVM read on device 1");
        clReleaseMemObject(buf);
    }
    clSVMFree(c2, s);
    free(want);
    free(got);
    clReleaseCommandQueue(q0);
    clReleaseCommandQueue(q1);
    clReleaseContext(c2);
}

int main(void)
{
    cltest_setup(&plat, &dev, &ctx, &queue);
    cl_int err = 0;
    ctx2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(ctx2, "second context: %d", err);
    if (test_device_info()) {
        test_alloc();
        test_map();
        test_map_large();
        test_map_unmap_in_flight();
        test_map_errors();
        test_memcpy();
        test_memcpy_host_then_write();
        test_fill();
        test_free();
        test_migrate();
        test_wait_lists();
        test_use_host_ptr();
        test_image();
        test_two_devices();
    }
    clReleaseContext(ctx2);
    cltest_teardown(ctx, queue);
    return cltest_result("api_svm");
}

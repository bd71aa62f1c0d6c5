/*
 * big.c — 1 GiB of random data through every path a large transfer takes:
 * blocking write and read (pipelined through staging), non-blocking read
 * and write (user pages registered, or one staging buffer), a
 * device-to-device copy, a fill with a 128-byte pattern and a map of
 * the whole buffer. Prints the rates
 * it saw, so on a GPU it doubles as a first bandwidth check.
 *
 * Skips (exit 0, saying why) only when the device reports less memory than
 * it needs or the host can't provide the two 1 GiB host buffers.
 */
#include "xfer_test.h"

static struct xt t;

enum { GIB = 1u << 30 };

static void rate(const char *what, double t0, double t1)
{
    printf("  %-36s %7.1f ms  %6.2f GB/s\n", what, (t1 - t0) * 1e3, GIB / (t1 - t0) / 1e9);
}

static void check(const char *what, const uint8_t *want, const uint8_t *got)
{
    long d = xt_diff(want, got, GIB);
    if (d >= 0) {
        fprintf(stderr, "%s: data differs at byte %ld\n", what, d);
        failures++;
    }
}

int main(void)
{
    xt_init(&t);
    cl_ulong global = 0, max_alloc = 0;
    clGetDeviceInfo(t.dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(global), &global, NULL);
    clGetDeviceInfo(t.dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc, NULL);
    if (global < 2ull * GIB || max_alloc < GIB) {
        printf("api_transfer_big: SKIP: device reports %llu bytes (max allocation %llu); "
               "needs 2 GiB and 1 GiB\n",
               (unsigned long long)global, (unsigned long long)max_alloc);
        xt_fini(&t);
        return 0;
    }
    uint8_t *in = malloc(GIB), *out = malloc(GIB);
    if (!in || !out) {
        printf("api_transfer_big: SKIP: no 2 GiB of host memory for the test's buffers\n");
        free(in);
        free(out);
        xt_fini(&t);
        return 0;
    }
    xt_random(in, GIB, 2026);
    cl_mem a = xt_buffer(&t, 0, GIB, NULL), b = xt_buffer(&t, 0, GIB, NULL);
    printf("api_transfer_big: 1 GiB transfers\n");

    double t0 = xt_now();
    EXPECT_OK(clEnqueueWriteBuffer(t.q, a, CL_TRUE, 0, GIB, in, 0, NULL, NULL));
    double t1 = xt_now();
    rate("blocking write (pageable)", t0, t1);
    memset(out, 0, GIB);
    t0 = xt_now();
    EXPECT_OK(clEnqueueReadBuffer(t.q, a, CL_TRUE, 0, GIB, out, 0, NULL, NULL));
    t1 = xt_now();
    rate("blocking read (pageable)", t0, t1);
    check("blocking round trip", in, out);

    /* device to device, then back through a non-blocking read */
    cl_event ev = NULL;
    t0 = xt_now();
    EXPECT_OK(clEnqueueCopyBuffer(t.q, a, b, 0, 0, GIB, 0, NULL, &ev));
    EXPECT_OK(clWaitForEvents(1, &ev));
    t1 = xt_now();
    clReleaseEvent(ev);
    rate("device-to-device copy (one way)", t0, t1);
    memset(out, 0, GIB);
    t0 = xt_now();
    EXPECT_OK(clEnqueueReadBuffer(t.q, b, CL_FALSE, 0, GIB, out, 0, NULL, &ev));
    EXPECT_OK(clWaitForEvents(1, &ev));
    t1 = xt_now();
    clReleaseEvent(ev);
    rate("non-blocking read + wait", t0, t1);
    check("copy + non-blocking read", in, out);

    /* non-blocking write of new data, read back blocking */
    xt_random(in, GIB, 2027);
    t0 = xt_now();
    EXPECT_OK(clEnqueueWriteBuffer(t.q, b, CL_FALSE, 0, GIB, in, 0, NULL, &ev));
    EXPECT_OK(clWaitForEvents(1, &ev));
    t1 = xt_now();
    clReleaseEvent(ev);
    rate("non-blocking write + wait", t0, t1);
    EXPECT_OK(clEnqueueReadBuffer(t.q, b, CL_TRUE, 0, GIB, out, 0, NULL, NULL));
    check("non-blocking write", in, out);

    /* a 128-byte pattern over the whole buffer */
    uint8_t pat[128];
    xt_random(pat, sizeof(pat), 2028);
    t0 = xt_now();
    EXPECT_OK(clEnqueueFillBuffer(t.q, a, pat, sizeof(pat), 0, GIB, 0, NULL, &ev));
    EXPECT_OK(clWaitForEvents(1, &ev));
    t1 = xt_now();
    clReleaseEvent(ev);
    rate("fill, 128-byte pattern", t0, t1);
    EXPECT_OK(clEnqueueReadBuffer(t.q, a, CL_TRUE, 0, GIB, out, 0, NULL, NULL));
    for (size_t i = 0; i < GIB; i += sizeof(pat))
        memcpy(in + i, pat, sizeof(pat));
    check("fill", in, out);
    xt_random(in, GIB, 2027); /* b's contents again, for the map below */

    /* the whole buffer mapped */
    cl_int err;
    t0 = xt_now();
    uint8_t *p = clEnqueueMapBuffer(t.q, b, CL_TRUE, CL_MAP_READ, 0, GIB, 0, NULL, NULL, &err);
    t1 = xt_now();
    EXPECT(p && err == CL_SUCCESS);
    if (p) {
        rate("map for reading", t0, t1);
        check("map", in, p);
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, b, p, 0, NULL, NULL));
    }
    EXPECT_OK(clFinish(t.q));

    clReleaseMemObject(a);
    clReleaseMemObject(b);
    free(in);
    free(out);
    xt_fini(&t);
    return xt_done("api_transfer_big");
}

/*
 * bandwidth — host<->device and device<->device transfer rates in the
 * style of NVIDIA's oclBandwidthTest: pageable host memory (malloc),
 * pinned host memory (a CL_MEM_ALLOC_HOST_PTR buffer, mapped once, used
 * as the host side of reads and writes) and mapped access (map the device
 * buffer, memcpy, unmap), in both directions, plus device-to-device
 * copies. Every transfer's data is verified.
 * usage: bandwidth [MiB] [iterations]
 */
#include "sample.h"

static size_t bytes;
static int iters;
static cl_command_queue q;
static int failures;

static void fill(unsigned char *p, unsigned seed)
{
    for (size_t i = 0; i < bytes; i += 4) {
        uint32_t v = (uint32_t)(i / 4) * 2654435761u + seed;
        memcpy(p + i, &v, 4);
    }
}

static void verify(const unsigned char *p, unsigned seed, const char *what)
{
    for (size_t i = 0; i < bytes; i += 4) {
        uint32_t v = (uint32_t)(i / 4) * 2654435761u + seed, got;
        memcpy(&got, p + i, 4);
        if (got != v) {
            fprintf(stderr, "%s: word %zu is 0x%08x, expected 0x%08x\n", what, i / 4, got, v);
            failures++;
            return;
        }
    }
}

static double rate(double seconds) { return (double)bytes * iters / seconds / 1e9; }

/* Host memory as the source/destination of clEnqueueWrite/ReadBuffer. */
static void host_copies(const char *kind, unsigned char *host, cl_mem dev, double *h2d, double *d2h)
{
    fill(host, 1);
    double t0 = sample_now();
    for (int i = 0; i < iters; i++)
        CHECK(clEnqueueWriteBuffer(q, dev, CL_FALSE, 0, bytes, host, 0, NULL, NULL));
    CHECK(clFinish(q));
    *h2d = rate(sample_now() - t0);
    memset(host, 0, bytes);
    t0 = sample_now();
    for (int i = 0; i < iters; i++)
        CHECK(clEnqueueReadBuffer(q, dev, CL_FALSE, 0, bytes, host, 0, NULL, NULL));
    CHECK(clFinish(q));
    *d2h = rate(sample_now() - t0);
    char what[64];
    snprintf(what, sizeof(what), "%s round trip", kind);
    verify(host, 1, what);
}

int main(int argc, char **argv)
{
    bytes = (argc > 1 ? strtoul(argv[1], NULL, 0) : 32) << 20;
    iters = argc > 2 ? atoi(argv[2]) : 10;
    if (!bytes || iters <= 0) {
        fprintf(stderr, "usage: bandwidth [MiB] [iterations]\n");
        return 1;
    }
    cl_int err;
    cl_device_id dev;
    char name[256];
    cl_context ctx = sample_gpu_context(&dev, name, sizeof(name));
    q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK_ERR(err);
    cl_mem d0 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_ERR(err);
    cl_mem d1 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_ERR(err);

    /* Pageable. */
    double page_h2d, page_d2h;
    unsigned char *pageable = malloc(bytes);
    host_copies("pageable", pageable, d0, &page_h2d, &page_d2h);

    /* Pinned: host memory the implementation allocated for DMA. */
    double pin_h2d, pin_d2h;
    cl_mem pinned = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    CHECK_ERR(err);
    unsigned char *pin = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                            0, NULL, NULL, &err);
    CHECK_ERR(err);
    host_copies("pinned", pin, d0, &pin_h2d, &pin_d2h);
    CHECK(clEnqueueUnmapMemObject(q, pinned, pin, 0, NULL, NULL));

    /* Mapped: map the device buffer and copy with the CPU. */
    fill(pageable, 2);
    double t0 = sample_now();
    for (int i = 0; i < iters; i++) {
        void *m = clEnqueueMapBuffer(q, d1, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, bytes, 0, NULL,
                                     NULL, &err);
        CHECK_ERR(err);
        memcpy(m, pageable, bytes);
        CHECK(clEnqueueUnmapMemObject(q, d1, m, 0, NULL, NULL));
    }
    CHECK(clFinish(q));
    double map_h2d = rate(sample_now() - t0);
    memset(pageable, 0, bytes);
    t0 = sample_now();
    for (int i = 0; i < iters; i++) {
        void *m = clEnqueueMapBuffer(q, d1, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL, &err);
        CHECK_ERR(err);
        memcpy(pageable, m, bytes);
        CHECK(clEnqueueUnmapMemObject(q, d1, m, 0, NULL, NULL));
    }
    CHECK(clFinish(q));
    double map_d2h = rate(sample_now() - t0);
    verify(pageable, 2, "mapped round trip");

    /* Device to device: d1 (pattern 2) -> d0, read back through pageable. */
    t0 = sample_now();
    for (int i = 0; i < iters; i++)
        CHECK(clEnqueueCopyBuffer(q, d1, d0, 0, 0, bytes, 0, NULL, NULL));
    CHECK(clFinish(q));
    /* A copy reads and writes every byte: count both, as oclBandwidthTest does. */
    double d2d = 2.0 * rate(sample_now() - t0);
    memset(pageable, 0, bytes);
    CHECK(clEnqueueReadBuffer(q, d0, CL_TRUE, 0, bytes, pageable, 0, NULL, NULL));
    verify(pageable, 2, "device-to-device copy");

    printf("bandwidth on %s, %zu MiB x %d (GB/s)\n", name, bytes >> 20, iters);
    printf("  %-10s %12s %12s\n", "memory", "host->device", "device->host");
    printf("  %-10s %12.2f %12.2f\n", "pageable", page_h2d, page_d2h);
    printf("  %-10s %12.2f %12.2f\n", "pinned", pin_h2d, pin_d2h);
    printf("  %-10s %12.2f %12.2f\n", "mapped", map_h2d, map_d2h);
    printf("  %-10s %12.2f\n", "dev->dev", d2d);
    printf("%s\n", failures ? "FAILED" : "PASSED");

    clReleaseMemObject(pinned);
    clReleaseMemObject(d0);
    clReleaseMemObject(d1);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(pageable);
    return failures ? 1 : 0;
}

/*
 * ndrange_test.c — clEnqueueNDRangeKernel through the ICD loader: every
 * work-item of 1-D and 2-D ranges, with global offsets, chosen and given
 * local sizes, non-uniform work-groups, and the spec's errors. The kernel
 * (queue_kernels.cu: ids2d) writes each work-item's global id, work_dim and
 * local size, so coverage and placement are checked by data.
 */
#include "../api_platform/cltest.h"

#include <stdint.h>

enum { W = 64, H = 48 }; /* the output grid */

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;
static cl_mem out, loc;

static cl_program build(const char *options)
{
    size_t size;
    unsigned char *bin = test_data_read("queue_kernels.cubin", &size);
    REQUIRE(bin, "queue_kernels.cubin not found under HCQCL_TEST_DATA");
    cl_int err, st;
    const unsigned char *bins[] = {bin};
    cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &size, bins, &st, &err);
    free(bin);
    REQUIRE(p && err == CL_SUCCESS, "program from the cubin: %d (%d)", err, st);
    EXPECT_OK(clBuildProgram(p, 1, &dev, options, NULL, NULL));
    return p;
}

static void clear(void)
{
    unsigned zero = 0;
    EXPECT_OK(clEnqueueFillBuffer(q, out, &zero, 4, 0, W * H * 4, 0, NULL, NULL));
    EXPECT_OK(clEnqueueFillBuffer(q, loc, &zero, 4, 0, W * H * 4, 0, NULL, NULL));
}

/* Run ids2d over [off, off + global) and check every cell of the grid:
 * inside the range it holds its id and work_dim, outside it is 0.
 * want_local: the local size every item must report (0 = any uniform
 * choice that divides the range). */
static void run_and_check(cl_kernel k, cl_uint dim, const size_t *off, const size_t *global,
                          const size_t *local, const char *what)
{
    clear();
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, dim, off, global, local, 0, NULL, NULL));
    static unsigned o[W * H], l[W * H];
    EXPECT_OK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(o), o, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(q, loc, CL_TRUE, 0, sizeof(l), l, 0, NULL, NULL));
    size_t x0 = off ? off[0] : 0, y0 = dim > 1 && off ? off[1] : 0;
    size_t gx = global[0], gy = dim > 1 ? global[1] : 1;
    int bad = 0;
    for (size_t y = 0; y < H && bad < 5; y++)
        for (size_t x = 0; x < W && bad < 5; x++) {
            bool in = x >= x0 && x < x0 + gx && y >= y0 && y < y0 + gy;
            unsigned want = in ? 1u + (unsigned)x + ((unsigned)y << 12) + (dim << 24) : 0;
            unsigned got = o[y * W + x];
            if (got != want) {
                bad++;
                EXPECT(false, "%s: item (%zu,%zu) = 0x%x, want 0x%x", what, x, y, got, want);
                continue;
            }
            if (!in)
                continue;
            unsigned lx = l[y * W + x] & 0xffff, ly = l[y * W + x] >> 16;
            if (local) {
                /* Non-uniform: the last group of a dimension is the rest. */
                size_t rx = (x - x0) / local[0] == gx / local[0] ? gx % local[0] : local[0];
                size_t ry = dim > 1 ? ((y - y0) / local[1] == gy / local[1] ? gy % local[1]
                                                                               : local[1])
                                    : 1;
                if (lx != rx || ly != ry) {
                    bad++;
                    EXPECT(false, "%s: item (%zu,%zu) local %ux%u, want %zux%zu", what, x, y, lx,
                           ly, rx, ry);
                }
            } else if (!lx || !ly || gx % lx || gy % ly) {
                bad++;
                EXPECT(false, "%s: chosen local size %ux%u does not divide %zux%zu", what, lx, ly,
                       gx, gy);
            }
        }
}

static void test_ranges(cl_kernel k)
{
    const size_t g1[] = {W}, l1[] = {16};
    run_and_check(k, 1, NULL, g1, l1, "1-D");
    const size_t o1[] = {5}, g1b[] = {40}, l1b[] = {8};
    run_and_check(k, 1, o1, g1b, l1b, "1-D with offset");
    run_and_check(k, 1, o1, g1b, NULL, "1-D, local chosen");
    const size_t g1p[] = {53}; /* prime: only 1 or 53 divide it */
    run_and_check(k, 1, NULL, g1p, NULL, "1-D prime size, local chosen");
    const size_t g2[] = {W, H}, l2[] = {8, 4};
    run_and_check(k, 2, NULL, g2, l2, "2-D");
    const size_t o2[] = {3, 7}, g2b[] = {32, 24}, l2b[] = {16, 2};
    run_and_check(k, 2, o2, g2b, l2b, "2-D with offset");
    run_and_check(k, 2, o2, g2b, NULL, "2-D with offset, local chosen");
}

static void test_non_uniform(void)
{
    cl_bool nu = CL_FALSE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof(nu), &nu,
                              NULL));
    /* From a binary: allowed unless built with -cl-uniform-work-group-size
     * (no -cl-std needed, unlike a build from source). */
    cl_program p = build(NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "ids2d", &err);
    REQUIRE(k, "kernel: %d", err);
    unsigned width = W;
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(out), &out));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(loc), &loc));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(width), &width));
    const size_t o[] = {2, 1}, g[] = {45, 21}, l[] = {8, 4};
    if (nu) {
        run_and_check(k, 2, o, g, l, "2-D non-uniform");
        const size_t g1[] = {61}, l1[] = {16};
        run_and_check(k, 1, NULL, g1, l1, "1-D non-uniform");
    } else {
        EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 2, o, g, l, 0, NULL, NULL),
                   CL_INVALID_WORK_GROUP_SIZE);
    }
    /* -cl-uniform-work-group-size forbids them in any case. */
    cl_program pu = build("-cl-std=CL3.0 -cl-uniform-work-group-size");
    cl_kernel ku = clCreateKernel(pu, "ids2d", &err);
    REQUIRE(ku, "kernel: %d", err);
    EXPECT_OK(clSetKernelArg(ku, 0, sizeof(out), &out));
    EXPECT_OK(clSetKernelArg(ku, 1, sizeof(loc), &loc));
    EXPECT_OK(clSetKernelArg(ku, 2, sizeof(width), &width));
    EXPECT_ERR(clEnqueueNDRangeKernel(q, ku, 2, o, g, l, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
    EXPECT_OK(clReleaseKernel(ku));
    EXPECT_OK(clReleaseProgram(pu));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseProgram(p));
}

/* More groups in y than one grid holds (65535): split into consecutive
 * launches whose offsets continue where the previous one ended; rows of
 * 65537 groups (two launches) and of 600000 (ten, more than eight). */
static void test_split_grid(cl_program p, size_t rows_y)
{
    const size_t ROWS = rows_y + 3;
    cl_int err;
    cl_kernel k = clCreateKernel(p, "ids2d", &err);
    REQUIRE(k, "kernel: %d", err);
    cl_mem o = clCreateBuffer(ctx, CL_MEM_READ_WRITE, ROWS * 4, NULL, &err);
    cl_mem l = clCreateBuffer(ctx, CL_MEM_READ_WRITE, ROWS * 4, NULL, &err);
    REQUIRE(o && l, "buffers: %d", err);
    unsigned zero = 0, width = 1;
    EXPECT_OK(clEnqueueFillBuffer(q, o, &zero, 4, 0, ROWS * 4, 0, NULL, NULL));
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(o), &o));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(l), &l));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(width), &width));
    const size_t off[] = {0, 2}, g[] = {1, rows_y}, loc1[] = {1, 1};
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 2, off, g, loc1, 0, NULL, NULL));
    unsigned *h = malloc(ROWS * 4);
    REQUIRE(h, "host copy");
    EXPECT_OK(clEnqueueReadBuffer(q, o, CL_TRUE, 0, ROWS * 4, h, 0, NULL, NULL));
    int bad = 0;
    for (unsigned y = 0; y < ROWS && bad < 5; y++) {
        unsigned want = y >= 2 && y < 2 + rows_y ? 1u + (y << 12) + (2u << 24) : 0;
        if (h[y] != want) {
            bad++;
            EXPECT(false, "split grid: row %u = 0x%x, want 0x%x", y, h[y], want);
        }
    }
    free(h);
    EXPECT_OK(clReleaseMemObject(o));
    EXPECT_OK(clReleaseMemObject(l));
    EXPECT_OK(clReleaseKernel(k));
}

static void test_errors(cl_program p, cl_kernel k)
{
    const size_t g[] = {64, 1, 1}, l[] = {16, 1, 1};
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 0, NULL, g, l, 0, NULL, NULL),
               CL_INVALID_WORK_DIMENSION);
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 4, NULL, g, l, 0, NULL, NULL),
               CL_INVALID_WORK_DIMENSION);
    /* No global size is an empty command since OpenCL 2.1: it completes. */
    cl_event none = NULL;
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, NULL, l, 0, NULL, &none));
    if (none) {
        EXPECT_OK(clWaitForEvents(1, &none));
        cl_int st = -1;
        EXPECT_OK(clGetEventInfo(none, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
        EXPECT(st == CL_COMPLETE, "empty NDRange ended with %d", st);
        clReleaseEvent(none);
    }
    const size_t huge_off[] = {SIZE_MAX - 10};
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 1, huge_off, g, l, 0, NULL, NULL),
               CL_INVALID_GLOBAL_OFFSET);
    const size_t l0[] = {0};
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l0, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
    /* 2^32 work-groups in a dimension: representable in the device's
     * size_t, but group ids are 32 bits there (get_group_id,
     * get_num_groups): not enough resources, not an invalid size. */
    const size_t g32[] = {(size_t)1 << 32}, l1[] = {1};
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, g32, l1, 0, NULL, NULL),
               CL_OUT_OF_RESOURCES);
    size_t max_items[3] = {0};
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(max_items), max_items,
                              NULL));
    const size_t gz[] = {1, 1, max_items[2] * 2}, lz[] = {1, 1, max_items[2] + 1};
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 3, NULL, gz, lz, 0, NULL, NULL),
               CL_INVALID_WORK_ITEM_SIZE);
    size_t kmax = 0;
    EXPECT_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kmax), &kmax,
                                       NULL));
    const size_t gb[] = {64, 64}, lb[] = {32, 64}; /* 2048 > any group limit */
    if (kmax < 2048)
        EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, gb, lb, 0, NULL, NULL),
                   CL_INVALID_WORK_GROUP_SIZE);
    /* 64 % 24 != 0: a program from a binary, built without
     * -cl-uniform-work-group-size, allows non-uniform work-groups where
     * the device does (test_non_uniform has the results). */
    cl_bool nu = CL_FALSE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof(nu), &nu,
                              NULL));
    const size_t l24[] = {24};
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l24, 0, NULL, NULL),
               nu ? CL_SUCCESS : CL_INVALID_WORK_GROUP_SIZE);
    EXPECT_OK(clFinish(q));
    cl_int err;
    cl_kernel unset = clCreateKernel(p, "ids2d", &err);
    REQUIRE(unset, "second kernel: %d", err);
    EXPECT_ERR(clEnqueueNDRangeKernel(q, unset, 1, NULL, g, l, 0, NULL, NULL),
               CL_INVALID_KERNEL_ARGS);
    EXPECT_ERR(clEnqueueTask(q, unset, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    EXPECT_OK(clReleaseKernel(unset));
    EXPECT_ERR(clEnqueueNDRangeKernel(q, (cl_kernel)q, 1, NULL, g, l, 0, NULL, NULL),
               CL_INVALID_KERNEL);
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l, 1, NULL, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
    /* A wait list with no events, without an event asked for: refused on
     * the short ways too (the same launch twice: the second is the one
     * the queue remembers). */
    cl_event no_ev = NULL;
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l, 0, NULL, NULL));
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, g, l, 0, &no_ev, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
    EXPECT_ERR(clEnqueueTask(q, k, 0, &no_ev, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT_OK(clFinish(q));
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue oq = clCreateCommandQueueWithProperties(other, dev, NULL, &err);
    REQUIRE(oq, "queue of a second context: %d", err);
    EXPECT_ERR(clEnqueueNDRangeKernel(oq, k, 1, NULL, g, l, 0, NULL, NULL), CL_INVALID_CONTEXT);
    EXPECT_OK(clReleaseCommandQueue(oq));
    EXPECT_OK(clReleaseContext(other));
    /* A zero-sized range is valid (OpenCL 2.1+) and completes. */
    const size_t g0[] = {0};
    cl_event ev;
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, g0, NULL, 0, NULL, &ev));
    EXPECT_OK(clWaitForEvents(1, &ev));
    cl_command_type t;
    EXPECT_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
    EXPECT(t == CL_COMMAND_NDRANGE_KERNEL, "command type");
    EXPECT_OK(clReleaseEvent(ev));
    /* clEnqueueTask = one work-item at offset 0. */
    clear();
    EXPECT_OK(clEnqueueTask(q, k, 0, NULL, NULL));
    unsigned o0 = 0;
    EXPECT_OK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4, &o0, 0, NULL, NULL));
    EXPECT(o0 == 1u + (1u << 24), "task wrote 0x%x", o0);
}

/* A kernel the application released is no longer attached to its program
 * once the commands that used it have finished (their end seen through a
 * blocking read): the program builds again. The CTS's options_denorm_cache
 * does this; hcqcl's ring of commands without events held the kernel
 * until the tracker's next pass, and the rebuild failed with
 * CL_INVALID_OPERATION. */
static void test_rebuild_after_release(void)
{
    cl_int err;
    cl_program p = build(NULL);
    for (int round = 0; round < 2; round++) {
        cl_kernel k = clCreateKernel(p, "ids2d", &err);
        REQUIRE(k, "kernel ids2d: %d", err);
        unsigned width = W, o;
        EXPECT_OK(clSetKernelArg(k, 0, sizeof(out), &out));
        EXPECT_OK(clSetKernelArg(k, 1, sizeof(loc), &loc));
        EXPECT_OK(clSetKernelArg(k, 2, sizeof(width), &width));
        size_t g = 8;
        EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(o), &o, 0, NULL, NULL));
        EXPECT_EQ(o, 1u + (1u << 24));
        EXPECT_OK(clReleaseKernel(k));
        /* CL_INVALID_OPERATION only while kernel objects are attached */
        EXPECT_OK(clBuildProgram(p, 1, &dev, round ? "-cl-denorms-are-zero" : NULL, NULL, NULL));
    }
    EXPECT_OK(clReleaseProgram(p));
}

int main(void)
{
    cl_platform_id p = cltest_platform();
    REQUIRE(p, "hcqcl platform not found");
    cl_uint n = 0;
    REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, &n) == CL_SUCCESS && n > 0,
            "no device");
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(ctx, "context: %d", err);
    q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q, "queue: %d", err);
    out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, W * H * 4, NULL, &err);
    loc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, W * H * 4, NULL, &err);
    REQUIRE(out && loc, "buffers: %d", err);

    cl_program prog = build(NULL);
    cl_kernel k = clCreateKernel(prog, "ids2d", &err);
    REQUIRE(k, "kernel ids2d: %d", err);
    unsigned width = W;
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(out), &out));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(loc), &loc));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(width), &width));

    test_ranges(k);
    test_non_uniform();
    test_split_grid(prog, 65537);
    test_split_grid(prog, 600000);
    test_errors(prog, k);
    test_rebuild_after_release();

    EXPECT_OK(clFinish(q));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseProgram(prog));
    EXPECT_OK(clReleaseMemObject(out));
    EXPECT_OK(clReleaseMemObject(loc));
    EXPECT_OK(clReleaseCommandQueue(q));
    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_ndrange");
}

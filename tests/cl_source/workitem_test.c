/*
 * workitem_test.c — the work-item functions, exactly as OpenCL 3.0
 * defines them, over NDRanges that hcqcl runs as several launches:
 * workitem.cl built from source as OpenCL C 3.0 (clCreateProgramWithSource
 * + clBuildProgram through the ICD loader), every value checked against
 * the one computed here from the NDRange.
 *
 *   workitems  2-D, a global offset (above 4 G in dimension 0), global %
 *              local != 0 in both dimensions (non-uniform work-groups:
 *              the last group of a dimension has the remainder's size);
 *              then 2-D with more groups in dimension 1 than one grid
 *              holds (65535) and a remainder in dimension 0. Per work-item
 *              get_global_id, get_global_offset, get_global_size,
 *              get_local_size, get_enqueued_local_size, get_local_id,
 *              get_group_id, get_num_groups, get_global_linear_id,
 *              get_local_linear_id, get_work_dim, and all of them for
 *              dimension 2 (absent) and index 3.
 *   mirror     1-D, non-uniform, with a global offset: values exchanged
 *              through __local memory across work_group_barrier (both
 *              forms, work-group and device scope); again as mirror64,
 *              whose reqd_work_group_size(64, 1, 1) the range does not
 *              divide, local size given and not.
 *
 * usage: cl_workitem [workitem.cl]   (default: workitem.cl in the current
 * directory, the copy the build precompiled into the kernel cache with
 * WORKITEM_OPTIONS)
 */
#include <CL/cl_ext.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_setup.h"

#ifndef WORKITEM_OPTIONS
#error "WORKITEM_OPTIONS: the build options workitem.cl was precompiled with"
#endif

static cl_mem zeroed_buffer(cl_context ctx, cl_command_queue q, size_t size)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    REQUIRE(m && err == CL_SUCCESS, "clCreateBuffer(%zu): %d", size, err);
    const cl_ulong junk = 0xeeeeeeeeeeeeeeeeull;
    err = clEnqueueFillBuffer(q, m, &junk, sizeof(junk), 0, size, 0, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "clEnqueueFillBuffer: %d", err);
    return m;
}

/* Size of the group with index g of a dimension: the enqueued local size,
 * or for the last group of a non-uniform dimension the remainder. */
static size_t group_size(size_t global, size_t local, size_t g)
{
    return g == global / local ? global % local : local;
}

/* A dimension the NDRange lacks, or index 3: global and local sizes and
 * number of groups 1, ids and offset 0 (workitem.cl's absent_dim). */
#define ABSENT ((cl_ulong)1 << 16 | (cl_ulong)1 << 24 | (cl_ulong)1 << 32 | (cl_ulong)1 << 48)

static const char *const field_names[14] = {
    "global_id(0)", "global_id(1)", "global_offset(0)", "global_offset(1)",
    "global_size(0)", "global_size(1)", "local_size|enqueued_local_size",
    "local_id|local_linear_id", "group_id", "num_groups", "global_linear_id", "work_dim",
    "dimension 2", "dimension 3",
};

/* kernel: workitems, or workitems8x8 (reqd_work_group_size(8, 8, 1));
 * given: pass local to the enqueue, or NULL for the implementation to
 * choose (the required size; local says what it must be). */
static void check_workitems(cl_context ctx, cl_command_queue q, cl_program p, const char *what,
                            const char *kernel, const size_t off[2], const size_t global[2],
                            const size_t local[2], bool given)
{
    const size_t items = global[0] * global[1], size = items * 14 * sizeof(cl_ulong);
    cl_mem dout = zeroed_buffer(ctx, q, size);
    cl_kernel k = cltest_kernel(p, kernel);
    EXPECT_EQ(clSetKernelArg(k, 0, sizeof(cl_mem), &dout), CL_SUCCESS);
    cl_int err = clEnqueueNDRangeKernel(q, k, 2, off, global, given ? local : NULL, 0, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "%s: clEnqueueNDRangeKernel: %d", what, err);
    cl_ulong *out = malloc(size);
    REQUIRE(out);
    err = clEnqueueReadBuffer(q, dout, CL_TRUE, 0, size, out, 0, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", err);

    const size_t groups[2] = {(global[0] + local[0] - 1) / local[0],
                              (global[1] + local[1] - 1) / local[1]};
    unsigned bad = 0;
    for (size_t y = 0; y < global[1]; y++) {
        for (size_t x = 0; x < global[0]; x++) {
            size_t lin = y * global[0] + x;
            const cl_ulong *r = out + lin * 14;
            size_t gx = x / local[0], gy = y / local[1], lx = x % local[0], ly = y % local[1];
            size_t sx = group_size(global[0], local[0], gx);
            size_t sy = group_size(global[1], local[1], gy);
            const cl_ulong want[14] = {
                off[0] + x,
                off[1] + y,
                off[0],
                off[1],
                global[0],
                global[1],
                sx | (cl_ulong)sy << 16 | (cl_ulong)local[0] << 32 | (cl_ulong)local[1] << 48,
                lx | (cl_ulong)ly << 16 | (cl_ulong)(ly * sx + lx) << 32,
                gx | (cl_ulong)gy << 32,
                groups[0] | (cl_ulong)groups[1] << 32,
                lin,
                2,
                ABSENT,
                ABSENT,
            };
            for (int f = 0; f < 14; f++) {
                if (r[f] != want[f] && bad++ < 10)
                    fprintf(stderr, "%s: item (%zu, %zu) %s = 0x%" PRIx64 ", expected 0x%" PRIx64
                            "\n", what, x, y, field_names[f], (uint64_t)r[f],
                            (uint64_t)want[f]);
            }
        }
    }
    check_report(bad == 0, "workitems", "%s: %zux%zu items in groups of %zux%zu (%zux%zu groups)"
                 " at offset (0x%zx, %zu), %u wrong fields", what, global[0], global[1],
                 local[0], local[1], groups[0], groups[1], off[0], off[1], bad);
    free(out);
    clReleaseKernel(k);
    clReleaseMemObject(dout);
}

/* name: mirror, or mirror64 (reqd_work_group_size(64, 1, 1)), which
 * given_local NULL leaves the implementation to size. */
static void check_mirror(cl_context ctx, cl_command_queue q, cl_program p, const char *name,
                         const size_t *given_local)
{
    const size_t off = 7, global = 1000, local = 64; /* 15 groups of 64, one of 40 */
    const size_t size = global * 4 * sizeof(cl_ulong);
    cl_mem dout = zeroed_buffer(ctx, q, size);
    cl_kernel k = cltest_kernel(p, name);
    EXPECT_EQ(clSetKernelArg(k, 0, sizeof(cl_mem), &dout), CL_SUCCESS);
    EXPECT_EQ(clSetKernelArg(k, 1, local * sizeof(cl_ulong), NULL), CL_SUCCESS);
    cl_int err = clEnqueueNDRangeKernel(q, k, 1, &off, &global, given_local, 0, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "%s: clEnqueueNDRangeKernel: %d", name, err);
    cl_ulong *out = malloc(size);
    REQUIRE(out);
    err = clEnqueueReadBuffer(q, dout, CL_TRUE, 0, size, out, 0, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", err);

    const size_t groups = (global + local - 1) / local;
    unsigned bad = 0;
    for (size_t i = 0; i < global; i++) {
        size_t g = i / local, l = i % local, n = group_size(global, local, g);
        size_t first = off + g * local; /* global id of local id 0 */
        const cl_ulong want[4] = {
            first + (n - 1 - l),
            first + (n - 1 - (l + 1) % n),
            g,
            n | (cl_ulong)groups << 32,
        };
        for (int f = 0; f < 4; f++)
            if (out[i * 4 + f] != want[f] && bad++ < 10)
                fprintf(stderr, "%s: item %zu field %d = 0x%" PRIx64 ", expected 0x%" PRIx64
                        "\n", name, i, f, (uint64_t)out[i * 4 + f], (uint64_t)want[f]);
    }
    check_report(bad == 0, name, "1-D, %zu items in groups of %zu (%s) at offset %zu, through "
                 "__local memory and work_group_barrier, %u wrong fields", global, local,
                 given_local ? "given" : "the required size", off, bad);
    free(out);
    clReleaseKernel(k);
    clReleaseMemObject(dout);
}

/* cl_khr_suggested_local_work_size: the extension is listed, its function
 * found through the platform, and each suggestion is the local size an
 * enqueue with a NULL local size then runs (the kernel reports it); the
 * errors follow clEnqueueNDRangeKernel's. */
static void check_suggested(cl_platform_id platform, cl_device_id dev, cl_context ctx,
                            cl_command_queue q, cl_program p)
{
    size_t len = 0;
    REQUIRE(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &len) == CL_SUCCESS);
    char *ext = malloc(len);
    REQUIRE(ext && clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, len, ext, NULL) == CL_SUCCESS);
    EXPECT(strstr(ext, "cl_khr_suggested_local_work_size "), "extension not listed: %s", ext);
    free(ext);
    clGetKernelSuggestedLocalWorkSizeKHR_fn suggest =
        (clGetKernelSuggestedLocalWorkSizeKHR_fn)clGetExtensionFunctionAddressForPlatform(
            platform, "clGetKernelSuggestedLocalWorkSizeKHR");
    REQUIRE(suggest, "clGetKernelSuggestedLocalWorkSizeKHR not found");

    /* Sizes with a warp-multiple divisor, with only an odd one, prime
     * ones (a remainder group, non-uniform work-groups being allowed),
     * and the required 8x8. */
    static const struct {
        const char *kernel;
        size_t off[2], global[2];
    } cases[] = {
        {"workitems", {0, 0}, {2048, 4}},
        {"workitems", {7, 3}, {1000, 3}},
        {"workitems", {0, 0}, {37, 13}},
        {"workitems", {5, 0}, {1021, 7}},
        {"workitems", {0, 0}, {1, 300}},
        {"workitems8x8", {1, 2}, {20, 13}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cl_kernel k = cltest_kernel(p, cases[i].kernel);
        cl_mem m = zeroed_buffer(ctx, q, 8);
        EXPECT_EQ(clSetKernelArg(k, 0, sizeof(cl_mem), &m), CL_SUCCESS);
        size_t local[3] = {0, 0, 77};
        EXPECT_EQ(suggest(q, k, 2, cases[i].off, cases[i].global, local), CL_SUCCESS);
        EXPECT(local[2] == 77, "wrote beyond work_dim");
        EXPECT(local[0] >= 1 && local[1] >= 1 && local[0] * local[1] <= 1024,
               "suggested %zux%zu", local[0], local[1]);
        clReleaseMemObject(m);
        clReleaseKernel(k);
        char what[96];
        snprintf(what, sizeof(what), "suggested for %s %zux%zu", cases[i].kernel,
                 cases[i].global[0], cases[i].global[1]);
        check_workitems(ctx, q, p, what, cases[i].kernel, cases[i].off, cases[i].global, local,
                        false);
    }

    cl_kernel k = cltest_kernel(p, "workitems");
    const size_t g[3] = {64, 64, 64}, zero[2] = {5, 0}, big[2] = {SIZE_MAX, 0};
    size_t local[3];
    /* CL_INVALID_KERNEL_ARGS if any kernel arguments have not been set */
    EXPECT_EQ(suggest(q, k, 1, NULL, g, local), CL_INVALID_KERNEL_ARGS);
    cl_mem m = zeroed_buffer(ctx, q, 8);
    EXPECT_EQ(clSetKernelArg(k, 0, sizeof(cl_mem), &m), CL_SUCCESS);
    EXPECT_EQ(suggest(NULL, k, 1, NULL, g, local), CL_INVALID_COMMAND_QUEUE);
    EXPECT_EQ(suggest(q, NULL, 1, NULL, g, local), CL_INVALID_KERNEL);
    EXPECT_EQ(suggest(q, k, 0, NULL, g, local), CL_INVALID_WORK_DIMENSION);
    EXPECT_EQ(suggest(q, k, 4, NULL, g, local), CL_INVALID_WORK_DIMENSION);
    EXPECT_EQ(suggest(q, k, 1, NULL, NULL, local), CL_INVALID_GLOBAL_WORK_SIZE);
    EXPECT_EQ(suggest(q, k, 2, NULL, zero, local), CL_INVALID_GLOBAL_WORK_SIZE);
    EXPECT_EQ(suggest(q, k, 1, big, g, local), CL_INVALID_GLOBAL_OFFSET);
    EXPECT_EQ(suggest(q, k, 3, NULL, g, NULL), CL_INVALID_VALUE);
    EXPECT_EQ(suggest(q, k, 3, NULL, g, local), CL_SUCCESS);
    EXPECT(local[0] * local[1] * local[2] <= 1024, "3-D suggestion %zux%zux%zu", local[0],
           local[1], local[2]);
    clReleaseKernel(k);
    /* As 1-D, the required 8x8 has 8 work-items in a dimension the range
     * lacks: what the enqueue answers. */
    k = cltest_kernel(p, "workitems8x8");
    EXPECT_EQ(clSetKernelArg(k, 0, sizeof(cl_mem), &m), CL_SUCCESS);
    EXPECT_EQ(suggest(q, k, 1, NULL, g, local), CL_INVALID_WORK_GROUP_SIZE);
    clReleaseKernel(k);
    clReleaseMemObject(m);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "workitem.cl";
    cl_platform_id platform;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cltest_setup(&platform, &dev, &ctx, &q);

    cl_bool nu = CL_FALSE;
    REQUIRE(clGetDeviceInfo(dev, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof(nu), &nu,
                            NULL) == CL_SUCCESS);
    REQUIRE(nu, "the device reports no non-uniform work-group support");

    size_t len = 0;
    char *src = test_file_read(path, &len);
    REQUIRE(src, "kernel source %s", path);
    cl_program p = cltest_source_program(ctx, dev, src, len, WORKITEM_OPTIONS);

    /* Non-uniform in both dimensions: 4 launches (uniform part, the two
     * edges, the corner). */
    const size_t off_nu[2] = {((size_t)1 << 32) + 5, 11};
    const size_t global_nu[2] = {37, 13}, local_nu[2] = {8, 4};
    check_workitems(ctx, q, p, "2-D non-uniform", "workitems", off_nu, global_nu, local_nu, true);
    /* 65538 groups in dimension 1: 65535 in one grid, 3 in the next; a
     * remainder group in dimension 0. */
    const size_t off_split[2] = {3, 2};
    const size_t global_split[2] = {3, 65538}, local_split[2] = {2, 1};
    check_workitems(ctx, q, p, "2-D split grid", "workitems", off_split, global_split, local_split,
                    true);
    /* reqd_work_group_size(8, 8, 1), 20 x 13 items: groups of 8 x 8 and
     * the remainders, the size given and chosen. */
    const size_t off_r[2] = {0, 0}, global_r[2] = {20, 13}, local_r[2] = {8, 8};
    check_workitems(ctx, q, p, "2-D reqd 8x8 given", "workitems8x8", off_r, global_r, local_r,
                    true);
    check_workitems(ctx, q, p, "2-D reqd 8x8 chosen", "workitems8x8", off_r, global_r, local_r,
                    false);
    /* As 1-D its second dimension has one work-item, which a required 8
     * never divides: CL_INVALID_WORK_GROUP_SIZE, the size given or not. */
    {
        cl_kernel k = cltest_kernel(p, "workitems8x8");
        cl_mem m = zeroed_buffer(ctx, q, 64 * 14 * sizeof(cl_ulong));
        EXPECT_EQ(clSetKernelArg(k, 0, sizeof(cl_mem), &m), CL_SUCCESS);
        const size_t g64 = 64, l8 = 8;
        EXPECT_EQ(clEnqueueNDRangeKernel(q, k, 1, NULL, &g64, NULL, 0, NULL, NULL),
                  CL_INVALID_WORK_GROUP_SIZE);
        EXPECT_EQ(clEnqueueNDRangeKernel(q, k, 1, NULL, &g64, &l8, 0, NULL, NULL),
                  CL_INVALID_WORK_GROUP_SIZE);
        clReleaseMemObject(m);
        clReleaseKernel(k);
    }
    const size_t l64 = 64;
    check_mirror(ctx, q, p, "mirror", &l64);
    /* reqd_work_group_size(64, 1, 1) and 1000 items: the last group has
     * 40, with the local size given and left to the implementation. */
    check_mirror(ctx, q, p, "mirror64", &l64);
    check_mirror(ctx, q, p, "mirror64", NULL);
    check_suggested(platform, dev, ctx, q, p);

    clReleaseProgram(p);
    free(src);
    cltest_teardown(ctx, q);
    return check_done("cl_workitem");
}

/*
 * image_test.c — images end to end through the ICD loader: images.cl
 * built from source, software images made with clCreateImage (host data
 * copied in, 1D buffer images over a buffer), samplers from
 * clCreateSampler and from sampler literals, the kernels of images.cl
 * run with clSetKernelArg + clEnqueueNDRangeKernel, and the results read
 * back with clEnqueueReadImage / clEnqueueReadBuffer and checked against
 * values worked out by hand here:
 *
 *   arg_info        clGetKernelArgInfo of image and sampler arguments
 *   sample2d        RGBA float, four samplers (nearest/linear, clamp,
 *                   clamp-to-edge, repeat, mirrored repeat, normalized)
 *   sample2d_literal a sampler literal and a program-scope sampler
 *   fill2d          write_imagef into RGBA unorm8 (rounding)
 *   add_ui, scale_i integer reads and saturating writes (RGBA uint8,
 *                   RG int16, an integer-coordinate sampler)
 *   from_buffer     add_ui between 2D images made from buffers, at row
 *                   pitches wider than a row
 *   sample3d, sample2d_array, copy1d_array, fill3d, copy1d
 *                   3D (linear), 2D array (half, layer rounding), 1D
 *                   array (BGRA), 3D writes, 1D to 1D buffer
 *   query           get_image_* of a 3D and a 2D array image
 *   formats         every 2D format clGetSupportedImageFormats lists: the
 *                   core knows it, and sample2d's results under 20
 *                   samplers (every addressing mode, both filters,
 *                   normalized or not) at 64 coordinates equal, bit for
 *                   bit, what tools/hcqcl-cc/image_core.h computes here on
 *                   the same pixels (on the GPU: the GPU's code agrees
 *                   with the core the unit test checks)
 *
 * Images exist with HCQCL_IMAGES=1 (the test's environment); a device
 * that still reports no image support makes the test skip (77) after
 * the argument-info checks, which need none.
 *
 * usage: cl_image [images.cl]   (default: the copy the build precompiled
 * into the kernel cache with CL_IMAGE_OPTIONS)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cl_setup.h"
#include "image_core.h"

#ifndef CL_IMAGE_OPTIONS
#error "CL_IMAGE_OPTIONS: the build options images.cl was precompiled with"
#endif

static cl_context ctx;
static cl_command_queue q;
static cl_program prog;

static cl_mem image(cl_mem_flags flags, cl_channel_order order, cl_channel_type type,
                    cl_mem_object_type mt, size_t w, size_t h, size_t d, size_t layers,
                    const void *host, cl_mem buffer)
{
    cl_image_format f = { order, type };
    cl_image_desc desc = cltest_image_desc(mt, w, h, d, layers);
    desc.buffer = buffer;
    cl_int err;
    cl_mem m = clCreateImage(ctx, flags | (host ? CL_MEM_COPY_HOST_PTR : 0), &f, &desc,
                             (void *)(uintptr_t)host, &err);
    REQUIRE(m && err == CL_SUCCESS, "clCreateImage(order 0x%x type 0x%x, type 0x%x): %d",
            order, type, mt, err);
    return m;
}

static cl_mem buffer(size_t size, const void *host)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), size,
                              (void *)(uintptr_t)host, &err);
    REQUIRE(m && err == CL_SUCCESS, "clCreateBuffer: %d", err);
    return m;
}

static cl_sampler sampler(cl_bool norm, cl_addressing_mode am, cl_filter_mode fm)
{
    cl_int err;
    cl_sampler s = clCreateSampler(ctx, norm, am, fm, &err);
    REQUIRE(s && err == CL_SUCCESS, "clCreateSampler: %d", err);
    return s;
}

/* Run kernel k over dims dimensions of global; args set by the caller. */
static void run(cl_kernel k, cl_uint dims, const size_t *global)
{
    cl_int err = clEnqueueNDRangeKernel(q, k, dims, NULL, global, NULL, 0, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "clEnqueueNDRangeKernel: %d", err);
    REQUIRE(clFinish(q) == CL_SUCCESS);
}

static void read_image(cl_mem img, size_t w, size_t h, size_t d, void *out)
{
    const size_t origin[3] = { 0, 0, 0 }, region[3] = { w, h, d };
    cl_int err = clEnqueueReadImage(q, img, CL_TRUE, origin, region, 0, 0, out, 0, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "clEnqueueReadImage: %d", err);
}

static void read_buffer(cl_mem m, size_t size, void *out)
{
    REQUIRE(clEnqueueReadBuffer(q, m, CL_TRUE, 0, size, out, 0, NULL, NULL) == CL_SUCCESS);
}

static void arg(cl_kernel k, cl_uint i, size_t size, const void *v)
{
    cl_int err = clSetKernelArg(k, i, size, v);
    REQUIRE(err == CL_SUCCESS, "clSetKernelArg(%u): %d", i, err);
}

static bool close4(const float *got, const float *want, float tol)
{
    for (int c = 0; c < 4; c++)
        if (!(fabsf(got[c] - want[c]) <= tol))
            return false;
    return true;
}

static void check_arg_info(void)
{
    cl_kernel k = cltest_kernel(prog, "sample2d");
    char name[64];
    cl_kernel_arg_access_qualifier acc;
    cl_kernel_arg_address_qualifier addr;
    REQUIRE(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(name), name, NULL) ==
            CL_SUCCESS);
    EXPECT(!strcmp(name, "image2d_t"), "arg 0 type %s", name);
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(acc), &acc, NULL);
    EXPECT_EQ(acc, CL_KERNEL_ARG_ACCESS_READ_ONLY);
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(addr), &addr, NULL);
    EXPECT_EQ(addr, CL_KERNEL_ARG_ADDRESS_GLOBAL);
    REQUIRE(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_NAME, sizeof(name), name, NULL) ==
            CL_SUCCESS);
    EXPECT(!strcmp(name, "sampler_t"), "arg 1 type %s", name);
    clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(acc), &acc, NULL);
    EXPECT_EQ(acc, CL_KERNEL_ARG_ACCESS_NONE);
    clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(addr), &addr, NULL);
    EXPECT_EQ(addr, CL_KERNEL_ARG_ADDRESS_PRIVATE);
    clReleaseKernel(k);
    k = cltest_kernel(prog, "fill3d");
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(name), name, NULL);
    EXPECT(!strcmp(name, "image3d_t"), "fill3d arg 0 type %s", name);
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(acc), &acc, NULL);
    EXPECT_EQ(acc, CL_KERNEL_ARG_ACCESS_WRITE_ONLY);
    clReleaseKernel(k);
}

/* 4x4 RGBA float, texel (x, y) = (x, y, x + 10y, 1). */
static cl_mem rgba4x4(void)
{
    float px[4][4][4];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            px[y][x][0] = (float)x;
            px[y][x][1] = (float)y;
            px[y][x][2] = (float)(x + 10 * y);
            px[y][x][3] = 1.0f;
        }
    return image(CL_MEM_READ_ONLY, CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D, 4, 4, 1, 0, px, NULL);
}

static void check_sample2d(void)
{
    static const struct {
        cl_bool norm;
        cl_addressing_mode am;
        cl_filter_mode fm;
        float c[2], want[4];
    } cases[] = {
        { CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, { 1.5f, 2.5f }, { 1, 2, 21, 1 } },
        { CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, { -3, 9 }, { 0, 3, 30, 1 } },
        { CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, { 2, 2 }, { 1.5f, 1.5f, 16.5f, 1 } },
        /* x: the border (0, 0, 0, 0) at weight 0.25 and column 0 at 0.75 */
        { CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, { 0.25f, 2 }, { 0, 1.125f, 11.25f, 0.75f } },
        { CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, { 4.5f, 1 }, { 0, 0, 0, 0 } },
        { CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_NEAREST, { 1.375f, -0.125f }, { 1, 3, 31, 1 } },
        { CL_TRUE, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_LINEAR, { 0.5f, 0.5f }, { 1.5f, 1.5f, 16.5f, 1 } },
        /* mirrored: s = 1.3 -> 0.7 -> u = 2.8 -> texel 2 */
        { CL_TRUE, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST, { 1.3f, 0.1f }, { 2, 0, 2, 1 } },
    };
    const size_t n = sizeof(cases) / sizeof(cases[0]);
    cl_mem img = rgba4x4();
    cl_kernel k = cltest_kernel(prog, "sample2d");
    for (size_t i = 0; i < n; i++) {
        cl_sampler s = sampler(cases[i].norm, cases[i].am, cases[i].fm);
        cl_mem coords = buffer(sizeof(cases[i].c), cases[i].c), out = buffer(16, NULL);
        arg(k, 0, sizeof(cl_mem), &img);
        arg(k, 1, sizeof(cl_sampler), &s);
        arg(k, 2, sizeof(cl_mem), &coords);
        arg(k, 3, sizeof(cl_mem), &out);
        const size_t one = 1;
        run(k, 1, &one);
        float got[4];
        read_buffer(out, 16, got);
        check_report(close4(got, cases[i].want, 1e-5f), "sample2d",
                     "case %zu: (%g, %g, %g, %g), expected (%g, %g, %g, %g)", i, got[0], got[1],
                     got[2], got[3], cases[i].want[0], cases[i].want[1], cases[i].want[2],
                     cases[i].want[3]);
        clReleaseMemObject(coords);
        clReleaseMemObject(out);
        clReleaseSampler(s);
    }
    clReleaseKernel(k);

    /* Literal: normalized | repeat | linear; program scope: clamp | nearest. */
    k = cltest_kernel(prog, "sample2d_literal");
    const float coords[3][2] = { { 0.5f, 0.5f }, { 5.0f, 1.0f }, { 1.125f, 0.25f } };
    const float want1[3][4] = { { 1.5f, 1.5f, 16.5f, 1 }, { 1.5f, 1.5f, 16.5f, 1 }, { 0, 0.5f, 5, 1 } };
    const float want2[3][4] = { { 0, 0, 0, 1 }, { 0, 0, 0, 0 }, { 1, 0, 1, 1 } };
    cl_mem cb = buffer(sizeof(coords), coords), o1 = buffer(3 * 16, NULL), o2 = buffer(3 * 16, NULL);
    arg(k, 0, sizeof(cl_mem), &img);
    arg(k, 1, sizeof(cl_mem), &cb);
    arg(k, 2, sizeof(cl_mem), &o1);
    arg(k, 3, sizeof(cl_mem), &o2);
    const size_t three = 3;
    run(k, 1, &three);
    float g1[3][4], g2[3][4];
    read_buffer(o1, sizeof(g1), g1);
    read_buffer(o2, sizeof(g2), g2);
    for (int i = 0; i < 3; i++) {
        check_report(close4(g1[i], want1[i], 1e-5f), "sample2d_literal",
                     "literal %d: (%g, %g, %g, %g)", i, g1[i][0], g1[i][1], g1[i][2], g1[i][3]);
        check_report(close4(g2[i], want2[i], 0), "sample2d_literal",
                     "program scope %d: (%g, %g, %g, %g)", i, g2[i][0], g2[i][1], g2[i][2], g2[i][3]);
    }
    clReleaseMemObject(cb);
    clReleaseMemObject(o1);
    clReleaseMemObject(o2);
    clReleaseKernel(k);
    clReleaseMemObject(img);
}

/* The unorm8 code of f: convert_uchar_sat_rte(f * 255). */
static uint8_t unorm8(float f)
{
    float v = rintf(f * 255.0f);
    return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
}

static void check_fill2d(void)
{
    cl_mem img = image(CL_MEM_WRITE_ONLY, CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D, 8, 4, 1,
                       0, NULL, NULL);
    cl_kernel k = cltest_kernel(prog, "fill2d");
    const float base[4] = { 0.1f, 0.2f, 0.3f, 1.0f };
    arg(k, 0, sizeof(cl_mem), &img);
    arg(k, 1, sizeof(base), base);
    const size_t g[2] = { 8, 4 };
    run(k, 2, g);
    uint8_t got[4][8][4];
    read_image(img, 8, 4, 1, got);
    int bad = 0;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) {
            const uint8_t want[4] = { unorm8(0.1f + (float)x / 16.0f),
                                      unorm8(0.2f + (float)y / 16.0f), unorm8(0.3f), 255 };
            bad += memcmp(got[y][x], want, 4) != 0;
        }
    check_report(bad == 0, "fill2d", "%d of 32 pixels wrong (pixel (7, 3): %u %u %u %u)", bad,
                 got[3][7][0], got[3][7][1], got[3][7][2], got[3][7][3]);
    clReleaseKernel(k);
    clReleaseMemObject(img);
}

static void check_int(void)
{
    uint8_t src[4][4][4];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            for (int c = 0; c < 4; c++)
                src[y][x][c] = (uint8_t)(x * 16 + y * 64 + c);
    cl_mem a = image(CL_MEM_READ_ONLY, CL_RGBA, CL_UNSIGNED_INT8, CL_MEM_OBJECT_IMAGE2D, 4, 4, 1,
                     0, src, NULL);
    cl_mem b = image(CL_MEM_WRITE_ONLY, CL_RGBA, CL_UNSIGNED_INT8, CL_MEM_OBJECT_IMAGE2D, 4, 4, 1,
                     0, NULL, NULL);
    cl_kernel k = cltest_kernel(prog, "add_ui");
    const cl_uint add[4] = { 10, 200, 0, 255 };
    arg(k, 0, sizeof(cl_mem), &a);
    arg(k, 1, sizeof(cl_mem), &b);
    arg(k, 2, sizeof(add), add);
    const size_t g[2] = { 4, 4 };
    run(k, 2, g);
    uint8_t got[4][4][4];
    read_image(b, 4, 4, 1, got);
    int bad = 0;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            for (int c = 0; c < 4; c++) {
                unsigned v = src[y][x][c] + add[c];
                bad += got[y][x][c] != (v > 255 ? 255 : v);
            }
    check_report(bad == 0, "add_ui", "%d of 64 channels wrong", bad);
    clReleaseKernel(k);
    clReleaseMemObject(a);
    clReleaseMemObject(b);

    /* RG int16 times -300, saturated; an integer-coordinate sampler. */
    int16_t s16[4][4][2];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            s16[y][x][0] = (int16_t)(x * 40 - y * 50);
            s16[y][x][1] = (int16_t)(y * 100 + x);
        }
    a = image(CL_MEM_READ_ONLY, CL_RG, CL_SIGNED_INT16, CL_MEM_OBJECT_IMAGE2D, 4, 4, 1, 0, s16, NULL);
    b = image(CL_MEM_WRITE_ONLY, CL_RG, CL_SIGNED_INT16, CL_MEM_OBJECT_IMAGE2D, 4, 4, 1, 0, NULL, NULL);
    cl_sampler s = sampler(CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
    k = cltest_kernel(prog, "scale_i");
    const cl_int factor = -300;
    arg(k, 0, sizeof(cl_mem), &a);
    arg(k, 1, sizeof(cl_sampler), &s);
    arg(k, 2, sizeof(cl_mem), &b);
    arg(k, 3, sizeof(factor), &factor);
    run(k, 2, g);
    int16_t g16[4][4][2];
    read_image(b, 4, 4, 1, g16);
    bad = 0;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            for (int c = 0; c < 2; c++) {
                long v = (long)s16[y][x][c] * factor;
                bad += g16[y][x][c] != (v > 32767 ? 32767 : v < -32768 ? -32768 : v);
            }
    check_report(bad == 0, "scale_i", "%d of 32 channels wrong", bad);
    clReleaseKernel(k);
    clReleaseSampler(s);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

/* add_ui between two 2D images made from buffers
 * (cl_khr_image2d_from_buffer), at row pitches other than their width:
 * the kernel reads and writes each buffer's rows at its pitch, and the
 * bytes between the destination's rows keep their value. */
static void check_from_buffer(void)
{
    enum { W = 5, H = 4, SP = 32, DP = 24, FILL = 0xEE };
    uint8_t sbytes[SP * H], dbytes[DP * H], got[DP * H];
    for (size_t i = 0; i < sizeof(sbytes); i++)
        sbytes[i] = (uint8_t)(i * 11 + 3);
    memset(dbytes, FILL, sizeof(dbytes));
    cl_mem sb = buffer(sizeof(sbytes), sbytes), db = buffer(sizeof(dbytes), dbytes);
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, W, H, 0, 0);
    const cl_image_format f = { CL_RGBA, CL_UNSIGNED_INT8 };
    cl_int err;
    d.image_row_pitch = SP;
    d.mem_object = sb;
    cl_mem a = clCreateImage(ctx, CL_MEM_READ_ONLY, &f, &d, NULL, &err);
    REQUIRE(a && err == CL_SUCCESS, "image from a buffer: %d", err);
    d.image_row_pitch = DP;
    d.mem_object = db;
    cl_mem b = clCreateImage(ctx, CL_MEM_WRITE_ONLY, &f, &d, NULL, &err);
    REQUIRE(b && err == CL_SUCCESS, "image from a buffer: %d", err);
    cl_kernel k = cltest_kernel(prog, "add_ui");
    const cl_uint add[4] = { 1, 2, 3, 250 };
    arg(k, 0, sizeof(cl_mem), &a);
    arg(k, 1, sizeof(cl_mem), &b);
    arg(k, 2, sizeof(add), add);
    const size_t g[2] = { W, H };
    run(k, 2, g);
    read_buffer(db, sizeof(got), got);
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < DP; x++) {
            unsigned want = FILL;
            if (x < W * 4) {
                want = sbytes[y * SP + x] + add[x % 4];
                want = want > 255 ? 255 : want;
            }
            bad += got[y * DP + x] != want;
        }
    check_report(bad == 0, "from_buffer", "%d of %d bytes wrong", bad, DP * H);
    clReleaseKernel(k);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(sb);
    clReleaseMemObject(db);
}

/* One read of sample3d or sample2d_array: out = read_imagef(img, s, c). */
static void sample_one(const char *kernel, cl_mem img, cl_sampler s, const float c[4], float out[4])
{
    cl_kernel k = cltest_kernel(prog, kernel);
    cl_mem cb = buffer(16, c), ob = buffer(16, NULL);
    arg(k, 0, sizeof(cl_mem), &img);
    arg(k, 1, sizeof(cl_sampler), &s);
    arg(k, 2, sizeof(cl_mem), &cb);
    arg(k, 3, sizeof(cl_mem), &ob);
    const size_t one = 1;
    run(k, 1, &one);
    read_buffer(ob, 16, out);
    clReleaseMemObject(cb);
    clReleaseMemObject(ob);
    clReleaseKernel(k);
}

static void check_3d_arrays(void)
{
    /* 4x4x4 R float, x + 4y + 16z; normalized, clamp-to-edge, linear. */
    float v3[4][4][4];
    for (int z = 0; z < 4; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                v3[z][y][x] = (float)(x + 4 * y + 16 * z);
    cl_mem img = image(CL_MEM_READ_ONLY, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0, v3, NULL);
    cl_sampler s = sampler(CL_TRUE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR);
    float got[4];
    sample_one("sample3d", img, s, (const float[4]){ 0.5f, 0.5f, 0.5f, 0 }, got);
    check_report(close4(got, (const float[4]){ 31.5f, 0, 0, 1 }, 1e-4f), "sample3d",
                 "centre: %g %g %g %g", got[0], got[1], got[2], got[3]);
    sample_one("sample3d", img, s, (const float[4]){ 0.125f, 0.375f, 0.875f, 0 }, got);
    check_report(close4(got, (const float[4]){ 0 + 4 * 1 + 16 * 3, 0, 0, 1 }, 1e-4f), "sample3d",
                 "texel centre: %g", got[0]);
    clReleaseSampler(s);
    clReleaseMemObject(img);

    /* 2x2, 3 layers, R half: 10 * layer + x + 2y; the layer is rint(c.z)
     * clamped. */
    uint16_t h[3][2][2];
    static const uint16_t halves[] = { 0x0000, 0x3C00, 0x4000, 0x4200,       /* 0 1 2 3 */
                                       0x4900, 0x4980, 0x4A00, 0x4A80,       /* 10 11 12 13 */
                                       0x4D00, 0x4D40, 0x4D80, 0x4DC0 };     /* 20 21 22 23 */
    memcpy(h, halves, sizeof(h));
    img = image(CL_MEM_READ_ONLY, CL_R, CL_HALF_FLOAT, CL_MEM_OBJECT_IMAGE2D_ARRAY, 2, 2, 1, 3, h, NULL);
    s = sampler(CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST);
    sample_one("sample2d_array", img, s, (const float[4]){ 1.5f, 0.5f, 1.6f, 0 }, got);
    check_report(close4(got, (const float[4]){ 21, 0, 0, 1 }, 0), "sample2d_array", "layer 1.6: %g", got[0]);
    sample_one("sample2d_array", img, s, (const float[4]){ 0.2f, 1.7f, -4, 0 }, got);
    check_report(close4(got, (const float[4]){ 2, 0, 0, 1 }, 0), "sample2d_array", "layer -4: %g", got[0]);
    sample_one("sample2d_array", img, s, (const float[4]){ 0.2f, 1.7f, 0.5f, 0 }, got);
    check_report(close4(got, (const float[4]){ 2, 0, 0, 1 }, 0), "sample2d_array", "layer 0.5: %g", got[0]);
    clReleaseSampler(s);
    clReleaseMemObject(img);

    /* 1D array BGRA unorm8, 5 wide, 2 layers: copied exactly. */
    uint8_t src[2][5][4], out[2][5][4];
    for (int l = 0; l < 2; l++)
        for (int x = 0; x < 5; x++)
            for (int c = 0; c < 4; c++)
                src[l][x][c] = (uint8_t)(l * 100 + x * 20 + c * 3);
    cl_mem a = image(CL_MEM_READ_ONLY, CL_BGRA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, 1, 1,
                     2, src, NULL);
    cl_mem b = image(CL_MEM_WRITE_ONLY, CL_BGRA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, 1, 1,
                     2, NULL, NULL);
    s = sampler(CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
    cl_kernel k = cltest_kernel(prog, "copy1d_array");
    arg(k, 0, sizeof(cl_mem), &a);
    arg(k, 1, sizeof(cl_sampler), &s);
    arg(k, 2, sizeof(cl_mem), &b);
    const size_t g[2] = { 5, 2 };
    run(k, 2, g);
    read_image(b, 5, 2, 1, out);
    check_report(!memcmp(src, out, sizeof(src)), "copy1d_array", "BGRA copy");
    clReleaseKernel(k);
    clReleaseSampler(s);
    clReleaseMemObject(a);
    clReleaseMemObject(b);

    /* 3D writes: RGBA int32 3x2x2 = (x, y, z, 1). */
    img = image(CL_MEM_WRITE_ONLY, CL_RGBA, CL_SIGNED_INT32, CL_MEM_OBJECT_IMAGE3D, 3, 2, 2, 0,
                NULL, NULL);
    k = cltest_kernel(prog, "fill3d");
    arg(k, 0, sizeof(cl_mem), &img);
    const size_t g3[3] = { 3, 2, 2 };
    run(k, 3, g3);
    int32_t v[2][2][3][4];
    read_image(img, 3, 2, 2, v);
    int bad = 0;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 3; x++)
                bad += v[z][y][x][0] != x || v[z][y][x][1] != y || v[z][y][x][2] != z ||
                       v[z][y][x][3] != 1;
    check_report(bad == 0, "fill3d", "%d of 12 pixels wrong", bad);
    clReleaseKernel(k);
    clReleaseMemObject(img);

    /* 1D image to a 1D buffer image over a buffer. */
    float f[16], back[16];
    for (int x = 0; x < 16; x++)
        f[x] = (float)x * 0.75f - 3;
    a = image(CL_MEM_READ_ONLY, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE1D, 16, 1, 1, 0, f, NULL);
    cl_mem buf = buffer(sizeof(f), NULL);
    b = image(CL_MEM_WRITE_ONLY, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 1, 1, 0, NULL, buf);
    k = cltest_kernel(prog, "copy1d");
    arg(k, 0, sizeof(cl_mem), &a);
    arg(k, 1, sizeof(cl_mem), &b);
    const size_t g1 = 16;
    run(k, 1, &g1);
    read_buffer(buf, sizeof(back), back);
    check_report(!memcmp(f, back, sizeof(f)), "copy1d", "1D -> 1D buffer image");
    clReleaseKernel(k);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(buf);
}

static void check_query(void)
{
    cl_mem a = image(CL_MEM_READ_ONLY, CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, 0,
                     NULL, NULL);
    cl_mem b = image(CL_MEM_WRITE_ONLY, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D_ARRAY, 5, 6, 1, 7,
                     NULL, NULL);
    cl_mem out = buffer(12 * 4, NULL);
    cl_kernel k = cltest_kernel(prog, "query");
    arg(k, 0, sizeof(cl_mem), &a);
    arg(k, 1, sizeof(cl_mem), &b);
    arg(k, 2, sizeof(cl_mem), &out);
    const size_t one = 1;
    run(k, 1, &one);
    cl_int got[12];
    read_buffer(out, sizeof(got), got);
    const cl_int want[12] = { 4, 3, 2, CL_UNORM_INT8, CL_RGBA, 4 + 30 + 200,
                              5, 6, 7, CL_FLOAT, CL_R, 5 + 60 };
    check_report(!memcmp(got, want, sizeof(want)), "query",
                 "%d %d %d 0x%x 0x%x %d / %d %d %d 0x%x 0x%x %d", got[0], got[1], got[2], got[3],
                 got[4], got[5], got[6], got[7], got[8], got[9], got[10], got[11]);
    clReleaseKernel(k);
    clReleaseMemObject(out);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

/* Host memory for the core's reads in check_formats. */
static void *host_ptr(void *user, uint64_t va, uint64_t len)
{
    (void)user;
    (void)len;
    return (void *)(uintptr_t)va;
}

static uint32_t lcg(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static void check_formats(void)
{
    cl_uint n = 0;
    REQUIRE(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n) ==
            CL_SUCCESS);
    cl_image_format *fmts = calloc(n ? n : 1, sizeof(*fmts));
    REQUIRE(fmts);
    REQUIRE(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, n, fmts, NULL) ==
            CL_SUCCESS);
    EXPECT(n >= 40, "only %u 2D formats listed", n);
    enum { W = 8, H = 8, NC = 64 };
    static const cl_addressing_mode modes[] = { CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE,
                                                CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
                                                CL_ADDRESS_MIRRORED_REPEAT };
    cl_kernel k = cltest_kernel(prog, "sample2d");
    uint32_t seed = 12345;
    float coords[NC][2];
    cl_mem cb = buffer(sizeof(coords), NULL), ob = buffer(NC * 16, NULL);
    unsigned tested = 0, mismatched = 0;
    for (cl_uint f = 0; f < n; f++) {
        uint32_t order = fmts[f].image_channel_order, type = fmts[f].image_channel_data_type;
        uint32_t cs = himg_channel_size(type), nch = himg_channels(order);
        if (!cs || !nch) {
            check_report(false, "formats", "order 0x%x type 0x%x: unknown to the core", order, type);
            continue;
        }
        uint32_t es = cs * nch;
        uint8_t px[H][W][16];
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (uint32_t c = 0; c < nch; c++) {
                    uint32_t r = lcg(&seed);
                    if (type == CL_HALF_FLOAT) /* finite halves */
                        r = (r & 0x83FF) | ((r >> 16) % 31) << 10;
                    uint8_t *p = px[y][x] + c * cs;
                    if (type == CL_FLOAT) {
                        float v = (float)(int)(r % 20001 - 10000) / 64.0f;
                        memcpy(p, &v, 4);
                    } else {
                        memcpy(p, &r, cs);
                    }
                }
        /* Packed copy for clCreateImage (row pitch W * es). */
        uint8_t *packed = malloc((size_t)W * H * es);
        REQUIRE(packed);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                memcpy(packed + ((size_t)y * W + x) * es, px[y][x], es);
        cl_mem img = image(CL_MEM_READ_ONLY, order, type, CL_MEM_OBJECT_IMAGE2D, W, H, 1, 0, packed,
                           NULL);
        struct hcqcl_image_abi d;
        memset(&d, 0, sizeof(d));
        d.data = (uint64_t)(uintptr_t)packed;
        d.row_pitch = (uint64_t)W * es;
        d.width = W;
        d.height = H;
        d.depth = 1;
        d.order = order;
        d.type = type;
        d.elem_size = es;
        d.mem_type = CL_MEM_OBJECT_IMAGE2D;
        struct himg_mem m = { host_ptr, NULL, 0 };
        for (int norm = 0; norm < 2; norm++)
            for (size_t am = 0; am < 5; am++)
                for (int lin = 0; lin < 2; lin++) {
                    if (!norm && am >= 3)
                        continue; /* repeat modes need normalized coordinates */
                    for (int i = 0; i < NC; i++)
                        for (int c = 0; c < 2; c++) {
                            float u = (float)(lcg(&seed) % 1000) / 1000.0f;
                            coords[i][c] = norm ? u * 3.4f - 1.2f : u * 11.0f - 1.5f;
                        }
                    REQUIRE(clEnqueueWriteBuffer(q, cb, CL_TRUE, 0, sizeof(coords), coords, 0, NULL,
                                                 NULL) == CL_SUCCESS);
                    cl_sampler s = sampler(norm ? CL_TRUE : CL_FALSE, modes[am],
                                           lin ? CL_FILTER_LINEAR : CL_FILTER_NEAREST);
                    arg(k, 0, sizeof(cl_mem), &img);
                    arg(k, 1, sizeof(cl_sampler), &s);
                    arg(k, 2, sizeof(cl_mem), &cb);
                    arg(k, 3, sizeof(cl_mem), &ob);
                    const size_t g = NC;
                    run(k, 1, &g);
                    float got[NC][4];
                    read_buffer(ob, sizeof(got), got);
                    uint32_t smp = (norm ? HCQCL_SAMPLER_NORMALIZED : 0) |
                                   (uint32_t)(modes[am] - CL_ADDRESS_NONE) * 2 |
                                   (lin ? HCQCL_SAMPLER_FILTER_LINEAR : HCQCL_SAMPLER_FILTER_NEAREST);
                    int bad = 0, first = -1;
                    for (int i = 0; i < NC; i++) {
                        float cc[3] = { coords[i][0], coords[i][1], 0 }, want[4];
                        himg_read_f(&m, &d, smp, 2, cc, 0, want);
                        if (memcmp(want, got[i], 16) != 0 && bad++ == 0)
                            first = i;
                    }
                    tested++;
                    if (bad) {
                        mismatched++;
                        float cc[3] = { coords[first][0], coords[first][1], 0 }, want[4];
                        himg_read_f(&m, &d, smp, 2, cc, 0, want);
                        check_report(false, "formats",
                                     "order 0x%x type 0x%x sampler 0x%x: %d of %d differ; (%g, %g): "
                                     "(%g, %g, %g, %g), the core (%g, %g, %g, %g)",
                                     order, type, smp, bad, NC, coords[first][0], coords[first][1],
                                     got[first][0], got[first][1], got[first][2], got[first][3],
                                     want[0], want[1], want[2], want[3]);
                    }
                    clReleaseSampler(s);
                }
        clReleaseMemObject(img);
        free(packed);
    }
    check_report(mismatched == 0 && tested > 0, "formats",
                 "%u formats, %u format/sampler runs of %d reads, %u differing from the core", n,
                 tested, NC, mismatched);
    clReleaseMemObject(cb);
    clReleaseMemObject(ob);
    clReleaseKernel(k);
    free(fmts);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "images.cl";
    cl_platform_id platform;
    cl_device_id dev;
    cltest_setup(&platform, &dev, &ctx, &q);
    size_t len = 0;
    char *src = test_file_read(path, &len);
    REQUIRE(src, "kernel source %s", path);
    prog = cltest_source_program(ctx, dev, src, len, CL_IMAGE_OPTIONS);
    check_arg_info();

    cl_bool images = CL_FALSE;
    REQUIRE(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL) ==
            CL_SUCCESS);
    if (!images) {
        printf("SKIP cl_image: the device reports no image support (HCQCL_IMAGES=%s)\n",
               getenv("HCQCL_IMAGES") ? getenv("HCQCL_IMAGES") : "unset");
        clReleaseProgram(prog);
        free(src);
        cltest_teardown(ctx, q);
        return check_done("cl_image") ? 1 : 77;
    }
    check_sample2d();
    check_fill2d();
    check_int();
    check_from_buffer();
    check_3d_arrays();
    check_query();
    check_formats();

    clReleaseProgram(prog);
    free(src);
    cltest_teardown(ctx, q);
    return check_done("cl_image");
}

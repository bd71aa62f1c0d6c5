/*
 * image_kernel_test.c — image and sampler kernel arguments through the
 * ICD loader (HCQCL_IMAGES=1), on image_args.cl built from source:
 * clSetKernelArg's rules for images (an image of the kernel's context, of
 * the declared type, whose flags allow the declared access) and samplers,
 * and launches. On the emulated device the kernels' host twins
 * (emu_image_kernels.c) read the descriptors the arguments point at and
 * copy an image's pixels into another, so the test sees the descriptor
 * addresses, the sampler bits and the launch's hold on a released image.
 * On a GPU (where image_args.cl's kernels only store a value) the
 * launches are checked to run.
 */
#include "../api_platform/cltest.h"

#include <stdint.h>
#include <string.h>

#ifndef IMAGE_ARGS_OPTIONS
#error "IMAGE_ARGS_OPTIONS: the build options image_args.cl was precompiled with"
#endif

static cl_mem image2d(cl_context ctx, cl_mem_flags flags, size_t w, size_t h, void *host)
{
    cl_image_desc d;
    memset(&d, 0, sizeof(d));
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = w;
    d.image_height = h;
    cl_int err = 0;
    cl_mem m = clCreateImage(ctx, flags, &(cl_image_format){CL_RGBA, CL_UNORM_INT8}, &d, host,
                             &err);
    REQUIRE(m && err == CL_SUCCESS, "image: %d", err);
    return m;
}

int main(void)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cltest_setup(&plat, &dev, &ctx, &q);
    const bool emu = cltest_emulated();
    size_t len = 0;
    char *src = test_file_read("image_args.cl", &len);
    REQUIRE(src, "image_args.cl beside the test");
    cl_program p = cltest_source_program(ctx, dev, src, len, IMAGE_ARGS_OPTIONS);
    free(src);
    cl_kernel k = cltest_kernel(p, "image_args");
    cl_int err = 0;

    /* What the program says about the arguments. */
    char type[64] = "";
    cl_kernel_arg_access_qualifier acc = 0;
    EXPECT_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(type), type, NULL));
    EXPECT(!strcmp(type, "image2d_t"), "arg 0 type %s", type);
    EXPECT_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(acc), &acc, NULL));
    EXPECT(acc == CL_KERNEL_ARG_ACCESS_READ_ONLY, "arg 0 access 0x%x", acc);
    EXPECT_OK(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(acc), &acc, NULL));
    EXPECT(acc == CL_KERNEL_ARG_ACCESS_WRITE_ONLY, "arg 3 access 0x%x", acc);
    EXPECT_OK(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_TYPE_NAME, sizeof(type), type, NULL));
    EXPECT(!strcmp(type, "sampler_t"), "arg 2 type %s", type);

    enum { W = 5, H = 3, N = 16 };
    uint8_t pixels[W * H * 4];
    for (size_t i = 0; i < sizeof(pixels); i++)
        pixels[i] = (uint8_t)(i * 7 + 1);
    cl_mem in = image2d(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, W, H, pixels);
    cl_mem outimg = image2d(ctx, CL_MEM_WRITE_ONLY, W + 2, H + 1, NULL);
    cl_mem rw = image2d(ctx, CL_MEM_READ_WRITE, W, H, NULL);
    cl_mem buf = clCreateBuffer(ctx, 0, N * 4, NULL, &err);
    REQUIRE(buf, "buffer");
    cl_sampler smp = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
    REQUIRE(smp, "sampler: %d", err);

    /* Not set yet. */
    size_t gws = 4;
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, NULL, 0, NULL, NULL),
               CL_INVALID_KERNEL_ARGS);

    /* Image arguments. */
    EXPECT_ERR(clSetKernelArg(k, 0, 4, &in), CL_INVALID_ARG_SIZE);
    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), NULL), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &buf), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &smp), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &outimg), CL_INVALID_ARG_VALUE);
    EXPECT_ERR(clSetKernelArg(k, 3, sizeof(cl_mem), &in), CL_INVALID_ARG_VALUE);
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &rw));
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(cl_mem), &rw));
    cl_image_desc d3;
    memset(&d3, 0, sizeof(d3));
    d3.image_type = CL_MEM_OBJECT_IMAGE3D;
    d3.image_width = 3;
    d3.image_height = 2;
    d3.image_depth = 4;
    uint8_t vox[3 * 2 * 4 * 4];
    memset(vox, 0x42, sizeof(vox));
    cl_mem vol = clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               &(cl_image_format){CL_RGBA, CL_UNORM_INT8}, &d3, vox, &err);
    REQUIRE(vol, "3D image: %d", err);
    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &vol), CL_INVALID_MEM_OBJECT);
    cl_context c2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(c2, "second context");
    cl_mem other = image2d(c2, 0, W, H, NULL);
    cl_sampler other_s = clCreateSampler(c2, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err);
    REQUIRE(other_s, "sampler of another context");
    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &other), CL_INVALID_MEM_OBJECT);
    /* Sampler arguments. */
    EXPECT_ERR(clSetKernelArg(k, 2, 4, &smp), CL_INVALID_ARG_SIZE);
    EXPECT_ERR(clSetKernelArg(k, 2, sizeof(cl_sampler), NULL), CL_INVALID_SAMPLER);
    EXPECT_ERR(clSetKernelArg(k, 2, sizeof(cl_sampler), &buf), CL_INVALID_SAMPLER);
    EXPECT_ERR(clSetKernelArg(k, 2, sizeof(cl_sampler), &other_s), CL_INVALID_SAMPLER);
    /* A buffer argument refuses an image. */
    EXPECT_ERR(clSetKernelArg(k, 1, sizeof(cl_mem), &in), CL_INVALID_MEM_OBJECT);

    /* Typedefs of the image and sampler types: the type names they were
     * declared with, and an image and a sampler all the same. */
    cl_kernel kt = cltest_kernel(p, "typedef_args");
    EXPECT_OK(clGetKernelArgInfo(kt, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(type), type, NULL));
    EXPECT(!strcmp(type, "img_t"), "typedef'd image: type %s", type);
    EXPECT_ERR(clSetKernelArg(kt, 0, sizeof(cl_mem), &buf), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(kt, 0, sizeof(cl_mem), &other), CL_INVALID_MEM_OBJECT);
    EXPECT_OK(clSetKernelArg(kt, 0, sizeof(cl_mem), &in));
    EXPECT_ERR(clSetKernelArg(kt, 1, sizeof(cl_sampler), NULL), CL_INVALID_SAMPLER);
    EXPECT_ERR(clSetKernelArg(kt, 1, sizeof(cl_sampler), &buf), CL_INVALID_SAMPLER);
    EXPECT_OK(clSetKernelArg(kt, 1, sizeof(cl_sampler), &smp));
    clReleaseKernel(kt);

    /* The launch: src released right after the enqueue, held by the
     * launch until it is done. */
    const cl_uint tag = 0xfeed;
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &in));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &buf));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(cl_sampler), &smp));
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(cl_mem), &outimg));
    EXPECT_OK(clSetKernelArg(k, 4, sizeof(tag), &tag));
    cl_uint zero[N];
    memset(zero, 0, sizeof(zero));
    EXPECT_OK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, sizeof(zero), zero, 0, NULL, NULL));
    uint8_t blank[(W + 2) * (H + 1) * 4];
    memset(blank, 0xaa, sizeof(blank));
    size_t o0[3] = {0, 0, 0}, rout[3] = {W + 2, H + 1, 1};
    EXPECT_OK(clEnqueueWriteImage(q, outimg, CL_TRUE, o0, rout, 0, 0, blank, 0, NULL, NULL));
    cl_event ev = NULL;
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, NULL, 0, NULL, &ev));
    EXPECT_OK(clReleaseMemObject(in));
    EXPECT_OK(clReleaseSampler(smp));
    EXPECT_OK(clWaitForEvents(1, &ev));
    clReleaseEvent(ev);
    cl_uint out[N];
    EXPECT_OK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
    if (emu) {
        EXPECT(out[0] == W && out[1] == H && out[2] == 4, "descriptor size %u x %u, elem %u",
               out[0], out[1], out[2]);
        EXPECT(out[3] == CL_RGBA && out[4] == CL_UNORM_INT8 && out[5] == CL_MEM_OBJECT_IMAGE2D,
               "descriptor format 0x%x 0x%x type 0x%x", out[3], out[4], out[5]);
        EXPECT(out[6] == 0x27, "sampler bits 0x%x (normalized, repeat, linear: 0x27)", out[6]);
        EXPECT(out[7] == tag && out[8] == (W + 2) * 4, "tag 0x%x, dst row pitch %u", out[7],
               out[8]);
        uint8_t got[(W + 2) * (H + 1) * 4];
        EXPECT_OK(clEnqueueReadImage(q, outimg, CL_TRUE, o0, rout, 0, 0, got, 0, NULL, NULL));
        bool ok = true;
        for (size_t y = 0; y < H + 1; y++)
            for (size_t x = 0; x < W + 2; x++)
                for (size_t c = 0; c < 4; c++) {
                    uint8_t want = (x < W && y < H) ? pixels[(y * W + x) * 4 + c] : 0xaa;
                    ok &= got[(y * (W + 2) + x) * 4 + c] == want;
                }
        EXPECT(ok, "the kernel copied src's pixels into dst through the descriptors");
    } else {
        for (size_t i = 0; i < gws; i++)
            EXPECT(out[i] == tag, "out[%zu] = 0x%x", i, out[i]);
    }

    /* A 3D image argument. */
    cl_kernel k3 = cltest_kernel(p, "image3d_arg");
    EXPECT_ERR(clSetKernelArg(k3, 0, sizeof(cl_mem), &rw), CL_INVALID_MEM_OBJECT);
    EXPECT_OK(clSetKernelArg(k3, 0, sizeof(cl_mem), &vol));
    EXPECT_OK(clSetKernelArg(k3, 1, sizeof(cl_mem), &buf));
    EXPECT_OK(clEnqueueNDRangeKernel(q, k3, 1, NULL, &gws, NULL, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
    if (emu)
        EXPECT(out[0] == 4 && out[1] == 24 && out[2] == 0x42 && out[3] == CL_MEM_OBJECT_IMAGE3D,
               "3D descriptor: depth %u, slice pitch %u, first byte 0x%x, type 0x%x", out[0],
               out[1], out[2], out[3]);
    else
        EXPECT(out[0] == 7, "out[0] = %u", out[0]);
    /* An image released while set (and no command holding it any more):
     * the launch refuses it. */
    EXPECT_OK(clReleaseMemObject(vol));
    EXPECT_OK(clFinish(q));
    EXPECT_ERR(clEnqueueNDRangeKernel(q, k3, 1, NULL, &gws, NULL, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);

    clReleaseKernel(k3);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(outimg);
    clReleaseMemObject(rw);
    clReleaseMemObject(buf);
    clReleaseMemObject(other);
    clReleaseSampler(other_s);
    clReleaseContext(c2);
    cltest_teardown(ctx, q);
    return cltest_result("api_image_kernel");
}

/*
 * image_test.c — images through the ICD loader (HCQCL_IMAGES=1): the
 * device's image limits, the supported formats, every creation rule and
 * error, each image type with each kind of store, the queries, and
 * read / write / copy / fill / map round trips checked byte by byte
 * against a host model of each image (several formats, regions with
 * offsets, 1D and 2D arrays, 3D), copies between images and buffers,
 * USE_HOST_PTR images with padded pitches (maps return host_ptr-based
 * pointers), the pitches the queries report, 2D images made from another
 * (an sRGB view), maps of rectangles that invalidate only their pixels,
 * 1D image buffers aliasing their buffer, events and wait
 * lists, the transfer errors, and samplers.
 *
 * Run with HCQCL_IMAGES=0 (test api_image_off) it checks instead that
 * the device has no images: limits 0, no formats, and every image and
 * sampler entry point refusing as before images existed.
 */
#include "../api_platform/cltest.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;

static uint32_t rng = 12345;
static uint8_t rnd8(void)
{
    rng = rng * 1103515245u + 12345u;
    return (uint8_t)(rng >> 16);
}
static void fill_random(void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((uint8_t *)p)[i] = rnd8();
}

static cl_mem make_image(cl_mem_flags flags, cl_channel_order o, cl_channel_type t,
                         const cl_image_desc *d, void *host, cl_int want)
{
    cl_image_format f = {o, t};
    cl_int err = 12345;
    cl_mem m = clCreateImage(ctx, flags, &f, d, host, &err);
    EXPECT(err == want, "image type 0x%x format (0x%x, 0x%x) flags 0x%llx: %d, expected %d",
           d ? d->image_type : 0, o, t, (unsigned long long)flags, err, want);
    EXPECT(!m == (want != CL_SUCCESS), "handle %p for %d", (void *)m, err);
    if (m && want != CL_SUCCESS)
        clReleaseMemObject(m);
    return want == CL_SUCCESS ? m : NULL;
}

/* ---- Images off ------------------------------------------------------ */

static void test_images_off(void)
{
    cl_bool support = CL_TRUE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(support), &support, NULL));
    EXPECT(support == CL_FALSE, "image support with HCQCL_IMAGES=0");
    const cl_device_info uints[] = {CL_DEVICE_MAX_READ_IMAGE_ARGS, CL_DEVICE_MAX_WRITE_IMAGE_ARGS,
                                    CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, CL_DEVICE_MAX_SAMPLERS,
                                    CL_DEVICE_IMAGE_PITCH_ALIGNMENT,
                                    CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT};
    for (size_t i = 0; i < sizeof(uints) / sizeof(uints[0]); i++) {
        cl_uint v = 99;
        EXPECT_OK(clGetDeviceInfo(dev, uints[i], sizeof(v), &v, NULL));
        EXPECT(v == 0, "param 0x%x = %u with images off", uints[i], v);
    }
    const cl_device_info sizes[] = {CL_DEVICE_IMAGE2D_MAX_WIDTH, CL_DEVICE_IMAGE2D_MAX_HEIGHT,
                                    CL_DEVICE_IMAGE3D_MAX_WIDTH, CL_DEVICE_IMAGE3D_MAX_HEIGHT,
                                    CL_DEVICE_IMAGE3D_MAX_DEPTH, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
                                    CL_DEVICE_IMAGE_MAX_ARRAY_SIZE};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t v = 99;
        EXPECT_OK(clGetDeviceInfo(dev, sizes[i], sizeof(v), &v, NULL));
        EXPECT(v == 0, "param 0x%x = %zu with images off", sizes[i], v);
    }
    char ext[4096] = "";
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL));
    EXPECT(!strstr(ext, "cl_khr_3d_image_writes"), "3d_image_writes offered: %s", ext);
    EXPECT(!strstr(ext, "cl_khr_image2d_from_buffer"), "image2d_from_buffer offered: %s", ext);
    EXPECT_OK(clGetPlatformInfo(plat, CL_PLATFORM_EXTENSIONS, sizeof(ext), ext, NULL));
    EXPECT(!strstr(ext, "cl_khr_3d_image_writes"), "platform: %s", ext);
    cl_name_version feats[16];
    size_t n = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_FEATURES, sizeof(feats), feats, &n));
    for (size_t i = 0; i < n / sizeof(feats[0]); i++)
        EXPECT(!strstr(feats[i].name, "image"), "feature %s with images off", feats[i].name);
    cl_uint nf = 99;
    EXPECT_OK(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL,
                                         &nf));
    EXPECT(nf == 0, "%u formats with images off", nf);

    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_OPERATION);
    cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
    cl_int err = 0;
    EXPECT(!clCreateImage2D(ctx, 0, &f, 4, 4, 0, NULL, &err), "2D image");
    EXPECT(err == CL_INVALID_OPERATION, "clCreateImage2D: %d", err);
    EXPECT(!clCreateImage3D(ctx, 0, &f, 4, 4, 4, 0, 0, NULL, &err), "3D image");
    EXPECT(err == CL_INVALID_OPERATION, "clCreateImage3D: %d", err);
    EXPECT(!clCreateImageWithProperties(ctx, NULL, 0, &f, &d, NULL, &err), "image");
    EXPECT(err == CL_INVALID_OPERATION, "clCreateImageWithProperties: %d", err);
    EXPECT(!clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err), "sampler");
    EXPECT(err == CL_INVALID_OPERATION, "clCreateSampler: %d", err);
    EXPECT(!clCreateSamplerWithProperties(ctx, NULL, &err), "sampler");
    EXPECT(err == CL_INVALID_OPERATION, "clCreateSamplerWithProperties: %d", err);
    cl_mem buf = clCreateBuffer(ctx, 0, 256, NULL, &err);
    REQUIRE(buf, "buffer");
    size_t origin[3] = {0, 0, 0}, region[3] = {1, 1, 1}, rp = 0;
    uint8_t host[64];
    EXPECT_ERR(clEnqueueReadImage(queue, buf, CL_TRUE, origin, region, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    EXPECT_ERR(clEnqueueWriteImage(queue, buf, CL_TRUE, origin, region, 0, 0, host, 0, NULL,
                                   NULL),
               CL_INVALID_OPERATION);
    EXPECT_ERR(clEnqueueCopyImage(queue, buf, buf, origin, origin, region, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    EXPECT_ERR(clEnqueueCopyImageToBuffer(queue, buf, buf, origin, region, 0, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    EXPECT_ERR(clEnqueueCopyBufferToImage(queue, buf, buf, 0, origin, region, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    const float color[4] = {0};
    EXPECT_ERR(clEnqueueFillImage(queue, buf, color, origin, region, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    EXPECT(!clEnqueueMapImage(queue, buf, CL_TRUE, CL_MAP_READ, origin, region, &rp, NULL, 0,
                              NULL, NULL, &err),
           "map");
    EXPECT(err == CL_INVALID_OPERATION, "clEnqueueMapImage: %d", err);
    EXPECT_ERR(clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof(rp), &rp, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clRetainSampler((cl_sampler)buf), CL_INVALID_SAMPLER);
    EXPECT_ERR(clReleaseSampler((cl_sampler)buf), CL_INVALID_SAMPLER);
    clReleaseMemObject(buf);
}

/* ---- Device and formats ---------------------------------------------- */

static void test_device_info(void)
{
    cl_bool support = CL_FALSE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(support), &support, NULL));
    EXPECT(support == CL_TRUE, "no image support with images on");
    const struct {
        cl_device_info p;
        cl_uint v;
    } uints[] = {{CL_DEVICE_MAX_READ_IMAGE_ARGS, 256}, {CL_DEVICE_MAX_WRITE_IMAGE_ARGS, 64},
                 {CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, 0}, {CL_DEVICE_MAX_SAMPLERS, 32},
                 {CL_DEVICE_IMAGE_PITCH_ALIGNMENT, 1}, {CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, 1}};
    for (size_t i = 0; i < sizeof(uints) / sizeof(uints[0]); i++) {
        cl_uint v = 99;
        EXPECT_OK(clGetDeviceInfo(dev, uints[i].p, sizeof(v), &v, NULL));
        EXPECT(v == uints[i].v, "param 0x%x = %u, expected %u", uints[i].p, v, uints[i].v);
    }
    const struct {
        cl_device_info p;
        size_t v;
    } sizes[] = {{CL_DEVICE_IMAGE2D_MAX_WIDTH, 32768}, {CL_DEVICE_IMAGE2D_MAX_HEIGHT, 32768},
                 {CL_DEVICE_IMAGE3D_MAX_WIDTH, 16384}, {CL_DEVICE_IMAGE3D_MAX_HEIGHT, 16384},
                 {CL_DEVICE_IMAGE3D_MAX_DEPTH, 16384}, {CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, 268435456},
                 {CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, 2048}, {CL_DEVICE_MAX_PARAMETER_SIZE, 32764}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t v = 99;
        EXPECT_OK(clGetDeviceInfo(dev, sizes[i].p, sizeof(v), &v, NULL));
        EXPECT(v == sizes[i].v, "param 0x%x = %zu, expected %zu", sizes[i].p, v, sizes[i].v);
    }
    EXPECT(cltest_device_lists(dev, "cl_khr_3d_image_writes", 0), "no 3d_image_writes");
    EXPECT(cltest_device_lists(dev, "cl_khr_icd", 0), "no cl_khr_icd");
    char ext[4096] = "";
    EXPECT_OK(clGetPlatformInfo(plat, CL_PLATFORM_EXTENSIONS, sizeof(ext), ext, NULL));
    EXPECT(strstr(ext, "cl_khr_3d_image_writes"), "platform: %s", ext);
    size_t n = 0;
    cl_name_version feats[16];
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_FEATURES, sizeof(feats), feats, &n));
    bool images = false, writes3d = false, fp64 = false;
    for (size_t i = 0; i < n / sizeof(feats[0]); i++) {
        images |= !strcmp(feats[i].name, "__opencl_c_images");
        writes3d |= !strcmp(feats[i].name, "__opencl_c_3d_image_writes");
        fp64 |= !strcmp(feats[i].name, "__opencl_c_fp64");
    }
    EXPECT(images && writes3d && fp64, "features: images %d, 3d writes %d, fp64 %d", images,
           writes3d, fp64);
}

static bool format_listed(const cl_image_format *list, cl_uint n, cl_channel_order o,
                          cl_channel_type t)
{
    for (cl_uint i = 0; i < n; i++)
        if (list[i].image_channel_order == o && list[i].image_channel_data_type == t)
            return true;
    return false;
}

static void test_formats(void)
{
    cl_image_format list[128];
    cl_uint n = 0;
    const cl_mem_object_type types[] = {CL_MEM_OBJECT_IMAGE1D,       CL_MEM_OBJECT_IMAGE1D_BUFFER,
                                        CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D,
                                        CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};
    for (size_t t = 0; t < 6; t++) {
        EXPECT_OK(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, types[t], 128, list, &n));
        EXPECT(n == 80, "type 0x%x: %u read-write formats", types[t], n);
        EXPECT(!format_listed(list, n, CL_sRGBA, CL_UNORM_INT8), "sRGBA read-write");
        EXPECT_OK(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, types[t], 128, list, &n));
        EXPECT(n == 81, "type 0x%x: %u read-only formats", types[t], n);
        EXPECT(format_listed(list, n, CL_sRGBA, CL_UNORM_INT8), "sRGBA read-only");
    }
    EXPECT_OK(clGetSupportedImageFormats(ctx, CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D, 128, list,
                                         &n));
    EXPECT(n == 80, "%u write-only formats", n);
    EXPECT(format_listed(list, n, CL_RGBA, CL_FLOAT) && format_listed(list, n, CL_RGBA, CL_HALF_FLOAT) &&
               format_listed(list, n, CL_BGRA, CL_UNORM_INT8) &&
               format_listed(list, n, CL_ARGB, CL_SIGNED_INT8) &&
               format_listed(list, n, CL_R, CL_UNSIGNED_INT32) &&
               format_listed(list, n, CL_A, CL_SNORM_INT16) &&
               format_listed(list, n, CL_RA, CL_UNORM_INT16) &&
               format_listed(list, n, CL_INTENSITY, CL_FLOAT) &&
               format_listed(list, n, CL_LUMINANCE, CL_SNORM_INT8),
           "a required format is missing");
    EXPECT(!format_listed(list, n, CL_BGRA, CL_FLOAT) && !format_listed(list, n, CL_INTENSITY,
                                                                           CL_SIGNED_INT8),
           "a format outside the table is listed");
    /* A short list gets the first ones; the count is still all. */
    cl_image_format few[3];
    EXPECT_OK(clGetSupportedImageFormats(ctx, 0, CL_MEM_OBJECT_IMAGE2D, 3, few, &n));
    EXPECT(n == 80 && few[0].image_channel_order == CL_R, "short list: %u", n);
    /* Errors. */
    EXPECT_ERR(clGetSupportedImageFormats(ctx, 0, CL_MEM_OBJECT_BUFFER, 0, NULL, &n),
               CL_INVALID_VALUE);
    EXPECT_ERR(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                                          CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n),
               CL_INVALID_VALUE);
    EXPECT_ERR(clGetSupportedImageFormats(ctx, 0, CL_MEM_OBJECT_IMAGE2D, 0, list, &n),
               CL_INVALID_VALUE);
    EXPECT_ERR(clGetSupportedImageFormats((cl_context)queue, 0, CL_MEM_OBJECT_IMAGE2D, 0, NULL,
                                          &n),
               CL_INVALID_CONTEXT);
}

/* ---- Creation --------------------------------------------------------- */

static void test_create_errors(void)
{
    uint8_t host[4096];
    cl_int err = 0;
    cl_image_desc d2 = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 8, 4, 0, 0);
    cl_image_format f = {CL_RGBA, CL_UNORM_INT8};

    EXPECT(!clCreateImage((cl_context)queue, 0, &f, &d2, NULL, &err), "queue as context");
    EXPECT(err == CL_INVALID_CONTEXT, "queue as context: %d", err);
    /* Formats. */
    EXPECT(!clCreateImage(ctx, 0, NULL, &d2, NULL, &err), "NULL format");
    EXPECT(err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "NULL format: %d", err);
    make_image(0, CL_RGB, CL_FLOAT, &d2, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    make_image(0, CL_BGRA, CL_FLOAT, &d2, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    make_image(0, CL_INTENSITY, CL_SIGNED_INT8, &d2, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    make_image(0, CL_RGBA, CL_UNORM_SHORT_565, &d2, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    make_image(0, 0x1234, CL_FLOAT, &d2, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    make_image(0, CL_RGBA, 0x1234, &d2, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    make_image(0, CL_ABGR, CL_UNORM_INT8, &d2, NULL, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    make_image(0, CL_RGB, CL_UNORM_SHORT_565, &d2, NULL, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    make_image(0, CL_RGBA, CL_UNORM_INT_101010_2, &d2, NULL, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    make_image(0, CL_sRGBA, CL_UNORM_INT8, &d2, NULL, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    make_image(CL_MEM_WRITE_ONLY, CL_sRGBA, CL_UNORM_INT8, &d2, NULL, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    cl_mem srgb = make_image(CL_MEM_READ_ONLY, CL_sRGBA, CL_UNORM_INT8, &d2, NULL, CL_SUCCESS);
    if (srgb)
        clReleaseMemObject(srgb);
    /* Descriptors. */
    EXPECT(!clCreateImage(ctx, 0, &f, NULL, NULL, &err), "NULL desc");
    EXPECT(err == CL_INVALID_IMAGE_DESCRIPTOR, "NULL desc: %d", err);
    cl_image_desc d = d2;
    d.image_type = CL_MEM_OBJECT_BUFFER;
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d = d2;
    d.image_width = 0;
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d = d2;
    d.image_height = 0;
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 0, 0);
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 0);
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d = d2;
    d.num_mip_levels = 1;
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d = d2;
    d.num_samples = 2;
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    cl_mem buf = clCreateBuffer(ctx, 0, 1024, NULL, &err);
    REQUIRE(buf, "buffer");
    d = d2;
    d.buffer = buf; /* cl_khr_image2d_from_buffer: from_buffer_test.c */
    cl_mem b2d = make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_SUCCESS);
    if (b2d)
        clReleaseMemObject(b2d);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0);
    d.buffer = buf;
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 0, 0, 0);
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR); /* no buffer */
    /* Sizes. */
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 32769, 1, 0, 0);
    make_image(0, CL_R, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_SIZE);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 1, 32769, 0, 0);
    make_image(0, CL_R, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_SIZE);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE1D, 32769, 0, 0, 0);
    make_image(0, CL_R, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_SIZE);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE3D, 2, 2, 16385, 0);
    make_image(0, CL_R, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_SIZE);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 2, 2, 0, 2049);
    make_image(0, CL_R, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_SIZE);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 257, 0, 0, 0);
    d.buffer = buf; /* 257 x 4 bytes > 1024 */
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_SIZE);
    /* Pitches. */
    d = d2;
    d.image_row_pitch = 64;
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d.image_row_pitch = 28; /* < 8 x 4 */
    make_image(CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d, host, CL_INVALID_IMAGE_DESCRIPTOR);
    d.image_row_pitch = 34; /* not a multiple of 4 */
    make_image(CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d, host, CL_INVALID_IMAGE_DESCRIPTOR);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE3D, 8, 4, 2, 0);
    d.image_slice_pitch = 64; /* < 32 x 4 */
    make_image(CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d, host, CL_INVALID_IMAGE_DESCRIPTOR);
    d.image_row_pitch = 40;
    d.image_slice_pitch = 180; /* not a multiple of 40 */
    make_image(CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d, host, CL_INVALID_IMAGE_DESCRIPTOR);
    /* Flags and host pointers. */
    make_image(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, CL_RGBA, CL_UNORM_INT8, &d2, NULL,
               CL_INVALID_VALUE);
    make_image((cl_mem_flags)1 << 40, CL_RGBA, CL_UNORM_INT8, &d2, NULL, CL_INVALID_VALUE);
    make_image(CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d2, NULL, CL_INVALID_HOST_PTR);
    make_image(CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d2, NULL, CL_INVALID_HOST_PTR);
    make_image(0, CL_RGBA, CL_UNORM_INT8, &d2, host, CL_INVALID_HOST_PTR);
    /* An image of a buffer: the buffer's flags rules. */
    cl_mem ro = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 1024, NULL, &err);
    REQUIRE(ro, "buffer");
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 0, 0, 0);
    d.buffer = ro;
    make_image(CL_MEM_WRITE_ONLY, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_VALUE);
    make_image(CL_MEM_READ_WRITE, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_VALUE);
    make_image(CL_MEM_HOST_READ_ONLY, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_VALUE);
    make_image(CL_MEM_ALLOC_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_INVALID_VALUE);
    cl_mem img = make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_SUCCESS);
    if (img) {
        cl_mem_flags fl = 0;
        EXPECT_OK(clGetMemObjectInfo(img, CL_MEM_FLAGS, sizeof(fl), &fl, NULL));
        EXPECT(fl == (CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS), "inherited flags 0x%llx",
               (unsigned long long)fl);
        /* An image is no buffer for a 1D image buffer. */
        cl_image_desc dd = cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 4, 0, 0, 0);
        dd.buffer = img;
        make_image(0, CL_RGBA, CL_UNORM_INT8, &dd, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
        clReleaseMemObject(img);
    }
    clReleaseMemObject(ro);
    /* Properties: none supported. */
    cl_mem_properties props[] = {0x1234, 1, 0}, empty[] = {0};
    EXPECT(!clCreateImageWithProperties(ctx, props, 0, &f, &d2, NULL, &err), "property");
    EXPECT(err == CL_INVALID_PROPERTY, "unknown property: %d", err);
    img = clCreateImageWithProperties(ctx, empty, 0, &f, &d2, NULL, &err);
    EXPECT(img && err == CL_SUCCESS, "empty properties: %d", err);
    if (img) {
        size_t n = 99;
        EXPECT_OK(clGetMemObjectInfo(img, CL_MEM_PROPERTIES, 0, NULL, &n));
        EXPECT(n == sizeof(cl_mem_properties), "CL_MEM_PROPERTIES: %zu bytes", n);
        clReleaseMemObject(img);
    }
    /* The 1.1 entry points. */
    EXPECT(!clCreateImage2D(ctx, 0, &f, 0, 4, 0, NULL, &err), "2D width 0");
    EXPECT(err == CL_INVALID_IMAGE_SIZE, "clCreateImage2D width 0: %d", err);
    EXPECT(!clCreateImage3D(ctx, 0, &f, 4, 4, 1, 0, 0, NULL, &err), "3D depth 1");
    EXPECT(err == CL_INVALID_IMAGE_SIZE, "clCreateImage3D depth 1: %d", err);
    EXPECT(!clCreateImage2D(ctx, 0, NULL, 4, 4, 0, NULL, &err), "2D NULL format");
    EXPECT(err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "clCreateImage2D NULL format: %d", err);
    img = clCreateImage2D(ctx, 0, &f, 5, 3, 0, NULL, &err);
    EXPECT(img && err == CL_SUCCESS, "clCreateImage2D: %d", err);
    cl_mem img3 = clCreateImage3D(ctx, 0, &f, 5, 3, 2, 0, 0, NULL, &err);
    EXPECT(img3 && err == CL_SUCCESS, "clCreateImage3D: %d", err);
    cl_mem_object_type t = 0;
    if (img) {
        EXPECT_OK(clGetMemObjectInfo(img, CL_MEM_TYPE, sizeof(t), &t, NULL));
        EXPECT(t == CL_MEM_OBJECT_IMAGE2D, "type 0x%x", t);
        clReleaseMemObject(img);
    }
    if (img3) {
        EXPECT_OK(clGetMemObjectInfo(img3, CL_MEM_TYPE, sizeof(t), &t, NULL));
        EXPECT(t == CL_MEM_OBJECT_IMAGE3D, "type 0x%x", t);
        clReleaseMemObject(img3);
    }
    clReleaseMemObject(buf);
}

/* Queries of every image type, and buffer / image entry points refusing
 * each other's objects. */
static void test_info(void)
{
    cl_int err = 0;
    cl_mem buf = clCreateBuffer(ctx, 0, 4096, NULL, &err);
    REQUIRE(buf, "buffer");
    const struct {
        cl_image_desc d;
        size_t elem, row, slice, w, h, depth, arr, size;
    } cases[] = {
        {cltest_image_desc(CL_MEM_OBJECT_IMAGE1D, 7, 9, 9, 9), 4, 28, 0, 7, 0, 0, 0, 28},
        {cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 7, 9, 9, 3), 4, 28, 28, 7, 0, 0, 3, 84},
        {cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 7, 5, 9, 9), 4, 28, 0, 7, 5, 0, 0, 140},
        {cltest_image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 7, 5, 9, 2), 4, 28, 140, 7, 5, 0, 2, 280},
        {cltest_image_desc(CL_MEM_OBJECT_IMAGE3D, 7, 5, 3, 9), 4, 28, 140, 7, 5, 3, 0, 420},
        {cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 100, 9, 9, 9), 4, 400, 0, 100, 0, 0, 0, 400},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cl_image_desc d = cases[i].d;
        if (d.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER)
            d.buffer = buf;
        cl_mem m = make_image(CL_MEM_READ_WRITE, CL_RGBA, CL_SIGNED_INT8, &d, NULL, CL_SUCCESS);
        if (!m)
            continue;
        size_t v = 0;
        cl_image_format f = {0, 0};
        EXPECT_OK(clGetImageInfo(m, CL_IMAGE_FORMAT, sizeof(f), &f, NULL));
        EXPECT(f.image_channel_order == CL_RGBA && f.image_channel_data_type == CL_SIGNED_INT8,
               "format");
#define CHECK_SIZE(param, want)                                                           \
    do {                                                                                  \
        v = 12345;                                                                        \
        EXPECT_OK(clGetImageInfo(m, param, sizeof(v), &v, NULL));                         \
        EXPECT(v == (want), "case %zu: " #param " = %zu, expected %zu", i, v, (size_t)(want)); \
    } while (0)
        CHECK_SIZE(CL_IMAGE_ELEMENT_SIZE, cases[i].elem);
        CHECK_SIZE(CL_IMAGE_ROW_PITCH, cases[i].row);
        CHECK_SIZE(CL_IMAGE_SLICE_PITCH, cases[i].slice);
        CHECK_SIZE(CL_IMAGE_WIDTH, cases[i].w);
        CHECK_SIZE(CL_IMAGE_HEIGHT, cases[i].h);
        CHECK_SIZE(CL_IMAGE_DEPTH, cases[i].depth);
        CHECK_SIZE(CL_IMAGE_ARRAY_SIZE, cases[i].arr);
#undef CHECK_SIZE
        size_t sz = 0;
        EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(sz), &sz, NULL));
        EXPECT(sz == cases[i].size, "case %zu: CL_MEM_SIZE %zu", i, sz);
        cl_mem_object_type t = 0;
        EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof(t), &t, NULL));
        EXPECT(t == d.image_type, "case %zu: CL_MEM_TYPE 0x%x", i, t);
        cl_mem assoc = (cl_mem)1, ib = (cl_mem)1;
        EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL));
        EXPECT_OK(clGetImageInfo(m, CL_IMAGE_BUFFER, sizeof(ib), &ib, NULL));
        cl_mem want = d.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? buf : NULL;
        EXPECT(assoc == want && ib == want, "case %zu: associated %p, image buffer %p", i,
               (void *)assoc, (void *)ib);
        cl_uint u = 9;
        EXPECT_OK(clGetImageInfo(m, CL_IMAGE_NUM_MIP_LEVELS, sizeof(u), &u, NULL));
        EXPECT(u == 0, "mip levels %u", u);
        EXPECT_OK(clGetImageInfo(m, CL_IMAGE_NUM_SAMPLES, sizeof(u), &u, NULL));
        EXPECT(u == 0, "samples %u", u);
        EXPECT_ERR(clGetImageInfo(m, 0x1234, sizeof(v), &v, NULL), CL_INVALID_VALUE);
        EXPECT_ERR(clGetImageInfo(m, CL_IMAGE_WIDTH, 1, &v, NULL), CL_INVALID_VALUE);
        /* Buffer entry points refuse images. */
        uint8_t host[64];
        EXPECT_ERR(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 4, host, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
        EXPECT_ERR(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 4, host, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
        EXPECT_ERR(clEnqueueCopyBuffer(queue, m, buf, 0, 0, 4, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
        EXPECT_ERR(clEnqueueFillBuffer(queue, m, host, 4, 0, 4, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
        EXPECT(!clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err),
               "map buffer of an image");
        EXPECT(err == CL_INVALID_MEM_OBJECT, "clEnqueueMapBuffer of an image: %d", err);
        cl_buffer_region r = {0, 4};
        EXPECT(!clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err), "sub of image");
        EXPECT(err == CL_INVALID_MEM_OBJECT, "clCreateSubBuffer of an image: %d", err);
        EXPECT_OK(clReleaseMemObject(m));
    }
    /* Image entry points refuse buffers. */
    size_t origin[3] = {0, 0, 0}, region[3] = {1, 1, 1}, v;
    uint8_t host[64];
    EXPECT_ERR(clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof(v), &v, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clEnqueueReadImage(queue, buf, CL_TRUE, origin, region, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
    const float color[4] = {0};
    EXPECT_ERR(clEnqueueFillImage(queue, buf, color, origin, region, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
    /* The image of a buffer keeps it: released first, the buffer lives on. */
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 0, 0, 0);
    d.buffer = buf;
    cl_mem m = make_image(0, CL_R, CL_FLOAT, &d, NULL, CL_SUCCESS);
    cl_uint refs = 0;
    EXPECT_OK(clGetMemObjectInfo(buf, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT(refs == 2, "buffer references with an image of it: %u", refs);
    EXPECT_OK(clReleaseMemObject(buf));
    if (m) {
        float in[16], out[16];
        for (int i = 0; i < 16; i++)
            in[i] = (float)i * 1.5f;
        size_t reg[3] = {16, 1, 1};
        EXPECT_OK(clEnqueueWriteImage(queue, m, CL_TRUE, origin, reg, 0, 0, in, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadImage(queue, m, CL_TRUE, origin, reg, 0, 0, out, 0, NULL, NULL));
        EXPECT(!memcmp(in, out, sizeof(in)), "1D image buffer after its buffer's release");
        EXPECT_OK(clReleaseMemObject(m));
    }
}

/* ---- Round trips against a host model -------------------------------- */

/* An image and its expected contents: pixels at (x, y, z) with y the
 * 1D array layer, tight. */
struct model {
    cl_mem m;
    size_t ext[3], elem;
    uint8_t *px;
};

static size_t model_at(const struct model *md, size_t x, size_t y, size_t z)
{
    return ((z * md->ext[1] + y) * md->ext[0] + x) * md->elem;
}

static void model_extent(cl_mem_object_type t, size_t w, size_t h, size_t dep, size_t arr,
                         size_t ext[3])
{
    ext[0] = w;
    ext[1] = ext[2] = 1;
    if (t == CL_MEM_OBJECT_IMAGE1D_ARRAY)
        ext[1] = arr;
    if (t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D)
        ext[1] = h;
    if (t == CL_MEM_OBJECT_IMAGE2D_ARRAY)
        ext[2] = arr;
    if (t == CL_MEM_OBJECT_IMAGE3D)
        ext[2] = dep;
}

/* The whole image, read back, equals the model. */
static void model_check(const struct model *md, const char *what)
{
    const size_t n = md->ext[0] * md->ext[1] * md->ext[2] * md->elem;
    uint8_t *got = malloc(n);
    REQUIRE(got, "host memory");
    memset(got, 0xee, n);
    size_t origin[3] = {0, 0, 0};
    EXPECT_OK(clEnqueueReadImage(queue, md->m, CL_TRUE, origin, md->ext, 0, 0, got, 0, NULL,
                                 NULL));
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++)
        if (got[i] != md->px[i])
            bad = i;
    EXPECT(bad == n, "%s: byte %zu (pixel %zu) is 0x%02x, expected 0x%02x", what, bad,
           bad / md->elem, bad < n ? got[bad] : 0, bad < n ? md->px[bad] : 0);
    free(got);
}

/* Copy a region between two models (or within one). */
static void model_copy(struct model *dst, const size_t *dorg, const struct model *src,
                       const size_t *sorg, const size_t *region)
{
    const size_t row = region[0] * src->elem;
    uint8_t *tmp = malloc(row * region[1] * region[2]);
    REQUIRE(tmp, "host memory");
    for (size_t z = 0; z < region[2]; z++)
        for (size_t y = 0; y < region[1]; y++)
            memcpy(tmp + (z * region[1] + y) * row,
                   src->px + model_at(src, sorg[0], sorg[1] + y, sorg[2] + z), row);
    for (size_t z = 0; z < region[2]; z++)
        for (size_t y = 0; y < region[1]; y++)
            memcpy(dst->px + model_at(dst, dorg[0], dorg[1] + y, dorg[2] + z),
                   tmp + (z * region[1] + y) * row, row);
    free(tmp);
}

struct fmt_case {
    const char *name;
    cl_channel_order order;
    cl_channel_type type;
    size_t elem;
    cl_mem_object_type itype;
    size_t w, h, d, arr;
    uint32_t color[4];      /* float, int or uint bits */
    uint8_t pixel[16];      /* what the color makes */
};

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void round_trip(const struct fmt_case *c, cl_mem_flags kind)
{
    char what[160];
    cl_int err = 0;
    struct model md = {.elem = c->elem};
    model_extent(c->itype, c->w, c->h, c->d, c->arr, md.ext);
    const size_t npx = md.ext[0] * md.ext[1] * md.ext[2], n = npx * c->elem;
    md.px = malloc(n);
    REQUIRE(md.px, "host memory");
    fill_random(md.px, n);

    /* The initial contents: from a host copy with padded pitches (the
     * store repacks them), or written after creation. */
    cl_image_desc d = cltest_image_desc(c->itype, c->w, c->h, c->d, c->arr);
    cl_mem buf = NULL;
    const size_t row = c->w * c->elem + 3 * c->elem;
    const size_t layer = c->itype == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 2 * row
                                                                 : row * md.ext[1] + row;
    uint8_t *host = NULL;
    if (c->itype == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        buf = clCreateBuffer(ctx, kind == CL_MEM_COPY_HOST_PTR ? 0 : kind, n + 64, NULL, &err);
        REQUIRE(buf, "buffer");
        d.buffer = buf;
    } else if (kind == CL_MEM_COPY_HOST_PTR || kind == CL_MEM_USE_HOST_PTR) {
        const bool rows = c->itype != CL_MEM_OBJECT_IMAGE1D;
        const bool slices = c->itype == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
                            c->itype == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                            c->itype == CL_MEM_OBJECT_IMAGE3D;
        d.image_row_pitch = rows ? row : 0;
        d.image_slice_pitch = slices ? layer : 0;
        const size_t rp = rows ? row : c->w * c->elem;
        const size_t sp = slices ? layer : rp * md.ext[1];
        const size_t ystep = c->itype == CL_MEM_OBJECT_IMAGE1D_ARRAY ? sp : rp;
        const size_t total = sp * (c->itype == CL_MEM_OBJECT_IMAGE1D_ARRAY ? md.ext[1] : md.ext[2]);
        host = aligned_alloc(4096, (total + 4095) & ~(size_t)4095);
        REQUIRE(host, "host memory");
        memset(host, 0x5a, total);
        for (size_t z = 0; z < md.ext[2]; z++)
            for (size_t y = 0; y < md.ext[1]; y++)
                memcpy(host + z * (c->itype == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : sp) + y * ystep,
                       md.px + model_at(&md, 0, y, z), c->w * c->elem);
    }
    md.m = make_image(c->itype == CL_MEM_OBJECT_IMAGE1D_BUFFER ? 0 : kind, c->order, c->type, &d,
                      host, CL_SUCCESS);
    if (buf)
        clReleaseMemObject(buf);
    if (!md.m) {
        free(md.px);
        free(host);
        return;
    }
    size_t origin0[3] = {0, 0, 0};
    if (!host)
        EXPECT_OK(clEnqueueWriteImage(queue, md.m, CL_TRUE, origin0, md.ext, 0, 0, md.px, 0, NULL,
                                      NULL));
    snprintf(what, sizeof(what), "%s flags 0x%llx: initial", c->name, (unsigned long long)kind);
    model_check(&md, what);

    /* A sub-region written from a host rectangle with padded pitches. */
    size_t org[3], reg[3];
    for (int i = 0; i < 3; i++) {
        org[i] = md.ext[i] > 2 ? 1 : 0;
        reg[i] = md.ext[i] > 2 ? md.ext[i] - 2 : md.ext[i];
    }
    const bool arr1 = c->itype == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    const bool flat = c->itype == CL_MEM_OBJECT_IMAGE1D || c->itype == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                      c->itype == CL_MEM_OBJECT_IMAGE2D;
    const size_t hrow = reg[0] * c->elem + 5;
    const size_t hslice = flat ? 0 : arr1 ? hrow + 7 : hrow * reg[1] + 11;
    const size_t hy = arr1 ? hslice : hrow, hz = flat ? hrow * reg[1] : hslice;
    const size_t hsize = hz * reg[2] + hy * reg[1] + hrow;
    uint8_t *h = malloc(hsize);
    REQUIRE(h, "host memory");
    fill_random(h, hsize);
    EXPECT_OK(clEnqueueWriteImage(queue, md.m, CL_TRUE, org, reg, hrow, hslice, h, 0, NULL, NULL));
    for (size_t z = 0; z < reg[2]; z++)
        for (size_t y = 0; y < reg[1]; y++)
            memcpy(md.px + model_at(&md, org[0], org[1] + y, org[2] + z), h + z * hz + y * hy,
                   reg[0] * c->elem);
    snprintf(what, sizeof(what), "%s flags 0x%llx: written region", c->name,
             (unsigned long long)kind);
    model_check(&md, what);

    /* The same region read into padded pitches: the gaps stay untouched. */
    uint8_t *r = malloc(hsize);
    REQUIRE(r, "host memory");
    memset(r, 0xc3, hsize);
    EXPECT_OK(clEnqueueReadImage(queue, md.m, CL_TRUE, org, reg, hrow, hslice, r, 0, NULL, NULL));
    bool ok = true;
    for (size_t z = 0; z < reg[2]; z++)
        for (size_t y = 0; y < reg[1]; y++) {
            ok &= !memcmp(r + z * hz + y * hy,
                          md.px + model_at(&md, org[0], org[1] + y, org[2] + z), reg[0] * c->elem);
            ok &= r[z * hz + y * hy + reg[0] * c->elem] == 0xc3;
        }
    EXPECT(ok, "%s flags 0x%llx: region read with pitches", c->name, (unsigned long long)kind);
    free(r);
    free(h);

    /* Fill a region with the case's color. */
    size_t forg[3] = {md.ext[0] / 2, 0, md.ext[2] - 1}, freg[3] = {md.ext[0] - md.ext[0] / 2,
                                                                   md.ext[1] > 1 ? 2 : 1, 1};
    EXPECT_OK(clEnqueueFillImage(queue, md.m, c->color, forg, freg, 0, NULL, NULL));
    for (size_t y = 0; y < freg[1]; y++)
        for (size_t x = 0; x < freg[0]; x++)
            memcpy(md.px + model_at(&md, forg[0] + x, forg[1] + y, forg[2]), c->pixel, c->elem);
    EXPECT_OK(clFinish(queue));
    snprintf(what, sizeof(what), "%s flags 0x%llx: filled", c->name, (unsigned long long)kind);
    model_check(&md, what);

    /* Copy within the image (regions apart) and into a second image. */
    size_t creg[3] = {md.ext[0] / 2, md.ext[1], md.ext[2]};
    size_t cs[3] = {0, 0, 0}, cd[3] = {md.ext[0] - md.ext[0] / 2, 0, 0};
    EXPECT_OK(clEnqueueCopyImage(queue, md.m, md.m, cs, cd, creg, 0, NULL, NULL));
    model_copy(&md, cd, &md, cs, creg);
    snprintf(what, sizeof(what), "%s flags 0x%llx: copied within", c->name,
             (unsigned long long)kind);
    model_check(&md, what);
    if (c->itype != CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        cl_image_desc d2 = cltest_image_desc(c->itype, c->w, c->h, c->d, c->arr);
        struct model m2 = {.elem = c->elem};
        memcpy(m2.ext, md.ext, sizeof(m2.ext));
        m2.px = calloc(1, n);
        REQUIRE(m2.px, "host memory");
        m2.m = make_image(CL_MEM_COPY_HOST_PTR, c->order, c->type, &d2, m2.px, CL_SUCCESS);
        if (m2.m) {
            size_t so[3] = {1, md.ext[1] - 1, 0}, dO[3] = {0, 0, md.ext[2] - 1},
                   rg[3] = {md.ext[0] - 1, 1, 1};
            EXPECT_OK(clEnqueueCopyImage(queue, md.m, m2.m, so, dO, rg, 0, NULL, NULL));
            model_copy(&m2, dO, &md, so, rg);
            snprintf(what, sizeof(what), "%s flags 0x%llx: copied to another image", c->name,
                     (unsigned long long)kind);
            EXPECT_OK(clFinish(queue));
            model_check(&m2, what);
            clReleaseMemObject(m2.m);
        }
        free(m2.px);
    }

    /* Image -> buffer -> image, at offsets. */
    cl_mem b = clCreateBuffer(ctx, 0, n + 256, NULL, &err);
    REQUIRE(b, "buffer");
    size_t bo[3] = {md.ext[0] > 1 ? 1 : 0, 0, 0},
           br[3] = {md.ext[0] - bo[0], md.ext[1], md.ext[2]};
    const size_t bbytes = br[0] * br[1] * br[2] * c->elem;
    EXPECT_OK(clEnqueueCopyImageToBuffer(queue, md.m, b, bo, br, 16, 0, NULL, NULL));
    uint8_t *bb = malloc(bbytes);
    REQUIRE(bb, "host memory");
    EXPECT_OK(clEnqueueReadBuffer(queue, b, CL_TRUE, 16, bbytes, bb, 0, NULL, NULL));
    ok = true;
    for (size_t z = 0; z < br[2]; z++)
        for (size_t y = 0; y < br[1]; y++)
            ok &= !memcmp(bb + ((z * br[1] + y) * br[0]) * c->elem,
                          md.px + model_at(&md, bo[0], y, z), br[0] * c->elem);
    EXPECT(ok, "%s flags 0x%llx: image to buffer", c->name, (unsigned long long)kind);
    fill_random(bb, bbytes);
    EXPECT_OK(clEnqueueWriteBuffer(queue, b, CL_TRUE, 32, bbytes, bb, 0, NULL, NULL));
    size_t io[3] = {0, 0, 0};
    EXPECT_OK(clEnqueueCopyBufferToImage(queue, b, md.m, 32, io, br, 0, NULL, NULL));
    for (size_t z = 0; z < br[2]; z++)
        for (size_t y = 0; y < br[1]; y++)
            memcpy(md.px + model_at(&md, 0, y, z), bb + ((z * br[1] + y) * br[0]) * c->elem,
                   br[0] * c->elem);
    EXPECT_OK(clFinish(queue));
    snprintf(what, sizeof(what), "%s flags 0x%llx: buffer to image", c->name,
             (unsigned long long)kind);
    model_check(&md, what);
    /* Out of the buffer's bounds. */
    EXPECT_ERR(clEnqueueCopyImageToBuffer(queue, md.m, b, bo, br, n + 256 - bbytes + 1, 0, NULL,
                                          NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueCopyBufferToImage(queue, b, md.m, n + 256 - bbytes + 1, io, br, 0, NULL,
                                          NULL),
               CL_INVALID_VALUE);
    free(bb);
    clReleaseMemObject(b);

    /* Map a region: its pixels at the pitches returned, written back at unmap. */
    size_t rp = 0, sp = 0;
    void *p = clEnqueueMapImage(queue, md.m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, org, reg, &rp,
                                &sp, 0, NULL, NULL, &err);
    EXPECT(p && err == CL_SUCCESS, "%s: map: %d", c->name, err);
    if (p) {
        const size_t my = arr1 ? sp : rp, mz = flat ? 0 : sp;
        EXPECT(rp >= c->w * c->elem, "row pitch %zu", rp);
        EXPECT(flat ? sp == 0 : sp >= rp, "slice pitch %zu (row %zu)", sp, rp);
        ok = true;
        for (size_t z = 0; z < reg[2]; z++)
            for (size_t y = 0; y < reg[1]; y++) {
                uint8_t *line = (uint8_t *)p + z * mz + y * my;
                ok &= !memcmp(line, md.px + model_at(&md, org[0], org[1] + y, org[2] + z),
                              reg[0] * c->elem);
                fill_random(line, reg[0] * c->elem);
                memcpy(md.px + model_at(&md, org[0], org[1] + y, org[2] + z), line,
                       reg[0] * c->elem);
            }
        EXPECT(ok, "%s flags 0x%llx: mapped pixels", c->name, (unsigned long long)kind);
        if (kind == CL_MEM_USE_HOST_PTR) {
            const size_t ystep = arr1 ? layer : row, zstep = flat ? 0 : layer;
            const size_t want_rp = c->itype == CL_MEM_OBJECT_IMAGE1D ? c->w * c->elem : row;
            EXPECT(rp == want_rp && p == host + org[0] * c->elem + org[1] * ystep + org[2] * zstep,
                   "%s: USE_HOST_PTR map at %p (row pitch %zu), expected host_ptr-based %p",
                   c->name, p, rp,
                   (void *)(host + org[0] * c->elem + org[1] * ystep + org[2] * zstep));
        }
        cl_uint mc = 0;
        EXPECT_OK(clGetMemObjectInfo(md.m, CL_MEM_MAP_COUNT, sizeof(mc), &mc, NULL));
        EXPECT(mc == 1, "map count %u", mc);
        EXPECT_OK(clEnqueueUnmapMemObject(queue, md.m, p, 0, NULL, NULL));
        EXPECT_ERR(clEnqueueUnmapMemObject(queue, md.m, p, 0, NULL, NULL), CL_INVALID_VALUE);
        snprintf(what, sizeof(what), "%s flags 0x%llx: after unmap", c->name,
                 (unsigned long long)kind);
        model_check(&md, what);
    }
    EXPECT_OK(clReleaseMemObject(md.m));
    free(md.px);
    free(host);
}

static const struct fmt_case cases[] = {
    {"RGBA FLOAT 2D", CL_RGBA, CL_FLOAT, 16, CL_MEM_OBJECT_IMAGE2D, 9, 6, 0, 0,
     {0x3fc00000u /* 1.5 */, 0xc0000000u /* -2 */, 0x3e800000u /* 0.25 */, 0x7f800000u /* inf */},
     {0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x80, 0x3e, 0x00, 0x00, 0x80,
      0x7f}},
    {"R UNORM_INT8 2D", CL_R, CL_UNORM_INT8, 1, CL_MEM_OBJECT_IMAGE2D, 13, 5, 0, 0,
     {0x3f000000u /* 0.5: 127.5 to even */, 0, 0, 0}, {128}},
    {"RGBA HALF 3D", CL_RGBA, CL_HALF_FLOAT, 8, CL_MEM_OBJECT_IMAGE3D, 6, 5, 4, 0,
     {0x3f800000u /* 1 */, 0xc0000000u /* -2 */, 0x3eaaaaabu /* 1/3 */, 0x48000000u /* 131072 */},
     {0x00, 0x3c, 0x00, 0xc0, 0x55, 0x35, 0x00, 0x7c}},
    {"BGRA UNORM_INT8 2D array", CL_BGRA, CL_UNORM_INT8, 4, CL_MEM_OBJECT_IMAGE2D_ARRAY, 7, 4, 0, 3,
     {0x3e4ccccdu /* r 0.2 */, 0x3ecccccdu /* g 0.4 */, 0x40000000u /* b 2 */,
      0xbf800000u /* a -1 */},
     {255, 102, 51, 0}},
    {"RG SIGNED_INT16 1D array", CL_RG, CL_SIGNED_INT16, 4, CL_MEM_OBJECT_IMAGE1D_ARRAY, 11, 0, 0, 5,
     {40000u, (uint32_t)-5, 0, 0}, {0xff, 0x7f, 0xfb, 0xff}},
    {"R UNSIGNED_INT32 1D", CL_R, CL_UNSIGNED_INT32, 4, CL_MEM_OBJECT_IMAGE1D, 17, 0, 0, 0,
     {0xdeadbeefu, 0, 0, 0}, {0xef, 0xbe, 0xad, 0xde}},
    {"RGBA UNSIGNED_INT8 1D buffer", CL_RGBA, CL_UNSIGNED_INT8, 4, CL_MEM_OBJECT_IMAGE1D_BUFFER, 19, 0,
     0, 0, {1, 300, 7, 0}, {1, 255, 7, 0}},
    {"ARGB SNORM_INT8 2D", CL_ARGB, CL_SNORM_INT8, 4, CL_MEM_OBJECT_IMAGE2D, 5, 5, 0, 0,
     {0x3f800000u /* r 1 */, 0xbf800000u /* g -1 */, 0x3f000000u /* b 0.5 */,
      0xc0000000u /* a -2 */},
     {0x80, 0x7f, 0x81, 0x40}},
    {"LUMINANCE UNORM_INT16 2D", CL_LUMINANCE, CL_UNORM_INT16, 2, CL_MEM_OBJECT_IMAGE2D, 4, 3, 0, 0,
     {0x3f000000u /* 0.5: 32767.5 to even */, 0, 0, 0}, {0x00, 0x80}},
};

static void test_round_trips(void)
{
    const cl_mem_flags kinds[] = {0, CL_MEM_COPY_HOST_PTR, CL_MEM_ALLOC_HOST_PTR,
                                  CL_MEM_USE_HOST_PTR};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (size_t k = 0; k < 4; k++) {
            if (cases[i].itype == CL_MEM_OBJECT_IMAGE1D_BUFFER && kinds[k] == CL_MEM_USE_HOST_PTR)
                continue; /* the buffer's kind: USE_HOST_PTR needs host memory, below */
            round_trip(&cases[i], kinds[k]);
        }
    (void)fbits;
}

/* A USE_HOST_PTR 2D image with a padded row pitch: maps return pointers
 * into host_ptr, and its contents are the application's memory. */
static void test_use_host_ptr(void)
{
    enum { W = 8, H = 5, PITCH = 40 };
    uint8_t *host = aligned_alloc(4096, 4096);
    REQUIRE(host, "host memory");
    for (int i = 0; i < PITCH * H; i++)
        host[i] = (uint8_t)i;
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, W, H, 0, 0);
    d.image_row_pitch = PITCH;
    cl_mem m = make_image(CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d, host, CL_SUCCESS);
    if (!m) {
        free(host);
        return;
    }
    void *hp = NULL;
    EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
    EXPECT(hp == host, "CL_MEM_HOST_PTR %p", hp);
    size_t v = 0;
    EXPECT_OK(clGetImageInfo(m, CL_IMAGE_ROW_PITCH, sizeof(v), &v, NULL));
    EXPECT(v == PITCH, "row pitch %zu", v);
    size_t origin[3] = {2, 1, 0}, region[3] = {3, 2, 1}, rp = 0;
    uint8_t px[3 * 2 * 4];
    EXPECT_OK(clEnqueueReadImage(queue, m, CL_TRUE, origin, region, 0, 0, px, 0, NULL, NULL));
    bool ok = true;
    for (int y = 0; y < 2; y++)
        ok &= !memcmp(px + y * 12, host + (1 + y) * PITCH + 8, 12);
    EXPECT(ok, "USE_HOST_PTR image holds host_ptr's pixels");
    uint8_t *p = clEnqueueMapImage(queue, m, CL_TRUE, CL_MAP_WRITE, origin, region, &rp, NULL, 0,
                                   NULL, NULL, NULL);
    EXPECT(p == host + PITCH + 8 && rp == PITCH, "map at %p pitch %zu, expected %p pitch %d",
           (void *)p, rp, (void *)(host + PITCH + 8), PITCH);
    if (p) {
        p[0] = 0xab;
        p[PITCH + 11] = 0xcd;
        EXPECT_OK(clEnqueueUnmapMemObject(queue, m, p, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadImage(queue, m, CL_TRUE, origin, region, 0, 0, px, 0, NULL, NULL));
        EXPECT(px[0] == 0xab && px[12 + 11] == 0xcd, "map writes: 0x%x 0x%x", px[0], px[23]);
    }
    /* The map of a 2D image may pass no slice pitch; of a 3D one it must. */
    EXPECT_OK(clReleaseMemObject(m));
    free(host);
}

/* Pitches as the application gave them: clGetImageInfo reports a
 * COPY_HOST_PTR image's given pitches (its store is tight), a 2D image
 * ignores a slice pitch for its storage, and clCreateImage2D/3D name
 * CL_INVALID_IMAGE_SIZE for pitches that break their rules. */
static void test_given_pitches(void)
{
    enum { W = 4, H = 4, ROW = 32 };
    uint8_t host[ROW * H * 2];
    fill_random(host, sizeof(host));
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, W, H, 0, 0);
    d.image_row_pitch = ROW;
    cl_mem m = make_image(CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d, host, CL_SUCCESS);
    size_t v = 0;
    if (m) {
        EXPECT_OK(clGetImageInfo(m, CL_IMAGE_ROW_PITCH, sizeof(v), &v, NULL));
        EXPECT(v == ROW, "COPY_HOST_PTR image: CL_IMAGE_ROW_PITCH %zu, given %d", v, ROW);
        EXPECT_OK(clGetImageInfo(m, CL_IMAGE_SLICE_PITCH, sizeof(v), &v, NULL));
        EXPECT(v == 0, "2D image: CL_IMAGE_SLICE_PITCH %zu", v);
        /* The pixels came in at the given pitch. */
        uint8_t px[W * H * 4];
        const size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1};
        EXPECT_OK(clEnqueueReadImage(queue, m, CL_TRUE, o, r, 0, 0, px, 0, NULL, NULL));
        bool ok = true;
        for (int y = 0; y < H; y++)
            ok &= !memcmp(px + y * W * 4, host + y * ROW, W * 4);
        EXPECT(ok, "COPY_HOST_PTR image with a padded pitch: pixels");
        clReleaseMemObject(m);
    }
    cl_image_desc d3 = cltest_image_desc(CL_MEM_OBJECT_IMAGE3D, W, 2, 2, 0);
    d3.image_row_pitch = ROW;
    d3.image_slice_pitch = ROW * 3;
    m = make_image(CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d3, host, CL_SUCCESS);
    if (m) {
        EXPECT_OK(clGetImageInfo(m, CL_IMAGE_SLICE_PITCH, sizeof(v), &v, NULL));
        EXPECT(v == ROW * 3, "COPY_HOST_PTR 3D image: CL_IMAGE_SLICE_PITCH %zu, given %d", v,
               ROW * 3);
        clReleaseMemObject(m);
    }
    /* A 2D USE_HOST_PTR image with a (meaningless) small slice pitch: its
     * store is its rows. */
    uint8_t *big = aligned_alloc(4096, 64 * 64 * 4);
    REQUIRE(big, "host memory");
    fill_random(big, 64 * 64 * 4);
    d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 64, 64, 0, 0);
    d.image_slice_pitch = 16;
    m = make_image(CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d, big, CL_SUCCESS);
    if (m) {
        EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(v), &v, NULL));
        EXPECT(v == 64 * 64 * 4, "2D image with a slice pitch: CL_MEM_SIZE %zu", v);
        uint8_t *px = malloc(64 * 64 * 4);
        REQUIRE(px, "host memory");
        const size_t o[3] = {0, 0, 0}, r[3] = {64, 64, 1};
        EXPECT_OK(clEnqueueReadImage(queue, m, CL_TRUE, o, r, 0, 0, px, 0, NULL, NULL));
        EXPECT(!memcmp(px, big, 64 * 64 * 4), "2D image with a slice pitch: pixels");
        free(px);
        clReleaseMemObject(m);
    }
    free(big);
    /* clCreateImage2D / 3D: pitch rules answer CL_INVALID_IMAGE_SIZE. */
    const cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
    cl_int err = 0;
    EXPECT(!clCreateImage2D(ctx, 0, &f, W, H, 64, NULL, &err), "2D pitch without host_ptr");
    EXPECT(err == CL_INVALID_IMAGE_SIZE, "clCreateImage2D, pitch without host_ptr: %d", err);
    EXPECT(!clCreateImage2D(ctx, CL_MEM_COPY_HOST_PTR, &f, W, H, 18, host, &err),
           "2D pitch not a multiple");
    EXPECT(err == CL_INVALID_IMAGE_SIZE, "clCreateImage2D, pitch 18: %d", err);
    EXPECT(!clCreateImage3D(ctx, CL_MEM_COPY_HOST_PTR, &f, W, 2, 2, ROW, ROW + 4, host, &err),
           "3D slice pitch not a multiple");
    EXPECT(err == CL_INVALID_IMAGE_SIZE, "clCreateImage3D, slice pitch: %d", err);
}

/* A w x h RGBA / UNORM_INT8 2D image holding px (w * h * 4 bytes). */
static cl_mem rgba8_image(size_t w, size_t h, const uint8_t *px)
{
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0);
    cl_mem m = make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_SUCCESS);
    const size_t o[3] = {0, 0, 0}, r[3] = {w, h, 1};
    if (m)
        EXPECT_OK(clEnqueueWriteImage(queue, m, CL_TRUE, o, r, 0, 0, px, 0, NULL, NULL));
    return m;
}

/* A 2D image made from another 2D image (image_desc->mem_object) shares
 * its pixels under a compatible format (an sRGB view of RGBA), reports
 * the other as its associated object, and the rules are checked. */
static void test_image_views(void)
{
    enum { W = 16, H = 8 };
    const cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, W, H, 0, 0);
    uint8_t px[W * H * 4], back[W * H * 4];
    fill_random(px, sizeof(px));
    cl_mem base = rgba8_image(W, H, px);
    if (!base)
        return;
    const size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1};
    cl_image_desc vd = d;
    vd.mem_object = base;
    cl_mem view = make_image(CL_MEM_READ_ONLY, CL_sRGBA, CL_UNORM_INT8, &vd, NULL, CL_SUCCESS);
    if (view) {
        memset(back, 0, sizeof(back));
        EXPECT_OK(clEnqueueReadImage(queue, view, CL_TRUE, o, r, 0, 0, back, 0, NULL, NULL));
        EXPECT(!memcmp(back, px, sizeof(px)), "the sRGBA view reads the RGBA image's bytes");
        cl_mem assoc = NULL, ib = (cl_mem)1;
        EXPECT_OK(clGetMemObjectInfo(view, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc,
                                     NULL));
        EXPECT(assoc == base, "CL_MEM_ASSOCIATED_MEMOBJECT %p, expected %p", (void *)assoc,
               (void *)base);
        EXPECT_OK(clGetImageInfo(view, CL_IMAGE_BUFFER, sizeof(ib), &ib, NULL));
        EXPECT(ib == NULL, "CL_IMAGE_BUFFER of a view %p", (void *)ib);
        cl_image_format vf = {0, 0};
        EXPECT_OK(clGetImageInfo(view, CL_IMAGE_FORMAT, sizeof(vf), &vf, NULL));
        EXPECT(vf.image_channel_order == CL_sRGBA, "view order 0x%x", vf.image_channel_order);
        /* The view outlives its handle on the other image. */
        clReleaseMemObject(base);
        base = NULL;
        memset(back, 0, sizeof(back));
        EXPECT_OK(clEnqueueReadImage(queue, view, CL_TRUE, o, r, 0, 0, back, 0, NULL, NULL));
        EXPECT(!memcmp(back, px, sizeof(px)), "the view after the other image's release");
        clReleaseMemObject(view);
    }
    if (!base)
        base = make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_SUCCESS);
    /* The rules: same size, same channel type, a compatible order. */
    vd = d;
    vd.mem_object = base;
    vd.image_width = W / 2;
    make_image(CL_MEM_READ_ONLY, CL_sRGBA, CL_UNORM_INT8, &vd, NULL,
               CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    vd.image_width = W;
    make_image(CL_MEM_READ_ONLY, CL_BGRA, CL_UNORM_INT8, &vd, NULL,
               CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    make_image(CL_MEM_READ_ONLY, CL_RGBA, CL_UNORM_INT16, &vd, NULL,
               CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    make_image(CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &vd, px, CL_INVALID_VALUE);
    cl_mem same = make_image(0, CL_RGBA, CL_UNORM_INT8, &vd, NULL, CL_SUCCESS);
    if (same)
        clReleaseMemObject(same);
    /* Not from a 3D image. */
    cl_image_desc d3 = cltest_image_desc(CL_MEM_OBJECT_IMAGE3D, W, H, 2, 0);
    cl_mem vol = make_image(0, CL_RGBA, CL_UNORM_INT8, &d3, NULL, CL_SUCCESS);
    if (vol) {
        vd.mem_object = vol;
        make_image(0, CL_RGBA, CL_UNORM_INT8, &vd, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        clReleaseMemObject(vol);
    }
    clReleaseMemObject(base);
}

/* Maps of a 1D image buffer and of its buffer see each other: writing
 * maps of overlapping bytes are refused whichever comes first. */
static void test_map_associated(void)
{
    cl_int err = 0;
    cl_mem buf = clCreateBuffer(ctx, 0, 4096, NULL, &err);
    REQUIRE(buf, "buffer: %d", err);
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 256, 0, 0, 0);
    d.buffer = buf;
    cl_mem img = make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_SUCCESS);
    if (img) {
        const size_t o[3] = {0, 0, 0}, r[3] = {64, 1, 1};
        size_t rp = 0;
        for (int image_first = 0; image_first < 2; image_first++) {
            void *pi = NULL, *pb = NULL;
            if (image_first)
                pi = clEnqueueMapImage(queue, img, CL_TRUE, CL_MAP_WRITE, o, r, &rp, NULL, 0,
                                       NULL, NULL, &err);
            else
                pb = clEnqueueMapBuffer(queue, buf, CL_TRUE, CL_MAP_WRITE, 0, 256, 0, NULL, NULL,
                                        &err);
            EXPECT(err == CL_SUCCESS, "first map: %d", err);
            if (image_first) {
                EXPECT(!clEnqueueMapBuffer(queue, buf, CL_TRUE, CL_MAP_WRITE, 0, 256, 0, NULL,
                                           NULL, &err),
                       "buffer map over a mapped 1D image buffer");
            } else {
                EXPECT(!clEnqueueMapImage(queue, img, CL_TRUE, CL_MAP_WRITE, o, r, &rp, NULL, 0,
                                          NULL, NULL, &err),
                       "image map over a mapped buffer");
            }
            EXPECT(err == CL_INVALID_OPERATION, "overlapping writing maps (%s first): %d",
                   image_first ? "image" : "buffer", err);
            if (pi)
                EXPECT_OK(clEnqueueUnmapMemObject(queue, img, pi, 0, NULL, NULL));
            if (pb)
                EXPECT_OK(clEnqueueUnmapMemObject(queue, buf, pb, 0, NULL, NULL));
        }
        EXPECT_OK(clFinish(queue));
        clReleaseMemObject(img);
    }
    clReleaseMemObject(buf);
}

/* A map with CL_MAP_WRITE_INVALIDATE_REGION of a region narrower than its
 * image: only the region's pixels may change at unmap, the ones between
 * its rows stay. */
static void test_map_invalidate_region(void)
{
    enum { W = 8, H = 8 };
    uint8_t px[W * H * 4], back[W * H * 4];
    memset(px, 0x11, sizeof(px));
    cl_mem m = rgba8_image(W, H, px);
    if (!m)
        return;
    const size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1};
    const size_t mo[3] = {2, 1, 0}, mr[3] = {4, 3, 1};
    size_t rp = 0;
    cl_int err = 0;
    uint8_t *p = clEnqueueMapImage(queue, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, mo, mr, &rp,
                                   NULL, 0, NULL, NULL, &err);
    EXPECT(p && err == CL_SUCCESS, "map: %d", err);
    if (p) {
        for (size_t y = 0; y < mr[1]; y++)
            memset(p + y * rp, 0x22, mr[0] * 4);
        EXPECT_OK(clEnqueueUnmapMemObject(queue, m, p, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadImage(queue, m, CL_TRUE, o, r, 0, 0, back, 0, NULL, NULL));
        bool ok = true;
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                const bool in = x >= mo[0] && x < mo[0] + mr[0] && y >= mo[1] &&
                                y < mo[1] + mr[1];
                ok &= back[(y * W + x) * 4] == (in ? 0x22 : 0x11);
            }
        EXPECT(ok, "WRITE_INVALIDATE_REGION map of a rectangle: pixels outside it changed");
    }
    clReleaseMemObject(m);
}

/* ---- Transfer errors, events ------------------------------------------ */

static void test_enqueue_errors(void)
{
    cl_int err = 0;
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 8, 8, 0, 0);
    cl_mem m = make_image(0, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_SUCCESS);
    cl_mem f = make_image(0, CL_RGBA, CL_FLOAT, &d, NULL, CL_SUCCESS);
    cl_image_desc d3 = cltest_image_desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0);
    cl_mem m3 = make_image(0, CL_RGBA, CL_UNORM_INT8, &d3, NULL, CL_SUCCESS);
    cl_image_desc d1 = cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 8, 0, 0, 4);
    cl_mem m1a = make_image(0, CL_RGBA, CL_UNORM_INT8, &d1, NULL, CL_SUCCESS);
    cl_mem hno = make_image(CL_MEM_HOST_NO_ACCESS, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_SUCCESS);
    cl_mem hro = make_image(CL_MEM_HOST_READ_ONLY, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_SUCCESS);
    cl_mem hwo = make_image(CL_MEM_HOST_WRITE_ONLY, CL_RGBA, CL_UNORM_INT8, &d, NULL, CL_SUCCESS);
    REQUIRE(m && f && m3 && m1a && hno && hro && hwo, "images");
    uint8_t host[8 * 8 * 16 * 4];
    size_t o0[3] = {0, 0, 0}, r1[3] = {1, 1, 1}, rp = 0, sp = 0;

    EXPECT_ERR(clEnqueueReadImage(NULL, m, CL_TRUE, o0, r1, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
    EXPECT_ERR(clEnqueueReadImage(queue, m, CL_TRUE, NULL, r1, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueReadImage(queue, m, CL_TRUE, o0, NULL, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueReadImage(queue, m, CL_TRUE, o0, r1, 0, 0, NULL, 0, NULL, NULL),
               CL_INVALID_VALUE);
    size_t bad[][6] = {
        {0, 0, 0, 0, 1, 1},  /* region 0 */
        {0, 0, 1, 1, 1, 1},  /* 2D: origin[2] */
        {0, 0, 0, 1, 1, 2},  /* 2D: region[2] */
        {7, 0, 0, 2, 1, 1},  /* x out */
        {0, 8, 0, 1, 1, 1},  /* y out */
        {0, 4, 0, 1, 5, 1},  /* y + h out */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        EXPECT_ERR(clEnqueueReadImage(queue, m, CL_TRUE, bad[i], bad[i] + 3, 0, 0, host, 0, NULL,
                                      NULL),
                   CL_INVALID_VALUE);
    size_t o1a[3] = {0, 4, 0}, o1b[3] = {0, 0, 1}, r1a[3] = {8, 4, 1};
    EXPECT_ERR(clEnqueueReadImage(queue, m1a, CL_TRUE, o1a, r1, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_VALUE); /* layer 4 of 4 */
    EXPECT_ERR(clEnqueueReadImage(queue, m1a, CL_TRUE, o1b, r1, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_OK(clEnqueueReadImage(queue, m1a, CL_TRUE, o0, r1a, 0, 0, host, 0, NULL, NULL));
    size_t o3[3] = {0, 0, 3}, r3[3] = {1, 1, 2};
    EXPECT_ERR(clEnqueueReadImage(queue, m3, CL_TRUE, o3, r3, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_VALUE);
    /* Pitches. */
    size_t r2[3] = {4, 2, 1};
    EXPECT_ERR(clEnqueueReadImage(queue, m, CL_TRUE, o0, r2, 15, 0, host, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueWriteImage(queue, m, CL_TRUE, o0, r2, 0, 64, host, 0, NULL, NULL),
               CL_INVALID_VALUE); /* a 2D image has no slices */
    size_t r32[3] = {4, 2, 2};
    EXPECT_ERR(clEnqueueWriteImage(queue, m3, CL_TRUE, o0, r32, 16, 31, host, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_OK(clEnqueueWriteImage(queue, m3, CL_TRUE, o0, r32, 16, 33, host, 0, NULL, NULL));
    /* Host access. */
    EXPECT_ERR(clEnqueueReadImage(queue, hno, CL_TRUE, o0, r1, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    EXPECT_ERR(clEnqueueWriteImage(queue, hno, CL_TRUE, o0, r1, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    EXPECT_ERR(clEnqueueWriteImage(queue, hro, CL_TRUE, o0, r1, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    EXPECT_ERR(clEnqueueReadImage(queue, hwo, CL_TRUE, o0, r1, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_OPERATION);
    EXPECT_OK(clEnqueueReadImage(queue, hro, CL_TRUE, o0, r1, 0, 0, host, 0, NULL, NULL));
    EXPECT_OK(clEnqueueWriteImage(queue, hwo, CL_TRUE, o0, r1, 0, 0, host, 0, NULL, NULL));
    EXPECT(!clEnqueueMapImage(queue, hwo, CL_TRUE, CL_MAP_READ, o0, r1, &rp, NULL, 0, NULL, NULL,
                              &err),
           "map read of HOST_WRITE_ONLY");
    EXPECT(err == CL_INVALID_OPERATION, "map read of HOST_WRITE_ONLY: %d", err);
    EXPECT(!clEnqueueMapImage(queue, hno, CL_TRUE, CL_MAP_WRITE, o0, r1, &rp, NULL, 0, NULL, NULL,
                              &err),
           "map of HOST_NO_ACCESS");
    EXPECT(err == CL_INVALID_OPERATION, "map of HOST_NO_ACCESS: %d", err);
    /* A fill is no host access; its color must be there. */
    const float color[4] = {1, 0, 0, 1};
    EXPECT_OK(clEnqueueFillImage(queue, hno, color, o0, r1, 0, NULL, NULL));
    EXPECT_ERR(clEnqueueFillImage(queue, m, NULL, o0, r1, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueFillImage(queue, m, color, bad[3], bad[3] + 3, 0, NULL, NULL),
               CL_INVALID_VALUE);
    /* Copies. */
    EXPECT_ERR(clEnqueueCopyImage(queue, m, f, o0, o0, r1, 0, NULL, NULL),
               CL_IMAGE_FORMAT_MISMATCH);
    size_t a[3] = {0, 0, 0}, b[3] = {2, 1, 0}, rr[3] = {4, 4, 1};
    EXPECT_ERR(clEnqueueCopyImage(queue, m, m, a, b, rr, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    size_t c4[3] = {4, 0, 0};
    EXPECT_OK(clEnqueueCopyImage(queue, m, m, a, c4, rr, 0, NULL, NULL));
    EXPECT_ERR(clEnqueueCopyImage(queue, m, m, a, bad[3], bad[3] + 3, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueCopyImage(queue, m, (cl_mem)queue, a, a, r1, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
    /* 2D <-> 3D and 2D <-> 1D array: copies between types. */
    size_t r41[3] = {4, 4, 1}, z2[3] = {0, 0, 2};
    EXPECT_OK(clEnqueueCopyImage(queue, m, m3, a, z2, r41, 0, NULL, NULL));
    EXPECT_OK(clEnqueueCopyImage(queue, m3, m, z2, c4, r41, 0, NULL, NULL));
    uint8_t x2d[4 * 4 * 4], x3d[4 * 4 * 4];
    EXPECT_OK(clEnqueueReadImage(queue, m, CL_TRUE, c4, r41, 0, 0, x2d, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadImage(queue, m3, CL_TRUE, z2, r41, 0, 0, x3d, 0, NULL, NULL));
    EXPECT(!memcmp(x2d, x3d, sizeof(x2d)), "2D -> 3D -> 2D copy");
    EXPECT_OK(clEnqueueCopyImage(queue, m, m1a, a, a, r41, 0, NULL, NULL));
    uint8_t x1a[4 * 4 * 4];
    EXPECT_OK(clEnqueueReadImage(queue, m1a, CL_TRUE, a, r41, 0, 0, x1a, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadImage(queue, m, CL_TRUE, a, r41, 0, 0, x2d, 0, NULL, NULL));
    EXPECT(!memcmp(x2d, x1a, sizeof(x2d)), "2D rows -> 1D array layers");
    /* Buffers and images. */
    cl_mem buf = clCreateBuffer(ctx, 0, 4096, NULL, &err);
    REQUIRE(buf, "buffer");
    EXPECT_ERR(clEnqueueCopyImageToBuffer(queue, m, m, o0, r1, 0, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clEnqueueCopyBufferToImage(queue, m, m, 0, o0, r1, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clEnqueueCopyImageToBuffer(queue, buf, buf, o0, r1, 0, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
    cl_image_desc db = cltest_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 64, 0, 0, 0);
    db.buffer = buf;
    cl_mem ib = make_image(0, CL_RGBA, CL_UNORM_INT8, &db, NULL, CL_SUCCESS);
    if (ib) {
        size_t r8[3] = {8, 1, 1};
        EXPECT_ERR(clEnqueueCopyBufferToImage(queue, buf, ib, 0, o0, r8, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
        EXPECT_ERR(clEnqueueCopyImageToBuffer(queue, ib, buf, o0, r8, 0, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
        /* Writes through the image are the buffer's bytes. */
        uint8_t in[32], out[32];
        fill_random(in, sizeof(in));
        size_t o2[3] = {2, 0, 0};
        EXPECT_OK(clEnqueueWriteImage(queue, ib, CL_TRUE, o2, r8, 0, 0, in, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 8, 32, out, 0, NULL, NULL));
        EXPECT(!memcmp(in, out, 32), "1D image buffer writes its buffer");
        clReleaseMemObject(ib);
    }
    /* A 1D image buffer of a sub-buffer: the sub-buffer's bytes. */
    cl_buffer_region sr = {256, 512};
    cl_mem sub = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &sr, &err);
    REQUIRE(sub, "sub-buffer: %d", err);
    db.buffer = sub;
    db.image_width = 128;
    cl_mem isub = make_image(0, CL_RGBA, CL_UNORM_INT8, &db, NULL, CL_SUCCESS);
    db.image_width = 129; /* 516 bytes > 512 */
    make_image(0, CL_RGBA, CL_UNORM_INT8, &db, NULL, CL_INVALID_IMAGE_SIZE);
    EXPECT_OK(clReleaseMemObject(sub)); /* the image keeps it */
    if (isub) {
        cl_mem assoc = NULL, ibuf = NULL;
        EXPECT_OK(clGetMemObjectInfo(isub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc,
                                     NULL));
        EXPECT_OK(clGetImageInfo(isub, CL_IMAGE_BUFFER, sizeof(ibuf), &ibuf, NULL));
        EXPECT(assoc == sub && ibuf == sub, "image of a sub-buffer: associated %p, buffer %p",
               (void *)assoc, (void *)ibuf);
        uint8_t in[64], out[64];
        fill_random(in, sizeof(in));
        size_t o3x[3] = {3, 0, 0}, r16[3] = {16, 1, 1};
        EXPECT_OK(clEnqueueWriteImage(queue, isub, CL_TRUE, o3x, r16, 0, 0, in, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 256 + 12, 64, out, 0, NULL, NULL));
        EXPECT(!memcmp(in, out, 64), "1D image buffer of a sub-buffer writes at its origin");
        EXPECT_OK(clEnqueueCopyImageToBuffer(queue, isub, buf, o3x, r16, 0, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 64, out, 0, NULL, NULL));
        EXPECT(!memcmp(in, out, 64), "copied from the image of a sub-buffer to its buffer");
        clReleaseMemObject(isub);
    }
    /* Maps. */
    EXPECT(!clEnqueueMapImage(queue, m, CL_TRUE, CL_MAP_READ, o0, r1, NULL, NULL, 0, NULL, NULL,
                              &err),
           "map without row pitch");
    EXPECT(err == CL_INVALID_VALUE, "map without row pitch: %d", err);
    EXPECT(!clEnqueueMapImage(queue, m3, CL_TRUE, CL_MAP_READ, o0, r1, &rp, NULL, 0, NULL, NULL,
                              &err),
           "3D map without slice pitch");
    EXPECT(err == CL_INVALID_VALUE, "3D map without slice pitch: %d", err);
    EXPECT(!clEnqueueMapImage(queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, o0,
                              r1, &rp, NULL, 0, NULL, NULL, &err),
           "map flags");
    EXPECT(err == CL_INVALID_VALUE, "bad map flags: %d", err);
    void *p = clEnqueueMapImage(queue, m3, CL_TRUE, CL_MAP_READ, o0, r32, &rp, &sp, 0, NULL, NULL,
                                &err);
    EXPECT(p && rp == 16 && sp == 64, "3D map: %d, pitches %zu %zu", err, rp, sp);
    if (p)
        EXPECT_OK(clEnqueueUnmapMemObject(queue, m3, p, 0, NULL, NULL));
    p = clEnqueueMapImage(queue, m1a, CL_TRUE, CL_MAP_READ, o0, r1a, &rp, &sp, 0, NULL, NULL, &err);
    EXPECT(p && rp == 32 && sp == 32, "1D array map: %d, pitches %zu %zu", err, rp, sp);
    if (p)
        EXPECT_OK(clEnqueueUnmapMemObject(queue, m1a, p, 0, NULL, NULL));
    sp = 99;
    p = clEnqueueMapImage(queue, m, CL_TRUE, CL_MAP_READ, o0, r1, &rp, &sp, 0, NULL, NULL, &err);
    EXPECT(p && rp == 32 && sp == 0, "2D map: %d, pitches %zu %zu", err, rp, sp);
    if (p)
        EXPECT_OK(clEnqueueUnmapMemObject(queue, m, p, 0, NULL, NULL));
    /* Wait lists. */
    EXPECT_ERR(clEnqueueReadImage(queue, m, CL_TRUE, o0, r1, 0, 0, host, 1, NULL, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
    cl_event ev = NULL;
    EXPECT_ERR(clEnqueueWriteImage(queue, m, CL_FALSE, o0, r1, 0, 0, host, 0, &ev, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
    /* Another context's image. */
    cl_context c2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(c2, "second context");
    cl_mem other = clCreateImage(c2, 0, &(cl_image_format){CL_RGBA, CL_UNORM_INT8}, &d, NULL, &err);
    REQUIRE(other, "image of another context: %d", err);
    EXPECT_ERR(clEnqueueReadImage(queue, other, CL_TRUE, o0, r1, 0, 0, host, 0, NULL, NULL),
               CL_INVALID_CONTEXT);
    EXPECT_ERR(clEnqueueCopyImage(queue, m, other, o0, o0, r1, 0, NULL, NULL), CL_INVALID_CONTEXT);
    clReleaseMemObject(other);
    clReleaseContext(c2);

    /* Events: a write held by a user event, then a read waiting for it. */
    cl_event user = clCreateUserEvent(ctx, &err);
    REQUIRE(user, "user event");
    uint8_t in[8 * 8 * 4], out[8 * 8 * 4];
    fill_random(in, sizeof(in));
    memset(out, 0, sizeof(out));
    size_t all[3] = {8, 8, 1};
    cl_event w = NULL, r = NULL;
    EXPECT_OK(clEnqueueWriteImage(queue, m, CL_FALSE, o0, all, 0, 0, in, 1, &user, &w));
    EXPECT_OK(clEnqueueReadImage(queue, m, CL_FALSE, o0, all, 0, 0, out, 1, &w, &r));
    cl_int st = 0;
    EXPECT_OK(clGetEventInfo(r, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
    EXPECT(st > CL_COMPLETE, "read ran before the user event: %d", st);
    EXPECT_OK(clSetUserEventStatus(user, CL_COMPLETE));
    EXPECT_OK(clWaitForEvents(1, &r));
    EXPECT(!memcmp(in, out, sizeof(in)), "write then read through events");
    cl_command_type ct = 0;
    EXPECT_OK(clGetEventInfo(w, CL_EVENT_COMMAND_TYPE, sizeof(ct), &ct, NULL));
    EXPECT(ct == CL_COMMAND_WRITE_IMAGE, "write command type 0x%x", ct);
    EXPECT_OK(clGetEventInfo(r, CL_EVENT_COMMAND_TYPE, sizeof(ct), &ct, NULL));
    EXPECT(ct == CL_COMMAND_READ_IMAGE, "read command type 0x%x", ct);
    cl_event fe = NULL, ce = NULL, me = NULL;
    EXPECT_OK(clEnqueueFillImage(queue, m, color, o0, r1, 0, NULL, &fe));
    EXPECT_OK(clEnqueueCopyImageToBuffer(queue, m, buf, o0, r1, 0, 1, &fe, &ce));
    p = clEnqueueMapImage(queue, m, CL_FALSE, CL_MAP_READ, o0, r1, &rp, NULL, 1, &ce, &me, &err);
    EXPECT(p && err == CL_SUCCESS, "non-blocking map: %d", err);
    EXPECT_OK(clWaitForEvents(1, &me));
    if (p) {
        EXPECT(((uint8_t *)p)[0] == 255 && ((uint8_t *)p)[1] == 0, "filled pixel mapped: %u %u",
               ((uint8_t *)p)[0], ((uint8_t *)p)[1]);
        EXPECT_OK(clEnqueueUnmapMemObject(queue, m, p, 0, NULL, NULL));
    }
    EXPECT_OK(clGetEventInfo(fe, CL_EVENT_COMMAND_TYPE, sizeof(ct), &ct, NULL));
    EXPECT(ct == CL_COMMAND_FILL_IMAGE, "fill command type 0x%x", ct);
    EXPECT_OK(clGetEventInfo(ce, CL_EVENT_COMMAND_TYPE, sizeof(ct), &ct, NULL));
    EXPECT(ct == CL_COMMAND_COPY_IMAGE_TO_BUFFER, "copy command type 0x%x", ct);
    EXPECT_OK(clGetEventInfo(me, CL_EVENT_COMMAND_TYPE, sizeof(ct), &ct, NULL));
    EXPECT(ct == CL_COMMAND_MAP_IMAGE, "map command type 0x%x", ct);
    uint32_t word = 0;
    EXPECT_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 4, &word, 0, NULL, NULL));
    EXPECT(word == 0xff0000ffu, "filled pixel copied to the buffer: 0x%08x", word);
    clReleaseEvent(fe);
    clReleaseEvent(ce);
    clReleaseEvent(me);
    clReleaseEvent(w);
    clReleaseEvent(r);
    clReleaseEvent(user);
    clReleaseMemObject(buf);
    cl_mem all_m[] = {m, f, m3, m1a, hno, hro, hwo};
    for (size_t i = 0; i < sizeof(all_m) / sizeof(all_m[0]); i++)
        EXPECT_OK(clReleaseMemObject(all_m[i]));
}

/* ---- Samplers --------------------------------------------------------- */

static void test_samplers(void)
{
    cl_int err = 0;
    const cl_addressing_mode modes[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE,
                                        CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
                                        CL_ADDRESS_MIRRORED_REPEAT};
    for (int norm = 0; norm < 2; norm++)
        for (size_t a = 0; a < 5; a++)
            for (int fl = 0; fl < 2; fl++) {
                cl_filter_mode filt = fl ? CL_FILTER_LINEAR : CL_FILTER_NEAREST;
                cl_sampler s = clCreateSampler(ctx, (cl_bool)norm, modes[a], filt, &err);
                EXPECT(s && err == CL_SUCCESS, "sampler %d 0x%x 0x%x: %d", norm, modes[a], filt,
                       err);
                if (!s)
                    continue;
                cl_bool b = 9;
                cl_addressing_mode am = 0;
                cl_filter_mode fm = 0;
                cl_context c = NULL;
                cl_uint refs = 0;
                size_t n = 99;
                EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof(b), &b, NULL));
                EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(am), &am, NULL));
                EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof(fm), &fm, NULL));
                EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof(c), &c, NULL));
                EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof(refs), &refs,
                                           NULL));
                EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &n));
                EXPECT(b == (cl_bool)norm && am == modes[a] && fm == filt && c == ctx &&
                           refs == 1 && n == 0,
                       "sampler info: %u 0x%x 0x%x %p %u %zu", b, am, fm, (void *)c, refs, n);
                EXPECT_OK(clRetainSampler(s));
                EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof(refs), &refs,
                                           NULL));
                EXPECT(refs == 2, "after retain: %u", refs);
                EXPECT_OK(clReleaseSampler(s));
                EXPECT_OK(clReleaseSampler(s));
            }
    EXPECT(!clCreateSampler(ctx, 2, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err), "normalized 2");
    EXPECT(err == CL_INVALID_VALUE, "normalized 2: %d", err);
    EXPECT(!clCreateSampler(ctx, CL_TRUE, 0x1234, CL_FILTER_NEAREST, &err), "addressing");
    EXPECT(err == CL_INVALID_VALUE, "bad addressing: %d", err);
    EXPECT(!clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP, 0x1234, &err), "filter");
    EXPECT(err == CL_INVALID_VALUE, "bad filter: %d", err);
    EXPECT(!clCreateSampler((cl_context)queue, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err),
           "context");
    EXPECT(err == CL_INVALID_CONTEXT, "bad context: %d", err);

    /* With properties: defaults, the list kept as given, errors. */
    cl_sampler s = clCreateSamplerWithProperties(ctx, NULL, &err);
    EXPECT(s && err == CL_SUCCESS, "defaults: %d", err);
    if (s) {
        cl_bool b = 0;
        cl_addressing_mode am = 0;
        cl_filter_mode fm = 0;
        EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof(b), &b, NULL));
        EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(am), &am, NULL));
        EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof(fm), &fm, NULL));
        EXPECT(b == CL_TRUE && am == CL_ADDRESS_CLAMP && fm == CL_FILTER_NEAREST,
               "defaults: %u 0x%x 0x%x", b, am, fm);
        EXPECT_ERR(clGetSamplerInfo(s, 0x1234, sizeof(b), &b, NULL), CL_INVALID_VALUE);
        EXPECT_ERR(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, 1, &fm, NULL), CL_INVALID_VALUE);
        clReleaseSampler(s);
    }
    const cl_sampler_properties props[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                           CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE, 0};
    s = clCreateSamplerWithProperties(ctx, props, &err);
    EXPECT(s && err == CL_SUCCESS, "with properties: %d", err);
    if (s) {
        cl_sampler_properties got[8];
        size_t n = 0;
        EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, sizeof(got), got, &n));
        EXPECT(n == sizeof(props) && !memcmp(got, props, sizeof(props)), "properties %zu", n);
        cl_bool b = 9;
        cl_addressing_mode am = 0;
        EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof(b), &b, NULL));
        EXPECT_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(am), &am, NULL));
        EXPECT(b == CL_FALSE && am == CL_ADDRESS_CLAMP, "given/defaulted: %u 0x%x", b, am);
        clReleaseSampler(s);
    }
    const cl_sampler_properties dup[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                         CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
    EXPECT(!clCreateSamplerWithProperties(ctx, dup, &err), "duplicate");
    EXPECT(err == CL_INVALID_VALUE, "duplicate property: %d", err);
    const cl_sampler_properties unknown[] = {0x1234, 1, 0};
    EXPECT(!clCreateSamplerWithProperties(ctx, unknown, &err), "unknown");
    EXPECT(err == CL_INVALID_VALUE, "unknown property: %d", err);
    const cl_sampler_properties badval[] = {CL_SAMPLER_ADDRESSING_MODE, 0x9999, 0};
    EXPECT(!clCreateSamplerWithProperties(ctx, badval, &err), "bad value");
    EXPECT(err == CL_INVALID_VALUE, "bad property value: %d", err);
    EXPECT_ERR(clRetainSampler(NULL), CL_INVALID_SAMPLER);
    EXPECT_ERR(clReleaseSampler((cl_sampler)ctx), CL_INVALID_SAMPLER);
    cl_uint v = 0;
    EXPECT_ERR(clGetSamplerInfo((cl_sampler)queue, CL_SAMPLER_REFERENCE_COUNT, sizeof(v), &v,
                                NULL),
               CL_INVALID_SAMPLER);
}

/* Create/release cycles of every kind (LeakSanitizer checks the host side). */
static void test_cycles(void)
{
    cl_int err = 0;
    uint8_t *host = aligned_alloc(4096, 8192);
    REQUIRE(host, "host memory");
    memset(host, 1, 8192);
    for (int i = 0; i < 50; i++) {
        cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 16, 8, 0, 4);
        cl_mem_flags kinds[] = {0, CL_MEM_COPY_HOST_PTR, CL_MEM_ALLOC_HOST_PTR, CL_MEM_USE_HOST_PTR};
        cl_mem m = clCreateImage(ctx, kinds[i % 4], &(cl_image_format){CL_R, CL_FLOAT}, &d,
                                 (kinds[i % 4] & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR))
                                     ? host
                                     : NULL,
                                 &err);
        EXPECT(m && err == CL_SUCCESS, "cycle %d: %d", i, err);
        if (m)
            clReleaseMemObject(m);
        cl_sampler s = clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err);
        if (s)
            clReleaseSampler(s);
    }
    free(host);
}

int main(void)
{
    cltest_setup(&plat, &dev, &ctx, &queue);
    /* Images are on unless HCQCL_IMAGES=0. */
    const char *sw = getenv("HCQCL_IMAGES");
    const bool on = !(sw && !strcmp(sw, "0"));
    if (on) {
        test_device_info();
        test_formats();
        test_create_errors();
        test_info();
        test_round_trips();
        test_use_host_ptr();
        test_given_pitches();
        test_image_views();
        test_map_invalidate_region();
        test_map_associated();
        test_enqueue_errors();
        test_samplers();
        test_cycles();
    } else {
        test_images_off();
    }
    cltest_teardown(ctx, queue);
    return cltest_result(on ? "api_image" : "api_image_off");
}

/*
 * image_spec_test.c — image rules of the OpenCL 3.0 specification that a
 * review found hcqcl breaking (HCQCL_IMAGES=1), each checked on its own:
 *
 *   - CL_IMAGE_SLICE_PITCH: "For a 1D image, 1D image buffer and 2D image
 *     object return 0", also when the image was created with a host_ptr
 *     and a non-zero image_slice_pitch (which those types do not use);
 *   - image formats: "The number of bits per element determined by the
 *     image_channel_data_type and image_channel_order must be a power of
 *     two" (CL_sRGB and CL_RGx are three channels), otherwise
 *     CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
 *   - a 2D image made from another: CL_DEPTH in image_format is a
 *     compatible order for a CL_R mem_object ("Compatible Image Channel
 *     Orders"), so the view is refused only as an unsupported format.
 */
#include "../api_platform/cltest.h"

#include <stdint.h>
#include <string.h>

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;

static cl_mem make(cl_mem_flags flags, cl_channel_order o, cl_channel_type t,
                   const cl_image_desc *d, void *host, cl_int want)
{
    const cl_image_format f = {o, t};
    cl_int err = 12345;
    cl_mem m = clCreateImage(ctx, flags, &f, d, host, &err);
    EXPECT(err == want, "image type 0x%x format (0x%x, 0x%x) flags 0x%llx: %d, expected %d",
           d->image_type, o, t, (unsigned long long)flags, err, want);
    EXPECT(!m == (want != CL_SUCCESS), "handle %p for %d", (void *)m, err);
    if (m && want != CL_SUCCESS) {
        clReleaseMemObject(m);
        m = NULL;
    }
    return m;
}

/* A slice pitch given with the host pointer of an image without slices
 * is not what CL_IMAGE_SLICE_PITCH reports. */
static void test_slice_pitch_without_slices(void)
{
    static uint8_t host[4096];
    const cl_mem_flags kinds[] = {CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR};
    const cl_mem_object_type types[] = {CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE2D};
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
            cl_image_desc d = cltest_image_desc(types[t], 4, 4, 0, 0);
            d.image_slice_pitch = 1024;
            cl_mem m = make(kinds[k], CL_RGBA, CL_UNORM_INT8, &d, host, CL_SUCCESS);
            if (!m)
                continue;
            size_t v = 99;
            EXPECT_OK(clGetImageInfo(m, CL_IMAGE_SLICE_PITCH, sizeof(v), &v, NULL));
            EXPECT(v == 0, "type 0x%x flags 0x%llx: CL_IMAGE_SLICE_PITCH %zu, expected 0",
                   types[t], (unsigned long long)kinds[k], v);
            v = 99;
            EXPECT_OK(clGetImageInfo(m, CL_IMAGE_ROW_PITCH, sizeof(v), &v, NULL));
            EXPECT(v == 16, "type 0x%x: CL_IMAGE_ROW_PITCH %zu", types[t], v);
            /* A map of such an image has no slice pitch either. */
            const size_t o[3] = {0, 0, 0}, r[3] = {1, 1, 1};
            size_t rp = 0, sp = 99;
            cl_int err = 0;
            void *p = clEnqueueMapImage(queue, m, CL_TRUE, CL_MAP_READ, o, r, &rp, &sp, 0, NULL,
                                        NULL, &err);
            EXPECT(p && sp == 0, "type 0x%x: map %d, slice pitch %zu", types[t], err, sp);
            if (p)
                EXPECT_OK(clEnqueueUnmapMemObject(queue, m, p, 0, NULL, NULL));
            EXPECT_OK(clReleaseMemObject(m));
        }
    /* The types with slices still report the application's. */
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 2);
    d.image_slice_pitch = 128;
    cl_mem m = make(CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, &d, host, CL_SUCCESS);
    if (m) {
        size_t v = 0;
        EXPECT_OK(clGetImageInfo(m, CL_IMAGE_SLICE_PITCH, sizeof(v), &v, NULL));
        EXPECT(v == 128, "2D array: CL_IMAGE_SLICE_PITCH %zu, expected 128", v);
        EXPECT_OK(clReleaseMemObject(m));
    }
}

/* Element sizes that are no power of two are no valid format. */
static void test_format_bits(void)
{
    const cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    const struct {
        cl_channel_order o;
        cl_channel_type t;
    } invalid[] = {
        {CL_sRGB, CL_UNORM_INT8},   /* 24 bits */
        {CL_RGx, CL_UNORM_INT8},    /* 24 */
        {CL_RGx, CL_SIGNED_INT16},  /* 48 */
        {CL_RGx, CL_FLOAT},         /* 96 */
    };
    for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
        make(CL_MEM_READ_ONLY, invalid[i].o, invalid[i].t, &d, NULL,
             CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        cl_int err = 0;
        const cl_image_format f = {invalid[i].o, invalid[i].t};
        EXPECT(!clCreateImage2D(ctx, CL_MEM_READ_ONLY, &f, 4, 4, 0, NULL, &err), "2D image");
        EXPECT(err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "clCreateImage2D (0x%x, 0x%x): %d",
               invalid[i].o, invalid[i].t, err);
    }
    /* Valid but not offered: a power of two, or a packed type. */
    const struct {
        cl_channel_order o;
        cl_channel_type t;
    } unsupported[] = {
        {CL_Rx, CL_UNORM_INT8},          /* 16 bits */
        {CL_sRGBx, CL_UNORM_INT8},       /* 32 */
        {CL_sBGRA, CL_UNORM_INT8},       /* 32 */
        {CL_RGB, CL_UNORM_INT_101010},   /* packed, 32 */
        {CL_DEPTH, CL_FLOAT},            /* 32 */
    };
    for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
        make(CL_MEM_READ_ONLY, unsupported[i].o, unsupported[i].t, &d, NULL,
             CL_IMAGE_FORMAT_NOT_SUPPORTED);
}

/* CL_DEPTH views a CL_R image's pixels (a depth image, not offered). */
static void test_depth_view(void)
{
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    cl_mem r = make(0, CL_R, CL_FLOAT, &d, NULL, CL_SUCCESS);
    if (!r)
        return;
    d.mem_object = r;
    make(0, CL_DEPTH, CL_FLOAT, &d, NULL, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    /* The pair goes one way: no CL_R view of a CL_DEPTH image (there is
     * none), and no other order of a CL_R one. */
    make(0, CL_A, CL_FLOAT, &d, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    make(0, CL_DEPTH, CL_UNORM_INT16, &d, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    EXPECT_OK(clReleaseMemObject(r));
}

int main(void)
{
    cltest_setup(&plat, &dev, &ctx, &queue);
    test_slice_pitch_without_slices();
    test_format_bits();
    test_depth_view();
    cltest_teardown(ctx, queue);
    return cltest_result("api_image_spec");
}

/*
 * from_buffer_test.c — 2D images made from buffers
 * (cl_khr_image2d_from_buffer) through the ICD loader (HCQCL_IMAGES=1):
 * the device's alignments and extension string, the image seeing the
 * buffer's bytes at the row pitch given (reads, writes that leave the
 * bytes between rows alone, maps), a sub-buffer's origin, the pitch
 * reported, the associated buffer and the flags inherited, the image
 * outliving the application's handle on its buffer, and every rule of
 * the image descriptor for it with its error.
 */
#include "../api_platform/cltest.h"

#include <stdint.h>
#include <string.h>

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;

enum { W = 5, H = 3, PITCH = 32, BUF = 4096 };

/* A 2D image of w x h pixels of (order, type) made from buf at pitch. */
static cl_mem from_buffer(cl_mem_flags flags, cl_channel_order order, cl_channel_type type,
                          cl_mem buf, size_t w, size_t h, size_t pitch, cl_int want)
{
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0);
    d.image_row_pitch = pitch;
    d.mem_object = buf;
    cl_int err = 12345;
    cl_mem m = clCreateImage(ctx, flags, &(cl_image_format){order, type}, &d, NULL, &err);
    EXPECT(err == want, "%zu x %zu at pitch %zu from %p, flags 0x%llx: %d, expected %d", w, h,
           pitch, (void *)buf, (unsigned long long)flags, err, want);
    EXPECT(!m == (want != CL_SUCCESS), "handle %p for %d", (void *)m, err);
    if (m && want != CL_SUCCESS) {
        clReleaseMemObject(m);
        m = NULL;
    }
    return m;
}

static void test_device(void)
{
    cl_uint pitch = 0, base = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof(pitch), &pitch, NULL));
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, sizeof(base), &base,
                              NULL));
    /* "The value returned must be a power of 2." */
    EXPECT(pitch && !(pitch & (pitch - 1)), "pitch alignment %u", pitch);
    EXPECT(base && !(base & (base - 1)), "base address alignment %u", base);
    EXPECT(cltest_device_lists(dev, "cl_khr_image2d_from_buffer", CL_MAKE_VERSION(1, 0, 0)),
           "cl_khr_image2d_from_buffer 1.0.0 not listed");
}

static void CL_CALLBACK count_destructor(cl_mem m, void *count)
{
    (void)m;
    ++*(int *)count;
}

/* The bytes of the buffer an image at (origin) sees: pixel (x, y) at
 * origin + y * pitch + x * 4. */
static bool pixels_match(const uint8_t *bytes, size_t origin, size_t pitch, const uint8_t *px)
{
    for (size_t y = 0; y < H; y++)
        if (memcmp(bytes + origin + y * pitch, px + y * W * 4, W * 4))
            return false;
    return true;
}

static void test_views(void)
{
    uint8_t bytes[BUF], back[W * H * 4];
    for (size_t i = 0; i < sizeof(bytes); i++)
        bytes[i] = (uint8_t)(i * 13 + 5);
    cl_int err = 0;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, BUF, bytes, &err);
    REQUIRE(buf, "buffer: %d", err);
    cl_mem img = from_buffer(0, CL_RGBA, CL_UNORM_INT8, buf, W, H, PITCH, CL_SUCCESS);
    REQUIRE(img, "image from buffer");
    const size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1};

    /* Reads see the buffer's bytes at the pitch. */
    EXPECT_OK(clEnqueueReadImage(queue, img, CL_TRUE, o, r, 0, 0, back, 0, NULL, NULL));
    EXPECT(pixels_match(bytes, 0, PITCH, back), "the image reads its buffer's rows");

    /* Queries. */
    size_t rp = 0;
    cl_mem ib = NULL, assoc = NULL;
    EXPECT_OK(clGetImageInfo(img, CL_IMAGE_ROW_PITCH, sizeof(rp), &rp, NULL));
    EXPECT(rp == PITCH, "CL_IMAGE_ROW_PITCH %zu", rp);
    EXPECT_OK(clGetImageInfo(img, CL_IMAGE_BUFFER, sizeof(ib), &ib, NULL));
    EXPECT(ib == buf, "CL_IMAGE_BUFFER %p, expected %p", (void *)ib, (void *)buf);
    EXPECT_OK(clGetMemObjectInfo(img, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL));
    EXPECT(assoc == buf, "CL_MEM_ASSOCIATED_MEMOBJECT %p", (void *)assoc);
    cl_mem_object_type t = 0;
    EXPECT_OK(clGetMemObjectInfo(img, CL_MEM_TYPE, sizeof(t), &t, NULL));
    EXPECT(t == CL_MEM_OBJECT_IMAGE2D, "type 0x%x", t);
    /* Host pointer flags "cannot be specified in flags but are inherited". */
    cl_mem_flags fl = 0;
    EXPECT_OK(clGetMemObjectInfo(img, CL_MEM_FLAGS, sizeof(fl), &fl, NULL));
    EXPECT(fl == (CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR), "flags 0x%llx",
           (unsigned long long)fl);

    /* A write of the middle row's three middle pixels changes those bytes
     * of the buffer and no other. */
    uint8_t mid[3 * 4];
    for (size_t i = 0; i < sizeof(mid); i++)
        mid[i] = (uint8_t)(0xA0 + i);
    const size_t mo[3] = {1, 1, 0}, mr[3] = {3, 1, 1};
    EXPECT_OK(clEnqueueWriteImage(queue, img, CL_TRUE, mo, mr, 0, 0, mid, 0, NULL, NULL));
    memcpy(bytes + PITCH + 4, mid, sizeof(mid));
    uint8_t now[BUF];
    EXPECT_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, BUF, now, 0, NULL, NULL));
    EXPECT(!memcmp(now, bytes, BUF), "the write changed exactly its pixels' bytes");

    /* A fill of the last row's first two pixels, and a copy of the first
     * row's first pixel from another buffer: their bytes and no other. */
    const cl_float4 color = {{0x11 / 255.0f, 0x22 / 255.0f, 0x33 / 255.0f, 0x44 / 255.0f}};
    const size_t fo[3] = {0, H - 1, 0}, fr[3] = {2, 1, 1};
    EXPECT_OK(clEnqueueFillImage(queue, img, &color, fo, fr, 0, NULL, NULL));
    for (size_t i = 0; i < 8; i++)
        bytes[(H - 1) * PITCH + i] = (uint8_t)(0x11 * (i % 4 + 1));
    const uint8_t one[4] = {0xC1, 0xC2, 0xC3, 0xC4};
    cl_mem other = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(one), (void *)one, &err);
    REQUIRE(other, "buffer: %d", err);
    const size_t po[3] = {0, 0, 0}, pr[3] = {1, 1, 1};
    EXPECT_OK(clEnqueueCopyBufferToImage(queue, other, img, 0, po, pr, 0, NULL, NULL));
    memcpy(bytes, one, sizeof(one));
    clReleaseMemObject(other);
    EXPECT_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, BUF, now, 0, NULL, NULL));
    EXPECT(!memcmp(now, bytes, BUF), "the fill and the copy changed exactly their bytes");
    /* A copy between the image and its own buffer is no error (the
     * specification calls its result undefined where they overlap, not
     * here): the image's second row to the buffer's byte 2048. */
    const size_t ro[3] = {0, 1, 0}, rr[3] = {W, 1, 1};
    EXPECT_OK(clEnqueueCopyImageToBuffer(queue, img, buf, ro, rr, 2048, 0, NULL, NULL));
    memcpy(bytes + 2048, bytes + PITCH, W * 4);
    EXPECT_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, BUF, now, 0, NULL, NULL));
    EXPECT(!memcmp(now, bytes, BUF), "the copy into the image's own buffer");

    /* A map: the pitch, and the pixels where it says. */
    void *p = clEnqueueMapImage(queue, img, CL_TRUE, CL_MAP_READ, o, r, &rp, NULL, 0, NULL, NULL,
                                &err);
    EXPECT(p && err == CL_SUCCESS, "map: %d", err);
    if (p) {
        EXPECT(rp == PITCH, "map row pitch %zu", rp);
        bool ok = true;
        for (size_t y = 0; y < H; y++)
            ok &= !memcmp((uint8_t *)p + y * rp, bytes + y * PITCH, W * 4);
        EXPECT(ok, "mapped rows");
        EXPECT_OK(clEnqueueUnmapMemObject(queue, img, p, 0, NULL, NULL));
    }

    /* Tight rows when no pitch is given. */
    cl_mem tight = from_buffer(0, CL_RGBA, CL_UNORM_INT8, buf, W, H, 0, CL_SUCCESS);
    if (tight) {
        EXPECT_OK(clGetImageInfo(tight, CL_IMAGE_ROW_PITCH, sizeof(rp), &rp, NULL));
        EXPECT(rp == W * 4, "tight row pitch %zu", rp);
        EXPECT_OK(clEnqueueReadImage(queue, tight, CL_TRUE, o, r, 0, 0, back, 0, NULL, NULL));
        EXPECT(pixels_match(bytes, 0, W * 4, back), "tight rows");
        clReleaseMemObject(tight);
    }

    /* A sub-buffer's image starts at its origin. */
    const cl_buffer_region reg = {1024, 1024};
    cl_mem sub = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    EXPECT(sub && err == CL_SUCCESS, "sub-buffer: %d", err);
    if (sub) {
        int sub_gone = 0;
        EXPECT_OK(clSetMemObjectDestructorCallback(sub, count_destructor, &sub_gone));
        cl_mem si = from_buffer(0, CL_RGBA, CL_UNORM_INT8, sub, W, H, PITCH, CL_SUCCESS);
        if (si) {
            EXPECT_OK(clEnqueueReadImage(queue, si, CL_TRUE, o, r, 0, 0, back, 0, NULL, NULL));
            EXPECT(pixels_match(bytes, 1024, PITCH, back), "the sub-buffer's image");
            EXPECT_OK(clGetImageInfo(si, CL_IMAGE_BUFFER, sizeof(ib), &ib, NULL));
            EXPECT(ib == sub, "CL_IMAGE_BUFFER of the sub-buffer's image %p", (void *)ib);
            /* It holds the sub-buffer past the application's handle: the
             * sub-buffer is destroyed with the image, not before. */
            clReleaseMemObject(sub);
            EXPECT(sub_gone == 0, "the sub-buffer destroyed under its image");
            EXPECT_OK(clGetImageInfo(si, CL_IMAGE_BUFFER, sizeof(ib), &ib, NULL));
            EXPECT(ib == sub, "CL_IMAGE_BUFFER after the sub-buffer's release %p", (void *)ib);
            EXPECT_OK(clEnqueueReadImage(queue, si, CL_TRUE, o, r, 0, 0, back, 0, NULL, NULL));
            EXPECT(pixels_match(bytes, 1024, PITCH, back), "after the sub-buffer's release");
            clReleaseMemObject(si);
        } else {
            clReleaseMemObject(sub);
        }
        EXPECT(sub_gone == 1, "the sub-buffer's destructor ran %d times", sub_gone);
    }

    /* The image outlives the application's handle on its buffer. */
    clReleaseMemObject(buf);
    memset(back, 0, sizeof(back));
    EXPECT_OK(clEnqueueReadImage(queue, img, CL_TRUE, o, r, 0, 0, back, 0, NULL, NULL));
    EXPECT(pixels_match(bytes, 0, PITCH, back), "the image after its buffer's release");
    clReleaseMemObject(img);
}

static void test_rules(void)
{
    cl_int err = 0;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, BUF, NULL, &err);
    REQUIRE(buf, "buffer: %d", err);
    /* Flags: the buffer's, unless narrowed; host pointer flags never given. */
    cl_mem img = from_buffer(0, CL_RGBA, CL_UNORM_INT8, buf, W, H, PITCH, CL_SUCCESS);
    if (img) {
        cl_mem_flags fl = 0;
        EXPECT_OK(clGetMemObjectInfo(img, CL_MEM_FLAGS, sizeof(fl), &fl, NULL));
        EXPECT(fl == (CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS), "inherited flags 0x%llx",
               (unsigned long long)fl);
        clReleaseMemObject(img);
    }
    from_buffer(CL_MEM_READ_WRITE, CL_RGBA, CL_UNORM_INT8, buf, W, H, PITCH, CL_INVALID_VALUE);
    from_buffer(CL_MEM_WRITE_ONLY, CL_RGBA, CL_UNORM_INT8, buf, W, H, PITCH, CL_INVALID_VALUE);
    from_buffer(CL_MEM_HOST_READ_ONLY, CL_RGBA, CL_UNORM_INT8, buf, W, H, PITCH,
                CL_INVALID_VALUE);
    from_buffer(CL_MEM_ALLOC_HOST_PTR, CL_RGBA, CL_UNORM_INT8, buf, W, H, PITCH,
                CL_INVALID_VALUE);
    clReleaseMemObject(buf);

    buf = clCreateBuffer(ctx, 0, BUF, NULL, &err);
    REQUIRE(buf, "buffer: %d", err);
    /* The row pitch: at least a row, whole pixels. */
    from_buffer(0, CL_RGBA, CL_UNORM_INT8, buf, W, H, W * 4 - 4, CL_INVALID_IMAGE_DESCRIPTOR);
    from_buffer(0, CL_RGBA, CL_UNORM_INT8, buf, W, H, PITCH + 2, CL_INVALID_IMAGE_DESCRIPTOR);
    /* Rows x pitch within the buffer: 128 rows of 32 bytes fit, 129 do not. */
    cl_mem fits = from_buffer(0, CL_RGBA, CL_UNORM_INT8, buf, W, BUF / PITCH, PITCH, CL_SUCCESS);
    if (fits)
        clReleaseMemObject(fits);
    from_buffer(0, CL_RGBA, CL_UNORM_INT8, buf, W, BUF / PITCH + 1, PITCH,
                CL_INVALID_IMAGE_DESCRIPTOR);
    from_buffer(0, CL_RGBA, CL_UNORM_INT8, buf, 32769, 1, 0, CL_INVALID_IMAGE_SIZE);
    /* No slice pitch, no host pointer. */
    cl_image_desc d = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, W, H, 0, 0);
    d.image_slice_pitch = PITCH * H;
    d.mem_object = buf;
    const cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
    EXPECT(!clCreateImage(ctx, 0, &f, &d, NULL, &err), "slice pitch given");
    EXPECT(err == CL_INVALID_IMAGE_DESCRIPTOR, "slice pitch given: %d", err);
    d.image_slice_pitch = 0;
    uint8_t host[64];
    EXPECT(!clCreateImage(ctx, 0, &f, &d, host, &err), "host_ptr given");
    EXPECT(err == CL_INVALID_HOST_PTR, "host_ptr given: %d", err);
    EXPECT(!clCreateImage(ctx, CL_MEM_USE_HOST_PTR, &f, &d, host, &err), "USE_HOST_PTR");
    EXPECT(err == CL_INVALID_VALUE, "USE_HOST_PTR: %d", err);
    /* A buffer of another context. */
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(other, "second context: %d", err);
    cl_mem theirs = clCreateBuffer(other, 0, BUF, NULL, &err);
    REQUIRE(theirs, "buffer of the second context: %d", err);
    from_buffer(0, CL_RGBA, CL_UNORM_INT8, theirs, W, H, PITCH, CL_INVALID_IMAGE_DESCRIPTOR);
    clReleaseMemObject(theirs);
    clReleaseContext(other);
    /* Other image types take no buffer as mem_object. */
    d.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY;
    d.image_array_size = 2;
    EXPECT(!clCreateImage(ctx, 0, &f, &d, NULL, &err), "2D array from a buffer");
    EXPECT(err == CL_INVALID_IMAGE_DESCRIPTOR, "2D array from a buffer: %d", err);
    clReleaseMemObject(buf);

    /* A CL_MEM_USE_HOST_PTR buffer's host_ptr: aligned to whole pixels
     * (CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT pixels) or refused. */
    cl_uint base = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, sizeof(base), &base,
                              NULL));
    static uint8_t mem[BUF + 64] __attribute__((aligned(64)));
    for (size_t i = 0; i < sizeof(mem); i++)
        mem[i] = (uint8_t)(i * 7);
    cl_mem aligned = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, BUF, mem, &err);
    REQUIRE(aligned, "USE_HOST_PTR buffer: %d", err);
    img = from_buffer(0, CL_RGBA, CL_UNORM_INT8, aligned, W, H, PITCH, CL_SUCCESS);
    if (img) {
        /* Given no host_ptr itself: "Otherwise, returns NULL". */
        void *hp = (void *)1;
        EXPECT_OK(clGetMemObjectInfo(img, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
        EXPECT(hp == NULL, "CL_MEM_HOST_PTR %p", hp);
        /* Its maps are the buffer's memory at the pitch. */
        const size_t o[3] = {1, 1, 0}, r[3] = {2, 2, 1};
        size_t rp = 0;
        void *p = clEnqueueMapImage(queue, img, CL_TRUE, CL_MAP_READ, o, r, &rp, NULL, 0, NULL,
                                    NULL, &err);
        EXPECT(p == mem + PITCH + 4 && rp == PITCH, "map %p (buffer %p), pitch %zu", p,
               (void *)mem, rp);
        if (p)
            EXPECT_OK(clEnqueueUnmapMemObject(queue, img, p, 0, NULL, NULL));
        EXPECT_OK(clFinish(queue));
        clReleaseMemObject(img);
    }
    clReleaseMemObject(aligned);
    if (base * 4 <= 64) {
        /* Two bytes off: no RGBA8 pixel's alignment, an R8 pixel's. */
        cl_mem off = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, BUF, mem + 2, &err);
        REQUIRE(off, "USE_HOST_PTR buffer at +2: %d", err);
        from_buffer(0, CL_RGBA, CL_UNORM_INT8, off, W, H, PITCH,
                    CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        if (base <= 2) {
            img = from_buffer(0, CL_R, CL_UNORM_INT8, off, W, H, PITCH, CL_SUCCESS);
            if (img)
                clReleaseMemObject(img);
        }
        clReleaseMemObject(off);
    }
}

int main(void)
{
    cltest_setup(&plat, &dev, &ctx, &queue);
    test_device();
    test_views();
    test_rules();
    cltest_teardown(ctx, queue);
    return cltest_result("api_image_from_buffer");
}

/*
 * image.c — image objects: clCreateImage (and WithProperties, 2D, 3D),
 * clGetImageInfo, and each image's
 * descriptors (image_abi.h). clGetSupportedImageFormats (context.c) lists
 * the table of image_format.c.
 *
 * Storage (see obj.h, "Images and samplers"): the pixels are a buffer
 * store made by hcqcl_mem_create with the image's flags, so every store
 * kind of buffers applies (device, COPY_HOST_PTR, ALLOC_HOST_PTR,
 * USE_HOST_PTR zero copy or shadow, several devices). Pitches are tight
 * (row = width x elem, slice = row x height, a 1D array's layers a row
 * apart) except for USE_HOST_PTR, whose store is the application's memory
 * with its pitches (maps return host_ptr-based pointers). A COPY_HOST_PTR
 * image given with larger pitches is repacked tight at creation. A 1D
 * image buffer, and a 2D image made from a buffer (at the row pitch
 * given, cl_khr_image2d_from_buffer), is a view of its buffer's store
 * from the buffer's first byte (a sub-buffer: its origin in its buffer);
 * the buffer it was made from is retained, and CL_IMAGE_BUFFER and
 * CL_MEM_ASSOCIATED_MEMOBJECT return it.
 *
 * Descriptors: per context device one 64-byte struct hcqcl_image_abi in
 * CPU-mapped vidmem (pinned host memory where BAR1 can't be had), a small
 * block of the device's shared slabs (hcq_mem_alloc_small: a thousand
 * descriptors to one driver allocation), written once here; its `data`
 * is the store's address on that device.
 */
#include <stdlib.h>
#include <string.h>

#include "api/image_abi.h"
#include "api/obj.h"

_Static_assert(sizeof(struct hcqcl_image_abi) == HCQCL_IMAGE_ABI_SIZE, "image ABI is 64 bytes");

bool hcqcl_images_enabled(void)
{
    static int on = -1;
    int v = __atomic_load_n(&on, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *s = util_env()->images;
        v = !(s && s[0] == '0' && s[1] == 0);
        __atomic_store_n(&on, v, __ATOMIC_RELAXED);
    }
    return v;
}

/* Device limits with images on (device.c reports the same). */
#define IMG2D_MAX 32768u
#define IMG3D_MAX 16384u
#define IMG_BUFFER_MAX 268435456u
#define IMG_ARRAY_MAX 2048u

#define MEM_ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define MEM_HOST_PTR_FLAGS (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define MEM_HOST_ACCESS_FLAGS                                                             \
    (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)

uint64_t hcqcl_image_abi_va(cl_mem m, struct hcq_device *dev)
{
    const struct hcqcl_image *im = m->image;
    for (cl_uint i = 0; im && i < m->ctx->num_devices; i++)
        if (m->ctx->devices[i]->hw == dev && im->abi[i])
            return im->abi[i]->va;
    return 0;
}

void hcqcl_image_free(cl_mem m)
{
    struct hcqcl_image *im = m->image;
    if (!im)
        return;
    if (im->abi) {
        for (cl_uint i = 0; i < m->ctx->num_devices; i++)
            hcq_mem_free(im->abi[i]);
        free(im->abi);
    }
    if (im->desc.buffer && im->desc.buffer->parent)
        hcqcl_clReleaseMemObject(im->desc.buffer);
    free(im);
    m->image = NULL;
}

/* Write one descriptor per device of m's context. */
static cl_int image_write_abi(cl_mem m)
{
    struct hcqcl_image *im = m->image;
    const cl_image_desc *d = &im->desc;
    cl_context ctx = m->ctx;
    im->abi = calloc(ctx->num_devices, sizeof(*im->abi));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources required by the OpenCL implementation on the host */
    HCQCL_CHECK(im->abi, CL_OUT_OF_HOST_MEMORY, "descriptor table");
    const bool is1d = d->image_type == CL_MEM_OBJECT_IMAGE1D ||
                      d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                      d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    for (cl_uint i = 0; i < ctx->num_devices; i++) {
        struct hcq_device *dev = ctx->devices[i]->hw;
        int rc = hcq_mem_alloc_small(dev, HCQCL_IMAGE_ABI_SIZE, HCQ_MEM_DEVICE_MAPPED,
                                     &im->abi[i]);
        if (rc < 0 || !im->abi[i]->cpu) {
            hcq_mem_free(im->abi[i]);
            im->abi[i] = NULL;
            rc = hcq_mem_alloc_small(dev, HCQCL_IMAGE_ABI_SIZE, HCQ_MEM_HOST, &im->abi[i]);
        }
        /* CL_OUT_OF_RESOURCES if there is a failure to allocate resources required by the OpenCL implementation on the device */
        HCQCL_CHECK(rc == 0, CL_OUT_OF_RESOURCES, "descriptor on device %u: %d", i, rc);
        struct hcqcl_image_abi abi = {
            .data = hcqcl_mem_va(m, dev),
            .row_pitch = im->row_pitch,
            .slice_pitch = im->slice_pitch,
            .width = (uint32_t)d->image_width,
            .height = is1d ? 1u : (uint32_t)d->image_height,
            .depth = d->image_type == CL_MEM_OBJECT_IMAGE3D ? (uint32_t)d->image_depth : 1u,
            .array_size = (uint32_t)d->image_array_size,
            .order = im->format.image_channel_order,
            .type = im->format.image_channel_data_type,
            .elem_size = (uint32_t)im->elem_size,
            .mem_type = d->image_type,
        };
        memcpy(im->abi[i]->cpu, &abi, sizeof(abi));
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    return CL_SUCCESS;
}

/* The image's geometry from image_desc: every rule of the descriptor and
 * the size limits. size_err: the error for a zero width/height/depth and
 * for pitches that break their rules (clCreateImage:
 * CL_INVALID_IMAGE_DESCRIPTOR; clCreateImage2D/3D name
 * CL_INVALID_IMAGE_SIZE for both). */
static cl_int image_check_desc(const cl_image_desc *d, size_t elem, const void *host_ptr,
                               cl_int size_err)
{
    const cl_mem_object_type t = d->image_type;
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid */
    HCQCL_CHECK(t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                    t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D ||
                    t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D,
                CL_INVALID_IMAGE_DESCRIPTOR, "image_type 0x%x", t);
    const bool has_h = t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                       t == CL_MEM_OBJECT_IMAGE3D;
    const bool is_array = t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (num_mip_levels and num_samples must be 0) */
    HCQCL_CHECK(d->num_mip_levels == 0 && d->num_samples == 0, CL_INVALID_IMAGE_DESCRIPTOR,
                "num_mip_levels %u, num_samples %u", d->num_mip_levels, d->num_samples);
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (buffer for a 1D image buffer, mem_object for a 2D image, nothing for the others) */
    HCQCL_CHECK(t == CL_MEM_OBJECT_IMAGE1D_BUFFER ? d->buffer != NULL
                                                  : !d->mem_object || t == CL_MEM_OBJECT_IMAGE2D,
                CL_INVALID_IMAGE_DESCRIPTOR, "buffer %p for image type 0x%x", (void *)d->buffer,
                t);
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (width, height, depth and array size >= 1) */
    HCQCL_CHECK(d->image_width >= 1 && (!has_h || d->image_height >= 1) &&
                    (t != CL_MEM_OBJECT_IMAGE3D || d->image_depth >= 1),
                size_err, "size %zu x %zu x %zu", d->image_width, d->image_height,
                d->image_depth);
    HCQCL_CHECK(!is_array || d->image_array_size >= 1, CL_INVALID_IMAGE_DESCRIPTOR,
                "array size 0");
    /* CL_INVALID_IMAGE_SIZE if image dimensions specified in image_desc exceed the maximum image dimensions described in the Device Queries table for all devices in context */
    switch (t) {
    case CL_MEM_OBJECT_IMAGE1D:
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
        HCQCL_CHECK(d->image_width <= IMG2D_MAX, CL_INVALID_IMAGE_SIZE, "width %zu",
                    d->image_width);
        break;
    case CL_MEM_OBJECT_IMAGE1D_BUFFER:
        HCQCL_CHECK(d->image_width <= IMG_BUFFER_MAX, CL_INVALID_IMAGE_SIZE, "width %zu",
                    d->image_width);
        break;
    case CL_MEM_OBJECT_IMAGE2D:
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
        HCQCL_CHECK(d->image_width <= IMG2D_MAX && d->image_height <= IMG2D_MAX,
                    CL_INVALID_IMAGE_SIZE, "%zu x %zu", d->image_width, d->image_height);
        break;
    default:
        HCQCL_CHECK(d->image_width <= IMG3D_MAX && d->image_height <= IMG3D_MAX &&
                        d->image_depth <= IMG3D_MAX,
                    CL_INVALID_IMAGE_SIZE, "%zu x %zu x %zu", d->image_width, d->image_height,
                    d->image_depth);
        break;
    }
    HCQCL_CHECK(!is_array || d->image_array_size <= IMG_ARRAY_MAX, CL_INVALID_IMAGE_SIZE,
                "array size %zu", d->image_array_size);
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (image_row_pitch must be 0 if host_ptr is NULL); clCreateImage2D/3D: CL_INVALID_IMAGE_SIZE if values specified by image_row_pitch do not follow rules described in the argument description */
    HCQCL_CHECK(host_ptr || (d->image_row_pitch == 0 && d->image_slice_pitch == 0), size_err,
                "pitches %zu/%zu without host_ptr", d->image_row_pitch, d->image_slice_pitch);
    const size_t min_row = d->image_width * elem;
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (image_row_pitch is 0 or >= image_width x element size, and a multiple of the element size); CL_INVALID_IMAGE_SIZE for clCreateImage2D/3D */
    HCQCL_CHECK(d->image_row_pitch == 0 ||
                    (d->image_row_pitch >= min_row && d->image_row_pitch % elem == 0),
                size_err, "row pitch %zu (width %zu x %zu)", d->image_row_pitch,
                d->image_width, elem);
    if (t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
        t == CL_MEM_OBJECT_IMAGE3D) {
        const size_t row = d->image_row_pitch ? d->image_row_pitch : min_row;
        const size_t min_slice = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? row : row * d->image_height;
        /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (image_slice_pitch is 0 or >= the minimum and a multiple of image_row_pitch); CL_INVALID_IMAGE_SIZE for clCreateImage3D */
        HCQCL_CHECK(d->image_slice_pitch == 0 ||
                        (d->image_slice_pitch >= min_slice && d->image_slice_pitch % row == 0),
                    size_err, "slice pitch %zu (min %zu, row %zu)", d->image_slice_pitch,
                    min_slice, row);
    }
    return CL_SUCCESS;
}

/* rows x layers of the store: (height, depth or array size) by type. */
static void image_rows(const cl_image_desc *d, size_t *rows, size_t *slices)
{
    switch (d->image_type) {
    case CL_MEM_OBJECT_IMAGE2D: *rows = d->image_height; *slices = 1; break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: *rows = d->image_height; *slices = d->image_array_size; break;
    case CL_MEM_OBJECT_IMAGE3D: *rows = d->image_height; *slices = d->image_depth; break;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: *rows = 1; *slices = d->image_array_size; break;
    default: *rows = 1; *slices = 1; break;
    }
}

/* The channel orders a view may give the pixels of an image of order o:
 * its own, the sRGB / linear twin, or CL_DEPTH for a CL_R image (that
 * way only; "Compatible Image Channel Orders", clCreateImage). */
static bool view_order_ok(cl_channel_order want, cl_channel_order o)
{
    static const cl_channel_order twins[][2] = {
        {CL_sBGRA, CL_BGRA}, {CL_sRGBA, CL_RGBA}, {CL_sRGB, CL_RGB}, {CL_sRGBx, CL_RGBx}};
    if (want == o || (want == CL_DEPTH && o == CL_R))
        return true;
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(twins); i++)
        if ((want == twins[i][0] && o == twins[i][1]) || (want == twins[i][1] && o == twins[i][0]))
            return true;
    return false;
}

/* Whether m is a buffer (image_desc->buffer / mem_object: m may be
 * anything the application passed, NULL included). */
static bool is_buffer(cl_mem m) { return hcqcl_mem_valid(m) && m->type == CL_MEM_OBJECT_BUFFER; }

/* A 2D image made from a buffer (image_desc->mem_object, the rules of
 * cl_image_desc for it): the flags it gets (*eff) and its row pitch. */
static cl_int image_buffer2d_check(cl_context ctx, cl_mem buf, const cl_image_desc *desc,
                                   size_t elem, cl_mem_flags flags, cl_mem_flags *eff,
                                   size_t *row)
{
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (mem_object a buffer of context) */
    HCQCL_CHECK(buf->ctx == ctx, CL_INVALID_IMAGE_DESCRIPTOR, "buffer %p of another context",
                (void *)buf);
    const size_t min_row = desc->image_width * elem;
    const size_t rp = desc->image_row_pitch ? desc->image_row_pitch : min_row;
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (image_row_pitch is 0 or >= image_width x element size, and a multiple of the element size) */
    HCQCL_CHECK(rp >= min_row && rp % elem == 0, CL_INVALID_IMAGE_DESCRIPTOR,
                "row pitch %zu (width %zu x %zu)", rp, desc->image_width, elem);
    /* CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if a 2D image is created from a buffer and the row pitch and base address alignment does not follow the rules described for creating a 2D image from a buffer ("the pitch specified (or computed if pitch specified is 0) must be a multiple of the maximum of the CL_DEVICE_IMAGE_PITCH_ALIGNMENT value"; the host_ptr of a CL_MEM_USE_HOST_PTR buffer "must be aligned to the maximum of the CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT value") */
    HCQCL_CHECK(rp % (HCQCL_IMAGE_PITCH_ALIGN * elem) == 0 &&
                    (!(buf->flags & CL_MEM_USE_HOST_PTR) ||
                     (uintptr_t)buf->host_ptr % (HCQCL_IMAGE_BASE_ALIGN * elem) == 0),
                CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "row pitch %zu, host_ptr %p, %zu-byte pixels",
                rp, buf->host_ptr, elem);
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid ("the image_row_pitch x image_height must be <= size of the buffer object specified by mem_object") */
    HCQCL_CHECK(desc->image_height <= buf->size / rp, CL_INVALID_IMAGE_DESCRIPTOR,
                "%zu rows of %zu bytes in a buffer of %zu", desc->image_height, rp, buf->size);
    *row = rp;
    /* CL_INVALID_VALUE if an image is being created from another memory object and its flags exclude what flags asks (access, host access, host pointer flags) */
    return hcqcl_mem_derived_flags(buf->flags, flags, eff);
}

/* A 2D image made from another 2D image (image_desc->mem_object): the
 * rules, and the flags it gets (*eff). */
static cl_int image_view_check(cl_context ctx, cl_mem src, const cl_image_format *format,
                               const cl_image_desc *desc, cl_mem_flags flags, cl_mem_flags *eff)
{
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (mem_object an image of context) */
    HCQCL_CHECK(hcqcl_mem_valid(src) && src->image && src->ctx == ctx,
                CL_INVALID_IMAGE_DESCRIPTOR, "mem_object %p", (void *)src);
    const struct hcqcl_image *si = src->image;
    /* CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if a 2D image is created from a 2D image object and the rules described above are not followed (all the values specified in image_desc except for mem_object must match the image descriptor information associated with mem_object) */
    HCQCL_CHECK(src->type == CL_MEM_OBJECT_IMAGE2D &&
                    desc->image_width == si->desc.image_width &&
                    desc->image_height == si->desc.image_height &&
                    (!desc->image_row_pitch || desc->image_row_pitch == si->info_row_pitch) &&
                    !desc->image_slice_pitch,
                CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                "%zu x %zu (pitches %zu/%zu) from image %p of type 0x%x, %zu x %zu (pitch %zu)",
                desc->image_width, desc->image_height, desc->image_row_pitch,
                desc->image_slice_pitch, (void *)src, src->type, si->desc.image_width,
                si->desc.image_height, si->info_row_pitch);
    /* CL_INVALID_IMAGE_FORMAT_DESCRIPTOR (the channel data type must match, the channel orders be the same, an sRGB / linear pair, or CL_DEPTH of CL_R) */
    HCQCL_CHECK(format->image_channel_data_type == si->format.image_channel_data_type &&
                    view_order_ok(format->image_channel_order, si->format.image_channel_order),
                CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "format (0x%x, 0x%x) of an image of (0x%x, 0x%x)",
                format->image_channel_order, format->image_channel_data_type,
                si->format.image_channel_order, si->format.image_channel_data_type);
    /* CL_INVALID_VALUE if an image is being created from another memory object and its flags exclude what flags asks (access, host access, host pointer flags) */
    return hcqcl_mem_derived_flags(src->flags, flags, eff);
}

static cl_mem image_create(cl_context ctx, const cl_mem_properties *props, cl_mem_flags flags,
                           const cl_image_format *format, const cl_image_desc *desc,
                           void *host_ptr, cl_int size_err, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = NULL;
    size_t props_size = 0;
    struct hcqcl_image *im = NULL;
    void *packed = NULL;

    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(ctx), err, CL_INVALID_CONTEXT, "context %p", (void *)ctx);
    /* CL_INVALID_OPERATION if there are no devices in context that support images (CL_DEVICE_IMAGE_SUPPORT is CL_FALSE) */
    HCQCL_CHECK_GOTO(hcqcl_images_enabled(), err, CL_INVALID_OPERATION,
                     "images are off (HCQCL_IMAGES=1 turns them on)");
    /* CL_INVALID_PROPERTY if a property name in properties is not a supported property name */
    err = hcqcl_mem_check_props(props, &props_size);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_VALUE if values specified in flags are not valid */
    err = hcqcl_mem_check_flags(flags);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are not valid or if image_format is NULL */
    const size_t elem = format ? hcqcl_image_format_size(format) : 0;
    HCQCL_CHECK_GOTO(elem, err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "format %p (0x%x, 0x%x)",
                     (const void *)format, format ? format->image_channel_order : 0,
                     format ? format->image_channel_data_type : 0);
    /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid or if image_desc is NULL */
    HCQCL_CHECK_GOTO(desc, err, CL_INVALID_IMAGE_DESCRIPTOR, "image_desc NULL");
    /* A 2D image of another one's pixels: its pitches are the other's
     * (checked below), not a host pointer's; of a buffer's, its row pitch
     * is the application's (checked below), with no host pointer. */
    const cl_mem src = desc->image_type == CL_MEM_OBJECT_IMAGE2D ? desc->mem_object : NULL;
    const bool from_buffer = is_buffer(src);
    cl_image_desc checked = *desc;
    if (src)
        checked.image_row_pitch = 0;
    if (src && !from_buffer)
        checked.image_slice_pitch = 0;
    err = image_check_desc(&checked, elem, host_ptr, size_err);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR are set in flags */
    HCQCL_CHECK_GOTO(host_ptr || !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)), err,
                     CL_INVALID_HOST_PTR, "host_ptr NULL with USE/COPY_HOST_PTR");
    /* CL_INVALID_HOST_PTR if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags */
    HCQCL_CHECK_GOTO(!host_ptr || (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)), err,
                     CL_INVALID_HOST_PTR, "host_ptr given without USE/COPY_HOST_PTR");
    cl_mem buf = desc->buffer;
    cl_mem_flags eff = flags;
    if (desc->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid (buffer must be a valid buffer object of context) */
        HCQCL_CHECK_GOTO(is_buffer(buf) && buf->ctx == ctx,
                         err, CL_INVALID_IMAGE_DESCRIPTOR, "buffer %p", (void *)buf);
        /* The rules of an image made from a buffer are a sub-buffer's
         * (CL_INVALID_VALUE for flags the buffer's flags exclude). */
        err = hcqcl_mem_derived_flags(buf->flags, flags, &eff);
        if (err != CL_SUCCESS)
            goto fail;
        /* CL_INVALID_IMAGE_SIZE if image_width x the element size exceeds the size of the buffer object */
        HCQCL_CHECK_GOTO(desc->image_width * elem <= buf->size, err, CL_INVALID_IMAGE_SIZE,
                         "%zu pixels of %zu bytes in a buffer of %zu", desc->image_width, elem,
                         buf->size);
    }
    size_t buffer_row = 0;
    if (from_buffer)
        err = image_buffer2d_check(ctx, src, desc, elem, flags, &eff, &buffer_row);
    else if (src)
        err = image_view_check(ctx, src, format, desc, flags, &eff);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_IMAGE_FORMAT_NOT_SUPPORTED if there are no devices in context that support image_format */
    HCQCL_CHECK_GOTO(hcqcl_image_format_supported(format, eff, desc->image_type), err,
                     CL_IMAGE_FORMAT_NOT_SUPPORTED, "format (0x%x, 0x%x), flags 0x%llx",
                     format->image_channel_order, format->image_channel_data_type,
                     (unsigned long long)eff);

    im = calloc(1, sizeof(*im));
    HCQCL_CHECK_GOTO(im, err, CL_OUT_OF_HOST_MEMORY, "image record");
    im->format = *format;
    im->elem_size = elem;
    im->desc = *desc;
    cl_image_desc *d = &im->desc;
    /* What the queries report for dimensions an image type does not have. */
    if (d->image_type != CL_MEM_OBJECT_IMAGE2D && d->image_type != CL_MEM_OBJECT_IMAGE2D_ARRAY &&
        d->image_type != CL_MEM_OBJECT_IMAGE3D)
        d->image_height = 0;
    if (d->image_type != CL_MEM_OBJECT_IMAGE3D)
        d->image_depth = 0;
    if (d->image_type != CL_MEM_OBJECT_IMAGE1D_ARRAY &&
        d->image_type != CL_MEM_OBJECT_IMAGE2D_ARRAY)
        d->image_array_size = 0;
    size_t rows, slices;
    image_rows(d, &rows, &slices);
    const size_t tight_row = d->image_width * elem, tight_slice = tight_row * rows;
    /* The application's layout (host_ptr), its defaults applied. A slice
     * pitch means something only to image types with slices. */
    const bool has_slices = d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
                            d->image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                            d->image_type == CL_MEM_OBJECT_IMAGE3D;
    const size_t app_row = desc->image_row_pitch ? desc->image_row_pitch : tight_row;
    const size_t app_slice =
        has_slices && desc->image_slice_pitch ? desc->image_slice_pitch : app_row * rows;
    const bool use = flags & CL_MEM_USE_HOST_PTR;
    im->row_pitch = use ? app_row : tight_row;
    const size_t layer = use ? app_slice : tight_slice;
    im->slice_pitch = has_slices ? layer : 0;
    /* clGetImageInfo: "If image was created with a non-zero value for
     * image_row_pitch, then the value provided for image_row_pitch by the
     * application is returned" (and the same of the slice pitch),
     * whatever the store's own pitches; "For a 1D image, 1D image buffer
     * and 2D image object return 0" (a slice pitch given with their
     * host_ptr means nothing). */
    im->info_row_pitch = app_row;
    im->info_slice_pitch = has_slices ? app_slice : 0;
    if (from_buffer) {
        /* The buffer's bytes at the application's row pitch. */
        im->row_pitch = im->info_row_pitch = buffer_row;
    } else if (src) {
        /* The other image's store, pitches and all. */
        im->row_pitch = src->image->row_pitch;
        im->info_row_pitch = src->image->info_row_pitch;
        im->info_slice_pitch = 0;
    }
    size_t total = 0;
    if (from_buffer)
        total = buffer_row * rows; /* within the buffer (checked) */
    else if (src)
        total = src->size;
    else if (__builtin_mul_overflow(layer, slices, &total))
        total = SIZE_MAX;
    uint64_t max_alloc = 0;
    for (cl_uint i = 0; i < ctx->num_devices; i++)
        max_alloc = UTIL_MAX(max_alloc, hcqcl_device_max_alloc(ctx->devices[i]));
    /* CL_INVALID_IMAGE_SIZE if image dimensions specified in image_desc exceed the maximum image dimensions (the image is larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE) */
    HCQCL_CHECK_GOTO(total <= max_alloc, err, CL_INVALID_IMAGE_SIZE, "%zu bytes (max %llu)",
                     total, (unsigned long long)max_alloc);

    size_t svm_off = 0;
    cl_mem svm = use ? hcqcl_svm_find(ctx, host_ptr, total, &svm_off) : NULL;
    if (d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER || svm || src) {
        /* A 1D image buffer is a view of its buffer, a 2D image made from
         * a buffer or another image a view of that one's store; an image
         * on an SVM pointer uses the allocation's memory, as a buffer does. */
        m = svm ? hcqcl_mem_create_alias(svm, svm_off, eff, total, host_ptr)
                : hcqcl_mem_create_view(src ? src : buf, eff, total);
        if (svm)
            hcqcl_clReleaseMemObject(svm);
        HCQCL_CHECK_GOTO(m, err, CL_OUT_OF_HOST_MEMORY, "image object");
        err = hcqcl_mem_keep_props(m, props, props_size);
        if (err != CL_SUCCESS)
            goto fail;
    } else {
        const void *init = NULL;
        if (flags & CL_MEM_COPY_HOST_PTR) {
            init = host_ptr;
            if (app_row != tight_row || app_slice != tight_slice) {
                /* Repack the application's pitches into the store's tight ones. */
                packed = malloc(total);
                HCQCL_CHECK_GOTO(packed, err, CL_OUT_OF_HOST_MEMORY, "%zu bytes to repack",
                                 total);
                for (size_t z = 0; z < slices; z++)
                    for (size_t y = 0; y < rows; y++)
                        memcpy((uint8_t *)packed + z * tight_slice + y * tight_row,
                               (const uint8_t *)host_ptr + z * app_slice + y * app_row,
                               tight_row);
                init = packed;
            }
        }
        m = hcqcl_mem_create(ctx, props, props_size, flags, total, host_ptr, init, &err);
        if (!m)
            goto fail;
    }
    m->type = d->image_type;
    d->image_row_pitch = im->row_pitch;
    d->image_slice_pitch = im->slice_pitch;
    /* The view holds the buffer of the store; a sub-buffer (or a view
     * image) it was made from is held here too (CL_IMAGE_BUFFER or
     * CL_MEM_ASSOCIATED_MEMOBJECT returns it). */
    if (d->buffer && d->buffer->parent)
        hcqcl_clRetainMemObject(d->buffer);
    m->image = im;
    im = NULL;
    err = image_write_abi(m);
    if (err != CL_SUCCESS)
        goto fail;
    free(packed);
    UTIL_LOG(UTIL_LOG_API, "api: image %p: type 0x%x, %zu x %zu x %zu [%zu], elem %zu, pitches %zu/%zu\n",
             (void *)m, m->type, d->image_width, d->image_height, d->image_depth,
             d->image_array_size, elem, m->image->row_pitch, m->image->slice_pitch);
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return m;
fail:
    free(packed);
    free(im);
    if (m)
        hcqcl_clReleaseMemObject(m);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_mem hcqcl_clCreateImage(cl_context context, cl_mem_flags flags,
                           const cl_image_format *image_format, const cl_image_desc *image_desc,
                           void *host_ptr, cl_int *errcode_ret)
{
    return image_create(context, NULL, flags, image_format, image_desc, host_ptr,
                        CL_INVALID_IMAGE_DESCRIPTOR, errcode_ret);
}

cl_mem hcqcl_clCreateImageWithProperties(cl_context context, const cl_mem_properties *properties,
                                         cl_mem_flags flags, const cl_image_format *image_format,
                                         const cl_image_desc *image_desc, void *host_ptr,
                                         cl_int *errcode_ret)
{
    return image_create(context, properties, flags, image_format, image_desc, host_ptr,
                        CL_INVALID_IMAGE_DESCRIPTOR, errcode_ret);
}

cl_mem hcqcl_clCreateImage2D(cl_context context, cl_mem_flags flags,
                             const cl_image_format *image_format, size_t image_width,
                             size_t image_height, size_t image_row_pitch, void *host_ptr,
                             cl_int *errcode_ret)
{
    const cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                             .image_width = image_width,
                             .image_height = image_height,
                             .image_row_pitch = image_row_pitch};
    /* CL_INVALID_IMAGE_SIZE if image_width or image_height are 0 or if they exceed the maximum, or if values specified by image_row_pitch do not follow rules described in the argument description */
    return image_create(context, NULL, flags, image_format, &d, host_ptr, CL_INVALID_IMAGE_SIZE,
                        errcode_ret);
}

cl_mem hcqcl_clCreateImage3D(cl_context context, cl_mem_flags flags,
                             const cl_image_format *image_format, size_t image_width,
                             size_t image_height, size_t image_depth, size_t image_row_pitch,
                             size_t image_slice_pitch, void *host_ptr, cl_int *errcode_ret)
{
    cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE3D,
                             .image_width = image_width,
                             .image_height = image_height,
                             .image_depth = image_depth,
                             .image_row_pitch = image_row_pitch,
                             .image_slice_pitch = image_slice_pitch};
    /* CL_INVALID_IMAGE_SIZE if image_width or image_height are 0 or if image_depth <= 1 (a depth of 1 is taken as 0), or if values specified by image_row_pitch and image_slice_pitch do not follow rules described in the argument description */
    if (d.image_depth == 1)
        d.image_depth = 0;
    return image_create(context, NULL, flags, image_format, &d, host_ptr, CL_INVALID_IMAGE_SIZE,
                        errcode_ret);
}

/* ---- Queries --------------------------------------------------------- */

cl_int hcqcl_clGetImageInfo(cl_mem image, cl_image_info param_name, size_t param_value_size,
                            void *param_value, size_t *param_value_size_ret)
{
    /* CL_INVALID_MEM_OBJECT if image is a not a valid image object */
    HCQCL_CHECK(hcqcl_mem_valid(image) && image->image, CL_INVALID_MEM_OBJECT, "image %p",
                (void *)image);
    const struct hcqcl_image *im = image->image;
    union {
        cl_image_format f;
        size_t s;
        cl_mem m;
        cl_uint u;
    } v;
    size_t n;
    switch (param_name) {
    case CL_IMAGE_FORMAT: v.f = im->format; n = sizeof(v.f); break;
    case CL_IMAGE_ELEMENT_SIZE: v.s = im->elem_size; n = sizeof(v.s); break;
    case CL_IMAGE_ROW_PITCH: v.s = im->info_row_pitch; n = sizeof(v.s); break;
    case CL_IMAGE_SLICE_PITCH: v.s = im->info_slice_pitch; n = sizeof(v.s); break;
    case CL_IMAGE_WIDTH: v.s = im->desc.image_width; n = sizeof(v.s); break;
    case CL_IMAGE_HEIGHT: v.s = im->desc.image_height; n = sizeof(v.s); break;
    case CL_IMAGE_DEPTH: v.s = im->desc.image_depth; n = sizeof(v.s); break;
    case CL_IMAGE_ARRAY_SIZE: v.s = im->desc.image_array_size; n = sizeof(v.s); break;
    case CL_IMAGE_BUFFER: /* the buffer it was made from, if any */
        v.m = is_buffer(im->desc.buffer) ? im->desc.buffer : NULL;
        n = sizeof(v.m);
        break;
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES: v.u = 0; n = sizeof(v.u); break;
    default:
        /* CL_INVALID_VALUE if param_name is not valid */
        HCQCL_FAIL(CL_INVALID_VALUE, "param_name 0x%x", param_name);
    }
    return hcqcl_info_out(&v, n, param_value_size, param_value, param_value_size_ret);
}

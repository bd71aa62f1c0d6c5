/*
 * enqueue_image.c — clEnqueueReadImage, clEnqueueWriteImage,
 * clEnqueueCopyImage, clEnqueueCopyImageToBuffer,
 * clEnqueueCopyBufferToImage, clEnqueueFillImage and clEnqueueMapImage
 * (clEnqueueUnmapMemObject of enqueue_map.c unmaps images too).
 *
 * An image's store is rows and slices of bytes (image.c), so every
 * command is a rectangle of bytes handed to the buffer rect paths of
 * enqueue_rect.c: x in bytes (origin[0] x elem_size, region[0] x
 * elem_size), then y and z. A 1D image array puts its layer in y (its
 * "row" step is the layer pitch), so that a region means the same rows
 * in any two images, whatever their types (copies between types). Fills
 * convert the color into one pixel (image_format.c), repeat it over the
 * region in host memory and write that as a rectangle. Maps map the byte
 * span of the region like a buffer range: a USE_HOST_PTR image's pointer
 * is host_ptr-based, as its store is the application's memory.
 */
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"

/* CL_INVALID_MEM_OBJECT unless m is an image; CL_INVALID_CONTEXT unless of q's context. */
static cl_int image_check(cl_command_queue q, cl_mem m)
{
    /* CL_INVALID_MEM_OBJECT if image is not a valid image object */
    HCQCL_CHECK(hcqcl_mem_valid(m) && m->image, CL_INVALID_MEM_OBJECT, "image %p", (void *)m);
    /* CL_INVALID_CONTEXT if the context associated with command_queue and image are not the same */
    HCQCL_CHECK(m->ctx == hcqcl_queue_context(q), CL_INVALID_CONTEXT,
                "image %p of another context", (void *)m);
    return CL_SUCCESS;
}

/* The queue, then the images-on switch. */
static cl_int image_queue(cl_command_queue q)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support images */
    HCQCL_CHECK(hcqcl_images_enabled(), CL_INVALID_OPERATION,
                "images are off (HCQCL_IMAGES=1 turns them on)");
    return CL_SUCCESS;
}

/* The extent of each coordinate of m, and the byte steps of y and z. */
static void image_extent(cl_mem m, size_t ext[3], size_t *ystep, size_t *zstep)
{
    const struct hcqcl_image *im = m->image;
    const cl_image_desc *d = &im->desc;
    ext[0] = d->image_width;
    ext[1] = ext[2] = 1;
    *ystep = im->row_pitch;
    *zstep = im->slice_pitch ? im->slice_pitch : im->row_pitch;
    switch (m->type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
        ext[1] = d->image_array_size;
        *ystep = im->slice_pitch;
        *zstep = im->slice_pitch * d->image_array_size;
        break;
    case CL_MEM_OBJECT_IMAGE2D:
        ext[1] = d->image_height;
        *zstep = im->row_pitch * d->image_height;
        break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
        ext[1] = d->image_height;
        ext[2] = d->image_array_size;
        break;
    case CL_MEM_OBJECT_IMAGE3D:
        ext[1] = d->image_height;
        ext[2] = d->image_depth;
        break;
    default: break;
    }
}

/* origin and region of an image command, checked against m's type and
 * size, as a rectangle of bytes of its store. */
static cl_int image_rect(cl_mem m, const size_t *origin, const size_t *region,
                         struct hcqcl_rect *r)
{
    /* CL_INVALID_VALUE if origin or region is NULL */
    HCQCL_CHECK(origin && region, CL_INVALID_VALUE, "NULL origin or region");
    size_t ext[3], ystep, zstep;
    image_extent(m, ext, &ystep, &zstep);
    for (int i = 0; i < 3; i++) {
        /* CL_INVALID_VALUE if values in origin and region do not follow rules described in the argument description for origin and region (region elements are at least 1; unused ones 1, with origin 0) */
        HCQCL_CHECK(region[i] >= 1, CL_INVALID_VALUE, "region[%d] 0", i);
        /* CL_INVALID_VALUE if the region specified by origin and region is out of bounds */
        HCQCL_CHECK(origin[i] < ext[i] && region[i] <= ext[i] - origin[i], CL_INVALID_VALUE,
                    "coordinate %d: %zu + %zu outside %zu", i, origin[i], region[i], ext[i]);
    }
    const size_t elem = m->image->elem_size;
    r->origin[0] = origin[0] * elem;
    r->origin[1] = origin[1];
    r->origin[2] = origin[2];
    r->region[0] = region[0] * elem;
    r->region[1] = region[1];
    r->region[2] = region[2];
    r->row_pitch = ystep;
    r->slice_pitch = zstep;
    r->offset = origin[2] * zstep + origin[1] * ystep + r->origin[0];
    r->span = (region[2] - 1) * zstep + (region[1] - 1) * ystep + r->region[0];
    return CL_SUCCESS;
}

/* The host side of a read or write: the application's pitches (0: tight)
 * for the shape of r. */
static cl_int image_host_rect(cl_mem m, const struct hcqcl_rect *r, size_t row_pitch,
                              size_t slice_pitch, struct hcqcl_rect *h)
{
    const cl_mem_object_type t = m->type;
    const size_t w = r->region[0];
    /* CL_INVALID_VALUE if row_pitch is not 0 and is less than the width of the region in bytes */
    HCQCL_CHECK(row_pitch == 0 || row_pitch >= w, CL_INVALID_VALUE, "row pitch %zu < %zu",
                row_pitch, w);
    const size_t row = row_pitch ? row_pitch : w;
    if (t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
        t == CL_MEM_OBJECT_IMAGE2D) {
        /* CL_INVALID_VALUE if image is a 1D or 2D image and slice_pitch is not 0 */
        HCQCL_CHECK(slice_pitch == 0, CL_INVALID_VALUE, "slice pitch %zu for a 1D or 2D image",
                    slice_pitch);
    }
    size_t ystep, zstep;
    if (t == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
        /* CL_INVALID_VALUE if slice_pitch is not 0 and is less than row_pitch (a 1D image array's layer) */
        HCQCL_CHECK(slice_pitch == 0 || slice_pitch >= row, CL_INVALID_VALUE,
                    "slice pitch %zu < row pitch %zu", slice_pitch, row);
        ystep = slice_pitch ? slice_pitch : row;
        zstep = ystep * r->region[1];
    } else {
        /* CL_INVALID_VALUE if slice_pitch is not 0 and is less than row_pitch x the height of the region */
        HCQCL_CHECK(slice_pitch == 0 || slice_pitch >= row * r->region[1], CL_INVALID_VALUE,
                    "slice pitch %zu < %zu x %zu", slice_pitch, row, r->region[1]);
        ystep = row;
        zstep = slice_pitch ? slice_pitch : row * r->region[1];
    }
    *h = *r;
    h->origin[0] = h->origin[1] = h->origin[2] = 0;
    h->row_pitch = ystep;
    h->slice_pitch = zstep;
    h->offset = 0;
    h->span = (r->region[2] - 1) * zstep + (r->region[1] - 1) * ystep + w;
    return CL_SUCCESS;
}

static cl_int image_read_write(cl_command_queue q, cl_mem image, cl_bool blocking,
                               const size_t *origin, const size_t *region, size_t row_pitch,
                               size_t slice_pitch, void *ptr, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event, bool write)
{
    cl_int err = image_queue(q);
    if (err == CL_SUCCESS)
        err = image_check(q, image);
    struct hcqcl_rect r, h;
    if (err == CL_SUCCESS)
        err = image_rect(image, origin, region, &r);
    if (err == CL_SUCCESS)
        err = image_host_rect(image, &r, row_pitch, slice_pitch, &h);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE if ptr is NULL; CL_INVALID_OPERATION for the host access flags (the helper) */
    return hcqcl_rect_enqueue_host(q, image, blocking, &r, &h, ptr, write, true,
                                   write ? CL_COMMAND_WRITE_IMAGE : CL_COMMAND_READ_IMAGE,
                                   num_events, wait_list, event);
}

cl_int hcqcl_clEnqueueReadImage(cl_command_queue command_queue, cl_mem image,
                                cl_bool blocking_read, const size_t *origin, const size_t *region,
                                size_t row_pitch, size_t slice_pitch, void *ptr,
                                cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                cl_event *event)
{
    return image_read_write(command_queue, image, blocking_read, origin, region, row_pitch,
                            slice_pitch, ptr, num_events_in_wait_list, event_wait_list, event,
                            false);
}

cl_int hcqcl_clEnqueueWriteImage(cl_command_queue command_queue, cl_mem image,
                                 cl_bool blocking_write, const size_t *origin,
                                 const size_t *region, size_t input_row_pitch,
                                 size_t input_slice_pitch, const void *ptr,
                                 cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                 cl_event *event)
{
    return image_read_write(command_queue, image, blocking_write, origin, region,
                            input_row_pitch, input_slice_pitch, (void *)ptr,
                            num_events_in_wait_list, event_wait_list, event, true);
}

cl_int hcqcl_clEnqueueCopyImage(cl_command_queue command_queue, cl_mem src_image,
                                cl_mem dst_image, const size_t *src_origin,
                                const size_t *dst_origin, const size_t *region,
                                cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                cl_event *event)
{
    cl_command_queue q = command_queue;
    cl_int err = image_queue(q);
    if (err == CL_SUCCESS)
        err = image_check(q, src_image);
    if (err == CL_SUCCESS)
        err = image_check(q, dst_image);
    if (err != CL_SUCCESS)
        return err;
    const cl_image_format *sf = &src_image->image->format, *df = &dst_image->image->format;
    /* CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use the same image format */
    HCQCL_CHECK(sf->image_channel_order == df->image_channel_order &&
                    sf->image_channel_data_type == df->image_channel_data_type,
                CL_IMAGE_FORMAT_MISMATCH, "(0x%x, 0x%x) -> (0x%x, 0x%x)",
                sf->image_channel_order, sf->image_channel_data_type, df->image_channel_order,
                df->image_channel_data_type);
    struct hcqcl_rect s, d;
    /* CL_INVALID_VALUE if the 2D or 3D rectangular region specified by src_origin and src_origin + region refers to a region outside src_image, or if the region specified by dst_origin and dst_origin + region refers to a region outside dst_image */
    err = image_rect(src_image, src_origin, region, &s);
    if (err == CL_SUCCESS)
        err = image_rect(dst_image, dst_origin, region, &d);
    if (err != CL_SUCCESS)
        return err;
    /* CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image object and the source and destination regions overlap */
    HCQCL_CHECK(src_image != dst_image || !hcqcl_rect_overlap(s.offset, d.offset, &s),
                CL_MEM_COPY_OVERLAP, "copy within %p overlaps", (void *)src_image);
    return hcqcl_rect_enqueue_copy(q, src_image, dst_image, &s, &d, CL_COMMAND_COPY_IMAGE,
                                   num_events_in_wait_list, event_wait_list, event);
}

/* The buffer side of an image <-> buffer copy: region r packed tight
 * from byte offset of buf. */
static cl_int buffer_rect(cl_mem buf, size_t offset, const struct hcqcl_rect *r,
                          struct hcqcl_rect *b)
{
    const size_t row = r->region[0], slice = row * r->region[1];
    size_t size;
    bool ok = !__builtin_mul_overflow(slice, r->region[2], &size);
    /* CL_INVALID_VALUE if the region specified by offset and offset + the size of the region is out of bounds of the buffer */
    HCQCL_CHECK(ok && size <= buf->size && offset <= buf->size - size, CL_INVALID_VALUE,
                "%zu bytes at %zu outside %zu", size, offset, buf->size);
    *b = *r;
    b->origin[0] = b->origin[1] = b->origin[2] = 0;
    b->row_pitch = row;
    b->slice_pitch = slice;
    b->offset = offset;
    b->span = size;
    return CL_SUCCESS;
}

/* Whether image is a 1D image buffer made from buffer. */
static bool image_buffer_of(cl_mem image, cl_mem buffer)
{
    return image->type == CL_MEM_OBJECT_IMAGE1D_BUFFER && image->image->desc.buffer == buffer;
}

cl_int hcqcl_clEnqueueCopyImageToBuffer(cl_command_queue command_queue, cl_mem src_image,
                                        cl_mem dst_buffer, const size_t *src_origin,
                                        const size_t *region, size_t dst_offset,
                                        cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event)
{
    cl_command_queue q = command_queue;
    cl_int err = image_queue(q);
    if (err == CL_SUCCESS)
        err = image_check(q, src_image);
    /* CL_INVALID_MEM_OBJECT if dst_buffer is not a valid buffer object; CL_INVALID_CONTEXT; CL_MISALIGNED_SUB_BUFFER_OFFSET */
    if (err == CL_SUCCESS)
        err = hcqcl_xfer_check_buffer(q, dst_buffer);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_MEM_OBJECT if src_image is a 1D image buffer object created from dst_buffer
     * (a 2D image made from it is not refused: "concurrent ... copying between both a buffer
     * object and 1D image buffer or 2D image object associated with the buffer object is
     * undefined") */
    HCQCL_CHECK(!image_buffer_of(src_image, dst_buffer), CL_INVALID_MEM_OBJECT,
                "image %p is made from buffer %p", (void *)src_image, (void *)dst_buffer);
    struct hcqcl_rect s, b;
    err = image_rect(src_image, src_origin, region, &s);
    if (err == CL_SUCCESS)
        err = buffer_rect(dst_buffer, dst_offset, &s, &b);
    if (err != CL_SUCCESS)
        return err;
    return hcqcl_rect_enqueue_copy(q, src_image, dst_buffer, &s, &b,
                                   CL_COMMAND_COPY_IMAGE_TO_BUFFER, num_events_in_wait_list,
                                   event_wait_list, event);
}

cl_int hcqcl_clEnqueueCopyBufferToImage(cl_command_queue command_queue, cl_mem src_buffer,
                                        cl_mem dst_image, size_t src_offset,
                                        const size_t *dst_origin, const size_t *region,
                                        cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event)
{
    cl_command_queue q = command_queue;
    cl_int err = image_queue(q);
    /* CL_INVALID_MEM_OBJECT if src_buffer is not a valid buffer object; CL_INVALID_CONTEXT; CL_MISALIGNED_SUB_BUFFER_OFFSET */
    if (err == CL_SUCCESS)
        err = hcqcl_xfer_check_buffer(q, src_buffer);
    if (err == CL_SUCCESS)
        err = image_check(q, dst_image);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_MEM_OBJECT if dst_image is a 1D image buffer object created from src_buffer
     * (not a 2D image made from it, as above) */
    HCQCL_CHECK(!image_buffer_of(dst_image, src_buffer), CL_INVALID_MEM_OBJECT,
                "image %p is made from buffer %p", (void *)dst_image, (void *)src_buffer);
    struct hcqcl_rect d, b;
    err = image_rect(dst_image, dst_origin, region, &d);
    if (err == CL_SUCCESS)
        err = buffer_rect(src_buffer, src_offset, &d, &b);
    if (err != CL_SUCCESS)
        return err;
    return hcqcl_rect_enqueue_copy(q, src_buffer, dst_image, &b, &d,
                                   CL_COMMAND_COPY_BUFFER_TO_IMAGE, num_events_in_wait_list,
                                   event_wait_list, event);
}

cl_int hcqcl_clEnqueueFillImage(cl_command_queue command_queue, cl_mem image,
                                const void *fill_color, const size_t *origin,
                                const size_t *region, cl_uint num_events_in_wait_list,
                                const cl_event *event_wait_list, cl_event *event)
{
    cl_command_queue q = command_queue;
    cl_int err = image_queue(q);
    if (err == CL_SUCCESS)
        err = image_check(q, image);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE if fill_color is NULL */
    HCQCL_CHECK(fill_color, CL_INVALID_VALUE, "fill_color NULL");
    struct hcqcl_rect r, h;
    err = image_rect(image, origin, region, &r);
    if (err == CL_SUCCESS)
        err = image_host_rect(image, &r, 0, 0, &h);
    if (err != CL_SUCCESS)
        return err;
    const size_t elem = image->image->elem_size;
    uint8_t pixel[16];
    hcqcl_image_pack_color(&image->image->format, fill_color, pixel);
    /* The region's pixels, tight; written (and packed for the copy) before the call returns. */
    const size_t bytes = h.span;
    uint8_t *pixels = malloc(bytes);
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources required by the OpenCL implementation on the host */
    HCQCL_CHECK(pixels, CL_OUT_OF_HOST_MEMORY, "%zu bytes of fill", bytes);
    for (size_t i = 0; i < bytes; i += elem)
        memcpy(pixels + i, pixel, elem);
    err = hcqcl_rect_enqueue_host(q, image, false, &r, &h, pixels, true, false,
                                  CL_COMMAND_FILL_IMAGE, num_events_in_wait_list,
                                  event_wait_list, event);
    free(pixels);
    return err;
}

void *hcqcl_clEnqueueMapImage(cl_command_queue command_queue, cl_mem image, cl_bool blocking_map,
                              cl_map_flags map_flags, const size_t *origin, const size_t *region,
                              size_t *image_row_pitch, size_t *image_slice_pitch,
                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                              cl_event *event, cl_int *errcode_ret)
{
    cl_command_queue q = command_queue;
    cl_int err = image_queue(q);
    if (err == CL_SUCCESS)
        err = image_check(q, image);
    struct hcqcl_rect r;
    if (err == CL_SUCCESS)
        err = image_rect(image, origin, region, &r);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_VALUE if image_row_pitch is NULL */
    HCQCL_CHECK_GOTO(image_row_pitch, err, CL_INVALID_VALUE, "image_row_pitch NULL");
    const bool layered = image->type == CL_MEM_OBJECT_IMAGE3D ||
                         image->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
                         image->type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
    /* CL_INVALID_VALUE if image is a 3D image, 1D or 2D image array object and image_slice_pitch is NULL */
    HCQCL_CHECK_GOTO(!layered || image_slice_pitch, err, CL_INVALID_VALUE,
                     "image_slice_pitch NULL");
    /* CL_INVALID_VALUE if values specified in map_flags are not valid */
    err = hcqcl_xfer_check_map_flags(map_flags);
    if (err != CL_SUCCESS)
        goto fail;
    /* The mapping is the byte span from the region's first pixel to its
     * last, and an unmap writes a mapped copy back whole: where the span
     * holds pixels outside the region (rows or slices apart), they must
     * be the image's own, so WRITE_INVALIDATE_REGION maps as CL_MAP_WRITE
     * (the region's contents may be discarded, which this does not). */
    if ((map_flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
        r.span != r.region[0] * r.region[1] * r.region[2])
        map_flags = CL_MAP_WRITE;
    void *ptr = hcqcl_map_enqueue(q, image, blocking_map, map_flags, r.offset, r.span,
                                  CL_COMMAND_MAP_IMAGE, num_events_in_wait_list,
                                  event_wait_list, event, &err);
    if (ptr) {
        *image_row_pitch = image->image->row_pitch;
        if (image_slice_pitch)
            *image_slice_pitch = image->image->slice_pitch;
    }
    if (errcode_ret)
        *errcode_ret = err;
    return ptr;
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

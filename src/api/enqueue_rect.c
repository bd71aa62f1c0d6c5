/*
 * enqueue_rect.c — clEnqueueRead/Write/CopyBufferRect and the rectangle
 * geometry they share (pitch defaults, bounds, the spec's overlap rule).
 *
 * Host rectangles travel packed (rows back to back) in one pinned staging
 * buffer; the copy engine scatters or gathers them with one 2-D copy per
 * slice, so the CPU touches each byte once and the GPU does the pitches.
 */
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"

/* a * b + c with overflow detection; false on overflow. */
static bool rect_mad(size_t a, size_t b, size_t c, size_t *out)
{
    size_t m;
    if (__builtin_mul_overflow(a, b, &m))
        return false;
    return !__builtin_add_overflow(m, c, out);
}

cl_int hcqcl_rect_resolve(const size_t *origin, const size_t *region, size_t row_pitch,
                          size_t slice_pitch, struct hcqcl_rect *out)
{
    /* CL_INVALID_VALUE if origin or region is NULL */
    HCQCL_CHECK(origin && region, CL_INVALID_VALUE, "NULL origin or region");
    /* CL_INVALID_VALUE if any region array element is zero */
    HCQCL_CHECK(region[0] && region[1] && region[2], CL_INVALID_VALUE,
                "region {%zu, %zu, %zu}", region[0], region[1], region[2]);
    /* CL_INVALID_VALUE if row_pitch is not 0 and is less than region[0] */
    HCQCL_CHECK(row_pitch == 0 || row_pitch >= region[0], CL_INVALID_VALUE,
                "row pitch %zu < width %zu", row_pitch, region[0]);
    size_t rp = row_pitch ? row_pitch : region[0];
    size_t min_slice;
    /* CL_INVALID_VALUE if the region overflows the address space */
    HCQCL_CHECK(rect_mad(region[1], rp, 0, &min_slice), CL_INVALID_VALUE,
                "height %zu x row pitch %zu overflows", region[1], rp);
    /* CL_INVALID_VALUE if slice_pitch is not 0 and is less than region[1] x row_pitch */
    HCQCL_CHECK(slice_pitch == 0 || slice_pitch >= min_slice, CL_INVALID_VALUE,
                "slice pitch %zu < %zu", slice_pitch, min_slice);
    /* CL_INVALID_VALUE if slice_pitch is not 0 and is not a multiple of row_pitch */
    HCQCL_CHECK(slice_pitch == 0 || slice_pitch % rp == 0, CL_INVALID_VALUE,
                "slice pitch %zu not a multiple of row pitch %zu", slice_pitch, rp);
    size_t sp = slice_pitch ? slice_pitch : min_slice;

    /* offset = z*slice + y*row + x; span = (d-1)*slice + (h-1)*row + w */
    size_t off, tmp, span;
    bool ok = rect_mad(origin[2], sp, origin[0], &tmp) && rect_mad(origin[1], rp, tmp, &off) &&
              rect_mad(region[1] - 1, rp, region[0], &tmp) &&
              rect_mad(region[2] - 1, sp, tmp, &span) && off <= SIZE_MAX - span;
    /* CL_INVALID_VALUE if the region is out of bounds (here: of the address space) */
    HCQCL_CHECK(ok, CL_INVALID_VALUE, "origin/region overflow the address space");

    for (int i = 0; i < 3; i++) {
        out->origin[i] = origin[i];
        out->region[i] = region[i];
    }
    out->row_pitch = rp;
    out->slice_pitch = sp;
    out->offset = off;
    out->span = span;
    return CL_SUCCESS;
}

cl_int hcqcl_rect_check_bounds(const struct hcqcl_rect *r, size_t total)
{
    /* CL_INVALID_VALUE if the region specified by origin, region and pitches is out of bounds */
    HCQCL_CHECK(r->span <= total && r->offset <= total - r->span, CL_INVALID_VALUE,
                "rect [%zu, +%zu) outside %zu bytes", r->offset, r->span, total);
    return CL_SUCCESS;
}

/* a fits into the gap that b leaves in each period of length `period`:
 * [a, a+len) and [b, b+len) taken modulo period never meet. */
static bool rect_fits_gap(uint64_t a, uint64_t b, uint64_t len, uint64_t period)
{
    return a >= b + len && a + len <= b + period;
}

bool hcqcl_rect_overlap(uint64_t src_offset, uint64_t dst_offset, const struct hcqcl_rect *shape)
{
    const uint64_t w = shape->region[0], rp = shape->row_pitch, sp = shape->slice_pitch;
    const uint64_t slice_bytes = (shape->region[1] - 1) * rp + w;

    /* Whole spans apart: no byte in common. */
    if (!hcqcl_xfer_ranges_overlap(src_offset, dst_offset, shape->span))
        return false;
    /* Every row of one lies in the columns the other's rows leave free. */
    uint64_t sc = src_offset % rp, dc = dst_offset % rp;
    if (rect_fits_gap(dc, sc, w, rp) || rect_fits_gap(sc, dc, w, rp))
        return false;
    /* Every slice of one lies in the rows the other's slices leave free. */
    uint64_t ss = src_offset % sp, ds = dst_offset % sp;
    if (rect_fits_gap(ds, ss, slice_bytes, sp) || rect_fits_gap(ss, ds, slice_bytes, sp))
        return false;
    return true;
}

/* ---- Entry points --------------------------------------------------- */

/* Copy every slice of a rectangle with the copy engine's 2-D copies. */
static int rect_copy(struct hcq_queue *hq, uint64_t dst, size_t dst_rp, size_t dst_sp,
                     uint64_t src, size_t src_rp, size_t src_sp, const size_t region[3])
{
    for (size_t z = 0; z < region[2]; z++) {
        int rc = hcq_q_copy_2d(hq, dst + z * dst_sp, dst_rp, src + z * src_sp, src_rp, region[0],
                               region[1]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Host rectangle <-> packed staging (rows of region[0] bytes, back to back). */
static void rect_pack(uint8_t *packed, const uint8_t *host, const struct hcqcl_rect *h)
{
    const size_t w = h->region[0];
    for (size_t z = 0; z < h->region[2]; z++)
        for (size_t y = 0; y < h->region[1]; y++)
            memcpy(packed + (z * h->region[1] + y) * w,
                   host + h->offset + z * h->slice_pitch + y * h->row_pitch, w);
}
static void rect_unpack(uint8_t *host, const uint8_t *packed, const struct hcqcl_rect *h)
{
    const size_t w = h->region[0];
    for (size_t z = 0; z < h->region[2]; z++)
        for (size_t y = 0; y < h->region[1]; y++)
            memcpy(host + h->offset + z * h->slice_pitch + y * h->row_pitch,
                   packed + (z * h->region[1] + y) * w, w);
}

/* A staged rect read: unpacked into the host rectangle once the GPU is
 * done. A late write (its host rectangle a read enqueued before still
 * fills, hcqcl_host_pending_overlaps): packed when the command runs. */
struct rect_job {
    struct hcqcl_staging *staging;
    uint8_t *host;
    struct hcqcl_rect h;
    struct hcqcl_host_pending pending; /* a read's host span until done */
};

static void rect_job_release(void *arg)
{
    struct rect_job *job = arg;
    hcqcl_host_pending_remove(&job->pending);
    hcqcl_staging_put(job->staging);
    free(job);
}

static void rect_job_unstage(void *arg, cl_int status)
{
    struct rect_job *job = arg;
    if (status >= 0)
        rect_unpack(job->host, job->staging->cpu, &job->h);
    hcqcl_host_pending_remove(&job->pending);
}

static void rect_job_stage(void *arg, cl_int status)
{
    struct rect_job *job = arg;
    if (status >= 0)
        rect_pack(job->staging->cpu, job->host, &job->h);
}

static cl_int rect_read_write(cl_command_queue q, cl_mem buf, cl_bool blocking,
                              const size_t *buffer_origin, const size_t *host_origin,
                              const size_t *region, size_t buffer_row_pitch,
                              size_t buffer_slice_pitch, size_t host_row_pitch,
                              size_t host_slice_pitch, void *ptr, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event, bool write)
{
    cl_int err = hcqcl_xfer_check_args(q, 1, &buf);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE for NULL origins or region, a zero region element or bad pitches */
    struct hcqcl_rect b, h;
    err = hcqcl_rect_resolve(buffer_origin, region, buffer_row_pitch, buffer_slice_pitch, &b);
    if (err == CL_SUCCESS)
        err = hcqcl_rect_resolve(host_origin, region, host_row_pitch, host_slice_pitch, &h);
    /* CL_INVALID_VALUE if the region specified by buffer_origin, region and the buffer pitches is out of bounds */
    if (err == CL_SUCCESS)
        err = hcqcl_rect_check_bounds(&b, buf->size);
    if (err != CL_SUCCESS)
        return err;
    return hcqcl_rect_enqueue_host(q, buf, blocking, &b, &h, ptr, write, true,
                                   write ? CL_COMMAND_WRITE_BUFFER_RECT
                                         : CL_COMMAND_READ_BUFFER_RECT,
                                   num_events, wait_list, event);
}

cl_int hcqcl_rect_enqueue_host(cl_command_queue q, cl_mem buf, bool blocking,
                               const struct hcqcl_rect *bp, const struct hcqcl_rect *hp, void *ptr,
                               bool write, bool check_host, cl_command_type type,
                               cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    const struct hcqcl_rect b = *bp, h = *hp;
    const size_t *region = b.region;
    struct hcqcl_cmd cmd;
    cl_int err;
    if (check_host) {
        err = hcqcl_xfer_begin_host(q, buf, ptr, write, type, num_events, wait_list, &cmd);
    } else {
        err = hcqcl_xfer_begin(q, type, write ? HCQCL_XFER_H2D : HCQCL_XFER_D2H, num_events,
                               wait_list, &cmd);
        if (err == CL_SUCCESS)
            hcqcl_cmd_retain_mem(&cmd, buf);
    }
    if (err != CL_SUCCESS)
        return err;
    struct hcq_device *dev = hcqcl_queue_device(q)->hw;
    const uint64_t bva = hcqcl_mem_va(buf, dev) + b.offset;
    uint8_t *const hfirst = (uint8_t *)ptr + h.offset;
    uint64_t pva;
    if (!hcqcl_cmd_terminated(&cmd) && hcqcl_xfer_pinned(&cmd, dev, hfirst, h.span, &pva)) {
        /* Memory the GPU reaches (a mapped region): the engine moves the
         * rectangle itself, when the command runs, at both pitches. */
        err = write ? CL_SUCCESS : hcqcl_host_pending_cmd(&cmd, hfirst, h.span);
        if (err == CL_SUCCESS &&
            (write ? rect_copy(hcqcl_cmd_hq(&cmd), bva, b.row_pitch, b.slice_pitch, pva,
                               h.row_pitch, h.slice_pitch, region)
                   : rect_copy(hcqcl_cmd_hq(&cmd), pva, h.row_pitch, h.slice_pitch, bva,
                               b.row_pitch, b.slice_pitch, region)) < 0)
            err = CL_OUT_OF_RESOURCES;
        if (err != CL_SUCCESS) {
            hcqcl_cmd_abort(&cmd);
            return err;
        }
        return hcqcl_cmd_end(&cmd, blocking, event);
    }
    /* Fits: region[0] x region[1] x region[2] <= b.span <= buf->size. */
    const size_t packed = region[0] * region[1] * region[2];
    struct rect_job *job = calloc(1, sizeof(*job));
    if (!job) {
        hcqcl_cmd_abort(&cmd);
        return CL_OUT_OF_HOST_MEMORY;
    }
    job->staging = hcqcl_staging_get(dev, packed);
    if (job->staging) {
        err = hcqcl_cmd_on_release(&cmd, rect_job_release, job);
    } else {
        err = CL_OUT_OF_RESOURCES;
    }
    const bool late = write && hcqcl_host_pending_overlaps(hfirst, h.span);
    if (err == CL_SUCCESS && (!write || late)) {
        job->host = ptr;
        job->h = h;
        err = write ? hcqcl_cmd_before(&cmd, rect_job_stage, job)
                    : hcqcl_cmd_after(&cmd, rect_job_unstage, job);
    }
    if (err != CL_SUCCESS) {
        cmd.ev->release_fn = NULL; /* nothing recorded yet: free here */
        cmd.ev->before_fn = NULL;
        rect_job_release(job);
        hcqcl_cmd_abort(&cmd);
        return err;
    }
    if (!write)
        hcqcl_host_pending_add(&job->pending, hfirst, h.span);
    /* A verb failing from here leaves the job to the aborted command:
     * what was recorded may still run. */
    const uint64_t sva = job->staging->va;
    const size_t prow = region[0], pslice = region[0] * region[1];
    int rc = 0;
    if (hcqcl_cmd_terminated(&cmd)) {
        /* nothing moves */
    } else if (write) {
        if (!late)
            rect_pack(job->staging->cpu, ptr, &h);
        rc = rect_copy(hcqcl_cmd_hq(&cmd), bva, b.row_pitch, b.slice_pitch, sva, prow, pslice,
                       region);
    } else {
        rc = rect_copy(hcqcl_cmd_hq(&cmd), sva, prow, pslice, bva, b.row_pitch, b.slice_pitch,
                       region);
    }
    if (rc < 0) {
        hcqcl_cmd_abort(&cmd);
        return CL_OUT_OF_RESOURCES;
    }
    return hcqcl_cmd_end(&cmd, blocking, event);
}

cl_int hcqcl_clEnqueueReadBufferRect(cl_command_queue command_queue, cl_mem buffer,
                                     cl_bool blocking_read, const size_t *buffer_origin,
                                     const size_t *host_origin, const size_t *region,
                                     size_t buffer_row_pitch, size_t buffer_slice_pitch,
                                     size_t host_row_pitch, size_t host_slice_pitch, void *ptr,
                                     cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event)
{
    return rect_read_write(command_queue, buffer, blocking_read, buffer_origin, host_origin,
                           region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                           host_slice_pitch, ptr, num_events_in_wait_list, event_wait_list,
                           event, false);
}

cl_int hcqcl_clEnqueueWriteBufferRect(cl_command_queue command_queue, cl_mem buffer,
                                      cl_bool blocking_write, const size_t *buffer_origin,
                                      const size_t *host_origin, const size_t *region,
                                      size_t buffer_row_pitch, size_t buffer_slice_pitch,
                                      size_t host_row_pitch, size_t host_slice_pitch,
                                      const void *ptr, cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list, cl_event *event)
{
    return rect_read_write(command_queue, buffer, blocking_write, buffer_origin, host_origin,
                           region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                           host_slice_pitch, (void *)ptr, num_events_in_wait_list,
                           event_wait_list, event, true);
}

cl_int hcqcl_clEnqueueCopyBufferRect(cl_command_queue command_queue, cl_mem src_buffer,
                                     cl_mem dst_buffer, const size_t *src_origin,
                                     const size_t *dst_origin, const size_t *region,
                                     size_t src_row_pitch, size_t src_slice_pitch,
                                     size_t dst_row_pitch, size_t dst_slice_pitch,
                                     cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event)
{
    cl_command_queue q = command_queue;
    cl_int err = hcqcl_xfer_check_args(q, 2, (const cl_mem[]){src_buffer, dst_buffer});
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE for NULL origins or region, a zero region element or bad pitches */
    struct hcqcl_rect s, d;
    err = hcqcl_rect_resolve(src_origin, region, src_row_pitch, src_slice_pitch, &s);
    if (err == CL_SUCCESS)
        err = hcqcl_rect_resolve(dst_origin, region, dst_row_pitch, dst_slice_pitch, &d);
    /* CL_INVALID_VALUE if the src (dst) region is out of bounds of src_buffer (dst_buffer) */
    if (err == CL_SUCCESS)
        err = hcqcl_rect_check_bounds(&s, src_buffer->size);
    if (err == CL_SUCCESS)
        err = hcqcl_rect_check_bounds(&d, dst_buffer->size);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE if src_buffer and dst_buffer are the same buffer object and the row or slice pitches differ */
    HCQCL_CHECK(src_buffer != dst_buffer ||
                    (s.row_pitch == d.row_pitch && s.slice_pitch == d.slice_pitch),
                CL_INVALID_VALUE, "same buffer, pitches %zu/%zu vs %zu/%zu", s.row_pitch,
                s.slice_pitch, d.row_pitch, d.slice_pitch);
    /* CL_MEM_COPY_OVERLAP if src and dst are the same buffer, or sub-buffers of one buffer, and the regions overlap */
    if (hcqcl_xfer_root(src_buffer) == hcqcl_xfer_root(dst_buffer)) {
        uint64_t so = hcqcl_xfer_base(src_buffer) + s.offset;
        uint64_t dO = hcqcl_xfer_base(dst_buffer) + d.offset;
        bool overlap;
        if (s.row_pitch == d.row_pitch && s.slice_pitch == d.slice_pitch)
            overlap = hcqcl_rect_overlap(so, dO, &s);
        else /* different shapes in one store: their spans decide */
            overlap = so < dO + d.span && dO < so + s.span;
        HCQCL_CHECK(!overlap, CL_MEM_COPY_OVERLAP, "rect copy %llu -> %llu overlaps",
                    (unsigned long long)so, (unsigned long long)dO);
    }

    return hcqcl_rect_enqueue_copy(q, src_buffer, dst_buffer, &s, &d,
                                   CL_COMMAND_COPY_BUFFER_RECT, num_events_in_wait_list,
                                   event_wait_list, event);
}

cl_int hcqcl_rect_enqueue_copy(cl_command_queue q, cl_mem src, cl_mem dst,
                               const struct hcqcl_rect *s, const struct hcqcl_rect *d,
                               cl_command_type type, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event)
{
    struct hcqcl_cmd cmd;
    cl_int err = hcqcl_xfer_begin(q, type, HCQCL_XFER_D2D, num_events, wait_list, &cmd);
    if (err != CL_SUCCESS)
        return err;
    hcqcl_cmd_retain_mem(&cmd, src);
    hcqcl_cmd_retain_mem(&cmd, dst);
    struct hcq_device *dev = hcqcl_queue_device(q)->hw;
    if (!hcqcl_cmd_terminated(&cmd) &&
        rect_copy(hcqcl_cmd_hq(&cmd), hcqcl_mem_va(dst, dev) + d->offset, d->row_pitch,
                  d->slice_pitch, hcqcl_mem_va(src, dev) + s->offset, s->row_pitch,
                  s->slice_pitch, s->region) < 0) {
        hcqcl_cmd_abort(&cmd);
        return CL_OUT_OF_RESOURCES;
    }
    return hcqcl_cmd_end(&cmd, false, event);
}

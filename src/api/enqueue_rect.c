/*
 * enqueue_rect.c — rectangle geometry and the rect transfer validators.
 *
 * The rect entry points (clEnqueueRead/Write/CopyBufferRect) live here too
 * once the command machinery exists; the geometry below is shared with
 * them and with the unit tests.
 */
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

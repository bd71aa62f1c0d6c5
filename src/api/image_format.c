/*
 * image_format.c — image formats: which channel order / channel type
 * pairs the specification defines, their pixel sizes, the one table of
 * formats hcqcl supports (clGetSupportedImageFormats and clCreateImage
 * read it; the image built-ins of hcqcl-cc handle exactly these), and
 * the conversion of a clEnqueueFillImage color into one pixel.
 *
 * Supported, for every image type and every flag combination:
 *   CL_R, CL_A, CL_RG, CL_RA, CL_RGBA  x  every 8/16/32-bit integer,
 *       normalized 8/16-bit, CL_HALF_FLOAT and CL_FLOAT type (12);
 *   CL_BGRA, CL_ARGB  x  CL_UNORM_INT8, CL_SNORM_INT8, CL_SIGNED_INT8,
 *       CL_UNSIGNED_INT8;
 *   CL_INTENSITY, CL_LUMINANCE  x  CL_UNORM_INT8/16, CL_SNORM_INT8/16,
 *       CL_HALF_FLOAT, CL_FLOAT;
 * and, for images created CL_MEM_READ_ONLY only, CL_sRGBA x CL_UNORM_INT8
 * (kernels read it, converting sRGB to linear; nothing writes it).
 */
#include <math.h>
#include <string.h>

#include "api/obj.h"

static const cl_channel_type all_types[] = {
    CL_SNORM_INT8,     CL_SNORM_INT16,    CL_UNORM_INT8,      CL_UNORM_INT16,
    CL_SIGNED_INT8,    CL_SIGNED_INT16,   CL_SIGNED_INT32,    CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT,      CL_FLOAT,
};
static const cl_channel_type int8_types[] = {CL_UNORM_INT8, CL_SNORM_INT8, CL_SIGNED_INT8,
                                             CL_UNSIGNED_INT8};
static const cl_channel_type lum_types[] = {CL_UNORM_INT8,  CL_UNORM_INT16, CL_SNORM_INT8,
                                            CL_SNORM_INT16, CL_HALF_FLOAT,  CL_FLOAT};
static const cl_channel_type srgb_types[] = {CL_UNORM_INT8};

/* The table: each order with its list of types. */
static const struct {
    cl_channel_order order;
    const cl_channel_type *types;
    unsigned ntypes;
    bool read_only; /* only for CL_MEM_READ_ONLY images */
} table[] = {
    {CL_R, all_types, UTIL_ARRAY_SIZE(all_types), false},
    {CL_A, all_types, UTIL_ARRAY_SIZE(all_types), false},
    {CL_RG, all_types, UTIL_ARRAY_SIZE(all_types), false},
    {CL_RA, all_types, UTIL_ARRAY_SIZE(all_types), false},
    {CL_RGBA, all_types, UTIL_ARRAY_SIZE(all_types), false},
    {CL_BGRA, int8_types, UTIL_ARRAY_SIZE(int8_types), false},
    {CL_ARGB, int8_types, UTIL_ARRAY_SIZE(int8_types), false},
    {CL_INTENSITY, lum_types, UTIL_ARRAY_SIZE(lum_types), false},
    {CL_LUMINANCE, lum_types, UTIL_ARRAY_SIZE(lum_types), false},
    {CL_sRGBA, srgb_types, UTIL_ARRAY_SIZE(srgb_types), true},
};

static bool type_in(cl_channel_type t, const cl_channel_type *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == t)
            return true;
    return false;
}

/* Channels of an order the specification defines (0: unknown). */
static unsigned order_channels(cl_channel_order o)
{
    switch (o) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE: case CL_DEPTH: return 1;
    case CL_RG: case CL_RA: case CL_Rx: return 2;
    case CL_RGB: case CL_RGx: case CL_sRGB: return 3;
    case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_ABGR: case CL_RGBx: case CL_sRGBA:
    case CL_sBGRA: case CL_sRGBx: return 4;
    default: return 0;
    }
}

/* Bytes per channel (0: unknown, or a packed type, sized whole). */
static unsigned type_bytes(cl_channel_type t)
{
    switch (t) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return 1;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT: return 2;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT: return 4;
    default: return 0;
    }
}

size_t hcqcl_image_format_size(const cl_image_format *f)
{
    const cl_channel_order o = f->image_channel_order;
    const cl_channel_type t = f->image_channel_data_type;
    const unsigned ch = order_channels(o);
    if (!ch)
        return 0;
    /* The pairs the specification restricts (clCreateImage, "Image Format Descriptor"). */
    switch (t) {
    case CL_UNORM_SHORT_565:
    case CL_UNORM_SHORT_555:
        return o == CL_RGB || o == CL_RGBx ? 2 : 0;
    case CL_UNORM_INT_101010:
        return o == CL_RGB || o == CL_RGBx ? 4 : 0;
    case CL_UNORM_INT_101010_2:
        return o == CL_RGBA ? 4 : 0;
    default: break;
    }
    if (!type_bytes(t))
        return 0;
    switch (o) {
    case CL_RGB: case CL_RGBx: return 0; /* only the packed types above */
    case CL_INTENSITY: case CL_LUMINANCE:
        if (!type_in(t, lum_types, UTIL_ARRAY_SIZE(lum_types)))
            return 0;
        break;
    case CL_BGRA: case CL_ARGB: case CL_ABGR:
        if (!type_in(t, int8_types, UTIL_ARRAY_SIZE(int8_types)))
            return 0;
        break;
    case CL_sRGB: case CL_sRGBx: case CL_sRGBA: case CL_sBGRA:
        if (t != CL_UNORM_INT8)
            return 0;
        break;
    case CL_DEPTH:
        if (t != CL_UNORM_INT16 && t != CL_FLOAT)
            return 0;
        break;
    default: break;
    }
    /* "The number of bits per element determined by the
     * image_channel_data_type and image_channel_order must be a power of
     * two" (not so CL_sRGB's or CL_RGx's three channels) */
    const size_t size = (size_t)ch * type_bytes(t);
    return util_is_pow2(size) ? size : 0;
}

bool hcqcl_image_format_supported(const cl_image_format *f, cl_mem_flags flags,
                                  cl_mem_object_type type)
{
    (void)type; /* every image type has the same formats */
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(table); i++) {
        if (table[i].order != f->image_channel_order)
            continue;
        if (table[i].read_only && (flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE |
                                            CL_MEM_KERNEL_READ_AND_WRITE) ||
                                   !(flags & CL_MEM_READ_ONLY)))
            return false;
        return type_in(f->image_channel_data_type, table[i].types, table[i].ntypes);
    }
    return false;
}

cl_uint hcqcl_image_formats(cl_mem_flags flags, cl_image_format *out, cl_uint cap)
{
    cl_uint n = 0;
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(table); i++) {
        if (table[i].read_only && !((flags & CL_MEM_READ_ONLY) &&
                                    !(flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE |
                                               CL_MEM_KERNEL_READ_AND_WRITE))))
            continue;
        for (unsigned k = 0; k < table[i].ntypes; k++, n++)
            if (out && n < cap)
                out[n] = (cl_image_format){table[i].order, table[i].types[k]};
    }
    return n;
}

/* ---- Fill colors ------------------------------------------------------ */

/* IEEE binary16 of f, rounded to nearest even. */
static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    if (exp == 0xff) /* Inf, NaN (kept quiet) */
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* subnormal half, or zero */
        if (e < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        const unsigned shift = (unsigned)(14 - e);
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++; /* may carry into the exponent: still right (up to Inf) */
    return (uint16_t)(sign | h);
}

/* convert_<int>_sat_rte(v): NaN to 0, saturated, to nearest even. */
static double sat_rte(float v, double lo, double hi)
{
    if (isnan(v))
        return 0;
    double d = rint((double)v); /* default rounding mode: nearest even */
    return d < lo ? lo : d > hi ? hi : d;
}

static float srgb_encode(float c)
{
    if (isnan(c))
        return 0;
    if (c <= 0.0031308f)
        return 12.92f * c;
    return 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

static int64_t clamp_i(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* One channel of value index c of the color into out (type t). */
static void pack_channel(cl_channel_type t, const void *color, unsigned c, bool srgb,
                         uint8_t *out)
{
    float f;
    int32_t i;
    uint32_t u;
    memcpy(&f, (const uint8_t *)color + 4 * c, 4);
    memcpy(&i, (const uint8_t *)color + 4 * c, 4);
    memcpy(&u, (const uint8_t *)color + 4 * c, 4);
    union {
        int8_t s8;
        uint8_t u8;
        int16_t s16;
        uint16_t u16;
        int32_t s32;
        uint32_t u32;
        float f32;
    } v;
    size_t n = type_bytes(t);
    switch (t) {
    case CL_UNORM_INT8:
        if (srgb && c < 3)
            f = srgb_encode(f);
        v.u8 = (uint8_t)sat_rte(f * 255.0f, 0, 255);
        break;
    case CL_UNORM_INT16: v.u16 = (uint16_t)sat_rte(f * 65535.0f, 0, 65535); break;
    case CL_SNORM_INT8: v.s8 = (int8_t)sat_rte(f * 127.0f, -128, 127); break;
    case CL_SNORM_INT16: v.s16 = (int16_t)sat_rte(f * 32767.0f, -32768, 32767); break;
    case CL_HALF_FLOAT: v.u16 = float_to_half(f); break;
    case CL_FLOAT: v.f32 = f; break;
    case CL_SIGNED_INT8: v.s8 = (int8_t)clamp_i(i, INT8_MIN, INT8_MAX); break;
    case CL_SIGNED_INT16: v.s16 = (int16_t)clamp_i(i, INT16_MIN, INT16_MAX); break;
    case CL_SIGNED_INT32: v.s32 = i; break;
    case CL_UNSIGNED_INT8: v.u8 = (uint8_t)(u > UINT8_MAX ? UINT8_MAX : u); break;
    case CL_UNSIGNED_INT16: v.u16 = (uint16_t)(u > UINT16_MAX ? UINT16_MAX : u); break;
    case CL_UNSIGNED_INT32: v.u32 = u; break;
    default: memset(&v, 0, sizeof(v)); n = 0; break;
    }
    memcpy(out, &v, n);
}

void hcqcl_image_pack_color(const cl_image_format *f, const void *color, uint8_t *out)
{
    /* Which color component (0 r, 1 g, 2 b, 3 a) each channel in memory holds. */
    static const unsigned r_[] = {0}, a_[] = {3}, rg[] = {0, 1}, ra[] = {0, 3},
                          rgba[] = {0, 1, 2, 3}, bgra[] = {2, 1, 0, 3}, argb[] = {3, 0, 1, 2};
    const unsigned *map;
    unsigned n;
    switch (f->image_channel_order) {
    case CL_R: case CL_INTENSITY: case CL_LUMINANCE: map = r_; n = 1; break;
    case CL_A: map = a_; n = 1; break;
    case CL_RG: map = rg; n = 2; break;
    case CL_RA: map = ra; n = 2; break;
    case CL_BGRA: map = bgra; n = 4; break;
    case CL_ARGB: map = argb; n = 4; break;
    default: map = rgba; n = 4; break; /* CL_RGBA, CL_sRGBA */
    }
    const cl_channel_type t = f->image_channel_data_type;
    const bool srgb = f->image_channel_order == CL_sRGBA;
    for (unsigned k = 0; k < n; k++)
        pack_channel(t, color, map[k], srgb, out + k * type_bytes(t));
}

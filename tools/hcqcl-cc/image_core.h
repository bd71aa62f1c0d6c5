/*
 * image_core.h — the software image core: pixel formats, addressing and
 * filtering of OpenCL images (the OpenCL C specification, "Image
 * Addressing and Filtering" and "Conversion Rules"), on the descriptor of
 * src/api/image_abi.h.
 *
 * One text, read two ways:
 *   - as OpenCL C, appended to hcqcl-cc's builtin shim, where image.cl's
 *     read_image* / write_image* overloads call it (the GPU's code);
 *   - as C, by the emulated device's host versions of image kernels and
 *     by the unit test, so CI runs exactly the sampling code the GPU runs.
 * Hence scalar code on float[4] / int[4], and the few things the two
 * languages spell differently behind HIMG_* macros: pixel memory (global
 * pointers on the GPU; a translation callback in C, as the emulated
 * device's memory is not the host's), float bit casts, rint/floor/fabs
 * and a correctly rounded division (OpenCL C lets "/" be approximate;
 * the spec's x / 255 conversions are done exactly so both sides agree).
 * Floating-point contraction is off in OpenCL C (FP_CONTRACT below) for
 * the same reason: the filter's sums round the same on both sides.
 *
 * Behaviour where the spec leaves a result undefined (coordinates outside
 * the image without CLK_ADDRESS_CLAMP, REPEAT or MIRRORED_REPEAT with
 * unnormalized coordinates, linear filtering in read_imagei/ui, a channel
 * type the read function does not match): never an access outside the
 * image. Coordinates are clamped to the edge, integer reads filter
 * nearest, and mismatched types convert numerically. Writes outside the
 * image (or outside the array's layers) are dropped.
 */
#ifndef HCQCL_IMAGE_CORE_H
#define HCQCL_IMAGE_CORE_H

#ifndef HCQCL_API_IMAGE_ABI_H
#include "api/image_abi.h"
#endif

/* Channel orders, channel types and image types: the CL_ / CLK_ values. */
#define HIMG_R 0x10B0u
#define HIMG_A 0x10B1u
#define HIMG_RG 0x10B2u
#define HIMG_RA 0x10B3u
#define HIMG_RGBA 0x10B5u
#define HIMG_BGRA 0x10B6u
#define HIMG_ARGB 0x10B7u
#define HIMG_INTENSITY 0x10B8u
#define HIMG_LUMINANCE 0x10B9u
#define HIMG_SRGBA 0x10C1u

#define HIMG_SNORM_INT8 0x10D0u
#define HIMG_SNORM_INT16 0x10D1u
#define HIMG_UNORM_INT8 0x10D2u
#define HIMG_UNORM_INT16 0x10D3u
#define HIMG_SIGNED_INT8 0x10D7u
#define HIMG_SIGNED_INT16 0x10D8u
#define HIMG_SIGNED_INT32 0x10D9u
#define HIMG_UNSIGNED_INT8 0x10DAu
#define HIMG_UNSIGNED_INT16 0x10DBu
#define HIMG_UNSIGNED_INT32 0x10DCu
#define HIMG_HALF_FLOAT 0x10DDu
#define HIMG_FLOAT 0x10DEu

#define HIMG_MEM_IMAGE2D 0x10F1u
#define HIMG_MEM_IMAGE3D 0x10F2u
#define HIMG_MEM_IMAGE2D_ARRAY 0x10F3u
#define HIMG_MEM_IMAGE1D 0x10F4u
#define HIMG_MEM_IMAGE1D_ARRAY 0x10F5u
#define HIMG_MEM_IMAGE1D_BUFFER 0x10F6u

#ifdef __OPENCL_C_VERSION__
#pragma OPENCL FP_CONTRACT OFF
typedef uint himg_u32;
typedef int himg_i32;
typedef ulong himg_u64;
typedef long himg_i64;
/* Always inlined: into image.cl's functions, whose constant arguments
 * (dimensions, often the sampler) then fold the core's loops and arrays
 * away; image.cl decides what stays out of line. */
#define HIMG_FN static inline __attribute__((always_inline))
/* Pixel memory is global memory; m is unused (0). */
#define HIMG_MEM int
#define HIMG_CONST __constant
#define HIMG_AS_FLOAT(u) as_float(u)
#define HIMG_AS_UINT(f) as_uint(f)
#define HIMG_RINT(x) rint(x)
#define HIMG_FLOOR(x) floor(x)
#define HIMG_FABS(x) fabs(x)
#define HIMG_DIV(a, b) __nvvm_div_rn_f(a, b)
/* n is a constant after inlining: one typed load or store. */
HIMG_FN himg_u32 himg_ld(HIMG_MEM m, himg_u64 a, himg_u32 n)
{
    (void)m;
    return n == 1 ? (himg_u32) * (__global const uchar *)a
           : n == 2 ? (himg_u32) * (__global const ushort *)a
                    : *(__global const uint *)a;
}
HIMG_FN void himg_st(HIMG_MEM m, himg_u64 a, himg_u32 n, himg_u32 v)
{
    (void)m;
    if (n == 1)
        *(__global uchar *)a = (uchar)v;
    else if (n == 2)
        *(__global ushort *)a = (ushort)v;
    else
        *(__global uint *)a = v;
}
#else
#include <stdint.h>
#include <string.h>
typedef uint32_t himg_u32;
typedef int32_t himg_i32;
typedef uint64_t himg_u64;
typedef int64_t himg_i64;
#define HIMG_FN static inline
/* Pixel memory through ptr(user, address, bytes): host memory for the
 * address, or NULL when it is not mapped; then fault is set, loads give 0
 * and stores are dropped (the emulated device has recorded the fault). */
struct himg_mem {
    void *(*ptr)(void *user, uint64_t va, uint64_t len);
    void *user;
    int fault;
};
#define HIMG_MEM struct himg_mem *
#define HIMG_CONST static const
static inline float himg_as_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint32_t himg_as_uint(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
#define HIMG_AS_FLOAT(u) himg_as_float(u)
#define HIMG_AS_UINT(f) himg_as_uint(f)
#define HIMG_RINT(x) __builtin_rintf(x)
#define HIMG_FLOOR(x) __builtin_floorf(x)
#define HIMG_FABS(x) __builtin_fabsf(x)
#define HIMG_DIV(a, b) ((a) / (b))
HIMG_FN himg_u32 himg_ld(HIMG_MEM m, himg_u64 a, himg_u32 n)
{
    void *p = m->fault ? NULL : m->ptr(m->user, a, n);
    himg_u32 v = 0;
    if (!p)
        m->fault = 1;
    else
        memcpy(&v, p, n); /* little endian, as the GPU */
    return v;
}
HIMG_FN void himg_st(HIMG_MEM m, himg_u64 a, himg_u32 n, himg_u32 v)
{
    void *p = m->fault ? NULL : m->ptr(m->user, a, n);
    if (!p)
        m->fault = 1;
    else
        memcpy(p, &v, n);
}
#endif

/* ---- formats ---- */

/* Bytes per channel of a channel type; 0 for a type not supported. */
HIMG_FN himg_u32 himg_channel_size(himg_u32 type)
{
    switch (type) {
    case HIMG_SNORM_INT8: case HIMG_UNORM_INT8: case HIMG_SIGNED_INT8: case HIMG_UNSIGNED_INT8:
        return 1;
    case HIMG_SNORM_INT16: case HIMG_UNORM_INT16: case HIMG_SIGNED_INT16:
    case HIMG_UNSIGNED_INT16: case HIMG_HALF_FLOAT:
        return 2;
    case HIMG_SIGNED_INT32: case HIMG_UNSIGNED_INT32: case HIMG_FLOAT:
        return 4;
    default:
        return 0;
    }
}

/* Channels in memory of a channel order; 0 for an order not supported. */
HIMG_FN himg_u32 himg_channels(himg_u32 order)
{
    switch (order) {
    case HIMG_R: case HIMG_A: case HIMG_INTENSITY: case HIMG_LUMINANCE:
        return 1;
    case HIMG_RG: case HIMG_RA:
        return 2;
    case HIMG_RGBA: case HIMG_BGRA: case HIMG_ARGB: case HIMG_SRGBA:
        return 4;
    default:
        return 0;
    }
}

/* IEEE half (the low 16 bits) to float, exactly. */
HIMG_FN float himg_half_to_float(himg_u32 h)
{
    himg_u32 s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, f = h & 0x3FFu;
    if (e == 0) /* zero or subnormal: f * 2^-24, exact in float */
        return HIMG_AS_FLOAT(s | HIMG_AS_UINT((float)f * 0x1p-24f));
    if (e == 31)
        return HIMG_AS_FLOAT(s | 0x7F800000u | f << 13);
    return HIMG_AS_FLOAT(s | (e + 112) << 23 | f << 13);
}

/* float to half, round to nearest even (overflow to infinity, NaN stays
 * a quiet NaN). */
HIMG_FN himg_u32 himg_float_to_half(float x)
{
    himg_u32 b = HIMG_AS_UINT(x), s = (b >> 16) & 0x8000u, a = b & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return s | 0x7E00u | ((a >> 13) & 0x3FFu);
    if (a >= 0x477FF000u) /* 65520 and above round to infinity */
        return s | 0x7C00u;
    if (a < 0x38800000u) /* below 2^-14: a multiple of 2^-24; scaling is exact */
        return s | (himg_u32)HIMG_RINT(HIMG_FABS(x) * 0x1p24f);
    himg_u32 r = a - 0x38000000u; /* exponent rebiased from 127 to 15 */
    return s | (r + 0x0FFFu + ((r >> 13) & 1u)) >> 13;
}

/* sRGB (8-bit code) to linear: the spec's formula, precomputed in float
 * (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055)^2.4, c = code / 255). */
HIMG_CONST float himg_srgb_to_linear[256] = {
    0x0p+0f, 0x1.3e4568p-12f, 0x1.3e4568p-11f, 0x1.dd681cp-11f, 0x1.3e4568p-10f, 0x1.8dd6c2p-10f,
    0x1.dd681cp-10f, 0x1.167cbap-9f, 0x1.3e4568p-9f, 0x1.660e14p-9f, 0x1.8dd6c2p-9f, 0x1.b6a31cp-9f,
    0x1.e1e31ep-9f, 0x1.07c38cp-8f, 0x1.1fcc2cp-8f, 0x1.390ffap-8f, 0x1.53936cp-8f, 0x1.6f5adep-8f,
    0x1.8c6a94p-8f, 0x1.aac6cp-8f, 0x1.ca7382p-8f, 0x1.eb74e2p-8f, 0x1.06e76cp-7f, 0x1.18c2a6p-7f,
    0x1.2b4e0ap-7f, 0x1.3e8b7cp-7f, 0x1.527cd6p-7f, 0x1.6723eep-7f, 0x1.7c8292p-7f, 0x1.929a88p-7f,
    0x1.a96d92p-7f, 0x1.c0fd68p-7f, 0x1.d94bbep-7f, 0x1.f25a44p-7f, 0x1.061552p-6f, 0x1.135f3ep-6f,
    0x1.210bb8p-6f, 0x1.2f1b8cp-6f, 0x1.3d8f84p-6f, 0x1.4c6866p-6f, 0x1.5ba6fap-6f, 0x1.6b4c04p-6f,
    0x1.7b5842p-6f, 0x1.8bcc74p-6f, 0x1.9ca958p-6f, 0x1.adefaap-6f, 0x1.bfa02p-6f, 0x1.d1bb74p-6f,
    0x1.e4425ap-6f, 0x1.f73586p-6f, 0x1.054ad4p-5f, 0x1.0f31bap-5f, 0x1.194fccp-5f, 0x1.23a55ep-5f,
    0x1.2e32c8p-5f, 0x1.38f86p-5f, 0x1.43f678p-5f, 0x1.4f2d64p-5f, 0x1.5a9d76p-5f, 0x1.664702p-5f,
    0x1.722a56p-5f, 0x1.7e47c8p-5f, 0x1.8a9fa4p-5f, 0x1.97323ap-5f, 0x1.a3ffd8p-5f, 0x1.b108dp-5f,
    0x1.be4d6cp-5f, 0x1.cbcdfap-5f, 0x1.d98ac6p-5f, 0x1.e7841cp-5f, 0x1.f5ba48p-5f, 0x1.0216cap-4f,
    0x1.096f26p-4f, 0x1.10e65cp-4f, 0x1.187c9p-4f, 0x1.2031e8p-4f, 0x1.280688p-4f, 0x1.2ffa92p-4f,
    0x1.380e2ap-4f, 0x1.404174p-4f, 0x1.489494p-4f, 0x1.5107acp-4f, 0x1.599adep-4f, 0x1.624e4ep-4f,
    0x1.6b221ep-4f, 0x1.74167p-4f, 0x1.7d2b66p-4f, 0x1.86612p-4f, 0x1.8fb7cp-4f, 0x1.992f68p-4f,
    0x1.a2c83ap-4f, 0x1.ac8256p-4f, 0x1.b65ddcp-4f, 0x1.c05aecp-4f, 0x1.ca79a8p-4f, 0x1.d4ba3p-4f,
    0x1.df1ca2p-4f, 0x1.e9a12p-4f, 0x1.f447cap-4f, 0x1.ff10bcp-4f, 0x1.04fe0cp-3f, 0x1.0a84fep-3f,
    0x1.101d44p-3f, 0x1.15c6eep-3f, 0x1.1b8208p-3f, 0x1.214ea6p-3f, 0x1.272cd4p-3f, 0x1.2d1ca2p-3f,
    0x1.331e1ep-3f, 0x1.393158p-3f, 0x1.3f566p-3f, 0x1.458d42p-3f, 0x1.4bd60ep-3f, 0x1.5230d4p-3f,
    0x1.589dap-3f, 0x1.5f1c84p-3f, 0x1.65ad8ap-3f, 0x1.6c50c4p-3f, 0x1.73063ep-3f, 0x1.79ce06p-3f,
    0x1.80a82ep-3f, 0x1.8794cp-3f, 0x1.8e93ccp-3f, 0x1.95a55ep-3f, 0x1.9cc986p-3f, 0x1.a40052p-3f,
    0x1.ab49cep-3f, 0x1.b2a60ap-3f, 0x1.ba1512p-3f, 0x1.c196f4p-3f, 0x1.c92bbep-3f, 0x1.d0d37cp-3f,
    0x1.d88e3ep-3f, 0x1.e05c0ep-3f, 0x1.e83cfcp-3f, 0x1.f03116p-3f, 0x1.f83866p-3f, 0x1.00297ep-2f,
    0x1.044072p-2f, 0x1.086116p-2f, 0x1.0c8b7p-2f, 0x1.10bf86p-2f, 0x1.14fd6p-2f, 0x1.194502p-2f,
    0x1.1d9676p-2f, 0x1.21f1bep-2f, 0x1.2656e4p-2f, 0x1.2ac5ecp-2f, 0x1.2f3edep-2f, 0x1.33c1cp-2f,
    0x1.384e98p-2f, 0x1.3ce56cp-2f, 0x1.418642p-2f, 0x1.46312p-2f, 0x1.4ae60ep-2f, 0x1.4fa51p-2f,
    0x1.546e2cp-2f, 0x1.59416cp-2f, 0x1.5e1edp-2f, 0x1.630664p-2f, 0x1.67f82ap-2f, 0x1.6cf428p-2f,
    0x1.71fa68p-2f, 0x1.770aecp-2f, 0x1.7c25bcp-2f, 0x1.814adcp-2f, 0x1.867a54p-2f, 0x1.8bb428p-2f,
    0x1.90f86p-2f, 0x1.9647p-2f, 0x1.9ba01p-2f, 0x1.a10394p-2f, 0x1.a67192p-2f, 0x1.abea1p-2f,
    0x1.b16d14p-2f, 0x1.b6faa4p-2f, 0x1.bc92c6p-2f, 0x1.c2357ep-2f, 0x1.c7e2d2p-2f, 0x1.cd9acap-2f,
    0x1.d35d6ap-2f, 0x1.d92ab6p-2f, 0x1.df02b8p-2f, 0x1.e4e57p-2f, 0x1.ead2e8p-2f, 0x1.f0cb26p-2f,
    0x1.f6ce2cp-2f, 0x1.fcdcp-2f, 0x1.017a56p-1f, 0x1.048c18p-1f, 0x1.07a34ap-1f, 0x1.0abfeep-1f,
    0x1.0de208p-1f, 0x1.11099ap-1f, 0x1.1436a8p-1f, 0x1.176932p-1f, 0x1.1aa13ep-1f, 0x1.1ddecap-1f,
    0x1.2121dep-1f, 0x1.246a7ap-1f, 0x1.27b8ap-1f, 0x1.2b0c54p-1f, 0x1.2e6598p-1f, 0x1.31c46ep-1f,
    0x1.3528dcp-1f, 0x1.3892ep-1f, 0x1.3c028p-1f, 0x1.3f77bcp-1f, 0x1.42f29ap-1f, 0x1.467318p-1f,
    0x1.49f93ep-1f, 0x1.4d850ap-1f, 0x1.511682p-1f, 0x1.54ada4p-1f, 0x1.584a78p-1f, 0x1.5becfep-1f,
    0x1.5f9538p-1f, 0x1.634328p-1f, 0x1.66f6d4p-1f, 0x1.6ab03ap-1f, 0x1.6e6f6p-1f, 0x1.723448p-1f,
    0x1.75fef4p-1f, 0x1.79cf64p-1f, 0x1.7da59ep-1f, 0x1.8181a4p-1f, 0x1.856378p-1f, 0x1.894b1cp-1f,
    0x1.8d3892p-1f, 0x1.912bdep-1f, 0x1.9525p-1f, 0x1.9923fep-1f, 0x1.9d28d8p-1f, 0x1.a13392p-1f,
    0x1.a5442cp-1f, 0x1.a95aacp-1f, 0x1.ad771p-1f, 0x1.b1995ep-1f, 0x1.b5c198p-1f, 0x1.b9efbep-1f,
    0x1.be23d4p-1f, 0x1.c25ddep-1f, 0x1.c69ddcp-1f, 0x1.cae3d2p-1f, 0x1.cf2fcp-1f, 0x1.d381aap-1f,
    0x1.d7d994p-1f, 0x1.dc377ep-1f, 0x1.e09b6ap-1f, 0x1.e5055cp-1f, 0x1.e97556p-1f, 0x1.edeb5cp-1f,
    0x1.f2676cp-1f, 0x1.f6e98cp-1f, 0x1.fb71bcp-1f, 0x1p+0f
};

/* Sign extension of a bits-wide channel. */
HIMG_FN himg_i32 himg_sext(himg_u32 raw, himg_u32 bits)
{
    himg_u32 sign = 1u << (bits - 1);
    return (himg_i32)((raw ^ sign) - sign);
}

/* One channel's bits (zero-extended) to a float, per the conversion
 * rules; integer types convert numerically (undefined for read_imagef). */
HIMG_FN float himg_channel_to_float(himg_u32 type, himg_u32 raw)
{
    switch (type) {
    case HIMG_SNORM_INT8: {
        float v = HIMG_DIV((float)himg_sext(raw, 8), 127.0f);
        return v < -1.0f ? -1.0f : v;
    }
    case HIMG_SNORM_INT16: {
        float v = HIMG_DIV((float)himg_sext(raw, 16), 32767.0f);
        return v < -1.0f ? -1.0f : v;
    }
    case HIMG_UNORM_INT8: return HIMG_DIV((float)raw, 255.0f);
    case HIMG_UNORM_INT16: return HIMG_DIV((float)raw, 65535.0f);
    case HIMG_SIGNED_INT8: return (float)himg_sext(raw, 8);
    case HIMG_SIGNED_INT16: return (float)himg_sext(raw, 16);
    case HIMG_SIGNED_INT32: return (float)(himg_i32)raw;
    case HIMG_HALF_FLOAT: return himg_half_to_float(raw);
    case HIMG_FLOAT: return HIMG_AS_FLOAT(raw);
    default: return (float)raw; /* the unsigned types */
    }
}

/* One channel's bits to an integer: signed types sign-extend, unsigned
 * ones zero-extend (read_imagei / read_imageui); the normalized and
 * floating types (undefined there) give their bits, snorm sign-extended. */
HIMG_FN himg_i32 himg_channel_to_int(himg_u32 type, himg_u32 raw)
{
    switch (type) {
    case HIMG_SIGNED_INT8: case HIMG_SNORM_INT8: return himg_sext(raw, 8);
    case HIMG_SIGNED_INT16: case HIMG_SNORM_INT16: return himg_sext(raw, 16);
    default: return (himg_i32)raw;
    }
}

HIMG_FN himg_i64 himg_clamp64(himg_i64 v, himg_i64 lo, himg_i64 hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* convert_<type>_sat_rte(x) for a type of range [lo, hi]: NaN gives 0.
 * The bounds compare as floats ((float)hi may round up, to 2^31 or 2^32,
 * and everything at or above it saturates). */
HIMG_FN himg_u32 himg_sat_rte(float x, himg_i64 lo, himg_i64 hi)
{
    if (!(x == x))
        return 0;
    x = HIMG_RINT(x);
    if (x <= (float)lo)
        return (himg_u32)lo;
    if (x >= (float)hi)
        return (himg_u32)hi;
    return (himg_u32)(himg_i64)x;
}

/* A float channel value to its bits in memory (the spec's write rules:
 * normalized types convert_*_sat_rte(f * max), half round to nearest
 * even; integer types, undefined for write_imagef, saturate the rounded
 * value). */
HIMG_FN himg_u32 himg_float_to_channel(himg_u32 type, float f)
{
    switch (type) {
    case HIMG_SNORM_INT8: return himg_sat_rte(f * 127.0f, -128, 127) & 0xFFu;
    case HIMG_SNORM_INT16: return himg_sat_rte(f * 32767.0f, -32768, 32767) & 0xFFFFu;
    case HIMG_UNORM_INT8: return himg_sat_rte(f * 255.0f, 0, 255);
    case HIMG_UNORM_INT16: return himg_sat_rte(f * 65535.0f, 0, 65535);
    case HIMG_SIGNED_INT8: return himg_sat_rte(f, -128, 127) & 0xFFu;
    case HIMG_SIGNED_INT16: return himg_sat_rte(f, -32768, 32767) & 0xFFFFu;
    case HIMG_SIGNED_INT32: return himg_sat_rte(f, -2147483647 - 1, 2147483647);
    case HIMG_UNSIGNED_INT8: return himg_sat_rte(f, 0, 255);
    case HIMG_UNSIGNED_INT16: return himg_sat_rte(f, 0, 65535);
    case HIMG_UNSIGNED_INT32: return himg_sat_rte(f, 0, 4294967295);
    case HIMG_HALF_FLOAT: return himg_float_to_half(f);
    default: return HIMG_AS_UINT(f); /* HIMG_FLOAT */
    }
}

/* An integer channel value (signed for write_imagei, unsigned for
 * write_imageui) to its bits, saturated to the type's range
 * (convert_<type>_sat); normalized and float types convert numerically. */
HIMG_FN himg_u32 himg_int_to_channel(himg_u32 type, himg_i32 v, int is_unsigned)
{
    himg_i64 x = is_unsigned ? (himg_i64)(himg_u32)v : (himg_i64)v;
    switch (type) {
    case HIMG_SIGNED_INT8: return (himg_u32)himg_clamp64(x, -128, 127) & 0xFFu;
    case HIMG_SIGNED_INT16: return (himg_u32)himg_clamp64(x, -32768, 32767) & 0xFFFFu;
    case HIMG_SIGNED_INT32: return (himg_u32)himg_clamp64(x, -2147483647 - 1, 2147483647);
    case HIMG_UNSIGNED_INT8: return (himg_u32)himg_clamp64(x, 0, 255);
    case HIMG_UNSIGNED_INT16: return (himg_u32)himg_clamp64(x, 0, 65535);
    case HIMG_UNSIGNED_INT32: return (himg_u32)himg_clamp64(x, 0, 4294967295);
    default: return himg_float_to_channel(type, (float)x);
    }
}

/* v[k] = x and v[k] for a channel k known only at run time, by selects:
 * an indexed access would put the array in local memory on the GPU
 * (loops over channels are not unrolled: the conversion switch is too
 * large), these keep it in registers. */
HIMG_FN void himg_set4f(float v[4], himg_u32 k, float x)
{
    v[0] = k == 0 ? x : v[0];
    v[1] = k == 1 ? x : v[1];
    v[2] = k == 2 ? x : v[2];
    v[3] = k == 3 ? x : v[3];
}
HIMG_FN void himg_set4i(himg_i32 v[4], himg_u32 k, himg_i32 x)
{
    v[0] = k == 0 ? x : v[0];
    v[1] = k == 1 ? x : v[1];
    v[2] = k == 2 ? x : v[2];
    v[3] = k == 3 ? x : v[3];
}
HIMG_FN float himg_get4f(const float v[4], himg_u32 k)
{
    return k == 0 ? v[0] : k == 1 ? v[1] : k == 2 ? v[2] : v[3];
}
HIMG_FN himg_i32 himg_get4i(const himg_i32 v[4], himg_u32 k)
{
    return k == 0 ? v[0] : k == 1 ? v[1] : k == 2 ? v[2] : v[3];
}

/* Memory channels (v[0..n-1]) to (r, g, b, a): each order's mapping, the
 * missing channels 0 and alpha `one` (1 or 1.0f: the caller's view). */
#define HIMG_SWIZZLE_IN(order, v, out, one)                                                \
    do {                                                                                   \
        out[0] = out[1] = out[2] = 0;                                                      \
        out[3] = one;                                                                      \
        switch (order) {                                                                   \
        case HIMG_A: out[3] = v[0]; break;                                                 \
        case HIMG_RG: out[0] = v[0]; out[1] = v[1]; break;                                 \
        case HIMG_RA: out[0] = v[0]; out[3] = v[1]; break;                                 \
        case HIMG_RGBA: case HIMG_SRGBA:                                                   \
            out[0] = v[0]; out[1] = v[1]; out[2] = v[2]; out[3] = v[3]; break;             \
        case HIMG_BGRA: out[2] = v[0]; out[1] = v[1]; out[0] = v[2]; out[3] = v[3]; break; \
        case HIMG_ARGB: out[3] = v[0]; out[0] = v[1]; out[1] = v[2]; out[2] = v[3]; break; \
        case HIMG_INTENSITY: out[0] = out[1] = out[2] = out[3] = v[0]; break;              \
        case HIMG_LUMINANCE: out[0] = out[1] = out[2] = v[0]; break;                       \
        default: out[0] = v[0]; break; /* HIMG_R */                                        \
        }                                                                                  \
    } while (0)

/* (r, g, b, a) to the memory channels of an order (INTENSITY and
 * LUMINANCE store r). */
#define HIMG_SWIZZLE_OUT(order, c, v)                                                      \
    do {                                                                                   \
        switch (order) {                                                                   \
        case HIMG_A: v[0] = c[3]; break;                                                   \
        case HIMG_RA: v[0] = c[0]; v[1] = c[3]; break;                                     \
        case HIMG_BGRA: v[0] = c[2]; v[1] = c[1]; v[2] = c[0]; v[3] = c[3]; break;         \
        case HIMG_ARGB: v[0] = c[3]; v[1] = c[0]; v[2] = c[1]; v[3] = c[2]; break;         \
        default: v[0] = c[0]; v[1] = c[1]; v[2] = c[2]; v[3] = c[3]; break;                \
        }                                                                                  \
    } while (0)

/* The pixel at address a as floats (read_imagef; sRGB linearized). */
HIMG_FN void himg_load_f(HIMG_MEM m, const struct hcqcl_image_abi *d, himg_u64 a, float out[4])
{
    himg_u32 cs = himg_channel_size(d->type), n = himg_channels(d->order);
    float v[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    if (d->order == HIMG_SRGBA) {
        for (himg_u32 c = 0; c < 3; c++)
            himg_set4f(v, c, himg_srgb_to_linear[himg_ld(m, a + c, 1)]);
        v[3] = HIMG_DIV((float)himg_ld(m, a + 3, 1), 255.0f);
    } else {
        for (himg_u32 c = 0; c < n; c++)
            himg_set4f(v, c, himg_channel_to_float(d->type, himg_ld(m, a + c * cs, cs)));
    }
    HIMG_SWIZZLE_IN(d->order, v, out, 1.0f);
}

/* A texel for the filters, through himg_load_f. On the GPU one copy of
 * the format decode per program (not inlined into every corner and
 * every read; the call passes registers): it is the larger part of a
 * read's code. */
#ifdef __OPENCL_C_VERSION__
__attribute__((noinline)) static float4 himg_texel_f(himg_u64 a, himg_u32 type, himg_u32 order)
{
    struct hcqcl_image_abi d = { 0 };
    float o[4];
    d.type = type;
    d.order = order;
    himg_load_f(0, &d, a, o);
    return (float4)(o[0], o[1], o[2], o[3]);
}
HIMG_FN void himg_fetch_f(HIMG_MEM m, const struct hcqcl_image_abi *d, himg_u64 a, float out[4])
{
    (void)m;
    float4 t = himg_texel_f(a, d->type, d->order);
    out[0] = t.x;
    out[1] = t.y;
    out[2] = t.z;
    out[3] = t.w;
}
#else
HIMG_FN void himg_fetch_f(HIMG_MEM m, const struct hcqcl_image_abi *d, himg_u64 a, float out[4])
{
    himg_load_f(m, d, a, out);
}
#endif

/* The pixel at address a as integers (read_imagei / read_imageui). */
HIMG_FN void himg_load_i(HIMG_MEM m, const struct hcqcl_image_abi *d, himg_u64 a, himg_i32 out[4])
{
    himg_u32 cs = himg_channel_size(d->type), n = himg_channels(d->order);
    himg_i32 v[4] = { 0, 0, 0, 0 };
    for (himg_u32 c = 0; c < n; c++)
        himg_set4i(v, c, himg_channel_to_int(d->type, himg_ld(m, a + c * cs, cs)));
    HIMG_SWIZZLE_IN(d->order, v, out, 1);
}

/* The border colour of CLK_ADDRESS_CLAMP: (0, 0, 0, 0) for orders with
 * alpha (and INTENSITY), (0, 0, 0, 1) for R, RG and LUMINANCE. */
HIMG_FN int himg_border_alpha(const struct hcqcl_image_abi *d)
{
    return d->order == HIMG_R || d->order == HIMG_RG || d->order == HIMG_LUMINANCE;
}

/* ---- addressing ---- */

/* A float coordinate to int without undefined behaviour (NaN and huge
 * values end far outside any image). */
HIMG_FN himg_i32 himg_f2i(float x)
{
    if (!(x > -1.0e9f))
        return -1000000000;
    return x > 1.0e9f ? 1000000000 : (himg_i32)x;
}

HIMG_FN himg_i32 himg_clampi(himg_i32 v, himg_i32 lo, himg_i32 hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Sizes of the spatial dimensions of an image (width, height, depth). */
HIMG_FN himg_i32 himg_size(const struct hcqcl_image_abi *d, int k)
{
    himg_u32 n = k == 0 ? d->width : k == 1 ? d->height : d->depth;
    return n ? (himg_i32)n : 1;
}

/* An index after addressing: inside [0, n) or, for CLK_ADDRESS_CLAMP
 * only, -1 meaning "border". Other modes clamp to the edge: the spec's
 * CLAMP_TO_EDGE, and what keeps NONE's undefined case inside the image. */
HIMG_FN himg_i32 himg_fix(himg_i32 i, himg_i32 n, himg_u32 smp)
{
    if ((smp & HCQCL_SAMPLER_ADDRESS_MASK) == HCQCL_SAMPLER_ADDRESS_CLAMP && (i < 0 || i >= n))
        return -1;
    return himg_clampi(i, 0, n - 1);
}

/* Nearest filtering along one axis of n texels. */
HIMG_FN himg_i32 himg_axis_nearest(float s, himg_i32 n, himg_u32 smp)
{
    himg_u32 mode = smp & HCQCL_SAMPLER_ADDRESS_MASK;
    int norm = (smp & HCQCL_SAMPLER_NORMALIZED) != 0;
    if (norm && mode == HCQCL_SAMPLER_ADDRESS_REPEAT) {
        himg_i32 i = himg_f2i(HIMG_FLOOR((s - HIMG_FLOOR(s)) * (float)n));
        return himg_clampi(i > n - 1 ? i - n : i, 0, n - 1);
    }
    if (norm && mode == HCQCL_SAMPLER_ADDRESS_MIRROR) {
        float sp = HIMG_FABS(s - 2.0f * HIMG_RINT(0.5f * s));
        return himg_clampi(himg_f2i(HIMG_FLOOR(sp * (float)n)), 0, n - 1);
    }
    float u = norm ? s * (float)n : s;
    return himg_fix(himg_f2i(HIMG_FLOOR(u)), n, smp);
}

/* Linear filtering along one axis: the two texels (himg_fix's meaning)
 * and the weight of the second. */
HIMG_FN void himg_axis_linear(float s, himg_i32 n, himg_u32 smp, himg_i32 *i0, himg_i32 *i1,
                              float *w)
{
    himg_u32 mode = smp & HCQCL_SAMPLER_ADDRESS_MASK;
    int norm = (smp & HCQCL_SAMPLER_NORMALIZED) != 0;
    float u;
    if (norm && mode == HCQCL_SAMPLER_ADDRESS_REPEAT)
        u = (s - HIMG_FLOOR(s)) * (float)n;
    else if (norm && mode == HCQCL_SAMPLER_ADDRESS_MIRROR)
        u = HIMG_FABS(s - 2.0f * HIMG_RINT(0.5f * s)) * (float)n;
    else
        u = norm ? s * (float)n : s;
    float f = HIMG_FLOOR(u - 0.5f);
    himg_i32 a = himg_f2i(f), b = a + 1;
    *w = (u - 0.5f) - f;
    if (norm && mode == HCQCL_SAMPLER_ADDRESS_REPEAT) {
        if (a < 0)
            a += n;
        if (b > n - 1)
            b -= n;
        *i0 = himg_clampi(a, 0, n - 1);
        *i1 = himg_clampi(b, 0, n - 1);
    } else if (norm && mode == HCQCL_SAMPLER_ADDRESS_MIRROR) {
        *i0 = himg_clampi(a, 0, n - 1);
        *i1 = himg_clampi(b, 0, n - 1);
    } else {
        *i0 = himg_fix(a, n, smp);
        *i1 = himg_fix(b, n, smp);
    }
}

/* The array layer of a float coordinate: clamp(rint(c), 0, layers - 1). */
HIMG_FN himg_i32 himg_layer_f(const struct hcqcl_image_abi *d, float c)
{
    himg_i32 n = d->array_size ? (himg_i32)d->array_size : 1;
    return himg_clampi(himg_f2i(HIMG_RINT(c)), 0, n - 1);
}

HIMG_FN himg_i32 himg_layer_i(const struct hcqcl_image_abi *d, himg_i32 c)
{
    himg_i32 n = d->array_size ? (himg_i32)d->array_size : 1;
    return himg_clampi(c, 0, n - 1);
}

/* Address of texel (x, y, z) of layer l (z and l: both slice pitches). */
HIMG_FN himg_u64 himg_addr(const struct hcqcl_image_abi *d, himg_i32 x, himg_i32 y, himg_i32 z,
                           himg_i32 l)
{
    return d->data + (himg_u64)(z + l) * d->slice_pitch + (himg_u64)y * d->row_pitch +
           (himg_u64)x * d->elem_size;
}

/* ---- reads and writes ---- */

/* The texel nearest to float coordinates c[0..dims-1] (dims 1..3): -1
 * in i[0] for the border. */
HIMG_FN void himg_index_nearest(const struct hcqcl_image_abi *d, himg_u32 smp, int dims,
                                const float c[3], himg_i32 i[3])
{
    i[0] = himg_axis_nearest(c[0], himg_size(d, 0), smp);
    i[1] = dims > 1 ? himg_axis_nearest(c[1], himg_size(d, 1), smp) : 0;
    i[2] = dims > 2 ? himg_axis_nearest(c[2], himg_size(d, 2), smp) : 0;
    if (i[1] < 0 || i[2] < 0)
        i[0] = -1;
}

/* read_imagef with float coordinates c[0..dims-1] (dims 1..3) and layer
 * l (0 unless an array image). */
HIMG_FN void himg_read_f(HIMG_MEM m, const struct hcqcl_image_abi *d, himg_u32 smp, int dims,
                         const float c[3], himg_i32 l, float out[4])
{
    float bord = himg_border_alpha(d) ? 1.0f : 0.0f;
    if ((smp & HCQCL_SAMPLER_FILTER_MASK) != HCQCL_SAMPLER_FILTER_LINEAR) {
        himg_i32 i[3];
        himg_index_nearest(d, smp, dims, c, i);
        if (i[0] >= 0) {
            himg_fetch_f(m, d, himg_addr(d, i[0], i[1], i[2], l), out);
        } else {
            out[0] = out[1] = out[2] = 0.0f;
            out[3] = bord;
        }
        return;
    }
    /* Scalars, not arrays indexed by axis: the corner loop of 3D is not
     * unrolled on the GPU, and indexed arrays would go to local memory. */
    himg_i32 x0 = 0, x1 = 0, y0 = 0, y1 = 0, z0 = 0, z1 = 0;
    float wx = 0.0f, wy = 0.0f, wz = 0.0f;
    himg_axis_linear(c[0], himg_size(d, 0), smp, &x0, &x1, &wx);
    if (dims > 1)
        himg_axis_linear(c[1], himg_size(d, 1), smp, &y0, &y1, &wy);
    if (dims > 2)
        himg_axis_linear(c[2], himg_size(d, 2), smp, &z0, &z1, &wz);
    /* The spec's sum over the 2^dims corners, in its order: corner bit k
     * set takes the second texel and weight w along axis k. */
    out[0] = out[1] = out[2] = out[3] = 0.0f;
    for (int corner = 0; corner < 1 << dims; corner++) {
        int hx = corner & 1, hy = (corner >> 1) & 1, hz = (corner >> 2) & 1;
        himg_i32 x = hx ? x1 : x0, y = hy ? y1 : y0, z = hz ? z1 : z0;
        float wt = hx ? wx : 1.0f - wx, t[4];
        if (dims > 1)
            wt *= hy ? wy : 1.0f - wy;
        if (dims > 2)
            wt *= hz ? wz : 1.0f - wz;
        if (x >= 0 && y >= 0 && z >= 0) {
            himg_fetch_f(m, d, himg_addr(d, x, y, z, l), t);
        } else {
            t[0] = t[1] = t[2] = 0.0f;
            t[3] = bord;
        }
        for (int ch = 0; ch < 4; ch++)
            out[ch] += wt * t[ch];
    }
}

/* The texel of integer coordinates under a sampler (read_image* with int
 * coordinates; smp 0 for the sampler-less reads): -1 in i[0] for the
 * border. */
HIMG_FN void himg_index_i(const struct hcqcl_image_abi *d, himg_u32 smp, int dims,
                          const himg_i32 c[3], himg_i32 i[3])
{
    i[0] = himg_fix(c[0], himg_size(d, 0), smp);
    i[1] = dims > 1 ? himg_fix(c[1], himg_size(d, 1), smp) : 0;
    i[2] = dims > 2 ? himg_fix(c[2], himg_size(d, 2), smp) : 0;
    if (i[1] < 0 || i[2] < 0)
        i[0] = -1;
}

/* read_imagef with integer coordinates. */
HIMG_FN void himg_read_f_i(HIMG_MEM m, const struct hcqcl_image_abi *d, himg_u32 smp, int dims,
                           const himg_i32 c[3], himg_i32 l, float out[4])
{
    himg_i32 i[3];
    himg_index_i(d, smp, dims, c, i);
    if (i[0] < 0) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = himg_border_alpha(d) ? 1.0f : 0.0f;
        return;
    }
    himg_fetch_f(m, d, himg_addr(d, i[0], i[1], i[2], l), out);
}

/* The integer texel at index i of layer l, or the border colour when
 * the index fell outside (i[0] < 0). */
HIMG_FN void himg_texel_i(HIMG_MEM m, const struct hcqcl_image_abi *d, const himg_i32 i[3],
                          himg_i32 l, himg_i32 out[4])
{
    if (i[0] < 0) {
        out[0] = out[1] = out[2] = 0;
        out[3] = himg_border_alpha(d);
        return;
    }
    himg_load_i(m, d, himg_addr(d, i[0], i[1], i[2], l), out);
}

/* read_imagei / read_imageui with integer coordinates. */
HIMG_FN void himg_read_i_i(HIMG_MEM m, const struct hcqcl_image_abi *d, himg_u32 smp, int dims,
                           const himg_i32 c[3], himg_i32 l, himg_i32 out[4])
{
    himg_i32 i[3];
    himg_index_i(d, smp, dims, c, i);
    himg_texel_i(m, d, i, l, out);
}

/* read_imagei / read_imageui with float coordinates (always nearest). */
HIMG_FN void himg_read_i(HIMG_MEM m, const struct hcqcl_image_abi *d, himg_u32 smp, int dims,
                         const float c[3], himg_i32 l, himg_i32 out[4])
{
    himg_i32 i[3];
    himg_index_nearest(d, smp, dims, c, i);
    himg_texel_i(m, d, i, l, out);
}

/* The address a write of (c, layer l) goes to, or 0 when it is outside
 * the image (layers are checked only for array images: l < 0 otherwise
 * cannot happen, callers pass 0). */
HIMG_FN himg_u64 himg_write_addr(const struct hcqcl_image_abi *d, int dims, const himg_i32 c[3],
                                 himg_i32 l)
{
    himg_i32 x = c[0], y = dims > 1 ? c[1] : 0, z = dims > 2 ? c[2] : 0;
    if (x < 0 || x >= himg_size(d, 0) || y < 0 || y >= himg_size(d, 1) || z < 0 ||
        z >= himg_size(d, 2) || l < 0 || (l > 0 && (himg_u32)l >= d->array_size))
        return 0;
    return himg_addr(d, x, y, z, l);
}

/* write_imagef. */
HIMG_FN void himg_write_f(HIMG_MEM m, const struct hcqcl_image_abi *d, int dims,
                          const himg_i32 c[3], himg_i32 l, const float col[4])
{
    himg_u64 a = himg_write_addr(d, dims, c, l);
    himg_u32 cs = himg_channel_size(d->type), n = himg_channels(d->order);
    if (!a || !cs)
        return;
    float v[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    HIMG_SWIZZLE_OUT(d->order, col, v);
    for (himg_u32 k = 0; k < n; k++)
        himg_st(m, a + k * cs, cs, himg_float_to_channel(d->type, himg_get4f(v, k)));
}

/* write_imagei (is_unsigned 0) and write_imageui (1). */
HIMG_FN void himg_write_i(HIMG_MEM m, const struct hcqcl_image_abi *d, int dims,
                          const himg_i32 c[3], himg_i32 l, const himg_i32 col[4], int is_unsigned)
{
    himg_u64 a = himg_write_addr(d, dims, c, l);
    himg_u32 cs = himg_channel_size(d->type), n = himg_channels(d->order);
    if (!a || !cs)
        return;
    himg_i32 v[4] = { 0, 0, 0, 0 };
    HIMG_SWIZZLE_OUT(d->order, col, v);
    for (himg_u32 k = 0; k < n; k++)
        himg_st(m, a + k * cs, cs, himg_int_to_channel(d->type, himg_get4i(v, k), is_unsigned));
}

#endif

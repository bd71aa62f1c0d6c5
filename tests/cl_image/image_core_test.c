/*
 * image_core_test.c — the software image core (tools/hcqcl-cc/
 * image_core.h, the code image.cl runs on the GPU) driven directly,
 * against values worked out by hand from the OpenCL C specification:
 *
 *   half        float <-> half: exact cases, round to nearest even, the
 *               overflow bound, subnormals; every half round-trips
 *   decode      every supported channel type (normalized, integer, half,
 *               float) and order (missing channels 0, alpha 1; BGRA,
 *               ARGB; INTENSITY, LUMINANCE replicated), sRGB to linear
 *   encode      write rules: round to nearest even, saturation, NaN, the
 *               integer writes' saturation for signed and unsigned
 *               values; every 8- and 16-bit normalized code round-trips
 *   addressing  nearest and linear in 1D, 2D and 3D under CLAMP_TO_EDGE,
 *               CLAMP (border colours), NONE, REPEAT and MIRRORED_REPEAT,
 *               normalized and unnormalized coordinates, integer
 *               coordinates, array layers, row and slice pitches
 *   writes      outside the image or the array's layers: dropped
 *
 * Pixel memory is host memory here, reached through the core's himg_mem
 * callback, which refuses any byte outside the test's buffer: every case
 * also checks that the core never read or wrote outside the image.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "image_core.h"

/* ---- a test image over a host buffer ---- */

static uint8_t mem[1 << 16];

static void *mem_ptr(void *user, uint64_t va, uint64_t len)
{
    (void)user;
    uint64_t base = (uint64_t)(uintptr_t)mem;
    return va >= base && va + len <= base + sizeof(mem) && len <= sizeof(mem) ? (void *)(uintptr_t)va
                                                                              : NULL;
}

static struct himg_mem m = { mem_ptr, NULL, 0 };

/* An image of the given format at the start of mem (zeroed). */
static struct hcqcl_image_abi image(uint32_t mem_type, uint32_t order, uint32_t type, uint32_t w,
                                    uint32_t h, uint32_t depth, uint32_t layers, uint32_t row_pad)
{
    struct hcqcl_image_abi d;
    memset(&d, 0, sizeof(d));
    memset(mem, 0, sizeof(mem));
    d.data = (uint64_t)(uintptr_t)mem;
    d.order = order;
    d.type = type;
    d.elem_size = himg_channels(order) * himg_channel_size(type);
    d.width = w;
    d.height = h;
    d.depth = depth;
    d.array_size = layers;
    d.row_pitch = (uint64_t)w * d.elem_size + row_pad;
    d.mem_type = mem_type;
    if (mem_type == HIMG_MEM_IMAGE3D || mem_type == HIMG_MEM_IMAGE2D_ARRAY ||
        mem_type == HIMG_MEM_IMAGE1D_ARRAY)
        d.slice_pitch = d.row_pitch * h;
    return d;
}

static uint8_t *px(const struct hcqcl_image_abi *d, int x, int y, int z)
{
    return mem + (uint64_t)z * d->slice_pitch + (uint64_t)y * d->row_pitch +
           (uint64_t)x * d->elem_size;
}

static void put_f32(const struct hcqcl_image_abi *d, int x, int y, int z, float v)
{
    memcpy(px(d, x, y, z), &v, 4);
}

static bool near(float a, float b, float tol)
{
    return fabsf(a - b) <= tol || (a != a && b != b);
}

#define EXPECT4F(o, a, b, c, dd, tol)                                                          \
    EXPECT(near(o[0], a, tol) && near(o[1], b, tol) && near(o[2], c, tol) &&                   \
               near(o[3], dd, tol),                                                            \
           "got (%.9g, %.9g, %.9g, %.9g), expected (%.9g, %.9g, %.9g, %.9g)", o[0], o[1], o[2], \
           o[3], (double)(a), (double)(b), (double)(c), (double)(dd))
#define EXPECT4I(o, a, b, c, dd)                                                               \
    EXPECT(o[0] == (int32_t)(a) && o[1] == (int32_t)(b) && o[2] == (int32_t)(c) &&             \
               o[3] == (int32_t)(dd),                                                          \
           "got (%d, %d, %d, %d), expected (%d, %d, %d, %d)", o[0], o[1], o[2], o[3],          \
           (int32_t)(a), (int32_t)(b), (int32_t)(c), (int32_t)(dd))

/* Reads of one pixel with integer coordinates and no sampler. */
static void read_px_f(const struct hcqcl_image_abi *d, int x, float o[4])
{
    int32_t c[3] = { x, 0, 0 };
    himg_read_f_i(&m, d, 0, 1, c, 0, o);
}

static void read_px_i(const struct hcqcl_image_abi *d, int x, int32_t o[4])
{
    int32_t c[3] = { x, 0, 0 };
    himg_read_i_i(&m, d, 0, 1, c, 0, o);
}

static void write_px_f(const struct hcqcl_image_abi *d, int x, float r, float g, float b, float a)
{
    int32_t c[3] = { x, 0, 0 };
    float col[4] = { r, g, b, a };
    himg_write_f(&m, d, 1, c, 0, col);
}

static void write_px_i(const struct hcqcl_image_abi *d, int x, int32_t r, int32_t g, int32_t b,
                       int32_t a, int is_unsigned)
{
    int32_t c[3] = { x, 0, 0 };
    int32_t col[4] = { r, g, b, a };
    himg_write_i(&m, d, 1, c, 0, col, is_unsigned);
}

/* ---- half ---- */

static void test_half(void)
{
    EXPECT(himg_half_to_float(0x3C00) == 1.0f);
    EXPECT(himg_half_to_float(0xC000) == -2.0f);
    EXPECT(himg_half_to_float(0x7BFF) == 65504.0f);
    EXPECT(himg_half_to_float(0x0001) == 0x1p-24f);
    EXPECT(himg_half_to_float(0x03FF) == 1023 * 0x1p-24f);
    EXPECT(himg_half_to_float(0x0400) == 0x1p-14f);
    EXPECT(himg_half_to_float(0x8000) == 0.0f && signbit(himg_half_to_float(0x8000)));
    EXPECT(isinf(himg_half_to_float(0x7C00)) && himg_half_to_float(0xFC00) < 0);
    EXPECT(isnan(himg_half_to_float(0x7E00)));

    EXPECT_EQ(himg_float_to_half(1.0f), 0x3C00);
    EXPECT_EQ(himg_float_to_half(-2.0f), 0xC000);
    EXPECT_EQ(himg_float_to_half(1.0f / 3.0f), 0x3555);
    EXPECT_EQ(himg_float_to_half(65504.0f), 0x7BFF);
    EXPECT_EQ(himg_float_to_half(65519.0f), 0x7BFF); /* below the half-way point */
    EXPECT_EQ(himg_float_to_half(65520.0f), 0x7C00); /* half-way: to even, infinity */
    EXPECT_EQ(himg_float_to_half(1e10f), 0x7C00);
    EXPECT_EQ(himg_float_to_half(-INFINITY), 0xFC00);
    EXPECT_EQ(himg_float_to_half(NAN) & 0x7E00, 0x7E00);
    /* Ties: 1 + 2^-11 is half-way between 0x3C00 and 0x3C01 (to 0x3C00,
     * even), 1 + 3 * 2^-11 between 0x3C01 and 0x3C02 (to 0x3C02). */
    EXPECT_EQ(himg_float_to_half(1.0f + 0x1p-11f), 0x3C00);
    EXPECT_EQ(himg_float_to_half(1.0f + 3 * 0x1p-11f), 0x3C02);
    EXPECT_EQ(himg_float_to_half(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01);
    /* Subnormals: 2^-25 is half-way between 0 and the smallest (to 0),
     * 3 * 2^-25 between 1 and 2 units (to 2); 2^-14 - 2^-25 rounds up
     * to the smallest normal. */
    EXPECT_EQ(himg_float_to_half(0x1p-25f), 0x0000);
    EXPECT_EQ(himg_float_to_half(3 * 0x1p-25f), 0x0002);
    EXPECT_EQ(himg_float_to_half(-5 * 0x1p-24f), 0x8005);
    EXPECT_EQ(himg_float_to_half(0x1p-14f - 0x1p-25f), 0x0400);
    EXPECT_EQ(himg_float_to_half(1e-10f), 0x0000);
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        bool nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
        if (!nan && himg_float_to_half(himg_half_to_float(h)) != h)
            bad++;
    }
    EXPECT(bad == 0, "%d halves do not round-trip", bad);
}

/* ---- decode ---- */

static void test_decode_types(void)
{
    float o[4];
    int32_t oi[4];
    struct hcqcl_image_abi d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNORM_INT8, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (uint8_t[]){ 0, 51, 255, 128 }, 4);
    read_px_f(&d, 0, o);
    EXPECT4F(o, 0.0f, 0.2f, 1.0f, 128.0f / 255.0f, 0.0f);

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SNORM_INT8, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (int8_t[]){ -128, -127, 64, 127 }, 4);
    read_px_f(&d, 0, o);
    EXPECT4F(o, -1.0f, -1.0f, 64.0f / 127.0f, 1.0f, 0.0f);

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNORM_INT16, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (uint16_t[]){ 0, 13107, 65535, 32768 }, 8);
    read_px_f(&d, 0, o);
    EXPECT4F(o, 0.0f, 0.2f, 1.0f, 32768.0f / 65535.0f, 0.0f);

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SNORM_INT16, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (int16_t[]){ -32768, -32767, -16384, 32767 }, 8);
    read_px_f(&d, 0, o);
    EXPECT4F(o, -1.0f, -1.0f, -16384.0f / 32767.0f, 1.0f, 0.0f);

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_HALF_FLOAT, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (uint16_t[]){ 0x3C00, 0xC000, 0x3800, 0x0001 }, 8);
    read_px_f(&d, 0, o);
    EXPECT4F(o, 1.0f, -2.0f, 0.5f, 0x1p-24f, 0.0f);

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_FLOAT, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (float[]){ 1.5f, -3.25f, 1e30f, -0.0f }, 16);
    read_px_f(&d, 0, o);
    EXPECT4F(o, 1.5f, -3.25f, 1e30f, 0.0f, 0.0f);

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SIGNED_INT8, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (int8_t[]){ -5, 127, -128, 0 }, 4);
    read_px_i(&d, 0, oi);
    EXPECT4I(oi, -5, 127, -128, 0);
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNSIGNED_INT8, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (uint8_t[]){ 200, 255, 0, 7 }, 4);
    read_px_i(&d, 0, oi);
    EXPECT4I(oi, 200, 255, 0, 7);
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SIGNED_INT16, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (int16_t[]){ -300, 32767, -32768, 1 }, 8);
    read_px_i(&d, 0, oi);
    EXPECT4I(oi, -300, 32767, -32768, 1);
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNSIGNED_INT16, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (uint16_t[]){ 60000, 65535, 0, 2 }, 8);
    read_px_i(&d, 0, oi);
    EXPECT4I(oi, 60000, 65535, 0, 2);
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SIGNED_INT32, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (int32_t[]){ -7, INT32_MIN, INT32_MAX, 3 }, 16);
    read_px_i(&d, 0, oi);
    EXPECT4I(oi, -7, INT32_MIN, INT32_MAX, 3);
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNSIGNED_INT32, 4, 1, 1, 0, 0);
    memcpy(px(&d, 0, 0, 0), (uint32_t[]){ 0xFFFFFFFFu, 0x80000000u, 0, 9 }, 16);
    read_px_i(&d, 0, oi);
    EXPECT4I(oi, 0xFFFFFFFFu, 0x80000000u, 0, 9);
}

/* Every order: the memory channels (unorm8 codes 10, 20, 30, 40) seen as
 * (r, g, b, a), and the same through read_imageui of uint8. */
static void test_decode_orders(void)
{
    static const struct {
        uint32_t order;
        int r, g, b, a; /* memory channel index, -1: 0, -2: 1 */
    } orders[] = {
        { HIMG_R, 0, -1, -1, -2 },      { HIMG_A, -1, -1, -1, 0 },
        { HIMG_RG, 0, 1, -1, -2 },      { HIMG_RA, 0, -1, -1, 1 },
        { HIMG_RGBA, 0, 1, 2, 3 },      { HIMG_BGRA, 2, 1, 0, 3 },
        { HIMG_ARGB, 1, 2, 3, 0 },      { HIMG_INTENSITY, 0, 0, 0, 0 },
        { HIMG_LUMINANCE, 0, 0, 0, -2 },
    };
    for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
        const int map[4] = { orders[i].r, orders[i].g, orders[i].b, orders[i].a };
        struct hcqcl_image_abi d = image(HIMG_MEM_IMAGE1D, orders[i].order, HIMG_UNORM_INT8, 2, 1,
                                         1, 0, 0);
        uint8_t codes[4] = { 10, 20, 30, 40 };
        memcpy(px(&d, 1, 0, 0), codes, d.elem_size);
        float o[4], e[4];
        read_px_f(&d, 1, o);
        for (int c = 0; c < 4; c++)
            e[c] = map[c] == -1 ? 0.0f : map[c] == -2 ? 1.0f : codes[map[c]] / 255.0f;
        EXPECT4F(o, e[0], e[1], e[2], e[3], 0.0f);
        if (orders[i].order == HIMG_INTENSITY || orders[i].order == HIMG_LUMINANCE)
            continue; /* integer types are not listed for these */
        d.type = HIMG_UNSIGNED_INT8;
        int32_t oi[4], ei[4];
        read_px_i(&d, 1, oi);
        for (int c = 0; c < 4; c++)
            ei[c] = map[c] == -1 ? 0 : map[c] == -2 ? 1 : codes[map[c]];
        EXPECT4I(oi, ei[0], ei[1], ei[2], ei[3]);
    }
    /* sRGB: the spec's formula on r, g and b; alpha linear. */
    struct hcqcl_image_abi d = image(HIMG_MEM_IMAGE1D, HIMG_SRGBA, HIMG_UNORM_INT8, 256, 1, 1, 0, 0);
    for (int x = 0; x < 256; x++)
        memcpy(px(&d, x, 0, 0), (uint8_t[]){ (uint8_t)x, (uint8_t)(255 - x), (uint8_t)x, (uint8_t)x }, 4);
    int bad = 0;
    for (int x = 0; x < 256; x++) {
        float o[4];
        read_px_f(&d, x, o);
        double c = x / 255.0, c2 = (255 - x) / 255.0;
        double l = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
        double l2 = c2 <= 0.04045 ? c2 / 12.92 : pow((c2 + 0.055) / 1.055, 2.4);
        if (!near(o[0], (float)l, 1e-7f) || !near(o[1], (float)l2, 1e-7f) || o[2] != o[0] ||
            o[3] != x / 255.0f)
            bad++;
    }
    EXPECT(bad == 0, "%d sRGB codes wrong", bad);
    float o[4];
    read_px_f(&d, 128, o);
    EXPECT(near(o[0], 0.2158605f, 1e-6f), "sRGB 128: %.7f", o[0]);
}

/* ---- encode ---- */

static void test_encode(void)
{
    struct hcqcl_image_abi d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNORM_INT8, 4, 1, 1, 0, 0);
    write_px_f(&d, 0, 0.5f, 0.2f, -0.1f, 1.7f); /* 127.5 -> 128 (even), 51, 0, 255 */
    EXPECT(!memcmp(px(&d, 0, 0, 0), (uint8_t[]){ 128, 51, 0, 255 }, 4));
    write_px_f(&d, 1, NAN, INFINITY, -INFINITY, 1.0f / 255.0f);
    EXPECT(!memcmp(px(&d, 1, 0, 0), (uint8_t[]){ 0, 255, 0, 1 }, 4));

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SNORM_INT8, 4, 1, 1, 0, 0);
    write_px_f(&d, 0, 0.5f, -0.5f, -2.0f, 2.0f); /* 63.5 -> 64, -63.5 -> -64 */
    EXPECT(!memcmp(px(&d, 0, 0, 0), (int8_t[]){ 64, -64, -128, 127 }, 4));

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNORM_INT16, 4, 1, 1, 0, 0);
    write_px_f(&d, 0, 0.5f, 1.5f, -1.0f, 0.2f); /* 32767.5 -> 32768 */
    EXPECT(!memcmp(px(&d, 0, 0, 0), (uint16_t[]){ 32768, 65535, 0, 13107 }, 8));

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SNORM_INT16, 4, 1, 1, 0, 0);
    write_px_f(&d, 0, 0.5f, -0.5f, -1.5f, 1.5f); /* 16383.5 -> 16384 */
    EXPECT(!memcmp(px(&d, 0, 0, 0), (int16_t[]){ 16384, -16384, -32768, 32767 }, 8));

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_HALF_FLOAT, 4, 1, 1, 0, 0);
    write_px_f(&d, 0, 1.0f / 3.0f, 65520.0f, -0.0f, 1.0f + 0x1p-11f);
    EXPECT(!memcmp(px(&d, 0, 0, 0), (uint16_t[]){ 0x3555, 0x7C00, 0x8000, 0x3C00 }, 8));

    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_FLOAT, 4, 1, 1, 0, 0);
    write_px_f(&d, 0, 1.5f, -3.25f, 1e-40f, 7.0f);
    EXPECT(!memcmp(px(&d, 0, 0, 0), (float[]){ 1.5f, -3.25f, 1e-40f, 7.0f }, 16));

    /* write_imagei / write_imageui: convert_<type>_sat. */
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SIGNED_INT8, 4, 1, 1, 0, 0);
    write_px_i(&d, 0, 300, -300, -5, 127, 0);
    EXPECT(!memcmp(px(&d, 0, 0, 0), (int8_t[]){ 127, -128, -5, 127 }, 4));
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SIGNED_INT16, 4, 1, 1, 0, 0);
    write_px_i(&d, 0, 40000, -40000, -300, 0, 0);
    EXPECT(!memcmp(px(&d, 0, 0, 0), (int16_t[]){ 32767, -32768, -300, 0 }, 8));
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_SIGNED_INT32, 4, 1, 1, 0, 0);
    write_px_i(&d, 0, INT32_MIN, INT32_MAX, -1, 0, 0);
    EXPECT(!memcmp(px(&d, 0, 0, 0), (int32_t[]){ INT32_MIN, INT32_MAX, -1, 0 }, 16));
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNSIGNED_INT8, 4, 1, 1, 0, 0);
    write_px_i(&d, 0, 300, (int32_t)0xFFFFFFFFu, 200, 0, 1); /* unsigned: 2^32 - 1 is large */
    EXPECT(!memcmp(px(&d, 0, 0, 0), (uint8_t[]){ 255, 255, 200, 0 }, 4));
    write_px_i(&d, 1, -5, 300, 1, 2, 0); /* a signed value saturates at 0 */
    EXPECT(!memcmp(px(&d, 1, 0, 0), (uint8_t[]){ 0, 255, 1, 2 }, 4));
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNSIGNED_INT16, 4, 1, 1, 0, 0);
    write_px_i(&d, 0, 70000, 65535, 0, 1, 1);
    EXPECT(!memcmp(px(&d, 0, 0, 0), (uint16_t[]){ 65535, 65535, 0, 1 }, 8));
    d = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNSIGNED_INT32, 4, 1, 1, 0, 0);
    write_px_i(&d, 0, (int32_t)0xFFFFFFFFu, (int32_t)0x80000000u, 0, 5, 1);
    EXPECT(!memcmp(px(&d, 0, 0, 0), (uint32_t[]){ 0xFFFFFFFFu, 0x80000000u, 0, 5 }, 16));

    /* Orders on write: (r, g, b, a) = (1, 0.2, 0, 0.5) in unorm8. */
    static const struct {
        uint32_t order;
        uint8_t bytes[4];
    } outs[] = {
        { HIMG_R, { 255 } },           { HIMG_A, { 128 } },
        { HIMG_RG, { 255, 51 } },      { HIMG_RA, { 255, 128 } },
        { HIMG_BGRA, { 0, 51, 255, 128 } }, { HIMG_ARGB, { 128, 255, 51, 0 } },
        { HIMG_INTENSITY, { 255 } },   { HIMG_LUMINANCE, { 255 } },
    };
    for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
        d = image(HIMG_MEM_IMAGE1D, outs[i].order, HIMG_UNORM_INT8, 4, 1, 1, 0, 0);
        write_px_f(&d, 1, 1.0f, 0.2f, 0.0f, 0.5f);
        EXPECT(!memcmp(px(&d, 1, 0, 0), outs[i].bytes, d.elem_size), "order 0x%x", outs[i].order);
        EXPECT(px(&d, 1, 0, 0)[d.elem_size] == 0 && px(&d, 0, 0, 0)[d.elem_size - 1] == 0,
               "order 0x%x wrote beyond its pixel", outs[i].order);
    }

    /* Round trips: every 8- and 16-bit normalized code read and written
     * back (snorm's most negative code reads -1 and is written -max). */
    static const uint32_t norm_types[] = { HIMG_UNORM_INT8, HIMG_SNORM_INT8, HIMG_UNORM_INT16,
                                           HIMG_SNORM_INT16 };
    for (size_t t = 0; t < 4; t++) {
        uint32_t type = norm_types[t], cs = himg_channel_size(type), bad = 0;
        bool snorm = type == HIMG_SNORM_INT8 || type == HIMG_SNORM_INT16;
        for (uint32_t code = 0; code < (1u << (8 * cs)); code++) {
            float f = himg_channel_to_float(type, code);
            uint32_t back = himg_float_to_channel(type, f);
            uint32_t most_neg = 1u << (8 * cs - 1);
            uint32_t want = snorm && code == most_neg ? most_neg + 1 : code;
            bad += back != want;
        }
        EXPECT(bad == 0, "type 0x%x: %u codes do not round-trip", type, bad);
    }
}

/* ---- addressing ---- */

#define NORM HCQCL_SAMPLER_NORMALIZED
#define EDGE HCQCL_SAMPLER_ADDRESS_EDGE
#define CLAMP HCQCL_SAMPLER_ADDRESS_CLAMP
#define NONE HCQCL_SAMPLER_ADDRESS_NONE
#define REPEAT HCQCL_SAMPLER_ADDRESS_REPEAT
#define MIRROR HCQCL_SAMPLER_ADDRESS_MIRROR
#define NEAREST HCQCL_SAMPLER_FILTER_NEAREST
#define LINEAR HCQCL_SAMPLER_FILTER_LINEAR

static float read1(const struct hcqcl_image_abi *d, uint32_t smp, float s)
{
    float c[3] = { s, 0, 0 }, o[4];
    himg_read_f(&m, d, smp, 1, c, 0, o);
    return o[0];
}

static void test_1d(void)
{
    struct hcqcl_image_abi d = image(HIMG_MEM_IMAGE1D, HIMG_R, HIMG_FLOAT, 4, 1, 1, 0, 0);
    for (int x = 0; x < 4; x++)
        put_f32(&d, x, 0, 0, 10.0f * (float)(x + 1));
    static const struct {
        uint32_t smp;
        float s, want;
    } cases[] = {
        /* nearest, unnormalized */
        { NEAREST | EDGE, -1.5f, 10 },    { NEAREST | EDGE, 0.99f, 10 },
        { NEAREST | EDGE, 1.0f, 20 },     { NEAREST | EDGE, 3.99f, 40 },
        { NEAREST | EDGE, 100.0f, 40 },   { NEAREST | CLAMP, 3.5f, 40 },
        { NEAREST | CLAMP, -0.5f, 0 },    { NEAREST | CLAMP, 4.0f, 0 },
        { NEAREST | NONE, 5.0f, 40 },     { NEAREST | NONE, -1e30f, 10 },
        { NEAREST | NONE, NAN, 10 },
        /* nearest, normalized: u = s * 4 */
        { NORM | NEAREST | EDGE, 0.3f, 20 },   { NORM | NEAREST | CLAMP, 1.0f, 0 },
        { NORM | NEAREST | CLAMP, 0.999f, 40 },
        /* repeat: u = (s - floor(s)) * 4 */
        { NORM | NEAREST | REPEAT, 1.3f, 20 }, { NORM | NEAREST | REPEAT, -0.1f, 40 },
        { NORM | NEAREST | REPEAT, 2.0f, 10 },
        /* mirrored repeat: s' = |s - 2 rint(s / 2)| */
        { NORM | NEAREST | MIRROR, 1.3f, 30 }, { NORM | NEAREST | MIRROR, -0.3f, 20 },
        { NORM | NEAREST | MIRROR, 0.9f, 40 },
        /* linear: i0 = floor(u - 0.5), a = frac(u - 0.5) */
        { LINEAR | EDGE, 1.5f, 20 },      { LINEAR | EDGE, 1.75f, 22.5f },
        { LINEAR | EDGE, 0.25f, 10 },     { LINEAR | EDGE, 4.5f, 40 },
        { LINEAR | CLAMP, 0.25f, 7.5f },  { LINEAR | CLAMP, 4.25f, 10 },
        { NORM | LINEAR | EDGE, 0.4375f, 22.5f },
        { NORM | LINEAR | REPEAT, 0.0f, 25 },   { NORM | LINEAR | REPEAT, 0.5f, 25 },
        { NORM | LINEAR | REPEAT, 1.0625f, 17.5f }, /* u 0.25: texels 3 and 0 */
        { NORM | LINEAR | MIRROR, 1.0f, 40 },   { NORM | LINEAR | MIRROR, 0.0625f, 10 },
        { NORM | LINEAR | MIRROR, -0.4375f, 22.5f },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        float got = read1(&d, cases[i].smp, cases[i].s);
        EXPECT(near(got, cases[i].want, 1e-5f), "sampler 0x%x s %g: %g, expected %g",
               cases[i].smp, (double)cases[i].s, (double)got, (double)cases[i].want);
    }
    /* Border colours: (0, 0, 0, 1) for R, (0, 0, 0, 0) for RGBA; linear
     * filtering mixes them in (alpha too). */
    float c[3] = { -1.0f, 0, 0 }, o[4];
    himg_read_f(&m, &d, NEAREST | CLAMP, 1, c, 0, o);
    EXPECT4F(o, 0, 0, 0, 1, 0);
    c[0] = 0.25f;
    himg_read_f(&m, &d, LINEAR | CLAMP, 1, c, 0, o);
    EXPECT4F(o, 7.5f, 0, 0, 1, 1e-6f);
    struct hcqcl_image_abi d4 = image(HIMG_MEM_IMAGE1D, HIMG_RGBA, HIMG_UNORM_INT8, 2, 1, 1, 0, 0);
    memset(mem, 255, 8);
    himg_read_f(&m, &d4, LINEAR | CLAMP, 1, c, 0, o);
    EXPECT4F(o, 0.75f, 0.75f, 0.75f, 0.75f, 1e-6f);
    c[0] = 5.0f;
    himg_read_f(&m, &d4, NEAREST | CLAMP, 1, c, 0, o);
    EXPECT4F(o, 0, 0, 0, 0, 0);
    struct hcqcl_image_abi dl = image(HIMG_MEM_IMAGE1D, HIMG_LUMINANCE, HIMG_UNORM_INT8, 2, 1, 1, 0, 0);
    himg_read_f(&m, &dl, NEAREST | CLAMP, 1, c, 0, o);
    EXPECT4F(o, 0, 0, 0, 1, 0);
    struct hcqcl_image_abi dx = image(HIMG_MEM_IMAGE1D, HIMG_INTENSITY, HIMG_UNORM_INT8, 2, 1, 1, 0, 0);
    himg_read_f(&m, &dx, NEAREST | CLAMP, 1, c, 0, o);
    EXPECT4F(o, 0, 0, 0, 0, 0);

    /* Integer coordinates with a sampler: CLAMP's border, otherwise the
     * edge; read_imagei with float coordinates filters nearest even
     * under a linear sampler. */
    struct hcqcl_image_abi di = image(HIMG_MEM_IMAGE1D, HIMG_R, HIMG_SIGNED_INT32, 4, 1, 1, 0, 0);
    for (int x = 0; x < 4; x++)
        memcpy(px(&di, x, 0, 0), &(int32_t){ -x - 1 }, 4);
    int32_t ic[3] = { -1, 0, 0 }, oi[4];
    himg_read_i_i(&m, &di, CLAMP | NEAREST, 1, ic, 0, oi);
    EXPECT4I(oi, 0, 0, 0, 1);
    himg_read_i_i(&m, &di, EDGE | NEAREST, 1, ic, 0, oi);
    EXPECT4I(oi, -1, 0, 0, 1);
    ic[0] = 9;
    himg_read_i_i(&m, &di, NONE | NEAREST, 1, ic, 0, oi);
    EXPECT4I(oi, -4, 0, 0, 1);
    float fc[3] = { 2.9f, 0, 0 };
    himg_read_i(&m, &di, LINEAR | EDGE, 1, fc, 0, oi);
    EXPECT4I(oi, -3, 0, 0, 1);
    fc[0] = 4.0f;
    himg_read_i(&m, &di, NEAREST | CLAMP, 1, fc, 0, oi);
    EXPECT4I(oi, 0, 0, 0, 1);
    ic[0] = 2;
    float of[4];
    himg_read_f_i(&m, &di, CLAMP | NEAREST, 1, ic, 0, of); /* numerically, for read_imagef */
    EXPECT4F(of, -3, 0, 0, 1, 0);
}

static void test_2d_3d(void)
{
    /* 2x2 R float, a padded row pitch: 1 2 / 3 4. */
    struct hcqcl_image_abi d = image(HIMG_MEM_IMAGE2D, HIMG_R, HIMG_FLOAT, 2, 2, 1, 0, 24);
    put_f32(&d, 0, 0, 0, 1);
    put_f32(&d, 1, 0, 0, 2);
    put_f32(&d, 0, 1, 0, 3);
    put_f32(&d, 1, 1, 0, 4);
    float c[3] = { 1.0f, 1.0f, 0 }, o[4];
    himg_read_f(&m, &d, LINEAR | EDGE, 2, c, 0, o);
    EXPECT4F(o, 2.5f, 0, 0, 1, 1e-6f);
    c[0] = 0.75f, c[1] = 1.25f; /* a = 0.25, b = 0.75 */
    himg_read_f(&m, &d, LINEAR | EDGE, 2, c, 0, o);
    EXPECT4F(o, 2.75f, 0, 0, 1, 1e-6f);
    c[0] = 0.75f, c[1] = 0.25f; /* normalized: u = 1.5, v = 0.5 */
    himg_read_f(&m, &d, NORM | NEAREST | EDGE, 2, c, 0, o);
    EXPECT4F(o, 2, 0, 0, 1, 0);
    c[0] = 1.5f, c[1] = 2.5f;
    himg_read_f(&m, &d, NEAREST | CLAMP, 2, c, 0, o);
    EXPECT4F(o, 0, 0, 0, 1, 0);
    int32_t ic[3] = { 1, 1, 0 };
    himg_read_f_i(&m, &d, 0, 2, ic, 0, o);
    EXPECT4F(o, 4, 0, 0, 1, 0);
    /* Bilinear CLAMP at the corner: only texel (0, 0) of four, weight
     * 0.25 * 0.25; the border's alpha 1 everywhere. */
    c[0] = 0.25f, c[1] = 0.25f;
    himg_read_f(&m, &d, LINEAR | CLAMP, 2, c, 0, o);
    EXPECT4F(o, 1 * 0.75f * 0.75f, 0, 0, 1, 1e-6f);

    /* 3D 2x2x2 R float, value x + 2y + 4z: trilinear reproduces a linear
     * function exactly. */
    struct hcqcl_image_abi d3 = image(HIMG_MEM_IMAGE3D, HIMG_R, HIMG_FLOAT, 2, 2, 2, 0, 8);
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++)
                put_f32(&d3, x, y, z, (float)(x + 2 * y + 4 * z));
    float c3[3] = { 1.0f, 1.0f, 1.0f };
    himg_read_f(&m, &d3, LINEAR | EDGE, 3, c3, 0, o);
    EXPECT4F(o, 3.5f, 0, 0, 1, 1e-6f);
    c3[0] = 0.75f, c3[1] = 1.0f, c3[2] = 1.25f;
    himg_read_f(&m, &d3, LINEAR | EDGE, 3, c3, 0, o);
    EXPECT4F(o, 0.25f + 1.0f + 3.0f, 0, 0, 1, 1e-6f);
    c3[0] = 1.5f, c3[1] = 0.2f, c3[2] = 1.9f;
    himg_read_f(&m, &d3, NEAREST | EDGE, 3, c3, 0, o);
    EXPECT4F(o, 5, 0, 0, 1, 0);
    c3[0] = 0.75f, c3[1] = 0.25f, c3[2] = 0.75f; /* normalized: (1.5, 0.5, 1.5) */
    himg_read_f(&m, &d3, NORM | NEAREST | REPEAT, 3, c3, 0, o);
    EXPECT4F(o, 5, 0, 0, 1, 0);
    c3[2] = 1.25f;
    himg_read_f(&m, &d3, NEAREST | CLAMP, 3, c3, 0, o);
    EXPECT4F(o, 4, 0, 0, 1, 0);
    c3[2] = 2.0f;
    himg_read_f(&m, &d3, NEAREST | CLAMP, 3, c3, 0, o);
    EXPECT4F(o, 0, 0, 0, 1, 0);
    int32_t i3[3] = { 1, 1, 1 };
    float col[4] = { 9.0f, 0, 0, 0 };
    himg_write_f(&m, &d3, 3, i3, 0, col);
    EXPECT(*(float *)(void *)px(&d3, 1, 1, 1) == 9.0f);
}

static void test_arrays(void)
{
    /* 1D array: 3 texels, 2 layers; layer value 100 * l + x. */
    struct hcqcl_image_abi d = image(HIMG_MEM_IMAGE1D_ARRAY, HIMG_R, HIMG_FLOAT, 3, 1, 1, 2, 4);
    for (int l = 0; l < 2; l++)
        for (int x = 0; x < 3; x++)
            put_f32(&d, x, 0, l, (float)(100 * l + x));
    static const struct {
        float layer, want;
    } layers[] = { { 0.6f, 101 }, { 1.5f, 101 }, { -3.0f, 1 }, { 0.5f, 1 }, { 0.4f, 1 } };
    for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
        float c[3] = { 1.5f, 0, 0 }, o[4];
        himg_read_f(&m, &d, NEAREST | EDGE, 1, c, himg_layer_f(&d, layers[i].layer), o);
        EXPECT(o[0] == layers[i].want, "layer %g: %g", (double)layers[i].layer, (double)o[0]);
    }
    EXPECT(himg_layer_i(&d, 7) == 1 && himg_layer_i(&d, -1) == 0);
    float c[3] = { 2.0f, 0, 0 }, o[4];
    himg_read_f(&m, &d, LINEAR | EDGE, 1, c, 1, o); /* 101 and 102 mixed */
    EXPECT4F(o, 101.5f, 0, 0, 1, 1e-5f);

    /* 2D array: 2x2, 3 layers, value 10 * l + 2y + x. */
    struct hcqcl_image_abi d2 = image(HIMG_MEM_IMAGE2D_ARRAY, HIMG_R, HIMG_FLOAT, 2, 2, 1, 3, 0);
    for (int l = 0; l < 3; l++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++)
                put_f32(&d2, x, y, l, (float)(10 * l + 2 * y + x));
    float c2[3] = { 1.0f, 1.0f, 0 };
    himg_read_f(&m, &d2, LINEAR | EDGE, 2, c2, himg_layer_f(&d2, 2.4f), o);
    EXPECT4F(o, 21.5f, 0, 0, 1, 1e-5f);
    int32_t ic[3] = { 1, 0, 0 };
    himg_read_f_i(&m, &d2, 0, 2, ic, himg_layer_i(&d2, 1), o);
    EXPECT4F(o, 11, 0, 0, 1, 0);
    float col[4] = { -1.0f, 0, 0, 0 };
    himg_write_f(&m, &d2, 2, ic, 2, col);
    EXPECT(*(float *)(void *)px(&d2, 1, 0, 2) == -1.0f);
}

/* Writes outside the image or its layers touch nothing. */
static void test_write_bounds(void)
{
    struct hcqcl_image_abi d = image(HIMG_MEM_IMAGE2D_ARRAY, HIMG_RGBA, HIMG_UNORM_INT8, 3, 2, 1, 2, 4);
    static uint8_t before[sizeof(mem)];
    memcpy(before, mem, sizeof(mem));
    const int32_t outside[][4] = { { -1, 0, 0, 0 }, { 3, 0, 0, 0 }, { 0, -1, 0, 0 },
                                   { 0, 2, 0, 0 },  { 0, 0, 0, 2 }, { 0, 0, 0, -1 },
                                   { INT32_MIN, INT32_MAX, 0, 0 } };
    float col[4] = { 1, 1, 1, 1 };
    int32_t icol[4] = { 255, 255, 255, 255 };
    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
        himg_write_f(&m, &d, 2, outside[i], outside[i][3], col);
        himg_write_i(&m, &d, 2, outside[i], outside[i][3], icol, 1);
    }
    EXPECT(!memcmp(before, mem, sizeof(mem)), "a write outside the image changed memory");
    const int32_t inside[3] = { 2, 1, 0 };
    himg_write_f(&m, &d, 2, inside, 1, col);
    EXPECT(!memcmp(px(&d, 2, 1, 1), (uint8_t[]){ 255, 255, 255, 255 }, 4));
    EXPECT(px(&d, 2, 1, 1)[4] == 0, "the row's padding was written");
    /* 1D buffer and 1D images: dims 1, array_size 0, layer 0. */
    struct hcqcl_image_abi b = image(HIMG_MEM_IMAGE1D_BUFFER, HIMG_R, HIMG_UNSIGNED_INT16, 5, 1, 1, 0, 0);
    const int32_t x4[3] = { 4, 0, 0 }, x5[3] = { 5, 0, 0 };
    himg_write_i(&m, &b, 1, x4, 0, icol, 1);
    himg_write_i(&m, &b, 1, x5, 0, icol, 1);
    EXPECT(!memcmp(px(&b, 4, 0, 0), (uint16_t[]){ 255, 0 }, 4));
}

int main(void)
{
    test_half();
    test_decode_types();
    test_decode_orders();
    test_encode();
    test_1d();
    test_2d_3d();
    test_arrays();
    test_write_bounds();
    EXPECT(!m.fault, "the core reached memory outside the image");
    return check_done("image_core");
}

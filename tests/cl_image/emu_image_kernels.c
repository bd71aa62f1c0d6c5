/*
 * emu_image_kernels.c — CPU versions of tests/cl_image/images.cl for the
 * emulated device (src/emu/emu_kernel.h), registered with the cubin
 * hcqcl-cc built from it at build time (embedded here).
 *
 * Each runs one work-group the way the GPU code does: parameters at the
 * offsets ptxas gave them (an image is the 8-byte address of its
 * struct hcqcl_image_abi, a sampler the 8-byte value of its bits, a
 * float4 or uint4 on 16), work-item ids from the environment registers,
 * and every image access through the same core as the GPU's built-ins
 * (tools/hcqcl-cc/image_core.h), called as image.cl's overloads call it.
 * An unmapped address ends the block (the model has recorded the fault).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "emu/emu_kernel.h"
#include "image_core.h"

#define EXPORT __attribute__((visibility("default")))

extern const unsigned char images_cubin[];
extern const unsigned long images_cubin_size;

static void *translate(void *user, uint64_t va, uint64_t len)
{
    const struct emu_block *b = user;
    return b->ptr(b, va, len);
}

static struct himg_mem mem_of(const struct emu_block *b)
{
    return (struct himg_mem){ translate, (void *)(uintptr_t)b, 0 };
}

/* The descriptor an image parameter at off points to. */
static bool desc_at(const struct emu_block *b, uint32_t off, struct hcqcl_image_abi *d)
{
    const void *p = b->ptr(b, emu_param_u64(b, off), sizeof(*d));
    if (p)
        memcpy(d, p, sizeof(*d));
    return p != NULL;
}

/* A sampler parameter: its bits (image.cl: __hcqcl_sampler_bits). */
static uint32_t sampler_at(const struct emu_block *b, uint32_t off)
{
    return (uint32_t)emu_param_u64(b, off);
}

static void *global(const struct emu_block *b, uint32_t off, uint64_t index, uint64_t size)
{
    return b->ptr(b, emu_param_u64(b, off) + index * size, size);
}

static void store4f(void *p, const float v[4])
{
    memcpy(p, v, 16);
}

/* sample2d / sample3d / sample2d_array: out[i] = read_imagef(img, s,
 * coords[i]) with dims spatial coordinates (and a layer in .z for the
 * array), coordinates of csize bytes. */
static void sample(const struct emu_block *b, uint32_t s_off, uint32_t smp, int dims,
                   bool array, uint32_t coord_off, uint32_t out_off, uint32_t csize)
{
    struct hcqcl_image_abi d;
    struct himg_mem m = mem_of(b);
    if (!desc_at(b, 0, &d))
        return;
    if (s_off)
        smp = sampler_at(b, s_off);
    for (uint32_t t = 0; t < b->block[0]; t++) {
        uint64_t i = emu_cl_global_id(b, 0, t);
        const float *c = global(b, coord_off, i, csize);
        void *out = c ? global(b, out_off, i, 16) : NULL;
        if (!out)
            return;
        float cc[3] = { c[0], dims > 1 ? c[1] : 0.0f, dims > 2 ? c[2] : 0.0f }, o[4];
        himg_read_f(&m, &d, smp, dims, cc, array ? himg_layer_f(&d, c[2]) : 0, o);
        if (m.fault)
            return;
        store4f(out, o);
    }
}

static void host_sample2d(const struct emu_block *b)
{
    sample(b, 8, 0, 2, false, 16, 24, 8);
}

static void host_sample3d(const struct emu_block *b)
{
    sample(b, 8, 0, 3, false, 16, 24, 16);
}

static void host_sample2d_array(const struct emu_block *b)
{
    sample(b, 8, 0, 2, true, 16, 24, 16);
}

/* sample2d_literal: the literal (normalized | repeat | linear) into out,
 * the program-scope clamp_nearest (unnormalized | clamp | nearest) into
 * out2. */
static void host_sample2d_literal(const struct emu_block *b)
{
    sample(b, 0, HCQCL_SAMPLER_NORMALIZED | HCQCL_SAMPLER_ADDRESS_REPEAT |
                     HCQCL_SAMPLER_FILTER_LINEAR, 2, false, 8, 16, 8);
    sample(b, 0, HCQCL_SAMPLER_ADDRESS_CLAMP | HCQCL_SAMPLER_FILTER_NEAREST, 2, false, 8, 24,
           8);
}

/* fill2d(dst, float4 base at 16): dst(x, y) = base + (x, y, 0, 0) / 16. */
static void host_fill2d(const struct emu_block *b)
{
    struct hcqcl_image_abi d;
    struct himg_mem m = mem_of(b);
    float base[4];
    if (!desc_at(b, 0, &d) || b->param_size < 32)
        return;
    memcpy(base, b->params + 16, 16);
    for (uint32_t ty = 0; ty < b->block[1]; ty++)
        for (uint32_t tx = 0; tx < b->block[0]; tx++) {
            int32_t x = (int32_t)emu_cl_global_id(b, 0, tx), y = (int32_t)emu_cl_global_id(b, 1, ty);
            int32_t c[3] = { x, y, 0 };
            float v[4] = { base[0] + (float)x / 16.0f, base[1] + (float)y / 16.0f,
                           base[2] + 0.0f / 16.0f, base[3] + 0.0f / 16.0f };
            himg_write_f(&m, &d, 2, c, 0, v);
            if (m.fault)
                return;
        }
}

/* add_ui(src, dst, uint4 add at 16) and scale_i(src, s at 8, dst at 16,
 * int k at 24). */
static void int_op(const struct emu_block *b, bool scale)
{
    struct hcqcl_image_abi src, dst;
    struct himg_mem m = mem_of(b);
    uint32_t add[4] = { 0, 0, 0, 0 }, k = 0, smp = 0;
    if (!desc_at(b, 0, &src) || !desc_at(b, scale ? 16 : 8, &dst))
        return;
    if (scale) {
        smp = sampler_at(b, 8);
        k = emu_param_u32(b, 24);
    } else if (b->param_size >= 32) {
        memcpy(add, b->params + 16, 16);
    }
    for (uint32_t ty = 0; ty < b->block[1]; ty++)
        for (uint32_t tx = 0; tx < b->block[0]; tx++) {
            int32_t c[3] = { (int32_t)emu_cl_global_id(b, 0, tx),
                             (int32_t)emu_cl_global_id(b, 1, ty), 0 };
            int32_t v[4];
            himg_read_i_i(&m, &src, smp, 2, c, 0, v);
            for (int ch = 0; ch < 4; ch++) /* wrapping, as the GPU's */
                v[ch] = (int32_t)(scale ? (uint32_t)v[ch] * k : (uint32_t)v[ch] + add[ch]);
            himg_write_i(&m, &dst, 2, c, 0, v, !scale);
            if (m.fault)
                return;
        }
}

static void host_add_ui(const struct emu_block *b)
{
    int_op(b, false);
}

static void host_scale_i(const struct emu_block *b)
{
    int_op(b, true);
}

/* copy1d_array(src, s at 8, dst at 16): dst(x, l) = read_imagef(src, s,
 * (x + 0.5, l)). */
static void host_copy1d_array(const struct emu_block *b)
{
    struct hcqcl_image_abi src, dst;
    struct himg_mem m = mem_of(b);
    if (!desc_at(b, 0, &src) || !desc_at(b, 16, &dst))
        return;
    uint32_t smp = sampler_at(b, 8);
    for (uint32_t ty = 0; ty < b->block[1]; ty++)
        for (uint32_t tx = 0; tx < b->block[0]; tx++) {
            int32_t x = (int32_t)emu_cl_global_id(b, 0, tx), l = (int32_t)emu_cl_global_id(b, 1, ty);
            float cc[3] = { (float)x + 0.5f, 0.0f, 0.0f }, o[4];
            himg_read_f(&m, &src, smp, 1, cc, himg_layer_f(&src, (float)l), o);
            int32_t c[3] = { x, 0, 0 };
            himg_write_f(&m, &dst, 1, c, l, o);
            if (m.fault)
                return;
        }
}

/* fill3d(dst): dst(x, y, z) = (x, y, z, 1) through write_imagei. */
static void host_fill3d(const struct emu_block *b)
{
    struct hcqcl_image_abi d;
    struct himg_mem m = mem_of(b);
    if (!desc_at(b, 0, &d))
        return;
    for (uint32_t tz = 0; tz < b->block[2]; tz++)
        for (uint32_t ty = 0; ty < b->block[1]; ty++)
            for (uint32_t tx = 0; tx < b->block[0]; tx++) {
                int32_t c[3] = { (int32_t)emu_cl_global_id(b, 0, tx),
                                 (int32_t)emu_cl_global_id(b, 1, ty),
                                 (int32_t)emu_cl_global_id(b, 2, tz) };
                int32_t v[4] = { c[0], c[1], c[2], 1 };
                himg_write_i(&m, &d, 3, c, 0, v, 0);
                if (m.fault)
                    return;
            }
}

/* copy1d(src image1d, dst image1d_buffer): dst(x) = read_imagef(src, x). */
static void host_copy1d(const struct emu_block *b)
{
    struct hcqcl_image_abi src, dst;
    struct himg_mem m = mem_of(b);
    if (!desc_at(b, 0, &src) || !desc_at(b, 8, &dst))
        return;
    for (uint32_t t = 0; t < b->block[0]; t++) {
        int32_t c[3] = { (int32_t)emu_cl_global_id(b, 0, t), 0, 0 };
        float o[4];
        himg_read_f_i(&m, &src, 0, 1, c, 0, o);
        himg_write_f(&m, &dst, 1, c, 0, o);
        if (m.fault)
            return;
    }
}

/* query(a image3d, b image2d_array, out at 16). */
static void host_query(const struct emu_block *b)
{
    struct hcqcl_image_abi a, e;
    if (!desc_at(b, 0, &a) || !desc_at(b, 8, &e))
        return;
    int32_t *out = global(b, 16, 0, 12 * 4);
    if (!out)
        return;
    const int32_t v[12] = {
        (int32_t)a.width, (int32_t)a.height, (int32_t)a.depth, (int32_t)a.type, (int32_t)a.order,
        (int32_t)(a.width + 10 * a.height + 100 * a.depth),
        (int32_t)e.width, (int32_t)e.height, (int32_t)e.array_size, (int32_t)e.type,
        (int32_t)e.order, (int32_t)(e.width + 10 * e.height),
    };
    memcpy(out, v, sizeof(v));
}

/* no_images(a): a[i] *= 2. */
static void host_no_images(const struct emu_block *b)
{
    for (uint32_t t = 0; t < b->block[0]; t++) {
        float *a = global(b, 0, emu_cl_global_id(b, 0, t), 4);
        if (!a)
            return;
        *a *= 2.0f;
    }
}

EXPORT int hcqcl_emu_register_kernels(struct emu_kernel_registry *reg)
{
    int rc = reg->add_cubin(reg, images_cubin, images_cubin_size);
    static const struct {
        const char *name;
        emu_kernel_fn fn;
    } fns[] = {
        { "sample2d", host_sample2d },
        { "sample2d_literal", host_sample2d_literal },
        { "fill2d", host_fill2d },
        { "add_ui", host_add_ui },
        { "scale_i", host_scale_i },
        { "sample3d", host_sample3d },
        { "sample2d_array", host_sample2d_array },
        { "copy1d_array", host_copy1d_array },
        { "fill3d", host_fill3d },
        { "copy1d", host_copy1d },
        { "query", host_query },
        { "no_images", host_no_images },
    };
    for (size_t k = 0; !rc && k < sizeof(fns) / sizeof(fns[0]); k++)
        rc = reg->add(reg, fns[k].name, fns[k].fn);
    return rc;
}

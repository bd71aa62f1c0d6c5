/*
 * emu_image_kernels.c — CPU versions of image_args.cl's kernels for the
 * emulated device (src/emu/emu_kernel.h), registered with the cubin
 * hcqcl-cc built from that file at build time (embedded here).
 *
 * image_args(src, out, smp, dst, tag): parameters at 0, 8, 16, 24, 32.
 * An image parameter is the device address of its descriptor (struct
 * hcqcl_image_abi, src/api/image_abi.h); a sampler parameter its bits.
 * One work-item does it all: out[0..7] = src's width, height, elem_size,
 * order, type, mem_type, the sampler's bits and tag; out[8] = dst's
 * row pitch; then every pixel of src is copied into dst at the same
 * coordinates through the descriptors' data addresses and pitches.
 */
#include <stdint.h>
#include <string.h>

#include "api/image_abi.h"
#include "emu/emu_kernel.h"

#define EXPORT __attribute__((visibility("default")))

extern const unsigned char image_args_cubin[];
extern const unsigned long image_args_cubin_size;

static void host_image_args(const struct emu_block *b)
{
    const struct hcqcl_image_abi *src = b->ptr(b, emu_param_u64(b, 0), sizeof(*src));
    uint32_t *out = src ? b->ptr(b, emu_param_u64(b, 8), 9 * 4) : NULL;
    const struct hcqcl_image_abi *dst =
        out ? b->ptr(b, emu_param_u64(b, 24), sizeof(*dst)) : NULL;
    if (!dst || b->block_id[0] != 0)
        return;
    out[0] = src->width;
    out[1] = src->height;
    out[2] = src->elem_size;
    out[3] = src->order;
    out[4] = src->type;
    out[5] = src->mem_type;
    out[6] = (uint32_t)emu_param_u64(b, 16);
    out[7] = emu_param_u32(b, 32);
    out[8] = (uint32_t)dst->row_pitch;
    for (uint32_t y = 0; y < src->height && y < dst->height; y++) {
        const uint8_t *s = b->ptr(b, src->data + y * src->row_pitch,
                                  (uint64_t)src->width * src->elem_size);
        uint8_t *d = s ? b->ptr(b, dst->data + y * dst->row_pitch,
                                (uint64_t)dst->width * dst->elem_size)
                       : NULL;
        if (!d)
            return;
        memcpy(d, s, (size_t)(src->width < dst->width ? src->width : dst->width) *
                         src->elem_size);
    }
}

/* image3d_arg(vol, out): out[0..3] = vol's depth, slice pitch, its first
 * byte and its mem_type. */
static void host_image3d_arg(const struct emu_block *b)
{
    const struct hcqcl_image_abi *vol = b->ptr(b, emu_param_u64(b, 0), sizeof(*vol));
    uint32_t *out = vol ? b->ptr(b, emu_param_u64(b, 8), 4 * 4) : NULL;
    const uint8_t *px = out ? b->ptr(b, vol->data, 1) : NULL;
    if (!px || b->block_id[0] != 0)
        return;
    out[0] = vol->depth;
    out[1] = (uint32_t)vol->slice_pitch;
    out[2] = px[0];
    out[3] = vol->mem_type;
}

EXPORT int hcqcl_emu_register_kernels(struct emu_kernel_registry *reg)
{
    int rc = reg->add_cubin(reg, image_args_cubin, image_args_cubin_size);
    if (!rc)
        rc = reg->add(reg, "image_args", host_image_args);
    if (!rc)
        rc = reg->add(reg, "image3d_arg", host_image3d_arg);
    return rc;
}

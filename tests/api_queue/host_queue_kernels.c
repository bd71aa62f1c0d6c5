/*
 * host_queue_kernels.c — CPU versions of queue_kernels.cu for the emulated
 * device, registered when it loads this library (HCQCL_EMU_KERNELS).
 * Offsets and work_dim come from the launched constant bank 0 (envregs at
 * 0x40), exactly where the GPU code reads them.
 */
#include <stdint.h>
#include <string.h>

#include "emu/emu_kernel.h"

extern const unsigned char queue_kernels_cubin[];
extern const size_t queue_kernels_cubin_size;

static uint32_t envreg(const struct emu_block *b, unsigned i)
{
    uint32_t v = 0;
    if (0x40 + 4 * (i + 1) <= b->cbuf0_size)
        memcpy(&v, b->cbuf0 + 0x40 + 4 * i, 4);
    return v;
}

/* ids2d(unsigned *out, unsigned *loc, unsigned width) */
static void host_ids2d(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0), loc = emu_param_u64(b, 8);
    uint32_t width = emu_param_u32(b, 16);
    uint64_t off0 = envreg(b, 0) | (uint64_t)envreg(b, 1) << 32;
    uint64_t off1 = envreg(b, 2) | (uint64_t)envreg(b, 3) << 32;
    uint32_t dim = envreg(b, 6);
    for (uint32_t ty = 0; ty < b->block[1]; ty++)
        for (uint32_t tx = 0; tx < b->block[0]; tx++) {
            uint64_t x = (uint64_t)b->block_id[0] * b->block[0] + tx + off0;
            uint64_t y = (uint64_t)b->block_id[1] * b->block[1] + ty + off1;
            uint64_t i = y * width + x;
            uint32_t *po = b->ptr(b, out + 4 * i, 4);
            uint32_t *pl = po ? b->ptr(b, loc + 4 * i, 4) : NULL;
            if (!pl)
                return;
            *po = 1u + (uint32_t)x + ((uint32_t)y << 12) + (dim << 24);
            *pl = b->block[0] | (b->block[1] << 16);
        }
}

__attribute__((visibility("default"))) int hcqcl_emu_register_kernels(struct emu_kernel_registry *reg)
{
    int rc = reg->add_cubin(reg, queue_kernels_cubin, queue_kernels_cubin_size);
    if (rc == 0)
        rc = reg->add(reg, "ids2d", host_ids2d);
    return rc;
}

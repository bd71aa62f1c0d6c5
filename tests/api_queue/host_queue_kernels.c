/*
 * host_queue_kernels.c — CPU versions of queue_kernels.cu for the emulated
 * device, registered when it loads this library (HCQCL_EMU_KERNELS).
 * The launch's first work-item and work_dim come from the launched
 * constant bank 0 (envregs at 0x40, emu_kernel.h's helpers), exactly where
 * the GPU code reads them.
 */
#include <stdint.h>

#include "emu/emu_kernel.h"

extern const unsigned char queue_kernels_cubin[];
extern const size_t queue_kernels_cubin_size;

/* ids2d(unsigned *out, unsigned *loc, unsigned width) */
static void host_ids2d(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0), loc = emu_param_u64(b, 8);
    uint32_t width = emu_param_u32(b, 16);
    uint32_t dim = emu_cl_work_dim(b);
    for (uint32_t ty = 0; ty < b->block[1]; ty++)
        for (uint32_t tx = 0; tx < b->block[0]; tx++) {
            uint64_t x = emu_cl_global_id(b, 0, tx), y = emu_cl_global_id(b, 1, ty);
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

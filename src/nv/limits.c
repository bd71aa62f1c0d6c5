/*
 * limits.c — per-architecture numbers that shape a launch: constant bank 0
 * parameter start, SASS version, shared-memory carve-outs, local-memory
 * sizing, copy-engine fill remaps.
 */
#include <errno.h>

#include "nv/nv.h"

uint32_t nv_cbuf0_param_start(uint32_t arch)
{
    if (arch >= 0x800 && arch < 0x900)
        return NV_CBUF0_PARAM_START_SM80;
    if (arch >= 0x900 && arch < 0xA00)
        return NV_CBUF0_PARAM_START_SM90;
    if (arch >= 0xA00 && arch < 0xD00)
        return NV_CBUF0_PARAM_START_SM100;
    return 0;
}

uint32_t nv_sass_version(uint32_t arch)
{
    /* 0x900 -> 0x90, 0x860 -> 0x86, 0x809 style (minor in low nibble) too. */
    if (arch < 0x500 || arch > 0xCFF)
        return 0;
    uint32_t major = arch >> 8, minor = (arch >> 4) & 0xF;
    if (minor == 0)
        minor = arch & 0xF;
    return major << 4 | minor;
}

/* Legal per-SM carve-outs in KiB (Mesa nouveau_device.c
 * init_shared_mem_sizes): GA10x/Ada, A100, Hopper. */
static const uint16_t carveout_ampere[] = {0, 8, 16, 32, 64, 100};
static const uint16_t carveout_a100[] = {0, 8, 16, 32, 64, 100, 132, 164};
static const uint16_t carveout_hopper[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

static const uint16_t *carveouts(uint32_t arch, unsigned *n)
{
    if (arch >= 0x900) {
        *n = sizeof(carveout_hopper) / sizeof(carveout_hopper[0]);
        return carveout_hopper;
    }
    if (arch == 0x800) {
        *n = sizeof(carveout_a100) / sizeof(carveout_a100[0]);
        return carveout_a100;
    }
    *n = sizeof(carveout_ampere) / sizeof(carveout_ampere[0]);
    return carveout_ampere;
}

int nv_smem_carveout_kb(uint32_t arch, uint32_t bytes)
{
    unsigned n;
    const uint16_t *t = carveouts(arch, &n);
    for (unsigned i = 0; i < n; i++)
        if ((uint64_t)t[i] * 1024 >= bytes)
            return t[i];
    return -EINVAL;
}

uint32_t nv_smem_max_kb(uint32_t arch)
{
    unsigned n;
    const uint16_t *t = carveouts(arch, &n);
    return t[n - 1];
}

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

uint64_t nv_slm_bytes_per_tpc(uint32_t slm_per_thread, uint32_t max_warps_per_sm,
                              uint32_t sm_per_tpc)
{
    uint64_t per_warp = round_up((uint64_t)slm_per_thread * 32, 0x200);
    return round_up(per_warp * max_warps_per_sm * sm_per_tpc, 0x8000);
}

uint64_t nv_slm_total_bytes(uint64_t bytes_per_tpc, uint32_t tpc_per_gpc, uint32_t gpc_count)
{
    return round_up(bytes_per_tpc * tpc_per_gpc * gpc_count, 0x20000);
}

int nv_remap_fill_components(unsigned pattern_size, uint32_t *components)
{
    /* COMPONENT_SIZE: bytes - 1; NUM_*_COMPONENTS: count - 1. 1- and
     * 2-byte patterns use one component of that size; 4 bytes one 4-byte
     * component (CONST_B); 8 bytes two 4-byte components (low half
     * CONST_A, high half CONST_B). */
    uint32_t size_m1, ncomp_m1, dst;
    switch (pattern_size) {
    case 1:
    case 2:
    case 4:
        size_m1 = pattern_size - 1;
        ncomp_m1 = 0;
        dst = NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_DST_X,
                           NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_B);
        break;
    case 8:
        size_m1 = 3;
        ncomp_m1 = 1;
        dst = NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_DST_X,
                           NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A) |
              NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_DST_Y,
                           NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_B);
        break;
    default: return -EINVAL;
    }
    *components = dst | NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE, size_m1) |
                  NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_NUM_SRC_COMPONENTS, ncomp_m1) |
                  NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS, ncomp_m1);
    return 0;
}

/*
 * RM controls of the emulated driver, answered with H200-like values:
 * 132 SMs as 8 GPCs x 9 TPCs x 2 SMs (litter upper bounds), SM 9.0,
 * 60 MiB L2, a truthful emulated memory size (min(host RAM / 4, 16 GiB),
 * backed lazily), "NVIDIA H200 (emulated)", build 580.159.04.
 *
 * As on the real driver the parameter size must match the command's
 * struct exactly. The H200 answered a wrong size with 0x1F
 * (NV_ERR_INVALID_ARGUMENT, measured on GPFIFO_SCHEDULE), so that is what
 * the emulated driver returns; unknown commands get NV_ERR_NOT_SUPPORTED.
 * Runs with emu.lock held.
 */
#include "nvdrv/nvdrv.h"

#include "emu/emu.h"

#include <stdio.h>
#include <string.h>

#define EMU_NV2080_CTRL_CMD_PERF_BOOST 0x2080200Au
#define EMU_PERF_BOOST_PARAMS_SIZE 8u
#define EMU_SM_COUNT 132u
#define EMU_L2_BYTES (60u << 20)

const uint32_t emu_classlist[] = {
    0x0000, 0x0001, 0x0002, 0x0004, 0x0005, 0x000f, 0x0020, 0x003e, 0x003f, 0x0040, 0x0041,
    0x0042, 0x0050, 0x0060, 0x0070, 0x0071, 0x0076, 0x0078, 0x0079, 0x007d, 0x007e, 0x0080,
    0x0081, 0x0082, 0x0083, 0x0090, 0x0092, 0x00b1, 0x00c2, 0x00da, 0x00db, 0x00de, 0x00e0,
    0x00f1, 0x00f3, 0x00f8, 0x00f9, 0x00fb, 0x00fd, 0x00fe, 0x0100, 0x0101, 0x2080, 0x2081,
    0x2082, 0x208f, 0x30f1, 0x402c, 0x503b, 0x503c, 0x5080, 0x50a0, 0x83de, 0x844c, 0x900e,
    0x9010, 0x902d, 0x9067, 0x906f, 0x9074, 0x9096, 0x90cc, 0x90cd, 0x90ce, 0x90e6, 0x90e7,
    0x90f1, 0xa06c, 0xa080, 0xa081, 0xa084, 0xa0bc, 0xa0bd, 0xa140, 0xb1cc, 0xb2cc, 0xb8b0,
    0xb8d1, 0xb8fa, 0xc076, 0xc361, 0xc365, 0xc369, 0xc36f, 0xc461, 0xc46f, 0xc561, 0xc56f,
    0xc574, 0xc637, 0xc638, 0xc639, 0xc640, 0xc661, 0xc763, 0xc863, 0xc86f, 0xc8b5, 0xcb33,
    0xcb97, 0xcba2, 0xcbc0, 0xcbca,
};
const unsigned emu_classlist_len = UTIL_ARRAY_SIZE(emu_classlist);

static uint32_t expected_size(uint32_t cmd, bool *known)
{
    *known = true;
    switch (cmd) {
#define X(name, id, type, to)                                                             \
    case id:                                                                              \
        return sizeof(type);
        NVDRV_RM_CONTROLS(X)
#undef X
    case EMU_NV2080_CTRL_CMD_PERF_BOOST:
        return EMU_PERF_BOOST_PARAMS_SIZE;
    case NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE:
        return sizeof(NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS);
    default:
        *known = false;
        return 0;
    }
}

bool emu_engine_is_grce(uint32_t t) { return t == NV2080_ENGINE_TYPE_COPY(0); }

static uint8_t emu_ce_caps0(uint32_t t)
{
    if (t == NV2080_ENGINE_TYPE_COPY(0))
        return NV2080_CTRL_CE_CAPS0_GRCE | NV2080_CTRL_CE_CAPS0_SHARED | NV2080_CTRL_CE_CAPS0_SYSMEM |
               NV2080_CTRL_CE_CAPS0_P2P;
    if (t == NV2080_ENGINE_TYPE_COPY(1))
        return NV2080_CTRL_CE_CAPS0_SHARED | NV2080_CTRL_CE_CAPS0_SYSMEM | NV2080_CTRL_CE_CAPS0_P2P;
    uint8_t c = NV2080_CTRL_CE_CAPS0_SYSMEM | NV2080_CTRL_CE_CAPS0_P2P |
                NV2080_CTRL_CE_CAPS0_NVLINK_P2P;
    if (t == NV2080_ENGINE_TYPE_COPY(2))
        c |= NV2080_CTRL_CE_CAPS0_SYSMEM_READ;
    if (t == NV2080_ENGINE_TYPE_COPY(3))
        c |= NV2080_CTRL_CE_CAPS0_SYSMEM_WRITE;
    return c;
}

bool emu_engine_is_ce(uint32_t t)
{
    for (unsigned i = 0; i < EMU_COPY_ENGINES; i++)
        if (t == NV2080_ENGINE_TYPE_COPY(i))
            return true;
    return false;
}

static uint32_t gr_value(uint32_t index, uint32_t *v)
{
    switch (index) {
    case NV2080_CTRL_GR_INFO_INDEX_SHADER_PIPE_SUB_COUNT:
        *v = EMU_SM_COUNT / 2;
        return NV_OK;
    case NV2080_CTRL_GR_INFO_INDEX_SM_VERSION:
        *v = 0x900;
        return NV_OK;
    case NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM:
        *v = 64;
        return NV_OK;
    case NV2080_CTRL_GR_INFO_INDEX_MAX_THREADS_PER_WARP:
        *v = 32;
        return NV_OK;
    case NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS:
        *v = 8;
        return NV_OK;
    case NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC:
        *v = 9;
        return NV_OK;
    case NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC:
        *v = 2;
        return NV_OK;
    case NV2080_CTRL_GR_INFO_INDEX_GPU_CORE_COUNT:
        *v = EMU_SM_COUNT * 128;
        return NV_OK;
    default:
        *v = 0;
        return index < 0x40 ? NV_OK : NV_ERR_INVALID_ARGUMENT;
    }
}

static uint64_t fb_value(const struct emu_gpu *g, uint32_t index)
{
    uint64_t kib = g->mem_size >> 10;
    switch (index) {
    case NV2080_CTRL_FB_INFO_INDEX_RAM_SIZE:
    case NV2080_CTRL_FB_INFO_INDEX_TOTAL_RAM_SIZE:
    case NV2080_CTRL_FB_INFO_INDEX_HEAP_SIZE:
    case NV2080_CTRL_FB_INFO_INDEX_USABLE_RAM_SIZE:
        return kib;
    case NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE:
        return (g->mem_size - atomic_load(&g->mem_used)) >> 10;
    case NV2080_CTRL_FB_INFO_INDEX_BAR1_SIZE:
        return 0x4000000000ull >> 10;
    case NV2080_CTRL_FB_INFO_INDEX_BUS_WIDTH:
        return 6144;
    case NV2080_CTRL_FB_INFO_INDEX_L2CACHE_SIZE:
        return EMU_L2_BYTES;
    default:
        return 0;
    }
}

static uint32_t ctrl_client(uint32_t cmd, void *params)
{
    switch (cmd) {
    case NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2: {
        NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS *p = params;
        memset(p, 0, sizeof(*p));
        snprintf(p->driverVersionBuffer, sizeof(p->driverVersionBuffer), "580.159.04");
        snprintf(p->versionBuffer, sizeof(p->versionBuffer), "rel/gpu_drv/r580/r582_49-530");
        snprintf(p->driverBranch, sizeof(p->driverBranch), "r582_49");
        snprintf(p->titleBuffer, sizeof(p->titleBuffer), "hcqcl emulated device");
        return NV_OK;
    }
    case NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2: {
        NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS *p = params;
        for (unsigned i = 0; i < emu.ngpus; i++)
            if (emu.gpus[i].gpu_id == p->gpuId) {
                p->gpuFlags = 0;
                p->deviceInstance = i;
                p->subDeviceInstance = 0;
                p->sliStatus = 0;
                p->boardId = p->gpuId;
                p->gpuInstance = i;
                p->numaId = -1;
                return NV_OK;
            }
        return NV_ERR_INVALID_ARGUMENT;
    }
    default:
        return NV_ERR_NOT_SUPPORTED;
    }
}

static uint32_t ctrl_subdevice(struct emu_gpu *g, uint32_t cmd, void *params)
{
    switch (cmd) {
    case NV2080_CTRL_CMD_GPU_GET_NAME_STRING: {
        NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS *p = params;
        if (p->gpuNameStringFlags != NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII)
            return NV_ERR_INVALID_ARGUMENT;
        memset(&p->gpuNameString, 0, sizeof(p->gpuNameString));
        snprintf((char *)p->gpuNameString.ascii, sizeof(p->gpuNameString.ascii),
                 "NVIDIA H200 (emulated)");
        return NV_OK;
    }
    /* Datacenter boards such as the H200 run with ECC on, the factory default. */
    case NV2080_CTRL_CMD_GPU_QUERY_ECC_CONFIGURATION: {
        NV2080_CTRL_GPU_QUERY_ECC_CONFIGURATION_PARAMS *p = params;
        p->currentConfiguration = NV2080_CTRL_GPU_ECC_CONFIGURATION_ENABLED;
        p->defaultConfiguration = NV2080_CTRL_GPU_ECC_CONFIGURATION_ENABLED;
        return NV_OK;
    }
    case NV2080_CTRL_CMD_GPU_GET_GID_INFO: {
        NV2080_CTRL_GPU_GET_GID_INFO_PARAMS *p = params;
        memset(p->data, 0, sizeof(p->data));
        if (p->flags == NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY) {
            memcpy(p->data, g->uuid, 16);
            p->length = 16;
            return NV_OK;
        }
        const uint8_t *u = g->uuid;
        int n = snprintf((char *)p->data, sizeof(p->data),
                         "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                         u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
                         u[12], u[13], u[14], u[15]);
        p->length = (uint32_t)n + 1;
        return NV_OK;
    }
    case NV2080_CTRL_CMD_GR_GET_INFO: {
        NV2080_CTRL_GR_GET_INFO_PARAMS *p = params;
        if (!p->grInfoListSize || p->grInfoListSize > 0x40 || !p->grInfoList)
            return NV_ERR_INVALID_ARGUMENT;
        NV2080_CTRL_GR_INFO *l = (NV2080_CTRL_GR_INFO *)(uintptr_t)p->grInfoList;
        for (uint32_t i = 0; i < p->grInfoListSize; i++)
            if (gr_value(l[i].index, &l[i].data) != NV_OK)
                return NV_ERR_INVALID_ARGUMENT;
        return NV_OK;
    }
    case NV2080_CTRL_CMD_FB_GET_INFO_V2: {
        NV2080_CTRL_FB_GET_INFO_V2_PARAMS *p = params;
        if (p->fbInfoListSize > NV2080_CTRL_FB_INFO_MAX_LIST_SIZE)
            return NV_ERR_INVALID_ARGUMENT;
        for (uint32_t i = 0; i < p->fbInfoListSize; i++) {
            uint64_t v = fb_value(g, p->fbInfoList[i].index);
            p->fbInfoList[i].data = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
        }
        return NV_OK;
    }
    case NV2080_CTRL_CMD_TIMER_GET_TIME:
        ((NV2080_CTRL_TIMER_GET_TIME_PARAMS *)params)->time_nsec = emu_gpu_time(g);
        return NV_OK;
    case NV2080_CTRL_CMD_GPU_GET_ENGINES_V2: {
        NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS *p = params;
        memset(p, 0, sizeof(*p));
        p->engineList[p->engineCount++] = NV2080_ENGINE_TYPE_GRAPHICS;
        for (unsigned i = 0; i < EMU_COPY_ENGINES; i++)
            p->engineList[p->engineCount++] = NV2080_ENGINE_TYPE_COPY(i);
        return NV_OK;
    }
    case NV2080_CTRL_CMD_CE_GET_CAPS_V2: {
        NV2080_CTRL_CE_GET_CAPS_V2_PARAMS *p = params;
        if (!emu_engine_is_ce(p->ceEngineType))
            return NV_ERR_INVALID_ARGUMENT;
        memset(p->capsTbl, 0, sizeof(p->capsTbl));
        p->capsTbl[0] = emu_ce_caps0(p->ceEngineType);
        return NV_OK;
    }
    case NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE:
    case EMU_NV2080_CTRL_CMD_PERF_BOOST:
        return NV_OK; /* host memory is coherent; clocks are what they are */
    default:
        return NV_ERR_NOT_SUPPORTED;
    }
}

uint32_t emu_ctrl(struct emu_obj *o, uint32_t cmd, void *params, uint32_t size)
{
    bool known;
    uint32_t want = expected_size(cmd, &known);
    if (!known) {
        EMU_LOG("RM_CONTROL 0x%08x on class 0x%x: not emulated", cmd, o->cls);
        return NV_ERR_NOT_SUPPORTED;
    }
    if (size != want)
        return NV_ERR_INVALID_ARGUMENT;
    /* The command's interface class must match the object's class. */
    uint32_t iface = cmd >> 16;
    switch (o->cls) {
    case NV01_ROOT_CLIENT:
        return iface == 0x0000 ? ctrl_client(cmd, params) : NV_ERR_NOT_SUPPORTED;
    case NV01_DEVICE_0:
        if (cmd == NV0080_CTRL_CMD_GPU_GET_CLASSLIST) {
            NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS *p = params;
            if (p->numClasses && p->classList) {
                if (p->numClasses < emu_classlist_len)
                    return NV_ERR_INVALID_ARGUMENT;
                memcpy((void *)(uintptr_t)p->classList, emu_classlist, sizeof(emu_classlist));
            }
            p->numClasses = emu_classlist_len;
            return NV_OK;
        }
        return NV_ERR_NOT_SUPPORTED;
    case NV20_SUBDEVICE_0:
        return iface == 0x2080 ? ctrl_subdevice(o->gpu, cmd, params) : NV_ERR_NOT_SUPPORTED;
    case KEPLER_CHANNEL_GROUP_A:
        if (cmd == NVA06C_CTRL_CMD_GPFIFO_SCHEDULE) {
            if (((const NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS *)params)->bEnable)
                emu_chan_schedule_group(o->gpu, o);
            return NV_OK;
        }
        return NV_ERR_NOT_SUPPORTED;
    case HOPPER_CHANNEL_GPFIFO_A:
    case AMPERE_CHANNEL_GPFIFO_A:
        if (cmd == NVA06F_CTRL_CMD_GPFIFO_SCHEDULE) {
            if (((const NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS *)params)->bEnable)
                emu_chan_schedule(o->chan);
            return NV_OK;
        }
        if (cmd == NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN) {
            ((NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS *)params)->workSubmitToken =
                o->chan->token;
            return NV_OK;
        }
        return NV_ERR_NOT_SUPPORTED;
    default:
        return NV_ERR_NOT_SUPPORTED;
    }
}

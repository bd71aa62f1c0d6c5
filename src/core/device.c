/* Devices: enumeration (driver seam, RM device objects, facts read from RM
 * controls), open/close of the per-device state, the GPU timer and the
 * lost-device flag. */
#include "core/priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nv/nv.h"

static pthread_once_t enum_once = PTHREAD_ONCE_INIT;
static struct nvdrv g_drv;
/* GPU VA ranges, shared by all devices: UVM's VA space is per process. */
static struct hcq_va g_va_low, g_va_high, g_va_top;
static struct hcq_device *g_devs[HCQ_MAX_DEVICES];
static unsigned g_count;
static char g_error[256];

const char *hcq_enumerate_error(void) { return g_error; }

const struct hcq_device_info *hcq_device_info(const struct hcq_device *dev) { return &dev->info; }

bool hcq_device_lost(const struct hcq_device *dev) { return atomic_load(&dev->lost); }

/* hcq_device_set_lost, hcq_device_check_lost: fault.c. */

/* ------------------------------------------------------------------ */
/* Enumeration                                                          */
/* ------------------------------------------------------------------ */

/* Architecture facts not exposed by RM controls (CUDA's documented
 * per-compute-capability limits). */
static void arch_limits(struct hcq_device_info *in)
{
    in->max_threads_per_block = 1024;
    in->max_block_dim[0] = 1024;
    in->max_block_dim[1] = 1024;
    in->max_block_dim[2] = 64;
    in->max_grid_dim[0] = 0x7fffffff;
    in->max_grid_dim[1] = 65535;
    in->max_grid_dim[2] = 65535;
    in->regs_per_sm = 65536;
    in->regs_per_block = 65536;
    switch (in->arch) {
    case 0x900: /* Hopper: carve-outs up to 228 KiB, 227 KiB per block */
        in->shared_per_sm = 228 * 1024;
        in->shared_per_block_max = 227 * 1024;
        break;
    case 0x800: /* A100 */
        in->shared_per_sm = 164 * 1024;
        in->shared_per_block_max = 163 * 1024;
        break;
    default: /* GA10x, AD10x */
        in->shared_per_sm = 100 * 1024;
        in->shared_per_block_max = 99 * 1024;
        break;
    }
}

/* Maximum graphics (boost) clock by PCI device id, from NVIDIA's
 * published board specifications: the open 580 RM has no public clock
 * control (ctrl2080clk.h is empty), so this is the one fact not read
 * from the driver. Unknown boards report 0. */
static uint32_t boost_clock_mhz(uint16_t pci_device_id)
{
    static const struct {
        uint16_t id;
        uint16_t mhz;
    } boards[] = {
        {0x2335, 1980}, /* H200 SXM */
        {0x233B, 1785}, /* H200 NVL */
        {0x2330, 1980}, /* H100 SXM5 80GB */
        {0x2331, 1755}, /* H100 PCIe */
        {0x2324, 1755}, /* H800 PCIe */
        {0x2342, 1980}, /* GH200 */
        {0x20B0, 1410}, /* A100 SXM4 40GB */
        {0x20B2, 1410}, /* A100 SXM4 80GB */
        {0x20F1, 1410}, /* A100 PCIe 40GB */
        {0x20B5, 1410}, /* A100 PCIe 80GB */
    };
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(boards); i++)
        if (boards[i].id == pci_device_id)
            return boards[i].mhz;
    return 0;
}

/* FP32 lanes per SM, to turn GR's core count into SMs. */
static uint32_t cores_per_sm(uint32_t arch) { return arch == 0x800 ? 64 : 128; }

/* GR_GET_INFO for a list of indices. */
static int gr_info(struct hcq_device *dev, NV2080_CTRL_GR_INFO *list, uint32_t n)
{
    NV2080_CTRL_GR_GET_INFO_PARAMS p = {
        .grInfoListSize = n,
        .grInfoList = (uint64_t)(uintptr_t)list,
    };
    return nvdrv_rm_control(dev->drv, dev->h_subdevice, NV2080_CTRL_CMD_GR_GET_INFO, &p,
                            sizeof(p));
}

/* One index; 0 when RM does not know it. */
static uint32_t gr_info1(struct hcq_device *dev, uint32_t index)
{
    NV2080_CTRL_GR_INFO e = {index, 0};
    return gr_info(dev, &e, 1) ? 0 : e.data;
}

static int read_gr_info(struct hcq_device *dev)
{
    struct hcq_device_info *in = &dev->info;
    /* The indices verified on the H200, in one call; RM refuses the
     * whole list for one unknown index, so the others go one by one. */
    NV2080_CTRL_GR_INFO list[] = {
        {NV2080_CTRL_GR_INFO_INDEX_SM_VERSION, 0},
        {NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM, 0},
        {NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS, 0},
        {NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC, 0},
        {NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC, 0},
    };
    int r = gr_info(dev, list, UTIL_ARRAY_SIZE(list));
    if (r)
        return r;
    uint32_t v = list[0].data;
    in->arch = ((v >> 8) & 0xff) << 8 | (v & 0xff) << 4;
    in->max_warps_per_sm = list[1].data;
    in->gpc_count = list[2].data;
    in->tpc_per_gpc = list[3].data;
    in->sm_per_tpc = list[4].data;
    uint32_t warp = gr_info1(dev, NV2080_CTRL_GR_INFO_INDEX_MAX_THREADS_PER_WARP);
    in->warp_size = warp ? warp : 32;
    uint32_t tpcs = gr_info1(dev, NV2080_CTRL_GR_INFO_INDEX_SHADER_PIPE_SUB_COUNT);
    uint32_t cores = gr_info1(dev, NV2080_CTRL_GR_INFO_INDEX_GPU_CORE_COUNT);
    /* Enabled SMs: from the core count when RM reports it, else enabled
     * TPCs × SMs per TPC, else the litter bound; never above the bound. */
    uint32_t bound = in->gpc_count * in->tpc_per_gpc * in->sm_per_tpc;
    uint32_t sms = cores ? cores / cores_per_sm(in->arch) : tpcs * in->sm_per_tpc;
    if (!sms || (bound && sms > bound))
        sms = bound;
    in->sm_count = sms;
    CORE_LOG("gr: sm_version 0x%x warps/sm %u gpcs %u tpc/gpc %u sm/tpc %u tpcs %u cores %u -> "
             "%u SMs",
             v, in->max_warps_per_sm, in->gpc_count, in->tpc_per_gpc, in->sm_per_tpc, tpcs,
             cores, sms);
    return 0;
}

static int read_fb_info(struct hcq_device *dev)
{
    /* RM checks the size exactly and the list length changed between
     * releases: try the 580 length first, then the others known. */
    static const uint32_t lengths[] = {NV2080_CTRL_FB_INFO_MAX_LIST_SIZE, 0x37, 0x36, 0x80};
    static const uint32_t idx[] = {
        NV2080_CTRL_FB_INFO_INDEX_RAM_SIZE,  NV2080_CTRL_FB_INFO_INDEX_USABLE_RAM_SIZE,
        NV2080_CTRL_FB_INFO_INDEX_BUS_WIDTH, NV2080_CTRL_FB_INFO_INDEX_L2CACHE_SIZE,
    };
    size_t bytes = NVDRV_FB_GET_INFO_V2_SIZE(0x80);
    uint8_t *buf = calloc(1, bytes);
    if (!buf)
        return -ENOMEM;
    int r = -EINVAL;
    NV2080_CTRL_FB_INFO *list = (NV2080_CTRL_FB_INFO *)(buf + 4);
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(lengths); i++) {
        memset(buf, 0, bytes);
        uint32_t n = UTIL_ARRAY_SIZE(idx);
        memcpy(buf, &n, 4);
        for (uint32_t j = 0; j < n; j++)
            list[j].index = idx[j];
        r = nvdrv_rm_control(dev->drv, dev->h_subdevice, NV2080_CTRL_CMD_FB_GET_INFO_V2, buf,
                             NVDRV_FB_GET_INFO_V2_SIZE(lengths[i]));
        if (r != NV_ERR_INVALID_PARAM_STRUCT && r != NV_ERR_INVALID_ARGUMENT)
            break;
    }
    if (r == 0) {
        struct hcq_device_info *in = &dev->info;
        uint64_t ram = (uint64_t)list[0].data << 10, usable = (uint64_t)list[1].data << 10;
        in->mem_bytes = usable ? usable : ram;
        in->mem_bus_width = list[2].data;
        in->l2_bytes = list[3].data;
    }
    free(buf);
    return r;
}

static int read_classes(struct hcq_device *dev)
{
    NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS p = {0};
    int r = nvdrv_rm_control(dev->drv, dev->h_device, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &p,
                             sizeof(p));
    if (r)
        return r;
    uint32_t *cls = calloc(p.numClasses ? p.numClasses : 1, sizeof(uint32_t));
    if (!cls)
        return -ENOMEM;
    p.classList = (uint64_t)(uintptr_t)cls;
    r = nvdrv_rm_control(dev->drv, dev->h_device, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &p,
                         sizeof(p));
    struct hcq_device_info *in = &dev->info;
    bool blackwell = false;
    for (uint32_t i = 0; r == 0 && i < p.numClasses; i++) {
        switch (cls[i]) {
        case HOPPER_COMPUTE_A:
            in->compute_class = cls[i];
            break;
        case AMPERE_COMPUTE_A: /* GA100 */
        case AMPERE_COMPUTE_B: /* GA10x */
        case ADA_COMPUTE_A:
            if (in->compute_class != HOPPER_COMPUTE_A && cls[i] > in->compute_class)
                in->compute_class = cls[i];
            break;
        case HOPPER_DMA_COPY_A:
            in->copy_class = cls[i];
            break;
        case AMPERE_DMA_COPY_A:
        case AMPERE_DMA_COPY_B:
            if (in->copy_class != HOPPER_DMA_COPY_A && cls[i] > in->copy_class)
                in->copy_class = cls[i];
            break;
        case HOPPER_CHANNEL_GPFIFO_A:
            in->gpfifo_class = cls[i];
            break;
        case AMPERE_CHANNEL_GPFIFO_A:
            if (in->gpfifo_class != HOPPER_CHANNEL_GPFIFO_A)
                in->gpfifo_class = cls[i];
            break;
        case HOPPER_USERMODE_A:
            in->usermode_class = cls[i];
            break;
        case AMPERE_USERMODE_A:
        case TURING_USERMODE_A:
            if (in->usermode_class != HOPPER_USERMODE_A && cls[i] > in->usermode_class)
                in->usermode_class = cls[i];
            break;
        case BLACKWELL_COMPUTE_A:
        case BLACKWELL_COMPUTE_B:
            blackwell = true;
            break;
        }
    }
    free(cls);
    if (r)
        return r;
    if (blackwell && in->compute_class != HOPPER_COMPUTE_A) {
        snprintf(g_error, sizeof(g_error),
                 "GPU %u is a Blackwell GPU: QMD V05 launches are not implemented", dev->index);
        return -ENOTSUP;
    }
    if (!in->compute_class || !in->copy_class || !in->gpfifo_class || !in->usermode_class) {
        snprintf(g_error, sizeof(g_error),
                 "GPU %u lacks a supported class (compute 0x%x copy 0x%x gpfifo 0x%x usermode "
                 "0x%x)",
                 dev->index, in->compute_class, in->copy_class, in->gpfifo_class,
                 in->usermode_class);
        return -ENOTSUP;
    }
    return 0;
}

/* The asynchronous copy engines, from the engine list and each engine's
 * caps. A GPU or driver that answers neither leaves the list empty: copy
 * queues then use the graphics copy engine. */
static void read_copy_engines(struct hcq_device *dev)
{
    struct hcq_device_info *in = &dev->info;
    NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS *e = calloc(1, sizeof(*e));
    if (!e)
        return;
    if (nvdrv_rm_control(dev->drv, dev->h_subdevice, NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, e,
                         sizeof(*e)) == 0) {
        uint32_t shared[16];
        unsigned nshared = 0;
        for (uint32_t i = 0; i < e->engineCount && i < NV2080_GPU_MAX_ENGINES_LIST_SIZE; i++) {
            uint32_t t = e->engineList[i];
            if (!NV2080_ENGINE_TYPE_IS_COPY(t))
                continue;
            NV2080_CTRL_CE_GET_CAPS_V2_PARAMS c = {.ceEngineType = t};
            if (nvdrv_rm_control(dev->drv, dev->h_subdevice, NV2080_CTRL_CMD_CE_GET_CAPS_V2, &c,
                                 sizeof(c)))
                continue;
            CORE_LOG("device %u: copy engine type 0x%x caps %02x %02x", dev->index, t,
                     c.capsTbl[0], c.capsTbl[1]);
            if (c.capsTbl[0] & NV2080_CTRL_CE_CAPS0_GRCE) {
                if (in->grce_count < UTIL_ARRAY_SIZE(in->grce))
                    in->grce[in->grce_count++] = t;
                continue;
            }
            if (!(c.capsTbl[0] & NV2080_CTRL_CE_CAPS0_SHARED)) {
                if (in->async_ce_count < UTIL_ARRAY_SIZE(in->async_ce))
                    in->async_ce[in->async_ce_count++] = t;
            } else if (nshared < UTIL_ARRAY_SIZE(shared)) {
                shared[nshared++] = t;
            }
        }
        for (unsigned i = 0; i < nshared && in->async_ce_count < UTIL_ARRAY_SIZE(in->async_ce); i++)
            in->async_ce[in->async_ce_count++] = shared[i];
    }
    free(e);
}

/* RM objects and facts of one GPU; only queries, no channels. */
static int probe(struct hcq_device *dev)
{
    struct nvdrv *d = dev->drv;
    struct hcq_device_info *in = &dev->info;
    NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS id = {.gpuId = dev->card.gpu_id};
    int r = nvdrv_rm_control(d, d->client, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &id, sizeof(id));
    if (r)
        return r;
    dev->device_instance = id.deviceInstance;
    NV0080_ALLOC_PARAMETERS dp = {.deviceId = id.deviceInstance, .hClientShare = d->client};
    r = nvdrv_rm_alloc(d, d->client, NV01_DEVICE_0, &dp, sizeof(dp), &dev->h_device);
    if (r)
        return r;
    NV2080_ALLOC_PARAMETERS sp = {.subDeviceId = 0};
    r = nvdrv_rm_alloc(d, dev->h_device, NV20_SUBDEVICE_0, &sp, sizeof(sp), &dev->h_subdevice);
    if (r)
        return r;
    if ((r = read_classes(dev)))
        return r;
    read_copy_engines(dev);
    NV2080_CTRL_GPU_GET_GID_INFO_PARAMS gid = {
        .flags = NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY, .length = 16};
    r = nvdrv_rm_control(d, dev->h_subdevice, NV2080_CTRL_CMD_GPU_GET_GID_INFO, &gid,
                         sizeof(gid));
    if (r)
        return r;
    memcpy(in->uuid, gid.data, 16);
    NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS nm = {
        .gpuNameStringFlags = NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII};
    if (nvdrv_rm_control(d, dev->h_subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &nm,
                         sizeof(nm)) == 0) {
        size_t n = strnlen((const char *)nm.gpuNameString.ascii, sizeof(nm.gpuNameString.ascii));
        memcpy(in->name, nm.gpuNameString.ascii, n);
        in->name[n] = 0;
    } else {
        snprintf(in->name, sizeof(in->name), "NVIDIA GPU %04x", dev->card.pci_info.device_id);
    }
    /* Optional: GPUs without ECC refuse the control; that reads as "off". */
    NV2080_CTRL_GPU_QUERY_ECC_CONFIGURATION_PARAMS ecc = {0};
    in->ecc_enabled = nvdrv_rm_control(d, dev->h_subdevice,
                                       NV2080_CTRL_CMD_GPU_QUERY_ECC_CONFIGURATION, &ecc,
                                       sizeof(ecc)) == 0 &&
                      ecc.currentConfiguration == NV2080_CTRL_GPU_ECC_CONFIGURATION_ENABLED;
    if ((r = read_gr_info(dev)))
        return r;
    if (read_fb_info(dev))
        CORE_LOG("device %u: FB info unavailable", dev->index);
    in->emulated = d->ops != &nvdrv_kernel_ops;
    if (in->emulated && !strstr(in->name, "emulated")) {
        size_t n = strlen(in->name);
        snprintf(in->name + n, sizeof(in->name) - n, " (emulated)");
    }
    size_t vn = strnlen(d->version, sizeof(in->driver_version) - 1);
    memcpy(in->driver_version, d->version, vn);
    in->driver_version[vn] = 0;
    in->pci_domain = dev->card.pci_info.domain;
    in->pci_bus = dev->card.pci_info.bus;
    in->pci_device = dev->card.pci_info.slot;
    in->pci_function = dev->card.pci_info.function;
    in->pci_vendor_id = dev->card.pci_info.vendor_id;
    in->pci_device_id = dev->card.pci_info.device_id;
    in->bar1_bytes = dev->card.fb_size;
    in->timer_resolution_ns = 32; /* PTIMER ticks in 32 ns steps since Volta */
    in->clock_mhz = boost_clock_mhz(in->pci_device_id);
    arch_limits(in);
    return 0;
}

static void uuid_string(const uint8_t u[16], char *s, size_t n)
{
    snprintf(s, n,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
}

/* HCQCL_VISIBLE_DEVICES: a comma list of driver-order indices or UUIDs
 * (a unique prefix of "GPU-..." is enough). Empty: every GPU. */
static bool visible(const struct hcq_device *dev, unsigned driver_index)
{
    const char *list = util_env()->visible_devices;
    if (!*list)
        return true;
    char uuid[48];
    uuid_string(dev->info.uuid, uuid, sizeof(uuid));
    for (const char *s = list; *s;) {
        size_t n = strcspn(s, ",");
        char tok[64];
        snprintf(tok, sizeof(tok), "%.*s", (int)(n < 63 ? n : 63), s);
        char *end;
        unsigned long idx = strtoul(tok, &end, 10);
        if ((*tok && !*end && idx == driver_index) ||
            (n >= 4 && !strncasecmp(uuid, tok, strlen(tok))))
            return true;
        s += n;
        if (*s == ',')
            s++;
    }
    return false;
}

static void device_destroy(struct hcq_device *dev)
{
    if (dev->h_device)
        nvdrv_rm_free(dev->drv, dev->drv->client, dev->h_device);
    nvdrv_close_fd(dev->drv, dev->gpu_fd);
    pthread_mutex_destroy(&dev->lock);
    pthread_mutex_destroy(&dev->sig_lock);
    pthread_mutex_destroy(&dev->small_lock);
    pthread_mutex_destroy(&dev->local_lock);
    pthread_mutex_destroy(&dev->group_lock);
    pthread_mutex_destroy(&dev->xlink_lock);
    pthread_mutex_destroy(&dev->waker_lock);
    pthread_cond_destroy(&dev->waker_made);
    free(dev);
}

static const struct nvdrv_ops *choose_seam(void **ctx)
{
    const char *want = util_env()->device;
    *ctx = NULL;
    if (!strcmp(want, "emu"))
        return emu_ops(ctx);
    if (!strcmp(want, "nv"))
        return &nvdrv_kernel_ops;
    if (strcmp(want, "auto"))
        util_log(UTIL_LOG_ERR, "core: HCQCL_DEVICE=%s unknown, using auto", want);
    return access(NVDRV_PATH_CTL, F_OK) == 0 ? &nvdrv_kernel_ops : emu_ops(ctx);
}

/* In a child of fork(): every device the parent enumerated is lost to
 * it (the driver connection is the parent's: nvdrv_forked). Only what a
 * child handler may do: stores. */
static void fork_child(void)
{
    static const char why[] = "this process was forked after its parent had opened the driver: "
                              "the GPU state is the parent's";
    for (unsigned i = 0; i < g_count; i++) {
        struct hcq_device *dev = g_devs[i];
        /* A parent thread may have claimed the loss and not yet marked
         * it: that thread is not in the child, the mark is made here. */
        if (!atomic_load(&dev->lost)) {
            atomic_store(&dev->lost_claimed, true);
            memcpy(dev->lost_why, why, UTIL_MIN(sizeof(why), sizeof(dev->lost_why)));
            dev->lost_why[sizeof(dev->lost_why) - 1] = '\0';
            dev->lost_code = 0;
        }
        atomic_store_explicit(&dev->lost, true, __ATOMIC_RELEASE);
        /* The wakers' channels are the parent's, and so may be a thread
         * making one or holding their lock: forget them (waker.c). */
        atomic_store(&dev->waker_closed, true);
        dev->waker_making = false;
        dev->nwakers = 0;
        dev->waker_retired = NULL;
        dev->waker_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
        dev->waker_made = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    }
}

/* The process-wide allocator whose span holds all of [va, va + size). */
static struct hcq_va *va_span(uint64_t va, uint64_t size)
{
    struct hcq_va *all[] = {&g_va_low, &g_va_high, &g_va_top};
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(all); i++)
        if (all[i]->cap && va >= all[i]->base && va < all[i]->end && size <= all[i]->end - va)
            return all[i];
    return NULL;
}

int hcq_va_reserve(uint64_t va, uint64_t size)
{
    struct hcq_va *pool = va_span(va, size);
    return pool ? hcq_va_claim(pool, va, size) : -EEXIST;
}

void hcq_va_unreserve(uint64_t va, uint64_t size)
{
    struct hcq_va *pool = va_span(va, size);
    if (pool)
        hcq_va_free(pool, va, size);
}

static void enumerate_once(void)
{
    pthread_atfork(NULL, NULL, fork_child);
    void *ctx;
    const struct nvdrv_ops *ops = choose_seam(&ctx);
    int r = nvdrv_open(&g_drv, ops, ctx);
    if (r) {
        snprintf(g_error, sizeof(g_error), "cannot open the %s driver: %s", ops->name,
                 strerror(-r));
        return;
    }
    if (hcq_va_init(&g_va_low, HCQ_VA_LOW_BASE, HCQ_VA_LOW_END) ||
        hcq_va_init(&g_va_high, HCQ_VA_HIGH_BASE, HCQ_VA_HIGH_END) ||
        hcq_va_init(&g_va_top, HCQ_VA_HIGH_END, HCQ_VA_TOP_END) ||
        hcq_va_claim(&g_va_top, HCQ_LOCAL_WINDOW, HCQ_WINDOWS_END - HCQ_LOCAL_WINDOW)) {
        snprintf(g_error, sizeof(g_error), "out of memory");
        return;
    }
    nv_ioctl_card_info_t cards[HCQ_MAX_DEVICES];
    unsigned n = 0;
    r = nvdrv_card_info(&g_drv, cards, HCQ_MAX_DEVICES, &n);
    if (r) {
        snprintf(g_error, sizeof(g_error), "CARD_INFO failed: %s", strerror(-r));
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        struct hcq_device *dev = calloc(1, sizeof(*dev));
        if (!dev)
            break;
        pthread_mutex_init(&dev->lock, NULL);
        pthread_mutex_init(&dev->sig_lock, NULL);
        pthread_mutex_init(&dev->small_lock, NULL);
        pthread_mutex_init(&dev->local_lock, NULL);
        pthread_mutex_init(&dev->group_lock, NULL);
        pthread_mutex_init(&dev->xlink_lock, NULL);
        pthread_mutex_init(&dev->waker_lock, NULL);
        pthread_cond_init(&dev->waker_made, NULL);
        dev->drv = &g_drv;
        dev->card = cards[i];
        dev->index = g_count;
        dev->gpu_fd = -1;
        dev->irq_fd = -1;
        dev->va_low = &g_va_low;
        dev->va_high = &g_va_high;
        /* RM allocates NV01_DEVICE_0 only for a client that holds the GPU's
         * /dev/nvidiaN open and registered (NV_ERR_INSUFFICIENT_PERMISSIONS
         * otherwise), so the fd lives as long as the device. */
        r = dev->gpu_fd = nvdrv_open_gpu_fd(&g_drv, dev->card.minor_number);
        if (r >= 0)
            r = probe(dev);
        if (r || !visible(dev, i)) {
            if (r) {
                if (!g_error[0])
                    snprintf(g_error, sizeof(g_error), "GPU %u: probe failed (%d)", i, r);
                util_log(UTIL_LOG_ERR, "core: %s", g_error);
            }
            device_destroy(dev);
            continue;
        }
        g_devs[g_count++] = dev;
        CORE_LOG("device %u: %s, sm_%x, %u SMs, %llu MiB, compute 0x%x copy 0x%x", dev->index,
                 dev->info.name, dev->info.arch >> 4, dev->info.sm_count,
                 (unsigned long long)(dev->info.mem_bytes >> 20), dev->info.compute_class,
                 dev->info.copy_class);
    }
    if (g_count)
        g_error[0] = 0;
    else if (!g_error[0])
        snprintf(g_error, sizeof(g_error), "no GPU found");
}

void hcq_enumerate(struct hcq_device *const **devices, unsigned *count)
{
    pthread_once(&enum_once, enumerate_once);
    *devices = g_devs;
    *count = g_count;
}

/* ------------------------------------------------------------------ */
/* Open / close                                                         */
/* ------------------------------------------------------------------ */

static void teardown(struct hcq_device *dev)
{
    struct nvdrv *d = dev->drv;
    hcq_irq_teardown(dev);
    hcq_device_local_fini(dev);
    hcq_signal_pool_fini(dev);
    hcq_small_fini(dev);
    if (dev->uvm_vaspace)
        nvdrv_uvm_unregister_gpu_vaspace(d, dev->info.uuid);
    if (dev->uvm_gpu)
        nvdrv_uvm_unregister_gpu(d, dev->info.uuid);
    dev->uvm_vaspace = dev->uvm_gpu = false;
    if (dev->h_vaspace)
        nvdrv_rm_free(d, dev->h_device, dev->h_vaspace);
    if (dev->usermode)
        nvdrv_munmap(d, (void *)dev->usermode, NVC361_USERMODE_SIZE);
    if (dev->h_usermode)
        nvdrv_rm_free(d, dev->h_subdevice, dev->h_usermode);
    if (dev->h_virtmem)
        nvdrv_rm_free(d, dev->h_device, dev->h_virtmem);
    dev->h_vaspace = dev->h_usermode = dev->h_virtmem = 0;
    dev->usermode = NULL;
}

/* Log the step that failed: device open is where a real driver says no. */
static int step(struct hcq_device *dev, int r, const char *what)
{
    if (r)
        util_log(UTIL_LOG_ERR, "core: device %u open: %s failed: %s", dev->index, what,
                 r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
    return nvdrv_errno(r);
}

static int bring_up(struct hcq_device *dev)
{
    struct nvdrv *d = dev->drv;
    int r;
    NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS vm = {.limit = 0x1ffffffffffffull};
    if ((r = step(dev,
                  nvdrv_rm_alloc(d, dev->h_device, NV01_MEMORY_VIRTUAL, &vm, sizeof(vm),
                                 &dev->h_virtmem),
                  "NV01_MEMORY_VIRTUAL")))
        return r;
    if ((r = step(dev,
                  nvdrv_rm_alloc(d, dev->h_subdevice, dev->info.usermode_class, NULL, 0,
                                 &dev->h_usermode),
                  "usermode object")))
        return r;
    void *um;
    if ((r = step(dev,
                  nvdrv_rm_map_memory(d, dev->card.minor_number, dev->h_device, dev->h_usermode,
                                      NVC361_USERMODE_SIZE, NULL, &um),
                  "usermode mapping")))
        return r;
    dev->usermode = um;
    /* Clocks to maximum while this client lives, as CUDA asks; optional. */
    NV2080_CTRL_PERF_BOOST_PARAMS boost = {.flags = NV2080_CTRL_PERF_BOOST_FLAGS_CUDA_MAX,
                                           .duration = NV2080_CTRL_PERF_BOOST_DURATION_INFINITE};
    if (nvdrv_rm_control(d, dev->h_subdevice, NV2080_CTRL_CMD_PERF_BOOST, &boost, sizeof(boost)))
        CORE_LOG("device %u: PERF_BOOST refused; clocks left to the driver", dev->index);
    /* VA space owned by UVM: the process chooses every GPU address. */
    NV_VASPACE_ALLOCATION_PARAMETERS vs = {
        .flags = NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING |
                 NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED,
        .vaSize = 0x1fffffb000000ull,
        .vaBase = 0x1000,
    };
    if ((r = step(dev,
                  nvdrv_rm_alloc(d, dev->h_device, FERMI_VASPACE_A, &vs, sizeof(vs),
                                 &dev->h_vaspace),
                  "FERMI_VASPACE_A")))
        return r;
    if ((r = step(dev, nvdrv_uvm_register_gpu(d, dev->info.uuid), "UVM_REGISTER_GPU")))
        return r;
    dev->uvm_gpu = true;
    if ((r = step(dev, nvdrv_uvm_register_gpu_vaspace(d, dev->info.uuid, dev->h_vaspace),
                  "UVM_REGISTER_GPU_VASPACE")))
        return r;
    dev->uvm_vaspace = true;
    hcq_irq_setup(dev);
    return 0;
}

int hcq_device_open(struct hcq_device *dev)
{
    hcq_wc_init();
    pthread_mutex_lock(&dev->lock);
    int r = 0;
    if (dev->refs == 0) {
        hcq_device_fault_reset(dev);
        dev->qmd_hot_ok = nv_qmd_hot_init(nv_qmd_version_for_class(dev->info.compute_class),
                                          &dev->qmd_hot) == 0;
        r = bring_up(dev);
        atomic_store(&dev->waker_closed, false);
        if (r) {
            util_log(UTIL_LOG_ERR, "core: device %u open failed: %s", dev->index, strerror(-r));
            teardown(dev);
        }
    }
    /* Changed under lock; read without it by the "device is open" checks
     * of memory and queue creation. */
    if (r == 0)
        __atomic_store_n(&dev->refs, dev->refs + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&dev->lock);
    return r;
}

void hcq_device_close(struct hcq_device *dev)
{
    /* The last close frees the idle queues first (they need the device,
     * so outside the lock): decided and done again until a close finds
     * none left, so two closes at once cannot tear down past them. */
    pthread_mutex_lock(&dev->lock);
    if (dev->refs == 1) {
        /* Wakers first, once a thread making one is done: nothing waits
         * on them once the last user closes. */
        pthread_mutex_unlock(&dev->lock);
        hcq_waker_drain(dev);
        pthread_mutex_lock(&dev->lock);
    }
    while (dev->refs == 1 && dev->idle) {
        pthread_mutex_unlock(&dev->lock);
        hcq_queue_idle_drain(dev);
        pthread_mutex_lock(&dev->lock);
    }
    if (dev->refs) {
        __atomic_store_n(&dev->refs, dev->refs - 1, __ATOMIC_RELEASE);
        if (dev->refs == 0) {
            if (dev->queues)
                util_log(UTIL_LOG_ERR, "core: device %u closed with queues alive", dev->index);
            teardown(dev);
        }
    }
    pthread_mutex_unlock(&dev->lock);
}

/* hcq_device_timer on a GPU: reads of the timer register tried, and a
 * read window short enough to stop trying. */
#define TIMER_TRIES 4
#define TIMER_GOOD_NS 1500u

int hcq_device_timer(struct hcq_device *dev, uint64_t *gpu_ns, uint64_t *host_ns)
{
    if (!dev->usermode)
        return -EINVAL;
    /* The emulated device's timer registers are only as fresh as its
     * worker's last round (up to 0.5 ms when idle): ask the driver there,
     * which reads the clock itself. On a GPU they are the live PTIMER. */
    if (dev->info.emulated) {
        /* The pair is the midpoint of the host reads around the call, as
         * exact as the call is short: a thread preempted inside it gets a
         * pair off by the preemption. Keep the tightest of a few tries. */
        uint64_t best = UINT64_MAX;
        for (int i = 0; i < 8 && best > 200; i++) {
            NV2080_CTRL_TIMER_GET_TIME_PARAMS t = {0};
            uint64_t before = util_now_ns();
            int r = nvdrv_rm_control(dev->drv, dev->h_subdevice, NV2080_CTRL_CMD_TIMER_GET_TIME,
                                     &t, sizeof(t));
            uint64_t after = util_now_ns();
            if (r)
                return nvdrv_errno(r);
            if (after - before < best) {
                best = after - before;
                *gpu_ns = t.time_nsec;
                *host_ns = before + (after - before) / 2;
            }
        }
        return 0;
    }
    const volatile uint32_t *t0 = (const volatile uint32_t *)(dev->usermode + NVC361_TIME_0);
    const volatile uint32_t *t1 = (const volatile uint32_t *)(dev->usermode + NVC361_TIME_1);
    /* A register read crosses the bus and back (about a microsecond in a
     * virtual machine): the GPU's clock is sampled somewhere inside it, so
     * the host time is the midpoint of clock reads around it, and the
     * tightest of a few tries is kept (a thread preempted inside one gets a
     * pair off by the preemption). A host time read only after the
     * register mapped every GPU time late by half the read, enough for an
     * empty kernel's START to land past the moment the host saw it end. */
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < TIMER_TRIES && best > TIMER_GOOD_NS; i++) {
        uint32_t hi, lo;
        uint64_t before, after;
        /* The two halves are separate registers: re-read until the high
         * half did not move under the low one. */
        do {
            hi = *t1;
            before = util_now_ns();
            lo = *t0;
            after = util_now_ns();
        } while (hi != *t1);
        if (after - before < best) {
            best = after - before;
            *gpu_ns = (uint64_t)hi << 32 | lo;
            *host_ns = before + (after - before) / 2;
        }
    }
    return 0;
}

/*
 * nvdrv_abi.c — the 580 ABI as the kernel driver sees it: escape request
 * numbers (nv-hopper-facts §1, the values the H200 accepted), struct sizes
 * baked into them, field offsets the driver reads, NV_STATUS names, and
 * the wrappers end to end over the emulated seam (client, version, card
 * info, a device object, a control with an exact size, a freed handle).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvdrv/nvdrv.h"
#include "util/util.h"
#include "check.h"

#define REQUIRE_OK(x)                                                                     \
    do {                                                                                  \
        int r_ = (x);                                                                     \
        if (r_) {                                                                         \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_);              \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static void test_requests(void)
{
    /* Requests as issued on the H200 with the 580 layouts. */
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_CARD_INFO, NVDRV_MAX_CARDS * sizeof(nv_ioctl_card_info_t)),
              0xD20046C8u);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_REGISTER_FD, sizeof(nv_ioctl_register_fd_t)), 0xC00446C9u);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_ALLOC_OS_EVENT, sizeof(nv_ioctl_alloc_os_event_t)),
              0xC01046CEu);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_FREE_OS_EVENT, sizeof(nv_ioctl_alloc_os_event_t)),
              0xC01046CFu);
    /* The notifier index of an engine event: index, then flags. */
    EXPECT_EQ(NV2080_NOTIFIERS_CE(0), 23u);
    EXPECT_EQ(NV2080_NOTIFIERS_CE(9), 32u);
    EXPECT_EQ(NV2080_NOTIFIERS_CE(10), 166u);
    EXPECT_EQ(NV2080_NOTIFIERS_GRAPHICS | NV01_EVENT_NONSTALL_INTR | NV01_EVENT_WITHOUT_EVENT_DATA,
              0x1800000Cu);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_CHECK_VERSION_STR, sizeof(nv_ioctl_rm_api_version_t)),
              0xC04846D2u);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_RM_ALLOC_MEMORY,
                                sizeof(nv_ioctl_nvos02_parameters_with_fd)),
              0xC0384627u);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_RM_FREE, sizeof(NVOS00_PARAMETERS)), 0xC0104629u);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_RM_CONTROL, sizeof(NVOS54_PARAMETERS)), 0xC020462Au);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_RM_ALLOC, sizeof(NVOS21_PARAMETERS)), 0xC020462Bu);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_RM_MAP_MEMORY, sizeof(nv_ioctl_nvos33_parameters_with_fd)),
              0xC038464Eu);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_RM_UNMAP_MEMORY, sizeof(NVOS34_PARAMETERS)), 0xC020464Fu);
    EXPECT_EQ(NVDRV_ESC_REQUEST(NV_ESC_RM_MAP_MEMORY_DMA, sizeof(NVOS46_PARAMETERS)), 0xC0404657u);
    unsigned long req = NVDRV_ESC_REQUEST(NV_ESC_RM_CONTROL, sizeof(NVOS54_PARAMETERS));
    EXPECT_EQ(NVDRV_ESC_NR(req), NV_ESC_RM_CONTROL);
    EXPECT_EQ(NVDRV_ESC_SIZE(req), 32);
}

static void test_layouts(void)
{
    /* Sizes RM checks (controls) or reads by class (allocs), 580. */
    EXPECT_EQ(sizeof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS), 368);
    EXPECT_EQ(sizeof(NV_VASPACE_ALLOCATION_PARAMETERS), 56);
    EXPECT_EQ(sizeof(NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS), 3);
    EXPECT_EQ(sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS), 3);
    EXPECT_EQ(sizeof(UVM_FREE_PARAMS), 24);
    EXPECT_EQ(sizeof(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS), 9264);
    EXPECT_EQ(offsetof(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS, rmCtrlFd), 0x2420);
    EXPECT_EQ(offsetof(UVM_REGISTER_GPU_PARAMS, rmStatus), 0x24);
    EXPECT_EQ(offsetof(UVM_REGISTER_CHANNEL_PARAMS, length), 0x28);
    EXPECT_EQ(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, gpFifoEntries), 0x10);
    EXPECT_EQ(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, hContextShare), 0x18);
    EXPECT_EQ(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, errorNotifierMem), 0xf8);
    EXPECT_EQ(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, encryptIv), 0x130);
    EXPECT_EQ(offsetof(NV_MEMORY_ALLOCATION_PARAMS, attr), 0x18);
    EXPECT_EQ(offsetof(NV_MEMORY_ALLOCATION_PARAMS, alignment), 0x48);
    EXPECT_EQ(offsetof(NV_MEMORY_ALLOCATION_PARAMS, limit), 0x58);
    EXPECT_EQ(offsetof(NV_MEMORY_ALLOCATION_PARAMS, hVASpace), 0x6c);
    EXPECT_EQ(offsetof(NVOS02_PARAMETERS, flags), 0x10);
    EXPECT_EQ(offsetof(NVOS02_PARAMETERS, limit), 0x20);
    EXPECT_EQ(offsetof(NVOS33_PARAMETERS, flags), 0x2c);
    EXPECT_EQ(offsetof(NVOS46_PARAMETERS, kindOverride), 0x28);
    EXPECT_EQ(offsetof(nv_ioctl_card_info_t, pci_info), 4);
    EXPECT_EQ(offsetof(nv_ioctl_card_info_t, fb_address), 0x28);
    EXPECT_EQ(offsetof(nv_ioctl_card_info_t, dev_name), 0x3c);
    EXPECT_EQ(offsetof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, data), 0x0c);
    EXPECT_EQ(offsetof(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS, changelistNumber), 0x400);
    EXPECT_EQ(offsetof(NV2080_CTRL_GR_GET_INFO_PARAMS, grRouteInfo), 0x10);
    EXPECT_EQ(sizeof(NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS), 4024);
    EXPECT_EQ(offsetof(NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS, flags), 0xfb0);
    /* The flag words tinygrad used and the H200 accepted (§3.6). */
    EXPECT_EQ(NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS | NVOS02_FLAGS_COHERENCY_CACHED |
                  NVOS02_FLAGS_MAPPING_NO_MAP,
              0x40001010u);
    EXPECT_EQ(NVOS46_FLAGS_PAGE_SIZE_4KB | NVOS46_FLAGS_CACHE_SNOOP_ENABLE |
                  NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE,
              0x8110u);
    EXPECT_EQ(NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS << NVOS32_ATTR_PHYSICALITY_SHIFT |
                  NVOS32_ATTR_PAGE_SIZE_HUGE << NVOS32_ATTR_PAGE_SIZE_SHIFT,
              0x19800000u);
    EXPECT_EQ(NVOS32_ATTR2_ZBC_PREFER_NO_ZBC |
                  NVOS32_ATTR2_GPU_CACHEABLE_YES << NVOS32_ATTR2_GPU_CACHEABLE_SHIFT |
                  NVOS32_ATTR2_PAGE_SIZE_HUGE_2MB << NVOS32_ATTR2_PAGE_SIZE_HUGE_SHIFT,
              0x00100005u);
    EXPECT_EQ(NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS << NVOS32_ATTR_PHYSICALITY_SHIFT |
                  NVOS32_ATTR_LOCATION_PCI << NVOS32_ATTR_LOCATION_SHIFT,
              0x1A000000u);
    EXPECT_EQ(NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT | NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE |
                  NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED | NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED |
                  NVOS32_ALLOC_FLAGS_PERSISTENT_VIDMEM,
              0x1C101u);
}

static void test_status_names(void)
{
    EXPECT(!strcmp(nvdrv_status_name(0), "NV_OK"));
    EXPECT(!strcmp(nvdrv_status_name(0x1F), "NV_ERR_INVALID_ARGUMENT"));
    EXPECT(!strcmp(nvdrv_status_name(0x3A), "NV_ERR_INVALID_PARAM_STRUCT"));
    EXPECT(!strcmp(nvdrv_status_name(0x51), "NV_ERR_NO_MEMORY"));
    EXPECT(!strcmp(nvdrv_status_name(0x63), "NV_ERR_STATE_IN_USE"));
    EXPECT(!strcmp(nvdrv_status_name(0xFFFF), "NV_ERR_GENERIC"));
    EXPECT(!strcmp(nvdrv_status_name(0x12345), "NV_STATUS_0x12345"));
    EXPECT_EQ(nvdrv_errno(0), 0);
    EXPECT_EQ(nvdrv_errno(-EINTR), -EINTR);
    EXPECT_EQ(nvdrv_errno(NV_ERR_NO_MEMORY), -ENOMEM);
    EXPECT_EQ(nvdrv_errno(NV_ERR_INVALID_ARGUMENT), -EIO);
}

/* Every control is listed with its exact struct: the sizes RM checks. */
static void test_lists(void)
{
    unsigned n = 0;
#define COUNT_CTRL(name, cmd, type, target)                                               \
    EXPECT_EQ(name, cmd);                                                                 \
    EXPECT(sizeof(type) > 0);                                                             \
    n++;
    NVDRV_RM_CONTROLS(COUNT_CTRL)
#undef COUNT_CTRL
    EXPECT(n >= 9);
#define CHECK_CLASS(name, id, type) EXPECT_EQ(name, id);
    NVDRV_RM_CLASSES(CHECK_CLASS)
#undef CHECK_CLASS
}

/* The wrappers over the emulated driver. */
static void test_emulated(void)
{
    void *ctx = NULL;
    const struct nvdrv_ops *ops = emu_ops(&ctx);
    struct nvdrv d;
    int r = nvdrv_open(&d, ops, ctx);
    EXPECT_EQ(r, 0);
    if (r)
        return;
    EXPECT(d.client != 0);
    EXPECT_EQ(d.major, 580);
    nv_ioctl_card_info_t cards[8];
    unsigned n = 0;
    EXPECT_EQ(nvdrv_card_info(&d, cards, 8, &n), 0);
    EXPECT(n >= 1);
    if (n) {
        NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS id = {.gpuId = cards[0].gpu_id};
        EXPECT_EQ(nvdrv_rm_control(&d, d.client, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &id,
                                   sizeof(id)),
                  0);
        NV0080_ALLOC_PARAMETERS dp = {.deviceId = id.deviceInstance, .hClientShare = d.client};
        uint32_t dev = 0;
        EXPECT_EQ(nvdrv_rm_alloc(&d, d.client, NV01_DEVICE_0, &dp, sizeof(dp), &dev), 0);
        EXPECT(dev != 0);
        NV2080_ALLOC_PARAMETERS sp = {0};
        uint32_t sub = 0;
        EXPECT_EQ(nvdrv_rm_alloc(&d, dev, NV20_SUBDEVICE_0, &sp, sizeof(sp), &sub), 0);
        /* RM demands the exact size: one byte short is refused. */
        NV2080_CTRL_GPU_GET_GID_INFO_PARAMS gid = {.flags = 2, .length = 16};
        EXPECT_EQ(nvdrv_rm_control(&d, sub, NV2080_CTRL_CMD_GPU_GET_GID_INFO, &gid, sizeof(gid)),
                  0);
        int bad = nvdrv_rm_control(&d, sub, NV2080_CTRL_CMD_GPU_GET_GID_INFO, &gid,
                                   sizeof(gid) - 1);
        EXPECT(bad > 0);
        /* A GPU fd registers; a freed handle is gone. */
        int fd = nvdrv_open_gpu_fd(&d, cards[0].minor_number);
        EXPECT(fd >= 0);
        nvdrv_close_fd(&d, fd);
        /* Engine events: registered fd, one event per engine; a key no
         * ALLOC_OS_EVENT registered, a stall event and a non-engine index
         * are refused; an idle GPU posts nothing, so a poll times out. */
        int efd = -1;
        EXPECT_EQ(nvdrv_event_open(&d, &efd), 0);
        uint32_t ev = 0, ev2 = 0;
        EXPECT_EQ(nvdrv_event_attach(&d, efd, sub, NV2080_NOTIFIERS_GRAPHICS, &ev), 0);
        EXPECT_EQ(nvdrv_event_attach(&d, efd, sub, NV2080_NOTIFIERS_CE(2), &ev2), 0);
        EXPECT(ev && ev2 && ev != ev2);
        uint32_t h = 0;
        EXPECT_EQ(nvdrv_event_attach(&d, efd + 1, sub, NV2080_NOTIFIERS_GRAPHICS, &h),
                  0x57 /* NV_ERR_OBJECT_NOT_FOUND */);
        NV0005_ALLOC_PARAMETERS stall = {.hParentClient = d.client, .hSrcResource = sub,
                                         .hClass = NV01_EVENT_OS_EVENT,
                                         .notifyIndex = NV2080_NOTIFIERS_GRAPHICS,
                                         .data = (uint32_t)efd};
        h = 0;
        EXPECT(nvdrv_rm_alloc(&d, sub, NV01_EVENT_OS_EVENT, &stall, sizeof(stall), &h) > 0);
        EXPECT(nvdrv_event_attach(&d, efd, sub, 3 /* THERMAL_SW */, &h) > 0);
        /* A second registration under the same key is refused. */
        nv_ioctl_alloc_os_event_t again = {.hClient = d.client, .fd = (uint32_t)efd};
        EXPECT_EQ(nvdrv_escape(&d, efd, NV_ESC_ALLOC_OS_EVENT, &again, sizeof(again)), 0);
        EXPECT(again.Status != NV_OK);
        uint64_t t0 = util_now_ns();
        EXPECT_EQ(nvdrv_event_wait(&d, efd, 20000000), 0);
        EXPECT(util_now_ns() - t0 >= 19000000);
        EXPECT_EQ(nvdrv_rm_free(&d, sub, ev), 0);
        nvdrv_event_close(&d, efd);
        EXPECT_EQ(nvdrv_rm_free(&d, d.client, dev), 0);
        EXPECT(nvdrv_rm_free(&d, d.client, dev) > 0);
    }
    nvdrv_close(&d);
}

/* A seam that forwards to the emulated driver but reports another driver
 * version: the wrappers must refuse ABI majors they have no layouts for. */
static const struct nvdrv_ops *shim_real;
static void *shim_ctx;
static const char *shim_version;

static int shim_open(void *ctx, const char *path, int flags)
{
    return shim_real->open(shim_ctx, path, flags);
}
static int shim_close(void *ctx, int fd) { return shim_real->close(shim_ctx, fd); }
static int shim_eintr; /* fail this many ioctls with -EINTR first */
static int shim_calls;
static int shim_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
    shim_calls++;
    if (shim_eintr > 0) {
        shim_eintr--;
        return -EINTR;
    }
    int r = shim_real->ioctl(shim_ctx, fd, request, arg);
    if (r == 0 && ((request >> 8) & 0xff) == NV_IOCTL_MAGIC &&
        NVDRV_ESC_NR(request) == NV_ESC_RM_CONTROL) {
        NVOS54_PARAMETERS *p = arg;
        if (p->cmd == NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2 && p->status == NV_OK) {
            NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS *v = (void *)(uintptr_t)p->params;
            snprintf(v->driverVersionBuffer, sizeof(v->driverVersionBuffer), "%s", shim_version);
        }
    }
    return r;
}
static void *shim_mmap(void *ctx, void *addr, size_t length, int prot, int flags, int fd,
                       off_t offset)
{
    return shim_real->mmap(shim_ctx, addr, length, prot, flags, fd, offset);
}
static int shim_munmap(void *ctx, void *addr, size_t length)
{
    return shim_real->munmap(shim_ctx, addr, length);
}
static int shim_poll(void *ctx, int fd, uint64_t timeout_ns)
{
    return shim_real->poll(shim_ctx, fd, timeout_ns);
}
static int shim_poke(void *ctx, int fd) { return shim_real->poke(shim_ctx, fd); }
static const struct nvdrv_ops shim_ops = {
    .name = "shim",
    .open = shim_open,
    .close = shim_close,
    .ioctl = shim_ioctl,
    .mmap = shim_mmap,
    .munmap = shim_munmap,
    .poll = shim_poll,
    .poke = shim_poke,
};

static void test_versions(void)
{
    shim_real = emu_ops(&shim_ctx);
    static const struct {
        const char *version;
        int want;
        unsigned major;
    } cases[] = {
        {"570.86.16", -ENOTSUP, 0},
        {"610.43.02", -ENOTSUP, 0},
        {"535.183.01", -ENOTSUP, 0},
        {"580.65.06", 0, 580},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        shim_version = cases[i].version;
        struct nvdrv d;
        int r = nvdrv_open(&d, &shim_ops, NULL);
        EXPECT_EQ(r, cases[i].want);
        if (r == 0) {
            EXPECT_EQ(d.major, cases[i].major);
            EXPECT(!strcmp(d.version, cases[i].version));
            nvdrv_close(&d);
        } else {
            /* Nothing stays open after a refusal. */
            EXPECT_EQ(d.ctl_fd, -1);
            EXPECT_EQ(d.uvm_fd, -1);
        }
    }
}

/* An interrupted ioctl is issued again (the driver did not run it). */
static void test_eintr(void)
{
    shim_real = emu_ops(&shim_ctx);
    shim_version = "580.159.04";
    struct nvdrv d;
    REQUIRE_OK(nvdrv_open(&d, &shim_ops, NULL));
    NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS *v = calloc(1, sizeof(*v));
    shim_eintr = 3;
    shim_calls = 0;
    EXPECT_EQ(nvdrv_rm_control(&d, d.client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, v,
                               sizeof(*v)),
              0);
    EXPECT_EQ(shim_calls, 4);
    EXPECT(!strcmp(v->driverVersionBuffer, "580.159.04"));
    free(v);
    nvdrv_close(&d);
}

/* The real seam reports system-call errors as -errno. */
static void test_kernel_seam(void)
{
    const struct nvdrv_ops *k = &nvdrv_kernel_ops;
    EXPECT_EQ(k->open(NULL, "/nonexistent/hcqcl/nvidiactl", O_RDWR), -ENOENT);
    EXPECT_EQ(k->close(NULL, -1), -EBADF);
    NVOS54_PARAMETERS p = {0};
    EXPECT_EQ(k->ioctl(NULL, -1, NVDRV_ESC_REQUEST(NV_ESC_RM_CONTROL, sizeof(p)), &p), -EBADF);
    EXPECT(k->mmap(NULL, NULL, 4096, PROT_READ, MAP_SHARED, -1, 0) == MAP_FAILED);
    void *m = k->mmap(NULL, NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(m != MAP_FAILED);
    EXPECT_EQ(k->munmap(NULL, m, 4096), 0);
}

int main(void)
{
    test_requests();
    test_layouts();
    test_status_names();
    test_lists();
    test_emulated();
    test_versions();
    test_eintr();
    test_kernel_seam();
    return check_done("nvdrv_abi");
}

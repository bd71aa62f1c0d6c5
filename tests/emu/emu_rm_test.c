/*
 * The emulated driver through the nvdrv wrappers: RM object lifetime and
 * status codes, controls, CPU mappings and fds, UVM rules, GPU page-table
 * translation, OS-descriptor memory, PTIMER, two GPUs with distinct UUIDs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "emu_harness.h"
#include "nv/nv.h"

#include "emu/emu.h"

static void test_objects(struct harness *h)
{
    struct nvdrv *d = &h->d;
    /* RM-chosen handles look like the driver's. */
    CHECK_EQ(h->device & 0xfff00000u, 0xcaf00000u);
    CHECK_EQ(d->client & 0xfff00000u, 0xc1d00000u);
    /* Client-chosen handles: a collision is refused. */
    uint32_t a = 0x1001, b = 0x1001;
    CHECK_EQ(nvdrv_rm_alloc(d, h->device, KEPLER_CHANNEL_GROUP_A,
                            &(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS){.engineType = 1},
                            sizeof(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS), &a),
             0);
    CHECK_EQ(a, 0x1001);
    CHECK_EQ(nvdrv_rm_alloc(d, h->device, KEPLER_CHANNEL_GROUP_A,
                            &(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS){.engineType = 1},
                            sizeof(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS), &b),
             NV_ERR_INSERT_DUPLICATE_NAME);
    /* Wrong parent, unknown parent, class not on an H200. */
    uint32_t c = 0;
    CHECK_EQ(nvdrv_rm_alloc(d, h->subdevice, FERMI_CONTEXT_SHARE_A,
                            &(NV_CTXSHARE_ALLOCATION_PARAMETERS){.hVASpace = h->vaspace},
                            sizeof(NV_CTXSHARE_ALLOCATION_PARAMETERS), &c),
             NV_ERR_INVALID_OBJECT_PARENT);
    c = 0;
    CHECK_EQ(nvdrv_rm_alloc(d, 0x4242, FERMI_VASPACE_A, NULL, 0, &c), NV_ERR_INVALID_OBJECT_PARENT);
    c = 0;
    CHECK_EQ(nvdrv_rm_alloc(d, h->device, AMPERE_COMPUTE_B, NULL, 0, &c), NV_ERR_INVALID_CLASS);
    /* A context share under the new group; freeing the group frees it. */
    uint32_t cs = 0;
    CHECK_EQ(nvdrv_rm_alloc(d, a, FERMI_CONTEXT_SHARE_A,
                            &(NV_CTXSHARE_ALLOCATION_PARAMETERS){.hVASpace = h->vaspace},
                            sizeof(NV_CTXSHARE_ALLOCATION_PARAMETERS), &cs),
             0);
    CHECK_EQ(nvdrv_rm_free(d, h->device, a), 0);
    CHECK_EQ(nvdrv_rm_free(d, a, cs), NV_ERR_INVALID_OBJECT_HANDLE);
    CHECK_EQ(nvdrv_rm_free(d, h->device, a), NV_ERR_INVALID_OBJECT_HANDLE);
}

static void test_controls(struct harness *h)
{
    struct nvdrv *d = &h->d;
    NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS v = {0};
    CHECK_EQ(nvdrv_rm_control(d, d->client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, &v,
                              sizeof(v)),
             0);
    CHECK(!strcmp(v.driverVersionBuffer, "580.159.04"));
    /* Exact sizes only (the H200 answers 0x1F); unknown commands refused. */
    NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS s = {.bEnable = 1};
    CHECK_EQ(nvdrv_rm_control(d, h->chgrp, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &s, 2),
             NV_ERR_INVALID_ARGUMENT);
    uint32_t junk[4] = {0};
    CHECK_EQ(nvdrv_rm_control(d, h->subdevice, 0x2080dead, junk, sizeof(junk)),
             NV_ERR_NOT_SUPPORTED);
    CHECK_EQ(nvdrv_rm_control(d, 0x4243, NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE, junk, sizeof(junk)),
             NV_ERR_INVALID_OBJECT_HANDLE);
    /* Class list with the Hopper classes, count first. */
    NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS cl = {0};
    CHECK_EQ(nvdrv_rm_control(d, h->device, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &cl, sizeof(cl)), 0);
    CHECK(cl.numClasses > 50);
    uint32_t *list = calloc(cl.numClasses, 4);
    cl.classList = (uintptr_t)list;
    CHECK_EQ(nvdrv_rm_control(d, h->device, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &cl, sizeof(cl)), 0);
    unsigned found = 0;
    for (unsigned i = 0; i < cl.numClasses; i++)
        found += list[i] == HOPPER_COMPUTE_A || list[i] == HOPPER_DMA_COPY_A ||
                 list[i] == HOPPER_CHANNEL_GPFIFO_A || list[i] == HOPPER_USERMODE_A;
    CHECK_EQ(found, 4);
    free(list);
    /* GR litter values and SM version. */
    NV2080_CTRL_GR_INFO gi[4] = {{NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS, 0},
                                 {NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC, 0},
                                 {NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC, 0},
                                 {NV2080_CTRL_GR_INFO_INDEX_SM_VERSION, 0}};
    NV2080_CTRL_GR_GET_INFO_PARAMS gp = {.grInfoListSize = 4, .grInfoList = (uintptr_t)gi};
    CHECK_EQ(nvdrv_rm_control(d, h->subdevice, NV2080_CTRL_CMD_GR_GET_INFO, &gp, sizeof(gp)), 0);
    CHECK_EQ(gi[0].data, 8);
    CHECK_EQ(gi[1].data, 9);
    CHECK_EQ(gi[2].data, 2);
    CHECK_EQ(gi[3].data, 0x900);
    NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS nm = {0};
    CHECK_EQ(nvdrv_rm_control(d, h->subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &nm,
                              sizeof(nm)),
             0);
    CHECK(!strcmp((char *)nm.gpuNameString.ascii, "NVIDIA H200 (emulated)"));
    NV2080_CTRL_FB_GET_INFO_V2_PARAMS fb = {.fbInfoListSize = 2};
    fb.fbInfoList[0].index = NV2080_CTRL_FB_INFO_INDEX_L2CACHE_SIZE;
    fb.fbInfoList[1].index = NV2080_CTRL_FB_INFO_INDEX_RAM_SIZE;
    CHECK_EQ(nvdrv_rm_control(d, h->subdevice, NV2080_CTRL_CMD_FB_GET_INFO_V2, &fb, sizeof(fb)), 0);
    CHECK_EQ(fb.fbInfoList[0].data, 60u << 20);
    /* RAM in KiB: the host's quarter up to 16 GiB, or HCQCL_EMU_VRAM. */
    const char *vram = getenv("HCQCL_EMU_VRAM");
    if (vram && *vram)
        CHECK_EQ((uint64_t)fb.fbInfoList[1].data, strtoull(vram, NULL, 0) >> 10);
    else
        CHECK(fb.fbInfoList[1].data > 0 && fb.fbInfoList[1].data <= (16u << 20));
}

static void test_memory(struct harness *h)
{
    struct nvdrv *d = &h->d;
    struct h_mem m;
    h_alloc(h, 0x10000, false, &m);
    memset(m.cpu, 0x5a, m.size);
    /* The page table translates to the same bytes the CPU view shows. */
    struct emu_gpu *g = &emu.gpus[0];
    uint8_t *p = emu_vm_translate(&g->vm, NULL, m.va + 0x100, 16);
    CHECK(p != NULL);
    p[0] = 0x77;
    CHECK_EQ(m.cpu[0x100], 0x77);
    CHECK(emu_vm_translate(&g->vm, NULL, m.va + m.size - 8, 16) == NULL); /* runs off the end */
    CHECK(emu_vm_translate(&g->vm, NULL, m.va - 0x1000, 4) == NULL);
    /* Mapping outside any external range is refused; so is a second range
     * over the same addresses. */
    CHECK_EQ(nvdrv_uvm_map_external_allocation(d, h->uuid, 0x3000000000ull, 0x1000, m.handle),
             NV_ERR_INVALID_ADDRESS);
    CHECK_EQ(nvdrv_uvm_create_external_range(d, m.va, 0x1000), NV_ERR_UVM_ADDRESS_IN_USE);
    /* One mapping context per fd. */
    int fd = nvdrv_open_gpu_fd(d, 0);
    CHECK(fd >= 0);
    nv_ioctl_nvos33_parameters_with_fd mp = {
        .params = {.hClient = d->client, .hDevice = h->device, .hMemory = m.handle,
                   .length = m.size},
        .fd = fd};
    CHECK_EQ(nvdrv_escape(d, d->ctl_fd, NV_ESC_RM_MAP_MEMORY, &mp, sizeof(mp)), 0);
    CHECK_EQ(mp.params.status, 0);
    CHECK_EQ(nvdrv_escape(d, d->ctl_fd, NV_ESC_RM_MAP_MEMORY, &mp, sizeof(mp)), 0);
    CHECK_EQ(mp.params.status, NV_ERR_STATE_IN_USE);
    /* The vma must match the mapped length. */
    CHECK(d->ops->mmap(d->ctx, NULL, m.size / 2, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
    uint8_t *view = d->ops->mmap(d->ctx, NULL, m.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(view != MAP_FAILED);
    nvdrv_close_fd(d, fd);
    CHECK_EQ(view[0x100], 0x77); /* still usable after the fd is gone */
    d->ops->munmap(d->ctx, view, m.size);
    /* Escapes that belong on the ctl fd fail elsewhere, and vice versa. */
    NVOS00_PARAMETERS fp = {.hRoot = d->client, .hObjectParent = h->device, .hObjectOld = 1};
    CHECK_EQ(nvdrv_escape(d, h->gpu_fd, NV_ESC_RM_FREE, &fp, sizeof(fp)), -EINVAL);
    CHECK_EQ(nvdrv_escape(d, d->ctl_fd, NV_ESC_RM_FREE, &fp, 12), -EINVAL);
    /* UVM_FREE drops the translation. */
    uint64_t va = m.va;
    h_free(h, &m);
    CHECK(emu_vm_translate(&g->vm, NULL, va, 4) == NULL);
    CHECK_EQ(nvdrv_uvm_free(d, va, 0x1000), NV_ERR_INVALID_ADDRESS);

    /* OS-descriptor memory: the caller's own pages, which must exist. */
    long ps = sysconf(_SC_PAGESIZE);
    uint8_t *user = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(user != MAP_FAILED);
    uint32_t hos = 0;
    CHECK_EQ(nvdrv_rm_alloc_os_memory(d, h->gpu_fd, h->device, user, 2 * ps, &hos), 0);
    uint64_t uva = 0x1f00000000ull;
    CHECK_EQ(nvdrv_uvm_create_external_range(d, uva, 2 * ps), 0);
    CHECK_EQ(nvdrv_uvm_map_external_allocation(d, h->uuid, uva, 2 * ps, hos), 0);
    uint32_t *gp = emu_vm_translate(&g->vm, NULL, uva + 4, 4);
    CHECK((uint8_t *)gp == user + 4);
    CHECK_EQ(nvdrv_uvm_free(d, uva, 2 * ps), 0);
    CHECK_EQ(nvdrv_rm_free(d, h->device, hos), 0);
    munmap(user, 2 * ps);
    uint32_t hbad = 0;
    CHECK_EQ(nvdrv_rm_alloc_os_memory(d, h->gpu_fd, h->device, user, 2 * ps, &hbad),
             NV_ERR_INVALID_ADDRESS);
}

/* Copy engines: the engine list and caps, and the runlist rules: a
 * copy-engine group names its VA space, its channel takes its engine,
 * compute refuses it, the copy object must name the channel's engine; a
 * graphics group registers with UVM only once it has a compute object. */
static void test_copy_engines(struct harness *h)
{
    struct nvdrv *d = &h->d;
    NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS e = {0};
    CHECK_EQ(nvdrv_rm_control(d, h->subdevice, NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, &e, sizeof(e)),
             0);
    unsigned ncopy = 0, nasync = 0;
    for (uint32_t i = 0; i < e.engineCount; i++) {
        if (!NV2080_ENGINE_TYPE_IS_COPY(e.engineList[i]))
            continue;
        ncopy++;
        NV2080_CTRL_CE_GET_CAPS_V2_PARAMS c = {.ceEngineType = e.engineList[i]};
        CHECK_EQ(nvdrv_rm_control(d, h->subdevice, NV2080_CTRL_CMD_CE_GET_CAPS_V2, &c, sizeof(c)),
                 0);
        nasync += !(c.capsTbl[0] & NV2080_CTRL_CE_CAPS0_GRCE);
    }
    CHECK_EQ(ncopy, 10);
    CHECK_EQ(nasync, 9);
    NV2080_CTRL_CE_GET_CAPS_V2_PARAMS bad = {.ceEngineType = NV2080_ENGINE_TYPE_GRAPHICS};
    CHECK_EQ(nvdrv_rm_control(d, h->subdevice, NV2080_CTRL_CMD_CE_GET_CAPS_V2, &bad, sizeof(bad)),
             NV_ERR_INVALID_ARGUMENT);

    const uint32_t ce = NV2080_ENGINE_TYPE_COPY(4);
    uint32_t g = 0, g_novas = 0, g_grce = 0;
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = ce};
    CHECK_EQ(nvdrv_rm_alloc(d, h->device, KEPLER_CHANNEL_GROUP_A, &gp, sizeof(gp), &g_novas),
             NV_ERR_INVALID_OBJECT_HANDLE);
    gp.hVASpace = h->vaspace;
    gp.engineType = NV2080_ENGINE_TYPE_COPY(0); /* the graphics copy engine has no runlist */
    CHECK_EQ(nvdrv_rm_alloc(d, h->device, KEPLER_CHANNEL_GROUP_A, &gp, sizeof(gp), &g_grce),
             NV_ERR_INVALID_ARGUMENT);
    gp.engineType = ce;
    CHECK_EQ(nvdrv_rm_alloc(d, h->device, KEPLER_CHANNEL_GROUP_A, &gp, sizeof(gp), &g), 0);
    struct h_mem notifier;
    h_alloc(h, 0x1000, true, &notifier);
    const uint64_t off = 14 * 0x4000ull;
    NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS p = {
        .hObjectError = notifier.handle,
        .hObjectBuffer = h->gpfifo.handle,
        .gpFifoOffset = h->gpfifo.va + off,
        .gpFifoEntries = 256,
        .engineType = NV2080_ENGINE_TYPE_COPY(5),
    };
    p.hUserdMemory[0] = h->gpfifo.handle;
    p.userdOffset[0] = off + 0x2000;
    uint32_t ch = 0, obj = 0;
    CHECK_EQ(nvdrv_rm_alloc(d, g, HOPPER_CHANNEL_GPFIFO_A, &p, sizeof(p), &ch),
             NV_ERR_INVALID_ARGUMENT); /* not the group's engine */
    p.engineType = ce;
    CHECK_EQ(nvdrv_rm_alloc(d, g, HOPPER_CHANNEL_GPFIFO_A, &p, sizeof(p), &ch), 0);
    CHECK_EQ(nvdrv_rm_alloc(d, ch, HOPPER_COMPUTE_A, NULL, 0, &obj), NV_ERR_INVALID_ARGUMENT);
    CHECK_EQ(nvdrv_rm_alloc(d, ch, HOPPER_DMA_COPY_A, NULL, 0, &obj), NV_ERR_INVALID_ARGUMENT);
    NVB0B5_ALLOCATION_PARAMETERS cp = {.version = NVB0B5_ALLOCATION_PARAMETERS_VERSION_1,
                                       .engineType = NV2080_ENGINE_TYPE_COPY(5)};
    CHECK_EQ(nvdrv_rm_alloc(d, ch, HOPPER_DMA_COPY_A, &cp, sizeof(cp), &obj),
             NV_ERR_INVALID_ARGUMENT);
    cp.engineType = ce;
    CHECK_EQ(nvdrv_rm_alloc(d, ch, HOPPER_DMA_COPY_A, &cp, sizeof(cp), &obj), 0);
    const uint64_t range = 0x1d00000000ull;
    CHECK_EQ(nvdrv_uvm_register_channel(d, h->uuid, ch, range, 0x4000000), 0);
    CHECK_EQ(nvdrv_uvm_unregister_channel(d, h->uuid, ch), 0);
    CHECK_EQ(nvdrv_rm_free(d, h->device, g), 0);

    /* A copy channel alone in a graphics group: refused by UVM until the
     * group has a compute object. */
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gg = {.engineType = NV2080_ENGINE_TYPE_GRAPHICS};
    CHECK_EQ(nvdrv_rm_alloc(d, h->device, KEPLER_CHANNEL_GROUP_A, &gg, sizeof(gg), &g), 0);
    NV_CTXSHARE_ALLOCATION_PARAMETERS cs = {.hVASpace = h->vaspace, .flags = 1};
    uint32_t share = 0, gr = 0;
    CHECK_EQ(nvdrv_rm_alloc(d, g, FERMI_CONTEXT_SHARE_A, &cs, sizeof(cs), &share), 0);
    p.engineType = 0;
    p.hContextShare = share;
    CHECK_EQ(nvdrv_rm_alloc(d, g, HOPPER_CHANNEL_GPFIFO_A, &p, sizeof(p), &ch), 0);
    CHECK_EQ(nvdrv_rm_alloc(d, ch, HOPPER_DMA_COPY_A, &cp, sizeof(cp), &obj),
             NV_ERR_INVALID_ARGUMENT); /* an async engine on the graphics runlist */
    CHECK_EQ(nvdrv_rm_alloc(d, ch, HOPPER_DMA_COPY_A, NULL, 0, &obj), 0);
    CHECK_EQ(nvdrv_uvm_register_channel(d, h->uuid, ch, range, 0x4000000), NV_ERR_INVALID_OBJECT);
    CHECK_EQ(nvdrv_rm_alloc(d, ch, HOPPER_COMPUTE_A, NULL, 0, &gr), 0);
    CHECK_EQ(nvdrv_uvm_register_channel(d, h->uuid, ch, range, 0x4000000), 0);
    CHECK_EQ(nvdrv_uvm_unregister_channel(d, h->uuid, ch), 0);
    CHECK_EQ(nvdrv_rm_free(d, h->device, g), 0);
    h_free(h, &notifier);
}

static void test_uvm_rules(struct harness *h)
{
    struct nvdrv *d = &h->d;
    int fd = d->ops->open(d->ctx, NVDRV_PATH_UVM, 0);
    CHECK(fd >= 0);
    UVM_CREATE_EXTERNAL_RANGE_PARAMS r = {.base = 0x1e00000000ull, .length = 0x1000};
    CHECK_EQ(d->ops->ioctl(d->ctx, fd, UVM_CREATE_EXTERNAL_RANGE, &r), 0);
    CHECK_EQ(r.rmStatus, NV_ERR_ILLEGAL_ACTION); /* UVM_INITIALIZE comes first */
    UVM_INITIALIZE_PARAMS in = {0};
    CHECK_EQ(d->ops->ioctl(d->ctx, fd, UVM_INITIALIZE, &in), 0);
    CHECK_EQ(in.rmStatus, 0);
    CHECK_EQ(d->ops->ioctl(d->ctx, fd, UVM_CREATE_EXTERNAL_RANGE, &r), 0);
    CHECK_EQ(r.rmStatus, 0);
    UVM_REGISTER_GPU_PARAMS rg = {.rmCtrlFd = -1};
    memset(rg.gpu_uuid.uuid, 0xee, 16);
    CHECK_EQ(d->ops->ioctl(d->ctx, fd, UVM_REGISTER_GPU, &rg), 0);
    CHECK_EQ(rg.rmStatus, NV_ERR_GPU_UUID_NOT_FOUND);
    CHECK_EQ(d->ops->close(d->ctx, fd), 0); /* drops its ranges */
    CHECK_EQ(d->ops->close(d->ctx, fd), -EBADF);
}

static void test_ptimer(struct harness *h)
{
    volatile uint32_t *u = h->doorbell_page;
#define PTIMER()                                                                          \
    ((uint64_t)__atomic_load_n(&u[NVC361_TIME_1 / 4], __ATOMIC_ACQUIRE) << 32 |           \
     __atomic_load_n(&u[NVC361_TIME_0 / 4], __ATOMIC_RELAXED))
    uint64_t t0 = PTIMER(), t1 = t0;
    CHECK(t0 > 1600000000ull * 1000000000ull); /* reads like ns since the epoch */
    /* It advances (give a loaded machine up to a second). */
    for (int i = 0; i < 200 && t1 < t0 + 1000000; i++) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
        t1 = PTIMER();
    }
    CHECK(t1 >= t0 + 1000000);
#undef PTIMER
}

static void test_two_gpus(struct harness *h)
{
    nv_ioctl_card_info_t cards[NVDRV_MAX_CARDS];
    unsigned n = 0;
    CHECK_EQ(nvdrv_card_info(&h->d, cards, NVDRV_MAX_CARDS, &n), 0);
    CHECK_EQ(n, 2);
    CHECK(cards[0].pci_info.bus != cards[1].pci_info.bus);
    CHECK(cards[0].gpu_id != cards[1].gpu_id);
    CHECK(memcmp(emu.gpus[0].uuid, emu.gpus[1].uuid, 16) != 0);
    /* Peer access between the two is accepted. */
    uint8_t peer[36] = {0};
    memcpy(peer, emu.gpus[0].uuid, 16);
    memcpy(peer + 16, emu.gpus[1].uuid, 16);
    CHECK_EQ(nvdrv_ioctl(&h->d, h->d.uvm_fd, 29 /* UVM_ENABLE_PEER_ACCESS */, peer), 0);
    uint32_t st;
    memcpy(&st, peer + 32, 4);
    CHECK_EQ(st, 0);
}

int main(void)
{
    setenv("HCQCL_EMU_GPUS", "2", 1);
    struct harness h;
    h_init(&h);
    test_objects(&h);
    test_controls(&h);
    test_memory(&h);
    test_copy_engines(&h);
    test_uvm_rules(&h);
    test_ptimer(&h);
    test_two_gpus(&h);
    h_fini(&h);
    /* Closing the ctl fd freed the client tree: the workers are gone. */
    for (unsigned i = 0; i < emu.ngpus; i++) {
        CHECK(!emu.gpus[i].worker_running);
        CHECK_EQ(emu.gpus[i].users, 0);
        CHECK_EQ(emu.gpus[i].vm.n, 0);
        CHECK_EQ(atomic_load(&emu.gpus[i].mem_used), 0);
    }
    printf("emu_rm: ok\n");
    return 0;
}

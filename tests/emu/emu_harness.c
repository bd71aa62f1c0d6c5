/* Bring-up of the emulated device for the src/emu tests (emu_harness.h). */
#include "emu_harness.h"

#include <string.h>
#include <time.h>

#include "nv/nv.h"

#define H_RING_ENTRIES 256u
#define H_VA_BASE 0x1000000000ull

void h_alloc(struct harness *h, uint64_t size, bool sys, struct h_mem *m)
{
    memset(m, 0, sizeof(*m));
    m->size = (size + 0xfff) & ~0xfffull;
    NV_MEMORY_ALLOCATION_PARAMS p = {
        .owner = h->d.client,
        .type = sys ? NVOS32_TYPE_NOTIFIER : NVOS32_TYPE_IMAGE,
        .flags = 0x1C101,
        .attr = sys ? 0x1A000000u : 0x18000000u,
        .attr2 = sys ? 9u : 5u,
        .format = 6,
        .size = m->size,
        .alignment = 0x1000,
        .limit = m->size - 1,
    };
    CHECK_EQ(nvdrv_rm_alloc(&h->d, h->device, sys ? NV01_MEMORY_SYSTEM : NV01_MEMORY_LOCAL_USER, &p,
                            sizeof(p), &m->handle),
             0);
    void *cpu = NULL;
    CHECK_EQ(nvdrv_rm_map_memory(&h->d, sys ? NVDRV_MINOR_CTL : 0, h->device, m->handle, m->size,
                                 NULL, &cpu),
             0);
    m->cpu = cpu;
    m->va = h->next_va;
    h->next_va += (m->size + 0x1fffff) & ~0x1fffffull;
    CHECK_EQ(nvdrv_uvm_create_external_range(&h->d, m->va, m->size), 0);
    CHECK_EQ(nvdrv_rm_map_memory_dma(&h->d, h->device, h->virtmem, m->handle, m->size, m->va), 0);
    CHECK_EQ(nvdrv_uvm_map_external_allocation(&h->d, h->uuid, m->va, m->size, m->handle), 0);
}

void h_free(struct harness *h, struct h_mem *m)
{
    CHECK_EQ(nvdrv_uvm_free(&h->d, m->va, m->size), 0);
    CHECK_EQ(nvdrv_rm_free(&h->d, h->device, m->handle), 0);
    CHECK_EQ(nvdrv_munmap(&h->d, m->cpu, m->size), 0);
    memset(m, 0, sizeof(*m));
}

static void chan_create(struct harness *h, struct h_chan *c, unsigned idx, uint32_t engine_cls,
                        uint32_t subc, bool own_group, uint32_t chgrp, uint32_t ctxshare)
{
    memset(c, 0, sizeof(*c));
    if (own_group) {
        /* A channel error resets the whole channel group: a channel meant
         * to fail gets a group of its own. */
        NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS cg = {.engineType = NV2080_ENGINE_TYPE_GRAPHICS};
        chgrp = ctxshare = 0;
        CHECK_EQ(nvdrv_rm_alloc(&h->d, h->device, KEPLER_CHANNEL_GROUP_A, &cg, sizeof(cg), &chgrp),
                 0);
        NV_CTXSHARE_ALLOCATION_PARAMETERS cs = {.hVASpace = h->vaspace, .flags = 1};
        CHECK_EQ(nvdrv_rm_alloc(&h->d, chgrp, FERMI_CONTEXT_SHARE_A, &cs, sizeof(cs), &ctxshare),
                 0);
    }
    c->chgrp = chgrp;
    c->ctxshare = ctxshare;
    h_alloc(h, 0x1000, true, &c->notifier);
    c->entries = H_RING_ENTRIES;
    uint64_t ring_off = idx * 0x4000ull;
    c->ring_va = h->gpfifo.va + ring_off;
    c->ring = (uint64_t *)(h->gpfifo.cpu + ring_off);
    c->userd = (volatile uint32_t *)(h->gpfifo.cpu + ring_off + 0x2000);
    NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS p = {
        .hObjectError = c->notifier.handle,
        .hObjectBuffer = h->gpfifo.handle,
        .gpFifoOffset = c->ring_va,
        .gpFifoEntries = c->entries,
        .hContextShare = ctxshare,
    };
    p.hUserdMemory[0] = h->gpfifo.handle;
    p.userdOffset[0] = ring_off + 0x2000;
    CHECK_EQ(nvdrv_rm_alloc(&h->d, chgrp, HOPPER_CHANNEL_GPFIFO_A, &p, sizeof(p), &c->handle), 0);
    uint32_t obj = 0;
    CHECK_EQ(nvdrv_rm_alloc(&h->d, c->handle, engine_cls, NULL, 0, &obj), 0);
    NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS t = {.workSubmitToken = ~0u};
    CHECK_EQ(nvdrv_rm_control(&h->d, c->handle, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &t,
                              sizeof(t)),
             0);
    c->token = t.workSubmitToken;
    if (own_group) {
        NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS sch = {.bEnable = 1};
        CHECK_EQ(nvdrv_rm_control(&h->d, chgrp, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sch, sizeof(sch)),
                 0);
    } else {
        /* A channel joining a group scheduled before it is scheduled by
         * itself (the group schedule took only the channels then). */
        NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS sch = {.bEnable = 1};
        CHECK_EQ(nvdrv_rm_control(&h->d, c->handle, NVA06F_CTRL_CMD_GPFIFO_SCHEDULE, &sch,
                                  sizeof(sch)),
                 0);
    }
    h_begin(h, c);
    h_word(c, nv_mthd_incr(subc, 0, 1));
    h_word(c, engine_cls);
    h_submit(h, c);
}

void h_chan_init(struct harness *h, struct h_chan *c, unsigned idx, uint32_t engine_cls,
                 uint32_t subc, bool own_group)
{
    chan_create(h, c, idx, engine_cls, subc, own_group, h->chgrp, h->ctxshare);
}

void h_chan_join(struct harness *h, struct h_chan *c, unsigned idx, uint32_t engine_cls,
                 uint32_t subc, const struct h_chan *sibling)
{
    chan_create(h, c, idx, engine_cls, subc, false, sibling->chgrp, sibling->ctxshare);
}

void h_init(struct harness *h)
{
    memset(h, 0, sizeof(*h));
    /* HCQCL_DEVICE=nv runs the same checks on the real driver and GPU:
     * that is how the model's semantics are held to the hardware's. */
    void *ctx = NULL;
    const char *dev = getenv("HCQCL_DEVICE");
    const struct nvdrv_ops *ops = dev && !strcmp(dev, "nv") ? &nvdrv_kernel_ops : emu_ops(&ctx);
    CHECK_EQ(nvdrv_open(&h->d, ops, ctx), 0);
    nv_ioctl_card_info_t cards[NVDRV_MAX_CARDS];
    unsigned n = 0;
    CHECK_EQ(nvdrv_card_info(&h->d, cards, NVDRV_MAX_CARDS, &n), 0);
    CHECK(n >= 1);
    h->gpu_fd = nvdrv_open_gpu_fd(&h->d, cards[0].minor_number);
    CHECK(h->gpu_fd >= 0);
    NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS id = {.gpuId = cards[0].gpu_id};
    CHECK_EQ(nvdrv_rm_control(&h->d, h->d.client, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &id,
                              sizeof(id)),
             0);
    NV0080_ALLOC_PARAMETERS dp = {.deviceId = id.deviceInstance, .hClientShare = h->d.client};
    CHECK_EQ(nvdrv_rm_alloc(&h->d, h->d.client, NV01_DEVICE_0, &dp, sizeof(dp), &h->device), 0);
    NV2080_ALLOC_PARAMETERS sp = {0};
    CHECK_EQ(nvdrv_rm_alloc(&h->d, h->device, NV20_SUBDEVICE_0, &sp, sizeof(sp), &h->subdevice),
             0);
    NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS vm = {.limit = 0x1ffffffffffffull};
    CHECK_EQ(nvdrv_rm_alloc(&h->d, h->device, NV01_MEMORY_VIRTUAL, &vm, sizeof(vm), &h->virtmem),
             0);
    CHECK_EQ(nvdrv_rm_alloc(&h->d, h->subdevice, HOPPER_USERMODE_A, NULL, 0, &h->usermode), 0);
    void *um = NULL;
    CHECK_EQ(nvdrv_rm_map_memory(&h->d, 0, h->device, h->usermode, NVC361_USERMODE_SIZE, NULL, &um),
             0);
    h->doorbell_page = um;
    NV2080_CTRL_GPU_GET_GID_INFO_PARAMS gid = {.flags = NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY,
                                               .length = 16};
    CHECK_EQ(nvdrv_rm_control(&h->d, h->subdevice, NV2080_CTRL_CMD_GPU_GET_GID_INFO, &gid,
                              sizeof(gid)),
             0);
    memcpy(h->uuid, gid.data, 16);
    NV_VASPACE_ALLOCATION_PARAMETERS vs = {.flags = 0x48, .vaSize = 0x1fffffb000000ull,
                                           .vaBase = 0x1000};
    CHECK_EQ(nvdrv_rm_alloc(&h->d, h->device, FERMI_VASPACE_A, &vs, sizeof(vs), &h->vaspace), 0);
    CHECK_EQ(nvdrv_uvm_register_gpu(&h->d, h->uuid), 0);
    CHECK_EQ(nvdrv_uvm_register_gpu_vaspace(&h->d, h->uuid, h->vaspace), 0);
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS cg = {.engineType = NV2080_ENGINE_TYPE_GRAPHICS};
    CHECK_EQ(nvdrv_rm_alloc(&h->d, h->device, KEPLER_CHANNEL_GROUP_A, &cg, sizeof(cg), &h->chgrp),
             0);
    NV_CTXSHARE_ALLOCATION_PARAMETERS cs = {.hVASpace = h->vaspace, .flags = 1};
    CHECK_EQ(nvdrv_rm_alloc(&h->d, h->chgrp, FERMI_CONTEXT_SHARE_A, &cs, sizeof(cs), &h->ctxshare),
             0);
    h->next_va = H_VA_BASE;
    h_alloc(h, 0x40000, false, &h->gpfifo);
    h_alloc(h, 0x100000, false, &h->pbpool);
    h_chan_init(h, &h->compute, 0, HOPPER_COMPUTE_A, NV_SUBC_COMPUTE, false);
    h_chan_init(h, &h->copy, 1, HOPPER_DMA_COPY_A, NV_SUBC_COPY, false);
    NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS sch = {.bEnable = 1};
    CHECK_EQ(nvdrv_rm_control(&h->d, h->chgrp, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sch, sizeof(sch)),
             0);
}

void h_fini(struct harness *h)
{
    nvdrv_munmap(&h->d, (void *)h->doorbell_page, NVC361_USERMODE_SIZE);
    nvdrv_close_fd(&h->d, h->gpu_fd);
    /* The client's tree (channels, memory) goes with it; CPU views stay
     * until unmapped, as with the real driver. */
    nvdrv_munmap(&h->d, h->gpfifo.cpu, h->gpfifo.size);
    nvdrv_munmap(&h->d, h->pbpool.cpu, h->pbpool.size);
    nvdrv_munmap(&h->d, h->compute.notifier.cpu, h->compute.notifier.size);
    nvdrv_munmap(&h->d, h->copy.notifier.cpu, h->copy.notifier.size);
    nvdrv_close(&h->d);
}

void h_begin(struct harness *h, struct h_chan *c)
{
    if (h->pb_off + 0x10000 > h->pbpool.size)
        h->pb_off = 0; /* tests wait for each submission before wrapping */
    c->pb = (uint32_t *)(h->pbpool.cpu + h->pb_off);
    c->pb_va = h->pbpool.va + h->pb_off;
    c->n = 0;
    h->pb_off += 0x10000;
}

void h_word(struct h_chan *c, uint32_t w)
{
    CHECK(c->n < 0x4000);
    c->pb[c->n++] = w;
}

void h_incr(struct h_chan *c, uint32_t subc, uint32_t method, unsigned n, const uint32_t *data)
{
    h_word(c, nv_mthd_incr(subc, method, n));
    for (unsigned i = 0; i < n; i++)
        h_word(c, data[i]);
}

void h_submit(struct harness *h, struct h_chan *c)
{
    c->ring[c->put % c->entries] = nv_gp_entry(c->pb_va, c->n);
    c->put++;
    __atomic_store_n(&c->userd[NV_USERD_GP_PUT / 4], c->put % c->entries, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&h->doorbell_page[NVC361_NOTIFY_CHANNEL_PENDING / 4], c->token,
                     __ATOMIC_RELEASE);
}

void h_release(struct h_chan *c, uint64_t va, uint64_t value)
{
    uint32_t w[5] = {(uint32_t)va, (uint32_t)(va >> 32), (uint32_t)value, (uint32_t)(value >> 32),
                     NV_SEM_EXECUTE_RELEASE_64_TS};
    h_incr(c, NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, 5, w);
}

void h_acquire(struct h_chan *c, uint64_t va, uint64_t value)
{
    uint32_t w[5] = {(uint32_t)va, (uint32_t)(va >> 32), (uint32_t)value, (uint32_t)(value >> 32),
                     NV_SEM_EXECUTE_ACQ_CIRC_GEQ_64};
    h_incr(c, NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, 5, w);
}

bool h_wait64(volatile uint64_t *p, uint64_t value)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != value) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 5)
            return false;
        struct timespec ns = {0, 20000};
        nanosleep(&ns, NULL);
    }
    return true;
}

uint16_t h_notifier_status(const struct h_chan *c)
{
    return __atomic_load_n((const uint16_t *)(c->notifier.cpu + 14), __ATOMIC_ACQUIRE);
}

uint32_t h_notifier_info32(const struct h_chan *c)
{
    uint32_t v;
    memcpy(&v, c->notifier.cpu + 8, 4);
    return v;
}

/*
 * UVM ioctls of the emulated driver: initialisation, GPU / VA space /
 * channel registration, external ranges and the GPU mappings that fill
 * each GPU's page table (emu_vm.c). Runs with emu.lock held.
 *
 * As in the real UVM driver, UVM_INITIALIZE must be the first ioctl on
 * the fd (anything else answers NV_ERR_ILLEGAL_ACTION), mappings must lie
 * inside an external range created on the same fd, and UVM_FREE takes the
 * base of such a range and drops every GPU mapping inside it.
 */
#include "nvdrv/nvdrv.h"

#include "emu/emu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EMU_UVM_ENABLE_PEER_ACCESS 29
#define EMU_UVM_DISABLE_PEER_ACCESS 30
#define EMU_UVM_PEER_ACCESS_SIZE 36
#define EMU_UVM_PAGE 4096ull

struct emu_gpu *emu_gpu_by_uuid(const uint8_t uuid[16])
{
    for (unsigned i = 0; i < emu.ngpus; i++)
        if (!memcmp(emu.gpus[i].uuid, uuid, 16))
            return &emu.gpus[i];
    return NULL;
}

int emu_gpu_drop_doorbells(const uint8_t uuid[16], unsigned n)
{
    struct emu_gpu *g = emu_gpu_by_uuid(uuid);
    if (!g)
        return -ENODEV;
    atomic_store(&g->drop_doorbells, n);
    return 0;
}

/* Index of the external range containing [base, base+len), or -1. */
static long xr_find(const struct emu_fd *f, uint64_t base, uint64_t len)
{
    for (size_t i = 0; i < f->nxr; i++)
        if (base >= f->xr[i].base && base - f->xr[i].base < f->xr[i].len &&
            len <= f->xr[i].len - (base - f->xr[i].base))
            return (long)i;
    return -1;
}

static bool xr_overlaps(const struct emu_fd *f, uint64_t base, uint64_t len)
{
    for (size_t i = 0; i < f->nxr; i++)
        if (base < f->xr[i].base + f->xr[i].len && f->xr[i].base < base + len)
            return true;
    return false;
}

/* A VA range UVM takes: page-aligned, not empty, not wrapping. */
static bool range_bad(uint64_t base, uint64_t len)
{
    return !len || (base | len) & (EMU_UVM_PAGE - 1) || base + len < base;
}

static uint32_t create_range(struct emu_fd *f, UVM_CREATE_EXTERNAL_RANGE_PARAMS *p)
{
    if (range_bad(p->base, p->length))
        return NV_ERR_INVALID_ADDRESS;
    if (xr_overlaps(f, p->base, p->length))
        return NV_ERR_UVM_ADDRESS_IN_USE; /* the VA space is the process's */
    if (f->nxr == f->cap_xr) {
        size_t cap = f->cap_xr ? f->cap_xr * 2 : 32;
        void *v = realloc(f->xr, cap * sizeof(*f->xr));
        if (!v)
            return NV_ERR_NO_MEMORY;
        f->xr = v;
        f->cap_xr = cap;
    }
    f->xr[f->nxr].base = p->base;
    f->xr[f->nxr].len = p->length;
    f->nxr++;
    return NV_OK;
}

static uint32_t map_external(int fd, struct emu_fd *f, UVM_MAP_EXTERNAL_ALLOCATION_PARAMS *p)
{
    if (!p->length || (p->base | p->length | p->offset) & (EMU_UVM_PAGE - 1) ||
        xr_find(f, p->base, p->length) < 0)
        return NV_ERR_INVALID_ADDRESS;
    if (!p->gpuAttributesCount || p->gpuAttributesCount > UVM_MAX_GPUS_V2)
        return NV_ERR_INVALID_ARGUMENT;
    struct emu_obj *o = emu_rm_find(p->rmCtrlFd, p->hClient, p->hMemory);
    if (!o || !o->mem)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    if (p->offset > o->mem->size || p->length > o->mem->size - p->offset)
        return NV_ERR_INVALID_LIMIT;
    struct emu_gpu *gpus[UVM_MAX_GPUS_V2];
    for (uint64_t i = 0; i < p->gpuAttributesCount; i++) {
        gpus[i] = emu_gpu_by_uuid(p->perGpuAttributes[i].gpuUuid.uuid);
        if (!gpus[i] || !(f->gpu_mask & (1u << gpus[i]->index)))
            return NV_ERR_INVALID_DEVICE;
    }
    for (uint64_t i = 0; i < p->gpuAttributesCount; i++) {
        int rc = emu_vm_map(&gpus[i]->vm, p->base, p->length, o->mem->host + p->offset, o->mem, fd);
        if (rc) {
            for (uint64_t j = 0; j < i; j++)
                emu_vm_unmap(&gpus[j]->vm, p->base, p->length);
            return rc == -ENOMEM ? NV_ERR_NO_MEMORY : NV_ERR_UVM_ADDRESS_IN_USE;
        }
    }
    return NV_OK;
}

static uint32_t uvm_free(struct emu_fd *f, UVM_FREE_PARAMS *p)
{
    for (size_t i = 0; i < f->nxr; i++)
        if (f->xr[i].base == p->base) {
            for (unsigned g = 0; g < emu.ngpus; g++)
                emu_vm_unmap(&emu.gpus[g].vm, f->xr[i].base, f->xr[i].len);
            f->xr[i] = f->xr[--f->nxr];
            return NV_OK;
        }
    return NV_ERR_INVALID_ADDRESS;
}

static uint32_t gpu_bit(struct emu_fd *f, const uint8_t uuid[16], unsigned *bit)
{
    struct emu_gpu *g = emu_gpu_by_uuid(uuid);
    if (!g)
        return NV_ERR_GPU_UUID_NOT_FOUND;
    *bit = 1u << g->index;
    return NV_OK;
}

static uint32_t check_object(const UVM_REGISTER_GPU_VASPACE_PARAMS *p, uint32_t cls)
{
    struct emu_obj *o = emu_rm_find(p->rmCtrlFd, p->hClient, p->hVaSpace);
    return o && o->cls == cls ? NV_OK : NV_ERR_INVALID_OBJECT_HANDLE;
}

void emu_uvm_close_fd(int fd)
{
    struct emu_fd *f = emu_fd_get(fd);
    for (unsigned g = 0; g < emu.ngpus; g++)
        emu_vm_unmap_owner(&emu.gpus[g].vm, fd);
    free(f->xr);
    f->xr = NULL;
    f->nxr = f->cap_xr = 0;
}

int emu_uvm_ioctl(int fd, unsigned long cmd, void *arg)
{
    struct emu_fd *f = emu_fd_get(fd);
    unsigned bit = 0;
    if (cmd == UVM_INITIALIZE) {
        UVM_INITIALIZE_PARAMS *p = arg;
        p->rmStatus = f->uvm_init || f->uvm_mm ? NV_ERR_ILLEGAL_ACTION : NV_OK;
        f->uvm_init = true;
        return 0;
    }
    if (cmd == UVM_MM_INITIALIZE) {
        UVM_MM_INITIALIZE_PARAMS *p = arg;
        struct emu_fd *a = emu_fd_get(p->uvmFd);
        if (!a || a->kind != EMU_FD_UVM || !a->uvm_init || f->uvm_init || f->uvm_mm)
            p->rmStatus = NV_ERR_INVALID_ARGUMENT;
        else {
            p->rmStatus = NV_OK;
            f->uvm_mm = true;
        }
        return 0;
    }
    /* Every other command needs UVM_INITIALIZE first; its rmStatus sits
     * at a per-struct offset. */
#define STATUS(type, st)                                                                  \
    do {                                                                                  \
        ((type *)arg)->rmStatus = f->uvm_init ? (st) : NV_ERR_ILLEGAL_ACTION;             \
        return 0;                                                                         \
    } while (0)
    switch (cmd) {
    case UVM_REGISTER_GPU: {
        UVM_REGISTER_GPU_PARAMS *p = arg;
        uint32_t st = f->uvm_init ? gpu_bit(f, p->gpu_uuid.uuid, &bit) : NV_ERR_ILLEGAL_ACTION;
        if (st == NV_OK) {
            f->gpu_mask |= bit;
            p->numaEnabled = 0;
            p->numaNodeId = -1;
        }
        p->rmStatus = st;
        return 0;
    }
    case UVM_UNREGISTER_GPU: {
        UVM_UNREGISTER_GPU_PARAMS *p = arg;
        uint32_t st = gpu_bit(f, p->gpu_uuid.uuid, &bit);
        if (st == NV_OK)
            f->gpu_mask &= ~bit;
        STATUS(UVM_UNREGISTER_GPU_PARAMS, st);
    }
    case UVM_REGISTER_GPU_VASPACE: {
        UVM_REGISTER_GPU_VASPACE_PARAMS *p = arg;
        uint32_t st = gpu_bit(f, p->gpuUuid.uuid, &bit);
        if (st == NV_OK)
            st = check_object(p, FERMI_VASPACE_A);
        STATUS(UVM_REGISTER_GPU_VASPACE_PARAMS, st);
    }
    case UVM_UNREGISTER_GPU_VASPACE:
        STATUS(UVM_UNREGISTER_GPU_VASPACE_PARAMS,
               gpu_bit(f, ((UVM_UNREGISTER_GPU_VASPACE_PARAMS *)arg)->gpuUuid.uuid, &bit));
    case UVM_REGISTER_CHANNEL: {
        UVM_REGISTER_CHANNEL_PARAMS *p = arg;
        struct emu_obj *o = emu_rm_find(p->rmCtrlFd, p->hClient, p->hChannel);
        uint32_t st = gpu_bit(f, p->gpuUuid.uuid, &bit);
        if (st == NV_OK && (!o || !o->chan))
            st = NV_ERR_INVALID_OBJECT_HANDLE;
        /* UVM puts the channel's buffers into free space of the window:
         * below 2^40 (max_channel_va) and clear of external ranges here. */
        else if (st == NV_OK && (range_bad(p->base, p->length) ||
                                 p->base + p->length > (1ull << 40) ||
                                 xr_overlaps(f, p->base, p->length)))
            st = NV_ERR_INVALID_ADDRESS;
        /* UVM retains a graphics channel's context buffers; a graphics
         * group without a compute object has none [H200: a lone copy
         * channel in a graphics group was refused this way]. */
        else if (st == NV_OK && o->engine == NV2080_ENGINE_TYPE_GRAPHICS &&
                 o->parent->cls == KEPLER_CHANNEL_GROUP_A && !o->parent->gr_ctx)
            st = NV_ERR_INVALID_OBJECT;
        STATUS(UVM_REGISTER_CHANNEL_PARAMS, st);
    }
    case UVM_UNREGISTER_CHANNEL:
        STATUS(UVM_UNREGISTER_CHANNEL_PARAMS,
               gpu_bit(f, ((UVM_UNREGISTER_CHANNEL_PARAMS *)arg)->gpuUuid.uuid, &bit));
    case EMU_UVM_ENABLE_PEER_ACCESS:
    case EMU_UVM_DISABLE_PEER_ACCESS: {
        /* {uuid A, uuid B, rmStatus}: both GPUs must exist. */
        uint8_t *p = arg;
        uint32_t st = gpu_bit(f, p, &bit);
        if (st == NV_OK)
            st = gpu_bit(f, p + 16, &bit);
        memcpy(p + 32, f->uvm_init ? &st : &(uint32_t){NV_ERR_ILLEGAL_ACTION}, 4);
        return 0;
    }
    case UVM_CREATE_EXTERNAL_RANGE:
        STATUS(UVM_CREATE_EXTERNAL_RANGE_PARAMS,
               f->uvm_init ? create_range(f, arg) : NV_ERR_ILLEGAL_ACTION);
    case UVM_MAP_EXTERNAL_ALLOCATION:
        STATUS(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS,
               f->uvm_init ? map_external(fd, f, arg) : NV_ERR_ILLEGAL_ACTION);
    case UVM_FREE:
        STATUS(UVM_FREE_PARAMS, f->uvm_init ? uvm_free(f, arg) : NV_ERR_ILLEGAL_ACTION);
    default:
        return -EINVAL;
    }
#undef STATUS
}

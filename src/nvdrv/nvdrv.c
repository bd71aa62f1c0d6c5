/* Thin wrappers over the seam: escapes, RM alloc/control/free/map, UVM. */
#include "nvdrv/nvdrv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/util.h"

#define NVDRV_LOG(...) UTIL_LOG(UTIL_LOG_NVDRV, __VA_ARGS__)

/* ABI majors whose layouts this file implements. 570 differs in NVOS46,
 * the VA-space and schedule params; 610 shifts the channel-alloc struct
 * and shrinks UVM_FREE. */
static bool major_supported(unsigned major) { return major == 580; }

/* First handle of the client-chosen range: far from the 0xC1D0xxxx /
 * 0xCAF0xxxx handles RM hands out. */
#define NVDRV_HANDLE_BASE 0x4C430000u

int nvdrv_errno(int r)
{
    if (r <= 0)
        return r;
    return r == NV_ERR_NO_MEMORY ? -ENOMEM : -EIO;
}

/* fork(): the child shares the parent's driver connection (the RM
 * client's and UVM's file descriptions) but not its threads, and it has
 * a copy of what the parent made there: a call of the child's could free
 * the parent's objects, or collide with its handles. After a fork no
 * call reaches the driver from the child. */
static atomic_bool forked;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void on_fork_child(void) { atomic_store(&forked, true); }
static void atfork_register(void) { pthread_atfork(NULL, NULL, on_fork_child); }

bool nvdrv_forked(void) { return atomic_load(&forked); }

int nvdrv_ioctl(struct nvdrv *d, int fd, unsigned long request, void *arg)
{
    if (atomic_load(&forked)) {
        static atomic_bool said;
        if (!atomic_exchange(&said, true))
            util_log(UTIL_LOG_ERR, "nvdrv: this process was forked from one that had opened the "
                                   "driver: its connection is the parent's, and the child makes "
                                   "no driver calls on it");
        return -EPERM;
    }
    int r;
    unsigned again = 0;
    /* Like drmIoctl: a signal may interrupt the call before RM ran it.
     * EAGAIN is retried too, but not forever. */
    do {
        r = d->ops->ioctl(d->ctx, fd, request, arg);
    } while (r == -EINTR || (r == -EAGAIN && ++again < 1000));
    return r;
}

int nvdrv_escape(struct nvdrv *d, int fd, unsigned nr, void *arg, size_t size)
{
    return nvdrv_ioctl(d, fd, NVDRV_ESC_REQUEST(nr, size), arg);
}

static int open_fd(struct nvdrv *d, const char *path)
{
    return d->ops->open(d->ctx, path, O_RDWR | O_CLOEXEC);
}

void nvdrv_close_fd(struct nvdrv *d, int fd)
{
    if (fd >= 0)
        d->ops->close(d->ctx, fd);
}

uint32_t nvdrv_new_handle(struct nvdrv *d)
{
    return __atomic_fetch_add(&d->next_handle, 1, __ATOMIC_RELAXED);
}

int nvdrv_rm_alloc(struct nvdrv *d, uint32_t parent, uint32_t cls, void *params,
                   uint32_t params_size, uint32_t *handle)
{
    NVOS21_PARAMETERS p = {
        .hRoot = d->client,
        .hObjectParent = parent,
        .hObjectNew = *handle,
        .hClass = cls,
        .pAllocParms = (uint64_t)(uintptr_t)params,
        .paramsSize = params_size,
    };
    int r = nvdrv_escape(d, d->ctl_fd, NV_ESC_RM_ALLOC, &p, sizeof(p));
    if (r == 0 && p.status != NV_OK)
        r = (int)p.status;
    if (r) {
        NVDRV_LOG("RM_ALLOC class 0x%x parent 0x%x: %s", cls, parent,
                  r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
        return r;
    }
    *handle = p.hObjectNew;
    NVDRV_LOG("RM_ALLOC class 0x%x parent 0x%x -> 0x%x", cls, parent, p.hObjectNew);
    return 0;
}

int nvdrv_event_open(struct nvdrv *d, int *fd)
{
    *fd = -1;
    int f = open_fd(d, NVDRV_PATH_CTL);
    if (f < 0)
        return f;
    /* The registration is keyed by (client, fd number): the number of the
     * fd it is issued on is as good a key as any, and unique. */
    nv_ioctl_alloc_os_event_t a = {.hClient = d->client, .fd = (uint32_t)f};
    int r = nvdrv_escape(d, f, NV_ESC_ALLOC_OS_EVENT, &a, sizeof(a));
    if (r == 0 && a.Status != NV_OK)
        r = (int)a.Status;
    if (r) {
        NVDRV_LOG("ALLOC_OS_EVENT: %s", r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
        nvdrv_close_fd(d, f);
        return r;
    }
    *fd = f;
    return 0;
}

int nvdrv_event_attach(struct nvdrv *d, int fd, uint32_t subdevice, uint32_t notify,
                       uint32_t *handle)
{
    NV0005_ALLOC_PARAMETERS p = {
        .hParentClient = d->client,
        .hSrcResource = subdevice,
        .hClass = NV01_EVENT_OS_EVENT,
        .notifyIndex = notify | NV01_EVENT_NONSTALL_INTR | NV01_EVENT_WITHOUT_EVENT_DATA,
        .data = (uint64_t)(uint32_t)fd,
    };
    *handle = 0;
    return nvdrv_rm_alloc(d, subdevice, NV01_EVENT_OS_EVENT, &p, sizeof(p), handle);
}

int nvdrv_event_wait(struct nvdrv *d, int fd, uint64_t timeout_ns)
{
    return d->ops->poll(d->ctx, fd, timeout_ns);
}

int nvdrv_event_poke(struct nvdrv *d, int fd) { return d->ops->poke(d->ctx, fd); }

void nvdrv_event_close(struct nvdrv *d, int fd)
{
    if (fd < 0)
        return;
    nv_ioctl_alloc_os_event_t a = {.hClient = d->client, .fd = (uint32_t)fd};
    int r = nvdrv_escape(d, fd, NV_ESC_FREE_OS_EVENT, &a, sizeof(a));
    if (r || a.Status != NV_OK)
        NVDRV_LOG("FREE_OS_EVENT: %s", r ? strerror(-r) : nvdrv_status_name(a.Status));
    nvdrv_close_fd(d, fd);
}

int nvdrv_rm_control(struct nvdrv *d, uint32_t object, uint32_t cmd, void *params,
                     uint32_t params_size)
{
    NVOS54_PARAMETERS p = {
        .hClient = d->client,
        .hObject = object,
        .cmd = cmd,
        .params = (uint64_t)(uintptr_t)params,
        .paramsSize = params_size,
    };
    int r = nvdrv_escape(d, d->ctl_fd, NV_ESC_RM_CONTROL, &p, sizeof(p));
    if (r == 0 && p.status != NV_OK)
        r = (int)p.status;
    if (r)
        NVDRV_LOG("RM_CONTROL 0x%08x on 0x%x (%u bytes): %s", cmd, object, params_size,
                  r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
    return r;
}

int nvdrv_rm_free(struct nvdrv *d, uint32_t parent, uint32_t object)
{
    NVOS00_PARAMETERS p = {.hRoot = d->client, .hObjectParent = parent, .hObjectOld = object};
    int r = nvdrv_escape(d, d->ctl_fd, NV_ESC_RM_FREE, &p, sizeof(p));
    if (r == 0 && p.status != NV_OK)
        r = (int)p.status;
    if (r)
        NVDRV_LOG("RM_FREE 0x%x: %s", object,
                  r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
    return r;
}

int nvdrv_card_info(struct nvdrv *d, nv_ioctl_card_info_t *cards, unsigned max, unsigned *count)
{
    nv_ioctl_card_info_t all[NVDRV_MAX_CARDS];
    memset(all, 0, sizeof(all));
    *count = 0;
    int r = nvdrv_escape(d, d->ctl_fd, NV_ESC_CARD_INFO, all, sizeof(all));
    if (r)
        return r;
    for (unsigned i = 0; i < NVDRV_MAX_CARDS && *count < max; i++)
        if (all[i].valid)
            cards[(*count)++] = all[i];
    return 0;
}

int nvdrv_open_gpu_fd(struct nvdrv *d, uint32_t minor)
{
    char path[32];
    snprintf(path, sizeof(path), NVDRV_PATH_GPU_FMT, minor);
    int fd = open_fd(d, path);
    if (fd < 0) {
        NVDRV_LOG("open %s: %s", path, strerror(-fd));
        return fd;
    }
    nv_ioctl_register_fd_t reg = {.ctl_fd = d->ctl_fd};
    int r = nvdrv_escape(d, fd, NV_ESC_REGISTER_FD, &reg, sizeof(reg));
    if (r) {
        NVDRV_LOG("REGISTER_FD %s: %s", path, strerror(-r));
        d->ops->close(d->ctx, fd);
        return r;
    }
    return fd;
}

int nvdrv_rm_alloc_os_memory(struct nvdrv *d, int gpu_fd, uint32_t parent, void *addr,
                             uint64_t size, uint32_t *handle)
{
    nv_ioctl_nvos02_parameters_with_fd p = {
        .params = {
            .hRoot = d->client,
            .hObjectParent = parent,
            .hObjectNew = nvdrv_new_handle(d),
            .hClass = NV01_MEMORY_SYSTEM_OS_DESCRIPTOR,
            .flags = NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS | NVOS02_FLAGS_COHERENCY_CACHED |
                     NVOS02_FLAGS_MAPPING_NO_MAP,
            .pMemory = (uint64_t)(uintptr_t)addr,
            .limit = size - 1,
        },
        .fd = -1,
    };
    int r = nvdrv_escape(d, gpu_fd, NV_ESC_RM_ALLOC_MEMORY, &p, sizeof(p));
    if (r == 0 && p.params.status != NV_OK)
        r = (int)p.params.status;
    if (r) {
        NVDRV_LOG("RM_ALLOC_MEMORY os descriptor %p+0x%llx: %s", addr, (unsigned long long)size,
                  r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
        return r;
    }
    *handle = p.params.hObjectNew;
    return 0;
}

int nvdrv_rm_map_memory(struct nvdrv *d, uint32_t minor, uint32_t device, uint32_t memory,
                        uint64_t size, void *want, void **cpu)
{
    /* One mapping context per fd: every CPU mapping gets a fresh fd. */
    int fd = minor == NVDRV_MINOR_CTL ? open_fd(d, NVDRV_PATH_CTL) : nvdrv_open_gpu_fd(d, minor);
    if (fd < 0)
        return fd;
    nv_ioctl_nvos33_parameters_with_fd p = {
        .params = {.hClient = d->client, .hDevice = device, .hMemory = memory, .length = size},
        .fd = fd,
    };
    int r = nvdrv_escape(d, d->ctl_fd, NV_ESC_RM_MAP_MEMORY, &p, sizeof(p));
    if (r == 0 && p.params.status != NV_OK)
        r = (int)p.params.status;
    if (r) {
        NVDRV_LOG("RM_MAP_MEMORY 0x%x: %s", memory,
                  r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
        d->ops->close(d->ctx, fd);
        return r;
    }
    void *p_cpu = MAP_FAILED;
    if (want)
        p_cpu = d->ops->mmap(d->ctx, want, size, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
    if (p_cpu != MAP_FAILED && p_cpu != want) {
        /* Old kernels treat NOREPLACE as a hint; don't keep a stray view. */
        d->ops->munmap(d->ctx, p_cpu, size);
        p_cpu = MAP_FAILED;
    }
    if (p_cpu == MAP_FAILED)
        p_cpu = d->ops->mmap(d->ctx, NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    r = p_cpu == MAP_FAILED ? -errno : 0;
    /* The mapping outlives the fd [H200]. */
    d->ops->close(d->ctx, fd);
    if (r) {
        NVDRV_LOG("mmap of memory 0x%x: %s", memory, strerror(-r));
        return r;
    }
    *cpu = p_cpu;
    return 0;
}

int nvdrv_munmap(struct nvdrv *d, void *cpu, uint64_t size)
{
    return d->ops->munmap(d->ctx, cpu, size);
}

int nvdrv_rm_map_memory_dma(struct nvdrv *d, uint32_t device, uint32_t hdma, uint32_t memory,
                            uint64_t size, uint64_t va)
{
    NVOS46_PARAMETERS p = {
        .hClient = d->client,
        .hDevice = device,
        .hDma = hdma,
        .hMemory = memory,
        .length = size,
        .flags = NVOS46_FLAGS_PAGE_SIZE_4KB | NVOS46_FLAGS_CACHE_SNOOP_ENABLE |
                 NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE,
        .dmaOffset = va,
    };
    int r = nvdrv_escape(d, d->ctl_fd, NV_ESC_RM_MAP_MEMORY_DMA, &p, sizeof(p));
    if (r == 0 && p.status != NV_OK)
        r = (int)p.status;
    if (r == 0 && p.dmaOffset != va) {
        NVDRV_LOG("RM_MAP_MEMORY_DMA moved 0x%llx to 0x%llx", (unsigned long long)va,
                  (unsigned long long)p.dmaOffset);
        r = -EFAULT;
    }
    if (r)
        NVDRV_LOG("RM_MAP_MEMORY_DMA 0x%x at 0x%llx: %s", memory, (unsigned long long)va,
                  r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
    return r;
}

/* ------------------------------------------------------------------ */
/* UVM                                                                  */
/* ------------------------------------------------------------------ */

/* UVM requests are the raw command numbers; status sits in the struct. */
static int uvm(struct nvdrv *d, unsigned long cmd, void *arg, const uint32_t *status,
               const char *what)
{
    int r = nvdrv_ioctl(d, d->uvm_fd, cmd, arg);
    if (r == 0 && *status != NV_OK)
        r = (int)*status;
    if (r)
        NVDRV_LOG("%s: %s", what, r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
    return r;
}
/* uvm() on the parameter struct p (an lvalue) of request cmd, logged by name. */
#define UVM_IOCTL(d, cmd, p) uvm((d), (cmd), &(p), &(p).rmStatus, #cmd)

int nvdrv_uvm_register_gpu(struct nvdrv *d, const uint8_t uuid[16])
{
    UVM_REGISTER_GPU_PARAMS p = {.rmCtrlFd = -1};
    memcpy(p.gpu_uuid.uuid, uuid, 16);
    return UVM_IOCTL(d, UVM_REGISTER_GPU, p);
}

int nvdrv_uvm_unregister_gpu(struct nvdrv *d, const uint8_t uuid[16])
{
    UVM_UNREGISTER_GPU_PARAMS p = {0};
    memcpy(p.gpu_uuid.uuid, uuid, 16);
    return UVM_IOCTL(d, UVM_UNREGISTER_GPU, p);
}

int nvdrv_uvm_register_gpu_vaspace(struct nvdrv *d, const uint8_t uuid[16], uint32_t vaspace)
{
    UVM_REGISTER_GPU_VASPACE_PARAMS p = {
        .rmCtrlFd = d->ctl_fd, .hClient = d->client, .hVaSpace = vaspace};
    memcpy(p.gpuUuid.uuid, uuid, 16);
    return UVM_IOCTL(d, UVM_REGISTER_GPU_VASPACE, p);
}

int nvdrv_uvm_unregister_gpu_vaspace(struct nvdrv *d, const uint8_t uuid[16])
{
    UVM_UNREGISTER_GPU_VASPACE_PARAMS p = {0};
    memcpy(p.gpuUuid.uuid, uuid, 16);
    return UVM_IOCTL(d, UVM_UNREGISTER_GPU_VASPACE, p);
}

int nvdrv_uvm_register_channel(struct nvdrv *d, const uint8_t uuid[16], uint32_t channel,
                               uint64_t base, uint64_t length)
{
    UVM_REGISTER_CHANNEL_PARAMS p = {.rmCtrlFd = d->ctl_fd,
                                     .hClient = d->client,
                                     .hChannel = channel,
                                     .base = base,
                                     .length = length};
    memcpy(p.gpuUuid.uuid, uuid, 16);
    return UVM_IOCTL(d, UVM_REGISTER_CHANNEL, p);
}

int nvdrv_uvm_unregister_channel(struct nvdrv *d, const uint8_t uuid[16], uint32_t channel)
{
    UVM_UNREGISTER_CHANNEL_PARAMS p = {
        .rmCtrlFd = d->ctl_fd, .hClient = d->client, .hChannel = channel};
    memcpy(p.gpuUuid.uuid, uuid, 16);
    return UVM_IOCTL(d, UVM_UNREGISTER_CHANNEL, p);
}

int nvdrv_uvm_create_external_range(struct nvdrv *d, uint64_t base, uint64_t length)
{
    UVM_CREATE_EXTERNAL_RANGE_PARAMS p = {.base = base, .length = length};
    return UVM_IOCTL(d, UVM_CREATE_EXTERNAL_RANGE, p);
}

int nvdrv_uvm_map_external_allocation(struct nvdrv *d, const uint8_t uuid[16], uint64_t base,
                                      uint64_t length, uint32_t memory)
{
    /* 9 KiB: keep it off the stack of deep callers. */
    UVM_MAP_EXTERNAL_ALLOCATION_PARAMS *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->base = base;
    p->length = length;
    memcpy(p->perGpuAttributes[0].gpuUuid.uuid, uuid, 16);
    p->perGpuAttributes[0].gpuMappingType = UvmGpuMappingTypeReadWriteAtomic;
    p->gpuAttributesCount = 1;
    p->rmCtrlFd = d->ctl_fd;
    p->hClient = d->client;
    p->hMemory = memory;
    int r = UVM_IOCTL(d, UVM_MAP_EXTERNAL_ALLOCATION, *p);
    free(p);
    return r;
}

int nvdrv_uvm_free(struct nvdrv *d, uint64_t base, uint64_t length)
{
    UVM_FREE_PARAMS p = {.base = base, .length = length};
    return UVM_IOCTL(d, UVM_FREE, p);
}

/* ------------------------------------------------------------------ */
/* Open / close                                                         */
/* ------------------------------------------------------------------ */

static int read_version(struct nvdrv *d)
{
    NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS *v = calloc(1, sizeof(*v));
    if (!v)
        return -ENOMEM;
    int r = nvdrv_rm_control(d, d->client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, v,
                             sizeof(*v));
    if (r == 0) {
        v->driverVersionBuffer[sizeof(v->driverVersionBuffer) - 1] = 0;
        size_t n = strnlen(v->driverVersionBuffer, sizeof(d->version) - 1);
        memcpy(d->version, v->driverVersionBuffer, n);
        d->version[n] = 0;
        d->major = (unsigned)strtoul(d->version, NULL, 10);
    }
    free(v);
    return r;
}

int nvdrv_open(struct nvdrv *d, const struct nvdrv_ops *ops, void *ctx)
{
    pthread_once(&atfork_once, atfork_register);
    memset(d, 0, sizeof(*d));
    d->ops = ops;
    d->ctx = ctx;
    d->ctl_fd = d->uvm_fd = d->uvm_mm_fd = -1;
    d->next_handle = NVDRV_HANDLE_BASE;

    int r = open_fd(d, NVDRV_PATH_CTL);
    if (r < 0) {
        NVDRV_LOG("open %s (%s): %s", NVDRV_PATH_CTL, ops->name, strerror(-r));
        goto fail;
    }
    d->ctl_fd = r;
    uint32_t client = 0;
    r = nvdrv_rm_alloc(d, 0, NV01_ROOT_CLIENT, NULL, 0, &client);
    if (r)
        goto fail;
    d->client = client;
    r = read_version(d);
    if (r)
        goto fail;
    if (!major_supported(d->major)) {
        util_log(UTIL_LOG_ERR,
                 "nvdrv: kernel driver %s is not supported (only the 580 ioctl layouts are "
                 "implemented; 570 and 610 differ)",
                 d->version);
        r = -ENOTSUP;
        goto fail;
    }

    r = open_fd(d, NVDRV_PATH_UVM);
    if (r < 0)
        goto fail;
    d->uvm_fd = r;
    UVM_INITIALIZE_PARAMS init = {0};
    r = UVM_IOCTL(d, UVM_INITIALIZE, init);
    if (r)
        goto fail;
    r = open_fd(d, NVDRV_PATH_UVM);
    if (r < 0)
        goto fail;
    d->uvm_mm_fd = r;
    UVM_MM_INITIALIZE_PARAMS mm = {.uvmFd = d->uvm_fd};
    r = nvdrv_ioctl(d, d->uvm_mm_fd, UVM_MM_INITIALIZE, &mm);
    if (r || mm.rmStatus)
        /* Optional: CUDA tolerates the failure too. */
        NVDRV_LOG("UVM_MM_INITIALIZE failed (%d, %s); continuing", r,
                  nvdrv_status_name(mm.rmStatus));
    NVDRV_LOG("driver %s (%s seam), client 0x%x", d->version, ops->name, d->client);
    return 0;

fail:
    nvdrv_close(d);
    return r < 0 ? r : nvdrv_errno(r);
}

void nvdrv_close(struct nvdrv *d)
{
    if (!d->ops)
        return;
    if (d->client)
        nvdrv_rm_free(d, 0, d->client);
    d->client = 0;
    nvdrv_close_fd(d, d->uvm_mm_fd);
    nvdrv_close_fd(d, d->uvm_fd);
    nvdrv_close_fd(d, d->ctl_fd);
    d->uvm_mm_fd = d->uvm_fd = d->ctl_fd = -1;
}

/*
 * nvdrv.h — the NVIDIA kernel driver's ioctl ABI (580 layouts) and the one
 * seam through which hcqcl reaches a driver.
 *
 * Every access to /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm goes
 * through struct nvdrv_ops: the real kernel driver (nvdrv_kernel_ops) or the
 * emulated device (emu_ops(), src/emu). Above the seam nothing can tell
 * them apart.
 *
 * Wrappers return 0, a negative errno (the ioctl itself failed), or a
 * positive NV_STATUS (the driver ran the request and refused it);
 * nvdrv_status_name() decodes the latter.
 *
 * ABI structs: own definitions, named after the driver's, with
 * _Static_assert on every size and on the offsets that matter. Sources:
 * open-gpu-kernel-modules 580 (nvos.h, nv-ioctl.h, nv_escape.h,
 * uvm_ioctl.h, ctrl/ *.h, alloc/ *.h, class/ *.h); sizes marked [H200] were
 * accepted by the 580.159.04 driver on an H200.
 *
 * What the emulated device must answer is listed once, below, in
 * NVDRV_RM_CLASSES (RM_ALLOC classes with their parameter struct),
 * NVDRV_RM_CONTROLS (RM_CONTROL commands with their parameter struct, whose
 * size RM checks exactly), NVDRV_ESCAPES and NVDRV_UVM_IOCTLS.
 */
#ifndef HCQCL_NVDRV_NVDRV_H
#define HCQCL_NVDRV_NVDRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The seam. ctx is the implementation's private state. Semantics follow
 * the system calls: open returns an fd or -errno; ioctl returns 0 or
 * -errno (RM status lives inside the struct); mmap returns the address or
 * MAP_FAILED with errno set; munmap/close return 0 or -errno. */
struct nvdrv_ops {
    const char *name; /* "kernel", "emulated" */
    int (*open)(void *ctx, const char *path, int flags);
    int (*close)(void *ctx, int fd);
    int (*ioctl)(void *ctx, int fd, unsigned long request, void *arg);
    void *(*mmap)(void *ctx, void *addr, size_t length, int prot, int flags, int fd, off_t offset);
    int (*munmap)(void *ctx, void *addr, size_t length);
    /* Wait up to timeout_ns for an OS event posted to fd (a ctl fd that
     * NV_ESC_ALLOC_OS_EVENT registered): 1 when one was pending (taken),
     * 0 on timeout, -errno. Like poll() on the driver's fd, which reports
     * and clears its "dataless event pending" flag. */
    int (*poll)(void *ctx, int fd, uint64_t timeout_ns);
    /* End a poll of fd now, or the next one at once (it returns 1, as
     * for an event): a wake-up from the process itself. 0 or -errno. */
    int (*poke)(void *ctx, int fd);
};

extern const struct nvdrv_ops nvdrv_kernel_ops;

/* The emulated device's seam (src/emu). One process-wide instance; ctx is
 * the emulated driver. */
const struct nvdrv_ops *emu_ops(void **ctx);

/* ==================================================================== */
/* Device files                                                          */
/* ==================================================================== */

#define NVDRV_PATH_CTL "/dev/nvidiactl"
#define NVDRV_PATH_UVM "/dev/nvidia-uvm"
#define NVDRV_PATH_GPU_FMT "/dev/nvidia%u" /* %u = card_info.minor_number */

/* ==================================================================== */
/* Escapes (ioctls on /dev/nvidiactl and /dev/nvidiaN)                   */
/* ==================================================================== */

/* Escape request: _IOWR('F', nr, size). The kernel uses only _IOC_NR and
 * _IOC_SIZE and copies exactly size bytes each way. */
#define NV_IOCTL_MAGIC 'F'
#define NVDRV_ESC_REQUEST(nr, size)                                                       \
    ((unsigned long)((3u << 30) | ((uint32_t)(size) << 16) | ((uint32_t)NV_IOCTL_MAGIC << 8) | \
                     (uint32_t)(nr)))
#define NVDRV_ESC_NR(req) ((uint32_t)(req) & 0xffu)
#define NVDRV_ESC_SIZE(req) (((uint32_t)(req) >> 16) & 0x3fffu)

#define NV_ESC_RM_ALLOC_MEMORY 0x27
#define NV_ESC_RM_FREE 0x29
#define NV_ESC_RM_CONTROL 0x2A
#define NV_ESC_RM_ALLOC 0x2B
#define NV_ESC_RM_MAP_MEMORY 0x4E
#define NV_ESC_RM_UNMAP_MEMORY 0x4F
#define NV_ESC_RM_MAP_MEMORY_DMA 0x57
#define NV_ESC_CARD_INFO 0xC8
#define NV_ESC_REGISTER_FD 0xC9
#define NV_ESC_ALLOC_OS_EVENT 0xCE
#define NV_ESC_FREE_OS_EVENT 0xCF
#define NV_ESC_CHECK_VERSION_STR 0xD2

typedef struct NVOS21_PARAMETERS { /* NV_ESC_RM_ALLOC */
    uint32_t hRoot;
    uint32_t hObjectParent;
    uint32_t hObjectNew; /* in: 0 = RM picks; out: the handle */
    uint32_t hClass;
    uint64_t pAllocParms; /* user pointer */
    uint32_t paramsSize;  /* RM reads the class's own size, not this */
    uint32_t status;
} NVOS21_PARAMETERS;
_Static_assert(sizeof(NVOS21_PARAMETERS) == 32, "NVOS21");
_Static_assert(offsetof(NVOS21_PARAMETERS, pAllocParms) == 0x10, "NVOS21.pAllocParms");
_Static_assert(offsetof(NVOS21_PARAMETERS, status) == 0x1c, "NVOS21.status");

typedef struct NVOS54_PARAMETERS { /* NV_ESC_RM_CONTROL */
    uint32_t hClient;
    uint32_t hObject;
    uint32_t cmd;
    uint32_t flags;
    uint64_t params;     /* user pointer */
    uint32_t paramsSize; /* must equal the command's struct size exactly */
    uint32_t status;
} NVOS54_PARAMETERS;
_Static_assert(sizeof(NVOS54_PARAMETERS) == 32, "NVOS54");
_Static_assert(offsetof(NVOS54_PARAMETERS, params) == 0x10, "NVOS54.params");
_Static_assert(offsetof(NVOS54_PARAMETERS, status) == 0x1c, "NVOS54.status");

typedef struct NVOS00_PARAMETERS { /* NV_ESC_RM_FREE */
    uint32_t hRoot;
    uint32_t hObjectParent;
    uint32_t hObjectOld;
    uint32_t status;
} NVOS00_PARAMETERS;
_Static_assert(sizeof(NVOS00_PARAMETERS) == 16, "NVOS00");

typedef struct NVOS02_PARAMETERS { /* NV_ESC_RM_ALLOC_MEMORY */
    uint32_t hRoot;
    uint32_t hObjectParent;
    uint32_t hObjectNew; /* client-chosen handle */
    uint32_t hClass;     /* NV01_MEMORY_SYSTEM_OS_DESCRIPTOR */
    uint32_t flags;
    uint32_t pad0_;
    uint64_t pMemory; /* user VA of the pages to pin */
    uint64_t limit;   /* size - 1 */
    uint32_t status;
    uint32_t pad1_;
} NVOS02_PARAMETERS;
_Static_assert(sizeof(NVOS02_PARAMETERS) == 48, "NVOS02");
_Static_assert(offsetof(NVOS02_PARAMETERS, pMemory) == 0x18, "NVOS02.pMemory");
_Static_assert(offsetof(NVOS02_PARAMETERS, status) == 0x28, "NVOS02.status");

typedef struct nv_ioctl_nvos02_parameters_with_fd {
    NVOS02_PARAMETERS params;
    int32_t fd; /* -1 */
    uint32_t pad_;
} nv_ioctl_nvos02_parameters_with_fd;
_Static_assert(sizeof(nv_ioctl_nvos02_parameters_with_fd) == 56, "NVOS02 with fd");
_Static_assert(offsetof(nv_ioctl_nvos02_parameters_with_fd, fd) == 0x30, "NVOS02.fd");

typedef struct NVOS33_PARAMETERS { /* NV_ESC_RM_MAP_MEMORY */
    uint32_t hClient;
    uint32_t hDevice;
    uint32_t hMemory;
    uint32_t pad0_;
    uint64_t offset;
    uint64_t length;
    uint64_t pLinearAddress; /* out: RM cookie; the fd is then mmap()ed at 0 */
    uint32_t status;
    uint32_t flags;
} NVOS33_PARAMETERS;
_Static_assert(sizeof(NVOS33_PARAMETERS) == 48, "NVOS33");
_Static_assert(offsetof(NVOS33_PARAMETERS, pLinearAddress) == 0x20, "NVOS33.pLinearAddress");
_Static_assert(offsetof(NVOS33_PARAMETERS, status) == 0x28, "NVOS33.status");

typedef struct nv_ioctl_nvos33_parameters_with_fd {
    NVOS33_PARAMETERS params;
    int32_t fd; /* a fresh fd that carries this one mapping */
    uint32_t pad_;
} nv_ioctl_nvos33_parameters_with_fd;
_Static_assert(sizeof(nv_ioctl_nvos33_parameters_with_fd) == 56, "NVOS33 with fd");
_Static_assert(offsetof(nv_ioctl_nvos33_parameters_with_fd, fd) == 0x30, "NVOS33.fd");

typedef struct NVOS34_PARAMETERS { /* NV_ESC_RM_UNMAP_MEMORY */
    uint32_t hClient;
    uint32_t hDevice;
    uint32_t hMemory;
    uint32_t pad0_;
    uint64_t pLinearAddress;
    uint32_t status;
    uint32_t flags;
} NVOS34_PARAMETERS;
_Static_assert(sizeof(NVOS34_PARAMETERS) == 32, "NVOS34");
_Static_assert(offsetof(NVOS34_PARAMETERS, status) == 0x18, "NVOS34.status");

typedef struct NVOS46_PARAMETERS { /* NV_ESC_RM_MAP_MEMORY_DMA, 580: 64 bytes [H200] */
    uint32_t hClient;
    uint32_t hDevice;
    uint32_t hDma; /* NV01_MEMORY_VIRTUAL */
    uint32_t hMemory;
    uint64_t offset;
    uint64_t length;
    uint32_t flags;
    uint32_t flags2;       /* new in 580 */
    uint32_t kindOverride; /* new in 580 */
    uint32_t pad0_;
    uint64_t dmaOffset; /* in/out: GPU VA */
    uint32_t status;
    uint32_t pad1_;
} NVOS46_PARAMETERS;
_Static_assert(sizeof(NVOS46_PARAMETERS) == 64, "NVOS46");
_Static_assert(offsetof(NVOS46_PARAMETERS, flags) == 0x20, "NVOS46.flags");
_Static_assert(offsetof(NVOS46_PARAMETERS, dmaOffset) == 0x30, "NVOS46.dmaOffset");
_Static_assert(offsetof(NVOS46_PARAMETERS, status) == 0x38, "NVOS46.status");

typedef struct nv_pci_info {
    uint32_t domain;
    uint8_t bus;
    uint8_t slot;
    uint8_t function;
    uint8_t pad0_;
    uint16_t vendor_id;
    uint16_t device_id;
} nv_pci_info_t;
_Static_assert(sizeof(nv_pci_info_t) == 12, "nv_pci_info");

typedef struct nv_ioctl_card_info { /* NV_ESC_CARD_INFO: an array of these */
    uint8_t valid;
    uint8_t pad0_[3];
    nv_pci_info_t pci_info;
    uint32_t gpu_id;
    uint16_t interrupt_line;
    uint8_t pad1_[2];
    uint64_t reg_address;
    uint64_t reg_size;
    uint64_t fb_address; /* BAR1 physical */
    uint64_t fb_size;    /* BAR1 size */
    uint32_t minor_number;
    uint8_t dev_name[10];
    uint8_t pad2_[2];
} nv_ioctl_card_info_t;
_Static_assert(sizeof(nv_ioctl_card_info_t) == 72, "card_info");
_Static_assert(offsetof(nv_ioctl_card_info_t, gpu_id) == 0x10, "card_info.gpu_id");
_Static_assert(offsetof(nv_ioctl_card_info_t, fb_size) == 0x30, "card_info.fb_size");
_Static_assert(offsetof(nv_ioctl_card_info_t, minor_number) == 0x38, "card_info.minor");
#define NVDRV_MAX_CARDS 64 /* entries passed to NV_ESC_CARD_INFO */

typedef struct nv_ioctl_register_fd {
    int32_t ctl_fd;
} nv_ioctl_register_fd_t;
_Static_assert(sizeof(nv_ioctl_register_fd_t) == 4, "register_fd");

typedef struct nv_ioctl_rm_api_version {
    uint32_t cmd; /* NV_RM_API_VERSION_CMD_* */
    uint32_t reply;
    char versionString[64];
} nv_ioctl_rm_api_version_t;
_Static_assert(sizeof(nv_ioctl_rm_api_version_t) == 72, "rm_api_version");
#define NV_RM_API_VERSION_CMD_STRICT 0
#define NV_RM_API_VERSION_CMD_RELAXED '1'
#define NV_RM_API_VERSION_CMD_QUERY '2'

/* NV_ESC_ALLOC_OS_EVENT / NV_ESC_FREE_OS_EVENT (nv-ioctl.h): registers the
 * fd the escape is issued on as the target of events whose NV0005 `data`
 * names (hClient, fd); the driver wakes poll() on that fd when one is
 * posted. Status is an NV_STATUS. */
typedef struct nv_ioctl_alloc_os_event {
    uint32_t hClient;
    uint32_t hDevice;
    uint32_t fd;
    uint32_t Status;
} nv_ioctl_alloc_os_event_t;
_Static_assert(sizeof(nv_ioctl_alloc_os_event_t) == 16, "alloc_os_event");
_Static_assert(offsetof(nv_ioctl_alloc_os_event_t, Status) == 12, "alloc_os_event.Status");

/* X(name, nr, struct) — every escape hcqcl issues. */
#define NVDRV_ESCAPES(X)                                                                  \
    X(NV_ESC_RM_ALLOC, NV_ESC_RM_ALLOC, NVOS21_PARAMETERS)                                \
    X(NV_ESC_RM_CONTROL, NV_ESC_RM_CONTROL, NVOS54_PARAMETERS)                            \
    X(NV_ESC_RM_FREE, NV_ESC_RM_FREE, NVOS00_PARAMETERS)                                  \
    X(NV_ESC_RM_ALLOC_MEMORY, NV_ESC_RM_ALLOC_MEMORY, nv_ioctl_nvos02_parameters_with_fd) \
    X(NV_ESC_RM_MAP_MEMORY, NV_ESC_RM_MAP_MEMORY, nv_ioctl_nvos33_parameters_with_fd)     \
    X(NV_ESC_RM_MAP_MEMORY_DMA, NV_ESC_RM_MAP_MEMORY_DMA, NVOS46_PARAMETERS)              \
    X(NV_ESC_REGISTER_FD, NV_ESC_REGISTER_FD, nv_ioctl_register_fd_t)                    \
    X(NV_ESC_ALLOC_OS_EVENT, NV_ESC_ALLOC_OS_EVENT, nv_ioctl_alloc_os_event_t)            \
    X(NV_ESC_FREE_OS_EVENT, NV_ESC_FREE_OS_EVENT, nv_ioctl_alloc_os_event_t)              \
    X(NV_ESC_CHECK_VERSION_STR, NV_ESC_CHECK_VERSION_STR, nv_ioctl_rm_api_version_t)
/* NV_ESC_CARD_INFO is sent with NVDRV_MAX_CARDS entries:
 * NVDRV_ESC_REQUEST(NV_ESC_CARD_INFO, NVDRV_MAX_CARDS * sizeof(nv_ioctl_card_info_t)). */

/* ==================================================================== */
/* UVM ioctls (on /dev/nvidia-uvm; request = raw command number)         */
/* ==================================================================== */

typedef struct nv_uuid {
    uint8_t uuid[16];
} nv_uuid_t;

#define UVM_INITIALIZE 0x30000001
#define UVM_DEINITIALIZE 0x30000002
#define UVM_REGISTER_GPU_VASPACE 25
#define UVM_UNREGISTER_GPU_VASPACE 26
#define UVM_REGISTER_CHANNEL 27
#define UVM_UNREGISTER_CHANNEL 28
#define UVM_MAP_EXTERNAL_ALLOCATION 33
#define UVM_FREE 34
#define UVM_REGISTER_GPU 37
#define UVM_UNREGISTER_GPU 38
#define UVM_CREATE_EXTERNAL_RANGE 73
#define UVM_MM_INITIALIZE 75

typedef struct UVM_INITIALIZE_PARAMS {
    uint64_t flags;
    uint32_t rmStatus;
    uint32_t pad_;
} UVM_INITIALIZE_PARAMS;
_Static_assert(sizeof(UVM_INITIALIZE_PARAMS) == 16, "UVM_INITIALIZE");

typedef struct UVM_MM_INITIALIZE_PARAMS {
    int32_t uvmFd; /* the primary UVM fd; issued on a second one */
    uint32_t rmStatus;
} UVM_MM_INITIALIZE_PARAMS;
_Static_assert(sizeof(UVM_MM_INITIALIZE_PARAMS) == 8, "UVM_MM_INITIALIZE");

typedef struct UVM_REGISTER_GPU_PARAMS {
    nv_uuid_t gpu_uuid;
    uint8_t numaEnabled;
    uint8_t pad0_[3];
    int32_t numaNodeId;
    int32_t rmCtrlFd; /* -1: UVM uses its own RM client */
    uint32_t hClient;
    uint32_t hSmcPartRef;
    uint32_t rmStatus;
} UVM_REGISTER_GPU_PARAMS;
_Static_assert(sizeof(UVM_REGISTER_GPU_PARAMS) == 40, "UVM_REGISTER_GPU");
_Static_assert(offsetof(UVM_REGISTER_GPU_PARAMS, rmCtrlFd) == 0x18, "UVM_REGISTER_GPU.rmCtrlFd");
_Static_assert(offsetof(UVM_REGISTER_GPU_PARAMS, rmStatus) == 0x24, "UVM_REGISTER_GPU.rmStatus");

typedef struct UVM_UNREGISTER_GPU_PARAMS {
    nv_uuid_t gpu_uuid;
    uint32_t rmStatus;
} UVM_UNREGISTER_GPU_PARAMS;
_Static_assert(sizeof(UVM_UNREGISTER_GPU_PARAMS) == 20, "UVM_UNREGISTER_GPU");

typedef struct UVM_REGISTER_GPU_VASPACE_PARAMS {
    nv_uuid_t gpuUuid;
    int32_t rmCtrlFd;
    uint32_t hClient;
    uint32_t hVaSpace;
    uint32_t rmStatus;
} UVM_REGISTER_GPU_VASPACE_PARAMS;
_Static_assert(sizeof(UVM_REGISTER_GPU_VASPACE_PARAMS) == 32, "UVM_REGISTER_GPU_VASPACE");
_Static_assert(offsetof(UVM_REGISTER_GPU_VASPACE_PARAMS, rmStatus) == 0x1c, "rmStatus");

typedef struct UVM_UNREGISTER_GPU_VASPACE_PARAMS {
    nv_uuid_t gpuUuid;
    uint32_t rmStatus;
} UVM_UNREGISTER_GPU_VASPACE_PARAMS;
_Static_assert(sizeof(UVM_UNREGISTER_GPU_VASPACE_PARAMS) == 20, "UVM_UNREGISTER_GPU_VASPACE");

typedef struct UVM_REGISTER_CHANNEL_PARAMS {
    nv_uuid_t gpuUuid;
    int32_t rmCtrlFd;
    uint32_t hClient;
    uint32_t hChannel;
    uint32_t pad0_;
    uint64_t base; /* VA range UVM may use for the channel's buffers */
    uint64_t length;
    uint32_t rmStatus;
    uint32_t pad1_;
} UVM_REGISTER_CHANNEL_PARAMS;
_Static_assert(sizeof(UVM_REGISTER_CHANNEL_PARAMS) == 56, "UVM_REGISTER_CHANNEL");
_Static_assert(offsetof(UVM_REGISTER_CHANNEL_PARAMS, base) == 0x20, "UVM_REGISTER_CHANNEL.base");
_Static_assert(offsetof(UVM_REGISTER_CHANNEL_PARAMS, rmStatus) == 0x30, "rmStatus");

typedef struct UVM_UNREGISTER_CHANNEL_PARAMS {
    nv_uuid_t gpuUuid;
    int32_t rmCtrlFd;
    uint32_t hClient;
    uint32_t hChannel;
    uint32_t rmStatus;
} UVM_UNREGISTER_CHANNEL_PARAMS;
_Static_assert(sizeof(UVM_UNREGISTER_CHANNEL_PARAMS) == 32, "UVM_UNREGISTER_CHANNEL");

typedef struct UVM_CREATE_EXTERNAL_RANGE_PARAMS {
    uint64_t base;
    uint64_t length;
    uint32_t rmStatus;
    uint32_t pad_;
} UVM_CREATE_EXTERNAL_RANGE_PARAMS;
_Static_assert(sizeof(UVM_CREATE_EXTERNAL_RANGE_PARAMS) == 24, "UVM_CREATE_EXTERNAL_RANGE");

typedef struct UvmGpuMappingAttributes {
    nv_uuid_t gpuUuid;
    uint32_t gpuMappingType; /* UvmGpuMappingType* */
    uint32_t gpuCachingType;
    uint32_t gpuFormatType;
    uint32_t gpuElementBits;
    uint32_t gpuCompressionType;
} UvmGpuMappingAttributes;
_Static_assert(sizeof(UvmGpuMappingAttributes) == 36, "UvmGpuMappingAttributes");
#define UvmGpuMappingTypeDefault 0
#define UvmGpuMappingTypeReadWriteAtomic 1
#define UVM_MAX_GPUS_V2 256

typedef struct UVM_MAP_EXTERNAL_ALLOCATION_PARAMS {
    uint64_t base;
    uint64_t length;
    uint64_t offset;
    UvmGpuMappingAttributes perGpuAttributes[UVM_MAX_GPUS_V2];
    uint64_t gpuAttributesCount;
    int32_t rmCtrlFd;
    uint32_t hClient;
    uint32_t hMemory;
    uint32_t rmStatus;
} UVM_MAP_EXTERNAL_ALLOCATION_PARAMS;
_Static_assert(sizeof(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS) == 9264, "UVM_MAP_EXTERNAL_ALLOCATION");
_Static_assert(offsetof(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS, gpuAttributesCount) == 0x2418, "count");
_Static_assert(offsetof(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS, rmStatus) == 0x242c, "rmStatus");

typedef struct UVM_FREE_PARAMS { /* 580: 24 bytes (610 drops length) */
    uint64_t base;
    uint64_t length;
    uint32_t rmStatus;
    uint32_t pad_;
} UVM_FREE_PARAMS;
_Static_assert(sizeof(UVM_FREE_PARAMS) == 24, "UVM_FREE");

/* X(name, struct) — every UVM ioctl hcqcl issues; the request number is
 * the name's value. */
#define NVDRV_UVM_IOCTLS(X)                                                               \
    X(UVM_INITIALIZE, UVM_INITIALIZE_PARAMS)                                              \
    X(UVM_MM_INITIALIZE, UVM_MM_INITIALIZE_PARAMS)                                        \
    X(UVM_REGISTER_GPU, UVM_REGISTER_GPU_PARAMS)                                          \
    X(UVM_UNREGISTER_GPU, UVM_UNREGISTER_GPU_PARAMS)                                      \
    X(UVM_REGISTER_GPU_VASPACE, UVM_REGISTER_GPU_VASPACE_PARAMS)                          \
    X(UVM_UNREGISTER_GPU_VASPACE, UVM_UNREGISTER_GPU_VASPACE_PARAMS)                      \
    X(UVM_REGISTER_CHANNEL, UVM_REGISTER_CHANNEL_PARAMS)                                  \
    X(UVM_UNREGISTER_CHANNEL, UVM_UNREGISTER_CHANNEL_PARAMS)                              \
    X(UVM_CREATE_EXTERNAL_RANGE, UVM_CREATE_EXTERNAL_RANGE_PARAMS)                        \
    X(UVM_MAP_EXTERNAL_ALLOCATION, UVM_MAP_EXTERNAL_ALLOCATION_PARAMS)                    \
    X(UVM_FREE, UVM_FREE_PARAMS)

/* ==================================================================== */
/* RM_ALLOC parameter structs                                            */
/* ==================================================================== */

/* Classes allocated with NULL parameters. */
typedef struct nvdrv_no_params {
    char none_[0];
} nvdrv_no_params;

/* Copy-engine objects (HOPPER_DMA_COPY_A, AMPERE_DMA_COPY_A/B): which
 * engine the object binds to. VERSION_1 reads engineType as an
 * NV2080_ENGINE_TYPE_COPYn; VERSION_0 as a CE index. */
typedef struct NVB0B5_ALLOCATION_PARAMETERS {
    uint32_t version;
    uint32_t engineType;
} NVB0B5_ALLOCATION_PARAMETERS;
_Static_assert(sizeof(NVB0B5_ALLOCATION_PARAMETERS) == 8, "NVB0B5_ALLOCATION");
#define NVB0B5_ALLOCATION_PARAMETERS_VERSION_0 0u
#define NVB0B5_ALLOCATION_PARAMETERS_VERSION_1 1u

/* NV01_EVENT_OS_EVENT (cl0005.h, nvos.h): an event on a notifier object.
 * With NV01_EVENT_NONSTALL_INTR the notifier is the subdevice and the
 * index an engine (NV2080_NOTIFIERS_GRAPHICS, _CE(n)): RM posts the event
 * on each non-stall interrupt of that engine. data is the fd that
 * NV_ESC_ALLOC_OS_EVENT registered for hParentClient. */
typedef struct NV0005_ALLOC_PARAMETERS {
    uint32_t hParentClient;
    uint32_t hSrcResource;
    uint32_t hClass;
    uint32_t notifyIndex; /* bits 15:0 index, 31:24 NV01_EVENT_* flags */
    uint64_t data;
} NV0005_ALLOC_PARAMETERS;
_Static_assert(sizeof(NV0005_ALLOC_PARAMETERS) == 24, "NV0005_ALLOC");
_Static_assert(offsetof(NV0005_ALLOC_PARAMETERS, data) == 0x10, "NV0005.data");
#define NV01_EVENT_WITHOUT_EVENT_DATA 0x10000000u /* posted without data: poll() only */
#define NV01_EVENT_NONSTALL_INTR 0x08000000u
#define NV0005_NOTIFY_INDEX_INDEX(i) ((i) & 0xffffu)
#define NV2080_NOTIFIERS_GRAPHICS 12u
#define NV2080_NOTIFIERS_CE0 23u  /* CE0..CE9: 23..32 */
#define NV2080_NOTIFIERS_CE10 166u /* CE10..CE19: 166..175 */
#define NV2080_NOTIFIERS_CE(i) ((i) < 10 ? NV2080_NOTIFIERS_CE0 + (i) : NV2080_NOTIFIERS_CE10 + (i) - 10)

typedef struct NV0080_ALLOC_PARAMETERS {
    uint32_t deviceId; /* GET_ID_INFO_V2.deviceInstance */
    uint32_t hClientShare;
    uint32_t hTargetClient;
    uint32_t hTargetDevice;
    uint32_t flags;
    uint32_t pad0_;
    uint64_t vaSpaceSize;
    uint64_t vaStartInternal;
    uint64_t vaLimitInternal;
    uint32_t vaMode;
    uint32_t pad1_;
} NV0080_ALLOC_PARAMETERS;
_Static_assert(sizeof(NV0080_ALLOC_PARAMETERS) == 56, "NV0080_ALLOC");
_Static_assert(offsetof(NV0080_ALLOC_PARAMETERS, vaMode) == 0x30, "NV0080.vaMode");

typedef struct NV2080_ALLOC_PARAMETERS {
    uint32_t subDeviceId;
} NV2080_ALLOC_PARAMETERS;
_Static_assert(sizeof(NV2080_ALLOC_PARAMETERS) == 4, "NV2080_ALLOC");

typedef struct NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS {
    uint64_t offset;
    uint64_t limit;
    uint32_t hVASpace;
    uint32_t pad_;
} NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS;
_Static_assert(sizeof(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS) == 24, "MEMORY_VIRTUAL");

typedef struct NV_MEMORY_ALLOCATION_PARAMS { /* NV01_MEMORY_LOCAL_USER / _SYSTEM */
    uint32_t owner;
    uint32_t type; /* NVOS32_TYPE_* */
    uint32_t flags;
    uint32_t width;
    uint32_t height;
    int32_t pitch;
    uint32_t attr;
    uint32_t attr2;
    uint32_t format;
    uint32_t comprCovg;
    uint32_t zcullCovg;
    uint32_t pad0_;
    uint64_t rangeLo;
    uint64_t rangeHi;
    uint64_t size;
    uint64_t alignment;
    uint64_t offset;
    uint64_t limit;
    uint64_t address;
    uint32_t ctagOffset;
    uint32_t hVASpace;
    uint32_t internalflags;
    uint32_t tag;
    int32_t numaNode;
    uint32_t pad1_;
} NV_MEMORY_ALLOCATION_PARAMS;
_Static_assert(sizeof(NV_MEMORY_ALLOCATION_PARAMS) == 128, "MEMORY_ALLOCATION");
_Static_assert(offsetof(NV_MEMORY_ALLOCATION_PARAMS, size) == 0x40, "MEMORY_ALLOCATION.size");
_Static_assert(offsetof(NV_MEMORY_ALLOCATION_PARAMS, numaNode) == 0x78, "numaNode");

typedef struct NV_VASPACE_ALLOCATION_PARAMETERS { /* 580: 56 bytes (+pasid) */
    uint32_t index;
    uint32_t flags;
    uint64_t vaSize;
    uint64_t vaStartInternal;
    uint64_t vaLimitInternal;
    uint32_t bigPageSize;
    uint32_t pad0_;
    uint64_t vaBase;
    uint32_t pasid;
    uint32_t pad1_;
} NV_VASPACE_ALLOCATION_PARAMETERS;
_Static_assert(sizeof(NV_VASPACE_ALLOCATION_PARAMETERS) == 56, "VASPACE_ALLOCATION");
_Static_assert(offsetof(NV_VASPACE_ALLOCATION_PARAMETERS, vaBase) == 0x28, "vaBase");

typedef struct NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS {
    uint32_t hObjectError;
    uint32_t hObjectEccError;
    uint32_t hVASpace;
    uint32_t engineType; /* NV2080_ENGINE_TYPE_GRAPHICS */
    uint8_t bIsCallingContextVgpuPlugin;
    uint8_t pad_[3];
} NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS;
_Static_assert(sizeof(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS) == 20, "CHANNEL_GROUP");

typedef struct NV_CTXSHARE_ALLOCATION_PARAMETERS {
    uint32_t hVASpace;
    uint32_t flags; /* NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC */
    uint32_t subctxId;
} NV_CTXSHARE_ALLOCATION_PARAMETERS;
_Static_assert(sizeof(NV_CTXSHARE_ALLOCATION_PARAMETERS) == 12, "CTXSHARE");

typedef struct NV_MEMORY_DESC_PARAMS {
    uint64_t base;
    uint64_t size;
    uint32_t addressSpace;
    uint32_t cacheAttrib;
} NV_MEMORY_DESC_PARAMS;
_Static_assert(sizeof(NV_MEMORY_DESC_PARAMS) == 24, "MEMORY_DESC");

#define NV_MAX_SUBDEVICES 8
typedef struct NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS { /* 570..595: 368 bytes */
    uint32_t hObjectError;
    uint32_t hObjectBuffer;
    uint64_t gpFifoOffset; /* GPU VA of the ring */
    uint32_t gpFifoEntries;
    uint32_t flags;
    uint32_t hContextShare;
    uint32_t hVASpace;
    uint32_t hUserdMemory[NV_MAX_SUBDEVICES];
    uint64_t userdOffset[NV_MAX_SUBDEVICES];
    uint32_t engineType;
    uint32_t cid;
    uint32_t subDeviceId;
    uint32_t hObjectEccError;
    NV_MEMORY_DESC_PARAMS instanceMem;
    NV_MEMORY_DESC_PARAMS userdMem;
    NV_MEMORY_DESC_PARAMS ramfcMem;
    NV_MEMORY_DESC_PARAMS mthdbufMem;
    uint32_t hPhysChannelGroup;
    uint32_t internalFlags;
    NV_MEMORY_DESC_PARAMS errorNotifierMem;
    NV_MEMORY_DESC_PARAMS eccErrorNotifierMem;
    uint32_t ProcessID;
    uint32_t SubProcessID;
    uint32_t encryptIv[3];
    uint32_t decryptIv[3];
    uint32_t hmacNonce[8];
    uint32_t tpcConfigID;
    uint32_t pad_;
} NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS;
_Static_assert(sizeof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS) == 368, "CHANNELGPFIFO");
_Static_assert(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, hUserdMemory) == 0x20, "hUserd");
_Static_assert(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, userdOffset) == 0x40, "userdOff");
_Static_assert(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, engineType) == 0x80, "engine");
_Static_assert(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, hPhysChannelGroup) == 0xf0, "hPhys");
_Static_assert(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, ProcessID) == 0x128, "ProcessID");
_Static_assert(offsetof(NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS, tpcConfigID) == 0x168, "tpcConfig");

typedef struct NV_HOPPER_USERMODE_A_PARAMS { /* optional; hcqcl passes NULL */
    uint8_t bBar1Mapping;
    uint8_t bPriv;
} NV_HOPPER_USERMODE_A_PARAMS;
_Static_assert(sizeof(NV_HOPPER_USERMODE_A_PARAMS) == 2, "USERMODE_A");

/* ==================================================================== */
/* RM_CONTROL parameter structs                                          */
/* ==================================================================== */

typedef struct NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS {
    char driverVersionBuffer[256];
    char versionBuffer[256];
    char driverBranch[256];
    char titleBuffer[256];
    uint32_t changelistNumber;
    uint32_t officialChangelistNumber;
} NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS;
_Static_assert(sizeof(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS) == 1032, "BUILD_VERSION_V2");

typedef struct NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS {
    uint32_t gpuId;
    uint32_t gpuFlags;
    uint32_t deviceInstance;
    uint32_t subDeviceInstance;
    uint32_t sliStatus;
    uint32_t boardId;
    uint32_t gpuInstance;
    int32_t numaId;
} NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS;
_Static_assert(sizeof(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS) == 32, "GET_ID_INFO_V2");

typedef struct NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS {
    uint32_t numClasses; /* in/out; first call with 0/NULL returns the count */
    uint32_t pad_;
    uint64_t classList; /* user pointer to uint32_t[numClasses] */
} NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS;
_Static_assert(sizeof(NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS) == 16, "GET_CLASSLIST");

#define NV2080_GPU_MAX_GID_LENGTH 256
typedef struct NV2080_CTRL_GPU_GET_GID_INFO_PARAMS {
    uint32_t index;
    uint32_t flags; /* NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY */
    uint32_t length;
    uint8_t data[NV2080_GPU_MAX_GID_LENGTH];
} NV2080_CTRL_GPU_GET_GID_INFO_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS) == 268, "GET_GID_INFO");
#define NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY 2

#define NV2080_GPU_MAX_NAME_STRING_LENGTH 64
typedef struct NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS {
    uint32_t gpuNameStringFlags; /* 0 ASCII */
    union {
        uint8_t ascii[NV2080_GPU_MAX_NAME_STRING_LENGTH];
        uint16_t unicode[NV2080_GPU_MAX_NAME_STRING_LENGTH];
    } gpuNameString;
} NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS) == 132, "GET_NAME_STRING");
#define NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII 0

/* QUERY_ECC_CONFIGURATION (ctrl2080gpu.h): the ECC mode the board holds in
 * its non-volatile settings, which is the active one unless a change waits
 * for the next GPU reset. GPUs without ECC answer NV_ERR_NOT_SUPPORTED. */
typedef struct NV2080_CTRL_GPU_QUERY_ECC_CONFIGURATION_PARAMS {
    uint32_t currentConfiguration;
    uint32_t defaultConfiguration;
} NV2080_CTRL_GPU_QUERY_ECC_CONFIGURATION_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_GPU_QUERY_ECC_CONFIGURATION_PARAMS) == 8, "QUERY_ECC_CONFIGURATION");
#define NV2080_CTRL_GPU_ECC_CONFIGURATION_DISABLED 0u
#define NV2080_CTRL_GPU_ECC_CONFIGURATION_ENABLED 1u

typedef struct NV2080_CTRL_GR_INFO {
    uint32_t index;
    uint32_t data;
} NV2080_CTRL_GR_INFO;

typedef struct NV0080_CTRL_GR_ROUTE_INFO {
    uint32_t flags;
    uint32_t pad_;
    uint64_t route;
} NV0080_CTRL_GR_ROUTE_INFO;

typedef struct NV2080_CTRL_GR_GET_INFO_PARAMS {
    uint32_t grInfoListSize;
    uint32_t pad_;
    uint64_t grInfoList; /* user pointer to NV2080_CTRL_GR_INFO[] */
    NV0080_CTRL_GR_ROUTE_INFO grRouteInfo;
} NV2080_CTRL_GR_GET_INFO_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_GR_GET_INFO_PARAMS) == 32, "GR_GET_INFO");

/* GR info indices (ctrl0080gr.h, shared by 0080 and 2080). */
#define NV2080_CTRL_GR_INFO_INDEX_SHADER_PIPE_SUB_COUNT 0x09 /* enabled TPCs */
#define NV2080_CTRL_GR_INFO_INDEX_SM_VERSION 0x0C
#define NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM 0x0D
#define NV2080_CTRL_GR_INFO_INDEX_MAX_THREADS_PER_WARP 0x0E
#define NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS 0x14
#define NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC 0x17
#define NV2080_CTRL_GR_INFO_INDEX_GPU_CORE_COUNT 0x1D
#define NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC 0x20

typedef struct NV2080_CTRL_FB_INFO {
    uint32_t index;
    uint32_t data;
} NV2080_CTRL_FB_INFO;

/* The list length of FB_GET_INFO_V2 grew from release to release (0x36,
 * 0x37, 0x39 in 580, 0x80 in 610) and RM checks the size exactly, so the
 * core retries with the other known lengths when RM rejects the size. The
 * emulated device answers the 580 length. */
#define NV2080_CTRL_FB_INFO_MAX_LIST_SIZE 0x39
typedef struct NV2080_CTRL_FB_GET_INFO_V2_PARAMS {
    uint32_t fbInfoListSize;
    NV2080_CTRL_FB_INFO fbInfoList[NV2080_CTRL_FB_INFO_MAX_LIST_SIZE];
} NV2080_CTRL_FB_GET_INFO_V2_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_FB_GET_INFO_V2_PARAMS) == 4 + 8 * 0x39, "FB_GET_INFO_V2");
#define NVDRV_FB_GET_INFO_V2_SIZE(entries) (4u + 8u * (entries))

/* FB info indices; sizes are in KiB except L2. */
#define NV2080_CTRL_FB_INFO_INDEX_BAR1_SIZE 0x05
#define NV2080_CTRL_FB_INFO_INDEX_RAM_SIZE 0x07
#define NV2080_CTRL_FB_INFO_INDEX_TOTAL_RAM_SIZE 0x08
#define NV2080_CTRL_FB_INFO_INDEX_HEAP_SIZE 0x09
#define NV2080_CTRL_FB_INFO_INDEX_BUS_WIDTH 0x0B
#define NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE 0x16
#define NV2080_CTRL_FB_INFO_INDEX_L2CACHE_SIZE 0x1B /* bytes */
#define NV2080_CTRL_FB_INFO_INDEX_USABLE_RAM_SIZE 0x20

/* NV2080_CTRL_CMD_TIMER_GET_TIME: the GPU timer (PTIMER, ns). */
typedef struct NV2080_CTRL_TIMER_GET_TIME_PARAMS {
    uint64_t time_nsec;
} NV2080_CTRL_TIMER_GET_TIME_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_TIMER_GET_TIME_PARAMS) == 8, "TIMER_GET_TIME");

/* NV2080_CTRL_CMD_GPU_GET_ENGINES_V2: the engines of the subdevice as
 * NV2080_ENGINE_TYPE_* values. */
#define NV2080_GPU_MAX_ENGINES_LIST_SIZE 0x54u
typedef struct NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS {
    uint32_t engineCount;
    uint32_t engineList[NV2080_GPU_MAX_ENGINES_LIST_SIZE];
} NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS) == 340, "GET_ENGINES_V2");

/* NV2080_CTRL_CMD_CE_GET_CAPS_V2: capability bytes of one copy engine. */
#define NV2080_CTRL_CE_CAPS_TBL_SIZE 2
typedef struct NV2080_CTRL_CE_GET_CAPS_V2_PARAMS {
    uint32_t ceEngineType; /* NV2080_ENGINE_TYPE_COPYn */
    uint8_t capsTbl[NV2080_CTRL_CE_CAPS_TBL_SIZE];
    uint8_t pad_[2];
} NV2080_CTRL_CE_GET_CAPS_V2_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_CE_GET_CAPS_V2_PARAMS) == 8, "CE_GET_CAPS_V2");
/* capsTbl[0] bits */
#define NV2080_CTRL_CE_CAPS0_GRCE 0x01u         /* synchronous with GR (runs on its runlist) */
#define NV2080_CTRL_CE_CAPS0_SHARED 0x02u       /* shares physical CEs with another CE */
#define NV2080_CTRL_CE_CAPS0_SYSMEM_READ 0x04u  /* preferred for reads of system memory */
#define NV2080_CTRL_CE_CAPS0_SYSMEM_WRITE 0x08u /* preferred for writes of system memory */
#define NV2080_CTRL_CE_CAPS0_NVLINK_P2P 0x10u
#define NV2080_CTRL_CE_CAPS0_SYSMEM 0x20u
#define NV2080_CTRL_CE_CAPS0_P2P 0x40u

typedef struct NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS { /* 580: 3 bytes [H200] */
    uint8_t bEnable;
    uint8_t bSkipSubmit;
    uint8_t bSkipEnable;
} NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS;
_Static_assert(sizeof(NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS) == 3, "GPFIFO_SCHEDULE");

/* The same for one channel (ctrla06fgpfifo.h): how a channel that joins a
 * group already scheduled gets onto the runlist, as UVM schedules each
 * channel it adds to its groups. 580 carries bSkipEnable here too. */
typedef struct NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS {
    uint8_t bEnable;
    uint8_t bSkipSubmit;
    uint8_t bSkipEnable;
} NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS;
_Static_assert(sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS) == 3, "channel GPFIFO_SCHEDULE");

typedef struct NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS {
    uint32_t workSubmitToken;
} NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS;
_Static_assert(sizeof(NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS) == 4, "WORK_TOKEN");

typedef struct NV2080_CTRL_PERF_BOOST_PARAMS {
    uint32_t flags;    /* NV2080_CTRL_PERF_BOOST_FLAGS_* */
    uint32_t duration; /* seconds; 0xffffffff = while the client lives */
} NV2080_CTRL_PERF_BOOST_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_PERF_BOOST_PARAMS) == 8, "PERF_BOOST");
/* CMD BOOST_TO_MAX (2) | CUDA YES (1 << 4) | CUDA_PRIORITY HIGH (1 << 6) [H200].
 * Optional (hcqcl ignores a refusal), so not in NVDRV_RM_CONTROLS. */
#define NV2080_CTRL_PERF_BOOST_FLAGS_CUDA_MAX 0x52u
#define NV2080_CTRL_PERF_BOOST_DURATION_INFINITE 0xffffffffu

typedef struct NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS {
    uint64_t addressArray[500];
    uint32_t addressArraySize;
    uint32_t addressAlign;
    uint64_t memBlockSizeBytes;
    uint32_t flags;
    uint32_t pad_;
} NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS;
_Static_assert(sizeof(NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS) == 4024, "FB_FLUSH_GPU_CACHE");

/* ==================================================================== */
/* Classes and control commands                                          */
/* ==================================================================== */

/* Engine classes are spelled exactly as in src/nv/nv.h so both headers
 * can be included together. */
#define NV01_ROOT_CLIENT 0x0041
#define NV01_MEMORY_SYSTEM 0x003E
#define NV01_MEMORY_LOCAL_USER 0x0040
#define NV01_MEMORY_VIRTUAL 0x0070
#define NV01_MEMORY_SYSTEM_OS_DESCRIPTOR 0x0071
#define NV01_EVENT_OS_EVENT 0x0079
#define NV01_DEVICE_0 0x0080
#define NV20_SUBDEVICE_0 0x2080
#define FERMI_CONTEXT_SHARE_A 0x9067
#define FERMI_VASPACE_A 0x90F1
#define KEPLER_CHANNEL_GROUP_A 0xA06C
#define VOLTA_USERMODE_A 0xC361u
#define TURING_USERMODE_A 0xC461u
#define AMPERE_USERMODE_A 0xC561u
#define HOPPER_USERMODE_A 0xC661u
#define AMPERE_CHANNEL_GPFIFO_A 0xC56Fu
#define HOPPER_CHANNEL_GPFIFO_A 0xC86Fu
#define BLACKWELL_CHANNEL_GPFIFO_A 0xC96Fu
#define AMPERE_DMA_COPY_A 0xC6B5u
#define AMPERE_DMA_COPY_B 0xC7B5u
#define HOPPER_DMA_COPY_A 0xC8B5u
#define BLACKWELL_DMA_COPY_A 0xC9B5u
#define BLACKWELL_DMA_COPY_B 0xCAB5u
#define AMPERE_COMPUTE_A 0xC6C0u
#define AMPERE_COMPUTE_B 0xC7C0u
#define ADA_COMPUTE_A 0xC9C0u
#define HOPPER_COMPUTE_A 0xCBC0u
#define BLACKWELL_COMPUTE_A 0xCDC0u
#define BLACKWELL_COMPUTE_B 0xCEC0u

/* X(name, class id, alloc params struct) — every class hcqcl allocates
 * with NV_ESC_RM_ALLOC. OS-descriptor memory (0x71) is not here: it goes
 * through NV_ESC_RM_ALLOC_MEMORY (NVOS02) on /dev/nvidiaN. */
#define NVDRV_RM_CLASSES(X)                                                               \
    X(NV01_ROOT_CLIENT, 0x0041, nvdrv_no_params)                                          \
    X(NV01_DEVICE_0, 0x0080, NV0080_ALLOC_PARAMETERS)                                     \
    X(NV20_SUBDEVICE_0, 0x2080, NV2080_ALLOC_PARAMETERS)                                  \
    X(NV01_MEMORY_VIRTUAL, 0x0070, NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS)                   \
    X(NV01_MEMORY_LOCAL_USER, 0x0040, NV_MEMORY_ALLOCATION_PARAMS)                        \
    X(NV01_MEMORY_SYSTEM, 0x003E, NV_MEMORY_ALLOCATION_PARAMS)                            \
    X(FERMI_VASPACE_A, 0x90F1, NV_VASPACE_ALLOCATION_PARAMETERS)                          \
    X(KEPLER_CHANNEL_GROUP_A, 0xA06C, NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS)             \
    X(FERMI_CONTEXT_SHARE_A, 0x9067, NV_CTXSHARE_ALLOCATION_PARAMETERS)                   \
    X(HOPPER_USERMODE_A, 0xC661, nvdrv_no_params)                                         \
    X(HOPPER_CHANNEL_GPFIFO_A, 0xC86F, NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS)            \
    X(HOPPER_COMPUTE_A, 0xCBC0, nvdrv_no_params)                                          \
    X(HOPPER_DMA_COPY_A, 0xC8B5, NVB0B5_ALLOCATION_PARAMETERS)                            \
    X(NV01_EVENT_OS_EVENT, 0x0079, NV0005_ALLOC_PARAMETERS)

#define NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2 0x0000013Eu
#define NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2 0x00000205u
#define NV0080_CTRL_CMD_GPU_GET_CLASSLIST 0x00800201u
#define NV2080_CTRL_CMD_GPU_GET_NAME_STRING 0x20800110u
#define NV2080_CTRL_CMD_GPU_GET_GID_INFO 0x2080014Au
#define NV2080_CTRL_CMD_GPU_QUERY_ECC_CONFIGURATION 0x20800133u
#define NV2080_CTRL_CMD_GR_GET_INFO 0x20801201u
#define NV2080_CTRL_CMD_GPU_GET_ENGINES_V2 0x20800170u
#define NV2080_CTRL_CMD_TIMER_GET_TIME 0x20800403u
#define NV2080_CTRL_CMD_CE_GET_CAPS_V2 0x20802A03u
#define NV2080_CTRL_CMD_FB_GET_INFO_V2 0x20801303u
#define NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE 0x2080130Eu
#define NV2080_CTRL_CMD_PERF_BOOST 0x2080200Au
#define NVA06C_CTRL_CMD_GPFIFO_SCHEDULE 0xA06C0101u
#define NVA06F_CTRL_CMD_GPFIFO_SCHEDULE 0xA06F0103u
#define NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN 0xC36F0108u

/* X(name, cmd, params struct, sent to) — every control hcqcl issues.
 * "sent to" names the object class (client, device, subdevice,
 * channel_group, channel). RM checks paramsSize == sizeof(struct) except
 * for FB_GET_INFO_V2, whose list length hcqcl probes (see above). The
 * classes hcqcl may also pick on other GPUs (AMPERE_CHANNEL_GPFIFO_A,
 * AMPERE_COMPUTE_B, ADA_COMPUTE_A, AMPERE_DMA_COPY_A/B, the older
 * usermode classes) take the same parameter structs. */
#define NVDRV_RM_CONTROLS(X)                                                              \
    X(NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, 0x0000013Eu,                           \
      NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS, client)                             \
    X(NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, 0x00000205u, NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, \
      client)                                                                             \
    X(NV0080_CTRL_CMD_GPU_GET_CLASSLIST, 0x00800201u, NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS, \
      device)                                                                             \
    X(NV2080_CTRL_CMD_GPU_GET_NAME_STRING, 0x20800110u,                                   \
      NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS, subdevice)                                  \
    X(NV2080_CTRL_CMD_GPU_GET_GID_INFO, 0x2080014Au, NV2080_CTRL_GPU_GET_GID_INFO_PARAMS,  \
      subdevice)                                                                          \
    X(NV2080_CTRL_CMD_GPU_QUERY_ECC_CONFIGURATION, 0x20800133u,                           \
      NV2080_CTRL_GPU_QUERY_ECC_CONFIGURATION_PARAMS, subdevice)                          \
    X(NV2080_CTRL_CMD_GR_GET_INFO, 0x20801201u, NV2080_CTRL_GR_GET_INFO_PARAMS, subdevice) \
    X(NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, 0x20800170u, NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS, \
      subdevice)                                                                          \
    X(NV2080_CTRL_CMD_CE_GET_CAPS_V2, 0x20802A03u, NV2080_CTRL_CE_GET_CAPS_V2_PARAMS,      \
      subdevice)                                                                          \
    X(NV2080_CTRL_CMD_TIMER_GET_TIME, 0x20800403u, NV2080_CTRL_TIMER_GET_TIME_PARAMS,      \
      subdevice)                                                                          \
    X(NV2080_CTRL_CMD_FB_GET_INFO_V2, 0x20801303u, NV2080_CTRL_FB_GET_INFO_V2_PARAMS,      \
      subdevice)                                                                          \
    X(NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, 0xA06C0101u, NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS,    \
      channel_group)                                                                      \
    X(NVA06F_CTRL_CMD_GPFIFO_SCHEDULE, 0xA06F0103u, NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS,    \
      channel)                                                                            \
    X(NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, 0xC36F0108u,                          \
      NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS, channel)

/* ==================================================================== */
/* Flag words                                                            */
/* ==================================================================== */

#define NVOS32_TYPE_IMAGE 0
#define NVOS32_TYPE_NOTIFIER 13

#define NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT 0x00000001u
#define NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE 0x00000100u
#define NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED 0x00004000u
#define NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED 0x00008000u
#define NVOS32_ALLOC_FLAGS_PERSISTENT_VIDMEM 0x00010000u

#define NVOS32_ATTR_PAGE_SIZE_SHIFT 23 /* 24:23 */
#define NVOS32_ATTR_PAGE_SIZE_4KB 1u
#define NVOS32_ATTR_PAGE_SIZE_HUGE 3u
#define NVOS32_ATTR_LOCATION_SHIFT 25 /* 26:25 */
#define NVOS32_ATTR_LOCATION_VIDMEM 0u
#define NVOS32_ATTR_LOCATION_PCI 1u
#define NVOS32_ATTR_PHYSICALITY_SHIFT 27 /* 28:27 */
#define NVOS32_ATTR_PHYSICALITY_CONTIGUOUS 2u
#define NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS 3u
#define NVOS32_ATTR_COHERENCY_SHIFT 29 /* 31:29 */
#define NVOS32_ATTR_COHERENCY_UNCACHED 0u
#define NVOS32_ATTR_COHERENCY_CACHED 1u

#define NVOS32_ATTR2_ZBC_PREFER_NO_ZBC 1u /* 1:0 */
#define NVOS32_ATTR2_GPU_CACHEABLE_SHIFT 2  /* 3:2 */
#define NVOS32_ATTR2_GPU_CACHEABLE_YES 1u
#define NVOS32_ATTR2_GPU_CACHEABLE_NO 2u
#define NVOS32_ATTR2_PAGE_SIZE_HUGE_SHIFT 20 /* 21:20 */
#define NVOS32_ATTR2_PAGE_SIZE_HUGE_2MB 1u

#define NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS (1u << 4)
#define NVOS02_FLAGS_COHERENCY_CACHED (1u << 12)
#define NVOS02_FLAGS_MAPPING_NO_MAP (1u << 30)

#define NVOS46_FLAGS_CACHE_SNOOP_ENABLE (1u << 4)
#define NVOS46_FLAGS_PAGE_SIZE_4KB (1u << 8)
#define NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE (1u << 15)

#define NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED 0x08u
#define NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING 0x40u
#define NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC 1u
#define NV2080_ENGINE_TYPE_GRAPHICS 1u
#define NV2080_ENGINE_TYPE_COPY0 0x09u  /* COPY0..COPY9: 0x09..0x12 */
#define NV2080_ENGINE_TYPE_COPY10 0x34u /* COPY10..COPY19: 0x34..0x3d */
#define NV2080_ENGINE_TYPE_COPY(i) ((i) < 10 ? NV2080_ENGINE_TYPE_COPY0 + (i) : NV2080_ENGINE_TYPE_COPY10 + (i) - 10)
/* The inverse: the index n of NV2080_ENGINE_TYPE_COPYn (a copy engine type). */
#define NV2080_ENGINE_TYPE_COPY_IDX(t)                                                    \
    ((t) >= NV2080_ENGINE_TYPE_COPY10 ? (t) - NV2080_ENGINE_TYPE_COPY10 + 10                \
                                      : (t) - NV2080_ENGINE_TYPE_COPY0)
#define NV2080_ENGINE_TYPE_IS_COPY(t) (((t) >= 0x09u && (t) <= 0x12u) || ((t) >= 0x34u && (t) <= 0x3du))

/* ==================================================================== */
/* NV_STATUS                                                             */
/* ==================================================================== */

#define NV_OK 0x00
#define NV_ERR_INSUFFICIENT_RESOURCES 0x1A
#define NV_ERR_INVALID_ARGUMENT 0x1F
#define NV_ERR_INVALID_CLASS 0x22
#define NV_ERR_INVALID_OBJECT_HANDLE 0x33
#define NV_ERR_INVALID_PARAM_STRUCT 0x3A
#define NV_ERR_NO_MEMORY 0x51
#define NV_ERR_NOT_SUPPORTED 0x56
#define NV_ERR_STATE_IN_USE 0x63

/* "NV_ERR_NO_MEMORY" for 0x51; "NV_STATUS_<hex>" for an unknown code
 * (a static buffer per thread). Never NULL. */
const char *nvdrv_status_name(uint32_t status);

/* ==================================================================== */
/* Wrappers                                                              */
/* ==================================================================== */

/* One driver connection: the RM client on a ctl fd plus the two UVM fds.
 * Thread safety: every wrapper may be called from any thread once
 * nvdrv_open() returned (the kernel serialises RM; handle numbers come
 * from an atomic counter). Fields are read-only after nvdrv_open(). */
struct nvdrv {
    const struct nvdrv_ops *ops;
    void *ctx;
    int ctl_fd;
    int uvm_fd;    /* UVM_INITIALIZE'd; every UVM ioctl goes here */
    int uvm_mm_fd; /* UVM_MM_INITIALIZE(uvm_fd) */
    uint32_t client;
    unsigned major; /* driver major version, e.g. 580 */
    char version[64];
    uint32_t next_handle; /* atomic: client-chosen handles */
};

/* Open the ctl fd, allocate the RM client, read the build version and
 * refuse unknown ABI majors (-ENOTSUP, logged), open and initialise UVM.
 * On failure everything opened so far is closed. */
int nvdrv_open(struct nvdrv *d, const struct nvdrv_ops *ops, void *ctx);
/* True in a child of fork() made after an nvdrv_open: the connection is
 * the parent's, and every ioctl answers -EPERM there. */
bool nvdrv_forked(void);
/* Frees the client (RM frees everything under it) and closes the fds. */
void nvdrv_close(struct nvdrv *d);

/* The ioctl with EINTR/EAGAIN retry. 0 or -errno. */
int nvdrv_ioctl(struct nvdrv *d, int fd, unsigned long request, void *arg);
/* NV_ESC_* on fd with a struct of size bytes. */
int nvdrv_escape(struct nvdrv *d, int fd, unsigned nr, void *arg, size_t size);

/* Valid entries of NV_ESC_CARD_INFO, in driver order. */
int nvdrv_card_info(struct nvdrv *d, nv_ioctl_card_info_t *cards, unsigned max, unsigned *count);

/* Open /dev/nvidia<minor> and REGISTER_FD it to the ctl fd. Returns the
 * fd or -errno. The caller closes it with nvdrv_close_fd(). */
int nvdrv_open_gpu_fd(struct nvdrv *d, uint32_t minor);
void nvdrv_close_fd(struct nvdrv *d, int fd);

/* A fresh client-chosen object handle (for NVOS02). */
uint32_t nvdrv_new_handle(struct nvdrv *d);

/* RM_ALLOC under parent. *handle: in 0 (RM picks) or a chosen handle; out
 * the object's handle. params may be NULL (size 0). */
int nvdrv_rm_alloc(struct nvdrv *d, uint32_t parent, uint32_t cls, void *params,
                   uint32_t params_size, uint32_t *handle);
/* RM_CONTROL on object (the client itself for NV0000 commands). */
int nvdrv_rm_control(struct nvdrv *d, uint32_t object, uint32_t cmd, void *params,
                     uint32_t params_size);
int nvdrv_rm_free(struct nvdrv *d, uint32_t parent, uint32_t object);

/* Pin [addr, addr+size) as NV01_MEMORY_SYSTEM_OS_DESCRIPTOR under parent
 * (a device), through gpu_fd (a registered /dev/nvidiaN). Out: a new
 * client-chosen handle. */
int nvdrv_rm_alloc_os_memory(struct nvdrv *d, int gpu_fd, uint32_t parent, void *addr,
                             uint64_t size, uint32_t *handle);

/* CPU mapping of an RM memory object: a fresh fd (/dev/nvidia<minor>,
 * registered; or a fresh /dev/nvidiactl when minor is NVDRV_MINOR_CTL, for
 * NV01_MEMORY_SYSTEM), RM_MAP_MEMORY naming it, mmap of that fd, fd
 * closed. want is a placement hint tried with MAP_FIXED_NOREPLACE (NULL:
 * anywhere). Out: the CPU address (unmap with nvdrv_munmap). */
#define NVDRV_MINOR_CTL UINT32_MAX
int nvdrv_rm_map_memory(struct nvdrv *d, uint32_t minor, uint32_t device, uint32_t memory,
                        uint64_t size, void *want, void **cpu);
int nvdrv_munmap(struct nvdrv *d, void *cpu, uint64_t size);

/* RM_MAP_MEMORY_DMA of memory into hdma (NV01_MEMORY_VIRTUAL) at the fixed
 * GPU VA va (4 KiB page-size field, snooped). */
int nvdrv_rm_map_memory_dma(struct nvdrv *d, uint32_t device, uint32_t hdma, uint32_t memory,
                            uint64_t size, uint64_t va);

/* Non-stall interrupts as OS events. nvdrv_event_open: a fresh ctl fd
 * registered with NV_ESC_ALLOC_OS_EVENT (out: *fd). nvdrv_event_attach:
 * an NV01_EVENT_OS_EVENT under subdevice for engine notifier index
 * `notify` (NV2080_NOTIFIERS_*), non-stall and without data, posted to
 * fd. nvdrv_event_wait: the seam's poll (1 posted, 0 timeout, -errno);
 * nvdrv_event_poke ends it early (the seam's poke). nvdrv_event_close frees the registration and closes fd (RM frees the
 * event objects with the client, or the caller with nvdrv_rm_free). */
int nvdrv_event_open(struct nvdrv *d, int *fd);
int nvdrv_event_attach(struct nvdrv *d, int fd, uint32_t subdevice, uint32_t notify,
                       uint32_t *handle);
int nvdrv_event_wait(struct nvdrv *d, int fd, uint64_t timeout_ns);
int nvdrv_event_poke(struct nvdrv *d, int fd);
void nvdrv_event_close(struct nvdrv *d, int fd);

/* UVM wrappers: 0, -errno or a positive NV_STATUS (rmStatus). */
int nvdrv_uvm_register_gpu(struct nvdrv *d, const uint8_t uuid[16]);
int nvdrv_uvm_unregister_gpu(struct nvdrv *d, const uint8_t uuid[16]);
int nvdrv_uvm_register_gpu_vaspace(struct nvdrv *d, const uint8_t uuid[16], uint32_t vaspace);
int nvdrv_uvm_unregister_gpu_vaspace(struct nvdrv *d, const uint8_t uuid[16]);
int nvdrv_uvm_register_channel(struct nvdrv *d, const uint8_t uuid[16], uint32_t channel,
                               uint64_t base, uint64_t length);
int nvdrv_uvm_unregister_channel(struct nvdrv *d, const uint8_t uuid[16], uint32_t channel);
int nvdrv_uvm_create_external_range(struct nvdrv *d, uint64_t base, uint64_t length);
int nvdrv_uvm_map_external_allocation(struct nvdrv *d, const uint8_t uuid[16], uint64_t base,
                                      uint64_t length, uint32_t memory);
int nvdrv_uvm_free(struct nvdrv *d, uint64_t base, uint64_t length);

/* Map a wrapper result to an errno for callers that don't care which:
 * 0 → 0, -e → -e, NV_ERR_NO_MEMORY → -ENOMEM, other NV_STATUS → -EIO. */
int nvdrv_errno(int r);

#endif

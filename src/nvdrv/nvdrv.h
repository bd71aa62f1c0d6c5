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
 * _Static_assert on every size and on the offsets that matter.
 */
#ifndef HCQCL_NVDRV_NVDRV_H
#define HCQCL_NVDRV_NVDRV_H

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
};

extern const struct nvdrv_ops nvdrv_kernel_ops;

/* The emulated device's seam (src/emu). One process-wide instance; ctx is
 * the emulated driver. */
const struct nvdrv_ops *emu_ops(void **ctx);

#endif

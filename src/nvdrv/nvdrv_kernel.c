/* The real seam: system calls on the kernel driver's device files. */
#include "nvdrv/nvdrv.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static int kernel_open(void *ctx, const char *path, int flags)
{
    (void)ctx;
    int fd = open(path, flags);
    return fd < 0 ? -errno : fd;
}

static int kernel_close(void *ctx, int fd)
{
    (void)ctx;
    return close(fd) < 0 ? -errno : 0;
}

static int kernel_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
    (void)ctx;
    return ioctl(fd, request, arg) < 0 ? -errno : 0;
}

static void *kernel_mmap(void *ctx, void *addr, size_t length, int prot, int flags, int fd,
                         off_t offset)
{
    (void)ctx;
    return mmap(addr, length, prot, flags, fd, offset);
}

static int kernel_munmap(void *ctx, void *addr, size_t length)
{
    (void)ctx;
    return munmap(addr, length) < 0 ? -errno : 0;
}

const struct nvdrv_ops nvdrv_kernel_ops = {
    .name = "kernel",
    .open = kernel_open,
    .close = kernel_close,
    .ioctl = kernel_ioctl,
    .mmap = kernel_mmap,
    .munmap = kernel_munmap,
};

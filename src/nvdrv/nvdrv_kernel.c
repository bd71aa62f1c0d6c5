/* The real seam: system calls on the kernel driver's device files. */
#include "nvdrv/nvdrv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
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

/* The driver's poll reports POLLIN | POLLPRI while an event is queued
 * and clears its "dataless event pending" flag in the same call. */
static int kernel_poll(void *ctx, int fd, uint64_t timeout_ns)
{
    (void)ctx;
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLPRI};
    struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    int n = ppoll(&p, 1, &ts, NULL);
    if (n < 0)
        return errno == EINTR ? 0 : -errno;
    if (n == 0)
        return 0;
    if (p.revents & (POLLERR | POLLHUP | POLLNVAL))
        return -EIO;
    return 1;
}

const struct nvdrv_ops nvdrv_kernel_ops = {
    .name = "kernel",
    .open = kernel_open,
    .close = kernel_close,
    .ioctl = kernel_ioctl,
    .mmap = kernel_mmap,
    .munmap = kernel_munmap,
    .poll = kernel_poll,
};

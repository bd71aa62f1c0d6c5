/* The real seam: system calls on the kernel driver's device files. */
#include "nvdrv/nvdrv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
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

/* Pokes: an eventfd beside each event fd polled (one poller per fd),
 * made at its first poll or poke and closed with it. */
enum { POKE_FDS = 64 };
static pthread_mutex_t poke_lock = PTHREAD_MUTEX_INITIALIZER;
static struct poke {
    int fd, efd;
} pokes[POKE_FDS];
static unsigned npokes;

/* fd's eventfd (-1: none could be made, polls are not poked). */
static int poke_fd(int fd)
{
    int efd = -1;
    pthread_mutex_lock(&poke_lock);
    for (unsigned i = 0; i < npokes && efd < 0; i++)
        if (pokes[i].fd == fd)
            efd = pokes[i].efd;
    if (efd < 0 && npokes < POKE_FDS) {
        efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (efd >= 0)
            pokes[npokes++] = (struct poke){fd, efd};
    }
    pthread_mutex_unlock(&poke_lock);
    return efd;
}

static int kernel_close(void *ctx, int fd)
{
    (void)ctx;
    pthread_mutex_lock(&poke_lock);
    for (unsigned i = 0; i < npokes; i++)
        if (pokes[i].fd == fd) {
            close(pokes[i].efd);
            pokes[i] = pokes[--npokes];
            break;
        }
    pthread_mutex_unlock(&poke_lock);
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
    const int efd = poke_fd(fd);
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN | POLLPRI}, {.fd = efd, .events = POLLIN}};
    struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    int n = ppoll(p, efd >= 0 ? 2 : 1, &ts, NULL);
    if (n < 0)
        return errno == EINTR ? 0 : -errno;
    if (n == 0)
        return 0;
    if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL))
        return -EIO;
    if (efd >= 0 && (p[1].revents & POLLIN)) {
        uint64_t v;
        if (read(efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
            return -errno;
    }
    return 1;
}

static int kernel_poke(void *ctx, int fd)
{
    (void)ctx;
    const int efd = poke_fd(fd);
    const uint64_t one = 1;
    if (efd < 0)
        return -EMFILE;
    return write(efd, &one, sizeof(one)) < 0 && errno != EAGAIN ? -errno : 0;
}

const struct nvdrv_ops nvdrv_kernel_ops = {
    .name = "kernel",
    .open = kernel_open,
    .close = kernel_close,
    .ioctl = kernel_ioctl,
    .mmap = kernel_mmap,
    .munmap = kernel_munmap,
    .poll = kernel_poll,
    .poke = kernel_poke,
};

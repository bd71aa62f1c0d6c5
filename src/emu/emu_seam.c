/*
 * The emulated device behind the nvdrv seam: virtual fds for
 * /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm, ioctl dispatch, and
 * CPU mappings of memory objects.
 *
 * The GPUs are created on first use: HCQCL_EMU_GPUS of them (1..8), each
 * with its own UUID, PCI bus, page table and usermode page. Memory size:
 * min(host RAM / 4, 16 GiB) per GPU, backed lazily.
 *
 * A CPU mapping placed anywhere is the backing store itself (one address
 * for CPU and model, which ThreadSanitizer needs to see their
 * synchronisation); one at a fixed address is a second view of the shared
 * backing store (mremap with old_size 0). Either way CPU and GPU see the
 * same bytes. As with the real driver, RM_MAP_MEMORY arms one mapping
 * context on a fresh fd and mmap of that fd consumes it.
 *
 * Locking: every entry point takes emu.lock; the GPU workers never do.
 */
#include "nvdrv/nvdrv.h"

#include "emu/emu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct emu emu = {.lock = PTHREAD_MUTEX_INITIALIZER};
static pthread_once_t emu_once = PTHREAD_ONCE_INIT;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void emu_init(void)
{
    long n = strtol(util_env()->emu_gpus, NULL, 10);
    emu.ngpus = (unsigned)(n < 1 ? 1 : n > EMU_MAX_GPUS ? EMU_MAX_GPUS : n);
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t mem = UTIL_MIN(ram / 4, 16ull << 30) & ~((2ull << 20) - 1);
    /* The size a GPU reports, as one: device limits end up in programs
     * (the CTS writes buffer sizes into its sources), and a cache of them
     * built here must match the GPU's. Allocations stay what the host can
     * back. */
    unsigned long long vram = strtoull(util_env()->emu_vram, NULL, 0);
    if (vram >= (64ull << 20))
        mem = vram;
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    uint64_t wall = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
    for (unsigned i = 0; i < emu.ngpus; i++) {
        struct emu_gpu *g = &emu.gpus[i];
        g->index = i;
        g->pci_bus = 0x18 + 0x10 * i;
        g->gpu_id = g->pci_bus << 8;
        uint64_t seed = 0x48323030656d75ull + i, a = splitmix(&seed), b = splitmix(&seed);
        memcpy(g->uuid, &a, 8);
        memcpy(g->uuid + 8, &b, 8);
        g->uuid[6] = (uint8_t)((g->uuid[6] & 0x0f) | 0x40); /* a version-4 style UUID */
        g->mem_size = mem;
        /* PTIMER reads like the H200's: ns since the epoch. */
        g->timer_offset = wall - util_now_ns();
        emu_vm_init(&g->vm);
        pthread_mutex_init(&g->lock, NULL);
        pthread_cond_init(&g->cond, NULL);
        pthread_cond_init(&g->wake, NULL);
        g->next_token = 0xA;
        void *u = mmap(NULL, EMU_USERMODE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                       -1, 0);
        g->usermode = u == MAP_FAILED ? NULL : u;
    }
}

struct emu_fd *emu_fd_get(int fd)
{
    if (fd < EMU_FD_BASE || fd - EMU_FD_BASE >= EMU_MAX_FDS)
        return NULL;
    struct emu_fd *f = &emu.fds[fd - EMU_FD_BASE];
    return f->kind == EMU_FD_FREE ? NULL : f;
}

static int emu_open(void *ctx, const char *path, int flags)
{
    pthread_once(&emu_once, emu_init);
    struct emu_fd nf = {.ctl = -1};
    unsigned minor;
    char tail;
    if (!strcmp(path, NVDRV_PATH_CTL))
        nf.kind = EMU_FD_CTL;
    else if (!strcmp(path, NVDRV_PATH_UVM))
        nf.kind = EMU_FD_UVM;
    else if (sscanf(path, "/dev/nvidia%u%c", &minor, &tail) == 1 && minor < emu.ngpus) {
        nf.kind = EMU_FD_DEV;
        nf.gpu = minor;
    } else
        return -ENOENT;
    pthread_mutex_lock(&emu.lock);
    int fd = -EMFILE;
    for (int i = 0; i < EMU_MAX_FDS; i++)
        if (emu.fds[i].kind == EMU_FD_FREE) {
            emu.fds[i] = nf;
            fd = EMU_FD_BASE + i;
            break;
        }
    pthread_mutex_unlock(&emu.lock);
    return fd;
}

static int emu_close(void *ctx, int fd)
{
    pthread_mutex_lock(&emu.lock);
    struct emu_fd *f = emu_fd_get(fd);
    if (!f) {
        pthread_mutex_unlock(&emu.lock);
        return -EBADF;
    }
    if (f->kind == EMU_FD_CTL) {
        emu_rm_close_fd(fd);
        for (int i = 0; i < EMU_MAX_FDS; i++)
            if (emu.fds[i].kind == EMU_FD_DEV && emu.fds[i].ctl == fd)
                emu.fds[i].ctl = -1;
    } else if (f->kind == EMU_FD_UVM) {
        emu_uvm_close_fd(fd);
    }
    emu_event_close_fd(fd);
    emu_mem_unref(f->map_mem);
    memset(f, 0, sizeof(*f));
    pthread_mutex_unlock(&emu.lock);
    return 0;
}

static int emu_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
    pthread_mutex_lock(&emu.lock);
    struct emu_fd *f = emu_fd_get(fd);
    int rc;
    if (!f)
        rc = -EBADF;
    else if (!arg)
        rc = -EFAULT;
    else if (f->kind == EMU_FD_UVM)
        rc = emu_uvm_ioctl(fd, request, arg);
    else if (((request >> 8) & 0xff) != NV_IOCTL_MAGIC)
        rc = -ENOTTY;
    else
        rc = emu_rm_ioctl(fd, NVDRV_ESC_NR(request), NVDRV_ESC_SIZE(request), arg);
    pthread_mutex_unlock(&emu.lock);
    return rc;
}

/* CPU views handed out as the backing store's own address (see emu_mmap),
 * under emu.lock. Each holds a reference to its memory: like a real
 * mapping, it outlives the RM object until it is unmapped. */
struct direct_view {
    void *addr;
    size_t len;
    struct emu_mem *mem;
};
static struct direct_view *views;
static size_t nviews, capviews;

static bool view_add(void *addr, size_t len, struct emu_mem *mem)
{
    if (nviews == capviews) {
        size_t cap = capviews ? capviews * 2 : 64;
        struct direct_view *v = realloc(views, cap * sizeof(*v));
        if (!v)
            return false;
        views = v;
        capviews = cap;
    }
    views[nviews++] = (struct direct_view){addr, len, emu_mem_ref(mem)};
    return true;
}

static void *emu_mmap(void *ctx, void *addr, size_t length, int prot, int flags, int fd,
                      off_t offset)
{
    pthread_mutex_lock(&emu.lock);
    struct emu_fd *f = emu_fd_get(fd);
    void *r = MAP_FAILED;
    int err = EINVAL;
    if (!f) {
        err = EBADF;
        goto out;
    }
    /* The vma must cover exactly what RM_MAP_MEMORY armed, from offset 0. */
    if (!f->map_mem || offset != 0 || length != f->map_len || !f->map_mem->shareable ||
        !(flags & MAP_SHARED))
        goto out;
    void *src = f->map_mem->host + f->map_off;
    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        void *at = addr;
        if (flags & MAP_FIXED_NOREPLACE) {
            /* Reserve first: fails with EEXIST if anything is mapped there. */
            at = mmap(addr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                      -1, 0);
            if (at == MAP_FAILED) {
                err = errno;
                goto out;
            }
            if (at != addr) { /* old kernels treat the flag as a hint */
                munmap(at, length);
                err = EEXIST;
                goto out;
            }
        }
        r = mremap(src, 0, length, MREMAP_MAYMOVE | MREMAP_FIXED, at);
    } else if (prot == (PROT_READ | PROT_WRITE)) {
        /* Anywhere: the backing store itself. The model then reads and
         * writes the very addresses the CPU side does, so the release and
         * acquire pairs between them (GP_PUT, semaphores) are visible to
         * ThreadSanitizer, which would see two aliases as unrelated. */
        r = view_add(src, length, f->map_mem) ? src : MAP_FAILED;
        if (r == MAP_FAILED)
            err = ENOMEM;
        goto out;
    } else {
        r = mremap(src, 0, length, MREMAP_MAYMOVE);
    }
    if (r == MAP_FAILED) {
        err = errno;
        goto out;
    }
    if (prot != (PROT_READ | PROT_WRITE) && mprotect(r, length, prot) != 0) {
        err = errno;
        munmap(r, length);
        r = MAP_FAILED;
    }
out:
    pthread_mutex_unlock(&emu.lock);
    if (r == MAP_FAILED)
        errno = err;
    return r;
}

static int emu_munmap(void *ctx, void *addr, size_t length)
{
    pthread_mutex_lock(&emu.lock);
    for (size_t i = nviews; i-- > 0;) {
        if (views[i].addr == addr && views[i].len == length) {
            struct emu_mem *m = views[i].mem;
            views[i] = views[--nviews];
            emu_mem_unref(m);
            pthread_mutex_unlock(&emu.lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&emu.lock);
    return munmap(addr, length) == 0 ? 0 : -errno;
}

static int emu_poll(void *ctx, int fd, uint64_t timeout_ns)
{
    (void)ctx;
    /* Not under emu.lock: a sleeping poller must not stall the driver. */
    return emu_event_poll(fd, timeout_ns);
}

static int emu_poke(void *ctx, int fd)
{
    (void)ctx;
    return emu_event_poke(fd);
}

static const struct nvdrv_ops ops = {
    .name = "emulated",
    .open = emu_open,
    .close = emu_close,
    .ioctl = emu_ioctl,
    .mmap = emu_mmap,
    .munmap = emu_munmap,
    .poll = emu_poll,
    .poke = emu_poke,
};

const struct nvdrv_ops *emu_ops(void **ctx)
{
    pthread_once(&emu_once, emu_init);
    if (ctx)
        *ctx = &emu;
    return &ops;
}

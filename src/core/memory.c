/* GPU memory: the four kinds of hcq.h, mapped into the device's UVM-owned
 * VA space in three steps (UVM range, RM DMA mapping, UVM external map),
 * with CPU views through fresh registered fds. Freed in the order verified
 * on the H200: UVM_FREE, RM_FREE, munmap. */
#include "core/priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const char *kind_name(enum hcq_mem_kind k)
{
    switch (k) {
    case HCQ_MEM_DEVICE: return "device";
    case HCQ_MEM_DEVICE_MAPPED: return "device-mapped";
    case HCQ_MEM_HOST: return "host";
    case HCQ_MEM_USER: return "user";
    }
    return "?";
}

/* Map the RM object into the GPU VA space at va. */
static int gpu_map_ex(struct hcq_device *dev, uint32_t h_memory, uint64_t va, uint64_t size,
                      bool in_range)
{
    struct nvdrv *d = hcq_drv(dev);
    int r = in_range ? 0 : nvdrv_uvm_create_external_range(d, va, size);
    if (r)
        return nvdrv_errno(r);
    r = nvdrv_rm_map_memory_dma(d, dev->h_device, dev->h_virtmem, h_memory, size, va);
    if (r == 0)
        r = nvdrv_uvm_map_external_allocation(d, dev->info.uuid, va, size, h_memory);
    if (r) {
        if (!in_range)
            nvdrv_uvm_free(d, va, size);
        return nvdrv_errno(r);
    }
    return 0;
}

static int gpu_map(struct hcq_device *dev, uint32_t h_memory, uint64_t va, uint64_t size)
{
    return gpu_map_ex(dev, h_memory, va, size, false);
}

/* RM allocation of vidmem (NV01_MEMORY_LOCAL_USER) or sysmem
 * (NV01_MEMORY_SYSTEM), flag words as verified on the H200 for vidmem and
 * uncached sysmem. Sysmem with page HCQ_PAGE_2M is CPU-cached memory in
 * 2 MiB pages (RM falls back to 64 KiB, then 4 KiB pages when it cannot:
 * system_mem.c), for HCQCL_HOST_PAGES=driver. */
static int rm_alloc_mem(struct hcq_device *dev, uint64_t size, uint64_t page, bool sysmem,
                        bool contig, uint32_t *handle)
{
    NV_MEMORY_ALLOCATION_PARAMS p = {
        .owner = hcq_drv(dev)->client,
        .size = size,
        .alignment = page,
        .limit = size - 1,
        .format = 6,
    };
    uint32_t cls;
    if (sysmem) {
        cls = NV01_MEMORY_SYSTEM;
        p.type = NVOS32_TYPE_NOTIFIER;
        p.flags = NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT | NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE |
                  NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED | NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED;
        p.attr = NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS << NVOS32_ATTR_PHYSICALITY_SHIFT |
                 NVOS32_ATTR_LOCATION_PCI << NVOS32_ATTR_LOCATION_SHIFT;
        p.attr2 = NVOS32_ATTR2_ZBC_PREFER_NO_ZBC |
                  NVOS32_ATTR2_GPU_CACHEABLE_NO << NVOS32_ATTR2_GPU_CACHEABLE_SHIFT;
        if (page == HCQ_PAGE_2M) {
            p.attr |= NVOS32_ATTR_COHERENCY_CACHED << NVOS32_ATTR_COHERENCY_SHIFT |
                      NVOS32_ATTR_PAGE_SIZE_HUGE << NVOS32_ATTR_PAGE_SIZE_SHIFT;
            p.attr2 |= NVOS32_ATTR2_PAGE_SIZE_HUGE_2MB << NVOS32_ATTR2_PAGE_SIZE_HUGE_SHIFT;
        }
    } else {
        cls = NV01_MEMORY_LOCAL_USER;
        p.type = NVOS32_TYPE_IMAGE;
        p.flags = NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT | NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE |
                  NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED | NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED |
                  NVOS32_ALLOC_FLAGS_PERSISTENT_VIDMEM;
        p.attr = (contig ? NVOS32_ATTR_PHYSICALITY_CONTIGUOUS
                         : NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS)
                 << NVOS32_ATTR_PHYSICALITY_SHIFT;
        p.attr2 = NVOS32_ATTR2_ZBC_PREFER_NO_ZBC |
                  NVOS32_ATTR2_GPU_CACHEABLE_YES << NVOS32_ATTR2_GPU_CACHEABLE_SHIFT;
        if (page == HCQ_PAGE_2M) {
            p.attr |= NVOS32_ATTR_PAGE_SIZE_HUGE << NVOS32_ATTR_PAGE_SIZE_SHIFT;
            p.attr2 |= NVOS32_ATTR2_PAGE_SIZE_HUGE_2MB << NVOS32_ATTR2_PAGE_SIZE_HUGE_SHIFT;
        }
    }
    uint32_t h = nvdrv_new_handle(hcq_drv(dev));
    int r = nvdrv_rm_alloc(hcq_drv(dev), dev->h_device, cls, &p, sizeof(p), &h);
    if (r == 0)
        *handle = h;
    return r;
}

/* CPU view of an RM memory object; placed at the GPU VA when the real
 * driver allows it (nothing relies on that). */
static int cpu_map(struct hcq_device *dev, uint32_t minor, uint32_t h_memory, uint64_t va,
                   uint64_t size, void **cpu)
{
    struct nvdrv *d = hcq_drv(dev);
    void *want = d->ops == &nvdrv_kernel_ops ? (void *)(uintptr_t)va : NULL;
    return nvdrv_errno(nvdrv_rm_map_memory(d, minor, dev->h_device, h_memory, size, want, cpu));
}

/* Undo whatever of an allocation exists, in the verified order; gpu_va is
 * the base of the GPU mapping, 0 when there is none. */
static void mem_release(struct hcq_device *dev, struct hcq_mem_priv *m, uint64_t gpu_va)
{
    struct nvdrv *d = hcq_drv(dev);
    if (gpu_va && !m->in_range)
        nvdrv_uvm_free(d, gpu_va, m->map_size);
    if (m->h_memory)
        nvdrv_rm_free(d, dev->h_device, m->h_memory);
    /* Host pages came from our own mmap; driver views through the seam. */
    if (m->cpu_map && m->own_pages)
        munmap(m->cpu_map, m->cpu_map_size);
    else if (m->cpu_map)
        nvdrv_munmap(d, m->cpu_map, m->cpu_map_size);
    if (m->counted)
        atomic_fetch_sub(&dev->mem_in_use, m->counted);
    free(m);
}

/* Pages for pinned host memory. From 2 MiB on: private anonymous memory
 * 2 MiB aligned and advised into transparent huge pages (the CPU walks a
 * gigabyte copy in and out of it with 512 times fewer TLB entries), kept
 * out of forked children (MADV_DONTFORK: a child's copy-on-write would
 * leave the GPU mapping the parent's old pages). Smaller, or with
 * HCQCL_HOST_PAGES=small: shared anonymous pages. MAP_FAILED on failure. */
static void *host_pages(uint64_t size)
{
    const uint64_t huge = 2u << 20;
    if (size >= huge && strcmp(util_env()->host_pages, "small") != 0) {
        const size_t len = size + huge;
        uint8_t *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw != MAP_FAILED) {
            uint8_t *p = (uint8_t *)util_align_up((uintptr_t)raw, huge);
            if (p > raw)
                munmap(raw, (size_t)(p - raw));
            if (raw + len > p + size)
                munmap(p + size, (size_t)(raw + len - (p + size)));
            if (madvise(p, size, MADV_DONTFORK) == 0) {
                madvise(p, size, MADV_HUGEPAGE); /* advice: fine without */
                return p;
            }
            munmap(p, size);
        }
    }
    return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

/* A fresh record for size bytes of kind on dev (NULL: out of memory). */
static struct hcq_mem_priv *mem_new(struct hcq_device *dev, uint64_t size, enum hcq_mem_kind kind)
{
    struct hcq_mem_priv *m = calloc(1, sizeof(*m));
    if (m) {
        m->pub.dev = dev;
        m->pub.kind = kind;
        m->pub.size = size;
    }
    return m;
}

int hcq_mem_alloc_ex(struct hcq_device *dev, uint64_t size, enum hcq_mem_kind kind,
                     unsigned flags, struct hcq_mem **out)
{
    *out = NULL;
    if (!size || kind == HCQ_MEM_USER || !__atomic_load_n(&dev->refs, __ATOMIC_ACQUIRE))
        return -EINVAL;
    struct hcq_mem_priv *m = mem_new(dev, size, kind);
    if (!m)
        return -ENOMEM;
    bool vid = kind == HCQ_MEM_DEVICE || kind == HCQ_MEM_DEVICE_MAPPED;
    /* HCQCL_HOST_PAGES=driver: pinned host memory of 2 MiB and more that
     * RM allocates in 2 MiB pages, so that the GPU can map it with pages
     * as large (RM describes memory of our own, pinned through an OS
     * descriptor, in 4 KiB pages). On the H200 as fast as the default's
     * transparent huge pages (docs/gpu-runs.md). */
    bool rm_host = kind == HCQ_MEM_HOST && !(flags & HCQ_MEMF_RM_SYSMEM) &&
                   size >= HCQ_PAGE_2M && !strcmp(util_env()->host_pages, "driver");
    m->page = (vid && size >= HCQ_HUGE_MIN) || rm_host ? HCQ_PAGE_2M : HCQ_PAGE_4K;
    m->map_size = util_align_up(size, m->page);
    m->high = !(flags & HCQ_MEMF_LOW) && kind == HCQ_MEM_DEVICE;
    uint64_t align = m->map_size >= HCQ_PAGE_2M ? HCQ_PAGE_2M : 0x10000;
    struct hcq_va *va = m->high ? dev->va_high : dev->va_low;
    uint64_t base;
    int r = hcq_va_alloc(va, m->map_size, align, &base);
    if (r) {
        free(m);
        return r;
    }
    if (rm_host) {
        /* Where RM refuses, our own pages as usual (said once). */
        r = nvdrv_errno(rm_alloc_mem(dev, m->map_size, HCQ_PAGE_2M, true, false, &m->h_memory));
        if (r == 0 &&
            (r = cpu_map(dev, NVDRV_MINOR_CTL, m->h_memory, 0, m->map_size, &m->cpu_map))) {
            nvdrv_rm_free(hcq_drv(dev), dev->h_device, m->h_memory);
            m->h_memory = 0;
        }
        if (r) {
            static atomic_bool said;
            if (!atomic_exchange(&said, true))
                CORE_ERR("core: HCQCL_HOST_PAGES=driver: the driver refused pinned memory "
                         "(%s); our own pages instead", strerror(-r));
            rm_host = false;
        } else {
            m->cpu_map_size = m->map_size;
            m->pub.cpu = m->cpu_map;
        }
    }
    if (!rm_host && (vid || (flags & HCQ_MEMF_RM_SYSMEM))) {
        r = nvdrv_errno(rm_alloc_mem(dev, m->map_size, m->page, !vid, flags & HCQ_MEMF_CONTIG,
                                     &m->h_memory));
        if (r)
            goto fail;
        if (vid) {
            m->counted = m->map_size;
            atomic_fetch_add(&dev->mem_in_use, m->counted);
        }
        if (kind == HCQ_MEM_DEVICE_MAPPED) {
            r = cpu_map(dev, dev->card.minor_number, m->h_memory, base, m->map_size,
                        &m->cpu_map);
            if (r)
                goto fail;
            m->cpu_map_size = m->map_size;
            m->pub.cpu = m->cpu_map;
        } else if (!vid) {
            /* Error notifiers: a CPU view lets waits notice channel
             * errors; without one they still time out. */
            if (cpu_map(dev, NVDRV_MINOR_CTL, m->h_memory, 0, m->map_size, &m->cpu_map) == 0) {
                m->cpu_map_size = m->map_size;
                m->pub.cpu = m->cpu_map;
            }
        }
    } else if (!rm_host) {
        /* Pinned host memory: anonymous pages pinned by an OS descriptor
         * (the path signals use on the H200). */
        void *p = host_pages(m->map_size);
        if (p == MAP_FAILED) {
            r = -ENOMEM;
            goto fail;
        }
        m->cpu_map = p;
        m->cpu_map_size = m->map_size;
        m->own_pages = true;
        m->pub.cpu = p;
        r = nvdrv_errno(nvdrv_rm_alloc_os_memory(hcq_drv(dev), dev->gpu_fd, dev->h_device, p,
                                                 m->map_size, &m->h_memory));
        if (r)
            goto fail;
    }
    r = gpu_map(dev, m->h_memory, base, m->map_size);
    if (r)
        goto fail;
    m->pub.va = base;
    CORE_LOG("mem alloc %s 0x%llx bytes at va 0x%llx cpu %p", kind_name(kind),
             (unsigned long long)size, (unsigned long long)base, m->pub.cpu);
    atomic_fetch_add_explicit(&dev->mem_allocs, 1, memory_order_relaxed);
    *out = &m->pub;
    return 0;

fail:
    /* gpu_map undoes its own partial work; mmap'ed host pages go with
     * cpu_map in mem_release. */
    CORE_LOG("mem alloc %s 0x%llx failed: %d", kind_name(kind), (unsigned long long)size, r);
    uint64_t map_size = m->map_size;
    mem_release(dev, m, 0);
    hcq_va_free(va, base, map_size);
    return r;
}

int hcq_mem_alloc(struct hcq_device *dev, uint64_t size, enum hcq_mem_kind kind,
                  struct hcq_mem **out)
{
    return hcq_mem_alloc_ex(dev, size, kind, 0, out);
}

int hcq_mem_register(struct hcq_device *dev, void *host, uint64_t size, struct hcq_mem **out)
{
    *out = NULL;
    if (!host || !size || !__atomic_load_n(&dev->refs, __ATOMIC_ACQUIRE))
        return -EINVAL;
    uintptr_t first = (uintptr_t)host & ~(uintptr_t)(HCQ_PAGE_4K - 1);
    uintptr_t last = (uintptr_t)host + size;
    if (last < (uintptr_t)host)
        return -EINVAL;
    uint64_t len = util_align_up(last - first, HCQ_PAGE_4K);
    struct hcq_mem_priv *m = mem_new(dev, size, HCQ_MEM_USER);
    if (!m)
        return -ENOMEM;
    m->pub.cpu = host;
    m->page = HCQ_PAGE_4K;
    m->map_size = len;
    uint64_t base;
    int r = hcq_va_alloc(dev->va_low, len, 0x10000, &base);
    if (r) {
        free(m);
        return r;
    }
    r = nvdrv_rm_alloc_os_memory(hcq_drv(dev), dev->gpu_fd, dev->h_device, (void *)first, len,
                                 &m->h_memory);
    if (r) {
        /* Pages the driver cannot pin (file-backed, read-only, ...): the
         * caller falls back to a shadow copy. */
        hcq_va_free(dev->va_low, base, len);
        free(m);
        return r < 0 ? r : -EINVAL;
    }
    r = gpu_map(dev, m->h_memory, base, len);
    if (r) {
        mem_release(dev, m, 0);
        hcq_va_free(dev->va_low, base, len);
        return r;
    }
    m->pub.va = base + ((uintptr_t)host - first);
    *out = &m->pub;
    return 0;
}

int hcq_mem_alloc_at(struct hcq_device *dev, uint64_t va, uint64_t size, enum hcq_mem_kind kind,
                     void *host, bool in_range, struct hcq_mem **out)
{
    *out = NULL;
    if (!size || (va | size) % 0x10000 || (kind != HCQ_MEM_DEVICE && kind != HCQ_MEM_USER) ||
        (kind == HCQ_MEM_USER && (!host || (uintptr_t)host % HCQ_PAGE_4K)) ||
        !__atomic_load_n(&dev->refs, __ATOMIC_ACQUIRE))
        return -EINVAL;
    struct hcq_mem_priv *m = mem_new(dev, size, kind);
    if (!m)
        return -ENOMEM;
    m->fixed = true;
    m->in_range = in_range;
    m->map_size = size;
    bool huge = kind == HCQ_MEM_DEVICE && size >= HCQ_HUGE_MIN && !((va | size) % HCQ_PAGE_2M);
    m->page = huge ? HCQ_PAGE_2M : HCQ_PAGE_4K;
    int r;
    if (kind == HCQ_MEM_DEVICE) {
        r = nvdrv_errno(rm_alloc_mem(dev, size, m->page, false, false, &m->h_memory));
        if (r == 0) {
            m->counted = size;
            atomic_fetch_add(&dev->mem_in_use, m->counted);
        }
    } else {
        m->pub.cpu = host;
        r = nvdrv_errno(nvdrv_rm_alloc_os_memory(hcq_drv(dev), dev->gpu_fd, dev->h_device, host,
                                                 size, &m->h_memory));
    }
    if (r == 0)
        r = gpu_map_ex(dev, m->h_memory, va, size, in_range);
    if (r) {
        CORE_LOG("mem alloc_at %s 0x%llx at va 0x%llx failed: %d", kind_name(kind),
                 (unsigned long long)size, (unsigned long long)va, r);
        mem_release(dev, m, 0);
        return r;
    }
    m->pub.va = va;
    CORE_LOG("mem alloc_at %s 0x%llx bytes at va 0x%llx", kind_name(kind),
             (unsigned long long)size, (unsigned long long)va);
    atomic_fetch_add_explicit(&dev->mem_allocs, 1, memory_order_relaxed);
    *out = &m->pub;
    return 0;
}

void hcq_mem_free(struct hcq_mem *mem)
{
    if (!mem)
        return;
    struct hcq_mem_priv *m = hcq_mem_priv(mem);
    if (m->slab) {
        hcq_small_free(m);
        return;
    }
    struct hcq_device *dev = mem->dev;
    /* A registered range starts at the page holding the user's byte. */
    uint64_t base = mem->va & ~(HCQ_PAGE_4K - 1);
    struct hcq_va *va = m->high ? dev->va_high : dev->va_low;
    uint64_t size = m->map_size;
    /* UVM_FREE → RM_FREE → munmap, then the VA range is reusable. */
    bool fixed = m->fixed;
    mem_release(dev, m, base);
    if (!fixed)
        hcq_va_free(va, base, size);
}

uint64_t hcq_mem_in_use(const struct hcq_device *dev)
{
    return atomic_load(&((struct hcq_device *)dev)->mem_in_use);
}

uint64_t hcq_mem_allocs(const struct hcq_device *dev)
{
    return atomic_load(&((struct hcq_device *)dev)->mem_allocs);
}

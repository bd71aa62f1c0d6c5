/*
 * mem_unit.c — white-box: buffer create/release cycles give every byte of
 * GPU memory back (hcq_mem_in_use returns to its baseline), buffers are
 * backed by the memory kind their flags ask for, and the helpers enqueue
 * code uses (VA, CPU view, map bookkeeping) agree with the store, and
 * image descriptors share slabs (one driver allocation per image).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"
#include "check.h"
#include "unit_setup.h"


static void check_kinds(cl_context ctx, struct hcq_device *hw)
{
    uint8_t *host = aligned_alloc(4096, 1 << 16);
    memset(host, 0x5a, 1 << 16);
    struct {
        cl_mem_flags flags;
        bool cpu; /* host-visible store expected */
    } cases[] = {
        {0, false},
        {CL_MEM_ALLOC_HOST_PTR, true},
        /* Filled through device memory's CPU view, which maps do not
         * hand out: the CPU reads it at a few MB/s. */
        {CL_MEM_COPY_HOST_PTR, false},
        {CL_MEM_USE_HOST_PTR, true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cl_int err;
        cl_mem m = hcqcl_clCreateBuffer(ctx, cases[i].flags, 1 << 16,
                                        cases[i].flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR)
                                            ? host
                                            : NULL,
                                        &err);
        EXPECT(m && err == CL_SUCCESS, "flags 0x%llx: %d", (unsigned long long)cases[i].flags, err);
        if (!m)
            continue;
        const struct hcq_mem *st = hcqcl_mem_store(m, hw);
        EXPECT(st && st->size >= (1 << 16), "store");
        EXPECT(hcqcl_mem_va(m, hw) == st->va, "VA of byte 0");
        EXPECT(hcqcl_mem_is_host_visible(m) == cases[i].cpu, "flags 0x%llx: host visible %d",
               (unsigned long long)cases[i].flags, hcqcl_mem_is_host_visible(m));
        if (cases[i].flags & CL_MEM_USE_HOST_PTR && !m->shadow)
            EXPECT(hcqcl_mem_cpu(m) == host && st->kind == HCQ_MEM_USER, "zero copy");
        if (cases[i].flags & CL_MEM_ALLOC_HOST_PTR)
            EXPECT(st->kind == HCQ_MEM_HOST, "ALLOC_HOST_PTR kind %d", st->kind);
        if (cases[i].flags & CL_MEM_COPY_HOST_PTR)
            EXPECT(st->kind != HCQ_MEM_DEVICE_MAPPED || ((uint8_t *)st->cpu)[100] == 0x5a,
                   "initial contents");

        /* Sub-buffer VA and CPU view are offset from the parent's. */
        cl_buffer_region r = {4096, 8192};
        cl_mem s = hcqcl_clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
        EXPECT(s && err == CL_SUCCESS, "sub: %d", err);
        if (s) {
            EXPECT(hcqcl_mem_va(s, hw) == st->va + 4096, "sub VA");
            if (cases[i].cpu)
                EXPECT(hcqcl_mem_cpu(s) == (uint8_t *)hcqcl_mem_cpu(m) + 4096, "sub CPU view");
            /* Map bookkeeping: the pointer the spec demands, the count. */
            struct hcqcl_mapping *a = NULL, *b = NULL, *got = NULL;
            EXPECT(hcqcl_mem_map_add(s, hw, 16, 256, CL_MAP_READ, &a) == CL_SUCCESS, "map a");
            EXPECT(hcqcl_mem_map_add(s, hw, 0, 64, CL_MAP_WRITE, &b) == CL_SUCCESS, "map b");
            if (a && b) {
                if (cases[i].flags & CL_MEM_USE_HOST_PTR)
                    EXPECT(a->ptr == host + 4096 + 16, "USE_HOST_PTR map pointer");
                EXPECT(a->kind == (cases[i].cpu ? (m->shadow ? HCQCL_MAP_CPU_COPY : HCQCL_MAP_DIRECT)
                                                : HCQCL_MAP_GPU_COPY),
                       "map kind %d", a->kind);
                EXPECT(s->map_count == 2, "map count %u", s->map_count);
                /* A map still being made is no unmap's to take. */
                EXPECT(hcqcl_mem_map_remove(s, a->ptr, &got) == CL_INVALID_VALUE,
                       "mapping taken before it was handed out");
                hcqcl_mem_map_hand_out(s, a);
                hcqcl_mem_map_hand_out(s, b);
                EXPECT(hcqcl_mem_map_remove(s, (uint8_t *)a->ptr + 1, &got) == CL_INVALID_VALUE,
                       "unmapped pointer accepted");
                EXPECT(hcqcl_mem_map_remove(s, a->ptr, &got) == CL_SUCCESS && got == a, "unmap a");
                hcqcl_mapping_free(got);
                EXPECT(hcqcl_mem_map_remove(s, b->ptr, &got) == CL_SUCCESS && got == b, "unmap b");
                hcqcl_mapping_free(got);
                EXPECT(s->map_count == 0, "map count %u", s->map_count);
            }
            hcqcl_clReleaseMemObject(s);
        }
        hcqcl_clReleaseMemObject(m);
    }
    free(host);
}

/* A USE_HOST_PTR address that is not 16-byte aligned gets a pinned copy
 * (the GPU would fault on misaligned vector accesses) kept in step by the
 * CPU_COPY mappings. */
static void check_shadow(cl_context ctx, struct hcq_device *hw)
{
    uint8_t *raw = malloc(4096 + 16), *host = raw + 4;
    for (int i = 0; i < 4096; i++)
        host[i] = (uint8_t)i;
    cl_int err;
    cl_mem m = hcqcl_clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 4096, host, &err);
    EXPECT(m && err == CL_SUCCESS, "misaligned USE_HOST_PTR: %d", err);
    if (m) {
        EXPECT(m->shadow && hcqcl_mem_cpu(m) != host, "shadow copy");
        EXPECT(hcqcl_mem_va(m, hw) % 16 == 0, "aligned VA");
        EXPECT(!memcmp(hcqcl_mem_cpu(m), host, 4096), "initial copy");
        struct hcqcl_mapping *map = NULL, *got = NULL;
        EXPECT(hcqcl_mem_map_add(m, hw, 8, 64, CL_MAP_READ, &map) == CL_SUCCESS, "map");
        if (map) {
            EXPECT(map->kind == HCQCL_MAP_CPU_COPY && map->ptr == host + 8, "CPU_COPY at host+8");
            memset((uint8_t *)hcqcl_mem_cpu(m) + 8, 0x77, 64);
            hcqcl_mapping_pull(map);
            EXPECT(host[8] == 0x77 && host[71] == 0x77 && host[72] == 72, "pull");
            memset(host + 8, 0x11, 64);
            hcqcl_mapping_push(map);
            EXPECT(((uint8_t *)hcqcl_mem_cpu(m))[8] == 0x11, "push");
            hcqcl_mem_map_hand_out(m, map);
            hcqcl_mem_map_remove(m, map->ptr, &got);
            hcqcl_mapping_free(got);
        }
        hcqcl_clReleaseMemObject(m);
    }
    free(raw);
}

static void check_cycles(cl_context ctx, struct hcq_device *hw)
{
    uint8_t *host = aligned_alloc(4096, 1 << 20);
    memset(host, 3, 1 << 20);
    hcqcl_prewarm_wait(hw); /* its queues and staging are made by now */
    /* Buffers of up to HCQ_SMALL_MAX bytes are blocks of shared slabs, of
     * which each class keeps its first: made once before the baseline. */
    for (size_t size = 4096; size <= HCQ_SMALL_MAX; size *= 2)
        for (int k = 0; k < 2; k++) {
            cl_int err;
            cl_mem m = hcqcl_clCreateBuffer(ctx, k ? CL_MEM_COPY_HOST_PTR : 0, size,
                                            k ? host : NULL, &err);
            EXPECT(m, "small buffer: %d", err);
            if (m)
                hcqcl_clReleaseMemObject(m);
        }
    uint64_t base = hcq_mem_in_use(hw);
    for (int i = 0; i < 10000; i++) {
        static const cl_mem_flags kinds[] = {0, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR,
                                             CL_MEM_USE_HOST_PTR};
        cl_mem_flags f = kinds[i % 4];
        size_t size = (size_t)4096 << (i % 9);
        cl_int err;
        cl_mem m = hcqcl_clCreateBuffer(ctx, f, size,
                                        f & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) ? host
                                                                                         : NULL,
                                        &err);
        if (!m) {
            EXPECT(false, "cycle %d: %d", i, err);
            break;
        }
        if (f == 0 && size > HCQ_SMALL_MAX)
            EXPECT(hcq_mem_in_use(hw) >= base + size, "cycle %d: %llu in use, base %llu + %zu", i,
                   (unsigned long long)hcq_mem_in_use(hw), (unsigned long long)base, size);
        hcqcl_clReleaseMemObject(m);
        if (hcq_mem_in_use(hw) != base) {
            EXPECT(false, "cycle %d: %llu bytes in use, baseline %llu", i,
                   (unsigned long long)hcq_mem_in_use(hw), (unsigned long long)base);
            break;
        }
    }
    free(host);
}

/* Map, write, unmap without waiting, in a loop, as mapped-copy loops do:
 * each map comes while the last unmap's copy may still read its staging,
 * and still reuses parked staging instead of pinning new memory (with one
 * parked staging, every other map allocated). */
static void check_map_loop(cl_context ctx, cl_device_id dev)
{
    struct hcq_device *hw = dev->hw;
    const size_t size = 1 << 20;
    cl_int err;
    cl_command_queue q = hcqcl_clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q && err == CL_SUCCESS, "queue: %d", err);
    cl_mem m = hcqcl_clCreateBuffer(ctx, 0, size, NULL, &err);
    REQUIRE(m && err == CL_SUCCESS, "buffer: %d", err);
    hcqcl_prewarm_wait(hw);
    /* Counted from the third map: the first two make the queue's
     * channels and the two stagings the loop keeps in turn. */
    uint64_t before = 0;
    enum { LOOPS = 40 };
    for (int i = 0; i < LOOPS; i++) {
        if (i == 2)
            before = hcq_mem_allocs(hw);
        uint8_t *p = hcqcl_clEnqueueMapBuffer(q, m, CL_TRUE, i % 2 ? CL_MAP_READ : CL_MAP_WRITE, 0,
                                              size, 0, NULL, NULL, &err);
        if (!p) {
            EXPECT(false, "map %d: %d", i, err);
            break;
        }
        if (i % 2) {
            EXPECT(p[i] == (uint8_t)(i - 1) && p[size - 1] == 0x77, "map %d reads what was written",
                   i);
        } else {
            memset(p, 0x77, size);
            p[i + 1] = (uint8_t)i;
        }
        EXPECT(hcqcl_clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL) == CL_SUCCESS, "unmap %d", i);
    }
    EXPECT(hcqcl_clFinish(q) == CL_SUCCESS, "finish");
    /* None; one now and then when a map outruns the hook that parks the
     * staging two unmaps back, which a loaded machine's scheduling can
     * make often. Without reuse every map would pin one. */
    uint64_t made = hcq_mem_allocs(hw) - before;
    EXPECT(made <= LOOPS / 2, "%llu stagings pinned for %d maps", (unsigned long long)made,
           LOOPS - 2);
    hcqcl_clReleaseMemObject(m);
    hcqcl_clReleaseCommandQueue(q);
}

/* Image descriptors are small blocks of shared slabs: a run of images
 * makes one driver allocation each (its pixels), not two, and gives
 * every byte back. */
static void check_image_descriptors(cl_context ctx, struct hcq_device *hw)
{
    if (!hcqcl_images_enabled())
        return;
    enum { N = 300 };
    static cl_mem img[N];
    const cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
    const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8,
                                .image_height = 8};
    cl_int err;
    /* The first image may make the descriptor slab. */
    cl_mem first = hcqcl_clCreateImage(ctx, CL_MEM_READ_ONLY, &fmt, &desc, NULL, &err);
    EXPECT(first && err == CL_SUCCESS, "first image: %d", err);
    const uint64_t use0 = hcq_mem_in_use(hw), allocs0 = hcq_mem_allocs(hw);
    int made = 0;
    for (; made < N; made++) {
        img[made] = hcqcl_clCreateImage(ctx, CL_MEM_READ_ONLY, &fmt, &desc, NULL, &err);
        if (!img[made]) {
            EXPECT(false, "image %d: %d", made, err);
            break;
        }
    }
    /* One allocation per image, and a second descriptor slab at most. */
    const uint64_t allocs = hcq_mem_allocs(hw) - allocs0;
    EXPECT(allocs <= (uint64_t)made + 1, "%llu allocations for %d images",
           (unsigned long long)allocs, made);
    for (int i = 0; i < made; i++)
        hcqcl_clReleaseMemObject(img[i]);
    EXPECT(hcq_mem_in_use(hw) == use0, "%llu bytes left of %d images",
           (unsigned long long)(hcq_mem_in_use(hw) - use0), made);
    if (first)
        hcqcl_clReleaseMemObject(first);
}

/* Buffers of up to HCQ_SMALL_MAX bytes are blocks of shared slabs: a
 * run of them makes no driver allocation each, every one is aligned to
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN and has addresses of its own, and every
 * byte comes back. */
static void check_small_buffers(cl_context ctx, struct hcq_device *hw)
{
    enum { N = 200 };
    static cl_mem b[N];
    static uint8_t init[HCQ_SMALL_MAX];
    cl_int err;
    cl_mem first = hcqcl_clCreateBuffer(ctx, 0, 1, NULL, &err); /* may make the slab */
    EXPECT(first, "first: %d", err);
    const uint64_t use0 = hcq_mem_in_use(hw), allocs0 = hcq_mem_allocs(hw);
    int made = 0;
    for (; made < N; made++) {
        const size_t size = 1 + (size_t)made * 37 % HCQ_SMALL_MAX;
        memset(init, made, size);
        b[made] = hcqcl_clCreateBuffer(ctx, made % 2 ? CL_MEM_COPY_HOST_PTR : 0, size,
                                       made % 2 ? init : NULL, &err);
        if (!b[made]) {
            EXPECT(false, "buffer %d: %d", made, err);
            break;
        }
        const uint64_t va = hcqcl_mem_va(b[made], hw);
        EXPECT(va % HCQCL_MEM_BASE_ALIGN == 0, "buffer %d at 0x%llx", made, (unsigned long long)va);
        for (int j = 0; j < made; j++) {
            const uint64_t vj = hcqcl_mem_va(b[j], hw);
            const size_t sj = 1 + (size_t)j * 37 % HCQ_SMALL_MAX;
            EXPECT(va + size <= vj || vj + sj <= va, "buffers %d and %d overlap", made, j);
        }
        const struct hcq_mem *st = hcqcl_mem_store(b[made], hw);
        const uint8_t *cpu = st ? st->cpu : NULL; /* the view the fill wrote */
        if (made % 2)
            EXPECT(cpu && cpu[0] == (uint8_t)made && cpu[size - 1] == (uint8_t)made,
                   "buffer %d: initial contents", made);
    }
    /* Slabs only: 64 KiB each, a few per size class. */
    const uint64_t allocs = hcq_mem_allocs(hw) - allocs0;
    EXPECT(allocs <= 40, "%llu allocations for %d small buffers", (unsigned long long)allocs, made);
    for (int i = 0; i < made; i++)
        hcqcl_clReleaseMemObject(b[i]);
    const uint64_t left = hcq_mem_in_use(hw) - use0;
    EXPECT(left <= 14 * 0x10000ull, "%llu bytes left of %d small buffers", (unsigned long long)left,
           made);
    /* Up to HCQ_SMALL_MAX: a 64 KiB buffer too, 16 to a slab. */
    cl_mem big = hcqcl_clCreateBuffer(ctx, 0, HCQ_SMALL_MAX, NULL, &err);
    const uint64_t allocs1 = hcq_mem_allocs(hw);
    cl_mem big2 = hcqcl_clCreateBuffer(ctx, 0, HCQ_SMALL_MAX, NULL, &err);
    EXPECT(big && big2 && hcq_mem_allocs(hw) == allocs1, "a second 64 KiB buffer: %llu allocations",
           (unsigned long long)(hcq_mem_allocs(hw) - allocs1));
    if (big2)
        EXPECT(hcqcl_mem_va(big2, hw) % HCQ_SMALL_MAX == 0, "64 KiB buffer aligned");
    if (big)
        hcqcl_clReleaseMemObject(big);
    if (big2)
        hcqcl_clReleaseMemObject(big2);
    if (first)
        hcqcl_clReleaseMemObject(first);
}

int main(void)
{
    cl_uint n;
    cl_int err;
    cl_device_id *devs = unit_devices(&n);
    cl_context ctx = unit_context(1, devs);
    check_kinds(ctx, devs[0]->hw);
    check_shadow(ctx, devs[0]->hw);
    check_cycles(ctx, devs[0]->hw);
    check_map_loop(ctx, devs[0]);
    check_image_descriptors(ctx, devs[0]->hw);
    check_small_buffers(ctx, devs[0]->hw);
    hcqcl_clReleaseContext(ctx);

    if (n > 1) {
        /* Two devices: one copy of the contents, visible to both. */
        cl_context c2 = hcqcl_clCreateContext(NULL, 2, devs, NULL, NULL, &err);
        EXPECT(c2 && err == CL_SUCCESS, "2-device context: %d", err);
        if (c2) {
            cl_mem m = hcqcl_clCreateBuffer(c2, 0, 1 << 16, NULL, &err);
            EXPECT(m && err == CL_SUCCESS, "2-device buffer: %d", err);
            if (m) {
                EXPECT(hcqcl_mem_va(m, devs[0]->hw) && hcqcl_mem_va(m, devs[1]->hw), "VA on both");
                EXPECT(hcqcl_mem_is_host_visible(m), "shared pages");
                hcqcl_clReleaseMemObject(m);
            }
            hcqcl_clReleaseContext(c2);
        }
    }
    return check_done("api_mem_unit");
}

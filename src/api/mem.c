/*
 * mem.c — buffers and sub-buffers: creation rules, backing store,
 * lifetime, destructor callbacks, queries and map bookkeeping.
 * Transfers live in enqueue_mem.c / enqueue_map.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "api/obj.h"

struct hcqcl_mem_dtor {
    struct hcqcl_mem_dtor *next;
    void(CL_CALLBACK *fn)(cl_mem, void *);
    void *user_data;
};

#define MEM_ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define MEM_HOST_PTR_FLAGS (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define MEM_HOST_ACCESS_FLAGS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
#define MEM_BUFFER_FLAGS (MEM_ACCESS_FLAGS | MEM_HOST_PTR_FLAGS | MEM_HOST_ACCESS_FLAGS)

static unsigned popcount64(uint64_t v) { return (unsigned)__builtin_popcountll(v); }

bool hcqcl_mem_valid(cl_mem m) { return hcqcl_obj_valid(m, HCQCL_TYPE_MEM); }

/* ------------------------------------------------------------------ */
/* Live buffers                                                         */
/* ------------------------------------------------------------------ */

/* Every live memory object, so that 8 bytes of unknown meaning (an
 * untyped pointer argument of an nvcc kernel) can be recognised as a
 * handle without dereferencing them. Open addressing, linear probing,
 * tombstones; a power-of-two table under one lock. */
#define LIVE_TOMB ((uintptr_t)1)
static struct {
    pthread_mutex_t lock;
    uintptr_t *slot;
    size_t cap, used; /* used counts tombstones too */
    /* Bumped under lock by every removal (from 1, so that a zeroed
     * `seen` never matches): a handle found live at epoch e is still live
     * while the epoch reads e (hcqcl_mem_is_live_since). */
    _Atomic uint64_t epoch;
} live = {.lock = PTHREAD_MUTEX_INITIALIZER, .epoch = 1};

static size_t live_hash(uintptr_t p, size_t cap)
{
    return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

/* Rehash into a table four times the live count (tombstones dropped), so
 * create/release churn does not grow it. */
static bool live_grow_locked(void)
{
    size_t n = 1, cap = 256;
    for (size_t i = 0; i < live.cap; i++)
        n += live.slot[i] > LIVE_TOMB;
    while (cap < n * 4)
        cap *= 2;
    uintptr_t *slot = calloc(cap, sizeof(*slot));
    if (!slot)
        return false;
    for (size_t i = 0; i < live.cap; i++) {
        uintptr_t p = live.slot[i];
        if (p <= LIVE_TOMB)
            continue;
        size_t h = live_hash(p, cap);
        while (slot[h])
            h = (h + 1) & (cap - 1);
        slot[h] = p;
    }
    free(live.slot);
    live.slot = slot;
    live.cap = cap;
    live.used = 0;
    for (size_t i = 0; i < cap; i++)
        live.used += slot[i] != 0;
    return true;
}

static bool live_add(cl_mem m)
{
    bool ok = true;
    pthread_mutex_lock(&live.lock);
    if ((live.used + 1) * 2 > live.cap)
        ok = live_grow_locked();
    if (ok) {
        size_t h = live_hash((uintptr_t)m, live.cap);
        while (live.slot[h] > LIVE_TOMB)
            h = (h + 1) & (live.cap - 1);
        live.used += live.slot[h] == 0;
        live.slot[h] = (uintptr_t)m;
    }
    pthread_mutex_unlock(&live.lock);
    return ok;
}

static void live_remove(cl_mem m)
{
    pthread_mutex_lock(&live.lock);
    for (size_t h = live.cap ? live_hash((uintptr_t)m, live.cap) : 0; live.cap && live.slot[h];
         h = (h + 1) & (live.cap - 1)) {
        if (live.slot[h] == (uintptr_t)m) {
            live.slot[h] = LIVE_TOMB;
            break;
        }
    }
    atomic_fetch_add_explicit(&live.epoch, 1, memory_order_release);
    pthread_mutex_unlock(&live.lock);
}

bool hcqcl_mem_is_live_since(const void *handle, _Atomic uint64_t *seen)
{
    bool found = false;
    uintptr_t p = (uintptr_t)handle;
    if (p <= LIVE_TOMB)
        return false;
    if (seen && atomic_load_explicit(seen, memory_order_relaxed) ==
                    atomic_load_explicit(&live.epoch, memory_order_acquire))
        return true; /* found live then, and nothing was released since */
    pthread_mutex_lock(&live.lock);
    for (size_t h = live.cap ? live_hash(p, live.cap) : 0; live.cap && live.slot[h];
         h = (h + 1) & (live.cap - 1)) {
        if (live.slot[h] == p) {
            found = true;
            break;
        }
    }
    if (found && seen)
        atomic_store_explicit(seen, atomic_load_explicit(&live.epoch, memory_order_relaxed),
                              memory_order_relaxed);
    pthread_mutex_unlock(&live.lock);
    return found;
}

uint64_t hcqcl_mem_epoch(void) { return atomic_load_explicit(&live.epoch, memory_order_acquire); }

bool hcqcl_mem_is_live(const void *handle) { return hcqcl_mem_is_live_since(handle, NULL); }

static cl_mem mem_root(cl_mem m) { return m->parent ? m->parent : m; }

static int ctx_device_index(cl_context ctx, const struct hcq_device *dev)
{
    for (cl_uint i = 0; i < ctx->num_devices; i++)
        if (ctx->devices[i]->hw == dev)
            return (int)i;
    return -1;
}

uint64_t hcqcl_mem_va(cl_mem m, struct hcq_device *dev)
{
    cl_mem root = mem_root(m);
    int i = ctx_device_index(m->ctx, dev);
    if (i < 0 || !root->store || !root->store[i])
        return 0;
    return root->store[i]->va + root->store_offset + m->offset;
}

void *hcqcl_mem_cpu(cl_mem m)
{
    cl_mem root = mem_root(m);
    return root->cpu ? (uint8_t *)root->cpu + m->offset : NULL;
}

const struct hcq_mem *hcqcl_mem_store(cl_mem m, struct hcq_device *dev)
{
    cl_mem root = mem_root(m);
    int i = ctx_device_index(m->ctx, dev);
    return i < 0 || !root->store ? NULL : root->store[i];
}

/* ------------------------------------------------------------------ */
/* Flag rules                                                           */
/* ------------------------------------------------------------------ */

/* The memory-flag rules of clCreateBuffer (OpenCL 3.0, "Memory Flags"). */
cl_int hcqcl_mem_check_flags(cl_mem_flags flags)
{
    /* CL_INVALID_VALUE if values specified in flags are not valid */
    HCQCL_CHECK(!(flags & ~(cl_mem_flags)MEM_BUFFER_FLAGS), CL_INVALID_VALUE,
                "unknown flags 0x%llx", (unsigned long long)(flags & ~(cl_mem_flags)MEM_BUFFER_FLAGS));
    /* CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY and CL_MEM_READ_ONLY are mutually exclusive */
    HCQCL_CHECK(popcount64(flags & MEM_ACCESS_FLAGS) <= 1, CL_INVALID_VALUE,
                "more than one of READ_WRITE, WRITE_ONLY, READ_ONLY");
    /* CL_MEM_USE_HOST_PTR and CL_MEM_ALLOC_HOST_PTR are mutually exclusive */
    HCQCL_CHECK(!((flags & CL_MEM_USE_HOST_PTR) && (flags & CL_MEM_ALLOC_HOST_PTR)),
                CL_INVALID_VALUE, "USE_HOST_PTR with ALLOC_HOST_PTR");
    /* CL_MEM_COPY_HOST_PTR and CL_MEM_USE_HOST_PTR are mutually exclusive */
    HCQCL_CHECK(!((flags & CL_MEM_USE_HOST_PTR) && (flags & CL_MEM_COPY_HOST_PTR)),
                CL_INVALID_VALUE, "USE_HOST_PTR with COPY_HOST_PTR");
    /* CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY and CL_MEM_HOST_NO_ACCESS are mutually exclusive */
    HCQCL_CHECK(popcount64(flags & MEM_HOST_ACCESS_FLAGS) <= 1, CL_INVALID_VALUE,
                "more than one of HOST_WRITE_ONLY, HOST_READ_ONLY, HOST_NO_ACCESS");
    return CL_SUCCESS;
}

/* clCreateBufferWithProperties: no property is supported, so the only
 * valid lists are NULL and an empty one. */
cl_int hcqcl_mem_check_props(const cl_mem_properties *props, size_t *bytes)
{
    *bytes = 0;
    if (!props)
        return CL_SUCCESS;
    /* CL_INVALID_PROPERTY if a property name in properties is not a supported property name */
    HCQCL_CHECK(props[0] == 0, CL_INVALID_PROPERTY, "unsupported property 0x%llx",
                (unsigned long long)props[0]);
    *bytes = sizeof(cl_mem_properties);
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Backing store                                                        */
/* ------------------------------------------------------------------ */

/* The widest access NVPTX code makes is 16 bytes (v4.f32, v2.f64), and
 * it assumes buffers start aligned to it: application pages are used in
 * place only from such an address, else through a shadow copy (a
 * misaligned vector access would be a GPU fault). */
#define ZERO_COPY_ALIGN 16u

static bool zero_copy_ok(const void *host)
{
    return ((uintptr_t)host & (ZERO_COPY_ALIGN - 1)) == 0;
}

static cl_int err_from_errno(int rc)
{
    return rc == -ENOMEM ? CL_MEM_OBJECT_ALLOCATION_FAILURE : CL_OUT_OF_RESOURCES;
}

/* Copy size bytes from host memory into dst_va on dev through a pinned
 * staging chunk and a private copy channel. Used only when a buffer
 * initialised from host memory has no CPU view (BAR1 mapping refused). */
static int mem_upload(struct hcq_device *dev, uint64_t dst_va, const void *src, size_t size)
{
    const uint64_t chunk = UTIL_MIN((uint64_t)size, (uint64_t)16 << 20);
    struct hcq_mem *staging = NULL;
    struct hcq_queue *q = NULL;
    int rc = hcq_mem_alloc(dev, chunk, HCQ_MEM_HOST, &staging);
    if (rc == 0)
        rc = hcq_queue_create(dev, HCQ_ENGINE_COPY, &q);
    for (size_t done = 0; rc == 0 && done < size;) {
        size_t n = UTIL_MIN(size - done, (size_t)chunk);
        uint64_t value = 0;
        memcpy(staging->cpu, (const uint8_t *)src + done, n);
        rc = hcq_q_copy(q, dst_va + done, staging->va, n);
        if (rc == 0)
            rc = hcq_q_signal_next(q, &value);
        if (rc == 0)
            rc = hcq_q_submit(q);
        if (rc == 0)
            rc = hcq_signal_wait(hcq_queue_timeline(q), value, UINT64_MAX);
        done += n;
    }
    if (q)
        hcq_queue_destroy(q);
    hcq_mem_free(staging);
    return rc;
}

static void mem_store_free(cl_mem m)
{
    if (m->svm_root) { /* the SVM allocation's store */
        m->store = NULL;
        return;
    }
    if (m->store) {
        /* SVM stores of several devices: the first made the UVM range
         * the others map into; it goes last. */
        for (unsigned i = m->store_count; i-- > 0;)
            hcq_mem_free(m->store[i]);
        free(m->store);
        m->store = NULL;
    }
    if (m->svm && m->pages)
        hcq_va_unreserve((uintptr_t)m->pages, m->pages_size);
    if (m->pages) {
        munmap(m->pages, m->pages_size);
        m->pages = NULL;
    }
}

/* Several devices: one set of host pages, registered with every device,
 * so that there is exactly one copy of the contents. USE_HOST_PTR
 * registers the application's pages, else (or when they can't be
 * registered) pages of our own. */
static cl_int mem_store_shared(cl_mem m, const void *init)
{
    cl_context ctx = m->ctx;
    void *base = m->host_ptr;
    if (base && !zero_copy_ok(base)) {
        m->shadow = true;
    } else if (base) {
        int rc = 0;
        for (unsigned i = 0; i < ctx->num_devices && rc == 0; i++)
            rc = hcq_mem_register(ctx->devices[i]->hw, base, m->size, &m->store[i]);
        if (rc == 0) {
            m->cpu = base;
            return CL_SUCCESS;
        }
        for (unsigned i = 0; i < ctx->num_devices; i++) {
            hcq_mem_free(m->store[i]);
            m->store[i] = NULL;
        }
        m->shadow = true;
    }
    m->pages_size = util_align_up(m->size, 4096);
    m->pages = mmap(NULL, m->pages_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m->pages == MAP_FAILED) {
        m->pages = NULL;
        return CL_OUT_OF_HOST_MEMORY;
    }
    for (unsigned i = 0; i < ctx->num_devices; i++) {
        int rc = hcq_mem_register(ctx->devices[i]->hw, m->pages, m->size, &m->store[i]);
        if (rc < 0) {
            util_log(UTIL_LOG_ERR, "api: buffer of %zu bytes: host pages can't be shared by "
                                   "%u devices (%d)\n", m->size, ctx->num_devices, rc);
            return err_from_errno(rc);
        }
    }
    m->cpu = m->pages;
    if (m->shadow)
        init = m->host_ptr;
    if (init)
        memcpy(m->cpu, init, m->size);
    return CL_SUCCESS;
}

/* Device memory for a buffer: a block of the device's shared slabs for
 * one of at most HCQ_SMALL_MAX bytes (no driver call; aligned to its
 * class, at least HCQCL_MEM_BASE_ALIGN), its own allocation otherwise. */
static int store_alloc(struct hcq_device *dev, size_t size, enum hcq_mem_kind kind,
                       struct hcq_mem **out)
{
    if (size <= HCQ_SMALL_MAX)
        return hcq_mem_alloc_small(dev, UTIL_MAX(size, (size_t)HCQCL_MEM_BASE_ALIGN), kind, out);
    return hcq_mem_alloc(dev, size, kind, out);
}

/* One device: the kind of memory follows the flags (see obj.h). */
static cl_int mem_store_single(cl_mem m, const void *init)
{
    struct hcq_device *dev = m->ctx->devices[0]->hw;
    struct hcq_mem **slot = &m->store[0];
    int rc;
    if (m->flags & CL_MEM_USE_HOST_PTR) {
        rc = zero_copy_ok(m->host_ptr) ? hcq_mem_register(dev, m->host_ptr, m->size, slot)
                                       : -EINVAL;
        if (rc == 0) {
            m->cpu = m->host_ptr;
            return CL_SUCCESS;
        }
        UTIL_LOG(UTIL_LOG_API, "api: host pages %p not registered (%d): pinned shadow copy\n",
                 m->host_ptr, rc);
        m->shadow = true;
        init = m->host_ptr;
        rc = hcq_mem_alloc(dev, m->size, HCQ_MEM_HOST, slot);
    } else if (m->flags & CL_MEM_ALLOC_HOST_PTR) {
        rc = hcq_mem_alloc(dev, m->size, HCQ_MEM_HOST, slot);
    } else if (init) {
        rc = store_alloc(dev, m->size, HCQ_MEM_DEVICE_MAPPED, slot);
        if (rc < 0) {
            UTIL_LOG(UTIL_LOG_API, "api: no CPU-mapped vidmem (%d): upload by copy engine\n", rc);
            rc = store_alloc(dev, m->size, HCQ_MEM_DEVICE, slot);
            if (rc == 0)
                rc = mem_upload(dev, (*slot)->va, init, m->size);
            return rc < 0 ? err_from_errno(rc) : CL_SUCCESS;
        }
    } else {
        rc = store_alloc(dev, m->size, HCQ_MEM_DEVICE, slot);
    }
    if (rc < 0)
        return err_from_errno(rc);
    void *view = (*slot)->cpu;
    if (init && view)
        memcpy(view, init, m->size);
    /* Device memory's CPU view (BAR1, write-combined) serves that first
     * fill only: the CPU reads it back at a few MB/s (a 9.6 MB map read
     * through it took 2.4 s on the H200), so a map of such a buffer copies
     * through pinned staging, as one of any device buffer does. */
    m->cpu = (*slot)->kind == HCQ_MEM_DEVICE_MAPPED ? NULL : view;
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Creation                                                             */
/* ------------------------------------------------------------------ */

static cl_mem mem_new(cl_context ctx, cl_mem_flags flags, size_t size)
{
    cl_mem m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    if (pthread_mutex_init(&m->lock, NULL) != 0) {
        free(m);
        return NULL;
    }
    hcqcl_obj_init(&m->obj, HCQCL_TYPE_MEM);
    static _Atomic uint64_t serials;
    m->serial = atomic_fetch_add_explicit(&serials, 1, memory_order_relaxed) + 1;
    m->obj.dispatch = ctx->obj.dispatch;
    m->ctx = ctx;
    m->type = CL_MEM_OBJECT_BUFFER;
    m->flags = flags;
    m->size = size;
    if (!live_add(m)) {
        pthread_mutex_destroy(&m->lock);
        free(m);
        return NULL;
    }
    return m;
}

/* Frees a memory object whose last reference is gone (or that never
 * became visible): store first, then the destructor callbacks, newest
 * first, as the spec orders them; the application may free host_ptr in
 * its callback, so the pages must be unregistered by then. */
static void mem_destroy(cl_mem m)
{
    if (m->parent) { /* first: a map of a relative looks at its mappings */
        pthread_mutex_lock(&m->parent->lock);
        for (cl_mem *pp = &m->parent->subs; *pp; pp = &(*pp)->sub_next)
            if (*pp == m) {
                *pp = m->sub_next;
                break;
            }
        pthread_mutex_unlock(&m->parent->lock);
    }
    if (m->maps) /* released while mapped */
        hcqcl_map_pinned_forget(m);
    for (struct hcqcl_mapping *map = m->maps, *next; map; map = next) {
        next = map->next;
        hcqcl_mapping_free(map);
    }
    for (unsigned i = 0; i < HCQCL_MAP_SPARES; i++)
        hcq_mem_free(m->map_spare[i]);
    live_remove(m);
    if (m->image)
        hcqcl_image_free(m);
    mem_store_free(m);
    m->obj.type = HCQCL_TYPE_NONE;
    for (struct hcqcl_mem_dtor *d = m->dtors, *next; d; d = next) {
        next = d->next;
        d->fn(m, d->user_data);
        free(d);
    }
    if (m->parent)
        hcqcl_clReleaseMemObject(m->parent);
    if (m->svm_root)
        hcqcl_clReleaseMemObject(m->svm_root);
    if (m->ctx)
        hcqcl_clReleaseContext(m->ctx);
    free(m->props);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static cl_mem mem_create_buffer(cl_context ctx, const cl_mem_properties *props,
                                cl_mem_flags flags, size_t size, void *host_ptr,
                                cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = NULL;
    size_t props_size = 0;
    uint64_t max_alloc = 0;

    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(ctx), err, CL_INVALID_CONTEXT, "context %p", (void *)ctx);
    err = hcqcl_mem_check_props(props, &props_size);
    if (err != CL_SUCCESS)
        goto fail;
    err = hcqcl_mem_check_flags(flags);
    if (err != CL_SUCCESS)
        goto fail;
    for (cl_uint i = 0; i < ctx->num_devices; i++)
        max_alloc = UTIL_MAX(max_alloc, hcqcl_device_max_alloc(ctx->devices[i]));
    /* CL_INVALID_BUFFER_SIZE if size is 0 or greater than CL_DEVICE_MAX_MEM_ALLOC_SIZE for all devices */
    HCQCL_CHECK_GOTO(size > 0 && size <= max_alloc, err, CL_INVALID_BUFFER_SIZE,
                     "size %zu (max %llu)", size, (unsigned long long)max_alloc);
    /* CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR are set */
    HCQCL_CHECK_GOTO(host_ptr || !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)), err,
                     CL_INVALID_HOST_PTR, "host_ptr NULL with USE/COPY_HOST_PTR");
    /* CL_INVALID_HOST_PTR if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set */
    HCQCL_CHECK_GOTO(!host_ptr || (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)), err,
                     CL_INVALID_HOST_PTR, "host_ptr given without USE/COPY_HOST_PTR");

    size_t svm_off = 0;
    cl_mem svm = host_ptr ? hcqcl_svm_find(ctx, host_ptr, 0, &svm_off) : NULL;
    /* CL_INVALID_BUFFER_SIZE if CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR is set in flags, and host_ptr is a pointer returned by clSVMAlloc, and size is greater than the size passed to clSVMAlloc */
    if (svm && size > svm->size - svm_off) {
        hcqcl_clReleaseMemObject(svm);
        HCQCL_CHECK_GOTO(false, err, CL_INVALID_BUFFER_SIZE,
                         "%zu bytes from %p: beyond its SVM allocation", size, host_ptr);
    }
    if (svm && !(flags & CL_MEM_USE_HOST_PTR)) {
        hcqcl_clReleaseMemObject(svm);
        svm = NULL;
    }
    if (svm) {
        /* The buffer uses the SVM allocation's memory as its store. */
        m = hcqcl_mem_create_alias(svm, svm_off, flags, size, host_ptr);
        hcqcl_clReleaseMemObject(svm);
        HCQCL_CHECK_GOTO(m, err, CL_OUT_OF_HOST_MEMORY, "buffer on SVM");
        err = hcqcl_mem_keep_props(m, props, props_size);
        if (err != CL_SUCCESS) {
            hcqcl_clReleaseMemObject(m);
            m = NULL;
            goto fail;
        }
    } else {
        m = hcqcl_mem_create(ctx, props, props_size, flags, size, host_ptr,
                             (flags & CL_MEM_COPY_HOST_PTR) ? host_ptr : NULL, &err);
    }
    if (!m)
        goto fail;
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return m;
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_mem hcqcl_mem_create(cl_context ctx, const cl_mem_properties *props, size_t props_size,
                        cl_mem_flags flags, size_t size, void *host_ptr, const void *init,
                        cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = mem_new(ctx, flags, size);
    HCQCL_CHECK_GOTO(m, err, CL_OUT_OF_HOST_MEMORY, "memory object");
    hcqcl_clRetainContext(ctx);
    err = hcqcl_mem_keep_props(m, props, props_size);
    if (err != CL_SUCCESS)
        goto fail;
    if (flags & CL_MEM_USE_HOST_PTR)
        m->host_ptr = host_ptr;
    m->store_count = ctx->num_devices;
    m->store = calloc(ctx->num_devices, sizeof(*m->store));
    HCQCL_CHECK_GOTO(m->store, err, CL_OUT_OF_HOST_MEMORY, "store table");

    err = ctx->num_devices > 1 ? mem_store_shared(m, init) : mem_store_single(m, init);
    /* CL_MEM_OBJECT_ALLOCATION_FAILURE if there is a failure to allocate memory for the buffer */
    HCQCL_CHECK_GOTO(err == CL_SUCCESS, err, err, "%zu bytes, flags 0x%llx", size,
                     (unsigned long long)flags);
    UTIL_LOG(UTIL_LOG_API, "api: buffer %p: %zu bytes, flags 0x%llx, cpu %p%s\n", (void *)m, size,
             (unsigned long long)flags, m->cpu, m->shadow ? " (shadow)" : "");
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return m;
fail:
    if (m)
        mem_destroy(m);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_int hcqcl_mem_keep_props(cl_mem m, const cl_mem_properties *props, size_t props_size)
{
    if (!props_size)
        return CL_SUCCESS;
    m->props = malloc(props_size);
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK(m->props, CL_OUT_OF_HOST_MEMORY, "properties");
    memcpy(m->props, props, props_size);
    m->props_size = props_size;
    return CL_SUCCESS;
}

cl_mem hcqcl_mem_create_svm(cl_context ctx, cl_mem_flags flags, size_t size, void *pages,
                            size_t span, struct hcq_mem **store, void *cpu)
{
    cl_mem m = mem_new(ctx, flags, size);
    if (!m) {
        for (cl_uint i = ctx->num_devices; i-- > 0;)
            hcq_mem_free(store[i]);
        free(store);
        hcq_va_unreserve((uintptr_t)pages, span);
        munmap(pages, span);
        return NULL;
    }
    hcqcl_clRetainContext(ctx);
    m->svm = true;
    m->host_ptr = pages;
    m->pages = pages;
    m->pages_size = span;
    m->store = store;
    m->store_count = ctx->num_devices;
    m->cpu = cpu;
    return m;
}

cl_mem hcqcl_mem_create_alias(cl_mem svm, size_t offset, cl_mem_flags flags, size_t size,
                              void *host_ptr)
{
    cl_mem m = mem_new(svm->ctx, flags, size);
    if (!m)
        return NULL;
    hcqcl_clRetainContext(svm->ctx);
    hcqcl_clRetainMemObject(svm);
    m->svm_root = svm;
    m->store = svm->store;
    m->store_count = svm->store_count;
    m->store_offset = offset;
    m->cpu = svm->cpu ? (uint8_t *)svm->cpu + offset : NULL;
    m->host_ptr = host_ptr;
    return m;
}

/* m on root's list of sub-buffers and views (mem_destroy takes it off). */
static void link_sub(cl_mem root, cl_mem m)
{
    pthread_mutex_lock(&root->lock);
    m->sub_next = root->subs;
    root->subs = m;
    pthread_mutex_unlock(&root->lock);
}

cl_mem hcqcl_mem_create_view(cl_mem buf, cl_mem_flags flags, size_t size)
{
    cl_mem m = mem_new(buf->ctx, flags, size);
    if (!m)
        return NULL;
    hcqcl_clRetainContext(buf->ctx);
    /* A sub-buffer's view addresses its buffer's store at its origin. */
    m->parent = mem_root(buf);
    m->offset = buf->parent ? buf->offset : 0;
    hcqcl_clRetainMemObject(m->parent);
    m->host_ptr = buf->host_ptr;
    /* Among the buffer's associated objects, as its sub-buffers are: a
     * map of the buffer sees the view's maps ("1D image buffer objects
     * that overlap this region"). */
    link_sub(m->parent, m);
    return m;
}

cl_mem hcqcl_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
                            cl_int *errcode_ret)
{
    return mem_create_buffer(context, NULL, flags, size, host_ptr, errcode_ret);
}

cl_mem hcqcl_clCreateBufferWithProperties(cl_context context, const cl_mem_properties *properties,
                                          cl_mem_flags flags, size_t size, void *host_ptr,
                                          cl_int *errcode_ret)
{
    return mem_create_buffer(context, properties, flags, size, host_ptr, errcode_ret);
}

/* The sub-buffer's flags: what flags asks for, the rest inherited. */
/* The flags of a memory object made from a buffer: a sub-buffer, or an
 * image from clCreateImage's mem_object. Both entry points word the same
 * rules, one for "buffer", the other for "mem_object"; quoted here as
 * clCreateSubBuffer words them. Flags not given (access, host access) are
 * the buffer's, and so are its host pointer flags. */
cl_int hcqcl_mem_derived_flags(cl_mem_flags parent, cl_mem_flags flags, cl_mem_flags *out)
{
    /* CL_INVALID_VALUE if flags specifies CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR or CL_MEM_COPY_HOST_PTR */
    HCQCL_CHECK(!(flags & MEM_HOST_PTR_FLAGS), CL_INVALID_VALUE, "host pointer flags on a sub-buffer");
    /* CL_INVALID_VALUE if buffer was created with CL_MEM_WRITE_ONLY and flags specifies CL_MEM_READ_WRITE or CL_MEM_READ_ONLY */
    HCQCL_CHECK(!((parent & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))),
                CL_INVALID_VALUE, "parent is WRITE_ONLY");
    /* CL_INVALID_VALUE if buffer was created with CL_MEM_READ_ONLY and flags specifies CL_MEM_READ_WRITE or CL_MEM_WRITE_ONLY */
    HCQCL_CHECK(!((parent & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))),
                CL_INVALID_VALUE, "parent is READ_ONLY");
    /* CL_INVALID_VALUE if buffer was created with CL_MEM_HOST_WRITE_ONLY and flags specify CL_MEM_HOST_READ_ONLY */
    HCQCL_CHECK(!((parent & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY)),
                CL_INVALID_VALUE, "parent is HOST_WRITE_ONLY");
    /* CL_INVALID_VALUE if buffer was created with CL_MEM_HOST_READ_ONLY and flags specify CL_MEM_HOST_WRITE_ONLY */
    HCQCL_CHECK(!((parent & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY)),
                CL_INVALID_VALUE, "parent is HOST_READ_ONLY");
    /* CL_INVALID_VALUE if buffer was created with CL_MEM_HOST_NO_ACCESS and flags specify CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_WRITE_ONLY */
    HCQCL_CHECK(!((parent & CL_MEM_HOST_NO_ACCESS) &&
                  (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))),
                CL_INVALID_VALUE, "parent is HOST_NO_ACCESS");
    cl_mem_flags f = flags;
    if (!(flags & MEM_ACCESS_FLAGS))
        f |= parent & MEM_ACCESS_FLAGS;
    f |= parent & MEM_HOST_PTR_FLAGS;
    if (!(flags & MEM_HOST_ACCESS_FLAGS))
        f |= parent & MEM_HOST_ACCESS_FLAGS;
    *out = f;
    return CL_SUCCESS;
}

static cl_int sub_flags(cl_mem_flags parent, cl_mem_flags flags, cl_mem_flags *out)
{
    /* CL_INVALID_VALUE if values specified in flags are not valid */
    cl_int err = hcqcl_mem_check_flags(flags);
    if (err != CL_SUCCESS)
        return err;
    return hcqcl_mem_derived_flags(parent, flags, out);
}

cl_mem hcqcl_clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                               cl_buffer_create_type buffer_create_type,
                               const void *buffer_create_info, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = NULL;
    cl_mem_flags eff = 0;
    const cl_buffer_region *r = buffer_create_info;

    /* CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or is a sub-buffer object */
    HCQCL_CHECK_GOTO(hcqcl_mem_valid(buffer) && buffer->type == CL_MEM_OBJECT_BUFFER &&
                         !buffer->parent,
                     err, CL_INVALID_MEM_OBJECT, "buffer %p", (void *)buffer);
    err = sub_flags(buffer->flags, flags, &eff);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_VALUE if value specified in buffer_create_type is not valid */
    HCQCL_CHECK_GOTO(buffer_create_type == CL_BUFFER_CREATE_TYPE_REGION, err, CL_INVALID_VALUE,
                     "create type 0x%x", buffer_create_type);
    /* CL_INVALID_VALUE if buffer_create_info is NULL */
    HCQCL_CHECK_GOTO(r, err, CL_INVALID_VALUE, "buffer_create_info NULL");
    /* CL_INVALID_BUFFER_SIZE if the size field of the cl_buffer_region structure is 0 */
    HCQCL_CHECK_GOTO(r->size > 0, err, CL_INVALID_BUFFER_SIZE, "region size 0");
    /* CL_INVALID_VALUE if the region specified by the cl_buffer_region structure is out of bounds of buffer */
    HCQCL_CHECK_GOTO(r->size <= buffer->size && r->origin <= buffer->size - r->size, err,
                     CL_INVALID_VALUE, "region %zu+%zu outside %zu bytes", r->origin, r->size,
                     buffer->size);
    /* CL_MISALIGNED_SUB_BUFFER_OFFSET if no device in context has origin aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN */
    HCQCL_CHECK_GOTO(r->origin % HCQCL_MEM_BASE_ALIGN == 0, err, CL_MISALIGNED_SUB_BUFFER_OFFSET,
                     "origin %zu not a multiple of %u", r->origin, HCQCL_MEM_BASE_ALIGN);

    m = mem_new(buffer->ctx, eff, r->size);
    HCQCL_CHECK_GOTO(m, err, CL_OUT_OF_HOST_MEMORY, "sub-buffer object");
    hcqcl_clRetainContext(buffer->ctx);
    hcqcl_clRetainMemObject(buffer);
    m->parent = buffer;
    m->offset = r->origin;
    if (buffer->host_ptr)
        m->host_ptr = (uint8_t *)buffer->host_ptr + r->origin;
    link_sub(buffer, m);
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return m;
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                             */
/* ------------------------------------------------------------------ */

cl_int hcqcl_clRetainMemObject(cl_mem memobj)
{
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_CHECK(hcqcl_mem_valid(memobj), CL_INVALID_MEM_OBJECT, "memobj %p", (void *)memobj);
    hcqcl_obj_retain(&memobj->obj);
    return CL_SUCCESS;
}

cl_int hcqcl_clReleaseMemObject(cl_mem memobj)
{
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_CHECK(hcqcl_mem_valid(memobj), CL_INVALID_MEM_OBJECT, "memobj %p", (void *)memobj);
    if (hcqcl_obj_release(&memobj->obj))
        mem_destroy(memobj);
    return CL_SUCCESS;
}

cl_int hcqcl_clSetMemObjectDestructorCallback(cl_mem memobj,
                                              void(CL_CALLBACK *pfn_notify)(cl_mem, void *),
                                              void *user_data)
{
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_CHECK(hcqcl_mem_valid(memobj), CL_INVALID_MEM_OBJECT, "memobj %p", (void *)memobj);
    /* CL_INVALID_VALUE if pfn_notify is NULL */
    HCQCL_CHECK(pfn_notify, CL_INVALID_VALUE, "pfn_notify NULL");
    struct hcqcl_mem_dtor *d = malloc(sizeof(*d));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK(d, CL_OUT_OF_HOST_MEMORY, "callback record");
    d->fn = pfn_notify;
    d->user_data = user_data;
    pthread_mutex_lock(&memobj->lock);
    d->next = memobj->dtors; /* newest first: called in reverse order of registration */
    memobj->dtors = d;
    pthread_mutex_unlock(&memobj->lock);
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Queries                                                              */
/* ------------------------------------------------------------------ */

cl_int hcqcl_clGetMemObjectInfo(cl_mem memobj, cl_mem_info param_name, size_t param_value_size,
                                void *param_value, size_t *param_value_size_ret)
{
    union {
        cl_mem_object_type type;
        cl_mem_flags flags;
        size_t size;
        void *ptr;
        cl_uint u;
        cl_context ctx;
        cl_mem mem;
        cl_bool b;
    } v;
    const void *src = &v;
    size_t n;

    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_CHECK(hcqcl_mem_valid(memobj), CL_INVALID_MEM_OBJECT, "memobj %p", (void *)memobj);
    switch (param_name) {
    case CL_MEM_TYPE: v.type = memobj->type; n = sizeof(v.type); break;
    case CL_MEM_FLAGS: v.flags = memobj->flags; n = sizeof(v.flags); break;
    case CL_MEM_SIZE: v.size = memobj->size; n = sizeof(v.size); break;
    /* "If memobj is created with ... clCreateImage ... and CL_MEM_USE_HOST_PTR is specified
     * in mem_flags, return the host_ptr argument value specified when memobj is created" ...
     * "Otherwise, returns NULL": an image made from a buffer or another image was given no
     * host_ptr, whatever its store's (kept in host_ptr for its maps). */
    case CL_MEM_HOST_PTR:
        v.ptr = memobj->image && memobj->image->desc.mem_object ? NULL : memobj->host_ptr;
        n = sizeof(v.ptr);
        break;
    case CL_MEM_MAP_COUNT:
        pthread_mutex_lock(&memobj->lock);
        v.u = memobj->map_count;
        pthread_mutex_unlock(&memobj->lock);
        n = sizeof(v.u);
        break;
    case CL_MEM_REFERENCE_COUNT:
        v.u = atomic_load_explicit(&memobj->obj.refs, memory_order_relaxed);
        n = sizeof(v.u);
        break;
    case CL_MEM_CONTEXT: v.ctx = memobj->ctx; n = sizeof(v.ctx); break;
    /* An image of a buffer: the buffer it was made from (image.c keeps it). */
    case CL_MEM_ASSOCIATED_MEMOBJECT:
        v.mem = memobj->image ? memobj->image->desc.buffer : memobj->parent;
        n = sizeof(v.mem);
        break;
    case CL_MEM_OFFSET: v.size = memobj->image ? 0 : memobj->offset; n = sizeof(v.size); break;
    /* CL_TRUE if memobj is a buffer object that was created with CL_MEM_USE_HOST_PTR or is a sub-buffer object of a buffer object that was created with CL_MEM_USE_HOST_PTR and the host_ptr specified when the buffer object was created is a SVM pointer; otherwise returns CL_FALSE */
    case CL_MEM_USES_SVM_POINTER:
        v.b = memobj->type == CL_MEM_OBJECT_BUFFER && mem_root(memobj)->svm_root != NULL;
        n = sizeof(v.b);
        break;
    case CL_MEM_PROPERTIES: src = memobj->props; n = memobj->props_size; break;
    default:
        /* CL_INVALID_VALUE if param_name is not valid */
        HCQCL_FAIL(CL_INVALID_VALUE, "param_name 0x%x", param_name);
    }
    return hcqcl_info_out(src, n, param_value_size, param_value, param_value_size_ret);
}

/* ------------------------------------------------------------------ */
/* Map bookkeeping                                                      */
/* ------------------------------------------------------------------ */

cl_int hcqcl_mem_map_add(cl_mem m, struct hcq_device *dev, size_t offset, size_t size,
                         cl_map_flags flags, struct hcqcl_mapping **out)
{
    cl_mem root = mem_root(m);
    struct hcqcl_mapping *map = calloc(1, sizeof(*map));
    HCQCL_CHECK(map, CL_OUT_OF_HOST_MEMORY, "mapping record");
    map->offset = offset;
    map->size = size;
    map->flags = flags;
    map->dev = dev;
    cl_mem svm = root->svm ? root : root->svm_root;
    if (svm && !root->cpu) {
        /* SVM in device memory: the map copies between the store and the
         * allocation's own host pages, at the SVM address itself. */
        map->ptr = (uint8_t *)svm->pages + root->store_offset + m->offset + offset;
        map->kind = HCQCL_MAP_HOST_COPY;
    } else if (m->flags & CL_MEM_USE_HOST_PTR) {
        /* The spec returns host_ptr + offset for USE_HOST_PTR buffers. */
        map->ptr = (uint8_t *)m->host_ptr + offset;
        map->kind = root->shadow ? HCQCL_MAP_CPU_COPY : HCQCL_MAP_DIRECT;
        map->mem_cpu = (uint8_t *)hcqcl_mem_cpu(m) + offset;
    } else if (hcqcl_mem_cpu(m)) {
        map->ptr = (uint8_t *)hcqcl_mem_cpu(m) + offset;
        map->kind = HCQCL_MAP_DIRECT;
    } else {
        /* The most recently parked staging that holds the region: its
         * lines are the likeliest to be in the CPU's caches still. */
        pthread_mutex_lock(&m->lock);
        for (unsigned i = 0; i < HCQCL_MAP_SPARES; i++) {
            struct hcq_mem *s = m->map_spare[i];
            if (s && s->dev == dev && s->size >= size) {
                map->staging = s;
                memmove(&m->map_spare[i], &m->map_spare[i + 1],
                        (HCQCL_MAP_SPARES - 1 - i) * sizeof(m->map_spare[0]));
                m->map_spare[HCQCL_MAP_SPARES - 1] = NULL;
                break;
            }
        }
        pthread_mutex_unlock(&m->lock);
        int rc = map->staging ? 0
                              : hcq_mem_alloc(dev, UTIL_MAX(size, (size_t)1), HCQ_MEM_HOST,
                                              &map->staging);
        if (rc < 0) {
            free(map);
            HCQCL_FAIL(err_from_errno(rc), "staging for %zu bytes: %d", size, rc);
        }
        map->ptr = map->staging->cpu;
        map->kind = HCQCL_MAP_GPU_COPY;
    }
    pthread_mutex_lock(&m->lock);
    map->next = m->maps;
    m->maps = map;
    m->map_count++;
    pthread_mutex_unlock(&m->lock);
    *out = map;
    return CL_SUCCESS;
}

cl_int hcqcl_mem_map_remove(cl_mem m, void *ptr, struct hcqcl_mapping **out)
{
    struct hcqcl_mapping **pp, *found = NULL;
    pthread_mutex_lock(&m->lock);
    for (pp = &m->maps; *pp; pp = &(*pp)->next) {
        if ((*pp)->ptr == ptr && (*pp)->handed_out) {
            found = *pp;
            *pp = found->next;
            m->map_count--;
            break;
        }
    }
    pthread_mutex_unlock(&m->lock);
    /* CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by clEnqueueMapBuffer for memobj */
    HCQCL_CHECK(found, CL_INVALID_VALUE, "%p is not mapped from %p", ptr, (void *)m);
    found->next = NULL;
    *out = found;
    return CL_SUCCESS;
}

void hcqcl_mem_map_hand_out(cl_mem m, struct hcqcl_mapping *map)
{
    pthread_mutex_lock(&m->lock);
    map->handed_out = true;
    pthread_mutex_unlock(&m->lock);
}

void hcqcl_mapping_free(struct hcqcl_mapping *map)
{
    if (!map)
        return;
    hcqcl_host_pending_remove(&map->pending);
    hcq_mem_free(map->staging);
    free(map);
}

void hcqcl_mem_map_park(cl_mem m, struct hcqcl_mapping *map)
{
    /* First in the list, the others after it; when all places are taken,
     * the smallest of the older ones is dropped (it stays on map and is
     * freed with it). */
    if (!map->staging)
        return;
    pthread_mutex_lock(&m->lock);
    unsigned drop = 0;
    for (unsigned i = 0; i < HCQCL_MAP_SPARES; i++) {
        if (!m->map_spare[i]) {
            drop = i;
            break;
        }
        if (m->map_spare[i]->size < m->map_spare[drop]->size)
            drop = i;
    }
    struct hcq_mem *old = m->map_spare[drop];
    memmove(&m->map_spare[1], &m->map_spare[0], drop * sizeof(m->map_spare[0]));
    m->map_spare[0] = map->staging;
    map->staging = old;
    pthread_mutex_unlock(&m->lock);
}

void hcqcl_mapping_pull(const struct hcqcl_mapping *map)
{
    if (map->kind == HCQCL_MAP_CPU_COPY && map->size)
        memcpy(map->ptr, map->mem_cpu, map->size);
}

void hcqcl_mapping_push(const struct hcqcl_mapping *map)
{
    if (map->kind == HCQCL_MAP_CPU_COPY && map->size)
        memcpy(map->mem_cpu, map->ptr, map->size);
}

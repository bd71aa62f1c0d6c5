/*
 * svm.c — shared virtual memory: coarse-grained buffers
 * (CL_DEVICE_SVM_COARSE_GRAIN_BUFFER).
 *
 * An SVM allocation is a buffer (mem.c, m->svm) whose GPU address is the
 * host address of pages of its own: the pages are mapped first, then the
 * same range of the process's GPU address plan is reserved
 * (hcq_va_reserve) and the store made there on every device of the
 * context (hcq_mem_alloc_at). With one device the store is device
 * memory; with several it is the pages themselves, pinned and mapped on
 * each, so that there is one copy (as for buffers of several devices).
 * A pointer into the allocation, and a pointer stored inside it, then
 * means the same bytes to the host and to every kernel.
 *
 * Coarse grain: the host touches the pages only between clEnqueueSVMMap
 * and clEnqueueSVMUnmap. Map copies the region from the store into them
 * and unmap copies it back, as a read and a write of pageable memory do
 * (enqueue_map.c, HCQCL_MAP_HOST_COPY: staging, nothing pinned however
 * large the allocation); the commands are the buffer commands on the
 * allocation's buffer, with the SVM command types.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "api/obj.h"

/* A live allocation of a context (ctx->svm, under ctx->lock). */
struct hcqcl_svm {
    struct hcqcl_svm *next;
    cl_mem buf; /* owns the pages, the reservation and the stores */
};

#define SVM_ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define SVM_FLAGS (SVM_ACCESS_FLAGS | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS)
/* The largest OpenCL C data type (long16, double16): alignment 0. */
#define SVM_DEFAULT_ALIGN 128u
/* Host mmap picks addresses the GPU plan may already use (rarely, high
 * in the user space it never does): tries before giving up. */
#define SVM_PLACE_TRIES 8

/* clSVMAlloc's checks: it answers NULL, not an error code. */
#define SVM_CHECK(cond, ...)                                                              \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            util_log_check(__func__, #cond, "NULL", __VA_ARGS__);                         \
            return NULL;                                                                  \
        }                                                                                 \
    } while (0)

cl_mem hcqcl_svm_find(cl_context ctx, const void *ptr, size_t size, size_t *offset)
{
    const uintptr_t p = (uintptr_t)ptr;
    cl_mem found = NULL;
    pthread_mutex_lock(&ctx->lock);
    for (struct hcqcl_svm *s = ctx->svm; s; s = s->next) {
        const uintptr_t base = (uintptr_t)s->buf->pages;
        if (p >= base && p - base < s->buf->size && size <= s->buf->size - (p - base)) {
            found = s->buf;
            *offset = p - base;
            hcqcl_clRetainMemObject(found);
            break;
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    return found;
}

/* span bytes of host pages aligned to align whose range is free in the
 * GPU address plan, now reserved there; NULL when none could be had. A
 * range the plan refused stays mapped until the end, so that the next
 * mmap does not hand it out again. */
static void *svm_place(size_t span, size_t align)
{
    void *refused[SVM_PLACE_TRIES];
    unsigned nrefused = 0;
    uint8_t *got = NULL;
    while (nrefused < SVM_PLACE_TRIES) {
        const size_t len = span + align;
        if (len < span)
            break;
        uint8_t *raw = mmap(NULL, len, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (raw == MAP_FAILED)
            break;
        uint8_t *p = (uint8_t *)util_align_up((uintptr_t)raw, align);
        if (p > raw)
            munmap(raw, (size_t)(p - raw));
        if (raw + len > p + span)
            munmap(p + span, (size_t)(raw + len - (p + span)));
        if (hcq_va_reserve((uintptr_t)p, span) == 0) {
            got = p;
            break;
        }
        refused[nrefused++] = p;
    }
    for (unsigned i = 0; i < nrefused; i++)
        munmap(refused[i], span);
    if (got) {
        /* Pinned pages must not go copy-on-write in a forked child. */
        madvise(got, span, MADV_DONTFORK);
        if (span >= (2u << 20))
            madvise(got, span, MADV_HUGEPAGE); /* advice: fine without */
    }
    return got;
}

void *hcqcl_clSVMAlloc(cl_context context, cl_svm_mem_flags flags, size_t size,
                       cl_uint alignment)
{
    /* NULL if context is not a valid context */
    SVM_CHECK(hcqcl_context_valid(context), "context %p", (void *)context);
    /* NULL if flags does not contain a valid combination of the values described in the table */
    SVM_CHECK(!(flags & ~(cl_svm_mem_flags)SVM_FLAGS) &&
                  __builtin_popcountll(flags & SVM_ACCESS_FLAGS) <= 1,
              "flags 0x%llx", (unsigned long long)flags);
    /* NULL if CL_MEM_SVM_FINE_GRAIN_BUFFER or CL_MEM_SVM_ATOMICS is specified in flags and these are not supported by at least one device in context */
    SVM_CHECK(!(flags & (CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS)),
              "fine-grain SVM and SVM atomics are not supported");
    uint64_t max_alloc = UINT64_MAX;
    for (cl_uint i = 0; i < context->num_devices; i++)
        max_alloc = UTIL_MIN(max_alloc, hcqcl_device_max_alloc(context->devices[i]));
    /* NULL if size is 0 or > CL_DEVICE_MAX_MEM_ALLOC_SIZE value for any device in context */
    SVM_CHECK(size > 0 && size <= max_alloc, "size %zu (max %llu)", size,
                (unsigned long long)max_alloc);
    /* NULL if alignment is not a power of two or the OpenCL implementation cannot support the specified alignment for at least one device in context */
    SVM_CHECK(!alignment || util_is_pow2(alignment), "alignment %u", alignment);

    /* 2 MiB pages for large allocations, 64 KiB granules otherwise. */
    const size_t grain = size >= (2u << 20) ? (2u << 20) : (64u << 10);
    const size_t span = util_align_up(size, grain);
    const size_t align = UTIL_MAX((size_t)(alignment ? alignment : SVM_DEFAULT_ALIGN), grain);
    uint8_t *pages = svm_place(span, align);
    /* NULL if there was a failure to allocate resources */
    SVM_CHECK(pages, "no host range of %zu bytes the GPU can share", span);

    const cl_uint n = context->num_devices;
    struct hcq_mem **store = calloc(n, sizeof(*store));
    int rc = store ? 0 : -1;
    for (cl_uint i = 0; i < n && rc == 0; i++)
        rc = n == 1 ? hcq_mem_alloc_at(context->devices[i]->hw, (uintptr_t)pages, span,
                                       HCQ_MEM_DEVICE, NULL, false, &store[i])
                    : hcq_mem_alloc_at(context->devices[i]->hw, (uintptr_t)pages, span,
                                       HCQ_MEM_USER, pages, i > 0, &store[i]);
    if (rc != 0) {
        util_log(UTIL_LOG_ERR, "api: SVM allocation of %zu bytes failed (%d)\n", size, rc);
        for (cl_uint i = n; store && i-- > 0;)
            hcq_mem_free(store[i]);
        free(store);
        hcq_va_unreserve((uintptr_t)pages, span);
        munmap(pages, span);
        return NULL;
    }
    cl_mem_flags access = flags & SVM_ACCESS_FLAGS ? flags & SVM_ACCESS_FLAGS : CL_MEM_READ_WRITE;
    struct hcqcl_svm *node = malloc(sizeof(*node));
    cl_mem buf = hcqcl_mem_create_svm(context, access, size, pages, span, store,
                                      n == 1 ? NULL : pages);
    if (!buf || !node) {
        free(node);
        if (buf)
            hcqcl_clReleaseMemObject(buf);
        util_log(UTIL_LOG_ERR, "api: SVM allocation of %zu bytes: out of host memory\n", size);
        return NULL;
    }
    node->buf = buf;
    pthread_mutex_lock(&context->lock);
    node->next = context->svm;
    context->svm = node;
    pthread_mutex_unlock(&context->lock);
    UTIL_LOG(UTIL_LOG_API, "api: SVM %p: %zu bytes, flags 0x%llx\n", (void *)pages, size,
             (unsigned long long)flags);
    return pages;
}

void hcqcl_clSVMFree(cl_context context, void *svm_pointer)
{
    if (!hcqcl_context_valid(context) || !svm_pointer)
        return;
    struct hcqcl_svm *found = NULL;
    pthread_mutex_lock(&context->lock);
    for (struct hcqcl_svm **pp = &context->svm; *pp; pp = &(*pp)->next) {
        if ((*pp)->buf->pages == svm_pointer) {
            found = *pp;
            *pp = found->next;
            break;
        }
    }
    pthread_mutex_unlock(&context->lock);
    if (!found) {
        util_log(UTIL_LOG_ERR, "api: clSVMFree(%p): not an SVM allocation of context %p\n",
                 svm_pointer, (void *)context);
        return;
    }
    /* Commands of this allocation hold it until they are done; a kernel
     * given its address does not (the application waits for those). */
    hcqcl_clReleaseMemObject(found->buf);
    free(found);
}

/* ---- Host work of a command ------------------------------------------ */

/* A command whose work is done by the CPU once its dependencies are
 * complete, before its event does: clEnqueueSVMFree's frees, a memcpy
 * between two host ranges. */
struct svm_host_job {
    enum { SVM_JOB_FREE, SVM_JOB_COPY } kind;
    cl_command_queue q;
    void(CL_CALLBACK *free_fn)(cl_command_queue, cl_uint, void *[], void *);
    void *user_data;
    cl_uint num;
    void **ptrs;
    void *dst;
    const void *src;
    size_t size;
    struct hcqcl_host_pending pending; /* a copy's dst until it ran */
};

static void svm_job_run(void *arg, cl_int status)
{
    struct svm_host_job *job = arg;
    if (status < 0) {
        hcqcl_host_pending_remove(&job->pending);
        return;
    }
    if (job->kind == SVM_JOB_COPY) {
        if (job->size)
            memcpy(job->dst, job->src, job->size);
        hcqcl_host_pending_remove(&job->pending);
    } else if (job->free_fn) {
        job->free_fn(job->q, job->num, job->ptrs, job->user_data);
    } else {
        cl_context ctx = hcqcl_queue_context(job->q);
        for (cl_uint i = 0; i < job->num; i++)
            hcqcl_clSVMFree(ctx, job->ptrs[i]);
    }
}

static void svm_job_free(void *arg)
{
    struct svm_host_job *job = arg;
    hcqcl_host_pending_remove(&job->pending);
    free(job);
}

/* Enqueue job, which the command owns from here (also on failure). */
static cl_int svm_host_command(cl_command_queue q, cl_command_type type,
                               struct svm_host_job *job, bool blocking, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event)
{
    struct hcqcl_cmd cmd;
    cl_int err = hcqcl_xfer_begin(q, type, HCQCL_XFER_D2D, num_events, wait_list, &cmd);
    if (err != CL_SUCCESS) {
        svm_job_free(job);
        return err;
    }
    /* After the (empty) GPU part: on the notifier thread or a waiter's,
     * with no queue lock held, so a free callback may enqueue again. */
    err = hcqcl_cmd_after(&cmd, svm_job_run, job);
    if (err == CL_SUCCESS && (err = hcqcl_cmd_on_release(&cmd, svm_job_free, job)) != CL_SUCCESS)
        cmd.ev->after_fn = NULL;
    if (err != CL_SUCCESS) {
        hcqcl_cmd_abort(&cmd);
        svm_job_free(job);
        return err;
    }
    return hcqcl_cmd_end(&cmd, blocking, event);
}

/* ---- Commands ------------------------------------------------------- */

cl_int hcqcl_clEnqueueSVMFree(cl_command_queue command_queue, cl_uint num_svm_pointers,
                              void *svm_pointers[],
                              void(CL_CALLBACK *pfn_free_func)(cl_command_queue queue,
                                                               cl_uint num_svm_pointers,
                                                               void *svm_pointers[],
                                                               void *user_data),
                              void *user_data, cl_uint num_events_in_wait_list,
                              const cl_event *event_wait_list, cl_event *event)
{
    cl_command_queue q = command_queue;
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    /* CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is non-NULL, or if svm_pointers is NULL and num_svm_pointers is not 0 */
    HCQCL_CHECK(!num_svm_pointers == !svm_pointers, CL_INVALID_VALUE, "%u pointers at %p",
                num_svm_pointers, (void *)svm_pointers);
    struct svm_host_job *job =
        calloc(1, sizeof(*job) + (size_t)num_svm_pointers * sizeof(void *));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK(job, CL_OUT_OF_HOST_MEMORY, "SVM free of %u pointers", num_svm_pointers);
    job->kind = SVM_JOB_FREE;
    job->q = q;
    job->free_fn = pfn_free_func;
    job->user_data = user_data;
    job->num = num_svm_pointers;
    job->ptrs = (void **)(job + 1);
    if (num_svm_pointers)
        memcpy(job->ptrs, svm_pointers, (size_t)num_svm_pointers * sizeof(void *));
    return svm_host_command(q, CL_COMMAND_SVM_FREE, job, false, num_events_in_wait_list,
                            event_wait_list, event);
}

cl_int hcqcl_clEnqueueSVMMemcpy(cl_command_queue command_queue, cl_bool blocking_copy,
                                void *dst_ptr, const void *src_ptr, size_t size,
                                cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                cl_event *event)
{
    cl_command_queue q = command_queue;
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    /* CL_INVALID_VALUE if dst_ptr or src_ptr is NULL */
    HCQCL_CHECK(dst_ptr && src_ptr, CL_INVALID_VALUE, "dst %p, src %p", dst_ptr, src_ptr);
    /* CL_MEM_COPY_OVERLAP if the values specified for dst_ptr, src_ptr and size result in an overlapping copy */
    const uintptr_t d = (uintptr_t)dst_ptr, s = (uintptr_t)src_ptr;
    HCQCL_CHECK(!size || (d >= s ? d - s >= size : s - d >= size), CL_MEM_COPY_OVERLAP,
                "[%p, +%zu) <- [%p, +%zu)", dst_ptr, size, src_ptr, size);
    /* CL_INVALID_EVENT_WAIT_LIST / CL_INVALID_CONTEXT for the wait list */
    cl_int err =
        hcqcl_wait_list_check(hcqcl_queue_context(q), num_events_in_wait_list, event_wait_list);
    if (err != CL_SUCCESS)
        return err;

    cl_context ctx = hcqcl_queue_context(q);
    size_t doff = 0, soff = 0;
    cl_mem dbuf = size ? hcqcl_svm_find(ctx, dst_ptr, 0, &doff) : NULL;
    cl_mem sbuf = size ? hcqcl_svm_find(ctx, src_ptr, 0, &soff) : NULL;
    /* CL_INVALID_VALUE: a range that starts in an SVM allocation and runs past its end */
    if ((dbuf && size > dbuf->size - doff) || (sbuf && size > sbuf->size - soff)) {
        if (dbuf)
            hcqcl_clReleaseMemObject(dbuf);
        if (sbuf)
            hcqcl_clReleaseMemObject(sbuf);
        HCQCL_FAIL(CL_INVALID_VALUE, "[%p, +%zu) <- [%p, +%zu) runs past an SVM allocation",
                   dst_ptr, size, src_ptr, size);
    }
    if (dbuf && sbuf)
        err = hcqcl_enqueue_copy(q, sbuf, dbuf, soff, doff, size, blocking_copy,
                                 CL_COMMAND_SVM_MEMCPY, num_events_in_wait_list,
                                 event_wait_list, event);
    else if (dbuf)
        err = hcqcl_enqueue_rw(q, dbuf, blocking_copy, doff, size, (void *)src_ptr, true,
                               CL_COMMAND_SVM_MEMCPY, num_events_in_wait_list, event_wait_list,
                               event);
    else if (sbuf)
        err = hcqcl_enqueue_rw(q, sbuf, blocking_copy, soff, size, dst_ptr, false,
                               CL_COMMAND_SVM_MEMCPY, num_events_in_wait_list, event_wait_list,
                               event);
    if (dbuf)
        hcqcl_clReleaseMemObject(dbuf);
    if (sbuf)
        hcqcl_clReleaseMemObject(sbuf);
    if (dbuf || sbuf)
        return err;
    /* Neither is in an SVM allocation: host memory both, copied by the CPU
     * in the command's turn. */
    struct svm_host_job *job = calloc(1, sizeof(*job));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK(job, CL_OUT_OF_HOST_MEMORY, "host copy");
    job->kind = SVM_JOB_COPY;
    job->q = q;
    job->dst = dst_ptr;
    job->src = src_ptr;
    job->size = size;
    /* The CPU writes dst in the command's turn: a transfer from it reads
     * it late until then. */
    hcqcl_host_pending_add(&job->pending, dst_ptr, size);
    return svm_host_command(q, CL_COMMAND_SVM_MEMCPY, job, blocking_copy,
                            num_events_in_wait_list, event_wait_list, event);
}

cl_int hcqcl_clEnqueueSVMMemFill(cl_command_queue command_queue, void *svm_ptr,
                                 const void *pattern, size_t pattern_size, size_t size,
                                 cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                 cl_event *event)
{
    cl_command_queue q = command_queue;
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    /* CL_INVALID_VALUE if svm_ptr is NULL */
    HCQCL_CHECK(svm_ptr, CL_INVALID_VALUE, "svm_ptr NULL");
    /* CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size is not one of {1, 2, 4, 8, 16, 32, 64, 128} */
    HCQCL_CHECK(pattern && pattern_size && pattern_size <= 128 && util_is_pow2(pattern_size),
                CL_INVALID_VALUE, "pattern %p of %zu bytes", pattern, pattern_size);
    /* CL_INVALID_VALUE if svm_ptr is not aligned to pattern_size bytes */
    HCQCL_CHECK((uintptr_t)svm_ptr % pattern_size == 0, CL_INVALID_VALUE,
                "%p not aligned to %zu", svm_ptr, pattern_size);
    /* CL_INVALID_VALUE if size is not a multiple of pattern_size */
    HCQCL_CHECK(size % pattern_size == 0, CL_INVALID_VALUE, "size %zu, pattern %zu", size,
                pattern_size);
    size_t off = 0;
    cl_mem buf = hcqcl_svm_find(hcqcl_queue_context(q), svm_ptr, size, &off);
    /* CL_INVALID_VALUE: [svm_ptr, svm_ptr + size) is not inside an SVM allocation (no system SVM) */
    HCQCL_CHECK(buf, CL_INVALID_VALUE, "[%p, +%zu) is not SVM memory of the queue's context",
                svm_ptr, size);
    cl_int err = hcqcl_enqueue_fill(q, buf, pattern, pattern_size, off, size,
                                    CL_COMMAND_SVM_MEMFILL, num_events_in_wait_list,
                                    event_wait_list, event);
    hcqcl_clReleaseMemObject(buf);
    return err;
}

cl_int hcqcl_clEnqueueSVMMap(cl_command_queue command_queue, cl_bool blocking_map,
                             cl_map_flags flags, void *svm_ptr, size_t size,
                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                             cl_event *event)
{
    cl_command_queue q = command_queue;
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    /* CL_INVALID_VALUE if svm_ptr is NULL */
    HCQCL_CHECK(svm_ptr, CL_INVALID_VALUE, "svm_ptr NULL");
    /* CL_INVALID_VALUE if size is 0 */
    HCQCL_CHECK(size, CL_INVALID_VALUE, "size 0");
    /* CL_INVALID_VALUE if values specified in map_flags are not valid */
    cl_int err = hcqcl_xfer_check_map_flags(flags);
    if (err != CL_SUCCESS)
        return err;
    size_t off = 0;
    cl_mem buf = hcqcl_svm_find(hcqcl_queue_context(q), svm_ptr, size, &off);
    /* CL_INVALID_VALUE: [svm_ptr, svm_ptr + size) is not inside an SVM allocation (no system SVM) */
    HCQCL_CHECK(buf, CL_INVALID_VALUE, "[%p, +%zu) is not SVM memory of the queue's context",
                svm_ptr, size);
    hcqcl_map_enqueue(q, buf, blocking_map, flags, off, size, CL_COMMAND_SVM_MAP,
                      num_events_in_wait_list, event_wait_list, event, &err);
    hcqcl_clReleaseMemObject(buf);
    return err;
}

cl_int hcqcl_clEnqueueSVMUnmap(cl_command_queue command_queue, void *svm_ptr,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event)
{
    cl_command_queue q = command_queue;
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    /* CL_INVALID_VALUE if svm_ptr is NULL */
    HCQCL_CHECK(svm_ptr, CL_INVALID_VALUE, "svm_ptr NULL");
    size_t off = 0;
    cl_mem buf = hcqcl_svm_find(hcqcl_queue_context(q), svm_ptr, 0, &off);
    /* CL_INVALID_VALUE: svm_ptr is not in an SVM allocation, so was not mapped */
    HCQCL_CHECK(buf, CL_INVALID_VALUE, "%p is not SVM memory of the queue's context", svm_ptr);
    cl_int err = hcqcl_unmap_enqueue(q, buf, svm_ptr, CL_COMMAND_SVM_UNMAP,
                                     num_events_in_wait_list, event_wait_list, event);
    hcqcl_clReleaseMemObject(buf);
    return err;
}

cl_int hcqcl_clEnqueueSVMMigrateMem(cl_command_queue command_queue, cl_uint num_svm_pointers,
                                    const void **svm_pointers, const size_t *sizes,
                                    cl_mem_migration_flags flags,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event)
{
    cl_command_queue q = command_queue;
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    /* CL_INVALID_VALUE if num_svm_pointers is zero or svm_pointers is NULL */
    HCQCL_CHECK(num_svm_pointers && svm_pointers, CL_INVALID_VALUE, "%u pointers at %p",
                num_svm_pointers, (void *)svm_pointers);
    /* CL_INVALID_VALUE if flags is not 0 or is not any of the values described in the table */
    HCQCL_CHECK(!(flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST |
                                                    CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)),
                CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
    /* CL_INVALID_EVENT_WAIT_LIST / CL_INVALID_CONTEXT for the wait list */
    cl_int err =
        hcqcl_wait_list_check(hcqcl_queue_context(q), num_events_in_wait_list, event_wait_list);
    if (err != CL_SUCCESS)
        return err;
    cl_mem *bufs = calloc(num_svm_pointers, sizeof(*bufs));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK(bufs, CL_OUT_OF_HOST_MEMORY, "%u pointers", num_svm_pointers);
    for (cl_uint i = 0; i < num_svm_pointers && err == CL_SUCCESS; i++) {
        size_t off = 0;
        const size_t size = sizes ? sizes[i] : 0;
        bufs[i] = hcqcl_svm_find(hcqcl_queue_context(q), svm_pointers[i], size, &off);
        /* CL_INVALID_VALUE if sizes[i] is non-zero and the range [svm_pointers[i], svm_pointers[i]+sizes[i]) is not contained within an existing clSVMAlloc allocation */
        HCQCL_CHECK_GOTO(bufs[i], err, CL_INVALID_VALUE, "svm_pointers[%u] = %p (+%zu)", i,
                         svm_pointers[i], size);
    }
    /* Every allocation lives where the queue's device reaches it, from its
     * creation to its free. */
    if (err == CL_SUCCESS)
        err = hcqcl_enqueue_hold(q, CL_COMMAND_SVM_MIGRATE_MEM, num_svm_pointers, bufs,
                                 num_events_in_wait_list, event_wait_list, event);
fail:
    for (cl_uint i = 0; i < num_svm_pointers; i++)
        if (bufs[i])
            hcqcl_clReleaseMemObject(bufs[i]);
    free(bufs);
    return err;
}

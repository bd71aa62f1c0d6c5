/*
 * enqueue_mem.c — clEnqueueRead/Write/Copy/FillBuffer and the validators
 * the transfer entry points share.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"

cl_int hcqcl_xfer_check_range(size_t offset, size_t size, size_t total)
{
    /* CL_INVALID_VALUE if the region specified by offset and size is out of bounds */
    HCQCL_CHECK(size <= total && offset <= total - size, CL_INVALID_VALUE,
                "[%zu, +%zu) outside %zu bytes", offset, size, total);
    return CL_SUCCESS;
}

cl_int hcqcl_xfer_check_fill(const void *pattern, size_t pattern_size, size_t offset,
                             size_t size, size_t total)
{
    /* CL_INVALID_VALUE if pattern is NULL */
    HCQCL_CHECK(pattern, CL_INVALID_VALUE, "NULL pattern");
    /* CL_INVALID_VALUE if pattern_size is zero, not a power of two or greater than 128 */
    HCQCL_CHECK(util_is_pow2(pattern_size) && pattern_size <= 128, CL_INVALID_VALUE,
                "pattern size %zu", pattern_size);
    /* CL_INVALID_VALUE if offset is not a multiple of pattern_size */
    HCQCL_CHECK(offset % pattern_size == 0, CL_INVALID_VALUE, "offset %zu, pattern %zu", offset,
                pattern_size);
    /* CL_INVALID_VALUE if size is not a multiple of pattern_size */
    HCQCL_CHECK(size % pattern_size == 0, CL_INVALID_VALUE, "size %zu, pattern %zu", size,
                pattern_size);
    return hcqcl_xfer_check_range(offset, size, total);
}

cl_int hcqcl_xfer_check_host_access(cl_mem_flags mem_flags, bool host_read, bool host_write)
{
    /* CL_INVALID_OPERATION if read on a buffer created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS */
    HCQCL_CHECK(!host_read || !(mem_flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)),
                CL_INVALID_OPERATION, "host read of a buffer with flags 0x%llx",
                (unsigned long long)mem_flags);
    /* CL_INVALID_OPERATION if write on a buffer created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS */
    HCQCL_CHECK(!host_write || !(mem_flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)),
                CL_INVALID_OPERATION, "host write of a buffer with flags 0x%llx",
                (unsigned long long)mem_flags);
    return CL_SUCCESS;
}

cl_int hcqcl_xfer_check_map_flags(cl_map_flags flags)
{
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    /* CL_INVALID_VALUE if values specified in map_flags are not valid */
    HCQCL_CHECK(!(flags & ~known), CL_INVALID_VALUE, "map flags 0x%llx",
                (unsigned long long)flags);
    /* CL_INVALID_VALUE: CL_MAP_READ or CL_MAP_WRITE and CL_MAP_WRITE_INVALIDATE_REGION are mutually exclusive */
    HCQCL_CHECK(!(flags & CL_MAP_WRITE_INVALIDATE_REGION) ||
                    !(flags & (CL_MAP_READ | CL_MAP_WRITE)),
                CL_INVALID_VALUE, "map flags 0x%llx", (unsigned long long)flags);
    return CL_SUCCESS;
}

bool hcqcl_xfer_ranges_overlap(uint64_t a, uint64_t b, uint64_t size)
{
    if (!size)
        return false;
    return a < b ? b - a < size : a - b < size;
}

cl_int hcqcl_xfer_check_buffer(cl_command_queue q, cl_mem m)
{
    /* CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object */
    HCQCL_CHECK(hcqcl_mem_valid(m) && m->type == CL_MEM_OBJECT_BUFFER, CL_INVALID_MEM_OBJECT,
                "mem %p", (void *)m);
    /* CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not the same */
    HCQCL_CHECK(m->ctx == hcqcl_queue_context(q), CL_INVALID_CONTEXT, "mem %p of another context",
                (void *)m);
    /* CL_MISALIGNED_SUB_BUFFER_OFFSET if buffer is a sub-buffer whose origin is not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN */
    HCQCL_CHECK(!m->parent || m->offset % HCQCL_MEM_BASE_ALIGN == 0,
                CL_MISALIGNED_SUB_BUFFER_OFFSET, "sub-buffer origin %zu", m->offset);
    return CL_SUCCESS;
}

cl_int hcqcl_xfer_check_args(cl_command_queue q, unsigned n, const cl_mem *bufs)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    cl_int err = CL_SUCCESS;
    for (unsigned i = 0; i < n && err == CL_SUCCESS; i++)
        err = hcqcl_xfer_check_buffer(q, bufs[i]);
    return err;
}

cl_int hcqcl_xfer_begin(cl_command_queue q, cl_command_type type, enum hcqcl_xfer_dir dir,
                        cl_uint num_events, const cl_event *wait_list, struct hcqcl_cmd *cmd)
{
    (void)dir;
    return hcqcl_cmd_begin(q, type, HCQ_ENGINE_COPY, num_events, wait_list, cmd);
}

cl_int hcqcl_xfer_begin_host(cl_command_queue q, cl_mem buf, const void *ptr, bool write,
                             cl_command_type type, cl_uint num_events,
                             const cl_event *wait_list, struct hcqcl_cmd *cmd)
{
    /* CL_INVALID_VALUE if ptr is NULL */
    HCQCL_CHECK(ptr, CL_INVALID_VALUE, "NULL ptr");
    /* CL_INVALID_OPERATION if a read of a HOST_WRITE_ONLY / HOST_NO_ACCESS buffer, or a write of a HOST_READ_ONLY / HOST_NO_ACCESS one */
    cl_int err = hcqcl_xfer_check_host_access(buf->flags, !write, write);
    if (err != CL_SUCCESS)
        return err;
    err = hcqcl_xfer_begin(q, type, write ? HCQCL_XFER_H2D : HCQCL_XFER_D2H, num_events,
                           wait_list, cmd);
    if (err == CL_SUCCESS)
        hcqcl_cmd_retain_mem(cmd, buf);
    return err;
}

/* ---- Host <-> GPU data movement ------------------------------------ */

/* What a host transfer keeps alive until its command is released. */
struct xfer_job {
    struct hcqcl_staging *staging; /* chain, back to the pool at release */
    struct hcq_mem *reg;           /* registered user pages */
    void *host;                    /* through one staging buffer: the read's
                                    * target, or a late write's source */
    size_t size;
    struct hcqcl_host_pending pending; /* a read's host range until done */
};

static void xfer_job_release(void *arg)
{
    struct xfer_job *job = arg;
    hcqcl_host_pending_remove(&job->pending);
    hcqcl_staging_put(job->staging);
    hcq_mem_free(job->reg);
    free(job);
}

/* After-hook of a staged read: the GPU has filled the staging buffer. */
static void xfer_job_unstage(void *arg, cl_int status)
{
    struct xfer_job *job = arg;
    if (status >= 0)
        hcqcl_staging_copy(job->host, job->staging->cpu, job->size);
    hcqcl_host_pending_remove(&job->pending);
}

/* Before-hook of a late write: what came before has written the host
 * range; it goes into the staging buffer now. */
static void xfer_job_stage(void *arg, cl_int status)
{
    struct xfer_job *job = arg;
    if (status >= 0)
        hcqcl_staging_copy(job->staging->cpu, job->host, job->size);
}

static void xfer_mark_broken(struct hcqcl_staging *chain)
{
    for (; chain; chain = chain->next)
        chain->broken = true;
}

/* Queue one chunk copy and the release of the chunk's signal after it. */
static int xfer_chunk(struct hcq_queue *hq, struct hcqcl_staging *s, uint64_t dst, uint64_t src,
                      size_t len)
{
    int rc = hcq_q_copy(hq, dst, src, len);
    if (rc == 0)
        rc = hcq_q_signal(hq, s->sig, s->sig_val + 1);
    if (rc == 0) {
        s->sig_val++;
        rc = hcq_q_submit(hq);
    }
    return rc;
}

/* Pipelined pieces ramp up from XFER_PIECE_MIN at the start and back down
 * at the end: the first piece is one the CPU fills (or the engine brings
 * over) before the other side has anything to do, the last one the other
 * side finishes alone, so short ends shorten the time only one side works.
 * In between, whole chunks keep per-piece costs (a submit, a signal wait,
 * waking the copy threads) small against the copy itself. */
enum { XFER_PIECE_MIN = 1u << 20 };

/* Blocking transfers above two pieces are pipelined: from there on the
 * CPU's and the engine's halves overlap, even within one chunk's size. */
enum { XFER_PIPELINE_MIN = 2 * XFER_PIECE_MIN };

static size_t xfer_piece_len(size_t off, size_t size)
{
    size_t left = size - off;
    size_t len = UTIL_MIN(off, left / 2);
    len = UTIL_MIN(UTIL_MAX(len, (size_t)XFER_PIECE_MIN), (size_t)HCQCL_STAGING_CHUNK);
    /* No sliver at the end: it would cost a whole round for little. */
    if (len >= left || left - len < XFER_PIECE_MIN)
        len = UTIL_MIN(left, (size_t)HCQCL_STAGING_CHUNK);
    return len;
}

/* One chunk of the pipeline ring and the piece it carries now. */
struct xfer_slot {
    struct hcqcl_staging *s;
    size_t off, len;
};

/* Transfer of more than one chunk, pipelined through the chunks
 * of job->staging: the copy threads (hcqcl_staging_copy) fill chunk i+1
 * while the copy engine drains chunk i; reads keep every chunk of the ring
 * queued on the engine and drain them in order. Waits for the GPU inline:
 * only for commands whose dependencies need nothing from the host. */
static cl_int xfer_pipeline(struct hcqcl_cmd *cmd, struct xfer_job *job, uint64_t va,
                            uint8_t *host, size_t size, bool to_gpu)
{
    struct xfer_slot ring[HCQCL_STAGING_RING];
    unsigned n = 0;
    for (struct hcqcl_staging *s = job->staging; s && n < HCQCL_STAGING_RING; s = s->next)
        ring[n++] = (struct xfer_slot){.s = s};

    struct hcq_queue *hq = hcqcl_cmd_hq(cmd);
    int rc = 0;
    /* The first piece reaches the GPU inside this call. */
    hcqcl_cmd_submitted(cmd);
    if (to_gpu) {
        for (size_t off = 0, i = 0; off < size && rc == 0; i++) {
            struct xfer_slot *slot = &ring[i % n];
            struct hcqcl_staging *s = slot->s;
            size_t len = xfer_piece_len(off, size);
            /* The chunk's previous piece must have left for the GPU. */
            rc = hcq_signal_wait(s->sig, s->sig_val, UINT64_MAX);
            if (rc == 0) {
                hcqcl_staging_copy(s->cpu, host + off, len);
                rc = xfer_chunk(hq, s, va + off, s->va, len);
            }
            off += len;
        }
    } else {
        size_t issue_off = 0, issued = 0, drained = 0;
        while (rc == 0) {
            /* Keep every chunk busy: ask for the pieces ahead first. A
             * chunk is reissued only after its piece was drained below. */
            while (rc == 0 && issue_off < size && issued - drained < n) {
                struct xfer_slot *slot = &ring[issued % n];
                slot->off = issue_off;
                slot->len = xfer_piece_len(issue_off, size);
                rc = xfer_chunk(hq, slot->s, slot->s->va, va + slot->off, slot->len);
                issue_off += slot->len;
                issued++;
            }
            if (rc != 0 || drained == issued)
                break;
            struct xfer_slot *slot = &ring[drained % n];
            rc = hcq_signal_wait(slot->s->sig, slot->s->sig_val, UINT64_MAX);
            if (rc == 0)
                hcqcl_staging_copy(host + slot->off, slot->s->cpu, slot->len);
            drained++;
        }
    }
    if (rc < 0) {
        UTIL_LOG(UTIL_LOG_API, "api: pipelined transfer of %zu bytes: error %d", size, rc);
        xfer_mark_broken(job->staging);
        return rc == -ENOMEM ? CL_OUT_OF_HOST_MEMORY : CL_OUT_OF_RESOURCES;
    }
    return CL_SUCCESS;
}

cl_int hcqcl_xfer_host(struct hcqcl_cmd *cmd, struct hcq_device *dev, uint64_t va, void *host,
                       size_t size, bool to_gpu)
{
    if (size == 0 || hcqcl_cmd_terminated(cmd))
        return CL_SUCCESS;
    /* A lost device (a fault, or a forked child's inherited one, whose
     * staging pages stayed with the parent) moves nothing. */
    if (hcq_device_lost(dev))
        return CL_OUT_OF_RESOURCES;
    uint64_t pinned;
    if (hcqcl_xfer_pinned(cmd, dev, host, size, &pinned)) {
        hcqcl_cmd_expect(cmd, to_gpu ? HCQCL_RATE_H2D : HCQCL_RATE_D2H, size);
        /* The engine writes the host memory when the command runs. */
        if (!to_gpu) {
            cl_int err = hcqcl_host_pending_cmd(cmd, host, size);
            if (err != CL_SUCCESS)
                return err;
        }
        struct hcq_queue *hq = hcqcl_cmd_hq(cmd);
        int rc = to_gpu ? hcq_q_copy(hq, va, pinned, size) : hcq_q_copy(hq, pinned, va, size);
        return rc < 0 ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
    }
    struct xfer_job *job = calloc(1, sizeof(*job));
    if (!job)
        return CL_OUT_OF_HOST_MEMORY;

    /* Resources first: until the release hook owns the job, failing here
     * leaves nothing recorded on the GPU and the job is freed at once. */
    /* The pipeline waits for the GPU inline, with the queue locked and the
     * command not yet tracked: only when nothing it waits for needs the
     * host (a user event, another device, a command on a channel that
     * waits for one: host_wait) or an after-hook the tracker runs (a
     * staged read's copy-out: hook_wait; the tracker may be the notifier,
     * in an application callback that enqueues on this queue), blocking
     * or not. Otherwise the gate it waits behind could never open (the
     * tracker opens gates of tracked commands, and the application sets
     * the user event after the call), and another thread's enqueue on the
     * queue, maybe the one that would set the user event, would wait for
     * the lock.
     * Done before the call returns is allowed for a non-blocking command,
     * and the pipeline moves pageable memory 3-4x faster than the GPU
     * reading the user's pages registered for it (clpeak on the H200:
     * 9.3 GB/s each way registered). */
    /* A write of host memory that a read enqueued before still fills
     * reads it when the command runs: never inline. */
    const bool late = to_gpu && hcqcl_host_pending_overlaps(host, size);
    /* On an out-of-order queue the command may sit on a channel behind
     * commands it does not depend on, whose waits its flags do not carry
     * (one waiting on the GPU for another command's after-hook): there
     * only on a channel that has finished everything recorded before it. */
    const bool ooo = cmd->q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    const bool clear = !ooo || hcq_signal_value(hcq_queue_timeline(cmd->hq)) >=
                                   hcq_queue_last(cmd->hq);
    const bool pipelined = size > XFER_PIPELINE_MIN && !late && clear && !cmd->gated &&
                           !cmd->ev->host_wait && !cmd->ev->hook_wait;
    uint64_t hva = 0;
    if (pipelined) {
        /* A ring's worth: the rest of the pool stays for other transfers. */
        if (!hcqcl_staging_get_chunks(dev, HCQCL_STAGING_RING, &job->staging))
            goto no_resources;
    } else if (size > HCQCL_STAGING_CHUNK && hcq_mem_register(dev, host, size, &job->reg) == 0) {
        /* Zero copy: the engine reads or writes the user's own pages. */
        hva = job->reg->va;
    } else {
        job->staging = hcqcl_staging_get(dev, size);
        if (!job->staging)
            goto no_resources;
        hva = job->staging->va;
        if (to_gpu && !late) {
            hcqcl_staging_copy(job->staging->cpu, host, size);
        } else {
            job->host = host;
            job->size = size;
        }
    }
    cl_int err = hcqcl_cmd_on_release(cmd, xfer_job_release, job);
    if (err == CL_SUCCESS && job->host)
        err = to_gpu ? hcqcl_cmd_before(cmd, xfer_job_stage, job)
                     : hcqcl_cmd_after(cmd, xfer_job_unstage, job);
    if (err != CL_SUCCESS) {
        cmd->ev->release_fn = NULL; /* the command is aborted: free here */
        cmd->ev->before_fn = NULL;
        xfer_job_release(job);
        return err;
    }
    if (!to_gpu && !pipelined)
        hcqcl_host_pending_add(&job->pending, host, size);

    /* From here a failure means a lost device or an exhausted ring; what
     * was recorded may still run, so the job stays with the (aborted)
     * command rather than being freed under the GPU. */
    if (pipelined)
        return xfer_pipeline(cmd, job, va, host, size, to_gpu);
    struct hcq_queue *hq = hcqcl_cmd_hq(cmd);
    int rc = to_gpu ? hcq_q_copy(hq, va, hva, size) : hcq_q_copy(hq, hva, va, size);
    return rc < 0 ? CL_OUT_OF_RESOURCES : CL_SUCCESS;

no_resources:
    xfer_job_release(job);
    return CL_OUT_OF_RESOURCES;
}

/* ---- Entry points --------------------------------------------------- */

cl_int hcqcl_enqueue_rw(cl_command_queue q, cl_mem buf, cl_bool blocking, size_t offset,
                        size_t size, void *ptr, bool write, cl_command_type type,
                        cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    cl_int err = hcqcl_xfer_check_args(q, 1, &buf);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE if the region specified by offset and size is out of bounds */
    err = hcqcl_xfer_check_range(offset, size, buf->size);
    if (err != CL_SUCCESS)
        return err;
    struct hcqcl_cmd cmd;
    err = hcqcl_xfer_begin_host(q, buf, ptr, write, type, num_events, wait_list, &cmd);
    if (err != CL_SUCCESS)
        return err;
    struct hcq_device *dev = hcqcl_queue_device(q)->hw;
    err = hcqcl_xfer_host(&cmd, dev, hcqcl_mem_va(buf, dev) + offset, ptr, size, write);
    if (err != CL_SUCCESS) {
        hcqcl_cmd_abort(&cmd);
        return err;
    }
    return hcqcl_cmd_end(&cmd, blocking, event);
}

cl_int hcqcl_clEnqueueReadBuffer(cl_command_queue command_queue, cl_mem buffer,
                                 cl_bool blocking_read, size_t offset, size_t size, void *ptr,
                                 cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                 cl_event *event)
{
    return hcqcl_enqueue_rw(command_queue, buffer, blocking_read, offset, size, ptr, false,
                            CL_COMMAND_READ_BUFFER, num_events_in_wait_list, event_wait_list,
                            event);
}

cl_int hcqcl_clEnqueueWriteBuffer(cl_command_queue command_queue, cl_mem buffer,
                                  cl_bool blocking_write, size_t offset, size_t size,
                                  const void *ptr, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list, cl_event *event)
{
    return hcqcl_enqueue_rw(command_queue, buffer, blocking_write, offset, size, (void *)ptr,
                            true, CL_COMMAND_WRITE_BUFFER, num_events_in_wait_list,
                            event_wait_list, event);
}

/* ---- Device-to-device copies on the compute engine ---------------- */

/* Copies (and fills) of at least this many bytes between two buffers in
 * device memory run as the built-in copy (fill) kernel on the compute
 * channel: one copy engine moves about 190 GB/s there, a kernel several
 * TB/s. Smaller ones, and any touching host memory (pinned, registered
 * user pages), stay on a copy engine: cheaper to start, and they overlap
 * kernels. */
#define HCQCL_D2D_KERNEL_MIN ((size_t)1 << 20)

static bool d2d_in_vidmem(cl_mem m, struct hcq_device *dev)
{
    const struct hcq_mem *s = hcqcl_mem_store(m, dev);
    return s && (s->kind == HCQ_MEM_DEVICE || s->kind == HCQ_MEM_DEVICE_MAPPED);
}

/* True when the copy should go to the compute channel; loads the built-in
 * kernels on first use (before the queue lock is taken). */
static bool d2d_on_compute(struct hcq_device *dev, cl_mem src, cl_mem dst, size_t size)
{
    return size >= HCQCL_D2D_KERNEL_MIN && d2d_in_vidmem(src, dev) && d2d_in_vidmem(dst, dev) &&
           hcq_builtin_prepare(dev) == 0;
}

cl_int hcqcl_clEnqueueCopyBuffer(cl_command_queue command_queue, cl_mem src_buffer,
                                 cl_mem dst_buffer, size_t src_offset, size_t dst_offset,
                                 size_t size, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    return hcqcl_enqueue_copy(command_queue, src_buffer, dst_buffer, src_offset, dst_offset,
                              size, false, CL_COMMAND_COPY_BUFFER, num_events_in_wait_list,
                              event_wait_list, event);
}

cl_int hcqcl_enqueue_copy(cl_command_queue q, cl_mem src_buffer, cl_mem dst_buffer,
                          size_t src_offset, size_t dst_offset, size_t size, bool blocking,
                          cl_command_type type, cl_uint num_events_in_wait_list,
                          const cl_event *event_wait_list, cl_event *event)
{
    cl_int err = hcqcl_xfer_check_args(q, 2, (const cl_mem[]){src_buffer, dst_buffer});
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE if the region specified by src_offset and size is out of bounds of src_buffer */
    err = hcqcl_xfer_check_range(src_offset, size, src_buffer->size);
    /* CL_INVALID_VALUE if the region specified by dst_offset and size is out of bounds of dst_buffer */
    if (err == CL_SUCCESS)
        err = hcqcl_xfer_check_range(dst_offset, size, dst_buffer->size);
    if (err != CL_SUCCESS)
        return err;
    /* CL_MEM_COPY_OVERLAP if src and dst are the same buffer, or sub-buffers of one buffer, and the regions overlap */
    HCQCL_CHECK(hcqcl_xfer_root(src_buffer) != hcqcl_xfer_root(dst_buffer) ||
                    !hcqcl_xfer_ranges_overlap(hcqcl_xfer_base(src_buffer) + src_offset,
                                               hcqcl_xfer_base(dst_buffer) + dst_offset, size),
                CL_MEM_COPY_OVERLAP, "[%zu, +%zu) -> [%zu, +%zu)", src_offset, size, dst_offset,
                size);

    struct hcq_device *dev = hcqcl_queue_device(q)->hw;
    const bool kernel = d2d_on_compute(dev, src_buffer, dst_buffer, size);
    struct hcqcl_cmd cmd;
    if (kernel)
        err = hcqcl_cmd_begin(q, type, HCQ_ENGINE_COMPUTE,
                              num_events_in_wait_list, event_wait_list, &cmd);
    else
        err = hcqcl_xfer_begin(q, type, HCQCL_XFER_D2D,
                               num_events_in_wait_list, event_wait_list, &cmd);
    if (err != CL_SUCCESS)
        return err;
    hcqcl_cmd_retain_mem(&cmd, src_buffer);
    hcqcl_cmd_retain_mem(&cmd, dst_buffer);
    if (kernel)
        hcqcl_cmd_expect(&cmd, HCQCL_RATE_D2D, size);
    const uint64_t dst_va = hcqcl_mem_va(dst_buffer, dev) + dst_offset;
    const uint64_t src_va = hcqcl_mem_va(src_buffer, dev) + src_offset;
    if (size && !hcqcl_cmd_terminated(&cmd) &&
        (kernel ? hcq_builtin_copy(hcqcl_cmd_hq(&cmd), dst_va, src_va, size)
                        : hcq_q_copy(hcqcl_cmd_hq(&cmd), dst_va, src_va, size)) < 0) {
        hcqcl_cmd_abort(&cmd);
        return CL_OUT_OF_RESOURCES;
    }
    return hcqcl_cmd_end(&cmd, blocking, event);
}

/* The shortest unit (1, 2, 4 or 8 bytes) that repeats to make pattern,
 * 0 when there is none: larger patterns need a staged fill. */
static unsigned fill_unit(const uint8_t *pattern, size_t pattern_size)
{
    for (unsigned unit = 1; unit <= 8 && unit <= pattern_size; unit <<= 1) {
        size_t i = unit;
        while (i < pattern_size && memcmp(pattern, pattern + i, unit) == 0)
            i += unit;
        if (i >= pattern_size)
            return unit;
    }
    return 0;
}

/* Fill with a pattern of 16..128 bytes that no 8-byte unit repeats. The
 * CPU lays the pattern out across a small pinned seed, the copy engine
 * brings the seed over once and then doubles the filled part with copies
 * inside device memory, so PCIe carries FILL_SEED bytes whatever the size.
 * Copies on one channel are NON_PIPELINED: each starts after the previous
 * one finished, so every copy reads bytes already written. */
enum { FILL_SEED = 64u << 10, FILL_STEP_MAX = 64u << 20 };

static cl_int fill_staged(struct hcqcl_cmd *cmd, struct hcq_device *dev, uint64_t va,
                          const uint8_t *pattern, size_t pattern_size, size_t size)
{
    /* A multiple of pattern_size: size is one, and FILL_SEED is. */
    const size_t seed = UTIL_MIN(size, (size_t)FILL_SEED);
    struct hcqcl_staging *s = hcqcl_staging_get(dev, seed);
    if (!s)
        return CL_OUT_OF_RESOURCES;
    cl_int err = hcqcl_cmd_on_release(cmd, hcqcl_staging_put_cb, s);
    if (err != CL_SUCCESS) {
        hcqcl_staging_put(s);
        return err;
    }
    uint8_t *cpu = s->cpu;
    for (size_t off = 0; off < seed; off += pattern_size)
        memcpy(cpu + off, pattern, pattern_size);
    struct hcq_queue *hq = hcqcl_cmd_hq(cmd);
    if (hcq_q_copy(hq, va, s->va, seed) < 0)
        return CL_OUT_OF_RESOURCES;
    /* filled stays a multiple of seed, hence of the pattern. */
    for (size_t filled = seed; filled < size;) {
        size_t n = UTIL_MIN(UTIL_MIN(filled, size - filled), (size_t)FILL_STEP_MAX);
        if (hcq_q_copy(hq, va + filled, va, n) < 0)
            return CL_OUT_OF_RESOURCES;
        filled += n;
    }
    return CL_SUCCESS;
}

cl_int hcqcl_clEnqueueFillBuffer(cl_command_queue command_queue, cl_mem buffer,
                                 const void *pattern, size_t pattern_size, size_t offset,
                                 size_t size, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    cl_command_queue q = command_queue;
    cl_int err = hcqcl_xfer_check_args(q, 1, &buffer);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE for a NULL pattern, a bad pattern_size, misaligned offset/size or an out-of-bounds region */
    err = hcqcl_xfer_check_fill(pattern, pattern_size, offset, size, buffer->size);
    if (err != CL_SUCCESS)
        return err;
    return hcqcl_enqueue_fill(q, buffer, pattern, pattern_size, offset, size,
                              CL_COMMAND_FILL_BUFFER, num_events_in_wait_list, event_wait_list,
                              event);
}

cl_int hcqcl_enqueue_fill(cl_command_queue q, cl_mem buffer, const void *pattern,
                          size_t pattern_size, size_t offset, size_t size, cl_command_type type,
                          cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                          cl_event *event)
{
    cl_int err;

    /* Large fills of device memory: the built-in fill kernel, as copies. */
    struct hcq_device *dev = hcqcl_queue_device(q)->hw;
    const bool kernel = d2d_on_compute(dev, buffer, buffer, size);
    struct hcqcl_cmd cmd;
    if (kernel)
        err = hcqcl_cmd_begin(q, type, HCQ_ENGINE_COMPUTE,
                              num_events_in_wait_list, event_wait_list, &cmd);
    else
        err = hcqcl_xfer_begin(q, type, HCQCL_XFER_D2D,
                               num_events_in_wait_list, event_wait_list, &cmd);
    if (err != CL_SUCCESS)
        return err;
    hcqcl_cmd_retain_mem(&cmd, buffer);
    uint64_t va = hcqcl_mem_va(buffer, dev) + offset;
    unsigned unit = fill_unit(pattern, pattern_size);
    if (size == 0 || hcqcl_cmd_terminated(&cmd))
        err = CL_SUCCESS;
    else if (kernel)
        err = hcq_builtin_fill(hcqcl_cmd_hq(&cmd), va, size, pattern, (unsigned)pattern_size) < 0
                  ? CL_OUT_OF_RESOURCES
                  : CL_SUCCESS;
    else if (unit)
        err = hcq_q_fill(hcqcl_cmd_hq(&cmd), va, size, pattern, unit) < 0 ? CL_OUT_OF_RESOURCES
                                                                           : CL_SUCCESS;
    else
        err = fill_staged(&cmd, dev, va, pattern, pattern_size, size);
    if (err != CL_SUCCESS) {
        hcqcl_cmd_abort(&cmd);
        return err;
    }
    return hcqcl_cmd_end(&cmd, false, event);
}

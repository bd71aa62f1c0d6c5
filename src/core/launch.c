/*
 * launch.c — hcq_q_exec: one kernel launch on a compute queue
 * (nv-hopper-facts §7.8), and the device's local (stack) memory.
 *
 * Per launch a scratch block holds constant bank 0 (64-byte aligned:
 * V04 stores bank addresses >> 6) followed by the QMD (256-byte aligned:
 * SEND_PCAS_A carries VA >> 8). Bank 0 gets zeros up to the parameter
 * start, block/grid dims at 0x00-0x14, the shader windows and initial
 * stack pointer, the envregs at 0x40 and the parameters; the QMD is the
 * kernel's template plus grid, block, shared memory and bank 0. The
 * pushbuffer then invalidates the constant caches (the CPU just wrote
 * bank 0 and the QMD) and hands the QMD to the compute engine.
 *
 * Caller: src/api (enqueue_kernel.c) holding the queue's lock, like every
 * verb. hcq_device_ensure_local takes dev->local_lock.
 */
#include <errno.h>
#include <string.h>

#include "core/priv.h"
#include "nv/nv.h"

/* Bank 0 must hold at least what the launcher writes ahead of the
 * parameters. */
#define CBUF0_MIN (NV_CBUF0_ENVREG + 4 * NV_CBUF0_ENVREGS)
_Static_assert(sizeof(((struct hcq_launch *)0)->envreg) == 4 * NV_CBUF0_ENVREGS &&
                   HCQ_ENVREG_COUNT == NV_CBUF0_ENVREGS,
               "hcq_launch.envreg is every environment register ptxas reads");
_Static_assert(CBUF0_MIN <= NV_CBUF0_PARAM_START_SM80, "envregs end below the parameters");

static void emit_local(struct hcq_queue *q, const struct hcq_device *dev)
{
    uint64_t va = dev->local_mem->va, per_tpc = dev->local_per_tpc;
    const uint32_t mem[2] = {(uint32_t)(va >> 32), (uint32_t)va};
    /* C limits how many SMs may hold local memory at once: all of them. */
    const uint32_t thr[3] = {(uint32_t)(per_tpc >> 32), (uint32_t)per_tpc, 0xFF};
    hcq_push_incr(q, NV_SUBC_COMPUTE, NVCBC0_SET_SHADER_LOCAL_MEMORY_A, mem, 2);
    hcq_push_incr(q, NV_SUBC_COMPUTE, NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A, thr, 3);
}
#define LOCAL_DW 7u

int hcq_device_ensure_local(struct hcq_device *dev, struct hcq_queue *q, uint32_t bytes_per_thread)
{
    const struct hcq_device_info *di = &dev->info;
    int rc = 0;
    pthread_mutex_lock(&dev->local_lock);
    if (!dev->local_mem || dev->local_per_thread < bytes_per_thread) {
        uint64_t per_tpc =
            nv_slm_bytes_per_tpc(bytes_per_thread, di->max_warps_per_sm, di->sm_per_tpc);
        uint64_t total = nv_slm_total_bytes(per_tpc, di->tpc_per_gpc, di->gpc_count);
        struct hcq_mem *mem = NULL;
        if (!total || dev->nlocal_retired >= UTIL_ARRAY_SIZE(dev->local_retired)) {
            rc = -ENOMEM;
            goto out;
        }
        rc = hcq_mem_alloc(dev, total, HCQ_MEM_DEVICE, &mem);
        if (rc)
            goto out;
        if (dev->local_mem)
            dev->local_retired[dev->nlocal_retired++] = dev->local_mem;
        dev->local_mem = mem;
        dev->local_per_thread = bytes_per_thread;
        dev->local_per_tpc = per_tpc;
        dev->local_gen++;
        CORE_LOG("local memory: %u bytes/thread, 0x%llx per TPC, 0x%llx total at 0x%llx",
                 bytes_per_thread, (unsigned long long)per_tpc, (unsigned long long)total,
                 (unsigned long long)mem->va);
    }
    if (q && q->local_gen != dev->local_gen) {
        rc = hcq_push_reserve(q, LOCAL_DW + 2);
        if (rc)
            goto out;
        hcq_q_idle(q); /* not under grids still running */
        emit_local(q, dev);
        q->local_gen = dev->local_gen;
    }
out:
    pthread_mutex_unlock(&dev->local_lock);
    return rc;
}

void hcq_device_local_fini(struct hcq_device *dev)
{
    pthread_mutex_lock(&dev->local_lock);
    for (unsigned i = 0; i < dev->nlocal_retired; i++)
        hcq_mem_free(dev->local_retired[i]);
    dev->nlocal_retired = 0;
    hcq_mem_free(dev->local_mem);
    dev->local_mem = NULL;
    dev->local_per_thread = 0;
    dev->local_per_tpc = 0;
    dev->local_gen++;
    pthread_mutex_unlock(&dev->local_lock);
}

/* Launch limits: -EINVAL with a log line saying which. */
static int check_launch(const struct hcq_queue *q, const struct hcq_kernel *k,
                        const struct hcq_launch *l, uint32_t *shared_bytes)
{
    const struct hcq_device_info *di = &q->dev->info;
    uint64_t threads = 1;
    if (q->engine != HCQ_ENGINE_COMPUTE || k->prog->dev != q->dev) {
        CORE_ERR("core: exec: kernel %s on a %s queue of another device or engine", k->name,
                 q->engine == HCQ_ENGINE_COMPUTE ? "compute" : "copy");
        return -EINVAL;
    }
    for (int d = 0; d < 3; d++) {
        if (l->grid[d] == 0 || l->grid[d] > di->max_grid_dim[d] || l->block[d] == 0 ||
            l->block[d] > di->max_block_dim[d]) {
            CORE_ERR("core: exec %s: grid %u block %u in dimension %d out of range", k->name,
                     l->grid[d], l->block[d], d);
            return -EINVAL;
        }
        if (k->reqntid[0] && l->block[d] != (k->reqntid[d] ? k->reqntid[d] : 1)) {
            CORE_ERR("core: exec %s: block must be %ux%ux%u", k->name, k->reqntid[0],
                     k->reqntid[1], k->reqntid[2]);
            return -EINVAL;
        }
        threads *= l->block[d];
    }
    if (threads > k->max_threads || threads > di->max_threads_per_block) {
        CORE_ERR("core: exec %s: %llu threads per block, at most %u", k->name,
                 (unsigned long long)threads, k->max_threads);
        return -EINVAL;
    }
    if (l->params_size != k->param_size || (k->param_size && !l->params)) {
        CORE_ERR("core: exec %s: %u parameter bytes%s, kernel takes %u", k->name, l->params_size,
                 l->params ? "" : " (no block)", k->param_size);
        return -EINVAL;
    }
    /* sm_90: the static section already includes the reserved 1 KiB. */
    uint64_t stat = UTIL_MAX(k->shared_section, k->shared_reserved);
    uint64_t total = util_align_up(stat + l->dynamic_shared, NV_SHARED_ALIGN);
    uint64_t limit = (uint64_t)nv_smem_max_kb(di->arch) * 1024;
    if (di->shared_per_block_max && di->shared_per_block_max + (uint64_t)k->shared_reserved < limit)
        limit = di->shared_per_block_max + (uint64_t)k->shared_reserved;
    if (total > limit) {
        CORE_ERR("core: exec %s: 0x%llx bytes of shared memory, at most 0x%llx", k->name,
                 (unsigned long long)total, (unsigned long long)limit);
        return -EINVAL;
    }
    *shared_bytes = (uint32_t)total;
    return 0;
}

static void fill_cbuf0(uint8_t *cb, const struct hcq_kernel *k, const struct hcq_launch *l,
                       uint32_t cb_size)
{
    memset(cb, 0, cb_size);
    for (int d = 0; d < 3; d++) {
        memcpy(cb + NV_CBUF0_BLOCK_DIM + 4 * d, &l->block[d], 4);
        memcpy(cb + NV_CBUF0_GRID_DIM + 4 * d, &l->grid[d], 4);
    }
    const uint64_t shared = HCQ_SHARED_WINDOW, local = HCQ_LOCAL_WINDOW;
    const uint32_t stack = NV_CBUF0_STACK_INIT;
    memcpy(cb + NV_CBUF0_SHARED_WINDOW, &shared, 8);
    memcpy(cb + NV_CBUF0_LOCAL_WINDOW, &local, 8);
    memcpy(cb + NV_CBUF0_STACK, &stack, 4);
    memcpy(cb + NV_CBUF0_ENVREG, l->envreg, sizeof(l->envreg));
    if (k->param_size)
        memcpy(cb + k->param_base, l->params, k->param_size);
}

static int patch_qmd(uint32_t *qmd, const struct hcq_kernel *k, const struct hcq_launch *l,
                     uint32_t shared_bytes, uint64_t cb_va, uint32_t cb_size, uint32_t arch)
{
    enum nv_qmd_version v = (enum nv_qmd_version)k->qmd_version;
    int kb = nv_smem_carveout_kb(arch, shared_bytes);
    if (kb < 0)
        return kb;
    uint32_t cfg = nv_smem_config_encode((uint32_t)kb);
    int rc = 0;
#define SET(f, val) (rc = rc ? rc : nv_qmd_set(qmd, v, NV_QMD_##f, 0, (val)))
    SET(GRID_WIDTH, l->grid[0]);
    SET(GRID_HEIGHT, l->grid[1]);
    SET(GRID_DEPTH, l->grid[2]);
    SET(CTA_THREAD_DIMENSION0, l->block[0]);
    SET(CTA_THREAD_DIMENSION1, l->block[1]);
    SET(CTA_THREAD_DIMENSION2, l->block[2]);
    SET(SHARED_MEMORY_SIZE, shared_bytes);
    SET(MIN_SM_CONFIG_SHARED_MEM_SIZE, cfg);
    SET(TARGET_SM_CONFIG_SHARED_MEM_SIZE, cfg);
#undef SET
    if (rc)
        return rc;
    return nv_qmd_set_cbuf(qmd, v, 0, cb_va, cb_size);
}

/* ------------------------------------------------------------------ */
/* Launch chains                                                        */
/* ------------------------------------------------------------------ */

/* Grids launched back to back on one channel overlap [H200]: an in-order
 * queue needs each to start after the one before ended. A dependent QMD
 * is scheduled by the compute engine itself when its parent's grid ends.
 * So the launches of one submission recorded back to back form a chain:
 * the first goes through SEND_PCAS, each later one is the dependent of
 * the one before, and a timeline release right after a launch is that
 * QMD's release. A launch's QMD is therefore written out only once what
 * follows it is known: the next launch, a method, or the submission.
 * Nothing is linked to a QMD already submitted: the GPU may have read it.
 *
 * Whatever follows a grid that is not its dependent waits for the
 * release that grid's QMD ends with (hcq_q_after_grids): a semaphore
 * acquire, which yields the channel while it is blocked. A wait for idle
 * would do the same for this channel's grids alone (the host's WFI and a
 * release's wait for idle are scoped to the channel's subcontext), but
 * the host waits in it with the method stream of the whole channel
 * group: on an H100 a 2 s kernel on one queue held a short kernel on
 * another queue of the same context, enqueued 30 ms later, until it
 * ended (1.97 s), and with acquires instead of the waits for idle the
 * short kernel was done 0.04-0.07 ms after its user event was set
 * (docs/gpu-runs.md, 2026-12-06 fifth). A grid written out by a method
 * (or ending a hold's span) without a release of the timeline releases
 * the next value of the queue's `grids` signal instead, in the same
 * slot. A wait for a grid whose release the CPU has already seen is not
 * recorded. */

static void tail_set(struct hcq_queue *q, void *cpu, uint32_t bytes)
{
    memcpy(q->tail.qmd, q->last_qmd.qmd, bytes);
    q->tail.cpu = cpu;
    q->tail.bytes = bytes;
    q->tail.released = false;
    q->tail.released1 = false;
}

void hcq_q_tail_flush(struct hcq_queue *q)
{
    hcq_wc_copy_lines(q->tail.cpu, q->tail.qmd, q->tail.bytes);
    q->tail.cpu = NULL;
}

void hcq_q_tail_close(struct hcq_queue *q)
{
    if (!q->tail.released) {
        const uint64_t v = ++q->grids_last;
        nv_qmd_hot_release(q->tail.qmd, &q->dev->qmd_hot, q->grids->va, v);
        q->grid_va = q->grids->va;
        q->grid_val = v;
    }
    hcq_q_tail_flush(q);
}

void hcq_q_tail_release(struct hcq_queue *q, uint64_t value)
{
    nv_qmd_hot_release(q->tail.qmd, &q->dev->qmd_hot, q->timeline->va, value);
    q->tail.released = true;
    q->grid_va = q->timeline->va;
    q->grid_val = value;
}

/* hcq_q_after_grids, telling which release it waits for when it records
 * an acquire (*va 0: none). */
static bool after_grids(struct hcq_queue *q, uint64_t *va, uint64_t *val)
{
    *va = 0;
    if (!q->grids_open)
        return true;
    if (q->tail.cpu)
        hcq_q_tail_close(q);
    if (!q->grid_va)
        return false;
    if (q->grid_va == q->timeline->va && hcq_signal_value(q->timeline) >= q->grid_val) {
        /* Seen ended already (host memory): nothing to wait for. */
        q->grids_open = false;
        return true;
    }
    /* Where the grid is a hold's span's, the hold notes where the
     * acquire lies: a dropped span's is rewritten (queue.c, unwind_span). */
    for (struct hcq_hold *h = q->hold_first; h; h = h->next) {
        if (h->ended && h->span_va == q->grid_va && h->span_val == q->grid_val &&
            h->acq_at == UINT64_MAX)
            h->acq_at = q->pb.head;
    }
    hcq_q_push_acquire(q, q->grid_va, q->grid_val);
    *va = q->grid_va;
    *val = q->grid_val;
    q->grids_open = false;
    return true;
}

bool hcq_q_after_grids(struct hcq_queue *q)
{
    uint64_t va, val;
    return after_grids(q, &va, &val);
}

int hcq_q_after_own_grids(struct hcq_queue *q)
{
    if (!q)
        return -EINVAL;
    if (!q->grids_open)
        return 0;
    int r = hcq_push_reserve(q, HCQ_AFTER_GRIDS_DW);
    if (r)
        return r;
    /* A release not known: the next launch or release waits for idle. */
    (void)hcq_q_after_grids(q);
    return 0;
}

/* Two queues' commands each waiting for the other's last (a chain across
 * them): the wait for the other channel orders the launch after the
 * channel's own grid already. In front of a hold a command waits for its
 * own grids first anyway (hcq_q_after_own_grids); inside one, a gated
 * chain across two queues then records one wait per command, not two
 * (docs/performance.md, "Chains across queues"). */
void hcq_q_ordered_after(struct hcq_queue *q, uint64_t value)
{
    if (q && q->grids_open && !q->tail.cpu && q->grid_va == q->timeline->va &&
        q->grid_val <= value)
        q->grids_open = false;
}

void hcq_q_idle(struct hcq_queue *q)
{
    if (!q->grids_open)
        return;
    if (q->tail.cpu)
        hcq_q_tail_close(q);
    hcq_push_1(q, NV_SUBC_HOST, NVC86F_WFI, 0);
    q->grids_open = false;
}

int hcq_q_exec(struct hcq_queue *q, const struct hcq_kernel *k, const struct hcq_launch *l)
{
    if (!q || !k || !l)
        return -EINVAL;
    struct hcq_device *dev = q->dev;
    uint32_t shared_bytes;
    int rc = 0;
    /* The same kernel in the same shape as the last launch passed the
     * checks then (only its parameter block is new), and its QMD differs
     * from the last one in bank 0 only. */
    const bool same_shape = q->last_qmd.k == k && q->last_qmd.serial == k->prog->serial &&
                            !memcmp(q->last_qmd.grid, l->grid, sizeof(l->grid)) &&
                            !memcmp(q->last_qmd.block, l->block, sizeof(l->block)) &&
                            q->last_qmd.dyn == l->dynamic_shared;
    if (same_shape && l->params_size == k->param_size && (l->params || !k->param_size))
        shared_bytes = q->last_qmd.shared;
    else if ((rc = check_launch(q, k, l, &shared_bytes)))
        return rc;
    if (k->local_per_thread && (rc = hcq_device_ensure_local(dev, q, k->local_per_thread)))
        return rc;

    uint32_t cb_size = (uint32_t)util_align_up(UTIL_MAX(k->cbuf0_size, CBUF0_MIN), 16);
    uint32_t qmd_off = (uint32_t)util_align_up(cb_size, NV_QMD_ALIGN);
    void *cpu;
    uint64_t va;
    rc = hcq_q_scratch(q, qmd_off + k->qmd_size, NV_QMD_ALIGN, &cpu, &va);
    if (rc)
        return rc;
    uint32_t *qmd = q->last_qmd.qmd;
    _Static_assert(sizeof(q->last_qmd.qmd) >= NV_QMD_MAX_BYTES, "last_qmd holds any QMD");
    _Static_assert(sizeof(q->tail.qmd) >= NV_QMD_MAX_BYTES, "tail holds any QMD");
    enum nv_qmd_version qv = (enum nv_qmd_version)k->qmd_version;
    /* Scratch is write-combined BAR1 memory on a GPU: bank 0 is built in
     * cached memory (zeroing, then the pieces) and crosses the bus once,
     * in whole lines; only a large bank is built in place. A bank equal
     * to the last one written in this submission is not written again:
     * the launch points at that one (the same submission retires both,
     * and nothing rewrites it before), which saves most of a launch's
     * stores when a kernel is launched again with the same arguments. */
    uint64_t cb_va = va;
    struct hcq_last_bank *lb = &q->last_bank;
    const bool keep = l->params_size <= HCQ_BANK_PARAMS;
    if (cb_size > HCQ_BANK_STAGE) {
        fill_cbuf0(cpu, k, l, cb_size);
    } else if (lb->seq == q->seq && lb->k == k && lb->serial == k->prog->serial && keep &&
               lb->params_size == l->params_size &&
               !memcmp(lb->grid, l->grid, sizeof(l->grid)) &&
               !memcmp(lb->block, l->block, sizeof(l->block)) &&
               !memcmp(lb->envreg, l->envreg, sizeof(l->envreg)) &&
               (!l->params_size || !memcmp(lb->params, l->params, l->params_size))) {
        cb_va = lb->va; /* built from the same inputs */
    } else {
        uint8_t stage[HCQ_BANK_STAGE] __attribute__((aligned(64)));
        const uint32_t lines = (uint32_t)util_align_up(cb_size, 64); /* <= qmd_off */
        fill_cbuf0(stage, k, l, lines);
        if (lb->lines == lines && lb->seq == q->seq && !memcmp(lb->data, stage, lines)) {
            cb_va = lb->va;
        } else {
            hcq_wc_copy_lines(cpu, stage, lines);
            memcpy(lb->data, stage, lines);
            lb->lines = lines;
            lb->va = va;
            lb->seq = q->seq;
        }
        /* The inputs of lb->data from now on (or none). */
        lb->k = keep ? k : NULL;
        if (keep) {
            lb->serial = k->prog->serial;
            memcpy(lb->grid, l->grid, sizeof(l->grid));
            memcpy(lb->block, l->block, sizeof(l->block));
            memcpy(lb->envreg, l->envreg, sizeof(l->envreg));
            lb->params_size = l->params_size;
            if (l->params_size)
                memcpy(lb->params, l->params, l->params_size);
        }
    }
    /* Built in the queue's copy of the last QMD: from the template when
     * the kernel or the launch's shape changed, else only bank 0 moves. */
    if (same_shape) {
        if (dev->qmd_hot_ok) /* the template's version: the device's */
            nv_qmd_hot_cbuf(qmd, &dev->qmd_hot, cb_va, cb_size);
        else
            rc = nv_qmd_set_cbuf(qmd, qv, 0, cb_va, cb_size);
    } else {
        q->last_qmd.k = NULL;
        memcpy(qmd, k->qmd, k->qmd_size);
        rc = patch_qmd(qmd, k, l, shared_bytes, cb_va, cb_size, dev->info.arch);
        if (rc == 0) {
            q->last_qmd.k = k;
            q->last_qmd.serial = k->prog->serial;
            memcpy(q->last_qmd.grid, l->grid, sizeof(l->grid));
            memcpy(q->last_qmd.block, l->block, sizeof(l->block));
            q->last_qmd.shared = shared_bytes;
            q->last_qmd.dyn = l->dynamic_shared;
        }
    }
    if (rc)
        return rc;
    _Static_assert(NV_QMD_ALIGN % 64 == 0, "QMDs start a line");
    /* The launch before, if its QMD is still pending (nothing came after
     * it), schedules this one when its grid ends. */
    if (q->tail.cpu) {
        nv_qmd_hot_dependent(q->tail.qmd, &dev->qmd_hot, va + qmd_off);
        hcq_q_tail_flush(q);
        /* Nothing pushed: the block is referenced by the QMD before, and
         * the work no longer ends with a release. */
        q->grids_open = true; /* as it was: the launch before */
        q->scratch_unpushed = false;
        q->rel_pb_head = UINT64_MAX;
        tail_set(q, (uint8_t *)cpu + qmd_off, k->qmd_size);
        CORE_LOG("exec %s grid %ux%ux%u block %ux%ux%u shared 0x%x qmd 0x%llx (chained)",
                 k->name, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                 l->block[2], shared_bytes, (unsigned long long)(va + qmd_off));
        return 0;
    }

    /* The shader windows were set when the queue bound its engine. The
     * invalidate is needed on every launch, not only after a program
     * load: without it the H200 hung a launch once the scratch arena had
     * wrapped (a QMD or bank written where an earlier one was). The
     * constant caches are enough [H200: launch tests, 100 000 launches
     * through a wrapping arena; 0.83 M launches/s against 0.76 with the
     * instruction and data caches too, which the QMD invalidates anyway]. */
    rc = hcq_push_reserve(q, HCQ_AFTER_GRIDS_DW + 6);
    if (rc)
        return rc;
    /* After the channel's grids: a wait for the last one's release, or
     * for idle when that release is not known (hcq_q_after_grids). */
    struct hcq_hold *span = q->hold_last, *xspan = NULL;
    if (span && !span->ended && span->x_va && span->x_pb == q->pb.head && !k->local_per_thread)
        xspan = span; /* the span so far is a wait for another command */
    if (span && (span->ended || span->span_pb != q->pb.head))
        span = NULL; /* not the first thing in an open hold's span */
    uint64_t acq_va = 0, acq_val = 0;
    const bool wait_idle = q->grids_open;
    bool wfi = false;
    if (wait_idle && !after_grids(q, &acq_va, &acq_val)) {
        hcq_push_1(q, NV_SUBC_HOST, NVC86F_WFI, 0);
        wfi = true;
    }
    hcq_push_1(q, NV_SUBC_COMPUTE, NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI,
               NV_INVALIDATE_SHADER_CACHES_CONSTANT);
    hcq_push_1(q, NV_SUBC_COMPUTE, NVCBC0_SEND_PCAS_A, (uint32_t)((va + qmd_off) >> 8));
    hcq_push_1(q, NV_SUBC_COMPUTE, NVCBC0_SEND_SIGNALING_PCAS2_B,
               NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE);
    /* The span so far is a wait for the last grid and this launch:
     * should the span before end with that grid and both be decided
     * together, its QMD may schedule this one (queue.c, span_link). Or a
     * wait for another command, perhaps the one for the last grid, and
     * this launch: the QMD of the command waited for may schedule it, on
     * whichever queue (queue.c, link_across). */
    struct hcq_hold *first = span && acq_va ? span : xspan && !wfi ? xspan : NULL;
    if (first && q->chain) {
        first->first_qmd = va + qmd_off;
        first->first_va = acq_va;
        first->first_val = acq_val;
        first->first_pb = q->pb.head;
    }
    CORE_LOG("exec %s grid %ux%ux%u block %ux%ux%u shared 0x%x qmd 0x%llx%s", k->name,
             l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
             shared_bytes, (unsigned long long)(va + qmd_off), wait_idle ? " (after the grids before)" : "");
    q->grids_open = true;
    /* Pending even when the launch is alone: the release after it folds
     * into it, and a submission's last release can stay there (queue.c,
     * submit). Written just before the doorbell, its lines still reach
     * the GPU before the doorbell does, and a store fence does not wait
     * for them. */
    if (q->chain) /* written out by what comes next */
        tail_set(q, (uint8_t *)cpu + qmd_off, k->qmd_size);
    else
        hcq_wc_copy_lines((uint8_t *)cpu + qmd_off, qmd, k->qmd_size);
    return 0;
}

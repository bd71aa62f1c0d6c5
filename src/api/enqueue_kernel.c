/*
 * enqueue_kernel.c — clEnqueueNDRangeKernel, clEnqueueTask and
 * clEnqueueNativeKernel.
 *
 * An NDRange becomes one or more hcq_q_exec launches on the queue's compute
 * channel. What the work-item functions return travels in each launch's
 * environment registers (core/hcq.h, enum hcq_envreg): the global work
 * offset and size, work_dim, the number of groups and the enqueued local
 * size of the whole NDRange, and per launch its first work-item (BASE) and
 * first group (GROUP0); kernels compute get_global_id = ctaid * ntid + tid
 * + BASE and get_group_id = GROUP0 + ctaid. That carries the two cases one
 * grid cannot express, exactly as the specification defines them:
 *  - non-uniform work-groups (global % local != 0): the uniform part and a
 *    remainder launch per dimension, whose groups have the remainder's
 *    size (get_local_size) and continue the group numbering;
 *  - grids beyond the hardware's per-dimension group limits: split into
 *    consecutive launches the same way.
 */
#include "api/obj.h"

#include <stdlib.h>
#include <string.h>

/* One piece of a dimension: `groups` groups of `local` items starting at
 * item `start` (group start / enqueued local size) of that dimension. */
struct seg {
    size_t start, groups, local;
};

/* A dimension cut into pieces of at most max_groups groups, plus the
 * remainder (a group of global % local items): how many pieces, and the
 * j-th of them. */
struct dim_cut {
    size_t global, local, max_groups, full, nfull;
};

static size_t cut_dim(struct dim_cut *c, size_t global, size_t local, size_t max_groups)
{
    c->global = global;
    c->local = local;
    c->max_groups = max_groups;
    c->full = global / local;
    c->nfull = c->full / max_groups + (c->full % max_groups != 0);
    return c->nfull + (global % local != 0);
}

static struct seg cut_piece(const struct dim_cut *c, size_t j)
{
    if (j < c->nfull) {
        size_t done = j * c->max_groups;
        return (struct seg){done * c->local, UTIL_MIN(c->full - done, c->max_groups), c->local};
    }
    return (struct seg){c->full * c->local, 1, c->global % c->local};
}

/* Launches one enqueue may take: beyond, the grid is refused (a 1-D range
 * never needs more than two; each piece is a QMD). */
enum { MAX_LAUNCHES = 1 << 16 };

/* Largest divisor of g not above cap, preferring multiples of the warp. */
static size_t pick_divisor(size_t g, size_t cap)
{
    size_t best = 1;
    for (size_t d = UTIL_MIN(cap, g); d >= 1; d--) {
        if (g % d)
            continue;
        if (d % 32 == 0)
            return d;
        if (best == 1)
            best = d;
    }
    return best;
}

/* Local size when the application gave none: uniform when a good divisor
 * exists, otherwise (if allowed) a warp multiple with a remainder group. */
static void choose_local(cl_uint dim, const size_t *global, size_t max_threads,
                         const uint32_t *max_block, bool non_uniform, size_t *local)
{
    size_t budget = UTIL_MIN(max_threads, (size_t)256);
    for (cl_uint i = 0; i < 3; i++)
        local[i] = 1;
    for (cl_uint i = 0; i < dim; i++) {
        size_t cap = UTIL_MIN(budget, (size_t)max_block[i]);
        size_t d = pick_divisor(global[i], cap);
        if (d < 32 && global[i] > cap && non_uniform && cap >= 32)
            d = cap / 32 * 32;
        local[i] = d;
        budget /= d;
        if (budget == 0)
            budget = 1;
    }
}

/* The program of k on d allows non-uniform work-groups, on a device that
 * reports the support. */
static bool non_uniform_allowed(cl_kernel k, cl_device_id d)
{
    cl_bool dev_ok = CL_FALSE;
    if (hcqcl_clGetDeviceInfo(d, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof(dev_ok),
                              &dev_ok, NULL) != CL_SUCCESS ||
        !dev_ok)
        return false;
    for (cl_uint i = 0; i < k->prog->num_devices; i++)
        if (k->prog->devs[i].dev == d)
            return hcqcl_program_dev_non_uniform(k->prog, &k->prog->devs[i]);
    return false;
}

static void put64(uint32_t *envreg, unsigned i, uint64_t v)
{
    envreg[i] = (uint32_t)v;
    envreg[i + 1] = (uint32_t)(v >> 32);
}

/* ... and when the NDRange is one launch and `single` is not NULL, that
 * launch's description goes there. */
static cl_int record_launches(struct hcq_queue *hq, const struct hcq_kernel *hk, cl_uint dim,
                              const size_t *offset, const size_t *global, const size_t *local,
                              const struct hcq_device_info *di, const void *params,
                              uint32_t params_size, uint32_t dyn_shared, uint64_t printf_va,
                              struct hcq_launch *single)
{
    struct dim_cut cut[3];
    size_t nseg[3] = {1, 1, 1};
    /* One launch description for every piece of the NDRange: what they
     * share is written once, what differs (grid, block, BASE, GROUP0) per
     * piece. Every register is written (hcq.h, enum hcq_envreg), so none
     * is zeroed first: zeroing the struct and a copy of the registers
     * took over a third of this function's time (rep stos). */
    _Static_assert(HCQ_ENVREG_WORK_DIM + 2 == HCQ_ENVREG_OFFSET &&
                       HCQ_ENVREG_OFFSET + 6 == HCQ_ENVREG_GLOBAL &&
                       HCQ_ENVREG_GLOBAL + 6 == HCQ_ENVREG_GROUP0 &&
                       HCQ_ENVREG_GROUP0 + 3 == HCQ_ENVREG_NUM_GROUPS &&
                       HCQ_ENVREG_NUM_GROUPS + 3 == HCQ_ENVREG_ENQ_LOCAL &&
                       HCQ_ENVREG_ENQ_LOCAL + 6 == HCQ_ENVREG_COUNT && HCQ_ENVREG_BASE == 0 &&
                       HCQ_ENVREG_ENQ_LOCAL + 3 == HCQ_ENVREG_PRINTF &&
                       HCQ_ENVREG_BASE + 6 == HCQ_ENVREG_WORK_DIM,
                   "the registers written below are every register");
    struct hcq_launch l;
    l.dynamic_shared = dyn_shared;
    l.params = params;
    l.params_size = params_size;
    uint32_t *er = l.envreg;
    er[HCQ_ENVREG_WORK_DIM] = dim;
    er[HCQ_ENVREG_WORK_DIM + 1] = 0;
    for (unsigned i = 3; i < 6; i++)
        er[HCQ_ENVREG_ENQ_LOCAL + i] = 0;
    put64(er, HCQ_ENVREG_PRINTF, printf_va);
    /* Dimensions from work_dim on are one item at offset 0. */
    for (cl_uint i = 0; i < 3; i++) {
        if (i >= dim) {
            cut_dim(&cut[i], 1, 1, 1);
            put64(er, HCQ_ENVREG_OFFSET + 2 * i, 0);
            put64(er, HCQ_ENVREG_GLOBAL + 2 * i, 1);
            er[HCQ_ENVREG_NUM_GROUPS + i] = 1;
            er[HCQ_ENVREG_ENQ_LOCAL + i] = 1;
            continue;
        }
        size_t groups = global[i] / local[i] + (global[i] % local[i] != 0);
        /* CL_OUT_OF_RESOURCES if there is a failure to queue the execution
         * instance of kernel on the command-queue because of insufficient
         * resources needed to execute the kernel: the device numbers
         * work-groups in 32 bits (get_group_id, get_num_groups), so no
         * more groups than that per dimension (the sizes themselves are
         * representable: size_t is 64 bits there) */
        HCQCL_CHECK(groups <= UINT32_MAX, CL_OUT_OF_RESOURCES, "dimension %u: %zu work-groups", i,
                    groups);
        nseg[i] = cut_dim(&cut[i], global[i], local[i], di->max_grid_dim[i]);
        put64(er, HCQ_ENVREG_OFFSET + 2 * i, offset[i]);
        put64(er, HCQ_ENVREG_GLOBAL + 2 * i, global[i]);
        er[HCQ_ENVREG_NUM_GROUPS + i] = (uint32_t)groups;
        er[HCQ_ENVREG_ENQ_LOCAL + i] = (uint32_t)local[i];
    }
    /* CL_OUT_OF_RESOURCES if there is a failure to queue the execution
     * instance of kernel on the command-queue because of insufficient
     * resources needed to execute the kernel: more pieces than one
     * enqueue records */
    HCQCL_CHECK(nseg[0] <= MAX_LAUNCHES && nseg[1] <= MAX_LAUNCHES / nseg[0] &&
                    nseg[2] <= MAX_LAUNCHES / (nseg[0] * nseg[1]),
                CL_OUT_OF_RESOURCES, "%zu x %zu x %zu launches", nseg[0], nseg[1], nseg[2]);
    for (size_t z = 0; z < nseg[2]; z++)
        for (size_t y = 0; y < nseg[1]; y++)
            for (size_t x = 0; x < nseg[0]; x++) {
                const struct seg s[3] = {cut_piece(&cut[0], x), cut_piece(&cut[1], y),
                                         cut_piece(&cut[2], z)};
                for (unsigned i = 0; i < 3; i++) {
                    l.grid[i] = (uint32_t)s[i].groups;
                    l.block[i] = (uint32_t)s[i].local;
                    uint64_t base = (i < dim ? (uint64_t)offset[i] : 0) + s[i].start;
                    put64(er, HCQ_ENVREG_BASE + 2 * i, base);
                    er[HCQ_ENVREG_GROUP0 + i] = (uint32_t)(s[i].start / local[i]);
                }
                if (hcq_q_exec(hq, hk, &l) < 0)
                    return CL_OUT_OF_RESOURCES;
            }
    if (single && nseg[0] * nseg[1] * nseg[2] == 1)
        *single = l;
    return CL_SUCCESS;
}

/* ---- The last launch again ------------------------------------------- */

/* A loop enqueuing one kernel with the same arguments and sizes is the
 * commonest launch there is. Each queue remembers its last launch
 * recorded without an event (q->memo), with everything validated and
 * derived from its inputs: the parameter block (buffer addresses
 * resolved), the objects the command keeps, the launch description. The
 * same inputs give the same launch while nothing they name has changed:
 * the kernel's arguments (args_gen, a number never reused, so neither is
 * a freed kernel's address with it) and the buffers' lives (no memory
 * object released since: hcqcl_mem_epoch). */
static bool sizes_equal(const size_t *a, const size_t *b, cl_uint n)
{
    for (cl_uint i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static bool memo_matches(const struct hcqcl_launch_memo *m, cl_kernel k, cl_uint work_dim,
                         const size_t *offset, const size_t *global, const size_t *local)
{
    static const size_t zero[3] = {0, 0, 0};
    return m->kernel == k && m->work_dim == work_dim &&
           m->args_gen == atomic_load_explicit(&k->args_gen, memory_order_relaxed) &&
           m->mem_epoch == hcqcl_mem_epoch() && global &&
           sizes_equal(m->global, global, work_dim) &&
           sizes_equal(m->offset, offset ? offset : zero, work_dim) &&
           m->local_given == (local != NULL) && (!local || sizes_equal(m->local, local, work_dim));
}

/* Under q->lock: the launch just recorded, from inputs validated under
 * args_gen and mem_epoch. */
static void memo_store(struct hcqcl_launch_memo *m, cl_kernel k, uint64_t args_gen,
                       uint64_t mem_epoch, cl_uint work_dim, const size_t *offset,
                       const size_t *global, const size_t *local, const struct hcq_kernel *hk,
                       struct hcqcl_obj *const *objs, uint32_t nobjs, const struct hcq_launch *l)
{
    m->kernel = k;
    m->args_gen = args_gen;
    m->mem_epoch = mem_epoch;
    m->work_dim = work_dim;
    m->local_given = local != NULL;
    for (cl_uint i = 0; i < work_dim; i++) {
        m->offset[i] = offset[i];
        m->global[i] = global[i];
        m->local[i] = local ? local[i] : 0;
    }
    m->hk = hk;
    m->nobjs = nobjs;
    memcpy(m->objs, objs, nobjs * sizeof(objs[0]));
    memcpy(m->block, l->params, l->params_size);
    m->l = *l;
    m->l.params = m->block;
    m->key = 0; /* hcqcl_ktimes_key, when first asked for */
}

/* The memo's launch when it matches, recorded and ended: true with *err
 * its result. False, the lock released, when the full path must run. */
static bool memo_launch(cl_command_queue q, cl_kernel kernel, cl_uint work_dim,
                        const size_t *offset, const size_t *global, const size_t *local,
                        cl_int *err)
{
    struct hcqcl_launch_memo *m = &q->memo;
    struct hcqcl_lite_cmd lc;
    util_lock(&q->lock);
    if (!memo_matches(m, kernel, work_dim, offset, global, local)) {
        util_unlock(&q->lock);
        return false;
    }
    /* Never lets the lock go while it succeeds: the memo stays as read. */
    if (!hcqcl_lite_begin_locked(q, HCQ_ENGINE_COMPUTE, m->objs, m->nobjs, &lc))
        return false;
    if (!lc.waits && hcqcl_ktimes_idle(lc.hq)) {
        if (!m->key)
            m->key = hcqcl_ktimes_key(m->hk, m->work_dim, m->offset, m->global,
                                      m->local_given ? m->local : NULL, m->block,
                                      m->l.params_size, m->l.dynamic_shared);
        lc.key = m->key;
    }
    *err = hcq_q_exec(lc.hq, m->hk, &m->l) < 0 ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
    cl_int end = hcqcl_lite_end(&lc, *err == CL_SUCCESS);
    if (*err == CL_SUCCESS)
        *err = end;
    return true;
}

/* The handles of clEnqueueNDRangeKernel and
 * clGetKernelSuggestedLocalWorkSizeKHR, which share their errors. */
static inline cl_int queue_and_kernel(cl_command_queue q, cl_kernel kernel)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "not a kernel");
    /* CL_INVALID_CONTEXT if context associated with command_queue and
     * kernel are not the same */
    HCQCL_CHECK(kernel->prog->ctx == hcqcl_queue_context(q), CL_INVALID_CONTEXT,
                "kernel of another context");
    return CL_SUCCESS;
}

/* The largest work-group the kernel can have on dev. */
static size_t kernel_max_threads(const struct hcq_kernel_info *ki, const struct hcq_device_info *di)
{
    size_t max_threads = UTIL_MIN((size_t)ki->max_threads, (size_t)di->max_threads_per_block);
    return max_threads ? max_threads : di->max_threads_per_block;
}

/* The local size of a launch given no local_work_size: the one the kernel
 * requires, else choose_local's. Shared by clEnqueueNDRangeKernel and
 * clGetKernelSuggestedLocalWorkSizeKHR, which must agree; the errors are
 * the enqueue's. empty: a global size is 0 (nothing will run). */
static cl_int implied_local(cl_kernel kernel, cl_device_id dev, size_t max_threads,
                            cl_uint work_dim, const size_t *global, bool empty, size_t local[3])
{
    const size_t *reqd = kernel->desc->reqd_wgs;
    if (!(reqd[0] || reqd[1] || reqd[2])) {
        if (!empty)
            choose_local(work_dim, global, max_threads, dev->info->max_block_dim,
                         non_uniform_allowed(kernel, dev), local);
        return CL_SUCCESS;
    }
    /* A NULL local_work_size leaves the work-group size to the
     * implementation: the one the kernel requires. */
    bool non_uniform = false;
    for (cl_uint i = 0; i < 3; i++) {
        local[i] = reqd[i] ? reqd[i] : 1;
        if (i < work_dim && global[i] % local[i])
            non_uniform = true;
        /* CL_INVALID_WORK_GROUP_SIZE if ... the global_work_size is not
         * evenly divisible by the local_work_size: a dimension from
         * work_dim on has one work-item, which a required size above 1
         * there can never be (as with a local size given) */
        HCQCL_CHECK(i < work_dim || local[i] == 1, CL_INVALID_WORK_GROUP_SIZE,
                    "reqd_work_group_size[%u] = %zu beyond work_dim %u", i, local[i], work_dim);
    }
    /* CL_INVALID_WORK_GROUP_SIZE if the number of work-items specified by
     * global_work_size is not evenly divisible by the size of the
     * work-group and non-uniform work-groups are not supported */
    if (non_uniform && !empty)
        HCQCL_CHECK(non_uniform_allowed(kernel, dev), CL_INVALID_WORK_GROUP_SIZE,
                    "global size not a multiple of reqd_work_group_size");
    return CL_SUCCESS;
}

cl_int hcqcl_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel kernel, cl_uint work_dim,
                                    const size_t *global_work_offset,
                                    const size_t *global_work_size,
                                    const size_t *local_work_size, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event)
{
    cl_int err = queue_and_kernel(q, kernel);
    if (err != CL_SUCCESS)
        return err;
    cl_device_id dev = hcqcl_queue_device(q);
    /* The same launch as the queue's last one without an event: validated
     * then. */
    cl_int memo_err;
    if (!event && !num_events && !wait_list && !(q->props & HCQCL_LITE_EXCLUDED) &&
        memo_launch(q, kernel, work_dim, global_work_offset, global_work_size, local_work_size,
                    &memo_err))
        return memo_err;
    /* Read before the arguments are: a change after this is seen next time. */
    const uint64_t args_gen = atomic_load_explicit(&kernel->args_gen, memory_order_relaxed);
    const uint64_t mem_epoch = hcqcl_mem_epoch();
    const struct hcq_kernel *hk = hcqcl_kernel_hcq(kernel, dev);
    /* CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
     * program executable available for device associated with
     * command_queue */
    HCQCL_CHECK(hk, CL_INVALID_PROGRAM_EXECUTABLE, "kernel '%s' not built for the device",
                kernel->desc->name);
    const struct hcq_kernel_info *ki = hcqcl_kernel_info(kernel, dev);
    const struct hcq_device_info *di = dev->info;
    /* CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a
     * value between 1 and CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS) */
    HCQCL_CHECK(work_dim >= 1 && work_dim <= 3, CL_INVALID_WORK_DIMENSION, "work_dim %u",
                work_dim);
    /* "If global_work_size is NULL, or the value in any passed dimension
     * is 0 then the kernel command will trivially succeed after its event
     * dependencies are satisfied" (OpenCL 2.1 on; the error it replaced is
     * deprecated). */
    static const size_t no_work[3] = {0, 0, 0};
    if (!global_work_size)
        global_work_size = no_work;
    bool empty = false;
    for (cl_uint i = 0; i < work_dim; i++) {
        /* A zero global size is valid since OpenCL 2.1: nothing runs. */
        if (global_work_size[i] == 0)
            empty = true;
        /* CL_INVALID_GLOBAL_OFFSET if the value specified in
         * global_work_size + the corresponding values in global_work_offset
         * for any dimensions is greater than the maximum value
         * representable by size_t on the device */
        HCQCL_CHECK(!global_work_offset ||
                        global_work_offset[i] <= SIZE_MAX - global_work_size[i],
                    CL_INVALID_GLOBAL_OFFSET, "dimension %u overflows", i);
    }

    const size_t max_threads = kernel_max_threads(ki, di);
    const size_t *reqd = kernel->desc->reqd_wgs;
    bool has_reqd = reqd[0] || reqd[1] || reqd[2];
    size_t local[3] = {1, 1, 1};
    bool non_uniform = false;
    if (local_work_size) {
        size_t total = 1;
        for (cl_uint i = 0; i < work_dim; i++) {
            /* CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified
             * and a value is 0 */
            HCQCL_CHECK(local_work_size[i] > 0, CL_INVALID_WORK_GROUP_SIZE,
                        "local_work_size[%u] is 0", i);
            /* CL_INVALID_WORK_ITEM_SIZE if the number of work-items
             * specified in any of local_work_size[0], ...
             * local_work_size[work_dim - 1] is greater than the
             * corresponding values specified by
             * CL_DEVICE_MAX_WORK_ITEM_SIZES */
            HCQCL_CHECK(local_work_size[i] <= di->max_block_dim[i], CL_INVALID_WORK_ITEM_SIZE,
                        "local_work_size[%u] = %zu", i, local_work_size[i]);
            local[i] = local_work_size[i];
            total *= local[i];
            if (global_work_size[i] % local[i])
                non_uniform = true;
        }
        /* CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and
         * the total number of work-items in the work-group is greater than
         * the value specified by CL_KERNEL_WORK_GROUP_SIZE */
        HCQCL_CHECK(total <= max_threads, CL_INVALID_WORK_GROUP_SIZE,
                    "%zu work-items per group, kernel allows %zu", total, max_threads);
        /* CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and
         * does not match the required work-group size for kernel in the
         * program source */
        for (cl_uint i = 0; i < 3 && has_reqd; i++)
            HCQCL_CHECK(local[i] == (reqd[i] ? reqd[i] : 1), CL_INVALID_WORK_GROUP_SIZE,
                        "local size differs from reqd_work_group_size in dimension %u", i);
        /* CL_INVALID_WORK_GROUP_SIZE if the number of work-items specified
         * by global_work_size is not evenly divisible by the size of the
         * work-group given by local_work_size and non-uniform work-groups
         * are not supported (device, OpenCL C version or
         * -cl-uniform-work-group-size) */
        if (non_uniform && !empty)
            HCQCL_CHECK(non_uniform_allowed(kernel, dev), CL_INVALID_WORK_GROUP_SIZE,
                        "global size not a multiple of the local size");
    } else if (has_reqd || !empty) {
        cl_int e =
            implied_local(kernel, dev, max_threads, work_dim, global_work_size, empty, local);
        if (e != CL_SUCCESS)
            return e;
    }

    /* The parameter block; the kernel object is not locked (the spec
     * leaves clSetKernelArg on a kernel being enqueued to the app). */
    uint8_t stack_block[4096];
    uint32_t psize = kernel->desc->param_size;
    void *block = psize <= sizeof(stack_block) ? stack_block : malloc(psize);
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK(block, CL_OUT_OF_HOST_MEMORY, "parameter block of %u bytes", psize);
    uint32_t dyn = 0;
    /* CL_INVALID_KERNEL_ARGS if the kernel argument values have not been
     * specified (and CL_INVALID_MEM_OBJECT for a released buffer) */
    err = hcqcl_kernel_params(kernel, dev, block, &dyn);
    if (err != CL_SUCCESS)
        goto out;
    /* CL_OUT_OF_RESOURCES if the kernel's local memory (static plus
     * __local arguments) exceeds what a work-group can have */
    if ((uint64_t)ki->static_shared + dyn > di->shared_per_block_max) {
        util_log_check(__func__, "local memory fits", "CL_OUT_OF_RESOURCES",
                       "%u + %u bytes of local memory", ki->static_shared, dyn);
        err = CL_OUT_OF_RESOURCES;
        goto out;
    }

    size_t zero[3] = {0, 0, 0};
    if (!global_work_offset)
        global_work_offset = zero;
    /* Nobody can wait for this command by itself: no event. */
    struct hcqcl_lite_cmd lc;
    struct hcqcl_obj *objs[HCQCL_LITE_OBJS];
    size_t nobj = 0;
    /* (A wait list given with no events is refused on the way with one.) */
    if (!event && !num_events && !wait_list) {
        cl_mem m[HCQCL_LITE_OBJS - 1];
        nobj = 1 + hcqcl_kernel_mem_args(kernel, m, UTIL_ARRAY_SIZE(m));
        objs[0] = &kernel->obj;
        for (size_t i = 1; i < nobj && i < HCQCL_LITE_OBJS; i++)
            objs[i] = &m[i - 1]->obj;
    }
    /* A kernel that calls printf needs its completion seen (the output). */
    if (nobj && nobj <= HCQCL_LITE_OBJS && !kernel->desc->printf &&
        hcqcl_lite_begin(q, HCQ_ENGINE_COMPUTE, objs, (uint32_t)nobj, &lc)) {
        struct hcq_launch one = {.params = NULL};
        if (!empty && !lc.waits && hcqcl_ktimes_idle(lc.hq))
            lc.key = hcqcl_ktimes_key(hk, work_dim, global_work_offset, global_work_size,
                                      local_work_size, block, psize, dyn);
        err = empty ? CL_SUCCESS
                    : record_launches(lc.hq, hk, work_dim, global_work_offset, global_work_size,
                                      local, di, block, psize, dyn, 0, &one);
        /* One launch, recorded: the next one like it needs none of the above. */
        if (err == CL_SUCCESS && one.params == block && psize <= HCQCL_MEMO_PARAMS)
            memo_store(&q->memo, kernel, args_gen, mem_epoch, work_dim, global_work_offset,
                       global_work_size, local_work_size, hk, objs, (uint32_t)nobj, &one);
        cl_int end = hcqcl_lite_end(&lc, err == CL_SUCCESS);
        if (err == CL_SUCCESS)
            err = end;
        goto out;
    }

    /* A kernel that calls printf: a buffer for it, printed at completion,
     * taken before the queue is locked (it may wait for one). */
    struct hcqcl_printf_buf *pbuf = NULL;
    if (kernel->desc->printf && !empty) {
        pbuf = hcqcl_printf_take(q);
        /* CL_OUT_OF_RESOURCES if there is a failure to allocate resources
         * required by the OpenCL implementation on the device */
        if (!pbuf) {
            err = CL_OUT_OF_RESOURCES;
            util_log_check(__func__, "printf buffer", hcqcl_error_name(err), "none came");
            goto out;
        }
    }
    struct hcqcl_cmd cmd;
    err = hcqcl_cmd_begin(q, CL_COMMAND_NDRANGE_KERNEL, HCQ_ENGINE_COMPUTE, num_events, wait_list,
                          &cmd);
    if (err != CL_SUCCESS) {
        hcqcl_printf_put(pbuf);
        goto out;
    }
    hcqcl_cmd_retain_kernel(&cmd, kernel);
    cl_mem mems[16];
    size_t nmem = hcqcl_kernel_mem_args(kernel, mems, UTIL_ARRAY_SIZE(mems));
    if (nmem > UTIL_ARRAY_SIZE(mems)) {
        cl_mem *all = malloc(nmem * sizeof(*all));
        if (!all) {
            hcqcl_cmd_abort(&cmd);
            hcqcl_printf_put(pbuf);
            err = CL_OUT_OF_HOST_MEMORY;
            goto out;
        }
        hcqcl_kernel_mem_args(kernel, all, nmem);
        for (size_t i = 0; i < nmem; i++)
            hcqcl_cmd_retain_mem(&cmd, all[i]);
        free(all);
    } else {
        for (size_t i = 0; i < nmem; i++)
            hcqcl_cmd_retain_mem(&cmd, mems[i]);
    }
    if (hcqcl_cmd_terminated(&cmd)) {
        hcqcl_printf_put(pbuf);
    } else if (!empty) {
        uint64_t printf_va = 0;
        if (pbuf)
            err = hcqcl_printf_attach(&cmd, pbuf, &printf_va);
        if (err == CL_SUCCESS && hcqcl_ktimes_idle(hcqcl_cmd_hq(&cmd)))
            cmd.expect_key = hcqcl_ktimes_key(hk, work_dim, global_work_offset,
                                              global_work_size, local_work_size, block, psize,
                                              dyn);
        if (err == CL_SUCCESS)
            err = record_launches(hcqcl_cmd_hq(&cmd), hk, work_dim, global_work_offset,
                                  global_work_size, local, di, block, psize, dyn, printf_va,
                                  NULL);
        if (err != CL_SUCCESS) {
            hcqcl_cmd_abort(&cmd);
            goto out;
        }
    }
    err = hcqcl_cmd_end(&cmd, false, event);
out:
    if (block != stack_block)
        free(block);
    return err;
}

cl_int hcqcl_clEnqueueTask(cl_command_queue q, cl_kernel kernel, cl_uint num_events,
                           const cl_event *wait_list, cl_event *event)
{
    /* Equivalent to clEnqueueNDRangeKernel with work_dim = 1,
     * global_work_offset = NULL, global_work_size[0] = 1 and
     * local_work_size[0] = 1 (and its errors). */
    const size_t one = 1;
    return hcqcl_clEnqueueNDRangeKernel(q, kernel, 1, NULL, &one, &one, num_events, wait_list,
                                        event);
}

HCQCL_NOT_OFFERED(clEnqueueNativeKernel);
cl_int hcqcl_clEnqueueNativeKernel(cl_command_queue q, void(CL_CALLBACK *user_func)(void *),
                                   void *args, size_t cb_args, cl_uint num_mem_objects,
                                   const cl_mem *mem_list, const void **args_mem_loc,
                                   cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    /* CL_INVALID_OPERATION if the device associated with command_queue
     * cannot execute the native kernel (CL_EXEC_NATIVE_KERNEL is not
     * reported in CL_DEVICE_EXECUTION_CAPABILITIES) */
    HCQCL_FAIL(CL_INVALID_OPERATION, "no native kernels on a GPU");
}

/* cl_khr_suggested_local_work_size: "the local work size that would be
 * chosen if the specified kernel object, with the same kernel arguments,
 * were enqueued into the specified command-queue with the specified global
 * work size, specified global work offset, and with a NULL local work
 * size" (implied_local, as clEnqueueNDRangeKernel). */
cl_int CL_API_CALL hcqcl_clGetKernelSuggestedLocalWorkSizeKHR(
    cl_command_queue q, cl_kernel kernel, cl_uint work_dim, const size_t *global_work_offset,
    const size_t *global_work_size, size_t *suggested_local_work_size)
{
    cl_int err = queue_and_kernel(q, kernel);
    if (err != CL_SUCCESS)
        return err;
    cl_device_id dev = hcqcl_queue_device(q);
    /* CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
     * program executable available for the device associated with
     * command_queue */
    HCQCL_CHECK(hcqcl_kernel_hcq(kernel, dev), CL_INVALID_PROGRAM_EXECUTABLE,
                "kernel '%s' not built for the device", kernel->desc->name);
    /* CL_INVALID_KERNEL_ARGS if any kernel arguments for kernel have not
     * been set (checked the way an enqueue checks them) */
    uint8_t stack_block[4096];
    const uint32_t psize = kernel->desc->param_size;
    void *block = psize <= sizeof(stack_block) ? stack_block : malloc(psize);
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources
     * required by the OpenCL implementation on the host */
    HCQCL_CHECK(block, CL_OUT_OF_HOST_MEMORY, "parameter block of %u bytes", psize);
    uint32_t dyn = 0;
    err = hcqcl_kernel_params(kernel, dev, block, &dyn);
    if (block != stack_block)
        free(block);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_WORK_DIMENSION if work_dim is not valid for the device
     * associated with command_queue */
    HCQCL_CHECK(work_dim >= 1 && work_dim <= 3, CL_INVALID_WORK_DIMENSION, "work_dim %u",
                work_dim);
    /* CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL */
    HCQCL_CHECK(global_work_size, CL_INVALID_GLOBAL_WORK_SIZE, "NULL global_work_size");
    for (cl_uint i = 0; i < work_dim; i++) {
        /* CL_INVALID_GLOBAL_WORK_SIZE if any of the values specified in
         * global_work_size[0], ... global_work_size[work_dim - 1] are
         * zero (the size_t of the device is the host's: 64 bits) */
        HCQCL_CHECK(global_work_size[i] > 0, CL_INVALID_GLOBAL_WORK_SIZE,
                    "global_work_size[%u] is 0", i);
        /* CL_INVALID_GLOBAL_OFFSET if the value specified in
         * global_work_size plus the corresponding value in
         * global_work_offset for any dimensions is greater than the
         * maximum value representable by size_t on the device */
        HCQCL_CHECK(!global_work_offset || global_work_offset[i] <= SIZE_MAX - global_work_size[i],
                    CL_INVALID_GLOBAL_OFFSET, "dimension %u overflows", i);
    }
    /* CL_INVALID_VALUE if suggested_local_work_size is NULL */
    HCQCL_CHECK(suggested_local_work_size, CL_INVALID_VALUE, "NULL suggested_local_work_size");
    size_t local[3] = {1, 1, 1};
    const size_t max_threads = kernel_max_threads(hcqcl_kernel_info(kernel, dev), dev->info);
    err = implied_local(kernel, dev, max_threads, work_dim, global_work_size, false, local);
    if (err != CL_SUCCESS)
        return err;
    for (cl_uint i = 0; i < work_dim; i++)
        suggested_local_work_size[i] = local[i];
    return CL_SUCCESS;
}

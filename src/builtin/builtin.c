/*
 * builtin.c — loading the built-in kernels onto a device and launching
 * them (builtin.h, hcq.h "Built-in kernels").
 *
 * The embedded cubin is loaded once per device, on first use, under one
 * lock; after that the loaded kernels are found with one acquire load and
 * launches take no lock. The program stays loaded for the life of the
 * process and holds a device reference (hcq_device_open) for that long,
 * like the staging pool of src/api: its code must outlive every context
 * on the device, and reloading it per context would cost an upload per
 * clCreateContext. A failed load is remembered: later calls answer the
 * same error at once and src/api keeps using the copy engines.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "builtin/builtin.h"
#include "core/priv.h"
#include "cubin/cubin.h"
#include "emu/emu_kernel.h"
#include "nv/nv.h"

/* The emulated device's host kernels decode the envregs with
 * emu_kernel.h's helpers: the same layout as the launcher's. */
_Static_assert(EMU_CBUF0_ENVREG == NV_CBUF0_ENVREG && EMU_ENVREG_BASE == HCQ_ENVREG_BASE &&
                   EMU_ENVREG_WORK_DIM == HCQ_ENVREG_WORK_DIM &&
                   EMU_ENVREG_OFFSET == HCQ_ENVREG_OFFSET &&
                   EMU_ENVREG_GLOBAL == HCQ_ENVREG_GLOBAL &&
                   EMU_ENVREG_GROUP0 == HCQ_ENVREG_GROUP0 &&
                   EMU_ENVREG_NUM_GROUPS == HCQ_ENVREG_NUM_GROUPS &&
                   EMU_ENVREG_ENQ_LOCAL == HCQ_ENVREG_ENQ_LOCAL,
               "emu_kernel.h's envreg layout is enum hcq_envreg");

static const struct {
    const char *name;
    unsigned unroll;
} copy_variants[HCQ_BUILTIN_COPY_VARIANTS] = {
    [HCQ_BUILTIN_COPY_U4] = {"hcq_copy_d2d", 4},
    [HCQ_BUILTIN_COPY_U2] = {"hcq_copy_d2d_u2", 2},
    [HCQ_BUILTIN_COPY_U8] = {"hcq_copy_d2d_u8", 8},
    [HCQ_BUILTIN_COPY_BULK] = {"hcq_copy_d2d_bulk", 4},
    [HCQ_BUILTIN_COPY_U1] = {"hcq_copy_d2d_u1", 1},
    [HCQ_BUILTIN_COPY_U1P] = {"hcq_copy_d2d_u1p", 1},
    [HCQ_BUILTIN_COPY_U2P] = {"hcq_copy_d2d_u2p", 2},
    [HCQ_BUILTIN_COPY_A16U1] = {"hcq_copy_d2d_a16u1", 1},
    [HCQ_BUILTIN_COPY_A16U2] = {"hcq_copy_d2d_a16u2", 2},
};

/* Parameter block of every copy kernel: dst, src, size. */
#define COPY_PARAMS_SIZE 24u
/* hcq_fill: dst, size, the 128-byte pattern (16-byte aligned). */
#define FILL_PARAMS_SIZE 144u
#define FILL_PERIOD 128u

struct builtin_dev {
    struct hcq_program *prog;
    const struct hcq_kernel *copy[HCQ_BUILTIN_COPY_VARIANTS];
    const struct hcq_kernel *fill;
};

/* Set once, under builtin_lock, when the device's program is loaded. */
static struct builtin_dev *_Atomic builtin_loaded[HCQ_MAX_DEVICES];

const char *hcq_builtin_copy_name(enum hcq_builtin_copy_variant v)
{
    return (unsigned)v < HCQ_BUILTIN_COPY_VARIANTS ? copy_variants[v].name : NULL;
}

unsigned hcq_builtin_copy_unroll(enum hcq_builtin_copy_variant v)
{
    return (unsigned)v < HCQ_BUILTIN_COPY_VARIANTS ? copy_variants[v].unroll : 0;
}

uint32_t hcq_builtin_copy_blocks(const struct hcq_device_info *di, uint64_t dst, uint64_t src,
                                 uint64_t size, unsigned unroll, uint32_t threads)
{
    if (!threads || !unroll)
        return 1;
    const uint64_t x = (dst ^ src) | 16, w = x & (0 - x);
    const uint64_t head = UTIL_MIN((0 - dst) & (w - 1), size);
    const uint64_t n = (size - head) / w;
    const uint64_t row = (uint64_t)threads * unroll;
    const uint64_t rows = n / row + (n % row != 0);
    /* One block per row: the GPU deals blocks out as SMs free up, so the
     * last wave is as short as a block (a grid capped at what the device
     * holds at once loops over rows and ends on a partly idle wave). Only
     * beyond the grid limit do rows loop. */
    uint64_t cap = di->max_grid_dim[0] ? di->max_grid_dim[0] : UINT32_MAX;
    return (uint32_t)UTIL_MAX(UTIL_MIN(rows, cap), 1ull);
}

#if HCQCL_BUILTIN_KERNELS

static pthread_mutex_t builtin_lock = PTHREAD_MUTEX_INITIALIZER;
/* Under builtin_lock: 0 not tried yet, < 0 the load's error. */
static int builtin_failed[HCQ_MAX_DEVICES];

static pthread_once_t emu_once = PTHREAD_ONCE_INIT;
static int emu_registered;

static void emu_register_once(void)
{
    emu_registered = emu_register_kernels(hcq_builtin_emu_register);
}

/* Parse and load the embedded cubin onto dev; builtin_lock held. */
static int builtin_load(struct hcq_device *dev, struct builtin_dev **out)
{
    if (dev->info.emulated) {
        /* The emulated GPU runs kernels it can match to a host version. */
        pthread_once(&emu_once, emu_register_once);
        if (emu_registered < 0)
            return emu_registered;
    }
    char log[256];
    struct cubin *cb = NULL;
    int rc = cubin_parse(hcq_builtin_cubin, hcq_builtin_cubin_size, &cb, log, sizeof(log));
    if (rc) {
        CORE_ERR("core: built-in kernels: embedded cubin rejected: %s", log);
        return -EINVAL;
    }
    struct builtin_dev *bd = calloc(1, sizeof(*bd));
    if (!bd) {
        cubin_free(cb);
        return -ENOMEM;
    }
    rc = hcq_device_open(dev);
    if (rc) {
        free(bd);
        cubin_free(cb);
        return rc;
    }
    rc = hcq_program_load(dev, cb, &bd->prog);
    cubin_free(cb);
    for (unsigned v = 0; rc == 0 && v < HCQ_BUILTIN_COPY_VARIANTS; v++) {
        const struct hcq_kernel *k = hcq_program_kernel(bd->prog, copy_variants[v].name);
        struct hcq_kernel_info ki = {0};
        if (k)
            hcq_kernel_get_info(k, &ki);
        if (!k || ki.param_size != COPY_PARAMS_SIZE || ki.local_per_thread) {
            CORE_ERR("core: built-in kernels: %s missing or not as built", copy_variants[v].name);
            rc = -EINVAL;
        }
        bd->copy[v] = k;
    }
    if (rc == 0) {
        struct hcq_kernel_info ki = {0};
        bd->fill = hcq_program_kernel(bd->prog, "hcq_fill");
        if (bd->fill)
            hcq_kernel_get_info(bd->fill, &ki);
        if (!bd->fill || ki.param_size != FILL_PARAMS_SIZE || ki.local_per_thread) {
            CORE_ERR("core: built-in kernels: hcq_fill missing or not as built");
            rc = -EINVAL;
        }
    }
    if (rc) {
        hcq_program_unload(bd->prog);
        hcq_device_close(dev);
        free(bd);
        return rc;
    }
    *out = bd;
    return 0;
}

int hcq_builtin_prepare(struct hcq_device *dev)
{
    if (!dev || dev->index >= HCQ_MAX_DEVICES)
        return -EINVAL;
    unsigned i = dev->index;
    if (atomic_load_explicit(&builtin_loaded[i], memory_order_acquire))
        return 0;
    pthread_mutex_lock(&builtin_lock);
    int rc = builtin_failed[i];
    if (rc == 0 && !atomic_load_explicit(&builtin_loaded[i], memory_order_relaxed)) {
        struct builtin_dev *bd = NULL;
        rc = builtin_load(dev, &bd);
        if (rc) {
            builtin_failed[i] = rc;
            CORE_ERR("core: device %u: built-in kernels not loaded (%d): copies stay on the copy "
                     "engines", i, rc);
        } else {
            atomic_store_explicit(&builtin_loaded[i], bd, memory_order_release);
            CORE_LOG("core: device %u: built-in kernels loaded", i);
        }
    }
    pthread_mutex_unlock(&builtin_lock);
    return rc;
}

#else /* no nvcc at build time */

int hcq_builtin_prepare(struct hcq_device *dev)
{
    (void)dev;
    return -ENOTSUP;
}

#endif

/* The kernels of q's device, loaded if they were not: NULL with *rc set
 * (the load's error) or, for an empty range, with *rc = 0 (nothing to
 * record). */
static const struct builtin_dev *builtin_for(struct hcq_queue *q, uint64_t size, int *rc)
{
    *rc = hcq_builtin_prepare(q->dev);
    if (*rc || !size)
        return NULL;
    return atomic_load_explicit(&builtin_loaded[q->dev->index], memory_order_acquire);
}

int hcq_builtin_copy_ex(struct hcq_queue *q, uint64_t dst, uint64_t src, uint64_t size,
                        enum hcq_builtin_copy_variant v, uint32_t blocks, uint32_t threads)
{
    if (!q || q->engine != HCQ_ENGINE_COMPUTE || (unsigned)v >= HCQ_BUILTIN_COPY_VARIANTS)
        return -EINVAL;
    if (threads < 32 || threads > 512 || threads % 32)
        return -EINVAL;
    int rc;
    const struct builtin_dev *bd = builtin_for(q, size, &rc);
    if (!bd)
        return rc;
    const struct hcq_device_info *di = &q->dev->info;
    const uint64_t x = (dst ^ src) | 16;
    const bool bulk = v == HCQ_BUILTIN_COPY_BULK && (x & (0 - x)) == 16;
    if (!blocks && bulk) {
        uint64_t body = size - UTIL_MIN((0 - dst) & 15, size);
        uint64_t chunks = (body + HCQ_BUILTIN_BULK_CHUNK - 1) / HCQ_BUILTIN_BULK_CHUNK;
        uint64_t cap = (uint64_t)UTIL_MAX(di->sm_count, 1u) * HCQ_BUILTIN_BULK_BLOCKS_PER_SM;
        blocks = (uint32_t)UTIL_MAX(UTIL_MIN(chunks, cap), 1ull);
    } else if (v == HCQ_BUILTIN_COPY_A16U1 || v == HCQ_BUILTIN_COPY_A16U2) {
        /* Its grid must cover every row, one block each, and nothing may
         * be left to a head or tail. */
        const uint32_t rows =
            hcq_builtin_copy_blocks(di, dst, src, size, copy_variants[v].unroll, threads);
        const uint64_t row = (uint64_t)threads * copy_variants[v].unroll * 16;
        if (((dst | src | size) & 15) || (blocks && blocks != rows) ||
            (uint64_t)rows * row < size)
            v = v == HCQ_BUILTIN_COPY_A16U1 ? HCQ_BUILTIN_COPY_U1P : HCQ_BUILTIN_COPY_U2P;
        if (!blocks)
            blocks = rows;
    } else if (!blocks) {
        blocks = hcq_builtin_copy_blocks(di, dst, src, size, copy_variants[v].unroll, threads);
    }
    const uint64_t params[3] = {dst, src, size};
    _Static_assert(sizeof(params) == COPY_PARAMS_SIZE, "copy kernel parameters");
    const struct hcq_launch l = {
        .grid = {blocks, 1, 1},
        .block = {threads, 1, 1},
        .dynamic_shared = bulk ? HCQ_BUILTIN_BULK_CHUNK * HCQ_BUILTIN_BULK_STAGES : 0,
        .params = params,
        .params_size = sizeof(params),
    };
    return hcq_q_exec(q, bd->copy[v], &l);
}

int hcq_builtin_copy(struct hcq_queue *compute_q, uint64_t dst, uint64_t src, uint64_t size)
{
    return hcq_builtin_copy_ex(compute_q, dst, src, size, HCQ_BUILTIN_COPY_DEFAULT, 0,
                               HCQ_BUILTIN_COPY_THREADS);
}

int hcq_builtin_fill(struct hcq_queue *q, uint64_t dst, uint64_t size, const void *pattern,
                     unsigned pattern_size)
{
    if (!q || q->engine != HCQ_ENGINE_COMPUTE || !pattern || !util_is_pow2(pattern_size) ||
        pattern_size > FILL_PERIOD)
        return -EINVAL;
    int rc;
    const struct builtin_dev *bd = builtin_for(q, size, &rc);
    if (!bd)
        return rc;
    /* The pattern repeated to 128 bytes, rotated so that the kernel's
     * 16-byte units (from the first 16-byte aligned byte) start at word 0. */
    const uint64_t head = UTIL_MIN((0 - dst) & 15, size);
    const uint8_t *p = pattern;
    uint64_t params[FILL_PARAMS_SIZE / 8] = {dst, size};
    uint8_t *period = (uint8_t *)&params[2];
    for (unsigned m = 0; m < FILL_PERIOD; m++)
        period[m] = p[(m + head) % pattern_size];
    const uint32_t threads = HCQ_BUILTIN_FILL_THREADS;
    /* Sized like a copy of 16-byte units: same rows. */
    const struct hcq_launch l = {
        .grid = {hcq_builtin_copy_blocks(&q->dev->info, dst, dst, size, 4, threads), 1, 1},
        .block = {threads, 1, 1},
        .params = params,
        .params_size = sizeof(params),
    };
    return hcq_q_exec(q, bd->fill, &l);
}

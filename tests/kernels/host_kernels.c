/*
 * host_kernels.c — CPU implementations of test_kernels.cu for the emulated
 * device, and the registration entry point the emulated device calls when
 * it loads this library (HCQCL_EMU_KERNELS).
 *
 * Each function runs one thread block, in the order the CUDA code's
 * barriers impose, and reads everything the GPU code reads from where the
 * GPU code reads it: parameters from the launched constant bank 0, shared
 * data from the block's shared window, __constant__ data and __device__
 * globals through the constant banks the QMD bound. A GPU address that is
 * not mapped ends the block (the model has recorded the fault).
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "emu/emu_kernel.h"

extern const unsigned char test_kernels_cubin[];
extern const size_t test_kernels_cubin_size;
extern const unsigned char gpu_kernels_cubin[];
extern const size_t gpu_kernels_cubin_size;

static void *gpu(const struct emu_block *b, uint64_t va, uint64_t len)
{
    return b->ptr(b, va, len);
}

static uint32_t threads_x(const struct emu_block *b) { return b->block[0]; }

/* vadd(const float *a, const float *b, float *c, int k, int n) */
static void host_vadd(const struct emu_block *b)
{
    uint64_t a = emu_param_u64(b, 0), bb = emu_param_u64(b, 8), c = emu_param_u64(b, 16);
    int32_t k = (int32_t)emu_param_u32(b, 24), n = (int32_t)emu_param_u32(b, 28);
    int64_t first = (int64_t)b->block_id[0] * threads_x(b);
    int64_t last = first + threads_x(b); /* exclusive */
    if (last > n)
        last = n;
    if (first >= last)
        return;
    uint64_t bytes = (uint64_t)(last - first) * 4;
    float *pa = gpu(b, a + (uint64_t)first * 4, bytes);
    float *pb = pa ? gpu(b, bb + (uint64_t)first * 4, bytes) : NULL;
    float *pc = pb ? gpu(b, c + (uint64_t)first * 4, bytes) : NULL;
    if (!pc)
        return;
    for (int64_t i = 0; i < last - first; i++)
        pc[i] = pa[i] + pb[i] + (float)k;
}

/* smem_win(int *out, int idx): s[256] static shared, one barrier. */
static void host_smem_win(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0);
    uint32_t idx = emu_param_u32(b, 8), nt = threads_x(b);
    if (b->shared_size < 256 * 4 || nt > 256)
        return;
    int32_t s[256];
    for (uint32_t t = 0; t < nt; t++) {
        int32_t v = (int32_t)(t * 3 + 1);
        memcpy(b->shared + 4 * t, &v, 4);
    }
    memcpy(s, b->shared, sizeof(s));
    int32_t *o = gpu(b, out + (uint64_t)b->block_id[0] * 256 * 4, (uint64_t)nt * 4);
    if (!o)
        return;
    for (uint32_t t = 0; t < nt; t++)
        o[t] = s[(t + idx) & 255];
}

/* local_win(int *out, int idx): a per-thread 64-int array. */
static void host_local_win(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0);
    int32_t idx = (int32_t)emu_param_u32(b, 8);
    uint32_t nt = threads_x(b);
    int32_t *o = gpu(b, out + (uint64_t)b->block_id[0] * nt * 4, (uint64_t)nt * 4);
    if (!o)
        return;
    for (uint32_t t = 0; t < nt; t++) {
        int32_t arr[64];
        for (int j = 0; j < 64; j++)
            arr[j] = j * 7 + (int32_t)t;
        o[t] = arr[(idx + (int32_t)t) & 63] + arr[(idx * 3 + (int32_t)t) & 63];
    }
}

/* dyn_smem(int *out, int n): n ints of dynamic shared memory. */
static void host_dyn_smem(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0);
    int32_t n = (int32_t)emu_param_u32(b, 8);
    uint32_t nt = threads_x(b);
    if (n < 0 || (uint64_t)n * 4 > b->shared_size)
        return; /* the GPU would address past the window */
    for (uint32_t t = 0; t < nt; t++)
        for (int32_t j = (int32_t)t; j < n; j += (int32_t)nt) {
            int32_t v = j ^ 0x55;
            memcpy(b->shared + 4 * (uint32_t)j, &v, 4);
        }
    int32_t acc = 0;
    for (int32_t j = 0; j < n; j++) {
        int32_t v;
        memcpy(&v, b->shared + 4 * (uint32_t)j, 4);
        acc += v;
    }
    int32_t *o = gpu(b, out + (uint64_t)b->block_id[0] * nt * 4, (uint64_t)nt * 4);
    if (!o)
        return;
    for (uint32_t t = 0; t < nt; t++)
        o[t] = acc;
}

/* consts(int *out): cvals in bank 3, &gvar in bank 4. */
static void host_consts(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0);
    uint32_t nt = threads_x(b);
    if (b->cbuf_size[3] < 16 || b->cbuf_size[4] < 8)
        return; /* banks not bound: the GPU would read garbage */
    const int32_t *cvals = gpu(b, b->cbuf_va[3], 16);
    const uint64_t *gaddr = cvals ? gpu(b, b->cbuf_va[4], 8) : NULL;
    const int32_t *gvar = gaddr ? gpu(b, *gaddr, 4) : NULL;
    int32_t *o = gvar ? gpu(b, out, (uint64_t)nt * 4) : NULL;
    if (!o)
        return;
    for (uint32_t t = 0; t < nt; t++)
        o[t] = cvals[t & 3] + *gvar;
}

/* dims(int *out): thread (0,0,0) of each block writes 7 ints. */
static void host_dims(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0);
    uint64_t blk = b->block_id[0] + (uint64_t)b->grid[0] * (b->block_id[1] +
                                                             (uint64_t)b->grid[1] * b->block_id[2]);
    int32_t *o = gpu(b, out + blk * 32, 7 * 4);
    if (!o)
        return;
    o[0] = (int32_t)b->block[0];
    o[1] = (int32_t)b->block[1];
    o[2] = (int32_t)b->block[2];
    o[3] = (int32_t)b->grid[0];
    o[4] = (int32_t)b->grid[1];
    o[5] = (int32_t)b->grid[2];
    o[6] = (int32_t)(b->block_id[0] | (b->block_id[1] << 10) | (b->block_id[2] << 20));
}

/* Grid-stride loops, one row of blockDim.x elements per iteration. */
static void host_copy_bytes(const struct emu_block *b)
{
    uint64_t dst = emu_param_u64(b, 0), src = emu_param_u64(b, 8), n = emu_param_u64(b, 16);
    uint64_t nt = threads_x(b), stride = (uint64_t)b->grid[0] * nt;
    for (uint64_t start = b->block_id[0] * nt; start < n; start += stride) {
        uint64_t len = n - start < nt ? n - start : nt;
        uint8_t *d = gpu(b, dst + start, len);
        const uint8_t *s = d ? gpu(b, src + start, len) : NULL;
        if (!s)
            return;
        memmove(d, s, len);
    }
}

static void host_fill_bytes(const struct emu_block *b)
{
    uint64_t dst = emu_param_u64(b, 0), n = emu_param_u64(b, 144);
    uint32_t psize = emu_param_u32(b, 136);
    if (psize == 0 || psize > 128 || b->param_size < 136)
        return;
    const uint8_t *pat = b->params + 8;
    uint64_t nt = threads_x(b), stride = (uint64_t)b->grid[0] * nt;
    for (uint64_t start = b->block_id[0] * nt; start < n; start += stride) {
        uint64_t len = n - start < nt ? n - start : nt;
        uint8_t *d = gpu(b, dst + start, len);
        if (!d)
            return;
        for (uint64_t i = 0; i < len; i++)
            d[i] = pat[(start + i) % psize];
    }
}

/* gpu_kernels.cu: empty(void). */
static void host_empty(const struct emu_block *b) { (void)b; }

/* atomic_inc(unsigned long long *counter): one atomic add per thread;
 * blocks of a grid run concurrently on model threads. */
static void host_atomic_inc(const struct emu_block *b)
{
    uint64_t *c = gpu(b, emu_param_u64(b, 0), 8);
    if (!c)
        return;
    uint64_t threads = (uint64_t)b->block[0] * b->block[1] * b->block[2];
    __atomic_fetch_add(c, threads, __ATOMIC_RELAXED);
}

/* stamp(unsigned *out, unsigned value): out[global thread index] = value
 * (1-D grids). */
static void host_stamp(const struct emu_block *b)
{
    const uint32_t nt = threads_x(b);
    uint32_t *o = gpu(b, emu_param_u64(b, 0) + 4ull * b->block_id[0] * nt, 4ull * nt);
    if (!o)
        return;
    const uint32_t v = emu_param_u32(b, 8);
    for (uint32_t t = 0; t < nt; t++)
        __atomic_store_n(&o[t], v, __ATOMIC_RELAXED);
}

/* spin_ns(unsigned long long ns, unsigned long long *out): the model's
 * thread sleeps (it has no timer to spin on cheaply) for ns and stores the
 * time that passed. */
static void host_spin_ns(const struct emu_block *b)
{
    if (b->block_id[0] || b->block_id[1] || b->block_id[2])
        return;
    uint64_t ns = emu_param_u64(b, 0);
    uint64_t *out = gpu(b, emu_param_u64(b, 8), 8);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t spent = 0;
    while (spent < ns) {
        uint64_t left = ns - spent;
        struct timespec d = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
        nanosleep(&d, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t);
        spent = (uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t.tv_nsec -
                (uint64_t)t0.tv_nsec;
    }
    if (out)
        *out = spent;
}

__attribute__((visibility("default"))) int hcqcl_emu_register_kernels(struct emu_kernel_registry *reg)
{
    static const struct {
        const char *name;
        emu_kernel_fn fn;
    } fns[] = {
        {"vadd", host_vadd},           {"smem_win", host_smem_win},
        {"local_win", host_local_win}, {"dyn_smem", host_dyn_smem},
        {"consts", host_consts},       {"dims", host_dims},
        {"copy_bytes", host_copy_bytes}, {"fill_bytes", host_fill_bytes},
        {"empty", host_empty},           {"atomic_inc", host_atomic_inc},
        {"spin_ns", host_spin_ns},       {"stamp", host_stamp},
    };
    int rc = reg->add_cubin(reg, test_kernels_cubin, test_kernels_cubin_size);
    if (rc == 0)
        rc = reg->add_cubin(reg, gpu_kernels_cubin, gpu_kernels_cubin_size);
    for (size_t i = 0; rc == 0 && i < sizeof(fns) / sizeof(fns[0]); i++)
        rc = reg->add(reg, fns[i].name, fns[i].fn);
    return rc;
}

/*
 * emu_kernels.c — CPU implementations of the samples' kernels for the
 * emulated device (src/emu/emu_kernel.h), registered together with the
 * cubins hcqcl-cc built from the samples' .cl files at build time.
 *
 * Each function runs one work-group and reads what the SASS reads, from
 * where it reads it: parameters from the parameter block (offsets as
 * clang lays them out: natural alignment, pointers 8 bytes), the global
 * work offset and work_dim from the environment registers in constant
 * bank 0 (0x40 + 4 * N, written by the launcher; hcqcl-cc's shim reads
 * them there), __local pointer arguments as offsets into the shared
 * window, static __local arrays at the start of the window. An unmapped
 * address ends the block (the model has recorded the fault).
 */
#include <stdint.h>
#include <string.h>

#include "emu/emu_kernel.h"

#define EXPORT __attribute__((visibility("default")))

#define SAMPLE_CUBINS(X) \
    X(vector_add) X(saxpy) X(reduction) X(matmul) X(event_pipeline) X(binary_roundtrip) \
        X(hello_printf) X(svm_list)
#define DECLARE(s)                                                                        \
    extern const unsigned char sample_##s##_cubin[];                                      \
    extern const unsigned long sample_##s##_cubin_size;
SAMPLE_CUBINS(DECLARE)

/* Environment registers as the launcher wrote them. */
static uint32_t envreg(const struct emu_block *b, unsigned i)
{
    uint32_t v = 0;
    if (b->cbuf0 && 0x40 + 4 * i + 4 <= b->cbuf0_size)
        memcpy(&v, b->cbuf0 + 0x40 + 4 * i, 4);
    return v;
}

static uint64_t global_offset(const struct emu_block *b, unsigned d)
{
    return (uint64_t)envreg(b, 2 * d) | (uint64_t)envreg(b, 2 * d + 1) << 32;
}

/* get_global_id(d) of local thread t in dimension d. */
static uint64_t gid(const struct emu_block *b, unsigned d, uint32_t t)
{
    return (uint64_t)b->block_id[d] * b->block[d] + t + global_offset(b, d);
}

static float param_f32(const struct emu_block *b, uint32_t off)
{
    uint32_t u = emu_param_u32(b, off);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Elements [first, first+count) of a float array in GPU memory. */
static float *floats(const struct emu_block *b, uint64_t va, uint64_t first, uint64_t count)
{
    return count ? b->ptr(b, va + first * 4, count * 4) : NULL;
}

/* The 1-D slice [first, last) of this block, clipped to n. */
static int slice(const struct emu_block *b, uint64_t n, uint64_t *first, uint64_t *count)
{
    uint64_t f = gid(b, 0, 0), l = f + b->block[0];
    if (l > n)
        l = n;
    if (f >= l)
        return 0;
    *first = f;
    *count = l - f;
    return 1;
}

/* vector_add(global const float *a, global const float *b, global float *c, uint n) */
static void host_vector_add(const struct emu_block *b)
{
    uint64_t first, count;
    if (!slice(b, emu_param_u32(b, 24), &first, &count))
        return;
    float *x = floats(b, emu_param_u64(b, 0), first, count);
    float *y = x ? floats(b, emu_param_u64(b, 8), first, count) : NULL;
    float *z = y ? floats(b, emu_param_u64(b, 16), first, count) : NULL;
    if (!z)
        return;
    for (uint64_t i = 0; i < count; i++)
        z[i] = x[i] + y[i];
}

/* saxpy(float alpha, global const float *x, global float *y, uint n) */
static void host_saxpy(const struct emu_block *b)
{
    uint64_t first, count;
    if (!slice(b, emu_param_u32(b, 24), &first, &count))
        return;
    float alpha = param_f32(b, 0);
    float *x = floats(b, emu_param_u64(b, 8), first, count);
    float *y = x ? floats(b, emu_param_u64(b, 16), first, count) : NULL;
    if (!y)
        return;
    for (uint64_t i = 0; i < count; i++)
        y[i] = __builtin_fmaf(alpha, x[i], y[i]);
}

/* reduce_sum(global const float *in, global float *partial,
 *            local float *scratch, uint n): the tree of the kernel, with
 * scratch in the shared window at the offset the launcher passed. */
static void host_reduce_sum(const struct emu_block *b)
{
    uint64_t in = emu_param_u64(b, 0), partial = emu_param_u64(b, 8);
    uint32_t scratch_off = (uint32_t)emu_param_u64(b, 16), n = emu_param_u32(b, 24);
    uint32_t lsz = b->block[0];
    if (scratch_off < b->shared_base || scratch_off - b->shared_base > b->shared_size ||
        (uint64_t)lsz * 4 > b->shared_size - (scratch_off - b->shared_base))
        return; /* would be an out-of-window access on the GPU */
    float *s = (float *)(b->shared + (scratch_off - b->shared_base));
    uint64_t group_first = (uint64_t)b->block_id[0] * lsz * 2;
    for (uint32_t t = 0; t < lsz; t++) {
        uint64_t i = group_first + t;
        float v = 0.0f;
        if (i < n) {
            float *p = floats(b, in, i, 1);
            if (!p)
                return;
            v = *p;
        }
        if (i + lsz < n) {
            float *p = floats(b, in, i + lsz, 1);
            if (!p)
                return;
            v += *p;
        }
        s[t] = v;
    }
    for (uint32_t st = lsz / 2; st > 0; st >>= 1)
        for (uint32_t t = 0; t < st; t++)
            s[t] += s[t + st];
    float *out = floats(b, partial, b->block_id[0], 1);
    if (out)
        *out = s[0];
}

/* matmul_tiled(global const float *A, global const float *B, global float *C, uint N):
 * 16 x 16 blocks, As and Bs (1 KiB each) at the start of the shared window. */
static void host_matmul_tiled(const struct emu_block *b)
{
    enum { T = 16 };
    uint64_t A = emu_param_u64(b, 0), B = emu_param_u64(b, 8), C = emu_param_u64(b, 16);
    uint32_t N = emu_param_u32(b, 24);
    if (b->block[0] != T || b->block[1] != T || b->shared_size < 2 * T * T * 4 || N % T)
        return;
    float(*As)[T] = (float(*)[T])b->shared;
    float(*Bs)[T] = (float(*)[T])(b->shared + T * T * 4);
    float acc[T][T] = { { 0 } };
    uint64_t col0 = gid(b, 0, 0), row0 = gid(b, 1, 0);
    if (row0 + T > N || col0 + T > N)
        return;
    for (uint32_t t = 0; t < N; t += T) {
        for (uint32_t ty = 0; ty < T; ty++) {
            float *ar = floats(b, A, (row0 + ty) * N + t, T);
            float *br = ar ? floats(b, B, (uint64_t)(t + ty) * N + col0, T) : NULL;
            if (!br)
                return;
            memcpy(As[ty], ar, sizeof(As[ty]));
            memcpy(Bs[ty], br, sizeof(Bs[ty]));
        }
        for (uint32_t ty = 0; ty < T; ty++)
            for (uint32_t tx = 0; tx < T; tx++)
                for (uint32_t k = 0; k < T; k++)
                    acc[ty][tx] = __builtin_fmaf(As[ty][k], Bs[k][tx], acc[ty][tx]);
    }
    for (uint32_t ty = 0; ty < T; ty++) {
        float *cr = floats(b, C, (row0 + ty) * N + col0, T);
        if (!cr)
            return;
        memcpy(cr, acc[ty], sizeof(acc[ty]));
    }
}

/* pipeline_scale(global float *data, float factor, uint n) */
static void host_pipeline_scale(const struct emu_block *b)
{
    uint64_t first, count;
    if (!slice(b, emu_param_u32(b, 12), &first, &count))
        return;
    float f = param_f32(b, 8);
    float *d = floats(b, emu_param_u64(b, 0), first, count);
    for (uint64_t i = 0; d && i < count; i++)
        d[i] *= f;
}

/* pipeline_offset(global const float *src, global float *dst, float offset, uint n) */
static void host_pipeline_offset(const struct emu_block *b)
{
    uint64_t first, count;
    if (!slice(b, emu_param_u32(b, 20), &first, &count))
        return;
    float off = param_f32(b, 16);
    float *s = floats(b, emu_param_u64(b, 0), first, count);
    float *d = s ? floats(b, emu_param_u64(b, 8), first, count) : NULL;
    for (uint64_t i = 0; d && i < count; i++)
        d[i] = s[i] + off;
}

/* iota_offset(global uint *out, uint base):
 * out[gid - offset] = gid * 2 + base + work_dim * 1000000 */
static void host_iota_offset(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0);
    uint32_t base = emu_param_u32(b, 8), work_dim = envreg(b, 6);
    uint64_t off = global_offset(b, 0);
    for (uint32_t t = 0; t < b->block[0]; t++) {
        uint64_t g = gid(b, 0, t);
        uint32_t *p = b->ptr(b, out + (g - off) * 4, 4);
        if (!p)
            return;
        *p = (uint32_t)g * 2u + base + work_dim * 1000000u;
    }
}

/* ---- printf: records as the code hcqcl-cc generates writes them
 * (src/cubin/container.h, "printf") ---- */

struct pf_rec {
    uint8_t b[256];
    uint32_t n;
};

static void pf_put(struct pf_rec *r, const void *p, uint32_t n)
{
    memcpy(r->b + r->n, &n, 4);
    memcpy(r->b + r->n + 4, p, n);
    r->n += 4 + ((n + 3) & ~3u);
}

/* Reserve the record in the launch's buffer (%envreg29/30) and copy it
 * there: printf's return value. */
static int pf_emit(const struct emu_block *b, struct pf_rec *r)
{
    memcpy(r->b, &r->n, 4);
    uint64_t base = (uint64_t)envreg(b, 29) | (uint64_t)envreg(b, 30) << 32;
    uint32_t *hdr = base ? b->ptr(b, base, 8) : NULL;
    if (!hdr)
        return -1;
    uint32_t cap = hdr[1];
    if (__atomic_load_n(&hdr[0], __ATOMIC_RELAXED) >= cap)
        return -1; /* full already: no add */
    uint32_t off = __atomic_fetch_add(&hdr[0], r->n, __ATOMIC_RELAXED);
    uint8_t *dst = off <= cap && r->n <= cap - off ? b->ptr(b, base + 8 + off, r->n) : NULL;
    if (!dst) {
        uint32_t *mark = off <= cap && cap - off >= 4 ? b->ptr(b, base + 8 + off, 4) : NULL;
        if (mark)
            *mark = 0;
        return -1;
    }
    memcpy(dst, r->b, r->n);
    return 0;
}

/* hello(global const float *x, global int *r, uint n): the format is
 * hello_printf.cl's, byte for byte. */
static void host_hello(const struct emu_block *b)
{
    static const char fmt[] =
        "work-item %u of group %u: x = %.3f, %#x, %v4hld, %s, %c, %ld\n";
    uint32_t n = emu_param_u32(b, 16);
    for (uint32_t t = 0; t < b->block[0]; t++) {
        uint64_t g = gid(b, 0, t);
        if (g >= n)
            continue;
        uint32_t i = (uint32_t)g, group = envreg(b, 20) + b->block_id[0], hex = i * 17u;
        float *x = floats(b, emu_param_u64(b, 0), i, 1);
        int32_t *ret = x ? b->ptr(b, emu_param_u64(b, 8) + (uint64_t)i * 4, 4) : NULL;
        if (!ret)
            return;
        double xd = *x;
        int32_t v4[4] = {(int32_t)i, -(int32_t)i, (int32_t)(2 * i), 3};
        int32_t c = 'A' + (int32_t)(i % 26);
        int64_t l = (int64_t)i << 33;
        struct pf_rec r = {.n = 4};
        pf_put(&r, fmt, sizeof(fmt));
        pf_put(&r, &i, 4);
        pf_put(&r, &group, 4);
        pf_put(&r, &xd, 8);
        pf_put(&r, &hex, 4);
        pf_put(&r, v4, 16);
        pf_put(&r, "hello", 6);
        pf_put(&r, &c, 4);
        pf_put(&r, &l, 8);
        *ret = pf_emit(b, &r);
    }
}

/* list_sum(global const ulong *heads, global long *sums): each work-item
 * follows its list through the nodes' next pointers (16-byte nodes: next,
 * value), stopping after 2^24 nodes should a list loop. */
static void host_list_sum(const struct emu_block *b)
{
    uint64_t heads = emu_param_u64(b, 0), sums = emu_param_u64(b, 8);
    for (uint32_t t = 0; t < b->block[0]; t++) {
        uint64_t i = gid(b, 0, t);
        const uint64_t *h = b->ptr(b, heads + i * 8, 8);
        int64_t *out = b->ptr(b, sums + i * 8, 8);
        if (!h || !out)
            return;
        int64_t s = 0;
        uint64_t n = *h;
        for (uint32_t k = 0; n && k < (1u << 24); k++) {
            const uint64_t *node = b->ptr(b, n, 16);
            if (!node)
                return;
            s += (int64_t)node[1];
            n = node[0];
        }
        *out = s;
    }
}

EXPORT int hcqcl_emu_register_kernels(struct emu_kernel_registry *reg)
{
    int rc = 0;
#define ADD_CUBIN(s)                                                                      \
    if (!rc)                                                                              \
        rc = reg->add_cubin(reg, sample_##s##_cubin, sample_##s##_cubin_size);
    SAMPLE_CUBINS(ADD_CUBIN)
    static const struct {
        const char *name;
        emu_kernel_fn fn;
    } fns[] = {
        { "vector_add", host_vector_add },       { "saxpy", host_saxpy },
        { "reduce_sum", host_reduce_sum },       { "matmul_tiled", host_matmul_tiled },
        { "pipeline_scale", host_pipeline_scale }, { "pipeline_offset", host_pipeline_offset },
        { "iota_offset", host_iota_offset },     { "hello", host_hello },
        { "list_sum", host_list_sum },
    };
    for (size_t i = 0; !rc && i < sizeof(fns) / sizeof(fns[0]); i++)
        rc = reg->add(reg, fns[i].name, fns[i].fn);
    return rc;
}

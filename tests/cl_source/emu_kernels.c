/*
 * emu_kernels.c — CPU versions of tests/cl_source/kernels.cl and
 * workitem.cl for the emulated device (src/emu/emu_kernel.h), registered
 * with the cubins hcqcl-cc built from those files at build time (embedded
 * here).
 *
 * Each function runs one work-group, reading what the SASS reads from
 * where it reads it: parameters at the offsets clang and ptxas give them
 * (natural alignment, pointers 8 bytes, the struct of struct_arg on 16),
 * the work-item functions' values from the environment registers of
 * constant bank 0 (emu_kernel.h's emu_cl_* helpers: the shim's formulas).
 * Blocks of one grid run concurrently on several model threads, so global
 * updates are __atomic operations on the translated pointers, as the GPU's
 * are atomic in memory. An unmapped address ends the block (the model has
 * recorded the fault).
 */
#include <stdint.h>
#include <string.h>

#include "emu/emu_kernel.h"

#define EXPORT __attribute__((visibility("default")))

extern const unsigned char cl_source_cubin[];
extern const unsigned long cl_source_cubin_size;
extern const unsigned char workitem_cubin[];
extern const unsigned long workitem_cubin_size;

/* kernels.cl's mix32 and mix64. */
static uint32_t mix32(uint32_t i)
{
    uint32_t x = i * 2654435761u;
    return x ^ (x >> 15);
}

static uint64_t mix64(uint32_t i)
{
    uint64_t a = mix32(i), c = mix32(i ^ 0x5bd1e995u);
    return (a << 32 | c) >> (i & 7);
}

#define RELAXED __ATOMIC_RELAXED

/* Atomic signed/unsigned min and max by compare-exchange (what atom.min
 * and atom.max do in one step). */
#define ATOMIC_MINMAX(name, T, better)                                                   \
    static void name(T *p, T v)                                                           \
    {                                                                                     \
        T old = __atomic_load_n(p, RELAXED);                                              \
        while (better(v, old) &&                                                          \
               !__atomic_compare_exchange_n(p, &old, v, 1, RELAXED, RELAXED))             \
            ;                                                                             \
    }
#define LESS(a, b) ((a) < (b))
#define MORE(a, b) ((a) > (b))
ATOMIC_MINMAX(min_i32, int32_t, LESS)
ATOMIC_MINMAX(max_i32, int32_t, MORE)
ATOMIC_MINMAX(min_u32, uint32_t, LESS)
ATOMIC_MINMAX(max_u32, uint32_t, MORE)
ATOMIC_MINMAX(min_i64, int64_t, LESS)
ATOMIC_MINMAX(max_i64, int64_t, MORE)
ATOMIC_MINMAX(min_u64, uint64_t, LESS)
ATOMIC_MINMAX(max_u64, uint64_t, MORE)

/* atomics32(global int *si, global uint *ui, global uint *order, uint n) */
static void host_atomics32(const struct emu_block *b)
{
    uint32_t n = emu_param_u32(b, 24);
    int32_t *si = b->ptr(b, emu_param_u64(b, 0), 6 * 4);
    uint32_t *ui = si ? b->ptr(b, emu_param_u64(b, 8), 8 * 4) : NULL;
    uint64_t order = emu_param_u64(b, 16);
    if (!ui)
        return;
    /* Adds and subtracts wrap, as on the GPU: done on the unsigned view. */
    uint32_t *su = (uint32_t *)si;
    int32_t group_count = 0;
    for (uint32_t t = 0; t < b->block[0]; t++) {
        uint32_t i = (uint32_t)emu_cl_global_id(b, 0, t);
        if (i >= n)
            continue;
        uint32_t u = mix32(i);
        int32_t s = (int32_t)u;
        __atomic_fetch_add(&su[0], u, RELAXED);
        __atomic_fetch_sub(&su[1], u, RELAXED);
        min_i32(&si[2], s);
        max_i32(&si[3], s);
        uint32_t old = __atomic_load_n(&su[4], RELAXED);
        while (!__atomic_compare_exchange_n(&su[4], &old, old + u, 1, RELAXED, RELAXED))
            ;
        group_count++;

        __atomic_fetch_add(&ui[0], u, RELAXED);
        uint32_t ticket = __atomic_fetch_add(&ui[1], 1, RELAXED);
        min_u32(&ui[2], u);
        max_u32(&ui[3], u);
        __atomic_fetch_or(&ui[4], 1u << (i & 31), RELAXED);
        __atomic_fetch_and(&ui[5], ~(1u << (i & 31)), RELAXED);
        __atomic_fetch_xor(&ui[6], u, RELAXED);
        __atomic_fetch_sub(&ui[7], 1, RELAXED);
        if (ticket < n) {
            uint32_t *o = b->ptr(b, order + (uint64_t)ticket * 4, 4);
            if (!o)
                return;
            *o = i;
        }
    }
    __atomic_fetch_add(&su[5], (uint32_t)group_count, RELAXED);
}

/* atomics64(global long *sl, global ulong *ul, uint n) */
static void host_atomics64(const struct emu_block *b)
{
    uint32_t n = emu_param_u32(b, 16);
    int64_t *sl = b->ptr(b, emu_param_u64(b, 0), 5 * 8);
    uint64_t *ul = sl ? b->ptr(b, emu_param_u64(b, 8), 7 * 8) : NULL;
    if (!ul)
        return;
    uint64_t *su = (uint64_t *)sl;
    uint64_t group_sum = 0;
    for (uint32_t t = 0; t < b->block[0]; t++) {
        uint32_t i = (uint32_t)emu_cl_global_id(b, 0, t);
        if (i >= n)
            continue;
        uint64_t u = mix64(i);
        int64_t s = (int64_t)u;
        __atomic_fetch_add(&su[0], u, RELAXED);
        min_i64(&sl[1], s);
        max_i64(&sl[2], s);
        uint64_t old = __atomic_load_n(&su[3], RELAXED);
        while (!__atomic_compare_exchange_n(&su[3], &old, old + u, 1, RELAXED, RELAXED))
            ;
        __atomic_fetch_sub(&su[4], u, RELAXED);

        __atomic_fetch_add(&ul[0], u, RELAXED);
        min_u64(&ul[1], u);
        max_u64(&ul[2], u);
        __atomic_fetch_add(&ul[3], 1, RELAXED);
        __atomic_fetch_or(&ul[4], (uint64_t)1 << (i & 63), RELAXED);
        __atomic_fetch_xor(&ul[5], u, RELAXED);
        group_sum += u;
    }
    __atomic_fetch_add(&ul[6], group_sum, RELAXED);
}

/* offset2d(global ulong *out, uint width): 8 ulongs per work-item. */
static void host_offset2d(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0);
    uint32_t width = emu_param_u32(b, 8);
    uint64_t off0 = emu_cl_global_offset(b, 0), off1 = emu_cl_global_offset(b, 1);
    uint64_t size0 = emu_cl_global_size(b, 0), size1 = emu_cl_global_size(b, 1);
    for (uint32_t ty = 0; ty < b->block[1]; ty++) {
        for (uint32_t tx = 0; tx < b->block[0]; tx++) {
            uint64_t g0 = emu_cl_global_id(b, 0, tx), g1 = emu_cl_global_id(b, 1, ty);
            uint64_t *r = b->ptr(b, out + ((g1 - off1) * width + (g0 - off0)) * 64, 64);
            if (!r)
                return;
            r[0] = g0;
            r[1] = g1;
            r[2] = off0;
            r[3] = off1;
            r[4] = (uint32_t)size0 | size1 << 32;
            r[5] = emu_cl_work_dim(b);
            r[6] = tx | (uint64_t)ty << 16 | (uint64_t)b->block[0] << 32 |
                   (uint64_t)b->block[1] << 48;
            r[7] = emu_cl_group_id(b, 0) | emu_cl_group_id(b, 1) << 16 |
                   emu_cl_num_groups(b, 0) << 32 | emu_cl_num_groups(b, 1) << 48;
        }
    }
}

/* struct_arg(char tag, mixed_t m, global ulong *out, int after): tag at
 * 0, m at 16 (64 bytes: c 0, i 4, f 8, d 16, l 24, v 32, s 48, tail 50),
 * out at 80, after at 88. */
static void host_struct_arg(const struct emu_block *b)
{
    if (b->param_size < 92)
        return;
    const uint8_t *m = b->params + 16;
    int8_t tag, c;
    int32_t i, after;
    float f;
    double d;
    int64_t l;
    uint32_t v[4];
    int16_t s;
    memcpy(&tag, b->params, 1);
    memcpy(&c, m, 1);
    memcpy(&i, m + 4, 4);
    memcpy(&f, m + 8, 4);
    memcpy(&d, m + 16, 8);
    memcpy(&l, m + 24, 8);
    memcpy(v, m + 32, 16);
    memcpy(&s, m + 48, 2);
    memcpy(&after, b->params + 88, 4);
    uint64_t out = emu_param_u64(b, 80);
    double e = d * 2.0 + (double)f;
    for (uint32_t t = 0; t < b->block[0]; t++) {
        uint64_t g = emu_cl_global_id(b, 0, t);
        uint64_t *r = b->ptr(b, out + g * 128, 128);
        if (!r)
            return;
        uint32_t fb;
        memcpy(&fb, &f, 4);
        r[0] = (uint64_t)(int64_t)tag;
        r[1] = (uint64_t)(int64_t)c;
        r[2] = (uint64_t)(int64_t)i;
        r[3] = fb;
        memcpy(&r[4], &d, 8);
        r[5] = (uint64_t)l;
        for (int k = 0; k < 4; k++)
            r[6 + k] = v[k];
        r[10] = (uint64_t)(int64_t)s;
        r[11] = m[50];
        r[12] = (uint64_t)(int64_t)after;
        r[13] = 64;
        memcpy(&r[14], &e, 8);
        r[15] = g;
    }
}

/* ---- workitem.cl ---------------------------------------------------- */

/* workitem.cl's absent_dim for d = 2 of a 2-D launch: from the envregs
 * and the block, as the shim computes it. */
static uint64_t absent_dim2(const struct emu_block *b)
{
    return emu_cl_global_id(b, 2, 0) | emu_cl_global_offset(b, 2) << 8 |
           emu_cl_global_size(b, 2) << 16 | (uint64_t)b->block[2] << 24 |
           emu_cl_enqueued_local_size(b, 2) << 32 | emu_cl_group_id(b, 2) << 40 |
           emu_cl_num_groups(b, 2) << 48;
}

/* What the shim answers for dimension index 3 (none): global size, local
 * size, enqueued local size and number of groups 1, the rest 0. */
#define ABSENT_DIM3 ((uint64_t)1 << 16 | (uint64_t)1 << 24 | (uint64_t)1 << 32 | (uint64_t)1 << 48)

/* workitems(global ulong *out): 14 ulongs per work-item. */
static void host_workitems(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0);
    uint64_t off0 = emu_cl_global_offset(b, 0), off1 = emu_cl_global_offset(b, 1);
    uint64_t gs0 = emu_cl_global_size(b, 0), gs1 = emu_cl_global_size(b, 1);
    for (uint32_t ty = 0; ty < b->block[1]; ty++) {
        for (uint32_t tx = 0; tx < b->block[0]; tx++) {
            uint64_t g0 = emu_cl_global_id(b, 0, tx), g1 = emu_cl_global_id(b, 1, ty);
            uint64_t lin = (g1 - off1) * gs0 + (g0 - off0);
            uint64_t *r = b->ptr(b, out + lin * 14 * 8, 14 * 8);
            if (!r)
                return;
            r[0] = g0;
            r[1] = g1;
            r[2] = off0;
            r[3] = off1;
            r[4] = gs0;
            r[5] = gs1;
            r[6] = b->block[0] | (uint64_t)b->block[1] << 16 |
                   emu_cl_enqueued_local_size(b, 0) << 32 | emu_cl_enqueued_local_size(b, 1) << 48;
            r[7] = tx | (uint64_t)ty << 16 | ((uint64_t)ty * b->block[0] + tx) << 32;
            r[8] = emu_cl_group_id(b, 0) | emu_cl_group_id(b, 1) << 32;
            r[9] = emu_cl_num_groups(b, 0) | emu_cl_num_groups(b, 1) << 32;
            r[10] = lin;
            r[11] = emu_cl_work_dim(b);
            r[12] = absent_dim2(b);
            r[13] = ABSENT_DIM3;
        }
    }
}

/* mirror(global ulong *out, local ulong *tmp): the barriers split the
 * group's work into three passes over its work-items. */
static void host_mirror(const struct emu_block *b)
{
    uint64_t out = emu_param_u64(b, 0), off = emu_cl_global_offset(b, 0);
    uint32_t n = b->block[0];
    uint64_t tmp[1024], m[1024];
    if (n > 1024)
        return;
    for (uint32_t l = 0; l < n; l++)
        tmp[l] = emu_cl_global_id(b, 0, l);
    for (uint32_t l = 0; l < n; l++)
        m[l] = tmp[n - 1 - l];
    for (uint32_t l = 0; l < n; l++)
        tmp[l] = m[l];
    for (uint32_t l = 0; l < n; l++) {
        uint64_t *r = b->ptr(b, out + (emu_cl_global_id(b, 0, l) - off) * 4 * 8, 4 * 8);
        if (!r)
            return;
        r[0] = m[l];
        r[1] = tmp[(l + 1) % n];
        r[2] = emu_cl_group_id(b, 0);
        r[3] = n | emu_cl_num_groups(b, 0) << 32;
    }
}

/* add_scaled(global int *out, global const int *in, int k) and
 * call_kernel (the same three parameters): out[i] += in[i] * k, and
 * out[i] += in[i] * (k + 1) + in[i] + 1000 through two calls of
 * add_scaled. Each work-item owns its element. */
static void scaled_add(const struct emu_block *b, int32_t k, int32_t extra)
{
    uint64_t out = emu_param_u64(b, 0), in = emu_param_u64(b, 8);
    for (uint32_t t = 0; t < b->block[0]; t++) {
        uint64_t i = emu_cl_global_id(b, 0, t);
        int32_t *o = b->ptr(b, out + i * 4, 4);
        const int32_t *v = o ? b->ptr(b, in + i * 4, 4) : NULL;
        if (!v)
            return;
        *o = (int32_t)((uint32_t)*o + (uint32_t)*v * (uint32_t)k + (uint32_t)extra);
    }
}

static void host_add_scaled(const struct emu_block *b)
{
    scaled_add(b, (int32_t)emu_param_u32(b, 16), 0);
}

static void host_call_kernel(const struct emu_block *b)
{
    scaled_add(b, (int32_t)emu_param_u32(b, 16) + 2, 1000);
}

/* big_struct(out, b): out at 0, the 4000 longs of b at 8. */
static void host_big_struct(const struct emu_block *b)
{
    int64_t *out = b->ptr(b, emu_param_u64(b, 0), 16);
    if (!out || b->param_size < 8 + 4000 * 8)
        return;
    uint64_t s = 0;
    for (uint32_t i = 0; i < 4000; i++)
        s += emu_param_u64(b, 8 + 8 * i) * (i + 1);
    out[0] = (int64_t)s;
    out[1] = (int64_t)emu_param_u64(b, 8 + 8 * 3999);
}

/* many_args(out, 2048 ulongs): out at 0, the values from 8 on. */
static void host_many_args(const struct emu_block *b)
{
    uint64_t *out = b->ptr(b, emu_param_u64(b, 0), 8);
    if (!out || b->param_size < 8 + 2048 * 8)
        return;
    uint64_t h = 0;
    for (uint32_t i = 0; i < 2048; i++)
        h = h * 7 + emu_param_u64(b, 8 + 8 * i);
    out[0] = h;
}

/* local_fill(out, local l): out[i] = 7 for the block's work-items. */
static void host_local_fill(const struct emu_block *b)
{
    for (uint32_t t = 0; t < b->block[0]; t++) {
        const uint64_t i = emu_cl_global_id(b, 0, t);
        int32_t *out = b->ptr(b, emu_param_u64(b, 0) + 4 * i, 4);
        if (!out)
            return;
        *out = 7;
    }
}

EXPORT int hcqcl_emu_register_kernels(struct emu_kernel_registry *reg)
{
    int rc = reg->add_cubin(reg, cl_source_cubin, cl_source_cubin_size);
    if (!rc)
        rc = reg->add_cubin(reg, workitem_cubin, workitem_cubin_size);
    static const struct {
        const char *name;
        emu_kernel_fn fn;
    } fns[] = {
        { "atomics32", host_atomics32 },
        { "atomics64", host_atomics64 },
        { "offset2d", host_offset2d },
        { "struct_arg", host_struct_arg },
        { "add_scaled", host_add_scaled },
        { "call_kernel", host_call_kernel },
        { "big_struct", host_big_struct },
        { "many_args", host_many_args },
        { "local_fill", host_local_fill },
        { "workitems", host_workitems },
        { "workitems8x8", host_workitems },
        { "mirror", host_mirror },
        { "mirror64", host_mirror },
    };
    for (size_t k = 0; !rc && k < sizeof(fns) / sizeof(fns[0]); k++)
        rc = reg->add(reg, fns[k].name, fns[k].fn);
    return rc;
}

/*
 * kernels.cl — OpenCL C kernels built from source by cl_source_test.c:
 * 32- and 64-bit atomics under contention, a 2-D launch with a global
 * offset, a struct passed by value, the predefined macros. Precompiled into the build's kernel
 * cache at build time (the test's build options: CL_SOURCE_OPTIONS in
 * CMakeLists.txt); host versions for the emulated device are in
 * emu_kernels.c, which must follow any change here.
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* The macros the OpenCL C specification says the compiler must define
 * (the device is OpenCL 3.0 with images). */
#if !defined(__OPENCL_VERSION__) || __OPENCL_VERSION__ != 300
#error "__OPENCL_VERSION__ is not 300"
#endif
#if !defined(__IMAGE_SUPPORT__)
#error "__IMAGE_SUPPORT__ is not defined"
#endif
#if !defined(__OPENCL_C_VERSION__) || !defined(__ENDIAN_LITTLE__) || !defined(__kernel_exec)
#error "a predefined macro is missing"
#endif
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

/* Each work-item's operand: a scrambled, signed value spread over the
 * whole 32-bit range (the host computes the same). */
uint mix32(uint i)
{
    uint x = i * 2654435761u;
    return x ^ (x >> 15);
}

/* Every work-item of n updates the same few counters:
 *   si[0] += v, si[1] -= v, si[2] = min, si[3] = max (v signed),
 *   si[4] += v by a compare-exchange loop,
 *   si[5] += work-group size once per group, counted by a __local
 *         atomic_inc and added by the group's first work-item,
 *   ui[0] += v, ui[1] = atomic_inc ticket, ui[2] = min, ui[3] = max
 *         (v unsigned), ui[4] |= bit, ui[5] &= ~bit, ui[6] ^= v,
 *         ui[7] = atomic_dec count down,
 *   order[ticket] = global id (the tickets are a permutation of 0..n-1). */
kernel void atomics32(global int *si, global uint *ui, global uint *order, uint n)
{
    local int group_count;
    uint i = (uint)get_global_id(0);
    if (get_local_id(0) == 0)
        group_count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n) {
        uint u = mix32(i);
        int s = (int)u;
        atomic_add(&si[0], s);
        atomic_sub(&si[1], s);
        atomic_min(&si[2], s);
        atomic_max(&si[3], s);
        int old = si[4], seen;
        while ((seen = atomic_cmpxchg(&si[4], old, old + s)) != old)
            old = seen;
        atomic_inc(&group_count);

        atomic_add(&ui[0], u);
        uint ticket = atomic_inc(&ui[1]);
        atomic_min(&ui[2], u);
        atomic_max(&ui[3], u);
        atomic_or(&ui[4], 1u << (i & 31));
        atomic_and(&ui[5], ~(1u << (i & 31)));
        atomic_xor(&ui[6], u);
        atomic_dec(&ui[7]);
        if (ticket < n)
            order[ticket] = i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        atomic_add(&si[5], group_count);
}

/* 64-bit operand: needs more than 32 bits, either sign. */
ulong mix64(uint i)
{
    ulong a = mix32(i), b = mix32(i ^ 0x5bd1e995u);
    return (a << 32 | b) >> (i & 7);
}

/* The same with 64-bit atom_* (cl_khr_int64_base/extended_atomics):
 *   sl[0] += v, sl[1] = min, sl[2] = max (v signed), sl[3] += v by
 *   atom_cmpxchg, sl[4] -= v,
 *   ul[0] += v, ul[1] = min, ul[2] = max (v unsigned), ul[3] = atom_inc,
 *   ul[4] |= bit (i & 63), ul[5] ^= v, ul[6] += v on a __local sum per
 *   group (atom_add on __local ulong) added once per group. */
kernel void atomics64(global long *sl, global ulong *ul, uint n)
{
    local ulong group_sum;
    uint i = (uint)get_global_id(0);
    if (get_local_id(0) == 0)
        group_sum = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n) {
        ulong u = mix64(i);
        long s = (long)u;
        atom_add(&sl[0], s);
        atom_min(&sl[1], s);
        atom_max(&sl[2], s);
        long old = sl[3], seen;
        while ((seen = atom_cmpxchg(&sl[3], old, old + s)) != old)
            old = seen;
        atom_sub(&sl[4], s);

        atom_add(&ul[0], u);
        atom_min(&ul[1], u);
        atom_max(&ul[2], u);
        atom_inc(&ul[3]);
        atom_or(&ul[4], (ulong)1 << (i & 63));
        atom_xor(&ul[5], u);
        atom_add(&group_sum, u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        atom_add(&ul[6], group_sum);
}

/* One record of 8 ulongs per work-item at its position in the
 * (offset-free) range, row-major with `width` columns: what the
 * work-item functions return, for a 2-D launch with a global offset. */
kernel void offset2d(global ulong *out, uint width)
{
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    global ulong *r = out + (y * width + x) * 8;
    r[0] = get_global_id(0);
    r[1] = get_global_id(1);
    r[2] = get_global_offset(0);
    r[3] = get_global_offset(1);
    r[4] = get_global_size(0) | (ulong)get_global_size(1) << 32;
    r[5] = get_work_dim();
    r[6] = get_local_id(0) | (ulong)get_local_id(1) << 16 | (ulong)get_local_size(0) << 32 |
           (ulong)get_local_size(1) << 48;
    r[7] = get_group_id(0) | (ulong)get_group_id(1) << 16 | (ulong)get_num_groups(0) << 32 |
           (ulong)get_num_groups(1) << 48;
}

/* Mixed members, laid out by the OpenCL C rules (natural alignment,
 * float4 on 16 bytes): c 0, i 4, f 8, d 16, l 24, v 32, s 48, tail 50,
 * size 64, alignment 16. */
typedef struct {
    char c;
    int i;
    float f;
    double d;
    long l;
    float4 v;
    short s;
    uchar tail;
} mixed_t;

/* A char before the struct (so the struct's parameter offset comes from
 * its alignment: 16) and an int after it (offset 88). Work-item k writes
 * the members, as raw bits, to out[k * 16 ...]. */
kernel void struct_arg(char tag, mixed_t m, global ulong *out, int after)
{
    global ulong *r = out + get_global_id(0) * 16;
    r[0] = (ulong)(long)tag;
    r[1] = (ulong)(long)m.c;
    r[2] = (ulong)(long)m.i;
    r[3] = as_uint(m.f);
    r[4] = as_ulong(m.d);
    r[5] = (ulong)m.l;
    r[6] = as_uint(m.v.x);
    r[7] = as_uint(m.v.y);
    r[8] = as_uint(m.v.z);
    r[9] = as_uint(m.v.w);
    r[10] = (ulong)(long)m.s;
    r[11] = m.tail;
    r[12] = (ulong)(long)after;
    r[13] = sizeof(mixed_t);
    r[14] = as_ulong(m.d * 2.0 + (double)m.f); /* members used in arithmetic */
    r[15] = get_global_id(0);
}

/* A kernel called like a function (OpenCL C allows it): add_scaled is
 * launched directly and called twice by call_kernel, with scalar and
 * pointer arguments. */
kernel void add_scaled(global int *out, global const int *in, int k)
{
    size_t i = get_global_id(0);
    out[i] += in[i] * k;
}

kernel void call_kernel(global int *out, global const int *in, int k)
{
    add_scaled(out, in, k + 1);
    add_scaled(out, in, 1);
    out[get_global_id(0)] += 1000;
}

/* Parameter blocks beyond the classic 4 KiB, up to the 32764 bytes of
 * CL_DEVICE_MAX_PARAMETER_SIZE. big_struct takes a 32000-byte struct by
 * value; many_args 2048 ulong arguments. Both reduce their inputs
 * position by position, so a byte in the wrong place shows. */
typedef struct {
    long v[4000];
} big_t;

kernel void big_struct(global long *out, big_t b)
{
    long s = 0;
    for (int i = 0; i < 4000; i++)
        s += b.v[i] * (i + 1);
    out[0] = s;
    out[1] = b.v[3999];
}

/* 4^k arguments named p0000.., and their Horner value in base 7 (mod
 * 2^64): each level combines four blocks with the base to the block's
 * length. */
#define L4(p) ulong p##0, ulong p##1, ulong p##2, ulong p##3
#define L16(p) L4(p##0), L4(p##1), L4(p##2), L4(p##3)
#define L64(p) L16(p##0), L16(p##1), L16(p##2), L16(p##3)
#define L256(p) L64(p##0), L64(p##1), L64(p##2), L64(p##3)
#define L1024(p) L256(p##0), L256(p##1), L256(p##2), L256(p##3)
#define B4 2401ul
#define B16 (B4 * B4 * B4 * B4)
#define B64 (B16 * B16 * B16 * B16)
#define B256 (B64 * B64 * B64 * B64)
#define B1024 (B256 * B256 * B256 * B256)
#define S4(p) (((p##0 * 7 + p##1) * 7 + p##2) * 7 + p##3)
#define S16(p) (((S4(p##0) * B4 + S4(p##1)) * B4 + S4(p##2)) * B4 + S4(p##3))
#define S64(p) (((S16(p##0) * B16 + S16(p##1)) * B16 + S16(p##2)) * B16 + S16(p##3))
#define S256(p) (((S64(p##0) * B64 + S64(p##1)) * B64 + S64(p##2)) * B64 + S64(p##3))
#define S1024(p) (((S256(p##0) * B256 + S256(p##1)) * B256 + S256(p##2)) * B256 + S256(p##3))

kernel void many_args(global ulong *out, L1024(a), L1024(b))
{
    out[0] = S1024(a) * B1024 + S1024(b);
}

/* A __local int of its own (4 bytes of static __local memory, set to a
 * value the compiler cannot fold) and a __local argument: out[i] = 7
 * through both. */
kernel void local_fill(global int *out, local int *l)
{
    local int x;
    if (get_local_id(0) == 0)
        x = (int)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    l[get_local_id(0)] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = l[get_local_id(0)] == (int)get_local_size(0) ? 7 : -1;
}

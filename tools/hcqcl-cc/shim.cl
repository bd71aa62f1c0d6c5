/*
 * shim.cl — builtins hcqcl supplies itself, linked before libclc so these
 * definitions win (hcqcl-cc embeds this file and compiles it per build,
 * as OpenCL C 1.2: the 2.0 builtins below are declared here themselves).
 *
 * Work-item functions: libclc's NVPTX library takes every value from the
 * one grid (ctaid, nctaid, ntid), ignores the global work offset and has
 * no get_global_offset, get_work_dim or OpenCL 2.0 functions. An NDRange
 * may run as several grids (remainder groups of non-uniform work-groups,
 * grids beyond the hardware limits), so hcqcl's launcher writes the
 * NDRange into the PTX environment registers, which ptxas reads from
 * constant bank 0 at 0x40 + 4 * N (core/hcq.h, enum hcq_envreg; 64-bit
 * values low word first, d = dimension 0..2):
 *   %envreg(2d), (2d+1)    first work-item of this grid (offset + start)
 *   %envreg6               work_dim
 *   %envreg(8+2d), (9+2d)  global work offset       get_global_offset
 *   %envreg(14+2d), (15+2d) global work size        get_global_size
 *   %envreg(20+d)          group id of this grid's first group
 *   %envreg(23+d)          work-groups of the NDRange  get_num_groups
 *   %envreg(26+d)          enqueued local size       get_enqueued_local_size
 * get_local_size is ntid (the remainder groups run as grids with their
 * own block size); libclc's get_local_id (tid) is used as it is.
 *
 * native_*: libclc lowers them to LLVM intrinsics the NVPTX back end
 * cannot select; here they map to the PTX approximate instructions.
 *
 * mad_hi: missing from libclc for NVPTX.
 *
 * nan: libclc's nan(0) is an infinity.
 *
 * rotate on 64-bit types: LLVM 16's NVPTX back end shifts by the amount
 * unmasked, which PTX clamps (0 for amounts outside 0..63).
 *
 * smoothstep(double, double, doubleN): missing from libclc for NVPTX.
 */

#define ENVREG(n)                                                               \
    ({                                                                          \
        uint r_;                                                                \
        __asm__("mov.u32 %0, %%envreg" #n ";" : "=r"(r_));                      \
        r_;                                                                     \
    })
#define ENVREG64(lo, hi) ((size_t)ENVREG(lo) | (size_t)ENVREG(hi) << 32)
#define OVL __attribute__((overloadable))

size_t OVL get_global_offset(uint d)
{
    switch (d) {
    case 0: return ENVREG64(8, 9);
    case 1: return ENVREG64(10, 11);
    case 2: return ENVREG64(12, 13);
    default: return 0;
    }
}

size_t OVL get_global_size(uint d)
{
    switch (d) {
    case 0: return ENVREG64(14, 15);
    case 1: return ENVREG64(16, 17);
    case 2: return ENVREG64(18, 19);
    default: return 1;
    }
}

size_t OVL get_group_id(uint d)
{
    switch (d) {
    case 0: return (size_t)ENVREG(20) + (uint)__nvvm_read_ptx_sreg_ctaid_x();
    case 1: return (size_t)ENVREG(21) + (uint)__nvvm_read_ptx_sreg_ctaid_y();
    case 2: return (size_t)ENVREG(22) + (uint)__nvvm_read_ptx_sreg_ctaid_z();
    default: return 0;
    }
}

size_t OVL get_num_groups(uint d)
{
    switch (d) {
    case 0: return ENVREG(23);
    case 1: return ENVREG(24);
    case 2: return ENVREG(25);
    default: return 1;
    }
}

/* ntid: a remainder group's grid has the remainder as its block size.
 * (libclc's answers 0 for d > 2; the specification 1.) */
size_t OVL get_local_size(uint d)
{
    switch (d) {
    case 0: return (uint)__nvvm_read_ptx_sreg_ntid_x();
    case 1: return (uint)__nvvm_read_ptx_sreg_ntid_y();
    case 2: return (uint)__nvvm_read_ptx_sreg_ntid_z();
    default: return 1;
    }
}

size_t OVL get_enqueued_local_size(uint d)
{
    switch (d) {
    case 0: return ENVREG(26);
    case 1: return ENVREG(27);
    case 2: return ENVREG(28);
    default: return 1;
    }
}

uint OVL get_work_dim(void) { return ENVREG(6); }

/* ctaid * ntid + tid + the grid's first work-item: in a remainder grid
 * ntid is the remainder and ctaid 0, so this is group id * enqueued local
 * size + local id + offset, as the specification defines it. */
size_t OVL get_global_id(uint d)
{
    switch (d) {
    case 0:
        return (size_t)(uint)__nvvm_read_ptx_sreg_ctaid_x() * (uint)__nvvm_read_ptx_sreg_ntid_x() +
               (uint)__nvvm_read_ptx_sreg_tid_x() + ENVREG64(0, 1);
    case 1:
        return (size_t)(uint)__nvvm_read_ptx_sreg_ctaid_y() * (uint)__nvvm_read_ptx_sreg_ntid_y() +
               (uint)__nvvm_read_ptx_sreg_tid_y() + ENVREG64(2, 3);
    case 2:
        return (size_t)(uint)__nvvm_read_ptx_sreg_ctaid_z() * (uint)__nvvm_read_ptx_sreg_ntid_z() +
               (uint)__nvvm_read_ptx_sreg_tid_z() + ENVREG64(4, 5);
    default: return 0;
    }
}

/* OpenCL C 2.0: (id(2) - offset(2)) * size(1) * size(0) + (id(1) -
 * offset(1)) * size(0) + (id(0) - offset(0)), global or local. */
size_t OVL get_global_linear_id(void)
{
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    return (z * get_global_size(1) + y) * get_global_size(0) + x;
}

size_t OVL get_local_linear_id(void)
{
    size_t x = (uint)__nvvm_read_ptx_sreg_tid_x(), nx = (uint)__nvvm_read_ptx_sreg_ntid_x();
    size_t y = (uint)__nvvm_read_ptx_sreg_tid_y(), ny = (uint)__nvvm_read_ptx_sreg_ntid_y();
    size_t z = (uint)__nvvm_read_ptx_sreg_tid_z();
    return (z * ny + y) * nx + x;
}

/* OpenCL C 2.0 work_group_barrier: libclc 16 has only barrier (bar.sync,
 * which orders the group's shared and global memory accesses at CTA
 * scope). A device-wide scope on global memory adds a GPU-scope fence on
 * each side. The enum is the one OpenCL C 2.0's header declares (the
 * shim is compiled as 1.2, without it), so the mangled names match. */
typedef enum memory_scope {
    memory_scope_work_item = __OPENCL_MEMORY_SCOPE_WORK_ITEM,
    memory_scope_work_group = __OPENCL_MEMORY_SCOPE_WORK_GROUP,
    memory_scope_device = __OPENCL_MEMORY_SCOPE_DEVICE,
    memory_scope_all_svm_devices = __OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES,
    memory_scope_sub_group = __OPENCL_MEMORY_SCOPE_SUB_GROUP,
} memory_scope;

__attribute__((convergent)) void OVL work_group_barrier(cl_mem_fence_flags flags,
                                                        memory_scope scope)
{
    bool device = (flags & CLK_GLOBAL_MEM_FENCE) &&
                  (scope == memory_scope_device || scope == memory_scope_all_svm_devices);
    if (device)
        __nvvm_membar_gl();
    barrier(flags);
    if (device)
        __nvvm_membar_gl();
}

__attribute__((convergent)) void OVL work_group_barrier(cl_mem_fence_flags flags)
{
    barrier(flags);
}

#define M_LOG2E_H 1.4426950408889634f   /* log2(e) */
#define M_LN2_H 0.6931471805599453f     /* ln(2) */
#define M_LOG10_2_H 0.3010299956639812f /* log10(2) */
#define M_LOG2_10_H 3.3219280948873622f /* log2(10) */

static inline float ex2(float x) { return __nvvm_ex2_approx_f(x); }
static inline float lg2(float x) { return __nvvm_lg2_approx_f(x); }

float OVL native_exp(float x) { return ex2(x * M_LOG2E_H); }
float OVL native_exp2(float x) { return ex2(x); }
float OVL native_exp10(float x) { return ex2(x * M_LOG2_10_H); }
float OVL native_log(float x) { return lg2(x) * M_LN2_H; }
float OVL native_log2(float x) { return lg2(x); }
float OVL native_log10(float x) { return lg2(x) * M_LOG10_2_H; }
float OVL native_sin(float x) { return __nvvm_sin_approx_f(x); }
float OVL native_cos(float x) { return __nvvm_cos_approx_f(x); }
float OVL native_tan(float x) { return __nvvm_sin_approx_f(x) / __nvvm_cos_approx_f(x); }
float OVL native_powr(float x, float y) { return ex2(y * lg2(x)); }

/* Vector forms, element by element through the scalar ones. */
#define VEC1(fn, n)                                                            \
    float##n OVL fn(float##n x)                                                \
    {                                                                          \
        float##n r;                                                            \
        for (int i = 0; i < n; i++)                                            \
            r[i] = fn(x[i]);                                                   \
        return r;                                                              \
    }
#define VEC2(fn, n)                                                            \
    float##n OVL fn(float##n x, float##n y)                                    \
    {                                                                          \
        float##n r;                                                            \
        for (int i = 0; i < n; i++)                                            \
            r[i] = fn(x[i], y[i]);                                             \
        return r;                                                              \
    }
#define ALLN(M, fn) M(fn, 2) M(fn, 3) M(fn, 4) M(fn, 8) M(fn, 16)
ALLN(VEC1, native_exp)
ALLN(VEC1, native_exp2)
ALLN(VEC1, native_exp10)
ALLN(VEC1, native_log)
ALLN(VEC1, native_log2)
ALLN(VEC1, native_log10)
ALLN(VEC1, native_sin)
ALLN(VEC1, native_cos)
ALLN(VEC1, native_tan)
ALLN(VEC2, native_powr)

#define MAD_HI(t)                                                              \
    t OVL mad_hi(t a, t b, t c) { return mul_hi(a, b) + c; }                   \
    t##2 OVL mad_hi(t##2 a, t##2 b, t##2 c) { return mul_hi(a, b) + c; }       \
    t##3 OVL mad_hi(t##3 a, t##3 b, t##3 c) { return mul_hi(a, b) + c; }       \
    t##4 OVL mad_hi(t##4 a, t##4 b, t##4 c) { return mul_hi(a, b) + c; }       \
    t##8 OVL mad_hi(t##8 a, t##8 b, t##8 c) { return mul_hi(a, b) + c; }       \
    t##16 OVL mad_hi(t##16 a, t##16 b, t##16 c) { return mul_hi(a, b) + c; }
MAD_HI(char)
MAD_HI(uchar)
MAD_HI(short)
MAD_HI(ushort)
MAD_HI(int)
MAD_HI(uint)
MAD_HI(long)
MAD_HI(ulong)

/* cl_khr_int64_base_atomics / cl_khr_int64_extended_atomics: libclc 16
 * has no 64-bit atom_* for NVPTX (hcqcl-cc enables both extensions in
 * clang, so the declarations exist). __sync builtins become atomicrmw /
 * cmpxchg, which the back end selects as atom.{global,shared}.*.b64; the
 * __atomic forms would be library calls (clang gives NVPTX no lock-free
 * width) and __sync min/max exist only for int, so 64-bit min/max are
 * the PTX instructions themselves (sm_32 and later). */
#define ATOM64(AS, SP, T, PT)                                                  \
    T OVL atom_add(volatile AS T *p, T v) { return __sync_fetch_and_add(p, v); } \
    T OVL atom_sub(volatile AS T *p, T v) { return __sync_fetch_and_sub(p, v); } \
    T OVL atom_xchg(volatile AS T *p, T v) { return __sync_swap(p, v); }       \
    T OVL atom_inc(volatile AS T *p) { return __sync_fetch_and_add(p, (T)1); } \
    T OVL atom_dec(volatile AS T *p) { return __sync_fetch_and_sub(p, (T)1); } \
    T OVL atom_cmpxchg(volatile AS T *p, T cmp, T v)                           \
    {                                                                          \
        return __sync_val_compare_and_swap(p, cmp, v);                         \
    }                                                                          \
    T OVL atom_and(volatile AS T *p, T v) { return __sync_fetch_and_and(p, v); } \
    T OVL atom_or(volatile AS T *p, T v) { return __sync_fetch_and_or(p, v); } \
    T OVL atom_xor(volatile AS T *p, T v) { return __sync_fetch_and_xor(p, v); } \
    T OVL atom_min(volatile AS T *p, T v)                                      \
    {                                                                          \
        T r;                                                                   \
        __asm__ volatile("atom." SP ".min." PT " %0, [%1], %2;"                \
                         : "=l"(r) : "l"(p), "l"(v) : "memory");               \
        return r;                                                              \
    }                                                                          \
    T OVL atom_max(volatile AS T *p, T v)                                      \
    {                                                                          \
        T r;                                                                   \
        __asm__ volatile("atom." SP ".max." PT " %0, [%1], %2;"                \
                         : "=l"(r) : "l"(p), "l"(v) : "memory");               \
        return r;                                                              \
    }
ATOM64(__global, "global", long, "s64")
ATOM64(__global, "global", ulong, "u64")
ATOM64(__local, "shared", long, "s64")
ATOM64(__local, "shared", ulong, "u64")

/* async_work_group_copy / async_work_group_strided_copy and prefetch on
 * 3-component vectors: libclc for NVPTX has every other gentype but not
 * these. The spec makes the copies the 4-component ones (a 3-component
 * vector occupies the memory of a 4-component one), done by the
 * work-group's items in turn like libclc's; the event is the one passed,
 * and wait_group_events (libclc: a barrier) completes them. prefetch is a
 * hint that does nothing, as libclc's own are for NVPTX. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define ASYNC3(T3, T4)                                                              \
    event_t OVL async_work_group_strided_copy(__local T3 *dst, const __global T3 *src, \
                                              size_t n, size_t stride, event_t e)  \
    {                                                                               \
        size_t ls = get_local_size(0) * get_local_size(1) * get_local_size(2);      \
        for (size_t i = get_local_linear_id(); i < n; i += ls)                      \
            ((__local T4 *)dst)[i] = ((const __global T4 *)src)[i * stride];        \
        return e;                                                                   \
    }                                                                               \
    event_t OVL async_work_group_strided_copy(__global T3 *dst, const __local T3 *src, \
                                              size_t n, size_t stride, event_t e)  \
    {                                                                               \
        size_t ls = get_local_size(0) * get_local_size(1) * get_local_size(2);      \
        for (size_t i = get_local_linear_id(); i < n; i += ls)                      \
            ((__global T4 *)dst)[i * stride] = ((const __local T4 *)src)[i];        \
        return e;                                                                   \
    }                                                                               \
    event_t OVL async_work_group_copy(__local T3 *dst, const __global T3 *src, size_t n, \
                                      event_t e)                                    \
    {                                                                               \
        return async_work_group_strided_copy(dst, src, n, 1, e);                    \
    }                                                                               \
    event_t OVL async_work_group_copy(__global T3 *dst, const __local T3 *src, size_t n, \
                                      event_t e)                                    \
    {                                                                               \
        return async_work_group_strided_copy(dst, src, n, 1, e);                    \
    }                                                                               \
    void OVL prefetch(const __global T3 *p, size_t n) { (void)p; (void)n; }
ASYNC3(char3, char4)
ASYNC3(uchar3, uchar4)
ASYNC3(short3, short4)
ASYNC3(ushort3, ushort4)
ASYNC3(int3, int4)
ASYNC3(uint3, uint4)
ASYNC3(long3, long4)
ASYNC3(ulong3, ulong4)
ASYNC3(float3, float4)
ASYNC3(double3, double4)

/* nan(code): "a quiet NaN" (OpenCL C 3.0, 6.15.2). libclc 16 sets only
 * the exponent bits, so nan(0) is an infinity; the quiet bit is set here. */
#define NAN_OF(t, u, q)                                                             \
    t OVL nan(u c) { return as_##t(c | (u)q); }                                   \
    t##2 OVL nan(u##2 c) { return as_##t##2(c | (u)q); }                          \
    t##3 OVL nan(u##3 c) { return as_##t##3(c | (u)q); }                          \
    t##4 OVL nan(u##4 c) { return as_##t##4(c | (u)q); }                          \
    t##8 OVL nan(u##8 c) { return as_##t##8(c | (u)q); }                          \
    t##16 OVL nan(u##16 c) { return as_##t##16(c | (u)q); }
NAN_OF(float, uint, 0x7fc00000u)
NAN_OF(double, ulong, 0x7ff8000000000000ul)

/* rotate(x, n) on long and ulong: "each element in v is rotated left by
 * the number of bits specified by the corresponding element in i"
 * (OpenCL C 3.0, 6.15.4), i.e. by n modulo 64. LLVM 16 lowers a 64-bit
 * rotate by a variable amount to shl.b64 / shr.b64 by the amount as it
 * is, and PTX clamps shifts wider than the register: rotate(x, n) was 0
 * for n outside 0..63 (CTS integer_rotate). The shifts are written in PTX
 * here, on the masked amount, out of the optimizer's reach (which would
 * drop the mask: a funnel shift's amount is taken modulo its width). */
__attribute__((always_inline)) ulong hcqcl_rotl64(ulong x, uint n)
{
    ulong r;
    __asm__("{\n\t.reg .b64 l_, h_;\n\t.reg .u32 m_;\n\t"
            "shl.b64 l_, %1, %2;\n\tsub.u32 m_, 64, %2;\n\t"
            "shr.b64 h_, %1, m_;\n\tor.b64 %0, l_, h_;\n\t}"
            : "=l"(r)
            : "l"(x), "r"(n & 63u));
    return r;
}
#define ROTATE64(t)                                                                     \
    t OVL rotate(t x, t n) { return (t)hcqcl_rotl64((ulong)x, (uint)n); }              \
    t##2 OVL rotate(t##2 x, t##2 n) { return (t##2)(rotate(x.s0, n.s0), rotate(x.s1, n.s1)); } \
    t##3 OVL rotate(t##3 x, t##3 n) { return (t##3)(rotate(x.s01, n.s01), rotate(x.s2, n.s2)); } \
    t##4 OVL rotate(t##4 x, t##4 n) { return (t##4)(rotate(x.lo, n.lo), rotate(x.hi, n.hi)); } \
    t##8 OVL rotate(t##8 x, t##8 n) { return (t##8)(rotate(x.lo, n.lo), rotate(x.hi, n.hi)); } \
    t##16 OVL rotate(t##16 x, t##16 n) { return (t##16)(rotate(x.lo, n.lo), rotate(x.hi, n.hi)); }
ROTATE64(long)
ROTATE64(ulong)

/* smoothstep(edge0, edge1, x) with scalar edges and double vectors
 * (OpenCL C 3.0, 6.15.5): libclc 16 has them for float only. As libclc's
 * own: t = clamp((x - edge0) / (edge1 - edge0), 0, 1), t * t * (3 - 2t). */
__attribute__((always_inline)) double hcqcl_smoothstep(double e0, double e1, double x)
{
    double t = (x - e0) / (e1 - e0);
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return t * t * (3.0 - 2.0 * t);
}
double2 OVL smoothstep(double e0, double e1, double2 x)
{
    return (double2)(hcqcl_smoothstep(e0, e1, x.s0), hcqcl_smoothstep(e0, e1, x.s1));
}
double3 OVL smoothstep(double e0, double e1, double3 x)
{
    return (double3)(smoothstep(e0, e1, x.s01), hcqcl_smoothstep(e0, e1, x.s2));
}
double4 OVL smoothstep(double e0, double e1, double4 x)
{
    return (double4)(smoothstep(e0, e1, x.lo), smoothstep(e0, e1, x.hi));
}
double8 OVL smoothstep(double e0, double e1, double8 x)
{
    return (double8)(smoothstep(e0, e1, x.lo), smoothstep(e0, e1, x.hi));
}
double16 OVL smoothstep(double e0, double e1, double16 x)
{
    return (double16)(smoothstep(e0, e1, x.lo), smoothstep(e0, e1, x.hi));
}

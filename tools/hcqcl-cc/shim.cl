/*
 * shim.cl — builtins hcqcl supplies itself, linked before libclc so these
 * definitions win (hcqcl-cc embeds this file and compiles it per build).
 *
 * Work-item functions: libclc's NVPTX library ignores the global work
 * offset and has no get_global_offset/get_work_dim. hcqcl's launcher
 * writes them into the PTX environment registers, which ptxas reads from
 * constant bank 0 at 0x40 + 4 * N:
 *   %envreg0/1, 2/3, 4/5  global offset of dimension 0, 1, 2 (low, high)
 *   %envreg6              work_dim
 *
 * native_*: libclc lowers them to LLVM intrinsics the NVPTX back end
 * cannot select; here they map to the PTX approximate instructions.
 *
 * mad_hi: missing from libclc for NVPTX.
 */

#define ENVREG(n)                                                               \
    ({                                                                          \
        uint r_;                                                                \
        __asm__("mov.u32 %0, %%envreg" #n ";" : "=r"(r_));                      \
        r_;                                                                     \
    })
#define OVL __attribute__((overloadable))

size_t OVL get_global_offset(uint d)
{
    switch (d) {
    case 0: return (size_t)ENVREG(0) | (size_t)ENVREG(1) << 32;
    case 1: return (size_t)ENVREG(2) | (size_t)ENVREG(3) << 32;
    case 2: return (size_t)ENVREG(4) | (size_t)ENVREG(5) << 32;
    default: return 0;
    }
}

uint OVL get_work_dim(void) { return ENVREG(6); }

size_t OVL get_global_id(uint d)
{
    if (d > 2)
        return 0;
    return get_group_id(d) * get_local_size(d) + get_local_id(d) + get_global_offset(d);
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

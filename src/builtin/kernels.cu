// kernels.cu — hcqcl's built-in device kernels, compiled at library build
// time with `nvcc -cubin -arch=sm_90 -O3` and embedded in the library
// (src/builtin/builtin.c loads them; CMakeLists.txt builds them).
//
// The emulated device runs these through host versions in builtin_emu.c,
// which split the work between blocks exactly as the code below does: keep
// the two in step (the work split is documented in builtin.h).
//
// hcq_copy_d2d*(dst, src, size): copy size bytes, GPU VA src -> dst, the
// ranges disjoint. The body moves units of the widest power of two up to
// 16 bytes that dst and src share modulo 16 (w = lowest set bit of
// (dst ^ src) | 16); the bytes before dst reaches w alignment (head) and the
// bytes after the last whole unit (tail), both under w, go byte by byte.
//
// Units are dealt out in rows of blockDim.x * U consecutive units: block b
// takes rows b, b + gridDim.x, b + 2 gridDim.x, ...; inside a row thread t
// moves units t, t + blockDim.x, ..., t + (U - 1) blockDim.x, so each warp
// instruction covers 32 consecutive units (512 bytes for w = 16) and each
// thread has U independent loads in flight before its first store. Loads
// go through the non-coherent path without allocating in L1; stores are
// streaming (evict-first): a copy never reads what it wrote.

#include <stdint.h>

__device__ __forceinline__ uint4 ld_stream(const uint4 *p)
{
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p));
    return v;
}
__device__ __forceinline__ uint2 ld_stream(const uint2 *p)
{
    uint2 v;
    asm("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
    return v;
}
__device__ __forceinline__ unsigned ld_stream(const unsigned *p) { return __ldg(p); }
__device__ __forceinline__ unsigned short ld_stream(const unsigned short *p) { return __ldg(p); }
__device__ __forceinline__ unsigned char ld_stream(const unsigned char *p) { return __ldg(p); }

// A unit's load and store: streaming (above, and st.global.cs), or plain
// (allocating in L1 and L2 as usual) for the "P" variants.
template <typename T, bool PLAIN> __device__ __forceinline__ T ld_unit(const T *p)
{
    return PLAIN ? *p : ld_stream(p);
}
template <typename T, bool PLAIN> __device__ __forceinline__ void st_unit(T *p, T v)
{
    if (PLAIN)
        *p = v;
    else
        __stcs(p, v);
}

template <typename T, int U, bool PLAIN = false>
__device__ __forceinline__ void copy_units(T *__restrict__ d, const T *__restrict__ s, uint64_t n)
{
    const uint64_t bd = blockDim.x;
    const uint64_t step = (uint64_t)gridDim.x * bd * U;
    uint64_t i = (uint64_t)blockIdx.x * bd * U + threadIdx.x;
    // Whole rows for this thread: all U units in range.
    for (; i + (U - 1) * bd < n; i += step) {
        T v[U];
#pragma unroll
        for (int k = 0; k < U; k++)
            v[k] = ld_unit<T, PLAIN>(s + i + k * bd);
#pragma unroll
        for (int k = 0; k < U; k++)
            st_unit<T, PLAIN>(d + i + k * bd, v[k]);
    }
    // At most one partial row is left (the next one starts past n).
#pragma unroll
    for (int k = 0; k < U; k++) {
        uint64_t j = i + k * bd;
        if (j < n)
            st_unit<T, PLAIN>(d + j, ld_unit<T, PLAIN>(s + j));
    }
}

template <int U, bool PLAIN = false>
__device__ __forceinline__ void copy_d2d(uint64_t dst, uint64_t src, uint64_t size)
{
    const uint64_t x = (dst ^ src) | 16;
    const uint64_t w = x & (0 - x);
    // w is a power of two: shifts, not a 64-bit division in every thread
    // (a software routine of ~100 instructions, 2.5 % of a 256 MiB copy).
    const unsigned lw = (unsigned)__ffsll((long long)w) - 1;
    uint64_t head = (0 - dst) & (w - 1);
    if (head > size)
        head = size;
    const uint64_t n = (size - head) >> lw;
    const uint64_t tail_at = head + (n << lw);
    const unsigned char *sb = (const unsigned char *)src;
    unsigned char *db = (unsigned char *)dst;
    if (blockIdx.x == 0 && threadIdx.x < head)
        db[threadIdx.x] = sb[threadIdx.x];
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x < size - tail_at)
        db[tail_at + threadIdx.x] = sb[tail_at + threadIdx.x];
    switch (w) {
    case 16:
        copy_units<uint4, U, PLAIN>((uint4 *)(db + head), (const uint4 *)(sb + head), n);
        break;
    case 8:
        copy_units<uint2, U, PLAIN>((uint2 *)(db + head), (const uint2 *)(sb + head), n);
        break;
    case 4:
        copy_units<unsigned, U, PLAIN>((unsigned *)(db + head), (const unsigned *)(sb + head), n);
        break;
    case 2:
        copy_units<unsigned short, U, PLAIN>((unsigned short *)(db + head),
                                      (const unsigned short *)(sb + head), n);
        break;
    default:
        copy_units<unsigned char, U, PLAIN>(db + head, sb + head, n);
        break;
    }
}

// 4 units per thread and row (builtin.h: the default is hcq_copy_d2d_u2p).
extern "C" __global__ void __launch_bounds__(512) hcq_copy_d2d(uint64_t dst, uint64_t src,
                                                               uint64_t size)
{
    copy_d2d<4>(dst, src, size);
}

// The same with 2 and 8 units per thread and row: for tuning runs
// (tests/builtin/builtin_bench) that compare them with the default.
extern "C" __global__ void __launch_bounds__(512) hcq_copy_d2d_u2(uint64_t dst, uint64_t src,
                                                                  uint64_t size)
{
    copy_d2d<2>(dst, src, size);
}
extern "C" __global__ void __launch_bounds__(512) hcq_copy_d2d_u8(uint64_t dst, uint64_t src,
                                                                  uint64_t size)
{
    copy_d2d<8>(dst, src, size);
}

// One unit per thread and row, streaming; and 1 and 2 units with plain
// loads and stores: the shape of a one-element-per-work-item copy kernel.
extern "C" __global__ void __launch_bounds__(512) hcq_copy_d2d_u1(uint64_t dst, uint64_t src,
                                                                  uint64_t size)
{
    copy_d2d<1>(dst, src, size);
}
extern "C" __global__ void __launch_bounds__(512) hcq_copy_d2d_u1p(uint64_t dst, uint64_t src,
                                                                   uint64_t size)
{
    copy_d2d<1, true>(dst, src, size);
}
extern "C" __global__ void __launch_bounds__(512) hcq_copy_d2d_u2p(uint64_t dst, uint64_t src,
                                                                   uint64_t size)
{
    copy_d2d<2, true>(dst, src, size);
}

// hcq_copy_d2d_a16*: the aligned case alone — dst, src and size multiples
// of 16 and a grid of exactly one block per row (hcq_builtin_copy_ex sees
// to both, else it runs the plain variant of the same U): no head, tail,
// loop or unit-size switch, a load and a store per unit, like a
// one-element-per-work-item copy kernel.
template <int U>
__device__ __forceinline__ void copy_a16(uint64_t dst, uint64_t src, uint64_t size)
{
    uint4 *__restrict__ d = (uint4 *)dst;
    const uint4 *__restrict__ s = (const uint4 *)src;
    const uint64_t n = size >> 4;
    const uint64_t i = (uint64_t)blockIdx.x * (blockDim.x * U) + threadIdx.x;
    uint4 v[U];
#pragma unroll
    for (int k = 0; k < U; k++)
        if (i + k * blockDim.x < n)
            v[k] = s[i + k * blockDim.x];
#pragma unroll
    for (int k = 0; k < U; k++)
        if (i + k * blockDim.x < n)
            d[i + k * blockDim.x] = v[k];
}
extern "C" __global__ void __launch_bounds__(512) hcq_copy_d2d_a16u1(uint64_t dst, uint64_t src,
                                                                     uint64_t size)
{
    copy_a16<1>(dst, src, size);
}
extern "C" __global__ void __launch_bounds__(512) hcq_copy_d2d_a16u2(uint64_t dst, uint64_t src,
                                                                     uint64_t size)
{
    copy_a16<2>(dst, src, size);
}

// hcq_fill(dst, size, q): fill size bytes at dst with a pattern of a power
// of two up to 128 bytes. builtin.c passes the pattern repeated to 128
// bytes and rotated by the head (bytes before dst is 16-byte aligned,
// at most size): byte j of the range is q[(j - head) mod 128]. The body
// is 16-byte units split in rows as for the copy (U = 4); unit i holds
// q's 16-byte word i mod 8, and since rows start at multiples of 8 units
// and blockDim.x is a multiple of 8, that is word threadIdx.x mod 8 for
// every unit a thread stores. Head bytes go in block 0, tail bytes in
// the last block, one per thread.
struct hcq_fill_pattern {
    uint4 v[8];
};

// Word k of q, chosen with selects: indexing the parameter by a register
// would copy it to local memory.
__device__ __forceinline__ uint4 fill_word(const hcq_fill_pattern &q, unsigned k)
{
    uint4 v = q.v[0];
#pragma unroll
    for (unsigned i = 1; i < 8; i++)
        if (k == i)
            v = q.v[i];
    return v;
}

__device__ __forceinline__ unsigned char fill_byte(const hcq_fill_pattern &q, unsigned m)
{
    uint4 v = fill_word(q, (m >> 4) & 7);
    unsigned w = (m >> 2) & 3;
    unsigned x = w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
    return (unsigned char)(x >> (8 * (m & 3)));
}

extern "C" __global__ void __launch_bounds__(512) hcq_fill(uint64_t dst, uint64_t size,
                                                           hcq_fill_pattern q)
{
    uint64_t head = (0 - dst) & 15;
    if (head > size)
        head = size;
    const uint64_t n = (size - head) / 16;
    const uint64_t tail_at = head + n * 16;
    unsigned char *db = (unsigned char *)dst;
    const unsigned t = threadIdx.x;
    if (blockIdx.x == 0 && t < head)
        db[t] = fill_byte(q, (unsigned)(t - head));
    if (blockIdx.x == gridDim.x - 1 && t < size - tail_at)
        db[tail_at + t] = fill_byte(q, (unsigned)(tail_at - head + t));

    const int U = 4;
    const uint4 v = fill_word(q, t & 7);
    uint4 *d = (uint4 *)(db + head);
    const uint64_t bd = blockDim.x;
    const uint64_t step = (uint64_t)gridDim.x * bd * U;
    uint64_t i = (uint64_t)blockIdx.x * bd * U + t;
    for (; i + (U - 1) * bd < n; i += step) {
#pragma unroll
        for (int k = 0; k < U; k++)
            __stcs(d + i + k * bd, v);
    }
#pragma unroll
    for (int k = 0; k < U; k++) {
        uint64_t j = i + k * bd;
        if (j < n)
            __stcs(d + j, v);
    }
}

// hcq_copy_d2d_bulk(dst, src, size): the copy through the Tensor Memory
// Accelerator's 1-D bulk copies (cp.async.bulk), global -> shared ->
// global, for tuning runs against the load/store kernels. Only the body
// of a w = 16 copy goes this way: it is cut in chunks of
// HCQ_BULK_CHUNK bytes (the last one shorter, a multiple of 16), dealt
// to blocks round robin (block b: chunks b, b + gridDim.x, ...), and
// thread 0 of each block streams its chunks through HCQ_BULK_STAGES
// shared-memory buffers (dynamic shared memory: STAGES x CHUNK bytes),
// keeping STAGES - 1 loads in flight. Head and tail bytes are as for the
// other copies; w < 16 copies take the U = 4 path.
#define HCQ_BULK_CHUNK 16384u
#define HCQ_BULK_STAGES 6u

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void bulk_load(uint32_t sdst, uint64_t gsrc, uint32_t bytes,
                                          uint32_t bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :
                 : "r"(bar), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];"
                 :
                 : "r"(sdst), "l"(gsrc), "r"(bytes), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void bulk_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
}

__device__ __forceinline__ void bulk_store(uint64_t gdst, uint32_t ssrc, uint32_t bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 :
                 : "l"(gdst), "r"(ssrc), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(512) hcq_copy_d2d_bulk(uint64_t dst, uint64_t src,
                                                                    uint64_t size)
{
    const uint64_t x = (dst ^ src) | 16;
    if ((x & (0 - x)) != 16) {
        copy_d2d<4>(dst, src, size);
        return;
    }
    __shared__ uint64_t bars[HCQ_BULK_STAGES];
    extern __shared__ __align__(128) unsigned char stage[];
    uint64_t head = (0 - dst) & 15;
    if (head > size)
        head = size;
    const uint64_t body = (size - head) / 16 * 16;
    const uint64_t tail_at = head + body;
    const unsigned char *sb = (const unsigned char *)src;
    unsigned char *db = (unsigned char *)dst;
    if (blockIdx.x == 0 && threadIdx.x < head)
        db[threadIdx.x] = sb[threadIdx.x];
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x < size - tail_at)
        db[tail_at + threadIdx.x] = sb[tail_at + threadIdx.x];
    if (threadIdx.x != 0)
        return;

    const uint64_t nchunks = (body + HCQ_BULK_CHUNK - 1) / HCQ_BULK_CHUNK;
    const uint64_t first = blockIdx.x, step = gridDim.x;
    if (first >= nchunks)
        return;
    // Chunks of this block: first + j * step for j < mine.
    const uint64_t mine = (nchunks - first + step - 1) / step;
    for (unsigned s = 0; s < HCQ_BULK_STAGES; s++)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[s]))
                     : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");

    const uint64_t gsrc = src + head, gdst = dst + head;
    const uint32_t sbase = smem_addr(stage);
    // Load j goes into stage j % STAGES.
    for (uint64_t j = 0; j < mine && j < HCQ_BULK_STAGES - 1; j++) {
        uint64_t off = (first + j * step) * HCQ_BULK_CHUNK;
        uint32_t bytes = (uint32_t)min((uint64_t)HCQ_BULK_CHUNK, body - off);
        bulk_load(sbase + (uint32_t)(j % HCQ_BULK_STAGES) * HCQ_BULK_CHUNK, gsrc + off, bytes,
                  smem_addr(&bars[j % HCQ_BULK_STAGES]));
    }
    for (uint64_t j = 0; j < mine; j++) {
        const uint32_t s = (uint32_t)(j % HCQ_BULK_STAGES);
        const uint64_t off = (first + j * step) * HCQ_BULK_CHUNK;
        const uint32_t bytes = (uint32_t)min((uint64_t)HCQ_BULK_CHUNK, body - off);
        bulk_wait(smem_addr(&bars[s]), (uint32_t)((j / HCQ_BULK_STAGES) & 1));
        bulk_store(gdst + off, sbase + s * HCQ_BULK_CHUNK, bytes);
        // Refill: load j + STAGES - 1 goes into the stage store j - 1 used;
        // that store must have finished reading it.
        const uint64_t l = j + HCQ_BULK_STAGES - 1;
        if (l < mine) {
            asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
            const uint64_t loff = (first + l * step) * HCQ_BULK_CHUNK;
            const uint32_t ls = (uint32_t)(l % HCQ_BULK_STAGES);
            bulk_load(sbase + ls * HCQ_BULK_CHUNK, gsrc + loff,
                      (uint32_t)min((uint64_t)HCQ_BULK_CHUNK, body - loff),
                      smem_addr(&bars[ls]));
        }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

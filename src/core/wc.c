/*
 * wc.c — the CPU's writes to and reads from write-combined device memory
 * (vidmem seen through BAR1).
 *
 * Writes go in whole 64-byte lines (hcq_wc_copy_lines). Reads are the
 * slow direction: an ordinary load of write-combined memory is uncached,
 * one bus read per load, each a round trip to the GPU and back (a memcpy
 * out of such a view read at about 4 MB/s on the H200's host,
 * docs/gpu-runs.md). A streaming load (MOVNTDQA, SSE4.1) of write-
 * combined memory fetches the whole 64-byte line into a streaming load
 * buffer, which the next loads of that line read, and the core keeps
 * several such lines in flight: hcq_mem_read reads a CPU view that way
 * (bench/wc_cost measures both).
 */
#include <stdatomic.h>
#include <string.h>

#include "core/priv.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_STREAM_LOAD 1
#endif

/* Copy whole 64-byte lines in address order, each written once, to
 * write-combined memory: a line the core's buffers hold complete leaves
 * for the bus at once. memcpy's overlapping vector stores at the ends of
 * a copy leave partial lines that a later fence or locked instruction
 * must wait for: on the H200's host a launch's bank and QMD cost 300-330
 * ns that way against 190-220 in lines (bench/wc_cost). bytes is a
 * multiple of 64; dst is 64-byte aligned. */
void hcq_wc_copy_lines(void *dst, const void *src, uint32_t bytes)
{
    uint64_t *d = __builtin_assume_aligned(dst, 64);
    const uint8_t *s = src;
    for (uint32_t i = 0; i < bytes / 8; i += 8) {
        uint64_t v[8];
        memcpy(v, s + 8 * i, sizeof(v)); /* cached source, any alignment */
        d[i + 0] = v[0];
        d[i + 1] = v[1];
        d[i + 2] = v[2];
        d[i + 3] = v[3];
        d[i + 4] = v[4];
        d[i + 5] = v[5];
        d[i + 6] = v[6];
        d[i + 7] = v[7];
        /* One line at a time: the compiler must not merge or reorder. */
        __asm__ volatile("" ::: "memory");
    }
}

#ifdef HAVE_STREAM_LOAD
/* One 16-byte streaming load of the aligned block at p. An instruction the
 * compiler cannot see through: as an intrinsic it is an ordinary load to
 * clang, whose loop idioms then turn read_stream's loop into a memmove of
 * plain loads. */
__attribute__((target("sse4.1"))) static inline __m128i load16(const uint8_t *p)
{
    __m128i v;
    __asm__ volatile("movntdqa %1, %0" : "=x"(v) : "m"(*(const __m128i *)(uintptr_t)p));
    return v;
}

/* Bytes [from, from + k) of the aligned 16-byte block at block, to dst. */
__attribute__((target("sse4.1"))) static void load_part(uint8_t *dst, const uint8_t *block,
                                                        size_t from, size_t k)
{
    uint8_t b[16];
    _mm_storeu_si128((__m128i *)b, load16(block));
    memcpy(dst, b + from, k);
}

/* [src, src + n) with streaming loads. The first and last loads read the
 * whole aligned 16-byte blocks holding the ends (never another page than
 * the bytes asked for) and keep the bytes asked for. */
__attribute__((target("sse4.1"))) static void read_stream(uint8_t *dst, const uint8_t *src,
                                                          size_t n)
{
    /* Loads of write-combined memory are weakly ordered: none may pass
     * the loads that decided to read (a semaphore that said the GPU
     * wrote these bytes), and a line an earlier streaming load left
     * buffered must not be read again stale. */
    _mm_mfence();
    const uintptr_t head = (uintptr_t)src & 15;
    if (head) {
        const size_t k = UTIL_MIN(n, 16 - head);
        load_part(dst, src - head, head, k);
        dst += k;
        src += k;
        n -= k;
    }
    /* Four lines per step: sixteen loads issued before their stores, so
     * that the fetches of four lines overlap. */
    for (; n >= 256; n -= 256, src += 256, dst += 256) {
        __m128i v[16];
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++)
            v[i] = load16(src + 16 * i);
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++)
            _mm_storeu_si128((__m128i *)(dst + 16 * i), v[i]);
    }
    for (; n >= 16; n -= 16, src += 16, dst += 16)
        _mm_storeu_si128((__m128i *)dst, load16(src));
    if (n)
        load_part(dst, src, 0, n);
}

static bool have_sse41(void)
{
    static _Atomic int known; /* 0 unknown, 1 no, 2 yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("sse4.1") ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
#endif

void hcq_wc_read(void *dst, const void *src, size_t n)
{
    if (!n)
        return;
#ifdef HAVE_STREAM_LOAD
    if (have_sse41()) {
        read_stream(dst, src, n);
        return;
    }
#endif
    atomic_thread_fence(memory_order_seq_cst);
    memcpy(dst, src, n);
}

void hcq_mem_read(const struct hcq_mem *m, uint64_t off, void *dst, size_t n)
{
    const uint8_t *src = (const uint8_t *)m->cpu + off;
    if (m->kind == HCQ_MEM_DEVICE_MAPPED) {
        hcq_wc_read(dst, src, n);
    } else {
        atomic_thread_fence(memory_order_acquire); /* after the loads before it */
        memcpy(dst, src, n);
    }
}

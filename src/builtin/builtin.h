/*
 * builtin.h — hcqcl's built-in device kernels: what the core launches by
 * itself, without an application program (a device-to-device copy that
 * runs at memory bandwidth on the compute engine instead of one copy
 * engine).
 *
 * src/builtin is part of the core: builtin.c uses the core's private
 * structures, and src/api reaches it only through hcq.h
 * (hcq_builtin_prepare, hcq_builtin_copy). This header is for the files
 * of src/builtin and for white-box tests and tuning runs
 * (tests/builtin).
 *
 * Build: when nvcc is found, CMakeLists.txt compiles kernels.cu for sm_90
 * and embeds the cubin (hcq_builtin_cubin[]), defining
 * HCQCL_BUILTIN_KERNELS=1; otherwise the library has no built-in kernels
 * and hcq_builtin_prepare() answers -ENOTSUP.
 *
 * The copy kernels' work split (kernels.cu and builtin_emu.c must agree):
 *   x = (dst ^ src) | 16, w = x & -x         unit bytes: 16, 8, 4, 2 or 1
 *   head = min((-dst) & (w - 1), size)       bytes before the first unit
 *   n = (size - head) / w                    units, from dst + head
 *   tail = size - head - n * w               bytes after the last unit
 * Block 0 copies the head bytes (thread t: byte t), the last block the
 * tail bytes. Units go in rows of R = blockDim.x * U: block b takes rows
 * b, b + gridDim.x, ...; in a row starting at unit r, thread t moves
 * units r + t + k * blockDim.x for k < U (those below n). So block b
 * writes exactly the units [r, min(r + R, n)) of each of its rows.
 */
#ifndef HCQCL_BUILTIN_BUILTIN_H
#define HCQCL_BUILTIN_BUILTIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/hcq.h"

/* The copy kernels, by units per thread and row (U). */
enum hcq_builtin_copy_variant {
    HCQ_BUILTIN_COPY_U4, /* "hcq_copy_d2d" */
    HCQ_BUILTIN_COPY_U2, /* "hcq_copy_d2d_u2" */
    HCQ_BUILTIN_COPY_U8, /* "hcq_copy_d2d_u8" */
    /* "hcq_copy_d2d_bulk": the w = 16 body in chunks of
     * HCQ_BUILTIN_BULK_CHUNK bytes (the last one shorter) dealt to blocks
     * round robin (block b: chunks b, b + gridDim.x, ...), moved by
     * thread 0 with TMA bulk copies through HCQ_BUILTIN_BULK_STAGES
     * shared-memory buffers; head and tail as above; w < 16 copies split
     * as U4. */
    HCQ_BUILTIN_COPY_BULK,
    HCQ_BUILTIN_COPY_U1,  /* "hcq_copy_d2d_u1" */
    HCQ_BUILTIN_COPY_U1P, /* "hcq_copy_d2d_u1p": plain loads and stores */
    HCQ_BUILTIN_COPY_U2P, /* "hcq_copy_d2d_u2p": plain loads and stores; the one
                           * hcq_builtin_copy uses */
    /* "hcq_copy_d2d_a16u1" / "_a16u2": U = 1 / 2 for dst, src and size all
     * multiples of 16, one block per row and no more; any other copy or
     * block count given runs U1P / U2P instead. */
    HCQ_BUILTIN_COPY_A16U1,
    HCQ_BUILTIN_COPY_A16U2,
    HCQ_BUILTIN_COPY_VARIANTS
};

/* The bulk variant's chunk and stages (kernels.cu HCQ_BULK_*: keep equal)
 * and blocks per SM (two fit with STAGES x CHUNK of shared memory each). */
enum {
    HCQ_BUILTIN_BULK_CHUNK = 16384,
    HCQ_BUILTIN_BULK_STAGES = 6,
    HCQ_BUILTIN_BULK_BLOCKS_PER_SM = 2,
};

/* Kernel name and U of a variant (NULL / 0 for an unknown one). */
const char *hcq_builtin_copy_name(enum hcq_builtin_copy_variant v);
unsigned hcq_builtin_copy_unroll(enum hcq_builtin_copy_variant v);

/* Launch shape of hcq_builtin_copy: HCQ_BUILTIN_COPY_DEFAULT with
 * HCQ_BUILTIN_COPY_THREADS threads per block, one block per row of the
 * split above (up to the grid limit, past which rows loop): the fastest
 * shape builtin_bench found on the H200 for 256 MiB (GPU timestamps around
 * 20 launches, each ordered after the one before): the aligned kernel, 2
 * units x 128 threads, 4176 GB/s (1 GiB: 4264), against 4115 for the
 * general plain kernel of that shape and 4178 for aligned 1 x 256; an
 * unaligned copy runs the general one (U2P). Streaming loads and stores
 * lose in every shape (U2 x 128: 4069); 4 units x 256 threads 3919.
 * hcq_builtin_fill runs HCQ_BUILTIN_FILL_THREADS threads per block, 4
 * units each. */
#define HCQ_BUILTIN_COPY_DEFAULT HCQ_BUILTIN_COPY_A16U2
enum { HCQ_BUILTIN_COPY_THREADS = 128, HCQ_BUILTIN_FILL_THREADS = 256 };

/* hcq_builtin_copy with the kernel and launch shape chosen by the caller
 * (tuning runs): blocks 0 = the default rule above for that variant and
 * threads; threads a multiple of 32 in 32..512. Same contract as
 * hcq_builtin_copy otherwise; -EINVAL for a bad variant or threads. */
int hcq_builtin_copy_ex(struct hcq_queue *compute_q, uint64_t dst, uint64_t src, uint64_t size,
                        enum hcq_builtin_copy_variant v, uint32_t blocks, uint32_t threads);

/* Blocks the default rule gives for a copy (tests compare the emulated
 * device's work split with it). */
uint32_t hcq_builtin_copy_blocks(const struct hcq_device_info *di, uint64_t dst, uint64_t src,
                                 uint64_t size, unsigned unroll, uint32_t threads);

struct emu_kernel_registry;
/* Registers the embedded cubin and the host versions of its kernels with
 * the emulated device (emu_kernel.h shape). builtin.c calls it once,
 * before the first load on an emulated device. */
int hcq_builtin_emu_register(struct emu_kernel_registry *reg);

#if HCQCL_BUILTIN_KERNELS
/* Generated at build time from kernels.cu (tests/kernels/embed.cmake). */
extern const unsigned char hcq_builtin_cubin[];
extern const size_t hcq_builtin_cubin_size;
#endif

#endif

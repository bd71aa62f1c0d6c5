/*
 * emu_kernel.h — how host implementations of kernels plug into the
 * emulated device.
 *
 * The emulated GPU cannot run SASS. When a QMD launches code, the model
 * compares the code bytes at the QMD's program address with the `.text.<name>`
 * section of every registered cubin; the kernel found that way runs on the
 * CPU through the host function registered for (cubin, name). No match is a
 * channel error naming the program address (and the kernel, if only the
 * host function is missing).
 *
 * A kernel library is a shared object exporting
 *
 *     int hcqcl_emu_register_kernels(struct emu_kernel_registry *reg);
 *
 * which calls reg->add_cubin() for each cubin it knows (embedded bytes;
 * the registry copies them) and reg->add() for each host function. The
 * emulated device loads every library named in HCQCL_EMU_KERNELS (a ':'
 * separated list of paths) before the first launch; a process may also
 * register its own with emu_register_kernels().
 *
 * The host function runs ONE thread block (all its threads: it loops
 * over thread ids itself, splitting at barriers). Blocks of one grid may
 * run concurrently on several model threads, in any order.
 */
#ifndef HCQCL_EMU_EMU_KERNEL_H
#define HCQCL_EMU_EMU_KERNEL_H

#include <stddef.h>
#include <stdint.h>

struct emu_block {
    uint32_t grid[3];     /* gridDim  (CTAs)      */
    uint32_t block[3];    /* blockDim (threads)   */
    uint32_t block_id[3]; /* blockIdx             */
    /* Parameter block: cbuf0 at the kernel's EIATTR_PARAM_CBANK offset,
     * param_size bytes, laid out per EIATTR_KPARAM_INFO. */
    const uint8_t *params;
    uint32_t param_size;
    /* The whole constant bank 0 as launched (dims at 0x00, envregs at
     * 0x40: hcqcl-cc kernels read the OpenCL work-item values there; see
     * emu_envreg() and the emu_cl_* helpers below). */
    const uint8_t *cbuf0;
    uint32_t cbuf0_size;
    /* The block's shared memory window, user part: byte 0 is what the
     * kernel addresses as shared offset `shared_base` (0x400 on sm_90,
     * after the reserved 1 KiB). shared_size = static + dynamic bytes. */
    uint8_t *shared;
    uint32_t shared_size;
    uint32_t shared_base;
    /* Translate a GPU virtual address to host memory. Returns NULL when
     * [va, va+len) is not mapped; the model then records an MMU fault on
     * the channel and the host function must return at once. */
    void *(*ptr)(const struct emu_block *b, uint64_t va, uint64_t len);
    void *model; /* private to the model */
    /* Constant banks as bound in the QMD (GPU VA and bytes; 0 = unbound;
     * index 0 is the launch's cbuf0). sm_90 cubins: bank 3 holds
     * __constant__ data, bank 4 the relocated addresses of __device__
     * globals. Read them through ptr(). */
    uint64_t cbuf_va[8];
    uint32_t cbuf_size[8];
};

typedef void (*emu_kernel_fn)(const struct emu_block *b);

struct emu_kernel_registry {
    /* Copy a cubin (ELF) into the registry; its kernels' code becomes
     * matchable. 0, or -EINVAL for a file that is not a cubin. */
    int (*add_cubin)(struct emu_kernel_registry *reg, const void *data, size_t size);
    /* Host function for every registered kernel called `name`. */
    int (*add)(struct emu_kernel_registry *reg, const char *name, emu_kernel_fn fn);
    void *model; /* private */
};

typedef int (*emu_register_kernels_fn)(struct emu_kernel_registry *reg);
#define EMU_REGISTER_KERNELS_SYMBOL "hcqcl_emu_register_kernels"

/* Register kernels from inside the process (tests, or a program linking
 * its host kernels in) exactly as a library in HCQCL_EMU_KERNELS would.
 * Any thread; returns what fn returns. */
int emu_register_kernels(emu_register_kernels_fn fn);

/* Helpers for host functions: read parameter bytes at an offset relative
 * to the parameter block. */
static inline uint64_t emu_param_u64(const struct emu_block *b, uint32_t off)
{
    uint64_t v = 0;
    if (off + 8 <= b->param_size)
        __builtin_memcpy(&v, b->params + off, 8);
    return v;
}
static inline uint32_t emu_param_u32(const struct emu_block *b, uint32_t off)
{
    uint32_t v = 0;
    if (off + 4 <= b->param_size)
        __builtin_memcpy(&v, b->params + off, 4);
    return v;
}

/* PTX %envreg<i> as the launcher wrote it: constant bank 0 at 0x40 +
 * 4 * i, i = 0..31 (0 when the bank is shorter). */
#define EMU_CBUF0_ENVREG 0x40u
static inline uint32_t emu_envreg(const struct emu_block *b, unsigned i)
{
    uint32_t v = 0;
    if (b->cbuf0 && i < 32 && EMU_CBUF0_ENVREG + 4 * i + 4 <= b->cbuf0_size)
        __builtin_memcpy(&v, b->cbuf0 + EMU_CBUF0_ENVREG + 4 * i, 4);
    return v;
}

/* The OpenCL NDRange in the envregs (the layout is enum hcq_envreg of
 * core/hcq.h; src/builtin/builtin.c asserts these agree). The work-item
 * functions of the work-item with local id t in dimension d < 3 of block
 * b, computed as hcqcl-cc's shim computes them on the GPU. */
#define EMU_ENVREG_BASE 0u        /* u64 per dimension: this launch's first item */
#define EMU_ENVREG_WORK_DIM 6u    /* u32 */
#define EMU_ENVREG_OFFSET 8u      /* u64 per dimension */
#define EMU_ENVREG_GLOBAL 14u     /* u64 per dimension */
#define EMU_ENVREG_GROUP0 20u     /* u32 per dimension: this launch's first group */
#define EMU_ENVREG_NUM_GROUPS 23u /* u32 per dimension */
#define EMU_ENVREG_ENQ_LOCAL 26u  /* u32 per dimension */
static inline uint64_t emu_envreg64(const struct emu_block *b, unsigned i)
{
    return (uint64_t)emu_envreg(b, i) | (uint64_t)emu_envreg(b, i + 1) << 32;
}
static inline uint32_t emu_cl_work_dim(const struct emu_block *b)
{
    return emu_envreg(b, EMU_ENVREG_WORK_DIM);
}
static inline uint64_t emu_cl_global_offset(const struct emu_block *b, unsigned d)
{
    return emu_envreg64(b, EMU_ENVREG_OFFSET + 2 * d);
}
static inline uint64_t emu_cl_global_size(const struct emu_block *b, unsigned d)
{
    return emu_envreg64(b, EMU_ENVREG_GLOBAL + 2 * d);
}
static inline uint64_t emu_cl_group_id(const struct emu_block *b, unsigned d)
{
    return (uint64_t)emu_envreg(b, EMU_ENVREG_GROUP0 + d) + b->block_id[d];
}
static inline uint64_t emu_cl_num_groups(const struct emu_block *b, unsigned d)
{
    return emu_envreg(b, EMU_ENVREG_NUM_GROUPS + d);
}
static inline uint64_t emu_cl_enqueued_local_size(const struct emu_block *b, unsigned d)
{
    return emu_envreg(b, EMU_ENVREG_ENQ_LOCAL + d);
}
/* get_global_id: this launch's first item (BASE) + ctaid * ntid + tid. */
static inline uint64_t emu_cl_global_id(const struct emu_block *b, unsigned d, uint32_t t)
{
    return emu_envreg64(b, EMU_ENVREG_BASE + 2 * d) + (uint64_t)b->block_id[d] * b->block[d] + t;
}

#endif

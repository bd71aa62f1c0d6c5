/*
 * nv.h — NVIDIA hardware encodings: pushbuffer method headers, the host
 * (GPFIFO), compute and copy class methods hcqcl emits, GP entries, USERD
 * and usermode offsets, QMD layouts (V03_00 Ampere/Ada, V04_00 Hopper,
 * V05_00 Blackwell names), constant bank 0 layout, shared-memory carve-out
 * and local-memory sizing.
 *
 * Users: src/core (encodes: queue.c, launch.c, program.c) and src/emu
 * (decodes the same pushbuffers and QMDs). Everything here is pure: no
 * state, no locks, callable from any thread.
 *
 * Names follow NVIDIA's class headers (open-gpu-doc classes/host/clc86f.h,
 * classes/compute/clcbc0.h + clcbc0qmd.h, classes/dma-copy/clc8b5.h,
 * clc361.h). A bit field is written as the headers write it, "hi:lo", and
 * read with NV_FIELD_* below (the "0 ? hi:lo" idiom picks lo, "1 ? hi:lo"
 * picks hi).
 */
#ifndef HCQCL_NV_NV_H
#define HCQCL_NV_NV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvdrv/nvdrv.h"

/* ------------------------------------------------------------------ */
/* Bit fields "hi:lo" inside one 32-bit word                            */
/* ------------------------------------------------------------------ */

#define NV_FIELD_LO(f) ((0 ? f) % 32)
#define NV_FIELD_HI(f) ((1 ? f) % 32)
#define NV_FIELD_MASK(f) (0xFFFFFFFFu >> (31 - NV_FIELD_HI(f) + NV_FIELD_LO(f)))
/* Value v placed in field f (excess bits dropped). */
#define NV_FIELD_NUM(f, v) ((((uint32_t)(v)) & NV_FIELD_MASK(f)) << NV_FIELD_LO(f))
/* Field f read out of word w. */
#define NV_FIELD_GET(f, w) ((((uint32_t)(w)) >> NV_FIELD_LO(f)) & NV_FIELD_MASK(f))

/* ------------------------------------------------------------------ */
/* Class ids                                                            */
/* ------------------------------------------------------------------ */

/* The class ids live with the driver ABI (nvdrv/nvdrv.h), which names every
 * class hcqcl allocates; the method and QMD encodings below belong to them. */

/* ------------------------------------------------------------------ */
/* Pushbuffer method headers (clc86f.h NVC86F_DMA_*)                    */
/* ------------------------------------------------------------------ */

/* header = opcode 31:29 | count 28:16 | subchannel 15:13 | method>>2 11:0 */
#define NVC86F_DMA_METHOD_ADDRESS 11:0
#define NVC86F_DMA_METHOD_SUBCHANNEL 15:13
#define NVC86F_DMA_METHOD_COUNT 28:16
#define NVC86F_DMA_IMMD_DATA 28:16
#define NVC86F_DMA_SEC_OP 31:29
#define NVC86F_DMA_SEC_OP_INC_METHOD 1u
#define NVC86F_DMA_SEC_OP_NON_INC_METHOD 3u
#define NVC86F_DMA_SEC_OP_IMMD_DATA_METHOD 4u
#define NVC86F_DMA_SEC_OP_ONE_INC 5u
#define NV_DMA_COUNT_MAX 0x1FFFu       /* 13-bit count */
#define NV_DMA_IMMD_MAX 0x1FFFu        /* 13-bit immediate */
#define NV_DMA_METHOD_MAX 0x3FFCu      /* byte offset reachable by 11:0 */

/* Subchannel convention: host class 0, compute object 1, copy object 4.
 * Each engine object is bound once with SET_OBJECT (method 0). */
#define NV_SUBC_HOST 0u
#define NV_SUBC_COMPUTE 1u
#define NV_SUBC_COPY 4u

static inline uint32_t nv_mthd(uint32_t op, uint32_t subc, uint32_t method, uint32_t count)
{
    return NV_FIELD_NUM(NVC86F_DMA_SEC_OP, op) | NV_FIELD_NUM(NVC86F_DMA_METHOD_COUNT, count) |
           NV_FIELD_NUM(NVC86F_DMA_METHOD_SUBCHANNEL, subc) |
           NV_FIELD_NUM(NVC86F_DMA_METHOD_ADDRESS, method >> 2);
}
/* count data words go to method, method+4, ... */
static inline uint32_t nv_mthd_incr(uint32_t subc, uint32_t method, uint32_t count)
{
    return nv_mthd(NVC86F_DMA_SEC_OP_INC_METHOD, subc, method, count);
}
/* count data words all go to method. */
static inline uint32_t nv_mthd_non_incr(uint32_t subc, uint32_t method, uint32_t count)
{
    return nv_mthd(NVC86F_DMA_SEC_OP_NON_INC_METHOD, subc, method, count);
}
/* First word to method, the rest to method+4. */
static inline uint32_t nv_mthd_one_inc(uint32_t subc, uint32_t method, uint32_t count)
{
    return nv_mthd(NVC86F_DMA_SEC_OP_ONE_INC, subc, method, count);
}
/* No data word: a 13-bit value rides in the count field. */
static inline uint32_t nv_mthd_immd(uint32_t subc, uint32_t method, uint32_t data)
{
    return nv_mthd(NVC86F_DMA_SEC_OP_IMMD_DATA_METHOD, subc, method, data);
}

/* Decoded header (src/emu). */
struct nv_mthd_hdr {
    uint32_t op, subc, method, count; /* method in bytes; count = immd data for IMMD */
};
static inline struct nv_mthd_hdr nv_mthd_decode(uint32_t h)
{
    struct nv_mthd_hdr d = {
        .op = NV_FIELD_GET(NVC86F_DMA_SEC_OP, h),
        .subc = NV_FIELD_GET(NVC86F_DMA_METHOD_SUBCHANNEL, h),
        .method = NV_FIELD_GET(NVC86F_DMA_METHOD_ADDRESS, h) << 2,
        .count = NV_FIELD_GET(NVC86F_DMA_METHOD_COUNT, h),
    };
    return d;
}

/* ------------------------------------------------------------------ */
/* Host class methods, subchannel 0 (C56F and C86F share offsets)       */
/* ------------------------------------------------------------------ */

#define NVC86F_SET_OBJECT 0x0000u
#define NVC86F_SET_OBJECT_NVCLASS 15:0
#define NVC86F_NON_STALL_INTERRUPT 0x0020u
#define NVC86F_MEM_OP_A 0x0028u
#define NVC86F_MEM_OP_B 0x002Cu
#define NVC86F_MEM_OP_C 0x0030u
#define NVC86F_MEM_OP_D 0x0034u
#define NVC86F_MEM_OP_D_OPERATION 31:27
#define NVC86F_MEM_OP_D_OPERATION_MEMBAR 0x05u
#define NVC86F_MEM_OP_D_OPERATION_L2_SYSMEM_INVALIDATE 0x0Eu
#define NVC86F_MEM_OP_D_OPERATION_L2_FLUSH_DIRTY 0x10u
#define NVC86F_SEM_ADDR_LO 0x005Cu
#define NVC86F_SEM_ADDR_LO_OFFSET 31:2
#define NVC86F_SEM_ADDR_HI 0x0060u
#define NVC86F_SEM_ADDR_HI_OFFSET 24:0 /* C56F: 7:0 */
#define NVC86F_SEM_PAYLOAD_LO 0x0064u
#define NVC86F_SEM_PAYLOAD_HI 0x0068u
#define NVC86F_SEM_EXECUTE 0x006Cu
#define NVC86F_SEM_EXECUTE_OPERATION 2:0
#define NVC86F_SEM_EXECUTE_OPERATION_ACQUIRE 0u
#define NVC86F_SEM_EXECUTE_OPERATION_RELEASE 1u
#define NVC86F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ 2u
#define NVC86F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ 3u
#define NVC86F_SEM_EXECUTE_OPERATION_ACQ_AND 4u
#define NVC86F_SEM_EXECUTE_OPERATION_ACQ_NOR 5u
#define NVC86F_SEM_EXECUTE_OPERATION_REDUCTION 6u
#define NVC86F_SEM_EXECUTE_ACQUIRE_SWITCH_TSG 12:12
#define NVC86F_SEM_EXECUTE_RELEASE_WFI 20:20
#define NVC86F_SEM_EXECUTE_PAYLOAD_SIZE 24:24
#define NVC86F_SEM_EXECUTE_PAYLOAD_SIZE_32BIT 0u
#define NVC86F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT 1u
#define NVC86F_SEM_EXECUTE_RELEASE_TIMESTAMP 25:25
#define NVC86F_SEM_EXECUTE_REDUCTION 30:27
#define NVC86F_SEM_EXECUTE_REDUCTION_FORMAT 31:31
#define NVC86F_WFI 0x0078u
#define NVC86F_WFI_SCOPE 0:0

/* The two SEM_EXECUTE words hcqcl uses [H200]: release 64-bit payload +
 * ns timestamp after the engine idles; wait until *addr >= payload
 * (64-bit circular compare). */
#define NV_SEM_EXECUTE_RELEASE_64_TS                                                      \
    (NV_FIELD_NUM(NVC86F_SEM_EXECUTE_OPERATION, NVC86F_SEM_EXECUTE_OPERATION_RELEASE) |   \
     NV_FIELD_NUM(NVC86F_SEM_EXECUTE_RELEASE_WFI, 1) |                                    \
     NV_FIELD_NUM(NVC86F_SEM_EXECUTE_PAYLOAD_SIZE, NVC86F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT) | \
     NV_FIELD_NUM(NVC86F_SEM_EXECUTE_RELEASE_TIMESTAMP, 1))
#define NV_SEM_EXECUTE_ACQ_CIRC_GEQ_64                                                       \
    (NV_FIELD_NUM(NVC86F_SEM_EXECUTE_OPERATION, NVC86F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ) | \
     NV_FIELD_NUM(NVC86F_SEM_EXECUTE_PAYLOAD_SIZE, NVC86F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT))

/* ------------------------------------------------------------------ */
/* GPFIFO entries, USERD, usermode page                                 */
/* ------------------------------------------------------------------ */

/* GP entry: 64 bits; entry0 = low word, entry1 = high word. */
#define NVC86F_GP_ENTRY0_FETCH 0:0
#define NVC86F_GP_ENTRY0_GET 31:2
#define NVC86F_GP_ENTRY1_GET_HI 7:0
#define NVC86F_GP_ENTRY1_LEVEL 9:9
#define NVC86F_GP_ENTRY1_LEVEL_MAIN 0u
#define NVC86F_GP_ENTRY1_LEVEL_SUBROUTINE 1u
#define NVC86F_GP_ENTRY1_LENGTH 30:10
#define NVC86F_GP_ENTRY1_SYNC 31:31
#define NV_GP_ENTRY_VA_LIMIT (1ull << 40) /* pushbuffers live below 2^40 */
#define NV_GP_ENTRY_LENGTH_MAX 0x1FFFFFu  /* dwords */

/* Entry for a pushbuffer of ndw dwords at va (4-byte aligned, < 2^40). */
static inline uint64_t nv_gp_entry(uint64_t va, uint32_t ndw)
{
    uint32_t e0 = (uint32_t)va & ~3u;
    uint32_t e1 = NV_FIELD_NUM(NVC86F_GP_ENTRY1_GET_HI, va >> 32) |
                  NV_FIELD_NUM(NVC86F_GP_ENTRY1_LEVEL, NVC86F_GP_ENTRY1_LEVEL_SUBROUTINE) |
                  NV_FIELD_NUM(NVC86F_GP_ENTRY1_LENGTH, ndw);
    return (uint64_t)e1 << 32 | e0;
}
static inline uint64_t nv_gp_entry_va(uint64_t e)
{
    return (e & 0xFFFFFFFCull) | (uint64_t)NV_FIELD_GET(NVC86F_GP_ENTRY1_GET_HI, e >> 32) << 32;
}
static inline uint32_t nv_gp_entry_length(uint64_t e)
{
    return NV_FIELD_GET(NVC86F_GP_ENTRY1_LENGTH, e >> 32);
}

/* USERD control page (HopperAControlGPFifo / AmpereAControlGPFifo). */
#define NV_USERD_SIZE 0x200u
#define NV_USERD_PUT 0x40u
#define NV_USERD_GET 0x44u
#define NV_USERD_REFERENCE 0x48u
#define NV_USERD_PUT_HI 0x4Cu
#define NV_USERD_TOP_LEVEL_GET 0x58u
#define NV_USERD_TOP_LEVEL_GET_HI 0x5Cu
#define NV_USERD_GET_HI 0x60u
#define NV_USERD_GP_GET 0x88u /* read-only progress index */
#define NV_USERD_GP_PUT 0x8Cu /* one past the last valid entry, mod ring size */

/* Usermode page (clc361.h): 0x10000 bytes mapped from HOPPER_USERMODE_A. */
#define NVC361_USERMODE_SIZE 0x10000u
#define NVC361_TIME_0 0x0080u /* PTIMER ns, low */
#define NVC361_TIME_1 0x0084u /* PTIMER ns, high */
#define NVC361_NOTIFY_CHANNEL_PENDING 0x0090u /* doorbell: write the work-submit token */

/* ------------------------------------------------------------------ */
/* Compute class methods, subchannel 1 (CBC0; C6C0/C7C0/C9C0 same)      */
/* ------------------------------------------------------------------ */

#define NVCBC0_SET_OBJECT 0x0000u
#define NVCBC0_LINE_LENGTH_IN 0x0180u
#define NVCBC0_LINE_COUNT 0x0184u
#define NVCBC0_OFFSET_OUT_UPPER 0x0188u
#define NVCBC0_OFFSET_OUT 0x018Cu
#define NVCBC0_LAUNCH_DMA 0x01B0u
#define NVCBC0_LOAD_INLINE_DATA 0x01B4u
#define NVCBC0_INVALIDATE_SHADER_CACHES 0x021Cu
#define NVCBC0_SET_SHADER_SHARED_MEMORY_WINDOW_A 0x02A0u
#define NVCBC0_SET_SHADER_SHARED_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER 16:0
#define NVCBC0_SET_SHADER_SHARED_MEMORY_WINDOW_B 0x02A4u
#define NVCBC0_SEND_PCAS_A 0x02B4u /* QMD VA >> 8 */
#define NVCBC0_SEND_SIGNALING_PCAS2_B 0x02C0u
#define NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION 3:0
#define NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_COPY_SCHEDULE 3u
#define NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE 9u
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A 0x02E4u /* bytes per TPC, upper */
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B 0x02E8u /* bytes per TPC, lower */
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C 0x02ECu /* max SM count limit */
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SM_COUNT 8:0
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_A 0x0790u /* backing store VA, upper */
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_B 0x0794u /* backing store VA, lower */
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_WINDOW_A 0x07B0u
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER 16:0
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_WINDOW_B 0x07B4u
#define NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI 0x1698u
#define NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION 0:0
#define NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA 4:4
#define NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT 12:12
/* Instruction + global data + constant (0x1011). */
#define NV_INVALIDATE_SHADER_CACHES_ALL                               \
    (NV_FIELD_NUM(NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION, 1) | \
     NV_FIELD_NUM(NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA, 1) | \
     NV_FIELD_NUM(NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT, 1))
/* Constant caches only (0x1000): before every launch, because the CPU
 * wrote its bank 0 where an earlier launch's may have been; the QMD's own
 * invalidate bits cover the instruction and data caches. */
#define NV_INVALIDATE_SHADER_CACHES_CONSTANT \
    NV_FIELD_NUM(NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT, 1)

/* ------------------------------------------------------------------ */
/* Copy engine methods, subchannel 4 (C8B5; C6B5 same offsets)          */
/* ------------------------------------------------------------------ */

#define NVC8B5_SET_OBJECT 0x0000u
#define NVC8B5_SET_SEMAPHORE_A 0x0240u
#define NVC8B5_SET_SEMAPHORE_A_UPPER 24:0 /* C6B5: 16:0 */
#define NVC8B5_SET_SEMAPHORE_B 0x0244u
#define NVC8B5_SET_SEMAPHORE_PAYLOAD 0x0248u
#define NVC8B5_SET_SEMAPHORE_PAYLOAD_UPPER 0x024Cu /* Hopper+ */
#define NVC8B5_LAUNCH_DMA 0x0300u
#define NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE 1:0
#define NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NONE 0u
#define NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_PIPELINED 1u
#define NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED 2u
#define NVC8B5_LAUNCH_DMA_FLUSH_ENABLE 2:2
#define NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE 4:3
#define NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE 0u
#define NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD_SEMAPHORE 1u
#define NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD_SEMAPHORE 2u
#define NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_CONDITIONAL_INTR_SEMAPHORE 3u
#define NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE 6:5
#define NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE_NONE 0u
#define NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE_BLOCKING 1u
#define NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE_NON_BLOCKING 2u /* a non-stall interrupt */
#define NVC8B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT 7:7
#define NVC8B5_LAUNCH_DMA_DST_MEMORY_LAYOUT 8:8
#define NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_BLOCKLINEAR 0u
#define NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH 1u
#define NVC8B5_LAUNCH_DMA_MULTI_LINE_ENABLE 9:9
#define NVC8B5_LAUNCH_DMA_REMAP_ENABLE 10:10
#define NVC8B5_LAUNCH_DMA_SRC_TYPE 12:12 /* 0 virtual */
#define NVC8B5_LAUNCH_DMA_DST_TYPE 13:13
#define NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION 17:14
#define NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SIGN 18:18
#define NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_ENABLE 19:19
#define NVC8B5_LAUNCH_DMA_COPY_TYPE 21:20
#define NVC8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE 23:23
#define NVC8B5_LAUNCH_DMA_FLUSH_TYPE 25:25 /* 0 SYS, 1 GL */
#define NVC8B5_LAUNCH_DMA_DISABLE_PLC 26:26
#define NVC8B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE 27:27 /* 1 = 64-bit (Hopper+) */
#define NVC8B5_OFFSET_IN_UPPER 0x0400u
#define NVC8B5_OFFSET_IN_UPPER_UPPER 24:0
#define NVC8B5_OFFSET_IN_LOWER 0x0404u
#define NVC8B5_OFFSET_OUT_UPPER 0x0408u
#define NVC8B5_OFFSET_OUT_UPPER_UPPER 24:0
#define NVC8B5_OFFSET_OUT_LOWER 0x040Cu
#define NVC8B5_PITCH_IN 0x0410u
#define NVC8B5_PITCH_OUT 0x0414u
#define NVC8B5_LINE_LENGTH_IN 0x0418u
#define NVC8B5_LINE_COUNT 0x041Cu
#define NVC8B5_SET_REMAP_CONST_A 0x0700u
#define NVC8B5_SET_REMAP_CONST_B 0x0704u
#define NVC8B5_SET_REMAP_COMPONENTS 0x0708u
#define NVC8B5_SET_REMAP_COMPONENTS_DST_X 2:0
#define NVC8B5_SET_REMAP_COMPONENTS_DST_Y 6:4
#define NVC8B5_SET_REMAP_COMPONENTS_DST_Z 10:8
#define NVC8B5_SET_REMAP_COMPONENTS_DST_W 14:12
#define NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_X 0u
#define NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_Y 1u
#define NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_Z 2u
#define NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_W 3u
#define NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A 4u
#define NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_B 5u
#define NVC8B5_SET_REMAP_COMPONENTS_DST_NO_WRITE 6u
#define NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE 17:16 /* 0..3 = 1..4 bytes */
#define NVC8B5_SET_REMAP_COMPONENTS_NUM_SRC_COMPONENTS 21:20 /* 0..3 = 1..4 */
#define NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS 25:24 /* 0..3 = 1..4 */

/* LAUNCH_DMA words hcqcl uses [H200]. */
#define NV_LAUNCH_DMA_COPY                                                                  \
    (NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE,                                     \
                  NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED) |                     \
     NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT, NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH) | \
     NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_DST_MEMORY_LAYOUT, NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH))  /* 0x182 */
#define NV_LAUNCH_DMA_FILL (NV_LAUNCH_DMA_COPY | NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_REMAP_ENABLE, 1)) /* 0x582 */
#define NV_LAUNCH_DMA_SEMAPHORE_64_TS                                                    \
    (NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_FLUSH_ENABLE, 1) |                                   \
     NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE,                                      \
                  NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD_SEMAPHORE) |        \
     NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE, 1)) /* 0x08000014 */
/* The same release, then a non-stall interrupt (a sleeping waiter's wake-up). */
#define NV_LAUNCH_DMA_SEMAPHORE_64_TS_INTR                                               \
    (NV_LAUNCH_DMA_SEMAPHORE_64_TS |                                                     \
     NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE,                                      \
                  NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE_NON_BLOCKING)) /* 0x08000054 */
#define NV_COPY_LINE_MAX 0x80000000ull /* bytes per LAUNCH_DMA (split larger copies) */

/* SET_REMAP_COMPONENTS for a fill of a 1/2/4/8-byte pattern: CONST_B
 * (and CONST_A for the high half of 8 bytes). -EINVAL on other sizes. */
int nv_remap_fill_components(unsigned pattern_size, uint32_t *components);

/* ------------------------------------------------------------------ */
/* QMD (Queue Meta Data)                                                */
/* ------------------------------------------------------------------ */

enum nv_qmd_version {
    NV_QMD_V03_00 = 3, /* Ampere/Ada: 256 bytes (Hopper ignores it) */
    NV_QMD_V04_00 = 4, /* Hopper: 384 bytes */
    NV_QMD_V05_00 = 5, /* Blackwell: 384 bytes (names only; untested) */
};
#define NV_QMD_MAX_BYTES 384u
#define NV_QMD_ALIGN 256u /* SEND_PCAS_A and dependent pointers carry VA >> 8 */

/* Named QMD fields. Indexed fields (release i, constant buffer i,
 * dependent QMD i) take the index as an argument. A field a version lacks
 * is simply absent from its table. */
enum nv_qmd_fid {
    NV_QMD_QMD_GROUP_ID,
    NV_QMD_SM_GLOBAL_CACHING_ENABLE, /* V03 */
    NV_QMD_IS_QUEUE,                 /* V03 (0 = grid) */
    NV_QMD_QMD_TYPE,                 /* V04/V05: 2 = GRID_CTA required */
    NV_QMD_REQUIRE_SCHEDULING_PCAS,
    NV_QMD_DEPENDENCE_COUNTER,
    NV_QMD_SELF_COPY_ON_COMPLETION,
    NV_QMD_INVALIDATE_TEXTURE_HEADER_CACHE,
    NV_QMD_INVALIDATE_TEXTURE_SAMPLER_CACHE,
    NV_QMD_INVALIDATE_TEXTURE_DATA_CACHE,
    NV_QMD_INVALIDATE_SHADER_DATA_CACHE,
    NV_QMD_INVALIDATE_INSTRUCTION_CACHE,
    NV_QMD_INVALIDATE_SHADER_CONSTANT_CACHE,
    NV_QMD_CWD_MEMBAR_TYPE,
    NV_QMD_SEQUENTIALLY_RUN_CTAS,
    NV_QMD_API_VISIBLE_CALL_LIMIT,
    NV_QMD_SAMPLER_INDEX,
    NV_QMD_GRID_WIDTH, /* V03: CTA_RASTER_WIDTH */
    NV_QMD_GRID_HEIGHT,
    NV_QMD_GRID_DEPTH,
    NV_QMD_CTA_THREAD_DIMENSION0,
    NV_QMD_CTA_THREAD_DIMENSION1,
    NV_QMD_CTA_THREAD_DIMENSION2,
    NV_QMD_DEPENDENT_QMD_ENABLE,   /* (i) */
    NV_QMD_DEPENDENT_QMD_ACTION,   /* (i) */
    NV_QMD_DEPENDENT_QMD_PREFETCH, /* (i) */
    NV_QMD_DEPENDENT_QMD_POINTER,  /* (i) VA >> 8 */
    NV_QMD_SHARED_MEMORY_SIZE,     /* bytes (V05: >> 7) */
    NV_QMD_MIN_SM_CONFIG_SHARED_MEM_SIZE,
    NV_QMD_MAX_SM_CONFIG_SHARED_MEM_SIZE,
    NV_QMD_TARGET_SM_CONFIG_SHARED_MEM_SIZE,
    NV_QMD_SHARED_ALLOCATION_ENABLE,
    NV_QMD_QMD_MINOR_VERSION, /* V03: QMD_VERSION */
    NV_QMD_QMD_MAJOR_VERSION,
    NV_QMD_REGISTER_COUNT, /* V03: REGISTER_COUNT_V */
    NV_QMD_BARRIER_COUNT,
    NV_QMD_SHADER_LOCAL_MEMORY_LOW_SIZE,
    NV_QMD_SHADER_LOCAL_MEMORY_HIGH_SIZE, /* V05: >> 4 */
    NV_QMD_SASS_VERSION,
    NV_QMD_PROGRAM_ADDRESS_LOWER, /* V05: >> 4 */
    NV_QMD_PROGRAM_ADDRESS_UPPER,
    NV_QMD_PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED, /* VA >> 8 */
    NV_QMD_PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED, /* VA >> 40 */
    NV_QMD_PROGRAM_PREFETCH_SIZE,               /* 256-byte units */
    NV_QMD_PROGRAM_PREFETCH_TYPE,
    NV_QMD_CONSTANT_BUFFER_VALID,      /* (i) */
    NV_QMD_CONSTANT_BUFFER_INVALIDATE, /* (i) */
    NV_QMD_CONSTANT_BUFFER_ADDR_LOWER, /* (i) V03 raw VA, V04/V05 VA >> 6 */
    NV_QMD_CONSTANT_BUFFER_ADDR_UPPER, /* (i) */
    NV_QMD_CONSTANT_BUFFER_SIZE_SHIFTED4, /* (i) bytes >> 4 */
    NV_QMD_RELEASE_ENABLE,         /* (i) */
    NV_QMD_RELEASE_STRUCTURE_SIZE, /* (i) 0 four words, 1 one word, 2 two words */
    NV_QMD_RELEASE_MEMBAR_TYPE,    /* (i) */
    NV_QMD_RELEASE_REDUCTION_ENABLE, /* (i) */
    NV_QMD_RELEASE_PAYLOAD64B,     /* (i) */
    NV_QMD_RELEASE_ADDRESS_LOWER,  /* (i) */
    NV_QMD_RELEASE_ADDRESS_UPPER,  /* (i) */
    NV_QMD_RELEASE_PAYLOAD_LOWER,  /* (i) */
    NV_QMD_RELEASE_PAYLOAD_UPPER,  /* (i) */
    NV_QMD_GPC_CGA_WIDTH,
    NV_QMD_GPC_CGA_HEIGHT,
    NV_QMD_GPC_CGA_DEPTH,
    NV_QMD_FIELD_COUNT
};

/* One field: bits lo..hi (absolute within the QMD, hi - lo < 32) of
 * instance 0; instance i adds i * stride. count = number of instances
 * (1 for plain fields); count 0 = absent in this version. */
struct nv_qmd_field {
    uint16_t lo, hi;
    uint16_t stride;
    uint8_t count;
};

/* Value constants (open-gpu-doc clcbc0qmd.h). */
#define NVCBC0_QMDV04_00_QMD_TYPE_QUEUE 0u
#define NVCBC0_QMDV04_00_QMD_TYPE_GRID_NULL 1u
#define NVCBC0_QMDV04_00_QMD_TYPE_GRID_CTA 2u
#define NVCBC0_QMDV04_00_QMD_GROUP_ID_DEFAULT 0x3Fu
#define NVCBC0_QMDV04_00_CWD_MEMBAR_TYPE_L1_NONE 0u
#define NVCBC0_QMDV04_00_CWD_MEMBAR_TYPE_L1_SYSMEMBAR 1u
#define NVCBC0_QMDV04_00_RELEASE_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS 0u
#define NVCBC0_QMDV04_00_RELEASE_STRUCTURE_SIZE_SEMAPHORE_ONE_WORD 1u
#define NVCBC0_QMDV04_00_RELEASE_STRUCTURE_SIZE_SEMAPHORE_TWO_WORDS 2u
#define NVCBC0_QMDV04_00_RELEASE_MEMBAR_TYPE_FE_NONE 0u
#define NVCBC0_QMDV04_00_RELEASE_MEMBAR_TYPE_FE_SYSMEMBAR 1u
#define NVCBC0_QMDV04_00_DEPENDENT_QMD_ACTION_QMD_INCREMENT_PUT 0u
#define NVCBC0_QMDV04_00_DEPENDENT_QMD_ACTION_QMD_SCHEDULE 1u
#define NVCBC0_QMDV04_00_API_VISIBLE_CALL_LIMIT_NO_CHECK 1u
#define NVCBC0_QMDV04_00_SAMPLER_INDEX_VIA_HEADER_INDEX 1u
#define NV_QMD_CONSTANT_BUFFERS 8u
#define NV_QMD_CBUF_ALIGN_V04 64u /* V04/V05 store cbuf addresses >> 6 */

/* Size in bytes of a QMD of version v (0 for an unknown version). */
size_t nv_qmd_size(enum nv_qmd_version v);
/* The field's position in version v, or NULL when v lacks it. */
const struct nv_qmd_field *nv_qmd_field(enum nv_qmd_version v, enum nv_qmd_fid f);
/* Name of a field ("QMD_TYPE"), for logs and tests. */
const char *nv_qmd_field_name(enum nv_qmd_fid f);
/* Write field f (instance i) of qmd (nv_qmd_size(v) bytes, dword array).
 * -EINVAL when the field is absent or i is out of range, -ERANGE when
 * value does not fit (nothing written). */
int nv_qmd_set(uint32_t *qmd, enum nv_qmd_version v, enum nv_qmd_fid f, unsigned i,
               uint64_t value);
/* Read field f (instance i); 0 when absent. */
uint64_t nv_qmd_get(const uint32_t *qmd, enum nv_qmd_version v, enum nv_qmd_fid f, unsigned i);

/* QMD version the compute class takes: V03 for C6C0/C7C0/C9C0, V04 for
 * CBC0, V05 for CDC0/CEC0; 0 for anything else. */
enum nv_qmd_version nv_qmd_version_for_class(uint32_t compute_class);

/* Address helpers that hide the per-version shifts. -EINVAL for an
 * address the version cannot encode (misaligned cbuf, >= 2^57). */
int nv_qmd_set_program(uint32_t *qmd, enum nv_qmd_version v, uint64_t va, uint64_t text_size);
uint64_t nv_qmd_get_program(const uint32_t *qmd, enum nv_qmd_version v);
int nv_qmd_set_cbuf(uint32_t *qmd, enum nv_qmd_version v, unsigned i, uint64_t va, uint32_t size);
uint64_t nv_qmd_get_cbuf_addr(const uint32_t *qmd, enum nv_qmd_version v, unsigned i);
uint32_t nv_qmd_get_cbuf_size(const uint32_t *qmd, enum nv_qmd_version v, unsigned i);
/* Release semaphore i: 64-bit payload + ns timestamp at +8, after the
 * grid completes with a sysmembar. */
int nv_qmd_set_release(uint32_t *qmd, enum nv_qmd_version v, unsigned i, uint64_t va,
                       uint64_t payload);
/* Chain: when this QMD completes, schedule the QMD at next_va. */
int nv_qmd_set_dependent(uint32_t *qmd, enum nv_qmd_version v, unsigned i, uint64_t next_va);

/* The fields a launch rewrites on every QMD (bank 0, dependent 0,
 * release 0), located once per version so that writing them is a few
 * masked stores instead of table walks: nv_qmd_hot_init fills h from the
 * tables above (-EINVAL for a version that lacks one, or whose flags do
 * not share a dword); the writers below then equal nv_qmd_set_cbuf,
 * nv_qmd_set_dependent and nv_qmd_set_release for slot 0 on valid
 * input (va aligned as those require). */
struct nv_qmd_loc {
    uint16_t dw;
    uint8_t sh, width; /* width <= 32; dw + 1 exists when the field crosses */
};
struct nv_qmd_hot {
    struct nv_qmd_loc cb_lo, cb_hi, cb_size;
    struct nv_qmd_loc dep_ptr;
    struct nv_qmd_loc rel_lo, rel_hi, pay_lo, pay_hi;
    uint16_t dep_dw, rel_dw; /* the dword holding the dependent's / release's flags */
    uint32_t dep_bits, dep_mask, rel_bits, rel_mask, rel_enable;
    uint8_t cb_shift; /* V04 stores bank addresses >> 6 */
};
int nv_qmd_hot_init(enum nv_qmd_version v, struct nv_qmd_hot *h);

static inline void nv_qmd_put(uint32_t *qmd, struct nv_qmd_loc l, uint32_t value)
{
    const uint64_t mask = ((1ull << l.width) - 1) << l.sh, val = ((uint64_t)value << l.sh) & mask;
    qmd[l.dw] = (uint32_t)((qmd[l.dw] & ~mask) | val);
    if (l.sh + l.width > 32)
        qmd[l.dw + 1] = (uint32_t)((qmd[l.dw + 1] & ~(mask >> 32)) | (val >> 32));
}
static inline void nv_qmd_hot_cbuf(uint32_t *qmd, const struct nv_qmd_hot *h, uint64_t va,
                                   uint32_t size)
{
    const uint64_t a = va >> h->cb_shift;
    nv_qmd_put(qmd, h->cb_lo, (uint32_t)a);
    nv_qmd_put(qmd, h->cb_hi, (uint32_t)(a >> 32));
    nv_qmd_put(qmd, h->cb_size, (size + 15) >> 4);
}
static inline void nv_qmd_hot_dependent(uint32_t *qmd, const struct nv_qmd_hot *h,
                                        uint64_t next_va)
{
    nv_qmd_put(qmd, h->dep_ptr, (uint32_t)(next_va >> 8));
    qmd[h->dep_dw] = (qmd[h->dep_dw] & ~h->dep_mask) | h->dep_bits;
}
static inline void nv_qmd_hot_release(uint32_t *qmd, const struct nv_qmd_hot *h, uint64_t va,
                                      uint64_t payload)
{
    nv_qmd_put(qmd, h->rel_lo, (uint32_t)va);
    nv_qmd_put(qmd, h->rel_hi, (uint32_t)(va >> 32));
    nv_qmd_put(qmd, h->pay_lo, (uint32_t)payload);
    nv_qmd_put(qmd, h->pay_hi, (uint32_t)(payload >> 32));
    qmd[h->rel_dw] = (qmd[h->rel_dw] & ~h->rel_mask) | h->rel_bits;
}
static inline void nv_qmd_hot_unrelease(uint32_t *qmd, const struct nv_qmd_hot *h)
{
    qmd[h->rel_dw] &= ~h->rel_enable;
}

/* ------------------------------------------------------------------ */
/* Constant bank 0 ("cbuf0") as sm_8x/sm_90 code reads it               */
/* ------------------------------------------------------------------ */

#define NV_CBUF0_BLOCK_DIM 0x00u     /* u32 x, y, z (ntid)   */
#define NV_CBUF0_GRID_DIM 0x0Cu      /* u32 x, y, z (nctaid) */
#define NV_CBUF0_SHARED_WINDOW 0x18u /* u64 (sm_8x reads it; sm_90 uses SR_SWINHI) */
#define NV_CBUF0_LOCAL_WINDOW 0x20u  /* u64 */
#define NV_CBUF0_STACK 0x28u         /* u32 initial stack pointer */
#define NV_CBUF0_STACK_INIT 0x00FFFDC0u
#define NV_CBUF0_ENVREG 0x40u        /* u32 %envreg0..31 (ptxas: c[0x0][0x40 + 4*i]) */
#define NV_CBUF0_ENVREGS 32u         /* 0x40..0xBF, below every parameter start */
#define NV_CBUF0_PARAM_START_SM80 0x160u
#define NV_CBUF0_PARAM_START_SM90 0x210u
#define NV_CBUF0_PARAM_START_SM100 0x380u
#define NV_CBUF0_ALIGN 64u

/* Parameter start for an SM version (0x800, 0x860, 0x900, ...); 0 when
 * unknown. */
uint32_t nv_cbuf0_param_start(uint32_t arch);
/* SASS_VERSION QMD value (0x90 for 0x900); 0 when unknown. */
uint32_t nv_sass_version(uint32_t arch);

/* Shader windows: generic-address apertures for local and shared memory.
 * Must not overlap real allocations; the sm_90 shared window contributes
 * only its upper 32 bits, hence 4 GiB alignment. */
#define NV_LOCAL_WINDOW_VA 0x729300000000ull
#define NV_SHARED_WINDOW_VA 0x729400000000ull

/* ------------------------------------------------------------------ */
/* Shared memory                                                        */
/* ------------------------------------------------------------------ */

/* sm_90 reserves the first 1 KiB of each CTA's shared window; the
 * cubin's .nv.shared.<k> size already includes it. */
#define NV_SHARED_RESERVED_SM90 0x400u
#define NV_SHARED_ALIGN 128u

/* Per-SM carve-out for a CTA needing `bytes` (reserved part included):
 * the smallest legal size in KiB for the arch (Hopper: 0, 8, 16, 32, 64,
 * 100, 132, 164, 196, 228), or -EINVAL when it exceeds the largest. */
int nv_smem_carveout_kb(uint32_t arch, uint32_t bytes);
/* Largest carve-out in KiB for the arch (228 on Hopper). */
uint32_t nv_smem_max_kb(uint32_t arch);
/* MIN/MAX/TARGET_SM_CONFIG_SHARED_MEM_SIZE encoding: KB / 4 + 1. */
static inline uint32_t nv_smem_config_encode(uint32_t kb) { return kb / 4 + 1; }

/* ------------------------------------------------------------------ */
/* Local memory (stack, spills)                                         */
/* ------------------------------------------------------------------ */

#define NV_SLM_EXTRA 0x240u /* added to EIATTR_MIN_STACK_SIZE */
/* Per-thread bytes (QMD SHADER_LOCAL_MEMORY_HIGH_SIZE) for a kernel whose
 * stack need is min_stack. */
static inline uint32_t nv_slm_per_thread(uint32_t min_stack)
{
    return (min_stack + NV_SLM_EXTRA + 31u) & ~31u;
}
/* Bytes per TPC (SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A/B). */
uint64_t nv_slm_bytes_per_tpc(uint32_t slm_per_thread, uint32_t max_warps_per_sm,
                              uint32_t sm_per_tpc);
/* Backing store bytes for the whole GPU (litter upper bounds). */
uint64_t nv_slm_total_bytes(uint64_t bytes_per_tpc, uint32_t tpc_per_gpc, uint32_t gpc_count);

#endif

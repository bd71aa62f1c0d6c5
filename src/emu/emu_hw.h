/*
 * emu_hw.h — what the GPU model decodes beyond src/nv/nv.h: methods the
 * core never emits but the hardware accepts, and the error codes a
 * channel error writes to the notifier (nverror.h). Names follow NVIDIA's
 * class headers. Included by the GPU-model files only (the driver half
 * uses src/nvdrv/nvdrv.h, whose class names overlap nv.h's).
 */
#ifndef HCQCL_EMU_EMU_HW_H
#define HCQCL_EMU_EMU_HW_H

#include <stdint.h>

#include "nv/nv.h"

/* Field "hi:lo" of a word (as NV_FIELD_GET, for fields given as numbers). */
static inline uint32_t emu_bits(uint32_t v, unsigned hi, unsigned lo)
{
    unsigned width = hi - lo + 1;
    return width >= 32 ? v : (v >> lo) & ((1u << width) - 1);
}

/* Channel error codes written to the error notifier (nverror.h). */
#define ROBUST_CHANNEL_GR_EXCEPTION 13
#define ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT 31
#define ROBUST_CHANNEL_PBDMA_ERROR 32
#define ROBUST_CHANNEL_CE0_ERROR 39

/* Method headers: the opcodes nv.h does not name (clc86f.h). */
#define NVC86F_DMA_SEC_OP_GRP0_USE_TERT 0u
#define NVC86F_DMA_SEC_OP_GRP2_USE_TERT 2u
#define NVC86F_DMA_SEC_OP_END_PB_SEGMENT 7u
#define NVC86F_DMA_TERT_OP 17:16

/* Host class (clc86f.h). */
#define NVC86F_ILLEGAL 0x0004u
#define NVC86F_NOP 0x0008u
#define NVC86F_SEMAPHOREA 0x0010u
#define NVC86F_SEMAPHOREB 0x0014u
#define NVC86F_SEMAPHOREC 0x0018u
#define NVC86F_SEMAPHORED 0x001Cu
#define NVC86F_SEMAPHORED_OPERATION 4:0
#define NVC86F_SEMAPHORED_OPERATION_ACQUIRE 1u
#define NVC86F_SEMAPHORED_OPERATION_RELEASE 2u
#define NVC86F_SEMAPHORED_OPERATION_ACQ_GEQ 4u
#define NVC86F_SEMAPHORED_OPERATION_ACQ_AND 8u
#define NVC86F_SEMAPHORED_RELEASE_SIZE 24:24 /* 0 = 16 bytes (with timestamp), 1 = 4 */
#define NVC86F_FB_FLUSH 0x0024u
#define NVC86F_SET_REFERENCE 0x0050u
#define NVC86F_CRC_CHECK 0x007Cu
#define NVC86F_YIELD 0x0080u

/* Compute class (clcbc0.h). */
#define NVCBC0_NO_OPERATION 0x0100u
#define NVCBC0_WAIT_FOR_IDLE 0x0110u
#define NVCBC0_PM_TRIGGER 0x0140u
#define NVCBC0_SET_REPORT_SEMAPHORE_PAYLOAD_LOWER 0x0158u
#define NVCBC0_PITCH_OUT 0x0190u
#define NVCBC0_SET_DST_BLOCK_SIZE 0x0194u
#define NVCBC0_SET_DST_ORIGIN_BYTES_Y 0x01ACu
#define NVCBC0_LAUNCH_DMA_DST_MEMORY_LAYOUT 0:0 /* 1 pitch */
#define NVCBC0_LAUNCH_DMA_COMPLETION_TYPE 5:4
#define NVCBC0_SEND_PCAS_B 0x02B8u
#define NVCBC0_SEND_SIGNALING_PCAS_B 0x02BCu
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_THROTTLED_A 0x02F0u
#define NVCBC0_SET_SHADER_LOCAL_MEMORY_THROTTLED_C 0x02F8u
#define NVCBC0_SET_INLINE_QMD_ADDRESS_A 0x0318u
#define NVCBC0_SET_INLINE_QMD_ADDRESS_B 0x031Cu
#define NVCBC0_LOAD_INLINE_QMD_DATA 0x0320u /* (i), 96 words */
#define NVCBC0_SET_REPORT_SEMAPHORE_A 0x1B00u
#define NVCBC0_SET_REPORT_SEMAPHORE_D 0x1B0Cu
#define NVCBC0_SET_REPORT_SEMAPHORE_D_OPERATION 1:0 /* 0 release */
#define NVCBC0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE 28:28 /* 0 four words, 1 one word */
/* SEND_SIGNALING_PCAS2_B PCAS_ACTION values (clc6c0.h). */
#define NVCBC0_PCAS_ACTION_NOP 0u
#define NVCBC0_PCAS_ACTION_INVALIDATE 1u
#define NVCBC0_PCAS_ACTION_SCHEDULE 2u
#define NVCBC0_PCAS_ACTION_INCREMENT_PUT 6u
#define NVCBC0_PCAS_ACTION_DECREMENT_DEPENDENCE 7u
#define NVCBC0_PCAS_ACTION_PREFETCH 8u
#define NVCBC0_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE 10u
#define NVCBC0_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING 11u

/* Copy engine (clc8b5.h). */
#define NVC8B5_NOP 0x0100u
#define NVC8B5_PM_TRIGGER 0x0140u
#define NVC8B5_SET_RENDER_ENABLE_A 0x0254u
#define NVC8B5_SET_SRC_PHYS_MODE 0x0260u
#define NVC8B5_SET_DST_PHYS_MODE 0x0264u
#define NVC8B5_SET_DST_BLOCK_SIZE 0x070Cu
#define NVC8B5_SET_SRC_ORIGIN 0x073Cu

#endif

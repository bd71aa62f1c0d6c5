/*
 * fault.c — channel errors: reading the error notifiers of a device's
 * queues, naming the error they carry, and the lost-device state that
 * follows.
 *
 * A channel error (MMU fault, SM exception, bad pushbuffer, copy-engine
 * error) stops the channel and its channel group; RM (or the emulated
 * device) then fills the channel's error notifier, an NvNotification:
 *
 *     +0  u64 timeStamp   GPU ns of the report
 *     +8  u32 info32      the error code: ROBUST_CHANNEL_* of nverror.h,
 *                         the number the kernel log prints as "Xid"
 *     +12 u16 info16
 *     +14 u16 status      non-zero once an error was reported
 *
 * Nothing interrupts a thread that waits on a signal of a stopped channel,
 * so waiters poll the notifiers (hcq_device_check_lost, every ~1 ms of
 * waiting). The first error found marks the device lost: from then on
 * every wait, submit and queue creation on it returns -EIO at once, and
 * hcq_device_fault() says what happened.
 */
#include "core/priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Error codes of nverror.h that a compute or copy channel can report. */
#define ROBUST_CHANNEL_FIFO_ERROR_FIFO_METHOD 1
#define ROBUST_CHANNEL_FIFO_ERROR_SW_METHOD 2
#define ROBUST_CHANNEL_FIFO_ERROR_UNK_METHOD 3
#define ROBUST_CHANNEL_FIFO_ERROR_CHANNEL_BUSY 4
#define ROBUST_CHANNEL_FIFO_ERROR_RUNOUT_OVERFLOW 5
#define ROBUST_CHANNEL_FIFO_ERROR_PARSE_ERR 6
#define ROBUST_CHANNEL_FIFO_ERROR_PTE_ERR 7
#define ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT 8
#define ROBUST_CHANNEL_GR_ERROR_INSTANCE 9
#define ROBUST_CHANNEL_GR_ERROR_SINGLE_STEP 10
#define ROBUST_CHANNEL_GR_ERROR_MISSING_HW 11
#define ROBUST_CHANNEL_GR_ERROR_SW_METHOD 12
#define ROBUST_CHANNEL_GR_EXCEPTION 13
#define ROBUST_CHANNEL_FAKE_ERROR 14
#define ROBUST_CHANNEL_GR_SEMAPHORE_TIMEOUT 24
#define ROBUST_CHANNEL_GR_ILLEGAL_NOTIFY 25
#define ROBUST_CHANNEL_BAD_ADDR_ACCESS 30
#define ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT 31
#define ROBUST_CHANNEL_PBDMA_ERROR 32
#define ROBUST_CHANNEL_FECS_ERR_UNIMP_FIRMWARE_METHOD 37
#define ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT 38
#define ROBUST_CHANNEL_CE0_ERROR 39
#define ROBUST_CHANNEL_CE1_ERROR 40
#define ROBUST_CHANNEL_CE2_ERROR 41
#define ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR 43
#define ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW 44
#define ROBUST_CHANNEL_PREEMPTIVE_REMOVAL 45
#define ROBUST_CHANNEL_GPU_TIMEOUT_ERROR 46
#define ROBUST_CHANNEL_GPU_ECC_DBE 48
#define ROBUST_CHANNEL_GR_CLASS_ERROR 69
#define ROBUST_CHANNEL_CE3_ERROR 70
#define ROBUST_CHANNEL_CE4_ERROR 71
#define ROBUST_CHANNEL_CE5_ERROR 72
#define ROBUST_CHANNEL_CE6_ERROR 75
#define ROBUST_CHANNEL_CE7_ERROR 76
#define ROBUST_CHANNEL_CE8_ERROR 77
#define ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS 79
#define PBDMA_PUSHBUFFER_CRC_MISMATCH 80
#define ROBUST_CHANNEL_CE9_ERROR 85
#define ROBUST_CHANNEL_CONTAINED_ERROR 94
#define ROBUST_CHANNEL_UNCONTAINED_ERROR 95
#define ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR 109
#define GSP_RPC_TIMEOUT 119
#define GSP_ERROR 120

/* NvNotification offsets (nvtypes.h / cl906f.h). */
#define NV_NOTIFICATION_TIMESTAMP 0u
#define NV_NOTIFICATION_INFO32 8u
#define NV_NOTIFICATION_INFO16 12u
#define NV_NOTIFICATION_STATUS 14u

static const struct {
    uint32_t code;
    const char *name;
} fault_names[] = {
    {ROBUST_CHANNEL_FIFO_ERROR_FIFO_METHOD, "host method error"},
    {ROBUST_CHANNEL_FIFO_ERROR_SW_METHOD, "host software method error"},
    {ROBUST_CHANNEL_FIFO_ERROR_UNK_METHOD, "unknown host method"},
    {ROBUST_CHANNEL_FIFO_ERROR_CHANNEL_BUSY, "channel busy"},
    {ROBUST_CHANNEL_FIFO_ERROR_RUNOUT_OVERFLOW, "runout overflow"},
    {ROBUST_CHANNEL_FIFO_ERROR_PARSE_ERR, "pushbuffer parse error"},
    {ROBUST_CHANNEL_FIFO_ERROR_PTE_ERR, "page table error"},
    {ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT, "channel watchdog timeout"},
    {ROBUST_CHANNEL_GR_ERROR_INSTANCE, "graphics instance error"},
    {ROBUST_CHANNEL_GR_ERROR_SINGLE_STEP, "graphics single-step error"},
    {ROBUST_CHANNEL_GR_ERROR_MISSING_HW, "graphics missing hardware"},
    {ROBUST_CHANNEL_GR_ERROR_SW_METHOD, "graphics software method error"},
    {ROBUST_CHANNEL_GR_EXCEPTION, "graphics engine exception (SM exception or bad method)"},
    {ROBUST_CHANNEL_FAKE_ERROR, "injected test error"},
    {ROBUST_CHANNEL_GR_SEMAPHORE_TIMEOUT, "graphics semaphore timeout"},
    {ROBUST_CHANNEL_GR_ILLEGAL_NOTIFY, "graphics illegal notify"},
    {ROBUST_CHANNEL_BAD_ADDR_ACCESS, "bad address access"},
    {ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT, "MMU fault (access to an unmapped or protected address)"},
    {ROBUST_CHANNEL_PBDMA_ERROR, "PBDMA error (bad pushbuffer or GPFIFO entry)"},
    {ROBUST_CHANNEL_FECS_ERR_UNIMP_FIRMWARE_METHOD, "FECS unimplemented firmware method"},
    {ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT, "FECS watchdog timeout"},
    {ROBUST_CHANNEL_CE0_ERROR, "copy engine 0 error"},
    {ROBUST_CHANNEL_CE1_ERROR, "copy engine 1 error"},
    {ROBUST_CHANNEL_CE2_ERROR, "copy engine 2 error"},
    {ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR, "channel stopped by the driver (reset channel)"},
    {ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW, "graphics fault during context switch"},
    {ROBUST_CHANNEL_PREEMPTIVE_REMOVAL, "channel removed by the driver (preemptive removal)"},
    {ROBUST_CHANNEL_GPU_TIMEOUT_ERROR, "GPU timeout"},
    {ROBUST_CHANNEL_GPU_ECC_DBE, "double-bit ECC error"},
    {ROBUST_CHANNEL_GR_CLASS_ERROR, "graphics class error (illegal method or argument)"},
    {ROBUST_CHANNEL_CE3_ERROR, "copy engine 3 error"},
    {ROBUST_CHANNEL_CE4_ERROR, "copy engine 4 error"},
    {ROBUST_CHANNEL_CE5_ERROR, "copy engine 5 error"},
    {ROBUST_CHANNEL_CE6_ERROR, "copy engine 6 error"},
    {ROBUST_CHANNEL_CE7_ERROR, "copy engine 7 error"},
    {ROBUST_CHANNEL_CE8_ERROR, "copy engine 8 error"},
    {ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS, "GPU has fallen off the bus"},
    {PBDMA_PUSHBUFFER_CRC_MISMATCH, "pushbuffer CRC mismatch"},
    {ROBUST_CHANNEL_CE9_ERROR, "copy engine 9 error"},
    {ROBUST_CHANNEL_CONTAINED_ERROR, "contained memory error"},
    {ROBUST_CHANNEL_UNCONTAINED_ERROR, "uncontained memory error"},
    {ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR, "context switch timeout"},
    {GSP_RPC_TIMEOUT, "GSP RPC timeout"},
    {GSP_ERROR, "GSP error"},
};

const char *hcq_fault_name(uint32_t code)
{
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(fault_names); i++)
        if (fault_names[i].code == code)
            return fault_names[i].name;
    return "unknown channel error";
}

uint32_t hcq_device_fault(const struct hcq_device *dev, char *why, size_t why_size)
{
    if (!atomic_load_explicit(&dev->lost, __ATOMIC_ACQUIRE)) {
        if (why && why_size)
            why[0] = 0;
        return 0;
    }
    /* lost_why is written once, before lost is set (release). */
    if (why && why_size)
        snprintf(why, why_size, "%s", dev->lost_why);
    return dev->lost_code;
}

void hcq_device_set_lost_code(struct hcq_device *dev, uint32_t code, const char *why)
{
    /* The first report wins: it is the cause, later ones are fallout. */
    if (atomic_exchange(&dev->lost_claimed, true))
        return;
    snprintf(dev->lost_why, sizeof(dev->lost_why), "%s", why);
    dev->lost_code = code;
    atomic_store_explicit(&dev->lost, true, __ATOMIC_RELEASE);
    util_log(UTIL_LOG_ERR, "core: device %u (%s) lost: %s", dev->index, dev->info.name, why);
}

void hcq_device_set_lost(struct hcq_device *dev, const char *why)
{
    hcq_device_set_lost_code(dev, 0, why);
}

/* One notifier: 0 when it reports nothing, else the error code (a report
 * with a zero code still counts: status says an error was reported). */
static bool notifier_error(const volatile uint8_t *n, uint32_t *code, uint16_t *info16)
{
    uint16_t status = __atomic_load_n((const uint16_t *)(n + NV_NOTIFICATION_STATUS),
                                      __ATOMIC_ACQUIRE);
    uint32_t c = __atomic_load_n((const uint32_t *)(n + NV_NOTIFICATION_INFO32),
                                 __ATOMIC_RELAXED);
    if (!status && !c)
        return false;
    *code = c;
    *info16 = __atomic_load_n((const uint16_t *)(n + NV_NOTIFICATION_INFO16), __ATOMIC_RELAXED);
    return true;
}

bool hcq_device_check_lost(struct hcq_device *dev)
{
    if (atomic_load(&dev->lost))
        return true;
    uint32_t code = 0;
    uint16_t info16 = 0;
    uint32_t h_channel = 0;
    const char *engine = NULL;
    pthread_mutex_lock(&dev->lock);
    for (struct hcq_queue *q = dev->queues; q; q = q->next) {
        if (!q->notifier || !q->notifier->cpu)
            continue;
        if (notifier_error(q->notifier->cpu, &code, &info16)) {
            h_channel = q->h_channel;
            engine = q->engine == HCQ_ENGINE_COMPUTE ? "compute" : "copy";
            break;
        }
    }
    pthread_mutex_unlock(&dev->lock);
    if (engine) {
        char why[192];
        snprintf(why, sizeof(why), "%s channel 0x%x: Xid %u, %s (info 0x%x)", engine, h_channel,
                 code, hcq_fault_name(code), info16);
        hcq_device_set_lost_code(dev, code, why);
    }
    return atomic_load(&dev->lost);
}

bool hcq_device_watch(struct hcq_device *dev, uint64_t stalled_ns, uint64_t *kick_next)
{
    if (!*kick_next)
        *kick_next = HCQ_KICK_FIRST_NS;
    hcq_device_kick_stalled(dev, stalled_ns, kick_next);
    return hcq_device_check_lost(dev);
}

void hcq_device_fault_reset(struct hcq_device *dev)
{
    dev->lost_why[0] = 0;
    dev->lost_code = 0;
    atomic_store(&dev->lost_claimed, false);
    atomic_store(&dev->lost, false);
}

/*
 * Host-class (GPFIFO channel) methods of the GPU model: semaphores
 * (SEM_* and the legacy SEMAPHOREA..D), non-stall interrupts, memory ops,
 * wait-for-idle. Methods below 0x100 reach this class on any subchannel.
 *
 * Everything the model does is complete when the method returns but a
 * compute launch it holds back (emu_compute.c, "Grids side by side"):
 * WFI and a release with RELEASE_WFI run that first; MEM_OP membars need
 * no work. An acquire that is not
 * satisfied returns EMU_M_BLOCK: the walker keeps its position and the
 * worker retries on a later round, blocking only this channel.
 */
#include "emu/emu.h"
#include "emu/emu_hw.h"

#include <string.h>

bool emu_sem_release(struct emu_chan *c, uint64_t va, uint64_t value, bool is64, bool ts)
{
    uint64_t len = ts ? 16 : (is64 ? 8 : 4);
    uint8_t *p = emu_chan_ptr(c, va, len, "semaphore");
    if (!p)
        return false;
    if ((va & (is64 || ts ? 7 : 3)) != 0) {
        emu_chan_error(c, ROBUST_CHANNEL_PBDMA_ERROR, "misaligned semaphore 0x%llx",
                       (unsigned long long)va);
        return false;
    }
    /* Timestamp first: whoever sees the new value sees its timestamp. */
    if (ts)
        __atomic_store_n((uint64_t *)(p + 8), emu_gpu_time(c->gpu), __ATOMIC_RELEASE);
    if (is64)
        __atomic_store_n((uint64_t *)p, value, __ATOMIC_RELEASE);
    else
        __atomic_store_n((uint32_t *)p, (uint32_t)value, __ATOMIC_RELEASE);
    return true;
}

static uint64_t reduce(unsigned op, bool is_unsigned, bool is64, uint64_t v, uint64_t p)
{
    int64_t sv = is64 ? (int64_t)v : (int32_t)v, sp = is64 ? (int64_t)p : (int32_t)p;
    switch (op) {
    case 0: /* IMIN */
        return is_unsigned ? UTIL_MIN(v, p) : (uint64_t)UTIL_MIN(sv, sp);
    case 1: /* IMAX */
        return is_unsigned ? UTIL_MAX(v, p) : (uint64_t)UTIL_MAX(sv, sp);
    case 2:
        return v ^ p;
    case 3:
        return v & p;
    case 4:
        return v | p;
    case 5:
        return v + p;
    case 6: /* INC: wraps to 0 past the payload */
        return v >= p ? 0 : v + 1;
    default: /* 7 DEC: wraps to the payload below 0 */
        return (v == 0 || v > p) ? p : v - 1;
    }
}

static enum emu_mres sem_execute(struct emu_chan *c, unsigned subch, uint32_t mthd, uint32_t d)
{
    uint32_t op = NV_FIELD_GET(NVC86F_SEM_EXECUTE_OPERATION, d);
    bool is64 = NV_FIELD_GET(NVC86F_SEM_EXECUTE_PAYLOAD_SIZE, d);
    bool ts = NV_FIELD_GET(NVC86F_SEM_EXECUTE_RELEASE_TIMESTAMP, d);
    uint64_t va = (uint64_t)NV_FIELD_GET(NVC86F_SEM_ADDR_HI_OFFSET,
                                         c->host_regs[NVC86F_SEM_ADDR_HI >> 2])
                      << 32 |
                  (c->host_regs[NVC86F_SEM_ADDR_LO >> 2] & ~3u);
    uint64_t payload = c->host_regs[NVC86F_SEM_PAYLOAD_LO >> 2];
    if (is64)
        payload |= (uint64_t)c->host_regs[NVC86F_SEM_PAYLOAD_HI >> 2] << 32;

    if (op == NVC86F_SEM_EXECUTE_OPERATION_RELEASE) {
        if (NV_FIELD_GET(NVC86F_SEM_EXECUTE_RELEASE_WFI, d) && !emu_compute_flush(c))
            return EMU_M_ERROR;
        return emu_sem_release(c, va, payload, is64, ts) ? EMU_M_OK : EMU_M_ERROR;
    }
    if (op > NVC86F_SEM_EXECUTE_OPERATION_REDUCTION) {
        emu_chan_error(c, ROBUST_CHANNEL_PBDMA_ERROR, "SEM_EXECUTE operation %u invalid", op);
        return EMU_M_ERROR;
    }
    uint8_t *p = emu_chan_ptr(c, va, is64 ? 8 : 4, "semaphore");
    if (!p)
        return EMU_M_ERROR;
    if (va & (is64 ? 7 : 3)) {
        emu_chan_error(c, ROBUST_CHANNEL_PBDMA_ERROR, "misaligned semaphore 0x%llx",
                       (unsigned long long)va);
        return EMU_M_ERROR;
    }
    if (op == NVC86F_SEM_EXECUTE_OPERATION_REDUCTION) {
        unsigned rop = NV_FIELD_GET(NVC86F_SEM_EXECUTE_REDUCTION, d);
        bool uns = NV_FIELD_GET(NVC86F_SEM_EXECUTE_REDUCTION_FORMAT, d);
        if (rop > 7) {
            emu_chan_error(c, ROBUST_CHANNEL_PBDMA_ERROR, "SEM_EXECUTE reduction %u invalid", rop);
            return EMU_M_ERROR;
        }
        if (is64) {
            uint64_t old = __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE), nv;
            do
                nv = reduce(rop, uns, true, old, payload);
            while (!__atomic_compare_exchange_n((uint64_t *)p, &old, nv, false, __ATOMIC_ACQ_REL,
                                                __ATOMIC_ACQUIRE));
        } else {
            uint32_t old = __atomic_load_n((uint32_t *)p, __ATOMIC_ACQUIRE), nv;
            do
                nv = (uint32_t)reduce(rop, uns, false, old, (uint32_t)payload);
            while (!__atomic_compare_exchange_n((uint32_t *)p, &old, nv, false, __ATOMIC_ACQ_REL,
                                                __ATOMIC_ACQUIRE));
        }
        if (ts)
            __atomic_store_n((uint64_t *)(p + 8), emu_gpu_time(c->gpu), __ATOMIC_RELEASE);
        return EMU_M_OK;
    }
    uint64_t v = is64 ? __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE)
                      : __atomic_load_n((uint32_t *)p, __ATOMIC_ACQUIRE);
    uint64_t mask = is64 ? ~0ull : 0xffffffffull;
    bool ok;
    switch (op) {
    case NVC86F_SEM_EXECUTE_OPERATION_ACQUIRE:
        ok = v == payload;
        break;
    case NVC86F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ:
        ok = v >= payload;
        break;
    case NVC86F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ:
        ok = is64 ? (int64_t)(v - payload) >= 0 : (int32_t)(uint32_t)(v - payload) >= 0;
        break;
    case NVC86F_SEM_EXECUTE_OPERATION_ACQ_AND:
        ok = (v & payload) != 0;
        break;
    default: /* ACQ_NOR */
        ok = (~(v | payload) & mask) != 0;
        break;
    }
    return ok ? EMU_M_OK : EMU_M_BLOCK;
}

/* Legacy SEMAPHOREA..D: 32-bit payloads, release with a 16-byte
 * {payload, 0, timestamp} structure unless RELEASE_SIZE says 4 bytes. */
static enum emu_mres semaphore_d(struct emu_chan *c, unsigned subch, uint32_t mthd, uint32_t d)
{
    uint64_t va = (uint64_t)(c->host_regs[NVC86F_SEMAPHOREA >> 2] & 0x1ffffff) << 32 |
                  (c->host_regs[NVC86F_SEMAPHOREB >> 2] & ~3u);
    uint32_t payload = c->host_regs[NVC86F_SEMAPHOREC >> 2];
    uint32_t op = NV_FIELD_GET(NVC86F_SEMAPHORED_OPERATION, d);
    if (op == NVC86F_SEMAPHORED_OPERATION_RELEASE) {
        if (!emu_compute_flush(c)) /* a legacy release waits for idle */
            return EMU_M_ERROR;
        bool four = NV_FIELD_GET(NVC86F_SEMAPHORED_RELEASE_SIZE, d);
        if (!four && !emu_sem_release(c, va, 0, true, true)) /* zero the word, stamp */
            return EMU_M_ERROR;
        return emu_sem_release(c, va, payload, false, false) ? EMU_M_OK : EMU_M_ERROR;
    }
    uint32_t *p = emu_chan_ptr(c, va, 4, "semaphore");
    if (!p)
        return EMU_M_ERROR;
    uint32_t v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    switch (op) {
    case NVC86F_SEMAPHORED_OPERATION_ACQUIRE:
        return v == payload ? EMU_M_OK : EMU_M_BLOCK;
    case NVC86F_SEMAPHORED_OPERATION_ACQ_GEQ:
        return (int32_t)(v - payload) >= 0 ? EMU_M_OK : EMU_M_BLOCK;
    case NVC86F_SEMAPHORED_OPERATION_ACQ_AND:
        return (v & payload) ? EMU_M_OK : EMU_M_BLOCK;
    default:
        emu_chan_error(c, ROBUST_CHANNEL_PBDMA_ERROR, "SEMAPHORED operation 0x%x unsupported", op);
        return EMU_M_ERROR;
    }
}

static enum emu_mres nonstall_intr(struct emu_chan *c, unsigned subch, uint32_t mthd, uint32_t d)
{
    atomic_fetch_add(&c->nonstall_intrs, 1);
    emu_event_post(c->gpu, emu_chan_notifier(c));
    return EMU_M_OK;
}

static enum emu_mres illegal(struct emu_chan *c, unsigned subch, uint32_t mthd, uint32_t d)
{
    emu_chan_error(c, ROBUST_CHANNEL_PBDMA_ERROR, "ILLEGAL method executed (data 0x%x)", d);
    return EMU_M_ERROR;
}

static enum emu_mres set_reference(struct emu_chan *c, unsigned subch, uint32_t mthd, uint32_t d)
{
    volatile uint32_t *userd = (volatile uint32_t *)(c->userd_mem->host + c->userd_off);
    __atomic_store_n(&userd[NV_USERD_REFERENCE / 4], d, __ATOMIC_RELEASE);
    return EMU_M_OK;
}

static enum emu_mres mem_op_d(struct emu_chan *c, unsigned subch, uint32_t mthd, uint32_t d)
{
    /* Membars, TLB invalidates and L2 maintenance: the model's memory is
     * coherent host memory, and every engine has finished its work by the
     * time the next method runs. */
    return EMU_M_OK;
}

static const struct emu_mthd host_mthds[] = {
    {NVC86F_ILLEGAL, 1, illegal},
    {NVC86F_NOP, 1, NULL},
    {NVC86F_SEMAPHOREA, 3, NULL},
    {NVC86F_SEMAPHORED, 1, semaphore_d},
    {NVC86F_NON_STALL_INTERRUPT, 1, nonstall_intr},
    {NVC86F_FB_FLUSH, 1, NULL},
    {NVC86F_MEM_OP_A, 3, NULL},
    {NVC86F_MEM_OP_D, 1, mem_op_d},
    {NVC86F_SET_REFERENCE, 1, set_reference},
    {NVC86F_SEM_ADDR_LO, 4, NULL},
    {NVC86F_SEM_EXECUTE, 1, sem_execute},
    {NVC86F_WFI, 1, emu_compute_wait_idle},
    {NVC86F_CRC_CHECK, 1, NULL},
    {NVC86F_YIELD, 1, NULL},
};

struct emu_class emu_class_host = {
    .cls = HOPPER_CHANNEL_GPFIFO_A,
    .name = "HOPPER_CHANNEL_GPFIFO_A",
    .mthds = host_mthds,
    .n = UTIL_ARRAY_SIZE(host_mthds),
    .error = ROBUST_CHANNEL_PBDMA_ERROR,
};

/*
 * Compute class (HOPPER_COMPUTE_A) of the GPU model: QMD launches
 * (SEND_PCAS_A + SEND_SIGNALING_PCAS2_B), dependent-QMD chains, QMD
 * release semaphores, inline-to-memory uploads, report semaphores and the
 * state methods (shader windows, local memory, cache invalidates).
 *
 * A QMD is decoded with the layout of the version the bound class takes
 * (V04 for Hopper, V03 for Ampere/Ada). As on the H200, a QMD of another
 * major version, or one whose QMD_TYPE is not GRID_CTA, is silently not
 * run — logged under HCQCL_LOG=emu — and the channel carries on. The
 * kernel itself runs on the host (emu_kreg.c).
 */
#include "emu/emu.h"
#include "emu/emu_hw.h"

#include <stdlib.h>
#include <string.h>

#define EMU_QMD_CHAIN_MAX 65536
#define EMU_MAX_THREADS_PER_BLOCK 1024u
#define EMU_MAX_SHARED_BYTES (228u * 1024u)

/* Run the grid of one QMD, then its releases. Returns the dependent QMD
 * to schedule next (0: none), or UINT64_MAX after a channel error. */
static uint64_t qmd_run(struct emu_chan *c, unsigned subch, uint64_t qva)
{
    enum nv_qmd_version v = nv_qmd_version_for_class(c->bound[subch]->cls);
    size_t qsize = nv_qmd_size(v);
    if (qva & (NV_QMD_ALIGN - 1)) {
        emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION, "QMD 0x%llx not 256-byte aligned",
                       (unsigned long long)qva);
        return UINT64_MAX;
    }
    const uint32_t *mq = emu_chan_ptr(c, qva, qsize, "QMD");
    if (!mq)
        return UINT64_MAX;
    uint32_t qmd[NV_QMD_MAX_BYTES / 4];
    memcpy(qmd, mq, qsize);

    uint32_t major = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_QMD_MAJOR_VERSION, 0);
    if (major != (uint32_t)v) {
        EMU_LOG("QMD 0x%llx: major version %u ignored by %s (takes V%02u): not run",
                (unsigned long long)qva, major, c->bound[subch]->name, (unsigned)v);
        return 0;
    }
    bool grid_cta = v == NV_QMD_V03_00
                        ? nv_qmd_get(qmd, v, NV_QMD_IS_QUEUE, 0) == 0
                        : nv_qmd_get(qmd, v, NV_QMD_QMD_TYPE, 0) ==
                              NVCBC0_QMDV04_00_QMD_TYPE_GRID_CTA;
    if (!grid_cta) {
        EMU_LOG("QMD 0x%llx: QMD_TYPE %u is not GRID_CTA: not run", (unsigned long long)qva,
                (unsigned)nv_qmd_get(qmd, v, NV_QMD_QMD_TYPE, 0));
        return 0;
    }

    struct emu_launch l = {.chan = c};
    l.program_va = nv_qmd_get_program(qmd, v);
    l.grid[0] = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_GRID_WIDTH, 0);
    l.grid[1] = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_GRID_HEIGHT, 0);
    l.grid[2] = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_GRID_DEPTH, 0);
    l.block[0] = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_CTA_THREAD_DIMENSION0, 0);
    l.block[1] = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_CTA_THREAD_DIMENSION1, 0);
    l.block[2] = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_CTA_THREAD_DIMENSION2, 0);
    uint32_t smem = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_SHARED_MEMORY_SIZE, 0);
    uint64_t threads = (uint64_t)l.block[0] * l.block[1] * l.block[2];
    if (threads > EMU_MAX_THREADS_PER_BLOCK || smem > EMU_MAX_SHARED_BYTES) {
        emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION,
                       "QMD 0x%llx: block %ux%ux%u / shared %u bytes beyond the SM's limits",
                       (unsigned long long)qva, l.block[0], l.block[1], l.block[2], smem);
        return UINT64_MAX;
    }
    /* sm_90 reserves the first 1 KiB of the CTA's window. */
    l.shared_size = smem > NV_SHARED_RESERVED_SM90 ? smem - NV_SHARED_RESERVED_SM90 : 0;

    for (unsigned i = 0; i < NV_QMD_CONSTANT_BUFFERS; i++)
        if (nv_qmd_get(qmd, v, NV_QMD_CONSTANT_BUFFER_VALID, i)) {
            l.cbuf_va[i] = nv_qmd_get_cbuf_addr(qmd, v, i);
            l.cbuf_size[i] = nv_qmd_get_cbuf_size(qmd, v, i);
        }
    uint8_t *cbuf0 = NULL;
    if (nv_qmd_get(qmd, v, NV_QMD_CONSTANT_BUFFER_VALID, 0)) {
        uint64_t cva = nv_qmd_get_cbuf_addr(qmd, v, 0);
        uint32_t csize = nv_qmd_get_cbuf_size(qmd, v, 0);
        const uint8_t *src = csize ? emu_chan_ptr(c, cva, csize, "constant bank 0") : NULL;
        if (csize && !src)
            return UINT64_MAX;
        cbuf0 = malloc(csize ? csize : 1);
        if (!cbuf0) {
            emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION, "out of host memory");
            return UINT64_MAX;
        }
        memcpy(cbuf0, src, csize);
        l.cbuf0 = cbuf0;
        l.cbuf0_size = csize;
    }
    bool ok = threads == 0 || (uint64_t)l.grid[0] * l.grid[1] * l.grid[2] == 0 ||
              emu_kreg_run(&l);
    free(cbuf0);
    if (!ok)
        return UINT64_MAX;

    const struct nv_qmd_field *rf = nv_qmd_field(v, NV_QMD_RELEASE_ENABLE);
    for (unsigned i = 0; rf && i < rf->count; i++) {
        if (!nv_qmd_get(qmd, v, NV_QMD_RELEASE_ENABLE, i))
            continue;
        if (nv_qmd_get(qmd, v, NV_QMD_RELEASE_REDUCTION_ENABLE, i)) {
            emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION,
                           "QMD 0x%llx: release %u reductions are not emulated",
                           (unsigned long long)qva, i);
            return UINT64_MAX;
        }
        uint64_t va = nv_qmd_get(qmd, v, NV_QMD_RELEASE_ADDRESS_LOWER, i) |
                      nv_qmd_get(qmd, v, NV_QMD_RELEASE_ADDRESS_UPPER, i) << 32;
        uint64_t payload = nv_qmd_get(qmd, v, NV_QMD_RELEASE_PAYLOAD_LOWER, i);
        bool p64 = nv_qmd_get(qmd, v, NV_QMD_RELEASE_PAYLOAD64B, i);
        if (p64)
            payload |= nv_qmd_get(qmd, v, NV_QMD_RELEASE_PAYLOAD_UPPER, i) << 32;
        uint32_t st = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_RELEASE_STRUCTURE_SIZE, i);
        bool ts = st == NVCBC0_QMDV04_00_RELEASE_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS;
        bool is64 = p64 && st != NVCBC0_QMDV04_00_RELEASE_STRUCTURE_SIZE_SEMAPHORE_ONE_WORD;
        if (!emu_sem_release(c, va, payload, is64 || ts, ts))
            return UINT64_MAX;
    }

    if (nv_qmd_get(qmd, v, NV_QMD_DEPENDENT_QMD_ENABLE, 0)) {
        uint32_t action = (uint32_t)nv_qmd_get(qmd, v, NV_QMD_DEPENDENT_QMD_ACTION, 0);
        uint64_t next = nv_qmd_get(qmd, v, NV_QMD_DEPENDENT_QMD_POINTER, 0) << 8;
        if (action == NVCBC0_QMDV04_00_DEPENDENT_QMD_ACTION_QMD_SCHEDULE)
            return next;
        EMU_LOG("QMD 0x%llx: dependent QMD action %u ignored", (unsigned long long)qva, action);
    }
    return 0;
}

/* A QMD's grid and the chain of dependents it schedules. */
static bool run_chain(struct emu_chan *c, unsigned s, uint64_t qva)
{
    for (unsigned n = 0; qva; n++) {
        if (n == EMU_QMD_CHAIN_MAX) {
            emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION,
                           "dependent QMD chain longer than %u (a loop?)", EMU_QMD_CHAIN_MAX);
            return false;
        }
        qva = qmd_run(c, s, qva);
        if (qva == UINT64_MAX)
            return false;
    }
    return true;
}

/* Grids side by side. Two grids that a channel launches with no wait
 * between them may run at once on a GPU, in any order [H200: 20 copies
 * "ran" at 8.8 TB/s between releases folded into their QMDs]. The model
 * holds each launch back until something needs it ended, and runs a
 * launch that comes meanwhile first: what orders grids on the GPU (an
 * acquire of a grid's release, a wait for idle, a release that waits for
 * idle, a dependent QMD) orders them here too, and a grid that nothing
 * ordered after the one before is seen to have run ahead of it. The held
 * launch runs at a wait for idle (host or compute class), a release that
 * waits for idle, an inline upload or report semaphore of the compute
 * class, and whenever the channel stops for now (caught up, blocked in an
 * acquire, or out of its turn). HCQCL_EMU_OVERLAP=off runs each launch as
 * SEND_PCAS comes. */
static enum emu_mres pcas2_b(struct emu_chan *c, unsigned s, uint32_t mthd, uint32_t d)
{
    uint32_t action = NV_FIELD_GET(NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION, d);
    switch (action) {
    case NVCBC0_PCAS_ACTION_NOP:
    case NVCBC0_PCAS_ACTION_INVALIDATE:
    case NVCBC0_PCAS_ACTION_PREFETCH:
    case NVCBC0_PCAS_ACTION_INCREMENT_PUT:
    case NVCBC0_PCAS_ACTION_DECREMENT_DEPENDENCE:
        return EMU_M_OK;
    case NVCBC0_PCAS_ACTION_SCHEDULE:
    case NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_COPY_SCHEDULE:
    case NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE:
    case NVCBC0_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE:
    case NVCBC0_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING:
        break;
    default:
        emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION, "SEND_SIGNALING_PCAS2_B action %u invalid",
                       action);
        return EMU_M_ERROR;
    }
    const uint64_t qva = (uint64_t)emu_reg(c, s, NVCBC0_SEND_PCAS_A) << 8;
    if (strcmp(util_env()->emu_overlap, "off") == 0)
        return run_chain(c, s, qva) ? EMU_M_OK : EMU_M_ERROR;
    if (!c->defer_qva) {
        c->defer_qva = qva;
        c->defer_subch = s;
        return EMU_M_OK;
    }
    /* A second launch with no wait since the one held back: it runs first. */
    return run_chain(c, s, qva) && emu_compute_flush(c) ? EMU_M_OK : EMU_M_ERROR;
}

bool emu_compute_flush(struct emu_chan *c)
{
    const uint64_t qva = c->defer_qva;
    if (!qva)
        return true;
    c->defer_qva = 0;
    return atomic_load(&c->error) || run_chain(c, c->defer_subch, qva);
}

enum emu_mres emu_compute_wait_idle(struct emu_chan *c, unsigned s, uint32_t mthd, uint32_t d)
{
    return emu_compute_flush(c) ? EMU_M_OK : EMU_M_ERROR;
}

/* Inline-to-memory: LAUNCH_DMA sets up a pitch-linear destination, each
 * LOAD_INLINE_DATA word fills the next 4 bytes. */
static enum emu_mres i2m_launch(struct emu_chan *c, unsigned s, uint32_t mthd, uint32_t d)
{
    if (!emu_compute_flush(c))
        return EMU_M_ERROR;
    if (NV_FIELD_GET(NVCBC0_LAUNCH_DMA_DST_MEMORY_LAYOUT, d) != 1 ||
        NV_FIELD_GET(NVCBC0_LAUNCH_DMA_COMPLETION_TYPE, d) > 1) {
        emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION,
                       "inline LAUNCH_DMA 0x%x: only pitch destinations are emulated", d);
        return EMU_M_ERROR;
    }
    c->i2m_va = (uint64_t)(emu_reg(c, s, NVCBC0_OFFSET_OUT_UPPER) & 0x1ffffff) << 32 |
                emu_reg(c, s, NVCBC0_OFFSET_OUT);
    c->i2m_line = emu_reg(c, s, NVCBC0_LINE_LENGTH_IN);
    c->i2m_pitch = emu_reg(c, s, NVCBC0_PITCH_OUT);
    c->i2m_total = (uint64_t)c->i2m_line * emu_reg(c, s, NVCBC0_LINE_COUNT);
    c->i2m_pos = 0;
    return EMU_M_OK;
}

static enum emu_mres i2m_data(struct emu_chan *c, unsigned s, uint32_t mthd, uint32_t d)
{
    for (unsigned k = 0; k < 4 && c->i2m_pos < c->i2m_total; k++, c->i2m_pos++) {
        uint64_t line = c->i2m_pos / c->i2m_line, col = c->i2m_pos % c->i2m_line;
        uint8_t *p = emu_chan_ptr(c, c->i2m_va + line * c->i2m_pitch + col, 1, "inline data");
        if (!p)
            return EMU_M_ERROR;
        *p = (uint8_t)(d >> (8 * k));
    }
    return EMU_M_OK;
}

/* Legacy report semaphore: release only. */
static enum emu_mres report_sem_d(struct emu_chan *c, unsigned s, uint32_t mthd, uint32_t d)
{
    if (!emu_compute_flush(c))
        return EMU_M_ERROR;
    if (NV_FIELD_GET(NVCBC0_SET_REPORT_SEMAPHORE_D_OPERATION, d) != 0) {
        emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION,
                       "SET_REPORT_SEMAPHORE_D 0x%x: only releases are emulated", d);
        return EMU_M_ERROR;
    }
    uint64_t va = (uint64_t)(emu_reg(c, s, NVCBC0_SET_REPORT_SEMAPHORE_A) & 0x1ffffff) << 32 |
                  emu_reg(c, s, NVCBC0_SET_REPORT_SEMAPHORE_A + 4);
    uint32_t payload = emu_reg(c, s, NVCBC0_SET_REPORT_SEMAPHORE_A + 8);
    bool one = NV_FIELD_GET(NVCBC0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE, d);
    if (!one && !emu_sem_release(c, va, 0, true, true))
        return EMU_M_ERROR;
    return emu_sem_release(c, va, payload, false, false) ? EMU_M_OK : EMU_M_ERROR;
}

static const struct emu_mthd compute_mthds[] = {
    {NVCBC0_NO_OPERATION, 1, NULL},
    {NVCBC0_WAIT_FOR_IDLE, 1, emu_compute_wait_idle},
    {NVCBC0_PM_TRIGGER, 1, NULL},
    {NVCBC0_SET_REPORT_SEMAPHORE_PAYLOAD_LOWER, 4, NULL},
    {NVCBC0_LINE_LENGTH_IN, 4, NULL},
    {NVCBC0_PITCH_OUT, 1, NULL},
    {NVCBC0_SET_DST_BLOCK_SIZE, (NVCBC0_SET_DST_ORIGIN_BYTES_Y - NVCBC0_SET_DST_BLOCK_SIZE) / 4 + 1,
     NULL},
    {NVCBC0_LAUNCH_DMA, 1, i2m_launch},
    {NVCBC0_LOAD_INLINE_DATA, 1, i2m_data},
    {NVCBC0_INVALIDATE_SHADER_CACHES, 1, NULL},
    {NVCBC0_SET_SHADER_SHARED_MEMORY_WINDOW_A, 2, NULL},
    {NVCBC0_SEND_PCAS_A, 1, NULL},
    {NVCBC0_SEND_PCAS_B, 1, NULL},
    {NVCBC0_SEND_SIGNALING_PCAS2_B, 1, pcas2_b},
    {NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A, 3, NULL},
    {NVCBC0_SET_SHADER_LOCAL_MEMORY_THROTTLED_A, 3, NULL},
    {NVCBC0_SET_SHADER_LOCAL_MEMORY_A, 2, NULL},
    {NVCBC0_SET_SHADER_LOCAL_MEMORY_WINDOW_A, 2, NULL},
    {NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI, 1, NULL},
    {NVCBC0_SET_REPORT_SEMAPHORE_A, 3, NULL},
    {NVCBC0_SET_REPORT_SEMAPHORE_D, 1, report_sem_d},
};

struct emu_class emu_class_compute = {
    .cls = HOPPER_COMPUTE_A,
    .name = "HOPPER_COMPUTE_A",
    .mthds = compute_mthds,
    .n = UTIL_ARRAY_SIZE(compute_mthds),
    .error = ROBUST_CHANNEL_GR_EXCEPTION,
};

/*
 * Copy engine (HOPPER_DMA_COPY_A) of the GPU model: LAUNCH_DMA with
 * pitch-linear virtual addresses — 1-D copies, multi-line pitch copies,
 * remapped fills/swizzles with 1..4-byte components and 1..4 components —
 * followed by the optional semaphore release (one word; four words with
 * timestamp; 64-bit payload with SEMAPHORE_PAYLOAD_SIZE on Hopper).
 *
 * Copies may span several GPU mappings: every transfer walks the page
 * table span by span. Anything the model does not implement (block-linear
 * layouts, physical addresses, semaphore reductions) is a channel error,
 * never a silent skip.
 */
#include "emu/emu.h"
#include "emu/emu_hw.h"

#include <string.h>

#define CE_REG(c, s, m) emu_reg(c, s, m)

static bool ce_fault(struct emu_chan *c, const char *what, uint64_t va)
{
    emu_chan_error(c, ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT,
                   "MMU fault: copy engine %s at 0x%llx is not mapped", what,
                   (unsigned long long)va);
    return false;
}

/* memmove n bytes GPU VA src → dst, across mappings. */
static bool ce_copy(struct emu_chan *c, uint64_t dst, uint64_t src, uint64_t n)
{
    struct emu_tlb ts = {0}, td = {0};
    while (n) {
        uint8_t *hs, *hd;
        uint64_t a = emu_vm_span(&c->gpu->vm, &ts, src, n, &hs);
        if (!a)
            return ce_fault(c, "source", src);
        uint64_t b = emu_vm_span(&c->gpu->vm, &td, dst, a, &hd);
        if (!b)
            return ce_fault(c, "destination", dst);
        memmove(hd, hs, b);
        src += b;
        dst += b;
        n -= b;
    }
    return true;
}

/* Write n bytes of the period-esize pattern pat, starting at pattern
 * phase `phase`, to host memory d. */
static void fill_pattern(uint8_t *d, uint64_t n, const uint8_t *pat, unsigned esize, unsigned phase)
{
    uint64_t w = UTIL_MIN(n, esize);
    for (uint64_t k = 0; k < w; k++)
        d[k] = pat[(phase + k) % esize];
    while (w < n) {
        uint64_t m = UTIL_MIN((w / esize) * esize, n - w);
        memcpy(d + w, d, m);
        w += m;
    }
}

struct remap {
    unsigned csize, nsrc, ndst;
    unsigned sel[4];
    uint32_t const_a, const_b;
    bool reads_src, skips;
};

static void remap_decode(const struct emu_chan *c, unsigned s, struct remap *r)
{
    uint32_t w = CE_REG(c, s, NVC8B5_SET_REMAP_COMPONENTS);
    r->csize = NV_FIELD_GET(NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE, w) + 1;
    r->nsrc = NV_FIELD_GET(NVC8B5_SET_REMAP_COMPONENTS_NUM_SRC_COMPONENTS, w) + 1;
    r->ndst = NV_FIELD_GET(NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS, w) + 1;
    r->sel[0] = NV_FIELD_GET(NVC8B5_SET_REMAP_COMPONENTS_DST_X, w);
    r->sel[1] = NV_FIELD_GET(NVC8B5_SET_REMAP_COMPONENTS_DST_Y, w);
    r->sel[2] = NV_FIELD_GET(NVC8B5_SET_REMAP_COMPONENTS_DST_Z, w);
    r->sel[3] = NV_FIELD_GET(NVC8B5_SET_REMAP_COMPONENTS_DST_W, w);
    r->const_a = CE_REG(c, s, NVC8B5_SET_REMAP_CONST_A);
    r->const_b = CE_REG(c, s, NVC8B5_SET_REMAP_CONST_B);
    r->reads_src = r->skips = false;
    for (unsigned j = 0; j < r->ndst; j++) {
        r->reads_src |= r->sel[j] <= NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_W;
        r->skips |= r->sel[j] >= NVC8B5_SET_REMAP_COMPONENTS_DST_NO_WRITE;
    }
}

/* One line of a remapped transfer: n elements. */
static bool ce_remap_line(struct emu_chan *c, const struct remap *r, uint64_t dst, uint64_t src,
                          uint64_t n)
{
    unsigned dsize = r->csize * r->ndst, ssize = r->csize * r->nsrc;
    if (!r->reads_src && !r->skips) {
        /* A fill: one pattern element, repeated span by span. */
        uint8_t pat[16];
        for (unsigned j = 0; j < r->ndst; j++) {
            uint32_t v = r->sel[j] == NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A ? r->const_a
                                                                              : r->const_b;
            memcpy(pat + j * r->csize, &v, r->csize);
        }
        uint64_t total = n * dsize, done = 0;
        struct emu_tlb t = {0};
        while (done < total) {
            uint8_t *h;
            uint64_t a = emu_vm_span(&c->gpu->vm, &t, dst + done, total - done, &h);
            if (!a)
                return ce_fault(c, "destination", dst + done);
            fill_pattern(h, a, pat, dsize, (unsigned)(done % dsize));
            done += a;
        }
        return true;
    }
    /* General swizzle, element by element. */
    struct emu_tlb ts = {0}, td = {0};
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *s = NULL, *d;
        if (r->reads_src && !(s = emu_vm_translate(&c->gpu->vm, &ts, src + i * ssize, ssize)))
            return ce_fault(c, "source", src + i * ssize);
        if (!(d = emu_vm_translate(&c->gpu->vm, &td, dst + i * dsize, dsize)))
            return ce_fault(c, "destination", dst + i * dsize);
        uint8_t in[16];
        if (s)
            memcpy(in, s, ssize);
        for (unsigned j = 0; j < r->ndst; j++) {
            unsigned sel = r->sel[j];
            if (sel <= NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_W) {
                if (sel >= r->nsrc) {
                    emu_chan_error(c, ROBUST_CHANNEL_CE0_ERROR,
                                   "remap selects source component %u of %u", sel, r->nsrc);
                    return false;
                }
                memcpy(d + j * r->csize, in + sel * r->csize, r->csize);
            } else if (sel == NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A ||
                       sel == NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_B) {
                uint32_t v = sel == NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A ? r->const_a
                                                                            : r->const_b;
                memcpy(d + j * r->csize, &v, r->csize);
            }
        }
    }
    return true;
}

static bool ce_transfer(struct emu_chan *c, unsigned s, uint32_t d)
{
    if (NV_FIELD_GET(NVC8B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT, d) !=
            NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH ||
        NV_FIELD_GET(NVC8B5_LAUNCH_DMA_DST_MEMORY_LAYOUT, d) !=
            NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH) {
        emu_chan_error(c, ROBUST_CHANNEL_CE0_ERROR,
                       "LAUNCH_DMA 0x%08x: block-linear layouts are not emulated", d);
        return false;
    }
    if (NV_FIELD_GET(NVC8B5_LAUNCH_DMA_SRC_TYPE, d) ||
        NV_FIELD_GET(NVC8B5_LAUNCH_DMA_DST_TYPE, d)) {
        emu_chan_error(c, ROBUST_CHANNEL_CE0_ERROR,
                       "LAUNCH_DMA 0x%08x: physical addressing is not emulated", d);
        return false;
    }
    uint64_t src = (uint64_t)NV_FIELD_GET(NVC8B5_OFFSET_IN_UPPER_UPPER,
                                          CE_REG(c, s, NVC8B5_OFFSET_IN_UPPER))
                       << 32 |
                   CE_REG(c, s, NVC8B5_OFFSET_IN_LOWER);
    uint64_t dst = (uint64_t)NV_FIELD_GET(NVC8B5_OFFSET_OUT_UPPER_UPPER,
                                          CE_REG(c, s, NVC8B5_OFFSET_OUT_UPPER))
                       << 32 |
                   CE_REG(c, s, NVC8B5_OFFSET_OUT_LOWER);
    uint64_t len = CE_REG(c, s, NVC8B5_LINE_LENGTH_IN);
    bool multi = NV_FIELD_GET(NVC8B5_LAUNCH_DMA_MULTI_LINE_ENABLE, d);
    uint64_t lines = multi ? CE_REG(c, s, NVC8B5_LINE_COUNT) : 1;
    uint64_t pin = multi ? CE_REG(c, s, NVC8B5_PITCH_IN) : 0;
    uint64_t pout = multi ? CE_REG(c, s, NVC8B5_PITCH_OUT) : 0;
    bool remap = NV_FIELD_GET(NVC8B5_LAUNCH_DMA_REMAP_ENABLE, d);
    struct remap r = {0};
    if (remap)
        remap_decode(c, s, &r);
    for (uint64_t l = 0; l < lines; l++) {
        bool ok = remap ? ce_remap_line(c, &r, dst + l * pout, src + l * pin, len)
                        : ce_copy(c, dst + l * pout, src + l * pin, len);
        if (!ok)
            return false;
    }
    return true;
}

/* The copy engine's own interrupts: on the graphics runlist the channel's
 * copies run on the graphics copy engine, COPY0. */
static uint32_t ce_notifier(const struct emu_chan *c)
{
    return c->engine == NV2080_ENGINE_TYPE_GRAPHICS ? NV2080_NOTIFIERS_CE(0)
                                                    : emu_chan_notifier(c);
}

static enum emu_mres launch_dma(struct emu_chan *c, unsigned s, uint32_t mthd, uint32_t d)
{
    uint32_t xfer = NV_FIELD_GET(NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE, d);
    if (xfer == 3) {
        emu_chan_error(c, ROBUST_CHANNEL_CE0_ERROR, "LAUNCH_DMA 0x%08x: transfer type 3", d);
        return EMU_M_ERROR;
    }
    if (xfer != NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NONE && !ce_transfer(c, s, d))
        return EMU_M_ERROR;

    uint32_t intr = NV_FIELD_GET(NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE, d);
    if (intr != NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE_NONE &&
        intr != NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE_NON_BLOCKING) {
        emu_chan_error(c, ROBUST_CHANNEL_CE0_ERROR,
                       "LAUNCH_DMA 0x%08x: interrupt type %u not emulated", d, intr);
        return EMU_M_ERROR;
    }
    uint32_t sem = NV_FIELD_GET(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE, d);
    if (sem == NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE) {
        if (intr)
            emu_event_post(c->gpu, ce_notifier(c));
        return EMU_M_OK;
    }
    if (sem == NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_CONDITIONAL_INTR_SEMAPHORE ||
        NV_FIELD_GET(NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_ENABLE, d)) {
        emu_chan_error(c, ROBUST_CHANNEL_CE0_ERROR,
                       "LAUNCH_DMA 0x%08x: semaphore mode not emulated", d);
        return EMU_M_ERROR;
    }
    uint64_t va = (uint64_t)NV_FIELD_GET(NVC8B5_SET_SEMAPHORE_A_UPPER,
                                         CE_REG(c, s, NVC8B5_SET_SEMAPHORE_A))
                      << 32 |
                  CE_REG(c, s, NVC8B5_SET_SEMAPHORE_B);
    uint64_t payload = CE_REG(c, s, NVC8B5_SET_SEMAPHORE_PAYLOAD);
    bool is64 = NV_FIELD_GET(NVC8B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE, d);
    if (is64)
        payload |= (uint64_t)CE_REG(c, s, NVC8B5_SET_SEMAPHORE_PAYLOAD_UPPER) << 32;
    bool ok;
    if (sem == NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD_SEMAPHORE)
        ok = emu_sem_release(c, va, payload, false, false); /* low 32 bits, no timestamp */
    else
        ok = emu_sem_release(c, va, payload, true, true); /* zero-extended unless 64-bit */
    if (!ok)
        return EMU_M_ERROR;
    /* The non-blocking interrupt follows the release. */
    if (intr)
        emu_event_post(c->gpu, ce_notifier(c));
    return EMU_M_OK;
}

static const struct emu_mthd copy_mthds[] = {
    {NVC8B5_NOP, 1, NULL},
    {NVC8B5_PM_TRIGGER, 1, NULL},
    {NVC8B5_SET_SEMAPHORE_A, 4, NULL},
    {NVC8B5_SET_RENDER_ENABLE_A, 3, NULL},
    {NVC8B5_SET_SRC_PHYS_MODE, 2, NULL},
    {NVC8B5_LAUNCH_DMA, 1, launch_dma},
    {NVC8B5_OFFSET_IN_UPPER, 8, NULL},
    {NVC8B5_SET_REMAP_CONST_A, 3, NULL},
    {NVC8B5_SET_DST_BLOCK_SIZE, (NVC8B5_SET_SRC_ORIGIN - NVC8B5_SET_DST_BLOCK_SIZE) / 4 + 1, NULL},
};

struct emu_class emu_class_copy = {
    .cls = HOPPER_DMA_COPY_A,
    .name = "HOPPER_DMA_COPY_A",
    .mthds = copy_mthds,
    .n = UTIL_ARRAY_SIZE(copy_mthds),
    .error = ROBUST_CHANNEL_CE0_ERROR,
};

/*
 * builtin_emu.c — host versions of the built-in kernels for the emulated
 * device (emu_kernel.h), built into the library so that the emulated GPU
 * always runs them: CI then takes the same compute-engine path for
 * device-to-device copies as the H200 (QMD, constant bank, launch).
 *
 * Each host function does what ONE thread block of kernels.cu does, with
 * the work split of builtin.h: the head bytes in block 0, the tail bytes
 * in the last block, and the rows of units the block owns. A row is a
 * contiguous run of units, so the block's threads together move it with
 * one memmove. A GPU address that is not mapped ends the block (the model
 * has recorded the fault, as the GPU would raise an MMU fault).
 */
#include <errno.h>
#include <string.h>

#include "builtin/builtin.h"
#include "emu/emu_kernel.h"
#include "util/util.h"

/* Move len bytes src -> dst (GPU VAs); false after a fault. */
static bool emu_move(const struct emu_block *b, uint64_t dst, uint64_t src, uint64_t len)
{
    if (!len)
        return true;
    const void *s = b->ptr(b, src, len);
    void *d = s ? b->ptr(b, dst, len) : NULL;
    if (!d)
        return false;
    memmove(d, s, len);
    return true;
}

static void host_copy(const struct emu_block *b, unsigned unroll)
{
    const uint64_t dst = emu_param_u64(b, 0), src = emu_param_u64(b, 8),
                   size = emu_param_u64(b, 16);
    const uint64_t threads = b->block[0], blocks = b->grid[0], id = b->block_id[0];
    const uint64_t x = (dst ^ src) | 16, w = x & (0 - x);
    const uint64_t head = UTIL_MIN((0 - dst) & (w - 1), size);
    const uint64_t n = (size - head) / w;
    const uint64_t tail_at = head + n * w;
    /* Head and tail: one byte per thread, threads below the count. */
    if (id == 0 && !emu_move(b, dst, src, UTIL_MIN(head, threads)))
        return;
    if (id == blocks - 1 &&
        !emu_move(b, dst + tail_at, src + tail_at, UTIL_MIN(size - tail_at, threads)))
        return;
    const uint64_t row = threads * unroll, step = blocks * row;
    for (uint64_t r = id * row; r < n; r += step) {
        uint64_t units = UTIL_MIN(row, n - r);
        if (!emu_move(b, dst + head + r * w, src + head + r * w, units * w))
            return;
    }
}

/* hcq_copy_d2d_bulk: chunks of the w = 16 body, round robin. */
static void host_copy_bulk(const struct emu_block *b)
{
    const uint64_t dst = emu_param_u64(b, 0), src = emu_param_u64(b, 8),
                   size = emu_param_u64(b, 16);
    const uint64_t x = (dst ^ src) | 16;
    if ((x & (0 - x)) != 16) {
        host_copy(b, 4);
        return;
    }
    const uint64_t threads = b->block[0], blocks = b->grid[0], id = b->block_id[0];
    const uint64_t head = UTIL_MIN((0 - dst) & 15, size);
    const uint64_t body = (size - head) / 16 * 16, tail_at = head + body;
    if (id == 0 && !emu_move(b, dst, src, UTIL_MIN(head, threads)))
        return;
    if (id == blocks - 1 &&
        !emu_move(b, dst + tail_at, src + tail_at, UTIL_MIN(size - tail_at, threads)))
        return;
    const uint64_t chunk = HCQ_BUILTIN_BULK_CHUNK;
    for (uint64_t off = id * chunk; off < body; off += blocks * chunk)
        if (!emu_move(b, dst + head + off, src + head + off, UTIL_MIN(chunk, body - off)))
            return;
}

static void host_copy_u4(const struct emu_block *b) { host_copy(b, 4); }
static void host_copy_u2(const struct emu_block *b) { host_copy(b, 2); }
static void host_copy_u1(const struct emu_block *b) { host_copy(b, 1); }
static void host_copy_u8(const struct emu_block *b) { host_copy(b, 8); }

/* hcq_fill(dst, size, q[128]): byte j of the range is q[(j - head) % 128]. */
static void host_fill(const struct emu_block *b)
{
    const uint64_t dst = emu_param_u64(b, 0), size = emu_param_u64(b, 8);
    if (b->param_size < 16 + 128)
        return;
    const uint8_t *q = b->params + 16;
    const uint64_t threads = b->block[0], blocks = b->grid[0], id = b->block_id[0];
    const uint64_t head = UTIL_MIN((0 - dst) & 15, size);
    const uint64_t n = (size - head) / 16, tail_at = head + n * 16;
    if (id == 0) {
        uint64_t cnt = UTIL_MIN(head, threads);
        uint8_t *d = cnt ? b->ptr(b, dst, cnt) : NULL;
        if (cnt && !d)
            return;
        for (uint64_t j = 0; j < cnt; j++)
            d[j] = q[(j - head) & 127];
    }
    if (id == blocks - 1) {
        uint64_t cnt = UTIL_MIN(size - tail_at, threads);
        uint8_t *d = cnt ? b->ptr(b, dst + tail_at, cnt) : NULL;
        if (cnt && !d)
            return;
        for (uint64_t j = 0; j < cnt; j++)
            d[j] = q[(tail_at - head + j) & 127];
    }
    const uint64_t row = threads * 4, step = blocks * row;
    for (uint64_t r = id * row; r < n; r += step) {
        uint64_t units = UTIL_MIN(row, n - r);
        uint8_t *d = b->ptr(b, dst + head + r * 16, units * 16);
        if (!d)
            return;
        /* Rows start at multiples of 8 units: unit u holds word u % 8. */
        for (uint64_t u = 0; u < units; u++)
            memcpy(d + u * 16, q + (u & 7) * 16, 16);
    }
}

int hcq_builtin_emu_register(struct emu_kernel_registry *reg)
{
#if HCQCL_BUILTIN_KERNELS
    static const struct {
        enum hcq_builtin_copy_variant v;
        unsigned unroll;
        emu_kernel_fn fn;
    } fns[] = {
        {HCQ_BUILTIN_COPY_U4, 4, host_copy_u4},
        {HCQ_BUILTIN_COPY_U2, 2, host_copy_u2},
        {HCQ_BUILTIN_COPY_U8, 8, host_copy_u8},
        {HCQ_BUILTIN_COPY_BULK, 4, host_copy_bulk},
        {HCQ_BUILTIN_COPY_U1, 1, host_copy_u1},
        {HCQ_BUILTIN_COPY_U1P, 1, host_copy_u1},
        {HCQ_BUILTIN_COPY_U2P, 2, host_copy_u2},
        /* Given one block per row of an aligned copy (builtin.c makes
         * sure), the general split is theirs. */
        {HCQ_BUILTIN_COPY_A16U1, 1, host_copy_u1},
        {HCQ_BUILTIN_COPY_A16U2, 2, host_copy_u2},
    };
    _Static_assert(UTIL_ARRAY_SIZE(fns) == HCQ_BUILTIN_COPY_VARIANTS, "a host version per kernel");
    int rc = reg->add_cubin(reg, hcq_builtin_cubin, hcq_builtin_cubin_size);
    for (size_t i = 0; rc == 0 && i < UTIL_ARRAY_SIZE(fns); i++) {
        /* The unroll is part of the work split: it must be the kernel's. */
        if (hcq_builtin_copy_unroll(fns[i].v) != fns[i].unroll)
            return -EINVAL;
        rc = reg->add(reg, hcq_builtin_copy_name(fns[i].v), fns[i].fn);
    }
    if (rc == 0)
        rc = reg->add(reg, "hcq_fill", host_fill);
    return rc;
#else
    (void)reg;
    (void)host_copy_u4;
    (void)host_copy_u2;
    (void)host_copy_u1;
    (void)host_copy_u8;
    (void)host_fill;
    (void)host_copy_bulk;
    return -ENOTSUP;
#endif
}

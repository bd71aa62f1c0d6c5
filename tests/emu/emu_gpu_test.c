/*
 * The emulated GPU: hand-built pushbuffers on real GPFIFO channels —
 * host semaphores (release, timestamps, blocking acquires, cross-channel
 * order), copy-engine copies, fills and semaphores, a QMD V04 launch of
 * the registered vadd host kernel (QMD release, dependent QMD), the H200's
 * silent skip of V03 and non-GRID_CTA QMDs, and channel errors written to
 * the error notifier.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cubin/cubin.h"
#include "emu_harness.h"
#include "nv/nv.h"
#include "util/util.h"

static struct harness H;
static struct h_mem sig; /* semaphore slots, 16 bytes each */

static volatile uint64_t *slot(unsigned i) { return (volatile uint64_t *)(sig.cpu + 16 * i); }
static uint64_t slot_va(unsigned i) { return sig.va + 16 * i; }

static void sleep_ms(unsigned ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&t, NULL);
}

static void test_host_semaphores(void)
{
    struct h_chan *c = &H.compute, *k = &H.copy;
    h_begin(&H, c);
    h_release(c, slot_va(0), 0x123456789ull);
    h_word(c, nv_mthd_incr(NV_SUBC_HOST, NVC86F_NON_STALL_INTERRUPT, 1));
    h_word(c, 0);
    h_submit(&H, c);
    CHECK(h_wait64(slot(0), 0x123456789ull));
    CHECK(slot(0)[1] != 0); /* timestamp */

    /* Compute blocks on slot 1 >= 5; copy is not held up by it. */
    h_begin(&H, c);
    h_acquire(c, slot_va(1), 5);
    h_release(c, slot_va(2), 1);
    h_submit(&H, c);
    h_begin(&H, k);
    h_release(k, slot_va(3), 7);
    h_submit(&H, k);
    CHECK(h_wait64(slot(3), 7));
    sleep_ms(5);
    CHECK_EQ(*slot(2), 0);
    /* The copy channel releases 5: the compute channel proceeds. */
    h_begin(&H, k);
    h_release(k, slot_va(1), 5);
    h_submit(&H, k);
    CHECK(h_wait64(slot(2), 1));

    /* 32-bit release writes only the low word; immediate-data methods. */
    *slot(4) = ~0ull;
    h_begin(&H, c);
    uint32_t w[5] = {(uint32_t)slot_va(4), (uint32_t)(slot_va(4) >> 32), 0xabcd, 0x9999,
                     NV_FIELD_NUM(NVC86F_SEM_EXECUTE_OPERATION,
                                  NVC86F_SEM_EXECUTE_OPERATION_RELEASE)};
    h_incr(c, NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, 5, w);
    h_word(c, nv_mthd_immd(NV_SUBC_HOST, NVC86F_NON_STALL_INTERRUPT, 0));
    h_release(c, slot_va(5), 1);
    h_submit(&H, c);
    CHECK(h_wait64(slot(5), 1));
    CHECK_EQ(*slot(4), 0xffffffff0000abcdull);
}

static void sem_op(struct h_chan *c, uint64_t va, uint64_t payload, uint32_t exec)
{
    uint32_t w[5] = {(uint32_t)va, (uint32_t)(va >> 32), (uint32_t)payload,
                     (uint32_t)(payload >> 32), exec};
    h_incr(c, NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, 5, w);
}

/* ACQ_AND / ACQ_NOR / ACQ_STRICT_GEQ, reductions, inline-to-memory. */
static void test_semaphore_ops(void)
{
    struct h_chan *c = &H.compute;
    const uint32_t op = 0; /* SEM_EXECUTE_OPERATION lives in bits 2:0 */
    *slot(16) = 0x10; /* bit 4 set, bit 5 clear */
    *slot(17) = 10;
    h_begin(&H, c);
    sem_op(c, slot_va(16), 0x10, op | NVC86F_SEM_EXECUTE_OPERATION_ACQ_AND);
    sem_op(c, slot_va(16), ~0x20u & 0xffffffffu, op | NVC86F_SEM_EXECUTE_OPERATION_ACQ_NOR);
    sem_op(c, slot_va(17), 10, op | NVC86F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ);
    /* 64-bit IADD reduction: 10 + 5. */
    sem_op(c, slot_va(17), 5,
           NVC86F_SEM_EXECUTE_OPERATION_REDUCTION |
               NV_FIELD_NUM(NVC86F_SEM_EXECUTE_REDUCTION, 5) |
               NV_FIELD_NUM(NVC86F_SEM_EXECUTE_REDUCTION_FORMAT, 1) |
               NV_FIELD_NUM(NVC86F_SEM_EXECUTE_PAYLOAD_SIZE, 1));
    /* Inline-to-memory: 6 bytes into slot 18. */
    uint32_t i2m[4] = {6, 1, (uint32_t)(slot_va(18) >> 32), (uint32_t)slot_va(18)};
    h_incr(c, NV_SUBC_COMPUTE, NVCBC0_LINE_LENGTH_IN, 4, i2m);
    h_incr(c, NV_SUBC_COMPUTE, NVCBC0_LAUNCH_DMA, 1, (uint32_t[]){1}); /* pitch */
    h_word(c, nv_mthd_non_incr(NV_SUBC_COMPUTE, NVCBC0_LOAD_INLINE_DATA, 2));
    h_word(c, 0x44332211);
    h_word(c, 0x88776655);
    h_release(c, slot_va(19), 1);
    /* An AND that cannot be satisfied yet blocks what follows. */
    sem_op(c, slot_va(16), 0x100, op | NVC86F_SEM_EXECUTE_OPERATION_ACQ_AND);
    h_release(c, slot_va(19), 2);
    h_submit(&H, c);
    CHECK(h_wait64(slot(19), 1));
    CHECK_EQ(*slot(17), 15);
    CHECK_EQ(*slot(18), 0x665544332211ull);
    sleep_ms(5);
    CHECK_EQ(*slot(19), 1);
    __atomic_store_n(slot(16), 0x110, __ATOMIC_RELEASE);
    CHECK(h_wait64(slot(19), 2));
}

static void test_copy_engine(void)
{
    struct h_chan *k = &H.copy;
    struct h_mem a, b;
    h_alloc(&H, 1 << 20, false, &a);
    h_alloc(&H, 1 << 20, false, &b);
    for (uint32_t i = 0; i < (1u << 20) / 4; i++)
        ((uint32_t *)a.cpu)[i] = i * 2654435761u;
    /* 1-D copy of 1 MiB. */
    h_begin(&H, k);
    uint32_t off[4] = {(uint32_t)(a.va >> 32), (uint32_t)a.va, (uint32_t)(b.va >> 32), (uint32_t)b.va};
    h_incr(k, NV_SUBC_COPY, NVC8B5_OFFSET_IN_UPPER, 4, off);
    h_incr(k, NV_SUBC_COPY, NVC8B5_LINE_LENGTH_IN, 1, (uint32_t[]){1u << 20});
    h_incr(k, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, 1, (uint32_t[]){NV_LAUNCH_DMA_COPY});
    /* Four-word semaphore, 32-bit payload: zero-extended + timestamp. */
    *slot(6) = ~0ull;
    uint32_t sem[3] = {(uint32_t)(slot_va(6) >> 32), (uint32_t)slot_va(6), 0x80000001u};
    h_incr(k, NV_SUBC_COPY, NVC8B5_SET_SEMAPHORE_A, 3, sem);
    h_incr(k, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, 1, (uint32_t[]){0x14});
    h_submit(&H, k);
    CHECK(h_wait64(slot(6), 0x80000001ull));
    CHECK(slot(6)[1] != 0);
    CHECK(!memcmp(a.cpu, b.cpu, 1 << 20));

    /* Multi-line pitch copy: 3 lines of 100 bytes, pitches 256 / 128. */
    memset(b.cpu, 0, 4096);
    h_begin(&H, k);
    h_incr(k, NV_SUBC_COPY, NVC8B5_OFFSET_IN_UPPER, 4, off);
    uint32_t geo[4] = {256, 128, 100, 3}; /* PITCH_IN, PITCH_OUT, LINE_LENGTH_IN, LINE_COUNT */
    h_incr(k, NV_SUBC_COPY, NVC8B5_PITCH_IN, 4, geo);
    h_incr(k, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, 1,
           (uint32_t[]){NV_LAUNCH_DMA_COPY | NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_MULTI_LINE_ENABLE, 1)});
    /* One-word semaphore: low 32 bits, no timestamp. */
    slot(7)[1] = 0;
    uint32_t sem1[3] = {(uint32_t)(slot_va(7) >> 32), (uint32_t)slot_va(7), 42};
    h_incr(k, NV_SUBC_COPY, NVC8B5_SET_SEMAPHORE_A, 3, sem1);
    h_incr(k, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, 1,
           (uint32_t[]){NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE, 1)});
    h_submit(&H, k);
    CHECK(h_wait64(slot(7), 42));
    CHECK_EQ(slot(7)[1], 0);
    for (int l = 0; l < 3; l++) {
        CHECK(!memcmp(b.cpu + 128 * l, a.cpu + 256 * l, 100));
        CHECK_EQ(b.cpu[128 * l + 100], 0);
    }

    /* Fills: 4-byte CONST_B, 1-byte, 8-byte (CONST_A + CONST_B), then a
     * 2-byte 3-component swizzle reading the source. */
    uint32_t comps;
    struct {
        unsigned psize;
        uint64_t pattern;
    } fills[] = {{4, 0xdeadbeef}, {1, 0x5c}, {8, 0x0123456789abcdefull}, {2, 0xbeef}};
    for (unsigned f = 0; f < 4; f++) {
        CHECK_EQ(nv_remap_fill_components(fills[f].psize, &comps), 0);
        h_begin(&H, k);
        /* 8 bytes: low half in CONST_A (component X), high in CONST_B. */
        uint32_t consts[3] = {0, (uint32_t)fills[f].pattern, comps};
        if (fills[f].psize == 8) {
            consts[0] = (uint32_t)fills[f].pattern;
            consts[1] = (uint32_t)(fills[f].pattern >> 32);
        }
        h_incr(k, NV_SUBC_COPY, NVC8B5_SET_REMAP_CONST_A, 3, consts);
        h_incr(k, NV_SUBC_COPY, NVC8B5_OFFSET_OUT_UPPER, 2,
               (uint32_t[]){(uint32_t)(b.va >> 32), (uint32_t)b.va + 8});
        h_incr(k, NV_SUBC_COPY, NVC8B5_LINE_LENGTH_IN, 1, (uint32_t[]){4096 / fills[f].psize});
        h_incr(k, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, 1, (uint32_t[]){NV_LAUNCH_DMA_FILL});
        h_release(k, slot_va(8), f + 1);
        h_submit(&H, k);
        CHECK(h_wait64(slot(8), f + 1));
        for (unsigned i = 0; i < 4096; i++)
            CHECK_EQ(b.cpu[8 + i], (uint8_t)(fills[f].pattern >> (8 * (i % fills[f].psize))));
    }
    h_begin(&H, k);
    uint32_t sw = NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_DST_X, 2) |
                  NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_DST_Y, 0) |
                  NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_DST_Z, 4) |
                  NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE, 1) |
                  NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_NUM_SRC_COMPONENTS, 2) |
                  NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS, 2);
    h_incr(k, NV_SUBC_COPY, NVC8B5_SET_REMAP_CONST_A, 3, (uint32_t[]){0x7777, 0, sw});
    h_incr(k, NV_SUBC_COPY, NVC8B5_OFFSET_IN_UPPER, 4, off);
    h_incr(k, NV_SUBC_COPY, NVC8B5_LINE_LENGTH_IN, 1, (uint32_t[]){10});
    h_incr(k, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, 1, (uint32_t[]){NV_LAUNCH_DMA_FILL});
    /* 64-bit four-word semaphore (Hopper bit 27 + PAYLOAD_UPPER). */
    uint32_t sem64[4] = {(uint32_t)(slot_va(9) >> 32), (uint32_t)slot_va(9), 0x9abcdef0u, 0x12345678u};
    h_incr(k, NV_SUBC_COPY, NVC8B5_SET_SEMAPHORE_A, 4, sem64);
    h_incr(k, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, 1, (uint32_t[]){NV_LAUNCH_DMA_SEMAPHORE_64_TS});
    h_submit(&H, k);
    CHECK(h_wait64(slot(9), 0x123456789abcdef0ull));
    const uint16_t *s16 = (const uint16_t *)a.cpu, *d16 = (const uint16_t *)b.cpu;
    for (unsigned i = 0; i < 10; i++) {
        CHECK_EQ(d16[3 * i + 0], s16[3 * i + 2]);
        CHECK_EQ(d16[3 * i + 1], s16[3 * i + 0]);
        CHECK_EQ(d16[3 * i + 2], 0x7777);
    }
    h_free(&H, &a);
    h_free(&H, &b);
}

/* ---- kernels ---- */

struct program {
    struct cubin *cb;
    const struct cubin_kernel *k;
    struct h_mem code;
};

static bool load_vadd(struct program *p)
{
    const char *dir = getenv("HCQCL_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof(path), "%s/test_kernels.cubin", dir ? dir : ".");
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    char log[256];
    CHECK_EQ(cubin_parse(buf, n, &p->cb, log, sizeof(log)), 0);
    p->k = cubin_kernel(p->cb, "vadd");
    CHECK(p->k != NULL);
    h_alloc(&H, p->cb->image_size + 4096, false, &p->code);
    memcpy(p->code.cpu, p->cb->image, p->cb->image_size);
    cubin_relocate(p->cb, p->code.cpu, p->code.va);
    return true;
}

/* A V04 QMD for vadd at qmd (CPU qcpu), kernarg block at args. */
static void build_qmd(const struct program *p, uint32_t *q, uint64_t args_va, uint32_t args_size,
                      uint32_t grid, uint32_t block)
{
    enum nv_qmd_version v = NV_QMD_V04_00;
    memset(q, 0, NV_QMD_MAX_BYTES);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_QMD_MAJOR_VERSION, 0, 4), 0);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_QMD_TYPE, 0, NVCBC0_QMDV04_00_QMD_TYPE_GRID_CTA), 0);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_GRID_WIDTH, 0, grid), 0);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_GRID_HEIGHT, 0, 1), 0);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_GRID_DEPTH, 0, 1), 0);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_CTA_THREAD_DIMENSION0, 0, block), 0);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_CTA_THREAD_DIMENSION1, 0, 1), 0);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_CTA_THREAD_DIMENSION2, 0, 1), 0);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_SHARED_MEMORY_SIZE, 0, 0x400), 0);
    CHECK_EQ(nv_qmd_set_program(q, v, p->code.va + p->k->text_offset, p->k->text_size), 0);
    CHECK_EQ(nv_qmd_set(q, v, NV_QMD_CONSTANT_BUFFER_VALID, 0, 1), 0);
    CHECK_EQ(nv_qmd_set_cbuf(q, v, 0, args_va, args_size), 0);
}

static void test_kernels(void)
{
    struct program p;
    if (!load_vadd(&p)) {
        printf("emu_gpu: no test_kernels.cubin in HCQCL_TEST_DATA, kernel launches not tested\n");
        return;
    }
    struct h_chan *c = &H.compute;
    const int n = 1000;
    struct h_mem buf, args;
    h_alloc(&H, 3 * 4096, false, &buf);
    h_alloc(&H, 0x10000, false, &args);
    float *a = (float *)buf.cpu, *b = a + 1024, *out = b + 1024;
    for (int i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    /* cbuf0: dims, then parameters at the kernel's bank-0 offset. */
    uint32_t asize = p.k->cbuf0_size;
    uint32_t *cb0 = (uint32_t *)args.cpu;
    cb0[0] = 128, cb0[1] = 1, cb0[2] = 1, cb0[3] = 8, cb0[4] = 1, cb0[5] = 1;
    uint8_t *pp = args.cpu + p.k->param_base;
    uint64_t va_a = buf.va, va_b = buf.va + 4096, va_c = buf.va + 8192;
    memcpy(pp + 0, &va_a, 8);
    memcpy(pp + 8, &va_b, 8);
    memcpy(pp + 16, &va_c, 8);
    int32_t k = 3;
    memcpy(pp + 24, &k, 4);
    memcpy(pp + 28, &n, 4);
    uint32_t *q = (uint32_t *)(args.cpu + 0x1000), *q2 = (uint32_t *)(args.cpu + 0x1200);
    build_qmd(&p, q, args.va, asize, 8, 128);
    CHECK_EQ(nv_qmd_set_release(q, NV_QMD_V04_00, 0, slot_va(10), 0x1122334455ull), 0);
    CHECK_EQ(nv_qmd_set(q, NV_QMD_V04_00, NV_QMD_RELEASE_ENABLE, 0, 1), 0);
    CHECK_EQ(nv_qmd_set(q, NV_QMD_V04_00, NV_QMD_RELEASE_PAYLOAD64B, 0, 1), 0);
    /* The dependent QMD runs the same grid again with its own release. */
    build_qmd(&p, q2, args.va, asize, 8, 128);
    CHECK_EQ(nv_qmd_set_release(q2, NV_QMD_V04_00, 1, slot_va(11), 77), 0);
    CHECK_EQ(nv_qmd_set(q2, NV_QMD_V04_00, NV_QMD_RELEASE_ENABLE, 1, 1), 0);
    CHECK_EQ(nv_qmd_set_dependent(q, NV_QMD_V04_00, 0, args.va + 0x1200), 0);

    h_begin(&H, c);
    h_incr(c, NV_SUBC_COMPUTE, NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI, 1,
           (uint32_t[]){NV_INVALIDATE_SHADER_CACHES_ALL});
    h_incr(c, NV_SUBC_COMPUTE, NVCBC0_SEND_PCAS_A, 1, (uint32_t[]){(uint32_t)((args.va + 0x1000) >> 8)});
    h_incr(c, NV_SUBC_COMPUTE, NVCBC0_SEND_SIGNALING_PCAS2_B, 1,
           (uint32_t[]){NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE});
    h_release(c, slot_va(12), 1);
    h_submit(&H, c);
    CHECK(h_wait64(slot(12), 1));
    CHECK_EQ(*slot(10), 0x1122334455ull);
    CHECK(slot(10)[1] != 0);
    CHECK_EQ(*slot(11), 77);
    for (int i = 0; i < n; i++)
        CHECK(out[i] == a[i] + b[i] + 3.0f);
    CHECK(out[n] == 0.0f);

    /* A V03 QMD on Hopper, and a V04 one with QMD_TYPE QUEUE: silently not
     * run; the channel carries on. */
    memset(out, 0, 4096);
    build_qmd(&p, q, args.va, asize, 8, 128);
    CHECK_EQ(nv_qmd_set(q, NV_QMD_V04_00, NV_QMD_QMD_MAJOR_VERSION, 0, 3), 0);
    build_qmd(&p, q2, args.va, asize, 8, 128);
    CHECK_EQ(nv_qmd_set(q2, NV_QMD_V04_00, NV_QMD_QMD_TYPE, 0, 0), 0);
    h_begin(&H, c);
    for (unsigned i = 0; i < 2; i++) {
        h_incr(c, NV_SUBC_COMPUTE, NVCBC0_SEND_PCAS_A, 1,
               (uint32_t[]){(uint32_t)((args.va + 0x1000 + 0x200 * i) >> 8)});
        h_incr(c, NV_SUBC_COMPUTE, NVCBC0_SEND_SIGNALING_PCAS2_B, 1, (uint32_t[]){9});
    }
    h_release(c, slot_va(12), 2);
    h_submit(&H, c);
    CHECK(h_wait64(slot(12), 2));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == 0.0f);
    CHECK_EQ(h_notifier_status(c), 0);

    /* A launch whose code matches no registered kernel: channel error,
     * or with HCQCL_EMU_UNKNOWN_KERNELS=skip a grid that does nothing. */
    const bool skip = !strcmp(util_env()->emu_unknown, "skip");
    struct h_chan e;
    h_chan_init(&H, &e, 2, HOPPER_COMPUTE_A, NV_SUBC_COMPUTE, true);
    build_qmd(&p, q, args.va, asize, 1, 32);
    CHECK_EQ(nv_qmd_set_program(q, NV_QMD_V04_00, buf.va, 256), 0);
    h_begin(&H, &e);
    h_incr(&e, NV_SUBC_COMPUTE, NVCBC0_SEND_PCAS_A, 1, (uint32_t[]){(uint32_t)((args.va + 0x1000) >> 8)});
    h_incr(&e, NV_SUBC_COMPUTE, NVCBC0_SEND_SIGNALING_PCAS2_B, 1, (uint32_t[]){9});
    h_release(&e, slot_va(13), 1);
    h_submit(&H, &e);
    if (skip) {
        CHECK(h_wait64(slot(13), 1));
        CHECK_EQ(h_notifier_status(&e), 0);
    } else {
        for (int t = 0; t < 5000 && h_notifier_status(&e) != 0xffff; t++)
            sleep_ms(1);
        CHECK_EQ(h_notifier_status(&e), 0xffff);
        CHECK_EQ(h_notifier_info32(&e), 13); /* ROBUST_CHANNEL_GR_EXCEPTION */
        CHECK_EQ(*slot(13), 0);
    }

    /* A kernel touching unmapped memory: MMU fault. */
    struct h_chan f;
    h_chan_init(&H, &f, 3, HOPPER_COMPUTE_A, NV_SUBC_COMPUTE, true);
    uint64_t bad = 0x1ff0000000ull;
    memcpy(pp + 16, &bad, 8);
    build_qmd(&p, q, args.va, asize, 8, 128);
    h_begin(&H, &f);
    h_incr(&f, NV_SUBC_COMPUTE, NVCBC0_SEND_PCAS_A, 1, (uint32_t[]){(uint32_t)((args.va + 0x1000) >> 8)});
    h_incr(&f, NV_SUBC_COMPUTE, NVCBC0_SEND_SIGNALING_PCAS2_B, 1, (uint32_t[]){9});
    h_submit(&H, &f);
    for (int t = 0; t < 5000 && h_notifier_status(&f) != 0xffff; t++)
        sleep_ms(1);
    CHECK_EQ(h_notifier_info32(&f), 31); /* ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT */

    h_free(&H, &buf);
    h_free(&H, &args);
    h_free(&H, &p.code);
    cubin_free(p.cb);
}

static void wait_error(struct h_chan *c, uint32_t code)
{
    for (int t = 0; t < 5000 && h_notifier_status(c) != 0xffff; t++)
        sleep_ms(1);
    CHECK_EQ(h_notifier_status(c), 0xffff);
    CHECK_EQ(h_notifier_info32(c), code);
}

static void test_channel_errors(void)
{
    /* An unknown compute method: GR exception, nothing after it runs. */
    struct h_chan c;
    h_chan_init(&H, &c, 4, HOPPER_COMPUTE_A, NV_SUBC_COMPUTE, true);
    h_begin(&H, &c);
    h_incr(&c, NV_SUBC_COMPUTE, 0x3ffc, 1, (uint32_t[]){1});
    h_release(&c, slot_va(14), 1);
    h_submit(&H, &c);
    wait_error(&c, 13);
    sleep_ms(5);
    CHECK_EQ(*slot(14), 0);

    /* A copy from unmapped memory: MMU fault. */
    struct h_chan k;
    h_chan_init(&H, &k, 5, HOPPER_DMA_COPY_A, NV_SUBC_COPY, true);
    h_begin(&H, &k);
    h_incr(&k, NV_SUBC_COPY, NVC8B5_OFFSET_IN_UPPER, 4,
           (uint32_t[]){0x1f, 0, (uint32_t)(sig.va >> 32), (uint32_t)sig.va});
    h_incr(&k, NV_SUBC_COPY, NVC8B5_LINE_LENGTH_IN, 1, (uint32_t[]){64});
    h_incr(&k, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, 1, (uint32_t[]){NV_LAUNCH_DMA_COPY});
    h_submit(&H, &k);
    wait_error(&k, 31);

    /* A method on a subchannel with no object bound; a malformed header. */
    struct h_chan u;
    h_chan_init(&H, &u, 6, HOPPER_COMPUTE_A, NV_SUBC_COMPUTE, true);
    h_begin(&H, &u);
    h_incr(&u, 3, 0x200, 1, (uint32_t[]){1});
    h_submit(&H, &u);
    wait_error(&u, 13);
    struct h_chan m;
    h_chan_init(&H, &m, 7, HOPPER_COMPUTE_A, NV_SUBC_COMPUTE, true);
    h_begin(&H, &m);
    h_word(&m, 6u << 29); /* reserved opcode */
    h_submit(&H, &m);
    wait_error(&m, 32); /* ROBUST_CHANNEL_PBDMA_ERROR */

    /* An error stops every channel of its group: a sibling in the same
     * group is notified too and runs nothing more. */
    struct h_chan g1, g2;
    h_chan_init(&H, &g1, 8, HOPPER_COMPUTE_A, NV_SUBC_COMPUTE, true);
    h_chan_join(&H, &g2, 9, HOPPER_DMA_COPY_A, NV_SUBC_COPY, &g1);
    h_begin(&H, &g2);
    h_acquire(&g2, slot_va(20), 1); /* parked until the group is reset */
    h_release(&g2, slot_va(21), 1);
    h_submit(&H, &g2);
    h_begin(&H, &g1);
    h_incr(&g1, NV_SUBC_COMPUTE, 0x3ffc, 1, (uint32_t[]){1});
    h_submit(&H, &g1);
    wait_error(&g1, 13);
    wait_error(&g2, 13);
    __atomic_store_n(slot(20), 1, __ATOMIC_RELEASE);
    sleep_ms(5);
    CHECK_EQ(*slot(21), 0);
    /* The channels of other groups were not affected. */
    h_begin(&H, &H.compute);
    h_release(&H.compute, slot_va(15), 9);
    h_submit(&H, &H.compute);
    CHECK(h_wait64(slot(15), 9));
}

int main(void)
{
    h_init(&H);
    h_alloc(&H, 4096, true, &sig);
    memset(sig.cpu, 0, 4096);
    test_host_semaphores();
    test_semaphore_ops();
    test_copy_engine();
    test_kernels();
    test_channel_errors();
    h_free(&H, &sig);
    h_fini(&H);
    printf("emu_gpu: ok\n");
    return 0;
}

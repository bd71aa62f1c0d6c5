/*
 * launch_test.c — kernel launches through the core (program load,
 * hcq_q_exec, submit, timeline wait) with results checked on the CPU.
 * Runs on whatever device hcq_enumerate picks: the emulated device in CI
 * (host implementations from libhcqcl_test_kernels), the H200 otherwise.
 *
 *   launch_test <case>   case = vadd | dims | smem | dyn_smem | local_win |
 *                                consts | chain | serial | repeat | limits | copy_fill | template
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hcq.h"
#include "core/priv.h"
#include "cubin/cubin.h"
#include "nv/nv.h"
#include "check.h"
#include "pb_words.h"
#include "rng.h"


#define SENTINEL 0x5EED5EEDu
#define WAIT_NS (20ull * 1000 * 1000 * 1000)

static struct hcq_device *dev;
static struct hcq_queue *q;
static struct cubin *cb;
static struct hcq_program *prog;

static void setup(void)
{
    struct hcq_device *const *devs;
    unsigned n = 0;
    hcq_enumerate(&devs, &n);
    if (!n) {
        fprintf(stderr, "no device: %s\n", hcq_enumerate_error());
        exit(1);
    }
    dev = devs[0];
    REQUIRE(hcq_device_open(dev) == 0);
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &q) == 0);

    size_t size;
    uint8_t *buf = test_data_load("test_kernels.cubin", &size);
    char log[256];
    REQUIRE(cubin_parse(buf, size, &cb, log, sizeof(log)) == 0);
    free(buf);
    REQUIRE(hcq_program_load(dev, cb, &prog) == 0);
}

static void teardown(void)
{
    hcq_queue_destroy(q); /* waits for everything submitted */
    hcq_program_unload(prog);
    cubin_free(cb);
    hcq_device_close(dev);
}

static const struct hcq_kernel *kernel(const char *name)
{
    const struct hcq_kernel *k = hcq_program_kernel(prog, name);
    REQUIRE(k != NULL);
    return k;
}

static struct hcq_mem *buffer(uint64_t bytes)
{
    struct hcq_mem *m = NULL;
    REQUIRE(hcq_mem_alloc(dev, bytes, HCQ_MEM_HOST, &m) == 0 && m->cpu);
    uint32_t *p = m->cpu;
    for (uint64_t i = 0; i < bytes / 4; i++)
        p[i] = SENTINEL;
    return m;
}

static int exec(const struct hcq_kernel *k, const uint32_t grid[3], const uint32_t block[3],
                uint32_t dyn, const void *params, uint32_t params_size)
{
    struct hcq_launch l = {.dynamic_shared = dyn, .params = params, .params_size = params_size};
    memcpy(l.grid, grid, sizeof(l.grid));
    memcpy(l.block, block, sizeof(l.block));
    return hcq_q_exec(q, k, &l);
}

static void finish(void)
{
    uint64_t v;
    REQUIRE(hcq_q_signal_next(q, &v) == 0);
    REQUIRE(hcq_q_submit(q) == 0);
    int rc = hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS);
    if (rc) {
        fprintf(stderr, "timeline wait for %llu: %d\n", (unsigned long long)v, rc);
        exit(1);
    }
}

/* Pack pointer + int params the way KPARAM_INFO lays them out. */
struct ptr_int {
    uint64_t p;
    int32_t i;
} __attribute__((packed));

static void test_vadd(void)
{
    const uint32_t n = 4096 + 37, bs = 128;
    struct hcq_mem *a = buffer(n * 4), *b = buffer(n * 4), *c = buffer((n + 64) * 4);
    float *pa = a->cpu, *pb = b->cpu;
    for (uint32_t i = 0; i < n; i++) {
        pa[i] = (float)i;
        pb[i] = (float)(2 * i);
    }
    struct {
        uint64_t a, b, c;
        int32_t k, n;
    } params = {a->va, b->va, c->va, 3, (int32_t)n};
    REQUIRE(sizeof(params) == 32);
    uint32_t grid[3] = {(n + bs - 1) / bs, 1, 1}, block[3] = {bs, 1, 1};
    REQUIRE(exec(kernel("vadd"), grid, block, 0, &params, sizeof(params)) == 0);
    finish();
    const float *pc = c->cpu;
    unsigned bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += pc[i] != (float)(3 * i + 3);
    for (uint32_t i = n; i < n + 64; i++)
        bad += ((const uint32_t *)c->cpu)[i] != SENTINEL;
    if (bad)
        fprintf(stderr, "vadd: %u wrong, c[0..3] = %g %g %g %g\n", bad, pc[0], pc[1], pc[2], pc[3]);
    EXPECT(bad == 0);
    hcq_mem_free(a);
    hcq_mem_free(b);
    hcq_mem_free(c);
}

static void test_dims(void)
{
    struct hcq_mem *out = buffer(12 * 8 * 4);
    uint64_t p = out->va;
    uint32_t grid[3] = {3, 2, 2}, block[3] = {4, 3, 2};
    REQUIRE(exec(kernel("dims"), grid, block, 0, &p, 8) == 0);
    finish();
    const int32_t *o = out->cpu;
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t y = 0; y < 2; y++)
            for (uint32_t x = 0; x < 3; x++) {
                const int32_t *r = o + 8 * (x + 3 * (y + 2 * z));
                EXPECT(r[0] == 4 && r[1] == 3 && r[2] == 2);
                EXPECT(r[3] == 3 && r[4] == 2 && r[5] == 2);
                EXPECT(r[6] == (int32_t)(x | y << 10 | z << 20));
                EXPECT((uint32_t)r[7] == SENTINEL);
            }
    hcq_mem_free(out);
}

static void test_smem(void)
{
    struct hcq_mem *out = buffer(2 * 256 * 4);
    struct ptr_int p = {out->va, 5};
    uint32_t grid[3] = {2, 1, 1}, block[3] = {256, 1, 1};
    REQUIRE(exec(kernel("smem_win"), grid, block, 0, &p, 12) == 0);
    finish();
    const int32_t *o = out->cpu;
    unsigned bad = 0;
    for (uint32_t i = 0; i < 512; i++)
        bad += o[i] != (int32_t)((((i % 256) + 5) & 255) * 3 + 1);
    EXPECT(bad == 0);
    hcq_mem_free(out);
}

static void dyn_case(uint32_t n_ints)
{
    struct hcq_mem *out = buffer(2 * 128 * 4);
    struct ptr_int p = {out->va, (int32_t)n_ints};
    uint32_t grid[3] = {2, 1, 1}, block[3] = {128, 1, 1};
    REQUIRE(exec(kernel("dyn_smem"), grid, block, n_ints * 4, &p, 12) == 0);
    finish();
    int32_t expect = 0;
    for (uint32_t j = 0; j < n_ints; j++)
        expect += (int32_t)(j ^ 0x55);
    const int32_t *o = out->cpu;
    unsigned bad = 0;
    for (uint32_t i = 0; i < 256; i++)
        bad += o[i] != expect;
    if (bad)
        fprintf(stderr, "dyn_smem %u ints: %u wrong (o[0] %d, expected %d)\n", n_ints, bad, o[0],
                expect);
    EXPECT(bad == 0);
    hcq_mem_free(out);
}

static void test_dyn_smem(void)
{
    dyn_case(256);
    dyn_case(100 * 1024 / 4);
    dyn_case(227 * 1024 / 4); /* the per-block maximum */
    /* One int more than 227 KiB does not fit. */
    struct ptr_int p = {0, 0};
    uint32_t grid[3] = {1, 1, 1}, block[3] = {128, 1, 1};
    EXPECT(exec(kernel("dyn_smem"), grid, block, 227 * 1024 + 4, &p, 12) == -EINVAL);
}

/* How many of the 256 words local_win wrote for idx 9 (two blocks of 128
 * threads) are not what each thread's local array gives. */
static unsigned local_win_bad(const int32_t *o)
{
    unsigned bad = 0;
    for (uint32_t i = 0; i < 256; i++) {
        int32_t t = (int32_t)(i % 128);
        bad += o[i] != ((9 + t) & 63) * 7 + t + ((27 + t) & 63) * 7 + t;
    }
    return bad;
}

static void test_local_win(void)
{
    struct hcq_kernel_info info;
    hcq_kernel_get_info(kernel("local_win"), &info);
    EXPECT(info.local_per_thread >= 0x100);
    struct hcq_mem *out = buffer(2 * 128 * 4);
    struct ptr_int p = {out->va, 9};
    uint32_t grid[3] = {2, 1, 1}, block[3] = {128, 1, 1};
    REQUIRE(exec(kernel("local_win"), grid, block, 0, &p, 12) == 0);
    finish();
    EXPECT(local_win_bad(out->cpu) == 0);
    hcq_mem_free(out);
}

static void test_consts(void)
{
    struct hcq_mem *out = buffer(64 * 4);
    uint64_t p = out->va;
    uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
    REQUIRE(exec(kernel("consts"), grid, block, 0, &p, 8) == 0);
    finish();
    static const int32_t cv[4] = {11, 22, 33, 44};
    const int32_t *o = out->cpu;
    unsigned bad = 0;
    for (uint32_t t = 0; t < 64; t++)
        bad += o[t] != cv[t & 3] + 1234;
    if (bad)
        fprintf(stderr, "consts: %u wrong, o[0] = %d\n", bad, o[0]);
    EXPECT(bad == 0);
    hcq_mem_free(out);
}

/* Many launches in one submission, each with its own bank 0 and QMD. */
static void test_chain(void)
{
    enum { N = 1024, L = 16 };
    struct hcq_mem *a = buffer(N * 4), *b = buffer(N * 4), *c = buffer(L * N * 4);
    float *pa = a->cpu, *pb = b->cpu;
    for (uint32_t i = 0; i < N; i++) {
        pa[i] = (float)i;
        pb[i] = 1.0f;
    }
    uint32_t grid[3] = {N / 256, 1, 1}, block[3] = {256, 1, 1};
    for (int j = 0; j < L; j++) {
        struct {
            uint64_t a, b, c;
            int32_t k, n;
        } params = {a->va, b->va, c->va + (uint64_t)j * N * 4, j, N};
        REQUIRE(exec(kernel("vadd"), grid, block, 0, &params, sizeof(params)) == 0);
    }
    finish();
    const float *pc = c->cpu;
    unsigned bad = 0;
    for (int j = 0; j < L; j++)
        for (uint32_t i = 0; i < N; i++)
            bad += pc[j * N + i] != (float)i + 1.0f + (float)j;
    EXPECT(bad == 0);
    hcq_mem_free(a);
    hcq_mem_free(b);
    hcq_mem_free(c);
}

/* Launches chained across a hold (hcq_q_hold): four before it, eight in
 * its span, a quiet release right after the span (it must not fold into
 * the span's last QMD), four after. Dropped, the span's grids never run
 * and the rest do; run, all do. */
static void test_hold(void)
{
    enum { N = 1024, L = 16 };
    for (int run = 0; run < 2; run++) {
        struct hcq_mem *a = buffer(N * 4), *b = buffer(N * 4), *c = buffer(L * N * 4);
        float *pa = a->cpu, *pb = b->cpu;
        for (uint32_t i = 0; i < N; i++) {
            pa[i] = (float)i;
            pb[i] = 1.0f;
        }
        uint32_t grid[3] = {N / 256, 1, 1}, block[3] = {256, 1, 1};
        struct hcq_hold *h = NULL;
        uint64_t mid = 0;
        for (int j = 0; j < L; j++) {
            if (j == 4)
                REQUIRE(hcq_q_hold(q, &h) == 0);
            if (j == 12) {
                REQUIRE(hcq_q_hold_end(q, h) == 0);
                REQUIRE(hcq_q_signal_next(q, &mid) == 0);
            }
            struct {
                uint64_t a, b, c;
                int32_t k, n;
            } params = {a->va, b->va, c->va + (uint64_t)j * N * 4, j, N};
            REQUIRE(exec(kernel("vadd"), grid, block, 0, &params, sizeof(params)) == 0);
        }
        EXPECT_EQ(hcq_q_commit(q), 1);
        hcq_q_hold_decide(h, run);
        finish();
        EXPECT(hcq_signal_value(hcq_queue_timeline(q)) >= mid);
        const uint32_t *raw = c->cpu;
        const float *pc = c->cpu;
        unsigned bad = 0;
        for (int j = 0; j < L; j++) {
            const bool ran = run || j < 4 || j >= 12;
            for (uint32_t i = 0; i < N; i++)
                bad += ran ? pc[j * N + i] != (float)i + 1.0f + (float)j
                           : raw[j * N + i] != SENTINEL;
        }
        if (bad)
            fprintf(stderr, "hold (%s): %u wrong\n", run ? "run" : "dropped", bad);
        EXPECT(bad == 0);
        hcq_mem_free(a);
        hcq_mem_free(b);
        hcq_mem_free(c);
    }
}

/* What a span sets up on its channel may never run: local memory set up
 * by the first launch that needs it is set up again after a span, and a
 * launch inside a span does not point at a bank 0 written in front of it
 * (that work may be submitted and its scratch reused while the span
 * waits). On a channel of its own (not reusable: its state starts fresh). */
static void test_hold_state(void)
{
    struct hcq_queue *hq;
    REQUIRE(hcq_queue_create_sized(dev, HCQ_ENGINE_COMPUTE, HCQ_RING_ENTRIES, HCQ_PB_BYTES,
                                   HCQ_SCRATCH_BYTES, &hq) == 0);
    struct hcq_mem *out = buffer(2 * 128 * 4);
    struct ptr_int p = {out->va, 9};
    struct hcq_launch l = {.grid = {2, 1, 1}, .block = {128, 1, 1}, .params = &p, .params_size = 12};
    const uint32_t gen0 = hq->local_gen;
    struct hcq_hold *h;
    REQUIRE(hcq_q_hold(hq, &h) == 0);
    REQUIRE(hcq_q_exec(hq, kernel("local_win"), &l) == 0);
    EXPECT(hq->local_gen == dev->local_gen && gen0 != dev->local_gen);
    REQUIRE(hcq_q_hold_end(hq, h) == 0);
    EXPECT_EQ(hq->local_gen, gen0);
    hcq_q_hold_decide(h, false);
    REQUIRE(hcq_q_exec(hq, kernel("local_win"), &l) == 0);
    EXPECT_EQ(hq->local_gen, dev->local_gen);
    uint64_t v;
    REQUIRE(hcq_q_signal_next(hq, &v) == 0 && hcq_q_submit(hq) == 0);
    REQUIRE(hcq_signal_wait(hcq_queue_timeline(hq), v, WAIT_NS) == 0);
    EXPECT(local_win_bad(out->cpu) == 0);
    /* Bank 0: the same launch in front of a hold and inside it. */
    struct hcq_hold *h1, *h2;
    REQUIRE(hcq_q_hold(hq, &h1) == 0);
    REQUIRE(hcq_q_hold_end(hq, h1) == 0);
    REQUIRE(hcq_q_exec(hq, kernel("local_win"), &l) == 0);
    const uint64_t before = hq->last_bank.va;
    REQUIRE(hcq_q_hold(hq, &h2) == 0);
    REQUIRE(hcq_q_exec(hq, kernel("local_win"), &l) == 0);
    EXPECT(hq->last_bank.va != before);
    REQUIRE(hcq_q_hold_end(hq, h2) == 0);
    hcq_q_hold_decide(h1, true);
    hcq_q_hold_decide(h2, true);
    REQUIRE(hcq_q_signal_next(hq, &v) == 0 && hcq_q_submit(hq) == 0);
    REQUIRE(hcq_signal_wait(hcq_queue_timeline(hq), v, WAIT_NS) == 0);
    hcq_queue_destroy(hq);
    hcq_mem_free(out);
}

/* Each launch reads what the one before wrote and overwrites what it
 * read (ping-pong, x' = x + 1 + j over 2^20 elements in 4096 blocks):
 * grids that overlapped would read stale or half-written elements. Every
 * eighth launch is followed by a timeline release (folded into its QMD
 * when launches chain); a wait at L/2 is a method between launches (the
 * chain starts again after a wait for the grid before), and a host
 * release at 3L/4 ends a chain too (it waits for the grid before; the
 * next chain needs no wait). Chained, the
 * launches after a chain's first add no methods. */
static void test_serial(void)
{
    enum { N = 1 << 20, L = 64 };
    struct hcq_mem *x = buffer(N * 4), *y = buffer(N * 4), *one = buffer(N * 4);
    float *px = x->cpu, *p1 = one->cpu;
    for (uint32_t i = 0; i < N; i++) {
        px[i] = (float)(i & 0xFFFF);
        p1[i] = 1.0f;
    }
    uint32_t grid[3] = {N / 256, 1, 1}, block[3] = {256, 1, 1};
    const uint64_t pb0 = q->pb.head;
    uint64_t heads = 0;
    for (int j = 0; j < L; j++) {
        struct {
            uint64_t a, b, c;
            int32_t k, n;
        } params = {j % 2 ? y->va : x->va, one->va, j % 2 ? x->va : y->va, j, N};
        const uint64_t before = q->pb.head;
        if (j == L / 2)
            REQUIRE(hcq_q_wait(q, hcq_queue_timeline(q), 1) == 0);
        REQUIRE(exec(kernel("vadd"), grid, block, 0, &params, sizeof(params)) == 0);
        heads += q->pb.head != before;
        uint64_t v;
        if (j == 3 * L / 4 - 1)
            REQUIRE(hcq_q_release_timeline(q, &v) == 0);
        else if (j % 8 == 7)
            REQUIRE(hcq_q_signal_next(q, &v) == 0);
    }
    const uint64_t pb_bytes = q->pb.head - pb0;
    finish();
    const float *pr = L % 2 ? y->cpu : x->cpu;
    unsigned bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += pr[i] != (float)(i & 0xFFFF) + (float)(L + L * (L - 1) / 2);
    EXPECT(bad == 0);
    if (q->chain) {
        /* Three chains: the invalidate and SEND_PCAS (6 dwords) each; the
         * acquire at L/2 (6), after which the next chain's head waits for
         * the grid before it (an acquire of its `grids` release, 6); the
         * host release (6; no interrupt, as nobody sleeps) after the same
         * wait (6) before the third. */
        EXPECT(heads == 3);
        EXPECT_EQ(pb_bytes, 4 * (6 + 6 + 6 + 6 + 6 + 6 + 6));
    } else {
        EXPECT(heads == L);
    }
    printf("serial: %d launches, %llu with methods, %llu pushbuffer bytes\n", L,
           (unsigned long long)heads, (unsigned long long)pb_bytes);
    hcq_mem_free(x);
    hcq_mem_free(y);
    hcq_mem_free(one);
}

/* The timeline release after a lone launch (hcq_q_signal_next) folds into
 * the launch's QMD whether or not a thread sleeps on interrupts, and the
 * submission keeps it there: no host release follows, that value retires
 * the submission, and no interrupt is promised for it (a sleeper sleeps
 * in steps). A launch after one of an earlier submission waits for that
 * one's release (an acquire, 6 dwords), never for idle. The value comes
 * after the grid's stores. */
static void test_release(void)
{
    if (!q->chain) {
        printf("release: launch chains off, nothing to fold into\n");
        return;
    }
    const uint32_t n = 1000;
    struct hcq_mem *a = buffer(n * 4), *b = buffer(n * 4), *c = buffer(n * 4);
    float *pa = a->cpu, *pb = b->cpu;
    const float *pc = c->cpu;
    for (uint32_t i = 0; i < n; i++) {
        pa[i] = (float)i;
        pb[i] = 1.0f;
    }
    uint32_t grid[3] = {(n + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
    for (int round = 0; round < 4; round++) {
        const bool sleeper = round >= 2;
        if (sleeper)
            atomic_fetch_add(&dev->irq_want, 1);
        struct {
            uint64_t a, b, c;
            int32_t k, n;
        } params = {a->va, b->va, c->va, round, (int32_t)n};
        const uint64_t pb0 = q->pb.head;
        /* The grid before is seen ended (the round waited): no wait. */
        const bool after = q->grids_open && hcq_signal_value(hcq_queue_timeline(q)) < q->grid_val;
        REQUIRE(exec(kernel("vadd"), grid, block, 0, &params, sizeof(params)) == 0);
        uint64_t v;
        REQUIRE(hcq_q_signal_next(q, &v) == 0);
        const bool folded = q->tail.cpu && q->tail.released;
        REQUIRE(hcq_q_submit(q) == 0);
        const uint64_t pb_bytes = q->pb.head - pb0;
        EXPECT_EQ(q->retire[(q->seq - 1) % HCQ_SUBMIT_HISTORY], v);
        EXPECT(q->grid_va == hcq_queue_timeline(q)->va && q->grid_val == v);
        EXPECT(atomic_load(&hcq_queue_timeline(q)->irq_hi) < v);
        REQUIRE(hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS) == 0);
        if (sleeper)
            atomic_fetch_sub(&dev->irq_want, 1);
        unsigned bad = 0;
        for (uint32_t i = 0; i < n; i++)
            bad += pc[i] != (float)i + 1.0f + (float)round;
        EXPECT(bad == 0);
        /* The launch: a wait for the grid before (6 dwords) if one may
         * run, the invalidate and SEND_PCAS (6). */
        EXPECT(folded);
        EXPECT_EQ(pb_bytes, 4 * ((after ? 6 : 0) + 6));
        printf("release: %s, the QMD's own, %llu pushbuffer bytes\n",
               sleeper ? "a thread sleeps on interrupts" : "no sleeper",
               (unsigned long long)pb_bytes);
    }
    hcq_mem_free(a);
    hcq_mem_free(b);
    hcq_mem_free(c);
}

/* The header and payload of the acquire at pushbuffer offset at, if
 * there is one: the semaphore's address and value. */
static bool acquire_at(struct hcq_queue *hq, uint64_t at, uint64_t *va, uint64_t *value)
{
    return test_acquire_words((const uint32_t *)(hq->pb.cpu + hcq_arena_off(&hq->pb, at)), va,
                              value);
}

/* Whether pushbuffer offset at lies in a GP entry of the queue's last
 * submission. */
static bool submitted(struct hcq_queue *hq, uint64_t at)
{
    const uint64_t va = hq->pb.va + hcq_arena_off(&hq->pb, at);
    const uint64_t first = hq->seq > 1 ? hq->put_at[(hq->seq - 2) % HCQ_SUBMIT_HISTORY] : 0;
    for (uint64_t i = first; i < hq->put_at[(hq->seq - 1) % HCQ_SUBMIT_HISTORY]; i++) {
        const uint64_t e = hq->ring[i % hq->ring_entries];
        const uint64_t start = nv_gp_entry_va(e);
        if (va >= start && va < start + 4ull * nv_gp_entry_length(e))
            return true;
    }
    return false;
}

static bool wfi_at(struct hcq_queue *hq, uint64_t at)
{
    const uint32_t *p = (const uint32_t *)(hq->pb.cpu + hcq_arena_off(&hq->pb, at));
    return p[0] == nv_mthd_incr(NV_SUBC_HOST, NVC86F_WFI, 1);
}

/* A launch, then a hold whose span is one more launch (counted in *adds
 * when the span is to run): the channel's last grid before the span in
 * *pre_va / *pre_val, the pushbuffer head before the span's launch in *at.
 * The first launch waits for gate to reach ++*gv, set once the span's
 * launch is recorded: the hold submits it, and a grid the CPU has seen
 * end is not waited for (the span's acquire would be left out). */
static struct hcq_hold *launch_then_span(struct hcq_queue *hq, struct hcq_signal *gate,
                                         uint64_t *gv, const struct hcq_kernel *k,
                                         const struct hcq_launch *l, int run, int *adds,
                                         uint64_t *pre_va, uint64_t *pre_val, uint64_t *at)
{
    struct hcq_hold *h;
    REQUIRE(hcq_q_wait(hq, gate, ++*gv) == 0);
    REQUIRE(hcq_q_exec(hq, k, l) == 0);
    (*adds)++;
    REQUIRE(hcq_q_hold(hq, &h) == 0);
    *pre_va = hq->grid_va;
    *pre_val = hq->grid_val;
    *at = hq->pb.head;
    REQUIRE(hcq_q_exec(hq, k, l) == 0);
    *adds += run;
    hcq_signal_set(gate, *gv);
    return h;
}

/* x += 1 per launch (vadd of x and a buffer of ones into x itself), on a
 * compute queue of its own with a ring of ring_entries: x[i] starts at
 * (i & 0xFF) (ramp) or 0. */
struct adds {
    struct hcq_queue *hq;
    struct hcq_mem *x, *one;
    float *px;
    struct {
        uint64_t a, b, c;
        int32_t k, n;
    } params;
    struct hcq_launch l;
    const struct hcq_kernel *k;
};

static void adds_init(struct adds *s, uint32_t n, uint32_t ring_entries, bool ramp)
{
    REQUIRE(hcq_queue_create_sized(dev, HCQ_ENGINE_COMPUTE, ring_entries, HCQ_PB_BYTES,
                                   HCQ_SCRATCH_BYTES, &s->hq) == 0);
    s->x = buffer(n * 4);
    s->one = buffer(n * 4);
    s->px = s->x->cpu;
    float *p1 = s->one->cpu;
    for (uint32_t i = 0; i < n; i++) {
        s->px[i] = ramp ? (float)(i & 0xFF) : 0.0f;
        p1[i] = 1.0f;
    }
    s->params.a = s->x->va;
    s->params.b = s->one->va;
    s->params.c = s->x->va;
    s->params.k = 0;
    s->params.n = (int32_t)n;
    s->l = (struct hcq_launch){.grid = {n / 256, 1, 1}, .block = {256, 1, 1},
                               .params = &s->params, .params_size = sizeof(s->params)};
    s->k = kernel("vadd");
}

static void adds_fini(struct adds *s)
{
    hcq_queue_destroy(s->hq);
    hcq_mem_free(s->x);
    hcq_mem_free(s->one);
}

/* Elements of x (n of them, x[i] = (i & 0xFF) + adds once every launch
 * recorded so far ran, one after another) that are not, once the queue's
 * timeline reached v. */
static unsigned adds_wrong(struct hcq_queue *hq, uint64_t v, const float *x, uint32_t n,
                           int adds, const char *after)
{
    REQUIRE(hcq_signal_wait(hcq_queue_timeline(hq), v, WAIT_NS) == 0);
    unsigned bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += x[i] != (float)(i & 0xFF) + (float)adds;
    if (bad)
        printf("after grids: after %s, x[0] = %g, want %d\n", after, (double)x[0], adds);
    return bad;
}

/* What follows a grid that is not its dependent waits for that grid's
 * release, not for the engine to go idle (a wait for idle holds the
 * channel group's method stream, and with it every other queue's
 * launches, until the grid ends):
 * - after a method: the launch's QMD releases the next value of the
 *   queue's `grids` signal, and the next launch acquires it;
 * - at the head of the next submission: the acquire of the timeline
 *   value the last QMD released;
 * - a host release after a launch: the same acquire first;
 * - after a hold's span with a grid: the acquire of the `grids` value the
 *   span's last grid releases; the span dropped, that acquire is
 *   rewritten to the grid before the span;
 * - a span followed directly by the command's own release: the span's
 *   last QMD releases that value, nothing follows on the channel, and
 *   the acquire of the grid before and the host's release that stand in
 *   for a dropped span reach the GPU only then (while a thread sleeps on
 *   interrupts: the acquire of that value and the host's release);
 * - a grid another wait orders already (hcq_q_ordered_after): no acquire.
 * x += 1 each time: every launch sees the one before's result. */
static void test_after_grids(void)
{
    enum { N = 1 << 16 };
    struct adds s;
    adds_init(&s, N, HCQ_RING_ENTRIES, true);
    int adds = 0;
    uint64_t va, value, gv = 0;
    struct hcq_signal *gate;
    REQUIRE(hcq_signal_alloc(dev, &gate) == 0);

    /* A launch, a method (an acquire of a value already there), a launch. */
    REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
    adds++;
    REQUIRE(hcq_q_wait(s.hq, hcq_queue_timeline(s.hq), 0) == 0);
    EXPECT(s.hq->grid_va == s.hq->grids->va && s.hq->grid_val == s.hq->grids_last);
    uint64_t at = s.hq->pb.head;
    REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
    adds++;
    EXPECT(acquire_at(s.hq, at, &va, &value) && va == s.hq->grids->va && value == s.hq->grids_last);
    uint64_t v;
    REQUIRE(hcq_q_signal_next(s.hq, &v) == 0 && hcq_q_submit(s.hq) == 0);

    /* The next submission's head. */
    at = s.hq->pb.head;
    REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
    adds++;
    EXPECT(acquire_at(s.hq, at, &va, &value) && va == hcq_queue_timeline(s.hq)->va && value == v);

    /* A host release right after the launch: the acquire, then the
     * release. */
    at = s.hq->pb.head;
    REQUIRE(hcq_q_release_timeline(s.hq, &v) == 0);
    EXPECT(acquire_at(s.hq, at, &va, &value) && va == s.hq->grids->va && value == s.hq->grids_last);
    EXPECT(!s.hq->grids_open);
    REQUIRE(hcq_q_submit(s.hq) == 0);

    /* A span with a grid, run, then one dropped. */
    for (int run = 1; run >= 0; run--) {
        uint64_t pre_va, pre_val;
        struct hcq_hold *h =
            launch_then_span(s.hq, gate, &gv, s.k, &s.l, run, &adds, &pre_va, &pre_val, &at);
        EXPECT(acquire_at(s.hq, at, &va, &value) && va == pre_va && value == pre_val);
        REQUIRE(hcq_q_hold_end(s.hq, h) == 0);
        EXPECT(s.hq->grid_va == s.hq->grids->va && s.hq->grid_val == s.hq->grids_last &&
               s.hq->grids_open);
        const uint64_t span_val = s.hq->grids_last;
        at = s.hq->pb.head;
        REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
        adds++;
        EXPECT(acquire_at(s.hq, at, &va, &value) && va == s.hq->grids->va && value == span_val);
        hcq_q_hold_decide(h, run);
        REQUIRE(hcq_q_signal_next(s.hq, &v) == 0 && hcq_q_submit(s.hq) == 0);
        if (run)
            EXPECT(acquire_at(s.hq, at, &va, &value) && va == s.hq->grids->va && value == span_val);
        else
            EXPECT(acquire_at(s.hq, at, &va, &value) && va == pre_va && value == pre_val);
        EXPECT(adds_wrong(s.hq, v, s.px, N, adds, run ? "a span run" : "a span dropped") == 0);
    }
    /* A span a launch ends, then the command's own release: the span's
     * last QMD releases that value itself (it is not submitted yet).
     * Nothing follows it on the channel: an acquire of the grid before
     * the span and the host's release of the value lie in GP entries of
     * their own, submitted only when the span is dropped. While a thread
     * sleeps on interrupts, the acquire of the QMD's value and the host's
     * release (with the interrupt) follow the span instead, rewritten to
     * the grid before should it be dropped. */
    const enum nv_qmd_version qv = nv_qmd_version_for_class(s.hq->dev->info.compute_class);
    for (int round = 0; round < 4; round++) {
        const int run = !(round & 1);
        const bool sleeper = round >= 2;
        const bool alone = !(sleeper && atomic_load(&dev->irq_on));
        if (sleeper)
            atomic_fetch_add(&dev->irq_want, 1);
        uint64_t pre_va, pre_val;
        struct hcq_hold *h =
            launch_then_span(s.hq, gate, &gv, s.k, &s.l, run, &adds, &pre_va, &pre_val, &at);
        REQUIRE(hcq_q_hold_end(s.hq, h) == 0);
        const uint32_t *qmd = s.hq->span_tail.cpu;
        REQUIRE(qmd != NULL);
        at = s.hq->pb.head;
        REQUIRE(hcq_q_signal_next(s.hq, &v) == 0);
        const uint64_t rel_va = nv_qmd_get(qmd, qv, NV_QMD_RELEASE_ADDRESS_LOWER, 0) |
                                nv_qmd_get(qmd, qv, NV_QMD_RELEASE_ADDRESS_UPPER, 0) << 32;
        const uint64_t rel_val = nv_qmd_get(qmd, qv, NV_QMD_RELEASE_PAYLOAD_LOWER, 0) |
                                 nv_qmd_get(qmd, qv, NV_QMD_RELEASE_PAYLOAD_UPPER, 0) << 32;
        EXPECT(rel_va == hcq_queue_timeline(s.hq)->va && rel_val == v);
        EXPECT(s.hq->grids_open == alone);
        if (alone) {
            EXPECT(h->uend == h->ustart + 1);
            EXPECT(acquire_at(s.hq, at, &va, &value) && va == pre_va && value == pre_val);
            EXPECT(s.hq->grid_va == hcq_queue_timeline(s.hq)->va && s.hq->grid_val == v);
        } else {
            EXPECT(h->uend == h->ustart);
            EXPECT(acquire_at(s.hq, at, &va, &value) && va == hcq_queue_timeline(s.hq)->va &&
                   value == v);
        }
        hcq_q_hold_decide(h, run);
        REQUIRE(hcq_q_submit(s.hq) == 0);
        if (!run)
            EXPECT(acquire_at(s.hq, at, &va, &value) && va == pre_va && value == pre_val);
        /* The stand-in reaches the GPU only for a dropped span. */
        EXPECT(submitted(s.hq, at) == (!run || !alone));
        EXPECT(adds_wrong(s.hq, v, s.px, N, adds, "a span released by its QMD") == 0);
        if (sleeper)
            atomic_fetch_sub(&dev->irq_want, 1);
        printf("after grids: span %s, %s: %s\n", run ? "run" : "dropped",
               sleeper ? "a thread sleeps on interrupts" : "no sleeper",
               alone ? "the QMD's release alone" : "the host's release behind");
    }
    /* Ordered after the grid by a wait recorded already (standing in for
     * another channel's command that waited for its value: here the wait
     * itself): no acquire of its own. A wait for an earlier value keeps
     * it. */
    for (int ordered = 1; ordered >= 0; ordered--) {
        REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
        adds++;
        REQUIRE(hcq_q_signal_next(s.hq, &v) == 0);
        REQUIRE(hcq_q_wait(s.hq, hcq_queue_timeline(s.hq), ordered ? v : v - 1) == 0);
        hcq_q_ordered_after(s.hq, ordered ? v : v - 1);
        EXPECT(s.hq->grids_open == !ordered);
        at = s.hq->pb.head;
        REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
        adds++;
        EXPECT(acquire_at(s.hq, at, &va, &value) == !ordered);
        REQUIRE(hcq_q_signal_next(s.hq, &v) == 0 && hcq_q_submit(s.hq) == 0);
        EXPECT(adds_wrong(s.hq, v, s.px, N, adds, ordered ? "ordered" : "not ordered") == 0);
    }
    /* A queue's first grid in a span, dropped: no grid before it to wait
     * for, and the acquire after it becomes a wait for idle. */
    struct hcq_queue *fresh;
    REQUIRE(hcq_queue_create_sized(dev, HCQ_ENGINE_COMPUTE, HCQ_RING_ENTRIES, HCQ_PB_BYTES,
                                   HCQ_SCRATCH_BYTES, &fresh) == 0);
    struct hcq_hold *h;
    REQUIRE(hcq_q_hold(fresh, &h) == 0);
    REQUIRE(hcq_q_exec(fresh, s.k, &s.l) == 0);
    REQUIRE(hcq_q_hold_end(fresh, h) == 0);
    at = fresh->pb.head;
    REQUIRE(hcq_q_exec(fresh, s.k, &s.l) == 0);
    adds++;
    EXPECT(acquire_at(fresh, at, &va, &value));
    hcq_q_hold_decide(h, false);
    REQUIRE(hcq_q_signal_next(fresh, &v) == 0 && hcq_q_submit(fresh) == 0);
    EXPECT(wfi_at(fresh, at));
    const unsigned bad = adds_wrong(fresh, v, s.px, N, adds, "a queue's first grid dropped");
    hcq_queue_destroy(fresh);
    EXPECT(bad == 0);
    printf("after grids: %d launches in order, waits for the grid before by acquire (%u "
           "elements wrong)\n",
           adds, bad);
    hcq_signal_free(gate);
    adds_fini(&s);
}

/* Gated commands of one launch each, every span's launch waiting for the
 * grid of the span before: spans decided to run in the same pass are
 * linked (span_link), the earlier one's QMD scheduling the later one's
 * launch, whose acquire and launch methods are not submitted. Decided
 * one pass at a time, each span goes to the GPU whole; a span dropped
 * between two breaks the link there (its stand-in releases the value the
 * next one waits for). x += 1 per launch that ran, in order. */
static void test_span_link(void)
{
    enum { N = 1 << 16, L = 6 };
    struct adds s;
    adds_init(&s, N, HCQ_RING_ENTRIES, true);
    int adds = 0;
    uint64_t v = 0;
    REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0); /* a grid for the first span to wait for */
    adds++;
    REQUIRE(hcq_q_signal_next(s.hq, &v) == 0 && hcq_q_submit(s.hq) == 0);
    static const char *const names[] = {"decided together", "decided one by one",
                                        "the third dropped"};
    for (int mode = 0; mode < 3; mode++) {
        const bool alone = !atomic_load(&dev->irq_want) || !atomic_load(&dev->irq_on);
        struct hcq_hold *h[L];
        uint64_t at[L];
        const uint64_t links = s.hq->spans_linked;
        for (int i = 0; i < L; i++) {
            REQUIRE(hcq_q_hold(s.hq, &h[i]) == 0);
            at[i] = s.hq->pb.head;
            REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
            REQUIRE(hcq_q_hold_end(s.hq, h[i]) == 0);
            REQUIRE(hcq_q_signal_next(s.hq, &v) == 0);
            /* The first waits for no grid once the CPU saw the last end. */
            EXPECT(i == 0 || h[i]->first_qmd != 0);
            EXPECT(!alone || h[i]->last.cpu != NULL);
            EXPECT_EQ(hcq_q_commit(s.hq), 1);
        }
        for (int i = 0; i < L; i++) {
            const bool runs = !(mode == 2 && i == 2);
            adds += runs;
            hcq_q_hold_decide(h[i], runs);
            if (mode == 1) {
                REQUIRE(hcq_q_submit(s.hq) == 0);
                EXPECT(submitted(s.hq, at[i]));
            }
        }
        if (mode != 1) {
            REQUIRE(hcq_q_submit(s.hq) == 0);
            for (int i = 0; i < L; i++) {
                /* Linked: every span but the first, and the one after the
                 * dropped one; the dropped one is not submitted either. */
                const bool whole = i == 0 || (mode == 2 && i == 3);
                EXPECT(!alone || submitted(s.hq, at[i]) == whole);
            }
        }
        const uint64_t linked = s.hq->spans_linked - links;
        EXPECT(!alone || linked == (mode == 0 ? L - 1 : mode == 1 ? 0 : L - 3));
        EXPECT(adds_wrong(s.hq, v, s.px, N, adds, names[mode]) == 0);
        printf("span link: %s: %llu of %d spans linked to the one before\n", names[mode],
               (unsigned long long)linked, L);
    }
    adds_fini(&s);
}

/* Two grids with no wait between them may run at once, in any order: x =
 * 1 + 1, then x += 1, with the second launch's wait for the first taken
 * out (what a missing acquire would record). The emulated device runs a
 * launch that comes while one is held back first (emu_compute.c, "Grids
 * side by side"), so the missing wait shows there: x ends at 2, where 3
 * comes with the wait, as it does everywhere. On a GPU the unordered
 * pair may land either way: only the ordered one is checked. */
static void test_overlap(void)
{
    enum { N = 1 << 16 };
    for (int ordered = 1; ordered >= 0; ordered--) {
        struct adds s;
        adds_init(&s, N, HCQ_RING_ENTRIES, true);
        s.hq->chain = false; /* two SEND_PCAS launches, not a dependent */
        s.params.a = s.one->va; /* x = 1 + 1 */
        REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
        if (!ordered)
            s.hq->grids_open = false; /* the wait left out */
        s.params.a = s.x->va; /* x += 1 */
        const uint64_t at = s.hq->pb.head;
        REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
        uint64_t va, value; /* no release folded: a wait for idle orders them */
        EXPECT((acquire_at(s.hq, at, &va, &value) || wfi_at(s.hq, at)) == (bool)ordered);
        uint64_t v;
        REQUIRE(hcq_q_signal_next(s.hq, &v) == 0 && hcq_q_submit(s.hq) == 0);
        REQUIRE(hcq_signal_wait(hcq_queue_timeline(s.hq), v, WAIT_NS) == 0);
        unsigned threes = 0;
        for (uint32_t i = 0; i < N; i++)
            threes += s.px[i] == 3.0f;
        if (ordered)
            EXPECT(threes == N);
        else if (dev->info.emulated)
            EXPECT(threes == 0);
        printf("overlap: %s: %u of %d elements saw the first grid's result\n",
               ordered ? "ordered by a wait" : "no wait between", threes, N);
        adds_fini(&s);
    }
}

/* A release right after a launch into another signal (a profiling END):
 * the launch's QMD releases it from its second slot when the grid ends,
 * with the GPU's timestamp, and the timeline's release still folds into
 * the first; nothing is pushed for either. A second such release after
 * the same launch, or one with no launch pending, is the host's. The QMD
 * writes both at the grid's end: their timestamps lie within the grid's
 * end and the host seeing it. */
static void test_signal_grid(void)
{
    enum { N = 1 << 16 };
    struct adds s;
    adds_init(&s, N, HCQ_RING_ENTRIES, true);
    struct hcq_signal *end, *end2;
    REQUIRE(hcq_signal_alloc(dev, &end) == 0 && hcq_signal_alloc(dev, &end2) == 0);
    REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
    const uint64_t at = s.hq->pb.head;
    EXPECT(hcq_q_signal_grid(s.hq, end, 5) == 0);
    EXPECT(s.hq->tail.released1 && s.hq->pb.head == at);
    uint64_t v;
    REQUIRE(hcq_q_signal_next(s.hq, &v) == 0);
    EXPECT(s.hq->tail.released && s.hq->pb.head == at);
    const enum nv_qmd_version qv = nv_qmd_version_for_class(dev->info.compute_class);
    EXPECT(nv_qmd_get(s.hq->tail.qmd, qv, NV_QMD_RELEASE_ENABLE, 1) == 1 &&
           nv_qmd_get(s.hq->tail.qmd, qv, NV_QMD_RELEASE_PAYLOAD_LOWER, 1) == 5);
    REQUIRE(hcq_q_submit(s.hq) == 0);
    EXPECT(adds_wrong(s.hq, v, s.px, N, 1, "a release from the second slot") == 0);
    EXPECT(hcq_signal_wait(end, 5, WAIT_NS) == 0);
    const uint64_t t_end = hcq_signal_timestamp(end), t_tl = hcq_signal_timestamp(s.hq->timeline);
    EXPECT(t_end != 0 && t_end + 1000000 > t_tl && t_tl + 1000000 > t_end);
    /* The slot taken: the host's release, after the grid. */
    REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
    EXPECT(hcq_q_signal_grid(s.hq, end, 6) == 0);
    const uint64_t at1 = s.hq->pb.head;
    EXPECT(hcq_q_signal_grid(s.hq, end2, 9) == 0 && s.hq->pb.head != at1);
    REQUIRE(hcq_q_signal_next(s.hq, &v) == 0 && hcq_q_submit(s.hq) == 0);
    EXPECT(adds_wrong(s.hq, v, s.px, N, 2, "a host release after the second slot") == 0);
    EXPECT(hcq_signal_wait(end, 6, WAIT_NS) == 0 && hcq_signal_wait(end2, 9, WAIT_NS) == 0);
    EXPECT(hcq_signal_timestamp(end) <= hcq_signal_timestamp(end2));
    /* Nothing pending: the host's release. */
    const uint64_t at2 = s.hq->pb.head;
    EXPECT(hcq_q_signal_grid(s.hq, end, 7) == 0 && s.hq->pb.head != at2);
    REQUIRE(hcq_q_signal_next(s.hq, &v) == 0 && hcq_q_submit(s.hq) == 0);
    EXPECT(hcq_signal_wait(end, 7, WAIT_NS) == 0);
    EXPECT(hcq_q_signal_grid(s.hq, s.hq->timeline, 1) == -EINVAL);
    printf("signal grid: END from the QMD's second slot %llu ns from the timeline's release\n",
           (unsigned long long)(t_end > t_tl ? t_end - t_tl : t_tl - t_end));
    hcq_signal_free(end);
    hcq_signal_free(end2);
    adds_fini(&s);
}

/* The same launch again and again (x += 1 in place, identical
 * arguments): each must see the one before's result, and after the
 * first of a submission they share its bank 0 instead of writing their
 * own. */
static void test_repeat(void)
{
    enum { N = 1 << 20, L = 64 };
    struct hcq_mem *x = buffer(N * 4), *one = buffer(N * 4);
    float *px = x->cpu, *p1 = one->cpu;
    for (uint32_t i = 0; i < N; i++) {
        px[i] = (float)(i & 0xFFFF);
        p1[i] = 1.0f;
    }
    uint32_t grid[3] = {N / 256, 1, 1}, block[3] = {256, 1, 1};
    struct {
        uint64_t a, b, c;
        int32_t k, n;
    } params = {x->va, one->va, x->va, 0, N};
    unsigned banks = 0;
    uint64_t bank = 0;
    for (int j = 0; j < L; j++) {
        REQUIRE(exec(kernel("vadd"), grid, block, 0, &params, sizeof(params)) == 0);
        banks += q->last_bank.va != bank;
        bank = q->last_bank.va;
        if (j % 8 == 7) {
            uint64_t v;
            REQUIRE(hcq_q_signal_next(q, &v) == 0);
        }
    }
    finish();
    unsigned bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += px[i] != (float)(i & 0xFFFF) + (float)L;
    EXPECT(bad == 0);
    EXPECT(banks == 1);
    printf("repeat: %d launches, %u banks written\n", L, banks);
    hcq_mem_free(x);
    hcq_mem_free(one);
}

/* Grid-stride byte copy and 128-byte pattern fill (odd sizes, few blocks
 * so every thread loops). */
static void test_copy_fill(void)
{
    const uint64_t n = 100003;
    struct hcq_mem *src = buffer(n + 13), *dst = buffer(n + 13);
    uint8_t *ps = src->cpu;
    for (uint64_t i = 0; i < n; i++)
        ps[i] = (uint8_t)(i * 7 + 3);
    struct {
        uint64_t dst, src, n;
    } cp = {dst->va, src->va, n};
    uint32_t grid[3] = {3, 1, 1}, block[3] = {256, 1, 1};
    const uint8_t *pd = dst->cpu;
    uint8_t after = pd[n];
    REQUIRE(exec(kernel("copy_bytes"), grid, block, 0, &cp, sizeof(cp)) == 0);
    finish();
    EXPECT(memcmp(pd, ps, n) == 0);
    EXPECT(pd[n] == after);

    struct {
        uint64_t dst;
        uint8_t pattern[128];
        uint32_t psize;
        uint32_t pad;
        uint64_t n;
    } fp = {.dst = dst->va, .psize = 96, .n = n - 5};
    REQUIRE(sizeof(fp) == 0x98);
    for (int i = 0; i < 128; i++)
        fp.pattern[i] = (uint8_t)(0xA0 ^ i);
    REQUIRE(exec(kernel("fill_bytes"), grid, block, 0, &fp, sizeof(fp)) == 0);
    finish();
    unsigned bad = 0;
    for (uint64_t i = 0; i < n - 5; i++)
        bad += pd[i] != (uint8_t)(0xA0 ^ (i % 96));
    for (uint64_t i = n - 5; i < n; i++)
        bad += pd[i] != ps[i];
    EXPECT(bad == 0);
    hcq_mem_free(src);
    hcq_mem_free(dst);
}

/* White-box: the QMD templates program load built (nv-hopper-facts §6.2). */
static void test_template(void)
{
    const struct hcq_device_info *di = hcq_device_info(dev);
    enum nv_qmd_version v = nv_qmd_version_for_class(di->compute_class);
    const struct cubin_kernel *ck = cubin_kernel(cb, "consts");
    const struct hcq_kernel *k = kernel("consts");
    REQUIRE(ck && v);
    EXPECT(k->qmd_version == (uint32_t)v && k->qmd_size == nv_qmd_size(v));
    EXPECT(nv_qmd_get(k->qmd, v, NV_QMD_QMD_MAJOR_VERSION, 0) == (uint64_t)v);
    if (v == NV_QMD_V04_00)
        EXPECT(nv_qmd_get(k->qmd, v, NV_QMD_QMD_TYPE, 0) == NVCBC0_QMDV04_00_QMD_TYPE_GRID_CTA);
    EXPECT(nv_qmd_get(k->qmd, v, NV_QMD_SASS_VERSION, 0) == nv_sass_version(di->arch));
    EXPECT(nv_qmd_get(k->qmd, v, NV_QMD_REGISTER_COUNT, 0) == ck->regs);
    EXPECT(nv_qmd_get_program(k->qmd, v) == prog->mem->va + ck->text_offset);
    EXPECT(k->program_va == prog->mem->va + ck->text_offset);
    EXPECT(nv_qmd_get(k->qmd, v, NV_QMD_CONSTANT_BUFFER_VALID, 0) == 0); /* bank 0: per launch */
    for (unsigned b = 3; b <= 4; b++) {
        const struct cubin_section *s = &cb->sections[ck->cbank_section[b] - 1];
        EXPECT(nv_qmd_get(k->qmd, v, NV_QMD_CONSTANT_BUFFER_VALID, b) == 1);
        EXPECT(nv_qmd_get_cbuf_addr(k->qmd, v, b) == prog->mem->va + s->offset);
        EXPECT(nv_qmd_get_cbuf_size(k->qmd, v, b) == ((s->size + 15) & ~15ull));
    }
    /* Bank 4 holds the relocated address of gvar in .nv.global.init. */
    const struct cubin_section *c4 = &cb->sections[ck->cbank_section[4] - 1];
    uint64_t gaddr;
    memcpy(&gaddr, (const uint8_t *)prog->mem->cpu + c4->offset, 8);
    EXPECT(gaddr == prog->mem->va + cb->relocs[0].sym_offset);
    int32_t g;
    memcpy(&g, (const uint8_t *)prog->mem->cpu + (gaddr - prog->mem->va), 4);
    EXPECT(g == 1234);
    EXPECT(kernel("local_win")->local_per_thread == nv_slm_per_thread(cubin_kernel(cb, "local_win")->min_stack));
    EXPECT(kernel("vadd")->local_per_thread == 0);
}

static void test_limits(void)
{
    const struct hcq_kernel *v = kernel("vadd"), *cp = kernel("copy_bytes");
    struct hcq_kernel_info info;
    hcq_kernel_get_info(v, &info);
    EXPECT(info.param_size == 32 && info.regs > 0 && info.max_threads == 1024);
    EXPECT(info.static_shared == 0 && info.local_per_thread == 0);
    hcq_kernel_get_info(cp, &info);
    EXPECT(info.max_threads == 256);
    hcq_kernel_get_info(kernel("smem_win"), &info);
    EXPECT(info.static_shared == 1024);
    EXPECT(hcq_program_kernel(prog, "nope") == NULL);

    uint8_t params[32] = {0};
    uint32_t g1[3] = {1, 1, 1}, b1[3] = {1, 1, 1};
    uint32_t b_big[3] = {1025, 1, 1}, b_z[3] = {1, 1, 65}, b_zero[3] = {0, 1, 1};
    uint32_t g_zero[3] = {1, 0, 1}, g_big[3] = {1, 65536, 1}, b_257[3] = {257, 1, 1};
    EXPECT(exec(v, g1, b_big, 0, params, 32) == -EINVAL);
    EXPECT(exec(v, g1, b_z, 0, params, 32) == -EINVAL);
    EXPECT(exec(v, g1, b_zero, 0, params, 32) == -EINVAL);
    EXPECT(exec(v, g_zero, b1, 0, params, 32) == -EINVAL);
    EXPECT(exec(v, g_big, b1, 0, params, 32) == -EINVAL);
    EXPECT(exec(v, g1, b1, 0, params, 31) == -EINVAL);
    EXPECT(exec(v, g1, b1, 0, NULL, 32) == -EINVAL);
    EXPECT(exec(cp, g1, b_257, 0, params, 24) == -EINVAL); /* __launch_bounds__(256) */
    EXPECT(exec(v, g1, b1, 0xFFFFFFFFu, params, 32) == -EINVAL);
    /* Nothing was recorded by the failures: an empty submission completes. */
    finish();
}

/* The timeline a thread watches for going back (holds_random). */
static struct {
    const struct hcq_signal *sig;
    _Atomic bool stop;
    _Atomic unsigned back;
} watch;

static void *watch_timeline(void *arg)
{
    (void)arg;
    uint64_t prev = 0;
    while (!atomic_load(&watch.stop)) {
        const uint64_t v = hcq_signal_value(watch.sig);
        if (v < prev)
            atomic_fetch_add(&watch.back, 1);
        prev = v;
    }
    return NULL;
}

/* Rounds of commands on a queue with a small ring, about two in three of
 * them behind holds, decided to run or to be dropped in random order
 * while later ones are recorded: 0-2 launches a command (x += 1 each,
 * some behind a method), its release folded into the last QMD or from
 * the host, commits and early submissions between. After each round
 * every launch that ran is in x exactly once (two grids overlapping, one
 * dropped that ran or one that ran twice would show), the last value came
 * (a release nothing brings would hang), and the timeline never went
 * back. Spans released by their QMD alone (span_alone) are counted. */
static void test_holds_random(void)
{
    enum { N = 1024, CMDS = 40, ROUNDS = 150, MAXH = CMDS };
    struct adds s;
    adds_init(&s, N, 64, false);
    watch.sig = hcq_queue_timeline(s.hq);
    pthread_t watcher;
    REQUIRE(pthread_create(&watcher, NULL, watch_timeline, NULL) == 0);
    uint64_t rng = 0x5eed0001;
    long adds = 0, alone = 0;
    for (int round = 0; round < ROUNDS; round++) {
        struct hcq_hold *holds[MAXH];
        bool run[MAXH], open[MAXH];
        unsigned nholds = 0;
        uint64_t v = 0;
        for (int c = 0; c < CMDS; c++) {
            const bool gated = test_rand(&rng, 3) != 0, runs = test_rand(&rng, 2);
            struct hcq_hold *h = NULL;
            if (gated)
                REQUIRE(hcq_q_hold(s.hq, &h) == 0);
            const uint32_t launches = test_rand(&rng, 3);
            for (uint32_t i = 0; i < launches; i++) {
                if (test_rand(&rng, 4) == 0)
                    REQUIRE(hcq_q_wait(s.hq, hcq_queue_timeline(s.hq), 0) == 0);
                REQUIRE(hcq_q_exec(s.hq, s.k, &s.l) == 0);
                adds += !gated || runs;
            }
            if (gated) {
                REQUIRE(hcq_q_hold_end(s.hq, h) == 0);
                holds[nholds] = h;
                run[nholds] = runs;
                open[nholds++] = true;
            }
            if (test_rand(&rng, 6) == 0)
                REQUIRE(hcq_q_release_timeline(s.hq, &v) == 0);
            else
                REQUIRE(hcq_q_signal_next(s.hq, &v) == 0);
            alone += gated && h->uend > h->ustart;
            REQUIRE(hcq_q_commit(s.hq) >= 0);
            for (uint32_t d = test_rand(&rng, 4); d > 0 && nholds; d--) {
                const uint32_t i = test_rand(&rng, nholds);
                if (open[i])
                    hcq_q_hold_decide(holds[i], run[i]);
                open[i] = false;
            }
            if (test_rand(&rng, 10) == 0)
                (void)hcq_q_submit_try(s.hq);
        }
        for (unsigned i = 0; i < nholds; i++)
            if (open[i])
                hcq_q_hold_decide(holds[i], run[i]);
        REQUIRE(hcq_q_submit(s.hq) == 0);
        REQUIRE(hcq_signal_wait(hcq_queue_timeline(s.hq), v, WAIT_NS) == 0);
        unsigned bad = 0;
        for (uint32_t i = 0; i < N; i++)
            bad += s.px[i] != (float)adds;
        EXPECT(bad == 0);
        if (bad) {
            printf("holds random: round %d: x[0] = %g, want %ld\n", round, (double)s.px[0], adds);
            break;
        }
    }
    atomic_store(&watch.stop, true);
    pthread_join(watcher, NULL);
    EXPECT(atomic_load(&watch.back) == 0);
    EXPECT(alone > 0);
    EXPECT(s.hq->spans_linked > 0);
    printf("holds random: %d rounds of %d commands, %ld launches ran, %ld spans released by "
           "their QMD alone, %llu linked to the span before, the timeline went back %u "
           "times\n",
           ROUNDS, CMDS, adds, alone, (unsigned long long)s.hq->spans_linked,
           atomic_load(&watch.back));
    adds_fini(&s);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "vadd";
    static const struct {
        const char *name;
        void (*fn)(void);
    } cases[] = {
        {"vadd", test_vadd},           {"dims", test_dims},     {"smem", test_smem},
        {"dyn_smem", test_dyn_smem},   {"local_win", test_local_win},
        {"consts", test_consts},       {"chain", test_chain},   {"limits", test_limits},
        {"serial", test_serial},       {"repeat", test_repeat},
        {"copy_fill", test_copy_fill}, {"template", test_template},
        {"release", test_release},     {"after_grids", test_after_grids},
        {"hold", test_hold},           {"hold_state", test_hold_state},
        {"holds_random", test_holds_random}, {"span_link", test_span_link},
        {"signal_grid", test_signal_grid}, {"overlap", test_overlap},
    };
    setup();
    int found = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!strcmp(which, cases[i].name) || !strcmp(which, "all")) {
            cases[i].fn();
            found = 1;
        }
    teardown();
    if (!found) {
        fprintf(stderr, "unknown case %s\n", which);
        return 2;
    }
    char name[64];
    snprintf(name, sizeof(name), "launch %s", which);
    return check_done(name);
}

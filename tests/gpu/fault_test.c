/*
 * fault_test.c — channel errors surface as errors, never as hangs.
 *
 *   fault_test <case>
 *     copy_unmapped    a copy-engine copy from a GPU address nothing maps
 *     pb_method        a compute pushbuffer carrying a method the class lacks
 *     pb_header        a pushbuffer word that is no valid method header
 *     qmd_program      a QMD whose program address is not mapped
 *     kernel_unmapped  vadd (tests/kernels) reading and writing unmapped addresses
 *
 * Each case submits the faulting work followed by a timeline release and
 * waits for it with a 10 s timeout. Expected: the wait returns -EIO within
 * 1 s, hcq_device_fault() names the cause (on the emulated device: the
 * exact ROBUST_CHANNEL_* code), every later submit / wait / queue creation
 * fails with -EIO at once, teardown is clean, and after the last close the
 * device opens again and completes a semaphore round trip.
 *
 * Runs on the GPU (tests/gpu gate) or, with HCQCL_GPU_TESTS_ON_EMU=1, on
 * the emulated device; also registered to run on the emulated device in CI.
 */
#include "gpu_common.h"

#include "nv/nv.h"

/* Below the core's low VA range: no allocation of ours is ever there. */
#define UNMAPPED_LOW (HCQ_VA_LOW_BASE - 0x10000000ull)
/* High in the buffer range, far above anything a test allocates. */
#define UNMAPPED_HIGH (HCQ_VA_HIGH_END - 0x1000000000ull)

#define WAIT_NS (10ull * 1000 * 1000 * 1000)
#define REPORT_NS (1000ull * 1000 * 1000)

/* ROBUST_CHANNEL_* codes the emulated device reports (nverror.h). */
#define XID_GR_EXCEPTION 13
#define XID_MMU_FAULT 31
#define XID_PBDMA_ERROR 32

/* Method header opcode 6 (bits 31:29) is reserved in every host class. */
#define PB_RESERVED_HEADER 0xC0000000u
/* A class nothing allocated on the channel. The H200 silently ignored a
 * write to an unused compute method (0x3FFC), so the bad method is a
 * SET_OBJECT binding the compute subchannel to this class. */
#define PB_BOGUS_CLASS 0xDEADu

struct fault_ctx {
    struct hcq_device *dev;
    struct hcq_queue *q;
    struct cubin *cb;
    struct hcq_program *prog;
    struct hcq_mem *buf;
    uint32_t expect_code; /* on the emulated device */
};

static void inject_copy_unmapped(struct fault_ctx *c)
{
    REQUIRE(hcq_queue_create(c->dev, HCQ_ENGINE_COPY, &c->q) == 0);
    REQUIRE(hcq_mem_alloc(c->dev, 1 << 20, HCQ_MEM_HOST, &c->buf) == 0);
    REQUIRE(hcq_q_copy(c->q, c->buf->va, UNMAPPED_HIGH, 1 << 20) == 0);
    c->expect_code = XID_MMU_FAULT;
}

/* Raw words into the open pushbuffer, as hcq_push_incr writes them. */
static void push_raw(struct hcq_queue *q, const uint32_t *w, uint32_t n)
{
    REQUIRE(hcq_push_reserve(q, n) == 0);
    volatile uint32_t *p = (volatile uint32_t *)(q->pb.cpu + hcq_arena_off(&q->pb, q->pb.head));
    for (uint32_t i = 0; i < n; i++)
        p[i] = w[i];
    q->pb.head += 4ull * n;
}

static void inject_pb_method(struct fault_ctx *c)
{
    REQUIRE(hcq_queue_create(c->dev, HCQ_ENGINE_COMPUTE, &c->q) == 0);
    const uint32_t w[2] = {nv_mthd_incr(NV_SUBC_COMPUTE, NVCBC0_SET_OBJECT, 1), PB_BOGUS_CLASS};
    push_raw(c->q, w, 2);
    c->expect_code = XID_GR_EXCEPTION;
}

static void inject_pb_header(struct fault_ctx *c)
{
    REQUIRE(hcq_queue_create(c->dev, HCQ_ENGINE_COMPUTE, &c->q) == 0);
    const uint32_t w[2] = {PB_RESERVED_HEADER | 0x1234u, 0xdeadbeefu};
    push_raw(c->q, w, 2);
    c->expect_code = XID_PBDMA_ERROR;
}

struct vadd_params {
    uint64_t a, b, c;
    int32_t k, n;
};

static void inject_qmd_program(struct fault_ctx *c)
{
    REQUIRE(hcq_queue_create(c->dev, HCQ_ENGINE_COMPUTE, &c->q) == 0);
    c->prog = gpu_load_kernels(c->dev, "test_kernels.cubin", &c->cb);
    REQUIRE(hcq_mem_alloc(c->dev, 4096, HCQ_MEM_HOST, &c->buf) == 0);
    /* A copy of vadd whose QMD sends the SMs to code nothing maps. */
    struct hcq_kernel bad = *gpu_kernel(c->prog, "vadd");
    REQUIRE(nv_qmd_set_program(bad.qmd, (enum nv_qmd_version)bad.qmd_version, UNMAPPED_LOW,
                                   256) == 0);
    bad.program_va = UNMAPPED_LOW;
    struct vadd_params p = {c->buf->va, c->buf->va, c->buf->va, 0, 16};
    REQUIRE(gpu_exec(c->q, &bad, 1, 1, 1, 32, 1, 1, 0, &p, sizeof(p)) == 0);
    c->expect_code = XID_MMU_FAULT;
}

static void inject_kernel_unmapped(struct fault_ctx *c)
{
    REQUIRE(hcq_queue_create(c->dev, HCQ_ENGINE_COMPUTE, &c->q) == 0);
    c->prog = gpu_load_kernels(c->dev, "test_kernels.cubin", &c->cb);
    const struct hcq_kernel *k = gpu_kernel(c->prog, "vadd");
    struct vadd_params p = {UNMAPPED_HIGH, UNMAPPED_HIGH + 0x100000, UNMAPPED_HIGH + 0x200000,
                            1, 1024};
    REQUIRE(gpu_exec(c->q, k, 8, 1, 1, 128, 1, 1, 0, &p, sizeof(p)) == 0);
    c->expect_code = XID_MMU_FAULT;
}

static void teardown(struct fault_ctx *c)
{
    hcq_queue_destroy(c->q);
    hcq_mem_free(c->buf);
    if (c->prog)
        hcq_program_unload(c->prog);
    if (c->cb)
        cubin_free(c->cb);
    hcq_device_close(c->dev);
}

/* After the last close the device comes back: a fresh open, a queue and a
 * semaphore round trip. */
static void check_reopen(struct hcq_device *dev)
{
    int r = hcq_device_open(dev);
    check_report(r == 0 && !hcq_device_lost(dev), "reopen", "device open after close: %d", r);
    if (r)
        return;
    struct hcq_queue *q = NULL;
    r = hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &q);
    if (!r)
        r = gpu_finish(q, WAIT_NS);
    check_report(r == 0, "reopen", "semaphore round trip on a new queue: %d", r);
    hcq_queue_destroy(q);
    hcq_device_close(dev);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*inject)(struct fault_ctx *);
    } cases[] = {
        {"copy_unmapped", inject_copy_unmapped}, {"pb_method", inject_pb_method},
        {"pb_header", inject_pb_header},         {"qmd_program", inject_qmd_program},
        {"kernel_unmapped", inject_kernel_unmapped},
    };
    const char *which = argc > 1 ? argv[1] : "kernel_unmapped";
    void (*inject)(struct fault_ctx *) = NULL;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!strcmp(cases[i].name, which))
            inject = cases[i].inject;
    if (!inject) {
        fprintf(stderr, "usage: fault_test copy_unmapped|pb_method|pb_header|qmd_program|"
                        "kernel_unmapped\n");
        return 2;
    }
    gpu_gate();
    struct fault_ctx c = {.dev = gpu_device()};
    inject(&c);

    uint64_t v;
    REQUIRE(hcq_q_signal_next(c.q, &v) == 0);
    uint64_t t0 = gpu_now_ns();
    int r = hcq_q_submit(c.q);
    if (!r)
        r = hcq_signal_wait(hcq_queue_timeline(c.q), v, WAIT_NS);
    uint64_t dt = gpu_now_ns() - t0;
    check_report(r == -EIO && dt < REPORT_NS, which, "wait returned %d (%s) after %.3f ms", r,
                 r ? strerror(-r) : "completed", dt / 1e6);

    char why[256];
    uint32_t code = hcq_device_fault(c.dev, why, sizeof(why));
    bool named = hcq_device_lost(c.dev) && why[0] != 0;
    if (gpu_on_emu)
        check_report(named && code == c.expect_code, which,
                     "fault decoded: Xid %u (%s), expected %u; %s", code, hcq_fault_name(code),
                     c.expect_code, why);
    else
        check_report(named && code != 0, which, "fault decoded: Xid %u (%s); %s", code,
                     hcq_fault_name(code), why);

    /* Everything after it fails fast. */
    t0 = gpu_now_ns();
    uint64_t v2 = 0;
    int rs = hcq_q_signal_next(c.q, &v2);
    if (!rs)
        rs = hcq_q_submit(c.q);
    int rw = hcq_signal_wait(hcq_queue_timeline(c.q), v + 1, WAIT_NS);
    struct hcq_queue *q2 = NULL;
    int rq = hcq_queue_create(c.dev, HCQ_ENGINE_COPY, &q2);
    hcq_queue_destroy(q2);
    dt = gpu_now_ns() - t0;
    /* At once: well under the seconds a wait that ignored the loss would
     * take, with room for a loaded machine's scheduling. */
    check_report(rs == -EIO && rw == -EIO && rq == -EIO && dt < 1000 * 1000 * 1000ull, "after_fault",
                 "submit %d, wait %d, queue create %d, all within %.3f ms", rs, rw, rq, dt / 1e6);

    teardown(&c);
    check_reopen(c.dev);
    return gpu_done(which);
}

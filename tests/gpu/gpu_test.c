/*
 * gpu_test.c — the core on a real GPU: no CUDA driver library in the
 * process, semaphores on every channel kind, large copies of random data
 * each way, the sm_90 test kernels with their results checked, and
 * 100 000 back-to-back launches ending with the exact count.
 *
 *   gpu_test <case>     case = no_libcuda | semaphores | copies | kernels |
 *                               launches | ordering | all (default)
 *
 * Prints one PASS/FAIL line per check (with figures) and exits non-zero on
 * any failure; without a GPU it prints "SKIP: no NVIDIA GPU" and exits 77
 * (HCQCL_GPU_TESTS_ON_EMU=1 runs it on the emulated device, smaller).
 */
#include "gpu_common.h"

#define WAIT_NS (30ull * 1000 * 1000 * 1000)

static struct hcq_device *dev;
static struct cubin *cb_test, *cb_gpu;
static struct hcq_program *prog_test, *prog_gpu;

/* ------------------------------------------------------------------ */

/* Nothing NVIDIA ships for CUDA may be mapped: the core speaks to the
 * kernel driver's device files itself. */
static void test_no_libcuda(void)
{
    /* Do real work first, so any lazily loaded library would be here. */
    struct hcq_queue *q = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &q) == 0);
    REQUIRE(gpu_exec(q, gpu_kernel(prog_gpu, "empty"), 1, 1, 1, 32, 1, 1, 0, NULL, 0) == 0);
    int r = gpu_finish(q, WAIT_NS);
    hcq_queue_destroy(q);
    check_report(r == 0, "no_libcuda", "empty kernel ran: %d", r);

    FILE *f = fopen("/proc/self/maps", "r");
    REQUIRE(f != NULL);
    char line[4096], hit[4096] = "";
    static const char *const banned[] = {"libcuda.so", "libcudart", "libnvidia-ptxjitcompiler",
                                         "libnvcuvid", "libnvidia-opencl"};
    while (fgets(line, sizeof(line), f))
        for (size_t i = 0; i < sizeof(banned) / sizeof(banned[0]); i++)
            if (strstr(line, banned[i]) && !hit[0])
                snprintf(hit, sizeof(hit), "%s", line);
    fclose(f);
    check_report(!hit[0], "no_libcuda", "%s", hit[0] ? hit : "no CUDA library in /proc/self/maps");
}

/* ------------------------------------------------------------------ */

/* On each channel kind: a GPU release seen by the CPU, a GPU acquire
 * released by the CPU (the queue must hold until then), and a chain
 * across both kinds. */
static void semaphores_on(enum hcq_engine e, const char *kind)
{
    struct hcq_queue *q = NULL;
    struct hcq_signal *s = NULL, *gate = NULL;
    REQUIRE(hcq_queue_create(dev, e, &q) == 0);
    REQUIRE(hcq_signal_alloc(dev, &s) == 0 && hcq_signal_alloc(dev, &gate) == 0);

    /* Release: 64-bit values, including one above 2^32. */
    const uint64_t vals[3] = {1, 0x12345678ull, 0x1122334455ull};
    int bad = 0;
    uint64_t worst = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t t0 = gpu_now_ns();
        int r = hcq_q_signal(q, s, vals[i]);
        if (!r)
            r = hcq_q_submit(q);
        if (!r)
            r = hcq_signal_wait(s, vals[i], WAIT_NS);
        uint64_t dt = gpu_now_ns() - t0;
        worst = dt > worst ? dt : worst;
        bad += r != 0 || hcq_signal_value(s) != vals[i];
    }
    check_report(!bad && hcq_signal_timestamp(s) != 0, kind,
                 "release of 1, 2^28.., 2^36.. seen, timestamp %llu ns, slowest %.1f us",
                 (unsigned long long)hcq_signal_timestamp(s), worst / 1e3);

    /* Acquire: the queue waits for the CPU. */
    uint64_t v;
    int r = hcq_q_wait(q, gate, 7);
    if (!r)
        r = hcq_q_signal_next(q, &v);
    if (!r)
        r = hcq_q_submit(q);
    REQUIRE(r == 0);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    bool held = hcq_signal_value(hcq_queue_timeline(q)) < v;
    hcq_signal_set(gate, 6);
    nanosleep(&ts, NULL);
    held = held && hcq_signal_value(hcq_queue_timeline(q)) < v;
    hcq_signal_set(gate, 7);
    uint64_t t0 = gpu_now_ns();
    r = hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS);
    check_report(held && r == 0, kind, "acquire held until the CPU released 7 (%d), then %.1f us",
                 r, (gpu_now_ns() - t0) / 1e3);
    hcq_signal_free(s);
    hcq_signal_free(gate);
    hcq_queue_destroy(q);
}

static void test_semaphores(void)
{
    semaphores_on(HCQ_ENGINE_COMPUTE, "semaphores_compute");
    semaphores_on(HCQ_ENGINE_COPY, "semaphores_copy");

    /* Ping-pong between a compute and a copy channel. */
    struct hcq_queue *qc = NULL, *qk = NULL;
    struct hcq_signal *s = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &qc) == 0);
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &qk) == 0);
    REQUIRE(hcq_signal_alloc(dev, &s) == 0);
    enum { ROUNDS = 1000 };
    int r = 0;
    uint64_t t0 = gpu_now_ns();
    for (uint64_t i = 0; i < ROUNDS && !r; i++) {
        r = hcq_q_wait(qc, s, 2 * i);
        if (!r)
            r = hcq_q_signal(qc, s, 2 * i + 1);
        if (!r)
            r = hcq_q_wait(qk, s, 2 * i + 1);
        if (!r)
            r = hcq_q_signal(qk, s, 2 * i + 2);
    }
    if (!r)
        r = hcq_q_submit(qc);
    if (!r)
        r = hcq_q_submit(qk);
    if (!r)
        r = hcq_signal_wait(s, 2 * ROUNDS, WAIT_NS);
    double us = (gpu_now_ns() - t0) / 1e3;
    check_report(r == 0 && hcq_signal_value(s) == 2 * ROUNDS, "semaphores_cross",
                 "%d compute<->copy hand-offs in %.0f us (%.2f us each): %d", 2 * ROUNDS, us,
                 us / (2 * ROUNDS), r);
    hcq_signal_free(s);
    hcq_queue_destroy(qc);
    hcq_queue_destroy(qk);
}

/* ------------------------------------------------------------------ */

static bool same(const void *a, const void *b, uint64_t n, uint64_t *first_bad)
{
    if (!memcmp(a, b, n))
        return true;
    const uint8_t *x = a, *y = b;
    for (uint64_t i = 0; i < n; i++)
        if (x[i] != y[i]) {
            *first_bad = i;
            break;
        }
    return false;
}

/* One copy on q of size bytes, timed. */
static int timed_copy(struct hcq_queue *q, uint64_t dst, uint64_t src, uint64_t size,
                      double *gbs)
{
    uint64_t t0 = gpu_now_ns();
    int r = hcq_q_copy(q, dst, src, size);
    if (!r)
        r = gpu_finish(q, WAIT_NS);
    *gbs = size / (double)(gpu_now_ns() - t0);
    return r;
}

static void test_copies(void)
{
    const uint64_t size = gpu_scale(1ull << 30, 16ull << 20);
    struct hcq_queue *q = NULL;
    struct hcq_mem *src = NULL, *back = NULL, *d1 = NULL, *d2 = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_HOST, &src) == 0);
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_HOST, &back) == 0);
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_DEVICE, &d1) == 0);
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_DEVICE, &d2) == 0);
    gpu_fill_random(src->cpu, size, 0x9E3779B97F4A7C15ull);
    const char *mib = gpu_on_emu ? "16 MiB" : "1 GiB";
    double gbs;
    uint64_t at = 0;

    /* host -> device, then device -> host of that copy. */
    int r = timed_copy(q, d1->va, src->va, size, &gbs);
    double h2d = gbs;
    memset(back->cpu, 0xA5, size);
    if (!r)
        r = timed_copy(q, back->va, d1->va, size, &gbs);
    double d2h = gbs;
    bool ok = !r && same(back->cpu, src->cpu, size, &at);
    check_report(ok, "copy_h2d_d2h", "%s random host->device %.1f GB/s, device->host %.1f GB/s: %s "
                 "(rc %d, first difference at %llu)", mib, h2d, d2h, ok ? "identical" : "DIFFERENT",
                 r, (unsigned long long)at);

    /* device -> device (a different random pattern, to not pass by luck). */
    gpu_fill_random(src->cpu, size, 0x243F6A8885A308D3ull);
    r = hcq_q_copy(q, d1->va, src->va, size);
    if (!r)
        r = gpu_finish(q, WAIT_NS);
    if (!r)
        r = timed_copy(q, d2->va, d1->va, size, &gbs);
    double d2d = 2 * gbs; /* read + write */
    memset(back->cpu, 0x5A, size);
    if (!r)
        r = hcq_q_copy(q, back->va, d2->va, size);
    if (!r)
        r = gpu_finish(q, WAIT_NS);
    at = 0;
    ok = !r && same(back->cpu, src->cpu, size, &at);
    check_report(ok, "copy_d2d", "%s random device->device %.1f GB/s (read+write): %s (rc %d, "
                 "first difference at %llu)", mib, d2d, ok ? "identical" : "DIFFERENT", r,
                 (unsigned long long)at);

    /* Unaligned head and tail, odd length, inside the buffers. */
    const uint64_t off = 4093, len = size / 3 + 7;
    memset(back->cpu, 0, size);
    r = hcq_q_copy(q, d2->va + 1, src->va + off, len);
    if (!r)
        r = hcq_q_copy(q, back->va + 17, d2->va + 1, len);
    if (!r)
        r = gpu_finish(q, WAIT_NS);
    const uint8_t *b = back->cpu;
    ok = !r && same(b + 17, (const uint8_t *)src->cpu + off, len, &at) && b[16] == 0 &&
         b[17 + len] == 0;
    check_report(ok, "copy_unaligned", "%llu bytes at odd offsets through device memory: %d",
                 (unsigned long long)len, r);

    hcq_mem_free(src);
    hcq_mem_free(back);
    hcq_mem_free(d1);
    hcq_mem_free(d2);
    hcq_queue_destroy(q);
}

/* ------------------------------------------------------------------ */

struct ptr_int {
    uint64_t p;
    int32_t i;
} __attribute__((packed));

#define SENTINEL 0x5EED5EEDu

static struct hcq_mem *host_buf(uint64_t bytes)
{
    struct hcq_mem *m = NULL;
    REQUIRE(hcq_mem_alloc(dev, bytes, HCQ_MEM_HOST, &m) == 0);
    uint32_t *p = m->cpu;
    for (uint64_t i = 0; i < bytes / 4; i++)
        p[i] = SENTINEL;
    return m;
}

static void kernel_empty(struct hcq_queue *q)
{
    const struct hcq_kernel *k = gpu_kernel(prog_gpu, "empty");
    int r = 0;
    for (int i = 0; i < 16 && !r; i++)
        r = gpu_exec(q, k, 1u << (i % 12), 1, 1, 1u << (i % 11), 1, 1, 0, NULL, 0);
    if (!r)
        r = gpu_finish(q, WAIT_NS);
    check_report(r == 0, "kernel_empty", "16 launches, grids up to 2048 x 1024 threads: %d", r);
}

/* vadd over device memory: inputs copied in on a copy queue, the compute
 * queue waits for them, the result copied out after it. */
static void kernel_vadd(struct hcq_queue *q)
{
    const uint32_t n = (uint32_t)gpu_scale(16u << 20, 1u << 18) + 37, bs = 256;
    const uint64_t bytes = (uint64_t)n * 4;
    struct hcq_queue *cq = NULL;
    struct hcq_mem *ha = host_buf(bytes), *hb = host_buf(bytes), *hc = host_buf(bytes + 256);
    struct hcq_mem *da = NULL, *db = NULL, *dc = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &cq) == 0);
    REQUIRE(hcq_mem_alloc(dev, bytes, HCQ_MEM_DEVICE, &da) == 0);
    REQUIRE(hcq_mem_alloc(dev, bytes, HCQ_MEM_DEVICE, &db) == 0);
    REQUIRE(hcq_mem_alloc(dev, bytes, HCQ_MEM_DEVICE, &dc) == 0);
    float *pa = ha->cpu, *pb = hb->cpu;
    for (uint32_t i = 0; i < n; i++) {
        pa[i] = (float)(i % 100003);
        pb[i] = (float)(2 * (i % 7919));
    }
    uint64_t in_done, k_done, v;
    int r = hcq_q_copy(cq, da->va, ha->va, bytes);
    if (!r)
        r = hcq_q_copy(cq, db->va, hb->va, bytes);
    if (!r)
        r = hcq_q_signal_next(cq, &in_done);
    if (!r)
        r = hcq_q_submit(cq);
    struct {
        uint64_t a, b, c;
        int32_t k, n;
    } p = {da->va, db->va, dc->va, 3, (int32_t)n};
    if (!r)
        r = hcq_q_wait(q, hcq_queue_timeline(cq), in_done);
    if (!r)
        r = gpu_exec(q, gpu_kernel(prog_test, "vadd"), (n + bs - 1) / bs, 1, 1, bs, 1, 1, 0, &p,
                     sizeof(p));
    if (!r)
        r = hcq_q_signal_next(q, &k_done);
    if (!r)
        r = hcq_q_submit(q);
    if (!r)
        r = hcq_q_wait(cq, hcq_queue_timeline(q), k_done);
    if (!r)
        r = hcq_q_copy(cq, hc->va, dc->va, bytes);
    if (!r)
        r = hcq_q_signal_next(cq, &v);
    if (!r)
        r = hcq_q_submit(cq);
    if (!r)
        r = hcq_signal_wait(hcq_queue_timeline(cq), v, WAIT_NS);
    const float *pc = hc->cpu;
    uint64_t bad = 0;
    for (uint32_t i = 0; r == 0 && i < n; i++)
        bad += pc[i] != (float)(i % 100003) + (float)(2 * (i % 7919)) + 3.0f;
    for (uint32_t i = n; r == 0 && i < n + 64; i++)
        bad += ((const uint32_t *)hc->cpu)[i] != SENTINEL;
    check_report(r == 0 && bad == 0, "kernel_vadd",
                 "%u floats in device memory, copy->compute->copy: %llu wrong (rc %d)", n,
                 (unsigned long long)bad, r);
    hcq_mem_free(ha);
    hcq_mem_free(hb);
    hcq_mem_free(hc);
    hcq_mem_free(da);
    hcq_mem_free(db);
    hcq_mem_free(dc);
    hcq_queue_destroy(cq);
}

static void kernel_smem(struct hcq_queue *q)
{
    const uint32_t blocks = 132 * 4;
    struct hcq_mem *out = host_buf((uint64_t)blocks * 256 * 4);
    struct ptr_int p = {out->va, 5};
    int r = gpu_exec(q, gpu_kernel(prog_test, "smem_win"), blocks, 1, 1, 256, 1, 1, 0, &p, 12);
    if (!r)
        r = gpu_finish(q, WAIT_NS);
    const int32_t *o = out->cpu;
    unsigned bad = 0;
    for (uint32_t i = 0; r == 0 && i < blocks * 256; i++)
        bad += o[i] != (int32_t)((((i % 256) + 5) & 255) * 3 + 1);
    check_report(r == 0 && bad == 0, "kernel_smem",
                 "smem_win, %u blocks through the shared window: %u wrong (rc %d)", blocks, bad, r);
    hcq_mem_free(out);

    /* Dynamic shared memory up to the per-block maximum. */
    const uint32_t n_ints = 227 * 1024 / 4;
    out = host_buf(2 * 128 * 4);
    p = (struct ptr_int){out->va, (int32_t)n_ints};
    r = gpu_exec(q, gpu_kernel(prog_test, "dyn_smem"), 2, 1, 1, 128, 1, 1, n_ints * 4, &p, 12);
    if (!r)
        r = gpu_finish(q, WAIT_NS);
    int32_t expect = 0;
    for (uint32_t j = 0; j < n_ints; j++)
        expect += (int32_t)(j ^ 0x55);
    o = out->cpu;
    bad = 0;
    for (uint32_t i = 0; r == 0 && i < 256; i++)
        bad += o[i] != expect;
    check_report(r == 0 && bad == 0, "kernel_dyn_smem", "227 KiB dynamic shared: %u wrong (rc %d)",
                 bad, r);
    hcq_mem_free(out);
}

static void kernel_local(struct hcq_queue *q)
{
    const uint32_t blocks = (uint32_t)gpu_scale(132 * 16, 8);
    struct hcq_mem *out = host_buf((uint64_t)blocks * 128 * 4);
    struct ptr_int p = {out->va, 9};
    int r = gpu_exec(q, gpu_kernel(prog_test, "local_win"), blocks, 1, 1, 128, 1, 1, 0, &p, 12);
    if (!r)
        r = gpu_finish(q, WAIT_NS);
    const int32_t *o = out->cpu;
    uint64_t bad = 0;
    for (uint32_t i = 0; r == 0 && i < blocks * 128; i++) {
        int32_t t = (int32_t)(i % 128);
        bad += o[i] != ((9 + t) & 63) * 7 + t + ((27 + t) & 63) * 7 + t;
    }
    check_report(r == 0 && bad == 0, "kernel_local",
                 "local_win, %u blocks with a local array on every SM: %llu wrong (rc %d)", blocks,
                 (unsigned long long)bad, r);
    hcq_mem_free(out);
}

static void kernel_dims(struct hcq_queue *q)
{
    static const uint32_t shapes[][6] = {
        {3, 2, 2, 4, 3, 2}, {1, 1, 1, 1024, 1, 1}, {70000, 1, 1, 32, 1, 1}, {2, 300, 3, 1, 1, 64},
    };
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        const uint32_t *d = shapes[s];
        uint64_t nblk = (uint64_t)d[0] * d[1] * d[2];
        if (gpu_on_emu && nblk > 4096)
            continue;
        struct hcq_mem *out = host_buf(nblk * 32);
        uint64_t p = out->va;
        int r = gpu_exec(q, gpu_kernel(prog_test, "dims"), d[0], d[1], d[2], d[3], d[4], d[5], 0,
                         &p, 8);
        if (!r)
            r = gpu_finish(q, WAIT_NS);
        const int32_t *o = out->cpu;
        uint64_t bad = 0;
        for (uint32_t z = 0; r == 0 && z < d[2]; z++)
            for (uint32_t y = 0; y < d[1]; y++)
                for (uint32_t x = 0; x < d[0]; x++) {
                    const int32_t *e = o + 8 * (x + (uint64_t)d[0] * (y + (uint64_t)d[1] * z));
                    bad += (uint32_t)e[0] != d[3] || (uint32_t)e[1] != d[4] ||
                           (uint32_t)e[2] != d[5] || (uint32_t)e[3] != d[0] ||
                           (uint32_t)e[4] != d[1] || (uint32_t)e[5] != d[2] ||
                           e[6] != (int32_t)(x | y << 10 | z << 20) || (uint32_t)e[7] != SENTINEL;
                }
        check_report(r == 0 && bad == 0, "kernel_dims", "grid %ux%ux%u block %ux%ux%u: %llu wrong "
                     "(rc %d)", d[0], d[1], d[2], d[3], d[4], d[5], (unsigned long long)bad, r);
        hcq_mem_free(out);
    }
}

static void test_kernels(void)
{
    struct hcq_queue *q = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &q) == 0);
    kernel_empty(q);
    kernel_vadd(q);
    kernel_smem(q);
    kernel_local(q);
    kernel_dims(q);
    hcq_queue_destroy(q);
}

/* ------------------------------------------------------------------ */

/* 100 000 launches of atomic_inc, each its own submission (the GPFIFO
 * ring, the pushbuffer and the scratch arena all wrap many times), then
 * one wait: the counter must be exact. */
static void test_launches(void)
{
    /* HCQCL_GPU_TEST_LAUNCHES overrides the count (bisecting). */
    const char *env_n = getenv("HCQCL_GPU_TEST_LAUNCHES");
    const uint32_t n = env_n ? (uint32_t)strtoul(env_n, NULL, 0) : 100000;
    const uint32_t blocks = 2, threads = 64;
    struct hcq_queue *q = NULL;
    struct hcq_mem *ctr = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &q) == 0);
    REQUIRE(hcq_mem_alloc(dev, 4096, HCQ_MEM_HOST, &ctr) == 0);
    volatile uint64_t *c = ctr->cpu;
    *c = 0;
    const struct hcq_kernel *k = gpu_kernel(prog_gpu, "atomic_inc");
    uint64_t p = ctr->va;
    int r = 0;
    uint32_t done = 0;
    uint64_t t0 = gpu_now_ns();
    for (; done < n && !r; done++) {
        r = gpu_exec(q, k, blocks, 1, 1, threads, 1, 1, 0, &p, 8);
        if (!r)
            r = hcq_q_submit(q);
    }
    uint64_t t_sub = gpu_now_ns() - t0;
    if (!r)
        r = gpu_finish(q, 120ull * 1000 * 1000 * 1000);
    uint64_t t_all = gpu_now_ns() - t0;
    uint64_t want = (uint64_t)n * blocks * threads, got = *c;
    check_report(r == 0 && got == want, "launches_100k",
                 "%u launches x %u threads: counter %llu, expected %llu; submitted in %.1f ms "
                 "(%.2f us/launch), all done in %.1f ms (%.0f launches/s) (rc %d)",
                 done, blocks * threads, (unsigned long long)got, (unsigned long long)want,
                 t_sub / 1e6, t_sub / 1e3 / n, t_all / 1e6, n / (t_all / 1e9), r);
    hcq_mem_free(ctr);
    hcq_queue_destroy(q);
}


/* ------------------------------------------------------------------ */

/* A grid's stores to pinned host memory are in place once the CPU sees
 * the release that follows the grid: a host release after a wait for
 * idle (hcq_q_release_timeline), or the quiet release the OpenCL layer
 * uses for commands without events (hcq_q_signal_next: folded into
 * the QMD inside a chain; a submission's last comes from the host). Each
 * thread stores the round's number; right after the value is seen every
 * store is checked, last block first (the ones most likely still in
 * flight). Then the timeline never steps back: a host release just
 * before a launch whose release is the next value, both to the same
 * address, with the CPU reading every value the timeline takes until
 * well after the second. (This part once failed beside the suite's fault
 * tests on the H200, with an MMU fault: a deliberate fault elsewhere stops
 * the engine for 140-245 ms while the driver recovers, a 1 s limit ran
 * out, and out was freed under the launch still queued, which then wrote
 * to it. With or without the grid's own release at the end of each
 * submission alike: docs/gpu-runs.md, 2026-12-04. The limit is the
 * suite's usual one now, the queue goes before out, and the fault tests
 * run alone.) */
struct ptr_u32 {
    uint64_t p;
    uint32_t v;
} __attribute__((packed));

static void test_ordering(void)
{
    static const struct {
        uint32_t blocks, threads, rounds;
    } shapes[] = {{1, 32, 20000}, {132, 128, 5000}, {1056, 256, 1000}};
    const struct hcq_kernel *k = gpu_kernel(prog_gpu, "stamp");
    struct hcq_queue *q = NULL;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &q) == 0);
    struct hcq_mem *out = host_buf(1056u * 256u * 4u);
    volatile uint32_t *o = out->cpu;
    uint32_t value = 0;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        for (int quiet = 0; quiet < 2; quiet++) {
            const uint32_t n = shapes[s].blocks * shapes[s].threads;
            const uint32_t rounds = (uint32_t)gpu_scale(shapes[s].rounds, 20);
            uint64_t stale = 0, stale_rounds = 0, t_all = 0;
            int r = 0;
            for (uint32_t i = 0; i < rounds && !r; i++) {
                struct ptr_u32 p = {out->va, ++value};
                uint64_t v = 0, t0 = gpu_now_ns();
                r = gpu_exec(q, k, shapes[s].blocks, 1, 1, shapes[s].threads, 1, 1, 0, &p,
                             sizeof(p));
                if (!r)
                    r = quiet ? hcq_q_signal_next(q, &v) : hcq_q_release_timeline(q, &v);
                if (!r)
                    r = hcq_q_submit(q);
                if (!r)
                    r = hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS);
                uint32_t bad = 0;
                for (uint32_t j = n; j-- > 0;)
                    bad += o[j] != value;
                t_all += gpu_now_ns() - t0;
                stale += bad;
                stale_rounds += bad != 0;
            }
            char name[64];
            snprintf(name, sizeof(name), "ordering_%ux%u_%s", shapes[s].blocks, shapes[s].threads,
                     quiet ? "quiet" : "host");
            check_report(r == 0 && stale == 0, name,
                         "%u rounds: %llu stale stores in %llu rounds; %.2f us per round "
                         "(rc %d)",
                         rounds, (unsigned long long)stale, (unsigned long long)stale_rounds,
                         rounds ? t_all / 1e3 / rounds : 0.0, r);
        }
    }

    const uint32_t rounds = (uint32_t)gpu_scale(20000, 20);
    const struct hcq_signal *tl = hcq_queue_timeline(q);
    uint64_t back = 0, late = 0, kicks = 0, stall_max = 0;
    int r = 0;
    uint32_t i = 0;
    for (; i < rounds && !r; i++) {
        struct ptr_u32 p = {out->va, ++value};
        uint64_t v1 = 0, v2 = 0;
        r = hcq_q_release_timeline(q, &v1);
        if (!r)
            r = gpu_exec(q, k, 1, 1, 1, 32, 1, 1, 0, &p, sizeof(p));
        if (!r)
            r = hcq_q_signal_next(q, &v2);
        if (!r)
            r = hcq_q_submit(q);
        /* Spinning here, the test does what every wait of the library
         * does when the GPU makes no progress: ring the doorbells again
         * (hcq_device_kick_stalled). */
        uint64_t prev = hcq_signal_value(tl), t0 = gpu_now_ns(), moved = t0, after = 0;
        uint64_t kick_next = HCQ_KICK_FIRST_NS;
        while (!r && after < 2000) {
            uint64_t cur = hcq_signal_value(tl), now = gpu_now_ns();
            back += cur < prev;
            if (cur != prev) {
                if (now - moved > stall_max)
                    stall_max = now - moved;
                moved = now;
                kick_next = HCQ_KICK_FIRST_NS;
            }
            prev = cur;
            if (cur >= v2) {
                after++;
            } else if (now - t0 > WAIT_NS) {
                r = -ETIMEDOUT;
            } else {
                kicks += hcq_device_kick_stalled(dev, now - moved, &kick_next);
            }
        }
        if (gpu_now_ns() - moved > stall_max && !r)
            stall_max = gpu_now_ns() - moved;
        late += !r && o[0] != value;
    }
    check_report(r == 0 && back == 0 && late == 0, "ordering_timeline",
                 "%u rounds of a host release then a launch and its release to the same "
                 "timeline: %llu steps back, %llu stale stores, longest wait for a step "
                 "%.1f us, %llu doorbells rung again (rc %d)",
                 rounds, (unsigned long long)back, (unsigned long long)late, stall_max / 1e3,
                 (unsigned long long)kicks, r);
    if (r)
        /* Where the queue stood when the GPU made no more progress. */
        printf("ordering_timeline: stopped in round %u; GP_GET %u GP_PUT %u; timeline %llu; "
               "pushbuffer arena at byte %llu of lap %llu, scratch arena at byte %llu of lap "
               "%llu\n",
               i, q->userd[NV_USERD_GP_GET / 4], q->userd[NV_USERD_GP_PUT / 4],
               (unsigned long long)hcq_signal_value(tl), (unsigned long long)(q->pb.head % q->pb.size),
               (unsigned long long)(q->pb.head / q->pb.size),
               (unsigned long long)(q->scratch.head % q->scratch.size),
               (unsigned long long)(q->scratch.head / q->scratch.size));
    /* The queue first: its destruction waits for what it still runs,
     * which writes to out. */
    hcq_queue_destroy(q);
    hcq_mem_free(out);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } cases[] = {
        {"no_libcuda", test_no_libcuda}, {"semaphores", test_semaphores},
        {"copies", test_copies},         {"kernels", test_kernels},
        {"launches", test_launches},     {"ordering", test_ordering},
    };
    const char *which = argc > 1 ? argv[1] : "all";
    bool known = !strcmp(which, "all");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        known = known || !strcmp(which, cases[i].name);
    if (!known) {
        fprintf(stderr, "usage: gpu_test no_libcuda|semaphores|copies|kernels|launches|ordering|all\n");
        return 2;
    }
    gpu_gate();
    dev = gpu_device();
    prog_test = gpu_load_kernels(dev, "test_kernels.cubin", &cb_test);
    prog_gpu = gpu_load_kernels(dev, "gpu_kernels.cubin", &cb_gpu);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!strcmp(which, "all") || !strcmp(which, cases[i].name))
            cases[i].fn();
    bool lost = hcq_device_lost(dev);
    if (lost) {
        char why[256];
        hcq_device_fault(dev, why, sizeof(why));
        check_report(false, "device", "lost: %s", why);
    }
    hcq_program_unload(prog_test);
    hcq_program_unload(prog_gpu);
    cubin_free(cb_test);
    cubin_free(cb_gpu);
    hcq_device_close(dev);
    return gpu_done(which);
}

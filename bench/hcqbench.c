/*
 * hcqbench — the raw core (src/core/hcq.h) measured without the OpenCL
 * layer: what a launch costs the CPU, how fast launches go, round-trip
 * latencies, and copy bandwidth. Prints one table with the target each
 * figure is held to on an H200.
 *
 *   hcqbench [--quick] [--launches] [--split] [--size MiB] [--strict]
 *            [--peer PATH | --no-peer]
 *
 *   --quick   fewer repetitions and 16 MiB copies (the emulated device)
 *   --launches  the launch and semaphore figures only, no copies
 *   --split   also split the round trips into host and GPU phases
 *   --size    copy size in MiB (default 256)
 *   --strict  exit 3 when a figure misses its target (real GPU only)
 *   --peer    clbench to run first for the other OpenCL drivers of the
 *             machine (default: the clbench beside hcqbench, if there is
 *             one); their figures for the same work go in two more
 *             columns with the ratio (--no-peer: none)
 *
 * The empty and atomic_inc kernels (tests/kernels/gpu_kernels.cu, sm_90)
 * are embedded; on the emulated device the program registers host
 * versions of them itself, so it runs anywhere. Exit status: 0 when every
 * measurement ran (and, with --strict, met its target), 1 on an error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "builtin/builtin.h"
#include "core/hcq.h"
#include "util/util.h"
#include "cubin/cubin.h"
#include "emu/emu_kernel.h"

extern const unsigned char gpu_kernels_cubin[];
extern const size_t gpu_kernels_cubin_size;

#define WAIT_NS (30ull * 1000 * 1000 * 1000)

static struct hcq_device *dev;
static const struct hcq_kernel *k_empty, *k_atomic;
static bool quick, strict, launches_only, split;
static uint64_t copy_bytes = 256ull << 20;
static int missed;

#define CHECK(call)                                                                       \
    do {                                                                                  \
        int r_ = (call);                                                                  \
        if (r_) {                                                                         \
            printf("FAIL %s: %s (line %d)\n", #call, strerror(-r_), __LINE__);            \
            if (hcq_device_lost(dev)) {                                                   \
                char why_[256];                                                           \
                hcq_device_fault(dev, why_, sizeof(why_));                                \
                printf("FAIL device lost: %s\n", why_);                                   \
            }                                                                             \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sorts v. */
static double percentile(double *v, size_t n, double p)
{
    qsort(v, n, sizeof(*v), bench_cmp_double);
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

/* ------------------------------------------------------------------ */
/* The other OpenCL drivers, through clbench --peers                    */
/* ------------------------------------------------------------------ */

/* Which clbench figure stands beside a row: the same work through the
 * other driver's OpenCL (a launch there is clEnqueueNDRangeKernel, a wait
 * clFinish). rate: clbench gives us per launch, the row M/s. */
static const struct {
    const char *row, *key;
    bool rate;
} peer_map[] = {
    {"submission CPU cost per launch (median)", "enqueue_us", false},
    {"sustained launch rate", "launch_rate_us", true},
    {"launch + wait round trip (median)", "roundtrip_us", false},
    {"launch + wait round trip (p99)", "roundtrip_p99_us", false},
    {"pinned host->device", "h2d_pinned_gbs", false},
    {"pinned device->host", "d2h_pinned_gbs", false},
    {"pinned host<->device both at once", "bidir_pinned_gbs", false},
    /* clEnqueueCopyBuffer: the copy kernel is what hcqcl's uses (the
     * copy engine's own row has no counterpart there). */
    {"device->device, copy kernel (read+write)", "d2d_copy_gbs", false},
};
#define PEER_KEYS 32
static struct {
    char name[64];
    char key[PEER_KEYS][32];
    double val[PEER_KEYS];
    unsigned n;
} peer;
static bool have_peer;

/* Runs path --peers and keeps the first platform it reports. */
static void run_peer(const char *path)
{
    if (access(path, X_OK) != 0)
        return;
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "'%s' --peers --size %llu%s 2>/dev/null", path,
             (unsigned long long)(copy_bytes >> 20), quick ? " --quick" : "");
    FILE *f = popen(cmd, "r");
    if (!f)
        return;
    char line[256];
    int platforms = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "platform ", 9)) {
            if (++platforms == 1)
                snprintf(peer.name, sizeof(peer.name), "%.63s", line + 9);
            continue;
        }
        char key[32];
        double v;
        if (platforms == 1 && peer.n < PEER_KEYS && sscanf(line, "%31s %lf", key, &v) == 2) {
            snprintf(peer.key[peer.n], sizeof(peer.key[0]), "%s", key);
            peer.val[peer.n++] = v;
        }
    }
    pclose(f);
    have_peer = platforms > 0 && peer.n > 0;
}

/* The peer's figure for a row, in the row's unit; false if none. */
static bool peer_value(const char *what, double *out)
{
    for (size_t i = 0; have_peer && i < sizeof(peer_map) / sizeof(peer_map[0]); i++) {
        if (strcmp(what, peer_map[i].row))
            continue;
        for (unsigned k = 0; k < peer.n; k++)
            if (!strcmp(peer.key[k], peer_map[i].key) && peer.val[k] > 0) {
                *out = peer_map[i].rate ? 1.0 / peer.val[k] : peer.val[k];
                return true;
            }
    }
    return false;
}

/* One table row. target_le: the figure must be <= target (else >=);
 * target 0: no target. target_le also says lower is better, for the
 * ratio to the peer (> 1: hcqcl's core is better). */
static void row(const char *what, double value, const char *unit, double target, bool target_le,
                const char *note)
{
    const char *verdict = "";
    char tgt[32] = "";
    if (target > 0) {
        bool ok = target_le ? value <= target : value >= target;
        snprintf(tgt, sizeof(tgt), "%s %g", target_le ? "<=" : ">=", target);
        verdict = ok ? "ok" : "MISS";
        if (!ok)
            missed++;
    }
    printf("| %-44s | %12.3f %-8s | %-10s | %-4s ", what, value, unit, tgt, verdict);
    if (have_peer) {
        double pv;
        if (peer_value(what, &pv) && value > 0)
            printf("| %14.3f | %7.2fx ", pv, target_le ? pv / value : value / pv);
        else
            printf("| %14s | %8s ", "-", "-");
    }
    printf("| %s\n", note ? note : "");
    fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* Kernels                                                              */
/* ------------------------------------------------------------------ */

/* Host versions for the emulated device (same results as the SASS). */
static void host_empty(const struct emu_block *b) { (void)b; }
static void host_atomic_inc(const struct emu_block *b)
{
    uint64_t *c = b->ptr(b, emu_param_u64(b, 0), 8);
    if (c)
        __atomic_fetch_add(c, (uint64_t)b->block[0] * b->block[1] * b->block[2],
                           __ATOMIC_RELAXED);
}
static int register_host_kernels(struct emu_kernel_registry *reg)
{
    int r = reg->add_cubin(reg, gpu_kernels_cubin, gpu_kernels_cubin_size);
    if (!r)
        r = reg->add(reg, "empty", host_empty);
    if (!r)
        r = reg->add(reg, "atomic_inc", host_atomic_inc);
    return r;
}

static struct cubin *cb;
static struct hcq_program *prog;

static void load_kernels(void)
{
    char log[256] = "";
    if (cubin_parse(gpu_kernels_cubin, gpu_kernels_cubin_size, &cb, log, sizeof(log))) {
        printf("FAIL embedded cubin: %s\n", log);
        exit(1);
    }
    if (hcq_device_info(dev)->emulated)
        CHECK(emu_register_kernels(register_host_kernels));
    CHECK(hcq_program_load(dev, cb, &prog));
    k_empty = hcq_program_kernel(prog, "empty");
    k_atomic = hcq_program_kernel(prog, "atomic_inc");
    if (!k_empty || !k_atomic) {
        printf("FAIL embedded cubin lacks empty/atomic_inc\n");
        exit(1);
    }
}

static int launch_empty(struct hcq_queue *q)
{
    struct hcq_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
    return hcq_q_exec(q, k_empty, &l);
}

static int finish(struct hcq_queue *q)
{
    uint64_t v;
    int r = hcq_q_signal_next(q, &v);
    if (!r)
        r = hcq_q_submit(q);
    if (!r)
        r = hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS);
    return r;
}

/* ------------------------------------------------------------------ */
/* Launches                                                             */
/* ------------------------------------------------------------------ */

/* CPU time to record N launches and submit them (the GPU runs them
 * meanwhile; waited for outside the measurement). */
static void bench_submission(struct hcq_queue *q)
{
    enum { N = 1000 };
    const int reps = quick ? 10 : 50;
    double per[64], wall[64];
    for (int i = 0; i < 3; i++) { /* warm: pages touched, caches filled */
        for (int j = 0; j < N; j++)
            CHECK(launch_empty(q));
        CHECK(finish(q));
    }
    for (int i = 0; i < reps; i++) {
        uint64_t c0 = cpu_ns(), w0 = bench_now_ns();
        for (int j = 0; j < N; j++)
            CHECK(launch_empty(q));
        CHECK(hcq_q_submit(q));
        per[i] = (double)(cpu_ns() - c0) / N / 1e3;
        wall[i] = (double)(bench_now_ns() - w0) / N / 1e3;
        CHECK(finish(q));
    }
    double w = percentile(wall, (size_t)reps, 0.5);
    char note[96];
    snprintf(note, sizeof(note), "%d launches recorded + one submit; wall %.3f us", N, w);
    row("submission CPU cost per launch (median)", percentile(per, (size_t)reps, 0.5), "us",
        0.3, true, note);
}

/* Back-to-back launches, submitted in batches of 64, until all finish. */
static void bench_rate(struct hcq_queue *q)
{
    const uint32_t n = quick ? 20000 : 200000, batch = 64;
    struct hcq_mem *ctr = NULL;
    CHECK(hcq_mem_alloc(dev, 4096, HCQ_MEM_HOST, &ctr));
    volatile uint64_t *c = ctr->cpu;
    *c = 0;
    uint64_t p = ctr->va;
    struct hcq_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = &p,
                           .params_size = 8};
    uint64_t t0 = bench_now_ns();
    for (uint32_t i = 0; i < n; i++) {
        CHECK(hcq_q_exec(q, k_atomic, &l));
        if (i % batch == batch - 1)
            CHECK(hcq_q_submit(q));
    }
    CHECK(finish(q));
    double s = (double)(bench_now_ns() - t0) / 1e9;
    char note[96];
    bool exact = *c == (uint64_t)n * 32;
    snprintf(note, sizeof(note), "%u atomic_inc launches, count %s", n,
             exact ? "exact" : "WRONG");
    row("sustained launch rate", n / s / 1e6, "M/s", 0, false, note);
    if (!exact) {
        printf("FAIL launch rate: counter %llu, expected %llu\n", (unsigned long long)*c,
               (unsigned long long)n * 32);
        exit(1);
    }
    hcq_mem_free(ctr);
}

/* Empty kernels back to back, each with its own timeline release (as
 * an in-order OpenCL queue records kernels without events), submitted in
 * batches of 64:
 * the GPU's pace for dependent launches (chained unless
 * HCQCL_LAUNCH_CHAIN=off). */
static void bench_rate_empty(struct hcq_queue *q)
{
    const uint32_t n = quick ? 20000 : 200000, batch = 64;
    uint64_t v = 0;
    uint64_t t0 = bench_now_ns();
    for (uint32_t i = 0; i < n; i++) {
        CHECK(launch_empty(q));
        CHECK(hcq_q_signal_next(q, &v));
        if (i % batch == batch - 1)
            CHECK(hcq_q_submit(q));
    }
    CHECK(finish(q));
    double us = (double)(bench_now_ns() - t0) / 1e3 / n;
    char note[96];
    snprintf(note, sizeof(note), "%u launches, each released, batches of %u", n, batch);
    row("dependent empty kernels, GPU pace", us, "us/launch", 0, true, note);
}

/* Round trips: record, submit, wait for the timeline. */
static void bench_round_trip(struct hcq_queue *q, bool with_launch, const char *what,
                             double target)
{
    const int n = quick ? 500 : 5000;
    double *v = malloc(sizeof(double) * (size_t)n);
    if (!v)
        exit(1);
    for (int i = -50; i < n; i++) {
        uint64_t t0 = bench_now_ns();
        if (with_launch)
            CHECK(launch_empty(q));
        CHECK(finish(q));
        if (i >= 0)
            v[i] = (double)(bench_now_ns() - t0) / 1e3;
    }
    double med = percentile(v, (size_t)n, 0.5), p99 = percentile(v, (size_t)n, 0.99);
    char name[96], note[64];
    snprintf(name, sizeof(name), "%s (median)", what);
    snprintf(note, sizeof(note), "%d round trips", n);
    row(name, med, "us", target, true, note);
    snprintf(name, sizeof(name), "%s (p99)", what);
    row(name, p99, "us", 0, true, NULL);
    free(v);
}

/* Where a round trip's time goes, from the release's GPU timestamp put
 * on the host clock (hcq_device_timer's pair, the median of several):
 * recording, the submit (ring entry, fences, doorbell), the doorbell to
 * the GPU's timestamp, and the timestamp to the host seeing the value.
 * With a launch, a release before it splits the GPU's part in two: the
 * doorbell to the pushbuffer's first method, and the launch with its
 * wait for idle. The pair is only as exact as a register read is
 * symmetric: the phases on both sides of a timestamp move together. The
 * host times are util_now_ns, the clock hcq_device_timer pairs with. */
static int64_t gpu_minus_host(void)
{
    enum { N = 15 };
    double off[N];
    for (int i = 0; i < N; i++) {
        uint64_t g, h;
        CHECK(hcq_device_timer(dev, &g, &h));
        off[i] = (double)((int64_t)(g - h));
    }
    qsort(off, N, sizeof(off[0]), bench_cmp_double);
    return (int64_t)off[N / 2];
}

static void bench_split(struct hcq_queue *q, bool with_launch, const char *what)
{
    const int n = quick ? 500 : 5000;
    enum { REC, SUB, DB_A, A_END, END_SEEN, PHASES };
    static const char *const names[PHASES] = {"record", "submit (fences, doorbell)",
                                              "doorbell -> first GPU timestamp",
                                              "launch + wait for idle (GPU)",
                                              "release timestamp -> host sees it"};
    double *v = malloc(sizeof(double) * (size_t)n * PHASES);
    struct hcq_signal *a = NULL;
    if (!v)
        exit(1);
    CHECK(hcq_signal_alloc(dev, &a));
    int64_t off = gpu_minus_host();
    struct hcq_signal *tl = hcq_queue_timeline(q);
    for (int i = -50; i < n; i++) {
        uint64_t t0 = util_now_ns(), va;
        if (with_launch) {
            CHECK(hcq_q_signal(q, a, (uint64_t)(i + 100)));
            CHECK(launch_empty(q));
        }
        CHECK(hcq_q_signal_next(q, &va));
        uint64_t t1 = util_now_ns();
        CHECK(hcq_q_submit(q));
        uint64_t t2 = util_now_ns();
        CHECK(hcq_signal_wait(tl, va, WAIT_NS));
        uint64_t t3 = util_now_ns();
        if (i < 0)
            continue;
        double g_end = (double)(int64_t)(hcq_signal_timestamp(tl) - (uint64_t)off);
        double g_a = with_launch ? (double)(int64_t)(hcq_signal_timestamp(a) - (uint64_t)off)
                                 : g_end;
        v[REC * n + i] = (double)(t1 - t0) / 1e3;
        v[SUB * n + i] = (double)(t2 - t1) / 1e3;
        v[DB_A * n + i] = (g_a - (double)t2) / 1e3;
        v[A_END * n + i] = (g_end - g_a) / 1e3;
        v[END_SEEN * n + i] = ((double)t3 - g_end) / 1e3;
    }
    for (int p = 0; p < PHASES; p++) {
        if (p == A_END && !with_launch)
            continue;
        char name[96];
        snprintf(name, sizeof(name), "%s: %s", what, names[p]);
        row(name, percentile(v + (size_t)p * n, (size_t)n, 0.5), "us", 0, true, "median");
    }
    hcq_signal_free(a);
    free(v);
}

/* ------------------------------------------------------------------ */
/* Copies                                                               */
/* ------------------------------------------------------------------ */

/* GPU time of one copy from the timestamps of releases around it: on a
 * copy queue by the copy engine, on a compute queue by the built-in copy
 * kernel. */
static double copy_gbs(struct hcq_queue *q, struct hcq_signal *s0, struct hcq_signal *s1,
                       uint64_t dst, uint64_t src, uint64_t bytes, uint64_t seq,
                       double *wall_gbs)
{
    uint64_t t0 = bench_now_ns();
    CHECK(hcq_q_signal(q, s0, seq));
    if (hcq_queue_engine(q) == HCQ_ENGINE_COMPUTE)
        CHECK(hcq_builtin_copy(q, dst, src, bytes));
    else
        CHECK(hcq_q_copy(q, dst, src, bytes));
    CHECK(hcq_q_signal(q, s1, seq));
    CHECK(hcq_q_submit(q));
    CHECK(hcq_signal_wait(s1, seq, WAIT_NS));
    *wall_gbs = bytes / (double)(bench_now_ns() - t0);
    uint64_t g0 = hcq_signal_timestamp(s0), g1 = hcq_signal_timestamp(s1);
    return g1 > g0 ? bytes / (double)(g1 - g0) : *wall_gbs;
}

static void bench_copy(struct hcq_queue *q, const char *what, uint64_t dst, uint64_t src,
                       double factor, double target)
{
    const int reps = quick ? 3 : 9;
    double gpu[16], wall[16];
    struct hcq_signal *s0 = NULL, *s1 = NULL;
    CHECK(hcq_signal_alloc(dev, &s0));
    CHECK(hcq_signal_alloc(dev, &s1));
    static uint64_t seq;
    for (int i = -1; i < reps; i++) {
        double w, g = copy_gbs(q, s0, s1, dst, src, copy_bytes, ++seq, &w);
        if (i >= 0) {
            gpu[i] = g * factor;
            wall[i] = w * factor;
        }
    }
    char note[96];
    snprintf(note, sizeof(note), "%llu MiB, GPU timestamps; wall %.1f GB/s",
             (unsigned long long)(copy_bytes >> 20), percentile(wall, (size_t)reps, 0.5));
    row(what, percentile(gpu, (size_t)reps, 0.5), "GB/s", target, false, note);
    hcq_signal_free(s0);
    hcq_signal_free(s1);
}

/* Host->device on one copy queue and device->host on another at once;
 * both bytes counted over the span of both. */
static void bench_copy_both(struct hcq_queue *q1, struct hcq_queue *q2, struct hcq_mem *h1,
                            struct hcq_mem *h2, struct hcq_mem *d1, struct hcq_mem *d2)
{
    const int reps = quick ? 3 : 9;
    double v[16];
    for (int i = -1; i < reps; i++) {
        uint64_t t0 = bench_now_ns(), v1, v2;
        CHECK(hcq_q_copy(q1, d1->va, h1->va, copy_bytes));
        CHECK(hcq_q_signal_next(q1, &v1));
        CHECK(hcq_q_copy(q2, h2->va, d2->va, copy_bytes));
        CHECK(hcq_q_signal_next(q2, &v2));
        CHECK(hcq_q_submit(q1));
        CHECK(hcq_q_submit(q2));
        CHECK(hcq_signal_wait(hcq_queue_timeline(q1), v1, WAIT_NS));
        CHECK(hcq_signal_wait(hcq_queue_timeline(q2), v2, WAIT_NS));
        if (i >= 0)
            v[i] = 2.0 * copy_bytes / (double)(bench_now_ns() - t0);
    }
    char note[96];
    snprintf(note, sizeof(note), "%llu MiB each way, two copy queues, wall",
             (unsigned long long)(copy_bytes >> 20));
    row("pinned host<->device both at once", percentile(v, (size_t)reps, 0.5), "GB/s", 0, false,
        note);
}

/* One copy split in n equal slices over n copy queues (each on its own
 * copy engine when the GPU has that many), all submitted at once; wall
 * time until every slice is done. */
static void bench_copy_split(struct hcq_queue **qs, unsigned n, const char *what, uint64_t dst,
                             uint64_t src, double factor, double target)
{
    const int reps = quick ? 3 : 9;
    double v[16];
    const uint64_t slice = util_align_up(copy_bytes / n, 4096);
    for (int i = -1; i < reps; i++) {
        uint64_t t0 = bench_now_ns(), val[16];
        for (unsigned k = 0; k < n; k++) {
            uint64_t off = k * slice, len = off >= copy_bytes ? 0 : UTIL_MIN(slice, copy_bytes - off);
            if (len)
                CHECK(hcq_q_copy(qs[k], dst + off, src + off, len));
            CHECK(hcq_q_signal_next(qs[k], &val[k]));
            CHECK(hcq_q_submit(qs[k]));
        }
        for (unsigned k = 0; k < n; k++)
            CHECK(hcq_signal_wait(hcq_queue_timeline(qs[k]), val[k], WAIT_NS));
        if (i >= 0)
            v[i] = factor * copy_bytes / (double)(bench_now_ns() - t0);
    }
    char name[96], note[96];
    snprintf(name, sizeof(name), "%s, %u engines", what, n);
    snprintf(note, sizeof(note), "%llu MiB in %u slices, wall", (unsigned long long)(copy_bytes >> 20),
             n);
    row(name, percentile(v, (size_t)reps, 0.5), "GB/s", target, false, note);
}

static void bench_copies(void)
{
    struct hcq_queue *q1 = NULL, *q2 = NULL;
    struct hcq_mem *h1 = NULL, *h2 = NULL, *d1 = NULL, *d2 = NULL;
    CHECK(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q1));
    CHECK(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q2));
    CHECK(hcq_mem_alloc(dev, copy_bytes, HCQ_MEM_HOST, &h1));
    CHECK(hcq_mem_alloc(dev, copy_bytes, HCQ_MEM_HOST, &h2));
    CHECK(hcq_mem_alloc(dev, copy_bytes, HCQ_MEM_DEVICE, &d1));
    CHECK(hcq_mem_alloc(dev, copy_bytes, HCQ_MEM_DEVICE, &d2));
    uint64_t *w = h1->cpu;
    for (uint64_t i = 0; i < copy_bytes / 8; i++)
        w[i] = i * 0x9E3779B97F4A7C15ull;
    memset(h2->cpu, 0, copy_bytes);

    bench_copy(q1, "pinned host->device", d1->va, h1->va, 1.0, 55);
    bench_copy(q1, "pinned device->host", h2->va, d1->va, 1.0, 55);
    /* What was measured really moved. */
    if (memcmp(h1->cpu, h2->cpu, copy_bytes)) {
        printf("FAIL copies: device->host data differs from what went host->device\n");
        exit(1);
    }
    bench_copy_both(q1, q2, h1, h2, d1, d2);
    /* The copy engine's own device->device figure, for comparison (no
     * target): src/api copies device memory with the built-in copy
     * kernel, the row after it, which the 4100 GB/s target is for. */
    bench_copy(q1, "device->device (read+write)", d2->va, d1->va, 2.0, 0);
    struct hcq_queue *qc = NULL;
    CHECK(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &qc));
    bench_copy(qc, "device->device, copy kernel (read+write)", d2->va, d1->va, 2.0, 4100);
    hcq_queue_destroy(qc);

    /* The same copies spread over the asynchronous copy engines, for
     * comparison (no targets: src/api puts a transfer on one engine). */
    struct hcq_queue *qs[8] = {q1, q2};
    unsigned n = UTIL_MAX(2u, UTIL_MIN(8u, hcq_device_info(dev)->async_ce_count));
    for (unsigned k = 2; k < n; k++)
        CHECK(hcq_queue_create(dev, HCQ_ENGINE_COPY, &qs[k]));
    bench_copy_split(qs, 2, "pinned host->device", d1->va, h1->va, 1.0, 0);
    bench_copy_split(qs, 2, "pinned device->host", h2->va, d1->va, 1.0, 0);
    for (unsigned m = 2; m <= n; m *= 2)
        bench_copy_split(qs, m, "device->device (read+write)", d2->va, d1->va, 2.0, 0);
    if (n > 2 && (n & (n - 1)))
        bench_copy_split(qs, n, "device->device (read+write)", d2->va, d1->va, 2.0, 0);
    for (unsigned k = 2; k < n; k++)
        hcq_queue_destroy(qs[k]);

    hcq_mem_free(h1);
    hcq_mem_free(h2);
    hcq_mem_free(d1);
    hcq_mem_free(d2);
    hcq_queue_destroy(q1);
    hcq_queue_destroy(q2);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    const char *peer_path = NULL;
    bool no_peer = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--launches"))
            launches_only = true;
        else if (!strcmp(argv[i], "--strict"))
            strict = true;
        else if (!strcmp(argv[i], "--split"))
            split = true;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            copy_bytes = strtoull(argv[++i], NULL, 0) << 20;
        else if (!strcmp(argv[i], "--peer") && i + 1 < argc)
            peer_path = argv[++i];
        else if (!strcmp(argv[i], "--no-peer"))
            no_peer = true;
        else {
            fprintf(stderr, "usage: hcqbench [--quick] [--launches] [--split] [--size MiB] "
                            "[--strict] [--peer PATH | --no-peer]\n");
            return 2;
        }
    }
    struct hcq_device *const *devs;
    unsigned n = 0;
    hcq_enumerate(&devs, &n);
    if (!n) {
        printf("FAIL no device: %s\n", hcq_enumerate_error());
        return 1;
    }
    dev = devs[0];
    const struct hcq_device_info *in = hcq_device_info(dev);
    if (in->emulated && copy_bytes == 256ull << 20)
        quick = true;
    if (quick && copy_bytes == 256ull << 20)
        copy_bytes = 16ull << 20;
    /* The other drivers first, each in a process of its own and before
     * this one opens the GPU, so that no two measure at once. */
    char beside[4096];
    if (!no_peer && !peer_path) {
        ssize_t len = readlink("/proc/self/exe", beside, sizeof(beside) - 16);
        if (len > 0) {
            beside[len] = 0;
            char *slash = strrchr(beside, '/');
            if (slash) {
                strcpy(slash + 1, "clbench");
                peer_path = beside;
            }
        }
    }
    if (!no_peer && peer_path)
        run_peer(peer_path);
    CHECK(hcq_device_open(dev));
    printf("hcqbench: %s (sm_%x, %u SMs, driver %s)%s\n", in->name, in->arch >> 4, in->sm_count,
           in->driver_version, quick ? ", quick" : "");
    if (have_peer)
        printf("beside it: %s through its OpenCL (clbench's figure for the same work: "
               "clEnqueueNDRangeKernel's CPU cost, clFinish after an enqueue, "
               "clEnqueueCopyBuffer)\n",
               peer.name);
    printf("| %-44s | %21s | %-10s | %-4s ", "measurement", "value", "H200 target", "");
    if (have_peer)
        printf("| %14.14s | %8s ", peer.name, "hcqcl/x");
    printf("| %s\n", "notes");
    load_kernels();

    struct hcq_queue *q = NULL, *qc = NULL;
    CHECK(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &q));
    bench_submission(q);
    bench_rate(q);
    bench_rate_empty(q);
    bench_round_trip(q, true, "launch + wait round trip", 4);
    bench_round_trip(q, false, "semaphore submit + wait, compute", 0);
    if (split) {
        bench_split(q, false, "semaphore");
        bench_split(q, true, "launch");
    }
    CHECK(hcq_queue_create(dev, HCQ_ENGINE_COPY, &qc));
    bench_round_trip(qc, false, "semaphore submit + wait, copy", 0);
    hcq_queue_destroy(qc);
    hcq_queue_destroy(q);
    if (!launches_only)
        bench_copies();

    hcq_program_unload(prog);
    cubin_free(cb);
    hcq_device_close(dev);
    if (missed)
        printf("%d figure(s) below target%s\n", missed, in->emulated ? " (emulated device)" : "");
    return strict && missed && !in->emulated ? 3 : 0;
}

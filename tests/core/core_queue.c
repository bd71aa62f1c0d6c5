/*
 * core_queue.c — queues end to end on the device: copy round trips
 * host→device→host, fills of 1/2/4/8-byte patterns (and nothing outside
 * the range), 2-D copies, 64-bit releases with timestamps from both
 * engines, a compute queue waiting on a value a copy queue releases later,
 * ring and pushbuffer wrap-around (many more submissions than ring
 * entries, one submission larger than the pushbuffer, a chunk that ends
 * right at the pushbuffer's end), scratch
 * recycling, commits held back while the GPU is busy (and submitted by
 * the next commit that finds it running dry, or by a submit), and
 * teardown that gives every byte back.
 */
#include <pthread.h>
#include <time.h>

#include "core_test.h"

#define WAIT_NS 10000000000ull

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static uint64_t finish(struct hcq_queue *q)
{
    uint64_t v = 0;
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS), 0);
    return v;
}

static void test_copy(struct hcq_device *dev, struct hcq_queue *cq)
{
    const uint64_t n = (1 << 20) + 123;
    struct hcq_mem *a, *d, *b;
    REQUIRE(hcq_mem_alloc(dev, n, HCQ_MEM_HOST, &a) == 0);
    REQUIRE(hcq_mem_alloc(dev, n, HCQ_MEM_DEVICE, &d) == 0);
    REQUIRE(hcq_mem_alloc(dev, n, HCQ_MEM_HOST, &b) == 0);
    uint8_t *pa = a->cpu, *pb = b->cpu;
    for (uint64_t i = 0; i < n; i++)
        pa[i] = (uint8_t)(i * 7 + (i >> 11));
    memset(pb, 0, n);
    EXPECT_EQ(hcq_q_copy(cq, d->va, a->va, n), 0);
    EXPECT_EQ(hcq_q_copy(cq, b->va, d->va, n), 0);
    uint64_t v = finish(cq);
    EXPECT_EQ(hcq_queue_last(cq), v);
    EXPECT_EQ(hcq_signal_value(hcq_queue_timeline(cq)), v);
    EXPECT(hcq_signal_timestamp(hcq_queue_timeline(cq)) != 0);
    EXPECT(memcmp(pa, pb, n) == 0);
    hcq_mem_free(a);
    hcq_mem_free(d);
    hcq_mem_free(b);
}

static void test_fill(struct hcq_device *dev, struct hcq_queue *cq)
{
    struct hcq_mem *m;
    REQUIRE(hcq_mem_alloc(dev, 65536, HCQ_MEM_DEVICE_MAPPED, &m) == 0);
    uint8_t *p = m->cpu;
    static const unsigned sizes[] = {1, 2, 4, 8};
    for (int k = 0; k < 4; k++) {
        unsigned ps = sizes[k];
        uint8_t pat[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
        pat[0] = (uint8_t)(0xA0 + k);
        memset(p, 0xEE, 65536);
        uint64_t off = 8 * 40, len = (uint64_t)ps * 1001;
        EXPECT_EQ(hcq_q_fill(cq, m->va + off, len, pat, ps), 0);
        finish(cq);
        int bad = 0;
        for (uint64_t i = 0; i < 65536; i++) {
            uint8_t want = i >= off && i < off + len ? pat[(i - off) % ps] : 0xEE;
            bad += p[i] != want;
        }
        if (bad)
            fprintf(stderr, "fill %u bytes: %d wrong bytes\n", ps, bad);
        EXPECT_EQ(bad, 0);
    }
    uint32_t pat = 1;
    EXPECT_EQ(hcq_q_fill(cq, m->va, 12, &pat, 3), -EINVAL);   /* pattern size */
    EXPECT_EQ(hcq_q_fill(cq, m->va, 10, &pat, 4), -EINVAL);   /* size not a multiple */
    EXPECT_EQ(hcq_q_fill(cq, m->va + 2, 8, &pat, 4), -EINVAL); /* misaligned */
    hcq_mem_free(m);
}

static void test_copy_2d(struct hcq_device *dev, struct hcq_queue *cq)
{
    struct hcq_mem *s, *d;
    REQUIRE(hcq_mem_alloc(dev, 100 * 64, HCQ_MEM_HOST, &s) == 0);
    REQUIRE(hcq_mem_alloc(dev, 80 * 64, HCQ_MEM_DEVICE_MAPPED, &d) == 0);
    uint8_t *ps = s->cpu, *pd = d->cpu;
    for (int i = 0; i < 100 * 64; i++)
        ps[i] = (uint8_t)(i * 13 + 5);
    memset(pd, 0, 80 * 64);
    /* 37 × 20 bytes from (x 5, y 3) in pitch 100 to (x 11, y 2) in pitch 80. */
    EXPECT_EQ(hcq_q_copy_2d(cq, d->va + 2 * 80 + 11, 80, s->va + 3 * 100 + 5, 100, 37, 20), 0);
    finish(cq);
    int bad = 0;
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 80; x++) {
            bool in = y >= 2 && y < 22 && x >= 11 && x < 48;
            uint8_t want = in ? ps[(y - 2 + 3) * 100 + (x - 11 + 5)] : 0;
            bad += pd[y * 80 + x] != want;
        }
    EXPECT_EQ(bad, 0);
    hcq_mem_free(s);
    hcq_mem_free(d);
}

static void test_releases(struct hcq_device *dev, struct hcq_queue *kq, struct hcq_queue *cq)
{
    struct hcq_signal *a, *b;
    REQUIRE(hcq_signal_alloc(dev, &a) == 0 && hcq_signal_alloc(dev, &b) == 0);
    uint64_t g0, h0;
    REQUIRE(hcq_device_timer(dev, &g0, &h0) == 0);
    EXPECT_EQ(hcq_q_signal(kq, a, 0x123456789ull), 0); /* 64-bit from the host class */
    EXPECT_EQ(hcq_q_signal(cq, b, 0xfedcba987ull), 0);  /* 64-bit from the copy engine */
    finish(kq);
    finish(cq);
    EXPECT_EQ(hcq_signal_value(a), 0x123456789ull);
    EXPECT_EQ(hcq_signal_value(b), 0xfedcba987ull);
    /* Timestamps come from PTIMER: after the time read before submitting. */
    EXPECT(hcq_signal_timestamp(a) >= g0);
    EXPECT(hcq_signal_timestamp(b) >= g0);
    EXPECT_EQ(hcq_q_signal(kq, hcq_queue_timeline(kq), 5), -EINVAL);
    hcq_signal_free(a);
    hcq_signal_free(b);
}

/* Compute waits for a value the copy queue releases later; the copy's
 * data is visible once the compute queue proceeds. */
static void test_cross_queue(struct hcq_device *dev, struct hcq_queue *kq, struct hcq_queue *cq)
{
    struct hcq_signal *s, *x;
    struct hcq_mem *src, *dst;
    REQUIRE(hcq_signal_alloc(dev, &s) == 0 && hcq_signal_alloc(dev, &x) == 0);
    REQUIRE(hcq_mem_alloc(dev, 4096, HCQ_MEM_HOST, &src) == 0);
    REQUIRE(hcq_mem_alloc(dev, 4096, HCQ_MEM_HOST, &dst) == 0);
    memset(src->cpu, 0x3c, 4096);
    memset(dst->cpu, 0, 4096);
    EXPECT_EQ(hcq_q_wait(kq, s, 1), 0);
    EXPECT_EQ(hcq_q_signal(kq, x, 7), 0);
    EXPECT_EQ(hcq_q_submit(kq), 0);
    sleep_ms(30);
    EXPECT_EQ(hcq_signal_value(x), 0); /* still blocked */
    EXPECT_EQ(hcq_q_copy(cq, dst->va, src->va, 4096), 0);
    EXPECT_EQ(hcq_q_signal(cq, s, 1), 0);
    EXPECT_EQ(hcq_q_submit(cq), 0);
    EXPECT_EQ(hcq_signal_wait(x, 7, WAIT_NS), 0);
    EXPECT_EQ(((uint8_t *)dst->cpu)[4095], 0x3c);
    /* A wait on a value already reached passes straight through. */
    EXPECT_EQ(hcq_q_wait(kq, s, 1), 0);
    finish(kq);
    finish(cq);
    hcq_signal_free(s);
    hcq_signal_free(x);
    hcq_mem_free(src);
    hcq_mem_free(dst);
}

static void test_wrap(struct hcq_device *dev)
{
    struct hcq_mem *m;
    uint32_t *p;
    struct hcq_queue *q = core_test_small_queue(dev, 16384, &m, &p);
    /* 1000 submissions: the ring wraps ~15 times, the pushbuffer many. */
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t val = i + 1;
        EXPECT_EQ(hcq_q_fill(q, m->va + (i % 1024) * 4, 4, &val, 4), 0);
        if (i % 3 == 0)
            EXPECT_EQ(hcq_q_signal_next(q, NULL), 0);
        EXPECT_EQ(hcq_q_submit(q), 0);
    }
    finish(q);
    int bad = 0;
    for (uint32_t i = 0; i < 1000; i++)
        bad += p[i] != i + 1;
    EXPECT_EQ(bad, 0);
    /* One submission larger than the pushbuffer: it is flushed early in
     * pieces, nothing is lost or overwritten. */
    for (uint32_t i = 0; i < 3000; i++) {
        uint32_t val = 0x10000 + i;
        EXPECT_EQ(hcq_q_fill(q, m->va + (i % 1024) * 4, 4, &val, 4), 0);
    }
    finish(q);
    bad = 0;
    for (uint32_t i = 0; i < 1024; i++) {
        uint32_t last = i + 2048 < 3000 ? i + 2048 : i + 1024;
        bad += p[i] != 0x10000 + last;
    }
    EXPECT_EQ(bad, 0);
    /* Scratch blocks come back once their submission is done. */
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < 100; i++) {
        void *cpu;
        uint64_t va;
        EXPECT_EQ(hcq_q_scratch(q, 1000, 256, &cpu, &va), 0);
        EXPECT_EQ(va % 256, 0);
        memset(cpu, i, 1000);
        lo = UTIL_MIN(lo, va);
        hi = UTIL_MAX(hi, va + 1000);
        EXPECT_EQ(hcq_q_signal_next(q, NULL), 0);
        EXPECT_EQ(hcq_q_submit(q), 0);
    }
    EXPECT(hi - lo <= 8192);
    /* More scratch than the arena holds inside one open submission, each
     * block used by a method right away: flushed early, never refused. */
    struct hcq_signal *used;
    REQUIRE(hcq_signal_alloc(dev, &used) == 0);
    for (uint32_t i = 1; i <= 50; i++) {
        void *c;
        uint64_t v;
        EXPECT_EQ(hcq_q_scratch(q, 1000, 64, &c, &v), 0);
        EXPECT_EQ(hcq_q_signal(q, used, i), 0);
    }
    finish(q);
    EXPECT_EQ(hcq_signal_value(used), 50);
    hcq_signal_free(used);
    EXPECT(hi <= (1ull << 40));
    void *cpu;
    uint64_t va;
    EXPECT_EQ(hcq_q_scratch(q, 8193, 64, &cpu, &va), -ENOMEM);
    finish(q);
    hcq_queue_destroy(q);
    hcq_mem_free(m);
}

/* An open GP chunk that ends exactly at the end of the pushbuffer (what
 * a release written into a reservation's slack can do) is closed there
 * when the next reservation starts the next lap at offset 0: an entry
 * never runs past the end. White-box: method writes that only set the
 * host's semaphore address bring the head to the end. */
static void test_lap_end(struct hcq_device *dev)
{
    struct hcq_mem *m;
    uint32_t *p;
    struct hcq_queue *q = core_test_small_queue(dev, 16384, &m, &p);
    const uint32_t one = 1, two = 2;
    /* Past the middle of the pushbuffer, everything before retired. */
    while (hcq_arena_off(&q->pb, q->pb.head) < q->pb.size / 2) {
        EXPECT_EQ(hcq_q_fill(q, m->va, 4, &one, 4), 0);
        finish(q);
    }
    EXPECT_EQ(hcq_q_fill(q, m->va, 4, &one, 4), 0);
    uint64_t rem = q->pb.size - hcq_arena_off(&q->pb, q->pb.head);
    /* A reservation of 2 dwords keeps the slack free after them. */
    while (rem >= 4 * (2 + HCQ_RELEASE_SLACK_DW)) {
        REQUIRE(hcq_push_reserve(q, 2) == 0);
        hcq_push_1(q, NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, 0);
        rem = q->pb.size - hcq_arena_off(&q->pb, q->pb.head);
    }
    /* The rest (the slack, or 4 bytes more) is the last reservation's. */
    const uint32_t lohi[2] = {0, 0};
    if (rem % 8)
        hcq_push_incr(q, NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, lohi, 2);
    while (hcq_arena_off(&q->pb, q->pb.head) != 0)
        hcq_push_1(q, NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, 0);
    REQUIRE(q->pb.head != q->open_start, "the chunk is open up to the end");
    EXPECT_EQ(hcq_q_fill(q, m->va + 4, 4, &two, 4), 0);
    finish(q);
    EXPECT(!hcq_device_lost(dev));
    EXPECT_EQ(p[0], 1u);
    EXPECT_EQ(p[1], 2u);
    hcq_queue_destroy(q);
    hcq_mem_free(m);
}

/* Copies and fills beyond what one LAUNCH_DMA carries (2^31 bytes per
 * copy piece): device to device, checked through small windows copied
 * back. Needs 4+ GiB of device memory, so only on a real GPU. */
static void test_big_copy(struct hcq_device *dev, struct hcq_queue *cq)
{
    const uint64_t n = (1ull << 31) + 3 * 4096;
    struct hcq_mem *src, *dst, *win;
    REQUIRE(hcq_mem_alloc(dev, n, HCQ_MEM_DEVICE, &src) == 0);
    REQUIRE(hcq_mem_alloc(dev, n, HCQ_MEM_DEVICE, &dst) == 0);
    REQUIRE(hcq_mem_alloc(dev, 3 * 4096, HCQ_MEM_HOST, &win) == 0);
    uint32_t a = 0xA5A5F00Du, z = 0;
    EXPECT_EQ(hcq_q_fill(cq, src->va, n, &a, 4), 0);
    EXPECT_EQ(hcq_q_fill(cq, dst->va, n, &z, 4), 0);
    EXPECT_EQ(hcq_q_copy(cq, dst->va, src->va, n), 0);
    static const uint64_t at[3] = {0, (1ull << 31) - 2048, (1ull << 31) + 2 * 4096};
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(hcq_q_copy(cq, win->va + i * 4096ull, dst->va + at[i], 4096), 0);
    finish(cq);
    const uint32_t *w = win->cpu;
    int bad = 0;
    for (int i = 0; i < 3 * 1024; i++)
        bad += w[i] != a;
    EXPECT_EQ(bad, 0);
    hcq_mem_free(src);
    hcq_mem_free(dst);
    hcq_mem_free(win);
}

struct late_set {
    struct hcq_signal *s;
    unsigned ms;
};

static void *set_later(void *arg)
{
    struct late_set *l = arg;
    sleep_ms(l->ms);
    hcq_signal_set(l->s, 1);
    return NULL;
}

/* The GPU is held at a wait while the CPU records far more than the
 * pushbuffer holds: recording must block until the GPU has consumed what
 * it would overwrite, and every command must still arrive intact. */
static void test_stalled_gpu(struct hcq_device *dev)
{
    struct hcq_queue *q;
    REQUIRE(hcq_queue_create_sized(dev, HCQ_ENGINE_COPY, 1024, 16384, 4096, &q) == 0);
    struct hcq_signal *gate;
    struct hcq_mem *m;
    REQUIRE(hcq_signal_alloc(dev, &gate) == 0);
    REQUIRE(hcq_mem_alloc(dev, 4096, HCQ_MEM_HOST, &m) == 0);
    uint32_t *p = m->cpu;
    memset(p, 0, 4096);
    EXPECT_EQ(hcq_q_wait(q, gate, 1), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    struct late_set l = {gate, 200};
    pthread_t th;
    uint64_t t0 = util_now_ns(); /* before the 200 ms sleeper starts */
    pthread_create(&th, NULL, set_later, &l);
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t val = 0x5000 + i;
        EXPECT_EQ(hcq_q_fill(q, m->va + i * 4, 4, &val, 4), 0);
        EXPECT_EQ(hcq_q_submit(q), 0);
    }
    /* 1000 submissions need several laps of the 16 KiB pushbuffer. */
    EXPECT(util_now_ns() - t0 >= 150000000ull);
    finish(q);
    pthread_join(th, NULL);
    int bad = 0;
    for (uint32_t i = 0; i < 1000; i++)
        bad += p[i] != 0x5000 + i;
    EXPECT_EQ(bad, 0);
    hcq_queue_destroy(q);
    hcq_signal_free(gate);
    hcq_mem_free(m);
}

/* Compute runs on the graphics runlist; copy queues take the asynchronous
 * copy engines in turn, so two copy queues (one per direction) overlap
 * each other and compute. */
static void test_runlists(struct hcq_device *dev, struct hcq_queue *kq, struct hcq_queue *cq)
{
    const struct hcq_device_info *in = hcq_device_info(dev);
    EXPECT_EQ(hcq_queue_runlist(kq), 1u);
    if (!in->async_ce_count) {
        EXPECT_EQ(hcq_queue_runlist(cq), 1u);
        return;
    }
    struct hcq_queue *cq2;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &cq2) == 0);
    uint32_t a = hcq_queue_runlist(cq), b = hcq_queue_runlist(cq2);
    EXPECT(a != 1u && b != 1u);
    if (in->async_ce_count > 1)
        EXPECT(a != b);
    /* Both engines really copy. */
    struct hcq_mem *m;
    REQUIRE(hcq_mem_alloc(dev, 8192, HCQ_MEM_HOST, &m) == 0);
    uint32_t *p = m->cpu;
    memset(p, 0, 8192);
    uint32_t v1 = 0x11111111, v2 = 0x22222222;
    EXPECT_EQ(hcq_q_fill(cq, m->va, 4096, &v1, 4), 0);
    EXPECT_EQ(hcq_q_fill(cq2, m->va + 4096, 4096, &v2, 4), 0);
    EXPECT_EQ(hcq_q_submit(cq), 0);
    EXPECT_EQ(hcq_q_submit(cq2), 0);
    finish(cq);
    finish(cq2);
    EXPECT_EQ(p[0], v1);
    EXPECT_EQ(p[1023], v1);
    EXPECT_EQ(p[1024], v2);
    EXPECT_EQ(p[2047], v2);
    hcq_mem_free(m);
    hcq_queue_destroy(cq2);
}

/* Compute queues share a channel group, each with a subcontext of its
 * own. A group that has handed out its subcontexts (HCQ_GROUP_SUBCONTEXTS,
 * or fewer where RM refuses a joiner earlier) is retired, and the queues
 * beyond start and join the next one. All of them run, at once. */
/* A compute queue with a channel of its own making, never one kept idle
 * (hcq_queue_create would hand those out again). */
static int fresh_compute(struct hcq_device *dev, struct hcq_queue **q)
{
    return hcq_queue_create_sized(dev, HCQ_ENGINE_COMPUTE, HCQ_RING_ENTRIES, HCQ_PB_BYTES,
                                  HCQ_SCRATCH_BYTES, q);
}

static void test_compute_group(struct hcq_device *dev)
{
    enum { N = HCQ_GROUP_SUBCONTEXTS + 6 };
    const bool shared = strcmp(util_env()->compute_group, "own") != 0;
    struct hcq_queue *q[N];
    uint64_t v[N];
    unsigned joined = 0, groups = 0;
    for (int i = 0; i < N; i++) {
        REQUIRE(fresh_compute(dev, &q[i]) == 0);
        joined += q[i]->shared_group;
        groups += q[i]->shared_group && (i == 0 || q[i]->group != q[i - 1]->group);
    }
    /* The test's other compute queue (main's) holds one subcontext of the
     * first group: HCQ_GROUP_SUBCONTEXTS - 1 queues join it, and the rest
     * the next group. */
    printf("core_queue: %u of %u compute queues made at once joined a group; %u groups\n",
           joined, (unsigned)N, groups);
    if (!shared) {
        EXPECT_EQ(joined, 0u);
    } else {
        EXPECT_EQ(joined, (unsigned)N);
        EXPECT(groups >= 2, "%u groups", groups);
        if (strtoul(util_env()->emu_group_shares, NULL, 0) >= HCQ_GROUP_SUBCONTEXTS) {
            EXPECT_EQ(groups, 2u);
            EXPECT(q[HCQ_GROUP_SUBCONTEXTS - 2]->group == q[0]->group);
            EXPECT(q[HCQ_GROUP_SUBCONTEXTS - 1]->group != q[0]->group);
        }
    }
    for (int i = 0; i < N; i++) {
        EXPECT_EQ(hcq_q_signal_next(q[i], &v[i]), 0);
        EXPECT_EQ(hcq_q_submit(q[i]), 0);
    }
    for (int i = 0; i < N; i++)
        EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q[i]), v[i], 10000000000ull), 0);
    for (int i = 0; i < N; i++)
        hcq_queue_destroy(q[i]);
    /* The first group outlives its queues while main's is left, but hands
     * out no subcontext again (the H200's RM did not, and the emulated
     * device does as it did): a new queue starts a group. */
    struct hcq_queue *again;
    REQUIRE(fresh_compute(dev, &again) == 0);
    printf("core_queue: a compute queue made after them %s a group\n",
           again->shared_group ? "joined" : "did not join");
    EXPECT_EQ(again->shared_group, shared);
    EXPECT_EQ(hcq_q_signal_next(again, &v[0]), 0);
    EXPECT_EQ(hcq_q_submit(again), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(again), v[0], 10000000000ull), 0);
    hcq_queue_destroy(again);
}

/* Compute queues made and destroyed one at a time, many more than a
 * group hands out subcontexts in its life, beside one that stays: each
 * joins a group, those after the stayer's group retired join later
 * groups (none gets a group of its own), and each runs. */
static void test_compute_churn(struct hcq_device *dev)
{
    enum { N = 3 * HCQ_GROUP_SUBCONTEXTS };
    const bool shared = strcmp(util_env()->compute_group, "own") != 0;
    struct hcq_queue *stay;
    REQUIRE(fresh_compute(dev, &stay) == 0);
    unsigned joined = 0, later = 0;
    for (int i = 0; i < N; i++) {
        struct hcq_queue *q;
        uint64_t v;
        REQUIRE(fresh_compute(dev, &q) == 0, "queue %d", i);
        joined += q->shared_group;
        later += q->shared_group && q->group != stay->group; /* stay's group lives */
        EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
        EXPECT_EQ(hcq_q_submit(q), 0);
        EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, 10000000000ull), 0);
        hcq_queue_destroy(q);
    }
    printf("core_queue: %u of %u compute queues made one at a time joined a group, %u of them "
           "a later one than the queue that stayed\n", joined, (unsigned)N, later);
    EXPECT_EQ(joined, shared ? (unsigned)N : 0u);
    if (shared)
        EXPECT(later >= N - HCQ_GROUP_SUBCONTEXTS, "%u joined later groups", later);
    hcq_queue_destroy(stay);
}

/* Queues hcq_queue_create makes are kept idle when destroyed and handed
 * out again: the same queue, its channel and a timeline that goes on
 * rising; two alive at once are two queues; a kept queue runs what was
 * recorded before its destroy; the device's idle queues are freed with
 * hcq_queue_idle_drain, all their memory with them. */
static void test_reuse(struct hcq_device *dev)
{
    hcq_queue_idle_drain(dev);
    uint64_t base = hcq_mem_in_use(dev);
    struct hcq_queue *a, *b, *c;
    uint64_t v, v0;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &a) == 0);
    EXPECT_EQ(hcq_q_signal_next(a, &v0), 0);
    EXPECT_EQ(hcq_q_submit(a), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(a), v0, 10000000000ull), 0);
    const uint32_t channel = a->h_channel;
    /* Recorded, not submitted: runs before the queue is kept. */
    EXPECT_EQ(hcq_q_signal_next(a, &v), 0);
    hcq_queue_destroy(a);
    for (int i = 0; i < 50; i++) {
        REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &b) == 0);
        EXPECT(b == a && b->h_channel == channel, "round %d: another queue", i);
        if (i == 0)
            EXPECT(hcq_signal_value(hcq_queue_timeline(b)) >= v);
        uint64_t w;
        EXPECT_EQ(hcq_q_signal_next(b, &w), 0);
        EXPECT(w > v, "timeline %llu after %llu", (unsigned long long)w, (unsigned long long)v);
        EXPECT_EQ(hcq_q_submit(b), 0);
        EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(b), w, 10000000000ull), 0);
        v = w;
        hcq_queue_destroy(b);
    }
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &b) == 0);
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &c) == 0);
    EXPECT(b != c && b->h_channel != c->h_channel);
    struct hcq_queue *cp;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &cp) == 0);
    EXPECT(cp != b && cp != c && cp->engine == HCQ_ENGINE_COPY);
    hcq_queue_destroy(cp);
    hcq_queue_destroy(c);
    hcq_queue_destroy(b);
    EXPECT(dev->nidle >= 3);
    hcq_queue_idle_drain(dev);
    EXPECT_EQ(dev->nidle, 0u);
    EXPECT_EQ(hcq_mem_in_use(dev), base);
}

/* hcq_q_commit: the first two units go at once (the GPU has nothing
 * queued behind them); while the GPU is held on a gate, later units are
 * held back — the GPU never sees them, even after the gate opens — until
 * a submit; and once the GPU is idle again, a commit goes at once. */
static void test_commit(struct hcq_device *dev, struct hcq_queue *cq)
{
    struct hcq_signal *gate, *mark;
    REQUIRE(hcq_signal_alloc(dev, &gate) == 0);
    REQUIRE(hcq_signal_alloc(dev, &mark) == 0);
    struct hcq_signal *tl = hcq_queue_timeline(cq);
    uint64_t v0 = finish(cq), v1, v2, v;
    EXPECT_EQ(hcq_q_wait(cq, gate, 1), 0);
    EXPECT_EQ(hcq_q_signal_next(cq, &v1), 0);
    EXPECT_EQ(hcq_q_commit(cq), 0); /* GPU idle: submitted */
    EXPECT(!hcq_q_held(cq));
    EXPECT_EQ(hcq_q_signal_next(cq, &v2), 0);
    EXPECT_EQ(hcq_q_commit(cq), 0); /* GPU on its last submission: too */
    for (uint64_t i = 1; i <= 5; i++) {
        EXPECT_EQ(hcq_q_signal(cq, mark, i), 0);
        EXPECT_EQ(hcq_q_signal_next(cq, &v), 0);
        EXPECT_EQ(hcq_q_commit(cq), 1); /* the second one waits behind the first */
        EXPECT(hcq_q_held(cq));
    }
    sleep_ms(20);
    EXPECT_EQ(hcq_signal_value(tl), v0);
    hcq_signal_set(gate, 1);
    EXPECT_EQ(hcq_signal_wait(tl, v2, WAIT_NS), 0);
    sleep_ms(20);
    EXPECT_EQ(hcq_signal_value(mark), 0); /* held: never submitted */
    EXPECT_EQ(hcq_signal_value(tl), v2);
    EXPECT_EQ(hcq_q_submit(cq), 0);
    EXPECT(!hcq_q_held(cq));
    EXPECT_EQ(hcq_signal_wait(tl, v, WAIT_NS), 0);
    EXPECT_EQ(hcq_signal_value(mark), 5);
    /* All done: the next commit finds the GPU idle. */
    EXPECT_EQ(hcq_q_signal_next(cq, &v), 0);
    EXPECT_EQ(hcq_q_commit(cq), 0);
    EXPECT_EQ(hcq_signal_wait(tl, v, WAIT_NS), 0);
    /* At most HCQ_DEFER_MAX - 1 units are held, however busy the GPU is:
     * every HCQ_DEFER_MAX-th commit submits. */
    hcq_signal_set(gate, 0);
    EXPECT_EQ(hcq_q_wait(cq, gate, 1), 0);
    EXPECT_EQ(hcq_q_signal_next(cq, &v), 0);
    EXPECT_EQ(hcq_q_commit(cq), 0);
    EXPECT_EQ(hcq_q_signal_next(cq, &v), 0);
    EXPECT_EQ(hcq_q_commit(cq), 0);
    int held = 0, sent = 0;
    for (int i = 0; i < 3 * HCQ_DEFER_MAX; i++) {
        EXPECT_EQ(hcq_q_signal_next(cq, &v), 0);
        int r = hcq_q_commit(cq);
        held += r == 1;
        sent += r == 0;
    }
    EXPECT(sent >= 2 && sent <= 4);
    EXPECT_EQ(held + sent, 3 * HCQ_DEFER_MAX);
    hcq_signal_set(gate, 1);
    EXPECT_EQ(hcq_q_submit(cq), 0);
    EXPECT_EQ(hcq_signal_wait(tl, v, WAIT_NS), 0);
    hcq_signal_free(gate);
    hcq_signal_free(mark);
}

int main(void)
{
    struct hcq_device *dev = core_test_device();
    uint64_t base = hcq_mem_in_use(dev);
    struct hcq_queue *kq, *cq;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COMPUTE, &kq) == 0);
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &cq) == 0);
    EXPECT_EQ(hcq_q_copy(kq, 0, 0, 16), -ENOTSUP);
    test_runlists(dev, kq, cq);
    test_copy(dev, cq);
    test_fill(dev, cq);
    test_copy_2d(dev, cq);
    test_releases(dev, kq, cq);
    test_cross_queue(dev, kq, cq);
    test_commit(dev, cq);
    test_compute_group(dev);
    test_compute_churn(dev);
    test_reuse(dev);
    test_wrap(dev);
    test_lap_end(dev);
    test_stalled_gpu(dev);
    if (!hcq_device_info(dev)->emulated)
        test_big_copy(dev, cq);
    hcq_queue_destroy(kq);
    hcq_queue_destroy(cq);
    hcq_queue_idle_drain(dev);
    EXPECT(!hcq_device_lost(dev));
    EXPECT_EQ(hcq_mem_in_use(dev), base);
    hcq_device_close(dev);
    return core_test_done("core_queue");
}

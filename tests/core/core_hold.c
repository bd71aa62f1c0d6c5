/*
 * core_hold.c — holds (hcq_q_hold): work recorded behind one reaches the
 * GPU only once it is decided, its span runs or is dropped whole, and
 * what follows the span always runs. One hold dropped and one run; two
 * decided in the other order (the second waits for the first); hundreds
 * on one queue, more GP entries than a submission carries inline; spans
 * decided together merged into one GP entry; more than the ring holds, submitted by flushes that never wait for room; a
 * pushbuffer that fills behind an open hold refuses the verb instead of
 * waiting; a queue destroyed with a hold undecided gives everything back;
 * a release inside a dropped span is not counted on after it, and one in
 * the slack of a full pushbuffer leaves room for the release after it.
 * Copy-engine fills on the device the tests find (the emulated one in
 * CI); the launch chains around a span are tested in tests/launch.
 */
#include <time.h>

#include "core_test.h"

#define WAIT_NS 10000000000ull

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static void fill32(struct hcq_queue *q, const struct hcq_mem *m, unsigned i, uint32_t v)
{
    EXPECT_EQ(hcq_q_fill(q, m->va + 4ull * i, 4, &v, 4), 0);
}

/* Before | hold: span | after; the span dropped or run. */
static void test_one(struct hcq_device *dev, bool run)
{
    struct hcq_queue *q;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    struct hcq_mem *m = core_test_zeroed(dev, 4096);
    uint32_t *p = m->cpu;
    struct hcq_signal *tl = hcq_queue_timeline(q);
    uint64_t before, v;
    fill32(q, m, 0, 1);
    EXPECT_EQ(hcq_q_signal_next(q, &before), 0);
    struct hcq_hold *h;
    REQUIRE(hcq_q_hold(q, &h) == 0);
    /* What came before went to the GPU with the hold. */
    EXPECT_EQ(hcq_signal_wait(tl, before, WAIT_NS), 0);
    EXPECT_EQ(p[0], 1u);
    fill32(q, m, 1, 2);
    EXPECT_EQ(hcq_q_hold_end(q, h), 0);
    EXPECT_EQ(hcq_q_hold_end(q, h), -EINVAL);
    fill32(q, m, 2, 3);
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_commit(q), 1); /* held: undecided */
    EXPECT(hcq_q_held(q));
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_q_submit_try(q), 0);
    sleep_ms(20);
    EXPECT(hcq_signal_value(tl) < v);
    EXPECT_EQ(p[1], 0u);
    EXPECT_EQ(p[2], 0u);
    hcq_q_hold_decide(h, run);
    EXPECT_EQ(hcq_q_submit_try(q), 0);
    EXPECT(!hcq_q_held(q));
    EXPECT_EQ(hcq_signal_wait(tl, v, WAIT_NS), 0);
    EXPECT_EQ(p[1], run ? 2u : 0u);
    EXPECT_EQ(p[2], 3u);
    hcq_queue_destroy(q);
    hcq_mem_free(m);
}

/* Two holds, the second decided first: nothing past the first goes until
 * it is decided; the first dropped, the second run. */
static void test_reversed(struct hcq_device *dev)
{
    struct hcq_queue *q;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    struct hcq_mem *m = core_test_zeroed(dev, 4096);
    uint32_t *p = m->cpu;
    struct hcq_signal *tl = hcq_queue_timeline(q);
    struct hcq_hold *h1, *h2;
    uint64_t v1, v;
    REQUIRE(hcq_q_hold(q, &h1) == 0);
    fill32(q, m, 0, 10);
    EXPECT_EQ(hcq_q_hold_end(q, h1), 0);
    fill32(q, m, 1, 11);
    EXPECT_EQ(hcq_q_signal_next(q, &v1), 0);
    REQUIRE(hcq_q_hold(q, &h2) == 0);
    fill32(q, m, 2, 12);
    EXPECT_EQ(hcq_q_hold_end(q, h2), 0);
    fill32(q, m, 3, 13);
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    hcq_q_hold_decide(h2, true);
    EXPECT_EQ(hcq_q_submit(q), 0);
    sleep_ms(20);
    EXPECT(hcq_signal_value(tl) < v1);
    EXPECT_EQ(p[1] | p[2] | p[3], 0u);
    hcq_q_hold_decide(h1, false);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(tl, v, WAIT_NS), 0);
    EXPECT_EQ(p[0], 0u);
    EXPECT_EQ(p[1], 11u);
    EXPECT_EQ(p[2], 12u);
    EXPECT_EQ(p[3], 13u);
    /* The first decided, the second open: the work between them goes. */
    REQUIRE(hcq_q_hold(q, &h1) == 0);
    fill32(q, m, 4, 14);
    EXPECT_EQ(hcq_q_hold_end(q, h1), 0);
    fill32(q, m, 5, 15);
    EXPECT_EQ(hcq_q_signal_next(q, &v1), 0);
    REQUIRE(hcq_q_hold(q, &h2) == 0);
    fill32(q, m, 6, 16);
    EXPECT_EQ(hcq_q_hold_end(q, h2), 0);
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    hcq_q_hold_decide(h1, true);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(tl, v1, WAIT_NS), 0);
    EXPECT_EQ(p[4], 14u);
    EXPECT_EQ(p[5], 15u);
    sleep_ms(20);
    EXPECT(hcq_signal_value(tl) < v);
    EXPECT_EQ(p[6], 0u);
    hcq_q_hold_decide(h2, false);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(tl, v, WAIT_NS), 0);
    EXPECT_EQ(p[6], 0u);
    hcq_queue_destroy(q);
    hcq_mem_free(m);
}

/* n holds on q, each around a fill of word 2i of m, each followed by a
 * fill of word 2i + 1 and a release (the last one's value returned). */
static uint64_t held_fills(struct hcq_queue *q, const struct hcq_mem *m, struct hcq_hold **h,
                           unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        REQUIRE(hcq_q_hold(q, &h[i]) == 0);
        fill32(q, m, 2 * i, i + 1);
        EXPECT_EQ(hcq_q_hold_end(q, h[i]), 0);
        fill32(q, m, 2 * i + 1, i + 1);
        EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
        EXPECT_EQ(hcq_q_commit(q), 1);
    }
    return v;
}

/* How many of n pairs of m are not what held_fills wrote, with the holds
 * that `ran` says dropped. */
static int fills_off(const struct hcq_mem *m, unsigned n, bool (*ran)(unsigned))
{
    const uint32_t *p = m->cpu;
    int bad = 0;
    for (unsigned i = 0; i < n; i++)
        bad += p[2 * i] != (ran(i) ? i + 1 : 0) || p[2 * i + 1] != i + 1;
    return bad;
}

static bool every_third_dropped(unsigned i) { return i % 3 != 0; }
static bool all_ran(unsigned i) { return (void)i, true; }

/* Hundreds of holds on one queue, every third dropped, decided last to
 * first: each span's fate is its own. */
static void test_many(struct hcq_device *dev)
{
    enum { H = 300 };
    struct hcq_queue *q;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    struct hcq_mem *m = core_test_zeroed(dev, 2 * 4 * H);
    static struct hcq_hold *h[H];
    const uint64_t v = held_fills(q, m, h, H);
    for (unsigned i = H; i-- > 0;)
        hcq_q_hold_decide(h[i], every_third_dropped(i));
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS), 0);
    EXPECT_EQ(fills_off(m, H, every_third_dropped), 0);
    hcq_queue_destroy(q);
    hcq_mem_free(m);
}

/* Spans decided together go to the GPU as one GP entry where their
 * pushbuffer bytes follow one another: a hundred run, three entries at
 * most (the arena may wrap once, the submission's last chunk). A hold
 * right after a command's release takes that release as the end of the
 * work before it: one release a command, not two. */
static void test_merged(struct hcq_device *dev)
{
    enum { H = 100 };
    struct hcq_queue *q;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    struct hcq_mem *m = core_test_zeroed(dev, 2 * 4 * H);
    static struct hcq_hold *h[H];
    const uint64_t last = q->last;
    const uint64_t v = held_fills(q, m, h, H);
    EXPECT_EQ(q->last - last, (uint64_t)H);
    EXPECT(q->npending >= 2 * H - 1); /* a span and a release chunk each */
    const uint64_t put = q->put;
    for (unsigned i = 0; i < H; i++)
        hcq_q_hold_decide(h[i], true);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT(q->put - put >= 1 && q->put - put <= 3);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS), 0);
    EXPECT_EQ(fills_off(m, H, all_ran), 0);
    hcq_queue_destroy(q);
    hcq_mem_free(m);
}

/* More decided work than the ring holds, submitted by flushes that never
 * wait for ring room (hcq_q_submit_try, as the event notifier flushes):
 * each puts on the ring what fits and says -EAGAIN, until all went. Every
 * third span dropped leaves a hundred entries that cannot merge. */
static void test_try(struct hcq_device *dev)
{
    enum { H = 300 };
    struct hcq_queue *q;
    REQUIRE(hcq_queue_create_sized(dev, HCQ_ENGINE_COPY, 64, 131072, 8192, &q) == 0);
    struct hcq_mem *m = core_test_zeroed(dev, 2 * 4 * H);
    static struct hcq_hold *h[H];
    const uint64_t v = held_fills(q, m, h, H);
    for (unsigned i = 0; i < H; i++)
        hcq_q_hold_decide(h[i], every_third_dropped(i));
    int r, again = 0;
    for (int k = 0; k < 100000 && (r = hcq_q_submit_try(q)) == -EAGAIN; k++) {
        again++;
        sleep_ms(1);
    }
    EXPECT_EQ(r, 0);
    EXPECT(again > 0); /* 100 entries, 64 on the ring */
    EXPECT(!hcq_q_held(q));
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS), 0);
    EXPECT_EQ(fills_off(m, H, every_third_dropped), 0);
    hcq_queue_destroy(q);
    hcq_mem_free(m);
}

/* A pushbuffer that fills behind an open hold: the verb is refused at
 * once (no room comes back by waiting); once decided, the queue goes on. */
static void test_full(struct hcq_device *dev)
{
    struct hcq_mem *m;
    uint32_t *p;
    struct hcq_queue *q = core_test_small_queue(dev, 16384, &m, &p);
    struct hcq_hold *h;
    REQUIRE(hcq_q_hold(q, &h) == 0);
    fill32(q, m, 0, 1);
    EXPECT_EQ(hcq_q_hold_end(q, h), 0);
    unsigned n = 1;
    int r = 0;
    for (; n < 100000 && r == 0; n++) {
        uint32_t val = n + 1;
        r = hcq_q_fill(q, m->va + 4ull * (n % 1024), 4, &val, 4);
    }
    EXPECT_EQ(r, -ENOMEM);
    EXPECT(n > 100 && n < 100000);
    hcq_q_hold_decide(h, false);
    uint64_t v;
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS), 0);
    EXPECT_EQ(p[0], 0u);
    EXPECT_EQ(p[1], 2u);
    fill32(q, m, 0, 77);
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, WAIT_NS), 0);
    EXPECT_EQ(p[0], 77u);
    /* Destroyed with a hold undecided: nothing behind it runs, nothing
     * waits for it. */
    REQUIRE(hcq_q_hold(q, &h) == 0);
    fill32(q, m, 0, 88);
    hcq_queue_destroy(q);
    EXPECT_EQ(p[0], 77u);
    hcq_mem_free(m);
}

/* A span that ends with a release of its own, then dropped: the release
 * goes with it, so nothing after the span may count on it, neither the
 * next hold (behind_hold) nor the submission that ends the work. Each
 * submission closed must retire at a value the GPU releases. */
static void test_dropped_release(struct hcq_device *dev, bool behind_hold)
{
    struct hcq_queue *q;
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    struct hcq_mem *m = core_test_zeroed(dev, 4096);
    uint32_t *p = m->cpu;
    struct hcq_signal *tl = hcq_queue_timeline(q);
    struct hcq_hold *z, *a, *b = NULL;
    uint64_t r1, v;
    REQUIRE(hcq_q_hold(q, &z) == 0);
    fill32(q, m, 0, 10);
    EXPECT_EQ(hcq_q_hold_end(q, z), 0);
    fill32(q, m, 1, 11);
    REQUIRE(hcq_q_hold(q, &a) == 0);
    fill32(q, m, 2, 12);
    EXPECT_EQ(hcq_q_signal_next(q, &r1), 0); /* the span's last words */
    EXPECT_EQ(hcq_q_hold_end(q, a), 0);
    if (behind_hold) {
        REQUIRE(hcq_q_hold(q, &b) == 0);
        fill32(q, m, 3, 13);
        EXPECT_EQ(hcq_q_hold_end(q, b), 0);
        EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    }
    hcq_q_hold_decide(z, true);
    hcq_q_hold_decide(a, false);
    EXPECT_EQ(hcq_q_submit(q), 0);
    const uint64_t closed = q->retire[(q->seq - 1) % HCQ_SUBMIT_HISTORY];
    EXPECT_EQ(hcq_signal_wait(tl, closed, WAIT_NS), 0);
    EXPECT_EQ(p[0], 10u);
    EXPECT_EQ(p[1], 11u);
    EXPECT_EQ(p[2], 0u);
    if (behind_hold) {
        hcq_q_hold_decide(b, true);
        EXPECT_EQ(hcq_q_submit(q), 0);
        EXPECT_EQ(hcq_signal_wait(tl, v, WAIT_NS), 0);
        EXPECT_EQ(p[3], 13u);
    }
    hcq_queue_destroy(q);
    hcq_mem_free(m);
}

/* A pushbuffer filled behind a hold, then releases asked for inside the
 * span: the first goes in the slack, one of the next few is refused, and
 * the span decided to run still leaves room for the release that ends
 * the work after it. */
static void test_slack_release(struct hcq_device *dev)
{
    struct hcq_mem *m;
    uint32_t *p;
    struct hcq_queue *q = core_test_small_queue(dev, 4096, &m, &p);
    struct hcq_signal *tl = hcq_queue_timeline(q);
    struct hcq_hold *h;
    fill32(q, m, 1020, 1);
    fill32(q, m, 0, 1);
    REQUIRE(hcq_q_hold(q, &h) == 0);
    unsigned n = 0;
    for (uint32_t v = 2; n < 1000; v++, n++) {
        uint32_t word = v;
        if (hcq_q_fill(q, m->va + 4ull * (1 + n), 4, &word, 4) != 0)
            break;
    }
    EXPECT(n > 0 && n < 1000); /* the pushbuffer filled */
    uint64_t r1, r2, v;
    EXPECT_EQ(hcq_q_signal_next(q, &r1), 0);
    int r = 0;
    unsigned more = 0;
    while (more < 8 && (r = hcq_q_signal_next(q, &r2)) == 0)
        more++;
    EXPECT_EQ(r, -ENOMEM); /* the slack keeps one release back */
    EXPECT_EQ(hcq_q_hold_end(q, h), 0);
    hcq_q_hold_decide(h, true);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(tl, r1, WAIT_NS), 0);
    EXPECT_EQ(p[0], 1u);
    EXPECT_EQ(p[n], n + 1);
    /* The queue goes on. */
    fill32(q, m, 1021, 9);
    EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
    EXPECT_EQ(hcq_q_submit(q), 0);
    EXPECT_EQ(hcq_signal_wait(tl, v, WAIT_NS), 0);
    EXPECT_EQ(p[1021], 9u);
    hcq_queue_destroy(q);
    hcq_mem_free(m);
}

int main(void)
{
    struct hcq_device *dev = core_test_device();
    uint64_t base = hcq_mem_in_use(dev);
    test_one(dev, false);
    test_one(dev, true);
    test_reversed(dev);
    test_many(dev);
    test_merged(dev);
    test_try(dev);
    test_full(dev);
    test_dropped_release(dev, true);
    test_dropped_release(dev, false);
    test_slack_release(dev);
    hcq_queue_idle_drain(dev);
    EXPECT(!hcq_device_lost(dev));
    EXPECT_EQ(hcq_mem_in_use(dev), base);
    hcq_device_close(dev);
    return core_test_done("core_hold");
}

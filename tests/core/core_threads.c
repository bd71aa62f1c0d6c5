/*
 * core_threads.c — the core from several threads at once: each thread
 * owns a queue (verbs on one queue are serialised by its caller) while
 * memory, signals and queue creation are shared device state that the
 * core locks itself, small blocks among it. Every thread's data must come
 * back intact and the device must end as it started.
 */
#include <pthread.h>

#include "core_test.h"

#define THREADS 4
#define ROUNDS 40

static struct hcq_device *dev;

static void *worker(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    intptr_t bad = 0;
    for (int round = 0; round < ROUNDS; round++) {
        struct hcq_queue *q;
        if (hcq_queue_create(dev, (round + id) % 3 ? HCQ_ENGINE_COPY : HCQ_ENGINE_COMPUTE, &q))
            return (void *)(intptr_t)1000;
        struct hcq_mem *h, *h2, *d;
        struct hcq_signal *s;
        uint64_t n = 4096 * (1 + (round % 5));
        if (hcq_mem_alloc(dev, n, HCQ_MEM_HOST, &h) || hcq_mem_alloc(dev, n, HCQ_MEM_HOST, &h2) ||
            hcq_mem_alloc(dev, n, HCQ_MEM_DEVICE, &d) || hcq_signal_alloc(dev, &s))
            return (void *)(intptr_t)1000;
        uint32_t *p = h->cpu, *p2 = h2->cpu;
        for (uint64_t i = 0; i < n / 4; i++) {
            p[i] = (uint32_t)(id << 24 | round << 16 | i);
            p2[i] = 0;
        }
        bool copy = q->engine == HCQ_ENGINE_COPY;
        if (copy) {
            /* h → d, h := 0, d → h2: only a GPU that ran all three leaves
             * h zero and h2 holding the pattern. */
            hcq_q_copy(q, d->va, h->va, n);
            uint32_t zero = 0;
            hcq_q_fill(q, h->va, n, &zero, 4);
            hcq_q_copy(q, h2->va, d->va, n);
        }
        hcq_q_signal(q, s, (uint64_t)round + 1);
        uint64_t v;
        hcq_q_signal_next(q, &v);
        hcq_q_submit(q);
        if (hcq_signal_wait(hcq_queue_timeline(q), v, 10000000000ull) ||
            hcq_signal_value(s) != (uint64_t)round + 1)
            bad++;
        for (uint64_t i = 0; copy && i < n / 4; i++)
            bad += p[i] != 0 || p2[i] != (uint32_t)(id << 24 | round << 16 | i);
        hcq_mem_free(h2);
        hcq_signal_free(s);
        hcq_mem_free(h);
        hcq_mem_free(d);
        hcq_queue_destroy(q);
    }
    return (void *)bad;
}

/* Small blocks from several threads at once: slabs made by one thread
 * while others take and give back blocks of the same class. Each block
 * holds its owner's pattern until freed (no two live blocks overlap). */
enum { SMALL_BLOCKS = 200, SMALL_SIZE = 32768 };

static void *small_worker(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    intptr_t bad = 0;
    static struct hcq_mem *blocks[THREADS][SMALL_BLOCKS];
    struct hcq_mem **b = blocks[id];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < SMALL_BLOCKS; i++) {
            if (hcq_mem_alloc_small(dev, SMALL_SIZE, HCQ_MEM_DEVICE_MAPPED, &b[i]))
                return (void *)(intptr_t)1000;
            uint32_t *p = b[i]->cpu;
            p[0] = p[SMALL_SIZE / 4 - 1] = (uint32_t)(id << 16 | (unsigned)i);
        }
        for (int i = 0; i < SMALL_BLOCKS; i++) {
            const uint32_t *p = b[i]->cpu;
            const uint32_t want = (uint32_t)(id << 16 | (unsigned)i);
            bad += p[0] != want || p[SMALL_SIZE / 4 - 1] != want;
            hcq_mem_free(b[i]);
        }
    }
    return (void *)bad;
}

int main(void)
{
    dev = core_test_device();
    /* The signal pool keeps its pages: create the first one up front. */
    struct hcq_signal *warm;
    REQUIRE(hcq_signal_alloc(dev, &warm) == 0);
    hcq_signal_free(warm);
    /* So does a small-block class its first slab. */
    struct hcq_mem *first;
    REQUIRE(hcq_mem_alloc_small(dev, SMALL_SIZE, HCQ_MEM_DEVICE_MAPPED, &first) == 0);
    hcq_mem_free(first);
    uint64_t use0 = hcq_mem_in_use(dev);
    uint64_t low0 = hcq_va_free_bytes(dev->va_low), high0 = hcq_va_free_bytes(dev->va_high);
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++) {
        void *bad;
        pthread_join(th[i], &bad);
        EXPECT_EQ((intptr_t)bad, 0);
    }
    const uint64_t small0 = hcq_mem_in_use(dev);
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, small_worker, (void *)i);
    for (int i = 0; i < THREADS; i++) {
        void *bad;
        pthread_join(th[i], &bad);
        EXPECT_EQ((intptr_t)bad, 0);
    }
    EXPECT_EQ(hcq_mem_in_use(dev), small0);
    hcq_queue_idle_drain(dev); /* the queues the threads kept idle */
    EXPECT_EQ(hcq_mem_in_use(dev), use0);
    EXPECT_EQ(hcq_va_free_bytes(dev->va_low), low0);
    EXPECT_EQ(hcq_va_free_bytes(dev->va_high), high0);
    EXPECT(!hcq_device_lost(dev));
    hcq_device_close(dev);
    return core_test_done("core_threads");
}

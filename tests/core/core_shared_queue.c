/*
 * core_shared_queue.c — one queue shared by several threads the way the
 * OpenCL layer shares a command queue: every verb under one util_lock,
 * whose release is a plain store (util.h), commands recorded by one thread
 * and submitted by another (a flusher standing in for the event notifier).
 * On a GPU the pushbuffer is write-combined memory, and what one thread
 * left in its core's buffers must reach the GPU before another thread's
 * doorbell (core/queue.c, wc_writer). Each command fills its own word of
 * host memory: every word must come back, and the lock must have kept the
 * plain counter exact.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "core_test.h"

#define THREADS 4
#define ROUNDS 4000

static struct hcq_device *dev;
static struct hcq_queue *q;
static struct hcq_mem *host;
static struct util_lock lock = UTIL_LOCK_INIT;
static uint64_t counter; /* under lock, not atomic */
static atomic_bool stop;
static atomic_int failed;

static uint32_t word_of(uintptr_t id, int round) { return (uint32_t)(id << 24 | (uint32_t)round); }

static void *worker(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        uint32_t v = word_of(id, r);
        util_lock(&lock);
        counter++;
        if (hcq_q_fill(q, host->va + 4 * (id * ROUNDS + (uint64_t)r), 4, &v, 4) ||
            (r % 5 == 0 && hcq_q_commit(q) < 0))
            atomic_store(&failed, 1);
        util_unlock(&lock);
    }
    return NULL;
}

/* Submits what the workers recorded, from its own thread. */
static void *flusher(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        util_lock(&lock);
        if (hcq_q_submit(q))
            atomic_store(&failed, 1);
        util_unlock(&lock);
        usleep(50);
    }
    return NULL;
}

int main(void)
{
    dev = core_test_device();
    REQUIRE(hcq_queue_create(dev, HCQ_ENGINE_COPY, &q) == 0);
    const uint64_t bytes = 4ull * THREADS * ROUNDS;
    REQUIRE(hcq_mem_alloc(dev, bytes, HCQ_MEM_HOST, &host) == 0);
    memset(host->cpu, 0, bytes);

    pthread_t th[THREADS], fl;
    pthread_create(&fl, NULL, flusher, NULL);
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    atomic_store(&stop, true);
    pthread_join(fl, NULL);

    uint64_t v;
    util_lock(&lock);
    REQUIRE(hcq_q_signal_next(q, &v) == 0);
    REQUIRE(hcq_q_submit(q) == 0);
    util_unlock(&lock);
    REQUIRE(hcq_signal_wait(hcq_queue_timeline(q), v, 10000000000ull) == 0);

    EXPECT_EQ(atomic_load(&failed), 0);
    EXPECT_EQ(counter, (uint64_t)THREADS * ROUNDS);
    const uint32_t *w = host->cpu;
    unsigned bad = 0;
    for (uintptr_t id = 0; id < THREADS; id++)
        for (int r = 0; r < ROUNDS; r++)
            bad += w[id * ROUNDS + (uint64_t)r] != word_of(id, r);
    EXPECT_EQ(bad, 0u);
    EXPECT(!hcq_device_lost(dev));
    hcq_mem_free(host);
    hcq_queue_destroy(q);
    hcq_device_close(dev);
    return core_test_done("core_shared_queue");
}

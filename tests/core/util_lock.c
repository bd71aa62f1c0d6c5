/*
 * util_lock.c — the queue lock (util.h) biased to its thread: an owner
 * that takes it with plain stores, other threads that revoke the bias for
 * one hold each (membarrier), the bias kept while others come rarely and
 * ended for good when another thread keeps taking the lock. A plain
 * counter and an occupancy count kept under the lock must come out exact:
 * two holders at once would lose increments or see each other.
 */
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core_test.h"

static struct util_lock lock = UTIL_LOCK_INIT;
static uint64_t counter; /* under lock, not atomic */
static int inside;       /* under lock: holders right now */
static atomic_int overlaps;
static atomic_bool stop;

static void critical(void)
{
    if (++inside != 1)
        atomic_fetch_add(&overlaps, 1);
    counter++;
    /* Held for a while (a launch's recording takes a few hundred ns):
     * a visitor that came in while the owner is inside would see it. */
    for (volatile int i = 0; i < 200; i++)
        ;
    if (inside != 1)
        atomic_fetch_add(&overlaps, 1);
    inside--;
}

static void nap_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* Takes the lock `n` times (every 4th a try: `got` counts the takes),
 * napping `nap` us between. */
struct taker {
    long n, nap, got;
};

static void *take(void *arg)
{
    struct taker *t = arg;
    for (long i = 0; i < t->n; i++) {
        if (i % 4 == 3) {
            if (!util_lock_try(&lock))
                continue;
        } else {
            util_lock(&lock);
        }
        critical();
        util_unlock(&lock);
        t->got++;
        if (t->nap)
            nap_us(t->nap);
    }
    return NULL;
}

static atomic_int visiting = 2;

static void *visit(void *arg)
{
    take(arg);
    atomic_fetch_sub(&visiting, 1);
    return NULL;
}

/* The owner takes the lock back to back while two other threads take it
 * now and then: the bias survives and nothing overlaps. */
static void check_owner_and_visitors(void)
{
    counter = 0;
    /* Visitors at most every 0.2 and 2 ms: under the rate that ends the
     * bias however the threads are scheduled (a sleep never ends early). */
    struct taker own = {1000, 0, 0}, v1 = {1000, 200, 0}, v2 = {100, 2000, 0};
    /* Another thread takes it once (as the one creating a queue would),
     * then this one 16 times in a row: the bias is this thread's. */
    struct taker once = {1, 0, 0};
    pthread_t c;
    pthread_create(&c, NULL, take, &once);
    pthread_join(c, NULL);
    for (int i = 0; i < 15; i++) {
        util_lock(&lock);
        util_unlock(&lock);
    }
    EXPECT(atomic_load(&lock.owner) == 0, "biased after 15 takes");
    util_lock(&lock);
    util_unlock(&lock);
    EXPECT(atomic_load(&lock.owner) == util_thread_self(), "biased to the taker of 16 in a row");
    pthread_t a, b;
    pthread_create(&a, NULL, visit, &v1);
    pthread_create(&b, NULL, visit, &v2);
    while (atomic_load(&visiting)) { /* the owner keeps at it meanwhile */
        take(&own);
    }
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    EXPECT(atomic_load(&overlaps) == 0, "%d overlapping holds", atomic_load(&overlaps));
    EXPECT(counter == (uint64_t)(once.got + own.got + v1.got + v2.got), "counter %llu, takes %ld",
          (unsigned long long)counter, once.got + own.got + v1.got + v2.got);
    EXPECT(v1.got > 0 && v2.got > 0, "visitors got the lock %ld and %ld times", v1.got, v2.got);
    EXPECT(atomic_load(&lock.owner) == util_thread_self(),
          "the bias survives rare visitors (owner %#lx)", (unsigned long)atomic_load(&lock.owner));
}

/* Now two threads take turns as often as the owner: the bias ends, the
 * lock goes on exact. */
static void *alternate(void *arg)
{
    struct taker *t = arg;
    while (!atomic_load(&stop))
        take(t);
    return NULL;
}

static void check_shared_end(void)
{
    counter = 0;
    struct taker own = {200000, 0, 0}, other = {1000, 0, 0};
    pthread_t a;
    pthread_create(&a, NULL, alternate, &other);
    take(&own);
    /* A loaded machine may start the other thread late: the owner goes
     * on until the bias ends, for 5 s at most. */
    for (uint64_t t0 = util_now_ns();
         atomic_load(&lock.owner) != UTIL_LOCK_SHARED && util_now_ns() - t0 < 5000000000ull;)
        take(&own);
    atomic_store(&stop, true);
    pthread_join(a, NULL);
    EXPECT(atomic_load(&overlaps) == 0, "%d overlapping holds", atomic_load(&overlaps));
    EXPECT(counter == (uint64_t)(own.got + other.got), "counter %llu, takes %ld",
          (unsigned long long)counter, own.got + other.got);
    EXPECT(atomic_load(&lock.owner) == UTIL_LOCK_SHARED, "the bias ended (owner %#lx)",
          (unsigned long)atomic_load(&lock.owner));
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
    /* The bias rests on a barrier ThreadSanitizer cannot see: the build
     * never biases a lock, and this test has nothing to look at. */
    const bool tsan = true;
#else
    const bool tsan = false;
#endif
    if (tsan)
        return 77;
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0) {
        printf("util_lock: no membarrier here: locks are never biased\n");
        return 77;
    }
    util_lock_bias = true;
    check_owner_and_visitors();
    check_shared_end();
    return core_test_done("util_lock");
}

/* util_lock's slow paths (util.h): spin, then sleep on a futex; the
 * revocation of a biased lock. */
#include "util/util.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

bool util_lock_strict;
bool util_lock_bias;

#define SPINS 128
#define SLEEP_FIRST_NS 20000ull
#define SLEEP_MAX_NS 1000000ull

/* True when the sleep ran out (rather than a wake or a changed word). */
static bool futex_wait(_Atomic uint32_t *word, uint32_t val, uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    return syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0) != 0 &&
           errno == ETIMEDOUT;
}

void util_lock_slow(struct util_lock *l)
{
    for (int i = 0; i < SPINS; i++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (__atomic_load_n((uint32_t *)&l->word, __ATOMIC_RELAXED) == 0 && util_lock_word_try(l))
            return;
    }
    __atomic_fetch_add((uint32_t *)&l->waiters, 1, __ATOMIC_SEQ_CST);
    uint64_t ns = SLEEP_FIRST_NS;
    /* A sleep that ran out doubles the next one (a long hold, or a missed
     * wake); a wake starts over from the shortest. */
    while (!util_lock_word_try(l)) {
        if (!futex_wait(&l->word, 1, ns))
            ns = SLEEP_FIRST_NS;
        else if (ns < SLEEP_MAX_NS)
            ns *= 2;
    }
    __atomic_fetch_sub((uint32_t *)&l->waiters, 1, __ATOMIC_RELAXED);
}

void util_lock_wake(struct util_lock *l)
{
    syscall(SYS_futex, (uint32_t *)&l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void util_barrier_by_mprotect(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static void *page;
    pthread_mutex_lock(&lock);
    if (!page) {
        page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED)
            page = NULL;
    }
    if (page) {
        *(volatile char *)page = 1; /* mapped in this core's TLB */
        mprotect(page, 4096, PROT_READ);
        mprotect(page, 4096, PROT_READ | PROT_WRITE);
    }
    pthread_mutex_unlock(&lock);
}

void util_barrier_all(void)
{
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
        util_barrier_by_mprotect();
}

/* Acquisitions in a row by one thread that bias the lock to it. */
#define BIAS_STREAK 16u
/* More revocations than this within a window end the bias. */
#define BIAS_MAX_REVOKES 64u
#define BIAS_WINDOW_NS 10000000ull

bool util_lock_other(struct util_lock *l, bool try)
{
    if (!util_lock_word_try(l)) {
        if (try)
            return false;
        util_lock_slow(l);
    }
    const uintptr_t self = util_thread_self();
    const uintptr_t own = __atomic_load_n((uintptr_t *)&l->owner, __ATOMIC_RELAXED);
    if (own == self || own == UTIL_LOCK_SHARED)
        return true;
    if (own == 0) {
        /* A thread that takes it BIAS_STREAK times in a row gets the bias,
         * from its next acquisition. */
        l->streak = l->last == self ? l->streak + 1 : 1;
        l->last = self;
        if (l->streak >= BIAS_STREAK && __atomic_load_n(&util_lock_bias, __ATOMIC_RELAXED) &&
            !__atomic_load_n(&util_lock_strict, __ATOMIC_RELAXED))
            __atomic_store_n((uintptr_t *)&l->owner, self, __ATOMIC_RELAXED);
        return true;
    }
    /* Biased to another thread: keep it out, then wait for it to leave. */
    __atomic_store_n((uint32_t *)&l->revoke, 1, __ATOMIC_RELAXED);
    util_barrier_all();
    uint64_t ns = SLEEP_FIRST_NS;
    for (int i = 0; __atomic_load_n((uint32_t *)&l->busy, __ATOMIC_ACQUIRE); i++) {
        if (try) {
            util_unlock_other(l);
            return false;
        }
        if (i < SPINS) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            continue;
        }
        /* The owner wakes nobody: a bounded sleep, then look again. */
        futex_wait(&l->busy, 1, ns);
        if (ns < SLEEP_MAX_NS)
            ns *= 2;
    }
    /* The owner is out and stays out until revoke is cleared. */
    const uint64_t now = util_now_ns();
    if (now - l->window > BIAS_WINDOW_NS) {
        l->window = now;
        l->revokes = 0;
    }
    if (++l->revokes > BIAS_MAX_REVOKES)
        __atomic_store_n((uintptr_t *)&l->owner, UTIL_LOCK_SHARED, __ATOMIC_RELAXED);
    return true;
}

void util_unlock_other(struct util_lock *l)
{
    /* Set only by a holder of word: this thread, if anyone. */
    if (__atomic_load_n((uint32_t *)&l->revoke, __ATOMIC_RELAXED))
        __atomic_store_n((uint32_t *)&l->revoke, 0, __ATOMIC_RELEASE);
    __atomic_store_n((uint32_t *)&l->word, 0, __ATOMIC_RELEASE);
    if (__atomic_load_n((uint32_t *)&l->waiters, __ATOMIC_RELAXED))
        util_lock_wake(l);
}

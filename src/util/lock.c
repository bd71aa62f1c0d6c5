/* util_lock's slow paths (util.h): spin, then sleep on a futex. */
#include "util/util.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

bool util_lock_strict;

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
        if (__atomic_load_n((uint32_t *)&l->word, __ATOMIC_RELAXED) == 0 && util_lock_try(l))
            return;
    }
    __atomic_fetch_add((uint32_t *)&l->waiters, 1, __ATOMIC_SEQ_CST);
    uint64_t ns = SLEEP_FIRST_NS;
    /* A sleep that ran out doubles the next one (a long hold, or a missed
     * wake); a wake starts over from the shortest. */
    while (!util_lock_try(l)) {
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

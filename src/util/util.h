/*
 * util.h — logging, environment options and small helpers shared by every
 * layer, and the words of a build-options string (shared with hcqcl-cc).
 * Nothing here knows GPUs.
 */
#ifndef HCQCL_UTIL_UTIL_H
#define HCQCL_UTIL_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Log categories, enabled with HCQCL_LOG=api,core,nv,nvdrv,emu,cubin (or
 * "all"). Errors (UTIL_LOG_ERR) always print. Output goes to stderr. */
enum util_log_cat {
    UTIL_LOG_ERR = 1u << 0,
    UTIL_LOG_API = 1u << 1,
    UTIL_LOG_CORE = 1u << 2,
    UTIL_LOG_NV = 1u << 3,
    UTIL_LOG_NVDRV = 1u << 4,
    UTIL_LOG_EMU = 1u << 5,
    UTIL_LOG_CUBIN = 1u << 6,
};

/* Build options (options.c): the words of s, quotes and backslashes
 * taken as a shell takes them, NULL-terminated, *count of them; NULL for a
 * quote left open (or no memory). util_options_free gives them back. */
char **util_options_split(const char *s, size_t *count);
void util_options_free(char **v, size_t count);
/* Whether value is one NVIDIA's option name (-cl-nv-maxrregcount: 1 to
 * 9999; -cl-nv-opt-level: 0 to 3; -cl-nv-arch: any) may take. */
bool util_nv_option_value_ok(const char *name, const char *value);

bool util_log_enabled(enum util_log_cat cat);
void util_log(enum util_log_cat cat, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Used by HCQCL_CHECK: "api: <func>: <cond> failed -> <err>: <message>". */
void util_log_check(const char *func, const char *cond, const char *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define UTIL_LOG(cat, ...)                                                                \
    do {                                                                                  \
        if (util_log_enabled(cat))                                                        \
            util_log(cat, __VA_ARGS__);                                                   \
    } while (0)

/* Environment options: one X-macro list, read once.
 *   X(field, "NAME", "default", "help") */
#define UTIL_ENV_OPTIONS(X)                                                               \
    X(log, "HCQCL_LOG", "", "log categories: api,core,nv,nvdrv,emu,cubin,all")            \
    X(device, "HCQCL_DEVICE", "auto", "auto | nv | emu")                                  \
    X(wait, "HCQCL_WAIT", "auto", "spin | block | auto")                                  \
    X(irq, "HCQCL_IRQ", "on", "on | off: sleeping waits wake on the GPU's non-stall interrupts") \
    X(pushbuf, "HCQCL_PUSHBUF", "device", "device | host: memory of pushbuffers and QMDs")    \
    X(launch_chain, "HCQCL_LAUNCH_CHAIN", "on", "on | off: launches recorded back to back run as a chain of dependent QMDs") \
    X(waker, "HCQCL_WAKER", "switch", "switch | poll | off: a copy-engine channel raises the interrupt a sleeping wait for a kernel's end needs, its acquire polling or yielding its runlist") \
    X(kernel_times, "HCQCL_KERNEL_TIMES", "on", "on | off: a launch seen before (same kernel, sizes, arguments) is waited for by its expected length, a sleep then a short spin") \
    X(acquire, "HCQCL_ACQUIRE", "switch", "switch | poll: a blocked GPU-side wait yields its runlist or polls") \
    X(compute_group, "HCQCL_COMPUTE_GROUP", "shared", "shared | own: compute queues of a GPU share one channel group or each have their own") \
    X(emu_gpus, "HCQCL_EMU_GPUS", "1", "number of emulated GPUs")                         \
    X(emu_kernels, "HCQCL_EMU_KERNELS", "", "':'-separated host kernel libraries")         \
    X(emu_unknown, "HCQCL_EMU_UNKNOWN_KERNELS", "fault", "fault | skip: a launch of code no host kernel matches is a channel error or does nothing") \
    X(emu_overlap, "HCQCL_EMU_OVERLAP", "on", "on | off: an emulated grid launched behind another with no wait between runs first") \
    X(emu_group_shares, "HCQCL_EMU_GROUP_SHARES", "64", "context shares an emulated channel group hands out in its life") \
    X(emu_vram, "HCQCL_EMU_VRAM", "", "emulated GPU memory in bytes (min(RAM/4, 16 GiB))") \
    X(visible_devices, "HCQCL_VISIBLE_DEVICES", "", "comma list of GPU indices or UUIDs") \
    X(cache_dir, "HCQCL_CACHE_DIR", "", "cubin cache directory for source programs")      \
    X(cache_max, "HCQCL_CACHE_MAXSIZE", "1073741824", "bytes of programs the cache keeps (least recently used go first; 0: no limit)") \
    X(cc, "HCQCL_CC", "", "path of hcqcl-cc for builds from source")                      \
    X(ptxas, "HCQCL_PTXAS", "", "path of ptxas for PTX binaries")                    \
    X(staging_threads, "HCQCL_STAGING_THREADS", "", "threads per pageable copy (min(8, cores/2))") \
    X(host_pages, "HCQCL_HOST_PAGES", "huge", "huge | small | driver: pages of pinned host memory from 2 MiB") \
    X(images, "HCQCL_IMAGES", "1", "0: no image support (images and samplers are software images)")

struct util_env {
#define UTIL_ENV_FIELD(field, name, def, help) const char *field;
    UTIL_ENV_OPTIONS(UTIL_ENV_FIELD)
#undef UTIL_ENV_FIELD
};
/* Read once (thread-safe); strings live for the process. */
const struct util_env *util_env(void);

/* Starts fn(arg) on a detached thread with every signal blocked (the
 * application's handlers run on its own threads): 0 or pthread_create's
 * error. */
int util_thread_detached(void *(*fn)(void *), void *arg);

/* Monotonic host clock in ns (CLOCK_MONOTONIC_RAW). */
uint64_t util_now_ns(void);

static inline uint64_t util_align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
static inline bool util_is_pow2(uint64_t v) { return v && !(v & (v - 1)); }
#define UTIL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define UTIL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define UTIL_MAX(a, b) ((a) > (b) ? (a) : (b))

/* A lock whose release is one plain store, biased to the thread that
 * uses it.
 *
 * Queues are written into device memory through write-combined mappings.
 * Any locked instruction (a pthread mutex's release is an exchange, its
 * acquisition a compare-and-exchange) waits until the core's
 * write-combining buffers have drained to the bus, about 170-330 ns on
 * the H200's host after a launch's writes (bench/wc_cost); plain loads
 * and stores do not.
 *
 * Biased: the lock belongs to one thread (`owner`: once util_lock_bias is
 * set, the first to take it 16 times in a row, so not the thread that
 * only created the queue another one uses), which takes it with a plain store to
 * `busy` and a load of `revoke`, and releases it with a plain store: no
 * locked instruction at all while one thread enqueues. Any other thread
 * takes `word` (below), sets `revoke` and makes every running thread of
 * the process execute a full barrier (membarrier, util_barrier_all):
 * afterwards either the owner's `busy` is visible, and it waits for the
 * owner to leave, or the owner's next look at `revoke` sees it and the
 * owner queues for `word` like anyone. Its release clears `revoke`. The
 * barrier costs microseconds, so a lock that other threads take often
 * (more than 64 times within 10 ms: the event notifier's visits are far
 * rarer) stops being biased for good.
 * Without util_lock_bias (no membarrier; ThreadSanitizer, which cannot
 * see such a barrier) no lock is ever biased.
 *
 * `word`: taken by a compare-and-exchange, released by a plain store; a
 * thread that cannot take it spins briefly, then sleeps on a futex. The
 * releasing store may still sit in the store buffer when the releaser
 * reads `waiters` (x86 lets a load pass an older store), so a waiter that
 * went to sleep in that instant is not woken: its sleeps are bounded (20
 * us, doubling while they run out, to 1 ms; from 20 us again after a wake)
 * and it looks again. A missed wake costs that waiter one such delay,
 * never a hang; a lock held for long (a wait for ring space) is polled up
 * to 1000 times a second by each waiter. Not recursive. */
struct util_lock {
    _Atomic uint32_t word;    /* 0 free, 1 held (by anyone but a biased owner) */
    _Atomic uint32_t waiters; /* threads asleep or about to sleep on word */
    _Atomic uintptr_t owner;  /* 0: none yet; UTIL_LOCK_SHARED: never biased */
    _Atomic uint32_t busy;    /* the owner holds the lock (its plain stores) */
    _Atomic uint32_t revoke;  /* another thread holds or takes it */
    uint32_t revokes;         /* revocations since window (by holders of word) */
    uint64_t window;          /* host ns */
    uintptr_t last;           /* unbiased: the last thread to take word, */
    uint32_t streak;          /* and how many times in a row */
};
#define UTIL_LOCK_INIT {0, 0, 0, 0, 0, 0, 0, 0, 0}
#define UTIL_LOCK_SHARED ((uintptr_t)1)

/* Set once, before queues exist, when a layer cannot make the writes
 * other threads left in write-combining buffers visible on demand: every
 * release then fences first (a full barrier, as a mutex's exchange). */
extern bool util_lock_strict;
/* Set once when util_barrier_all works (membarrier registered): locks
 * taken from then on may be biased. */
extern bool util_lock_bias;

/* A full memory barrier on every thread of the process that is running
 * (membarrier, private expedited; a page-protection change's TLB
 * shootdown should it fail). */
void util_barrier_all(void);
/* The fallback alone: changing a page's protection makes the kernel shoot
 * down its translation on every core that ran the process, by interrupt,
 * which is a full barrier there (and drains their write-combining
 * buffers). */
void util_barrier_by_mprotect(void);

void util_lock_slow(struct util_lock *l);
void util_lock_wake(struct util_lock *l);
bool util_lock_other(struct util_lock *l, bool try);
void util_unlock_other(struct util_lock *l);

/* This thread's identity, as a number no other live thread has: on
 * x86-64 the thread control block's pointer to itself, one load (a call
 * of pthread_self goes through the PLT, and a _Thread_local in a shared
 * library is a call to __tls_get_addr). */
static inline uintptr_t util_thread_self(void)
{
#if defined(__x86_64__)
    uintptr_t tcb;
    __asm__("mov %%fs:0, %0" : "=r"(tcb));
    return tcb;
#else
    return (uintptr_t)pthread_self();
#endif
}

static inline bool util_lock_word_try(struct util_lock *l)
{
    uint32_t free_ = 0;
    return __atomic_compare_exchange_n((uint32_t *)&l->word, &free_, 1, false, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* The owner's way in: announce, then look for a revoker. The compiler
 * keeps the store before the load (signal fence); the processor may not,
 * which is what a revoker's util_barrier_all settles. */
static inline bool util_lock_owner_try(struct util_lock *l)
{
    __atomic_store_n((uint32_t *)&l->busy, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    /* The owner again too: a revoker that ended the bias (owner =
     * UTIL_LOCK_SHARED) stored that before it cleared revoke. */
    if (__builtin_expect(!__atomic_load_n((uint32_t *)&l->revoke, __ATOMIC_ACQUIRE), 1) &&
        __builtin_expect(__atomic_load_n((uintptr_t *)&l->owner, __ATOMIC_RELAXED) ==
                             util_thread_self(),
                         1))
        return true;
    __atomic_store_n((uint32_t *)&l->busy, 0, __ATOMIC_RELEASE);
    return false;
}

static inline bool util_lock_try(struct util_lock *l)
{
    if (__atomic_load_n((uintptr_t *)&l->owner, __ATOMIC_RELAXED) == util_thread_self() &&
        util_lock_owner_try(l))
        return true;
    return util_lock_other(l, true);
}
static inline void util_lock(struct util_lock *l)
{
    if (__atomic_load_n((uintptr_t *)&l->owner, __ATOMIC_RELAXED) == util_thread_self() &&
        util_lock_owner_try(l))
        return;
    util_lock_other(l, false);
}
static inline void util_unlock(struct util_lock *l)
{
    if (__builtin_expect(__atomic_load_n(&util_lock_strict, __ATOMIC_RELAXED), 0))
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* Only the owner ever sets busy, and it is set while the owner holds
     * the lock by it. */
    if (__atomic_load_n((uint32_t *)&l->busy, __ATOMIC_RELAXED) &&
        __atomic_load_n((uintptr_t *)&l->owner, __ATOMIC_RELAXED) == util_thread_self()) {
        __atomic_store_n((uint32_t *)&l->busy, 0, __ATOMIC_RELEASE);
        return;
    }
    util_unlock_other(l);
}

#endif

/*
 * staging_copy.c — the CPU side of pageable transfers: memcpy between the
 * application's pageable memory and pinned staging buffers, split across
 * a small pool of worker threads (interface in obj.h, "Pinned staging").
 *
 * Why threads: one core copies 8-12 GB/s, a copy engine moves 55 GB/s
 * over PCIe gen5. A pipelined transfer is as fast as its slower half, so
 * the memcpy has to be spread over several cores to keep the engine fed.
 *
 * How: a copy is cut into pieces of whole cache lines; the caller queues
 * it as a job, wakes the workers and copies pieces itself until none is
 * left unclaimed, then waits for the pieces the workers took. The caller
 * always makes progress on its own job, so a copy completes even when no
 * worker runs (none started, all busy with other jobs, or shut down).
 * Pieces are claimed and completed under the pool lock: a worker touches
 * a job only between claiming a piece and counting it done, so the
 * caller may return (its job lives on its stack) once every piece counts.
 *
 * Idle workers spin for a short while after their last piece, because a
 * pipelined transfer hands out its next chunk within tens of
 * microseconds, then sleep on a condition variable: nothing spins while
 * no transfer is running.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define STAGING_HAVE_STREAM 1
#else
#define STAGING_HAVE_STREAM 0
#endif

#include "api/obj.h"

enum {
    COPY_MAX_THREADS = 64,      /* workers + caller, whatever the option says */
    COPY_DEFAULT_MAX = 8,       /* default: min(8, cores / 2) */
    COPY_LINE = 64,             /* pieces are whole cache lines */
    COPY_PIECE_MIN = 64u << 10, /* below this per thread, waking costs more */
    COPY_PIECES_PER_THREAD = 4, /* slack for a thread that is late */
};

/* How long a worker keeps polling for the next job after its last piece,
 * and the caller for its workers' pieces, before sleeping. */
static const uint64_t COPY_WORKER_SPIN_NS = 200000;
static const uint64_t COPY_CALLER_SPIN_NS = 50000;

struct copy_job {
    uint8_t *dst;
    const uint8_t *src;
    size_t n;
    size_t piece;              /* bytes per piece, the last may be shorter */
    unsigned pieces;
    unsigned next;             /* next unclaimed piece (pool lock) */
    unsigned done;             /* pieces copied (pool lock; read atomically) */
    bool stream;               /* non-temporal stores */
    struct copy_job *link;     /* pool's list of jobs with unclaimed pieces */
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work;       /* a job was queued, or shutdown */
    pthread_cond_t done;       /* some job's last piece completed */
    struct copy_job *head;     /* jobs with unclaimed pieces, FIFO */
    struct copy_job *tail;
    unsigned sleeping;         /* workers waiting on work */
    unsigned waiting;          /* callers waiting on done */
    bool shutdown;
    bool started;              /* workers were created (or tried) */
    unsigned nworkers;
    pthread_t workers[COPY_MAX_THREADS];
} pool = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .work = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};

static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static unsigned threads_total = 1; /* participants of a split copy */

static void threads_read(void)
{
    /* The cores this process may run on (taskset, cgroup cpusets), not
     * every core of the machine. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        cores = CPU_COUNT(&set);
    unsigned n = cores >= 2 ? (unsigned)(cores / 2) : 1;
    n = UTIL_MIN(n, (unsigned)COPY_DEFAULT_MAX);
    const char *opt = util_env()->staging_threads;
    if (opt && *opt) {
        char *end;
        unsigned long v = strtoul(opt, &end, 10);
        if (*end == '\0' && v >= 1)
            n = (unsigned)UTIL_MIN(v, (unsigned long)COPY_MAX_THREADS);
        else
            UTIL_LOG(UTIL_LOG_API, "api: HCQCL_STAGING_THREADS=%s ignored", opt);
    }
    threads_total = n;
}

unsigned hcqcl_staging_copy_threads(void)
{
    pthread_once(&threads_once, threads_read);
    return threads_total;
}

/* ---- Copying one piece ----------------------------------------------- */

#if STAGING_HAVE_STREAM
/* memcpy with non-temporal stores: the destination bypasses the caches,
 * so a staging chunk the copy engine reads next doesn't evict the source
 * and the stores need no read-for-ownership. Ends with sfence: streaming
 * stores are weakly ordered, and whoever sees this piece counted done
 * (then submits the chunk to the GPU) must see its bytes. */
static void copy_stream(uint8_t *dst, const uint8_t *src, size_t n)
{
    size_t head = (size_t)(-(uintptr_t)dst & 15);
    if (head > n)
        head = n;
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
    for (; n >= 64; n -= 64, dst += 64, src += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)src);
        __m128i b = _mm_loadu_si128((const __m128i *)(src + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + 48));
        _mm_stream_si128((__m128i *)dst, a);
        _mm_stream_si128((__m128i *)(dst + 16), b);
        _mm_stream_si128((__m128i *)(dst + 32), c);
        _mm_stream_si128((__m128i *)(dst + 48), d);
    }
    memcpy(dst, src, n);
    _mm_sfence();
}
#endif

static void copy_range(uint8_t *dst, const uint8_t *src, size_t n, bool stream)
{
#if STAGING_HAVE_STREAM
    if (stream) {
        copy_stream(dst, src, n);
        return;
    }
#else
    (void)stream;
#endif
    memcpy(dst, src, n);
}

static void copy_piece(const struct copy_job *job, unsigned i)
{
    size_t off = (size_t)i * job->piece;
    size_t len = UTIL_MIN(job->piece, job->n - off);
    copy_range(job->dst + off, job->src + off, len, job->stream);
}

/* ---- The pool ------------------------------------------------------- */

/* Claim the next piece of the oldest job; called with pool.lock held.
 * A job leaves the list as its last piece is claimed. */
static struct copy_job *claim_locked(unsigned *piece)
{
    struct copy_job *job = pool.head;
    if (!job)
        return NULL;
    *piece = job->next++;
    if (job->next == job->pieces) {
        __atomic_store_n(&pool.head, job->link, __ATOMIC_RELAXED);
        if (!pool.head)
            pool.tail = NULL;
    }
    return job;
}

/* Count a claimed piece done; the last touch of job by a worker. Called
 * with pool.lock held. */
static void complete_locked(struct copy_job *job)
{
    unsigned done = job->done + 1;
    bool last = done == job->pieces;
    /* From this store on, the job's owner may return: read job first. */
    __atomic_store_n(&job->done, done, __ATOMIC_RELEASE);
    if (last && pool.waiting)
        pthread_cond_broadcast(&pool.done);
}

/* Poll for queued work without the lock for up to COPY_WORKER_SPIN_NS.
 * True when some appeared (or shutdown). */
static bool worker_spin(void)
{
    uint64_t t0 = util_now_ns();
    for (unsigned k = 0;; k++) {
        if (__atomic_load_n(&pool.head, __ATOMIC_RELAXED) ||
            __atomic_load_n(&pool.shutdown, __ATOMIC_RELAXED))
            return true;
#if STAGING_HAVE_STREAM
        _mm_pause();
#endif
        if ((k & 63) == 63 && util_now_ns() - t0 >= COPY_WORKER_SPIN_NS)
            return false;
    }
}

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pool.lock);
    while (!pool.shutdown) {
        unsigned i;
        struct copy_job *job = claim_locked(&i);
        if (!job) {
            pthread_mutex_unlock(&pool.lock);
            bool more = worker_spin();
            pthread_mutex_lock(&pool.lock);
            if (!more && !pool.head && !pool.shutdown) {
                pool.sleeping++;
                pthread_cond_wait(&pool.work, &pool.lock);
                pool.sleeping--;
            }
            continue;
        }
        pthread_mutex_unlock(&pool.lock);
        copy_piece(job, i);
        pthread_mutex_lock(&pool.lock);
        complete_locked(job);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* A forked child has none of the parent's workers: start afresh. The
 * prepare handler holds the lock across fork so the child's copy of the
 * pool is consistent; the child's only thread is the one that took it.
 * The condition variables may record the parent's waiters: new ones. */
static void fork_prepare(void) { pthread_mutex_lock(&pool.lock); }
static void fork_parent(void) { pthread_mutex_unlock(&pool.lock); }
static void fork_child(void)
{
    pthread_mutex_unlock(&pool.lock);
    pthread_cond_init(&pool.work, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.head = pool.tail = NULL;
    pool.sleeping = pool.waiting = 0;
    pool.nworkers = 0;
    pool.started = false;
    pool.shutdown = false;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void atfork_register(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

/* Create the workers once; called with pool.lock held. Fewer (or none)
 * when threads can't be created: copies then run on fewer threads. */
static void start_locked(void)
{
    if (pool.started || pool.shutdown)
        return;
    pool.started = true;
    unsigned want = hcqcl_staging_copy_threads() - 1;
    /* Workers take no signals: the application's handlers run on its own
     * threads, as they would without hcqcl. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (unsigned k = 0; k < want; k++) {
        int rc = pthread_create(&pool.workers[pool.nworkers], NULL, worker_main, NULL);
        if (rc) {
            UTIL_LOG(UTIL_LOG_API, "api: staging copy worker %u: error %d", k, rc);
            break;
        }
        pool.nworkers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* At unload (or exit) the workers finish the piece in hand and leave;
 * copies still running complete on their callers' threads. */
__attribute__((destructor)) static void staging_copy_fini(void)
{
    pthread_mutex_lock(&pool.lock);
    __atomic_store_n(&pool.shutdown, true, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&pool.work);
    unsigned n = pool.nworkers;
    pool.nworkers = 0;
    pthread_mutex_unlock(&pool.lock);
    for (unsigned k = 0; k < n; k++)
        pthread_join(pool.workers[k], NULL);
}

/* ---- Entry point ------------------------------------------------------ */

static bool stream_default(size_t n)
{
    /* bench/host_copy (docs/performance.md): streaming stores copy 1.8x
     * faster into an application buffer and as fast into staging chunks
     * that sit in cache; below a MiB the data may well stay cached. */
    return STAGING_HAVE_STREAM && n >= HCQCL_STAGING_STREAM_MIN;
}

void hcqcl_staging_copy_ex(void *dst, const void *src, size_t n, unsigned threads,
                           enum hcqcl_copy_store store)
{
    bool stream = store == HCQCL_COPY_STREAM ||
                  (store == HCQCL_COPY_AUTO && stream_default(n));
    if (threads == 0)
        threads = hcqcl_staging_copy_threads();
    /* Pieces of whole lines, at least COPY_PIECE_MIN, a few per thread. */
    size_t piece = util_align_up(n / ((size_t)threads * COPY_PIECES_PER_THREAD) + 1, COPY_LINE);
    piece = UTIL_MAX(piece, (size_t)COPY_PIECE_MIN);
    if (threads <= 1 || n <= piece) {
        copy_range(dst, src, n, stream);
        return;
    }
    struct copy_job job = {
        .dst = dst,
        .src = src,
        .n = n,
        .piece = piece,
        .pieces = (unsigned)((n - 1) / piece + 1),
        .stream = stream,
    };
    pthread_once(&atfork_once, atfork_register);
    pthread_mutex_lock(&pool.lock);
    start_locked();
    if (pool.tail)
        pool.tail->link = &job;
    else
        __atomic_store_n(&pool.head, &job, __ATOMIC_RELAXED);
    pool.tail = &job;
    /* Wake only as many sleepers as there are pieces for them: a small
     * copy should not stir every worker. Spinning ones see the job anyway. */
    for (unsigned k = 0; k < pool.sleeping && k + 1 < job.pieces; k++)
        pthread_cond_signal(&pool.work);
    /* Copy pieces of this job (older jobs are the workers' and their
     * callers' business) until all are claimed. */
    while (job.next < job.pieces) {
        unsigned i = job.next++;
        if (job.next == job.pieces) {
            /* Unlink: it may sit behind other jobs in the list. */
            struct copy_job **pp = &pool.head, *prev = NULL;
            while (*pp != &job) {
                prev = *pp;
                pp = &(*pp)->link;
            }
            __atomic_store_n(pp, job.link, __ATOMIC_RELAXED);
            if (pool.tail == &job)
                pool.tail = prev;
        }
        pthread_mutex_unlock(&pool.lock);
        copy_piece(&job, i);
        pthread_mutex_lock(&pool.lock);
        complete_locked(&job);
    }
    pthread_mutex_unlock(&pool.lock);
    /* The workers' pieces are under way: poll briefly, then sleep. */
    uint64_t t0 = util_now_ns();
    for (unsigned k = 0; __atomic_load_n(&job.done, __ATOMIC_ACQUIRE) < job.pieces; k++) {
#if STAGING_HAVE_STREAM
        _mm_pause();
#endif
        if ((k & 63) == 63 && util_now_ns() - t0 >= COPY_CALLER_SPIN_NS)
            break;
    }
    pthread_mutex_lock(&pool.lock);
    while (job.done < job.pieces) {
        pool.waiting++;
        pthread_cond_wait(&pool.done, &pool.lock);
        pool.waiting--;
    }
    pthread_mutex_unlock(&pool.lock);
}

void hcqcl_staging_copy(void *dst, const void *src, size_t n)
{
    hcqcl_staging_copy_ex(dst, src, n, 0, HCQCL_COPY_AUTO);
}

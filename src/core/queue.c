/* Queues: one GPFIFO channel each (its own channel group and context
 * share), a ring + USERD in CPU-mapped vidmem, pushbuffer and scratch
 * arenas recycled by timeline value, and the verbs of hcq.h except exec.
 *
 * Recycling: every submission ends with a release of ++last on the
 * queue's timeline (added by hcq_q_submit when the caller's work does not
 * already end with one), so each submission's pushbuffer and scratch
 * bytes become reusable exactly when the timeline reaches the value
 * recorded for it. Nothing is overwritten that the GPU may still read. */
#include "core/priv.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "nv/nv.h"

/* Waiting for the GPU to free ring/arena space longer than this (with no
 * progress) fails the verb with -ENOMEM. */
#define SPACE_TIMEOUT_NS 30000000000ull

static inline bool retire_reached(const struct hcq_queue *q, uint64_t retire)
{
    return hcq_signal_value(q->timeline) >= retire;
}

/* Wait until a submission with this retire[] entry is retired. */
static int wait_retired(struct hcq_queue *q, uint64_t retire)
{
    int r = hcq_signal_wait(q->timeline, retire, SPACE_TIMEOUT_NS);
    if (r == -ETIMEDOUT) {
        CORE_ERR("core: queue 0x%x: GPU made no progress for %llu s (timeline %llu < %llu)",
                 q->h_channel, SPACE_TIMEOUT_NS / 1000000000ull,
                 (unsigned long long)hcq_signal_value(q->timeline),
                 (unsigned long long)retire);
        return -ENOMEM;
    }
    return r;
}

/* ------------------------------------------------------------------ */
/* Arenas                                                               */
/* ------------------------------------------------------------------ */

/* Pushbuffers and QMDs are written by the CPU and read once by the GPU.
 * Device memory through the BAR1 mapping is the default: the CPU's
 * write-combined stores post at bus speed and the GPU fetches from its
 * own memory. Measured on the H200: launch + wait 4.5 us and 0.33 us of
 * CPU per launch, against 8.1 us and 0.47 us with pinned host memory,
 * where every fetch crosses PCIe. HCQCL_PUSHBUF=host selects the latter. */
static enum hcq_mem_kind arena_kind(void)
{
    return strcmp(util_env()->pushbuf, "host") == 0 ? HCQ_MEM_HOST : HCQ_MEM_DEVICE_MAPPED;
}

static int arena_init(struct hcq_queue *q, struct hcq_arena *a, uint32_t bytes)
{
    memset(a, 0, sizeof(*a));
    int r = hcq_mem_alloc_ex(q->dev, bytes, arena_kind(), HCQ_MEMF_LOW, &a->mem);
    if (r)
        return r;
    a->cpu = a->mem->cpu;
    a->va = a->mem->va;
    a->size = bytes;
    a->mask = util_is_pow2(bytes) ? bytes - 1 : 0;
    return 0;
}

static bool arena_has_marks(const struct hcq_arena *a) { return a->mtail != a->mhead; }

/* Free the oldest submitted region of a, waiting for the GPU if needed. */
static int arena_pop(struct hcq_queue *q, struct hcq_arena *a)
{
    unsigned i = a->mtail % HCQ_ARENA_MARKS;
    uint64_t retire = q->retire[a->marks[i].seq % HCQ_SUBMIT_HISTORY];
    int r = wait_retired(q, retire);
    if (r)
        return r;
    a->tail = a->marks[i].end;
    a->mtail++;
    return 0;
}

/* The submission q->seq closes: what it used of a ends at end. */
static void arena_mark(struct hcq_queue *q, struct hcq_arena *a, uint64_t end)
{
    if (a->mhead - a->mtail == HCQ_ARENA_MARKS)
        arena_pop(q, a); /* every mark is submitted: this only waits */
    a->marks[a->mhead % HCQ_ARENA_MARKS].end = end;
    a->marks[a->mhead % HCQ_ARENA_MARKS].seq = q->seq;
    a->mhead++;
}

static int submit(struct hcq_queue *q);

/* LINKED: decided to run, then made part of a launch chain another
 * queue's settle submitted (link_across): its own entries are dropped. */
enum { HCQ_HOLD_OPEN, HCQ_HOLD_RUN, HCQ_HOLD_SKIP, HCQ_HOLD_LINKED };

static inline bool holding(const struct hcq_queue *q) { return q->hold_first != NULL; }

static int close_chunk(struct hcq_queue *q, unsigned spare);
static int pending_room(struct hcq_queue *q, unsigned n);
static void pending_drop(struct hcq_queue *q, unsigned at, unsigned n);
static void update_get(struct hcq_queue *q);
static int ring_room(struct hcq_queue *q);

/* Make need bytes at offset aligned to align free in a, starting a new lap
 * when they would cross the end. Waits for the GPU; may submit the open
 * work early when allow_submit and it alone fills the arena. On success
 * a->head is where the bytes start (pad skipped). */
static int arena_room(struct hcq_queue *q, struct hcq_arena *a, uint64_t need, uint64_t align,
                      bool allow_submit, bool is_pb)
{
    if (need > a->size)
        return -ENOMEM;
    for (;;) {
        uint64_t off = hcq_arena_off(a, a->head);
        uint64_t pad = util_align_up(off, align) - off;
        if (off + pad + need > a->size)
            pad = a->size - off; /* next lap starts at offset 0 */
        if (a->head + pad + need - a->tail <= a->size) {
            /* An open chunk that ends right at the end of the last lap
             * (a release in the slack can fill it) ends there too. */
            const bool lap_end = is_pb && off == 0 && a->head != q->open_start;
            if ((pad && is_pb) || lap_end) {
                /* The open GP chunk ends here; the next one starts at 0. */
                if (close_chunk(q, 2))
                    return -ENOMEM;
                /* A release that ended the chunk still ends the work. */
                if (q->rel_pb_head == a->head)
                    q->rel_pb_head = a->head + pad;
                q->open_start = a->head + pad;
            }
            a->head += pad;
            return 0;
        }
        if (hcq_device_lost(q->dev))
            return -EIO;
        int r;
        if (arena_has_marks(a)) {
            r = arena_pop(q, a);
        } else if (allow_submit && (q->pb.head != q->open_start || q->npending || q->tail.cpu)) {
            /* Behind an open hold nothing may be submitted, so no room
             * comes back by waiting: only a decision submits some. */
            const uint64_t seq = q->seq;
            r = submit(q);
            if (r == 0 && holding(q) && q->seq == seq)
                r = -ENOMEM;
        } else {
            r = -ENOMEM;
        }
        if (r)
            return r;
    }
}

/* ------------------------------------------------------------------ */
/* Write-combined stores of several threads                             */
/* ------------------------------------------------------------------ */

/* The caller's lock may be released by a plain store (util_lock), which
 * does not wait for the write-combined stores made under it: a thread's
 * pushbuffer and scratch writes may still sit in its core's buffers when
 * another thread takes the lock. Nothing rewinds an arena, and memory is
 * reused only after the GPU ran what was in it, so such leftovers never
 * clash with another thread's writes; they matter only once a doorbell
 * makes the GPU read them. So:
 *  - a submission by a thread other than the queue's last writer first
 *    drains every core's buffers (membarrier: an interrupt on each core
 *    running the process), then its own store fence orders the rest
 *    before GPPut and the doorbell;
 *  - a queue written by a second thread is marked shared (and the first
 *    thread's leftovers drained once): from then on each commit that holds
 *    work back fences, as a mutex's release would, so writers hand over
 *    nothing and submissions need no barrier.
 * In steady state a queue one thread enqueues on pays no fence until it
 * submits. Only write-combined memory needs any of it (a GPU's BAR1
 * arenas); the bookkeeping runs everywhere, the barrier only there. */

/* How another thread's buffered writes are drained (set once at init,
 * changed only if membarrier later fails): */
enum wc_mode {
    WC_MEMBARRIER, /* membarrier, private expedited */
    WC_STRICT,     /* unavailable from the start: every release fences */
    WC_MPROTECT,   /* membarrier failed after queues existed: fences from
                    * then on, and a page-protection change each time */
};
static _Atomic int wc_mode;

static void wc_init_once(void)
{
    /* Registration makes MEMBARRIER_CMD_PRIVATE_EXPEDITED available (IPIs
     * to the cores running this process only). Without it every queue
     * lock release fences, as a mutex's would. */
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0) {
        __atomic_store_n(&util_lock_strict, true, __ATOMIC_SEQ_CST);
        atomic_store(&wc_mode, WC_STRICT);
        CORE_LOG("membarrier unavailable (%s): queue locks fence on release", strerror(errno));
        return;
    }
    /* The same barrier lets queue locks be biased to their thread (util.h);
     * ThreadSanitizer cannot see it, and would call the owner's accesses
     * races. */
#ifndef __SANITIZE_THREAD__
    __atomic_store_n(&util_lock_bias, true, __ATOMIC_SEQ_CST);
#endif
}

void hcq_wc_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, wc_init_once);
}

static void wc_drain_others(const struct hcq_queue *q)
{
    if (!q->wc)
        return;
    switch (atomic_load(&wc_mode)) {
    case WC_STRICT:
        return; /* every release fenced: nothing left in other cores */
    case WC_MEMBARRIER:
        if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
            return;
        CORE_ERR("core: membarrier failed (%s): queue locks fence on release from now on",
                 strerror(errno));
        __atomic_store_n(&util_lock_strict, true, __ATOMIC_SEQ_CST);
        atomic_store(&wc_mode, WC_MPROTECT);
        break;
    default:
        break;
    }
    util_barrier_by_mprotect(); /* the fallback: a TLB shootdown's interrupts */
}

/* After any submission a reservation made and before this thread writes. */
static inline void note_writer(struct hcq_queue *q)
{
    const uintptr_t me = util_thread_self();
    if (q->wc_writer == me)
        return;
    if (q->wc_writer) {
        wc_drain_others(q);
        q->wc_shared = true;
    }
    q->wc_writer = me;
}

/* ------------------------------------------------------------------ */
/* Pushbuffer                                                           */
/* ------------------------------------------------------------------ */

static int push_reserve(struct hcq_queue *q, uint32_t ndw, bool allow_submit)
{
    /* Nothing is recorded for a lost device: no GPU runs it, and a forked
     * child's pushbuffer and scratch are the parent's memory. */
    if (hcq_device_lost(q->dev))
        return -EIO;
    /* An early submit must not separate a scratch block from the methods
     * that use it: not between hcq_q_scratch and the next push. */
    if (q->scratch_unpushed)
        allow_submit = false;
    int r = arena_room(q, &q->pb, (uint64_t)(ndw + HCQ_RELEASE_SLACK_DW) * 4, 4, allow_submit, true);
    if (r == 0)
        note_writer(q); /* after arena_room, which may have submitted */
    return r;
}

int hcq_push_reserve(struct hcq_queue *q, uint32_t ndw) { return push_reserve(q, ndw, true); }

void hcq_push_incr(struct hcq_queue *q, uint32_t subc, uint32_t method, const uint32_t *data,
                   uint32_t n)
{
    if (q->tail.cpu)
        hcq_q_tail_close(q); /* a method after a launch ends its chain */
    volatile uint32_t *p = (volatile uint32_t *)(q->pb.cpu + hcq_arena_off(&q->pb, q->pb.head));
    q->scratch_unpushed = false;
    p[0] = nv_mthd_incr(subc, method, n);
    for (uint32_t i = 0; i < n; i++)
        p[1 + i] = data[i];
    q->pb.head += 4ull * (1 + n);
}

int hcq_q_scratch(struct hcq_queue *q, uint32_t size, uint32_t align, void **cpu, uint64_t *va)
{
    if (!size || !util_is_pow2(align) || align > 4096)
        return -EINVAL;
    /* Room for the launch's methods first, so that pushing them never has
     * to submit between this block and its use. */
    int r = push_reserve(q, 256, true);
    if (r)
        return r;
    /* Earlier blocks are already referenced by pushed methods, so an
     * early submit here is safe. */
    r = arena_room(q, &q->scratch, size, align, true, false);
    if (r)
        return r;
    note_writer(q);
    uint64_t off = hcq_arena_off(&q->scratch, q->scratch.head);
    *cpu = q->scratch.cpu + off;
    *va = q->scratch.va + off;
    q->scratch.head += size;
    q->scratch_unpushed = true;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Semaphores                                                           */
/* ------------------------------------------------------------------ */

static void push_host_sem(struct hcq_queue *q, uint64_t va, uint64_t payload, uint32_t exec)
{
    uint32_t d[5] = {(uint32_t)va, (uint32_t)(va >> 32), (uint32_t)payload,
                     (uint32_t)(payload >> 32), exec};
    hcq_push_incr(q, NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, d, 5);
}

/* Release value on s after all previous work (7 or 8 dwords).
 *
 * A non-stall interrupt follows only while some thread sleeps on them
 * (dev->irq_want): the driver takes every interrupt on one CPU, and on
 * the H200's host a process that ran there saw every round trip take
 * 31-35 us instead of 4.5 (pinned to that CPU, every time; on any other,
 * never). Spinning waits need none. A waiter that sleeps on a value not
 * yet recorded counts itself; one whose target no interrupt follows
 * (s->irq_hi below it) sleeps in steps, and one that a later release's
 * interrupt covers sleeps on interrupts with its usual timeout
 * (signal.c). */
static inline bool irq_wanted(const struct hcq_queue *q)
{
    return (q->waker || atomic_load_explicit(&q->dev->irq_want, memory_order_relaxed) != 0) &&
           atomic_load_explicit(&q->dev->irq_on, memory_order_relaxed);
}

static void push_release(struct hcq_queue *q, struct hcq_signal *s, uint64_t value)
{
    const uint64_t va = s->va;
    const bool irq = irq_wanted(q);
    hcq_raise_to(&s->rec_hi, value);
    if (irq)
        hcq_raise_to(&s->irq_hi, value);
    if (q->engine == HCQ_ENGINE_COPY && q->engine_class >= HOPPER_DMA_COPY_A) {
        /* The CE's own semaphore is ordered after its copies; bit 27 +
         * PAYLOAD_UPPER make it 64-bit on Hopper [H200]. Older copy
         * classes release 32 bits only: they take the host path below. */
        uint32_t d[4] = {(uint32_t)(va >> 32), (uint32_t)va, (uint32_t)value,
                         (uint32_t)(value >> 32)};
        hcq_push_incr(q, NV_SUBC_COPY, NVC8B5_SET_SEMAPHORE_A, d, 4);
        /* Then a non-stall interrupt, which wakes sleeping waiters (irq.c). */
        hcq_push_1(q, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA,
                   irq ? NV_LAUNCH_DMA_SEMAPHORE_64_TS_INTR : NV_LAUNCH_DMA_SEMAPHORE_64_TS);
    } else {
        /* Grids launched back to back on one channel may overlap [H200:
         * 20 copies of 132 blocks each "ran" at 8.8 TB/s between releases
         * folded into their QMDs]: the release comes after a wait for the
         * channel's last grid to end (hcq_q_after_grids, which leaves the
         * channel group's other channels running meanwhile), and its own
         * wait for idle (RELEASE_WFI, the subcontext's: on an H100 it did
         * not wait for a kernel of another queue) then finds the engine
         * idle. The non-stall interrupt follows only while threads sleep
         * on interrupts, and wakes them (irq.c). An H200 build that had
         * dropped it once left the first release on a fresh compute
         * channel unseen for 30 s (0d321cb); a wait that sees no progress
         * now rings the doorbell again (hcq_device_kick), and releases
         * without an interrupt have passed the whole suite on the H200
         * since 151214a. */
        hcq_q_after_grids(q);
        push_host_sem(q, va, value, NV_SEM_EXECUTE_RELEASE_64_TS);
        if (irq)
            hcq_push_1(q, NV_SUBC_HOST, NVC86F_NON_STALL_INTERRUPT, 0);
        q->grids_open = false;
    }
}

/* The work recorded so far ends with a release of timeline value v, from
 * the host (not a grid's) or not. */
static void ends_with_release(struct hcq_queue *q, uint64_t v, bool host)
{
    q->rel_value = v;
    q->rel_pb_head = q->pb.head;
    q->rel_host = host;
}

/* How a timeline release may come: always from the host, or folded into
 * the launch right before it. A QMD's release raises no interrupt: a
 * thread that sleeps on its value sleeps in steps (signal.c). Taking it
 * out to a host release with the interrupt would hold the channel group
 * until the grid ends (launch.c, "Launch chains"). */
enum rel_kind { REL_HOST, REL_FOLD };

/* h is the last hold, and the channel's last grid is its span's. */
static bool span_is_last(const struct hcq_queue *q, const struct hcq_hold *h)
{
    return h == q->hold_last && q->grid_va == h->span_va && q->grid_val == h->span_val;
}

/* Right after a hold's span that a launch ended, with nothing recorded
 * since: that launch's QMD, held and so not read by the GPU yet, releases
 * the command's timeline value v itself in place of its `grids` value, so
 * that what waits for v on another queue or the CPU sees it when the grid
 * ends. The span is the last hold (not submitted: settle takes decided
 * holds off the list before it submits them) and nothing lies after it.
 * Taken once: returns the QMD's CPU address, NULL when it cannot. */
static void *span_tail_take(struct hcq_queue *q, struct hcq_hold **out)
{
    void *cpu = q->span_tail.cpu;
    struct hcq_hold *h = q->span_tail.hold;
    q->span_tail.cpu = NULL;
    if (!cpu || !span_is_last(q, h) || q->pb.head != q->span_tail.pb_head ||
        q->scratch.head != q->span_tail.scratch_head)
        return NULL;
    *out = h;
    return cpu;
}

static void span_qmd_release(struct hcq_queue *q, void *cpu, struct hcq_hold *h, uint64_t v)
{
    nv_qmd_hot_release(q->tail.qmd, &q->dev->qmd_hot, q->timeline->va, v);
    hcq_wc_copy_lines(cpu, q->tail.qmd, q->tail.bytes);
    h->span_va = q->grid_va = q->timeline->va;
    h->span_val = q->grid_val = v;
}

/* The QMD's release alone ends the command: nothing follows the span on
 * the channel. A host release after it (behind an acquire of the grid's
 * end) held the channel group's method stream in front of the other
 * queues' launches waiting for the same value: a chain of gated commands
 * across two queues took about twice as long per hop as the same chain
 * ungated (docs/performance.md, "Chains across queues"). Should the span
 * be dropped, v must still come, after the grids before the span: that
 * release (an acquire of the grid before, or a wait for idle, then the
 * host's release of v) is recorded as GP entries of their own behind the
 * span, pending_gp[ustart, uend), which settle submits only in place of a
 * dropped span. What follows waits for v like for any grid's release
 * (grids_open): either brings it. Not while a thread sleeps on
 * interrupts (the QMD's release raises none: the caller's host release
 * does), and not after a grid of the `grids` signal, which a dropped
 * span before may never release (unwind_span rewrites only acquires it
 * knows of). Returns false when nothing was recorded. */
static bool span_alone(struct hcq_queue *q, void *cpu, struct hcq_hold *h, uint64_t *value)
{
    if (irq_wanted(q) || (h->grids_open && h->pre_va && h->pre_va != q->timeline->va))
        return false;
    /* Room first: nothing may fail once the QMD releases v. The entry,
     * and two free after it like every other. No submission: the span
     * must stay last. */
    if (pending_room(q, 3) || push_reserve(q, HCQ_RELEASE_DW, false))
        return false;
    const uint64_t v = ++q->last;
    span_qmd_release(q, cpu, h, v);
    _Static_assert(sizeof(h->last.qmd) == sizeof(q->tail.qmd), "a hold keeps a whole QMD");
    memcpy(h->last.qmd, q->tail.qmd, q->tail.bytes);
    h->last.cpu = cpu;
    h->last.bytes = q->tail.bytes;
    h->last.val = v;
    h->ustart = q->npending;
    if (h->grids_open) {
        if (h->pre_va)
            hcq_q_push_acquire(q, h->pre_va, h->pre_val);
        else
            hcq_push_1(q, NV_SUBC_HOST, NVC86F_WFI, 0);
    }
    hcq_raise_to(&q->timeline->rec_hi, v);
    push_host_sem(q, q->timeline->va, v, NV_SEM_EXECUTE_RELEASE_64_TS);
    (void)close_chunk(q, 2); /* the room was made above */
    h->uend = q->npending;
    /* Dropped or not, v comes: nothing recorded later waits for a value
     * that may not (no acquire to rewrite). */
    h->span_va = 0;
    /* The work in front of the next hold ends with v either way. */
    ends_with_release(q, v, true);
    if (h->x_va && h->first_qmd && q->chain && q->shared_group) {
        /* A launch another queue's chain may take (link_across): every
         * field it reads is written by now. */
        h->writer = util_thread_self();
        pthread_mutex_lock(&q->dev->xlink_lock);
        h->xnext = q->dev->xlink;
        q->dev->xlink = h;
        h->xreg = true;
        pthread_mutex_unlock(&q->dev->xlink_lock);
    }
    *value = v;
    return true;
}

static int release_timeline(struct hcq_queue *q, uint64_t *value, enum rel_kind kind)
{
    uint64_t v;
    if (q->tail.cpu && !q->tail.released && kind == REL_FOLD) {
        /* Right after a launch: its QMD releases the value when its grid
         * ends, and that grid started after every earlier one ended (a
         * chain, or a wait for the grid before its head). */
        v = ++q->last;
        hcq_q_tail_release(q, v);
        hcq_raise_to(&q->timeline->rec_hi, v);
        ends_with_release(q, v, false);
    } else {
        struct hcq_hold *sh = NULL;
        void *span_qmd = kind == REL_FOLD ? span_tail_take(q, &sh) : NULL;
        if (span_qmd && span_alone(q, span_qmd, sh, &v)) {
            if (value)
                *value = v;
            return 0;
        }
        int r = push_reserve(q, HCQ_RELEASE_DW, true);
        if (r == -ENOMEM && holding(q)) {
            /* Behind an open hold no room comes back by waiting: the
             * release goes in the slack every reservation keeps, so that
             * a command that could not record all of its verbs still
             * ends (and can be dropped) where it began. It leaves room
             * for one more: the release that ends the work after the
             * span (hcq_q_hold_end counts on none inside it). */
            r = arena_room(q, &q->pb, 2 * HCQ_RELEASE_DW * 4, 4, false, true);
            if (r == 0)
                note_writer(q);
        }
        if (r)
            return r;
        v = ++q->last;
        /* The QMD releases v, and the host again behind an acquire of
         * it: that keeps what follows after the grid, brings the
         * interrupt, and releases v should the span be dropped
         * (unwind_span then rewrites the acquire). Nothing on the
         * channel releases a later value before that acquire has seen
         * the QMD's. The reservation may have submitted: the span must
         * still be the last. */
        if (span_qmd && span_is_last(q, sh))
            span_qmd_release(q, span_qmd, sh, v);
        push_release(q, q->timeline, v);
        ends_with_release(q, v, true);
    }
    if (value)
        *value = v;
    return 0;
}

int hcq_q_release_timeline(struct hcq_queue *q, uint64_t *value)
{
    return release_timeline(q, value, REL_HOST);
}

int hcq_q_signal_next(struct hcq_queue *q, uint64_t *value)
{
    return release_timeline(q, value, REL_FOLD);
}

/* Yield the runlist while blocked (HCQCL_ACQUIRE=poll keeps the channel
 * polling instead). In the device's compute group this yields the group's
 * other channels' time too, until the scheduler comes back to it; the
 * H200 suite passes either way. */
void hcq_q_push_acquire(struct hcq_queue *q, uint64_t va, uint64_t value)
{
    push_host_sem(q, va, value,
                  NV_SEM_EXECUTE_ACQ_CIRC_GEQ_64 |
                      NV_FIELD_NUM(NVC86F_SEM_EXECUTE_ACQUIRE_SWITCH_TSG, q->acquire_switch));
}

int hcq_q_wait(struct hcq_queue *q, const struct hcq_signal *sig, uint64_t value)
{
    if (!sig)
        return -EINVAL;
    int r = push_reserve(q, 6, true);
    if (r)
        return r;
    /* The first thing in an open hold's span: the launch after it may
     * join a chain on another queue (link_across). */
    struct hcq_hold *h = q->hold_last;
    const bool opens = h && !h->ended && !h->x_va && h->span_pb == q->pb.head;
    hcq_q_push_acquire(q, sig->va, value);
    if (opens) {
        h->x_va = sig->va;
        h->x_val = value;
        h->x_pb = q->pb.head;
    }
    return 0;
}

int hcq_q_signal(struct hcq_queue *q, struct hcq_signal *sig, uint64_t value)
{
    if (!sig)
        return -EINVAL;
    if (sig == q->timeline) {
        /* Values on the timeline come from hcq_q_signal_next only. */
        return -EINVAL;
    }
    int r = push_reserve(q, HCQ_RELEASE_DW, true);
    if (r)
        return r;
    push_release(q, sig, value);
    return 0;
}

/* A host release after the launch would wait for its grid in a blocked
 * acquire and stamp the time it woke, about a microsecond after the end
 * (docs/performance.md, "Profiled kernels"), and would close the launch
 * to the timeline's release and to the next launch's chain. */
int hcq_q_signal_grid(struct hcq_queue *q, struct hcq_signal *sig, uint64_t value)
{
    if (!q || !sig || sig == q->timeline)
        return -EINVAL;
    if (!q->tail.cpu || q->tail.released1 ||
        nv_qmd_set_release(q->tail.qmd, nv_qmd_version_for_class(q->dev->info.compute_class), 1,
                           sig->va, value))
        return hcq_q_signal(q, sig, value);
    q->tail.released1 = true;
    hcq_raise_to(&sig->rec_hi, value);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Copy engine verbs                                                    */
/* ------------------------------------------------------------------ */

static void push_offsets(struct hcq_queue *q, uint64_t dst, uint64_t src)
{
    uint32_t d[4] = {(uint32_t)(src >> 32), (uint32_t)src, (uint32_t)(dst >> 32), (uint32_t)dst};
    hcq_push_incr(q, NV_SUBC_COPY, NVC8B5_OFFSET_IN_UPPER, d, 4);
}

int hcq_q_copy(struct hcq_queue *q, uint64_t dst, uint64_t src, uint64_t size)
{
    if (q->engine != HCQ_ENGINE_COPY)
        return -ENOTSUP;
    while (size) {
        uint64_t n = UTIL_MIN(size, NV_COPY_LINE_MAX);
        int r = push_reserve(q, 9, true);
        if (r)
            return r;
        push_offsets(q, dst, src);
        hcq_push_1(q, NV_SUBC_COPY, NVC8B5_LINE_LENGTH_IN, (uint32_t)n);
        hcq_push_1(q, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, NV_LAUNCH_DMA_COPY);
        dst += n;
        src += n;
        size -= n;
    }
    return 0;
}

int hcq_q_copy_2d(struct hcq_queue *q, uint64_t dst, uint64_t dst_pitch, uint64_t src,
                  uint64_t src_pitch, uint64_t width, uint64_t height)
{
    if (q->engine != HCQ_ENGINE_COPY)
        return -ENOTSUP;
    if (!width || !height)
        return 0;
    /* PITCH_*, LINE_LENGTH_IN and LINE_COUNT are 32-bit: otherwise row by row. */
    if (dst_pitch > UINT32_MAX || src_pitch > UINT32_MAX || width > UINT32_MAX) {
        for (uint64_t y = 0; y < height; y++) {
            int r = hcq_q_copy(q, dst + y * dst_pitch, src + y * src_pitch, width);
            if (r)
                return r;
        }
        return 0;
    }
    while (height) {
        uint32_t rows = (uint32_t)UTIL_MIN(height, UINT32_MAX);
        int r = push_reserve(q, 12, true);
        if (r)
            return r;
        push_offsets(q, dst, src);
        uint32_t d[4] = {(uint32_t)src_pitch, (uint32_t)dst_pitch, (uint32_t)width, rows};
        hcq_push_incr(q, NV_SUBC_COPY, NVC8B5_PITCH_IN, d, 4);
        hcq_push_1(q, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA,
                   NV_LAUNCH_DMA_COPY | NV_FIELD_NUM(NVC8B5_LAUNCH_DMA_MULTI_LINE_ENABLE, 1));
        dst += rows * dst_pitch;
        src += rows * src_pitch;
        height -= rows;
    }
    return 0;
}

int hcq_q_fill(struct hcq_queue *q, uint64_t dst, uint64_t size, const void *pattern,
               unsigned pattern_size)
{
    if (q->engine != HCQ_ENGINE_COPY)
        return -ENOTSUP;
    uint32_t components;
    if (!pattern || nv_remap_fill_components(pattern_size, &components) || size % pattern_size ||
        dst % pattern_size)
        return -EINVAL;
    uint64_t pat = 0;
    memcpy(&pat, pattern, pattern_size);
    /* One element per pattern; CONST_B carries patterns up to 4 bytes,
     * CONST_A/CONST_B the low/high halves of an 8-byte one. */
    uint32_t ca = pattern_size == 8 ? (uint32_t)pat : 0;
    uint32_t cb = pattern_size == 8 ? (uint32_t)(pat >> 32) : (uint32_t)pat;
    uint64_t elems = size / pattern_size;
    while (elems) {
        uint64_t n = UTIL_MIN(elems, (uint64_t)UINT32_MAX);
        int r = push_reserve(q, 13, true);
        if (r)
            return r;
        uint32_t d[3] = {ca, cb, components};
        hcq_push_incr(q, NV_SUBC_COPY, NVC8B5_SET_REMAP_CONST_A, d, 3);
        uint32_t o[2] = {(uint32_t)(dst >> 32), (uint32_t)dst};
        hcq_push_incr(q, NV_SUBC_COPY, NVC8B5_OFFSET_OUT_UPPER, o, 2);
        hcq_push_1(q, NV_SUBC_COPY, NVC8B5_LINE_LENGTH_IN, (uint32_t)n);
        hcq_push_1(q, NV_SUBC_COPY, NVC8B5_LAUNCH_DMA, NV_LAUNCH_DMA_FILL);
        dst += n * pattern_size;
        elems -= n;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Submission                                                           */
/* ------------------------------------------------------------------ */

static uint32_t gp_get(struct hcq_queue *q)
{
    return __atomic_load_n(&q->userd[NV_USERD_GP_GET / 4], __ATOMIC_ACQUIRE);
}

/* GP entries the GPU has certainly consumed, from the timeline: every
 * submission ends with a release, so once the timeline reached it, all
 * entries up to put_at[] of that submission were fetched and run. This
 * does not depend on when the GPU writes GP_GET back to USERD. */
static uint64_t consumed_by_timeline(struct hcq_queue *q)
{
    /* Forward from seq_done: retire values grow with seq, so the scan ends
     * at the first submission the timeline has not reached and passes each
     * submission about once, however far the GPU lags (a waiter for ring
     * space probes this in a loop). 0 = nothing new. */
    uint64_t s = q->seq_done, found = 0;
    if (q->seq - s > HCQ_SUBMIT_HISTORY)
        s = q->seq - HCQ_SUBMIT_HISTORY;
    for (; s < q->seq; s++) {
        uint64_t r = q->retire[s % HCQ_SUBMIT_HISTORY];
        if (!retire_reached(q, r))
            break;
        if (r) { /* 0: covered by a later release, not known yet */
            found = q->put_at[s % HCQ_SUBMIT_HISTORY];
            q->seq_done = s + 1;
        }
    }
    return found;
}

/* Advance get_abs, the absolute count of consumed entries. GP_GET is a
 * ring index the GPU writes back when it likes, so it may lag the
 * timeline: decoded relative to get_abs, a stale index would read as
 * almost a whole lap ahead and let put overrun the ring. It is decoded
 * relative to the last GP_GET seen (hw_get_abs; GP_GET only moves
 * forward), which is unambiguous while put is less than a lap ahead of
 * it; beyond that GP_GET is ignored and the timeline, a second,
 * never-stale bound, alone frees ring slots. */
static void update_get(struct hcq_queue *q)
{
    uint32_t mask = q->ring_entries - 1;
    if (q->put - q->hw_get_abs <= mask) {
        uint64_t delta = (gp_get(q) - (uint32_t)q->hw_get_abs) & mask;
        if (delta <= q->put - q->hw_get_abs)
            q->hw_get_abs += delta;
        if (q->hw_get_abs > q->get_abs)
            q->get_abs = q->hw_get_abs;
    }
    uint64_t t = consumed_by_timeline(q);
    if (t > q->get_abs)
        q->get_abs = t;
}

/* Wait until the ring has a free slot: at most entries-1 outstanding. */
static int ring_room(struct hcq_queue *q)
{
    /* The cached count first: it only lags the GPU, and reading GP_GET
     * (USERD) and the timeline back costs more than a submit needs while
     * the ring is far from full. */
    if (q->put - q->get_abs < q->ring_entries - 1)
        return 0;
    uint64_t t0 = util_now_ns(), last = q->get_abs, kick_next = HCQ_KICK_FIRST_NS;
    for (;;) {
        update_get(q);
        if (q->put - q->get_abs < q->ring_entries - 1)
            return 0;
        if (q->get_abs != last) {
            last = q->get_abs;
            t0 = util_now_ns();
            kick_next = HCQ_KICK_FIRST_NS;
        }
        if (hcq_device_check_lost(q->dev))
            return -EIO;
        uint64_t stalled = util_now_ns() - t0;
        /* Entries the GPU never fetched get their doorbell again, as in
         * the signal waits. */
        hcq_device_kick_stalled(q->dev, stalled, &kick_next);
        if (stalled > SPACE_TIMEOUT_NS)
            return -ENOMEM;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

static bool ring_has(struct hcq_queue *q, uint64_t n);

/* The ring cannot take what a submission would add now (its pending
 * entries and one for the open pushbuffer) without waiting. */
static bool ring_short(struct hcq_queue *q) { return !ring_has(q, (uint64_t)q->npending + 1); }

/* Nothing recorded since the last submission. */
static bool nothing_new(const struct hcq_queue *q)
{
    return q->pb.head == q->open_start && !q->npending && !q->tail.cpu;
}

/* Make the ring entries up to q->put visible and ring the doorbell. */
static void publish(struct hcq_queue *q)
{
    /* What another thread wrote for this submission may still be in its
     * core's write-combining buffers; this thread's own are ordered before
     * GPPut and the doorbell by the fences below. */
    if (q->wc_writer && q->wc_writer != util_thread_self())
        wc_drain_others(q);
    q->wc_writer = 0;
    /* Ring entries before GPPut, GPPut before the doorbell [H200]. */
    hcq_store_fence();
    /* A release store: the emulated GPU's acquire of GPPut then orders
     * everything written for this submission (and ThreadSanitizer sees it). */
    __atomic_store_n(&q->userd[NV_USERD_GP_PUT / 4], (uint32_t)(q->put % q->ring_entries),
                     __ATOMIC_RELEASE);
    hcq_store_fence();
    /* A register write; as an atomic store it is still one plain mov, and
     * the emulated device's exchange on the same word pairs with it. */
    __atomic_store_n((volatile uint32_t *)(q->dev->usermode + NVC361_NOTIFY_CHANNEL_PENDING),
                     q->token, __ATOMIC_RELEASE);
}

static int submit_all(struct hcq_queue *q, bool try);
static int settle(struct hcq_queue *q, bool try);

/* Submit what was recorded (up to the first open hold). try: never wait
 * for ring room; submit the entries that fit and return -EAGAIN with the
 * rest pending. */
static int submit_ex(struct hcq_queue *q, bool try)
{
    if (holding(q))
        return hcq_device_lost(q->dev) ? -EIO : settle(q, try);
    return submit_all(q, try);
}

static int submit(struct hcq_queue *q) { return submit_ex(q, false); }

/* Record submission q->seq, whose entries are on the ring: its pushbuffer
 * and scratch bytes up to pb_end / scratch_end come back once the retire[]
 * value retire is reached. */
static void close_submission(struct hcq_queue *q, uint64_t retire, uint64_t pb_end,
                             uint64_t scratch_end)
{
    q->retire[q->seq % HCQ_SUBMIT_HISTORY] = retire;
    q->put_at[q->seq % HCQ_SUBMIT_HISTORY] = q->put;
    arena_mark(q, &q->pb, pb_end);
    arena_mark(q, &q->scratch, scratch_end);
    q->seq++;
}

/* Whether the ring takes n more entries now. */
static bool ring_has(struct hcq_queue *q, uint64_t n)
{
    if (q->put + n - q->get_abs < q->ring_entries - 1)
        return true;
    update_get(q);
    return q->put + n - q->get_abs < q->ring_entries - 1;
}

/* Merge the entries of pending_gp[0, n) that continue one another in the
 * pushbuffer: the GPU fetches one entry at a time, and spans decided
 * together (a chain of commands behind one user event) would otherwise
 * go as an entry or two per command. What follows, and the holds'
 * indices, move down; returns the new n. */
static unsigned coalesce(struct hcq_queue *q, unsigned n)
{
    if (n < 2)
        return n;
    unsigned w = 0;
    for (unsigned i = 1; i < n; i++) {
        const uint64_t a = q->pending_gp[w], b = q->pending_gp[i];
        const uint64_t va = nv_gp_entry_va(a);
        const uint32_t la = nv_gp_entry_length(a), lb = nv_gp_entry_length(b);
        if (va + 4ull * la == nv_gp_entry_va(b) && la + lb <= NV_GP_ENTRY_LENGTH_MAX)
            q->pending_gp[w] = nv_gp_entry(va, la + lb);
        else
            q->pending_gp[++w] = b;
    }
    if (w + 1 < n)
        pending_drop(q, w + 1, n - (w + 1));
    return w + 1;
}

/* Put pending_gp[0, n) on the ring, as many as there is room for now (all
 * of them, waiting for room, unless try), and make them visible when the
 * caller will not (some are left); returns how many went. The submission
 * they belong to is closed by whoever puts its last entry. */
static unsigned ring_put(struct hcq_queue *q, unsigned n, bool try, int *r)
{
    unsigned i = 0;
    *r = 0;
    for (; i < n; i++) {
        if (try ? !ring_has(q, 1) : (*r = ring_room(q)) != 0)
            break;
        q->ring[q->put % q->ring_entries] = q->pending_gp[i];
        q->put++;
    }
    if (i) {
        pending_drop(q, 0, i);
        if (i < n)
            publish(q);
    }
    if (i < n && try)
        *r = -EAGAIN;
    return i;
}

static int submit_all(struct hcq_queue *q, bool try)
{
    if (nothing_new(q))
        return 0;
    if (hcq_device_lost(q->dev))
        return -EIO;
    if (try && (coalesce(q, q->npending), ring_short(q))) {
        /* The chunks already closed go as far as the ring takes them; the
         * submission is closed (its release, its records) by a later one. */
        int r;
        ring_put(q, q->npending, true, &r);
        return -EAGAIN;
    }
    if (q->tail.cpu) {
        /* The work ends with a launch: its QMD releases the submission's
         * last timeline value when its grid ends (folded already, or
         * here), seen 0.4-0.6 us sooner on the H200 than a host release
         * after a wait for idle (launch + wait 3.76-4.15 us against
         * 4.58-4.71), and without holding the channel group meanwhile
         * (launch.c, "Launch chains"). The same value retires the
         * submission: the front end reads a QMD, its bank and its methods
         * before the grid runs, so once the grid has ended their memory is
         * reused (it was reused only after a later host release once,
         * which held the group until the grid ended). No interrupt
         * follows: a thread sleeping on the value sleeps in steps. */
        if (!q->tail.released) {
            const uint64_t v = ++q->last;
            hcq_q_tail_release(q, v);
            hcq_raise_to(&q->timeline->rec_hi, v);
            ends_with_release(q, v, false);
        }
        hcq_q_tail_flush(q);
    } else if (q->pb.head != q->rel_pb_head) {
        /* Fits without waiting: every reservation kept the slack. */
        int r = arena_room(q, &q->pb, HCQ_RELEASE_DW * 4, 4, false, true);
        if (r)
            return r;
        uint64_t v = ++q->last;
        push_release(q, q->timeline, v);
        ends_with_release(q, v, true);
    }
    /* The last chunk: its entry is the one every other kept free. */
    int r = close_chunk(q, 0);
    if (r)
        return r;
    ring_put(q, coalesce(q, q->npending), false, &r);
    if (r)
        return r;
    close_submission(q, q->rel_value, q->pb.head, q->scratch.head);
    q->pub_prev = q->pub_hi;
    q->pub_hi = q->rel_value;
    q->nheld = 0;
    publish(q);
    return 0;
}

int hcq_q_submit(struct hcq_queue *q) { return submit(q); }

/* ------------------------------------------------------------------ */
/* Holds                                                                */
/* ------------------------------------------------------------------ */

/* Room for n more entries in pending_gp, growing it while holds keep work
 * back. Whoever adds one keeps two free after it (a span's end, the
 * submission's last chunk), so those two never fail. */
static int pending_room(struct hcq_queue *q, unsigned n)
{
    if (q->npending + n <= q->pending_cap)
        return 0;
    const unsigned cap = q->pending_cap * 2;
    uint64_t *grown = malloc(cap * sizeof(*grown));
    if (!grown)
        return -ENOMEM;
    memcpy(grown, q->pending_gp, q->npending * sizeof(*grown));
    if (q->pending_gp != q->pending_inline)
        free(q->pending_gp);
    q->pending_gp = grown;
    q->pending_cap = cap;
    return 0;
}

/* End the open GP chunk at pb.head, keeping spare entries free after it:
 * what follows starts an entry of its own. */
static int close_chunk(struct hcq_queue *q, unsigned spare)
{
    if (q->pb.head == q->open_start)
        return 0;
    if (pending_room(q, spare + 1))
        return -ENOMEM;
    uint64_t start = hcq_arena_off(&q->pb, q->open_start);
    q->pending_gp[q->npending++] =
        nv_gp_entry(q->pb.va + start, (uint32_t)((q->pb.head - q->open_start) / 4));
    q->open_start = q->pb.head;
    return 0;
}

/* Take pending_gp[at, at + n) out, moving the live holds' indices. */
static void pending_drop(struct hcq_queue *q, unsigned at, unsigned n)
{
    memmove(&q->pending_gp[at], &q->pending_gp[at + n],
            (q->npending - at - n) * sizeof(q->pending_gp[0]));
    q->npending -= n;
    for (struct hcq_hold *h = q->hold_first; h; h = h->next) {
        if (h->start >= at + n)
            h->start -= n;
        if (h->ended && h->end >= at + n)
            h->end -= n;
        if (h->uend > h->ustart && h->ustart >= at + n) {
            h->ustart -= n;
            h->uend -= n;
        }
    }
}

/* Submit the work in front of open hold h: pending_gp[0, h->start), which
 * ends with the release of h->rel (try: as much as the ring takes now). */
static int submit_before(struct hcq_queue *q, struct hcq_hold *h, bool try)
{
    const unsigned n = coalesce(q, h->start); /* h->start moves with it */
    if (!n)
        return 0;
    int r;
    if (ring_put(q, n, try, &r) < n) /* h->start is now what is left */
        return r;
    close_submission(q, h->rel, h->pb_end, h->scratch_end);
    q->pub_prev = q->pub_hi;
    q->pub_hi = h->rel;
    publish(q);
    return 0;
}

/* A dropped span's grids never run, and the end its last grid would have
 * announced never comes: what waits for it waits for the grids before the
 * span instead, or, where those are not known, for idle. The acquire
 * recorded after the span (not submitted yet: the span was in front of
 * it) is rewritten in place, six dwords either way; the queue's and the
 * later holds' note of the last grid goes back to the one before. */
static void unwind_span(struct hcq_queue *q, struct hcq_hold *h)
{
    if (h->acq_at != UINT64_MAX) {
        note_writer(q); /* the deciding thread may not be the recording one */
        volatile uint32_t *p = (volatile uint32_t *)(q->pb.cpu + hcq_arena_off(&q->pb, h->acq_at));
        if (h->pre_va) {
            const uint64_t va = h->pre_va;
            p[1] = (uint32_t)va;
            p[2] = (uint32_t)(va >> 32);
            p[3] = (uint32_t)h->pre_val;
            p[4] = (uint32_t)(h->pre_val >> 32);
        } else {
            p[0] = nv_mthd_incr(NV_SUBC_HOST, NVC86F_WFI, 1);
            p[1] = 0;
            p[2] = nv_mthd_incr(NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, 3); /* three harmless words */
            p[3] = p[4] = p[5] = 0;
        }
    }
    if (q->grid_va == h->span_va && q->grid_val == h->span_val) {
        q->grid_va = h->pre_va;
        q->grid_val = h->pre_val;
    }
    for (struct hcq_hold *n = h->next; n; n = n->next) {
        if (n->pre_va == h->span_va && n->pre_val == h->span_val) {
            n->pre_va = h->pre_va;
            n->pre_val = h->pre_val;
        }
    }
}

/* Spans p and n, one right behind the other and decided to run in the
 * same pass (neither submitted, so the GPU has read neither's QMDs): where
 * n's first launch waits for nothing but p's last grid, whose QMD
 * releases p's command's value (span_alone), that QMD schedules n's first
 * launch when its grid ends, a dependent as in a launch chain (launch.c),
 * and n's methods, the acquire and the launch, are not submitted. A gated
 * chain on one queue then runs at the pace of an ungated one, where each
 * span's launch waited in a blocked acquire for the grid before
 * (docs/performance.md, "Chains across queues"). */
/* p's last QMD, not read by the GPU yet, schedules the launch whose QMD
 * is at qmd when its grid ends. */
static void span_schedule(struct hcq_device *dev, struct hcq_hold *p, uint64_t qmd)
{
    nv_qmd_hot_dependent(p->last.qmd, &dev->qmd_hot, qmd);
    hcq_wc_copy_lines(p->last.cpu, p->last.qmd, p->last.bytes);
}

static bool span_linkable(const struct hcq_queue *q, const struct hcq_hold *p,
                          const struct hcq_hold *n)
{
    return p && p->last.cpu && n->first_qmd && !n->x_va && n->start == p->end &&
           n->first_va == q->timeline->va && n->first_val == p->last.val;
}

static bool span_link(struct hcq_queue *q, struct hcq_hold *p, struct hcq_hold *n)
{
    if (!span_linkable(q, p, n))
        return false;
    note_writer(q); /* the deciding thread may not be the recording one */
    span_schedule(q->dev, p, n->first_qmd);
    pending_drop(q, n->start, n->end - n->start);
    /* Written under q's lock, read by tests anywhere: a relaxed store. */
    __atomic_store_n(&q->spans_linked, q->spans_linked + 1, __ATOMIC_RELAXED);
    return true;
}

/* Launch chains across queues. A chain of commands that each wait for
 * the one before on another queue of the device (clbench's gated chain
 * across two queues), decided in one pass behind a user event, crossed
 * from channel to channel once per command: each waited in a blocked
 * acquire, until the scheduler came back to its channel after the other
 * channel's grid ended (5.7-6.1 us per command on H100s against 1.4 for a
 * chain of dependent QMDs; docs/performance.md, "Chains across queues").
 * The channels of a device's compute queues are one channel group, each
 * with a subcontext of its own in one address space, and a QMD is memory
 * any of them may schedule. So where the span of command n is nothing but
 * its wait for command p's value, perhaps the wait for its channel's last
 * grid, and one launch (launch.c notes it, and span_alone lists the hold
 * in the device's xlink), and p's last QMD releases that value
 * (span_alone), p's QMD schedules n's launch as its dependent before p's
 * queue submits p: the chain runs on the channel of its head at the pace
 * of one queue's, and n's queue drops n's entries when it settles
 * (HCQ_HOLD_LINKED). What n's span would have waited for on its own
 * channel must come before n runs: the release that ends its queue's work
 * in front of the span (rel) and the last grid's, each seen by the
 * CPU already, or released by the chain before n, or waited for by the
 * chain's head. A launch that needs local memory does not join (that is
 * set up per channel). Holds taken off a queue by its settle leave the
 * list first, under the same lock, so a hold is either linked or
 * submitted by its own queue, never both. Returns how many joined the
 * chain that h heads. */
enum { XCHAIN_QUEUES = 8 };

struct xchain {
    const struct hcq_hold *head;
    unsigned nq;
    struct {
        const struct hcq_queue *q;
        uint64_t lo, hi; /* timeline values the chain releases */
    } q[XCHAIN_QUEUES];
};

/* Whether timeline value val of queue tq comes before the chain's next
 * launch. */
static bool xchain_released(const struct xchain *c, const struct hcq_queue *tq, uint64_t val)
{
    const uint64_t va = tq->timeline->va;
    const struct hcq_hold *h = c->head;
    if ((h->x_va == va && val <= h->x_val) ||
        (h->first_qmd && h->first_va == va && val <= h->first_val))
        return true;
    for (unsigned i = 0; i < c->nq; i++)
        if (c->q[i].q == tq && c->q[i].lo <= val && val <= c->q[i].hi)
            return true;
    return hcq_signal_value(tq->timeline) >= val;
}

static unsigned link_across(struct hcq_queue *q, struct hcq_hold *h)
{
    struct hcq_device *dev = q->dev;
    if (!h->last.cpu || !q->chain || !q->shared_group)
        return 0;
    struct xchain c = {.head = h, .nq = 1, .q = {{q, h->last.val, h->last.val}}};
    unsigned linked = 0;
    const uintptr_t me = util_thread_self();
    bool drained = false;
    struct hcq_hold *p = h;
    pthread_mutex_lock(&dev->xlink_lock);
    for (;;) {
        const uint64_t va = p->q->timeline->va;
        struct hcq_hold *n = dev->xlink;
        while (n && (n->x_va != va || n->x_val != p->last.val))
            n = n->xnext;
        if (!n || atomic_load_explicit(&n->state, memory_order_acquire) != HCQ_HOLD_RUN ||
            n->q->group != q->group || !n->rel_ok)
            break;
        const struct hcq_queue *nq = n->q;
        unsigned i = 0;
        while (i < c.nq && c.q[i].q != nq)
            i++;
        if (i == XCHAIN_QUEUES || !xchain_released(&c, nq, n->rel) ||
            (n->first_va && !(n->first_va == nq->timeline->va &&
                              xchain_released(&c, nq, n->first_val))))
            break;
        if (!linked)
            note_writer(q); /* another thread may submit the chain's head */
        if (!drained && (n->writer != me || (p != h && p->writer != me))) {
            /* Another thread's QMD and banks reach memory before this
             * thread rewrites the QMD and rings the doorbell. */
            wc_drain_others(q);
            drained = true;
        }
        span_schedule(dev, p, n->first_qmd);
        atomic_store_explicit(&n->state, HCQ_HOLD_LINKED, memory_order_relaxed);
        if (i == c.nq) {
            c.q[i].q = nq;
            c.q[i].lo = n->last.val;
            c.nq++;
        }
        c.q[i].hi = n->last.val;
        p = n;
        linked++;
    }
    pthread_mutex_unlock(&dev->xlink_lock);
    if (linked)
        CORE_LOG("queue 0x%x: %u launches of %u queues joined the chain after value %llu",
                 q->h_channel, linked, c.nq, (unsigned long long)h->last.val);
    __atomic_store_n(&q->spans_linked_across, q->spans_linked_across + linked, __ATOMIC_RELAXED);
    return linked;
}

static void xlink_remove_locked(struct hcq_device *dev, struct hcq_hold *h)
{
    struct hcq_hold **pp = &dev->xlink;
    while (*pp != h)
        pp = &(*pp)->xnext;
    *pp = h->xnext;
    h->xreg = false;
}

/* A decided hold leaves the device's list before its queue applies it:
 * its state then is final. */
static int hold_take(struct hcq_queue *q, struct hcq_hold *h, int st)
{
    if (!h->xreg)
        return st;
    pthread_mutex_lock(&q->dev->xlink_lock);
    xlink_remove_locked(q->dev, h);
    st = atomic_load_explicit(&h->state, memory_order_relaxed);
    pthread_mutex_unlock(&q->dev->xlink_lock);
    return st;
}

/* Apply the decided holds in order, then submit up to the first open one,
 * or everything when none is left. */
static int settle(struct hcq_queue *q, bool try)
{
    struct hcq_hold *h, *prev = NULL; /* the span run before h, kept for span_link */
    bool dropped = false;
    while ((h = q->hold_first)) {
        int st = atomic_load_explicit(&h->state, memory_order_acquire);
        if (st == HCQ_HOLD_OPEN || !h->ended) {
            free(prev);
            return submit_before(q, h, try);
        }
        st = hold_take(q, h, st);
        bool dep_free = false; /* its last QMD may still schedule a launch */
        if (st == HCQ_HOLD_SKIP) {
            pending_drop(q, h->start, h->end - h->start);
            if (h->span_va)
                unwind_span(q, h);
            dropped = true;
        } else if (st == HCQ_HOLD_LINKED) {
            /* Its launch is scheduled by the QMD before it in a chain
             * (link_across): none of its entries, its stand-in's either. */
            pending_drop(q, h->start, h->end - h->start);
            if (h->uend > h->ustart)
                pending_drop(q, h->ustart, h->uend - h->ustart);
        } else {
            (void)span_link(q, prev, h);
            /* Run: the span's QMD brings its value (span_alone). */
            if (h->uend > h->ustart)
                pending_drop(q, h->ustart, h->uend - h->ustart);
            /* A span right behind that can join it on this queue does;
             * else a chain may go on across queues. */
            const struct hcq_hold *n = h->next;
            const bool next_joins =
                n && n->ended &&
                atomic_load_explicit(&n->state, memory_order_acquire) == HCQ_HOLD_RUN &&
                span_linkable(q, h, n);
            dep_free = next_joins || !link_across(q, h);
        }
        q->hold_first = h->next;
        if (!q->hold_first)
            q->hold_last = NULL;
        free(prev);
        prev = NULL;
        if (dep_free)
            prev = h;
        else
            free(h);
    }
    free(prev);
    if (dropped && nothing_new(q)) {
        /* All that was left is dropped: the arenas' bytes since the last
         * submission come back with it (a submission of nothing, retired
         * when the one before is). */
        close_submission(q, q->seq ? q->retire[(q->seq - 1) % HCQ_SUBMIT_HISTORY] : 0,
                         q->pb.head, q->scratch.head);
        return 0;
    }
    return submit_all(q, try);
}

int hcq_q_hold(struct hcq_queue *q, struct hcq_hold **out)
{
    struct hcq_hold *h = calloc(1, sizeof(*h));
    if (!h)
        return -ENOMEM;
    int r;
    h->q = q;
    if (!holding(q)) {
        /* Everything before it goes now: the span starts the next
         * submission, pending_gp[0]. */
        r = submit_all(q, false);
        h->rel = q->rel_value;
        h->rel_ok = q->pb.head == q->rel_pb_head && !q->tail.cpu;
    } else {
        /* Behind an open hold: the work since ends with a release of its
         * own (from the host, never a grid's), so that it can be
         * submitted alone once the holds before it are decided. Where it
         * ends with one already (the command before's own, after its
         * span: a chain of gated commands), that one serves: a host
         * release comes after the channel's grids, and one per command is
         * enough. */
        r = 0;
        if (q->pb.head == q->rel_pb_head && q->rel_host && !q->tail.cpu) {
            h->rel = q->rel_value;
        } else if ((r = push_reserve(q, HCQ_RELEASE_DW, false)) == 0) {
            h->rel = ++q->last;
            push_release(q, q->timeline, h->rel);
            ends_with_release(q, h->rel, true);
        }
        if (r == 0) /* two left: this span's end, the submission's last chunk */
            r = close_chunk(q, 2);
        h->start = q->npending;
        h->pb_end = q->pb.head;
        h->scratch_end = q->scratch.head;
        h->rel_ok = true;
    }
    if (r) {
        free(h);
        return r;
    }
    /* What the span sets up on the channel may never run: what it was
     * before is kept, and put back at its end (hcq_q_hold_end). A bank 0
     * from before the span is not pointed at from inside it: the work in
     * front of the hold may be submitted, and its scratch reused, while
     * the span still waits (launch.c, "the same submission"). */
    h->local_gen = q->local_gen;
    h->grids_open = q->grids_open;
    h->pre_va = q->grid_va;
    h->pre_val = q->grid_val;
    h->acq_at = UINT64_MAX;
    h->span_pb = q->pb.head;
    q->last_bank.seq = UINT64_MAX;
    atomic_store_explicit(&h->state, HCQ_HOLD_OPEN, memory_order_relaxed);
    if (q->hold_last)
        q->hold_last->next = h;
    else
        q->hold_first = h;
    q->hold_last = h;
    *out = h;
    return 0;
}

int hcq_q_hold_end(struct hcq_queue *q, struct hcq_hold *h)
{
    if (h->ended)
        return -EINVAL;
    /* The span's last launch is written out with its end announced: no
     * later launch becomes its dependent, and no release of the
     * timeline folds into it. What follows waits for that end; should
     * the span be dropped, for the grids before it (unwind_span). */
    void *span_qmd = q->tail.cpu && !q->tail.released ? q->tail.cpu : NULL;
    q->span_tail.cpu = NULL;
    if (q->tail.cpu)
        hcq_q_tail_close(q);
    if (q->grid_va != h->pre_va || q->grid_val != h->pre_val) {
        h->span_va = q->grid_va;
        h->span_val = q->grid_val;
    }
    if (h->first_qmd && q->pb.head != h->first_pb)
        h->first_qmd = 0; /* more than its first launch */
    int r = close_chunk(q, 1); /* the room arena_room and hcq_q_hold kept */
    if (r)
        return r;
    h->end = q->npending;
    h->ended = true;
    q->span_tail.cpu = span_qmd;
    q->span_tail.hold = h;
    q->span_tail.pb_head = q->pb.head;
    q->span_tail.scratch_head = q->scratch.head;
    /* A release the span ends with is dropped with it: neither the next
     * hold nor the submission that ends the work may count on it, so the
     * work after the span ends with a release of its own. */
    q->rel_pb_head = UINT64_MAX;
    /* Set up inside the span, the channel's local memory is set up again
     * by the next launch that needs it (twice is harmless); grids that ran
     * before the span may still run if the span is dropped. */
    q->local_gen = h->local_gen;
    q->grids_open = q->grids_open || h->grids_open;
    return 0;
}

void hcq_q_hold_decide(struct hcq_hold *h, bool run)
{
    atomic_store_explicit(&h->state, run ? HCQ_HOLD_RUN : HCQ_HOLD_SKIP, memory_order_release);
}

int hcq_q_submit_try(struct hcq_queue *q) { return submit_ex(q, true); }

/* The timeline is host memory: reading it costs a cached load, against
 * the fences and the uncached doorbell store a submission costs. While
 * the GPU has not finished the submission before the last one, the last
 * one is still queued behind the work it runs, so a new unit can wait
 * for the next commit; once it has, the GPU is on its last submission or
 * idle, and what is held goes at once. */
/* A cheap clock for how fresh the last reading is: the TSC (about a
 * microsecond is 2000-4000 ticks), else none (every commit reads). */
#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t held_clock(void) { return __rdtsc(); }
#define HELD_READ_FRESH 2000u
#else
static inline uint64_t held_clock(void) { return 0; }
#define HELD_READ_FRESH 0u
#endif

int hcq_q_commit(struct hcq_queue *q)
{
    /* The timeline is a line the GPU writes at every release, a cache
     * miss to read: while work is held, a commit within about a
     * microsecond of one that read it and held decides on that reading
     * (every other commit at most), so a GPU found busy is not looked at
     * again at once; a later commit reads again. */
    if (holding(q)) {
        /* Behind an open hold the unit waits for its decision; what was
         * decided goes as far as the ring takes it now. */
        int r = settle(q, true);
        if (r && r != -EAGAIN)
            return r;
        if (!r && !holding(q))
            return 0;
        q->nheld++;
        return 1;
    }
    bool hold = false;
    /* Past HCQ_DEFER_MAX units too while the ring is full: the GPU is
     * far behind (waiting on another channel, say), and a submission
     * would wait for ring room. */
    if (q->pb.head == q->rel_pb_head && (q->nheld + 1 < HCQ_DEFER_MAX || ring_short(q)) &&
        !hcq_device_lost(q->dev)) {
        const uint64_t t = held_clock();
        if (q->nheld && !q->held_unread && t - q->held_read_at < HELD_READ_FRESH) {
            hold = true;
            q->held_unread = true;
        } else {
            hold = hcq_signal_value(q->timeline) < q->pub_prev;
            q->held_unread = false;
            q->held_read_at = t;
        }
    }
    if (hold) {
        q->nheld++;
        if (q->wc_shared) {
            /* Shared by threads: hand nothing over in write buffers. */
            if (q->wc_writer && q->wc_writer != util_thread_self())
                wc_drain_others(q);
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            q->wc_writer = 0;
        }
        return 1;
    }
    return submit(q);
}

bool hcq_q_held(const struct hcq_queue *q) { return q->nheld != 0 || holding(q); }

unsigned hcq_device_kick(struct hcq_device *dev, uint64_t stalled_ns)
{
    /* Only USERD is read here, never the queue's own bookkeeping: the
     * queue may be submitting on another thread. A doorbell for a channel
     * that already runs is harmless. */
    unsigned n = 0;
    pthread_mutex_lock(&dev->lock);
    for (struct hcq_queue *q = dev->queues; q; q = q->next) {
        uint32_t put = __atomic_load_n(&q->userd[NV_USERD_GP_PUT / 4], __ATOMIC_ACQUIRE);
        uint32_t get = gp_get(q);
        if (put == get) {
            if (stalled_ns >= 1000000000ull)
                CORE_LOG("wait: no progress for %llu us: queue 0x%x GP_GET = GP_PUT %u, "
                         "timeline %llu", (unsigned long long)(stalled_ns / 1000), q->h_channel,
                         put, (unsigned long long)hcq_signal_value(q->timeline));
            continue;
        }
        __atomic_store_n((volatile uint32_t *)(dev->usermode + NVC361_NOTIFY_CHANNEL_PENDING),
                         q->token, __ATOMIC_RELEASE);
        n++;
        CORE_LOG("wait: no progress for %llu us: queue 0x%x GP_GET %u GP_PUT %u, doorbell again",
                 (unsigned long long)(stalled_ns / 1000), q->h_channel, get, put);
    }
    pthread_mutex_unlock(&dev->lock);
    return n;
}

struct hcq_signal *hcq_queue_timeline(struct hcq_queue *q) { return q->timeline; }

uint64_t hcq_queue_last(const struct hcq_queue *q) { return q->last; }

uint32_t hcq_queue_runlist(const struct hcq_queue *q) { return q->runlist_engine; }

enum hcq_engine hcq_queue_engine(const struct hcq_queue *q) { return q->engine; }

/* ------------------------------------------------------------------ */
/* Create / destroy                                                     */
/* ------------------------------------------------------------------ */

/* Undo a queue's channel after unregistering it from UVM: queue
 * teardown, or a failed channel_alloc_on() before another try. A group of
 * its own goes with everything in it; in a shared compute group the
 * channel (with its engine objects) and the context share go, and the
 * group with its last channel. */
static void channel_release_ex(struct hcq_queue *q, bool group_locked)
{
    struct hcq_device *dev = q->dev;
    struct nvdrv *d = hcq_drv(dev);
    if (q->uvm_channel)
        nvdrv_uvm_unregister_channel(d, dev->info.uuid, q->h_channel);
    if (q->group) {
        struct hcq_group *g = q->group;
        if (q->h_channel)
            nvdrv_rm_free(d, q->h_chgrp, q->h_channel);
        if (q->h_ctxshare)
            nvdrv_rm_free(d, q->h_chgrp, q->h_ctxshare);
        if (!group_locked)
            pthread_mutex_lock(&dev->group_lock);
        if (--g->users == 0) {
            nvdrv_rm_free(d, dev->h_device, g->handle);
            if (dev->gr_group == g)
                dev->gr_group = NULL;
            free(g);
        }
        if (!group_locked)
            pthread_mutex_unlock(&dev->group_lock);
    } else if (q->h_chgrp) {
        nvdrv_rm_free(d, dev->h_device, q->h_chgrp);
    }
    q->group = NULL;
    q->uvm_channel = q->shared_group = false;
    q->h_chgrp = q->h_ctxshare = q->h_channel = q->h_engine = 0;
}

static void channel_release(struct hcq_queue *q) { channel_release_ex(q, false); }

static void queue_free(struct hcq_queue *q)
{
    /* The channel first, then the memory it referenced. */
    channel_release(q);
    hcq_mem_free(q->ring_mem);
    hcq_mem_free(q->notifier);
    hcq_mem_free(q->pb.mem);
    hcq_mem_free(q->scratch.mem);
    hcq_signal_free(q->grids);
    hcq_signal_free(q->timeline);
    for (struct hcq_hold *h = q->hold_first, *n; h; h = n) {
        n = h->next;
        (void)hold_take(q, h, HCQ_HOLD_OPEN); /* off the device's list */
        free(h);
    }
    if (q->pending_gp != q->pending_inline)
        free(q->pending_gp);
    free(q);
}

/* Log the step of channel creation the driver refused. */
static int step(int r, const char *what)
{
    util_log(UTIL_LOG_ERR, "core: queue create: %s failed: %s", what,
             r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
    return nvdrv_errno(r);
}

/* A shared compute group's refusal of a joiner: -ENOSPC, for
 * channel_alloc_compute to retire the group (on the H200, RM's answers
 * once a group had handed out its subcontexts: NV_ERR_NO_MEMORY for the
 * context share, NV_ERR_INVALID_STATE for the channel). */
static int group_refused(const struct hcq_queue *q, int r, const char *what)
{
    CORE_LOG("compute group %#x refused a joiner's %s: %s", q->group->handle, what,
             r < 0 ? strerror(-r) : nvdrv_status_name((uint32_t)r));
    return -ENOSPC;
}

/* One channel on the runlist of `engine`: NV2080_ENGINE_TYPE_GRAPHICS
 * (compute queues; copy queues when the GPU lists no asynchronous copy
 * engine) or an asynchronous NV2080_ENGINE_TYPE_COPYn. A graphics channel
 * shares the VA space through a context share; a copy-engine group names
 * the VA space itself and its channel inherits it, which is how RM's own
 * copy channels are built.
 *
 * A compute queue's channel joins the device's compute group (join), with
 * a context share of its own: channel groups on one runlist are
 * time-sliced, each switch saving and restoring the whole graphics
 * context, and on the H200 eight threads with a compute queue each took
 * 6.36 s for what one thread did in 0.07 s on its own, 1.54 s with two
 * (docs/gpu-runs.md, 2026-12-04). In one group the channels share that
 * context, each subcontext running beside the others, as CUDA streams
 * do. Everything else gets a group of its own. The caller holds
 * dev->group_lock when join is set; joining with no current group starts
 * one. */
static int channel_alloc_on(struct hcq_queue *q, uint32_t engine, bool join)
{
    struct hcq_device *dev = q->dev;
    struct nvdrv *d = hcq_drv(dev);
    const bool gr = engine == NV2080_ENGINE_TYPE_GRAPHICS;
    q->runlist_engine = engine;
    int r;
    if (join && !dev->gr_group) {
        struct hcq_group *g = calloc(1, sizeof(*g));
        if (!g)
            return -ENOMEM;
        NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = engine};
        if ((r = nvdrv_rm_alloc(d, dev->h_device, KEPLER_CHANNEL_GROUP_A, &gp, sizeof(gp),
                                &g->handle))) {
            free(g);
            return step(r, "channel group");
        }
        dev->gr_group = g;
    }
    if (join) {
        q->group = dev->gr_group;
        q->group->users++;
        q->h_chgrp = q->group->handle;
        q->shared_group = true;
    } else {
        NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = engine,
                                                     .hVASpace = gr ? 0 : dev->h_vaspace};
        r = nvdrv_rm_alloc(d, dev->h_device, KEPLER_CHANNEL_GROUP_A, &gp, sizeof(gp),
                           &q->h_chgrp);
        if (r)
            return step(r, "channel group");
    }
    if (gr) {
        NV_CTXSHARE_ALLOCATION_PARAMETERS cs = {
            .hVASpace = dev->h_vaspace, .flags = NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC};
        if ((r = nvdrv_rm_alloc(d, q->h_chgrp, FERMI_CONTEXT_SHARE_A, &cs, sizeof(cs),
                                &q->h_ctxshare)))
            return join ? group_refused(q, r, "context share") : step(r, "context share");
        if (join)
            q->group->issued++;
    }
    struct hcq_mem_priv *ring = hcq_mem_priv(q->ring_mem);
    NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS *ch = calloc(1, sizeof(*ch));
    if (!ch)
        return -ENOMEM;
    ch->hObjectError = hcq_mem_priv(q->notifier)->h_memory;
    ch->hObjectBuffer = ring->h_memory;
    ch->gpFifoOffset = q->ring_mem->va;
    ch->gpFifoEntries = q->ring_entries;
    ch->hContextShare = q->h_ctxshare;
    ch->hUserdMemory[0] = ring->h_memory;
    ch->userdOffset[0] = (uint64_t)q->ring_entries * 8;
    ch->engineType = gr ? 0 : engine;
    r = nvdrv_rm_alloc(d, q->h_chgrp, dev->info.gpfifo_class, ch, sizeof(*ch), &q->h_channel);
    free(ch);
    if (r)
        return join ? group_refused(q, r, "GPFIFO channel") : step(r, "GPFIFO channel");
    /* A copy channel in a graphics group runs on the graphics copy engine.
     * On the H200 such a channel alone in its group failed
     * UVM_REGISTER_CHANNEL with NV_ERR_INVALID_OBJECT, while the verified
     * bring-up (compute and copy channels in one group) registered both:
     * UVM retains the group's graphics context buffers, which exist only
     * once a compute object does. So it gets one too. */
    if (gr && q->engine == HCQ_ENGINE_COPY) {
        uint32_t h_gr = 0;
        if ((r = nvdrv_rm_alloc(d, q->h_channel, dev->info.compute_class, NULL, 0, &h_gr)))
            return step(r, "compute object of a copy channel");
    }
    if (q->engine == HCQ_ENGINE_COPY) {
        /* On the graphics runlist VERSION_0/0 is what a NULL parameter
         * block means to RM: the first copy engine, the graphics one. */
        NVB0B5_ALLOCATION_PARAMETERS cp = {
            .version = gr ? NVB0B5_ALLOCATION_PARAMETERS_VERSION_0
                          : NVB0B5_ALLOCATION_PARAMETERS_VERSION_1,
            .engineType = gr ? 0 : engine};
        r = nvdrv_rm_alloc(d, q->h_channel, q->engine_class, &cp, sizeof(cp), &q->h_engine);
    } else {
        r = nvdrv_rm_alloc(d, q->h_channel, q->engine_class, NULL, 0, &q->h_engine);
    }
    if (r)
        return step(r, "engine object");
    NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS tok = {.workSubmitToken = 0xffffffffu};
    if ((r = nvdrv_rm_control(d, q->h_channel, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &tok,
                              sizeof(tok))))
        return step(r, "work submit token");
    q->token = tok.workSubmitToken;
    if ((r = nvdrv_uvm_register_channel(d, dev->info.uuid, q->h_channel, HCQ_CHANNEL_WINDOW_BASE,
                                        HCQ_CHANNEL_WINDOW_SIZE)))
        return step(r, "UVM_REGISTER_CHANNEL");
    q->uvm_channel = true;
    /* After the channel exists: a group schedule enables only the
     * channels present when it is issued, so one that joins a group
     * already scheduled is scheduled by itself, as UVM does for the
     * channels it adds to its groups. */
    if (join && q->group->scheduled) {
        NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS sch = {.bEnable = 1};
        if ((r = nvdrv_rm_control(d, q->h_channel, NVA06F_CTRL_CMD_GPFIFO_SCHEDULE, &sch,
                                  sizeof(sch))))
            return step(r, "channel GPFIFO_SCHEDULE");
        return 0;
    }
    NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS sch = {.bEnable = 1};
    if ((r = nvdrv_rm_control(d, q->h_chgrp, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sch, sizeof(sch))))
        return step(r, "GPFIFO_SCHEDULE");
    if (join)
        q->group->scheduled = true;
    return 0;
}

/* A compute queue's channel in the device's current compute group, or a
 * group of its own with HCQCL_COMPUTE_GROUP=own or once RM refused a
 * group's first channel. A group is retired (it keeps the channels it
 * has; the next joiner starts the next group) when it has handed out as
 * many subcontexts as the GPU has, or when RM refuses it a joiner: on the
 * H200 a group gave out 64 context shares in its life and then refused
 * every other, NV_ERR_NO_MEMORY for the context share or
 * NV_ERR_INVALID_STATE for the channel (docs/gpu-runs.md, 2026-12-04 and
 * 2026-12-04 third). A refused joiner is undone before the lock is let
 * go, so no other joiner sees its half-built channel in the group. */
static int channel_alloc_compute(struct hcq_queue *q)
{
    struct hcq_device *dev = q->dev;
    pthread_mutex_lock(&dev->group_lock);
    while (!dev->gr_share_off && strcmp(util_env()->compute_group, "own") != 0) {
        struct hcq_group *g = dev->gr_group;
        if (g && (g->users >= HCQ_GROUP_SUBCONTEXTS || g->issued >= HCQ_GROUP_SUBCONTEXTS)) {
            CORE_LOG("compute group %#x retired: %u subcontexts given out, %u in use", g->handle,
                     g->issued, g->users);
            dev->gr_group = g = NULL;
        }
        int r = channel_alloc_on(q, NV2080_ENGINE_TYPE_GRAPHICS, true);
        if (r == 0) {
            pthread_mutex_unlock(&dev->group_lock);
            return 0;
        }
        g = q->group; /* the group that refused; NULL if it was never made */
        bool first = g && g->users == 1;
        channel_release_ex(q, true);
        if (r == -ENOMEM || hcq_device_lost(dev) || !g) {
            pthread_mutex_unlock(&dev->group_lock);
            return r;
        }
        if (first) {
            util_log(UTIL_LOG_ERR,
                     "core: a new compute group refused its first channel (%d): compute queues "
                     "get groups of their own", r);
            dev->gr_share_off = true;
        } else {
            CORE_LOG("compute group %#x refused a channel (%d) after %u subcontexts: retired",
                     g->handle, r, g->issued);
            if (dev->gr_group == g)
                dev->gr_group = NULL;
        }
    }
    pthread_mutex_unlock(&dev->group_lock);
    return channel_alloc_on(q, NV2080_ENGINE_TYPE_GRAPHICS, false);
}

/* Compute queues go on the graphics runlist. Copy queues take the
 * asynchronous copy engines in turn, so that two copy queues (one per
 * direction) run on different engines and beside compute: each engine has
 * a runlist of its own, while every group on the graphics runlist is
 * time-sliced with the compute queues. When an engine refuses the channel,
 * the next is tried, and the graphics copy engine last. */
static int channel_alloc(struct hcq_queue *q)
{
    struct hcq_device *dev = q->dev;
    if (q->engine == HCQ_ENGINE_COMPUTE)
        return channel_alloc_compute(q);
    const unsigned n = !atomic_load(&dev->ce_refused) ? dev->info.async_ce_count : 0;
    /* A waker starts from the last engine, which copy queues (taking the
     * engines from the first) reach last: a channel blocked in an acquire
     * is switched in and out of its runlist until the value lands. */
    const unsigned first = !n ? 0 : q->waker ? n - 1 : atomic_fetch_add(&dev->next_ce, 1) % n;
    for (unsigned k = 0; k < n; k++) {
        uint32_t engine = dev->info.async_ce[(first + k) % n];
        int r = channel_alloc_on(q, engine, false);
        if (r == 0)
            return 0;
        util_log(UTIL_LOG_ERR, "core: copy engine 0x%x refused a channel (%d); trying %s", engine,
                 r, k + 1 < n ? "the next one" : q->waker ? "none" : "the graphics copy engine");
        channel_release(q);
        if (r == -ENOMEM)
            return r;
    }
    /* Not a waker: its group would be time-sliced with the compute
     * queues' on the graphics runlist. Nor does its refusal move the copy
     * queues there. */
    if (q->waker)
        return -ENODEV;
    if (n)
        atomic_store(&dev->ce_refused, true);
    return channel_alloc_on(q, NV2080_ENGINE_TYPE_GRAPHICS, false);
}

static int queue_create(struct hcq_device *dev, enum hcq_engine engine, uint32_t ring_entries,
                        uint32_t pb_bytes, uint32_t scratch_bytes, bool waker,
                        struct hcq_queue **out);

int hcq_queue_create_sized(struct hcq_device *dev, enum hcq_engine engine, uint32_t ring_entries,
                           uint32_t pb_bytes, uint32_t scratch_bytes, struct hcq_queue **out)
{
    return queue_create(dev, engine, ring_entries, pb_bytes, scratch_bytes, false, out);
}

/* A waker has at most a few requests of a few dozen bytes in flight
 * (waker.c): the smallest ring and arenas. */
int hcq_queue_create_waker(struct hcq_device *dev, struct hcq_queue **out)
{
    return queue_create(dev, HCQ_ENGINE_COPY, 64, 16384, 4096, true, out);
}

static void unlink_locked(struct hcq_queue *q);

void hcq_queue_abandon(struct hcq_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->dev->lock);
    unlink_locked(q);
    pthread_mutex_unlock(&q->dev->lock);
    queue_free(q);
}

static int queue_create(struct hcq_device *dev, enum hcq_engine engine, uint32_t ring_entries,
                        uint32_t pb_bytes, uint32_t scratch_bytes, bool waker,
                        struct hcq_queue **out)
{
    *out = NULL;
    if (!__atomic_load_n(&dev->refs, __ATOMIC_ACQUIRE) || !util_is_pow2(ring_entries) ||
        ring_entries < 64 || pb_bytes % 4096 || scratch_bytes % 4096 || !pb_bytes ||
        !scratch_bytes)
        return -EINVAL;
    if (hcq_device_lost(dev))
        return -EIO;
    struct hcq_queue *q = calloc(1, sizeof(*q));
    if (!q)
        return -ENOMEM;
    q->dev = dev;
    q->engine = engine;
    q->waker = waker;
    q->engine_class = engine == HCQ_ENGINE_COMPUTE ? dev->info.compute_class
                                                   : dev->info.copy_class;
    q->ring_entries = ring_entries;
    q->pending_gp = q->pending_inline;
    q->pending_cap = HCQ_PENDING_GP;
    q->acquire_switch = waker ? strcmp(util_env()->waker, "poll") != 0
                              : strcmp(util_env()->acquire, "poll") != 0;
    q->chain = engine == HCQ_ENGINE_COMPUTE && dev->qmd_hot_ok &&
               strcmp(util_env()->launch_chain, "off") != 0;
    uint64_t ring_bytes = util_align_up((uint64_t)ring_entries * 8 + NV_USERD_SIZE, 4096);
    int r;
    if ((r = hcq_mem_alloc_ex(dev, ring_bytes, HCQ_MEM_DEVICE_MAPPED,
                              HCQ_MEMF_LOW | HCQ_MEMF_CONTIG, &q->ring_mem)) ||
        (r = hcq_mem_alloc_ex(dev, 0x10000, HCQ_MEM_HOST, HCQ_MEMF_LOW | HCQ_MEMF_RM_SYSMEM,
                              &q->notifier)) ||
        (r = arena_init(q, &q->pb, pb_bytes)) || (r = arena_init(q, &q->scratch, scratch_bytes)) ||
        (r = hcq_signal_alloc(dev, &q->timeline)) || (r = hcq_signal_alloc(dev, &q->grids)))
        goto fail;
    q->wc = arena_kind() == HCQ_MEM_DEVICE_MAPPED && !dev->info.emulated;
    q->ring = (volatile uint64_t *)q->ring_mem->cpu;
    q->userd = (volatile uint32_t *)((uint8_t *)q->ring_mem->cpu + (uint64_t)ring_entries * 8);
    memset(q->ring_mem->cpu, 0, ring_bytes);
    if (q->notifier->cpu)
        memset(q->notifier->cpu, 0, 0x10000);
    if ((r = channel_alloc(q)))
        goto fail;

    /* Bind the engine (and, for compute, the shader windows) at the
     * start of the first submission. */
    if ((r = push_reserve(q, 8, false)))
        goto fail;
    if (engine == HCQ_ENGINE_COMPUTE) {
        hcq_push_1(q, NV_SUBC_COMPUTE, NVCBC0_SET_OBJECT, q->engine_class);
        uint32_t lw[2] = {(uint32_t)(HCQ_LOCAL_WINDOW >> 32), (uint32_t)HCQ_LOCAL_WINDOW};
        hcq_push_incr(q, NV_SUBC_COMPUTE, NVCBC0_SET_SHADER_LOCAL_MEMORY_WINDOW_A, lw, 2);
        uint32_t sw[2] = {(uint32_t)(HCQ_SHARED_WINDOW >> 32), (uint32_t)HCQ_SHARED_WINDOW};
        hcq_push_incr(q, NV_SUBC_COMPUTE, NVCBC0_SET_SHADER_SHARED_MEMORY_WINDOW_A, sw, 2);
    } else {
        hcq_push_1(q, NV_SUBC_COPY, NVC8B5_SET_OBJECT, q->engine_class);
    }
    q->bound = true;

    pthread_mutex_lock(&dev->lock);
    q->next = dev->queues;
    dev->queues = q;
    pthread_mutex_unlock(&dev->lock);
    CORE_LOG("queue %s: channel 0x%x on engine 0x%x, token %u, ring %u entries at 0x%llx",
             engine == HCQ_ENGINE_COMPUTE ? "compute" : "copy", q->h_channel, q->runlist_engine,
             q->token, ring_entries, (unsigned long long)q->ring_mem->va);
    *out = q;
    return 0;

fail:
    CORE_LOG("queue create failed: %d", r);
    queue_free(q);
    return r;
}

/* ---- Idle queues ------------------------------------------------------
 * A queue of the default sizes that its owner destroys is kept, channel
 * and all, for the next hcq_queue_create of its engine (at most
 * HCQ_IDLE_MAX per device; freed at the device's last close). On the H200
 * making a queue and destroying it took 18.9 ms (NVIDIA's OpenCL: 14 us
 * for a command queue), and RM refused every new compute channel, shared
 * group or not, once about a thousand had been made while two hundred
 * lived at once (CTS test_multiples; docs/gpu-runs.md, 2026-12-04
 * fourth): kept queues make channels as many as ever live at once.
 * A kept queue is idle: everything submitted has completed, nothing is
 * held or open. Its timeline goes on from where it was, which only
 * matters to its owners as a value that rises. */

/* Take q off its device's queue list; dev->lock held. */
static void unlink_locked(struct hcq_queue *q)
{
    for (struct hcq_queue **pp = &q->dev->queues; *pp; pp = &(*pp)->next)
        if (*pp == q) {
            *pp = q->next;
            return;
        }
}

static struct hcq_queue *idle_take(struct hcq_device *dev, enum hcq_engine engine)
{
    pthread_mutex_lock(&dev->lock);
    struct hcq_queue **pp = &dev->idle;
    while (*pp && (*pp)->engine != engine)
        pp = &(*pp)->idle_next;
    struct hcq_queue *q = *pp;
    if (q) {
        *pp = q->idle_next;
        q->idle_next = NULL;
        dev->nidle--;
    }
    pthread_mutex_unlock(&dev->lock);
    return q;
}

/* Keep q (idle, healthy) for a later owner: false when it can't be. */
static bool idle_put(struct hcq_queue *q)
{
    struct hcq_device *dev = q->dev;
    bool kept = false;
    pthread_mutex_lock(&dev->lock);
    if (dev->nidle < HCQ_IDLE_MAX && dev->refs > 0) {
        q->idle_next = dev->idle;
        dev->idle = q;
        dev->nidle++;
        kept = true;
    }
    pthread_mutex_unlock(&dev->lock);
    return kept;
}

void hcq_queue_idle_drain(struct hcq_device *dev)
{
    pthread_mutex_lock(&dev->lock);
    struct hcq_queue *list = dev->idle;
    dev->idle = NULL;
    dev->nidle = 0;
    for (struct hcq_queue *q = list; q; q = q->idle_next)
        unlink_locked(q);
    pthread_mutex_unlock(&dev->lock);
    while (list) {
        struct hcq_queue *q = list;
        list = q->idle_next;
        queue_free(q);
    }
}

int hcq_queue_create(struct hcq_device *dev, enum hcq_engine engine, struct hcq_queue **out)
{
    if (__atomic_load_n(&dev->refs, __ATOMIC_ACQUIRE) && !hcq_device_lost(dev) &&
        (*out = idle_take(dev, engine)))
        return 0;
    int r = hcq_queue_create_sized(dev, engine, HCQ_RING_ENTRIES, HCQ_PB_BYTES,
                                   HCQ_SCRATCH_BYTES, out);
    if (r == 0)
        (*out)->reusable = true;
    return r;
}

void hcq_queue_destroy(struct hcq_queue *q)
{
    if (!q)
        return;
    struct hcq_device *dev = q->dev;
    /* Everything submitted must be done before its memory goes away; the
     * open (unsubmitted) part is dropped. */
    /* A queue kept idle runs what was recorded (the API's aborted
     * commands leave only harmless verbs); one freed drops it. */
    bool keep = q->reusable && !hcq_device_lost(dev);
    if (keep) {
        /* Work behind an undecided hold never runs: not a queue to reuse. */
        if (hcq_q_submit(q) < 0 || holding(q))
            keep = false;
    } else if (q->nheld && !hcq_device_lost(dev)) {
        (void)submit(q); /* committed work is the caller's: it runs */
    }
    if (q->seq && !hcq_device_lost(dev)) {
        /* The timeline's last value: the signals' slots go back to the
         * signal pool with the queue (the `grids` releases landed before
         * it: each grid starts after the one before ended). */
        const uint64_t last = q->retire[(q->seq - 1) % HCQ_SUBMIT_HISTORY];
        int r = wait_retired(q, last);
        if (r) {
            CORE_ERR("core: queue 0x%x destroyed with work pending (%d)", q->h_channel, r);
            keep = false;
        }
    }
    if (keep && !hcq_device_lost(dev) && idle_put(q))
        return;
    hcq_queue_abandon(q);
}

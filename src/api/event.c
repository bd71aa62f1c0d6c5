/*
 * event.c — events: the pool, the tracker that moves commands to their
 * final status, the notifier thread, user events, callbacks, waits and
 * profiling.
 *
 * Every command's event sits in the process-wide tracker from hcqcl_cmd_end
 * until its GPU part and its host work are done: on the FIFO of its GPU
 * timeline (a stream: one HCQ channel of one queue), where the values it
 * waits for increase in FIFO order. A pass (tracker_progress) runs from the
 * notifier thread and from any thread that needs fresh status (waits,
 * queries); in each stream it stops at the first command the GPU has not
 * reached, since none behind it can be done either, so a pass costs what
 * moved, not what is in flight (a thousand launches queued behind a busy
 * GPU are not walked, and enqueues do not wait for the tracker's lock
 * while they would be). A stream's gated commands are looked at from a
 * list of their own (a gate may open behind a running command), not by
 * walking the thousands that may be queued behind a gate. A dependency on another
 * stream may settle later in the same pass: the pass then goes round
 * again.
 *
 * Lifetime: obj.refs counts the application's references; `internal`
 * counts holders inside hcqcl plus one for all application references
 * together. The event goes back to the pool when `internal` reaches 0.
 */
#include "api/obj.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct hcqcl_event_cb {
    struct hcqcl_event_cb *next;
    cl_int when;   /* CL_SUBMITTED / CL_RUNNING / CL_COMPLETE */
    cl_int status; /* what the call reports (when, or the error) */
    cl_event ev;
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
    void *data;
};

struct stream {
    const struct hcq_signal *sig; /* the timeline; NULL for stream 0 */
    cl_event first, last;
    size_t ngated; /* its commands in phase GATED */
    /* Those, oldest first, linked through gnext: a pass looks at them
     * without walking the commands queued behind a gate. */
    cl_event gfirst, glast;
    uint64_t seq; /* the next command's sseq */
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t done;  /* an event became final */
    pthread_cond_t wake;  /* work for the notifier */
    /* The unfinished commands: one FIFO per GPU timeline (struct stream);
     * stream 0 takes any command without one and is always walked whole.
     * ntracked counts them all (changed under the lock, read without it
     * by a pass that may find nothing to do), ngated those in phase
     * GATED. */
    struct stream *streams;
    unsigned nstreams, capstreams;
    _Atomic size_t ntracked;
    size_t ngated;
    struct hcqcl_event_cb *fire_first, *fire_last;
    bool started;
    /* The notifier sleeps with no timeout (empty FIFO): only then must a
     * new command wake it; otherwise its next pass (at most 1 ms away)
     * sees it, and an enqueue costs no futex wake. */
    bool idle;
    /* Free events (linked through next), under their own lock so an
     * enqueue does not contend with the tracker's passes. */
    pthread_mutex_t pool_lock;
    cl_event pool;
    /* Queues holding work back that no tracked command may stand for
     * (commands without events): internal references. */
    cl_command_queue *heldq;
    size_t nheldq, capheldq;
    /* Moved by every wake-up of the notifier; while it waits on a GPU
     * command, the device it waits on (a wake-up pokes it: the wait
     * hears nothing else). */
    _Atomic uint32_t woken;
    struct hcq_device *gpu_wait_dev;
    /* A pass came back full and its thread goes on with another before it
     * flushes the queues whose gates it decided (tracker_progress): the
     * gates that thread's decisions make decidable are its own to decide,
     * or another thread's flush would submit part of a chain. Others
     * leave gates alone meanwhile (gates_skipped: and look again after),
     * until that thread is done or runs host work that may be the
     * application's (multipass_drop). */
    uintptr_t multipass;
    bool gates_skipped;
} T = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .pool_lock = PTHREAD_MUTEX_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
};

/* The notifier has work: wake it from a nap or sleep, or from a wait on
 * the GPU, which only a poke of that device ends. Under T.lock. */
static void wake_notifier_locked(void)
{
    pthread_cond_signal(&T.wake);
    atomic_fetch_add(&T.woken, 1);
    if (T.gpu_wait_dev) {
        hcq_device_poke(T.gpu_wait_dev);
        T.gpu_wait_dev = NULL;
    }
}

/* ------------------------------------------------------------------ */
/* Pool and lifetime                                                    */
/* ------------------------------------------------------------------ */

/* fork(): the tracker's locks are taken around it, so that a child does
 * not start with one a parent thread (the notifier) held; the child's
 * devices are lost (core), and its calls answer errors without waiting. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&T.lock);
    pthread_mutex_lock(&T.pool_lock);
}
static void fork_release(void)
{
    pthread_mutex_unlock(&T.pool_lock);
    pthread_mutex_unlock(&T.lock);
}
/* The child has none of the parent's threads: none of them goes on with
 * passes there. */
static void fork_child(void)
{
    T.multipass = 0;
    T.gates_skipped = false;
    fork_release();
}
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void fork_register(void) { pthread_atfork(fork_prepare, fork_release, fork_child); }

cl_event hcqcl_event_new(cl_context ctx, cl_command_queue q, cl_command_type type)
{
    pthread_once(&fork_once, fork_register);
    pthread_mutex_lock(&T.pool_lock);
    cl_event e = T.pool;
    if (e)
        T.pool = e->next;
    pthread_mutex_unlock(&T.pool_lock);
    if (!e) {
        e = malloc(sizeof(*e));
        if (!e)
            return NULL;
    }
    memset(e, 0, sizeof(*e));
    hcqcl_obj_init(&e->obj, HCQCL_TYPE_EVENT);
    atomic_store(&e->obj.refs, 0);
    atomic_init(&e->internal, 1);
    e->ctx = ctx;
    e->q = q;
    e->type = type;
    e->deps = e->deps_inline;
    e->capdeps = UTIL_ARRAY_SIZE(e->deps_inline);
    e->objs = e->objs_inline;
    e->capobjs = UTIL_ARRAY_SIZE(e->objs_inline);
    atomic_init(&e->phase, HCQCL_PH_NEW);
    atomic_init(&e->status, CL_QUEUED);
    return e;
}

void hcqcl_event_ref(cl_event e)
{
    atomic_fetch_add_explicit(&e->internal, 1, memory_order_relaxed);
}

static void release_objs(cl_event e)
{
    hcqcl_cmd_objs_release(e->objs, e->nobjs);
    e->nobjs = 0;
    if (e->objs != e->objs_inline)
        free(e->objs);
    e->objs = e->objs_inline;
    e->capobjs = UTIL_ARRAY_SIZE(e->objs_inline);
}

static void release_deps(cl_event e)
{
    for (size_t i = 0; i < e->ndeps; i++)
        hcqcl_event_unref(e->deps[i]);
    e->ndeps = e->nprop = 0;
    if (e->deps != e->deps_inline)
        free(e->deps);
    e->deps = e->deps_inline;
    e->capdeps = UTIL_ARRAY_SIZE(e->deps_inline);
}

void hcqcl_event_release_held(cl_event e)
{
    release_deps(e);
    release_objs(e);
}

void hcqcl_event_unref(cl_event e)
{
    if (atomic_fetch_sub_explicit(&e->internal, 1, memory_order_acq_rel) != 1)
        return;
    e->obj.type = HCQCL_TYPE_NONE;
    hcqcl_event_release_held(e);
    struct hcqcl_event_cb *cb = e->cbs;
    while (cb) {
        struct hcqcl_event_cb *n = cb->next;
        free(cb);
        cb = n;
    }
    cl_command_queue q = e->q;
    cl_context ctx = e->ctx;
    if (q) {
        struct hcqcl_slot *slots[3] = {e->start, e->end, e->own};
        for (size_t i = 0; i < UTIL_ARRAY_SIZE(slots); i++)
            if (slots[i])
                hcqcl_queue_slot_put(q, slots[i]);
    }
    pthread_mutex_lock(&T.pool_lock);
    e->next = T.pool;
    T.pool = e;
    pthread_mutex_unlock(&T.pool_lock);
    if (q)
        hcqcl_queue_unref(q);
    else if (ctx)
        hcqcl_clReleaseContext(ctx);
}

bool hcqcl_event_valid(cl_event e) { return hcqcl_obj_valid(e, HCQCL_TYPE_EVENT); }
cl_context hcqcl_event_context(cl_event e) { return e->ctx; }

/* ------------------------------------------------------------------ */
/* The tracker                                                          */
/* ------------------------------------------------------------------ */

static void *notifier_main(void *arg);

static void fire_locked(struct hcqcl_event_cb *cb)
{
    cb->next = NULL;
    if (T.fire_last)
        T.fire_last->next = cb;
    else
        T.fire_first = cb;
    T.fire_last = cb;
}

/* Queue every callback whose status the event reached (status: current
 * execution status, <= CL_COMPLETE when final). */
static bool queue_callbacks_locked(cl_event e, cl_int status)
{
    bool any = false;
    struct hcqcl_event_cb **pp = &e->cbs;
    while (*pp) {
        struct hcqcl_event_cb *cb = *pp;
        if (status <= cb->when) {
            *pp = cb->next;
            cb->status = status < 0 ? status : cb->when;
            hcqcl_event_ref(e);
            fire_locked(cb);
            any = true;
        } else {
            pp = &cb->next;
        }
    }
    return any;
}

static void unlink_locked(cl_event e)
{
    struct stream *s = &T.streams[e->stream];
    if (e->prev)
        e->prev->next = e->next;
    else
        s->first = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        s->last = e->prev;
    e->prev = e->next = NULL;
    /* Under the lock, as every change of the count must be: a load and a
     * store, not a locked instruction. */
    atomic_store_explicit(&T.ntracked, atomic_load_explicit(&T.ntracked, memory_order_relaxed) - 1,
                          memory_order_relaxed);
}

/* Leaving phase GATED (to GPU, or final): the counts follow. */
static void ungate_locked(cl_event e)
{
    T.streams[e->stream].ngated--;
    T.ngated--;
}

/* The stream of timeline sig, made if new: an empty stream's place is
 * reused first. 0 (walked whole) when sig is NULL or no room can be had. */
static unsigned stream_locked(const struct hcq_signal *sig)
{
    if (!T.streams) {
        T.streams = calloc(8, sizeof(*T.streams));
        if (!T.streams)
            return UINT32_MAX;
        T.capstreams = 8;
        T.nstreams = 1;
    }
    if (!sig)
        return 0;
    unsigned empty = 0;
    for (unsigned i = 1; i < T.nstreams; i++) {
        if (T.streams[i].sig == sig)
            return i;
        if (!empty && !T.streams[i].first)
            empty = i;
    }
    if (!empty && T.nstreams == T.capstreams) {
        struct stream *n = realloc(T.streams, 2 * T.capstreams * sizeof(*n));
        if (!n)
            return 0;
        T.streams = n;
        T.capstreams *= 2;
    }
    if (!empty)
        empty = T.nstreams++;
    T.streams[empty] = (struct stream){.sig = sig};
    return empty;
}

static void start_notifier_locked(void)
{
    if (T.started)
        return;
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    /* Without the notifier, callbacks never fire and gated commands never
     * start; waits still progress the tracker themselves, so a failure
     * here degrades rather than deadlocks. Retried on the next track. */
    if (pthread_create(&t, &a, notifier_main, NULL) == 0)
        T.started = true;
    else
        util_log(UTIL_LOG_ERR, "api: cannot start the event notifier thread");
    pthread_attr_destroy(&a);
}

void hcqcl_event_track(cl_event e)
{
    hcqcl_event_ref(e); /* the FIFO's reference */
    pthread_mutex_lock(&T.lock);
    unsigned si = stream_locked(e->gpu_sig);
    if (si == UINT32_MAX) {
        /* No tracker at all: the command cannot be followed; it fails
         * (its GPU part still runs, the queue's finish waits for it;
         * behind a gate it is dropped, or the channel would wait for
         * ever: the caller's submission settles it). */
        pthread_mutex_unlock(&T.lock);
        if (e->hold) {
            hcq_q_hold_decide(e->hold, false);
            e->hold = NULL;
        }
        util_log(UTIL_LOG_ERR, "api: no memory to track a command");
        atomic_store(&e->status, CL_OUT_OF_HOST_MEMORY);
        atomic_store(&e->phase, HCQCL_PH_DONE);
        hcqcl_event_unref(e);
        return;
    }
    struct stream *s = &T.streams[si];
    e->stream = si;
    e->sseq = s->seq++;
    e->prev = s->last;
    e->next = NULL;
    if (s->last)
        s->last->next = e;
    else
        s->first = e;
    s->last = e;
    atomic_store_explicit(&T.ntracked, atomic_load_explicit(&T.ntracked, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (atomic_load(&e->phase) == HCQCL_PH_GATED) {
        s->ngated++;
        T.ngated++;
        e->gnext = NULL;
        if (s->glast)
            s->glast->gnext = e;
        else
            s->gfirst = e;
        s->glast = e;
    }
    start_notifier_locked();
    /* A gate or an after-hook waits for the notifier: wake it now. */
    if (T.idle || atomic_load(&e->phase) == HCQCL_PH_GATED || e->after_fn)
        wake_notifier_locked();
    pthread_mutex_unlock(&T.lock);
}

/* True when every remaining dependency is final; *st becomes
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if a wait-list one failed. */
static bool deps_final_locked(cl_event e, cl_int *st)
{
    cl_int s = e->dep_status;
    if (hcqcl_lite_pending(e))
        return false;
    for (size_t i = 0; i < e->ndeps; i++) {
        cl_event d = e->deps[i];
        if (atomic_load(&d->phase) != HCQCL_PH_DONE)
            return false;
        if (i < e->nprop && atomic_load(&d->status) < 0)
            s = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    *st = s;
    return true;
}

/* How far down its stream a look for d goes when decided: deeper ones
 * are taken as having something undecided before them. */
enum { CLEAR_WALK = 64 };

/* Whether every command before tracked d on its channel was decided: none
 * of them gated, which the stream's oldest gated command says at once
 * (decided: their holds decided too, not only collected by a pass that
 * has yet to run its actions). Stream 0 mixes channels. Under T.lock. */
static bool clear_before_locked(cl_event d, bool decided)
{
    if (!d->stream || d->stream >= T.nstreams)
        return false;
    if (!decided) {
        const cl_event g = T.streams[d->stream].gfirst;
        return !g || g->sseq > d->sseq;
    }
    cl_event x = T.streams[d->stream].first;
    for (unsigned n = 0; x && x != d && n < CLEAR_WALK; x = x->next, n++)
        if (!atomic_load(&x->decided))
            return false;
    return x == d;
}

/* True when e's implicit dependencies (its queue's command before it,
 * barriers: those past the wait list) are final. */
static bool implicit_final_locked(cl_event e)
{
    for (size_t i = e->nprop; i < e->ndeps; i++)
        if (atomic_load(&e->deps[i]->phase) != HCQCL_PH_DONE)
            return false;
    return true;
}

/* Whether gated e can be decided: every dependency final, or, when e has
 * no before-hook (which must see their host work done), decided on the GPU
 * with no after-hook of its own: on e's own channel (the channel runs it
 * first, and its status is settled: CL_COMPLETE, or the wait-list failure
 * its own decision saw), or to run on another channel of e's device (e's
 * span waits for its release: record_waits, command.c). So a chain of
 * commands, each waiting on the one before, is decided in one pass once
 * its head is, and runs back to back on the GPU. Dependencies elsewhere
 * are waited for until they ended when e is to be dropped (a dropped span
 * drops its waits, and what follows e on its channel must still come
 * after them), or when one of them was dropped or is behind a gate still
 * undecided on its own channel (the GPU would wait behind that gate).
 * *st as deps_final_locked. */
static bool deps_decided_locked(cl_event e, cl_int *st)
{
    if (e->before_fn)
        return deps_final_locked(e, st);
    cl_int s = e->dep_status;
    bool elsewhere = false;
    for (size_t i = 0; i < e->ndeps; i++) {
        cl_event d = e->deps[i];
        const int ph = atomic_load(&d->phase);
        cl_int ds;
        if (ph == HCQCL_PH_DONE) {
            ds = atomic_load(&d->status);
        } else if (ph == HCQCL_PH_GPU && d->gpu_sig == e->gpu_sig && !d->after_fn) {
            ds = d->dep_status;
        } else if (ph == HCQCL_PH_GPU && !d->after_fn && d->dep_status >= 0 && d->sig &&
                   d->sig->dev == e->q->hdev && clear_before_locked(d, false)) {
            ds = d->dep_status;
            elsewhere = true;
        } else {
            return false;
        }
        if (i < e->nprop && ds < 0)
            s = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    /* Dropped, e's span would drop its waits for those elsewhere: what
     * follows it on its channel must still come after them. */
    if (s < 0 && elsewhere)
        return false;
    *st = s;
    return true;
}

enum act_kind { ACT_GATE, ACT_AFTER, ACT_FINISHED };
struct act {
    enum act_kind kind;
    cl_event ev;
    cl_int status;
};

/* Make e final (phase DONE) with status; it stays referenced by the
 * caller's action until finished_outside() drops the FIFO's reference. */
static void finish_locked(cl_event e, cl_int status)
{
    if (e->end)
        e->t_seen = util_now_ns();
    atomic_store(&e->status, status < 0 ? status : CL_COMPLETE);
    atomic_store(&e->phase, HCQCL_PH_DONE);
    unlink_locked(e);
    /* Callbacks to run, or a gate that may open now: the tracker's turn
     * (it may be napping while an application thread watched e). */
    if (queue_callbacks_locked(e, status < 0 ? status : CL_COMPLETE) ||
        atomic_load(&e->gates_others))
        wake_notifier_locked();
    pthread_cond_broadcast(&T.done);
}

/* The command runs (CL_RUNNING): on profiling queues its start timestamp
 * was written; on the others, which record none, it is on the GPU and
 * everything it waits for (its queue's command before it among them) has
 * ended, so the GPU has started it or is about to; in phase AFTER its GPU
 * part ended and its host work (a staged read's copy-out, an SVM free's
 * callback) runs: running too, as a profiling queue's start timestamp
 * says, never back to CL_SUBMITTED. e not final. Under T.lock: a final
 * dependency list is released outside it. */
static bool started_locked(cl_event e)
{
    if (e->start)
        return hcq_signal_value(e->start->sig) >= e->start_val;
    cl_int st;
    const int ph = atomic_load(&e->phase);
    return ph == HCQCL_PH_AFTER || (ph == HCQCL_PH_GPU && deps_final_locked(e, &st));
}

static bool device_lost(cl_event e)
{
    return e->q && hcq_device_lost(e->q->hdev);
}

/* Take gated e off its stream's list of gated commands; prev: the one
 * before it there, or NULL. */
static void gated_unlink_locked(struct stream *s, cl_event prev, cl_event e)
{
    if (prev)
        prev->gnext = e->gnext;
    else
        s->gfirst = e->gnext;
    if (s->glast == e)
        s->glast = prev;
    e->gnext = NULL;
}

/* The stream's gated commands that can be decided now (or failed, their
 * device lost), oldest first, into a[n..cap); returns the new n. One
 * decided to run lets the next on its channel be decided in the same
 * pass (deps_decided_locked). *deps_later: one still waits for a
 * dependency another stream may settle later in this pass. */
static size_t collect_gated_locked(struct stream *s, struct act *a, size_t n, size_t cap,
                                   bool *deps_later)
{
    cl_event prev = NULL;
    for (cl_event e = s->gfirst, next; e && n < cap; e = next) {
        next = e->gnext;
        cl_int st;
        if (device_lost(e)) {
            gated_unlink_locked(s, prev, e);
            ungate_locked(e);
            finish_locked(e, CL_OUT_OF_RESOURCES);
            a[n++] = (struct act){ACT_FINISHED, e, CL_OUT_OF_RESOURCES};
            continue;
        }
        if (!deps_decided_locked(e, &st)) {
            /* Another round of the pass helps only if none of what it
             * waits for is a user event not yet set (or a command still
             * being built). */
            bool settles = true;
            for (size_t i = 0; i < e->ndeps && settles; i++)
                settles = atomic_load(&e->deps[i]->phase) != HCQCL_PH_NEW;
            if (settles)
                *deps_later = true;
            prev = e;
            continue;
        }
        e->dep_status = st;
        gated_unlink_locked(s, prev, e);
        ungate_locked(e);
        atomic_store(&e->phase, HCQCL_PH_GPU);
        hcqcl_event_ref(e);
        a[n++] = (struct act){ACT_GATE, e, st};
    }
    return n;
}

/* One stream's settled commands into a[n..cap); returns the new n.
 * *deps_later: a command was done on the GPU but waits for a dependency
 * to become final on the host (maybe later in this pass). The walk stops
 * at the first command the GPU has not finished (or a gate: what follows
 * one on its channel has not been submitted); its gated commands are
 * looked at from their own list after it. */
static size_t collect_stream_locked(unsigned si, struct act *a, size_t n, size_t cap,
                                    bool *deps_later)
{
    struct stream *s = &T.streams[si];
    for (cl_event e = s->first, next; e && n < cap; e = next) {
        next = e->next;
        int ph = atomic_load(&e->phase);
        cl_int st;
        if (ph == HCQCL_PH_GATED) {
            if (si && !device_lost(e))
                break;
            continue;
        }
        if (ph != HCQCL_PH_GPU)
            continue;
        if (hcq_signal_value(e->gpu_sig) < e->gpu_val) {
            /* Started (profiling queues record when): CL_RUNNING. */
            if (e->cbs && started_locked(e) && queue_callbacks_locked(e, CL_RUNNING))
                wake_notifier_locked();
            if (!device_lost(e)) {
                /* Nothing behind it on this timeline is done either. */
                if (si)
                    break;
                continue;
            }
            st = CL_OUT_OF_RESOURCES;
        } else if (!deps_final_locked(e, &st)) {
            /* The GPU waited for them, unless the command was aborted (its
             * gate opened early) or terminated: it has failed already,
             * once what its queue ran before it is final too (a clFinish
             * waits for the queue's last command only). */
            if (e->dep_status >= 0 || !implicit_final_locked(e)) {
                *deps_later = true;
                continue;
            }
            st = e->dep_status;
        }
        if (e->after_fn) {
            atomic_store(&e->phase, HCQCL_PH_AFTER);
            a[n++] = (struct act){ACT_AFTER, e, st};
        } else {
            finish_locked(e, st);
            a[n++] = (struct act){ACT_FINISHED, e, st};
        }
    }
    if (s->ngated && n < cap) {
        if (T.multipass && T.multipass != util_thread_self())
            T.gates_skipped = true;
        else
            n = collect_gated_locked(s, a, n, cap, deps_later);
    }
    return n;
}

/* Every stream, or only stream `only` (when below T.nstreams). */
static size_t collect_locked(struct act *a, size_t cap, unsigned only)
{
    size_t n = 0, before;
    bool deps_later = false;
    if (only < T.nstreams)
        return collect_stream_locked(only, a, 0, cap, &deps_later);
    do {
        before = n;
        deps_later = false;
        for (unsigned si = 0; si < T.nstreams && n < cap; si++)
            n = collect_stream_locked(si, a, n, cap, &deps_later);
    } while (deps_later && n > before && n < cap);
    return n;
}

static void finished_outside(cl_event e, cl_int status)
{
    /* Dependencies and resources are no longer needed once final. */
    release_deps(e);
    release_objs(e);
    if (e->release_fn) {
        void (*fn)(void *) = e->release_fn;
        e->release_fn = NULL;
        fn(e->release_arg);
    }
    if (status == CL_OUT_OF_RESOURCES && e->q)
        hcqcl_event_tell_lost(e->ctx, e->q);
    hcqcl_event_unref(e); /* the FIFO's reference */
}

void hcqcl_event_tell_lost(cl_context ctx, cl_command_queue q)
{
    if (!hcq_device_lost(q->hdev))
        return;
    /* Once per device of each context: "errors ... that occur at runtime
     * in this context". */
    cl_uint i = 0;
    while (i < ctx->num_devices && ctx->devices[i] != hcqcl_queue_device(q))
        i++;
    const uint64_t bit = 1ull << (i % 64);
    if (atomic_fetch_or(&ctx->lost_told, bit) & bit)
        return;
    /* The core names the cause (Xid and what it means). */
    char why[224], msg[256];
    hcq_device_fault(q->hdev, why, sizeof(why));
    snprintf(msg, sizeof(msg), "hcqcl: the device was lost: %s", why[0] ? why : "channel error or hang");
    hcqcl_context_notify(ctx, msg, NULL, 0);
}

/* Whether the pass decides another gate after the i-th action. */
static bool more_gates(const struct act *a, size_t i, size_t n)
{
    for (size_t k = i + 1; k < n; k++)
        if (a[k].kind == ACT_GATE)
            return true;
    return false;
}

/* Queues with gates decided and not yet flushed, each referenced; and
 * whether this thread holds T.multipass. */
struct deferred {
    cl_command_queue q[32];
    size_t n;
    bool multipass;
};

/* Let other threads decide gates again, and have the notifier look at
 * those they left meanwhile. */
static void multipass_drop(struct deferred *d)
{
    if (!d->multipass)
        return;
    d->multipass = false;
    pthread_mutex_lock(&T.lock);
    T.multipass = 0;
    if (T.gates_skipped) {
        T.gates_skipped = false;
        wake_notifier_locked();
    }
    pthread_mutex_unlock(&T.lock);
}

static void flush_deferred(struct deferred *d)
{
    for (size_t k = 0; k < d->n; k++) {
        hcqcl_queue_flush(d->q[k], true);
        hcqcl_queue_unref(d->q[k]);
    }
    d->n = 0;
}

/* Flush q now, or with the pass's last gate (defer): the gates a pass
 * decides on several queues are all decided before any of them is
 * submitted, so that a chain across queues is whole when the first
 * queue's settle links it (core queue.c, link_across). */
static void flush_gated(struct deferred *d, cl_command_queue q, bool defer)
{
    size_t k = 0;
    while (k < d->n && d->q[k] != q)
        k++;
    if (k == d->n && d->n < UTIL_ARRAY_SIZE(d->q)) {
        atomic_fetch_add_explicit(&q->internal, 1, memory_order_relaxed);
        d->q[d->n++] = q;
    } else if (k == d->n) {
        hcqcl_queue_flush(q, true); /* the list is full: now */
    }
    if (!defer)
        flush_deferred(d);
}

/* Run the actions a pass collected, outside the lock. d: the queues
 * whose gates are decided and not yet flushed; more: another pass follows
 * at once (this one was full), so the last gate's flush waits for it. */
static void run_acts(struct act *a, size_t n, struct deferred *d, bool more)
{
    /* Work decided to run goes to the GPU before any host work of the
     * pass (a gate's staging copy, a callback) can delay it. */
    for (size_t i = 0; i < n; i++) {
        cl_event e = a[i].ev;
        switch (a[i].kind) {
        case ACT_GATE:
            if (e->before_fn) {
                flush_deferred(d);
                e->before_fn(e->before_arg, a[i].status);
            }
            /* Its GPU part runs, or is dropped when a dependency of its
             * wait list failed; the work held behind it goes to the GPU
             * with the last gate the pass decides (one submission for a
             * chain behind one user event) or before host work of the
             * pass that comes first, or at the notifier's next flush
             * when an enqueue holds the queue's lock (whose own submission
             * may see it first). */
            hcq_q_hold_decide(e->hold, a[i].status >= 0);
            e->hold = NULL; /* the channel's now */
            atomic_store(&e->decided, true);
            hcqcl_queue_note_decided(e->q);
            flush_gated(d, e->q, more || more_gates(a, i, n));
            hcqcl_event_unref(e);
            break;
        case ACT_AFTER:
            /* Host work, maybe the application's (an SVM free's
             * callback), which may wait for a thread whose gates this
             * one would otherwise keep to itself. */
            flush_deferred(d);
            multipass_drop(d);
            e->after_fn(e->after_arg, a[i].status);
            pthread_mutex_lock(&T.lock);
            finish_locked(e, a[i].status);
            pthread_mutex_unlock(&T.lock);
            /* Dependents on the GPU wait for this release. */
            hcq_signal_set(e->own->sig, e->own_val);
            finished_outside(e, a[i].status);
            break;
        case ACT_FINISHED:
            multipass_drop(d); /* the same: a destructor callback */
            finished_outside(e, a[i].status);
            break;
        }
    }
}

/* One pass: settle what can be settled, run host work outside the lock.
 * Returns the number of events that moved. */
static size_t tracker_progress(void)
{
    /* Nothing tracked, nothing to do: a caller's own commands were tracked
     * before (its queue's lock orders them before this load), and a pass
     * of an empty tracker would only take the lock. */
    if (!atomic_load_explicit(&T.ntracked, memory_order_relaxed))
        return 0;
    /* A pass's gates are all decided before its first flush, and so are
     * those of the passes that follow a full one: a chain behind one user
     * event is linked whole (run_acts, flush_gated). */
    struct act a[128];
    struct deferred d = {.n = 0};
    const uintptr_t me = util_thread_self();
    size_t total = 0, n;
    do {
        /* Around it all: what a pass makes final it releases after. */
        const unsigned slot = hcqcl_cmd_release_begin();
        pthread_mutex_lock(&T.lock);
        n = collect_locked(a, UTIL_ARRAY_SIZE(a), UINT32_MAX);
        if (n == UTIL_ARRAY_SIZE(a) && !T.multipass) {
            T.multipass = me;
            d.multipass = true;
        }
        pthread_mutex_unlock(&T.lock);
        run_acts(a, n, &d, n == UTIL_ARRAY_SIZE(a));
        hcqcl_cmd_release_end(slot);
        total += n;
    } while (n == UTIL_ARRAY_SIZE(a));
    flush_deferred(&d);
    multipass_drop(&d);
    return total;
}

void hcqcl_events_progress(void) { tracker_progress(); }

void hcqcl_event_retire(cl_event e)
{
    /* Never waits for the lock: the notifier's pass does the same work. */
    if (pthread_mutex_trylock(&T.lock))
        return;
    /* Before anything is made final: a thread that sees it final sees
     * the stretch too. */
    const unsigned slot = hcqcl_cmd_release_begin();
    struct act a[8];
    struct deferred d = {.n = 0};
    size_t n = collect_locked(a, UTIL_ARRAY_SIZE(a), e->stream);
    pthread_mutex_unlock(&T.lock);
    run_acts(a, n, &d, false);
    hcqcl_cmd_release_end(slot);
}

/* Up to cap watched queues (hcqcl_event_watch_queue) from the from-th,
 * each referenced (internal) for the caller to unref: how many. */
static size_t watched_ref_locked(size_t from, cl_command_queue *wq, size_t cap)
{
    size_t nw = 0;
    for (size_t i = from; i < T.nheldq && nw < cap; i++) {
        atomic_fetch_add_explicit(&T.heldq[i]->internal, 1, memory_order_relaxed);
        wq[nw++] = T.heldq[i];
    }
    return nw;
}

/* Work a queue holds back (hcq_q_commit) goes to the GPU at the next
 * enqueue, flush or wait on that queue. A program that does none of them
 * — it polls memory a kernel writes, say — still sees its commands run:
 * the notifier submits work held for longer than this. */
#define HELD_MAX_NS 200000u

static void flush_held(void)
{
    const uint64_t now = util_now_ns();
    cl_event v[8];
    size_t n = 0;
    pthread_mutex_lock(&T.lock);
    /* A stream's commands are all of one queue: its last one stands for
     * them (held-back work is always the newest). */
    for (unsigned si = 0; si < T.nstreams && n < UTIL_ARRAY_SIZE(v); si++) {
        cl_event e = T.streams[si].last;
        cl_command_queue q = e ? e->q : NULL;
        /* Gated too: the work held in front of its gate (the commands it
         * may wait for) goes to the GPU; behind a closed gate it waits. */
        const int ph = q ? atomic_load(&e->phase) : HCQCL_PH_DONE;
        if (q && (ph == HCQCL_PH_GPU || ph == HCQCL_PH_GATED) &&
            atomic_load_explicit(&q->held, memory_order_relaxed) &&
            now - atomic_load_explicit(&q->held_since, memory_order_relaxed) >= HELD_MAX_NS) {
            hcqcl_event_ref(e); /* keeps e->q alive */
            v[n++] = e;
        }
    }
    /* The watched queues (hcqcl_event_watch_queue), referenced while in
     * the list: each is flushed when it held work too long and has its
     * ring of commands without events settled. */
    cl_command_queue wq[16];
    size_t nw = watched_ref_locked(0, wq, UTIL_ARRAY_SIZE(wq));
    pthread_mutex_unlock(&T.lock);
    for (size_t i = 0; i < n; i++) {
        hcqcl_queue_flush(v[i]->q, true);
        hcqcl_event_unref(v[i]);
    }
    for (size_t i = 0; i < nw; i++) {
        cl_command_queue q = wq[i];
        if (atomic_load_explicit(&q->held, memory_order_relaxed) &&
            now - atomic_load_explicit(&q->held_since, memory_order_relaxed) >= HELD_MAX_NS)
            hcqcl_queue_flush(q, true);
        hcqcl_lite_retire(q, true);
    }
    /* Let go of those with nothing held and nothing in the ring. `watched`
     * is cleared first: a command without an event that lands meanwhile
     * either is seen here or sees it cleared and puts q back. */
    cl_command_queue gone[16];
    size_t ngone = 0;
    pthread_mutex_lock(&T.lock);
    for (size_t i = 0; i < nw; i++) {
        cl_command_queue q = wq[i];
        atomic_store(&q->watched, false);
        bool keep = atomic_load(&q->held);
        if (!keep) {
            if (!util_lock_try(&q->lock)) {
                keep = true;
            } else {
                keep = hcqcl_lite_any_locked(q);
                util_unlock(&q->lock);
            }
        }
        if (keep) {
            atomic_store(&q->watched, true);
            continue;
        }
        for (size_t j = 0; j < T.nheldq; j++)
            if (T.heldq[j] == q) {
                T.heldq[j] = T.heldq[--T.nheldq];
                gone[ngone++] = q;
                break;
            }
    }
    pthread_mutex_unlock(&T.lock);
    for (size_t i = 0; i < nw; i++)
        hcqcl_queue_unref(wq[i]);
    for (size_t i = 0; i < ngone; i++)
        hcqcl_queue_unref(gone[i]);
}

void hcqcl_events_settle(void)
{
    tracker_progress();
    /* Queues with a ring of commands without events are all watched. */
    for (size_t from = 0;; from += 16) {
        cl_command_queue wq[16];
        pthread_mutex_lock(&T.lock);
        size_t nw = watched_ref_locked(from, wq, UTIL_ARRAY_SIZE(wq));
        pthread_mutex_unlock(&T.lock);
        for (size_t i = 0; i < nw; i++) {
            hcqcl_lite_retire(wq[i], false);
            hcqcl_queue_unref(wq[i]);
        }
        if (nw < UTIL_ARRAY_SIZE(wq))
            break;
    }
    /* The notifier may have made a command final, or taken a ring's
     * entries, and not yet released what they held. */
    (void)hcqcl_cmd_release_quiesce(1000000000ull);
}

void hcqcl_event_watch_queue(cl_command_queue q)
{
    pthread_mutex_lock(&T.lock);
    for (size_t i = 0; i < T.nheldq; i++)
        if (T.heldq[i] == q) {
            atomic_store(&q->watched, true);
            pthread_mutex_unlock(&T.lock);
            return;
        }
    if (T.nheldq == T.capheldq) {
        size_t cap = T.capheldq ? 2 * T.capheldq : 8;
        cl_command_queue *n = realloc(T.heldq, cap * sizeof(*n));
        if (!n) {
            /* Its work reaches the GPU, and its ring is settled, at its
             * next enqueue, flush or wait. */
            pthread_mutex_unlock(&T.lock);
            return;
        }
        T.heldq = n;
        T.capheldq = cap;
    }
    atomic_fetch_add_explicit(&q->internal, 1, memory_order_relaxed);
    T.heldq[T.nheldq++] = q;
    atomic_store(&q->watched, true);
    start_notifier_locked();
    if (T.idle)
        wake_notifier_locked();
    pthread_mutex_unlock(&T.lock);
}

/* Sleep on c (T.wake or T.done) for at most ns, T.lock held. */
static void cond_wait_ns(pthread_cond_t *c, uint64_t ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec += (long)(ns % 1000000000u);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(c, &T.lock, &ts);
}

/* With nothing tracked the notifier naps (1 ms) this many times before it
 * sleeps without a timeout: commands that come in bursts, settled by the
 * threads that enqueue them, then find it napping and need no wake-up (a
 * futex call per enqueue once the tracker runs empty between them). */
#define LINGER_NAPS 50u

static void *notifier_main(void *arg)
{
    (void)arg;
    uint64_t nap_ns = 20000;
    unsigned linger = 0;
    /* The event the tracker last waited on, and since when (its pointer
     * is only compared, never followed). */
    const void *watching = NULL;
    uint64_t watch_since = 0;
    bool watched_by_app = false;
    /* Since when nothing moved, and the next doorbell kick's delay. */
    uint64_t still_since = util_now_ns(), kick_next = 0;
    for (;;) {
        /* Before anything is looked at: a wake-up from here on ends the
         * naps and the GPU wait below. */
        const uint32_t seen = atomic_load(&T.woken);
        pthread_mutex_lock(&T.lock);
        while (!atomic_load_explicit(&T.ntracked, memory_order_relaxed) && !T.fire_first &&
               !T.nheldq) {
            if (linger < LINGER_NAPS) {
                linger++;
                cond_wait_ns(&T.wake, 1000000);
                continue;
            }
            T.idle = true;
            pthread_cond_wait(&T.wake, &T.lock);
            T.idle = false;
        }
        linger = 0;
        struct hcqcl_event_cb *cb = T.fire_first;
        T.fire_first = T.fire_last = NULL;
        pthread_mutex_unlock(&T.lock);
        /* Callbacks run here, with no hcqcl lock held. */
        while (cb) {
            struct hcqcl_event_cb *n = cb->next;
            cb->fn(cb->ev, cb->status, cb->data);
            hcqcl_event_unref(cb->ev);
            free(cb);
            cb = n;
        }
        if (tracker_progress()) {
            nap_ns = 20000;
            still_since = util_now_ns();
            kick_next = 0;
            continue;
        }
        if (nap_ns >= 80000u)
            flush_held();
        /* Nothing moved for a while: wait on the oldest GPU command in
         * the core, which also notices a lost device (a channel error)
         * that polling the value alone never would. Only where it is the
         * first to end: with commands on the GPU on two timelines
         * (channels, devices), either may end first, and a wait on one
         * would not see the other end (a callback on a short command
         * beside a long kernel fired up to 20 ms late: api_event_wake):
         * naps then. */
        if (nap_ns >= 1000000u) {
            cl_event g = NULL;
            unsigned busy = 0, ndevs = 0; /* timelines with a command on the GPU */
            struct hcq_device *devs[64];  /* their devices, each once */
            pthread_mutex_lock(&T.lock);
            for (unsigned si = 0; si < T.nstreams; si++)
                for (cl_event e = T.streams[si].first; e; e = e->next)
                    if (atomic_load(&e->phase) == HCQCL_PH_GPU) {
                        g = g ? g : e;
                        busy++;
                        unsigned d = 0;
                        while (e->q && d < ndevs && devs[d] != e->q->hdev)
                            d++;
                        if (e->q && d == ndevs && ndevs < UTIL_ARRAY_SIZE(devs))
                            devs[ndevs++] = e->q->hdev;
                        if (si) /* stream 0 mixes timelines: each counts */
                            break;
                    }
            if (busy > 1) {
                /* What a wait on g would do meanwhile, for every device
                 * with a command on the GPU: notice a channel error, ring
                 * a doorbell the GPU missed (each on the same schedule). */
                const uint64_t stalled = util_now_ns() - still_since;
                uint64_t next = kick_next;
                for (unsigned d = 0; d < ndevs; d++) {
                    next = kick_next;
                    hcq_device_watch(devs[d], stalled, &next);
                }
                kick_next = next;
                g = NULL;
            }
            /* An application thread already watches it: don't wake for
             * it too (each wake-up costs), nap longer instead. */
            if (g && atomic_load(&g->waiters))
                g = NULL, watched_by_app = true;
            if (g) {
                hcqcl_event_ref(g);
                T.gpu_wait_dev = g->q->hdev;
            }
            pthread_mutex_unlock(&T.lock);
            if (g) {
                /* Sleeps grow with the time this event has been watched;
                 * new work (a callback, a gate, a host step of a command
                 * on another device or channel) ends the wait. */
                if (g != watching) {
                    watching = g;
                    watch_since = util_now_ns();
                }
                int r = hcq_signal_wait_stop(g->gpu_sig, g->gpu_val, 20000000, watch_since,
                                             &T.woken, seen);
                pthread_mutex_lock(&T.lock);
                T.gpu_wait_dev = NULL;
                pthread_mutex_unlock(&T.lock);
                hcqcl_event_unref(g);
                if (r == -EINTR)
                    nap_ns = 20000; /* what woke it may end soon: look often */
                continue;
            }
        }
        /* Otherwise back off up to 1 ms, woken early by new work, after
         * which the naps start short again. */
        pthread_mutex_lock(&T.lock);
        if (!T.fire_first && atomic_load(&T.woken) == seen)
            cond_wait_ns(&T.wake, nap_ns);
        pthread_mutex_unlock(&T.lock);
        if (atomic_load(&T.woken) != seen)
            nap_ns = 20000;
        else
            nap_ns = UTIL_MIN(nap_ns * 2, watched_by_app ? 10000000u : 1000000u);
        watched_by_app = false;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Status and waits                                                     */
/* ------------------------------------------------------------------ */

bool hcqcl_event_settled(cl_event d, bool strict)
{
    if (atomic_load(&d->phase) == HCQCL_PH_DONE)
        return atomic_load(&d->status) >= 0;
    if (atomic_load(&d->phase) != HCQCL_PH_GPU || !atomic_load(&d->decided) ||
        d->dep_status < 0 || d->after_fn)
        return false;
    /* Still tracked under the lock (final events leave their stream), so
     * d->stream is its channel's (stream 0 mixes channels) and its
     * dependency list is whole. */
    pthread_mutex_lock(&T.lock);
    bool settled = atomic_load(&d->phase) == HCQCL_PH_GPU && clear_before_locked(d, true);
    for (size_t i = 0; settled && strict && i < d->ndeps; i++) {
        const cl_event p = d->deps[i];
        settled = atomic_load(&p->phase) == HCQCL_PH_DONE || p->gpu_sig == d->gpu_sig;
    }
    pthread_mutex_unlock(&T.lock);
    return settled;
}

bool hcqcl_events_gated(void)
{
    tracker_progress();
    pthread_mutex_lock(&T.lock);
    bool gated = T.ngated != 0;
    pthread_mutex_unlock(&T.lock);
    return gated;
}

cl_int hcqcl_event_status(cl_event e)
{
    if (atomic_load(&e->phase) != HCQCL_PH_DONE && e->q) {
        /* A status polled in a loop must move without a clFlush too. */
        hcqcl_queue_flush(e->q, true);
        tracker_progress();
    }
    cl_int st = atomic_load(&e->status);
    if (st == CL_SUBMITTED && e->q) {
        pthread_mutex_lock(&T.lock);
        if (atomic_load(&e->phase) != HCQCL_PH_DONE && started_locked(e)) {
            st = CL_RUNNING;
            /* The status seen here has its callbacks queued by then:
             * "called when the execution status ... changes to" CL_RUNNING. */
            if (queue_callbacks_locked(e, CL_RUNNING)) {
                start_notifier_locked();
                wake_notifier_locked();
            }
        } else if (atomic_load(&e->phase) == HCQCL_PH_DONE) {
            st = atomic_load(&e->status);
        }
        pthread_mutex_unlock(&T.lock);
    }
    return st;
}

/* What gated e waits for on the GPU: the first dependency still running
 * there, looked for down a chain of gated ones, referenced; or NULL (a
 * user event, a dependency being built, or all of them ended). Its end is
 * what the next tracker pass needs to open the gate. Under T.lock, e not
 * final (so its dependency list is whole). */
static cl_event gpu_dep_locked(cl_event e)
{
    for (unsigned depth = 0; depth < 32 && e; depth++) {
        cl_event next = NULL;
        for (size_t i = 0; i < e->ndeps; i++) {
            cl_event d = e->deps[i];
            const int ph = atomic_load(&d->phase);
            if (ph == HCQCL_PH_GPU && hcq_signal_value(d->gpu_sig) < d->gpu_val) {
                hcqcl_event_ref(d);
                return d;
            }
            if (ph == HCQCL_PH_GATED && !next)
                next = d;
        }
        e = next;
    }
    return NULL;
}

cl_int hcqcl_event_wait(cl_event e)
{
    const uint64_t since = util_now_ns();
    /* A transfer seen ending by this wait measures its rate; a launch,
     * its length. */
    bool learn = e->eta_learn && hcq_signal_value(e->gpu_sig) < e->gpu_val;
    atomic_fetch_add(&e->waiters, 1);
    /* The wait is an implicit flush of the event's queue. */
    if (e->q && atomic_load(&e->phase) != HCQCL_PH_DONE)
        hcqcl_queue_flush(e->q, false);
    for (;;) {
        if (e->q)
            tracker_progress();
        int ph = atomic_load(&e->phase);
        if (ph == HCQCL_PH_DONE) {
            atomic_fetch_sub(&e->waiters, 1);
            return atomic_load(&e->status);
        }
        if (ph == HCQCL_PH_GPU) {
            /* Spins briefly then sleeps in the core; the tracker pass
             * above turns the release into a final status. */
            if (hcq_signal_wait_eta(e->gpu_sig, e->gpu_val, 100000000, since, e->eta_ns,
                                    e->eta_spin) == 0 &&
                learn) {
                hcqcl_cmd_learn(e, util_now_ns());
                learn = false;
            }
            continue;
        }
        /* Gated behind a command without an event: watch its end, the
         * next pass opens the gate. */
        if (ph == HCQCL_PH_GATED && hcqcl_lite_pending(e)) {
            hcq_signal_wait_since(e->lite_sig, e->lite_val, 1000000, since);
            continue;
        }
        /* Gated behind a command still on the GPU (another channel): the
         * same, instead of the tracker's next round. */
        if (ph == HCQCL_PH_GATED) {
            pthread_mutex_lock(&T.lock);
            cl_event d = atomic_load(&e->phase) == HCQCL_PH_GATED ? gpu_dep_locked(e) : NULL;
            pthread_mutex_unlock(&T.lock);
            if (d) {
                hcq_signal_wait_since(d->gpu_sig, d->gpu_val, 1000000, since);
                hcqcl_event_unref(d);
                continue;
            }
        }
        pthread_mutex_lock(&T.lock);
        if (atomic_load(&e->phase) != HCQCL_PH_DONE)
            cond_wait_ns(&T.done, 1000000);
        pthread_mutex_unlock(&T.lock);
    }
}

/* CL_INVALID_EVENT_WAIT_LIST / CL_INVALID_CONTEXT rules shared by every
 * entry point that takes a wait list. */
cl_int hcqcl_wait_list_check(cl_context ctx, cl_uint num, const cl_event *wait_list)
{
    /* CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and
     * num_events_in_wait_list > 0, or not NULL and num is 0 */
    HCQCL_CHECK((wait_list == NULL) == (num == 0), CL_INVALID_EVENT_WAIT_LIST,
                "wait list %p with %u events", (const void *)wait_list, num);
    for (cl_uint i = 0; i < num; i++) {
        /* CL_INVALID_EVENT_WAIT_LIST if event objects in event_wait_list
         * are not valid events */
        HCQCL_CHECK(hcqcl_event_valid(wait_list[i]), CL_INVALID_EVENT_WAIT_LIST,
                    "wait_list[%u] is not an event", i);
        /* CL_INVALID_CONTEXT if the context of the command queue and of
         * the events in event_wait_list are not the same */
        HCQCL_CHECK(!ctx || wait_list[i]->ctx == ctx, CL_INVALID_CONTEXT,
                    "wait_list[%u] belongs to another context", i);
    }
    return CL_SUCCESS;
}

cl_int hcqcl_clWaitForEvents(cl_uint num_events, const cl_event *event_list)
{
    /* CL_INVALID_VALUE if num_events is zero or event_list is NULL */
    HCQCL_CHECK(num_events > 0 && event_list, CL_INVALID_VALUE, "empty event list");
    for (cl_uint i = 0; i < num_events; i++) {
        /* CL_INVALID_EVENT if event objects specified in event_list are
         * not valid event objects */
        HCQCL_CHECK(hcqcl_event_valid(event_list[i]), CL_INVALID_EVENT,
                    "event_list[%u] is not an event", i);
        /* CL_INVALID_CONTEXT if events specified in event_list do not
         * belong to the same context */
        HCQCL_CHECK(event_list[i]->ctx == event_list[0]->ctx, CL_INVALID_CONTEXT,
                    "event_list[%u] belongs to another context", i);
    }
    /* "If ... another application host thread is waiting for it in
     * clWaitForEvents, those ... host threads will continue to wait for the
     * event status to reach CL_COMPLETE or error, even after the
     * application has released the object": the wait holds each event. */
    for (cl_uint i = 0; i < num_events; i++)
        hcqcl_event_ref(event_list[i]);
    cl_int ret = CL_SUCCESS;
    for (cl_uint i = 0; i < num_events; i++) {
        /* CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution
         * status of any of the events in event_list is a negative value */
        if (hcqcl_event_wait(event_list[i]) < 0)
            ret = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    for (cl_uint i = 0; i < num_events; i++)
        hcqcl_event_unref(event_list[i]);
    return ret;
}

/* ------------------------------------------------------------------ */
/* Queries, retain/release                                              */
/* ------------------------------------------------------------------ */

cl_int hcqcl_clGetEventInfo(cl_event event, cl_event_info param_name, size_t param_value_size,
                            void *param_value, size_t *param_value_size_ret)
{
    /* CL_INVALID_EVENT if event is a not a valid event object */
    HCQCL_CHECK(hcqcl_event_valid(event), CL_INVALID_EVENT, "not an event");
    union {
        cl_command_queue q;
        cl_context c;
        cl_command_type t;
        cl_int i;
        cl_uint u;
    } v;
    size_t size;
    switch (param_name) {
    case CL_EVENT_COMMAND_QUEUE:
        v.q = event->q;
        size = sizeof(v.q);
        break;
    case CL_EVENT_CONTEXT:
        v.c = event->ctx;
        size = sizeof(v.c);
        break;
    case CL_EVENT_COMMAND_TYPE:
        v.t = event->type;
        size = sizeof(v.t);
        break;
    case CL_EVENT_COMMAND_EXECUTION_STATUS:
        v.i = hcqcl_event_status(event);
        size = sizeof(v.i);
        break;
    case CL_EVENT_REFERENCE_COUNT:
        v.u = atomic_load(&event->obj.refs);
        size = sizeof(v.u);
        break;
    default:
        /* CL_INVALID_VALUE if param_name is not valid */
        HCQCL_FAIL(CL_INVALID_VALUE, "param_name 0x%x", (unsigned)param_name);
    }
    return hcqcl_info_out(&v, size, param_value_size, param_value, param_value_size_ret);
}

cl_int hcqcl_clRetainEvent(cl_event event)
{
    /* CL_INVALID_EVENT if event is not a valid event object */
    HCQCL_CHECK(hcqcl_event_valid(event), CL_INVALID_EVENT, "not an event");
    /* An event the application released whose command has not finished
     * is still an event (a callback gets it, and may retain it): taken
     * back from 0, the applications' share comes back with it, which the
     * next release to 0 drops again. */
    if (atomic_fetch_add_explicit(&event->obj.refs, 1, memory_order_relaxed) == 0)
        hcqcl_event_ref(event);
    return CL_SUCCESS;
}

cl_int hcqcl_clReleaseEvent(cl_event event)
{
    /* CL_INVALID_EVENT if event is not a valid event object */
    HCQCL_CHECK(hcqcl_event_valid(event), CL_INVALID_EVENT, "not an event");
    bool last = false;
    /* CL_INVALID_EVENT if event is not a valid event object (released more often than retained) */
    HCQCL_CHECK(hcqcl_obj_release_held(&event->obj, &last), CL_INVALID_EVENT,
                "event %p released more often than retained", (void *)event);
    if (last)
        hcqcl_event_unref(event); /* the applications' share */
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* User events and callbacks                                            */
/* ------------------------------------------------------------------ */

cl_event hcqcl_clCreateUserEvent(cl_context context, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_event e = NULL;
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(context), err, CL_INVALID_CONTEXT, "not a context");
    e = hcqcl_event_new(context, NULL, CL_COMMAND_USER);
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK_GOTO(e, err, CL_OUT_OF_HOST_MEMORY, "event allocation");
    hcqcl_clRetainContext(context);
    /* The builder's internal reference becomes the application's share:
     * user events are never tracked. */
    atomic_store(&e->obj.refs, 1);
    atomic_store(&e->status, CL_SUBMITTED);
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return err == CL_SUCCESS ? e : NULL;
}

cl_int hcqcl_clSetUserEventStatus(cl_event event, cl_int execution_status)
{
    /* CL_INVALID_EVENT if event is not a valid user event object */
    HCQCL_CHECK(hcqcl_event_valid(event) && event->type == CL_COMMAND_USER && !event->q,
                CL_INVALID_EVENT, "not a user event");
    /* CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a
     * negative integer value */
    HCQCL_CHECK(execution_status == CL_COMPLETE || execution_status < 0, CL_INVALID_VALUE,
                "status %d", execution_status);
    pthread_mutex_lock(&T.lock);
    /* CL_INVALID_OPERATION if the execution_status for event has already
     * been changed by a previous call to clSetUserEventStatus */
    if (atomic_load(&event->phase) == HCQCL_PH_DONE) {
        pthread_mutex_unlock(&T.lock);
        HCQCL_FAIL(CL_INVALID_OPERATION, "status already set");
    }
    atomic_store(&event->status, execution_status);
    atomic_store(&event->phase, HCQCL_PH_DONE);
    /* The callbacks run on the notifier, which a process that has not
     * enqueued anything yet has not started. */
    if (queue_callbacks_locked(event, execution_status))
        start_notifier_locked();
    pthread_cond_broadcast(&T.done);
    /* Gated dependents start (or fail) on the notifier's next pass, now:
     * out of a nap, or of a wait on a long command elsewhere (which it
     * left only at its next look, up to 20 ms on: api_event_wake). */
    wake_notifier_locked();
    pthread_mutex_unlock(&T.lock);
    return CL_SUCCESS;
}

cl_int hcqcl_clSetEventCallback(cl_event event, cl_int command_exec_callback_type,
                                void(CL_CALLBACK *pfn_notify)(cl_event, cl_int, void *),
                                void *user_data)
{
    /* CL_INVALID_EVENT if event is not a valid event object */
    HCQCL_CHECK(hcqcl_event_valid(event), CL_INVALID_EVENT, "not an event");
    /* CL_INVALID_VALUE if pfn_event_notify is NULL or if
     * command_exec_callback_type is not CL_SUBMITTED, CL_RUNNING, or
     * CL_COMPLETE */
    HCQCL_CHECK(pfn_notify, CL_INVALID_VALUE, "pfn_notify is NULL");
    HCQCL_CHECK(command_exec_callback_type == CL_SUBMITTED ||
                    command_exec_callback_type == CL_RUNNING ||
                    command_exec_callback_type == CL_COMPLETE,
                CL_INVALID_VALUE, "callback type %d", command_exec_callback_type);
    struct hcqcl_event_cb *cb = calloc(1, sizeof(*cb));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK(cb, CL_OUT_OF_HOST_MEMORY, "callback allocation");
    cb->when = command_exec_callback_type;
    cb->ev = event;
    cb->fn = pfn_notify;
    cb->data = user_data;
    cl_int now = hcqcl_event_status(event);
    pthread_mutex_lock(&T.lock);
    cb->next = event->cbs;
    event->cbs = cb;
    /* Already reached: fire at once (from the notifier). A final status
     * is re-read under the lock so a concurrent finish can't lose it. */
    if (atomic_load(&event->phase) == HCQCL_PH_DONE)
        now = atomic_load(&event->status);
    if (queue_callbacks_locked(event, now)) {
        start_notifier_locked();
        wake_notifier_locked();
    } else if (event->q) {
        /* To come: the notifier looks for it soon, out of a long nap or
         * a wait on another command (api_event_wake). */
        wake_notifier_locked();
    }
    pthread_mutex_unlock(&T.lock);
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Profiling                                                            */
/* ------------------------------------------------------------------ */

/* How long a profiling query waits for a kernel's END to land after the
 * release that completed the event (nanoseconds, not microseconds, on a
 * GPU): past it the timestamp is read as it is. */
#define PROFILE_END_WAIT_NS 1000000000ull

/* The event's four times in the host clock, computed once so every
 * query of one event agrees. */
/* GPU timestamps to the host clock through one correlation pair (g, h),
 * read by the caller before taking the tracker's lock (hcq_device_timer:
 * a few register reads; 0, 0 when there is none). */
static void profile_locked(cl_event e, uint64_t g, uint64_t h)
{
    uint64_t queued = e->t_queued, submit = UTIL_MAX(e->t_submit, queued);
    const int64_t shift = (int64_t)h - (int64_t)g;
    const uint64_t gs = hcq_signal_timestamp(e->start->sig), ge = hcq_signal_timestamp(e->end->sig);
    /* The length is the GPU's own (two timestamps of one clock); only where
     * it sits in the host clock depends on the pair, which is only as exact
     * as a register read across the bus. It is placed where the pair puts
     * it, moved as a whole into what causality allows: started after it
     * was submitted, ended before the host saw it end. */
    const uint64_t seen = UTIL_MAX(e->t_seen, submit);
    const uint64_t dur = UTIL_MIN(ge > gs ? ge - gs : 0, seen - submit);
    uint64_t start = (uint64_t)((int64_t)gs + shift);
    start = UTIL_MIN(UTIL_MAX(start, submit), seen - dur);
    const uint64_t end = start + dur;
    e->prof[0] = queued;
    e->prof[1] = submit;
    e->prof[2] = start;
    e->prof[3] = end;
    __atomic_store_n(&e->prof_ready, true, __ATOMIC_RELAXED);
}

cl_int hcqcl_clGetEventProfilingInfo(cl_event event, cl_profiling_info param_name,
                                     size_t param_value_size, void *param_value,
                                     size_t *param_value_size_ret)
{
    /* CL_INVALID_EVENT if event is a not a valid event object */
    HCQCL_CHECK(hcqcl_event_valid(event), CL_INVALID_EVENT, "not an event");
    /* CL_INVALID_VALUE if param_name is not valid */
    HCQCL_CHECK(param_name >= CL_PROFILING_COMMAND_QUEUED &&
                    param_name <= CL_PROFILING_COMMAND_COMPLETE,
                CL_INVALID_VALUE, "param_name 0x%x", (unsigned)param_name);
    /* CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE
     * flag is not set for the command-queue, if the execution status of
     * the command identified by event is not CL_COMPLETE or if event is a
     * user event object */
    HCQCL_CHECK(event->q && (event->q->props & CL_QUEUE_PROFILING_ENABLE) && event->start &&
                    event->end,
                CL_PROFILING_INFO_NOT_AVAILABLE, "no profiling for this event");
    HCQCL_CHECK(hcqcl_event_status(event) == CL_COMPLETE, CL_PROFILING_INFO_NOT_AVAILABLE,
                "event not complete");
    uint64_t g = 0, h = 0;
    if (!__atomic_load_n(&event->prof_ready, __ATOMIC_RELAXED)) {
        /* A kernel's END comes from its grid's QMD, beside the timeline's
         * release that completed the event, in no order the host can
         * count on (hcq_q_signal_grid): its timestamp is read once its
         * value is in. */
        (void)hcq_signal_wait(event->end->sig, event->end_val, PROFILE_END_WAIT_NS);
        if (hcq_device_timer(event->q->hdev, &g, &h) != 0)
            g = h = 0;
    }
    pthread_mutex_lock(&T.lock);
    if (!event->prof_ready)
        profile_locked(event, g, h);
    cl_ulong v = event->prof[UTIL_MIN(param_name - CL_PROFILING_COMMAND_QUEUED, 3u)];
    pthread_mutex_unlock(&T.lock);
    /* END and COMPLETE are the same: commands have no child commands. */
    return hcqcl_info_out(&v, sizeof(v), param_value_size, param_value, param_value_size_ret);
}

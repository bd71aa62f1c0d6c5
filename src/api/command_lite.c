/*
 * command_lite.c — in-order commands recorded without an event (obj.h,
 * "Commands without an event").
 *
 * Most enqueues in real programs ask for no event and wait for nothing:
 * nobody can ever ask about such a command by itself, only about the queue
 * (clFinish) or a later command (which follows it in order). Its end is a
 * value of its channel's timeline, and that is all later commands and
 * clFinish need: no event from the pool, no tracker, no callbacks. What it
 * uses (the kernel, the buffers) is retained in the queue's ring until the
 * timeline passes it.
 *
 * All of it under q->lock; objects are released with no lock held (a
 * buffer's release may run its destructor callbacks).
 */
#include "api/obj.h"

#include <errno.h>
#include <stdlib.h>

/* Retire the ring's entries the GPU has passed, oldest first, stopping at
 * the first it has not; their objects go to out[] (at most cap, whole
 * entries only; *full when that stopped it). Returns how many objects. */
static uint32_t retire_locked(cl_command_queue q, struct hcqcl_obj **out, uint32_t cap,
                              bool *full)
{
    const struct hcq_signal *sig = NULL;
    uint64_t done = 0;
    uint32_t n = 0;
    while (q->lite_tail != q->lite_head) {
        struct hcqcl_lite *l = &q->lite[q->lite_tail & (q->lite_cap - 1)];
        if (l->sig != sig) {
            sig = l->sig;
            done = hcq_signal_value(sig);
        }
        if (done < l->val)
            break;
        if (n + l->nobjs > cap) {
            *full = true;
            break;
        }
        for (uint32_t i = 0; i < l->nobjs; i++)
            out[n++] = l->objs[i];
        q->lite_tail++;
    }
    return n;
}

/* Objects released per pass; commands between two passes of an enqueue. */
enum { RETIRE_BATCH = 4 * HCQCL_LITE_OBJS, RETIRE_EVERY = 32 };

void hcqcl_lite_retire(cl_command_queue q, bool try)
{
    struct hcqcl_obj *objs[RETIRE_BATCH];
    bool full;
    do {
        full = false;
        if (!try)
            util_lock(&q->lock);
        else if (!util_lock_try(&q->lock))
            return;
        const unsigned slot = hcqcl_cmd_release_begin();
        uint32_t n = retire_locked(q, objs, RETIRE_BATCH, &full);
        util_unlock(&q->lock);
        hcqcl_cmd_objs_release(objs, n);
        hcqcl_cmd_release_end(slot);
    } while (full);
}

/* Wait until the GPU passed (sig, val), then retire what it passed. No
 * lock held; the work was submitted. The wait goes in slices with a
 * tracker pass before each, like an event's: the command may wait on the
 * GPU for a slot only the tracker sets (an after-hook's), and this may be
 * the notifier thread itself (a callback releasing its queue). */
static cl_int wait_and_retire(cl_command_queue q, const struct hcqcl_lite *l)
{
    const uint64_t since = util_now_ns();
    /* A launch with a known start seen ending by this wait: its length. */
    const bool learn = l->key && hcq_signal_value(l->sig) < l->val;
    int r;
    do {
        hcqcl_events_progress();
        r = hcq_signal_wait_eta(l->sig, l->val, 1000000, since, l->eta, l->spin);
    } while (r == -ETIMEDOUT);
    if (r == 0 && learn)
        hcqcl_ktimes_learn(q->dev, l->key, util_now_ns() - l->start);
    hcqcl_lite_retire(q, false);
    if (r) {
        hcqcl_event_tell_lost(q->ctx, q);
        return CL_OUT_OF_RESOURCES;
    }
    return CL_SUCCESS;
}

/* A previous command on another channel, or not yet done, that a command
 * without an event can follow with a GPU-side wait: its end is a signal
 * of this device and it waits for nothing only the host ends. */
static bool orderable(cl_command_queue q, cl_event last)
{
    if (atomic_load(&last->phase) == HCQCL_PH_DONE)
        return true;
    /* Not one whose end waits for an after-hook the tracker runs: what
     * follows it must know that (hook_wait), and an eventless command
     * would not pass it on. */
    return last->sig && last->sig->dev == q->hdev && !last->after_fn && !last->hook_wait &&
           atomic_load(&last->phase) == HCQCL_PH_GPU &&
           (!last->host_wait || hcqcl_event_settled(last, true));
}

cl_int hcqcl_lite_order_locked(cl_command_queue q, struct hcq_queue *hq, cl_event e)
{
    if (!q->lite_sig)
        return CL_SUCCESS;
    /* On the same channel, without an event to note it in, nothing to do:
     * the channel runs in order. Not reading the timeline here saves a
     * line the GPU writes at every release. */
    if (!e && q->lite_sig == hcq_queue_timeline(hq))
        return CL_SUCCESS;
    if (hcq_signal_value(q->lite_sig) >= q->lite_val) {
        q->lite_sig = NULL; /* it ended: nothing left to order after */
        return CL_SUCCESS;
    }
    if (e) {
        e->lite_sig = q->lite_sig;
        e->lite_val = q->lite_val;
    }
    if (q->lite_sig == hcq_queue_timeline(hq))
        return CL_SUCCESS;
    return hcq_q_wait(hq, q->lite_sig, q->lite_val) < 0 ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
}

/* Double the ring (entries keep their places modulo the new size);
 * false when it is at its largest or no memory could be had. */
static bool grow_locked(cl_command_queue q)
{
    uint32_t cap = q->lite_cap ? 2 * q->lite_cap : HCQCL_LITE_MIN;
    if (cap > HCQCL_LITE_MAX)
        return false;
    struct hcqcl_lite *n = malloc(cap * sizeof(*n));
    if (!n)
        return false;
    for (uint32_t i = q->lite_tail; i != q->lite_head; i++)
        n[i & (cap - 1)] = q->lite[i & (q->lite_cap - 1)];
    free(q->lite);
    q->lite = n;
    q->lite_cap = cap;
    return true;
}

static bool lite_begin_locked(cl_command_queue q, enum hcq_engine engine,
                              struct hcqcl_obj *const *objs, uint32_t nobjs,
                              struct hcqcl_lite_cmd *lc, bool may_wait)
{
    for (;; util_lock(&q->lock)) {
        /* Looked at again under the lock: clSetCommandQueueProperty
         * (commands it left from out-of-order execution take the
         * tracked path, which waits for them). */
        struct hcqcl_chan *ch = q->props & HCQCL_LITE_EXCLUDED || q->nsince
                                    ? NULL
                                    : hcqcl_cmd_channel_locked(q, engine);
        cl_event last = q->last;
        if (!ch || hcqcl_chan_blocked(ch) || (last && !orderable(q, last))) {
            util_unlock(&q->lock);
            return false;
        }
        if (q->lite_head - q->lite_tail < q->lite_cap || grow_locked(q)) {
            *lc = (struct hcqcl_lite_cmd){
                .q = q, .chan = ch, .hq = ch->hq, .objs = objs, .nobjs = nobjs};
            const struct hcq_signal *own = hcq_queue_timeline(ch->hq);
            bool wait_last = last && atomic_load(&last->phase) != HCQCL_PH_DONE && last->sig != own;
            bool wait_lite = q->lite_sig && q->lite_sig != own;
            lc->waits = wait_last || wait_lite;
            if (lc->waits)
                hcqcl_queue_flush_locked(q, ch->hq);
            if ((wait_last && hcq_q_wait(ch->hq, last->sig, last->val) < 0) ||
                hcqcl_lite_order_locked(q, ch->hq, NULL) != CL_SUCCESS) {
                util_unlock(&q->lock);
                return false;
            }
            /* The newest command in the ring keeps the same objects (a
             * loop launching one kernel): it hands its references on
             * instead, as it ends first. Otherwise retained now, before
             * the caller writes the launch: these locked instructions
             * would otherwise wait for those write-combined stores to
             * drain (util.h, util_lock). */
            const struct hcqcl_lite *prev =
                q->lite_head != q->lite_tail
                    ? &q->lite[(q->lite_head - 1) & (q->lite_cap - 1)]
                    : NULL;
            lc->moved = prev && prev->nobjs == nobjs;
            for (uint32_t i = 0; i < nobjs && lc->moved; i++)
                lc->moved = prev->objs[i] == objs[i];
            for (uint32_t i = 0; i < nobjs && !lc->moved; i++)
                hcqcl_cmd_obj_retain(objs[i]);
            return true;
        }
        /* The ring is full: wait for its oldest command, then look again. */
        const struct hcqcl_lite old = q->lite[q->lite_tail & (q->lite_cap - 1)];
        hcqcl_queue_flush_locked(q, NULL);
        util_unlock(&q->lock);
        if (!may_wait || wait_and_retire(q, &old) != CL_SUCCESS)
            return false;
    }
}

bool hcqcl_lite_begin(cl_command_queue q, enum hcq_engine engine, struct hcqcl_obj *const *objs,
                      uint32_t nobjs, struct hcqcl_lite_cmd *lc)
{
    if (q->props & HCQCL_LITE_EXCLUDED)
        return false;
    util_lock(&q->lock);
    return lite_begin_locked(q, engine, objs, nobjs, lc, true);
}

bool hcqcl_lite_begin_locked(cl_command_queue q, enum hcq_engine engine,
                             struct hcqcl_obj *const *objs, uint32_t nobjs,
                             struct hcqcl_lite_cmd *lc)
{
    return lite_begin_locked(q, engine, objs, nobjs, lc, false);
}

cl_int hcqcl_lite_end(struct hcqcl_lite_cmd *lc, bool ok)
{
    cl_command_queue q = lc->q;
    const uint32_t nobjs = lc->nobjs;
    struct hcq_queue *hq = lc->hq;
    uint64_t v;
    int held = -1;
    /* Without its release nothing could tell when the command ended (the
     * device is lost, or its ring stopped moving): it fails as it is. */
    if (hcq_q_signal_next(hq, &v) == 0)
        held = ok ? hcq_q_commit(hq) : hcq_q_submit(hq);
    if (held < 0) {
        /* lc->objs may be the queue's remembered launch, which another
         * thread may overwrite once the lock is let go: a copy. */
        struct hcqcl_obj *objs[HCQCL_LITE_OBJS];
        const uint32_t n = lc->moved ? 0 : nobjs;
        for (uint32_t i = 0; i < n; i++)
            objs[i] = lc->objs[i];
        util_unlock(&q->lock);
        hcqcl_cmd_objs_release(objs, n);
        return CL_OUT_OF_RESOURCES;
    }
    if (lc->moved) /* the entry before hands its references to this one */
        q->lite[(q->lite_head - 1) & (q->lite_cap - 1)].nobjs = 0;
    struct hcqcl_lite *l = &q->lite[q->lite_head++ & (q->lite_cap - 1)];
    l->sig = hcq_queue_timeline(hq);
    l->val = v;
    l->key = ok ? lc->key : 0; /* a launch that failed to record teaches nothing */
    l->start = l->eta = l->spin = 0;
    if (l->key) {
        l->start = util_now_ns();
        hcqcl_ktimes_expect(q->dev, l->key, l->start, &l->eta, &l->spin);
    }
    l->nobjs = nobjs;
    for (uint32_t i = 0; i < nobjs; i++)
        l->objs[i] = lc->objs[i]; /* retained by hcqcl_lite_begin */
    q->lite_sig = l->sig;
    q->lite_val = v;
    /* It follows the previous last command (same channel, or it waited). */
    cl_event drop = q->last;
    q->last = NULL;
    /* Transfers after it cannot know when they start. */
    lc->chan->chain_known = false;
    if (held)
        hcqcl_queue_note_held(q);
    /* The notifier flushes what is held and settles the ring. Its list
     * drops a queue after clearing `watched`, then seeing nothing held and,
     * under q->lock, an empty ring (event.c, flush_held). Either it takes
     * q->lock after this section and sees this command in the ring, or
     * before it, and then this load sees `watched` cleared (the lock
     * orders them; the stores of `held` and `watched` alone would not). */
    const bool watch = !atomic_load(&q->watched);
    /* Settle now and then, not on every command: the timeline is a line
     * the GPU writes, a cache miss to read. */
    struct hcqcl_obj *done[RETIRE_BATCH];
    uint32_t ndone = 0;
    bool full = false;
    const bool retire = (q->lite_head - q->lite_tail) % RETIRE_EVERY == 0;
    const unsigned slot = retire ? hcqcl_cmd_release_begin() : 0;
    if (retire)
        ndone = retire_locked(q, done, RETIRE_BATCH, &full);
    util_unlock(&q->lock);
    if (watch)
        hcqcl_event_watch_queue(q);
    if (drop)
        hcqcl_event_unref(drop);
    hcqcl_cmd_objs_release(done, ndone);
    if (retire)
        hcqcl_cmd_release_end(slot);
    return ok ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
}

cl_int hcqcl_lite_drain(cl_command_queue q)
{
    cl_int err = CL_SUCCESS;
    util_lock(&q->lock);
    const uint32_t head = q->lite_head;
    bool any = q->lite_tail != head;
    /* Oldest first: entries of different channels end in any order. */
    while (err == CL_SUCCESS && (int32_t)(head - q->lite_tail) > 0) {
        const struct hcqcl_lite l = q->lite[q->lite_tail & (q->lite_cap - 1)];
        hcqcl_queue_flush_locked(q, NULL);
        util_unlock(&q->lock);
        err = wait_and_retire(q, &l);
        util_lock(&q->lock);
    }
    if (err == CL_SUCCESS && q->lite_sig && hcq_signal_value(q->lite_sig) >= q->lite_val)
        q->lite_sig = NULL;
    util_unlock(&q->lock);
    /* Commands with events that these followed are done too: make them
     * final before clFinish returns. */
    if (any)
        hcqcl_events_progress();
    return err;
}

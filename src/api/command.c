/*
 * command.c — the command machinery every enqueue builds on (obj.h,
 * "The command machinery"): dependencies, channel choice, host hooks,
 * completion signals, submission.
 *
 * A dependency becomes a GPU-side wait when its event has a signal on this
 * queue's device (other channel, other queue, other context on the same
 * GPU); same-channel dependencies need nothing (a channel runs in order).
 * Dependencies the GPU cannot wait for (user events, commands of another
 * GPU), and those that may still fail because they wait for such an event
 * themselves (host_wait), put the command behind a gate: a hold on its
 * channel (hcq_q_hold), so that its GPU part reaches the GPU only once the
 * tracker saw every dependency final (event.c), and is dropped when one
 * of its wait list failed: "a negative integer value causes all enqueued
 * commands that wait on this user event to be terminated"
 * (clSetUserEventStatus).
 */
#include "api/obj.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>

/* A channel is blocked while the last command recorded on it that waited
 * on the host (a user event, another GPU) has not ended, nor settled to
 * run with nothing unsubmitted in its way: everything recorded behind it
 * waits too. */
bool hcqcl_chan_blocked(const struct hcqcl_chan *ch)
{
    return ch->blocker && atomic_load(&ch->blocker->phase) != HCQCL_PH_DONE &&
           !hcqcl_event_settled(ch->blocker, true);
}

static bool chan_open(cl_command_queue q, struct hcqcl_chan *ch, enum hcq_engine engine)
{
    if (ch->hq)
        return true;
    if (hcq_queue_create(q->hdev, engine, &ch->hq) == 0)
        return true;
    ch->hq = NULL;
    return false;
}

/* Channel for a command. In order: the engine's first channel (order is
 * kept anyway). Out of order: an unblocked channel, opening more (up to
 * HCQCL_QUEUE_CHANS) when all are blocked, so a command held back by the
 * host does not hold back independent ones; copies alternate between two
 * channels so they overlap. When every channel is blocked, the command
 * queues behind one of them. Called with q->lock held. */
struct hcqcl_chan *hcqcl_cmd_channel_locked(cl_command_queue q, enum hcq_engine engine)
{
    struct hcqcl_chan *ch = q->chans[engine];
    if (!(q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        return chan_open(q, &ch[0], engine) ? &ch[0] : NULL;
    unsigned first = 0;
    if (engine == HCQ_ENGINE_COPY) {
        first = q->next_copy;
        q->next_copy ^= 1;
    }
    struct hcqcl_chan *fallback = NULL;
    for (unsigned k = 0; k < HCQCL_QUEUE_CHANS; k++) {
        /* The copy pair first (this copy's turn, then the other), then
         * the rest in order. */
        struct hcqcl_chan *c = &ch[k < 2 ? first ^ k : k];
        bool existed = c->hq != NULL;
        /* Open a new channel only for the copy pair or when needed. */
        if (!existed && fallback == NULL && k > 0 && !(engine == HCQ_ENGINE_COPY && k < 2))
            continue;
        if (!existed && !chan_open(q, c, engine))
            continue;
        if (!hcqcl_chan_blocked(c))
            return c;
        if (!fallback)
            fallback = c;
    }
    /* All open channels blocked: open one more if there is room. */
    for (unsigned k = 0; k < HCQCL_QUEUE_CHANS; k++)
        if (!ch[k].hq && chan_open(q, &ch[k], engine))
            return &ch[k];
    return fallback;
}

static cl_int gate(struct hcqcl_cmd *cmd)
{
    cl_event e = cmd->ev;
    if (cmd->gated)
        return CL_SUCCESS;
    if (hcq_q_hold(cmd->hq, &e->hold) < 0)
        return CL_OUT_OF_RESOURCES;
    cmd->gated = true;
    e->host_wait = true;
    /* Its dependencies' completion must reach the tracker promptly: it
     * decides the hold (event.c, finish_locked). */
    for (size_t i = 0; i < e->ndeps; i++)
        atomic_store(&e->deps[i]->gates_others, true);
    return CL_SUCCESS;
}

/* A dependency the GPU cannot wait for by itself: a user event, or a
 * command of another GPU. */
static bool host_ended(const struct hcqcl_cmd *cmd, cl_event d)
{
    return !d->sig || d->sig->dev != cmd->q->hdev;
}

/* Such a dependency, or one that may still fail (it waits for such a one)
 * where the failure would pass on: the command then goes behind a gate.
 * Implicit order on the same channel needs neither (the channel runs in
 * order, a failure does not pass), nor does one that has been decided to
 * run since it was recorded (hcqcl_event_settled): a chain started behind
 * a user event is waited for on the GPU again once the event is set. */
static bool needs_gate(const struct hcqcl_cmd *cmd, cl_event d, bool fails, bool may_settle)
{
    if (host_ended(cmd, d))
        return true;
    return d->host_wait && (fails || d->sig != hcq_queue_timeline(cmd->hq)) &&
           !(may_settle && hcqcl_event_settled(d, false));
}

/* Record that the command depends on d (no GPU wait yet). Wait-list
 * dependencies (fails) pass their failure on; implicit ones (in-order
 * predecessor, barriers) only order, so one failed command does not fail
 * a queue for good. All wait-list dependencies are added before the
 * implicit ones. Called with q->lock held. */
static cl_int add_dep(struct hcqcl_cmd *cmd, cl_event d, bool fails)
{
    cl_event e = cmd->ev;
    if (atomic_load(&d->phase) == HCQCL_PH_DONE) {
        if (fails && atomic_load(&d->status) < 0)
            e->dep_status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
        return CL_SUCCESS;
    }
    /* A wait-list dependency known to fail already fails this command:
     * one terminated when it was enqueued, or decided at its gate to be.
     * Its dep_status is final once it is past its gate (read after the
     * phase, which its decision stores last). The GPU would not know. */
    if (fails) {
        const int ph = atomic_load(&d->phase);
        if (ph != HCQCL_PH_NEW && ph != HCQCL_PH_GATED && d->dep_status < 0)
            e->dep_status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    if (e->ndeps == e->capdeps) {
        size_t cap = e->capdeps * 2;
        cl_event *n = malloc(cap * sizeof(*n));
        if (!n)
            return CL_OUT_OF_HOST_MEMORY;
        for (size_t i = 0; i < e->ndeps; i++)
            n[i] = e->deps[i];
        if (e->deps != e->deps_inline)
            free(e->deps);
        e->deps = n;
        e->capdeps = cap;
    }
    hcqcl_event_ref(d);
    e->deps[e->ndeps++] = d;
    if (fails)
        e->nprop = e->ndeps;
    /* It waits on the host through d, unless d settled on this queue
     * (decided holds of its channels are submitted below, before this
     * command can wait for them inline). */
    if (host_ended(cmd, d) || (d->host_wait && !(d->q == cmd->q && hcqcl_event_settled(d, true))))
        e->host_wait = true;
    if (d->after_fn || d->hook_wait)
        e->hook_wait = true;
    return CL_SUCCESS;
}

/* The command waited on the GPU for d, another channel's command; held:
 * inside its hold, where the wait runs only if the command does. Its
 * event notes the first two such waits, which came before its end. */
static void note_wait(struct hcqcl_cmd *cmd, cl_event d, bool held)
{
    cl_event e = cmd->ev;
    for (unsigned k = 0; k < UTIL_ARRAY_SIZE(e->waited_sig); k++)
        if (!e->waited_sig[k]) {
            e->waited_sig[k] = d->sig;
            e->waited_val[k] = d->val;
            if (held)
                e->waited_held |= (uint8_t)(1u << k);
            return;
        }
}

/* Inside its hold, the command waits for d, another channel's command.
 * What d waited for on the GPU came before d's end: where that was this
 * channel's timeline, the channel's own grids up to that value need no
 * wait of their own (a gated chain across two queues, each command
 * waiting for the other's last, which waited for this one's). A wait d
 * recorded inside its own hold ran only if d ran: it counts where this
 * command is dropped when d is (d's failure passes on: dropped_with_d).
 * In front of a hold the own grids were waited for already
 * (hcq_q_after_own_grids). */
static void ordered_by(struct hcqcl_cmd *cmd, const struct hcq_signal *own, cl_event d,
                       bool dropped_with_d)
{
    if (d->sig != d->gpu_sig)
        return;
    for (unsigned k = 0; k < UTIL_ARRAY_SIZE(d->waited_sig); k++)
        if (d->waited_sig[k] == own && (!((d->waited_held >> k) & 1) || dropped_with_d))
            hcq_q_ordered_after(cmd->hq, d->waited_val[k]);
}

/* GPU-side waits for every recorded dependency, on the chosen channel:
 * nothing for the same channel (it runs in order), a semaphore wait for
 * other channels of the device; then the gate when any needs one. The
 * waits go first, in front of the hold: they run even when the command is
 * dropped, so that what follows it on the channel still comes after them.
 * In front of the first wait for another channel goes the wait for the
 * channel's own last grid, which the launch would record anyway: right
 * after a launch the channel then blocks on that grid's release, the
 * value the other channel's next command of a chain across two queues
 * waits for, and both go on when it comes. Blocked on the other
 * channel's later value instead, the ungated chain of two queues took
 * 420-566 us on H100s, against 304-375 in seven runs of nine (532-535
 * in the other two; docs/performance.md, "Chains across queues").
 * A gating dependency on another channel of the device is waited for
 * inside the hold: it reaches the GPU only once decided, and the tracker
 * may decide it as soon as that dependency was decided to run, not ended
 * (event.c, deps_decided_locked), so a chain across channels follows on
 * the GPU. */
static cl_int record_waits(struct hcqcl_cmd *cmd)
{
    cl_event e = cmd->ev;
    const struct hcq_signal *own = hcq_queue_timeline(cmd->hq);
    /* Whether a dependency gates is decided once (it may be settled
     * between two looks): bit i for the first 64, the rest without
     * looking whether they settled, which does not change. */
    uint64_t gates = 0;
    bool gated = false, own_first = false;
    for (size_t i = 0; i < e->ndeps; i++) {
        cl_event d = e->deps[i];
        if (needs_gate(cmd, d, i < e->nprop, i < 64)) {
            gated = true;
            if (i < 64)
                gates |= 1ull << i;
        } else if (d->sig != own) {
            if ((!own_first && hcq_q_after_own_grids(cmd->hq) < 0) ||
                hcq_q_wait(cmd->hq, d->sig, d->val) < 0)
                return CL_OUT_OF_RESOURCES;
            own_first = true;
            note_wait(cmd, d, false);
        }
    }
    if (!gated)
        return CL_SUCCESS;
    cl_int err = gate(cmd);
    for (size_t i = 0; i < e->ndeps && err == CL_SUCCESS; i++) {
        cl_event d = e->deps[i];
        const bool gates_i = i < 64 ? (gates >> i) & 1 : needs_gate(cmd, d, i < e->nprop, false);
        if (gates_i && !host_ended(cmd, d) && d->sig != own) {
            if (hcq_q_wait(cmd->hq, d->sig, d->val) < 0)
                err = CL_OUT_OF_RESOURCES;
            else {
                note_wait(cmd, d, true);
                ordered_by(cmd, own, d, i < e->nprop);
            }
        }
    }
    return err;
}

/* The command waits on the host: later independent commands of an
 * out-of-order queue should avoid its channel. */
static void set_blocker(struct hcqcl_cmd *cmd)
{
    cl_event e = cmd->ev, old = cmd->chan->blocker;
    if (old == e)
        return;
    hcqcl_event_ref(e);
    cmd->chan->blocker = e;
    if (old) /* cannot be the last reference to q: e holds one */
        hcqcl_event_unref(old);
}

cl_int hcqcl_cmd_begin_ex(cl_command_queue q, cl_command_type type, enum hcq_engine engine,
                          cl_uint num_events, const cl_event *wait_list, bool all_previous,
                          bool barrier, struct hcqcl_cmd *cmd)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    cl_int err = hcqcl_wait_list_check(q->ctx, num_events, wait_list);
    if (err != CL_SUCCESS)
        return err;
    /* Work this command waits for on other queues must reach the GPU
     * (a GPU-side wait for held-back work would wait for the next flush
     * of that queue). Their locks are taken one at a time, before ours. */
    for (cl_uint i = 0; i < num_events; i++) {
        cl_command_queue wq = wait_list[i]->q;
        if (wq && wq != q)
            hcqcl_queue_flush(wq, false);
    }
    cl_event e = hcqcl_event_new(q->ctx, q, type);
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK(e, CL_OUT_OF_HOST_MEMORY, "event allocation");
    atomic_fetch_add_explicit(&q->internal, 1, memory_order_relaxed);
    *cmd = (struct hcqcl_cmd){.q = q, .ev = e, .barrier = barrier, .all_previous = all_previous};
    bool profiling = q->props & CL_QUEUE_PROFILING_ENABLE;
    if (profiling)
        e->t_queued = util_now_ns();

    util_lock(&q->lock);
    for (cl_uint i = 0; i < num_events && err == CL_SUCCESS; i++)
        err = add_dep(cmd, wait_list[i], true);
    bool ooo = q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    /* In order: the previous command. Out of order: the last barrier. */
    if (err == CL_SUCCESS && q->last)
        err = add_dep(cmd, q->last, false);
    /* Out of order, a barrier: every command since the last one. In
     * order, the same for commands enqueued out of order by another
     * thread while the mode changed (clSetCommandQueueProperty): they
     * stay on record until one command waited for them. */
    if (ooo ? all_previous : q->nsince != 0)
        for (size_t i = 0; i < q->nsince && err == CL_SUCCESS; i++)
            err = add_dep(cmd, q->since[i], false);
    if (err == CL_SUCCESS) {
        cmd->chan = hcqcl_cmd_channel_locked(q, engine);
        cmd->hq = cmd->chan ? cmd->chan->hq : NULL;
        if (!cmd->hq)
            err = CL_OUT_OF_RESOURCES;
        /* Behind a command that waits on the host (every channel of the
         * engine was): so does this one, for what depends on it too. */
        else if (hcqcl_chan_blocked(cmd->chan))
            e->host_wait = true;
    }
    /* The same for this queue's other channels. */
    if (err == CL_SUCCESS)
        hcqcl_queue_flush_locked(q, cmd->hq);
    /* After this queue's newest command without an event. */
    if (err == CL_SUCCESS)
        err = hcqcl_lite_order_locked(q, cmd->hq, e);
    if (err == CL_SUCCESS)
        err = record_waits(cmd);
    if (err == CL_SUCCESS && e->host_wait)
        set_blocker(cmd);
    if (err == CL_SUCCESS && profiling) {
        e->start = hcqcl_queue_slot_get(q, &e->start_val);
        e->end = hcqcl_queue_slot_get(q, &e->end_val);
        if (!e->start || !e->end)
            err = CL_OUT_OF_RESOURCES;
    }
    if (err == CL_SUCCESS)
        return CL_SUCCESS;
    util_log_check(__func__, "dependencies recorded", hcqcl_error_name(err), "queue %p",
                   (void *)q);
    hcqcl_cmd_abort(cmd);
    return err;
}

cl_int hcqcl_cmd_begin(cl_command_queue q, cl_command_type type, enum hcq_engine engine,
                       cl_uint num_events, const cl_event *wait_list, struct hcqcl_cmd *cmd)
{
    return hcqcl_cmd_begin_ex(q, type, engine, num_events, wait_list, false, false, cmd);
}

struct hcq_queue *hcqcl_cmd_hq(struct hcqcl_cmd *cmd)
{
    cl_event e = cmd->ev;
    if (!cmd->started && e->start) {
        if (hcq_q_signal(cmd->hq, e->start->sig, e->start_val) < 0 && !cmd->err)
            cmd->err = CL_OUT_OF_RESOURCES;
    }
    cmd->started = true;
    return cmd->hq;
}

/* The command holds o until it is final; retain: take a reference for
 * that, else the caller's becomes the command's. */
static void hold_obj(struct hcqcl_cmd *cmd, struct hcqcl_obj *o, bool retain)
{
    cl_event e = cmd->ev;
    if (e->nobjs == e->capobjs) {
        size_t cap = e->capobjs * 2;
        struct hcqcl_obj **n = malloc(cap * sizeof(*n));
        if (!n) {
            /* Nothing to return an error through: the command then relies
             * on the application keeping the object alive. */
            util_log(UTIL_LOG_ERR, "api: cannot retain an object for a command");
            cmd->err = cmd->err ? cmd->err : CL_OUT_OF_HOST_MEMORY;
            if (!retain)
                hcqcl_cmd_objs_release(&o, 1);
            return;
        }
        for (size_t i = 0; i < e->nobjs; i++)
            n[i] = e->objs[i];
        if (e->objs != e->objs_inline)
            free(e->objs);
        e->objs = n;
        e->capobjs = cap;
    }
    e->objs[e->nobjs++] = o;
    if (retain)
        hcqcl_cmd_obj_retain(o);
}

void hcqcl_cmd_obj_retain(struct hcqcl_obj *o)
{
    if (o->type == HCQCL_TYPE_MEM)
        hcqcl_clRetainMemObject((cl_mem)o);
    else
        hcqcl_clRetainKernel((cl_kernel)o);
}

/* Threads between taking finished commands' objects and releasing them:
 * a slot per stretch, found from the thread's identity (no _Thread_local:
 * in a shared library each use is a call), or, when all are taken, a count
 * of the others. Taking one never waits: it may be taken with a lock
 * held that a slot's owner waits for. */
enum { RELEASERS = 64 };
static struct {
    _Atomic uintptr_t who; /* packed: quiesce reads eight lines */
} releasers[RELEASERS];
static _Atomic uint32_t releasers_more;

unsigned hcqcl_cmd_release_begin(void)
{
    const uintptr_t self = util_thread_self();
    const unsigned home = (unsigned)((self * 0x9e3779b97f4a7c15ull) >> 58) & (RELEASERS - 1);
    for (unsigned k = 0; k < RELEASERS; k++) {
        const unsigned i = (home + k) & (RELEASERS - 1);
        uintptr_t free_ = 0;
        if (!atomic_load_explicit(&releasers[i].who, memory_order_relaxed) &&
            atomic_compare_exchange_strong_explicit(&releasers[i].who, &free_, self,
                                                    memory_order_relaxed, memory_order_relaxed))
            return i;
    }
    atomic_fetch_add_explicit(&releasers_more, 1, memory_order_relaxed);
    return RELEASERS;
}

void hcqcl_cmd_release_end(unsigned slot)
{
    if (slot < RELEASERS)
        atomic_store_explicit(&releasers[slot].who, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(&releasers_more, 1, memory_order_release);
}

bool hcqcl_cmd_release_quiesce(uint64_t max_ns)
{
    /* A thread in a stretch of its own (a destructor callback releasing a
     * queue, say) waits for nobody: two such threads would wait for each
     * other. */
    const uintptr_t self = util_thread_self();
    for (unsigned i = 0; i < RELEASERS; i++)
        if (atomic_load_explicit(&releasers[i].who, memory_order_relaxed) == self)
            return false;
    /* A stretch runs destructor callbacks, which are the application's:
     * one that blocks is not waited for beyond max_ns. */
    const uint64_t t0 = util_now_ns();
    for (unsigned i = 0; i <= RELEASERS; i++)
        while (i < RELEASERS ? atomic_load_explicit(&releasers[i].who, memory_order_acquire) != 0
                             : atomic_load_explicit(&releasers_more, memory_order_acquire) != 0) {
            if (util_now_ns() - t0 > max_ns)
                return false;
            sched_yield();
        }
    return true;
}

void hcqcl_cmd_objs_release(struct hcqcl_obj *const *objs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (objs[i]->type == HCQCL_TYPE_MEM)
            hcqcl_clReleaseMemObject((cl_mem)objs[i]);
        else if (objs[i]->type == HCQCL_TYPE_KERNEL)
            hcqcl_clReleaseKernel((cl_kernel)objs[i]);
    }
}

void hcqcl_cmd_retain_mem(struct hcqcl_cmd *cmd, cl_mem m)
{
    hold_obj(cmd, (struct hcqcl_obj *)m, true);
}
void hcqcl_cmd_own_mem(struct hcqcl_cmd *cmd, cl_mem m)
{
    hold_obj(cmd, (struct hcqcl_obj *)m, false);
}
void hcqcl_cmd_retain_kernel(struct hcqcl_cmd *cmd, cl_kernel k)
{
    hold_obj(cmd, (struct hcqcl_obj *)k, true);
}

void hcqcl_cmd_submitted(struct hcqcl_cmd *cmd)
{
    if (cmd->q->props & CL_QUEUE_PROFILING_ENABLE && !cmd->ev->t_submit)
        cmd->ev->t_submit = util_now_ns();
}

cl_int hcqcl_cmd_before(struct hcqcl_cmd *cmd, hcqcl_cmd_fn fn, void *arg)
{
    cl_event e = cmd->ev;
    /* One hook per command (the enqueue code's invariant, not the app's). */
    HCQCL_CHECK(!e->before_fn, CL_INVALID_OPERATION, "second before-hook");
    e->before_fn = fn;
    e->before_arg = arg;
    if (cmd->gated)
        return CL_SUCCESS;
    cl_int st = e->dep_status;
    /* An earlier command without an event still running: the hook waits
     * for it as for a dependency. */
    if (hcqcl_lite_pending(e)) {
        cl_int err = gate(cmd);
        if (err == CL_SUCCESS)
            set_blocker(cmd);
        return err;
    }
    for (size_t i = 0; i < e->ndeps; i++) {
        cl_event d = e->deps[i];
        if (atomic_load(&d->phase) != HCQCL_PH_DONE) {
            cl_int err = gate(cmd);
            if (err == CL_SUCCESS)
                set_blocker(cmd);
            return err;
        }
        if (i < e->nprop && atomic_load(&d->status) < 0)
            st = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    /* Everything it waits for is done: run it now, on the caller. */
    e->before_fn = NULL;
    fn(arg, st);
    return CL_SUCCESS;
}

cl_int hcqcl_cmd_after(struct hcqcl_cmd *cmd, hcqcl_cmd_fn fn, void *arg)
{
    cl_event e = cmd->ev;
    HCQCL_CHECK(!e->after_fn, CL_INVALID_OPERATION, "second after-hook");
    e->after_fn = fn;
    e->after_arg = arg;
    return CL_SUCCESS;
}

cl_int hcqcl_cmd_on_release(struct hcqcl_cmd *cmd, void (*fn)(void *), void *arg)
{
    cl_event e = cmd->ev;
    HCQCL_CHECK(!e->release_fn, CL_INVALID_OPERATION, "second release-hook");
    e->release_fn = fn;
    e->release_arg = arg;
    return CL_SUCCESS;
}

/* Keep the out-of-order bookkeeping: every command since the last barrier
 * (for markers/barriers without a wait list and clFinish). Completed ones
 * are dropped when the array fills. Called with q->lock held. */
static bool since_add(cl_command_queue q, cl_event e, cl_event *drop, size_t *ndrop, size_t cap)
{
    if (q->nsince == q->capsince) {
        size_t keep = 0;
        for (size_t i = 0; i < q->nsince; i++) {
            cl_event s = q->since[i];
            if (atomic_load(&s->phase) == HCQCL_PH_DONE && *ndrop < cap)
                drop[(*ndrop)++] = s;
            else
                q->since[keep++] = s;
        }
        q->nsince = keep;
    }
    if (q->nsince == q->capsince) {
        size_t ncap = q->capsince ? q->capsince * 2 : 64;
        cl_event *n = realloc(q->since, ncap * sizeof(*n));
        if (!n)
            return false;
        q->since = n;
        q->capsince = ncap;
    }
    hcqcl_event_ref(e);
    q->since[q->nsince++] = e;
    return true;
}

void hcqcl_cmd_expect(struct hcqcl_cmd *cmd, enum hcqcl_rate k, uint64_t bytes)
{
    cmd->expect_kind = k;
    cmd->expect_bytes = bytes;
}

/* Transfers shorter than this are left to the usual spin, and teach no
 * rate (their time is mostly latency); the expected end is this fraction
 * of the time the rate predicts, so that a wait wakes before the end. */
#define EXPECT_MIN_BYTES (4u << 20)
/* A chain this long ends (its next transfer gets no expected end): bytes
 * x 1000 must not overflow (2^50 bytes, hours of copies at HBM speed). */
#define EXPECT_CHAIN_MAX (1ull << 50)
#define EXPECT_EARLY_NUM 7u
#define EXPECT_EARLY_DEN 8u

/* The command's expected end (hcqcl_cmd_expect), after it was committed;
 * idle: the channel had finished all before it. A transfer on an idle
 * channel starts a chain, and each transfer of the same kind recorded
 * behind it while nothing else ran there adds its bytes: the GPU runs
 * them back to back, so the chain's bytes over the rate give the end of
 * the last, and a wait that sees it end measures the rate over the whole
 * chain (a caller who enqueues ten copies and waits for the last one
 * teaches the rate as well as one who waits for each). The expected end
 * is EXPECT_EARLY of the time from now until the predicted end: the
 * further off, the earlier the wait wakes to spin. A command held back
 * (hcq_q_commit) is taken to start as if submitted: the next flush is
 * near, and an expected end that comes early only makes the wait spin
 * longer. Called with q->lock held. */
/* Whether e starts right after what came before it on its channel: each
 * dependency is on that channel's line or done. One on another channel,
 * or one whose end an after-hook sets (its sig is not the channel's
 * line), starts e only when that ends or the tracker has run the hook. */
static bool deps_on_line(cl_event e)
{
    for (size_t i = 0; i < e->ndeps; i++)
        if (e->deps[i]->sig != e->gpu_sig && atomic_load(&e->deps[i]->phase) != HCQCL_PH_DONE)
            return false;
    return true;
}

static void expect_locked(struct hcqcl_cmd *cmd, bool idle)
{
    struct hcqcl_chan *ch = cmd->chan;
    cl_event e = cmd->ev;
    /* A launch on an idle channel: its length as seen before. Transfers
     * behind it cannot know when they start. */
    if (cmd->expect_key && !cmd->gated && !e->lite_sig && deps_on_line(e)) {
        ch->chain_known = false;
        e->eta_key = cmd->expect_key;
        e->eta_start = util_now_ns();
        e->eta_learn = true;
        hcqcl_ktimes_expect(cmd->q->dev, e->eta_key, e->eta_start, &e->eta_ns, &e->eta_spin);
        return;
    }
    bool known = cmd->expect_bytes >= EXPECT_MIN_BYTES &&
                 cmd->expect_bytes <= EXPECT_CHAIN_MAX && !cmd->gated && !e->lite_sig &&
                 (idle || (ch->chain_known && ch->chain_kind == cmd->expect_kind &&
                           ch->chain_bytes + cmd->expect_bytes <= EXPECT_CHAIN_MAX)) &&
                 deps_on_line(e);
    ch->chain_known = known;
    if (!known)
        return;
    const uint64_t now = util_now_ns();
    if (idle) {
        ch->chain_start = now;
        ch->chain_bytes = 0;
        ch->chain_kind = cmd->expect_kind;
    }
    ch->chain_bytes += cmd->expect_bytes;
    e->eta_bytes = ch->chain_bytes;
    e->eta_kind = cmd->expect_kind;
    e->eta_start = ch->chain_start;
    e->eta_learn = true;
    const uint64_t rate = atomic_load_explicit(&cmd->q->dev->rate[cmd->expect_kind],
                                               memory_order_relaxed);
    if (!rate)
        return;
    const uint64_t end = ch->chain_start + ch->chain_bytes * 1000u / rate;
    if (end > now)
        e->eta_ns = now + (end - now) / EXPECT_EARLY_DEN * EXPECT_EARLY_NUM;
}

void hcqcl_cmd_learn(cl_event e, uint64_t done_ns)
{
    if (!e->eta_learn || !e->q || done_ns <= e->eta_start)
        return;
    if (e->eta_key) {
        hcqcl_ktimes_learn(e->q->dev, e->eta_key, done_ns - e->eta_start);
        return;
    }
    /* Bytes per microsecond. It follows a faster sample at once (3/4 of
     * it) and a slower one by a quarter: an estimate above the rate only
     * makes a wait spin longer (it wakes early), one below makes it wake
     * after the end, and a link shared for a while (both directions at
     * once) should not slow the next transfer alone. A wait that woke
     * only after the end measured its own wake-up, ~7/8 of the
     * prediction: a faster sample, so the next wait wakes earlier. */
    uint64_t m = e->eta_bytes * 1000u / (done_ns - e->eta_start);
    _Atomic uint64_t *r = &e->q->dev->rate[e->eta_kind];
    uint64_t old = atomic_load_explicit(r, memory_order_relaxed);
    uint64_t next = !old ? m : hcqcl_learn_blend(old, m, m > old);
    atomic_store_explicit(r, next, memory_order_relaxed);
}

cl_int hcqcl_cmd_end(struct hcqcl_cmd *cmd, bool blocking, cl_event *event_out)
{
    cl_command_queue q = cmd->q;
    cl_event e = cmd->ev;
    struct hcq_queue *hq = hcqcl_cmd_hq(cmd); /* records START if unused */
    cl_int err = cmd->err;
    /* A transfer with an expected length: has the channel finished
     * everything before it? (Only then: the timeline is a line the GPU
     * writes, a cache miss to read.) */
    const bool idle = cmd->expect_bytes >= EXPECT_MIN_BYTES &&
                      hcq_signal_value(hcq_queue_timeline(hq)) >= hcq_queue_last(hq);
    /* The gated GPU part ends here: its END and release always run. */
    if (!err && cmd->gated && hcq_q_hold_end(hq, e->hold) < 0)
        err = CL_OUT_OF_RESOURCES;
    /* Right after a kernel's launch, END is its grid's own end. */
    if (!err && e->end && hcq_q_signal_grid(hq, e->end->sig, e->end_val) < 0)
        err = CL_OUT_OF_RESOURCES;
    uint64_t v = 0;
    if (!err && hcq_q_signal_next(hq, &v) < 0)
        err = CL_OUT_OF_RESOURCES;
    if (!err && e->after_fn) {
        e->own = hcqcl_queue_slot_get(q, &e->own_val);
        if (!e->own)
            err = CL_OUT_OF_RESOURCES;
    }
    /* SUBMIT before the doorbell the commit may ring: the GPU can start
     * the command right after it (unless the command submitted work of
     * its own already: hcqcl_cmd_submitted). */
    if (q->props & CL_QUEUE_PROFILING_ENABLE && !e->t_submit)
        e->t_submit = util_now_ns();
    /* A blocking command is an implicit flush; any other may wait for
     * the next one while the GPU is busy. */
    int held = 0;
    if (!err && (held = blocking ? hcq_q_submit(hq) : hcq_q_commit(hq)) < 0)
        err = CL_OUT_OF_RESOURCES;
    /* Behind a hold not yet decided, a blocking command is held too. */
    if (!err && !held && hcq_q_held(hq))
        held = 1;
    if (err) {
        util_log_check(__func__, "command recorded", hcqcl_error_name(err), "queue %p",
                       (void *)q);
        hcqcl_cmd_abort(cmd);
        return err;
    }
    e->gpu_sig = hcq_queue_timeline(hq);
    e->gpu_val = v;
    if (!cmd->gated)
        atomic_store(&e->decided, true);
    expect_locked(cmd, idle);
    if (e->own) {
        e->sig = e->own->sig;
        e->val = e->own_val;
    } else {
        e->sig = e->gpu_sig;
        e->val = v;
    }
    if (held)
        hcqcl_queue_note_held(q);
    atomic_store(&e->status, CL_SUBMITTED);
    atomic_store(&e->phase, cmd->gated ? HCQCL_PH_GATED : HCQCL_PH_GPU);

    cl_event drop[16];
    size_t ndrop = 0;
    if (!(q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        if (q->last)
            drop[ndrop++] = q->last;
        hcqcl_event_ref(e);
        q->last = e;
        q->lite_sig = NULL; /* e follows it */
        /* And the commands left from out-of-order execution, if any. */
        for (size_t i = 0; i < q->nsince; i++)
            hcqcl_event_unref(q->since[i]);
        q->nsince = 0;
    } else if (cmd->barrier && cmd->all_previous) {
        if (q->last)
            drop[ndrop++] = q->last;
        hcqcl_event_ref(e);
        q->last = e;
        /* Everything before is now covered by the barrier. */
        for (size_t i = 0; i < q->nsince; i++)
            hcqcl_event_unref(q->since[i]);
        q->nsince = 0;
    } else if (cmd->barrier) {
        /* A barrier on a wait list orders what follows, but does not cover
         * the other commands before it: they stay on record. */
        if (q->last)
            drop[ndrop++] = q->last;
        hcqcl_event_ref(e);
        q->last = e;
    } else if (!since_add(q, e, drop, &ndrop, UTIL_ARRAY_SIZE(drop))) {
        /* Without the record a later barrier could miss this command:
         * make it the barrier instead (stricter, still correct). */
        if (q->last)
            drop[ndrop++] = q->last;
        hcqcl_event_ref(e);
        q->last = e;
    }
    hcqcl_event_track(e);
    util_unlock(&q->lock);
    for (size_t i = 0; i < ndrop; i++)
        hcqcl_event_unref(drop[i]);
    /* What the GPU finished on this channel is settled here, on the
     * thread that enqueues: the events go back to its pool warm in its
     * cache instead of bouncing through the notifier's. */
    hcqcl_event_retire(e);

    cl_int ret = CL_SUCCESS;
    if (blocking) {
        cl_int st = hcqcl_event_wait(e);
        if (st < 0)
            ret = st == CL_OUT_OF_RESOURCES ? CL_OUT_OF_RESOURCES
                                            : CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    /* "If event is NULL or the enqueue is unsuccessful, no event will be
     * created": a blocking call that failed hands none back. */
    if (event_out && ret == CL_SUCCESS) {
        atomic_store(&e->obj.refs, 1);
        hcqcl_event_ref(e); /* the application's share */
        *event_out = e;
    }
    hcqcl_event_unref(e); /* the builder's */
    return ret;
}

void hcqcl_cmd_abort(struct hcqcl_cmd *cmd)
{
    cl_event e = cmd->ev;
    /* Its hold is decided now, or the channel stalls for good: what was
     * recorded of the command is dropped (its span ends where recording
     * stopped, unless it had ended); the before-hook no longer runs. */
    if (e->hold) {
        (void)hcq_q_hold_end(cmd->hq, e->hold);
        hcq_q_hold_decide(e->hold, false);
        e->hold = NULL;
    }
    e->before_fn = NULL;
    e->dep_status = CL_OUT_OF_RESOURCES;
    /* What was recorded may run: a transfer after it cannot know its start. */
    if (cmd->chan)
        cmd->chan->chain_known = false;
    /* What was recorded may still run: finish the command like any other
     * (failed), so its resources go only after the GPU passed it. */
    uint64_t v;
    if (cmd->hq && hcq_q_signal_next(cmd->hq, &v) == 0 && hcq_q_submit(cmd->hq) == 0) {
        e->gpu_sig = hcq_queue_timeline(cmd->hq);
        e->gpu_val = v;
        e->sig = NULL; /* nothing may wait on it: it never reached the app */
        if (e->after_fn) {
            e->own = e->own ? e->own : hcqcl_queue_slot_get(cmd->q, &e->own_val);
            if (!e->own)
                e->after_fn = NULL;
        }
        atomic_store(&e->status, CL_SUBMITTED);
        atomic_store(&e->phase, HCQCL_PH_GPU);
        hcqcl_event_track(e);
        util_unlock(&cmd->q->lock);
        hcqcl_event_unref(e);
        hcqcl_event_tell_lost(cmd->q->ctx, cmd->q); /* when that is why */
        return;
    }
    /* Nothing could be recorded: release at once. Slots with releases
     * recorded but never submitted are not recycled (their late release
     * could move a reused slot backwards); the queue frees them. */
    e->start = e->end = e->own = NULL;
    atomic_store(&e->status, CL_OUT_OF_RESOURCES);
    atomic_store(&e->phase, HCQCL_PH_DONE);
    util_unlock(&cmd->q->lock);
    /* Now, not at its last reference: a channel's blocker may keep it,
     * and drop it with the queue locked (destructor callbacks there). */
    hcqcl_event_release_held(e);
    if (e->after_fn)
        e->after_fn(e->after_arg, CL_OUT_OF_RESOURCES);
    if (e->release_fn) {
        void (*fn)(void *) = e->release_fn;
        e->release_fn = NULL;
        fn(e->release_arg);
    }
    hcqcl_event_unref(e);
    hcqcl_event_tell_lost(cmd->q->ctx, cmd->q);
}

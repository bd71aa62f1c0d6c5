/*
 * queue.c — command queues: creation (1.x and 2.0+ forms), queries,
 * retain/release, flush/finish, and the queue's pool of signal slots.
 *
 * Lifetime: obj.refs counts application references; `internal` counts one
 * share for all of them plus one per live event of the queue, so the
 * channels stay until the last command that used them is gone.
 */
#include "api/obj.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool hcqcl_queue_valid(cl_command_queue q) { return hcqcl_obj_valid(q, HCQCL_TYPE_QUEUE); }
cl_context hcqcl_queue_context(cl_command_queue q) { return q->ctx; }
cl_device_id hcqcl_queue_device(cl_command_queue q) { return q->dev; }
cl_command_queue_properties hcqcl_queue_properties(cl_command_queue q) { return q->props; }

static const cl_command_queue_properties supported_props =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
static const cl_command_queue_properties valid_props =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_ON_DEVICE |
    CL_QUEUE_ON_DEVICE_DEFAULT;

/* ------------------------------------------------------------------ */
/* Signal slots                                                         */
/* ------------------------------------------------------------------ */

struct hcqcl_slot *hcqcl_queue_slot_get(cl_command_queue q, uint64_t *value)
{
    pthread_mutex_lock(&q->slot_lock);
    struct hcqcl_slot *s = q->free_slots;
    if (s) {
        q->free_slots = s->next;
    } else {
        s = calloc(1, sizeof(*s));
        if (s && hcq_signal_alloc(q->hdev, &s->sig) < 0) {
            free(s);
            s = NULL;
        }
        if (s) {
            s->value = hcq_signal_value(s->sig);
            s->all_next = q->all_slots;
            q->all_slots = s;
        }
    }
    if (s)
        *value = ++s->value;
    pthread_mutex_unlock(&q->slot_lock);
    if (!s)
        util_log(UTIL_LOG_ERR, "api: out of signal slots on queue %p", (void *)q);
    return s;
}

void hcqcl_queue_slot_put(cl_command_queue q, struct hcqcl_slot *s)
{
    pthread_mutex_lock(&q->slot_lock);
    s->next = q->free_slots;
    q->free_slots = s;
    pthread_mutex_unlock(&q->slot_lock);
}

/* ------------------------------------------------------------------ */
/* Creation and destruction                                             */
/* ------------------------------------------------------------------ */

static void queue_destroy(cl_command_queue q)
{
    q->obj.type = HCQCL_TYPE_NONE;
    for (unsigned e = 0; e < 2; e++)
        for (unsigned i = 0; i < HCQCL_QUEUE_CHANS; i++)
            if (q->chans[e][i].hq)
                hcq_queue_destroy(q->chans[e][i].hq); /* waits for what was submitted */
    /* Commands without events the release could not see end (a lost
     * device): their channels are gone, so is their use of the objects. */
    for (; q->lite_tail != q->lite_head; q->lite_tail++) {
        const struct hcqcl_lite *l = &q->lite[q->lite_tail & (q->lite_cap - 1)];
        hcqcl_cmd_objs_release(l->objs, l->nobjs);
    }
    free(q->lite);
    struct hcqcl_slot *s = q->all_slots;
    while (s) {
        struct hcqcl_slot *n = s->all_next;
        hcq_signal_free(s->sig);
        free(s);
        s = n;
    }
    free(q->since);
    pthread_mutex_destroy(&q->slot_lock);
    cl_context ctx = q->ctx;
    free(q);
    hcqcl_clReleaseContext(ctx);
}

void hcqcl_queue_unref(cl_command_queue q)
{
    if (atomic_fetch_sub_explicit(&q->internal, 1, memory_order_acq_rel) == 1)
        queue_destroy(q);
}

/* Shared by both creation entry points; props_array NULL for the 1.x one. */
static cl_command_queue queue_create(cl_context context, cl_device_id device,
                                     cl_command_queue_properties props,
                                     const cl_queue_properties *props_array, size_t nprops,
                                     cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q = NULL;
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(context), err, CL_INVALID_CONTEXT, "not a context");
    /* CL_INVALID_DEVICE if device is not a valid device or is not
     * associated with context */
    HCQCL_CHECK_GOTO(hcqcl_device_valid(device) && hcqcl_context_has_device(context, device),
                     err, CL_INVALID_DEVICE, "device %p not in context", (void *)device);
    /* CL_INVALID_VALUE if values specified in properties are not valid */
    HCQCL_CHECK_GOTO(!(props & ~valid_props), err, CL_INVALID_VALUE, "properties 0x%llx",
                     (unsigned long long)props);
    /* CL_INVALID_VALUE if CL_QUEUE_ON_DEVICE_DEFAULT is set without
     * CL_QUEUE_ON_DEVICE */
    HCQCL_CHECK_GOTO(!(props & CL_QUEUE_ON_DEVICE_DEFAULT) || (props & CL_QUEUE_ON_DEVICE), err,
                     CL_INVALID_VALUE, "ON_DEVICE_DEFAULT without ON_DEVICE");
    /* CL_INVALID_VALUE if values specified in properties are not valid:
     * "If CL_QUEUE_ON_DEVICE is set, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
     * must also be set." */
    HCQCL_CHECK_GOTO(!(props & CL_QUEUE_ON_DEVICE) ||
                         (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE),
                     err, CL_INVALID_VALUE, "ON_DEVICE without OUT_OF_ORDER_EXEC_MODE_ENABLE");
    /* CL_INVALID_QUEUE_PROPERTIES if values specified in properties are
     * valid but are not supported by the device (no device-side enqueue) */
    HCQCL_CHECK_GOTO(!(props & ~supported_props), err, CL_INVALID_QUEUE_PROPERTIES,
                     "properties 0x%llx", (unsigned long long)props);
    q = calloc(1, sizeof(*q));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK_GOTO(q, err, CL_OUT_OF_HOST_MEMORY, "queue allocation");
    hcqcl_obj_init(&q->obj, HCQCL_TYPE_QUEUE);
    atomic_init(&q->internal, 1);
    q->ctx = context;
    q->dev = device;
    q->hdev = device->hw;
    atomic_init(&q->props, props);
    if (props_array) {
        memcpy(q->props_array, props_array, nprops * sizeof(*props_array));
        q->props_array_len = nprops;
    }
    q->lock = (struct util_lock)UTIL_LOCK_INIT;
    pthread_mutex_init(&q->slot_lock, NULL);
    /* CL_OUT_OF_RESOURCES if there is a failure to allocate resources
     * required by the OpenCL implementation on the device (no channel) */
    if (hcq_queue_create(q->hdev, HCQ_ENGINE_COMPUTE, &q->chans[HCQ_ENGINE_COMPUTE][0].hq) < 0) {
        pthread_mutex_destroy(&q->slot_lock);
        free(q);
        q = NULL;
        HCQCL_CHECK_GOTO(false, err, CL_OUT_OF_RESOURCES, "no compute channel");
    }
    hcqcl_clRetainContext(context);
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return err == CL_SUCCESS ? q : NULL;
}

cl_command_queue hcqcl_clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                          const cl_queue_properties *properties,
                                                          cl_int *errcode_ret)
{
    cl_command_queue_properties props = 0;
    size_t n = 0;
    cl_int err = CL_SUCCESS;
    if (properties) {
        bool seen_props = false, seen_size = false;
        for (n = 0; properties[n]; n += 2) {
            /* CL_INVALID_VALUE if values specified in properties are not
             * valid (unknown name, a name given twice, too many) */
            HCQCL_CHECK_GOTO(n + 3 <= UTIL_ARRAY_SIZE(((struct _cl_command_queue *)0)->props_array),
                             err, CL_INVALID_VALUE, "too many properties");
            switch (properties[n]) {
            case CL_QUEUE_PROPERTIES:
                HCQCL_CHECK_GOTO(!seen_props, err, CL_INVALID_VALUE, "CL_QUEUE_PROPERTIES twice");
                seen_props = true;
                props = (cl_command_queue_properties)properties[n + 1];
                break;
            case CL_QUEUE_SIZE:
                HCQCL_CHECK_GOTO(!seen_size, err, CL_INVALID_VALUE, "CL_QUEUE_SIZE twice");
                seen_size = true;
                break;
            default:
                HCQCL_CHECK_GOTO(false, err, CL_INVALID_VALUE, "property 0x%llx",
                                 (unsigned long long)properties[n]);
            }
        }
        n++; /* the terminating 0 */
        /* CL_INVALID_VALUE if CL_QUEUE_SIZE is given without
         * CL_QUEUE_ON_DEVICE (only device queues have a size) */
        if (seen_size && !(props & CL_QUEUE_ON_DEVICE))
            HCQCL_CHECK_GOTO(false, err, CL_INVALID_VALUE, "CL_QUEUE_SIZE for a host queue");
    }
    return queue_create(context, device, props, properties, n, errcode_ret);
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_command_queue hcqcl_clCreateCommandQueue(cl_context context, cl_device_id device,
                                            cl_command_queue_properties properties,
                                            cl_int *errcode_ret)
{
    /* CL_INVALID_VALUE / CL_INVALID_QUEUE_PROPERTIES: device-queue bits do
     * not exist in the 1.x API, so they are plainly invalid here. */
    if (properties & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT)) {
        if (errcode_ret)
            *errcode_ret = hcqcl_context_valid(context) ? CL_INVALID_VALUE : CL_INVALID_CONTEXT;
        return NULL;
    }
    return queue_create(context, device, properties, NULL, 0, errcode_ret);
}

/* ------------------------------------------------------------------ */
/* Queries and properties                                               */
/* ------------------------------------------------------------------ */

cl_int hcqcl_clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param_name,
                                   size_t param_value_size, void *param_value,
                                   size_t *param_value_size_ret)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    union {
        cl_context c;
        cl_device_id d;
        cl_uint u;
        cl_command_queue_properties p;
        cl_command_queue q;
    } v;
    const void *src = &v;
    size_t size;
    switch (param_name) {
    case CL_QUEUE_CONTEXT:
        v.c = q->ctx;
        size = sizeof(v.c);
        break;
    case CL_QUEUE_DEVICE:
        v.d = q->dev;
        size = sizeof(v.d);
        break;
    case CL_QUEUE_REFERENCE_COUNT:
        v.u = atomic_load(&q->obj.refs);
        size = sizeof(v.u);
        break;
    case CL_QUEUE_PROPERTIES:
        v.p = q->props;
        size = sizeof(v.p);
        break;
    case CL_QUEUE_PROPERTIES_ARRAY:
        src = q->props_array;
        size = q->props_array_len * sizeof(q->props_array[0]);
        break;
    case CL_QUEUE_DEVICE_DEFAULT:
        /* No device-side enqueue: there is no default device queue. */
        v.q = NULL;
        size = sizeof(v.q);
        break;
    case CL_QUEUE_SIZE:
        /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
         * command-queue for param_name (CL_QUEUE_SIZE of a host queue) */
        HCQCL_FAIL(CL_INVALID_COMMAND_QUEUE, "CL_QUEUE_SIZE of a host queue");
    default:
        /* CL_INVALID_VALUE if param_name is not one of the supported
         * values */
        HCQCL_FAIL(CL_INVALID_VALUE, "param_name 0x%x", (unsigned)param_name);
    }
    return hcqcl_info_out(src, size, param_value_size, param_value, param_value_size_ret);
}

HCQCL_NOT_OFFERED(clSetDefaultDeviceCommandQueue);
cl_int hcqcl_clSetDefaultDeviceCommandQueue(cl_context context, cl_device_id device,
                                            cl_command_queue command_queue)
{
    (void)command_queue;
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK(hcqcl_context_valid(context), CL_INVALID_CONTEXT, "%p", (void *)context);
    /* CL_INVALID_DEVICE if device is not a valid device or is not associated with context */
    HCQCL_CHECK(hcqcl_device_valid(device) && hcqcl_context_has_device(context, device),
                CL_INVALID_DEVICE, "%p", (void *)device);
    /* CL_INVALID_OPERATION if device does not support a replaceable default on-device queue */
    HCQCL_FAIL(CL_INVALID_OPERATION, "no on-device queues");
}

cl_int hcqcl_clSetCommandQueueProperty(cl_command_queue q, cl_command_queue_properties properties,
                                       cl_bool enable, cl_command_queue_properties *old_properties)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    /* CL_INVALID_VALUE if the values specified in properties are not
     * valid: "Only command-queue properties specified in this table
     * [out-of-order execution, profiling] can be used" */
    HCQCL_CHECK(!(properties &
                  ~(cl_command_queue_properties)(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                 CL_QUEUE_PROFILING_ENABLE)),
                CL_INVALID_VALUE, "properties 0x%llx", (unsigned long long)properties);
    /* CL_INVALID_QUEUE_PROPERTIES if values specified in properties are
     * valid but are not supported by the device: the device-queue bits. */
    HCQCL_CHECK(!(properties & ~supported_props), CL_INVALID_QUEUE_PROPERTIES,
                "properties 0x%llx not supported", (unsigned long long)properties);
    util_lock(&q->lock);
    cl_command_queue_properties was = q->props;
    util_unlock(&q->lock);
    if (old_properties)
        *old_properties = was;
    cl_command_queue_properties want = enable ? (was | properties) : (was & ~properties);
    /* "Changing this command-queue property [the execution mode] will
     * cause the OpenCL implementation to block until all previously
     * queued commands in command_queue have completed." After that no
     * command of one mode is left for the other's ordering to miss. */
    if ((want ^ was) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        cl_int err = hcqcl_clFinish(q);
        if (err != CL_SUCCESS)
            return err;
    }
    /* Another thread may have enqueued out of order since that wait: the
     * record of commands since the last barrier stays, and the first
     * command enqueued in order waits for them (command.c). */
    util_lock(&q->lock);
    q->props = (q->props & ~properties) | (want & properties);
    util_unlock(&q->lock);
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Retain, release, flush, finish                                       */
/* ------------------------------------------------------------------ */

void hcqcl_queue_flush_locked(cl_command_queue q, const struct hcq_queue *except)
{
    if (!atomic_load_explicit(&q->held, memory_order_relaxed))
        return;
    bool still = false;
    for (unsigned e = 0; e < 2; e++)
        for (unsigned i = 0; i < HCQCL_QUEUE_CHANS; i++) {
            struct hcq_queue *hq = q->chans[e][i].hq;
            if (!hq || !hcq_q_held(hq))
                continue;
            /* A ring with no room now keeps the work held for a later
             * flush, the notifier's among them, as does a hold not yet
             * decided (the tracker flushes when it decides); another
             * failure is the device's loss, which every wait notices by
             * itself. */
            if (hq == except || hcq_q_submit_try(hq) == -EAGAIN || hcq_q_held(hq))
                still = true;
        }
    atomic_store_explicit(&q->held, still, memory_order_relaxed);
}

void hcqcl_queue_note_decided(cl_command_queue q)
{
    atomic_store_explicit(&q->held_since, util_now_ns(), memory_order_relaxed);
    /* A release store (a plain one on x86): a sequentially consistent
     * store is an exchange, which would wait for the launch's
     * write-combined stores to drain (util.h, util_lock). */
    atomic_store_explicit(&q->held, true, memory_order_release);
}

void hcqcl_queue_note_held(cl_command_queue q)
{
    if (!atomic_load_explicit(&q->held, memory_order_relaxed))
        hcqcl_queue_note_decided(q);
}

bool hcqcl_queue_flush(cl_command_queue q, bool try)
{
    if (!atomic_load_explicit(&q->held, memory_order_relaxed))
        return true;
    if (try) {
        if (!util_lock_try(&q->lock))
            return false;
    } else {
        util_lock(&q->lock);
    }
    hcqcl_queue_flush_locked(q, NULL);
    util_unlock(&q->lock);
    return true;
}

/* The events a clFinish must wait for (retained), under q->lock: in
 * `local` (cap entries) when they fit, else in an allocated array. */
static size_t pending_events(cl_command_queue q, cl_event *local, size_t cap, cl_event **out)
{
    util_lock(&q->lock);
    size_t n = (q->last ? 1 : 0) + q->nsince;
    cl_event *v = n <= cap ? local : malloc(n * sizeof(*v));
    size_t k = 0;
    if (v) {
        if (q->last)
            v[k++] = q->last;
        for (size_t i = 0; i < q->nsince; i++)
            v[k++] = q->since[i];
        for (size_t i = 0; i < k; i++)
            hcqcl_event_ref(v[i]);
    }
    util_unlock(&q->lock);
    *out = v;
    return n && !v ? (size_t)-1 : k;
}

static cl_int queue_finish(cl_command_queue q)
{
    hcqcl_queue_flush(q, false);
    cl_event local[8], *v;
    size_t n = pending_events(q, local, UTIL_ARRAY_SIZE(local), &v);
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
    HCQCL_CHECK(n != (size_t)-1, CL_OUT_OF_HOST_MEMORY, "finish list");
    bool lost = false;
    for (size_t i = 0; i < n; i++) {
        if (hcqcl_event_wait(v[i]) == CL_OUT_OF_RESOURCES && hcq_device_lost(q->hdev))
            lost = true;
        hcqcl_event_unref(v[i]);
    }
    if (v != local)
        free(v);
    /* And the commands enqueued without events. */
    if (hcqcl_lite_drain(q) != CL_SUCCESS && hcq_device_lost(q->hdev))
        lost = true;
    /* What another thread (the notifier) took from finished commands is
     * released too: a buffer's destructor callbacks have run. */
    (void)hcqcl_cmd_release_quiesce(100000000ull);
    /* CL_OUT_OF_RESOURCES if there is a failure to allocate resources
     * required by the OpenCL implementation on the device (device lost) */
    HCQCL_CHECK(!lost, CL_OUT_OF_RESOURCES, "device lost");
    return CL_SUCCESS;
}

cl_int hcqcl_clFinish(cl_command_queue q)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    return queue_finish(q);
}

cl_int hcqcl_clFlush(cl_command_queue q)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    /* A command reaches the GPU when it is enqueued unless the GPU is
     * busy with earlier ones (hcq_q_commit held it back); gated commands
     * are started by the notifier. */
    hcqcl_queue_flush(q, false);
    return CL_SUCCESS;
}

cl_int hcqcl_clRetainCommandQueue(cl_command_queue q)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    /* A queue the application released whose commands have not finished
     * is still a queue (an event's CL_EVENT_COMMAND_QUEUE returns it, and
     * the C++ bindings retain what they get): taken back from 0, the
     * applications' share comes back with it, which the next release to
     * 0 drops again, as clRetainEvent does. */
    if (atomic_fetch_add_explicit(&q->obj.refs, 1, memory_order_relaxed) == 0)
        atomic_fetch_add_explicit(&q->internal, 1, memory_order_relaxed);
    return CL_SUCCESS;
}

cl_int hcqcl_clReleaseCommandQueue(cl_command_queue q)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    bool gone = false;
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue (released more often than retained) */
    HCQCL_CHECK(hcqcl_obj_release_held(&q->obj, &gone), CL_INVALID_COMMAND_QUEUE,
                "queue %p released more often than retained", (void *)q);
    if (!gone)
        return CL_SUCCESS;
    /* The last application reference: the implicit flush, then wait so
     * the channels are idle before they go (queue_finish does both) —
     * unless work still waits for a user event the application may set
     * only later: the queue then lives on until its last command
     * finished, its held work flushed. */
    if (hcqcl_events_gated()) {
        hcqcl_queue_flush(q, false);
        /* Commands without events wait for nothing the host ends. */
        (void)hcqcl_lite_drain(q);
    } else {
        queue_finish(q);
    }
    util_lock(&q->lock);
    cl_event last = q->last;
    q->last = NULL;
    cl_event *since = q->since;
    size_t nsince = q->nsince;
    q->since = NULL;
    q->nsince = q->capsince = 0;
    cl_event blockers[2 * HCQCL_QUEUE_CHANS];
    size_t nb = 0;
    for (unsigned e = 0; e < 2; e++)
        for (unsigned i = 0; i < HCQCL_QUEUE_CHANS; i++) {
            if (q->chans[e][i].blocker)
                blockers[nb++] = q->chans[e][i].blocker;
            q->chans[e][i].blocker = NULL;
        }
    util_unlock(&q->lock);
    for (size_t i = 0; i < nb; i++)
        hcqcl_event_unref(blockers[i]);
    if (last)
        hcqcl_event_unref(last);
    for (size_t i = 0; i < nsince; i++)
        hcqcl_event_unref(since[i]);
    free(since);
    hcqcl_queue_unref(q); /* the applications' share */
    return CL_SUCCESS;
}

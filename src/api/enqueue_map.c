/*
 * enqueue_map.c — clEnqueueMapBuffer, clEnqueueUnmapMemObject and
 * clEnqueueMigrateMemObjects.
 *
 * Where the CPU can address the buffer's memory (pinned host, registered
 * user pages, BAR1-mapped vidmem) a map is only a synchronisation point:
 * the pointer is the memory itself. Otherwise mem.c hands out a pinned
 * copy of the region (enum hcqcl_map_kind): the copy engine fills it at
 * map time unless the region is mapped with WRITE_INVALIDATE_REGION, and
 * writes it back at unmap time when the region was mapped for writing. A
 * USE_HOST_PTR buffer whose pages could not be registered keeps a shadow;
 * its host_ptr is refreshed from the shadow by the CPU once the commands
 * before the map are done, and copied back before the ones after the
 * unmap start.
 */
#include <stdlib.h>

#include "api/obj.h"

/* Flags 0 maps for reading and writing, as the flags' absence implies no
 * promise either way. */
static cl_map_flags map_effective(cl_map_flags flags)
{
    return flags ? flags : CL_MAP_READ | CL_MAP_WRITE;
}
/* The mapped copy must hold the latest bits: for MAP_READ and MAP_WRITE
 * alike; only WRITE_INVALIDATE_REGION lets the host start from garbage. */
static bool map_reads(cl_map_flags flags)
{
    return !(flags & CL_MAP_WRITE_INVALIDATE_REGION);
}
static bool map_writes(cl_map_flags flags)
{
    return map_effective(flags) & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION);
}

/* Take map off m's list by the record (another thread's mapping may have
 * the same pointer). m->lock held. */
static void map_unlink_locked(cl_mem m, struct hcqcl_mapping *map)
{
    for (struct hcqcl_mapping **pp = &m->maps; *pp; pp = &(*pp)->next) {
        if (*pp == map) {
            *pp = map->next;
            m->map_count--;
            break;
        }
    }
    map->next = NULL;
}

/* True when [at, at + size) of a buffer, mapped with flags, overlaps a
 * region of o (at o_at in that buffer) already mapped, other than self,
 * and either of the two is for writing. o->lock held. */
static bool maps_overlap_locked(cl_mem o, size_t o_at, size_t at, size_t size, cl_map_flags flags,
                                const struct hcqcl_mapping *self)
{
    for (const struct hcqcl_mapping *p = o->maps; p; p = p->next) {
        if (p == self || (!map_writes(flags) && !map_writes(p->flags)))
            continue;
        if (at < o_at + p->offset + p->size && o_at + p->offset < at + size)
            return true;
    }
    return false;
}

/* The same for m and its "associated memory objects": the buffer of a
 * sub-buffer and the buffer's other sub-buffers ("Mapping ... overlapped
 * regions in a memory object and/or associated memory objects (sub-buffer
 * objects ...) for writing is an error"). Locks: a buffer's, then each of
 * its sub-buffers'.
 * self, when not NULL, is the new mapping of the region, already on m's
 * list: it is passed over, and taken off the list again when there is a
 * conflict. Two threads that map overlapping regions at once each find
 * the other's region free in the check made before their mapping is
 * added; this check, made after it, under the buffer's lock, is where one
 * of the two sees the other's mapping and withdraws its own. */
static bool map_conflicts(cl_mem m, size_t offset, size_t size, cl_map_flags flags,
                          struct hcqcl_mapping *self)
{
    cl_mem root = m->parent ? m->parent : m;
    const size_t at = m->offset + offset; /* a buffer's offset is 0 */
    pthread_mutex_lock(&root->lock);
    bool conflict = maps_overlap_locked(root, 0, at, size, flags, self);
    for (cl_mem s = root->subs; s && !conflict; s = s->sub_next) {
        pthread_mutex_lock(&s->lock);
        conflict = maps_overlap_locked(s, s->offset, at, size, flags, self);
        pthread_mutex_unlock(&s->lock);
    }
    if (conflict && self) {
        if (m != root)
            pthread_mutex_lock(&m->lock);
        map_unlink_locked(m, self);
        if (m != root)
            pthread_mutex_unlock(&m->lock);
    }
    pthread_mutex_unlock(&root->lock);
    return conflict;
}

/* ---- Mapped regions usable as pinned memory -------------------------- */

struct pinned_region {
    const uint8_t *cpu; /* the mapped pointer */
    size_t size;
    cl_mem m;           /* not retained: its destruction takes it off */
    size_t offset;      /* of the region in m */
    struct pinned_region *next;
};

static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pinned_region *pinned_list;

static void pinned_add(cl_mem m, const struct hcqcl_mapping *map)
{
    struct pinned_region *r = malloc(sizeof(*r));
    if (!r)
        return; /* only an optimisation is lost */
    *r = (struct pinned_region){map->ptr, map->size, m, map->offset, NULL};
    pthread_mutex_lock(&pinned_lock);
    r->next = pinned_list;
    pinned_list = r;
    pthread_mutex_unlock(&pinned_lock);
}

static void pinned_remove(cl_mem m, const void *cpu)
{
    struct pinned_region *gone = NULL;
    pthread_mutex_lock(&pinned_lock);
    for (struct pinned_region **pp = &pinned_list; *pp; pp = &(*pp)->next) {
        if ((*pp)->m == m && (*pp)->cpu == cpu) {
            gone = *pp;
            *pp = gone->next;
            break;
        }
    }
    pthread_mutex_unlock(&pinned_lock);
    free(gone);
}

/* m is being destroyed (no references left): its mappings, released
 * without an unmap, are usable no longer. */
void hcqcl_map_pinned_forget(cl_mem m)
{
    struct pinned_region *gone = NULL;
    pthread_mutex_lock(&pinned_lock);
    for (struct pinned_region **pp = &pinned_list; *pp;) {
        struct pinned_region *r = *pp;
        if (r->m == m) {
            *pp = r->next;
            r->next = gone;
            gone = r;
        } else {
            pp = &r->next;
        }
    }
    pthread_mutex_unlock(&pinned_lock);
    for (struct pinned_region *next; gone; gone = next) {
        next = gone->next;
        free(gone);
    }
}

bool hcqcl_xfer_pinned(struct hcqcl_cmd *cmd, struct hcq_device *dev, const void *ptr,
                       size_t size, uint64_t *va)
{
    const uint8_t *p = ptr;
    cl_mem found = NULL;
    pthread_mutex_lock(&pinned_lock);
    for (struct pinned_region *r = pinned_list; r && !found; r = r->next) {
        if (p < r->cpu || (size_t)(p - r->cpu) > r->size || size > r->size - (size_t)(p - r->cpu))
            continue;
        uint64_t base = hcqcl_mem_va(r->m, dev);
        if (!base)
            continue; /* a buffer of a context without dev */
        /* The app may unmap and release it while the copy is in flight:
         * the command holds it. Not one whose last reference is gone (it
         * is being destroyed, and leaves the list before its memory). */
        if (!hcqcl_obj_retain_live(&r->m->obj))
            continue;
        *va = base + r->offset + (size_t)(p - r->cpu);
        found = r->m;
    }
    pthread_mutex_unlock(&pinned_lock);
    /* Outside the lock: a failure to record it releases the reference,
     * which may be the last (its destruction takes the lock). */
    if (found)
        hcqcl_cmd_own_mem(cmd, found);
    return found != NULL;
}

static void map_pull_cb(void *arg, cl_int status)
{
    if (status >= 0)
        hcqcl_mapping_pull(arg);
}
/* A CPU_COPY map's pull, hooked before cmd on a copy of what it reads,
 * freed with the command: once the map is handed out, an unmap of the
 * same pointer on another queue may take and free the mapping before the
 * map's command has run. */
static cl_int map_pull_hook(struct hcqcl_cmd *cmd, const struct hcqcl_mapping *map)
{
    struct hcqcl_mapping *pull = malloc(sizeof(*pull));
    HCQCL_CHECK(pull, CL_OUT_OF_HOST_MEMORY, "map pull");
    *pull = (struct hcqcl_mapping){.ptr = map->ptr, .offset = map->offset, .size = map->size,
                                   .flags = map->flags, .kind = map->kind,
                                   .mem_cpu = map->mem_cpu};
    cl_int err = hcqcl_cmd_on_release(cmd, free, pull);
    if (err == CL_SUCCESS)
        err = hcqcl_cmd_before(cmd, map_pull_cb, pull);
    if (err != CL_SUCCESS) {
        cmd->ev->release_fn = NULL; /* the command is aborted: free here */
        cmd->ev->before_fn = NULL;
        free(pull);
    }
    return err;
}
static void map_push_cb(void *arg, cl_int status)
{
    if (status >= 0)
        hcqcl_mapping_push(arg);
}
/* The unmap is done: its staging waits on the object for the next map. */
static void map_free_cb(void *arg)
{
    struct hcqcl_mapping *map = arg;
    cl_mem owner = map->owner;
    if (owner) {
        hcqcl_mem_map_park(owner, map);
        hcqcl_clReleaseMemObject(owner);
    }
    hcqcl_mapping_free(map);
}

/* Take a mapping of the map being made off m again (its map failed): by
 * the record, as another thread's mapping may have the same pointer. */
static void map_withdraw(cl_mem m, struct hcqcl_mapping *map)
{
    pthread_mutex_lock(&m->lock);
    map_unlink_locked(m, map);
    pthread_mutex_unlock(&m->lock);
}

/* Put a mapping taken off m back (an unmap that could not be enqueued). */
static void map_relink(cl_mem m, struct hcqcl_mapping *map)
{
    if (map->kind == HCQCL_MAP_DIRECT)
        pinned_add(m, map);
    pthread_mutex_lock(&m->lock);
    map->next = m->maps;
    m->maps = map;
    m->map_count++;
    pthread_mutex_unlock(&m->lock);
}

void *hcqcl_clEnqueueMapBuffer(cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_map,
                               cl_map_flags map_flags, size_t offset, size_t size,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event, cl_int *errcode_ret)
{
    cl_command_queue q = command_queue;
    void *ptr = NULL;
    cl_int err = CL_SUCCESS;

    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK_GOTO(hcqcl_queue_valid(q), err, CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    err = hcqcl_xfer_check_buffer(q, buffer);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_VALUE if the region being mapped specified by offset and size is out of bounds */
    err = hcqcl_xfer_check_range(offset, size, buffer->size);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_VALUE if size is zero */
    HCQCL_CHECK_GOTO(size != 0, err, CL_INVALID_VALUE, "size 0");
    /* CL_INVALID_VALUE if values specified in map_flags are not valid */
    err = hcqcl_xfer_check_map_flags(map_flags);
    if (err != CL_SUCCESS)
        goto fail;
    ptr = hcqcl_map_enqueue(q, buffer, blocking_map, map_flags, offset, size,
                            CL_COMMAND_MAP_BUFFER, num_events_in_wait_list, event_wait_list,
                            event, &err);
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return ptr;
}

void *hcqcl_map_enqueue(cl_command_queue q, cl_mem buffer, bool blocking_map,
                        cl_map_flags map_flags, size_t offset, size_t size, cl_command_type type,
                        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                        cl_event *event, cl_int *errcode_ret)
{
    struct hcqcl_mapping *map = NULL;
    void *ptr = NULL;
    cl_int err = CL_SUCCESS;
    /* CL_INVALID_OPERATION if MAP_READ on a HOST_WRITE_ONLY / HOST_NO_ACCESS buffer, or MAP_WRITE / WRITE_INVALIDATE on a HOST_READ_ONLY / HOST_NO_ACCESS one */
    err = hcqcl_xfer_check_host_access(buffer->flags, map_flags & CL_MAP_READ,
                                       map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION));
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_OPERATION if mapping would lead to overlapping regions being mapped for writing */
    HCQCL_CHECK_GOTO(!map_conflicts(buffer, offset, size, map_flags, NULL), err,
                     CL_INVALID_OPERATION, "[%zu, +%zu) overlaps a region mapped for writing",
                     offset, size);
    /* CL_INVALID_EVENT_WAIT_LIST / CL_INVALID_CONTEXT for the wait list (before any state changes) */
    err = hcqcl_wait_list_check(hcqcl_queue_context(q), num_events_in_wait_list, event_wait_list);
    if (err != CL_SUCCESS)
        goto fail;

    struct hcq_device *dev = hcqcl_queue_device(q)->hw;
    /* CL_MEM_OBJECT_ALLOCATION_FAILURE / CL_OUT_OF_HOST_MEMORY when the mapping's copy can't be had */
    err = hcqcl_mem_map_add(buffer, dev, offset, size, map_flags, &map);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_OPERATION if mapping would lead to overlapping regions being mapped for writing (a map another thread added since the check above) */
    if (map_conflicts(buffer, offset, size, map_flags, map)) {
        hcqcl_mapping_free(map); /* off the list: nothing used it */
        HCQCL_CHECK_GOTO(false, err, CL_INVALID_OPERATION,
                         "[%zu, +%zu) overlaps a region another thread mapped for writing",
                         offset, size);
    }

    struct hcqcl_cmd cmd;
    err = hcqcl_xfer_begin(q, type, HCQCL_XFER_D2H, num_events_in_wait_list, event_wait_list,
                           &cmd);
    if (err != CL_SUCCESS)
        goto fail_unmap;
    hcqcl_cmd_retain_mem(&cmd, buffer);
    /* A copy the map brings in fills the pointer when it runs: until the
     * unmap, a transfer from it reads it late (host_pending.c). */
    if (map_reads(map_flags) && (map->kind == HCQCL_MAP_GPU_COPY || map->kind == HCQCL_MAP_CPU_COPY))
        hcqcl_host_pending_add(&map->pending, map->ptr, size);
    if (map_reads(map_flags)) {
        if (map->kind == HCQCL_MAP_CPU_COPY) {
            err = map_pull_hook(&cmd, map);
        } else if (map->kind == HCQCL_MAP_GPU_COPY && !hcqcl_cmd_terminated(&cmd)) {
            if (hcq_q_copy(hcqcl_cmd_hq(&cmd), map->staging->va,
                           hcqcl_mem_va(buffer, dev) + offset, size) < 0)
                err = CL_OUT_OF_RESOURCES;
        } else if (map->kind == HCQCL_MAP_HOST_COPY) {
            err = hcqcl_xfer_host(&cmd, dev, hcqcl_mem_va(buffer, dev) + offset, map->ptr, size,
                                  false);
        }
    }
    if (err != CL_SUCCESS && map->kind == HCQCL_MAP_HOST_COPY) {
        /* Nothing of the GPU's is in the mapping: it goes now (the copy's
         * staging is the aborted command's). */
        map_withdraw(buffer, map);
        hcqcl_mapping_free(map);
        hcqcl_cmd_abort(&cmd);
        goto fail;
    }
    if (err != CL_SUCCESS) {
        /* A copy into the staging may have been recorded: the mapping goes
         * with the aborted command, once the GPU is past it. */
        map_withdraw(buffer, map);
        if (hcqcl_cmd_on_release(&cmd, map_free_cb, map) != CL_SUCCESS)
            util_log(UTIL_LOG_ERR, "api: map of %zu bytes failed; its staging is kept", size);
        hcqcl_cmd_abort(&cmd);
        goto fail;
    }
    ptr = map->ptr;
    if (map->kind == HCQCL_MAP_DIRECT)
        pinned_add(buffer, map);
    err = hcqcl_cmd_end(&cmd, blocking_map, event);
    if (err != CL_SUCCESS) {
        if (map->kind == HCQCL_MAP_DIRECT)
            pinned_remove(buffer, map->ptr);
        map_withdraw(buffer, map);
        /* A failed dependency: the blocking wait saw the command final,
         * the GPU is past it. Otherwise a late copy may still land in
         * the staging, which is then kept. */
        if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
            hcqcl_mapping_free(map);
        ptr = NULL;
        goto out;
    }
    /* From here an unmap may take and free the mapping: the last use. */
    hcqcl_mem_map_hand_out(buffer, map);
    goto out;

fail_unmap:
    map_withdraw(buffer, map);
    hcqcl_mapping_free(map);
fail:
    ptr = NULL;
out:
    if (errcode_ret)
        *errcode_ret = err;
    return ptr;
}

cl_int hcqcl_clEnqueueUnmapMemObject(cl_command_queue command_queue, cl_mem memobj,
                                     void *mapped_ptr, cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event)
{
    cl_command_queue q = command_queue;
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object or is a pipe object */
    HCQCL_CHECK(hcqcl_mem_valid(memobj) && memobj->type != CL_MEM_OBJECT_PIPE,
                CL_INVALID_MEM_OBJECT, "mem %p", (void *)memobj);
    /* CL_INVALID_CONTEXT if the context associated with command_queue and memobj are not the same */
    HCQCL_CHECK(memobj->ctx == hcqcl_queue_context(q), CL_INVALID_CONTEXT,
                "mem %p of another context", (void *)memobj);
    return hcqcl_unmap_enqueue(q, memobj, mapped_ptr, CL_COMMAND_UNMAP_MEM_OBJECT,
                               num_events_in_wait_list, event_wait_list, event);
}

cl_int hcqcl_unmap_enqueue(cl_command_queue q, cl_mem memobj, void *mapped_ptr,
                           cl_command_type type, cl_uint num_events_in_wait_list,
                           const cl_event *event_wait_list, cl_event *event)
{
    /* CL_INVALID_EVENT_WAIT_LIST / CL_INVALID_CONTEXT for the wait list (before the mapping is taken off) */
    cl_int err = hcqcl_wait_list_check(hcqcl_queue_context(q), num_events_in_wait_list,
                                       event_wait_list);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by clEnqueueMapBuffer for memobj */
    struct hcqcl_mapping *map;
    err = hcqcl_mem_map_remove(memobj, mapped_ptr, &map);
    if (err != CL_SUCCESS)
        return err;
    hcqcl_host_pending_remove(&map->pending);
    if (map->kind == HCQCL_MAP_DIRECT)
        pinned_remove(memobj, map->ptr);

    struct hcqcl_cmd cmd;
    err = hcqcl_xfer_begin(q, type, HCQCL_XFER_H2D,
                           num_events_in_wait_list, event_wait_list, &cmd);
    if (err != CL_SUCCESS) {
        map_relink(memobj, map);
        return err;
    }
    hcqcl_cmd_retain_mem(&cmd, memobj);
    if (map->kind == HCQCL_MAP_HOST_COPY) {
        /* The region goes back as a write of pageable memory; the
         * mapping holds nothing the GPU uses, so it goes now. */
        if (map_writes(map->flags))
            err = hcqcl_xfer_host(&cmd, map->dev, hcqcl_mem_va(memobj, map->dev) + map->offset,
                                  map->ptr, map->size, true);
        if (err != CL_SUCCESS) {
            hcqcl_cmd_abort(&cmd);
            map_relink(memobj, map);
            return err;
        }
        hcqcl_mapping_free(map);
        return hcqcl_cmd_end(&cmd, false, event);
    }
    if (map_writes(map->flags) && map->kind == HCQCL_MAP_CPU_COPY)
        err = hcqcl_cmd_before(&cmd, map_push_cb, map);
    if (err == CL_SUCCESS)
        err = hcqcl_cmd_on_release(&cmd, map_free_cb, map);
    if (err == CL_SUCCESS && map->kind == HCQCL_MAP_GPU_COPY) {
        map->owner = memobj;
        hcqcl_clRetainMemObject(memobj);
    }
    if (err != CL_SUCCESS) {
        cmd.ev->before_fn = NULL;
        hcqcl_cmd_abort(&cmd);
        map_relink(memobj, map);
        return err;
    }
    if (map_writes(map->flags) && map->kind == HCQCL_MAP_GPU_COPY &&
        !hcqcl_cmd_terminated(&cmd) &&
        hcq_q_copy(hcqcl_cmd_hq(&cmd), hcqcl_mem_va(memobj, map->dev) + map->offset,
                   map->staging->va, map->size) < 0) {
        /* The mapping now belongs to the aborted command: a copy from
         * its staging may have been recorded. */
        hcqcl_cmd_abort(&cmd);
        return CL_OUT_OF_RESOURCES;
    }
    return hcqcl_cmd_end(&cmd, false, event);
}

cl_int hcqcl_clEnqueueMigrateMemObjects(cl_command_queue command_queue, cl_uint num_mem_objects,
                                        const cl_mem *mem_objects, cl_mem_migration_flags flags,
                                        cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event)
{
    cl_command_queue q = command_queue;
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "queue %p", (void *)q);
    /* CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL */
    HCQCL_CHECK(num_mem_objects && mem_objects, CL_INVALID_VALUE, "%u objects at %p",
                num_mem_objects, (void *)mem_objects);
    for (cl_uint i = 0; i < num_mem_objects; i++) {
        /* CL_INVALID_MEM_OBJECT if any of the memory objects in mem_objects is not a valid memory object */
        HCQCL_CHECK(hcqcl_mem_valid(mem_objects[i]), CL_INVALID_MEM_OBJECT, "mem_objects[%u]", i);
        /* CL_INVALID_CONTEXT if the context associated with command_queue and memory objects in mem_objects are not the same */
        HCQCL_CHECK(mem_objects[i]->ctx == hcqcl_queue_context(q), CL_INVALID_CONTEXT,
                    "mem_objects[%u] of another context", i);
    }
    /* CL_INVALID_VALUE if flags is not 0 or is not any of the values described in the table */
    HCQCL_CHECK(!(flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST |
                                                    CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)),
                CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);

    /* One device, stores allocated at creation: the objects already live
     * where the queue's device reaches them (and the host, for host
     * memory), so migration is an ordering point that keeps the objects
     * alive until the commands it waits for are done. */
    return hcqcl_enqueue_hold(q, CL_COMMAND_MIGRATE_MEM_OBJECTS, num_mem_objects, mem_objects,
                              num_events_in_wait_list, event_wait_list, event);
}

cl_int hcqcl_enqueue_hold(cl_command_queue q, cl_command_type type, cl_uint n, const cl_mem *mems,
                          cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    struct hcqcl_cmd cmd;
    cl_int err = hcqcl_xfer_begin(q, type, HCQCL_XFER_D2D, num_events, wait_list, &cmd);
    if (err != CL_SUCCESS)
        return err;
    for (cl_uint i = 0; i < n; i++)
        hcqcl_cmd_retain_mem(&cmd, mems[i]);
    return hcqcl_cmd_end(&cmd, false, event);
}

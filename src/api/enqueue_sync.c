/*
 * enqueue_sync.c — commands that only order other commands: markers,
 * barriers and the 1.x wait-for-events.
 *
 * They are ordinary commands with no verbs of their own: the machinery
 * records the dependency waits and a completion release on the compute
 * channel. An in-order queue orders everything already, so there a barrier
 * is a marker. In an out-of-order queue a barrier becomes the dependency
 * of every later command (hcqcl_cmd_begin_ex's `barrier`).
 */
#include "api/obj.h"

static cl_int sync_command(cl_command_queue q, cl_command_type type, cl_uint num_events,
                           const cl_event *wait_list, bool barrier, cl_event *event)
{
    struct hcqcl_cmd cmd;
    /* Without a wait list, wait for every command enqueued before. */
    cl_int err = hcqcl_cmd_begin_ex(q, type, HCQ_ENGINE_COMPUTE, num_events, wait_list,
                                    num_events == 0, barrier, &cmd);
    if (err != CL_SUCCESS)
        return err;
    return hcqcl_cmd_end(&cmd, false, event);
}

cl_int hcqcl_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint num_events,
                                         const cl_event *wait_list, cl_event *event)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    /* CL_INVALID_CONTEXT / CL_INVALID_EVENT_WAIT_LIST: hcqcl_cmd_begin_ex */
    return sync_command(q, CL_COMMAND_MARKER, num_events, wait_list, false, event);
}

cl_int hcqcl_clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint num_events,
                                          const cl_event *wait_list, cl_event *event)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    /* CL_INVALID_CONTEXT / CL_INVALID_EVENT_WAIT_LIST: hcqcl_cmd_begin_ex */
    return sync_command(q, CL_COMMAND_BARRIER, num_events, wait_list, true, event);
}

cl_int hcqcl_clEnqueueMarker(cl_command_queue q, cl_event *event)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    /* CL_INVALID_VALUE if event is a NULL value */
    HCQCL_CHECK(event, CL_INVALID_VALUE, "event is NULL");
    return sync_command(q, CL_COMMAND_MARKER, 0, NULL, false, event);
}

cl_int hcqcl_clEnqueueBarrier(cl_command_queue q)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    return sync_command(q, CL_COMMAND_BARRIER, 0, NULL, true, NULL);
}

cl_int hcqcl_clEnqueueWaitForEvents(cl_command_queue q, cl_uint num_events,
                                    const cl_event *event_list)
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
     * command-queue */
    HCQCL_CHECK(hcqcl_queue_valid(q), CL_INVALID_COMMAND_QUEUE, "not a command queue");
    /* CL_INVALID_VALUE if num_events is zero or event_list is NULL */
    HCQCL_CHECK(num_events > 0 && event_list, CL_INVALID_VALUE, "empty event list");
    for (cl_uint i = 0; i < num_events; i++) {
        /* CL_INVALID_EVENT if event objects specified in event_list are not
         * valid events */
        HCQCL_CHECK(hcqcl_event_valid(event_list[i]), CL_INVALID_EVENT,
                    "event_list[%u] is not an event", i);
        /* CL_INVALID_CONTEXT if the context associated with command_queue
         * and events in event_list are not the same */
        HCQCL_CHECK(hcqcl_event_context(event_list[i]) == hcqcl_queue_context(q),
                    CL_INVALID_CONTEXT, "event_list[%u] belongs to another context", i);
    }
    /* Later commands must not start before these events: a barrier on
     * exactly this list. */
    return sync_command(q, CL_COMMAND_BARRIER, num_events, event_list, true, NULL);
}

/*
 * unimplemented.c — default definitions of the entry points no api file
 * implements yet.
 *
 * Each is hcqcl_default_clXxx with hcqcl_clXxx a weak alias of it: once an
 * object family's file defines hcqcl_clXxx, the linker takes that one and
 * the default here is left unused (docs/status.md, checked against the
 * built library by tests/icd, lists what is still a default). A default
 * validates its first handle and then returns CL_INVALID_OPERATION (or
 * NULL with *errcode_ret set).
 */
#include "api/obj.h"

void hcqcl_unsupported(const char *func, cl_int err)
{
    UTIL_LOG(UTIL_LOG_API, "%s: not supported -> %s", func, hcqcl_error_name(err));
}

void *hcqcl_unsupported_obj(const char *func, cl_int *errcode_ret, cl_int err)
{
    hcqcl_unsupported(func, err);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

HCQCL_DEFAULT(cl_command_queue, clCreateCommandQueue,
              (cl_context context, cl_device_id device, cl_command_queue_properties properties,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clRetainCommandQueue, (cl_command_queue command_queue))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clReleaseCommandQueue, (cl_command_queue command_queue))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetCommandQueueInfo,
              (cl_command_queue command_queue, cl_command_queue_info param_name,
               size_t param_value_size, void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clSetCommandQueueProperty,
              (cl_command_queue command_queue, cl_command_queue_properties properties,
               cl_bool enable, cl_command_queue_properties *old_properties))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateBuffer,
              (cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clRetainMemObject, (cl_mem memobj))
{
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_DEFAULT_CHECK_OBJ(memobj, HCQCL_TYPE_MEM, CL_INVALID_MEM_OBJECT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clReleaseMemObject, (cl_mem memobj))
{
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_DEFAULT_CHECK_OBJ(memobj, HCQCL_TYPE_MEM, CL_INVALID_MEM_OBJECT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetMemObjectInfo,
              (cl_mem memobj, cl_mem_info param_name, size_t param_value_size, void *param_value,
               size_t *param_value_size_ret))
{
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_DEFAULT_CHECK_OBJ(memobj, HCQCL_TYPE_MEM, CL_INVALID_MEM_OBJECT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_program, clCreateProgramWithSource,
              (cl_context context, cl_uint count, const char **strings, const size_t *lengths,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_program, clCreateProgramWithBinary,
              (cl_context context, cl_uint num_devices, const cl_device_id *device_list,
               const size_t *lengths, const unsigned char **binaries, cl_int *binary_status,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clRetainProgram, (cl_program program))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clReleaseProgram, (cl_program program))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clBuildProgram,
              (cl_program program, cl_uint num_devices, const cl_device_id *device_list,
               const char *options,
               void(CL_CALLBACK *pfn_notify)(cl_program program, void *user_data), void *user_data))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetProgramInfo,
              (cl_program program, cl_program_info param_name, size_t param_value_size,
               void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetProgramBuildInfo,
              (cl_program program, cl_device_id device, cl_program_build_info param_name,
               size_t param_value_size, void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_kernel, clCreateKernel,
              (cl_program program, const char *kernel_name, cl_int *errcode_ret))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clCreateKernelsInProgram,
              (cl_program program, cl_uint num_kernels, cl_kernel *kernels,
               cl_uint *num_kernels_ret))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clRetainKernel, (cl_kernel kernel))
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clReleaseKernel, (cl_kernel kernel))
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clSetKernelArg,
              (cl_kernel kernel, cl_uint arg_index, size_t arg_size, const void *arg_value))
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetKernelInfo,
              (cl_kernel kernel, cl_kernel_info param_name, size_t param_value_size,
               void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetKernelWorkGroupInfo,
              (cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param_name,
               size_t param_value_size, void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clWaitForEvents, (cl_uint num_events, const cl_event *event_list))
{
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetEventInfo,
              (cl_event event, cl_event_info param_name, size_t param_value_size, void *param_value,
               size_t *param_value_size_ret))
{
    /* CL_INVALID_EVENT if event is not a valid event object */
    HCQCL_DEFAULT_CHECK_OBJ(event, HCQCL_TYPE_EVENT, CL_INVALID_EVENT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clRetainEvent, (cl_event event))
{
    /* CL_INVALID_EVENT if event is not a valid event object */
    HCQCL_DEFAULT_CHECK_OBJ(event, HCQCL_TYPE_EVENT, CL_INVALID_EVENT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clReleaseEvent, (cl_event event))
{
    /* CL_INVALID_EVENT if event is not a valid event object */
    HCQCL_DEFAULT_CHECK_OBJ(event, HCQCL_TYPE_EVENT, CL_INVALID_EVENT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetEventProfilingInfo,
              (cl_event event, cl_profiling_info param_name, size_t param_value_size,
               void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_EVENT if event is not a valid event object */
    HCQCL_DEFAULT_CHECK_OBJ(event, HCQCL_TYPE_EVENT, CL_INVALID_EVENT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clFlush, (cl_command_queue command_queue))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clFinish, (cl_command_queue command_queue))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueReadBuffer,
              (cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_read, size_t offset,
               size_t size, void *ptr, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueWriteBuffer,
              (cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_write, size_t offset,
               size_t size, const void *ptr, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueCopyBuffer,
              (cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_buffer,
               size_t src_offset, size_t dst_offset, size_t size, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(void *, clEnqueueMapBuffer,
              (cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_map,
               cl_map_flags map_flags, size_t offset, size_t size, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event, cl_int *errcode_ret))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueUnmapMemObject,
              (cl_command_queue command_queue, cl_mem memobj, void *mapped_ptr,
               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueNDRangeKernel,
              (cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
               const size_t *global_work_offset, const size_t *global_work_size,
               const size_t *local_work_size, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueTask,
              (cl_command_queue command_queue, cl_kernel kernel, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueMarker, (cl_command_queue command_queue, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueWaitForEvents,
              (cl_command_queue command_queue, cl_uint num_events, const cl_event *event_list))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueBarrier, (cl_command_queue command_queue))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clSetEventCallback,
              (cl_event event, cl_int command_exec_callback_type,
               void(CL_CALLBACK *pfn_notify)(cl_event event, cl_int event_command_status,
                                             void *user_data),
               void *user_data))
{
    /* CL_INVALID_EVENT if event is not a valid event object */
    HCQCL_DEFAULT_CHECK_OBJ(event, HCQCL_TYPE_EVENT, CL_INVALID_EVENT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateSubBuffer,
              (cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type buffer_create_type,
               const void *buffer_create_info, cl_int *errcode_ret))
{
    /* CL_INVALID_MEM_OBJECT if buffer is not a valid memory object */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(buffer, HCQCL_TYPE_MEM, CL_INVALID_MEM_OBJECT);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clSetMemObjectDestructorCallback,
              (cl_mem memobj, void(CL_CALLBACK *pfn_notify)(cl_mem memobj, void *user_data),
               void *user_data))
{
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_DEFAULT_CHECK_OBJ(memobj, HCQCL_TYPE_MEM, CL_INVALID_MEM_OBJECT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_event, clCreateUserEvent, (cl_context context, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clSetUserEventStatus, (cl_event event, cl_int execution_status))
{
    /* CL_INVALID_EVENT if event is not a valid event object */
    HCQCL_DEFAULT_CHECK_OBJ(event, HCQCL_TYPE_EVENT, CL_INVALID_EVENT);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueReadBufferRect,
              (cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_read,
               const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
               size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
               size_t host_slice_pitch, void *ptr, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueWriteBufferRect,
              (cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_write,
               const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
               size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
               size_t host_slice_pitch, const void *ptr, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueCopyBufferRect,
              (cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_buffer,
               const size_t *src_origin, const size_t *dst_origin, const size_t *region,
               size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch,
               size_t dst_slice_pitch, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clCompileProgram,
              (cl_program program, cl_uint num_devices, const cl_device_id *device_list,
               const char *options, cl_uint num_input_headers, const cl_program *input_headers,
               const char **header_include_names,
               void(CL_CALLBACK *pfn_notify)(cl_program program, void *user_data), void *user_data))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_program, clLinkProgram,
              (cl_context context, cl_uint num_devices, const cl_device_id *device_list,
               const char *options, cl_uint num_input_programs, const cl_program *input_programs,
               void(CL_CALLBACK *pfn_notify)(cl_program program, void *user_data), void *user_data,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetKernelArgInfo,
              (cl_kernel kernel, cl_uint arg_indx, cl_kernel_arg_info param_name,
               size_t param_value_size, void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueFillBuffer,
              (cl_command_queue command_queue, cl_mem buffer, const void *pattern,
               size_t pattern_size, size_t offset, size_t size, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueMigrateMemObjects,
              (cl_command_queue command_queue, cl_uint num_mem_objects, const cl_mem *mem_objects,
               cl_mem_migration_flags flags, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueMarkerWithWaitList,
              (cl_command_queue command_queue, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueBarrierWithWaitList,
              (cl_command_queue command_queue, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_command_queue, clCreateCommandQueueWithProperties,
              (cl_context context, cl_device_id device, const cl_queue_properties *properties,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clSetKernelExecInfo,
              (cl_kernel kernel, cl_kernel_exec_info param_name, size_t param_value_size,
               const void *param_value))
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_kernel, clCloneKernel, (cl_kernel source_kernel, cl_int *errcode_ret))
{
    /* CL_INVALID_KERNEL if source_kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(source_kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(CL_API_PREFIX__VERSION_2_2_DEPRECATED cl_int, clSetProgramReleaseCallback,
              (cl_program program,
               void(CL_CALLBACK *pfn_notify)(cl_program program, void *user_data), void *user_data))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateBufferWithProperties,
              (cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
               size_t size, void *host_ptr, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

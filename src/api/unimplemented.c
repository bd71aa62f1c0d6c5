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

/* CL_INVALID_CONTEXT if context is not a valid context */
HCQCL_DEFAULT_NULL(cl_command_queue, clCreateCommandQueue, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_device_id device,
                   cl_command_queue_properties properties, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateBuffer, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_mem_flags flags, size_t size,
                   void *host_ptr, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_program, clCreateProgramWithSource, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_uint count, const char **strings,
                   const size_t *lengths, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_program, clCreateProgramWithBinary, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_uint num_devices,
                   const cl_device_id *device_list, const size_t *lengths,
                   const unsigned char **binaries, cl_int *binary_status, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_event, clCreateUserEvent, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_program, clLinkProgram, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_uint num_devices,
                   const cl_device_id *device_list, const char *options, cl_uint num_input_programs,
                   const cl_program *input_programs,
                   void(CL_CALLBACK *pfn_notify)(cl_program program, void *user_data),
                   void *user_data, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_command_queue, clCreateCommandQueueWithProperties, context, CONTEXT,
                   CL_INVALID_CONTEXT, CL_INVALID_OPERATION, (cl_context context,
                   cl_device_id device, const cl_queue_properties *properties, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateBufferWithProperties, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, const cl_mem_properties *properties,
                   cl_mem_flags flags, size_t size, void *host_ptr, cl_int *errcode_ret))

/* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
HCQCL_DEFAULT_ERR(cl_int, clRetainCommandQueue, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue))
HCQCL_DEFAULT_ERR(cl_int, clReleaseCommandQueue, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue))
HCQCL_DEFAULT_ERR(cl_int, clGetCommandQueueInfo, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue,
                  cl_command_queue_info param_name, size_t param_value_size, void *param_value,
                  size_t *param_value_size_ret))
HCQCL_DEFAULT_ERR(cl_int, clSetCommandQueueProperty, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue,
                  cl_command_queue_properties properties, cl_bool enable,
                  cl_command_queue_properties *old_properties))
HCQCL_DEFAULT_ERR(cl_int, clFlush, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue))
HCQCL_DEFAULT_ERR(cl_int, clFinish, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueReadBuffer, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_mem buffer,
                  cl_bool blocking_read, size_t offset, size_t size, void *ptr,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueWriteBuffer, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_mem buffer,
                  cl_bool blocking_write, size_t offset, size_t size, const void *ptr,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueCopyBuffer, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_mem src_buffer,
                  cl_mem dst_buffer, size_t src_offset, size_t dst_offset, size_t size,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_NULL(void *, clEnqueueMapBuffer, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                   CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_mem buffer,
                   cl_bool blocking_map, cl_map_flags map_flags, size_t offset, size_t size,
                   cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                   cl_event *event, cl_int *errcode_ret))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueUnmapMemObject, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_mem memobj,
                  void *mapped_ptr, cl_uint num_events_in_wait_list,
                  const cl_event *event_wait_list, cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueNDRangeKernel, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_kernel kernel,
                  cl_uint work_dim, const size_t *global_work_offset,
                  const size_t *global_work_size, const size_t *local_work_size,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueTask, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_kernel kernel,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueMarker, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueWaitForEvents, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_uint num_events,
                  const cl_event *event_list))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueBarrier, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueReadBufferRect, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_mem buffer,
                  cl_bool blocking_read, const size_t *buffer_origin, const size_t *host_origin,
                  const size_t *region, size_t buffer_row_pitch, size_t buffer_slice_pitch,
                  size_t host_row_pitch, size_t host_slice_pitch, void *ptr,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueWriteBufferRect, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_mem buffer,
                  cl_bool blocking_write, const size_t *buffer_origin, const size_t *host_origin,
                  const size_t *region, size_t buffer_row_pitch, size_t buffer_slice_pitch,
                  size_t host_row_pitch, size_t host_slice_pitch, const void *ptr,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueCopyBufferRect, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_mem src_buffer,
                  cl_mem dst_buffer, const size_t *src_origin, const size_t *dst_origin,
                  const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
                  size_t dst_row_pitch, size_t dst_slice_pitch, cl_uint num_events_in_wait_list,
                  const cl_event *event_wait_list, cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueFillBuffer, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue command_queue, cl_mem buffer,
                  const void *pattern, size_t pattern_size, size_t offset, size_t size,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueMigrateMemObjects, command_queue, QUEUE,
                  CL_INVALID_COMMAND_QUEUE, CL_INVALID_OPERATION, (cl_command_queue command_queue,
                  cl_uint num_mem_objects, const cl_mem *mem_objects, cl_mem_migration_flags flags,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueMarkerWithWaitList, command_queue, QUEUE,
                  CL_INVALID_COMMAND_QUEUE, CL_INVALID_OPERATION, (cl_command_queue command_queue,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueBarrierWithWaitList, command_queue, QUEUE,
                  CL_INVALID_COMMAND_QUEUE, CL_INVALID_OPERATION, (cl_command_queue command_queue,
                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                  cl_event *event))

/* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
HCQCL_DEFAULT_ERR(cl_int, clRetainMemObject, memobj, MEM, CL_INVALID_MEM_OBJECT,
                  CL_INVALID_OPERATION, (cl_mem memobj))
HCQCL_DEFAULT_ERR(cl_int, clReleaseMemObject, memobj, MEM, CL_INVALID_MEM_OBJECT,
                  CL_INVALID_OPERATION, (cl_mem memobj))
HCQCL_DEFAULT_ERR(cl_int, clGetMemObjectInfo, memobj, MEM, CL_INVALID_MEM_OBJECT,
                  CL_INVALID_OPERATION, (cl_mem memobj, cl_mem_info param_name,
                  size_t param_value_size, void *param_value, size_t *param_value_size_ret))
HCQCL_DEFAULT_ERR(cl_int, clSetMemObjectDestructorCallback, memobj, MEM, CL_INVALID_MEM_OBJECT,
                  CL_INVALID_OPERATION, (cl_mem memobj, void(CL_CALLBACK *pfn_notify)(cl_mem memobj,
                  void *user_data), void *user_data))

/* CL_INVALID_PROGRAM if program is not a valid program object */
HCQCL_DEFAULT_ERR(cl_int, clRetainProgram, program, PROGRAM, CL_INVALID_PROGRAM,
                  CL_INVALID_OPERATION, (cl_program program))
HCQCL_DEFAULT_ERR(cl_int, clReleaseProgram, program, PROGRAM, CL_INVALID_PROGRAM,
                  CL_INVALID_OPERATION, (cl_program program))
HCQCL_DEFAULT_ERR(cl_int, clBuildProgram, program, PROGRAM, CL_INVALID_PROGRAM,
                  CL_INVALID_OPERATION, (cl_program program, cl_uint num_devices,
                  const cl_device_id *device_list, const char *options,
                  void(CL_CALLBACK *pfn_notify)(cl_program program, void *user_data),
                  void *user_data))
HCQCL_DEFAULT_ERR(cl_int, clGetProgramInfo, program, PROGRAM, CL_INVALID_PROGRAM,
                  CL_INVALID_OPERATION, (cl_program program, cl_program_info param_name,
                  size_t param_value_size, void *param_value, size_t *param_value_size_ret))
HCQCL_DEFAULT_ERR(cl_int, clGetProgramBuildInfo, program, PROGRAM, CL_INVALID_PROGRAM,
                  CL_INVALID_OPERATION, (cl_program program, cl_device_id device,
                  cl_program_build_info param_name, size_t param_value_size, void *param_value,
                  size_t *param_value_size_ret))
HCQCL_DEFAULT_NULL(cl_kernel, clCreateKernel, program, PROGRAM, CL_INVALID_PROGRAM,
                   CL_INVALID_OPERATION, (cl_program program, const char *kernel_name,
                   cl_int *errcode_ret))
HCQCL_DEFAULT_ERR(cl_int, clCreateKernelsInProgram, program, PROGRAM, CL_INVALID_PROGRAM,
                  CL_INVALID_OPERATION, (cl_program program, cl_uint num_kernels,
                  cl_kernel *kernels, cl_uint *num_kernels_ret))
HCQCL_DEFAULT_ERR(cl_int, clCompileProgram, program, PROGRAM, CL_INVALID_PROGRAM,
                  CL_INVALID_OPERATION, (cl_program program, cl_uint num_devices,
                  const cl_device_id *device_list, const char *options, cl_uint num_input_headers,
                  const cl_program *input_headers, const char **header_include_names,
                  void(CL_CALLBACK *pfn_notify)(cl_program program, void *user_data),
                  void *user_data))
/* CL_INVALID_KERNEL if kernel is not a valid kernel object */
HCQCL_DEFAULT_ERR(cl_int, clRetainKernel, kernel, KERNEL, CL_INVALID_KERNEL, CL_INVALID_OPERATION,
                  (cl_kernel kernel))
HCQCL_DEFAULT_ERR(cl_int, clReleaseKernel, kernel, KERNEL, CL_INVALID_KERNEL, CL_INVALID_OPERATION,
                  (cl_kernel kernel))
HCQCL_DEFAULT_ERR(cl_int, clSetKernelArg, kernel, KERNEL, CL_INVALID_KERNEL, CL_INVALID_OPERATION,
                  (cl_kernel kernel, cl_uint arg_index, size_t arg_size, const void *arg_value))
HCQCL_DEFAULT_ERR(cl_int, clGetKernelInfo, kernel, KERNEL, CL_INVALID_KERNEL, CL_INVALID_OPERATION,
                  (cl_kernel kernel, cl_kernel_info param_name, size_t param_value_size,
                  void *param_value, size_t *param_value_size_ret))
HCQCL_DEFAULT_ERR(cl_int, clGetKernelWorkGroupInfo, kernel, KERNEL, CL_INVALID_KERNEL,
                  CL_INVALID_OPERATION, (cl_kernel kernel, cl_device_id device,
                  cl_kernel_work_group_info param_name, size_t param_value_size, void *param_value,
                  size_t *param_value_size_ret))
HCQCL_DEFAULT_ERR(cl_int, clGetKernelArgInfo, kernel, KERNEL, CL_INVALID_KERNEL,
                  CL_INVALID_OPERATION, (cl_kernel kernel, cl_uint arg_indx,
                  cl_kernel_arg_info param_name, size_t param_value_size, void *param_value,
                  size_t *param_value_size_ret))
HCQCL_DEFAULT(cl_int, clWaitForEvents, (cl_uint num_events, const cl_event *event_list))
{
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

/* CL_INVALID_EVENT if event is not a valid event object */
HCQCL_DEFAULT_ERR(cl_int, clGetEventInfo, event, EVENT, CL_INVALID_EVENT, CL_INVALID_OPERATION,
                  (cl_event event, cl_event_info param_name, size_t param_value_size,
                  void *param_value, size_t *param_value_size_ret))
HCQCL_DEFAULT_ERR(cl_int, clRetainEvent, event, EVENT, CL_INVALID_EVENT, CL_INVALID_OPERATION,
                  (cl_event event))
HCQCL_DEFAULT_ERR(cl_int, clReleaseEvent, event, EVENT, CL_INVALID_EVENT, CL_INVALID_OPERATION,
                  (cl_event event))
HCQCL_DEFAULT_ERR(cl_int, clGetEventProfilingInfo, event, EVENT, CL_INVALID_EVENT,
                  CL_INVALID_OPERATION, (cl_event event, cl_profiling_info param_name,
                  size_t param_value_size, void *param_value, size_t *param_value_size_ret))
HCQCL_DEFAULT_ERR(cl_int, clSetEventCallback, event, EVENT, CL_INVALID_EVENT, CL_INVALID_OPERATION,
                  (cl_event event, cl_int command_exec_callback_type,
                  void(CL_CALLBACK *pfn_notify)(cl_event event, cl_int event_command_status,
                  void *user_data), void *user_data))
HCQCL_DEFAULT_ERR(cl_int, clSetUserEventStatus, event, EVENT, CL_INVALID_EVENT,
                  CL_INVALID_OPERATION, (cl_event event, cl_int execution_status))

/* CL_INVALID_MEM_OBJECT if buffer is not a valid memory object */
HCQCL_DEFAULT_NULL(cl_mem, clCreateSubBuffer, buffer, MEM, CL_INVALID_MEM_OBJECT,
                   CL_INVALID_OPERATION, (cl_mem buffer, cl_mem_flags flags,
                   cl_buffer_create_type buffer_create_type, const void *buffer_create_info,
                   cl_int *errcode_ret))

/* CL_INVALID_KERNEL if source_kernel is not a valid kernel object */
HCQCL_DEFAULT_NULL(cl_kernel, clCloneKernel, source_kernel, KERNEL, CL_INVALID_KERNEL,
                   CL_INVALID_OPERATION, (cl_kernel source_kernel, cl_int *errcode_ret))

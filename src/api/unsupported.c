/*
 * unsupported.c — default definitions for the optional features hcqcl's
 * devices do not offer: images and samplers (CL_DEVICE_IMAGE_SUPPORT is
 * CL_FALSE), GL/EGL/Direct3D sharing, native kernels, pipes, SVM,
 * intermediate languages, sub-groups, on-device queues and device fission.
 *
 * Each answers with the error the OpenCL 3.0 specification names for a
 * device without the feature, after validating its first handle. They are
 * weak aliases like those of unimplemented.c, so a later implementation
 * of a feature replaces them without editing this file.
 */
#include "api/obj.h"

HCQCL_DEFAULT(cl_mem, clCreateImage2D,
              (cl_context context, cl_mem_flags flags, const cl_image_format *image_format,
               size_t image_width, size_t image_height, size_t image_row_pitch, void *host_ptr,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION if there are no devices in context that support images */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateImage3D,
              (cl_context context, cl_mem_flags flags, const cl_image_format *image_format,
               size_t image_width, size_t image_height, size_t image_depth, size_t image_row_pitch,
               size_t image_slice_pitch, void *host_ptr, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION if there are no devices in context that support images */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetImageInfo,
              (cl_mem image, cl_image_info param_name, size_t param_value_size, void *param_value,
               size_t *param_value_size_ret))
{
    /* CL_INVALID_MEM_OBJECT if image is not a valid memory object */
    HCQCL_DEFAULT_CHECK_OBJ(image, HCQCL_TYPE_MEM, CL_INVALID_MEM_OBJECT);
    /* CL_INVALID_MEM_OBJECT if image is not a valid image object (no image can exist) */
    return HCQCL_UNSUPPORTED(CL_INVALID_MEM_OBJECT);
}

HCQCL_DEFAULT(cl_sampler, clCreateSampler,
              (cl_context context, cl_bool normalized_coords, cl_addressing_mode addressing_mode,
               cl_filter_mode filter_mode, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION if images are not supported by any device associated with context */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clRetainSampler, (cl_sampler sampler))
{
    /* CL_INVALID_SAMPLER if sampler is not a valid sampler object */
    HCQCL_DEFAULT_CHECK_OBJ(sampler, HCQCL_TYPE_SAMPLER, CL_INVALID_SAMPLER);
    /* CL_INVALID_SAMPLER if sampler is not a valid sampler object (no sampler can exist) */
    return HCQCL_UNSUPPORTED(CL_INVALID_SAMPLER);
}

HCQCL_DEFAULT(cl_int, clReleaseSampler, (cl_sampler sampler))
{
    /* CL_INVALID_SAMPLER if sampler is not a valid sampler object */
    HCQCL_DEFAULT_CHECK_OBJ(sampler, HCQCL_TYPE_SAMPLER, CL_INVALID_SAMPLER);
    /* CL_INVALID_SAMPLER if sampler is not a valid sampler object (no sampler can exist) */
    return HCQCL_UNSUPPORTED(CL_INVALID_SAMPLER);
}

HCQCL_DEFAULT(cl_int, clGetSamplerInfo,
              (cl_sampler sampler, cl_sampler_info param_name, size_t param_value_size,
               void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_SAMPLER if sampler is not a valid sampler object */
    HCQCL_DEFAULT_CHECK_OBJ(sampler, HCQCL_TYPE_SAMPLER, CL_INVALID_SAMPLER);
    /* CL_INVALID_SAMPLER if sampler is not a valid sampler object (no sampler can exist) */
    return HCQCL_UNSUPPORTED(CL_INVALID_SAMPLER);
}

HCQCL_DEFAULT(cl_int, clEnqueueReadImage,
              (cl_command_queue command_queue, cl_mem image, cl_bool blocking_read,
               const size_t *origin, const size_t *region, size_t row_pitch, size_t slice_pitch,
               void *ptr, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
               cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support images */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueWriteImage,
              (cl_command_queue command_queue, cl_mem image, cl_bool blocking_write,
               const size_t *origin, const size_t *region, size_t input_row_pitch,
               size_t input_slice_pitch, const void *ptr, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support images */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueCopyImage,
              (cl_command_queue command_queue, cl_mem src_image, cl_mem dst_image,
               const size_t *src_origin, const size_t *dst_origin, const size_t *region,
               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support images */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueCopyImageToBuffer,
              (cl_command_queue command_queue, cl_mem src_image, cl_mem dst_buffer,
               const size_t *src_origin, const size_t *region, size_t dst_offset,
               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support images */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueCopyBufferToImage,
              (cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_image,
               size_t src_offset, const size_t *dst_origin, const size_t *region,
               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support images */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(void *, clEnqueueMapImage,
              (cl_command_queue command_queue, cl_mem image, cl_bool blocking_map,
               cl_map_flags map_flags, const size_t *origin, const size_t *region,
               size_t *image_row_pitch, size_t *image_slice_pitch, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event, cl_int *errcode_ret))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support images */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueNativeKernel,
              (cl_command_queue command_queue, void(CL_CALLBACK *user_func)(void *), void *args,
               size_t cb_args, cl_uint num_mem_objects, const cl_mem *mem_list,
               const void **args_mem_loc, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue cannot execute the native kernel */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromGLBuffer,
              (cl_context context, cl_mem_flags flags, cl_GLuint bufobj, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_CONTEXT if context is not a valid context or was not created from a GL context */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_CONTEXT);
}

HCQCL_DEFAULT(cl_mem, clCreateFromGLTexture2D,
              (cl_context context, cl_mem_flags flags, cl_GLenum target, cl_GLint miplevel,
               cl_GLuint texture, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_CONTEXT if context is not a valid context or was not created from a GL context */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_CONTEXT);
}

HCQCL_DEFAULT(cl_mem, clCreateFromGLTexture3D,
              (cl_context context, cl_mem_flags flags, cl_GLenum target, cl_GLint miplevel,
               cl_GLuint texture, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_CONTEXT if context is not a valid context or was not created from a GL context */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_CONTEXT);
}

HCQCL_DEFAULT(cl_mem, clCreateFromGLRenderbuffer,
              (cl_context context, cl_mem_flags flags, cl_GLuint renderbuffer, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_CONTEXT if context is not a valid context or was not created from a GL context */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_CONTEXT);
}

HCQCL_DEFAULT(cl_int, clGetGLObjectInfo,
              (cl_mem memobj, cl_gl_object_type *gl_object_type, cl_GLuint *gl_object_name))
{
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_DEFAULT_CHECK_OBJ(memobj, HCQCL_TYPE_MEM, CL_INVALID_MEM_OBJECT);
    /* CL_INVALID_GL_OBJECT if there is no GL object associated with memobj */
    return HCQCL_UNSUPPORTED(CL_INVALID_GL_OBJECT);
}

HCQCL_DEFAULT(cl_int, clGetGLTextureInfo,
              (cl_mem memobj, cl_gl_texture_info param_name, size_t param_value_size,
               void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
    HCQCL_DEFAULT_CHECK_OBJ(memobj, HCQCL_TYPE_MEM, CL_INVALID_MEM_OBJECT);
    /* CL_INVALID_GL_OBJECT if there is no GL object associated with memobj */
    return HCQCL_UNSUPPORTED(CL_INVALID_GL_OBJECT);
}

HCQCL_DEFAULT(cl_int, clEnqueueAcquireGLObjects,
              (cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_CONTEXT if context associated with command_queue was not created from an OpenGL context */
    return HCQCL_UNSUPPORTED(CL_INVALID_CONTEXT);
}

HCQCL_DEFAULT(cl_int, clEnqueueReleaseGLObjects,
              (cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_CONTEXT if context associated with command_queue was not created from an OpenGL context */
    return HCQCL_UNSUPPORTED(CL_INVALID_CONTEXT);
}

HCQCL_DEFAULT(cl_int, clGetGLContextInfoKHR,
              (const cl_context_properties *properties, cl_gl_context_info param_name,
               size_t param_value_size, void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_OPERATION: cl_khr_gl_sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetDeviceIDsFromD3D10KHR,
              (cl_platform_id platform, cl_uint source, void *object, cl_uint set,
               cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices))
{
    /* CL_INVALID_PLATFORM if platform is not a valid platform */
    HCQCL_DEFAULT_CHECK_PLATFORM(platform);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromD3D10BufferKHR,
              (cl_context context, cl_mem_flags flags, void *resource, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromD3D10Texture2DKHR,
              (cl_context context, cl_mem_flags flags, void *resource, cl_uint subresource,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromD3D10Texture3DKHR,
              (cl_context context, cl_mem_flags flags, void *resource, cl_uint subresource,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueAcquireD3D10ObjectsKHR,
              (cl_command_queue queue, cl_uint num_objects, const cl_mem *objects,
               cl_uint num_events, const cl_event *wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueReleaseD3D10ObjectsKHR,
              (cl_command_queue queue, cl_uint num_objects, const cl_mem *objects,
               cl_uint num_events, const cl_event *wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clCreateSubDevicesEXT,
              (cl_device_id in_device, const cl_device_partition_property_ext *properties,
               cl_uint num_entries, cl_device_id *out_devices, cl_uint *num_devices))
{
    /* CL_INVALID_DEVICE if in_device is not a valid device */
    HCQCL_DEFAULT_CHECK_OBJ(in_device, HCQCL_TYPE_DEVICE, CL_INVALID_DEVICE);
    /* CL_INVALID_OPERATION: cl_ext_device_fission is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clRetainDeviceEXT, (cl_device_id device))
{
    /* CL_INVALID_DEVICE if device is not a valid device */
    HCQCL_DEFAULT_CHECK_OBJ(device, HCQCL_TYPE_DEVICE, CL_INVALID_DEVICE);
    /* CL_INVALID_OPERATION: cl_ext_device_fission is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clReleaseDeviceEXT, (cl_device_id device))
{
    /* CL_INVALID_DEVICE if device is not a valid device */
    HCQCL_DEFAULT_CHECK_OBJ(device, HCQCL_TYPE_DEVICE, CL_INVALID_DEVICE);
    /* CL_INVALID_OPERATION: cl_ext_device_fission is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_event, clCreateEventFromGLsyncKHR,
              (cl_context context, cl_GLsync sync, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_CONTEXT if context is not a valid context or was not created from a GL context */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_CONTEXT);
}

HCQCL_DEFAULT(cl_mem, clCreateImage,
              (cl_context context, cl_mem_flags flags, const cl_image_format *image_format,
               const cl_image_desc *image_desc, void *host_ptr, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION if there are no devices in context that support images */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_program, clCreateProgramWithBuiltInKernels,
              (cl_context context, cl_uint num_devices, const cl_device_id *device_list,
               const char *kernel_names, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_VALUE if kernel_names contains a kernel name that is not supported by any of the devices in device_list */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_VALUE);
}

HCQCL_DEFAULT(cl_int, clEnqueueFillImage,
              (cl_command_queue command_queue, cl_mem image, const void *fill_color,
               const size_t *origin, const size_t *region, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support images */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromGLTexture,
              (cl_context context, cl_mem_flags flags, cl_GLenum target, cl_GLint miplevel,
               cl_GLuint texture, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_CONTEXT if context is not a valid context or was not created from a GL context */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_CONTEXT);
}

HCQCL_DEFAULT(cl_int, clGetDeviceIDsFromD3D11KHR,
              (cl_platform_id platform, cl_uint source, void *object, cl_uint set,
               cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices))
{
    /* CL_INVALID_PLATFORM if platform is not a valid platform */
    HCQCL_DEFAULT_CHECK_PLATFORM(platform);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromD3D11BufferKHR,
              (cl_context context, cl_mem_flags flags, void *resource, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromD3D11Texture2DKHR,
              (cl_context context, cl_mem_flags flags, void *resource, cl_uint subresource,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromD3D11Texture3DKHR,
              (cl_context context, cl_mem_flags flags, void *resource, cl_uint subresource,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromDX9MediaSurfaceKHR,
              (cl_context context, cl_mem_flags flags, cl_uint adapter_type, void *surface_info,
               cl_uint plane, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueAcquireD3D11ObjectsKHR,
              (cl_command_queue queue, cl_uint num_objects, const cl_mem *objects,
               cl_uint num_events, const cl_event *wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueReleaseD3D11ObjectsKHR,
              (cl_command_queue queue, cl_uint num_objects, const cl_mem *objects,
               cl_uint num_events, const cl_event *wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetDeviceIDsFromDX9MediaAdapterKHR,
              (cl_platform_id platform, cl_uint num_adapters, cl_uint *adapter_types,
               void *adapters, cl_uint set, cl_uint num_entries, cl_device_id *devices,
               cl_uint *num_devices))
{
    /* CL_INVALID_PLATFORM if platform is not a valid platform */
    HCQCL_DEFAULT_CHECK_PLATFORM(platform);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueAcquireDX9MediaSurfacesKHR,
              (cl_command_queue queue, cl_uint num_objects, const cl_mem *objects,
               cl_uint num_events, const cl_event *wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueReleaseDX9MediaSurfacesKHR,
              (cl_command_queue queue, cl_uint num_objects, const cl_mem *objects,
               cl_uint num_events, const cl_event *wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateFromEGLImageKHR,
              (cl_context context, CLeglDisplayKHR egldisplay, CLeglImageKHR eglimage,
               cl_mem_flags flags, const cl_egl_image_properties_khr *properties,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION: cl_khr_egl_image / cl_khr_egl_event are not offered */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueAcquireEGLObjectsKHR,
              (cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION: cl_khr_egl_image / cl_khr_egl_event are not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueReleaseEGLObjectsKHR,
              (cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION: cl_khr_egl_image / cl_khr_egl_event are not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_event, clCreateEventFromEGLSyncKHR,
              (cl_context context, CLeglSyncKHR sync, CLeglDisplayKHR display, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION: cl_khr_egl_image / cl_khr_egl_event are not offered */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreatePipe,
              (cl_context context, cl_mem_flags flags, cl_uint pipe_packet_size,
               cl_uint pipe_max_packets, const cl_pipe_properties *properties, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION if no devices in context support pipes */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetPipeInfo,
              (cl_mem pipe, cl_pipe_info param_name, size_t param_value_size, void *param_value,
               size_t *param_value_size_ret))
{
    /* CL_INVALID_MEM_OBJECT if pipe is not a valid memory object */
    HCQCL_DEFAULT_CHECK_OBJ(pipe, HCQCL_TYPE_MEM, CL_INVALID_MEM_OBJECT);
    /* CL_INVALID_MEM_OBJECT if pipe is not a valid pipe object (no pipe can exist) */
    return HCQCL_UNSUPPORTED(CL_INVALID_MEM_OBJECT);
}

HCQCL_DEFAULT(void *, clSVMAlloc,
              (cl_context context, cl_svm_mem_flags flags, size_t size, cl_uint alignment))
{
    /* NULL if no devices in context support SVM */
    hcqcl_unsupported(__func__, CL_INVALID_OPERATION);
    return NULL;
}

HCQCL_DEFAULT(void, clSVMFree, (cl_context context, void *svm_pointer))
{
    /* No SVM allocation can exist: nothing to free. */
    (void)svm_pointer;
    hcqcl_unsupported(__func__, CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueSVMFree,
              (cl_command_queue command_queue, cl_uint num_svm_pointers, void *svm_pointers[],
               void(CL_CALLBACK *pfn_free_func)(cl_command_queue queue, cl_uint num_svm_pointers,
                                                void *svm_pointers[], void *user_data),
               void *user_data, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
               cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support SVM */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueSVMMemcpy,
              (cl_command_queue command_queue, cl_bool blocking_copy, void *dst_ptr,
               const void *src_ptr, size_t size, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support SVM */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueSVMMemFill,
              (cl_command_queue command_queue, void *svm_ptr, const void *pattern,
               size_t pattern_size, size_t size, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support SVM */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueSVMMap,
              (cl_command_queue command_queue, cl_bool blocking_map, cl_map_flags flags,
               void *svm_ptr, size_t size, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support SVM */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueSVMUnmap,
              (cl_command_queue command_queue, void *svm_ptr, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support SVM */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_sampler, clCreateSamplerWithProperties,
              (cl_context context, const cl_sampler_properties *sampler_properties,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION if images are not supported by any device associated with context */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clSetKernelArgSVMPointer,
              (cl_kernel kernel, cl_uint arg_index, const void *arg_value))
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    /* CL_INVALID_OPERATION if no devices in the context associated with kernel support SVM */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetKernelSubGroupInfoKHR,
              (cl_kernel in_kernel, cl_device_id in_device, cl_kernel_sub_group_info param_name,
               size_t input_value_size, const void *input_value, size_t param_value_size,
               void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_KERNEL if in_kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(in_kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    /* CL_INVALID_OPERATION if device does not support subgroups */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_program, clCreateProgramWithIL,
              (cl_context context, const void *il, size_t length, cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION if no devices in context support intermediate language programs */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clEnqueueSVMMigrateMem,
              (cl_command_queue command_queue, cl_uint num_svm_pointers, const void **svm_pointers,
               const size_t *sizes, cl_mem_migration_flags flags, cl_uint num_events_in_wait_list,
               const cl_event *event_wait_list, cl_event *event))
{
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
    HCQCL_DEFAULT_CHECK_OBJ(command_queue, HCQCL_TYPE_QUEUE, CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_OPERATION if the device associated with command_queue does not support SVM */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clGetKernelSubGroupInfo,
              (cl_kernel kernel, cl_device_id device, cl_kernel_sub_group_info param_name,
               size_t input_value_size, const void *input_value, size_t param_value_size,
               void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_DEFAULT_CHECK_OBJ(kernel, HCQCL_TYPE_KERNEL, CL_INVALID_KERNEL);
    /* CL_INVALID_OPERATION if device does not support subgroups */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clSetDefaultDeviceCommandQueue,
              (cl_context context, cl_device_id device, cl_command_queue command_queue))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION if device does not support a replaceable default on-device queue */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_int, clSetProgramSpecializationConstant,
              (cl_program program, cl_uint spec_id, size_t spec_size, const void *spec_value))
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_DEFAULT_CHECK_OBJ(program, HCQCL_TYPE_PROGRAM, CL_INVALID_PROGRAM);
    /* CL_INVALID_OPERATION if no devices associated with program support intermediate language programs */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

HCQCL_DEFAULT(cl_mem, clCreateImageWithProperties,
              (cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
               const cl_image_format *image_format, const cl_image_desc *image_desc, void *host_ptr,
               cl_int *errcode_ret))
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_DEFAULT_CHECK_OBJ_ERR(context, HCQCL_TYPE_CONTEXT, CL_INVALID_CONTEXT);
    /* CL_INVALID_OPERATION if there are no devices in context that support images */
    return HCQCL_UNSUPPORTED_OBJ(CL_INVALID_OPERATION);
}

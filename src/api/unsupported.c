/*
 * unsupported.c — default definitions for the optional features hcqcl's
 * devices do not offer: GL/EGL/Direct3D sharing, native kernels, pipes,
 * intermediate languages, sub-groups, on-device queues and device fission.
 *
 * Each answers with the error the OpenCL 3.0 specification names for a
 * device without the feature, after validating its first handle. They are
 * weak aliases like those of unimplemented.c, so a later implementation
 * of a feature replaces them without editing this file. Entry points of
 * these features that check more than their first handle (native kernels,
 * IL and built-in-kernel programs, specialization constants, program
 * release callbacks, sub-devices, sub-group queries, the default device
 * queue) are written out in the files of their objects and marked with
 * HCQCL_NOT_OFFERED.
 */
#include "api/obj.h"

/* CL_INVALID_CONTEXT if context is not a valid context */
/* CL_INVALID_CONTEXT if context is not a valid context or was not created from a GL context */
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromGLBuffer, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_CONTEXT, (cl_context context, cl_mem_flags flags, cl_GLuint bufobj,
                   cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromGLTexture2D, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_CONTEXT, (cl_context context, cl_mem_flags flags, cl_GLenum target,
                   cl_GLint miplevel, cl_GLuint texture, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromGLTexture3D, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_CONTEXT, (cl_context context, cl_mem_flags flags, cl_GLenum target,
                   cl_GLint miplevel, cl_GLuint texture, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromGLRenderbuffer, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_CONTEXT, (cl_context context, cl_mem_flags flags,
                   cl_GLuint renderbuffer, cl_int *errcode_ret))

/* CL_INVALID_MEM_OBJECT if memobj is not a valid memory object */
/* CL_INVALID_GL_OBJECT if there is no GL object associated with memobj */
HCQCL_DEFAULT_ERR(cl_int, clGetGLObjectInfo, memobj, MEM, CL_INVALID_MEM_OBJECT,
                  CL_INVALID_GL_OBJECT, (cl_mem memobj, cl_gl_object_type *gl_object_type,
                  cl_GLuint *gl_object_name))
HCQCL_DEFAULT_ERR(cl_int, clGetGLTextureInfo, memobj, MEM, CL_INVALID_MEM_OBJECT,
                  CL_INVALID_GL_OBJECT, (cl_mem memobj, cl_gl_texture_info param_name,
                  size_t param_value_size, void *param_value, size_t *param_value_size_ret))

/* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
/* CL_INVALID_CONTEXT if context associated with command_queue was not created from an OpenGL context */
HCQCL_DEFAULT_ERR(cl_int, clEnqueueAcquireGLObjects, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_CONTEXT, (cl_command_queue command_queue, cl_uint num_objects,
                  const cl_mem *mem_objects, cl_uint num_events_in_wait_list,
                  const cl_event *event_wait_list, cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueReleaseGLObjects, command_queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_CONTEXT, (cl_command_queue command_queue, cl_uint num_objects,
                  const cl_mem *mem_objects, cl_uint num_events_in_wait_list,
                  const cl_event *event_wait_list, cl_event *event))

HCQCL_DEFAULT(cl_int, clGetGLContextInfoKHR,
              (const cl_context_properties *properties, cl_gl_context_info param_name,
               size_t param_value_size, void *param_value, size_t *param_value_size_ret))
{
    /* CL_INVALID_OPERATION: cl_khr_gl_sharing is not offered */
    return HCQCL_UNSUPPORTED(CL_INVALID_OPERATION);
}

/* CL_INVALID_PLATFORM if platform is not a valid platform */
/* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
HCQCL_DEFAULT_ERR_PLATFORM(clGetDeviceIDsFromD3D10KHR, platform, CL_INVALID_OPERATION,
                           (cl_platform_id platform, cl_uint source, void *object, cl_uint set,
                           cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices))

/* CL_INVALID_CONTEXT if context is not a valid context */
/* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromD3D10BufferKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_mem_flags flags, void *resource,
                   cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromD3D10Texture2DKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_mem_flags flags, void *resource,
                   cl_uint subresource, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromD3D10Texture3DKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_mem_flags flags, void *resource,
                   cl_uint subresource, cl_int *errcode_ret))

/* CL_INVALID_COMMAND_QUEUE if queue is not a valid host command-queue */
/* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
HCQCL_DEFAULT_ERR(cl_int, clEnqueueAcquireD3D10ObjectsKHR, queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue queue, cl_uint num_objects,
                  const cl_mem *objects, cl_uint num_events, const cl_event *wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueReleaseD3D10ObjectsKHR, queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue queue, cl_uint num_objects,
                  const cl_mem *objects, cl_uint num_events, const cl_event *wait_list,
                  cl_event *event))

/* CL_INVALID_DEVICE if in_device is not a valid device */
/* CL_INVALID_OPERATION: cl_ext_device_fission is not offered */
HCQCL_DEFAULT_ERR(cl_int, clCreateSubDevicesEXT, in_device, DEVICE, CL_INVALID_DEVICE,
                  CL_INVALID_OPERATION, (cl_device_id in_device,
                  const cl_device_partition_property_ext *properties, cl_uint num_entries,
                  cl_device_id *out_devices, cl_uint *num_devices))

/* CL_INVALID_DEVICE if device is not a valid device */
/* CL_INVALID_OPERATION: cl_ext_device_fission is not offered */
HCQCL_DEFAULT_ERR(cl_int, clRetainDeviceEXT, device, DEVICE, CL_INVALID_DEVICE,
                  CL_INVALID_OPERATION, (cl_device_id device))
HCQCL_DEFAULT_ERR(cl_int, clReleaseDeviceEXT, device, DEVICE, CL_INVALID_DEVICE,
                  CL_INVALID_OPERATION, (cl_device_id device))

/* CL_INVALID_CONTEXT if context is not a valid context */
/* CL_INVALID_CONTEXT if context is not a valid context or was not created from a GL context */
HCQCL_DEFAULT_NULL(cl_event, clCreateEventFromGLsyncKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_CONTEXT, (cl_context context, cl_GLsync sync, cl_int *errcode_ret))

/* CL_INVALID_CONTEXT if context is not a valid context */
/* CL_INVALID_CONTEXT if context is not a valid context or was not created from a GL context */
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromGLTexture, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_CONTEXT, (cl_context context, cl_mem_flags flags, cl_GLenum target,
                   cl_GLint miplevel, cl_GLuint texture, cl_int *errcode_ret))

/* CL_INVALID_PLATFORM if platform is not a valid platform */
/* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
HCQCL_DEFAULT_ERR_PLATFORM(clGetDeviceIDsFromD3D11KHR, platform, CL_INVALID_OPERATION,
                           (cl_platform_id platform, cl_uint source, void *object, cl_uint set,
                           cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices))

/* CL_INVALID_CONTEXT if context is not a valid context */
/* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromD3D11BufferKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_mem_flags flags, void *resource,
                   cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromD3D11Texture2DKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_mem_flags flags, void *resource,
                   cl_uint subresource, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromD3D11Texture3DKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_mem_flags flags, void *resource,
                   cl_uint subresource, cl_int *errcode_ret))
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromDX9MediaSurfaceKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, cl_mem_flags flags,
                   cl_uint adapter_type, void *surface_info, cl_uint plane, cl_int *errcode_ret))

/* CL_INVALID_COMMAND_QUEUE if queue is not a valid host command-queue */
/* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
HCQCL_DEFAULT_ERR(cl_int, clEnqueueAcquireD3D11ObjectsKHR, queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue queue, cl_uint num_objects,
                  const cl_mem *objects, cl_uint num_events, const cl_event *wait_list,
                  cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueReleaseD3D11ObjectsKHR, queue, QUEUE, CL_INVALID_COMMAND_QUEUE,
                  CL_INVALID_OPERATION, (cl_command_queue queue, cl_uint num_objects,
                  const cl_mem *objects, cl_uint num_events, const cl_event *wait_list,
                  cl_event *event))

/* CL_INVALID_PLATFORM if platform is not a valid platform */
/* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
HCQCL_DEFAULT_ERR_PLATFORM(clGetDeviceIDsFromDX9MediaAdapterKHR, platform, CL_INVALID_OPERATION,
                           (cl_platform_id platform, cl_uint num_adapters, cl_uint *adapter_types,
                           void *adapters, cl_uint set, cl_uint num_entries, cl_device_id *devices,
                           cl_uint *num_devices))

/* CL_INVALID_COMMAND_QUEUE if queue is not a valid host command-queue */
/* CL_INVALID_OPERATION: Direct3D / DX9 media sharing is not offered */
HCQCL_DEFAULT_ERR(cl_int, clEnqueueAcquireDX9MediaSurfacesKHR, queue, QUEUE,
                  CL_INVALID_COMMAND_QUEUE, CL_INVALID_OPERATION, (cl_command_queue queue,
                  cl_uint num_objects, const cl_mem *objects, cl_uint num_events,
                  const cl_event *wait_list, cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueReleaseDX9MediaSurfacesKHR, queue, QUEUE,
                  CL_INVALID_COMMAND_QUEUE, CL_INVALID_OPERATION, (cl_command_queue queue,
                  cl_uint num_objects, const cl_mem *objects, cl_uint num_events,
                  const cl_event *wait_list, cl_event *event))

/* CL_INVALID_CONTEXT if context is not a valid context */
/* CL_INVALID_OPERATION: cl_khr_egl_image / cl_khr_egl_event are not offered */
HCQCL_DEFAULT_NULL(cl_mem, clCreateFromEGLImageKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, CLeglDisplayKHR egldisplay,
                   CLeglImageKHR eglimage, cl_mem_flags flags,
                   const cl_egl_image_properties_khr *properties, cl_int *errcode_ret))

/* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue */
/* CL_INVALID_OPERATION: cl_khr_egl_image / cl_khr_egl_event are not offered */
HCQCL_DEFAULT_ERR(cl_int, clEnqueueAcquireEGLObjectsKHR, command_queue, QUEUE,
                  CL_INVALID_COMMAND_QUEUE, CL_INVALID_OPERATION, (cl_command_queue command_queue,
                  cl_uint num_objects, const cl_mem *mem_objects, cl_uint num_events_in_wait_list,
                  const cl_event *event_wait_list, cl_event *event))
HCQCL_DEFAULT_ERR(cl_int, clEnqueueReleaseEGLObjectsKHR, command_queue, QUEUE,
                  CL_INVALID_COMMAND_QUEUE, CL_INVALID_OPERATION, (cl_command_queue command_queue,
                  cl_uint num_objects, const cl_mem *mem_objects, cl_uint num_events_in_wait_list,
                  const cl_event *event_wait_list, cl_event *event))

/* CL_INVALID_CONTEXT if context is not a valid context */
/* CL_INVALID_OPERATION: cl_khr_egl_image / cl_khr_egl_event are not offered */
HCQCL_DEFAULT_NULL(cl_event, clCreateEventFromEGLSyncKHR, context, CONTEXT, CL_INVALID_CONTEXT,
                   CL_INVALID_OPERATION, (cl_context context, CLeglSyncKHR sync,
                   CLeglDisplayKHR display, cl_int *errcode_ret))

/* CL_INVALID_CONTEXT if context is not a valid context */
/* CL_INVALID_OPERATION if no devices in context support pipes */
HCQCL_DEFAULT_NULL(cl_mem, clCreatePipe, context, CONTEXT, CL_INVALID_CONTEXT, CL_INVALID_OPERATION,
                   (cl_context context, cl_mem_flags flags, cl_uint pipe_packet_size,
                   cl_uint pipe_max_packets, const cl_pipe_properties *properties,
                   cl_int *errcode_ret))

/* CL_INVALID_MEM_OBJECT if pipe is not a valid memory object */
/* CL_INVALID_MEM_OBJECT if pipe is not a valid pipe object (no pipe can exist) */
HCQCL_DEFAULT_ERR(cl_int, clGetPipeInfo, pipe, MEM, CL_INVALID_MEM_OBJECT, CL_INVALID_MEM_OBJECT,
                  (cl_mem pipe, cl_pipe_info param_name, size_t param_value_size, void *param_value,
                  size_t *param_value_size_ret))


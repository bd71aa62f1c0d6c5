/*
 * obj.h — the OpenCL layer's objects, their lifetime and validation.
 *
 * Every handle hcqcl returns points at a struct that begins with
 * struct hcqcl_obj: the ICD dispatch pointer first (the loaders read only
 * that), then a type tag and a reference count. A child takes its dispatch
 * from its parent; children retain their parents.
 *
 * This header is the one header of src/api. Sections below are grouped per
 * object family; each family's .c file implements its section.
 */
#ifndef HCQCL_API_OBJ_H
#define HCQCL_API_OBJ_H

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hcq.h"
#include "util/util.h"

/* The dispatch table (icd/dispatch.c): the installed CL/cl_icd.h's slots
 * and, after them, the slots OpenCL 3.1 appends, which a 3.1 loader
 * calls through an object of any platform (the first: the core
 * clGetKernelSuggestedLocalWorkSize, the KHR function's equal). */
struct hcqcl_dispatch_table {
    struct _cl_icd_dispatch base;
    void *appended[1];
};
extern const struct hcqcl_dispatch_table hcqcl_dispatch_table;
#define hcqcl_dispatch (hcqcl_dispatch_table.base)

enum hcqcl_type {
    HCQCL_TYPE_NONE = 0,
    HCQCL_TYPE_PLATFORM = 0x504c4154, /* 'PLAT' */
    HCQCL_TYPE_DEVICE = 0x44455649,   /* 'DEVI' */
    HCQCL_TYPE_CONTEXT = 0x43545854,  /* 'CTXT' */
    HCQCL_TYPE_QUEUE = 0x51554555,    /* 'QUEU' */
    HCQCL_TYPE_MEM = 0x4d454d4f,      /* 'MEMO' */
    HCQCL_TYPE_PROGRAM = 0x50524f47,  /* 'PROG' */
    HCQCL_TYPE_KERNEL = 0x4b45524e,   /* 'KERN' */
    HCQCL_TYPE_EVENT = 0x45564e54,    /* 'EVNT' */
    HCQCL_TYPE_SAMPLER = 0x53414d50,  /* 'SAMP' */
};

/* Common header. dispatch MUST stay first; disp_data is reserved for
 * cl_khr_icd 2.0 (loader-managed dispatch). */
struct hcqcl_obj {
    const struct _cl_icd_dispatch *dispatch;
    void *disp_data;
    uint32_t type;
    _Atomic uint32_t refs;
};

void hcqcl_obj_init(struct hcqcl_obj *o, enum hcqcl_type type);
/* True when h is non-NULL, carries our dispatch and the given type tag. */
bool hcqcl_obj_valid(const void *h, enum hcqcl_type type);
static inline void hcqcl_obj_retain(struct hcqcl_obj *o)
{
    atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
}
/* A reference, unless the last one is already gone (the object is being
 * destroyed): false then. */
static inline bool hcqcl_obj_retain_live(struct hcqcl_obj *o)
{
    uint32_t refs = atomic_load_explicit(&o->refs, memory_order_relaxed);
    while (refs && !atomic_compare_exchange_weak_explicit(&o->refs, &refs, refs + 1,
                                                          memory_order_relaxed,
                                                          memory_order_relaxed))
        ;
    return refs != 0;
}
/* Returns true when this release dropped the last reference; the caller
 * then destroys the object (and must clear o->type first). */
static inline bool hcqcl_obj_release(struct hcqcl_obj *o)
{
    return atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1;
}
/* The release of an object that outlives its last application reference
 * while its work needs it (queues, events): false when the application
 * holds none (a release too many, answered as an invalid object rather
 * than wrapping the count); else *last says whether this was the last. */
static inline bool hcqcl_obj_release_held(struct hcqcl_obj *o, bool *last)
{
    uint32_t refs = atomic_load_explicit(&o->refs, memory_order_relaxed);
    do {
        if (!refs)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&o->refs, &refs, refs - 1,
                                                    memory_order_acq_rel, memory_order_relaxed));
    *last = refs == 1;
    return true;
}

/* Checks that name themselves: log the condition and the error name.
 *   HCQCL_CHECK(cond, err, fmt, ...)          return err when !cond
 *   HCQCL_CHECK_GOTO(cond, var, err, fmt, ...) var = err; goto fail
 */
const char *hcqcl_error_name(cl_int err);
#define HCQCL_CHECK(cond, err, ...)                                                       \
    do {                                                                                  \
        if (__builtin_expect(!(cond), 0)) {                                               \
            util_log_check(__func__, #cond, hcqcl_error_name(err), __VA_ARGS__);          \
            return (err);                                                                 \
        }                                                                                 \
    } while (0)
/* An unconditional failure (a query's unknown parameter, an operation
 * the device never supports): HCQCL_FAIL(...) that every build
 * type sees return, so a function may end with it. */
#define HCQCL_FAIL(err, ...)                                                              \
    do {                                                                                  \
        util_log_check(__func__, "false", hcqcl_error_name(err), __VA_ARGS__);            \
        return (err);                                                                     \
    } while (0)
#define HCQCL_CHECK_GOTO(cond, var, err, ...)                                             \
    do {                                                                                  \
        if (__builtin_expect(!(cond), 0)) {                                               \
            util_log_check(__func__, #cond, hcqcl_error_name(err), __VA_ARGS__);          \
            (var) = (err);                                                                \
            goto fail;                                                                    \
        }                                                                                 \
    } while (0)

/* Copy a query answer out following the clGet*Info contract:
 * CL_INVALID_VALUE if param_value is not NULL and param_value_size is
 * smaller than size; size returned through *size_ret when not NULL. */
cl_int hcqcl_info_out(const void *src, size_t size, size_t param_value_size,
                      void *param_value, size_t *param_value_size_ret);

/* ==================================================================== */
/* Platform, device, context (platform.c, device.c, context.c)          */
/* ==================================================================== */

/*
 * Entry points. Every OpenCL function hcqcl answers is hcqcl_clXxx
 * (hidden), listed once here in the order of the ICD dispatch table of
 * Khronos' CL/cl_icd.h (149 slots). X: declared by the Khronos headers on
 * every OS, so its prototype is taken from there with __typeof__; W: a
 * Direct3D/DXVA sharing slot, whose prototype only exists on Windows
 * (declared below with the D3D object pointers as void *).
 *
 * Each is defined by the file of its object family; what no file defines
 * yet falls back to the weak default in unimplemented.c or unsupported.c,
 * which returns the spec's error (docs/status.md lists which).
 */
#define HCQCL_ENTRY_POINTS(X, W)                  \
    X(clGetPlatformIDs)                           \
    X(clGetPlatformInfo)                          \
    X(clGetDeviceIDs)                             \
    X(clGetDeviceInfo)                            \
    X(clCreateContext)                            \
    X(clCreateContextFromType)                    \
    X(clRetainContext)                            \
    X(clReleaseContext)                           \
    X(clGetContextInfo)                           \
    X(clCreateCommandQueue)                       \
    X(clRetainCommandQueue)                       \
    X(clReleaseCommandQueue)                      \
    X(clGetCommandQueueInfo)                      \
    X(clSetCommandQueueProperty)                  \
    X(clCreateBuffer)                             \
    X(clCreateImage2D)                            \
    X(clCreateImage3D)                            \
    X(clRetainMemObject)                          \
    X(clReleaseMemObject)                         \
    X(clGetSupportedImageFormats)                 \
    X(clGetMemObjectInfo)                         \
    X(clGetImageInfo)                             \
    X(clCreateSampler)                            \
    X(clRetainSampler)                            \
    X(clReleaseSampler)                           \
    X(clGetSamplerInfo)                           \
    X(clCreateProgramWithSource)                  \
    X(clCreateProgramWithBinary)                  \
    X(clRetainProgram)                            \
    X(clReleaseProgram)                           \
    X(clBuildProgram)                             \
    X(clUnloadCompiler)                           \
    X(clGetProgramInfo)                           \
    X(clGetProgramBuildInfo)                      \
    X(clCreateKernel)                             \
    X(clCreateKernelsInProgram)                   \
    X(clRetainKernel)                             \
    X(clReleaseKernel)                            \
    X(clSetKernelArg)                             \
    X(clGetKernelInfo)                            \
    X(clGetKernelWorkGroupInfo)                   \
    X(clWaitForEvents)                            \
    X(clGetEventInfo)                             \
    X(clRetainEvent)                              \
    X(clReleaseEvent)                             \
    X(clGetEventProfilingInfo)                    \
    X(clFlush)                                    \
    X(clFinish)                                   \
    X(clEnqueueReadBuffer)                        \
    X(clEnqueueWriteBuffer)                       \
    X(clEnqueueCopyBuffer)                        \
    X(clEnqueueReadImage)                         \
    X(clEnqueueWriteImage)                        \
    X(clEnqueueCopyImage)                         \
    X(clEnqueueCopyImageToBuffer)                 \
    X(clEnqueueCopyBufferToImage)                 \
    X(clEnqueueMapBuffer)                         \
    X(clEnqueueMapImage)                          \
    X(clEnqueueUnmapMemObject)                    \
    X(clEnqueueNDRangeKernel)                     \
    X(clEnqueueTask)                              \
    X(clEnqueueNativeKernel)                      \
    X(clEnqueueMarker)                            \
    X(clEnqueueWaitForEvents)                     \
    X(clEnqueueBarrier)                           \
    X(clGetExtensionFunctionAddress)              \
    X(clCreateFromGLBuffer)                       \
    X(clCreateFromGLTexture2D)                    \
    X(clCreateFromGLTexture3D)                    \
    X(clCreateFromGLRenderbuffer)                 \
    X(clGetGLObjectInfo)                          \
    X(clGetGLTextureInfo)                         \
    X(clEnqueueAcquireGLObjects)                  \
    X(clEnqueueReleaseGLObjects)                  \
    X(clGetGLContextInfoKHR)                      \
    W(clGetDeviceIDsFromD3D10KHR)                 \
    W(clCreateFromD3D10BufferKHR)                 \
    W(clCreateFromD3D10Texture2DKHR)              \
    W(clCreateFromD3D10Texture3DKHR)              \
    W(clEnqueueAcquireD3D10ObjectsKHR)            \
    W(clEnqueueReleaseD3D10ObjectsKHR)            \
    X(clSetEventCallback)                         \
    X(clCreateSubBuffer)                          \
    X(clSetMemObjectDestructorCallback)           \
    X(clCreateUserEvent)                          \
    X(clSetUserEventStatus)                       \
    X(clEnqueueReadBufferRect)                    \
    X(clEnqueueWriteBufferRect)                   \
    X(clEnqueueCopyBufferRect)                    \
    X(clCreateSubDevicesEXT)                      \
    X(clRetainDeviceEXT)                          \
    X(clReleaseDeviceEXT)                         \
    X(clCreateEventFromGLsyncKHR)                 \
    X(clCreateSubDevices)                         \
    X(clRetainDevice)                             \
    X(clReleaseDevice)                            \
    X(clCreateImage)                              \
    X(clCreateProgramWithBuiltInKernels)          \
    X(clCompileProgram)                           \
    X(clLinkProgram)                              \
    X(clUnloadPlatformCompiler)                   \
    X(clGetKernelArgInfo)                         \
    X(clEnqueueFillBuffer)                        \
    X(clEnqueueFillImage)                         \
    X(clEnqueueMigrateMemObjects)                 \
    X(clEnqueueMarkerWithWaitList)                \
    X(clEnqueueBarrierWithWaitList)               \
    X(clGetExtensionFunctionAddressForPlatform)   \
    X(clCreateFromGLTexture)                      \
    W(clGetDeviceIDsFromD3D11KHR)                 \
    W(clCreateFromD3D11BufferKHR)                 \
    W(clCreateFromD3D11Texture2DKHR)              \
    W(clCreateFromD3D11Texture3DKHR)              \
    W(clCreateFromDX9MediaSurfaceKHR)             \
    W(clEnqueueAcquireD3D11ObjectsKHR)            \
    W(clEnqueueReleaseD3D11ObjectsKHR)            \
    W(clGetDeviceIDsFromDX9MediaAdapterKHR)       \
    W(clEnqueueAcquireDX9MediaSurfacesKHR)        \
    W(clEnqueueReleaseDX9MediaSurfacesKHR)        \
    X(clCreateFromEGLImageKHR)                    \
    X(clEnqueueAcquireEGLObjectsKHR)              \
    X(clEnqueueReleaseEGLObjectsKHR)              \
    X(clCreateEventFromEGLSyncKHR)                \
    X(clCreateCommandQueueWithProperties)         \
    X(clCreatePipe)                               \
    X(clGetPipeInfo)                              \
    X(clSVMAlloc)                                 \
    X(clSVMFree)                                  \
    X(clEnqueueSVMFree)                           \
    X(clEnqueueSVMMemcpy)                         \
    X(clEnqueueSVMMemFill)                        \
    X(clEnqueueSVMMap)                            \
    X(clEnqueueSVMUnmap)                          \
    X(clCreateSamplerWithProperties)              \
    X(clSetKernelArgSVMPointer)                   \
    X(clSetKernelExecInfo)                        \
    X(clGetKernelSubGroupInfoKHR)                 \
    X(clCloneKernel)                              \
    X(clCreateProgramWithIL)                      \
    X(clEnqueueSVMMigrateMem)                     \
    X(clGetDeviceAndHostTimer)                    \
    X(clGetHostTimer)                             \
    X(clGetKernelSubGroupInfo)                    \
    X(clSetDefaultDeviceCommandQueue)             \
    X(clSetProgramReleaseCallback)                \
    X(clSetProgramSpecializationConstant)         \
    X(clCreateBufferWithProperties)               \
    X(clCreateImageWithProperties)                \
    X(clSetContextDestructorCallback)

#define HCQCL_DECLARE_ENTRY(name) extern __typeof__(name) hcqcl_##name;
#define HCQCL_DECLARE_ENTRY_NONE(name)
HCQCL_ENTRY_POINTS(HCQCL_DECLARE_ENTRY, HCQCL_DECLARE_ENTRY_NONE)
#undef HCQCL_DECLARE_ENTRY
#undef HCQCL_DECLARE_ENTRY_NONE

/* The exported cl_khr_icd entry point (icd/exports.c forwards to it). */
cl_int hcqcl_clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
                                    cl_uint *num_platforms);
/* cl_khr_suggested_local_work_size (enqueue_kernel.c): the local size
 * clEnqueueNDRangeKernel would choose for a NULL local_work_size. */
cl_int CL_API_CALL hcqcl_clGetKernelSuggestedLocalWorkSizeKHR(
    cl_command_queue q, cl_kernel kernel, cl_uint work_dim, const size_t *global_work_offset,
    const size_t *global_work_size, size_t *suggested_local_work_size);

/* Direct3D 10/11 and DX9 media sharing (cl_khr_d3d10_sharing,
 * cl_khr_d3d11_sharing, cl_khr_dx9_media_sharing): Windows-only
 * extensions hcqcl never offers; their slots still answer with an error. */
cl_int hcqcl_clGetDeviceIDsFromD3D10KHR(cl_platform_id platform, cl_uint source, void *object,
                                        cl_uint set, cl_uint num_entries,
                                        cl_device_id *devices, cl_uint *num_devices);
cl_mem hcqcl_clCreateFromD3D10BufferKHR(cl_context context, cl_mem_flags flags, void *resource,
                                        cl_int *errcode_ret);
cl_mem hcqcl_clCreateFromD3D10Texture2DKHR(cl_context context, cl_mem_flags flags,
                                           void *resource, cl_uint subresource,
                                           cl_int *errcode_ret);
cl_mem hcqcl_clCreateFromD3D10Texture3DKHR(cl_context context, cl_mem_flags flags,
                                           void *resource, cl_uint subresource,
                                           cl_int *errcode_ret);
cl_int hcqcl_clEnqueueAcquireD3D10ObjectsKHR(cl_command_queue queue, cl_uint num_objects,
                                             const cl_mem *objects, cl_uint num_events,
                                             const cl_event *wait_list, cl_event *event);
cl_int hcqcl_clEnqueueReleaseD3D10ObjectsKHR(cl_command_queue queue, cl_uint num_objects,
                                             const cl_mem *objects, cl_uint num_events,
                                             const cl_event *wait_list, cl_event *event);
cl_int hcqcl_clGetDeviceIDsFromD3D11KHR(cl_platform_id platform, cl_uint source, void *object,
                                        cl_uint set, cl_uint num_entries,
                                        cl_device_id *devices, cl_uint *num_devices);
cl_mem hcqcl_clCreateFromD3D11BufferKHR(cl_context context, cl_mem_flags flags, void *resource,
                                        cl_int *errcode_ret);
cl_mem hcqcl_clCreateFromD3D11Texture2DKHR(cl_context context, cl_mem_flags flags,
                                           void *resource, cl_uint subresource,
                                           cl_int *errcode_ret);
cl_mem hcqcl_clCreateFromD3D11Texture3DKHR(cl_context context, cl_mem_flags flags,
                                           void *resource, cl_uint subresource,
                                           cl_int *errcode_ret);
cl_mem hcqcl_clCreateFromDX9MediaSurfaceKHR(cl_context context, cl_mem_flags flags,
                                            cl_uint adapter_type, void *surface_info,
                                            cl_uint plane, cl_int *errcode_ret);
cl_int hcqcl_clEnqueueAcquireD3D11ObjectsKHR(cl_command_queue queue, cl_uint num_objects,
                                             const cl_mem *objects, cl_uint num_events,
                                             const cl_event *wait_list, cl_event *event);
cl_int hcqcl_clEnqueueReleaseD3D11ObjectsKHR(cl_command_queue queue, cl_uint num_objects,
                                             const cl_mem *objects, cl_uint num_events,
                                             const cl_event *wait_list, cl_event *event);
cl_int hcqcl_clGetDeviceIDsFromDX9MediaAdapterKHR(cl_platform_id platform, cl_uint num_adapters,
                                                  cl_uint *adapter_types, void *adapters,
                                                  cl_uint set, cl_uint num_entries,
                                                  cl_device_id *devices, cl_uint *num_devices);
cl_int hcqcl_clEnqueueAcquireDX9MediaSurfacesKHR(cl_command_queue queue, cl_uint num_objects,
                                                 const cl_mem *objects, cl_uint num_events,
                                                 const cl_event *wait_list, cl_event *event);
cl_int hcqcl_clEnqueueReleaseDX9MediaSurfacesKHR(cl_command_queue queue, cl_uint num_objects,
                                                 const cl_mem *objects, cl_uint num_events,
                                                 const cl_event *wait_list, cl_event *event);

/*
 * Extensions, one list: CL_PLATFORM_EXTENSIONS and CL_DEVICE_EXTENSIONS
 * (and their _WITH_VERSION forms) are built from it. Add a line only once
 * the extension really works end to end. X(name, major, minor, patch)
 */
#define HCQCL_EXTENSIONS(X)                                                               \
    X(cl_khr_icd, 1, 0, 0)                                                                \
    X(cl_khr_fp64, 1, 0, 0)                                                               \
    X(cl_khr_byte_addressable_store, 1, 0, 0)                                             \
    X(cl_khr_global_int32_base_atomics, 1, 0, 0)                                          \
    X(cl_khr_global_int32_extended_atomics, 1, 0, 0)                                      \
    X(cl_khr_local_int32_base_atomics, 1, 0, 0)                                           \
    X(cl_khr_local_int32_extended_atomics, 1, 0, 0)                                       \
    X(cl_khr_int64_base_atomics, 1, 0, 0)                                                 \
    X(cl_khr_int64_extended_atomics, 1, 0, 0)                                             \
    X(cl_khr_extended_versioning, 1, 0, 0)                                                \
    X(cl_khr_device_uuid, 1, 0, 0)                                                        \
    X(cl_khr_pci_bus_info, 1, 0, 0)                                                       \
    X(cl_khr_suggested_local_work_size, 1, 0, 0)                                          \
    X(cl_nv_device_attribute_query, 1, 0, 0)                                              \
    X(cl_nv_compiler_options, 1, 0, 0)                                                    \
    X(cl_nv_pragma_unroll, 1, 0, 0)

/* Extensions offered only while images are on (hcqcl_images_enabled):
 * reported after HCQCL_EXTENSIONS. X(name, major, minor, patch) */
#define HCQCL_IMAGE_EXTENSIONS(X)                                                         \
    X(cl_khr_3d_image_writes, 1, 0, 0)                                                    \
    X(cl_khr_image2d_from_buffer, 1, 0, 0)

/* Extension functions clGetExtensionFunctionAddress(ForPlatform) hands
 * out by name, besides the ICD loader's own (clIcdGetPlatformIDsKHR,
 * clGetPlatformInfo, clGetExtensionFunctionAddress). Every one must
 * belong to an extension of HCQCL_EXTENSIONS. X(name) */
#define HCQCL_EXTENSION_FUNCTIONS(X)                                                      \
    X(clIcdGetPlatformIDsKHR)                                                             \
    X(clGetKernelSuggestedLocalWorkSizeKHR)

/* The one platform. Static: never created or destroyed; clRelease* of it
 * does not exist. */
struct _cl_platform_id {
    struct hcqcl_obj obj;
};
/* The platform. Cheap, any thread: devices are enumerated only by
 * hcqcl_device_list (clGetDeviceIDs and context creation). */
cl_platform_id hcqcl_platform_get(void);
/* True for our platform. NULL is NOT valid here; entry points that accept
 * NULL as "the platform" map it first. */
bool hcqcl_platform_valid(cl_platform_id p);

/* A root device, one per GPU hcq_enumerate found. Lives for the process:
 * clRetainDevice/clReleaseDevice on it are no-ops (spec: root devices). */
/* Kinds of transfer whose rate the device learns (hcqcl_cmd_expect). */
enum hcqcl_rate { HCQCL_RATE_H2D, HCQCL_RATE_D2H, HCQCL_RATE_D2D, HCQCL_RATES };
enum { HCQCL_KTIMES = 64 };

/* A learned figure's next value from a sample (the transfer rates,
 * command.c; kernels' lengths, kernel_times.c): a sample on the faster
 * side is followed by 3/4, one on the slower side by 1/4. */
static inline uint64_t hcqcl_learn_blend(uint64_t old, uint64_t sample, bool faster)
{
    return faster ? (old + 3 * sample) / 4 : (3 * old + sample) / 4;
}

/* ---- Kernels' expected lengths (kernel_times.c) ----
 * A launch with the same kernel, sizes and parameter block as one seen
 * before takes about as long. key: the launch's (never 0; dyn, its
 * __local bytes, are not in the block). A launch
 * starting on an idle channel (hcqcl_ktimes_idle: everything recorded
 * there was seen done by a wait) gets the key; its wait sleeps until eta,
 * a little before start + the length learned, spins for spin, and teaches
 * the length it saw (hcqcl_ktimes_learn). eta = 0: nothing learned, or
 * too short to sleep through. */
uint64_t hcqcl_ktimes_key(const struct hcq_kernel *hk, cl_uint work_dim, const size_t *offset,
                          const size_t *global, const size_t *local, const void *block,
                          uint32_t psize, uint32_t dyn);
bool hcqcl_ktimes_idle(struct hcq_queue *hq);
void hcqcl_ktimes_expect(cl_device_id d, uint64_t key, uint64_t start, uint64_t *eta,
                         uint64_t *spin);
void hcqcl_ktimes_learn(cl_device_id d, uint64_t key, uint64_t ns);

struct _cl_device_id {
    struct hcqcl_obj obj;
    cl_platform_id platform;
    struct hcq_device *hw;
    const struct hcq_device_info *info;
    unsigned index; /* position in clGetDeviceIDs(CL_DEVICE_TYPE_ALL) */
    /* Bytes per microsecond seen for each kind of transfer (0: none seen
     * yet), any thread (command.c). */
    _Atomic uint64_t rate[HCQCL_RATES];
    /* Lengths of launches seen before, any thread (kernel_times.c). */
    _Atomic uint64_t ktimes[HCQCL_KTIMES];
};
bool hcqcl_device_valid(cl_device_id d);
/* True when version (CL_MAKE_VERSION, patch 0) is one of the device's
 * CL_DEVICE_OPENCL_C_ALL_VERSIONS. */
bool hcqcl_device_opencl_c(cl_version version);
/* CL_DEVICE_MAX_MEM_ALLOC_SIZE: the device's memory less what hcqcl keeps
 * there itself (rings, pushbuffers, kernel images, staging), so that a
 * buffer of this size is made in a fresh context (device.c). */
uint64_t hcqcl_device_max_alloc(cl_device_id d);
/* All devices; the first call enumerates them (hcq_enumerate, once, any
 * thread). *count 0 when no GPU could be used (the reason is logged). */
void hcqcl_device_list(cl_device_id **devices, cl_uint *count);

/*
 * A context: a set of distinct devices, each opened (hcq_device_open) for
 * the context's lifetime. Children (queues, buffers, programs) retain it
 * with hcqcl_clRetainContext and release it with hcqcl_clReleaseContext.
 * Immutable after creation except refs and the destructor-callback list
 * (guarded by lock), so readers need no lock.
 */
struct hcqcl_svm;
struct hcqcl_context_cb {
    struct hcqcl_context_cb *next;
    void(CL_CALLBACK *fn)(cl_context, void *);
    void *user_data;
};
struct _cl_context {
    struct hcqcl_obj obj;
    cl_platform_id platform;
    cl_uint num_devices;
    cl_device_id *devices;
    cl_context_properties *props; /* copy as passed, 0-terminated; NULL if none */
    size_t num_props;             /* entries in props, terminator included */
    bool interop_user_sync;
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
    void *notify_data;
    pthread_mutex_t lock;
    struct hcqcl_context_cb *destructors; /* newest first: run in this order */
    struct hcqcl_printf_buf *printf_pool; /* idle printf buffers (printf.c), under lock */
    uint32_t printf_out;          /* printf buffers taken by launches, under lock */
    _Atomic uint64_t lost_told;   /* devices (by index, mod 64) whose loss was reported */
    struct hcqcl_svm *svm;        /* live SVM allocations (svm.c), under lock */
};
bool hcqcl_context_valid(cl_context c);
/* True when d is one of c's devices. */
bool hcqcl_context_has_device(cl_context c, cl_device_id d);
/* Report an asynchronous error (e.g. the device was lost) to the
 * application's pfn_notify, if it gave one. Any thread, no hcqcl lock
 * held by the caller (the callback may call OpenCL). */
void hcqcl_context_notify(cl_context c, const char *errinfo, const void *private_info,
                          size_t cb);

/*
 * Default definitions (unimplemented.c, unsupported.c). HCQCL_DEFAULT
 * defines hcqcl_default_<name> and makes hcqcl_<name> a weak alias of it,
 * so a strong hcqcl_<name> in any api file replaces it at link time; the
 * symbol pair lets tests/icd tell from the built library which entry
 * points are still defaults (docs/status.md).
 */
#define HCQCL_DEFAULT(ret, name, params)                                                  \
    ret CL_API_CALL hcqcl_default_##name params;                                          \
    extern __typeof__(hcqcl_default_##name) hcqcl_##name                                  \
        __attribute__((weak, alias("hcqcl_default_" #name)));                             \
    ret CL_API_CALL hcqcl_default_##name params
/* Beside a definition of hcqcl_<name> that validates its arguments and
 * then answers with the error of a feature the device does not offer:
 * scripts/status.sh lists the entry point as not supported. */
#define HCQCL_NOT_OFFERED(name)                                                           \
    __attribute__((visibility("hidden"), used)) const char hcqcl_not_offered_##name = 0
/* Log "<func>: not supported" (HCQCL_LOG=api). */
void hcqcl_unsupported(const char *func, cl_int err);
/* Same, then *errcode_ret = err (when not NULL); returns NULL. */
void *hcqcl_unsupported_obj(const char *func, cl_int *errcode_ret, cl_int err);
#define HCQCL_UNSUPPORTED(err) (hcqcl_unsupported(__func__, (err)), (err))
#define HCQCL_UNSUPPORTED_OBJ(err) hcqcl_unsupported_obj(__func__, errcode_ret, (err))
#define HCQCL_DEFAULT_CHECK_OBJ(h, type, err)                                             \
    HCQCL_CHECK(hcqcl_obj_valid((h), (type)), (err), "%p", (const void *)(h))
#define HCQCL_DEFAULT_CHECK_PLATFORM(p)                                                   \
    HCQCL_CHECK(hcqcl_platform_valid(p), CL_INVALID_PLATFORM, "%p", (const void *)(p))
/* For functions that return an object and report through errcode_ret. */
#define HCQCL_DEFAULT_CHECK_OBJ_ERR(h, type, err)                                         \
    do {                                                                                  \
        if (!hcqcl_obj_valid((h), (type))) {                                              \
            util_log_check(__func__, "hcqcl_obj_valid(" #h ")", hcqcl_error_name(err),    \
                           "%p", (const void *)(h));                                      \
            if (errcode_ret)                                                              \
                *errcode_ret = (err);                                                     \
            return NULL;                                                                  \
        }                                                                                 \
    } while (0)
/*
 * A whole default in one entry: validate the first handle h (type tag
 * HCQCL_TYPE_<type>, error bad when invalid), then refuse with err.
 * HCQCL_DEFAULT_ERR returns err; HCQCL_DEFAULT_NULL (constructors, params
 * must name errcode_ret) returns NULL with *errcode_ret = err;
 * HCQCL_DEFAULT_ERR_PLATFORM validates a cl_platform_id instead. The spec
 * quotes for bad and err stand above each group of entries.
 */
#define HCQCL_DEFAULT_ERR(ret, name, h, type, bad, err, params)                           \
    HCQCL_DEFAULT(ret, name, params)                                                      \
    {                                                                                     \
        HCQCL_DEFAULT_CHECK_OBJ(h, HCQCL_TYPE_##type, bad);                               \
        return HCQCL_UNSUPPORTED(err);                                                    \
    }
#define HCQCL_DEFAULT_NULL(ret, name, h, type, bad, err, params)                          \
    HCQCL_DEFAULT(ret, name, params)                                                      \
    {                                                                                     \
        HCQCL_DEFAULT_CHECK_OBJ_ERR(h, HCQCL_TYPE_##type, bad);                           \
        return HCQCL_UNSUPPORTED_OBJ(err);                                                \
    }
#define HCQCL_DEFAULT_ERR_PLATFORM(name, p, err, params)                                  \
    HCQCL_DEFAULT(cl_int, name, params)                                                   \
    {                                                                                     \
        HCQCL_DEFAULT_CHECK_PLATFORM(p);                                                  \
        return HCQCL_UNSUPPORTED(err);                                                    \
    }

/* ==================================================================== */
/* Memory objects (mem.c)                                               */
/* ==================================================================== */

struct _cl_mem;

/* Sub-buffer origins must be multiples of this many bytes, and every
 * buffer's first byte is at least this aligned on the GPU.
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN reports it in bits (x 8). */
#define HCQCL_MEM_BASE_ALIGN 256u

/*
 * Buffers. A buffer owns its backing store; a sub-buffer owns nothing and
 * addresses its parent's store at `offset` (the parent is retained).
 *
 * Backing store per kind of buffer (one entry per context device):
 *  - default:          HCQ_MEM_DEVICE on each device
 *  - COPY_HOST_PTR:    HCQ_MEM_DEVICE_MAPPED, filled through the CPU view
 *                      (BAR1), which nothing reads: maps copy through
 *                      staging as for the default kind
 *  - ALLOC_HOST_PTR:   HCQ_MEM_HOST (pinned, CPU and GPU mapped)
 *  - USE_HOST_PTR:     the application's pages registered with
 *                      hcq_mem_register (zero copy); when they can't be
 *                      registered or host_ptr is not 16-byte aligned, a
 *                      pinned HCQ_MEM_HOST "shadow" copied from/to
 *                      host_ptr (at creation, map and unmap)
 *  - several devices:  one set of host pages registered on every device,
 *                      so all devices and the CPU see one copy
 * The store is allocated when the buffer is created, so a buffer never
 * fails later for lack of memory.
 *
 * Lifetime: commands retain the buffers they use (hcqcl_cmd_retain_mem);
 * the store is freed and the destructor callbacks run (LIFO) when the
 * last reference goes, i.e. after the last command using it completed.
 * A sub-buffer retains its parent, so the parent outlives it.
 */
struct hcqcl_mem_dtor;

/* A range of host memory a command still writes (host_pending.c, where
 * the functions on it are declared with the transfers). */
struct hcqcl_host_pending {
    uintptr_t lo, hi;
    struct hcqcl_host_pending *prev, *next;
    atomic_bool listed; /* changed under the list's lock */
};

/* One outstanding clEnqueueMapBuffer region. */
enum hcqcl_map_kind {
    HCQCL_MAP_DIRECT,   /* ptr is the memory itself: nothing to copy */
    HCQCL_MAP_CPU_COPY, /* ptr is host_ptr (USE_HOST_PTR shadow): memcpy
                         * mem_cpu -> ptr at map, ptr -> mem_cpu at unmap,
                         * see hcqcl_mapping_pull/push */
    HCQCL_MAP_GPU_COPY, /* ptr is staging->cpu: GPU copy of the region
                         * (hcqcl_mem_va + offset) -> staging->va at map,
                         * back at unmap */
    HCQCL_MAP_HOST_COPY, /* ptr is an SVM allocation's own host pages at
                          * the region: the region travels there at map and
                          * back at unmap as a read / write of pageable
                          * memory does (hcqcl_xfer_host), nothing pinned */
};
#define HCQCL_MAP_SPARES 2
struct hcqcl_mapping {
    void *ptr;               /* what the application got */
    size_t offset, size;     /* region of the mem object */
    cl_map_flags flags;
    enum hcqcl_map_kind kind;
    struct hcq_device *dev;  /* device of the mapping queue */
    void *mem_cpu;           /* CPU_COPY: CPU view of the region's memory */
    struct hcq_mem *staging; /* GPU_COPY: pinned host copy of the region */
    cl_mem owner;            /* GPU_COPY after unmap: retained until the
                              * staging is parked on it (map_spare) */
    struct hcqcl_host_pending pending; /* GPU_COPY / CPU_COPY read in: ptr
                                        * is filled by the map, until unmap */
    /* Under the lock of the object it is on: set by the map once it is
     * done with the mapping (its command enqueued); only then may an
     * unmap take it. Several maps for reading may get the same ptr at
     * once: an unmap must not take one another thread is still making. */
    bool handed_out;
    struct hcqcl_mapping *next;
};

struct hcqcl_image;

struct _cl_mem {
    struct hcqcl_obj obj;
    cl_context ctx;             /* retained */
    cl_mem_object_type type;    /* CL_MEM_OBJECT_BUFFER or an image type */
    struct hcqcl_image *image;  /* images: format, geometry, descriptors */
    cl_mem_flags flags;         /* effective flags (sub-buffers: inherited) */
    size_t size;
    void *host_ptr;             /* CL_MEM_HOST_PTR: USE_HOST_PTR pointer */
    cl_mem parent;              /* sub-buffer: its buffer (retained) */
    size_t offset;              /* sub-buffer: origin in parent */
    cl_mem subs, sub_next;      /* a buffer's live sub-buffers and views (images made from
                                 * it), under its lock */
    uint64_t serial;            /* never reused, unlike the address */
    cl_mem_properties *props;   /* CL_MEM_PROPERTIES as passed, or NULL */
    size_t props_size;          /* bytes, 0 when none were passed */
    /* Store (buffers only; sub-buffers use the parent's): index = the
     * device's index in ctx. */
    struct hcq_mem **store;
    unsigned store_count;
    void *cpu;                  /* CPU view of byte 0 when every device's
                                 * store is CPU-visible, else NULL */
    bool shadow;                /* USE_HOST_PTR with a pinned copy */
    /* An SVM allocation (svm.c): store at the GPU address host_ptr, its
     * host pages (pages) reserved there too. */
    bool svm;
    /* A buffer made with CL_MEM_USE_HOST_PTR on an SVM pointer: the SVM
     * allocation (retained), whose store it shares from store_offset. */
    cl_mem svm_root;
    size_t store_offset;
    void *pages;                /* several devices: host pages we own */
    size_t pages_size;
    pthread_mutex_t lock;       /* maps, dtors, map_spare */
    /* The stagings of the last GPU_COPY mappings unmapped, kept for the
     * next maps of this object: a fresh one is allocated, pinned and
     * zeroed by the kernel, which leaves up to a cache's worth of dirty
     * lines for the application's copy into it to write back. Two, because
     * map, copy, unmap in a loop maps again while the last unmap's copy
     * still reads its staging: with one, every other map pinned anew. */
    struct hcq_mem *map_spare[HCQCL_MAP_SPARES];
    cl_uint map_count;
    struct hcqcl_mapping *maps;
    struct hcqcl_mem_dtor *dtors;
};

/* True when m is a live memory object. */
bool hcqcl_mem_valid(cl_mem m);
/* A memory object with its store, for a creator that validated
 * everything (clCreateBuffer*, image.c): `size` bytes of store of the kind
 * flags ask for (see above), init copied in when not NULL (COPY_HOST_PTR),
 * host_ptr kept for USE_HOST_PTR, props (props_size bytes) copied.
 * Type CL_MEM_OBJECT_BUFFER; the caller may change it before the object
 * is handed out. NULL with *err = CL_OUT_OF_HOST_MEMORY or
 * CL_MEM_OBJECT_ALLOCATION_FAILURE. */
cl_mem hcqcl_mem_create(cl_context ctx, const cl_mem_properties *props, size_t props_size,
                        cl_mem_flags flags, size_t size, void *host_ptr, const void *init,
                        cl_int *err);
/* The buffer behind an SVM allocation (svm.c): flags, size as given to
 * clSVMAlloc, host pages `pages` (span bytes, the GPU address range
 * reserved with hcq_va_reserve) and store[] made by the caller (one per
 * context device, each at GPU address `pages`); cpu: the CPU view when
 * the stores are those pages. The object owns them all from here, also
 * on failure (NULL: CL_OUT_OF_HOST_MEMORY). */
cl_mem hcqcl_mem_create_svm(cl_context ctx, cl_mem_flags flags, size_t size, void *pages,
                            size_t span, struct hcq_mem **store, void *cpu);
/* A buffer made with CL_MEM_USE_HOST_PTR on an SVM pointer: a buffer of
 * its own (sub-buffers may be made of it) whose store is svm's from byte
 * offset; flags and host_ptr as given. NULL when out of host memory. */
cl_mem hcqcl_mem_create_alias(cl_mem svm, size_t offset, cl_mem_flags flags, size_t size,
                              void *host_ptr);
/* The SVM allocation of ctx holding [ptr, ptr + size) (size 0: ptr alone),
 * retained, and ptr's offset in it; NULL when there is none (svm.c). */
cl_mem hcqcl_svm_find(cl_context ctx, const void *ptr, size_t size, size_t *offset);
/* A memory object without store of its own that addresses buf's store
 * from buf's first byte (a 1D image buffer), like a sub-buffer: its
 * parent is buf's buffer (buf itself, or the buffer of a sub-buffer),
 * retained with ctx; flags are the object's effective flags. NULL when
 * out of host memory. */
cl_mem hcqcl_mem_create_view(cl_mem buf, cl_mem_flags flags, size_t size);
/* Keep the properties a creator was given (props_size bytes) for
 * CL_MEM_PROPERTIES: CL_SUCCESS or CL_OUT_OF_HOST_MEMORY. */
cl_int hcqcl_mem_keep_props(cl_mem m, const cl_mem_properties *props, size_t props_size);
/* clCreateBufferWithProperties / clCreateImageWithProperties: no
 * property is supported, so NULL or an empty list (CL_INVALID_PROPERTY
 * otherwise); *bytes: what to keep for CL_MEM_PROPERTIES. */
cl_int hcqcl_mem_check_props(const cl_mem_properties *props, size_t *bytes);
/* The "Memory Flags" rules of buffers (known bits, mutually exclusive
 * groups): CL_SUCCESS or CL_INVALID_VALUE. */
cl_int hcqcl_mem_check_flags(cl_mem_flags flags);
/* The flags of a sub-buffer or an image made from buffer flags `parent`
 * (flags checked by hcqcl_mem_check_flags first): the spec's rules for
 * both, and what is not given taken from the buffer. */
cl_int hcqcl_mem_derived_flags(cl_mem_flags parent, cl_mem_flags flags, cl_mem_flags *out);
/* True when handle is a live memory object of hcqcl, decided without
 * dereferencing it (for bytes that may or may not be a handle). Any
 * thread. */
bool hcqcl_mem_is_live(const void *handle);
/* The same, without a lock when *seen holds the epoch of an earlier check
 * that found handle live and no memory object was released since (each
 * enqueue checks every buffer argument); updates *seen. */
bool hcqcl_mem_is_live_since(const void *handle, _Atomic uint64_t *seen);
/* Changes whenever a memory object is released: what was found live
 * under one value still is while it reads the same. Any thread. */
uint64_t hcqcl_mem_epoch(void);
/* GPU VA of the first byte of m (sub-buffers: parent VA + offset) on dev,
 * which must be a device of m's context (0 otherwise). Any thread. */
uint64_t hcqcl_mem_va(cl_mem m, struct hcq_device *dev);
/* CPU pointer to the first byte of m when the CPU can read and write the
 * very memory the GPU uses (pinned host, registered user pages, BAR1-mapped
 * vidmem), else NULL. For a USE_HOST_PTR shadow this is the shadow, not
 * host_ptr. */
void *hcqcl_mem_cpu(cl_mem m);
static inline bool hcqcl_mem_is_host_visible(cl_mem m) { return hcqcl_mem_cpu(m) != NULL; }
/* The allocation behind m on dev (sub-buffers: the parent's), for callers
 * that need its kind. NULL when dev is not a device of m's context. */
const struct hcq_mem *hcqcl_mem_store(cl_mem m, struct hcq_device *dev);

/* Map bookkeeping for clEnqueueMapBuffer / clEnqueueUnmapMemObject.
 * map_add picks the pointer the application gets (USE_HOST_PTR: host_ptr
 * + offset, as the spec requires) and allocates a staging copy on dev when
 * the memory is not CPU-visible; the caller performs the copy the
 * mapping's kind asks for (enum hcqcl_map_kind).
 * CL_MEM_OBJECT_ALLOCATION_FAILURE / CL_OUT_OF_HOST_MEMORY on failure.
 * map_remove unlinks a handed-out mapping whose ptr matches
 * (CL_INVALID_VALUE when none does); the caller frees it with
 * hcqcl_mapping_free once the GPU no longer uses its staging memory.
 * Thread-safe (m->lock). */
cl_int hcqcl_mem_map_add(cl_mem m, struct hcq_device *dev, size_t offset, size_t size,
                         cl_map_flags flags, struct hcqcl_mapping **out);
cl_int hcqcl_mem_map_remove(cl_mem m, void *ptr, struct hcqcl_mapping **out);
/* The map is done with map (added to m by map_add): from now on an unmap
 * may take it (map_remove), and free it, so the caller must not touch it
 * any more. Thread-safe (m->lock). */
void hcqcl_mem_map_hand_out(cl_mem m, struct hcqcl_mapping *map);
void hcqcl_mapping_free(struct hcqcl_mapping *map);
/* After an unmap: keep map's staging on m for its next map when m holds
 * none or a smaller one (the other is left in map, for mapping_free).
 * Thread-safe (m->lock). */
void hcqcl_mem_map_park(cl_mem m, struct hcqcl_mapping *map);
/* CPU_COPY mappings: bring the memory into ptr (at map, once earlier
 * commands completed) / write ptr back (at unmap, before later commands
 * start). No-ops for the other kinds. */
void hcqcl_mapping_pull(const struct hcqcl_mapping *map);
void hcqcl_mapping_push(const struct hcqcl_mapping *map);

/* ==================================================================== */
/* Images and samplers (image.c, image_format.c, sampler.c,             */
/* enqueue_image.c)                                                     */
/* ==================================================================== */

/*
 * Software images (image_abi.h): an image is a memory object whose store
 * is allocated like a buffer's (same kinds, same flags rules) and holds
 * the pixels in rows of row_pitch bytes and slices / array layers of
 * slice_pitch bytes. Tight pitches (width x elem, row x height), except
 * for CL_MEM_USE_HOST_PTR, where the store is the application's memory
 * in its layout (its pitches). A 1D image buffer, and a 2D image made
 * from a buffer (cl_khr_image2d_from_buffer, at the row pitch the
 * application gives), address their buffer's store from byte 0
 * (m->parent, retained). Each image also has one
 * struct hcqcl_image_abi per context device in CPU-visible GPU memory,
 * written once at creation: what a kernel argument passes.
 *
 * Images exist only when HCQCL_IMAGES=1 was set at first use
 * (hcqcl_images_enabled); otherwise every image and sampler entry point
 * answers as for a device without images.
 */
struct hcqcl_image {
    cl_image_format format;
    cl_image_desc desc;        /* as given; pitches replaced by the store's;
                                * buffer / mem_object retained */
    size_t elem_size;          /* bytes per pixel */
    size_t row_pitch;          /* of the store */
    size_t slice_pitch;        /* of the store; 0 for 1D, 1D buffer, 2D */
    size_t info_row_pitch;     /* what clGetImageInfo reports: the */
    size_t info_slice_pitch;   /* application's pitches where it gave them */
    struct hcq_mem **abi;      /* one descriptor block per context device */
};
/* A 2D image made from a buffer: its row pitch a multiple of this many
 * pixels (CL_DEVICE_IMAGE_PITCH_ALIGNMENT), a CL_MEM_USE_HOST_PTR
 * buffer's host_ptr aligned to this many (..._BASE_ADDRESS_ALIGNMENT).
 * The built-ins load each channel at its natural alignment (image_core.h),
 * which a pixel's alignment gives. */
#define HCQCL_IMAGE_PITCH_ALIGN 1u
#define HCQCL_IMAGE_BASE_ALIGN 1u
/* HCQCL_IMAGES=1 (read once). Any thread. */
bool hcqcl_images_enabled(void);
/* m is a live memory object holding an image. */
static inline bool hcqcl_mem_is_image(cl_mem m) { return m->image != NULL; }
/* GPU address of m's descriptor on dev (0 when dev is not a device of
 * m's context). */
uint64_t hcqcl_image_abi_va(cl_mem m, struct hcq_device *dev);
/* Free an image's descriptors (mem.c's destruction calls it). */
void hcqcl_image_free(cl_mem m);
/* Bytes per pixel of a format, 0 when the order/type pair is not one
 * the specification defines (image_format.c). */
size_t hcqcl_image_format_size(const cl_image_format *f);
/* The format is in the table clGetSupportedImageFormats returns for
 * these flags and this image type. */
bool hcqcl_image_format_supported(const cl_image_format *f, cl_mem_flags flags,
                                  cl_mem_object_type type);
/* The supported formats for flags, in table order: writes up to cap,
 * returns how many there are. */
cl_uint hcqcl_image_formats(cl_mem_flags flags, cl_image_format *out, cl_uint cap);
/* One pixel of format f from a fill color (clEnqueueFillImage rules:
 * float4 for normalized and float types, int4 / uint4 for integer
 * ones). out holds hcqcl_image_format_size(f) bytes. */
void hcqcl_image_pack_color(const cl_image_format *f, const void *color, uint8_t *out);

/* A sampler: its properties, kept as given, and the bits a kernel gets. */
struct _cl_sampler {
    struct hcqcl_obj obj;
    cl_context ctx;              /* retained */
    cl_bool normalized;
    cl_addressing_mode addressing;
    cl_filter_mode filter;
    cl_sampler_properties props[7]; /* as given, 0-terminated */
    size_t props_size;           /* bytes; 0 when none were given */
};
bool hcqcl_sampler_valid(cl_sampler s);
/* The HCQCL_SAMPLER_* bits of s (image_abi.h). */
uint64_t hcqcl_sampler_bits(cl_sampler s);

/* ==================================================================== */
/* Programs and kernels (program.c, kernel.c)                           */
/* ==================================================================== */

struct _cl_program;
struct _cl_kernel;
struct cubin;

/* How a kernel argument is passed, from the container's address
 * qualifiers or the cubin's KPARAM_INFO space. */
enum hcqcl_arg_kind {
    HCQCL_ARG_VALUE,    /* scalar, vector or struct by value */
    HCQCL_ARG_GLOBAL,   /* __global / __constant pointer: a cl_mem */
    HCQCL_ARG_LOCAL,    /* __local pointer: size at clSetKernelArg */
    HCQCL_ARG_POINTER,  /* 8-byte pointer of unknown space (nvcc cubins):
                         * a cl_mem, or __local when value NULL, size > 0 */
    HCQCL_ARG_IMAGE,    /* image*_t: an image; passed as the address of
                         * its descriptor on the launching device */
    HCQCL_ARG_SAMPLER,  /* sampler_t: passed as its HCQCL_SAMPLER_* bits */
};

/* One argument of a kernel, as the program's binary describes it. */
struct hcqcl_arg_desc {
    enum hcqcl_arg_kind kind;
    uint32_t offset;            /* in the parameter block */
    uint32_t size;              /* bytes (8 for pointers) */
    uint32_t align;             /* __local: offset alignment (>= 16) */
    bool has_info;              /* the fields below were recorded */
    cl_kernel_arg_address_qualifier addr_qual;
    cl_kernel_arg_access_qualifier access_qual;
    cl_kernel_arg_type_qualifier type_qual;
    char *type_name;
    char *name;
    cl_mem_object_type image_type; /* IMAGE: the declared image type (0: a depth or MSAA type, which no image of the device is) */
};

/* One kernel of a built program (identical on every device it was built
 * for; clCreateKernel checks that). Owned by the program. */
struct hcqcl_kernel_desc {
    char *name;
    cl_uint num_args;
    struct hcqcl_arg_desc *args;
    uint32_t param_size;        /* bytes of the parameter block */
    size_t reqd_wgs[3];         /* 0,0,0 when not required */
    size_t wgs_hint[3];
    char *attributes;           /* CL_KERNEL_ATTRIBUTES, "" when unknown */
    bool consistent;            /* same arguments on every built device */
    bool printf;                /* calls printf: launches get a printf buffer */
};

/* Per device of a program. */
struct hcqcl_program_dev {
    cl_device_id dev;
    struct hcq_device *hdev;
    cl_build_status status;
    cl_program_binary_type bin_type;
    char *options;              /* of the last build, compile or link */
    char *log;                  /* build log, NULL = "" */
    void *binary;               /* as CL_PROGRAM_BINARIES returns it */
    size_t binary_size;
    struct cubin *cubin;        /* parsed binary (cubin of the container) */
    struct cubin_container *meta; /* the container's metadata, or NULL */
    struct hcq_program *loaded; /* on the GPU, once built */
    bool inputs_non_uniform;    /* linked: every input allows non-uniform groups */
    bool not_linked;            /* linked: no input was compiled for this device */
};

struct _cl_program {
    struct hcqcl_obj obj;
    cl_context ctx;             /* retained */
    char *source;               /* clCreateProgramWithSource, else NULL */
    size_t source_len;
    bool linked;                /* made by clLinkProgram (source: its units) */
    bool from_binary;           /* made by clCreateProgramWithBinary */
    cl_uint num_devices;
    struct hcqcl_program_dev *devs;
    pthread_mutex_t lock;       /* builds and their results */
    _Atomic uint32_t kernels;   /* kernel objects attached */
    bool building;
    uint32_t linking;           /* clLinkProgram calls reading it as an input:
                                 * a build of it waits for them */
    /* clCompileProgram's embedded headers, kept for clLinkProgram. */
    cl_uint num_headers;
    char **header_names;
    char **header_srcs;
    /* Kernels of the built program (from the first built device). */
    size_t num_kernels;
    struct hcqcl_kernel_desc *kdescs;
    char *kernel_names;         /* ';'-separated */
};

/* The value set for one argument of a kernel object. */
struct hcqcl_arg_value {
    bool set;
    cl_mem mem;                 /* GLOBAL/POINTER: the buffer, or NULL;
                                 * IMAGE: the image */
    uint64_t mem_serial;        /* its serial: another buffer at its address differs */
    _Atomic uint64_t mem_seen;  /* hcqcl_mem_is_live_since's epoch for mem */
    uint32_t local_size;        /* LOCAL (or POINTER used as local): bytes */
    bool is_local;
    bool svm;                   /* clSetKernelArgSVMPointer: the address is in values */
};

struct _cl_kernel {
    struct hcqcl_obj obj;
    cl_program prog;            /* retained */
    const struct hcqcl_kernel_desc *desc; /* owned by prog */
    /* Per program device (same index as prog->devs); NULL where the
     * program is not built for that device. */
    const struct hcq_kernel **hk;
    struct hcq_kernel_info *info;
    struct hcqcl_arg_value *args;
    /* Per argument, what CL_KERNEL_LOCAL_MEM_SIZE counts of it: 0 while
     * unset, else HCQCL_ARG_NOTE_SET, with HCQCL_ARG_NOTE_LOCAL | bytes
     * for a __local one. Apart from args, since that query may run while
     * another thread sets arguments (only two threads setting arguments of
     * one kernel at once is the application's to avoid). */
    _Atomic uint64_t *notes;
    uint8_t *values;            /* by-value arguments, param_size bytes */
    /* Names the argument state: a number never used before, taken at
     * creation and at every clSetKernelArg (hcqcl_kernel_args_changed),
     * so a launch recorded from one state can be told from any other. */
    _Atomic uint64_t args_gen;
};

#define HCQCL_ARG_NOTE_SET ((uint64_t)1 << 32)
#define HCQCL_ARG_NOTE_LOCAL ((uint64_t)1 << 33)

bool hcqcl_program_valid(cl_program p);
bool hcqcl_kernel_valid(cl_kernel k);
/* k's arguments changed: a new args_gen. */
void hcqcl_kernel_args_changed(cl_kernel k);
/* k's argument i becomes v, its note with it (kernel.c, for
 * kernel_args.c). */
void hcqcl_kernel_arg_store(cl_kernel k, cl_uint i, const struct hcqcl_arg_value *v);

/* Shared by program.c (objects, queries) and program_build.c (binaries,
 * builds). Called with no lock held unless stated.
 * program_new: a program on the given devices of ctx (retains ctx; a
 *   device listed twice is one), status CL_BUILD_NONE everywhere.
 * program_dev_set_binary: parse a binary for one device (container, bare
 *   cubin, fatbin; PTX when a PTX compiler is present) and keep it;
 *   CL_INVALID_BINARY with pd->log saying why.
 * program_dev_reset: drop what a device's build produced.
 * program_build_dev: build (source) or load (binary) on one device. */
cl_program hcqcl_program_new(cl_context ctx, cl_uint num_devices, const cl_device_id *devices);
cl_int hcqcl_program_dev_set_binary(struct hcqcl_program_dev *pd, const void *data, size_t size);
void hcqcl_program_dev_reset(struct hcqcl_program_dev *pd);
void hcqcl_program_kdescs_free(cl_program p);
/* program_binary.c, for program_build.c: append a line to / clear a
 * device's build log; compile source for a device and keep the container
 * (CL_SUCCESS, CL_COMPILER_NOT_AVAILABLE, CL_INVALID_BUILD_OPTIONS,
 * CL_OUT_OF_HOST_MEMORY or `failure`); load the parsed cubin onto the
 * device; rebuild p->kdescs from the built devices (p->lock held). */
void hcqcl_program_dev_log(struct hcqcl_program_dev *pd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void hcqcl_program_dev_log_clear(struct hcqcl_program_dev *pd);
cl_int hcqcl_program_dev_compile(struct hcqcl_program_dev *pd, const char *src, size_t len,
                                 const char *options, cl_int failure);
cl_int hcqcl_program_dev_load(struct hcqcl_program_dev *pd);
cl_int hcqcl_program_make_kdescs(cl_program p);
/* program_object.c: compiled objects and libraries travel as their source
 * (see there). object_store: pd->binary = p's source, headers and
 * pd->options, typed by pd->bin_type. object_is: sniff. object_load: from
 * clCreateProgramWithBinary: sets p's source and headers (first device)
 * and pd's options, type and binary; CL_INVALID_BINARY with pd->log. */
cl_int hcqcl_program_object_store(cl_program p, struct hcqcl_program_dev *pd);
/* program_includes.c: at clCompileProgram (p->lock held), the headers
 * p's source includes from the -I directories of options, kept with the
 * embedded headers so that clLinkProgram finds them again. */
cl_int hcqcl_program_keep_included(cl_program p, const char *options);
/* Append a copy of header name (name_len bytes) with its text to p's
 * kept headers. CL_SUCCESS or CL_OUT_OF_HOST_MEMORY (nothing added). */
cl_int hcqcl_program_add_header(cl_program p, const char *name, size_t name_len,
                               const char *text, size_t text_len);
/* Whether launches of pd's program may have non-uniform work-groups
 * (a global size that is not a multiple of the local size): built without
 * -cl-uniform-work-group-size and, from source, for OpenCL C 2.0 or later;
 * linked, when every input allowed them (program.c). */
bool hcqcl_program_dev_non_uniform(cl_program p, const struct hcqcl_program_dev *pd);
/* The OpenCL C version valid build options ask for with their last
 * -cl-std=CLx.y (clang takes the last), or 0 when they name none
 * (program_binary.c). */
cl_version hcqcl_options_cl_std(const char *options);
bool hcqcl_program_object_is(const void *data, size_t size);
cl_int hcqcl_program_object_load(cl_program p, struct hcqcl_program_dev *pd, const void *data,
                                 size_t size);

/* For clEnqueueNDRangeKernel (kernel objects are not thread-safe against
 * clSetKernelArg on the same kernel, per the spec; nothing here locks).
 *
 * hcqcl_kernel_hcq: the loaded kernel on device d, NULL when the program
 * is not built for d (-> CL_INVALID_PROGRAM_EXECUTABLE).
 * hcqcl_kernel_info: its facts (max threads, static shared, reqd block).
 * hcqcl_kernel_params: write the parameter block (desc->param_size bytes)
 * for a launch on d: buffer VAs on d (NULL buffer -> 0), by-value bytes,
 * __local offsets in the shared window, consecutive from
 * 0x400 + static shared (the end of .nv.shared), aligned >= 16. *dyn_shared = bytes of
 * the __local arguments beyond the static part (hcq_launch.dynamic_shared).
 * CL_INVALID_KERNEL_ARGS when an argument is not set, CL_INVALID_MEM_OBJECT
 * when a set buffer was released meanwhile.
 * hcqcl_kernel_mem_args: the buffers currently set (to retain for the
 * command); returns how many there are, writes at most cap of them. */
const struct hcq_kernel *hcqcl_kernel_hcq(cl_kernel k, cl_device_id d);
const struct hcq_kernel_info *hcqcl_kernel_info(cl_kernel k, cl_device_id d);
cl_int hcqcl_kernel_params(cl_kernel k, cl_device_id d, void *block, uint32_t *dyn_shared);
size_t hcqcl_kernel_mem_args(cl_kernel k, cl_mem *mems, size_t cap);

/* ==================================================================== */
/* Compiler: builds from source (compiler.c; docs/compiler.md)          */
/* ==================================================================== */

/*
 * hcqcl_compile_source: OpenCL C source -> program container (see
 * cubin/container.h) for SM arch (0x900 = sm_90). Looks the build up in
 * the cache first (HCQCL_CACHE_DIR, else $XDG_CACHE_HOME/hcqcl or
 * ~/.cache/hcqcl, then the read-only caches next to the library); on a
 * miss runs hcqcl-cc (HCQCL_CC, next to the library, or on PATH) as a
 * child process and stores its result in the writable cache.
 * Any thread; no lock held by the caller is needed or taken (builds of
 * different programs run concurrently; the cache is updated with atomic
 * renames). options may be NULL.
 * Returns CL_SUCCESS (*container malloc'ed, *size bytes), or
 * CL_BUILD_PROGRAM_FAILURE (compile errors, or a miss with no tool chain
 * but a cache: the log then names the cache key and says how to
 * precompile), CL_COMPILER_NOT_AVAILABLE (a miss with neither a tool chain
 * nor any cached program: hcqcl_compiler_available() is false),
 * CL_INVALID_BUILD_OPTIONS, CL_OUT_OF_HOST_MEMORY. *log is always set on
 * return (malloc'ed, possibly "", NULL only when out of memory); the
 * caller frees container and log.
 *
 * hcqcl_compiler_present: true when hcqcl-cc can be found (the tool chain
 * behind it is checked only when it runs).
 *
 * hcqcl_compiler_available: CL_DEVICE_COMPILER_AVAILABLE / LINKER_
 * AVAILABLE: hcqcl-cc with its complete tool chain (hcqcl-cc
 * --check-tools, asked once per process), or a kernel cache holding at
 * least one program. Any thread; may run hcqcl-cc once.
 */
cl_int hcqcl_compile_source(const char *src, size_t len, const char *options, uint32_t arch,
                            void **container, size_t *size, char **log);
bool hcqcl_compiler_present(void);
bool hcqcl_compiler_available(void);
/* The writable cache's size limit (cache_trim.c): HCQCL_CACHE_MAXSIZE in
 * bytes, 0 for none. hcqcl_cache_trim: after a store of keep (a file name
 * in dir), remove the least recently used containers of dir while they
 * take more than the limit, down to three quarters of it.
 * hcqcl_cache_touch: mark a container used (a hit). Any thread. */
uint64_t hcqcl_cache_limit(void);
/* A file name of a cache's program container ("<key>.bin", not hidden). */
bool hcqcl_cache_is_container(const char *name);
void hcqcl_cache_trim(const char *dir, const char *keep);
void hcqcl_cache_touch(const char *path);
/* PTX text -> cubin through ptxas (HCQCL_PTXAS, PATH, or the CUDA
 * toolkit's default place), for clCreateProgramWithBinary. *cubin and
 * *log are malloc'ed; CL_INVALID_BINARY with the log saying why. */
cl_int hcqcl_assemble_ptx(const char *ptx, size_t len, uint32_t arch, void **cubin, size_t *size,
                          char **log);

/* ==================================================================== */
/* Queues, events, commands (queue.c, event.c, enqueue_*.c)             */
/* ==================================================================== */

/*
 * A command queue drives HCQ channels of its device: one compute channel
 * and two copy channels, so copies and kernels overlap. An in-order queue
 * keeps order across its channels with GPU-side waits on the previous
 * command's (signal, value); an out-of-order queue honours only wait lists
 * and barriers. An event is a (signal, value) pair plus host state.
 *
 * Locks (outermost first): queue->lock (held from hcqcl_cmd_begin to
 * hcqcl_cmd_end/abort; serialises the queue's hcq_queue verbs), then the
 * event tracker lock (event.c, never held while calling user code or
 * taking a queue lock). User callbacks run on the notifier thread with no
 * internal lock held.
 */

struct _cl_command_queue;
struct _cl_event;

/* Host work hooked around a command (see hcqcl_cmd_before/after). */
typedef void (*hcqcl_cmd_fn)(void *arg, cl_int status);

/* A GPU-visible signal slot a queue hands to its events (start/end
 * timestamps, host-completed commands). Values only
 * grow, so a slot can be reused while old waiters still look at it. */
struct hcqcl_slot {
    struct hcq_signal *sig;
    uint64_t value;             /* last value handed out */
    struct hcqcl_slot *next;    /* free list */
    struct hcqcl_slot *all_next; /* every slot of the queue */
};

/* Channels per engine a queue may use. An in-order queue uses the first
 * of each engine; an out-of-order queue spreads independent commands so a
 * command held back by the host (a user event) does not stall the ones
 * behind it on the same channel. Channels beyond the first (two for
 * copies) are opened only while every open one is held back that way; the
 * core keeps idle channels for the next queue. */
enum { HCQCL_QUEUE_CHANS = 8 };

/* A command recorded without an event (command_lite.c): the timeline
 * value that ends it and the objects it keeps alive until then. The
 * queue's ring of them grows to HCQCL_LITE_MAX before an enqueue waits
 * for room: as many commands as the channel can hold. */
enum { HCQCL_LITE_MIN = 64, HCQCL_LITE_MAX = 65536, HCQCL_LITE_OBJS = 8 };
struct hcqcl_lite {
    const struct hcq_signal *sig;
    uint64_t val;
    /* A launch on an idle channel (kernel_times.c): its key, enqueue
     * time, expected end and spin, for the wait that sees it end. */
    uint64_t key, start, eta, spin;
    uint32_t nobjs;
    struct hcqcl_obj *objs[HCQCL_LITE_OBJS]; /* retained */
};
struct hcqcl_chan {
    struct hcq_queue *hq;       /* NULL until first used (compute [0]: at
                                 * queue creation) */
    cl_event blocker;           /* last command recorded here that waited
                                 * on the host when recorded (retained) */
    /* Transfers with an expected length (hcqcl_cmd_expect) of one kind
     * that run back to back from a known start: the start (host ns) and
     * their bytes. chain_known is false once anything else ran here since
     * the channel was last idle. */
    bool chain_known;
    enum hcqcl_rate chain_kind;
    uint64_t chain_start, chain_bytes;
};

/* The queue's last launch without an event, validated, with everything
 * derived from its inputs (enqueue_kernel.c, "The last launch again").
 * Under the queue's lock. */
enum { HCQCL_MEMO_PARAMS = 512 };
struct hcqcl_launch_memo {
    cl_kernel kernel;           /* not referenced: compared only */
    uint64_t args_gen, mem_epoch;
    cl_uint work_dim;
    bool local_given;
    size_t offset[3], global[3], local[3]; /* as passed (offset: zeros) */
    const struct hcq_kernel *hk;
    uint32_t nobjs;
    struct hcqcl_obj *objs[HCQCL_LITE_OBJS];
    struct hcq_launch l;        /* l.params: block */
    uint64_t key;               /* hcqcl_ktimes_key, 0 until asked for */
    uint8_t block[HCQCL_MEMO_PARAMS] __attribute__((aligned(16)));
};

struct _cl_command_queue {
    struct hcqcl_obj obj;       /* refs = application references */
    _Atomic uint32_t internal;  /* unfinished events of this queue */
    cl_context ctx;             /* retained */
    cl_device_id dev;
    struct hcq_device *hdev;
    /* clSetCommandQueueProperty changes it under lock; enqueues and
     * queries of other threads read it without. */
    _Atomic cl_command_queue_properties props;
    cl_queue_properties props_array[8]; /* as given, 0-terminated */
    size_t props_array_len;     /* entries incl. the 0; 0 = none given */
    struct util_lock lock;      /* channels and fields below (util.h) */
    struct hcqcl_chan chans[2][HCQCL_QUEUE_CHANS]; /* [enum hcq_engine] */
    struct hcqcl_launch_memo memo;
    unsigned next_copy;
    cl_event last;              /* in-order: previous command (retained);
                                 * out-of-order: last barrier */
    cl_event *since;            /* out-of-order: commands since the last
                                 * barrier (retained) */
    size_t nsince, capsince;
    /* In order, commands without an event (command_lite.c): the newest
     * one's timeline value while no command with an event came after it
     * (lite_sig NULL otherwise), and each one's objects until the GPU has
     * passed it, oldest at lite_tail. */
    const struct hcq_signal *lite_sig;
    uint64_t lite_val;
    uint32_t lite_head, lite_tail, lite_cap; /* cap: 0 or a power of 2 */
    struct hcqcl_lite *lite;
    pthread_mutex_t slot_lock;
    struct hcqcl_slot *free_slots, *all_slots;
    /* A channel holds committed work back (hcq_q_commit); set under lock,
     * read anywhere: every wait for this queue's work submits it first
     * (hcqcl_queue_flush). held_since: when it started, for the notifier. */
    _Atomic bool held;
    _Atomic uint64_t held_since;
    /* On the notifier's list of queues to watch (event.c), under its lock. */
    _Atomic bool watched;
};

/* Event phases (event.c tracker). */
enum hcqcl_phase {
    HCQCL_PH_NEW,     /* being built (between cmd_begin and cmd_end) */
    HCQCL_PH_GATED,   /* GPU part held behind a gate until dependencies end */
    HCQCL_PH_GPU,     /* GPU part submitted */
    HCQCL_PH_AFTER,   /* after-fn running */
    HCQCL_PH_DONE,    /* final: status holds CL_COMPLETE or < 0 */
};

struct hcqcl_event_cb;

struct _cl_event {
    struct hcqcl_obj obj;       /* refs = application references */
    _Atomic uint32_t internal;  /* commands / tracker holding it */
    cl_context ctx;             /* retained (user events) or via q */
    cl_command_queue q;         /* NULL for user events */
    cl_command_type type;
    _Atomic int phase;          /* enum hcqcl_phase */
    _Atomic cl_int status;      /* CL_QUEUED .. CL_COMPLETE or < 0 */
    _Atomic int waiters;        /* threads in hcqcl_event_wait on it: they
                                 * watch its signal, the tracker need not */
    atomic_bool gates_others;   /* a gated command depends on it */
    atomic_bool decided;        /* its GPU part is the core's: recorded with
                                 * no hold, or its hold decided (event.c) */
    cl_int dep_status;          /* 0, or < 0 when a dependency failed */
    /* The queue's newest command without an event, when this one was
     * recorded and it had not ended: host-side work of this command
     * (hooks, gates) waits for it too (command_lite.c). */
    const struct hcq_signal *lite_sig;
    uint64_t lite_val;
    bool host_wait;             /* when recorded, it waited (maybe through
                                 * others) for an event only the host ends */
    bool hook_wait;             /* ... or for an after-hook the tracker runs */
    /* What dependents wait on: GPU signal (NULL: host-tracked only). */
    const struct hcq_signal *sig;
    uint64_t val;
    /* Completion of the GPU part (channel timeline). */
    const struct hcq_signal *gpu_sig;
    uint64_t gpu_val;
    /* The first waits for other channels it recorded: its GPU part's end
     * comes after them (command.c, record_waits). Bit k of waited_held:
     * waited_sig[k] was waited for inside its hold, and so only when it
     * runs. */
    const struct hcq_signal *waited_sig[2];
    uint64_t waited_val[2];
    uint8_t waited_held;
    struct hcqcl_slot *start, *end, *own;
    uint64_t start_val, end_val, own_val;
    /* A gated command's hold on its channel (hcq_q_hold): its GPU part
     * reaches the GPU once the tracker decides it, and not at all when a
     * dependency failed. */
    struct hcq_hold *hold;
    /* Dependencies not complete when the command was built (retained).
     * The first nprop came from the wait list: their failure fails this
     * command; the rest only order it (in-order predecessor, barriers). */
    cl_event deps_inline[4];
    cl_event *deps;
    size_t ndeps, capdeps, nprop;
    /* Retained objects, released when the command finished. */
    struct hcqcl_obj *objs_inline[4];
    struct hcqcl_obj **objs;
    size_t nobjs, capobjs;
    hcqcl_cmd_fn before_fn, after_fn;
    void *before_arg, *after_arg;
    void (*release_fn)(void *);
    void *release_arg;
    /* Profiling, host ns (CLOCK_MONOTONIC_RAW based, see event.c). */
    uint64_t t_queued, t_submit;
    uint64_t t_seen;            /* host time completion was first seen */
    bool prof_ready;            /* prof[] computed (under the tracker lock) */
    uint64_t prof[4];           /* QUEUED, SUBMIT, START, END in host ns */
    struct hcqcl_event_cb *cbs; /* under the tracker lock */
    /* Expected end (host ns, 0 = not known) of a transfer of kind
     * eta_kind that ends a chain of eta_bytes started at eta_start on an
     * idle channel (hcqcl_chan); eta_learn: its wait measures the rate
     * (command.c). */
    uint64_t eta_ns, eta_start, eta_bytes;
    enum hcqcl_rate eta_kind;
    bool eta_learn;
    /* A kernel's instead (eta_key: its launch, kernel_times.c): spin
     * after eta_ns for eta_spin; eta_learn teaches its length. */
    uint64_t eta_key, eta_spin;
    struct _cl_event *prev, *next; /* tracker stream / pool */
    struct _cl_event *gnext;       /* its stream's next gated command */
    unsigned stream;               /* its tracker stream (event.c) */
    uint64_t sseq;                 /* its place in that stream, rising */
};

/* Event internals for command.c / queue.c (event.c). */
cl_event hcqcl_event_new(cl_context ctx, cl_command_queue q, cl_command_type type);
/* Let go of what a final event holds (its dependencies, its command's
 * objects) now, not at its last reference; no lock held. */
void hcqcl_event_release_held(cl_event e);
/* Drop one internal reference (frees when none of either kind is left). */
void hcqcl_event_unref(cl_event e);
void hcqcl_event_ref(cl_event e);
/* Hand a built command to the tracker (phase GATED or GPU). */
void hcqcl_event_track(cl_event e);
/* Settle the finished commands at the head of e's tracker stream (e's
 * channel), if the tracker is free; call with no hcqcl lock held. */
void hcqcl_event_retire(cl_event e);
/* Wait until final; returns the final status (CL_COMPLETE or < 0). */
cl_int hcqcl_event_wait(cl_event e);
/* The GPU part of e, a transfer with an expected end, was seen done at
 * host time done_ns by a thread that watched it end: fold the rate it
 * showed into its device's (command.c). */
void hcqcl_cmd_learn(cl_event e, uint64_t done_ns);
/* Whether d, recorded behind a wait on the host (host_wait), needs the
 * host no longer: decided to run, and every command before it on its
 * channel decided too. What depends on it may then wait for it on the GPU,
 * as for any command (command.c). strict: also each of its dependencies on
 * another channel ended, so that its GPU part waits for nothing another
 * thread has yet to submit: a thread may then wait for it inline. An
 * event that completed is settled; one that failed is not. */
bool hcqcl_event_settled(cl_event d, bool strict);
/* True while some tracked command still waits for host-side events
 * (user events, another GPU): waiting for a queue to drain could then
 * depend on the application's next call. */
bool hcqcl_events_gated(void);
/* Current status, advancing the tracker first (no waiting). */
cl_int hcqcl_event_status(cl_event e);
/* Queue signal slots (queue.c): taken under no lock, any thread. */
struct hcqcl_slot *hcqcl_queue_slot_get(cl_command_queue q, uint64_t *value);
void hcqcl_queue_slot_put(cl_command_queue q, struct hcqcl_slot *s);
/* Drop an internal queue reference (events); destroys when none left. */
void hcqcl_queue_unref(cl_command_queue q);
/* Submit the work q's channels hold back (hcq_q_commit), so that what was
 * enqueued reaches the GPU: before every wait for it. Takes q->lock
 * (try: only if free; returns false when it was not). */
bool hcqcl_queue_flush(cl_command_queue q, bool try);
/* The same with q->lock held; except: a channel to leave alone. */
void hcqcl_queue_flush_locked(cl_command_queue q, const struct hcq_queue *except);
/* With q->lock held, after a commit that held the command back: q->held
 * and since when (a release store; the notifier's check of it is backed
 * by q->lock: see command_lite.c, hcqcl_lite_end). */
void hcqcl_queue_note_held(cl_command_queue q);
/* The tracker decided a gate of q and flushes q once its passes are done
 * (event.c, flush_gated): the notifier's count of how long q held work
 * starts again, so that it does not submit the part of a chain decided so
 * far while the tracker is still deciding the rest. Any thread. */
void hcqcl_queue_note_decided(cl_command_queue q);

/* True when q is a live command queue (non-NULL, ours, type QUEUE). */
bool hcqcl_queue_valid(cl_command_queue q);
cl_context hcqcl_queue_context(cl_command_queue q);
cl_device_id hcqcl_queue_device(cl_command_queue q);
cl_command_queue_properties hcqcl_queue_properties(cl_command_queue q);

/* True when e is a live event. */
bool hcqcl_event_valid(cl_event e);
cl_context hcqcl_event_context(cl_event e);

/* Validate an event wait list against a context, spec wording:
 * CL_INVALID_EVENT_WAIT_LIST if wait_list is NULL and num > 0, or not NULL
 * and num is 0, or any event is not a valid event; CL_INVALID_CONTEXT if
 * an event's context differs from ctx (ctx NULL: not checked). */
cl_int hcqcl_wait_list_check(cl_context ctx, cl_uint num, const cl_event *wait_list);

/* ---- The command machinery (command.c) -----------------------------
 *
 * Every enqueue builds one command:
 *
 *     struct hcqcl_cmd cmd;
 *     err = hcqcl_cmd_begin(q, CL_COMMAND_COPY_BUFFER, HCQ_ENGINE_COPY,
 *                           num_events, wait_list, &cmd);
 *     if (err != CL_SUCCESS) return err;          // nothing to undo
 *     hcqcl_cmd_retain(&cmd, (struct hcqcl_obj *)src); ...
 *     if (hcq_q_copy(hcqcl_cmd_hq(&cmd), dst_va, src_va, size) < 0) {
 *         hcqcl_cmd_abort(&cmd); return CL_OUT_OF_RESOURCES;
 *     }
 *     return hcqcl_cmd_end(&cmd, blocking, event);
 *
 * hcqcl_cmd_begin validates the wait list (CL_INVALID_EVENT_WAIT_LIST,
 * CL_INVALID_CONTEXT), takes the queue lock, picks the channel for the
 * engine and records GPU-side waits for every dependency (wait list and,
 * in-order, the queue's previous command; barriers in out-of-order
 * queues). The caller's verbs go to hcqcl_cmd_hq(). hcqcl_cmd_end records
 * the completion signal (and the start timestamp when profiling), submits,
 * publishes the event through *event_out (may be NULL), unlocks, and when
 * blocking waits for completion: it then returns
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the command failed
 * because a dependency failed. Both are called by enqueue entry points on
 * the application's thread; the command must be begun and ended (or
 * aborted) on the same thread. Nothing in the fast path allocates or makes
 * a system call once pools are warm.
 *
 * Host work around the GPU part:
 *  - hcqcl_cmd_before(fn): fn(arg, status) runs once every dependency is
 *    complete and BEFORE the GPU part starts (e.g. copy a host pointer into
 *    a staging buffer only after earlier commands wrote it). Inline when the
 *    dependencies are already complete, otherwise on the notifier thread
 *    while the command's GPU part is held back behind a gate (a hold on its
 *    channel) the notifier then lifts. Must be called
 *    right after hcqcl_cmd_begin, before any verb. status < 0 when a
 *    dependency failed (fn should then do nothing but may log).
 *  - hcqcl_cmd_after(fn): fn(arg, status) runs once the GPU part is done and
 *    BEFORE the event reads CL_COMPLETE and before dependents start (e.g.
 *    staging → user pointer). On the notifier thread, or on the thread of a
 *    blocking wait. status < 0 when the command failed (free resources only).
 *  - hcqcl_cmd_on_release(fn): fn(arg) runs once the command is finished
 *    and nothing on the GPU uses its resources any more (free a staging
 *    buffer). Any thread; no lock held.
 * fn must not call OpenCL entry points that wait on events.
 *
 * Failure: a command whose wait list holds an event that ends with a
 * negative status ends with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
 * (its hooks see status < 0). Implicit order (in-order predecessor,
 * barriers) does not pass failure on. Such a command is terminated: a
 * dependency that could still fail put it behind a gate (a hold on its
 * channel, command.c), and the tracker drops its GPU part instead of
 * letting it run; what follows it on the channel runs.
 */

struct hcqcl_cmd {
    cl_command_queue q;
    cl_event ev;             /* the command's event (pooled), owned */
    struct hcq_queue *hq;    /* channel picked for the engine */
    struct hcqcl_chan *chan; /* its slot in the queue */
    bool gated;              /* the GPU part is held until the host decides */
    bool started;            /* start timestamp recorded (profiling) */
    bool barrier;            /* later commands depend on this one (ooo) */
    bool all_previous;       /* depends on every earlier command */
    cl_int err;              /* first verb error of the machinery */
    uint64_t expect_bytes;   /* hcqcl_cmd_expect: bytes moved, 0 = unknown */
    enum hcqcl_rate expect_kind;
    uint64_t expect_key;     /* a launch on an idle channel (kernel_times.c) */
};

/* Like hcqcl_cmd_begin; all_previous: also depend on every command
 * enqueued before (markers and barriers without a wait list); barrier:
 * every later command depends on this one. */
cl_int hcqcl_cmd_begin_ex(cl_command_queue q, cl_command_type type, enum hcq_engine engine,
                          cl_uint num_events, const cl_event *wait_list, bool all_previous,
                          bool barrier, struct hcqcl_cmd *cmd);

cl_int hcqcl_cmd_begin(cl_command_queue q, cl_command_type type, enum hcq_engine engine,
                       cl_uint num_events, const cl_event *wait_list, struct hcqcl_cmd *cmd);
/* An event of the wait list had failed, or was known to fail, when the
 * command was enqueued: the command is terminated, its verbs are not
 * recorded (it only ends, with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST).
 * One whose dependency may still fail is gated instead (command.c). */
static inline bool hcqcl_cmd_terminated(const struct hcqcl_cmd *cmd)
{
    return cmd->ev->dep_status < 0;
}
/* The command moves bytes of kind k and nothing else: when it starts at a
 * known time (its channel idle, or busy with other such transfers) its
 * event gets an expected end from the rate the device has shown for k,
 * and waits sleep through most of it (hcq_signal_wait_eta). */
void hcqcl_cmd_expect(struct hcqcl_cmd *cmd, enum hcqcl_rate k, uint64_t bytes);
/* The channel to record the command's verbs on. The first call also
 * records the start timestamp on profiling queues (after the waits). */
struct hcq_queue *hcqcl_cmd_hq(struct hcqcl_cmd *cmd);
/* Keep an object (mem, kernel, ...) retained until the command finished:
 * takes a new reference, released with the object's clRelease*. */
void hcqcl_cmd_retain_mem(struct hcqcl_cmd *cmd, cl_mem m);
/* The same with a reference the caller took: the command's from now. */
void hcqcl_cmd_own_mem(struct hcqcl_cmd *cmd, cl_mem m);
void hcqcl_cmd_retain_kernel(struct hcqcl_cmd *cmd, cl_kernel k);
/* The command submits part of its GPU work itself, now (a pipelined
 * transfer, before hcqcl_cmd_end): its CL_PROFILING_COMMAND_SUBMIT is
 * this moment, not the end's. Call just before the first submission. */
void hcqcl_cmd_submitted(struct hcqcl_cmd *cmd);
/* CL_OUT_OF_HOST_MEMORY when the hook can't be recorded. */
cl_int hcqcl_cmd_before(struct hcqcl_cmd *cmd, hcqcl_cmd_fn fn, void *arg);
cl_int hcqcl_cmd_after(struct hcqcl_cmd *cmd, hcqcl_cmd_fn fn, void *arg);
cl_int hcqcl_cmd_on_release(struct hcqcl_cmd *cmd, void (*fn)(void *), void *arg);

/* printf.c. The size CL_DEVICE_PRINTF_BUFFER_SIZE reports. */
#define HCQCL_PRINTF_BUFFER_SIZE (1u << 20)
/* A printf buffer for a launch on q, taken before the command begins (no
 * lock held): an idle one, a new one, or, when device memory is short,
 * one that a launch in flight gives back (waiting for it while launches
 * complete). NULL when none came (CL_OUT_OF_RESOURCES). */
struct hcqcl_printf_buf *hcqcl_printf_take(cl_command_queue q);
/* Give b to cmd's launches (a kernel that calls printf): *va is its GPU
 * address, for HCQ_ENVREG_PRINTF; the records are written to stdout when
 * the command has completed (an after-hook). b is cmd's from then on,
 * whatever the result. */
cl_int hcqcl_printf_attach(struct hcqcl_cmd *cmd, struct hcqcl_printf_buf *b, uint64_t *va);
/* A buffer taken and not attached (the enqueue failed). */
void hcqcl_printf_put(struct hcqcl_printf_buf *b);
/* Free a context's idle printf buffers (its last release). */
void hcqcl_printf_release(cl_context c);
/* Finish the command. Returns CL_SUCCESS, CL_OUT_OF_RESOURCES (a verb
 * failed / device lost) or, when blocking, the wait's error. */
cl_int hcqcl_cmd_end(struct hcqcl_cmd *cmd, bool blocking, cl_event *event_out);
/* Give up a begun command: unlocks the queue, drops the event and the
 * retained objects. Verbs already recorded still run (they are harmless:
 * the caller aborts only before or instead of its own verbs' effects). */
void hcqcl_cmd_abort(struct hcqcl_cmd *cmd);

/* Commands without an event (command_lite.c). An in-order queue's command
 * that nobody can wait for by itself (no event asked for, no wait list,
 * no profiling) needs no event and no tracking: it ends at a value of its
 * channel's timeline, which later commands wait for the way they wait for
 * an event (the same channel: not at all), and clFinish waits for the
 * newest such value. What it uses stays retained in the queue's ring
 * until the GPU has passed that value; the ring is settled by later
 * commands, clFinish and the queue's release.
 *
 *     struct hcqcl_lite_cmd lc;
 *     if (hcqcl_lite_begin(q, HCQ_ENGINE_COMPUTE, objs, nobjs, &lc)) {
 *         bool ok = record(lc.hq) == 0;
 *         return hcqcl_lite_end(&lc, ok);
 *     }
 *     ... the usual hcqcl_cmd_begin / hcqcl_cmd_end ...
 */
struct hcqcl_lite_cmd {
    cl_command_queue q;
    struct hcqcl_chan *chan;
    struct hcq_queue *hq; /* where the caller records */
    struct hcqcl_obj *const *objs; /* what the command uses (retained) */
    uint32_t nobjs;
    bool moved; /* the references are the ring's newest entry's, not new */
    bool waits; /* it may wait for a command of another channel first */
    uint64_t key; /* a launch on an idle channel, or 0 (kernel_times.c) */
};
/* Queue properties under which every command gets an event of its own:
 * none goes through the ring of commands without events. */
#define HCQCL_LITE_EXCLUDED (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)
/* True, with q->lock held and objs (nobjs <= HCQCL_LITE_OBJS, the array
 * living until hcqcl_lite_end) retained, when the command may go without
 * an event: q is in order without profiling, and what came before can be
 * ordered on the GPU (no gate, nothing only the host ends). */
bool hcqcl_lite_begin(cl_command_queue q, enum hcq_engine engine, struct hcqcl_obj *const *objs,
                      uint32_t nobjs, struct hcqcl_lite_cmd *lc);
/* The same with q->lock already held, which it never lets go of while it
 * returns true; false (the lock released) also when the ring is full. */
bool hcqcl_lite_begin_locked(cl_command_queue q, enum hcq_engine engine,
                             struct hcqcl_obj *const *objs, uint32_t nobjs,
                             struct hcqcl_lite_cmd *lc);
/* End it: the timeline release, the commit, the objects kept in the ring
 * until the GPU passes the command; unlocks. ok: the caller's verbs all
 * recorded (what was recorded still runs either way). */
cl_int hcqcl_lite_end(struct hcqcl_lite_cmd *lc, bool ok);
/* With q->lock held: order a command on hq after the newest eventless
 * one, if it has not ended (a GPU-side wait when it ran on another
 * channel); e, the command's event or NULL, then waits for it on the host
 * side too (its lite_sig). */
cl_int hcqcl_lite_order_locked(cl_command_queue q, struct hcq_queue *hq, cl_event e);
/* True while e's host-side work must still wait for an eventless command
 * recorded before it. */
static inline bool hcqcl_lite_pending(cl_event e)
{
    return e->lite_sig && hcq_signal_value(e->lite_sig) < e->lite_val;
}
/* Wait until the GPU passed every eventless command of q, then release
 * their objects; no lock held. CL_OUT_OF_RESOURCES if the device was
 * lost. */
cl_int hcqcl_lite_drain(cl_command_queue q);
/* Channel for a command with q->lock held (command.c). */
struct hcqcl_chan *hcqcl_cmd_channel_locked(cl_command_queue q, enum hcq_engine engine);
/* The channel's last command that waited on the host has not ended. */
bool hcqcl_chan_blocked(const struct hcqcl_chan *ch);
/* A command's hold on a kernel or buffer (retain / release by type). */
void hcqcl_cmd_obj_retain(struct hcqcl_obj *o);
void hcqcl_cmd_objs_release(struct hcqcl_obj *const *objs, size_t n);
/* Finished commands' objects are taken for release and released within a
 * stretch: begin (before the command is seen final or its objects leave
 * the lock that holds them; it never waits) returns a slot for end.
 * Quiesce returns once no other thread is in a stretch (at once when the
 * caller is in one, or after max_ns): whoever sees a command final and
 * then asks what is still attached (a build, clFinish's destructor
 * callbacks) calls it. */
unsigned hcqcl_cmd_release_begin(void);
void hcqcl_cmd_release_end(unsigned slot);
/* False when it gave up: the caller is in a stretch, or max_ns passed. */
bool hcqcl_cmd_release_quiesce(uint64_t max_ns);
/* Settle every finished command the tracker holds (event.c). */
void hcqcl_events_progress(void);
/* That, and the finished commands without events of every queue: objects
 * the application released and only finished commands held are freed
 * before this returns (event.c). For checks of what the application sees
 * attached, as a program's kernels before a build. */
void hcqcl_events_settle(void);
/* q holds work back, or objects of commands without events, with maybe no
 * tracked command to find it by: the notifier submits work held too long
 * and settles the ring (event.c), until q has neither. */
void hcqcl_event_watch_queue(cl_command_queue q);
/* Settle q's commands without events that the GPU passed, releasing their
 * objects; no lock held (try: nothing if q->lock is busy). */
void hcqcl_lite_retire(cl_command_queue q, bool try);
/* Whether q still holds eventless commands in its ring (q->lock held). */
static inline bool hcqcl_lite_any_locked(cl_command_queue q) { return q->lite_tail != q->lite_head; }
/* Tell the context, once per process, that the device of q was lost. */
void hcqcl_event_tell_lost(cl_context ctx, cl_command_queue q);

/* ==================================================================== */
/* Buffer transfers (enqueue_mem.c, enqueue_rect.c, enqueue_map.c,      */
/* staging.c)                                                           */
/* ==================================================================== */

/* Validators shared by the transfer entry points. Pure functions of their
 * arguments: any thread, no locks, no allocation. Each returns CL_SUCCESS
 * or the error code the spec names for that condition, logging the check
 * that failed. */

/* CL_INVALID_VALUE unless [offset, offset + size) lies inside [0, total). */
cl_int hcqcl_xfer_check_range(size_t offset, size_t size, size_t total);
/* clEnqueueFillBuffer: pattern non-NULL, size a power of two <= 128,
 * offset and size multiples of it, region inside total. */
cl_int hcqcl_xfer_check_fill(const void *pattern, size_t pattern_size, size_t offset,
                             size_t size, size_t total);
/* CL_INVALID_OPERATION when the host may not do this access to a buffer
 * created with mem_flags (CL_MEM_HOST_*). host_read / host_write: the
 * access the command makes from the host's side. */
cl_int hcqcl_xfer_check_host_access(cl_mem_flags mem_flags, bool host_read, bool host_write);
/* CL_INVALID_VALUE for unknown map flags or WRITE_INVALIDATE_REGION
 * combined with READ or WRITE. */
cl_int hcqcl_xfer_check_map_flags(cl_map_flags flags);
/* True when two byte ranges of one allocation intersect (size 0 never). */
bool hcqcl_xfer_ranges_overlap(uint64_t a, uint64_t b, uint64_t size);
/* A buffer argument of a transfer on q (q already validated):
 * CL_INVALID_MEM_OBJECT unless a live buffer, CL_INVALID_CONTEXT unless of
 * q's context, CL_MISALIGNED_SUB_BUFFER_OFFSET for a sub-buffer whose
 * origin breaks the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN. */
cl_int hcqcl_xfer_check_buffer(cl_command_queue q, cl_mem m);
/* The handles of a buffer command, in the spec's order: q
 * (CL_INVALID_COMMAND_QUEUE unless a valid host queue), then each of the
 * n buffers as hcqcl_xfer_check_buffer. */
cl_int hcqcl_xfer_check_args(cl_command_queue q, unsigned n, const cl_mem *bufs);
/* The buffer whose store m addresses, and m's byte offset in it. */
static inline cl_mem hcqcl_xfer_root(cl_mem m) { return m->parent ? m->parent : m; }
static inline size_t hcqcl_xfer_base(cl_mem m) { return m->parent ? m->offset : 0; }

/* Which way a transfer goes; picks the copy channel so that uploads and
 * downloads of one queue run on different copy engines. */
enum hcqcl_xfer_dir { HCQCL_XFER_H2D, HCQCL_XFER_D2H, HCQCL_XFER_D2D };
/* hcqcl_cmd_begin on a copy channel for dir (same contract). */
cl_int hcqcl_xfer_begin(cl_command_queue q, cl_command_type type, enum hcqcl_xfer_dir dir,
                        cl_uint num_events, const cl_event *wait_list, struct hcqcl_cmd *cmd);
/* The tail of a read or write between buf and host memory ptr, shared by
 * the plain and rect entry points once q, buf and the range are checked:
 * CL_INVALID_VALUE for a NULL ptr, CL_INVALID_OPERATION when buf's host
 * access flags forbid it, then hcqcl_xfer_begin (H2D for write, else D2H)
 * with buf retained for cmd. Same contract as hcqcl_xfer_begin. */
cl_int hcqcl_xfer_begin_host(cl_command_queue q, cl_mem buf, const void *ptr, bool write,
                             cl_command_type type, cl_uint num_events,
                             const cl_event *wait_list, struct hcqcl_cmd *cmd);
/* Host memory a command still writes (host_pending.c): a read's
 * destination from enqueue until its bytes are there. A transfer from host
 * memory that overlaps one reads it in a before-hook, when the command
 * runs, instead of when it is enqueued. Entries live in the commands' jobs;
 * add once (a second add is ignored), remove any number of times. Any
 * thread; the lock is a leaf. */
void hcqcl_host_pending_add(struct hcqcl_host_pending *p, const void *ptr, size_t size);
/* An entry for [ptr, ptr + size) that cmd writes, removed when cmd is
 * released (it takes the command's release hook). CL_SUCCESS or
 * CL_OUT_OF_HOST_MEMORY. */
struct hcqcl_cmd;
cl_int hcqcl_host_pending_cmd(struct hcqcl_cmd *cmd, const void *ptr, size_t size);
void hcqcl_host_pending_remove(struct hcqcl_host_pending *p);
bool hcqcl_host_pending_overlaps(const void *ptr, size_t size);
/* Move size bytes between pageable host memory and GPU VA va inside a
 * begun command (to_gpu: host -> va). Chooses how: transfers above
 * 2 MiB whose dependencies need nothing from the host are pipelined
 * inline through a ring of pool chunks (the copy threads of
 * hcqcl_staging_copy fill/drain chunk i+1 while the copy engine moves
 * chunk i; reads keep the ring queued ahead); smaller ones use one
 * staging buffer (reads land in host from the command's after-hook, so a
 * non-blocking read is in place when its event completes); other large
 * ones copy straight from/to the user's pages registered with the GPU, or
 * through one dedicated staging buffer when they can't be registered. A
 * write whose host range a pending read still fills (hcqcl_host_pending_*)
 * is never pipelined and fills its staging in a before-hook; reads list
 * their range until done. Call it before any verb of the command. Uses
 * the command's before, after and on-release hooks. CL_SUCCESS, CL_OUT_OF_RESOURCES or CL_OUT_OF_HOST_MEMORY; on
 * error the caller aborts the command. */
cl_int hcqcl_xfer_host(struct hcqcl_cmd *cmd, struct hcq_device *dev, uint64_t va, void *host,
                       size_t size, bool to_gpu);
/* Host pointers the GPU can already reach (enqueue_map.c): regions mapped
 * with no copy (HCQCL_MAP_DIRECT: pinned host memory, registered user
 * pages, BAR1-mapped vidmem) are remembered from map to unmap. When
 * [ptr, ptr + size) lies inside one that dev can address, *va is its GPU
 * address there, the buffer is retained for cmd and true is returned:
 * hcqcl_xfer_host then copies with one engine copy and no staging (the
 * usual way to get pinned bandwidth in OpenCL). Any thread. */
bool hcqcl_xfer_pinned(struct hcqcl_cmd *cmd, struct hcq_device *dev, const void *ptr,
                       size_t size, uint64_t *va);
/* m is destroyed with regions still mapped: they are no longer found. */
void hcqcl_map_pinned_forget(cl_mem m);

/* The entry points' work after their own checks, with the command type
 * the event reports, for the SVM commands that do the same (svm.c):
 * read / write (buffer checks, range, host access), copy (both buffers'
 * checks, ranges, overlap; blocking waits like a blocking read), fill
 * (pattern checked by the caller), unmap (q and memobj checked). */
cl_int hcqcl_enqueue_rw(cl_command_queue q, cl_mem buf, cl_bool blocking, size_t offset,
                        size_t size, void *ptr, bool write, cl_command_type type,
                        cl_uint num_events, const cl_event *wait_list, cl_event *event);
cl_int hcqcl_enqueue_copy(cl_command_queue q, cl_mem src_buffer, cl_mem dst_buffer,
                          size_t src_offset, size_t dst_offset, size_t size, bool blocking,
                          cl_command_type type, cl_uint num_events_in_wait_list,
                          const cl_event *event_wait_list, cl_event *event);
cl_int hcqcl_enqueue_fill(cl_command_queue q, cl_mem buffer, const void *pattern,
                          size_t pattern_size, size_t offset, size_t size, cl_command_type type,
                          cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                          cl_event *event);
cl_int hcqcl_unmap_enqueue(cl_command_queue q, cl_mem memobj, void *mapped_ptr,
                           cl_command_type type, cl_uint num_events_in_wait_list,
                           const cl_event *event_wait_list, cl_event *event);
/* A command that moves nothing: an ordering point that keeps mems alive
 * until the commands it waits for are done (migrations: every store
 * already lives where its devices reach it). */
cl_int hcqcl_enqueue_hold(cl_command_queue q, cl_command_type type, cl_uint n, const cl_mem *mems,
                          cl_uint num_events, const cl_event *wait_list, cl_event *event);

/* A rectangle of a buffer or host region after the pitch defaults were
 * applied: byte `offset` of the first element, `span` bytes from it to one
 * past the last byte touched. */
struct hcqcl_rect {
    size_t origin[3];
    size_t region[3];
    size_t row_pitch;
    size_t slice_pitch;
    size_t offset;
    size_t span;
};
/* Apply the spec's pitch defaults (row = region[0], slice = region[1] x
 * row) and checks (non-NULL origin/region, no zero region element,
 * minimum pitches, slice a multiple of row). CL_INVALID_VALUE or
 * CL_SUCCESS; *out is filled on success. */
cl_int hcqcl_rect_resolve(const size_t *origin, const size_t *region, size_t row_pitch,
                          size_t slice_pitch, struct hcqcl_rect *out);
/* CL_INVALID_VALUE unless the resolved rectangle fits in total bytes. */
cl_int hcqcl_rect_check_bounds(const struct hcqcl_rect *r, size_t total);
/* The spec's overlap rule for clEnqueueCopyBufferRect within one buffer
 * (appendix "Checking for Memory Copy Overlap"): two rectangles of the
 * shape `shape` (region and pitches; its offset is ignored) starting at
 * byte src_offset and dst_offset of the same allocation. True when they
 * may overlap: false only when their spans are disjoint or one fits in
 * the other's row or slice gap. */
bool hcqcl_rect_overlap(uint64_t src_offset, uint64_t dst_offset, const struct hcqcl_rect *shape);
/* The tails of the rect entry points, for images (enqueue_image.c): every
 * argument already checked except what the helper names.
 * rect_enqueue_host: host rectangle h <-> rectangle b of m, through
 * staging (write: h is packed at the call, so ptr may be reused once it
 * returns). check_host: refuse by m's CL_MEM_HOST_* flags
 * (CL_INVALID_OPERATION) and a NULL ptr (CL_INVALID_VALUE); false for a
 * fill, whose pixels come from hcqcl itself. Retains m for the command.
 * rect_enqueue_copy: rectangle s of src -> rectangle d of dst, both of
 * shape region (bytes); retains both. */
cl_int hcqcl_rect_enqueue_host(cl_command_queue q, cl_mem m, bool blocking,
                               const struct hcqcl_rect *b, const struct hcqcl_rect *h, void *ptr,
                               bool write, bool check_host, cl_command_type type,
                               cl_uint num_events, const cl_event *wait_list, cl_event *event);
cl_int hcqcl_rect_enqueue_copy(cl_command_queue q, cl_mem src, cl_mem dst,
                               const struct hcqcl_rect *s, const struct hcqcl_rect *d,
                               cl_command_type type, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event);
/* The tail of clEnqueueMapBuffer for bytes [offset, offset + size) of m
 * (enqueue_map.c), once m, the range and the flags are checked: host
 * access, overlapping maps, the wait list, the mapping and its command
 * (type). Returns the pointer to byte offset, or NULL with *err set. */
void *hcqcl_map_enqueue(cl_command_queue q, cl_mem m, bool blocking, cl_map_flags flags,
                        size_t offset, size_t size, cl_command_type type, cl_uint num_events,
                        const cl_event *wait_list, cl_event *event, cl_int *err);

/*
 * Pinned staging (staging.c): HCQ_MEM_HOST buffers that carry pageable
 * host data to and from the copy engines.
 *
 * Each device has a pool, allocated on first use and kept for the life of
 * the process (the pool holds an hcq_device_open reference):
 *  - up to HCQCL_STAGING_POOL chunks of HCQCL_STAGING_CHUNK bytes, for
 *    transfers up to a chunk and for pipelining larger ones (a ring of
 *    HCQCL_STAGING_RING chunks each, so a few threads can pipeline at once);
 *  - HCQCL_STAGING_SLABS chunks cut into HCQCL_STAGING_SLOT-byte slots,
 *    so bursts of small non-blocking transfers don't exhaust the chunks.
 * Requests the pool can't serve get a dedicated allocation, freed when
 * put back. A staging buffer belongs to one command at a time; it goes
 * back with hcqcl_staging_put once the GPU no longer touches it (usually
 * from the command's on-release hook). Chunks carry a signal the
 * pipelined transfers release after each chunk copy, so a chunk can be
 * refilled as soon as the GPU has drained it. Thread-safe (pool lock,
 * never held while waiting or calling the core's queue verbs).
 */
enum {
    HCQCL_STAGING_CHUNK = 4u << 20,
    HCQCL_STAGING_POOL = 16,
    HCQCL_STAGING_RING = 4, /* chunks one pipelined transfer takes */
    HCQCL_STAGING_SLOT = 64u << 10,
    HCQCL_STAGING_SLABS = 2,
};

enum hcqcl_staging_kind { HCQCL_STAGING_DEDICATED, HCQCL_STAGING_POOLED, HCQCL_STAGING_SLOTTED };

struct hcqcl_staging {
    void *cpu;                    /* CPU view of the first byte */
    uint64_t va;                  /* GPU address of the first byte */
    size_t size;
    struct hcq_mem *mem;          /* the allocation (a slab's, for slots) */
    struct hcq_signal *sig;       /* chunks: released by the GPU after each use */
    uint64_t sig_val;             /* last value queued on sig */
    enum hcqcl_staging_kind kind;
    bool broken;                  /* sig may never reach sig_val: drop */
    unsigned slot;                /* slots: index in the slab */
    struct hcqcl_staging *next;   /* free list / a command's chain */
};

/* At least size bytes on dev: a slot or a pool chunk when size fits one
 * and one is free, else a dedicated buffer. NULL when the memory can't be
 * had. The result has no signal when it is a slot (sig NULL). */
struct hcqcl_staging *hcqcl_staging_get(struct hcq_device *dev, size_t size);
/* Up to max free pool chunks, chained through ->next (the pool grows up to
 * HCQCL_STAGING_POOL); when none is free, one dedicated chunk-sized buffer.
 * All have signals. Returns how many (0: out of memory). */
unsigned hcqcl_staging_get_chunks(struct hcq_device *dev, unsigned max,
                                  struct hcqcl_staging **chain);
/* Give back a whole ->next chain. NULL is a no-op. */
void hcqcl_staging_put(struct hcqcl_staging *chain);
/* hcqcl_cmd_on_release-shaped: arg is a chain. */
void hcqcl_staging_put_cb(void *chain);
/* When dev's pool is still empty: a ring of chunks and a slab, allocated
 * and put back (prewarm.c). */
void hcqcl_staging_fill(struct hcq_device *dev);
/* Once per device (clCreateContext): the staging pool filled and the
 * built-in kernels loaded in a background thread, so that the
 * application's first transfers find them ready. */
void hcqcl_prewarm(struct hcq_device *dev);
/* Until dev's prewarm thread is done (tests that count memory). */
void hcqcl_prewarm_wait(struct hcq_device *dev);

/*
 * Staging copies (staging_copy.c): the CPU's memcpy between pageable host
 * memory and staging buffers, split across a process-wide pool of worker
 * threads so that it keeps pace with a copy engine. A copy of n bytes is
 * cut into pieces of whole cache lines (at least 64 KiB each); the calling
 * thread copies pieces too and returns when every byte is in place (the
 * stores are visible to the GPU and to other threads). Workers (threads
 * - 1 of them) are created on the first split copy, poll for ~200 us
 * after their last piece and then sleep; they are joined when the library
 * is unloaded, and a forked child starts without any. Any thread,
 * including hook context (the notifier); several copies at once share the
 * workers first come, first served, each caller working on its own.
 * Never calls OpenCL or the core; src and dst must not overlap.
 */
enum {
    /* Copies at least this large use non-temporal stores by default:
     * the destination isn't read by the CPU next (a staging chunk goes to
     * the GPU; the application's buffer was just handed over whole). */
    HCQCL_STAGING_STREAM_MIN = 1u << 20,
};
enum hcqcl_copy_store { HCQCL_COPY_AUTO, HCQCL_COPY_PLAIN, HCQCL_COPY_STREAM };
/* Threads a copy is split over, the caller included: HCQCL_STAGING_THREADS
 * when set (1..64), else min(8, cores / 2) counting the cores the process
 * may run on (its affinity mask), at least 1. */
unsigned hcqcl_staging_copy_threads(void);
/* memcpy(dst, src, n) on hcqcl_staging_copy_threads() threads. */
void hcqcl_staging_copy(void *dst, const void *src, size_t n);
/* The same with the split (threads, 0: the default; more than the pool
 * has only makes more pieces) and store kind chosen: for measurements. */
void hcqcl_staging_copy_ex(void *dst, const void *src, size_t n, unsigned threads,
                           enum hcqcl_copy_store store);

#endif

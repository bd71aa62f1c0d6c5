/*
 * device.c — root devices: one per GPU the core enumerates, their
 * clGetDeviceInfo answers (every OpenCL 3.0 query), sub-device refusal and
 * the device/host timers.
 *
 * Every number comes from hcq_device_info or from what the other api files
 * implement (HCQCL_EXTENSIONS, HCQCL_MEM_BASE_ALIGN); nothing is measured
 * here.
 */
#include "api/obj.h"
#include "hcqcl/cl_ext_nv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct _cl_device_id *devices_mem;
static cl_device_id *device_list;
static cl_uint device_count;
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;

static void devices_enumerate(void)
{
    struct hcq_device *const *hw;
    unsigned n;
    hcq_enumerate(&hw, &n);
    if (n == 0) {
        const char *why = hcq_enumerate_error();
        util_log(UTIL_LOG_ERR, "no GPU found: %s", why && *why ? why : "no device");
        return;
    }
    devices_mem = calloc(n, sizeof(*devices_mem));
    device_list = calloc(n, sizeof(*device_list));
    if (!devices_mem || !device_list) {
        util_log(UTIL_LOG_ERR, "no GPU: out of host memory enumerating %u devices", n);
        free(devices_mem);
        free(device_list);
        devices_mem = NULL;
        device_list = NULL;
        return;
    }
    /* hcq_enumerate already applied HCQCL_VISIBLE_DEVICES. */
    for (unsigned i = 0; i < n; i++) {
        const struct hcq_device_info *info = hcq_device_info(hw[i]);
        struct _cl_device_id *d = &devices_mem[device_count];
        hcqcl_obj_init(&d->obj, HCQCL_TYPE_DEVICE);
        d->platform = hcqcl_platform_get();
        d->hw = hw[i];
        d->info = info;
        d->index = device_count;
        device_list[device_count++] = d;
        UTIL_LOG(UTIL_LOG_API, "device %u: %s (%u SMs, %llu MiB)", d->index, info->name,
                 info->sm_count, (unsigned long long)(info->mem_bytes >> 20));
    }
}

void hcqcl_device_list(cl_device_id **devices, cl_uint *count)
{
    pthread_once(&devices_once, devices_enumerate);
    *devices = device_list;
    *count = device_count;
}

bool hcqcl_device_valid(cl_device_id d)
{
    return hcqcl_obj_valid(d, HCQCL_TYPE_DEVICE);
}

/* The device types hcqcl knows; all of them GPUs. */
#define DEVICE_TYPE_MASK                                                                           \
    (CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |                            \
     CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM)

cl_int CL_API_CALL hcqcl_clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type,
                                        cl_uint num_entries, cl_device_id *devices,
                                        cl_uint *num_devices)
{
    /* CL_INVALID_PLATFORM if platform is not a valid platform (NULL: ours) */
    HCQCL_CHECK(!platform || hcqcl_platform_valid(platform), CL_INVALID_PLATFORM, "%p",
                (void *)platform);
    /* CL_INVALID_DEVICE_TYPE if device_type is not a valid value */
    HCQCL_CHECK(device_type == CL_DEVICE_TYPE_ALL ||
                    (device_type && !(device_type & ~DEVICE_TYPE_MASK)),
                CL_INVALID_DEVICE_TYPE, "0x%llx", (unsigned long long)device_type);
    /* CL_INVALID_VALUE if num_entries is equal to zero and devices is not NULL */
    HCQCL_CHECK(num_entries || !devices, CL_INVALID_VALUE, "num_entries 0 with devices");
    /* CL_INVALID_VALUE if both num_devices and devices are NULL */
    HCQCL_CHECK(num_devices || devices, CL_INVALID_VALUE, "num_devices and devices NULL");

    cl_device_id *all;
    cl_uint count;
    hcqcl_device_list(&all, &count);
    /* Every device is a GPU; DEFAULT names one of them, the first, so a
     * type of DEFAULT and bits other than GPU matches that one alone. */
    cl_uint found = (device_type & CL_DEVICE_TYPE_GPU)       ? count
                    : (device_type & CL_DEVICE_TYPE_DEFAULT) ? UTIL_MIN(count, 1u)
                                                             : 0;
    /* CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type were found */
    if (found == 0) {
        if (num_devices)
            *num_devices = 0;
        HCQCL_FAIL(CL_DEVICE_NOT_FOUND, "type 0x%llx, %u GPUs", (unsigned long long)device_type,
                   count);
    }
    if (devices)
        for (cl_uint i = 0; i < UTIL_MIN(found, num_entries); i++)
            devices[i] = all[i];
    if (num_devices)
        *num_devices = found;
    return CL_SUCCESS;
}

/* ---- clGetDeviceInfo ------------------------------------------------- */

#define HCQCL_EXT_NAME(name, a, b, c) #name " "
static const char device_extensions[] = HCQCL_EXTENSIONS(HCQCL_EXT_NAME);
#define HCQCL_EXT_VERSION(name, a, b, c) {CL_MAKE_VERSION(a, b, c), #name},
static const cl_name_version device_extensions_v[] = {HCQCL_EXTENSIONS(HCQCL_EXT_VERSION)};
/* The same with images on (hcqcl_images_enabled). */
static const char device_extensions_img[] =
    HCQCL_EXTENSIONS(HCQCL_EXT_NAME) HCQCL_IMAGE_EXTENSIONS(HCQCL_EXT_NAME);
static const cl_name_version device_extensions_img_v[] = {
    HCQCL_EXTENSIONS(HCQCL_EXT_VERSION) HCQCL_IMAGE_EXTENSIONS(HCQCL_EXT_VERSION)};

static const cl_name_version opencl_c_versions[] = {
    {CL_MAKE_VERSION(1, 0, 0), "OpenCL C"},
    {CL_MAKE_VERSION(1, 1, 0), "OpenCL C"},
    {CL_MAKE_VERSION(1, 2, 0), "OpenCL C"},
    {CL_MAKE_VERSION(3, 0, 0), "OpenCL C"},
};
uint64_t hcqcl_device_max_alloc(cl_device_id d)
{
    /* A 64th of the memory, at least 64 MiB, at most a quarter: 2.2 GiB of
     * an H200's 140 GiB. A context with a queue keeps some 8 MiB there;
     * kernels' stack memory and printf buffers take more as they come.
     * The spec's minimum, max(min(1 GiB, 1/4 global), 32 MiB), holds. */
    const uint64_t mem = d->info->mem_bytes;
    const uint64_t keep = UTIL_MIN(UTIL_MAX(mem / 64, (uint64_t)64 << 20), mem / 4);
    return mem - keep;
}

bool hcqcl_device_opencl_c(cl_version version)
{
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(opencl_c_versions); i++)
        if (opencl_c_versions[i].version == version)
            return true;
    return false;
}

/* What clang 16 defines for NVPTX under -cl-std=CL3.0, nothing more. */
static const cl_name_version opencl_c_features[] = {
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_fp64"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_int64"},
    /* With images on only: the first UTIL_ARRAY_SIZE - 2 entries otherwise. */
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_images"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_3d_image_writes"},
};
#define OPENCL_C_IMAGE_FEATURES 2

/* Kernel parameters live in constant bank 0 after the 0x210-byte header.
 * sm_70 and later take up to 32764 bytes there (ptxas since CUDA 12.1;
 * NVIDIA's OpenCL reports the same); a large bank is built in place
 * (launch.c) and the QMD's bank size field holds up to 128 KiB. */
#define HCQCL_MAX_PARAMETER_SIZE 32764u

/* The driver UUID identifies hcqcl's build and the kernel driver it runs
 * on: two FNV-1a hashes of both version strings. */
static void driver_uuid(const struct hcq_device_info *info, uint8_t out[CL_UUID_SIZE_KHR])
{
    char s[128];
    snprintf(s, sizeof(s), "hcqcl %s / %s", HCQCL_VERSION_STRING, info->driver_version);
    uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
    for (const char *p = s; *p; p++)
        for (int k = 0; k < 2; k++)
            h[k] = (h[k] ^ (uint8_t)*p) * 0x100000001b3ull;
    memcpy(out, h, CL_UUID_SIZE_KHR);
}

#define OUT(ptr, size) return hcqcl_info_out((ptr), (size), size_in, value, size_ret)
#define OUT_VAL(type, v)                                                                           \
    do {                                                                                           \
        type v_ = (type)(v);                                                                       \
        OUT(&v_, sizeof(v_));                                                                      \
    } while (0)
#define OUT_STR(s)                                                                                 \
    do {                                                                                           \
        const char *s_ = (s);                                                                      \
        OUT(s_, strlen(s_) + 1);                                                                   \
    } while (0)

cl_int CL_API_CALL hcqcl_clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size_in,
                                         void *value, size_t *size_ret)
{
    /* CL_INVALID_DEVICE if device is not a valid device */
    HCQCL_CHECK(hcqcl_device_valid(device), CL_INVALID_DEVICE, "%p", (void *)device);
    const struct hcq_device_info *info = device->info;
    const bool images = hcqcl_images_enabled();
    const cl_device_fp_config fp_common = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                                          CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA;

    switch (param) {
    case CL_DEVICE_TYPE: OUT_VAL(cl_device_type, CL_DEVICE_TYPE_GPU);
    case CL_DEVICE_VENDOR_ID: OUT_VAL(cl_uint, info->pci_vendor_id);
    case CL_DEVICE_MAX_COMPUTE_UNITS: OUT_VAL(cl_uint, info->sm_count);
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: OUT_VAL(cl_uint, 3);
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: OUT_VAL(size_t, info->max_threads_per_block);
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
        size_t s[3] = {info->max_block_dim[0], info->max_block_dim[1], info->max_block_dim[2]};
        OUT(s, sizeof(s));
    }
    /* Every scalar type is one lane of a 32-bit SIMT thread: width 1. */
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: OUT_VAL(cl_uint, 1);
    /* No cl_khr_fp16. */
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: OUT_VAL(cl_uint, 0);
    case CL_DEVICE_HALF_FP_CONFIG: OUT_VAL(cl_device_fp_config, 0);
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: OUT_VAL(cl_uint, info->clock_mhz);
    case CL_DEVICE_ADDRESS_BITS: OUT_VAL(cl_uint, 64);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: OUT_VAL(cl_ulong, hcqcl_device_max_alloc(device));
    /* Images (software images, image.c), on unless HCQCL_IMAGES=0; the
     * limits are NVIDIA's on Hopper but for write_only image arguments,
     * where NVIDIA's 32 is below the specification's minimum ("The
     * minimum value is 64 if CL_DEVICE_IMAGE_SUPPORT is CL_TRUE"): an
     * image argument is a descriptor's address, nothing bounds them. Off,
     * every image limit is 0. No image is read and written by one
     * kernel: that limit stays 0 either way. */
    case CL_DEVICE_IMAGE_SUPPORT: OUT_VAL(cl_bool, images ? CL_TRUE : CL_FALSE);
    case CL_DEVICE_MAX_READ_IMAGE_ARGS: OUT_VAL(cl_uint, images ? 256 : 0);
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS: OUT_VAL(cl_uint, images ? 64 : 0);
    case CL_DEVICE_MAX_SAMPLERS: OUT_VAL(cl_uint, images ? 32 : 0);
    case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS: OUT_VAL(cl_uint, 0);
    /* cl_khr_image2d_from_buffer, in pixels (obj.h). */
    case CL_DEVICE_IMAGE_PITCH_ALIGNMENT: OUT_VAL(cl_uint, images ? HCQCL_IMAGE_PITCH_ALIGN : 0);
    case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
        OUT_VAL(cl_uint, images ? HCQCL_IMAGE_BASE_ALIGN : 0);
    case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT: OUT_VAL(size_t, images ? 32768 : 0);
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH: OUT_VAL(size_t, images ? 16384 : 0);
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: OUT_VAL(size_t, images ? 268435456 : 0);
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: OUT_VAL(size_t, images ? 2048 : 0);
    case CL_DEVICE_MAX_PARAMETER_SIZE: OUT_VAL(size_t, HCQCL_MAX_PARAMETER_SIZE);
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: OUT_VAL(cl_uint, HCQCL_MEM_BASE_ALIGN * 8);
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: OUT_VAL(cl_uint, 128); /* long16 */
    /* Every build divides and takes square roots of floats with PTX's
     * IEEE instructions (div.rn, rcp.rn, sqrt.rn; compiler_cc checks),
     * so -cl-fp32-correctly-rounded-divide-sqrt asks for nothing more. */
    case CL_DEVICE_SINGLE_FP_CONFIG:
        OUT_VAL(cl_device_fp_config, fp_common | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
    case CL_DEVICE_DOUBLE_FP_CONFIG: OUT_VAL(cl_device_fp_config, fp_common);
    /* L2 is the global memory cache: coherent for reads and writes, 128-byte lines. */
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
        OUT_VAL(cl_device_mem_cache_type, info->l2_bytes ? CL_READ_WRITE_CACHE : CL_NONE);
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: OUT_VAL(cl_uint, info->l2_bytes ? 128 : 0);
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: OUT_VAL(cl_ulong, info->l2_bytes);
    case CL_DEVICE_GLOBAL_MEM_SIZE: OUT_VAL(cl_ulong, info->mem_bytes);
    /* __constant arguments are global memory read through the constant
     * cache path (LDG.CONSTANT): the spec's minimum is what we promise. */
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: OUT_VAL(cl_ulong, 64 * 1024);
    case CL_DEVICE_MAX_CONSTANT_ARGS: OUT_VAL(cl_uint, 8);
    case CL_DEVICE_LOCAL_MEM_TYPE: OUT_VAL(cl_device_local_mem_type, CL_LOCAL);
    case CL_DEVICE_LOCAL_MEM_SIZE: OUT_VAL(cl_ulong, info->shared_per_block_max);
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT: OUT_VAL(cl_bool, info->ecc_enabled);
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
        OUT_VAL(size_t, info->timer_resolution_ns ? info->timer_resolution_ns : 1);
    case CL_DEVICE_ENDIAN_LITTLE: OUT_VAL(cl_bool, CL_TRUE);
    case CL_DEVICE_AVAILABLE: OUT_VAL(cl_bool, !hcq_device_lost(device->hw));
    /* Programs from source are built through hcqcl-cc or its cache; with
     * neither, clBuildProgram answers CL_COMPILER_NOT_AVAILABLE (compiler.c).
     * Linking compiles the objects' sources again: the same compiler. */
    case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_LINKER_AVAILABLE: OUT_VAL(cl_bool, hcqcl_compiler_available());
    case CL_DEVICE_EXECUTION_CAPABILITIES: OUT_VAL(cl_device_exec_capabilities, CL_EXEC_KERNEL);
    case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
        OUT_VAL(cl_command_queue_properties,
                CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
    case CL_DEVICE_NAME: OUT_STR(info->name);
    case CL_DEVICE_VENDOR: OUT_STR("NVIDIA Corporation");
    case CL_DRIVER_VERSION: OUT_STR(HCQCL_VERSION_STRING);
    case CL_DEVICE_PROFILE: OUT_STR("FULL_PROFILE");
    case CL_DEVICE_VERSION: OUT_STR("OpenCL 3.0 hcqcl " HCQCL_VERSION_STRING);
    case CL_DEVICE_NUMERIC_VERSION: OUT_VAL(cl_version, CL_MAKE_VERSION(3, 0, 0));
    case CL_DEVICE_OPENCL_C_VERSION: OUT_STR("OpenCL C 1.2 ");
    case CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR: OUT_VAL(cl_version, CL_MAKE_VERSION(1, 2, 0));
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS: OUT(opencl_c_versions, sizeof(opencl_c_versions));
    case CL_DEVICE_OPENCL_C_FEATURES:
        OUT(opencl_c_features,
            sizeof(opencl_c_features) -
                (images ? 0 : OPENCL_C_IMAGE_FEATURES * sizeof(opencl_c_features[0])));
    case CL_DEVICE_EXTENSIONS: OUT_STR(images ? device_extensions_img : device_extensions);
    case CL_DEVICE_EXTENSIONS_WITH_VERSION:
        if (images)
            OUT(device_extensions_img_v, sizeof(device_extensions_img_v));
        OUT(device_extensions_v, sizeof(device_extensions_v));
    case CL_DEVICE_PLATFORM: OUT_VAL(cl_platform_id, device->platform);
    case CL_DEVICE_HOST_UNIFIED_MEMORY: OUT_VAL(cl_bool, CL_FALSE);
    /* No built-in kernels, no intermediate languages (no SPIR-V). */
    case CL_DEVICE_BUILT_IN_KERNELS:
    case CL_DEVICE_IL_VERSION: OUT_STR("");
    case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
    case CL_DEVICE_ILS_WITH_VERSION: OUT(NULL, 0);
    /* A root device that cannot be partitioned. */
    case CL_DEVICE_PARENT_DEVICE: OUT_VAL(cl_device_id, NULL);
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: OUT_VAL(cl_uint, 0);
    case CL_DEVICE_PARTITION_PROPERTIES:
    case CL_DEVICE_PARTITION_TYPE: OUT_VAL(cl_device_partition_property, 0);
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: OUT_VAL(cl_device_affinity_domain, 0);
    case CL_DEVICE_REFERENCE_COUNT: OUT_VAL(cl_uint, 1);
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: OUT_VAL(cl_bool, CL_TRUE);
    case CL_DEVICE_PRINTF_BUFFER_SIZE: OUT_VAL(size_t, HCQCL_PRINTF_BUFFER_SIZE);
    /* No program-scope global variables (clang offers none for NVPTX). */
    case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
    case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: OUT_VAL(size_t, 0);
    /* No device-side enqueue, pipes or sub-groups; SVM is coarse-grained
     * buffers only (svm.c). */
    case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES: OUT_VAL(cl_command_queue_properties, 0);
    case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    case CL_DEVICE_MAX_PIPE_ARGS:
    case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
    case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_MAX_NUM_SUB_GROUPS: OUT_VAL(cl_uint, 0);
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES: OUT_VAL(cl_device_device_enqueue_capabilities, 0);
    case CL_DEVICE_SVM_CAPABILITIES:
        OUT_VAL(cl_device_svm_capabilities, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
    /* clEnqueueNDRangeKernel splits an uneven range into a uniform launch
     * and remainder launches (enqueue_kernel.c), for programs built with
     * -cl-std=CL2.0/CL3.0 and without -cl-uniform-work-group-size. */
    case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: OUT_VAL(cl_bool, CL_TRUE);
    case CL_DEVICE_PIPE_SUPPORT:
    case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
    case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
    case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT: OUT_VAL(cl_bool, CL_FALSE);
    /* The OpenCL 3.0 minimum: relaxed atomics and fences up to work-group scope. */
    case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
        OUT_VAL(cl_device_atomic_capabilities,
                CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP);
    case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
        OUT_VAL(cl_device_atomic_capabilities, CL_DEVICE_ATOMIC_ORDER_RELAXED |
                                                   CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                                   CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP);
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: OUT_VAL(size_t, info->warp_size);
    /* No conformance release passed yet; the value must still be a valid vYYYY-MM-DD-XX
     * (the CTS computeinfo conformance_version test matches month 01-12, day 01-31), so
     * year 0, which no release carries. */
    case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: OUT_STR("v0000-01-01-00");
    /* cl_khr_device_uuid */
    case CL_DEVICE_UUID_KHR: OUT(info->uuid, CL_UUID_SIZE_KHR);
    case CL_DRIVER_UUID_KHR: {
        uint8_t u[CL_UUID_SIZE_KHR];
        driver_uuid(info, u);
        OUT(u, sizeof(u));
    }
    case CL_DEVICE_LUID_VALID_KHR: OUT_VAL(cl_bool, CL_FALSE); /* LUIDs are Windows-only */
    case CL_DEVICE_LUID_KHR: {
        uint8_t luid[CL_LUID_SIZE_KHR] = {0};
        OUT(luid, sizeof(luid));
    }
    case CL_DEVICE_NODE_MASK_KHR: OUT_VAL(cl_uint, 0);
    /* cl_khr_pci_bus_info */
    case CL_DEVICE_PCI_BUS_INFO_KHR: {
        cl_device_pci_bus_info_khr pci = {info->pci_domain, info->pci_bus, info->pci_device,
                                          info->pci_function};
        OUT(&pci, sizeof(pci));
    }
    /* cl_nv_device_attribute_query, as NVIDIA's driver answers it */
    case CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV: OUT_VAL(cl_uint, info->arch >> 8);
    case CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV: OUT_VAL(cl_uint, (info->arch >> 4) & 0xf);
    case CL_DEVICE_REGISTERS_PER_BLOCK_NV: OUT_VAL(cl_uint, info->regs_per_block);
    case CL_DEVICE_WARP_SIZE_NV: OUT_VAL(cl_uint, info->warp_size);
    /* Copies run on copy engines, alongside kernels. */
    case CL_DEVICE_GPU_OVERLAP_NV: OUT_VAL(cl_bool, CL_TRUE);
    /* Nothing ends a long kernel (no display watchdog on these GPUs). */
    case CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV: OUT_VAL(cl_bool, CL_FALSE);
    case CL_DEVICE_INTEGRATED_MEMORY_NV: OUT_VAL(cl_bool, CL_FALSE);
    /* The copy engines copy queues take (at least the graphics one). */
    case CL_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT_NV:
        OUT_VAL(cl_uint, info->async_ce_count ? info->async_ce_count : 1);
    case CL_DEVICE_PCI_BUS_ID_NV: OUT_VAL(cl_uint, info->pci_bus);
    /* The device number alone, as NVIDIA's driver gives it (the H200 at
     * 0000:00:06.0: 6, not the devfn 0x30 clinfo's "Device Topology (NV)"
     * would decode; docs/gpu-runs.md, 2026-12-05). */
    case CL_DEVICE_PCI_SLOT_ID_NV: OUT_VAL(cl_uint, info->pci_device);
    case CL_DEVICE_PCI_DOMAIN_ID_NV: OUT_VAL(cl_uint, info->pci_domain);
    default:
        /* CL_INVALID_VALUE if param_name is not one of the supported values */
        HCQCL_FAIL(CL_INVALID_VALUE, "param 0x%x", (unsigned)param);
    }
}

/* ---- Sub-devices and reference counts --------------------------------- */

HCQCL_NOT_OFFERED(clCreateSubDevices);
cl_int CL_API_CALL hcqcl_clCreateSubDevices(cl_device_id in_device,
                                            const cl_device_partition_property *properties,
                                            cl_uint num_entries, cl_device_id *out_devices,
                                            cl_uint *num_devices)
{
    /* CL_INVALID_DEVICE if in_device is not a valid device */
    HCQCL_CHECK(hcqcl_device_valid(in_device), CL_INVALID_DEVICE, "%p", (void *)in_device);
    /* CL_INVALID_VALUE if values specified in properties are not valid or
     * if values specified in properties are valid but not supported by
     * the device (CL_DEVICE_PARTITION_PROPERTIES lists none) */
    HCQCL_FAIL(CL_INVALID_VALUE, "partition type 0x%llx not supported",
               properties ? (unsigned long long)properties[0] : 0ull);
}

/* Root devices are not reference counted (spec: clRetainDevice /
 * clReleaseDevice on a root device leave it untouched). */
cl_int CL_API_CALL hcqcl_clRetainDevice(cl_device_id device)
{
    /* CL_INVALID_DEVICE if device is not a valid device */
    HCQCL_CHECK(hcqcl_device_valid(device), CL_INVALID_DEVICE, "%p", (void *)device);
    return CL_SUCCESS;
}

cl_int CL_API_CALL hcqcl_clReleaseDevice(cl_device_id device)
{
    /* CL_INVALID_DEVICE if device is not a valid device */
    HCQCL_CHECK(hcqcl_device_valid(device), CL_INVALID_DEVICE, "%p", (void *)device);
    return CL_SUCCESS;
}

/* ---- Timers ----------------------------------------------------------- */

cl_int CL_API_CALL hcqcl_clGetDeviceAndHostTimer(cl_device_id device, cl_ulong *device_timestamp,
                                                 cl_ulong *host_timestamp)
{
    /* CL_INVALID_DEVICE if device is not a valid device */
    HCQCL_CHECK(hcqcl_device_valid(device), CL_INVALID_DEVICE, "%p", (void *)device);
    /* CL_INVALID_VALUE if host_timestamp or device_timestamp is NULL */
    HCQCL_CHECK(device_timestamp && host_timestamp, CL_INVALID_VALUE, "NULL timestamp");
    /* The device timer an application compares with profiling times is
     * their time base: the host clock, into which START and END are
     * translated from GPU timestamps (event.c, profile_locked). In that
     * base a device reading is a host reading, so the pair is one read of
     * the host clock; the GPU's own timer is not needed. (CTS
     * profiling_timebase: device time before queueing <= QUEUED <= ... <=
     * END <= device time after.) */
    const uint64_t host_ns = util_now_ns();
    *device_timestamp = host_ns;
    *host_timestamp = host_ns;
    return CL_SUCCESS;
}

cl_int CL_API_CALL hcqcl_clGetHostTimer(cl_device_id device, cl_ulong *host_timestamp)
{
    /* CL_INVALID_DEVICE if device is not a valid device */
    HCQCL_CHECK(hcqcl_device_valid(device), CL_INVALID_DEVICE, "%p", (void *)device);
    /* CL_INVALID_VALUE if host_timestamp is NULL */
    HCQCL_CHECK(host_timestamp, CL_INVALID_VALUE, "NULL host_timestamp");
    *host_timestamp = util_now_ns();
    return CL_SUCCESS;
}

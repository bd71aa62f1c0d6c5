/*
 * device_test.c — device enumeration, every OpenCL 3.0 clGetDeviceInfo
 * query (sizes, types, consistency between queries), errors, reference
 * counting of root devices, sub-device refusal and the timers.
 */
#include "cltest.h"
#include "hcqcl/cl_ext_nv.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Queries and the size of their answer; 0 = variable (string or array). */
static const struct {
    cl_device_info param;
    const char *name;
    size_t size;
    bool string;
} queries[] = {
#define Q(p, t)                                                                                    \
    {                                                                                              \
        p, #p, sizeof(t), false                                                                    \
    }
#define QS(p)                                                                                      \
    {                                                                                              \
        p, #p, 0, true                                                                             \
    }
#define QA(p)                                                                                      \
    {                                                                                              \
        p, #p, 0, false                                                                            \
    }
    Q(CL_DEVICE_TYPE, cl_device_type),
    Q(CL_DEVICE_VENDOR_ID, cl_uint),
    Q(CL_DEVICE_MAX_COMPUTE_UNITS, cl_uint),
    Q(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, cl_uint),
    Q(CL_DEVICE_MAX_WORK_GROUP_SIZE, size_t),
    QA(CL_DEVICE_MAX_WORK_ITEM_SIZES),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, cl_uint),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, cl_uint),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, cl_uint),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, cl_uint),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, cl_uint),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, cl_uint),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, cl_uint),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, cl_uint),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, cl_uint),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, cl_uint),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, cl_uint),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, cl_uint),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, cl_uint),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, cl_uint),
    Q(CL_DEVICE_MAX_CLOCK_FREQUENCY, cl_uint),
    Q(CL_DEVICE_ADDRESS_BITS, cl_uint),
    Q(CL_DEVICE_MAX_MEM_ALLOC_SIZE, cl_ulong),
    Q(CL_DEVICE_IMAGE_SUPPORT, cl_bool),
    Q(CL_DEVICE_MAX_READ_IMAGE_ARGS, cl_uint),
    Q(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, cl_uint),
    Q(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, cl_uint),
    QS(CL_DEVICE_IL_VERSION),
    Q(CL_DEVICE_IMAGE2D_MAX_WIDTH, size_t),
    Q(CL_DEVICE_IMAGE2D_MAX_HEIGHT, size_t),
    Q(CL_DEVICE_IMAGE3D_MAX_WIDTH, size_t),
    Q(CL_DEVICE_IMAGE3D_MAX_HEIGHT, size_t),
    Q(CL_DEVICE_IMAGE3D_MAX_DEPTH, size_t),
    Q(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, size_t),
    Q(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, size_t),
    Q(CL_DEVICE_MAX_SAMPLERS, cl_uint),
    Q(CL_DEVICE_IMAGE_PITCH_ALIGNMENT, cl_uint),
    Q(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, cl_uint),
    Q(CL_DEVICE_MAX_PIPE_ARGS, cl_uint),
    Q(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, cl_uint),
    Q(CL_DEVICE_PIPE_MAX_PACKET_SIZE, cl_uint),
    Q(CL_DEVICE_MAX_PARAMETER_SIZE, size_t),
    Q(CL_DEVICE_MEM_BASE_ADDR_ALIGN, cl_uint),
    Q(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, cl_uint),
    Q(CL_DEVICE_SINGLE_FP_CONFIG, cl_device_fp_config),
    Q(CL_DEVICE_DOUBLE_FP_CONFIG, cl_device_fp_config),
    Q(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, cl_device_mem_cache_type),
    Q(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, cl_uint),
    Q(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cl_ulong),
    Q(CL_DEVICE_GLOBAL_MEM_SIZE, cl_ulong),
    Q(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, cl_ulong),
    Q(CL_DEVICE_MAX_CONSTANT_ARGS, cl_uint),
    Q(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, size_t),
    Q(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, size_t),
    Q(CL_DEVICE_LOCAL_MEM_TYPE, cl_device_local_mem_type),
    Q(CL_DEVICE_LOCAL_MEM_SIZE, cl_ulong),
    Q(CL_DEVICE_ERROR_CORRECTION_SUPPORT, cl_bool),
    Q(CL_DEVICE_PROFILING_TIMER_RESOLUTION, size_t),
    Q(CL_DEVICE_ENDIAN_LITTLE, cl_bool),
    Q(CL_DEVICE_AVAILABLE, cl_bool),
    Q(CL_DEVICE_COMPILER_AVAILABLE, cl_bool),
    Q(CL_DEVICE_LINKER_AVAILABLE, cl_bool),
    Q(CL_DEVICE_EXECUTION_CAPABILITIES, cl_device_exec_capabilities),
    Q(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, cl_command_queue_properties),
    Q(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, cl_command_queue_properties),
    Q(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, cl_uint),
    Q(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, cl_uint),
    Q(CL_DEVICE_MAX_ON_DEVICE_QUEUES, cl_uint),
    Q(CL_DEVICE_MAX_ON_DEVICE_EVENTS, cl_uint),
    QS(CL_DEVICE_BUILT_IN_KERNELS),
    QA(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION),
    Q(CL_DEVICE_PLATFORM, cl_platform_id),
    QS(CL_DEVICE_NAME),
    QS(CL_DEVICE_VENDOR),
    QS(CL_DRIVER_VERSION),
    QS(CL_DEVICE_PROFILE),
    QS(CL_DEVICE_VERSION),
    Q(CL_DEVICE_NUMERIC_VERSION, cl_version),
    QS(CL_DEVICE_OPENCL_C_VERSION),
    QA(CL_DEVICE_OPENCL_C_ALL_VERSIONS),
    QA(CL_DEVICE_OPENCL_C_FEATURES),
    QS(CL_DEVICE_EXTENSIONS),
    QA(CL_DEVICE_EXTENSIONS_WITH_VERSION),
    QA(CL_DEVICE_ILS_WITH_VERSION),
    Q(CL_DEVICE_PRINTF_BUFFER_SIZE, size_t),
    Q(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, cl_bool),
    Q(CL_DEVICE_PARENT_DEVICE, cl_device_id),
    Q(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, cl_uint),
    QA(CL_DEVICE_PARTITION_PROPERTIES),
    Q(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, cl_device_affinity_domain),
    QA(CL_DEVICE_PARTITION_TYPE),
    Q(CL_DEVICE_REFERENCE_COUNT, cl_uint),
    Q(CL_DEVICE_SVM_CAPABILITIES, cl_device_svm_capabilities),
    Q(CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, cl_uint),
    Q(CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, cl_uint),
    Q(CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, cl_uint),
    Q(CL_DEVICE_MAX_NUM_SUB_GROUPS, cl_uint),
    Q(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, cl_bool),
    Q(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, cl_device_atomic_capabilities),
    Q(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, cl_device_atomic_capabilities),
    Q(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, cl_bool),
    Q(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, cl_bool),
    Q(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, cl_bool),
    Q(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, cl_device_device_enqueue_capabilities),
    Q(CL_DEVICE_PIPE_SUPPORT, cl_bool),
    Q(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, size_t),
    QS(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED),
    Q(CL_DEVICE_HOST_UNIFIED_MEMORY, cl_bool),
    Q(CL_DEVICE_HALF_FP_CONFIG, cl_device_fp_config),
    Q(CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR, cl_version),
    {CL_DEVICE_UUID_KHR, "CL_DEVICE_UUID_KHR", CL_UUID_SIZE_KHR, false},
    {CL_DRIVER_UUID_KHR, "CL_DRIVER_UUID_KHR", CL_UUID_SIZE_KHR, false},
    Q(CL_DEVICE_LUID_VALID_KHR, cl_bool),
    {CL_DEVICE_LUID_KHR, "CL_DEVICE_LUID_KHR", CL_LUID_SIZE_KHR, false},
    Q(CL_DEVICE_NODE_MASK_KHR, cl_uint),
    Q(CL_DEVICE_PCI_BUS_INFO_KHR, cl_device_pci_bus_info_khr),
    Q(CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, cl_uint),
    Q(CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, cl_uint),
    Q(CL_DEVICE_REGISTERS_PER_BLOCK_NV, cl_uint),
    Q(CL_DEVICE_WARP_SIZE_NV, cl_uint),
    Q(CL_DEVICE_GPU_OVERLAP_NV, cl_bool),
    Q(CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV, cl_bool),
    Q(CL_DEVICE_INTEGRATED_MEMORY_NV, cl_bool),
    Q(CL_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT_NV, cl_uint),
    Q(CL_DEVICE_PCI_BUS_ID_NV, cl_uint),
    Q(CL_DEVICE_PCI_SLOT_ID_NV, cl_uint),
    Q(CL_DEVICE_PCI_DOMAIN_ID_NV, cl_uint),
};

/* Every query: answer size, exact-size read, one-byte-short failure,
 * strings NUL-terminated. */
static void test_all_queries(cl_device_id d)
{
    unsigned char buf[4096];
    for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
        bool string = queries[i].string;
        size_t want = string ? 0 : queries[i].size;
        size_t size = 12345;
        cl_int err = clGetDeviceInfo(d, queries[i].param, 0, NULL, &size);
        EXPECT(err == CL_SUCCESS, "%s: %d", queries[i].name, err);
        if (err != CL_SUCCESS)
            continue;
        if (want)
            EXPECT(size == want, "%s: size %zu, expected %zu", queries[i].name, size, want);
        EXPECT(size <= sizeof(buf), "%s: size %zu", queries[i].name, size);
        memset(buf, 0xa5, sizeof(buf));
        size_t got = 0;
        EXPECT_OK(clGetDeviceInfo(d, queries[i].param, size, buf, &got));
        EXPECT(got == size, "%s: size %zu then %zu", queries[i].name, size, got);
        if (string)
            EXPECT(size >= 1 && buf[size - 1] == 0 && strlen((char *)buf) + 1 == size,
                   "%s: not one NUL-terminated string of %zu bytes", queries[i].name, size);
        if (size > 0)
            EXPECT_ERR(clGetDeviceInfo(d, queries[i].param, size - 1, buf, NULL), CL_INVALID_VALUE);
    }
}

#define GET(d, p, var) EXPECT_OK(clGetDeviceInfo(d, p, sizeof(var), &(var), NULL))

static char *get_string(cl_device_id d, cl_device_info p)
{
    size_t size = 0;
    clGetDeviceInfo(d, p, 0, NULL, &size);
    char *s = calloc(1, size + 1);
    clGetDeviceInfo(d, p, size, s, NULL);
    return s;
}

static void *get_array(cl_device_id d, cl_device_info p, size_t elem, size_t *count)
{
    size_t size = 0;
    clGetDeviceInfo(d, p, 0, NULL, &size);
    void *a = calloc(1, size + elem);
    clGetDeviceInfo(d, p, size, a, NULL);
    *count = size / elem;
    return a;
}

static bool has_name(const cl_name_version *nv, size_t n, const char *name, cl_version *v)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(nv[i].name, name)) {
            if (v)
                *v = nv[i].version;
            return true;
        }
    return false;
}

/* Answers that must agree with each other and with the spec's minimums. */
static void test_consistency(cl_platform_id p, cl_device_id d)
{
    cl_device_type type;
    GET(d, CL_DEVICE_TYPE, type);
    EXPECT(type == CL_DEVICE_TYPE_GPU, "type 0x%llx", (unsigned long long)type);
    cl_uint u;
    GET(d, CL_DEVICE_VENDOR_ID, u);
    EXPECT(u == 0x10de, "vendor id 0x%x", u);
    GET(d, CL_DEVICE_MAX_COMPUTE_UNITS, u);
    EXPECT(u > 0, "compute units %u", u);
    GET(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, u);
    EXPECT(u > 0, "clock %u", u);
    GET(d, CL_DEVICE_ADDRESS_BITS, u);
    EXPECT(u == 64, "address bits %u", u);
    GET(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, u);
    EXPECT(u == 3, "dimensions %u", u);
    size_t wg, sizes[3];
    GET(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, wg);
    GET(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes);
    EXPECT(wg == 1024 && sizes[0] == 1024 && sizes[1] == 1024 && sizes[2] == 64,
           "work-group %zu (%zu, %zu, %zu)", wg, sizes[0], sizes[1], sizes[2]);
    size_t multiple;
    GET(d, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, multiple);
    EXPECT(multiple == 32, "work-group multiple %zu", multiple);

    cl_ulong global, alloc, cache, local, constant;
    GET(d, CL_DEVICE_GLOBAL_MEM_SIZE, global);
    GET(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, alloc);
    GET(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cache);
    GET(d, CL_DEVICE_LOCAL_MEM_SIZE, local);
    GET(d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, constant);
    cl_ulong min_alloc = global / 4 < (1ull << 30) ? global / 4 : (1ull << 30);
    if (min_alloc < (32ull << 20))
        min_alloc = 32ull << 20;
    EXPECT(global > 0 && alloc <= global && alloc >= min_alloc, "global %llu, max alloc %llu",
           (unsigned long long)global, (unsigned long long)alloc);
    EXPECT(local >= 32 * 1024, "local memory %llu", (unsigned long long)local);
    EXPECT(constant >= 64 * 1024, "constant buffer %llu", (unsigned long long)constant);
    cl_device_mem_cache_type ct;
    GET(d, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, ct);
    GET(d, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, u);
    EXPECT(ct == CL_READ_WRITE_CACHE && u == 128 && cache > 0, "cache type %u line %u size %llu",
           ct, u, (unsigned long long)cache);
    cl_device_local_mem_type lt;
    GET(d, CL_DEVICE_LOCAL_MEM_TYPE, lt);
    EXPECT(lt == CL_LOCAL, "local mem type %u", lt);
    GET(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, u);
    EXPECT(u >= 1024 && (u & (u - 1)) == 0, "base address alignment %u bits", u);
    size_t param;
    GET(d, CL_DEVICE_MAX_PARAMETER_SIZE, param);
    EXPECT(param >= 1024, "parameter size %zu", param);
    size_t printf_size;
    GET(d, CL_DEVICE_PRINTF_BUFFER_SIZE, printf_size);
    EXPECT(printf_size >= 1024 * 1024, "printf buffer %zu", printf_size);
    size_t timer;
    GET(d, CL_DEVICE_PROFILING_TIMER_RESOLUTION, timer);
    EXPECT(timer > 0, "timer resolution %zu", timer);

    cl_bool b;
    GET(d, CL_DEVICE_IMAGE_SUPPORT, b);
    EXPECT(b, "no image support (images are on by default; api_image covers both settings)");
    GET(d, CL_DEVICE_AVAILABLE, b);
    EXPECT(b, "not available");
    /* The build has hcqcl-cc and fills a kernel cache beside the library:
     * either is a compiler (FULL_PROFILE needs one). */
    GET(d, CL_DEVICE_COMPILER_AVAILABLE, b);
    EXPECT(b, "FULL_PROFILE needs a compiler");
    GET(d, CL_DEVICE_LINKER_AVAILABLE, b);
    EXPECT(b, "a compiler needs a linker");
    GET(d, CL_DEVICE_ENDIAN_LITTLE, b);
    EXPECT(b, "endian");
    /* Uneven ranges run as split launches (tests/api_queue: api_ndrange). */
    GET(d, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, b);
    EXPECT(b, "non-uniform work-groups");
    cl_command_queue_properties qp;
    GET(d, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, qp);
    EXPECT(qp == (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE),
           "queue properties 0x%llx", (unsigned long long)qp);
    cl_device_svm_capabilities svm;
    GET(d, CL_DEVICE_SVM_CAPABILITIES, svm);
    EXPECT(svm == CL_DEVICE_SVM_COARSE_GRAIN_BUFFER, "svm 0x%llx", (unsigned long long)svm);
    cl_device_atomic_capabilities ac;
    GET(d, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, ac);
    EXPECT((ac & (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP)) ==
               (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP),
           "atomic memory capabilities 0x%llx below the minimum", (unsigned long long)ac);
    GET(d, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, ac);
    EXPECT((ac & (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                  CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP)) ==
               (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP),
           "atomic fence capabilities 0x%llx below the minimum", (unsigned long long)ac);

    cl_platform_id dp;
    GET(d, CL_DEVICE_PLATFORM, dp);
    EXPECT(dp == p, "device platform %p vs %p", (void *)dp, (void *)p);
    cl_device_id parent = (cl_device_id)1;
    GET(d, CL_DEVICE_PARENT_DEVICE, parent);
    EXPECT(parent == NULL, "root device has a parent");
    GET(d, CL_DEVICE_REFERENCE_COUNT, u);
    EXPECT(u == 1, "root device reference count %u", u);
    GET(d, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, u);
    EXPECT(u == 0, "sub-devices %u", u);
    size_t n;
    cl_device_partition_property *pp =
        get_array(d, CL_DEVICE_PARTITION_PROPERTIES, sizeof(*pp), &n);
    EXPECT(n == 1 && pp[0] == 0, "partition properties: %zu entries", n);
    free(pp);

    char *s = get_string(d, CL_DEVICE_VENDOR);
    EXPECT(!strcmp(s, "NVIDIA Corporation"), "vendor %s", s);
    free(s);
    s = get_string(d, CL_DEVICE_NAME);
    EXPECT(strlen(s) > 0, "empty name");
    /* The emulated H200 answers RM's ECC configuration control "enabled"
     * (a real GPU answers what its board holds). */
    GET(d, CL_DEVICE_ERROR_CORRECTION_SUPPORT, b);
    EXPECT(b || !strstr(s, "(emulated)"), "emulated H200 without ECC");
    free(s);
    s = get_string(d, CL_DEVICE_PROFILE);
    EXPECT(!strcmp(s, "FULL_PROFILE"), "profile %s", s);
    free(s);
    s = get_string(d, CL_DEVICE_VERSION);
    EXPECT(!strncmp(s, "OpenCL 3.0 ", 11), "version %s", s);
    free(s);
    cl_version v;
    GET(d, CL_DEVICE_NUMERIC_VERSION, v);
    EXPECT(v == CL_MAKE_VERSION(3, 0, 0), "numeric version 0x%x", v);
    s = get_string(d, CL_DEVICE_OPENCL_C_VERSION);
    EXPECT(!strncmp(s, "OpenCL C 1.2", 12), "OpenCL C version %s", s);
    free(s);
    s = get_string(d, CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED);
    /* vYYYY-MM-DD-XX with a real month (01-12) and day (01-31), as the CTS checks */
    EXPECT(strlen(s) == 14 && s[0] == 'v' && s[5] == '-' && s[8] == '-' && s[11] == '-' &&
               strspn(s + 1, "0123456789") == 4 && strspn(s + 6, "0123456789") == 2 &&
               strspn(s + 9, "0123456789") == 2 && strspn(s + 12, "0123456789") == 2 &&
               atoi(s + 6) >= 1 && atoi(s + 6) <= 12 && atoi(s + 9) >= 1 && atoi(s + 9) <= 31,
           "conformance version %s", s);
    free(s);

    cl_name_version *cv = get_array(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, sizeof(*cv), &n);
    bool c12 = false, c30 = false;
    for (size_t i = 0; i < n; i++) {
        c12 |= cv[i].version == CL_MAKE_VERSION(1, 2, 0);
        c30 |= cv[i].version == CL_MAKE_VERSION(3, 0, 0);
    }
    EXPECT(c12 && c30, "OpenCL C versions lack 1.2 or 3.0 (%zu listed)", n);
    free(cv);
    cl_name_version *feat = get_array(d, CL_DEVICE_OPENCL_C_FEATURES, sizeof(*feat), &n);
    EXPECT(n == 4 && has_name(feat, n, "__opencl_c_fp64", NULL) &&
               has_name(feat, n, "__opencl_c_int64", NULL) &&
               has_name(feat, n, "__opencl_c_images", NULL) &&
               has_name(feat, n, "__opencl_c_3d_image_writes", NULL),
           "OpenCL C features: %zu", n);
    free(feat);

    /* Extensions: string and versioned list agree; fp64 iff double config. */
    char *ext = get_string(d, CL_DEVICE_EXTENSIONS);
    cl_name_version *ev = get_array(d, CL_DEVICE_EXTENSIONS_WITH_VERSION, sizeof(*ev), &n);
    size_t words = 0;
    for (char *tok = strtok(ext, " "); tok; tok = strtok(NULL, " ")) {
        words++;
        EXPECT(has_name(ev, n, tok, NULL), "%s not in CL_DEVICE_EXTENSIONS_WITH_VERSION", tok);
    }
    EXPECT(words == n, "%zu extensions vs %zu with version", words, n);
    cl_device_fp_config dfp, sfp, hfp;
    GET(d, CL_DEVICE_DOUBLE_FP_CONFIG, dfp);
    GET(d, CL_DEVICE_SINGLE_FP_CONFIG, sfp);
    GET(d, CL_DEVICE_HALF_FP_CONFIG, hfp);
    EXPECT(has_name(ev, n, "cl_khr_fp64", NULL) == (dfp != 0), "cl_khr_fp64 vs double config");
    EXPECT((dfp & (CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM)) ==
               (CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM),
           "double config 0x%llx", (unsigned long long)dfp);
    /* Correctly rounded divide and sqrt: what every build emits
     * (compiler_cc's PTX check). */
    EXPECT((sfp & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)) ==
               (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT),
           "single config 0x%llx", (unsigned long long)sfp);
    EXPECT(hfp == 0 && !has_name(ev, n, "cl_khr_fp16", NULL), "half");
    free(ev);
    free(ext);

    /* cl_khr_device_uuid / cl_khr_pci_bus_info */
    cl_uchar uuid[CL_UUID_SIZE_KHR], zero[CL_UUID_SIZE_KHR] = {0};
    GET(d, CL_DEVICE_UUID_KHR, uuid);
    EXPECT(memcmp(uuid, zero, sizeof(uuid)) != 0, "device UUID is zero");
    GET(d, CL_DRIVER_UUID_KHR, uuid);
    EXPECT(memcmp(uuid, zero, sizeof(uuid)) != 0, "driver UUID is zero");
    GET(d, CL_DEVICE_LUID_VALID_KHR, b);
    EXPECT(!b, "LUID valid on Linux");

    /* cl_nv_device_attribute_query: what NVIDIA's driver answers, the PCI
     * location the same as cl_khr_pci_bus_info's (slot: device << 3 |
     * function). */
    char *exts = get_string(d, CL_DEVICE_EXTENSIONS);
    EXPECT(strstr(exts, "cl_nv_device_attribute_query "), "no cl_nv_device_attribute_query");
    free(exts);
    cl_uint major, minor, regs, warp, engines, bus, slot, domain;
    cl_bool overlap, timeout, integrated, unified;
    GET(d, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, major);
    GET(d, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, minor);
    EXPECT(major >= 8 && major <= 12 && minor <= 9, "compute capability %u.%u", major, minor);
    GET(d, CL_DEVICE_REGISTERS_PER_BLOCK_NV, regs);
    EXPECT(regs == 65536, "%u registers per block", regs);
    GET(d, CL_DEVICE_WARP_SIZE_NV, warp);
    EXPECT(warp == multiple, "warp %u, work-group multiple %zu", warp, multiple);
    GET(d, CL_DEVICE_GPU_OVERLAP_NV, overlap);
    GET(d, CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV, timeout);
    GET(d, CL_DEVICE_INTEGRATED_MEMORY_NV, integrated);
    GET(d, CL_DEVICE_HOST_UNIFIED_MEMORY, unified);
    EXPECT(overlap && !timeout && integrated == unified, "overlap %u, timeout %u, integrated %u",
           overlap, timeout, integrated);
    GET(d, CL_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT_NV, engines);
    EXPECT(engines >= 1 && engines <= 16, "%u async engines", engines);
    cl_device_pci_bus_info_khr pci;
    GET(d, CL_DEVICE_PCI_BUS_INFO_KHR, pci);
    GET(d, CL_DEVICE_PCI_BUS_ID_NV, bus);
    GET(d, CL_DEVICE_PCI_SLOT_ID_NV, slot);
    GET(d, CL_DEVICE_PCI_DOMAIN_ID_NV, domain);
    /* The slot is the device number alone, as NVIDIA's driver answers. */
    EXPECT(bus == pci.pci_bus && slot == pci.pci_device && domain == pci.pci_domain,
           "NV %x:%x:%x, KHR %x:%x.%x:%x", domain, bus, slot, pci.pci_domain, pci.pci_bus,
           pci.pci_device, pci.pci_function);
}

static void test_errors(cl_platform_id p, cl_device_id d)
{
    char buf[64];
    EXPECT_ERR(clGetDeviceInfo(d, 0x7777, sizeof(buf), buf, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetDeviceInfo(d, CL_PLATFORM_NAME, sizeof(buf), buf, NULL), CL_INVALID_VALUE);
    /* The platform handle is not a device (the loader routes it to us). */
    EXPECT_ERR(clGetDeviceInfo((cl_device_id)p, CL_DEVICE_NAME, sizeof(buf), buf, NULL),
               CL_INVALID_DEVICE);
    EXPECT_ERR(clRetainDevice((cl_device_id)p), CL_INVALID_DEVICE);
    EXPECT_ERR(clReleaseDevice((cl_device_id)p), CL_INVALID_DEVICE);

    /* Root devices: retain/release succeed and change nothing. */
    EXPECT_OK(clRetainDevice(d));
    EXPECT_OK(clRetainDevice(d));
    EXPECT_OK(clReleaseDevice(d));
    cl_uint refs = 0;
    GET(d, CL_DEVICE_REFERENCE_COUNT, refs);
    EXPECT(refs == 1, "reference count %u", refs);
    EXPECT_OK(clReleaseDevice(d));

    /* No partition type is supported. */
    cl_device_partition_property eq[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    cl_device_partition_property counts[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1,
                                             CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
    cl_device_id out[4];
    cl_uint n = 0;
    EXPECT_ERR(clCreateSubDevices(d, eq, 4, out, &n), CL_INVALID_VALUE);
    EXPECT_ERR(clCreateSubDevices(d, counts, 4, out, &n), CL_INVALID_VALUE);
    EXPECT_ERR(clCreateSubDevices((cl_device_id)p, eq, 4, out, &n), CL_INVALID_DEVICE);
}

static void test_timers(cl_device_id d)
{
    cl_ulong h0 = 0, h1 = 0, dev = 0, host = 0;
    EXPECT_OK(clGetHostTimer(d, &h0));
    EXPECT_OK(clGetDeviceAndHostTimer(d, &dev, &host));
    EXPECT_OK(clGetHostTimer(d, &h1));
    EXPECT(h0 > 0 && h0 <= host && host <= h1, "host timer order %llu %llu %llu",
           (unsigned long long)h0, (unsigned long long)host, (unsigned long long)h1);
    EXPECT(dev > 0, "device timer 0");
    cl_ulong dev2 = 0, host2 = 0;
    EXPECT_OK(clGetDeviceAndHostTimer(d, &dev2, &host2));
    EXPECT(dev2 >= dev && host2 >= host, "timers went backwards");
    EXPECT_ERR(clGetDeviceAndHostTimer(d, NULL, &host), CL_INVALID_VALUE);
    EXPECT_ERR(clGetDeviceAndHostTimer(d, &dev, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetHostTimer(d, NULL), CL_INVALID_VALUE);
}

static void test_enumeration(cl_platform_id p, cl_uint want, cl_device_id *all, cl_uint *count)
{
    cl_uint n = 0;
    EXPECT_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n));
    if (want)
        REQUIRE(n == want, "%u devices, expected exactly %u (HCQCL_EMU_GPUS)", n, want);
    REQUIRE(n > 0, "no device: a device test cannot pass without one");
    cl_uint m = 0;
    EXPECT_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0, NULL, &m));
    EXPECT(m == n, "%u GPUs of %u devices", m, n);
    EXPECT_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT, 0, NULL, &m));
    EXPECT(m == 1, "%u default devices", m);
    EXPECT_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU, 0, NULL, &m));
    EXPECT(m == n, "GPU|CPU gives %u", m);
    /* Only the default device is of both: the default, and a CPU. */
    EXPECT_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU, 0, NULL, &m));
    EXPECT(m == 1, "DEFAULT|CPU gives %u", m);
    EXPECT_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_GPU, 0, NULL, &m));
    EXPECT(m == n, "DEFAULT|GPU gives %u", m);
    m = 99;
    EXPECT_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 0, NULL, &m), CL_DEVICE_NOT_FOUND);
    EXPECT(m == 0, "num_devices %u after CL_DEVICE_NOT_FOUND", m);
    EXPECT_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_ACCELERATOR, 0, NULL, &m), CL_DEVICE_NOT_FOUND);
    EXPECT_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_CUSTOM, 0, NULL, &m), CL_DEVICE_NOT_FOUND);
    EXPECT_ERR(clGetDeviceIDs(p, 0, 0, NULL, &m), CL_INVALID_DEVICE_TYPE);
    EXPECT_ERR(clGetDeviceIDs(p, 1ull << 40, 0, NULL, &m), CL_INVALID_DEVICE_TYPE);
    cl_device_id d;
    EXPECT_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, &d, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, NULL, NULL), CL_INVALID_VALUE);

    /* Fewer entries than devices: the first ones, count still the total. */
    EXPECT_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, &m));
    EXPECT(m == n, "count %u with one entry", m);
    *count = n < 8 ? n : 8;
    EXPECT_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, *count, all, NULL));
    EXPECT(all[0] == d, "order differs between calls");
    for (cl_uint i = 0; i < *count; i++)
        for (cl_uint j = 0; j < i; j++)
            EXPECT(all[i] != all[j], "device %u listed twice", i);
}

int main(void)
{
    cl_platform_id p = cltest_platform();
    REQUIRE(p != NULL, "the loader does not list the hcqcl platform");
    cl_device_id all[8];
    cl_uint n = 0;
    test_enumeration(p, cltest_expected_devices(), all, &n);
    for (cl_uint i = 0; i < n; i++) {
        test_all_queries(all[i]);
        test_consistency(p, all[i]);
        test_errors(p, all[i]);
        test_timers(all[i]);
    }
    return cltest_result("api_device");
}

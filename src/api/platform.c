/*
 * platform.c — the one hcqcl platform: its queries, the platform list the
 * ICD loaders ask for, and the extension-function lookup.
 *
 * Nothing here touches a device: the loaders call these while they start
 * up, on machines with or without a GPU, so they must stay cheap.
 */
#include "api/obj.h"

#include <string.h>
#include <time.h>

static struct _cl_platform_id platform = {
    .obj = {.dispatch = &hcqcl_dispatch, .type = HCQCL_TYPE_PLATFORM, .refs = 1},
};

cl_platform_id hcqcl_platform_get(void)
{
    return &platform;
}

bool hcqcl_platform_valid(cl_platform_id p)
{
    return p == &platform && hcqcl_obj_valid(p, HCQCL_TYPE_PLATFORM);
}

#define HCQCL_EXT_NAME(name, a, b, c) #name " "
static const char platform_extensions[] = HCQCL_EXTENSIONS(HCQCL_EXT_NAME);
#define HCQCL_EXT_VERSION(name, a, b, c) {CL_MAKE_VERSION(a, b, c), #name},
static const cl_name_version platform_extensions_v[] = {HCQCL_EXTENSIONS(HCQCL_EXT_VERSION)};
/* Every device's extensions: with images on, the image ones too. */
static const char platform_extensions_img[] =
    HCQCL_EXTENSIONS(HCQCL_EXT_NAME) HCQCL_IMAGE_EXTENSIONS(HCQCL_EXT_NAME);
static const cl_name_version platform_extensions_img_v[] = {
    HCQCL_EXTENSIONS(HCQCL_EXT_VERSION) HCQCL_IMAGE_EXTENSIONS(HCQCL_EXT_VERSION)};

/* Shared by clGetPlatformIDs and clIcdGetPlatformIDsKHR: same contract. */
static cl_int platform_ids(cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms)
{
    /* CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL */
    HCQCL_CHECK(num_entries || !platforms, CL_INVALID_VALUE, "num_entries 0 with platforms");
    /* CL_INVALID_VALUE if both num_platforms and platforms are NULL */
    HCQCL_CHECK(num_platforms || platforms, CL_INVALID_VALUE, "both outputs NULL");
    if (platforms)
        platforms[0] = &platform;
    if (num_platforms)
        *num_platforms = 1;
    return CL_SUCCESS;
}

cl_int CL_API_CALL hcqcl_clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
                                          cl_uint *num_platforms)
{
    return platform_ids(num_entries, platforms, num_platforms);
}

/* cl_khr_icd: the loader's way in. There is always exactly one platform,
 * also without a GPU (it then has no devices), so CL_PLATFORM_NOT_FOUND_KHR
 * never applies. */
cl_int hcqcl_clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
                                    cl_uint *num_platforms)
{
    return platform_ids(num_entries, platforms, num_platforms);
}

/* Resolution of clGetHostTimer (CLOCK_MONOTONIC_RAW), in ns. */
static cl_ulong host_timer_resolution(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC_RAW, &res) != 0)
        return 1;
    cl_ulong ns = (cl_ulong)res.tv_sec * 1000000000ull + (cl_ulong)res.tv_nsec;
    return ns ? ns : 1;
}

cl_int CL_API_CALL hcqcl_clGetPlatformInfo(cl_platform_id p, cl_platform_info param, size_t size_in,
                                           void *value, size_t *size_ret)
{
    /* CL_INVALID_PLATFORM if platform is not a valid platform (NULL: ours) */
    HCQCL_CHECK(!p || hcqcl_platform_valid(p), CL_INVALID_PLATFORM, "%p", (void *)p);
    const char *s = NULL;
    switch (param) {
    case CL_PLATFORM_PROFILE: s = "FULL_PROFILE"; break;
    case CL_PLATFORM_VERSION: s = "OpenCL 3.0 hcqcl " HCQCL_VERSION_STRING; break;
    case CL_PLATFORM_NAME: s = "hcqcl"; break;
    case CL_PLATFORM_VENDOR: s = "hcqcl project"; break;
    case CL_PLATFORM_EXTENSIONS:
        s = hcqcl_images_enabled() ? platform_extensions_img : platform_extensions;
        break;
    case CL_PLATFORM_ICD_SUFFIX_KHR: s = "HCQ"; break;
    case CL_PLATFORM_NUMERIC_VERSION: {
        cl_version v = CL_MAKE_VERSION(3, 0, 0);
        return hcqcl_info_out(&v, sizeof(v), size_in, value, size_ret);
    }
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
        if (hcqcl_images_enabled())
            return hcqcl_info_out(platform_extensions_img_v, sizeof(platform_extensions_img_v),
                                  size_in, value, size_ret);
        return hcqcl_info_out(platform_extensions_v, sizeof(platform_extensions_v), size_in, value,
                              size_ret);
    case CL_PLATFORM_HOST_TIMER_RESOLUTION: {
        cl_ulong r = host_timer_resolution();
        return hcqcl_info_out(&r, sizeof(r), size_in, value, size_ret);
    }
    default:
        /* CL_INVALID_VALUE if param_name is not one of the supported values */
        HCQCL_FAIL(CL_INVALID_VALUE, "param 0x%x", (unsigned)param);
    }
    return hcqcl_info_out(s, strlen(s) + 1, size_in, value, size_ret);
}

/* Programs are compiled out of process (hcqcl-cc): nothing to unload. */
cl_int CL_API_CALL hcqcl_clUnloadPlatformCompiler(cl_platform_id p)
{
    /* CL_INVALID_PLATFORM if platform is not a valid platform */
    HCQCL_CHECK(hcqcl_platform_valid(p), CL_INVALID_PLATFORM, "%p", (void *)p);
    return CL_SUCCESS;
}

cl_int CL_API_CALL hcqcl_clUnloadCompiler(void)
{
    return CL_SUCCESS;
}

/* ---- Extension functions by name ------------------------------------- */

static const struct {
    const char *name;
    void *fn;
} lookup[] = {
    /* What the ICD loaders ask for. */
    {"clGetPlatformInfo", (void *)hcqcl_clGetPlatformInfo},
    {"clGetExtensionFunctionAddress", (void *)hcqcl_clGetExtensionFunctionAddress},
#define HCQCL_LOOKUP(name) {#name, (void *)hcqcl_##name},
    HCQCL_EXTENSION_FUNCTIONS(HCQCL_LOOKUP)
#undef HCQCL_LOOKUP
};

static void *extension_function(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(lookup); i++)
        if (!strcmp(lookup[i].name, name))
            return lookup[i].fn;
    UTIL_LOG(UTIL_LOG_API, "extension function %s: not provided", name);
    return NULL;
}

void *CL_API_CALL hcqcl_clGetExtensionFunctionAddressForPlatform(cl_platform_id p,
                                                                 const char *func_name)
{
    /* NULL if the platform is not valid or the function is not provided */
    if (!hcqcl_platform_valid(p))
        return NULL;
    return extension_function(func_name);
}

void *CL_API_CALL hcqcl_clGetExtensionFunctionAddress(const char *func_name)
{
    return extension_function(func_name);
}

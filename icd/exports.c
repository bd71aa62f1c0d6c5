/*
 * exports.c — the only symbols libhcqcl exports (see exports.map).
 *
 * An ICD loader dlopens the library and looks up clGetExtensionFunctionAddress
 * (both loaders), clIcdGetPlatformIDsKHR (through the former or dlsym) and
 * clGetPlatformInfo (ocl-icd requires it exported). Everything else is
 * reached through the dispatch table, so no other cl* name is exported and
 * calls inside the library never bind to a loader's symbols.
 */
#include "api/obj.h"

#define HCQCL_EXPORT __attribute__((visibility("default")))

HCQCL_EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                       cl_platform_id *platforms,
                                                       cl_uint *num_platforms)
{
    return hcqcl_clIcdGetPlatformIDsKHR(num_entries, platforms, num_platforms);
}

HCQCL_EXPORT void *CL_API_CALL clGetExtensionFunctionAddress(const char *func_name)
{
    return hcqcl_clGetExtensionFunctionAddress(func_name);
}

HCQCL_EXPORT cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                                  cl_platform_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret)
{
    return hcqcl_clGetPlatformInfo(platform, param_name, param_value_size, param_value,
                                   param_value_size_ret);
}

/*
 * platform_test.c — every platform query, the platform list, and the
 * error paths of clGetPlatformInfo / clGetPlatformIDs, through the loader.
 */
#include "cltest.h"

static char *platform_string(cl_platform_id p, cl_platform_info param)
{
    size_t size = 0;
    EXPECT_OK(clGetPlatformInfo(p, param, 0, NULL, &size));
    EXPECT(size > 0, "param 0x%x: size 0", (unsigned)param);
    char *s = calloc(1, size + 1);
    EXPECT_OK(clGetPlatformInfo(p, param, size, s, NULL));
    EXPECT(strlen(s) + 1 == size, "param 0x%x: \"%s\" is not %zu bytes with its NUL",
           (unsigned)param, s, size);
    /* One byte short must fail and leave the count alone. */
    if (size > 1)
        EXPECT_ERR(clGetPlatformInfo(p, param, size - 1, s, NULL), CL_INVALID_VALUE);
    return s;
}

static void test_strings(cl_platform_id p)
{
    char *s = platform_string(p, CL_PLATFORM_PROFILE);
    EXPECT(!strcmp(s, "FULL_PROFILE"), "profile %s", s);
    free(s);
    s = platform_string(p, CL_PLATFORM_VERSION);
    EXPECT(!strncmp(s, "OpenCL 3.0 hcqcl ", 17), "version %s", s);
    free(s);
    s = platform_string(p, CL_PLATFORM_NAME);
    EXPECT(!strcmp(s, "hcqcl"), "name %s", s);
    free(s);
    s = platform_string(p, CL_PLATFORM_VENDOR);
    EXPECT(!strcmp(s, "hcqcl project"), "vendor %s", s);
    free(s);
    s = platform_string(p, CL_PLATFORM_ICD_SUFFIX_KHR);
    EXPECT(!strcmp(s, "HCQ"), "suffix %s", s);
    free(s);
}

static void test_versions_and_extensions(cl_platform_id p)
{
    cl_version v = 0;
    size_t size = 0;
    EXPECT_OK(clGetPlatformInfo(p, CL_PLATFORM_NUMERIC_VERSION, sizeof(v), &v, &size));
    EXPECT(size == sizeof(cl_version), "numeric version size %zu", size);
    EXPECT(CL_VERSION_MAJOR(v) == 3 && CL_VERSION_MINOR(v) == 0, "numeric version 0x%x", v);

    char *ext = platform_string(p, CL_PLATFORM_EXTENSIONS);
    EXPECT(strstr(ext, "cl_khr_icd") != NULL, "extensions lack cl_khr_icd: %s", ext);
    EXPECT_OK(clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION, 0, NULL, &size));
    EXPECT(size > 0 && size % sizeof(cl_name_version) == 0, "with-version size %zu", size);
    cl_name_version *nv = malloc(size);
    EXPECT_OK(clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION, size, nv, NULL));
    size_t n = size / sizeof(cl_name_version);
    /* Both lists name the same extensions. */
    size_t words = 0;
    for (char *tok = strtok(ext, " "); tok; tok = strtok(NULL, " ")) {
        words++;
        bool found = false;
        for (size_t i = 0; i < n; i++)
            found |= !strcmp(nv[i].name, tok);
        EXPECT(found, "%s missing from CL_PLATFORM_EXTENSIONS_WITH_VERSION", tok);
    }
    EXPECT(words == n, "%zu extensions vs %zu with version", words, n);
    for (size_t i = 0; i < n; i++)
        EXPECT(nv[i].version != 0, "%s has version 0", nv[i].name);
    free(nv);
    free(ext);

    cl_ulong res = 0;
    EXPECT_OK(clGetPlatformInfo(p, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof(res), &res, &size));
    EXPECT(size == sizeof(cl_ulong) && res > 0, "host timer resolution %llu",
           (unsigned long long)res);
}

static void test_errors(cl_platform_id p)
{
    char buf[256];
    /* CL_INVALID_VALUE for an unknown query. */
    EXPECT_ERR(clGetPlatformInfo(p, 0x12345, sizeof(buf), buf, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetPlatformInfo(p, CL_DEVICE_NAME, sizeof(buf), buf, NULL), CL_INVALID_VALUE);
    /* The output size without a buffer is fine; a buffer too small is not. */
    EXPECT_ERR(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, NULL, NULL), CL_SUCCESS);
    EXPECT_ERR(clGetPlatformInfo(p, CL_PLATFORM_NAME, 1, buf, NULL), CL_INVALID_VALUE);

    const struct _cl_icd_dispatch *d = cltest_dispatch(p);
    /* The ICD's own platform list (loaders answer clGetPlatformIDs themselves). */
    cl_platform_id got = NULL;
    cl_uint n = 0;
    EXPECT_OK(d->clGetPlatformIDs(1, &got, &n));
    EXPECT(n == 1 && got == p, "ICD lists %u platforms, %p vs %p", n, (void *)got, (void *)p);
    EXPECT_ERR(d->clGetPlatformIDs(0, &got, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(d->clGetPlatformIDs(1, NULL, NULL), CL_INVALID_VALUE);
    /* A handle of another type is not a platform. */
    cl_device_id dev;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) == CL_SUCCESS) {
        EXPECT_ERR(
            d->clGetPlatformInfo((cl_platform_id)dev, CL_PLATFORM_NAME, sizeof(buf), buf, NULL),
            CL_INVALID_PLATFORM);
        EXPECT_ERR(d->clUnloadPlatformCompiler((cl_platform_id)dev), CL_INVALID_PLATFORM);
    }
    EXPECT_OK(clUnloadPlatformCompiler(p));
}

/* clGetExtensionFunctionAddressForPlatform, asked of the ICD directly
 * (the Khronos loader refuses the clIcd* names itself). */
static void test_extension_functions(cl_platform_id p)
{
    const struct _cl_icd_dispatch *d = cltest_dispatch(p);
    clIcdGetPlatformIDsKHR_fn icd_ids =
        (clIcdGetPlatformIDsKHR_fn)d->clGetExtensionFunctionAddressForPlatform(
            p, "clIcdGetPlatformIDsKHR");
    EXPECT(icd_ids != NULL, "clIcdGetPlatformIDsKHR not provided");
    if (icd_ids) {
        cl_platform_id got = NULL;
        cl_uint n = 0;
        EXPECT_OK(icd_ids(1, &got, &n));
        EXPECT(n == 1 && got == p, "clIcdGetPlatformIDsKHR gave %u, %p", n, (void *)got);
        EXPECT_ERR(icd_ids(0, &got, &n), CL_INVALID_VALUE);
        EXPECT_ERR(icd_ids(1, NULL, NULL), CL_INVALID_VALUE);
    }
    EXPECT(d->clGetExtensionFunctionAddressForPlatform(p, "clGetPlatformInfo") ==
               (void *)d->clGetPlatformInfo,
           "clGetPlatformInfo by name is not the dispatch entry");
    EXPECT(d->clGetExtensionFunctionAddressForPlatform(p, "clNoSuchFunctionHCQ") == NULL,
           "unknown name resolved");
    EXPECT(d->clGetExtensionFunctionAddressForPlatform(p, NULL) == NULL, "NULL name resolved");
    EXPECT(d->clGetExtensionFunctionAddress("clIcdGetPlatformIDsKHR") == (void *)icd_ids,
           "clGetExtensionFunctionAddress disagrees");
    /* Through the loader, by suffix or by KHR name: an unknown one is NULL. */
    EXPECT(clGetExtensionFunctionAddressForPlatform(p, "clNoSuchFunctionHCQ") == NULL,
           "loader resolved an unknown name");
}

int main(void)
{
    cl_platform_id p = cltest_platform();
    REQUIRE(p != NULL, "the loader does not list the hcqcl platform (OCL_ICD_VENDORS=%s)",
            getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") : "");
    test_strings(p);
    test_versions_and_extensions(p);
    test_errors(p);
    test_extension_functions(p);
    return cltest_result("api_platform");
}

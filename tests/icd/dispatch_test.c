/*
 * dispatch_test.c — the ICD contract: every dispatch-table slot is filled
 * and shared by all objects; the exported lookup functions answer by name
 * (checked on the library itself, dlopened from the .icd file the loader
 * uses); handles from the loader carry hcqcl's table.
 */
#include "../api_platform/cltest.h"

#include <dlfcn.h>

static void check_table(const char *what, const struct _cl_icd_dispatch *t)
{
    const void *const *slot = (const void *const *)t;
    size_t n = sizeof(*t) / sizeof(void *);
    EXPECT(n >= 149, "dispatch table of %zu slots", n);
    for (size_t i = 0; i < n; i++)
        EXPECT(slot[i] != NULL, "%s: dispatch slot %zu is NULL", what, i);
}

/* The library the loader was pointed at: first line of hcqcl.icd. */
static char *library_path(void)
{
    const char *dir = getenv("OCL_ICD_VENDORS");
    if (!dir)
        return NULL;
    char icd[4096];
    snprintf(icd, sizeof(icd), "%s/hcqcl.icd", dir);
    FILE *f = fopen(icd, "r");
    if (!f)
        return NULL;
    char *line = calloc(1, 4096);
    if (!fgets(line, 4096, f))
        line[0] = 0;
    fclose(f);
    line[strcspn(line, "\r\n")] = 0;
    return line;
}

static void test_exports(void)
{
    char *path = library_path();
    REQUIRE(path && *path, "no hcqcl.icd in OCL_ICD_VENDORS");
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib, "dlopen %s: %s", path, dlerror());
    void *(*gefa)(const char *) =
        (void *(*)(const char *))dlsym(lib, "clGetExtensionFunctionAddress");
    clIcdGetPlatformIDsKHR_fn ids = (clIcdGetPlatformIDsKHR_fn)dlsym(lib, "clIcdGetPlatformIDsKHR");
    cl_api_clGetPlatformInfo info = (cl_api_clGetPlatformInfo)dlsym(lib, "clGetPlatformInfo");
    REQUIRE(gefa && ids && info, "missing export");
    EXPECT(dlsym(lib, "clCreateBuffer") == NULL, "clCreateBuffer is exported");
    EXPECT(dlsym(lib, "hcqcl_clCreateBuffer") == NULL, "internal names are exported");

    cl_platform_id p = NULL;
    cl_uint n = 0;
    EXPECT_OK(ids(1, &p, &n));
    EXPECT(n == 1 && p, "clIcdGetPlatformIDsKHR: %u", n);
    EXPECT_ERR(ids(0, &p, NULL), CL_INVALID_VALUE);
    char suffix[16] = "", ext[1024] = "";
    EXPECT_OK(info(p, CL_PLATFORM_ICD_SUFFIX_KHR, sizeof(suffix), suffix, NULL));
    EXPECT(!strcmp(suffix, "HCQ"), "suffix %s", suffix);
    EXPECT_OK(info(p, CL_PLATFORM_EXTENSIONS, sizeof(ext), ext, NULL));
    EXPECT(strstr(ext, "cl_khr_icd"), "extensions %s", ext);

    /* The lookup the loaders use. */
    clIcdGetPlatformIDsKHR_fn ids2 = (clIcdGetPlatformIDsKHR_fn)gefa("clIcdGetPlatformIDsKHR");
    EXPECT(ids2 != NULL, "clIcdGetPlatformIDsKHR not found by name");
    if (ids2) {
        cl_platform_id p2 = NULL;
        EXPECT_OK(ids2(1, &p2, NULL));
        EXPECT(p2 == p, "two different platforms");
    }
    cl_api_clGetPlatformInfo info2 = (cl_api_clGetPlatformInfo)gefa("clGetPlatformInfo");
    EXPECT(info2 != NULL, "clGetPlatformInfo not found by name");
    if (info2) {
        char name[16] = "";
        EXPECT_OK(info2(p, CL_PLATFORM_NAME, sizeof(name), name, NULL));
        EXPECT(!strcmp(name, "hcqcl"), "name %s", name);
    }
    EXPECT(gefa("clNoSuchFunctionHCQ") == NULL, "unknown name resolved");
    EXPECT(gefa("") == NULL && gefa(NULL) == NULL, "empty name resolved");
    /* Every object's table is the one table. */
    check_table("dlopened platform", cltest_dispatch(p));
    /* OpenCL 3.1 appends clGetKernelSuggestedLocalWorkSize as slot 150,
     * which a loader built with 3.1 headers calls through any object's
     * table: it is there, past the installed header's 149. */
    void *suggest = gefa("clGetKernelSuggestedLocalWorkSizeKHR");
    const void *const *slots = (const void *const *)cltest_dispatch(p);
    EXPECT(suggest && sizeof(struct _cl_icd_dispatch) / sizeof(void *) == 149 &&
               slots[149] == suggest,
           "slot 150 is not clGetKernelSuggestedLocalWorkSize (%p, lookup %p)", slots[149],
           suggest);
    dlclose(lib);
    free(path);
}

int main(void)
{
    cl_platform_id p = cltest_platform();
    REQUIRE(p != NULL, "the loader does not list the hcqcl platform");
    const struct _cl_icd_dispatch *t = cltest_dispatch(p);
    check_table("platform", t);

    cl_device_id d;
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, &n) == CL_SUCCESS && n) {
        EXPECT(cltest_dispatch(d) == t, "device dispatch differs");
        cl_int err;
        cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
        EXPECT(c != NULL, "clCreateContext: %d", err);
        if (c) {
            EXPECT(cltest_dispatch(c) == t, "context dispatch differs");
            clReleaseContext(c);
        }
    } else {
        EXPECT(false, "no device: device and context tables cannot be checked");
    }
    test_exports();
    return cltest_result("icd_dispatch");
}

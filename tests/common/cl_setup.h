/*
 * cl_setup.h — set-up shared by the black-box tests that reach hcqcl
 * through the ICD loader (OCL_ICD_VENDORS=build/vendors): hcqcl's
 * platform, the device count to expect, a context and queue on the first
 * device, a built program from one of tests/kernels' cubins or from
 * OpenCL C source, kernels of a program, image descriptors, whether a
 * compiler is at hand.
 *
 * Header-only; call from the test's main thread. Set-up failures are
 * fatal (REQUIRE of check.h): nothing after them could run.
 */
#ifndef HCQCL_TESTS_COMMON_CL_SETUP_H
#define HCQCL_TESTS_COMMON_CL_SETUP_H

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* hcqcl's platform among those the loader lists (NULL if absent). */
static inline cl_platform_id cltest_platform(void)
{
    cl_platform_id ps[16];
    cl_uint n = 0;
    if (clGetPlatformIDs(16, ps, &n) != CL_SUCCESS)
        return NULL;
    for (cl_uint i = 0; i < n && i < 16; i++) {
        char name[64] = "";
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (!strcmp(name, "hcqcl"))
            return ps[i];
    }
    return NULL;
}

/* True when hcqcl will use the emulated device (HCQCL_DEVICE=emu, or auto
 * on a machine without the NVIDIA driver). */
static inline bool cltest_emulated(void)
{
    const char *d = getenv("HCQCL_DEVICE");
    if (d && !strcmp(d, "emu"))
        return true;
    if (d && !strcmp(d, "nv"))
        return false;
    return access("/dev/nvidiactl", F_OK) != 0;
}

/* For the GPU tests run through the loader (tests/gpu): with
 * HCQCL_GPU_TESTS_ON_EMU=1 they run on the emulated device (true is
 * returned); otherwise they need the NVIDIA driver, and without one the
 * process exits 77, which ctest reports as skipped. */
static inline bool cltest_gpu_or_emu(void)
{
    const char *emu = getenv("HCQCL_GPU_TESTS_ON_EMU");
    if (emu && !strcmp(emu, "1")) {
        setenv("HCQCL_DEVICE", "emu", 1);
        return true;
    }
    const char *d = getenv("HCQCL_DEVICE");
    if (access("/dev/nvidiactl", F_OK) != 0 || (d && !strcmp(d, "emu"))) {
        printf("SKIP: no NVIDIA GPU\n");
        exit(77);
    }
    return false;
}

/* How many devices the platform must report: exactly HCQCL_EMU_GPUS
 * (default 1) when emulated, at least one on a GPU machine (returned as 0:
 * "any positive number"). A device test never passes with no device. */
static inline cl_uint cltest_expected_devices(void)
{
    const char *e = getenv("HCQCL_EXPECT_DEVICES"); /* set by tests that filter devices */
    if (e && *e)
        return (cl_uint)atoi(e);
    if (!cltest_emulated())
        return 0;
    const char *n = getenv("HCQCL_EMU_GPUS");
    return n && *n ? (cl_uint)atoi(n) : 1;
}

/* The dispatch table behind any hcqcl handle: lets a test call the ICD
 * directly where a loader would answer by itself. */
static inline const struct _cl_icd_dispatch *cltest_dispatch(const void *handle)
{
    return *(const struct _cl_icd_dispatch *const *)handle;
}

/* What most tests run on: hcqcl's first device, a context of it alone and
 * a default (in-order) queue. */
static inline void cltest_setup(cl_platform_id *platform, cl_device_id *dev, cl_context *ctx,
                                cl_command_queue *queue)
{
    cl_int err;
    *platform = cltest_platform();
    REQUIRE(*platform, "hcqcl platform not found");
    REQUIRE(clGetDeviceIDs(*platform, CL_DEVICE_TYPE_ALL, 1, dev, NULL) == CL_SUCCESS,
            "no device");
    *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &err);
    REQUIRE(*ctx && err == CL_SUCCESS, "context: %d", err);
    *queue = clCreateCommandQueueWithProperties(*ctx, *dev, NULL, &err);
    REQUIRE(*queue && err == CL_SUCCESS, "queue: %d", err);
}

static inline void cltest_teardown(cl_context ctx, cl_command_queue queue)
{
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
}

/* $HCQCL_TEST_DATA/<file> (a cubin of tests/kernels) as a program of ctx
 * for dev, built. */
static inline cl_program cltest_program(cl_context ctx, cl_device_id dev, const char *file)
{
    size_t size = 0;
    unsigned char *bin = test_data_read(file, &size);
    REQUIRE(bin, "%s not found under HCQCL_TEST_DATA", file);
    const unsigned char *bins[] = {bin};
    cl_int err;
    cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &size, bins, NULL, &err);
    free(bin);
    REQUIRE(p && err == CL_SUCCESS, "%s: clCreateProgramWithBinary %d", file, err);
    err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "%s: clBuildProgram %d", file, err);
    return p;
}

/* p's build log for dev on stderr. */
static inline void cltest_print_build_log(cl_program p, cl_device_id dev)
{
    size_t n = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = malloc(n + 1);
    if (log && clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
        log[n] = 0;
        fprintf(stderr, "build log:\n%s\n", log);
    }
    free(log);
}

/* OpenCL C source (len bytes) as a program of ctx for dev, built with
 * options; a failed build prints its log first. */
static inline cl_program cltest_source_program(cl_context ctx, cl_device_id dev, const char *src,
                                               size_t len, const char *options)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, &len, &err);
    REQUIRE(p && err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS)
        cltest_print_build_log(p, dev);
    REQUIRE(err == CL_SUCCESS, "clBuildProgram(\"%s\"): %d", options ? options : "", err);
    return p;
}

/* Kernel `name` of p. */
static inline cl_kernel cltest_kernel(cl_program p, const char *name)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    REQUIRE(k && err == CL_SUCCESS, "clCreateKernel(%s): %d", name, err);
    return k;
}

/* An image descriptor: type t, w x h x d pixels, a layers (0 where the
 * type has none), no pitches, no memory object. */
static inline cl_image_desc cltest_image_desc(cl_mem_object_type t, size_t w, size_t h, size_t d,
                                              size_t a)
{
    cl_image_desc desc;
    memset(&desc, 0, sizeof(desc));
    desc.image_type = t;
    desc.image_width = w;
    desc.image_height = h;
    desc.image_depth = d;
    desc.image_array_size = a;
    return desc;
}

/* Whether dev lists extension name both in CL_DEVICE_EXTENSIONS (a
 * whole word of it) and in CL_DEVICE_EXTENSIONS_WITH_VERSION (at version,
 * unless that is 0). */
static inline bool cltest_device_lists(cl_device_id dev, const char *name, cl_version version)
{
    char ext[8192] = "";
    cl_name_version ev[128];
    size_t n = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, sizeof(ev), ev, &n) != CL_SUCCESS)
        return false;
    const size_t len = strlen(name);
    bool in_string = false;
    for (const char *p = ext; (p = strstr(p, name)) != NULL; p += len)
        in_string |= (p == ext || p[-1] == ' ') && (p[len] == ' ' || p[len] == 0);
    bool in_list = false;
    for (size_t i = 0; i < n / sizeof(ev[0]); i++)
        in_list |= !strcmp(ev[i].name, name) && (!version || ev[i].version == version);
    return in_string && in_list;
}

/* HCQCL_CC names a working compiler (its tool chain is here). A machine
 * with only the kernel cache serves the builds that were cached; what
 * depends on a compiler's answer at run time is tested where one is. */
static inline bool cltest_compiler_here(void)
{
    const char *cc = getenv("HCQCL_CC");
    if (!cc || !*cc)
        return false;
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "'%s' --check-tools >/dev/null 2>&1", cc);
    return system(cmd) == 0;
}

#endif

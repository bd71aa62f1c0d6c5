/*
 * cltest.h — small helpers for the black-box tests that reach hcqcl
 * through the ICD loader (OCL_ICD_VENDORS=build/vendors).
 */
#ifndef HCQCL_TESTS_CLTEST_H
#define HCQCL_TESTS_CLTEST_H

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cltest_failures;

#define EXPECT(cond, ...)                                                                 \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            cltest_failures++;                                                            \
            fprintf(stderr, "%s:%d: FAIL (%s): ", __FILE__, __LINE__, #cond);             \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)
#define EXPECT_ERR(call, want)                                                            \
    do {                                                                                  \
        cl_int e_ = (call);                                                               \
        EXPECT(e_ == (want), "%s returned %d, expected %d", #call, (int)e_, (int)(want)); \
    } while (0)
#define EXPECT_OK(call) EXPECT_ERR(call, CL_SUCCESS)
/* Stop the test: later checks would only repeat the failure. */
#define REQUIRE(cond, ...)                                                                \
    do {                                                                                  \
        EXPECT(cond, __VA_ARGS__);                                                        \
        if (!(cond))                                                                      \
            exit(1);                                                                      \
    } while (0)

static inline int cltest_result(const char *name)
{
    if (cltest_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, cltest_failures);
    else
        printf("%s: all checks passed\n", name);
    return cltest_failures ? 1 : 0;
}

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

#endif

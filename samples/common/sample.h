/*
 * sample.h — the few helpers every hcqcl sample shares: error checks,
 * picking a GPU, loading a kernel file that sits next to the executable,
 * building a program from source with its build log on failure, timing.
 *
 * The samples are ordinary OpenCL host programs: they use only the
 * OpenCL API through the ICD loader, exactly as an application would.
 * Header-only so each sample stays a single translation unit.
 */
#ifndef HCQCL_SAMPLE_H
#define HCQCL_SAMPLE_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef SAMPLE_BUILD_OPTIONS
#define SAMPLE_BUILD_OPTIONS ""
#endif

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cl_int check_err_ = (call);                                                       \
        if (check_err_ != CL_SUCCESS) {                                                   \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call,          \
                    check_err_);                                                          \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* For calls that return an object and an error code. */
#define CHECK_ERR(err)                                                                    \
    do {                                                                                  \
        if ((err) != CL_SUCCESS) {                                                        \
            fprintf(stderr, "%s:%d: error %d\n", __FILE__, __LINE__, (err));              \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static inline double sample_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first GPU of the first platform that has one. */
static inline cl_device_id sample_gpu(cl_platform_id *platform_out)
{
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err != CL_SUCCESS || np == 0) {
        fprintf(stderr, "no OpenCL platform (error %d)\n", err);
        exit(1);
    }
    cl_platform_id *ps = malloc(np * sizeof(*ps));
    CHECK(clGetPlatformIDs(np, ps, NULL));
    for (cl_uint i = 0; i < np; i++) {
        cl_device_id d;
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &d, &nd) == CL_SUCCESS && nd > 0) {
            if (platform_out)
                *platform_out = ps[i];
            free(ps);
            return d;
        }
    }
    fprintf(stderr, "no OpenCL GPU found\n");
    exit(1);
}

static inline void sample_device_name(cl_device_id d, char *name, size_t size)
{
    CHECK(clGetDeviceInfo(d, CL_DEVICE_NAME, size, name, NULL));
}

/* The first GPU (sample_gpu), its name, and a context for it; exits on
 * failure. */
static inline cl_context sample_gpu_context(cl_device_id *dev, char *name, size_t name_size)
{
    cl_int err;
    *dev = sample_gpu(NULL);
    sample_device_name(*dev, name, name_size);
    cl_context ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &err);
    CHECK_ERR(err);
    return ctx;
}

/* Read the file `name` from the directory of the running executable. */
static inline char *sample_load_kernel_file(const char *name, size_t *len)
{
    char exe[PATH_MAX], path[PATH_MAX + 256];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        fprintf(stderr, "cannot locate the executable\n");
        exit(1);
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    snprintf(path, sizeof(path), "%s/%s", exe, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc((size_t)size + 1);
    if (!src || fread(src, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    src[size] = 0;
    *len = (size_t)size;
    return src;
}

/* clCreateProgramWithSource + clBuildProgram; prints the build log and
 * exits on failure. */
static inline cl_program sample_build(cl_context ctx, cl_device_id dev, const char *file,
                                      const char *options)
{
    size_t len;
    char *src = sample_load_kernel_file(file, &len);
    const char *srcs[] = { src };
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, srcs, &len, &err);
    CHECK_ERR(err);
    err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t log_size = 0;
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
        char *log = calloc(1, log_size + 1);
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
        fprintf(stderr, "build of %s failed (%d):\n%s\n", file, err, log);
        free(log);
        exit(1);
    }
    free(src);
    return p;
}

#endif

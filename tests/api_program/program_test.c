/*
 * program_test.c — programs and kernels through the ICD loader: binaries
 * of every kind (bare cubin, fatbin, hcqcl container from
 * CL_PROGRAM_BINARIES), malformed binaries, builds and their options,
 * every program/kernel query, argument rules, work-group info, and one
 * launch whose result proves the parameter block (buffers and scalars).
 * Source programs (build, compile + link, argument metadata) run when
 * hcqcl-cc is available (HCQCL_CC set by the build).
 *
 * Arguments: none. Data: ${HCQCL_TEST_DATA}/test_kernels.cubin and, when
 * built, test_kernels.fatbin next to this executable's working directory
 * (HCQCL_TEST_FATBIN).
 */
#include "../api_platform/cltest.h"

#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static uint8_t *cubin;
static size_t cubin_size;

static cl_program from_binary(const void *bin, size_t size, cl_int want)
{
    cl_int err = 12345, st = 12345;
    const unsigned char *b = bin;
    cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &size, &b, &st, &err);
    EXPECT(err == want, "binary of %zu bytes: %d, expected %d", size, err, want);
    EXPECT(st == want, "binary_status %d, expected %d", st, want);
    EXPECT(!p == (want != CL_SUCCESS), "handle for %d", err);
    return p;
}

static int build_calls;
static void CL_CALLBACK on_built(cl_program p, void *user)
{
    build_calls++;
    EXPECT(user == (void *)&build_calls, "user_data");
    cl_build_status st = CL_BUILD_NONE;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL);
    EXPECT(st == CL_BUILD_SUCCESS, "status in callback %d", st);
}

static void test_binary_errors(void)
{
    cl_int err, st[2];
    size_t len = cubin_size;
    const unsigned char *b = cubin;

    EXPECT(!clCreateProgramWithBinary(ctx, 0, &dev, &len, &b, st, &err), "0 devices");
    EXPECT(err == CL_INVALID_VALUE, "0 devices: %d", err);
    EXPECT(!clCreateProgramWithBinary(ctx, 1, NULL, &len, &b, st, &err), "NULL list");
    EXPECT(err == CL_INVALID_VALUE, "NULL list: %d", err);
    cl_device_id bad = (cl_device_id)ctx;
    EXPECT(!clCreateProgramWithBinary(ctx, 1, &bad, &len, &b, st, &err), "bad device");
    EXPECT(err == CL_INVALID_DEVICE, "bad device: %d", err);
    EXPECT(!clCreateProgramWithBinary(ctx, 1, &dev, NULL, &b, st, &err), "NULL lengths");
    EXPECT(err == CL_INVALID_VALUE, "NULL lengths: %d", err);
    EXPECT(!clCreateProgramWithBinary(ctx, 1, &dev, &len, NULL, st, &err), "NULL binaries");
    EXPECT(err == CL_INVALID_VALUE, "NULL binaries: %d", err);
    size_t zero = 0;
    st[0] = 1;
    EXPECT(!clCreateProgramWithBinary(ctx, 1, &dev, &zero, &b, st, &err), "empty");
    EXPECT(err == CL_INVALID_VALUE && st[0] == CL_INVALID_VALUE, "empty: %d / %d", err, st[0]);
    const unsigned char *nullb = NULL;
    EXPECT(!clCreateProgramWithBinary(ctx, 1, &dev, &len, &nullb, st, &err), "NULL binary");
    EXPECT(err == CL_INVALID_VALUE && st[0] == CL_INVALID_VALUE, "NULL binary: %d", err);
    EXPECT(!clCreateProgramWithBinary((cl_context)dev, 1, &dev, &len, &b, st, &err), "ctx");
    EXPECT(err == CL_INVALID_CONTEXT, "bad context: %d", err);

    /* Malformed binaries: garbage, every kind of truncation, and a cubin
     * for another architecture. */
    uint8_t junk[512];
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (uint8_t)(i * 37 + 11);
    from_binary(junk, sizeof(junk), CL_INVALID_BINARY);
    for (size_t cut = 1; cut < cubin_size; cut += cut < 256 ? 1 : 997)
        from_binary(cubin, cut, CL_INVALID_BINARY);
    uint8_t *other = malloc(cubin_size);
    REQUIRE(other, "host");
    memcpy(other, cubin, cubin_size);
    uint32_t flags;
    memcpy(&flags, other + 48, 4); /* e_flags of an ELF64 header */
    flags = (flags & ~0xff00u) | (50u << 8); /* sm_50 */
    memcpy(other + 48, &flags, 4);
    from_binary(other, cubin_size, CL_INVALID_BINARY);
    free(other);
}

/* "The concatenation strips any nulls in the original source strings":
 * lengths that count each string's terminator. */
static void check_nul_stripping(void)
{
    static const char *const strs[] = {"ab", "cd"};
    static const size_t lens[] = {3, 3};
    cl_int err;
    cl_program pn = clCreateProgramWithSource(ctx, 2, (const char **)strs, lens, &err);
    REQUIRE(pn && err == CL_SUCCESS, "source with NULs: %d", err);
    char text[16] = "";
    size_t size = 0;
    EXPECT_OK(clGetProgramInfo(pn, CL_PROGRAM_SOURCE, sizeof(text), text, &size));
    EXPECT(size == 5 && !strcmp(text, "abcd"), "SOURCE of %zu bytes '%s'", size, text);
    clReleaseProgram(pn);
}

static void test_other_creators(void)
{
    cl_int err;
    uint32_t spirv[8] = {0x07230203};
    EXPECT(!clCreateProgramWithIL(ctx, spirv, sizeof(spirv), &err), "IL");
    EXPECT(err == CL_INVALID_OPERATION, "IL: %d", err);
    EXPECT(!clCreateProgramWithBuiltInKernels(ctx, 1, &dev, "foo", &err), "built-in");
    EXPECT(err == CL_INVALID_VALUE, "built-in kernels: %d", err);
    const char *none[] = {NULL};
    EXPECT(!clCreateProgramWithSource(ctx, 1, none, NULL, &err), "NULL string");
    EXPECT(err == CL_INVALID_VALUE, "NULL string: %d", err);
    EXPECT(!clCreateProgramWithSource(ctx, 0, none, NULL, &err), "0 strings");
    EXPECT(err == CL_INVALID_VALUE, "0 strings: %d", err);
    const char *parts[] = {"kernel void k(global int *p)", " { p[0] = 1; }XXXX"};
    size_t lens[] = {0, 14};
    cl_program p = clCreateProgramWithSource(ctx, 2, parts, lens, &err);
    EXPECT(p && err == CL_SUCCESS, "source: %d", err);
    if (p) {
        char text[128] = "";
        size_t n = 0;
        EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof(text), text, &n));
        EXPECT(!strcmp(text, "kernel void k(global int *p) { p[0] = 1; }") && n == strlen(text) + 1,
               "SOURCE '%s'", text);
        check_nul_stripping();
        EXPECT_ERR(clSetProgramReleaseCallback(p, on_built, NULL), CL_INVALID_OPERATION);
        EXPECT_ERR(clSetProgramSpecializationConstant(p, 1, 4, &n), CL_INVALID_OPERATION);
        cl_build_status st = 99;
        EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL));
        EXPECT(st == CL_BUILD_NONE, "status before build %d", st);
        EXPECT_ERR(clCompileProgram(p, 0, NULL, "-bogus-option", 0, NULL, NULL, NULL, NULL),
                   CL_INVALID_COMPILER_OPTIONS);
        EXPECT_ERR(clBuildProgram(p, 0, NULL, "-create-library", NULL, NULL),
                   CL_INVALID_BUILD_OPTIONS);
        /* "Calling clBuildProgram with the -cl-std=CL2.0 option will fail
         * to compile the program for any devices with
         * CL_DEVICE_OPENCL_C_VERSION = ... OpenCL C 1.2": a build that
         * fails with a log, for builds and compiles alike; the last
         * -cl-std counts. */
        EXPECT_ERR(clBuildProgram(p, 0, NULL, "-cl-std=CL3.0 -cl-std=CL2.0", NULL, NULL),
                   CL_BUILD_PROGRAM_FAILURE);
        char log[512] = "";
        EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL));
        EXPECT(st == CL_BUILD_ERROR, "status after -cl-std=CL2.0: %d", st);
        EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL));
        EXPECT(strstr(log, "OpenCL C 2.0"), "log after -cl-std=CL2.0: '%s'", log);
        EXPECT_ERR(clCompileProgram(p, 0, NULL, "-cl-std=CL2.0", 0, NULL, NULL, NULL, NULL),
                   CL_COMPILE_PROGRAM_FAILURE);
        EXPECT_OK(clReleaseProgram(p));
    }
}

static cl_program built_cubin_program(void)
{
    cl_program p = from_binary(cubin, cubin_size, CL_SUCCESS);
    REQUIRE(p, "program from the test cubin");
    EXPECT_OK(clBuildProgram(p, 1, &dev, "-cl-std=CL3.0 -cl-mad-enable", NULL, NULL));
    return p;
}

static void test_build_and_program_info(void)
{
    cl_program p = from_binary(cubin, cubin_size, CL_SUCCESS);
    if (!p)
        return;
    size_t n = 0, nk = 0;
    char names[512] = "";
    cl_program_binary_type bt = 0;
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
    EXPECT(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "binary type %u", (unsigned)bt);
    EXPECT_ERR(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL),
               CL_INVALID_PROGRAM_EXECUTABLE);
    cl_int err;
    EXPECT(!clCreateKernel(p, "vadd", &err) && err == CL_INVALID_PROGRAM_EXECUTABLE,
           "kernel before build: %d", err);
    cl_bool ctors = CL_TRUE;
    EXPECT_ERR(clGetProgramInfo(p, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof(ctors), &ctors,
                                NULL),
               CL_INVALID_PROGRAM_EXECUTABLE);
    EXPECT_ERR(clGetProgramInfo(p, CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT, sizeof(ctors), &ctors,
                                NULL),
               CL_INVALID_PROGRAM_EXECUTABLE);
    /* "If build status ... is CL_BUILD_NONE, an empty string is returned." */
    char none[64] = "x";
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_OPTIONS, sizeof(none), none, NULL));
    EXPECT(!none[0], "options before a build: '%s'", none);
    none[0] = 'x';
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(none), none, NULL));
    EXPECT(!none[0], "log before a build: '%s'", none);

    /* Option and argument rules. */
    EXPECT_ERR(clBuildProgram(p, 0, NULL, "-no-such-option", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    EXPECT_ERR(clBuildProgram(p, 0, NULL, "-cl-std=CL4.0", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    EXPECT_ERR(clBuildProgram(p, 0, NULL, "-D", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    /* cl_nv_compiler_options: the value after a space or an '=' */
    EXPECT_ERR(clBuildProgram(p, 0, NULL, "-cl-nv-maxrregcount", NULL, NULL),
               CL_INVALID_BUILD_OPTIONS);
    EXPECT_OK(clBuildProgram(p, 0, NULL, "-cl-nv-maxrregcount 32 -cl-nv-opt-level 2", NULL, NULL));
    EXPECT_OK(clBuildProgram(p, 0, NULL, "-cl-nv-maxrregcount=32 -cl-nv-arch sm_90", NULL, NULL));
    EXPECT_ERR(clBuildProgram(p, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clBuildProgram(p, 0, &dev, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clBuildProgram(p, 0, NULL, NULL, NULL, &n), CL_INVALID_VALUE);
    cl_device_id bad = (cl_device_id)ctx;
    EXPECT_ERR(clBuildProgram(p, 1, &bad, NULL, NULL, NULL), CL_INVALID_DEVICE);

    build_calls = 0;
    const char *opts = "-cl-std=CL3.0 -D FOO=1 -I /tmp -cl-fast-relaxed-math -cl-nv-verbose";
    EXPECT_OK(clBuildProgram(p, 1, &dev, opts, on_built, &build_calls));
    EXPECT(build_calls == 1, "callback ran %d times", build_calls);
    cl_build_status st = 0;
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL));
    EXPECT(st == CL_BUILD_SUCCESS, "status %d", st);
    char got[256] = "";
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_OPTIONS, sizeof(got), got, NULL));
    EXPECT(!strcmp(got, opts), "BUILD_OPTIONS '%s'", got);
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n));
    EXPECT(n >= 1, "log size %zu", n);
    size_t gsize = 1;
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                    sizeof(gsize), &gsize, NULL));
    /* "Returns 0 if device does not support program scope global
     * variables", though this cubin has one (gvar). */
    EXPECT(gsize == 0, "global variables %zu bytes", gsize);
    EXPECT_ERR(clGetProgramBuildInfo(p, bad, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL),
               CL_INVALID_DEVICE);
    EXPECT_ERR(clGetProgramBuildInfo(p, dev, 0x7777, sizeof(st), &st, NULL), CL_INVALID_VALUE);

    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL));
    EXPECT(nk == 8, "NUM_KERNELS %zu", nk);
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof(ctors), &ctors,
                               NULL));
    EXPECT(ctors == CL_FALSE, "ctors present %u", ctors);
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof(names), names, NULL));
    const char *want[] = {"vadd", "smem_win", "local_win", "dyn_smem", "consts", "dims",
                          "copy_bytes", "fill_bytes"};
    for (size_t i = 0; i < 8; i++)
        EXPECT(strstr(names, want[i]), "KERNEL_NAMES '%s' lacks %s", names, want[i]);
    cl_uint refs = 0, ndev = 0;
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT(refs == 1, "refs %u", refs);
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof(ndev), &ndev, NULL));
    EXPECT(ndev == 1, "NUM_DEVICES %u", ndev);
    cl_device_id d = NULL;
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof(d), &d, NULL));
    EXPECT(d == dev, "DEVICES");
    cl_context c = NULL;
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof(c), &c, NULL));
    EXPECT(c == ctx, "CONTEXT");
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, NULL, &n));
    EXPECT(n == 1, "SOURCE of a binary program: %zu bytes", n);
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &n));
    EXPECT(n == 0, "IL: %zu bytes", n);
    ctors = CL_TRUE;
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT, sizeof(ctors), &ctors,
                               NULL));
    EXPECT(ctors == CL_FALSE, "dtors");
    EXPECT_ERR(clGetProgramInfo(p, 0x7777, sizeof(n), &n, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, 1, &nk, NULL), CL_INVALID_VALUE);

    /* CL_PROGRAM_BINARIES returns a container that loads again. */
    size_t bsize = 0;
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bsize), &bsize, NULL));
    EXPECT(bsize > cubin_size, "container %zu bytes, cubin %zu", bsize, cubin_size);
    unsigned char *bin = malloc(bsize);
    REQUIRE(bin, "host");
    EXPECT_ERR(clGetProgramInfo(p, CL_PROGRAM_BINARIES, 1, &bin, NULL), CL_INVALID_VALUE);
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
    EXPECT(!memcmp(bin, "HCQCLPRG", 8), "container magic");
    cl_program again = from_binary(bin, bsize, CL_SUCCESS);
    if (again) {
        EXPECT_OK(clBuildProgram(again, 0, NULL, NULL, NULL, NULL));
        size_t nk2 = 0;
        EXPECT_OK(clGetProgramInfo(again, CL_PROGRAM_NUM_KERNELS, sizeof(nk2), &nk2, NULL));
        EXPECT(nk2 == nk, "round trip: %zu kernels", nk2);
        EXPECT_OK(clReleaseProgram(again));
    }
    /* Damaged containers: every cut, and flipped bytes in the header and
     * metadata, either load (and then build and make kernels) or are
     * refused as CL_INVALID_BINARY; nothing else happens. */
    for (size_t cut = 1; cut < bsize; cut += cut < 1024 ? 7 : 1531)
        from_binary(bin, cut, CL_INVALID_BINARY);
    unsigned char *dmg = malloc(bsize);
    REQUIRE(dmg, "host");
    size_t loaded = 0;
    for (size_t i = 0; i < bsize && i < 2048; i += 3) {
        memcpy(dmg, bin, bsize);
        dmg[i] ^= (unsigned char)(0x5b + i);
        const unsigned char *dp = dmg;
        cl_int st2;
        cl_program q = clCreateProgramWithBinary(ctx, 1, &dev, &bsize, &dp, &st2, &err);
        EXPECT(q ? err == CL_SUCCESS : err == CL_INVALID_BINARY, "byte %zu flipped: %d", i, err);
        if (!q)
            continue;
        loaded++;
        if (clBuildProgram(q, 0, NULL, NULL, NULL, NULL) == CL_SUCCESS) {
            cl_uint nk3 = 0;
            cl_kernel ks[16];
            if (clCreateKernelsInProgram(q, 16, ks, &nk3) == CL_SUCCESS)
                for (cl_uint j = 0; j < nk3 && j < 16; j++)
                    clReleaseKernel(ks[j]);
        }
        clReleaseProgram(q);
    }
    free(dmg);
    printf("api_program: %zu damaged containers still loaded\n", loaded);
    free(bin);

    /* Kernels keep the program from being rebuilt. */
    cl_kernel k = clCreateKernel(p, "vadd", &err);
    EXPECT(k && err == CL_SUCCESS, "vadd: %d", err);
    EXPECT_ERR(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
    if (k)
        EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));
    EXPECT_OK(clReleaseProgram(p));
}

static void test_fatbin(void)
{
    const char *path = getenv("HCQCL_TEST_FATBIN");
    if (!path || !*path) {
        printf("api_program: no fatbin built (nvcc missing): fatbin case not run\n");
        return;
    }
    size_t size = 0;
    uint8_t *fb = test_file_read(path, &size);
    REQUIRE(fb, "read %s", path);
    cl_program p = from_binary(fb, size, CL_SUCCESS);
    if (p) {
        EXPECT_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));
        cl_int err;
        cl_kernel k = clCreateKernel(p, "dims", &err);
        EXPECT(k && err == CL_SUCCESS, "kernel from a fatbin: %d", err);
        if (k)
            clReleaseKernel(k);
        clReleaseProgram(p);
    }
    /* A fatbin cut short is malformed. */
    from_binary(fb, size / 2, CL_INVALID_BINARY);
    free(fb);
}

/* PTX text (what NVIDIA's OpenCL returns as binaries): assembled by
 * ptxas into a cubin that runs; malformed PTX fails with ptxas's log. */
static void test_ptx(void)
{
    size_t size = 0;
    char *ptx = test_data_read("test_kernels.ptx", &size);
    if (!ptx) {
        printf("api_program: no PTX built (nvcc missing): PTX case not run\n");
        return;
    }
    /* A PTX module with no entry is a program with no kernels. */
    const char *empty = "//\n.version 8.0\n.target sm_90\n.address_size 64\n";
    cl_program none = from_binary(empty, strlen(empty), CL_SUCCESS);
    if (none) {
        if (clBuildProgram(none, 0, NULL, NULL, NULL, NULL) == CL_SUCCESS) {
            size_t nk = 9;
            EXPECT_OK(clGetProgramInfo(none, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL));
            EXPECT(nk == 0, "a module with no entry: %zu kernels", nk);
            cl_kernel ks[1];
            cl_uint nks = 9;
            EXPECT_OK(clCreateKernelsInProgram(none, 1, ks, &nks));
            EXPECT(nks == 0, "clCreateKernelsInProgram: %u kernels", nks);
        }
        clReleaseProgram(none);
    }
    cl_program p = from_binary(ptx, size, CL_SUCCESS);
    if (p) {
        EXPECT_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));
        cl_int err;
        cl_kernel k = clCreateKernel(p, "vadd", &err);
        EXPECT(k && err == CL_SUCCESS, "kernel from PTX: %d", err);
        if (k) {
            /* Not from OpenCL C source: no attributes to report. */
            char attrs[64] = "x";
            EXPECT_OK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof(attrs), attrs, NULL));
            EXPECT(attrs[0] == 0, "attributes of a kernel from a binary: \"%s\"", attrs);
            enum { N = 256 };
            float a[N], b[N], c[N];
            for (int i = 0; i < N; i++) {
                a[i] = (float)i;
                b[i] = 1.0f;
            }
            cl_mem ba = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
            cl_mem bb = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(b), b, &err);
            cl_mem bc = clCreateBuffer(ctx, 0, sizeof(c), NULL, &err);
            int kk = 2, n = N;
            size_t global = N, local = 64;
            EXPECT_OK(clSetKernelArg(k, 0, sizeof(ba), &ba));
            EXPECT_OK(clSetKernelArg(k, 1, sizeof(bb), &bb));
            EXPECT_OK(clSetKernelArg(k, 2, sizeof(bc), &bc));
            EXPECT_OK(clSetKernelArg(k, 3, sizeof(kk), &kk));
            EXPECT_OK(clSetKernelArg(k, 4, sizeof(n), &n));
            EXPECT_OK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
            EXPECT_OK(clEnqueueReadBuffer(queue, bc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL));
            int bad = 0;
            for (int i = 0; i < N; i++)
                bad += c[i] != (float)i + 3.0f; /* a + b + k */
            EXPECT(bad == 0, "vadd from PTX: %d of %d wrong (c[3] = %g)", bad, N, (double)c[3]);
            clReleaseMemObject(ba);
            clReleaseMemObject(bb);
            clReleaseMemObject(bc);
            clReleaseKernel(k);
        }
        /* CL_PROGRAM_BINARIES gives the assembled cubin in hcqcl's container. */
        size_t bsize = 0;
        EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bsize), &bsize, NULL));
        unsigned char *bin = malloc(bsize ? bsize : 1);
        EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
        cl_program again = from_binary(bin, bsize, CL_SUCCESS);
        if (again)
            clReleaseProgram(again);
        free(bin);
        clReleaseProgram(p);
    }
    /* PTX that ptxas rejects: CL_INVALID_BINARY, and the log says why. */
    const char *bad_ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k() { this is not ptx; }\n";
    cl_int st = 0, err = 0;
    const unsigned char *bins[] = {(const unsigned char *)bad_ptx};
    size_t blen = strlen(bad_ptx);
    cl_program q = clCreateProgramWithBinary(ctx, 1, &dev, &blen, bins, &st, &err);
    EXPECT(!q && err == CL_INVALID_BINARY && st == CL_INVALID_BINARY,
           "malformed PTX: program %p, err %d, status %d", (void *)q, err, st);
    if (q)
        clReleaseProgram(q);
    free(ptx);
}

static void test_kernels(void)
{
    cl_program p = built_cubin_program();
    cl_int err;
    EXPECT(!clCreateKernel(p, NULL, &err) && err == CL_INVALID_VALUE, "NULL name: %d", err);
    EXPECT(!clCreateKernel(p, "nope", &err) && err == CL_INVALID_KERNEL_NAME, "bad name: %d", err);
    EXPECT(!clCreateKernel((cl_program)ctx, "vadd", &err) && err == CL_INVALID_PROGRAM,
           "bad program: %d", err);

    cl_uint n = 0;
    EXPECT_OK(clCreateKernelsInProgram(p, 0, NULL, &n));
    EXPECT(n == 8, "%u kernels", n);
    cl_kernel all[8];
    EXPECT_ERR(clCreateKernelsInProgram(p, 7, all, NULL), CL_INVALID_VALUE);
    EXPECT_OK(clCreateKernelsInProgram(p, 8, all, NULL));
    cl_uint prefs = 0;
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof(prefs), &prefs, NULL));
    EXPECT(prefs == 9, "program refs with 8 kernels: %u", prefs);
    for (int i = 0; i < 8; i++)
        EXPECT_OK(clReleaseKernel(all[i]));

    cl_kernel k = clCreateKernel(p, "vadd", &err);
    REQUIRE(k && err == CL_SUCCESS, "vadd: %d", err);
    char name[32] = "";
    cl_uint nargs = 0, refs = 0;
    cl_context c = NULL;
    cl_program kp = NULL;
    EXPECT_OK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL));
    EXPECT(!strcmp(name, "vadd"), "name '%s'", name);
    EXPECT_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL));
    EXPECT(nargs == 5, "NUM_ARGS %u", nargs);
    EXPECT_OK(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT(refs == 1, "refs %u", refs);
    EXPECT_OK(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof(c), &c, NULL));
    EXPECT(c == ctx, "CONTEXT");
    EXPECT_OK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof(kp), &kp, NULL));
    EXPECT(kp == p, "PROGRAM");
    size_t an = 0;
    EXPECT_OK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, 0, NULL, &an));
    EXPECT(an == 1, "ATTRIBUTES of a cubin kernel: %zu bytes", an);
    EXPECT_ERR(clGetKernelInfo(k, 0x7777, sizeof(refs), &refs, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 2, name, NULL), CL_INVALID_VALUE);

    /* Argument rules (nvcc cubin: pointers are 8-byte values of unknown space). */
    cl_mem buf = clCreateBuffer(ctx, 0, 1024, NULL, &err);
    REQUIRE(buf, "buffer: %d", err);
    int ival = 7;
    cl_long lval = 7;
    EXPECT_ERR(clSetKernelArg(k, 5, sizeof(int), &ival), CL_INVALID_ARG_INDEX);
    EXPECT_ERR(clSetKernelArg(k, 3, sizeof(lval), &lval), CL_INVALID_ARG_SIZE);
    EXPECT_ERR(clSetKernelArg(k, 3, sizeof(int), NULL), CL_INVALID_ARG_VALUE);
    EXPECT_ERR(clSetKernelArg(k, 0, 4, &buf), CL_INVALID_ARG_SIZE);
    EXPECT_ERR(clSetKernelArg(k, 0, 0, NULL), CL_INVALID_ARG_SIZE);
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(buf), &buf));
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(cl_mem), NULL));
    cl_ulong raw = 0xdead0000beefull; /* a device address, not a handle: taken as bytes */
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(raw), &raw));
    EXPECT_OK(clSetKernelArg(k, 0, 64, NULL)); /* __local use of a pointer */
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(int), &ival));
    EXPECT_ERR(clSetKernelArg((cl_kernel)p, 0, sizeof(buf), &buf), CL_INVALID_KERNEL);

    /* Argument info is not recorded in a bare cubin. */
    cl_kernel_arg_address_qualifier aq;
    EXPECT_ERR(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL),
               CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    EXPECT_ERR(clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL),
               CL_INVALID_ARG_INDEX);

    /* Coarse-grained SVM: a pointer argument takes an SVM pointer (any
     * value: the kernel's address is the host's); a by-value one does not. */
    EXPECT_OK(clSetKernelArgSVMPointer(k, 0, NULL));
    EXPECT_ERR(clSetKernelArgSVMPointer(k, 3, NULL), CL_INVALID_ARG_VALUE);
    EXPECT_ERR(clSetKernelArgSVMPointer(k, 9, NULL), CL_INVALID_ARG_INDEX);
    EXPECT_ERR(clSetKernelArgSVMPointer((cl_kernel)p, 0, NULL), CL_INVALID_KERNEL);
    EXPECT_OK(clSetKernelArg(k, 0, 64, NULL)); /* __local again, for the queries below */
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(cl_bool),
                                   &(cl_bool){CL_TRUE}),
               CL_INVALID_OPERATION);
    /* No fine-grain system SVM; other names are invalid values. */
    EXPECT_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(cl_bool),
                                  &(cl_bool){CL_FALSE}));
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1,
                                   &(cl_bool){CL_FALSE}),
               CL_INVALID_VALUE);
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(cl_bool),
                                   NULL),
               CL_INVALID_VALUE);
    EXPECT_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void *),
                                  &(void *){NULL}));
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, &(void *){NULL}),
               CL_INVALID_VALUE);
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void *), NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clSetKernelExecInfo(k, 0x7777, sizeof(cl_bool), &(cl_bool){CL_FALSE}),
               CL_INVALID_VALUE);
    size_t sg = 0;
    EXPECT_ERR(clGetKernelSubGroupInfo(k, dev, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof(sg),
                                       &sg, NULL),
               CL_INVALID_OPERATION);

    /* Work-group info. */
    size_t wg = 0, mult = 0, cwg[3] = {9, 9, 9}, gws[3];
    cl_ulong lmem = 0, pmem = 0;
    EXPECT_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
    EXPECT(wg >= 32 && wg <= 1024 && wg % 32 == 0, "WORK_GROUP_SIZE %zu", wg);
    EXPECT_OK(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
    EXPECT_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                       sizeof(mult), &mult, NULL));
    EXPECT(mult == 32, "preferred multiple %zu", mult);
    EXPECT_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(cwg),
                                       cwg, NULL));
    EXPECT(!cwg[0] && !cwg[1] && !cwg[2], "COMPILE_WORK_GROUP_SIZE %zu %zu %zu", cwg[0], cwg[1],
           cwg[2]);
    EXPECT_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(lmem), &lmem, NULL));
    EXPECT(lmem >= 64, "LOCAL_MEM_SIZE %llu with a 64-byte __local argument",
           (unsigned long long)lmem);
    EXPECT_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(pmem), &pmem,
                                       NULL));
    EXPECT_ERR(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof(gws), gws, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clGetKernelWorkGroupInfo(k, (cl_device_id)ctx, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof(wg), &wg, NULL),
               CL_INVALID_DEVICE);
    EXPECT_ERR(clGetKernelWorkGroupInfo(k, dev, 0x7777, sizeof(wg), &wg, NULL), CL_INVALID_VALUE);

    cl_kernel cb = clCreateKernel(p, "copy_bytes", &err);
    if (cb) {
        EXPECT_OK(clGetKernelWorkGroupInfo(cb, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg,
                                           NULL));
        EXPECT(wg <= 256 && wg > 0, "__launch_bounds__(256): WORK_GROUP_SIZE %zu", wg);
        clReleaseKernel(cb);
    }
    cl_kernel sw = clCreateKernel(p, "smem_win", &err);
    if (sw) {
        EXPECT_OK(clGetKernelWorkGroupInfo(sw, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(lmem), &lmem,
                                           NULL));
        EXPECT(lmem >= 1024, "smem_win static shared: %llu", (unsigned long long)lmem);
        clReleaseKernel(sw);
    }
    cl_kernel lw = clCreateKernel(p, "local_win", &err);
    if (lw) {
        EXPECT_OK(clGetKernelWorkGroupInfo(lw, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(pmem),
                                           &pmem, NULL));
        EXPECT(pmem >= 256, "local_win private bytes %llu", (unsigned long long)pmem);
        clReleaseKernel(lw);
    }

    /* A clone has the same arguments and its own reference. */
    cl_kernel k2 = clCloneKernel(k, &err);
    EXPECT(k2 && err == CL_SUCCESS, "clone: %d", err);
    if (k2) {
        EXPECT_OK(clGetKernelInfo(k2, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL));
        EXPECT(nargs == 5, "clone args %u", nargs);
        EXPECT_OK(clGetKernelWorkGroupInfo(k2, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(lmem), &lmem,
                                           NULL));
        EXPECT(lmem >= 64, "clone keeps the __local argument");
        EXPECT_OK(clReleaseKernel(k2));
    }
    EXPECT_ERR(clRetainKernel((cl_kernel)ctx), CL_INVALID_KERNEL);
    EXPECT_OK(clRetainKernel(k));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseMemObject(buf));
    EXPECT_OK(clReleaseProgram(p));
}

/* vadd through clEnqueueNDRangeKernel: c = a + b + k proves buffer VAs,
 * sub-buffer offsets and scalars reach the kernel. */
static void test_launch(void)
{
    enum { N = 1000 };
    cl_program p = built_cubin_program();
    cl_int err;
    cl_kernel k = clCreateKernel(p, "vadd", &err);
    REQUIRE(k, "vadd: %d", err);
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
        c[i] = -1.0f;
    }
    cl_uint align_bits = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align_bits), &align_bits, NULL);
    size_t off = align_bits / 8;
    cl_mem ba = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
    cl_mem bb = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, sizeof(b), b, &err);
    cl_mem bc = clCreateBuffer(ctx, 0, sizeof(c) + off, NULL, &err);
    REQUIRE(ba && bb && bc, "buffers: %d", err);
    cl_buffer_region r = {off, sizeof(c)};
    cl_mem sc = clCreateSubBuffer(bc, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    REQUIRE(sc, "sub-buffer: %d", err);
    int kk = 5, n = N;
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(ba), &ba));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(bb), &bb));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(sc), &sc));
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(kk), &kk));
    size_t global = 1024, local = 128;
    /* Unset arguments are refused at launch. */
    cl_kernel fresh = clCreateKernel(p, "vadd", &err);
    if (fresh) {
        EXPECT_ERR(clEnqueueNDRangeKernel(queue, fresh, 1, NULL, &global, &local, 0, NULL, NULL),
                   CL_INVALID_KERNEL_ARGS);
        clReleaseKernel(fresh);
    }
    EXPECT_OK(clSetKernelArg(k, 4, sizeof(n), &n));
    EXPECT_OK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    /* The kernel object may change right after the enqueue. */
    kk = 1000;
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(kk), &kk));
    EXPECT_OK(clEnqueueReadBuffer(queue, sc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (c[i] != (float)(3 * i + 5))
            bad++;
    EXPECT(bad == 0, "%d of %d results wrong (c[1] = %g, want 8)", bad, N, (double)c[1]);
    /* A buffer argument released after an enqueue that used it (whose
     * check of it is remembered) is refused at the next enqueue. */
    cl_mem tmp = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(c), NULL, &err);
    REQUIRE(tmp, "buffer: %d", err);
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(tmp), &tmp));
    EXPECT_OK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    EXPECT_OK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    EXPECT_OK(clFinish(queue));
    EXPECT_OK(clReleaseMemObject(tmp));
    EXPECT_OK(clFinish(queue));
    EXPECT_ERR(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
    clReleaseMemObject(sc);
    clReleaseMemObject(ba);
    clReleaseMemObject(bb);
    clReleaseMemObject(bc);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* ------------------------------------------------------------------ */
/* Source programs (need hcqcl-cc)                                      */
/* ------------------------------------------------------------------ */

static const char *src_main =
    "#include \"inc/scale.h\"\n"
    "float helper(float x);\n"
    "kernel void scale(global float *restrict out, constant float *in, local float4 *tmp,\n"
    "                  float s, uint n) {\n"
    "    uint i = get_global_id(0);\n"
    "    tmp[get_local_id(0)] = (float4)(in[i]);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (i < n) out[i] = helper(tmp[get_local_id(0)].x) * s * SCALE;\n"
    "}\n";
static const char *src_helper = "float helper(float x) { return x + OFFSET; }\n";
static const char *hdr = "#define SCALE 2.0f\n";

static const char *build_log(cl_program p)
{
    static char log[8192];
    log[0] = '\0';
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
    return log;
}

/* OpenCL C 1.2 declares image and sampler arguments; the device has no
 * image or sampler object to set them to: clSetKernelArg answers as for
 * an object that is not valid, and the kernel cannot be enqueued. */
static void test_image_sampler_args(void)
{
    static const char *src =
        "kernel void img(read_only image2d_t im, sampler_t s, global float *o) { o[0] = 1.0f; }\n"
        "typedef struct { int w, h; } image_info_t;\n"
        "kernel void own(global image_info_t *p, image_info_t v) { p[0] = v; }\n";
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    REQUIRE(p, "program: %d", err);
    err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "build: %d\n%s", err, build_log(p));
    cl_kernel k = clCreateKernel(p, "img", &err);
    REQUIRE(k, "kernel: %d", err);
    cl_mem buf = clCreateBuffer(ctx, 0, 64, NULL, &err);
    REQUIRE(buf, "buffer: %d", err);
    char tn[32] = "";
    EXPECT_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(tn), tn, NULL));
    EXPECT(!strcmp(tn, "image2d_t"), "type name '%s'", tn);
    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &buf), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), NULL), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(k, 0, 4, &buf), CL_INVALID_ARG_SIZE);
    const cl_sampler fake = (cl_sampler)buf;
    EXPECT_ERR(clSetKernelArg(k, 1, sizeof(cl_sampler), &fake), CL_INVALID_SAMPLER);
    EXPECT_ERR(clSetKernelArg(k, 1, sizeof(cl_sampler), NULL), CL_INVALID_SAMPLER);
    EXPECT_ERR(clSetKernelArg(k, 1, 2, &fake), CL_INVALID_ARG_SIZE);
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(cl_mem), &buf));
    const size_t one = 1;
    EXPECT_ERR(clEnqueueNDRangeKernel(queue, k, 1, NULL, &one, NULL, 0, NULL, NULL),
               CL_INVALID_KERNEL_ARGS);
    /* A type of the program's own whose name starts with "image" is no image. */
    cl_kernel own = clCreateKernel(p, "own", &err);
    REQUIRE(own, "kernel own: %d", err);
    const cl_int2 v = {{3, 4}};
    EXPECT_OK(clSetKernelArg(own, 0, sizeof(cl_mem), &buf));
    EXPECT_OK(clSetKernelArg(own, 1, sizeof(v), &v));
    clReleaseKernel(own);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* Write files (path, text, ..., NULL) under dir, making subdirectories. */
static void write_files(const char *dir, const char *const *files)
{
    for (; files[0]; files += 2) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, files[0]);
        for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
            *s = 0;
            mkdir(path, 0700);
            *s = '/';
        }
        FILE *f = fopen(path, "w");
        REQUIRE(f && fputs(files[1], f) >= 0 && fclose(f) == 0, "%s", path);
    }
}

/* clLinkProgram of inputs succeeds (what: for the failure message). */
static void expect_link(const char *what, const char *options, cl_uint n, const cl_program *in)
{
    cl_int err;
    cl_program x = clLinkProgram(ctx, 0, NULL, options, n, in, NULL, NULL, &err);
    EXPECT(x && err == CL_SUCCESS, "%s: %d\n%s", what, err, x ? build_log(x) : "");
    if (x)
        clReleaseProgram(x);
}

static void remove_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    EXPECT(system(cmd) == 0, "%s", cmd);
}

static cl_program compiled(const char *src, const char *options)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    REQUIRE(p, "source: %d", err);
    err = clCompileProgram(p, 0, NULL, options, 0, NULL, NULL, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "compile %s: %d\n%s", options, err, build_log(p));
    return p;
}

/* clLinkProgram's inputs are translation units of their own, as C's are:
 * a type, a static function and a macro that each input defines its own
 * way link; a library's inputs are linked again as units; a function
 * defined twice does not link. */
static void test_link_units(void)
{
    static const char *a = "typedef struct { int x; } pair;\n"
                           "static int twice(int v) { return 2 * v; }\n"
                           "int from_a(int v) { pair p = {twice(v) + A}; return p.x; }\n";
    static const char *b = "typedef struct { float f; int y; } pair;\n"
                           "static int twice(int v) { return 3 * v; }\n"
                           "int from_a(int v);\n"
                           "kernel void both(global int *o) {\n"
                           "    pair p = {1.0f, twice(o[0])};\n"
                           "    o[0] = from_a(p.y) + (int)p.f + B;\n"
                           "}\n";
    cl_program pa = compiled(a, "-DA=1"), pb = compiled(b, "-DB=2 -cl-kernel-arg-info");
    cl_program in[] = {pa, pb};
    cl_int err;
    cl_program x = clLinkProgram(ctx, 0, NULL, NULL, 2, in, NULL, NULL, &err);
    EXPECT(x && err == CL_SUCCESS, "link of two units: %d\n%s", err, x ? build_log(x) : "");
    if (x) {
        cl_kernel k = clCreateKernel(x, "both", &err);
        EXPECT(k && err == CL_SUCCESS, "kernel of the second unit: %d", err);
        char name[8] = "";
        if (k)
            EXPECT_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof(name), name, NULL));
        EXPECT(!strcmp(name, "o"), "argument name '%s' (the unit asked for arg info)", name);
        char src[4] = "?";
        EXPECT_OK(clGetProgramInfo(x, CL_PROGRAM_SOURCE, sizeof(src), src, NULL));
        EXPECT(!src[0], "a linked program has no source of its own: '%s'", src);
        if (k)
            clReleaseKernel(k);
        /* Not made from source, IL or a binary: neither built nor
         * compiled again. */
        EXPECT_ERR(clBuildProgram(x, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
        EXPECT_ERR(clCompileProgram(x, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
                   CL_INVALID_OPERATION);
        clReleaseProgram(x);
    }
    /* A compiled object loaded from its binary has not been built: no
     * options or log yet, whatever the object was compiled with. */
    size_t osize = 0;
    EXPECT_OK(clGetProgramInfo(pa, CL_PROGRAM_BINARY_SIZES, sizeof(osize), &osize, NULL));
    unsigned char *obin = malloc(osize ? osize : 1);
    EXPECT_OK(clGetProgramInfo(pa, CL_PROGRAM_BINARIES, sizeof(obin), &obin, NULL));
    const unsigned char *obins[] = {obin};
    cl_int ost = 1;
    cl_program po = clCreateProgramWithBinary(ctx, 1, &dev, &osize, obins, &ost, &err);
    EXPECT(po && err == CL_SUCCESS && ost == CL_SUCCESS, "object from its binary: %d", err);
    if (po) {
        char o[64] = "x";
        EXPECT_OK(clGetProgramBuildInfo(po, dev, CL_PROGRAM_BUILD_OPTIONS, sizeof(o), o, NULL));
        EXPECT(!o[0], "options of an object not built here: '%s'", o);
        clReleaseProgram(po);
    }
    free(obin);
    /* A link that fails for another reason than the link itself gives no
     * program. */
    x = clLinkProgram(ctx, 0, NULL, "-no-such-linker-option", 2, in, NULL, NULL, &err);
    EXPECT(!x && err == CL_INVALID_LINKER_OPTIONS, "bad linker option: %p, %d", (void *)x, err);
    if (x)
        clReleaseProgram(x);
    /* A library of the first, then linked with the second. */
    cl_program lib = clLinkProgram(ctx, 0, NULL, "-create-library", 1, &pa, NULL, NULL, &err);
    EXPECT(lib && err == CL_SUCCESS, "library: %d", err);
    if (lib) {
        cl_program in2[] = {pb, lib};
        expect_link("link with a library", "-cl-fast-relaxed-math", 2, in2);
        /* The library as a binary, loaded again and linked. */
        size_t size = 0;
        EXPECT_OK(clGetProgramInfo(lib, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL));
        unsigned char *bin = malloc(size ? size : 1);
        EXPECT_OK(clGetProgramInfo(lib, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
        cl_int st = 1;
        cl_program lib2 = clCreateProgramWithBinary(ctx, 1, &dev, &size,
                                                    (const unsigned char **)&bin, &st, &err);
        EXPECT(lib2 && err == CL_SUCCESS && st == CL_SUCCESS, "library from binary: %d (%d)",
               err, st);
        free(bin);
        if (lib2) {
            cl_program_binary_type bt = 0;
            EXPECT_OK(clGetProgramBuildInfo(lib2, dev, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt,
                                            NULL));
            EXPECT(bt == CL_PROGRAM_BINARY_TYPE_LIBRARY, "type %u", (unsigned)bt);
            cl_program in3[] = {lib2, pb};
            expect_link("link with a library from binary", NULL, 2, in3);
            clReleaseProgram(lib2);
        }
        clReleaseProgram(lib);
    }
    /* One input: compiled as a program, with the options it was compiled with. */
    cl_program pd = compiled("kernel void seven(global int *o) { o[0] = C; }", "-DC=7");
    x = clLinkProgram(ctx, 0, NULL, NULL, 1, &pd, NULL, NULL, &err);
    EXPECT(x && err == CL_SUCCESS, "link of one input with -D: %d\n%s", err,
           x ? build_log(x) : "");
    if (x)
        clReleaseProgram(x);
    clReleaseProgram(pd);
    /* A header found through -I at clCompileProgram, removed before the
     * link (with one it includes from beside it): the link still has it. */
    char dir[] = "/tmp/hcqcl-inc-XXXXXX", opt[300];
    REQUIRE(mkdtemp(dir), "temporary directory");
    write_files(dir, (const char *const[]){"sub/decl.h", "#include \"value.h\"\nint from_a(int v);\n",
                                           "sub/value.h", "#define VALUE 5\n", NULL});
    snprintf(opt, sizeof(opt), "-I %s", dir);
    cl_program pi = compiled("#include \"sub/decl.h\"\n"
                             "kernel void uses(global int *o) { o[0] = from_a(VALUE); }\n",
                             opt);
    remove_tree(dir);
    cl_program with_header[] = {pi, pa};
    expect_link("link after the -I header was removed", NULL, 2, with_header);
    clReleaseProgram(pi);

    /* Two inputs, each with its own cfg.h; one from a quoted directory
     * with a space in its name, the other through an embedded header that
     * includes from its -I directory. All removed before the link. */
    char d1[] = "/tmp/hcqcl inc-XXXXXX", d2[] = "/tmp/hcqcl-inc-XXXXXX";
    REQUIRE(mkdtemp(d1) && mkdtemp(d2), "temporary directories");
    write_files(d1, (const char *const[]){"cfg.h", "#define VA 1\n", NULL});
    write_files(d2, (const char *const[]){"cfg.h", "#define VB 2\n", "deep.h", "#define DEEP 3\n",
                                          NULL});
    snprintf(opt, sizeof(opt), "-I \"%s\"", d1);
    cl_program px = compiled("#include \"cfg.h\"\nint get_a(void) { return VA; }\n", opt);
    const char *emb_src = "#include \"deep.h\"\n",
               *y_src = "#include \"emb.h\"\n#include \"cfg.h\"\nint get_a(void);\n"
                        "kernel void k2(global int *o) { o[0] = get_a() + VB + DEEP; }\n";
    cl_program emb = clCreateProgramWithSource(ctx, 1, &emb_src, NULL, &err);
    cl_program py = clCreateProgramWithSource(ctx, 1, &y_src, NULL, &err);
    REQUIRE(emb && py, "sources");
    const char *emb_name = "emb.h";
    snprintf(opt, sizeof(opt), "-I%s", d2);
    err = clCompileProgram(py, 0, NULL, opt, 1, &emb, &emb_name, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "compile with an embedded header: %d\n%s", err, build_log(py));
    remove_tree(d1);
    remove_tree(d2);
    cl_program own_headers[] = {px, py};
    expect_link("link of inputs with their own cfg.h", NULL, 2, own_headers);
    clReleaseProgram(px);
    clReleaseProgram(py);
    clReleaseProgram(emb);

    /* A source that starts like a units text is a source. */
    const char *lookalike = "//hcqcl-link-units\nkernel void m(global int *o) { o[0] = 1; }\n";
    cl_program pl = clCreateProgramWithSource(ctx, 1, &lookalike, NULL, &err);
    REQUIRE(pl, "source");
    err = clBuildProgram(pl, 0, NULL, NULL, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "build: %d\n%s", err, build_log(pl));
    clReleaseProgram(pl);

    /* The same function defined in two units. */
    cl_program pc = compiled(a, "-DA=3");
    cl_program twice_defined[] = {pa, pc};
    x = clLinkProgram(ctx, 0, NULL, NULL, 2, twice_defined, NULL, NULL, &err);
    EXPECT(err == CL_LINK_PROGRAM_FAILURE, "from_a defined twice: %d", err);
    if (x)
        clReleaseProgram(x);
    clReleaseProgram(pa);
    clReleaseProgram(pb);
    clReleaseProgram(pc);
}

/* Enqueue nu (3 work-items in groups of 2: one group of 1 left over) and
 * return the enqueue's answer; what ran is waited for. */
static cl_int launch_non_uniform(cl_program p, cl_mem out)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, "nu", &err);
    EXPECT(k, "kernel nu: %d", err);
    if (!k)
        return err;
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(out), &out));
    const size_t g = 3, l = 2;
    err = clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 0, NULL, NULL);
    EXPECT_OK(clFinish(queue));
    clReleaseKernel(k);
    return err;
}

static cl_program built(const char *src, const char *options)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    REQUIRE(p, "source: %d", err);
    EXPECT_OK(clBuildProgram(p, 0, NULL, options, NULL, NULL));
    return p;
}

static cl_program rebuilt_from_binary(cl_program p)
{
    size_t size = 0;
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL));
    unsigned char *bin = malloc(size ? size : 1);
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
    const unsigned char *bins[] = {bin};
    cl_int err, st;
    cl_program b = clCreateProgramWithBinary(ctx, 1, &dev, &size, bins, &st, &err);
    free(bin);
    REQUIRE(b, "program from the binary: %d", err);
    EXPECT_OK(clBuildProgram(b, 0, NULL, NULL, NULL, NULL));
    return b;
}

/* Which programs allow non-uniform work-groups (clEnqueueNDRangeKernel):
 * from source, built for OpenCL C 2.0+ without -cl-uniform-work-group-size;
 * from a binary, built without it (the options it was first built with
 * count); linked, when every input allows them. */
static void test_non_uniform_rules(void)
{
    cl_bool nu = CL_FALSE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof(nu), &nu,
                              NULL));
    if (!nu)
        return;
    const char *src = "kernel void nu(global int *o) { o[get_global_id(0)] = 1; }\n";
    const cl_int refused = CL_INVALID_WORK_GROUP_SIZE;
    cl_int err;
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    REQUIRE(out, "buffer: %d", err);

    cl_program cl12 = built(src, NULL), cl30 = built(src, "-cl-std=CL3.0");
    cl_program uni = built(src, "-cl-std=CL3.0 -cl-uniform-work-group-size");
    EXPECT_ERR(launch_non_uniform(cl12, out), refused);
    EXPECT_OK(launch_non_uniform(cl30, out));
    EXPECT_ERR(launch_non_uniform(uni, out), refused);
    cl_program b12 = rebuilt_from_binary(cl12), buni = rebuilt_from_binary(uni);
    EXPECT_OK(launch_non_uniform(b12, out));
    EXPECT_ERR(launch_non_uniform(buni, out), refused);
    char opts[128] = "";
    EXPECT_OK(clGetProgramBuildInfo(buni, dev, CL_PROGRAM_BUILD_OPTIONS, sizeof(opts), opts,
                                    NULL));
    EXPECT(strstr(opts, "-cl-uniform-work-group-size"),
           "a binary built with NULL options keeps its own: '%s'", opts);

    cl_program o30 = compiled(src, "-cl-std=CL3.0"), o12 = compiled(src, NULL);
    cl_program l30 = clLinkProgram(ctx, 0, NULL, NULL, 1, &o30, NULL, NULL, &err);
    EXPECT(l30, "link: %d", err);
    cl_program l12 = clLinkProgram(ctx, 0, NULL, NULL, 1, &o12, NULL, NULL, &err);
    EXPECT(l12, "link: %d", err);
    if (l30)
        EXPECT_OK(launch_non_uniform(l30, out));
    if (l12)
        EXPECT_ERR(launch_non_uniform(l12, out), refused);

    cl_program all[] = {cl12, cl30, uni, b12, buni, o30, o12, l30, l12};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (all[i])
            clReleaseProgram(all[i]);
    clReleaseMemObject(out);
}

/* The one entry of dir (its name into name), or false when it holds
 * none or several. */
static bool only_entry(const char *dir, char *name, size_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n++ == 0)
            snprintf(name, size, "%s", e->d_name);
    }
    closedir(d);
    return n == 1;
}

/* Embedded headers are written to TMPDIR/hcqcl-headers-<key>, a name
 * anyone can predict. A directory of that name that others may write, or
 * a link, is not written into: the compile uses a private directory,
 * removed afterwards, and what the other party left there stays. */
static void test_header_dir(void)
{
    char tmp[] = "/tmp/hcqcl-api-program-XXXXXX";
    REQUIRE(mkdtemp(tmp), "mkdtemp");
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", tmp, 1);
    /* Headers of this run only, so that their key is new. */
    char text[128];
    snprintf(text, sizeof(text), "#define SCALE 2.0f\n// %ld %ld\n", (long)getpid(),
             (long)time(NULL));
    const char *htext = text, *hname = "inc/scale.h";
    cl_int err;
    cl_program h = clCreateProgramWithSource(ctx, 1, &htext, NULL, &err);
    REQUIRE(h, "header program: %d", err);
    for (int round = 0; round < 3; round++) {
        cl_program m = clCreateProgramWithSource(ctx, 1, &src_main, NULL, &err);
        REQUIRE(m, "program: %d", err);
        char keyed[512] = "", name[256] = "", file[600];
        struct stat before = {0}, after = {0};
        if (round > 0) {
            REQUIRE(only_entry(tmp, name, sizeof(name)), "one header directory in %s", tmp);
            snprintf(keyed, sizeof(keyed), "%s/%s", tmp, name);
            snprintf(file, sizeof(file), "%s/inc/scale.h", keyed);
            if (round == 1) {
                /* Writable by others. */
                EXPECT(chmod(keyed, 0777) == 0, "chmod");
            } else {
                /* A link to a directory the other party keeps a header in. */
                char away[600];
                snprintf(away, sizeof(away), "%s.away", keyed);
                EXPECT(chmod(keyed, 0700) == 0 && rename(keyed, away) == 0 &&
                           symlink(away, keyed) == 0,
                       "link");
                FILE *f = fopen(file, "w");
                EXPECT(f && fputs("#error planted\n", f) >= 0 && fclose(f) == 0, "planted");
            }
            EXPECT(stat(file, &before) == 0, "%s", file);
        }
        err = clCompileProgram(m, 0, NULL, NULL, 1, &h, &hname, NULL, NULL);
        EXPECT(err == CL_SUCCESS, "round %d: compile with a header: %d\n%s", round, err,
               build_log(m));
        if (round > 0) {
            /* Nothing written there, nothing left behind. */
            EXPECT(stat(file, &after) == 0 && after.st_ino == before.st_ino &&
                       after.st_mtime == before.st_mtime && after.st_size == before.st_size,
                   "round %d: %s rewritten", round, file);
            DIR *d = opendir(tmp);
            int n = 0;
            for (struct dirent *e; d && (e = readdir(d));)
                n += e->d_name[0] != '.';
            if (d)
                closedir(d);
            EXPECT(n == round, "round %d: %d entries in %s", round, n, tmp);
        }
        clReleaseProgram(m);
    }
    clReleaseProgram(h);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    EXPECT(system(cmd) == 0, "%s", cmd);
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
}

/* clLinkProgram with an input another thread is compiling: "the
 * compilation ... by a previous call to clCompileProgram ... has not
 * completed" is CL_INVALID_OPERATION. A link that succeeds must have found
 * the compile done. */
struct compile_job {
    cl_program p;
    const char *options;
    cl_int err;
};

static void *compile_main(void *arg)
{
    struct compile_job *j = arg;
    j->err = clCompileProgram(j->p, 0, NULL, j->options, 0, NULL, NULL, NULL, NULL);
    return NULL;
}

static void test_link_while_compiling(cl_program f)
{
    int refused = 0;
    for (int round = 0; round < 20 && !refused; round++) {
        char opts[64];
        /* A new option each round: never a cached build, so it takes a while. */
        snprintf(opts, sizeof(opts), "-DOFFSET=1.0f -DROUND_%d_%ld", round, (long)getpid());
        struct compile_job j = {.p = f, .options = opts, .err = 1};
        pthread_t t;
        REQUIRE(pthread_create(&t, NULL, compile_main, &j) == 0, "thread");
        cl_build_status st = CL_BUILD_NONE;
        for (int i = 0; i < 100000; i++) {
            if (clGetProgramBuildInfo(f, dev, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL) !=
                    CL_SUCCESS ||
                st == CL_BUILD_IN_PROGRESS)
                break;
        }
        if (st == CL_BUILD_IN_PROGRESS) {
            cl_int err;
            cl_program l = clLinkProgram(ctx, 0, NULL, NULL, 1, &f, NULL, NULL, &err);
            cl_build_status after = CL_BUILD_NONE;
            clGetProgramBuildInfo(f, dev, CL_PROGRAM_BUILD_STATUS, sizeof(after), &after, NULL);
            if (l) {
                EXPECT(after != CL_BUILD_IN_PROGRESS, "a link used an input still compiling");
                clReleaseProgram(l);
            } else {
                EXPECT(err == CL_INVALID_OPERATION, "link during a compile: %d", err);
                refused = err == CL_INVALID_OPERATION;
            }
        }
        pthread_join(t, NULL);
        EXPECT(j.err == CL_SUCCESS, "compile: %d", j.err);
    }
    EXPECT(refused, "no link was refused during a compile in 20 rounds");
}

static void test_source_programs(void)
{
    const char *cc = getenv("HCQCL_CC");
    if (!cc || !*cc) {
        printf("api_program: HCQCL_CC not set: source programs not tested\n");
        return;
    }
    const bool have_cc = cltest_compiler_here();
    cl_int err;
    const char *whole[] = {hdr, src_helper, src_main + strlen("#include \"inc/scale.h\"\n")};
    cl_program p = clCreateProgramWithSource(ctx, 3, whole, NULL, &err);
    REQUIRE(p, "source: %d", err);
    err = clBuildProgram(p, 1, &dev, "-DOFFSET=1.0f -cl-kernel-arg-info", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        EXPECT(false, "build: %d, log:\n%s", err, log);
    } else {
        cl_program_binary_type bt = 0;
        EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
        EXPECT(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "binary type %u", (unsigned)bt);
        cl_kernel k = clCreateKernel(p, "scale", &err);
        EXPECT(k && err == CL_SUCCESS, "scale: %d", err);
        if (k) {
            cl_kernel_arg_address_qualifier aq[5];
            for (cl_uint i = 0; i < 5; i++)
                EXPECT_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq[i]),
                                             &aq[i], NULL));
            EXPECT(aq[0] == CL_KERNEL_ARG_ADDRESS_GLOBAL && aq[1] == CL_KERNEL_ARG_ADDRESS_CONSTANT &&
                       aq[2] == CL_KERNEL_ARG_ADDRESS_LOCAL && aq[3] == CL_KERNEL_ARG_ADDRESS_PRIVATE,
                   "address qualifiers %x %x %x %x", aq[0], aq[1], aq[2], aq[3]);
            char tn[32] = "", an[32] = "";
            EXPECT_OK(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_TYPE_NAME, sizeof(tn), tn, NULL));
            EXPECT(!strcmp(tn, "float4*"), "type name '%s'", tn);
            EXPECT_OK(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_NAME, sizeof(an), an, NULL));
            EXPECT(!strcmp(an, "s"), "arg name '%s'", an);
            cl_kernel_arg_type_qualifier tq = 0;
            EXPECT_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, NULL));
            EXPECT(tq & CL_KERNEL_ARG_TYPE_RESTRICT, "restrict: 0x%llx", (unsigned long long)tq);
            /* Argument kinds from the metadata. */
            float s = 2.0f;
            cl_mem buf = clCreateBuffer(ctx, 0, 256, NULL, &err);
            EXPECT_ERR(clSetKernelArg(k, 2, sizeof(buf), &buf), CL_INVALID_ARG_VALUE);
            EXPECT_ERR(clSetKernelArg(k, 2, 0, NULL), CL_INVALID_ARG_SIZE);
            EXPECT_OK(clSetKernelArg(k, 2, 4096, NULL));
            EXPECT_ERR(clSetKernelArg(k, 0, sizeof(buf), &k), CL_INVALID_MEM_OBJECT);
            EXPECT_OK(clSetKernelArg(k, 0, sizeof(buf), &buf));
            EXPECT_OK(clSetKernelArg(k, 1, sizeof(buf), NULL));
            EXPECT_OK(clSetKernelArg(k, 3, sizeof(s), &s));
            cl_ulong lmem = 0;
            EXPECT_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(lmem), &lmem,
                                               NULL));
            EXPECT(lmem >= 4096, "LOCAL_MEM_SIZE %llu", (unsigned long long)lmem);
            clReleaseMemObject(buf);
            clReleaseKernel(k);
        }
    }
    clReleaseProgram(p);
    if (!have_cc) {
        printf("api_program: no compiler here: separate compilation and error logs not "
               "tested\n");
        return;
    }

    /* clCompileProgram with an embedded header, then clLinkProgram. */
    cl_program h = clCreateProgramWithSource(ctx, 1, &hdr, NULL, &err);
    cl_program m = clCreateProgramWithSource(ctx, 1, &src_main, NULL, &err);
    cl_program f = clCreateProgramWithSource(ctx, 1, &src_helper, NULL, &err);
    REQUIRE(h && m && f, "sources");
    const char *hname = "inc/scale.h";
    EXPECT_ERR(clCompileProgram(m, 0, NULL, NULL, 1, NULL, &hname, NULL, NULL), CL_INVALID_VALUE);
    err = clCompileProgram(m, 0, NULL, NULL, 1, &h, &hname, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "compile with a header: %d\n%s", err, build_log(m));
    err = clCompileProgram(f, 0, NULL, "-DOFFSET=1.0f", 0, NULL, NULL, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "compile: %d\n%s", err, build_log(f));
    cl_program_binary_type bt = 0;
    EXPECT_OK(clGetProgramBuildInfo(m, dev, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
    EXPECT(bt == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "compiled object: %u", (unsigned)bt);
    /* A compiled object survives CL_PROGRAM_BINARIES and links afterwards. */
    size_t osize = 0;
    EXPECT_OK(clGetProgramInfo(m, CL_PROGRAM_BINARY_SIZES, sizeof(osize), &osize, NULL));
    unsigned char *obin = malloc(osize ? osize : 1);
    EXPECT_OK(clGetProgramInfo(m, CL_PROGRAM_BINARIES, sizeof(obin), &obin, NULL));
    cl_program m2 = from_binary(obin, osize, CL_SUCCESS);
    /* Every truncation, and a wrong length, is malformed. */
    for (size_t cut = 1; cut < osize; cut++)
        from_binary(obin, cut, CL_INVALID_BINARY);
    if (osize > 20) {
        obin[20] ^= 0x40; /* options length */
        from_binary(obin, osize, CL_INVALID_BINARY);
    }
    free(obin);
    if (m2) {
        EXPECT_OK(clGetProgramBuildInfo(m2, dev, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
        EXPECT(bt == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "object from binary: %u",
               (unsigned)bt);
        cl_program pair[] = {m2, f};
        expect_link("link of an object from binary", NULL, 2, pair);
        /* CL_INVALID_OPERATION if program has no source or IL available,
         * i.e. it has not been created with clCreateProgramWithSource */
        EXPECT_ERR(clCompileProgram(m2, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
                   CL_INVALID_OPERATION);
        clReleaseProgram(m2);
    }
    cl_program in[] = {f, m};
    EXPECT(!clLinkProgram(ctx, 0, NULL, "-bogus", 2, in, NULL, NULL, &err), "bad link options");
    EXPECT(err == CL_INVALID_LINKER_OPTIONS, "link options: %d", err);
    /* A device named twice is one device of the linked program. */
    {
        cl_device_id twice[2] = {dev, dev};
        cl_program l2 = clLinkProgram(ctx, 2, twice, NULL, 2, in, NULL, NULL, &err);
        EXPECT(l2 && err == CL_SUCCESS, "link for a device named twice: %d", err);
        if (l2) {
            cl_uint nd = 0;
            EXPECT_OK(clGetProgramInfo(l2, CL_PROGRAM_NUM_DEVICES, sizeof(nd), &nd, NULL));
            EXPECT(nd == 1, "%u devices for one named twice", nd);
            clReleaseProgram(l2);
        }
    }
    /* "-enable-link-options ... must be specified with the create-library option" */
    EXPECT(!clLinkProgram(ctx, 0, NULL, "-enable-link-options", 2, in, NULL, NULL, &err),
           "-enable-link-options alone");
    EXPECT(err == CL_INVALID_LINKER_OPTIONS, "-enable-link-options alone: %d", err);
    test_link_while_compiling(f);
    cl_program lib = clLinkProgram(ctx, 0, NULL, "-create-library", 1, &f, NULL, NULL, &err);
    EXPECT(lib && err == CL_SUCCESS, "library: %d", err);
    if (lib) {
        EXPECT_OK(clGetProgramBuildInfo(lib, dev, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
        EXPECT(bt == CL_PROGRAM_BINARY_TYPE_LIBRARY, "library type %u", (unsigned)bt);
        in[0] = lib;
    }
    cl_program exe = clLinkProgram(ctx, 1, &dev, NULL, 2, in, NULL, NULL, &err);
    if (err != CL_SUCCESS && exe) {
        char log[4096] = "";
        clGetProgramBuildInfo(exe, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        EXPECT(false, "link: %d, log:\n%s", err, log);
    }
    EXPECT(exe && err == CL_SUCCESS, "link: %d", err);
    if (exe) {
        cl_kernel k = clCreateKernel(exe, "scale", &err);
        EXPECT(k && err == CL_SUCCESS, "linked kernel: %d", err);
        if (k)
            clReleaseKernel(k);
        clReleaseProgram(exe);
    }
    if (lib)
        clReleaseProgram(lib);
    clReleaseProgram(h);
    clReleaseProgram(m);
    clReleaseProgram(f);

    test_link_units();
    test_non_uniform_rules();

    /* A compile error fails the build with a log. */
    const char *broken = "kernel void k(global int *p) { p[0] = undeclared; }";
    cl_program b = clCreateProgramWithSource(ctx, 1, &broken, NULL, &err);
    if (b) {
        EXPECT_ERR(clBuildProgram(b, 0, NULL, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
        cl_build_status st = 0;
        char log[4096] = "";
        EXPECT_OK(clGetProgramBuildInfo(b, dev, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL));
        EXPECT(st == CL_BUILD_ERROR, "status %d", st);
        EXPECT_OK(clGetProgramBuildInfo(b, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL));
        EXPECT(strstr(log, "undeclared"), "log does not name the error:\n%s", log);
        clReleaseProgram(b);
    }
}

/* Two devices in one context (HCQCL_EMU_GPUS=2): a binary per device,
 * binaries returned per device, kernels made for both. */
static int notified;
static void CL_CALLBACK count_notify(cl_program p, void *user)
{
    (void)p;
    (void)user;
    notified++;
}

/* Rules around builds: a failed rebuild or a compile leaves no earlier
 * binary or executable behind; options that are not the entry point's
 * are refused before anything starts; inputs and headers of another
 * context; embedded headers searched before -I directories, the first of
 * two with one name used; the predefined macros; a program of helper
 * functions only. */
static void test_build_rules(void)
{
    static const char *good = "kernel void k(global int *o) { o[0] = 1; }\n";
    static const char *bad = "#ifdef BREAK\n#error \"broken\"\n#endif\n"
                             "kernel void k(global int *o) { o[0] = 2; }\n";
    cl_int err;
    cl_program p = built(good, NULL);
    size_t bsize = 0, nk = 0;
    cl_program_binary_type bt = 0;
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bsize), &bsize, NULL));
    EXPECT(bsize > 0, "built: binary of %zu bytes", bsize);
    /* A compile of the built program: an object, no executable. */
    EXPECT_OK(clCompileProgram(p, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
    EXPECT(bt == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "after a compile: type %u",
           (unsigned)bt);
    EXPECT_ERR(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL),
               CL_INVALID_PROGRAM_EXECUTABLE);
    EXPECT(!clCreateKernel(p, "k", &err) && err == CL_INVALID_PROGRAM_EXECUTABLE,
           "a kernel of a compiled object: %d", err);
    clReleaseProgram(p);
    /* A rebuild that fails: no binary of the build before. */
    p = built(bad, NULL);
    EXPECT_ERR(clBuildProgram(p, 0, NULL, "-DBREAK", NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bsize), &bsize, NULL));
    EXPECT(bsize == 0, "failed build: binary of %zu bytes", bsize);
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL));
    EXPECT(bt == CL_PROGRAM_BINARY_TYPE_NONE, "failed build: type %u", (unsigned)bt);
    clReleaseProgram(p);
    /* Options of another entry point: refused before the build starts
     * (no callback), and an executable built before stays. */
    p = built(good, NULL);
    notified = 0;
    EXPECT_ERR(clBuildProgram(p, 0, NULL, "-create-library", count_notify, NULL),
               CL_INVALID_BUILD_OPTIONS);
    EXPECT_ERR(clBuildProgram(p, 0, NULL, "-enable-link-options", count_notify, NULL),
               CL_INVALID_BUILD_OPTIONS);
    EXPECT(notified == 0, "refused options: %d callbacks", notified);
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL));
    EXPECT(nk == 1, "the executable before: %zu kernels", nk);
    EXPECT_OK(clBuildProgram(p, 0, NULL, "-nv-line-info", NULL, NULL));
    clReleaseProgram(p);
    /* Another context's programs. */
    cl_context c2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(c2, "second context: %d", err);
    cl_program other = clCreateProgramWithSource(c2, 1, &good, NULL, &err);
    REQUIRE(other, "source: %d", err);
    EXPECT_OK(clCompileProgram(other, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
    EXPECT(!clLinkProgram(ctx, 0, NULL, NULL, 1, &other, NULL, NULL, &err),
           "link of another context's object");
    EXPECT(err == CL_INVALID_CONTEXT, "link of another context's object: %d", err);
    static const char *inc = "#include \"w.h\"\nkernel void k(global int *o) { o[0] = W; }\n";
    p = clCreateProgramWithSource(ctx, 1, &inc, NULL, &err);
    REQUIRE(p, "source: %d", err);
    const char *wname = "w.h";
    EXPECT_ERR(clCompileProgram(p, 0, NULL, NULL, 1, &other, &wname, NULL, NULL),
               CL_INVALID_CONTEXT);
    clReleaseProgram(other);
    clReleaseContext(c2);
    /* Embedded headers before -I directories, the first of one name. */
    char dir[] = "/tmp/hcqcl-build-rules-XXXXXX";
    REQUIRE(mkdtemp(dir), "temporary directory");
    const char *files[] = {"w.h", "#define W 1\n#error \"the -I header\"\n", NULL};
    write_files(dir, files);
    static const char *w2 = "#define W 2\n", *w3 = "#error \"the second w.h\"\n";
    cl_program h2 = clCreateProgramWithSource(ctx, 1, &w2, NULL, &err);
    cl_program h3 = clCreateProgramWithSource(ctx, 1, &w3, NULL, &err);
    REQUIRE(h2 && h3, "header programs");
    const cl_program hs[] = {h2, h3};
    const char *names[] = {"w.h", "w.h"};
    char opts[128];
    snprintf(opts, sizeof(opts), "-I %s", dir);
    err = clCompileProgram(p, 0, NULL, opts, 2, hs, names, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "embedded w.h before -I's, the first of two: %d\n%s", err,
           build_log(p));
    clReleaseProgram(h2);
    clReleaseProgram(h3);
    clReleaseProgram(p);
    remove_tree(dir);
    /* A build's warnings, and the same in a build served from the cache. */
    static const char *warn = "#warning \"hcqcl-log-check-1\"\n"
                              "kernel void k(global int *o) { o[0] = 5; }\n";
    for (int round = 0; round < 2; round++) {
        p = built(warn, NULL);
        EXPECT(strstr(build_log(p), "hcqcl-log-check-1"), "build %d: log without the warning:\n%s",
               round, build_log(p));
        clReleaseProgram(p);
    }
    /* The predefined macros; a program of a helper function only. */
    static const char *macros = "#if __OPENCL_VERSION__ != 300 || !defined(__IMAGE_SUPPORT__)\n"
                                "#error \"predefined macros\"\n#endif\n"
                                "int helper(int x) { return x * 3; }\n";
    p = clCreateProgramWithSource(ctx, 1, &macros, NULL, &err);
    REQUIRE(p, "source: %d", err);
    err = clBuildProgram(p, 0, NULL, NULL, NULL, NULL);
    EXPECT(err == CL_SUCCESS, "a program with no kernels: %d\n%s", err, build_log(p));
    nk = 9;
    EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL));
    EXPECT(nk == 0, "no kernels: %zu", nk);
    clReleaseProgram(p);
}

static void test_two_devices(cl_platform_id plat)
{
    cl_device_id devs[2];
    cl_uint n = 0;
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 2, devs, &n) != CL_SUCCESS || n < 2) {
        printf("api_program: one device: two-device programs not tested\n");
        return;
    }
    cl_int err, st[2] = {1, 1};
    cl_context c2 = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
    REQUIRE(c2, "two-device context: %d", err);
    size_t lens[2] = {cubin_size, cubin_size};
    const unsigned char *bins[2] = {cubin, cubin};
    cl_program p = clCreateProgramWithBinary(c2, 2, devs, lens, bins, st, &err);
    EXPECT(p && err == CL_SUCCESS && st[0] == CL_SUCCESS && st[1] == CL_SUCCESS,
           "two binaries: %d (%d %d)", err, st[0], st[1]);
    /* One bad binary: its own status says so. */
    uint8_t junk[64] = {0x7f, 'E', 'L', 'F'};
    const unsigned char *mixed[2] = {cubin, junk};
    size_t mixed_lens[2] = {cubin_size, sizeof(junk)};
    EXPECT(!clCreateProgramWithBinary(c2, 2, devs, mixed_lens, mixed, st, &err), "mixed");
    EXPECT(err == CL_INVALID_BINARY && st[0] == CL_SUCCESS && st[1] == CL_INVALID_BINARY,
           "mixed binaries: %d (%d %d)", err, st[0], st[1]);
    /* One empty entry: the call fails, and every entry is answered. */
    const unsigned char *one_null[2] = {cubin, NULL};
    st[0] = st[1] = 1;
    EXPECT(!clCreateProgramWithBinary(c2, 2, devs, lens, one_null, st, &err), "one NULL");
    EXPECT(err == CL_INVALID_VALUE && st[0] == CL_SUCCESS && st[1] == CL_INVALID_VALUE,
           "one NULL binary: %d (%d %d)", err, st[0], st[1]);
    size_t one_zero[2] = {sizeof(junk), 0};
    const unsigned char *junk_first[2] = {junk, cubin};
    st[0] = st[1] = 1;
    EXPECT(!clCreateProgramWithBinary(c2, 2, devs, one_zero, junk_first, st, &err), "one empty");
    EXPECT(err == CL_INVALID_VALUE && st[0] == CL_INVALID_BINARY && st[1] == CL_INVALID_VALUE,
           "one empty, one bad: %d (%d %d)", err, st[0], st[1]);
    if (p) {
        EXPECT_OK(clBuildProgram(p, 1, &devs[1], NULL, NULL, NULL));
        cl_build_status bs = 0;
        EXPECT_OK(clGetProgramBuildInfo(p, devs[0], CL_PROGRAM_BUILD_STATUS, sizeof(bs), &bs, NULL));
        EXPECT(bs == CL_BUILD_NONE, "device 0 not built yet: %d", bs);
        /* Built for one device of the two: a NULL device still names no
         * single one ("the list of devices in the OpenCL context that is
         * associated with kernel"). */
        cl_kernel k1 = clCreateKernel(p, "vadd", &err);
        EXPECT(k1 && err == CL_SUCCESS, "kernel built for one device: %d", err);
        if (k1) {
            size_t wg1 = 0;
            EXPECT_ERR(clGetKernelWorkGroupInfo(k1, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg1),
                                                &wg1, NULL),
                       CL_INVALID_DEVICE);
            clReleaseKernel(k1);
        }
        EXPECT_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));
        size_t sizes[2] = {0, 0};
        EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(sizes), sizes, NULL));
        EXPECT(sizes[0] && sizes[0] == sizes[1], "binary sizes %zu %zu", sizes[0], sizes[1]);
        unsigned char *out[2] = {malloc(sizes[0]), NULL}; /* NULL: skip device 1 */
        EXPECT_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(out), out, NULL));
        EXPECT(out[0] && !memcmp(out[0], "HCQCLPRG", 8), "device 0 binary");
        free(out[0]);
        cl_kernel k = clCreateKernel(p, "vadd", &err);
        EXPECT(k && err == CL_SUCCESS, "kernel on two devices: %d", err);
        if (k) {
            size_t wg = 0;
            EXPECT_ERR(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg,
                                                NULL),
                       CL_INVALID_DEVICE);
            /* The same rule for sub-group queries, before their "not supported". */
            size_t sg = 0;
            EXPECT_ERR(clGetKernelSubGroupInfo(k, NULL, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                               sizeof(sg), &sg, NULL),
                       CL_INVALID_DEVICE);
            EXPECT_OK(clGetKernelWorkGroupInfo(k, devs[1], CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg),
                                               &wg, NULL));
            clReleaseKernel(k);
        }
        clReleaseProgram(p);
    }
    /* Device 1's binary without the vadd kernels (renamed vaxd): "Kernel
     * objects are not created for any __kernel functions in program that
     * do not have the same function definition across all devices". */
    uint8_t *renamed = malloc(cubin_size);
    REQUIRE(renamed, "copy of the cubin");
    memcpy(renamed, cubin, cubin_size);
    for (size_t i = 0; i + 4 <= cubin_size; i++)
        if (!memcmp(renamed + i, "vadd", 4))
            renamed[i + 2] = 'x';
    const unsigned char *diff_bins[2] = {cubin, renamed};
    cl_program pd = clCreateProgramWithBinary(c2, 2, devs, lens, diff_bins, st, &err);
    EXPECT(pd && err == CL_SUCCESS, "binaries that differ: %d (%d %d)", err, st[0], st[1]);
    if (pd) {
        EXPECT_OK(clBuildProgram(pd, 0, NULL, NULL, NULL, NULL));
        char names[4096] = "";
        EXPECT_OK(clGetProgramInfo(pd, CL_PROGRAM_KERNEL_NAMES, sizeof(names), names, NULL));
        cl_uint all = 0, with_vadd = 0;
        for (char *t = strtok(names, ";"); t; t = strtok(NULL, ";"))
            all++, with_vadd += strstr(t, "vadd") != NULL;
        /* Only the kernels clCreateKernel makes are named: not the vadd*
         * ones, whose definitions differ. */
        EXPECT(all && !with_vadd, "%u kernels named, %u of them vadd*", all, with_vadd);
        cl_uint nk = 0;
        EXPECT_OK(clCreateKernelsInProgram(pd, 0, NULL, &nk));
        EXPECT(nk == all, "clCreateKernelsInProgram counts %u, CL_PROGRAM_KERNEL_NAMES %u", nk,
               all);
        /* CL_PROGRAM_NUM_KERNELS: "the number of kernels declared in
         * program that can be created with clCreateKernel". */
        size_t num = 0;
        EXPECT_OK(clGetProgramInfo(pd, CL_PROGRAM_NUM_KERNELS, sizeof(num), &num, NULL));
        EXPECT(num == nk, "CL_PROGRAM_NUM_KERNELS %zu, clCreateKernelsInProgram %u", num, nk);
        cl_kernel ks[256];
        if (nk <= 256) {
            EXPECT_OK(clCreateKernelsInProgram(pd, nk, ks, NULL));
            for (cl_uint i = 0; i < nk; i++) {
                char kn[128] = "";
                EXPECT_OK(clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof(kn), kn, NULL));
                EXPECT(!strstr(kn, "vadd"), "kernel %s made though it differs", kn);
                clReleaseKernel(ks[i]);
            }
        }
        EXPECT(!clCreateKernel(pd, "vadd", &err) && err == CL_INVALID_KERNEL_DEFINITION,
               "vadd differs: %d", err);
        clReleaseProgram(pd);
    }
    free(renamed);
    /* Linking for every device of the context (device_list NULL): only
     * those an object was compiled for; one input compiled for a device
     * and another not is an error. Units with unresolved externs: only
     * where a compiler is. */
    if (cltest_compiler_here()) {
        const char *ua = "int twice(int v) { return 2 * v; }\n";
        const char *ub = "int twice(int v);\nkernel void t(global int *o) { o[0] = twice(o[0]); }\n";
        cl_program a = clCreateProgramWithSource(c2, 1, &ua, NULL, &err);
        cl_program b = clCreateProgramWithSource(c2, 1, &ub, NULL, &err);
        REQUIRE(a && b, "sources: %d", err);
        EXPECT_OK(clCompileProgram(a, 1, &devs[0], NULL, 0, NULL, NULL, NULL, NULL));
        EXPECT_OK(clCompileProgram(b, 1, &devs[0], NULL, 0, NULL, NULL, NULL, NULL));
        cl_program in[] = {a, b};
        cl_program x = clLinkProgram(c2, 0, NULL, NULL, 2, in, NULL, NULL, &err);
        EXPECT(x && err == CL_SUCCESS, "link for the device compiled for: %p, %d", (void *)x, err);
        if (x) {
            cl_build_status bs[2] = {0, 0};
            EXPECT_OK(clGetProgramBuildInfo(x, devs[0], CL_PROGRAM_BUILD_STATUS, sizeof(bs[0]),
                                            &bs[0], NULL));
            EXPECT_OK(clGetProgramBuildInfo(x, devs[1], CL_PROGRAM_BUILD_STATUS, sizeof(bs[1]),
                                            &bs[1], NULL));
            EXPECT(bs[0] == CL_BUILD_SUCCESS && bs[1] == CL_BUILD_NONE,
                   "linked for device 0 only: %d %d", bs[0], bs[1]);
            clReleaseProgram(x);
        }
        /* Compiled for the second device only: its own options serve the
         * link (N comes from them). */
        const char *un = "kernel void n(global int *o) { o[0] = N; }\n";
        cl_program pn = clCreateProgramWithSource(c2, 1, &un, NULL, &err);
        REQUIRE(pn, "source: %d", err);
        EXPECT_OK(clCompileProgram(pn, 1, &devs[1], "-DN=4", 0, NULL, NULL, NULL, NULL));
        x = clLinkProgram(c2, 0, NULL, NULL, 1, &pn, NULL, NULL, &err);
        EXPECT(x && err == CL_SUCCESS, "link for the second device: %p, %d", (void *)x, err);
        if (x)
            clReleaseProgram(x);
        clReleaseProgram(pn);
        EXPECT_OK(clCompileProgram(b, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
        x = clLinkProgram(c2, 0, NULL, NULL, 2, in, NULL, NULL, &err);
        EXPECT(!x && err == CL_INVALID_OPERATION, "device 1 has one object of two: %p, %d",
               (void *)x, err);
        if (x)
            clReleaseProgram(x);
        clReleaseProgram(a);
        clReleaseProgram(b);
    }
    clReleaseContext(c2);
}

int main(void)
{
    REQUIRE(getenv("HCQCL_TEST_DATA"), "HCQCL_TEST_DATA not set");
    cubin = test_data_read("test_kernels.cubin", &cubin_size);
    REQUIRE(cubin, "can't read test_kernels.cubin");
    cl_platform_id plat;
    cltest_setup(&plat, &dev, &ctx, &queue);

    test_binary_errors();
    test_other_creators();
    test_build_and_program_info();
    test_fatbin();
    test_ptx();
    test_kernels();
    test_launch();
    test_source_programs();
    if (cltest_compiler_here()) {
        test_header_dir();
        test_image_sampler_args();
        test_build_rules();
    }
    test_two_devices(plat);

    cltest_teardown(ctx, queue);
    free(cubin);
    return cltest_result("api_program");
}

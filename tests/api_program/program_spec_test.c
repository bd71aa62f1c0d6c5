/*
 * program_spec_test.c — program objects against the specification's
 * wording, rule by rule: build options the compiler would refuse are
 * invalid before a build begins (whether or not a compiler is here), and
 * a program's build log, options and binaries can be queried from
 * another thread while it is built or compiled. (CL_PROGRAM_NUM_KERNELS
 * on two devices is in program_test.c's two-device test.)
 *
 * Arguments: none. Data: ${HCQCL_TEST_DATA}/test_kernels.cubin. Builds
 * from source run where hcqcl-cc and its tool chain are (HCQCL_CC).
 */
#include "../api_platform/cltest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static uint8_t *cubin;
static size_t cubin_size;

static cl_program from_cubin(void)
{
    cl_int err, st;
    const unsigned char *b = cubin;
    cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &cubin_size, &b, &st, &err);
    REQUIRE(p && err == CL_SUCCESS, "program from the test cubin: %d", err);
    return p;
}

static cl_build_status build_status(cl_program p, cl_device_id d)
{
    cl_build_status st = 99;
    EXPECT_OK(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL));
    return st;
}

static atomic_int notified;
static void CL_CALLBACK count_notify(cl_program p, void *user)
{
    (void)p;
    (void)user;
    atomic_fetch_add(&notified, 1);
}

/* ------------------------------------------------------------------ */
/* Build options                                                        */
/* ------------------------------------------------------------------ */

/* Values and spellings hcqcl-cc refuses (cl_nv_compiler_options takes a
 * register count above 0 and an optimisation level of 0 to 3; options
 * split as a shell splits them, a backslash escaping the next character
 * and a quote closing). */
static const char *const refused[] = {
    "-cl-nv-opt-level=9",
    "-cl-nv-opt-level 4",
    "-cl-nv-maxrregcount=0",
    "-cl-nv-maxrregcount abc",
    "-cl-nv-archsm_90",
    "-D \"X=1",
    "-DX=\\\"a b\\\"",
};

/* And what it takes. */
static const char *const taken[] = {
    "-cl-nv-opt-level=3",
    "-cl-nv-opt-level 0",
    "-cl-nv-maxrregcount=32",
    "-cl-nv-maxrregcount 255",
    "-cl-nv-arch sm_90 -cl-nv-arch=sm_90",
    "-D \"X=a b\" -I 'a dir'",
    "-DX=\\\"a\\\" -DY=\"\\\"b c\\\"\"",
};

/* "CL_INVALID_BUILD_OPTIONS if the build options specified by options
 * are invalid", and "The build operation can begin if the context,
 * program whose sources are being compiled and linked, list of devices
 * and build options specified are all valid": an option no build can
 * take is refused before anything begins, with the same error whether a
 * compiler or only a cache is at hand, for every kind of program; no
 * callback runs and the build status stays. */
static void test_refused_options(void)
{
    static const char *src = "kernel void k(global int *o) { o[0] = 1; }\n";
    cl_int err;
    cl_program s = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    REQUIRE(s, "source: %d", err);
    cl_program b = from_cubin();
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        atomic_store(&notified, 0);
        err = clBuildProgram(s, 1, &dev, refused[i], count_notify, NULL);
        EXPECT(err == CL_INVALID_BUILD_OPTIONS, "build with '%s': %d", refused[i], err);
        EXPECT(atomic_load(&notified) == 0, "build with '%s': %d callbacks", refused[i],
               atomic_load(&notified));
        EXPECT(build_status(s, dev) == CL_BUILD_NONE, "build with '%s': status %d", refused[i],
               build_status(s, dev));
        err = clCompileProgram(s, 0, NULL, refused[i], 0, NULL, NULL, count_notify, NULL);
        EXPECT(err == CL_INVALID_COMPILER_OPTIONS, "compile with '%s': %d", refused[i], err);
        EXPECT(atomic_load(&notified) == 0, "compile with '%s': %d callbacks", refused[i],
               atomic_load(&notified));
        EXPECT(build_status(s, dev) == CL_BUILD_NONE, "compile with '%s': status %d", refused[i],
               build_status(s, dev));
        err = clBuildProgram(b, 0, NULL, refused[i], NULL, NULL);
        EXPECT(err == CL_INVALID_BUILD_OPTIONS, "binary built with '%s': %d", refused[i], err);
    }
    for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
        err = clBuildProgram(b, 0, NULL, taken[i], NULL, NULL);
        EXPECT(err == CL_SUCCESS, "binary built with '%s': %d", taken[i], err);
    }
    clReleaseProgram(b);

    if (!cltest_compiler_here()) {
        printf("api_program_spec: no compiler here: builds from source not tested\n");
        clReleaseProgram(s);
        return;
    }
    /* The compiler takes what is taken here. */
    for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
        err = clBuildProgram(s, 0, NULL, taken[i], NULL, NULL);
        EXPECT(err == CL_SUCCESS, "build with '%s': %d", taken[i], err);
    }
    /* An executable built before stays after a refused rebuild. */
    err = clBuildProgram(s, 0, NULL, NULL, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "build: %d", err);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        atomic_store(&notified, 0);
        EXPECT_ERR(clBuildProgram(s, 0, NULL, refused[i], count_notify, NULL),
                   CL_INVALID_BUILD_OPTIONS);
        EXPECT(atomic_load(&notified) == 0, "rebuild with '%s': %d callbacks", refused[i],
               atomic_load(&notified));
        EXPECT(build_status(s, dev) == CL_BUILD_SUCCESS, "rebuild with '%s': status %d",
               refused[i], build_status(s, dev));
        size_t nk = 0;
        EXPECT_OK(clGetProgramInfo(s, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL));
        EXPECT(nk == 1, "rebuild with '%s': %zu kernels", refused[i], nk);
    }
    clReleaseProgram(s);
}

/* ------------------------------------------------------------------ */
/* Queries while another thread builds                                  */
/* ------------------------------------------------------------------ */

/* "All other OpenCL API calls are thread-safe" (only clSetKernelArg and
 * a few others that change kernel or command-buffer objects are not):
 * clGetProgramBuildInfo and clGetProgramInfo of a program that another
 * thread builds or compiles read a consistent log, options and binary. */
struct reader {
    cl_program p;
    atomic_bool stop;
    unsigned long reads;
};

static void *read_while_building(void *arg)
{
    struct reader *r = arg;
    const size_t cap = 1 << 20;
    char *buf = malloc(cap);
    unsigned char *bin = malloc(cap);
    REQUIRE(buf && bin, "host");
    while (!atomic_load(&r->stop)) {
        size_t n = 0, size = 0;
        EXPECT_OK(clGetProgramBuildInfo(r->p, dev, CL_PROGRAM_BUILD_LOG, cap, buf, &n));
        EXPECT(n >= 1 && n <= cap && buf[n - 1] == '\0', "log of %zu bytes", n);
        EXPECT_OK(clGetProgramBuildInfo(r->p, dev, CL_PROGRAM_BUILD_OPTIONS, cap, buf, &n));
        EXPECT(n >= 1 && n <= cap && buf[n - 1] == '\0', "options of %zu bytes", n);
        EXPECT_OK(clGetProgramInfo(r->p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL));
        EXPECT(size <= cap, "binary of %zu bytes", size);
        EXPECT_OK(clGetProgramInfo(r->p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
        r->reads++;
    }
    free(buf);
    free(bin);
    return NULL;
}

static void test_queries_while_building(void)
{
    if (!cltest_compiler_here())
        return;
    /* A log of some length: a warning per line. */
    const size_t cap = 1 << 16;
    char *src = malloc(cap);
    REQUIRE(src, "host");
    size_t len = 0;
    for (int i = 0; i < 400; i++)
        len += (size_t)snprintf(src + len, cap - len, "#warning \"warning %d of the build\"\n", i);
    len += (size_t)snprintf(src + len, cap - len, "kernel void k(global int *o) { o[0] = X; }\n");
    cl_int err;
    const char *s = src;
    cl_program p = clCreateProgramWithSource(ctx, 1, &s, &len, &err);
    REQUIRE(p, "source: %d", err);
    struct reader r = {.p = p};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, read_while_building, &r) == 0, "reader thread");
    char opts[512];
    for (int i = 0; i < 150; i++) {
        /* Options of two lengths, so each build replaces them. */
        snprintf(opts, sizeof(opts), "-D X=%0*d", i % 2 ? 200 : 1, i % 2);
        err = clBuildProgram(p, 0, NULL, opts, NULL, NULL);
        EXPECT(err == CL_SUCCESS, "build %d: %d", i, err);
        err = clCompileProgram(p, 0, NULL, opts, 0, NULL, NULL, NULL, NULL);
        EXPECT(err == CL_SUCCESS, "compile %d: %d", i, err);
    }
    atomic_store(&r.stop, true);
    pthread_join(t, NULL);
    EXPECT(r.reads > 0, "no queries ran");
    char *log = malloc(cap * 2);
    REQUIRE(log, "host");
    EXPECT_OK(clBuildProgram(p, 0, NULL, "-D X=1", NULL, NULL));
    EXPECT_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, cap * 2, log, NULL));
    EXPECT(strstr(log, "warning 0 of") && strstr(log, "warning 399 of"), "build log:\n%.400s",
           log);
    free(log);
    clReleaseProgram(p);
    free(src);
}

int main(void)
{
    REQUIRE(getenv("HCQCL_TEST_DATA"), "HCQCL_TEST_DATA not set");
    cubin = test_data_read("test_kernels.cubin", &cubin_size);
    REQUIRE(cubin, "can't read test_kernels.cubin");
    cl_platform_id plat;
    cltest_setup(&plat, &dev, &ctx, &queue);

    test_refused_options();
    test_queries_while_building();

    cltest_teardown(ctx, queue);
    free(cubin);
    return cltest_result("api_program_spec");
}

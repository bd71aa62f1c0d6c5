/*
 * cache_test.c — hcqcl_compile_source() and its cache: a miss compiles
 * with hcqcl-cc and stores the container; a hit needs no compiler; a miss
 * without a compiler fails with a log naming the key and leaves the source
 * for `hcqcl-cc --from-spool`, which fills the cache; a damaged entry is
 * ignored; with neither a tool chain nor any cached program the compiler
 * is not available (CL_COMPILER_NOT_AVAILABLE, the device query's
 * answer). Environment is read once per process, so each phase runs in a
 * child process of this test with its own HCQCL_CC / HCQCL_CACHE_DIR.
 *
 * usage: compiler_cache HCQCL-CC WORK_DIR
 */
#include "api/obj.h"
#include "cubin/container.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static int failures;
#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);           \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

#define COMPILER_ID CUBIN_CONTAINER_COMPILER_ID

static const char src_a[] = "kernel void add1(global int *a) { a[get_global_id(0)] += 1; }\n";
static const char src_b[] = "kernel void add2(global int *a) { a[get_global_id(0)] += 2; }\n";
static const char opts_a[] = "-DSTEP=1  -cl-mad-enable";
static const char opts_a_respaced[] = " -DSTEP=1 -cl-mad-enable ";

static bool exists(const char *dir, const char *key, const char *ext)
{
    char p[4096];
    snprintf(p, sizeof(p), "%s/%s%s", dir, key, ext);
    struct stat st;
    return stat(p, &st) == 0;
}

static cl_int build(const char *src, const char *opts, void **c, size_t *n, char **log)
{
    cl_int err = hcqcl_compile_source(src, strlen(src), opts, 0x900, c, n, log);
    if (*c) {
        struct cubin_container *p = NULL;
        EXPECT(cubin_container_parse(*c, *n, &p) == 0 && p->arch == 0x900);
        cubin_container_free(p);
    }
    return err;
}

static void phase_fill(const char *dir)
{
    char ka[65];
    void *c;
    size_t n;
    char *log;
    cubin_container_cache_key(src_a, strlen(src_a), opts_a, 0x900, COMPILER_ID, ka);
    EXPECT(hcqcl_compiler_present());
    EXPECT(hcqcl_compiler_available());
    EXPECT(!exists(dir, ka, ".bin"));
    EXPECT(build(src_a, opts_a, &c, &n, &log) == CL_SUCCESS && c);
    EXPECT(exists(dir, ka, ".bin"));
    free(c);
    free(log);
    /* Errors: nothing is cached. */
    EXPECT(build(src_a, "-cl-not-an-option", &c, &n, &log) == CL_INVALID_BUILD_OPTIONS && !c);
    EXPECT(log && strstr(log, "-cl-not-an-option"));
    free(log);
    const char *bad = "kernel void k(global int *a) { a[0] = missing_name; }";
    EXPECT(build(bad, NULL, &c, &n, &log) == CL_BUILD_PROGRAM_FAILURE && !c);
    EXPECT(log && strstr(log, "missing_name") && strstr(log, "program.cl:1:"));
    EXPECT(log && !strstr(log, "/tmp/"));
    free(log);
    char kbad[65];
    cubin_container_cache_key(bad, strlen(bad), "", 0x900, COMPILER_ID, kbad);
    EXPECT(!exists(dir, kbad, ".bin"));

    /* A program that includes a header: compiled, never cached (the key
     * does not cover the header). */
    char inc_dir[4096], hdr[4200], opts[4200], kinc[65];
    snprintf(inc_dir, sizeof(inc_dir), "%s/include", dir);
    mkdir(inc_dir, 0755);
    snprintf(hdr, sizeof(hdr), "%s/defs.h", inc_dir);
    FILE *f = fopen(hdr, "w");
    fputs("#define STEP 3\n", f);
    fclose(f);
    const char *inc = "#include \"defs.h\"\nkernel void inc(global int *a) { a[0] = STEP; }\n";
    snprintf(opts, sizeof(opts), "-I %s", inc_dir);
    EXPECT(build(inc, opts, &c, &n, &log) == CL_SUCCESS && c);
    free(c);
    free(log);
    cubin_container_cache_key(inc, strlen(inc), opts, 0x900, COMPILER_ID, kinc);
    EXPECT(!exists(dir, kinc, ".bin"));
}

static void phase_no_compiler(const char *dir, bool expect_b)
{
    char ka[65], kb[65];
    void *c;
    size_t n;
    char *log;
    cubin_container_cache_key(src_a, strlen(src_a), opts_a, 0x900, COMPILER_ID, ka);
    cubin_container_cache_key(src_b, strlen(src_b), "", 0x900, COMPILER_ID, kb);
    cl_int err;
    EXPECT(!hcqcl_compiler_present());
    /* The cache is this machine's compiler. */
    EXPECT(hcqcl_compiler_available());
    /* Hit, with options spaced differently. */
    EXPECT(build(src_a, opts_a_respaced, &c, &n, &log) == CL_SUCCESS && c);
    free(c);
    free(log);
    /* Same source for another target: a miss (until the spool is built). */
    err = hcqcl_compile_source(src_a, strlen(src_a), opts_a, 0x800, &c, &n, &log);
    EXPECT(expect_b ? err == CL_SUCCESS : err == CL_BUILD_PROGRAM_FAILURE);
    free(c);
    free(log);
    err = build(src_b, "", &c, &n, &log);
    if (expect_b) {
        EXPECT(err == CL_SUCCESS && c);
    } else {
        EXPECT(err == CL_BUILD_PROGRAM_FAILURE && !c);
        EXPECT(log && strstr(log, kb) && strstr(log, "--from-spool"));
        EXPECT(exists(dir, kb, ".cl") && exists(dir, kb, ".build"));
    }
    free(c);
    free(log);
}

static void phase_corrupt(const char *dir)
{
    char ka[65], p[4096];
    void *c;
    size_t n;
    char *log;
    cubin_container_cache_key(src_a, strlen(src_a), opts_a, 0x900, COMPILER_ID, ka);
    snprintf(p, sizeof(p), "%s/%s.bin", dir, ka);
    EXPECT(truncate(p, 100) == 0);
    EXPECT(build(src_a, opts_a, &c, &n, &log) == CL_BUILD_PROGRAM_FAILURE && !c);
    free(log);
}

/* An empty cache and no usable tool chain (no hcqcl-cc, or one without
 * clang): no compiler; a build from source says so, and the log still
 * says how to precompile. */
static void phase_none(const char *dir)
{
    char kb[65];
    void *c;
    size_t n;
    char *log;
    cubin_container_cache_key(src_b, strlen(src_b), "", 0x900, COMPILER_ID, kb);
    EXPECT(!hcqcl_compiler_available());
    EXPECT(build(src_b, "", &c, &n, &log) == CL_COMPILER_NOT_AVAILABLE && !c);
    EXPECT(log && strstr(log, kb));
    free(c);
    free(log);
    /* The spooled source is no cached program. */
    EXPECT(exists(dir, kb, ".cl"));
    EXPECT(!hcqcl_compiler_available());
}

/* Ten programs of one shape, kernel k<i>; the i-th's cache key. */
static void numbered(int i, char *src, size_t n, char key[65])
{
    snprintf(src, n, "kernel void k%d(global int *a) { a[get_global_id(0)] += %d; }\n", i, i);
    cubin_container_cache_key(src, strlen(src), "", 0x900, COMPILER_ID, key);
}

/* The size of one numbered program's container (the parent's measure for
 * the limit of phase_trim). */
static void phase_probe(const char *dir)
{
    char src[256], key[65];
    numbered(0, src, sizeof(src), key);
    void *c = NULL;
    size_t n = 0;
    char *log = NULL;
    EXPECT(build(src, "", &c, &n, &log) == CL_SUCCESS && exists(dir, key, ".bin"));
    free(c);
    free(log);
}

/* HCQCL_CACHE_MAXSIZE is five such containers: building ten, with the
 * first used again before each, keeps the cache within the limit, keeps
 * the first (used last) and the newest, and lets the oldest unused go. */
static void phase_trim(const char *dir)
{
    const uint64_t limit = hcqcl_cache_limit();
    EXPECT(limit > 0);
    char src[256], key[10][65];
    for (int i = 0; i < 10; i++) {
        void *c = NULL;
        size_t n = 0;
        char *log = NULL;
        if (i > 0) {
            /* A hit, which marks the first program used. With clang
             * hidden from hcqcl-cc, a miss (the program removed) would
             * fail. */
            numbered(0, src, sizeof(src), key[0]);
            setenv("HCQCL_CLANG", "/nonexistent/clang-16", 1);
            EXPECT(build(src, "", &c, &n, &log) == CL_SUCCESS);
            unsetenv("HCQCL_CLANG");
            free(c);
            free(log);
            c = NULL;
            log = NULL;
        }
        numbered(i, src, sizeof(src), key[i]);
        EXPECT(build(src, "", &c, &n, &log) == CL_SUCCESS);
        free(c);
        free(log);
    }
    uint64_t total = 0;
    int kept = 0;
    for (int i = 0; i < 10; i++) {
        char p[4096];
        snprintf(p, sizeof(p), "%s/%s.bin", dir, key[i]);
        struct stat st;
        if (stat(p, &st) == 0) {
            total += (uint64_t)st.st_size;
            kept++;
        }
    }
    EXPECT(total <= limit);
    EXPECT(kept >= 3 && kept < 10);
    EXPECT(exists(dir, key[0], ".bin") && exists(dir, key[9], ".bin"));
    EXPECT(!exists(dir, key[1], ".bin") && !exists(dir, key[2], ".bin"));
}

static int child(const char *self, const char *mode, const char *cc, const char *dir)
{
    char e_cc[4200], e_dir[4200];
    snprintf(e_cc, sizeof(e_cc), "HCQCL_CC=%s", cc);
    snprintf(e_dir, sizeof(e_dir), "HCQCL_CACHE_DIR=%s", dir);
    char *env[256];
    size_t n = 0;
    for (char **e = environ; *e && n < 250; e++)
        if (strncmp(*e, "HCQCL_CC=", 9) && strncmp(*e, "HCQCL_CACHE_DIR=", 16))
            env[n++] = *e;
    env[n++] = e_cc;
    env[n++] = e_dir;
    env[n] = NULL;
    char *argv[] = { (char *)self, (char *)mode, (char *)cc, (char *)dir, NULL };
    pid_t pid;
    if (posix_spawn(&pid, self, NULL, NULL, argv, env) != 0)
        return -1;
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s parent HCQCL-CC WORK_DIR\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1], *cc = argv[2], *dir = argv[3];
    if (!strcmp(mode, "fill"))
        phase_fill(dir);
    else if (!strcmp(mode, "nocc"))
        phase_no_compiler(dir, false);
    else if (!strcmp(mode, "nocc-spooled"))
        phase_no_compiler(dir, true);
    else if (!strcmp(mode, "corrupt"))
        phase_corrupt(dir);
    else if (!strcmp(mode, "none"))
        phase_none(dir);
    else if (!strcmp(mode, "probe"))
        phase_probe(dir);
    else if (!strcmp(mode, "trim"))
        phase_trim(dir);
    if (strcmp(mode, "parent"))
        return failures ? 1 : 0;

    /* Parent: a fresh cache directory, then the phases in order. */
    char cmd[8400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    /* Probe the tool chain: without it there is nothing to test. */
    snprintf(cmd, sizeof(cmd), "'%s' --emit=llvm -o /dev/null /dev/null >/dev/null 2>&1; test $? -ne 3", cc);
    if (system(cmd) != 0) {
        printf("skipped: hcqcl-cc's tool chain is missing\n");
        return 77;
    }
    EXPECT(child(argv[0], "fill", cc, dir) == 0);
    EXPECT(child(argv[0], "nocc", "/nonexistent/hcqcl-cc", dir) == 0);
    snprintf(cmd, sizeof(cmd), "'%s' --from-spool='%s'", cc, dir);
    EXPECT(system(cmd) == 0);
    EXPECT(child(argv[0], "nocc-spooled", "/nonexistent/hcqcl-cc", dir) == 0);
    EXPECT(child(argv[0], "corrupt", "/nonexistent/hcqcl-cc", dir) == 0);
    char empty[2048];
    snprintf(empty, sizeof(empty), "%s-empty", dir);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", empty, empty);
    EXPECT(system(cmd) == 0);
    EXPECT(child(argv[0], "none", "/nonexistent/hcqcl-cc", empty) == 0);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", empty, empty);
    EXPECT(system(cmd) == 0);
    setenv("HCQCL_CLANG", "/nonexistent/clang-16", 1);
    EXPECT(child(argv[0], "none", cc, empty) == 0);
    unsetenv("HCQCL_CLANG");
    /* The size limit: five containers of the numbered programs' size. */
    char trim[2048];
    snprintf(trim, sizeof(trim), "%s-trim", dir);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", trim, trim);
    EXPECT(system(cmd) == 0);
    EXPECT(child(argv[0], "probe", cc, trim) == 0);
    char key0[65], src0[256], bin0[4200];
    numbered(0, src0, sizeof(src0), key0);
    snprintf(bin0, sizeof(bin0), "%s/%s.bin", trim, key0);
    struct stat st;
    EXPECT(stat(bin0, &st) == 0 && st.st_size > 0);
    char max[32];
    snprintf(max, sizeof(max), "%lld", (long long)st.st_size * 5 + (long long)st.st_size / 2);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", trim, trim);
    EXPECT(system(cmd) == 0);
    setenv("HCQCL_CACHE_MAXSIZE", max, 1);
    EXPECT(child(argv[0], "trim", cc, trim) == 0);
    unsetenv("HCQCL_CACHE_MAXSIZE");
    if (failures) {
        fprintf(stderr, "compiler_cache: %d failure(s)\n", failures);
        return 1;
    }
    printf("compiler_cache: ok\n");
    return 0;
}

/*
 * check.h — the checks every test program shares: expectations that
 * report file:line and count failures, fatal requirements, the summary
 * line, and files from the build's test data (HCQCL_TEST_DATA).
 *
 * Header-only (static functions): each test program includes it once, from
 * its main thread; EXPECT may also be used from other threads of a test
 * that joins them before check_done (the counter is atomic).
 */
#ifndef HCQCL_TESTS_COMMON_CHECK_H
#define HCQCL_TESTS_COMMON_CHECK_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int failures;

/* fmt is " " followed by the caller's format (see EXPECT): a lone " "
 * means the caller gave no message. A fatal failure exits. */
static void check_fail(const char *file, int line, const char *cond, bool fatal,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6), unused));
static void check_fail(const char *file, int line, const char *cond, bool fatal,
                       const char *fmt, ...)
{
    atomic_fetch_add(&failures, 1);
    if (!fmt[1]) {
        fprintf(stderr, "%s:%d: %s %s\n", file, line, fatal ? "required" : "expected", cond);
    } else {
        fprintf(stderr, "%s:%d: FAIL (%s): ", file, line, cond);
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt + 1, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    if (fatal)
        exit(1);
}

/* EXPECT(cond) or EXPECT(cond, "fmt", ...): count a failure and go on.
 * The message, when given, must start with a string literal. */
#define EXPECT(cond, ...)                                                                 \
    do {                                                                                  \
        if (!(cond))                                                                      \
            check_fail(__FILE__, __LINE__, #cond, false, " " __VA_ARGS__);                \
    } while (0)
/* Integers compared as unsigned long long, both printed in hex. */
#define EXPECT_EQ(a, b)                                                                   \
    do {                                                                                  \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);    \
        if (a_ != b_) {                                                                   \
            fprintf(stderr, "%s:%d: %s = 0x%llx, expected 0x%llx\n", __FILE__, __LINE__, \
                    #a, a_, b_);                                                          \
            atomic_fetch_add(&failures, 1);                                               \
        }                                                                                 \
    } while (0)
/* REQUIRE(cond) or REQUIRE(cond, "fmt", ...): stop the test, later steps
 * depend on this one. */
#define REQUIRE(cond, ...)                                                                \
    do {                                                                                  \
        if (!(cond))                                                                      \
            check_fail(__FILE__, __LINE__, #cond, true, " " __VA_ARGS__);                 \
    } while (0)

/* A named check as one result line on stdout, "PASS name: detail" or
 * "FAIL name: detail" (the GPU tests' report format); counts a failure. */
static void check_report(bool ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), unused));
static void check_report(bool ok, const char *name, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    printf("%s %s: %s\n", ok ? "PASS" : "FAIL", name, detail);
    fflush(stdout);
    if (!ok)
        atomic_fetch_add(&failures, 1);
}

/* main's exit status: 0 when no check failed; prints the summary. */
static inline int check_done(const char *name)
{
    int n = atomic_load(&failures);
    if (n) {
        fprintf(stderr, "%s: %d failure(s)\n", name, n);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

/* Path of a test data file: $HCQCL_TEST_DATA/<name> (. when unset). */
static inline const char *test_data_path(const char *name, char *buf, size_t size)
{
    const char *dir = getenv("HCQCL_TEST_DATA");
    snprintf(buf, size, "%s/%s", dir ? dir : ".", name);
    return buf;
}

/* A file read whole into malloc'd memory (caller frees), its length in
 * *size; NULL (with a message) when it can't be read. */
static inline void *test_file_read(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return NULL;
    }
    char *b = NULL;
    long n = -1;
    /* One byte more, zero: text files can be read as strings. */
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        b = calloc(1, (size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (!b)
        fprintf(stderr, "cannot read %s\n", path);
    else
        *size = (size_t)n;
    return b;
}

/* test_file_read of $HCQCL_TEST_DATA/<name>. */
static inline void *test_data_read(const char *name, size_t *size)
{
    char path[4096];
    return test_file_read(test_data_path(name, path, sizeof(path)), size);
}

/* test_data_read, or exit(1): for data the whole test needs. */
static inline void *test_data_load(const char *name, size_t *size)
{
    void *b = test_data_read(name, size);
    if (!b)
        exit(1);
    return b;
}

#endif

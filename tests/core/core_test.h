/*
 * core_test.h — shared by the core tests: expectations that count
 * failures, and bring-up of the first device hcq_enumerate finds (the
 * emulated device in CI, the real GPU when run there).
 */
#ifndef HCQCL_TESTS_CORE_TEST_H
#define HCQCL_TESTS_CORE_TEST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/priv.h"

static int failures;
#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);           \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)
#define EXPECT_EQ(a, b)                                                                   \
    do {                                                                                  \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);    \
        if (a_ != b_) {                                                                   \
            fprintf(stderr, "%s:%d: %s = 0x%llx, expected 0x%llx\n", __FILE__, __LINE__, \
                    #a, a_, b_);                                                          \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)
/* Stop the test: later steps depend on this one. */
#define REQUIRE(cond)                                                                     \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: required %s\n", __FILE__, __LINE__, #cond);           \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* The first device, opened. */
static inline struct hcq_device *core_test_device(void)
{
    struct hcq_device *const *devs;
    unsigned n;
    hcq_enumerate(&devs, &n);
    if (!n) {
        fprintf(stderr, "no device: %s\n", hcq_enumerate_error());
        exit(1);
    }
    REQUIRE(hcq_device_open(devs[0]) == 0);
    return devs[0];
}

static inline int core_test_done(const char *name)
{
    if (failures) {
        fprintf(stderr, "%s: %d failure(s)\n", name, failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

#endif

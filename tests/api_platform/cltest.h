/*
 * cltest.h — checks for the black-box tests that reach hcqcl through the
 * ICD loader: check.h's EXPECT/REQUIRE (with an optional message), the
 * OpenCL error-code forms, and cl_setup.h's platform/context/queue set-up.
 */
#ifndef HCQCL_TESTS_CLTEST_H
#define HCQCL_TESTS_CLTEST_H

#include <stdio.h>

#include "check.h"
#include "cl_setup.h"

#define EXPECT_ERR(call, want)                                                            \
    do {                                                                                  \
        cl_int e_ = (call);                                                               \
        EXPECT(e_ == (want), "%s returned %d, expected %d", #call, (int)e_, (int)(want)); \
    } while (0)
#define EXPECT_OK(call) EXPECT_ERR(call, CL_SUCCESS)

/* main's exit status (check_done under the name the loader tests use). */
static inline int cltest_result(const char *name) { return check_done(name); }

#endif

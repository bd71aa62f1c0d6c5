/*
 * unit_setup.h — set-up shared by the white-box tests (hcqcl_unit_test:
 * linked against hcqcl_internal, no loader): the devices hcqcl found and a
 * context on some of them.
 *
 * Header-only; call from the test's main thread after including
 * "api/obj.h". Set-up failures are fatal (REQUIRE of check.h).
 */
#ifndef HCQCL_TESTS_COMMON_UNIT_SETUP_H
#define HCQCL_TESTS_COMMON_UNIT_SETUP_H

#include "check.h"

/* Every device hcqcl found (*n of them, at least one). */
static inline cl_device_id *unit_devices(cl_uint *n)
{
    cl_device_id *devs = NULL;
    *n = 0;
    hcqcl_platform_get();
    hcqcl_device_list(&devs, n);
    REQUIRE(*n > 0, "no device (%s)", hcq_enumerate_error());
    return devs;
}

/* A context on devs[0 .. n). */
static inline cl_context unit_context(cl_uint n, const cl_device_id *devs)
{
    cl_int err = CL_SUCCESS;
    cl_context ctx = hcqcl_clCreateContext(NULL, n, devs, NULL, NULL, &err);
    REQUIRE(ctx && err == CL_SUCCESS, "context: %d", err);
    return ctx;
}

/* An in-order queue on dev. */
static inline cl_command_queue unit_queue(cl_context ctx, cl_device_id dev)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q = hcqcl_clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q && err == CL_SUCCESS, "queue: %d", err);
    return q;
}

#endif

/*
 * unit_setup.h — set-up shared by the white-box tests (hcqcl_unit_test:
 * linked against hcqcl_internal, no loader): the devices hcqcl found, a
 * context on some of them, an in-order queue, and (with park.h) the
 * event notifier parked.
 *
 * Header-only; call from the test's main thread after including
 * "api/obj.h". Set-up failures are fatal (REQUIRE of check.h).
 */
#ifndef HCQCL_TESTS_COMMON_UNIT_SETUP_H
#define HCQCL_TESTS_COMMON_UNIT_SETUP_H

#include <stdlib.h>

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

/* Expects the n floats of buffer m, read through q, all to equal want. */
static inline void unit_check_floats(cl_command_queue q, cl_mem m, size_t n, float want,
                                     const char *what)
{
    float *h = malloc(n * sizeof(*h));
    REQUIRE(h, "no memory");
    REQUIRE(hcqcl_clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(*h), h, 0, NULL, NULL) ==
                CL_SUCCESS,
            "read");
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += h[i] != want;
    EXPECT(bad == 0, "%s: %zu values off (first %g, want %g)", what, bad, h[0], want);
    free(h);
}

#ifdef HCQCL_TESTS_COMMON_PARK_H
/* Parks hcqcl's event notifier in park (park.h, included before this):
 * from here the only tracker passes are those the test's calls make,
 * until it stores 2 in parked. */
static inline void unit_park_notifier(cl_context ctx)
{
    cl_int err;
    cl_event u0 = hcqcl_clCreateUserEvent(ctx, &err);
    REQUIRE(u0, "user event: %d", err);
    REQUIRE(hcqcl_clSetEventCallback(u0, CL_COMPLETE, park, NULL) == CL_SUCCESS, "callback");
    REQUIRE(hcqcl_clSetUserEventStatus(u0, CL_COMPLETE) == CL_SUCCESS, "set");
    for (int i = 0; i < 10000 && !atomic_load(&parked); i++)
        usleep(1000);
    REQUIRE(atomic_load(&parked) == 1, "the notifier did not run the callback");
    hcqcl_clReleaseEvent(u0);
}

/* With the notifier parked: sets user event u complete and makes one
 * tracker pass (a status query on e makes it); whether e was decided to
 * run in it. */
static inline bool unit_set_and_pass(cl_event u, cl_event e)
{
    EXPECT(hcqcl_clSetUserEventStatus(u, CL_COMPLETE) == CL_SUCCESS, "set");
    cl_int st = 0;
    EXPECT(hcqcl_clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) ==
               CL_SUCCESS,
           "status");
    return atomic_load(&e->decided);
}
#endif

#endif

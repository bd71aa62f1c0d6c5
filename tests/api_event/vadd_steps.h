/*
 * vadd_steps.h — what the event tests share: vadd from tests/kernels
 * enqueued as one step c = a + b + add over n floats (1024 work-items in
 * groups of 128), an event's status, and the host clock.
 */
#ifndef HCQCL_TESTS_VADD_STEPS_H
#define HCQCL_TESTS_VADD_STEPS_H

#include "../api_platform/cltest.h"

#include <stdint.h>
#include <time.h>

/* vadd's arguments: c = a + b + add over n floats. */
static inline void vadd_args(cl_kernel k, cl_mem a, cl_mem b, cl_mem c, int add, int n)
{
    EXPECT_OK(clSetKernelArg(k, 0, sizeof(a), &a));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(b), &b));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(c), &c));
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(add), &add));
    EXPECT_OK(clSetKernelArg(k, 4, sizeof(n), &n));
}

/* c = a + b + add over n floats on q after the wait list; e may be NULL. */
static inline void vadd_step(cl_command_queue q, cl_kernel k, cl_mem a, cl_mem b, cl_mem c,
                             int add, int n, cl_uint nw, const cl_event *wl, cl_event *e)
{
    vadd_args(k, a, b, c, add, n);
    const size_t g = 1024, l = 128;
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, nw, wl, e));
}

static inline cl_int status_of(cl_event e)
{
    cl_int s = 1234;
    EXPECT_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(s), &s, NULL));
    return s;
}

static inline uint64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif

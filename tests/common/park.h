/*
 * park.h — a callback that keeps hcqcl's event notifier, the thread that
 * runs callbacks, until the test lets go: meanwhile no tracker pass runs
 * but those the test's own calls make. Include after the OpenCL headers;
 * set a user event with park as its callback, wait for parked to read 1,
 * store 2 to let go.
 */
#ifndef HCQCL_TESTS_COMMON_PARK_H
#define HCQCL_TESTS_COMMON_PARK_H

#include <stdatomic.h>
#include <unistd.h>

static atomic_int parked; /* 0, 1 parked, 2 let go */

static void CL_CALLBACK park(cl_event e, cl_int status, void *arg)
{
    (void)e, (void)status, (void)arg;
    atomic_store(&parked, 1);
    while (atomic_load(&parked) != 2)
        usleep(100);
}

#endif

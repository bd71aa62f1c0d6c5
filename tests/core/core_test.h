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
#include "check.h"

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

/* size bytes of host memory the GPU maps, zeroed. */
static inline struct hcq_mem *core_test_zeroed(struct hcq_device *dev, uint64_t size)
{
    struct hcq_mem *m;
    REQUIRE(hcq_mem_alloc(dev, size, HCQ_MEM_HOST, &m) == 0);
    memset(m->cpu, 0, size);
    return m;
}

/* A copy queue with a small ring (64 entries), pb_bytes of pushbuffer and
 * 8 KiB of scratch, so that tests reach their ends quickly; *words: a
 * zeroed 4 KiB buffer for it to write (*m, freed by the caller). */
static inline struct hcq_queue *core_test_small_queue(struct hcq_device *dev, uint32_t pb_bytes,
                                                      struct hcq_mem **m, uint32_t **words)
{
    struct hcq_queue *q;
    REQUIRE(hcq_queue_create_sized(dev, HCQ_ENGINE_COPY, 64, pb_bytes, 8192, &q) == 0);
    *m = core_test_zeroed(dev, 4096);
    *words = (*m)->cpu;
    return q;
}

static inline int core_test_done(const char *name) { return check_done(name); }

#endif

/*
 * pb_words.h — what the white-box tests read back from a pushbuffer.
 */
#ifndef HCQCL_TESTS_COMMON_PB_WORDS_H
#define HCQCL_TESTS_COMMON_PB_WORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "nv/nv.h"

/* Whether the six words at p are a host semaphore acquire (SEM_ADDR_LO
 * and its five words, ACQ_CIRC_GEQ): its address in *va and value in
 * *value, left alone when not. */
static inline bool test_acquire_words(const uint32_t *p, uint64_t *va, uint64_t *value)
{
    if (p[0] != nv_mthd_incr(NV_SUBC_HOST, NVC86F_SEM_ADDR_LO, 5) ||
        (p[5] & 7u) != NVC86F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ)
        return false;
    *va = p[1] | (uint64_t)p[2] << 32;
    *value = p[3] | (uint64_t)p[4] << 32;
    return true;
}

#endif

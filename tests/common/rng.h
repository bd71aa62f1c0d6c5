/*
 * rng.h — the random tests' generator: splitmix64 over a state the test
 * seeds, so a seed names one run exactly.
 */
#ifndef HCQCL_TESTS_COMMON_RNG_H
#define HCQCL_TESTS_COMMON_RNG_H

#include <stdint.h>

/* A number in [0, n) (0 when n is 0), advancing *state. */
static inline uint32_t test_rand(uint64_t *state, uint32_t n)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return n ? (uint32_t)(z % n) : 0;
}

#endif

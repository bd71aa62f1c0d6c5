/*
 * cubin_libfuzzer.c — libFuzzer entry for the cubin parser and the fatbin
 * lookup (built with clang -fsanitize=fuzzer,address,undefined when
 * clang is found; tests/cubin/CMakeLists.txt runs it for a bounded time,
 * seeded with the test cubins). Any input must parse into something whose
 * sections, relocations, kernels and parameters lie inside what the
 * parser allocated, or fail with -EINVAL and a log line; relocating a
 * parsed image must stay in bounds. A violated rule aborts (a finding).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cubin/cubin.h"

#define CUBIN_MUST(cond)                                                                  \
    do {                                                                                  \
        if (!(cond))                                                                      \
            abort();                                                                      \
    } while (0)
#include "consistency.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cubin *cb = NULL;
    char log[200] = "";
    int rc = cubin_parse(data, size, &cb, log, sizeof(log));
    if (rc == 0) {
        CUBIN_MUST(cb != NULL);
        cubin_check_consistent(cb);
    } else {
        CUBIN_MUST(cb == NULL && rc == -EINVAL && log[0] != '\0');
    }
    cubin_free(cb);
    const void *inner = NULL;
    size_t inner_size = 0;
    if (cubin_from_fatbin(data, size, 90, &inner, &inner_size, log, sizeof(log)) == 0)
        CUBIN_MUST((const uint8_t *)inner >= data && inner_size <= size &&
             (size_t)((const uint8_t *)inner - data) <= size - inner_size);
    return 0;
}

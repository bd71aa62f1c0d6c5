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

#define MUST(cond)                                                                        \
    do {                                                                                  \
        if (!(cond))                                                                      \
            abort();                                                                      \
    } while (0)

static void check_consistent(const struct cubin *cb)
{
    for (uint32_t i = 0; i < cb->num_sections; i++)
        MUST(cb->sections[i].offset <= cb->image_size &&
             cb->sections[i].size <= cb->image_size - cb->sections[i].offset);
    for (uint32_t i = 0; i < cb->num_relocs; i++) {
        const struct cubin_reloc *r = &cb->relocs[i];
        uint64_t w = r->type == R_CUDA_32 ? 4 : 8;
        MUST(r->offset <= cb->image_size && w <= cb->image_size - r->offset);
    }
    for (uint32_t i = 0; i < cb->num_kernels; i++) {
        const struct cubin_kernel *k = &cb->kernels[i];
        MUST(k->text_section < cb->num_sections);
        MUST(k->text_offset <= cb->image_size && k->text_size <= cb->image_size - k->text_offset);
        MUST(k->param_base <= k->cbuf0_size && k->param_size <= k->cbuf0_size - k->param_base);
        for (uint32_t j = 0; j < k->num_params; j++)
            MUST(k->params[j].offset <= k->param_size &&
                 k->params[j].size <= k->param_size - k->params[j].offset);
        for (int b = 0; b < CUBIN_CBANKS; b++)
            MUST(k->cbank_section[b] <= cb->num_sections);
    }
    uint8_t *img = malloc(cb->image_size ? cb->image_size : 1);
    MUST(img != NULL);
    memcpy(img, cb->image, cb->image_size);
    cubin_relocate(cb, img, 0x1000000000ull);
    free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cubin *cb = NULL;
    char log[200] = "";
    int rc = cubin_parse(data, size, &cb, log, sizeof(log));
    if (rc == 0) {
        MUST(cb != NULL);
        check_consistent(cb);
    } else {
        MUST(cb == NULL && rc == -EINVAL && log[0] != '\0');
    }
    cubin_free(cb);
    const void *inner = NULL;
    size_t inner_size = 0;
    if (cubin_from_fatbin(data, size, 90, &inner, &inner_size, log, sizeof(log)) == 0)
        MUST((const uint8_t *)inner >= data && inner_size <= size &&
             (size_t)((const uint8_t *)inner - data) <= size - inner_size);
    return 0;
}

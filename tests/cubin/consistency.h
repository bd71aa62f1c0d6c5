/*
 * consistency.h — what a successful cubin_parse() must guarantee, checked
 * by the mutation test (cubin_fuzz.c, under gcc's sanitizers) and the
 * libFuzzer target (cubin_libfuzzer.c): every section, relocation, kernel
 * and parameter lies inside what the parser allocated, and relocating a
 * copy of the image stays in bounds (the sanitizers watch). The includer
 * defines CUBIN_MUST(cond): count a failure, or abort.
 */
#ifndef HCQCL_TESTS_CUBIN_CONSISTENCY_H
#define HCQCL_TESTS_CUBIN_CONSISTENCY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cubin/cubin.h"

static void cubin_check_consistent(const struct cubin *cb)
{
    for (uint32_t i = 0; i < cb->num_sections; i++)
        CUBIN_MUST(cb->sections[i].offset <= cb->image_size &&
                   cb->sections[i].size <= cb->image_size - cb->sections[i].offset);
    for (uint32_t i = 0; i < cb->num_relocs; i++) {
        const struct cubin_reloc *r = &cb->relocs[i];
        uint64_t w = r->type == R_CUDA_32 ? 4 : 8;
        CUBIN_MUST(r->offset <= cb->image_size && w <= cb->image_size - r->offset);
        CUBIN_MUST(r->sym_offset <= cb->image_size);
    }
    for (uint32_t i = 0; i < cb->num_kernels; i++) {
        const struct cubin_kernel *k = &cb->kernels[i];
        CUBIN_MUST(k->text_section < cb->num_sections);
        CUBIN_MUST(k->text_offset <= cb->image_size &&
                   k->text_size <= cb->image_size - k->text_offset);
        CUBIN_MUST(k->param_base <= k->cbuf0_size &&
                   k->param_size <= k->cbuf0_size - k->param_base);
        CUBIN_MUST(k->regs > 0 && k->regs <= 255);
        for (uint32_t j = 0; j < k->num_params; j++)
            CUBIN_MUST(k->params[j].offset <= k->param_size &&
                       k->params[j].size <= k->param_size - k->params[j].offset);
        for (int b = 0; b < CUBIN_CBANKS; b++)
            CUBIN_MUST(k->cbank_section[b] <= cb->num_sections);
    }
    uint8_t *img = malloc(cb->image_size ? cb->image_size : 1);
    CUBIN_MUST(img != NULL);
    if (!img)
        return;
    memcpy(img, cb->image, cb->image_size);
    cubin_relocate(cb, img, 0x1000000000ull);
    free(img);
}

#endif

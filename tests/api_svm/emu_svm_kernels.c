/*
 * emu_svm_kernels.c — CPU versions of svm_kernels.cl's kernels for the
 * emulated device (src/emu/emu_kernel.h), registered with the cubin
 * hcqcl-cc built from that file at build time (embedded here).
 *
 * An SVM pointer argument is a device address equal to the host address
 * clSVMAlloc returned; b->ptr translates it like any other. Parameters
 * at the offsets clang gives them: svm_list_sum(head, out) at 0 and 8,
 * svm_scale(p, s, n) at 0, 8 and 12.
 */
#include <stdint.h>
#include <string.h>

#include "emu/emu_kernel.h"

#define EXPORT __attribute__((visibility("default")))

extern const unsigned char svm_kernels_cubin[];
extern const unsigned long svm_kernels_cubin_size;

/* svm_kernels.cl's struct node. */
struct node {
    uint64_t next;
    int64_t value;
};

/* Work-item 0 walks the list; the bound stops a cycle (which would
 * hang the GPU) from hanging the model. */
static void host_svm_list_sum(const struct emu_block *b)
{
    if (emu_cl_global_id(b, 0, 0) != 0)
        return;
    int64_t *out = b->ptr(b, emu_param_u64(b, 8), 8);
    if (!out)
        return;
    uint64_t s = 0;
    uint64_t va = emu_param_u64(b, 0);
    for (uint32_t steps = 0; va && steps < (1u << 24); steps++) {
        const struct node *n = b->ptr(b, va, sizeof(*n));
        if (!n)
            return;
        s += (uint64_t)n->value; /* wraps as the GPU's add does */
        va = n->next;
    }
    *out = (int64_t)s;
}

static void host_svm_scale(const struct emu_block *b)
{
    uint64_t p = emu_param_u64(b, 0);
    uint32_t bits = emu_param_u32(b, 8), n = emu_param_u32(b, 12);
    float s;
    memcpy(&s, &bits, sizeof(s));
    for (uint32_t t = 0; t < b->block[0]; t++) {
        uint64_t i = emu_cl_global_id(b, 0, t);
        if (i >= n)
            continue;
        float *x = b->ptr(b, p + i * 4, 4);
        if (!x)
            return;
        *x *= s;
    }
}

EXPORT int hcqcl_emu_register_kernels(struct emu_kernel_registry *reg)
{
    int rc = reg->add_cubin(reg, svm_kernels_cubin, svm_kernels_cubin_size);
    if (!rc)
        rc = reg->add(reg, "svm_list_sum", host_svm_list_sum);
    if (!rc)
        rc = reg->add(reg, "svm_scale", host_svm_scale);
    return rc;
}

/*
 * obj.c — the common object header: initialisation, handle validation and
 * the clGet*Info copy-out contract every query shares.
 */
#include "api/obj.h"

#include <string.h>

void hcqcl_obj_init(struct hcqcl_obj *o, enum hcqcl_type type)
{
    o->dispatch = &hcqcl_dispatch;
    o->disp_data = NULL;
    o->type = type;
    atomic_init(&o->refs, 1);
}

/* A handle is ours when it carries our dispatch table and the expected
 * tag. Destroyers clear the tag before freeing, so a stale handle whose
 * memory was not yet reused reads as invalid rather than as live. */
bool hcqcl_obj_valid(const void *h, enum hcqcl_type type)
{
    if (!h)
        return false;
    const struct hcqcl_obj *o = h;
    return o->dispatch == &hcqcl_dispatch && o->type == (uint32_t)type;
}

cl_int hcqcl_info_out(const void *src, size_t size, size_t param_value_size,
                      void *param_value, size_t *param_value_size_ret)
{
    if (param_value) {
        /* CL_INVALID_VALUE if size in bytes specified by param_value_size
         * is < size of return type and param_value is not NULL */
        if (param_value_size < size)
            return CL_INVALID_VALUE;
        if (size)
            memcpy(param_value, src, size);
    }
    if (param_value_size_ret)
        *param_value_size_ret = size;
    return CL_SUCCESS;
}

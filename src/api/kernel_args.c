/*
 * kernel_args.c — clSetKernelArg and the SVM argument entry points.
 *
 * What an argument is comes from the program's binary (struct
 * hcqcl_arg_desc): buffers and __local pointers from the container's
 * address qualifiers or the cubin's KPARAM space; in nvcc cubins every
 * pointer is an 8-byte value of unknown space, so the call itself decides:
 * NULL value with a size is __local, a live cl_mem of the kernel's context
 * is a buffer, anything else is taken as raw bytes. An image argument
 * keeps its image (the launch passes the address of its descriptor on
 * the launching device, image_abi.h, and retains it like a buffer); a
 * sampler argument is its 64-bit HCQCL_SAMPLER_* bits, by value.
 */
#include <string.h>

#include "api/obj.h"

/* A buffer argument: arg_value points at a cl_mem, or is NULL (NULL
 * buffer). *out = the buffer or NULL. */
static cl_int arg_buffer(cl_kernel k, cl_uint i, size_t arg_size, const void *arg_value,
                         cl_mem *out)
{
    /* CL_INVALID_ARG_SIZE if the argument is a memory object and arg_size != sizeof(cl_mem) */
    HCQCL_CHECK(arg_size == sizeof(cl_mem), CL_INVALID_ARG_SIZE, "arg %u: size %zu for a buffer",
                i, arg_size);
    cl_mem m = NULL;
    if (arg_value)
        memcpy(&m, arg_value, sizeof(m));
    if (m) {
        /* CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when arg_value is not a valid memory object */
        HCQCL_CHECK(hcqcl_mem_is_live(m) && hcqcl_mem_valid(m) && m->ctx == k->prog->ctx,
                    CL_INVALID_MEM_OBJECT,
                    "arg %u: %p is not a buffer of the kernel's context", i, (void *)m);
        /* CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when arg_value is not a valid memory object */
        HCQCL_CHECK(m->type == CL_MEM_OBJECT_BUFFER, CL_INVALID_MEM_OBJECT,
                    "arg %u: memory object is not a buffer", i);
    }
    *out = m;
    return CL_SUCCESS;
}

/* An image argument: arg_value points at an image of the kernel's
 * context, of the declared type, whose flags allow the declared access.
 * *out = the image (the launch passes its descriptor's address). */
static cl_int arg_image(cl_kernel k, cl_uint i, const struct hcqcl_arg_desc *ad, size_t arg_size,
                        const void *arg_value, cl_mem *out)
{
    /* CL_INVALID_ARG_SIZE if the argument is a memory object and arg_size != sizeof(cl_mem) */
    HCQCL_CHECK(arg_size == sizeof(cl_mem), CL_INVALID_ARG_SIZE, "arg %u: size %zu for an image",
                i, arg_size);
    cl_mem m = NULL;
    if (arg_value)
        memcpy(&m, arg_value, sizeof(m));
    /* CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the specified arg_value is not a valid memory object */
    HCQCL_CHECK(m && hcqcl_mem_is_live(m) && hcqcl_mem_valid(m) && m->ctx == k->prog->ctx &&
                    hcqcl_mem_is_image(m),
                CL_INVALID_MEM_OBJECT, "arg %u: %p is not an image of the kernel's context", i,
                (void *)m);
    /* "The memory object specified as argument value must be a 2D image
     * object with image channel order = CL_DEPTH if the argument is
     * declared to be of type image2d_depth_t" (a 2D image array with
     * CL_DEPTH for image2d_array_depth_t, a multi-sample image for the
     * MSAA types): those are the types whose image_type is 0, and the
     * device makes no image with CL_DEPTH order or samples, so no image
     * is valid for them. */
    const cl_mem_object_type want = ad->image_type;
    /* CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the specified arg_value is not a valid memory object (an image of another type than the argument's) */
    HCQCL_CHECK(want && want == m->type, CL_INVALID_MEM_OBJECT,
                "arg %u: image of type 0x%x for a %s", i, m->type, ad->type_name);
    if (ad->has_info) {
        /* CL_INVALID_ARG_VALUE if the argument is an image declared with the read_only qualifier and arg_value refers to an image object created with cl_mem_flags of CL_MEM_WRITE_ONLY */
        HCQCL_CHECK(!(ad->access_qual == CL_KERNEL_ARG_ACCESS_READ_ONLY &&
                      (m->flags & CL_MEM_WRITE_ONLY)),
                    CL_INVALID_ARG_VALUE, "arg %u: read_only image argument, WRITE_ONLY image", i);
        /* CL_INVALID_ARG_VALUE if the image argument is declared with the write_only qualifier and arg_value refers to an image object created with cl_mem_flags of CL_MEM_READ_ONLY */
        HCQCL_CHECK(!(ad->access_qual == CL_KERNEL_ARG_ACCESS_WRITE_ONLY &&
                      (m->flags & CL_MEM_READ_ONLY)),
                    CL_INVALID_ARG_VALUE, "arg %u: write_only image argument, READ_ONLY image", i);
    }
    *out = m;
    return CL_SUCCESS;
}

/* A __local argument: only a size. */
static cl_int arg_local(cl_uint i, size_t arg_size, const void *arg_value)
{
    /* CL_INVALID_ARG_VALUE if the argument is declared with the local qualifier and arg_value is not NULL */
    HCQCL_CHECK(!arg_value, CL_INVALID_ARG_VALUE, "arg %u: __local argument with a value", i);
    /* CL_INVALID_ARG_SIZE if arg_size is zero and the argument is declared with the local qualifier */
    HCQCL_CHECK(arg_size > 0, CL_INVALID_ARG_SIZE, "arg %u: __local size 0", i);
    /* CL_MAX_SIZE_RESTRICTION_EXCEEDED if arg_size (local qualifier) exceeds a maximum size restriction */
    HCQCL_CHECK(arg_size <= UINT32_MAX, CL_MAX_SIZE_RESTRICTION_EXCEEDED,
                "arg %u: __local size %zu", i, arg_size);
    return CL_SUCCESS;
}

cl_int hcqcl_clSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                            const void *arg_value)
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "kernel %p", (void *)kernel);
    const struct hcqcl_kernel_desc *desc = kernel->desc;
    /* CL_INVALID_ARG_INDEX if arg_index is not a valid argument index */
    HCQCL_CHECK(arg_index < desc->num_args, CL_INVALID_ARG_INDEX, "arg %u of %u", arg_index,
                desc->num_args);
    const struct hcqcl_arg_desc *ad = &desc->args[arg_index];
    struct hcqcl_arg_value nv = {.set = true};
    cl_int err = CL_SUCCESS;

    switch (ad->kind) {
    case HCQCL_ARG_GLOBAL:
        err = arg_buffer(kernel, arg_index, arg_size, arg_value, &nv.mem);
        break;
    case HCQCL_ARG_LOCAL:
        err = arg_local(arg_index, arg_size, arg_value);
        nv.is_local = true;
        nv.local_size = (uint32_t)arg_size;
        break;
    case HCQCL_ARG_POINTER:
        if (!arg_value && arg_size > 0 && arg_size != sizeof(cl_mem)) {
            err = arg_local(arg_index, arg_size, arg_value);
            nv.is_local = true;
            nv.local_size = (uint32_t)arg_size;
            break;
        }
        if (!arg_value && arg_size == sizeof(cl_mem)) {
            /* Ambiguous in a cubin without address spaces: a NULL buffer
             * and an 8-byte __local array look alike; a buffer is far the
             * commoner use. */
            memset(kernel->values + ad->offset, 0, ad->size);
            break;
        }
        /* CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type */
        HCQCL_CHECK(arg_size == ad->size, CL_INVALID_ARG_SIZE, "arg %u: size %zu, expected %u",
                    arg_index, arg_size, ad->size);
        {
            cl_mem m = NULL;
            memcpy(&m, arg_value, sizeof(m));
            if (hcqcl_mem_is_live(m) && hcqcl_mem_valid(m) && m->ctx == kernel->prog->ctx) {
                nv.mem = m;
                break;
            }
        }
        memcpy(kernel->values + ad->offset, arg_value, ad->size);
        break;
    case HCQCL_ARG_IMAGE:
        err = arg_image(kernel, arg_index, ad, arg_size, arg_value, &nv.mem);
        break;
    case HCQCL_ARG_SAMPLER: {
        /* CL_INVALID_ARG_SIZE if the argument is a sampler and arg_size != sizeof(cl_sampler) */
        HCQCL_CHECK(arg_size == sizeof(cl_sampler), CL_INVALID_ARG_SIZE,
                    "arg %u: size %zu for a sampler", arg_index, arg_size);
        cl_sampler s = NULL;
        if (arg_value)
            memcpy(&s, arg_value, sizeof(s));
        /* CL_INVALID_SAMPLER for an argument declared to be of type sampler_t when the specified arg_value is not a valid sampler object */
        HCQCL_CHECK(hcqcl_sampler_valid(s) && s->ctx == kernel->prog->ctx, CL_INVALID_SAMPLER,
                    "arg %u: %p is not a sampler of the kernel's context", arg_index, (void *)s);
        /* The kernel gets the sampler's bits (image_abi.h), by value. */
        const uint64_t bits = hcqcl_sampler_bits(s);
        memcpy(kernel->values + ad->offset, &bits, UTIL_MIN(ad->size, 8u));
        break;
    }
    case HCQCL_ARG_VALUE:
        /* CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an argument that is not a memory object */
        HCQCL_CHECK(arg_size == ad->size, CL_INVALID_ARG_SIZE, "arg %u: size %zu, expected %u",
                    arg_index, arg_size, ad->size);
        /* CL_INVALID_ARG_VALUE if arg_value specified is not a valid value */
        HCQCL_CHECK(arg_value, CL_INVALID_ARG_VALUE, "arg %u: NULL value", arg_index);
        memcpy(kernel->values + ad->offset, arg_value, arg_size);
        break;
    }
    if (err != CL_SUCCESS)
        return err;
    if (nv.mem)
        nv.mem_serial = nv.mem->serial;
    hcqcl_kernel_arg_store(kernel, arg_index, &nv);
    hcqcl_kernel_args_changed(kernel);
    return CL_SUCCESS;
}

cl_int hcqcl_clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint arg_index, const void *arg_value)
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "kernel %p", (void *)kernel);
    const struct hcqcl_kernel_desc *desc = kernel->desc;
    /* CL_INVALID_ARG_INDEX if arg_index is not a valid argument index */
    HCQCL_CHECK(arg_index < desc->num_args, CL_INVALID_ARG_INDEX, "arg %u of %u", arg_index,
                desc->num_args);
    const struct hcqcl_arg_desc *ad = &desc->args[arg_index];
    /* CL_INVALID_ARG_VALUE if arg_value specified is not a valid value: SVM pointers are for arguments declared to be a pointer to global or constant memory */
    HCQCL_CHECK((ad->kind == HCQCL_ARG_GLOBAL || ad->kind == HCQCL_ARG_POINTER) && ad->size == 8,
                CL_INVALID_ARG_VALUE, "arg %u is not a global or constant pointer", arg_index);
    /* The GPU address of an SVM allocation is its host address: the
     * pointer is the argument's value, whatever allocation it is in. */
    const uint64_t word = (uintptr_t)arg_value;
    memcpy(kernel->values + ad->offset, &word, sizeof(word));
    const struct hcqcl_arg_value nv = {.set = true, .svm = true};
    hcqcl_kernel_arg_store(kernel, arg_index, &nv);
    hcqcl_kernel_args_changed(kernel);
    return CL_SUCCESS;
}

cl_int hcqcl_clSetKernelExecInfo(cl_kernel kernel, cl_kernel_exec_info param_name,
                                 size_t param_value_size, const void *param_value)
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "kernel %p", (void *)kernel);
    switch (param_name) {
    case CL_KERNEL_EXEC_INFO_SVM_PTRS:
        /* CL_INVALID_VALUE if param_value is NULL and param_value_size is greater than zero, or if the size specified by param_value_size is not valid */
        HCQCL_CHECK((param_value || !param_value_size) && param_value_size % sizeof(void *) == 0,
                    CL_INVALID_VALUE, "SVM_PTRS: value %p, %zu bytes", param_value,
                    param_value_size);
        /* Every SVM allocation is mapped on every device of its context
         * for its whole life: pointers the kernel finds in memory need
         * nothing more. */
        return CL_SUCCESS;
    case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
        /* CL_INVALID_VALUE if param_value is NULL or if the size specified by param_value_size is not valid */
        HCQCL_CHECK(param_value && param_value_size == sizeof(cl_bool), CL_INVALID_VALUE,
                    "SVM_FINE_GRAIN_SYSTEM: value %p, %zu bytes", param_value, param_value_size);
        /* CL_INVALID_OPERATION if param_name is CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM and param_value is CL_TRUE but no devices in context associated with kernel support fine-grain system SVM allocations */
        HCQCL_CHECK(!*(const cl_bool *)param_value, CL_INVALID_OPERATION,
                    "no device supports fine-grain system SVM");
        return CL_SUCCESS; /* the kernel uses no system SVM pointers: nothing to note */
    default:
        /* CL_INVALID_VALUE if param_name is not valid */
        HCQCL_FAIL(CL_INVALID_VALUE, "param_name 0x%x", param_name);
    }
}

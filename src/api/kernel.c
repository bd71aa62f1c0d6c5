/*
 * kernel.c — kernel objects: creation from a built program, lifetime,
 * queries, and the parameter block a launch hands to the core.
 * Argument setting lives in kernel_args.c.
 */
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"

bool hcqcl_kernel_valid(cl_kernel k) { return hcqcl_obj_valid(k, HCQCL_TYPE_KERNEL); }

void hcqcl_kernel_args_changed(cl_kernel k)
{
    static _Atomic uint64_t next = 1;
    atomic_store_explicit(&k->args_gen, atomic_fetch_add_explicit(&next, 1, memory_order_relaxed),
                          memory_order_relaxed);
}

void hcqcl_kernel_arg_store(cl_kernel k, cl_uint i, const struct hcqcl_arg_value *v)
{
    k->args[i] = *v;
    const uint64_t note =
        HCQCL_ARG_NOTE_SET | (v->is_local ? HCQCL_ARG_NOTE_LOCAL | v->local_size : 0);
    atomic_store_explicit(&k->notes[i], note, memory_order_relaxed);
}

static int kernel_dev_index(cl_kernel k, cl_device_id d)
{
    for (cl_uint i = 0; i < k->prog->num_devices; i++)
        if (k->prog->devs[i].dev == d)
            return (int)i;
    return -1;
}

/* The device of a per-device query: device, or with NULL the context's
 * only one. Its index in *out, or CL_INVALID_DEVICE (also for a device
 * the kernel's program is not built for). */
static cl_int kernel_query_device(cl_kernel kernel, cl_device_id device, int *out)
{
    int i = -1;
    if (!device) {
        /* "The list of devices is the list of devices in the OpenCL context
         * that is associated with kernel." CL_INVALID_DEVICE if device is NULL but there is more than one device associated with kernel */
        HCQCL_CHECK(kernel->prog->ctx->num_devices == 1, CL_INVALID_DEVICE,
                    "device NULL in a context of %u devices", kernel->prog->ctx->num_devices);
        for (cl_uint d = 0; d < kernel->prog->num_devices && i < 0; d++)
            if (kernel->hk[d])
                i = (int)d;
    } else {
        i = kernel_dev_index(kernel, device);
    }
    /* CL_INVALID_DEVICE if device is not in the list of devices associated with kernel */
    HCQCL_CHECK(i >= 0 && kernel->hk[i], CL_INVALID_DEVICE, "device %p", (void *)device);
    *out = i;
    return CL_SUCCESS;
}

const struct hcq_kernel *hcqcl_kernel_hcq(cl_kernel k, cl_device_id d)
{
    int i = kernel_dev_index(k, d);
    return i < 0 ? NULL : k->hk[i];
}

const struct hcq_kernel_info *hcqcl_kernel_info(cl_kernel k, cl_device_id d)
{
    int i = kernel_dev_index(k, d);
    return i < 0 || !k->hk[i] ? NULL : &k->info[i];
}

/* ------------------------------------------------------------------ */
/* Creation and lifetime                                                */
/* ------------------------------------------------------------------ */

static void kernel_free(cl_kernel k)
{
    free(k->hk);
    free(k->info);
    free(k->args);
    free(k->notes);
    free(k->values);
    free(k);
}

/* A kernel object for desc, with every argument unset. The program must
 * be built; the caller holds no lock. */
static cl_kernel kernel_new(cl_program p, const struct hcqcl_kernel_desc *desc, cl_int *err)
{
    cl_kernel k = calloc(1, sizeof(*k));
    if (k) {
        k->hk = calloc(p->num_devices, sizeof(*k->hk));
        k->info = calloc(p->num_devices, sizeof(*k->info));
        k->args = calloc(desc->num_args ? desc->num_args : 1, sizeof(*k->args));
        k->notes = calloc(desc->num_args ? desc->num_args : 1, sizeof(*k->notes));
        k->values = calloc(desc->param_size ? desc->param_size : 1, 1);
    }
    if (!k || !k->hk || !k->info || !k->args || !k->notes || !k->values) {
        if (k)
            kernel_free(k);
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    hcqcl_obj_init(&k->obj, HCQCL_TYPE_KERNEL);
    k->obj.dispatch = p->obj.dispatch;
    hcqcl_kernel_args_changed(k);
    k->prog = p;
    k->desc = desc;
    for (cl_uint i = 0; i < p->num_devices; i++) {
        const struct hcqcl_program_dev *pd = &p->devs[i];
        if (pd->status != CL_BUILD_SUCCESS || !pd->loaded)
            continue;
        k->hk[i] = hcq_program_kernel(pd->loaded, desc->name);
        if (k->hk[i])
            hcq_kernel_get_info(k->hk[i], &k->info[i]);
    }
    hcqcl_clRetainProgram(p);
    atomic_fetch_add(&p->kernels, 1);
    *err = CL_SUCCESS;
    return k;
}

/* True when p has an executable for at least one device. */
static bool program_has_executable(cl_program p)
{
    for (cl_uint i = 0; i < p->num_devices; i++)
        if (p->devs[i].status == CL_BUILD_SUCCESS && p->devs[i].loaded)
            return true;
    return false;
}

cl_kernel hcqcl_clCreateKernel(cl_program program, const char *kernel_name, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = NULL;
    const struct hcqcl_kernel_desc *desc = NULL;

    bool locked = false;

    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK_GOTO(hcqcl_program_valid(program), err, CL_INVALID_PROGRAM, "program %p",
                     (void *)program);
    /* The lock keeps a build from starting until the kernel is counted. */
    pthread_mutex_lock(&program->lock);
    locked = true;
    bool built = program_has_executable(program) && !program->building;
    for (size_t i = 0; built && kernel_name && i < program->num_kernels; i++)
        if (strcmp(program->kdescs[i].name, kernel_name) == 0)
            desc = &program->kdescs[i];
    /* CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for program */
    HCQCL_CHECK_GOTO(built, err, CL_INVALID_PROGRAM_EXECUTABLE, "program %p not built",
                     (void *)program);
    /* CL_INVALID_VALUE if kernel_name is NULL */
    HCQCL_CHECK_GOTO(kernel_name, err, CL_INVALID_VALUE, "kernel_name NULL");
    /* CL_INVALID_KERNEL_NAME if kernel_name is not found in program */
    HCQCL_CHECK_GOTO(desc, err, CL_INVALID_KERNEL_NAME, "no kernel '%s'", kernel_name);
    /* CL_INVALID_KERNEL_DEFINITION if the kernel's arguments are not the same for all devices */
    HCQCL_CHECK_GOTO(desc->consistent, err, CL_INVALID_KERNEL_DEFINITION,
                     "'%s' differs between devices", kernel_name);
    k = kernel_new(program, desc, &err);
fail:
    if (locked)
        pthread_mutex_unlock(&program->lock);
    if (errcode_ret)
        *errcode_ret = err;
    return k;
}

cl_int hcqcl_clCreateKernelsInProgram(cl_program program, cl_uint num_kernels, cl_kernel *kernels,
                                      cl_uint *num_kernels_ret)
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK(hcqcl_program_valid(program), CL_INVALID_PROGRAM, "program %p", (void *)program);
    cl_int err = CL_SUCCESS;
    cl_uint made = 0;
    /* The lock keeps a build from starting until the kernels are counted. */
    pthread_mutex_lock(&program->lock);
    bool built = program_has_executable(program) && !program->building;
    /* "Kernel objects are not created for any __kernel functions in
     * program that do not have the same function definition across all
     * devices for which a program executable has been successfully
     * built." */
    cl_uint n = 0;
    for (size_t i = 0; i < program->num_kernels; i++)
        n += program->kdescs[i].consistent;
    /* CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for any device */
    HCQCL_CHECK_GOTO(built, err, CL_INVALID_PROGRAM_EXECUTABLE, "program %p not built",
                     (void *)program);
    /* CL_INVALID_VALUE if kernels is not NULL and num_kernels is less than the number of kernels */
    HCQCL_CHECK_GOTO(!kernels || num_kernels >= n, err, CL_INVALID_VALUE, "num_kernels %u < %u",
                     num_kernels, n);
    for (size_t i = 0; kernels && i < program->num_kernels; i++) {
        if (!program->kdescs[i].consistent)
            continue;
        kernels[made] = kernel_new(program, &program->kdescs[i], &err);
        /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources */
        HCQCL_CHECK_GOTO(kernels[made], err, err, "kernel %zu", i);
        made++;
    }
    if (num_kernels_ret)
        *num_kernels_ret = n;
fail:
    pthread_mutex_unlock(&program->lock);
    if (err != CL_SUCCESS)
        for (cl_uint j = 0; j < made; j++)
            hcqcl_clReleaseKernel(kernels[j]);
    return err;
}

cl_kernel hcqcl_clCloneKernel(cl_kernel source_kernel, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = NULL;
    /* CL_INVALID_KERNEL if source_kernel is not a valid kernel object */
    HCQCL_CHECK_GOTO(hcqcl_kernel_valid(source_kernel), err, CL_INVALID_KERNEL, "kernel %p",
                     (void *)source_kernel);
    k = kernel_new(source_kernel->prog, source_kernel->desc, &err);
    if (k) {
        memcpy(k->args, source_kernel->args, source_kernel->desc->num_args * sizeof(*k->args));
        for (cl_uint i = 0; i < source_kernel->desc->num_args; i++)
            atomic_init(&k->notes[i], atomic_load_explicit(&source_kernel->notes[i],
                                                           memory_order_relaxed));
        memcpy(k->values, source_kernel->values, source_kernel->desc->param_size);
    }
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return k;
}

cl_int hcqcl_clRetainKernel(cl_kernel kernel)
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "kernel %p", (void *)kernel);
    hcqcl_obj_retain(&kernel->obj);
    return CL_SUCCESS;
}

cl_int hcqcl_clReleaseKernel(cl_kernel kernel)
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "kernel %p", (void *)kernel);
    if (hcqcl_obj_release(&kernel->obj)) {
        cl_program p = kernel->prog;
        kernel->obj.type = HCQCL_TYPE_NONE;
        kernel_free(kernel);
        atomic_fetch_sub(&p->kernels, 1);
        hcqcl_clReleaseProgram(p);
    }
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Queries                                                              */
/* ------------------------------------------------------------------ */

cl_int hcqcl_clGetKernelInfo(cl_kernel kernel, cl_kernel_info param_name, size_t param_value_size,
                             void *param_value, size_t *param_value_size_ret)
{
    union {
        cl_uint u;
        cl_context ctx;
        cl_program prog;
    } v;
    const void *src = &v;
    size_t n;

    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "kernel %p", (void *)kernel);
    switch (param_name) {
    case CL_KERNEL_FUNCTION_NAME:
        src = kernel->desc->name;
        n = strlen(kernel->desc->name) + 1;
        break;
    case CL_KERNEL_NUM_ARGS: v.u = kernel->desc->num_args; n = sizeof(v.u); break;
    case CL_KERNEL_REFERENCE_COUNT:
        v.u = atomic_load_explicit(&kernel->obj.refs, memory_order_relaxed);
        n = sizeof(v.u);
        break;
    case CL_KERNEL_CONTEXT: v.ctx = kernel->prog->ctx; n = sizeof(v.ctx); break;
    case CL_KERNEL_PROGRAM: v.prog = kernel->prog; n = sizeof(v.prog); break;
    case CL_KERNEL_ATTRIBUTES:
        /* "For kernels not created from OpenCL C source and the
         * clCreateProgramWithSource API call the string returned from this
         * query will be empty." */
        src = kernel->prog->source ? kernel->desc->attributes : "";
        n = strlen(src) + 1;
        break;
    default:
        /* CL_INVALID_VALUE if param_name is not valid */
        HCQCL_FAIL(CL_INVALID_VALUE, "param_name 0x%x", param_name);
    }
    return hcqcl_info_out(src, n, param_value_size, param_value, param_value_size_ret);
}

/* Bytes of __local memory the kernel uses on device i: its static shared
 * variables plus the __local arguments set so far, each at its alignment.
 * An argument not yet set counts its alignment padding already, so that a
 * size the application derives from this query (the device's local memory
 * less it) fits once set. From k->notes: another thread may be setting
 * arguments meanwhile. */
static cl_ulong kernel_local_bytes(cl_kernel k, int i)
{
    cl_ulong bytes = k->info[i].static_shared;
    for (cl_uint a = 0; a < k->desc->num_args; a++) {
        const uint64_t note = atomic_load_explicit(&k->notes[a], memory_order_relaxed);
        const bool local = note ? (note & HCQCL_ARG_NOTE_LOCAL) != 0
                                : k->desc->args[a].kind == HCQCL_ARG_LOCAL;
        if (local)
            bytes = util_align_up(bytes, UTIL_MAX(k->desc->args[a].align, 16u)) +
                    (uint32_t)note;
    }
    return bytes;
}

cl_int hcqcl_clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                      cl_kernel_work_group_info param_name, size_t param_value_size,
                                      void *param_value, size_t *param_value_size_ret)
{
    union {
        size_t s;
        size_t s3[3];
        cl_ulong ul;
    } v;
    size_t n;
    int i = -1;

    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "kernel %p", (void *)kernel);
    cl_int err = kernel_query_device(kernel, device, &i);
    if (err != CL_SUCCESS)
        return err;
    const struct hcq_kernel_info *info = &kernel->info[i];
    switch (param_name) {
    case CL_KERNEL_GLOBAL_WORK_SIZE:
        /* CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and device is not a custom device and kernel is not a built-in kernel */
        HCQCL_FAIL(CL_INVALID_VALUE, "GLOBAL_WORK_SIZE of a kernel of a GPU");
    case CL_KERNEL_WORK_GROUP_SIZE: v.s = info->max_threads; n = sizeof(v.s); break;
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
        for (int d = 0; d < 3; d++)
            v.s3[d] = kernel->desc->reqd_wgs[d] ? kernel->desc->reqd_wgs[d] : info->reqd_block[d];
        n = sizeof(v.s3);
        break;
    case CL_KERNEL_LOCAL_MEM_SIZE: v.ul = kernel_local_bytes(kernel, i); n = sizeof(v.ul); break;
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
        v.s = kernel->prog->devs[i].dev->info->warp_size;
        n = sizeof(v.s);
        break;
    case CL_KERNEL_PRIVATE_MEM_SIZE: v.ul = info->local_per_thread; n = sizeof(v.ul); break;
    default:
        /* CL_INVALID_VALUE if param_name is not valid */
        HCQCL_FAIL(CL_INVALID_VALUE, "param_name 0x%x", param_name);
    }
    return hcqcl_info_out(&v, n, param_value_size, param_value, param_value_size_ret);
}

cl_int hcqcl_clGetKernelArgInfo(cl_kernel kernel, cl_uint arg_index, cl_kernel_arg_info param_name,
                                size_t param_value_size, void *param_value,
                                size_t *param_value_size_ret)
{
    union {
        cl_kernel_arg_address_qualifier addr;
        cl_kernel_arg_access_qualifier access;
        cl_kernel_arg_type_qualifier type;
    } v;
    const void *src = &v;
    size_t n;

    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "kernel %p", (void *)kernel);
    /* CL_INVALID_ARG_INDEX if arg_index is not a valid argument index */
    HCQCL_CHECK(arg_index < kernel->desc->num_args, CL_INVALID_ARG_INDEX, "arg %u of %u",
                arg_index, kernel->desc->num_args);
    const struct hcqcl_arg_desc *a = &kernel->desc->args[arg_index];
    switch (param_name) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: v.addr = a->addr_qual; n = sizeof(v.addr); break;
    case CL_KERNEL_ARG_ACCESS_QUALIFIER: v.access = a->access_qual; n = sizeof(v.access); break;
    case CL_KERNEL_ARG_TYPE_QUALIFIER: v.type = a->type_qual; n = sizeof(v.type); break;
    case CL_KERNEL_ARG_TYPE_NAME:
        src = a->type_name;
        n = a->type_name ? strlen(a->type_name) + 1 : 0;
        break;
    case CL_KERNEL_ARG_NAME:
        src = a->name;
        n = a->name ? strlen(a->name) + 1 : 0;
        break;
    default:
        /* CL_INVALID_VALUE if param_name is not valid */
        HCQCL_FAIL(CL_INVALID_VALUE, "param_name 0x%x", param_name);
    }
    /* CL_KERNEL_ARG_INFO_NOT_AVAILABLE if the argument information is not available for kernel */
    HCQCL_CHECK(a->has_info && src, CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
                "'%s' arg %u: no metadata recorded", kernel->desc->name, arg_index);
    return hcqcl_info_out(src, n, param_value_size, param_value, param_value_size_ret);
}

HCQCL_NOT_OFFERED(clGetKernelSubGroupInfo);
cl_int hcqcl_clGetKernelSubGroupInfo(cl_kernel kernel, cl_device_id device,
                                     cl_kernel_sub_group_info param_name, size_t input_value_size,
                                     const void *input_value, size_t param_value_size,
                                     void *param_value, size_t *param_value_size_ret)
{
    /* CL_INVALID_KERNEL if kernel is not a valid kernel object */
    HCQCL_CHECK(hcqcl_kernel_valid(kernel), CL_INVALID_KERNEL, "kernel %p", (void *)kernel);
    /* CL_INVALID_DEVICE if device is not in the list of devices associated with kernel or if device is NULL but there is more than one device associated with kernel */
    int i;
    cl_int err = kernel_query_device(kernel, device, &i);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_OPERATION if device does not support subgroups */
    HCQCL_FAIL(CL_INVALID_OPERATION, "no device supports sub-groups");
}

HCQCL_NOT_OFFERED(clGetKernelSubGroupInfoKHR);
cl_int hcqcl_clGetKernelSubGroupInfoKHR(cl_kernel kernel, cl_device_id device,
                                        cl_kernel_sub_group_info param_name,
                                        size_t input_value_size, const void *input_value,
                                        size_t param_value_size, void *param_value,
                                        size_t *param_value_size_ret)
{
    return hcqcl_clGetKernelSubGroupInfo(kernel, device, param_name, input_value_size,
                                         input_value, param_value_size, param_value,
                                         param_value_size_ret);
}

/* ------------------------------------------------------------------ */
/* Launch support                                                       */
/* ------------------------------------------------------------------ */

cl_int hcqcl_kernel_params(cl_kernel k, cl_device_id d, void *block, uint32_t *dyn_shared)
{
    const struct hcqcl_kernel_desc *desc = k->desc;
    int i = kernel_dev_index(k, d);
    HCQCL_CHECK(i >= 0 && k->hk[i], CL_INVALID_PROGRAM_EXECUTABLE, "'%s' not built for %p",
                desc->name, (void *)d);
    /* The shared window: reserved 1 KiB, static variables, then __local
     * arguments (opencl-ecosystem §2.4: absolute offsets, no hardware
     * base). */
    const uint32_t static_end = 0x400 + k->info[i].static_shared;
    uint64_t local_end = static_end;
    memcpy(block, k->values, desc->param_size);
    for (cl_uint a = 0; a < desc->num_args; a++) {
        const struct hcqcl_arg_desc *ad = &desc->args[a];
        struct hcqcl_arg_value *av = &k->args[a];
        uint64_t word;
        /* CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified */
        HCQCL_CHECK(av->set, CL_INVALID_KERNEL_ARGS, "'%s' arg %u not set", desc->name, a);
        if (av->svm)
            continue; /* clSetKernelArgSVMPointer: the address is in the block */
        if (av->is_local) {
            local_end = util_align_up(local_end, UTIL_MAX(ad->align, 16u));
            word = local_end;
            local_end += av->local_size;
        } else if (ad->kind == HCQCL_ARG_GLOBAL || (ad->kind == HCQCL_ARG_POINTER && av->mem)) {
            word = 0;
            if (av->mem) {
                /* A buffer made after the release may have its address:
                 * its serial tells them apart. */
                HCQCL_CHECK(hcqcl_mem_is_live_since(av->mem, &av->mem_seen) &&
                                hcqcl_mem_valid(av->mem) && av->mem->serial == av->mem_serial,
                            CL_INVALID_MEM_OBJECT,
                            "'%s' arg %u: buffer released", desc->name, a);
                word = hcqcl_mem_va(av->mem, d->hw);
            }
        } else if (ad->kind == HCQCL_ARG_IMAGE) {
            /* The address of the image's descriptor on d (image_abi.h). */
            HCQCL_CHECK(hcqcl_mem_is_live_since(av->mem, &av->mem_seen) &&
                            hcqcl_mem_valid(av->mem) && av->mem->serial == av->mem_serial,
                        CL_INVALID_MEM_OBJECT, "'%s' arg %u: image released", desc->name, a);
            word = hcqcl_image_abi_va(av->mem, d->hw);
        } else {
            continue; /* by value (samplers too): already in the block */
        }
        memcpy((uint8_t *)block + ad->offset, &word, UTIL_MIN(ad->size, 8u));
    }
    /* CL_OUT_OF_RESOURCES if the __local arguments exceed the 32-bit shared window */
    HCQCL_CHECK(local_end <= UINT32_MAX, CL_OUT_OF_RESOURCES, "%llu bytes of local memory",
                (unsigned long long)local_end);
    *dyn_shared = (uint32_t)(local_end - static_end);
    return CL_SUCCESS;
}

size_t hcqcl_kernel_mem_args(cl_kernel k, cl_mem *mems, size_t cap)
{
    size_t n = 0;
    for (cl_uint a = 0; a < k->desc->num_args; a++) {
        if (!k->args[a].set || !k->args[a].mem)
            continue;
        if (n < cap)
            mems[n] = k->args[a].mem;
        n++;
    }
    return n;
}

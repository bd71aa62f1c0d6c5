/*
 * program.c — program objects: creation from source or binaries, the
 * entry points OpenCL offers for IL and built-in kernels (none here),
 * lifetime and queries. Builds live in program_build.c.
 */
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"
#include "cubin/container.h"
#include "cubin/cubin.h"

bool hcqcl_program_valid(cl_program p) { return hcqcl_obj_valid(p, HCQCL_TYPE_PROGRAM); }

cl_program hcqcl_program_new(cl_context ctx, cl_uint num_devices, const cl_device_id *devices)
{
    cl_program p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->devs = calloc(num_devices, sizeof(*p->devs));
    if (!p->devs || pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p->devs);
        free(p);
        return NULL;
    }
    hcqcl_obj_init(&p->obj, HCQCL_TYPE_PROGRAM);
    p->obj.dispatch = ctx->obj.dispatch;
    p->ctx = ctx;
    /* A device listed twice is one device of the program. */
    for (cl_uint i = 0; i < num_devices; i++) {
        cl_uint j = 0;
        while (j < p->num_devices && p->devs[j].dev != devices[i])
            j++;
        if (j < p->num_devices)
            continue;
        struct hcqcl_program_dev *pd = &p->devs[p->num_devices++];
        pd->dev = devices[i];
        pd->hdev = devices[i]->hw;
        pd->status = CL_BUILD_NONE;
        pd->bin_type = CL_PROGRAM_BINARY_TYPE_NONE;
    }
    hcqcl_clRetainContext(ctx);
    return p;
}

void hcqcl_program_dev_reset(struct hcqcl_program_dev *pd)
{
    if (pd->loaded)
        hcq_program_unload(pd->loaded);
    cubin_free(pd->cubin);
    cubin_container_free(pd->meta);
    free(pd->binary);
    pd->loaded = NULL;
    pd->cubin = NULL;
    pd->meta = NULL;
    pd->binary = NULL;
    pd->binary_size = 0;
}

void hcqcl_program_kdescs_free(cl_program p)
{
    for (size_t i = 0; i < p->num_kernels; i++) {
        struct hcqcl_kernel_desc *kd = &p->kdescs[i];
        for (cl_uint a = 0; a < kd->num_args; a++) {
            free(kd->args[a].type_name);
            free(kd->args[a].name);
        }
        free(kd->args);
        free(kd->name);
        free(kd->attributes);
    }
    free(p->kdescs);
    free(p->kernel_names);
    p->kdescs = NULL;
    p->kernel_names = NULL;
    p->num_kernels = 0;
}

static void program_destroy(cl_program p)
{
    p->obj.type = HCQCL_TYPE_NONE;
    hcqcl_program_kdescs_free(p);
    for (cl_uint i = 0; i < p->num_devices; i++) {
        hcqcl_program_dev_reset(&p->devs[i]);
        free(p->devs[i].options);
        free(p->devs[i].log);
    }
    for (cl_uint i = 0; i < p->num_headers; i++) {
        free(p->header_names[i]);
        free(p->header_srcs[i]);
    }
    free(p->header_names);
    free(p->header_srcs);
    free(p->devs);
    free(p->source);
    pthread_mutex_destroy(&p->lock);
    hcqcl_clReleaseContext(p->ctx);
    free(p);
}

/* ------------------------------------------------------------------ */
/* Creation                                                             */
/* ------------------------------------------------------------------ */

cl_program hcqcl_clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings,
                                           const size_t *lengths, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_program p = NULL;
    size_t total = 0;

    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(context), err, CL_INVALID_CONTEXT, "context %p",
                     (void *)context);
    /* CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL */
    HCQCL_CHECK_GOTO(count > 0 && strings, err, CL_INVALID_VALUE, "count %u, strings %p", count,
                     (void *)strings);
    for (cl_uint i = 0; i < count; i++) {
        /* CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL */
        HCQCL_CHECK_GOTO(strings[i], err, CL_INVALID_VALUE, "strings[%u] NULL", i);
        total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    }
    p = hcqcl_program_new(context, context->num_devices, context->devices);
    HCQCL_CHECK_GOTO(p, err, CL_OUT_OF_HOST_MEMORY, "program object");
    p->source = malloc(total + 1);
    HCQCL_CHECK_GOTO(p->source, err, CL_OUT_OF_HOST_MEMORY, "%zu bytes of source", total);
    /* "The concatenation strips any nulls in the original source
     * strings" (a length may count a string's terminator). */
    for (cl_uint i = 0; i < count; i++) {
        size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        for (size_t j = 0; j < n; j++)
            if (strings[i][j])
                p->source[p->source_len++] = strings[i][j];
    }
    p->source[p->source_len] = '\0';
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return p;
fail:
    if (p)
        program_destroy(p);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

bool hcqcl_program_dev_non_uniform(cl_program p, const struct hcqcl_program_dev *pd)
{
    static const char uniform[] = "-cl-uniform-work-group-size";
    const char *o = pd->options ? pd->options : "";
    if (strstr(o, uniform))
        return false;
    /* "If the program was created using clLinkProgram, then all input
     * programs must support non-uniform work-groups." */
    if (p->linked)
        return pd->inputs_non_uniform;
    /* "If the program was created with clCreateProgramWithIL or
     * clCreateProgramWithBinary, then the program must be compiled or built
     * without the -cl-uniform-work-group-size build options." (Those it was
     * first built with included.) */
    if (p->from_binary)
        return !(pd->meta && pd->meta->options && strstr(pd->meta->options, uniform));
    /* From source: OpenCL C 2.0 or later. */
    return hcqcl_options_cl_std(o) >= CL_MAKE_VERSION(2, 0, 0);
}

cl_program hcqcl_clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                           const cl_device_id *device_list, const size_t *lengths,
                                           const unsigned char **binaries, cl_int *binary_status,
                                           cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_program p = NULL;

    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(context), err, CL_INVALID_CONTEXT, "context %p",
                     (void *)context);
    /* CL_INVALID_VALUE if device_list is NULL or num_devices is zero */
    HCQCL_CHECK_GOTO(device_list && num_devices > 0, err, CL_INVALID_VALUE,
                     "device_list %p, num_devices %u", (void *)device_list, num_devices);
    for (cl_uint i = 0; i < num_devices; i++) {
        /* CL_INVALID_DEVICE if any device in device_list is not in the list of devices associated with context */
        HCQCL_CHECK_GOTO(hcqcl_device_valid(device_list[i]) &&
                             hcqcl_context_has_device(context, device_list[i]),
                         err, CL_INVALID_DEVICE, "device_list[%u] %p", i, (void *)device_list[i]);
        for (cl_uint j = 0; j < i; j++)
            /* CL_INVALID_DEVICE if any device in device_list is not in the list of devices associated with context (each once) */
            HCQCL_CHECK_GOTO(device_list[j] != device_list[i], err, CL_INVALID_DEVICE,
                             "device %p listed twice", (void *)device_list[i]);
    }
    /* CL_INVALID_VALUE if lengths or binaries is NULL */
    HCQCL_CHECK_GOTO(lengths && binaries, err, CL_INVALID_VALUE, "lengths %p, binaries %p",
                     (void *)lengths, (void *)binaries);
    cl_uint empty = num_devices;
    for (cl_uint i = 0; i < num_devices && empty == num_devices; i++)
        if (!lengths[i] || !binaries[i])
            empty = i;

    p = hcqcl_program_new(context, num_devices, device_list);
    HCQCL_CHECK_GOTO(p, err, CL_OUT_OF_HOST_MEMORY, "program object");
    p->from_binary = true;
    /* Every entry of binary_status is answered, also when the call fails
     * for another entry: "CL_SUCCESS in binary_status[i] if binary was
     * successfully loaded for device specified by device_list[i];
     * otherwise returns CL_INVALID_VALUE if lengths[i] is zero or if
     * binaries[i] is a NULL value or CL_INVALID_BINARY". */
    cl_uint bad = num_devices;
    for (cl_uint i = 0; i < num_devices; i++) {
        cl_int st = !lengths[i] || !binaries[i] ? CL_INVALID_VALUE
                    : hcqcl_program_object_is(binaries[i], lengths[i])
                        ? hcqcl_program_object_load(p, &p->devs[i], binaries[i], lengths[i])
                        : hcqcl_program_dev_set_binary(&p->devs[i], binaries[i], lengths[i]);
        if (binary_status)
            binary_status[i] = st;
        if (st != CL_SUCCESS && st != CL_INVALID_VALUE && bad == num_devices) {
            bad = i;
            err = st;
        }
    }
    /* CL_INVALID_VALUE if any entry in lengths[i] is zero or binaries[i] is NULL */
    HCQCL_CHECK_GOTO(empty == num_devices, err, CL_INVALID_VALUE, "binary %u is empty", empty);
    /* CL_INVALID_BINARY if an invalid program binary was encountered for any device */
    HCQCL_CHECK_GOTO(bad == num_devices, err, err, "device %u: %s", bad,
                     bad < num_devices && p->devs[bad].log ? p->devs[bad].log : "");
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return p;
fail:
    if (p)
        program_destroy(p);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

HCQCL_NOT_OFFERED(clCreateProgramWithIL);
cl_program hcqcl_clCreateProgramWithIL(cl_context context, const void *il, size_t length,
                                       cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(context), err, CL_INVALID_CONTEXT, "context %p",
                     (void *)context);
    /* CL_INVALID_VALUE if il is NULL or if length is zero */
    HCQCL_CHECK_GOTO(il && length, err, CL_INVALID_VALUE, "il %p, length %zu", il, length);
    /* CL_INVALID_OPERATION if no devices in context support intermediate language programs */
    HCQCL_CHECK_GOTO(false, err, CL_INVALID_OPERATION, "no device accepts IL");
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

HCQCL_NOT_OFFERED(clCreateProgramWithBuiltInKernels);
cl_program hcqcl_clCreateProgramWithBuiltInKernels(cl_context context, cl_uint num_devices,
                                                   const cl_device_id *device_list,
                                                   const char *kernel_names, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(context), err, CL_INVALID_CONTEXT, "context %p",
                     (void *)context);
    /* CL_INVALID_VALUE if device_list is NULL or num_devices is zero */
    HCQCL_CHECK_GOTO(device_list && num_devices > 0, err, CL_INVALID_VALUE,
                     "device_list %p, num_devices %u", (void *)device_list, num_devices);
    /* CL_INVALID_VALUE if kernel_names is NULL */
    HCQCL_CHECK_GOTO(kernel_names, err, CL_INVALID_VALUE, "kernel_names NULL");
    for (cl_uint i = 0; i < num_devices; i++)
        /* CL_INVALID_DEVICE if any device in device_list is not in the list of devices associated with context */
        HCQCL_CHECK_GOTO(hcqcl_device_valid(device_list[i]) &&
                             hcqcl_context_has_device(context, device_list[i]),
                         err, CL_INVALID_DEVICE, "device_list[%u]", i);
    /* CL_INVALID_VALUE if kernel_names contains a kernel name that is not supported by any of the devices */
    HCQCL_CHECK_GOTO(false, err, CL_INVALID_VALUE, "no built-in kernels: '%s'", kernel_names);
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                             */
/* ------------------------------------------------------------------ */

cl_int hcqcl_clRetainProgram(cl_program program)
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK(hcqcl_program_valid(program), CL_INVALID_PROGRAM, "program %p", (void *)program);
    hcqcl_obj_retain(&program->obj);
    return CL_SUCCESS;
}

cl_int hcqcl_clReleaseProgram(cl_program program)
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK(hcqcl_program_valid(program), CL_INVALID_PROGRAM, "program %p", (void *)program);
    if (hcqcl_obj_release(&program->obj))
        program_destroy(program);
    return CL_SUCCESS;
}

HCQCL_NOT_OFFERED(clSetProgramReleaseCallback);
cl_int hcqcl_clSetProgramReleaseCallback(cl_program program,
                                         void(CL_CALLBACK *pfn_notify)(cl_program, void *),
                                         void *user_data)
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK(hcqcl_program_valid(program), CL_INVALID_PROGRAM, "program %p", (void *)program);
    /* CL_INVALID_VALUE if pfn_notify is NULL */
    HCQCL_CHECK(pfn_notify, CL_INVALID_VALUE, "pfn_notify NULL");
    /* CL_INVALID_OPERATION if no devices in the context associated with program support destructors for program scope global variables */
    HCQCL_FAIL(CL_INVALID_OPERATION, "no program-scope global destructors");
}

HCQCL_NOT_OFFERED(clSetProgramSpecializationConstant);
cl_int hcqcl_clSetProgramSpecializationConstant(cl_program program, cl_uint spec_id,
                                                size_t spec_size, const void *spec_value)
{
    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK(hcqcl_program_valid(program), CL_INVALID_PROGRAM, "program %p", (void *)program);
    /* CL_INVALID_OPERATION if no devices associated with program support intermediate language programs */
    HCQCL_FAIL(CL_INVALID_OPERATION, "no IL programs");
}

/* ------------------------------------------------------------------ */
/* Queries                                                              */
/* ------------------------------------------------------------------ */

static bool program_built_any(cl_program p)
{
    for (cl_uint i = 0; i < p->num_devices; i++)
        if (p->devs[i].status == CL_BUILD_SUCCESS && p->devs[i].loaded)
            return true;
    return false;
}

/* CL_PROGRAM_BINARIES: param_value is an array of num_devices pointers;
 * each non-NULL one receives that device's binary. */
static cl_int program_info_binaries(cl_program p, size_t param_value_size, void *param_value,
                                    size_t *param_value_size_ret)
{
    size_t n = p->num_devices * sizeof(unsigned char *);
    if (param_value) {
        /* CL_INVALID_VALUE if size in bytes specified by param_value_size is < size of return type */
        HCQCL_CHECK(param_value_size >= n, CL_INVALID_VALUE, "%zu < %zu", param_value_size, n);
        unsigned char **out = param_value;
        for (cl_uint i = 0; i < p->num_devices; i++)
            if (out[i] && p->devs[i].binary)
                memcpy(out[i], p->devs[i].binary, p->devs[i].binary_size);
    }
    if (param_value_size_ret)
        *param_value_size_ret = n;
    return CL_SUCCESS;
}

cl_int hcqcl_clGetProgramInfo(cl_program program, cl_program_info param_name,
                              size_t param_value_size, void *param_value,
                              size_t *param_value_size_ret)
{
    union {
        cl_uint u;
        cl_context ctx;
        size_t s;
        cl_bool b;
    } v;
    const void *src = &v;
    size_t n;
    void *tmp = NULL;
    cl_int err;

    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK(hcqcl_program_valid(program), CL_INVALID_PROGRAM, "program %p", (void *)program);
    pthread_mutex_lock(&program->lock);
    switch (param_name) {
    case CL_PROGRAM_REFERENCE_COUNT:
        v.u = atomic_load_explicit(&program->obj.refs, memory_order_relaxed);
        n = sizeof(v.u);
        break;
    case CL_PROGRAM_CONTEXT: v.ctx = program->ctx; n = sizeof(v.ctx); break;
    case CL_PROGRAM_NUM_DEVICES: v.u = program->num_devices; n = sizeof(v.u); break;
    case CL_PROGRAM_DEVICES: {
        cl_device_id *list = malloc(program->num_devices * sizeof(*list));
        if (!list) {
            err = CL_OUT_OF_HOST_MEMORY;
            goto out;
        }
        for (cl_uint i = 0; i < program->num_devices; i++)
            list[i] = program->devs[i].dev;
        tmp = list;
        src = list;
        n = program->num_devices * sizeof(*list);
        break;
    }
    case CL_PROGRAM_SOURCE:
        /* A linked program's source is its inputs' link units: none of
         * its own (clCreateProgramWithSource made it not). */
        if (program->source && !cubin_units_is(program->source, program->source_len)) {
            src = program->source;
            n = program->source_len + 1;
        } else {
            src = "";
            n = 1;
        }
        break;
    case CL_PROGRAM_IL: src = NULL; n = 0; break;
    case CL_PROGRAM_BINARY_SIZES: {
        size_t *sizes = malloc(program->num_devices * sizeof(size_t));
        if (!sizes) {
            err = CL_OUT_OF_HOST_MEMORY;
            goto out;
        }
        for (cl_uint i = 0; i < program->num_devices; i++)
            sizes[i] = program->devs[i].binary_size;
        tmp = sizes;
        src = sizes;
        n = program->num_devices * sizeof(size_t);
        break;
    }
    case CL_PROGRAM_BINARIES:
        err = program_info_binaries(program, param_value_size, param_value, param_value_size_ret);
        goto out;
    case CL_PROGRAM_NUM_KERNELS:
    case CL_PROGRAM_KERNEL_NAMES:
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
        /* CL_INVALID_PROGRAM_EXECUTABLE if param_name is CL_PROGRAM_NUM_KERNELS, CL_PROGRAM_KERNEL_NAMES, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, or CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT and a successful program executable has not been built for at least one device in the list of devices associated with program */
        if (!program_built_any(program) || program->building) {
            err = CL_INVALID_PROGRAM_EXECUTABLE;
            util_log_check(__func__, "built", hcqcl_error_name(err), "program %p not built",
                           (void *)program);
            goto out;
        }
        if (param_name == CL_PROGRAM_NUM_KERNELS) {
            /* "the number of kernels declared in program that can be
             * created with clCreateKernel": not one whose definition
             * differs between the devices (CL_INVALID_KERNEL_DEFINITION). */
            v.s = 0;
            for (size_t k = 0; k < program->num_kernels; k++)
                v.s += program->kdescs[k].consistent;
            n = sizeof(v.s);
        } else if (param_name == CL_PROGRAM_KERNEL_NAMES) {
            src = program->kernel_names ? program->kernel_names : "";
            n = strlen(src) + 1;
        } else { /* no program-scope constructors or destructors are run */
            v.b = CL_FALSE;
            n = sizeof(v.b);
        }
        break;
    default:
        err = CL_INVALID_VALUE;
        /* CL_INVALID_VALUE if param_name is not valid */
        util_log_check(__func__, "param_name", hcqcl_error_name(err), "0x%x", param_name);
        goto out;
    }
    err = hcqcl_info_out(src, n, param_value_size, param_value, param_value_size_ret);
out:
    pthread_mutex_unlock(&program->lock);
    free(tmp);
    return err;
}

cl_int hcqcl_clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                   cl_program_build_info param_name, size_t param_value_size,
                                   void *param_value, size_t *param_value_size_ret)
{
    union {
        cl_build_status st;
        cl_program_binary_type bt;
        size_t s;
    } v;
    const void *src = &v;
    size_t n;
    struct hcqcl_program_dev *pd = NULL;
    cl_int err;

    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK(hcqcl_program_valid(program), CL_INVALID_PROGRAM, "program %p", (void *)program);
    for (cl_uint i = 0; i < program->num_devices; i++)
        if (program->devs[i].dev == device)
            pd = &program->devs[i];
    /* CL_INVALID_DEVICE if device is not in the list of devices associated with program */
    HCQCL_CHECK(pd, CL_INVALID_DEVICE, "device %p", (void *)device);
    pthread_mutex_lock(&program->lock);
    switch (param_name) {
    case CL_PROGRAM_BUILD_STATUS: v.st = pd->status; n = sizeof(v.st); break;
    /* "If build status of the specified program for device is
     * CL_BUILD_NONE, an empty string is returned." (options and log) */
    case CL_PROGRAM_BUILD_OPTIONS:
        src = pd->options && pd->status != CL_BUILD_NONE ? pd->options : "";
        n = strlen(src) + 1;
        break;
    case CL_PROGRAM_BUILD_LOG:
        src = pd->log && pd->status != CL_BUILD_NONE ? pd->log : "";
        n = strlen(src) + 1;
        break;
    case CL_PROGRAM_BINARY_TYPE: v.bt = pd->bin_type; n = sizeof(v.bt); break;
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
        /* "Returns 0 if device does not support program scope global
         * variables" (CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE is 0), also for a
         * binary whose cubin has .nv.global variables of its own. */
        v.s = 0;
        n = sizeof(v.s);
        break;
    default:
        err = CL_INVALID_VALUE;
        /* CL_INVALID_VALUE if param_name is not valid */
        util_log_check(__func__, "param_name", hcqcl_error_name(err), "0x%x", param_name);
        goto out;
    }
    err = hcqcl_info_out(src, n, param_value_size, param_value, param_value_size_ret);
out:
    pthread_mutex_unlock(&program->lock);
    return err;
}

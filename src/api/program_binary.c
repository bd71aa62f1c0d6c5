/*
 * program_binary.c — what a program's binary is made of and what it
 * yields: hcqcl containers, bare cubins and fatbins checked against the
 * device, builds from source through the compiler front (compiler.c),
 * loading onto the GPU, build logs, and the kernel descriptions kernel
 * objects are made from.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"
#include "cubin/container.h"
#include "cubin/cubin.h"

/* ------------------------------------------------------------------ */
/* Build logs                                                           */
/* ------------------------------------------------------------------ */

void hcqcl_program_dev_log(struct hcqcl_program_dev *pd, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int add = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (add < 0)
        return;
    size_t old = pd->log ? strlen(pd->log) : 0;
    bool nl = add > 0 && line[add - 1] == '\n';
    char *log = realloc(pd->log, old + (size_t)add + 2);
    if (log) {
        memcpy(log + old, line, (size_t)add);
        if (!nl)
            log[old + (size_t)add++] = '\n';
        log[old + (size_t)add] = '\0';
        pd->log = log;
    }
    free(line);
}

void hcqcl_program_dev_log_clear(struct hcqcl_program_dev *pd)
{
    free(pd->log);
    pd->log = NULL;
}

/* ------------------------------------------------------------------ */
/* Binaries                                                             */
/* ------------------------------------------------------------------ */

static uint32_t arch_sm(uint32_t arch) { return (arch >> 8) * 10 + ((arch >> 4) & 0xf); }

/* True when data is PTX assembly text (what NVIDIA's OpenCL returns as
 * its binaries). */
static bool looks_like_ptx(const char *data, size_t size)
{
    size_t n = UTIL_MIN(size, (size_t)4096);
    return memmem(data, n, ".version", 8) && memmem(data, n, ".target", 7);
}

/* Parse a cubin and check it runs on the device. */
static cl_int pd_take_cubin(struct hcqcl_program_dev *pd, const void *data, size_t size)
{
    char log[256] = "";
    struct cubin *cb = NULL;
    if (cubin_parse(data, size, &cb, log, sizeof(log)) < 0) {
        hcqcl_program_dev_log(pd, "not a valid cubin: %s", log);
        return CL_INVALID_BINARY;
    }
    if (cubin_check_arch(cb, pd->dev->info->arch, log, sizeof(log)) < 0) {
        hcqcl_program_dev_log(pd, "cubin for sm_%u does not run on this device (sm_%u): %s", cb->sm,
               arch_sm(pd->dev->info->arch), log);
        cubin_free(cb);
        return CL_INVALID_BINARY;
    }
    pd->cubin = cb;
    return CL_SUCCESS;
}

/* A bare cubin is kept as a container without metadata, so that
 * CL_PROGRAM_BINARIES always returns hcqcl's container. */
static cl_int pd_wrap_cubin(struct hcqcl_program_dev *pd, const void *cubin, size_t size)
{
    struct cubin_container c = {
        .version = CUBIN_CONTAINER_VERSION,
        .arch = pd->cubin->arch,
        .options = "",
        .compiler = "",
        .cubin = cubin,
        .cubin_size = size,
    };
    int rc = cubin_container_write(&c, &pd->binary, &pd->binary_size);
    return rc == 0 ? CL_SUCCESS : rc == -ENOMEM ? CL_OUT_OF_HOST_MEMORY : CL_INVALID_BINARY;
}

cl_int hcqcl_program_dev_set_binary(struct hcqcl_program_dev *pd, const void *data, size_t size)
{
    char log[256] = "";
    cl_int err;
    hcqcl_program_dev_reset(pd);
    hcqcl_program_dev_log_clear(pd);
    pd->bin_type = CL_PROGRAM_BINARY_TYPE_NONE;

    if (cubin_container_is(data, size)) {
        int rc = cubin_container_parse(data, size, &pd->meta);
        if (rc < 0) {
            hcqcl_program_dev_log(pd, "malformed hcqcl program container (%s)", strerror(-rc));
            return rc == -ENOMEM ? CL_OUT_OF_HOST_MEMORY : CL_INVALID_BINARY;
        }
        err = pd_take_cubin(pd, pd->meta->cubin, pd->meta->cubin_size);
        if (err == CL_SUCCESS) {
            pd->binary = malloc(size);
            if (!pd->binary)
                err = CL_OUT_OF_HOST_MEMORY;
            else
                memcpy(pd->binary, data, size);
            pd->binary_size = size;
        }
    } else if (cubin_is_elf(data, size)) {
        err = pd_take_cubin(pd, data, size);
        if (err == CL_SUCCESS)
            err = pd_wrap_cubin(pd, data, size);
    } else if (cubin_is_fatbin(data, size)) {
        const void *cubin = NULL;
        size_t cubin_size = 0;
        if (cubin_from_fatbin(data, size, arch_sm(pd->dev->info->arch), &cubin, &cubin_size, log,
                              sizeof(log)) < 0) {
            hcqcl_program_dev_log(pd, "fatbin without a usable sm_%u cubin: %s", arch_sm(pd->dev->info->arch),
                   log);
            err = CL_INVALID_BINARY;
        } else {
            err = pd_take_cubin(pd, cubin, cubin_size);
            if (err == CL_SUCCESS)
                err = pd_wrap_cubin(pd, cubin, cubin_size);
        }
    } else if (looks_like_ptx(data, size)) {
        /* PTX (what NVIDIA's OpenCL hands out as binaries): assembled for
         * this device by ptxas, then kept as any cubin is. */
        void *cubin = NULL;
        size_t cubin_size = 0;
        char *alog = NULL;
        err = hcqcl_assemble_ptx(data, size, pd->dev->info->arch, &cubin, &cubin_size, &alog);
        if (alog && *alog)
            hcqcl_program_dev_log(pd, "%s", alog);
        free(alog);
        if (err == CL_SUCCESS) {
            err = pd_take_cubin(pd, cubin, cubin_size);
            if (err == CL_SUCCESS)
                err = pd_wrap_cubin(pd, cubin, cubin_size);
        }
        free(cubin);
    } else {
        hcqcl_program_dev_log(pd, "unknown binary format: expected an hcqcl program container, an sm_%u cubin, "
                   "a fatbin or PTX",
               arch_sm(pd->dev->info->arch));
        err = CL_INVALID_BINARY;
    }
    if (err != CL_SUCCESS) {
        hcqcl_program_dev_reset(pd);
        return err;
    }
    pd->bin_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Compiling                                                            */
/* ------------------------------------------------------------------ */


/* Compile src for pd's device and keep the result as its binary.
 * CL_SUCCESS, CL_COMPILER_NOT_AVAILABLE or `failure`. */
/* clCompileProgram makes objects for a later link, but a cubin is only
 * made of complete code: a unit that calls functions defined in another
 * one stops at ptxas ("Unresolved extern function"), and one without
 * kernels yields a cubin without kernels. Both passed the OpenCL C front
 * end, which is what compiling promises; the link compiles them again
 * together. */
static bool object_incomplete(const char *log)
{
    return log && strstr(log, "Unresolved extern function");
}

/* Options are valid (program_build.c), so a -cl-std token is one of the
 * known versions. */
cl_version hcqcl_options_cl_std(const char *options)
{
    cl_version v = 0;
    static const char key[] = "-cl-std=CL";
    for (const char *s = options; s && (s = strstr(s, key)); s += sizeof(key) - 1) {
        unsigned major, minor;
        if ((s == options || s[-1] == ' ' || s[-1] == '\t' || s[-1] == '\n' || s[-1] == '\r') &&
            sscanf(s + sizeof(key) - 1, "%u.%u", &major, &minor) == 2)
            v = CL_MAKE_VERSION(major, minor, 0);
    }
    return v;
}

cl_int hcqcl_program_dev_compile(struct hcqcl_program_dev *pd, const char *src, size_t len,
                                 const char *options, cl_int failure)
{
    const bool object = failure == CL_COMPILE_PROGRAM_FAILURE;
    /* "Calling clBuildProgram with the -cl-std=CL2.0 option will fail to
     * compile the program for any devices with CL_DEVICE_OPENCL_C_VERSION
     * = OpenCL C 1.0, OpenCL C 1.1 or OpenCL C 1.2": a failed build with
     * its reason in the log, not an invalid option. */
    const cl_version std = hcqcl_options_cl_std(options);
    if (std && !hcqcl_device_opencl_c(std)) {
        hcqcl_program_dev_log(pd, "-cl-std=CL%u.%u: %s does not support OpenCL C %u.%u "
                                  "(CL_DEVICE_OPENCL_C_ALL_VERSIONS lists those it does)",
                              CL_VERSION_MAJOR(std), CL_VERSION_MINOR(std), pd->dev->info->name,
                              CL_VERSION_MAJOR(std), CL_VERSION_MINOR(std));
        return failure;
    }
    void *cont = NULL;
    size_t size = 0;
    char *log = NULL;
    cl_int err = hcqcl_compile_source(src, len, options ? options : "", pd->dev->info->arch,
                                      &cont, &size, &log);
    if (log && *log)
        hcqcl_program_dev_log(pd, "%s", log);
    if (err == CL_SUCCESS) {
        char *keep = pd->log;
        pd->log = NULL;
        err = hcqcl_program_dev_set_binary(pd, cont, size);
        if (err != CL_SUCCESS && object) {
            /* No kernels (or nothing loadable) in a unit compiled alone. */
            free(pd->log);
            pd->log = NULL;
            err = CL_SUCCESS;
        } else if (err != CL_SUCCESS) {
            err = failure;
        }
        if (pd->log && keep) {
            char *extra = pd->log;
            pd->log = keep;
            hcqcl_program_dev_log(pd, "%s", extra);
            free(extra);
        } else if (keep) {
            free(pd->log);
            pd->log = keep;
        }
    } else if (object && err == CL_BUILD_PROGRAM_FAILURE && object_incomplete(log)) {
        hcqcl_program_dev_log(pd, "external references are resolved when the program is linked");
        err = CL_SUCCESS;
    } else if (err != CL_COMPILER_NOT_AVAILABLE && err != CL_OUT_OF_HOST_MEMORY &&
               err != CL_INVALID_BUILD_OPTIONS) {
        err = failure;
    }
    free(log);
    free(cont);
    return err;
}

/* Load pd's cubin onto its device. */
cl_int hcqcl_program_dev_load(struct hcqcl_program_dev *pd)
{
    if (pd->loaded) {
        hcq_program_unload(pd->loaded);
        pd->loaded = NULL;
    }
    int rc = hcq_program_load(pd->hdev, pd->cubin, &pd->loaded);
    if (rc < 0) {
        pd->loaded = NULL;
        hcqcl_program_dev_log(pd, "loading the program onto %s failed: %s", pd->dev->info->name, strerror(-rc));
        return rc == -ENOMEM ? CL_OUT_OF_RESOURCES : CL_BUILD_PROGRAM_FAILURE;
    }
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Kernel descriptions                                                  */
/* ------------------------------------------------------------------ */

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static cl_kernel_arg_address_qualifier addr_qual(uint8_t a)
{
    switch (a) {
    case CUBIN_CONTAINER_ADDR_GLOBAL: return CL_KERNEL_ARG_ADDRESS_GLOBAL;
    case CUBIN_CONTAINER_ADDR_CONSTANT: return CL_KERNEL_ARG_ADDRESS_CONSTANT;
    case CUBIN_CONTAINER_ADDR_LOCAL: return CL_KERNEL_ARG_ADDRESS_LOCAL;
    default: return CL_KERNEL_ARG_ADDRESS_PRIVATE;
    }
}

static cl_kernel_arg_access_qualifier access_qual(uint8_t a)
{
    switch (a) {
    case CUBIN_CONTAINER_ACCESS_READ_ONLY: return CL_KERNEL_ARG_ACCESS_READ_ONLY;
    case CUBIN_CONTAINER_ACCESS_WRITE_ONLY: return CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
    case CUBIN_CONTAINER_ACCESS_READ_WRITE: return CL_KERNEL_ARG_ACCESS_READ_WRITE;
    default: return CL_KERNEL_ARG_ACCESS_NONE;
    }
}

/* KPARAM_INFO space values in clang-built cubins (opencl-ecosystem §2.4). */
#define KPARAM_SPACE_LOCAL 2
#define KPARAM_SPACE_GLOBAL 4

/* OpenCL C's image types, by the exact name clang records (a type of
 * the program's own, image_info_t say, is none of them). */
static bool is_image_type(const char *t)
{
    static const char *const images[] = {
        "image1d_t", "image1d_array_t", "image1d_buffer_t", "image2d_t", "image2d_array_t",
        "image2d_depth_t", "image2d_array_depth_t", "image2d_msaa_t", "image2d_array_msaa_t",
        "image2d_msaa_depth_t", "image2d_array_msaa_depth_t", "image3d_t",
    };
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(images); i++)
        if (!strcmp(t, images[i]))
            return true;
    return false;
}

/* The memory object type an image type name declares (0: one hcqcl has
 * no objects of, a depth or MSAA image). */
static cl_mem_object_type image_type_of(const char *t)
{
    static const struct {
        const char *name;
        cl_mem_object_type type;
    } types[] = {
        {"image1d_t", CL_MEM_OBJECT_IMAGE1D},
        {"image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER},
        {"image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY},
        {"image2d_t", CL_MEM_OBJECT_IMAGE2D},
        {"image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
        {"image3d_t", CL_MEM_OBJECT_IMAGE3D},
    };
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(types); i++)
        if (!strcmp(t, types[i].name))
            return types[i].type;
    return 0;
}

static bool kdesc_fill(struct hcqcl_kernel_desc *kd, const struct cubin_kernel *ck,
                       const struct cubin_container *meta)
{
    const struct cubin_container_kernel *mk = meta ? cubin_container_kernel(meta, ck->name) : NULL;
    if (mk && mk->num_args != ck->num_params)
        mk = NULL; /* metadata that does not describe this code is ignored */
    kd->name = strdup(ck->name);
    kd->attributes = strdup(mk ? mk->attributes : "");
    kd->printf = mk && (mk->flags & CUBIN_CONTAINER_KERNEL_PRINTF);
    kd->num_args = ck->num_params;
    kd->param_size = ck->param_size;
    kd->args = calloc(ck->num_params ? ck->num_params : 1, sizeof(*kd->args));
    if (!kd->name || !kd->attributes || !kd->args)
        return false;
    for (int d = 0; d < 3; d++) {
        kd->reqd_wgs[d] = mk && mk->reqd_work_group_size[0] ? mk->reqd_work_group_size[d]
                                                            : ck->reqntid[d];
        kd->wgs_hint[d] = mk ? mk->work_group_size_hint[d] : 0;
    }
    for (uint32_t a = 0; a < ck->num_params; a++) {
        const struct cubin_param *cp = &ck->params[a];
        struct hcqcl_arg_desc *ad = &kd->args[a];
        ad->offset = cp->offset;
        ad->size = cp->size;
        ad->align = UTIL_MAX(1u << UTIL_MIN(cp->log_align, 12u), 16u);
        if (mk) {
            const struct cubin_container_arg *ma = &mk->args[a];
            ad->kind = ma->addr == CUBIN_CONTAINER_ADDR_LOCAL   ? HCQCL_ARG_LOCAL
                       : ma->addr == CUBIN_CONTAINER_ADDR_PRIVATE ? HCQCL_ARG_VALUE
                                                                  : HCQCL_ARG_GLOBAL;
            ad->has_info = true;
            ad->addr_qual = addr_qual(ma->addr);
            ad->access_qual = access_qual(ma->access);
            ad->type_qual = ma->type_qual & (CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT |
                                             CL_KERNEL_ARG_TYPE_VOLATILE | CL_KERNEL_ARG_TYPE_PIPE);
            ad->type_name = dup_or_null(ma->type_name);
            ad->name = dup_or_null(ma->name);
            if ((ma->type_name && !ad->type_name) || (ma->name && !ad->name))
                return false;
        } else if (cp->space == KPARAM_SPACE_LOCAL) {
            ad->kind = HCQCL_ARG_LOCAL;
        } else if (cp->space == KPARAM_SPACE_GLOBAL) {
            ad->kind = HCQCL_ARG_GLOBAL;
        } else {
            ad->kind = cp->size == sizeof(uint64_t) ? HCQCL_ARG_POINTER : HCQCL_ARG_VALUE;
        }
        if ((ad->kind == HCQCL_ARG_GLOBAL || ad->kind == HCQCL_ARG_LOCAL) && cp->size != 8 &&
            cp->size != 4)
            ad->kind = HCQCL_ARG_VALUE; /* not a pointer after all */
        /* Images and samplers by their OpenCL C type (clang passes them as
         * pointers): arguments clSetKernelArg can never be given. A
         * typedef of one is known by the type it names. */
        const char *base = mk ? cubin_container_base_name(
                                    (mk->args[a].type_qual & CUBIN_CONTAINER_TYPE_BASE_MASK) >>
                                    CUBIN_CONTAINER_TYPE_BASE_SHIFT)
                              : NULL;
        const char *type = base ? base : ad->type_name;
        if (type && !strcmp(type, "sampler_t")) {
            ad->kind = HCQCL_ARG_SAMPLER;
        } else if (type && is_image_type(type)) {
            ad->kind = HCQCL_ARG_IMAGE;
            ad->image_type = image_type_of(type);
        }
    }
    return true;
}

/* Same parameter layout on another device's cubin. */
static bool kdesc_matches(const struct hcqcl_kernel_desc *kd, const struct cubin *cb)
{
    const struct cubin_kernel *ck = cubin_kernel(cb, kd->name);
    if (!ck || ck->num_params != kd->num_args || ck->param_size != kd->param_size)
        return false;
    for (uint32_t a = 0; a < ck->num_params; a++)
        if (ck->params[a].offset != kd->args[a].offset || ck->params[a].size != kd->args[a].size)
            return false;
    return true;
}

/* Rebuild p->kdescs from the built devices. Called with p->lock held. */
cl_int hcqcl_program_make_kdescs(cl_program p)
{
    hcqcl_program_kdescs_free(p);
    const struct hcqcl_program_dev *first = NULL;
    for (cl_uint i = 0; i < p->num_devices && !first; i++)
        if (p->devs[i].status == CL_BUILD_SUCCESS && p->devs[i].loaded)
            first = &p->devs[i];
    if (!first)
        return CL_SUCCESS;
    const struct cubin *cb = first->cubin;
    size_t names_len = 1;
    p->kdescs = calloc(cb->num_kernels ? cb->num_kernels : 1, sizeof(*p->kdescs));
    if (!p->kdescs)
        return CL_OUT_OF_HOST_MEMORY;
    for (uint32_t k = 0; k < cb->num_kernels; k++) {
        struct hcqcl_kernel_desc *kd = &p->kdescs[k];
        p->num_kernels = k + 1;
        if (!kdesc_fill(kd, &cb->kernels[k], first->meta))
            return CL_OUT_OF_HOST_MEMORY;
        kd->consistent = true;
        for (cl_uint i = 0; i < p->num_devices; i++)
            if (&p->devs[i] != first && p->devs[i].status == CL_BUILD_SUCCESS && p->devs[i].loaded)
                kd->consistent = kd->consistent && kdesc_matches(kd, p->devs[i].cubin);
        names_len += strlen(kd->name) + 1;
    }
    p->kernel_names = calloc(names_len, 1);
    if (!p->kernel_names)
        return CL_OUT_OF_HOST_MEMORY;
    /* CL_PROGRAM_KERNEL_NAMES: "the kernel names in program that can be
     * created with clCreateKernel", so not one defined differently on
     * another device (CL_INVALID_KERNEL_DEFINITION). */
    for (size_t k = 0; k < p->num_kernels; k++) {
        if (!p->kdescs[k].consistent)
            continue;
        if (*p->kernel_names)
            strcat(p->kernel_names, ";");
        strcat(p->kernel_names, p->kdescs[k].name);
    }
    return CL_SUCCESS;
}


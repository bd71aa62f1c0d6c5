/*
 * context.c — contexts: creation from a device list or a device type,
 * properties, reference counting, destructor callbacks and the
 * asynchronous-error notification.
 *
 * A context opens each of its devices (hcq_device_open, reference counted
 * in the core) for its whole life, so queues and buffers created in it
 * find the device up; the last release closes them again.
 */
#include "api/obj.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool hcqcl_context_valid(cl_context c)
{
    return hcqcl_obj_valid(c, HCQCL_TYPE_CONTEXT);
}

bool hcqcl_context_has_device(cl_context c, cl_device_id d)
{
    for (cl_uint i = 0; i < c->num_devices; i++)
        if (c->devices[i] == d)
            return true;
    return false;
}

void hcqcl_context_notify(cl_context c, const char *errinfo, const void *private_info, size_t cb)
{
    util_log(UTIL_LOG_ERR, "context %p: %s", (void *)c, errinfo);
    if (c->notify)
        c->notify(errinfo, private_info, cb, c->notify_data);
}

/* Parsed context properties. */
struct ctx_props {
    cl_platform_id platform;
    bool interop_user_sync;
    size_t count; /* entries including the terminating 0; 0 when properties is NULL */
};

static cl_int props_parse(const cl_context_properties *properties, struct ctx_props *out)
{
    memset(out, 0, sizeof(*out));
    if (!properties)
        return CL_SUCCESS;
    bool seen_platform = false, seen_sync = false;
    size_t i = 0;
    for (; properties[i]; i += 2) {
        cl_context_properties name = properties[i], v = properties[i + 1];
        switch (name) {
        case CL_CONTEXT_PLATFORM:
            /* CL_INVALID_PROPERTY if the same property name is specified more than once */
            HCQCL_CHECK(!seen_platform, CL_INVALID_PROPERTY, "CL_CONTEXT_PLATFORM twice");
            /* CL_INVALID_PLATFORM if platform value specified in properties is not a valid platform */
            HCQCL_CHECK(hcqcl_platform_valid((cl_platform_id)v), CL_INVALID_PLATFORM, "%p",
                        (void *)v);
            seen_platform = true;
            out->platform = (cl_platform_id)v;
            break;
        case CL_CONTEXT_INTEROP_USER_SYNC:
            /* CL_INVALID_PROPERTY if the same property name is specified more than once */
            HCQCL_CHECK(!seen_sync, CL_INVALID_PROPERTY, "CL_CONTEXT_INTEROP_USER_SYNC twice");
            /* CL_INVALID_PROPERTY if the value specified for a supported property name is not valid */
            HCQCL_CHECK(v == CL_TRUE || v == CL_FALSE, CL_INVALID_PROPERTY,
                        "CL_CONTEXT_INTEROP_USER_SYNC = %ld", (long)v);
            seen_sync = true;
            out->interop_user_sync = v == CL_TRUE;
            break;
        default:
            /* CL_INVALID_PROPERTY if context property name in properties is not a supported property name */
            HCQCL_FAIL(CL_INVALID_PROPERTY, "property 0x%lx", (unsigned long)name);
        }
    }
    out->count = i + 1;
    return CL_SUCCESS;
}

static cl_int open_error(int rc)
{
    return rc == -ENOMEM                 ? CL_OUT_OF_HOST_MEMORY
           : rc == -ENODEV || rc == -EIO ? CL_DEVICE_NOT_AVAILABLE
                                         : CL_OUT_OF_RESOURCES;
}

static void context_free(cl_context c)
{
    free(c->devices);
    free(c->props);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Validated inputs → a live context: devices deduplicated and opened.
 * On failure nothing stays open. */
static cl_context
context_create(const cl_context_properties *properties, const struct ctx_props *pp,
               cl_uint num_devices, const cl_device_id *devices,
               void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
               void *user_data, cl_int *err)
{
    cl_context c = calloc(1, sizeof(*c));
    if (!c)
        goto oom;
    hcqcl_obj_init(&c->obj, HCQCL_TYPE_CONTEXT);
    pthread_mutex_init(&c->lock, NULL);
    c->platform = hcqcl_platform_get();
    c->interop_user_sync = pp->interop_user_sync;
    c->notify = notify;
    c->notify_data = user_data;
    c->devices = calloc(num_devices, sizeof(*c->devices));
    if (!c->devices)
        goto oom;
    if (pp->count) {
        c->props = malloc(pp->count * sizeof(*c->props));
        if (!c->props)
            goto oom;
        memcpy(c->props, properties, pp->count * sizeof(*c->props));
        c->num_props = pp->count;
    }
    /* Duplicate devices specified in devices are ignored. */
    for (cl_uint i = 0; i < num_devices; i++)
        if (!hcqcl_context_has_device(c, devices[i]))
            c->devices[c->num_devices++] = devices[i];
    for (cl_uint i = 0; i < c->num_devices; i++) {
        int rc = hcq_device_open(c->devices[i]->hw);
        if (rc < 0) {
            util_log(UTIL_LOG_ERR, "opening %s failed: %d", c->devices[i]->info->name, rc);
            while (i--)
                hcq_device_close(c->devices[i]->hw);
            *err = open_error(rc);
            context_free(c);
            return NULL;
        }
    }
    for (cl_uint i = 0; i < c->num_devices; i++)
        hcqcl_prewarm(c->devices[i]->hw);
    *err = CL_SUCCESS;
    UTIL_LOG(UTIL_LOG_API, "context %p: %u devices", (void *)c, c->num_devices);
    return c;
oom:
    if (c)
        context_free(c);
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
}

cl_context CL_API_CALL hcqcl_clCreateContext(
    const cl_context_properties *properties, cl_uint num_devices, const cl_device_id *devices,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *), void *user_data,
    cl_int *errcode_ret)
{
    cl_int err;
    cl_context c = NULL;
    struct ctx_props pp;
    err = props_parse(properties, &pp);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_VALUE if devices is NULL */
    HCQCL_CHECK_GOTO(devices, err, CL_INVALID_VALUE, "devices NULL");
    /* CL_INVALID_VALUE if num_devices is equal to zero */
    HCQCL_CHECK_GOTO(num_devices, err, CL_INVALID_VALUE, "num_devices 0");
    /* CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL */
    HCQCL_CHECK_GOTO(pfn_notify || !user_data, err, CL_INVALID_VALUE,
                     "user_data without pfn_notify");
    for (cl_uint i = 0; i < num_devices; i++) {
        /* CL_INVALID_DEVICE if any device in devices is not a valid device */
        HCQCL_CHECK_GOTO(hcqcl_device_valid(devices[i]), err, CL_INVALID_DEVICE, "devices[%u] %p",
                         i, (void *)devices[i]);
        /* CL_DEVICE_NOT_AVAILABLE if a device in devices is currently not
         * available even though the device was returned by clGetDeviceIDs */
        HCQCL_CHECK_GOTO(!hcq_device_lost(devices[i]->hw), err, CL_DEVICE_NOT_AVAILABLE,
                         "devices[%u] lost", i);
    }
    c = context_create(properties, &pp, num_devices, devices, pfn_notify, user_data, &err);
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return c;
}

cl_context CL_API_CALL hcqcl_clCreateContextFromType(
    const cl_context_properties *properties, cl_device_type device_type,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *), void *user_data,
    cl_int *errcode_ret)
{
    cl_int err;
    cl_context c = NULL;
    struct ctx_props pp;
    err = props_parse(properties, &pp);
    if (err != CL_SUCCESS)
        goto fail;
    /* CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL */
    HCQCL_CHECK_GOTO(pfn_notify || !user_data, err, CL_INVALID_VALUE,
                     "user_data without pfn_notify");
    /* CL_INVALID_DEVICE_TYPE if device_type is not a valid value;
     * CL_DEVICE_NOT_FOUND if no devices that match device_type are available */
    cl_uint n = 0;
    err = hcqcl_clGetDeviceIDs(hcqcl_platform_get(), device_type, 0, NULL, &n);
    if (err != CL_SUCCESS)
        goto fail;
    cl_device_id *all;
    cl_uint count;
    hcqcl_device_list(&all, &count);
    /* Matching devices are a prefix of the list (all of them are GPUs);
     * the context gets those still available. */
    cl_device_id *avail = malloc((n ? n : 1) * sizeof(*avail));
    HCQCL_CHECK_GOTO(avail, err, CL_OUT_OF_HOST_MEMORY, "device list");
    cl_uint navail = 0;
    for (cl_uint i = 0; i < n; i++)
        if (!hcq_device_lost(all[i]->hw))
            avail[navail++] = all[i];
    if (navail)
        c = context_create(properties, &pp, navail, avail, pfn_notify, user_data, &err);
    free(avail);
    /* CL_DEVICE_NOT_AVAILABLE if no devices that match device_type and
     * property values specified in properties are currently available */
    HCQCL_CHECK_GOTO(navail, err, CL_DEVICE_NOT_AVAILABLE, "all %u matching devices lost", n);
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return c;
}

cl_int CL_API_CALL hcqcl_clRetainContext(cl_context context)
{
    /* CL_INVALID_CONTEXT if context is not a valid OpenCL context */
    HCQCL_CHECK(hcqcl_context_valid(context), CL_INVALID_CONTEXT, "%p", (void *)context);
    hcqcl_obj_retain(&context->obj);
    return CL_SUCCESS;
}

cl_int CL_API_CALL hcqcl_clReleaseContext(cl_context context)
{
    /* CL_INVALID_CONTEXT if context is not a valid OpenCL context */
    HCQCL_CHECK(hcqcl_context_valid(context), CL_INVALID_CONTEXT, "%p", (void *)context);
    if (!hcqcl_obj_release(&context->obj))
        return CL_SUCCESS;
    /* Last reference: every child is gone (children retain the context),
     * so nobody else can reach it. Callbacks run newest first, then the
     * devices close. "When the callback function is called by the
     * implementation, this context is no longer valid. context is only
     * provided for reference purposes": it is invalid before they run. */
    context->obj.type = HCQCL_TYPE_NONE;
    for (struct hcqcl_context_cb *cb = context->destructors, *next; cb; cb = next) {
        next = cb->next;
        cb->fn(context, cb->user_data);
        free(cb);
    }
    hcqcl_printf_release(context);
    for (cl_uint i = 0; i < context->num_devices; i++)
        hcq_device_close(context->devices[i]->hw);
    UTIL_LOG(UTIL_LOG_API, "context %p destroyed", (void *)context);
    context_free(context);
    return CL_SUCCESS;
}

cl_int CL_API_CALL hcqcl_clGetContextInfo(cl_context context, cl_context_info param, size_t size_in,
                                          void *value, size_t *size_ret)
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK(hcqcl_context_valid(context), CL_INVALID_CONTEXT, "%p", (void *)context);
    switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT: {
        cl_uint refs = atomic_load_explicit(&context->obj.refs, memory_order_relaxed);
        return hcqcl_info_out(&refs, sizeof(refs), size_in, value, size_ret);
    }
    case CL_CONTEXT_NUM_DEVICES:
        return hcqcl_info_out(&context->num_devices, sizeof(cl_uint), size_in, value, size_ret);
    case CL_CONTEXT_DEVICES:
        return hcqcl_info_out(context->devices, context->num_devices * sizeof(cl_device_id),
                              size_in, value, size_ret);
    case CL_CONTEXT_PROPERTIES:
        /* Exactly as passed; size 0 when properties was NULL. */
        return hcqcl_info_out(context->props, context->num_props * sizeof(cl_context_properties),
                              size_in, value, size_ret);
    default:
        /* CL_INVALID_VALUE if param_name is not one of the supported values */
        HCQCL_FAIL(CL_INVALID_VALUE, "param 0x%x", (unsigned)param);
    }
}

cl_int CL_API_CALL hcqcl_clSetContextDestructorCallback(
    cl_context context, void(CL_CALLBACK *pfn_notify)(cl_context, void *), void *user_data)
{
    /* CL_INVALID_CONTEXT if context is not a valid OpenCL context */
    HCQCL_CHECK(hcqcl_context_valid(context), CL_INVALID_CONTEXT, "%p", (void *)context);
    /* CL_INVALID_VALUE if pfn_notify is NULL */
    HCQCL_CHECK(pfn_notify, CL_INVALID_VALUE, "pfn_notify NULL");
    struct hcqcl_context_cb *cb = malloc(sizeof(*cb));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources
     * required by the OpenCL implementation on the host */
    HCQCL_CHECK(cb, CL_OUT_OF_HOST_MEMORY, "callback");
    cb->fn = pfn_notify;
    cb->user_data = user_data;
    pthread_mutex_lock(&context->lock);
    cb->next = context->destructors;
    context->destructors = cb;
    pthread_mutex_unlock(&context->lock);
    return CL_SUCCESS;
}

/* The formats of image_format.c's table while images are on
 * (hcqcl_images_enabled); none otherwise (CL_DEVICE_IMAGE_SUPPORT is
 * CL_FALSE then): success with an empty list. Images are never read and
 * written by one kernel (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS is 0): no
 * format for CL_MEM_KERNEL_READ_AND_WRITE. */
cl_int CL_API_CALL hcqcl_clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                                    cl_mem_object_type image_type,
                                                    cl_uint num_entries,
                                                    cl_image_format *image_formats,
                                                    cl_uint *num_image_formats)
{
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK(hcqcl_context_valid(context), CL_INVALID_CONTEXT, "%p", (void *)context);
    const cl_mem_flags known = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY |
                               CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR |
                               CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY |
                               CL_MEM_HOST_NO_ACCESS | CL_MEM_KERNEL_READ_AND_WRITE;
    /* CL_INVALID_VALUE if flags or image_type are not valid (the buffer rules: known bits, one
     * of each mutually exclusive group; CL_MEM_KERNEL_READ_AND_WRITE besides) */
    HCQCL_CHECK(!(flags & ~known), CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
    cl_int err = hcqcl_mem_check_flags(flags & ~(cl_mem_flags)CL_MEM_KERNEL_READ_AND_WRITE);
    if (err != CL_SUCCESS)
        return err;
    HCQCL_CHECK(
        image_type == CL_MEM_OBJECT_IMAGE1D || image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
            image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY || image_type == CL_MEM_OBJECT_IMAGE2D ||
            image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY || image_type == CL_MEM_OBJECT_IMAGE3D,
        CL_INVALID_VALUE, "image_type 0x%x", (unsigned)image_type);
    /* CL_INVALID_VALUE if num_entries is 0 and image_formats is not NULL */
    HCQCL_CHECK(num_entries || !image_formats, CL_INVALID_VALUE, "num_entries 0");
    const cl_uint n = hcqcl_images_enabled() && !(flags & CL_MEM_KERNEL_READ_AND_WRITE)
                          ? hcqcl_image_formats(flags, image_formats, num_entries)
                          : 0;
    if (num_image_formats)
        *num_image_formats = n;
    return CL_SUCCESS;
}

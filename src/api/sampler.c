/*
 * sampler.c — sampler objects: clCreateSampler(WithProperties),
 * retain/release and clGetSamplerInfo. A sampler is only its three
 * settings; a kernel gets them as the HCQCL_SAMPLER_* bits of
 * image_abi.h (the values clang gives a sampler initializer).
 *
 * CL_ADDRESS_REPEAT and CL_ADDRESS_MIRRORED_REPEAT with unnormalized
 * coordinates are accepted here: the OpenCL C specification makes the
 * result of such a read undefined at kernel time, and the API
 * specification names no creation error for the pair.
 */
#include <stdlib.h>
#include <string.h>

#include "api/image_abi.h"
#include "api/obj.h"

bool hcqcl_sampler_valid(cl_sampler s) { return hcqcl_obj_valid(s, HCQCL_TYPE_SAMPLER); }

uint64_t hcqcl_sampler_bits(cl_sampler s)
{
    uint64_t bits = s->normalized ? HCQCL_SAMPLER_NORMALIZED : 0;
    switch (s->addressing) {
    case CL_ADDRESS_CLAMP_TO_EDGE: bits |= HCQCL_SAMPLER_ADDRESS_EDGE; break;
    case CL_ADDRESS_CLAMP: bits |= HCQCL_SAMPLER_ADDRESS_CLAMP; break;
    case CL_ADDRESS_REPEAT: bits |= HCQCL_SAMPLER_ADDRESS_REPEAT; break;
    case CL_ADDRESS_MIRRORED_REPEAT: bits |= HCQCL_SAMPLER_ADDRESS_MIRROR; break;
    default: bits |= HCQCL_SAMPLER_ADDRESS_NONE; break;
    }
    bits |= s->filter == CL_FILTER_LINEAR ? HCQCL_SAMPLER_FILTER_LINEAR
                                          : HCQCL_SAMPLER_FILTER_NEAREST;
    return bits;
}

static cl_int sampler_check(cl_bool normalized, cl_addressing_mode addressing,
                            cl_filter_mode filter)
{
    /* CL_INVALID_VALUE if addressing_mode, filter_mode, normalized_coords or a combination of these arguments are not valid */
    HCQCL_CHECK(normalized == CL_TRUE || normalized == CL_FALSE, CL_INVALID_VALUE,
                "normalized_coords %u", normalized);
    HCQCL_CHECK(addressing == CL_ADDRESS_NONE || addressing == CL_ADDRESS_CLAMP_TO_EDGE ||
                    addressing == CL_ADDRESS_CLAMP || addressing == CL_ADDRESS_REPEAT ||
                    addressing == CL_ADDRESS_MIRRORED_REPEAT,
                CL_INVALID_VALUE, "addressing_mode 0x%x", addressing);
    HCQCL_CHECK(filter == CL_FILTER_NEAREST || filter == CL_FILTER_LINEAR, CL_INVALID_VALUE,
                "filter_mode 0x%x", filter);
    return CL_SUCCESS;
}

static cl_sampler sampler_create(cl_context ctx, const cl_sampler_properties *props,
                                 cl_bool normalized, cl_addressing_mode addressing,
                                 cl_filter_mode filter, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    size_t nprops = 0;
    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(ctx), err, CL_INVALID_CONTEXT, "context %p", (void *)ctx);
    /* CL_INVALID_OPERATION if images are not supported by any device associated with context */
    HCQCL_CHECK_GOTO(hcqcl_images_enabled(), err, CL_INVALID_OPERATION,
                     "images are off (HCQCL_IMAGES=1 turns them on)");
    if (props) {
        bool seen[3] = {false, false, false};
        for (; props[nprops]; nprops += 2) {
            const cl_sampler_properties name = props[nprops], value = props[nprops + 1];
            int k = name == CL_SAMPLER_NORMALIZED_COORDS ? 0
                    : name == CL_SAMPLER_ADDRESSING_MODE ? 1
                    : name == CL_SAMPLER_FILTER_MODE     ? 2
                                                         : -1;
            /* CL_INVALID_VALUE if the property name in sampler_properties is not a supported property name */
            HCQCL_CHECK_GOTO(k >= 0, err, CL_INVALID_VALUE, "property 0x%llx",
                             (unsigned long long)name);
            /* CL_INVALID_VALUE if the same property name is specified more than once */
            HCQCL_CHECK_GOTO(!seen[k], err, CL_INVALID_VALUE, "property 0x%llx twice",
                             (unsigned long long)name);
            seen[k] = true;
            if (k == 0)
                normalized = (cl_bool)value;
            else if (k == 1)
                addressing = (cl_addressing_mode)value;
            else
                filter = (cl_filter_mode)value;
            /* CL_INVALID_VALUE if the value specified for a supported property name is not valid */
            HCQCL_CHECK_GOTO((cl_sampler_properties)(cl_uint)value == value, err,
                             CL_INVALID_VALUE, "property 0x%llx value 0x%llx",
                             (unsigned long long)name, (unsigned long long)value);
        }
        nprops++; /* the terminator */
    }
    err = sampler_check(normalized, addressing, filter);
    if (err != CL_SUCCESS)
        goto fail;
    cl_sampler s = calloc(1, sizeof(*s));
    /* CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources required by the OpenCL implementation on the host */
    HCQCL_CHECK_GOTO(s, err, CL_OUT_OF_HOST_MEMORY, "sampler object");
    hcqcl_obj_init(&s->obj, HCQCL_TYPE_SAMPLER);
    s->obj.dispatch = ctx->obj.dispatch;
    s->ctx = ctx;
    hcqcl_clRetainContext(ctx);
    s->normalized = normalized;
    s->addressing = addressing;
    s->filter = filter;
    if (nprops) {
        memcpy(s->props, props, nprops * sizeof(*props));
        s->props_size = nprops * sizeof(*props);
    }
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return s;
fail:
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_sampler hcqcl_clCreateSampler(cl_context context, cl_bool normalized_coords,
                                 cl_addressing_mode addressing_mode, cl_filter_mode filter_mode,
                                 cl_int *errcode_ret)
{
    return sampler_create(context, NULL, normalized_coords, addressing_mode, filter_mode,
                          errcode_ret);
}

cl_sampler hcqcl_clCreateSamplerWithProperties(cl_context context,
                                               const cl_sampler_properties *sampler_properties,
                                               cl_int *errcode_ret)
{
    /* Defaults: normalized coordinates, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST. */
    return sampler_create(context, sampler_properties, CL_TRUE, CL_ADDRESS_CLAMP,
                          CL_FILTER_NEAREST, errcode_ret);
}

cl_int hcqcl_clRetainSampler(cl_sampler sampler)
{
    /* CL_INVALID_SAMPLER if sampler is not a valid sampler object */
    HCQCL_CHECK(hcqcl_sampler_valid(sampler), CL_INVALID_SAMPLER, "sampler %p", (void *)sampler);
    hcqcl_obj_retain(&sampler->obj);
    return CL_SUCCESS;
}

cl_int hcqcl_clReleaseSampler(cl_sampler sampler)
{
    /* CL_INVALID_SAMPLER if sampler is not a valid sampler object */
    HCQCL_CHECK(hcqcl_sampler_valid(sampler), CL_INVALID_SAMPLER, "sampler %p", (void *)sampler);
    if (hcqcl_obj_release(&sampler->obj)) {
        sampler->obj.type = HCQCL_TYPE_NONE;
        hcqcl_clReleaseContext(sampler->ctx);
        free(sampler);
    }
    return CL_SUCCESS;
}

cl_int hcqcl_clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                              size_t param_value_size, void *param_value,
                              size_t *param_value_size_ret)
{
    /* CL_INVALID_SAMPLER if sampler is not a valid sampler object */
    HCQCL_CHECK(hcqcl_sampler_valid(sampler), CL_INVALID_SAMPLER, "sampler %p", (void *)sampler);
    union {
        cl_uint u;
        cl_context c;
        cl_bool b;
        cl_addressing_mode a;
        cl_filter_mode f;
    } v;
    const void *src = &v;
    size_t n;
    switch (param_name) {
    case CL_SAMPLER_REFERENCE_COUNT:
        v.u = atomic_load_explicit(&sampler->obj.refs, memory_order_relaxed);
        n = sizeof(v.u);
        break;
    case CL_SAMPLER_CONTEXT: v.c = sampler->ctx; n = sizeof(v.c); break;
    case CL_SAMPLER_NORMALIZED_COORDS: v.b = sampler->normalized; n = sizeof(v.b); break;
    case CL_SAMPLER_ADDRESSING_MODE: v.a = sampler->addressing; n = sizeof(v.a); break;
    case CL_SAMPLER_FILTER_MODE: v.f = sampler->filter; n = sizeof(v.f); break;
    case CL_SAMPLER_PROPERTIES: src = sampler->props; n = sampler->props_size; break;
    default:
        /* CL_INVALID_VALUE if param_name is not valid */
        HCQCL_FAIL(CL_INVALID_VALUE, "param_name 0x%x", param_name);
    }
    return hcqcl_info_out(src, n, param_value_size, param_value, param_value_size_ret);
}

/*
 * irimage.c — the conversions of image and sampler values, defined in
 * the program's IR.
 *
 * The image built-ins (image.cl, linked from the shim) need the
 * descriptor address an image argument holds and the bits a sampler
 * holds, but OpenCL C cannot cast an image or sampler type. clang 16
 * lowers them for NVPTX to plain values: an image is a ptr addrspace(1)
 * (the device address of its struct hcqcl_image_abi, src/api/image_abi.h),
 * a sampler a ptr addrspace(4) whose 64 bits are the sampler's
 * HCQCL_SAMPLER_* bits, and a sampler literal a call
 *   call ptr addrspace(4) @__translate_sampler_initializer(i32 19)
 * So image.cl only declares the conversions, and here every declaration
 * of them left in the linked module:
 *   declare dso_local ptr addrspace(1) @_Z17__hcqcl_image_abi14ocl_image2d_ro(ptr addrspace(1)) ...
 *   declare dso_local i32 @__hcqcl_sampler_bits(ptr addrspace(4)) ...
 *   declare dso_local ptr addrspace(4) @__translate_sampler_initializer(i32) ...
 * becomes an internal alwaysinline definition of the same type: the
 * identity, ptrtoint or inttoptr. The IR -> PTX step inlines them (also
 * at -O0), leaving no call. A module without them is copied unchanged.
 */
#include "cc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t line_len(const char *l)
{
    const char *nl = strchr(l, '\n');
    return nl ? (size_t)(nl - l + 1) : strlen(l);
}

/* Length of the IR type at p: "ptr addrspace(N)", "ptr" or "iN"; 0 for
 * anything else. */
static size_t type_len(const char *p)
{
    if (strncmp(p, "ptr addrspace(", 14) == 0) {
        const char *e = strchr(p + 14, ')');
        return e ? (size_t)(e - p + 1) : 0;
    }
    if (strncmp(p, "ptr", 3) == 0 && (p[3] == ' ' || p[3] == ')' || p[3] == ','))
        return 3;
    if (p[0] == 'i' && p[1] >= '1' && p[1] <= '9') {
        size_t n = 1;
        while (p[n] >= '0' && p[n] <= '9')
            n++;
        return n;
    }
    return 0;
}

/* The declared function's name when it is one of the conversions. */
static bool is_conversion(const char *name, size_t len)
{
    static const char *const plain[] = { "__translate_sampler_initializer",
                                         "__hcqcl_sampler_bits" };
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (len == strlen(plain[i]) && memcmp(name, plain[i], len) == 0)
            return true;
    /* _Z17__hcqcl_image_abi<mangled image type> */
    return len > 21 && memcmp(name, "_Z17__hcqcl_image_abi", 21) == 0;
}

/* Write the definition for one declare line; false (logged) when its
 * shape is not the expected one. */
static bool define_conversion(struct cc_buf *out, const char *line, size_t len, const char *at,
                              const char *name, size_t name_len)
{
    /* Return type: after "declare " and any linkage or return attributes. */
    const char *p = line + 8;
    static const char *const skip[] = { "dso_local ", "hidden ", "noundef ", "zeroext ",
                                        "signext ", "nonnull ", "noalias " };
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
            if (strncmp(p, skip[i], strlen(skip[i])) == 0) {
                p += strlen(skip[i]);
                again = true;
            }
    }
    size_t rl = type_len(p);
    const char *param = at + 1 + name_len;
    size_t pl = *param == '(' ? type_len(param + 1) : 0;
    if (!rl || p + rl + 1 != at || !pl || param + 1 + pl > line + len) {
        cc_logf("error: unexpected declaration of an image conversion in the IR: %.*s\n",
                (int)(len - (line[len - 1] == '\n')), line);
        return false;
    }
    param++;
    bool ret_ptr = p[0] == 'p', param_ptr = param[0] == 'p';
    cc_buf_addf(out, "define internal %.*s @%.*s(%.*s %%x) alwaysinline nounwind willreturn "
                     "memory(none) {\n", (int)rl, p, (int)name_len, name, (int)pl, param);
    if (rl == pl && memcmp(p, param, rl) == 0)
        cc_buf_addf(out, "  ret %.*s %%x\n", (int)rl, p);
    else if (ret_ptr && !param_ptr)
        cc_buf_addf(out, "  %%r = inttoptr %.*s %%x to %.*s\n  ret %.*s %%r\n", (int)pl, param,
                    (int)rl, p, (int)rl, p);
    else if (!ret_ptr && param_ptr)
        cc_buf_addf(out, "  %%r = ptrtoint %.*s %%x to %.*s\n  ret %.*s %%r\n", (int)pl, param,
                    (int)rl, p, (int)rl, p);
    else {
        cc_logf("error: image conversion %.*s: no conversion from %.*s to %.*s\n",
                (int)name_len, name, (int)pl, param, (int)rl, p);
        return false;
    }
    cc_buf_add(out, "}\n", 2);
    return true;
}

char *cc_ir_image(const char *ll)
{
    struct cc_buf out = { 0 };
    for (const char *l = ll; *l;) {
        size_t len = line_len(l);
        const char *at = strncmp(l, "declare ", 8) == 0 ? memchr(l, '@', len) : NULL;
        if (at) {
            const char *name = at + 1, *e = name;
            while (e < l + len && *e != '(')
                e++;
            if (is_conversion(name, (size_t)(e - name))) {
                if (!define_conversion(&out, l, len, at, name, (size_t)(e - name))) {
                    free(out.s);
                    return NULL;
                }
                l += len;
                continue;
            }
        }
        cc_buf_add(&out, l, len);
        l += len;
    }
    if (!out.s)
        cc_buf_add(&out, "", 0);
    return out.s;
}

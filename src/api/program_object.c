/*
 * program_object.c — compiled objects and libraries as binaries.
 *
 * Without a cubin linker, an object (clCompileProgram) or a library
 * (clLinkProgram -create-library) is its OpenCL C source: the link
 * compiles the inputs together (program_build.c). So that such a program
 * survives CL_PROGRAM_BINARIES -> clCreateProgramWithBinary and can be
 * linked afterwards, its binary holds that source, the embedded headers
 * and the compile options:
 *
 *   magic "HCQCLSRC", u32 version (1), u32 binary type (1 object,
 *   2 library), u32 header count, u32 options bytes, u64 source bytes,
 *   options, source, then per header: u32 name bytes, u32 text bytes,
 *   name, text. Little-endian, no terminating NULs stored.
 *
 * Executables are hcqcl program containers (cubin/container.h) instead.
 */
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"
#include "cubin/container.h"

#define OBJ_MAGIC "HCQCLSRC"
#define OBJ_VERSION 1u
#define OBJ_HEADER 32u
#define OBJ_TYPE_OBJECT 1u
#define OBJ_TYPE_LIBRARY 2u

bool hcqcl_program_object_is(const void *data, size_t size)
{
    return size >= OBJ_HEADER && memcmp(data, OBJ_MAGIC, 8) == 0;
}

static void put32(uint8_t **w, uint32_t v)
{
    memcpy(*w, &v, 4);
    *w += 4;
}

static void put(uint8_t **w, const void *src, size_t n)
{
    if (n)
        memcpy(*w, src, n);
    *w += n;
}

cl_int hcqcl_program_object_store(cl_program p, struct hcqcl_program_dev *pd)
{
    const char *opts = pd->options ? pd->options : "";
    size_t total = OBJ_HEADER + strlen(opts) + p->source_len;
    for (cl_uint h = 0; h < p->num_headers; h++)
        total += 8 + strlen(p->header_names[h]) + strlen(p->header_srcs[h]);
    uint8_t *buf = malloc(total), *w = buf;
    HCQCL_CHECK(buf, CL_OUT_OF_HOST_MEMORY, "%zu bytes", total);
    uint64_t slen = p->source_len;
    put(&w, OBJ_MAGIC, 8);
    put32(&w, OBJ_VERSION);
    put32(&w, pd->bin_type == CL_PROGRAM_BINARY_TYPE_LIBRARY ? OBJ_TYPE_LIBRARY : OBJ_TYPE_OBJECT);
    put32(&w, p->num_headers);
    put32(&w, (uint32_t)strlen(opts));
    put(&w, &slen, 8);
    put(&w, opts, strlen(opts));
    put(&w, p->source, p->source_len);
    for (cl_uint h = 0; h < p->num_headers; h++) {
        put32(&w, (uint32_t)strlen(p->header_names[h]));
        put32(&w, (uint32_t)strlen(p->header_srcs[h]));
        put(&w, p->header_names[h], strlen(p->header_names[h]));
        put(&w, p->header_srcs[h], strlen(p->header_srcs[h]));
    }
    free(pd->binary);
    pd->binary = buf;
    pd->binary_size = total;
    return CL_SUCCESS;
}

/* A bounds-checked reader over untrusted bytes. */
struct reader {
    const uint8_t *p;
    size_t left;
    bool bad;
};

static const void *take(struct reader *r, size_t n)
{
    if (r->bad || n > r->left) {
        r->bad = true;
        return NULL;
    }
    const void *at = r->p;
    r->p += n;
    r->left -= n;
    return at;
}

static uint32_t take32(struct reader *r)
{
    uint32_t v = 0;
    const void *at = take(r, 4);
    if (at)
        memcpy(&v, at, 4);
    return v;
}

/* A malloc'ed NUL-terminated copy of n bytes; NUL bytes inside are not
 * text, except in a library's link units text (cubin/container.h), which
 * starts with one, when units is set. */
static char *take_text_or_units(struct reader *r, size_t n, bool units)
{
    const char *at = take(r, n);
    if (!at || (memchr(at, '\0', n) && !(units && cubin_units_is(at, n)))) {
        r->bad = true;
        return NULL;
    }
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, at, n);
        s[n] = '\0';
    }
    return s;
}

static char *take_text(struct reader *r, size_t n) { return take_text_or_units(r, n, false); }

cl_int hcqcl_program_object_load(cl_program p, struct hcqcl_program_dev *pd, const void *data,
                                 size_t size)
{
    struct reader r = {data, size, false};
    char *opts = NULL, *src = NULL, **names = NULL, **texts = NULL;
    cl_uint nh = 0;
    cl_int err = CL_INVALID_BINARY;

    take(&r, 8);
    uint32_t version = take32(&r), type = take32(&r);
    nh = take32(&r);
    uint32_t olen = take32(&r);
    uint64_t slen = 0;
    const void *at = take(&r, 8);
    if (at)
        memcpy(&slen, at, 8);
    if (r.bad || version != OBJ_VERSION || (type != OBJ_TYPE_OBJECT && type != OBJ_TYPE_LIBRARY) ||
        nh > 4096 || slen > r.left) {
        hcqcl_program_dev_log(pd, "malformed hcqcl object (version %u, type %u)", version, type);
        goto out;
    }
    opts = take_text(&r, olen);
    src = take_text_or_units(&r, (size_t)slen, type == OBJ_TYPE_LIBRARY);
    names = calloc(nh ? nh : 1, sizeof(char *));
    texts = calloc(nh ? nh : 1, sizeof(char *));
    for (cl_uint h = 0; h < nh && !r.bad && names && texts; h++) {
        uint32_t nl = take32(&r), tl = take32(&r);
        names[h] = take_text(&r, nl);
        texts[h] = take_text(&r, tl);
        if (!r.bad && (!names[h] || !texts[h]))
            err = CL_OUT_OF_HOST_MEMORY;
    }
    if (r.bad || r.left) {
        hcqcl_program_dev_log(pd, "malformed hcqcl object: %s",
                              r.bad ? "truncated" : "trailing bytes");
        err = CL_INVALID_BINARY;
        goto out;
    }
    if (!opts || !src || !names || !texts || err == CL_OUT_OF_HOST_MEMORY) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    /* Every device of one program carries the same source. */
    if (p->source && (p->source_len != slen || memcmp(p->source, src, slen) != 0)) {
        hcqcl_program_dev_log(pd, "objects of different sources for one program");
        err = CL_INVALID_BINARY;
        goto out;
    }
    pd->binary = malloc(size);
    if (!pd->binary) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    memcpy(pd->binary, data, size);
    pd->binary_size = size;
    free(pd->options);
    pd->options = opts;
    opts = NULL;
    pd->bin_type = type == OBJ_TYPE_LIBRARY ? CL_PROGRAM_BINARY_TYPE_LIBRARY
                                            : CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
    if (!p->source) {
        p->source = src;
        p->source_len = (size_t)slen;
        src = NULL;
        p->num_headers = nh;
        p->header_names = names;
        p->header_srcs = texts;
        names = texts = NULL;
    }
    err = CL_SUCCESS;
out:
    for (cl_uint h = 0; h < nh && names; h++)
        free(names[h]);
    for (cl_uint h = 0; h < nh && texts; h++)
        free(texts[h]);
    free(names);
    free(texts);
    free(opts);
    free(src);
    return err;
}

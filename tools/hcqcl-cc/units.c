/*
 * units.c — programs linked from several inputs (container.h, "Link
 * units"): every input is compiled as a translation unit of its own, with
 * its own options, and the units' LLVM modules are linked into the first
 * one's when it is compiled.
 */
#include "cc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* options, a space, then the unit's own options. */
static char *joined(const char *options, const struct cubin_unit *u)
{
    size_t n = strlen(options);
    char *s = malloc(n + u->options_len + 2);
    if (!s)
        return NULL;
    memcpy(s, options, n);
    s[n] = ' ';
    memcpy(s + n + 1, u->options, u->options_len);
    s[n + 1 + u->options_len] = 0;
    return s;
}

char *cc_units_first_options(const char *src, size_t len, const char *options)
{
    size_t pos = 0;
    struct cubin_unit u;
    if (cubin_units_next(src, len, &pos, &u) != 1) {
        cc_logf("error: malformed link units\n");
        return NULL;
    }
    char *s = joined(options, &u);
    if (!s)
        cc_logf("error: out of memory\n");
    return s;
}

/* Unit k's headers under tmp/headersK/ (*dir, set even when there are
 * none), their names as included (no absolute path, no ".."). CC_OK,
 * CC_BUILD_FAILED (a bad name) or CC_ENVIRONMENT. */
static int write_headers(const struct cubin_unit *u, unsigned k, const char *tmp, char *dir,
                         size_t dir_size)
{
    snprintf(dir, dir_size, "%sheaders%u", tmp, k);
    for (size_t h = 0; h < u->num_headers; h++) {
        const char *name, *text;
        size_t nl, tl;
        cubin_unit_header(u, h, &name, &nl, &text, &tl);
        char path[4096];
        if (!nl || name[0] == '/' || memmem(name, nl, "..", 2) || memchr(name, 0, nl) ||
            (size_t)snprintf(path, sizeof(path), "%s/%.*s", dir, (int)nl, name) >= sizeof(path)) {
            cc_logf("error: link unit %u: bad header name\n", k);
            return CC_BUILD_FAILED;
        }
        char *slash = strrchr(path, '/');
        *slash = 0;
        int made = cc_mkdir_p(path);
        *slash = '/';
        if (made != 0 || cc_write_file(path, text, tl) != 0) {
            cc_logf("error: cannot write %s\n", path);
            return CC_ENVIRONMENT;
        }
    }
    return CC_OK;
}

int cc_units_compile(const char *src, size_t len, const char *options, const char *const *head,
                     const char *tmp, bool verbose, struct cc_units *out, bool *arg_info,
                     struct cc_argv *first_clang)
{
    memset(out, 0, sizeof(*out));
    size_t pos = 0;
    struct cubin_unit u;
    int rc = CC_OK;
    for (unsigned k = 0; rc == CC_OK; k++) {
        int r = cubin_units_next(src, len, &pos, &u);
        if (r == 0)
            break;
        if (r < 0) {
            cc_logf("error: malformed link units\n");
            return CC_BUILD_FAILED;
        }
        char cl[4096], bc[4096], hdir[4096];
        snprintf(cl, sizeof(cl), "%sinput%u.cl", tmp, k);
        snprintf(bc, sizeof(bc), "%sinput%u.bc", tmp, k);
        if (cc_write_file(cl, u.source, u.source_len) != 0) {
            cc_logf("error: cannot write %s\n", cl);
            return CC_ENVIRONMENT;
        }
        rc = write_headers(&u, k, tmp, hdir, sizeof(hdir));
        if (rc != CC_OK)
            break;
        if (k == 0) {
            /* The pipeline compiles the first unit itself; its headers
             * are searched after its own -I directories. */
            out->first_path = strdup(cl);
            if (!out->first_path)
                return CC_ENVIRONMENT;
            if (u.num_headers) {
                cc_argv_add(first_clang, "-I");
                cc_argv_add(first_clang, hdir);
            }
            continue;
        }
        char *opts = joined(options, &u);
        struct cc_options o;
        rc = opts ? cc_options_parse(opts, &o) : CC_ENVIRONMENT;
        free(opts);
        if (rc != CC_OK)
            break;
        *arg_info |= o.kernel_arg_info;
        struct cc_argv v = { 0 };
        for (size_t i = 0; head[i]; i++)
            cc_argv_add(&v, head[i]);
        cc_argv_addf(&v, "-cl-std=%s", o.cl_std);
        cc_argv_add(&v, o.opt_disable ? "-O0" : "-O2");
        cc_argv_add(&v, "-cl-kernel-arg-info");
        for (size_t i = 0; i < o.clang.n; i++)
            cc_argv_add(&v, o.clang.v[i]);
        if (u.num_headers) {
            cc_argv_add(&v, "-I");
            cc_argv_add(&v, hdir);
        }
        cc_argv_add(&v, "-emit-llvm");
        cc_argv_add(&v, "-c");
        cc_argv_add(&v, "-o");
        cc_argv_add(&v, bc);
        cc_argv_add(&v, cl);
        if (cc_run(v.v, tmp, verbose) != 0)
            rc = CC_BUILD_FAILED;
        cc_argv_free(&v);
        cc_options_free(&o);
        if (rc == CC_OK) {
            cc_argv_add(&out->link, "-Xclang");
            cc_argv_add(&out->link, "-mlink-bitcode-file");
            cc_argv_add(&out->link, "-Xclang");
            cc_argv_add(&out->link, bc);
        }
    }
    if (rc == CC_OK && !out->first_path) {
        cc_logf("error: malformed link units\n");
        rc = CC_BUILD_FAILED;
    }
    return rc;
}

void cc_units_free(struct cc_units *u)
{
    free(u->first_path);
    cc_argv_free(&u->link);
}

/*
 * options.c — OpenCL build options: splitting, validation, and their
 * translation into clang and ptxas arguments.
 *
 * Only options the OpenCL 3.0 specification lists for clBuildProgram (and
 * NVIDIA's -cl-nv-* extensions, which applications written for NVIDIA's
 * driver pass) are accepted; anything else is refused the way a driver
 * refuses it, with CL_INVALID_BUILD_OPTIONS, so typos are not silently
 * ignored.
 */
#include "cc.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Options passed to clang unchanged. */
static const char *const clang_same[] = {
    "-cl-single-precision-constant",
    "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-mad-enable",
    "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only", "-cl-fast-relaxed-math",
    "-cl-uniform-work-group-size",
    "-w", "-Werror",
};

/* Accepted, with no effect on code for this target: no sub-groups exist
 * to make independent-forward-progress promises about, PTX debug
 * information is not generated, and denormals "may be flushed to zero"
 * under -cl-denorms-are-zero, not must: they are kept (clang 16 does
 * nothing with it for NVPTX but warn that it is unused, an error under
 * -Werror). -cl-strict-aliasing, deprecated since OpenCL 1.1, allows an
 * assumption the compiler need not make (clang 16 warns about it for
 * every version but 1.0). (-cl-nv-arch: nv_option.) */
static const char *const accepted_no_effect[] = {
    "-cl-no-subgroup-ifp", "-g", "-cl-denorms-are-zero", "-cl-strict-aliasing",
    "-nv-line-info", /* NVIDIA's: line numbers for profilers; none here */
};

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

/* An NVIDIA option with its value (cl_nv_compiler_options): the register
 * limit and the optimisation level go to ptxas; the architecture is the
 * device's whatever is asked (a cubin for another one would not load). */
static int nv_option(const char *name, const char *value, struct cc_options *o)
{
    if (!util_nv_option_value_ok(name, value)) {
        cc_logf("error: invalid value '%s' of build option %s\n", value, name);
        return CC_BAD_OPTIONS;
    }
    if (strcmp(name, "-cl-nv-maxrregcount") == 0)
        cc_argv_addf(&o->ptxas, "--maxrregcount=%s", value);
    else if (strcmp(name, "-cl-nv-opt-level") == 0)
        cc_argv_addf(&o->ptxas, "-O%s", value);
    return CC_OK;
}

int cc_options_parse(const char *options, struct cc_options *o)
{
    static const char *const stds[] = { "CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0" };
    memset(o, 0, sizeof(*o));
    o->cl_std = "CL1.2";
    size_t n = 0;
    char **v = util_options_split(options, &n);
    if (!v) {
        cc_logf("error: build options: unterminated quote in \"%s\"\n", options);
        return CC_BAD_OPTIONS;
    }
    int rc = CC_OK;
    for (size_t i = 0; i < n && rc == CC_OK; i++) {
        const char *a = v[i];
        if (strcmp(a, "-D") == 0 || strcmp(a, "-I") == 0) {
            if (i + 1 >= n) {
                cc_logf("error: build option %s needs an argument\n", a);
                rc = CC_BAD_OPTIONS;
                break;
            }
            cc_argv_add(&o->clang, a);
            cc_argv_add(&o->clang, v[++i]);
        } else if (strncmp(a, "-D", 2) == 0 || strncmp(a, "-I", 2) == 0) {
            cc_argv_add(&o->clang, a);
        } else if (strncmp(a, "-cl-std=", 8) == 0) {
            size_t k;
            for (k = 0; k < sizeof(stds) / sizeof(stds[0]); k++)
                if (strcmp(a + 8, stds[k]) == 0)
                    break;
            if (k == sizeof(stds) / sizeof(stds[0])) {
                cc_logf("error: unsupported OpenCL C version in build option '%s'\n", a);
                rc = CC_BAD_OPTIONS;
                break;
            }
            o->cl_std = stds[k];
        } else if (strcmp(a, "-cl-kernel-arg-info") == 0) {
            o->kernel_arg_info = true;
        } else if (strcmp(a, "-cl-opt-disable") == 0) {
            o->opt_disable = true;
        } else if (in_list(a, clang_same, sizeof(clang_same) / sizeof(clang_same[0]))) {
            cc_argv_add(&o->clang, a);
        } else if (strcmp(a, "-cl-nv-arch") == 0 ||
                   strcmp(a, "-cl-nv-maxrregcount") == 0 || strcmp(a, "-cl-nv-opt-level") == 0) {
            /* cl_nv_compiler_options spells the value as the next token
             * ("-cl-nv-maxrregcount <N>"), NVIDIA's older text with '=':
             * both are taken. */
            if (i + 1 >= n) {
                cc_logf("error: build option %s needs an argument\n", a);
                rc = CC_BAD_OPTIONS;
                break;
            }
            rc = nv_option(a, v[++i], o);
        } else if (in_list(a, accepted_no_effect,
                           sizeof(accepted_no_effect) / sizeof(accepted_no_effect[0]))) {
            /* nothing to do */
        } else if (strcmp(a, "-cl-nv-verbose") == 0) {
            cc_argv_add(&o->ptxas, "-v");
        } else if (strncmp(a, "-cl-nv-arch=", 12) == 0 ||
                   strncmp(a, "-cl-nv-maxrregcount=", 20) == 0 ||
                   strncmp(a, "-cl-nv-opt-level=", 17) == 0) {
            char name[24];
            size_t k = (size_t)(strchr(a, '=') - a);
            memcpy(name, a, k);
            name[k] = 0;
            rc = nv_option(name, a + k + 1, o);
        } else {
            cc_logf("error: invalid build option '%s'\n", a);
            rc = CC_BAD_OPTIONS;
        }
    }
    util_options_free(v, n);
    if (rc != CC_OK)
        cc_options_free(o);
    return rc;
}

void cc_options_free(struct cc_options *o)
{
    cc_argv_free(&o->clang);
    cc_argv_free(&o->ptxas);
}

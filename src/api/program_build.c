/*
 * program_build.c — clBuildProgram, clCompileProgram and clLinkProgram:
 * option rules, device selection, build state, embedded headers, and
 * linking by compiling the inputs' sources as one unit.
 *
 * A build runs on the calling thread with the program marked "building"
 * (no lock held while compiling or loading), so clGetProgramBuildInfo can
 * report CL_BUILD_IN_PROGRESS and a second build is refused.
 */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/obj.h"
#include "cubin/container.h"

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

/* OPT_LIBRARY: the library linking options, clLinkProgram's alone. */
enum opt_use { OPT_COMPILE = 1, OPT_LINK = 2, OPT_LIBRARY = 4 };

/* OpenCL 3.0 "Compiler Options" and "Linker Options", plus the NVIDIA
 * options applications written for NVIDIA's OpenCL pass. */
static const struct {
    const char *name;
    unsigned use;
    bool prefix;  /* matches name followed by anything (-cl-std=, ...) */
    bool arg;     /* may take the next token as its argument */
} known_opts[] = {
    {"-D", OPT_COMPILE, true, true},
    {"-I", OPT_COMPILE, true, true},
    {"-cl-single-precision-constant", OPT_COMPILE, false, false},
    {"-cl-denorms-are-zero", OPT_COMPILE | OPT_LINK, false, false},
    {"-cl-fp32-correctly-rounded-divide-sqrt", OPT_COMPILE, false, false},
    {"-cl-opt-disable", OPT_COMPILE, false, false},
    {"-cl-strict-aliasing", OPT_COMPILE, false, false},
    {"-cl-uniform-work-group-size", OPT_COMPILE, false, false},
    {"-cl-no-subgroup-ifp", OPT_COMPILE | OPT_LINK, false, false},
    {"-cl-mad-enable", OPT_COMPILE, false, false},
    {"-cl-no-signed-zeros", OPT_COMPILE | OPT_LINK, false, false},
    {"-cl-unsafe-math-optimizations", OPT_COMPILE | OPT_LINK, false, false},
    {"-cl-finite-math-only", OPT_COMPILE | OPT_LINK, false, false},
    {"-cl-fast-relaxed-math", OPT_COMPILE | OPT_LINK, false, false},
    {"-w", OPT_COMPILE, false, false},
    {"-Werror", OPT_COMPILE, false, false},
    {"-cl-std=CL1.0", OPT_COMPILE, false, false},
    {"-cl-std=CL1.1", OPT_COMPILE, false, false},
    {"-cl-std=CL1.2", OPT_COMPILE, false, false},
    {"-cl-std=CL2.0", OPT_COMPILE, false, false},
    {"-cl-std=CL3.0", OPT_COMPILE, false, false},
    {"-cl-kernel-arg-info", OPT_COMPILE, false, false},
    {"-g", OPT_COMPILE, false, false},
    {"-create-library", OPT_LIBRARY, false, false},
    {"-enable-link-options", OPT_LIBRARY, false, false},
    {"-cl-nv-verbose", OPT_COMPILE, false, false},
    {"-cl-nv-maxrregcount=", OPT_COMPILE, true, false},
    {"-cl-nv-maxrregcount", OPT_COMPILE, false, true},
    {"-cl-nv-opt-level=", OPT_COMPILE, true, false},
    {"-cl-nv-opt-level", OPT_COMPILE, false, true},
    {"-cl-nv-arch=", OPT_COMPILE, true, false},
    {"-cl-nv-arch", OPT_COMPILE, false, true},
    {"-nv-line-info", OPT_COMPILE, false, false},
};

/* Whether value is one the NVIDIA option named by name[0, name_len) (its
 * '=' included or not) may not take; false for any other option. */
static bool nv_value_bad(const char *name, size_t name_len, const char *value)
{
    char base[32];
    if (strncmp(name, "-cl-nv-", 7) != 0 || name_len >= sizeof(base))
        return false;
    memcpy(base, name, name_len);
    base[name_len - (name[name_len - 1] == '=')] = '\0';
    return !util_nv_option_value_ok(base, value);
}

/* Check every option of a build (use = COMPILE|LINK), compile (COMPILE)
 * or link (LINK): what the compiler would refuse is invalid here, before
 * a build begins, and the same whether a compiler or only the cache is
 * at hand (both split the options with util_options_split). */
static bool options_valid(const char *options, unsigned use, char *why, size_t why_size)
{
    size_t n = 0;
    char **v = util_options_split(options, &n);
    if (!v) {
        snprintf(why, why_size, "a quote left open in the options (or no memory)");
        return false;
    }
    bool valid = true;
    for (size_t w = 0; w < n && valid; w++) {
        const char *tok = v[w];
        size_t len = strlen(tok), i, name_len = 0;
        for (i = 0; i < UTIL_ARRAY_SIZE(known_opts); i++) {
            name_len = strlen(known_opts[i].name);
            if ((known_opts[i].use & use) &&
                (known_opts[i].prefix ? len >= name_len : len == name_len) &&
                strncmp(tok, known_opts[i].name, name_len) == 0)
                break;
        }
        if (i == UTIL_ARRAY_SIZE(known_opts)) {
            snprintf(why, why_size, "unknown or misplaced option '%.200s'", tok);
            valid = false;
        } else if (known_opts[i].arg && len == name_len) {
            /* Its argument is the next option. */
            if (w + 1 == n) {
                snprintf(why, why_size, "option %s without its argument", tok);
                valid = false;
            } else if (nv_value_bad(tok, len, v[++w])) {
                snprintf(why, why_size, "invalid value '%.200s' of option %s", v[w], tok);
                valid = false;
            }
        } else if (known_opts[i].prefix && nv_value_bad(tok, name_len, tok + name_len)) {
            snprintf(why, why_size, "invalid value in option '%.200s'", tok);
            valid = false;
        }
    }
    util_options_free(v, n);
    return valid;
}

/* ------------------------------------------------------------------ */
/* Shared validation of the build entry points                         */
/* ------------------------------------------------------------------ */

/* Validate (num_devices, device_list) against the program's devices and
 * fill targets[i] = true for every program device to build; then the
 * callback pair (has_notify: pfn_notify was given), checked next by both
 * clBuildProgram and clCompileProgram. */
static cl_int pick_devices(cl_program p, cl_uint num_devices, const cl_device_id *device_list,
                           bool has_notify, const void *user_data, bool *targets)
{
    /* CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if device_list is not NULL and num_devices is zero */
    HCQCL_CHECK(!device_list == !num_devices, CL_INVALID_VALUE, "device_list %p, num_devices %u",
                (void *)device_list, num_devices);
    for (cl_uint i = 0; i < p->num_devices; i++)
        targets[i] = !device_list;
    for (cl_uint d = 0; d < num_devices; d++) {
        bool found = false;
        for (cl_uint i = 0; i < p->num_devices; i++)
            if (p->devs[i].dev == device_list[d])
                found = targets[i] = true;
        /* CL_INVALID_DEVICE if any device in device_list is not in the list of devices associated with program */
        HCQCL_CHECK(found, CL_INVALID_DEVICE, "device_list[%u] %p", d, (void *)device_list[d]);
    }
    /* CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL */
    HCQCL_CHECK(has_notify || !user_data, CL_INVALID_VALUE, "user_data without pfn_notify");
    return CL_SUCCESS;
}

/* Mark the targets in progress; refuses concurrent builds and builds of
 * programs with kernels. */
static cl_int begin_build(cl_program p, const bool *targets)
{
    cl_int err = CL_SUCCESS;
    /* A kernel the application released stays attached only while
     * unfinished commands use it: let finished ones go first. */
    if (atomic_load(&p->kernels) > 0)
        hcqcl_events_settle();
    pthread_mutex_lock(&p->lock);
    /* A link reading it as an input: only while it copies the input's
     * units and options, so a short wait. */
    while (p->linking && !p->building) {
        pthread_mutex_unlock(&p->lock);
        nanosleep(&(struct timespec){0, 100000}, NULL);
        pthread_mutex_lock(&p->lock);
    }
    if (p->building) {
        /* CL_INVALID_OPERATION if the build of a program executable by a previous call has not completed */
        err = CL_INVALID_OPERATION;
        util_log_check(__func__, "!building", hcqcl_error_name(err), "program %p", (void *)p);
    } else if (atomic_load(&p->kernels) > 0) {
        /* CL_INVALID_OPERATION if there are kernel objects attached to program */
        err = CL_INVALID_OPERATION;
        util_log_check(__func__, "kernels == 0", hcqcl_error_name(err), "program %p", (void *)p);
    } else {
        p->building = true;
        for (cl_uint i = 0; i < p->num_devices; i++)
            if (targets[i])
                p->devs[i].status = CL_BUILD_IN_PROGRESS;
    }
    pthread_mutex_unlock(&p->lock);
    return err;
}

static cl_int end_build(cl_program p)
{
    pthread_mutex_lock(&p->lock);
    cl_int err = hcqcl_program_make_kdescs(p);
    p->building = false;
    pthread_mutex_unlock(&p->lock);
    return err;
}

static void set_options(struct hcqcl_program_dev *pd, const char *options)
{
    free(pd->options);
    pd->options = strdup(options ? options : "");
}

/* A build or compile of pd begins: its options, an empty log, and from
 * source nothing else, a binary or executable of an earlier build gone,
 * failed or not ("If a binary is not available for a device(s), a size of
 * zero is returned"). The work runs without the lock on a record of its
 * own, *work, while other threads may query pd ("All other OpenCL API
 * calls are thread-safe"); a binary's code is only loaded again. */
static void work_begin(cl_program p, struct hcqcl_program_dev *pd, const char *options,
                       bool from_source, struct hcqcl_program_dev *work)
{
    pthread_mutex_lock(&p->lock);
    set_options(pd, options);
    hcqcl_program_dev_log_clear(pd);
    if (from_source) {
        hcqcl_program_dev_reset(pd);
        pd->bin_type = CL_PROGRAM_BINARY_TYPE_NONE;
    }
    pthread_mutex_unlock(&p->lock);
    *work = (struct hcqcl_program_dev){.dev = pd->dev,
                                       .hdev = pd->hdev,
                                       .bin_type = CL_PROGRAM_BINARY_TYPE_NONE,
                                       .cubin = from_source ? NULL : pd->cubin};
}

/* What the work made becomes pd's, p->lock held: its log and loaded
 * program, and from source its binary and code. */
static void work_end(struct hcqcl_program_dev *pd, struct hcqcl_program_dev *work,
                     bool from_source)
{
    if (from_source) {
        hcqcl_program_dev_reset(pd);
        pd->binary = work->binary;
        pd->binary_size = work->binary_size;
        pd->cubin = work->cubin;
        pd->meta = work->meta;
        pd->bin_type = work->bin_type;
    } else if (pd->loaded) {
        hcq_program_unload(pd->loaded);
    }
    pd->loaded = work->loaded;
    free(pd->log);
    pd->log = work->log;
}

/* ------------------------------------------------------------------ */
/* clBuildProgram                                                       */
/* ------------------------------------------------------------------ */

cl_int hcqcl_clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *device_list,
                            const char *options,
                            void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data)
{
    char why[256];
    cl_int err, result = CL_SUCCESS;

    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK(hcqcl_program_valid(program), CL_INVALID_PROGRAM, "program %p", (void *)program);
    bool targets[program->num_devices];
    err = pick_devices(program, num_devices, device_list, pfn_notify != NULL, user_data, targets);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_OPERATION if program was not created with clCreateProgramWithSource, clCreateProgramWithIL or clCreateProgramWithBinary */
    HCQCL_CHECK(!program->linked, CL_INVALID_OPERATION, "program %p was made by clLinkProgram",
                (void *)program);
    /* CL_INVALID_BUILD_OPTIONS if the build options specified by options are invalid (the library linking options -create-library and -enable-link-options are clLinkProgram's) */
    HCQCL_CHECK(options_valid(options, OPT_COMPILE | OPT_LINK, why, sizeof(why)),
                CL_INVALID_BUILD_OPTIONS, "%s", why);
    for (cl_uint i = 0; i < program->num_devices; i++)
        /* CL_INVALID_BINARY if program is created with clCreateProgramWithBinary and devices listed in device_list do not have a valid program binary loaded */
        HCQCL_CHECK(!targets[i] || program->source || program->devs[i].cubin, CL_INVALID_BINARY,
                    "device %u has no binary", i);
    err = begin_build(program, targets);
    if (err != CL_SUCCESS)
        return err;

    for (cl_uint i = 0; i < program->num_devices; i++) {
        struct hcqcl_program_dev *pd = &program->devs[i];
        if (!targets[i])
            continue;
        /* "If the program was created using clCreateProgramWithBinary and
         * options is a NULL pointer, the program will be built as if
         * options were the same as when the program binary was originally
         * built": an object's compile options, an executable's own. */
        char *orig = NULL;
        if (!options && program->from_binary) {
            const char *o = pd->bin_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                                ? (pd->meta ? pd->meta->options : NULL)
                                : pd->options;
            orig = o ? strdup(o) : NULL;
        }
        const char *use = options ? options : orig;
        const bool from_source = program->source != NULL;
        struct hcqcl_program_dev work;
        work_begin(program, pd, use, from_source, &work);
        err = from_source ? hcqcl_program_dev_compile(&work, program->source,
                                                      program->source_len, use,
                                                      CL_BUILD_PROGRAM_FAILURE)
                          : CL_SUCCESS;
        free(orig);
        if (err == CL_SUCCESS)
            err = hcqcl_program_dev_load(&work);
        pthread_mutex_lock(&program->lock);
        work_end(pd, &work, from_source);
        pd->status = err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
        if (err == CL_SUCCESS)
            pd->bin_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
        pthread_mutex_unlock(&program->lock);
        if (err != CL_SUCCESS && result == CL_SUCCESS)
            result = err;
    }
    err = end_build(program);
    if (result == CL_SUCCESS)
        result = err;
    if (pfn_notify)
        pfn_notify(program, user_data);
    /* CL_COMPILER_NOT_AVAILABLE if program is created with clCreateProgramWithSource and a compiler is not available (CL_DEVICE_COMPILER_AVAILABLE is CL_FALSE: compiler.c) */
    /* CL_BUILD_PROGRAM_FAILURE if there is a failure to build the program executable */
    HCQCL_CHECK(result == CL_SUCCESS, result, "program %p: see the build log", (void *)program);
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* clCompileProgram                                                     */
/* ------------------------------------------------------------------ */

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    return remove(path) && errno != ENOENT ? -1 : 0;
}

/* Remove a private header directory and what it holds. */
static void remove_tree(const char *dir)
{
    if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        UTIL_LOG(UTIL_LOG_API, "headers: %s not removed: %s", dir, strerror(errno));
}

/* Write the embedded headers under a directory named by their names and
 * contents; *dir is malloc'ed. The name is part of the compile options,
 * so the same headers give the same cache key in every process of a user
 * (and on every machine with the same TMPDIR and user): a program
 * compiled with them where a compiler exists is found in the cache where
 * none does. Files are
 * written to a temporary name and renamed, so concurrent writers of the
 * same headers never expose a partial file; the directory is kept.
 * *private_dir: a directory of a random name was used instead (see
 * below), which the caller removes after the compile. */
static cl_int write_headers(cl_uint n, char **names, char **srcs, char **dir, bool *private_dir)
{
    size_t total = 0;
    for (cl_uint i = 0; i < n; i++)
        total += strlen(names[i]) + strlen(srcs[i]) + 2;
    char *blob = malloc(total ? total : 1), *w = blob;
    if (!blob)
        return CL_OUT_OF_HOST_MEMORY;
    for (cl_uint i = 0; i < n; i++) {
        size_t a = strlen(names[i]) + 1, b = strlen(srcs[i]) + 1;
        memcpy(w, names[i], a);
        memcpy(w + a, srcs[i], b);
        w += a + b;
    }
    char key[65];
    cubin_container_cache_key(blob, total, "", 0, "embedded headers", key);
    free(blob);
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    char base[4096];
    snprintf(base, sizeof(base), "%s/hcqcl-headers-%u-%.24s", tmp, (unsigned)geteuid(), key);
    if (mkdir(base, 0700) && errno != EEXIST)
        return CL_OUT_OF_RESOURCES;
    /* The name is predictable: in a shared TMPDIR another user may have
     * made it first (or a link by that name), and could swap the headers
     * between their writing and the compiler's reading. Only a directory
     * of this user's that nobody else may write is used; otherwise the
     * headers go to a private directory of a random name (its compiles
     * then miss the cache), removed after the compile. */
    struct stat st;
    *private_dir = lstat(base, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
                   (st.st_mode & 0022);
    if (*private_dir) {
        /* Not "hcqcl-headers-": a random name in the options is no key to
         * store the build under (compiler.c, user_include_path). */
        snprintf(base, sizeof(base), "%s/hcqcl-private-headers-XXXXXX", tmp);
        if (!mkdtemp(base))
            return CL_OUT_OF_RESOURCES;
    }
    for (cl_uint i = 0; i < n; i++) {
        /* "If multiple entries in header_include_names refer to the same
         * header name, the first one encountered will be used." */
        bool seen = false;
        for (cl_uint j = 0; j < i && !seen; j++)
            seen = !strcmp(names[j], names[i]);
        if (seen)
            continue;
        char path[8192], part[8300];
        snprintf(path, sizeof(path), "%s/%s", base, names[i]);
        for (char *s = path + strlen(base) + 1; (s = strchr(s, '/')); s++) {
            *s = '\0';
            mkdir(path, 0700);
            *s = '/';
        }
        snprintf(part, sizeof(part), "%s.%ld.%lx", path, (long)getpid(),
                 (unsigned long)pthread_self());
        FILE *f = fopen(part, "w");
        bool ok = f && fputs(srcs[i], f) >= 0;
        if (f && fclose(f))
            ok = false;
        if (!ok || rename(part, path)) {
            unlink(part);
            if (*private_dir)
                remove_tree(base);
            return CL_OUT_OF_RESOURCES;
        }
    }
    *dir = strdup(base);
    if (!*dir && *private_dir)
        remove_tree(base);
    return *dir ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
}

/* Compile src with p's (or the given) headers visible to #include. */
static cl_int compile_with_headers(struct hcqcl_program_dev *pd, const char *src, size_t len,
                                   const char *options, cl_uint nh, char **names, char **srcs,
                                   cl_int failure)
{
    char *dir = NULL;
    bool private_dir = false;
    if (nh == 0)
        return hcqcl_program_dev_compile(pd, src, len, options, failure);
    cl_int err = write_headers(nh, names, srcs, &dir, &private_dir);
    if (err != CL_SUCCESS)
        return err;
    size_t olen = strlen(options ? options : "") + strlen(dir) + 10;
    char *opts = malloc(olen);
    if (!opts) {
        err = CL_OUT_OF_HOST_MEMORY;
    } else {
        /* "The embedded headers are first searched before the headers in
         * the list of directories specified by the -I compile option". */
        snprintf(opts, olen, "-I \"%s\" %s", dir, options ? options : "");
        err = hcqcl_program_dev_compile(pd, src, len, opts, failure);
    }
    if (private_dir)
        remove_tree(dir);
    free(opts);
    free(dir);
    return err;
}

static cl_int keep_headers(cl_program p, cl_uint n, const cl_program *headers, const char **names)
{
    cl_int err = CL_SUCCESS;
    for (cl_uint i = 0; i < n && err == CL_SUCCESS; i++) {
        const char *text = headers[i]->source ? headers[i]->source : "";
        err = hcqcl_program_add_header(p, names[i], strlen(names[i]), text, strlen(text));
    }
    return err;
}

cl_int hcqcl_clCompileProgram(cl_program program, cl_uint num_devices,
                              const cl_device_id *device_list, const char *options,
                              cl_uint num_input_headers, const cl_program *input_headers,
                              const char **header_include_names,
                              void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data)
{
    char why[256];
    cl_int err, result = CL_SUCCESS;

    /* CL_INVALID_PROGRAM if program is not a valid program object */
    HCQCL_CHECK(hcqcl_program_valid(program), CL_INVALID_PROGRAM, "program %p", (void *)program);
    bool targets[program->num_devices];
    err = pick_devices(program, num_devices, device_list, pfn_notify != NULL, user_data, targets);
    if (err != CL_SUCCESS)
        return err;
    /* CL_INVALID_VALUE if num_input_headers is zero and header_include_names or input_headers are not NULL */
    HCQCL_CHECK(num_input_headers || (!header_include_names && !input_headers), CL_INVALID_VALUE,
                "headers given with num_input_headers 0");
    /* CL_INVALID_VALUE if num_input_headers is not zero and header_include_names or input_headers are NULL */
    HCQCL_CHECK(!num_input_headers || (header_include_names && input_headers), CL_INVALID_VALUE,
                "num_input_headers %u without headers", num_input_headers);
    for (cl_uint i = 0; i < num_input_headers; i++) {
        /* CL_INVALID_PROGRAM if input_headers contains an invalid program object */
        HCQCL_CHECK(hcqcl_program_valid(input_headers[i]) && input_headers[i]->source,
                    CL_INVALID_PROGRAM, "input_headers[%u]", i);
        /* CL_INVALID_CONTEXT if the context associated with program and programs in input_headers are not the same */
        HCQCL_CHECK(input_headers[i]->ctx == program->ctx, CL_INVALID_CONTEXT,
                    "input_headers[%u] of another context", i);
        /* CL_INVALID_VALUE if header_include_names contains NULL */
        HCQCL_CHECK(header_include_names[i] && *header_include_names[i] &&
                        header_include_names[i][0] != '/' &&
                        !strstr(header_include_names[i], ".."),
                    CL_INVALID_VALUE, "header_include_names[%u]", i);
    }
    /* CL_INVALID_COMPILER_OPTIONS if the compiler options specified by options are invalid */
    HCQCL_CHECK(options_valid(options, OPT_COMPILE, why, sizeof(why)), CL_INVALID_COMPILER_OPTIONS,
                "%s", why);
    /* CL_INVALID_OPERATION if program has no source or IL available, i.e. it has not been created with clCreateProgramWithSource or clCreateProgramWithIL (a binary's kept units are for linking, not compiling) */
    HCQCL_CHECK(program->source && !program->linked && !program->from_binary,
                CL_INVALID_OPERATION, "program %p has no source", (void *)program);
    err = begin_build(program, targets);
    if (err != CL_SUCCESS)
        return err;

    pthread_mutex_lock(&program->lock);
    for (cl_uint i = 0; i < program->num_headers; i++) {
        free(program->header_names[i]);
        free(program->header_srcs[i]);
    }
    free(program->header_names);
    free(program->header_srcs);
    program->header_names = program->header_srcs = NULL;
    program->num_headers = 0;
    result = keep_headers(program, num_input_headers, input_headers, header_include_names);
    if (result == CL_SUCCESS)
        result = hcqcl_program_keep_included(program, options);
    pthread_mutex_unlock(&program->lock);

    for (cl_uint i = 0; i < program->num_devices && result == CL_SUCCESS; i++) {
        struct hcqcl_program_dev *pd = &program->devs[i];
        if (!targets[i])
            continue;
        struct hcqcl_program_dev work;
        work_begin(program, pd, options, true, &work);
        err = compile_with_headers(&work, program->source, program->source_len, options,
                                   program->num_headers, program->header_names,
                                   program->header_srcs, CL_COMPILE_PROGRAM_FAILURE);
        if (err == CL_INVALID_BUILD_OPTIONS)
            err = CL_INVALID_COMPILER_OPTIONS;
        pthread_mutex_lock(&program->lock);
        work_end(pd, &work, true);
        pd->status = err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
        pd->bin_type = err == CL_SUCCESS ? CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
                                         : CL_PROGRAM_BINARY_TYPE_NONE;
        if (err == CL_SUCCESS)
            err = hcqcl_program_object_store(program, pd);
        pthread_mutex_unlock(&program->lock);
        if (err != CL_SUCCESS && result == CL_SUCCESS)
            result = err;
    }
    pthread_mutex_lock(&program->lock);
    for (cl_uint i = 0; i < program->num_devices; i++)
        if (targets[i] && program->devs[i].status == CL_BUILD_IN_PROGRESS)
            program->devs[i].status = CL_BUILD_ERROR;
    pthread_mutex_unlock(&program->lock);
    err = end_build(program);
    if (result == CL_SUCCESS)
        result = err;
    if (pfn_notify)
        pfn_notify(program, user_data);
    /* CL_COMPILER_NOT_AVAILABLE if a compiler is not available, i.e. CL_DEVICE_COMPILER_AVAILABLE is CL_FALSE */
    /* CL_COMPILE_PROGRAM_FAILURE if there is a failure to compile the program source */
    HCQCL_CHECK(result == CL_SUCCESS, result, "program %p: see the build log", (void *)program);
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* clLinkProgram                                                        */
/* ------------------------------------------------------------------ */

/* Without a cubin linker, linking compiles the inputs again: each as a
 * translation unit of its own with the options it was compiled with,
 * handed to the compiler as link units (cubin/container.h, "Link
 * units"), whose LLVM modules it links; a lone input is compiled as a
 * program. A library's units count as inputs. The link options apply to
 * every unit. */

struct strbuf {
    char *s;
    size_t len, cap;
    bool failed;
};

static void sb_add(struct strbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->cap - b->len <= n) {
        size_t cap = (b->cap + n) * 2 + 64;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}
static void sb_str(struct strbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

/* Next white-space separated token of *s; false at the end. */
static bool next_token(const char **s, const char **tok, size_t *len)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (!*p)
        return false;
    const char *e = p;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r')
        e++;
    *tok = p;
    *len = (size_t)(e - p);
    *s = e;
    return true;
}

/* Copy options into rest, but for the two that only steer the link. */
static void link_options(const char *options, struct strbuf *rest)
{
    const char *s = options ? options : "", *tok;
    size_t len;
    while (next_token(&s, &tok, &len)) {
        bool is_link = (len == 15 && strncmp(tok, "-create-library", 15) == 0) ||
                       (len == 20 && strncmp(tok, "-enable-link-options", 20) == 0);
        if (!is_link) {
            sb_add(rest, tok, len);
            sb_str(rest, " ");
        }
    }
}

/* "//unit" line, options, source; the header records follow. */
static void unit_add(struct strbuf *b, const struct cubin_unit *u)
{
    char tag[96];
    snprintf(tag, sizeof(tag), "//unit %zu %zu %zu\n", u->options_len, u->source_len,
             u->num_headers);
    sb_str(b, tag);
    sb_add(b, u->options, u->options_len);
    sb_add(b, u->source, u->source_len);
}

/* The units of input in: its own (a library's), or its source with the
 * options it was compiled with and the headers it kept. */
static cl_int input_units(cl_program in, const char *opts, struct strbuf *units, unsigned *count)
{
    if (!cubin_units_is(in->source, in->source_len)) {
        struct cubin_unit u = {.options = opts,
                               .options_len = strlen(opts),
                               .source = in->source,
                               .source_len = in->source_len,
                               .num_headers = in->num_headers};
        unit_add(units, &u);
        for (cl_uint h = 0; h < in->num_headers; h++) {
            char tag[96];
            size_t n = strlen(in->header_names[h]), t = strlen(in->header_srcs[h]);
            snprintf(tag, sizeof(tag), "//header %zu %zu\n", n, t);
            sb_str(units, tag);
            sb_add(units, in->header_names[h], n);
            sb_add(units, in->header_srcs[h], t);
        }
        (*count)++;
        return units->failed ? CL_OUT_OF_HOST_MEMORY : CL_SUCCESS;
    }
    struct cubin_unit u;
    size_t pos = 0;
    int r;
    while ((r = cubin_units_next(in->source, in->source_len, &pos, &u)) == 1) {
        unit_add(units, &u);
        sb_add(units, u.headers, u.headers_len);
        (*count)++;
    }
    /* CL_INVALID_PROGRAM: a library binary whose units do not parse */
    HCQCL_CHECK(r == 0, CL_INVALID_PROGRAM, "input program %p: malformed link units", (void *)in);
    return units->failed ? CL_OUT_OF_HOST_MEMORY : CL_SUCCESS;
}

static cl_int link_inputs(cl_program out, cl_uint n, const cl_program *in, const char *options,
                          bool library, struct strbuf *src, struct strbuf *opts)
{
    struct strbuf units = {0};
    unsigned count = 0;
    cl_int err = CL_SUCCESS;
    sb_add(&units, CUBIN_UNITS_MAGIC, CUBIN_UNITS_MAGIC_LEN);
    for (cl_uint k = 0; k < n && err == CL_SUCCESS; k++) {
        /* The input's object for a device the link is for. */
        const struct hcqcl_program_dev *pd = NULL;
        for (cl_uint i = 0; i < in[k]->num_devices && !pd; i++) {
            const struct hcqcl_program_dev *d = &in[k]->devs[i];
            if (d->bin_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
                d->bin_type != CL_PROGRAM_BINARY_TYPE_LIBRARY)
                continue;
            for (cl_uint j = 0; j < out->num_devices; j++)
                if (d->dev == out->devs[j].dev && !out->devs[j].not_linked)
                    pd = d;
        }
        /* Compile options; "-create-library" of a library kept as source. */
        struct strbuf own = {0};
        sb_str(&own, "");
        link_options(pd ? pd->options : NULL, &own);
        err = own.failed ? CL_OUT_OF_HOST_MEMORY
                         : input_units(in[k], own.s, &units, &count);
        free(own.s);
    }
    struct cubin_unit first;
    size_t pos = 0;
    if (err == CL_SUCCESS && !units.failed && count == 1 && !library &&
        cubin_units_next(units.s, units.len, &pos, &first) == 1) {
        /* One unit: a program, with its options before the link's and its
         * headers kept for the build. A library keeps its units. */
        sb_add(src, first.source, first.source_len);
        sb_add(opts, first.options, first.options_len);
        sb_str(opts, " ");
        for (size_t h = 0; h < first.num_headers && err == CL_SUCCESS; h++) {
            const char *name, *text;
            size_t nl, tl;
            cubin_unit_header(&first, h, &name, &nl, &text, &tl);
            err = hcqcl_program_add_header(out, name, nl, text, tl);
        }
    } else if (err == CL_SUCCESS) {
        *src = units;
        units = (struct strbuf){0};
    }
    free(units.s);
    link_options(options, opts);
    if (err == CL_SUCCESS && (src->failed || opts->failed || !src->s))
        err = CL_OUT_OF_HOST_MEMORY;
    return err;
}

/* Let go of the first n inputs a link held. */
static void unhold_inputs(const cl_program *in, cl_uint n)
{
    for (cl_uint k = 0; k < n; k++) {
        pthread_mutex_lock(&in[k]->lock);
        in[k]->linking--;
        pthread_mutex_unlock(&in[k]->lock);
    }
}

cl_program hcqcl_clLinkProgram(cl_context context, cl_uint num_devices,
                               const cl_device_id *device_list, const char *options,
                               cl_uint num_input_programs, const cl_program *input_programs,
                               void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data,
                               cl_int *errcode_ret)
{
    char why[256];
    cl_int err = CL_SUCCESS, result = CL_SUCCESS;
    cl_program p = NULL;
    struct strbuf src = {0}, opts = {0};
    cl_uint held = 0; /* input_programs[0 .. held) are held (linking) */

    /* CL_INVALID_CONTEXT if context is not a valid context */
    HCQCL_CHECK_GOTO(hcqcl_context_valid(context), err, CL_INVALID_CONTEXT, "context %p",
                     (void *)context);
    /* CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if device_list is not NULL and num_devices is zero */
    HCQCL_CHECK_GOTO(!device_list == !num_devices, err, CL_INVALID_VALUE,
                     "device_list %p, num_devices %u", (void *)device_list, num_devices);
    for (cl_uint d = 0; d < num_devices; d++)
        /* CL_INVALID_DEVICE if any device in device_list is not in the list of devices associated with context */
        HCQCL_CHECK_GOTO(hcqcl_device_valid(device_list[d]) &&
                             hcqcl_context_has_device(context, device_list[d]),
                         err, CL_INVALID_DEVICE, "device_list[%u]", d);
    /* CL_INVALID_VALUE if num_input_programs is zero or input_programs is NULL */
    HCQCL_CHECK_GOTO(num_input_programs && input_programs, err, CL_INVALID_VALUE,
                     "num_input_programs %u, input_programs %p", num_input_programs,
                     (void *)input_programs);
    for (cl_uint k = 0; k < num_input_programs; k++) {
        /* CL_INVALID_PROGRAM if programs specified in input_programs are not valid program objects */
        HCQCL_CHECK_GOTO(hcqcl_program_valid(input_programs[k]), err, CL_INVALID_PROGRAM,
                         "input_programs[%u]", k);
        /* CL_INVALID_CONTEXT if the context associated with programs in input_programs is not the same as context */
        HCQCL_CHECK_GOTO(input_programs[k]->ctx == context, err, CL_INVALID_CONTEXT,
                         "input_programs[%u] of another context", k);
    }
    /* CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL */
    HCQCL_CHECK_GOTO(pfn_notify || !user_data, err, CL_INVALID_VALUE,
                     "user_data without pfn_notify");
    /* CL_INVALID_LINKER_OPTIONS if the linker options specified by options are invalid */
    HCQCL_CHECK_GOTO(options_valid(options, OPT_LINK | OPT_LIBRARY, why, sizeof(why)), err,
                     CL_INVALID_LINKER_OPTIONS, "%s", why);
    /* CL_INVALID_LINKER_OPTIONS: "-enable-link-options ... must be specified with the create-library option" */
    HCQCL_CHECK_GOTO(!options || !strstr(options, "-enable-link-options") ||
                         strstr(options, "-create-library"),
                     err, CL_INVALID_LINKER_OPTIONS, "-enable-link-options without -create-library");
    /* The inputs are read until their units are copied: none may be
     * building meanwhile, and a build of one waits (begin_build). */
    for (; held < num_input_programs; held++) {
        cl_program in = input_programs[held];
        pthread_mutex_lock(&in->lock);
        const bool busy = in->building;
        if (!busy)
            in->linking++;
        pthread_mutex_unlock(&in->lock);
        /* CL_INVALID_OPERATION if the compilation or build of a program executable for any of the devices listed in device_list by a previous call to clCompileProgram or clBuildProgram for program has not completed */
        HCQCL_CHECK_GOTO(!busy, err, CL_INVALID_OPERATION, "input_programs[%u] is being built",
                         held);
    }

    p = hcqcl_program_new(context, num_devices ? num_devices : context->num_devices,
                          num_devices ? device_list : context->devices);
    HCQCL_CHECK_GOTO(p, err, CL_OUT_OF_HOST_MEMORY, "program object");
    /* Per device: every input holds an object for it (linked), none does
     * ("no link is performed ... for this device"), or some do. */
    cl_uint linked_devices = 0;
    for (cl_uint i = 0; i < p->num_devices; i++) {
        struct hcqcl_program_dev *pd = &p->devs[i];
        cl_uint have = 0;
        pd->inputs_non_uniform = true;
        for (cl_uint k = 0; k < num_input_programs; k++) {
            const struct hcqcl_program_dev *in = NULL;
            for (cl_uint j = 0; j < input_programs[k]->num_devices; j++)
                if (input_programs[k]->devs[j].dev == pd->dev)
                    in = &input_programs[k]->devs[j];
            if (!in || !input_programs[k]->source ||
                (in->bin_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
                 in->bin_type != CL_PROGRAM_BINARY_TYPE_LIBRARY))
                continue;
            have++;
            pd->inputs_non_uniform =
                pd->inputs_non_uniform && hcqcl_program_dev_non_uniform(input_programs[k], in);
        }
        /* CL_INVALID_OPERATION if the rules for devices containing compiled binaries or libraries as described in input_programs argument below are not followed (some inputs hold one for a device, others not) */
        HCQCL_CHECK_GOTO(have == 0 || have == num_input_programs, err, CL_INVALID_OPERATION,
                         "%u of %u inputs compiled for device %u", have, num_input_programs, i);
        pd->not_linked = have == 0;
        linked_devices += have != 0;
    }
    /* CL_INVALID_OPERATION if the rules ... are not followed: no input holds an object for any device */
    HCQCL_CHECK_GOTO(linked_devices, err, CL_INVALID_OPERATION, "no input has a compiled object");
    bool library = options && strstr(options, "-create-library");
    err = link_inputs(p, num_input_programs, input_programs, options, library, &src, &opts);
    unhold_inputs(input_programs, held);
    held = 0;
    HCQCL_CHECK_GOTO(err == CL_SUCCESS, err, err, "combining the inputs");
    p->source = src.s;
    p->source_len = src.len;
    p->linked = true;
    src.s = NULL;

    p->building = true;
    for (cl_uint i = 0; i < p->num_devices; i++) {
        struct hcqcl_program_dev *pd = &p->devs[i];
        if (pd->not_linked)
            continue; /* CL_BUILD_NONE, no executable for it */
        set_options(pd, options);
        /* A library is an object: it may leave references to other units. */
        cl_int e = compile_with_headers(pd, p->source, p->source_len, opts.s, p->num_headers,
                                        p->header_names, p->header_srcs,
                                        library ? CL_COMPILE_PROGRAM_FAILURE
                                                : CL_LINK_PROGRAM_FAILURE);
        if (e == CL_COMPILE_PROGRAM_FAILURE)
            e = CL_LINK_PROGRAM_FAILURE;
        /* CL_LINKER_NOT_AVAILABLE if a linker is not available, i.e. CL_DEVICE_LINKER_AVAILABLE is CL_FALSE (linking compiles again: the same answer) */
        if (e == CL_COMPILER_NOT_AVAILABLE)
            e = CL_LINKER_NOT_AVAILABLE;
        else if (e == CL_INVALID_BUILD_OPTIONS)
            e = CL_INVALID_LINKER_OPTIONS;
        if (e == CL_SUCCESS && !library)
            e = hcqcl_program_dev_load(pd) == CL_SUCCESS ? CL_SUCCESS : CL_LINK_PROGRAM_FAILURE;
        pd->status = e == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
        pd->bin_type = e != CL_SUCCESS ? CL_PROGRAM_BINARY_TYPE_NONE
                       : library       ? CL_PROGRAM_BINARY_TYPE_LIBRARY
                                       : CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
        if (e == CL_SUCCESS && library)
            e = hcqcl_program_object_store(p, pd);
        if (e != CL_SUCCESS && result == CL_SUCCESS)
            result = e;
    }
    err = end_build(p);
    if (result == CL_SUCCESS)
        result = err;
    free(opts.s);
    opts.s = NULL;
    /* "Otherwise clLinkProgram returns a NULL program object": only a
     * failed link hands back the program, which carries its log. */
    if (result != CL_SUCCESS && result != CL_LINK_PROGRAM_FAILURE) {
        err = result;
        goto fail;
    }
    if (pfn_notify)
        pfn_notify(p, user_data);
    if (result != CL_SUCCESS)
        /* CL_LINK_PROGRAM_FAILURE if there is a failure to link: the program still carries the log */
        util_log_check(__func__, "linked", hcqcl_error_name(result), "program %p", (void *)p);
    if (errcode_ret)
        *errcode_ret = result;
    return p;
fail:
    unhold_inputs(input_programs, held);
    free(src.s);
    free(opts.s);
    if (p)
        hcqcl_clReleaseProgram(p);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

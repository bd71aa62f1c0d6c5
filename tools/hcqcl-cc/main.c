/*
 * main.c — hcqcl-cc: OpenCL C -> PTX -> cubin, wrapped in an hcqcl program
 * container.
 *
 *   hcqcl-cc [-o FILE] [--emit=container|cubin|ptx|llvm] [--arch=sm_90]
 *            [--options=STRING] [--cache-dir=DIR] [BUILD OPTIONS] FILE.cl
 *   hcqcl-cc --from-spool=DIR          build the sources a GPU machine
 *                                      without a compiler left in DIR
 *   hcqcl-cc --mode=binary --source=F --output=F --cl-device-info=F -- OPTIONS
 *                                      the OpenCL CTS offline-compiler interface
 *
 * Build options are OpenCL's (-D, -I, -cl-std=, -cl-kernel-arg-info, ...),
 * given one per argument, after "--", or as one string with --options=.
 * The build log (clang's and ptxas's messages) goes to stderr.
 */
#include "cc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cc_args {
    const char *source, *output, *emit, *arch_name, *cache_dir, *device_info, *spool, *mode;
    struct cc_buf options;
    bool keep, verbose, print_key;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hcqcl-cc [options] [build options] FILE.cl\n"
            "  -o FILE, --output=FILE  output file (default: FILE with .hcqclbin)\n"
            "  --emit=KIND             container (default), cubin, ptx or llvm\n"
            "  --arch=sm_XY            target (default sm_90)\n"
            "  --options=STRING        build options as one string, as given to clBuildProgram\n"
            "  --cache-dir=DIR         also store the container in DIR under its cache key\n"
            "  --print-cache-key       print the cache key and exit\n"
            "  --check-tools           exit 0 when clang, libclc and ptxas are found\n"
            "  --from-spool=DIR        build every <key>.cl/<key>.build left in DIR\n"
            "  --mode=binary --source=FILE --output=FILE --cl-device-info=FILE -- OPTIONS\n"
            "                          OpenCL CTS offline-compiler interface\n"
            "  --keep-temps, -v        keep intermediate files / show commands\n"
            "environment: HCQCL_CLANG, HCQCL_PTXAS, HCQCL_LIBCLC\n");
}

/* Append one build option to the options string, quoted when needed so
 * that util_options_split() gives it back unchanged. */
static void add_option(struct cc_buf *o, const char *a)
{
    if (o->len)
        cc_buf_add(o, " ", 1);
    if (*a && !strpbrk(a, " \t\n\"'\\")) {
        cc_buf_add(o, a, strlen(a));
        return;
    }
    cc_buf_add(o, "\"", 1);
    for (; *a; a++) {
        if (*a == '"' || *a == '\\')
            cc_buf_add(o, "\\", 1);
        cc_buf_add(o, a, 1);
    }
    cc_buf_add(o, "\"", 1);
}

/* --check-tools: the ICD asks this before it reports a compiler (see
 * hcqcl_compiler_available); the same search a build does. */
static int check_tools(void)
{
    struct cc_tools t;
    int rc = cc_tools_find(&t);
    if (cc_log.s)
        fputs(cc_log.s, stderr);
    cc_tools_free(&t);
    return rc;
}

/* "--name=value" or "--name value". */
static bool long_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return false;
    if (argv[*i][n] == '=') {
        *val = argv[*i] + n + 1;
        return true;
    }
    if (argv[*i][n] == 0 && *i + 1 < argc) {
        *val = argv[++*i];
        return true;
    }
    return false;
}

static int parse_args(int argc, char **argv, struct cc_args *a)
{
    const char *opt_string = NULL;
    bool rest = false;
    a->emit = "container";
    a->arch_name = "sm_90";
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v;
        if (rest) {
            add_option(&a->options, s);
        } else if (!strcmp(s, "--")) {
            rest = true;
        } else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(s, "--version")) {
            printf("%s\n", CC_COMPILER_ID);
            exit(0);
        } else if (!strcmp(s, "--check-tools")) {
            exit(check_tools());
        } else if (!strcmp(s, "--keep-temps")) {
            a->keep = true;
        } else if (!strcmp(s, "-v") || !strcmp(s, "--verbose")) {
            a->verbose = true;
        } else if (!strcmp(s, "--print-cache-key")) {
            a->print_key = true;
        } else if (!strcmp(s, "-o") && i + 1 < argc) {
            a->output = argv[++i];
        } else if (long_opt(argc, argv, &i, "--output", &v)) {
            a->output = v;
        } else if (long_opt(argc, argv, &i, "--source", &v)) {
            a->source = v;
        } else if (long_opt(argc, argv, &i, "--emit", &v)) {
            a->emit = v;
        } else if (long_opt(argc, argv, &i, "--arch", &v)) {
            a->arch_name = v;
        } else if (long_opt(argc, argv, &i, "--options", &v)) {
            opt_string = v;
        } else if (long_opt(argc, argv, &i, "--cache-dir", &v)) {
            a->cache_dir = v;
        } else if (long_opt(argc, argv, &i, "--cl-device-info", &v)) {
            a->device_info = v;
        } else if (long_opt(argc, argv, &i, "--mode", &v)) {
            a->mode = v;
        } else if (long_opt(argc, argv, &i, "--from-spool", &v)) {
            a->spool = v;
        } else if (!strncmp(s, "--", 2)) {
            fprintf(stderr, "hcqcl-cc: unknown option %s\n", s);
            return CC_ENVIRONMENT;
        } else if (s[0] == '-') {
            add_option(&a->options, s);
            if ((!strcmp(s, "-D") || !strcmp(s, "-I")) && i + 1 < argc)
                add_option(&a->options, argv[++i]);
        } else if (!a->source) {
            a->source = s;
        } else {
            fprintf(stderr, "hcqcl-cc: more than one source file (%s)\n", s);
            return CC_ENVIRONMENT;
        }
    }
    if (opt_string && *opt_string) {
        /* The string comes first: it is what clBuildProgram received. */
        struct cc_buf o = { 0 };
        cc_buf_add(&o, opt_string, strlen(opt_string));
        if (a->options.len) {
            cc_buf_add(&o, " ", 1);
            cc_buf_add(&o, a->options.s, a->options.len);
        }
        free(a->options.s);
        a->options = o;
    }
    if (!a->options.s)
        cc_buf_add(&a->options, "", 0);
    return CC_OK;
}

/* "sm_90" -> 0x900; 0 when this tool chain cannot target it. */
static uint32_t arch_value(const char *name)
{
    static const char *const known[] = { "sm_70", "sm_72", "sm_75", "sm_80",
                                         "sm_86", "sm_87", "sm_89", "sm_90" };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (!strcmp(name, known[i]))
            return (uint32_t)(name[3] - '0') << 8 | (uint32_t)(name[4] - '0') << 4;
    return 0;
}

struct cc_result {
    void *container;
    size_t container_size;
    char *cubin, *ptx, *ll;
    size_t cubin_size;
};

static void add_hints(void)
{
    static const struct {
        const char *needle, *hint;
    } hints[] = {
        { "Unresolved extern function", "note: the kernel calls a builtin this tool chain lacks "
                                        "(libclc 16 for NVPTX plus hcqcl's shim)\n" },
    };
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
        if (cc_log.s && strstr(cc_log.s, hints[i].needle)) {
            cc_logf("%s", hints[i].hint);
            return;
        }
}

/* One rewrite of the IR text *ll (also written to path): CC_OK, or
 * CC_BUILD_FAILED (logged as what, when given) with *ll unchanged. */
static int ir_rewrite(char **ll, const char *path, char *(*pass)(const char *), const char *what)
{
    char *out = pass(*ll);
    if (!out || cc_write_file(path, out, strlen(out)) != 0) {
        free(out);
        if (what)
            cc_logf("error: cannot rewrite the IR for %s\n", what);
        return CC_BUILD_FAILED;
    }
    free(*ll);
    *ll = out;
    return CC_OK;
}

static int compile(const struct cc_args *a, const char *src_path, const char *src, size_t src_len,
                   const char *options, uint32_t arch, struct cc_result *r)
{
    memset(r, 0, sizeof(*r));
    /* Link units: the first unit's options are the program's. */
    const bool units = cubin_units_is(src, src_len);
    char *first_opts = units ? cc_units_first_options(src, src_len, options) : NULL;
    if (units && !first_opts)
        return CC_BUILD_FAILED;
    struct cc_options o;
    int rc = cc_options_parse(units ? first_opts : options, &o);
    free(first_opts);
    if (rc != CC_OK)
        return rc;
    struct cc_tools t;
    rc = cc_tools_find(&t);
    char *tmp = rc == CC_OK ? cc_tmpdir_create() : NULL;
    if (rc == CC_OK && !tmp) {
        cc_logf("error: cannot create a temporary directory: %s\n", strerror(errno));
        rc = CC_ENVIRONMENT;
    }
    if (rc != CC_OK) {
        cc_tools_free(&t);
        cc_options_free(&o);
        return rc;
    }
    char shim_cl[4096], shim_bc[4096], ll[4096], ptx[4096], cubin[4096], march[32];
    snprintf(shim_cl, sizeof(shim_cl), "%sshim.cl", tmp);
    snprintf(shim_bc, sizeof(shim_bc), "%sshim.bc", tmp);
    snprintf(ll, sizeof(ll), "%sprogram.ll", tmp);
    snprintf(ptx, sizeof(ptx), "%sprogram.ptx", tmp);
    snprintf(cubin, sizeof(cubin), "%sprogram.cubin", tmp);
    snprintf(march, sizeof(march), "-march=%s", a->arch_name);
    const char *olevel = o.opt_disable ? "-O0" : "-O2";
    struct cc_argv v = { 0 };
    struct cc_units u = { 0 };
    struct cc_argv shim_argv = { 0 };
    char *shim_kept = NULL;
    struct cubin_container_kernel *ks = NULL;
    uint32_t nk = 0;
    char *ptx_text = NULL, *ptx2 = NULL;
    size_t sz;

    if (cc_write_file(shim_cl, hcqcl_cc_shim, hcqcl_cc_shim_size) != 0) {
        cc_logf("error: cannot write %s\n", shim_cl);
        rc = CC_ENVIRONMENT;
        goto out;
    }
    /* 1. The shim, for this target. */
    /* The 64-bit atomics extensions are off by default for NVPTX in clang
     * 16; sm_90 has the instructions and the shim defines the builtins.
     * So are images: OpenCL C 1.x declares the image types and built-ins
     * anyway, but 3D image writes need cl_khr_3d_image_writes, and OpenCL
     * C 3.0 declares nothing of images without the features
     * __opencl_c_images and __opencl_c_3d_image_writes (image.cl defines
     * them all; read_write images, __opencl_c_read_write_images, are not
     * supported). Clang defines neither __OPENCL_VERSION__ ("must be
     * defined", the device's OpenCL version: 300) nor, for NVPTX,
     * __IMAGE_SUPPORT__ ("must define" where CL_DEVICE_IMAGE_SUPPORT is
     * CL_TRUE): both come from here. */
    const char *common[] = { "-target", "nvptx64-nvidia-nvcl", march, "-x", "cl",
                             "-Xclang", "-finclude-default-header", "-Xclang",
                             "-cl-ext=+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,"
                             "+__opencl_c_images,+__opencl_c_3d_image_writes,"
                             "+cl_khr_3d_image_writes",
                             "-D__OPENCL_VERSION__=300", "-D__IMAGE_SUPPORT__=1" };
    cc_argv_add(&v, t.clang);
    for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
        cc_argv_add(&v, common[i]);
    cc_argv_add(&v, "-cl-std=CL1.2");
    cc_argv_add(&v, "-O2");
    cc_argv_add(&v, "-emit-llvm");
    cc_argv_add(&v, "-c");
    cc_argv_add(&v, shim_cl);
    cc_argv_add(&v, "-o");
    cc_argv_add(&v, shim_bc);
    /* The key takes the flags, not the temporary file names. */
    struct cc_buf flags = { 0 };
    for (size_t i = 1; i + 3 < v.n; i++) /* all but "FILE -o FILE" */
        cc_buf_addf(&flags, "%s ", v.v[i]);
    shim_kept = cc_shim_cache_path(t.clang, flags.s ? flags.s : "");
    free(flags.s);
    bool shim_cached = cc_shim_cache_usable(shim_kept);
    if (shim_cached) {
        if (a->verbose)
            cc_logf("+ (the shim from %s)\n", shim_kept);
    } else if (cc_run(v.v, tmp, a->verbose) != 0) {
        cc_logf("error: the builtin shim did not compile\n");
        rc = CC_ENVIRONMENT;
        goto out;
    } else {
        cc_shim_cache_store(shim_kept, shim_bc);
    }
    shim_argv = v; /* kept: a damaged cached shim is made again */
    v = (struct cc_argv){ 0 };

    /* 1b. Link units after the first, each to bitcode of its own. */
    if (units) {
        const char *head[2 + sizeof(common) / sizeof(common[0])] = { t.clang };
        memcpy(head + 1, common, sizeof(common));
        rc = cc_units_compile(src, src_len, options, head, tmp, a->verbose, &u,
                              &o.kernel_arg_info, &o.clang);
        if (rc != CC_OK)
            goto out;
        src_path = u.first_path;
    }

    /* 2. Program -> LLVM IR, the other units, the shim and libclc linked
     *    in (shim before libclc, so its definitions win; units first, so
     *    the builtins they call are linked too). Argument info is always
     *    requested: the container keeps names only when the options
     *    asked for them. */
    size_t log_mark = cc_log.len;
again:
    cc_argv_add(&v, t.clang);
    for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
        cc_argv_add(&v, common[i]);
    cc_argv_addf(&v, "-cl-std=%s", o.cl_std);
    cc_argv_add(&v, olevel);
    cc_argv_add(&v, "-cl-kernel-arg-info");
    cc_argv_add(&v, "-Wno-linker-warnings");
    for (size_t i = 0; i < o.clang.n; i++)
        cc_argv_add(&v, o.clang.v[i]);
    for (size_t i = 0; i < u.link.n; i++)
        cc_argv_add(&v, u.link.v[i]);
    const char *links[] = { "-Xclang", "-mlink-builtin-bitcode", "-Xclang",
                            shim_cached ? shim_kept : shim_bc,
                            "-Xclang", "-mlink-builtin-bitcode", "-Xclang", t.libclc };
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
        cc_argv_add(&v, links[i]);
    cc_argv_add(&v, "-emit-llvm");
    cc_argv_add(&v, "-S");
    cc_argv_add(&v, "-o");
    cc_argv_add(&v, ll);
    cc_argv_add(&v, src_path);
    if (cc_run(v.v, tmp, a->verbose) != 0) {
        cc_argv_free(&v);
        if (shim_cached && cc_run(shim_argv.v, tmp, a->verbose) == 0) {
            /* Maybe the cached shim was damaged: once more with a fresh
             * one, which replaces it, and without the first try's log. */
            shim_cached = false;
            cc_shim_cache_store(shim_kept, shim_bc);
            if (cc_log.s) {
                cc_log.len = log_mark;
                cc_log.s[log_mark] = 0;
            }
            goto again;
        }
        rc = CC_BUILD_FAILED;
        goto out;
    }
    cc_argv_free(&v);
    cc_argv_free(&shim_argv);
    if (cc_read_file(ll, &r->ll, &sz) != 0) {
        rc = CC_ENVIRONMENT;
        goto out;
    }
    /* Kernels called as functions: a .func copy beside the .entry; printf
     * calls: records in the launch's printf buffer; image built-ins: their
     * image and sampler conversions defined. */
    if ((rc = ir_rewrite(&r->ll, ll, cc_ir_clone_called_kernels, "kernels called as functions")) ||
        (rc = ir_rewrite(&r->ll, ll, cc_ir_printf, NULL)) ||
        (rc = ir_rewrite(&r->ll, ll, cc_ir_image, NULL)))
        goto out;
    rc = cc_ir_kernels(r->ll, o.kernel_arg_info, &ks, &nk);
    if (rc != CC_OK)
        goto out;
    cc_ir_printf_kernels(r->ll, ks, nk);

    /* 3. IR -> PTX. */
    cc_argv_add(&v, t.clang);
    cc_argv_add(&v, "-target");
    cc_argv_add(&v, "nvptx64-nvidia-nvcl");
    cc_argv_add(&v, march);
    cc_argv_add(&v, olevel);
    cc_argv_add(&v, "-S");
    cc_argv_add(&v, "-o");
    cc_argv_add(&v, ptx);
    cc_argv_add(&v, ll);
    if (cc_run(v.v, tmp, a->verbose) != 0) {
        rc = CC_BUILD_FAILED;
        goto out;
    }
    cc_argv_free(&v);
    if (cc_read_file(ptx, &ptx_text, &sz) != 0) {
        rc = CC_ENVIRONMENT;
        goto out;
    }
    ptx2 = cc_ptx_make_visible(ptx_text);
    free(ptx_text);
    ptx_text = ptx2 ? cc_ptx_fit_params(ptx2) : NULL;
    free(ptx2);
    ptx2 = ptx_text ? cc_ptx_add_maxntid(ptx_text, ks, nk) : NULL;
    if (!ptx2 || cc_write_file(ptx, ptx2, strlen(ptx2)) != 0) {
        rc = CC_BUILD_FAILED;
        goto out;
    }
    r->ptx = ptx2;
    ptx2 = NULL;

    /* 4. PTX -> cubin. */
    cc_argv_add(&v, t.ptxas);
    cc_argv_addf(&v, "-arch=%s", a->arch_name);
    for (size_t i = 0; i < o.ptxas.n; i++)
        cc_argv_add(&v, o.ptxas.v[i]);
    cc_argv_add(&v, ptx);
    cc_argv_add(&v, "-o");
    cc_argv_add(&v, cubin);
    if (cc_run(v.v, tmp, a->verbose) != 0) {
        add_hints();
        rc = CC_BUILD_FAILED;
        goto out;
    }
    cc_argv_free(&v);
    if (cc_read_file(cubin, &r->cubin, &r->cubin_size) != 0 || !r->cubin_size) {
        cc_logf("error: ptxas wrote no cubin\n");
        rc = CC_BUILD_FAILED;
        goto out;
    }

    /* 5. The container. */
    struct cubin_container c = {
        .version = CUBIN_CONTAINER_VERSION,
        .arch = arch,
        .options = options,
        .compiler = CC_COMPILER_ID,
        .cubin = r->cubin,
        .cubin_size = r->cubin_size,
        .num_kernels = nk,
        .kernels = ks,
    };
    cubin_container_sha256(src, src_len, c.source_hash);
    int w = cubin_container_write(&c, &r->container, &r->container_size);
    if (w) {
        cc_logf("error: cannot write the program container (%d)\n", w);
        rc = CC_BUILD_FAILED;
    }
out:
    cc_argv_free(&v);
    cc_units_free(&u);
    cc_argv_free(&shim_argv);
    free(shim_kept);
    cc_ir_kernels_free(ks, nk);
    free(ptx_text);
    free(ptx2);
    if (a->keep)
        fprintf(stderr, "hcqcl-cc: intermediate files kept in %s\n", tmp);
    else
        cc_tmpdir_remove(tmp);
    free(tmp);
    cc_tools_free(&t);
    cc_options_free(&o);
    return rc;
}

static void result_free(struct cc_result *r)
{
    free(r->container);
    free(r->cubin);
    free(r->ptx);
    free(r->ll);
}

static int cache_store(const char *dir, const char *key, const struct cc_result *r)
{
    char path[4096];
    if (cc_mkdir_p(dir) != 0) {
        fprintf(stderr, "hcqcl-cc: cannot create %s: %s\n", dir, strerror(errno));
        return CC_ENVIRONMENT;
    }
    snprintf(path, sizeof(path), "%s/%s.bin", dir, key);
    if (cc_write_file_atomic(path, r->container, r->container_size) != 0) {
        fprintf(stderr, "hcqcl-cc: cannot write %s\n", path);
        return CC_ENVIRONMENT;
    }
    return CC_OK;
}

static void flush_log(void)
{
    if (cc_log.len)
        fputs(cc_log.s, stderr);
    cc_log.len = 0;
}

/* The CTS device-info file: only the address width matters here. */
static int check_device_info(const char *path)
{
    char *text = NULL;
    size_t size;
    if (cc_read_file(path, &text, &size) != 0) {
        fprintf(stderr, "hcqcl-cc: cannot read %s\n", path);
        return CC_ENVIRONMENT;
    }
    const char *bits = strstr(text, "CL_DEVICE_ADDRESS_BITS=");
    int rc = CC_OK;
    if (bits && atoi(bits + 23) != 64) {
        fprintf(stderr, "hcqcl-cc: only 64-bit devices are supported\n");
        rc = CC_ENVIRONMENT;
    }
    free(text);
    return rc;
}

static int build_spool(const struct cc_args *a)
{
    DIR *d = opendir(a->spool);
    if (!d) {
        fprintf(stderr, "hcqcl-cc: cannot open %s: %s\n", a->spool, strerror(errno));
        return CC_ENVIRONMENT;
    }
    int worst = CC_OK, built = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n != 64 + 6 || strcmp(de->d_name + 64, ".build") != 0)
            continue;
        char key[65], path[4096], *desc = NULL, *src = NULL;
        size_t dsz, ssz;
        memcpy(key, de->d_name, 64);
        key[64] = 0;
        snprintf(path, sizeof(path), "%s/%s.build", a->spool, key);
        if (cc_read_file(path, &desc, &dsz) != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s.cl", a->spool, key);
        if (cc_read_file(path, &src, &ssz) != 0) {
            free(desc);
            continue;
        }
        /* "arch=sm_90\noptions=...\n" */
        char *arch_line = strstr(desc, "arch="), *opt_line = strstr(desc, "options=");
        if (!arch_line || !opt_line) {
            fprintf(stderr, "hcqcl-cc: %s.build: malformed\n", key);
            free(desc);
            free(src);
            worst = CC_ENVIRONMENT;
            continue;
        }
        arch_line += 5;
        arch_line[strcspn(arch_line, "\n")] = 0;
        opt_line += 8;
        opt_line[strcspn(opt_line, "\n")] = 0;
        struct cc_args one = *a;
        one.arch_name = arch_line;
        uint32_t arch = arch_value(arch_line);
        struct cc_result r;
        memset(&r, 0, sizeof(r));
        int rc = arch ? compile(&one, path, src, ssz, opt_line, arch, &r) : CC_ENVIRONMENT;
        if (rc == CC_OK) {
            char k2[65];
            cubin_container_cache_key(src, ssz, opt_line, arch, CC_COMPILER_ID, k2);
            if (strcmp(k2, key) != 0)
                fprintf(stderr, "hcqcl-cc: %s: written by another hcqcl version; stored as %s\n", key, k2);
            rc = cache_store(a->spool, k2, &r);
            built += rc == CC_OK;
        } else {
            fprintf(stderr, "hcqcl-cc: %s failed:\n", key);
        }
        result_free(&r);
        flush_log();
        if (rc > worst)
            worst = rc;
        free(desc);
        free(src);
    }
    closedir(d);
    fprintf(stderr, "hcqcl-cc: %d program(s) built into %s\n", built, a->spool);
    return worst;
}

static char *default_output(const char *src, const char *emit)
{
    const char *ext = !strcmp(emit, "cubin") ? ".cubin" : !strcmp(emit, "ptx") ? ".ptx"
                      : !strcmp(emit, "llvm") ? ".ll" : ".hcqclbin";
    const char *base = strrchr(src, '/');
    base = base ? base + 1 : src;
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".cl"))
        n -= 3;
    char *o = malloc(n + strlen(ext) + 1);
    if (o)
        sprintf(o, "%.*s%s", (int)n, base, ext);
    return o;
}

int main(int argc, char **argv)
{
    struct cc_args a = { 0 };
    int rc = parse_args(argc, argv, &a);
    if (rc != CC_OK)
        return rc;
    if (a.mode && strcmp(a.mode, "binary") != 0) {
        fprintf(stderr, "hcqcl-cc: compilation mode '%s' is not supported (only binary)\n", a.mode);
        free(a.options.s);
        return CC_ENVIRONMENT;
    }
    uint32_t arch = arch_value(a.arch_name);
    char *src = NULL;
    size_t src_len = 0;
    char key[65];
    struct cc_result r = { 0 };
    if (a.device_info && (rc = check_device_info(a.device_info)) != CC_OK)
        goto out;
    if (a.spool) {
        rc = build_spool(&a);
        goto out;
    }
    rc = CC_ENVIRONMENT;
    if (!a.source) {
        usage(stderr);
        goto out;
    }
    if (!arch) {
        fprintf(stderr, "hcqcl-cc: unsupported target %s\n", a.arch_name);
        goto out;
    }
    if (strcmp(a.emit, "container") && strcmp(a.emit, "cubin") && strcmp(a.emit, "ptx") &&
        strcmp(a.emit, "llvm")) {
        fprintf(stderr, "hcqcl-cc: unknown --emit=%s\n", a.emit);
        goto out;
    }
    if (cc_read_file(a.source, &src, &src_len) != 0) {
        fprintf(stderr, "hcqcl-cc: cannot read %s: %s\n", a.source, strerror(errno));
        goto out;
    }
    cubin_container_cache_key(src, src_len, a.options.s, arch, CC_COMPILER_ID, key);
    if (a.print_key) {
        printf("%s\n", key);
        rc = CC_OK;
        goto out;
    }
    rc = compile(&a, a.source, src, src_len, a.options.s, arch, &r);
    flush_log();
    if (rc == CC_OK) {
        char *def = a.output ? NULL : default_output(a.source, a.emit);
        const char *out = a.output ? a.output : def;
        const void *data = r.container;
        size_t size = r.container_size;
        if (!strcmp(a.emit, "cubin")) {
            data = r.cubin;
            size = r.cubin_size;
        } else if (!strcmp(a.emit, "ptx")) {
            data = r.ptx;
            size = strlen(r.ptx);
        } else if (!strcmp(a.emit, "llvm")) {
            data = r.ll;
            size = strlen(r.ll);
        }
        if (!out || cc_write_file_atomic(out, data, size) != 0) {
            fprintf(stderr, "hcqcl-cc: cannot write %s\n", out ? out : "(output)");
            rc = CC_ENVIRONMENT;
        }
        free(def);
        if (rc == CC_OK && a.cache_dir)
            rc = cache_store(a.cache_dir, key, &r);
    }
out:
    result_free(&r);
    free(src);
    free(a.options.s);
    free(cc_log.s);
    return rc;
}

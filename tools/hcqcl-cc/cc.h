/*
 * cc.h — internals of hcqcl-cc, the offline OpenCL C compiler.
 *
 * Pipeline (one process per build, single-threaded):
 *   options.c  build options -> clang and ptxas arguments
 *   run.c      tool lookup, temporary directory, child processes, the log
 *   (main.c)   shim.cl -> shim.bc; program -> LLVM IR (.ll, shim and libclc
 *              linked) -> PTX -> cubin; container output
 *   irmeta.c   kernel metadata read back from the textual IR
 *   ircall.c   kernels called by other functions get a copy as a function
 *   irprintf.c printf calls write records into the launch's printf buffer
 *   irimage.c  the image and sampler conversions image.cl declares
 *   ptx.c      .maxntid for kernels with reqd_work_group_size
 *
 * Exit status (the ICD maps it to an OpenCL error):
 *   0 built, 1 build failed (log on stderr), 2 invalid build options,
 *   3 the tool chain or a file is missing / usage error.
 */
#ifndef HCQCL_TOOLS_CC_H
#define HCQCL_TOOLS_CC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cubin/container.h"

enum { CC_OK = 0, CC_BUILD_FAILED = 1, CC_BAD_OPTIONS = 2, CC_ENVIRONMENT = 3 };

/* Identifies the compiler in cache keys (shared with the ICD). */
#define CC_COMPILER_ID CUBIN_CONTAINER_COMPILER_ID

/* A growable NULL-terminated argv. */
struct cc_argv {
    char **v;
    size_t n, cap;
};
void cc_argv_add(struct cc_argv *a, const char *s);
void cc_argv_addf(struct cc_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cc_argv_free(struct cc_argv *a);

/* A growable text buffer. */
struct cc_buf {
    char *s;
    size_t len, cap;
};
void cc_buf_add(struct cc_buf *b, const char *s, size_t n);
void cc_buf_addf(struct cc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The build log: every message of the tool chain and of hcqcl-cc. */
extern struct cc_buf cc_log;
void cc_logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- options.c ---- */
struct cc_options {
    struct cc_argv clang;  /* options for the OpenCL C front end */
    struct cc_argv ptxas;  /* options for ptxas */
    bool kernel_arg_info;  /* record argument names */
    bool opt_disable;      /* -cl-opt-disable */
    const char *cl_std;    /* "CL1.2" unless -cl-std= says otherwise */
};
/* Validate (the options split by util_options_split, util.h) and translate. CC_OK or CC_BAD_OPTIONS (log says which). */
int cc_options_parse(const char *options, struct cc_options *out);
void cc_options_free(struct cc_options *o);

/* ---- run.c ---- */
struct cc_tools {
    char *clang, *ptxas, *libclc;
};
/* Locate clang (HCQCL_CLANG, PATH clang-16, clang), ptxas (HCQCL_PTXAS,
 * PATH, /usr/local/cuda/bin) and libclc's nvptx64--nvidiacl.bc
 * (HCQCL_LIBCLC, the usual library directories). CC_OK or CC_ENVIRONMENT. */
int cc_tools_find(struct cc_tools *t);
void cc_tools_free(struct cc_tools *t);
/* Make a private temporary directory; its path with a trailing '/'. */
char *cc_tmpdir_create(void);
void cc_tmpdir_remove(const char *dir);
/* Run argv[0] with stdin from /dev/null and stdout+stderr appended to the
 * log (temporary-directory prefixes stripped). Returns the exit status, or
 * -1 when it could not be started or was killed. */
int cc_run(char *const argv[], const char *tmpdir, bool verbose);
/* Whole-file helpers. */
int cc_read_file(const char *path, char **data, size_t *size);
int cc_write_file(const char *path, const void *data, size_t size);
/* Write path atomically (temporary name in the same directory + rename). */
int cc_write_file_atomic(const char *path, const void *data, size_t size);
/* mkdir -p: dir and the directories above it (0755). 0 or -errno. */
int cc_mkdir_p(const char *dir);

/* ---- irmeta.c ---- */
/* Parse the kernels of a textual LLVM module: names in definition order,
 * reqd_work_group_size, work_group_size_hint, vec_type_hint and the
 * !kernel_arg_* lists. Argument names are kept only when with_names.
 * CC_OK or CC_BUILD_FAILED. The kernels and every string are malloc'ed. */
int cc_ir_kernels(const char *ll, bool with_names, struct cubin_container_kernel **kernels,
                  uint32_t *count);
void cc_ir_kernels_free(struct cubin_container_kernel *k, uint32_t count);

/* ---- ircall.c ---- */
/* Give every kernel that is called from the module a copy as an internal
 * (non-kernel) function, "__hcqcl_kernel_<name>", and redirect the calls
 * to it, so that PTX calls a .func and the kernel stays the .entry that
 * launches use. Returns the new module text (a copy when no kernel is
 * called; malloc'ed) or NULL (logged). */
char *cc_ir_clone_called_kernels(const char *ll);

/* ---- irprintf.c ---- */
/* Replace every printf call with a call of a function made for it that
 * writes a record into the launch's printf buffer (cubin/container.h,
 * "printf"). Returns the new module text (malloc'ed) or NULL (logged:
 * a format that is not a string literal, an argument type printf cannot
 * take). */
char *cc_ir_printf(const char *ll);
/* Set CUBIN_CONTAINER_KERNEL_PRINTF on the kernels of ks that reach such
 * a call in ll (the text cc_ir_printf returned), through any functions. */
void cc_ir_printf_kernels(const char *ll, struct cubin_container_kernel *ks, uint32_t nk);

/* ---- irimage.c ---- */
/* Define the image and sampler conversions the image built-ins (image.cl)
 * and sampler literals call, declared in the linked module, as internal
 * alwaysinline functions (identity, ptrtoint, inttoptr). Returns the new
 * module text (malloc'ed) or NULL (logged). */
char *cc_ir_image(const char *ll);

/* ---- ptx.c ---- */
/* Insert ".maxntid x, y, z" into the .entry of every kernel that has a
 * reqd_work_group_size. Returns the new text (malloc'ed) or NULL when an
 * entry is missing (logged). */
char *cc_ptx_add_maxntid(const char *ptx, const struct cubin_container_kernel *k, uint32_t count);
/* Turn every line-initial ".entry" into ".visible .entry" so kernels are
 * GLOBAL symbols in the cubin. Returns new text (malloc'ed) or NULL. */
char *cc_ptx_make_visible(const char *ptx);
/* Raise .version to 8.1 when an entry takes more than 4352 bytes of
 * parameters (what older PTX allows); otherwise a copy. NULL when out of
 * memory. */
char *cc_ptx_fit_params(const char *ptx);

/* ---- units.c ---- */
/* A link-units source (container.h, "Link units"): the first unit becomes
 * the program the pipeline compiles, the others are compiled beforehand,
 * each as its own translation unit with its own options, to LLVM bitcode
 * that step 2 links in. The options each unit is compiled with are the
 * build's (link options, the headers' -I) followed by the unit's own. */
struct cc_units {
    char *first_path;    /* the first unit's source, written to the temp dir */
    struct cc_argv link; /* "-Xclang -mlink-bitcode-file -Xclang F" per unit */
};
/* The first unit's options joined to options (malloc'ed), or NULL with a
 * log line when src is malformed. */
char *cc_units_first_options(const char *src, size_t len, const char *options);
/* Write the first unit and compile the others with clang (argv head:
 * clang and the target options, NULL-terminated), each unit's headers in
 * a directory of its own searched after its -I directories (the first
 * unit's: added to first_clang). Each unit that asks for
 * -cl-kernel-arg-info sets *arg_info. CC_OK, CC_BAD_OPTIONS,
 * CC_BUILD_FAILED or CC_ENVIRONMENT. */
int cc_units_compile(const char *src, size_t len, const char *options, const char *const *head,
                     const char *tmp, bool verbose, struct cc_units *out, bool *arg_info,
                     struct cc_argv *first_clang);
void cc_units_free(struct cc_units *u);

/* ---- shim_cache.c ---- */
/* Where the shim's bitcode for this clang and these compile flags is
 * kept (malloc'ed), NULL when there is no cache directory to use. */
char *cc_shim_cache_path(const char *clang, const char *flags);
/* True when path holds LLVM bitcode. */
bool cc_shim_cache_usable(const char *path);
/* Keep the bitcode file bc at path (atomically; failures are ignored). */
void cc_shim_cache_store(const char *path, const char *bc);

/* ---- the embedded shim (shim.cl, then src/api/image_abi.h,
 * image_core.h and image.cl: the image built-ins) ---- */
extern const unsigned char hcqcl_cc_shim[];
extern const unsigned long hcqcl_cc_shim_size;

#endif

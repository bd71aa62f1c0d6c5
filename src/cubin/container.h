/*
 * container.h — the "hcqcl program" container: a compiled OpenCL program
 * as hcqcl-cc writes it and as clGetProgramInfo(CL_PROGRAM_BINARIES)
 * returns it.
 *
 * A cubin alone does not say what OpenCL needs to know about a kernel
 * (address and access qualifiers of its arguments, type names, argument
 * names, reqd_work_group_size, the build options). The container carries
 * the cubin unchanged plus that metadata, read from clang's IR.
 *
 * On-disk layout (little-endian, all offsets from the start of the file,
 * every section inside [0, total_size)):
 *
 *   header   96 bytes: magic[8], then u32 version, header size, arch,
 *            total size, kernel count, kernels offset, argument count,
 *            args offset, strtab offset, strtab size, cubin offset,
 *            cubin size, options string, compiler string; then the
 *            32-byte source hash
 *   kernels  count * 48 bytes: u32 name, reqd[3], hint[3], attributes,
 *            first argument, argument count, flags
 *            (CUBIN_CONTAINER_KERNEL_*; a reader ignores bits it does not
 *            know, so a new flag needs no new version), 1 reserved (0)
 *   args     count * 16 bytes: u8 addr, u8 access, u16 type qualifiers,
 *            u32 type name, u32 arg name, u32 reserved (0)
 *   strtab   NUL-terminated strings; offset 0 is always "" ; a string
 *            reference of CUBIN_CONTAINER_NO_STRING means "not known"
 *   cubin    the ELF image, 8-byte aligned
 *
 * Versioning: readers accept exactly the versions they know
 * (CUBIN_CONTAINER_VERSION); a new field bumps the version.
 *
 * Callers: hcqcl-cc (writer), src/api program code (reader, for
 * clCreateProgramWithBinary and for cached builds), the tests. No global
 * state: every function is thread-safe. Nothing here logs or aborts.
 */
#ifndef HCQCL_CUBIN_CONTAINER_H
#define HCQCL_CUBIN_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CUBIN_CONTAINER_MAGIC "HCQCLPRG" /* 8 bytes, no NUL stored */
#define CUBIN_CONTAINER_VERSION 1u
#define CUBIN_CONTAINER_HEADER_SIZE 96u
#define CUBIN_CONTAINER_KERNEL_SIZE 48u
#define CUBIN_CONTAINER_ARG_SIZE 16u
#define CUBIN_CONTAINER_NO_STRING 0xffffffffu
/* Sanity bounds a reader enforces on untrusted input. */
#define CUBIN_CONTAINER_MAX_KERNELS 65536u
/* Per kernel: a 32764-byte parameter block (CL_DEVICE_MAX_PARAMETER_SIZE)
 * holds 8191 4-byte arguments. */
#define CUBIN_CONTAINER_MAX_ARGS 8192u

/* Address qualifier of a kernel argument (numbering of clang's
 * !kernel_arg_addr_space for OpenCL targets: private 0, global 1,
 * constant 2, local 3). */
enum cubin_container_addr {
    CUBIN_CONTAINER_ADDR_PRIVATE = 0,
    CUBIN_CONTAINER_ADDR_GLOBAL = 1,
    CUBIN_CONTAINER_ADDR_CONSTANT = 2,
    CUBIN_CONTAINER_ADDR_LOCAL = 3,
};

/* Access qualifier (images and pipes; "none" for everything else). */
enum cubin_container_access {
    CUBIN_CONTAINER_ACCESS_NONE = 0,
    CUBIN_CONTAINER_ACCESS_READ_ONLY = 1,
    CUBIN_CONTAINER_ACCESS_WRITE_ONLY = 2,
    CUBIN_CONTAINER_ACCESS_READ_WRITE = 3,
};

/* Type qualifier bits (same meaning as CL_KERNEL_ARG_TYPE_*). */
#define CUBIN_CONTAINER_TYPE_CONST (1u << 0)
#define CUBIN_CONTAINER_TYPE_RESTRICT (1u << 1)
#define CUBIN_CONTAINER_TYPE_VOLATILE (1u << 2)
#define CUBIN_CONTAINER_TYPE_PIPE (1u << 3)
/* Bits 8-11: the image or sampler type an argument declared with a
 * typedef of one names (clang's kernel_arg_base_type), for type_name
 * keeps the declared name. 0 where type_name says it, or neither: only
 * containers of such kernels carry them (readers before these bits
 * refuse those, and every other container is as it was). */
#define CUBIN_CONTAINER_TYPE_BASE_SHIFT 8
#define CUBIN_CONTAINER_TYPE_BASE_MASK (0xfu << CUBIN_CONTAINER_TYPE_BASE_SHIFT)
enum cubin_container_base {
    CUBIN_CONTAINER_BASE_NONE = 0,
    CUBIN_CONTAINER_BASE_SAMPLER,
    CUBIN_CONTAINER_BASE_IMAGE1D,
    CUBIN_CONTAINER_BASE_IMAGE1D_ARRAY,
    CUBIN_CONTAINER_BASE_IMAGE1D_BUFFER,
    CUBIN_CONTAINER_BASE_IMAGE2D,
    CUBIN_CONTAINER_BASE_IMAGE2D_ARRAY,
    CUBIN_CONTAINER_BASE_IMAGE3D,
    CUBIN_CONTAINER_BASE_LAST = CUBIN_CONTAINER_BASE_IMAGE3D,
};
/* The OpenCL C type name of a base (NULL for none or unknown). */
const char *cubin_container_base_name(unsigned base);

/* Parsed form. Strings are never NULL except `name` of an argument
 * (NULL: the program was built without -cl-kernel-arg-info). */
struct cubin_container_arg {
    uint8_t addr;      /* enum cubin_container_addr */
    uint8_t access;    /* enum cubin_container_access */
    uint16_t type_qual; /* CUBIN_CONTAINER_TYPE_* */
    const char *type_name; /* "float*", "float4", "image2d_t", ... */
    const char *name;      /* "a" or NULL */
};

struct cubin_container_kernel {
    const char *name;
    uint32_t reqd_work_group_size[3]; /* 0,0,0 when not given */
    uint32_t work_group_size_hint[3]; /* 0,0,0 when not given */
    const char *attributes; /* CL_KERNEL_ATTRIBUTES text, "" if none */
    uint32_t num_args;
    const struct cubin_container_arg *args;
    uint32_t flags; /* CUBIN_CONTAINER_KERNEL_* */
};

/* The kernel may call printf: each launch needs a printf buffer
 * (cubin/printf.h). */
#define CUBIN_CONTAINER_KERNEL_PRINTF (1u << 0)

struct cubin_container {
    uint32_t version;  /* CUBIN_CONTAINER_VERSION */
    uint32_t arch;     /* SM version as in hcq_device_info.arch: 0x900 */
    uint8_t source_hash[32]; /* SHA-256 of the program source */
    const char *options;     /* build options as given ("" if none) */
    const char *compiler;    /* "hcqcl-cc 0.1.0 (clang ..., ptxas ...)" */
    const void *cubin;
    size_t cubin_size;
    uint32_t num_kernels;
    const struct cubin_container_kernel *kernels;
};

/* True when data begins with the container magic (cheap sniffing for
 * clCreateProgramWithBinary: container vs bare cubin vs PTX). */
bool cubin_container_is(const void *data, size_t size);

/* Parse and validate untrusted bytes. On success *out is one owning
 * object (it copies what it needs; data may be freed afterwards), freed
 * with cubin_container_free(). Returns 0, -EINVAL (malformed: bad magic,
 * unknown version, anything out of bounds, a string without its NUL,
 * counts beyond the sanity bounds) or -ENOMEM. */
int cubin_container_parse(const void *data, size_t size, struct cubin_container **out);
void cubin_container_free(struct cubin_container *c);

/* Serialise c (which need not come from parse: the writer fills it by
 * hand). *out is malloc'ed, the caller frees it. 0, -EINVAL (a NULL
 * string where one is required, counts beyond the bounds), -ENOMEM. */
int cubin_container_write(const struct cubin_container *c, void **out, size_t *size);

/* The kernel called name, or NULL. */
const struct cubin_container_kernel *cubin_container_kernel(const struct cubin_container *c,
                                                            const char *name);

/* SHA-256 of len bytes (source hashes, cache keys). */
void cubin_container_sha256(const void *data, size_t len, uint8_t digest[32]);

/* The cache key of a build from source, shared by hcqcl-cc (which fills
 * the cache) and the ICD (which looks it up), so both must agree byte for
 * byte. Key = SHA-256 over: a format tag and CUBIN_CONTAINER_VERSION,
 * compiler_version, the arch, the options normalised by
 * cubin_container_normalize_options(), and the source. Written as 64
 * lowercase hex digits plus NUL. */
void cubin_container_cache_key(const char *src, size_t len, const char *options,
                               uint32_t arch, const char *compiler_version, char key[65]);

/* The compiler identity that goes into cache keys: hcqcl-cc's version and
 * the revision of its pipeline (shim, PTX edits). Bump the revision
 * whenever hcqcl-cc generates different code for the same input, so
 * caches filled by an older compiler are not used. */
#define CUBIN_CONTAINER_COMPILER_ID "hcqcl-cc " HCQCL_VERSION_STRING "/10"

/* Build options with runs of white space outside quotes collapsed to one
 * space and no leading/trailing space. Returns malloc'ed
 * text or NULL on allocation failure. */
char *cubin_container_normalize_options(const char *options);

/* ---- Link units --------------------------------------------------------
 * clLinkProgram keeps its inputs as OpenCL C source, each with the
 * options it was compiled with and the headers it included (embedded, or
 * kept from its -I directories); hcqcl-cc compiles every input as a
 * translation unit of its own, its headers searched after its own -I
 * directories as at clCompileProgram, and links their LLVM modules, so
 * what C allows across units (a struct defined again in each, static
 * names that repeat, headers of one name) links. The library hands the
 * inputs over as one source text, so cache keys, the spool and
 * hcqcl-cc's command line stay those of a single program:
 *
 *   CUBIN_UNITS_MAGIC, then per unit "//unit <o> <s> <h>\n" (decimal)
 *   followed by o bytes of options, s bytes of source and h headers,
 *   each "//header <n> <t>\n", n bytes of name, t bytes of text.
 *
 * Nothing follows the last unit. The magic starts with a NUL byte, which
 * no OpenCL C source does. */
#define CUBIN_UNITS_MAGIC "\0hcqcl-link-units\n"
#define CUBIN_UNITS_MAGIC_LEN (sizeof(CUBIN_UNITS_MAGIC) - 1)

struct cubin_unit {
    const char *options, *source;
    size_t options_len, source_len;
    const char *headers; /* the h header records, headers_len bytes */
    size_t headers_len, num_headers;
};

/* True when src (len bytes) starts with CUBIN_UNITS_MAGIC. */
bool cubin_units_is(const char *src, size_t len);

/* The unit at *pos of a units text, *pos advanced past it; *pos 0 starts
 * at the first unit. 1: *u is set; 0: no unit is left; -EINVAL: the text
 * is malformed there (a count that does not parse or runs past len, a
 * header record that does not). */
int cubin_units_next(const char *src, size_t len, size_t *pos, struct cubin_unit *u);

/* Header i (< u->num_headers) of a unit cubin_units_next returned. */
void cubin_unit_header(const struct cubin_unit *u, size_t i, const char **name, size_t *name_len,
                       const char **text, size_t *text_len);

/* ---- printf ------------------------------------------------------------
 * How a kernel's printf calls reach the host: the contract between the
 * code hcqcl-cc generates for them (tools/hcqcl-cc/irprintf.c) and the
 * launcher (src/api). A launch of a CUBIN_CONTAINER_KERNEL_PRINTF kernel
 * gets a buffer in GPU memory; its address is in the environment
 * registers HCQ_ENVREG_PRINTF (core/hcq.h), 0 when there is none (the
 * calls then return -1). Buffer, little-endian u32 words:
 *   [0] bytes reserved so far (atomically added; may pass the capacity)
 *   [1] capacity: bytes of the record area
 *   [2..] the record area
 * A printf call reserves its whole record at once and returns -1 when it
 * does not fit. The one call whose record straddles the end writes a 0
 * size word at its start when that word fits, so a reader stops there.
 * Record (4-byte aligned, every part padded to 4 bytes):
 *   u32 record size (bytes, this word included)
 *   u32 n, then n bytes: the format string with its NUL
 *   per argument: u32 n, then n bytes: the value as the call passed it
 *     (C's default promotions apply: float is double, char and short
 *     are int; a vector is its elements packed), or for a %s argument
 *     the string with its NUL (n = 0 for a NULL pointer). */
#define CUBIN_PRINTF_HEADER 8u

/* One conversion specification of an OpenCL C printf format. */
struct cubin_printf_spec {
    char flags[6];     /* of "-+ #0", NUL-terminated */
    int width;         /* -1 none, -2 '*' (an int argument) */
    int precision;     /* -1 none, -2 '*' */
    unsigned vec;      /* vector specifier n (2, 3, 4, 8, 16); 0 scalar */
    char len[3];       /* length modifier: "", "hh", "h", "hl", "l" */
    char conv;         /* d i o u x X c s f F e E g G a A p, or '%' */
    size_t span;       /* characters from the '%' through the conversion */
};

/* Parse the specification at s (which points at a '%'). 0, or -EINVAL
 * for one OpenCL C does not define (the vector specifier needs a length
 * modifier for integers, "hl" needs a vector, no vector of %c %s %p). */
int cubin_printf_spec(const char *s, struct cubin_printf_spec *out);

/* Format the records of a printf buffer's record area (at most size
 * bytes) and write the text to out, record by record. Returns the number
 * of records written, or -EINVAL at the first malformed record (those
 * before it are written). */
int cubin_printf_write(const void *area, size_t size, FILE *out);

#endif

/*
 * cubin.h — NVIDIA cubin (EM_CUDA ELF) parsing: kernels, their parameter
 * ABI and resource needs, and the load image with its relocations.
 *
 * Inputs are untrusted (clCreateProgramWithBinary): every offset and size
 * is bounds-checked, a malformed file is an error plus one log line saying
 * why, never a crash. Parsing copies everything it keeps; the input buffer
 * may be freed right after cubin_parse() returns.
 *
 * Callers: src/api (program build/binary paths), src/core/program.c
 * (hcq_program_load), src/emu (matching launched code to registered
 * cubins), tests. Pure functions, no global state: any thread.
 *
 * The load image: every allocated PROGBITS/NOBITS section the GPU reads
 * (code, .nv.constantN for N >= 1, .nv.global*), each at an offset aligned
 * to max(sh_addralign, 128), NOBITS bytes zero. Per-launch constant bank 0
 * templates (.nv.constant0.*) and per-CTA shared sections are not part of
 * it. The loader copies image[0..image_size) to GPU memory at base VA and
 * applies the relocations with cubin_relocate().
 */
#ifndef HCQCL_CUBIN_CUBIN_H
#define HCQCL_CUBIN_CUBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EM_CUDA_MACHINE 190
#define CUBIN_ELFOSABI_CUDA 0x33    /* pre-CUDA-13: SM in e_flags 7:0   */
#define CUBIN_ELFOSABI_CUDA13 0x41  /* CUDA 13: SM in e_flags 15:8      */
#define CUBIN_IMAGE_ALIGN 128u
#define CUBIN_CBANKS 8              /* constant banks a QMD can bind */

/* Relocation types hcqcl applies (value = VA of symbol + addend). */
#define R_CUDA_32 0x01              /* 4 bytes at offset */
#define R_CUDA_64 0x02              /* 8 bytes at offset */
#define R_CUDA_ABS32_LO_32 0x38     /* low 32 bits into bytes 4..7 of the word at offset */
#define R_CUDA_ABS32_HI_32 0x39     /* high 32 bits into bytes 4..7 */
#define R_CUDA_FUNC_DESC32_LO_32 0x3E /* function address, as ABS32_LO_32 */
#define R_CUDA_FUNC_DESC32_HI_32 0x3F /* function address, as ABS32_HI_32 */

/* .nv.info attribute codes used (EIATTR_*). */
#define EIATTR_MAX_THREADS 0x05
#define EIATTR_PARAM_CBANK 0x0A
#define EIATTR_REQNTID 0x10
#define EIATTR_FRAME_SIZE 0x11
#define EIATTR_MIN_STACK_SIZE 0x12
#define EIATTR_KPARAM_INFO 0x17
#define EIATTR_CBANK_PARAM_SIZE 0x19
#define EIATTR_MAX_STACK_SIZE 0x23
#define EIATTR_REGCOUNT 0x2F
#define EIATTR_NUM_BARRIERS 0x4C
#define EIATTR_KPARAM_INFO_V2 0x45

/* One section of the load image. */
struct cubin_section {
    char *name;
    uint32_t elf_index;
    uint64_t offset; /* in the image */
    uint64_t size;
    uint32_t align;
    bool nobits;
};

/* A relocation, resolved to image offsets. */
struct cubin_reloc {
    uint32_t type;
    uint64_t offset;     /* image offset of the patched bytes */
    uint64_t sym_offset; /* image offset of the symbol's address */
    int64_t addend;
};

/* One kernel parameter (EIATTR_KPARAM_INFO). */
struct cubin_param {
    uint32_t ordinal;
    uint32_t offset;    /* relative to the parameter block */
    uint32_t size;      /* bytes */
    uint8_t space;      /* 0 for nvcc pointers; clang: address space */
    uint8_t log_align;  /* pointee log2 alignment */
};

struct cubin_kernel {
    char *name;
    uint32_t sym_index;
    uint32_t text_section;   /* index into cubin->sections */
    uint64_t text_offset;    /* image offset of .text.<name> */
    uint64_t text_size;
    uint32_t param_base;     /* EIATTR_PARAM_CBANK offset in bank 0 */
    uint32_t param_size;     /* bytes of the parameter block */
    uint32_t cbuf0_size;     /* size of .nv.constant0.<name> (>= base + size) */
    uint32_t num_params;
    struct cubin_param *params; /* sorted by ordinal, 0..num_params-1 */
    uint32_t regs;           /* EIATTR_REGCOUNT */
    uint32_t min_stack;      /* EIATTR_MIN_STACK_SIZE */
    uint32_t frame_size;     /* EIATTR_FRAME_SIZE */
    uint32_t max_stack;      /* EIATTR_MAX_STACK_SIZE (0 if absent) */
    uint32_t shared_size;    /* .nv.shared.<name> bytes (sm_90: reserved 1 KiB included); 0 none */
    uint32_t num_barriers;
    uint32_t reqntid[3];     /* 0,0,0 when not required */
    uint32_t max_threads[3]; /* 0,0,0 when unbounded */
    /* Bank N (1..7) bound to sections[cbank_section[N] - 1]; 0 = unbound. */
    uint32_t cbank_section[CUBIN_CBANKS];
};

struct cubin {
    uint32_t sm;           /* 90 for sm_90, 86 for sm_86 */
    uint32_t arch;         /* same in hcq_device_info form: 0x900, 0x860 */
    uint8_t osabi;
    uint8_t *image;        /* image_size bytes, relocations not applied */
    uint64_t image_size;
    uint32_t num_sections;
    struct cubin_section *sections;
    uint32_t num_relocs;
    struct cubin_reloc *relocs;
    uint32_t num_kernels;
    struct cubin_kernel *kernels;
};

/* True when data starts like an ELF / a fatbin (cheap sniffing). */
bool cubin_is_elf(const void *data, size_t size);
bool cubin_is_fatbin(const void *data, size_t size);

/* Parse an sm_XX cubin. On error *out is NULL and log (if log_size > 0)
 * holds one NUL-terminated line saying why. Returns 0, -EINVAL (malformed
 * or unsupported), -ENOMEM. */
int cubin_parse(const void *data, size_t size, struct cubin **out, char *log, size_t log_size);
void cubin_free(struct cubin *cb);

/* Find the ELF cubin for sm (e.g. 90) in a fatbin (one or more
 * concatenated fatbin blobs). *cubin points into data. -ENOENT (log says
 * which SMs were present) or -EINVAL (malformed). Compressed entries are
 * skipped. */
int cubin_from_fatbin(const void *data, size_t size, uint32_t sm, const void **cubin,
                      size_t *cubin_size, char *log, size_t log_size);

/* Whether a cubin for cb->arch runs on a device of arch (same major, cubin
 * minor <= device minor). -EINVAL with a log line otherwise. */
int cubin_check_arch(const struct cubin *cb, uint32_t arch, char *log, size_t log_size);

const struct cubin_kernel *cubin_kernel(const struct cubin *cb, const char *name);

/* Apply cb's relocations to image (a copy of cb->image, image_size bytes)
 * as if loaded at base_va. */
void cubin_relocate(const struct cubin *cb, uint8_t *image, uint64_t base_va);

#endif

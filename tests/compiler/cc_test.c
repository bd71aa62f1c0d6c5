/*
 * cc_test.c — hcqcl-cc end to end: builtin shim (work-item functions
 * read from the envregs in constant bank 0 at 0x40..0xb0 in the SASS),
 * argument metadata, reqd_work_group_size in the container and as EIATTR_MAX_THREADS,
 * kernels that call kernels,
 * option errors, the CTS offline-compiler interface, and every .cl file
 * given on the command line (the samples' kernels).
 *
 * usage: compiler_cc HCQCL-CC KERNEL_DIR WORK_DIR [FILE.cl ...]
 * Exit 77 (skipped) when the tool chain (clang, libclc, ptxas) is absent.
 */
#include "cubin/container.h"

#include <elf.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static int failures;
static const char *cc, *kdir, *wdir;
#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);           \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)
/* The same with a message. */
#define EXPECTF(cond, ...)                                                                \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = 0;
        *size = (size_t)n;
    }
    return b;
}

/* Run hcqcl-cc with args; its stderr lands in *log (caller frees). */
static int run_cc(char **log, const char *const *args)
{
    char logpath[4096];
    snprintf(logpath, sizeof(logpath), "%s/cc.log", wdir);
    const char *argv[64];
    size_t n = 0;
    argv[n++] = cc;
    for (; *args && n < 63; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, cc, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return -1;
    int st;
    waitpid(pid, &st, 0);
    size_t sz;
    char *l = slurp(logpath, &sz);
    if (log)
        *log = l ? l : strdup("");
    else
        free(l);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static struct cubin_container *build(const char *file, const char *options, char **blob_out)
{
    char src[4096], out[4096], opt[4096];
    snprintf(src, sizeof(src), "%s/%s", kdir, file);
    snprintf(out, sizeof(out), "%s/%s.hcqclbin", wdir, file);
    snprintf(opt, sizeof(opt), "--options=%s", options);
    char *log = NULL;
    const char *args[] = { opt, "-o", out, src, NULL };
    int rc = run_cc(&log, args);
    if (rc != 0) {
        fprintf(stderr, "hcqcl-cc %s failed (%d):\n%s", file, rc, log);
        free(log);
        failures++;
        return NULL;
    }
    free(log);
    size_t size;
    char *blob = slurp(out, &size);
    struct cubin_container *c = NULL;
    EXPECT(blob && cubin_container_parse(blob, size, &c) == 0);
    if (blob_out)
        *blob_out = blob;
    else
        free(blob);
    return c;
}

/* The header of a cubin section by name, or NULL. */
static const Elf64_Shdr *section_header(const struct cubin_container *c, const char *name)
{
    const uint8_t *b = c->cubin;
    if (c->cubin_size < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG) != 0)
        return NULL;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
    if (eh->e_shoff > c->cubin_size || eh->e_shstrndx >= eh->e_shnum ||
        (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > c->cubin_size - eh->e_shoff)
        return NULL;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
    const char *names = (const char *)b + sh[eh->e_shstrndx].sh_offset;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (strcmp(names + sh[i].sh_name, name) == 0)
            return &sh[i];
    return NULL;
}

/* A section of the cubin by name, or NULL. */
static const uint8_t *section(const struct cubin_container *c, const char *name, size_t *size)
{
    const Elf64_Shdr *sh = section_header(c, name);
    if (!sh || sh->sh_offset > c->cubin_size || sh->sh_size > c->cubin_size - sh->sh_offset)
        return NULL;
    *size = sh->sh_size;
    return (const uint8_t *)c->cubin + sh->sh_offset;
}

/* Constant-bank-0 byte offsets that SASS loads (LDC / ULDC) read in a
 * kernel: sm_90 encodes c[bank][offset] in the low 64 bits of an
 * instruction, offset/4 at bits 40..53 and the bank at bits 54..58. */
static unsigned cbuf0_reads(const struct cubin_container *c, const char *kernel, uint32_t lo,
                            uint32_t hi, uint32_t *seen_mask)
{
    char name[256];
    size_t size = 0;
    snprintf(name, sizeof(name), ".text.%s", kernel);
    const uint8_t *t = section(c, name, &size);
    unsigned n = 0;
    *seen_mask = 0;
    for (size_t i = 0; t && i + 16 <= size; i += 16) {
        uint64_t w;
        memcpy(&w, t + i, 8);
        uint32_t op = (uint32_t)(w & 0xfff);
        if (op != 0xb82 && op != 0xab9) /* LDC, ULDC */
            continue;
        uint32_t off = (uint32_t)((w >> 40) & 0x3fff) * 4, bank = (uint32_t)((w >> 54) & 0x1f);
        if (bank == 0 && off >= lo && off < hi) {
            n++;
            *seen_mask |= 1u << ((off - lo) / 4);
        }
    }
    return n;
}

/* A symbol of the cubin by name, or NULL. */
static const Elf64_Sym *symbol(const struct cubin_container *c, const char *name)
{
    const uint8_t *b = c->cubin;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(b + sh[i].sh_offset);
        const char *str = (const char *)b + sh[sh[i].sh_link].sh_offset;
        for (size_t j = 0; j < sh[i].sh_size / sizeof(*sym); j++)
            if (!strcmp(str + sym[j].st_name, name))
                return &sym[j];
    }
    return NULL;
}

/* True when the cubin's symbol table has kernel as a GLOBAL FUNC (how
 * loaders find kernels). */
static bool global_func(const struct cubin_container *c, const char *kernel)
{
    const Elf64_Sym *s = symbol(c, kernel);
    return s && ELF64_ST_TYPE(s->st_info) == STT_FUNC && ELF64_ST_BIND(s->st_info) == STB_GLOBAL;
}

/* True when a function is compiled into a kernel's code: ptxas names it
 * "$kernel$function", a LOCAL FUNC. */
static bool called_func(const struct cubin_container *c, const char *kernel, const char *func)
{
    char name[512];
    snprintf(name, sizeof(name), "$%s$%s", kernel, func);
    const Elf64_Sym *s = symbol(c, name);
    return s && ELF64_ST_TYPE(s->st_info) == STT_FUNC && ELF64_ST_BIND(s->st_info) == STB_LOCAL;
}

/* EIATTR_MAX_THREADS (0x05) of a kernel, the bound hcqcl-cc gives a
 * kernel with reqd_work_group_size (.maxntid): 1 and the three values when
 * present. */
static int maxntid(const struct cubin_container *c, const char *kernel, uint32_t v[3])
{
    char name[256];
    size_t size = 0;
    snprintf(name, sizeof(name), ".nv.info.%s", kernel);
    const uint8_t *p = section(c, name, &size);
    for (size_t i = 0; p && i + 4 <= size;) {
        uint8_t fmt = p[i], attr = p[i + 1];
        uint16_t len;
        memcpy(&len, p + i + 2, 2);
        if (fmt == 0x04) {
            if (attr == 0x05 && len == 12 && i + 16 <= size) {
                memcpy(v, p + i + 4, 12);
                return 1;
            }
            i += 4 + (size_t)len;
        } else {
            i += 4;
        }
    }
    return 0;
}

static void test_shim(void)
{
    struct cubin_container *c = build("shim.cl", "", NULL);
    if (!c)
        return;
    uint32_t mask;
    /* work_dim = %envreg6 = c[0x0][0x58] */
    EXPECT(cbuf0_reads(c, "work_dim", 0x58, 0x5c, &mask) >= 1);
    /* global offsets of dimensions 0..2 = %envreg8..13 = c[0x0][0x60..0x74] */
    cbuf0_reads(c, "offsets", 0x60, 0x78, &mask);
    EXPECT(mask == 0x3f);
    /* group ids: the launch's first group, %envreg20..22 = c[0x0][0x90..0x98] */
    cbuf0_reads(c, "groups", 0x90, 0x9c, &mask);
    EXPECT(mask == 0x7);
    /* global sizes %envreg14..19 = c[0x0][0x78..0x8c], numbers of groups
     * %envreg23..25 = c[0x0][0x9c..0xa4] */
    cbuf0_reads(c, "sizes", 0x78, 0xa8, &mask);
    EXPECT(mask == (0x3f | 0x7u << 9));
    EXPECT(cubin_container_kernel(c, "natives") != NULL);
    EXPECT(global_func(c, "work_dim") && global_func(c, "offsets") && global_func(c, "natives"));
    EXPECT(cubin_container_kernel(c, "async3") != NULL);
    cubin_container_free(c);

    /* OpenCL C 2.0: enqueued local sizes %envreg26..28 = c[0x0][0xa8..0xb0];
     * the linear ids and both work_group_barrier overloads resolve. */
    c = build("shim20.cl", "-cl-std=CL2.0", NULL);
    if (!c)
        return;
    cbuf0_reads(c, "enqueued", 0xa8, 0xb4, &mask);
    EXPECT(mask == 0x7);
    EXPECT(global_func(c, "enqueued") && global_func(c, "linear"));
    cubin_container_free(c);
}

/* The compiled shim is kept in the cache directory and used by the next
 * build, which gives the same container; an entry that is not bitcode is
 * compiled again and replaced. */
static void test_shim_cache(const char *dir)
{
    char cmd[8400];
    snprintf(cmd, sizeof(cmd), "rm -f '%s'/shim-*.bc", dir);
    EXPECT(system(cmd) == 0);
    char *first = NULL, *again = NULL, *repaired = NULL;
    struct cubin_container *c1 = build("args.cl", "", &first);
    snprintf(cmd, sizeof(cmd), "test $(ls '%s' | grep -c '^shim-.*\\.bc$') = 1", dir);
    EXPECT(system(cmd) == 0);
    struct cubin_container *c2 = build("args.cl", "", &again);
    snprintf(cmd, sizeof(cmd), "for f in '%s'/shim-*.bc; do printf junk > \"$f\"; done", dir);
    EXPECT(system(cmd) == 0);
    struct cubin_container *c3 = build("args.cl", "", &repaired);
    /* Cut short, still starting as bitcode: the build that fails with it
     * makes the shim again. */
    snprintf(cmd, sizeof(cmd),
             "for f in '%s'/shim-*.bc; do head -c 2000 \"$f\" > \"$f.cut\" && mv \"$f.cut\" \"$f\"; done",
             dir);
    EXPECT(system(cmd) == 0);
    char *recut = NULL;
    struct cubin_container *c4 = build("args.cl", "", &recut);
    EXPECT(c4 && c3 && c4->cubin_size == c3->cubin_size &&
           !memcmp(c4->cubin, c3->cubin, c3->cubin_size));
    snprintf(cmd, sizeof(cmd), "test $(stat -c %%s '%s'/shim-*.bc) -gt 2000", dir);
    EXPECT(system(cmd) == 0);
    cubin_container_free(c4);
    free(recut);
    EXPECT(c1 && c2 && c3);
    if (c1 && c2 && c3) {
        EXPECT(c1->cubin_size == c2->cubin_size && c1->cubin_size == c3->cubin_size);
        EXPECT(!memcmp(c1->cubin, c2->cubin, c1->cubin_size));
        EXPECT(!memcmp(c1->cubin, c3->cubin, c1->cubin_size));
    }
    snprintf(cmd, sizeof(cmd), "head -c 4 '%s'/shim-*.bc | od -An -tx1 | grep -q '42 43 c0 de'", dir);
    EXPECT(system(cmd) == 0);
    cubin_container_free(c1);
    cubin_container_free(c2);
    cubin_container_free(c3);
    free(first);
    free(again);
    free(repaired);
}

static void test_args(void)
{
    struct cubin_container *c = build("args.cl", "-cl-kernel-arg-info -DUNUSED=1", NULL);
    if (!c)
        return;
    EXPECT(c->arch == 0x900 && strcmp(c->options, "-cl-kernel-arg-info -DUNUSED=1") == 0);
    EXPECT(c->num_kernels == 3);
    const struct cubin_container_kernel *k = cubin_container_kernel(c, "qualifiers");
    EXPECT(k && k->num_args == 7);
    if (k && k->num_args == 7) {
        const struct cubin_container_arg *a = k->args;
        EXPECT(a[0].addr == CUBIN_CONTAINER_ADDR_GLOBAL && !strcmp(a[0].type_name, "float*") &&
               a[0].type_qual == (CUBIN_CONTAINER_TYPE_CONST | CUBIN_CONTAINER_TYPE_RESTRICT) &&
               a[0].name && !strcmp(a[0].name, "in"));
        EXPECT(a[1].addr == CUBIN_CONTAINER_ADDR_LOCAL && !strcmp(a[1].name, "scratch"));
        EXPECT(a[2].addr == CUBIN_CONTAINER_ADDR_CONSTANT && !strcmp(a[2].type_name, "float4*"));
        EXPECT(a[3].access == CUBIN_CONTAINER_ACCESS_READ_ONLY && !strcmp(a[3].type_name, "image2d_t"));
        EXPECT(a[4].addr == CUBIN_CONTAINER_ADDR_PRIVATE && !strcmp(a[4].type_name, "uint") &&
               !strcmp(a[4].name, "n"));
        EXPECT(a[5].type_qual == CUBIN_CONTAINER_TYPE_VOLATILE && !strcmp(a[5].type_name, "int*"));
        EXPECT(!strcmp(a[6].type_name, "pair_t") && !strcmp(a[6].name, "p"));
    }
    EXPECT(k && k->reqd_work_group_size[0] == 64 && k->reqd_work_group_size[1] == 2 &&
           k->reqd_work_group_size[2] == 1);
    EXPECT(k && !strcmp(k->attributes, "reqd_work_group_size(64,2,1)"));
    uint32_t v[3] = { 0 };
    EXPECT(maxntid(c, "qualifiers", v) && v[0] == 64 && v[1] == 2 && v[2] == 1);
    const struct cubin_container_kernel *h = cubin_container_kernel(c, "hinted");
    EXPECT(h && h->work_group_size_hint[0] == 16 && h->work_group_size_hint[1] == 4 &&
           h->reqd_work_group_size[0] == 0);
    EXPECT(h && !strcmp(h->attributes, "work_group_size_hint(16,4,1) vec_type_hint(uint4)"));
    EXPECT(!maxntid(c, "hinted", v));
    const struct cubin_container_kernel *z = cubin_container_kernel(c, "no_args");
    EXPECT(z && z->num_args == 0);
    cubin_container_free(c);

    /* Without -cl-kernel-arg-info: qualifiers yes, names no. */
    c = build("args.cl", "", NULL);
    k = c ? cubin_container_kernel(c, "qualifiers") : NULL;
    EXPECT(k && k->num_args == 7 && k->args[0].name == NULL && k->args[1].addr == CUBIN_CONTAINER_ADDR_LOCAL);
    cubin_container_free(c);
}

/* Kernels that call kernels (calls.cl): every kernel stays an entry with
 * its own metadata and MAX_THREADS, the calls go to function copies (real
 * calls when compiled without optimisation), and a called kernel's
 * __local array counts in its caller's shared memory. */
static void expect_float_args(const struct cubin_container_kernel *k)
{
    EXPECT(k && k->num_args == 4);
    if (!k || k->num_args != 4)
        return;
    const struct cubin_container_arg *a = k->args;
    EXPECT(a[0].addr == CUBIN_CONTAINER_ADDR_GLOBAL && !strcmp(a[0].type_name, "float*") &&
           a[0].type_qual == 0 && !strcmp(a[0].name, "out"));
    EXPECT(a[1].addr == CUBIN_CONTAINER_ADDR_GLOBAL && !strcmp(a[1].type_name, "float*") &&
           a[1].type_qual == CUBIN_CONTAINER_TYPE_CONST && !strcmp(a[1].name, "in"));
    EXPECT(a[2].addr == CUBIN_CONTAINER_ADDR_PRIVATE && !strcmp(a[2].type_name, "float") &&
           !strcmp(a[2].name, "factor"));
    EXPECT(a[3].addr == CUBIN_CONTAINER_ADDR_PRIVATE && !strcmp(a[3].type_name, "uint") &&
           !strcmp(a[3].name, "n"));
}

static void test_calls(void)
{
    static const char *const names[] = { "scale", "scale_twice", "scale_more", "tile_sum",
                                         "uses_tile" };
    static const char *const opts[] = { "-cl-kernel-arg-info",
                                        "-cl-kernel-arg-info -cl-opt-disable" };
    for (int o = 0; o < 2; o++) {
        struct cubin_container *c = build("calls.cl", opts[o], NULL);
        if (!c)
            continue;
        EXPECT(c->num_kernels == 5);
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            EXPECT(cubin_container_kernel(c, names[i]) && global_func(c, names[i]));
        const struct cubin_container_kernel *k = cubin_container_kernel(c, "scale");
        expect_float_args(k);
        EXPECT(k && !strcmp(k->attributes, "reqd_work_group_size(64,1,1)"));
        uint32_t v[3] = { 0 };
        EXPECT(maxntid(c, "scale", v) && v[0] == 64 && v[1] == 1 && v[2] == 1);
        k = cubin_container_kernel(c, "scale_twice");
        expect_float_args(k);
        EXPECT(k && !strcmp(k->attributes, "") && !maxntid(c, "scale_twice", v));
        k = cubin_container_kernel(c, "scale_more");
        EXPECT(k && k->num_args == 2 && k->args[0].addr == CUBIN_CONTAINER_ADDR_GLOBAL &&
               !strcmp(k->args[0].name, "data") && !strcmp(k->args[1].type_name, "uint"));
        const Elf64_Shdr *callee = section_header(c, ".nv.shared.tile_sum");
        const Elf64_Shdr *caller = section_header(c, ".nv.shared.uses_tile");
        EXPECT(callee && caller && callee->sh_size >= 64 * 4 &&
               caller->sh_size >= callee->sh_size + 128 * 4);
        if (o == 1) {
            /* Not inlined: the calls reach the copies, functions in
             * the callers' code. */
            EXPECT(called_func(c, "scale_twice", "__hcqcl_kernel_scale"));
            EXPECT(called_func(c, "scale_more", "__hcqcl_kernel_scale_twice") &&
                   called_func(c, "scale_more", "__hcqcl_kernel_scale"));
            EXPECT(called_func(c, "uses_tile", "__hcqcl_kernel_tile_sum"));
            EXPECT(!cubin_container_kernel(c, "__hcqcl_kernel_scale") &&
                   !symbol(c, "__hcqcl_kernel_scale") && !called_func(c, "scale", "__hcqcl_kernel_scale"));
        }
        cubin_container_free(c);
    }
}

/* printf: the kernels that reach it are flagged and read the buffer's
 * address from %envreg29/30 = c[0x0][0xb4..0xbc]; the others are not. */
static void test_printf(void)
{
    static const char *const opts[] = { "", "-cl-opt-disable" };
    for (int o = 0; o < 2; o++) {
        struct cubin_container *c = build("printf.cl", opts[o], NULL);
        if (!c)
            continue;
        const struct cubin_container_kernel *d = cubin_container_kernel(c, "direct");
        const struct cubin_container_kernel *in = cubin_container_kernel(c, "indirect");
        const struct cubin_container_kernel *s = cubin_container_kernel(c, "silent");
        EXPECT(d && (d->flags & CUBIN_CONTAINER_KERNEL_PRINTF));
        EXPECT(in && (in->flags & CUBIN_CONTAINER_KERNEL_PRINTF));
        EXPECT(s && !(s->flags & CUBIN_CONTAINER_KERNEL_PRINTF));
        uint32_t mask = 0;
        if (o == 0) { /* at -O0 the reads are in a function the kernels call */
            cbuf0_reads(c, "direct", 0xb4, 0xbc, &mask);
            EXPECT(mask == 0x3);
            cbuf0_reads(c, "indirect", 0xb4, 0xbc, &mask);
            EXPECT(mask == 0x3);
        }
        EXPECT(cbuf0_reads(c, "silent", 0xb4, 0xbc, &mask) == 0);
        cubin_container_free(c);
    }
    /* The format's bytes as the kernel has them: LLVM writes a backslash
     * as \\ and "" as zeroinitializer; each call copies exactly its
     * format, NUL included (a"b\%d + newline: 8 bytes; "": 1). */
    char src[4096], out[4096];
    snprintf(src, sizeof(src), "%s/formats.cl", wdir);
    snprintf(out, sizeof(out), "%s/formats.ll", wdir);
    FILE *f = fopen(src, "w");
    fputs("kernel void k(void) { printf(\"a\\\"b\\\\%d\\n\", 1); printf(\"\"); }\n", f);
    fclose(f);
    const char *args[] = { "--emit=llvm", "--options=-cl-opt-disable", "-o", out, src, NULL };
    EXPECT(run_cc(NULL, args) == 0);
    size_t size;
    char *ll = slurp(out, &size);
    static const char copy[] = "ptr addrspace(4) align 1 %a0, i64 ";
    const char *first = ll ? strstr(ll, copy) : NULL;
    const char *second = first ? strstr(first + 1, copy) : NULL;
    EXPECT(first && !strncmp(first + sizeof(copy) - 1, "8,", 2));
    EXPECT(second && !strncmp(second + sizeof(copy) - 1, "1,", 2));
    free(ll);
}

static void test_errors(void)
{
    char src[4096], out[4096], bad[4096];
    snprintf(src, sizeof(src), "%s/args.cl", kdir);
    snprintf(out, sizeof(out), "%s/x.hcqclbin", wdir);
    char *log = NULL;
    const char *a1[] = { "--options=-cl-no-such-option", "-o", out, src, NULL };
    EXPECT(run_cc(&log, a1) == 2 && strstr(log, "-cl-no-such-option"));
    free(log);
    const char *a2[] = { "--options=-cl-std=CL9.9", "-o", out, src, NULL };
    EXPECT(run_cc(&log, a2) == 2);
    free(log);
    const char *a3[] = { "--options=-D", "-o", out, src, NULL };
    EXPECT(run_cc(&log, a3) == 2);
    free(log);
    snprintf(bad, sizeof(bad), "%s/bad.cl", wdir);
    FILE *f = fopen(bad, "w");
    fputs("kernel void k(global int *a) { a[0] = not_declared; }\n", f);
    fclose(f);
    const char *a4[] = { "-o", out, bad, NULL };
    EXPECT(run_cc(&log, a4) == 1 && strstr(log, "not_declared") && strstr(log, "error"));
    free(log);
    /* -D on the command line reaches the preprocessor. */
    f = fopen(bad, "w");
    fputs("#ifndef NEEDED\n#error NEEDED not defined\n#endif\nkernel void k(global int *a) { a[0] = NEEDED; }\n", f);
    fclose(f);
    const char *a5[] = { "-o", out, bad, NULL };
    EXPECT(run_cc(&log, a5) == 1 && strstr(log, "NEEDED not defined"));
    free(log);
    const char *a6[] = { "-o", out, "-D", "NEEDED=3", bad, NULL };
    EXPECT(run_cc(&log, a6) == 0);
    free(log);
    /* Quotes group an option's value as clBuildProgram users write it. */
    const char *a7[] = { "--options=-D \"NEEDED=(1 + 2)\" -cl-mad-enable", "-o", out, bad, NULL };
    EXPECT(run_cc(&log, a7) == 0);
    free(log);
    const char *a8[] = { "--options=-D \"NEEDED=(1 + 2)", "-o", out, bad, NULL };
    EXPECT(run_cc(&log, a8) == 2 && strstr(log, "unterminated quote"));
    free(log);
    /* printf's format must be a string literal. */
    f = fopen(bad, "w");
    fputs("kernel void k(__constant char *f) { printf(f); }\n", f);
    fclose(f);
    const char *a9[] = { "-o", out, bad, NULL };
    EXPECT(run_cc(&log, a9) == 1 && strstr(log, "string literal"));
    free(log);
}

/* cl_nv_compiler_options: -cl-nv-verbose puts ptxas's report in the log,
 * -cl-nv-maxrregcount caps the registers (both spellings of the value),
 * -cl-nv-opt-level takes 0-3, -cl-nv-arch is taken and the device's
 * architecture kept; a bad or missing value is refused (exit 2). And
 * #pragma unroll (cl_nv_pragma_unroll) compiles without a warning. */
/* The registers the kernel of a one-kernel container uses:
 * EIATTR_REGCOUNT (0x2f: symbol index, count) in .nv.info. */
static uint32_t kernel_regs(const char *out)
{
    size_t size = 0, n = 0;
    char *blob = slurp(out, &size);
    struct cubin_container *c = NULL;
    uint32_t regs = 0;
    const uint8_t *p = blob && cubin_container_parse(blob, size, &c) == 0
                           ? section(c, ".nv.info", &n)
                           : NULL;
    for (size_t i = 0; p && i + 4 <= n;) {
        uint16_t len;
        memcpy(&len, p + i + 2, 2);
        if (p[i] != 0x04) {
            i += 4;
            continue;
        }
        if (p[i + 1] == 0x2f && len == 8 && i + 12 <= n)
            memcpy(&regs, p + i + 8, 4);
        i += 4 + (size_t)len;
    }
    cubin_container_free(c);
    free(blob);
    return regs;
}

static void test_nv_options(void)
{
    char src[4096], out[4096];
    snprintf(src, sizeof(src), "%s/regs.cl", kdir);
    snprintf(out, sizeof(out), "%s/regs.hcqclbin", wdir);
    char *log = NULL;
    const char *plain[] = { "--options=-Werror", "-o", out, src, NULL };
    EXPECTF(run_cc(&log, plain) == 0 && !strstr(log, "warning"), "#pragma unroll: %s", log);
    free(log);
    const uint32_t free_regs = kernel_regs(out);
    EXPECTF(free_regs > 40, "%u registers without a limit", free_regs);
    const char *verbose[] = { "--options=-cl-nv-verbose", "-o", out, src, NULL };
    EXPECTF(run_cc(&log, verbose) == 0 && strstr(log, "ptxas info") && strstr(log, "registers"),
           "-cl-nv-verbose log: %s", log);
    free(log);
    const char *eq[] = { "--options=-cl-nv-maxrregcount=32 -cl-nv-opt-level=2", "-o", out, src,
                         NULL };
    EXPECT(run_cc(&log, eq) == 0);
    free(log);
    uint32_t regs = kernel_regs(out);
    EXPECTF(regs > 0 && regs <= 32, "%u registers under -cl-nv-maxrregcount=32", regs);
    const char *sp[] = { "--options=-cl-nv-maxrregcount 40 -cl-nv-opt-level 1 -cl-nv-arch sm_90",
                         "-o", out, src, NULL };
    EXPECT(run_cc(&log, sp) == 0);
    free(log);
    regs = kernel_regs(out);
    EXPECTF(regs > 32 && regs <= 40, "%u registers under -cl-nv-maxrregcount 40", regs);
    /* Every option the specification lists builds under -Werror without
     * a warning of clang's about the option itself. */
    static const char *const each[] = {
        "-cl-single-precision-constant", "-cl-denorms-are-zero",
        "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-opt-disable", "-cl-mad-enable",
        "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
        "-cl-fast-relaxed-math", "-cl-uniform-work-group-size", "-cl-kernel-arg-info", "-g",
        "-cl-no-subgroup-ifp", "-cl-strict-aliasing", "-cl-std=CL1.1", "-cl-std=CL3.0", "-w",
    };
    for (size_t i = 0; i < sizeof(each) / sizeof(each[0]); i++) {
        char opt[128];
        snprintf(opt, sizeof(opt), "--options=%s -Werror", each[i]);
        const char *a[] = { opt, "-o", out, src, NULL };
        int rc = run_cc(&log, a);
        EXPECTF(rc == 0 && !strstr(log, "warning"), "%s: exit %d, log %s", opt, rc, log);
        free(log);
    }
    static const char *const bad[] = {
        "--options=-cl-nv-opt-level=4", "--options=-cl-nv-opt-level x",
        "--options=-cl-nv-maxrregcount=0", "--options=-cl-nv-maxrregcount=12a",
        "--options=-cl-nv-maxrregcount", "--options=-cl-nv-arch",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *a[] = { bad[i], "-o", out, src, NULL };
        int rc = run_cc(&log, a);
        EXPECTF(rc == 2 && strstr(log, "-cl-nv-"), "%s: exit %d, log %s", bad[i], rc, log);
        free(log);
    }
}

/* The device reports CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: float division,
 * reciprocal and square root (scalar and vector, sqrt and rsqrt from
 * libclc) compile to PTX's IEEE round-to-nearest instructions, with the
 * option, without it, and under every math option. */
/* kdir/NAME.cl compiled to PTX with the --options= argument given: the
 * PTX text (malloc'ed), or NULL with the failure counted. */
static char *ptx_of(const char *name, const char *options)
{
    char src[4096], out[4096];
    snprintf(src, sizeof(src), "%s/%s.cl", kdir, name);
    snprintf(out, sizeof(out), "%s/%s.ptx", wdir, name);
    char *log = NULL;
    const char *a[] = { "--emit=ptx", options, "-o", out, src, NULL };
    int rc = run_cc(&log, a);
    EXPECTF(rc == 0, "%s %s: exit %d: %s", name, options, rc, log);
    free(log);
    size_t size = 0;
    return rc == 0 ? slurp(out, &size) : NULL;
}

static void test_correctly_rounded(void)
{
    static const char *const opts[] = {
        "--options=", "--options=-cl-fp32-correctly-rounded-divide-sqrt",
        "--options=-cl-mad-enable", "--options=-cl-unsafe-math-optimizations",
        "--options=-cl-fast-relaxed-math", "--options=-cl-finite-math-only -cl-no-signed-zeros",
    };
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        char *ptx = ptx_of("divsqrt", opts[i]);
        EXPECTF(ptx && strstr(ptx, "div.rn.f32") && strstr(ptx, "sqrt.rn.f32") &&
                    strstr(ptx, "rcp.rn.f32"),
                "%s: no div.rn / sqrt.rn / rcp.rn", opts[i]);
        EXPECTF(ptx && !strstr(ptx, ".approx") && !strstr(ptx, "div.full") &&
                    !strstr(ptx, ".ftz.f32"),
                "%s: an approximate or flushing float instruction", opts[i]);
        free(ptx);
    }
}

/* Builtins the shim supplies where libclc 16 for NVPTX fails: a 64-bit
 * rotate shifts by its amount modulo 64 (LLVM 16 shifted by the amount as
 * it was, and PTX clamps: 0 for amounts past 63), in the shim's PTX; and
 * smoothstep with scalar edges on double vectors exists. */
static void test_shim_fixes(void)
{
    char *ptx = ptx_of("rotate64", "--options=");
    EXPECTF(ptx && strstr(ptx, "shl.b64 l_") && strstr(ptx, "shr.b64 h_") &&
                strstr(ptx, ", 63;"),
            "no masked 64-bit rotate in the PTX");
    /* No rotate left to LLVM's lowering (its scratch register names). */
    EXPECTF(ptx && !strstr(ptx, "%amt2"), "a 64-bit rotate lowered by LLVM");
    free(ptx);
}

static void test_cts_interface(void)
{
    char src[4096], out[4096], info[4096], srcarg[4200], outarg[4200], infoarg[4200];
    /* OpenCL C 3.0 on this target has no images: shim.cl, not args.cl. */
    snprintf(src, sizeof(src), "%s/shim.cl", kdir);
    snprintf(out, sizeof(out), "%s/cts.bin", wdir);
    snprintf(info, sizeof(info), "%s/clDeviceInfo.txt", wdir);
    FILE *f = fopen(info, "w");
    fputs("# OpenCL device info affecting binary offline compilation:\nCL_DEVICE_ADDRESS_BITS=64\n"
          "CL_DEVICE_EXTENSIONS=\"cl_khr_icd\"\nCL_DEVICE_VERSION=\"OpenCL 3.0 hcqcl\"\n"
          "CL_DEVICE_IMAGE_SUPPORT=0\nCL_DEVICE_NAME=\"NVIDIA H200\"\n", f);
    fclose(f);
    snprintf(srcarg, sizeof(srcarg), "--source=%s", src);
    snprintf(outarg, sizeof(outarg), "--output=%s", out);
    snprintf(infoarg, sizeof(infoarg), "--cl-device-info=%s", info);
    unlink(out);
    const char *a[] = { "--mode=binary", srcarg, outarg, infoarg, "--", "-cl-std=CL3.0", "-DX=1", NULL };
    char *log = NULL;
    EXPECT(run_cc(&log, a) == 0);
    free(log);
    size_t size = 0;
    char *blob = slurp(out, &size);
    struct cubin_container *c = NULL;
    EXPECT(blob && cubin_container_parse(blob, size, &c) == 0);
    EXPECT(c && !strcmp(c->options, "-cl-std=CL3.0 -DX=1"));
    cubin_container_free(c);
    free(blob);
    /* Without options, and the space-separated spelling. */
    const char *b[] = { "--mode", "binary", "--source", src, "--output", out, "--cl-device-info", info, NULL };
    EXPECT(run_cc(&log, b) == 0);
    free(log);
    const char *s[] = { "--mode=spir-v", srcarg, outarg, infoarg, NULL };
    EXPECT(run_cc(&log, s) != 0);
    free(log);
}

/* Every given file compiles; known sample kernels carry their metadata. */
/* An output that is not a regular file is written in place, not replaced
 * by a regular file through a rename: a FIFO stays one, and its reader
 * gets the module. (A rename onto /dev/null as root replaced the device;
 * main checks that it still is one after the probe.) */
static void test_special_output(void)
{
    char fifo[4096], got[4096], cmd[8300], src[4096];
    snprintf(fifo, sizeof(fifo), "%s/out.fifo", wdir);
    snprintf(got, sizeof(got), "%s/fifo.ll", wdir);
    snprintf(src, sizeof(src), "%s/shim.cl", kdir);
    unlink(fifo);
    EXPECT(mkfifo(fifo, 0600) == 0);
    snprintf(cmd, sizeof(cmd), "exec cat '%s' > '%s'", fifo, got);
    const char *sh[] = { "/bin/sh", "-c", cmd, NULL };
    pid_t reader;
    if (posix_spawn(&reader, "/bin/sh", NULL, NULL, (char *const *)sh, environ) != 0) {
        EXPECT(!"spawn the FIFO's reader");
        return;
    }
    const char *a[] = { "--emit=llvm", "-o", fifo, src, NULL };
    char *log = NULL;
    const int rc = run_cc(&log, a);
    EXPECTF(rc == 0, "hcqcl-cc -o FIFO: %d\n%s", rc, log);
    free(log);
    struct stat st;
    const bool still = stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode);
    EXPECTF(still, "the FIFO was replaced by a file");
    if (!still || rc != 0)
        kill(reader, SIGKILL); /* blocked in its open: no writer came */
    int ws;
    waitpid(reader, &ws, 0);
    size_t size = 0;
    char *ll = slurp(got, &size);
    EXPECTF(ll && strstr(ll, "define"), "the FIFO's reader got %zu bytes of the module", size);
    free(ll);
    unlink(fifo);
}

static void test_files(int n, char **files)
{
    int known = 0;
    for (int i = 0; i < n; i++) {
        char out[4096];
        snprintf(out, sizeof(out), "%s/file%d.hcqclbin", wdir, i);
        const char *a[] = { "-o", out, files[i], NULL };
        char *log = NULL;
        int rc = run_cc(&log, a);
        if (rc != 0)
            fprintf(stderr, "%s:\n%s", files[i], log);
        EXPECT(rc == 0);
        free(log);
        size_t size = 0;
        char *b = slurp(out, &size);
        struct cubin_container *c = NULL;
        EXPECT(b && cubin_container_parse(b, size, &c) == 0);
        free(b);
        if (!c)
            continue;
        EXPECT(c->num_kernels > 0 && !memcmp(c->cubin, ELFMAG, SELFMAG));
        for (uint32_t k = 0; k < c->num_kernels; k++)
            EXPECT(global_func(c, c->kernels[k].name));
        const struct cubin_container_kernel *r = cubin_container_kernel(c, "reduce_sum");
        if (r) {
            known++;
            EXPECT(r->num_args == 4 && r->args[2].addr == CUBIN_CONTAINER_ADDR_LOCAL &&
                   r->args[0].addr == CUBIN_CONTAINER_ADDR_GLOBAL &&
                   r->args[0].type_qual == CUBIN_CONTAINER_TYPE_CONST &&
                   r->args[3].addr == CUBIN_CONTAINER_ADDR_PRIVATE);
        }
        const struct cubin_container_kernel *m = cubin_container_kernel(c, "matmul_tiled");
        if (m) {
            uint32_t v[3] = { 0 };
            known++;
            EXPECT(m->reqd_work_group_size[0] == 16 && m->reqd_work_group_size[1] == 16 &&
                   m->reqd_work_group_size[2] == 1);
            EXPECT(maxntid(c, "matmul_tiled", v) && v[0] == 16 && v[1] == 16 && v[2] == 1);
        }
        if (cubin_container_kernel(c, "iota_offset")) {
            uint32_t mask;
            known++;
            /* (uint)get_global_id(0) needs the low word of the offset
             * (envreg0; the high word and the offset in the index cancel
             * out), get_work_dim() envreg6. */
            cbuf0_reads(c, "iota_offset", 0x40, 0x5c, &mask);
            EXPECT((mask & 0x41) == 0x41);
        }
        cubin_container_free(c);
    }
    if (n > 0)
        EXPECT(known == 3); /* reduction, matmul and binary_roundtrip among the samples */
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s HCQCL-CC KERNEL_DIR WORK_DIR [FILE.cl ...]\n", argv[0]);
        return 2;
    }
    cc = argv[1];
    kdir = argv[2];
    wdir = argv[3];
    mkdir(wdir, 0755);
    /* hcqcl-cc keeps the compiled shim there, not in the user's cache. */
    char cache[4096];
    snprintf(cache, sizeof(cache), "%s/cache", wdir);
    mkdir(cache, 0755);
    setenv("HCQCL_CACHE_DIR", cache, 1);
    char *log = NULL;
    char probe[4096];
    snprintf(probe, sizeof(probe), "%s/shim.cl", kdir);
    const char *pa[] = { "--emit=llvm", "-o", "/dev/null", probe, NULL };
    struct stat null_st;
    const bool null_dev = stat("/dev/null", &null_st) == 0 && S_ISCHR(null_st.st_mode);
    if (run_cc(&log, pa) == 3) {
        printf("skipped: tool chain missing:\n%s", log);
        free(log);
        return 77;
    }
    free(log);
    EXPECTF(!null_dev || (stat("/dev/null", &null_st) == 0 && S_ISCHR(null_st.st_mode)),
            "hcqcl-cc -o /dev/null replaced the device");
    test_shim();
    test_shim_cache(cache);
    test_args();
    test_calls();
    test_printf();
    test_errors();
    test_nv_options();
    test_correctly_rounded();
    test_shim_fixes();
    test_cts_interface();
    test_special_output();
    test_files(argc - 4, argv + 4);
    if (failures) {
        fprintf(stderr, "compiler_cc: %d failure(s)\n", failures);
        return 1;
    }
    printf("compiler_cc: ok\n");
    return 0;
}

/*
 * cubin_test.c — parse the nvcc-built test kernels (tests/kernels) and
 * check what the loader and launcher rely on: SM, kernel names, parameter
 * ABI (vadd: block at 0x210, arguments at 0, 8, 16, 24, 28), registers,
 * shared sizes, stack, launch bounds, constant banks, the load image and
 * the bank-4 relocation of `consts`, fatbin lookup, targeted corruptions.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubin/cubin.h"
#include "check.h"


/* Independent raw lookup of a section header by name (trusted input). */
static const Elf64_Shdr *raw_section(const uint8_t *f, const char *name)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
    const char *names = (const char *)f + sh[eh->e_shstrndx].sh_offset;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (strcmp(names + sh[i].sh_name, name) == 0)
            return &sh[i];
    return NULL;
}

static const struct cubin_section *section(const struct cubin *cb, const char *name)
{
    for (uint32_t i = 0; i < cb->num_sections; i++)
        if (strcmp(cb->sections[i].name, name) == 0)
            return &cb->sections[i];
    return NULL;
}

static const struct cubin_kernel *kernel(const struct cubin *cb, const char *name)
{
    const struct cubin_kernel *k = cubin_kernel(cb, name);
    if (!k) {
        fprintf(stderr, "kernel %s missing\n", name);
        exit(1);
    }
    return k;
}

static void test_kernels(const uint8_t *file, size_t size)
{
    struct cubin *cb = NULL;
    char log[256];
    EXPECT(cubin_is_elf(file, size));
    EXPECT(!cubin_is_fatbin(file, size));
    EXPECT(cubin_parse(file, size, &cb, log, sizeof(log)) == 0);
    if (!cb) {
        fprintf(stderr, "parse failed: %s\n", log);
        exit(1);
    }
    EXPECT_EQ(cb->sm, 90);
    EXPECT_EQ(cb->arch, 0x900);
    EXPECT_EQ(cb->num_kernels, 8);

    const struct cubin_kernel *k = kernel(cb, "vadd");
    EXPECT_EQ(k->param_base, 0x210);
    EXPECT_EQ(k->param_size, 0x20);
    EXPECT_EQ(k->cbuf0_size, 0x230);
    EXPECT_EQ(k->num_params, 5);
    static const uint32_t voff[5] = {0, 8, 16, 24, 28}, vsz[5] = {8, 8, 8, 4, 4};
    for (uint32_t i = 0; i < 5 && i < k->num_params; i++) {
        EXPECT_EQ(k->params[i].ordinal, i);
        EXPECT_EQ(k->params[i].offset, voff[i]);
        EXPECT_EQ(k->params[i].size, vsz[i]);
    }
    EXPECT(k->regs > 0 && k->regs <= 255);
    EXPECT_EQ(k->shared_size, 0x400);
    EXPECT_EQ(k->min_stack, 0);
    EXPECT_EQ(k->reqntid[0], 0);
    EXPECT_EQ(k->max_threads[0], 0);
    /* Code bytes land in the image unchanged, 128-byte aligned. */
    const Elf64_Shdr *tv = raw_section(file, ".text.vadd");
    EXPECT(tv && k->text_size == tv->sh_size);
    EXPECT(k->text_offset % 128 == 0);
    EXPECT(tv && memcmp(cb->image + k->text_offset, file + tv->sh_offset, tv->sh_size) == 0);
    EXPECT(strcmp(cb->sections[k->text_section].name, ".text.vadd") == 0);

    k = kernel(cb, "smem_win");
    EXPECT_EQ(k->shared_size, 0x800); /* 1 KiB reserved + int[256] */
    EXPECT(k->num_barriers >= 1);
    EXPECT_EQ(k->param_size, 12);

    k = kernel(cb, "local_win");
    EXPECT(k->min_stack >= 0x100); /* int[64] on the stack */
    EXPECT(k->frame_size >= 0x100);

    k = kernel(cb, "dyn_smem");
    EXPECT_EQ(k->shared_size, 0x400);

    k = kernel(cb, "dims");
    EXPECT_EQ(k->num_params, 1);
    EXPECT_EQ(k->params[0].size, 8);

    k = kernel(cb, "copy_bytes");
    EXPECT_EQ(k->max_threads[0], 256);
    EXPECT_EQ(k->max_threads[1], 1);
    EXPECT_EQ(k->num_params, 3);

    k = kernel(cb, "fill_bytes");
    EXPECT_EQ(k->num_params, 4);
    EXPECT_EQ(k->params[1].offset, 8);
    EXPECT_EQ(k->params[1].size, 128);
    EXPECT_EQ(k->params[2].offset, 0x88);
    EXPECT_EQ(k->params[3].offset, 0x90);
    EXPECT_EQ(k->param_size, 0x98);

    /* consts: bank 3 = cvals, bank 4 = &gvar via one R_CUDA_64. */
    k = kernel(cb, "consts");
    const struct cubin_section *c3 = section(cb, ".nv.constant3"), *c4 = section(cb, ".nv.constant4"),
                               *gi = section(cb, ".nv.global.init");
    EXPECT(c3 && c4 && gi);
    if (c3 && c4 && gi) {
        EXPECT(k->cbank_section[3] && &cb->sections[k->cbank_section[3] - 1] == c3);
        EXPECT(k->cbank_section[4] && &cb->sections[k->cbank_section[4] - 1] == c4);
        EXPECT_EQ(k->cbank_section[0], 0);
        EXPECT_EQ(k->cbank_section[2], 0);
        int32_t cv[4], g;
        memcpy(cv, cb->image + c3->offset, 16);
        memcpy(&g, cb->image + gi->offset, 4);
        EXPECT(cv[0] == 11 && cv[1] == 22 && cv[2] == 33 && cv[3] == 44);
        EXPECT_EQ(g, 1234);
        EXPECT_EQ(cb->num_relocs, 1);
        if (cb->num_relocs == 1) {
            EXPECT_EQ(cb->relocs[0].type, R_CUDA_64);
            EXPECT_EQ(cb->relocs[0].offset, c4->offset);
            EXPECT_EQ(cb->relocs[0].sym_offset, gi->offset);
            EXPECT_EQ(cb->relocs[0].addend, 0);
        }
        uint8_t *img = malloc(cb->image_size);
        memcpy(img, cb->image, cb->image_size);
        cubin_relocate(cb, img, 0x1000000000ull);
        uint64_t addr;
        memcpy(&addr, img + c4->offset, 8);
        EXPECT_EQ(addr, 0x1000000000ull + gi->offset);
        free(img);
    }
    /* Every image section is aligned and inside the image; none overlap. */
    for (uint32_t i = 0; i < cb->num_sections; i++) {
        const struct cubin_section *s = &cb->sections[i];
        EXPECT(s->offset % 128 == 0 && s->offset + s->size <= cb->image_size);
        if (i)
            EXPECT(s->offset >= cb->sections[i - 1].offset + cb->sections[i - 1].size);
        EXPECT(strncmp(s->name, ".nv.constant0", 13) != 0 && strncmp(s->name, ".nv.shared", 10) != 0);
    }
    EXPECT(cubin_kernel(cb, "missing") == NULL);
    EXPECT(cubin_check_arch(cb, 0x900, log, sizeof(log)) == 0);
    EXPECT(cubin_check_arch(cb, 0x860, log, sizeof(log)) == -EINVAL);
    EXPECT(strstr(log, "sm_90") != NULL);
    EXPECT(cubin_check_arch(cb, 0xA00, log, sizeof(log)) == -EINVAL);
    cubin_free(cb);
}

/* Append a fatbin entry (64-byte header) with the given kind/arch/flags. */
static size_t put_entry(uint8_t *out, uint16_t kind, uint32_t arch, uint64_t flags,
                        const uint8_t *payload, uint64_t psize)
{
    memset(out, 0, 64);
    uint32_t hs = 64;
    memcpy(out, &kind, 2);
    memcpy(out + 4, &hs, 4);
    memcpy(out + 8, &psize, 8);
    memcpy(out + 28, &arch, 4);
    memcpy(out + 40, &flags, 8);
    memcpy(out + 64, payload, psize);
    return 64 + psize;
}

static void test_fatbin(const uint8_t *file, size_t size)
{
    size_t cap = 3 * (size + 64) + 16;
    uint8_t *fb = calloc(1, cap);
    size_t off = 16;
    static const uint8_t ptx[8] = "PTXPTX!";
    off += put_entry(fb + off, 1, 90, 0, ptx, sizeof(ptx));
    off += put_entry(fb + off, 2, 80, 0, file, size);
    off += put_entry(fb + off, 2, 90, 0, file, size);
    uint32_t magic = 0xBA55ED50u;
    uint16_t ver = 1, hs = 16;
    uint64_t body = off - 16;
    memcpy(fb, &magic, 4);
    memcpy(fb + 4, &ver, 2);
    memcpy(fb + 6, &hs, 2);
    memcpy(fb + 8, &body, 8);
    EXPECT(cubin_is_fatbin(fb, off));
    const void *c = NULL;
    size_t cs = 0;
    char log[256];
    EXPECT(cubin_from_fatbin(fb, off, 90, &c, &cs, log, sizeof(log)) == 0);
    EXPECT(cs == size && c && memcmp(c, file, size) == 0);
    EXPECT((const uint8_t *)c == fb + off - size);
    EXPECT(cubin_from_fatbin(fb, off, 80, &c, &cs, log, sizeof(log)) == 0);
    EXPECT((const uint8_t *)c == fb + 16 + 64 + sizeof(ptx) + 64);
    EXPECT(cubin_from_fatbin(fb, off, 75, &c, &cs, log, sizeof(log)) == -ENOENT);
    EXPECT(strstr(log, "sm_80") && strstr(log, "sm_90"));
    /* Truncated blob and bad magic. */
    EXPECT(cubin_from_fatbin(fb, off - 1, 90, &c, &cs, log, sizeof(log)) == -EINVAL);
    fb[0] ^= 1;
    EXPECT(cubin_from_fatbin(fb, off, 90, &c, &cs, log, sizeof(log)) == -EINVAL);
    free(fb);
}

/* nvcc's own fatbin: sm_80 and sm_90 SASS plus compressed PTX. */
static void test_nvcc_fatbin(const uint8_t *file, size_t size)
{
    size_t fsz;
    uint8_t *fb = test_data_load("test_kernels.fatbin", &fsz);
    const void *c = NULL;
    size_t cs = 0;
    char log[256];
    EXPECT(cubin_is_fatbin(fb, fsz));
    EXPECT(cubin_from_fatbin(fb, fsz, 90, &c, &cs, log, sizeof(log)) == 0);
    struct cubin *cb = NULL;
    EXPECT(c && cubin_parse(c, cs, &cb, log, sizeof(log)) == 0);
    if (cb) {
        EXPECT_EQ(cb->sm, 90);
        EXPECT_EQ(cb->num_kernels, 8);
        /* Same compiler, same options: the same code as the bare cubin. */
        struct cubin *ref = NULL;
        EXPECT(cubin_parse(file, size, &ref, log, sizeof(log)) == 0);
        if (ref) {
            const struct cubin_kernel *a = cubin_kernel(cb, "vadd"), *b = cubin_kernel(ref, "vadd");
            EXPECT(a && b && a->text_size == b->text_size &&
                   memcmp(cb->image + a->text_offset, ref->image + b->text_offset, a->text_size) == 0);
        }
        cubin_free(ref);
    }
    cubin_free(cb);
    cb = NULL;
    EXPECT(cubin_from_fatbin(fb, fsz, 80, &c, &cs, log, sizeof(log)) == 0);
    EXPECT(c && cubin_parse(c, cs, &cb, log, sizeof(log)) == 0);
    if (cb) {
        EXPECT_EQ(cb->sm, 80);
        EXPECT_EQ(cb->arch, 0x800);
        EXPECT(cubin_kernel(cb, "vadd") && cubin_kernel(cb, "vadd")->param_base == 0x160);
        EXPECT(cubin_check_arch(cb, 0x860, log, sizeof(log)) == 0); /* sm_80 SASS runs on sm_86 */
        EXPECT(cubin_check_arch(cb, 0x900, log, sizeof(log)) == -EINVAL);
    }
    cubin_free(cb);
    EXPECT(cubin_from_fatbin(fb, fsz, 86, &c, &cs, log, sizeof(log)) == -ENOENT);
    EXPECT(strstr(log, "sm_80") && strstr(log, "sm_90"));
    free(fb);
}

/* Launch-bound records: REQNTID (0x10) shares MAX_THREADS' (0x05) layout;
 * retag copy_bytes' record to check it is read. */
static void test_reqntid(const uint8_t *file, size_t size)
{
    uint8_t *f = malloc(size);
    memcpy(f, file, size);
    const Elf64_Shdr *ci = raw_section(file, ".nv.info.copy_bytes");
    EXPECT(ci != NULL);
    if (ci) {
        uint8_t *b = f + ci->sh_offset;
        for (uint64_t o = 0; o + 4 <= ci->sh_size;) {
            if (b[o] == 4 && b[o + 1] == EIATTR_MAX_THREADS) {
                b[o + 1] = EIATTR_REQNTID;
                break;
            }
            o += 4 + (b[o] == 4 ? (uint64_t)(b[o + 2] | b[o + 3] << 8) : 0);
        }
        struct cubin *cb = NULL;
        char log[256];
        EXPECT(cubin_parse(f, size, &cb, log, sizeof(log)) == 0);
        const struct cubin_kernel *k = cb ? cubin_kernel(cb, "copy_bytes") : NULL;
        EXPECT(k && k->reqntid[0] == 256 && k->reqntid[1] == 1 && k->reqntid[2] == 1);
        EXPECT(k && k->max_threads[0] == 0);
        cubin_free(cb);
    }
    free(f);
}

/* Targeted corruptions must fail with a log line naming the problem. */
static void expect_fail(const uint8_t *f, size_t size, const char *what)
{
    struct cubin *cb = NULL;
    char log[256] = "";
    int rc = cubin_parse(f, size, &cb, log, sizeof(log));
    EXPECT(rc == -EINVAL && cb == NULL);
    if (!strstr(log, what)) {
        fprintf(stderr, "log \"%s\" does not mention \"%s\"\n", log, what);
        failures++;
    }
    cubin_free(cb);
}

static void test_corruptions(const uint8_t *file, size_t size)
{
    uint8_t *f = malloc(size);
    memcpy(f, file, size);
    f[18] = 62; /* e_machine x86-64 */
    expect_fail(f, size, "EM_CUDA");
    memcpy(f, file, size);
    f[EI_OSABI] = 0x12;
    expect_fail(f, size, "OS/ABI");
    memcpy(f, file, size);
    /* Relocation type 7 in .rela.nv.constant4. */
    const Elf64_Shdr *rs = raw_section(file, ".rela.nv.constant4");
    EXPECT(rs != NULL);
    if (rs) {
        f[rs->sh_offset + 8] = 0x07;
        expect_fail(f, size, "relocation type 0x7");
        memcpy(f, file, size);
        uint64_t off = 0x10000; /* beyond .nv.constant4 */
        memcpy(f + rs->sh_offset, &off, 8);
        expect_fail(f, size, "outside .nv.constant4");
        memcpy(f, file, size);
    }
    /* Parameter offset beyond the parameter block. */
    const Elf64_Shdr *vi = raw_section(file, ".nv.info.vadd");
    EXPECT(vi != NULL);
    if (vi) {
        uint8_t *b = f + vi->sh_offset;
        for (uint64_t o = 0; o + 4 <= vi->sh_size;) {
            if (b[o + 1] == EIATTR_KPARAM_INFO) {
                b[o + 4 + 6] = 0xF0; /* offset 0xF0xx */
                break;
            }
            o += 4 + (b[o] == 4 ? (uint64_t)(b[o + 2] | b[o + 3] << 8) : 0);
        }
        expect_fail(f, size, "outside the");
        memcpy(f, file, size);
        /* A record whose length runs past the section. */
        b[2] = 0xFF;
        b[3] = 0x7F;
        expect_fail(f, size, "runs past");
        memcpy(f, file, size);
    }
    free(f);
}

int main(void)
{
    size_t size;
    uint8_t *file = test_data_load("test_kernels.cubin", &size);
    test_kernels(file, size);
    test_fatbin(file, size);
    test_corruptions(file, size);
    test_nvcc_fatbin(file, size);
    test_reqntid(file, size);
    free(file);
    return check_done("cubin_test");
}

/*
 * cubin.c — cubin ELF parsing with libelf (header and SM, the load image,
 * relocations, kernels and their .nv.info attributes) and the lookup of a
 * cubin inside a fatbin.
 *
 * Every length read from the file is checked against the file (section
 * contents) or against the section holding it (records, symbols,
 * relocation offsets) before use; failures record one log line.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubin/cubin.h"

#define MAX_SECTIONS 4096u
#define MAX_SECTION_BYTES (1ull << 30)
#define MAX_PARAMS 8192u /* a 32764-byte block of 4-byte parameters */
#define MAX_CBUF_BYTES 0x10000u
#define MAX_SHARED_BYTES (256u * 1024)

struct parse {
    const uint8_t *buf; /* private copy of the file */
    size_t size;
    Elf *elf;
    size_t shnum, shstrndx;
    GElf_Shdr *shdr;      /* shnum entries */
    const char **names;   /* section names (point into libelf's strtab) */
    uint32_t *img_index;  /* ELF index -> cubin->sections index + 1, 0 = not loaded */
    size_t symtab;        /* ELF index of .symtab */
    struct cubin *cb;
    char *log;
    size_t log_size;
};

static int fail(struct parse *p, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct parse *p, int err, const char *fmt, ...)
{
    if (p->log && p->log_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->log, p->log_size, fmt, ap);
        va_end(ap);
    }
    return err;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static uint32_t rd32(const uint8_t *b) { uint32_t v; memcpy(&v, b, 4); return v; }
static uint16_t rd16(const uint8_t *b) { uint16_t v; memcpy(&v, b, 2); return v; }

bool cubin_is_elf(const void *data, size_t size)
{
    return data && size >= 4 && memcmp(data, ELFMAG, SELFMAG) == 0;
}

/* Raw header checks before libelf sees the file: class, machine, table
 * bounds, SM. */
static int check_header(struct parse *p)
{
    Elf64_Ehdr eh;
    if (p->size < sizeof(eh))
        return fail(p, -EINVAL, "cubin: file too short for an ELF header (%zu bytes)", p->size);
    memcpy(&eh, p->buf, sizeof(eh));
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return fail(p, -EINVAL, "cubin: not an ELF file");
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return fail(p, -EINVAL, "cubin: not a 64-bit little-endian ELF");
    if (eh.e_machine != EM_CUDA_MACHINE)
        return fail(p, -EINVAL, "cubin: e_machine %u is not EM_CUDA (190)", eh.e_machine);
    if (eh.e_type != ET_EXEC)
        return fail(p, -EINVAL, "cubin: ELF type %u is not an executable cubin (relocatable "
                    "objects need nvlink)", eh.e_type);
    uint8_t osabi = eh.e_ident[EI_OSABI];
    uint32_t sm;
    if (osabi == CUBIN_ELFOSABI_CUDA13)
        sm = (eh.e_flags >> 8) & 0xFF;
    else if (osabi == CUBIN_ELFOSABI_CUDA)
        sm = eh.e_flags & 0xFF;
    else
        return fail(p, -EINVAL, "cubin: unknown ELF OS/ABI 0x%x", osabi);
    if (sm < 50 || sm > 129)
        return fail(p, -EINVAL, "cubin: implausible SM %u in e_flags 0x%x", sm, eh.e_flags);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > MAX_SECTIONS)
        return fail(p, -EINVAL, "cubin: bad section header table (%u entries of %u bytes)",
                    eh.e_shnum, eh.e_shentsize);
    if (eh.e_shoff > p->size || (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > p->size - eh.e_shoff)
        return fail(p, -EINVAL, "cubin: section header table outside the file");
    if (eh.e_phnum && (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > p->size ||
                       (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > p->size - eh.e_phoff))
        return fail(p, -EINVAL, "cubin: program header table outside the file");
    if (eh.e_shstrndx == SHN_UNDEF || eh.e_shstrndx >= eh.e_shnum)
        return fail(p, -EINVAL, "cubin: bad section name table index %u", eh.e_shstrndx);
    p->cb->sm = sm;
    p->cb->arch = (sm / 10) << 8 | (sm % 10) << 4;
    p->cb->osabi = osabi;
    return 0;
}

static int read_sections(struct parse *p)
{
    if (elf_getshdrnum(p->elf, &p->shnum) || elf_getshdrstrndx(p->elf, &p->shstrndx))
        return fail(p, -EINVAL, "cubin: %s", elf_errmsg(-1));
    p->shdr = calloc(p->shnum, sizeof(*p->shdr));
    p->names = calloc(p->shnum, sizeof(*p->names));
    p->img_index = calloc(p->shnum, sizeof(*p->img_index));
    if (!p->shdr || !p->names || !p->img_index)
        return -ENOMEM;
    const GElf_Shdr *strh = NULL;
    for (size_t i = 0; i < p->shnum; i++) {
        Elf_Scn *scn = elf_getscn(p->elf, i);
        if (!scn || !gelf_getshdr(scn, &p->shdr[i]))
            return fail(p, -EINVAL, "cubin: section %zu: %s", i, elf_errmsg(-1));
        const GElf_Shdr *s = &p->shdr[i];
        if (s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL &&
            (s->sh_offset > p->size || s->sh_size > p->size - s->sh_offset))
            return fail(p, -EINVAL, "cubin: section %zu lies outside the file", i);
        if (s->sh_size > MAX_SECTION_BYTES)
            return fail(p, -EINVAL, "cubin: section %zu is too large", i);
        if (s->sh_type == SHT_SYMTAB) {
            if (p->symtab)
                return fail(p, -EINVAL, "cubin: more than one symbol table");
            p->symtab = i;
        }
    }
    strh = &p->shdr[p->shstrndx];
    if (strh->sh_type != SHT_STRTAB || strh->sh_size == 0 ||
        p->buf[strh->sh_offset + strh->sh_size - 1] != '\0')
        return fail(p, -EINVAL, "cubin: section name table is not a string table");
    for (size_t i = 0; i < p->shnum; i++) {
        if (p->shdr[i].sh_name >= strh->sh_size)
            return fail(p, -EINVAL, "cubin: section %zu name outside the name table", i);
        p->names[i] = (const char *)p->buf + strh->sh_offset + p->shdr[i].sh_name;
    }
    if (!p->symtab)
        return fail(p, -EINVAL, "cubin: no symbol table");
    const GElf_Shdr *st = &p->shdr[p->symtab];
    if (st->sh_entsize != sizeof(Elf64_Sym) || st->sh_size % sizeof(Elf64_Sym) ||
        st->sh_link == 0 || st->sh_link >= p->shnum || p->shdr[st->sh_link].sh_type != SHT_STRTAB)
        return fail(p, -EINVAL, "cubin: malformed symbol table");
    const GElf_Shdr *ss = &p->shdr[st->sh_link];
    if (ss->sh_size == 0 || p->buf[ss->sh_offset + ss->sh_size - 1] != '\0')
        return fail(p, -EINVAL, "cubin: symbol string table not terminated");
    return 0;
}

/* Sections the GPU reads from global memory. */
static bool loadable(const GElf_Shdr *s, const char *name)
{
    if (!(s->sh_flags & SHF_ALLOC) || (s->sh_type != SHT_PROGBITS && s->sh_type != SHT_NOBITS))
        return false;
    if (starts_with(name, ".nv.constant0") || starts_with(name, ".nv.shared") ||
        starts_with(name, ".nv.local"))
        return false;
    return true;
}

static int build_image(struct parse *p)
{
    struct cubin *cb = p->cb;
    uint32_t n = 0;
    for (size_t i = 1; i < p->shnum; i++)
        n += loadable(&p->shdr[i], p->names[i]);
    cb->sections = calloc(n ? n : 1, sizeof(*cb->sections));
    if (!cb->sections)
        return -ENOMEM;
    uint64_t off = 0;
    for (size_t i = 1; i < p->shnum; i++) {
        const GElf_Shdr *s = &p->shdr[i];
        if (!loadable(s, p->names[i]))
            continue;
        uint64_t align = s->sh_addralign > CUBIN_IMAGE_ALIGN ? s->sh_addralign : CUBIN_IMAGE_ALIGN;
        if (align > 4096 || (align & (align - 1)))
            return fail(p, -EINVAL, "cubin: section %s has alignment %llu", p->names[i],
                        (unsigned long long)s->sh_addralign);
        off = (off + align - 1) & ~(align - 1);
        struct cubin_section *cs = &cb->sections[cb->num_sections];
        cs->name = strdup(p->names[i]);
        if (!cs->name)
            return -ENOMEM;
        cs->elf_index = (uint32_t)i;
        cs->offset = off;
        cs->size = s->sh_size;
        cs->align = (uint32_t)align;
        cs->nobits = s->sh_type == SHT_NOBITS;
        p->img_index[i] = ++cb->num_sections;
        off += s->sh_size;
        if (off > 4 * MAX_SECTION_BYTES)
            return fail(p, -EINVAL, "cubin: load image too large");
    }
    cb->image_size = off;
    cb->image = calloc(off ? off : 1, 1);
    if (!cb->image)
        return -ENOMEM;
    for (uint32_t j = 0; j < cb->num_sections; j++) {
        const struct cubin_section *cs = &cb->sections[j];
        if (!cs->nobits && cs->size)
            memcpy(cb->image + cs->offset, p->buf + p->shdr[cs->elf_index].sh_offset, cs->size);
    }
    return 0;
}

static int get_sym(struct parse *p, Elf_Data *symdata, size_t idx, GElf_Sym *sym)
{
    size_t count = p->shdr[p->symtab].sh_size / sizeof(Elf64_Sym);
    if (idx >= count || !gelf_getsym(symdata, (int)idx, sym))
        return fail(p, -EINVAL, "cubin: symbol index %zu out of range", idx);
    return 0;
}

static Elf_Data *section_data(struct parse *p, size_t i)
{
    Elf_Scn *scn = elf_getscn(p->elf, i);
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    if (d && d->d_size != p->shdr[i].sh_size)
        return NULL;
    return d;
}

static int read_relocs(struct parse *p)
{
    struct cubin *cb = p->cb;
    Elf_Data *symdata = section_data(p, p->symtab);
    if (!symdata)
        return fail(p, -EINVAL, "cubin: unreadable symbol table");
    size_t cap = 0;
    for (size_t i = 1; i < p->shnum; i++) {
        const GElf_Shdr *s = &p->shdr[i];
        if (s->sh_type != SHT_RELA && s->sh_type != SHT_REL)
            continue;
        bool rela = s->sh_type == SHT_RELA;
        size_t esz = rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
        if (s->sh_entsize != esz || s->sh_size % esz)
            return fail(p, -EINVAL, "cubin: malformed relocation section %s", p->names[i]);
        if (s->sh_link != p->symtab)
            return fail(p, -EINVAL, "cubin: relocation section %s does not use .symtab",
                        p->names[i]);
        if (s->sh_info == 0 || s->sh_info >= p->shnum)
            return fail(p, -EINVAL, "cubin: relocation section %s has no target", p->names[i]);
        uint32_t tgt = p->img_index[s->sh_info];
        if (!tgt)
            continue; /* debug info and other sections the GPU never reads */
        const struct cubin_section *ts = &cb->sections[tgt - 1];
        size_t n = s->sh_size / esz;
        if (n == 0)
            continue;
        Elf_Data *d = section_data(p, i);
        if (!d)
            return fail(p, -EINVAL, "cubin: unreadable relocation section %s", p->names[i]);
        if (cb->num_relocs + n > cap) {
            cap = (cb->num_relocs + n) * 2;
            struct cubin_reloc *r = realloc(cb->relocs, cap * sizeof(*r));
            if (!r)
                return -ENOMEM;
            cb->relocs = r;
        }
        for (size_t k = 0; k < n; k++) {
            GElf_Rela ra;
            if (rela) {
                if (!gelf_getrela(d, (int)k, &ra))
                    return fail(p, -EINVAL, "cubin: %s entry %zu unreadable", p->names[i], k);
            } else {
                GElf_Rel rl;
                if (!gelf_getrel(d, (int)k, &rl))
                    return fail(p, -EINVAL, "cubin: %s entry %zu unreadable", p->names[i], k);
                ra.r_offset = rl.r_offset;
                ra.r_info = rl.r_info;
                ra.r_addend = 0;
            }
            uint32_t type = (uint32_t)GELF_R_TYPE(ra.r_info);
            uint64_t width;
            switch (type) {
            case R_CUDA_32: width = 4; break;
            case R_CUDA_64:
            case R_CUDA_ABS32_LO_32:
            case R_CUDA_ABS32_HI_32:
            case R_CUDA_FUNC_DESC32_LO_32:
            case R_CUDA_FUNC_DESC32_HI_32: width = 8; break;
            default:
                return fail(p, -EINVAL, "cubin: unsupported relocation type 0x%x in %s", type,
                            p->names[i]);
            }
            if (ts->nobits || ra.r_offset > ts->size || width > ts->size - ra.r_offset)
                return fail(p, -EINVAL, "cubin: relocation at 0x%llx outside %s",
                            (unsigned long long)ra.r_offset, ts->name);
            GElf_Sym sym;
            int rc = get_sym(p, symdata, GELF_R_SYM(ra.r_info), &sym);
            if (rc)
                return rc;
            if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= p->shnum ||
                !p->img_index[sym.st_shndx])
                return fail(p, -EINVAL, "cubin: relocation in %s against a symbol outside the "
                            "image (section %u)", p->names[i], sym.st_shndx);
            const struct cubin_section *ss = &cb->sections[p->img_index[sym.st_shndx] - 1];
            if (sym.st_value > ss->size)
                return fail(p, -EINVAL, "cubin: symbol value 0x%llx beyond %s",
                            (unsigned long long)sym.st_value, ss->name);
            cb->relocs[cb->num_relocs++] = (struct cubin_reloc){
                .type = type,
                .offset = ts->offset + ra.r_offset,
                .sym_offset = ss->offset + sym.st_value,
                .addend = ra.r_addend,
            };
        }
    }
    return 0;
}

void cubin_relocate(const struct cubin *cb, uint8_t *image, uint64_t base_va)
{
    for (uint32_t i = 0; i < cb->num_relocs; i++) {
        const struct cubin_reloc *r = &cb->relocs[i];
        uint64_t v = base_va + r->sym_offset + (uint64_t)r->addend;
        uint32_t w;
        switch (r->type) {
        case R_CUDA_32:
            w = (uint32_t)v;
            memcpy(image + r->offset, &w, 4);
            break;
        case R_CUDA_64: memcpy(image + r->offset, &v, 8); break;
        case R_CUDA_ABS32_LO_32:
        case R_CUDA_FUNC_DESC32_LO_32:
            w = (uint32_t)v;
            memcpy(image + r->offset + 4, &w, 4);
            break;
        case R_CUDA_ABS32_HI_32:
        case R_CUDA_FUNC_DESC32_HI_32:
            w = (uint32_t)(v >> 32);
            memcpy(image + r->offset + 4, &w, 4);
            break;
        }
    }
}

/* ---- kernels and .nv.info ---- */

static struct cubin_kernel *kernel_by_text(struct parse *p, size_t elf_index)
{
    for (uint32_t k = 0; k < p->cb->num_kernels; k++)
        if (p->cb->sections[p->cb->kernels[k].text_section].elf_index == elf_index)
            return &p->cb->kernels[k];
    return NULL;
}

static struct cubin_kernel *kernel_by_sym(struct parse *p, uint32_t sym)
{
    for (uint32_t k = 0; k < p->cb->num_kernels; k++)
        if (p->cb->kernels[k].sym_index == sym)
            return &p->cb->kernels[k];
    return NULL;
}

static int find_kernels(struct parse *p)
{
    struct cubin *cb = p->cb;
    Elf_Data *symdata = section_data(p, p->symtab);
    if (!symdata)
        return fail(p, -EINVAL, "cubin: unreadable symbol table");
    size_t nsym = p->shdr[p->symtab].sh_size / sizeof(Elf64_Sym);
    size_t strtab = p->shdr[p->symtab].sh_link;
    cb->kernels = calloc(nsym ? nsym : 1, sizeof(*cb->kernels));
    if (!cb->kernels)
        return -ENOMEM;
    for (size_t i = 1; i < nsym; i++) {
        GElf_Sym sym;
        int rc = get_sym(p, symdata, i, &sym);
        if (rc)
            return rc;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || GELF_ST_BIND(sym.st_info) != STB_GLOBAL)
            continue;
        if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= p->shnum)
            continue; /* an extern function: not a kernel of this module */
        if (sym.st_name >= p->shdr[strtab].sh_size)
            return fail(p, -EINVAL, "cubin: symbol %zu name outside the string table", i);
        const char *name = (const char *)p->buf + p->shdr[strtab].sh_offset + sym.st_name;
        const char *sec = p->names[sym.st_shndx];
        if (!starts_with(sec, ".text.") || strcmp(sec + 6, name) != 0)
            continue; /* device function living in a kernel's section */
        uint32_t img = p->img_index[sym.st_shndx];
        if (!img || cb->sections[img - 1].nobits)
            return fail(p, -EINVAL, "cubin: kernel %s has no code section", name);
        struct cubin_kernel *k = &cb->kernels[cb->num_kernels++];
        k->name = strdup(name);
        if (!k->name)
            return -ENOMEM;
        k->sym_index = (uint32_t)i;
        k->text_section = img - 1;
        k->text_offset = cb->sections[img - 1].offset;
        k->text_size = cb->sections[img - 1].size;
        /* Pre-CUDA-13 toolchains kept the register count in sh_info 31:24. */
        k->regs = (uint32_t)(p->shdr[sym.st_shndx].sh_info >> 24);
    }
    /* No kernels is a program all the same (helper functions only, or
     * every kernel left out by a -D): CL_PROGRAM_NUM_KERNELS 0. */
    return 0;
}

/* KPARAM_INFO: u32 index, u16 ordinal, u16 offset, u32 flags (bits 7:0
 * pointee log2 alignment, 11:8 space, 31:18 size). KPARAM_INFO_V2, which
 * ptxas writes for kernels with more than 4352 bytes of parameters:
 * u32 index, u16 ordinal, u16 offset, u16 size, u8 log2 alignment, u8
 * space. */
static int kparam(struct parse *p, struct cubin_kernel *k, const uint8_t *v, uint32_t len,
                  bool v2, struct cubin_param *tmp, uint32_t *ntmp)
{
    if (len < 12)
        return fail(p, -EINVAL, "cubin: %s: short KPARAM_INFO record", k->name);
    if (*ntmp >= MAX_PARAMS)
        return fail(p, -EINVAL, "cubin: %s: too many parameters", k->name);
    uint32_t flags = rd32(v + 8);
    tmp[(*ntmp)++] = (struct cubin_param){
        .ordinal = rd16(v + 4),
        .offset = rd16(v + 6),
        .size = v2 ? rd16(v + 8) : flags >> 18,
        .space = (uint8_t)(v2 ? v[11] & 0xF : (flags >> 8) & 0xF),
        .log_align = v2 ? v[10] : (uint8_t)(flags & 0xFF),
    };
    return 0;
}

/* Walk one .nv.info section. kernel != NULL: per-kernel attributes;
 * NULL: module-wide records keyed by function symbol. */
static int walk_info(struct parse *p, size_t idx, struct cubin_kernel *k)
{
    const GElf_Shdr *s = &p->shdr[idx];
    /* Only sections with contents were bounds-checked against the file
     * (read_sections) [a fuzzed NOBITS .nv.info read freed memory]. */
    if (s->sh_type == SHT_NOBITS || s->sh_type == SHT_NULL)
        return fail(p, -EINVAL, "cubin: %s has no contents", p->names[idx]);
    const uint8_t *b = p->buf + s->sh_offset;
    uint64_t size = s->sh_size, off = 0;
    struct cubin_param *tmp = NULL;
    uint32_t ntmp = 0;
    int rc = 0;
    if (k) {
        tmp = calloc(MAX_PARAMS, sizeof(*tmp));
        if (!tmp)
            return -ENOMEM;
    }
    while (rc == 0 && size - off >= 4) {
        uint8_t fmt = b[off], attr = b[off + 1];
        uint16_t x = rd16(b + off + 2);
        const uint8_t *v = b + off + 4;
        uint32_t len = 0;
        if (fmt == 0x04) {
            if (x > size - off - 4) {
                rc = fail(p, -EINVAL, "cubin: %s: record 0x%x runs past the section",
                          p->names[idx], attr);
                break;
            }
            len = x;
        } else if (fmt < 0x01 || fmt > 0x03) {
            rc = fail(p, -EINVAL, "cubin: %s: unknown record format 0x%x at 0x%llx",
                      p->names[idx], fmt, (unsigned long long)off);
            break;
        }
        off += 4 + len;
        if (!k) {
            if (fmt != 0x04 || len < 8)
                continue;
            struct cubin_kernel *kk = kernel_by_sym(p, rd32(v));
            uint32_t val = rd32(v + 4);
            if (!kk)
                continue;
            switch (attr) {
            case EIATTR_REGCOUNT: kk->regs = val; break;
            case EIATTR_FRAME_SIZE: kk->frame_size = val; break;
            case EIATTR_MIN_STACK_SIZE: kk->min_stack = val; break;
            case EIATTR_MAX_STACK_SIZE: kk->max_stack = val; break;
            }
            continue;
        }
        switch (attr) {
        case EIATTR_PARAM_CBANK:
            if (len < 8) {
                rc = fail(p, -EINVAL, "cubin: %s: short PARAM_CBANK", k->name);
                break;
            }
            k->param_base = rd16(v + 4);
            k->param_size = rd16(v + 6);
            break;
        case EIATTR_KPARAM_INFO: rc = kparam(p, k, v, len, false, tmp, &ntmp); break;
        case EIATTR_KPARAM_INFO_V2: rc = kparam(p, k, v, len, true, tmp, &ntmp); break;
        case EIATTR_NUM_BARRIERS:
            if (fmt == 0x02 || fmt == 0x03)
                k->num_barriers = x;
            break;
        case EIATTR_REQNTID:
        case EIATTR_MAX_THREADS:
            if (len < 12) {
                rc = fail(p, -EINVAL, "cubin: %s: short thread-count record", k->name);
                break;
            }
            for (int d = 0; d < 3; d++)
                (attr == EIATTR_REQNTID ? k->reqntid : k->max_threads)[d] = rd32(v + 4 * d);
            break;
        case EIATTR_REGCOUNT:
            if (len >= 8)
                k->regs = rd32(v + 4);
            break;
        }
    }
    if (rc == 0 && k && ntmp && k->params) {
        /* Two .nv.info sections for one kernel [found by the fuzzer]. */
        rc = fail(p, -EINVAL, "cubin: %s: parameters described twice", k->name);
    } else if (rc == 0 && k && ntmp) {
        k->params = calloc(ntmp, sizeof(*k->params));
        if (!k->params)
            rc = -ENOMEM;
        for (uint32_t i = 0; rc == 0 && i < ntmp; i++) {
            uint32_t o = tmp[i].ordinal;
            if (o >= ntmp || k->params[o].size)
                rc = fail(p, -EINVAL, "cubin: %s: parameter ordinal %u repeated or out of range",
                          k->name, o);
            else if (tmp[i].size == 0)
                rc = fail(p, -EINVAL, "cubin: %s: parameter %u has size 0", k->name, o);
            else
                k->params[o] = tmp[i];
        }
        k->num_params = ntmp;
    }
    free(tmp);
    return rc;
}

static int kernel_sections(struct parse *p)
{
    struct cubin *cb = p->cb;
    int rc;
    for (size_t i = 1; i < p->shnum; i++) {
        const char *n = p->names[i];
        const GElf_Shdr *s = &p->shdr[i];
        if (strcmp(n, ".nv.info") == 0) {
            if ((rc = walk_info(p, i, NULL)))
                return rc;
        } else if (starts_with(n, ".nv.info.")) {
            struct cubin_kernel *k = kernel_by_text(p, s->sh_info);
            if (k && (rc = walk_info(p, i, k)))
                return rc;
        }
    }
    for (size_t i = 1; i < p->shnum; i++) {
        const char *n = p->names[i];
        const GElf_Shdr *s = &p->shdr[i];
        if (starts_with(n, ".nv.shared.")) {
            struct cubin_kernel *k =
                (struct cubin_kernel *)cubin_kernel(cb, n + strlen(".nv.shared."));
            if (!k)
                continue;
            if (s->sh_size > MAX_SHARED_BYTES)
                return fail(p, -EINVAL, "cubin: %s: shared memory 0x%llx too large", k->name,
                            (unsigned long long)s->sh_size);
            k->shared_size = (uint32_t)s->sh_size;
        } else if (starts_with(n, ".nv.constant") && n[12] >= '0' && n[12] <= '9') {
            char *end;
            unsigned long bank = strtoul(n + 12, &end, 10);
            if (*end != '\0' && *end != '.')
                continue;
            if (s->sh_size > MAX_CBUF_BYTES)
                return fail(p, -EINVAL, "cubin: %s is larger than a constant bank", n);
            if (bank == 0) {
                struct cubin_kernel *k = (struct cubin_kernel *)cubin_kernel(cb, end + (*end == '.'));
                if (k)
                    k->cbuf0_size = (uint32_t)s->sh_size;
                continue;
            }
            if (bank >= CUBIN_CBANKS)
                return fail(p, -EINVAL, "cubin: constant bank %lu (%s) is not supported", bank, n);
            if (!p->img_index[i])
                return fail(p, -EINVAL, "cubin: constant bank section %s is not loadable", n);
            for (uint32_t k = 0; k < cb->num_kernels; k++) {
                /* Module-wide banks bind to every kernel, .nv.constantN.<k> to k. */
                if (*end == '.' && strcmp(end + 1, cb->kernels[k].name) != 0)
                    continue;
                cb->kernels[k].cbank_section[bank] = p->img_index[i];
            }
        }
    }
    for (uint32_t i = 0; i < cb->num_kernels; i++) {
        struct cubin_kernel *k = &cb->kernels[i];
        if (k->regs == 0 || k->regs > 255)
            return fail(p, -EINVAL, "cubin: %s: register count %u", k->name, k->regs);
        if (k->param_base == 0 && k->param_size == 0 && k->num_params == 0)
            k->param_base = cb->sm >= 90 ? 0x210 : 0x160; /* no PARAM_CBANK: no parameters */
        if (k->cbuf0_size < k->param_base + k->param_size)
            k->cbuf0_size = k->param_base + k->param_size;
        if (k->cbuf0_size > MAX_CBUF_BYTES)
            return fail(p, -EINVAL, "cubin: %s: constant bank 0 too large", k->name);
        for (uint32_t j = 0; j < k->num_params; j++) {
            const struct cubin_param *pa = &k->params[j];
            if (pa->offset > k->param_size || pa->size > k->param_size - pa->offset)
                return fail(p, -EINVAL, "cubin: %s: parameter %u (0x%x+%u) outside the %u-byte "
                            "parameter block", k->name, j, pa->offset, pa->size, k->param_size);
        }
    }
    return 0;
}

const struct cubin_kernel *cubin_kernel(const struct cubin *cb, const char *name)
{
    for (uint32_t k = 0; cb && name && k < cb->num_kernels; k++)
        if (strcmp(cb->kernels[k].name, name) == 0)
            return &cb->kernels[k];
    return NULL;
}

void cubin_free(struct cubin *cb)
{
    if (!cb)
        return;
    for (uint32_t i = 0; i < cb->num_sections; i++)
        free(cb->sections[i].name);
    for (uint32_t i = 0; i < cb->num_kernels; i++) {
        free(cb->kernels[i].name);
        free(cb->kernels[i].params);
    }
    free(cb->sections);
    free(cb->kernels);
    free(cb->relocs);
    free(cb->image);
    free(cb);
}

int cubin_parse(const void *data, size_t size, struct cubin **out, char *log, size_t log_size)
{
    struct parse p = {.size = size, .log = log, .log_size = log_size};
    int rc;
    *out = NULL;
    if (log && log_size)
        log[0] = '\0';
    if (!data)
        return fail(&p, -EINVAL, "cubin: no data");
    p.cb = calloc(1, sizeof(*p.cb));
    uint8_t *copy = malloc(size ? size : 1);
    if (!p.cb || !copy) {
        free(copy);
        free(p.cb);
        return -ENOMEM;
    }
    memcpy(copy, data, size);
    p.buf = copy;
    if ((rc = check_header(&p)))
        goto out;
    if (elf_version(EV_CURRENT) == EV_NONE) {
        rc = fail(&p, -EINVAL, "cubin: libelf unusable");
        goto out;
    }
    p.elf = elf_memory((char *)copy, size);
    if (!p.elf || elf_kind(p.elf) != ELF_K_ELF) {
        rc = fail(&p, -EINVAL, "cubin: %s", elf_errmsg(-1));
        goto out;
    }
    if ((rc = read_sections(&p)) || (rc = build_image(&p)) || (rc = read_relocs(&p)) ||
        (rc = find_kernels(&p)) || (rc = kernel_sections(&p)))
        goto out;
    *out = p.cb;
    p.cb = NULL;
out:
    if (rc == -ENOMEM)
        fail(&p, rc, "cubin: out of memory");
    if (p.elf)
        elf_end(p.elf);
    free(p.shdr);
    free(p.names);
    free(p.img_index);
    free(copy);
    cubin_free(p.cb);
    return rc;
}

int cubin_check_arch(const struct cubin *cb, uint32_t arch, char *log, size_t log_size)
{
    if ((cb->arch >> 8) == (arch >> 8) && ((cb->arch >> 4) & 0xF) <= ((arch >> 4) & 0xF))
        return 0;
    if (log && log_size)
        snprintf(log, log_size, "cubin: built for sm_%u, device is sm_%u%u", cb->sm, arch >> 8,
                 (arch >> 4) & 0xF);
    return -EINVAL;
}

/* ---- fatbins ---- */

/*
 * Fatbins: find the cubin for one SM inside a fatbin (what nvcc -fatbin
 * writes and what CUDA embeds in host objects).
 *
 * Layout (little-endian; public reverse-engineered descriptions agree and
 * CUDA 13 nvcc output matches):
 *   blob header, 16 bytes: u32 magic 0xBA55ED50, u16 version 1,
 *     u16 header size, u64 size of the entries that follow;
 *   entries, back to back: u16 kind (1 PTX, 2 ELF), u16 version,
 *     u32 entry header size, u64 payload size, ..., u32 arch (e.g. 90)
 *     at +28, u64 flags at +40 (0x2000 / 0x8000: compressed payload);
 *     the payload follows the entry header.
 * Several blobs may be concatenated.
 */

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_HEADER_SIZE 16u
#define FATBIN_ENTRY_MIN 48u
#define FATBIN_KIND_PTX 1u
#define FATBIN_KIND_ELF 2u
#define FATBIN_FLAG_COMPRESSED_LZ4 0x2000ull
#define FATBIN_FLAG_COMPRESSED_ZSTD 0x8000ull

static uint64_t rd64(const uint8_t *b) { uint64_t v; memcpy(&v, b, 8); return v; }

bool cubin_is_fatbin(const void *data, size_t size)
{
    return data && size >= FATBIN_HEADER_SIZE && rd32(data) == FATBIN_MAGIC;
}

static int fatbin_fail(char *log, size_t log_size, int err, const char *msg)
{
    if (log && log_size)
        snprintf(log, log_size, "fatbin: %s", msg);
    return err;
}

int cubin_from_fatbin(const void *data, size_t size, uint32_t sm, const void **cubin,
                      size_t *cubin_size, char *log, size_t log_size)
{
    const uint8_t *b = data;
    size_t off = 0;
    char seen[160] = "";
    size_t seen_len = 0;
    bool compressed_match = false;
    *cubin = NULL;
    *cubin_size = 0;
    if (!cubin_is_fatbin(data, size))
        return fatbin_fail(log, log_size, -EINVAL, "not a fatbin");
    while (size - off >= FATBIN_HEADER_SIZE && rd32(b + off) == FATBIN_MAGIC) {
        uint16_t hsize = rd16(b + off + 6);
        uint64_t body = rd64(b + off + 8);
        if (hsize < FATBIN_HEADER_SIZE || hsize > size - off || body > size - off - hsize)
            return fatbin_fail(log, log_size, -EINVAL, "blob header outside the file");
        size_t e = off + hsize, end = off + hsize + (size_t)body;
        while (end - e >= FATBIN_ENTRY_MIN) {
            uint16_t kind = rd16(b + e);
            uint32_t ehsize = rd32(b + e + 4);
            uint64_t psize = rd64(b + e + 8);
            uint32_t arch = rd32(b + e + 28);
            uint64_t flags = rd64(b + e + 40);
            if (ehsize < FATBIN_ENTRY_MIN || ehsize > end - e || psize > end - e - ehsize)
                return fatbin_fail(log, log_size, -EINVAL, "entry outside its blob");
            if (kind == FATBIN_KIND_ELF) {
                bool compressed =
                    flags & (FATBIN_FLAG_COMPRESSED_LZ4 | FATBIN_FLAG_COMPRESSED_ZSTD);
                if (arch == sm && !compressed) {
                    *cubin = b + e + ehsize;
                    *cubin_size = (size_t)psize;
                    return 0;
                }
                compressed_match |= arch == sm && compressed;
                if (seen_len < sizeof(seen) - 16) {
                    int n = snprintf(seen + seen_len, sizeof(seen) - seen_len, "%ssm_%u%s",
                                     seen_len ? " " : "", arch, compressed ? "(compressed)" : "");
                    if (n > 0)
                        seen_len += (size_t)n;
                }
            }
            e += ehsize + (size_t)psize;
        }
        off = end;
        /* Blobs are 8-byte aligned when concatenated. */
        off = (off + 7) & ~(size_t)7;
        if (off > size)
            break;
    }
    if (log && log_size)
        snprintf(log, log_size, "fatbin: no %scubin for sm_%u (has: %s)",
                 compressed_match ? "uncompressed " : "", sm, seen_len ? seen : "none");
    return -ENOENT;
}

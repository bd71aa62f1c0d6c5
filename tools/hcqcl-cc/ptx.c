/*
 * ptx.c — edits to the PTX that clang writes.
 *
 * clang 16 drops reqd_work_group_size for NVPTX, so the kernel's entry
 * gets a ".maxntid x, y, z" directive here; ptxas then records
 * EIATTR_MAX_THREADS in the cubin and allocates registers for that many
 * threads. Not ".reqntid": that fixes the block shape (ptxas may read the
 * block size as a constant), and a range the required size does not
 * divide ends with a smaller work-group wherever non-uniform work-groups
 * are allowed, which for a program made from a binary the compiler cannot
 * know. The runtime requires the local size to be the required one
 * (the container records it).
 *
 * For the nvptx64-nvidia-nvcl triple clang writes kernels as plain
 * ".entry", which ptxas 13 turns into LOCAL symbols; a loader looks
 * kernels up as GLOBAL functions (as nvcc's ".visible .entry" gives), so
 * every entry is made visible.
 *
 * PTX ISA 8.1 is the first that takes more than 4352 bytes of kernel
 * parameters (sm_70 and later take up to 32764); clang 16 writes an
 * older .version. A program with such an entry is raised to 8.1 (a later
 * PTX version accepts what earlier ones do); any other keeps its version,
 * so its cubin stays byte for byte what it was.
 */
#include "cc.h"

#include <stdlib.h>
#include <string.h>

#define MAX_REQD 4096
#define PARAMS_CLASSIC 4352u /* bytes before PTX ISA 8.1 */

/* Start of the "{" line that opens the body of .entry name, or NULL. */
static const char *entry_body(const char *ptx, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = ptx; (p = strstr(p, ".entry ")) != NULL; p += 7) {
        /* Only at the start of a line, possibly after .visible/.weak. */
        const char *ls = p;
        while (ls > ptx && ls[-1] != '\n')
            ls--;
        const char *q = p + 7;
        if (strncmp(q, name, nl) != 0 || q[nl] != '(')
            continue;
        bool ok = true;
        for (const char *c = ls; c < p; c++)
            if (!(*c == ' ' || *c == '\t' || *c == '.' || (*c >= 'a' && *c <= 'z')))
                ok = false;
        if (!ok)
            continue;
        for (const char *l = strchr(q, '\n'); l; l = strchr(l + 1, '\n')) {
            if (l[1] == '{')
                return l + 1;
            if (strncmp(l + 1, ".entry", 6) == 0)
                return NULL;
        }
        return NULL;
    }
    return NULL;
}

char *cc_ptx_add_maxntid(const char *ptx, const struct cubin_container_kernel *k, uint32_t count)
{
    struct cc_buf out = { 0 };
    const char *done = ptx;
    /* Insert in file order: collect the positions first. */
    const char *pos[MAX_REQD];
    uint32_t idx[MAX_REQD], n = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!k[i].reqd_work_group_size[0])
            continue;
        const char *b = entry_body(ptx, k[i].name);
        if (!b || n == MAX_REQD) {
            cc_logf("error: kernel %s: no .entry found in the PTX\n", k[i].name);
            free(out.s);
            return NULL;
        }
        pos[n] = b;
        idx[n++] = i;
    }
    for (uint32_t a = 1; a < n; a++)
        for (uint32_t b = a; b > 0 && pos[b] < pos[b - 1]; b--) {
            const char *tp = pos[b];
            pos[b] = pos[b - 1];
            pos[b - 1] = tp;
            uint32_t ti = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = ti;
        }
    for (uint32_t j = 0; j < n; j++) {
        const uint32_t *r = k[idx[j]].reqd_work_group_size;
        cc_buf_add(&out, done, (size_t)(pos[j] - done));
        cc_buf_addf(&out, ".maxntid %u, %u, %u\n", r[0], r[1], r[2]);
        done = pos[j];
    }
    cc_buf_add(&out, done, strlen(done));
    return out.s;
}

char *cc_ptx_make_visible(const char *ptx)
{
    struct cc_buf out = { 0 };
    const char *line = ptx;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
        if (strncmp(line, ".entry ", 7) == 0)
            cc_buf_add(&out, ".visible ", 9);
        cc_buf_add(&out, line, len);
        line += len;
    }
    if (!out.s)
        cc_buf_add(&out, "", 0);
    return out.s;
}

/* Bytes of one ".param" declaration: [.align A] .{b,s,u,f}N name[[count]]. */
static uint64_t param_size(const char *p, const char *end, uint64_t *align)
{
    uint64_t elem = 0, count = 1;
    *align = 1;
    for (; p < end; p++) {
        if (!strncmp(p, ".align ", 7)) {
            *align = strtoull(p + 7, NULL, 10);
        } else if (p[0] == '.' && strchr("bsuf", p[1]) && p[2] >= '1' && p[2] <= '9') {
            elem = strtoull(p + 2, NULL, 10) / 8;
        } else if (p[0] == '[') {
            count = strtoull(p + 1, NULL, 10);
            break;
        }
    }
    if (*align < elem)
        *align = elem;
    if (!*align)
        *align = 1;
    return elem * count;
}

/* Parameter bytes of the .entry whose name starts at name (the list runs
 * from its "(" to the line that is ")"). */
static uint64_t entry_param_bytes(const char *name)
{
    const char *open = strchr(name, '(');
    const char *close = open ? strstr(open, "\n)") : NULL;
    if (!close)
        return 0;
    uint64_t off = 0;
    for (const char *p = open; (p = strstr(p, ".param ")) != NULL && p < close;) {
        const char *e = p + 7;
        while (e < close && *e != ',' && *e != '\n')
            e++;
        uint64_t align;
        uint64_t size = param_size(p + 7, e, &align);
        off = (off + align - 1) / align * align + size;
        p = e;
    }
    return off;
}

char *cc_ptx_fit_params(const char *ptx)
{
    bool big = false;
    for (const char *p = ptx; !big && (p = strstr(p, ".entry ")) != NULL; p += 7)
        big = entry_param_bytes(p + 7) > PARAMS_CLASSIC;
    const char *v = strstr(ptx, "\n.version ");
    if (!big || !v)
        return strdup(ptx);
    unsigned major = 0, minor = 0;
    if (sscanf(v + 10, "%u.%u", &major, &minor) != 2 || major > 8 || (major == 8 && minor >= 1))
        return strdup(ptx);
    const char *eol = strchr(v + 1, '\n');
    struct cc_buf out = { 0 };
    cc_buf_add(&out, ptx, (size_t)(v - ptx));
    cc_buf_add(&out, "\n.version 8.1", 13);
    cc_buf_add(&out, eol ? eol : "", strlen(eol ? eol : ""));
    return out.s;
}

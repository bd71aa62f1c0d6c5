/*
 * ircall.c — kernels that other functions call.
 *
 * OpenCL C lets a kernel call another __kernel function like any other
 * function. clang 16 keeps the callee a kernel (spir_kernel, listed as a
 * "kernel" in !nvvm.annotations) and emits a call to it:
 *   tail call spir_kernel void @inner(ptr addrspace(1) noundef %0, ...)
 * The NVPTX back end then writes a call to a PTX .entry, which ptxas
 * refuses ("Illegal call target, device function expected").
 *
 * So every kernel that is called gets a copy as an ordinary function,
 * placed right after it in the textual IR:
 *   define internal void @__hcqcl_kernel_inner(...) #N {   same body
 * without the kernel calling convention and without the kernel's metadata
 * attachments (!kernel_arg_*, !reqd_work_group_size, ...); it is not in
 * !nvvm.annotations, so it becomes a PTX .func. Every call to the kernel
 * (in kernels, functions and the copies themselves) is redirected to the
 * copy. The kernel itself is left unchanged: it is still the .entry that
 * launches use, with the same parameters and metadata.
 *
 * clang marks kernels noinline; the copy gets the same attributes minus
 * noinline (a group of its own), so the optimizer may inline it into its
 * callers, except at -O0 where optnone requires noinline.
 *
 * __local variables declared in a called kernel are module-level
 * addrspace(3) globals in the IR and .shared variables in the PTX; the
 * copy uses the same ones, and ptxas counts them in the shared memory of
 * every kernel that reaches them, so such a call works too (the callee's
 * __local variables are then per work-group of the calling kernel's
 * launch, shared by all calls within it).
 */
#include "cc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLONE_PREFIX "__hcqcl_kernel_"

struct kdef {
    char *name;
    const char *start, *end; /* the define line .. just past the closing "}" line */
    bool called;
    int group;          /* attribute group #N of the define, -1 when none */
    unsigned new_group; /* the copy's group, 0 when the same */
};

static size_t line_len(const char *l)
{
    const char *nl = strchr(l, '\n');
    return nl ? (size_t)(nl - l + 1) : strlen(l);
}

/* The @name of a kernel define line (unquoted names only; OpenCL C kernel
 * names are identifiers). NULL when the line has another shape. */
static char *define_name(const char *line, size_t len)
{
    const char *k = memmem(line, len, " spir_kernel void @", 19);
    if (!k)
        return NULL;
    const char *n = k + 19, *e = n;
    while (e < line + len && *e != '(' && *e != '"')
        e++;
    if (e == n || e == line + len || *e != '(')
        return NULL;
    return strndup(n, (size_t)(e - n));
}

/* The "#N" attribute group of a define line (after the ")" that closes
 * the parameters, before the metadata and "{"); -1 when none. */
static int define_group(const char *line, size_t len)
{
    int g = -1;
    for (size_t i = 0; i + 2 < len && line[i] != '{'; i++)
        if (line[i] == ' ' && line[i + 1] == '#' && line[i + 2] >= '0' && line[i + 2] <= '9')
            g = (int)strtol(line + i + 2, NULL, 10);
    return g;
}

/* Position of " spir_kernel void @NAME(" in a line that is not a define,
 * i.e. a call to that kernel; NULL when none. */
static const char *find_call(const char *line, size_t len, const char *name, size_t *match_len)
{
    char pat[512];
    int n = snprintf(pat, sizeof(pat), " spir_kernel void @%s(", name);
    if (n < 0 || (size_t)n >= sizeof(pat))
        return NULL;
    *match_len = (size_t)n;
    return memmem(line, len, pat, (size_t)n);
}

/* Copy a non-define line, every call to a called kernel redirected. */
static void add_line_redirected(struct cc_buf *out, const char *line, size_t len,
                                const struct kdef *k, size_t nk)
{
    for (;;) {
        const char *best = NULL;
        size_t best_len = 0, best_k = 0;
        for (size_t i = 0; i < nk; i++) {
            size_t ml;
            const char *p = k[i].called ? find_call(line, len, k[i].name, &ml) : NULL;
            if (p && (!best || p < best)) {
                best = p;
                best_len = ml;
                best_k = i;
            }
        }
        if (!best)
            break;
        cc_buf_add(out, line, (size_t)(best - line));
        cc_buf_addf(out, " void @" CLONE_PREFIX "%s(", k[best_k].name);
        len -= (size_t)(best + best_len - line);
        line = best + best_len;
    }
    cc_buf_add(out, line, len);
}

/* The copy's define line: "define internal void @__hcqcl_kernel_NAME(...)",
 * the original's parameters and function attributes, its own attribute
 * group, no metadata attachments. */
static void add_clone_header(struct cc_buf *out, const struct kdef *k)
{
    const char *line = k->start;
    size_t len = line_len(line);
    const char *params = memchr(line, '(', len);
    const char *brace = line + len;
    while (brace > params && *brace != '{')
        brace--;
    cc_buf_addf(out, "define internal void @" CLONE_PREFIX "%s", k->name);
    /* Up to the first metadata attachment (" !name !N"), group replaced. */
    const char *p = params;
    while (p < brace) {
        if (p[0] == ' ' && p[1] == '!')
            break;
        if (p[0] == ' ' && p[1] == '#' && k->new_group) {
            cc_buf_addf(out, " #%u", k->new_group);
            p += 2;
            while (*p >= '0' && *p <= '9')
                p++;
            continue;
        }
        cc_buf_add(out, p, 1);
        p++;
    }
    cc_buf_add(out, " {\n", 3);
}

/* "attributes #N = { ... }" line of group g, or NULL. */
static const char *find_group(const char *ll, int g, size_t *len)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "attributes #%d = {", g);
    size_t pl = strlen(pat);
    for (const char *l = ll; *l; l += line_len(l)) {
        if (strncmp(l, pat, pl) == 0) {
            *len = line_len(l);
            return l;
        }
    }
    return NULL;
}

/* True when the group line has the attribute word (not inside a string). */
static bool group_has(const char *g, size_t len, const char *word)
{
    size_t wl = strlen(word);
    for (size_t i = 0; i + wl <= len; i++)
        if (i > 0 && (g[i - 1] == ' ' || g[i - 1] == '{') && memcmp(g + i, word, wl) == 0 &&
            (g[i + wl] == ' ' || g[i + wl] == '}'))
            return true;
    return false;
}

/* Attribute groups for the copies: the kernel's without noinline. */
static void add_groups(struct cc_buf *out, const char *ll, const struct kdef *k, size_t nk)
{
    for (size_t i = 0; i < nk; i++) {
        if (!k[i].called || !k[i].new_group)
            continue;
        bool done = false;
        for (size_t j = 0; j < i; j++)
            done |= k[j].called && k[j].new_group == k[i].new_group;
        if (done)
            continue;
        size_t len = 0;
        const char *g = find_group(ll, k[i].group, &len);
        if (!g) /* new_group is only given to kernels whose group exists */
            continue;
        const char *body = strchr(g, '{');
        cc_buf_addf(out, "attributes #%u = ", k[i].new_group);
        const char *end = g + len;
        for (const char *p = body; p < end;) {
            if (strncmp(p, "noinline ", 9) == 0 && p[-1] == ' ') {
                p += 9;
                continue;
            }
            cc_buf_add(out, p, 1);
            p++;
        }
        if (end[-1] != '\n')
            cc_buf_add(out, "\n", 1);
    }
}

static void kdefs_free(struct kdef *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i].name);
    free(k);
}

char *cc_ir_clone_called_kernels(const char *ll)
{
    struct kdef *k = NULL;
    size_t nk = 0, cap = 0;
    unsigned max_group = 0;
    /* The kernels, their bodies and the highest attribute group. */
    for (const char *l = ll; *l;) {
        size_t len = line_len(l);
        if (strncmp(l, "attributes #", 12) == 0) {
            unsigned g = (unsigned)strtoul(l + 12, NULL, 10);
            if (g > max_group)
                max_group = g;
        }
        char *name = strncmp(l, "define ", 7) == 0 ? define_name(l, len) : NULL;
        if (!name) {
            l += len;
            continue;
        }
        if (nk == cap) {
            cap = cap ? cap * 2 : 8;
            struct kdef *nkd = realloc(k, cap * sizeof(*nkd));
            if (!nkd) {
                free(name);
                kdefs_free(k, nk);
                return NULL;
            }
            k = nkd;
        }
        struct kdef *d = &k[nk++];
        memset(d, 0, sizeof(*d));
        d->name = name;
        d->start = l;
        d->group = define_group(l, len);
        const char *e = l + len;
        while (*e && strncmp(e, "}\n", 2) != 0 && strcmp(e, "}") != 0)
            e += line_len(e);
        if (!*e) {
            cc_logf("error: kernel %s: no end of its body in the IR\n", name);
            kdefs_free(k, nk);
            return NULL;
        }
        d->end = e + line_len(e);
        l = d->end;
    }
    /* Which of them are called (from any line but a define). */
    bool any = false;
    for (const char *l = ll; *l; l += line_len(l)) {
        size_t len = line_len(l), ml;
        if (strncmp(l, "define ", 7) == 0 || strncmp(l, "declare ", 8) == 0)
            continue;
        for (size_t i = 0; i < nk; i++)
            if (!k[i].called && find_call(l, len, k[i].name, &ml))
                any = k[i].called = true;
    }
    if (!any) {
        kdefs_free(k, nk);
        return strdup(ll);
    }
    /* One new group per distinct kernel group holding noinline (and not
     * optnone, which requires it). */
    unsigned next = max_group + 1;
    for (size_t i = 0; i < nk; i++) {
        if (!k[i].called || k[i].group < 0)
            continue;
        size_t len;
        const char *g = find_group(ll, k[i].group, &len);
        if (!g || !group_has(g, len, "noinline") || group_has(g, len, "optnone"))
            continue;
        for (size_t j = 0; j < i && !k[i].new_group; j++)
            if (k[j].called && k[j].group == k[i].group)
                k[i].new_group = k[j].new_group;
        if (!k[i].new_group)
            k[i].new_group = next++;
    }
    /* The module again: calls redirected, each called kernel followed by
     * its copy, the new attribute groups at the end. */
    struct cc_buf out = { 0 };
    for (const char *l = ll; *l;) {
        size_t len = line_len(l);
        if (strncmp(l, "define ", 7) == 0 || strncmp(l, "declare ", 8) == 0) {
            cc_buf_add(&out, l, len);
        } else {
            add_line_redirected(&out, l, len, k, nk);
        }
        for (size_t i = 0; i < nk; i++) {
            if (!k[i].called || l + len != k[i].end)
                continue;
            if (out.len && out.s[out.len - 1] != '\n')
                cc_buf_add(&out, "\n", 1);
            cc_buf_add(&out, "\n", 1);
            add_clone_header(&out, &k[i]);
            for (const char *b = k[i].start + line_len(k[i].start); b < k[i].end; b += line_len(b))
                add_line_redirected(&out, b, line_len(b), k, nk);
        }
        l += len;
    }
    if (out.len && out.s[out.len - 1] != '\n')
        cc_buf_add(&out, "\n", 1);
    add_groups(&out, ll, k, nk);
    kdefs_free(k, nk);
    return out.s;
}

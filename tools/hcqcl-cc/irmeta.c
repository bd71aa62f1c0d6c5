/*
 * irmeta.c — kernel metadata from clang's textual LLVM IR.
 *
 * The cubin keeps no OpenCL view of a kernel's arguments; clang's IR does,
 * as metadata attached to each spir_kernel definition:
 *   define ... spir_kernel void @k(...) ... !kernel_arg_addr_space !6
 *       !kernel_arg_access_qual !7 !kernel_arg_type !8 ... !reqd_work_group_size !11 {
 *   !6 = !{i32 1, i32 3}
 *   !8 = !{!"float*", !"float*"}
 * Only these shapes are read; anything else is a build failure with a
 * log line, not a guess.
 */
#include "cc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct md_node {
    const char *body; /* text between the braces */
    size_t len;
};

struct md_table {
    struct md_node *nodes;
    size_t count; /* indices 0..count-1; body NULL when absent */
};

static void md_index(const char *ll, struct md_table *t)
{
    t->nodes = NULL;
    t->count = 0;
    for (const char *line = ll; line && *line;) {
        const char *nl = strchr(line, '\n');
        const char *end = nl ? nl : line + strlen(line);
        if (line[0] == '!' && line[1] >= '0' && line[1] <= '9') {
            char *p;
            unsigned long id = strtoul(line + 1, &p, 10);
            if (strncmp(p, " = ", 3) == 0) {
                p += 3;
                if (strncmp(p, "distinct ", 9) == 0)
                    p += 9;
                const char *close = end;
                while (close > p && close[-1] != '}')
                    close--;
                if (strncmp(p, "!{", 2) == 0 && close > p + 2 && id < (1ul << 20)) {
                    if (id >= t->count) {
                        size_t n = id + 1;
                        struct md_node *nn = realloc(t->nodes, n * sizeof(*nn));
                        if (nn) {
                            memset(nn + t->count, 0, (n - t->count) * sizeof(*nn));
                            t->nodes = nn;
                            t->count = n;
                        }
                    }
                    if (id < t->count) {
                        t->nodes[id].body = p + 2;
                        t->nodes[id].len = (size_t)(close - 1 - (p + 2));
                    }
                }
            }
        }
        line = nl ? nl + 1 : NULL;
    }
}

/* The node referenced by "<attachment> !N" in a define line, or NULL. */
static const struct md_node *md_attached(const struct md_table *t, const char *line, size_t len,
                                         const char *name)
{
    char pat[64];
    snprintf(pat, sizeof(pat), " !%s !", name);
    size_t pl = strlen(pat);
    for (size_t i = 0; i + pl <= len; i++) {
        if (memcmp(line + i, pat, pl) == 0) {
            unsigned long id = strtoul(line + i + pl, NULL, 10);
            return id < t->count && t->nodes[id].body ? &t->nodes[id] : NULL;
        }
    }
    return NULL;
}

/* The !"..." strings of a node, decoded (\XX escapes). */
static char **md_strings(const struct md_node *n, uint32_t *count)
{
    uint32_t cap = 8, k = 0;
    char **v = calloc(cap, sizeof(*v));
    if (!v)
        return NULL;
    for (size_t i = 0; i + 1 < n->len; i++) {
        if (n->body[i] != '!' || n->body[i + 1] != '"')
            continue;
        size_t j = i + 2;
        struct cc_buf s = { 0 };
        while (j < n->len && n->body[j] != '"') {
            char c = n->body[j];
            if (c == '\\' && j + 2 < n->len) {
                char hex[3] = { n->body[j + 1], n->body[j + 2], 0 };
                c = (char)strtoul(hex, NULL, 16);
                j += 3;
            } else {
                j++;
            }
            cc_buf_add(&s, &c, 1);
        }
        if (k + 1 >= cap) {
            char **nv = realloc(v, (cap *= 2) * sizeof(*v));
            if (!nv) {
                free(s.s);
                break;
            }
            v = nv;
        }
        v[k++] = s.s ? s.s : strdup("");
        i = j;
    }
    *count = k;
    return v;
}

/* The "i32 N" values of a node. */
static uint32_t md_ints(const struct md_node *n, uint32_t *vals, uint32_t max)
{
    uint32_t k = 0;
    for (size_t i = 0; i + 4 <= n->len && k < max; i++) {
        if (memcmp(n->body + i, "i32 ", 4) == 0 && (i == 0 || n->body[i - 1] == ' ' ||
                                                     n->body[i - 1] == ','))
            vals[k++] = (uint32_t)strtoul(n->body + i + 4, NULL, 10);
    }
    return k;
}

static void free_strings(char **v, uint32_t n)
{
    for (uint32_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* vec_type_hint(<4 x float> undef, i32 0) -> "float4". */
static void vec_type_hint(const struct md_node *n, struct cc_buf *attrs)
{
    const char *b = n->body;
    size_t len = n->len;
    unsigned width = 1;
    size_t i = 0;
    if (len && b[0] == '<') {
        width = (unsigned)strtoul(b + 1, NULL, 10);
        const char *x = memchr(b, 'x', len);
        if (!x)
            return;
        i = (size_t)(x - b) + 2;
    }
    static const struct {
        const char *ir, *cl;
    } types[] = { { "half", "half" }, { "float", "float" }, { "double", "double" },
                  { "i8", "char" }, { "i16", "short" }, { "i32", "int" }, { "i64", "long" } };
    uint32_t flag[2] = { 0, 0 };
    uint32_t nf = md_ints(n, flag, 2);
    bool is_signed = nf && flag[nf - 1] == 1;
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        size_t tl = strlen(types[t].ir);
        if (i + tl <= len && memcmp(b + i, types[t].ir, tl) == 0 &&
            (b[i + tl] == ' ' || b[i + tl] == '>')) {
            bool integer = types[t].ir[0] == 'i';
            if (attrs->len)
                cc_buf_add(attrs, " ", 1);
            cc_buf_addf(attrs, "vec_type_hint(%s%s", integer && !is_signed ? "u" : "", types[t].cl);
            if (width > 1)
                cc_buf_addf(attrs, "%u", width);
            cc_buf_add(attrs, ")", 1);
            return;
        }
    }
}

/* The container's code for an image or sampler type name (0: neither). */
static unsigned base_of(const char *type)
{
    for (unsigned b = 1; b <= CUBIN_CONTAINER_BASE_LAST; b++)
        if (!strcmp(type, cubin_container_base_name(b)))
            return b;
    return CUBIN_CONTAINER_BASE_NONE;
}

static int parse_kernel(const struct md_table *t, const char *line, size_t len, bool with_names,
                        struct cubin_container_kernel *k)
{
    memset(k, 0, sizeof(*k));
    const char *at = memchr(line, '@', len);
    if (!at)
        return CC_BUILD_FAILED;
    const char *name = at + 1, *name_end;
    if (*name == '"') {
        name++;
        name_end = memchr(name, '"', len - (size_t)(name - line));
    } else {
        name_end = memchr(name, '(', len - (size_t)(name - line));
    }
    if (!name_end)
        return CC_BUILD_FAILED;
    k->name = strndup(name, (size_t)(name_end - name));

    const struct md_node *addr = md_attached(t, line, len, "kernel_arg_addr_space");
    const struct md_node *acc = md_attached(t, line, len, "kernel_arg_access_qual");
    const struct md_node *type = md_attached(t, line, len, "kernel_arg_type");
    const struct md_node *base = md_attached(t, line, len, "kernel_arg_base_type");
    const struct md_node *qual = md_attached(t, line, len, "kernel_arg_type_qual");
    const struct md_node *names = md_attached(t, line, len, "kernel_arg_name");
    const struct md_node *reqd = md_attached(t, line, len, "reqd_work_group_size");
    const struct md_node *hint = md_attached(t, line, len, "work_group_size_hint");
    const struct md_node *vth = md_attached(t, line, len, "vec_type_hint");
    if (!addr || !acc || !type || !qual) {
        cc_logf("error: kernel %s: argument metadata missing from the IR\n", k->name);
        return CC_BUILD_FAILED;
    }

    struct cc_buf attrs = { 0 };
    if (reqd && md_ints(reqd, k->reqd_work_group_size, 3) == 3)
        cc_buf_addf(&attrs, "reqd_work_group_size(%u,%u,%u)", k->reqd_work_group_size[0],
                    k->reqd_work_group_size[1], k->reqd_work_group_size[2]);
    if (hint && md_ints(hint, k->work_group_size_hint, 3) == 3)
        cc_buf_addf(&attrs, "%swork_group_size_hint(%u,%u,%u)", attrs.len ? " " : "",
                    k->work_group_size_hint[0], k->work_group_size_hint[1], k->work_group_size_hint[2]);
    if (vth)
        vec_type_hint(vth, &attrs);
    k->attributes = attrs.s ? attrs.s : strdup("");

    uint32_t spaces[CUBIN_CONTAINER_MAX_ARGS];
    uint32_t n = md_ints(addr, spaces, CUBIN_CONTAINER_MAX_ARGS);
    uint32_t n_acc = 0, n_type = 0, n_qual = 0, n_names = 0, n_base = 0;
    char **s_acc = md_strings(acc, &n_acc), **s_type = md_strings(type, &n_type);
    char **s_qual = md_strings(qual, &n_qual);
    char **s_names = names ? md_strings(names, &n_names) : NULL;
    char **s_base = base ? md_strings(base, &n_base) : NULL;
    int rc = CC_OK;
    if (!s_acc || !s_type || !s_qual || n_acc != n || n_type != n || n_qual != n ||
        (s_names && n_names != n) || (s_base && n_base != n)) {
        cc_logf("error: kernel %s: inconsistent argument metadata in the IR\n", k->name);
        rc = CC_BUILD_FAILED;
        goto out;
    }
    struct cubin_container_arg *args = calloc(n ? n : 1, sizeof(*args));
    if (!args) {
        rc = CC_ENVIRONMENT;
        goto out;
    }
    k->args = args;
    k->num_args = n;
    for (uint32_t i = 0; i < n; i++) {
        if (spaces[i] > CUBIN_CONTAINER_ADDR_LOCAL) {
            cc_logf("error: kernel %s: argument %u has address space %u\n", k->name, i, spaces[i]);
            rc = CC_BUILD_FAILED;
            goto out;
        }
        args[i].addr = (uint8_t)spaces[i];
        args[i].access = !strcmp(s_acc[i], "read_only")    ? CUBIN_CONTAINER_ACCESS_READ_ONLY
                         : !strcmp(s_acc[i], "write_only") ? CUBIN_CONTAINER_ACCESS_WRITE_ONLY
                         : !strcmp(s_acc[i], "read_write") ? CUBIN_CONTAINER_ACCESS_READ_WRITE
                                                           : CUBIN_CONTAINER_ACCESS_NONE;
        args[i].type_qual = (uint16_t)((strstr(s_qual[i], "const") ? CUBIN_CONTAINER_TYPE_CONST : 0) |
                                       (strstr(s_qual[i], "restrict") ? CUBIN_CONTAINER_TYPE_RESTRICT : 0) |
                                       (strstr(s_qual[i], "volatile") ? CUBIN_CONTAINER_TYPE_VOLATILE : 0) |
                                       (strstr(s_qual[i], "pipe") ? CUBIN_CONTAINER_TYPE_PIPE : 0));
        /* A typedef of an image or sampler type: what it names. */
        if (s_base && strcmp(s_base[i], s_type[i]))
            args[i].type_qual |= (uint16_t)(base_of(s_base[i]) << CUBIN_CONTAINER_TYPE_BASE_SHIFT);
        args[i].type_name = strdup(s_type[i]);
        args[i].name = with_names && s_names ? strdup(s_names[i]) : NULL;
    }
out:
    free_strings(s_acc, n_acc);
    free_strings(s_type, n_type);
    free_strings(s_qual, n_qual);
    free_strings(s_names, n_names);
    free_strings(s_base, n_base);
    return rc;
}

int cc_ir_kernels(const char *ll, bool with_names, struct cubin_container_kernel **kernels,
                  uint32_t *count)
{
    struct md_table t;
    md_index(ll, &t);
    uint32_t n = 0, cap = 0;
    struct cubin_container_kernel *ks = NULL;
    int rc = CC_OK;
    for (const char *line = ll; line && *line && rc == CC_OK;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (strncmp(line, "define ", 7) == 0 && memmem(line, len, " spir_kernel ", 13)) {
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                struct cubin_container_kernel *nk = realloc(ks, cap * sizeof(*nk));
                if (!nk) {
                    rc = CC_ENVIRONMENT;
                    break;
                }
                ks = nk;
            }
            rc = parse_kernel(&t, line, len, with_names, &ks[n]);
            n++;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(t.nodes);
    if (rc != CC_OK) {
        cc_ir_kernels_free(ks, n);
        return rc;
    }
    *kernels = ks;
    *count = n;
    return CC_OK;
}

void cc_ir_kernels_free(struct cubin_container_kernel *k, uint32_t count)
{
    for (uint32_t i = 0; k && i < count; i++) {
        for (uint32_t j = 0; j < k[i].num_args; j++) {
            free((char *)k[i].args[j].type_name);
            free((char *)k[i].args[j].name);
        }
        free((void *)k[i].args);
        free((char *)k[i].name);
        free((char *)k[i].attributes);
    }
    free(k);
}

/*
 * irprintf.c — printf in kernels.
 *
 * clang 16 leaves OpenCL C's printf a variadic call for NVPTX:
 *   %8 = tail call i32 (ptr addrspace(4), ...) @printf(ptr addrspace(4)
 *        noundef @.str, i32 noundef %4, double noundef %5, ...)
 * which nothing defines. Every such call becomes a call of a function
 * made for it, with the same arguments:
 *   %8 = tail call i32 @__hcqcl_printf.N(ptr addrspace(4) noundef @.str, ...)
 * that reserves a record in the launch's printf buffer and writes the
 * format and each argument into it (cubin/container.h, "printf", has the
 * layout); the host formats the records when the launch has completed.
 * The format must be a string literal, as OpenCL C requires: its text is
 * read from the module to find the %s conversions, whose arguments are
 * copied as strings rather than as pointers.
 *
 * Kernels that reach such a call, directly or through functions, are
 * marked CUBIN_CONTAINER_KERNEL_PRINTF, so that only their launches get
 * a buffer.
 */
#include "cc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append a string literal. */
#define ADD(b, lit) cc_buf_add((b), (lit), sizeof(lit) - 1)

#define SITE_PREFIX "__hcqcl_printf."
#define RESERVE "__hcqcl_printf_reserve"

struct pf_arg {
    const char *text; /* the call's argument: type, attributes, value */
    size_t len;
    size_t type_len;  /* its type is text[0, type_len) */
    unsigned size;    /* bytes of the value */
    int as;           /* address space of a pointer, -1 for other types */
    bool str;         /* a %s argument: copied as a string */
};

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && s[i] == ' ')
        i++;
    return i;
}

/* Bytes of a scalar type named by [t, t+n), 0 when printf cannot take it. */
static unsigned scalar_size(const char *t, size_t n)
{
    if (n >= 2 && t[0] == 'i') {
        unsigned bits = 0;
        for (size_t i = 1; i < n; i++) {
            if (!isdigit((unsigned char)t[i]))
                return 0;
            bits = bits * 10 + (unsigned)(t[i] - '0');
        }
        return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
    }
    static const struct {
        const char *name;
        unsigned size;
    } fp[] = {{"half", 2}, {"float", 4}, {"double", 8}};
    for (size_t i = 0; i < sizeof(fp) / sizeof(fp[0]); i++)
        if (n == strlen(fp[i].name) && !memcmp(t, fp[i].name, n))
            return fp[i].size;
    return 0;
}

/* The type at the start of an argument: its length, size and address
 * space. False for a type printf cannot take. */
static bool parse_type(struct pf_arg *a)
{
    const char *t = a->text;
    a->as = -1;
    if (a->len >= 3 && !memcmp(t, "ptr", 3)) {
        a->size = 8;
        a->as = 0;
        a->type_len = 3;
        if (a->len > 14 && !memcmp(t + 3, " addrspace(", 11)) {
            const char *c = memchr(t, ')', a->len);
            if (!c)
                return false;
            a->as = atoi(t + 14);
            a->type_len = (size_t)(c - t) + 1;
        }
        return true;
    }
    if (t[0] == '<') {
        const char *c = memchr(t, '>', a->len);
        unsigned n = (unsigned)strtoul(t + 1, NULL, 10);
        const char *x = memmem(t, a->len, " x ", 3);
        if (!c || !x || x > c || n == 0)
            return false;
        unsigned es = scalar_size(x + 3, (size_t)(c - x - 3));
        a->type_len = (size_t)(c - t) + 1;
        a->size = n * es;
        return es != 0;
    }
    size_t n = 0;
    while (n < a->len && t[n] != ' ')
        n++;
    a->type_len = n;
    a->size = scalar_size(t, n);
    return a->size != 0;
}

/* Split the argument list [s, s+n) at its top-level commas. */
static size_t split_args(const char *s, size_t n, struct pf_arg *out, size_t cap)
{
    size_t count = 0, start = 0;
    int depth = 0;
    bool quote = false;
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? s[i] : ',';
        if (quote) {
            quote = c != '"';
            continue;
        }
        if (c == '"')
            quote = true;
        else if (c == '(' || c == '<' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == '>' || c == ']' || c == '}')
            depth--;
        else if (c == ',' && depth == 0) {
            size_t b = skip_ws(s, start, i);
            if (count < cap)
                out[count] = (struct pf_arg){.text = s + b, .len = i - b};
            count++;
            start = i + 1;
        }
    }
    return count;
}

/* The bytes of the constant string global `name` up to its first NUL,
 * the NUL included: a `[N x i8] c"..."` initializer (LLVM writes a
 * backslash as \\ and other bytes it does not print as \XX) or `[N x i8]
 * zeroinitializer` (""). Never more than the N bytes the global has. NULL
 * when there is no such global or it holds no NUL. */
static char *global_string(const char *ll, const char *name, size_t name_len)
{
    for (const char *l = ll; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (*l != '@' || strncmp(l + 1, name, name_len) || strncmp(l + 1 + name_len, " = ", 3))
            continue;
        const char *eol = strchr(l, '\n');
        size_t line = eol ? (size_t)(eol - l) : strlen(l);
        const char *arr = memmem(l, line, " [", 2);
        const char *x = arr ? memmem(arr, line - (size_t)(arr - l), " x i8] ", 7) : NULL;
        if (!x)
            return NULL;
        unsigned long size = strtoul(arr + 2, NULL, 10);
        const char *init = x + 7;
        if (size == 0 || size > (1u << 20))
            return NULL;
        char *out = calloc(1, size + 1);
        if (!out)
            return NULL;
        if (!strncmp(init, "zeroinitializer", 15))
            return out; /* "" */
        if (strncmp(init, "c\"", 2)) {
            free(out);
            return NULL;
        }
        size_t n = 0;
        for (const char *q = init + 2; *q && *q != '"' && q < l + line && n < size; q++) {
            if (q[0] == '\\' && q[1] == '\\') {
                out[n++] = '\\';
                q++;
            } else if (q[0] == '\\' && isxdigit((unsigned char)q[1]) &&
                       isxdigit((unsigned char)q[2])) {
                char hex[3] = {q[1], q[2], 0};
                out[n++] = (char)strtoul(hex, NULL, 16);
                q += 2;
            } else {
                out[n++] = *q;
            }
        }
        if (!memchr(out, 0, n)) {
            free(out);
            return NULL;
        }
        return out;
    }
    return NULL;
}

/* The global a format argument names: "@.str", or a constant
 * getelementptr to its first byte. */
static bool format_global(const struct pf_arg *a, const char **name, size_t *len)
{
    const char *at = memchr(a->text + a->type_len, '@', a->len - a->type_len);
    if (!at)
        return false;
    const char *s = at + 1, *e = s;
    const char *end = a->text + a->len;
    while (e < end && (isalnum((unsigned char)*e) || strchr("._$-", *e)))
        e++;
    if (e == s)
        return false;
    /* Any indices after the name must be zeros: ", iN 0" up to the ")". */
    for (const char *p = e; p < end && *p != ')';) {
        if (*p == ' ' || *p == ',') {
            p++;
            continue;
        }
        if (*p != 'i')
            return false;
        p++;
        while (p < end && isdigit((unsigned char)*p))
            p++;
        if (p + 2 > end || p[0] != ' ' || p[1] != '0' ||
            (p + 2 < end && isdigit((unsigned char)p[2])))
            return false;
        p += 2;
    }
    *name = s;
    *len = (size_t)(e - s);
    return true;
}

/* Mark the arguments %s takes. The format's conversions, in order,
 * each take an argument ('*' widths and precisions one more). */
static void mark_strings(const char *fmt, struct pf_arg *args, size_t nargs)
{
    size_t k = 1;
    for (const char *s = fmt; *s; s++) {
        if (*s != '%')
            continue;
        struct cubin_printf_spec sp;
        if (cubin_printf_spec(s, &sp) != 0)
            continue;
        s += sp.span - 1;
        if (sp.conv == '%')
            continue;
        k += (sp.width == -2) + (sp.precision == -2);
        if (k < nargs && sp.conv == 's' && args[k].as >= 0)
            args[k].str = true;
        k++;
    }
}

static void ptr_type(struct cc_buf *b, int as)
{
    if (as)
        cc_buf_addf(b, "ptr addrspace(%d)", as);
    else
        ADD(b, "ptr");
}

/* The function that replaces one call. */
static void emit_site(struct cc_buf *b, unsigned id, const struct pf_arg *args, size_t nargs,
                      size_t fmt_len)
{
    cc_buf_addf(b, "\ndefine internal i32 @" SITE_PREFIX "%u(", id);
    for (size_t k = 0; k < nargs; k++)
        cc_buf_addf(b, "%s%.*s %%a%zu", k ? ", " : "", (int)args[k].type_len, args[k].text, k);
    ADD(b, ") {\nentry:\n");
    /* Record size: the fixed part, then each string's padded length. */
    uint32_t fixed = 4 + 4 + ((uint32_t)fmt_len + 3) / 4 * 4;
    for (size_t k = 1; k < nargs; k++)
        fixed += 4 + (args[k].str ? 0 : (args[k].size + 3) / 4 * 4);
    cc_buf_addf(b, "  %%sz.0 = add i32 %u, 0\n", fixed);
    const char *sz = "%sz.0";
    char szn[32];
    for (size_t k = 1; k < nargs; k++) {
        if (!args[k].str)
            continue;
        cc_buf_addf(b, "  %%l.%zu = call i32 @__hcqcl_printf_strlen.as%d(", k, args[k].as);
        ptr_type(b, args[k].as);
        cc_buf_addf(b, " %%a%zu)\n  %%l3.%zu = add i32 %%l.%zu, 3\n"
                       "  %%lp.%zu = and i32 %%l3.%zu, -4\n  %%sz.%zu = add i32 %s, %%lp.%zu\n",
                    k, k, k, k, k, k, sz, k);
        snprintf(szn, sizeof(szn), "%%sz.%zu", k);
        sz = szn;
    }
    cc_buf_addf(b, "  %%rec = call ptr addrspace(1) @" RESERVE "(i32 %s)\n"
                   "  %%ok = icmp ne ptr addrspace(1) %%rec, null\n"
                   "  br i1 %%ok, label %%put, label %%full\n"
                   "full:\n  ret i32 -1\nput:\n"
                   "  store i32 %s, ptr addrspace(1) %%rec, align 4\n"
                   "  %%fl = getelementptr inbounds i8, ptr addrspace(1) %%rec, i64 4\n"
                   "  store i32 %zu, ptr addrspace(1) %%fl, align 4\n"
                   "  %%fd = getelementptr inbounds i8, ptr addrspace(1) %%rec, i64 8\n"
                   "  call void @llvm.memcpy.p1.p%d.i64(ptr addrspace(1) align 4 %%fd, ",
                sz, sz, fmt_len, args[0].as);
    ptr_type(b, args[0].as);
    cc_buf_addf(b, " align 1 %%a0, i64 %zu, i1 false)\n", fmt_len);
    cc_buf_addf(b, "  %%o.1 = add i64 %u, 0\n", 8 + ((unsigned)fmt_len + 3) / 4 * 4);
    for (size_t k = 1; k < nargs; k++) {
        const struct pf_arg *a = &args[k];
        cc_buf_addf(b, "  %%h.%zu = getelementptr inbounds i8, ptr addrspace(1) %%rec, i64 %%o.%zu\n"
                       "  %%d.%zu = getelementptr inbounds i8, ptr addrspace(1) %%h.%zu, i64 4\n",
                    k, k, k, k);
        if (a->str) {
            cc_buf_addf(b, "  store i32 %%l.%zu, ptr addrspace(1) %%h.%zu, align 4\n"
                           "  %%l64.%zu = zext i32 %%l.%zu to i64\n"
                           "  call void @llvm.memcpy.p1.p%d.i64(ptr addrspace(1) align 4 %%d.%zu, ",
                        k, k, k, k, a->as, k);
            ptr_type(b, a->as);
            cc_buf_addf(b, " align 1 %%a%zu, i64 %%l64.%zu, i1 false)\n"
                           "  %%lp64.%zu = zext i32 %%lp.%zu to i64\n"
                           "  %%o4.%zu = add i64 %%o.%zu, 4\n"
                           "  %%o.%zu = add i64 %%o4.%zu, %%lp64.%zu\n",
                        k, k, k, k, k, k, k + 1, k, k);
        } else {
            cc_buf_addf(b, "  store i32 %u, ptr addrspace(1) %%h.%zu, align 4\n"
                           "  store %.*s %%a%zu, ptr addrspace(1) %%d.%zu, align 4\n"
                           "  %%o.%zu = add i64 %%o.%zu, %u\n",
                        a->size, k, (int)a->type_len, a->text, k, k, k + 1, k,
                        4 + (a->size + 3) / 4 * 4);
        }
    }
    ADD(b, "  ret i32 0\n}\n");
}

static void emit_reserve(struct cc_buf *b)
{
    /* The buffer's address is in %envreg29/30 (HCQ_ENVREG_PRINTF), 0 for
     * a launch without one. */
    static const char fn[] =
        "\ndefine internal ptr addrspace(1) @" RESERVE "(i32 %n) {\n"
        "entry:\n"
        "  %lo = call i32 asm \"mov.u32 $0, %envreg29;\", \"=r\"()\n"
        "  %hi = call i32 asm \"mov.u32 $0, %envreg30;\", \"=r\"()\n"
        "  %lo64 = zext i32 %lo to i64\n"
        "  %hi64 = zext i32 %hi to i64\n"
        "  %hish = shl i64 %hi64, 32\n"
        "  %base = or i64 %hish, %lo64\n"
        "  %none = icmp eq i64 %base, 0\n"
        "  br i1 %none, label %fail, label %have\n"
        "have:\n"
        "  %hdr = inttoptr i64 %base to ptr addrspace(1)\n"
        "  %capp = getelementptr inbounds i8, ptr addrspace(1) %hdr, i64 4\n"
        "  %cap = load i32, ptr addrspace(1) %capp, align 4\n"
        /* Full already: no add, so the count stays far from wrapping. */
        "  %seen = load atomic i32, ptr addrspace(1) %hdr monotonic, align 4\n"
        "  %full = icmp uge i32 %seen, %cap\n"
        "  br i1 %full, label %fail, label %add\n"
        "add:\n"
        "  %off = atomicrmw add ptr addrspace(1) %hdr, i32 %n monotonic, align 4\n"
        "  %area = getelementptr inbounds i8, ptr addrspace(1) %hdr, i64 8\n"
        "  %off64 = zext i32 %off to i64\n"
        "  %rec = getelementptr inbounds i8, ptr addrspace(1) %area, i64 %off64\n"
        "  %inside = icmp ule i32 %off, %cap\n"
        "  %room = sub i32 %cap, %off\n"
        "  %fits = icmp ule i32 %n, %room\n"
        "  %ok = and i1 %inside, %fits\n"
        "  br i1 %ok, label %done, label %over\n"
        "done:\n"
        "  ret ptr addrspace(1) %rec\n"
        "over:\n"
        "  %word = icmp uge i32 %room, 4\n"
        "  %mark = and i1 %inside, %word\n"
        "  br i1 %mark, label %term, label %fail\n"
        "term:\n"
        "  store i32 0, ptr addrspace(1) %rec, align 4\n"
        "  br label %fail\n"
        "fail:\n"
        "  ret ptr addrspace(1) null\n"
        "}\n";
    cc_buf_add(b, fn, sizeof(fn) - 1);
}

static void emit_strlen(struct cc_buf *b, int as)
{
    cc_buf_addf(b, "\ndefine internal i32 @__hcqcl_printf_strlen.as%d(", as);
    ptr_type(b, as);
    ADD(b, " %s) {\nentry:\n");
    /* A NULL pointer is a string of length 0 ("(null)"), except in the
     * constant space, where the first string is at address 0. */
    if (as != 4) {
        ADD(b, "  %null = icmp eq ");
        ptr_type(b, as);
        ADD(b, " %s, null\n  br i1 %null, label %none, label %loop\nnone:\n  ret i32 0\n");
    } else {
        ADD(b, "  br label %loop\n");
    }
    ADD(b, "loop:\n  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]\n"
           "  %p = getelementptr inbounds i8, ");
    ptr_type(b, as);
    ADD(b, " %s, i64 %i\n  %c = load i8, ");
    ptr_type(b, as);
    /* A string longer than the buffer stops there: its record cannot fit
     * (and 63 such lengths stay far from wrapping the record's size). */
    ADD(b, " %p, align 1\n  %i1 = add i64 %i, 1\n  %end = icmp eq i8 %c, 0\n"
           "  %long = icmp ugt i64 %i1, 1048576\n  %stop = or i1 %end, %long\n"
           "  br i1 %stop, label %done, label %loop\ndone:\n"
           "  %n = trunc i64 %i1 to i32\n  ret i32 %n\n}\n");
}

static void declare_memcpy(struct cc_buf *b, const char *ll, int as)
{
    char decl[64];
    snprintf(decl, sizeof(decl), "declare void @llvm.memcpy.p1.p%d.i64(", as);
    if (strstr(ll, decl))
        return;
    cc_buf_addf(b, "\n%sptr addrspace(1) noalias nocapture writeonly, ", decl);
    ptr_type(b, as);
    ADD(b, " noalias nocapture readonly, i64, i1 immarg)\n");
}

char *cc_ir_printf(const char *ll)
{
    struct cc_buf out = {0}, defs = {0};
    unsigned sites = 0;
    bool as_used[8] = {false}, str_used[8] = {false};
    const char *done = ll;
    for (const char *at = strstr(ll, "@printf("); at; at = strstr(at + 1, "@printf(")) {
        const char *line = at;
        while (line > ll && line[-1] != '\n')
            line--;
        const char *call = strstr(line, " call ");
        if (!call || call > at)
            continue; /* the declaration, or not a call */
        /* The argument list, to its closing parenthesis. */
        const char *open = at + 7, *p = open + 1;
        int depth = 1;
        bool quote = false;
        for (; *p && *p != '\n' && depth; p++) {
            if (quote)
                quote = *p != '"';
            else if (*p == '"')
                quote = true;
            else if (*p == '(')
                depth++;
            else if (*p == ')')
                depth--;
        }
        if (depth) {
            cc_logf("error: printf: cannot read the call\n");
            goto fail;
        }
        const char *close = p - 1;
        struct pf_arg args[64];
        size_t nargs = split_args(open + 1, (size_t)(close - open - 1), args, 64);
        if (nargs == 0 || nargs > 64) {
            cc_logf("error: printf: %zu arguments (at most 63 after the format)\n",
                    nargs ? nargs - 1 : 0);
            goto fail;
        }
        for (size_t k = 0; k < nargs; k++)
            if (!parse_type(&args[k]) || args[k].as >= 8) {
                cc_logf("error: printf: an argument of type %.*s is not supported\n",
                        (int)args[k].len, args[k].text);
                goto fail;
            }
        const char *gname;
        size_t glen;
        char *fmt = args[0].as >= 0 && format_global(&args[0], &gname, &glen)
                        ? global_string(ll, gname, glen)
                        : NULL;
        if (!fmt) {
            cc_logf("error: printf: the format must be a string literal\n");
            goto fail;
        }
        size_t fmt_len = strlen(fmt) + 1;
        mark_strings(fmt, args, nargs);
        free(fmt);
        as_used[args[0].as] = true;
        for (size_t k = 1; k < nargs; k++)
            if (args[k].str)
                as_used[args[k].as] = str_used[args[k].as] = true;
        emit_site(&defs, sites, args, nargs, fmt_len);
        /* The call: "(<fn type>) @printf(" becomes "@__hcqcl_printf.N(". */
        const char *callee = at;
        const char *q = at;
        while (q > call && q[-1] == ' ')
            q--;
        if (q > call && q[-1] == ')') {
            int d = 0;
            const char *r = q - 1;
            for (; r > call; r--) {
                if (*r == ')')
                    d++;
                else if (*r == '(' && --d == 0)
                    break;
            }
            if (d == 0)
                callee = r;
        }
        cc_buf_add(&out, done, (size_t)(callee - done));
        cc_buf_addf(&out, "@" SITE_PREFIX "%u(", sites);
        done = open + 1;
        sites++;
    }
    cc_buf_add(&out, done, strlen(done));
    if (sites) {
        emit_reserve(&defs);
        for (int as = 0; as < 8; as++) {
            if (str_used[as])
                emit_strlen(&defs, as);
            if (as_used[as])
                declare_memcpy(&defs, ll, as);
        }
        cc_buf_add(&out, defs.s, defs.len);
    }
    free(defs.s);
    if (!out.s)
        ADD(&out, "");
    return out.s;
fail:
    free(out.s);
    free(defs.s);
    return NULL;
}

/* ---- Which kernels reach printf ------------------------------------- */

struct fn {
    const char *name, *body, *end; /* name not NUL-terminated */
    size_t name_len;
    bool kernel, reaches;
};

static size_t name_at(const char *s)
{
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || strchr("._$-", s[n]))
        n++;
    return n;
}

void cc_ir_printf_kernels(const char *ll, struct cubin_container_kernel *ks, uint32_t nk)
{
    struct fn *fns = NULL;
    size_t n = 0, cap = 0;
    for (const char *l = ll; l && *l;) {
        const char *nl = strchr(l, '\n');
        if (!strncmp(l, "define ", 7)) {
            const char *at = strchr(l, '@');
            const char *end = strstr(l, "\n}\n");
            if (at && (!nl || at < nl) && end) {
                if (n == cap) {
                    cap = cap ? cap * 2 : 64;
                    struct fn *nf = realloc(fns, cap * sizeof(*nf));
                    if (!nf)
                        break;
                    fns = nf;
                }
                fns[n] = (struct fn){.name = at + 1, .name_len = name_at(at + 1), .body = nl,
                                     .end = end,
                                     .kernel = memmem(l, (size_t)(at - l), "spir_kernel", 11) != NULL};
                fns[n].reaches = memmem(nl, (size_t)(end - nl), "@" SITE_PREFIX,
                                        sizeof(SITE_PREFIX)) != NULL;
                n++;
                nl = end + 2;
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    /* Callers of functions that reach printf reach it, to a fixed point. */
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < n; i++) {
            if (fns[i].reaches)
                continue;
            for (size_t j = 0; j < n && !fns[i].reaches; j++) {
                if (!fns[j].reaches || i == j)
                    continue;
                char *pat = malloc(fns[j].name_len + 3);
                if (!pat)
                    continue;
                snprintf(pat, fns[j].name_len + 3, "@%.*s(", (int)fns[j].name_len, fns[j].name);
                if (memmem(fns[i].body, (size_t)(fns[i].end - fns[i].body), pat, strlen(pat)))
                    fns[i].reaches = changed = true;
                free(pat);
            }
        }
    }
    for (uint32_t k = 0; k < nk; k++)
        for (size_t i = 0; i < n; i++)
            if (fns[i].kernel && fns[i].reaches && strlen(ks[k].name) == fns[i].name_len &&
                !memcmp(ks[k].name, fns[i].name, fns[i].name_len))
                ks[k].flags |= CUBIN_CONTAINER_KERNEL_PRINTF;
    free(fns);
}

/*
 * program_includes.c — the headers a compiled object included from its
 * -I directories, kept with it.
 *
 * clLinkProgram compiles its inputs' sources again (program_build.c), so
 * a header an input found through an -I directory at clCompileProgram
 * must still be found at the link, after the application may have
 * changed or removed it (the headers are part of the compiled object, as
 * they are for a compiler that keeps code). At clCompileProgram the
 * source's #include lines are followed through the -I directories, and
 * every header found is kept like an embedded header, under the name it
 * was included by. The scan does not evaluate the preprocessor: a header
 * named only in a branch that is not taken is kept too, which costs
 * memory, never a wrong build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/obj.h"

enum {
    KEEP_MAX_HEADERS = 256,
    KEEP_MAX_BYTES = 16 << 20, /* all headers kept, together */
};

/* The next option of s, unquoted as the compiler reads it ('...' and
 * "..." group, a backslash escapes the next character), malloc'ed; NULL
 * at the end. */
static char *next_option(const char **s)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (!*p)
        return NULL;
    char *tok = malloc(strlen(p) + 1), *w = tok;
    if (!tok)
        return NULL;
    char quote = 0;
    for (; *p && (quote || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')); p++) {
        if (quote && *p == quote)
            quote = 0;
        else if (!quote && (*p == '"' || *p == '\''))
            quote = *p;
        else if (*p == '\\' && quote != '\'' && p[1])
            *w++ = *++p;
        else
            *w++ = *p;
    }
    *w = 0;
    *s = p;
    return tok;
}

/* The -I directories of options ("-I dir" or "-Idir"), NULL-terminated
 * and malloc'ed, each malloc'ed. */
static char **include_dirs(const char *options)
{
    size_t n = 0, cap = 4;
    char **dirs = calloc(cap + 1, sizeof(*dirs));
    const char *s = options ? options : "";
    for (char *tok; dirs && (tok = next_option(&s));) {
        char *dir = NULL;
        if (!strcmp(tok, "-I"))
            dir = next_option(&s);
        else if (!strncmp(tok, "-I", 2))
            dir = strdup(tok + 2);
        free(tok);
        if (!dir || !*dir) {
            free(dir);
            continue;
        }
        if (n == cap) {
            char **more = realloc(dirs, (2 * cap + 1) * sizeof(*dirs));
            if (!more) {
                free(dir);
                break;
            }
            dirs = more;
            cap *= 2;
        }
        dirs[n++] = dir;
        dirs[n] = NULL;
    }
    return dirs;
}

static bool kept(const cl_program p, const char *name)
{
    for (cl_uint i = 0; i < p->num_headers; i++)
        if (!strcmp(p->header_names[i], name))
            return true;
    return false;
}

/* The file dir/name when it is a regular file of at most max bytes. */
static char *read_header(const char *dir, const char *name, size_t max)
{
    char path[4096];
    struct stat st;
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path) ||
        stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max)
        return NULL;
    FILE *f = fopen(path, "rb");
    char *text = f ? malloc((size_t)st.st_size + 1) : NULL;
    size_t got = text ? fread(text, 1, (size_t)st.st_size, f) : 0;
    if (f)
        fclose(f);
    if (text)
        text[got] = 0;
    return text;
}

cl_int hcqcl_program_add_header(cl_program p, const char *name, size_t name_len,
                               const char *text, size_t text_len)
{
    char *n = strndup(name, name_len), *t = strndup(text, text_len);
    char **names = n && t ? realloc(p->header_names, (p->num_headers + 1) * sizeof(char *)) : NULL;
    if (names)
        p->header_names = names;
    char **srcs = names ? realloc(p->header_srcs, (p->num_headers + 1) * sizeof(char *)) : NULL;
    if (srcs)
        p->header_srcs = srcs;
    if (!srcs) {
        free(n);
        free(t);
        return CL_OUT_OF_HOST_MEMORY;
    }
    p->header_names[p->num_headers] = n;
    p->header_srcs[p->num_headers] = t;
    p->num_headers++;
    return CL_SUCCESS;
}

/* Follow the #include lines of text (a header kept as `from`, or the
 * source when from is NULL) into dirs; headers found are kept and
 * followed in turn, up to the limits. */
static cl_int follow(cl_program p, const char *text, const char *from, char **dirs, size_t *bytes)
{
    for (const char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        next = next ? next + 1 : NULL;
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s++ != '#')
            continue;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncmp(s, "include", 7) != 0)
            continue;
        s += 7;
        while (*s == ' ' || *s == '\t')
            s++;
        char close = *s == '"' ? '"' : *s == '<' ? '>' : 0;
        const char *e = close ? strchr(s + 1, close) : NULL;
        const char *nl = strchr(s, '\n');
        if (!e || (nl && e > nl) || e == s + 1)
            continue;
        char *name = strndup(s + 1, (size_t)(e - s - 1));
        if (!name)
            return CL_OUT_OF_HOST_MEMORY;
        /* A header's own includes are looked for beside it first, as the
         * compiler does for "..." includes. */
        char *beside = NULL;
        const char *slash = from ? strrchr(from, '/') : NULL;
        if (slash && close == '"' &&
            asprintf(&beside, "%.*s/%s", (int)(slash - from), from, name) < 0)
            beside = NULL;
        const char *tries[] = {beside, name};
        for (size_t t = 0; t < 2; t++) {
            const char *n = tries[t];
            if (!n || n[0] == '/' || strstr(n, "..") || kept(p, n))
                continue;
            char *found = NULL;
            for (size_t d = 0; dirs[d] && !found; d++)
                found = read_header(dirs[d], n, KEEP_MAX_BYTES - *bytes);
            if (!found)
                continue;
            if (p->num_headers >= KEEP_MAX_HEADERS) {
                free(found);
                break;
            }
            size_t len = strlen(found);
            *bytes += len;
            cl_int err = hcqcl_program_add_header(p, n, strlen(n), found, len);
            free(found);
            if (err == CL_SUCCESS)
                err = follow(p, p->header_srcs[p->num_headers - 1],
                             p->header_names[p->num_headers - 1], dirs, bytes);
            if (err != CL_SUCCESS) {
                free(name);
                free(beside);
                return err;
            }
            break;
        }
        free(name);
        free(beside);
    }
    return CL_SUCCESS;
}

cl_int hcqcl_program_keep_included(cl_program p, const char *options)
{
    char **dirs = include_dirs(options);
    if (!dirs)
        return CL_OUT_OF_HOST_MEMORY;
    size_t bytes = 0;
    cl_uint embedded = p->num_headers;
    cl_int err = dirs[0] ? follow(p, p->source, NULL, dirs, &bytes) : CL_SUCCESS;
    /* What the embedded headers include from the -I directories, too. */
    for (cl_uint h = 0; dirs[0] && h < embedded && err == CL_SUCCESS; h++)
        err = follow(p, p->header_srcs[h], p->header_names[h], dirs, &bytes);
    for (size_t d = 0; dirs[d]; d++)
        free(dirs[d]);
    free(dirs);
    return err;
}

/*
 * options.c — OpenCL build options as words: the split that the library's
 * up-front check (api/program_build.c) and hcqcl-cc's parser share, so
 * that both read one options string the same way, and the values NVIDIA's
 * -cl-nv-* options may take.
 */
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static bool opt_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

char **util_options_split(const char *s, size_t *count)
{
    size_t cap = 8, n = 0;
    char **v = malloc(cap * sizeof(*v));
    char *tok = malloc(strlen(s ? s : "") + 1);
    if (!v || !tok) {
        free(v);
        free(tok);
        return NULL;
    }
    const char *p = s ? s : "";
    for (;;) {
        while (opt_space(*p))
            p++;
        if (!*p)
            break;
        /* '...' and "..." group; a backslash escapes the next character
         * outside quotes and inside "...". */
        size_t len = 0;
        char quote = 0;
        for (; *p && (quote || !opt_space(*p)); p++) {
            if (quote && *p == quote)
                quote = 0;
            else if (quote && *p == '\\' && quote == '"' && p[1])
                tok[len++] = *++p;
            else if (quote)
                tok[len++] = *p;
            else if (*p == '"' || *p == '\'')
                quote = *p;
            else if (*p == '\\' && p[1])
                tok[len++] = *++p;
            else
                tok[len++] = *p;
        }
        if (quote)
            goto fail;
        if (n + 1 >= cap) {
            char **nv = realloc(v, (cap *= 2) * sizeof(*v));
            if (!nv)
                goto fail;
            v = nv;
        }
        if (!(v[n] = strndup(tok, len)))
            goto fail;
        n++;
    }
    v[n] = NULL;
    free(tok);
    *count = n;
    return v;
fail:
    util_options_free(v, n);
    free(tok);
    return NULL;
}

void util_options_free(char **v, size_t count)
{
    for (size_t i = 0; v && i < count; i++)
        free(v[i]);
    free(v);
}

bool util_nv_option_value_ok(const char *name, const char *value)
{
    const size_t digits = strspn(value, "0123456789");
    const bool number = digits > 0 && !value[digits];
    if (!strcmp(name, "-cl-nv-maxrregcount"))
        return number && digits <= 4 && atoi(value) > 0;
    /* "N is a positive integer, or 0": ptxas has levels 0 to 3. */
    if (!strcmp(name, "-cl-nv-opt-level"))
        return number && digits == 1 && value[0] <= '3';
    return !strcmp(name, "-cl-nv-arch"); /* any name: the device's is used */
}

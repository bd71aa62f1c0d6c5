/*
 * units.c — reading the link units text (container.h, "Link units").
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cubin/container.h"

bool cubin_units_is(const char *src, size_t len)
{
    return src && len >= CUBIN_UNITS_MAGIC_LEN &&
           memcmp(src, CUBIN_UNITS_MAGIC, CUBIN_UNITS_MAGIC_LEN) == 0;
}

/* A decimal count at src[*pos], then the byte end. */
static int count(const char *src, size_t len, size_t *pos, char end, size_t *out)
{
    size_t v = 0, i = *pos;
    if (i >= len || src[i] < '0' || src[i] > '9')
        return -EINVAL;
    for (; i < len && src[i] >= '0' && src[i] <= '9'; i++) {
        if (v > (SIZE_MAX - 9) / 10)
            return -EINVAL;
        v = v * 10 + (size_t)(src[i] - '0');
    }
    if (i >= len || src[i] != end)
        return -EINVAL;
    *pos = i + 1;
    *out = v;
    return 0;
}

/* "<tag><a> <b>[ <c>]\n" at *pos, then a + b bytes that must fit. */
static int record(const char *src, size_t len, size_t *pos, const char *tag, size_t sizes[3],
                  int n)
{
    size_t i = *pos, t = strlen(tag);
    if (len - i < t || memcmp(src + i, tag, t) != 0)
        return -EINVAL;
    i += t;
    for (int k = 0; k < n; k++)
        if (count(src, len, &i, k == n - 1 ? '\n' : ' ', &sizes[k]))
            return -EINVAL;
    if (sizes[0] > len - i || sizes[1] > len - i - sizes[0])
        return -EINVAL;
    *pos = i;
    return 0;
}

int cubin_units_next(const char *src, size_t len, size_t *pos, struct cubin_unit *u)
{
    size_t i = *pos, sz[3];
    if (i == 0) {
        if (!cubin_units_is(src, len))
            return -EINVAL;
        i = CUBIN_UNITS_MAGIC_LEN;
    }
    if (i >= len)
        return 0;
    if (record(src, len, &i, "//unit ", sz, 3))
        return -EINVAL;
    *u = (struct cubin_unit){
        .options = src + i,
        .options_len = sz[0],
        .source = src + i + sz[0],
        .source_len = sz[1],
        .headers = src + i + sz[0] + sz[1],
        .num_headers = sz[2],
    };
    i += sz[0] + sz[1];
    for (size_t h = 0; h < u->num_headers; h++) {
        size_t hs[3];
        if (record(src, len, &i, "//header ", hs, 2))
            return -EINVAL;
        i += hs[0] + hs[1];
    }
    u->headers_len = (size_t)(src + i - u->headers);
    *pos = i;
    return 1;
}

void cubin_unit_header(const struct cubin_unit *u, size_t i, const char **name, size_t *name_len,
                       const char **text, size_t *text_len)
{
    size_t at = 0, hs[3];
    for (size_t h = 0;; h++) {
        /* Validated by cubin_units_next: every record parses. */
        record(u->headers, u->headers_len, &at, "//header ", hs, 2);
        if (h == i)
            break;
        at += hs[0] + hs[1];
    }
    *name = u->headers + at;
    *name_len = hs[0];
    *text = u->headers + at + hs[0];
    *text_len = hs[1];
}

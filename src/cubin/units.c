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
    size_t m = sizeof(CUBIN_UNITS_MAGIC) - 1;
    return src && len >= m && memcmp(src, CUBIN_UNITS_MAGIC, m) == 0;
}

/* A decimal count at src[*pos], then one ' ' or '\n' (end). */
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

int cubin_units_next(const char *src, size_t len, size_t *pos, struct cubin_unit *u)
{
    static const char tag[] = "//unit ";
    size_t i = *pos;
    if (i == 0) {
        if (!cubin_units_is(src, len))
            return -EINVAL;
        i = sizeof(CUBIN_UNITS_MAGIC) - 1;
    }
    if (i >= len)
        return 0;
    if (len - i < sizeof(tag) - 1 || memcmp(src + i, tag, sizeof(tag) - 1) != 0)
        return -EINVAL;
    i += sizeof(tag) - 1;
    size_t o, s;
    if (count(src, len, &i, ' ', &o) || count(src, len, &i, '\n', &s))
        return -EINVAL;
    if (o > len - i || s > len - i - o)
        return -EINVAL;
    *u = (struct cubin_unit){src + i, src + i + o, o, s};
    *pos = i + o + s;
    return 1;
}

/*
 * printf.c — OpenCL C printf formats and the records kernels write
 * (container.h, "printf"): the parser hcqcl-cc and the launcher share,
 * and the host side that turns a launch's records into text.
 *
 * OpenCL C's printf is C99's with these differences (OpenCL C 3.0,
 * 6.15.14.2): a vector specifier "vn" (n = 2, 3, 4, 8, 16) before the
 * length modifier prints n elements separated by commas; the length
 * modifier "hl" (32-bit elements) is valid only with a vector, and an
 * integer vector needs a length modifier; "ll" does not exist, and "l"
 * means 64 bits. Records hold every value as the call passed it, so the
 * text is made here by the C library's own printf, one conversion at a
 * time.
 *
 * The records come from the GPU: every size is checked against the
 * bytes that are there before it is used.
 */
#include "cubin/container.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
/* Widths and precisions, given or from '*': wider than any line is meant
 * to be is clamped, so a kernel's value cannot make the host allocate
 * without bound. */
#define COUNT_MAX 4096

static bool is_int_conv(char c) { return c && strchr("diouxX", c); }
static bool is_float_conv(char c) { return c && strchr("fFeEgGaA", c); }

static int read_count(const char **p)
{
    if (**p == '*') {
        (*p)++;
        return -2;
    }
    if (**p < '0' || **p > '9')
        return -1;
    long v = 0;
    while (**p >= '0' && **p <= '9') {
        v = v * 10 + (**p - '0');
        if (v > COUNT_MAX)
            v = COUNT_MAX;
        (*p)++;
    }
    return (int)v;
}

int cubin_printf_spec(const char *s, struct cubin_printf_spec *out)
{
    memset(out, 0, sizeof(*out));
    if (*s != '%')
        return -EINVAL;
    const char *p = s + 1;
    size_t nf = 0;
    while (*p && strchr("-+ #0", *p)) {
        if (!memchr(out->flags, *p, nf) && nf < sizeof(out->flags) - 1)
            out->flags[nf++] = *p;
        p++;
    }
    out->width = read_count(&p);
    out->precision = -1;
    if (*p == '.') {
        p++;
        out->precision = read_count(&p);
        if (out->precision == -1)
            out->precision = 0; /* "." alone is a precision of 0 */
    }
    if (*p == 'v') {
        p++;
        unsigned n = 0;
        while (*p >= '0' && *p <= '9' && n < 100)
            n = n * 10 + (unsigned)(*p++ - '0');
        if (n != 2 && n != 3 && n != 4 && n != 8 && n != 16)
            return -EINVAL;
        out->vec = n;
    }
    if (p[0] == 'h' && p[1] == 'h')
        memcpy(out->len, "hh", 3), p += 2;
    else if (p[0] == 'h' && p[1] == 'l')
        memcpy(out->len, "hl", 3), p += 2;
    else if (p[0] == 'h' || p[0] == 'l')
        out->len[0] = *p++;
    else if (*p == 'z' || *p == 't' || *p == 'j')
        out->len[0] = 'l', p++; /* C99's size_t-sized ones: 64 bits here */
    if (p[0] == 'l' && out->len[0] == 'l' && !out->len[1])
        return -EINVAL; /* "ll" */
    out->conv = *p;
    if (!out->conv || !strchr("diouxXcsfFeEgGaAp%", out->conv))
        return -EINVAL;
    out->span = (size_t)(p + 1 - s);
    if (out->conv == '%')
        return out->span == 2 ? 0 : -EINVAL;
    if (!strcmp(out->len, "hl") && !out->vec)
        return -EINVAL;
    if (out->vec && (strchr("csp", out->conv) || (is_int_conv(out->conv) && !out->len[0])))
        return -EINVAL;
    return 0;
}

/* ---- Text of one record ------------------------------------------------ */

struct text {
    char *s;
    size_t len, cap;
    bool failed;
};

static void __attribute__((format(printf, 2, 3))) text_addf(struct text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 256;
        while (cap <= t->len + (size_t)n)
            cap *= 2;
        char *ns = realloc(t->s, cap);
        if (!ns) {
            t->failed = true;
            return;
        }
        t->s = ns;
        t->cap = cap;
    }
}

static void text_add(struct text *t, const char *s, size_t n) { text_addf(t, "%.*s", (int)n, s); }

/* One argument of a record: its bytes. */
struct arg {
    const uint8_t *p;
    uint32_t n;
};

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The next part (u32 n, n bytes, padding) of [*p, end). */
static bool next_part(const uint8_t **p, const uint8_t *end, struct arg *a)
{
    if (end - *p < 4)
        return false;
    uint32_t n = rd32(*p);
    size_t padded = ((size_t)n + 3) & ~(size_t)3;
    if ((size_t)(end - *p - 4) < padded)
        return false;
    a->p = *p + 4;
    a->n = n;
    *p += 4 + padded;
    return true;
}

static uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n && i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    double m = h & 0x3ff, v;
    if (e == 0)
        v = m * 0x1p-24;
    else if (e == 31)
        v = m ? __builtin_nan("") : __builtin_inf();
    else
        v = (1.0 + m / 1024.0) * __builtin_ldexp(1.0, e - 15);
    return (h & 0x8000) ? -v : v;
}

/* "%<flags><width>.<precision>" of sp into f; width and precision given
 * ('*' resolved by the caller). */
static void spec_prefix(char *f, size_t cap, const struct cubin_printf_spec *sp, int width,
                        int prec)
{
    int n = snprintf(f, cap, "%%%s", sp->flags);
    if (width >= 0)
        n += snprintf(f + n, cap - (size_t)n, "%d", width);
    if (prec >= 0)
        snprintf(f + n, cap - (size_t)n, ".%d", prec);
}

/* One element: an integer, a float or a character of `size` bytes. */
static void put_element(struct text *t, const struct cubin_printf_spec *sp, const char *prefix,
                        const uint8_t *p, unsigned size)
{
    char f[64];
    uint64_t raw = load_le(p, size);
    if (is_int_conv(sp->conv)) {
        unsigned bits = !strcmp(sp->len, "hh") ? 8 : !strcmp(sp->len, "h") ? 16
                        : !strcmp(sp->len, "l")                       ? 64
                                                                      : 32;
        /* What the value has of those bits (a narrower value: extended). */
        unsigned have = MIN(size * 8, bits);
        uint64_t mask = have == 64 ? ~0ull : (1ull << have) - 1;
        uint64_t u = raw & mask;
        snprintf(f, sizeof(f), "%sll%c", prefix, sp->conv);
        if (sp->conv == 'd' || sp->conv == 'i') {
            int64_t v = (int64_t)(u << (64 - have)) >> (64 - have);
            text_addf(t, f, (long long)v);
        } else {
            text_addf(t, f, (unsigned long long)u);
        }
    } else if (is_float_conv(sp->conv)) {
        double v;
        if (size == 8) {
            memcpy(&v, &raw, 8);
        } else if (size == 4) {
            float x;
            uint32_t w = (uint32_t)raw;
            memcpy(&x, &w, 4);
            v = x;
        } else {
            v = half_to_double((uint16_t)raw);
        }
        snprintf(f, sizeof(f), "%s%c", prefix, sp->conv);
        text_addf(t, f, v);
    } else if (sp->conv == 'c') {
        snprintf(f, sizeof(f), "%sc", prefix);
        text_addf(t, f, (int)(unsigned char)raw);
    } else { /* 'p' */
        snprintf(f, sizeof(f), "%sp", prefix);
        text_addf(t, f, (void *)(uintptr_t)raw);
    }
}

/* The text of one record's format and arguments, in [p, end). */
static bool format_record(struct text *t, const uint8_t *p, const uint8_t *end)
{
    struct arg fa, a;
    if (!next_part(&p, end, &fa) || fa.n == 0 || fa.p[fa.n - 1] != 0)
        return false;
    const char *s = (const char *)fa.p, *lit = s;
    while (*s) {
        if (*s != '%') {
            s++;
            continue;
        }
        text_add(t, lit, (size_t)(s - lit));
        struct cubin_printf_spec sp;
        if (cubin_printf_spec(s, &sp) != 0) {
            /* Not a conversion OpenCL C defines: printed as it stands. */
            text_add(t, "%", 1);
            lit = ++s;
            continue;
        }
        s += sp.span;
        lit = s;
        if (sp.conv == '%') {
            text_add(t, "%", 1);
            continue;
        }
        int width = sp.width, prec = sp.precision;
        if (width == -2) {
            if (!next_part(&p, end, &a))
                return false;
            int64_t w = (int32_t)load_le(a.p, MIN(a.n, 4));
            if (w < 0) { /* a negative width is the '-' flag */
                if (!strchr(sp.flags, '-') && strlen(sp.flags) < sizeof(sp.flags) - 1)
                    strcat(sp.flags, "-");
                w = -w;
            }
            width = (int)MIN(w, COUNT_MAX);
        }
        if (prec == -2) {
            if (!next_part(&p, end, &a))
                return false;
            int64_t v = (int32_t)load_le(a.p, MIN(a.n, 4));
            prec = v < 0 ? -1 : (int)MIN(v, COUNT_MAX); /* a negative precision is none */
        }
        if (!next_part(&p, end, &a))
            return false;
        char prefix[48];
        spec_prefix(prefix, sizeof(prefix), &sp, width, prec);
        if (sp.conv == 's') {
            char f[64];
            snprintf(f, sizeof(f), "%ss", prefix);
            if (a.n == 0)
                text_addf(t, f, "(null)");
            else if (memchr(a.p, 0, a.n))
                text_addf(t, f, (const char *)a.p);
            else
                return false;
        } else if (sp.vec) {
            if (a.n == 0 || a.n % sp.vec)
                return false;
            unsigned es = a.n / sp.vec;
            if (es != 1 && es != 2 && es != 4 && es != 8)
                return false;
            for (unsigned i = 0; i < sp.vec; i++) {
                if (i)
                    text_add(t, ",", 1);
                put_element(t, &sp, prefix, a.p + (size_t)i * es, es);
            }
        } else {
            if (a.n != 1 && a.n != 2 && a.n != 4 && a.n != 8)
                return false;
            put_element(t, &sp, prefix, a.p, a.n);
        }
    }
    text_add(t, lit, (size_t)(s - lit));
    return !t->failed;
}

int cubin_printf_write(const void *area, size_t size, FILE *out)
{
    const uint8_t *p = area, *end = p + size;
    int records = 0;
    struct text t = {0};
    while (end - p >= 4) {
        uint32_t n = rd32(p);
        if (n == 0)
            break; /* where a record that did not fit would have begun */
        if (n < 8 || (n & 3) || (size_t)(end - p) < n) {
            free(t.s);
            return -EINVAL;
        }
        t.len = 0;
        if (!format_record(&t, p + 4, p + n)) {
            free(t.s);
            return -EINVAL;
        }
        fwrite(t.s, 1, t.len, out);
        records++;
        p += n;
    }
    free(t.s);
    return records;
}

/*
 * printf_test.c — OpenCL C printf formats and records (cubin/container.h,
 * "printf"): the conversion-specification parser hcqcl-cc and the
 * launcher share, and the text records become, each compared with what
 * the C library prints for the same values. Records are built here the
 * way the code hcqcl-cc generates writes them; hostile records (sizes
 * past the end, strings without their NUL) must stop the reader cleanly.
 */
#include "check.h"
#include "cubin/container.h"

#include <errno.h>

/* ---- the parser ---- */

static void test_spec(void)
{
    struct cubin_printf_spec sp;
    EXPECT(cubin_printf_spec("%-+08.3f", &sp) == 0 && sp.conv == 'f' && sp.width == 8 &&
           sp.precision == 3 && !strcmp(sp.flags, "-+0") && sp.span == 8);
    EXPECT(cubin_printf_spec("%v4hld,", &sp) == 0 && sp.vec == 4 && !strcmp(sp.len, "hl") &&
           sp.conv == 'd' && sp.span == 6);
    EXPECT(cubin_printf_spec("%v16hhx", &sp) == 0 && sp.vec == 16 && !strcmp(sp.len, "hh"));
    EXPECT(cubin_printf_spec("%v2f", &sp) == 0 && sp.vec == 2 && sp.conv == 'f');
    EXPECT(cubin_printf_spec("%*.*e", &sp) == 0 && sp.width == -2 && sp.precision == -2);
    EXPECT(cubin_printf_spec("%.f", &sp) == 0 && sp.precision == 0);
    EXPECT(cubin_printf_spec("%lu", &sp) == 0 && !strcmp(sp.len, "l"));
    EXPECT(cubin_printf_spec("%zu", &sp) == 0 && !strcmp(sp.len, "l"));
    EXPECT(cubin_printf_spec("%%", &sp) == 0 && sp.conv == '%' && sp.span == 2);
    /* What OpenCL C does not define. */
    EXPECT(cubin_printf_spec("%v4d", &sp) == -EINVAL);  /* integer vector, no length */
    EXPECT(cubin_printf_spec("%hld", &sp) == -EINVAL);  /* hl without a vector */
    EXPECT(cubin_printf_spec("%v5hd", &sp) == -EINVAL); /* no 5-vectors */
    EXPECT(cubin_printf_spec("%v2s", &sp) == -EINVAL);
    EXPECT(cubin_printf_spec("%lld", &sp) == -EINVAL);
    EXPECT(cubin_printf_spec("%k", &sp) == -EINVAL);
    EXPECT(cubin_printf_spec("%", &sp) == -EINVAL);
}

/* ---- records ---- */

struct rec {
    uint8_t b[1024];
    size_t n;     /* bytes of the area so far */
    size_t start; /* of the record being built */
};

static void put(struct rec *r, const void *p, uint32_t n)
{
    memcpy(r->b + r->n, &n, 4);
    if (n)
        memcpy(r->b + r->n + 4, p, n);
    r->n += 4 + ((n + 3) & ~3u);
}

static void begin(struct rec *r, const char *fmt)
{
    r->start = r->n;
    r->n += 4;
    put(r, fmt, (uint32_t)strlen(fmt) + 1);
}

static void end(struct rec *r)
{
    uint32_t size = (uint32_t)(r->n - r->start);
    memcpy(r->b + r->start, &size, 4);
}

static void put_i32(struct rec *r, int32_t v) { put(r, &v, 4); }
static void put_i64(struct rec *r, int64_t v) { put(r, &v, 8); }
static void put_f64(struct rec *r, double v) { put(r, &v, 8); }

/* The text the records of r make, as a malloc'ed string; *count the
 * reader's result. */
static char *text_of(const struct rec *r, size_t size, int *count)
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    REQUIRE(f);
    *count = cubin_printf_write(r->b, size, f);
    fclose(f);
    return s;
}

static void expect_text(const struct rec *r, int records, const char *want)
{
    int count;
    char *got = text_of(r, r->n, &count);
    EXPECT(count == records, "%d records, expected %d", count, records);
    EXPECT(!strcmp(got, want), "got \"%s\"\n  expected \"%s\"", got, want);
    free(got);
}

static void test_scalars(void)
{
    struct rec r = {0};
    char want[512];
    begin(&r, "i=%d u=%u x=%#x o=%o c=%c l=%ld lu=%lu neg=%d\n");
    put_i32(&r, -7);
    put_i32(&r, 4000000000u);
    put_i32(&r, 255);
    put_i32(&r, 8);
    put_i32(&r, 'Z');
    put_i64(&r, -123456789012345ll);
    put_i64(&r, (int64_t)18446744073709551615ull);
    put_i32(&r, -2147483647 - 1);
    end(&r);
    snprintf(want, sizeof(want), "i=%d u=%u x=%#x o=%o c=%c l=%ld lu=%lu neg=%d\n", -7, 4000000000u,
             255, 8, 'Z', -123456789012345l, 18446744073709551615ul, -2147483647 - 1);
    expect_text(&r, 1, want);

    /* hh and h truncate what the int carries; a float is a double. */
    r = (struct rec){0};
    begin(&r, "%hhd %hhu %hd %hx|%f|%8.3e|%-10g|%a|%G\n");
    put_i32(&r, 0x1ff);
    put_i32(&r, -1);
    put_i32(&r, 0x18000);
    put_i32(&r, 0x12345);
    put_f64(&r, (double)3.14159265f);
    put_f64(&r, 6.02214076e23);
    put_f64(&r, 0.0001);
    put_f64(&r, 1.0);
    put_f64(&r, 1e-300);
    end(&r);
    snprintf(want, sizeof(want), "%hhd %hhu %hd %hx|%f|%8.3e|%-10g|%a|%G\n", (signed char)0x1ff,
             (unsigned char)-1, (short)0x18000, (unsigned short)0x12345, (double)3.14159265f,
             6.02214076e23, 0.0001, 1.0, 1e-300);
    expect_text(&r, 1, want);
}

static void test_strings_widths(void)
{
    struct rec r = {0};
    char want[256];
    begin(&r, "[%s] [%10s] [%-6.3s] [%s] [%*d] [%-*.*f] 100%%\n");
    put(&r, "hcqcl", 6);
    put(&r, "right", 6);
    put(&r, "truncated", 10);
    put(&r, NULL, 0); /* a NULL pointer */
    put_i32(&r, 5);
    put_i32(&r, 42);
    put_i32(&r, 9);
    put_i32(&r, 2);
    put_f64(&r, 2.71828);
    end(&r);
    snprintf(want, sizeof(want), "[%s] [%10s] [%-6.3s] [(null)] [%*d] [%-*.*f] 100%%\n", "hcqcl",
             "right", "truncated", 5, 42, 9, 2, 2.71828);
    expect_text(&r, 1, want);

    /* '*' values from a kernel are clamped like written ones (4096). */
    r = (struct rec){0};
    begin(&r, "[%*d|%.*f]");
    put_i32(&r, 1 << 30);
    put_i32(&r, 5);
    put_i32(&r, -2147483647 - 1); /* INT_MIN: no precision */
    put_f64(&r, 0.5);
    end(&r);
    int count;
    char *t = text_of(&r, r.n, &count);
    EXPECT(count == 1 && t && strlen(t) == 1 + 4096 + 1 + strlen("0.500000") + 1, "%zu",
           t ? strlen(t) : 0);
    free(t);
    r = (struct rec){0};
    begin(&r, "[%*d]");
    put_i32(&r, -2147483647 - 1); /* INT_MIN: '-' and clamped */
    put_i32(&r, 7);
    end(&r);
    t = text_of(&r, r.n, &count);
    EXPECT(count == 1 && t && t[1] == '7' && strlen(t) == 4096 + 2, "%zu", t ? strlen(t) : 0);
    free(t);

    /* A negative '*' width is the '-' flag. */
    r = (struct rec){0};
    begin(&r, "[%*d]");
    put_i32(&r, -4);
    put_i32(&r, 7);
    end(&r);
    expect_text(&r, 1, "[7   ]");
}

static void test_vectors(void)
{
    struct rec r = {0};
    char want[256];
    int32_t v4[4] = {1, -2, 3, -4};
    int8_t c16[16];
    for (int i = 0; i < 16; i++)
        c16[i] = (int8_t)(i * 17);
    float f3[3] = {0.5f, -1.25f, 3.0f};
    double d2[2] = {1e10, -2.5};
    uint16_t h2[2] = {0x3c00, 0xc100}; /* 1.0, -2.5 in half */
    int64_t l2[2] = {-1, 1ll << 40};
    begin(&r, "%v4hld|%v16hhx|%v3f|%v2lg|%v2hf|%v2ld|%#v4hlX\n");
    put(&r, v4, sizeof(v4));
    put(&r, c16, sizeof(c16));
    put(&r, f3, sizeof(f3));
    put(&r, d2, sizeof(d2));
    put(&r, h2, sizeof(h2));
    put(&r, l2, sizeof(l2));
    put(&r, v4, sizeof(v4));
    end(&r);
    int n = snprintf(want, sizeof(want), "1,-2,3,-4|");
    for (int i = 0; i < 16; i++)
        n += snprintf(want + n, sizeof(want) - (size_t)n, "%s%hhx", i ? "," : "",
                      (unsigned char)c16[i]);
    snprintf(want + n, sizeof(want) - (size_t)n,
             "|%f,%f,%f|%g,%g|%f,%f|%ld,%ld|%#X,%#X,%#X,%#X\n", 0.5, -1.25, 3.0, 1e10, -2.5, 1.0,
             -2.5, -1l, 1l << 40, 1u, (unsigned)-2, 3u, (unsigned)-4);
    expect_text(&r, 1, want);
}

static void test_several_and_ends(void)
{
    struct rec r = {0};
    begin(&r, "a%d\n");
    put_i32(&r, 1);
    end(&r);
    begin(&r, "b%d\n");
    put_i32(&r, 2);
    end(&r);
    expect_text(&r, 2, "a1\nb2\n");
    /* A 0 size word (where a record that did not fit began): the end. */
    size_t keep = r.n;
    memset(r.b + r.n, 0, 16);
    r.n += 16;
    expect_text(&r, 2, "a1\nb2\n");
    r.n = keep;

    /* What OpenCL C does not define is printed as it stands. */
    r = (struct rec){0};
    begin(&r, "%k %d%");
    put_i32(&r, 3);
    end(&r);
    expect_text(&r, 1, "%k 3%");
}

static void test_hostile(void)
{
    struct rec r = {0};
    begin(&r, "ok %d\n");
    put_i32(&r, 1);
    end(&r);
    size_t good = r.n;
    begin(&r, "bad %s\n");
    put(&r, "xy", 2); /* no NUL */
    end(&r);
    int count;
    char *t = text_of(&r, r.n, &count);
    EXPECT(count == -EINVAL && !strcmp(t, "ok 1\n"), "%d \"%s\"", count, t);
    free(t);
    /* Every truncation of a valid area: no read past it, a clean result. */
    r.n = good;
    begin(&r, "%v4hld %s %f\n");
    int32_t v4[4] = {1, 2, 3, 4};
    put(&r, v4, sizeof(v4));
    put(&r, "s", 2);
    put_f64(&r, 1.5);
    end(&r);
    for (size_t cut = 0; cut < r.n; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, r.b, cut);
        struct rec c = {0};
        memcpy(c.b, copy, cut);
        char *s = text_of(&c, cut, &count);
        EXPECT(count <= 2, "cut %zu: %d", cut, count);
        free(s);
        free(copy);
    }
    /* Sizes that lie: past the end, not a multiple of 4, too small. */
    uint32_t lies[] = {0xfffffff0u, 13, 4};
    for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
        struct rec c = r;
        memcpy(c.b + good, &lies[i], 4);
        char *s = text_of(&c, c.n, &count);
        EXPECT(count == -EINVAL && !strcmp(s, "ok 1\n"), "size %u: %d", lies[i], count);
        free(s);
    }
    /* A vector whose bytes do not divide into its elements. */
    r = (struct rec){0};
    begin(&r, "%v4hld");
    put(&r, v4, 12);
    end(&r);
    t = text_of(&r, r.n, &count);
    EXPECT(count == -EINVAL, "%d", count);
    free(t);
}

int main(void)
{
    test_spec();
    test_scalars();
    test_strings_widths();
    test_vectors();
    test_several_and_ends();
    test_hostile();
    return check_done("compiler_printf");
}

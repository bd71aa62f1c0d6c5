/*
 * container.c — reader and writer of the hcqcl program container
 * (layout in container.h), SHA-256, and the source-build cache key.
 *
 * The reader treats its input as hostile: a binary handed to
 * clCreateProgramWithBinary or a file found in a cache directory. Every
 * offset is checked in subtraction form before it is used, and the parsed
 * object owns a private copy of everything it points at.
 */
#include "cubin/container.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const base_names[] = {
    [CUBIN_CONTAINER_BASE_SAMPLER] = "sampler_t",
    [CUBIN_CONTAINER_BASE_IMAGE1D] = "image1d_t",
    [CUBIN_CONTAINER_BASE_IMAGE1D_ARRAY] = "image1d_array_t",
    [CUBIN_CONTAINER_BASE_IMAGE1D_BUFFER] = "image1d_buffer_t",
    [CUBIN_CONTAINER_BASE_IMAGE2D] = "image2d_t",
    [CUBIN_CONTAINER_BASE_IMAGE2D_ARRAY] = "image2d_array_t",
    [CUBIN_CONTAINER_BASE_IMAGE3D] = "image3d_t",
};

const char *cubin_container_base_name(unsigned base)
{
    return base && base <= CUBIN_CONTAINER_BASE_LAST ? base_names[base] : NULL;
}

/* Type-qualifier bits this format defines: the qualifiers and a known
 * base type. */
static bool type_qual_ok(uint16_t type_qual)
{
    return !(type_qual & ~(0xfu | CUBIN_CONTAINER_TYPE_BASE_MASK)) &&
           (type_qual & CUBIN_CONTAINER_TYPE_BASE_MASK) >> CUBIN_CONTAINER_TYPE_BASE_SHIFT <=
               CUBIN_CONTAINER_BASE_LAST;
}

/* Header field offsets. */
enum {
    H_MAGIC = 0,
    H_VERSION = 8,
    H_HEADER_SIZE = 12,
    H_ARCH = 16,
    H_TOTAL_SIZE = 20,
    H_NUM_KERNELS = 24,
    H_KERNELS_OFF = 28,
    H_NUM_ARGS = 32,
    H_ARGS_OFF = 36,
    H_STRTAB_OFF = 40,
    H_STRTAB_SIZE = 44,
    H_CUBIN_OFF = 48,
    H_CUBIN_SIZE = 52,
    H_OPTIONS = 56,
    H_COMPILER = 60,
    H_SOURCE_HASH = 64,
};
_Static_assert(H_SOURCE_HASH + 32 == CUBIN_CONTAINER_HEADER_SIZE, "header layout");

/* Kernel record field offsets. */
enum {
    K_NAME = 0,
    K_REQD = 4,
    K_HINT = 16,
    K_ATTRIBUTES = 28,
    K_FIRST_ARG = 32,
    K_NUM_ARGS = 36,
    K_FLAGS = 40,
};
_Static_assert(K_FLAGS + 8 == CUBIN_CONTAINER_KERNEL_SIZE, "kernel record layout");

/* Argument record field offsets. */
enum { A_ADDR = 0, A_ACCESS = 1, A_TYPE_QUAL = 2, A_TYPE_NAME = 4, A_NAME = 8 };
_Static_assert(A_NAME + 8 == CUBIN_CONTAINER_ARG_SIZE, "arg record layout");

static size_t align8(size_t v) { return (v + 7) & ~(size_t)7; }
#define MIN_SZ(a, b) ((a) < (b) ? (a) : (b))

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static void wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

bool cubin_container_is(const void *data, size_t size)
{
    return data && size >= CUBIN_CONTAINER_HEADER_SIZE &&
           memcmp(data, CUBIN_CONTAINER_MAGIC, 8) == 0;
}

/* [off, off+len) lies inside [0, total). */
static bool in_range(uint32_t off, uint64_t len, uint32_t total)
{
    return off <= total && len <= (uint64_t)(total - off);
}

/* A string reference is either NO_STRING (when allowed) or an offset into
 * a string table whose last byte is NUL, so it is always terminated. */
static bool str_ok(uint32_t ref, uint32_t strtab_size, bool optional)
{
    if (ref == CUBIN_CONTAINER_NO_STRING)
        return optional;
    return ref < strtab_size;
}

int cubin_container_parse(const void *data, size_t size, struct cubin_container **out)
{
    const uint8_t *b = data;
    *out = NULL;
    if (!cubin_container_is(data, size))
        return -EINVAL;
    if (rd32(b + H_VERSION) != CUBIN_CONTAINER_VERSION ||
        rd32(b + H_HEADER_SIZE) != CUBIN_CONTAINER_HEADER_SIZE)
        return -EINVAL;
    uint32_t total = rd32(b + H_TOTAL_SIZE);
    if (total < CUBIN_CONTAINER_HEADER_SIZE || total > size)
        return -EINVAL;

    uint32_t nk = rd32(b + H_NUM_KERNELS), koff = rd32(b + H_KERNELS_OFF);
    uint32_t na = rd32(b + H_NUM_ARGS), aoff = rd32(b + H_ARGS_OFF);
    uint32_t soff = rd32(b + H_STRTAB_OFF), ssize = rd32(b + H_STRTAB_SIZE);
    uint32_t coff = rd32(b + H_CUBIN_OFF), csize = rd32(b + H_CUBIN_SIZE);
    if (nk > CUBIN_CONTAINER_MAX_KERNELS || na > (uint64_t)nk * CUBIN_CONTAINER_MAX_ARGS)
        return -EINVAL;
    if (!in_range(koff, (uint64_t)nk * CUBIN_CONTAINER_KERNEL_SIZE, total) ||
        !in_range(aoff, (uint64_t)na * CUBIN_CONTAINER_ARG_SIZE, total) ||
        !in_range(soff, ssize, total) || !in_range(coff, csize, total))
        return -EINVAL;
    /* The string table starts with "" and ends with a NUL. */
    if (ssize == 0 || b[soff] != 0 || b[soff + ssize - 1] != 0 || csize == 0)
        return -EINVAL;
    uint32_t opt_ref = rd32(b + H_OPTIONS), cc_ref = rd32(b + H_COMPILER);
    if (!str_ok(opt_ref, ssize, false) || !str_ok(cc_ref, ssize, false))
        return -EINVAL;

    /* Validate every record before allocating anything. */
    for (uint32_t i = 0; i < nk; i++) {
        const uint8_t *k = b + koff + (size_t)i * CUBIN_CONTAINER_KERNEL_SIZE;
        uint32_t first = rd32(k + K_FIRST_ARG), n = rd32(k + K_NUM_ARGS);
        if (!str_ok(rd32(k + K_NAME), ssize, false) || b[soff + rd32(k + K_NAME)] == 0 ||
            !str_ok(rd32(k + K_ATTRIBUTES), ssize, false) || n > CUBIN_CONTAINER_MAX_ARGS ||
            first > na || n > na - first)
            return -EINVAL;
    }
    for (uint32_t i = 0; i < na; i++) {
        const uint8_t *a = b + aoff + (size_t)i * CUBIN_CONTAINER_ARG_SIZE;
        if (a[A_ADDR] > CUBIN_CONTAINER_ADDR_LOCAL || a[A_ACCESS] > CUBIN_CONTAINER_ACCESS_READ_WRITE ||
            !type_qual_ok(rd16(a + A_TYPE_QUAL)) || !str_ok(rd32(a + A_TYPE_NAME), ssize, false) ||
            !str_ok(rd32(a + A_NAME), ssize, true))
            return -EINVAL;
    }

    /* One allocation: struct, kernels, args, strings, cubin (8-aligned). */
    size_t sz_k = (size_t)nk * sizeof(struct cubin_container_kernel);
    size_t sz_a = (size_t)na * sizeof(struct cubin_container_arg);
    size_t off_k = align8(sizeof(struct cubin_container));
    size_t off_a = align8(off_k + sz_k);
    size_t off_s = align8(off_a + sz_a);
    size_t off_c = align8(off_s + ssize);
    uint8_t *mem = malloc(off_c + csize);
    if (!mem)
        return -ENOMEM;
    struct cubin_container *c = (struct cubin_container *)mem;
    struct cubin_container_kernel *ks = (struct cubin_container_kernel *)(mem + off_k);
    struct cubin_container_arg *as = (struct cubin_container_arg *)(mem + off_a);
    char *strs = (char *)(mem + off_s);
    memcpy(strs, b + soff, ssize);
    memcpy(mem + off_c, b + coff, csize);

    *c = (struct cubin_container){
        .version = CUBIN_CONTAINER_VERSION,
        .arch = rd32(b + H_ARCH),
        .options = strs + opt_ref,
        .compiler = strs + cc_ref,
        .cubin = mem + off_c,
        .cubin_size = csize,
        .num_kernels = nk,
        .kernels = ks,
    };
    memcpy(c->source_hash, b + H_SOURCE_HASH, 32);
    for (uint32_t i = 0; i < na; i++) {
        const uint8_t *a = b + aoff + (size_t)i * CUBIN_CONTAINER_ARG_SIZE;
        uint32_t name = rd32(a + A_NAME);
        as[i] = (struct cubin_container_arg){
            .addr = a[A_ADDR],
            .access = a[A_ACCESS],
            .type_qual = rd16(a + A_TYPE_QUAL),
            .type_name = strs + rd32(a + A_TYPE_NAME),
            .name = name == CUBIN_CONTAINER_NO_STRING ? NULL : strs + name,
        };
    }
    for (uint32_t i = 0; i < nk; i++) {
        const uint8_t *k = b + koff + (size_t)i * CUBIN_CONTAINER_KERNEL_SIZE;
        struct cubin_container_kernel *kk = &ks[i];
        kk->name = strs + rd32(k + K_NAME);
        kk->attributes = strs + rd32(k + K_ATTRIBUTES);
        for (int d = 0; d < 3; d++) {
            kk->reqd_work_group_size[d] = rd32(k + K_REQD + 4 * d);
            kk->work_group_size_hint[d] = rd32(k + K_HINT + 4 * d);
        }
        kk->num_args = rd32(k + K_NUM_ARGS);
        kk->flags = rd32(k + K_FLAGS); /* bits this reader does not know: ignored */
        kk->args = kk->num_args ? &as[rd32(k + K_FIRST_ARG)] : NULL;
    }
    *out = c;
    return 0;
}

void cubin_container_free(struct cubin_container *c) { free(c); }

const struct cubin_container_kernel *cubin_container_kernel(const struct cubin_container *c,
                                                            const char *name)
{
    for (uint32_t i = 0; c && name && i < c->num_kernels; i++)
        if (strcmp(c->kernels[i].name, name) == 0)
            return &c->kernels[i];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

struct strtab {
    char *buf;
    size_t len, cap;
    bool failed;
};

static uint32_t strtab_add(struct strtab *t, const char *s)
{
    if (!s)
        return CUBIN_CONTAINER_NO_STRING;
    if (!*s)
        return 0;
    size_t n = strlen(s) + 1;
    if (t->failed || n > UINT32_MAX - t->len) {
        t->failed = true;
        return 0;
    }
    if (t->len + n > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n)
            cap *= 2;
        char *nb = realloc(t->buf, cap);
        if (!nb) {
            t->failed = true;
            return 0;
        }
        t->buf = nb;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    uint32_t off = (uint32_t)t->len;
    t->len += n;
    return off;
}

int cubin_container_write(const struct cubin_container *c, void **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    if (!c || !c->cubin || !c->cubin_size || !c->options || !c->compiler ||
        c->num_kernels > CUBIN_CONTAINER_MAX_KERNELS || (c->num_kernels && !c->kernels))
        return -EINVAL;
    uint64_t na = 0;
    for (uint32_t i = 0; i < c->num_kernels; i++) {
        const struct cubin_container_kernel *k = &c->kernels[i];
        if (!k->name || !*k->name || !k->attributes || k->num_args > CUBIN_CONTAINER_MAX_ARGS ||
            (k->num_args && !k->args))
            return -EINVAL;
        for (uint32_t j = 0; j < k->num_args; j++)
            if (!k->args[j].type_name || k->args[j].addr > CUBIN_CONTAINER_ADDR_LOCAL ||
                k->args[j].access > CUBIN_CONTAINER_ACCESS_READ_WRITE ||
                !type_qual_ok(k->args[j].type_qual))
                return -EINVAL;
        na += k->num_args;
    }

    /* Offset 0 is the empty string. */
    struct strtab st = { .buf = calloc(1, 256), .len = 1, .cap = 256 };
    if (!st.buf)
        return -ENOMEM;
    uint32_t opt_ref = strtab_add(&st, c->options);
    uint32_t cc_ref = strtab_add(&st, c->compiler);

    uint64_t koff = CUBIN_CONTAINER_HEADER_SIZE;
    uint64_t aoff = koff + (uint64_t)c->num_kernels * CUBIN_CONTAINER_KERNEL_SIZE;
    uint64_t soff = aoff + na * CUBIN_CONTAINER_ARG_SIZE;
    /* Records are written after the strings are known, into a scratch
     * area sized now. */
    uint8_t *recs = calloc(1, (size_t)(soff - koff) + 1);
    if (!recs) {
        free(st.buf);
        return -ENOMEM;
    }
    uint32_t next_arg = 0;
    for (uint32_t i = 0; i < c->num_kernels; i++) {
        const struct cubin_container_kernel *k = &c->kernels[i];
        uint8_t *kr = recs + (size_t)i * CUBIN_CONTAINER_KERNEL_SIZE;
        wr32(kr + K_NAME, strtab_add(&st, k->name));
        for (int d = 0; d < 3; d++) {
            wr32(kr + K_REQD + 4 * d, k->reqd_work_group_size[d]);
            wr32(kr + K_HINT + 4 * d, k->work_group_size_hint[d]);
        }
        wr32(kr + K_ATTRIBUTES, strtab_add(&st, k->attributes));
        wr32(kr + K_FLAGS, k->flags);
        wr32(kr + K_FIRST_ARG, next_arg);
        wr32(kr + K_NUM_ARGS, k->num_args);
        for (uint32_t j = 0; j < k->num_args; j++, next_arg++) {
            const struct cubin_container_arg *a = &k->args[j];
            uint8_t *ar = recs + (aoff - koff) + (size_t)next_arg * CUBIN_CONTAINER_ARG_SIZE;
            ar[A_ADDR] = a->addr;
            ar[A_ACCESS] = a->access;
            wr16(ar + A_TYPE_QUAL, a->type_qual);
            wr32(ar + A_TYPE_NAME, strtab_add(&st, a->type_name));
            wr32(ar + A_NAME, strtab_add(&st, a->name));
        }
    }
    uint64_t coff = align8(soff + st.len);
    uint64_t total = coff + c->cubin_size;
    if (st.failed || total > UINT32_MAX) {
        free(recs);
        free(st.buf);
        return st.failed ? -ENOMEM : -EINVAL;
    }
    uint8_t *o = calloc(1, (size_t)total);
    if (!o) {
        free(recs);
        free(st.buf);
        return -ENOMEM;
    }
    memcpy(o + H_MAGIC, CUBIN_CONTAINER_MAGIC, 8);
    wr32(o + H_VERSION, CUBIN_CONTAINER_VERSION);
    wr32(o + H_HEADER_SIZE, CUBIN_CONTAINER_HEADER_SIZE);
    wr32(o + H_ARCH, c->arch);
    wr32(o + H_TOTAL_SIZE, (uint32_t)total);
    wr32(o + H_NUM_KERNELS, c->num_kernels);
    wr32(o + H_KERNELS_OFF, (uint32_t)koff);
    wr32(o + H_NUM_ARGS, (uint32_t)na);
    wr32(o + H_ARGS_OFF, (uint32_t)aoff);
    wr32(o + H_STRTAB_OFF, (uint32_t)soff);
    wr32(o + H_STRTAB_SIZE, (uint32_t)st.len);
    wr32(o + H_CUBIN_OFF, (uint32_t)coff);
    wr32(o + H_CUBIN_SIZE, (uint32_t)c->cubin_size);
    wr32(o + H_OPTIONS, opt_ref);
    wr32(o + H_COMPILER, cc_ref);
    memcpy(o + H_SOURCE_HASH, c->source_hash, 32);
    memcpy(o + koff, recs, (size_t)(soff - koff));
    memcpy(o + soff, st.buf, st.len);
    memcpy(o + coff, c->cubin, c->cubin_size);
    free(recs);
    free(st.buf);
    *out = o;
    *size = (size_t)total;
    return 0;
}

/* ------------------------------------------------------------------ */
/* SHA-256 (FIPS 180-4)                                                 */
/* ------------------------------------------------------------------ */

struct sha256 {
    uint32_t h[8];
    uint8_t block[64];
    size_t fill;
    uint64_t bytes;
};

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static void sha256_block(struct sha256 *s, const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
               p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
    s->h[5] += f;
    s->h[6] += g;
    s->h[7] += h;
}

static void sha256_init(struct sha256 *s)
{
    static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(s->h, iv, sizeof(iv));
    s->fill = 0;
    s->bytes = 0;
}

static void sha256_update(struct sha256 *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    s->bytes += len;
    while (len) {
        size_t n = MIN_SZ(64 - s->fill, len);
        memcpy(s->block + s->fill, p, n);
        s->fill += n;
        p += n;
        len -= n;
        if (s->fill == 64) {
            sha256_block(s, s->block);
            s->fill = 0;
        }
    }
}

static void sha256_final(struct sha256 *s, uint8_t digest[32])
{
    uint64_t bits = s->bytes * 8;
    uint8_t pad = 0x80;
    sha256_update(s, &pad, 1);
    pad = 0;
    while (s->fill != 56)
        sha256_update(s, &pad, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(s->h[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        digest[4 * i + 3] = (uint8_t)s->h[i];
    }
}

void cubin_container_sha256(const void *data, size_t len, uint8_t digest[32])
{
    struct sha256 s;
    sha256_init(&s);
    sha256_update(&s, data, len);
    sha256_final(&s, digest);
}

char *cubin_container_normalize_options(const char *options)
{
    const char *p = options ? options : "";
    char *o = malloc(strlen(p) + 1), *w = o;
    if (!o)
        return NULL;
    bool space = false;
    char quote = 0;
    for (; *p; p++) {
        bool ws = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v';
        /* White space inside quotes is part of an argument: keep it. */
        if (quote) {
            if (*p == quote)
                quote = 0;
            *w++ = *p;
            continue;
        }
        if (*p == '"' || *p == '\'')
            quote = *p;
        if (ws) {
            space = w != o;
            continue;
        }
        if (space)
            *w++ = ' ';
        space = false;
        *w++ = *p;
    }
    *w = 0;
    return o;
}

void cubin_container_cache_key(const char *src, size_t len, const char *options,
                               uint32_t arch, const char *compiler_version, char key[65])
{
    struct sha256 s;
    uint8_t d[32], le[4];
    char *norm = cubin_container_normalize_options(options);
    sha256_init(&s);
    /* Each field is NUL-terminated or length-prefixed so that no two
     * different inputs concatenate to the same byte stream. */
    sha256_update(&s, "hcqcl-cache", 12);
    wr32(le, CUBIN_CONTAINER_VERSION);
    sha256_update(&s, le, 4);
    const char *cv = compiler_version ? compiler_version : "";
    sha256_update(&s, cv, strlen(cv) + 1);
    wr32(le, arch);
    sha256_update(&s, le, 4);
    /* On allocation failure the raw options are hashed: the key is then
     * merely a miss for differently spaced options, never wrong. */
    const char *opt = norm ? norm : (options ? options : "");
    sha256_update(&s, opt, strlen(opt) + 1);
    uint8_t l8[8];
    for (int i = 0; i < 8; i++)
        l8[i] = (uint8_t)((uint64_t)len >> (8 * i));
    sha256_update(&s, l8, 8);
    sha256_update(&s, src, len);
    sha256_final(&s, d);
    free(norm);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        key[2 * i] = hex[d[i] >> 4];
        key[2 * i + 1] = hex[d[i] & 15];
    }
    key[64] = 0;
}

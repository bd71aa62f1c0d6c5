/*
 * container_test.c — the program container: round trip, SHA-256 vectors,
 * cache-key rules, and hostile input (every truncation, every single-byte
 * corruption, targeted out-of-range fields) under the sanitizers.
 */
#include "cubin/container.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);           \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

static const uint8_t fake_cubin[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0x41, 8, 0, 0, 0, 0xaa, 0x55 };

static void build(struct cubin_container *c, struct cubin_container_kernel k[2],
                  struct cubin_container_arg a[4])
{
    a[0] = (struct cubin_container_arg){ CUBIN_CONTAINER_ADDR_GLOBAL, 0, CUBIN_CONTAINER_TYPE_CONST,
                                         "float*", "in" };
    a[1] = (struct cubin_container_arg){ CUBIN_CONTAINER_ADDR_LOCAL, 0, 0, "float*", "scratch" };
    a[2] = (struct cubin_container_arg){ CUBIN_CONTAINER_ADDR_PRIVATE, 0, 0, "uint", NULL };
    a[3] = (struct cubin_container_arg){ CUBIN_CONTAINER_ADDR_CONSTANT, 0,
                                         CUBIN_CONTAINER_TYPE_CONST | CUBIN_CONTAINER_TYPE_RESTRICT,
                                         "float4*", NULL };
    k[0] = (struct cubin_container_kernel){ .name = "reduce",
                                            .reqd_work_group_size = { 64, 1, 1 },
                                            .attributes = "reqd_work_group_size(64,1,1)",
                                            .num_args = 3,
                                            .args = a };
    k[1] = (struct cubin_container_kernel){ .name = "noargs_then_one",
                                            .work_group_size_hint = { 8, 8, 1 },
                                            .attributes = "",
                                            .num_args = 1,
                                            .args = a + 3,
                                            .flags = CUBIN_CONTAINER_KERNEL_PRINTF };
    *c = (struct cubin_container){ .version = CUBIN_CONTAINER_VERSION,
                                   .arch = 0x900,
                                   .options = "-cl-std=CL1.2 -DN=4",
                                   .compiler = "hcqcl-cc test",
                                   .cubin = fake_cubin,
                                   .cubin_size = sizeof(fake_cubin),
                                   .num_kernels = 2,
                                   .kernels = k };
    for (int i = 0; i < 32; i++)
        c->source_hash[i] = (uint8_t)(i * 7);
}

static void test_round_trip(void **blob, size_t *size)
{
    struct cubin_container c, *p = NULL;
    struct cubin_container_kernel k[2];
    struct cubin_container_arg a[4];
    build(&c, k, a);
    EXPECT(cubin_container_write(&c, blob, size) == 0);
    EXPECT(cubin_container_is(*blob, *size));
    EXPECT(cubin_container_parse(*blob, *size, &p) == 0);
    if (!p)
        return;
    EXPECT(p->version == CUBIN_CONTAINER_VERSION && p->arch == 0x900);
    EXPECT(strcmp(p->options, c.options) == 0 && strcmp(p->compiler, c.compiler) == 0);
    EXPECT(memcmp(p->source_hash, c.source_hash, 32) == 0);
    EXPECT(p->cubin_size == sizeof(fake_cubin) && memcmp(p->cubin, fake_cubin, sizeof(fake_cubin)) == 0);
    EXPECT(((uintptr_t)p->cubin & 7) == 0);
    EXPECT(p->num_kernels == 2);
    const struct cubin_container_kernel *r = cubin_container_kernel(p, "reduce");
    EXPECT(r && r->num_args == 3 && r->reqd_work_group_size[0] == 64 && r->reqd_work_group_size[2] == 1);
    EXPECT(r && strcmp(r->attributes, "reqd_work_group_size(64,1,1)") == 0);
    EXPECT(r && r->args[0].addr == CUBIN_CONTAINER_ADDR_GLOBAL && strcmp(r->args[0].name, "in") == 0 &&
           r->args[0].type_qual == CUBIN_CONTAINER_TYPE_CONST && strcmp(r->args[0].type_name, "float*") == 0);
    EXPECT(r && r->args[1].addr == CUBIN_CONTAINER_ADDR_LOCAL && strcmp(r->args[1].name, "scratch") == 0);
    EXPECT(r && r->args[2].name == NULL && strcmp(r->args[2].type_name, "uint") == 0);
    const struct cubin_container_kernel *n = cubin_container_kernel(p, "noargs_then_one");
    EXPECT(r && r->flags == 0 && n && n->flags == CUBIN_CONTAINER_KERNEL_PRINTF);
    EXPECT(n && n->num_args == 1 && n->work_group_size_hint[1] == 8 && n->reqd_work_group_size[0] == 0);
    EXPECT(n && n->args[0].addr == CUBIN_CONTAINER_ADDR_CONSTANT && n->args[0].type_qual == 3);
    EXPECT(cubin_container_kernel(p, "missing") == NULL);

    /* Writing the parsed object gives the same bytes. */
    void *again = NULL;
    size_t again_size = 0;
    EXPECT(cubin_container_write(p, &again, &again_size) == 0);
    EXPECT(again_size == *size && memcmp(again, *blob, *size) == 0);
    free(again);
    cubin_container_free(p);

    /* Writer refuses what it cannot represent. */
    k[0].name = NULL;
    EXPECT(cubin_container_write(&c, &again, &again_size) == -EINVAL);
    k[0].name = "reduce";
    a[0].addr = 9;
    EXPECT(cubin_container_write(&c, &again, &again_size) == -EINVAL);
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Parsing may succeed or fail, but a success must only hold in-range
 * pointers: touch every string and the cubin (ASan checks the rest). */
static size_t touch(const struct cubin_container *p)
{
    size_t sum = strlen(p->options) + strlen(p->compiler);
    const uint8_t *cb = p->cubin;
    for (size_t i = 0; i < p->cubin_size; i++)
        sum += cb[i];
    for (uint32_t i = 0; i < p->num_kernels; i++) {
        sum += strlen(p->kernels[i].name) + strlen(p->kernels[i].attributes);
        for (uint32_t j = 0; j < p->kernels[i].num_args; j++)
            sum += strlen(p->kernels[i].args[j].type_name) +
                   (p->kernels[i].args[j].name ? strlen(p->kernels[i].args[j].name) : 0);
    }
    return sum;
}

static void test_corruption(const uint8_t *blob, size_t size)
{
    uint8_t *b = malloc(size);
    struct cubin_container *p;
    size_t accepted = 0;

    /* Every truncation is rejected (total_size no longer fits). */
    for (size_t n = 0; n < size; n++) {
        uint8_t *t = malloc(n ? n : 1);
        memcpy(t, blob, n);
        p = (struct cubin_container *)1;
        EXPECT(cubin_container_parse(t, n, &p) == -EINVAL && p == NULL);
        free(t);
    }
    /* Every single byte set to a few hostile values. */
    static const uint8_t vals[] = { 0x00, 0xff, 0x7f, 0x80, 0x01 };
    for (size_t i = 0; i < size; i++) {
        for (size_t v = 0; v < sizeof(vals); v++) {
            memcpy(b, blob, size);
            if (b[i] == vals[v])
                continue;
            b[i] = vals[v];
            if (cubin_container_parse(b, size, &p) == 0) {
                accepted += touch(p) ? 1 : 1;
                cubin_container_free(p);
            }
        }
    }
    /* Targeted fields. */
    struct {
        size_t off;
        uint32_t val;
    } cases[] = {
        { 8, 2 },            /* version */
        { 12, 64 },          /* header size */
        { 20, 0x7fffffff },  /* total size beyond the buffer */
        { 24, 0xffffffff },  /* kernel count */
        { 28, 0xfffffff0 },  /* kernels offset */
        { 32, 0x7fffffff },  /* argument count */
        { 44, 0 },           /* empty string table */
        { 48, 0xfffffffc },  /* cubin offset */
        { 52, 0 },           /* empty cubin */
        { 56, 0x10000 },     /* options string out of the table */
        { 60, 0xffffffff },  /* compiler string "unknown": not allowed */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memcpy(b, blob, size);
        put32(b + cases[i].off, cases[i].val);
        EXPECT(cubin_container_parse(b, size, &p) == -EINVAL);
    }
    /* Kernel 0's argument range running past the argument array. */
    uint32_t koff = get32(blob + 28), strtab = get32(blob + 40), ssize = get32(blob + 44);
    memcpy(b, blob, size);
    put32(b + koff + 32, 2);
    put32(b + koff + 36, 0xffffffff);
    EXPECT(cubin_container_parse(b, size, &p) == -EINVAL);
    memcpy(b, blob, size);
    put32(b + koff + 32, 0xfffffffe);
    put32(b + koff + 36, 3);
    EXPECT(cubin_container_parse(b, size, &p) == -EINVAL);
    /* String table whose last byte is not NUL. */
    memcpy(b, blob, size);
    b[strtab + ssize - 1] = 'x';
    EXPECT(cubin_container_parse(b, size, &p) == -EINVAL);
    /* Bad magic. */
    memcpy(b, blob, size);
    b[0] = 'X';
    EXPECT(!cubin_container_is(b, size) && cubin_container_parse(b, size, &p) == -EINVAL);
    printf("corruption: %zu single-byte variants still parsed (all in bounds)\n", accepted);
    free(b);
}

static void test_hashes(void)
{
    uint8_t d[32];
    static const uint8_t abc[32] = { 0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
                                     0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
                                     0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad };
    cubin_container_sha256("abc", 3, d);
    EXPECT(memcmp(d, abc, 32) == 0);
    /* Two-block message (FIPS 180-4 example). */
    static const uint8_t two[32] = { 0x24, 0x8d, 0x6a, 0x61, 0xd2, 0x06, 0x38, 0xb8, 0xe5, 0xc0, 0x26,
                                     0x93, 0x0c, 0x3e, 0x60, 0x39, 0xa3, 0x3c, 0xe4, 0x59, 0x64, 0xff,
                                     0x21, 0x67, 0xf6, 0xec, 0xed, 0xd4, 0x19, 0xdb, 0x06, 0xc1 };
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    cubin_container_sha256(m, strlen(m), d);
    EXPECT(memcmp(d, two, 32) == 0);

    char k1[65], k2[65], k3[65], k4[65], k5[65];
    const char *src = "kernel void k(global int *a) { a[0] = 1; }";
    cubin_container_cache_key(src, strlen(src), "-DA=1  -cl-mad-enable", 0x900, "v1", k1);
    cubin_container_cache_key(src, strlen(src), " -DA=1 -cl-mad-enable\t", 0x900, "v1", k2);
    cubin_container_cache_key(src, strlen(src), "-DA=1 -cl-mad-enable", 0x800, "v1", k3);
    cubin_container_cache_key(src, strlen(src), "-DA=1 -cl-mad-enable", 0x900, "v2", k4);
    cubin_container_cache_key(src, strlen(src) - 1, "-DA=1 -cl-mad-enable", 0x900, "v1", k5);
    EXPECT(strlen(k1) == 64 && strcmp(k1, k2) == 0);
    EXPECT(strcmp(k1, k3) != 0 && strcmp(k1, k4) != 0 && strcmp(k1, k5) != 0);
    char *n = cubin_container_normalize_options("  -D X  \n -I 'a  b' ");
    EXPECT(n && strcmp(n, "-D X -I 'a  b'") == 0);
    free(n);
}

int main(void)
{
    void *blob = NULL;
    size_t size = 0;
    test_round_trip(&blob, &size);
    if (blob)
        test_corruption(blob, size);
    free(blob);
    test_hashes();
    if (failures) {
        fprintf(stderr, "container_test: %d failure(s)\n", failures);
        return 1;
    }
    printf("container_test: ok\n");
    return 0;
}

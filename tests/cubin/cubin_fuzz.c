/*
 * cubin_fuzz.c — hostile input for the cubin parser under ASan/UBSan:
 * every truncation of a real cubin must be rejected with a log line;
 * every single-byte corruption and a few thousand random multi-byte
 * corruptions must either parse into something self-consistent or fail
 * cleanly (no crash, no leak, no out-of-bounds access). The same for the
 * fatbin lookup.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubin/cubin.h"
#include "check.h"


#define CUBIN_MUST(cond) EXPECT(cond)
#include "consistency.h"

static int parse_one(const uint8_t *buf, size_t size)
{
    struct cubin *cb = NULL;
    char log[200] = "";
    int rc = cubin_parse(buf, size, &cb, log, sizeof(log));
    if (rc == 0) {
        EXPECT(cb != NULL);
        if (cb)
            cubin_check_consistent(cb);
    } else {
        EXPECT(cb == NULL && rc == -EINVAL && log[0] != '\0');
    }
    cubin_free(cb);
    return rc;
}

int main(void)
{
    size_t size;
    uint8_t *file = test_data_load("test_kernels.cubin", &size);
    EXPECT(parse_one(file, size) == 0);

    /* Every truncation: the program header table ends the file, so every
     * shorter prefix is malformed. Heap copies of exactly that length let
     * ASan catch any read past the end. */
    unsigned truncated_ok = 0;
    for (size_t n = 0; n < size; n++) {
        uint8_t *t = malloc(n ? n : 1);
        memcpy(t, file, n);
        if (parse_one(t, n) == 0)
            truncated_ok++;
        free(t);
    }
    EXPECT(truncated_ok == 0);

    /* Every single byte inverted. */
    uint8_t *m = malloc(size);
    unsigned flip_ok = 0;
    for (size_t i = 0; i < size; i++) {
        memcpy(m, file, size);
        m[i] ^= 0xFF;
        flip_ok += parse_one(m, size) == 0;
    }
    /* Random corruptions of 1-8 bytes (fixed seed: reproducible). */
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int it = 0; it < 4000; it++) {
        memcpy(m, file, size);
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int nb = 1 + (int)(s % 8);
        for (int j = 0; j < nb; j++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            m[(s >> 8) % size] = (uint8_t)s;
        }
        parse_one(m, size);
    }
    free(m);

    /* Fatbin wrapper: every truncation and every byte flip of the header
     * and entry header. */
    size_t fsz = 16 + 64 + size;
    uint8_t *fb = calloc(1, fsz);
    uint32_t magic = 0xBA55ED50u, hs64 = 64, arch = 90;
    uint16_t ver = 1, hs = 16, kind = 2;
    uint64_t body = 64 + size, psz = size;
    memcpy(fb, &magic, 4);
    memcpy(fb + 4, &ver, 2);
    memcpy(fb + 6, &hs, 2);
    memcpy(fb + 8, &body, 8);
    memcpy(fb + 16, &kind, 2);
    memcpy(fb + 20, &hs64, 4);
    memcpy(fb + 24, &psz, 8);
    memcpy(fb + 44, &arch, 4);
    memcpy(fb + 80, file, size);
    for (size_t n = 0; n <= 16 + 64 + 64; n++) {
        uint8_t *t = malloc(n ? n : 1);
        memcpy(t, fb, n);
        const void *c;
        size_t cs;
        char log[200];
        int rc = cubin_from_fatbin(t, n, 90, &c, &cs, log, sizeof(log));
        EXPECT(rc != 0);
        free(t);
    }
    for (size_t i = 0; i < 80; i++) {
        for (int bit = 0; bit < 8; bit++) {
            uint8_t *t = malloc(fsz);
            memcpy(t, fb, fsz);
            t[i] ^= (uint8_t)(1u << bit);
            const void *c = NULL;
            size_t cs = 0;
            char log[200];
            if (cubin_from_fatbin(t, fsz, 90, &c, &cs, log, sizeof(log)) == 0)
                EXPECT((const uint8_t *)c >= t && cs <= fsz - (size_t)((const uint8_t *)c - t));
            free(t);
        }
    }
    free(fb);
    free(file);
    printf("cubin_fuzz: %zu truncations rejected, %u of %zu byte flips still parse\n", size,
           flip_ok, size);
    return check_done("cubin_fuzz");
}

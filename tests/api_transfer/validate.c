/*
 * validate.c — white-box tests of the transfer validators: ranges, fill
 * patterns, host-access and map flags, rectangle pitch rules and the
 * copy-overlap rule (checked against a byte-exact oracle).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"
#include "check.h"


static void test_range(void)
{
    EXPECT(hcqcl_xfer_check_range(0, 16, 16) == CL_SUCCESS);
    EXPECT(hcqcl_xfer_check_range(16, 0, 16) == CL_SUCCESS);
    EXPECT(hcqcl_xfer_check_range(17, 0, 16) == CL_INVALID_VALUE);
    EXPECT(hcqcl_xfer_check_range(1, 16, 16) == CL_INVALID_VALUE);
    EXPECT(hcqcl_xfer_check_range(0, 17, 16) == CL_INVALID_VALUE);
    /* offset + size wraps around: must still be rejected */
    EXPECT(hcqcl_xfer_check_range(SIZE_MAX, 2, 16) == CL_INVALID_VALUE);
    EXPECT(hcqcl_xfer_check_range(8, SIZE_MAX - 4, 16) == CL_INVALID_VALUE);
}

static void test_fill(void)
{
    char pat[256] = {0};
    for (size_t ps = 1; ps <= 128; ps <<= 1) {
        EXPECT(hcqcl_xfer_check_fill(pat, ps, ps, 4 * ps, 8 * ps) == CL_SUCCESS);
        EXPECT(hcqcl_xfer_check_fill(pat, ps, 0, 8 * ps, 8 * ps) == CL_SUCCESS);
        EXPECT(hcqcl_xfer_check_fill(pat, ps, 0, 9 * ps, 8 * ps) == CL_INVALID_VALUE);
        if (ps > 1) {
            EXPECT(hcqcl_xfer_check_fill(pat, ps, 1, ps, 8 * ps) == CL_INVALID_VALUE);
            EXPECT(hcqcl_xfer_check_fill(pat, ps, 0, ps + 1, 8 * ps) == CL_INVALID_VALUE);
        }
    }
    EXPECT(hcqcl_xfer_check_fill(NULL, 4, 0, 4, 16) == CL_INVALID_VALUE);
    EXPECT(hcqcl_xfer_check_fill(pat, 0, 0, 4, 16) == CL_INVALID_VALUE);
    EXPECT(hcqcl_xfer_check_fill(pat, 3, 0, 3, 16) == CL_INVALID_VALUE);
    EXPECT(hcqcl_xfer_check_fill(pat, 256, 0, 256, 1024) == CL_INVALID_VALUE);
}

static void test_flags(void)
{
    EXPECT(hcqcl_xfer_check_host_access(0, true, true) == CL_SUCCESS);
    EXPECT(hcqcl_xfer_check_host_access(CL_MEM_HOST_READ_ONLY, true, false) == CL_SUCCESS);
    EXPECT(hcqcl_xfer_check_host_access(CL_MEM_HOST_READ_ONLY, false, true) == CL_INVALID_OPERATION);
    EXPECT(hcqcl_xfer_check_host_access(CL_MEM_HOST_WRITE_ONLY, false, true) == CL_SUCCESS);
    EXPECT(hcqcl_xfer_check_host_access(CL_MEM_HOST_WRITE_ONLY, true, false) == CL_INVALID_OPERATION);
    EXPECT(hcqcl_xfer_check_host_access(CL_MEM_HOST_NO_ACCESS, true, false) == CL_INVALID_OPERATION);
    EXPECT(hcqcl_xfer_check_host_access(CL_MEM_HOST_NO_ACCESS, false, true) == CL_INVALID_OPERATION);
    EXPECT(hcqcl_xfer_check_host_access(CL_MEM_HOST_NO_ACCESS, false, false) == CL_SUCCESS);

    EXPECT(hcqcl_xfer_check_map_flags(0) == CL_SUCCESS);
    EXPECT(hcqcl_xfer_check_map_flags(CL_MAP_READ | CL_MAP_WRITE) == CL_SUCCESS);
    EXPECT(hcqcl_xfer_check_map_flags(CL_MAP_WRITE_INVALIDATE_REGION) == CL_SUCCESS);
    EXPECT(hcqcl_xfer_check_map_flags(CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ) ==
           CL_INVALID_VALUE);
    EXPECT(hcqcl_xfer_check_map_flags(CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_WRITE) ==
           CL_INVALID_VALUE);
    EXPECT(hcqcl_xfer_check_map_flags(1u << 5) == CL_INVALID_VALUE);
}

static void test_rect_resolve(void)
{
    struct hcqcl_rect r;
    const size_t o0[3] = {0, 0, 0}, o[3] = {3, 2, 1};
    const size_t reg[3] = {10, 4, 2};

    EXPECT(hcqcl_rect_resolve(o0, reg, 0, 0, &r) == CL_SUCCESS);
    EXPECT(r.row_pitch == 10 && r.slice_pitch == 40 && r.offset == 0 && r.span == 80);
    EXPECT(hcqcl_rect_resolve(o, reg, 16, 0, &r) == CL_SUCCESS);
    EXPECT(r.row_pitch == 16 && r.slice_pitch == 64);
    EXPECT(r.offset == 1 * 64 + 2 * 16 + 3);
    EXPECT(r.span == 64 + 3 * 16 + 10);
    EXPECT(hcqcl_rect_check_bounds(&r, r.offset + r.span) == CL_SUCCESS);
    EXPECT(hcqcl_rect_check_bounds(&r, r.offset + r.span - 1) == CL_INVALID_VALUE);

    EXPECT(hcqcl_rect_resolve(NULL, reg, 0, 0, &r) == CL_INVALID_VALUE);
    EXPECT(hcqcl_rect_resolve(o, NULL, 0, 0, &r) == CL_INVALID_VALUE);
    const size_t z0[3] = {0, 4, 2}, z1[3] = {10, 0, 2}, z2[3] = {10, 4, 0};
    EXPECT(hcqcl_rect_resolve(o, z0, 0, 0, &r) == CL_INVALID_VALUE);
    EXPECT(hcqcl_rect_resolve(o, z1, 0, 0, &r) == CL_INVALID_VALUE);
    EXPECT(hcqcl_rect_resolve(o, z2, 0, 0, &r) == CL_INVALID_VALUE);
    /* row pitch below width; slice pitch below height x row; not a multiple */
    EXPECT(hcqcl_rect_resolve(o, reg, 9, 0, &r) == CL_INVALID_VALUE);
    EXPECT(hcqcl_rect_resolve(o, reg, 16, 63, &r) == CL_INVALID_VALUE);
    EXPECT(hcqcl_rect_resolve(o, reg, 16, 72, &r) == CL_INVALID_VALUE);
    EXPECT(hcqcl_rect_resolve(o, reg, 16, 80, &r) == CL_SUCCESS);
    /* slice pitch checked against the defaulted row pitch (= width) */
    EXPECT(hcqcl_rect_resolve(o, reg, 0, 39, &r) == CL_INVALID_VALUE);
    EXPECT(hcqcl_rect_resolve(o, reg, 0, 45, &r) == CL_INVALID_VALUE);
    EXPECT(hcqcl_rect_resolve(o, reg, 0, 50, &r) == CL_SUCCESS);
    /* geometry that overflows size_t */
    const size_t huge[3] = {SIZE_MAX / 2, 4, 1};
    EXPECT(hcqcl_rect_resolve(o0, huge, 0, 0, &r) == CL_INVALID_VALUE);
    const size_t far[3] = {0, 0, SIZE_MAX / 8};
    EXPECT(hcqcl_rect_resolve(far, reg, 0, 0, &r) == CL_INVALID_VALUE);
}

/* Byte-exact oracle: does any byte belong to both rectangles? */
static bool exact_overlap(size_t s, size_t d, const struct hcqcl_rect *sh, unsigned char *map,
                          size_t total)
{
    memset(map, 0, total);
    for (size_t z = 0; z < sh->region[2]; z++)
        for (size_t y = 0; y < sh->region[1]; y++)
            memset(map + s + z * sh->slice_pitch + y * sh->row_pitch, 1, sh->region[0]);
    for (size_t z = 0; z < sh->region[2]; z++)
        for (size_t y = 0; y < sh->region[1]; y++)
            for (size_t x = 0; x < sh->region[0]; x++)
                if (map[d + z * sh->slice_pitch + y * sh->row_pitch + x])
                    return true;
    return false;
}

static void test_rect_overlap(void)
{
    const size_t total = 4096;
    unsigned char *map = malloc(total);
    const size_t o0[3] = {0, 0, 0};
    struct hcqcl_rect sh;
    unsigned long cases = 0, exact_hits = 0, rule_hits = 0;

    /* Known cases: side-by-side columns in one row pitch never overlap. */
    const size_t reg[3] = {8, 4, 1};
    EXPECT(hcqcl_rect_resolve(o0, reg, 32, 0, &sh) == CL_SUCCESS);
    EXPECT(!hcqcl_rect_overlap(0, 8, &sh));
    EXPECT(!hcqcl_rect_overlap(16, 0, &sh));
    EXPECT(hcqcl_rect_overlap(0, 4, &sh));
    EXPECT(hcqcl_rect_overlap(0, 32, &sh)); /* one row down: rows 1..3 shared */
    EXPECT(!hcqcl_rect_overlap(0, 128, &sh));

    /* Random shapes: the rule may be conservative but never misses one. */
    srand(1234);
    for (int i = 0; i < 20000; i++) {
        size_t region[3] = {1 + rand() % 12, 1 + rand() % 5, 1 + rand() % 4};
        size_t rp = region[0] + rand() % 8;
        size_t sp = rp * (region[1] + rand() % 3);
        if (hcqcl_rect_resolve(o0, region, rp, sp, &sh) != CL_SUCCESS) {
            EXPECT(0);
            continue;
        }
        size_t room = total - sh.span;
        size_t s = rand() % (room < 600 ? room : 600), d = rand() % (room < 600 ? room : 600);
        bool ex = exact_overlap(s, d, &sh, map, total);
        bool rule = hcqcl_rect_overlap(s, d, &sh);
        cases++;
        exact_hits += ex;
        rule_hits += rule;
        if (ex && !rule) {
            fprintf(stderr, "missed overlap: s=%zu d=%zu region {%zu,%zu,%zu} rp %zu sp %zu\n", s,
                    d, region[0], region[1], region[2], rp, sp);
            failures++;
        }
        EXPECT(hcqcl_rect_overlap(s, d, &sh) == hcqcl_rect_overlap(d, s, &sh));
    }
    printf("rect overlap: %lu cases, %lu overlapping, rule reported %lu\n", cases, exact_hits,
           rule_hits);
    EXPECT(exact_hits > 0 && exact_hits < cases);
    free(map);
}

static void test_ranges_overlap(void)
{
    EXPECT(!hcqcl_xfer_ranges_overlap(0, 16, 16));
    EXPECT(hcqcl_xfer_ranges_overlap(0, 15, 16));
    EXPECT(hcqcl_xfer_ranges_overlap(15, 0, 16));
    EXPECT(!hcqcl_xfer_ranges_overlap(5, 5, 0));
    EXPECT(hcqcl_xfer_ranges_overlap(5, 5, 1));
}

int main(void)
{
    test_range();
    test_fill();
    test_flags();
    test_rect_resolve();
    test_rect_overlap();
    test_ranges_overlap();
    return check_done("api_transfer_validate");
}

/*
 * nv_test.c — src/nv encodings against the values verified on the H200
 * (nv-hopper-facts §5-§7): method headers, GP entries, semaphore and
 * LAUNCH_DMA words, QMD field positions and set/get round trips for every
 * field of every version, address helpers, carve-outs, local-memory sizing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nv/nv.h"
#include "check.h"


static void test_headers(void)
{
    /* tinygrad's nvm(): (2 << 28) | (count << 16) | (subc << 13) | (mthd >> 2) */
    EXPECT_EQ(nv_mthd_incr(1, NVCBC0_SEND_PCAS_A, 1), (2u << 28) | (1u << 16) | (1u << 13) | (0x2B4 >> 2));
    EXPECT_EQ(nv_mthd_incr(0, NVC86F_SEM_ADDR_LO, 5), 0x2005 << 16 | 0x5C >> 2);
    EXPECT_EQ(nv_mthd_non_incr(4, NVC8B5_LAUNCH_DMA, 3) >> 29, 3);
    EXPECT_EQ(nv_mthd_one_inc(4, NVC8B5_LAUNCH_DMA, 3) >> 29, 5);
    uint32_t immd = nv_mthd_immd(1, NVCBC0_SEND_SIGNALING_PCAS2_B, 9);
    struct nv_mthd_hdr d = nv_mthd_decode(immd);
    EXPECT_EQ(d.op, NVC86F_DMA_SEC_OP_IMMD_DATA_METHOD);
    EXPECT_EQ(d.subc, 1);
    EXPECT_EQ(d.method, NVCBC0_SEND_SIGNALING_PCAS2_B);
    EXPECT_EQ(d.count, 9);
    d = nv_mthd_decode(nv_mthd_incr(7, NV_DMA_METHOD_MAX, NV_DMA_COUNT_MAX));
    EXPECT_EQ(d.subc, 7);
    EXPECT_EQ(d.method, NV_DMA_METHOD_MAX);
    EXPECT_EQ(d.count, NV_DMA_COUNT_MAX);
}

static void test_words(void)
{
    EXPECT_EQ(NV_SEM_EXECUTE_RELEASE_64_TS, 0x03100001);
    EXPECT_EQ(NV_SEM_EXECUTE_ACQ_CIRC_GEQ_64, 0x01000003);
    EXPECT_EQ(NV_INVALIDATE_SHADER_CACHES_ALL, 0x1011);
    EXPECT_EQ(NV_INVALIDATE_SHADER_CACHES_CONSTANT, 0x1000);
    EXPECT_EQ(NV_LAUNCH_DMA_COPY, 0x182);
    EXPECT_EQ(NV_LAUNCH_DMA_FILL, 0x582);
    EXPECT_EQ(NV_LAUNCH_DMA_SEMAPHORE_64_TS, 0x08000014);
    uint32_t c = 0;
    EXPECT(nv_remap_fill_components(4, &c) == 0);
    EXPECT_EQ(c, 0x00030005);
    EXPECT(nv_remap_fill_components(1, &c) == 0);
    EXPECT_EQ(c, 0x00000005);
    EXPECT(nv_remap_fill_components(2, &c) == 0);
    EXPECT_EQ(c, 0x00010005);
    EXPECT(nv_remap_fill_components(8, &c) == 0);
    EXPECT_EQ(c, 0x01130054);
    EXPECT(nv_remap_fill_components(3, &c) == -EINVAL);
    EXPECT(nv_remap_fill_components(16, &c) == -EINVAL);
}

static void test_gp_entry(void)
{
    uint64_t va = 0x12345678F0ull, e = nv_gp_entry(va, 0x1234);
    /* entry = a | (1 << 41) | (n << 42) for 4-byte-aligned a < 2^40 */
    EXPECT_EQ(e, va | (1ull << 41) | (0x1234ull << 42));
    EXPECT_EQ(nv_gp_entry_va(e), va);
    EXPECT_EQ(nv_gp_entry_length(e), 0x1234);
    e = nv_gp_entry(0xFFFFFFFFFCull, NV_GP_ENTRY_LENGTH_MAX);
    EXPECT_EQ(nv_gp_entry_va(e), 0xFFFFFFFFFCull);
    EXPECT_EQ(nv_gp_entry_length(e), NV_GP_ENTRY_LENGTH_MAX);
}

/* Spot positions against the facts table (absolute bit numbers). */
static void expect_pos(enum nv_qmd_version v, enum nv_qmd_fid f, unsigned lo, unsigned hi, int line)
{
    const struct nv_qmd_field *fl = nv_qmd_field(v, f);
    if (!fl || fl->lo != lo || fl->hi != hi) {
        fprintf(stderr, "line %d: V%02d %s at %d..%d, expected %u..%u\n", line, v,
                nv_qmd_field_name(f), fl ? fl->lo : -1, fl ? fl->hi : -1, lo, hi);
        failures++;
    }
}
#define POS(v, f, hi, lo) expect_pos(v, NV_QMD_##f, lo, hi, __LINE__)

static void test_qmd_positions(void)
{
    const enum nv_qmd_version V4 = NV_QMD_V04_00, V3 = NV_QMD_V03_00;
    POS(V4, QMD_TYPE, 25, 23);
    POS(V4, QMD_GROUP_ID, 21, 16);
    POS(V4, QMD_MAJOR_VERSION, 583, 580);
    POS(V4, SASS_VERSION, 543, 536);
    POS(V4, SHARED_MEMORY_SIZE, 601, 584);
    POS(V4, MIN_SM_CONFIG_SHARED_MEM_SIZE, 613, 608);
    POS(V4, MAX_SM_CONFIG_SHARED_MEM_SIZE, 619, 614);
    POS(V4, TARGET_SM_CONFIG_SHARED_MEM_SIZE, 625, 620);
    POS(V4, GRID_WIDTH, 1055, 1024);
    POS(V4, GRID_HEIGHT, 1071, 1056);
    POS(V4, GRID_DEPTH, 1103, 1088);
    POS(V4, CTA_THREAD_DIMENSION0, 1167, 1152);
    POS(V4, CTA_THREAD_DIMENSION2, 1199, 1184);
    POS(V4, REGISTER_COUNT, 1208, 1200);
    POS(V4, BARRIER_COUNT, 1215, 1211);
    POS(V4, PROGRAM_ADDRESS_LOWER, 1247, 1216);
    POS(V4, PROGRAM_ADDRESS_UPPER, 1272, 1248);
    POS(V4, PROGRAM_PREFETCH_SIZE, 1401, 1393);
    POS(V4, SHADER_LOCAL_MEMORY_HIGH_SIZE, 567, 544);
    POS(V4, CONSTANT_BUFFER_ADDR_LOWER, 1567, 1536);
    POS(V4, CONSTANT_BUFFER_SIZE_SHIFTED4, 1599, 1587);
    POS(V4, RELEASE_ADDRESS_LOWER, 671, 640);
    POS(V4, RELEASE_PAYLOAD_UPPER, 767, 736);
    POS(V4, DEPENDENT_QMD_POINTER, 479, 448);
    POS(V3, IS_QUEUE, 136, 136);
    POS(V3, GRID_WIDTH, 415, 384);
    POS(V3, REGISTER_COUNT, 656, 648);
    POS(V3, SASS_VERSION, 1663, 1656);
    POS(V3, SHARED_MEMORY_SIZE, 561, 544);
    POS(V3, PROGRAM_ADDRESS_LOWER, 1567, 1536);
    POS(V3, RELEASE_ENABLE, 823, 823);
    POS(V3, CONSTANT_BUFFER_VALID, 640, 640);
    EXPECT(nv_qmd_field(V4, NV_QMD_IS_QUEUE) == NULL);
    EXPECT(nv_qmd_field(V3, NV_QMD_QMD_TYPE) == NULL);
    EXPECT(nv_qmd_field((enum nv_qmd_version)7, NV_QMD_QMD_TYPE) == NULL);
    EXPECT_EQ(nv_qmd_size(V4), 384);
    EXPECT_EQ(nv_qmd_size(V3), 256);
    EXPECT_EQ(nv_qmd_version_for_class(HOPPER_COMPUTE_A), V4);
    EXPECT_EQ(nv_qmd_version_for_class(ADA_COMPUTE_A), V3);
    EXPECT_EQ(nv_qmd_version_for_class(HOPPER_DMA_COPY_A), 0);
}

/* Every field instance: all-ones round-trips, touches exactly its bits,
 * and too-wide values are refused. No two fields of a version overlap. */
static void test_qmd_roundtrip(void)
{
    const enum nv_qmd_version vs[] = {NV_QMD_V03_00, NV_QMD_V04_00, NV_QMD_V05_00};
    for (unsigned vi = 0; vi < 3; vi++) {
        enum nv_qmd_version v = vs[vi];
        uint8_t owner[NV_QMD_MAX_BYTES * 8];
        memset(owner, 0xFF, sizeof(owner));
        for (int f = 0; f < NV_QMD_FIELD_COUNT; f++) {
            const struct nv_qmd_field *fl = nv_qmd_field(v, (enum nv_qmd_fid)f);
            if (!fl)
                continue;
            EXPECT(fl->hi >= fl->lo && fl->hi - fl->lo < 32);
            for (unsigned i = 0; i < fl->count; i++) {
                unsigned lo = fl->lo + i * fl->stride, w = fl->hi - fl->lo + 1u;
                EXPECT(lo + w <= nv_qmd_size(v) * 8);
                for (unsigned bit = lo; bit < lo + w && bit < sizeof(owner); bit++) {
                    if (owner[bit] != 0xFF) {
                        fprintf(stderr, "V%02d: %s(%u) overlaps %s at bit %u\n", v,
                                nv_qmd_field_name((enum nv_qmd_fid)f), i,
                                nv_qmd_field_name((enum nv_qmd_fid)owner[bit]), bit);
                        failures++;
                    }
                    owner[bit] = (uint8_t)f;
                }
                uint32_t q[NV_QMD_MAX_BYTES / 4] = {0}, z[NV_QMD_MAX_BYTES / 4] = {0};
                uint64_t ones = (w == 64) ? ~0ull : (1ull << w) - 1;
                EXPECT(nv_qmd_set(q, v, (enum nv_qmd_fid)f, i, ones) == 0);
                EXPECT_EQ(nv_qmd_get(q, v, (enum nv_qmd_fid)f, i), ones);
                for (unsigned bit = 0; bit < nv_qmd_size(v) * 8; bit++) {
                    bool set = (q[bit / 32] >> (bit % 32)) & 1;
                    if (set != (bit >= lo && bit < lo + w)) {
                        fprintf(stderr, "V%02d %s(%u): bit %u wrong\n", v,
                                nv_qmd_field_name((enum nv_qmd_fid)f), i, bit);
                        failures++;
                        break;
                    }
                }
                EXPECT(nv_qmd_set(q, v, (enum nv_qmd_fid)f, i, 0) == 0);
                EXPECT(memcmp(q, z, sizeof(q)) == 0);
                EXPECT(nv_qmd_set(q, v, (enum nv_qmd_fid)f, i, ones + 1) ==
                       (w < 64 ? -ERANGE : 0));
                EXPECT(nv_qmd_set(q, v, (enum nv_qmd_fid)f, fl->count, 1) == -EINVAL);
            }
        }
    }
}

static void test_qmd_helpers(void)
{
    const enum nv_qmd_version V4 = NV_QMD_V04_00;
    uint32_t q[96] = {0};
    EXPECT(nv_qmd_set_program(q, V4, 0x1234567880ull, 0x300) == 0);
    EXPECT_EQ(nv_qmd_get_program(q, V4), 0x1234567880ull);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED, 0), 0x12345678);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_PROGRAM_PREFETCH_SIZE, 0), 3);
    EXPECT(nv_qmd_set_program(q, V4, 0x1000, 1ull << 20) == 0);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_PROGRAM_PREFETCH_SIZE, 0), 0x1FF);
    EXPECT(nv_qmd_set_cbuf(q, V4, 0, 0x10000040ull, 0x230) == 0);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_CONSTANT_BUFFER_ADDR_LOWER, 0), 0x10000040ull >> 6);
    EXPECT_EQ(nv_qmd_get_cbuf_addr(q, V4, 0), 0x10000040ull);
    EXPECT_EQ(nv_qmd_get_cbuf_size(q, V4, 0), 0x230);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_CONSTANT_BUFFER_VALID, 0), 1);
    EXPECT(nv_qmd_set_cbuf(q, V4, 3, 0x10000020ull, 16) == -EINVAL); /* not 64-aligned */
    EXPECT(nv_qmd_set_cbuf(q, V4, 8, 0x10000040ull, 16) == -EINVAL);
    EXPECT(nv_qmd_set_cbuf(q, NV_QMD_V03_00, 3, 0x10000020ull, 17) == 0);
    EXPECT_EQ(nv_qmd_get_cbuf_size(q, NV_QMD_V03_00, 3), 32);
    EXPECT(nv_qmd_set_release(q, V4, 0, 0x2000001230ull, 0x123456789ull) == 0);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_RELEASE_ENABLE, 0), 1);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_RELEASE_PAYLOAD64B, 0), 1);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_RELEASE_ADDRESS_UPPER, 0), 0x20);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_RELEASE_PAYLOAD_UPPER, 0), 1);
    EXPECT(nv_qmd_set_dependent(q, V4, 0, 0x1000000100ull) == 0);
    EXPECT_EQ(nv_qmd_get(q, V4, NV_QMD_DEPENDENT_QMD_POINTER, 0), 0x10000001);
    EXPECT(nv_qmd_set_dependent(q, V4, 0, 0x1000000180ull) == -EINVAL);
}

static void test_limits(void)
{
    EXPECT_EQ(nv_cbuf0_param_start(0x900), 0x210);
    EXPECT_EQ(nv_cbuf0_param_start(0x860), 0x160);
    EXPECT_EQ(nv_cbuf0_param_start(0x700), 0);
    EXPECT_EQ(nv_sass_version(0x900), 0x90);
    EXPECT_EQ(nv_sass_version(0x890), 0x89);
    EXPECT_EQ(nv_smem_carveout_kb(0x900, 0), 0);
    EXPECT_EQ(nv_smem_carveout_kb(0x900, 0x400), 8);
    EXPECT_EQ(nv_smem_carveout_kb(0x900, 100 * 1024 + 1), 132);
    EXPECT_EQ(nv_smem_carveout_kb(0x900, 228 * 1024), 228);
    EXPECT_EQ(nv_smem_carveout_kb(0x900, 228 * 1024 + 1), -EINVAL);
    EXPECT_EQ(nv_smem_carveout_kb(0x860, 101 * 1024), -EINVAL);
    EXPECT_EQ(nv_smem_max_kb(0x900), 228);
    EXPECT_EQ(nv_smem_config_encode(228), 0x3A);
    EXPECT_EQ(nv_smem_config_encode(100), 0x1A);
    /* H200, MIN_STACK_SIZE 0x100: 0x340 per thread, 0x340000 per TPC, 234 MiB. */
    EXPECT_EQ(nv_slm_per_thread(0x100), 0x340);
    EXPECT_EQ(nv_slm_per_thread(0), 0x240);
    EXPECT_EQ(nv_slm_bytes_per_tpc(0x340, 64, 2), 0x340000);
    EXPECT_EQ(nv_slm_total_bytes(0x340000, 9, 8), 0xEA00000);
}

/* The hot-path writers equal the generic setters, on QMDs full of other
 * bits (V03 and V04), and V05 (tables incomplete) is refused. */
static void test_qmd_hot(void)
{
    const enum nv_qmd_version vs[2] = {NV_QMD_V03_00, NV_QMD_V04_00};
    struct nv_qmd_hot h;
    EXPECT(nv_qmd_hot_init(NV_QMD_V05_00, &h) == -EINVAL);
    for (int k = 0; k < 2; k++) {
        const enum nv_qmd_version v = vs[k];
        REQUIRE(nv_qmd_hot_init(v, &h) == 0);
        uint32_t a[NV_QMD_MAX_BYTES / 4], b[NV_QMD_MAX_BYTES / 4];
        uint64_t seed = 0x9E3779B97F4A7C15ull;
        for (int round = 0; round < 64; round++) {
            for (unsigned i = 0; i < NV_QMD_MAX_BYTES / 4; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                a[i] = b[i] = (uint32_t)(seed >> 32) | (round & 1 ? 0 : 0xFFFF0000u);
            }
            const uint64_t cb = (seed & 0xFFFFFFFFC0ull) | 0x100000000ull;
            const uint64_t next = (seed >> 8 & 0xFFFFFFFF00ull) | 0x200000000ull;
            const uint64_t sem = (seed >> 3 & 0xFFFFFFF8ull) | 0x30000000ull;
            const uint64_t pay = seed ^ 0x0123456789ABCDEFull;
            const uint32_t size = (uint32_t)(seed >> 40 & 0xFFF) + 1;
            EXPECT(nv_qmd_set_cbuf(a, v, 0, cb, size) == 0);
            nv_qmd_hot_cbuf(b, &h, cb, size);
            /* set_cbuf also sets VALID; the hot writer relies on the template */
            EXPECT(nv_qmd_set(b, v, NV_QMD_CONSTANT_BUFFER_VALID, 0, 1) == 0);
            EXPECT(nv_qmd_set_dependent(a, v, 0, next) == 0);
            nv_qmd_hot_dependent(b, &h, next);
            EXPECT(nv_qmd_set_release(a, v, 0, sem, pay) == 0);
            nv_qmd_hot_release(b, &h, sem, pay);
            EXPECT(memcmp(a, b, nv_qmd_size(v)) == 0);
            EXPECT(nv_qmd_set(a, v, NV_QMD_RELEASE_ENABLE, 0, 0) == 0);
            nv_qmd_hot_unrelease(b, &h);
            EXPECT(memcmp(a, b, nv_qmd_size(v)) == 0);
        }
    }
}

int main(void)
{
    test_headers();
    test_words();
    test_gp_entry();
    test_qmd_positions();
    test_qmd_roundtrip();
    test_qmd_helpers();
    test_qmd_hot();
    test_limits();
    return check_done("nv_test");
}

/*
 * qmd.c — QMD field tables (V03_00, V04_00, V05_00) and the generic
 * set/get used both to encode launches (src/core) and to decode them
 * (src/emu); the per-architecture numbers that shape a launch (bank 0
 * parameter start, SASS version, shared-memory carve-outs, local-memory
 * sizing) and copy-engine fill remaps.
 *
 * Positions are absolute bit numbers from open-gpu-doc clcbc0qmd.h (V03,
 * V04) and clcec0qmd.h via nv-hopper-facts §6.3 (V05, partial: only the
 * fields listed there).
 */
#include <errno.h>

#include "nv/nv.h"

#define F(l, h) {.lo = (l), .hi = (h), .stride = 0, .count = 1}
#define FI(l, h, s, n) {.lo = (l), .hi = (h), .stride = (s), .count = (n)}
#define B(b) F(b, b)

static const struct nv_qmd_field qmd_v03[NV_QMD_FIELD_COUNT] = {
    [NV_QMD_QMD_GROUP_ID] = F(128, 133),
    [NV_QMD_SM_GLOBAL_CACHING_ENABLE] = B(134),
    [NV_QMD_IS_QUEUE] = B(136),
    [NV_QMD_REQUIRE_SCHEDULING_PCAS] = B(140),
    [NV_QMD_DEPENDENCE_COUNTER] = F(142, 157),
    [NV_QMD_SELF_COPY_ON_COMPLETION] = B(158),
    [NV_QMD_INVALIDATE_TEXTURE_HEADER_CACHE] = B(186),
    [NV_QMD_INVALIDATE_TEXTURE_SAMPLER_CACHE] = B(187),
    [NV_QMD_INVALIDATE_TEXTURE_DATA_CACHE] = B(188),
    [NV_QMD_INVALIDATE_SHADER_DATA_CACHE] = B(189),
    [NV_QMD_INVALIDATE_INSTRUCTION_CACHE] = B(190),
    [NV_QMD_INVALIDATE_SHADER_CONSTANT_CACHE] = B(191),
    [NV_QMD_PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED] = F(256, 287),
    [NV_QMD_CWD_MEMBAR_TYPE] = F(368, 369),
    [NV_QMD_SEQUENTIALLY_RUN_CTAS] = B(370),
    [NV_QMD_API_VISIBLE_CALL_LIMIT] = B(378),
    [NV_QMD_SAMPLER_INDEX] = B(382),
    [NV_QMD_GRID_WIDTH] = F(384, 415),
    [NV_QMD_GRID_HEIGHT] = F(416, 431),
    [NV_QMD_GRID_DEPTH] = F(448, 463),
    [NV_QMD_DEPENDENT_QMD_POINTER] = FI(480, 511, 0, 1),
    [NV_QMD_DEPENDENT_QMD_ENABLE] = FI(512, 512, 5, 2),
    [NV_QMD_DEPENDENT_QMD_ACTION] = FI(513, 515, 5, 2),
    [NV_QMD_DEPENDENT_QMD_PREFETCH] = FI(516, 516, 5, 2),
    [NV_QMD_SHARED_MEMORY_SIZE] = F(544, 561),
    [NV_QMD_MIN_SM_CONFIG_SHARED_MEM_SIZE] = F(562, 567),
    [NV_QMD_MAX_SM_CONFIG_SHARED_MEM_SIZE] = F(569, 574),
    [NV_QMD_QMD_MINOR_VERSION] = F(576, 579),
    [NV_QMD_QMD_MAJOR_VERSION] = F(580, 583),
    [NV_QMD_CTA_THREAD_DIMENSION0] = F(592, 607),
    [NV_QMD_CTA_THREAD_DIMENSION1] = F(608, 623),
    [NV_QMD_CTA_THREAD_DIMENSION2] = F(624, 639),
    [NV_QMD_CONSTANT_BUFFER_VALID] = FI(640, 640, 1, 8),
    [NV_QMD_REGISTER_COUNT] = F(648, 656),
    [NV_QMD_TARGET_SM_CONFIG_SHARED_MEM_SIZE] = F(657, 662),
    [NV_QMD_SHARED_ALLOCATION_ENABLE] = B(663),
    [NV_QMD_SHADER_LOCAL_MEMORY_LOW_SIZE] = F(736, 759),
    [NV_QMD_BARRIER_COUNT] = F(763, 767),
    [NV_QMD_RELEASE_ADDRESS_LOWER] = FI(768, 799, 128, 2),
    [NV_QMD_RELEASE_ADDRESS_UPPER] = FI(800, 807, 128, 2),
    [NV_QMD_RELEASE_MEMBAR_TYPE] = FI(819, 819, 128, 2),
    [NV_QMD_RELEASE_ENABLE] = FI(823, 823, 128, 2),
    [NV_QMD_RELEASE_REDUCTION_ENABLE] = FI(826, 826, 128, 2),
    [NV_QMD_RELEASE_PAYLOAD64B] = FI(829, 829, 128, 2),
    [NV_QMD_RELEASE_STRUCTURE_SIZE] = FI(830, 831, 128, 2),
    [NV_QMD_RELEASE_PAYLOAD_LOWER] = FI(832, 863, 128, 2),
    [NV_QMD_RELEASE_PAYLOAD_UPPER] = FI(864, 895, 128, 2),
    [NV_QMD_CONSTANT_BUFFER_ADDR_LOWER] = FI(1024, 1055, 64, 8),
    [NV_QMD_CONSTANT_BUFFER_ADDR_UPPER] = FI(1056, 1072, 64, 8),
    [NV_QMD_CONSTANT_BUFFER_INVALIDATE] = FI(1074, 1074, 64, 8),
    [NV_QMD_CONSTANT_BUFFER_SIZE_SHIFTED4] = FI(1075, 1087, 64, 8),
    [NV_QMD_PROGRAM_ADDRESS_LOWER] = F(1536, 1567),
    [NV_QMD_PROGRAM_ADDRESS_UPPER] = F(1568, 1584),
    [NV_QMD_SHADER_LOCAL_MEMORY_HIGH_SIZE] = F(1600, 1623),
    [NV_QMD_PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED] = F(1632, 1640),
    [NV_QMD_PROGRAM_PREFETCH_SIZE] = F(1641, 1649),
    [NV_QMD_PROGRAM_PREFETCH_TYPE] = F(1650, 1651),
    [NV_QMD_SASS_VERSION] = F(1656, 1663),
};

static const struct nv_qmd_field qmd_v04[NV_QMD_FIELD_COUNT] = {
    [NV_QMD_DEPENDENCE_COUNTER] = F(0, 15),
    [NV_QMD_QMD_GROUP_ID] = F(16, 21),
    [NV_QMD_QMD_TYPE] = F(23, 25),
    [NV_QMD_REQUIRE_SCHEDULING_PCAS] = B(30),
    [NV_QMD_RELEASE_ENABLE] = FI(320, 320, 16, 3),
    [NV_QMD_RELEASE_STRUCTURE_SIZE] = FI(321, 322, 16, 3),
    [NV_QMD_RELEASE_MEMBAR_TYPE] = FI(323, 323, 16, 3),
    [NV_QMD_RELEASE_REDUCTION_ENABLE] = FI(324, 324, 16, 3),
    [NV_QMD_RELEASE_PAYLOAD64B] = FI(332, 332, 16, 3),
    [NV_QMD_DEPENDENT_QMD_ENABLE] = FI(368, 368, 5, 2),
    [NV_QMD_DEPENDENT_QMD_ACTION] = FI(369, 371, 5, 2),
    [NV_QMD_DEPENDENT_QMD_PREFETCH] = FI(372, 372, 5, 2),
    [NV_QMD_SELF_COPY_ON_COMPLETION] = B(378),
    [NV_QMD_CONSTANT_BUFFER_VALID] = FI(416, 416, 4, 8),
    [NV_QMD_CONSTANT_BUFFER_INVALIDATE] = FI(419, 419, 4, 8),
    [NV_QMD_DEPENDENT_QMD_POINTER] = FI(448, 479, 32, 2),
    [NV_QMD_SHADER_LOCAL_MEMORY_LOW_SIZE] = F(512, 535),
    [NV_QMD_SASS_VERSION] = F(536, 543),
    [NV_QMD_SHADER_LOCAL_MEMORY_HIGH_SIZE] = F(544, 567),
    [NV_QMD_API_VISIBLE_CALL_LIMIT] = B(568),
    [NV_QMD_SAMPLER_INDEX] = B(569),
    [NV_QMD_QMD_MINOR_VERSION] = F(576, 579),
    [NV_QMD_QMD_MAJOR_VERSION] = F(580, 583),
    [NV_QMD_SHARED_MEMORY_SIZE] = F(584, 601),
    [NV_QMD_INVALIDATE_TEXTURE_HEADER_CACHE] = B(602),
    [NV_QMD_INVALIDATE_TEXTURE_SAMPLER_CACHE] = B(603),
    [NV_QMD_INVALIDATE_TEXTURE_DATA_CACHE] = B(604),
    [NV_QMD_INVALIDATE_SHADER_DATA_CACHE] = B(605),
    [NV_QMD_INVALIDATE_INSTRUCTION_CACHE] = B(606),
    [NV_QMD_INVALIDATE_SHADER_CONSTANT_CACHE] = B(607),
    [NV_QMD_MIN_SM_CONFIG_SHARED_MEM_SIZE] = F(608, 613),
    [NV_QMD_MAX_SM_CONFIG_SHARED_MEM_SIZE] = F(614, 619),
    [NV_QMD_TARGET_SM_CONFIG_SHARED_MEM_SIZE] = F(620, 625),
    [NV_QMD_SHARED_ALLOCATION_ENABLE] = B(626),
    [NV_QMD_RELEASE_ADDRESS_LOWER] = FI(640, 671, 128, 3),
    [NV_QMD_RELEASE_ADDRESS_UPPER] = FI(672, 696, 128, 3),
    [NV_QMD_RELEASE_PAYLOAD_LOWER] = FI(704, 735, 128, 3),
    [NV_QMD_RELEASE_PAYLOAD_UPPER] = FI(736, 767, 128, 3),
    [NV_QMD_GRID_WIDTH] = F(1024, 1055),
    [NV_QMD_GRID_HEIGHT] = F(1056, 1071),
    [NV_QMD_GRID_DEPTH] = F(1088, 1103),
    [NV_QMD_CWD_MEMBAR_TYPE] = F(1136, 1137),
    [NV_QMD_SEQUENTIALLY_RUN_CTAS] = B(1138),
    [NV_QMD_CTA_THREAD_DIMENSION0] = F(1152, 1167),
    [NV_QMD_CTA_THREAD_DIMENSION1] = F(1168, 1183),
    [NV_QMD_CTA_THREAD_DIMENSION2] = F(1184, 1199),
    [NV_QMD_REGISTER_COUNT] = F(1200, 1208),
    [NV_QMD_BARRIER_COUNT] = F(1211, 1215),
    [NV_QMD_PROGRAM_ADDRESS_LOWER] = F(1216, 1247),
    [NV_QMD_PROGRAM_ADDRESS_UPPER] = F(1248, 1272),
    [NV_QMD_PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED] = F(1344, 1375),
    [NV_QMD_PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED] = F(1376, 1392),
    [NV_QMD_PROGRAM_PREFETCH_SIZE] = F(1393, 1401),
    [NV_QMD_PROGRAM_PREFETCH_TYPE] = F(1402, 1403),
    [NV_QMD_CONSTANT_BUFFER_ADDR_LOWER] = FI(1536, 1567, 64, 8),
    [NV_QMD_CONSTANT_BUFFER_ADDR_UPPER] = FI(1568, 1586, 64, 8),
    [NV_QMD_CONSTANT_BUFFER_SIZE_SHIFTED4] = FI(1587, 1599, 64, 8),
    [NV_QMD_GPC_CGA_WIDTH] = F(2144, 2149),
    [NV_QMD_GPC_CGA_HEIGHT] = F(2152, 2157),
    [NV_QMD_GPC_CGA_DEPTH] = F(2160, 2165),
};

/* Blackwell: only the fields confirmed in the facts table; the launch
 * path does not use V05 yet. */
static const struct nv_qmd_field qmd_v05[NV_QMD_FIELD_COUNT] = {
    [NV_QMD_RELEASE_ENABLE] = FI(288, 288, 16, 2),
    [NV_QMD_DEPENDENT_QMD_ENABLE] = FI(336, 336, 5, 1),
    [NV_QMD_DEPENDENT_QMD_ACTION] = FI(337, 339, 5, 1),
    [NV_QMD_DEPENDENT_QMD_PREFETCH] = FI(340, 340, 5, 1),
    [NV_QMD_DEPENDENT_QMD_POINTER] = FI(384, 415, 32, 1),
    [NV_QMD_QMD_GROUP_ID] = F(144, 149),
    [NV_QMD_QMD_TYPE] = F(151, 153),
    [NV_QMD_SASS_VERSION] = F(448, 455),
    [NV_QMD_API_VISIBLE_CALL_LIMIT] = B(456),
    [NV_QMD_SAMPLER_INDEX] = B(457),
    [NV_QMD_QMD_MINOR_VERSION] = F(464, 467),
    [NV_QMD_QMD_MAJOR_VERSION] = F(468, 471),
    [NV_QMD_INVALIDATE_TEXTURE_HEADER_CACHE] = B(472),
    [NV_QMD_INVALIDATE_TEXTURE_SAMPLER_CACHE] = B(473),
    [NV_QMD_INVALIDATE_TEXTURE_DATA_CACHE] = B(474),
    [NV_QMD_INVALIDATE_SHADER_DATA_CACHE] = B(475),
    [NV_QMD_INVALIDATE_INSTRUCTION_CACHE] = B(476),
    [NV_QMD_INVALIDATE_SHADER_CONSTANT_CACHE] = B(477),
    [NV_QMD_CWD_MEMBAR_TYPE] = F(624, 625),
    [NV_QMD_PROGRAM_ADDRESS_LOWER] = F(1024, 1055),
    [NV_QMD_PROGRAM_ADDRESS_UPPER] = F(1056, 1076),
    [NV_QMD_PROGRAM_PREFETCH_SIZE] = F(1077, 1085),
    [NV_QMD_REGISTER_COUNT] = F(1128, 1136),
    [NV_QMD_BARRIER_COUNT] = F(1137, 1141),
    [NV_QMD_SHARED_MEMORY_SIZE] = F(1152, 1162),
    [NV_QMD_MIN_SM_CONFIG_SHARED_MEM_SIZE] = F(1163, 1168),
    [NV_QMD_MAX_SM_CONFIG_SHARED_MEM_SIZE] = F(1169, 1174),
    [NV_QMD_TARGET_SM_CONFIG_SHARED_MEM_SIZE] = F(1175, 1180),
    [NV_QMD_SHADER_LOCAL_MEMORY_HIGH_SIZE] = F(1200, 1215),
    [NV_QMD_GRID_WIDTH] = F(1248, 1279),
    [NV_QMD_CONSTANT_BUFFER_ADDR_LOWER] = FI(1344, 1375, 64, 8),
    [NV_QMD_CONSTANT_BUFFER_ADDR_UPPER] = FI(1376, 1394, 64, 8),
    [NV_QMD_CONSTANT_BUFFER_SIZE_SHIFTED4] = FI(1395, 1407, 64, 8),
    [NV_QMD_CONSTANT_BUFFER_VALID] = FI(1856, 1856, 4, 8),
    [NV_QMD_CONSTANT_BUFFER_INVALIDATE] = FI(1859, 1859, 4, 8),
    [NV_QMD_PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED] = F(1888, 1919),
    [NV_QMD_PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED] = F(1920, 1936),
};

static const char *const qmd_names[NV_QMD_FIELD_COUNT] = {
#define N(x) [NV_QMD_##x] = #x
    N(QMD_GROUP_ID), N(SM_GLOBAL_CACHING_ENABLE), N(IS_QUEUE), N(QMD_TYPE),
    N(REQUIRE_SCHEDULING_PCAS), N(DEPENDENCE_COUNTER), N(SELF_COPY_ON_COMPLETION),
    N(INVALIDATE_TEXTURE_HEADER_CACHE), N(INVALIDATE_TEXTURE_SAMPLER_CACHE),
    N(INVALIDATE_TEXTURE_DATA_CACHE), N(INVALIDATE_SHADER_DATA_CACHE),
    N(INVALIDATE_INSTRUCTION_CACHE), N(INVALIDATE_SHADER_CONSTANT_CACHE), N(CWD_MEMBAR_TYPE),
    N(SEQUENTIALLY_RUN_CTAS), N(API_VISIBLE_CALL_LIMIT), N(SAMPLER_INDEX), N(GRID_WIDTH),
    N(GRID_HEIGHT), N(GRID_DEPTH), N(CTA_THREAD_DIMENSION0), N(CTA_THREAD_DIMENSION1),
    N(CTA_THREAD_DIMENSION2), N(DEPENDENT_QMD_ENABLE), N(DEPENDENT_QMD_ACTION),
    N(DEPENDENT_QMD_PREFETCH), N(DEPENDENT_QMD_POINTER), N(SHARED_MEMORY_SIZE),
    N(MIN_SM_CONFIG_SHARED_MEM_SIZE), N(MAX_SM_CONFIG_SHARED_MEM_SIZE),
    N(TARGET_SM_CONFIG_SHARED_MEM_SIZE), N(SHARED_ALLOCATION_ENABLE), N(QMD_MINOR_VERSION),
    N(QMD_MAJOR_VERSION), N(REGISTER_COUNT), N(BARRIER_COUNT), N(SHADER_LOCAL_MEMORY_LOW_SIZE),
    N(SHADER_LOCAL_MEMORY_HIGH_SIZE), N(SASS_VERSION), N(PROGRAM_ADDRESS_LOWER),
    N(PROGRAM_ADDRESS_UPPER), N(PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED),
    N(PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED), N(PROGRAM_PREFETCH_SIZE), N(PROGRAM_PREFETCH_TYPE),
    N(CONSTANT_BUFFER_VALID), N(CONSTANT_BUFFER_INVALIDATE), N(CONSTANT_BUFFER_ADDR_LOWER),
    N(CONSTANT_BUFFER_ADDR_UPPER), N(CONSTANT_BUFFER_SIZE_SHIFTED4), N(RELEASE_ENABLE),
    N(RELEASE_STRUCTURE_SIZE), N(RELEASE_MEMBAR_TYPE), N(RELEASE_REDUCTION_ENABLE),
    N(RELEASE_PAYLOAD64B), N(RELEASE_ADDRESS_LOWER), N(RELEASE_ADDRESS_UPPER),
    N(RELEASE_PAYLOAD_LOWER), N(RELEASE_PAYLOAD_UPPER), N(GPC_CGA_WIDTH), N(GPC_CGA_HEIGHT),
    N(GPC_CGA_DEPTH),
#undef N
};

size_t nv_qmd_size(enum nv_qmd_version v)
{
    switch (v) {
    case NV_QMD_V03_00: return 256;
    case NV_QMD_V04_00: return 384;
    case NV_QMD_V05_00: return 384;
    }
    return 0;
}

const struct nv_qmd_field *nv_qmd_field(enum nv_qmd_version v, enum nv_qmd_fid f)
{
    const struct nv_qmd_field *t;
    if ((unsigned)f >= NV_QMD_FIELD_COUNT)
        return NULL;
    switch (v) {
    case NV_QMD_V03_00: t = qmd_v03; break;
    case NV_QMD_V04_00: t = qmd_v04; break;
    case NV_QMD_V05_00: t = qmd_v05; break;
    default: return NULL;
    }
    return t[f].count ? &t[f] : NULL;
}

const char *nv_qmd_field_name(enum nv_qmd_fid f)
{
    if ((unsigned)f >= NV_QMD_FIELD_COUNT || !qmd_names[f])
        return "?";
    return qmd_names[f];
}

/* Resolve instance i to an absolute bit range; false when absent. */
static bool qmd_bits(enum nv_qmd_version v, enum nv_qmd_fid f, unsigned i, unsigned *lo,
                     unsigned *width)
{
    const struct nv_qmd_field *fl = nv_qmd_field(v, f);
    if (!fl || i >= fl->count)
        return false;
    *lo = fl->lo + i * fl->stride;
    *width = (unsigned)(fl->hi - fl->lo) + 1;
    return *lo + *width <= nv_qmd_size(v) * 8;
}

int nv_qmd_set(uint32_t *qmd, enum nv_qmd_version v, enum nv_qmd_fid f, unsigned i,
               uint64_t value)
{
    unsigned lo, width;
    if (!qmd_bits(v, f, i, &lo, &width))
        return -EINVAL;
    uint64_t mask = (width >= 64) ? ~0ull : ((1ull << width) - 1);
    if (value & ~mask)
        return -ERANGE;
    /* A field spans at most two dwords (width <= 32). */
    unsigned d = lo / 32, sh = lo % 32;
    unsigned ndw = nv_qmd_size(v) / 4;
    uint64_t w = qmd[d];
    if (d + 1 < ndw)
        w |= (uint64_t)qmd[d + 1] << 32;
    w = (w & ~(mask << sh)) | (value << sh);
    qmd[d] = (uint32_t)w;
    if (d + 1 < ndw)
        qmd[d + 1] = (uint32_t)(w >> 32);
    return 0;
}

uint64_t nv_qmd_get(const uint32_t *qmd, enum nv_qmd_version v, enum nv_qmd_fid f, unsigned i)
{
    unsigned lo, width;
    if (!qmd_bits(v, f, i, &lo, &width))
        return 0;
    uint64_t mask = (1ull << width) - 1;
    unsigned d = lo / 32, sh = lo % 32;
    uint64_t w = qmd[d];
    if (d + 1 < nv_qmd_size(v) / 4)
        w |= (uint64_t)qmd[d + 1] << 32;
    return (w >> sh) & mask;
}

static int locate(enum nv_qmd_version v, enum nv_qmd_fid f, struct nv_qmd_loc *l)
{
    unsigned lo, width;
    if (!qmd_bits(v, f, 0, &lo, &width) || width > 32 ||
        (lo % 32 + width > 32 && lo / 32 + 1 >= nv_qmd_size(v) / 4))
        return -EINVAL;
    *l = (struct nv_qmd_loc){.dw = (uint16_t)(lo / 32), .sh = (uint8_t)(lo % 32),
                             .width = (uint8_t)width};
    return 0;
}

/* The one dword that a setter filled on a zeroed QMD (its address and
 * payload fields given 0, so only its flags are set), and its bits. */
static int flags_of(const uint32_t *q, enum nv_qmd_version v, uint16_t *dw, uint32_t *bits)
{
    int found = -1;
    for (unsigned d = 0; d < nv_qmd_size(v) / 4; d++) {
        if (!q[d])
            continue;
        if (found >= 0)
            return -EINVAL;
        found = (int)d;
    }
    if (found < 0)
        return -EINVAL;
    *dw = (uint16_t)found;
    *bits = q[found];
    return 0;
}

/* Adds the bits of field f (slot 0) to *mask; it must lie within dword dw. */
static int mask_in(enum nv_qmd_version v, enum nv_qmd_fid f, uint16_t dw, uint32_t *mask)
{
    struct nv_qmd_loc l;
    if (locate(v, f, &l) || l.dw != dw || l.sh + l.width > 32)
        return -EINVAL;
    *mask |= (uint32_t)(((1ull << l.width) - 1) << l.sh);
    return 0;
}

int nv_qmd_hot_init(enum nv_qmd_version v, struct nv_qmd_hot *h)
{
    *h = (struct nv_qmd_hot){.cb_shift = v == NV_QMD_V03_00 ? 0 : 6};
    /* The flag values come from the generic setters, the masks from the
     * field tables. */
    uint32_t dq[NV_QMD_MAX_BYTES / 4] = {0}, rq[NV_QMD_MAX_BYTES / 4] = {0};
    if (locate(v, NV_QMD_CONSTANT_BUFFER_ADDR_LOWER, &h->cb_lo) ||
        locate(v, NV_QMD_CONSTANT_BUFFER_ADDR_UPPER, &h->cb_hi) ||
        locate(v, NV_QMD_CONSTANT_BUFFER_SIZE_SHIFTED4, &h->cb_size) ||
        locate(v, NV_QMD_DEPENDENT_QMD_POINTER, &h->dep_ptr) ||
        locate(v, NV_QMD_RELEASE_ADDRESS_LOWER, &h->rel_lo) ||
        locate(v, NV_QMD_RELEASE_ADDRESS_UPPER, &h->rel_hi) ||
        locate(v, NV_QMD_RELEASE_PAYLOAD_LOWER, &h->pay_lo) ||
        locate(v, NV_QMD_RELEASE_PAYLOAD_UPPER, &h->pay_hi) ||
        nv_qmd_set_dependent(dq, v, 0, 0) || flags_of(dq, v, &h->dep_dw, &h->dep_bits) ||
        nv_qmd_set_release(rq, v, 0, 0, 0) || flags_of(rq, v, &h->rel_dw, &h->rel_bits) ||
        mask_in(v, NV_QMD_DEPENDENT_QMD_ACTION, h->dep_dw, &h->dep_mask) ||
        mask_in(v, NV_QMD_DEPENDENT_QMD_PREFETCH, h->dep_dw, &h->dep_mask) ||
        mask_in(v, NV_QMD_DEPENDENT_QMD_ENABLE, h->dep_dw, &h->dep_mask) ||
        mask_in(v, NV_QMD_RELEASE_STRUCTURE_SIZE, h->rel_dw, &h->rel_mask) ||
        mask_in(v, NV_QMD_RELEASE_MEMBAR_TYPE, h->rel_dw, &h->rel_mask) ||
        mask_in(v, NV_QMD_RELEASE_PAYLOAD64B, h->rel_dw, &h->rel_mask) ||
        mask_in(v, NV_QMD_RELEASE_ENABLE, h->rel_dw, &h->rel_mask) ||
        mask_in(v, NV_QMD_RELEASE_ENABLE, h->rel_dw, &h->rel_enable))
        return -EINVAL;
    return 0;
}

enum nv_qmd_version nv_qmd_version_for_class(uint32_t compute_class)
{
    switch (compute_class) {
    case AMPERE_COMPUTE_A:
    case AMPERE_COMPUTE_B:
    case ADA_COMPUTE_A: return NV_QMD_V03_00;
    case HOPPER_COMPUTE_A: return NV_QMD_V04_00;
    case BLACKWELL_COMPUTE_A:
    case BLACKWELL_COMPUTE_B: return NV_QMD_V05_00;
    }
    return (enum nv_qmd_version)0;
}

/* V05 stores the program address >> 4; V03/V04 store it whole. */
int nv_qmd_set_program(uint32_t *qmd, enum nv_qmd_version v, uint64_t va, uint64_t text_size)
{
    uint64_t a = va;
    if (v == NV_QMD_V05_00) {
        if (va & 15)
            return -EINVAL;
        a = va >> 4;
    }
    int rc = nv_qmd_set(qmd, v, NV_QMD_PROGRAM_ADDRESS_LOWER, 0, a & 0xFFFFFFFFu);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_PROGRAM_ADDRESS_UPPER, 0, a >> 32);
    if (rc)
        return rc == -ERANGE ? -EINVAL : rc;
    uint64_t pf = text_size >> 8;
    if (pf > 0x1FF)
        pf = 0x1FF;
    nv_qmd_set(qmd, v, NV_QMD_PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED, 0, (va >> 8) & 0xFFFFFFFFu);
    rc = nv_qmd_set(qmd, v, NV_QMD_PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED, 0, va >> 40);
    if (rc == -ERANGE)
        return -EINVAL;
    nv_qmd_set(qmd, v, NV_QMD_PROGRAM_PREFETCH_SIZE, 0, pf);
    return 0;
}

uint64_t nv_qmd_get_program(const uint32_t *qmd, enum nv_qmd_version v)
{
    uint64_t a = nv_qmd_get(qmd, v, NV_QMD_PROGRAM_ADDRESS_LOWER, 0) |
                 nv_qmd_get(qmd, v, NV_QMD_PROGRAM_ADDRESS_UPPER, 0) << 32;
    return v == NV_QMD_V05_00 ? a << 4 : a;
}

int nv_qmd_set_cbuf(uint32_t *qmd, enum nv_qmd_version v, unsigned i, uint64_t va, uint32_t size)
{
    uint64_t a = va;
    if (v != NV_QMD_V03_00) {
        if (va & (NV_QMD_CBUF_ALIGN_V04 - 1))
            return -EINVAL;
        a = va >> 6;
    }
    uint64_t sz4 = ((uint64_t)size + 15) >> 4;
    int rc = nv_qmd_set(qmd, v, NV_QMD_CONSTANT_BUFFER_ADDR_LOWER, i, a & 0xFFFFFFFFu);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_CONSTANT_BUFFER_ADDR_UPPER, i, a >> 32);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_CONSTANT_BUFFER_SIZE_SHIFTED4, i, sz4);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_CONSTANT_BUFFER_VALID, i, 1);
    return rc == -ERANGE ? -EINVAL : rc;
}

uint64_t nv_qmd_get_cbuf_addr(const uint32_t *qmd, enum nv_qmd_version v, unsigned i)
{
    uint64_t a = nv_qmd_get(qmd, v, NV_QMD_CONSTANT_BUFFER_ADDR_LOWER, i) |
                 nv_qmd_get(qmd, v, NV_QMD_CONSTANT_BUFFER_ADDR_UPPER, i) << 32;
    return v == NV_QMD_V03_00 ? a : a << 6;
}

uint32_t nv_qmd_get_cbuf_size(const uint32_t *qmd, enum nv_qmd_version v, unsigned i)
{
    return (uint32_t)nv_qmd_get(qmd, v, NV_QMD_CONSTANT_BUFFER_SIZE_SHIFTED4, i) << 4;
}

int nv_qmd_set_release(uint32_t *qmd, enum nv_qmd_version v, unsigned i, uint64_t va,
                       uint64_t payload)
{
    int rc = nv_qmd_set(qmd, v, NV_QMD_RELEASE_ADDRESS_LOWER, i, va & 0xFFFFFFFFu);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_RELEASE_ADDRESS_UPPER, i, va >> 32);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_RELEASE_PAYLOAD_LOWER, i, payload & 0xFFFFFFFFu);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_RELEASE_PAYLOAD_UPPER, i, payload >> 32);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_RELEASE_STRUCTURE_SIZE, i,
                        NVCBC0_QMDV04_00_RELEASE_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS);
    /* No membar of the front end's own: every QMD hcqcl builds makes each
     * CTA end with a system-scope membar (CWD_MEMBAR_TYPE L1_SYSMEMBAR,
     * core/program.c), so the grid's stores are visible everywhere before
     * its end releases anything. The front end's membar cost the H200
     * 0.4-0.6 us per round trip; gpu_test's ordering case checks every
     * store right after the release is seen (and fails with the CTA
     * membar off, or only GPU-wide), and that a host release just before
     * never lands after it. Not covered: asynchronous-proxy (TMA) stores
     * a kernel left in flight when it ended (docs/status-gaps.md). */
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_RELEASE_MEMBAR_TYPE, i,
                        NVCBC0_QMDV04_00_RELEASE_MEMBAR_TYPE_FE_NONE);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_RELEASE_PAYLOAD64B, i, 1);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_RELEASE_ENABLE, i, 1);
    return rc == -ERANGE ? -EINVAL : rc;
}

int nv_qmd_set_dependent(uint32_t *qmd, enum nv_qmd_version v, unsigned i, uint64_t next_va)
{
    if (next_va & (NV_QMD_ALIGN - 1))
        return -EINVAL;
    int rc = nv_qmd_set(qmd, v, NV_QMD_DEPENDENT_QMD_POINTER, i, next_va >> 8);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_DEPENDENT_QMD_ACTION, i,
                        NVCBC0_QMDV04_00_DEPENDENT_QMD_ACTION_QMD_SCHEDULE);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_DEPENDENT_QMD_PREFETCH, i, 1);
    if (!rc)
        rc = nv_qmd_set(qmd, v, NV_QMD_DEPENDENT_QMD_ENABLE, i, 1);
    return rc == -ERANGE ? -EINVAL : rc;
}

/* ---- launch-shaping numbers ---- */

uint32_t nv_cbuf0_param_start(uint32_t arch)
{
    if (arch >= 0x800 && arch < 0x900)
        return NV_CBUF0_PARAM_START_SM80;
    if (arch >= 0x900 && arch < 0xA00)
        return NV_CBUF0_PARAM_START_SM90;
    if (arch >= 0xA00 && arch < 0xD00)
        return NV_CBUF0_PARAM_START_SM100;
    return 0;
}

uint32_t nv_sass_version(uint32_t arch)
{
    /* 0x900 -> 0x90, 0x860 -> 0x86, 0x809 style (minor in low nibble) too. */
    if (arch < 0x500 || arch > 0xCFF)
        return 0;
    uint32_t major = arch >> 8, minor = (arch >> 4) & 0xF;
    if (minor == 0)
        minor = arch & 0xF;
    return major << 4 | minor;
}

/* Legal per-SM carve-outs in KiB (Mesa nouveau_device.c
 * init_shared_mem_sizes): GA10x/Ada, A100, Hopper. */
static const uint16_t carveout_ampere[] = {0, 8, 16, 32, 64, 100};
static const uint16_t carveout_a100[] = {0, 8, 16, 32, 64, 100, 132, 164};
static const uint16_t carveout_hopper[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

static const uint16_t *carveouts(uint32_t arch, unsigned *n)
{
    if (arch >= 0x900) {
        *n = sizeof(carveout_hopper) / sizeof(carveout_hopper[0]);
        return carveout_hopper;
    }
    if (arch == 0x800) {
        *n = sizeof(carveout_a100) / sizeof(carveout_a100[0]);
        return carveout_a100;
    }
    *n = sizeof(carveout_ampere) / sizeof(carveout_ampere[0]);
    return carveout_ampere;
}

int nv_smem_carveout_kb(uint32_t arch, uint32_t bytes)
{
    unsigned n;
    const uint16_t *t = carveouts(arch, &n);
    for (unsigned i = 0; i < n; i++)
        if ((uint64_t)t[i] * 1024 >= bytes)
            return t[i];
    return -EINVAL;
}

uint32_t nv_smem_max_kb(uint32_t arch)
{
    unsigned n;
    const uint16_t *t = carveouts(arch, &n);
    return t[n - 1];
}

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

uint64_t nv_slm_bytes_per_tpc(uint32_t slm_per_thread, uint32_t max_warps_per_sm,
                              uint32_t sm_per_tpc)
{
    uint64_t per_warp = round_up((uint64_t)slm_per_thread * 32, 0x200);
    return round_up(per_warp * max_warps_per_sm * sm_per_tpc, 0x8000);
}

uint64_t nv_slm_total_bytes(uint64_t bytes_per_tpc, uint32_t tpc_per_gpc, uint32_t gpc_count)
{
    return round_up(bytes_per_tpc * tpc_per_gpc * gpc_count, 0x20000);
}

int nv_remap_fill_components(unsigned pattern_size, uint32_t *components)
{
    /* COMPONENT_SIZE: bytes - 1; NUM_*_COMPONENTS: count - 1. 1- and
     * 2-byte patterns use one component of that size; 4 bytes one 4-byte
     * component (CONST_B); 8 bytes two 4-byte components (low half
     * CONST_A, high half CONST_B). */
    uint32_t size_m1, ncomp_m1, dst;
    switch (pattern_size) {
    case 1:
    case 2:
    case 4:
        size_m1 = pattern_size - 1;
        ncomp_m1 = 0;
        dst = NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_DST_X,
                           NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_B);
        break;
    case 8:
        size_m1 = 3;
        ncomp_m1 = 1;
        dst = NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_DST_X,
                           NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A) |
              NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_DST_Y,
                           NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_B);
        break;
    default: return -EINVAL;
    }
    *components = dst | NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE, size_m1) |
                  NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_NUM_SRC_COMPONENTS, ncomp_m1) |
                  NV_FIELD_NUM(NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS, ncomp_m1);
    return 0;
}

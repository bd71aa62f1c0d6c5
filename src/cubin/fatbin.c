/*
 * fatbin.c — find the cubin for one SM inside a fatbin (what nvcc -fatbin
 * writes and what CUDA embeds in host objects).
 *
 * Layout (little-endian; public reverse-engineered descriptions agree and
 * CUDA 13 nvcc output matches):
 *   blob header, 16 bytes: u32 magic 0xBA55ED50, u16 version 1,
 *     u16 header size, u64 size of the entries that follow;
 *   entries, back to back: u16 kind (1 PTX, 2 ELF), u16 version,
 *     u32 entry header size, u64 payload size, ..., u32 arch (e.g. 90)
 *     at +28, u64 flags at +40 (0x2000 / 0x8000: compressed payload);
 *     the payload follows the entry header.
 * Several blobs may be concatenated.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cubin/cubin.h"

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_HEADER_SIZE 16u
#define FATBIN_ENTRY_MIN 48u
#define FATBIN_KIND_PTX 1u
#define FATBIN_KIND_ELF 2u
#define FATBIN_FLAG_COMPRESSED_LZ4 0x2000ull
#define FATBIN_FLAG_COMPRESSED_ZSTD 0x8000ull

static uint16_t rd16(const uint8_t *b) { uint16_t v; memcpy(&v, b, 2); return v; }
static uint32_t rd32(const uint8_t *b) { uint32_t v; memcpy(&v, b, 4); return v; }
static uint64_t rd64(const uint8_t *b) { uint64_t v; memcpy(&v, b, 8); return v; }

bool cubin_is_fatbin(const void *data, size_t size)
{
    return data && size >= FATBIN_HEADER_SIZE && rd32(data) == FATBIN_MAGIC;
}

static int fatbin_fail(char *log, size_t log_size, int err, const char *msg)
{
    if (log && log_size)
        snprintf(log, log_size, "fatbin: %s", msg);
    return err;
}

int cubin_from_fatbin(const void *data, size_t size, uint32_t sm, const void **cubin,
                      size_t *cubin_size, char *log, size_t log_size)
{
    const uint8_t *b = data;
    size_t off = 0;
    char seen[160] = "";
    size_t seen_len = 0;
    bool compressed_match = false;
    *cubin = NULL;
    *cubin_size = 0;
    if (!cubin_is_fatbin(data, size))
        return fatbin_fail(log, log_size, -EINVAL, "not a fatbin");
    while (size - off >= FATBIN_HEADER_SIZE && rd32(b + off) == FATBIN_MAGIC) {
        uint16_t hsize = rd16(b + off + 6);
        uint64_t body = rd64(b + off + 8);
        if (hsize < FATBIN_HEADER_SIZE || hsize > size - off || body > size - off - hsize)
            return fatbin_fail(log, log_size, -EINVAL, "blob header outside the file");
        size_t e = off + hsize, end = off + hsize + (size_t)body;
        while (end - e >= FATBIN_ENTRY_MIN) {
            uint16_t kind = rd16(b + e);
            uint32_t ehsize = rd32(b + e + 4);
            uint64_t psize = rd64(b + e + 8);
            uint32_t arch = rd32(b + e + 28);
            uint64_t flags = rd64(b + e + 40);
            if (ehsize < FATBIN_ENTRY_MIN || ehsize > end - e || psize > end - e - ehsize)
                return fatbin_fail(log, log_size, -EINVAL, "entry outside its blob");
            if (kind == FATBIN_KIND_ELF) {
                bool compressed =
                    flags & (FATBIN_FLAG_COMPRESSED_LZ4 | FATBIN_FLAG_COMPRESSED_ZSTD);
                if (arch == sm && !compressed) {
                    *cubin = b + e + ehsize;
                    *cubin_size = (size_t)psize;
                    return 0;
                }
                compressed_match |= arch == sm && compressed;
                if (seen_len < sizeof(seen) - 16) {
                    int n = snprintf(seen + seen_len, sizeof(seen) - seen_len, "%ssm_%u%s",
                                     seen_len ? " " : "", arch, compressed ? "(compressed)" : "");
                    if (n > 0)
                        seen_len += (size_t)n;
                }
            }
            e += ehsize + (size_t)psize;
        }
        off = end;
        /* Blobs are 8-byte aligned when concatenated. */
        off = (off + 7) & ~(size_t)7;
        if (off > size)
            break;
    }
    if (log && log_size)
        snprintf(log, log_size, "fatbin: no %scubin for sm_%u (has: %s)",
                 compressed_match ? "uncompressed " : "", sm, seen_len ? seen : "none");
    return -ENOENT;
}

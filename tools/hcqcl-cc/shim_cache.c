/*
 * shim_cache.c — the compiled builtin shim, kept between builds.
 *
 * Compiling the shim is the larger part of building a small program
 * (0.09 of 0.16 s for a one-line kernel), and its bitcode depends only on
 * the shim, the clang binary and the target. It is kept as
 * shim-<key>.bc in the user's hcqcl cache directory (HCQCL_CACHE_DIR,
 * else $XDG_CACHE_HOME/hcqcl, else ~/.cache/hcqcl, as the library's
 * cache), the key a SHA-256 over the compiler identity, the shim's
 * compile flags (target included), the clang binary's path, size and
 * modification time, and the shim's text. Written to a temporary name
 * and renamed, so concurrent builds share it; any failure here only means
 * the shim is compiled again, and so does a build that fails with a
 * cached shim (compile() in main.c), which then replaces it.
 */
#include "cc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char BC_MAGIC[4] = { 'B', 'C', (char)0xC0, (char)0xDE };

char *cc_shim_cache_path(const char *clang, const char *flags)
{
    struct stat st;
    if (stat(clang, &st) != 0)
        return NULL;
    char dir[4096];
    const char *env = getenv("HCQCL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    if (env && *env)
        snprintf(dir, sizeof(dir), "%s", env);
    else if (xdg && *xdg)
        snprintf(dir, sizeof(dir), "%s/hcqcl", xdg);
    else if (home && *home)
        snprintf(dir, sizeof(dir), "%s/.cache/hcqcl", home);
    else
        return NULL;
    struct cc_buf id = { 0 };
    cc_buf_addf(&id, "%s\n%s\n%s\n%lld %lld.%09ld\n", CC_COMPILER_ID, flags, clang,
                (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    cc_buf_add(&id, (const char *)hcqcl_cc_shim, hcqcl_cc_shim_size);
    if (!id.s)
        return NULL;
    uint8_t d[32];
    cubin_container_sha256(id.s, id.len, d);
    free(id.s);
    char *path = malloc(strlen(dir) + 80);
    if (!path)
        return NULL;
    char *w = path + sprintf(path, "%s/shim-", dir);
    for (int i = 0; i < 32; i++)
        w += sprintf(w, "%02x", d[i]);
    strcpy(w, ".bc");
    return path;
}

bool cc_shim_cache_usable(const char *path)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    char head[4] = { 0 };
    bool ok = f && fread(head, 1, 4, f) == 4 && memcmp(head, BC_MAGIC, 4) == 0;
    if (f)
        fclose(f);
    return ok;
}

void cc_shim_cache_store(const char *path, const char *bc)
{
    char *data = NULL;
    size_t size = 0;
    if (!path || cc_read_file(bc, &data, &size) != 0)
        return;
    if (size >= 4 && memcmp(data, BC_MAGIC, 4) == 0) {
        /* The directory may not exist yet: the library makes it too. */
        char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
        if (slash) {
            *slash = 0;
            mkdir(dir, 0755);
        }
        free(dir);
        cc_write_file_atomic(path, data, size);
    }
    free(data);
}

/*
 * cache_trim.c — the writable kernel cache kept to a size
 * (HCQCL_CACHE_MAXSIZE; obj.h, "Compiler").
 *
 * Every program built from source leaves its container (<key>.bin) in the
 * cache, and nothing else removes one: a program that generates kernels
 * (a tuner trying thousands of variants) would fill the disk. After each
 * store, when the containers take more than the limit, the least recently
 * used go until they take three quarters of it, so that a cache at its
 * limit is not scanned again at every build. A hit sets its entry's
 * modification time, so the time says when a program was last used
 * (access times are often not kept). Processes share the directory: an
 * entry another one removes first, or reads while it goes, is a miss for
 * the reader, which compiles again.
 */
#include "api/obj.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct entry {
    char *name;
    uint64_t bytes;
    struct timespec used;
};

static int older_first(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

bool hcqcl_cache_is_container(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 4 && strcmp(name + n - 4, ".bin") == 0;
}

uint64_t hcqcl_cache_limit(void)
{
    const char *s = util_env()->cache_max;
    char *end = NULL;
    errno = 0;
    unsigned long long v = s && *s ? strtoull(s, &end, 0) : 0;
    if (!s || !*s || errno || *end) {
        static atomic_bool said;
        if (s && *s && !atomic_exchange(&said, true))
            util_log(UTIL_LOG_ERR, "api: HCQCL_CACHE_MAXSIZE=%s is not a number of bytes; "
                                   "the cache is not limited", s);
        return 0;
    }
    return v;
}

void hcqcl_cache_touch(const char *path)
{
    /* NULL: now, for both times. */
    if (utimensat(AT_FDCWD, path, NULL, 0) != 0)
        UTIL_LOG(UTIL_LOG_API, "cache: cannot mark %s used: %s", path, strerror(errno));
}

void hcqcl_cache_trim(const char *dir, const char *keep)
{
    const uint64_t limit = hcqcl_cache_limit();
    if (!limit)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct entry *e = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    for (struct dirent *de; (de = readdir(d));) {
        struct stat st;
        if (!hcqcl_cache_is_container(de->d_name) ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        total += (uint64_t)st.st_size;
        if (keep && !strcmp(de->d_name, keep))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            struct entry *ne = realloc(e, ncap * sizeof(*e));
            if (!ne)
                break;
            e = ne;
            cap = ncap;
        }
        e[n].name = strdup(de->d_name);
        if (!e[n].name)
            break;
        e[n].bytes = (uint64_t)st.st_size;
        e[n].used = st.st_mtim;
        n++;
    }
    if (total > limit) {
        qsort(e, n, sizeof(*e), older_first);
        const uint64_t goal = limit / 4 * 3;
        size_t removed = 0;
        for (size_t i = 0; i < n && total > goal; i++) {
            if (unlinkat(dirfd(d), e[i].name, 0) != 0 && errno != ENOENT)
                continue;
            /* Its build log (compiler.c), if it had one: a container's
             * name ends ".bin". */
            char log[512];
            snprintf(log, sizeof(log), "%.*s.log", (int)(strlen(e[i].name) - 4), e[i].name);
            unlinkat(dirfd(d), log, 0);
            total -= e[i].bytes;
            removed++;
        }
        UTIL_LOG(UTIL_LOG_API, "cache: %s over %llu bytes: %zu least recently used programs "
                               "removed, %llu bytes left", dir, (unsigned long long)limit,
                 removed, (unsigned long long)total);
    }
    for (size_t i = 0; i < n; i++)
        free(e[i].name);
    free(e);
    closedir(d);
}

/*
 * copy.c — the staging copy threads (src/api/staging_copy.c), white-box:
 * every byte of copies of awkward sizes and alignments lands, and nothing
 * around the destination is touched, for each split and store kind;
 * several callers at once share the workers; HCQCL_STAGING_THREADS sets
 * the split; a forked child copies without the parent's workers.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/obj.h"
#include "check.h"

enum { GUARD = 64, GUARD_BYTE = 0xe7 };

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

/* Copy n bytes from src + soff to dst + doff with the given split and
 * store kind; true when exactly those bytes changed, to the source's. */
static bool copy_ok(size_t n, size_t soff, size_t doff, unsigned threads,
                    enum hcqcl_copy_store store, uint32_t seed)
{
    uint8_t *src = malloc(n + soff + 1);
    uint8_t *dst = malloc(n + doff + 2 * GUARD);
    REQUIRE(src && dst);
    fill(src, n + soff + 1, seed);
    memset(dst, GUARD_BYTE, n + doff + 2 * GUARD);
    uint8_t *d = dst + GUARD + doff;
    hcqcl_staging_copy_ex(d, src + soff, n, threads, store);
    bool ok = memcmp(d, src + soff, n) == 0;
    for (size_t i = 0; i < GUARD + doff; i++)
        ok = ok && dst[i] == GUARD_BYTE;
    for (size_t i = 0; i < GUARD; i++)
        ok = ok && d[n + i] == GUARD_BYTE;
    if (!ok)
        fprintf(stderr, "copy of %zu bytes (src +%zu, dst +%zu, %u threads, store %d) wrong\n",
                n, soff, doff, threads, (int)store);
    free(src);
    free(dst);
    return ok;
}

static void test_shapes(void)
{
    const size_t sizes[] = {0, 1, 15, 63, 64, 65, (64u << 10) - 1, 64u << 10,
                            (1u << 20) + 7, (5u << 20) + 13, (17u << 20) + 3};
    const unsigned splits[] = {1, 2, 3, 8};
    const enum hcqcl_copy_store stores[] = {HCQCL_COPY_PLAIN, HCQCL_COPY_STREAM, HCQCL_COPY_AUTO};
    uint32_t seed = 1;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (size_t t = 0; t < sizeof(splits) / sizeof(splits[0]); t++)
            for (size_t k = 0; k < sizeof(stores) / sizeof(stores[0]); k++) {
                /* Both ends misaligned by different amounts, and aligned. */
                EXPECT(copy_ok(sizes[s], 0, 0, splits[t], stores[k], seed++));
                EXPECT(copy_ok(sizes[s], 3, 9, splits[t], stores[k], seed++));
            }
}

/* Callers at once: each copy is its own and all complete. */
struct caller {
    int id;
    int bad;
};

static void *caller_main(void *arg)
{
    struct caller *c = arg;
    for (int i = 0; i < 12; i++) {
        size_t n = (6u << 20) + (size_t)c->id * 4099 + (size_t)i * 61;
        if (!copy_ok(n, (size_t)c->id, (size_t)i % 5, 0, HCQCL_COPY_AUTO,
                     (uint32_t)(c->id * 1000 + i)))
            c->bad++;
    }
    return NULL;
}

static void test_callers(void)
{
    enum { N = 4 };
    pthread_t th[N];
    struct caller c[N];
    for (int i = 0; i < N; i++) {
        c[i] = (struct caller){i, 0};
        REQUIRE(pthread_create(&th[i], NULL, caller_main, &c[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        EXPECT(c[i].bad == 0, "caller %d: %d wrong copies", i, c[i].bad);
    }
}

/* ThreadSanitizer refuses new threads in a child forked from a threaded
 * process, which is what this checks. */
#if defined(__SANITIZE_THREAD__)
#define COPY_TEST_FORK 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COPY_TEST_FORK 0
#endif
#endif
#ifndef COPY_TEST_FORK
#define COPY_TEST_FORK 1
#endif

/* The workers exist now (test_callers); the child has none of them. */
static void test_fork(void)
{
    if (!COPY_TEST_FORK) {
        printf("api_transfer_copy: fork check skipped under ThreadSanitizer\n");
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        bool ok = copy_ok((9u << 20) + 1, 1, 2, 4, HCQCL_COPY_AUTO, 77) &&
                  copy_ok(3u << 20, 0, 0, 0, HCQCL_COPY_PLAIN, 78);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
    /* And the parent's workers still serve it. */
    EXPECT(copy_ok((7u << 20) + 5, 2, 1, 0, HCQCL_COPY_AUTO, 79));
}

int main(void)
{
    /* Read once, at the first copy: 4 threads whatever the machine has. */
    setenv("HCQCL_STAGING_THREADS", "4", 1);
    EXPECT(hcqcl_staging_copy_threads() == 4, "%u threads", hcqcl_staging_copy_threads());
    test_shapes();
    test_callers();
    test_fork();
    return check_done("api_transfer_copy");
}

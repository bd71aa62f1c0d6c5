/* Logging and environment options (util.h). */
#include "util/util.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct util_env env;
static unsigned log_mask = UTIL_LOG_ERR;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static const struct {
    const char *name;
    unsigned bit;
} log_names[] = {
    {"api", UTIL_LOG_API},   {"core", UTIL_LOG_CORE}, {"nv", UTIL_LOG_NV},
    {"nvdrv", UTIL_LOG_NVDRV}, {"emu", UTIL_LOG_EMU}, {"cubin", UTIL_LOG_CUBIN},
};

static void env_read(void)
{
#define UTIL_ENV_READ(field, name, def, help)                                             \
    do {                                                                                  \
        const char *v = getenv(name);                                                     \
        env.field = (v && *v) ? v : def;                                                  \
    } while (0);
    UTIL_ENV_OPTIONS(UTIL_ENV_READ)
#undef UTIL_ENV_READ
    /* Parse the log list: comma separated names, or "all". */
    const char *s = env.log;
    while (s && *s) {
        size_t n = strcspn(s, ",");
        if (n == 3 && !strncmp(s, "all", 3))
            log_mask = ~0u;
        for (size_t i = 0; i < UTIL_ARRAY_SIZE(log_names); i++)
            if (strlen(log_names[i].name) == n && !strncmp(s, log_names[i].name, n))
                log_mask |= log_names[i].bit;
        s += n;
        if (*s == ',')
            s++;
    }
}

const struct util_env *util_env(void)
{
    pthread_once(&env_once, env_read);
    return &env;
}

bool util_log_enabled(enum util_log_cat cat)
{
    util_env();
    return (log_mask & cat) != 0;
}

static const char *cat_name(enum util_log_cat cat)
{
    for (size_t i = 0; i < UTIL_ARRAY_SIZE(log_names); i++)
        if (log_names[i].bit == (unsigned)cat)
            return log_names[i].name;
    return "error";
}

void util_log(enum util_log_cat cat, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    fprintf(stderr, "hcqcl %s: %s\n", cat_name(cat), buf);
}

void util_log_check(const char *func, const char *cond, const char *err, const char *fmt, ...)
{
    if (!util_log_enabled(UTIL_LOG_API))
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    fprintf(stderr, "hcqcl api: %s: (%s) failed -> %s: %s\n", func, cond, err, buf);
}

uint64_t util_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

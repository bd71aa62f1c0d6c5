/*
 * run.c — the tool chain hcqcl-cc drives: finding clang, ptxas and
 * libclc, a private temporary directory, child processes whose output
 * becomes the build log, and file helpers.
 */
#include "cc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct cc_buf cc_log;

void cc_buf_add(struct cc_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns)
            return; /* the log loses text; the build result is unaffected */
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

static void buf_vaddf(struct cc_buf *b, const char *fmt, va_list ap)
{
    char tmp[1024];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof(tmp)) {
        cc_buf_add(b, tmp, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, fmt, ap2);
            cc_buf_add(b, big, (size_t)n);
            free(big);
        }
    }
    va_end(ap2);
}

void cc_buf_addf(struct cc_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(b, fmt, ap);
    va_end(ap);
}

void cc_logf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(&cc_log, fmt, ap);
    va_end(ap);
}

void cc_argv_add(struct cc_argv *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        char **nv = realloc(a->v, cap * sizeof(*nv));
        if (!nv) {
            fprintf(stderr, "hcqcl-cc: out of memory\n");
            exit(CC_ENVIRONMENT);
        }
        a->v = nv;
        a->cap = cap;
    }
    a->v[a->n] = strdup(s);
    if (!a->v[a->n]) {
        fprintf(stderr, "hcqcl-cc: out of memory\n");
        exit(CC_ENVIRONMENT);
    }
    a->v[++a->n] = NULL;
}

void cc_argv_addf(struct cc_argv *a, const char *fmt, ...)
{
    struct cc_buf b = { 0 };
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(&b, fmt, ap);
    va_end(ap);
    cc_argv_add(a, b.s ? b.s : "");
    free(b.s);
}

void cc_argv_free(struct cc_argv *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof(*a));
}

static bool is_exec(const char *p) { return access(p, X_OK) == 0; }
static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* First directory of $PATH holding an executable called name. */
static char *path_search(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || strchr(name, '/'))
        return is_exec(name) ? strdup(name) : NULL;
    const char *p = path;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char cand[4096];
        if (len && len + strlen(name) + 2 < sizeof(cand)) {
            snprintf(cand, sizeof(cand), "%.*s/%s", (int)len, p, name);
            if (is_exec(cand))
                return strdup(cand);
        }
        p += len + (e ? 1 : 0);
        if (!e)
            break;
    }
    return NULL;
}

static char *find_exec(const char *env, const char *const *names, size_t n)
{
    const char *e = getenv(env);
    if (e && *e)
        return path_search(e);
    for (size_t i = 0; i < n; i++) {
        char *r = path_search(names[i]);
        if (r)
            return r;
    }
    return NULL;
}

int cc_tools_find(struct cc_tools *t)
{
    static const char *const clangs[] = { "clang-16", "clang" };
    static const char *const ptxases[] = { "ptxas", "/usr/local/cuda/bin/ptxas" };
    static const char *const clcs[] = {
        "/usr/lib/clc/nvptx64--nvidiacl.bc",
        "/usr/share/clc/nvptx64--nvidiacl.bc",
        "/usr/local/lib/clc/nvptx64--nvidiacl.bc",
        "/usr/lib/llvm-16/lib/clc/nvptx64--nvidiacl.bc",
    };
    memset(t, 0, sizeof(*t));
    t->clang = find_exec("HCQCL_CLANG", clangs, 2);
    t->ptxas = find_exec("HCQCL_PTXAS", ptxases, 2);
    const char *e = getenv("HCQCL_LIBCLC");
    if (e && *e) {
        t->libclc = is_file(e) ? strdup(e) : NULL;
    } else {
        for (size_t i = 0; i < sizeof(clcs) / sizeof(clcs[0]) && !t->libclc; i++)
            if (is_file(clcs[i]))
                t->libclc = strdup(clcs[i]);
    }
    int rc = CC_OK;
    if (!t->clang) {
        cc_logf("error: clang (16) not found: install clang-16 or set HCQCL_CLANG\n");
        rc = CC_ENVIRONMENT;
    }
    if (!t->libclc) {
        cc_logf("error: libclc's nvptx64--nvidiacl.bc not found: install libclc-16 or set "
                "HCQCL_LIBCLC\n");
        rc = CC_ENVIRONMENT;
    }
    if (!t->ptxas) {
        cc_logf("error: ptxas not found: install the CUDA toolkit, put ptxas on PATH or set "
                "HCQCL_PTXAS\n");
        rc = CC_ENVIRONMENT;
    }
    return rc;
}

void cc_tools_free(struct cc_tools *t)
{
    free(t->clang);
    free(t->ptxas);
    free(t->libclc);
}

char *cc_tmpdir_create(void)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    char *tmpl = malloc(strlen(base) + 32);
    if (!tmpl)
        return NULL;
    sprintf(tmpl, "%s/hcqcl-cc.XXXXXX", base);
    if (!mkdtemp(tmpl)) {
        free(tmpl);
        return NULL;
    }
    strcat(tmpl, "/");
    return tmpl;
}

void cc_tmpdir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char p[4096];
            snprintf(p, sizeof(p), "%s%s", dir, de->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Append the child's output to the build log, minus the temporary
 * directory in paths ("program.cl:3:1: error" reads better) and minus the
 * target-triple note every libclc link prints. */
static void log_child_output(const char *path, const char *tmpdir)
{
    char *data = NULL;
    size_t size = 0;
    if (cc_read_file(path, &data, &size) != 0)
        return;
    size_t tl = strlen(tmpdir);
    for (char *line = data; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
        for (size_t i = 0; i < len;) {
            if (i + tl <= len && memcmp(line + i, tmpdir, tl) == 0) {
                i += tl;
                continue;
            }
            cc_buf_add(&cc_log, line + i, 1);
            i++;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(data);
}

int cc_run(char *const argv[], const char *tmpdir, bool verbose)
{
    char out[4096];
    snprintf(out, sizeof(out), "%schild.log", tmpdir);
    unlink(out);
    if (verbose) {
        cc_logf("+");
        for (size_t i = 0; argv[i]; i++)
            cc_logf(" %s", argv[i]);
        cc_logf("\n");
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int err = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err) {
        cc_logf("error: cannot run %s: %s\n", argv[0], strerror(err));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            cc_logf("error: waiting for %s: %s\n", argv[0], strerror(errno));
            return -1;
        }
    }
    log_child_output(out, tmpdir);
    unlink(out);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    cc_logf("error: %s killed by signal %d\n", argv[0], WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return -1;
}

int cc_read_file(const char *path, char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    struct cc_buf b = { 0 };
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        cc_buf_add(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b.s);
        return -EIO;
    }
    if (!b.s)
        b.s = calloc(1, 1);
    if (!b.s)
        return -ENOMEM;
    *data = b.s; /* NUL-terminated for text users */
    *size = b.len;
    return 0;
}

int cc_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -errno;
    size_t w = fwrite(data, 1, size, f);
    int rc = (w == size && fflush(f) == 0) ? 0 : -EIO;
    if (fclose(f) != 0)
        rc = -EIO;
    return rc;
}

int cc_write_file_atomic(const char *path, const void *data, size_t size)
{
    /* An output that is not a regular file (/dev/null, a pipe, a
     * terminal, /dev/stdout through its link) is written in place: a
     * rename would put a regular file where it was. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return cc_write_file(path, data, size);
    /* A unique temporary name: processes of one pid in other namespaces
     * may write the same shared path at once. */
    char *tmp = malloc(strlen(path) + 16);
    if (!tmp)
        return -ENOMEM;
    sprintf(tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = -errno;
        free(tmp);
        return e;
    }
    close(fd);
    chmod(tmp, 0644);
    int rc = cc_write_file(tmp, data, size);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}

int cc_mkdir_p(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof(p), "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0755) != 0 && errno != EEXIST)
                return -errno;
            *s = '/';
        }
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        return -errno;
    return 0;
}

/*
 * compiler.c — builds from source: the cubin cache and the hcqcl-cc child
 * process (obj.h, "Compiler"; docs/compiler.md).
 *
 * The ICD holds no compiler itself. A build from source is answered from
 * a content-addressed cache of program containers (key: source, options,
 * target, compiler version — cubin_container_cache_key(), computed the
 * same way by hcqcl-cc when it fills a cache), and on a miss by running
 * hcqcl-cc. Machines without clang (the GPU machine) run from caches
 * filled elsewhere; a miss there leaves the source in the writable cache
 * directory for `hcqcl-cc --from-spool` and says so in the build log.
 *
 * "Compiler available" (CL_DEVICE_COMPILER_AVAILABLE, hcqcl_compiler_
 * available) means hcqcl-cc with a complete tool chain, or a kernel cache
 * holding programs (the tool chain's output, made elsewhere): with either,
 * source builds are served and a build that cannot be is a build failure
 * whose log says why. With neither there is no compiler at all, and a
 * build from source answers CL_COMPILER_NOT_AVAILABLE, as the spec ties
 * that code to the device query.
 */
#include "api/obj.h"
#include "cubin/container.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Both sides of the cache (this file and hcqcl-cc) derive keys from it. */
#define COMPILER_ID CUBIN_CONTAINER_COMPILER_ID

/* hcqcl-cc's exit statuses. */
enum { CC_OK = 0, CC_BUILD_FAILED = 1, CC_BAD_OPTIONS = 2, CC_ENVIRONMENT = 3 };

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* Directory holding this library (build tree: the build directory;
 * installed: the lib directory), or NULL. */
static char *library_dir(void)
{
    Dl_info info;
    if (!dladdr((void *)&hcqcl_compile_source, &info) || !info.dli_fname)
        return NULL;
    char *real = realpath(info.dli_fname, NULL);
    if (!real)
        return NULL;
    char *slash = strrchr(real, '/');
    if (slash)
        *slash = 0;
    return real;
}

static bool is_exec(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* name in a directory of PATH: malloc'ed path, or NULL. */
static char *path_lookup(const char *name)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n) {
            char *p = dup_printf("%.*s/%s", (int)n, path, name);
            if (is_exec(p))
                return p;
            free(p);
        }
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* Run argv[0] (a path) with stdin from /dev/null and stdout and stderr
 * into out_path (NULL: /dev/null). Returns its exit status; -1 when it
 * could not be run or did not exit; -2 when its status is lost because
 * the application ignores SIGCHLD (the caller judges by its output). */
static int run_tool(char *const argv[], const char *out_path)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int err = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err)
        return -1;
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0) {
        if (errno == ECHILD)
            return -2;
        if (errno != EINTR)
            return -1;
    }
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

/* HCQCL_CC; next to the library (build tree: tools/; installed: bin/);
 * then PATH. malloc'ed, or NULL. */
static char *find_compiler(void)
{
    const char *env = util_env()->cc;
    if (env && *env)
        return is_exec(env) ? strdup(env) : NULL;
    char *dir = library_dir();
    if (dir) {
        const char *rel[] = { "tools/hcqcl-cc", "../bin/hcqcl-cc", "../../bin/hcqcl-cc" };
        for (size_t i = 0; i < UTIL_ARRAY_SIZE(rel); i++) {
            char *p = dup_printf("%s/%s", dir, rel[i]);
            if (is_exec(p)) {
                free(dir);
                return p;
            }
            free(p);
        }
        free(dir);
    }
    return path_lookup("hcqcl-cc");
}

bool hcqcl_compiler_present(void)
{
    char *cc = find_compiler();
    free(cc);
    return cc != NULL;
}

static char *writable_cache_dir(void);

/* hcqcl-cc --check-tools: its clang, libclc and ptxas are all found.
 * Asked once per process and compiler path (the environment hcqcl-cc
 * reads is fixed for the process, as util_env's is). */
static bool toolchain_usable(const char *cc)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char *checked;
    static bool usable;
    pthread_mutex_lock(&lock);
    if (checked && strcmp(checked, cc) == 0) {
        bool r = usable;
        pthread_mutex_unlock(&lock);
        return r;
    }
    char *argv[] = { (char *)cc, "--check-tools", NULL };
    int st = run_tool(argv, NULL);
    /* -2: the application ignores SIGCHLD and the status is gone. Count
     * the compiler in (a build then reports what is missing) and ask
     * again next time rather than remember a guess. */
    bool ok = st == CC_OK || st == -2, known = st != -2;
    if (known) {
        free(checked);
        checked = strdup(cc);
        usable = ok;
    }
    pthread_mutex_unlock(&lock);
    UTIL_LOG(UTIL_LOG_API, "compiler: %s --check-tools: %s", cc, ok ? "complete" : "incomplete");
    return ok;
}

/* dir holds at least one program container (<key>.bin). */
static bool dir_has_programs(const char *dir)
{
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = hcqcl_cache_is_container(e->d_name);
    closedir(d);
    return found;
}

/* The read-only caches beside the library (build tree, installed). */
static const char *const lib_cache_rel[] = { "cache", "../share/hcqcl/cache",
                                             "../../share/hcqcl/cache" };

static bool cache_present(void)
{
    char *w = writable_cache_dir();
    bool found = dir_has_programs(w);
    free(w);
    char *libdir = library_dir();
    for (size_t i = 0; libdir && !found && i < UTIL_ARRAY_SIZE(lib_cache_rel); i++) {
        char *d = dup_printf("%s/%s", libdir, lib_cache_rel[i]);
        found = dir_has_programs(d);
        free(d);
    }
    free(libdir);
    return found;
}

bool hcqcl_compiler_available(void)
{
    char *cc = find_compiler();
    bool ok = cc && toolchain_usable(cc);
    free(cc);
    return ok || cache_present();
}

/* The writable cache directory (not created here), or NULL. */
static char *writable_cache_dir(void)
{
    const char *env = util_env()->cache_dir;
    if (env && *env)
        return strdup(env);
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && *xdg)
        return dup_printf("%s/hcqcl", xdg);
    const char *home = getenv("HOME");
    if (home && *home)
        return dup_printf("%s/.cache/hcqcl", home);
    return NULL;
}

static int mkdir_p(const char *dir)
{
    char *p = strdup(dir);
    if (!p)
        return -ENOMEM;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            free(p);
            return -errno;
        }
        *s = '/';
    }
    int rc = (mkdir(p, 0755) != 0 && errno != EEXIST) ? -errno : 0;
    free(p);
    return rc;
}

static int read_file(const char *path, void **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > INT_MAX) {
        close(fd);
        return -EINVAL;
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    if (!buf) {
        close(fd);
        return -ENOMEM;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != n) {
        free(buf);
        return -EIO;
    }
    buf[n] = 0;
    *data = buf;
    *size = n;
    return 0;
}

static int write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -EIO;
        p += w;
        size -= (size_t)w;
    }
    return 0;
}

/* Write dir/name atomically: a unique temporary file in dir, renamed.
 * Readers see the old file, no file, or the whole new one. */
static int write_atomic(const char *dir, const char *name, const void *data, size_t size)
{
    if (mkdir_p(dir) != 0)
        return -errno;
    char *tmp = dup_printf("%s/.%s.XXXXXX", dir, name);
    char *dst = dup_printf("%s/%s", dir, name);
    int rc = -ENOMEM;
    if (tmp && dst) {
        int fd = mkstemp(tmp);
        if (fd < 0) {
            rc = -errno;
        } else {
            rc = write_all(fd, data, size);
            if (fchmod(fd, 0644) != 0 && !rc)
                rc = -errno;
            if (close(fd) != 0 && !rc)
                rc = -EIO;
            if (!rc && rename(tmp, dst) != 0)
                rc = -errno;
            if (rc)
                unlink(tmp);
        }
    }
    free(tmp);
    free(dst);
    return rc;
}

/* Remove dir/name if it is there. */
static void remove_in(const char *dir, const char *name)
{
    char *path = dup_printf("%s/%s", dir, name);
    if (path && unlink(path) != 0 && errno != ENOENT)
        UTIL_LOG(UTIL_LOG_API, "compiler: cannot remove %s: %s", path, strerror(errno));
    free(path);
}

/* A cached container that parses, is for arch, and was built with these
 * options (guards against a foreign or damaged file under the name). */
static bool cache_entry_ok(const void *data, size_t size, uint32_t arch, const char *norm_opts)
{
    struct cubin_container *c;
    if (cubin_container_parse(data, size, &c) != 0)
        return false;
    char *o = cubin_container_normalize_options(c->options);
    bool ok = c->arch == arch && o && strcmp(o, norm_opts) == 0;
    free(o);
    cubin_container_free(c);
    return ok;
}

/* A cached build's log: <key>.log beside <key>.bin, written when the
 * compiler said something (warnings, -cl-nv-verbose), so a build served
 * from the cache shows what the one that filled it did. NULL if none. */
static char *cache_log(const char *dir, const char *key)
{
    char *path = dup_printf("%s/%s.log", dir, key);
    void *data = NULL;
    size_t n = 0;
    char *log = NULL;
    if (path && read_file(path, &data, &n) == 0 && (log = realloc(data, n + 1)))
        log[n] = 0;
    else if (data)
        free(data);
    free(path);
    return log;
}

/* touch: dir is the writable cache, where a hit marks its entry used.
 * *log: the cached build's log, when it has one. */
static bool cache_lookup(const char *dir, const char *key, uint32_t arch, const char *norm_opts,
                         bool touch, void **container, size_t *size, char **log)
{
    char *path = dup_printf("%s/%s.bin", dir, key);
    if (!path)
        return false;
    void *data;
    size_t n;
    bool hit = false;
    if (read_file(path, &data, &n) == 0) {
        hit = cache_entry_ok(data, n, arch, norm_opts);
        if (hit) {
            *container = data;
            *size = n;
            *log = cache_log(dir, key);
            if (touch)
                hcqcl_cache_touch(path);
        } else {
            util_log(UTIL_LOG_ERR, "api: cache entry %s is not a usable program; ignored", path);
            free(data);
        }
    }
    UTIL_LOG(UTIL_LOG_API, "compiler: %s %s", hit ? "hit" : "miss", path);
    free(path);
    return hit;
}

/* Remove tmpdir's path from the log so messages read "program.cl:3:1". */
static char *strip_prefix(char *log, const char *prefix)
{
    size_t pl = strlen(prefix);
    char *w = log;
    for (const char *r = log; *r;) {
        if (strncmp(r, prefix, pl) == 0) {
            r += pl;
            continue;
        }
        *w++ = *r++;
    }
    *w = 0;
    return log;
}

/* Run hcqcl-cc on the source; fills *container or *log. Returns the
 * tool's exit status, or -1 when it could not be run. */
static int run_compiler(const char *cc, const char *src, size_t len, const char *options,
                        uint32_t arch, void **container, size_t *size, char **log)
{
    char tmpl[] = "/tmp/hcqcl-build.XXXXXX";
    const char *tmpenv = getenv("TMPDIR");
    char *dir = tmpenv && *tmpenv ? dup_printf("%s/hcqcl-build.XXXXXX", tmpenv) : strdup(tmpl);
    if (!dir || !mkdtemp(dir)) {
        *log = dup_printf("cannot create a temporary directory: %s\n", strerror(errno));
        free(dir);
        return -1;
    }
    char *src_path = dup_printf("%s/program.cl", dir);
    char *out_path = dup_printf("%s/program.bin", dir);
    char *log_path = dup_printf("%s/build.log", dir);
    char *arch_opt = dup_printf("--arch=sm_%x%x", arch >> 8, (arch >> 4) & 0xf);
    char *opt_opt = dup_printf("--options=%s", options);
    char *src_opt = src_path ? dup_printf("--source=%s", src_path) : NULL;
    char *out_opt = out_path ? dup_printf("--output=%s", out_path) : NULL;
    int status = -1;
    if (!src_path || !out_path || !log_path || !arch_opt || !opt_opt || !src_opt || !out_opt)
        goto out;

    int fd = open(src_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write_all(fd, src, len) != 0) {
        if (fd >= 0)
            close(fd);
        *log = dup_printf("cannot write %s\n", src_path);
        goto out;
    }
    close(fd);

    char *argv[] = { (char *)cc, arch_opt, opt_opt, src_opt, out_opt, NULL };
    status = run_tool(argv, log_path);
    if (status == -2) /* reaped by the application: judge by the output */
        status = access(out_path, R_OK) == 0 ? CC_OK : CC_BUILD_FAILED;
    void *text = NULL;
    size_t tn;
    if (read_file(log_path, &text, &tn) == 0) {
        char *prefix = dup_printf("%s/", dir);
        *log = prefix ? strip_prefix(text, prefix) : text;
        free(prefix);
    }
    if (status == CC_OK && read_file(out_path, container, size) != 0)
        status = -1;
    if (status == -1 && !*log)
        *log = dup_printf("%s did not finish\n", cc);
out:
    if (src_path)
        unlink(src_path);
    if (out_path)
        unlink(out_path);
    if (log_path)
        unlink(log_path);
    rmdir(dir);
    free(dir);
    free(src_path);
    free(out_path);
    free(log_path);
    free(arch_opt);
    free(opt_opt);
    free(src_opt);
    free(out_opt);
    return status;
}

/* Leave the source where `hcqcl-cc --from-spool=DIR` finds it. */
/* True when opts name an include path other than an embedded-header
 * directory (".../hcqcl-headers-<uid>-<hash>", which program_build.c adds). */
static bool user_include_path(const char *opts)
{
    for (const char *p = strstr(opts, "-I"); p; p = strstr(p + 2, "-I")) {
        const char *a = p + 2;
        while (*a == ' ')
            a++;
        size_t n = strcspn(a, " ");
        const char *base = a + n;
        while (base > a && base[-1] != '/')
            base--;
        if (strncmp(base, "hcqcl-headers-", 14) != 0)
            return true;
    }
    return false;
}

static void spool_miss(const char *dir, const char *key, const char *src, size_t len,
                       const char *options, uint32_t arch)
{
    char *name = dup_printf("%s.cl", key);
    char *desc = dup_printf("arch=sm_%x%x\noptions=%s\n", arch >> 8, (arch >> 4) & 0xf, options);
    char *bname = dup_printf("%s.build", key);
    if (name && desc && bname && write_atomic(dir, name, src, len) == 0)
        write_atomic(dir, bname, desc, strlen(desc));
    free(name);
    free(desc);
    free(bname);
}

cl_int hcqcl_compile_source(const char *src, size_t len, const char *options, uint32_t arch,
                            void **container, size_t *size, char **log)
{
    *container = NULL;
    *size = 0;
    *log = NULL;
    const char *opts = options ? options : "";
    char key[65];
    cubin_container_cache_key(src, len, opts, arch, COMPILER_ID, key);
    char *norm = cubin_container_normalize_options(opts);
    char *wdir = writable_cache_dir();
    char *libdir = library_dir();
    char *cc = find_compiler();
    cl_int err = CL_SUCCESS;
    if (!norm) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto out;
    }

    /* Headers on include paths are not part of the key: with a compiler
     * at hand a program that includes files is always compiled, so edited
     * headers count, and its build is not stored. Embedded headers
     * (clCompileProgram's input_headers) are: their directory is named by
     * their contents (program_build.c), so a program whose only include
     * path is that one is cached like any other. */
    bool includes = memmem(src, len, "#include", 8) || strstr(opts, "-I");
    bool user_includes = user_include_path(opts);
    bool tools = includes && cc && toolchain_usable(cc);
    if (!tools) {
        if (wdir && cache_lookup(wdir, key, arch, norm, true, container, size, log))
            goto out;
        if (libdir) {
            for (size_t i = 0; i < UTIL_ARRAY_SIZE(lib_cache_rel); i++) {
                char *d = dup_printf("%s/%s", libdir, lib_cache_rel[i]);
                bool hit = d && cache_lookup(d, key, arch, norm, false, container, size, log);
                free(d);
                if (hit)
                    goto out;
            }
        }
    }

    if (!tools)
        tools = cc && toolchain_usable(cc);
    if (!tools) {
        if (wdir)
            spool_miss(wdir, key, src, len, opts, arch);
        *log = dup_printf(
            "hcqcl: this program is not in the kernel cache (key %s) and no compiler is available "
            "(hcqcl-cc with clang-16, libclc-16 and ptxas: set HCQCL_CC or install them).\n"
            "To precompile it on a machine that has them, either run\n"
            "  hcqcl-cc --arch=sm_%x%x --options='%s' --cache-dir=CACHE program.cl\n"
            "or copy %s/%s.cl and %s.build there, run `hcqcl-cc --from-spool=DIR` on that "
            "directory, and copy DIR/%s.bin back into %s (or into HCQCL_CACHE_DIR).\n",
            key, arch >> 8, (arch >> 4) & 0xf, opts, wdir ? wdir : "CACHE", key, key, key,
            wdir ? wdir : "the cache directory");
        /* Only caches: serving them is the compiler this machine has, and
         * this program is not among them. Not even those: no compiler. */
        err = cache_present() ? CL_BUILD_PROGRAM_FAILURE : CL_COMPILER_NOT_AVAILABLE;
        goto out;
    }

    int status = run_compiler(cc, src, len, opts, arch, container, size, log);
    if (status == CC_OK) {
        if (!cache_entry_ok(*container, *size, arch, norm)) {
            free(*container);
            *container = NULL;
            *size = 0;
            free(*log);
            *log = dup_printf("%s wrote an invalid program container\n", cc);
            err = CL_BUILD_PROGRAM_FAILURE;
        } else if (!user_includes && wdir) {
            char *name = dup_printf("%s.bin", key);
            int rc = name ? write_atomic(wdir, name, *container, *size) : -ENOMEM;
            if (rc) {
                UTIL_LOG(UTIL_LOG_API, "compiler: cannot store %s in %s (%d)", key, wdir, rc);
            } else {
                UTIL_LOG(UTIL_LOG_API, "compiler: stored %s (options '%s')", key, opts);
                char *lname = dup_printf("%s.log", key);
                if (lname && *log && **log)
                    write_atomic(wdir, lname, *log, strlen(*log));
                else if (lname)
                    remove_in(wdir, lname);
                free(lname);
                hcqcl_cache_trim(wdir, name);
            }
            free(name);
        }
    } else {
        err = status == CC_BAD_OPTIONS ? CL_INVALID_BUILD_OPTIONS : CL_BUILD_PROGRAM_FAILURE;
    }
out:
    if (!*log)
        *log = strdup("");
    free(norm);
    free(wdir);
    free(libdir);
    free(cc);
    return err;
}

/* ------------------------------------------------------------------ */
/* PTX binaries                                                         */
/* ------------------------------------------------------------------ */

/* HCQCL_PTXAS; then PATH; then the CUDA toolkit's default place. */
static char *find_ptxas(void)
{
    const char *env = util_env()->ptxas;
    if (env && *env)
        return is_exec(env) ? strdup(env) : NULL;
    char *p = path_lookup("ptxas");
    if (!p && is_exec("/usr/local/cuda/bin/ptxas"))
        p = strdup("/usr/local/cuda/bin/ptxas");
    return p;
}

cl_int hcqcl_assemble_ptx(const char *ptx, size_t len, uint32_t arch, void **cubin, size_t *size,
                          char **log)
{
    *cubin = NULL;
    *size = 0;
    *log = NULL;
    char *ptxas = find_ptxas();
    if (!ptxas) {
        *log = dup_printf("PTX needs ptxas to become a cubin: none found (set HCQCL_PTXAS, or "
                          "put the CUDA toolkit's ptxas in PATH)\n");
        return CL_INVALID_BINARY;
    }
    const char *tmpenv = getenv("TMPDIR");
    char *dir = dup_printf("%s/hcqcl-ptx.XXXXXX", tmpenv && *tmpenv ? tmpenv : "/tmp");
    char *in = NULL, *out = NULL, *lp = NULL, *arch_opt = NULL;
    cl_int err = CL_INVALID_BINARY;
    if (!dir || !mkdtemp(dir)) {
        *log = dup_printf("cannot create a temporary directory: %s\n", strerror(errno));
        goto out;
    }
    in = dup_printf("%s/program.ptx", dir);
    out = dup_printf("%s/program.cubin", dir);
    lp = dup_printf("%s/ptxas.log", dir);
    arch_opt = dup_printf("-arch=sm_%x%x", arch >> 8, (arch >> 4) & 0xf);
    if (!in || !out || !lp || !arch_opt) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    int fd = open(in, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool wrote = fd >= 0 && write_all(fd, ptx, len) == 0;
    if (fd >= 0)
        close(fd);
    if (!wrote) {
        *log = dup_printf("cannot write %s\n", in);
        goto out;
    }
    char *argv[] = { ptxas, arch_opt, "-O3", "-o", out, in, NULL };
    int st = run_tool(argv, lp);
    void *text = NULL;
    size_t tn = 0;
    if (read_file(lp, &text, &tn) == 0) {
        char *prefix = dup_printf("%s/", dir);
        *log = prefix ? strip_prefix(text, prefix) : text;
        free(prefix);
    }
    if ((st == 0 || st == -2) && read_file(out, cubin, size) == 0)
        err = CL_SUCCESS;
    else if (!*log || !**log) {
        free(*log);
        *log = dup_printf("%s failed (status %d)\n", ptxas, st);
    }
out:
    if (in)
        unlink(in);
    if (out)
        unlink(out);
    if (lp)
        unlink(lp);
    if (dir)
        rmdir(dir);
    free(dir);
    free(in);
    free(out);
    free(lp);
    free(arch_opt);
    free(ptxas);
    return err;
}

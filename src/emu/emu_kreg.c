/*
 * Kernel registry and block runner of the emulated device (emu_kernel.h).
 *
 * Registered cubins are parsed with src/cubin. A launch is matched by
 * comparing the code at the QMD's program address with each kernel's
 * .text bytes, skipping the bytes its relocations patch at load time. The
 * matched kernel's host function then runs once per thread block; blocks
 * are shared between the GPU worker and a small helper pool (at most
 * EMU_POOL_THREADS), each block with its own shared memory and page-table
 * cache. A fault in one block stops the grid.
 */
#include "emu/emu.h"
#include "emu/emu_hw.h"

#include "cubin/cubin.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EMU_POOL_THREADS 1 /* helpers besides the worker itself */

struct kreg_kernel {
    const struct cubin *cb;
    const struct cubin_kernel *k;
    const uint8_t *text;
    uint64_t text_size;
    /* Bytes the loader patches (relocations inside .text), as
     * [start, end) offsets into text, sorted. */
    uint32_t nskip;
    uint64_t (*skip)[2];
};

struct kreg_fn {
    char *name;
    emu_kernel_fn fn;
};

static struct {
    pthread_rwlock_t lock;
    pthread_once_t once;
    struct cubin **cubins;
    size_t ncubins;
    /* Each entry allocated once and never moved: a launch keeps its
     * entry after the lock is let go, while another thread may register
     * more (the built-in kernels, registered at their first use). */
    struct kreg_kernel **kernels;
    size_t nkernels;
    struct kreg_fn *fns;
    size_t nfns;
} reg = {.lock = PTHREAD_RWLOCK_INITIALIZER, .once = PTHREAD_ONCE_INIT};

static int cmp_skip(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int add_cubin_locked(const void *data, size_t size)
{
    char log[256];
    struct cubin *cb;
    int rc = cubin_parse(data, size, &cb, log, sizeof(log));
    if (rc) {
        EMU_LOG("kernel registry: cubin rejected: %s", log);
        return -EINVAL;
    }
    struct cubin **cbs = realloc(reg.cubins, (reg.ncubins + 1) * sizeof(*cbs));
    struct kreg_kernel **ks = realloc(reg.kernels, (reg.nkernels + cb->num_kernels) * sizeof(*ks));
    if (cbs)
        reg.cubins = cbs;
    if (ks)
        reg.kernels = ks;
    struct kreg_kernel *entries = calloc(cb->num_kernels ? cb->num_kernels : 1, sizeof(*entries));
    if (!cbs || !ks || !entries) {
        free(entries);
        cubin_free(cb);
        return -ENOMEM;
    }
    reg.cubins[reg.ncubins++] = cb;
    for (uint32_t i = 0; i < cb->num_kernels; i++) {
        const struct cubin_kernel *k = &cb->kernels[i];
        struct kreg_kernel *e = &entries[i];
        reg.kernels[reg.nkernels++] = e;
        *e = (struct kreg_kernel){.cb = cb, .k = k, .text = cb->image + k->text_offset,
                                  .text_size = k->text_size};
        e->skip = calloc(cb->num_relocs ? cb->num_relocs : 1, sizeof(*e->skip));
        for (uint32_t r = 0; e->skip && r < cb->num_relocs; r++) {
            const struct cubin_reloc *rl = &cb->relocs[r];
            if (rl->offset < k->text_offset || rl->offset - k->text_offset >= k->text_size)
                continue;
            uint64_t o = rl->offset - k->text_offset, lo = o, hi = o + 8;
            if (rl->type == R_CUDA_32)
                hi = o + 4;
            else if (rl->type != R_CUDA_64)
                lo = o + 4; /* 32-bit immediates live in bytes 4..7 */
            e->skip[e->nskip][0] = lo;
            e->skip[e->nskip][1] = UTIL_MIN(hi, k->text_size);
            e->nskip++;
        }
        if (e->nskip)
            qsort(e->skip, e->nskip, sizeof(*e->skip), cmp_skip);
    }
    return 0;
}

static int reg_add_cubin(struct emu_kernel_registry *r, const void *data, size_t size)
{
    pthread_rwlock_wrlock(&reg.lock);
    int rc = add_cubin_locked(data, size);
    pthread_rwlock_unlock(&reg.lock);
    return rc;
}

static int reg_add(struct emu_kernel_registry *r, const char *name, emu_kernel_fn fn)
{
    if (!name || !fn)
        return -EINVAL;
    pthread_rwlock_wrlock(&reg.lock);
    int rc = -ENOMEM;
    struct kreg_fn *f = realloc(reg.fns, (reg.nfns + 1) * sizeof(*f));
    if (f) {
        reg.fns = f;
        if ((f[reg.nfns].name = strdup(name))) {
            f[reg.nfns++].fn = fn;
            rc = 0;
        }
    }
    pthread_rwlock_unlock(&reg.lock);
    return rc;
}

int emu_register_kernels(emu_register_kernels_fn fn)
{
    struct emu_kernel_registry r = {.add_cubin = reg_add_cubin, .add = reg_add};
    return fn(&r);
}

static void load_libraries(void)
{
    const char *list = util_env()->emu_kernels;
    while (list && *list) {
        size_t n = strcspn(list, ":");
        char path[4096];
        if (n && n < sizeof(path)) {
            memcpy(path, list, n);
            path[n] = 0;
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            emu_register_kernels_fn fn =
                h ? (emu_register_kernels_fn)dlsym(h, EMU_REGISTER_KERNELS_SYMBOL) : NULL;
            if (!fn)
                util_log(UTIL_LOG_ERR, "emu: kernel library %s: %s", path,
                         h ? "no " EMU_REGISTER_KERNELS_SYMBOL : dlerror());
            else if (emu_register_kernels(fn) < 0)
                util_log(UTIL_LOG_ERR, "emu: kernel library %s failed to register", path);
            else
                EMU_LOG("kernel library %s registered", path);
        }
        list += n;
        if (*list == ':')
            list++;
    }
}

static bool text_matches(const struct kreg_kernel *e, const uint8_t *code)
{
    uint64_t pos = 0;
    for (uint32_t i = 0; i < e->nskip; i++) {
        if (e->skip[i][0] > pos && memcmp(code + pos, e->text + pos, e->skip[i][0] - pos))
            return false;
        pos = UTIL_MAX(pos, e->skip[i][1]);
    }
    return pos >= e->text_size || !memcmp(code + pos, e->text + pos, e->text_size - pos);
}

static bool kernel_at(struct emu_chan *c, const struct kreg_kernel *e, uint64_t va)
{
    const uint8_t *code = emu_vm_translate(&c->gpu->vm, &c->tlb, va, e->text_size);
    return code && text_matches(e, code);
}

/* Kernel whose code sits at va, and its host function; reg.lock held. */
static const struct kreg_kernel *find_kernel(struct emu_chan *c, uint64_t va, emu_kernel_fn *fn)
{
    const struct kreg_kernel *e = NULL;
    *fn = NULL;
    if (c->kcache_va == va && c->kcache_idx < reg.nkernels &&
        kernel_at(c, reg.kernels[c->kcache_idx], va))
        e = reg.kernels[c->kcache_idx];
    for (size_t i = 0; !e && i < reg.nkernels; i++)
        if (kernel_at(c, reg.kernels[i], va)) {
            e = reg.kernels[i];
            c->kcache_va = va;
            c->kcache_idx = i;
        }
    if (!e)
        return NULL;
    for (size_t j = 0; j < reg.nfns; j++)
        if (!strcmp(reg.fns[j].name, e->k->name))
            *fn = reg.fns[j].fn;
    return e;
}

/* ---- running blocks ---- */

struct grid {
    const struct emu_launch *l;
    const struct kreg_kernel *e;
    emu_kernel_fn fn;
    uint64_t nblocks;
    atomic_uint_fast64_t next;
    atomic_bool fault;
    uint64_t fault_va, fault_len;
    pthread_mutex_t fault_lock;
};

struct block_ctx {
    struct grid *g;
    struct emu_tlb tlb;
};

static void *block_ptr(const struct emu_block *b, uint64_t va, uint64_t len)
{
    struct block_ctx *x = b->model;
    void *p = emu_vm_translate(&x->g->l->chan->gpu->vm, &x->tlb, va, len);
    if (!p) {
        pthread_mutex_lock(&x->g->fault_lock);
        if (!atomic_load(&x->g->fault)) {
            x->g->fault_va = va;
            x->g->fault_len = len;
            atomic_store(&x->g->fault, true);
        }
        pthread_mutex_unlock(&x->g->fault_lock);
    }
    return p;
}

static void run_blocks(struct grid *g)
{
    const struct emu_launch *l = g->l;
    struct block_ctx x = {.g = g};
    uint8_t *shared = l->shared_size ? malloc(l->shared_size) : NULL;
    if (l->shared_size && !shared) {
        atomic_store(&g->fault, true);
        return;
    }
    uint32_t pbase = g->e->k->param_base, psize = g->e->k->param_size;
    if (pbase > l->cbuf0_size || psize > l->cbuf0_size - pbase)
        pbase = psize = 0; /* checked by the caller; keep params in bounds */
    for (;;) {
        uint64_t i = atomic_fetch_add(&g->next, 1);
        if (i >= g->nblocks || atomic_load(&g->fault))
            break;
        struct emu_block b = {
            .grid = {l->grid[0], l->grid[1], l->grid[2]},
            .block = {l->block[0], l->block[1], l->block[2]},
            .block_id = {(uint32_t)(i % l->grid[0]), (uint32_t)(i / l->grid[0] % l->grid[1]),
                         (uint32_t)(i / l->grid[0] / l->grid[1])},
            .params = l->cbuf0 ? l->cbuf0 + pbase : NULL,
            .param_size = psize,
            .cbuf0 = l->cbuf0,
            .cbuf0_size = l->cbuf0_size,
            .shared = shared,
            .shared_size = l->shared_size,
            .shared_base = NV_SHARED_RESERVED_SM90,
            .ptr = block_ptr,
            .model = &x,
        };
        memcpy(b.cbuf_va, l->cbuf_va, sizeof(b.cbuf_va));
        memcpy(b.cbuf_size, l->cbuf_size, sizeof(b.cbuf_size));
        if (shared)
            memset(shared, 0, l->shared_size);
        g->fn(&b);
    }
    free(shared);
}

/* The helper pool: one grid at a time; a second concurrent launch (another
 * GPU) runs on its worker alone. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct grid *job;
    unsigned busy, nthreads, workers;
    bool stop;
    uint64_t seq;
    pthread_t th[EMU_POOL_THREADS];
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void *pool_main(void *arg)
{
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!pool.stop && (!pool.job || pool.seq == seen))
            pthread_cond_wait(&pool.cond, &pool.lock);
        if (pool.stop)
            break;
        seen = pool.seq;
        struct grid *g = pool.job;
        pool.busy++;
        pthread_mutex_unlock(&pool.lock);
        run_blocks(g);
        pthread_mutex_lock(&pool.lock);
        pool.busy--;
        pthread_cond_broadcast(&pool.cond);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

void emu_kreg_worker_count(int delta)
{
    pthread_mutex_lock(&pool.lock);
    pool.workers += delta;
    bool stop = pool.workers == 0 && pool.nthreads;
    unsigned n = pool.nthreads;
    if (stop) {
        pool.stop = true;
        pthread_cond_broadcast(&pool.cond);
    }
    pthread_mutex_unlock(&pool.lock);
    if (!stop)
        return;
    for (unsigned i = 0; i < n; i++)
        pthread_join(pool.th[i], NULL);
    pthread_mutex_lock(&pool.lock);
    pool.nthreads = 0;
    pool.stop = false;
    pthread_mutex_unlock(&pool.lock);
}

static void run_grid(struct grid *g)
{
    bool shared = false;
    if (g->nblocks > 1) {
        pthread_mutex_lock(&pool.lock);
        while (pool.nthreads < EMU_POOL_THREADS &&
               pthread_create(&pool.th[pool.nthreads], NULL, pool_main, NULL) == 0)
            pool.nthreads++;
        if (!pool.job && pool.nthreads) {
            pool.job = g;
            pool.seq++;
            shared = true;
            pthread_cond_broadcast(&pool.cond);
        }
        pthread_mutex_unlock(&pool.lock);
    }
    run_blocks(g);
    if (!shared)
        return;
    pthread_mutex_lock(&pool.lock);
    pool.job = NULL; /* no helper picks it up any more */
    while (pool.busy)
        pthread_cond_wait(&pool.cond, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

bool emu_kreg_run(struct emu_launch *l)
{
    pthread_once(&reg.once, load_libraries);
    struct emu_chan *c = l->chan;
    struct grid g = {.l = l};
    pthread_rwlock_rdlock(&reg.lock);
    g.e = find_kernel(c, l->program_va, &g.fn);
    pthread_rwlock_unlock(&reg.lock);
    /* HCQCL_EMU_UNKNOWN_KERNELS=skip: code nothing can run here completes
     * as a grid that does nothing (filling a binary cache by running a test
     * suite, docs/conformance.md); the program must still be mapped. */
    const bool skip = !strcmp(util_env()->emu_unknown, "skip");
    if (!g.e) {
        if (!emu_vm_translate(&c->gpu->vm, &c->tlb, l->program_va, 16)) {
            emu_chan_error(c, ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT,
                           "MMU fault: program at 0x%llx is not mapped",
                           (unsigned long long)l->program_va);
            return false;
        }
        if (skip)
            return true;
        emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION,
                       "no registered kernel matches the code at 0x%llx",
                       (unsigned long long)l->program_va);
        return false;
    }
    if (!g.fn && skip)
        return true;
    if (!g.fn) {
        emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION,
                       "kernel %s at 0x%llx has no host implementation", g.e->k->name,
                       (unsigned long long)l->program_va);
        return false;
    }
    uint32_t pbase = g.e->k->param_base, psize = g.e->k->param_size;
    if (!l->cbuf0 || pbase > l->cbuf0_size || psize > l->cbuf0_size - pbase) {
        emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION,
                       "kernel %s: constant bank 0 (%u bytes) misses its parameters at 0x%x+%u",
                       g.e->k->name, l->cbuf0_size, pbase, psize);
        return false;
    }
    g.nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    atomic_init(&g.next, 0);
    atomic_init(&g.fault, false);
    pthread_mutex_init(&g.fault_lock, NULL);
    EMU_LOG("launch %s grid %ux%ux%u block %ux%ux%u", g.e->k->name, l->grid[0], l->grid[1],
            l->grid[2], l->block[0], l->block[1], l->block[2]);
    run_grid(&g);
    pthread_mutex_destroy(&g.fault_lock);
    if (atomic_load(&g.fault)) {
        emu_chan_error(c, ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT,
                       "MMU fault: kernel %s accessed 0x%llx (+%llu bytes), not mapped",
                       g.e->k->name, (unsigned long long)g.fault_va,
                       (unsigned long long)g.fault_len);
        return false;
    }
    return true;
}

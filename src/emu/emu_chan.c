/*
 * GPFIFO channels of the GPU model: the per-GPU worker thread, the GP
 * entry and pushbuffer walker, method dispatch and channel errors.
 *
 * The worker serves every channel of its GPU round-robin with a bounded
 * budget per turn, so a channel blocked on a semaphore acquire (or one
 * with a long queue) never starves the others. Like the hardware it only
 * looks at a channel after a doorbell: a write to usermode+0x90 marks the
 * GPU's channels pending, and a channel drops the mark once it has caught
 * up with GPPut. Idle, it spins briefly, then sleeps 30 µs at a time.
 */
#include "emu/emu.h"
#include "emu/emu_hw.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EMU_BUDGET_WORDS 8192
#define EMU_SPIN_ROUNDS 64

uint64_t emu_gpu_time(const struct emu_gpu *gpu)
{
    return util_now_ns() + gpu->timer_offset;
}

void emu_gpu_ptimer_update(struct emu_gpu *gpu)
{
    if (!gpu->usermode)
        return;
    uint64_t t = emu_gpu_time(gpu);
    volatile uint32_t *u = (volatile uint32_t *)gpu->usermode;
    /* TIME_1 first: readers do hi, lo, hi and retry when hi moved. */
    __atomic_store_n(&u[NVC361_TIME_1 / 4], (uint32_t)(t >> 32), __ATOMIC_RELEASE);
    __atomic_store_n(&u[NVC361_TIME_0 / 4], (uint32_t)t, __ATOMIC_RELEASE);
}

/* NvNotification: timeStamp (2 x u32 ns), info32, info16, status. */
static void write_notifier(struct emu_chan *c, uint32_t code)
{
    if (!c->err_mem || c->err_mem->size < 16)
        return;
    uint8_t *n = c->err_mem->host;
    uint64_t t = emu_gpu_time(c->gpu);
    /* Word by word, as the engine writes them; readers may look at any
     * field at any time (status last, releasing the rest). */
    __atomic_store_n((uint32_t *)n, (uint32_t)t, __ATOMIC_RELAXED);
    __atomic_store_n((uint32_t *)(n + 4), (uint32_t)(t >> 32), __ATOMIC_RELAXED);
    __atomic_store_n((uint32_t *)(n + 8), code, __ATOMIC_RELAXED);
    __atomic_store_n((uint16_t *)(n + 12), (uint16_t)0, __ATOMIC_RELAXED);
    __atomic_store_n((uint16_t *)(n + 14), (uint16_t)0xffff, __ATOMIC_RELEASE);
}

void emu_chan_error(struct emu_chan *c, uint32_t code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (atomic_exchange(&c->error, true))
        return; /* the first error is the one reported */
    EMU_LOG("gpu %u channel 0x%x: Xid %u: %s", c->gpu->index, c->handle, code, msg);
    write_notifier(c, code);
    /* Recovery resets the whole channel group (TSG): every channel in it
     * stops and is notified, as RM does. Called by the worker without
     * gpu.lock; the other channels of the GPU are not being processed. */
    if (!c->tsg)
        return;
    pthread_mutex_lock(&c->gpu->lock);
    for (struct emu_chan *o = c->gpu->chans; o; o = o->next)
        if (o != c && o->tsg == c->tsg && !atomic_exchange(&o->error, true)) {
            EMU_LOG("gpu %u channel 0x%x: stopped with its channel group", o->gpu->index,
                    o->handle);
            write_notifier(o, code);
        }
    pthread_mutex_unlock(&c->gpu->lock);
}

void *emu_chan_ptr(struct emu_chan *c, uint64_t va, uint64_t len, const char *what)
{
    void *p = emu_vm_translate(&c->gpu->vm, &c->tlb, va, len);
    if (!p)
        emu_chan_error(c, ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT,
                       "MMU fault: %s at 0x%llx (+%llu bytes) is not mapped", what,
                       (unsigned long long)va, (unsigned long long)len);
    return p;
}

const struct emu_class *emu_class_find(uint32_t cls)
{
    if (cls == emu_class_compute.cls)
        return &emu_class_compute;
    if (cls == emu_class_copy.cls)
        return &emu_class_copy;
    return NULL;
}

static pthread_once_t index_once = PTHREAD_ONCE_INIT;
static void index_class(struct emu_class *k)
{
    for (size_t i = 0; i < k->n; i++)
        for (unsigned j = 0; j < k->mthds[i].count; j++)
            k->index[(k->mthds[i].mthd >> 2) + j] = (uint16_t)(i + 1);
}
static void index_all(void)
{
    index_class(&emu_class_host);
    index_class(&emu_class_compute);
    index_class(&emu_class_copy);
}

static enum emu_mres set_object(struct emu_chan *c, unsigned subch, uint32_t data)
{
    const struct emu_class *k = emu_class_find(data & 0xffff);
    if (!k) {
        emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION, "SET_OBJECT subch %u: class 0x%x unknown",
                       subch, data & 0xffff);
        return EMU_M_ERROR;
    }
    if (!c->regs[subch] && !(c->regs[subch] = calloc(EMU_MTHD_WORDS, sizeof(uint32_t)))) {
        emu_chan_error(c, ROBUST_CHANNEL_PBDMA_ERROR, "out of host memory");
        return EMU_M_ERROR;
    }
    c->bound[subch] = k;
    return EMU_M_OK;
}

static enum emu_mres exec_method(struct emu_chan *c, unsigned subch, uint32_t mthd, uint32_t data)
{
    const struct emu_class *k;
    if (mthd == NVC86F_SET_OBJECT)
        return set_object(c, subch, data);
    if (mthd < 0x100) {
        k = &emu_class_host;
        c->host_regs[mthd >> 2] = data;
    } else {
        k = c->bound[subch];
        if (!k) {
            emu_chan_error(c, ROBUST_CHANNEL_GR_EXCEPTION,
                           "method 0x%x on subchannel %u with no object bound", mthd, subch);
            return EMU_M_ERROR;
        }
        c->regs[subch][mthd >> 2] = data;
    }
    uint16_t i = k->index[(mthd >> 2) & (EMU_MTHD_WORDS - 1)];
    if (!i) {
        emu_chan_error(c, k->error, "illegal method 0x%04x (data 0x%08x) for class %s (subch %u)",
                       mthd, data, k->name, subch);
        return EMU_M_ERROR;
    }
    const struct emu_mthd *m = &k->mthds[i - 1];
    return m->fn ? m->fn(c, subch, mthd, data) : EMU_M_OK;
}

/* Decode a method header. Returns false for a malformed one. */
static bool decode_header(struct emu_chan *c, uint32_t w, bool *immd, bool *end)
{
    uint32_t op = NV_FIELD_GET(NVC86F_DMA_SEC_OP, w);
    *immd = *end = false;
    c->subch = NV_FIELD_GET(NVC86F_DMA_METHOD_SUBCHANNEL, w);
    c->mthd = NV_FIELD_GET(NVC86F_DMA_METHOD_ADDRESS, w) << 2;
    c->mode = op;
    switch (op) {
    case NVC86F_DMA_SEC_OP_INC_METHOD:
    case NVC86F_DMA_SEC_OP_NON_INC_METHOD:
    case NVC86F_DMA_SEC_OP_ONE_INC:
        c->count = NV_FIELD_GET(NVC86F_DMA_METHOD_COUNT, w);
        return true;
    case NVC86F_DMA_SEC_OP_IMMD_DATA_METHOD:
        *immd = true;
        c->count = 0;
        return true;
    case NVC86F_DMA_SEC_OP_END_PB_SEGMENT:
        *end = true;
        c->count = 0;
        return true;
    case NVC86F_DMA_SEC_OP_GRP0_USE_TERT:
        /* TERT_OP 0 with a zero count is the all-zero NOP word; the
         * subdevice-mask operations (1..3) select all subdevices here. */
        c->count = 0;
        return NV_FIELD_GET(NVC86F_DMA_TERT_OP, w) != 0 || emu_bits(w, 28, 18) == 0;
    default:
        return false;
    }
}

/* Process one channel for at most budget words. Returns true when it made
 * progress. Called on the worker with c->busy set, no lock held. */
static bool chan_run(struct emu_chan *c, bool *caught_up)
{
    bool progress = false;
    unsigned budget = EMU_BUDGET_WORDS;
    volatile uint32_t *userd = (volatile uint32_t *)(c->userd_mem->host + c->userd_off);
    *caught_up = false;
    while (budget && !atomic_load(&c->error)) {
        if (!c->seg_active) {
            uint32_t put = __atomic_load_n(&userd[NV_USERD_GP_PUT / 4], __ATOMIC_ACQUIRE);
            if (put == c->gp_get) {
                *caught_up = true;
                return progress;
            }
            if (put >= c->entries) {
                emu_chan_error(c, ROBUST_CHANNEL_PBDMA_ERROR, "GPPut %u beyond ring of %u entries",
                               put, c->entries);
                return progress;
            }
            const uint32_t *e = emu_chan_ptr(c, c->ring_va + 8ull * c->gp_get, 8, "GPFIFO entry");
            if (!e)
                return progress;
            uint64_t entry = (uint64_t)e[1] << 32 | e[0];
            c->seg_va = nv_gp_entry_va(entry);
            c->seg_len = nv_gp_entry_length(entry);
            c->seg_pos = 0;
            c->seg_active = true;
            progress = true;
        }
        const uint32_t *pb = NULL;
        if (c->seg_len) {
            pb = emu_chan_ptr(c, c->seg_va, 4ull * c->seg_len, "pushbuffer");
            if (!pb)
                return progress;
        }
        while (c->seg_pos < c->seg_len && budget) {
            uint32_t w = pb[c->seg_pos];
            budget--;
            if (!c->count) {
                bool immd, end;
                if (!decode_header(c, w, &immd, &end)) {
                    emu_chan_error(c, ROBUST_CHANNEL_PBDMA_ERROR,
                                   "malformed method header 0x%08x at 0x%llx", w,
                                   (unsigned long long)(c->seg_va + 4ull * c->seg_pos));
                    return progress;
                }
                if (end) {
                    c->seg_pos = c->seg_len;
                    break;
                }
                if (immd) {
                    uint32_t data = NV_FIELD_GET(NVC86F_DMA_IMMD_DATA, w);
                    enum emu_mres r = exec_method(c, c->subch, c->mthd, data);
                    if (r != EMU_M_OK)
                        return progress; /* header re-decoded on retry */
                }
                c->seg_pos++;
                progress = true;
                continue;
            }
            enum emu_mres r = exec_method(c, c->subch, c->mthd, w);
            if (r != EMU_M_OK)
                return progress;
            c->seg_pos++;
            c->count--;
            progress = true;
            if (c->mode == NVC86F_DMA_SEC_OP_INC_METHOD)
                c->mthd += 4;
            else if (c->mode == NVC86F_DMA_SEC_OP_ONE_INC) {
                c->mthd += 4;
                c->mode = NVC86F_DMA_SEC_OP_NON_INC_METHOD;
            }
        }
        if (c->seg_pos < c->seg_len)
            return progress; /* budget spent */
        /* Segment consumed: only now may the producer reuse it. */
        c->seg_active = false;
        c->gp_get = (c->gp_get + 1) % c->entries;
        __atomic_store_n(&userd[NV_USERD_GP_GET / 4], c->gp_get, __ATOMIC_RELEASE);
    }
    return progress;
}

static void *worker_main(void *arg)
{
    struct emu_gpu *gpu = arg;
    unsigned idle = 0;
    uint64_t idle_since = 0;
    pthread_mutex_lock(&gpu->lock);
    while (!gpu->worker_stop) {
        pthread_mutex_unlock(&gpu->lock);
        emu_gpu_ptimer_update(gpu);
        bool rung = false;
        if (gpu->usermode) {
            uint32_t *db = (uint32_t *)(gpu->usermode + NVC361_NOTIFY_CHANNEL_PENDING);
            rung = __atomic_exchange_n(db, 0, __ATOMIC_ACQ_REL) != 0;
            /* Taken one at a time, never below 0: the count may be set
             * (to 0 as well) while this runs. */
            if (rung) {
                unsigned n = atomic_load(&gpu->drop_doorbells);
                while (n && !atomic_compare_exchange_weak(&gpu->drop_doorbells, &n, n - 1))
                    ;
                if (n)
                    rung = false;
            }
        }
        pthread_mutex_lock(&gpu->lock);
        bool progress = false;
        unsigned gen;
    restart:
        gen = gpu->list_gen;
        for (struct emu_chan *c = gpu->chans; c; c = c->next) {
            if (rung)
                c->pending = true;
            if (!c->pending || c->busy || atomic_load(&c->error) || !atomic_load(&c->scheduled))
                continue;
            c->busy = true;
            pthread_mutex_unlock(&gpu->lock);
            bool caught_up;
            progress |= chan_run(c, &caught_up);
            (void)emu_compute_flush(c); /* stopped for now: what it held back runs */
            pthread_mutex_lock(&gpu->lock);
            c->busy = false;
            if (caught_up && !c->seg_active)
                c->pending = false;
            pthread_cond_broadcast(&gpu->cond);
            /* The list changed under us: walk it again. A doorbell rung
             * before the change still marks every channel (one not reached
             * yet would otherwise lose it and never run). */
            if (gen != gpu->list_gen)
                goto restart;
        }
        if (progress || rung) {
            idle = 0;
            continue;
        }
        if (++idle < EMU_SPIN_ROUNDS) {
            pthread_mutex_unlock(&gpu->lock);
            sched_yield();
            pthread_mutex_lock(&gpu->lock);
            continue;
        }
        if (idle == EMU_SPIN_ROUNDS)
            idle_since = util_now_ns();
        /* Sleep 30 µs; after 50 ms of idleness 500 µs, to spare the CPU. */
        long ns = util_now_ns() - idle_since > 50000000ull ? 500000 : 30000;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += ns;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&gpu->wake, &gpu->lock, &ts);
    }
    pthread_mutex_unlock(&gpu->lock);
    return NULL;
}

void emu_gpu_user_add(struct emu_gpu *gpu)
{
    pthread_once(&index_once, index_all);
    pthread_mutex_lock(&gpu->lock);
    gpu->users++;
    if (!gpu->worker_running) {
        gpu->worker_stop = false;
        if (pthread_create(&gpu->worker, NULL, worker_main, gpu) == 0) {
            gpu->worker_running = true;
            emu_kreg_worker_count(1);
        } else
            util_log(UTIL_LOG_ERR, "emu: cannot start the GPU %u worker", gpu->index);
    }
    pthread_mutex_unlock(&gpu->lock);
}

void emu_gpu_user_drop(struct emu_gpu *gpu)
{
    pthread_mutex_lock(&gpu->lock);
    if (gpu->users && --gpu->users == 0 && gpu->worker_running) {
        gpu->worker_stop = true;
        pthread_cond_broadcast(&gpu->wake);
        pthread_mutex_unlock(&gpu->lock);
        pthread_join(gpu->worker, NULL);
        emu_kreg_worker_count(-1);
        pthread_mutex_lock(&gpu->lock);
        gpu->worker_running = false;
        gpu->worker_stop = false;
    }
    pthread_mutex_unlock(&gpu->lock);
}

void emu_chan_schedule_group(struct emu_gpu *gpu, const void *tsg)
{
    pthread_mutex_lock(&gpu->lock);
    for (struct emu_chan *c = gpu->chans; c; c = c->next)
        if (c->tsg == tsg)
            atomic_store(&c->scheduled, true);
    pthread_mutex_unlock(&gpu->lock);
    pthread_cond_broadcast(&gpu->wake);
}

void emu_chan_schedule(struct emu_chan *c)
{
    pthread_mutex_lock(&c->gpu->lock);
    atomic_store(&c->scheduled, true);
    pthread_mutex_unlock(&c->gpu->lock);
    pthread_cond_broadcast(&c->gpu->wake);
}

void emu_chan_attach(struct emu_chan *c)
{
    struct emu_gpu *gpu = c->gpu;
    emu_gpu_user_add(gpu);
    pthread_mutex_lock(&gpu->lock);
    c->next = gpu->chans;
    gpu->chans = c;
    gpu->list_gen++;
    pthread_mutex_unlock(&gpu->lock);
}

void emu_chan_detach(struct emu_chan *c)
{
    struct emu_gpu *gpu = c->gpu;
    pthread_mutex_lock(&gpu->lock);
    for (struct emu_chan **p = &gpu->chans; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    gpu->list_gen++;
    while (c->busy)
        pthread_cond_wait(&gpu->cond, &gpu->lock);
    pthread_mutex_unlock(&gpu->lock);
    emu_gpu_user_drop(gpu);
    for (unsigned i = 0; i < EMU_SUBCH; i++)
        free(c->regs[i]);
}

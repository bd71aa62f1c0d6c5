/*
 * printf.c — the printf buffers of kernel launches.
 *
 * A launch of a kernel that calls printf (CUBIN_CONTAINER_KERNEL_PRINTF)
 * gets a buffer of CL_DEVICE_PRINTF_BUFFER_SIZE bytes in GPU memory with
 * a CPU view; its address goes to the kernel in the environment
 * registers HCQ_ENVREG_PRINTF, and the kernel's printf calls append
 * records to it (cubin/container.h, "printf"). When the launch has
 * completed, before its event says so, the records are formatted and
 * written to stdout in the order their calls reserved them: "the output
 * ... is flushed when the kernel completes" (OpenCL C 3.0, 6.15.14.1).
 * Output that did not fit is dropped, and said once.
 *
 * Buffers are kept per context for the next launch (a few; more are
 * freed), and freed with the context. A launch takes its buffer before
 * its command begins: when device memory is short it waits for one that
 * a launch in flight gives back.
 */
#include "api/obj.h"
#include "cubin/container.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct hcqcl_printf_buf {
    struct hcqcl_printf_buf *next;
    cl_context ctx;
    struct hcq_mem *mem;
};

enum { POOL_MAX = 4 };

/* An idle buffer of hw, or a new one; NULL when device memory is short. */
static struct hcqcl_printf_buf *take(cl_context c, struct hcq_device *hw)
{
    pthread_mutex_lock(&c->lock);
    for (struct hcqcl_printf_buf **p = &c->printf_pool; *p; p = &(*p)->next)
        if ((*p)->mem->dev == hw) {
            struct hcqcl_printf_buf *b = *p;
            *p = b->next;
            c->printf_out++;
            pthread_mutex_unlock(&c->lock);
            return b;
        }
    pthread_mutex_unlock(&c->lock);
    struct hcqcl_printf_buf *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->ctx = c;
    if (hcq_mem_alloc(hw, HCQCL_PRINTF_BUFFER_SIZE, HCQ_MEM_DEVICE_MAPPED, &b->mem) != 0) {
        free(b);
        return NULL;
    }
    pthread_mutex_lock(&c->lock);
    c->printf_out++;
    pthread_mutex_unlock(&c->lock);
    return b;
}

static void give_back(struct hcqcl_printf_buf *b)
{
    cl_context c = b->ctx;
    size_t n = 0;
    pthread_mutex_lock(&c->lock);
    c->printf_out--;
    for (struct hcqcl_printf_buf *p = c->printf_pool; p; p = p->next)
        n++;
    if (n < POOL_MAX) {
        b->next = c->printf_pool;
        c->printf_pool = b;
        b = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (b) {
        hcq_mem_free(b->mem);
        free(b);
    }
}

/* How long a take waits with no buffer coming back before it gives up
 * (the launches in flight may wait on something the caller does next). */
#define TAKE_PATIENCE_NS 1000000000ull

struct hcqcl_printf_buf *hcqcl_printf_take(cl_command_queue q)
{
    cl_context c = q->ctx;
    uint64_t since = util_now_ns();
    uint32_t last_out = UINT32_MAX;
    for (;;) {
        struct hcqcl_printf_buf *b = take(c, q->hdev);
        if (b)
            return b;
        pthread_mutex_lock(&c->lock);
        const uint32_t out = c->printf_out;
        pthread_mutex_unlock(&c->lock);
        const uint64_t now = util_now_ns();
        if (out < last_out)
            since = now; /* one came back (and went): patience again */
        last_out = out;
        if (!out || now - since > TAKE_PATIENCE_NS || hcq_device_lost(q->hdev))
            return NULL;
        /* What holds them runs to its end: this queue's held-back work is
         * submitted, finished commands are settled (their buffers come
         * back), and the rest of the time is slept. */
        hcqcl_queue_flush(q, false);
        hcqcl_events_progress();
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}

void hcqcl_printf_put(struct hcqcl_printf_buf *b)
{
    if (b)
        give_back(b);
}

/* The launch's records, as text on stdout. */
static void flush(const struct hcqcl_printf_buf *b)
{
    const uint32_t cap = HCQCL_PRINTF_BUFFER_SIZE - CUBIN_PRINTF_HEADER;
    uint32_t used;
    hcq_mem_read(b->mem, 0, &used, sizeof(used));
    if (!used)
        return;
    size_t n = UTIL_MIN(used, cap);
    /* One sequential read of the CPU view (write-combined: in whole
     * lines, hcq_mem_read), then parsing. */
    uint8_t *copy = malloc(n);
    if (!copy) {
        util_log(UTIL_LOG_ERR, "printf: no memory for %zu bytes of output", n);
        return;
    }
    hcq_mem_read(b->mem, CUBIN_PRINTF_HEADER, copy, n);
    int r = cubin_printf_write(copy, n, stdout);
    fflush(stdout);
    free(copy);
    static _Atomic bool told_full, told_bad;
    if (used > cap && !atomic_exchange(&told_full, true))
        util_log(UTIL_LOG_ERR, "printf: a launch wrote more than the %u-byte printf "
                               "buffer holds; the rest of its output was dropped", cap);
    if (r < 0 && !atomic_exchange(&told_bad, true))
        util_log(UTIL_LOG_ERR, "printf: a launch's output ends in a malformed record");
}

/* The after-hook prints; the release hook gives the buffer back, which
 * runs even where the after-hook is dropped (a command aborted before
 * its completion could be seen). */
static void after(void *arg, cl_int status)
{
    if (status >= 0)
        flush(arg);
}

static void release(void *arg) { give_back(arg); }

cl_int hcqcl_printf_attach(struct hcqcl_cmd *cmd, struct hcqcl_printf_buf *b, uint64_t *va)
{
    volatile uint32_t *h = b->mem->cpu;
    h[0] = 0;
    h[1] = HCQCL_PRINTF_BUFFER_SIZE - CUBIN_PRINTF_HEADER;
    /* The header reaches GPU memory before the launch can start. */
    atomic_thread_fence(memory_order_seq_cst);
    cl_int err = hcqcl_cmd_on_release(cmd, release, b);
    if (err != CL_SUCCESS) {
        give_back(b);
        return err;
    }
    /* From here the release hook owns b, on success and on abort. */
    err = hcqcl_cmd_after(cmd, after, b);
    if (err == CL_SUCCESS)
        *va = b->mem->va;
    return err;
}

void hcqcl_printf_release(cl_context c)
{
    for (struct hcqcl_printf_buf *b = c->printf_pool, *next; b; b = next) {
        next = b->next;
        hcq_mem_free(b->mem);
        free(b);
    }
    c->printf_pool = NULL;
}

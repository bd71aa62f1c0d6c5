/*
 * random_test.c — random command graphs over three queues (two in-order,
 * one out-of-order), checked against a model of what each command must
 * do. Commands fill, copy, write, read and add buffers (vadd from
 * tests/kernels), copy and write 2D regions, and map and unmap them (a
 * buffer in host memory and a sub-buffer among them), and fill, copy,
 * read and write regions of two images and copy them to and from buffers; they wait on earlier
 * commands of any queue and on user events that are set, complete or
 * failed, while the graph is still being enqueued (by this thread, or
 * in graphs of odd seeds by a helper thread, a little later), some by the
 * callback of a command that ends. Markers and barriers come between them, and
 * commands without events.
 *
 * The model: every command waits (in its wait list) for the last command
 * before it that touched the same buffers and is to complete, so the
 * buffers' contents do not depend on the order the GPU picks. A command
 * is to complete when every event of its wait list is; a user event set
 * to a negative value terminates what waits on it ("a negative integer
 * value causes all enqueued commands that wait on this user event to be
 * terminated", clSetUserEventStatus), and that passes down wait lists
 * (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST); a terminated command
 * moves nothing. Checked: each event's final status, each read's data,
 * each buffer's final contents, every callback called once with its
 * event's status, and waits in the middle of the graph on events that
 * need nothing more from the host.
 *
 * HCQCL_RANDOM_SEEDS=n runs n graphs (default 64), HCQCL_RANDOM_SEED=s
 * only the graph of seed s, HCQCL_RANDOM_CMDS=n makes graphs of n steps
 * (default 240), HCQCL_RANDOM_TRACE prints each step, HCQCL_RANDOM_TIMES
 * where each graph's time went (its phases and its slowest steps).
 */
#include "vadd_steps.h"
#include "rng.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NBUF = 8, NQ = 3, OOO = 2, MAX_CMDS = 3000, MAX_EVENTS = 4 * MAX_CMDS, MAX_DEPS = 6 };
/* Buffer 3 is host memory (CL_MEM_ALLOC_HOST_PTR); buffer 6 is a
 * sub-buffer of buffer 4 (SUB_AT words in), so they share a chain; buffer
 * 7 is large enough for transfers of several staging chunks. */
enum { SUB_PARENT = 4, SUB = 6, SUB_AT = 1024, BIG = 7 };
static const size_t buf_words[NBUF] = {256, 256, 1024, 1024, 20000, 20000, 8192, 3000007};
static int group(int b) { return b == SUB ? SUB_PARENT : b; }
/* Where word w of buffer b lies in its group (the parent's words). */
static size_t at(int b, size_t w) { return b == SUB ? SUB_AT + w : w; }

static cl_device_id dev;
static cl_context ctx;
static cl_kernel vadd;

static uint64_t rng;
static uint32_t rnd(uint32_t n) { return test_rand(&rng, n); }

struct ev {
    cl_event e;
    bool ok;         /* the model: completes */
    bool user;       /* a user event */
    atomic_bool set; /* user: set already */
    bool handed;     /* user: given to a setter (this thread or the helper) */
    cl_int set_to;   /* user: the status it is (to be) set to */
    int q;           /* command: its queue */
    int prev;        /* in-order command: the queue's command before, or -1 */
    int deps[MAX_DEPS], ndeps;
    bool has_cb;     /* a CL_COMPLETE callback is registered */
    int owner;       /* user: the command whose callback sets it, or -1 */
    unsigned stamp;  /* settled(): visited */
    bool settled_memo;
};

struct read_check {
    int ev;
    float *dst, *want; /* want: the model's words, or NULL (terminated) */
    size_t words;
};

struct cb_count {
    atomic_int calls;
    atomic_int status;
};

static struct ev evs[MAX_EVENTS];
static int nev;
static float *model[NBUF];
/* Two 2D images (CL_RGBA, CL_UNSIGNED_INT8): a pixel is one 4-byte word,
 * the model's words laid out row after row; their chains follow the
 * buffers' (NBUF + image). */
enum { NIMG = 2, IW = 48, IH = 40 };
static cl_mem imgs[NIMG];
static float *imodel[NIMG];
static int chain[NBUF + NIMG]; /* last command touching it that is to complete, or -1 */
static int last_in_queue[NQ];
static cl_command_queue queues[NQ];
static cl_mem bufs[NBUF];
static struct read_check reads[MAX_CMDS];
static int nreads;
static float *host_srcs[MAX_CMDS];
static int nsrcs;
static struct cb_count cbs[MAX_EVENTS];
static unsigned stamp;
static int ncmds = 240;
static uint64_t cur_seed;
static bool trace; /* HCQCL_RANDOM_TRACE: each command on stderr */
static bool times; /* HCQCL_RANDOM_TIMES: each graph's phases on stderr */
#define TRACE(...)                                                                        \
    do {                                                                                  \
        if (trace)                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                 \
    } while (0)

static void CL_CALLBACK on_complete(cl_event e, cl_int status, void *arg)
{
    (void)e;
    struct cb_count *c = arg;
    atomic_store(&c->status, status);
    atomic_fetch_add(&c->calls, 1);
}

/* Everything e waits for (wait lists, in-order predecessors) ends with no
 * further help from the host: every user event it reaches is set, and no
 * command of the out-of-order queue is among them (there a command may
 * share a channel with one held behind an unset user event). */
static bool settled(int i)
{
    struct ev *v = &evs[i];
    if (v->stamp == stamp)
        return v->settled_memo;
    v->stamp = stamp;
    bool s;
    if (v->user) {
        s = v->owner >= 0 ? settled(v->owner) : atomic_load(&v->set);
    } else if (v->q == OOO) {
        s = false;
    } else {
        s = v->prev < 0 || settled(v->prev);
        for (int k = 0; s && k < v->ndeps; k++)
            s = settled(v->deps[k]);
    }
    v->settled_memo = s;
    return s;
}

static void add_dep(int *deps, int *n, int d)
{
    if (d < 0 || *n >= MAX_DEPS)
        return;
    for (int k = 0; k < *n; k++)
        if (deps[k] == d)
            return;
    deps[(*n)++] = d;
}

/* A command's wait list: the chains of its buffers, sometimes an unset
 * user event or any earlier event. */
static void pick_deps(int *deps, int *n, const int *touch, int ntouch)
{
    *n = 0;
    for (int k = 0; k < ntouch; k++)
        add_dep(deps, n, chain[group(touch[k])]);
    if (rnd(4) == 0) {
        int tries = 8;
        while (tries--) {
            int j = (int)rnd((uint32_t)nev);
            if (nev && evs[j].user && !atomic_load(&evs[j].set)) {
                add_dep(deps, n, j);
                break;
            }
        }
    }
    int extra = (int)rnd(3);
    for (int k = 0; k < extra && nev; k++) {
        int j = (int)rnd((uint32_t)nev);
        if (evs[j].e) /* not released early */
            add_dep(deps, n, j);
    }
}

/* The application lets go of a command's event before its command ended
 * (not one a buffer's chain still needs): the command still runs, and its
 * callbacks still come. */
static void release_early(void)
{
    if (!nev)
        return;
    int j = (int)rnd((uint32_t)nev);
    if (evs[j].user || !evs[j].e)
        return;
    for (int b = 0; b < NBUF + NIMG; b++)
        if (chain[b] == j)
            return;
    TRACE("release %d\n", j);
    EXPECT_OK(clReleaseEvent(evs[j].e));
    evs[j].e = NULL;
}

static bool deps_ok(const int *deps, int n)
{
    for (int k = 0; k < n; k++)
        if (!evs[deps[k]].ok)
            return false;
    return true;
}

/* A new command event: its model record, wait list kept for settled(). */
static int new_cmd(int q, const int *deps, int n, bool ok)
{
    REQUIRE(nev < MAX_EVENTS, "too many events");
    int i = nev++;
    struct ev *v = &evs[i];
    memset(v, 0, sizeof(*v));
    v->q = q;
    v->ok = ok;
    v->prev = q == OOO ? -1 : last_in_queue[q];
    if (n)
        memcpy(v->deps, deps, (size_t)n * sizeof(int));
    v->ndeps = n;
    last_in_queue[q] = i;
    TRACE("%d: q%d %s deps", i, q, ok ? "ok" : "fails");
    for (int k = 0; k < n; k++)
        TRACE(" %d", deps[k]);
    TRACE(" |");
    return i;
}

static void wait_list(const int *deps, int n, cl_event *wl)
{
    for (int k = 0; k < n; k++)
        wl[k] = evs[deps[k]].e;
}

/* A range of b's words: offset and count, count >= 1; now and then a
 * large one of the large buffer. */
static void range(int b, size_t *off, size_t *cnt)
{
    size_t w = buf_words[b];
    *cnt = 1 + rnd((uint32_t)(w < 512 || (b == BIG && rnd(4) == 0) ? w : 512));
    *off = rnd((uint32_t)(w - *cnt + 1));
}

static void after(int i, const int *touch, int ntouch)
{
    if (evs[i].ok)
        for (int k = 0; k < ntouch; k++)
            chain[group(touch[k])] = i;
}

static void cmd_fill(void)
{
    int q = (int)rnd(NQ), b = (int)rnd(NBUF), deps[MAX_DEPS], n;
    size_t off, cnt;
    range(b, &off, &cnt);
    float v = (float)rnd(1000);
    pick_deps(deps, &n, &b, 1);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int i = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" fill b%d [%zu,+%zu) = %g\n", b, off, cnt, v);
    EXPECT_OK(clEnqueueFillBuffer(queues[q], bufs[b], &v, sizeof(v), off * 4, cnt * 4,
                                  (cl_uint)n, n ? wl : NULL, &evs[i].e));
    if (evs[i].ok)
        for (size_t k = 0; k < cnt; k++)
            model[b][off + k] = v;
    after(i, &b, 1);
}

static void cmd_copy(void)
{
    int q = (int)rnd(NQ), s = (int)rnd(NBUF), d = (int)rnd(NBUF), deps[MAX_DEPS], n;
    size_t so, cnt, dof;
    range(s, &so, &cnt);
    if (cnt > buf_words[d])
        cnt = buf_words[d];
    dof = rnd((uint32_t)(buf_words[d] - cnt + 1));
    /* Overlapping regions of one buffer: CL_MEM_COPY_OVERLAP. */
    if (group(s) == group(d) && at(s, so) < at(d, dof) + cnt && at(d, dof) < at(s, so) + cnt)
        return;
    int touch[2] = {s, d};
    pick_deps(deps, &n, touch, 2);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int i = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" copy b%d [%zu,+%zu) -> b%d @%zu\n", s, so, cnt, d, dof);
    EXPECT_OK(clEnqueueCopyBuffer(queues[q], bufs[s], bufs[d], so * 4, dof * 4, cnt * 4,
                                  (cl_uint)n, n ? wl : NULL, &evs[i].e));
    if (evs[i].ok)
        memmove(&model[d][dof], &model[s][so], cnt * 4);
    after(i, touch, 2);
}

static void cmd_write(void)
{
    int q = (int)rnd(NQ), b = (int)rnd(NBUF), deps[MAX_DEPS], n;
    size_t off, cnt;
    range(b, &off, &cnt);
    float *src = malloc(cnt * 4);
    REQUIRE(src, "host memory");
    host_srcs[nsrcs++] = src;
    for (size_t k = 0; k < cnt; k++)
        src[k] = (float)rnd(5000);
    pick_deps(deps, &n, &b, 1);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int i = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" write b%d [%zu,+%zu)\n", b, off, cnt);
    EXPECT_OK(clEnqueueWriteBuffer(queues[q], bufs[b], CL_FALSE, off * 4, cnt * 4, src,
                                   (cl_uint)n, n ? wl : NULL, &evs[i].e));
    if (evs[i].ok)
        memcpy(&model[b][off], src, cnt * 4);
    after(i, &b, 1);
}

static void make_ready(int q, const int *deps, int n);
static void no_event(int i);

/* A read into host memory, now and then blocking (once what it waits for
 * ends by itself): a blocking read behind a failed event returns
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST. */
static void cmd_read(void)
{
    int q = (int)rnd(NQ), b = (int)rnd(NBUF), deps[MAX_DEPS], n;
    size_t off, cnt;
    range(b, &off, &cnt);
    struct read_check *r = &reads[nreads++];
    r->dst = malloc(cnt * 4);
    REQUIRE(r->dst, "host memory");
    for (size_t k = 0; k < cnt; k++)
        r->dst[k] = -1.0f;
    r->words = cnt;
    pick_deps(deps, &n, &b, 1);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int i = new_cmd(q, deps, n, deps_ok(deps, n));
    r->ev = i;
    r->want = NULL;
    if (evs[i].ok) {
        r->want = malloc(cnt * 4);
        REQUIRE(r->want, "host memory");
        memcpy(r->want, &model[b][off], cnt * 4);
    }
    const bool blocking = rnd(4) == 0;
    TRACE(" read b%d [%zu,+%zu)%s\n", b, off, cnt, blocking ? " blocking" : "");
    if (!blocking) {
        EXPECT_OK(clEnqueueReadBuffer(queues[q], bufs[b], CL_FALSE, off * 4, cnt * 4, r->dst,
                                      (cl_uint)n, n ? wl : NULL, &evs[i].e));
        after(i, &b, 1);
        return;
    }
    make_ready(q, deps, n);
    cl_int err = clEnqueueReadBuffer(queues[q], bufs[b], CL_TRUE, off * 4, cnt * 4, r->dst,
                                     (cl_uint)n, n ? wl : NULL, &evs[i].e);
    EXPECT(err == (evs[i].ok ? CL_SUCCESS : CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
           "seed %llu: blocking read %d: %d (model: %s)", (unsigned long long)cur_seed, i, err,
           evs[i].ok ? "completes" : "terminated");
    if (err != CL_SUCCESS) {
        no_event(i);
        return;
    }
    if (memcmp(r->dst, r->want, cnt * 4) != 0)
        EXPECT(false, "seed %llu: blocking read %d: data differs", (unsigned long long)cur_seed,
               i);
    after(i, &b, 1);
}

/* A 2D region between two buffers of different groups (rows of up to
 * 64 words, pitches of their own). */
static void cmd_copy_rect(void)
{
    int q = (int)rnd(NQ), s = (int)rnd(NBUF), d = (int)rnd(NBUF), deps[MAX_DEPS], n;
    if (group(s) == group(d))
        return;
    size_t wcnt = 1 + rnd(64), rows = 1 + rnd(8);
    size_t sp = wcnt + rnd(32), dp = wcnt + rnd(32);
    if (sp * rows > buf_words[s] || dp * rows > buf_words[d])
        return;
    size_t so = rnd((uint32_t)(buf_words[s] - sp * rows + 1));
    size_t dof = rnd((uint32_t)(buf_words[d] - dp * rows + 1));
    int touch[2] = {s, d};
    pick_deps(deps, &n, touch, 2);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int i = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" copy rect b%d @%zu pitch %zu -> b%d @%zu pitch %zu, %zu x %zu\n", s, so, sp, d, dof,
          dp, wcnt, rows);
    const size_t sorg[3] = {so * 4, 0, 0}, dorg[3] = {dof * 4, 0, 0};
    const size_t reg[3] = {wcnt * 4, rows, 1};
    EXPECT_OK(clEnqueueCopyBufferRect(queues[q], bufs[s], bufs[d], sorg, dorg, reg, sp * 4, 0,
                                      dp * 4, 0, (cl_uint)n, n ? wl : NULL, &evs[i].e));
    if (evs[i].ok)
        for (size_t r = 0; r < rows; r++)
            memcpy(&model[d][dof + r * dp], &model[s][so + r * sp], wcnt * 4);
    after(i, touch, 2);
}

/* Host rows into a 2D region of one buffer, without blocking. */
static void cmd_write_rect(void)
{
    int q = (int)rnd(NQ), b = (int)rnd(NBUF), deps[MAX_DEPS], n;
    size_t wcnt = 1 + rnd(48), rows = 1 + rnd(6), bp = wcnt + rnd(40), hp = wcnt + rnd(8);
    if (bp * rows > buf_words[b])
        return;
    size_t off = rnd((uint32_t)(buf_words[b] - bp * rows + 1));
    float *src = malloc(hp * rows * 4);
    REQUIRE(src, "host memory");
    host_srcs[nsrcs++] = src;
    for (size_t k = 0; k < hp * rows; k++)
        src[k] = (float)rnd(3000);
    pick_deps(deps, &n, &b, 1);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int i = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" write rect b%d @%zu pitch %zu, %zu x %zu\n", b, off, bp, wcnt, rows);
    const size_t borg[3] = {off * 4, 0, 0}, horg[3] = {0, 0, 0}, reg[3] = {wcnt * 4, rows, 1};
    EXPECT_OK(clEnqueueWriteBufferRect(queues[q], bufs[b], CL_FALSE, borg, horg, reg, bp * 4, 0,
                                       hp * 4, 0, src, (cl_uint)n, n ? wl : NULL, &evs[i].e));
    if (evs[i].ok)
        for (size_t r = 0; r < rows; r++)
            memcpy(&model[b][off + r * bp], &src[r * hp], wcnt * 4);
    after(i, &b, 1);
}

/* A command without an event or wait list on an in-order queue (the
 * queue's lite path, command_lite.c): a fill, or vadd, between a marker
 * that waits for its buffers' chains and one that becomes their chain. */
static void cmd_lite(void)
{
    int q = (int)rnd(OOO), kernel = (int)rnd(2);
    int touch[3] = {(int)rnd(NBUF), (int)rnd(NBUF), (int)rnd(NBUF)}, ntouch = kernel ? 3 : 1;
    /* Ordered after the buffers' chains by a marker in front of it. */
    int deps[MAX_DEPS], n = 0;
    for (int k = 0; k < ntouch; k++)
        add_dep(deps, &n, chain[group(touch[k])]);
    if (n) {
        cl_event wl[MAX_DEPS];
        wait_list(deps, n, wl);
        int m = new_cmd(q, deps, n, true);
        TRACE(" marker\n");
        EXPECT_OK(clEnqueueMarkerWithWaitList(queues[q], (cl_uint)n, wl, &evs[m].e));
    }
    if (kernel) {
        int a = touch[0], b = touch[1], c = touch[2], add = (int)rnd(5);
        size_t w = 1024;
        for (int k = 0; k < 3; k++)
            if (buf_words[touch[k]] < w)
                w = buf_words[touch[k]];
        TRACE("lite q%d vadd b%d = b%d + b%d + %d over %zu\n", q, c, a, b, add, w);
        vadd_step(queues[q], vadd, bufs[a], bufs[b], bufs[c], add, (int)w, 0, NULL, NULL);
        for (size_t k = 0; k < w; k++)
            model[c][k] = model[a][k] + model[b][k] + (float)add;
    } else {
        int b = touch[0];
        size_t off, cnt;
        range(b, &off, &cnt);
        float v = (float)rnd(900);
        TRACE("lite q%d fill b%d [%zu,+%zu) = %g\n", q, b, off, cnt, v);
        EXPECT_OK(clEnqueueFillBuffer(queues[q], bufs[b], &v, sizeof(v), off * 4, cnt * 4, 0,
                                      NULL, NULL));
        for (size_t k = 0; k < cnt; k++)
            model[b][off + k] = v;
    }
    int i = new_cmd(q, NULL, 0, true);
    TRACE(" marker\n");
    EXPECT_OK(clEnqueueMarkerWithWaitList(queues[q], 0, NULL, &evs[i].e));
    after(i, touch, ntouch);
}

static void set_user(int i);
static bool host_unset(int k);

/* Before a blocking call on q after deps: unless all it waits for ends by
 * itself, every user event the host has yet to set is set. */
static void make_ready(int q, const int *deps, int n)
{
    stamp++;
    bool ready = q != OOO && (last_in_queue[q] < 0 || settled(last_in_queue[q]));
    for (int k = 0; k < n && ready; k++)
        ready = settled(deps[k]);
    if (!ready)
        for (int k = 0; k < nev; k++)
            if (host_unset(k))
                set_user(k);
}

/* A blocking call behind a failed event failed: "If event is NULL or the
 * enqueue is unsuccessful, no event will be created". The model's record
 * i becomes a user event set failed. */
static void no_event(int i)
{
    cl_int err;
    evs[i].user = true;
    evs[i].handed = true;
    atomic_store(&evs[i].set, true);
    evs[i].e = clCreateUserEvent(ctx, &err);
    REQUIRE(evs[i].e, "user event: %d", err);
    evs[i].set_to = -1;
    EXPECT_OK(clSetUserEventStatus(evs[i].e, -1));
}

/* A blocking map, once everything it waits for ends by itself (every user
 * event set first, when that is not so): the mapped words are checked,
 * written (a write map), and unmapped behind it. A map whose wait list
 * failed returns CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST and no
 * pointer. */
static void cmd_map(void)
{
    int q = (int)rnd(NQ), b = (int)rnd(NBUF), deps[MAX_DEPS], n;
    size_t off, cnt;
    range(b, &off, &cnt);
    pick_deps(deps, &n, &b, 1);
    make_ready(q, deps, n);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    bool ok = deps_ok(deps, n), write = rnd(2);
    int i = new_cmd(q, deps, n, ok);
    TRACE(" map b%d [%zu,+%zu) %s\n", b, off, cnt, write ? "write" : "read");
    cl_int err = 1;
    float *p = clEnqueueMapBuffer(queues[q], bufs[b], CL_TRUE,
                                  write ? CL_MAP_READ | CL_MAP_WRITE : CL_MAP_READ, off * 4,
                                  cnt * 4, (cl_uint)n, n ? wl : NULL, &evs[i].e, &err);
    if (!ok) {
        EXPECT(!p && err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
               "seed %llu: map %d behind a failed event: %p, %d", (unsigned long long)cur_seed,
               i, (void *)p, err);
        no_event(i);
        return;
    }
    REQUIRE(p, "seed %llu: map %d: %d", (unsigned long long)cur_seed, i, err);
    for (size_t k = 0; k < cnt; k++)
        if (memcmp(&p[k], &model[b][off + k], 4) != 0) {
            EXPECT(false, "seed %llu: map %d word %zu = %g, want %g", (unsigned long long)cur_seed,
                   i, k, p[k], model[b][off + k]);
            break;
        }
    if (write)
        for (size_t k = 0; k < cnt; k++)
            p[k] = model[b][off + k] = (float)rnd(7000);
    after(i, &b, 1);
    int j = new_cmd(q, &i, 1, true);
    EXPECT_OK(clEnqueueUnmapMemObject(queues[q], bufs[b], p, 1, &evs[i].e, &evs[j].e));
    TRACE(" unmap\n");
    after(j, &b, 1);
}

/* A read-write map without blocking, unmapped right behind it (waiting on
 * it): the mapped words are not looked at, and written back unchanged
 * they move nothing. Behind a failed event both are terminated. */
static void cmd_map_async(void)
{
    int q = (int)rnd(NQ), b = (int)rnd(NBUF), deps[MAX_DEPS], n;
    size_t off, cnt;
    range(b, &off, &cnt);
    pick_deps(deps, &n, &b, 1);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    const bool ok = deps_ok(deps, n);
    int i = new_cmd(q, deps, n, ok);
    TRACE(" map b%d [%zu,+%zu) without blocking\n", b, off, cnt);
    cl_int err = 1;
    void *p = clEnqueueMapBuffer(queues[q], bufs[b], CL_FALSE, CL_MAP_READ | CL_MAP_WRITE,
                                 off * 4, cnt * 4, (cl_uint)n, n ? wl : NULL, &evs[i].e, &err);
    EXPECT(p && err == CL_SUCCESS, "seed %llu: map %d: %p, %d", (unsigned long long)cur_seed, i,
           p, err);
    if (!p) {
        no_event(i);
        return;
    }
    after(i, &b, 1);
    int j = new_cmd(q, &i, 1, ok);
    TRACE(" unmap\n");
    EXPECT_OK(clEnqueueUnmapMemObject(queues[q], bufs[b], p, 1, &evs[i].e, &evs[j].e));
    after(j, &b, 1);
}

/* An image region: origin (x, y), size w x h pixels. */
static void img_region(size_t *x, size_t *y, size_t *w, size_t *h)
{
    *w = 1 + rnd(IW);
    *h = 1 + rnd(IH);
    *x = rnd((uint32_t)(IW - *w + 1));
    *y = rnd((uint32_t)(IH - *h + 1));
}

/* Copy a region's rows between the image's pixels and rows of w words
 * at `pitch` words in `other`: into the image (to_img) or out of it. */
static void img_rows(float *img, size_t x, size_t y, size_t w, size_t h, float *other,
                     size_t pitch, bool to_img)
{
    for (size_t r = 0; r < h; r++) {
        float *row = &img[(y + r) * IW + x], *o = &other[r * pitch];
        if (to_img)
            memmove(row, o, w * 4);
        else
            memmove(o, row, w * 4);
    }
}

/* Fill an image region with a small integer's float word as its pixel. */
static void cmd_img_fill(void)
{
    int q = (int)rnd(NQ), i = (int)rnd(NIMG), t = NBUF + i, deps[MAX_DEPS], n;
    size_t x, y, w, h;
    img_region(&x, &y, &w, &h);
    const float v = (float)rnd(4000);
    uint8_t px[4];
    memcpy(px, &v, 4);
    const cl_uint4 color = {{px[0], px[1], px[2], px[3]}};
    pick_deps(deps, &n, &t, 1);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int e = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" fill image %d (%zu,%zu) %zux%zu = %g\n", i, x, y, w, h, v);
    const size_t org[3] = {x, y, 0}, reg[3] = {w, h, 1};
    EXPECT_OK(clEnqueueFillImage(queues[q], imgs[i], &color, org, reg, (cl_uint)n, n ? wl : NULL,
                                 &evs[e].e));
    if (evs[e].ok)
        for (size_t r = 0; r < h; r++)
            for (size_t c = 0; c < w; c++)
                imodel[i][(y + r) * IW + x + c] = v;
    after(e, &t, 1);
}

/* A region from one image into the other. */
static void cmd_img_copy(void)
{
    int q = (int)rnd(NQ), i = (int)rnd(NIMG), j = 1 - i, deps[MAX_DEPS], n;
    int touch[2] = {NBUF + i, NBUF + j};
    size_t x, y, w, h;
    img_region(&x, &y, &w, &h);
    size_t x2 = rnd((uint32_t)(IW - w + 1)), y2 = rnd((uint32_t)(IH - h + 1));
    pick_deps(deps, &n, touch, 2);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int e = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" copy image %d (%zu,%zu) %zux%zu -> image %d (%zu,%zu)\n", i, x, y, w, h, j, x2, y2);
    const size_t so[3] = {x, y, 0}, dorg[3] = {x2, y2, 0}, reg[3] = {w, h, 1};
    EXPECT_OK(clEnqueueCopyImage(queues[q], imgs[i], imgs[j], so, dorg, reg, (cl_uint)n,
                                 n ? wl : NULL, &evs[e].e));
    if (evs[e].ok) {
        float tmp[IW * IH];
        img_rows(imodel[i], x, y, w, h, tmp, w, false);
        img_rows(imodel[j], x2, y2, w, h, tmp, w, true);
    }
    after(e, touch, 2);
}

/* A region between an image and a buffer (rows packed in the buffer). */
static void cmd_img_buf(void)
{
    int q = (int)rnd(NQ), i = (int)rnd(NIMG), b = (int)rnd(NBUF), deps[MAX_DEPS], n;
    const bool to_img = rnd(2);
    int touch[2] = {NBUF + i, b};
    size_t x, y, w, h;
    img_region(&x, &y, &w, &h);
    if (w * h > buf_words[b])
        return;
    size_t off = rnd((uint32_t)(buf_words[b] - w * h + 1));
    pick_deps(deps, &n, touch, 2);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int e = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" image %d (%zu,%zu) %zux%zu %s b%d @%zu\n", i, x, y, w, h, to_img ? "<-" : "->", b,
          off);
    const size_t org[3] = {x, y, 0}, reg[3] = {w, h, 1};
    if (to_img)
        EXPECT_OK(clEnqueueCopyBufferToImage(queues[q], bufs[b], imgs[i], off * 4, org, reg,
                                             (cl_uint)n, n ? wl : NULL, &evs[e].e));
    else
        EXPECT_OK(clEnqueueCopyImageToBuffer(queues[q], imgs[i], bufs[b], org, reg, off * 4,
                                             (cl_uint)n, n ? wl : NULL, &evs[e].e));
    if (evs[e].ok)
        img_rows(imodel[i], x, y, w, h, &model[b][off], w, to_img);
    after(e, touch, 2);
}

/* Host rows into an image region, or a region into host memory, without
 * blocking (host rows at a pitch of their own). */
static void cmd_img_host(void)
{
    int q = (int)rnd(NQ), i = (int)rnd(NIMG), t = NBUF + i, deps[MAX_DEPS], n;
    const bool write = rnd(2);
    size_t x, y, w, h;
    img_region(&x, &y, &w, &h);
    size_t hp = w + rnd(5);
    float *host = malloc(hp * h * 4);
    REQUIRE(host, "host memory");
    for (size_t k = 0; k < hp * h; k++)
        host[k] = write ? (float)rnd(4000) : -1.0f;
    pick_deps(deps, &n, &t, 1);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int e = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" %s image %d (%zu,%zu) %zux%zu pitch %zu\n", write ? "write" : "read", i, x, y, w, h,
          hp);
    const size_t org[3] = {x, y, 0}, reg[3] = {w, h, 1};
    if (write) {
        host_srcs[nsrcs++] = host;
        EXPECT_OK(clEnqueueWriteImage(queues[q], imgs[i], CL_FALSE, org, reg, hp * 4, 0, host,
                                      (cl_uint)n, n ? wl : NULL, &evs[e].e));
        if (evs[e].ok)
            img_rows(imodel[i], x, y, w, h, host, hp, true);
    } else {
        struct read_check *r = &reads[nreads++];
        r->ev = e;
        r->dst = host;
        r->words = hp * h;
        r->want = malloc(hp * h * 4);
        REQUIRE(r->want, "host memory");
        for (size_t k = 0; k < hp * h; k++)
            r->want[k] = -1.0f;
        if (evs[e].ok)
            img_rows(imodel[i], x, y, w, h, r->want, hp, false);
        EXPECT_OK(clEnqueueReadImage(queues[q], imgs[i], CL_FALSE, org, reg, hp * 4, 0, host,
                                     (cl_uint)n, n ? wl : NULL, &evs[e].e));
    }
    after(e, &t, 1);
}

/* c = a + b + add over the first words of all three. */
static void cmd_kernel(void)
{
    int q = (int)rnd(NQ), deps[MAX_DEPS], n;
    int a = (int)rnd(NBUF), b = (int)rnd(NBUF), c = (int)rnd(NBUF);
    int add = (int)rnd(7);
    size_t w = 1024;
    int touch[3] = {a, b, c};
    for (int k = 0; k < 3; k++)
        if (buf_words[touch[k]] < w)
            w = buf_words[touch[k]];
    int ntouch = 3;
    pick_deps(deps, &n, touch, ntouch);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int i = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" vadd b%d = b%d + b%d + %d over %zu\n", c, a, b, add, w);
    vadd_step(queues[q], vadd, bufs[a], bufs[b], bufs[c], add, (int)w, (cl_uint)n,
              n ? wl : NULL, &evs[i].e);
    if (evs[i].ok)
        for (size_t k = 0; k < w; k++)
            model[c][k] = model[a][k] + model[b][k] + (float)add;
    after(i, touch, ntouch);
}

/* A marker or barrier with a random wait list (none: every command
 * before it). Only wait-list failures pass on. */
static void cmd_sync(void)
{
    int q = (int)rnd(NQ), deps[MAX_DEPS], n = 0;
    if (rnd(2))
        pick_deps(deps, &n, NULL, 0);
    cl_event wl[MAX_DEPS];
    wait_list(deps, n, wl);
    int i = new_cmd(q, deps, n, deps_ok(deps, n));
    TRACE(" sync\n");
    if (rnd(2))
        EXPECT_OK(clEnqueueMarkerWithWaitList(queues[q], (cl_uint)n, n ? wl : NULL,
                                              &evs[i].e));
    else
        EXPECT_OK(clEnqueueBarrierWithWaitList(queues[q], (cl_uint)n, n ? wl : NULL,
                                               &evs[i].e));
    /* Without a wait list it waits for every command before it on its
     * queue; settled() does not know that for the out-of-order queue
     * (none of its commands is ever waited for in the middle). */
}

static void new_user(void)
{
    REQUIRE(nev < MAX_EVENTS, "too many events");
    cl_int err;
    int i = nev++;
    struct ev *v = &evs[i];
    memset(v, 0, sizeof(*v));
    v->user = true;
    v->e = clCreateUserEvent(ctx, &err);
    REQUIRE(v->e, "user event: %d", err);
    v->ok = rnd(5) != 0;
    v->set_to = v->ok ? CL_COMPLETE : -100 - (cl_int)rnd(50);
    v->prev = v->owner = -1;
    TRACE("%d: user, to be %d\n", i, v->set_to);
}

/* A user event the host has yet to set. */
static bool host_unset(int k) { return evs[k].user && evs[k].owner < 0 && !evs[k].handed; }

static void CL_CALLBACK set_from_cb(cl_event e, cl_int status, void *arg)
{
    (void)e;
    (void)status;
    const struct ev *u = arg;
    EXPECT_OK(clSetUserEventStatus(u->e, u->set_to));
}

/* A new user event that command c's callback sets when c ends (completed
 * or terminated): what waits on it follows c through the notifier. */
static void user_from_callback(int c)
{
    new_user();
    int u = nev - 1;
    evs[u].owner = c;
    TRACE("  set by %d's callback\n", c);
    EXPECT_OK(clSetEventCallback(evs[c].e, CL_COMPLETE, set_from_cb, &evs[u]));
}

static void set_user(int i)
{
    evs[i].handed = true;
    TRACE("set %d\n", i);
    EXPECT_OK(clSetUserEventStatus(evs[i].e, evs[i].set_to));
    atomic_store(&evs[i].set, true);
}

/* The helper thread of a graph with asynchronous sets: it sets the user
 * events handed to it, each after a pause of up to 300 us, while this
 * thread goes on enqueuing. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t more;
    int ring[MAX_EVENTS];
    unsigned head, tail;
    bool stop, on;
    pthread_t thread;
} setter = {.lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER};

static void *setter_main(void *arg)
{
    uint64_t r = (uintptr_t)arg;
    pthread_mutex_lock(&setter.lock);
    for (;;) {
        while (setter.head == setter.tail && !setter.stop)
            pthread_cond_wait(&setter.more, &setter.lock);
        if (setter.head == setter.tail)
            break;
        int i = setter.ring[setter.tail++ % MAX_EVENTS];
        pthread_mutex_unlock(&setter.lock);
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        usleep((useconds_t)((r >> 33) % 300));
        EXPECT_OK(clSetUserEventStatus(evs[i].e, evs[i].set_to));
        atomic_store(&evs[i].set, true);
        pthread_mutex_lock(&setter.lock);
    }
    pthread_mutex_unlock(&setter.lock);
    return NULL;
}

static void set_some_user(void)
{
    for (int tries = 0; tries < 8 && nev; tries++) {
        int j = (int)rnd((uint32_t)nev);
        if (!host_unset(j))
            continue;
        if (!setter.on) {
            set_user(j);
            return;
        }
        evs[j].handed = true;
        TRACE("hand %d\n", j);
        pthread_mutex_lock(&setter.lock);
        setter.ring[setter.head++ % MAX_EVENTS] = j;
        pthread_cond_signal(&setter.more);
        pthread_mutex_unlock(&setter.lock);
        return;
    }
}

static bool all_set(void)
{
    for (int k = 0; k < nev; k++)
        if (host_unset(k))
            return false;
    return true;
}

/* Wait for a command whose every dependency is settled, or any command
 * once every user event is set: it ends by itself. */
static void wait_settled(void)
{
    for (int tries = 0; tries < 8 && nev; tries++) {
        int j = (int)rnd((uint32_t)nev);
        stamp++;
        if (evs[j].user || !evs[j].e || (!settled(j) && !all_set()))
            continue;
        TRACE("wait %d\n", j);
        cl_int r = clWaitForEvents(1, &evs[j].e);
        EXPECT(r == (evs[j].ok ? CL_SUCCESS : CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
               "seed %llu: wait for command %d: %d (model: %s)", (unsigned long long)cur_seed, j,
               r, evs[j].ok ? "completes" : "terminated");
        return;
    }
}

/* The slowest steps of a graph, for HCQCL_RANDOM_TIMES. */
#define SLOW_STEPS 4
struct slow {
    uint64_t ns;
    int step, op;
};

static void note_slow(struct slow *w, int step, int op, uint64_t ns)
{
    int k = SLOW_STEPS;
    while (k > 0 && w[k - 1].ns < ns)
        k--;
    if (k == SLOW_STEPS)
        return;
    memmove(&w[k + 1], &w[k], (size_t)(SLOW_STEPS - 1 - k) * sizeof(*w));
    w[k] = (struct slow){ns, step, op};
}

static void run_graph(uint64_t seed)
{
    static const char *const op_names[26] = {
        "user", "user", "set", "set", "fill", "fill", "copy", "copy", "write",
        "read", "read", "kernel", "kernel", "kernel", "sync", "copy_rect", "write_rect",
        "map", "lite", "map_async", "img_fill", "img_copy", "img_buf", "img_host",
        "misc", "misc"};
    struct slow slow[SLOW_STEPS] = {{0, 0, 0}};
    uint64_t t_phase[6];
    t_phase[0] = host_ns();
    rng = cur_seed = seed;
    cl_int err;
    /* Odd seeds hand user events to the helper thread. */
    setter.on = seed & 1;
    setter.head = setter.tail = 0;
    setter.stop = false;
    if (setter.on)
        REQUIRE(pthread_create(&setter.thread, NULL, setter_main, (void *)(uintptr_t)seed) == 0,
                "helper thread");
    nev = nreads = nsrcs = 0;
    for (int q = 0; q < NQ; q++) {
        cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                       q == OOO ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, 0};
        queues[q] = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
        REQUIRE(queues[q], "queue: %d", err);
        last_in_queue[q] = -1;
    }
    const cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
    const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = IW,
                                .image_height = IH};
    for (int i = 0; i < NIMG; i++) {
        chain[NBUF + i] = -1;
        imodel[i] = malloc(IW * IH * 4);
        REQUIRE(imodel[i], "host memory");
        for (size_t k = 0; k < IW * IH; k++)
            imodel[i][k] = (float)((k * 3 + (size_t)i) % 211);
        imgs[i] = clCreateImage(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &fmt, &desc,
                                imodel[i], &err);
        REQUIRE(imgs[i], "image: %d", err);
    }
    for (int b = 0; b < NBUF; b++) {
        chain[b] = -1;
        if (b == SUB) {
            model[b] = model[SUB_PARENT] + SUB_AT;
            const cl_buffer_region r = {SUB_AT * 4, buf_words[SUB] * 4};
            bufs[b] = clCreateSubBuffer(bufs[SUB_PARENT], CL_MEM_READ_WRITE,
                                        CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
            REQUIRE(bufs[b], "sub-buffer: %d", err);
            continue;
        }
        model[b] = malloc(buf_words[b] * 4);
        REQUIRE(model[b], "host memory");
        for (size_t k = 0; k < buf_words[b]; k++)
            model[b][k] = (float)((k * 7 + (size_t)b) % 101);
        cl_mem_flags f = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
        if (b == 3)
            f |= CL_MEM_ALLOC_HOST_PTR;
        bufs[b] = clCreateBuffer(ctx, f, buf_words[b] * 4, model[b], &err);
        REQUIRE(bufs[b], "buffer: %d", err);
    }
    t_phase[1] = host_ns();
    for (int c = 0; c < ncmds; c++) {
        const uint64_t t_step = host_ns();
        TRACE("step %d at %.3f ms\n", c, (t_step - t_phase[0]) / 1e6);
        const int op = (int)rnd(26);
        switch (op) {
        case 0: case 1: new_user(); break;
        case 2: case 3: set_some_user(); break;
        case 4: case 5: cmd_fill(); break;
        case 6: case 7: cmd_copy(); break;
        case 8: cmd_write(); break;
        case 9: case 10: cmd_read(); break;
        case 11: case 12: case 13: cmd_kernel(); break;
        case 14: cmd_sync(); break;
        case 15: cmd_copy_rect(); break;
        case 16: cmd_write_rect(); break;
        case 17: cmd_map(); break;
        case 18: cmd_lite(); break;
        case 19: cmd_map_async(); break;
        case 20: cmd_img_fill(); break;
        case 21: cmd_img_copy(); break;
        case 22: cmd_img_buf(); break;
        case 23: cmd_img_host(); break;
        default:
            if (rnd(4) == 0)
                release_early();
            else if (rnd(3) == 0)
                wait_settled();
            else
                EXPECT_OK(clFlush(queues[rnd(NQ)]));
        }
        struct ev *last = nev && evs[nev - 1].e ? &evs[nev - 1] : NULL;
        if (last && !last->user && rnd(8) == 0) {
            user_from_callback(nev - 1);
            last = &evs[nev - 1];
        }
        if (last && !last->has_cb && rnd(6) == 0) {
            struct cb_count *cb = &cbs[nev - 1];
            atomic_store(&cb->calls, 0);
            atomic_store(&cb->status, 1);
            last->has_cb = true;
            EXPECT_OK(clSetEventCallback(last->e, CL_COMPLETE, on_complete, cb));
        }
        note_slow(slow, c, op, host_ns() - t_step);
    }
    t_phase[2] = host_ns();
    for (int i = 0; i < nev; i++)
        if (host_unset(i))
            set_user(i);
    for (int q = 0; q < NQ; q++)
        EXPECT_OK(clFinish(queues[q]));
    t_phase[3] = host_ns();
    if (setter.on) {
        pthread_mutex_lock(&setter.lock);
        setter.stop = true;
        pthread_cond_signal(&setter.more);
        pthread_mutex_unlock(&setter.lock);
        pthread_join(setter.thread, NULL);
    }
    /* User events set by callbacks: the last may come after clFinish. */
    const uint64_t t_cb = host_ns();
    for (int i = 0; i < nev; i++)
        while (evs[i].user && evs[i].owner >= 0 && status_of(evs[i].e) == CL_SUBMITTED &&
               host_ns() - t_cb < 5000000000ull)
            usleep(200);

    t_phase[4] = host_ns();
    int bad = 0;
    for (int i = 0; i < nev && bad < 8; i++) {
        if (!evs[i].e)
            continue;
        cl_int s = status_of(evs[i].e);
        bool good = evs[i].user ? s == evs[i].set_to : evs[i].ok ? s == CL_COMPLETE : s < 0;
        if (!good) {
            bad++;
            EXPECT(false, "seed %llu: event %d (%s, queue %d) status %d, model %s",
                   (unsigned long long)seed, i, evs[i].user ? "user" : "command", evs[i].q, s,
                   evs[i].ok ? "completes" : "terminated");
        }
    }
    for (int r = 0; r < nreads; r++) {
        struct read_check *rc = &reads[r];
        for (size_t k = 0; k < rc->words; k++) {
            float want = rc->want ? rc->want[k] : -1.0f;
            if (memcmp(&rc->dst[k], &want, 4) != 0) {
                EXPECT(false, "seed %llu: read (event %d) word %zu = %g, want %g",
                       (unsigned long long)seed, rc->ev, k, rc->dst[k], want);
                break;
            }
        }
        free(rc->dst);
        free(rc->want);
    }
    for (int b = 0; b < NBUF; b++) {
        float *got = malloc(buf_words[b] * 4);
        REQUIRE(got, "host memory");
        EXPECT_OK(clEnqueueReadBuffer(queues[0], bufs[b], CL_TRUE, 0, buf_words[b] * 4, got, 0,
                                      NULL, NULL));
        for (size_t k = 0; k < buf_words[b]; k++)
            if (memcmp(&got[k], &model[b][k], 4) != 0) {
                EXPECT(false, "seed %llu: buffer %d word %zu = %g, want %g",
                       (unsigned long long)seed, b, k, got[k], model[b][k]);
                break;
            }
        free(got);
    }
    for (int i = 0; i < NIMG; i++) {
        float got[IW * IH];
        const size_t org[3] = {0, 0, 0}, reg[3] = {IW, IH, 1};
        EXPECT_OK(clEnqueueReadImage(queues[0], imgs[i], CL_TRUE, org, reg, 0, 0, got, 0, NULL,
                                     NULL));
        for (size_t k = 0; k < IW * IH; k++)
            if (memcmp(&got[k], &imodel[i][k], 4) != 0) {
                EXPECT(false, "seed %llu: image %d pixel (%zu,%zu) = %g, want %g",
                       (unsigned long long)seed, i, k % IW, k / IW, got[k], imodel[i][k]);
                break;
            }
        EXPECT_OK(clReleaseMemObject(imgs[i]));
        free(imodel[i]);
    }
    /* Callbacks: each once, with its event's status; they may run after
     * clFinish returned. */
    uint64_t t0 = host_ns();
    for (int i = 0; i < nev; i++) {
        struct cb_count *cb = &cbs[i];
        if (!evs[i].has_cb)
            continue;
        while (atomic_load(&cb->calls) == 0 && host_ns() - t0 < 5000000000ull)
            usleep(200);
        cl_int want = evs[i].user ? evs[i].set_to : evs[i].ok ? CL_COMPLETE : -1;
        int calls = atomic_load(&cb->calls);
        cl_int got = atomic_load(&cb->status);
        EXPECT(calls == 1 && (want < 0 ? got < 0 : got == want),
               "seed %llu: event %d's callback: %d calls, status %d (model %d)",
               (unsigned long long)seed, i, calls, got, want);
    }
    for (int i = 0; i < nev; i++)
        if (evs[i].e)
            EXPECT_OK(clReleaseEvent(evs[i].e));
    for (int i = 0; i < nsrcs; i++)
        free(host_srcs[i]);
    for (int b = NBUF - 1; b >= 0; b--) {
        EXPECT_OK(clReleaseMemObject(bufs[b]));
        if (b != SUB)
            free(model[b]);
    }
    for (int q = 0; q < NQ; q++)
        EXPECT_OK(clReleaseCommandQueue(queues[q]));
    t_phase[5] = host_ns();
    if (times) {
        fprintf(stderr,
                "seed %llu: setup %.2f steps %.2f finish %.2f set-by-callback %.2f check %.2f ms;"
                " slowest",
                (unsigned long long)seed, (t_phase[1] - t_phase[0]) / 1e6,
                (t_phase[2] - t_phase[1]) / 1e6, (t_phase[3] - t_phase[2]) / 1e6,
                (t_phase[4] - t_phase[3]) / 1e6, (t_phase[5] - t_phase[4]) / 1e6);
        for (int k = 0; k < SLOW_STEPS && slow[k].ns; k++)
            fprintf(stderr, " %d:%s %.2f", slow[k].step, op_names[slow[k].op], slow[k].ns / 1e6);
        fprintf(stderr, "\n");
    }
}

int main(void)
{
    cl_platform_id p;
    cl_command_queue q0;
    cltest_setup(&p, &dev, &ctx, &q0);
    cl_program prog = cltest_program(ctx, dev, "test_kernels.cubin");
    cl_int err;
    vadd = clCreateKernel(prog, "vadd", &err);
    REQUIRE(vadd, "vadd: %d", err);

    trace = getenv("HCQCL_RANDOM_TRACE") != NULL;
    times = getenv("HCQCL_RANDOM_TIMES") != NULL;
    if (getenv("HCQCL_RANDOM_CMDS"))
        ncmds = atoi(getenv("HCQCL_RANDOM_CMDS"));
    REQUIRE(ncmds > 0 && ncmds <= MAX_CMDS, "HCQCL_RANDOM_CMDS: 1 to %d", MAX_CMDS);
    const char *one = getenv("HCQCL_RANDOM_SEED"), *count = getenv("HCQCL_RANDOM_SEEDS");
    int seeds = count ? atoi(count) : 64;
    if (one) {
        run_graph(strtoull(one, NULL, 0));
    } else {
        for (int s = 1; s <= seeds; s++)
            run_graph((uint64_t)s * 1000003u);
    }

    EXPECT_OK(clReleaseKernel(vadd));
    EXPECT_OK(clReleaseProgram(prog));
    EXPECT_OK(clReleaseCommandQueue(q0));
    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_event_random");
}

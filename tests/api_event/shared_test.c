/*
 * shared_test.c — threads enqueuing at once onto the same two queues (one
 * in-order, one out-of-order), each on buffers of its own, behind user
 * events of its own: each thread's commands form a chain (each waits on
 * its thread's last command that is to complete), some behind a user
 * event it sets itself later or leaves to the end, complete or failed,
 * and some with no event at all. After the threads are done every user
 * event left is set and both queues finished; each thread's buffers,
 * reads and events are then checked against its own model. The in-order
 * queue mixes the threads' commands in an order none of them chose, so a
 * thread's command may wait behind another thread's held one.
 *
 * HCQCL_SHARED_ROUNDS=n rounds (default 4).
 */
#include "vadd_steps.h"
#include "rng.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, STEPS = 300, WORDS = 1024, MAX_EV = 2 * STEPS };

static cl_device_id dev;
static cl_context ctx;
static cl_program prog;
static cl_command_queue shared[2]; /* in-order, out-of-order */

struct step_ev {
    cl_event e;
    bool ok, user, set;
    cl_int set_to;
};

struct thread {
    uint64_t rng;
    cl_kernel k;
    cl_mem buf[2];
    float model[2][WORDS];
    struct step_ev ev[MAX_EV];
    int nev, chain; /* chain: last event to complete, or -1 */
    float *reads[STEPS], *want[STEPS];
    size_t read_words[STEPS];
    int nreads;
    float *srcs[STEPS];
    int nsrcs;
};

static struct thread th[THREADS];

static uint32_t rnd(struct thread *t, uint32_t n) { return test_rand(&t->rng, n); }

/* The wait list of the next command: the chain, sometimes a user event of
 * the thread's not yet set. */
static int deps_of(struct thread *t, cl_event *wl, bool *ok)
{
    int n = 0;
    *ok = true;
    if (t->chain >= 0)
        wl[n++] = t->ev[t->chain].e;
    if (rnd(t, 5) == 0) {
        for (int tries = 0; tries < 4 && t->nev; tries++) {
            struct step_ev *u = &t->ev[rnd(t, (uint32_t)t->nev)];
            if (u->user && !u->set) {
                wl[n++] = u->e;
                *ok = u->ok;
                break;
            }
        }
    }
    if (t->chain >= 0 && !t->ev[t->chain].ok)
        *ok = false;
    return n;
}

static struct step_ev *next_ev(struct thread *t, bool ok)
{
    REQUIRE(t->nev < MAX_EV, "events");
    struct step_ev *v = &t->ev[t->nev++];
    memset(v, 0, sizeof(*v));
    v->ok = ok;
    return v;
}

static void *thread_main(void *arg)
{
    struct thread *t = arg;
    cl_int err;
    for (int s = 0; s < STEPS; s++) {
        cl_command_queue q = shared[rnd(t, 2)];
        cl_event wl[2];
        bool ok;
        switch (rnd(t, 9)) {
        case 0: { /* a user event of its own */
            struct step_ev *u = next_ev(t, rnd(t, 5) != 0);
            u->user = true;
            u->set_to = u->ok ? CL_COMPLETE : -7;
            u->e = clCreateUserEvent(ctx, &err);
            REQUIRE(u->e, "user event: %d", err);
            break;
        }
        case 1: /* set one of them now */
            for (int i = 0; i < t->nev; i++)
                if (t->ev[i].user && !t->ev[i].set && rnd(t, 2)) {
                    t->ev[i].set = true;
                    EXPECT_OK(clSetUserEventStatus(t->ev[i].e, t->ev[i].set_to));
                    break;
                }
            break;
        case 2: case 3: { /* fill */
            int b = (int)rnd(t, 2), n = deps_of(t, wl, &ok);
            size_t off = rnd(t, WORDS), cnt = 1 + rnd(t, (uint32_t)(WORDS - off));
            float v = (float)rnd(t, 1000);
            struct step_ev *e = next_ev(t, ok);
            EXPECT_OK(clEnqueueFillBuffer(q, t->buf[b], &v, 4, off * 4, cnt * 4, (cl_uint)n,
                                          n ? wl : NULL, &e->e));
            if (ok) {
                for (size_t k = 0; k < cnt; k++)
                    t->model[b][off + k] = v;
                t->chain = t->nev - 1;
            }
            break;
        }
        case 4: case 5: { /* vadd: c = a + b + add */
            int a = (int)rnd(t, 2), c = (int)rnd(t, 2), add = (int)rnd(t, 4);
            int n = deps_of(t, wl, &ok);
            struct step_ev *e = next_ev(t, ok);
            vadd_step(q, t->k, t->buf[a], t->buf[1 - a], t->buf[c], add, WORDS, (cl_uint)n,
                      n ? wl : NULL, &e->e);
            if (ok) {
                for (int k = 0; k < WORDS; k++)
                    t->model[c][k] = t->model[a][k] + t->model[1 - a][k] + (float)add;
                t->chain = t->nev - 1;
            }
            break;
        }
        case 6: { /* write */
            int b = (int)rnd(t, 2), n = deps_of(t, wl, &ok);
            size_t off = rnd(t, WORDS), cnt = 1 + rnd(t, (uint32_t)(WORDS - off));
            float *src = malloc(cnt * 4);
            REQUIRE(src, "host memory");
            t->srcs[t->nsrcs++] = src;
            for (size_t k = 0; k < cnt; k++)
                src[k] = (float)rnd(t, 9000);
            struct step_ev *e = next_ev(t, ok);
            EXPECT_OK(clEnqueueWriteBuffer(q, t->buf[b], CL_FALSE, off * 4, cnt * 4, src,
                                           (cl_uint)n, n ? wl : NULL, &e->e));
            if (ok) {
                memcpy(&t->model[b][off], src, cnt * 4);
                t->chain = t->nev - 1;
            }
            break;
        }
        case 7: { /* read */
            int b = (int)rnd(t, 2), n = deps_of(t, wl, &ok);
            size_t off = rnd(t, WORDS), cnt = 1 + rnd(t, (uint32_t)(WORDS - off));
            int r = t->nreads++;
            t->reads[r] = malloc(cnt * 4);
            REQUIRE(t->reads[r], "host memory");
            for (size_t k = 0; k < cnt; k++)
                t->reads[r][k] = -1.0f;
            t->read_words[r] = cnt;
            t->want[r] = NULL;
            if (ok) {
                t->want[r] = malloc(cnt * 4);
                REQUIRE(t->want[r], "host memory");
                memcpy(t->want[r], &t->model[b][off], cnt * 4);
            }
            struct step_ev *e = next_ev(t, ok);
            EXPECT_OK(clEnqueueReadBuffer(q, t->buf[b], CL_FALSE, off * 4, cnt * 4, t->reads[r],
                                          (cl_uint)n, n ? wl : NULL, &e->e));
            if (ok)
                t->chain = t->nev - 1;
            break;
        }
        default: /* a flush */
            EXPECT_OK(clFlush(q));
        }
    }
    return NULL;
}

static void round_of(uint64_t seed)
{
    cl_int err;
    for (int i = 0; i < THREADS; i++) {
        struct thread *t = &th[i];
        memset(t, 0, sizeof(*t));
        t->rng = seed * 7919 + (uint64_t)i;
        t->chain = -1;
        t->k = clCreateKernel(prog, "vadd", &err);
        REQUIRE(t->k, "vadd: %d", err);
        for (int b = 0; b < 2; b++) {
            for (int k = 0; k < WORDS; k++)
                t->model[b][k] = (float)((k + b + i) % 13);
            t->buf[b] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, WORDS * 4,
                                       t->model[b], &err);
            REQUIRE(t->buf[b], "buffer: %d", err);
        }
    }
    pthread_t ids[THREADS];
    for (int i = 0; i < THREADS; i++)
        REQUIRE(pthread_create(&ids[i], NULL, thread_main, &th[i]) == 0, "thread");
    for (int i = 0; i < THREADS; i++)
        pthread_join(ids[i], NULL);
    for (int i = 0; i < THREADS; i++)
        for (int j = 0; j < th[i].nev; j++)
            if (th[i].ev[j].user && !th[i].ev[j].set)
                EXPECT_OK(clSetUserEventStatus(th[i].ev[j].e, th[i].ev[j].set_to));
    EXPECT_OK(clFinish(shared[0]));
    EXPECT_OK(clFinish(shared[1]));

    for (int i = 0; i < THREADS; i++) {
        struct thread *t = &th[i];
        int bad = 0;
        for (int j = 0; j < t->nev && bad < 4; j++) {
            struct step_ev *v = &t->ev[j];
            cl_int s = status_of(v->e);
            bool good = v->user ? s == v->set_to : v->ok ? s == CL_COMPLETE : s < 0;
            if (!good) {
                bad++;
                EXPECT(false, "seed %llu thread %d event %d (%s): status %d, model %s",
                       (unsigned long long)seed, i, j, v->user ? "user" : "command", s,
                       v->ok ? "completes" : "terminated");
            }
            EXPECT_OK(clReleaseEvent(v->e));
        }
        for (int r = 0; r < t->nreads; r++) {
            for (size_t k = 0; k < t->read_words[r]; k++) {
                float want = t->want[r] ? t->want[r][k] : -1.0f;
                if (memcmp(&t->reads[r][k], &want, 4) != 0) {
                    EXPECT(false, "seed %llu thread %d read %d word %zu = %g, want %g",
                           (unsigned long long)seed, i, r, k, t->reads[r][k], want);
                    break;
                }
            }
            free(t->reads[r]);
            free(t->want[r]);
        }
        for (int b = 0; b < 2; b++) {
            float got[WORDS];
            EXPECT_OK(clEnqueueReadBuffer(shared[0], t->buf[b], CL_TRUE, 0, sizeof(got), got, 0,
                                          NULL, NULL));
            for (int k = 0; k < WORDS; k++)
                if (memcmp(&got[k], &t->model[b][k], 4) != 0) {
                    EXPECT(false, "seed %llu thread %d buffer %d word %d = %g, want %g",
                           (unsigned long long)seed, i, b, k, got[k], t->model[b][k]);
                    break;
                }
            EXPECT_OK(clReleaseMemObject(t->buf[b]));
        }
        for (int s = 0; s < t->nsrcs; s++)
            free(t->srcs[s]);
        EXPECT_OK(clReleaseKernel(t->k));
    }
}

int main(void)
{
    cl_platform_id p;
    cl_command_queue q0;
    cltest_setup(&p, &dev, &ctx, &q0);
    prog = cltest_program(ctx, dev, "test_kernels.cubin");
    cl_int err;
    const cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                       0};
    shared[0] = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    shared[1] = clCreateCommandQueueWithProperties(ctx, dev, ooo, &err);
    REQUIRE(shared[0] && shared[1], "queues: %d", err);
    const char *rounds_s = getenv("HCQCL_SHARED_ROUNDS");
    const int rounds = rounds_s ? atoi(rounds_s) : 4;
    for (int r = 1; r <= rounds; r++)
        round_of((uint64_t)r);
    EXPECT_OK(clReleaseCommandQueue(shared[0]));
    EXPECT_OK(clReleaseCommandQueue(shared[1]));
    EXPECT_OK(clReleaseProgram(prog));
    EXPECT_OK(clReleaseCommandQueue(q0));
    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_event_shared");
}

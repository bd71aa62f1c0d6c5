/*
 * threads_test.c — eight host threads (or argv[1]), each enqueueing 10 000 commands on
 * an in-order queue of its own in one shared context, all at once, checked
 * by data. A thread's commands alternate a kernel, B = A + 1 (vadd from
 * tests/kernels, c = a + b + add with b zero), and a copy B -> A, so A ends
 * at its start + 5000 only if every kernel ran after the copy before it
 * and every copy after its kernel. Every 50th kernel asks for an event
 * (released at once or kept), every 500th round the thread waits for the
 * last kept one and checks that it completed; clFlush every 1000
 * commands. Each thread has its own kernel object (clSetKernelArg is not
 * thread-safe on one kernel); the program, context and device are shared.
 */
#include "vadd_steps.h"

#include <pthread.h>
#include <stdint.h>

enum { MAX_THREADS = 64, COMMANDS = 10000, ROUNDS = COMMANDS / 2, N = 1024 };

static cl_device_id dev;
static cl_context ctx;
static cl_program prog;
static pthread_barrier_t start;

struct worker {
    int id;
    int enqueued; /* commands enqueued successfully */
    int waits;    /* event waits that saw CL_COMPLETE */
};

static float start_value(int id, int i) { return (float)(id * 1000 + i % 97); }

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q, "thread %d: queue: %d", w->id, err);
    cl_kernel k = clCreateKernel(prog, "vadd", &err);
    REQUIRE(k, "thread %d: vadd: %d", w->id, err);
    float init[N], zero[N] = {0};
    for (int i = 0; i < N; i++)
        init[i] = start_value(w->id, i);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(init), init,
                              &err);
    REQUIRE(a, "thread %d: buffer: %d", w->id, err);
    cl_mem z = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(zero), zero,
                              &err);
    REQUIRE(z, "thread %d: buffer: %d", w->id, err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(init), NULL, &err);
    REQUIRE(b, "thread %d: buffer: %d", w->id, err);

    pthread_barrier_wait(&start);
    cl_event kept = NULL;
    for (int r = 0; r < ROUNDS; r++) {
        cl_event e = NULL;
        const bool with_event = r % 50 == 0;
        vadd_step(q, k, a, z, b, 1, N, 0, NULL, with_event ? &e : NULL);
        w->enqueued++;
        if (clEnqueueCopyBuffer(q, b, a, 0, 0, sizeof(init), 0, NULL, NULL) == CL_SUCCESS)
            w->enqueued++;
        if (e) {
            if (r % 100 == 0) { /* kept until the next wait */
                if (kept)
                    clReleaseEvent(kept);
                kept = e;
            } else {
                EXPECT_OK(clReleaseEvent(e));
            }
        }
        if (r % 500 == 499 && kept) {
            EXPECT_OK(clWaitForEvents(1, &kept));
            w->waits += status_of(kept) == CL_COMPLETE;
        }
        if (r % 500 == 250)
            EXPECT_OK(clFlush(q));
    }
    EXPECT_OK(clFinish(q));
    if (kept) {
        EXPECT(status_of(kept) == CL_COMPLETE, "thread %d: last kept event", w->id);
        EXPECT_OK(clReleaseEvent(kept));
    }
    float got[N];
    EXPECT_OK(clEnqueueReadBuffer(q, a, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (got[i] != start_value(w->id, i) + (float)ROUNDS && bad++ < 3)
            EXPECT(false, "thread %d: a[%d] = %g, want %g", w->id, i, got[i],
                   start_value(w->id, i) + (float)ROUNDS);
    EXPECT_OK(clReleaseMemObject(a));
    EXPECT_OK(clReleaseMemObject(b));
    EXPECT_OK(clReleaseMemObject(z));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clReleaseCommandQueue(q));
    return NULL;
}

/* argv[1]: the number of threads (8 by default). */
int main(int argc, char **argv)
{
    const int THREADS = argc > 1 ? atoi(argv[1]) : 8;
    REQUIRE(THREADS >= 1 && THREADS <= MAX_THREADS, "threads: %d", THREADS);
    cl_platform_id p;
    cl_command_queue q0;
    cltest_setup(&p, &dev, &ctx, &q0);
    prog = cltest_program(ctx, dev, "test_kernels.cubin");
    REQUIRE(pthread_barrier_init(&start, NULL, (unsigned)THREADS) == 0);
    pthread_t th[MAX_THREADS];
    struct worker w[MAX_THREADS];
    const uint64_t t0 = host_ns();
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){.id = i};
        REQUIRE(pthread_create(&th[i], NULL, worker_main, &w[i]) == 0);
    }
    int enqueued = 0, waits = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        EXPECT(w[i].enqueued == COMMANDS, "thread %d enqueued %d of %d", i, w[i].enqueued,
               COMMANDS);
        EXPECT(w[i].waits == ROUNDS / 500, "thread %d: %d of %d waits saw CL_COMPLETE", i,
               w[i].waits, ROUNDS / 500);
        enqueued += w[i].enqueued;
        waits += w[i].waits;
    }
    printf("api_event_threads: %d threads x %d commands (%d enqueued, %d waits complete) "
           "in %.2f s\n",
           THREADS, COMMANDS, enqueued, waits, (double)(host_ns() - t0) / 1e9);
    pthread_barrier_destroy(&start);
    EXPECT_OK(clReleaseProgram(prog));
    EXPECT_OK(clReleaseCommandQueue(q0));
    EXPECT_OK(clReleaseContext(ctx));
    return cltest_result("api_event_threads");
}

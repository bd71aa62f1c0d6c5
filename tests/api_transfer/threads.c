/*
 * threads.c — large pageable reads and writes from several threads at
 * once, each thread on its own queue of one context: the pipelined
 * transfers share the device's staging pool and the staging copy threads
 * (forced to 4 here so that they run even on a small machine), and every
 * byte is checked.
 *
 * Each thread, in rounds of odd sizes at unaligned buffer offsets:
 *  - a blocking write, then the host buffer is overwritten at once (a
 *    blocking write must be done with it when it returns), then a
 *    blocking read back;
 *  - a non-blocking write and a non-blocking read that waits on it
 *    through its wait list, checked once the read's event completes;
 *  - a one-chunk write and non-blocking read (staged through a single
 *    buffer, the read landing from the command's completion).
 */
#include <pthread.h>

#include "xfer_test.h"

static struct xt t;

enum { THREADS = 4, ROUNDS = 2, BIG = 24u << 20, SMALL = 3u << 20, SLACK = 4096 };

struct worker {
    int id;
    int failures;
};

static void bad(struct worker *w, const char *what, int round, long at)
{
    fprintf(stderr, "thread %d, round %d: %s (at byte %ld)\n", w->id, round, what, at);
    w->failures++;
}

static void check_event(struct worker *w, cl_event ev, const char *what, int round)
{
    cl_int status = -1;
    if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL) !=
            CL_SUCCESS ||
        status != CL_COMPLETE)
        bad(w, what, round, status);
}

static void round_trip(struct worker *w, cl_command_queue q, cl_mem m, uint8_t *in,
                       uint8_t *out, int r)
{
    const size_t n = BIG + (size_t)w->id * 4097 + (size_t)r * 513;
    const size_t off = 64 * (size_t)w->id + 3 * (size_t)r + 1;
    const uint64_t seed = (uint64_t)w->id * 1000 + (uint64_t)r * 10;
    long d;

    /* Blocking: the host buffer is the application's again on return. */
    xt_random(in, n, seed);
    if (clEnqueueWriteBuffer(q, m, CL_TRUE, off, n, in, 0, NULL, NULL) != CL_SUCCESS)
        bad(w, "blocking write failed", r, -1);
    memset(in, 0xcd, n);
    memset(out, 0, n);
    if (clEnqueueReadBuffer(q, m, CL_TRUE, off, n, out, 0, NULL, NULL) != CL_SUCCESS)
        bad(w, "blocking read failed", r, -1);
    xt_random(in, n, seed);
    if ((d = xt_diff(in, out, n)) >= 0)
        bad(w, "blocking round trip differs", r, d);

    /* Non-blocking, ordered by the wait list. */
    cl_event ew = NULL, er = NULL;
    xt_random(in, n, seed + 1);
    memset(out, 0, n);
    if (clEnqueueWriteBuffer(q, m, CL_FALSE, off, n, in, 0, NULL, &ew) != CL_SUCCESS ||
        clEnqueueReadBuffer(q, m, CL_FALSE, off, n, out, 1, &ew, &er) != CL_SUCCESS ||
        clWaitForEvents(1, &er) != CL_SUCCESS) {
        bad(w, "non-blocking write/read failed", r, -1);
    } else {
        check_event(w, ew, "non-blocking write not complete", r);
        check_event(w, er, "non-blocking read not complete", r);
        if ((d = xt_diff(in, out, n)) >= 0)
            bad(w, "non-blocking round trip differs", r, d);
    }
    if (ew)
        clReleaseEvent(ew);
    if (er)
        clReleaseEvent(er);

    /* One chunk: a single staging buffer each way. */
    const size_t s = SMALL + (size_t)w->id * 7 + (size_t)r;
    xt_random(in, s, seed + 2);
    memset(out, 0, s);
    er = NULL;
    if (clEnqueueWriteBuffer(q, m, CL_TRUE, off + 5, s, in, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(q, m, CL_FALSE, off + 5, s, out, 0, NULL, &er) != CL_SUCCESS ||
        clWaitForEvents(1, &er) != CL_SUCCESS)
        bad(w, "one-chunk write/read failed", r, -1);
    else if ((d = xt_diff(in, out, s)) >= 0)
        bad(w, "one-chunk round trip differs", r, d);
    if (er)
        clReleaseEvent(er);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    const size_t cap = BIG + THREADS * 4097 + ROUNDS * 513 + SLACK;
    uint8_t *in = malloc(cap), *out = malloc(cap);
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueueWithProperties(t.ctx, t.dev, NULL, &err);
    cl_mem m = q ? clCreateBuffer(t.ctx, 0, cap, NULL, &err) : NULL;
    if (!in || !out || !q || !m) {
        bad(w, "set-up failed", -1, err);
    } else {
        for (int r = 0; r < ROUNDS; r++)
            round_trip(w, q, m, in, out, r);
        if (clFinish(q) != CL_SUCCESS)
            bad(w, "clFinish failed", ROUNDS, -1);
    }
    if (m)
        clReleaseMemObject(m);
    if (q)
        clReleaseCommandQueue(q);
    free(in);
    free(out);
    return NULL;
}

int main(void)
{
    /* Before the library reads its options: copies split 4 ways. */
    setenv("HCQCL_STAGING_THREADS", "4", 0);
    xt_init(&t);
    cl_ulong global = 0;
    clGetDeviceInfo(t.dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(global), &global, NULL);
    if (global < (cl_ulong)THREADS * (BIG + (8u << 20))) {
        printf("api_transfer_threads: SKIP: device reports %llu bytes\n",
               (unsigned long long)global);
        xt_fini(&t);
        return 0;
    }
    pthread_t th[THREADS];
    struct worker w[THREADS];
    double t0 = xt_now();
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){i, 0};
        REQUIRE(pthread_create(&th[i], NULL, worker_main, &w[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        EXPECT(w[i].failures == 0, "thread %d: %d failures", i, w[i].failures);
    }
    printf("api_transfer_threads: %d threads x %d rounds in %.2f s\n", THREADS, ROUNDS,
           xt_now() - t0);
    xt_fini(&t);
    return xt_done("api_transfer_threads");
}

/*
 * queries_test.c — what one thread asks of an object while others change
 * it, every pair of which the specification's appendix "Multi-threading"
 * allows (only clSetKernelArg, clSetKernelArgSVMPointer,
 * clSetKernelExecInfo and clCloneKernel on one kernel from several
 * threads at once are not): kernel queries beside clSetKernelArg, queue
 * and profiling queries beside clSetCommandQueueProperty and enqueues,
 * clFinish while another thread switches the execution mode, event
 * queries beside callbacks being added and the event completing, context
 * and memory object queries beside destructor callbacks, maps and
 * references, user events set while other threads wait for and release
 * them, references of every kind of object taken and given back at once,
 * and kernels made and released from one program by several threads.
 * Each answer is checked against what it may be; under a sanitizer, the
 * build also tells a data race or a use after free.
 */
#include "../api_platform/cltest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static cl_device_id dev;
static cl_context ctx;
static cl_program prog;

/* How long each case keeps its threads going (ns), and at least how many
 * rounds each thread makes. */
enum { CASE_NS = 300 * 1000 * 1000, MIN_ROUNDS = 50 };

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A loop of one thread of a case: rounds until the case's time is up and
 * it made MIN_ROUNDS. */
struct loop {
    uint64_t end;
    long rounds;
};
static struct loop loop_start(void) { return (struct loop){.end = now_ns() + CASE_NS}; }
static bool loop_more(struct loop *l)
{
    return l->rounds++ < MIN_ROUNDS || now_ns() < l->end;
}

/* Threads of one case: fn(arg) on each, joined. */
static void run_threads(int n, void *(*fn)(void *), void *args, size_t arg_size)
{
    pthread_t t[16];
    REQUIRE(n <= 16, "threads");
    for (int i = 0; i < n; i++)
        REQUIRE(pthread_create(&t[i], NULL, fn, (char *)args + i * arg_size) == 0, "thread");
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

/* ------------------------------------------------------------------ */
/* Kernel queries while another thread sets the kernel's arguments      */
/* ------------------------------------------------------------------ */

/* smem_win(int *out, int idx): 1 KiB of static shared memory; in an nvcc
 * cubin `out` is a pointer of unknown space, so a NULL value of another
 * size than a pointer's makes it a __local argument of that size. */
struct kernel_case {
    cl_kernel k;
    cl_mem buf;
    atomic_bool stop;
    cl_ulong bytes[3]; /* LOCAL_MEM_SIZE: unset, set as 64 and 4096 __local bytes */
    atomic_long odd;   /* answers that are none of them */
};

static void *kernel_setter(void *arg)
{
    struct kernel_case *c = arg;
    const int idx = 3;
    for (int i = 0; !atomic_load(&c->stop); i++) {
        switch (i % 3) {
        case 0: EXPECT_OK(clSetKernelArg(c->k, 0, 64, NULL)); break;
        case 1: EXPECT_OK(clSetKernelArg(c->k, 0, 4096, NULL)); break;
        default: EXPECT_OK(clSetKernelArg(c->k, 0, sizeof(c->buf), &c->buf)); break;
        }
        EXPECT_OK(clSetKernelArg(c->k, 1, sizeof(idx), &idx));
    }
    return NULL;
}

static void *kernel_reader(void *arg)
{
    struct kernel_case *c = arg;
    for (struct loop l = loop_start(); loop_more(&l);) {
        cl_ulong local = 0;
        EXPECT_OK(clGetKernelWorkGroupInfo(c->k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local),
                                           &local, NULL));
        if (local != c->bytes[0] && local != c->bytes[1] && local != c->bytes[2])
            atomic_fetch_add(&c->odd, 1);
        size_t wgs = 0;
        EXPECT_OK(clGetKernelWorkGroupInfo(c->k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wgs),
                                           &wgs, NULL));
        cl_uint nargs = 0;
        EXPECT_OK(clGetKernelInfo(c->k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL));
        EXPECT_EQ(nargs, 2);
        char name[32] = "";
        EXPECT_OK(clGetKernelInfo(c->k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL));
        EXPECT(!strcmp(name, "smem_win"), "name %s", name);
        cl_kernel_arg_address_qualifier q;
        cl_int err = clGetKernelArgInfo(c->k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(q), &q,
                                        NULL);
        EXPECT(err == CL_SUCCESS || err == CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "arg info %d", err);
    }
    atomic_store(&c->stop, true);
    return NULL;
}

static void test_kernel_queries_while_setting(void)
{
    struct kernel_case c = {.k = cltest_kernel(prog, "smem_win")};
    cl_int err;
    c.buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    REQUIRE(c.buf, "buffer: %d", err);
    /* The three answers, asked one at a time. */
    const size_t sizes[3] = {0, 64, 4096};
    for (int i = 0; i < 3; i++) {
        cl_kernel k = cltest_kernel(prog, "smem_win");
        if (sizes[i])
            EXPECT_OK(clSetKernelArg(k, 0, sizes[i], NULL));
        EXPECT_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(c.bytes[i]),
                                           &c.bytes[i], NULL));
        clReleaseKernel(k);
    }
    EXPECT(c.bytes[0] < c.bytes[1] && c.bytes[1] < c.bytes[2], "local bytes %llu %llu %llu",
           (unsigned long long)c.bytes[0], (unsigned long long)c.bytes[1],
           (unsigned long long)c.bytes[2]);
    pthread_t setter;
    REQUIRE(pthread_create(&setter, NULL, kernel_setter, &c) == 0, "thread");
    kernel_reader(&c);
    pthread_join(setter, NULL);
    EXPECT(atomic_load(&c.odd) == 0, "%ld odd CL_KERNEL_LOCAL_MEM_SIZE answers",
           atomic_load(&c.odd));
    clReleaseMemObject(c.buf);
    clReleaseKernel(c.k);
}

/* ------------------------------------------------------------------ */
/* A queue's properties switched while others enqueue and ask           */
/* ------------------------------------------------------------------ */

struct queue_case {
    cl_command_queue q;
    cl_kernel k; /* one per enqueuing thread */
    cl_mem a, c;
    atomic_bool *stop;
};

static void *queue_toggler(void *arg)
{
    struct queue_case *c = arg;
    for (int i = 0; !atomic_load(c->stop); i++) {
        cl_command_queue_properties old = 0;
        EXPECT_OK(clSetCommandQueueProperty(c->q, CL_QUEUE_PROFILING_ENABLE, i % 2 == 0, &old));
        EXPECT(!(old & ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE), "old 0x%llx",
               (unsigned long long)old);
    }
    return NULL;
}

static void *queue_user(void *arg)
{
    struct queue_case *c = arg;
    const cl_uint zero = 0;
    for (struct loop l = loop_start(); loop_more(&l);) {
        cl_event e = NULL;
        EXPECT_OK(clEnqueueFillBuffer(c->q, c->c, &zero, sizeof(zero), 0, 256, 0, NULL, &e));
        /* A launch without an event: the queue's own path for those. */
        const size_t global = 64;
        EXPECT_OK(clEnqueueNDRangeKernel(c->q, c->k, 1, NULL, &global, NULL, 0, NULL, NULL));
        cl_command_queue_properties p = 0;
        EXPECT_OK(clGetCommandQueueInfo(c->q, CL_QUEUE_PROPERTIES, sizeof(p), &p, NULL));
        EXPECT(!(p & ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE), "props 0x%llx",
               (unsigned long long)p);
        EXPECT_OK(clWaitForEvents(1, &e));
        cl_ulong t = 0;
        cl_int err = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof(t), &t, NULL);
        EXPECT(err == CL_SUCCESS || err == CL_PROFILING_INFO_NOT_AVAILABLE, "profiling %d",
               err);
        clReleaseEvent(e);
    }
    atomic_store(c->stop, true);
    return NULL;
}

static void test_queue_property_while_enqueuing(void)
{
    cl_int err;
    atomic_bool stop = false;
    struct queue_case c[3];
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    REQUIRE(q, "queue: %d", err);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256, NULL, &err);
    REQUIRE(a, "buffer: %d", err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256, NULL, &err);
    REQUIRE(out, "buffer: %d", err);
    const cl_float f0 = 0;
    EXPECT_OK(clEnqueueFillBuffer(q, a, &f0, sizeof(f0), 0, 256, 0, NULL, NULL));
    for (int i = 0; i < 3; i++) {
        c[i] = (struct queue_case){.q = q, .a = a, .c = out, .stop = &stop};
        c[i].k = cltest_kernel(prog, "vadd");
        const cl_int k = 1, n = 64;
        EXPECT_OK(clSetKernelArg(c[i].k, 0, sizeof(a), &a));
        EXPECT_OK(clSetKernelArg(c[i].k, 1, sizeof(a), &a));
        EXPECT_OK(clSetKernelArg(c[i].k, 2, sizeof(out), &out));
        EXPECT_OK(clSetKernelArg(c[i].k, 3, sizeof(k), &k));
        EXPECT_OK(clSetKernelArg(c[i].k, 4, sizeof(n), &n));
    }
    pthread_t toggler;
    REQUIRE(pthread_create(&toggler, NULL, queue_toggler, &c[0]) == 0, "thread");
    run_threads(2, queue_user, &c[1], sizeof(c[0]));
    pthread_join(toggler, NULL);
    EXPECT_OK(clFinish(q));
    for (int i = 0; i < 3; i++)
        clReleaseKernel(c[i].k);
    clReleaseMemObject(a);
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
}

/* The execution mode switched while another thread enqueues: whatever
 * mode each command was enqueued in, clFinish returns once every command
 * enqueued before it is complete. */
struct mode_case {
    cl_command_queue q;
    cl_mem src, dst;
    atomic_bool stop;
    long unfinished; /* events not complete after a clFinish */
    long commands;
};

static void *mode_toggler(void *arg)
{
    struct mode_case *c = arg;
    for (int i = 0; !atomic_load(&c->stop); i++)
        EXPECT_OK(clSetCommandQueueProperty(c->q, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                            i % 2 == 0, NULL));
    return NULL;
}

static void test_mode_switch_while_enqueuing(void)
{
    enum { SIZE = 4 << 20, BATCH = 4 };
    cl_int err;
    struct mode_case c = {0};
    c.q = clCreateCommandQueue(ctx, dev, 0, &err);
    REQUIRE(c.q, "queue: %d", err);
    c.src = clCreateBuffer(ctx, CL_MEM_READ_WRITE, SIZE, NULL, &err);
    REQUIRE(c.src, "buffer: %d", err);
    c.dst = clCreateBuffer(ctx, CL_MEM_READ_WRITE, SIZE, NULL, &err);
    REQUIRE(c.dst, "buffer: %d", err);
    pthread_t toggler;
    REQUIRE(pthread_create(&toggler, NULL, mode_toggler, &c) == 0, "thread");
    for (struct loop l = loop_start(); loop_more(&l);) {
        cl_event e[BATCH];
        for (int i = 0; i < BATCH; i++)
            EXPECT_OK(clEnqueueCopyBuffer(c.q, c.src, c.dst, 0, 0, SIZE, 0, NULL, &e[i]));
        EXPECT_OK(clFinish(c.q));
        for (int i = 0; i < BATCH; i++) {
            cl_int st = 1;
            EXPECT_OK(clGetEventInfo(e[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
                                     NULL));
            c.unfinished += st != CL_COMPLETE;
            c.commands++;
            clReleaseEvent(e[i]);
        }
    }
    atomic_store(&c.stop, true);
    pthread_join(toggler, NULL);
    EXPECT(c.unfinished == 0, "%ld of %ld commands not complete after clFinish", c.unfinished,
           c.commands);
    clReleaseMemObject(c.src);
    clReleaseMemObject(c.dst);
    clReleaseCommandQueue(c.q);
}

/* ------------------------------------------------------------------ */
/* Event callbacks added from several threads while the event completes */
/* ------------------------------------------------------------------ */

static atomic_long callbacks_run;
static void CL_CALLBACK count_callback(cl_event e, cl_int status, void *arg)
{
    (void)e, (void)arg;
    EXPECT(status == CL_COMPLETE || status == CL_SUBMITTED || status == CL_RUNNING,
           "callback status %d", status);
    atomic_fetch_add(&callbacks_run, 1);
}

struct event_case {
    cl_event e;
    int id;
    long added;
};

static void *event_adder(void *arg)
{
    struct event_case *c = arg;
    static const cl_int when[3] = {CL_SUBMITTED, CL_RUNNING, CL_COMPLETE};
    for (int i = 0; i < 40; i++) {
        EXPECT_OK(clSetEventCallback(c->e, when[(i + c->id) % 3], count_callback, NULL));
        c->added++;
        cl_int st = 1;
        EXPECT_OK(clGetEventInfo(c->e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
        EXPECT(st >= CL_COMPLETE && st <= CL_QUEUED, "status %d", st);
        cl_uint refs = 0;
        EXPECT_OK(clRetainEvent(c->e));
        EXPECT_OK(clGetEventInfo(c->e, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
        EXPECT(refs >= 2, "refs %u", refs);
        EXPECT_OK(clReleaseEvent(c->e));
    }
    return NULL;
}

static void wait_for_callbacks(long want)
{
    for (int i = 0; i < 10000 && atomic_load(&callbacks_run) < want; i++)
        usleep(1000);
    EXPECT(atomic_load(&callbacks_run) == want, "%ld callbacks of %ld",
           atomic_load(&callbacks_run), want);
}

static void test_event_callbacks_while_completing(cl_command_queue q)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 20, NULL, &err);
    REQUIRE(m, "buffer: %d", err);
    for (int round = 0; round < 20; round++) {
        atomic_store(&callbacks_run, 0);
        struct event_case c[4];
        cl_event e;
        const cl_uint v = (cl_uint)round;
        EXPECT_OK(clEnqueueFillBuffer(q, m, &v, sizeof(v), 0, 1 << 20, 0, NULL, &e));
        for (int i = 0; i < 4; i++)
            c[i] = (struct event_case){.e = e, .id = i};
        run_threads(4, event_adder, c, sizeof(c[0]));
        EXPECT_OK(clWaitForEvents(1, &e));
        long added = 0;
        for (int i = 0; i < 4; i++)
            added += c[i].added;
        wait_for_callbacks(added);
        clReleaseEvent(e);
    }
    clReleaseMemObject(m);
}

/* User events: set by one thread while others wait for them, add
 * callbacks, ask their status and release their references. */
struct user_case {
    cl_event e;
    int role;
    pthread_barrier_t *go;
};

static void *user_event_thread(void *arg)
{
    struct user_case *c = arg;
    pthread_barrier_wait(c->go);
    switch (c->role) {
    case 0: EXPECT_OK(clSetUserEventStatus(c->e, CL_COMPLETE)); break;
    case 1: EXPECT_OK(clWaitForEvents(1, &c->e)); break;
    case 2: EXPECT_OK(clSetEventCallback(c->e, CL_COMPLETE, count_callback, NULL)); break;
    default: {
        cl_int st = 1;
        EXPECT_OK(clGetEventInfo(c->e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
        EXPECT(st == CL_SUBMITTED || st == CL_COMPLETE, "status %d", st);
        break;
    }
    }
    /* Each thread lets go of its own reference when done with it. */
    EXPECT_OK(clReleaseEvent(c->e));
    return NULL;
}

static void test_user_events(void)
{
    const int rounds = 200, nthreads = 6;
    atomic_store(&callbacks_run, 0);
    for (int r = 0; r < rounds; r++) {
        cl_int err;
        cl_event e = clCreateUserEvent(ctx, &err);
        REQUIRE(e, "user event: %d", err);
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, (unsigned)nthreads);
        struct user_case c[6];
        for (int i = 0; i < nthreads; i++) {
            c[i] = (struct user_case){.e = e, .role = i < 4 ? i : 3, .go = &go};
            if (i)
                EXPECT_OK(clRetainEvent(e));
        }
        run_threads(nthreads, user_event_thread, c, sizeof(c[0]));
        pthread_barrier_destroy(&go);
    }
    wait_for_callbacks(rounds);
}

/* ------------------------------------------------------------------ */
/* Contexts and memory objects: destructor callbacks beside queries      */
/* ------------------------------------------------------------------ */

static atomic_long destructors_run;
static void CL_CALLBACK count_context_dtor(cl_context c, void *arg)
{
    (void)c, (void)arg;
    atomic_fetch_add(&destructors_run, 1);
}
static void CL_CALLBACK count_mem_dtor(cl_mem m, void *arg)
{
    (void)m, (void)arg;
    atomic_fetch_add(&destructors_run, 1);
}

struct owner_case {
    cl_context c;
    cl_mem m;
    size_t offset; /* of the region the thread maps */
    cl_command_queue q;
    long added;
};

static void *context_user(void *arg)
{
    struct owner_case *c = arg;
    for (int i = 0; i < 100; i++) {
        EXPECT_OK(clSetContextDestructorCallback(c->c, count_context_dtor, NULL));
        c->added++;
        EXPECT_OK(clRetainContext(c->c));
        cl_uint refs = 0, ndev = 0;
        EXPECT_OK(clGetContextInfo(c->c, CL_CONTEXT_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
        EXPECT(refs >= 2, "refs %u", refs);
        EXPECT_OK(clGetContextInfo(c->c, CL_CONTEXT_NUM_DEVICES, sizeof(ndev), &ndev, NULL));
        EXPECT_EQ(ndev, 1);
        EXPECT_OK(clReleaseContext(c->c));
    }
    return NULL;
}

static void test_context_destructors(void)
{
    cl_int err;
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    REQUIRE(c, "context: %d", err);
    atomic_store(&destructors_run, 0);
    struct owner_case o[4];
    for (int i = 0; i < 4; i++)
        o[i] = (struct owner_case){.c = c};
    run_threads(4, context_user, o, sizeof(o[0]));
    EXPECT_OK(clReleaseContext(c));
    EXPECT(atomic_load(&destructors_run) == 400, "%ld context destructor callbacks",
           atomic_load(&destructors_run));
}

static void *mem_user(void *arg)
{
    struct owner_case *c = arg;
    for (int i = 0; i < 100; i++) {
        EXPECT_OK(clSetMemObjectDestructorCallback(c->m, count_mem_dtor, NULL));
        c->added++;
        cl_int err;
        void *p = clEnqueueMapBuffer(c->q, c->m, CL_TRUE, CL_MAP_READ, c->offset, 64, 0, NULL,
                                     NULL, &err);
        EXPECT(p && err == CL_SUCCESS, "map: %d", err);
        cl_uint maps = 0, refs = 0;
        EXPECT_OK(clGetMemObjectInfo(c->m, CL_MEM_MAP_COUNT, sizeof(maps), &maps, NULL));
        EXPECT(maps >= 1, "map count %u", maps);
        EXPECT_OK(clRetainMemObject(c->m));
        EXPECT_OK(clGetMemObjectInfo(c->m, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
        EXPECT(refs >= 2, "refs %u", refs);
        if (p)
            EXPECT_OK(clEnqueueUnmapMemObject(c->q, c->m, p, 0, NULL, NULL));
        EXPECT_OK(clReleaseMemObject(c->m));
    }
    EXPECT_OK(clFinish(c->q));
    return NULL;
}

static void test_mem_destructors(void)
{
    cl_int err;
    static const cl_mem_flags kinds[2] = {CL_MEM_READ_WRITE, CL_MEM_ALLOC_HOST_PTR};
    for (int k = 0; k < 2; k++) {
        cl_mem m = clCreateBuffer(ctx, kinds[k], 4096, NULL, &err);
        REQUIRE(m, "buffer: %d", err);
        atomic_store(&destructors_run, 0);
        struct owner_case o[4];
        for (int i = 0; i < 4; i++) {
            o[i] = (struct owner_case){.m = m, .offset = 1024 * (size_t)i};
            o[i].q = clCreateCommandQueue(ctx, dev, 0, &err);
            REQUIRE(o[i].q, "queue: %d", err);
        }
        run_threads(4, mem_user, o, sizeof(o[0]));
        EXPECT_OK(clReleaseMemObject(m));
        for (int i = 0; i < 4; i++)
            EXPECT_OK(clFinish(o[i].q));
        for (int i = 0; i < 100 && atomic_load(&destructors_run) < 400; i++)
            usleep(1000);
        EXPECT(atomic_load(&destructors_run) == 400, "%ld memory destructor callbacks",
               atomic_load(&destructors_run));
        for (int i = 0; i < 4; i++)
            clReleaseCommandQueue(o[i].q);
    }
}

/* ------------------------------------------------------------------ */
/* Kernels made and released from one program by several threads         */
/* ------------------------------------------------------------------ */

struct program_case {
    cl_kernel shared;
    int id;
};

static void *program_user(void *arg)
{
    struct program_case *c = arg;
    for (struct loop l = loop_start(); loop_more(&l);) {
        cl_int err;
        cl_kernel k = clCreateKernel(prog, l.rounds % 2 ? "vadd" : "smem_win", &err);
        EXPECT(k && err == CL_SUCCESS, "clCreateKernel %d", err);
        cl_uint n = 0;
        EXPECT_OK(clCreateKernelsInProgram(prog, 0, NULL, &n));
        cl_kernel all[64];
        REQUIRE(n > 0 && n <= 64, "%u kernels", n);
        EXPECT_OK(clCreateKernelsInProgram(prog, n, all, NULL));
        size_t nk = 0;
        EXPECT_OK(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL));
        EXPECT_EQ(nk, n);
        cl_program p = NULL;
        EXPECT_OK(clGetKernelInfo(c->shared, CL_KERNEL_PROGRAM, sizeof(p), &p, NULL));
        EXPECT(p == prog, "program %p", (void *)p);
        EXPECT_OK(clRetainKernel(c->shared));
        for (cl_uint i = 0; i < n; i++)
            EXPECT_OK(clReleaseKernel(all[i]));
        if (k)
            EXPECT_OK(clReleaseKernel(k));
        EXPECT_OK(clReleaseKernel(c->shared));
    }
    return NULL;
}

static void test_kernels_of_one_program(void)
{
    struct program_case c[4];
    cl_kernel shared = cltest_kernel(prog, "vadd");
    for (int i = 0; i < 4; i++)
        c[i] = (struct program_case){.shared = shared, .id = i};
    run_threads(4, program_user, c, sizeof(c[0]));
    cl_uint refs = 0;
    EXPECT_OK(clGetKernelInfo(shared, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT_EQ(refs, 1);
    clReleaseKernel(shared);
    /* Every kernel object is gone: the program can be built again. */
    EXPECT_OK(clBuildProgram(prog, 1, &dev, NULL, NULL, NULL));
}

/* ------------------------------------------------------------------ */
/* References taken and given back by many threads at once              */
/* ------------------------------------------------------------------ */

struct refs_case {
    cl_command_queue q;
    cl_mem m;
    cl_kernel k;
    cl_sampler s;
    cl_event e;
};

static void *refs_user(void *arg)
{
    const struct refs_case *c = arg;
    for (int i = 0; i < 500; i++) {
        cl_uint r[7] = {0};
        EXPECT_OK(clRetainContext(ctx));
        EXPECT_OK(clRetainCommandQueue(c->q));
        EXPECT_OK(clRetainMemObject(c->m));
        EXPECT_OK(clRetainProgram(prog));
        EXPECT_OK(clRetainKernel(c->k));
        EXPECT_OK(clRetainEvent(c->e));
        if (c->s)
            EXPECT_OK(clRetainSampler(c->s));
        EXPECT_OK(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(r[0]), &r[0], NULL));
        EXPECT_OK(clGetCommandQueueInfo(c->q, CL_QUEUE_REFERENCE_COUNT, sizeof(r[1]), &r[1],
                                        NULL));
        EXPECT_OK(clGetMemObjectInfo(c->m, CL_MEM_REFERENCE_COUNT, sizeof(r[2]), &r[2], NULL));
        EXPECT_OK(clGetProgramInfo(prog, CL_PROGRAM_REFERENCE_COUNT, sizeof(r[3]), &r[3], NULL));
        EXPECT_OK(clGetKernelInfo(c->k, CL_KERNEL_REFERENCE_COUNT, sizeof(r[4]), &r[4], NULL));
        EXPECT_OK(clGetEventInfo(c->e, CL_EVENT_REFERENCE_COUNT, sizeof(r[5]), &r[5], NULL));
        if (c->s)
            EXPECT_OK(clGetSamplerInfo(c->s, CL_SAMPLER_REFERENCE_COUNT, sizeof(r[6]), &r[6],
                                       NULL));
        for (int j = 0; j < 7; j++)
            EXPECT(r[j] >= 2 || (j == 6 && !c->s), "reference count %d: %u", j, r[j]);
        if (c->s)
            EXPECT_OK(clReleaseSampler(c->s));
        EXPECT_OK(clReleaseEvent(c->e));
        EXPECT_OK(clReleaseKernel(c->k));
        EXPECT_OK(clReleaseProgram(prog));
        EXPECT_OK(clReleaseMemObject(c->m));
        EXPECT_OK(clReleaseCommandQueue(c->q));
        EXPECT_OK(clReleaseContext(ctx));
    }
    return NULL;
}

static void test_references(cl_command_queue q)
{
    cl_int err;
    struct refs_case c = {.q = q, .k = cltest_kernel(prog, "vadd")};
    c.m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    REQUIRE(c.m, "buffer: %d", err);
    c.e = clCreateUserEvent(ctx, &err);
    REQUIRE(c.e, "user event: %d", err);
    cl_bool images = CL_FALSE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL));
    if (images) {
        c.s = clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
        REQUIRE(c.s, "sampler: %d", err);
    }
    struct refs_case all[4] = {c, c, c, c};
    run_threads(4, refs_user, all, sizeof(all[0]));
    cl_uint refs = 0;
    EXPECT_OK(clGetMemObjectInfo(c.m, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT_EQ(refs, 1);
    EXPECT_OK(clGetKernelInfo(c.k, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT_EQ(refs, 1);
    EXPECT_OK(clGetEventInfo(c.e, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT_EQ(refs, 1);
    EXPECT_OK(clSetUserEventStatus(c.e, CL_COMPLETE));
    if (c.s)
        EXPECT_OK(clReleaseSampler(c.s));
    EXPECT_OK(clReleaseEvent(c.e));
    EXPECT_OK(clReleaseKernel(c.k));
    EXPECT_OK(clReleaseMemObject(c.m));
}

int main(void)
{
    REQUIRE(getenv("HCQCL_TEST_DATA"), "HCQCL_TEST_DATA not set");
    cl_platform_id plat;
    cl_command_queue q;
    cltest_setup(&plat, &dev, &ctx, &q);
    prog = cltest_program(ctx, dev, "test_kernels.cubin");

    test_kernel_queries_while_setting();
    test_queue_property_while_enqueuing();
    test_mode_switch_while_enqueuing();
    test_event_callbacks_while_completing(q);
    test_user_events();
    test_context_destructors();
    test_mem_destructors();
    test_references(q);
    test_kernels_of_one_program();

    clReleaseProgram(prog);
    cltest_teardown(ctx, q);
    return cltest_result("api_threads_queries");
}

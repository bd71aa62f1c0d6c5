/*
 * mem_spec_test.c — memory objects and maps against the wording of the
 * OpenCL 3.0 specification, through the ICD loader.
 */
#include "../api_platform/cltest.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;

/* ------------------------------------------------------------------ */
/* Overlapping maps for writing, from two threads at once               */
/* ------------------------------------------------------------------ */

/* "CL_INVALID_OPERATION if mapping would lead to overlapping regions
 * being mapped for writing", whatever the interleaving of the calls: two
 * threads, released together round after round, each map the same region
 * of one buffer for writing; in no round may both succeed. */
enum { RACE_ROUNDS = 3000 };

struct race_shared {
    cl_mem buf;
    atomic_int arrived; /* spin barrier: arrivals, and the round it opens */
    atomic_int round;
};

struct race {
    struct race_shared *s;
    cl_command_queue q;
    void *ptr[RACE_ROUNDS];
    cl_int err[RACE_ROUNDS];
};

/* Both threads past their n-th call here, released together (spinning;
 * yielding after a while, for a loaded machine). */
static void race_barrier(struct race_shared *s, int n)
{
    if (atomic_fetch_add(&s->arrived, 1) == 2 * n + 1)
        atomic_store(&s->round, n + 1);
    for (int spins = 0; atomic_load(&s->round) <= n; spins++)
        if (spins > 4096)
            sched_yield();
}

static void *race_thread(void *arg)
{
    struct race *r = arg;
    struct race_shared *s = r->s;
    for (int i = 0; i < RACE_ROUNDS; i++) {
        race_barrier(s, 2 * i);
        r->err[i] = CL_SUCCESS;
        r->ptr[i] = clEnqueueMapBuffer(r->q, s->buf, CL_FALSE, CL_MAP_WRITE, 0, 256, 0, NULL,
                                       NULL, &r->err[i]);
        race_barrier(s, 2 * i + 1);
        if (r->ptr[i])
            EXPECT_OK(clEnqueueUnmapMemObject(r->q, s->buf, r->ptr[i], 0, NULL, NULL));
        if (i % 256 == 255)
            clFinish(r->q);
    }
    clFinish(r->q);
    return NULL;
}

static void test_write_maps_race(void)
{
    static const cl_mem_flags kinds[] = {CL_MEM_ALLOC_HOST_PTR, 0};
    cl_int err;
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q2, "second queue: %d", err);
    struct race *r = calloc(2, sizeof(*r));
    REQUIRE(r, "host memory");
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        struct race_shared s = {0};
        s.buf = clCreateBuffer(ctx, kinds[k], 4096, NULL, &err);
        REQUIRE(s.buf, "buffer: %d", err);
        pthread_t th[2];
        for (int i = 0; i < 2; i++) {
            r[i].s = &s;
            r[i].q = i ? q2 : queue;
            REQUIRE(pthread_create(&th[i], NULL, race_thread, &r[i]) == 0, "thread");
        }
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        int both = 0, one = 0, other = 0;
        for (int i = 0; i < RACE_ROUNDS; i++) {
            both += r[0].ptr[i] && r[1].ptr[i];
            one += !r[0].ptr[i] != !r[1].ptr[i];
            for (int t = 0; t < 2; t++)
                other += !r[t].ptr[i] && r[t].err[i] != CL_INVALID_OPERATION;
        }
        EXPECT(both == 0, "flags 0x%llx: both threads mapped the region for writing in %d of %d "
               "rounds", (unsigned long long)kinds[k], both, RACE_ROUNDS);
        EXPECT(both + one == RACE_ROUNDS, "flags 0x%llx: no map succeeded in %d rounds",
               (unsigned long long)kinds[k], RACE_ROUNDS - both - one);
        EXPECT(other == 0, "flags 0x%llx: %d errors other than CL_INVALID_OPERATION",
               (unsigned long long)kinds[k], other);
        cl_uint count = 99;
        EXPECT_OK(clGetMemObjectInfo(s.buf, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL));
        EXPECT(count == 0, "MAP_COUNT %u after every unmap", count);
        EXPECT_OK(clReleaseMemObject(s.buf));
    }
    free(r);
    clReleaseCommandQueue(q2);
}

/* ------------------------------------------------------------------ */
/* One region mapped for reading by several threads at once             */
/* ------------------------------------------------------------------ */

/* Maps for reading may overlap, and a region's pointer is then the same
 * for every one of them (always so for ALLOC_HOST_PTR and USE_HOST_PTR
 * buffers): "clEnqueueUnmapMemObject ... mapped_ptr is the host address
 * returned by a previous call to clEnqueueMapBuffer". Each thread, with
 * its own queue, maps the same region and unmaps the pointer it got,
 * blocking and not, while the others do the same; every map must see
 * the buffer's bytes, every unmap succeed, and no mapping be left. */
enum { READ_THREADS = 4, READ_ROUNDS = 400, READ_SIZE = 256 };

struct read_maps {
    cl_mem buf;
    cl_command_queue q;
    int bad;
};

static void *read_maps_thread(void *arg)
{
    struct read_maps *r = arg;
    for (int i = 0; i < READ_ROUNDS; i++) {
        const cl_bool blocking = i & 1;
        cl_event ev = NULL;
        cl_int err = CL_SUCCESS;
        const uint8_t *p = clEnqueueMapBuffer(r->q, r->buf, blocking, CL_MAP_READ, 0, READ_SIZE,
                                              0, NULL, blocking ? NULL : &ev, &err);
        if (!p) {
            r->bad++;
            EXPECT(p, "round %d: map: %d", i, err);
            continue;
        }
        if (ev) {
            EXPECT_OK(clWaitForEvents(1, &ev));
            clReleaseEvent(ev);
        }
        r->bad += p[i % READ_SIZE] != (uint8_t)(i % READ_SIZE);
        EXPECT_OK(clEnqueueUnmapMemObject(r->q, r->buf, (void *)p, 0, NULL, NULL));
    }
    clFinish(r->q);
    return NULL;
}

static void test_read_maps_shared(void)
{
    static const cl_mem_flags kinds[] = {CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR,
                                         CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR};
    static uint8_t host[READ_SIZE];
    for (int i = 0; i < READ_SIZE; i++)
        host[i] = (uint8_t)i;
    cl_int err;
    cl_command_queue qs[READ_THREADS];
    for (int t = 0; t < READ_THREADS; t++) {
        qs[t] = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
        REQUIRE(qs[t], "queue %d: %d", t, err);
    }
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        const cl_mem_flags flags = kinds[k];
        cl_mem buf = clCreateBuffer(ctx, flags, READ_SIZE, host, &err);
        REQUIRE(buf, "buffer 0x%llx: %d", (unsigned long long)flags, err);
        struct read_maps r[READ_THREADS];
        pthread_t th[READ_THREADS];
        for (int t = 0; t < READ_THREADS; t++) {
            r[t] = (struct read_maps){buf, qs[t], 0};
            REQUIRE(pthread_create(&th[t], NULL, read_maps_thread, &r[t]) == 0, "thread");
        }
        int bad = 0;
        for (int t = 0; t < READ_THREADS; t++) {
            pthread_join(th[t], NULL);
            bad += r[t].bad;
        }
        EXPECT(bad == 0, "flags 0x%llx: %d maps failed or read wrong bytes",
               (unsigned long long)flags, bad);
        cl_uint count = 99;
        EXPECT_OK(clGetMemObjectInfo(buf, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL));
        EXPECT(count == 0, "flags 0x%llx: MAP_COUNT %u after every unmap",
               (unsigned long long)flags, count);
        EXPECT_OK(clReleaseMemObject(buf));
    }
    for (int t = 0; t < READ_THREADS; t++)
        clReleaseCommandQueue(qs[t]);
}

int main(void)
{
    cltest_setup(&plat, &dev, &ctx, &queue);

    test_write_maps_race();
    test_read_maps_shared();

    cltest_teardown(ctx, queue);
    return cltest_result("api_mem_spec");
}

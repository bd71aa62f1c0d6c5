/*
 * ooo_callback.c — a blocking pageable read on an out-of-order queue,
 * with no wait list, lands on a copy channel behind a copy that waits on
 * the GPU for another queue's staged read (whose copy-out the tracker
 * runs), while the event notifier is inside an application callback
 * that enqueues on the same out-of-order queue. The read must not wait
 * for the GPU with the queue locked: the callback would then wait for
 * the lock, and the copy-out that everything waits for would never run.
 * An alarm ends a hang as a failure.
 */
#include "../api_platform/cltest.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static cl_command_queue ooo;
static atomic_int in_callback, go, marked;

static void CL_CALLBACK enqueue_from_callback(cl_event e, cl_int status, void *data)
{
    (void)e;
    (void)status;
    (void)data;
    atomic_store(&in_callback, 1);
    while (!atomic_load(&go))
        usleep(1000);
    usleep(100000); /* the main thread is inside the blocking read by now */
    /* Legal in a callback: it does not block. */
    atomic_store(&marked, clEnqueueMarkerWithWaitList(ooo, 0, NULL, NULL) == CL_SUCCESS ? 1 : 2);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "api_transfer_ooo_callback: hung (the read waited with its "
                              "queue locked)\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(1);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    alarm(120);
    cl_platform_id plat;
    cl_context ctx;
    cl_command_queue q;
    cl_device_id dev;
    cltest_setup(&plat, &dev, &ctx, &q);
    cl_int err = 0;
    const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                         CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    ooo = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    REQUIRE(ooo, "out-of-order queue: %d", err);
    enum { BIG = 8 << 20 };
    cl_mem b[5];
    for (int i = 0; i < 5; i++) {
        b[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, BIG, NULL, &err);
        REQUIRE(b[i], "buffer: %d", err);
    }
    uint8_t *src = malloc(BIG), *dst = malloc(BIG);
    REQUIRE(src && dst, "host memory");
    for (size_t i = 0; i < BIG; i++)
        src[i] = (uint8_t)(i * 31 + 7);
    EXPECT_OK(clEnqueueWriteBuffer(q, b[0], CL_TRUE, 0, BIG, src, 0, NULL, NULL));

    /* The notifier runs this command's callback and stays in it. */
    cl_event k;
    EXPECT_OK(clEnqueueWriteBuffer(q, b[1], CL_FALSE, 0, 4096, src, 0, NULL, &k));
    EXPECT_OK(clSetEventCallback(k, CL_COMPLETE, enqueue_from_callback, NULL));
    EXPECT_OK(clFlush(q));
    while (!atomic_load(&in_callback))
        usleep(1000);
    /* A staged read: its copy-out is the tracker's (an after-hook). */
    static uint8_t small[64 << 10];
    cl_event staged;
    EXPECT_OK(clEnqueueReadBuffer(q, b[0], CL_FALSE, 0, sizeof(small), small, 0, NULL, &staged));
    EXPECT_OK(clFlush(q));
    /* A copy waiting for it on the out-of-order queue's first copy
     * channel, an independent one on the second, then the blocking read
     * behind the first. */
    EXPECT_OK(clEnqueueCopyBuffer(ooo, b[2], b[3], 0, 0, 4096, 1, &staged, NULL));
    EXPECT_OK(clEnqueueCopyBuffer(ooo, b[3], b[4], 0, 0, 4096, 0, NULL, NULL));
    atomic_store(&go, 1);
    EXPECT_OK(clEnqueueReadBuffer(ooo, b[0], CL_TRUE, 0, BIG, dst, 0, NULL, NULL));
    EXPECT(!memcmp(dst, src, BIG), "the blocking read's bytes");
    EXPECT_OK(clFinish(ooo));
    EXPECT_OK(clFinish(q));
    EXPECT(!memcmp(small, src, sizeof(small)), "the staged read's bytes");
    while (!atomic_load(&marked)) /* the callback returns (the alarm ends a hang) */
        usleep(1000);
    EXPECT(atomic_load(&marked) == 1, "the callback's marker failed");
    alarm(0);

    clReleaseEvent(k);
    clReleaseEvent(staged);
    for (int i = 0; i < 5; i++)
        clReleaseMemObject(b[i]);
    clReleaseCommandQueue(ooo);
    free(src);
    free(dst);
    cltest_teardown(ctx, q);
    return cltest_result("api_transfer_ooo_callback");
}

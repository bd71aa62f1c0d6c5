/*
 * fork_test.c — a child of fork() made after the parent opened a device
 * and moved data. The child shares the parent's driver connection but
 * none of its threads, and some of its pinned pages (MADV_DONTFORK) are
 * not there: the device is not available to it. Its calls answer errors
 * (CL_DEVICE_AVAILABLE false, CL_DEVICE_NOT_AVAILABLE for a context,
 * CL_OUT_OF_RESOURCES for the parent's queue) instead of crashing or
 * hanging, and they leave the parent's work alone: the parent goes on.
 */
#include "cltest.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { N = 1 << 20 };

static int roundtrip(cl_command_queue q, cl_mem m, unsigned char seed)
{
    static unsigned char in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (unsigned char)(i * 13 + seed);
    memset(out, 0, sizeof(out));
    cl_int a = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, N, in, 0, NULL, NULL);
    cl_int b = clEnqueueReadBuffer(q, m, CL_TRUE, 0, N, out, 0, NULL, NULL);
    return a == CL_SUCCESS && b == CL_SUCCESS && !memcmp(in, out, N) ? 0 : -1;
}

/* The child's checks; its exit status is the number of failures. u
 * gates a fill of the parent's: setting it here must not let the
 * parent's GPU past the gate (the signal pages are shared). */
static int child(cl_device_id dev, cl_command_queue q, cl_mem m, cl_event u)
{
    alarm(30); /* a hang is a failure too */
    int bad = 0;
    cl_platform_id p = NULL;
    cl_uint n = 0;
    if (clGetPlatformIDs(1, &p, &n) != CL_SUCCESS || !n)
        bad++;
    cl_bool avail = CL_TRUE;
    if (clGetDeviceInfo(dev, CL_DEVICE_AVAILABLE, sizeof(avail), &avail, NULL) != CL_SUCCESS ||
        avail) {
        fprintf(stderr, "child: the device is available\n");
        bad++;
    }
    cl_int err = 0;
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (c || err != CL_DEVICE_NOT_AVAILABLE) {
        fprintf(stderr, "child: clCreateContext %p, %d\n", (void *)c, err);
        bad++;
    }
    unsigned char buf[64] = {1};
    err = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof(buf), buf, 0, NULL, NULL);
    if (err != CL_OUT_OF_RESOURCES) {
        fprintf(stderr, "child: write on the parent's queue: %d\n", err);
        bad++;
    }
    err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(buf), buf, 0, NULL, NULL);
    if (err != CL_OUT_OF_RESOURCES) {
        fprintf(stderr, "child: read on the parent's queue: %d\n", err);
        bad++;
    }
    const cl_uint pattern = 0xdead;
    err = clEnqueueFillBuffer(q, m, &pattern, sizeof(pattern), 0, 64, 0, NULL, NULL);
    if (err != CL_OUT_OF_RESOURCES) {
        fprintf(stderr, "child: fill on the parent's queue: %d\n", err);
        bad++;
    }
    clSetUserEventStatus(u, CL_COMPLETE);
    clFinish(q);
    return bad;
}

int main(void)
{
    cl_platform_id p;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cltest_setup(&p, &dev, &ctx, &q);
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, 0, N, NULL, &err);
    REQUIRE(m, "buffer: %d", err);
    EXPECT(roundtrip(q, m, 1) == 0, "round trip before the fork");
    EXPECT_OK(clFinish(q));
    /* A fill on a queue of its own, behind a user event the child sets. */
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    REQUIRE(q2, "second queue: %d", err);
    cl_mem g = clCreateBuffer(ctx, 0, 4096, NULL, &err);
    REQUIRE(g, "gated buffer: %d", err);
    const cl_uint zero = 0, ones = 0x11111111;
    EXPECT_OK(clEnqueueFillBuffer(q, g, &zero, sizeof(zero), 0, 4096, 0, NULL, NULL));
    EXPECT_OK(clFinish(q));
    cl_event u = clCreateUserEvent(ctx, &err);
    REQUIRE(u, "user event: %d", err);
    EXPECT_OK(clEnqueueFillBuffer(q2, g, &ones, sizeof(ones), 0, 4096, 1, &u, NULL));
    EXPECT_OK(clFlush(q2));
    /* Let the library's threads go idle: a fork copies a lock some
     * thread holds at that moment, held. */
    nanosleep(&(struct timespec){0, 50000000}, NULL);
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0)
        _exit(child(dev, q, m, u));
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid");
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: %s %d",
           WIFEXITED(st) ? "exited with" : "killed by signal",
           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    /* The parent's gate is still closed: its fill has not run. */
    nanosleep(&(struct timespec){0, 100000000}, NULL);
    cl_uint got[4] = {7, 7, 7, 7};
    EXPECT_OK(clEnqueueReadBuffer(q, g, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL));
    EXPECT(got[0] == 0 && got[3] == 0, "the child opened the parent's gate: 0x%x", got[0]);
    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clFinish(q2));
    EXPECT_OK(clEnqueueReadBuffer(q, g, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL));
    EXPECT(got[0] == ones && got[3] == ones, "the gated fill after the parent's set: 0x%x",
           got[0]);
    clReleaseEvent(u);
    clReleaseMemObject(g);
    clReleaseCommandQueue(q2);
    /* The parent's device and queue still work. */
    EXPECT(roundtrip(q, m, 7) == 0, "round trip after the child");
    cl_bool avail = CL_FALSE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_AVAILABLE, sizeof(avail), &avail, NULL));
    EXPECT(avail, "the parent lost its device");
    clReleaseMemObject(m);
    cltest_teardown(ctx, q);
    return cltest_result("api_fork");
}

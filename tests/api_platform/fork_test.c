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

/* The child's checks; its exit status is the number of failures. */
static int child(cl_device_id dev, cl_command_queue q, cl_mem m)
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
    /* Let the library's threads go idle: a fork copies a lock some
     * thread holds at that moment, held. */
    nanosleep(&(struct timespec){0, 50000000}, NULL);
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0)
        _exit(child(dev, q, m));
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid");
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: %s %d",
           WIFEXITED(st) ? "exited with" : "killed by signal",
           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    /* The parent's device and queue still work. */
    EXPECT(roundtrip(q, m, 7) == 0, "round trip after the child");
    cl_bool avail = CL_FALSE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_AVAILABLE, sizeof(avail), &avail, NULL));
    EXPECT(avail, "the parent lost its device");
    clReleaseMemObject(m);
    cltest_teardown(ctx, q);
    return cltest_result("api_fork");
}

/*
 * pipeline_test.c — a pipeline over the four GPUs of one context, through
 * the ICD loader: two buffers of the context move from device to device,
 * each stage's first command waiting on the previous device's last event
 * (a cross-device wait list), the whole chain held back by a user event.
 * Stages use vadd from tests/kernels (c = a + b + k), a copy and a fill;
 * each stage reads what the previous one wrote, so the final contents
 * encode the order the stages ran in (2(2x+a)+b differs from 2(2x+b)+a)
 * and are checked element by element against the same steps on the CPU.
 * The pipeline runs forward, backward and in a shuffled device order.
 */
#include "../api_platform/cltest.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

enum { N = 1000, NDEV = 4, NSTAGE = 4 };

static const float sentinel = -1.0f, fill_value = 0.25f;

static cl_int status_of(cl_event e)
{
    cl_int s = 1234;
    EXPECT_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(s), &s, NULL));
    return s;
}

static void settle(void)
{
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

struct rig {
    cl_device_id devs[NDEV];
    cl_context ctx;
    cl_command_queue q[NDEV];
    cl_program prog;
    cl_kernel k[NDEV]; /* vadd, one per device so arguments never mix */
    cl_mem x, y;
};

/* c = a + b + add over N floats on device d, after the wait list. */
static cl_event vadd(struct rig *r, int d, cl_mem a, cl_mem b, cl_mem c, int add, cl_uint nw,
                     const cl_event *wl)
{
    int n = N;
    EXPECT_OK(clSetKernelArg(r->k[d], 0, sizeof(a), &a));
    EXPECT_OK(clSetKernelArg(r->k[d], 1, sizeof(b), &b));
    EXPECT_OK(clSetKernelArg(r->k[d], 2, sizeof(c), &c));
    EXPECT_OK(clSetKernelArg(r->k[d], 3, sizeof(add), &add));
    EXPECT_OK(clSetKernelArg(r->k[d], 4, sizeof(n), &n));
    const size_t g = 1024, l = 128;
    cl_event e = NULL;
    EXPECT_OK(clEnqueueNDRangeKernel(r->q[d], r->k[d], 1, NULL, &g, &l, nw, wl, &e));
    return e;
}

static void rig_open(struct rig *r, cl_platform_id plat)
{
    cl_uint n = 0;
    cl_int err;
    REQUIRE(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, NDEV, r->devs, &n) == CL_SUCCESS,
            "device list");
    REQUIRE(n >= NDEV, "%u devices, the pipeline needs %d (HCQCL_EMU_GPUS=4)", n, NDEV);
    for (int i = 0; i < NDEV; i++)
        for (int j = 0; j < i; j++)
            REQUIRE(r->devs[i] != r->devs[j], "devices %d and %d are one handle", j, i);
    r->ctx = clCreateContext(NULL, NDEV, r->devs, NULL, NULL, &err);
    REQUIRE(r->ctx, "four-device context: %d", err);
    cl_uint ndev = 0;
    EXPECT_OK(clGetContextInfo(r->ctx, CL_CONTEXT_NUM_DEVICES, sizeof(ndev), &ndev, NULL));
    EXPECT(ndev == NDEV, "context holds %u devices", ndev);
    for (int d = 0; d < NDEV; d++) {
        r->q[d] = clCreateCommandQueueWithProperties(r->ctx, r->devs[d], NULL, &err);
        REQUIRE(r->q[d], "queue on device %d: %d", d, err);
    }
    size_t size;
    unsigned char *bin = test_data_read("test_kernels.cubin", &size);
    REQUIRE(bin, "test_kernels.cubin not found under HCQCL_TEST_DATA");
    const unsigned char *bins[NDEV];
    size_t sizes[NDEV];
    cl_int st[NDEV];
    for (int d = 0; d < NDEV; d++) {
        bins[d] = bin;
        sizes[d] = size;
    }
    r->prog = clCreateProgramWithBinary(r->ctx, NDEV, r->devs, sizes, bins, st, &err);
    free(bin);
    REQUIRE(r->prog, "program: %d", err);
    for (int d = 0; d < NDEV; d++)
        EXPECT(st[d] == CL_SUCCESS, "binary status on device %d: %d", d, st[d]);
    REQUIRE(clBuildProgram(r->prog, NDEV, r->devs, NULL, NULL, NULL) == CL_SUCCESS, "build");
    for (int d = 0; d < NDEV; d++) {
        r->k[d] = clCreateKernel(r->prog, "vadd", &err);
        REQUIRE(r->k[d], "vadd: %d", err);
    }
    r->x = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    r->y = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    REQUIRE(r->x && r->y, "buffers: %d", err);
}

static void rig_close(struct rig *r)
{
    for (int d = 0; d < NDEV; d++) {
        EXPECT_OK(clFinish(r->q[d]));
        EXPECT_OK(clReleaseKernel(r->k[d]));
        EXPECT_OK(clReleaseCommandQueue(r->q[d]));
    }
    EXPECT_OK(clReleaseProgram(r->prog));
    EXPECT_OK(clReleaseMemObject(r->x));
    EXPECT_OK(clReleaseMemObject(r->y));
    EXPECT_OK(clReleaseContext(r->ctx));
}

static float x0[N], xh[N], yh[N], xr[N], yr[N];

/*
 * The same four stages on the CPU, k = base + stage:
 *   0: x = x0, then x = x + x + k
 *   1: y = x (copy), then y = y + x + k
 *   2: x = y + y + k
 *   3: y = fill_value (fill), then y = x + y + k
 */
static void expect_on_cpu(int base)
{
    for (int i = 0; i < N; i++) {
        float x = x0[i], y;
        x = x + x + (float)(base + 0);
        y = x;
        y = y + x + (float)(base + 1);
        x = y + y + (float)(base + 2);
        y = fill_value;
        y = x + y + (float)(base + 3);
        xh[i] = x;
        yh[i] = y;
    }
}

static void run_pipeline(struct rig *r, const int ord[NSTAGE], int base, const char *name)
{
    cl_int err;
    /* Both buffers start as the sentinel, so a stage that ran before the
     * one it depends on leaves values the CPU steps never produce. */
    for (int i = 0; i < N; i++) {
        xr[i] = sentinel;
        yr[i] = sentinel;
    }
    EXPECT_OK(clEnqueueWriteBuffer(r->q[ord[3]], r->x, CL_TRUE, 0, N * 4, xr, 0, NULL, NULL));
    EXPECT_OK(clEnqueueWriteBuffer(r->q[ord[2]], r->y, CL_TRUE, 0, N * 4, yr, 0, NULL, NULL));

    cl_event u = clCreateUserEvent(r->ctx, &err);
    REQUIRE(u, "user event: %d", err);
    cl_event ev[11];
    int ne = 0;
    cl_event last[NSTAGE];

    /* Stage 0: upload and double on the first device, behind u. */
    int d = ord[0];
    EXPECT_OK(clEnqueueWriteBuffer(r->q[d], r->x, CL_FALSE, 0, N * 4, x0, 1, &u, &ev[ne]));
    ne++;
    ev[ne] = vadd(r, d, r->x, r->x, r->x, base + 0, 0, NULL);
    last[0] = ev[ne++];

    /* Stage 1: copy x -> y and combine, behind stage 0's device. */
    d = ord[1];
    EXPECT_OK(clEnqueueCopyBuffer(r->q[d], r->x, r->y, 0, 0, N * 4, 1, &last[0], &ev[ne]));
    ne++;
    ev[ne] = vadd(r, d, r->y, r->x, r->y, base + 1, 0, NULL);
    last[1] = ev[ne++];

    /* Stage 2: x from y alone, behind stage 1's device. */
    d = ord[2];
    ev[ne] = vadd(r, d, r->y, r->y, r->x, base + 2, 1, &last[1]);
    last[2] = ev[ne++];

    /* Stage 3: refill y and combine, behind stage 2's device. */
    d = ord[3];
    EXPECT_OK(clEnqueueFillBuffer(r->q[d], r->y, &fill_value, sizeof(fill_value), 0, N * 4, 1,
                                  &last[2], &ev[ne]));
    ne++;
    ev[ne] = vadd(r, d, r->x, r->y, r->y, base + 3, 0, NULL);
    last[3] = ev[ne++];

    /* Read both buffers back on the last device, after its stage. */
    cl_event rx, ry;
    EXPECT_OK(clEnqueueReadBuffer(r->q[d], r->x, CL_FALSE, 0, N * 4, xr, 1, &last[3], &rx));
    EXPECT_OK(clEnqueueReadBuffer(r->q[d], r->y, CL_FALSE, 0, N * 4, yr, 1, &last[3], &ry));
    ev[ne++] = rx;
    ev[ne++] = ry;
    for (int q = 0; q < NDEV; q++)
        EXPECT_OK(clFlush(r->q[q]));

    /* Nothing may run before u, on any device. */
    settle();
    for (int i = 0; i < ne; i++)
        EXPECT(status_of(ev[i]) > CL_COMPLETE, "%s: event %d ran before the user event", name,
               i);
    EXPECT(xr[0] == sentinel && yr[N - 1] == sentinel, "%s: read landed before the release",
           name);

    EXPECT_OK(clSetUserEventStatus(u, CL_COMPLETE));
    EXPECT_OK(clWaitForEvents(2, (cl_event[]){rx, ry}));

    for (int i = 0; i < ne; i++)
        EXPECT(status_of(ev[i]) == CL_COMPLETE, "%s: event %d status %d", name, i,
               status_of(ev[i]));
    /* Each stage's last command ran on the queue of its device. */
    for (int s = 0; s < NSTAGE; s++) {
        cl_command_queue eq = NULL;
        EXPECT_OK(clGetEventInfo(last[s], CL_EVENT_COMMAND_QUEUE, sizeof(eq), &eq, NULL));
        EXPECT(eq == r->q[ord[s]], "%s: stage %d event on the wrong queue", name, s);
    }

    expect_on_cpu(base);
    int bad = 0;
    for (int i = 0; i < N && bad < 8; i++) {
        if (xr[i] != xh[i]) {
            bad++;
            EXPECT(false, "%s: x[%d] = %g, want %g", name, i, xr[i], xh[i]);
        }
        if (yr[i] != yh[i]) {
            bad++;
            EXPECT(false, "%s: y[%d] = %g, want %g", name, i, yr[i], yh[i]);
        }
    }
    for (int i = 0; i < ne; i++)
        EXPECT_OK(clReleaseEvent(ev[i]));
    EXPECT_OK(clReleaseEvent(u));
}

int main(void)
{
    cl_platform_id p = cltest_platform();
    REQUIRE(p, "hcqcl platform not found");
    for (int i = 0; i < N; i++)
        x0[i] = (float)i;
    struct rig r;
    memset(&r, 0, sizeof(r));
    rig_open(&r, p);
    static const int forward[NSTAGE] = {0, 1, 2, 3}, backward[NSTAGE] = {3, 2, 1, 0},
                     shuffled[NSTAGE] = {2, 0, 3, 1};
    run_pipeline(&r, forward, 1, "forward");
    run_pipeline(&r, backward, 11, "backward");
    run_pipeline(&r, shuffled, 21, "shuffled");
    rig_close(&r);
    return cltest_result("multi_gpu_pipeline");
}

/*
 * event_pipeline — work split across two command queues and ordered only
 * by events: a user event holds back the first upload, stage 1 runs on
 * queue A, stage 2 on queue B waits for it, the read-back on B waits for
 * stage 2. Several rounds are chained (round r's stage 1 waits for round
 * r-1's stage 2 reading the same buffer). Completion callbacks count
 * every event; profiling timestamps must be ordered.
 * usage: event_pipeline [elements] [rounds]
 */
#include "sample.h"

#include <stdatomic.h>

static atomic_int callbacks;
static atomic_int callback_errors;

static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void *user)
{
    (void)ev;
    (void)user;
    if (status != CL_COMPLETE)
        atomic_fetch_add(&callback_errors, 1);
    atomic_fetch_add(&callbacks, 1);
}

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)strtoul(argv[1], NULL, 0) : 1u << 20;
    int rounds = argc > 2 ? atoi(argv[2]) : 4;
    if (rounds < 1 || rounds > 64)
        rounds = 4;
    size_t bytes = (size_t)n * sizeof(float);
    float *host = malloc(bytes);
    float **out = calloc((size_t)rounds, sizeof(*out));
    for (cl_uint i = 0; i < n; i++)
        host[i] = (float)(i % 100);

    cl_int err;
    cl_device_id dev;
    char name[256];
    cl_context ctx = sample_gpu_context(&dev, name, sizeof(name));
    cl_queue_properties props[] = { CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0 };
    cl_command_queue qa = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    CHECK_ERR(err);
    cl_command_queue qb = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    CHECK_ERR(err);
    cl_program prog = sample_build(ctx, dev, "event_pipeline.cl", SAMPLE_BUILD_OPTIONS);
    cl_kernel scale = clCreateKernel(prog, "pipeline_scale", &err);
    CHECK_ERR(err);
    cl_kernel offset = clCreateKernel(prog, "pipeline_offset", &err);
    CHECK_ERR(err);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_ERR(err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_ERR(err);

    cl_event gate = clCreateUserEvent(ctx, &err);
    CHECK_ERR(err);
    cl_event upload, prev_stage2 = NULL;
    CHECK(clEnqueueWriteBuffer(qa, a, CL_FALSE, 0, bytes, host, 1, &gate, &upload));
    CHECK(clFlush(qa));

    cl_event *reads = calloc((size_t)rounds, sizeof(*reads));
    cl_event *stage1 = calloc((size_t)rounds, sizeof(*stage1));
    int expected_callbacks = 1;
    CHECK(clSetEventCallback(upload, CL_COMPLETE, on_complete, NULL));
    size_t global = n;
    for (int r = 0; r < rounds; r++) {
        float factor = 2.0f, off = (float)(r + 1);
        CHECK(clSetKernelArg(scale, 0, sizeof(cl_mem), &a));
        CHECK(clSetKernelArg(scale, 1, sizeof(float), &factor));
        CHECK(clSetKernelArg(scale, 2, sizeof(cl_uint), &n));
        /* Stage 1 waits for the upload (same queue anyway) and for the
         * previous round's stage 2 on the other queue, which reads a. */
        cl_event waits[2] = { upload, prev_stage2 };
        CHECK(clEnqueueNDRangeKernel(qa, scale, 1, NULL, &global, NULL, prev_stage2 ? 2 : 1, waits,
                                     &stage1[r]));
        CHECK(clFlush(qa));
        CHECK(clSetKernelArg(offset, 0, sizeof(cl_mem), &a));
        CHECK(clSetKernelArg(offset, 1, sizeof(cl_mem), &b));
        CHECK(clSetKernelArg(offset, 2, sizeof(float), &off));
        CHECK(clSetKernelArg(offset, 3, sizeof(cl_uint), &n));
        cl_event stage2;
        CHECK(clEnqueueNDRangeKernel(qb, offset, 1, NULL, &global, NULL, 1, &stage1[r], &stage2));
        out[r] = malloc(bytes);
        CHECK(clEnqueueReadBuffer(qb, b, CL_FALSE, 0, bytes, out[r], 0, NULL, &reads[r]));
        CHECK(clSetEventCallback(stage1[r], CL_COMPLETE, on_complete, NULL));
        CHECK(clSetEventCallback(stage2, CL_COMPLETE, on_complete, NULL));
        CHECK(clSetEventCallback(reads[r], CL_COMPLETE, on_complete, NULL));
        expected_callbacks += 3;
        if (prev_stage2)
            clReleaseEvent(prev_stage2);
        prev_stage2 = stage2;
        CHECK(clFlush(qb));
    }

    /* Nothing may have run while the gate is closed. */
    cl_int st;
    CHECK(clGetEventInfo(stage1[0], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
    int gate_failed = st == CL_COMPLETE || atomic_load(&callbacks) != 0;
    if (gate_failed)
        fprintf(stderr, "work ran before the user event was set\n");
    CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
    CHECK(clWaitForEvents(1, &reads[rounds - 1]));
    CHECK(clFinish(qa));
    CHECK(clFinish(qb));
    /* Callbacks are asynchronous: give them a moment after completion. */
    for (int i = 0; i < 500 && atomic_load(&callbacks) < expected_callbacks; i++)
        usleep(10000);

    int wrong = 0;
    for (int r = 0; r < rounds; r++) {
        float mul = (float)(1u << (r + 1));
        for (cl_uint i = 0; i < n; i++) {
            float ref = host[i] * mul + (float)(r + 1);
            if (out[r][i] != ref && wrong++ < 5)
                fprintf(stderr, "round %d: out[%u] = %g, expected %g\n", r, i, out[r][i], ref);
        }
        cl_ulong q0, s0, e0, s1;
        CHECK(clGetEventProfilingInfo(stage1[r], CL_PROFILING_COMMAND_QUEUED, sizeof(q0), &q0, NULL));
        CHECK(clGetEventProfilingInfo(stage1[r], CL_PROFILING_COMMAND_START, sizeof(s0), &s0, NULL));
        CHECK(clGetEventProfilingInfo(stage1[r], CL_PROFILING_COMMAND_END, sizeof(e0), &e0, NULL));
        CHECK(clGetEventProfilingInfo(reads[r], CL_PROFILING_COMMAND_START, sizeof(s1), &s1, NULL));
        if (!(q0 <= s0 && s0 <= e0 && e0 <= s1) && wrong++ < 5)
            fprintf(stderr, "round %d: timestamps out of order\n", r);
    }
    int cbs = atomic_load(&callbacks), cb_err = atomic_load(&callback_errors);
    printf("event_pipeline on %s: %d rounds over 2 queues, %u elements, %d/%d callbacks, %s\n",
           name, rounds, n, cbs, expected_callbacks,
           wrong || gate_failed || cb_err || cbs != expected_callbacks ? "FAILED" : "PASSED");

    for (int r = 0; r < rounds; r++) {
        clReleaseEvent(stage1[r]);
        clReleaseEvent(reads[r]);
        free(out[r]);
    }
    clReleaseEvent(prev_stage2);
    clReleaseEvent(upload);
    clReleaseEvent(gate);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(scale);
    clReleaseKernel(offset);
    clReleaseProgram(prog);
    clReleaseCommandQueue(qa);
    clReleaseCommandQueue(qb);
    clReleaseContext(ctx);
    free(host);
    free(out);
    free(reads);
    free(stage1);
    return wrong || gate_failed || cb_err || cbs != expected_callbacks ? 1 : 0;
}

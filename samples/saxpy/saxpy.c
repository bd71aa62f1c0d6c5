/*
 * saxpy — y = alpha * x + y in place, repeated a few times through the
 * same kernel object with a different alpha each time; the result is
 * checked against the host computation and the effective bandwidth
 * printed. usage: saxpy [elements] [repeats]
 */
#include "sample.h"

#include <math.h>

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)strtoul(argv[1], NULL, 0) : 1u << 22;
    int reps = argc > 2 ? atoi(argv[2]) : 4;
    size_t bytes = (size_t)n * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes), *ref = malloc(bytes);
    for (cl_uint i = 0; i < n; i++) {
        x[i] = (float)(i % 64) * 0.25f;
        y[i] = ref[i] = (float)(i % 9);
    }

    cl_int err;
    cl_device_id dev;
    char name[256];
    cl_context ctx = sample_gpu_context(&dev, name, sizeof(name));
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK_ERR(err);
    cl_program prog = sample_build(ctx, dev, "saxpy.cl", SAMPLE_BUILD_OPTIONS);
    cl_kernel k = clCreateKernel(prog, "saxpy", &err);
    CHECK_ERR(err);
    cl_mem dx = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
    CHECK_ERR(err);
    cl_mem dy = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK_ERR(err);
    CHECK(clEnqueueWriteBuffer(q, dx, CL_FALSE, 0, bytes, x, 0, NULL, NULL));
    CHECK(clEnqueueWriteBuffer(q, dy, CL_FALSE, 0, bytes, y, 0, NULL, NULL));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &dx));
    CHECK(clSetKernelArg(k, 2, sizeof(cl_mem), &dy));
    CHECK(clSetKernelArg(k, 3, sizeof(cl_uint), &n));
    CHECK(clFinish(q));

    size_t global = (size_t)n; /* local size left to the implementation */
    double t0 = sample_now();
    for (int r = 0; r < reps; r++) {
        float alpha = 0.5f * (float)(r + 1);
        CHECK(clSetKernelArg(k, 0, sizeof(float), &alpha));
        CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
        for (cl_uint i = 0; i < n; i++)
            ref[i] = fmaf(alpha, x[i], ref[i]);
    }
    CHECK(clFinish(q));
    double t1 = sample_now();
    CHECK(clEnqueueReadBuffer(q, dy, CL_TRUE, 0, bytes, y, 0, NULL, NULL));

    cl_uint wrong = 0;
    for (cl_uint i = 0; i < n; i++)
        if (fabsf(y[i] - ref[i]) > 1e-5f * fabsf(ref[i]) + 1e-6f && wrong++ < 5)
            fprintf(stderr, "y[%u] = %g, expected %g\n", i, y[i], ref[i]);
    double gbs = 3.0 * (double)bytes * reps / (t1 - t0) / 1e9;
    printf("saxpy on %s: %u elements x %d, %.3f ms, %.1f GB/s effective, %s\n", name, n, reps,
           (t1 - t0) * 1e3, gbs, wrong ? "FAILED" : "PASSED");

    clReleaseMemObject(dx);
    clReleaseMemObject(dy);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(x);
    free(y);
    free(ref);
    return wrong ? 1 : 0;
}

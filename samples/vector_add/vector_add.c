/*
 * vector_add — the canonical first OpenCL program: two buffers in, one
 * out, a kernel built from vector_add.cl, and a check of every element.
 * usage: vector_add [elements]
 */
#include "sample.h"

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)strtoul(argv[1], NULL, 0) : 1u << 20;
    size_t bytes = (size_t)n * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    for (cl_uint i = 0; i < n; i++) {
        a[i] = (float)(i % 1000);
        b[i] = (float)(2 * (i % 777)) + 0.5f;
    }

    cl_int err;
    cl_device_id dev;
    char name[256];
    cl_context ctx = sample_gpu_context(&dev, name, sizeof(name));
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK_ERR(err);
    cl_program prog = sample_build(ctx, dev, "vector_add.cl", SAMPLE_BUILD_OPTIONS);
    cl_kernel k = clCreateKernel(prog, "vector_add", &err);
    CHECK_ERR(err);

    cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a, &err);
    CHECK_ERR(err);
    cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b, &err);
    CHECK_ERR(err);
    cl_mem dc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    CHECK_ERR(err);
    CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &da));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &db));
    CHECK(clSetKernelArg(k, 2, sizeof(cl_mem), &dc));
    CHECK(clSetKernelArg(k, 3, sizeof(cl_uint), &n));

    size_t local = 256, global = ((size_t)n + local - 1) / local * local;
    double t0 = sample_now();
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, dc, CL_TRUE, 0, bytes, c, 0, NULL, NULL));
    double t1 = sample_now();

    cl_uint wrong = 0;
    for (cl_uint i = 0; i < n; i++)
        if (c[i] != a[i] + b[i] && wrong++ < 5)
            fprintf(stderr, "c[%u] = %g, expected %g\n", i, c[i], a[i] + b[i]);
    printf("vector_add on %s: %u elements, %.3f ms (kernel + read), %s\n", name, n,
           (t1 - t0) * 1e3, wrong ? "FAILED" : "PASSED");

    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(a);
    free(b);
    free(c);
    return wrong ? 1 : 0;
}

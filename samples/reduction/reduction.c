/*
 * reduction — sum of a large array: a kernel with a __local scratch
 * argument (size given at clSetKernelArg) reduces each work-group's slice
 * to one partial sum; the host adds the partials. Inputs are small
 * integers so every order of addition gives the exact same float.
 * usage: reduction [elements] [local size]
 */
#include "sample.h"

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)strtoul(argv[1], NULL, 0) : 1u << 22;
    size_t local = argc > 2 ? strtoul(argv[2], NULL, 0) : 256;
    float *in = malloc((size_t)n * sizeof(float));
    double expect = 0;
    for (cl_uint i = 0; i < n; i++) {
        in[i] = (float)((int)(i % 17) - 8);
        expect += in[i];
    }

    cl_int err;
    cl_device_id dev;
    char name[256];
    cl_context ctx = sample_gpu_context(&dev, name, sizeof(name));
    size_t max_wg;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, NULL));
    if (local > max_wg || (local & (local - 1))) {
        fprintf(stderr, "local size must be a power of two <= %zu\n", max_wg);
        clReleaseContext(ctx);
        return 1;
    }
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK_ERR(err);
    cl_program prog = sample_build(ctx, dev, "reduction.cl", SAMPLE_BUILD_OPTIONS);
    cl_kernel k = clCreateKernel(prog, "reduce_sum", &err);
    CHECK_ERR(err);

    size_t groups = ((size_t)n + 2 * local - 1) / (2 * local);
    cl_mem din = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                (size_t)n * sizeof(float), in, &err);
    CHECK_ERR(err);
    cl_mem dpart = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, groups * sizeof(float), NULL, &err);
    CHECK_ERR(err);
    CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &din));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &dpart));
    CHECK(clSetKernelArg(k, 2, local * sizeof(float), NULL));
    CHECK(clSetKernelArg(k, 3, sizeof(cl_uint), &n));

    size_t global = groups * local;
    double t0 = sample_now();
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
    float *part = malloc(groups * sizeof(float));
    CHECK(clEnqueueReadBuffer(q, dpart, CL_TRUE, 0, groups * sizeof(float), part, 0, NULL, NULL));
    double t1 = sample_now();

    /* Each partial must be exact too: recompute per group. */
    cl_uint wrong = 0;
    double sum = 0;
    for (size_t g = 0; g < groups; g++) {
        double ref = 0;
        for (size_t i = g * 2 * local; i < (g + 1) * 2 * local && i < n; i++)
            ref += in[i];
        if ((double)part[g] != ref && wrong++ < 5)
            fprintf(stderr, "partial[%zu] = %g, expected %g\n", g, part[g], ref);
        sum += part[g];
    }
    if (sum != expect)
        wrong++;
    printf("reduction on %s: %u elements, %zu groups of %zu, sum %.0f (expected %.0f), %.3f ms, %s\n",
           name, n, groups, local, sum, expect, (t1 - t0) * 1e3, wrong ? "FAILED" : "PASSED");

    clReleaseMemObject(din);
    clReleaseMemObject(dpart);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(in);
    free(part);
    return wrong ? 1 : 0;
}

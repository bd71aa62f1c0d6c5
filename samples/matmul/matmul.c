/*
 * matmul — tiled single-precision matrix multiply (16 x 16 work-groups,
 * tiles in __local memory, reqd_work_group_size), timed with event
 * profiling and reported in GFLOP/s. Small-integer inputs make the
 * products exact, so checked elements must match bit for bit.
 * usage: matmul [N (multiple of 16)] [repeats]
 */
#include "sample.h"

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)strtoul(argv[1], NULL, 0) : 2048;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (n == 0 || n % 16) {
        fprintf(stderr, "N must be a positive multiple of 16\n");
        return 1;
    }
    size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    for (size_t i = 0; i < elems; i++) {
        a[i] = (float)((int)(i % 7) - 3);
        b[i] = (float)((int)(i % 5) - 2);
    }

    cl_int err;
    cl_device_id dev;
    char name[256];
    cl_context ctx = sample_gpu_context(&dev, name, sizeof(name));
    cl_queue_properties props[] = { CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0 };
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    CHECK_ERR(err);
    cl_program prog = sample_build(ctx, dev, "matmul.cl", SAMPLE_BUILD_OPTIONS);
    cl_kernel k = clCreateKernel(prog, "matmul_tiled", &err);
    CHECK_ERR(err);
    size_t reqd[3];
    CHECK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(reqd), reqd, NULL));
    if (reqd[0] != 16 || reqd[1] != 16 || reqd[2] != 1) {
        fprintf(stderr, "CL_KERNEL_COMPILE_WORK_GROUP_SIZE = %zu,%zu,%zu, expected 16,16,1\n",
                reqd[0], reqd[1], reqd[2]);
        return 1;
    }

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

    size_t global[2] = { n, n }, local[2] = { 16, 16 };
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        cl_event ev;
        /* The last run, whose result is checked, leaves the work-group
         * size to the driver: the kernel's reqd_work_group_size is what it
         * must pick. */
        CHECK(clEnqueueNDRangeKernel(q, k, 2, NULL, global, r == reps - 1 ? NULL : local, 0,
                                     NULL, &ev));
        CHECK(clWaitForEvents(1, &ev));
        cl_ulong start, end;
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(start), &start, NULL));
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL));
        clReleaseEvent(ev);
        if (end <= start) {
            fprintf(stderr, "profiling: end %llu <= start %llu\n", (unsigned long long)end,
                    (unsigned long long)start);
            return 1;
        }
        double s = (double)(end - start) * 1e-9;
        if (s < best)
            best = s;
    }
    CHECK(clEnqueueReadBuffer(q, dc, CL_TRUE, 0, bytes, c, 0, NULL, NULL));

    /* Check whole rows and columns spread over the matrix (all of it when small). */
    cl_uint wrong = 0, step = n <= 256 ? 1 : n / 61 + 1;
    for (cl_uint row = 0; row < n; row += step)
        for (cl_uint col = 0; col < n; col++) {
            double ref = 0;
            for (cl_uint t = 0; t < n; t++)
                ref += (double)a[(size_t)row * n + t] * b[(size_t)t * n + col];
            if ((double)c[(size_t)row * n + col] != ref && wrong++ < 5)
                fprintf(stderr, "C[%u][%u] = %g, expected %g\n", row, col, c[(size_t)row * n + col], ref);
        }
    double gflops = 2.0 * n * (double)n * n / best / 1e9;
    printf("matmul on %s: N=%u, best of %d: %.3f ms, %.1f GFLOP/s, %s\n", name, n, reps,
           best * 1e3, gflops, wrong ? "FAILED" : "PASSED");

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

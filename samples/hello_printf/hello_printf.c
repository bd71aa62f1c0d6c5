/*
 * hello_printf — printf in a kernel: every work-item prints a line with
 * integers, a float, a vector, a string and a character. The program
 * catches its own standard output around the launch (the lines appear
 * when the kernel completes, in no particular order) and checks it, line
 * for line, against what the host's printf makes of the same values.
 * With a number of launches, the same kernel runs that many times, queued
 * back to back without a wait, and every launch's lines are checked.
 * usage: hello_printf [work-items] [local size] [launches]
 */
#include "sample.h"

#include <unistd.h>

static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text (modified in place), sorted; their count. */
static size_t sorted_lines(char *text, char ***out)
{
    size_t n = 0, cap = 64;
    char **v = malloc(cap * sizeof(*v));
    for (char *s = strtok(text, "\n"); s; s = strtok(NULL, "\n")) {
        if (n == cap)
            v = realloc(v, (cap *= 2) * sizeof(*v));
        v[n++] = s;
    }
    qsort(v, n, sizeof(*v), cmp_lines);
    *out = v;
    return n;
}

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)strtoul(argv[1], NULL, 0) : 1000;
    size_t local = argc > 2 ? strtoul(argv[2], NULL, 0) : 64;
    unsigned launches = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 1;
    if (launches == 0)
        launches = 1;
    float *x = malloc(n * sizeof(float));
    cl_int *r = malloc(n * sizeof(cl_int));
    for (cl_uint i = 0; i < n; i++)
        x[i] = (float)i / 7.0f;

    cl_int err;
    cl_device_id dev;
    char name[256];
    cl_context ctx = sample_gpu_context(&dev, name, sizeof(name));
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK_ERR(err);
    cl_program prog = sample_build(ctx, dev, "hello_printf.cl", SAMPLE_BUILD_OPTIONS);
    cl_kernel k = clCreateKernel(prog, "hello", &err);
    CHECK_ERR(err);
    cl_mem dx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(float), x,
                               &err);
    CHECK_ERR(err);
    cl_mem dr = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * sizeof(cl_int), NULL, &err);
    CHECK_ERR(err);
    CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &dx));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &dr));
    CHECK(clSetKernelArg(k, 2, sizeof(cl_uint), &n));

    /* Standard output into a file while the kernel runs. */
    FILE *caught = tmpfile();
    if (!caught) {
        perror("tmpfile");
        return 1;
    }
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fileno(caught), STDOUT_FILENO);
    size_t global = (n + local - 1) / local * local;
    double t0 = sample_now();
    cl_int run = CL_SUCCESS;
    for (unsigned l = 0; l < launches && run == CL_SUCCESS; l++)
        run = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    cl_int fin = clFinish(q);
    double t1 = sample_now();
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    CHECK(run);
    CHECK(fin);
    CHECK(clEnqueueReadBuffer(q, dr, CL_TRUE, 0, n * sizeof(cl_int), r, 0, NULL, NULL));

    long size = ftell(caught);
    char *got = calloc(1, (size_t)size + 1);
    rewind(caught);
    if (fread(got, 1, (size_t)size, caught) != (size_t)size) {
        perror("fread");
        return 1;
    }
    fclose(caught);

    /* The same lines from the host's printf. */
    size_t cap = (size_t)n * launches * 160 + 1, len = 0;
    char *want = malloc(cap);
    for (cl_uint j = 0; j < n * launches; j++) {
        cl_uint i = j % n;
        len += (size_t)snprintf(want + len, cap - len,
                                "work-item %u of group %u: x = %.3f, %#x, %d,%d,%d,%d, %s, %c, %ld\n",
                                i, (cl_uint)(i / local), (double)x[i], i * 17u, (int)i, -(int)i,
                                (int)(2 * i), 3, "hello", 'A' + (int)(i % 26), (long)i << 33);
    }
    char **gl, **wl;
    size_t ng = sorted_lines(got, &gl), nw = sorted_lines(want, &wl);
    size_t wrong = 0, failed_calls = 0;
    for (size_t i = 0; i < nw; i++)
        if (i >= ng || strcmp(gl[i], wl[i])) {
            if (wrong++ < 3)
                fprintf(stderr, "line %zu: \"%s\"\n  expected \"%s\"\n", i, i < ng ? gl[i] : "",
                        wl[i]);
        }
    if (ng != nw) {
        fprintf(stderr, "%zu lines, expected %zu\n", ng, nw);
        wrong++;
    }
    for (cl_uint i = 0; i < n; i++)
        failed_calls += r[i] != 0;
    if (failed_calls) {
        fprintf(stderr, "%zu printf calls returned non-zero\n", failed_calls);
        wrong++;
    }
    printf("hello_printf on %s: %u work-items x %u launches, %zu lines checked, %.3f ms (kernels "
           "+ output), %s\n",
           name, n, launches, ng, (t1 - t0) * 1e3, wrong ? "FAILED" : "PASSED");

    free(gl);
    free(wl);
    free(got);
    free(want);
    clReleaseMemObject(dx);
    clReleaseMemObject(dr);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(x);
    free(r);
    return wrong ? 1 : 0;
}

/*
 * binary_roundtrip — build a program from source, save CL_PROGRAM_BINARIES
 * to a file, create a new program from that file with
 * clCreateProgramWithBinary, and check both programs compute the same
 * thing (the kernel uses a global work offset and get_work_dim).
 * usage: binary_roundtrip [file to write the binary to]
 */
#include "sample.h"

static int run(cl_context ctx, cl_command_queue q, cl_program prog, cl_uint base, const char *what)
{
    enum { N = 4096, OFFSET = 100 };
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "iota_offset", &err);
    CHECK_ERR(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * sizeof(cl_uint), NULL, &err);
    CHECK_ERR(err);
    CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &out));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_uint), &base));
    size_t offset = OFFSET, global = N, local = 64;
    CHECK(clEnqueueNDRangeKernel(q, k, 1, &offset, &global, &local, 0, NULL, NULL));
    cl_uint *h = malloc(N * sizeof(cl_uint));
    CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, N * sizeof(cl_uint), h, 0, NULL, NULL));
    int wrong = 0;
    for (cl_uint i = 0; i < N; i++) {
        cl_uint ref = (i + OFFSET) * 2u + base + 1000000u;
        if (h[i] != ref && wrong++ < 5)
            fprintf(stderr, "%s: out[%u] = %u, expected %u\n", what, i, h[i], ref);
    }
    free(h);
    clReleaseMemObject(out);
    clReleaseKernel(k);
    return wrong;
}

int main(int argc, char **argv)
{
    const char *file = argc > 1 ? argv[1] : "binary_roundtrip.bin";
    cl_int err;
    cl_device_id dev;
    char name[256];
    cl_context ctx = sample_gpu_context(&dev, name, sizeof(name));
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK_ERR(err);

    /* 1. From source. */
    cl_program src_prog = sample_build(ctx, dev, "binary_roundtrip.cl", SAMPLE_BUILD_OPTIONS);
    int wrong = run(ctx, q, src_prog, 7, "source program");

    /* 2. Its binary, to a file. */
    size_t size = 0;
    CHECK(clGetProgramInfo(src_prog, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL));
    if (size == 0) {
        fprintf(stderr, "CL_PROGRAM_BINARY_SIZES is 0\n");
        return 1;
    }
    unsigned char *bin = malloc(size);
    unsigned char *bins[] = { bin };
    CHECK(clGetProgramInfo(src_prog, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL));
    FILE *f = fopen(file, "wb");
    if (!f || fwrite(bin, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", file);
        return 1;
    }
    clReleaseProgram(src_prog);

    /* 3. Back from the file. */
    unsigned char *loaded = malloc(size);
    f = fopen(file, "rb");
    if (!f || fread(loaded, 1, size, f) != size) {
        fprintf(stderr, "cannot read %s\n", file);
        return 1;
    }
    fclose(f);
    const unsigned char *lb[] = { loaded };
    cl_int status;
    cl_program bin_prog = clCreateProgramWithBinary(ctx, 1, &dev, &size, lb, &status, &err);
    CHECK_ERR(err);
    CHECK(status);
    CHECK(clBuildProgram(bin_prog, 1, &dev, NULL, NULL, NULL));
    cl_program_binary_type type;
    CHECK(clGetProgramBuildInfo(bin_prog, dev, CL_PROGRAM_BINARY_TYPE, sizeof(type), &type, NULL));
    if (type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE) {
        fprintf(stderr, "binary type after build: 0x%x\n", (unsigned)type);
        wrong++;
    }
    char kernels[256] = "";
    CHECK(clGetProgramInfo(bin_prog, CL_PROGRAM_KERNEL_NAMES, sizeof(kernels), kernels, NULL));
    if (strcmp(kernels, "iota_offset") != 0) {
        fprintf(stderr, "CL_PROGRAM_KERNEL_NAMES = \"%s\"\n", kernels);
        wrong++;
    }
    wrong += run(ctx, q, bin_prog, 11, "binary program");

    /* 4. A damaged binary is refused. */
    loaded[0] ^= 0xff;
    cl_program bad = clCreateProgramWithBinary(ctx, 1, &dev, &size, lb, &status, &err);
    if (err != CL_INVALID_BINARY || status != CL_INVALID_BINARY) {
        fprintf(stderr, "damaged binary: error %d, status %d (expected CL_INVALID_BINARY)\n", err, status);
        wrong++;
        if (bad)
            clReleaseProgram(bad);
    }

    printf("binary_roundtrip on %s: %zu-byte binary via %s, %s\n", name, size, file,
           wrong ? "FAILED" : "PASSED");
    clReleaseProgram(bin_prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(bin);
    free(loaded);
    return wrong ? 1 : 0;
}

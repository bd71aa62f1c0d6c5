/*
 * kernel_unit.c — white-box: the parameter block hcqcl_kernel_params
 * writes for a launch (buffer VAs with sub-buffer offsets, NULL buffers,
 * by-value bytes, __local offsets after the static shared area with their
 * alignment, the dynamic shared size), unset arguments, and the buffers a
 * command must retain.
 *
 * Data: ${HCQCL_TEST_DATA}/test_kernels.cubin.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/obj.h"
#include "check.h"
#include "unit_setup.h"


static uint64_t u64_at(const uint8_t *b, uint32_t off)
{
    uint64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

static uint32_t u32_at(const uint8_t *b, uint32_t off)
{
    uint32_t v;
    memcpy(&v, b + off, 4);
    return v;
}

int main(void)
{
    size_t size;
    uint8_t *bin = test_data_read("test_kernels.cubin", &size);
    if (!bin)
        return 1;

    cl_uint n;
    cl_int err;
    cl_device_id dev = unit_devices(&n)[0];
    cl_context ctx = unit_context(1, &dev);
    const unsigned char *b = bin;
    cl_program p = hcqcl_clCreateProgramWithBinary(ctx, 1, &dev, &size, &b, NULL, &err);
    if (!p || hcqcl_clBuildProgram(p, 0, NULL, NULL, NULL, NULL) != CL_SUCCESS) {
        fprintf(stderr, "kernel_unit: program: %d\n", err);
        return 1;
    }

    /* vadd(const float *a, const float *b, float *c, int k, int n): the
     * nvcc layout is a@0 b@8 c@16 k@24 n@28. */
    cl_kernel k = hcqcl_clCreateKernel(p, "vadd", &err);
    EXPECT(k && k->desc->num_args == 5 && k->desc->param_size == 32, "vadd desc");
    cl_mem buf = hcqcl_clCreateBuffer(ctx, 0, 65536, NULL, &err);
    cl_buffer_region r = {4096, 4096};
    cl_mem sub = hcqcl_clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    EXPECT(k && buf && sub, "objects");
    uint8_t block[64];
    uint32_t dyn = 99;
    EXPECT(hcqcl_kernel_params(k, dev, block, &dyn) == CL_INVALID_KERNEL_ARGS, "unset args");
    int kk = -7, nn = 12345;
    hcqcl_clSetKernelArg(k, 0, sizeof(cl_mem), &buf);
    hcqcl_clSetKernelArg(k, 1, sizeof(cl_mem), &sub);
    hcqcl_clSetKernelArg(k, 2, sizeof(cl_mem), NULL);
    hcqcl_clSetKernelArg(k, 3, sizeof(int), &kk);
    EXPECT(hcqcl_kernel_params(k, dev, block, &dyn) == CL_INVALID_KERNEL_ARGS, "n unset");
    hcqcl_clSetKernelArg(k, 4, sizeof(int), &nn);
    memset(block, 0xcc, sizeof(block));
    EXPECT(hcqcl_kernel_params(k, dev, block, &dyn) == CL_SUCCESS, "params");
    EXPECT(u64_at(block, 0) == hcqcl_mem_va(buf, dev->hw) && u64_at(block, 0) != 0, "a = VA");
    EXPECT(u64_at(block, 8) == hcqcl_mem_va(buf, dev->hw) + 4096, "b = sub-buffer VA");
    EXPECT(u64_at(block, 16) == 0, "c = NULL buffer");
    EXPECT((int)u32_at(block, 24) == kk && (int)u32_at(block, 28) == nn, "scalars");
    EXPECT(dyn == 0, "no __local arguments: dyn %u", dyn);
    cl_mem mems[4];
    EXPECT(hcqcl_kernel_mem_args(k, mems, 4) == 2 && mems[0] == buf && mems[1] == sub,
           "buffers to retain");
    EXPECT(hcqcl_kernel_mem_args(k, mems, 1) == 2, "count beyond cap");

    /* Bytes that are no handle pass through unchanged. */
    uint64_t raw = 0xdead0000beefull;
    hcqcl_clSetKernelArg(k, 2, sizeof(raw), &raw);
    EXPECT(hcqcl_kernel_params(k, dev, block, &dyn) == CL_SUCCESS, "raw params");
    EXPECT(u64_at(block, 16) == raw, "raw pointer bytes");
    EXPECT(hcqcl_kernel_mem_args(k, mems, 4) == 2, "raw bytes are no buffer");

    /* The same pointer arguments used as __local: offsets from 0x400 (no
     * static shared in vadd), each 16-aligned, dyn = their extent. */
    hcqcl_clSetKernelArg(k, 0, 100, NULL);
    hcqcl_clSetKernelArg(k, 2, 8, NULL); /* size 8, value NULL: a NULL buffer */
    hcqcl_clSetKernelArg(k, 1, 32, NULL);
    EXPECT(hcqcl_kernel_params(k, dev, block, &dyn) == CL_SUCCESS, "local params");
    const struct hcq_kernel_info *vi = hcqcl_kernel_info(k, dev);
    uint32_t base = 0x400 + vi->static_shared;
    EXPECT(u64_at(block, 0) == base, "first __local at %#x, got %#llx", base,
           (unsigned long long)u64_at(block, 0));
    EXPECT(u64_at(block, 8) == util_align_up(base + 100, 16), "second __local 16-aligned");
    EXPECT(u64_at(block, 16) == 0, "NULL buffer");
    EXPECT(dyn == util_align_up(100, 16) + 32, "dyn %u", dyn);
    EXPECT(hcqcl_kernel_mem_args(k, mems, 4) == 0, "no buffers left");

    hcqcl_clReleaseKernel(k);

    /* smem_win has 1 KiB of static shared memory: __local starts after it. */
    cl_kernel s = hcqcl_clCreateKernel(p, "smem_win", &err);
    if (s) {
        const struct hcq_kernel_info *si = hcqcl_kernel_info(s, dev);
        EXPECT(si->static_shared >= 1024, "static shared %u", si->static_shared);
        hcqcl_clSetKernelArg(s, 0, 48, NULL);
        hcqcl_clSetKernelArg(s, 1, sizeof(int), &kk);
        EXPECT(hcqcl_kernel_params(s, dev, block, &dyn) == CL_SUCCESS, "smem params");
        EXPECT(u64_at(block, 0) == util_align_up(0x400 + si->static_shared, 16),
               "__local after static shared: %#llx", (unsigned long long)u64_at(block, 0));
        EXPECT(dyn == 48, "dyn %u", dyn);
        hcqcl_clReleaseKernel(s);
    }

    hcqcl_clReleaseMemObject(sub);
    hcqcl_clReleaseMemObject(buf);
    hcqcl_clReleaseProgram(p);
    hcqcl_clReleaseContext(ctx);
    free(bin);
    return check_done("kernel_unit");
}

/*
 * svm_kernel_test.c — SVM pointers as kernel arguments through the ICD
 * loader, on svm_kernels.cl built from source: clSetKernelArgSVMPointer
 * and clSetKernelExecInfo and their errors, a linked list built on the
 * host between map and unmap whose nodes point at each other within one
 * SVM allocation and across several (walked by svm_list_sum from its
 * head or from a node in the middle), svm_scale on an offset SVM
 * pointer, on a buffer made with CL_MEM_USE_HOST_PTR on an SVM pointer
 * and on a clone of the kernel; with two devices in one context, both
 * kernels on each. On the emulated device the kernels' host twins
 * (emu_svm_kernels.c) follow the same pointers; the results are the
 * same on a GPU.
 */
#include "../api_platform/cltest.h"

#include <stdint.h>
#include <string.h>

#ifndef SVM_KERNELS_OPTIONS
#error "SVM_KERNELS_OPTIONS: the build options svm_kernels.cl was precompiled with"
#endif

static cl_context ctx;
static cl_command_queue queue;

/* svm_kernels.cl's struct node: SVM pointers are the same on host and
 * device, so the host writes real pointers. */
struct node {
    struct node *next;
    cl_long value;
};

static void *svm_alloc(size_t size)
{
    void *p = clSVMAlloc(ctx, CL_MEM_READ_WRITE, size, 0);
    REQUIRE(p, "clSVMAlloc(%zu bytes) returned NULL", size);
    return p;
}

static void run1(cl_kernel k, size_t gws)
{
    EXPECT_OK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &gws, NULL, 0, NULL, NULL));
}

/* *out (an SVM allocation) as the host sees it through a map. */
static cl_long read_svm_long(cl_long *out)
{
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, out, sizeof(*out), 0, NULL, NULL));
    cl_long v = *out;
    EXPECT_OK(clEnqueueSVMUnmap(queue, out, 0, NULL, NULL));
    EXPECT_OK(clFinish(queue));
    return v;
}

static void test_arg_errors(cl_kernel k)
{
    float *p = svm_alloc(256);
    /* clSetKernelArgSVMPointer: CL_INVALID_KERNEL if kernel is not a valid kernel object */
    EXPECT_ERR(clSetKernelArgSVMPointer(NULL, 0, p), CL_INVALID_KERNEL);
    EXPECT_ERR(clSetKernelArgSVMPointer((cl_kernel)ctx, 0, p), CL_INVALID_KERNEL);
    /* CL_INVALID_ARG_INDEX if arg_index is not a valid argument index */
    EXPECT_ERR(clSetKernelArgSVMPointer(k, 3, p), CL_INVALID_ARG_INDEX);
    EXPECT_ERR(clSetKernelArgSVMPointer(k, 1000, p), CL_INVALID_ARG_INDEX);
    EXPECT_OK(clSetKernelArgSVMPointer(k, 0, p));
    EXPECT_OK(clSetKernelArgSVMPointer(k, 0, p + 3));

    /* clSetKernelExecInfo: CL_INVALID_KERNEL if kernel is a not a valid kernel object */
    void *ptrs[2] = {p, p + 8};
    EXPECT_ERR(clSetKernelExecInfo(NULL, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(ptrs), ptrs),
               CL_INVALID_KERNEL);
    EXPECT_ERR(clSetKernelExecInfo((cl_kernel)queue, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(ptrs),
                                   ptrs),
               CL_INVALID_KERNEL);
    /* A set of pointers (the pointer returned by clSVMAlloc or one into the
     * middle of an allocation); an empty set (size 0, value NULL). */
    EXPECT_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(ptrs), ptrs));
    EXPECT_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void *), ptrs + 1));
    EXPECT_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL));
    /* CL_INVALID_VALUE if param_name is not valid, if param_value is NULL and
     * param_value_size is greater than zero, or if the size specified by
     * param_value_size is not valid */
    EXPECT_ERR(clSetKernelExecInfo(k, 0x1234, sizeof(ptrs), ptrs), CL_INVALID_VALUE);
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(ptrs), NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 4, ptrs), CL_INVALID_VALUE);
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void *) + 4, ptrs),
               CL_INVALID_VALUE);
    const cl_bool yes = CL_TRUE, no = CL_FALSE;
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, &no),
               CL_INVALID_VALUE);
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(no),
                                   NULL),
               CL_INVALID_VALUE);
    /* CL_INVALID_OPERATION if param_name is CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM
     * and param_value is CL_TRUE and no devices in the context associated with
     * kernel support fine-grain system SVM allocations */
    EXPECT_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(yes),
                                   &yes),
               CL_INVALID_OPERATION);
    EXPECT_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(no), &no));
    clSVMFree(ctx, p);
}

/* n nodes in `slots` (node i at slots[i]), linked in that order, values
 * i * 37 - 500; returns the sum from node `from` on. The slots' memory
 * must be mapped for writing. */
static cl_long link_nodes(struct node **slots, int n, int from)
{
    cl_long sum = 0;
    for (int i = 0; i < n; i++) {
        slots[i]->next = i + 1 < n ? slots[i + 1] : NULL;
        slots[i]->value = (cl_long)i * 37 - 500;
        if (i >= from)
            sum += slots[i]->value;
    }
    return sum;
}

static void test_list_sum(cl_kernel k)
{
    /* One allocation: nodes in order, 2 of every 3 slots used, each node
     * pointing at the next used slot. */
    enum { N = 96, USED = 64 };
    struct node *a = svm_alloc(N * sizeof(struct node));
    cl_long *out = svm_alloc(4 * sizeof(cl_long));
    struct node *slots[N];
    for (int i = 0; i < USED; i++)
        slots[i] = &a[i + i / 2];
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, a,
                              N * sizeof(struct node), 0, NULL, NULL));
    const cl_long whole = link_nodes(slots, USED, 0);
    cl_long mid = 0;
    for (int i = 20; i < USED; i++)
        mid += slots[i]->value;
    EXPECT_OK(clEnqueueSVMUnmap(queue, a, 0, NULL, NULL));

    EXPECT_OK(clSetKernelArgSVMPointer(k, 0, a));
    EXPECT_OK(clSetKernelArgSVMPointer(k, 1, out));
    run1(k, 1);
    cl_long got = read_svm_long(out);
    EXPECT(got == whole, "list in one allocation: sum %lld, expected %lld", (long long)got,
           (long long)whole);
    /* From a node in the middle of the allocation (svm_ptr + k nodes). */
    EXPECT_OK(clSetKernelArgSVMPointer(k, 0, slots[20]));
    EXPECT_OK(clSetKernelArgSVMPointer(k, 1, out + 2));
    run1(k, 1);
    got = read_svm_long(out + 2);
    EXPECT(got == mid, "list from its 21st node: sum %lld, expected %lld", (long long)got,
           (long long)mid);

    /* Changed on the host between launches: the next launch sees it. */
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, slots[30],
                              sizeof(struct node), 0, NULL, NULL));
    EXPECT(slots[30]->value == 30 * 37 - 500 && slots[30]->next == slots[31],
           "node 30 mapped back: value %lld", (long long)slots[30]->value);
    slots[30]->value += 1000000;
    slots[30]->next = slots[40]; /* skips nodes 31..39 */
    EXPECT_OK(clEnqueueSVMUnmap(queue, slots[30], 0, NULL, NULL));
    cl_long skipped = 0;
    for (int i = 31; i < 40; i++)
        skipped += (cl_long)i * 37 - 500;
    run1(k, 1);
    got = read_svm_long(out + 2);
    EXPECT(got == mid + 1000000 - skipped, "after the host's change: sum %lld, expected %lld",
           (long long)got, (long long)(mid + 1000000 - skipped));

    /* Across three allocations, nodes scattered among them in a shuffled
     * order; the two not passed as arguments are named by
     * CL_KERNEL_EXEC_INFO_SVM_PTRS (one by a pointer into its middle). The
     * result goes to a buffer set with clSetKernelArg. */
    enum { PER = 40, M = 3 * PER };
    struct node *part[3] = {svm_alloc(PER * sizeof(struct node)),
                            svm_alloc(PER * sizeof(struct node)),
                            svm_alloc(PER * sizeof(struct node))};
    struct node *order[M];
    /* Slot i * 17 % PER (17 and PER coprime) of allocation (i + i / PER) % 3:
     * i, i + PER and i + 2 * PER share a slot index in three different
     * allocations, so every node has a slot of its own. */
    for (int i = 0; i < M; i++)
        order[i] = &part[(i + i / PER) % 3][(i * 17) % PER];
    for (int i = 0; i < M; i++)
        for (int j = i + 1; j < M; j++)
            REQUIRE(order[i] != order[j], "slot %d and %d collide", i, j);
    for (int i = 0; i < 3; i++)
        EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, part[i],
                                  PER * sizeof(struct node), 0, NULL, NULL));
    struct node *head = order[0]; /* in part[0] */
    const cl_long across = link_nodes(order, M, 0);
    for (int i = 0; i < 3; i++)
        EXPECT_OK(clEnqueueSVMUnmap(queue, part[i], 0, NULL, NULL));
    void *others[2] = {part[1], &part[2][PER / 2]};
    EXPECT_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(others), others));
    cl_int err = 0;
    cl_mem outbuf = clCreateBuffer(ctx, 0, sizeof(cl_long), NULL, &err);
    REQUIRE(outbuf, "buffer: %d", err);
    EXPECT_OK(clSetKernelArgSVMPointer(k, 0, head));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &outbuf));
    run1(k, 1);
    got = 0;
    EXPECT_OK(clEnqueueReadBuffer(queue, outbuf, CL_TRUE, 0, sizeof(got), &got, 0, NULL, NULL));
    EXPECT(got == across, "list across 3 allocations: sum %lld, expected %lld", (long long)got,
           (long long)across);

    EXPECT_OK(clFinish(queue));
    clReleaseMemObject(outbuf);
    for (int i = 0; i < 3; i++)
        clSVMFree(ctx, part[i]);
    clSVMFree(ctx, a);
    clSVMFree(ctx, out);
}

/* x[0..n) as the host sees it through a map, checked against want:
 * the count of differences; the first one's index and value in *first
 * and *first_got. */
static size_t check_floats(float *x, const float *want, size_t n, size_t *first,
                           float *first_got)
{
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, x, n * sizeof(float), 0, NULL, NULL));
    size_t bad = 0;
    *first = n;
    *first_got = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&x[i], &want[i], sizeof(float)) && !bad++) {
            *first = i;
            *first_got = x[i];
        }
    EXPECT_OK(clEnqueueSVMUnmap(queue, x, 0, NULL, NULL));
    EXPECT_OK(clFinish(queue));
    return bad;
}

static void test_scale(cl_kernel k)
{
    enum { N = 1000, OFF = 16, COUNT = N - 40 };
    float *x = svm_alloc(N * sizeof(float));
    float want[N];
    EXPECT_OK(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, x, sizeof(want), 0,
                              NULL, NULL));
    for (int i = 0; i < N; i++)
        x[i] = want[i] = (float)i * 0.25f + 1.0f;
    EXPECT_OK(clEnqueueSVMUnmap(queue, x, 0, NULL, NULL));

    /* An offset SVM pointer, more work-items than elements. */
    const float s = 2.5f;
    const cl_uint count = COUNT;
    EXPECT_OK(clSetKernelArgSVMPointer(k, 0, x + OFF));
    EXPECT_OK(clSetKernelArg(k, 1, sizeof(s), &s));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(count), &count));
    run1(k, COUNT + 13);
    for (int i = OFF; i < OFF + COUNT; i++)
        want[i] *= s;
    size_t first = 0;
    float fg = 0;
    size_t bad = check_floats(x, want, N, &first, &fg);
    EXPECT(!bad, "svm_scale on x + %d: %zu elements wrong, first %zu (%g, expected %g)", OFF, bad,
           first, (double)fg, first < N ? (double)want[first] : 0.0);

    /* A clone keeps the SVM argument. */
    cl_int err = 0;
    cl_kernel clone = clCloneKernel(k, &err);
    EXPECT(clone && err == CL_SUCCESS, "clCloneKernel: %d", err);
    if (clone) {
        run1(clone, COUNT);
        for (int i = OFF; i < OFF + COUNT; i++)
            want[i] *= s;
        bad = check_floats(x, want, N, &first, &fg);
        EXPECT(!bad, "the clone's svm_scale: %zu elements wrong, first %zu", bad, first);
        clReleaseKernel(clone);
    }

    /* A buffer made with CL_MEM_USE_HOST_PTR on an SVM pointer, set with
     * clSetKernelArg; its elements are those of the SVM range under it. */
    enum { BOFF = 100, BN = 256 };
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, BN * sizeof(float), x + BOFF, &err);
    EXPECT(buf && err == CL_SUCCESS, "buffer on an SVM pointer: %d", err);
    if (buf) {
        const float s2 = -0.5f;
        const cl_uint bn = BN;
        EXPECT_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &buf));
        EXPECT_OK(clSetKernelArg(k, 1, sizeof(s2), &s2));
        EXPECT_OK(clSetKernelArg(k, 2, sizeof(bn), &bn));
        run1(k, BN);
        for (int i = BOFF; i < BOFF + BN; i++)
            want[i] *= s2;
        bad = check_floats(x, want, N, &first, &fg);
        EXPECT(!bad, "svm_scale on a buffer on x + %d: %zu elements wrong, first %zu", BOFF, bad,
               first);
        /* And back to an SVM pointer for the same argument. */
        EXPECT_OK(clSetKernelArgSVMPointer(k, 0, x));
        run1(k, BN);
        for (int i = 0; i < BN; i++)
            want[i] *= s2;
        bad = check_floats(x, want, N, &first, &fg);
        EXPECT(!bad, "svm_scale on x after the buffer: %zu elements wrong, first %zu", bad,
               first);
        EXPECT_OK(clFinish(queue));
        clReleaseMemObject(buf);
    }
    clSVMFree(ctx, x);
}

/* Two devices share one context (HCQCL_EMU_GPUS=2: test
 * api_svm_kernel_2gpus): a list built on the host is summed on each
 * device, and svm_scale runs on device 0 then on device 1 over the same
 * elements. */
static void test_two_devices(cl_platform_id plat, const char *src, size_t len)
{
    cl_device_id devs[2];
    cl_uint nd = 0;
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 2, devs, &nd) != CL_SUCCESS || nd < 2) {
        printf("api_svm_kernel: one device: two-device SVM not tested\n");
        return;
    }
    cl_int err = 0;
    cl_context c2 = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
    REQUIRE(c2, "two-device context: %d", err);
    cl_command_queue q[2];
    for (int i = 0; i < 2; i++) {
        q[i] = clCreateCommandQueueWithProperties(c2, devs[i], NULL, &err);
        REQUIRE(q[i], "queue %d: %d", i, err);
    }
    cl_program p = clCreateProgramWithSource(c2, 1, &src, &len, &err);
    REQUIRE(p, "program: %d", err);
    err = clBuildProgram(p, 2, devs, SVM_KERNELS_OPTIONS, NULL, NULL);
    REQUIRE(err == CL_SUCCESS, "build for two devices: %d", err);
    cl_kernel sum = cltest_kernel(p, "svm_list_sum"), scale = cltest_kernel(p, "svm_scale");

    enum { N = 50 };
    struct node *a = clSVMAlloc(c2, 0, N * sizeof(struct node), 0);
    cl_long *out = clSVMAlloc(c2, 0, 2 * sizeof(cl_long), 0);
    float *x = clSVMAlloc(c2, 0, N * sizeof(float), 0);
    REQUIRE(a && out && x, "clSVMAlloc on a two-device context");
    struct node *slots[N];
    for (int i = 0; i < N; i++)
        slots[i] = &a[N - 1 - i]; /* linked backwards through the allocation */
    EXPECT_OK(clEnqueueSVMMap(q[0], CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, a,
                              N * sizeof(struct node), 0, NULL, NULL));
    const cl_long whole = link_nodes(slots, N, 0);
    EXPECT_OK(clEnqueueSVMUnmap(q[0], a, 0, NULL, NULL));
    EXPECT_OK(clFinish(q[0]));
    EXPECT_OK(clSetKernelArgSVMPointer(sum, 0, slots[0]));
    for (int i = 0; i < 2; i++) {
        EXPECT_OK(clSetKernelArgSVMPointer(sum, 1, out + i));
        size_t one = 1;
        EXPECT_OK(clEnqueueNDRangeKernel(q[i], sum, 1, NULL, &one, NULL, 0, NULL, NULL));
        EXPECT_OK(clFinish(q[i]));
    }
    EXPECT_OK(clEnqueueSVMMap(q[1], CL_TRUE, CL_MAP_READ, out, 2 * sizeof(cl_long), 0, NULL,
                              NULL));
    EXPECT(out[0] == whole && out[1] == whole, "sums on devices 0 and 1: %lld, %lld, expected %lld",
           (long long)out[0], (long long)out[1], (long long)whole);
    EXPECT_OK(clEnqueueSVMUnmap(q[1], out, 0, NULL, NULL));

    float want[N];
    EXPECT_OK(clEnqueueSVMMap(q[1], CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, x, sizeof(want), 0,
                              NULL, NULL));
    for (int i = 0; i < N; i++)
        x[i] = want[i] = (float)i + 0.5f;
    EXPECT_OK(clEnqueueSVMUnmap(q[1], x, 0, NULL, NULL));
    EXPECT_OK(clFinish(q[1]));
    const float f[2] = {3.0f, -0.25f};
    const cl_uint n = N;
    EXPECT_OK(clSetKernelArgSVMPointer(scale, 0, x));
    EXPECT_OK(clSetKernelArg(scale, 2, sizeof(n), &n));
    for (int i = 0; i < 2; i++) {
        EXPECT_OK(clSetKernelArg(scale, 1, sizeof(f[i]), &f[i]));
        size_t gws = N;
        EXPECT_OK(clEnqueueNDRangeKernel(q[i], scale, 1, NULL, &gws, NULL, 0, NULL, NULL));
        EXPECT_OK(clFinish(q[i]));
        for (int j = 0; j < N; j++)
            want[j] *= f[i];
    }
    EXPECT_OK(clEnqueueSVMMap(q[0], CL_TRUE, CL_MAP_READ, x, sizeof(want), 0, NULL, NULL));
    EXPECT(!memcmp(x, want, sizeof(want)), "svm_scale on device 0 then device 1");
    EXPECT_OK(clEnqueueSVMUnmap(q[0], x, 0, NULL, NULL));

    for (int i = 0; i < 2; i++)
        EXPECT_OK(clFinish(q[i]));
    clSVMFree(c2, a);
    clSVMFree(c2, out);
    clSVMFree(c2, x);
    clReleaseKernel(sum);
    clReleaseKernel(scale);
    clReleaseProgram(p);
    for (int i = 0; i < 2; i++)
        clReleaseCommandQueue(q[i]);
    clReleaseContext(c2);
}

int main(void)
{
    cl_platform_id plat;
    cl_device_id dev;
    cltest_setup(&plat, &dev, &ctx, &queue);
    cl_device_svm_capabilities caps = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL));
    EXPECT(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER, "no coarse-grain buffer SVM: 0x%llx",
           (unsigned long long)caps);
    size_t len = 0;
    char *src = test_file_read("svm_kernels.cl", &len);
    REQUIRE(src, "svm_kernels.cl beside the test");
    cl_program p = cltest_source_program(ctx, dev, src, len, SVM_KERNELS_OPTIONS);
    cl_kernel sum = cltest_kernel(p, "svm_list_sum");
    cl_kernel scale = cltest_kernel(p, "svm_scale");
    if (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
        test_arg_errors(scale);
        test_list_sum(sum);
        test_scale(scale);
        test_two_devices(plat, src, len);
    }
    free(src);
    clReleaseKernel(sum);
    clReleaseKernel(scale);
    clReleaseProgram(p);
    cltest_teardown(ctx, queue);
    return cltest_result("api_svm_kernel");
}

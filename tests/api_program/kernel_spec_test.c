/*
 * kernel_spec_test.c — kernel objects and launches through the ICD loader,
 * against the specification's wording: image arguments of the depth types,
 * which no image of the device can be given; argument values and buffers
 * a launch keeps from its enqueue (in-order and out-of-order queues, a
 * launch held back by a user event, the queue's shorter way for launches
 * without an event); a clone's own copy of the arguments.
 *
 * Arguments: none. Data: ${HCQCL_TEST_DATA}/test_kernels.cubin (vadd, run
 * by its host version on the emulated device). The OpenCL C program needs
 * hcqcl-cc (HCQCL_CC set by the build); its kernels are not run.
 */
#include "../api_platform/cltest.h"

#include <stdint.h>

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;

enum { N = 256 };

/* vadd(a, b, c, k, n) of the test cubin with c[i] = a[i] + b[i] + k over
 * N items, a = b = i: its buffers in *a and *c. */
static cl_kernel vadd_kernel(cl_program p, cl_mem *a, cl_mem *c, int k)
{
    float host[N];
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    cl_int err;
    *a = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(host), host, &err);
    REQUIRE(*a, "buffer: %d", err);
    *c = clCreateBuffer(ctx, 0, sizeof(host), NULL, &err);
    REQUIRE(*c, "buffer: %d", err);
    cl_kernel kern = cltest_kernel(p, "vadd");
    const int n = N;
    EXPECT_OK(clSetKernelArg(kern, 0, sizeof(*a), a));
    EXPECT_OK(clSetKernelArg(kern, 1, sizeof(*a), a));
    EXPECT_OK(clSetKernelArg(kern, 2, sizeof(*c), c));
    EXPECT_OK(clSetKernelArg(kern, 3, sizeof(k), &k));
    EXPECT_OK(clSetKernelArg(kern, 4, sizeof(n), &n));
    return kern;
}

/* c holds 2i + k. */
static void expect_vadd(cl_command_queue q, cl_mem c, int k, const char *what)
{
    float out[N];
    EXPECT_OK(clEnqueueReadBuffer(q, c, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != (float)(2 * i + k);
    EXPECT(bad == 0, "%s: %d of %d wrong (c[1] = %g, want %d)", what, bad, N, (double)out[1],
           2 + k);
}

/* "The argument data is used by all API calls that enqueue the kernel
 * until the argument is changed by another call to clSetKernelArg": a
 * launch that cannot start yet (its wait list holds a user event) runs with
 * the values of its enqueue, and its buffers outlive the application's
 * release of them and of the kernel. */
static void test_launch_keeps_arguments(cl_command_queue q, const char *what)
{
    cl_program p = cltest_program(ctx, dev, "test_kernels.cubin");
    cl_mem a, c;
    cl_kernel k = vadd_kernel(p, &a, &c, 5);
    cl_int err;
    cl_mem other = clCreateBuffer(ctx, 0, N * sizeof(float), NULL, &err);
    REQUIRE(other, "buffer: %d", err);
    cl_event gate = clCreateUserEvent(ctx, &err);
    REQUIRE(gate, "user event: %d", err);
    const size_t g = N, l = 64;
    cl_event ev = NULL;
    EXPECT_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 1, &gate, &ev));
    const int later = 1000;
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(later), &later));
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(other), &other));
    EXPECT_OK(clReleaseMemObject(a));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    EXPECT_OK(clWaitForEvents(1, &ev));
    expect_vadd(q, c, 5, what);
    clReleaseEvent(ev);
    clReleaseEvent(gate);
    clReleaseMemObject(c);
    clReleaseMemObject(other);
    clReleaseProgram(p);
}

/* The same for launches without an event on an in-order queue (the
 * queue's shorter way, the second one a repeat of the first), held back
 * by a marker that waits for a user event. */
static void test_lite_launch_keeps_arguments(void)
{
    cl_program p = cltest_program(ctx, dev, "test_kernels.cubin");
    cl_mem a, c;
    cl_kernel k = vadd_kernel(p, &a, &c, 5);
    const size_t g = N, l = 64;
    EXPECT_OK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 0, NULL, NULL));
    EXPECT_OK(clFinish(queue));
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    REQUIRE(gate, "user event: %d", err);
    EXPECT_OK(clEnqueueMarkerWithWaitList(queue, 1, &gate, NULL));
    EXPECT_OK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 0, NULL, NULL));
    EXPECT_OK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 0, NULL, NULL));
    const int later = 1000;
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(later), &later));
    EXPECT_OK(clReleaseMemObject(a));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    expect_vadd(queue, c, 5, "launches without an event");
    clReleaseEvent(gate);
    clReleaseMemObject(c);
    clReleaseProgram(p);
}

/* clCloneKernel: "a shallow copy of the kernel object, its arguments";
 * "Setting arguments on the new kernel object will not affect
 * source_kernel" (nor the other way round); a kernel not ready to enqueue
 * gives a clone that is not either. */
static void test_clone_arguments(void)
{
    cl_program p = cltest_program(ctx, dev, "test_kernels.cubin");
    cl_mem a, c;
    cl_kernel k = vadd_kernel(p, &a, &c, 5);
    cl_int err;
    cl_kernel fresh = cltest_kernel(p, "vadd");
    cl_kernel unset = clCloneKernel(fresh, &err);
    EXPECT(unset && err == CL_SUCCESS, "clone: %d", err);
    const size_t g = N, l = 64;
    if (unset)
        EXPECT_ERR(clEnqueueNDRangeKernel(queue, unset, 1, NULL, &g, &l, 0, NULL, NULL),
                   CL_INVALID_KERNEL_ARGS);
    cl_kernel clone = clCloneKernel(k, &err);
    REQUIRE(clone && err == CL_SUCCESS, "clone: %d", err);
    const int later = 1000;
    EXPECT_OK(clSetKernelArg(k, 3, sizeof(later), &later));
    EXPECT_OK(clReleaseKernel(k));
    EXPECT_OK(clEnqueueNDRangeKernel(queue, clone, 1, NULL, &g, &l, 0, NULL, NULL));
    expect_vadd(queue, c, 5, "clone");
    if (unset)
        clReleaseKernel(unset);
    clReleaseKernel(fresh);
    clReleaseKernel(clone);
    clReleaseMemObject(a);
    clReleaseMemObject(c);
    clReleaseProgram(p);
}

/* "The memory object specified as argument value must be a 2D image
 * object with image channel order = CL_DEPTH if the argument is declared
 * to be of type image2d_depth_t", a 2D image array with CL_DEPTH for
 * image2d_array_depth_t; CL_INVALID_MEM_OBJECT for an argument declared to
 * be a memory object when arg_value is not a valid memory object. The
 * device offers no CL_DEPTH format: no image can be such an argument. */
static const char *depth_src =
    "kernel void depth_args(read_only image2d_depth_t d, read_only image2d_array_depth_t da,\n"
    "                       read_only image2d_t im, global float *o)\n"
    "{\n"
    "    o[0] = (float)get_image_width(im);\n"
    "}\n";

static void test_depth_image_arguments(void)
{
    if (!getenv("HCQCL_CC")) {
        printf("api_kernel_spec: HCQCL_CC not set: depth image arguments not tested\n");
        return;
    }
    cl_bool images = CL_FALSE;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL));
    if (!images)
        return;
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &depth_src, NULL, &err);
    REQUIRE(p, "clCreateProgramWithSource: %d", err);
    err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
    if (err != CL_SUCCESS && !cltest_compiler_here()) {
        /* A machine with only the kernel cache, which did not hold it. */
        printf("api_kernel_spec: no compiler here: depth image arguments not tested\n");
        clReleaseProgram(p);
        return;
    }
    if (err != CL_SUCCESS)
        cltest_print_build_log(p, dev);
    REQUIRE(err == CL_SUCCESS, "clBuildProgram: %d", err);
    cl_kernel k = cltest_kernel(p, "depth_args");
    const cl_image_format f = {CL_R, CL_FLOAT};
    const cl_image_desc d2 = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 1, 0);
    const cl_image_desc d2a = cltest_image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 1, 2);
    const cl_image_desc d3 = cltest_image_desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0);
    cl_int e1, e2, e3;
    cl_mem i2 = clCreateImage(ctx, CL_MEM_READ_ONLY, &f, &d2, NULL, &e1);
    cl_mem i2a = clCreateImage(ctx, CL_MEM_READ_ONLY, &f, &d2a, NULL, &e2);
    cl_mem i3 = clCreateImage(ctx, CL_MEM_READ_ONLY, &f, &d3, NULL, &e3);
    REQUIRE(i2 && i2a && i3, "images: %d %d %d", e1, e2, e3);
    /* A depth format is not among those the device offers. */
    const cl_image_format depth = {CL_DEPTH, CL_FLOAT};
    cl_mem di = clCreateImage(ctx, CL_MEM_READ_ONLY, &depth, &d2, NULL, &err);
    EXPECT(!di && err == CL_IMAGE_FORMAT_NOT_SUPPORTED, "CL_DEPTH image: %d", err);
    if (di)
        clReleaseMemObject(di);

    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &i2), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &i3), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(k, 1, sizeof(cl_mem), &i2a), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(k, 1, sizeof(cl_mem), &i2), CL_INVALID_MEM_OBJECT);
    /* The image2d_t argument beside them takes the 2D image. */
    EXPECT_OK(clSetKernelArg(k, 2, sizeof(cl_mem), &i2));
    EXPECT_ERR(clSetKernelArg(k, 2, sizeof(cl_mem), &i2a), CL_INVALID_MEM_OBJECT);

    clReleaseMemObject(i2);
    clReleaseMemObject(i2a);
    clReleaseMemObject(i3);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

int main(void)
{
    REQUIRE(getenv("HCQCL_TEST_DATA"), "HCQCL_TEST_DATA not set");
    cl_platform_id plat;
    cltest_setup(&plat, &dev, &ctx, &queue);

    test_launch_keeps_arguments(queue, "in-order queue");
    const cl_queue_properties ooo_props[] = {CL_QUEUE_PROPERTIES,
                                             CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    cl_int err;
    cl_command_queue ooo = clCreateCommandQueueWithProperties(ctx, dev, ooo_props, &err);
    REQUIRE(ooo, "out-of-order queue: %d", err);
    test_launch_keeps_arguments(ooo, "out-of-order queue");
    clReleaseCommandQueue(ooo);
    test_lite_launch_keeps_arguments();
    test_clone_arguments();
    test_depth_image_arguments();

    cltest_teardown(ctx, queue);
    return cltest_result("api_kernel_spec");
}

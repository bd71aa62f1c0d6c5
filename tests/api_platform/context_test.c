/*
 * context_test.c — contexts from device lists and from types, properties,
 * every creation error, info queries, reference counts and destructor
 * callbacks (order and timing), through the loader.
 */
#include "cltest.h"

static cl_context destroyed[8];
static int order[8];
static int calls;

static cl_int info_in_callback = 1;
static void CL_CALLBACK on_destroy(cl_context c, void *user_data)
{
    if (calls < 8) {
        destroyed[calls] = c;
        order[calls] = (int)(intptr_t)user_data;
    }
    /* "When the callback function is called by the implementation, this
     * context is no longer valid. context is only provided for reference
     * purposes." */
    cl_uint n = 0;
    info_in_callback = clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof(n), &n, NULL);
    calls++;
}

static void CL_CALLBACK on_error(const char *info, const void *priv, size_t cb, void *user)
{
    (void)info, (void)priv, (void)cb, (void)user;
}

static cl_uint refcount(cl_context c)
{
    cl_uint r = 0;
    EXPECT_OK(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof(r), &r, NULL));
    return r;
}

static void check_devices(cl_context c, const cl_device_id *want, cl_uint n)
{
    cl_uint num = 0;
    size_t size = 0;
    EXPECT_OK(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof(num), &num, &size));
    EXPECT(num == n && size == sizeof(cl_uint), "%u devices (size %zu), expected %u", num, size, n);
    cl_device_id got[8] = {0};
    EXPECT_OK(clGetContextInfo(c, CL_CONTEXT_DEVICES, 0, NULL, &size));
    EXPECT(size == n * sizeof(cl_device_id), "devices size %zu", size);
    if (size <= sizeof(got)) {
        EXPECT_OK(clGetContextInfo(c, CL_CONTEXT_DEVICES, size, got, NULL));
        for (cl_uint i = 0; i < n; i++)
            EXPECT(got[i] == want[i], "device %u differs", i);
    }
    if (size)
        EXPECT_ERR(clGetContextInfo(c, CL_CONTEXT_DEVICES, size - 1, got, NULL), CL_INVALID_VALUE);
}

static void test_basic(cl_platform_id p, const cl_device_id *devs, cl_uint n)
{
    cl_int err = 1;
    cl_context c = clCreateContext(NULL, n, devs, NULL, NULL, &err);
    REQUIRE(c && err == CL_SUCCESS, "clCreateContext: %d", err);
    EXPECT(refcount(c) == 1, "fresh context refcount %u", refcount(c));
    check_devices(c, devs, n);
    size_t size = 99;
    EXPECT_OK(clGetContextInfo(c, CL_CONTEXT_PROPERTIES, 0, NULL, &size));
    EXPECT(size == 0, "properties size %zu without properties", size);
    char buf[8];
    EXPECT_ERR(clGetContextInfo(c, 0x7777, sizeof(buf), buf, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, 2, buf, NULL), CL_INVALID_VALUE);
    /* The formats of a read-write 2D image (api_image checks them one by
     * one): 80, sRGBA being for read-only images only. */
    cl_uint nf = 99;
    EXPECT_OK(
        clGetSupportedImageFormats(c, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nf));
    EXPECT(nf == 80, "%u image formats", nf);
    EXPECT_ERR(clGetSupportedImageFormats(c, CL_MEM_READ_WRITE, 0x1234, 0, NULL, &nf),
               CL_INVALID_VALUE);
    /* Flags follow the memory-flag rules: one of each exclusive group. */
    EXPECT_ERR(clGetSupportedImageFormats(c, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                                          CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nf),
               CL_INVALID_VALUE);
    EXPECT_ERR(clGetSupportedImageFormats(c, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
                                          CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nf),
               CL_INVALID_VALUE);
    EXPECT_OK(clGetSupportedImageFormats(c, CL_MEM_KERNEL_READ_AND_WRITE | CL_MEM_HOST_NO_ACCESS,
                                         CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nf));
    /* No on-device queues: the device is checked before that answer. */
    EXPECT_ERR(clSetDefaultDeviceCommandQueue(c, NULL, NULL), CL_INVALID_DEVICE);
    EXPECT_ERR(clSetDefaultDeviceCommandQueue(c, (cl_device_id)c, NULL), CL_INVALID_DEVICE);
    EXPECT_ERR(clSetDefaultDeviceCommandQueue(c, devs[0], NULL), CL_INVALID_OPERATION);

    EXPECT_OK(clRetainContext(c));
    EXPECT(refcount(c) == 2, "refcount after retain %u", refcount(c));
    EXPECT_OK(clReleaseContext(c));
    EXPECT(refcount(c) == 1, "refcount after release %u", refcount(c));

    /* Destructor callbacks: last registered runs first, at destruction only. */
    calls = 0;
    for (intptr_t i = 1; i <= 3; i++)
        EXPECT_OK(clSetContextDestructorCallback(c, on_destroy, (void *)i));
    EXPECT_ERR(clSetContextDestructorCallback(c, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_OK(clRetainContext(c));
    EXPECT_OK(clReleaseContext(c));
    EXPECT(calls == 0, "callbacks ran before the last release");
    EXPECT_OK(clReleaseContext(c));
    EXPECT(calls == 3 && order[0] == 3 && order[1] == 2 && order[2] == 1,
           "callbacks: %d calls, order %d %d %d", calls, order[0], order[1], order[2]);
    for (int i = 0; i < 3 && i < calls; i++)
        EXPECT(destroyed[i] == c, "callback %d got another context", i);
    EXPECT(info_in_callback == CL_INVALID_CONTEXT, "a query in the destructor callback: %d",
           info_in_callback);

    /* Wrong handle types reach hcqcl and are refused. */
    cl_uint r;
    EXPECT_ERR(
        clGetContextInfo((cl_context)devs[0], CL_CONTEXT_REFERENCE_COUNT, sizeof(r), &r, NULL),
        CL_INVALID_CONTEXT);
    EXPECT_ERR(clRetainContext((cl_context)devs[0]), CL_INVALID_CONTEXT);
    EXPECT_ERR(clReleaseContext((cl_context)p), CL_INVALID_CONTEXT);
    EXPECT_ERR(clSetContextDestructorCallback((cl_context)devs[0], on_destroy, NULL),
               CL_INVALID_CONTEXT);
}

static void test_properties(cl_platform_id p, const cl_device_id *devs, cl_uint n)
{
    cl_int err = 1;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p,
                                     CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, 0};
    cl_context c = clCreateContext(props, n, devs, on_error, &err, &err);
    REQUIRE(c && err == CL_SUCCESS, "clCreateContext with properties: %d", err);
    cl_context_properties got[8] = {0};
    size_t size = 0;
    EXPECT_OK(clGetContextInfo(c, CL_CONTEXT_PROPERTIES, sizeof(got), got, &size));
    EXPECT(size == sizeof(props) && !memcmp(got, props, sizeof(props)),
           "properties not returned as passed (size %zu)", size);
    EXPECT_OK(clReleaseContext(c));

    /* errcode_ret may be NULL. */
    c = clCreateContext(props, n, devs, NULL, NULL, NULL);
    EXPECT(c != NULL, "creation without errcode_ret");
    if (c)
        EXPECT_OK(clReleaseContext(c));

    struct {
        cl_context_properties props[6];
        cl_int want;
        const char *what;
    } bad[] = {
        {{0x7777, 1, 0}, CL_INVALID_PROPERTY, "unknown property"},
        {{CL_CONTEXT_INTEROP_USER_SYNC, 7, 0}, CL_INVALID_PROPERTY, "bad user-sync value"},
        {{CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, CL_CONTEXT_INTEROP_USER_SYNC, CL_FALSE, 0},
         CL_INVALID_PROPERTY,
         "user sync twice"},
        {{CL_CONTEXT_PLATFORM, (cl_context_properties)p, CL_CONTEXT_PLATFORM,
          (cl_context_properties)p, 0},
         CL_INVALID_PROPERTY,
         "platform twice"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err = 1;
        c = clCreateContext(bad[i].props, n, devs, NULL, NULL, &err);
        EXPECT(c == NULL && err == bad[i].want, "%s: %p, %d (want %d)", bad[i].what, (void *)c, err,
               bad[i].want);
        err = 1;
        c = clCreateContextFromType(bad[i].props[0] == CL_CONTEXT_PLATFORM ? bad[i].props : NULL,
                                    CL_DEVICE_TYPE_GPU, NULL, NULL, &err);
        if (bad[i].props[0] == CL_CONTEXT_PLATFORM)
            EXPECT(c == NULL && err == bad[i].want, "from type, %s: %d", bad[i].what, err);
        else if (c)
            clReleaseContext(c);
    }
}

static void test_errors(cl_platform_id p, const cl_device_id *devs, cl_uint n)
{
    cl_int err = 1;
    cl_context c;
    /* CL_INVALID_VALUE: no devices, zero devices, user_data without pfn_notify. */
    c = clCreateContext(NULL, 0, devs, NULL, NULL, &err);
    EXPECT(c == NULL && err == CL_INVALID_VALUE, "num_devices 0: %d", err);
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
    c = clCreateContext(props, 1, NULL, NULL, NULL, &err);
    EXPECT(c == NULL && err == CL_INVALID_VALUE, "devices NULL: %d", err);
    c = clCreateContext(props, 0, devs, NULL, NULL, &err);
    EXPECT(c == NULL && err == CL_INVALID_VALUE, "num_devices 0 with platform: %d", err);
    int data;
    c = clCreateContext(NULL, n, devs, NULL, &data, &err);
    EXPECT(c == NULL && err == CL_INVALID_VALUE, "user_data without pfn_notify: %d", err);
    c = clCreateContextFromType(props, CL_DEVICE_TYPE_GPU, NULL, &data, &err);
    EXPECT(c == NULL && err == CL_INVALID_VALUE, "from type, user_data without notify: %d", err);
    /* CL_INVALID_DEVICE: a handle that is not a device. */
    cl_device_id mixed[2] = {devs[0], (cl_device_id)p};
    c = clCreateContext(NULL, 2, mixed, NULL, NULL, &err);
    EXPECT(c == NULL && err == CL_INVALID_DEVICE, "platform as device: %d", err);

    /* Duplicates are ignored. */
    cl_device_id twice[2] = {devs[0], devs[0]};
    c = clCreateContext(NULL, 2, twice, NULL, NULL, &err);
    EXPECT(c && err == CL_SUCCESS, "duplicate devices: %d", err);
    if (c) {
        check_devices(c, devs, 1);
        clReleaseContext(c);
    }
}

static void test_from_type(cl_platform_id p, const cl_device_id *devs, cl_uint n)
{
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
    cl_int err = 1;
    cl_context c = clCreateContextFromType(props, CL_DEVICE_TYPE_GPU, NULL, NULL, &err);
    EXPECT(c && err == CL_SUCCESS, "GPU context: %d", err);
    if (c) {
        check_devices(c, devs, n);
        clReleaseContext(c);
    }
    c = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, NULL, NULL, &err);
    EXPECT(c && err == CL_SUCCESS, "ALL context: %d", err);
    if (c) {
        check_devices(c, devs, n);
        clReleaseContext(c);
    }
    c = clCreateContextFromType(props, CL_DEVICE_TYPE_DEFAULT, NULL, NULL, &err);
    EXPECT(c && err == CL_SUCCESS, "DEFAULT context: %d", err);
    if (c) {
        check_devices(c, devs, 1);
        clReleaseContext(c);
    }
    c = clCreateContextFromType(props, CL_DEVICE_TYPE_CPU, NULL, NULL, &err);
    EXPECT(c == NULL && err == CL_DEVICE_NOT_FOUND, "CPU context: %d", err);
    c = clCreateContextFromType(props, 0, NULL, NULL, &err);
    EXPECT(c == NULL && err == CL_INVALID_DEVICE_TYPE, "type 0: %d", err);
}

/* Contexts on every device at once and one per device, interleaved. */
static void test_many(const cl_device_id *devs, cl_uint n)
{
    cl_context cs[8];
    cl_int err;
    for (cl_uint i = 0; i < n; i++) {
        cs[i] = clCreateContext(NULL, 1, &devs[i], NULL, NULL, &err);
        EXPECT(cs[i] && err == CL_SUCCESS, "context on device %u: %d", i, err);
    }
    cl_context all = clCreateContext(NULL, n, devs, NULL, NULL, &err);
    EXPECT(all && err == CL_SUCCESS, "context on all %u devices: %d", n, err);
    for (cl_uint i = 0; i < n; i++)
        if (cs[i])
            EXPECT_OK(clReleaseContext(cs[i]));
    if (all) {
        check_devices(all, devs, n);
        EXPECT_OK(clReleaseContext(all));
    }
}

int main(void)
{
    cl_platform_id p = cltest_platform();
    REQUIRE(p != NULL, "the loader does not list the hcqcl platform");
    cl_device_id devs[8];
    cl_uint n = 0;
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 8, devs, &n);
    cl_uint want = cltest_expected_devices();
    REQUIRE(n > 0, "no device: a context test cannot pass without one");
    REQUIRE(!want || n == want, "%u devices, expected exactly %u", n, want);
    if (n > 8)
        n = 8;
    test_basic(p, devs, n);
    test_properties(p, devs, n);
    test_errors(p, devs, n);
    test_from_type(p, devs, n);
    test_many(devs, n);
    return cltest_result("api_context");
}

/*
 * errors.c — every error path of the buffer-transfer entry points, through
 * the ICD loader: invalid handles of the wrong type, other contexts, bounds,
 * NULL pointers, pitches, fill patterns, map flags, host-access flags,
 * copy overlaps, wait lists and failed dependencies.
 */
#include "xfer_test.h"

static struct xt t;
static cl_context ctx2;
static cl_command_queue q2;
static cl_mem buf, buf2, other_ctx_buf;
static cl_event ev_other_ctx;
static char host[4096];

enum { SZ = 1024 };

/* Wait-list errors every enqueue shares; `enq` enqueues with the list. */
#define CHECK_WAIT_LISTS(enq_with_list)                                                   \
    do {                                                                                  \
        cl_event bogus_ = (cl_event)buf;                                                  \
        cl_uint n_;                                                                       \
        const cl_event *wl_;                                                              \
        n_ = 1, wl_ = NULL;                                                               \
        EXPECT_ERR(CL_INVALID_EVENT_WAIT_LIST, enq_with_list);                            \
        n_ = 0, wl_ = &bogus_;                                                            \
        EXPECT_ERR(CL_INVALID_EVENT_WAIT_LIST, enq_with_list);                            \
        n_ = 1, wl_ = &bogus_;                                                            \
        EXPECT_ERR(CL_INVALID_EVENT_WAIT_LIST, enq_with_list);                            \
        n_ = 1, wl_ = &ev_other_ctx;                                                      \
        EXPECT_ERR(CL_INVALID_CONTEXT, enq_with_list);                                    \
    } while (0)

static void test_read_write(void)
{
    cl_command_queue notq = (cl_command_queue)t.ctx;
    /* CL_INVALID_COMMAND_QUEUE: an object of another type */
    EXPECT_ERR(CL_INVALID_COMMAND_QUEUE,
               clEnqueueReadBuffer(notq, buf, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_COMMAND_QUEUE,
               clEnqueueWriteBuffer(notq, buf, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    /* CL_INVALID_MEM_OBJECT */
    EXPECT_ERR(CL_INVALID_MEM_OBJECT,
               clEnqueueReadBuffer(t.q, NULL, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT,
               clEnqueueWriteBuffer(t.q, (cl_mem)t.q, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    /* CL_INVALID_CONTEXT: buffer of another context */
    EXPECT_ERR(CL_INVALID_CONTEXT,
               clEnqueueReadBuffer(t.q, other_ctx_buf, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_CONTEXT,
               clEnqueueWriteBuffer(t.q, other_ctx_buf, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    /* CL_INVALID_VALUE: out of bounds (also when offset + size wraps), NULL ptr */
    EXPECT_ERR(CL_INVALID_VALUE,
               clEnqueueReadBuffer(t.q, buf, CL_TRUE, SZ - 3, 4, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE,
               clEnqueueReadBuffer(t.q, buf, CL_TRUE, SZ + 1, 0, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE,
               clEnqueueWriteBuffer(t.q, buf, CL_TRUE, 8, SIZE_MAX - 4, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE,
               clEnqueueWriteBuffer(t.q, buf, CL_TRUE, 0, SZ + 1, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueReadBuffer(t.q, buf, CL_TRUE, 0, 4, NULL, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueWriteBuffer(t.q, buf, CL_TRUE, 0, 4, NULL, 0, NULL, NULL));
    /* Edges that are fine: the whole buffer, an empty transfer at the end */
    EXPECT_OK(clEnqueueWriteBuffer(t.q, buf, CL_TRUE, 0, SZ, host, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(t.q, buf, CL_TRUE, SZ, 0, host, 0, NULL, NULL));
    CHECK_WAIT_LISTS(clEnqueueReadBuffer(t.q, buf, CL_TRUE, 0, 4, host, n_, wl_, NULL));
    CHECK_WAIT_LISTS(clEnqueueWriteBuffer(t.q, buf, CL_TRUE, 0, 4, host, n_, wl_, NULL));

    /* CL_INVALID_OPERATION: host access flags */
    cl_mem wo = xt_buffer(&t, CL_MEM_HOST_WRITE_ONLY, SZ, NULL);
    cl_mem ro = xt_buffer(&t, CL_MEM_HOST_READ_ONLY, SZ, NULL);
    cl_mem na = xt_buffer(&t, CL_MEM_HOST_NO_ACCESS, SZ, NULL);
    EXPECT_ERR(CL_INVALID_OPERATION, clEnqueueReadBuffer(t.q, wo, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    EXPECT_OK(clEnqueueWriteBuffer(t.q, wo, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_OPERATION, clEnqueueWriteBuffer(t.q, ro, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    EXPECT_OK(clEnqueueReadBuffer(t.q, ro, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_OPERATION, clEnqueueReadBuffer(t.q, na, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_OPERATION, clEnqueueWriteBuffer(t.q, na, CL_TRUE, 0, 4, host, 0, NULL, NULL));
    /* Copies and fills ignore the host-access flags */
    EXPECT_OK(clEnqueueCopyBuffer(t.q, na, wo, 0, 0, SZ, 0, NULL, NULL));
    cl_uint pat = 7;
    EXPECT_OK(clEnqueueFillBuffer(t.q, na, &pat, 4, 0, SZ, 0, NULL, NULL));
    EXPECT_OK(clFinish(t.q));
    clReleaseMemObject(wo);
    clReleaseMemObject(ro);
    clReleaseMemObject(na);

    /* CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: a blocking call after a
     * failed event. What a queue does after a command was terminated is
     * implementation-defined, so this runs on a queue of its own. */
    cl_int err;
    cl_command_queue fq = clCreateCommandQueueWithProperties(t.ctx, t.dev, NULL, &err);
    REQUIRE(err == CL_SUCCESS);
    cl_event failed = clCreateUserEvent(t.ctx, &err);
    REQUIRE(err == CL_SUCCESS);
    EXPECT_OK(clSetUserEventStatus(failed, -1));
    EXPECT_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
               clEnqueueReadBuffer(fq, buf, CL_TRUE, 0, 4, host, 1, &failed, NULL));
    EXPECT_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
               clEnqueueWriteBuffer(fq, buf, CL_TRUE, 0, 4, host, 1, &failed, NULL));
    size_t o[3] = {0, 0, 0}, r[3] = {4, 1, 1};
    EXPECT_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
               clEnqueueReadBufferRect(fq, buf, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 1, &failed,
                                       NULL));
    EXPECT_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
               clEnqueueWriteBufferRect(fq, buf, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 1, &failed,
                                        NULL));
    /* Non-blocking: enqueued; its event reports the failure */
    cl_event ev = NULL;
    EXPECT_OK(clEnqueueReadBuffer(fq, buf, CL_FALSE, 0, 4, host, 1, &failed, &ev));
    if (ev) {
        cl_int st = 0;
        clWaitForEvents(1, &ev);
        EXPECT_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
        EXPECT(st < 0);
        clReleaseEvent(ev);
    }
    /* Blocking map after a failed event: no pointer, no mapping left */
    void *p = clEnqueueMapBuffer(fq, buf, CL_TRUE, CL_MAP_READ, 0, 4, 1, &failed, NULL, &err);
    EXPECT(!p && err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    cl_uint count = 1;
    EXPECT_OK(clGetMemObjectInfo(buf, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL));
    EXPECT(count == 0);
    clReleaseEvent(failed);
    clFinish(fq);
    clReleaseCommandQueue(fq);
}

static void test_copy(void)
{
    EXPECT_ERR(CL_INVALID_COMMAND_QUEUE,
               clEnqueueCopyBuffer((cl_command_queue)buf, buf, buf2, 0, 0, 4, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(t.q, NULL, buf2, 0, 0, 4, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(t.q, buf, NULL, 0, 0, 4, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT,
               clEnqueueCopyBuffer(t.q, buf, (cl_mem)t.ctx, 0, 0, 4, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_CONTEXT,
               clEnqueueCopyBuffer(t.q, other_ctx_buf, buf2, 0, 0, 4, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_CONTEXT,
               clEnqueueCopyBuffer(t.q, buf, other_ctx_buf, 0, 0, 4, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueCopyBuffer(t.q, buf, buf2, SZ - 3, 0, 4, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueCopyBuffer(t.q, buf, buf2, 0, SZ - 3, 4, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE,
               clEnqueueCopyBuffer(t.q, buf, buf2, 16, 0, SIZE_MAX - 8, 0, NULL, NULL));
    /* CL_MEM_COPY_OVERLAP: same buffer; sub-buffers of one buffer */
    EXPECT_ERR(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(t.q, buf, buf, 0, 8, 16, 0, NULL, NULL));
    EXPECT_ERR(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(t.q, buf, buf, 8, 0, 16, 0, NULL, NULL));
    EXPECT_OK(clEnqueueCopyBuffer(t.q, buf, buf, 0, 16, 16, 0, NULL, NULL));
    cl_buffer_region r1 = {0, 512}, r2 = {256, 512};
    cl_int err;
    cl_mem s1 = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
    REQUIRE(err == CL_SUCCESS);
    cl_mem s2 = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
    REQUIRE(err == CL_SUCCESS);
    /* s1[300..316) is buf[300..316) = s2[44..60) */
    EXPECT_ERR(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(t.q, s1, s2, 300, 50, 16, 0, NULL, NULL));
    EXPECT_ERR(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(t.q, s1, buf, 0, 8, 16, 0, NULL, NULL));
    EXPECT_OK(clEnqueueCopyBuffer(t.q, s1, s2, 0, 0, 256, 0, NULL, NULL));
    EXPECT_OK(clEnqueueCopyBuffer(t.q, s2, s1, 256, 0, 256, 0, NULL, NULL));
    /* CL_MISALIGNED_SUB_BUFFER_OFFSET: such a sub-buffer can't even be made */
    cl_buffer_region bad = {3, 16};
    cl_mem mis = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &bad, &err);
    EXPECT(mis == NULL && err == CL_MISALIGNED_SUB_BUFFER_OFFSET);
    clReleaseMemObject(s1);
    clReleaseMemObject(s2);
    CHECK_WAIT_LISTS(clEnqueueCopyBuffer(t.q, buf, buf2, 0, 0, 4, n_, wl_, NULL));
    EXPECT_OK(clFinish(t.q));
}

static void test_fill(void)
{
    char pat[256] = {1, 2, 3, 4};
    EXPECT_ERR(CL_INVALID_COMMAND_QUEUE,
               clEnqueueFillBuffer((cl_command_queue)buf, buf, pat, 4, 0, 16, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueFillBuffer(t.q, NULL, pat, 4, 0, 16, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_CONTEXT,
               clEnqueueFillBuffer(t.q, other_ctx_buf, pat, 4, 0, 16, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(t.q, buf, NULL, 4, 0, 16, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(t.q, buf, pat, 0, 0, 16, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(t.q, buf, pat, 3, 0, 12, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(t.q, buf, pat, 256, 0, 512, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(t.q, buf, pat, 4, 2, 16, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(t.q, buf, pat, 4, 0, 18, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(t.q, buf, pat, 4, SZ - 4, 8, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueFillBuffer(t.q, buf, pat, 128, SZ, 128, 0, NULL, NULL));
    EXPECT_OK(clEnqueueFillBuffer(t.q, buf, pat, 128, SZ - 128, 128, 0, NULL, NULL));
    CHECK_WAIT_LISTS(clEnqueueFillBuffer(t.q, buf, pat, 4, 0, 16, n_, wl_, NULL));
    EXPECT_OK(clFinish(t.q));
}

static void test_rect(void)
{
    size_t o[3] = {0, 0, 0}, r[3] = {16, 4, 2};
    size_t zero_w[3] = {0, 4, 2}, zero_h[3] = {16, 0, 2}, zero_d[3] = {16, 4, 0};
    cl_command_queue notq = (cl_command_queue)buf;
#define RR(bo, ho, reg, brp, bsp, hrp, hsp, p)                                            \
    clEnqueueReadBufferRect(t.q, buf, CL_TRUE, bo, ho, reg, brp, bsp, hrp, hsp, p, 0, NULL, NULL)
#define WR(bo, ho, reg, brp, bsp, hrp, hsp, p)                                            \
    clEnqueueWriteBufferRect(t.q, buf, CL_TRUE, bo, ho, reg, brp, bsp, hrp, hsp, p, 0, NULL, NULL)
    EXPECT_OK(RR(o, o, r, 0, 0, 0, 0, host));
    EXPECT_OK(WR(o, o, r, 32, 128, 16, 64, host));
    EXPECT_ERR(CL_INVALID_COMMAND_QUEUE,
               clEnqueueReadBufferRect(notq, buf, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT,
               clEnqueueReadBufferRect(t.q, NULL, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_CONTEXT, clEnqueueWriteBufferRect(t.q, other_ctx_buf, CL_TRUE, o, o, r, 0,
                                                            0, 0, 0, host, 0, NULL, NULL));
    /* NULL origins or region */
    EXPECT_ERR(CL_INVALID_VALUE, RR(NULL, o, r, 0, 0, 0, 0, host));
    EXPECT_ERR(CL_INVALID_VALUE, RR(o, NULL, r, 0, 0, 0, 0, host));
    EXPECT_ERR(CL_INVALID_VALUE, WR(o, o, NULL, 0, 0, 0, 0, host));
    /* zero region elements */
    EXPECT_ERR(CL_INVALID_VALUE, RR(o, o, zero_w, 0, 0, 0, 0, host));
    EXPECT_ERR(CL_INVALID_VALUE, RR(o, o, zero_h, 0, 0, 0, 0, host));
    EXPECT_ERR(CL_INVALID_VALUE, WR(o, o, zero_d, 0, 0, 0, 0, host));
    /* buffer pitches: row < width; slice < height x row; slice not a multiple of row */
    EXPECT_ERR(CL_INVALID_VALUE, RR(o, o, r, 15, 0, 0, 0, host));
    EXPECT_ERR(CL_INVALID_VALUE, RR(o, o, r, 32, 96, 0, 0, host));
    EXPECT_ERR(CL_INVALID_VALUE, RR(o, o, r, 32, 144, 0, 0, host));
    /* host pitches, same rules */
    EXPECT_ERR(CL_INVALID_VALUE, WR(o, o, r, 0, 0, 15, 0, host));
    EXPECT_ERR(CL_INVALID_VALUE, WR(o, o, r, 0, 0, 32, 96, host));
    EXPECT_ERR(CL_INVALID_VALUE, WR(o, o, r, 0, 0, 32, 144, host));
    /* out of bounds: with pitches 128/512 the rectangle spans 912 bytes */
    size_t o1[3] = {112, 0, 0}, o2[3] = {113, 0, 0}, oz[3] = {0, 0, 1};
    EXPECT_OK(RR(o1, o, r, 128, 512, 0, 0, host));
    EXPECT_ERR(CL_INVALID_VALUE, RR(o2, o, r, 128, 512, 0, 0, host));
    EXPECT_OK(RR(oz, o, r, 0, 0, 0, 0, host));               /* ends at 64 + 128 */
    EXPECT_ERR(CL_INVALID_VALUE, RR(oz, o, r, 128, 512, 0, 0, host)); /* ends at 1424 */
    size_t far[3] = {0, 0, SIZE_MAX / 4};
    EXPECT_ERR(CL_INVALID_VALUE, WR(far, o, r, 0, 0, 0, 0, host));
    /* NULL ptr */
    EXPECT_ERR(CL_INVALID_VALUE, RR(o, o, r, 0, 0, 0, 0, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, WR(o, o, r, 0, 0, 0, 0, NULL));
    /* host access */
    cl_mem wo = xt_buffer(&t, CL_MEM_HOST_WRITE_ONLY, SZ, NULL);
    cl_mem ro = xt_buffer(&t, CL_MEM_HOST_READ_ONLY, SZ, NULL);
    EXPECT_ERR(CL_INVALID_OPERATION,
               clEnqueueReadBufferRect(t.q, wo, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_OPERATION,
               clEnqueueWriteBufferRect(t.q, ro, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL));
    clReleaseMemObject(wo);
    clReleaseMemObject(ro);
    CHECK_WAIT_LISTS(
        clEnqueueReadBufferRect(t.q, buf, CL_TRUE, o, o, r, 0, 0, 0, 0, host, n_, wl_, NULL));

    /* Copy rect */
#define CR(s, d, so, dO, reg, srp, ssp, drp, dsp)                                         \
    clEnqueueCopyBufferRect(t.q, s, d, so, dO, reg, srp, ssp, drp, dsp, 0, NULL, NULL)
    EXPECT_OK(CR(buf, buf2, o, o, r, 0, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT, CR(NULL, buf2, o, o, r, 0, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT, CR(buf, NULL, o, o, r, 0, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_CONTEXT, CR(other_ctx_buf, buf2, o, o, r, 0, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_CONTEXT, CR(buf, other_ctx_buf, o, o, r, 0, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf2, NULL, o, r, 0, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf2, o, NULL, r, 0, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf2, o, o, NULL, 0, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf2, o, o, zero_h, 0, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf2, o, o, r, 8, 0, 0, 0));
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf2, o, o, r, 0, 0, 32, 100));
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf2, o2, o, r, 128, 512, 0, 0));
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf2, o, o2, r, 0, 0, 128, 512));
    EXPECT_OK(CR(buf, buf2, o, o1, r, 0, 0, 128, 512));
    /* Same buffer: pitches must match, regions must not overlap */
    size_t right[3] = {16, 0, 0}, down[3] = {0, 1, 0};
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf, o, right, r, 32, 0, 64, 0));
    EXPECT_ERR(CL_INVALID_VALUE, CR(buf, buf, o, right, r, 64, 256, 64, 512));
    EXPECT_OK(CR(buf, buf, o, right, r, 32, 0, 32, 0)); /* side by side columns */
    EXPECT_ERR(CL_MEM_COPY_OVERLAP, CR(buf, buf, o, down, r, 32, 0, 32, 0));
    size_t half[3] = {8, 0, 0};
    EXPECT_ERR(CL_MEM_COPY_OVERLAP, CR(buf, buf, o, half, r, 32, 0, 32, 0));
    size_t next_slice[3] = {0, 0, 2};
    EXPECT_OK(CR(buf, buf, o, next_slice, r, 16, 0, 16, 0));
    /* Sub-buffers of one buffer: overlap in the parent counts */
    cl_buffer_region r1 = {0, 512}, r2 = {256, 512};
    cl_int err;
    cl_mem s1 = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
    cl_mem s2 = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
    size_t at256[3] = {256, 0, 0};
    EXPECT_ERR(CL_MEM_COPY_OVERLAP, CR(s1, s2, at256, o, r, 16, 0, 16, 0));
    EXPECT_OK(CR(s1, s2, o, at256, r, 16, 0, 16, 0));
    clReleaseMemObject(s1);
    clReleaseMemObject(s2);
    CHECK_WAIT_LISTS(clEnqueueCopyBufferRect(t.q, buf, buf2, o, o, r, 0, 0, 0, 0, n_, wl_, NULL));
    EXPECT_OK(clFinish(t.q));
}

static void test_map(void)
{
    cl_int err = 0;
    void *p;
#define MAP(m, flags, off, size)                                                          \
    clEnqueueMapBuffer(t.q, m, CL_TRUE, flags, off, size, 0, NULL, NULL, &err)
    p = clEnqueueMapBuffer((cl_command_queue)buf, buf, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL,
                           &err);
    EXPECT(!p && err == CL_INVALID_COMMAND_QUEUE);
    p = MAP(NULL, CL_MAP_READ, 0, 4);
    EXPECT(!p && err == CL_INVALID_MEM_OBJECT);
    p = MAP(other_ctx_buf, CL_MAP_READ, 0, 4);
    EXPECT(!p && err == CL_INVALID_CONTEXT);
    p = MAP(buf, CL_MAP_READ, SZ - 3, 4);
    EXPECT(!p && err == CL_INVALID_VALUE);
    p = MAP(buf, CL_MAP_READ, 0, 0);
    EXPECT(!p && err == CL_INVALID_VALUE);
    p = MAP(buf, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 4);
    EXPECT(!p && err == CL_INVALID_VALUE);
    p = MAP(buf, CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION, 0, 4);
    EXPECT(!p && err == CL_INVALID_VALUE);
    p = MAP(buf, 1u << 7, 0, 4);
    EXPECT(!p && err == CL_INVALID_VALUE);
    /* NULL errcode_ret is allowed */
    p = clEnqueueMapBuffer(t.q, buf, CL_TRUE, CL_MAP_READ, 0, 0, 0, NULL, NULL, NULL);
    EXPECT(!p);
    /* host access */
    cl_mem wo = xt_buffer(&t, CL_MEM_HOST_WRITE_ONLY, SZ, NULL);
    cl_mem ro = xt_buffer(&t, CL_MEM_HOST_READ_ONLY, SZ, NULL);
    cl_mem na = xt_buffer(&t, CL_MEM_HOST_NO_ACCESS, SZ, NULL);
    p = MAP(wo, CL_MAP_READ, 0, 4);
    EXPECT(!p && err == CL_INVALID_OPERATION);
    p = MAP(ro, CL_MAP_WRITE, 0, 4);
    EXPECT(!p && err == CL_INVALID_OPERATION);
    p = MAP(na, CL_MAP_WRITE_INVALIDATE_REGION, 0, 4);
    EXPECT(!p && err == CL_INVALID_OPERATION);
    p = MAP(na, CL_MAP_READ, 0, 4);
    EXPECT(!p && err == CL_INVALID_OPERATION);
    p = MAP(wo, CL_MAP_WRITE_INVALIDATE_REGION, 0, 4);
    EXPECT(p && err == CL_SUCCESS);
    if (p)
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, wo, p, 0, NULL, NULL));
    p = MAP(ro, CL_MAP_READ, 0, 4);
    EXPECT(p && err == CL_SUCCESS);
    if (p)
        EXPECT_OK(clEnqueueUnmapMemObject(t.q, ro, p, 0, NULL, NULL));
    /* Overlapping regions mapped for writing */
    void *w = MAP(buf, CL_MAP_WRITE, 0, 64);
    EXPECT(w && err == CL_SUCCESS);
    p = MAP(buf, CL_MAP_WRITE, 32, 64);
    EXPECT(!p && err == CL_INVALID_OPERATION);
    p = MAP(buf, CL_MAP_READ, 60, 8);
    EXPECT(!p && err == CL_INVALID_OPERATION);
    void *w2 = MAP(buf, CL_MAP_WRITE, 64, 64); /* adjacent: fine */
    EXPECT(w2 && err == CL_SUCCESS);
    void *r1 = MAP(buf, CL_MAP_READ, 256, 64), *r2 = MAP(buf, CL_MAP_READ, 288, 64);
    EXPECT(r1 && r2); /* overlapping reads are fine */
    cl_uint count = 0;
    EXPECT_OK(clGetMemObjectInfo(buf, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL));
    EXPECT(count == 4);

    /* Unmap errors */
    EXPECT_ERR(CL_INVALID_COMMAND_QUEUE,
               clEnqueueUnmapMemObject((cl_command_queue)buf, buf, w, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueUnmapMemObject(t.q, NULL, w, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_CONTEXT, clEnqueueUnmapMemObject(t.q, other_ctx_buf, w, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueUnmapMemObject(t.q, buf, host, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueUnmapMemObject(t.q, buf2, w, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_EVENT_WAIT_LIST, clEnqueueUnmapMemObject(t.q, buf, w, 1, NULL, NULL));
    /* A failed unmap leaves the mapping in place */
    EXPECT_OK(clEnqueueUnmapMemObject(t.q, buf, w, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueUnmapMemObject(t.q, buf, w, 0, NULL, NULL));
    EXPECT_OK(clEnqueueUnmapMemObject(t.q, buf, w2, 0, NULL, NULL));
    EXPECT_OK(clEnqueueUnmapMemObject(t.q, buf, r1, 0, NULL, NULL));
    EXPECT_OK(clEnqueueUnmapMemObject(t.q, buf, r2, 0, NULL, NULL));
    EXPECT_OK(clFinish(t.q));
    EXPECT_OK(clGetMemObjectInfo(buf, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL));
    EXPECT(count == 0);

    /* The same across a buffer and its sub-buffers ("associated memory
     * objects"): sub at 256..511 of buf, sub2 at 512..767. */
    cl_buffer_region r256 = {256, 256}, r512 = {512, 256};
    cl_mem sub = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r256, &err);
    cl_mem sub2 = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r512, &err);
    EXPECT(sub && sub2 && err == CL_SUCCESS);
    if (sub && sub2) {
        w = MAP(buf, CL_MAP_WRITE, 300, 16); /* inside sub */
        EXPECT(w && err == CL_SUCCESS);
        p = MAP(sub, CL_MAP_WRITE, 0, 64);
        EXPECT(!p && err == CL_INVALID_OPERATION);
        p = MAP(sub, CL_MAP_READ, 40, 8);
        EXPECT(!p && err == CL_INVALID_OPERATION);
        void *s2 = MAP(sub2, CL_MAP_WRITE, 0, 64); /* beside it: fine */
        EXPECT(s2 && err == CL_SUCCESS);
        p = MAP(buf, CL_MAP_READ, 500, 16); /* reaches into sub2's write map */
        EXPECT(!p && err == CL_INVALID_OPERATION);
        if (w)
            EXPECT_OK(clEnqueueUnmapMemObject(t.q, buf, w, 0, NULL, NULL));
        p = MAP(sub, CL_MAP_WRITE, 0, 64); /* unmapped: fine now */
        EXPECT(p && err == CL_SUCCESS);
        if (p)
            EXPECT_OK(clEnqueueUnmapMemObject(t.q, sub, p, 0, NULL, NULL));
        if (s2)
            EXPECT_OK(clEnqueueUnmapMemObject(t.q, sub2, s2, 0, NULL, NULL));
        EXPECT_OK(clFinish(t.q));
    }
    if (sub)
        clReleaseMemObject(sub);
    if (sub2)
        clReleaseMemObject(sub2);
    /* Wait lists of map */
    cl_event bogus = (cl_event)buf;
    p = clEnqueueMapBuffer(t.q, buf, CL_TRUE, CL_MAP_READ, 0, 4, 1, NULL, NULL, &err);
    EXPECT(!p && err == CL_INVALID_EVENT_WAIT_LIST);
    p = clEnqueueMapBuffer(t.q, buf, CL_TRUE, CL_MAP_READ, 0, 4, 1, &bogus, NULL, &err);
    EXPECT(!p && err == CL_INVALID_EVENT_WAIT_LIST);
    p = clEnqueueMapBuffer(t.q, buf, CL_TRUE, CL_MAP_READ, 0, 4, 1, &ev_other_ctx, NULL, &err);
    EXPECT(!p && err == CL_INVALID_CONTEXT);
    clReleaseMemObject(wo);
    clReleaseMemObject(ro);
    clReleaseMemObject(na);
}

static void test_migrate(void)
{
    cl_mem two[2] = {buf, buf2};
    EXPECT_OK(clEnqueueMigrateMemObjects(t.q, 2, two, 0, 0, NULL, NULL));
    EXPECT_OK(clEnqueueMigrateMemObjects(t.q, 1, two, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, NULL));
    EXPECT_OK(clEnqueueMigrateMemObjects(t.q, 2, two,
                                         CL_MIGRATE_MEM_OBJECT_HOST |
                                             CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                         0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_COMMAND_QUEUE,
               clEnqueueMigrateMemObjects((cl_command_queue)buf, 2, two, 0, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueMigrateMemObjects(t.q, 0, two, 0, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueMigrateMemObjects(t.q, 2, NULL, 0, 0, NULL, NULL));
    EXPECT_ERR(CL_INVALID_VALUE, clEnqueueMigrateMemObjects(t.q, 2, two, 1u << 4, 0, NULL, NULL));
    cl_mem bad[2] = {buf, (cl_mem)t.q};
    EXPECT_ERR(CL_INVALID_MEM_OBJECT, clEnqueueMigrateMemObjects(t.q, 2, bad, 0, 0, NULL, NULL));
    cl_mem other[2] = {buf, other_ctx_buf};
    EXPECT_ERR(CL_INVALID_CONTEXT, clEnqueueMigrateMemObjects(t.q, 2, other, 0, 0, NULL, NULL));
    CHECK_WAIT_LISTS(clEnqueueMigrateMemObjects(t.q, 2, two, 0, n_, wl_, NULL));
    /* The marker honours its wait list */
    cl_int err;
    cl_event gate = clCreateUserEvent(t.ctx, &err), ev = NULL;
    EXPECT_OK(clEnqueueMigrateMemObjects(t.q, 1, two, 0, 1, &gate, &ev));
    cl_int st = 0;
    EXPECT_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
    EXPECT(st > CL_COMPLETE);
    cl_command_type type = 0;
    EXPECT_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
    EXPECT(type == CL_COMMAND_MIGRATE_MEM_OBJECTS);
    clSetUserEventStatus(gate, CL_COMPLETE);
    EXPECT_OK(clWaitForEvents(1, &ev));
    clReleaseEvent(ev);
    clReleaseEvent(gate);
}

int main(void)
{
    xt_init(&t);
    cl_int err;
    ctx2 = clCreateContext(NULL, 1, &t.dev, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS);
    q2 = clCreateCommandQueueWithProperties(ctx2, t.dev, NULL, &err);
    REQUIRE(err == CL_SUCCESS);
    other_ctx_buf = clCreateBuffer(ctx2, 0, SZ, NULL, &err);
    REQUIRE(err == CL_SUCCESS);
    ev_other_ctx = clCreateUserEvent(ctx2, &err);
    REQUIRE(err == CL_SUCCESS);
    buf = xt_buffer(&t, 0, SZ, NULL);
    buf2 = xt_buffer(&t, 0, SZ, NULL);

    test_read_write();
    test_copy();
    test_fill();
    test_rect();
    test_map();
    test_migrate();

    clSetUserEventStatus(ev_other_ctx, CL_COMPLETE);
    clReleaseEvent(ev_other_ctx);
    clReleaseMemObject(buf);
    clReleaseMemObject(buf2);
    clReleaseMemObject(other_ctx_buf);
    clReleaseCommandQueue(q2);
    clReleaseContext(ctx2);
    xt_fini(&t);
    return xt_done("api_transfer_errors");
}

/*
 * mem_test.c — buffers and sub-buffers through the ICD loader: every flag
 * rule and error of creation, the queries, destructor callbacks, reference
 * counts, contents given at creation, sub-buffer aliasing, and many
 * create/release cycles (LeakSanitizer checks the host side).
 */
#include "../api_platform/cltest.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;

static cl_mem make(cl_mem_flags flags, size_t size, void *host, cl_int want)
{
    cl_int err = 12345;
    cl_mem m = clCreateBuffer(ctx, flags, size, host, &err);
    EXPECT(err == want, "flags 0x%llx size %zu host %p: %d, expected %d",
           (unsigned long long)flags, size, host, err, want);
    EXPECT(!m == (want != CL_SUCCESS), "handle %p for error %d", (void *)m, err);
    return m;
}

static void test_create_errors(void)
{
    char host[64];
    cl_int err = 0;
    cl_ulong max_alloc = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc,
                              NULL));

    /* The loader rejects a NULL context itself; a wrong handle type reaches us. */
    EXPECT(!clCreateBuffer((cl_context)dev, 0, 64, NULL, &err), "device as context");
    EXPECT(err == CL_INVALID_CONTEXT, "device as context: %d", err);

    make(CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, NULL, CL_INVALID_VALUE);
    make(CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY, 64, NULL, CL_INVALID_VALUE);
    make(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, CL_INVALID_VALUE);
    make(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, host, CL_INVALID_VALUE);
    make(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, host, CL_INVALID_VALUE);
    make(CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, 64, NULL, CL_INVALID_VALUE);
    make(CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64, NULL, CL_INVALID_VALUE);
    make(CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS, 64, NULL, CL_INVALID_VALUE);
    make((cl_mem_flags)1 << 40, 64, NULL, CL_INVALID_VALUE);
    make(CL_MEM_KERNEL_READ_AND_WRITE, 64, NULL, CL_INVALID_VALUE);

    make(0, 0, NULL, CL_INVALID_BUFFER_SIZE);
    make(0, (size_t)max_alloc + 1, NULL, CL_INVALID_BUFFER_SIZE);
    /* A buffer of the maximum size is made (this context has a queue and
     * nothing else in device memory), and its last byte holds data. On the
     * emulated device only: a GPU is shared with the other tests of a
     * parallel ctest run, which such a buffer would starve. */
    char name[128] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(name), name, NULL);
    if (strstr(name, "(emulated)")) {
        cl_mem big = make(0, (size_t)max_alloc, NULL, CL_SUCCESS);
        if (big) {
            const unsigned char in = 0x5a;
            unsigned char out = 0;
            EXPECT_OK(clEnqueueWriteBuffer(queue, big, CL_TRUE, (size_t)max_alloc - 1, 1, &in, 0,
                                           NULL, NULL));
            EXPECT_OK(clEnqueueReadBuffer(queue, big, CL_TRUE, (size_t)max_alloc - 1, 1, &out, 0,
                                          NULL, NULL));
            EXPECT(out == in, "last byte of a maximum-size buffer: 0x%x", out);
            clReleaseMemObject(big);
        }
    }
    make(0, SIZE_MAX, NULL, CL_INVALID_BUFFER_SIZE);

    make(CL_MEM_USE_HOST_PTR, 64, NULL, CL_INVALID_HOST_PTR);
    make(CL_MEM_COPY_HOST_PTR, 64, NULL, CL_INVALID_HOST_PTR);
    make(0, 64, host, CL_INVALID_HOST_PTR);
    make(CL_MEM_ALLOC_HOST_PTR, 64, host, CL_INVALID_HOST_PTR);

    /* Properties: none is supported, an empty list is fine. */
    cl_mem_properties bogus[] = {0x4242, 1, 0};
    EXPECT(!clCreateBufferWithProperties(ctx, bogus, 0, 64, NULL, &err), "bogus property");
    EXPECT(err == CL_INVALID_PROPERTY, "bogus property: %d", err);
    cl_mem_properties empty[] = {0};
    cl_mem m = clCreateBufferWithProperties(ctx, empty, 0, 64, NULL, &err);
    EXPECT(m && err == CL_SUCCESS, "empty property list: %d", err);
    if (m) {
        cl_mem_properties got[4] = {99, 99};
        size_t n = 0;
        EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, sizeof(got), got, &n));
        EXPECT(n == sizeof(cl_mem_properties) && got[0] == 0, "PROPERTIES %zu bytes", n);
        EXPECT_OK(clReleaseMemObject(m));
    }
    m = clCreateBufferWithProperties(ctx, NULL, 0, 64, NULL, &err);
    EXPECT(m && err == CL_SUCCESS, "NULL properties: %d", err);
    if (m) {
        size_t n = 99;
        EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, 0, NULL, &n));
        EXPECT(n == 0, "PROPERTIES of a buffer without properties: %zu bytes", n);
        EXPECT_OK(clReleaseMemObject(m));
    }
}

/* Every valid combination of one access flag, one host-pointer mode and
 * one host-access flag creates a buffer whose queries say so. */
static void test_valid_flags(void)
{
    static const cl_mem_flags access[] = {0, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY};
    static const cl_mem_flags hostp[] = {0, CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR,
                                         CL_MEM_COPY_HOST_PTR,
                                         CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR};
    static const cl_mem_flags hosta[] = {0, CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY,
                                         CL_MEM_HOST_NO_ACCESS};
    uint8_t *host = aligned_alloc(4096, 8192);
    REQUIRE(host, "host memory");
    for (size_t a = 0; a < 4; a++)
        for (size_t h = 0; h < 5; h++)
            for (size_t x = 0; x < 4; x++) {
                cl_mem_flags f = access[a] | hostp[h] | hosta[x];
                bool needs_ptr = f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
                cl_mem m = make(f, 8192, needs_ptr ? host : NULL, CL_SUCCESS);
                if (!m)
                    continue;
                cl_mem_flags got = 0;
                size_t size = 0, off = 99;
                void *hp = (void *)1;
                cl_mem_object_type type = 0;
                cl_uint refs = 0, maps = 99;
                cl_context c = NULL;
                cl_mem assoc = (cl_mem)1;
                cl_bool svm = CL_TRUE;
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof(got), &got, NULL));
                EXPECT(got == f, "FLAGS 0x%llx, created with 0x%llx", (unsigned long long)got,
                       (unsigned long long)f);
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof(type), &type, NULL));
                EXPECT(type == CL_MEM_OBJECT_BUFFER, "TYPE 0x%x", type);
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size, NULL));
                EXPECT(size == 8192, "SIZE %zu", size);
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
                EXPECT(hp == ((f & CL_MEM_USE_HOST_PTR) ? (void *)host : NULL), "HOST_PTR %p", hp);
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof(maps), &maps, NULL));
                EXPECT(maps == 0, "MAP_COUNT %u", maps);
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
                EXPECT(refs == 1, "REFERENCE_COUNT %u", refs);
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof(c), &c, NULL));
                EXPECT(c == ctx, "CONTEXT");
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc,
                                             NULL));
                EXPECT(assoc == NULL, "ASSOCIATED_MEMOBJECT of a buffer");
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof(off), &off, NULL));
                EXPECT(off == 0, "OFFSET %zu", off);
                EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof(svm), &svm, NULL));
                EXPECT(svm == CL_FALSE, "USES_SVM_POINTER");
                EXPECT_OK(clReleaseMemObject(m));
            }
    free(host);
}

/* One buffer may take most of the device's memory (it is backed by
 * device memory pages only, nothing is touched on the host). */
static void test_large(void)
{
    cl_ulong global = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(global), &global, NULL));
    size_t size = (size_t)(global / 4 * 3);
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    EXPECT(m && err == CL_SUCCESS, "buffer of %zu of %llu bytes: %d", size,
           (unsigned long long)global, err);
    if (m) {
        /* Its last bytes are reachable. */
        uint32_t v = 0x600dcafe, back = 0;
        EXPECT_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, size - 4, 4, &v, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, size - 4, 4, &back, 0, NULL, NULL));
        EXPECT(back == v, "last word %#x", back);
        EXPECT_OK(clReleaseMemObject(m));
    }
}

static void test_info_errors(void)
{
    cl_mem m = make(0, 256, NULL, CL_SUCCESS);
    if (!m)
        return;
    size_t size = 0, n = 0;
    cl_uint small = 0;
    EXPECT_ERR(clGetMemObjectInfo(m, 0x7fff, sizeof(size), &size, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(small), &small, NULL), CL_INVALID_VALUE);
    EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, 0, NULL, &n));
    EXPECT(n == sizeof(size_t), "size of CL_MEM_SIZE: %zu", n);
    EXPECT_ERR(clGetMemObjectInfo((cl_mem)ctx, CL_MEM_SIZE, sizeof(size), &size, NULL),
               CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clRetainMemObject((cl_mem)ctx), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clReleaseMemObject((cl_mem)ctx), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetMemObjectDestructorCallback(m, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_OK(clReleaseMemObject(m));
}

/* ------------------------------------------------------------------ */

/* Destructor calls, in order. A destructor may run on the thread that
 * retires the object's last command: norder is published after order. */
static int order[8];
static atomic_int norder;
static cl_mem dtor_seen;
static void CL_CALLBACK dtor(cl_mem m, void *user)
{
    int i = atomic_load(&norder);
    if (i < 8) {
        order[i] = (int)(intptr_t)user;
        atomic_store(&norder, i + 1);
    }
    dtor_seen = m;
}

static void test_refcount_and_destructors(void)
{
    cl_mem m = make(0, 4096, NULL, CL_SUCCESS);
    if (!m)
        return;
    norder = 0;
    for (int i = 1; i <= 3; i++)
        EXPECT_OK(clSetMemObjectDestructorCallback(m, dtor, (void *)(intptr_t)i));
    EXPECT_OK(clRetainMemObject(m));
    cl_uint refs = 0;
    EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    EXPECT(refs == 2, "refs after retain: %u", refs);
    EXPECT_OK(clReleaseMemObject(m));
    EXPECT(norder == 0, "destructor ran with a reference left");
    EXPECT_OK(clReleaseMemObject(m));
    EXPECT(norder == 3 && order[0] == 3 && order[1] == 2 && order[2] == 1,
           "destructors: %d calls, order %d %d %d (want 3 2 1)", norder, order[0], order[1],
           order[2]);
    EXPECT(dtor_seen == m, "destructor got the handle");

    /* A sub-buffer keeps its buffer alive. */
    cl_mem parent = make(0, 4096, NULL, CL_SUCCESS);
    if (!parent)
        return;
    cl_buffer_region r = {0, 1024};
    cl_int err;
    cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    REQUIRE(sub && err == CL_SUCCESS, "sub-buffer: %d", err);
    norder = 0;
    EXPECT_OK(clSetMemObjectDestructorCallback(parent, dtor, (void *)(intptr_t)7));
    EXPECT_OK(clSetMemObjectDestructorCallback(sub, dtor, (void *)(intptr_t)8));
    EXPECT_OK(clReleaseMemObject(parent));
    EXPECT(norder == 0, "buffer destroyed while its sub-buffer lives");
    EXPECT_OK(clReleaseMemObject(sub));
    EXPECT(norder == 2 && order[0] == 8 && order[1] == 7, "sub then parent: %d calls (%d %d)",
           norder, order[0], order[1]);
}

/* Released while mapped: the object goes once its commands are done, its
 * destructor callbacks run, and its mapping no longer counts as one of its
 * references. Host memory (mapped in place) and device memory (mapped
 * through a staging). */
static void test_release_while_mapped(void)
{
    const cl_mem_flags kinds[] = {CL_MEM_ALLOC_HOST_PTR, 0};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        cl_mem m = make(kinds[i], 65536, NULL, CL_SUCCESS);
        if (!m)
            return;
        norder = 0;
        EXPECT_OK(clSetMemObjectDestructorCallback(m, dtor, (void *)(intptr_t)5));
        cl_int err;
        unsigned *p = clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 65536,
                                         0, NULL, NULL, &err);
        EXPECT(p && err == CL_SUCCESS, "map: %d", err);
        /* The map command's own reference goes when its retirer lets go of
         * it, which may be just after the blocking map returned. */
        cl_uint refs = 0;
        for (int ms = 0; ms < 5000; ms++) {
            EXPECT_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
            if (refs == 1)
                break;
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
        EXPECT(refs == 1, "flags 0x%llx: %u references while mapped", (unsigned long long)kinds[i],
               refs);
        if (p)
            p[0] = 1;
        EXPECT_OK(clReleaseMemObject(m));
        EXPECT_OK(clFinish(queue));
        /* The object goes when its last command is retired, which the
         * notifier may be doing as clFinish returns: no promise of when,
         * only that it happens, once. */
        for (int ms = 0; ms < 5000 && atomic_load(&norder) == 0; ms++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        EXPECT(atomic_load(&norder) == 1 && order[0] == 5, "flags 0x%llx: destructor ran %d times",
               (unsigned long long)kinds[i], norder);
    }
}

/* ------------------------------------------------------------------ */

static cl_mem sub(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size, cl_int want)
{
    cl_buffer_region r = {origin, size};
    cl_int err = 12345;
    cl_mem s = clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    EXPECT(err == want, "sub flags 0x%llx %zu+%zu: %d, expected %d", (unsigned long long)flags,
           origin, size, err, want);
    EXPECT(!s == (want != CL_SUCCESS), "handle for error %d", err);
    return s;
}

static void test_sub_buffers(void)
{
    cl_uint align_bits = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align_bits), &align_bits,
                              NULL));
    size_t align = align_bits / 8;
    REQUIRE(align >= 128 && (align & (align - 1)) == 0, "MEM_BASE_ADDR_ALIGN %u bits", align_bits);
    uint8_t *host = aligned_alloc(4096, 16 * align);
    REQUIRE(host, "host");
    cl_int err;

    cl_mem rw = make(CL_MEM_READ_WRITE, 16 * align, NULL, CL_SUCCESS);
    cl_mem ro = make(CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, 16 * align, NULL, CL_SUCCESS);
    cl_mem wo = make(CL_MEM_WRITE_ONLY | CL_MEM_HOST_WRITE_ONLY, 16 * align, NULL, CL_SUCCESS);
    cl_mem na = make(CL_MEM_HOST_NO_ACCESS, 16 * align, NULL, CL_SUCCESS);
    cl_mem use = make(CL_MEM_USE_HOST_PTR, 16 * align, host, CL_SUCCESS);
    REQUIRE(rw && ro && wo && na && use, "parents");

    /* Errors. */
    EXPECT(!clCreateSubBuffer(rw, 0, 0x9999, &(cl_buffer_region){0, 64}, &err), "bad type");
    EXPECT(err == CL_INVALID_VALUE, "bad create type: %d", err);
    EXPECT(!clCreateSubBuffer(rw, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err), "NULL info");
    EXPECT(err == CL_INVALID_VALUE, "NULL info: %d", err);
    sub(rw, 0, 0, 0, CL_INVALID_BUFFER_SIZE);
    sub(rw, 0, 0, 16 * align + 1, CL_INVALID_VALUE);
    sub(rw, 0, 16 * align, 1, CL_INVALID_VALUE);
    sub(rw, 0, SIZE_MAX - 63, 64, CL_INVALID_VALUE);
    sub(rw, 0, align / 2, 64, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    sub(rw, 0, 1, 64, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    sub(rw, CL_MEM_USE_HOST_PTR, 0, 64, CL_INVALID_VALUE);
    sub(rw, CL_MEM_ALLOC_HOST_PTR, 0, 64, CL_INVALID_VALUE);
    sub(rw, CL_MEM_COPY_HOST_PTR, 0, 64, CL_INVALID_VALUE);
    sub(rw, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 0, 64, CL_INVALID_VALUE);
    sub(ro, CL_MEM_READ_WRITE, 0, 64, CL_INVALID_VALUE);
    sub(ro, CL_MEM_WRITE_ONLY, 0, 64, CL_INVALID_VALUE);
    sub(wo, CL_MEM_READ_WRITE, 0, 64, CL_INVALID_VALUE);
    sub(wo, CL_MEM_READ_ONLY, 0, 64, CL_INVALID_VALUE);
    sub(ro, CL_MEM_HOST_WRITE_ONLY, 0, 64, CL_INVALID_VALUE);
    sub(wo, CL_MEM_HOST_READ_ONLY, 0, 64, CL_INVALID_VALUE);
    sub(na, CL_MEM_HOST_READ_ONLY, 0, 64, CL_INVALID_VALUE);
    sub(na, CL_MEM_HOST_WRITE_ONLY, 0, 64, CL_INVALID_VALUE);
    EXPECT(!clCreateSubBuffer((cl_mem)ctx, 0, CL_BUFFER_CREATE_TYPE_REGION,
                              &(cl_buffer_region){0, 64}, &err), "context as buffer");
    EXPECT(err == CL_INVALID_MEM_OBJECT, "context as buffer: %d", err);

    /* Inheritance and queries. */
    cl_mem s1 = sub(ro, 0, align, 2 * align, CL_SUCCESS);
    cl_mem s2 = sub(rw, CL_MEM_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS, 2 * align, align, CL_SUCCESS);
    cl_mem s3 = sub(use, 0, 3 * align, align, CL_SUCCESS);
    cl_mem s4 = sub(ro, CL_MEM_READ_ONLY, 0, 16 * align, CL_SUCCESS);
    if (s1 && s2 && s3 && s4) {
        cl_mem_flags f = 0;
        EXPECT_OK(clGetMemObjectInfo(s1, CL_MEM_FLAGS, sizeof(f), &f, NULL));
        EXPECT(f == (CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY), "inherited 0x%llx",
               (unsigned long long)f);
        EXPECT_OK(clGetMemObjectInfo(s2, CL_MEM_FLAGS, sizeof(f), &f, NULL));
        EXPECT(f == (CL_MEM_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS), "own 0x%llx",
               (unsigned long long)f);
        EXPECT_OK(clGetMemObjectInfo(s3, CL_MEM_FLAGS, sizeof(f), &f, NULL));
        EXPECT(f == CL_MEM_USE_HOST_PTR, "USE_HOST_PTR inherited: 0x%llx", (unsigned long long)f);
        void *hp = NULL;
        EXPECT_OK(clGetMemObjectInfo(s3, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
        EXPECT(hp == host + 3 * align, "sub HOST_PTR %p, want %p", hp, (void *)(host + 3 * align));
        cl_mem assoc = NULL;
        size_t off = 0, size = 0;
        EXPECT_OK(clGetMemObjectInfo(s1, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL));
        EXPECT(assoc == ro, "ASSOCIATED_MEMOBJECT");
        EXPECT_OK(clGetMemObjectInfo(s1, CL_MEM_OFFSET, sizeof(off), &off, NULL));
        EXPECT(off == align, "OFFSET %zu", off);
        EXPECT_OK(clGetMemObjectInfo(s1, CL_MEM_SIZE, sizeof(size), &size, NULL));
        EXPECT(size == 2 * align, "SIZE %zu", size);
        /* A sub-buffer of a sub-buffer is refused. */
        sub(s1, 0, 0, 64, CL_INVALID_MEM_OBJECT);
        cl_uint refs = 0;
        EXPECT_OK(clGetMemObjectInfo(s1, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
        EXPECT(refs == 1, "sub refs %u", refs);
    }
    cl_mem all[] = {s1, s2, s3, s4, rw, ro, wo, na, use};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (all[i])
            EXPECT_OK(clReleaseMemObject(all[i]));
    free(host);
}

/* ------------------------------------------------------------------ */
/* Contents (needs the transfer commands)                              */
/* ------------------------------------------------------------------ */

static void fill_pattern(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31 + seed * 7 + (i >> 8));
}

static void test_contents(void)
{
    const size_t n = 3 * 4096 + 100;
    uint8_t *src = malloc(n), *dst = malloc(n);
    REQUIRE(src && dst, "host");
    static const cl_mem_flags init_flags[] = {CL_MEM_COPY_HOST_PTR,
                                              CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
                                              CL_MEM_USE_HOST_PTR};
    for (size_t k = 0; k < 3; k++) {
        fill_pattern(src, n, (unsigned)k + 1);
        cl_mem m = make(init_flags[k], n, src, CL_SUCCESS);
        if (!m)
            continue;
        memset(dst, 0, n);
        EXPECT_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, n, dst, 0, NULL, NULL));
        EXPECT(memcmp(src, dst, n) == 0, "flags 0x%llx: contents differ",
               (unsigned long long)init_flags[k]);
        if (init_flags[k] & CL_MEM_COPY_HOST_PTR) {
            /* COPY_HOST_PTR copies: later host writes don't reach the buffer. */
            memset(src, 0xee, n);
            EXPECT_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, n, dst, 0, NULL, NULL));
            EXPECT(dst[0] != 0xee || dst[n - 1] != 0xee, "COPY_HOST_PTR buffer aliases the host");
        }
        EXPECT_OK(clReleaseMemObject(m));
    }

    /* Sub-buffers alias their buffer: write through one, read the other. */
    cl_uint align_bits = 0;
    EXPECT_OK(clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align_bits), &align_bits,
                              NULL));
    size_t align = align_bits / 8;
    cl_mem parent = make(0, 8 * align, NULL, CL_SUCCESS);
    cl_mem s = sub(parent, 0, 2 * align, 3 * align, CL_SUCCESS);
    if (parent && s) {
        uint8_t *zero = calloc(1, 8 * align), *pat = malloc(3 * align), *all = malloc(8 * align);
        REQUIRE(zero && pat && all, "host");
        fill_pattern(pat, 3 * align, 9);
        EXPECT_OK(clEnqueueWriteBuffer(queue, parent, CL_TRUE, 0, 8 * align, zero, 0, NULL, NULL));
        EXPECT_OK(clEnqueueWriteBuffer(queue, s, CL_TRUE, 0, 3 * align, pat, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadBuffer(queue, parent, CL_TRUE, 0, 8 * align, all, 0, NULL, NULL));
        EXPECT(memcmp(all + 2 * align, pat, 3 * align) == 0, "sub-buffer write not in parent");
        EXPECT(memcmp(all, zero, 2 * align) == 0 && memcmp(all + 5 * align, zero, 3 * align) == 0,
               "sub-buffer write outside its region");
        /* And the other way round. */
        fill_pattern(all, 8 * align, 4);
        EXPECT_OK(clEnqueueWriteBuffer(queue, parent, CL_TRUE, 0, 8 * align, all, 0, NULL, NULL));
        EXPECT_OK(clEnqueueReadBuffer(queue, s, CL_TRUE, 0, 3 * align, pat, 0, NULL, NULL));
        EXPECT(memcmp(pat, all + 2 * align, 3 * align) == 0, "parent write not seen in sub");
        free(zero);
        free(pat);
        free(all);
    }
    if (s)
        EXPECT_OK(clReleaseMemObject(s));
    if (parent)
        EXPECT_OK(clReleaseMemObject(parent));
    free(src);
    free(dst);
}

/* USE_HOST_PTR from an address the GPU can't use in place (not 16-byte
 * aligned) works through a copy that map and unmap keep in step with the
 * application's memory, as the spec's USE_HOST_PTR rules require. */
static void test_use_host_ptr_copy(void)
{
    const size_t n = 8192;
    uint8_t *raw = malloc(n + 16), *host = raw + 3, *tmp = malloc(n);
    REQUIRE(raw && tmp, "host");
    fill_pattern(host, n, 5);
    cl_mem m = make(CL_MEM_USE_HOST_PTR, n, host, CL_SUCCESS);
    if (m) {
        EXPECT_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, n, tmp, 0, NULL, NULL));
        EXPECT(!memcmp(tmp, host, n), "initial contents from host_ptr");
        /* The device's writes reach host_ptr when mapped. */
        fill_pattern(tmp, n, 6);
        EXPECT_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, n, tmp, 0, NULL, NULL));
        cl_int err;
        uint8_t *p = clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 100, 1000,
                                        0, NULL, NULL, &err);
        EXPECT(p == host + 100 && err == CL_SUCCESS, "map pointer %p, want %p (%d)", (void *)p,
               (void *)(host + 100), err);
        if (p) {
            EXPECT(!memcmp(p, tmp + 100, 1000), "mapped region holds the device's contents");
            memset(p, 0xa5, 1000); /* the application's writes reach the buffer at unmap */
            EXPECT_OK(clEnqueueUnmapMemObject(queue, m, p, 0, NULL, NULL));
            EXPECT_OK(clFinish(queue));
            memset(tmp + 100, 0xa5, 1000);
            uint8_t *back = malloc(n);
            EXPECT_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, n, back, 0, NULL, NULL));
            EXPECT(!memcmp(back, tmp, n), "unmapped writes in the buffer");
            free(back);
        }
        EXPECT_OK(clReleaseMemObject(m));
    }
    free(raw);
    free(tmp);
}

/* Many create/release cycles of every kind; LeakSanitizer fails the test
 * on any host memory left behind. */
static void test_cycles(void)
{
    uint8_t *host = aligned_alloc(4096, 65536);
    REQUIRE(host, "host");
    memset(host, 1, 65536);
    static const cl_mem_flags kinds[] = {0, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR,
                                         CL_MEM_USE_HOST_PTR};
    for (int i = 0; i < 10000; i++) {
        cl_mem_flags f = kinds[i % 4];
        size_t size = 4096u << (i % 5);
        cl_int err;
        cl_mem m = clCreateBuffer(ctx, f, size,
                                  f & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) ? host : NULL,
                                  &err);
        if (!m || err != CL_SUCCESS) {
            EXPECT(false, "cycle %d: %d", i, err);
            break;
        }
        cl_buffer_region r = {0, 4096};
        cl_mem s = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
        EXPECT(s && err == CL_SUCCESS, "cycle %d sub: %d", i, err);
        if (s)
            clReleaseMemObject(s);
        clReleaseMemObject(m);
    }
    free(host);
}

/* Two devices share one context (HCQCL_EMU_GPUS=2): a buffer has one
 * set of contents, whichever device writes or reads it. */
static void test_two_devices(void)
{
    cl_device_id devs[2];
    cl_uint n = 0;
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 2, devs, &n) != CL_SUCCESS || n < 2) {
        printf("api_mem: one device: two-device buffers not tested\n");
        return;
    }
    cl_int err;
    cl_context c2 = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
    REQUIRE(c2, "two-device context: %d", err);
    cl_command_queue q0 = clCreateCommandQueueWithProperties(c2, devs[0], NULL, &err);
    cl_command_queue q1 = clCreateCommandQueueWithProperties(c2, devs[1], NULL, &err);
    REQUIRE(q0 && q1, "queues: %d", err);
    const size_t n_bytes = 3 * 65536 + 12;
    uint8_t *a = malloc(n_bytes), *b = malloc(n_bytes);
    REQUIRE(a && b, "host");
    static const cl_mem_flags kinds[] = {0, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR,
                                         CL_MEM_USE_HOST_PTR};
    for (size_t k = 0; k < 4; k++) {
        fill_pattern(a, n_bytes, (unsigned)k + 20);
        cl_mem m = clCreateBuffer(c2, kinds[k], n_bytes,
                                  kinds[k] & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) ? a : NULL,
                                  &err);
        EXPECT(m && err == CL_SUCCESS, "flags 0x%llx: %d", (unsigned long long)kinds[k], err);
        if (!m)
            continue;
        if (!(kinds[k] & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR)))
            EXPECT_OK(clEnqueueWriteBuffer(q0, m, CL_TRUE, 0, n_bytes, a, 0, NULL, NULL));
        memset(b, 0, n_bytes);
        EXPECT_OK(clEnqueueReadBuffer(q1, m, CL_TRUE, 0, n_bytes, b, 0, NULL, NULL));
        EXPECT(!memcmp(a, b, n_bytes), "flags 0x%llx: device 1 reads what device 0 wrote",
               (unsigned long long)kinds[k]);
        /* And back: device 1 writes a region, device 0 reads it. */
        fill_pattern(b, 4096, 77);
        EXPECT_OK(clEnqueueWriteBuffer(q1, m, CL_TRUE, 65536, 4096, b, 0, NULL, NULL));
        uint8_t back[4096];
        EXPECT_OK(clEnqueueReadBuffer(q0, m, CL_TRUE, 65536, 4096, back, 0, NULL, NULL));
        EXPECT(!memcmp(back, b, 4096), "device 0 reads what device 1 wrote");
        EXPECT_OK(clReleaseMemObject(m));
    }
    free(a);
    free(b);
    clReleaseCommandQueue(q0);
    clReleaseCommandQueue(q1);
    clReleaseContext(c2);
}

int main(void)
{
    cltest_setup(&plat, &dev, &ctx, &queue);

    test_create_errors();
    test_valid_flags();
    test_info_errors();
    test_refcount_and_destructors();
    test_release_while_mapped();
    test_sub_buffers();
    test_contents();
    test_use_host_ptr_copy();
    test_large();
    test_cycles();
    test_two_devices();

    cltest_teardown(ctx, queue);
    return cltest_result("api_mem");
}

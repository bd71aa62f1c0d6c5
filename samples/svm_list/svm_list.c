/*
 * svm_list — coarse-grained shared virtual memory: the host builds many
 * linked lists in one clSVMAlloc allocation (nodes in shuffled order,
 * linked with plain pointers) between clEnqueueSVMMap and
 * clEnqueueSVMUnmap, passes the table of list heads with
 * clSetKernelArgSVMPointer, and each work-item sums one list on the GPU.
 * The sums come back through a second SVM allocation and are checked.
 * usage: svm_list [lists] [nodes per list]
 */
#include "sample.h"

typedef struct node {
    struct node *next;
    cl_long value;
} node_t;

int main(int argc, char **argv)
{
    cl_uint lists = argc > 1 ? (cl_uint)strtoul(argv[1], NULL, 0) : 1u << 16;
    cl_uint len = argc > 2 ? (cl_uint)strtoul(argv[2], NULL, 0) : 64;
    size_t nodes = (size_t)lists * len;

    cl_int err;
    cl_device_id dev;
    char name[256];
    cl_context ctx = sample_gpu_context(&dev, name, sizeof(name));
    cl_device_svm_capabilities caps = 0;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL));
    if (!(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
        printf("svm_list on %s: no coarse-grained SVM, FAILED\n", name);
        return 1;
    }
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CHECK_ERR(err);
    cl_program prog = sample_build(ctx, dev, "svm_list.cl", SAMPLE_BUILD_OPTIONS);
    cl_kernel k = clCreateKernel(prog, "list_sum", &err);
    CHECK_ERR(err);

    node_t *pool = clSVMAlloc(ctx, CL_MEM_READ_ONLY, nodes * sizeof(node_t), 0);
    node_t **heads = clSVMAlloc(ctx, CL_MEM_READ_ONLY, lists * sizeof(node_t *), 0);
    cl_long *sums = clSVMAlloc(ctx, CL_MEM_WRITE_ONLY, lists * sizeof(cl_long), 0);
    cl_long *want = malloc(lists * sizeof(cl_long));
    size_t *order = malloc(nodes * sizeof(size_t));
    if (!pool || !heads || !sums || !want || !order) {
        fprintf(stderr, "out of memory (%zu nodes)\n", nodes);
        return 1;
    }

    /* Nodes in a shuffled order, so that a list's nodes lie all over the
     * allocation. */
    for (size_t i = 0; i < nodes; i++)
        order[i] = i;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (size_t i = nodes - 1; i > 0; i--) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        size_t j = (size_t)(rng >> 33) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    double t0 = sample_now();
    CHECK(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, pool,
                          nodes * sizeof(node_t), 0, NULL, NULL));
    CHECK(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, heads,
                          lists * sizeof(node_t *), 0, NULL, NULL));
    double tm = sample_now();
    for (cl_uint l = 0; l < lists; l++) {
        node_t *prev = NULL;
        want[l] = 0;
        for (cl_uint i = 0; i < len; i++) {
            node_t *n = &pool[order[(size_t)l * len + i]];
            n->value = (cl_long)(l * 1000003ull + i * 7919ull) - 5000;
            n->next = prev;
            want[l] += n->value;
            prev = n;
        }
        heads[l] = prev;
    }
    double tb = sample_now();
    CHECK(clEnqueueSVMUnmap(q, pool, 0, NULL, NULL));
    CHECK(clEnqueueSVMUnmap(q, heads, 0, NULL, NULL));
    double t1 = sample_now();

    CHECK(clSetKernelArgSVMPointer(k, 0, heads)); /* list_sum reads them as ulongs */
    CHECK(clSetKernelArgSVMPointer(k, 1, sums));
    /* The nodes are reached only through pointers in memory. */
    CHECK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(pool), &pool));
    size_t global = lists;
    cl_event ev;
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev));
    CHECK(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, sums, lists * sizeof(cl_long), 1, &ev, NULL));
    double t2 = sample_now();
    cl_uint wrong = 0;
    for (cl_uint l = 0; l < lists; l++)
        if (sums[l] != want[l] && wrong++ < 5)
            fprintf(stderr, "list %u: sum %lld, expected %lld\n", l, (long long)sums[l],
                    (long long)want[l]);
    CHECK(clEnqueueSVMUnmap(q, sums, 0, NULL, NULL));
    CHECK(clFinish(q));
    printf("svm_list on %s: %u lists of %u nodes (%.1f MiB of SVM), mapped, built and unmapped "
           "in %.3f ms (%.3f + %.3f + %.3f), summed and mapped back in %.3f ms, %s\n",
           name, lists, len, (double)(nodes * sizeof(node_t)) / (1 << 20), (t1 - t0) * 1e3,
           (tm - t0) * 1e3, (tb - tm) * 1e3, (t1 - tb) * 1e3, (t2 - t1) * 1e3,
           wrong ? "FAILED" : "PASSED");

    clReleaseEvent(ev);
    clSVMFree(ctx, pool);
    clSVMFree(ctx, heads);
    clSVMFree(ctx, sums);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(want);
    free(order);
    return wrong ? 1 : 0;
}

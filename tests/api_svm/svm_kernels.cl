/* Kernels that take SVM pointers (tests/api_svm/svm_kernel_test.c),
 * built as OpenCL C 3.0. Host versions for the emulated device are in
 * emu_svm_kernels.c, which must follow any change here. */

/* A list node as the host lays it out: next at 0, value at 8. */
struct node {
    global struct node *next;
    long value;
};

/* The sum of the values of the list starting at head, in out[0]: the
 * nodes hold SVM pointers to each other, possibly across allocations. */
kernel void svm_list_sum(global struct node *head, global long *out)
{
    if (get_global_id(0) != 0)
        return;
    long s = 0;
    for (global struct node *n = head; n; n = n->next)
        s += n->value;
    out[0] = s;
}

/* p[i] *= s for every i < n, one work-item per element. */
kernel void svm_scale(global float *p, float s, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        p[i] *= s;
}

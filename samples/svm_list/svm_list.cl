/* Linked lists in shared virtual memory: each work-item walks one list
 * whose nodes the host built in SVM memory and linked with ordinary
 * pointers, and writes the sum of its values. The pointers mean the same
 * on the GPU as on the host, so nothing is translated. */
typedef struct node {
    global struct node *next;
    long value;
} node_t;

/* heads[i]: the address of list i's first node (a kernel argument may not
 * be a pointer to a pointer in OpenCL C 1.2, so it is passed as ulongs). */
kernel void list_sum(global const ulong *heads, global long *sums)
{
    size_t i = get_global_id(0);
    long s = 0;
    for (global const node_t *n = (global const node_t *)heads[i]; n; n = n->next)
        s += n->value;
    sums[i] = s;
}

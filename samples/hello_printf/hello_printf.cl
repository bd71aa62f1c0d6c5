/* Every work-item reports with printf; r[i] keeps what printf returned
 * (0 when the line was written, -1 when the printf buffer was full). */
__kernel void hello(__global const float *x, __global int *r, uint n)
{
    uint i = (uint)get_global_id(0);
    if (i < n)
        r[i] = printf("work-item %u of group %u: x = %.3f, %#x, %v4hld, %s, %c, %ld\n", i,
                      (uint)get_group_id(0), x[i], i * 17u, (int4)(i, -(int)i, 2 * i, 3),
                      "hello", (char)('A' + i % 26), (long)i << 33);
}

/* Kernels of the hcqcl benchmark. Built from source on every platform. */

__kernel void empty(__global int *p)
{
}

__kernel void copy4(__global const float4 *restrict src, __global float4 *restrict dst)
{
    size_t i = get_global_id(0);
    dst[i] = src[i];
}

/* One work-item's dependent chain of n steps: a long kernel whose length
 * the host picks (clbench, "beside a long kernel"). */
__kernel void spin(__global uint *p, uint n)
{
    uint x = p[0];
    for (uint i = 0; i < n; i++)
        x = x * 1664525u + 1013904223u;
    p[1] = x;
}

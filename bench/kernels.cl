/* Kernels of the hcqcl benchmark. Built from source on every platform. */

__kernel void empty(__global int *p)
{
}

__kernel void copy4(__global const float4 *restrict src, __global float4 *restrict dst)
{
    size_t i = get_global_id(0);
    dst[i] = src[i];
}

/* Kernels that call kernels (OpenCL C allows a __kernel function to be
 * called like any other function): scale is launched directly and called
 * by scale_twice, which is called in turn by scale_more; tile_sum has a
 * __local array and is called by uses_tile, which has one of its own. */
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void scale(__global float *out, __global const float *in, float factor, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        out[i] = in[i] * factor;
}

__kernel void scale_twice(__global float *out, __global const float *in, float factor, uint n)
{
    scale(out, in, factor, n);
    scale(out, out, factor + 1.0f, n);
}

__kernel void scale_more(__global float *data, uint n) { scale_twice(data, data, 2.0f, n); }

__kernel void tile_sum(__global int *out)
{
    __local int tile[64];
    size_t l = get_local_id(0);
    tile[l] = (int)get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[l] + tile[63 - l];
}

__kernel void uses_tile(__global int *out)
{
    __local int mine[128];
    mine[get_local_id(0)] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_sum(out);
    out[get_global_id(0)] += mine[127 - get_local_id(0)];
}

/*
 * Sum reduction: each work-group adds 2 * local_size elements through a
 * tree in __local memory and writes one partial sum.
 */
__kernel void reduce_sum(__global const float *in, __global float *partial,
                         __local float *scratch, uint n)
{
    uint lid = get_local_id(0), lsz = get_local_size(0);
    size_t base = get_group_id(0) * (size_t)lsz * 2 + lid;
    float v = 0.0f;
    if (base < n)
        v = in[base];
    if (base + lsz < n)
        v += in[base + lsz];
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = lsz / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

/* Stage 1 (first queue): scale in place. */
__kernel void pipeline_scale(__global float *data, float factor, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        data[i] *= factor;
}

/* Stage 2 (second queue): dst = src + offset. */
__kernel void pipeline_offset(__global const float *src, __global float *dst, float offset, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        dst[i] = src[i] + offset;
}

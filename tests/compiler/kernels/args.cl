/* Argument metadata and attributes carried in the container. */
typedef struct { float x; int y; } pair_t;

__kernel __attribute__((reqd_work_group_size(64, 2, 1)))
void qualifiers(__global const float *restrict in, __local float *scratch, __constant float4 *coef,
                read_only image2d_t img, uint n, volatile __global int *flags, pair_t p)
{
    size_t l = get_local_id(0);
    scratch[l] = in[get_global_id(0)] * coef[0].x + p.x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0 && get_global_id(0) < n)
        flags[get_group_id(0)] = (int)scratch[1] + p.y;
}

__kernel __attribute__((work_group_size_hint(16, 4, 1))) __attribute__((vec_type_hint(uint4)))
void hinted(__global uint4 *out) { out[get_global_id(0)] += (uint4)(1); }

__kernel void no_args(void) { }

/* Builtins the shim supplies for libclc 16 (cc_test.c, test_shim_fixes):
 * 64-bit rotate, scalar and vector, and smoothstep with scalar edges on
 * double vectors. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void rot(__global ulong *o, __global const ulong *a, __global const ulong *b)
{
    size_t i = get_global_id(0);
    o[i] = rotate(a[i], b[i]);
}

__kernel void rot_vec(__global long3 *o3, __global ulong16 *o16, __global const long3 *a3,
                      __global const ulong16 *a16)
{
    size_t i = get_global_id(0);
    o3[i] = rotate(a3[i], a3[i + 1]);
    o16[i] = rotate(a16[i], a16[i + 1]);
}

__kernel void smooth(__global double2 *o, __global const double *e, __global const double2 *x)
{
    size_t i = get_global_id(0);
    o[i] = smoothstep(e[0], e[1], x[i]);
    o[i + 1] = (double2)(smoothstep(e[0], e[1], (double3)(x[i], 0.5)).s2, 0.0);
}

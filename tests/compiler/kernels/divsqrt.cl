/* Float division, reciprocal and square root, scalar and vector, with
 * libclc's sqrt, rsqrt and hypot (cc_test: CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
 * holds when every build emits div.rn, rcp.rn and sqrt.rn). */
kernel void k(global float4 *a, global float4 *b, global float *c)
{
    size_t i = get_global_id(0);
    a[i] = a[i] / b[i] + sqrt(b[i]) + 1.0f / a[i] + rsqrt(b[i]);
    c[i] = c[i] / c[i + 1] + sqrt(c[i]) + hypot(c[i], c[i + 2]);
}

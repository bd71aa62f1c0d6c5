/* Many live values (cc_test, cl_nv_compiler_options): ptxas gives it more
 * than 40 registers unless -cl-nv-maxrregcount caps them. #pragma unroll
 * in both spellings (cl_nv_pragma_unroll). */
kernel void heavy(global float *a)
{
    float x[32];
#pragma unroll
    for (int i = 0; i < 32; i++)
        x[i] = a[i * get_global_id(0)];
    float s = 0;
#pragma unroll 4
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++)
            s += x[i] * x[j] * (i ^ j);
    a[get_global_id(0)] = s;
}

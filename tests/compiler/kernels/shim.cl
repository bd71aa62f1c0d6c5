/* Work-item functions served by hcqcl-cc's shim from %envreg (cbuf0 0x40+). */
kernel void work_dim(global uint *out) { out[0] = get_work_dim(); }

kernel void offsets(global ulong *out)
{
    out[get_global_id(0)] = get_global_offset(0) ^ get_global_offset(1) << 1 ^ get_global_offset(2) << 2;
}

kernel void natives(global float4 *a, global float *b)
{
    a[0] = native_exp(a[1]) + native_sin(a[2]) + native_powr(a[3], a[4]);
    b[0] = native_log10(b[1]) + native_tan(b[2]) + native_cos(b[3]) + native_exp2(b[4]);
    b[5] = (float)mad_hi((int)b[6], 7, 3);
}

kernel void groups(global ulong *out)
{
    out[0] = get_group_id(0) ^ get_group_id(1) << 1 ^ get_group_id(2) << 2;
}

kernel void sizes(global ulong *out)
{
    out[0] = get_global_size(0) ^ get_global_size(1) << 1 ^ get_global_size(2) << 2;
    out[1] = get_num_groups(0) ^ get_num_groups(1) << 1 ^ get_num_groups(2) << 2;
}

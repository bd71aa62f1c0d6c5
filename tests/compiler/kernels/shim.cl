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

/* 3-component async copies (shim: the 4-component copies), both ways,
 * plain and strided, for a 1-byte and an 8-byte element type; and their
 * prefetch (shim: a hint that does nothing). */
kernel void async3(global const char3 *c, global char3 *co, local char3 *cl,
                   global const double3 *d, global double3 *dout, local double3 *dl)
{
    prefetch(c, 64);
    prefetch(d, 48);
    event_t e = async_work_group_copy(cl, c, 64, 0);
    e = async_work_group_strided_copy(dl, d, 16, 3, e);
    wait_group_events(1, &e);
    e = async_work_group_copy(dout, dl, 16, 0);
    e = async_work_group_strided_copy(co, cl, 64, 2, e);
    wait_group_events(1, &e);
}

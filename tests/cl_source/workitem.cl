/*
 * workitem.cl — the work-item functions over NDRanges that run as several
 * launches (non-uniform work-groups, grids beyond the hardware limits),
 * built as OpenCL C 3.0 (non-uniform work-groups allowed, the OpenCL C 2.0
 * work-item functions and work_group_barrier declared) by workitem_test.c. Precompiled into the build's kernel cache
 * (WORKITEM_OPTIONS in CMakeLists.txt); host versions for the emulated
 * device are in emu_kernels.c, which must follow any change here.
 */

/* A dimension the NDRange does not have (d = work_dim .. 2) or no
 * dimension at all (d = 3), packed: every field is 0 or 1 there. */
ulong absent_dim(uint d)
{
    return get_global_id(d) | get_global_offset(d) << 8 | get_global_size(d) << 16 |
           get_local_size(d) << 24 | get_enqueued_local_size(d) << 32 | get_group_id(d) << 40 |
           get_num_groups(d) << 48 | get_local_id(d) << 56;
}

/* 14 ulongs per work-item at its global linear id: every work-item
 * function of a 2-D NDRange. */
void workitem_fields(global ulong *out)
{
    global ulong *r = out + get_global_linear_id() * 14;
    r[0] = get_global_id(0);
    r[1] = get_global_id(1);
    r[2] = get_global_offset(0);
    r[3] = get_global_offset(1);
    r[4] = get_global_size(0);
    r[5] = get_global_size(1);
    r[6] = get_local_size(0) | get_local_size(1) << 16 | get_enqueued_local_size(0) << 32 |
           get_enqueued_local_size(1) << 48;
    r[7] = get_local_id(0) | get_local_id(1) << 16 | get_local_linear_id() << 32;
    r[8] = get_group_id(0) | get_group_id(1) << 32;
    r[9] = get_num_groups(0) | get_num_groups(1) << 32;
    r[10] = get_global_linear_id();
    r[11] = get_work_dim();
    r[12] = absent_dim(2);
    r[13] = absent_dim(3);
}

kernel void workitems(global ulong *out)
{
    workitem_fields(out);
}

/* The same with a required 8x8 work-group size. */
__attribute__((reqd_work_group_size(8, 8, 1)))
kernel void workitems8x8(global ulong *out)
{
    workitem_fields(out);
}

/* 1-D, through __local memory and both work_group_barrier forms: each
 * work-item takes the global id of its mirror in the group (local id
 * n - 1 - l), then the mirror value of its right neighbour (l + 1 mod n).
 * 4 ulongs per work-item: those two, group id, local size | num groups. */
void mirror_items(global ulong *out, local ulong *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    tmp[l] = get_global_id(0);
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    ulong m = tmp[n - 1 - l];
    work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
    tmp[l] = m;
    work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_device);
    global ulong *r = out + get_global_linear_id() * 4;
    r[0] = m;
    r[1] = tmp[(l + 1) % n];
    r[2] = get_group_id(0);
    r[3] = get_local_size(0) | get_num_groups(0) << 32;
}

kernel void mirror(global ulong *out, local ulong *tmp)
{
    mirror_items(out, tmp);
}

/* The same with a required work-group size: a range it does not divide
 * still ends with a smaller group, as non-uniform work-groups are allowed
 * here (OpenCL C 3.0). */
__attribute__((reqd_work_group_size(64, 1, 1)))
kernel void mirror64(global ulong *out, local ulong *tmp)
{
    mirror_items(out, tmp);
}

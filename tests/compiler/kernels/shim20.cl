/* OpenCL C 2.0 work-item functions and work_group_barrier from hcqcl-cc's
 * shim (libclc 16 has none of them); built with -cl-std=CL2.0. */
kernel void enqueued(global ulong *out)
{
    out[0] = get_enqueued_local_size(0) ^ get_enqueued_local_size(1) << 1 ^
             get_enqueued_local_size(2) << 2;
}

kernel void linear(global ulong *out, local uint *scratch)
{
    scratch[get_local_linear_id()] = (uint)get_global_linear_id();
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_linear_id()] = scratch[0];
    work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_device);
    out[0] = 1;
}

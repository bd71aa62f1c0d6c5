/*
 * Writes each work-item's global id plus a base, with the work dimension
 * folded in; indexes the output relative to the global work offset.
 */
__kernel void iota_offset(__global uint *out, uint base)
{
    size_t gid = get_global_id(0);
    out[gid - get_global_offset(0)] = (uint)gid * 2u + base + get_work_dim() * 1000000u;
}

/*
 * enqueue_mem.c — clEnqueueRead/Write/Copy/FillBuffer and the validators
 * the transfer entry points share.
 */
#include "api/obj.h"

cl_int hcqcl_xfer_check_range(size_t offset, size_t size, size_t total)
{
    /* CL_INVALID_VALUE if the region specified by offset and size is out of bounds */
    HCQCL_CHECK(size <= total && offset <= total - size, CL_INVALID_VALUE,
                "[%zu, +%zu) outside %zu bytes", offset, size, total);
    return CL_SUCCESS;
}

cl_int hcqcl_xfer_check_fill(const void *pattern, size_t pattern_size, size_t offset,
                             size_t size, size_t total)
{
    /* CL_INVALID_VALUE if pattern is NULL */
    HCQCL_CHECK(pattern, CL_INVALID_VALUE, "NULL pattern");
    /* CL_INVALID_VALUE if pattern_size is zero, not a power of two or greater than 128 */
    HCQCL_CHECK(util_is_pow2(pattern_size) && pattern_size <= 128, CL_INVALID_VALUE,
                "pattern size %zu", pattern_size);
    /* CL_INVALID_VALUE if offset is not a multiple of pattern_size */
    HCQCL_CHECK(offset % pattern_size == 0, CL_INVALID_VALUE, "offset %zu, pattern %zu", offset,
                pattern_size);
    /* CL_INVALID_VALUE if size is not a multiple of pattern_size */
    HCQCL_CHECK(size % pattern_size == 0, CL_INVALID_VALUE, "size %zu, pattern %zu", size,
                pattern_size);
    return hcqcl_xfer_check_range(offset, size, total);
}

cl_int hcqcl_xfer_check_host_access(cl_mem_flags mem_flags, bool host_read, bool host_write)
{
    /* CL_INVALID_OPERATION if read on a buffer created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS */
    HCQCL_CHECK(!host_read || !(mem_flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)),
                CL_INVALID_OPERATION, "host read of a buffer with flags 0x%llx",
                (unsigned long long)mem_flags);
    /* CL_INVALID_OPERATION if write on a buffer created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS */
    HCQCL_CHECK(!host_write || !(mem_flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)),
                CL_INVALID_OPERATION, "host write of a buffer with flags 0x%llx",
                (unsigned long long)mem_flags);
    return CL_SUCCESS;
}

cl_int hcqcl_xfer_check_map_flags(cl_map_flags flags)
{
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    /* CL_INVALID_VALUE if values specified in map_flags are not valid */
    HCQCL_CHECK(!(flags & ~known), CL_INVALID_VALUE, "map flags 0x%llx",
                (unsigned long long)flags);
    /* CL_INVALID_VALUE: CL_MAP_READ or CL_MAP_WRITE and CL_MAP_WRITE_INVALIDATE_REGION are mutually exclusive */
    HCQCL_CHECK(!(flags & CL_MAP_WRITE_INVALIDATE_REGION) ||
                    !(flags & (CL_MAP_READ | CL_MAP_WRITE)),
                CL_INVALID_VALUE, "map flags 0x%llx", (unsigned long long)flags);
    return CL_SUCCESS;
}

bool hcqcl_xfer_ranges_overlap(uint64_t a, uint64_t b, uint64_t size)
{
    if (!size)
        return false;
    return a < b ? b - a < size : a - b < size;
}

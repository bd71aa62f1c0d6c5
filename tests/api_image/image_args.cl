/* Image and sampler arguments (tests/api_image/image_kernel_test.c).
 * The kernel itself only stores tag: the image built-ins are not needed
 * to see the arguments arrive. On the emulated device its host twin
 * (emu_image_kernels.c) reads the descriptors the image arguments point
 * at and copies src's pixels into dst, which proves the plumbing. */
kernel void image_args(read_only image2d_t src, global uint *out, sampler_t smp,
                       write_only image2d_t dst, uint tag)
{
    out[get_global_id(0)] = tag;
}

kernel void image3d_arg(read_only image3d_t vol, global uint *out)
{
    out[get_global_id(0)] = 7u;
}

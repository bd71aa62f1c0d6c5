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

/* Arguments declared with typedefs of the image and sampler types: they
 * are an image and a sampler all the same. */
typedef image2d_t img_t;
typedef sampler_t smp_t;
kernel void typedef_args(img_t src, smp_t smp, global uint *out)
{
    out[get_global_id(0)] = 9u;
}

/* images.cl — image kernels for cl_image (image_test.c) and their
 * emulated-device versions (emu_image_kernels.c). Each covers one group of
 * the image built-ins: sampled reads (sampler argument and literals),
 * integer reads and writes, 1D/1D array/1D buffer/2D/2D array/3D images,
 * and the get_image_* queries. */

/* out[i] = read_imagef(img, s, coords[i]) */
kernel void sample2d(read_only image2d_t img, sampler_t s, global const float2 *coords,
                     global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(img, s, coords[i]);
}

/* The same with a sampler literal: normalized, repeat, linear; and a
 * program-scope one: unnormalized, clamp, nearest (in .w of out2). */
constant sampler_t clamp_nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP |
                                   CLK_FILTER_NEAREST;
kernel void sample2d_literal(read_only image2d_t img, global const float2 *coords,
                             global float4 *out, global float4 *out2)
{
    size_t i = get_global_id(0);
    sampler_t s = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
    out[i] = read_imagef(img, s, coords[i]);
    out2[i] = read_imagef(img, clamp_nearest, coords[i]);
}

/* dst(x, y) = base + (x, y, 0, 0) / 16 over a 2D range. */
kernel void fill2d(write_only image2d_t dst, float4 base)
{
    int x = get_global_id(0), y = get_global_id(1);
    write_imagef(dst, (int2)(x, y), base + (float4)(x, y, 0, 0) / 16.0f);
}

/* dst(x, y) = src(x, y) + add, integer channels (read_imageui without a
 * sampler, write_imageui saturating). */
kernel void add_ui(read_only image2d_t src, write_only image2d_t dst, uint4 add)
{
    int2 c = (int2)(get_global_id(0), get_global_id(1));
    write_imageui(dst, c, read_imageui(src, c) + add);
}

/* dst(x, y) = src(x, y) * k, signed channels (read_imagei with an integer
 * coordinate sampler, write_imagei). */
kernel void scale_i(read_only image2d_t src, sampler_t s, write_only image2d_t dst, int k)
{
    int2 c = (int2)(get_global_id(0), get_global_id(1));
    write_imagei(dst, c, read_imagei(src, s, c) * k);
}

/* out[i] = read_imagef(img, s, coords[i]) of a 3D image. */
kernel void sample3d(read_only image3d_t img, sampler_t s, global const float4 *coords,
                     global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(img, s, coords[i]);
}

/* out[i] = read_imagef(img, s, coords[i]) of a 2D array image. */
kernel void sample2d_array(read_only image2d_array_t img, sampler_t s,
                           global const float4 *coords, global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(img, s, coords[i]);
}

/* 1D array image: dst(x, layer) = src(x, layer) read with float
 * coordinates and a sampler, written as is. */
kernel void copy1d_array(read_only image1d_array_t src, sampler_t s,
                         write_only image1d_array_t dst)
{
    int x = get_global_id(0), l = get_global_id(1);
    write_imagef(dst, (int2)(x, l), read_imagef(src, s, (float2)(x + 0.5f, l)));
}

/* 3D writes: dst(x, y, z) = (x, y, z, 1) as integers. */
kernel void fill3d(write_only image3d_t dst)
{
    int4 c = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
    write_imagei(dst, c, (int4)(c.x, c.y, c.z, 1));
}

/* 1D image and 1D buffer image: dst(x) = src(x). */
kernel void copy1d(read_only image1d_t src, write_only image1d_buffer_t dst)
{
    int x = get_global_id(0);
    write_imagef(dst, x, read_imagef(src, x));
}

/* The get_image_* queries of a 3D and a 2D array image. */
kernel void query(read_only image3d_t a, write_only image2d_array_t b, global int *out)
{
    int4 d = get_image_dim(a);
    int2 e = get_image_dim(b);
    out[0] = get_image_width(a);
    out[1] = get_image_height(a);
    out[2] = get_image_depth(a);
    out[3] = get_image_channel_data_type(a);
    out[4] = get_image_channel_order(a);
    out[5] = d.x + 10 * d.y + 100 * d.z + 1000 * d.w;
    out[6] = get_image_width(b);
    out[7] = get_image_height(b);
    out[8] = (int)get_image_array_size(b);
    out[9] = get_image_channel_data_type(b);
    out[10] = get_image_channel_order(b);
    out[11] = e.x + 10 * e.y;
}

/* No image built-in at all: must compile exactly as without the image
 * library (image_compile checks that its code carries none of it). */
kernel void no_images(global float *a)
{
    a[get_global_id(0)] *= 2.0f;
}

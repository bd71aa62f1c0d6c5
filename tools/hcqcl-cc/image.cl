/*
 * image.cl — the OpenCL C image built-ins (read_image{f,i,ui},
 * write_image{f,i,ui}, get_image_*) for software images, appended to the
 * builtin shim after src/api/image_abi.h and image_core.h (hcqcl-cc
 * embeds the four as one text, see tools/CMakeLists.txt).
 *
 * An image argument is the device address of its struct hcqcl_image_abi
 * and a sampler the 64-bit value of its HCQCL_SAMPLER_* bits, but clang
 * types them as opaque image and sampler types that OpenCL C cannot cast.
 * The functions below that convert them, __hcqcl_image_abi (one overload
 * per image type and access) and __hcqcl_sampler_bits, are only declared
 * here: irimage.c defines them in the program's LLVM IR as the identity
 * (pointer passthrough, ptrtoint), where they inline to nothing, and
 * defines __translate_sampler_initializer (a sampler literal) as inttoptr
 * the same way.
 *
 * -mlink-builtin-bitcode links only what a program calls, so a program
 * without image built-ins carries none of this. Each overload copies the
 * descriptor to private memory (only the fields used are loaded) and calls
 * the core, which switches on the channel type and order at run time.
 * read_write images are not supported (not declared for OpenCL C 1.2;
 * hcqcl-cc does not enable __opencl_c_read_write_images).
 */
#define IMG_OVL __attribute__((overloadable))
#define IMG_ABI_DECL(T)                                                                     \
    const __global struct hcqcl_image_abi *IMG_OVL __attribute__((const))                   \
        __hcqcl_image_abi(read_only T);                                                     \
    const __global struct hcqcl_image_abi *IMG_OVL __attribute__((const))                   \
        __hcqcl_image_abi(write_only T);
IMG_ABI_DECL(image1d_t)
IMG_ABI_DECL(image1d_buffer_t)
IMG_ABI_DECL(image1d_array_t)
IMG_ABI_DECL(image2d_t)
IMG_ABI_DECL(image2d_array_t)
IMG_ABI_DECL(image3d_t)
uint __attribute__((const)) __hcqcl_sampler_bits(sampler_t s);

#define F4(o) ((float4)(o[0], o[1], o[2], o[3]))
#define I4(o) ((int4)(o[0], o[1], o[2], o[3]))
#define U4(o) ((uint4)((uint)o[0], (uint)o[1], (uint)o[2], (uint)o[3]))

/* Float-coordinate reads, one function per number of dimensions: the
 * filter's code is large, so the optimizer may keep it out of line when
 * the sampler is not a constant; these take scalars and return a vector,
 * so that call passes registers, and their constant dimension count lets
 * the core's arrays live in registers too. */
#define IMG_READ_FLOAT(DIMS)                                                                \
    static float4 img_read_f##DIMS(const __global struct hcqcl_image_abi *g, uint smp,      \
                                   float x, float y, float z, int arr, float lc)           \
    {                                                                                       \
        struct hcqcl_image_abi d = *g;                                                      \
        float cc[3] = { x, y, z }, o[4];                                                    \
        himg_read_f(0, &d, smp, DIMS, cc, arr ? himg_layer_f(&d, lc) : 0, o);               \
        return F4(o);                                                                       \
    }                                                                                       \
    static int4 img_read_i##DIMS(const __global struct hcqcl_image_abi *g, uint smp,        \
                                 float x, float y, float z, int arr, float lc)             \
    {                                                                                       \
        struct hcqcl_image_abi d = *g;                                                      \
        float cc[3] = { x, y, z };                                                          \
        int o[4];                                                                           \
        himg_read_i(0, &d, smp, DIMS, cc, arr ? himg_layer_f(&d, lc) : 0, o);               \
        return I4(o);                                                                       \
    }
IMG_READ_FLOAT(1)
IMG_READ_FLOAT(2)
IMG_READ_FLOAT(3)

/* The reads with a sampler of one image type: T, its float and int
 * coordinate types, its spatial dimensions, the coordinate's components
 * as (x, y, z) for the core and its layer (ARR: an array image). */
#define IMG_READS_SAMPLED(T, CF, CI, DIMS, ARR, X, Y, Z, L)                                 \
    float4 IMG_OVL read_imagef(read_only T img, sampler_t s, CF c)                          \
    {                                                                                       \
        return img_read_f##DIMS(__hcqcl_image_abi(img), __hcqcl_sampler_bits(s), X, Y, Z,   \
                                ARR, L);                                                    \
    }                                                                                       \
    float4 IMG_OVL read_imagef(read_only T img, sampler_t s, CI c)                          \
    {                                                                                       \
        struct hcqcl_image_abi d = *__hcqcl_image_abi(img);                                 \
        int cc[3] = { X, Y, Z };                                                            \
        float o[4];                                                                         \
        himg_read_f_i(0, &d, __hcqcl_sampler_bits(s), DIMS, cc, ARR ? himg_layer_i(&d, L) : 0, o); \
        return F4(o);                                                                       \
    }                                                                                       \
    int4 IMG_OVL read_imagei(read_only T img, sampler_t s, CF c)                            \
    {                                                                                       \
        return img_read_i##DIMS(__hcqcl_image_abi(img), __hcqcl_sampler_bits(s), X, Y, Z,   \
                                ARR, L);                                                    \
    }                                                                                       \
    int4 IMG_OVL read_imagei(read_only T img, sampler_t s, CI c)                            \
    {                                                                                       \
        struct hcqcl_image_abi d = *__hcqcl_image_abi(img);                                 \
        int cc[3] = { X, Y, Z }, o[4];                                                      \
        himg_read_i_i(0, &d, __hcqcl_sampler_bits(s), DIMS, cc, ARR ? himg_layer_i(&d, L) : 0, o); \
        return I4(o);                                                                       \
    }                                                                                       \
    uint4 IMG_OVL read_imageui(read_only T img, sampler_t s, CF c)                          \
    {                                                                                       \
        return as_uint4(img_read_i##DIMS(__hcqcl_image_abi(img), __hcqcl_sampler_bits(s),   \
                                         X, Y, Z, ARR, L));                                 \
    }                                                                                       \
    uint4 IMG_OVL read_imageui(read_only T img, sampler_t s, CI c)                          \
    {                                                                                       \
        struct hcqcl_image_abi d = *__hcqcl_image_abi(img);                                 \
        int cc[3] = { X, Y, Z }, o[4];                                                      \
        himg_read_i_i(0, &d, __hcqcl_sampler_bits(s), DIMS, cc, ARR ? himg_layer_i(&d, L) : 0, o); \
        return U4(o);                                                                       \
    }

/* The sampler-less reads (integer coordinates; out of range is undefined:
 * clamped to the edge, as ADDRESS_NONE). */
#define IMG_READS_PLAIN(T, CI, DIMS, ARR, X, Y, Z, L)                                       \
    float4 IMG_OVL read_imagef(read_only T img, CI c)                                       \
    {                                                                                       \
        struct hcqcl_image_abi d = *__hcqcl_image_abi(img);                                 \
        int cc[3] = { X, Y, Z };                                                            \
        float o[4];                                                                         \
        himg_read_f_i(0, &d, 0, DIMS, cc, ARR ? himg_layer_i(&d, L) : 0, o);                \
        return F4(o);                                                                       \
    }                                                                                       \
    int4 IMG_OVL read_imagei(read_only T img, CI c)                                         \
    {                                                                                       \
        struct hcqcl_image_abi d = *__hcqcl_image_abi(img);                                 \
        int cc[3] = { X, Y, Z }, o[4];                                                      \
        himg_read_i_i(0, &d, 0, DIMS, cc, ARR ? himg_layer_i(&d, L) : 0, o);                \
        return I4(o);                                                                       \
    }                                                                                       \
    uint4 IMG_OVL read_imageui(read_only T img, CI c)                                       \
    {                                                                                       \
        struct hcqcl_image_abi d = *__hcqcl_image_abi(img);                                 \
        int cc[3] = { X, Y, Z }, o[4];                                                      \
        himg_read_i_i(0, &d, 0, DIMS, cc, ARR ? himg_layer_i(&d, L) : 0, o);                \
        return U4(o);                                                                       \
    }

/* The writes (a layer outside the array, like a coordinate outside the
 * image, drops the write). */
#define IMG_WRITES(T, CI, DIMS, ARR, X, Y, Z, L)                                            \
    void IMG_OVL write_imagef(write_only T img, CI c, float4 v)                             \
    {                                                                                       \
        struct hcqcl_image_abi d = *__hcqcl_image_abi(img);                                 \
        int cc[3] = { X, Y, Z };                                                            \
        float col[4] = { v.x, v.y, v.z, v.w };                                              \
        himg_write_f(0, &d, DIMS, cc, ARR ? (L) : 0, col);                                  \
    }                                                                                       \
    void IMG_OVL write_imagei(write_only T img, CI c, int4 v)                               \
    {                                                                                       \
        struct hcqcl_image_abi d = *__hcqcl_image_abi(img);                                 \
        int cc[3] = { X, Y, Z }, col[4] = { v.x, v.y, v.z, v.w };                           \
        himg_write_i(0, &d, DIMS, cc, ARR ? (L) : 0, col, 0);                               \
    }                                                                                       \
    void IMG_OVL write_imageui(write_only T img, CI c, uint4 v)                             \
    {                                                                                       \
        struct hcqcl_image_abi d = *__hcqcl_image_abi(img);                                 \
        int cc[3] = { X, Y, Z };                                                            \
        int col[4] = { (int)v.x, (int)v.y, (int)v.z, (int)v.w };                            \
        himg_write_i(0, &d, DIMS, cc, ARR ? (L) : 0, col, 1);                               \
    }

IMG_READS_SAMPLED(image1d_t, float, int, 1, 0, c, 0, 0, 0)
IMG_READS_PLAIN(image1d_t, int, 1, 0, c, 0, 0, 0)
IMG_WRITES(image1d_t, int, 1, 0, c, 0, 0, 0)

IMG_READS_PLAIN(image1d_buffer_t, int, 1, 0, c, 0, 0, 0)
IMG_WRITES(image1d_buffer_t, int, 1, 0, c, 0, 0, 0)

IMG_READS_SAMPLED(image1d_array_t, float2, int2, 1, 1, c.x, 0, 0, c.y)
IMG_READS_PLAIN(image1d_array_t, int2, 1, 1, c.x, 0, 0, c.y)
IMG_WRITES(image1d_array_t, int2, 1, 1, c.x, 0, 0, c.y)

IMG_READS_SAMPLED(image2d_t, float2, int2, 2, 0, c.x, c.y, 0, 0)
IMG_READS_PLAIN(image2d_t, int2, 2, 0, c.x, c.y, 0, 0)
IMG_WRITES(image2d_t, int2, 2, 0, c.x, c.y, 0, 0)

IMG_READS_SAMPLED(image2d_array_t, float4, int4, 2, 1, c.x, c.y, 0, c.z)
IMG_READS_PLAIN(image2d_array_t, int4, 2, 1, c.x, c.y, 0, c.z)
IMG_WRITES(image2d_array_t, int4, 2, 1, c.x, c.y, 0, c.z)

IMG_READS_SAMPLED(image3d_t, float4, int4, 3, 0, c.x, c.y, c.z, 0)
IMG_READS_PLAIN(image3d_t, int4, 3, 0, c.x, c.y, c.z, 0)
IMG_WRITES(image3d_t, int4, 3, 0, c.x, c.y, c.z, 0)

/* get_image_*: descriptor fields, for both accesses. */
#define IMG_QUERY(RT, NAME, T, EXPR)                                                        \
    RT IMG_OVL NAME(read_only T img)                                                        \
    {                                                                                       \
        const __global struct hcqcl_image_abi *d = __hcqcl_image_abi(img);                 \
        return EXPR;                                                                        \
    }                                                                                       \
    RT IMG_OVL NAME(write_only T img)                                                       \
    {                                                                                       \
        const __global struct hcqcl_image_abi *d = __hcqcl_image_abi(img);                  \
        return EXPR;                                                                        \
    }
#define IMG_QUERIES_ALL(T)                                                                  \
    IMG_QUERY(int, get_image_width, T, (int)d->width)                                       \
    IMG_QUERY(int, get_image_channel_data_type, T, (int)d->type)                            \
    IMG_QUERY(int, get_image_channel_order, T, (int)d->order)
IMG_QUERIES_ALL(image1d_t)
IMG_QUERIES_ALL(image1d_buffer_t)
IMG_QUERIES_ALL(image1d_array_t)
IMG_QUERIES_ALL(image2d_t)
IMG_QUERIES_ALL(image2d_array_t)
IMG_QUERIES_ALL(image3d_t)
IMG_QUERY(int, get_image_height, image2d_t, (int)d->height)
IMG_QUERY(int, get_image_height, image2d_array_t, (int)d->height)
IMG_QUERY(int, get_image_height, image3d_t, (int)d->height)
IMG_QUERY(int, get_image_depth, image3d_t, (int)d->depth)
IMG_QUERY(size_t, get_image_array_size, image1d_array_t, (size_t)d->array_size)
IMG_QUERY(size_t, get_image_array_size, image2d_array_t, (size_t)d->array_size)
IMG_QUERY(int2, get_image_dim, image2d_t, ((int2)((int)d->width, (int)d->height)))
IMG_QUERY(int2, get_image_dim, image2d_array_t, ((int2)((int)d->width, (int)d->height)))
IMG_QUERY(int4, get_image_dim, image3d_t,
          ((int4)((int)d->width, (int)d->height, (int)d->depth, 0)))

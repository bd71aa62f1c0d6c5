/*
 * image_abi.h — how an image and a sampler reach a kernel.
 *
 * Images are software images: the pixels are plain device memory in the
 * layout the host API describes (rows of row_pitch bytes, slices or
 * array layers of slice_pitch bytes), and the image built-ins of OpenCL
 * C (read_image*, write_image*, get_image_*) are code hcqcl-cc links into
 * every program that uses them. No texture or surface unit is involved.
 *
 * An image kernel argument is the device address of one descriptor
 * (struct hcqcl_image_abi, 64 bytes, 64-byte aligned) in GPU memory; the
 * runtime writes one per image and device and passes the one of the
 * launching device. A sampler argument, or a sampler declared in the
 * program, is the 64-bit value of its bits below: the same bits clang
 * gives a sampler initializer (CLK_* of opencl-c-base.h), so a literal
 * and an argument read alike.
 *
 * This header is read as C (the runtime, the emulated device's kernels)
 * and as OpenCL C (the image built-ins). Little endian, natural
 * alignment; fields never move (cached binaries depend on them).
 */
#ifndef HCQCL_API_IMAGE_ABI_H
#define HCQCL_API_IMAGE_ABI_H

#ifdef __OPENCL_C_VERSION__
typedef ulong hcqcl_abi_u64;
typedef uint hcqcl_abi_u32;
#else
#include <stdint.h>
typedef uint64_t hcqcl_abi_u64;
typedef uint32_t hcqcl_abi_u32;
#endif

#define HCQCL_IMAGE_ABI_SIZE 64u

struct hcqcl_image_abi {
    hcqcl_abi_u64 data;        /* device address of pixel (0, 0, 0) on this device */
    hcqcl_abi_u64 row_pitch;   /* bytes from one row to the next (1D: width * elem_size) */
    hcqcl_abi_u64 slice_pitch; /* bytes from one 3D slice or array layer to the next
                                * (1D array: from one 1D image to the next);
                                * 0 for 1D, 1D buffer and 2D images */
    hcqcl_abi_u32 width;       /* pixels */
    hcqcl_abi_u32 height;      /* rows; 1 for 1D, 1D buffer and 1D array images */
    hcqcl_abi_u32 depth;       /* slices; 1 for all but 3D images */
    hcqcl_abi_u32 array_size;  /* layers of a 1D or 2D array image; 0 otherwise */
    hcqcl_abi_u32 order;       /* cl_channel_order (CL_R 0x10B0 ...) = CLK_ value */
    hcqcl_abi_u32 type;        /* cl_channel_type (CL_SNORM_INT8 0x10D0 ...) = CLK_ value */
    hcqcl_abi_u32 elem_size;   /* bytes per pixel */
    hcqcl_abi_u32 mem_type;    /* cl_mem_object_type (CL_MEM_OBJECT_IMAGE2D 0x10F1 ...) */
    hcqcl_abi_u32 reserved[2]; /* 0 */
};

/* Sampler bits (clang's sampler initializer values, opencl-c-base.h). */
#define HCQCL_SAMPLER_NORMALIZED 0x01u      /* CLK_NORMALIZED_COORDS_TRUE */
#define HCQCL_SAMPLER_ADDRESS_MASK 0x0Eu
#define HCQCL_SAMPLER_ADDRESS_NONE 0x00u    /* CLK_ADDRESS_NONE */
#define HCQCL_SAMPLER_ADDRESS_EDGE 0x02u    /* CLK_ADDRESS_CLAMP_TO_EDGE */
#define HCQCL_SAMPLER_ADDRESS_CLAMP 0x04u   /* CLK_ADDRESS_CLAMP */
#define HCQCL_SAMPLER_ADDRESS_REPEAT 0x06u  /* CLK_ADDRESS_REPEAT */
#define HCQCL_SAMPLER_ADDRESS_MIRROR 0x08u  /* CLK_ADDRESS_MIRRORED_REPEAT */
#define HCQCL_SAMPLER_FILTER_MASK 0x30u
#define HCQCL_SAMPLER_FILTER_NEAREST 0x10u  /* CLK_FILTER_NEAREST */
#define HCQCL_SAMPLER_FILTER_LINEAR 0x20u   /* CLK_FILTER_LINEAR */

#endif

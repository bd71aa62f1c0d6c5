// Kernels for the clEnqueueNDRangeKernel tests: compiled with
// nvcc -cubin -arch=sm_90 -O3; host_queue_kernels.c computes the same on
// the emulated device. They read the launch's first work-item and
// work_dim from the environment registers the launcher fills (core/hcq.h,
// enum hcq_envreg: envreg 2d/2d+1 = global offset + the launch's start in
// dimension d, envreg 6 = work_dim).

__device__ __forceinline__ unsigned envreg(int i)
{
    unsigned v;
    switch (i) {
    case 0: asm volatile("mov.u32 %0, %%envreg0;" : "=r"(v)); break;
    case 1: asm volatile("mov.u32 %0, %%envreg1;" : "=r"(v)); break;
    case 2: asm volatile("mov.u32 %0, %%envreg2;" : "=r"(v)); break;
    case 3: asm volatile("mov.u32 %0, %%envreg3;" : "=r"(v)); break;
    default: asm volatile("mov.u32 %0, %%envreg6;" : "=r"(v)); break;
    }
    return v;
}

// For every work-item (x, y) = global id: out[y * width + x] =
// 1 + x + (y << 12) + (work_dim << 24) and loc[...] = local size x | y << 16.
extern "C" __global__ void ids2d(unsigned *out, unsigned *loc, unsigned width)
{
    unsigned long long off0 = envreg(0) | (unsigned long long)envreg(1) << 32;
    unsigned long long off1 = envreg(2) | (unsigned long long)envreg(3) << 32;
    unsigned long long x = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x + off0;
    unsigned long long y = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y + off1;
    unsigned long long i = y * width + x;
    out[i] = 1u + (unsigned)x + ((unsigned)y << 12) + (envreg(6) << 24);
    loc[i] = blockDim.x | (blockDim.y << 16);
}

// Test kernels for hcqcl: compiled with nvcc -cubin -arch=sm_90 -O3 and
// embedded in libhcqcl_test_kernels together with their host
// implementations for the emulated device (host_kernels.c). Keep the two in
// step: the host version must compute exactly what this code computes.

// c[i] = a[i] + b[i] + k for i < n.
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i] + (float)k;
}

// Static shared memory, a barrier, and a generic pointer into shared memory
// (exercises the shared window). Launch with 256 threads per block.
__device__ __noinline__ int load_generic(const volatile int *p, int i) { return p[i]; }

extern "C" __global__ void smem_win(int *out, int idx)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = t * 3 + 1;
    __syncthreads();
    out[blockIdx.x * 256 + t] = load_generic((const volatile int *)s, (t + idx) & 255);
}

// A dynamically indexed local array and a generic pointer into it (needs a
// stack frame, local memory and the local window).
extern "C" __global__ void local_win(int *out, int idx)
{
    volatile int arr[64];
    int t = threadIdx.x;
    for (int j = 0; j < 64; j++)
        arr[j] = j * 7 + t;
    out[blockIdx.x * blockDim.x + t] =
        arr[(idx + t) & 63] + load_generic((const volatile int *)arr, (idx * 3 + t) & 63);
}

// Dynamic shared memory sized at launch: n ints.
extern "C" __global__ void dyn_smem(int *out, int n)
{
    extern __shared__ int ds[];
    int t = threadIdx.x;
    for (int j = t; j < n; j += blockDim.x)
        ds[j] = j ^ 0x55;
    __syncthreads();
    int acc = 0;
    for (int j = 0; j < n; j++)
        acc += ds[j];
    out[blockIdx.x * blockDim.x + t] = acc;
}

// __constant__ data (bank 3) and a __device__ global reached through a
// relocated address (bank 4).
__constant__ int cvals[4] = {11, 22, 33, 44};
__device__ int gvar = 1234;
extern "C" __global__ void consts(int *out)
{
    int t = threadIdx.x;
    out[t] = cvals[t & 3] + gvar;
}

// What the kernel sees of blockDim/gridDim/blockIdx (constant bank 0).
extern "C" __global__ void dims(int *out)
{
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        out[b * 8 + 0] = blockDim.x;
        out[b * 8 + 1] = blockDim.y;
        out[b * 8 + 2] = blockDim.z;
        out[b * 8 + 3] = gridDim.x;
        out[b * 8 + 4] = gridDim.y;
        out[b * 8 + 5] = gridDim.z;
        out[b * 8 + 6] = blockIdx.x | (blockIdx.y << 10) | (blockIdx.z << 20);
    }
}

// Byte copy, grid-stride: dst[i] = src[i] for i < n.
extern "C" __global__ void __launch_bounds__(256) copy_bytes(unsigned char *dst,
                                                             const unsigned char *src,
                                                             unsigned long long n)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        dst[i] = src[i];
}

// Fill with a pattern of psize bytes (1..128), passed by value:
// dst[i] = pattern[i % psize] for i < n.
struct fill_pattern {
    unsigned char b[128];
};
extern "C" __global__ void fill_bytes(unsigned char *dst, fill_pattern pattern, unsigned psize,
                                      unsigned long long n)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        dst[i] = pattern.b[i % psize];
}

// Kernels for tests/gpu and bench/hcqbench: compiled with nvcc -cubin
// -arch=sm_90 -O3 and embedded in libhcqcl_test_kernels beside
// test_kernels.cu, with host implementations for the emulated device in
// host_kernels.c (keep the two in step).

// Does nothing: launch overhead alone.
extern "C" __global__ void empty(void) {}

// Every thread adds 1 to *counter (64-bit): after N launches of G blocks
// of T threads the counter holds exactly N * G * T.
extern "C" __global__ void atomic_inc(unsigned long long *counter)
{
    atomicAdd(counter, 1ull);
}

// Block 0's thread 0 spins on the global timer (ns) until ns have passed
// and stores the time it spun in *out: a kernel of known length.
extern "C" __global__ void spin_ns(unsigned long long ns, unsigned long long *out)
{
    if (blockIdx.x || threadIdx.x)
        return;
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
    *out = t - t0;
}

// Every thread stores value at out[global thread index] (1-D grids): what
// a release after the grid orders before the host sees it.
extern "C" __global__ void stamp(unsigned *out, unsigned value)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

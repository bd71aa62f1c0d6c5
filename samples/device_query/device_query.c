/*
 * device_query — list every OpenCL platform and device with the facts an
 * application reads before it plans work (clinfo in miniature).
 * Exit 0 when at least one GPU answers every query with a sane value.
 */
#include "sample.h"

static void str_info(cl_device_id d, cl_device_info what, const char *label)
{
    char buf[4096] = "";
    CHECK(clGetDeviceInfo(d, what, sizeof(buf), buf, NULL));
    printf("    %-28s %s\n", label, buf);
}

int main(void)
{
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(0, NULL, &np));
    cl_platform_id *ps = malloc(np * sizeof(*ps));
    CHECK(clGetPlatformIDs(np, ps, NULL));
    int gpus = 0, bad = 0;
    for (cl_uint p = 0; p < np; p++) {
        char name[256], version[256], vendor[256];
        CHECK(clGetPlatformInfo(ps[p], CL_PLATFORM_NAME, sizeof(name), name, NULL));
        CHECK(clGetPlatformInfo(ps[p], CL_PLATFORM_VERSION, sizeof(version), version, NULL));
        CHECK(clGetPlatformInfo(ps[p], CL_PLATFORM_VENDOR, sizeof(vendor), vendor, NULL));
        printf("Platform %u: %s (%s, %s)\n", p, name, vendor, version);
        cl_uint nd = 0;
        cl_int err = clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (err == CL_DEVICE_NOT_FOUND || nd == 0)
            continue;
        CHECK(err);
        cl_device_id *ds = malloc(nd * sizeof(*ds));
        CHECK(clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, nd, ds, NULL));
        for (cl_uint i = 0; i < nd; i++) {
            cl_device_type type;
            cl_uint cus, dims, clock, addr_bits;
            cl_ulong gmem, lmem, cmem, maxalloc;
            size_t wg, items[3];
            cl_bool avail, compiler;
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_TYPE, sizeof(type), &type, NULL));
            printf("  Device %u:\n", i);
            str_info(ds[i], CL_DEVICE_NAME, "CL_DEVICE_NAME");
            str_info(ds[i], CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR");
            str_info(ds[i], CL_DEVICE_VERSION, "CL_DEVICE_VERSION");
            str_info(ds[i], CL_DRIVER_VERSION, "CL_DRIVER_VERSION");
            str_info(ds[i], CL_DEVICE_OPENCL_C_VERSION, "CL_DEVICE_OPENCL_C_VERSION");
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cus), &cus, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(clock), &clock, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_ADDRESS_BITS, sizeof(addr_bits), &addr_bits, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(gmem), &gmem, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(maxalloc), &maxalloc, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_LOCAL_MEM_SIZE, sizeof(lmem), &lmem, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof(cmem), &cmem, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof(dims), &dims, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(items), items, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_AVAILABLE, sizeof(avail), &avail, NULL));
            CHECK(clGetDeviceInfo(ds[i], CL_DEVICE_COMPILER_AVAILABLE, sizeof(compiler), &compiler, NULL));
            printf("    %-28s %s\n", "CL_DEVICE_TYPE", type & CL_DEVICE_TYPE_GPU ? "GPU" : "other");
            printf("    %-28s %u\n", "CL_DEVICE_MAX_COMPUTE_UNITS", cus);
            printf("    %-28s %u MHz\n", "CL_DEVICE_MAX_CLOCK_FREQUENCY", clock);
            printf("    %-28s %u\n", "CL_DEVICE_ADDRESS_BITS", addr_bits);
            printf("    %-28s %llu MiB\n", "CL_DEVICE_GLOBAL_MEM_SIZE", (unsigned long long)(gmem >> 20));
            printf("    %-28s %llu MiB\n", "CL_DEVICE_MAX_MEM_ALLOC_SIZE", (unsigned long long)(maxalloc >> 20));
            printf("    %-28s %llu KiB\n", "CL_DEVICE_LOCAL_MEM_SIZE", (unsigned long long)(lmem >> 10));
            printf("    %-28s %llu KiB\n", "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE", (unsigned long long)(cmem >> 10));
            printf("    %-28s %zu\n", "CL_DEVICE_MAX_WORK_GROUP_SIZE", wg);
            printf("    %-28s %zu x %zu x %zu\n", "CL_DEVICE_MAX_WORK_ITEM_SIZES", items[0], items[1], items[2]);
            printf("    %-28s %s / %s\n", "AVAILABLE / COMPILER", avail ? "yes" : "no", compiler ? "yes" : "no");
            if (type & CL_DEVICE_TYPE_GPU) {
                gpus++;
                if (!cus || !gmem || !maxalloc || maxalloc > gmem || !lmem || wg < 64 || dims < 3 ||
                    items[0] < 64 || items[0] > wg || !avail || (addr_bits != 32 && addr_bits != 64)) {
                    fprintf(stderr, "device %u of platform %u reports implausible limits\n", i, p);
                    bad++;
                }
            }
        }
        free(ds);
    }
    free(ps);
    printf("%d GPU(s) found%s\n", gpus, bad ? ", some with implausible limits" : "");
    return gpus > 0 && !bad ? 0 : 1;
}

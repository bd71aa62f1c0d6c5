/*
 * core_device.c — enumeration facts, open/close reference counting and
 * re-open, the GPU timer.
 */
#include <string.h>
#include <time.h>

#include "core_test.h"

static void test_enumerate(void)
{
    struct hcq_device *const *devs, *const *again;
    unsigned n, n2;
    hcq_enumerate(&devs, &n);
    REQUIRE(n >= 1);
    hcq_enumerate(&again, &n2);
    EXPECT_EQ(n, n2);
    EXPECT(devs == again && devs[0] == again[0]); /* stable */
    EXPECT_EQ(strlen(hcq_enumerate_error()), 0);
    for (unsigned i = 0; i < n; i++) {
        const struct hcq_device_info *in = hcq_device_info(devs[i]);
        printf("device %u: %s driver %s sm_%x %u SMs (%u GPCs x %u TPCs x %u) %llu MiB L2 %llu "
               "KiB BAR1 %llu MiB bus %u bits pci %04x:%02x:%02x.%u %04x:%04x classes "
               "%04x/%04x/%04x/%04x%s\n",
               i, in->name, in->driver_version, in->arch >> 4, in->sm_count, in->gpc_count,
               in->tpc_per_gpc, in->sm_per_tpc, (unsigned long long)(in->mem_bytes >> 20),
               (unsigned long long)(in->l2_bytes >> 10),
               (unsigned long long)(in->bar1_bytes >> 20), in->mem_bus_width, in->pci_domain,
               in->pci_bus, in->pci_device, in->pci_function, in->pci_vendor_id,
               in->pci_device_id, in->compute_class, in->copy_class, in->gpfifo_class,
               in->usermode_class, in->emulated ? " emulated" : "");
        EXPECT(in->name[0]);
        EXPECT(!strncmp(in->driver_version, "580.", 4));
        EXPECT(in->arch >= 0x800);
        EXPECT(in->sm_count > 0);
        EXPECT(in->sm_count <= in->gpc_count * in->tpc_per_gpc * in->sm_per_tpc);
        EXPECT_EQ(in->warp_size, 32);
        EXPECT(in->max_warps_per_sm >= 32);
        EXPECT(in->mem_bytes > 0);
        EXPECT_EQ(in->pci_vendor_id, 0x10de);
        if (in->pci_device_id == 0x2335)
            EXPECT_EQ(in->clock_mhz, 1980);
        static const uint8_t zero[16];
        EXPECT(memcmp(in->uuid, zero, 16) != 0);
        EXPECT(in->compute_class && in->copy_class && in->gpfifo_class && in->usermode_class);
        if (in->arch == 0x900) {
            EXPECT_EQ(in->compute_class, 0xCBC0);
            EXPECT_EQ(in->copy_class, 0xC8B5);
            EXPECT_EQ(in->shared_per_block_max, 227 * 1024);
        }
        EXPECT_EQ(in->emulated, !!strstr(in->name, "emulated"));
        EXPECT(!hcq_device_lost(devs[i]));
    }
}

static void test_open_close(void)
{
    struct hcq_device *const *devs;
    unsigned n;
    hcq_enumerate(&devs, &n);
    struct hcq_device *dev = devs[0];
    REQUIRE(hcq_device_open(dev) == 0);
    REQUIRE(hcq_device_open(dev) == 0); /* second reference */
    struct hcq_mem *m;
    EXPECT_EQ(hcq_mem_alloc(dev, 4096, HCQ_MEM_HOST, &m), 0);
    hcq_mem_free(m);
    hcq_device_close(dev);
    /* Still open: one reference left. */
    EXPECT_EQ(hcq_mem_alloc(dev, 4096, HCQ_MEM_DEVICE, &m), 0);
    hcq_mem_free(m);
    hcq_device_close(dev);
    /* Closed: the device refuses work until opened again. */
    EXPECT_EQ(hcq_mem_alloc(dev, 4096, HCQ_MEM_DEVICE, &m), -EINVAL);
    for (int i = 0; i < 3; i++) {
        REQUIRE(hcq_device_open(dev) == 0);
        EXPECT_EQ(hcq_mem_alloc(dev, 1 << 20, HCQ_MEM_DEVICE_MAPPED, &m), 0);
        if (m) {
            memset(m->cpu, 0x5a, 1 << 20);
            hcq_mem_free(m);
        }
        hcq_device_close(dev);
    }
}

static void test_timer(void)
{
    struct hcq_device *dev = core_test_device();
    uint64_t g0, h0, g1, h1;
    EXPECT_EQ(hcq_device_timer(dev, &g0, &h0), 0);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    EXPECT_EQ(hcq_device_timer(dev, &g1, &h1), 0);
    EXPECT(h1 - h0 >= 20000000);
    /* PTIMER counts nanoseconds: 20 ms of host time is about 20 ms of it. */
    EXPECT(g1 > g0);
    EXPECT(g1 - g0 > 10000000 && g1 - g0 < 2000000000);
    hcq_device_close(dev);
}

int main(void)
{
    test_enumerate();
    test_open_close();
    test_timer();
    return core_test_done("core_device");
}

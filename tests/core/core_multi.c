/*
 * core_multi.c — two GPUs in one process. UVM keeps one VA space per
 * process, so buffers of different GPUs must never share GPU addresses,
 * and the same host pages can be registered with both. Runs against two
 * emulated GPUs in CI (HCQCL_EMU_GPUS=2); with fewer GPUs it only checks
 * enumeration.
 */
#include "core_test.h"

int main(void)
{
    struct hcq_device *const *devs;
    unsigned n;
    hcq_enumerate(&devs, &n);
    REQUIRE(n >= 1);
    if (n < 2) {
        printf("core_multi: one device, nothing to compare\n");
        return core_test_done("core_multi");
    }
    const struct hcq_device_info *a = hcq_device_info(devs[0]), *b = hcq_device_info(devs[1]);
    EXPECT(memcmp(a->uuid, b->uuid, 16) != 0);
    EXPECT(a->pci_bus != b->pci_bus || a->pci_domain != b->pci_domain ||
           a->pci_device != b->pci_device);
    REQUIRE(hcq_device_open(devs[0]) == 0);
    REQUIRE(hcq_device_open(devs[1]) == 0);

    enum { K = 4 };
    struct hcq_mem *m[2][K];
    static const enum hcq_mem_kind kinds[K] = {HCQ_MEM_DEVICE, HCQ_MEM_DEVICE_MAPPED, HCQ_MEM_HOST,
                                               HCQ_MEM_DEVICE};
    uint8_t *shared = aligned_alloc(4096, 3 * 4096);
    REQUIRE(shared);
    memset(shared, 0x77, 3 * 4096);
    struct hcq_mem *reg[2];
    for (int d = 0; d < 2; d++) {
        for (int k = 0; k < K; k++)
            REQUIRE(hcq_mem_alloc(devs[d], 65536 << k, kinds[k], &m[d][k]) == 0);
        /* The same host pages, pinned for both GPUs. */
        REQUIRE(hcq_mem_register(devs[d], shared + 8, 2 * 4096, &reg[d]) == 0);
    }
    /* No GPU address range is handed out twice across the devices. */
    struct hcq_mem *all[2 * K + 2];
    int na = 0;
    for (int d = 0; d < 2; d++) {
        for (int k = 0; k < K; k++)
            all[na++] = m[d][k];
        all[na++] = reg[d];
    }
    for (int i = 0; i < na; i++)
        for (int j = i + 1; j < na; j++)
            EXPECT(all[i]->va + all[i]->size <= all[j]->va ||
                   all[j]->va + all[j]->size <= all[i]->va);

    /* Each GPU reads the shared pages through its own mapping. */
    for (int d = 0; d < 2; d++) {
        struct hcq_queue *q;
        REQUIRE(hcq_queue_create(devs[d], HCQ_ENGINE_COPY, &q) == 0);
        struct hcq_mem *h = m[d][2];
        memset(h->cpu, 0, 4096);
        EXPECT_EQ(hcq_q_copy(q, h->va, reg[d]->va, 4096), 0);
        uint64_t v;
        EXPECT_EQ(hcq_q_signal_next(q, &v), 0);
        EXPECT_EQ(hcq_q_submit(q), 0);
        EXPECT_EQ(hcq_signal_wait(hcq_queue_timeline(q), v, 10000000000ull), 0);
        EXPECT_EQ(((uint8_t *)h->cpu)[4095], 0x77);
        hcq_queue_destroy(q);
    }
    for (int d = 0; d < 2; d++) {
        hcq_mem_free(reg[d]);
        for (int k = 0; k < K; k++)
            hcq_mem_free(m[d][k]);
        hcq_device_close(devs[d]);
    }
    free(shared);
    return core_test_done("core_multi");
}

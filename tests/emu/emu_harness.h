/*
 * emu_harness.h — bring-up of the emulated device through the nvdrv
 * wrappers, as the core does it, for the tests of src/emu: RM client,
 * device, usermode page, VA space, UVM, a channel group with one compute
 * and one copy channel, memory helpers and a pushbuffer builder.
 */
#ifndef HCQCL_TESTS_EMU_HARNESS_H
#define HCQCL_TESTS_EMU_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "nvdrv/nvdrv.h"

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);      \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)
#define CHECK_EQ(a, b)                                                                    \
    do {                                                                                  \
        unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b);  \
        if (va_ != vb_) {                                                                 \
            fprintf(stderr, "%s:%d: %s == 0x%llx, expected %s == 0x%llx\n", __FILE__,     \
                    __LINE__, #a, va_, #b, vb_);                                          \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

struct h_mem {
    uint32_t handle;
    uint64_t va, size;
    uint8_t *cpu;
};

struct h_chan {
    uint32_t handle, token, entries, put;
    uint32_t chgrp, ctxshare;
    struct h_mem notifier;
    uint64_t ring_va;
    uint64_t *ring;
    volatile uint32_t *userd;
    /* Pushbuffer being built, in the harness's pushbuffer pool. */
    uint32_t *pb;
    uint64_t pb_va;
    uint32_t n;
};

struct harness {
    struct nvdrv d;
    int gpu_fd;
    uint8_t uuid[16];
    uint32_t device, subdevice, virtmem, usermode, vaspace, chgrp, ctxshare;
    volatile uint32_t *doorbell_page;
    struct h_mem gpfifo, pbpool;
    uint64_t pb_off;
    uint64_t next_va;
    struct h_chan compute, copy;
};

/* Everything up to both channels with their engine objects bound. */
void h_init(struct harness *h);
void h_fini(struct harness *h);
/* Another channel (ring slot idx 0..15; 0 and 1 are compute and copy)
 * with engine_cls bound on subc; in the harness's channel group, or in a
 * new one of its own (own_group). */
void h_chan_init(struct harness *h, struct h_chan *c, unsigned idx, uint32_t engine_cls,
                 uint32_t subc, bool own_group);
/* A channel in sibling's channel group. */
void h_chan_join(struct harness *h, struct h_chan *c, unsigned idx, uint32_t engine_cls,
                 uint32_t subc, const struct h_chan *sibling);
/* vidmem (or sysmem when sys), CPU-mapped, GPU-mapped at a fresh VA. */
void h_alloc(struct harness *h, uint64_t size, bool sys, struct h_mem *m);
void h_free(struct harness *h, struct h_mem *m);

/* Pushbuffer building on a channel, then submission (ring entry, GPPut,
 * doorbell). */
void h_begin(struct harness *h, struct h_chan *c);
void h_incr(struct h_chan *c, uint32_t subc, uint32_t method, unsigned n, const uint32_t *data);
void h_word(struct h_chan *c, uint32_t w);
void h_submit(struct harness *h, struct h_chan *c);
/* Host semaphore release (64-bit + timestamp) / acquire (circular >=). */
void h_release(struct h_chan *c, uint64_t va, uint64_t value);
void h_acquire(struct h_chan *c, uint64_t va, uint64_t value);
/* Spin until *p == value (5 s timeout). */
bool h_wait64(volatile uint64_t *p, uint64_t value);
/* Error notifier status (0xFFFF once a channel error was raised). */
uint16_t h_notifier_status(const struct h_chan *c);
uint32_t h_notifier_info32(const struct h_chan *c);

#endif

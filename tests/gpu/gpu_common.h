/*
 * gpu_common.h — shared by the tests in tests/gpu: the GPU-present gate,
 * the summary of check.h's PASS/FAIL lines, bring-up of the first device,
 * the sm_90 test kernels, and small helpers (timing, random data, a
 * timeline wait).
 *
 * These tests are meant for a machine with an NVIDIA GPU. Without one
 * (no /dev/nvidiactl, or HCQCL_DEVICE=emu) they print "SKIP: no NVIDIA
 * GPU" and exit 77, which ctest reports as skipped; with
 * HCQCL_GPU_TESTS_ON_EMU=1 they run on the emulated device instead, at
 * sizes the emulated device handles in seconds (gpu_scale()).
 */
#ifndef HCQCL_TESTS_GPU_COMMON_H
#define HCQCL_TESTS_GPU_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/hcq.h"
#include "core/priv.h"
#include "cubin/cubin.h"

#include "check.h"

#define GPU_SKIP 77

static bool gpu_on_emu;

static inline uint64_t gpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Decide whether to run: returns normally to run, exits 77 to skip.
 * With HCQCL_GPU_TESTS_ON_EMU=1 the emulated device is forced. */
static inline void gpu_gate(void)
{
    const char *emu = getenv("HCQCL_GPU_TESTS_ON_EMU");
    if (emu && !strcmp(emu, "1")) {
        setenv("HCQCL_DEVICE", "emu", 1);
        gpu_on_emu = true;
        return;
    }
    const char *dev = getenv("HCQCL_DEVICE");
    if (access("/dev/nvidiactl", F_OK) != 0 || (dev && !strcmp(dev, "emu"))) {
        printf("SKIP: no NVIDIA GPU\n");
        exit(GPU_SKIP);
    }
}

/* Full size on the GPU, small on the emulated device. */
static inline uint64_t gpu_scale(uint64_t gpu, uint64_t emu) { return gpu_on_emu ? emu : gpu; }

/* The first device, opened; on the GPU path it must be a real one. */
static inline struct hcq_device *gpu_device(void)
{
    struct hcq_device *const *devs;
    unsigned n = 0;
    hcq_enumerate(&devs, &n);
    if (!n) {
        printf("FAIL setup: no device: %s\n", hcq_enumerate_error());
        exit(1);
    }
    const struct hcq_device_info *in = hcq_device_info(devs[0]);
    if (in->emulated != gpu_on_emu) {
        printf("FAIL setup: device \"%s\" is %semulated\n", in->name, in->emulated ? "" : "not ");
        exit(1);
    }
    int r = hcq_device_open(devs[0]);
    if (r) {
        printf("FAIL setup: device open: %s\n", strerror(-r));
        exit(1);
    }
    printf("device: %s, sm_%x, %u SMs, driver %s\n", in->name, in->arch >> 4, in->sm_count,
           in->driver_version);
    return devs[0];
}

/* One of tests/kernels' cubins (HCQCL_TEST_DATA/<file>), loaded. */
static inline struct hcq_program *gpu_load_kernels(struct hcq_device *dev, const char *file,
                                                   struct cubin **cb_out)
{
    size_t size = 0;
    uint8_t *buf = test_data_read(file, &size);
    if (!buf) {
        printf("FAIL setup: %s: %s\n", file, strerror(errno));
        exit(1);
    }
    char log[256] = "";
    struct cubin *cb = NULL;
    if (cubin_parse(buf, size, &cb, log, sizeof(log))) {
        printf("FAIL setup: %s: %s\n", file, log);
        exit(1);
    }
    free(buf);
    struct hcq_program *p = NULL;
    REQUIRE(hcq_program_load(dev, cb, &p) == 0);
    *cb_out = cb;
    return p;
}

static inline const struct hcq_kernel *gpu_kernel(const struct hcq_program *p, const char *name)
{
    const struct hcq_kernel *k = hcq_program_kernel(p, name);
    if (!k) {
        printf("FAIL setup: kernel %s missing from its cubin\n", name);
        exit(1);
    }
    return k;
}

/* Release ++last on q, submit, wait (timeout_ns). Returns the wait's result. */
static inline int gpu_finish(struct hcq_queue *q, uint64_t timeout_ns)
{
    uint64_t v;
    int r = hcq_q_signal_next(q, &v);
    if (!r)
        r = hcq_q_submit(q);
    if (!r)
        r = hcq_signal_wait(hcq_queue_timeline(q), v, timeout_ns);
    return r;
}

/* xorshift64*: reproducible random data. */
static inline uint64_t gpu_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}
static inline void gpu_fill_random(void *p, uint64_t bytes, uint64_t seed)
{
    uint64_t s = seed | 1, *w = p;
    for (uint64_t i = 0; i < bytes / 8; i++)
        w[i] = gpu_rand(&s);
}

/* Launch shape helper. */
static inline int gpu_exec(struct hcq_queue *q, const struct hcq_kernel *k, uint32_t gx, uint32_t gy,
                    uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz, uint32_t dyn,
                    const void *params, uint32_t params_size)
{
    struct hcq_launch l = {.grid = {gx, gy, gz}, .block = {bx, by, bz}, .dynamic_shared = dyn,
                           .params = params, .params_size = params_size};
    return hcq_q_exec(q, k, &l);
}

static inline int gpu_done(const char *name)
{
    int n = atomic_load(&failures);
    if (n) {
        printf("%s: %d check(s) FAILED\n", name, n);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

#endif

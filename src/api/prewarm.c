/*
 * prewarm.c — what a context's first transfers need, made in the
 * background while the application goes on (obj.h, hcqcl_prewarm).
 *
 * On the H200 the staging pool's first ring took an application's first
 * pageable transfer 8-9 ms (four 4 MiB chunks pinned one after another;
 * 0.2 ms for the next transfer, 0.7 ms for NVIDIA's OpenCL). A thread
 * fills the pool once per device, right after the first context opened
 * it: the first 4 MiB write then took 4.2-5.0 ms. Making the context's
 * channels in it too (a compute queue and two copy queues, kept idle by
 * the core for the next hcq_queue_create) was tried and made things
 * worse: an application creates its command queue right after its
 * context, and the two channel creations then ran side by side, the
 * first write taking 12 ms (docs/gpu-runs.md, 2026-12-04 fourth).
 * The device's built-in kernels are loaded there too. Whatever the
 * application asks for before the thread is done is made on the spot, as
 * without it.
 */
#include "api/obj.h"

enum { PREWARM_MAX_DEVICES = 64 };

static pthread_mutex_t prewarm_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t prewarm_done = PTHREAD_COND_INITIALIZER;
static struct {
    struct hcq_device *dev;
    bool running;
} prewarmed[PREWARM_MAX_DEVICES];

static void finished(struct hcq_device *dev)
{
    pthread_mutex_lock(&prewarm_lock);
    for (unsigned i = 0; i < PREWARM_MAX_DEVICES; i++)
        if (prewarmed[i].dev == dev)
            prewarmed[i].running = false;
    pthread_cond_broadcast(&prewarm_done);
    pthread_mutex_unlock(&prewarm_lock);
}

static void *prewarm_main(void *arg)
{
    struct hcq_device *dev = arg;
    hcqcl_staging_fill(dev);
    /* The built-in copy and fill kernels: 0.4-0.5 ms at the first
     * device-to-device copy otherwise. */
    (void)hcq_builtin_prepare(dev);
    finished(dev);
    hcq_device_close(dev); /* hcqcl_prewarm's reference */
    return NULL;
}

void hcqcl_prewarm(struct hcq_device *dev)
{
    pthread_mutex_lock(&prewarm_lock);
    unsigned i = 0;
    while (i < PREWARM_MAX_DEVICES && prewarmed[i].dev && prewarmed[i].dev != dev)
        i++;
    bool first = i < PREWARM_MAX_DEVICES && !prewarmed[i].dev;
    if (first)
        prewarmed[i].dev = dev;
    /* The thread's own reference keeps the device open while it works. */
    first = first && hcq_device_open(dev) == 0;
    if (first)
        prewarmed[i].running = true;
    pthread_mutex_unlock(&prewarm_lock);
    if (!first)
        return;
    const int rc = util_thread_detached(prewarm_main, dev);
    if (rc != 0) {
        UTIL_LOG(UTIL_LOG_API, "api: no prewarm thread (%d)", rc);
        finished(dev);
        hcq_device_close(dev);
    }
}

void hcqcl_prewarm_wait(struct hcq_device *dev)
{
    pthread_mutex_lock(&prewarm_lock);
    for (unsigned i = 0; i < PREWARM_MAX_DEVICES; i++)
        while (prewarmed[i].dev == dev && prewarmed[i].running)
            pthread_cond_wait(&prewarm_done, &prewarm_lock);
    pthread_mutex_unlock(&prewarm_lock);
}

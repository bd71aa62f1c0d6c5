/*
 * hcq.h — the hardware command queue core: the one interface src/api sees.
 *
 * The core knows GPUs, not OpenCL. It owns devices (one per GPU), GPU
 * memory (a VA allocator plus allocations of four kinds), queues (one
 * GPFIFO channel each, compute or copy), signals (16-byte slots: a 64-bit
 * value the GPU releases and the GPU timestamp of that release) and loaded
 * programs (a cubin's image in GPU memory, ready to launch).
 *
 * Below it: src/nv (method and QMD encodings) and src/nvdrv (the kernel
 * driver ABI behind one seam: the real driver or the emulated one).
 *
 * Conventions
 *  - Functions returning int return 0 on success or a negative errno:
 *    -ENODEV no such device / driver refused, -ENOMEM out of host or GPU
 *    memory, -EINVAL bad argument, -ETIMEDOUT a wait ran out,
 *    -EIO the device is lost (channel error, hang): every later wait on
 *    that device returns -EIO too.
 *  - Thread safety: every function may be called from any thread. A queue
 *    is NOT internally locked: the caller serialises all verb calls and
 *    hcq_q_submit() on one queue (src/api holds the command queue's lock).
 *    Devices, memory and signal allocation lock internally.
 *  - Outputs come last.
 */
#ifndef HCQCL_CORE_HCQ_H
#define HCQCL_CORE_HCQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cubin;
struct hcq_device;
struct hcq_queue;
struct hcq_program;
struct hcq_kernel;

/* ------------------------------------------------------------------ */
/* Devices                                                              */
/* ------------------------------------------------------------------ */

/* Facts about one GPU, read from the driver (or the emulated one) when
 * devices are enumerated. Everything clGetDeviceInfo answers comes from
 * here; nothing is invented by src/api. */
struct hcq_device_info {
    char name[96];              /* "NVIDIA H200", emulated: "... (emulated)" */
    char driver_version[32];    /* "580.159.04" */
    uint8_t uuid[16];           /* GPU UUID (binary) */
    uint32_t pci_domain, pci_bus, pci_device, pci_function;
    uint16_t pci_vendor_id, pci_device_id;
    uint32_t arch;              /* SM version: 0x900 Hopper, 0x800/0x860/0x890 */
    uint32_t sm_count;          /* enabled SMs (132 on an H200) */
    uint32_t gpc_count, tpc_per_gpc, sm_per_tpc; /* litter upper bounds */
    uint32_t max_warps_per_sm;
    uint32_t warp_size;         /* 32 */
    uint32_t max_threads_per_block;   /* 1024 */
    uint32_t max_block_dim[3];        /* 1024, 1024, 64 */
    uint32_t max_grid_dim[3];         /* 2^31-1, 65535, 65535 */
    uint32_t regs_per_sm, regs_per_block;
    uint32_t shared_per_sm;           /* bytes usable by one SM */
    uint32_t shared_per_block_max;    /* 227 KiB on Hopper (user-visible) */
    uint32_t clock_mhz;               /* max graphics clock */
    uint32_t mem_clock_mhz;
    uint32_t mem_bus_width;           /* bits */
    uint64_t mem_bytes;               /* usable device memory */
    uint64_t l2_bytes;
    uint64_t bar1_bytes;
    uint32_t timer_resolution_ns;     /* GPU timestamp granularity */
    uint32_t compute_class, copy_class, gpfifo_class, usermode_class;
    /* Asynchronous copy engines (NV2080_ENGINE_TYPE_COPYn that do not
     * belong to graphics), in the order copy queues take them: engines of
     * their own first, shared ones after. None listed: copy queues run on
     * the graphics copy engine, inside a graphics channel group. */
    uint32_t async_ce[16];
    unsigned async_ce_count;
    /* The graphics copy engines (GRCE): copy queues on the graphics
     * runlist copy there and raise their interrupts. */
    uint32_t grce[4];
    unsigned grce_count;
    bool emulated;
    bool ecc_enabled;                 /* RM's ECC configuration: enabled (false when unknown) */
};

/* Enumerate the GPUs once (thread-safe, cheap after the first call).
 * Chooses the seam: HCQCL_DEVICE=emu forces the emulated device; with no
 * /dev/nvidiactl it is used automatically; HCQCL_DEVICE=nv forces the
 * kernel driver. Only queries happen here: no channels, no VA space.
 * Never fails: on error *count is 0 and hcq_enumerate_error() says why. */
void hcq_enumerate(struct hcq_device *const **devices, unsigned *count);
const char *hcq_enumerate_error(void);

const struct hcq_device_info *hcq_device_info(const struct hcq_device *dev);

/* Bring the device up for work (VA space, UVM, channel group, signal
 * pool, ...). Idempotent, reference counted: every hcq_device_open() is
 * matched by hcq_device_close(); the last close tears everything down.
 * Called by src/api when the first context on the device is created. */
int hcq_device_open(struct hcq_device *dev);
void hcq_device_close(struct hcq_device *dev);

/* Current GPU time in ns (PTIMER, the clock of signal timestamps) and the
 * host CLOCK_MONOTONIC_RAW ns read next to it. */
int hcq_device_timer(struct hcq_device *dev, uint64_t *gpu_ns, uint64_t *host_ns);

/* True once a channel error or hang has marked the device lost. */
bool hcq_device_lost(const struct hcq_device *dev);
/* What a wait on dev's signals does while nothing moves, for a thread
 * that watches them between naps instead of waiting on one: read the
 * channels' error notifiers (a channel error marks dev lost) and, after
 * stalled_ns without progress, ring again the doorbells of queues whose
 * entries the GPU has not fetched (at 1 ms, then at each doubling;
 * *kick_next: 0 at the start and after progress). Returns
 * hcq_device_lost(dev). */
bool hcq_device_watch(struct hcq_device *dev, uint64_t stalled_ns, uint64_t *kick_next);
/* Why the device was lost: copies one line naming the cause into why (if
 * non-NULL; "" while not lost) and returns the channel error code the
 * driver reported (ROBUST_CHANNEL_*, the kernel log's "Xid": 31 MMU
 * fault, 13 graphics exception, 32 PBDMA error, 39.. copy engine), or 0
 * when not lost or lost without a code (fault.c). Any thread. */
uint32_t hcq_device_fault(const struct hcq_device *dev, char *why, size_t why_size);
/* A readable name for a channel error code ("MMU fault (...)"). */
const char *hcq_fault_name(uint32_t code);

/* ------------------------------------------------------------------ */
/* Memory                                                               */
/* ------------------------------------------------------------------ */

enum hcq_mem_kind {
    HCQ_MEM_DEVICE,        /* vidmem, GPU only (2 MiB pages when large) */
    HCQ_MEM_DEVICE_MAPPED, /* vidmem with a CPU mapping (BAR1)          */
    HCQ_MEM_HOST,          /* pinned system memory, CPU and GPU mapped   */
    HCQ_MEM_USER,          /* caller's host pages registered with the GPU */
};

/* An allocation. va is the GPU virtual address; cpu is the CPU view or
 * NULL (HCQ_MEM_DEVICE). CPU and GPU addresses are NOT required to be
 * equal. Fields are read-only for callers. */
struct hcq_mem {
    struct hcq_device *dev;
    enum hcq_mem_kind kind;
    uint64_t va;
    uint64_t size;
    void *cpu;
};

/* size > 0. The device must be open. */
int hcq_mem_alloc(struct hcq_device *dev, uint64_t size, enum hcq_mem_kind kind,
                  struct hcq_mem **out);
/* Copy n bytes at offset off of m's CPU view to dst, after every load
 * before it (a signal read that said the GPU wrote them). A
 * HCQ_MEM_DEVICE_MAPPED view (BAR1, write-combined) is read in whole
 * lines with streaming loads, not one bus read per load. */
void hcq_mem_read(const struct hcq_mem *m, uint64_t off, void *dst, size_t n);
/* Register [host, host+size) (page-rounded internally) as HCQ_MEM_USER.
 * -EINVAL/-ENOTSUP when the pages can't be pinned: caller falls back to a
 * shadow copy. mem->va addresses the byte at host. */
int hcq_mem_register(struct hcq_device *dev, void *host, uint64_t size,
                     struct hcq_mem **out);
/* Memory at a GPU address the caller chose, as an SVM allocation's is
 * the host address of its pages. [va, va + size) must have been reserved
 * with hcq_va_reserve (the caller frees the reservation after the
 * memory). size: a multiple of 64 KiB; large vidmem gets 2 MiB pages when
 * va and size are multiples of them. kind HCQ_MEM_DEVICE: vidmem, no CPU
 * view; HCQ_MEM_USER: the pages at host (size bytes, page-aligned),
 * pinned and mapped, cpu = host. in_range: another device's allocation
 * at va made the UVM range (the process has one VA space for all GPUs);
 * free that one last. */
int hcq_mem_alloc_at(struct hcq_device *dev, uint64_t va, uint64_t size, enum hcq_mem_kind kind,
                     void *host, bool in_range, struct hcq_mem **out);
/* Reserve / give back [va, va + size) of the process's GPU address plan
 * for hcq_mem_alloc_at: 0, or -EEXIST when part of it is taken or lies
 * where no memory may go (below the low range, the shader windows, above
 * 2^47). Multiples of 64 KiB. Needs the devices enumerated. */
int hcq_va_reserve(uint64_t va, uint64_t size);
void hcq_va_unreserve(uint64_t va, uint64_t size);
/* A block of size bytes (at most HCQ_SMALL_MAX) shared out of a slab of
 * the kind (not HCQ_MEM_USER; 64 KiB, or 16 blocks of classes above
 * 4 KiB) with blocks of the same size class:
 * a driver allocation only when every slab of the class is full. Aligned
 * to its class, the power of two from HCQ_SMALL_MIN up that holds size.
 * Freed with hcq_mem_free; an emptied slab goes unless it is its class's
 * first. For image descriptors, and buffers and images of up to
 * HCQ_SMALL_MAX bytes. */
enum { HCQ_SMALL_MIN = 64, HCQ_SMALL_MAX = 65536, HCQ_SMALL_CLASSES = 11 };
int hcq_mem_alloc_small(struct hcq_device *dev, uint64_t size, enum hcq_mem_kind kind,
                        struct hcq_mem **out);
/* Slabs the device holds for small blocks now, of every kind and class. */
unsigned hcq_small_slabs(struct hcq_device *dev);
/* Frees memory and its VA range (a small block: gives it back). The
 * caller guarantees the GPU no longer uses it (its last signal has
 * passed). NULL is a no-op. */
void hcq_mem_free(struct hcq_mem *mem);

/* Bytes of device memory currently allocated through this device. */
uint64_t hcq_mem_in_use(const struct hcq_device *dev);
/* Allocations hcq_mem_alloc has made on this device so far, of every
 * kind: each one is an RM allocation and a GPU mapping, pinned pages for
 * host kinds, so code that reuses memory is checked against it. */
uint64_t hcq_mem_allocs(const struct hcq_device *dev);

/* ------------------------------------------------------------------ */
/* Signals                                                              */
/* ------------------------------------------------------------------ */

/* A 16-byte slot in GPU-visible host memory: value at +0, GPU ns
 * timestamp of the release that wrote it at +8. */
struct hcq_signal {
    struct hcq_device *dev;
    uint64_t va;
    volatile uint64_t *cpu; /* cpu[0] value, cpu[1] timestamp */
    /* The highest value a recorded release writes (rec_hi), and the
     * highest released with a non-stall interrupt after it (irq_hi)
     * (queue.c): a waiter for a value up to irq_hi can sleep until an
     * interrupt; one for a value above rec_hi counts itself as wanting
     * them (signal.c). seen_hi: the highest value a wait saw (signal.c),
     * which tells a channel idle without reading the GPU's line. */
    _Atomic uint64_t rec_hi, irq_hi, seen_hi;
};

int hcq_signal_alloc(struct hcq_device *dev, struct hcq_signal **out);
void hcq_signal_free(struct hcq_signal *sig);

static inline uint64_t hcq_signal_value(const struct hcq_signal *s)
{
    return __atomic_load_n(&s->cpu[0], __ATOMIC_ACQUIRE);
}
static inline uint64_t hcq_signal_timestamp(const struct hcq_signal *s)
{
    return __atomic_load_n(&s->cpu[1], __ATOMIC_ACQUIRE);
}
/* CPU sets the value (user events, host-side completion). */
void hcq_signal_set(struct hcq_signal *s, uint64_t value);

/* Wait until value >= target. timeout_ns counts from the last time the
 * value moved (UINT64_MAX = forever). Spins briefly, then sleeps (policy
 * HCQCL_WAIT=spin|block|auto). 0, -ETIMEDOUT, or -EIO if the device is
 * lost. */
int hcq_signal_wait(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns);
/* The same, for a caller that waits in slices (to look at other things
 * between them): since_ns is util_now_ns() when its whole wait began, so
 * the spinning happens once, at the start, and the sleeps keep growing
 * across slices. */
int hcq_signal_wait_since(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns,
                          uint64_t since_ns);
/* The same, for work expected to end at host time eta_ns (util_now_ns()
 * base; 0 = not known): with the auto policy the wait sleeps through
 * until eta_ns, then spins through it for spin_ns (0: a third of the time
 * slept; at least the usual spin), so a long transfer or kernel is seen
 * done within microseconds instead of within a sleep step, without
 * spinning for all of it. */
int hcq_signal_wait_eta(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns,
                        uint64_t since_ns, uint64_t eta_ns, uint64_t spin_ns);
/* hcq_signal_wait_since that also ends, with -EINTR, once *stop is no
 * longer seen: for a thread with other things to watch, whose wakers
 * change *stop and then call hcq_device_poke on s's device. Its sleeps
 * are ones a poke ends. */
int hcq_signal_wait_stop(const struct hcq_signal *s, uint64_t target, uint64_t timeout_ns,
                         uint64_t since_ns, const _Atomic uint32_t *stop, uint32_t seen);
/* Wake every thread sleeping in a wait on dev's signals now, as an
 * interrupt would: each looks again (and a hcq_signal_wait_stop whose
 * stop moved returns). */
void hcq_device_poke(struct hcq_device *dev);

/* ------------------------------------------------------------------ */
/* Queues                                                               */
/* ------------------------------------------------------------------ */

enum hcq_engine { HCQ_ENGINE_COMPUTE, HCQ_ENGINE_COPY };

/* One GPFIFO channel with its engine bound and its own timeline signal.
 * A device has a bounded number of channels; queues are cheap handles
 * onto them is NOT assumed: each hcq_queue is its own channel. */
int hcq_queue_create(struct hcq_device *dev, enum hcq_engine engine, struct hcq_queue **out);
/* Waits for everything submitted, then frees the channel. */
void hcq_queue_destroy(struct hcq_queue *q);

/* The engine whose runlist the queue's channel is on (NV2080_ENGINE_TYPE_*:
 * 1 graphics, or an asynchronous copy engine COPYn for copy queues). */
uint32_t hcq_queue_runlist(const struct hcq_queue *q);
/* The engine the queue was created for. */
enum hcq_engine hcq_queue_engine(const struct hcq_queue *q);

/* The queue's timeline: hcq_q_signal_next() releases ++last on it. */
struct hcq_signal *hcq_queue_timeline(struct hcq_queue *q);
/* Value the timeline will hold once everything recorded so far is done. */
uint64_t hcq_queue_last(const struct hcq_queue *q);

/* Verbs. Each appends to the queue's open pushbuffer; nothing reaches the
 * GPU before hcq_q_submit(). They fail only with -ENOMEM (ring or
 * pushbuffer space exhausted even after waiting) or -EINVAL. */

/* GPU waits until *sig >= value (circular compare, 64-bit). */
int hcq_q_wait(struct hcq_queue *q, const struct hcq_signal *sig, uint64_t value);
/* What is recorded next comes after every grid recorded on the queue so
 * far: a wait for the last one's release (nothing when none may still
 * run). */
int hcq_q_after_own_grids(struct hcq_queue *q);
/* What is recorded next comes after the queue's own timeline value `value`
 * has been released, through a wait recorded already: one on a command of
 * another channel that itself waited on the GPU for that value. When the
 * channel's last grid released that value or an earlier one, nothing
 * recorded next waits for that grid again (a launch, a release). */
void hcq_q_ordered_after(struct hcq_queue *q, uint64_t value);
/* After all previous work completes, release value (+ GPU timestamp). */
int hcq_q_signal(struct hcq_queue *q, struct hcq_signal *sig, uint64_t value);
/* The same right after a launch: the launch's QMD releases value, with
 * the GPU's timestamp, when its grid ends (a second release slot beside
 * the timeline's, written in no order with it that the host can count
 * on). Anywhere else, or a second time after one launch: hcq_q_signal. */
int hcq_q_signal_grid(struct hcq_queue *q, struct hcq_signal *sig, uint64_t value);
/* Release ++last on the queue's timeline; returns that value in *value.
 * Right after a launch it becomes that QMD's own release (when its grid
 * ends; no interrupt: a thread sleeping on it sleeps in steps) and the
 * launches around it stay one chain. Otherwise the release comes after
 * the channel's grids and, while threads sleep on interrupts, is
 * followed by the non-stall interrupt that wakes them. */
int hcq_q_signal_next(struct hcq_queue *q, uint64_t *value);
/* Copy size bytes GPU VA src → dst (split as the engine requires). On a
 * compute queue the core may route this to a copy kernel or fail with
 * -ENOTSUP; src/api puts copies on copy queues. */
int hcq_q_copy(struct hcq_queue *q, uint64_t dst, uint64_t src, uint64_t size);
/* 2-D copy: height rows of width bytes, with pitches. */
int hcq_q_copy_2d(struct hcq_queue *q, uint64_t dst, uint64_t dst_pitch,
                  uint64_t src, uint64_t src_pitch, uint64_t width, uint64_t height);
/* Fill size bytes at dst with a pattern of 1, 2, 4 or 8 bytes (size a
 * multiple of pattern_size, dst aligned to it). */
int hcq_q_fill(struct hcq_queue *q, uint64_t dst, uint64_t size,
               const void *pattern, unsigned pattern_size);

/* A kernel launch. params is the parameter block exactly as the kernel
 * reads it at its cbuf0 parameter offset (kernel->param_size bytes); the
 * core writes launch dimensions and windows around it. */
struct hcq_launch {
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t dynamic_shared;   /* bytes beyond the kernel's static shared */
    const void *params;
    uint32_t params_size;
    /* PTX %envreg0..31, written at cbuf0 0x40 + 4*i (ptxas reads
     * %envreg<i> there). What they mean is the OpenCL layer's:
     * enum hcq_envreg below. */
    uint32_t envreg[32];
};

/* The environment registers of an OpenCL NDRange launch: what src/api
 * writes and hcqcl-cc's builtin shim (tools/hcqcl-cc/shim.cl), the
 * emulated device's host kernels (emu/emu_kernel.h) and nvcc test kernels
 * read. 64-bit values are two registers, low word first; one entry per
 * dimension d = 0..2. An NDRange may run as several launches (remainder
 * groups of non-uniform work-groups, grids beyond the hardware limits):
 * only BASE and GROUP0 differ between them.
 *   BASE + 2d      u64  first work-item of this launch: global work offset
 *                       + the launch's start, so get_global_id(d) =
 *                       ctaid * ntid + tid + BASE
 *   WORK_DIM       u32  work_dim
 *   OFFSET + 2d    u64  the global work offset              get_global_offset
 *   GLOBAL + 2d    u64  the global work size                get_global_size
 *   GROUP0 + d     u32  group id of this launch's first group: get_group_id
 *                       = GROUP0 + ctaid
 *   NUM_GROUPS + d u32  groups of the whole NDRange         get_num_groups
 *   ENQ_LOCAL + d  u32  the local size as enqueued          get_enqueued_local_size
 *   PRINTF         u64  GPU address of the launch's printf buffer, 0 when
 *                       it has none (cubin/container.h, "printf")
 * Dimensions >= work_dim: offset 0, global size 1, group 0, 1 group,
 * local size 1. Registers 7 and 31 are zero. */
enum hcq_envreg {
    HCQ_ENVREG_BASE = 0,
    HCQ_ENVREG_WORK_DIM = 6,
    HCQ_ENVREG_OFFSET = 8,
    HCQ_ENVREG_GLOBAL = 14,
    HCQ_ENVREG_GROUP0 = 20,
    HCQ_ENVREG_NUM_GROUPS = 23,
    HCQ_ENVREG_ENQ_LOCAL = 26,
    HCQ_ENVREG_PRINTF = 29,
    HCQ_ENVREG_COUNT = 32,
};
/* Each launch starts after the work recorded before it on the queue
 * ended: grids of one channel would overlap, so launches recorded back to
 * back form a chain of dependent QMDs and a chain's first launch waits
 * for the engine to go idle when grids may still run (launch.c). */
int hcq_q_exec(struct hcq_queue *q, const struct hcq_kernel *k, const struct hcq_launch *l);

/* Make everything recorded visible to the GPU (GPFIFO entry, GPPut,
 * fence, doorbell). No system call. */
int hcq_q_submit(struct hcq_queue *q);
/* The same without ever waiting for ring room: where hcq_q_submit would
 * wait for the GPU to make some, it puts on the ring the GPFIFO entries
 * that fit now and returns -EAGAIN with the rest kept for a later call:
 * for flushes that may come back later (the event notifier's among them,
 * which must not wait for work it has to let go on itself). */
int hcq_q_submit_try(struct hcq_queue *q);
/* End a unit of work that ends with a release (hcq_q_signal_next): it is
 * submitted now if the GPU would otherwise run dry — it has finished
 * everything before the last submission, as last read: while work is
 * held, a commit within about a microsecond of the one before that read
 * the timeline decides on that reading — and otherwise held back to go
 * with later work in one GPFIFO entry (returns 1), saving the fences and
 * the doorbell while the GPU is busy anyway. At most HCQ_DEFER_MAX - 1
 * units are held: the HCQ_DEFER_MAX-th is submitted with them, so one
 * submission carries at most HCQ_DEFER_MAX, unless the ring is full
 * (the GPU far behind, waiting on another channel say): units are then
 * held past it. Behind an undecided hold (below) every unit is held
 * (returns 1). Held work reaches the GPU only through a later
 * hcq_q_submit() or a commit that finds the GPU running dry: whoever
 * waits for it must submit first (src/api flushes its queues before
 * every wait). */
int hcq_q_commit(struct hcq_queue *q);
enum { HCQ_DEFER_MAX = 64 };
/* Whether committed work is held back (hcq_q_commit returned 1 since the
 * last submission, or a hold is undecided). */
bool hcq_q_held(const struct hcq_queue *q);

/* Holds: work the host may still cancel after recording it (a command
 * waiting on an OpenCL user event that may fail). hcq_q_hold submits
 * everything recorded before it (or, behind another hold, ends that work
 * with a release of its own, or with the release already ending it) and
 * starts a span; hcq_q_hold_end ends the span. Nothing from the span on
 * reaches the GPU until the hold is decided: hcq_q_hold_decide (any
 * thread, no lock) says whether the span runs or is dropped whole, and
 * the next hcq_q_submit / hcq_q_commit (with the queue's usual
 * serialisation) submits what is decided, in order, up to the first hold
 * still open. The GPU never waits behind a hold: nothing behind one is
 * submitted. What follows the span (the command's release) always runs.
 * A span ends with no launch left open (nothing after it chains to its
 * QMDs), so dropping it leaves the rest whole. While a hold is undecided, work accumulates unsubmitted, and a
 * verb that finds no pushbuffer or scratch room fails with -ENOMEM
 * instead of waiting. The hold is the queue's until decided and settled:
 * the caller must not touch it after hcq_q_hold_decide. */
struct hcq_hold;
int hcq_q_hold(struct hcq_queue *q, struct hcq_hold **out);
int hcq_q_hold_end(struct hcq_queue *q, struct hcq_hold *h);
void hcq_q_hold_decide(struct hcq_hold *h, bool run);

/* ------------------------------------------------------------------ */
/* Programs                                                             */
/* ------------------------------------------------------------------ */

/* Load a parsed cubin onto the device: image upload, NOBITS globals,
 * relocations, constant banks, local-memory sizing. */
int hcq_program_load(struct hcq_device *dev, const struct cubin *cb, struct hcq_program **out);
void hcq_program_unload(struct hcq_program *p);
/* NULL when the program has no kernel of that name. */
const struct hcq_kernel *hcq_program_kernel(const struct hcq_program *p, const char *name);

/* What a launched kernel needs that src/api validates against. */
struct hcq_kernel_info {
    const char *name;
    uint32_t param_size;       /* bytes of the parameter block */
    uint32_t regs;
    uint32_t static_shared;    /* user bytes (excluding reserved 1 KiB) */
    uint32_t local_per_thread; /* private/stack bytes */
    uint32_t max_threads;      /* from registers and launch bounds */
    uint32_t reqd_block[3];    /* 0,0,0 when not required */
};
void hcq_kernel_get_info(const struct hcq_kernel *k, struct hcq_kernel_info *info);

/* ------------------------------------------------------------------ */
/* Built-in kernels (src/builtin, builtin.h)                            */
/* ------------------------------------------------------------------ */

/* Load the device's built-in kernels if that has not happened yet (the
 * first call uploads them and keeps the device open for the life of the
 * process; later calls cost one atomic load). Any thread, no lock held
 * by the caller needed; src/api calls it before hcqcl_cmd_begin to choose
 * the engine. 0 when loaded; -ENOTSUP when the library was built without
 * them (no nvcc); otherwise the load's error, remembered per device. */
int hcq_builtin_prepare(struct hcq_device *dev);
/* Record a copy of size bytes from GPU VA src to dst (disjoint ranges,
 * any alignment) as a kernel launch on a COMPUTE queue: runs at memory
 * bandwidth, unlike one copy engine. Same rules as the other verbs (the
 * caller serialises verbs on the queue); loads the kernels if needed.
 * 0, -EINVAL for a copy queue, -ENOTSUP without built-in kernels, or
 * hcq_q_exec's error. */
int hcq_builtin_copy(struct hcq_queue *compute_q, uint64_t dst, uint64_t src, uint64_t size);
/* Record a fill of size bytes at dst with a pattern of pattern_size
 * bytes (a power of two up to 128; byte j gets pattern[j % pattern_size])
 * as a kernel launch on a COMPUTE queue. pattern is copied. Same contract
 * as hcq_builtin_copy. */
int hcq_builtin_fill(struct hcq_queue *compute_q, uint64_t dst, uint64_t size,
                     const void *pattern, unsigned pattern_size);

#endif

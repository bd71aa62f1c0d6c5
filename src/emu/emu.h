/*
 * emu.h — internals of the emulated device. Only src/emu includes this.
 *
 * The emulated device is one process-wide instance (struct emu) behind the
 * nvdrv seam. It has two halves:
 *
 *  - the driver half (emu_seam.c, emu_rm.c, emu_ctrl.c, emu_uvm.c): virtual
 *    fds, RM objects, controls, memory objects and their CPU mappings, UVM
 *    ranges. Everything there runs on the caller's thread under emu.lock.
 *
 *  - the GPU model (emu_vm.c, emu_chan.c, emu_host.c, emu_ce.c,
 *    emu_compute.c, emu_kreg.c): one worker thread per GPU serves that GPU's
 *    channels round-robin, walking GPFIFO entries and pushbuffers and
 *    executing methods. Host kernels of a launch run on the worker plus a
 *    small pool (emu_kreg.c). A channel's launch is held back until a
 *    wait needs it ended, and a launch that comes meanwhile runs first
 *    (emu_compute.c, "Grids side by side").
 *
 * Locks, in the order they may nest: emu.lock → gpu.lock → vm.lock.
 * The worker never takes emu.lock. A channel being processed is marked
 * busy (under gpu.lock); freeing a channel waits for busy to clear.
 */
#ifndef HCQCL_EMU_EMU_H
#define HCQCL_EMU_EMU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/emu_kernel.h"
#include "util/util.h"

#define EMU_MAX_GPUS 8
/* Virtual fd numbers start here, far above anything the process opens. */
#define EMU_FD_BASE 0x40000000
#define EMU_MAX_FDS 4096

/* RM status codes the emulated driver answers beyond those nvdrv.h names
 * (nvstatuscodes.h); include nvdrv.h first. */
#ifndef NV_ERR_GPU_UUID_NOT_FOUND
#define NV_ERR_GPU_UUID_NOT_FOUND 0x12
#endif
#ifndef NV_ERR_ILLEGAL_ACTION
#define NV_ERR_ILLEGAL_ACTION 0x16
#endif
#ifndef NV_ERR_INSUFFICIENT_RESOURCES
#define NV_ERR_INSUFFICIENT_RESOURCES 0x1A
#endif
#ifndef NV_ERR_INVALID_EVENT
#define NV_ERR_INVALID_EVENT 0x28
#endif
#ifndef NV_ERR_OBJECT_NOT_FOUND
#define NV_ERR_OBJECT_NOT_FOUND 0x57
#endif
#ifndef NV_ERR_INSERT_DUPLICATE_NAME
#define NV_ERR_INSERT_DUPLICATE_NAME 0x19
#endif
#ifndef NV_ERR_INVALID_ADDRESS
#define NV_ERR_INVALID_ADDRESS 0x1E
#endif
#ifndef NV_ERR_INVALID_CLIENT
#define NV_ERR_INVALID_CLIENT 0x23
#endif
#ifndef NV_ERR_INVALID_DEVICE
#define NV_ERR_INVALID_DEVICE 0x26
#endif
#ifndef NV_ERR_INVALID_LIMIT
#define NV_ERR_INVALID_LIMIT 0x2E
#endif
#ifndef NV_ERR_INVALID_OBJECT
#define NV_ERR_INVALID_OBJECT 0x31
#endif
#ifndef NV_ERR_INVALID_OBJECT_NEW
#define NV_ERR_INVALID_OBJECT_NEW 0x34
#endif
#ifndef NV_ERR_INVALID_OBJECT_PARENT
#define NV_ERR_INVALID_OBJECT_PARENT 0x36
#endif
#ifndef NV_ERR_INVALID_OFFSET
#define NV_ERR_INVALID_OFFSET 0x37
#endif
#ifndef NV_ERR_UVM_ADDRESS_IN_USE
#define NV_ERR_UVM_ADDRESS_IN_USE 0x68
#endif

#define EMU_LOG(...) UTIL_LOG(UTIL_LOG_EMU, __VA_ARGS__)

struct emu_gpu;
struct emu_chan;

/* ------------------------------------------------------------------ */
/* Memory objects and the per-GPU page table (emu_vm.c)                 */
/* ------------------------------------------------------------------ */

/* Backing store of one RM memory object. Reference counted: the RM
 * object holds one reference, every page-table range and every channel
 * using it (USERD, error notifier) one more. */
struct emu_mem {
    uint8_t *host;     /* backing store, or the user's own pages */
    uint64_t size;
    bool owned;        /* the emu mmap'ed host (shared anonymous) */
    bool shareable;    /* host is a shared mapping: CPU views can alias it */
    struct emu_gpu *vidmem; /* non-NULL: counts against that GPU's memory */
    atomic_int refs;
};

/* size rounded up to pages, backed lazily (MAP_NORESERVE). NULL on ENOMEM. */
struct emu_mem *emu_mem_create(uint64_t size);
/* Wrap existing user pages (OS descriptor memory). */
struct emu_mem *emu_mem_wrap(void *host, uint64_t size);
struct emu_mem *emu_mem_ref(struct emu_mem *m);
void emu_mem_unref(struct emu_mem *m);

struct emu_range {
    uint64_t va, len;
    uint8_t *host;
    struct emu_mem *mem; /* referenced */
    int owner;           /* UVM fd that created the mapping */
};

/* GPU virtual address space of one GPU: sorted, non-overlapping ranges. */
struct emu_vm {
    pthread_rwlock_t lock;
    struct emu_range *r;
    size_t n, cap;
    atomic_uint_fast64_t gen; /* bumped on every change; validates TLBs */
};

/* Last-hit cache. Each user (a channel, a kernel block) owns one, so no
 * locking: a stale entry is detected through vm.gen. */
struct emu_tlb {
    uint64_t gen, va, len;
    uint8_t *host;
};

void emu_vm_init(struct emu_vm *vm);
void emu_vm_fini(struct emu_vm *vm);
/* 0, or -EEXIST when [va, va+len) overlaps an existing range. Takes a
 * reference on mem. host is the host address of va. */
int emu_vm_map(struct emu_vm *vm, uint64_t va, uint64_t len, uint8_t *host, struct emu_mem *mem,
               int owner);
/* Remove every range inside [va, va+len). Returns the number removed. */
int emu_vm_unmap(struct emu_vm *vm, uint64_t va, uint64_t len);
/* Remove every range created through UVM fd owner. */
void emu_vm_unmap_owner(struct emu_vm *vm, int owner);
/* Host address of [va, va+len) when it lies inside one range; NULL
 * otherwise. */
void *emu_vm_translate(struct emu_vm *vm, struct emu_tlb *tlb, uint64_t va, uint64_t len);
/* Largest n <= len such that [va, va+n) is in one range, and its host
 * address; 0 when va is unmapped. For copies that may span ranges. */
uint64_t emu_vm_span(struct emu_vm *vm, struct emu_tlb *tlb, uint64_t va, uint64_t len,
                     uint8_t **host);
/* Is [va, va+len) overlapping any mapped range? */
bool emu_vm_overlaps(struct emu_vm *vm, uint64_t va, uint64_t len);

/* ------------------------------------------------------------------ */
/* GPUs                                                                 */
/* ------------------------------------------------------------------ */

#define EMU_USERMODE_SIZE 0x10000u

struct emu_gpu {
    unsigned index;
    uint32_t gpu_id;   /* CARD_INFO gpu_id / GET_ID_INFO_V2 */
    uint8_t uuid[16];
    uint32_t pci_bus;
    uint64_t mem_size;
    atomic_uint_fast64_t mem_used;
    uint64_t timer_offset; /* PTIMER = host CLOCK_MONOTONIC_RAW + offset */
    struct emu_vm vm;
    uint8_t *usermode; /* HOPPER_USERMODE_A page: PTIMER, doorbell */

    pthread_mutex_t lock; /* channel list, worker state */
    pthread_cond_t cond;  /* a channel's busy flag cleared */
    pthread_cond_t wake;  /* the worker's idle sleep; signalled on stop */
    struct emu_chan *chans;
    unsigned list_gen;    /* bumped when chans changes */
    unsigned users;       /* channels + usermode objects */
    bool worker_running, worker_stop;
    pthread_t worker;
    uint32_t next_token;
    atomic_uint drop_doorbells; /* doorbell rings still to be ignored */
};

uint64_t emu_gpu_time(const struct emu_gpu *gpu);
/* Write the PTIMER into the usermode page (the worker does, every round). */
void emu_gpu_ptimer_update(struct emu_gpu *gpu);
/* Start (first user) / stop and join (last user) the GPU's worker.
 * Called with emu.lock held, gpu.lock not held. */
void emu_gpu_user_add(struct emu_gpu *gpu);
void emu_gpu_user_drop(struct emu_gpu *gpu);

/* ------------------------------------------------------------------ */
/* Channels (emu_chan.c, methods in emu_host.c, emu_ce.c, emu_compute.c) */
/* ------------------------------------------------------------------ */

enum emu_mres {
    EMU_M_OK = 0,
    EMU_M_BLOCK, /* not satisfied yet: retry the same method later */
    EMU_M_ERROR, /* channel error raised */
};

struct emu_chan;
typedef enum emu_mres (*emu_mthd_fn)(struct emu_chan *c, unsigned subch, uint32_t mthd,
                                      uint32_t data);

/* One method of a class: offset, how many consecutive words (arrays),
 * handler (NULL: the data is only stored, used by a later trigger). */
struct emu_mthd {
    uint16_t mthd;
    uint16_t count;
    emu_mthd_fn fn;
};

/* An engine class the model implements. */
struct emu_class {
    uint32_t cls;
    const char *name;
    const struct emu_mthd *mthds;
    size_t n;
    uint32_t error; /* ROBUST_CHANNEL_* reported for its faults */
    uint16_t index[0x1000]; /* filled on first use: method/4 → 1 + idx */
};

extern struct emu_class emu_class_host;    /* emu_host.c: < 0x100, any class */
extern struct emu_class emu_class_compute; /* emu_compute.c: HOPPER_COMPUTE_A */
extern struct emu_class emu_class_copy;    /* emu_ce.c: HOPPER_DMA_COPY_A */
const struct emu_class *emu_class_find(uint32_t cls);

#define EMU_SUBCH 8
#define EMU_MTHD_WORDS 0x1000

struct emu_chan {
    struct emu_gpu *gpu;
    struct emu_chan *next;
    uint32_t handle, cls, token;

    uint64_t ring_va;
    uint32_t entries;
    struct emu_mem *userd_mem; /* referenced */
    uint64_t userd_off;
    struct emu_mem *err_mem;   /* referenced, may be NULL */
    const void *tsg;           /* channel group (identity only); NULL: none */

    /* Walker state; the worker owns it while busy is set. */
    uint32_t gp_get;
    bool seg_active;
    uint64_t seg_va;
    uint32_t seg_len, seg_pos; /* dwords */
    uint32_t mthd, count, subch, mode; /* current method header */
    const struct emu_class *bound[EMU_SUBCH];
    uint32_t *regs[EMU_SUBCH]; /* method data as written, per subchannel */
    uint32_t host_regs[0x40];
    struct emu_tlb tlb;

    /* Last kernel matched at kcache_va (index into the registry, which
     * only grows), tried first on the next launch. */
    uint64_t kcache_va;
    size_t kcache_idx;
    /* A launch not run yet (emu_compute.c, "Grids side by side"): the QMD
     * SEND_PCAS named, on subchannel defer_subch; 0: none. */
    uint64_t defer_qva;
    unsigned defer_subch;
    /* Compute-class inline-to-memory cursor. */
    uint64_t i2m_va, i2m_total, i2m_pos;
    uint32_t i2m_line, i2m_pitch;

    bool busy;      /* worker is processing it (gpu.lock) */
    bool pending;   /* doorbell seen, not caught up with GPPut (gpu.lock) */
    atomic_bool error; /* channel error raised: stopped for good */
    /* On its runlist: as in RM, a group schedule takes the group's
     * channels that exist when it is issued, a channel schedule the one
     * channel; a channel outside any group is on it from the start. The
     * worker leaves other channels alone, doorbell or not. */
    atomic_bool scheduled;
    atomic_uint_fast64_t nonstall_intrs;
    uint32_t engine; /* runlist: NV2080_ENGINE_TYPE_GRAPHICS or _COPYn */
};

/* GP entry / header decoding helpers and the worker (emu_chan.c). */
void emu_chan_error(struct emu_chan *c, uint32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Translate for the channel: NULL raises an MMU fault channel error. */
void *emu_chan_ptr(struct emu_chan *c, uint64_t va, uint64_t len, const char *what);
/* Stored method word of subchannel subch (byte offset mthd). */
static inline uint32_t emu_reg(const struct emu_chan *c, unsigned subch, uint32_t mthd)
{
    return c->regs[subch] ? c->regs[subch][(mthd >> 2) & (EMU_MTHD_WORDS - 1)] : 0;
}
static inline uint64_t emu_reg64(const struct emu_chan *c, unsigned subch, uint32_t hi,
                                 uint32_t lo)
{
    return ((uint64_t)emu_reg(c, subch, hi) << 32) | emu_reg(c, subch, lo);
}

/* Put every channel of the group tsg on its runlist (group schedule) /
 * one channel (channel schedule). gpu.lock not held. */
void emu_chan_schedule_group(struct emu_gpu *gpu, const void *tsg);
void emu_chan_schedule(struct emu_chan *c);
/* Register the channel with its GPU (worker starts serving it) / stop
 * serving it and wait until the worker let go. gpu.lock not held. */
void emu_chan_attach(struct emu_chan *c);
void emu_chan_detach(struct emu_chan *c);

/* Semaphore helpers shared by host, copy and compute (emu_host.c).
 * Writes value (4 or 8 bytes) and, when ts, the PTIMER at +8. */
bool emu_sem_release(struct emu_chan *c, uint64_t va, uint64_t value, bool is64, bool ts);
/* Run the launch a channel holds back, if any (emu_compute.c): before a
 * wait for idle, before a method that needs the grids before it ended,
 * and when the channel stops for now. false: a channel error. */
bool emu_compute_flush(struct emu_chan *c);
/* The wait for idle of the host and the compute class: that flush. */
enum emu_mres emu_compute_wait_idle(struct emu_chan *c, unsigned subch, uint32_t mthd,
                                    uint32_t d);

/* ------------------------------------------------------------------ */
/* Kernels (emu_kreg.c)                                                 */
/* ------------------------------------------------------------------ */

struct emu_launch {
    struct emu_chan *chan;
    uint64_t program_va;
    uint32_t grid[3], block[3];
    uint8_t *cbuf0;      /* copy of bank 0 as launched */
    uint32_t cbuf0_size;
    uint32_t shared_size;
    uint64_t cbuf_va[8]; /* banks bound in the QMD; 0 = unbound */
    uint32_t cbuf_size[8];
};

/* Run every block of a launch (loads built-ins and HCQCL_EMU_KERNELS on
 * first use). false: channel error raised (no kernel matches, MMU fault). */
bool emu_kreg_run(struct emu_launch *l);
/* A GPU worker stopped: when none is left, the block pool stops too. */
void emu_kreg_worker_count(int delta);

/* ------------------------------------------------------------------ */
/* The driver (emu_seam.c, emu_rm.c, emu_ctrl.c, emu_uvm.c)             */
/* ------------------------------------------------------------------ */

struct emu_obj;
struct emu_client;

enum emu_fd_kind { EMU_FD_FREE = 0, EMU_FD_CTL, EMU_FD_DEV, EMU_FD_UVM };

struct emu_fd {
    enum emu_fd_kind kind;
    unsigned gpu;           /* EMU_FD_DEV: minor */
    int ctl;                /* EMU_FD_DEV: registered ctl fd, or -1 */
    bool uvm_init, uvm_mm;  /* EMU_FD_UVM */
    /* One mmap context per fd, as the real driver keeps it. */
    struct emu_mem *map_mem; /* referenced */
    uint64_t map_off, map_len;
    /* EMU_FD_UVM: external ranges created on it, registered GPUs. */
    struct { uint64_t base, len; } *xr;
    size_t nxr, cap_xr;
    unsigned gpu_mask;
};

struct emu {
    pthread_mutex_t lock;
    unsigned ngpus;
    struct emu_gpu gpus[EMU_MAX_GPUS];
    struct emu_fd fds[EMU_MAX_FDS];
    struct emu_client *clients;
    uint32_t next_client;
};

extern struct emu emu;

/* Escape and UVM handlers; emu.lock held. Return 0 or -errno. */
int emu_rm_ioctl(int fd, unsigned nr, unsigned size, void *arg);
int emu_uvm_ioctl(int fd, unsigned long cmd, void *arg);
/* Free every client allocated on ctl fd. */
void emu_rm_close_fd(int fd);
void emu_uvm_close_fd(int fd);
/* RM objects (emu_rm.c). */
struct emu_obj {
    uint32_t handle, cls;
    struct emu_client *client;
    struct emu_obj *parent, *children, *sibling;
    struct emu_gpu *gpu;     /* device and everything below it */
    struct emu_mem *mem;     /* memory classes, usermode (referenced) */
    struct emu_chan *chan;   /* channel classes */
    uint64_t next_va;        /* NV01_MEMORY_VIRTUAL: non-fixed DMA maps */
    uint32_t engine;         /* channel group, channel, copy object: NV2080_ENGINE_TYPE_* */
    int event;               /* NV01_EVENT_OS_EVENT: its slot (emu_event.c), -1 none */
    bool gr_ctx;             /* graphics channel group: a compute object exists */
    unsigned subctx_issued;  /* channel group: context shares made in its life */
};
/* The emulated H200's engines: graphics and copy engines COPY0..COPY9,
 * of which COPY0 runs on the graphics runlist (GRCE) and COPY1 shares its
 * physical engine; COPY2..COPY9 are asynchronous engines of their own. */
#define EMU_COPY_ENGINES 10u
#define EMU_SUBCONTEXTS 64 /* context shares per channel group (Hopper's VEIDs) */
bool emu_engine_is_ce(uint32_t engine_type);   /* one of COPY0..COPY9 */
bool emu_engine_is_grce(uint32_t engine_type);
/* Object handle of client hclient, as seen through ctl fd. NULL when the
 * client or object does not exist. hobject == hclient is the client. */
struct emu_obj *emu_rm_find(int ctl_fd, uint32_t hclient, uint32_t hobject);
/* Controls (emu_ctrl.c): returns an NV_STATUS. */
uint32_t emu_ctrl(struct emu_obj *obj, uint32_t cmd, void *params, uint32_t size);
struct emu_fd *emu_fd_get(int fd);

/* OS events (emu_event.c). register/unregister: NV_ESC_ALLOC/FREE_OS_EVENT
 * issued on fd; attach: an NV01_EVENT_OS_EVENT on gpu's subdevice (returns
 * its slot, or -1 with *status set); close_fd: the fd went away. Return
 * values are NV_STATUS. post: a non-stall interrupt of engine notifier
 * `notify` (NV2080_NOTIFIERS_*), from a GPU worker. poll: the seam's. */
uint32_t emu_event_register(int fd, uint32_t client, uint32_t key);
uint32_t emu_event_unregister(uint32_t client, uint32_t key);
struct NV0005_ALLOC_PARAMETERS;
int emu_event_attach(const struct emu_gpu *gpu, uint32_t client,
                     const struct NV0005_ALLOC_PARAMETERS *p, uint32_t *status);
void emu_event_detach(int slot);
void emu_event_close_fd(int fd);
void emu_event_post(const struct emu_gpu *gpu, uint32_t notify);
/* The engine notifier a channel's non-stall interrupts raise. */
uint32_t emu_chan_notifier(const struct emu_chan *c);
int emu_event_poll(int fd, uint64_t timeout_ns);
/* The poll of fd returns now (or the next one at once), as for an event. */
int emu_event_poke(int fd);
struct emu_gpu *emu_gpu_by_uuid(const uint8_t uuid[16]);
/* Fault injection: the GPU with this UUID ignores its next n doorbell
 * rings, as the H200 now and then left a submission unrun with several
 * processes on it (the waits' doorbell again must recover). */
int emu_gpu_drop_doorbells(const uint8_t uuid[16], unsigned n);

/* The class list the emulated H200 reports. */
extern const uint32_t emu_classlist[];
extern const unsigned emu_classlist_len;

#endif

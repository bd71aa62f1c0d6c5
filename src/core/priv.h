/*
 * priv.h — the core's private structures, shared by its files:
 * device.c (enumeration, open/close, timer), va.c (GPU VA allocator),
 * memory.c (allocations), signal.c (signal pool, waits), irq.c (non-stall
 * interrupts as wake-ups), queue.c (channels,
 * pushbuffers, verbs except exec), launch.c and program.c (kernels).
 *
 * Nothing outside src/core includes this header.
 */
#ifndef HCQCL_CORE_PRIV_H
#define HCQCL_CORE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/hcq.h"
#include "nv/nv.h"
#include "nvdrv/nvdrv.h"
#include "util/util.h"

#define CORE_LOG(...) UTIL_LOG(UTIL_LOG_CORE, __VA_ARGS__)
#define CORE_ERR(...) util_log(UTIL_LOG_ERR, __VA_ARGS__)

#define HCQ_MAX_DEVICES 16

/* ------------------------------------------------------------------ */
/* GPU virtual address plan (va.c)                                      */
/* ------------------------------------------------------------------ */

/* Low range: everything the GPU fetches commands, QMDs or constant banks
 * from must sit below 2^40 (GP entries and SEND_PCAS_A carry 40 bits).
 * High range: plain buffers. Both stay clear of the shader windows. */
#define HCQ_VA_LOW_BASE 0x1000000000ull /* 64 GiB */
/* Below it, kept out of both allocators: the window every channel names in
 * UVM_REGISTER_CHANNEL. UVM places the channel's context buffers in free
 * space of the window it is given, and maps buffers shared by every
 * channel of the VA space (the graphics global context buffers) only
 * once, inside the window of whichever channel came first; they outlive
 * that channel. One window shared by all channels (and GPUs: UVM's VA
 * space is per process) keeps them from ever colliding with memory or
 * with another channel's window. */
#define HCQ_CHANNEL_WINDOW_BASE 0x0800000000ull /* 32 GiB */
#define HCQ_CHANNEL_WINDOW_SIZE 0x0800000000ull /* 32 GiB */
#define HCQ_VA_LOW_END (1ull << 40)
#define HCQ_VA_HIGH_BASE (1ull << 40)
#define HCQ_VA_HIGH_END 0x700000000000ull
/* Top range: only memory placed at a chosen address (hcq_va_reserve), as
 * SVM allocations are at the host address of their pages, which the
 * kernel hands out near the top of the 47-bit user space. The shader
 * windows inside it are never reserved. */
#define HCQ_VA_TOP_END 0x800000000000ull
#define HCQ_WINDOWS_END (HCQ_SHARED_WINDOW + (1ull << 32))
#define HCQ_LOCAL_WINDOW 0x729300000000ull  /* SET_SHADER_LOCAL_MEMORY_WINDOW */
#define HCQ_SHARED_WINDOW 0x729400000000ull /* SET_SHADER_SHARED_MEMORY_WINDOW */

#define HCQ_PAGE_4K 0x1000ull
#define HCQ_PAGE_2M 0x200000ull
#define HCQ_HUGE_MIN (8ull << 20) /* allocations this large get 2 MiB pages */

/* A first-fit allocator over [base, end) that returns freed ranges to a
 * sorted, coalesced free list. Locked internally. */
struct hcq_va_range {
    uint64_t base, size;
};
struct hcq_va {
    pthread_mutex_t lock;
    uint64_t base, end;
    struct hcq_va_range *free; /* sorted by base, coalesced */
    size_t nfree, cap;
};
int hcq_va_init(struct hcq_va *va, uint64_t base, uint64_t end);
void hcq_va_fini(struct hcq_va *va);
/* size and align are multiples of 4 KiB; align a power of two. */
int hcq_va_alloc(struct hcq_va *va, uint64_t size, uint64_t align, uint64_t *out);
/* Take exactly [base, base + size) when all of it is free: 0 or -EEXIST. */
int hcq_va_claim(struct hcq_va *va, uint64_t base, uint64_t size);
void hcq_va_free(struct hcq_va *va, uint64_t base, uint64_t size);
/* Bytes currently free (tests). */
uint64_t hcq_va_free_bytes(struct hcq_va *va);
/* Number of free-list fragments (tests: proves coalescing). */
size_t hcq_va_fragments(struct hcq_va *va);

/* ------------------------------------------------------------------ */
/* Devices (device.c)                                                   */
/* ------------------------------------------------------------------ */

struct hcq_signal_page;

/* A channel group on the graphics runlist that compute queues share
 * (queue.c): freed with its last channel. */
struct hcq_group {
    uint32_t handle;
    unsigned users;  /* channels in it */
    unsigned issued; /* context shares RM gave it in its life */
    bool scheduled;  /* its group schedule was issued */
};

struct hcq_device {
    struct hcq_device_info info;
    /* Where a launch's per-QMD fields lie (launch.c); chains need it. */
    struct nv_qmd_hot qmd_hot;
    bool qmd_hot_ok;
    unsigned index;
    struct nvdrv *drv; /* process-wide driver connection */
    nv_ioctl_card_info_t card;
    uint32_t device_instance;
    uint32_t h_device, h_subdevice; /* allocated at enumeration */
    int gpu_fd; /* registered /dev/nvidiaN, open from enumeration on: RM
                 * allocates the device only for a client holding it; also
                 * the fd of OS-descriptor allocations */

    /* Everything below is set up by hcq_device_open(), under lock. */
    pthread_mutex_t lock;
    unsigned refs;
    uint32_t h_virtmem;   /* NV01_MEMORY_VIRTUAL: hDma of every RM_MAP_MEMORY_DMA */
    uint32_t h_vaspace;   /* FERMI_VASPACE_A owned by UVM */
    uint32_t h_usermode;  /* HOPPER_USERMODE_A */
    volatile uint8_t *usermode; /* doorbell + PTIMER page (CPU mapping) */
    bool uvm_gpu, uvm_vaspace;
    /* UVM keeps ONE VA space per process, mirrored on every GPU: the
     * allocators are process-wide and these point at them. */
    struct hcq_va *va_low, *va_high;
    _Atomic uint64_t mem_in_use;
    _Atomic uint64_t mem_allocs; /* hcq_mem_alloc calls that succeeded */
    atomic_uint next_ce; /* copy queues take info.async_ce[] in turn */
    atomic_bool ce_refused; /* an async copy engine refused a channel: use graphics */
    /* The channel group compute queues' channels join now, each with a
     * context share (subcontext) of its own (queue.c, channel_alloc_compute),
     * so that compute queues run side by side without the context switches
     * between groups. NULL: the next one starts a group. A group that
     * handed out its subcontexts, or that RM refused a joiner, is retired:
     * it keeps the channels it has, and the next joiner starts the next
     * group. gr_share_off: RM refused a group's first channel; groups of
     * their own from then on. Under group_lock. */
    pthread_mutex_t group_lock;
#define HCQ_GROUP_SUBCONTEXTS 64 /* Hopper's VEIDs: context shares in one group */
    struct hcq_group *gr_group;
    bool gr_share_off;
    atomic_bool lost;
    /* Why (fault.c): written once by the first reporter, which claims
     * lost_claimed, before lost is set. */
    atomic_bool lost_claimed;
    uint32_t lost_code; /* ROBUST_CHANNEL_* (Xid) or 0 */
    char lost_why[192];

    /* Signal pool (signal.c), under sig_lock. */
    pthread_mutex_t sig_lock;
    struct hcq_signal_page *sig_pages;

    /* Slabs of small blocks (small.c) per kind and size class, under
     * small_lock. */
    pthread_mutex_t small_lock;
#define HCQ_SMALL_KINDS 3 /* DEVICE, DEVICE_MAPPED, HOST */
    struct hcq_slab *small[HCQ_SMALL_KINDS][HCQ_SMALL_CLASSES];

    /* Local (stack) memory shared by every compute queue of the device
     * (launch.c, hcq_device_ensure_local), under local_lock. */
    pthread_mutex_t local_lock;
    struct hcq_mem *local_mem;
    uint32_t local_per_thread; /* bytes per thread it was sized for */
    uint64_t local_per_tpc;
    uint32_t local_gen; /* bumped whenever local_mem is replaced */
    /* Buffers replaced by a bigger one: kernels recorded earlier on other
     * queues may still use them, so they live until device close
     * (hcq_device_local_fini). */
    struct hcq_mem *local_retired[16];
    unsigned nlocal_retired;

    /* Holds that may join a launch chain started on another queue
     * (queue.c, link_across), linked through xnext, under xlink_lock. */
    pthread_mutex_t xlink_lock;
    struct hcq_hold *xlink;

    /* Queues of the device (error notifiers to watch), under lock. */
    struct hcq_queue *queues;
    /* Idle queues kept for the next hcq_queue_create (queue.c), under
     * lock; they stay on `queues`. */
    struct hcq_queue *idle;
    unsigned nidle;

    /* Non-stall interrupts (irq.c), set up by hcq_device_open: irq_on when
     * irq_fd gets an OS event for each engine the queues run on. */
    atomic_bool irq_on;
    int irq_fd;
    uint32_t irq_events[1 + 16 + 4]; /* graphics, info.async_ce[], info.grce[] */
    unsigned nirq_events;
    _Atomic uint32_t irq_gen; /* bumped after every poll of irq_fd (a futex) */
    /* Waiters sleeping on interrupts: only while there are any do
     * releases raise them (queue.c, push_release). */
    _Atomic uint32_t irq_want;
    atomic_bool irq_polling;  /* one waiter polls irq_fd, the others wait on irq_gen */

    /* Wakers (waker.c): copy-engine channels that raise an interrupt once
     * a value whose release raises none has landed. Under waker_lock. */
    pthread_mutex_t waker_lock;
    pthread_cond_t waker_made; /* waker_making cleared */
#define HCQ_WAKER_MAX 4
    struct hcq_waker {
        struct hcq_queue *q;
        const struct hcq_signal *s; /* its last request: s >= target, */
        uint64_t target, ticket;    /* then q's timeline = ticket */
        uint64_t since_ns;          /* when that request was made */
    } wakers[HCQ_WAKER_MAX];
    unsigned nwakers;
    bool waker_making; /* a thread is making one (the last close waits) */
    bool waker_off;    /* one could not be made: none are asked for again */
    struct hcq_queue *waker_retired; /* a stuck one the next maker frees */
    atomic_bool waker_closed; /* from the last close's drain to the next open */
    _Atomic uint64_t waker_requests; /* requests made (tests read it) */
};

/* Interrupts as wake-ups (irq.c). setup: on failure the device works
 * without (logged). sleep: up to ns, woken early by a non-stall interrupt
 * of the device's engines after gen was read with hcq_irq_gen; without
 * interrupts a plain sleep. Returns true when woken by an interrupt (or
 * another waiter's poll), false on timeout. */
void hcq_irq_setup(struct hcq_device *dev);
void hcq_irq_teardown(struct hcq_device *dev);
static inline uint32_t hcq_irq_gen(struct hcq_device *dev)
{
    return atomic_load_explicit(&dev->irq_gen, memory_order_acquire);
}
bool hcq_irq_sleep(struct hcq_device *dev, uint32_t gen, uint64_t ns);
/* Up to ns, ended early only when irq_gen moves from gen (another
 * waiter's poll, hcq_device_poke): a sleep that takes no interrupt. */
void hcq_irq_nap(struct hcq_device *dev, uint32_t gen, uint64_t ns);

/* Raises one of a signal's marks (rec_hi, irq_hi, seen_hi) to value by a
 * load and a store, not a locked instruction: a locked compare-exchange
 * at every release waited for the launch's write-combined stores to drain
 * (util.h, util_lock). A signal's releases are recorded under one lock
 * (its queue's; an OpenCL queue's slots under that queue's). Were two
 * writers ever to race, a mark could end below the highest value: a
 * waiter would then count itself as wanting interrupts when it needed
 * none, or sleep in steps instead of on an interrupt, never woken late
 * beyond its steps; a seen_hi left low (two waits may raise it at once)
 * only makes the channel's next launch go without an expected end. */
static inline void hcq_raise_to(_Atomic uint64_t *hi, uint64_t value)
{
    if (atomic_load_explicit(hi, memory_order_relaxed) < value)
        atomic_store_explicit(hi, value, memory_order_relaxed);
}

/* Wakers (waker.c). arm: asks for a non-stall interrupt right after s
 * reaches target, a value already recorded whose release raises none;
 * true when one will come (a request made now or earlier), false when no
 * waker can take it now (none made yet: the first is made in the
 * background; all busy; HCQCL_WAKER=off). prepare: makes the first waker
 * now (tests). drain: frees them all without waiting (the last close). */
bool hcq_waker_arm(struct hcq_device *dev, const struct hcq_signal *s, uint64_t target);
int hcq_waker_prepare(struct hcq_device *dev);
void hcq_waker_drain(struct hcq_device *dev);
/* A waker's queue: a channel on a copy engine of its own where one is
 * free, whose every release raises the non-stall interrupt. */
int hcq_queue_create_waker(struct hcq_device *dev, struct hcq_queue **out);
/* Frees q at once, waiting for nothing (a waker blocked in an acquire). */
void hcq_queue_abandon(struct hcq_queue *q);

/* Mark the device lost (channel error, hang); logs why once (fault.c).
 * _code also records the channel error code hcq_device_fault() returns. */
void hcq_device_set_lost(struct hcq_device *dev, const char *why);
void hcq_device_set_lost_code(struct hcq_device *dev, uint32_t code, const char *why);
/* Clear the lost state: hcq_device_open() on the first reference only. */
void hcq_device_fault_reset(struct hcq_device *dev);
/* Read the error notifiers of the device's queues; marks the device lost
 * when a channel reported an error. Returns hcq_device_lost(dev). Cheap
 * enough to call every millisecond from a waiting thread. */
bool hcq_device_check_lost(struct hcq_device *dev);

/* Ring the doorbell again for every queue of dev whose USERD shows
 * entries the GPU has not fetched (GP_GET != GP_PUT). Returns how many. */
unsigned hcq_device_kick(struct hcq_device *dev, uint64_t stalled_ns);

/* The schedule of every wait for the GPU (signal waits, ring room): with
 * no progress for HCQ_KICK_FIRST_NS, then for each doubling of that,
 * hcq_device_kick. *next starts at HCQ_KICK_FIRST_NS and goes back to it
 * whenever the wait sees progress; call this every round. Returns how many
 * queues it rang for. */
#define HCQ_KICK_FIRST_NS 1000000ull
static inline unsigned hcq_device_kick_stalled(struct hcq_device *dev, uint64_t stalled_ns,
                                               uint64_t *next)
{
    if (stalled_ns < *next)
        return 0;
    *next *= 2;
    return hcq_device_kick(dev, stalled_ns);
}

/* The driver connection (device.c), for memory.c/queue.c. */
static inline struct nvdrv *hcq_drv(const struct hcq_device *dev) { return dev->drv; }

/* ------------------------------------------------------------------ */
/* Memory (memory.c)                                                    */
/* ------------------------------------------------------------------ */

/* An allocation; the public part first. */
struct hcq_mem_priv {
    struct hcq_mem pub;
    uint32_t h_memory;   /* RM memory object */
    uint64_t map_size;   /* GPU VA range size (page-rounded) */
    uint64_t page;       /* GPU page size */
    bool high;           /* VA from the high range */
    bool fixed;          /* VA chosen by the caller (hcq_mem_alloc_at): not ours to free */
    bool in_range;       /* mapped into another allocation's UVM range: no UVM_FREE */
    void *cpu_map;       /* CPU mapping we own (munmap on free), or NULL */
    bool own_pages;      /* cpu_map is our anonymous mmap, not a driver view */
    uint64_t cpu_map_size;
    uint64_t counted;    /* bytes counted in mem_in_use */
    struct hcq_slab *slab; /* a small block (small.c): its slab, else NULL */
    unsigned slot;         /* and its place there */
};
static inline struct hcq_mem_priv *hcq_mem_priv(struct hcq_mem *m)
{
    return (struct hcq_mem_priv *)m;
}
/* Small blocks (small.c): give one back; free every slab at close. */
void hcq_small_free(struct hcq_mem_priv *m);
void hcq_small_fini(struct hcq_device *dev);

/* hcq_mem_alloc with placement flags:
 *  HCQ_MEMF_LOW     VA below 2^40 (pushbuffers, QMDs, constant banks, code)
 *  HCQ_MEMF_CONTIG  physically contiguous vidmem (GPFIFO ring + USERD)
 *  HCQ_MEMF_RM_SYSMEM  HCQ_MEM_HOST as RM-allocated uncached system memory
 *                   (NV01_MEMORY_SYSTEM) with no CPU view: error notifiers */
#define HCQ_MEMF_LOW 1u
#define HCQ_MEMF_CONTIG 2u
#define HCQ_MEMF_RM_SYSMEM 4u
int hcq_mem_alloc_ex(struct hcq_device *dev, uint64_t size, enum hcq_mem_kind kind,
                     unsigned flags, struct hcq_mem **out);

/* ------------------------------------------------------------------ */
/* Signals (signal.c)                                                   */
/* ------------------------------------------------------------------ */

/* Pool teardown at the last device close (every signal must be freed). */
void hcq_signal_pool_fini(struct hcq_device *dev);
/* Pages in the pool (tests: freed slots are reused, the pool does not grow). */
unsigned hcq_signal_pool_pages(struct hcq_device *dev);

/* ------------------------------------------------------------------ */
/* Queues (queue.c)                                                     */
/* ------------------------------------------------------------------ */

/* A ring arena of CPU-visible memory below 2^40 whose space is recycled
 * once the submission that last used it has completed on the timeline.
 * head/tail are byte counters that only grow; offset = counter % size. */
#define HCQ_ARENA_MARKS 1024
struct hcq_arena {
    struct hcq_mem *mem;
    uint8_t *cpu;
    uint64_t va, size;
    uint64_t mask; /* size - 1 when size is a power of two, else 0 */
    uint64_t head, tail;
    struct {
        uint64_t end; /* head at the close of submission seq */
        uint64_t seq;
    } marks[HCQ_ARENA_MARKS];
    unsigned mhead, mtail; /* marks ring */
};

/* Offset of byte counter c in the arena: a mask for the usual power-of-two
 * sizes (a 64-bit division costs tens of cycles, several per launch). */
static inline uint64_t hcq_arena_off(const struct hcq_arena *a, uint64_t c)
{
    return a->mask ? c & a->mask : c % a->size;
}

#define HCQ_SUBMIT_HISTORY 4096 /* closed submissions remembered */
#define HCQ_PENDING_GP 64       /* GP entries of the open submission, inline */

/* Banks 0 up to this size are built in cached memory, then copied
 * (launch.c). */
#define HCQ_BANK_STAGE 4096u
/* Parameter blocks up to this size are kept to recognise a repeated bank. */
#define HCQ_BANK_PARAMS 256u

/* A hold (hcq_q_hold): its span, once ended, is pending_gp[start, end);
 * the work in front of it ends with the release of rel (rel_ok: known,
 * always when start > 0), at arena heads pb_end / scratch_end (when
 * start > 0). state: HCQ_HOLD_*, written by hcq_q_hold_decide from any
 * thread. */
struct hcq_hold {
    struct hcq_hold *next;
    unsigned start, end;
    bool ended;
    uint64_t rel, pb_end, scratch_end;
    /* The channel's state at its start (hcq_q_hold_end puts it back). */
    uint32_t local_gen;
    bool grids_open;
    /* Where the channel's last grid announces its end (hcq_queue's
     * grid_va / grid_val) at the span's start, and at its end when the
     * span has a grid (span_va 0: none); acq_at, the pushbuffer
     * offset of the acquire of the span's one recorded after the span
     * (UINT64_MAX: none yet). A dropped span's is never released: that
     * acquire is rewritten (queue.c, unwind_span). */
    uint64_t pre_va, pre_val, span_va, span_val, acq_at;
    /* pending_gp[ustart, uend): what stands in for the span when it is
     * dropped, submitted only then (queue.c, span_alone); empty when
     * uend == ustart. */
    unsigned ustart, uend;
    /* Launch chains across spans (queue.c, span_link). span_pb: pb.head
     * where the span starts. first_qmd: the GPU address of the span's
     * first launch's QMD where the span holds nothing else but the wait
     * for the channel's last grid in front of it, an acquire of
     * (first_va, first_val), and the launch's methods, which end at
     * first_pb (0: not so). last: the span's last QMD as span_alone
     * released its command's value with it, its words and where they
     * lie (cpu NULL: not so). */
    uint64_t span_pb, first_qmd, first_va, first_val, first_pb;
    struct {
        void *cpu;
        uint32_t bytes;
        uint64_t val;
        uint32_t qmd[96];
    } last;
    /* Launch chains across queues (queue.c, link_across). x_va / x_val:
     * the wait for another command that is the first thing in the span,
     * ending at pb.head x_pb (x_va 0: none); with first_qmd as well, the
     * span is that wait, perhaps the wait for the channel's last grid
     * (first_va), and one launch that needs no local memory. q: the
     * hold's queue. Written by the recording thread (writer) before the
     * hold is listed in the device's xlink (xnext, xreg; under
     * xlink_lock), and not changed after. */
    uint64_t x_va, x_val, x_pb;
    bool rel_ok, xreg;
    struct hcq_hold *xnext;
    struct hcq_queue *q;
    uintptr_t writer;
    _Atomic int state;
};

struct hcq_queue {
    struct hcq_device *dev;
    enum hcq_engine engine;
    uint32_t engine_class; /* CBC0 / C8B5 */

    /* RM objects: a context share of its own in a compute group the
     * device's compute queues share (group, shared_group), or a channel
     * group (TSG) of its own. */
    uint32_t h_chgrp, h_ctxshare, h_channel, h_engine;
    struct hcq_group *group;
    bool shared_group;
    uint32_t runlist_engine; /* NV2080_ENGINE_TYPE_GRAPHICS or _COPYn */
    uint32_t token; /* doorbell work-submit token */
    struct hcq_mem *notifier; /* error notifier; cpu may be NULL */
    struct hcq_queue *next;   /* dev->queues */
    struct hcq_queue *idle_next; /* dev->idle */
    bool uvm_channel;
    bool reusable;            /* made by hcq_queue_create: may be kept idle */
    bool waker;               /* a waker's (waker.c): every release interrupts */

    /* GPFIFO ring + USERD in one CPU-mapped vidmem allocation. */
    struct hcq_mem *ring_mem;
    volatile uint64_t *ring;
    volatile uint32_t *userd;
    uint32_t ring_entries;
    uint64_t put;     /* entries written, ever */
    uint64_t get_abs; /* entries the GPU has consumed, at least */
    uint64_t hw_get_abs; /* absolute count of the last GP_GET read back */

    /* Pushbuffer arena (dwords) and per-submission scratch arena. */
    struct hcq_arena pb, scratch;
    uint64_t open_start;   /* pb.head where the open GP chunk begins */
    bool scratch_unpushed; /* a scratch block not yet referenced by a push */
    /* Write-combined stores of several threads (queue.c): wc, the arenas
     * are write-combined (a GPU's BAR1); wc_writer, the util_thread_self() of
     * the thread that wrote them since the last fence, or 0; wc_shared,
     * a second thread has written them. */
    bool wc, wc_shared;
    uintptr_t wc_writer;
    uint32_t acquire_switch; /* SEM_EXECUTE ACQUIRE_SWITCH_TSG for waits (HCQCL_ACQUIRE) */
    /* GP entries of the open submission: pending_inline, or, once more
     * were needed (work behind a hold), an allocation of pending_cap. */
    uint64_t *pending_gp;
    unsigned npending, pending_cap;
    uint64_t pending_inline[HCQ_PENDING_GP];
    /* Holds (hcq_q_hold), oldest first. While any is, submit() submits
     * only up to the first one still open: pending_gp then carries
     * everything recorded since, each span its own entries. */
    struct hcq_hold *hold_first, *hold_last;

    /* Submissions: seq numbers; retire[seq % N] = timeline value after
     * which that submission's pushbuffer and scratch may be reused (0 =
     * not known yet: the next timeline release covers it). */
    uint64_t seq;      /* sequence number of the open submission */
    uint64_t seq_done; /* all submissions < seq_done are known retired */
    uint64_t retire[HCQ_SUBMIT_HISTORY];
    uint64_t put_at[HCQ_SUBMIT_HISTORY]; /* ring entries written through seq */
    uint64_t rel_value;   /* last timeline release emitted ... */
    uint64_t rel_pb_head; /* ... and pb.head just after it */
    bool rel_host;        /* it came from the host (not a grid's) */
    /* hcq_q_commit: the last timeline value of the submission before the
     * last one, and of the last one; units held back since. */
    uint64_t pub_prev, pub_hi;
    unsigned nheld;
    bool held_unread;      /* the last commit held without reading the timeline */
    uint64_t held_read_at; /* when a commit last read it (queue.c, held_clock) */

    struct hcq_signal *timeline;
    uint64_t last;
    /* Where the channel's last grid announces its end (launch.c,
     * hcq_q_after_grids): its QMD's release of grid_val at grid_va, the
     * timeline's or `grids`' (a grid written out by a method, or the last
     * of a hold's span without a timeline release, releases the next of
     * its values, grids_last so far). grid_va 0: not known (a wait for
     * idle serves instead). */
    struct hcq_signal *grids;
    uint64_t grids_last;
    uint64_t grid_va, grid_val;
    bool bound;              /* SET_OBJECT emitted */

    /* The QMD of the launch recorded last (launch.c): a launch of the
     * same kernel with the same shape only moves bank 0. k's address may
     * be reused by another program, its serial never is. */
    struct {
        uint32_t qmd[96];
        const struct hcq_kernel *k;
        uint64_t serial;
        uint32_t grid[3], block[3], shared, dyn;
    } last_qmd;
    /* The bank 0 written last (launch.c): a launch whose bank is equal,
     * in the same submission, points at that one instead. What it was
     * built from is kept too: a launch of the same kernel, shape,
     * parameters and environment has that bank without building it. */
    struct hcq_last_bank {
        uint8_t data[HCQ_BANK_STAGE] __attribute__((aligned(64)));
        uint64_t va, seq;
        uint32_t lines; /* 0: none */
        const struct hcq_kernel *k; /* NULL: inputs not kept */
        uint64_t serial;
        uint32_t grid[3], block[3], envreg[32];
        uint32_t params_size;
        uint8_t params[HCQ_BANK_PARAMS];
    } last_bank;
    /* Launch chains (launch.c). While the launch recorded last is the
     * last thing in the open submission, its QMD waits in tail.qmd, not
     * yet written to its scratch block: a next launch makes it schedule
     * that one when its grid ends (a dependent QMD, no methods and no
     * wait for idle between them), and a timeline release folds into its
     * release slot. Any method written after it, and every submission,
     * writes it out (hcq_q_tail_flush). */
    struct {
        uint32_t qmd[96] __attribute__((aligned(64)));
        void *cpu; /* its scratch address; NULL: no QMD pending */
        uint32_t bytes;
        bool released; /* release slot 0 holds a timeline release */
        bool released1; /* release slot 1 holds another (hcq_q_signal_grid) */
    } tail;
    /* A hold's span just ended by a launch (hcq_q_hold_end): its QMD,
     * written out with the `grids` release, is still in tail.qmd, and
     * nothing was recorded since (pb.head and scratch.head as then). A
     * timeline release right here becomes that QMD's release instead
     * (queue.c, span_tail_take). cpu NULL: none. */
    struct {
        void *cpu;
        struct hcq_hold *hold;
        uint64_t pb_head, scratch_head;
    } span_tail;
    bool chain;      /* HCQCL_LAUNCH_CHAIN: launches may chain */
    uint64_t spans_linked; /* span_link's count (tests read it) */
    uint64_t spans_linked_across; /* link_across's, of this queue's spans */
    bool grids_open; /* grids recorded since the last wait for them to end */
    uint32_t local_gen;      /* dev->local_gen this queue's methods point at */
};

/* Create with explicit sizes (tests use tiny rings to force wrap-around).
 * ring_entries a power of two ≥ 64; pb_bytes and scratch_bytes multiples of
 * 4 KiB. hcq_queue_create() uses the defaults below. */
/* Idle queues a device keeps (queue.c, hcq_queue_destroy). */
#define HCQ_IDLE_MAX 256
#define HCQ_RING_ENTRIES 1024
#define HCQ_PB_BYTES (2u << 20)
#define HCQ_SCRATCH_BYTES (4u << 20)
/* Free the idle queues of dev (hcq_device_close, before the last close). */
void hcq_queue_idle_drain(struct hcq_device *dev);
int hcq_queue_create_sized(struct hcq_device *dev, enum hcq_engine engine, uint32_t ring_entries,
                           uint32_t pb_bytes, uint32_t scratch_bytes, struct hcq_queue **out);

/* Orders the write-combined stores before it (pushbuffer, ring entry,
 * GPPut) before the stores after it, as the GPU must see them. On x86 a
 * store fence does that without making the core wait for its
 * write-combining buffers to drain, which a full fence does. On the H200
 * a submit cost the CPU 0.12 us with store fences against 0.39-0.43 with
 * full ones, and the round trips did not move (launch + wait 4.33 us,
 * a semaphore's 2.74-2.82, either way; hcqbench --split): the stores take
 * as long to reach the GPU, the CPU only no longer sits through it. The
 * memory clobber keeps the compiler's stores on their side of it too. */
static inline void hcq_store_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("sfence" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Pushbuffer writing, for the verbs and launch.c. A verb first reserves
 * the dwords it will write (waiting for the GPU to free space when
 * needed; -ENOMEM only if it cannot ever fit, -EIO on a lost device), then
 * emits methods. All methods use incrementing headers. */
int hcq_push_reserve(struct hcq_queue *q, uint32_t ndw);
void hcq_push_incr(struct hcq_queue *q, uint32_t subc, uint32_t method, const uint32_t *data,
                   uint32_t n);
static inline void hcq_push_1(struct hcq_queue *q, uint32_t subc, uint32_t method, uint32_t v)
{
    hcq_push_incr(q, subc, method, &v, 1);
}

/* Per-submission scratch for cbuf0 + QMD blocks: CPU-visible, below 2^40,
 * align a power of two ≤ 4096; valid until the timeline passes the
 * submission that uses it (the space is then reused). -ENOMEM when size
 * exceeds the arena. */
int hcq_q_scratch(struct hcq_queue *q, uint32_t size, uint32_t align, void **cpu, uint64_t *va);

/* Emit a release of ++last on the queue's timeline from the host (compute:
 * after the channel's grids, semaphore with WFI + timestamp, then the
 * non-stall interrupt while threads sleep on interrupts; copy: CE
 * semaphore, 64-bit payload) and account it for pushbuffer/scratch
 * recycling, never folded into a QMD (hcq_q_signal_next may fold it). */
int hcq_q_release_timeline(struct hcq_queue *q, uint64_t *value);

/* Launch chains (launch.c): write the pending QMD out as it is
 * (hcq_q_tail_flush), or with its end announced (hcq_q_tail_close: the
 * next `grids` value unless it releases the timeline; any method
 * written after a launch does this first); fold the timeline release of
 * value into the pending QMD's release slot (needs q->tail.cpu set and
 * not released). hcq_q_after_grids orders what is recorded next after
 * every grid of the channel without holding the channel group's method
 * stream: a semaphore acquire of the last grid's release
 * (HCQ_AFTER_GRIDS_DW dwords at most); false when that release is not
 * known, and the caller waits for idle instead. hcq_q_idle waits for
 * idle (before methods that must not overlap any grid). */
#define HCQ_AFTER_GRIDS_DW 6u
/* Dwords of a release (queue.c, push_release: a wait for the channel's
 * grids, the semaphore, the interrupt). Always left after a verb's
 * reservation: two of them, so that hcq_q_submit can append its timeline
 * release without waiting, even after a release in the slack behind a
 * hold (release_timeline). */
#define HCQ_RELEASE_DW (HCQ_AFTER_GRIDS_DW + 8u)
#define HCQ_RELEASE_SLACK_DW (2u * HCQ_RELEASE_DW)
/* A GPU wait until *va >= value (hcq_q_wait's), in room reserved already
 * (HCQ_AFTER_GRIDS_DW dwords). */
void hcq_q_push_acquire(struct hcq_queue *q, uint64_t va, uint64_t value);
void hcq_q_tail_flush(struct hcq_queue *q);
void hcq_q_tail_close(struct hcq_queue *q);
void hcq_q_tail_release(struct hcq_queue *q, uint64_t value);
bool hcq_q_after_grids(struct hcq_queue *q);
void hcq_q_idle(struct hcq_queue *q);

/* Device local memory (launch.c): make sure the device's local-memory
 * buffer holds bytes_per_thread per thread and that q's compute object
 * points at it (emits SET_SHADER_LOCAL_MEMORY* on q). */
int hcq_device_ensure_local(struct hcq_device *dev, struct hcq_queue *q, uint32_t bytes_per_thread);
/* Free the local-memory buffers (current and retired) at the last device
 * close, once no queue exists. */
void hcq_device_local_fini(struct hcq_device *dev);

/* ------------------------------------------------------------------ */
/* Programs and kernels (program.c builds, launch.c reads)              */
/* ------------------------------------------------------------------ */

/* A loaded kernel: everything a launch needs, immutable after load. */
struct hcq_kernel {
    struct hcq_program *prog;
    char *name;
    uint32_t param_base;       /* parameter block offset in bank 0 */
    uint32_t param_size;
    uint32_t cbuf0_size;       /* bank 0 bytes (param_base + param_size at least) */
    uint32_t regs;
    uint32_t shared_section;   /* .nv.shared.<k> bytes (reserved part included on sm_90) */
    uint32_t shared_reserved;  /* 0x400 on sm_90, else 0 */
    uint32_t stack;            /* MIN_STACK_SIZE / FRAME_SIZE bytes */
    uint32_t local_per_thread; /* QMD local size; 0 = no local memory */
    uint32_t max_threads;
    uint32_t reqntid[3];
    uint64_t program_va;
    uint32_t qmd_version;      /* enum nv_qmd_version */
    uint32_t qmd_size;         /* bytes */
    uint32_t qmd[96];          /* template: everything but grid, block, shared, bank 0 */
};

struct hcq_program {
    struct hcq_device *dev;
    uint64_t serial;           /* unique in the process: never reused, unlike addresses */
    struct hcq_mem *mem;       /* the image, CPU-visible vidmem below 2^40 */
    uint32_t num_kernels;
    struct hcq_kernel *kernels;
};

/* Copy bytes (a multiple of 64) to write-combined memory at dst (64-byte
 * aligned) in whole lines, each written once, in address order (wc.c;
 * bench/wc_cost measures it). */
void hcq_wc_copy_lines(void *dst, const void *src, uint32_t bytes);
/* Copy n bytes out of write-combined memory at src with streaming loads,
 * after a full fence (wc.c). Reads the aligned 16-byte blocks holding
 * src and src + n - 1 whole. */
void hcq_wc_read(void *dst, const void *src, size_t n);

/* Once per process, before the first queue: whether a submission can
 * drain the write-combined stores other threads left buffered
 * (membarrier); if not, util_lock releases fence (queue.c). */
void hcq_wc_init(void);

#endif

/*
 * RM escapes of the emulated driver: clients and the object tree
 * (RM_ALLOC / RM_FREE), OS-descriptor memory, CPU-mapping contexts
 * (RM_MAP_MEMORY), DMA mappings, CARD_INFO, REGISTER_FD and the version
 * check. Runs on the caller's thread with emu.lock held.
 *
 * Handles: RM picks 0xC1D0xxxx for clients and 0xCAF0xxxx for objects
 * when hObjectNew is 0, as the 580 driver does; client-chosen handles
 * must be unique in their client (NV_ERR_INSERT_DUPLICATE_NAME). Freeing
 * an object frees its children first; closing the ctl fd frees its
 * clients.
 */
#include "nvdrv/nvdrv.h"

#include "emu/emu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define EMU_NV01_ROOT 0x0000
#define EMU_NV01_ROOT_NON_PRIV 0x0001
#define EMU_GT200_DEBUGGER 0x83DE
#define EMU_VOLTA_USERMODE_A 0xC361

struct emu_client {
    uint32_t handle;
    int fd;
    struct emu_client *next;
    struct emu_obj root;
    struct emu_obj **objs; /* sorted by handle, root excluded */
    size_t n, cap;
    uint32_t next_handle;
};

static struct emu_obj *client_find(struct emu_client *cl, uint32_t h, size_t *pos)
{
    size_t lo = 0, hi = cl->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cl->objs[mid]->handle < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (pos)
        *pos = lo;
    return lo < cl->n && cl->objs[lo]->handle == h ? cl->objs[lo] : NULL;
}

static struct emu_client *find_client(uint32_t h)
{
    for (struct emu_client *c = emu.clients; c; c = c->next)
        if (c->handle == h)
            return c;
    return NULL;
}

struct emu_obj *emu_rm_find(int ctl_fd, uint32_t hclient, uint32_t hobject)
{
    struct emu_client *cl = find_client(hclient);
    if (!cl || (ctl_fd >= 0 && cl->fd != ctl_fd))
        return NULL;
    return hobject == hclient ? &cl->root : client_find(cl, hobject, NULL);
}

static int client_insert(struct emu_client *cl, struct emu_obj *o)
{
    size_t pos;
    if (client_find(cl, o->handle, &pos))
        return -EEXIST;
    if (cl->n == cl->cap) {
        size_t cap = cl->cap ? cl->cap * 2 : 64;
        struct emu_obj **v = realloc(cl->objs, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        cl->objs = v;
        cl->cap = cap;
    }
    memmove(&cl->objs[pos + 1], &cl->objs[pos], (cl->n - pos) * sizeof(*cl->objs));
    cl->objs[pos] = o;
    cl->n++;
    return 0;
}

static void client_remove(struct emu_client *cl, struct emu_obj *o)
{
    size_t pos;
    if (client_find(cl, o->handle, &pos) == o) {
        memmove(&cl->objs[pos], &cl->objs[pos + 1], (cl->n - pos - 1) * sizeof(*cl->objs));
        cl->n--;
    }
}

/* Object destructors: release what the class holds. */
static void obj_destroy(struct emu_obj *o)
{
    if (o->chan) {
        emu_chan_detach(o->chan);
        emu_mem_unref(o->chan->userd_mem);
        emu_mem_unref(o->chan->err_mem);
        free(o->chan);
    }
    if (o->cls == NV01_EVENT_OS_EVENT)
        emu_event_detach(o->event);
    if ((o->cls & 0xff) == 0x61 && o->gpu) /* usermode classes keep the worker (PTIMER) alive */
        emu_gpu_user_drop(o->gpu);
    emu_mem_unref(o->mem);
}

static void obj_free(struct emu_obj *o)
{
    while (o->children)
        obj_free(o->children);
    if (o->parent)
        for (struct emu_obj **p = &o->parent->children; *p; p = &(*p)->sibling)
            if (*p == o) {
                *p = o->sibling;
                break;
            }
    if (o == &o->client->root)
        return;
    client_remove(o->client, o);
    obj_destroy(o);
    free(o);
}

static void client_free(struct emu_client *cl)
{
    obj_free(&cl->root);
    for (struct emu_client **p = &emu.clients; *p; p = &(*p)->next)
        if (*p == cl) {
            *p = cl->next;
            break;
        }
    free(cl->objs);
    free(cl);
}

void emu_rm_close_fd(int fd)
{
    for (struct emu_client *c = emu.clients, *next; c; c = next) {
        next = c->next;
        if (c->fd == fd)
            client_free(c);
    }
}

static uint32_t alloc_client(int fd, NVOS21_PARAMETERS *p)
{
    uint32_t h = p->hObjectNew;
    if (h && find_client(h))
        return NV_ERR_INSERT_DUPLICATE_NAME;
    while (!h || find_client(h))
        h = 0xC1D00000u | (++emu.next_client & 0xffff);
    struct emu_client *cl = calloc(1, sizeof(*cl));
    if (!cl)
        return NV_ERR_NO_MEMORY;
    cl->handle = h;
    cl->fd = fd;
    cl->root = (struct emu_obj){.handle = h, .cls = NV01_ROOT_CLIENT, .client = cl};
    cl->next = emu.clients;
    emu.clients = cl;
    p->hObjectNew = h;
    return NV_OK;
}

static bool in_classlist(uint32_t cls)
{
    for (unsigned i = 0; i < emu_classlist_len; i++)
        if (emu_classlist[i] == cls)
            return true;
    return false;
}

/* Class-specific construction; o is linked into the tree by the caller
 * only on NV_OK. */
static uint32_t obj_construct(struct emu_obj *o, struct emu_obj *parent, const void *params)
{
    struct emu_client *cl = o->client;
    o->gpu = parent->gpu;
#define NEED_PARENT(c)                                                                    \
    do {                                                                                  \
        if (parent->cls != (c))                                                           \
            return NV_ERR_INVALID_OBJECT_PARENT;                                          \
    } while (0)
#define NEED_PARAMS()                                                                     \
    do {                                                                                  \
        if (!params)                                                                      \
            return NV_ERR_INVALID_ARGUMENT;                                               \
    } while (0)
    switch (o->cls) {
    case NV01_DEVICE_0: {
        NEED_PARENT(NV01_ROOT_CLIENT);
        NEED_PARAMS();
        const NV0080_ALLOC_PARAMETERS *a = params;
        if (a->deviceId >= emu.ngpus)
            return NV_ERR_INVALID_ARGUMENT;
        o->gpu = &emu.gpus[a->deviceId];
        return NV_OK;
    }
    case NV20_SUBDEVICE_0:
        NEED_PARENT(NV01_DEVICE_0);
        if (params && ((const NV2080_ALLOC_PARAMETERS *)params)->subDeviceId != 0)
            return NV_ERR_INVALID_ARGUMENT;
        return NV_OK;
    case NV01_MEMORY_VIRTUAL:
        NEED_PARENT(NV01_DEVICE_0);
        o->next_va = 0x4000000000ull;
        return NV_OK;
    case FERMI_VASPACE_A:
    case EMU_GT200_DEBUGGER:
        NEED_PARENT(NV01_DEVICE_0);
        return NV_OK;
    case KEPLER_CHANNEL_GROUP_A: {
        /* A group lives on one runlist: graphics, or one copy engine's
         * (a copy-engine group names its VA space; its channels inherit it). */
        NEED_PARENT(NV01_DEVICE_0);
        NEED_PARAMS();
        const NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS *a = params;
        o->engine = a->engineType;
        if (a->engineType == NV2080_ENGINE_TYPE_GRAPHICS)
            return NV_OK;
        if (!emu_engine_is_ce(a->engineType) || emu_engine_is_grce(a->engineType))
            return NV_ERR_INVALID_ARGUMENT;
        struct emu_obj *vas = client_find(cl, a->hVASpace, NULL);
        if (!vas || vas->cls != FERMI_VASPACE_A)
            return NV_ERR_INVALID_OBJECT_HANDLE;
        return NV_OK;
    }
    case FERMI_CONTEXT_SHARE_A: {
        /* A group holds as many subcontexts as the GPU has VEIDs, and, as
         * the H200 behaved (docs/gpu-runs.md, 2026-12-04 second), hands out
         * no more than that in its life: one freed is not given again while
         * the group lives. HCQCL_EMU_GROUP_SHARES makes the life shorter,
         * so that RM refuses a joiner before the core's own count does. */
        NEED_PARENT(KEPLER_CHANNEL_GROUP_A);
        unsigned n = 0;
        for (const struct emu_obj *c = parent->children; c; c = c->sibling)
            n += c->cls == FERMI_CONTEXT_SHARE_A;
        if (n >= EMU_SUBCONTEXTS)
            return NV_ERR_INSUFFICIENT_RESOURCES;
        unsigned long life = strtoul(util_env()->emu_group_shares, NULL, 0);
        if (parent->subctx_issued >= UTIL_MIN(life, (unsigned long)EMU_SUBCONTEXTS))
            return NV_ERR_NO_MEMORY;
        parent->subctx_issued++;
        return NV_OK;
    }
    case NV01_MEMORY_LOCAL_USER:
    case NV01_MEMORY_SYSTEM: {
        NEED_PARENT(NV01_DEVICE_0);
        NEED_PARAMS();
        NV_MEMORY_ALLOCATION_PARAMS *a = (NV_MEMORY_ALLOCATION_PARAMS *)params;
        bool huge = ((a->attr >> NVOS32_ATTR_PAGE_SIZE_SHIFT) & 3) == NVOS32_ATTR_PAGE_SIZE_HUGE;
        uint64_t size = util_align_up(a->size, huge ? 2u << 20 : 4096);
        if (!a->size || size < a->size)
            return NV_ERR_INVALID_ARGUMENT;
        struct emu_gpu *g = o->gpu;
        bool vid = o->cls == NV01_MEMORY_LOCAL_USER;
        if (vid && (size > g->mem_size || atomic_load(&g->mem_used) > g->mem_size - size))
            return NV_ERR_NO_MEMORY;
        if (!(o->mem = emu_mem_create(size)))
            return NV_ERR_NO_MEMORY;
        if (vid) {
            o->mem->vidmem = g;
            atomic_fetch_add(&g->mem_used, o->mem->size);
        }
        a->size = size;
        a->limit = size - 1;
        a->offset = 0;
        return NV_OK;
    }
    case HOPPER_USERMODE_A:
    case AMPERE_USERMODE_A:
    case TURING_USERMODE_A:
    case EMU_VOLTA_USERMODE_A:
        NEED_PARENT(NV20_SUBDEVICE_0);
        if (!o->gpu->usermode || !(o->mem = emu_mem_wrap(o->gpu->usermode, EMU_USERMODE_SIZE)))
            return NV_ERR_NO_MEMORY;
        o->mem->shareable = true;
        emu_gpu_ptimer_update(o->gpu);
        emu_gpu_user_add(o->gpu);
        return NV_OK;
    case HOPPER_CHANNEL_GPFIFO_A:
    case AMPERE_CHANNEL_GPFIFO_A: {
        if (parent->cls != KEPLER_CHANNEL_GROUP_A && parent->cls != NV01_DEVICE_0)
            return NV_ERR_INVALID_OBJECT_PARENT;
        NEED_PARAMS();
        const NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS *a = params;
        struct emu_obj *userd = client_find(cl, a->hUserdMemory[0], NULL);
        struct emu_obj *err = a->hObjectError ? client_find(cl, a->hObjectError, NULL) : NULL;
        if (!userd || !userd->mem || (a->hObjectError && (!err || !err->mem)))
            return NV_ERR_INVALID_OBJECT_HANDLE;
        if (a->userdOffset[0] > userd->mem->size || userd->mem->size - a->userdOffset[0] < 0x200 ||
            (a->userdOffset[0] & 3))
            return NV_ERR_INVALID_OFFSET;
        if (a->gpFifoEntries < 2 || !util_is_pow2(a->gpFifoEntries) || (a->gpFifoOffset & 7))
            return NV_ERR_INVALID_ARGUMENT;
        o->engine = parent->cls == KEPLER_CHANNEL_GROUP_A ? parent->engine
                                                         : NV2080_ENGINE_TYPE_GRAPHICS;
        /* engineType 0 takes the group's runlist; anything else must be it. */
        if (a->engineType && a->engineType != o->engine)
            return NV_ERR_INVALID_ARGUMENT;
        struct emu_chan *c = calloc(1, sizeof(*c));
        if (!c)
            return NV_ERR_NO_MEMORY;
        c->gpu = o->gpu;
        c->handle = o->handle;
        c->cls = o->cls;
        c->token = o->gpu->next_token++;
        c->ring_va = a->gpFifoOffset;
        c->entries = a->gpFifoEntries;
        c->userd_mem = emu_mem_ref(userd->mem);
        c->userd_off = a->userdOffset[0];
        c->err_mem = emu_mem_ref(err ? err->mem : NULL);
        c->tsg = parent->cls == KEPLER_CHANNEL_GROUP_A ? (const void *)parent : NULL;
        atomic_store(&c->scheduled, c->tsg == NULL);
        c->engine = o->engine;
        o->chan = c;
        emu_chan_attach(c);
        return NV_OK;
    }
    case HOPPER_COMPUTE_A:
        if (parent->cls != HOPPER_CHANNEL_GPFIFO_A && parent->cls != AMPERE_CHANNEL_GPFIFO_A)
            return NV_ERR_INVALID_OBJECT_PARENT;
        /* Only the graphics runlist runs compute; the group's graphics
         * context comes with its first compute object. */
        if (parent->engine != NV2080_ENGINE_TYPE_GRAPHICS)
            return NV_ERR_INVALID_ARGUMENT;
        if (parent->parent->cls == KEPLER_CHANNEL_GROUP_A)
            parent->parent->gr_ctx = true;
        return NV_OK;
    case HOPPER_DMA_COPY_A: {
        if (parent->cls != HOPPER_CHANNEL_GPFIFO_A && parent->cls != AMPERE_CHANNEL_GPFIFO_A)
            return NV_ERR_INVALID_OBJECT_PARENT;
        /* No parameters reads as VERSION_0, CE index 0. The engine must be
         * the channel's: its own copy engine, or on the graphics runlist
         * the graphics copy engine. */
        NVB0B5_ALLOCATION_PARAMETERS a = {0};
        if (params)
            memcpy(&a, params, sizeof(a));
        if (a.version == NVB0B5_ALLOCATION_PARAMETERS_VERSION_0 && a.engineType < 20)
            o->engine = NV2080_ENGINE_TYPE_COPY(a.engineType);
        else if (a.version == NVB0B5_ALLOCATION_PARAMETERS_VERSION_1)
            o->engine = a.engineType;
        else
            return NV_ERR_INVALID_ARGUMENT;
        bool ok = parent->engine == NV2080_ENGINE_TYPE_GRAPHICS ? emu_engine_is_grce(o->engine)
                                                                : o->engine == parent->engine;
        return ok ? NV_OK : NV_ERR_INVALID_ARGUMENT;
    }
    case NV01_EVENT_OS_EVENT: {
        /* Engine (non-stall) events hang off the subdevice; data is the
         * fd an ALLOC_OS_EVENT of this client registered. */
        NEED_PARENT(NV20_SUBDEVICE_0);
        NEED_PARAMS();
        const NV0005_ALLOC_PARAMETERS *a = params;
        if (a->hSrcResource != parent->handle ||
            (a->hParentClient && a->hParentClient != cl->handle))
            return NV_ERR_INVALID_ARGUMENT;
        uint32_t st;
        o->event = emu_event_attach(o->gpu, cl->handle, a, &st);
        return st;
    }
    default:
        return NV_ERR_NOT_SUPPORTED;
    }
#undef NEED_PARENT
#undef NEED_PARAMS
}

/* Bytes RM copies in for a class (its own size, not paramsSize). */
static size_t class_params_size(uint32_t cls)
{
    switch (cls) {
#define X(name, id, type)                                                                 \
    case id:                                                                              \
        return sizeof(type);
        NVDRV_RM_CLASSES(X)
#undef X
    default:
        return 0;
    }
}

static uint32_t rm_alloc(int fd, NVOS21_PARAMETERS *p)
{
    uint32_t cls = p->hClass;
    if (cls == EMU_NV01_ROOT || cls == EMU_NV01_ROOT_NON_PRIV || cls == NV01_ROOT_CLIENT)
        return alloc_client(fd, p);
    struct emu_client *cl = find_client(p->hRoot);
    if (!cl || cl->fd != fd)
        return NV_ERR_INVALID_CLIENT;
    struct emu_obj *parent =
        p->hObjectParent == cl->handle ? &cl->root : client_find(cl, p->hObjectParent, NULL);
    if (!parent)
        return NV_ERR_INVALID_OBJECT_PARENT;
    /* Events are not engine classes: RM takes them on any GPU. */
    if (!in_classlist(cls) && cls != NV01_EVENT_OS_EVENT)
        return NV_ERR_INVALID_CLASS;
    uint32_t h = p->hObjectNew;
    if (h && (h == cl->handle || client_find(cl, h, NULL)))
        return NV_ERR_INSERT_DUPLICATE_NAME;
    while (!h || h == cl->handle || client_find(cl, h, NULL))
        h = 0xCAF00000u | (cl->next_handle++ & 0xfffff);
    /* Like RM, copy the class's own parameter size in (and back out). */
    size_t psize = class_params_size(cls);
    if (cls == EMU_GT200_DEBUGGER)
        psize = 12;
    uint8_t buf[512];
    void *params = NULL;
    if (p->pAllocParms && psize) {
        memcpy(buf, (const void *)(uintptr_t)p->pAllocParms, psize);
        params = buf;
    }
    struct emu_obj *o = calloc(1, sizeof(*o));
    if (!o)
        return NV_ERR_NO_MEMORY;
    *o = (struct emu_obj){.handle = h, .cls = cls, .client = cl, .parent = parent, .event = -1};
    uint32_t st = obj_construct(o, parent, params);
    if (st == NV_OK && client_insert(cl, o) != 0) {
        obj_destroy(o);
        st = NV_ERR_NO_MEMORY;
    }
    if (st != NV_OK) {
        if (st == NV_ERR_NOT_SUPPORTED)
            EMU_LOG("RM_ALLOC class 0x%x: not emulated", cls);
        free(o);
        return st;
    }
    o->sibling = parent->children;
    parent->children = o;
    if (params)
        memcpy((void *)(uintptr_t)p->pAllocParms, params, psize);
    p->hObjectNew = h;
    return NV_OK;
}

static uint32_t rm_free(int fd, NVOS00_PARAMETERS *p)
{
    struct emu_client *cl = find_client(p->hRoot);
    if (!cl || cl->fd != fd)
        return NV_ERR_INVALID_CLIENT;
    if (p->hObjectOld == cl->handle) {
        client_free(cl);
        return NV_OK;
    }
    struct emu_obj *o = client_find(cl, p->hObjectOld, NULL);
    if (!o)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    obj_free(o);
    return NV_OK;
}

static uint32_t rm_alloc_memory(int fd, nv_ioctl_nvos02_parameters_with_fd *w)
{
    NVOS02_PARAMETERS *p = &w->params;
    struct emu_fd *f = emu_fd_get(fd);
    struct emu_client *cl = find_client(p->hRoot);
    if (!cl || cl->fd != f->ctl)
        return NV_ERR_INVALID_CLIENT;
    struct emu_obj *parent = client_find(cl, p->hObjectParent, NULL);
    if (!parent || parent->cls != NV01_DEVICE_0)
        return NV_ERR_INVALID_OBJECT_PARENT;
    if (p->hClass != NV01_MEMORY_SYSTEM_OS_DESCRIPTOR)
        return NV_ERR_INVALID_CLASS;
    if (!p->hObjectNew)
        return NV_ERR_INVALID_OBJECT_NEW;
    if (p->hObjectNew == cl->handle || client_find(cl, p->hObjectNew, NULL))
        return NV_ERR_INSERT_DUPLICATE_NAME;
    uint64_t size = p->limit + 1;
    if (!p->pMemory || !size)
        return NV_ERR_INVALID_ARGUMENT;
    /* The real driver pins the pages: they must exist. */
    uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t start = p->pMemory & ~(ps - 1), end = util_align_up(p->pMemory + size, ps);
    unsigned char vec[64];
    for (uint64_t a = start; a < end; a += 64 * ps) {
        uint64_t n = UTIL_MIN(end - a, 64 * ps);
        if (mincore((void *)(uintptr_t)a, n, vec) != 0)
            return NV_ERR_INVALID_ADDRESS;
    }
    struct emu_obj *o = calloc(1, sizeof(*o));
    if (!o)
        return NV_ERR_NO_MEMORY;
    *o = (struct emu_obj){.handle = p->hObjectNew, .cls = p->hClass, .client = cl,
                          .parent = parent, .gpu = parent->gpu};
    o->mem = emu_mem_wrap((void *)(uintptr_t)p->pMemory, size);
    if (!o->mem || client_insert(cl, o) != 0) {
        emu_mem_unref(o->mem);
        free(o);
        return NV_ERR_NO_MEMORY;
    }
    o->sibling = parent->children;
    parent->children = o;
    return NV_OK;
}

static uint32_t rm_map_memory(int fd, nv_ioctl_nvos33_parameters_with_fd *w)
{
    NVOS33_PARAMETERS *p = &w->params;
    struct emu_obj *o = emu_rm_find(fd, p->hClient, p->hMemory);
    if (!emu_rm_find(fd, p->hClient, p->hClient))
        return NV_ERR_INVALID_CLIENT;
    if (!o || !o->mem || o->cls == NV01_MEMORY_SYSTEM_OS_DESCRIPTOR)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    if (!p->length || p->offset > o->mem->size || p->length > o->mem->size - p->offset)
        return NV_ERR_INVALID_LIMIT;
    if (p->offset & ((uint64_t)sysconf(_SC_PAGESIZE) - 1))
        return NV_ERR_INVALID_OFFSET;
    struct emu_fd *mf = emu_fd_get(w->fd);
    if (!mf || (mf->kind != EMU_FD_CTL && mf->kind != EMU_FD_DEV))
        return NV_ERR_INVALID_ARGUMENT;
    if (mf->map_mem)
        return NV_ERR_STATE_IN_USE; /* one mapping context per fd */
    mf->map_mem = emu_mem_ref(o->mem);
    mf->map_off = p->offset;
    mf->map_len = p->length;
    p->pLinearAddress = (uintptr_t)o->mem->host + p->offset; /* an opaque cookie to callers */
    return NV_OK;
}

static uint32_t rm_map_memory_dma(int fd, NVOS46_PARAMETERS *p)
{
    struct emu_obj *dma = emu_rm_find(fd, p->hClient, p->hDma);
    struct emu_obj *m = emu_rm_find(fd, p->hClient, p->hMemory);
    if (!emu_rm_find(fd, p->hClient, p->hClient))
        return NV_ERR_INVALID_CLIENT;
    if (!dma || dma->cls != NV01_MEMORY_VIRTUAL || !m || !m->mem)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    uint64_t len = p->length ? p->length : m->mem->size - p->offset;
    if (p->offset > m->mem->size || len > m->mem->size - p->offset)
        return NV_ERR_INVALID_LIMIT;
    if (!(p->flags & NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE)) {
        p->dmaOffset = dma->next_va;
        dma->next_va = util_align_up(dma->next_va + len, 2u << 20);
    } else if (p->dmaOffset & 0xfff) {
        return NV_ERR_INVALID_OFFSET;
    }
    /* Bookkeeping only: the GPU page table is UVM's (emu_uvm.c). */
    return NV_OK;
}

static int card_info(void *arg, unsigned size)
{
    if (!size || size % sizeof(nv_ioctl_card_info_t))
        return -EINVAL;
    nv_ioctl_card_info_t *c = arg;
    unsigned n = size / sizeof(*c);
    memset(arg, 0, size);
    for (unsigned i = 0; i < emu.ngpus && i < n; i++) {
        struct emu_gpu *g = &emu.gpus[i];
        c[i].valid = 1;
        c[i].pci_info.bus = (uint8_t)g->pci_bus;
        c[i].pci_info.vendor_id = 0x10de;
        c[i].pci_info.device_id = 0x2335;
        c[i].gpu_id = g->gpu_id;
        c[i].reg_address = 0xfb000000ull + 0x1000000ull * i;
        c[i].reg_size = 0x1000000;
        c[i].fb_address = 0x38000000000ull + 0x4000000000ull * i;
        c[i].fb_size = 0x4000000000ull; /* BAR1 256 GiB, as on the H200 */
        c[i].minor_number = i;
        memcpy(c[i].dev_name, "nvidia", 6);
    }
    return 0;
}

static int check_version(nv_ioctl_rm_api_version_t *v)
{
    static const char ver[] = "580.159.04";
    v->versionString[sizeof(v->versionString) - 1] = 0;
    switch (v->cmd) {
    case NV_RM_API_VERSION_CMD_QUERY:
        v->reply = 1;
        memset(v->versionString, 0, sizeof(v->versionString));
        memcpy(v->versionString, ver, sizeof(ver));
        return 0;
    case NV_RM_API_VERSION_CMD_RELAXED: {
        size_t n = strcspn(ver, ".");
        v->reply = 1;
        return strncmp(v->versionString, ver, n) || v->versionString[n] != '.' ? -EINVAL : 0;
    }
    case NV_RM_API_VERSION_CMD_STRICT:
        v->reply = 1;
        return strcmp(v->versionString, ver) ? -EINVAL : 0;
    default:
        return -EINVAL;
    }
}

int emu_rm_ioctl(int fd, unsigned nr, unsigned size, void *arg)
{
    struct emu_fd *f = emu_fd_get(fd);
    bool ctl = f->kind == EMU_FD_CTL;
#define SIZE_IS(t)                                                                        \
    do {                                                                                  \
        if (size != sizeof(t))                                                            \
            return -EINVAL;                                                               \
    } while (0)
    switch (nr) {
    case NV_ESC_CARD_INFO:
        return ctl ? card_info(arg, size) : -EINVAL;
    case NV_ESC_CHECK_VERSION_STR:
        SIZE_IS(nv_ioctl_rm_api_version_t);
        return ctl ? check_version(arg) : -EINVAL;
    case NV_ESC_REGISTER_FD: {
        SIZE_IS(nv_ioctl_register_fd_t);
        struct emu_fd *c = emu_fd_get(((nv_ioctl_register_fd_t *)arg)->ctl_fd);
        if (f->kind != EMU_FD_DEV || f->ctl >= 0 || !c || c->kind != EMU_FD_CTL)
            return -EINVAL;
        f->ctl = ((nv_ioctl_register_fd_t *)arg)->ctl_fd;
        return 0;
    }
    case NV_ESC_ALLOC_OS_EVENT:
    case NV_ESC_FREE_OS_EVENT: {
        /* On ctl and device fds alike; the key is any number the client
         * picks (by convention the fd's own). */
        SIZE_IS(nv_ioctl_alloc_os_event_t);
        nv_ioctl_alloc_os_event_t *a = arg;
        if (!find_client(a->hClient))
            a->Status = NV_ERR_INVALID_CLIENT;
        else if (nr == NV_ESC_ALLOC_OS_EVENT)
            a->Status = emu_event_register(fd, a->hClient, a->fd);
        else
            a->Status = emu_event_unregister(a->hClient, a->fd);
        return 0;
    }
    case NV_ESC_RM_ALLOC_MEMORY: {
        SIZE_IS(nv_ioctl_nvos02_parameters_with_fd);
        if (f->kind != EMU_FD_DEV || f->ctl < 0) /* NV_ACTUAL_DEVICE_ONLY */
            return -EINVAL;
        nv_ioctl_nvos02_parameters_with_fd *p = arg;
        p->params.status = rm_alloc_memory(fd, p);
        return 0;
    }
    }
    if (!ctl) /* NV_CTL_DEVICE_ONLY */
        return -EINVAL;
    switch (nr) {
    case NV_ESC_RM_ALLOC: {
        SIZE_IS(NVOS21_PARAMETERS);
        NVOS21_PARAMETERS *p = arg;
        p->status = rm_alloc(fd, p);
        return 0;
    }
    case NV_ESC_RM_FREE: {
        SIZE_IS(NVOS00_PARAMETERS);
        NVOS00_PARAMETERS *p = arg;
        p->status = rm_free(fd, p);
        return 0;
    }
    case NV_ESC_RM_CONTROL: {
        SIZE_IS(NVOS54_PARAMETERS);
        NVOS54_PARAMETERS *p = arg;
        struct emu_obj *o = emu_rm_find(fd, p->hClient, p->hObject);
        if (!emu_rm_find(fd, p->hClient, p->hClient))
            p->status = NV_ERR_INVALID_CLIENT;
        else if (!o)
            p->status = NV_ERR_INVALID_OBJECT_HANDLE;
        else if (!p->params && p->paramsSize)
            p->status = NV_ERR_INVALID_ARGUMENT;
        else
            p->status = emu_ctrl(o, p->cmd, (void *)(uintptr_t)p->params, p->paramsSize);
        return 0;
    }
    case NV_ESC_RM_MAP_MEMORY: {
        SIZE_IS(nv_ioctl_nvos33_parameters_with_fd);
        nv_ioctl_nvos33_parameters_with_fd *p = arg;
        p->params.status = rm_map_memory(fd, p);
        return 0;
    }
    case NV_ESC_RM_UNMAP_MEMORY: {
        SIZE_IS(NVOS34_PARAMETERS);
        NVOS34_PARAMETERS *p = arg;
        p->status = emu_rm_find(fd, p->hClient, p->hMemory) ? NV_OK : NV_ERR_INVALID_OBJECT_HANDLE;
        return 0;
    }
    case NV_ESC_RM_MAP_MEMORY_DMA: {
        SIZE_IS(NVOS46_PARAMETERS);
        NVOS46_PARAMETERS *p = arg;
        p->status = rm_map_memory_dma(fd, p);
        return 0;
    }
    default:
        return -EINVAL;
    }
#undef SIZE_IS
}

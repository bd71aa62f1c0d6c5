/*
 * program.c — loading a parsed cubin onto a device: the image in
 * CPU-visible vidmem below 2^40 (code, constant banks >= 1, globals,
 * NOBITS zeroed), relocations applied against its VA, and per kernel the
 * launch facts plus a prebuilt QMD template that launch.c copies and
 * patches per launch.
 *
 * A loaded program is immutable: kernels may be launched from any thread
 * without locks. The caller unloads only once the GPU is done with it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/priv.h"
#include "cubin/cubin.h"
#include "nv/nv.h"

/* Instruction prefetch may run past the last kernel: one spare page. */
#define PROGRAM_PREFETCH_PAD 0x1000u

static uint32_t max_threads_for(const struct cubin_kernel *ck)
{
    /* Registers are allocated per warp in 256-register units; 64K per SM
     * and the scheduler works in groups of 4 warps. */
    uint32_t per_warp = (uint32_t)util_align_up((uint64_t)ck->regs * 32, 256);
    uint32_t t = ((65536 / per_warp) / 4) * 4 * 32;
    if (t > 1024)
        t = 1024;
    uint32_t bound = ck->max_threads[0] ? ck->max_threads[0] : 1;
    for (int d = 1; d < 3; d++)
        bound *= ck->max_threads[d] ? ck->max_threads[d] : 1;
    if (ck->max_threads[0] && bound < t)
        t = bound;
    uint32_t req = ck->reqntid[0] ? ck->reqntid[0] * (ck->reqntid[1] ? ck->reqntid[1] : 1) *
                                        (ck->reqntid[2] ? ck->reqntid[2] : 1)
                                  : 0;
    if (req && req < t)
        t = req;
    return t;
}

/* Fields that stay the same for every launch of the kernel. */
static int build_template(struct hcq_kernel *k, const struct cubin *cb,
                          const struct cubin_kernel *ck, uint64_t base_va, uint32_t arch)
{
    enum nv_qmd_version v = k->qmd_version;
    uint32_t *q = k->qmd;
    int rc = 0;
#define SET(f, val) (rc = rc ? rc : nv_qmd_set(q, v, NV_QMD_##f, 0, (val)))
    SET(QMD_MAJOR_VERSION, (uint32_t)v);
    SET(QMD_MINOR_VERSION, 0);
    SET(QMD_GROUP_ID, NVCBC0_QMDV04_00_QMD_GROUP_ID_DEFAULT);
    if (v == NV_QMD_V03_00) {
        SET(IS_QUEUE, 0);
        SET(SM_GLOBAL_CACHING_ENABLE, 1);
    } else {
        /* Zero (QUEUE) makes Hopper skip the launch silently. */
        SET(QMD_TYPE, NVCBC0_QMDV04_00_QMD_TYPE_GRID_CTA);
    }
    SET(API_VISIBLE_CALL_LIMIT, NVCBC0_QMDV04_00_API_VISIBLE_CALL_LIMIT_NO_CHECK);
    SET(SAMPLER_INDEX, NVCBC0_QMDV04_00_SAMPLER_INDEX_VIA_HEADER_INDEX);
    SET(INVALIDATE_TEXTURE_HEADER_CACHE, 1);
    SET(INVALIDATE_TEXTURE_SAMPLER_CACHE, 1);
    SET(INVALIDATE_TEXTURE_DATA_CACHE, 1);
    SET(INVALIDATE_SHADER_DATA_CACHE, 1);
    SET(INVALIDATE_INSTRUCTION_CACHE, 1);
    SET(INVALIDATE_SHADER_CONSTANT_CACHE, 1);
    /* Each CTA ends with a system-scope membar: a QMD's own release
     * relies on it instead of a membar of its own (nv_qmd_set_release). */
    SET(CWD_MEMBAR_TYPE, NVCBC0_QMDV04_00_CWD_MEMBAR_TYPE_L1_SYSMEMBAR);
    SET(REGISTER_COUNT, ck->regs);
    SET(BARRIER_COUNT, ck->num_barriers > 1 ? ck->num_barriers : 1);
    SET(SASS_VERSION, nv_sass_version(arch));
    SET(SHADER_LOCAL_MEMORY_HIGH_SIZE, k->local_per_thread);
    SET(MAX_SM_CONFIG_SHARED_MEM_SIZE, nv_smem_config_encode(nv_smem_max_kb(arch)));
    SET(CONSTANT_BUFFER_INVALIDATE, 1);
#undef SET
    if (rc)
        return rc;
    rc = nv_qmd_set_program(q, v, base_va + ck->text_offset, ck->text_size);
    for (unsigned b = 1; rc == 0 && b < CUBIN_CBANKS; b++) {
        if (!ck->cbank_section[b])
            continue;
        const struct cubin_section *s = &cb->sections[ck->cbank_section[b] - 1];
        rc = nv_qmd_set_cbuf(q, v, b, base_va + s->offset, (uint32_t)s->size);
    }
    return rc;
}

static int kernel_init(struct hcq_kernel *k, struct hcq_program *p, const struct cubin *cb,
                       const struct cubin_kernel *ck)
{
    const struct hcq_device_info *di = hcq_device_info(p->dev);
    k->prog = p;
    k->name = strdup(ck->name);
    if (!k->name)
        return -ENOMEM;
    k->param_base = ck->param_base;
    k->param_size = ck->param_size;
    k->cbuf0_size = ck->cbuf0_size;
    k->regs = ck->regs;
    k->shared_section = ck->shared_size;
    k->shared_reserved = di->arch >= 0x900 ? NV_SHARED_RESERVED_SM90 : 0;
    k->program_va = p->mem->va + ck->text_offset;
    /* Kernels without a stack run with no local memory at all (verified
     * on the H200 for vadd); others get MIN_STACK_SIZE + 0x240. */
    uint32_t stack = ck->min_stack > ck->frame_size ? ck->min_stack : ck->frame_size;
    k->local_per_thread = stack ? nv_slm_per_thread(stack) : 0;
    k->stack = stack;
    k->max_threads = max_threads_for(ck);
    memcpy(k->reqntid, ck->reqntid, sizeof(k->reqntid));
    k->qmd_version = nv_qmd_version_for_class(di->compute_class);
    k->qmd_size = (uint32_t)nv_qmd_size(k->qmd_version);
    if (!k->qmd_size)
        return -ENODEV;
    /* The launcher owns bank 0 below the parameters (dims, windows,
     * stack, envregs); a cubin placing parameters there is not ours. */
    if (k->param_base < NV_CBUF0_ENVREG + 4 * NV_CBUF0_ENVREGS) {
        CORE_ERR("core: kernel %s: parameters at cbuf0 0x%x overlap the launch header",
                 k->name, k->param_base);
        return -EINVAL;
    }
    return build_template(k, cb, ck, p->mem->va, di->arch);
}

int hcq_program_load(struct hcq_device *dev, const struct cubin *cb, struct hcq_program **out)
{
    *out = NULL;
    if (!dev || !cb || cubin_check_arch(cb, dev->info.arch, NULL, 0))
        return -EINVAL;
    struct hcq_program *p = calloc(1, sizeof(*p));
    uint8_t *img = malloc(cb->image_size ? cb->image_size : 1);
    if (!p || !img) {
        free(p);
        free(img);
        return -ENOMEM;
    }
    static _Atomic uint64_t serials;
    p->dev = dev;
    p->serial = atomic_fetch_add(&serials, 1) + 1;
    uint64_t size = util_align_up(cb->image_size, HCQ_PAGE_4K) + PROGRAM_PREFETCH_PAD;
    int rc = hcq_mem_alloc_ex(dev, size, HCQ_MEM_DEVICE_MAPPED, HCQ_MEMF_LOW, &p->mem);
    if (rc)
        goto fail;
    memcpy(img, cb->image, cb->image_size);
    cubin_relocate(cb, img, p->mem->va);
    /* The mapping is write-combined BAR1: one streaming copy, then zero
     * the padding so prefetch past the end reads nothing stale. */
    memcpy(p->mem->cpu, img, cb->image_size);
    memset((uint8_t *)p->mem->cpu + cb->image_size, 0, size - cb->image_size);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);

    p->kernels = calloc(cb->num_kernels ? cb->num_kernels : 1, sizeof(*p->kernels));
    if (!p->kernels) {
        rc = -ENOMEM;
        goto fail;
    }
    for (uint32_t i = 0; i < cb->num_kernels; i++) {
        p->num_kernels = i + 1;
        rc = kernel_init(&p->kernels[i], p, cb, &cb->kernels[i]);
        if (rc) {
            CORE_ERR("core: program load: kernel %s: %d", cb->kernels[i].name, rc);
            goto fail;
        }
    }
    CORE_LOG("program: %u kernels, image 0x%llx bytes at va 0x%llx", cb->num_kernels,
             (unsigned long long)cb->image_size, (unsigned long long)p->mem->va);
    free(img);
    *out = p;
    return 0;
fail:
    free(img);
    hcq_program_unload(p);
    return rc;
}

void hcq_program_unload(struct hcq_program *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->num_kernels; i++)
        free(p->kernels[i].name);
    free(p->kernels);
    hcq_mem_free(p->mem);
    free(p);
}

const struct hcq_kernel *hcq_program_kernel(const struct hcq_program *p, const char *name)
{
    for (uint32_t i = 0; p && name && i < p->num_kernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0)
            return &p->kernels[i];
    return NULL;
}

void hcq_kernel_get_info(const struct hcq_kernel *k, struct hcq_kernel_info *info)
{
    memset(info, 0, sizeof(*info));
    info->name = k->name;
    info->param_size = k->param_size;
    info->regs = k->regs;
    info->static_shared =
        k->shared_section > k->shared_reserved ? k->shared_section - k->shared_reserved : 0;
    info->local_per_thread = k->stack;
    info->max_threads = k->max_threads;
    memcpy(info->reqd_block, k->reqntid, sizeof(info->reqd_block));
}

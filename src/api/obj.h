/*
 * obj.h — the OpenCL layer's objects, their lifetime and validation.
 *
 * Every handle hcqcl returns points at a struct that begins with
 * struct hcqcl_obj: the ICD dispatch pointer first (the loaders read only
 * that), then a type tag and a reference count. A child takes its dispatch
 * from its parent; children retain their parents.
 *
 * This header is the one header of src/api. Sections below are grouped per
 * object family; each family's .c file implements its section.
 */
#ifndef HCQCL_API_OBJ_H
#define HCQCL_API_OBJ_H

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hcq.h"
#include "util/util.h"

/* The dispatch table (icd/dispatch.c). */
extern const struct _cl_icd_dispatch hcqcl_dispatch;

enum hcqcl_type {
    HCQCL_TYPE_NONE = 0,
    HCQCL_TYPE_PLATFORM = 0x504c4154, /* 'PLAT' */
    HCQCL_TYPE_DEVICE = 0x44455649,   /* 'DEVI' */
    HCQCL_TYPE_CONTEXT = 0x43545854,  /* 'CTXT' */
    HCQCL_TYPE_QUEUE = 0x51554555,    /* 'QUEU' */
    HCQCL_TYPE_MEM = 0x4d454d4f,      /* 'MEMO' */
    HCQCL_TYPE_PROGRAM = 0x50524f47,  /* 'PROG' */
    HCQCL_TYPE_KERNEL = 0x4b45524e,   /* 'KERN' */
    HCQCL_TYPE_EVENT = 0x45564e54,    /* 'EVNT' */
    HCQCL_TYPE_SAMPLER = 0x53414d50,  /* 'SAMP' */
};

/* Common header. dispatch MUST stay first; disp_data is reserved for
 * cl_khr_icd 2.0 (loader-managed dispatch). */
struct hcqcl_obj {
    const struct _cl_icd_dispatch *dispatch;
    void *disp_data;
    uint32_t type;
    _Atomic uint32_t refs;
};

void hcqcl_obj_init(struct hcqcl_obj *o, enum hcqcl_type type);
/* True when h is non-NULL, carries our dispatch and the given type tag. */
bool hcqcl_obj_valid(const void *h, enum hcqcl_type type);
static inline void hcqcl_obj_retain(struct hcqcl_obj *o)
{
    atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
}
/* Returns true when this release dropped the last reference; the caller
 * then destroys the object (and must clear o->type first). */
static inline bool hcqcl_obj_release(struct hcqcl_obj *o)
{
    return atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1;
}

/* Checks that name themselves: log the condition and the error name.
 *   HCQCL_CHECK(cond, err, fmt, ...)          return err when !cond
 *   HCQCL_CHECK_GOTO(cond, var, err, fmt, ...) var = err; goto fail
 */
const char *hcqcl_error_name(cl_int err);
#define HCQCL_CHECK(cond, err, ...)                                                       \
    do {                                                                                  \
        if (__builtin_expect(!(cond), 0)) {                                               \
            util_log_check(__func__, #cond, hcqcl_error_name(err), __VA_ARGS__);          \
            return (err);                                                                 \
        }                                                                                 \
    } while (0)
#define HCQCL_CHECK_GOTO(cond, var, err, ...)                                             \
    do {                                                                                  \
        if (__builtin_expect(!(cond), 0)) {                                               \
            util_log_check(__func__, #cond, hcqcl_error_name(err), __VA_ARGS__);          \
            (var) = (err);                                                                \
            goto fail;                                                                    \
        }                                                                                 \
    } while (0)

/* Copy a query answer out following the clGet*Info contract:
 * CL_INVALID_VALUE if param_value is not NULL and param_value_size is
 * smaller than size; size returned through *size_ret when not NULL. */
cl_int hcqcl_info_out(const void *src, size_t size, size_t param_value_size,
                      void *param_value, size_t *param_value_size_ret);

/* ==================================================================== */
/* Platform, device, context (platform.c, device.c, context.c)          */
/* ==================================================================== */

struct _cl_platform_id;
struct _cl_device_id;
struct _cl_context;

/* ==================================================================== */
/* Memory objects (mem.c)                                               */
/* ==================================================================== */

struct _cl_mem;

/* ==================================================================== */
/* Programs and kernels (program.c, kernel.c)                           */
/* ==================================================================== */

struct _cl_program;
struct _cl_kernel;

/* ==================================================================== */
/* Queues, events, commands (queue.c, event.c, enqueue_*.c)             */
/* ==================================================================== */

struct _cl_command_queue;
struct _cl_event;

#endif

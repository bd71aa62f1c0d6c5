/*
 * dispatch.c — the ICD dispatch table every hcqcl object points at.
 *
 * The loaders route each call through the first word of the object handed
 * to them, so every slot must hold a function: a NULL slot would crash the
 * application instead of returning an error. The table is filled by name
 * from obj.h's HCQCL_ENTRY_POINTS, and the assertion below proves the list
 * covers every slot of the installed CL/cl_icd.h.
 */
#include "api/obj.h"

#include <stddef.h>

#define HCQCL_SLOT(name) .name = hcqcl_##name,
/* Windows-only slots are declared as void * on other systems. */
#define HCQCL_SLOT_WIN(name) .name = (void *)hcqcl_##name,

const struct hcqcl_dispatch_table hcqcl_dispatch_table = {
    .base = {HCQCL_ENTRY_POINTS(HCQCL_SLOT, HCQCL_SLOT_WIN)},
    /* OpenCL 3.1's slot 150, clGetKernelSuggestedLocalWorkSize: a loader
     * built with 3.1 headers calls it through the table for an
     * application that asks (the platform reports 3.0, but a call past
     * the table's end would crash it). */
    .appended = {(void *)hcqcl_clGetKernelSuggestedLocalWorkSizeKHR},
};
_Static_assert(sizeof(struct _cl_icd_dispatch) / sizeof(void *) == 149,
               "the appended slots follow a 3.0 table of 149: a newer CL/cl_icd.h has them "
               "in it (HCQCL_ENTRY_POINTS then names them)");
_Static_assert(offsetof(struct hcqcl_dispatch_table, appended) == sizeof(struct _cl_icd_dispatch),
               "no padding between the table and its appended slots");

#define HCQCL_COUNT(name) +1
_Static_assert(sizeof(struct _cl_icd_dispatch) / sizeof(void *) ==
                   0 HCQCL_ENTRY_POINTS(HCQCL_COUNT, HCQCL_COUNT),
               "HCQCL_ENTRY_POINTS must name every slot of struct _cl_icd_dispatch");

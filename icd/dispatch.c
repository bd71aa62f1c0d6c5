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

#define HCQCL_SLOT(name) .name = hcqcl_##name,
/* Windows-only slots are declared as void * on other systems. */
#define HCQCL_SLOT_WIN(name) .name = (void *)hcqcl_##name,

const struct _cl_icd_dispatch hcqcl_dispatch = {
    HCQCL_ENTRY_POINTS(HCQCL_SLOT, HCQCL_SLOT_WIN)
};

#define HCQCL_COUNT(name) +1
_Static_assert(sizeof(struct _cl_icd_dispatch) / sizeof(void *) ==
                   0 HCQCL_ENTRY_POINTS(HCQCL_COUNT, HCQCL_COUNT),
               "HCQCL_ENTRY_POINTS must name every slot of struct _cl_icd_dispatch");

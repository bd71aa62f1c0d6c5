/*
 * cl_ext_nv.h — tokens of NVIDIA's OpenCL extensions that hcqcl answers
 * and the Khronos headers do not define.
 *
 * cl_nv_device_attribute_query: the Khronos registry lists
 * CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV .. CL_DEVICE_INTEGRATED_MEMORY_NV
 * (0x4000-0x4006, in CL/cl_ext.h). NVIDIA's driver also answers the four
 * below, which applications (hwloc, clinfo, miners, schedulers) use to
 * find a device's PCI location and its copy engines. Each is a cl_uint;
 * the slot is (device << 3) | function.
 */
#ifndef HCQCL_CL_EXT_NV_H
#define HCQCL_CL_EXT_NV_H

#ifndef CL_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT_NV
#define CL_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT_NV 0x4007
#endif
#ifndef CL_DEVICE_PCI_BUS_ID_NV
#define CL_DEVICE_PCI_BUS_ID_NV 0x4008
#endif
#ifndef CL_DEVICE_PCI_SLOT_ID_NV
#define CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#endif
#ifndef CL_DEVICE_PCI_DOMAIN_ID_NV
#define CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#endif

#endif

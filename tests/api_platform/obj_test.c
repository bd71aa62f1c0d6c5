/*
 * obj_test.c — white-box checks of the api layer's common pieces: object
 * header validation, reference counts, the clGet*Info copy-out contract
 * and the error-name table.
 */
#include "api/obj.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

/* The ICD's table lives in icd/, outside the internal library: a stand-in
 * with the same name is all obj.c needs to stamp and compare. */
const struct hcqcl_dispatch_table hcqcl_dispatch_table;


static void test_objects(void)
{
    struct hcqcl_obj a, b;
    hcqcl_obj_init(&a, HCQCL_TYPE_CONTEXT);
    EXPECT(a.dispatch == &hcqcl_dispatch && a.disp_data == NULL, "header");
    EXPECT(atomic_load(&a.refs) == 1, "refs %u", atomic_load(&a.refs));
    EXPECT(hcqcl_obj_valid(&a, HCQCL_TYPE_CONTEXT), "fresh object invalid");
    EXPECT(!hcqcl_obj_valid(&a, HCQCL_TYPE_QUEUE), "type tag ignored");
    EXPECT(!hcqcl_obj_valid(NULL, HCQCL_TYPE_CONTEXT), "NULL valid");
    /* Another ICD's object: right tag, foreign table. */
    struct _cl_icd_dispatch other;
    b = a;
    b.dispatch = &other;
    EXPECT(!hcqcl_obj_valid(&b, HCQCL_TYPE_CONTEXT), "foreign dispatch accepted");

    hcqcl_obj_retain(&a);
    hcqcl_obj_retain(&a);
    EXPECT(!hcqcl_obj_release(&a), "release of 3 said last");
    EXPECT(!hcqcl_obj_release(&a), "release of 2 said last");
    EXPECT(hcqcl_obj_release(&a), "release of 1 not last");
    /* Destroyers clear the tag: the stale handle reads as invalid. */
    a.type = HCQCL_TYPE_NONE;
    EXPECT(!hcqcl_obj_valid(&a, HCQCL_TYPE_CONTEXT), "destroyed object valid");
}

static void test_info_out(void)
{
    const cl_ulong v = 0x1122334455667788ull;
    unsigned char buf[16];
    size_t ret = 0;
    /* Size only. */
    EXPECT(hcqcl_info_out(&v, sizeof(v), 0, NULL, &ret) == CL_SUCCESS && ret == 8, "size query");
    /* Too small: error, nothing written. */
    memset(buf, 0xee, sizeof(buf));
    EXPECT(hcqcl_info_out(&v, sizeof(v), 7, buf, &ret) == CL_INVALID_VALUE, "short buffer");
    EXPECT(buf[0] == 0xee, "short buffer was written");
    /* Larger than needed: the answer's bytes only, size reported exactly. */
    ret = 0;
    EXPECT(hcqcl_info_out(&v, sizeof(v), sizeof(buf), buf, &ret) == CL_SUCCESS && ret == 8,
           "large buffer");
    EXPECT(!memcmp(buf, &v, 8) && buf[8] == 0xee, "copy");
    /* Both outputs NULL is allowed. */
    EXPECT(hcqcl_info_out(&v, sizeof(v), 0, NULL, NULL) == CL_SUCCESS, "no outputs");
    /* An empty answer (size 0) from a NULL source. */
    EXPECT(hcqcl_info_out(NULL, 0, sizeof(buf), buf, &ret) == CL_SUCCESS && ret == 0, "empty");
}

static void test_error_names(void)
{
    /* Every code of the OpenCL 3.0 core list plus the KHR/EXT ones. */
    static const cl_int codes[] = {
        CL_SUCCESS, CL_DEVICE_NOT_FOUND, CL_DEVICE_NOT_AVAILABLE, CL_COMPILER_NOT_AVAILABLE,
        CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY,
        CL_PROFILING_INFO_NOT_AVAILABLE, CL_MEM_COPY_OVERLAP, CL_IMAGE_FORMAT_MISMATCH,
        CL_IMAGE_FORMAT_NOT_SUPPORTED, CL_BUILD_PROGRAM_FAILURE, CL_MAP_FAILURE,
        CL_MISALIGNED_SUB_BUFFER_OFFSET, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        CL_COMPILE_PROGRAM_FAILURE, CL_LINKER_NOT_AVAILABLE, CL_LINK_PROGRAM_FAILURE,
        CL_DEVICE_PARTITION_FAILED, CL_KERNEL_ARG_INFO_NOT_AVAILABLE, CL_INVALID_VALUE,
        CL_INVALID_DEVICE_TYPE, CL_INVALID_PLATFORM, CL_INVALID_DEVICE, CL_INVALID_CONTEXT,
        CL_INVALID_QUEUE_PROPERTIES, CL_INVALID_COMMAND_QUEUE, CL_INVALID_HOST_PTR,
        CL_INVALID_MEM_OBJECT, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, CL_INVALID_IMAGE_SIZE,
        CL_INVALID_SAMPLER, CL_INVALID_BINARY, CL_INVALID_BUILD_OPTIONS, CL_INVALID_PROGRAM,
        CL_INVALID_PROGRAM_EXECUTABLE, CL_INVALID_KERNEL_NAME, CL_INVALID_KERNEL_DEFINITION,
        CL_INVALID_KERNEL, CL_INVALID_ARG_INDEX, CL_INVALID_ARG_VALUE, CL_INVALID_ARG_SIZE,
        CL_INVALID_KERNEL_ARGS, CL_INVALID_WORK_DIMENSION, CL_INVALID_WORK_GROUP_SIZE,
        CL_INVALID_WORK_ITEM_SIZE, CL_INVALID_GLOBAL_OFFSET, CL_INVALID_EVENT_WAIT_LIST,
        CL_INVALID_EVENT, CL_INVALID_OPERATION, CL_INVALID_GL_OBJECT, CL_INVALID_BUFFER_SIZE,
        CL_INVALID_MIP_LEVEL, CL_INVALID_GLOBAL_WORK_SIZE, CL_INVALID_PROPERTY,
        CL_INVALID_IMAGE_DESCRIPTOR, CL_INVALID_COMPILER_OPTIONS, CL_INVALID_LINKER_OPTIONS,
        CL_INVALID_DEVICE_PARTITION_COUNT, CL_INVALID_PIPE_SIZE, CL_INVALID_DEVICE_QUEUE,
        CL_INVALID_SPEC_ID, CL_MAX_SIZE_RESTRICTION_EXCEEDED,
        CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR, CL_PLATFORM_NOT_FOUND_KHR,
        CL_DEVICE_PARTITION_FAILED_EXT, CL_INVALID_PARTITION_COUNT_EXT,
        CL_INVALID_PARTITION_NAME_EXT,
        -1002, -1003, -1004, -1005, -1006, -1007, -1008, -1009, -1010, -1011, -1012, -1013,
    };
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        const char *n = hcqcl_error_name(codes[i]);
        EXPECT(n && !strncmp(n, "CL_", 3) && strcmp(n, "CL_UNKNOWN_ERROR"), "code %d: %s",
               codes[i], n ? n : "(null)");
        for (size_t j = 0; j < i; j++)
            EXPECT(strcmp(n, hcqcl_error_name(codes[j])), "%d and %d share %s", codes[i],
                   codes[j], n);
    }
    EXPECT(!strcmp(hcqcl_error_name(CL_INVALID_VALUE), "CL_INVALID_VALUE"), "spelling");
    EXPECT(!strcmp(hcqcl_error_name(-29), "CL_UNKNOWN_ERROR"), "-29 has a name");
    EXPECT(!strcmp(hcqcl_error_name(12345), "CL_UNKNOWN_ERROR"), "12345 has a name");
}

int main(void)
{
    test_objects();
    test_info_out();
    test_error_names();
    return check_done("api_obj");
}

/*
 * ptxas_test.c — the parser's kernel metadata against what ptxas itself
 * reports for the same cubin (`nvcc --resource-usage`, written at build
 * time beside the cubin): registers, barriers, stack frame and static
 * shared memory of every kernel ptxas compiled.
 *
 *   cubin_ptxas CUBIN PTXAS_LOG
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cubin/cubin.h"

int main(int argc, char **argv)
{
    REQUIRE(argc == 3, "usage: cubin_ptxas CUBIN PTXAS_LOG");
    size_t csize = 0, lsize = 0;
    void *data = test_file_read(argv[1], &csize);
    char *log = test_file_read(argv[2], &lsize); /* zero-terminated */
    REQUIRE(data && log, "cannot read %s or %s", argv[1], argv[2]);
    if (strncmp(log, "SKIP", 4) == 0) { /* built where hcqcl-cc had no toolchain */
        printf("%s", log);
        return 77;
    }
    struct cubin *cb = NULL;
    char why[256] = "";
    REQUIRE(cubin_parse(data, csize, &cb, why, sizeof(why)) == 0, "parse: %s", why);

    /* Per entry function: "Compiling entry function 'NAME'", then
     * "N bytes stack frame", then "Used R registers, used B barriers[, S
     * bytes smem]". Device functions ptxas also lists are not entries. */
    unsigned checked = 0;
    for (char *p = strstr(log, "Compiling entry function '"); p;
         p = strstr(p + 1, "Compiling entry function '")) {
        char name[256];
        if (sscanf(p, "Compiling entry function '%255[^']'", name) != 1)
            continue;
        const char *frame = strstr(p, "bytes stack frame");
        const char *used = strstr(p, "Used ");
        REQUIRE(frame && used, "%s: ptxas lines not found", name);
        const char *fl = frame;
        while (fl > p && fl[-1] != '\n')
            fl--;
        unsigned stack = 0, regs = 0, bars = 0, smem = 0;
        REQUIRE(sscanf(fl, " %u bytes stack frame", &stack) == 1, "%s: stack frame", name);
        REQUIRE(sscanf(used, "Used %u registers, used %u barriers", &regs, &bars) == 2,
                "%s: registers", name);
        const char *eol = strchr(used, '\n');
        const char *sm = strstr(used, "bytes smem");
        if (sm && (!eol || sm < eol)) {
            const char *b = sm;
            while (b > used && b[-1] != ',')
                b--;
            REQUIRE(sscanf(b, " %u bytes smem", &smem) == 1, "%s: smem", name);
        }
        const struct cubin_kernel *k = cubin_kernel(cb, name);
        EXPECT(k != NULL, "%s: not in the parsed cubin", name);
        if (!k)
            continue;
        EXPECT(k->regs == regs, "%s: %u registers, ptxas says %u", name, k->regs, regs);
        EXPECT(k->num_barriers == bars, "%s: %u barriers, ptxas says %u", name, k->num_barriers,
               bars);
        EXPECT(k->frame_size == stack, "%s: frame %u bytes, ptxas says %u", name, k->frame_size,
               stack);
        /* sm_90 sections count the reserved 1 KiB; ptxas reports the user part. */
        uint32_t user = k->shared_size > 0x400 ? k->shared_size - 0x400 : 0;
        EXPECT(user == smem, "%s: %u bytes of shared memory, ptxas says %u", name, user, smem);
        checked++;
    }
    EXPECT(checked == cb->num_kernels, "%u of %u kernels checked", checked, cb->num_kernels);
    cubin_free(cb);
    free(data);
    free(log);
    printf("cubin_ptxas: %u kernels compared with ptxas\n", checked);
    return check_done("cubin_ptxas");
}

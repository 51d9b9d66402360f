/* main.c - the gaussaudit executable: all logic lives in ga_cli_main (cli/cli.c). */
#include "cli/cli.h"
#include "gaussaudit.h"

#include <malloc.h>

int main(int argc, char **argv)
{
    /* Large temporaries (the laws' n x n matrices, the LAPACK wrappers' column-major copies) come
     * from the heap and are reused, not mapped afresh: glibc maps blocks above 128 KiB by default,
     * and every page of a new mapping is faulted in and zeroed under the process-wide mmap lock,
     * which also serialises the --jobs threads (a GP audit of 600 rows: 16.5 s with it, 2.1 s
     * without; peak memory the same). The program's choice: the library leaves malloc alone. */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    ga_init();
    int rc = ga_cli_main(argc, argv, stdout, stderr);
    ga_cleanup();
    return rc;
}

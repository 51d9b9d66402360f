/*
 * fuzz_cli.c - libFuzzer harness for the command-line argument path of `gaussaudit cdf`
 * (and the top-level dispatch): the input is split at spaces and newlines into argv and
 * run through ga_cli_main with output discarded. Inputs asking for certified evaluation
 * with many digits, or at more than 3 points, are skipped (a pathological point can take
 * 4 s at 1024 bits: slow, not wrong; libFuzzer's timeout is per input). Replayed by
 * tests/cli/test_fuzz.c.
 */
#include "cli/cli.h"
#include "gaussaudit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ga_init(); /* idempotent: GSL reports statuses instead of aborting */
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    if (strstr(buf, "--digits") || strstr(buf, "audit") || strstr(buf, "calibrate") ||
        strlen(buf) != size) {
        free(buf);
        return 0;
    }
    char *argv[64];
    int argc = 0;
    argv[argc++] = "gaussaudit";
    argv[argc++] = "cdf";
    for (char *t = strtok(buf, " \n\t"); t && argc < 63; t = strtok(NULL, " \n\t"))
        argv[argc++] = t;
    argv[argc] = NULL;
    /* certified: at most 3 points x in all (a pathological point can take 4 s at 1024
     * bits: slow, not wrong; libFuzzer's timeout is per input) */
    int certified = 0;
    size_t points = 0;
    for (int i = 2; i < argc; i++) {
        certified |= !strncmp(argv[i], "--cert", 6) || !strcmp(argv[i], "arb");
        if (!strcmp(argv[i], "--at") && i + 1 < argc)
            for (const char *c = argv[i + 1]; *c; c++)
                points += *c == ',';
        points += !strcmp(argv[i], "--at");
    }
    if (certified && points > 3) {
        free(buf);
        return 0;
    }
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        ga_cli_main(argc, argv, null, null);
        fclose(null);
    }
    free(buf);
    return 0;
}

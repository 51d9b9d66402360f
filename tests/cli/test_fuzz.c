/*
 * test_fuzz.c - replays the libFuzzer harnesses (tests/fuzz/) over their seed corpora and
 * over tests/fuzz/regressions/ (inputs that once crashed or hung: each must now run
 * cleanly, which ASan/UBSan and valgrind check in `make asan` / `make valgrind`).
 * Inputs that once hung are also held to a generous wall-clock limit (a hang guard, not a
 * benchmark): 120 s each (generous: a loaded 2-core machine is many times slower), times
 * GA_SLOWDOWN under the sanitizers and valgrind.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LLVMFuzzerTestOneInput fuzz_spec_one
#include "tests/fuzz/fuzz_spec.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_cli_one
#include "tests/fuzz/fuzz_cli.c"
#undef LLVMFuzzerTestOneInput

static size_t replay(const char *dir, const char *prefix, int (*fn)(const uint8_t *, size_t))
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    size_t n = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || (prefix && strncmp(e->d_name, prefix, strlen(prefix))))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static uint8_t buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        cr_expect(fn(buf, len) == 0, "%s", path);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        const char *sd = getenv("GA_SLOWDOWN");
        double limit = 120 * (sd && atof(sd) > 0 ? atof(sd) : 1);
        cr_expect(sec < limit, "%s took %.1f s (hang guard: %.0f s)", path, sec, limit);
        n++;
    }
    closedir(d);
    return n;
}

/* the harnesses run in this process: release FLINT's caches so that valgrind's leak check
 * sees only what the code leaks */
static void fini_caches(void)
{
    ga_cleanup();
}

Test(fuzz, seed_corpora_and_regressions, .fini = fini_caches)
{
    size_t a = replay("tests/fuzz/corpus_spec", NULL, fuzz_spec_one);
    size_t b = replay("tests/fuzz/corpus_cli", NULL, fuzz_cli_one);
    cr_expect(a >= 10 && b >= 5, "corpora: %zu spec, %zu cli inputs", a, b);
    replay("tests/fuzz/regressions", "spec-", fuzz_spec_one);
    replay("tests/fuzz/regressions", "cli-", fuzz_cli_one);
}

/* Inputs of 1 to 10 MB through the spec reader (generated here rather than kept in the
 * repository): runs of '[' inside and outside a quoted string, a flow list of a million
 * numbers, a million-character name, a mapping of 100000 unknown keys, and a CSV-like block
 * of numbers in a rows list. Each must be parsed (or refused) in time linear in its size: the
 * hang guard is generous (120 s, times GA_SLOWDOWN); the reader's linearity itself is measured
 * by test_doc's ratio of two sizes. */
static char *big_input(int kind, size_t size, size_t *len)
{
    char *b = malloc(size + 256);
    cr_assert(b);
    size_t l = (size_t)snprintf(b, 256, "gaussaudit: 1\nname: \"");
    if (kind == 0 || kind == 1) { /* '[' runs: quoted (kind 0), or bare in a flow list */
        if (kind == 1)
            l = (size_t)snprintf(b, 256, "gaussaudit: 1\npairs: ");
        memset(b + l, '[', size - l);
        l = size;
        if (kind == 0)
            b[l++] = '"';
    } else if (kind == 2) { /* a flow list of numbers */
        l = (size_t)snprintf(b, 256, "gaussaudit: 1\ndataset: {rows: [[");
        while (l + 16 < size)
            l += (size_t)snprintf(b + l, 16, "%zu.5, ", l % 997);
        l += (size_t)snprintf(b + l, 8, "1]]}");
    } else if (kind == 3) { /* a long name */
        memset(b + l, 'x', size - l);
        l = size;
        b[l++] = '"';
    } else { /* many unknown keys */
        l = (size_t)snprintf(b, 256, "gaussaudit: 1\nmechanism: {kind: gaussian_pair");
        for (size_t k = 0; l + 24 < size; k++)
            l += (size_t)snprintf(b + l, 24, ", k%zu: %zu", k, k);
        b[l++] = '}';
    }
    b[l++] = '\n';
    *len = l;
    return b;
}

Test(fuzz, inputs_of_megabytes, .fini = fini_caches)
{
    static const size_t sizes[] = {1u << 20, 4u << 20, 10u << 20};
    const char *sd = getenv("GA_SLOWDOWN");
    double limit = 120 * (sd && atof(sd) > 0 ? atof(sd) : 1);
    for (int kind = 0; kind < 5; kind++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            size_t len;
            char *b = big_input(kind, sizes[s], &len);
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            /* (the harness itself stops at 64 KiB, libFuzzer's inputs: the parser directly) */
            ga_spec sp;
            ga_pairset set;
            char msg[512];
            int st = ga_mech_parse(&sp, &set, b, len, "big.yaml", NULL, NULL, msg, sizeof msg);
            if (st == GA_OK)
                ga_mech_clear(&sp, &set);
            cr_expect(st == GA_OK || st == GA_EINVAL, "kind %d, %zu bytes: status %d: %s", kind,
                      len, st, msg);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            cr_expect(sec < limit, "kind %d, %zu bytes took %.1f s (hang guard: %.0f s)", kind,
                      len, sec, limit);
            free(b);
        }
}

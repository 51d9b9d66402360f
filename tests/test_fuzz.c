/*
 * test_fuzz.c - replays the libFuzzer harnesses (tests/fuzz/) over their seed corpora and
 * over tests/fuzz/regressions/ (inputs that once crashed or hung: each must now run
 * cleanly, which ASan/UBSan and valgrind check in `make asan` / `make valgrind`).
 * Inputs that once hung are also held to a generous wall-clock limit (a hang guard, not a
 * benchmark): 20 s each, times GA_SLOWDOWN under the sanitizers and valgrind.
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
        double limit = 20 * (sd && atof(sd) > 0 ? atof(sd) : 1);
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

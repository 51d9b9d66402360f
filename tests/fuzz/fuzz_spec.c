/*
 * fuzz_spec.c - libFuzzer harness for the spec language: parse the input as a spec; when it
 * is valid, reduce up to 8 small pairs and evaluate delta at eps = 1 and the Renyi divergence
 * at alpha = 2, so hostile numbers reach the numerics too. Never writes files.
 * Build: make fuzz (clang, -fsanitize=fuzzer,address,undefined). The same entry point is
 * replayed over tests/fuzz/regressions/ by tests/cli/test_fuzz.c.
 */
#include "gaussaudit.h"
#include "catalogue/catalogue.h"
#include "verdict/audit.h" /* (the claim types read the claim mapping) */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ga_init(); /* idempotent: GSL reports statuses instead of aborting */
    if (size > 1 << 16)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    ga_spec s;
    ga_pairset set;
    char msg[1024];
    if (ga_mech_parse(&s, &set, text, size, "tests/fuzz/fuzz.yaml", NULL, NULL, msg, sizeof msg) == GA_OK) {
        ga_claim_list cl = {0}; /* (the claims are the claim types' to read) */
        ga_claim_list_parse(&cl, &s, msg, sizeof msg);
        free(cl.c);
        ga_gchisq_work *w = ga_gchisq_work_alloc();
        for (size_t i = 0; i < set.npairs && i < 8 && w; i++) {
            if (set.pairs[i].d > 16)
                continue;
            ga_pair *p; /* plain or product (composition) pairs */
            if (ga_mech_pair_reduce(&p, &set.pairs[i], msg, sizeof msg) != GA_OK)
                continue;
            ga_delta D;
            ga_pair_delta(&D, p, 1.0, GA_DELTA_AUTO, NULL, w);
            ga_result a, b;
            ga_pair_renyi(&a, &b, p, 2.0);
            ga_pair_free(p);
        }
        ga_gchisq_work_free(w);
    }
    ga_mech_clear(&s, &set);
    free(text);
    return 0;
}

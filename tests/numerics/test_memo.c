/*
 * test_memo.c - the per-thread memo of numerics/memo.c: what is stored under a key is what
 * is recalled under the same bytes and nothing else (a different byte, a different length,
 * an empty memo), the oldest entry gives way to a new one after GA_MEMO_SLOTS, and keys or
 * values too large are not stored. A seeded loop of random keys checks against a model of
 * the last GA_MEMO_SLOTS distinct puts; GA_TEST_SCALE scales it.
 */
#include "numerics/numerics.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <string.h>

Test(memo, recalls_what_was_stored_under_the_same_bytes_only)
{
    ga_memo m;
    memset(&m, 0, sizeof m);
    double key[3] = {1, 0.5, 2}, v[2] = {0, 0};
    int st = -1;
    cr_expect(!ga_memo_get(v, 2, &st, &m, key, sizeof key), "an empty memo recalled a value");
    ga_memo_put(&m, key, sizeof key, (double[2]){3.25, -7}, 2, 4);
    cr_expect(ga_memo_get(v, 2, &st, &m, key, sizeof key) && v[0] == 3.25 && v[1] == -7 && st == 4,
              "recalled %g, %g, status %d", v[0], v[1], st);
    double other[3] = {1, 0.5, 2.0000000000000004};
    cr_expect(!ga_memo_get(v, 2, &st, &m, other, sizeof other), "a key one ulp away was recalled");
    cr_expect(!ga_memo_get(v, 2, &st, &m, key, 2 * sizeof *key), "a shorter key was recalled");
    unsigned char big[GA_MEMO_KEY + 1] = {0};
    ga_memo_put(&m, big, sizeof big, v, 1, 0);
    cr_expect(!ga_memo_get(v, 1, &st, &m, big, sizeof big), "a key too long was stored");
    ga_memo_put(&m, key, sizeof key, (double[5]){1, 2, 3, 4, 5}, 5, 0);
    cr_expect(ga_memo_get(v, 2, &st, &m, key, sizeof key) && v[0] == 3.25,
              "five values replaced the entry");
}

/* random keys from a small set: the memo recalls the newest value of each of the last
 * GA_MEMO_SLOTS distinct keys put (the model: the distinct keys in order of their newest put) */
Test(memo, keeps_the_last_slots_against_a_model)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261128);
    ga_memo m;
    memset(&m, 0, sizeof m);
    enum { NKEY = 40 * 3 };
    long newest[NKEY], first[NKEY]; /* per key: its newest put, and when it entered a slot */
    for (int k = 0; k < NKEY; k++)
        newest[k] = first[k] = -1;
    long entered = 0; /* the count of keys that took a slot */
    long n = ga_test_count(1000);
    for (long i = 0; i < n; i++) {
        int a = (int)gsl_rng_uniform_int(r, 40), b = (int)(i % 3), k = 3 * a + b;
        double key[2] = {a, b};
        /* in the memo: a key whose slot was not taken by one of the GA_MEMO_SLOTS keys after */
        int held = first[k] >= 0 && first[k] > entered - 1 - GA_MEMO_SLOTS;
        if (!held)
            first[k] = entered++;
        newest[k] = i;
        ga_memo_put(&m, key, sizeof key, (double[1]){(double)i}, 1, (int)(i % 7));
        int pa = (int)gsl_rng_uniform_int(r, 40), pb = (int)gsl_rng_uniform_int(r, 3);
        int pk = 3 * pa + pb;
        double probe[2] = {pa, pb}, v = -1;
        int want = first[pk] >= 0 && first[pk] > entered - 1 - GA_MEMO_SLOTS, st = -1;
        int got = ga_memo_get(&v, 1, &st, &m, probe, sizeof probe);
        cr_expect(got == want, "put %ld, probe (%d, %d): found %d, expected %d", i, pa, pb, got,
                  want);
        if (got && want)
            cr_expect(v == (double)newest[pk] && st == (int)(newest[pk] % 7),
                      "put %ld, probe (%d, %d): recalled %g (status %d), newest put %ld", i, pa, pb,
                      v, st, newest[pk]);
    }
    gsl_rng_free(r);
}

/*
 * test_par.c - the parallel loop of numerics/par.c: every item of a loop runs exactly once
 * and is marked done, whatever the number of items (around the sizes where items start to be
 * taken several at a time: 256 takes per thread) and of threads; a deadline already passed
 * runs no item; the thread count asked is capped; a loop of one item lends its threads to
 * it, and only then. A seeded loop of random sizes and thread
 * counts (GA_TEST_SCALE scales it) checks the same.
 */
#include "numerics/numerics.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    atomic_int *runs; /* per item: how many times it ran */
    size_t n;
    atomic_int out_of_range;
} count_ctx;

static void count_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    count_ctx *c = ctx;
    if (i >= c->n || !w) {
        atomic_fetch_add(&c->out_of_range, 1);
        return;
    }
    atomic_fetch_add(&c->runs[i], 1);
}

/* runs a loop of n items on jobs threads: 0 when each ran once and is marked done */
static int run_once_each(size_t n, int jobs, size_t *bad)
{
    count_ctx c = {.runs = calloc(n ? n : 1, sizeof *c.runs), .n = n};
    unsigned char *done = calloc(n ? n : 1, 1);
    cr_assert(c.runs && done);
    atomic_init(&c.out_of_range, 0);
    int rc = ga_par_for(n, jobs, 0, count_item, &c, done, NULL);
    int fail = rc != GA_OK || atomic_load(&c.out_of_range) != 0;
    *bad = n;
    for (size_t i = 0; i < n && !fail; i++)
        if (atomic_load(&c.runs[i]) != 1 || done[i] != 1) {
            fail = 1;
            *bad = i;
        }
    free(c.runs);
    free(done);
    return fail;
}

Test(par, every_item_runs_once_at_the_sizes_where_takes_grow)
{
    static const size_t sizes[] = {0, 1, 2, 3, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025,
                                   4095, 4097, 100003};
    static const int jobs[] = {0, 1, 2, 3, 7, 16};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (size_t b = 0; b < sizeof jobs / sizeof *jobs; b++) {
            size_t bad;
            cr_assert(!run_once_each(sizes[a], jobs[b], &bad),
                      "%zu items on %d threads: item %zu ran other than once", sizes[a], jobs[b],
                      bad);
        }
}

Test(par, a_deadline_already_passed_runs_no_item)
{
    /* (a deadline in the past, as monotonic seconds: 1e-9 s after the clock's origin) */
    count_ctx c = {.runs = calloc(5000, sizeof *c.runs), .n = 5000};
    unsigned char *done = calloc(5000, 1);
    cr_assert(c.runs && done);
    atomic_init(&c.out_of_range, 0);
    cr_assert(ga_par_for(5000, 2, 1e-9, count_item, &c, done, NULL) == GA_OK);
    for (size_t i = 0; i < 5000; i++)
        cr_assert(atomic_load(&c.runs[i]) == 0 && done[i] == 0, "item %zu ran after the deadline", i);
    free(c.runs);
    free(done);
}

/* the threads lent to an item (ga_par_inner_jobs): a loop of one item lends its jobs, a
 * loop of several lends none (each item sees 1, on every thread), a loop inside the lent one
 * lends none again, and outside any loop, and after one, it is 1 */
static void inner_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    atomic_int *seen = ctx;
    atomic_store(&seen[i], ga_par_inner_jobs());
}

typedef struct {
    int jobs, outer, nested[3], after;
} lend_ctx;

static void lend_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)i;
    lend_ctx *l = ctx;
    atomic_int seen[3];
    l->outer = ga_par_inner_jobs();
    ga_par_for(3, ga_par_inner_jobs(), 0, inner_item, seen, NULL, w);
    for (int k = 0; k < 3; k++)
        l->nested[k] = atomic_load(&seen[k]);
    l->after = ga_par_inner_jobs();
}

Test(par, a_loop_of_one_item_lends_its_threads)
{
    static const int jobs[] = {1, 2, 5};
    cr_expect(ga_par_inner_jobs() == 1, "outside any loop: %d", ga_par_inner_jobs());
    for (size_t t = 0; t < sizeof jobs / sizeof *jobs; t++) {
        lend_ctx l = {jobs[t], 0, {0, 0, 0}, 0};
        ga_par_for(1, jobs[t], 0, lend_item, &l, NULL, NULL);
        cr_expect(l.outer == jobs[t] && l.after == jobs[t] && l.nested[0] == 1 &&
                      l.nested[1] == 1 && l.nested[2] == 1,
                  "one item on %d threads: lent %d (%d after its own loop), its loop's items "
                  "%d %d %d", jobs[t], l.outer, l.after, l.nested[0], l.nested[1], l.nested[2]);
        atomic_int seen[4];
        ga_par_for(4, jobs[t], 0, inner_item, seen, NULL, NULL);
        for (int k = 0; k < 4; k++)
            cr_expect(atomic_load(&seen[k]) == 1, "4 items on %d threads: item %d lent %d",
                      jobs[t], k, atomic_load(&seen[k]));
        cr_expect(ga_par_inner_jobs() == 1, "after a loop on %d threads: %d", jobs[t],
                  ga_par_inner_jobs());
    }
}

/* a loop of fewer items than threads lends each item jobs / n of them (at least 1), on
 * every thread that runs one; nested, the lent threads are shared out again */
static void lend2_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    lend_ctx *l = ctx;
    atomic_int seen[3];
    l[i].outer = ga_par_inner_jobs();
    ga_par_for(3, ga_par_inner_jobs(), 0, inner_item, seen, NULL, w);
    for (int k = 0; k < 3; k++)
        l[i].nested[k] = atomic_load(&seen[k]);
    l[i].after = ga_par_inner_jobs();
}

Test(par, a_loop_of_few_items_lends_the_idle_threads)
{
    static const struct {
        int items, jobs, lent, nested; /* nested: each item's 3-item loop lends this */
    } rows[] = {{2, 2, 1, 1}, {2, 4, 2, 1}, {2, 5, 2, 1}, {3, 7, 2, 1}, {3, 3, 1, 1},
                {2, 12, 6, 2}, {4, 3, 1, 1}, {5, 16, 3, 1}, {2, 1, 1, 1}};
    for (size_t t = 0; t < sizeof rows / sizeof *rows; t++) {
        lend_ctx l[8];
        memset(l, 0, sizeof l);
        ga_par_for((size_t)rows[t].items, rows[t].jobs, 0, lend2_item, l, NULL, NULL);
        for (int i = 0; i < rows[t].items; i++)
            cr_expect(l[i].outer == rows[t].lent && l[i].after == rows[t].lent &&
                          l[i].nested[0] == rows[t].nested && l[i].nested[1] == rows[t].nested &&
                          l[i].nested[2] == rows[t].nested,
                      "%d items on %d threads: item %d lent %d (%d after its loop; expected %d), "
                      "its loop's items %d %d %d (expected %d)", rows[t].items, rows[t].jobs, i,
                      l[i].outer, l[i].after, rows[t].lent, l[i].nested[0], l[i].nested[1],
                      l[i].nested[2], rows[t].nested);
        cr_expect(ga_par_inner_jobs() == 1, "after the loop: %d", ga_par_inner_jobs());
    }
}

Test(par, thread_counts_are_capped)
{
    cr_assert_eq(ga_par_jobs(1), 1);
    cr_assert_eq(ga_par_jobs(100000), 256);
    cr_assert(ga_par_jobs(0) >= 1 && ga_par_jobs(-3) == ga_par_jobs(0));
}

Test(par, random_sizes_and_thread_counts)
{
    gsl_rng *r = ga_test_rng(7177);
    long n = ga_test_count(200);
    for (long k = 0; k < n; k++) {
        size_t items = (size_t)gsl_rng_uniform_int(r, k % 4 == 0 ? 200000 : 3000);
        int jobs = 1 + (int)gsl_rng_uniform_int(r, 9);
        size_t bad;
        cr_assert(!run_once_each(items, jobs, &bad),
                  "case %ld: %zu items on %d threads: item %zu ran other than once", k, items,
                  jobs, bad);
    }
    gsl_rng_free(r);
}

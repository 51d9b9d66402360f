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
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* what an item sees as ga_par_inner_jobs, and the items of a 3-item loop inside it: a loop
 * of fewer items than threads lends each item jobs / n of them (all to a single item); where
 * that is 1 and the loop runs on several threads, its items see those threads, shared, and
 * the items of a loop inside one of them see 1; outside any loop, and after one, it is 1 */
static void inner_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    atomic_int *seen = ctx;
    atomic_store(&seen[i], ga_par_inner_jobs());
}

typedef struct {
    int outer, nested[3], after;
} lend_ctx;

static void lend_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    lend_ctx *l = ctx;
    atomic_int seen[3];
    l[i].outer = ga_par_inner_jobs();
    ga_par_for(3, ga_par_inner_jobs(), 0, inner_item, seen, NULL, w);
    for (int k = 0; k < 3; k++)
        l[i].nested[k] = atomic_load(&seen[k]);
    l[i].after = ga_par_inner_jobs();
}

Test(par, loops_lend_or_share_their_threads)
{
    static const struct {
        int items, jobs, seen, nested;
    } rows[] = {{1, 1, 1, 1}, {1, 2, 2, 2}, {1, 5, 5, 3}, {4, 1, 1, 1}, {4, 2, 2, 1},
                {4, 5, 4, 1}, {2, 2, 2, 1}, {2, 4, 2, 2}, {2, 5, 2, 2}, {3, 7, 2, 2},
                {3, 3, 3, 1}, {3, 5, 3, 1}, {2, 12, 6, 2}, {4, 3, 3, 1}, {5, 16, 3, 3},
                {2, 1, 1, 1}, {8, 3, 3, 1}};
    cr_expect(ga_par_inner_jobs() == 1, "outside any loop: %d", ga_par_inner_jobs());
    for (size_t t = 0; t < sizeof rows / sizeof *rows; t++) {
        lend_ctx l[8];
        memset(l, 0, sizeof l);
        ga_par_for((size_t)rows[t].items, rows[t].jobs, 0, lend_item, l, NULL, NULL);
        for (int i = 0; i < rows[t].items; i++)
            cr_expect(l[i].outer == rows[t].seen && l[i].after == rows[t].seen &&
                          l[i].nested[0] == rows[t].nested && l[i].nested[1] == rows[t].nested &&
                          l[i].nested[2] == rows[t].nested,
                      "%d items on %d threads: item %d sees %d (%d after its loop; expected %d), "
                      "its loop's items %d %d %d (expected %d)", rows[t].items, rows[t].jobs, i,
                      l[i].outer, l[i].after, rows[t].seen, l[i].nested[0], l[i].nested[1],
                      l[i].nested[2], rows[t].nested);
        cr_expect(ga_par_inner_jobs() == 1, "after the loop: %d", ga_par_inner_jobs());
    }
}

/* Loops inside the items of a loop whose threads are shared: every inner item runs exactly
 * once, whichever threads join, for random sizes, thread counts and nesting (an inner item
 * running a loop of its own, on its thread) */
typedef struct {
    size_t n;
    atomic_int *runs;
    size_t *m;      /* each outer item's inner loop size */
    size_t *first;  /* its first counter */
} nest_ctx;

typedef struct {
    atomic_int *runs;
    size_t base;
} nest_inner;

static void nest_leaf(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    nest_inner *c = ctx;
    atomic_fetch_add(&c->runs[c->base + i], 1);
}

static void nest_mid(void *ctx, size_t i, ga_gchisq_work *w)
{
    nest_inner *c = ctx;
    if (i % 7 == 3) { /* a loop of its own, of one item or five */
        atomic_int five[5];
        for (int k = 0; k < 5; k++)
            atomic_init(&five[k], 0);
        nest_inner d = {five, 0};
        size_t m = i % 2 ? 5 : 1;
        ga_par_for(m, ga_par_inner_jobs(), 0, nest_leaf, &d, NULL, w);
        for (size_t k = 0; k < 5; k++)
            if (atomic_load(&five[k]) != (k < m))
                atomic_fetch_add(&c->runs[c->base + i], 100);
    }
    atomic_fetch_add(&c->runs[c->base + i], 1);
}

static void nest_outer(void *ctx, size_t i, ga_gchisq_work *w)
{
    nest_ctx *c = ctx;
    nest_inner d = {c->runs, c->first[i]};
    unsigned char *done = calloc(c->m[i] ? c->m[i] : 1, 1);
    ga_par_for(c->m[i], ga_par_inner_jobs(), 0, nest_mid, &d, done, w);
    for (size_t k = 0; k < c->m[i]; k++)
        if (!done[k])
            atomic_fetch_add(&c->runs[c->first[i] + k], 1000);
    free(done);
}

Test(par, loops_inside_items_of_shared_threads_run_each_item_once)
{
    gsl_rng *r = ga_test_rng(9311);
    long cases = ga_test_count(60);
    for (long k = 0; k < cases; k++) {
        size_t n = 1 + gsl_rng_uniform_int(r, 12), total = 0;
        int jobs = 1 + (int)gsl_rng_uniform_int(r, 6);
        nest_ctx c = {n, NULL, malloc(n * sizeof(size_t)), malloc(n * sizeof(size_t))};
        for (size_t i = 0; i < n; i++) {
            c.m[i] = gsl_rng_uniform_int(r, 5) == 0 ? gsl_rng_uniform_int(r, 3)
                                                     : gsl_rng_uniform_int(r, 3000);
            c.first[i] = total;
            total += c.m[i];
        }
        c.runs = calloc(total ? total : 1, sizeof *c.runs);
        cr_assert(c.runs && c.m && c.first);
        ga_par_for(n, jobs, 0, nest_outer, &c, NULL, NULL);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < c.m[i]; j++)
                cr_assert(atomic_load(&c.runs[c.first[i] + j]) == 1,
                          "case %ld: %zu items on %d threads, item %zu's loop of %zu: its item "
                          "%zu ran %d times (+100: its own loop wrong, +1000: not marked done)",
                          k, n, jobs, i, c.m[i], j, atomic_load(&c.runs[c.first[i] + j]));
        free(c.runs);
        free(c.m);
        free(c.first);
    }
    gsl_rng_free(r);
}

/* A thread out of items joins the loop an item still running has opened: of two items on two
 * threads, one returns at once and the other runs 300 items of a millisecond's sleep each;
 * both threads take some of them (up to three tries: the scheduler could keep a thread
 * asleep that long, not three times) */
typedef struct {
    pthread_t who[300];
} sleep_ctx;

static void sleep_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    sleep_ctx *c = ctx;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    c->who[i] = pthread_self();
}

static void busy_or_not(void *ctx, size_t i, ga_gchisq_work *w)
{
    if (i == 1)
        ga_par_for(300, ga_par_inner_jobs(), 0, sleep_item, ctx, NULL, w);
}

Test(par, a_thread_out_of_items_joins_a_running_items_loop)
{
    int threads = 0;
    for (int t = 0; t < 3 && threads < 2; t++) {
        sleep_ctx *c = calloc(1, sizeof *c);
        cr_assert(c != NULL);
        ga_par_for(2, 2, 0, busy_or_not, c, NULL, NULL);
        threads = 1;
        for (int i = 1; i < 300; i++)
            if (!pthread_equal(c->who[i], c->who[0]))
                threads = 2;
        free(c);
    }
    cr_expect(threads == 2, "the inner loop's 300 items all ran on one thread, three times");
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

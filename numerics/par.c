/*
 * par.c - the one parallel loop: independent items (the pairs of an audit, the neighbours'
 * laws of a dataset kind, the points of a grid) evaluated on `jobs` POSIX threads.
 *
 * Determinism: every item writes only its own slots of the caller's arrays and reads shared
 * data only, so the results do not depend on which thread ran an item or in which order;
 * callers that pick a "first" or "worst" item scan the arrays afterwards in index order.
 * Items are handed out from an atomic counter, a few consecutive ones at a time: about 256
 * takes per thread over the loop (the costs of pairs vary by orders of magnitude: a static
 * split would leave a core idle), one item at a time in loops of fewer than 256 items per
 * thread. A take of consecutive items keeps each thread's writes to its own cache lines
 * (items taken one by one put neighbouring results of two threads on one line, and 10^6
 * cheap items spent more time moving lines between the cores than computing them).
 * Each thread has its own generalized chi-square workspace; a thread the loop started frees
 * FLINT's thread-local caches (flint_cleanup) before it ends. While a loop of several items
 * runs, OpenBLAS is asked for one thread per call, whatever jobs is (items are the
 * parallelism, nested BLAS threads would oversubscribe the cores, and BLAS results may
 * depend on its thread count in the last bits: the results must not depend on jobs); its
 * setting is restored afterwards. A loop of fewer items than threads lends the threads its
 * items leave idle (ga_par_inner_jobs: jobs / n to each item, all of them to a single item):
 * an item's own loops (over its cells, say) then run on them, so an audit of a single
 * expensive pair, or of the two directions of one, uses every core; the items of a loop of
 * at least as many items as threads see 1. Nested loops so share out the threads of the
 * outermost one: at most jobs threads run items at any time.
 */
#include "numerics/numerics.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define GA_PAR_MAX_JOBS 256

int ga_par_jobs(int asked)
{
    if (asked > 0)
        return asked > GA_PAR_MAX_JOBS ? GA_PAR_MAX_JOBS : asked;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    if (c < 1)
        c = 1;
    return c > GA_PAR_MAX_JOBS ? GA_PAR_MAX_JOBS : (int)c;
}

typedef struct {
    size_t n, take; /* items, consecutive items per take */
    int lend;       /* the threads lent to each item (ga_par_inner_jobs) */
    double deadline;
    ga_par_fn fn;
    void *ctx;
    unsigned char *done;
    atomic_size_t next;
} par_loop;

/* take items until none is left or the deadline has passed */
static void drain(par_loop *l, ga_gchisq_work *w)
{
    for (;;) {
        size_t i = atomic_fetch_add(&l->next, l->take);
        size_t e = i < l->n && l->n - i > l->take ? i + l->take : l->n;
        for (; i < e; i++) {
            if (ga_expired(l->deadline))
                return;
            l->fn(l->ctx, i, w);
            if (l->done)
                l->done[i] = 1;
        }
        if (e == l->n)
            return;
    }
}

/* the threads lent to the item this thread runs (1: none) */
static _Thread_local int inner_jobs = 1;

int ga_par_inner_jobs(void)
{
    return inner_jobs;
}

static void *worker(void *arg)
{
    par_loop *l = arg;
    inner_jobs = l->lend;
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    if (w) /* without one this thread takes no item: the others take them */
        drain(l, w);
    ga_gchisq_work_free(w);
    ga_arb_thread_cleanup(); /* this thread's Arb/FLINT caches */
    return NULL;
}

int ga_par_for(size_t n, int jobs, double deadline, ga_par_fn fn, void *ctx, unsigned char *done,
               ga_gchisq_work *w)
{
    par_loop l = {.n = n, .deadline = deadline, .fn = fn, .ctx = ctx, .done = done};
    atomic_init(&l.next, 0);
    ga_gchisq_work *own = w ? NULL : ga_gchisq_work_alloc();
    if (!w && !own)
        return GA_ENOMEM;
    if (!w)
        w = own;
    size_t nt = jobs > 1 ? (size_t)jobs : 1;
    if (nt > n)
        nt = n ? n : 1;
    l.take = n / (256 * nt) ? n / (256 * nt) : 1;
    l.lend = jobs > 1 && n < (size_t)jobs ? jobs / (int)(n ? n : 1) : 1;
    pthread_t tid[GA_PAR_MAX_JOBS];
    size_t started = 0;
    int blas = 0;
    /* several items: one BLAS thread per call whatever jobs is (BLAS results can depend on
     * its thread count in the last bits, and the results must not depend on jobs); one item
     * (a single large pair) keeps BLAS's own threads */
    if (n > 1) {
        blas = ga_blas_threads(); /* loads the library first: not inside the items */
        ga_blas_set_threads(1);
    }
    /* a thread that cannot be started leaves its share to the others (the calling thread
     * always takes part) */
    for (size_t t = 1; t < nt; t++)
        if (pthread_create(&tid[started], NULL, worker, &l) == 0)
            started++;
    int outer = inner_jobs; /* (this thread's own share, restored below) */
    inner_jobs = l.lend;
    drain(&l, w);
    inner_jobs = outer;
    for (size_t t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    if (n > 1)
        ga_blas_set_threads(blas);
    ga_gchisq_work_free(own);
    return GA_OK;
}

void ga_par_items(size_t n, int jobs, double deadline, ga_par_fn fn, void *ctx)
{
    if (jobs > 1 && n > 1 && ga_par_for(n, jobs, deadline, fn, ctx, NULL, NULL) == GA_OK)
        return;
    for (size_t i = 0; i < n && !ga_expired(deadline); i++)
        fn(ctx, i, NULL);
}

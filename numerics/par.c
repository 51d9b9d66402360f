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
 * setting is restored afterwards.
 *
 * Loops inside items. A loop of fewer items than threads lends the threads its items leave
 * idle (jobs / n to each item, all of them to a single item): an item's own loops (over its
 * cells, say) start threads of their own up to that many, so an audit of a single expensive
 * pair, or the two directions of one, uses every core. The threads of a loop of at least as
 * many items as threads are shared instead: a thread that finds no item left joins the loops
 * the items still running have opened (it takes their items as their own threads do), until
 * every item of its loop has ended; an item's loop opened so starts no thread. So the second
 * core of an audit of one expensive pair beside cheap ones works inside the expensive one
 * once the cheap ones are done. Either way at most jobs threads run items at any time, and
 * loops nest in threads one level deep: the items of a loop inside an item see no threads
 * (ga_par_inner_jobs 1) and run their own loops on their thread.
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

typedef struct par_loop par_loop;
struct par_loop {
    size_t n, take; /* items, consecutive items per take */
    int lend;       /* what the items see as ga_par_inner_jobs */
    int shared;     /* 1: this loop's threads join its items' loops (a host) */
    double deadline;
    ga_par_fn fn;
    void *ctx;
    unsigned char *done;
    atomic_size_t next;
    /* a host's: its threads still taking its items, and its items' loops open to them */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int active;
    par_loop *open;
    /* a loop opened to its host's threads: the next one open, its helpers now */
    par_loop *next_open;
    int helpers;
};

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

/* the item this thread runs: the threads lent to it (1: none), and the host whose threads
 * its loops are opened to (NULL: none) */
static _Thread_local int inner_jobs = 1;
static _Thread_local par_loop *host;

int ga_par_inner_jobs(void)
{
    return inner_jobs;
}

/* l's items on this thread, which sees what they are lent */
static void run_items(par_loop *l, ga_gchisq_work *w)
{
    int outer = inner_jobs;
    par_loop *outer_host = host;
    inner_jobs = l->lend;
    host = l->shared ? l : NULL;
    drain(l, w);
    inner_jobs = outer;
    host = outer_host;
}

/* k of the host's threads take none of its items any more (done, or never started) */
static void leave(par_loop *h, int k)
{
    pthread_mutex_lock(&h->lock);
    h->active -= k;
    if (h->active == 0)
        pthread_cond_broadcast(&h->wake);
    pthread_mutex_unlock(&h->lock);
}

/* a host's thread out of items: the open loops' items, until no thread of the host takes
 * its items any more (an open loop is closed by the item that opened it: none is then open) */
static void help(par_loop *h, ga_gchisq_work *w)
{
    leave(h, 1);
    pthread_mutex_lock(&h->lock);
    while (h->active) {
        par_loop *x = h->open;
        while (x && atomic_load(&x->next) >= x->n)
            x = x->next_open;
        if (!x) {
            pthread_cond_wait(&h->wake, &h->lock);
            continue;
        }
        x->helpers++;
        pthread_mutex_unlock(&h->lock);
        run_items(x, w);
        pthread_mutex_lock(&h->lock);
        if (--x->helpers == 0)
            pthread_cond_broadcast(&h->wake);
    }
    pthread_mutex_unlock(&h->lock);
}

static void take_part(par_loop *l, ga_gchisq_work *w)
{
    run_items(l, w);
    if (l->shared)
        help(l, w);
}

static void *worker(void *arg)
{
    par_loop *l = arg;
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    if (w) { /* without one this thread takes no item: the others take them */
        take_part(l, w);
    } else if (l->shared) {
        leave(l, 1);
    }
    ga_gchisq_work_free(w);
    ga_arb_thread_cleanup(); /* this thread's Arb/FLINT caches */
    return NULL;
}

/* a loop inside an item of the host h: opened to h's threads, run here, closed once the
 * threads that joined it have left it */
static void open_loop(par_loop *l, par_loop *h, ga_gchisq_work *w)
{
    pthread_mutex_lock(&h->lock);
    l->next_open = h->open;
    h->open = l;
    pthread_cond_broadcast(&h->wake);
    pthread_mutex_unlock(&h->lock);
    run_items(l, w);
    pthread_mutex_lock(&h->lock);
    par_loop **p = &h->open;
    while (*p != l)
        p = &(*p)->next_open;
    *p = l->next_open;
    while (l->helpers)
        pthread_cond_wait(&h->wake, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

int ga_par_for(size_t n, int jobs, double deadline, ga_par_fn fn, void *ctx, unsigned char *done,
               ga_gchisq_work *w)
{
    par_loop l = {.n = n, .lend = 1, .deadline = deadline, .fn = fn, .ctx = ctx, .done = done};
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
    if (host && jobs > 1) { /* inside an item of a host: its threads, none of this loop's own */
        if (n == 1 && !ga_expired(deadline)) {
            fn(ctx, 0, w); /* (its loops are opened to the host in turn) */
            if (done)
                done[0] = 1;
        }
        if (n > 1)
            open_loop(&l, host, w);
        ga_gchisq_work_free(own);
        return GA_OK;
    }
    if (jobs > 1 && n < (size_t)jobs)
        l.lend = jobs / (int)(n ? n : 1);
    l.shared = nt > 1 && l.lend == 1;
    if (l.shared) { /* (its items see the threads they share) */
        l.lend = (int)nt;
        l.active = (int)nt;
        pthread_mutex_init(&l.lock, NULL);
        pthread_cond_init(&l.wake, NULL);
    }
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
    if (l.shared && started + 1 < nt)
        leave(&l, (int)(nt - 1 - started));
    take_part(&l, w);
    for (size_t t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    if (l.shared) {
        pthread_cond_destroy(&l.wake);
        pthread_mutex_destroy(&l.lock);
    }
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

typedef struct {
    void *p;
    size_t bytes, n;
} prefault_ctx;

static void prefault_part(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    prefault_ctx *c = ctx;
    ga_mem_populate_part(c->p, c->bytes, i, c->n);
}

void ga_par_prefault(void *p, size_t bytes, int jobs)
{
    prefault_ctx c = {p, bytes, ga_mem_parts(bytes, jobs > 1 ? (size_t)jobs : 1)};
    ga_mem_advise_huge(p, bytes); /* (the whole block first: parts do not split its mapping) */
    ga_par_items(c.n, jobs, 0, prefault_part, &c);
}

/*
 * cert_dirs.c - the two directions of a certified evaluation at one precision, on the threads
 * lent to (or shared with) the caller where it has some, else one after the other.
 *
 * Each direction runs under a guard of its own (ga_arb_guarded: a thread started here has no
 * other, and FLINT's exceptions and failed allocations must end the direction, not the
 * process); where FLINT stopped one, ran is 0 and guard says how, which the caller returns as
 * its own guard would have. The outcomes are the directions' own computations whichever
 * thread made them; the caller takes them in order, as if the directions had run one after
 * the other.
 */
#include "pair/cert_internal.h"

static int dir_guarded(void *va, slong prec)
{
    struct pc_dir_arg *a = va;
    pc_dirs *D = a->D;
    D->st[a->dir] = D->fn(D->v[a->dir], D->ctx, a->dir, prec);
    D->ran[a->dir] = 1;
    return GA_OK;
}

static void dir_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    pc_dirs *D = ctx;
    if (D->todo[i])
        D->guard[i] = ga_arb_guarded(dir_guarded, &D->arg[i], D->prec);
}

void pc_dirs_init(pc_dirs *D, pc_dir_fn fn, void *ctx, const int todo[2], slong prec)
{
    D->fn = fn;
    D->ctx = ctx;
    D->prec = prec;
    for (int dir = 0; dir < 2; dir++) {
        D->todo[dir] = todo[dir];
        D->st[dir] = D->ran[dir] = 0;
        D->guard[dir] = GA_OK;
        arb_init(D->v[dir]);
        D->arg[dir] = (struct pc_dir_arg){D, dir};
    }
}

void pc_dirs_run(pc_dirs *D, int par)
{
    /* (one thread: ga_par_items runs them in order here) */
    ga_par_items(2, par && D->todo[0] && D->todo[1] ? ga_par_inner_jobs() : 1, 0, dir_item, D);
}

void pc_dirs_clear(pc_dirs *D)
{
    arb_clear(D->v[0]);
    arb_clear(D->v[1]);
}

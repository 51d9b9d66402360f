/*
 * pld_export.c - certified privacy-loss distributions of one Poisson-subsampled Gaussian
 * step, on a grid, for other accountants to compose.
 *
 * A privacy-loss distribution (Meiser & Mohammadi 2018; Koskela, Jalko & Honkela 2020) is the
 * law of l = log(p_X/p_Y) under X; delta(eps) = E[(1 - e^{eps - l})_+], and composition adds
 * independent losses, so the laws convolve. On a grid of spacing h, a *pessimistic* law
 * rounds every loss up to the grid, and an *optimistic* one down: since (1 - e^{eps - l})_+
 * increases with l, and a sum of losses is monotone in each, the pessimistic law's delta of
 * any composition is at or above the true one and the optimistic law's at or below.
 * Certified here: each cell's mass (the step's loss law between grid points, from Arb's erfc
 * at the cell's exact ends: pair/ploss_bracket_arb.c) is exported as a double at or below
 * it, and what that leaves out of the total 1 is put where it can only raise delta
 * (pessimistic: at +infinity, with the tail above the grid) or lower it (optimistic: at
 * -infinity, i.e. left out). The doubles handed over are therefore exactly a law that is
 * pessimistic (optimistic) with respect to the true one, whatever the grid, with no error
 * term left for the user to carry.
 */
#include "numerics/arb.h"
#include "pair/cert_internal.h"
#include "pair/loss.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLD_TAIL_Z 9.3 /* the normal tail beyond 9.3 is below 1e-20: the grid's reach */
#define PLD_MAX_POINTS ((size_t)1 << 22) /* (two ball vectors of this length: 400 MB) */

void ga_pld_pmf_clear(ga_pld_pmf *p)
{
    if (!p)
        return;
    free(p->mass);
    memset(p, 0, sizeof *p);
}

/* the grid of direction sw (0: l under X; 1: -l under Y): cells (k0 + k) h .. (k0 + k + 1) h,
 * k < n, over the losses whose tails exceed about 1e-20 (the tails beyond are bounded in
 * Arb and placed as the kind of law says, so this choice costs accuracy, never validity) */
static int grid_of(long *k0, size_t *n, double q, double m, int sw, double h)
{
    ga_ploss_term t = {.q = q, .m = m, .count = 1};
    double lo, hi, l1q = log1p(-q);
    if (!sw) { /* l under X: from log(1 - q) up; X's upper tail beyond m + z */
        lo = l1q;
        hi = ga_step_loss(&t, l1q, m + PLD_TAIL_Z);
    } else { /* -l under Y: up to -log(1 - q); Y's upper tail beyond z */
        lo = -ga_step_loss(&t, l1q, PLD_TAIL_Z);
        hi = -l1q;
    }
    double a = floor(lo / h) - 1, b = ceil(hi / h) + 1;
    if (!(b - a >= 1) || !(b - a <= (double)PLD_MAX_POINTS) || fabs(a) > 1e15)
        return GA_EMAXITER;
    *k0 = (long)a;
    *n = (size_t)(b - a);
    return GA_OK;
}

/* 1 - sum of the masses, rounded up (the sum in ball arithmetic: exact for these doubles) */
static double rest_up(const double *mass, size_t n)
{
    arb_t s, t;
    arb_init(s);
    arb_init(t);
    arb_zero(s);
    for (size_t i = 0; i < n; i++) {
        arb_set_d(t, mass[i]);
        arb_add(s, s, t, 2100);
    }
    arb_sub_ui(s, s, 1, 2100);
    arb_neg(s, s);
    ga_interval iv;
    ga_arb_bounds(&iv, s);
    arb_clear(s);
    arb_clear(t);
    return isfinite(iv.hi) ? fmin(fmax(iv.hi, 0), 1) : 1;
}

typedef struct {
    ga_pld_pmf *out;
    const arb_struct *q, *m;
    double qd, md, h, deadline;
    int sw, pessimistic;
} pld_ctx;

/* one direction's law at prec: GA_OK, GA_EPREC (a grid point undecided), GA_ETIME, ... */
static int pld_step(void *vc, slong prec)
{
    pld_ctx *c = vc;
    long k0;
    size_t n;
    int rc = grid_of(&k0, &n, c->qd, c->md, c->sw, c->h);
    if (rc != GA_OK)
        return rc;
    double *w = malloc(n * sizeof *w), *mass = calloc(n + 1, sizeof *mass), tails[4];
    if (!w || !mass) {
        free(w);
        free(mass);
        return GA_ENOMEM;
    }
    rc = ga_loss_cells_arb(w, tails, c->q, c->m, c->sw, k0, n, c->h, prec, c->deadline);
    if (rc != GA_OK) {
        free(w);
        free(mass);
        return rc;
    }
    /* masses on the points (k0 + j) h, j <= n */
    if (c->pessimistic) { /* each cell at its upper end; below the grid at its first point */
        mass[0] = tails[0];
        for (size_t k = 0; k < n; k++)
            mass[k + 1] = w[k];
    } else { /* each cell at its lower end; above the grid at its last point */
        for (size_t k = 0; k < n; k++)
            mass[k] = w[k];
        mass[n] = tails[2];
    }
    ga_pld_pmf_clear(c->out);
    c->out->h = c->h;
    c->out->k0 = k0;
    c->out->n = n + 1;
    c->out->mass = mass;
    c->out->infinity_mass = c->pessimistic ? rest_up(mass, n + 1) : 0;
    free(w);
    return GA_OK;
}

int ga_subsampled_pld(ga_pld_pmf *remove, ga_pld_pmf *add, const char *q, const char *sigma,
                      double h, int pessimistic, double deadline)
{
    memset(remove, 0, sizeof *remove);
    memset(add, 0, sizeof *add);
    if (!q || !sigma)
        return GA_EINVAL;
    ga_subsampled_input t = {strtod(q, NULL), strtod(sigma, NULL), 1, 0, q, sigma, 0, 0, NULL, NULL};
    return ga_subsampled_pld_step(remove, add, &t, h, pessimistic, deadline);
}

int ga_subsampled_pld_step(ga_pld_pmf *remove, ga_pld_pmf *add, const ga_subsampled_input *t,
                           double h, int pessimistic, double deadline)
{
    memset(remove, 0, sizeof *remove);
    memset(add, 0, sizeof *add);
    if (h == 0)
        h = 1e-4;
    if (!t || !(h > 0 && h <= 1) || t->steps != 1 || t->add || t->columns != 0)
        return GA_EINVAL;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    ga_pair *p; /* (the step's checks and exact texts, as the certified path reads them) */
    char msg[256];
    if (ga_pair_reduce_subsampled(&p, t, 1, msg, sizeof msg) != GA_OK)
        return GA_EINVAL;
    arb_t qb, mb;
    arb_init(qb);
    arb_init(mb);
    int rc = GA_EINVAL;
    if (pc_sub_params(qb, mb, p, 0, 256) != GA_OK || !arb_is_positive(qb) || !arb_is_positive(mb))
        goto cleanup;
    arb_sub_ui(qb, qb, 1, 256); /* (q < 1 certainly: a rate of 1 is the Gaussian mechanism) */
    if (!arb_is_negative(qb))
        goto cleanup;
    arb_add_ui(qb, qb, 1, 256);
    double qd = arf_get_d(arb_midref(qb), ARF_RND_NEAR), md = arf_get_d(arb_midref(mb), ARF_RND_NEAR);
    if (!(qd > 0 && qd < 1 && md > 0 && isfinite(md)))
        goto cleanup;
    for (int sw = 0; sw < 2; sw++) {
        pld_ctx c = {sw ? add : remove, qb, mb, qd, md, h, deadline, sw, pessimistic != 0};
        rc = ga_arb_escalate(NULL, pld_step, &c, 128, 1024, deadline);
        if (rc != GA_OK)
            break;
    }
cleanup:
    if (rc != GA_OK) {
        ga_pld_pmf_clear(remove);
        ga_pld_pmf_clear(add);
    }
    arb_clear(qb);
    arb_clear(mb);
    ga_pair_free(p);
    return rc;
}

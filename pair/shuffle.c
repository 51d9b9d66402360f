/*
 * shuffle.c - shuffled epochs of DP-SGD: the privacy profile of the max test, a certified
 * lower bound of the shuffled mechanism's, bracketed in exact integer arithmetic.
 *
 * An epoch shuffles the n records and releases one noisy sum per batch: E = ceil(n/b) sums,
 * each record in exactly one of them. Take every other record's clipped gradient 0 and the
 * audited record's g, |g| = norm (the spec's sensitivity): in units of the noise the epoch
 * releases N(m e_t, I_E) with the record (t, its batch, random; m = norm/sigma) and N(0, I_E)
 * without it. These are laws of a real pair of neighbouring datasets (the batch sums of the
 * others are 0 whatever the shuffle), so any post-processing of them gives a lower bound of
 * the shuffled mechanism's delta on that pair (Chua et al., "How private are DP-SGD
 * implementations?", ICML 2024, study the same pair). The post-processing here is the
 * largest of the E sums, y = max_t z_t, whose laws have closed forms:
 *   without the record  F0(y) = Phi(y)^E,
 *   with it             F1(y) = Phi(y - m) Phi(y)^{E-1},
 * and whose privacy loss l(y) = log f1/f0 = log[(e^{m y - m^2/2} + (E - 1) Phi(y - m) /
 * Phi(y)) / E] increases with y (log Phi is concave, so Phi(y - m)/Phi(y) increases). Epochs
 * reshuffle independently, so T epochs give the T-fold product and the losses add.
 *
 * delta(eps) = E[(1 - e^{eps - S})_+], S the sum of T independent losses (under the law with
 * the record for direction XY, of -l under the law without it for YX). On the grid l = k h
 * the points y_k = l^{-1}(k h) (double precision; their exactness does not matter) cut the
 * line into cells whose loss lies between the loss at their ends: rounding every epoch's loss
 * down to the grid (a lower bound, since the integrand increases in S) or up (an upper bound)
 * gives two laws on the grid whose T-fold convolutions bracket delta. Each end's loss and each
 * cell's mass are balls (Arb: erfc, exp, log at the exact y_k and the exact m from the
 * decimals); the masses enter as integers, floor (lower) or ceiling (upper) of 2^BITS times
 * the ball's end, and the convolutions are exact integer products (FLINT) truncated back to
 * BITS after each product, down on the lower side and up on the upper one. A cell's loss is
 * placed at floor(l/h + NUDGE) (lower) and ceil(l/h - NUDGE) (upper), so T epochs' rounded sum
 * is off by at most T NUDGE h, which the final sums take back by moving eps. The tails
 * beyond the points (mass below CUT / T per epoch) are dropped on the lower side and put at
 * +infinity (or at the first point) on the upper side; the ends of the powers that weigh
 * less than 2^-100 are dropped (lower), and less than 2^-70 moved up and to +infinity
 * (upper: its ceilings leave no zeros to drop).
 *
 * The bracket is first order in h: each epoch's loss moves by less than h, so delta's
 * bracket has a relative width of about T h times the log-slope of delta in eps. h is the
 * loss range times T over TOTAL cells, but at most POINTS points, and at most PER_EPOCH
 * points per epoch (few epochs need no finer grid than T h = range / PER_EPOCH): a coarse
 * grid for the estimates, one four times finer for certified values (at the MNIST setting,
 * 60 epochs: 10% and 2.5% of delta, 0.8 s and 3 s; one epoch: a few % and under 1%).
 */
#include "numerics/arb.h"
#include "pair/loss.h"
#include "base/base.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SH_TOTAL ((double)(1 << 22)) /* T times the cells of one epoch (fine; coarse: /4) */
#define SH_BITS 90                   /* the masses' fixed point */
#define SH_TRIM 100                  /* a power's ends below 2^-SH_TRIM are trimmed (lower side) */
#define SH_TRIM_UP 70                /* and below 2^-SH_TRIM_UP moved (upper side: its ceilings
                                        leave no zeros) */
#define SH_CUT 1e-20                 /* the tails beyond the points, times T, per law */
#define SH_NUDGE 1e-9                /* a cell's loss may sit this far (in h) across a point */
#define SH_PREC 128
#define SH_MAX_POINTS ((size_t)1 << 22) /* the grid of the powers, at most */
#define SH_POINTS 65536              /* the points of one epoch, at most (each a few Arb
                                        functions; coarse: /4) */
#define SH_PER_EPOCH 4096            /* and at most this many per epoch (fine: 4x) */

/* ---------------------------------------------------------------- double precision */

static double log_phi_d(double x)
{
    if (x > -5)
        return log1p(-0.5 * erfc(x / M_SQRT2));
    if (x > -37)
        return log(0.5 * erfc(-x / M_SQRT2));
    double r = 1 / (x * x); /* Phi(x) = phi(x)/|x| (1 - r + 3 r^2 - ...) */
    return -0.5 * x * x - log(-x) - 0.5 * log(2 * M_PI) + log1p(-r + 3 * r * r);
}

/* the loss l(y) (log-sum-exp) */
static double loss_d(double y, double m, double E)
{
    double a = m * y - 0.5 * m * m;
    if (E == 1)
        return a;
    double b = log(E - 1) + log_phi_d(y - m) - log_phi_d(y), mx = fmax(a, b);
    return mx + log(exp(a - mx) + exp(b - mx)) - log(E);
}

/* log F0 and log F1 at y */
static void log_cdf_d(double *l0, double *l1, double y, double m, double E)
{
    double a = log_phi_d(y);
    *l0 = E * a;
    *l1 = log_phi_d(y - m) + (E - 1) * a;
}

/* y with l(y) = v (l increases), from y0: Newton steps with a secant slope, then bisection */
static double loss_inv(double v, double y0, double m, double E)
{
    double lo = y0 - 1, hi = y0 + 1;
    while (loss_d(lo, m, E) > v && lo > -1e3)
        lo -= 2 * (hi - lo);
    while (loss_d(hi, m, E) < v && hi < 1e3)
        hi += 2 * (hi - lo);
    double y = fmin(fmax(y0, lo), hi);
    for (int it = 0; it < 80; it++) {
        double f = loss_d(y, m, E) - v;
        if (f == 0)
            return y;
        *(f > 0 ? &hi : &lo) = y;
        double d = 1e-7 * fmax(1, fabs(y)), s = (loss_d(y + d, m, E) - loss_d(y, m, E)) / d;
        double yn = s > 0 ? y - f / s : 0.5 * (lo + hi);
        if (!(yn > lo && yn < hi))
            yn = 0.5 * (lo + hi);
        if (fabs(yn - y) <= 1e-15 * fmax(1, fabs(y)) || hi - lo <= 1e-15 * fmax(1, fabs(y)))
            return yn;
        y = yn;
    }
    return y;
}

/* the point where log F (upper = 0) or log(1 - F) (upper = 1) of law k passes log c */
static double tail_point(int k, int upper, double lc, double m, double E)
{
    double lo = -40, hi = 80; /* (m < 50: the law with the record sits below 60) */
    for (int it = 0; it < 200; it++) {
        double y = 0.5 * (lo + hi), l0, l1;
        log_cdf_d(&l0, &l1, y, m, E);
        double l = k ? l1 : l0;
        int beyond = (upper ? log(-expm1(l)) : l) < lc; /* the tail's log past the cut */
        if (upper)
            *(beyond ? &hi : &lo) = y;
        else
            *(beyond ? &lo : &hi) = y;
    }
    return upper ? hi : lo;
}

/* ---------------------------------------------------------------- the points in Arb */

typedef struct {
    arb_t m, hm2, lE, lE1, rs2; /* m, m^2/2, log E, log(E - 1), 1/sqrt 2 */
    double E;
    slong prec;
} law_t;

static void log_phi(arb_t r, const arb_t x, const law_t *L)
{
    arb_t t;
    arb_init(t);
    arb_mul(t, x, L->rs2, L->prec);
    if (arf_sgn(arb_midref(x)) < 0) { /* Phi(x) = erfc(-x/sqrt 2)/2 */
        arb_neg(t, t);
        arb_hypgeom_erfc(t, t, L->prec);
        arb_mul_2exp_si(t, t, -1);
        arb_log(r, t, L->prec);
    } else { /* log(1 - erfc(x/sqrt 2)/2) */
        arb_hypgeom_erfc(t, t, L->prec);
        arb_mul_2exp_si(t, t, -1);
        arb_neg(t, t);
        arb_log1p(r, t, L->prec);
    }
    arb_clear(t);
}

/* at the point y: the loss l, the laws' CDFs F[0], F[1] and upper tails G[0], G[1] */
typedef struct {
    arb_t l, F[2], G[2];
} point_t;

static void point_eval(point_t *P, double y, const law_t *L)
{
    slong prec = L->prec;
    arb_t x, a, b, c;
    arb_init(x);
    arb_init(a);
    arb_init(b);
    arb_init(c);
    arb_set_d(x, y);
    log_phi(a, x, L);        /* log Phi(y) */
    arb_sub(x, x, L->m, prec);
    log_phi(b, x, L);        /* log Phi(y - m) */
    arb_set_d(x, y);
    arb_mul(c, x, L->m, prec);
    arb_sub(c, c, L->hm2, prec);
    arb_exp(P->l, c, prec);  /* e^{m y - m^2/2} */
    if (L->E > 1) {
        arb_sub(c, b, a, prec);
        arb_add(c, c, L->lE1, prec);
        arb_exp(c, c, prec);
        arb_add(P->l, P->l, c, prec);
    }
    arb_log(P->l, P->l, prec);
    arb_sub(P->l, P->l, L->lE, prec);
    /* log F0 = E log Phi(y); log F1 = log Phi(y - m) + (E - 1) log Phi(y) */
    arb_mul_ui(c, a, (ulong)L->E, prec);
    arb_exp(P->F[0], c, prec);
    arb_expm1(P->G[0], c, prec);
    arb_neg(P->G[0], P->G[0]);
    arb_mul_ui(c, a, (ulong)L->E - 1, prec);
    arb_add(c, c, b, prec);
    arb_exp(P->F[1], c, prec);
    arb_expm1(P->G[1], c, prec);
    arb_neg(P->G[1], P->G[1]);
    arb_clear(x);
    arb_clear(a);
    arb_clear(b);
    arb_clear(c);
}

/* floor(x/h + NUDGE) from x's lower end (up = 0), or ceil(x/h - NUDGE) from its upper end;
 * 0 when not finite or beyond +-2^40 */
static int grid_index(long *k, const arb_t x, double h, int up, slong prec)
{
    arb_t t;
    arf_t e;
    arb_init(t);
    arf_init(e);
    arb_set_d(t, h);
    arb_div(t, x, t, prec);
    if (up)
        arb_get_ubound_arf(e, t, prec);
    else
        arb_get_lbound_arf(e, t, prec);
    double v = arf_get_d(e, up ? ARF_RND_UP : ARF_RND_DOWN);
    int ok = isfinite(v) && fabs(v) < 0x1p40;
    if (ok) {
        double s = up ? v - SH_NUDGE : v + SH_NUDGE; /* (|v| < 2^40: the nudge is exact enough
                                                      * that rounding it outward is safe) */
        s = up ? nextafter(s, INFINITY) : nextafter(s, -INFINITY);
        *k = up ? (long)ceil(s) : (long)floor(s);
    }
    arb_clear(t);
    arf_clear(e);
    return ok;
}

/* a ball's end times 2^BITS as an integer: floor of the lower end (at least 0) or ceiling
 * of the upper end */
static void to_fixed(fmpz_t z, const arb_t v, int up, slong prec)
{
    arf_t e;
    arf_init(e);
    if (up)
        arb_get_ubound_arf(e, v, prec);
    else
        arb_get_lbound_arf(e, v, prec);
    arf_mul_2exp_si(e, e, SH_BITS);
    arf_get_fmpz(z, e, up ? ARF_RND_CEIL : ARF_RND_FLOOR);
    if (fmpz_sgn(z) < 0)
        fmpz_zero(z);
    arf_clear(e);
}

/* ---------------------------------------------------------------- powers */

typedef struct {
    fmpz *c;
    slong len, cap;
    long k0;
} vec_t;

static void vec_clear(vec_t *v)
{
    if (v->c)
        _fmpz_vec_clear(v->c, v->cap);
    memset(v, 0, sizeof *v);
}

static void vec_alloc(vec_t *v, slong len)
{
    v->c = _fmpz_vec_init(len);
    v->cap = v->len = len;
}

/* Back to BITS after a product (2 BITS), rounding down (lower) or up; then the ends whose
 * mass is below 2^(BITS - TRIM) dropped (lower) or moved to the first entry kept and to
 * +infinity (*inf, in units of 2^-BITS; upper) */
static void vec_trim(vec_t *v, int up, fmpz_t inf)
{
    fmpz_t s, tau;
    fmpz_init(s);
    fmpz_init(tau);
    for (slong i = 0; i < v->len; i++) {
        if (up)
            fmpz_cdiv_q_2exp(v->c + i, v->c + i, SH_BITS);
        else
            fmpz_fdiv_q_2exp(v->c + i, v->c + i, SH_BITS);
    }
    fmpz_one(tau);
    fmpz_mul_2exp(tau, tau, up ? SH_BITS - SH_TRIM_UP : SH_BITS > SH_TRIM ? SH_BITS - SH_TRIM : 0);
    slong a = 0, b = v->len;
    fmpz_zero(s);
    while (a < b - 1) { /* the low end */
        fmpz_add(s, s, v->c + a);
        if (fmpz_cmp(s, tau) > 0)
            break;
        a++;
    }
    if (up && a > 0) {
        fmpz_zero(s);
        for (slong i = 0; i < a; i++)
            fmpz_add(s, s, v->c + i);
        fmpz_add(v->c + a, v->c + a, s);
    }
    fmpz_zero(s);
    while (b - 1 > a) { /* the high end */
        fmpz_add(s, s, v->c + b - 1);
        if (fmpz_cmp(s, tau) > 0)
            break;
        b--;
    }
    if (up) {
        for (slong i = b; i < v->len; i++)
            fmpz_add(inf, inf, v->c + i);
    }
    if (a > 0 || b < v->len) {
        for (slong i = 0; i < b - a; i++)
            fmpz_swap(v->c + i, v->c + a + i);
        for (slong i = b - a; i < v->len; i++)
            fmpz_zero(v->c + i);
        v->k0 += a;
        v->len = b - a;
    }
    fmpz_clear(s);
    fmpz_clear(tau);
}

/* r <- trim(x y) */
static int vec_mul(vec_t *r, const vec_t *x, const vec_t *y, int up, fmpz_t inf, double deadline)
{
    if (deadline > 0 && ga_expired(deadline))
        return GA_ETIME;
    vec_t t;
    vec_alloc(&t, x->len + y->len - 1);
    if (x == y)
        _fmpz_poly_sqr(t.c, x->c, x->len);
    else if (x->len >= y->len)
        _fmpz_poly_mul(t.c, x->c, x->len, y->c, y->len);
    else
        _fmpz_poly_mul(t.c, y->c, y->len, x->c, x->len);
    t.k0 = x->k0 + y->k0;
    vec_trim(&t, up, inf);
    vec_clear(r);
    *r = t;
    return GA_OK;
}

/* the T-fold power of the step a (the mass above the grid, per step, in a_inf) */
static int vec_pow(vec_t *out, fmpz_t inf, vec_t *a, unsigned long T, int up, double deadline)
{
    vec_t r = {0}, b = *a;
    int rc = GA_OK, first = 1;
    memset(a, 0, sizeof *a);
    while (T && rc == GA_OK) {
        if (T & 1) {
            if (first) {
                vec_alloc(&r, b.len);
                _fmpz_vec_set(r.c, b.c, b.len);
                r.k0 = b.k0;
                first = 0;
            } else {
                rc = vec_mul(&r, &r, &b, up, inf, deadline);
            }
        }
        T >>= 1;
        if (T && rc == GA_OK)
            rc = vec_mul(&b, &b, &b, up, inf, deadline);
    }
    vec_clear(&b);
    if (rc != GA_OK)
        vec_clear(&r);
    *out = r;
    return rc;
}

/* ---------------------------------------------------------------- the laws */

void ga_shuffle_laws_clear(ga_shuffle_laws *S)
{
    if (!S)
        return;
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 2; s++)
            free(S->s[d][s].w);
    memset(S, 0, sizeof *S);
}

/* x <- the loss of direction dir at point P: l (XY) or -l (YX) */
static void dir_loss(arb_t x, const point_t *P, int dir)
{
    if (dir)
        arb_neg(x, P->l);
    else
        arb_set(x, P->l);
}

/* the step of direction dir, side up, from the points: masses into v (index k0 + i), the
 * mass at +infinity into inf (units 2^-BITS) */
static int step_vec(vec_t *v, fmpz_t inf, const point_t *P, size_t np, double h, int dir,
                    int up, slong prec)
{
    long *idx = malloc((np + 1) * sizeof *idx);
    fmpz *mz = _fmpz_vec_init((slong)np + 1);
    arb_t d, x;
    arb_init(d);
    arb_init(x);
    int rc = idx ? GA_OK : GA_ENOMEM;
    long kmin = LONG_MAX, kmax = LONG_MIN;
    /* cell j < np - 1 between points j and j + 1; j = np - 1: the tail that has a finite
     * loss bound (above the last point for XY's lower side, below the first for YX's...) */
    for (size_t j = 0; rc == GA_OK && j + 1 < np; j++) {
        /* the cell's smallest loss (lower side) or largest (upper): l increases in y, -l
         * decreases */
        dir_loss(x, &P[up != dir ? j + 1 : j], dir);
        if (!grid_index(&idx[j], x, h, up, prec)) {
            rc = GA_EPREC;
            break;
        }
        arb_sub(d, P[j + 1].F[dir == 0], P[j].F[dir == 0], prec);
        to_fixed(mz + j, d, up, prec);
    }
    /* the tails: XY (the law with the record, loss l): above the last point the loss is at
     * least l(y_last) (lower: there; upper: +infinity), below the first at most l(y_0)
     * (lower: dropped; upper: there). YX (without it, loss -l): below the first point at
     * least -l(y_0) (lower: there; upper: +infinity), above the last at most -l(y_last)
     * (lower: dropped; upper: there). */
    size_t jt = np - 1;
    const point_t *pf = &P[0], *pl = &P[np - 1];
    int law = dir == 0;
    if (rc == GA_OK) {
        fmpz_t t;
        fmpz_init(t);
        const point_t *fin = dir == 0 ? (up ? pf : pl) : (up ? pl : pf);
        const arb_struct *tailm = dir == 0 ? (up ? pf->F[law] : pl->G[law])
                                           : (up ? pl->G[law] : pf->F[law]);
        const arb_struct *infm = dir == 0 ? pl->G[law] : pf->F[law];
        dir_loss(x, fin, dir);
        if (!grid_index(&idx[jt], x, h, up, prec))
            rc = GA_EPREC;
        to_fixed(mz + jt, tailm, up, prec);
        if (up) {
            to_fixed(t, infm, 1, prec);
            fmpz_add(inf, inf, t);
        }
        fmpz_clear(t);
    }
    for (size_t j = 0; rc == GA_OK && j < np; j++) {
        if (fmpz_is_zero(mz + j))
            continue;
        kmin = idx[j] < kmin ? idx[j] : kmin;
        kmax = idx[j] > kmax ? idx[j] : kmax;
    }
    if (rc == GA_OK && (kmin > kmax || (double)(kmax - kmin) > 4.0 * (double)SH_MAX_POINTS))
        rc = GA_EDOM;
    if (rc == GA_OK) {
        vec_alloc(v, kmax - kmin + 1);
        v->k0 = kmin;
        for (size_t j = 0; j < np; j++)
            if (!fmpz_is_zero(mz + j))
                fmpz_add(v->c + (idx[j] - kmin), v->c + (idx[j] - kmin), mz + j);
    }
    free(idx);
    _fmpz_vec_clear(mz, (slong)np + 1);
    arb_clear(d);
    arb_clear(x);
    return rc;
}

/* the power's entries as doubles (rounded down or up, times 2^-BITS) */
static int vec_out(ga_shuffle_side *o, const vec_t *v, const fmpz_t inf, int up)
{
    o->w = malloc((size_t)v->len * sizeof *o->w);
    if (!o->w)
        return GA_ENOMEM;
    o->k0 = v->k0;
    o->len = (size_t)v->len;
    arf_t a;
    arf_init(a);
    for (slong i = 0; i < v->len; i++) {
        arf_set_fmpz(a, v->c + i);
        arf_mul_2exp_si(a, a, -SH_BITS);
        o->w[i] = arf_get_d(a, up ? ARF_RND_UP : ARF_RND_DOWN);
    }
    /* the mass at +infinity (T times a step's, a union bound, and what the powers moved
     * there), times 1 + 1e-10: what the convolutions' other factors, each of mass at most
     * 1 + 1e-20 on the upper side, can make of it */
    arf_set_fmpz(a, inf);
    arf_mul_2exp_si(a, a, -SH_BITS);
    o->inf = up ? fmin(arf_get_d(a, ARF_RND_UP) * (1 + 1e-10), 1) : 0;
    arf_clear(a);
    return GA_OK;
}

/* the points' balls and the four sides' powers, each an item on any thread (the threads lent
 * to the caller, ga_par_inner_jobs: each result is the one computation's, whichever thread
 * made it) */
typedef struct {
    point_t *P;
    const double *y;
    const law_t *L;
    size_t np;
    double h, T, deadline;
    ga_shuffle_laws *S;
    int rc[4];
} laws_run;

static void point_item(void *ctx, size_t k, ga_gchisq_work *w)
{
    (void)w;
    laws_run *r = ctx;
    point_eval(&r->P[k], r->y[k], r->L);
}

static void side_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    laws_run *r = ctx;
    int dir = (int)i / 2, up = (int)i % 2;
    vec_t a = {0}, pw = {0};
    fmpz_t inf;
    fmpz_init(inf);
    int rc = step_vec(&a, inf, r->P, r->np, r->h, dir, up, r->L->prec);
    fmpz_mul_ui(inf, inf, (ulong)r->T);
    if (rc == GA_OK)
        rc = vec_pow(&pw, inf, &a, (unsigned long)r->T, up, r->deadline);
    if (rc == GA_OK)
        rc = vec_out(&r->S->s[dir][up], &pw, inf, up);
    vec_clear(&a);
    vec_clear(&pw);
    fmpz_clear(inf);
    r->rc[i] = rc;
}

int ga_shuffle_laws_make(ga_shuffle_laws *S, const char *norm_txt, double norm,
                         const char *sigma_txt, double sigma, double E, double T, int fine,
                         double deadline)
{
    memset(S, 0, sizeof *S);
    if (!(E >= 1 && E <= 1e7 && E == floor(E) && T >= 1 && T <= 1e5 && T == floor(T) &&
          sigma > 0 && norm > 0))
        return GA_EINVAL;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    double m = norm / sigma;
    if (!(m > 1e-6 && m < 50))
        return GA_EDOM;
    /* the points' range: both laws' tails beyond it weigh under CUT / T */
    double lc = log(SH_CUT / T);
    double ya = fmin(tail_point(0, 0, lc, m, E), tail_point(1, 0, lc, m, E));
    double yb = fmax(tail_point(0, 1, lc, m, E), tail_point(1, 1, lc, m, E));
    double va = loss_d(ya, m, E), vb = loss_d(yb, m, E);
    if (!(isfinite(va) && isfinite(vb) && vb > va))
        return GA_EDOM;
    /* (the width goes with T h: at few epochs no finer than T h = range / PER_EPOCH) */
    double total = fine ? SH_TOTAL : SH_TOTAL / 4, points = fine ? SH_POINTS : SH_POINTS / 4;
    points = fmin(points, (fine ? 4 * SH_PER_EPOCH : SH_PER_EPOCH) * T);
    double h = fmax((vb - va) * T / total, (vb - va) / points);
    long k0 = (long)floor(va / h), k1 = (long)ceil(vb / h);
    size_t np = (size_t)(k1 - k0 + 1);
    if (np > SH_MAX_POINTS)
        return GA_EDOM;
    S->h = h;
    S->eta = T * SH_NUDGE * h * (1 + 1e-6);
    law_t L;
    slong prec = SH_PREC;
    arb_init(L.m);
    arb_init(L.hm2);
    arb_init(L.lE);
    arb_init(L.lE1);
    arb_init(L.rs2);
    L.E = E;
    L.prec = prec;
    int rc = GA_OK;
    arb_t t;
    arb_init(t);
    if ((norm_txt ? arb_set_str(L.m, norm_txt, prec) : (arb_set_d(L.m, norm), 0)) ||
        (sigma_txt ? arb_set_str(t, sigma_txt, prec) : (arb_set_d(t, sigma), 0)) ||
        !arb_is_positive(t))
        rc = GA_EINVAL;
    arb_div(L.m, L.m, t, prec);
    arb_sqr(L.hm2, L.m, prec);
    arb_mul_2exp_si(L.hm2, L.hm2, -1);
    arb_set_ui(t, (ulong)E);
    arb_log(L.lE, t, prec);
    if (E > 1) {
        arb_set_ui(t, (ulong)E - 1);
        arb_log(L.lE1, t, prec);
    }
    arb_set_ui(L.rs2, 2);
    arb_rsqrt(L.rs2, L.rs2, prec);
    arb_clear(t);
    point_t *P = rc == GA_OK ? malloc(np * sizeof *P) : NULL;
    double *ys = rc == GA_OK ? malloc(np * sizeof *ys) : NULL;
    unsigned char *done = rc == GA_OK ? calloc(np, 1) : NULL;
    size_t made = 0;
    if (rc == GA_OK && (!P || !ys || !done))
        rc = GA_ENOMEM;
    /* the points in order (each search starts from the last point), then their balls */
    double y = ya;
    for (size_t k = 0; rc == GA_OK && k < np; k++, made++) {
        if (deadline > 0 && (k & 255) == 0 && ga_expired(deadline))
            rc = GA_ETIME;
        /* (nondecreasing: the cells tile the line between the first and last points) */
        y = k == 0 ? ya : fmax(y, k + 1 == np ? yb : loss_inv((double)(k0 + (long)k) * h, y, m, E));
        ys[k] = y;
        arb_init(P[k].l);
        for (int i = 0; i < 2; i++) {
            arb_init(P[k].F[i]);
            arb_init(P[k].G[i]);
        }
    }
    laws_run run = {P, ys, &L, np, h, T, deadline, S, {GA_OK, GA_OK, GA_OK, GA_OK}};
    if (rc == GA_OK)
        rc = ga_par_for(np, ga_par_inner_jobs(), deadline, point_item, &run, done, NULL);
    for (size_t k = 0; rc == GA_OK && k < np; k++)
        if (!done[k])
            rc = GA_ETIME;
    /* the four sides (direction, lower or upper) */
    if (rc == GA_OK)
        ga_par_items(4, ga_par_inner_jobs(), 0, side_item, &run);
    for (int i = 0; i < 4 && rc == GA_OK; i++)
        rc = run.rc[i];
    free(ys);
    free(done);
    for (size_t k = 0; k < made; k++) {
        arb_clear(P[k].l);
        for (int i = 0; i < 2; i++) {
            arb_clear(P[k].F[i]);
            arb_clear(P[k].G[i]);
        }
    }
    free(P);
    arb_clear(L.m);
    arb_clear(L.hm2);
    arb_clear(L.lE);
    arb_clear(L.lE1);
    arb_clear(L.rs2);
    if (rc != GA_OK)
        ga_shuffle_laws_clear(S);
    return rc;
}

/* One side's sum: sum_i w_i (1 - e^{eps - x_i})_+ with x_i = (k0 + i) h -+ eta (the grid's
 * tolerance taken back: down for the lower side, up for the upper), eps the end of its ball
 * that keeps the side a bound; the exponentials from ga_exp_seq_arb (2 ulps each, proven),
 * every rounding counted. */
static int side_sum(double *res, const ga_shuffle_side *s, double h, double eta, double eps,
                    int up)
{
    const double u = DBL_EPSILON / 2;
    size_t i0 = 0;
    /* the first i with x_i > eps (x_i = (k0 + i) h - eta, or + eta): decided in Arb */
    arb_t a, b, x;
    arb_init(a);
    arb_init(b);
    arb_init(x);
    long lo = 0, hi = (long)s->len;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        arb_set_d(x, h);
        arb_mul_si(x, x, s->k0 + mid, 256);
        arb_set_d(a, up ? eta : -eta);
        arb_add(x, x, a, 256);
        arb_set_d(a, eps);
        arb_sub(x, x, a, 256);
        if (arb_is_positive(x))
            hi = mid;
        else
            lo = mid + 1;
    }
    i0 = (size_t)lo;
    size_t n = s->len - i0;
    double sum = 0;
    int rc = GA_OK;
    if (n > 0) {
        double *y = malloc(n * sizeof *y);
        if (!y) {
            rc = GA_ENOMEM;
        } else {
            /* e^{eps - x_i}: a = eps - x_{i0}, b = -h */
            arb_set_d(a, h);
            arb_mul_si(a, a, s->k0 + (long)i0, 256);
            arb_set_d(x, up ? eta : -eta);
            arb_add(a, a, x, 256);
            arb_set_d(x, eps);
            arb_sub(a, x, a, 256);
            arb_set_d(b, -h);
            rc = ga_exp_seq_arb(y, n, a, b, 256);
            for (size_t j = 0; rc == GA_OK && j < n; j++) {
                double f = up ? 1 - y[j] * (1 - 8 * u) + u : 1 - y[j] * (1 + 8 * u) - u;
                f = fmin(fmax(f, 0), 1);
                sum += s->w[i0 + j] * f;
            }
            free(y);
        }
    }
    /* the products' and the sum's rounding: (n + 2) u relative at most */
    double g = ((double)n + 3) * u;
    *res = up ? fmin(sum * (1 + g) * (1 + 2 * u) + s->inf * (1 + 2 * u), 1) : fmax(sum * (1 - g) * (1 - 2 * u), 0);
    arb_clear(a);
    arb_clear(b);
    arb_clear(x);
    return rc;
}

int ga_shuffle_delta_bounds(double *lo, double *hi, const ga_shuffle_laws *S, int dir,
                            double eps_lo, double eps_hi)
{
    *lo = 0;
    *hi = 1;
    if (dir < 0 || dir > 1 || !S->s[dir][0].w || !S->s[dir][1].w || !(eps_lo <= eps_hi))
        return GA_EINVAL;
    /* the lower side at eps's upper end, the upper side at its lower end */
    int rc = side_sum(lo, &S->s[dir][0], S->h, S->eta, eps_hi, 0);
    if (rc == GA_OK)
        rc = side_sum(hi, &S->s[dir][1], S->h, S->eta, eps_lo, 1);
    if (rc != GA_OK) {
        *lo = 0;
        *hi = 1;
    }
    return rc;
}

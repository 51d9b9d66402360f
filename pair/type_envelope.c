/*
 * type_envelope.c - the worst case over the sensitivity envelope of a one-dimensional
 * Gaussian-output algorithm (Wei, Lu, Magdon-Ismail & Zikas, 001, Definition 5 with d = 1;
 * Proposition 8 gives one for Gaussian process regression at a query point).
 *
 * The envelope: every ordered pair X = N(mu, s), Y = N(mu', s') with |mu - mu'| / sqrt(s') <= D
 * and |log(s / s')| <= rho. An affine map takes the pair to X = N(m, R), Y = N(0, 1) with
 * m = (mu - mu') / sqrt(s'), R = s / s', so its delta is delta(m, R) at eps. The privacy loss
 * is L(x) = x^2/2 - (x - m)^2 / (2 R) - log(R) / 2, and L > eps where q(x) = (R - 1) x^2 + 2 m x
 * - c > 0, c = m^2 + R log R + 2 R eps: outside the roots a < b when R > 1, between them when
 * R < 1, above c / (2 m) when R = 1. delta = P_X[L > eps] - e^eps P_Y[L > eps]: normal tails.
 *
 * (1) delta(m, R) does not decrease in |m|. By the envelope theorem d delta / dm is the
 * integral of dp_X/dm = -dp_X/dx over the event: p_X(b) - p_X(a) (R > 1) or p_X(a) - p_X(b)
 * (R < 1), and p_X = e^eps phi at the roots, which are symmetric about -m / (R - 1). For m >= 0
 * the root nearer 0 is b (R > 1) or a (R < 1), so the derivative is >= 0; the supremum over the
 * envelope is at m = D, over R in [e^-rho, e^rho].
 * (2) On a cell [R0, R1] that does not contain 1: d delta / dR is the integral over the event
 * of dp_X/dR = (1/2) d^2 p_X / dx^2 (the heat equation), that is e^eps / (2 R) ((m - a) phi(a)
 * + (b - m) phi(b)) for R > 1 and e^eps / (2 R) ((a - m) phi(a) - (b - m) phi(b)) for R < 1
 * (0 where the event is empty). Enclosed over the cell in ball arithmetic (R a ball), it
 * bounds delta on the cell by delta(R0) + (R1 - R0) max(D', 0) and by delta(R1) + (R1 - R0)
 * max(-D', 0).
 * (3) Near 1 (|R - 1| <= g = 2^-30) the roots run off to infinity. There, with W = N(m, 1),
 * delta_XZ(eps) <= delta_XW(e1) + e^e1 delta_WZ(eps - e1) (the chain rule of the hockey-stick
 * divergence, e1 = eps 2^-20), delta_XW = delta(0, R) <= delta(0, 1 +- g) (N(0, R) is N(0, 1 +
 * g) scaled by A, A^2 = (R - 1)/g, plus independent noise of variance 1 - A^2, a kernel that
 * leaves N(0, 1) as it is), and delta_WZ = delta(m, 1) <= delta(D, 1).
 *
 * Branch and bound over cells of R: the cell of largest upper bound is halved until every
 * bound is within a relative tolerance of the best member's delta (m = D, R inside
 * [e^-rho, e^rho]: a lower bound of the supremum). Every number is a ball (Arb), so the
 * bracket [best member, largest bound] is rigorous, in double precision as in the certified
 * evaluation; the estimate is its middle, its half width the error.
 *
 * Any direction (a multivariate output whose covariance changes along one direction w, R = I +
 * (r - 1) w w^T with |log r| <= rho, the mean by |m| <= D in any direction): the supremum
 * depends on the angle between m and w (neither end dominates), and the pair's delta is the
 * chain rule through W = N(m, I) instead, an upper bound of it: the infimum over eps1 in [0,
 * eps] of delta(0, r; eps1) + e^eps1 delta(D, 1; eps - eps1), the first term at most its value
 * at r = e^+-rho (N(0, R) is a post-processing of N(0, I + (e^+-rho - 1) w w^T) that leaves
 * N(0, I) as it is), the second by (1). Each term is a ball; eps1 is searched on a grid refined
 * by golden section (any eps1 gives a bound; the value is the one at the eps1 found).
 */
#include "pair/cert_internal.h"
#include "pair/pair.h"
#include "base/base.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENV_CELLS0 16     /* the first cells per side of R = 1 */
#define ENV_MAXCELLS 4096
#define ENV_TOL 1e-4      /* estimates: the bracket's relative width */
#define ENV_CERT_TOL 2e-6 /* certified: the target, reached on smooth profiles */
#define ENV_CERT_DIGITS 4 /* certified: GA_OK up to this relative width */
#define ENV_GAP 0x1p-30   /* g: the cell around R = 1 */

typedef struct {
    ga_envelope_input in;
    double rin_lo, rin_hi;   /* e^-rho rounded up, e^rho rounded down (members) */
    double rout_lo, rout_hi; /* e^-rho rounded down, e^rho rounded up (cells) */
} env_t;

typedef struct {
    arb_t m, eps, ee, rs2; /* D, eps, e^eps, 1/sqrt 2 */
    slong prec;
} ectx;

/* the roots of q for R on one side of 1 (side = +1: R > 1, -1: R < 1): a <= b; returns 0
 * when the event is certainly empty (R < 1 and no real roots) */
static int roots(arb_t a, arb_t b, const arb_t m, const arb_t R, int side, const arb_t eps,
                 slong prec)
{
    arb_t c, d, sq, t;
    arb_init(c);
    arb_init(d);
    arb_init(sq);
    arb_init(t);
    int nonempty = 1;
    arb_log(c, R, prec); /* c = m^2 + R (log R + 2 eps) */
    arb_addmul_ui(c, eps, 2, prec);
    arb_mul(c, c, R, prec);
    arb_addmul(c, m, m, prec);
    arb_sub_ui(t, R, 1, prec); /* R - 1 */
    arb_mul(d, t, c, prec);    /* D = m^2 + (R - 1) c */
    arb_addmul(d, m, m, prec);
    if (side < 0 && arb_is_nonpositive(d)) {
        nonempty = 0;
        goto cleanup;
    }
    arb_sqrtpos(sq, d, prec);
    arb_add(d, m, sq, prec); /* m + sqrt D > 0 (m > 0, or c has the sign that makes D > 0) */
    if (side > 0) {          /* a = -(m + sqrt D)/(R - 1), b = c/(m + sqrt D) */
        arb_div(a, d, t, prec);
        arb_neg(a, a);
        if (arb_is_positive(m))
            arb_div(b, c, d, prec);
        else { /* m = 0: b = sqrt D / (R - 1) */
            arb_div(b, sq, t, prec);
        }
    } else { /* a = c/(m + sqrt D) (= (m - sqrt D)/(1 - R)), b = (m + sqrt D)/(1 - R) */
        arb_neg(t, t);
        arb_div(b, d, t, prec);
        if (arb_is_positive(m))
            arb_div(a, c, d, prec);
        else {
            arb_div(a, sq, t, prec);
            arb_neg(a, a);
        }
    }
cleanup:
    arb_clear(c);
    arb_clear(d);
    arb_clear(sq);
    arb_clear(t);
    return nonempty;
}

/* P[lo < Z < hi] for Z ~ N(0, 1) from the tails on the interval's side (no cancellation
 * between near-one numbers) */
static void mass_between(arb_t res, const arb_t lo, const arb_t hi, const ectx *x)
{
    arb_t P0, Q0, P1, Q1;
    arb_init(P0);
    arb_init(Q0);
    arb_init(P1);
    arb_init(Q1);
    ga_arb_normal_tails(P0, Q0, lo, x->rs2, x->prec);
    ga_arb_normal_tails(P1, Q1, hi, x->rs2, x->prec);
    if (arf_sgn(arb_midref(lo)) >= 0)
        arb_sub(res, Q0, Q1, x->prec);
    else
        arb_sub(res, P1, P0, x->prec);
    arb_clear(P0);
    arb_clear(Q0);
    arb_clear(P1);
    arb_clear(Q1);
}

/* delta(m, R) at eps (ee = e^eps) for R on one side of 1 (side +-1) or R = 1 (side 0) */
static void env_delta(arb_t res, const arb_t m, const arb_t R, int side, const arb_t eps,
                      const arb_t ee, const ectx *x)
{
    slong prec = x->prec;
    arb_t a, b, sr, u, v, P, Q;
    arb_init(a);
    arb_init(b);
    arb_init(sr);
    arb_init(u);
    arb_init(v);
    arb_init(P);
    arb_init(Q);
    if (side == 0) { /* the Gaussian mechanism at mu = m; 0 when m = 0 */
        if (!arb_is_positive(m)) {
            arb_zero(res);
            goto cleanup;
        }
        arb_sqr(a, m, prec);
        pc_shift_delta(res, a, eps, prec);
        goto cleanup;
    }
    if (!roots(a, b, m, R, side, eps, prec)) {
        arb_zero(res);
        goto cleanup;
    }
    arb_sqrt(sr, R, prec);
    if (side > 0) { /* outside (a, b): P[Z < a] + P[Z > b] */
        arb_sub(u, a, m, prec);
        arb_div(u, u, sr, prec);
        ga_arb_normal_tails(v, Q, u, x->rs2, prec); /* v = P_X[x < a] */
        arb_sub(u, b, m, prec);
        arb_div(u, u, sr, prec);
        ga_arb_normal_tails(P, Q, u, x->rs2, prec);
        arb_add(v, v, Q, prec);
        ga_arb_normal_tails(u, Q, a, x->rs2, prec); /* u = Phi(a) */
        ga_arb_normal_tails(P, sr, b, x->rs2, prec);
        arb_add(u, u, sr, prec);
    } else { /* between a and b */
        arb_sub(u, a, m, prec);
        arb_div(u, u, sr, prec);
        arb_sub(v, b, m, prec);
        arb_div(v, v, sr, prec);
        mass_between(P, u, v, x);
        arb_swap(v, P);
        mass_between(u, a, b, x);
    }
    arb_mul(u, u, ee, prec);
    arb_sub(res, v, u, prec);
cleanup:
    arb_clear(a);
    arb_clear(b);
    arb_clear(sr);
    arb_clear(u);
    arb_clear(v);
    arb_clear(P);
    arb_clear(Q);
}

/* (x - m) phi(x) */
static void moment(arb_t res, const arb_t xv, const arb_t m, slong prec)
{
    arb_t t;
    arb_init(t);
    arb_mul(t, xv, xv, prec);
    arb_mul_2exp_si(t, t, -1);
    arb_neg(t, t);
    arb_exp(t, t, prec);
    arb_const_sqrt_pi(res, prec);
    arb_div(t, t, res, prec);
    arb_sqrt_ui(res, 2, prec);
    arb_div(t, t, res, prec);
    arb_sub(res, xv, m, prec);
    arb_mul(res, res, t, prec);
    arb_clear(t);
}

/* d delta(m, R)/dR over the ball R (on one side of 1) */
static void env_slope(arb_t res, const arb_t m, const arb_t R, int side, const arb_t eps,
                      const arb_t ee, slong prec)
{
    arb_t a, b, u;
    arb_init(a);
    arb_init(b);
    arb_init(u);
    if (!roots(a, b, m, R, side, eps, prec)) {
        arb_zero(res);
        goto cleanup;
    }
    moment(u, a, m, prec);
    moment(res, b, m, prec);
    if (side > 0) /* (b - m) phi(b) - (a - m) phi(a) */
        arb_sub(res, res, u, prec);
    else /* (a - m) phi(a) - (b - m) phi(b) */
        arb_sub(res, u, res, prec);
    arb_mul(res, res, ee, prec);
    arb_div(res, res, R, prec);
    arb_mul_2exp_si(res, res, -1);
cleanup:
    arb_clear(a);
    arb_clear(b);
    arb_clear(u);
}

/* the evaluation context at the mean shift m */
static void ectx_init(ectx *x, double m, const arb_t eps, slong prec)
{
    arb_init(x->m);
    arb_init(x->eps);
    arb_init(x->ee);
    arb_init(x->rs2);
    x->prec = prec;
    arb_set_d(x->m, m);
    arb_set(x->eps, eps);
    arb_exp(x->ee, eps, prec);
    arb_sqrt_ui(x->rs2, 2, prec);
    arb_ui_div(x->rs2, 1, x->rs2, prec);
}

static void ectx_clear(ectx *x)
{
    arb_clear(x->m);
    arb_clear(x->eps);
    arb_clear(x->ee);
    arb_clear(x->rs2);
}

/* delta(D, R) at the double R: [lo, hi] */
static void member(ga_interval *iv, double R, const ectx *x)
{
    arb_t r, v;
    arb_init(r);
    arb_init(v);
    arb_set_d(r, R);
    env_delta(v, x->m, r, R > 1 ? 1 : R < 1 ? -1 : 0, x->eps, x->ee, x);
    ga_arb_bounds(iv, v);
    iv->lo = fmax(iv->lo, 0);
    iv->hi = fmin(iv->hi, 1);
    arb_clear(r);
    arb_clear(v);
}

/* The chain rule through W = N(m, 1) at the split eps1 (a ball): for every R between r_lo and
 * r_hi (on both sides of 1, or 1 itself) and |m| <= D, delta(m, R) <= delta(0, R; eps1) +
 * e^eps1 delta(D, 1; eps - eps1) <= max over R in {r_lo, r_hi} of the first + the second (the
 * first is a post-processing of its value at the ends, the second grows with |m|) */
static void chain_rule(ga_interval *out, double r_lo, double r_hi, const arb_t e1, const ectx *x)
{
    arb_t e2, ee1, r, v, w, zero;
    arb_init(e2);
    arb_init(ee1);
    arb_init(r);
    arb_init(v);
    arb_init(w);
    arb_init(zero);
    slong prec = x->prec;
    arb_sub(e2, x->eps, e1, prec);
    arb_exp(ee1, e1, prec);
    ga_interval iv;
    double cov = 0;
    for (int s = -1; s <= 1; s += 2) {
        double R = s > 0 ? r_hi : r_lo;
        if (R == 1)
            continue;
        arb_set_d(r, R);
        env_delta(v, zero, r, s, e1, ee1, x);
        ga_arb_bounds(&iv, v);
        cov = fmax(cov, iv.hi);
    }
    arb_exp(w, e2, prec);
    arb_one(r);
    env_delta(v, x->m, r, 0, e2, w, x);
    arb_mul(v, v, ee1, prec);
    arb_set_d(w, cov);
    arb_add(v, v, w, prec);
    ga_arb_bounds(out, v);
    out->lo = fmax(out->lo, 0);
    out->hi = fmin(out->hi, 1);
    arb_clear(e2);
    arb_clear(ee1);
    arb_clear(r);
    arb_clear(v);
    arb_clear(w);
    arb_clear(zero);
}

/* the bound of (3) on |R - 1| <= g: the chain rule at eps1 = eps 2^-20 */
static double center_bound(const ectx *x)
{
    arb_t e1;
    arb_init(e1);
    arb_mul_2exp_si(e1, x->eps, -20);
    ga_interval iv;
    chain_rule(&iv, 1 - ENV_GAP, 1 + ENV_GAP, e1, x); /* (exact doubles) */
    arb_clear(e1);
    return iv.hi;
}

typedef struct {
    double r0, r1; /* the cell, on one side of 1 */
    double h0, h1; /* delta's upper bounds at its ends */
    double up;
} cell_t;

/* the enclosure of d delta(D, R)/dR over the cell */
static void cell_slope(ga_interval *s, const cell_t *c, const ectx *x)
{
    arf_t lo, hi;
    arb_t r, v;
    arf_init(lo);
    arf_init(hi);
    arb_init(r);
    arb_init(v);
    arf_set_d(lo, c->r0);
    arf_set_d(hi, c->r1);
    arb_set_interval_arf(r, lo, hi, x->prec);
    env_slope(v, x->m, r, c->r0 >= 1 ? 1 : -1, x->eps, x->ee, x->prec);
    ga_arb_bounds(s, v);
    arf_clear(lo);
    arf_clear(hi);
    arb_clear(r);
    arb_clear(v);
}

/* the bound of (2) on the cell */
static void cell_bound(cell_t *c, const ectx *x)
{
    arb_t r, v;
    arb_init(r);
    arb_init(v);
    ga_interval s;
    cell_slope(&s, c, x);
    arb_set_d(v, c->r1);
    arb_set_d(r, c->r0);
    arb_sub(v, v, r, x->prec); /* w = R1 - R0 */
    ga_interval w;
    ga_arb_bounds(&w, v);
    double up = INFINITY;
    if (isfinite(s.lo) && isfinite(s.hi)) {
        /* (products of doubles rounded up by a relative 4 ulps: outward) */
        double u0 = c->h0 + w.hi * fmax(s.hi, 0) * (1 + 4 * DBL_EPSILON);
        double u1 = c->h1 + w.hi * fmax(-s.lo, 0) * (1 + 4 * DBL_EPSILON);
        up = fmin(nextafter(u0, INFINITY), nextafter(u1, INFINITY));
    }
    c->up = fmin(up, 1);
    arb_clear(r);
    arb_clear(v);
}

int ga_pair_envelope_slope(double *lo, double *hi, double m, double r0, double r1, double eps)
{
    if (!(r0 > 0 && r0 <= r1 && (r1 < 1 || r0 > 1) && m >= 0 && eps >= 0 && isfinite(r1)))
        return GA_EINVAL;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    arb_t e;
    arb_init(e);
    arb_set_d(e, eps);
    ectx x;
    ectx_init(&x, m, e, 128);
    cell_t c = {r0, r1, 0, 0, 0};
    ga_interval iv;
    cell_slope(&iv, &c, &x);
    *lo = iv.lo;
    *hi = iv.hi;
    ectx_clear(&x);
    arb_clear(e);
    return GA_OK;
}

/* the double in the cells' range nearest a member's: R clamped into [rin_lo, rin_hi] */
static double inside(const env_t *E, double R)
{
    return fmin(fmax(R, E->rin_lo), E->rin_hi);
}

/*
 * The bracket [*lb, *ub] of the supremum at eps (a ball) by branch and bound to the relative
 * tolerance tol. GA_OK at tol, GA_ETOL at the cell cap (the bracket still holds), GA_ETIME
 * past the deadline (likewise), GA_ENOMEM.
 */
static int env_sup(double *lb, double *ub, const env_t *E, const arb_t eps, double tol,
                   double deadline, slong prec)
{
    ectx x;
    ectx_init(&x, E->in.mean_bound, eps, prec);
    cell_t *c = NULL;
    size_t nc = 0;
    int rc = GA_OK;
    ga_interval iv;
    member(&iv, 1, &x);
    *lb = iv.lo;
    double center = E->in.log_ratio_bound > 0 ? center_bound(&x) : iv.hi;
    c = malloc(ENV_MAXCELLS * sizeof *c);
    if (!c) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    for (int side = -1; side <= 1 && E->in.log_ratio_bound > 0; side += 2) {
        double from = 1 + side * ENV_GAP, to = side > 0 ? E->rout_hi : E->rout_lo;
        if (side > 0 ? !(to > from) : !(to < from))
            continue;
        double t0 = log(from), t1 = log(to), prev = from;
        ga_interval pv;
        member(&pv, prev, &x);
        for (int k = 1; k <= ENV_CELLS0; k++) {
            double r = k == ENV_CELLS0 ? to : exp(t0 + (t1 - t0) * k / ENV_CELLS0);
            ga_interval cv;
            member(&cv, r, &x);
            if (r == inside(E, r))
                *lb = fmax(*lb, cv.lo);
            else { /* (the outer end: a member just inside) */
                ga_interval mv;
                member(&mv, inside(E, r), &x);
                *lb = fmax(*lb, mv.lo);
            }
            cell_t *q = &c[nc++];
            q->r0 = side > 0 ? prev : r;
            q->r1 = side > 0 ? r : prev;
            q->h0 = side > 0 ? pv.hi : cv.hi;
            q->h1 = side > 0 ? cv.hi : pv.hi;
            cell_bound(q, &x);
            prev = r;
            pv = cv;
        }
    }
    for (;;) {
        size_t k = 0;
        double top = center;
        for (size_t i = 0; i < nc; i++)
            if (c[i].up > top) {
                top = c[i].up;
                k = i + 1;
            }
        *ub = top;
        if (top <= *lb * (1 + tol) || top <= 1e-300)
            break;
        if (k == 0 || nc >= ENV_MAXCELLS) { /* (the center cell cannot be narrowed) */
            rc = GA_ETOL;
            break;
        }
        if (ga_expired(deadline)) {
            rc = GA_ETIME;
            break;
        }
        cell_t *q = &c[k - 1];
        double mid = 0.5 * (q->r0 + q->r1);
        if (!(mid > q->r0 && mid < q->r1)) {
            rc = GA_ETOL;
            break;
        }
        member(&iv, mid, &x);
        if (mid == inside(E, mid)) /* (a member: not beyond e^+-rho by the outward rounding) */
            *lb = fmax(*lb, iv.lo);
        cell_t *n = &c[nc++];
        *n = *q;
        n->r0 = mid;
        n->h0 = iv.hi;
        q->r1 = mid;
        q->h1 = iv.hi;
        cell_bound(q, &x);
        cell_bound(n, &x);
    }
cleanup:
    free(c);
    ectx_clear(&x);
    *lb = fmin(*lb, *ub);
    return rc;
}

/* the chain-rule bound over the whole envelope at eps1 (a double in [0, eps]): its ball's
 * upper end, the lower one in *lo */
static double chain_at(double *lo, double e1, const env_t *E, const ectx *x)
{
    arb_t a;
    arb_init(a);
    arb_set_d(a, e1);
    ga_interval iv;
    chain_rule(&iv, E->rout_lo, E->rout_hi, a, x);
    arb_clear(a);
    *lo = iv.lo;
    return iv.hi;
}

/* The chain-rule bound of an any-direction envelope at eps (a ball whose middle is em): its
 * enclosure [*lb, *ub] at the best eps1 found (the bound is that value: there is no bracket
 * to narrow) */
static int env_chain(double *lb, double *ub, const env_t *E, const arb_t eps, double em,
                     double deadline, slong prec)
{
    enum { N = 64 };
    ectx x;
    ectx_init(&x, E->in.mean_bound, eps, prec);
    double best = INFINITY, blo = 0, l1, l2;
    int kb = 0, rc = GA_OK;
    em = fmax(em, 0);
    for (int k = 0; k <= N; k++) {
        double v = chain_at(&l1, em * k / N, E, &x);
        if (v < best)
            best = v, blo = l1, kb = k;
    }
    double lo = em * (kb > 0 ? kb - 1 : 0) / N, hi = em * (kb < N ? kb + 1 : N) / N;
    const double g = 0.5 * (sqrt(5.0) - 1);
    for (int it = 0; it < 40 && hi - lo > 1e-12 * (1 + em); it++) {
        if (ga_expired(deadline)) {
            rc = GA_ETIME;
            break;
        }
        double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
        double f1 = chain_at(&l1, x1, E, &x), f2 = chain_at(&l2, x2, E, &x);
        if (f1 <= f2)
            hi = x2;
        else
            lo = x1;
        if (fmin(f1, f2) < best)
            best = fmin(f1, f2), blo = f1 <= f2 ? l1 : l2;
    }
    ectx_clear(&x);
    *lb = fmin(blo, best);
    *ub = best;
    return rc;
}

static int env_delta_pair(ga_delta *out, const ga_pair *p, double eps, int method,
                          const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    (void)w;
    if (method != GA_DELTA_AUTO && method != GA_DELTA_DIRECT)
        return GA_EDOM;
    if (!(eps >= 0))
        return GA_EDOM;
    arb_t e;
    arb_init(e);
    arb_set_d(e, eps);
    double lb = 0, ub = 1;
    const env_t *E = p->input;
    int rc = E->in.any_direction
                 ? env_chain(&lb, &ub, E, e, eps, o->deadline, 128)
                 : env_sup(&lb, &ub, E, e, fmax(ENV_TOL, fmin(o->epsrel, 1e-2)), o->deadline, 128);
    arb_clear(e);
    if (rc == GA_ETOL)
        rc = ub - lb <= 1e-2 * ub ? GA_OK : GA_ETOL;
    out->xy.val = out->yx.val = 0.5 * (lb + ub);
    out->xy.err = out->yx.err = 0.5 * (ub - lb);
    out->method = GA_DELTA_DIRECT;
    return rc;
}

static int env_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *pin,
                          const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    (void)pin;
    (void)txt;
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    memset(out, 0, sizeof *out);
    int digits = o.digits < ENV_CERT_DIGITS ? o.digits : ENV_CERT_DIGITS;
    arb_t e;
    arb_init(e);
    double lb = 0, ub = 1;
    int rc = arb_set_str(e, eps, 256) || !arb_is_nonnegative(e) ? GA_EINVAL : GA_OK;
    const env_t *E = p->input;
    if (rc == GA_OK) {
        ga_interval ei;
        ga_arb_bounds(&ei, e);
        rc = E->in.any_direction ? env_chain(&lb, &ub, E, e, 0.5 * (ei.lo + ei.hi), o.deadline, 192)
                                 : env_sup(&lb, &ub, E, e, ENV_CERT_TOL, o.deadline, 192);
    }
    arb_clear(e);
    if (rc == GA_ETOL)
        rc = GA_OK;
    if (rc != GA_OK)
        lb = 0, ub = 1;
    out->xy.lo = out->yx.lo = lb;
    out->xy.hi = out->yx.hi = ub;
    ga_fmt_bound(out->xy_lo, sizeof out->xy_lo, lb, 0, digits + 3);
    ga_fmt_bound(out->xy_hi, sizeof out->xy_hi, ub, 1, digits + 3);
    memcpy(out->yx_lo, out->xy_lo, sizeof out->yx_lo);
    memcpy(out->yx_hi, out->xy_hi, sizeof out->yx_hi);
    out->precision_bits = 192;
    if (rc == GA_OK && ub - lb > pow(10, -digits) * ub && ub > 1e-300)
        rc = GA_EPREC; /* (below 1e-300 the doubles end the bracket's narrowing) */
    return rc;
}

/* the member of largest delta on a grid of 401 ratios (where the supremum is, roughly) */
static void env_argmax(double *ratio, const ga_pair *p, double eps)
{
    const env_t *E = p->input;
    arb_t e;
    arb_init(e);
    arb_set_d(e, eps);
    ectx x;
    ectx_init(&x, E->in.mean_bound, e, 128);
    ga_interval iv;
    double best = -1;
    *ratio = 1;
    for (int k = 0; k <= 400; k++) {
        double r = inside(E, exp(-E->in.log_ratio_bound + 2 * E->in.log_ratio_bound * k / 400));
        member(&iv, r, &x);
        if (iv.lo > best) {
            best = iv.lo;
            *ratio = r;
        }
    }
    ectx_clear(&x);
    arb_clear(e);
}

static const char *env_no_renyi(const ga_pair *p)
{
    (void)p;
    return "the supremum over a sensitivity envelope (an upper bound of every neighbour's profile)";
}

static int env_describe(char *text, size_t n, double *px, double *py, const ga_pair *p,
                        double eps, int dir)
{
    (void)dir;
    const env_t *E = p->input;
    double r = 1;
    *px = *py = NAN;
    if (E->in.any_direction) {
        snprintf(text, n, "an upper bound, not an event: the chain rule over the envelope (every "
                 "pair N(m, I + (r - 1) w w^T), N(0, I) with |m| <= %.6g in any direction and "
                 "|log r| <= %.6g): delta of the variance change at eps1 plus e^eps1 times the mean "
                 "shift's at %.6g - eps1, the least over eps1", E->in.mean_bound,
                 E->in.log_ratio_bound, eps);
        return GA_OK;
    }
    env_argmax(&r, p, eps);
    snprintf(text, n, "an upper bound, not an event: the supremum over the envelope (every "
             "ordered pair N(mu, s), N(mu', s') with |mu - mu'|/sqrt(s') <= %.6g and |log(s/s')| "
             "<= %.6g), near the mean shift %.6g at the variance ratio %.6g at eps = %.6g",
             E->in.mean_bound, E->in.log_ratio_bound, E->in.mean_bound, r, eps);
    return GA_OK;
}

int ga_pair_reduce_envelope(ga_pair **out, const ga_envelope_input *in, char *msg, size_t msglen)
{
    *out = NULL;
    if (!(in->mean_bound > 0 && in->mean_bound <= 1e6) ||
        !(in->log_ratio_bound >= 0 && in->log_ratio_bound <= 20) ||
        !(in->any_direction == 0 || in->any_direction == 1)) {
        ga_msg(msg, msglen, "envelope pair: need 0 < mean_bound <= 1e6, 0 <= log_ratio_bound "
               "<= 20 and any_direction 0 or 1 (got %.17g, %.17g, %d)", in->mean_bound,
               in->log_ratio_bound, in->any_direction);
        return GA_EINVAL;
    }
    const char *why = NULL;
    if (!ga_cert_available(&why)) { /* (every number here is a ball, estimates included) */
        ga_msg(msg, msglen, "envelope pair: computed in ball arithmetic, and %s", why ? why : "FLINT/Arb is unavailable");
        return GA_EDEP;
    }
    ga_pair *p = calloc(1, sizeof *p);
    env_t *E = calloc(1, sizeof *E);
    if (!p || !E) {
        free(p);
        free(E);
        ga_msg(msg, msglen, "%s", "out of memory building an envelope pair");
        return GA_ENOMEM;
    }
    E->in = *in;
    /* e^-rho and e^rho in Arb, rounded inward (members) and outward (cells) */
    arb_t r;
    arb_init(r);
    ga_interval iv;
    arb_set_d(r, in->log_ratio_bound);
    arb_exp(r, r, 128);
    ga_arb_bounds(&iv, r);
    E->rin_hi = iv.lo, E->rout_hi = iv.hi;
    arb_set_d(r, -in->log_ratio_bound);
    arb_exp(r, r, 128);
    ga_arb_bounds(&iv, r);
    E->rin_lo = iv.hi, E->rout_lo = iv.lo;
    arb_clear(r);
    if (in->log_ratio_bound == 0)
        E->rin_lo = E->rin_hi = E->rout_lo = E->rout_hi = 1;
    pr_input_pair(p, &ga_pair_type_envelope, E);
    *out = p;
    return GA_OK;
}

const ga_pair_type ga_pair_type_envelope = {
    "sensitivity envelope", env_delta_pair, pr_renyi_none, env_delta_cert, NULL, NULL, NULL,
    env_describe, env_no_renyi,
    "the supremum of delta over a one-dimensional sensitivity envelope (every pair of normal "
    "laws within a mean shift and a log variance ratio): at the largest mean shift (delta grows "
    "with it), over the variance ratio by branch and bound on cells bounded by delta at an end "
    "plus the cell's width times its slope enclosed in ball arithmetic (Arb's erfc), the "
    "cell around ratio 1 by the chain rule of the hockey-stick divergence; a rigorous bracket, "
    "the estimate its middle (a multivariate output's envelope: that chain rule through the "
    "mean-shifted law, an upper bound, in ball arithmetic)",
    NULL,
    NULL,
    0,
};

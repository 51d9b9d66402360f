/*
 * ptr_arb.c - the certified bracket of a propose-test-release ridge release's delta (pair/ptr.c
 * states the bounds): on the cells the double-precision evaluation ended with, every cell's
 * mass, level, t and event probabilities are balls (Arb's erfc and regularized incomplete
 * gamma functions), the monotone integrand is bounded at the cells' ends as in ptr.c, and the
 * sums' outer ends are the bracket (Laplace test noise: its tails and log-likelihood ratio from
 * Arb's exponential). The pair's numbers (test means, eigenvalues, components) are taken as
 * exact binary numbers.
 */
#include "numerics/arb.h"
#include "pair/internal.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    const ga_ptr *P;
    int pbig, upper;
    slong prec;
    arb_t eps, ee, c, mP, mQ, tau, h; /* h = r/2 */
    arb_t t0, t1, a1; /* the lower bound's statistic, s_small(rho) = (a1 + rho t1) / t0 */
} actx;

/* r += v (a double, exact) */
static void add_d(arb_t r, double v, slong prec)
{
    arb_t a;
    arb_init(a);
    arb_set_d(a, v);
    arb_add(r, r, a, prec);
    arb_clear(a);
}

/* rho(y) in balls */
static void rho_arb(arb_t rho, const ga_ptr_input *in, const arb_t y, slong prec)
{
    arb_t z;
    arb_init(z);
    arb_set(rho, y);
    add_d(rho, -in->margin, prec);
    arb_zero(z);
    arb_max(rho, rho, z, prec);
    arb_neg(rho, rho);
    add_d(rho, in->target, prec);
    arb_max(rho, rho, z, prec);
    arb_set_d(z, in->scale);
    arb_mul(rho, rho, z, prec);
    arb_clear(z);
}

/* t(rho) = sum c2 / (mu + rho); 0 when a denominator is not proven positive (t unbounded) */
static int t_arb(arb_t t, const ga_ptr_input *in, const arb_t rho, slong prec)
{
    arb_t den, a;
    arb_init(den);
    arb_init(a);
    arb_zero(t);
    int ok = 1;
    for (size_t i = 0; i < in->d && ok; i++) {
        if (!(in->c2[i] > 0))
            continue;
        arb_set_d(den, in->mu[i]);
        arb_add(den, den, rho, prec);
        if (!arb_is_positive(den)) {
            ok = 0;
            break;
        }
        arb_set_d(a, in->c2[i]);
        arb_div(a, a, den, prec);
        arb_add(t, t, a, prec);
    }
    arb_clear(den);
    arb_clear(a);
    return ok;
}

/* P(h, z) for 0 <= z <= h + 1 by its series e^-z z^h / Gamma(h + 1) sum_k z^k / ((h + 1)..(h +
 * k)), the terms' ratios z / (h + k) decreasing below 1, the rest after the last term bounded
 * by a geometric series (Arb's lower gamma function loses every digit on balls there) */
static void lower_series(arb_t res, const arb_t h, const arb_t z, slong prec)
{
    arb_t term, sum, q, tol, a;
    arb_init(term);
    arb_init(sum);
    arb_init(q);
    arb_init(tol);
    arb_init(a);
    arb_one(term);
    arb_one(sum);
    arb_one(tol);
    arb_mul_2exp_si(tol, tol, -prec - 8);
    for (ulong k = 1; k < 1000000; k++) {
        arb_add_ui(q, h, k, prec);
        arb_div(q, z, q, prec); /* z / (h + k) */
        arb_mul(term, term, q, prec);
        arb_add(sum, sum, term, prec);
        arb_add_ui(a, h, k + 1, prec);
        arb_div(q, z, a, prec); /* the next ratio bounds every later one */
        arb_div(a, term, sum, prec);
        if (arb_lt(a, tol) && arb_lt(q, tol) == 0 && arb_is_positive(q)) {
            arb_one(a);
            arb_mul_2exp_si(a, a, -1);
            if (arb_lt(q, a)) { /* rest <= term q / (1 - q) <= 2 term q */
                arb_mul(a, term, q, prec);
                arb_mul_2exp_si(a, a, 1);
                arb_get_ubound_arf(arb_midref(q), a, prec);
                arb_add_error_arf(sum, arb_midref(q));
                break;
            }
        }
        if (!arb_is_finite(sum))
            break;
    }
    ga_gamma_prefactor_arb(a, h, z, prec);
    arb_mul(res, sum, a, prec);
    arb_clear(term);
    arb_clear(sum);
    arb_clear(q);
    arb_clear(tol);
    arb_clear(a);
}

/* chi^2 tail in balls: upper Q(h, x/2) or lower P(h, x/2), x >= 0 (the lower one from its
 * series up to the mean, as 1 - Q beyond, where P >= 1/2 loses nothing) */
static void chi2_arb(arb_t res, const arb_t h, const arb_t x, int up, slong prec)
{
    arb_t z, b;
    arb_init(z);
    arb_init(b);
    arb_mul_2exp_si(z, x, -1);
    arb_add_ui(b, h, 1, prec);
    if (up) {
        arb_hypgeom_gamma_upper(res, h, z, 1, prec);
    } else if (arb_is_zero(z)) {
        arb_zero(res);
    } else if (arb_is_positive(z) && arb_le(z, b)) {
        lower_series(res, h, z, prec);
    } else {
        arb_hypgeom_gamma_upper(res, h, z, 1, prec);
        arb_sub_ui(res, res, 1, prec);
        arb_neg(res, res);
    }
    arb_clear(z);
    arb_clear(b);
}

/* h(e; t) of pair/ptr.c in balls (t > 0 finite, e a ball) */
static void hockey_arb(arb_t res, const arb_t t, const arb_t e, const actx *x)
{
    slong prec = x->prec;
    arb_t k, lt, w, a, b, z;
    arb_init(k);
    arb_init(lt);
    arb_init(w);
    arb_init(a);
    arb_init(b);
    arb_init(z);
    arb_add_ui(k, t, 1, prec);
    arb_log1p(lt, t, prec);
    arb_mul_2exp_si(lt, lt, 1);
    arb_mul(lt, lt, x->h, prec); /* r log(1 + t) */
    if (x->pbig) {
        arb_mul_2exp_si(w, e, 1);
        arb_add(w, w, lt, prec);
    } else {
        arb_mul_2exp_si(w, e, 1);
        arb_sub(w, lt, w, prec);
    }
    arb_mul(w, w, k, prec);
    arb_div(w, w, t, prec);
    arb_zero(z);
    arb_max(w, w, z, prec);
    arb_div(z, w, k, prec); /* w / (1 + t) */
    chi2_arb(a, x->h, x->pbig ? z : w, x->pbig, prec);
    chi2_arb(b, x->h, x->pbig ? w : z, x->pbig, prec);
    arb_exp(k, e, prec);
    arb_mul(b, b, k, prec);
    arb_sub(res, a, b, prec);
    arb_zero(z);
    arb_max(res, res, z, prec);
    arb_clear(k);
    arb_clear(lt);
    arb_clear(w);
    arb_clear(a);
    arb_clear(b);
    arb_clear(z);
}

/* h at (e, t) with t from rho; tinf: t unbounded (h = 1) */
static void hockey_at(arb_t res, const arb_t e, const arb_t t, int tfin, const actx *x)
{
    if (!tfin) {
        arb_one(res);
        return;
    }
    if (arb_is_zero(t)) {
        arb_t z;
        arb_init(z);
        arb_expm1(res, e, x->prec);
        arb_neg(res, res);
        arb_zero(z);
        arb_max(res, res, z, x->prec);
        arb_clear(z);
        return;
    }
    hockey_arb(res, t, e, x);
}

/* the cells' first (side 0: alpha) or last (side 1: alpha + g, as a ball: its double may be
 * rounded) end */
static void ptr_end(arb_t r, const ga_ptr_input *in, int side, slong prec)
{
    arb_set_d(r, in->margin);
    if (side)
        add_d(r, in->target, prec);
}

/* P[y >= a] for the test's value y of mean m: Gaussian (standard deviation tau) or Laplace
 * (scale tau) */
static void upper_tail(arb_t res, const arb_t a, const arb_t m, const actx *x)
{
    arb_t z;
    arb_init(z);
    arb_sub(z, a, m, x->prec);
    arb_div(z, z, x->tau, x->prec);
    if (x->P->in.test_laplace && !arb_is_nonnegative(z) && !arb_is_negative(z)) {
        /* the sign undecided: |G(z) - 1/2| <= |z|/2 */
        arf_t u;
        arf_init(u);
        arb_get_abs_ubound_arf(u, z, x->prec);
        arb_one(res);
        arb_mul_2exp_si(res, res, -1);
        arb_set_arf(z, u);
        arb_mul_2exp_si(z, z, -1);
        arb_get_ubound_arf(u, z, x->prec);
        arb_add_error_arf(res, u);
        arf_clear(u);
        arb_clear(z);
        return;
    }
    if (x->P->in.test_laplace) {
        int up = arb_is_nonnegative(z);
        if (!up)
            arb_neg(z, z);
        arb_neg(z, z);
        arb_exp(res, z, x->prec);
        arb_mul_2exp_si(res, res, -1); /* e^{-|z|} / 2 */
        if (!up) {
            arb_sub_ui(res, res, 1, x->prec);
            arb_neg(res, res);
        }
        arb_clear(z);
        return;
    }
    arb_t P;
    arb_init(P);
    ga_arb_normal_tails(P, res, z, NULL, x->prec);
    arb_clear(P);
    arb_clear(z);
}

/* the level eps - l(y) */
static void level(arb_t e, const arb_t y, const actx *x)
{
    arb_t a, b;
    arb_init(a);
    arb_init(b);
    if (x->P->in.test_laplace) { /* l(y) = (|y - mQ| - |y - mP|) / b */
        arb_set(b, y);
        arb_sub(a, b, x->mQ, x->prec);
        arb_abs(a, a);
        arb_sub(b, b, x->mP, x->prec);
        arb_abs(b, b);
        arb_sub(a, a, b, x->prec);
        arb_div(a, a, x->tau, x->prec);
        arb_sub(e, x->eps, a, x->prec);
        arb_clear(a);
        arb_clear(b);
        return;
    }
    arb_sub(a, x->mP, x->mQ, x->prec);
    arb_mul_2exp_si(b, y, 1);
    arb_sub(b, b, x->mP, x->prec);
    arb_sub(b, b, x->mQ, x->prec);
    arb_mul(a, a, b, x->prec);
    arb_sqr(b, x->tau, x->prec);
    arb_mul_2exp_si(b, b, 1);
    arb_div(a, a, b, x->prec);
    arb_sub(e, x->eps, a, x->prec);
    arb_clear(a);
    arb_clear(b);
}

/* x's t0, t1, a1 of the lower bound's statistic (pair/ptr.c) from the exact inputs */
static void statistic_arb(actx *x)
{
    const ga_ptr *P = x->P;
    slong prec = x->prec;
    arb_t den, a;
    arb_init(den);
    arb_init(a);
    for (size_t i = 0; i < P->in.d; i++) {
        if (!(P->in.c2[i] > 0) || !(P->in.mu[i] + P->rho0 > 0))
            continue;
        arb_set_d(den, P->in.mu[i]);
        add_d(den, P->rho0, prec);
        arb_set_d(a, P->in.c2[i]);
        arb_div(a, a, den, prec);
        arb_add(x->t0, x->t0, a, prec);
        arb_div(a, a, den, prec);
        arb_add(x->t1, x->t1, a, prec);
        arb_set_d(den, P->in.mu[i]);
        arb_mul(a, a, den, prec);
        arb_add(x->a1, x->a1, a, prec);
    }
    arb_clear(den);
    arb_clear(a);
}

/* the lower bound's event probability given rho under the big (1) or small law */
static void event_arb(arb_t res, const arb_t rho, int big, const actx *x)
{
    slong prec = x->prec;
    arb_t s;
    arb_init(s);
    arb_mul(s, rho, x->t1, prec);
    arb_add(s, s, x->a1, prec);
    arb_div(s, s, x->t0, prec);
    if (big)
        arb_add(s, s, x->t0, prec);
    if (arb_is_zero(s)) { /* T = 0 surely (no noise along u, the small dataset at rho = 0) */
        if (x->pbig)
            arb_zero(res);
        else
            arb_one(res);
    } else if (!arb_is_positive(s)) {
        arb_zero(res); /* [-1, 1]: a probability, not resolved */
        mag_set_ui_2exp_si(arb_radref(res), 1, 0);
    } else {
        arb_div(s, x->c, s, prec);
        chi2_arb(res, x->h, s, x->pbig, prec);
    }
    arb_clear(s);
}

/* lo, hi += the atoms' (upper) or the constant ends' (lower) exact part */
static void ends_arb(arb_t lo, arb_t hi, const actx *x)
{
    const ga_ptr_input *in = &x->P->in;
    slong prec = x->prec;
    arb_t mp, mq, rho, t, e, v, w, at;
    arb_init(at);
    arb_init(mp);
    arb_init(mq);
    arb_init(rho);
    arb_init(t);
    arb_init(e);
    arb_init(v);
    arb_init(w);
    for (int side = 0; side < 2; side++) {
        ptr_end(at, in, side, prec); /* alpha, or alpha + g exactly (a ball) */
        upper_tail(mp, at, x->mP, x);
        upper_tail(mq, at, x->mQ, x);
        if (!side) { /* P[y <= alpha] */
            arb_sub_ui(mp, mp, 1, prec);
            arb_neg(mp, mp);
            arb_sub_ui(mq, mq, 1, prec);
            arb_neg(mq, mq);
        }
        if (side) {
            arb_zero(rho);
        } else { /* c g */
            arb_set_d(rho, in->scale);
            arb_set_d(v, in->target);
            arb_mul(rho, rho, v, prec);
        }
        if (x->upper && !(arb_is_positive(mp) && arb_is_positive(mq))) {
            /* an atom too far out for its masses' ratio: it adds at most its mass */
            arb_zero(v);
            arb_get_ubound_arf(arb_midref(w), mp, prec);
            arb_add_error_arf(v, arb_midref(w));
            arb_zero(w);
            arb_add(hi, hi, v, prec);
            arb_add(lo, lo, w, prec);
            continue;
        } else if (x->upper) {
            int tfin = t_arb(t, in, rho, prec);
            arb_div(e, mp, mq, prec);
            arb_log(e, e, prec);
            arb_sub(e, x->eps, e, prec);
            hockey_at(v, e, t, tfin, x);
            arb_mul(v, v, mp, prec);
        } else {
            event_arb(v, rho, x->pbig, x);
            arb_mul(v, v, mp, prec);
            event_arb(w, rho, !x->pbig, x);
            arb_mul(w, w, mq, prec);
            arb_mul(w, w, x->ee, prec);
            arb_sub(v, v, w, prec);
        }
        arb_add(lo, lo, v, prec);
        arb_add(hi, hi, v, prec);
    }
    arb_clear(at);
    arb_clear(mp);
    arb_clear(mq);
    arb_clear(rho);
    arb_clear(t);
    arb_clear(e);
    arb_clear(v);
    arb_clear(w);
}

/* per node k: P's (and Q's) upper tail, the level, t, the event probabilities */
typedef struct {
    arb_t gp, gq, e, t, pp, pq;
    int tfin;
} node_t;

static void node_init(node_t *n)
{
    arb_init(n->gp);
    arb_init(n->gq);
    arb_init(n->e);
    arb_init(n->t);
    arb_init(n->pp);
    arb_init(n->pq);
}

static void node_clear(node_t *n)
{
    arb_clear(n->gp);
    arb_clear(n->gq);
    arb_clear(n->e);
    arb_clear(n->t);
    arb_clear(n->pp);
    arb_clear(n->pq);
}

static void node_eval(node_t *n, const arb_t y, const actx *x)
{
    const ga_ptr_input *in = &x->P->in;
    arb_t rho;
    arb_init(rho);
    upper_tail(n->gp, y, x->mP, x);
    upper_tail(n->gq, y, x->mQ, x);
    rho_arb(rho, in, y, x->prec);
    if (x->upper) {
        level(n->e, y, x);
        n->tfin = t_arb(n->t, in, rho, x->prec);
    } else {
        event_arb(n->pp, rho, x->pbig, x);
        event_arb(n->pq, rho, !x->pbig, x);
    }
    arb_clear(rho);
}

int ga_ptr_delta_arb(ga_interval *iv, const ga_ptr *P, int pbig, const arb_t eps,
                     const ga_ptr_cells *cells, slong prec)
{
    const ga_ptr_input *in = &P->in;
    actx x;
    x.P = P;
    x.pbig = pbig;
    x.upper = in->bound;
    x.prec = prec;
    arb_init(x.eps);
    arb_init(x.ee);
    arb_init(x.c);
    arb_init(x.mP);
    arb_init(x.mQ);
    arb_init(x.tau);
    arb_init(x.h);
    arb_init(x.t0);
    arb_init(x.t1);
    arb_init(x.a1);
    if (!in->bound)
        statistic_arb(&x);
    arb_set(x.eps, eps);
    arb_exp(x.ee, eps, prec);
    arb_set_d(x.c, cells->c);
    arb_set_d(x.mP, pbig ? in->lmin_big : in->lmin_small);
    arb_set_d(x.mQ, pbig ? in->lmin_small : in->lmin_big);
    arb_set_d(x.tau, in->test_sigma);
    arb_set_d(x.h, in->columns);
    arb_mul_2exp_si(x.h, x.h, -1);
    arb_t lo, hi, a, b, m, u;
    arb_init(lo);
    arb_init(hi);
    arb_init(a);
    arb_init(b);
    arb_init(m);
    arb_init(u);
    node_t nd[2];
    node_init(&nd[0]);
    node_init(&nd[1]);
    int rc = GA_OK;
    ends_arb(lo, hi, &x);
    if (!in->bound && !(P->t0 > 0))
        rc = GA_EDOM;
    for (size_t k = 0; rc == GA_OK && k < cells->n; k++) {
        node_t *nb = &nd[k & 1], *na = &nd[(k + 1) & 1];
        /* the last node is alpha + g exactly: the cells meet the atom y >= alpha + g */
        if (k + 1 == cells->n)
            ptr_end(u, in, 1, prec);
        else
            arb_set_d(u, cells->y[k]);
        node_eval(nb, u, &x);
        if (k == 0)
            continue;
        arb_sub(m, na->gp, nb->gp, prec); /* P's mass of [y_{k-1}, y_k] */
        if (x.upper) {
            arb_min(u, na->e, nb->e, prec);
            hockey_at(a, u, nb->t, nb->tfin, &x); /* the larger t, the smaller level */
            arb_max(u, na->e, nb->e, prec);
            hockey_at(b, u, na->t, na->tfin, &x);
            arb_addmul(hi, m, a, prec);
            arb_addmul(lo, m, b, prec);
        } else {
            arb_max(a, na->pp, nb->pp, prec);
            arb_addmul(hi, m, a, prec);
            arb_min(a, na->pp, nb->pp, prec);
            arb_addmul(lo, m, a, prec);
            arb_sub(m, na->gq, nb->gq, prec); /* Q's mass */
            arb_mul(m, m, x.ee, prec);
            arb_min(a, na->pq, nb->pq, prec);
            arb_submul(hi, m, a, prec);
            arb_max(a, na->pq, nb->pq, prec);
            arb_submul(lo, m, a, prec);
        }
    }
    if (rc == GA_OK && !in->bound) {
        /* the one-bit release: max(S, 0) + max(1 - e^eps - S, 0) at S's ends */
        arb_zero(u);
        arb_sub_ui(a, x.ee, 1, prec);
        arb_neg(a, a); /* 1 - e^eps */
        arb_sub(b, a, hi, prec);
        arb_max(b, b, u, prec);
        arb_max(m, lo, u, prec);
        arb_add(m, m, b, prec); /* lower end */
        arb_sub(b, a, lo, prec);
        arb_max(b, b, u, prec);
        arb_max(hi, hi, u, prec);
        arb_add(hi, hi, b, prec);
        arb_swap(lo, m);
    }
    if (rc == GA_OK) {
        ga_interval l, h;
        ga_arb_bounds(&l, lo);
        ga_arb_bounds(&h, hi);
        iv->lo = fmax(l.lo, 0);
        iv->hi = fmin(h.hi, 1);
        if (!(isfinite(l.lo) && isfinite(h.hi)) || !(iv->lo <= iv->hi))
            rc = GA_EPREC;
    }
    node_clear(&nd[0]);
    node_clear(&nd[1]);
    arb_clear(lo);
    arb_clear(hi);
    arb_clear(a);
    arb_clear(b);
    arb_clear(m);
    arb_clear(u);
    arb_clear(x.eps);
    arb_clear(x.ee);
    arb_clear(x.c);
    arb_clear(x.mP);
    arb_clear(x.mQ);
    arb_clear(x.tau);
    arb_clear(x.h);
    arb_clear(x.t0);
    arb_clear(x.t1);
    arb_clear(x.a1);
    return rc;
}

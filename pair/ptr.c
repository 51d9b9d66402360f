/*
 * ptr.c - propose-test-release ridge releases in double precision (the NDIS paper's PTR
 * wrapper, arXiv 2309.01243 v4, Figure 4; the Gaussian mixing mechanism's Algorithm 1, Lev et
 * al.). The test's value y = lambda_min(D^T D) + N(0, tau^2) (or Laplace noise of scale tau:
 * the test's log-likelihood ratio is monotone in y either way) sets the ridge rho(y) = c max(g -
 * max(y - alpha, 0), 0) and r iid columns N(0, D^T D + (s0^2 + rho) I) are released. A
 * neighbour has one row x more (the "big" dataset, Gram A' + x x^T) or less (A'); at a fixed
 * rho the pair is, in the direction of x, the r-column pair of variances 1 + t and 1 with t(rho)
 * = x^T (A' + rho I)^-1 x = sum_i c2_i / (mu_i + rho), whose hockey-stick divergence at level e
 * is two chi^2_r tails at the likelihood ratio's threshold:
 *   big first:   Q_r(w / (1 + t)) - e^e Q_r(w),   w = (2 e + r log(1 + t)) (1 + t) / t,
 *   small first: P_r(w) - e^e P_r(w / (1 + t)),   w = (r log(1 + t) - 2 e) (1 + t) / t,
 * (w clamped at 0; Q_r, P_r the upper and lower tails), valid at any real level e. Adding
 * common noise and rescaling turns a ratio 1 + t into any smaller one, so the divergence
 * increases in t; it decreases in e.
 *
 * Upper bound: the release together with its ridge level (rho, M), of which the release is a
 * post-processing. rho has two atoms, y <= alpha (rho = c g) and y >= alpha + g (rho = 0), and is
 * one-to-one in y between them, so with l(y) = log phi_P(y) / phi_Q(y) (linear in y)
 *   delta_PQ(eps) = sum over the atoms of P_P[atom] h(eps - log(P_P[atom] / P_Q[atom]); t)
 *                   + int_alpha^{alpha+g} phi_P(y) h(eps - l(y); t(rho(y))) dy.
 * On a cell [a, b] the level eps - l(y) is monotone and t(rho(y)) increases with y, so the
 * integrand lies between h at (the larger level, t(a)) and at (the smaller level, t(b)): the
 * cells' sums bracket the integral (first order in the cells' widths). Cells are split where
 * the bracket is widest until it is within the tolerance.
 *
 * Lower bound: the release alone, post-processed to one statistic T = sum_j (u^T m_j)^2, u =
 * (A' + rho0 I)^-1 x with rho0 the ridge at the big dataset's test mean: given rho, T is
 * s(rho) chi^2_r with s_small(rho) = u^T (A' + rho I) u (scaled to 1 at rho0: (a1 + rho t1) / t0,
 * t0 = t(rho0), t1 = sum c2 / (mu + rho0)^2, a1 = sum c2 mu / (mu + rho0)^2) and s_big = s_small +
 * t0. The event T > c (big first) or T < c (small first) is a post-processing of the release to
 * one bit, whose delta max(0, S) + max(0, 1 - e^eps - S), S = P_P[E] - e^eps P_Q[E], is a lower
 * bound of the release's. T's tails are monotone in y, so the same cells bracket S. The
 * threshold c is chosen by a golden-section search on coarse cells (started at the fixed-rho0
 * pair's optimal threshold); any c gives a valid bound.
 */
#include "pair/internal.h"
#include "base/base.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PTR_CELLS0 64          /* the first cells over [alpha, alpha + g] */
#define PTR_SEARCH_TOL 1e-2    /* the threshold's search: its cells' relative width */
#define PTR_SEARCH_CELLS 128

double ga_ptr_rho(const ga_ptr_input *in, double y)
{
    double over = y - in->margin;
    double v = in->target - (over > 0 ? over : 0);
    return v > 0 ? in->scale * v : 0;
}

double ga_ptr_t(const ga_ptr_input *in, double rho)
{
    double t = 0;
    for (size_t i = 0; i < in->d; i++) {
        if (!(in->c2[i] > 0))
            continue;
        double den = in->mu[i] + rho;
        if (!(den > 0))
            return INFINITY;
        t += in->c2[i] / den;
    }
    return t;
}

/* chi^2 with 2h degrees of freedom: upper (up = 1) or lower tail at x (NaN when GSL fails) */
static double chi2_tail(double h, double x, int up)
{
    if (!(x > 0))
        return up ? 1 : 0;
    if (isinf(x))
        return up ? 0 : 1;
    gsl_sf_result r;
    int st = up ? gsl_sf_gamma_inc_Q_e(h, 0.5 * x, &r) : gsl_sf_gamma_inc_P_e(h, 0.5 * x, &r);
    if (st != GSL_SUCCESS && st != GSL_EUNDRFLW)
        return NAN;
    return st == GSL_EUNDRFLW ? 0 : r.val;
}

double ga_ptr_hockey(double t, double e, double r, int big)
{
    if (!(t > 0))
        return e < 0 ? -expm1(e) : 0;
    if (isinf(t))
        return 1;
    double h = 0.5 * r, k = (1 + t) / t, lt = log1p(t), v;
    double a, b; /* (b = 0 before e^e multiplies it: no inf times 0) */
    if (big) {
        double w = fmax((2 * e + r * lt) * k, 0);
        a = chi2_tail(h, w / (1 + t), 1);
        b = chi2_tail(h, w, 1);
    } else {
        double w = fmax((r * lt - 2 * e) * k, 0);
        a = chi2_tail(h, w, 0);
        b = chi2_tail(h, w / (1 + t), 0);
    }
    v = b == 0 ? a : a - exp(e) * b;
    return isnan(v) ? v : fmax(v, 0);
}

/* log P[y <= a] (lower = 1) or log P[y >= a] for the test's value y of mean m */
static double log_tail(double a, double m, const ga_ptr_input *in, int lower)
{
    double b = in->test_sigma;
    if (in->test_laplace) {
        double z = lower ? (a - m) / b : (m - a) / b; /* the tail is below a, or above it */
        return z < 0 ? z - M_LN2 : log1p(-0.5 * exp(-z));
    }
    double z = (a - m) / (b * M_SQRT2);
    return gsl_sf_log_erfc(lower ? -z : z) - M_LN2;
}

/* the test's value's lower and upper tails at y (mean m), each from its own formula */
static void test_tails(double *F, double *G, double y, double m, const ga_ptr_input *in)
{
    if (in->test_laplace) {
        double z = (y - m) / in->test_sigma;
        *F = z < 0 ? 0.5 * exp(z) : 1 - 0.5 * exp(-z);
        *G = z < 0 ? 1 - 0.5 * exp(z) : 0.5 * exp(-z);
        return;
    }
    double z = (y - m) / (in->test_sigma * M_SQRT2);
    *F = 0.5 * erfc(-z);
    *G = 0.5 * erfc(z);
}

void ga_ptr_lower_dir(ga_ptr *P)
{
    const ga_ptr_input *in = &P->in;
    P->rho0 = ga_ptr_rho(in, in->lmin_big);
    double t0 = 0, t1 = 0, a1 = 0;
    for (size_t i = 0; i < in->d; i++) {
        double den = in->mu[i] + P->rho0;
        if (!(in->c2[i] > 0) || !(den > 0))
            continue;
        t0 += in->c2[i] / den;
        t1 += in->c2[i] / (den * den);
        a1 += in->c2[i] * in->mu[i] / (den * den);
    }
    P->t0 = t0;
    P->t1 = t1;
    P->a1 = a1;
}

/* s(rho) of the lower bound's statistic under the big (1) or small law */
double ga_ptr_scale(const ga_ptr *P, double rho, int big)
{
    double s = (P->a1 + rho * P->t1) / P->t0;
    return big ? s + P->t0 : s;
}

/* ------------------------------------------------------------------ the cells */

typedef struct {
    const ga_ptr *P;
    int pbig;          /* P is the big dataset */
    int upper;         /* 1: the upper bound's integrand, 0: S of the lower bound */
    double eps, c, ee; /* level; event threshold; e^eps */
    double mP, mQ;
} cell_ctx;

/* the test's log-likelihood ratio l(y) = log phi_P(y) / phi_Q(y), monotone in y (increasing
 * where mP > mQ) for Gaussian and Laplace noise alike */
static double loglr(const cell_ctx *x, double y)
{
    double b = x->P->in.test_sigma;
    if (x->P->in.test_laplace)
        return (fabs(y - x->mQ) - fabs(y - x->mP)) / b;
    return (x->mP - x->mQ) * (2 * y - x->mP - x->mQ) / (2 * b * b);
}

/* T's event probability given y under the big or small law: T > c when P is big, T < c when
 * P is small */
static double event_prob(const cell_ctx *x, double y, int big)
{
    double s = ga_ptr_scale(x->P, ga_ptr_rho(&x->P->in, y), big);
    return chi2_tail(0.5 * x->P->in.columns, x->c / s, x->pbig);
}

/* what a cell needs of its ends: the test's tails under P and Q (lower F, upper G), and the
 * level and t (upper bound: h at them when the level falls as y grows, the larger t's side) or
 * the event's probabilities (lower bound) */
typedef struct {
    double y, Fp, Gp, Fq, Gq, e, t, h, pp, pq;
} node_t;

static void node_eval(node_t *n, double y, const cell_ctx *x)
{
    const ga_ptr_input *in = &x->P->in;
    n->y = y;
    test_tails(&n->Fp, &n->Gp, y, x->mP, in);
    test_tails(&n->Fq, &n->Gq, y, x->mQ, in);
    if (x->upper) {
        n->e = x->eps - loglr(x, y);
        n->t = ga_ptr_t(in, ga_ptr_rho(in, y));
        n->h = x->mP > x->mQ ? ga_ptr_hockey(n->t, n->e, in->columns, x->pbig) : NAN;
    } else {
        n->pp = event_prob(x, y, x->pbig);
        n->pq = event_prob(x, y, !x->pbig);
    }
}

/* P[a < y < b] of N(m, tau^2) from the ends' tails, the smaller ones where they cancel */
static double mass_of(double Fa, double Ga, double Fb, double Gb, double a, double b, double m)
{
    if (a >= m)
        return Ga - Gb;
    if (b <= m)
        return Fb - Fa;
    return 1 - Fa - Gb;
}

/* the bracket [*lo, *hi] of the cell [a, b]'s contribution. The level eps - l(y) is linear
 * and t(rho(y)) increases with y, so h lies between its values at (the larger level, t(a))
 * and (the smaller level, t(b)): the ends' own h when the level falls (mP > mQ). T's event
 * probabilities are monotone in y: the ends bound them. */
static void cell(double *lo, double *hi, const node_t *a, const node_t *b, const cell_ctx *x)
{
    const ga_ptr_input *in = &x->P->in;
    double mp = mass_of(a->Fp, a->Gp, b->Fp, b->Gp, a->y, b->y, x->mP);
    if (x->upper) {
        if (x->mP > x->mQ) {
            *hi = mp * b->h;
            *lo = mp * a->h;
        } else {
            *hi = mp * ga_ptr_hockey(b->t, fmin(a->e, b->e), in->columns, x->pbig);
            *lo = mp * ga_ptr_hockey(a->t, fmax(a->e, b->e), in->columns, x->pbig);
        }
        return;
    }
    double mq = mass_of(a->Fq, a->Gq, b->Fq, b->Gq, a->y, b->y, x->mQ);
    *lo = mp * fmin(a->pp, b->pp) - x->ee * mq * fmax(a->pq, b->pq);
    *hi = mp * fmax(a->pp, b->pp) - x->ee * mq * fmin(a->pq, b->pq);
}

/* the atoms' (upper) or constant ends' (lower) exact part */
static double ends(const cell_ctx *x)
{
    const ga_ptr_input *in = &x->P->in;
    double a = in->margin, b = in->margin + in->target, v = 0;
    for (int side = 0; side < 2; side++) {
        double at = side ? b : a;
        double lp = log_tail(at, x->mP, in, !side), lq = log_tail(at, x->mQ, in, !side);
        double rho = side ? 0 : in->scale * in->target;
        if (x->upper) {
            double t = ga_ptr_t(in, rho);
            if (lp > -INFINITY) /* (an atom P never reaches adds nothing) */
                v += exp(lp) * ga_ptr_hockey(t, x->eps - (lp - lq), in->columns, x->pbig);
        } else {
            double y = side ? b + 1 : a - 1; /* any point of the constant part */
            v += exp(lp) * event_prob(x, y, x->pbig) - x->ee * exp(lq) * event_prob(x, y, !x->pbig);
        }
    }
    return v;
}

typedef struct {
    size_t a, b; /* its ends' nodes */
    double lo, hi;
} cell_t;

/* The bracket of the cells' sum over [alpha, alpha + g], refined until its width is within
 * tol of its size, maxcells, or the deadline; *nodes (may be NULL) gets the final cells'
 * ends (n + 1 of them, malloc'd). Each end is evaluated once. GA_OK, GA_ENOMEM, GA_EDOM (an
 * evaluation failed). */
static int cells_sum(double *lo, double *hi, double **nodes, size_t *nn, const cell_ctx *x,
                     double tol, size_t maxcells, double deadline)
{
    const ga_ptr_input *in = &x->P->in;
    size_t n = PTR_CELLS0, cap = maxcells + PTR_CELLS0 + 1, nnode = n + 1;
    cell_t *c = malloc(cap * sizeof *c), *d = malloc(cap * sizeof *d);
    node_t *nd = malloc(2 * cap * sizeof *nd);
    int rc = GA_OK;
    if (!c || !d || !nd) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    double a0 = in->margin, w = in->target / PTR_CELLS0;
    for (size_t i = 0; i <= n; i++)
        node_eval(&nd[i], i == n ? a0 + in->target : a0 + w * (double)i, x);
    for (size_t i = 0; i < n; i++) {
        c[i] = (cell_t){i, i + 1, 0, 0};
        cell(&c[i].lo, &c[i].hi, &nd[i], &nd[i + 1], x);
    }
    for (;;) {
        double sl = 0, sh = 0;
        for (size_t i = 0; i < n; i++) {
            sl += c[i].lo;
            sh += c[i].hi;
        }
        if (isnan(sl) || isnan(sh)) {
            rc = GA_EDOM;
            goto cleanup;
        }
        *lo = sl;
        *hi = sh;
        double gap = sh - sl;
        if (gap <= tol * fmax(fabs(sl), fabs(sh)) || gap <= 1e-300 || n >= maxcells ||
            ga_expired(deadline))
            break;
        double thr = gap / (double)n;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const node_t *na = &nd[c[i].a], *nb = &nd[c[i].b];
            double mid = 0.5 * (na->y + nb->y);
            if (c[i].hi - c[i].lo >= thr && n + (m - i) < maxcells && mid > na->y && mid < nb->y) {
                size_t k = nnode++;
                node_eval(&nd[k], mid, x);
                d[m] = (cell_t){c[i].a, k, 0, 0};
                cell(&d[m].lo, &d[m].hi, na, &nd[k], x);
                d[m + 1] = (cell_t){k, c[i].b, 0, 0};
                cell(&d[m + 1].lo, &d[m + 1].hi, &nd[k], nb, x);
                m += 2;
            } else {
                d[m++] = c[i];
            }
        }
        if (m == n)
            break; /* nothing left to split */
        cell_t *t = c;
        c = d;
        d = t;
        n = m;
    }
    if (nodes) {
        *nodes = malloc((n + 1) * sizeof **nodes);
        if (!*nodes) {
            rc = GA_ENOMEM;
            goto cleanup;
        }
        for (size_t i = 0; i < n; i++)
            (*nodes)[i] = nd[c[i].a].y;
        (*nodes)[n] = nd[c[n - 1].b].y;
        *nn = n + 1;
    }
cleanup:
    free(c);
    free(d);
    free(nd);
    return rc;
}

/* S = P_P[E] - e^eps P_Q[E] at threshold c: its bracket */
static int lower_S(double *lo, double *hi, double **nodes, size_t *nn, cell_ctx *x,
                   double tol, size_t maxcells, double deadline)
{
    int rc = cells_sum(lo, hi, nodes, nn, x, tol, maxcells, deadline);
    double e = ends(x);
    *lo += e;
    *hi += e;
    return rc;
}

/* the one-bit release's delta from S's bracket */
static void bit_delta(double *lo, double *hi, double slo, double shi, double ee)
{
    *lo = fmax(slo, 0) + fmax(1 - ee - shi, 0);
    *hi = fmax(shi, 0) + fmax(1 - ee - slo, 0);
}

/* the threshold c of the lower bound at eps: golden section on log c over coarse cells */
static double lower_threshold(cell_ctx *x, double deadline)
{
    const ga_ptr *P = x->P;
    double r = P->in.columns, t = P->t0, lt = log1p(t), k = (1 + t) / t;
    double c0 = x->pbig ? (2 * x->eps + r * lt) * k : (r * lt - 2 * x->eps) * k;
    if (!(c0 > 0))
        c0 = r; /* (the fixed-rho0 pair has no event here: start at T's middle) */
    double a = log(c0) - 2, b = log(c0) + 2, g = 0.5 * (sqrt(5.0) - 1);
    double u = b - g * (b - a), v = a + g * (b - a), fu, fv, lo, hi;
    x->c = exp(u);
    lower_S(&lo, &hi, NULL, NULL, x, PTR_SEARCH_TOL, PTR_SEARCH_CELLS, deadline);
    fu = lo;
    x->c = exp(v);
    lower_S(&lo, &hi, NULL, NULL, x, PTR_SEARCH_TOL, PTR_SEARCH_CELLS, deadline);
    fv = lo;
    for (int it = 0; it < 40 && b - a > 1e-3 && !ga_expired(deadline); it++) {
        if (fu >= fv) {
            b = v;
            v = u;
            fv = fu;
            u = b - g * (b - a);
            x->c = exp(u);
            lower_S(&lo, &hi, NULL, NULL, x, PTR_SEARCH_TOL, PTR_SEARCH_CELLS, deadline);
            fu = lo;
        } else {
            a = u;
            u = v;
            fu = fv;
            v = a + g * (b - a);
            x->c = exp(v);
            lower_S(&lo, &hi, NULL, NULL, x, PTR_SEARCH_TOL, PTR_SEARCH_CELLS, deadline);
            fv = lo;
        }
    }
    return exp(fu >= fv ? u : v);
}

int ga_ptr_delta(double *lo, double *hi, ga_ptr_cells *cells, const ga_ptr *P, int pbig,
                 double eps, double tol, size_t maxcells, double deadline)
{
    const ga_ptr_input *in = &P->in;
    cell_ctx x = {P, pbig, in->bound, eps, 0, exp(eps), pbig ? in->lmin_big : in->lmin_small,
                  pbig ? in->lmin_small : in->lmin_big};
    double *nodes = NULL, slo, shi;
    size_t nn = 0;
    int rc;
    if (in->bound) {
        rc = cells_sum(&slo, &shi, cells ? &nodes : NULL, &nn, &x, tol, maxcells, deadline);
        double e = ends(&x);
        *lo = fmax(slo + e, 0);
        *hi = fmin(shi + e, 1);
    } else {
        if (!(P->t0 > 0)) { /* x = 0: the laws are equal */
            *lo = *hi = fmax(-expm1(eps), 0);
            rc = GA_OK;
        } else {
            x.c = lower_threshold(&x, deadline);
            rc = lower_S(&slo, &shi, cells ? &nodes : NULL, &nn, &x, tol, maxcells, deadline);
            bit_delta(lo, hi, slo, shi, x.ee);
            *hi = fmin(*hi, 1);
        }
    }
    if (!(*lo <= *hi) || isnan(*lo))
        rc = rc ? rc : GA_EDOM;
    if (cells) {
        cells->y = nodes;
        cells->n = nn;
        cells->c = x.c;
    } else {
        free(nodes);
    }
    return rc;
}

/*
 * ploss.c - one-dimensional privacy losses given by their moment generating function: the
 * Poisson-subsampled Gaussian mechanism and its compositions (double precision).
 *
 * One step of the subsampled Gaussian mechanism (rate q, noise multiplier sigma, sensitivity
 * 1; m = 1/sigma after scaling the output by 1/sigma) releases x with law
 *   P = (1 - q) N(0, 1) + q N(m, 1)  (the record is present: remove relation, X = P, Y = Q)
 *   Q = N(0, 1)                       (absent),
 * and the privacy loss log P/Q at x is l(x) = log(1 - q + q e^{m x - m^2/2}), increasing in x.
 * With M(w) = E_Q[(P/Q)^{1+w}] = int phi(x) e^{(1+w) l(x)} dx (entire in w), the cumulant
 * generating function of the loss under P is log M(z) and that of the negated loss under Q is
 * log M(-1 - z); the add relation swaps the roles. Independent steps add their losses, so a
 * composition of terms (q_j, m_j, T_j times, add_j) has
 *   K_XY(z) = sum_j T_j log M_j(s_j(z)),  s_j(z) = z (remove) or -1 - z (add),
 *   K_YX(z) = K_XY(-1 - z),
 * and delta_{X,Y}(eps) = E_X[(1 - e^{eps - L})_+] is the Bromwich integral
 *   (1/2 pi i) int_{c - i inf}^{c + i inf} e^{K(z) - z eps} / (z (z + 1)) dz,  c > 0,
 * or 1 + the same integral for -1 < c < 0 (the pole at 0 has residue M(0) = 1); c is the
 * saddle point of K(c) - c eps - log|c (c + 1)| on the side where it is smaller (the
 * integrand then has no cancellation at t = 0). This is the characteristic-function
 * accounting of Zhu, Dong & Wang (AISTATS 2022) written as one Bromwich integral (the same
 * kernel gaussaudit uses for Gaussian pairs, doc/design.md, section 2).
 *
 * M(w) by the trapezoid rule on the real line, whose error for an integrand analytic in the
 * strip |Im x| < d is at most 2 N / (e^{2 pi d / h} - 1), N the L1 norm on the strip's lines
 * (Trefethen & Weideman, SIAM Review 56 (2014), Theorem 5.1). l is analytic for
 * |Im(m x)| < pi; on |Im x| <= d with theta = m d <= pi/2, |phi(x + iy)| = phi(x) e^{y^2/2},
 * |Im l| <= theta and Re l lies between l(x) + log cos(theta/2) and l(x), so
 * N <= e^{d^2/2 + |t| theta} cos(theta/2)^{-max(0, -a)} M(a - 1) for w = a - 1 + i t.
 * The grid is truncated where the integrand is below its peak by e^-38; beyond
 * x_R = max(0, a m) the log-derivative of g = phi e^{a l} is <= -(x - x_R) (l' lies in
 * (0, m)), so the dropped tail is at most g(x_hi) / (x_hi - x_R), and symmetrically on the
 * left of x_L = min(0, a m). Errors of log M: these two bounds plus the rounding of each
 * node (the exponent's size times the unit roundoff); T_j times them for the composition.
 * A step with q = 1 is the Gaussian mechanism: log M(w) = w (1 + w) m^2 / 2 exactly.
 * Few identical steps (T <= 128) whose Bromwich integrand does not decay within the plan (few
 * steps of a small rate) are bracketed by discretised losses instead (pair/ploss_bracket.c).
 * One step alone (one term, T = 1) has the closed form of a threshold event (l is
 * monotone): delta_XY = q Qbar(tau - m) - (e^eps - 1 + q) Qbar(tau), tau = (log((e^eps - 1 +
 * q)/q) + m^2/2)/m, and delta_YX likewise below tau' where l = -eps.
 */
#include "pair/loss.h"

#include <float.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define LOG_SQRT_2PI 0.91893853320467274178
/* at most this many trapezoid nodes for one M(w), and for one Bromwich integral (about a
 * second): beyond, the evaluation fails (GA_EMAXITER) instead of running on (tiny sigma,
 * few steps of a tiny rate) */
#define GRID_CAP 200000
#define BROMWICH_NODE_CAP 30000000

int ga_ploss_check(const ga_ploss_term *t, size_t n, char *msg, size_t msglen)
{
    if (n == 0 || n > GA_PLOSS_MAX_TERMS) {
        ga_msg(msg, msglen, "a privacy loss needs 1 to %d terms (got %zu)", GA_PLOSS_MAX_TERMS, n);
        return GA_EINVAL;
    }
    for (size_t j = 0; j < n; j++) {
        if (!(t[j].q > 0 && t[j].q <= 1)) {
            ga_msg(msg, msglen, "term %zu: the sampling rate must be in (0, 1] (got %g)", j, t[j].q);
            return GA_EINVAL;
        }
        if (t[j].nu > 0) { /* a masked release: one step, no sampling */
            if (t[j].pts != 0 && !(t[j].pts >= 1 && t[j].pts <= 1e6 && t[j].pts == floor(t[j].pts) &&
                                   (fmod(t[j].pts, 2) == 0 || fmod(t[j].nu, 2) == 0))) {
                ga_msg(msg, msglen, "term %zu: synthetic points: 1..1e6 points, and the points or "
                       "the model's dimension even", j);
                return GA_EINVAL;
            }
            if (!(t[j].nu >= 1 && t[j].nu <= 1e9 && t[j].nu == floor(t[j].nu) && n == 1 &&
                  t[j].count == 1 && t[j].q == 1 && t[j].r == 0 && t[j].m >= 0 &&
                  t[j].m <= 1e4 && t[j].ly >= 0 && t[j].ly <= 1e8)) {
                ga_msg(msg, msglen, "term %zu: a masked release has 1..1e9 degrees of freedom, "
                       "noncentralities in [0, 1e8] and is a single release", j);
                return GA_EINVAL;
            }
            continue;
        }
        if (!(t[j].m > 0 && t[j].m <= 1e3)) {
            ga_msg(msg, msglen, "term %zu: 1/sigma must be in (0, 1000] (got %g)", j, t[j].m);
            return GA_EINVAL;
        }
        if (!(t[j].r == 0 || (t[j].r >= 1 && t[j].r <= 1e6 && t[j].r == floor(t[j].r) && n == 1 &&
                              t[j].count == 1))) {
            ga_msg(msg, msglen, "term %zu: a covariance step has 1..1e6 columns and is a single "
                   "release (got %g columns)", j, t[j].r);
            return GA_EINVAL;
        }
        if (!(t[j].count >= 1 && t[j].count <= GA_PLOSS_MAX_COUNT && t[j].count == floor(t[j].count))) {
            ga_msg(msg, msglen, "term %zu: the number of steps must be a whole number in 1..%g (got %g)",
                   j, GA_PLOSS_MAX_COUNT, t[j].count);
            return GA_EINVAL;
        }
    }
    return GA_OK;
}

/* ---------------------------------------------------------------- log M(w) of one step */

typedef ga_ploss_grid grid_t;

static double log_g(const ga_ploss_term *s, double log1mq, double a, double x)
{
    return -0.5 * x * x - LOG_SQRT_2PI + a * ga_step_loss(s, log1mq, x);
}

/* (log g)'(x) = -x + a l'(x), l'(x) = m / (1 + (1 - q)/rho(x)) in (0, m) */
static double dlog_g(const ga_ploss_term *s, double log1mq, double a, double x)
{
    double u = log1mq - (log(s->q) + s->m * x - 0.5 * s->m * s->m);
    return -x + a * s->m / (1 + exp(u));
}

/*
 * The grid. g = phi e^{a l} increases on (-inf, leftmost local maximum] and decreases on
 * [rightmost local maximum, inf) ((log g)' = -x + a l'(x) > 0 for x < min(0, a m) and < 0
 * for x > max(0, a m); the line -x meets the sigmoid a l' at most three times, so there are
 * at most two maxima). They are found by a scan of the sign of (log g)' over
 * [min(0, am) - 1, max(0, am) + 1]; the grid spans the points where g is within e^-45 of
 * its peak, extended to the monotone regions, and the tails beyond are bounded by
 * g(x_0)/|(log g)'| at the ends where log g is concave there (a < 0 everywhere; a >= 0 once
 * x - a m >= 1 on the right, x <= -1 on the left, where |(log g)'| >= 1 grows).
 */
static void make_grid_to(grid_t *g, const ga_ploss_term *s, double log1mq, double a, double t,
                         double lnrel)
{
    double m = s->m;
    /* the strip: theta = m d <= pi/2, narrower for a < 0 so that cos(theta/2)^a stays near
     * 1 (|a| theta^2/8 <= 2) */
    double d = fmin(fmin(M_PI / 2, a < 0 ? sqrt(16 / -a) : M_PI / 2) / m, 2.0), theta = m * d;
    double lcf = a < 0 ? a * log(cos(theta / 2)) : 0; /* log cos(theta/2)^{-max(0,-a)} >= 0 */
    /* 2 e^{d^2/2 + |t| theta + lcf} / (e^{2 pi d/h} - 1) <= e^-lnrel */
    double need = lnrel + M_LN2 + 0.5 * d * d + fabs(t) * theta + lcf;
    g->h = 2 * M_PI * d / need;
    g->d = d;
    g->disc = 2 * exp(0.5 * d * d + fabs(t) * theta + lcf) / expm1(2 * M_PI * d / g->h);
    double xl = fmin(0, a * m) - 1, xr = fmax(0, a * m) + 1;
    int ns = (int)fmin(4000, ceil((xr - xl) / 0.25));
    double step = (xr - xl) / ns, peak = -INFINITY, first = NAN, last = NAN;
    double prev = dlog_g(s, log1mq, a, xl); /* > 0 */
    for (int i = 1; i <= ns; i++) {
        double x = xl + step * i, dv = dlog_g(s, log1mq, a, x);
        if (prev > 0 && dv <= 0) { /* a local maximum in [x - step, x]: refine by bisection */
            double lo = x - step, hi = x;
            for (int k = 0; k < 60; k++) {
                double mid = 0.5 * (lo + hi);
                if (dlog_g(s, log1mq, a, mid) > 0)
                    lo = mid;
                else
                    hi = mid;
            }
            double v = log_g(s, log1mq, a, lo);
            if (v > peak)
                peak = v;
            if (isnan(first))
                first = lo;
            last = lo;
        }
        prev = dv;
    }
    if (isnan(first)) /* cannot happen ((log g)' changes sign on the scan); be safe */
        first = last = 0, peak = log_g(s, log1mq, a, 0);
    /* the outermost maxima within e^-45 of the peak */
    g->peak = peak;
    double lo = first, hi = last;
    while (log_g(s, log1mq, a, lo) > peak - lnrel - 6 || (a >= 0 && lo > -1))
        lo -= 0.5;
    while (log_g(s, log1mq, a, hi) > peak - lnrel - 6 || (a >= 0 && hi < a * m + 1))
        hi += 0.5;
    double dl = dlog_g(s, log1mq, a, lo), dr = -dlog_g(s, log1mq, a, hi);
    g->tail = exp(log_g(s, log1mq, a, lo) - peak) / fmax(dl, 1e-300) +
              exp(log_g(s, log1mq, a, hi) - peak) / fmax(dr, 1e-300);
    g->tail /= g->h; /* in units of the sum (h sum) */
    g->n = (size_t)ceil((hi - lo) / g->h) + 1;
    g->x0 = lo;
    g->capped = g->n > GRID_CAP;
    if (g->capped) { /* a coarser grid, whose error bound is then not met: disc = inf */
        g->n = GRID_CAP;
        g->h = (hi - lo) / (GRID_CAP - 1);
        g->disc = INFINITY;
    }
}

static void make_grid(grid_t *g, const ga_ploss_term *s, double log1mq, double a, double t)
{
    make_grid_to(g, s, log1mq, a, t, 39);
}

void ga_ploss_grid_make(ga_ploss_grid *g, const ga_ploss_term *s, double a, double t, double lnrel)
{
    make_grid_to(g, s, log1p(-s->q), a, t, lnrel);
}

/* log M(w) of one step, with an absolute error estimate of |M_true/M - 1| in *rel. */
static double complex step_logmgf(double *rel, const ga_ploss_term *s, double complex w,
                                  size_t *nodes)
{
    double a = 1 + creal(w), t = cimag(w);
    if (s->q == 1) {
        *rel = 8 * DBL_EPSILON * (1 + cabs(w * (1 + w)) * s->m * s->m);
        return w * (1 + w) * (0.5 * s->m * s->m);
    }
    double log1mq = log1p(-s->q);
    grid_t g;
    make_grid(&g, s, log1mq, a, t);
    /* compensated sums (Neumaier) of the scaled terms, and their magnitudes */
    double complex sum = 0, comp = 0;
    double mag = 0, rnd = 0;
    for (size_t k = 0; k < g.n; k++) {
        double x = g.x0 + (double)k * g.h, l = ga_step_loss(s, log1mq, x);
        double e = -0.5 * x * x - LOG_SQRT_2PI + a * l - g.peak;
        double r = exp(e);
        double complex v = r * cexp(I * (t * l));
        double complex y = sum + v;
        if (cabs(sum) >= cabs(v))
            comp += (sum - y) + v;
        else
            comp += (v - y) + sum;
        sum = y;
        mag += r;
        rnd += r * (fabs(e) + fabs(a * l) + fabs(t * l) + 0.5 * x * x + 6);
    }
    sum += comp;
    *nodes += g.n;
    double am = cabs(sum);
    /* discretisation relative to M(a - 1) ~ h * mag, tails, rounding; all over |M| */
    double abserr = g.disc * mag + g.tail + DBL_EPSILON * (rnd + 4 * mag);
    *rel = am > 0 ? abserr / am : INFINITY;
    return g.peak + log(g.h) + clog(sum);
}

/* Real log M(w), its first two derivatives in w (the tilted mean and variance of l). */
static double step_cgf_real(double *d1, double *d2, double *rel, const ga_ploss_term *s, double w)
{
    double a = 1 + w;
    if (s->q == 1) {
        double mm = s->m * s->m;
        *d1 = (0.5 + w) * mm;
        *d2 = mm;
        *rel = 8 * DBL_EPSILON * (1 + fabs(w * a) * mm);
        return w * a * 0.5 * mm;
    }
    double log1mq = log1p(-s->q);
    grid_t g;
    make_grid(&g, s, log1mq, a, 0);
    double s0 = 0, s1 = 0, s2 = 0, rnd = 0;
    for (size_t k = 0; k < g.n; k++) {
        double x = g.x0 + (double)k * g.h, l = ga_step_loss(s, log1mq, x);
        double e = -0.5 * x * x - LOG_SQRT_2PI + a * l - g.peak;
        double r = exp(e);
        s0 += r;
        s1 += r * l;
        s2 += r * l * l;
        rnd += r * (fabs(e) + fabs(a * l) + 0.5 * x * x + 6);
    }
    double mean = s1 / s0;
    *d1 = mean;
    *d2 = fmax(s2 / s0 - mean * mean, 0);
    *rel = g.disc + g.tail / s0 + DBL_EPSILON * (rnd / s0 + 2 * (double)g.n);
    return g.peak + log(g.h) + log(s0);
}

double ga_ploss_step_mean(const ga_ploss_term *s, double w)
{
    double d1, d2, rel;
    step_cgf_real(&d1, &d2, &rel, s, w);
    return d1;
}

/* ---------------------------------------------------------------- the composition */

/* s_j(z) for direction dir (0: XY, 1: YX) */
static double complex arg_of(const ga_ploss_term *t, int dir, double complex z)
{
    return (t->add ^ dir) ? -1 - z : z;
}

/* K_dir(z) and the relative error factor prod (1 + rel_j)^T_j - 1 of e^{K} */
static double complex comp_logmgf(double *relf, const ga_ploss *L, int dir, double complex z,
                                  size_t *nodes)
{
    double complex K = 0;
    double lr = 0;
    for (size_t j = 0; j < L->n; j++) {
        const ga_ploss_term *t = &L->t[j];
        double rel;
        double complex k = step_logmgf(&rel, t, arg_of(t, dir, z), nodes);
        K += t->count * k;
        lr += t->count * log1p(fmin(rel, 1e300));
    }
    *relf = expm1(lr) + 4 * DBL_EPSILON * cabs(K);
    return K;
}

static double comp_cgf_real(double *d1, double *d2, double *relf, const ga_ploss *L, int dir,
                            double z)
{
    double K = 0, lr = 0;
    *d1 = *d2 = 0;
    for (size_t j = 0; j < L->n; j++) {
        const ga_ploss_term *t = &L->t[j];
        int sw = t->add ^ dir;
        double e1, e2, rel;
        double k = step_cgf_real(&e1, &e2, &rel, t, sw ? -1 - z : z);
        K += t->count * k;
        *d1 += t->count * (sw ? -e1 : e1);
        *d2 += t->count * e2;
        lr += t->count * log1p(rel);
    }
    *relf = expm1(lr) + 4 * DBL_EPSILON * fabs(K);
    return K;
}

/* The supremum of the loss in direction dir (delta = 0 from there on): the remove steps'
 * loss under Y is at most -log(1 - q) per step (a covariance step's -log(1 - q + q (1 +
 * m^2)^{-r/2}), its ratio's least value at the origin); anything else is unbounded. */
double ga_ploss_loss_sup(const ga_ploss *L, int dir)
{
    double s = 0;
    if (L->t[0].nu > 0 && L->t[0].pts > 0) { /* synthetic points */
        double lx = L->t[0].m * L->t[0].m, ly = L->t[0].ly;
        return ga_synth_loss_sup(L->t[0].nu, L->t[0].pts, dir ? ly : lx, dir ? lx : ly);
    }
    if (L->t[0].nu > 0) { /* masked: l_XY runs over (-(la - lb)/2, inf) when la > lb */
        double d = L->t[0].m * L->t[0].m - L->t[0].ly;
        d = dir ? -d : d;
        return d > 0 ? INFINITY : -0.5 * d;
    }
    for (size_t j = 0; j < L->n; j++) {
        const ga_ploss_term *t = &L->t[j];
        if (!(t->add ^ dir)) /* the loss under the mixture: unbounded */
            return INFINITY;
        if (t->r > 0) /* a covariance step: 1 - q + q g with g >= (1 + m^2)^{-r/2} */
            s += t->count * -log1p(t->q * expm1(-0.5 * t->r * log1p(t->m * t->m)));
        else if (t->q == 1)
            return INFINITY;
        else
            s += t->count * -log1p(-t->q);
    }
    return s;
}

/* An upper bound of log E_P[e^{lam L}] (lam > 0) for the loss of a one-step pair in direction
 * dir, from what the release is computed from: a masked release or synthetic points are
 * post-processings of N(mu_x, I) against N(mu_y, I) with |mu_x| = m, |mu_y| = sqrt(ly) in any
 * directions (aligned: |mu_x - mu_y| = |m - sqrt(ly)|), whose E_P[e^{lam L}] is e^{lam (lam +
 * 1) c / 2}, c = (m - sqrt(ly))^2 (data processing of Renyi divergences); a covariance step's
 * ratio is 1 - q + q g with g the ratio of N(0, s^2 I_r) to N(0, I_r), s^2 = 1 + m^2, and t^k
 * is convex, so E[(1 - q + q g)^k] <= 1 - q + q E[g^k] with E[g^k] in closed form (infinite
 * when k m^2/(1 + m^2) >= 1). INFINITY: no bound. */
double ga_ploss_cgf_cap(const ga_ploss *L, int dir, double lam)
{
    const ga_ploss_term *t = &L->t[0];
    if (L->n != 1 || t->count != 1 || !(lam > 0))
        return INFINITY;
    if (t->nu > 0) {
        double c = t->m - sqrt(t->ly);
        return 0.5 * lam * (lam + 1) * c * c;
    }
    if (t->r > 0) {
        double m2 = t->m * t->m, u = m2 / (1 + m2), ls = log1p(m2), g;
        if (!(t->add ^ dir)) { /* P: the mixture; E_P[e^{lam L}] = E_Q[ratio^{lam + 1}] */
            double k = lam + 1;
            if (!(k * u < 1))
                return INFINITY;
            g = -0.5 * k * t->r * ls - 0.5 * t->r * log1p(-k * u);
        } else { /* P: N(0, I); E_P[ratio^-lam] */
            g = 0.5 * lam * t->r * ls - 0.5 * t->r * log1p(lam * u);
        }
        return log1p(t->q * expm1(g));
    }
    return INFINITY;
}

/* ---------------------------------------------------------------- saddle point */

typedef struct {
    const ga_ploss *L;
    int dir;
    double eps, c, L0, sc, tmax;
    size_t nodes;
    double bins[64], binw; /* largest |integrand| * (relative error of e^K) per bin of
                              [0, tmax]: an upper Riemann sum of the integrand's error */
    int over;              /* the node budget ran out */
    double deadline;       /* (opts->deadline) */
    int timed;             /* the deadline passed: the integrand returned 0 from then on */
    struct brom_memo *memo; /* K(c + i t) kept or looked up (NULL: neither) */
} brom_t;

/* K(c + i t) and its relative error at the nodes of one integral on the line Re z = c, for
 * integrals at other eps on the same line (K does not depend on eps: only the factor e^{-z
 * eps} does, and delta does not depend on c): recorded in the order evaluated, then sorted by
 * t and looked up (the adaptive rule on the same range and a like integrand visits the same
 * nodes, bit for bit; a node not kept is computed). */
typedef struct brom_memo {
    size_t n, cap;
    int frozen; /* sorted: look up only */
    struct brom_node {
        double t, rel;
        double complex K;
    } *v;
} brom_memo;

static int node_cmp(const void *a, const void *b)
{
    double x = ((const struct brom_node *)a)->t, y = ((const struct brom_node *)b)->t;
    return (x > y) - (x < y);
}

static void memo_freeze(brom_memo *m)
{
    qsort(m->v, m->n, sizeof *m->v, node_cmp);
    m->frozen = 1;
}

/* the kept node at t, or NULL */
static const struct brom_node *memo_find(const brom_memo *m, double t)
{
    struct brom_node key = {.t = t};
    return bsearch(&key, m->v, m->n, sizeof *m->v, node_cmp);
}

/* phi'(c) = K'(c) - eps - 1/c - 1/(c+1) and phi(c) */
static double dphi(double *phi, double *d2, brom_t *b, double c)
{
    double k1, k2, rel;
    double K = comp_cgf_real(&k1, &k2, &rel, b->L, b->dir, c);
    *phi = K - c * b->eps - log(fabs(c * (c + 1)));
    *d2 = k2 + 1 / (c * c) + 1 / ((c + 1) * (c + 1));
    return k1 - b->eps - 1 / c - 1 / (c + 1);
}

/* the root of phi' in (lo, hi) (phi' increasing: -inf at lo, +inf at hi), Newton kept
 * inside the bracket */
static double saddle_in(double *phi, brom_t *b, double lo, double hi)
{
    double c = 0.5 * (lo + hi), f, d2, ph = 0;
    if (!isfinite(hi)) {
        c = 1;
        while ((f = dphi(&ph, &d2, b, c)) < 0 && c < 1e6)
            lo = c, c *= 2;
        hi = c;
        c = 0.5 * (lo + hi);
    }
    for (int it = 0; it < 80; it++) {
        f = dphi(&ph, &d2, b, c);
        if (f > 0)
            hi = c;
        else
            lo = c;
        double cn = c - f / d2;
        if (!(cn > lo && cn < hi))
            cn = 0.5 * (lo + hi);
        if (fabs(cn - c) <= 1e-12 * fabs(c) + 1e-300) {
            c = cn;
            break;
        }
        c = cn;
    }
    dphi(&ph, &d2, b, c);
    *phi = ph;
    return c;
}

/* ---------------------------------------------------------------- Bromwich integral */

/* e^{K(z) - z eps - L0} / (pi z (z + 1)) at z = c + i t, and the relative error of e^K */
static double complex brom_value(double *rel, brom_t *b, double t)
{
    double complex z = b->c + I * t, K;
    brom_memo *m = b->memo;
    const struct brom_node *hit = m && m->frozen ? memo_find(m, t) : NULL;
    if (hit) {
        K = hit->K;
        *rel = hit->rel;
    } else {
        K = comp_logmgf(rel, b->L, b->dir, z, &b->nodes);
        if (m && !m->frozen && m->n < m->cap)
            m->v[m->n++] = (struct brom_node){t, *rel, K};
    }
    return cexp(K - z * b->eps - b->L0) / (M_PI * z * (z + 1));
}

/* its real part, the integrand on [0, t_max] */
static double brom_direct(double t, void *param)
{
    brom_t *b = param;
    if (b->nodes > BROMWICH_NODE_CAP) {
        b->over = 1;
        return 0;
    }
    if (b->timed || (b->deadline > 0 && ga_expired(b->deadline))) {
        b->timed = 1; /* (the quadrature then ends at once; the result is discarded) */
        return 0;
    }
    double rel;
    double complex v = brom_value(&rel, b, t);
    double e = fmin(rel, 1.0) * cabs(v);
    if (b->binw > 0) {
        int k = (int)fmin(63, t / b->binw);
        b->bins[k] = fmax(b->bins[k], e);
    }
    return creal(v);
}

/* The plan: the abscissa (the saddle point on the side where the integrand is smaller), the
 * scale L0, the integrand's width near t = 0 and the range [0, tmax] that matters; returns
 * whether |G| decayed (|G(t)| t small against |G(0)| sc) within the range. */
static int plan_bromwich(brom_t *b, double *Kc, double *k2, double *rel0)
{
    double phip, phim, k1;
    double cp = saddle_in(&phip, b, 0, INFINITY);
    double cm = saddle_in(&phim, b, -1, 0);
    b->c = phip <= phim ? cp : cm;
    *Kc = comp_cgf_real(&k1, k2, rel0, b->L, b->dir, b->c);
    b->L0 = *Kc - b->c * b->eps;
    b->sc = 1 / sqrt(*k2 + 1 / (b->c * b->c) + 1 / ((b->c + 1) * (b->c + 1)));
    /* the integrand decays like |M(c + it)|^T / t^2; the inner grids grow like t: past t ~
     * 3000 (about 20000 nodes per evaluation) the remainder is only estimated (slow decay:
     * few steps of a small rate) */
    double rel, g0 = cabs(brom_value(&rel, b, 0)) * b->sc, tm = 4 * b->sc;
    double tcap = fmax(3000.0, 8 * b->sc);
    int decayed;
    while (!(decayed = cabs(brom_value(&rel, b, tm)) * tm <= 1e-19 * g0) && tm < tcap &&
           b->nodes < BROMWICH_NODE_CAP / 4 && !(b->deadline > 0 && ga_expired(b->deadline)))
        tm *= 2;
    b->tmax = tm;
    return decayed;
}

int ga_ploss_plan(double *c, double *tmax, double *k2, double *L0, const ga_ploss *L, int dir,
                  double eps)
{
    brom_t b = {.L = L, .dir = dir, .eps = eps, .sc = 1};
    double Kc, rel0;
    int decayed = plan_bromwich(&b, &Kc, k2, &rel0);
    *c = b.c;
    *tmax = b.tmax;
    *L0 = b.L0;
    if (b.nodes > BROMWICH_NODE_CAP / 4 || !isfinite(b.L0))
        return GA_EMAXITER;
    return decayed ? GA_OK : GA_ETOL;
}

/* Chernoff: for any c > 0, 0 <= delta <= P[L > eps] <= e^{K(c) - c eps}. chernoff_log is the
 * log of that bound from L0 = K(c) - c eps, with the cgf's relative error rel folded in;
 * chernoff_value gives delta the value 0 and that bound (at least the smallest subnormal) as
 * its error. */
static double chernoff_log(double L0, double K, double rel)
{
    return L0 + fabs(K) * fmin(rel + 1e-12, 1);
}

static void chernoff_value(ga_result *out, double lb)
{
    out->val = 0;
    out->err = fmax(exp(lb), 0x1p-1074);
}

static int delta_planned(ga_result *out, brom_t *bp, int decayed, double Kc, double rel0,
                         const ga_gchisq_opts *o, ga_quad_work *w);

static int delta_bromwich(ga_result *out, const ga_ploss *L, int dir, double eps,
                          const ga_gchisq_opts *o, ga_quad_work *w)
{
    brom_t b = {.L = L, .dir = dir, .eps = eps, .sc = 1, .deadline = o->deadline};
    if (b.deadline > 0 && ga_expired(b.deadline)) {
        out->val = NAN;
        out->err = INFINITY;
        return GA_ETIME;
    }
    double Kc, k2, rel0;
    int decayed = plan_bromwich(&b, &Kc, &k2, &rel0);
    return delta_planned(out, &b, decayed, Kc, rel0, o, w);
}

/* delta by the Bromwich integral along the plan b (plan_bromwich's, with its K(c), relative
 * rounding and whether the integrand decayed within the range) */
static int delta_planned(ga_result *out, brom_t *bp, int decayed, double Kc, double rel0,
                         const ga_gchisq_opts *o, ga_quad_work *w)
{
    brom_t b = *bp;
    int dir = b.dir;
    double eps = b.eps, rel;
    double chern = chernoff_log(b.L0, Kc, rel0);
    if (b.c > 1e3 && isfinite(chern) && chern < log(0.5)) {
        /* the saddle ran off (eps near the loss's supremum, where it is rarely exceeded):
         * the integral would need grids of about c nodes; its scale is the Chernoff bound */
        chernoff_value(out, chern);
        return GA_ETOL;
    }
    double tm = b.tmax;
    b.binw = tm / 64;
    ga_result I0, I1 = {0, 0};
    double absint = 0;
    size_t evals = 0;
    /* no finer than a tenth of the integrand's own error (T times the rounding of log M) */
    double tol = fmax(fmax(o->epsrel, 1e-13) * 0.5, 0.1 * rel0);
    int st = ga_quad_gk(&I0, &absint, &evals, brom_direct, &b, 0, tm, 0, tol, 3000, w);
    /* beyond tm: |G| decays at least like 1/t^2 once |M(c + it)| stops decreasing, an
     * estimate of int_tm^inf |G| from the last value (rigorous only with the decay) */
    I1.err = 2 * cabs(brom_value(&rel, &b, tm)) * tm;
    if (!decayed && st == GA_OK)
        st = GA_ETOL;
    I0.val += I1.val;
    I0.err += I1.err;
    double scale = exp(b.L0);
    double val = (b.c < 0 ? 1 : 0) + scale * I0.val;
    if (getenv("GA_PLOSS_DEBUG"))
        fprintf(stderr, "brom dir %d eps %g c %g sc %g L0 %g: I %g +- %g abs %g evals %zu nodes %zu tmax %g st %d\n",
                dir, eps, b.c, b.sc, b.L0, I0.val, I0.err, absint, evals, b.nodes, b.tmax, st);
    /* quadrature estimate, the integrand's error (largest |f| rel over a unit u-range), the
     * rounding of the sum, the scale's own error */
    double relint = 0;
    for (int k = 0; k < 64; k++)
        relint += b.bins[k] * b.binw;
    double err = scale * (I0.err + relint + 8 * DBL_EPSILON * absint) +
                 (b.c < 0 ? 2 * DBL_EPSILON : 0) +
                 scale * fabs(I0.val) * (rel0 + 4 * DBL_EPSILON * (fabs(Kc) + fabs(b.c * eps)));
    if (!b.timed && (b.over || !isfinite(err) || !isfinite(val)) && b.c > 0 && isfinite(b.L0) &&
        chern < log(0.5)) {
        /* no integral, but its scale is a bound (Chernoff; the saddle ran off where the loss
         * barely exceeds eps, near its supremum): the value 0 with that error, honest, and
         * "accuracy not reached" */
        chernoff_value(out, chern);
        return GA_ETOL;
    }
    if (b.timed || b.over || !isfinite(err) || !isfinite(val)) { /* no value: never a guess */
        out->val = NAN;
        out->err = INFINITY;
        return b.timed ? GA_ETIME : GA_EMAXITER;
    }
    if (val < 0) { /* a negative estimate of a non-negative quantity: 0 within its error */
        err += -val;
        val = 0;
    }
    out->val = val;
    out->err = err;
    /* the target, not counting the rounding floor (included in err), as for the tails */
    if (st == GA_OK && scale * (I0.err + 8 * DBL_EPSILON * absint) >
                           fmax(o->epsabs, fmax(10 * o->epsrel, rel0) * val))
        st = GA_ETOL;
    return st;
}

/* ---------------------------------------------------------------- few steps */

/* The bracket's tilt: theta >= 0 where K'(theta) = eps, so the tilted loss has mean eps and
 * the outcomes that carry delta weigh most in the tilted sums (the Bromwich saddle point is
 * pulled towards 0 by the kernel 1/(z (z + 1)) and can leave a spike of mass at small losses
 * dominant); 0 where the loss's mean already exceeds eps. *lchern: the log of the Chernoff
 * bound e^{K(theta) - theta eps} of delta (at most 0). */
void ga_ploss_tilt(double *theta, double *lchern, const ga_ploss *L, int dir, double eps)
{
    double d1, d2, rel, lo = 0, hi = 1;
    *theta = *lchern = 0;
    comp_cgf_real(&d1, &d2, &rel, L, dir, 0);
    if (!(d1 < eps))
        return;
    for (comp_cgf_real(&d1, &d2, &rel, L, dir, hi); d1 < eps && hi < 1e4;
         comp_cgf_real(&d1, &d2, &rel, L, dir, hi))
        lo = hi, hi *= 2;
    /* K' is increasing: Newton steps kept inside [lo, hi], halving where one leaves it */
    double x = 0.5 * (lo + hi);
    for (int it = 0; it < 200; it++) {
        comp_cgf_real(&d1, &d2, &rel, L, dir, x);
        *(d1 < eps ? &lo : &hi) = x;
        double xn = d2 > 0 ? x - (d1 - eps) / d2 : NAN;
        if (!(xn > lo && xn < hi))
            xn = 0.5 * (lo + hi);
        int done = fabs(xn - x) <= 1e-10 * x || hi - lo <= 1e-9 * hi;
        x = xn;
        if (done)
            break;
    }
    *theta = x;
    double K = comp_cgf_real(&d1, &d2, &rel, L, dir, *theta);
    if (isfinite(K))
        *lchern = fmin(chernoff_log(K - *theta * eps, K, rel), 0);
}

/* The tilt at eps's centre (recalled: nearby eps share it) */
static void tilt_at(double *theta, double *lch, const ga_ploss *L, int dir, double et,
                    ga_quad_work *w)
{
    const ga_ploss_term *t = &L->t[0];
    double tk[6] = {2 /* (the tilt's tag) */, t->q, t->m, t->count, t->add ^ dir, et}, tv[2];
    int ts;
    if (ga_memo_get(tv, 2, &ts, &w->memo, tk, sizeof tk)) {
        *theta = tv[0];
        *lch = tv[1];
        return;
    }
    ga_ploss_tilt(theta, lch, L, dir, et);
    ga_memo_put(&w->memo, tk, sizeof tk, (double[2]){*theta, *lch}, 2, GA_OK);
}

/* The side of w->decide from the bracket's grids, coarse to fine until one excludes it: GA_OK
 * with *out (midpoint, half width) and w->decided set when one does, GA_ETIME, or GA_EDOM
 * (undecided even on the finest grid, or not the bracket's case: the caller goes on, and
 * the finest grid's convolution is then kept for it). Recalled by (step, direction, eps,
 * decide). */
static int bracket_side(ga_result *out, const ga_ploss *L, int dir, double eps,
                        const ga_gchisq_opts *o, ga_quad_work *w)
{
    if (!ga_ploss_few(L))
        return GA_EDOM;
    const ga_ploss_term *t = &L->t[0];
    double key[7] = {3 /* (this memo's tag) */, t->q, t->m, t->count, t->add ^ dir, eps,
                     w->decide}, got[2];
    int bs, decided = 0;
    double lo, hi;
    if (ga_memo_get(got, 2, &bs, &w->memo, key, sizeof key)) {
        lo = got[0];
        hi = got[1];
        decided = bs == GA_OK;
    } else {
        double theta, lch, et = ga_ploss_tilt_centre(eps);
        tilt_at(&theta, &lch, L, dir, et, w);
        bs = ga_ploss_bracket(&lo, &hi, &decided, L, dir, eps, et, theta, lch, 0, 0, w->decide,
                              0, o->deadline, w);
        if (bs == GA_ETIME)
            return bs;
        if (bs == GA_OK && (hi < w->decide || lo > w->decide))
            decided = 1; /* (a zero or Chernoff-sized answer decides as well) */
        ga_memo_put(&w->memo, key, sizeof key, (double[2]){lo, hi}, 2,
                    bs == GA_OK && decided ? GA_OK : GA_EDOM);
    }
    if (bs != GA_OK || !decided)
        return GA_EDOM;
    w->decided = 1;
    out->val = 0.5 * (lo + hi);
    out->err = 0.5 * (hi - lo);
    return GA_OK;
}

/* Few identical steps: the Bromwich integral where its integrand decays within the planned
 * range and the estimate meets its target; otherwise (few steps of a small rate, where the
 * integrand decays slowly and the node budget runs out) the two-sided bound of the
 * discretised losses (pair/ploss_bracket.c), tilted where the loss's tilted mean is eps, its
 * tails set by the Chernoff bound there: its midpoint with half its width as the error, cut
 * to the overlap with an unconverged Bromwich estimate where the two overlap. */
static int delta_few(ga_result *out, const ga_ploss *L, int dir, double eps,
                     const ga_gchisq_opts *o, ga_quad_work *w)
{
    /* asked only for the side of decide (an eps search away from its root): the bracket's
     * grids first, coarse to fine, which settle it at a fraction of one Bromwich integral's
     * cost (from a 64th of the finest's points); what they decide has met what was asked */
    if (w->decide > 0) {
        int st = bracket_side(out, L, dir, eps, o, w);
        if (st != GA_EDOM)
            return st;
    }
    brom_t b = {.L = L, .dir = dir, .eps = eps, .sc = 1, .deadline = o->deadline};
    double Kc, k2, rel0;
    int decayed = plan_bromwich(&b, &Kc, &k2, &rel0) && b.nodes <= BROMWICH_NODE_CAP / 4;
    ga_result B = {NAN, INFINITY};
    int st = GA_EMAXITER;
    if (decayed) {
        st = delta_planned(&B, &b, decayed, Kc, rel0, o, w);
        if (st == GA_OK || st == GA_ETIME) {
            *out = B;
            return st;
        }
    }
    /* the bracket depends on the step, the loss's direction (the add relation's reverse is
     * the remove relation's), eps and the target: recalled when the audit asks it again */
    const ga_ploss_term *t = &L->t[0];
    double key[9] = {1 /* (this memo's tag) */, t->q, t->m, t->count, t->add ^ dir, eps,
                     o->epsabs, o->epsrel, w->decide}, got[3];
    double theta, lch, lo, hi;
    int bs, decided = 0;
    if (ga_memo_get(got, 3, &bs, &w->memo, key, sizeof key)) {
        lo = got[0];
        hi = got[1];
        decided = got[2] > 0;
    } else {
        double et = ga_ploss_tilt_centre(eps);
        tilt_at(&theta, &lch, L, dir, et, w);
        bs = ga_ploss_bracket(&lo, &hi, &decided, L, dir, eps, et, theta, lch, o->epsabs,
                              10 * o->epsrel, w->decide, 0, o->deadline, w);
        if (bs == GA_OK)
            ga_memo_put(&w->memo, key, sizeof key, (double[3]){lo, hi, decided}, 3, bs);
    }
    w->decided |= decided;
    if (bs == GA_ETIME || (bs != GA_OK && decayed)) {
        *out = B;
        return bs == GA_ETIME ? GA_ETIME : st;
    }
    if (bs != GA_OK)
        return delta_bromwich(out, L, dir, eps, o, w);
    if (isfinite(B.val) && fmax(B.val - B.err, lo) <= fmin(B.val + B.err, hi)) {
        lo = fmax(B.val - B.err, lo);
        hi = fmin(B.val + B.err, hi);
    }
    out->val = 0.5 * (lo + hi);
    out->err = 0.5 * (hi - lo);
    return out->err <= fmax(o->epsabs, 10 * o->epsrel * out->val) ? GA_OK : GA_ETOL;
}

int ga_ploss_bracket_eps(double *lo, double *hi, double *slope, const ga_ploss *L, int dir,
                         double delta, double guess, double epsrel, double deadline)
{
    *lo = 0;
    *hi = INFINITY;
    *slope = NAN;
    if (!ga_ploss_few(L))
        return GA_EDOM;
    double g = guess, sup = ga_ploss_loss_sup(L, dir), etp = NAN;
    if (sup < INFINITY)
        g = fmin(g, 0.5 * sup);
    int rc = GA_EDOM, got = 0;
    /* The grid's step is the finest's times coarse, a power of two from 64 down to 1. First
     * the coarsest (a 64th of the finest's points: a few percent of its cost), whose bracket
     * recentres the tilt and, its width falling as the step squared, chooses the next step:
     * the coarsest expected to bring the half width under epsrel (with a margin of 1.2 in
     * the step), at least half the last; the same grid again, with a new centre, where the
     * bracket's middle lies more than an eighth from the old one (the tilt only weighs the
     * outcomes: a near centre does) */
    double coarse = 64;
    for (int pass = 0; pass < 8; pass++) {
        double et = ga_ploss_tilt_centre(g), theta, lch, a, b, sl;
        ga_ploss_tilt(&theta, &lch, L, dir, et);
        rc = ga_ploss_bracket_invert(&a, &b, &sl, L, dir, delta, g, et, theta, lch, coarse,
                                     1e-3 * epsrel * g, deadline);
        if (rc == GA_EDOM && coarse > 1) {
            coarse = fmax(coarse / 4, 1);
            continue;
        }
        if (rc != GA_OK)
            break;
        *lo = fmax(*lo, a); /* (every pass's ends are proven: the best of them kept) */
        if (b <= *hi)
            *slope = sl;
        *hi = fmin(*hi, b);
        got = 1;
        g = 0.5 * (*lo + *hi);
        int recentre = fabs(g - et) > 0.125 * et && et != etp;
        etp = et;
        double half = 0.5 * (*hi - *lo), want = epsrel * *hi;
        if (!recentre && (half <= want || coarse <= 1))
            break;
        if (!recentre) {
            double r = half > 0 ? sqrt(want / (b - a > 0 ? 0.5 * (b - a) : half)) / 1.2 : 1;
            double next = pow(2, floor(log2(fmax(coarse * r, 1))));
            coarse = fmin(next, coarse / 2);
        }
    }
    if (rc == GA_ETIME || rc == GA_ENOMEM)
        return rc;
    return got ? GA_OK : GA_EDOM;
}

/* eps(delta) of 2 to 128 identical steps of a rate below 1 (the search over delta would run
 * the bracket near the root again and again where the Bromwich integral does not converge,
 * and that integral beside it): the bracket inverted on one grid per direction
 * (ga_ploss_bracket_eps), started from a coarse PLD accountant's eps. The direction whose
 * guess is larger is bracketed first; the other is shown below that bracket's lower end by
 * its own bracket of delta there (its upper bound at most delta), else bracketed too. The
 * result's ends are points where a proven bound of delta lies on the needed side, so eps* lies
 * between them up to the bracket's double-precision allowances; the value is the midpoint and
 * the error half the width; refined by Bromwich values inside it (refine_few) where the
 * integrand decays within its plan (where it does not, the integrals cost several brackets and
 * rarely narrow it). GA_EDOM where this is not the route (the caller searches). */
#define FEW_EPS_REL 1e-6 /* the width wanted, relative, unless epsrel asks for less */
/* Inside the bracket [a, z] of eps*: the root of log delta = log delta_target by secant
 * steps of Bromwich values kept inside the bracket; the error is the last step plus the
 * shift that delta's error makes (its relative error over the log-slope). The integral's
 * estimates are taken where their error is under 1e-3 relative, also where its integrand had
 * not decayed within the planned range (their error then estimated, not bounded: GA_ETOL, as
 * delta_few's overlap of the two); the result stays inside the bracket and is taken only
 * where it is narrower. Otherwise the bracket stands (GA_EDOM; GA_ETIME past the deadline). */
/* A plan (plan_bromwich's, at the PLD accountant's eps or the bracket's middle) kept for the
 * integrals at every eps of the bracket: its line Re z = c and range [0, tmax] (valid for any
 * eps: the integral does not depend on c; the integrand at eps' is the one at eps times
 * e^{-(c + i t)(eps' - eps)}, which changes its size by the same factor everywhere, so it
 * decays within the same range), and the values of K on it (memo). */
typedef struct {
    brom_t b;
    double Kc, rel0;
    int decayed;
} brom_plan;

/* log delta(x) - ld by one Bromwich integral on the plan P, its relative error folded into
 * *rel and its convergence into *conv: GA_OK where the estimate is usable (error under 1e-3
 * relative), GA_ETIME, else GA_EDOM */
static int brom_log(double *f, double *rel, int *conv, const brom_plan *P, double x, double ld,
                    const ga_gchisq_opts *o, ga_quad_work *w)
{
    ga_result r;
    brom_t b = P->b;
    b.eps = x;
    b.L0 = P->Kc - b.c * x;
    int st = delta_planned(&r, &b, P->decayed, P->Kc, P->rel0, o, w);
    *conv &= st == GA_OK;
    if ((st != GA_OK && st != GA_ETOL) || !(r.val > 0) || !(r.err < 1e-3 * r.val))
        return st == GA_ETIME ? st : GA_EDOM;
    *f = log(r.val) - ld;
    *rel = fmax(*rel, r.err / r.val);
    return GA_OK;
}

/* (the nodes kept: far more than an integral within the plan's budget visits) */
#define BROM_MEMO_CAP 65536

static int refine_few(ga_result *eps, brom_plan *P, double delta, double a, double z,
                      double slope_hint, const ga_gchisq_opts *o, ga_quad_work *w)
{
    double ld = log(delta), x[2], f[2], rel = 0;
    int conv = 1, st;
    brom_memo memo = {0, BROM_MEMO_CAP, 0, malloc(BROM_MEMO_CAP * sizeof(struct brom_node))};
    P->b.memo = memo.v ? &memo : NULL;
    /* the middle, then a Newton step from it with the bracket's slope (else 0.6 of the way):
     * the secant from these two is then mostly the last step */
    x[0] = a + 0.5 * (z - a);
    if ((st = brom_log(&f[0], &rel, &conv, P, x[0], ld, o, w)) != GA_OK)
        goto cleanup;
    if (memo.v)
        memo_freeze(&memo);
    double xn = slope_hint < 0 ? x[0] - f[0] / slope_hint : NAN;
    x[1] = xn > a && xn < z && xn != x[0] ? xn : a + 0.6 * (z - a);
    if ((st = brom_log(&f[1], &rel, &conv, P, x[1], ld, o, w)) != GA_OK)
        goto cleanup;
    double step = INFINITY, slope = NAN;
    for (int it = 0; it < 8; it++) {
        slope = (f[1] - f[0]) / (x[1] - x[0]);
        st = GA_EDOM;
        if (!(slope < 0))
            goto cleanup;
        xn = fmin(fmax(x[1] - f[1] / slope, a), z);
        step = fabs(xn - x[1]);
        /* (a step under half of what delta's error moves the root is not resolved: it is
         * added to the error instead of computed) */
        if (step <= fmax(1e-12 * xn, 0.5 * -log1p(-rel) / -slope))
            break;
        x[0] = x[1], f[0] = f[1];
        x[1] = xn;
        if ((st = brom_log(&f[1], &rel, &conv, P, x[1], ld, o, w)) != GA_OK)
            goto cleanup;
    }
    double err = step + 1.05 * -log1p(-rel) / -slope + 4 * DBL_EPSILON * x[1];
    st = GA_EDOM;
    if (!(err < eps->err))
        goto cleanup;
    eps->val = x[1];
    eps->err = err;
    st = conv && err <= fmax(FEW_EPS_REL, o->epsrel) * x[1] ? GA_OK : GA_ETOL;
cleanup:
    P->b.memo = NULL;
    free(memo.v);
    return st;
}

/* The bracket of eps* (both directions) at relative width want: [a, z] with lo the lower
 * end of direction b's own bracket and ohi the upper end of the other's (0 where it is shown
 * below lo, or beyond its loss) and its slope; *eps its midpoint with half its width as the
 * error, *direction the binding direction (1: X, Y; 2: Y, X). GA_OK, GA_ETIME, else
 * GA_EDOM */
typedef struct {
    double a, z, lo, ohi, slope;
} few_bracket;

static int few_brackets(few_bracket *f, ga_result *eps, int *direction, const ga_ploss *L,
                        int b, const double g[2], double delta, double want, double deadline)
{
    int other = !b;
    double lo, hi, olo = 0, ohi = 0, oslope;
    int rc = ga_ploss_bracket_eps(&lo, &hi, &f->slope, L, b, delta, g[b], want, deadline);
    if (rc != GA_OK)
        return rc == GA_ETIME ? rc : GA_EDOM;
    if (lo < ga_ploss_loss_sup(L, other)) {
        double theta, lch, l, u, et = ga_ploss_tilt_centre(lo);
        int dec;
        ga_ploss_tilt(&theta, &lch, L, other, et);
        rc = ga_ploss_bracket(&l, &u, &dec, L, other, lo, et, theta, lch, 0, 0, delta, 0,
                              deadline, NULL);
        if (rc == GA_ETIME)
            return rc;
        if (rc == GA_OK && u <= delta) {
            ohi = lo; /* (its eps is at most lo) */
        } else {
            double go = g[other] > 0 ? g[other] : 0.5 * lo;
            rc = ga_ploss_bracket_eps(&olo, &ohi, &oslope, L, other, delta, go, want, deadline);
            if (rc != GA_OK)
                return rc == GA_ETIME ? rc : GA_EDOM;
        }
    }
    f->a = fmax(lo, olo);
    f->z = fmax(hi, ohi);
    f->lo = lo;
    f->ohi = ohi;
    eps->val = 0.5 * f->a + 0.5 * f->z;
    eps->err = 0.5 * (f->z - f->a) + 4 * DBL_EPSILON * f->z;
    *direction = (hi >= ohi ? b : other) == 0 ? 1 : 2;
    return GA_OK;
}

/* Where Bromwich values are to narrow the bracket, it is first taken this wide: the grids of
 * a bracket cost about in inverse proportion to its width, the secant steps inside it little
 * more from a wider one (their integrals on one line share K). That is chosen for targets
 * below FEW_BRACKET_FINE (above it a bracket at the target costs less than the plan and the
 * integrals, which are then computed only where the bracket falls short). */
#define FEW_BRACKET_COARSE 1e-3
#define FEW_BRACKET_FINE 2e-5

/* the plan of the Bromwich integrals of direction dir about eps (P): whether its integrand
 * decays within a range they can afford (beyond t = 1000 an integral costs seconds) */
static int few_plan(brom_plan *P, const ga_ploss *L, int dir, double eps, double deadline)
{
    double k2;
    *P = (brom_plan){.b = {.L = L, .dir = dir, .eps = eps, .sc = 1, .deadline = deadline}};
    P->decayed = plan_bromwich(&P->b, &P->Kc, &k2, &P->rel0);
    return P->decayed && P->b.nodes <= BROMWICH_NODE_CAP / 4 && P->b.tmax <= 1000 &&
           isfinite(P->Kc);
}

int ga_ploss_epsilon_few(ga_result *eps, int *direction, const ga_ploss *L, double delta,
                         const ga_gchisq_opts *o, ga_quad_work *w)
{
    if (!ga_ploss_few(L) || !(L->t[0].count > 1) || !(L->t[0].q < 1) ||
        !(delta > 0 && delta < 1))
        return GA_EDOM;
    double g[2];
    if (ga_ploss_pld_epsilon(g, L, delta, 2e-3) != GA_OK || !isfinite(g[0]) || !isfinite(g[1]))
        return GA_EDOM;
    int b = g[1] > g[0];
    if (!(g[b] > 0))
        return GA_EDOM;
    double want = fmax(FEW_EPS_REL, o->epsrel);
    /* Bromwich values narrow the bracket where the integrand decays within its plan (the
     * integral then converges: the root to its accuracy, which a certified eps then starts
     * from); a plan about the PLD accountant's eps holds on the whole bracket (brom_plan) */
    brom_plan P;
    int early = w && want < FEW_BRACKET_FINE;
    int decays = early && few_plan(&P, L, b, g[b], o->deadline);
    few_bracket f;
    double wb = decays ? fmax(want, FEW_BRACKET_COARSE) : want;
    int rc = few_brackets(&f, eps, direction, L, b, g, delta, wb, o->deadline);
    if (rc != GA_OK)
        return rc;
    /* (where one direction binds throughout: its delta alone decides) */
    int narrow = f.ohi <= f.lo &&
                 eps->err > (o->epsrel > FEW_EPS_REL ? want : 1e-12) * eps->val;
    if (w && !early && narrow)
        decays = few_plan(&P, L, b, eps->val, o->deadline);
    if (decays && narrow) {
        int rs = refine_few(eps, &P, delta, f.a, f.z, f.slope, o, w);
        if (rs != GA_EDOM)
            return rs;
    }
    if (wb > want) { /* (no Bromwich values narrowed it: the bracket at width want) */
        if ((rc = few_brackets(&f, eps, direction, L, b, g, delta, want, o->deadline)) != GA_OK)
            return rc;
    }
    return eps->err <= want * eps->val ? GA_OK : GA_ETOL;
}

/* ---------------------------------------------------------------- one step, closed form */

static double qbar(double x) { return 0.5 * erfc(x / M_SQRT2); }

/* The error of a - b, two erfc terms at tau and tau - m: each erfc(x) is off relatively by a
 * few ulps plus x^2 times the rounding of its argument x = tau/sqrt 2 (d log erfc/dx ~ -2x);
 * tau itself is near the optimal threshold, where the first-order effect of its own error on
 * a - b vanishes, but these per-term roundings do not cancel. */
static double one_step_err(double a, double b, double tau, double m, double val)
{
    double x2 = fmax(tau * tau, (tau - m) * (tau - m));
    return DBL_EPSILON * ((a + b) * (16 + 4 * x2) + 8 * (1 + fabs(tau)) * val);
}

/* D(x) = R(x - m) - R(x) = int_0^inf e^{-x s - s^2/2} (e^{m s} - 1) ds (R the Mills ratio,
 * R(x) = int_0^inf e^{-x s - s^2/2} ds), for x - m >= 1: a positive integrand, so the
 * difference of the two ratios comes without cancellation */
typedef struct {
    double x, m;
} mills_t;

static double mills_diff_fn(double s, void *p)
{
    const mills_t *v = p;
    return exp(-v->x * s - 0.5 * s * s) * expm1(v->m * s);
}

static int mills_diff(ga_result *out, double x, double m, ga_quad_work *w)
{
    mills_t v = {x, m};
    double absint = 0;
    size_t evals = 0;
    double top = 50 / (x - m) + 1; /* e^{-(x - m) s} < e^-50 beyond */
    int st = ga_quad_gk(out, &absint, &evals, mills_diff_fn, &v, 0, top, 0, 1e-14, 20000, w);
    out->err += 8 * DBL_EPSILON * absint + exp(-50) * out->val;
    return st == GA_ETOL && out->err <= 1e-13 * out->val ? GA_OK : st;
}

/* delta of one step (T = 1) of the remove pair: dir 0 is P against Q, dir 1 Q against P */
static void delta_one_step(ga_result *out, const ga_ploss_term *s, int dir, double eps,
                           ga_quad_work *w)
{
    double q = s->q, m = s->m, ee = exp(eps);
    /* r = q e^{m tau - m^2/2} at the threshold tau, so the mixture's term q phi(tau - m)
     * equals r phi(tau): with the Mills ratio R = Qbar/phi (GSL's hazard is 1/R) the two
     * terms share the factor r phi(tau) and the difference is one of two smooth ratios,
     *   delta_XY = r phi(tau) (R(tau - m) - R(tau)),
     *   delta_YX = e^eps r' phi(u) (R(u) - R(u + m)),  u = -tau',
     * which keeps its relative accuracy far in the tail (the direct difference of two erfc
     * loses x^2 ulps to the rounding of their arguments) */
    if (dir == 0) {
        /* {l > eps} = {x > tau}, e^eps - 1 + q > 0 */
        double r = expm1(eps) + q;
        double tau = (log(r / q) + 0.5 * m * m) / m;
        ga_result D;
        if (tau - m > 1 && mills_diff(&D, tau, m, w) == GA_OK) {
            double ph = r * exp(-0.5 * tau * tau) / sqrt(2 * M_PI);
            out->val = ph * D.val;
            /* the factor e^{-tau^2/2} carries the rounding of tau (log, add, divide: about
             * 3 ulps, times tau^2 in the exponent) and of tau^2/2 itself (tau^2/2 ulps):
             * 4 tau^2 ulps cover both, with the exp and the product's 8 */
            out->err = ph * D.err + DBL_EPSILON * out->val * (8 + 4 * tau * tau);
        } else {
            double a = q * qbar(tau - m), bq = r * qbar(tau);
            out->val = fmax(a - bq, 0);
            out->err = one_step_err(a, bq, tau, m, out->val);
        }
    } else {
        /* {l < -eps} = {x < tau'} where r' = e^-eps - 1 + q > 0; empty otherwise. r' is a
         * difference: e^-eps - (1 - q) (exact 1 - q) for q >= 1/2, q + expm1(-eps) below,
         * with relative rounding rho */
        double r = q >= 0.5 ? exp(-eps) - (1 - q) : expm1(-eps) + q;
        double rho = DBL_EPSILON * (q >= 0.5 ? exp(-eps) : fabs(expm1(-eps)) + q) / fabs(r);
        if (!(r > 0)) {
            out->val = out->err = 0;
            return;
        }
        double tau = (log(r / q) + 0.5 * m * m) / m, u = -tau;
        ga_result D;
        if (u > 1 && mills_diff(&D, u + m, m, w) == GA_OK) {
            double ph = ee * r * exp(-0.5 * u * u) / sqrt(2 * M_PI);
            out->val = ph * D.val;
            /* r' off by rho moves the factor and the threshold: about (2 + u/m) rho */
            out->err = ph * D.err + DBL_EPSILON * out->val * (8 + 4 * u * u + 2 * eps) +
                       out->val * rho * (2 + u / m);
        } else {
            double pq = qbar(-tau), pp = (1 - q) * qbar(-tau) + q * qbar(m - tau);
            double a = pq, bq = ee * pp;
            out->val = fmax(a - bq, 0);
            out->err = one_step_err(a, bq, tau, m, out->val);
        }
    }
}

/* ---------------------------------------------------------------- public entry points */

/* One covariance step (a Poisson-subsampled Gaussian sketch, 001 Theorem 5.3, at its worst
 * case): with the record, r columns N(0, (1 + lambda) I) in its direction with probability q,
 * else N(0, I); without it N(0, I) (lambda = m^2). The likelihood ratio of the Gaussian
 * components is R(s) = (1 + lambda)^{-r/2} e^{kappa s}, kappa = lambda/(2 (1 + lambda)), a
 * function of s = the columns' squared coordinates, chi^2_r without the record and (1 + lambda)
 * chi^2_r in its component; the loss log(1 - q + q R(s)) increases in s, so with Q_r, P_r the
 * chi^2_r upper and lower tails (GSL's regularized incomplete gamma, with error estimates):
 *   delta_XY = q Q_r(s1 / (1 + lambda)) - rho Q_r(s1),  rho = e^eps - 1 + q, R(s1) = rho/q,
 *   delta_YX = e^eps (rho2 P_r(s2) - q P_r(s2 / (1 + lambda))),  rho2 = e^-eps - 1 + q > 0,
 *   R(s2) = rho2/q (no event where rho2 <= 0 or s2 <= 0). */
static void delta_one_chi2(ga_result *out, const ga_ploss_term *s, int dir, double eps)
{
    double q = s->q, lam = s->m * s->m, h = 0.5 * s->r, kap = lam / (2 * (1 + lam));
    double c0 = h * log1p(lam);
    gsl_sf_result A, B;
    out->val = out->err = 0;
    if (dir == 0) {
        double rho = expm1(eps) + q, st = fmax((log(rho / q) + c0) / kap, 0);
        if (gsl_sf_gamma_inc_Q_e(h, 0.5 * st / (1 + lam), &A) || gsl_sf_gamma_inc_Q_e(h, 0.5 * st, &B)) {
            out->val = NAN;
            out->err = INFINITY;
            return;
        }
        double a = q * A.val, b = rho * B.val;
        out->val = fmax(a - b, 0);
        out->err = q * A.err + rho * B.err + 8 * DBL_EPSILON * (a + b) * (1 + 0.5 * st);
    } else {
        double rho = q >= 0.5 ? exp(-eps) - (1 - q) : expm1(-eps) + q;
        if (!(rho > 0))
            return;
        double st = (log(rho / q) + c0) / kap;
        if (!(st > 0))
            return; /* the loss never falls below -eps */
        if (gsl_sf_gamma_inc_P_e(h, 0.5 * st, &A) || gsl_sf_gamma_inc_P_e(h, 0.5 * st / (1 + lam), &B)) {
            out->val = NAN;
            out->err = INFINITY;
            return;
        }
        double ee = exp(eps), a = ee * rho * A.val, b = ee * q * B.val;
        out->val = fmax(a - b, 0);
        out->err = ee * (rho * A.err + q * B.err) + 8 * DBL_EPSILON * (a + b) * (2 + 0.5 * st + eps);
    }
}

/* Far out (eps beyond the loss's cgf at 1 by 800): delta <= P[L > eps] <= E[e^L] e^-eps =
 * e^{K(1) - eps}, below the smallest double; the value is 0 and its error that bound (at
 * least the smallest subnormal), where the Bromwich integral's saddle point would sit near
 * z = eps and its grid need about eps points. 1 when it applies. */
static int chernoff_negligible(ga_result *r, const ga_ploss *L, int dir, double eps)
{
    if (!(eps > 1000))
        return 0;
    double d1, d2, rel;
    double K = comp_cgf_real(&d1, &d2, &rel, L, dir, 1.0);
    double b = chernoff_log(K - eps, K, rel); /* (c = 1) */
    if (!(b < -800))
        return 0;
    chernoff_value(r, b);
    return 1;
}

/* the two directions' Bromwich integrals, each on any thread (direction 0 with the caller's
 * workspace, direction 1 with the thread's) */
typedef struct {
    ga_result *r[2];
    const ga_ploss *L;
    double eps;
    const ga_gchisq_opts *o;
    ga_quad_work *w0;
    int s[2];
} brom_dirs;

static void brom_dir_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    brom_dirs *b = ctx;
    b->s[i] = delta_bromwich(b->r[i], b->L, (int)i, b->eps, b->o, i ? &w->quad : b->w0);
}

int ga_ploss_delta(ga_result *xy, ga_result *yx, const ga_ploss *L, double eps, int method,
                   const ga_gchisq_opts *opts, ga_quad_work *w)
{
    ga_gchisq_opts o = ga_gchisq_opts_or_default(opts);
    int st = GA_OK, s2[2] = {GA_OK, GA_OK}, brom[2] = {0, 0};
    for (int dir = 0; dir < 2; dir++) {
        ga_result *r = dir ? yx : xy;
        r->val = r->err = 0;
        if (eps >= ga_ploss_loss_sup(L, dir))
            continue; /* the loss never exceeds eps: exactly 0 */
        int s;
        if (L->t[0].nu > 0) { /* a masked release: two noncentral chi-square laws */
            double lx = L->t[0].m * L->t[0].m, ly = L->t[0].ly;
            s = L->t[0].pts > 0 ? ga_synth_delta_until(r, NULL, L->t[0].nu, L->t[0].pts, dir ? ly : lx,
                                                       dir ? lx : ly, eps, o.deadline)
                                : ga_ncx2_delta(r, NULL, L->t[0].nu, dir ? ly : lx, dir ? lx : ly, eps);
        } else if (L->t[0].r > 0) { /* a covariance step: one release, closed form only */
            delta_one_chi2(r, &L->t[0], dir ^ L->t[0].add, eps);
            s = isfinite(r->val) ? GA_OK : GA_EMAXITER;
        } else if (method == GA_DELTA_TAILS || (method == GA_DELTA_AUTO && L->n == 1 && L->t[0].count == 1)) {
            delta_one_step(r, &L->t[0], dir ^ L->t[0].add, eps, w);
            s = (L->n == 1 && L->t[0].count == 1) ? GA_OK : GA_EDOM;
        } else if (chernoff_negligible(r, L, dir, eps)) {
            s = GA_OK;
        } else if (ga_ploss_few(L)) {
            s = delta_few(r, L, dir, eps, &o, w);
        } else {
            brom[dir] = 1; /* (below) */
            continue;
        }
        s2[dir] = s;
    }
    /* the Bromwich integrals: both on the threads lent to the caller where it has some */
    brom_dirs b = {{xy, yx}, L, eps, &o, w, {GA_ENOMEM, GA_ENOMEM}};
    if (!(brom[0] && brom[1] && ga_par_inner_jobs() > 1 &&
          ga_par_for(2, ga_par_inner_jobs(), 0, brom_dir_item, &b, NULL, NULL) == GA_OK))
        for (int dir = 0; dir < 2; dir++)
            if (brom[dir])
                b.s[dir] = delta_bromwich(b.r[dir], L, dir, eps, &o, w);
    for (int dir = 0; dir < 2; dir++) {
        int sd = brom[dir] ? b.s[dir] : s2[dir];
        if (sd && (!st || st == GA_ETOL))
            st = sd; /* a failure outranks "accuracy not reached" in the other direction */
    }
    return st;
}

/* D_alpha at large alpha (where the cgf's quadrature would need a grid of about alpha
 * points), bracketed in closed form per step (shift m, rate q, normalised noise): with M =
 * (1 - q) N(0, 1) + q N(m, 1) and Q = N(0, 1), E_Q[(dM/dQ)^alpha] lies between
 * q^alpha E_Q[(dN(m,1)/dQ)^alpha] and (by convexity) E_Q[(dN(m,1)/dQ)^alpha], so
 *   alpha m^2/2 + alpha/(alpha - 1) log q <= D_alpha(M || Q) <= alpha m^2/2,
 * and dQ/dM <= 1/(1 - q) gives 0 <= D_alpha(Q || M) <= -log(1 - q) (q = 1: alpha m^2/2 both
 * ways). Steps add (count times). The value is the bracket's midpoint, its error the half
 * width (relative 2 |log q| / (alpha m^2) for the growing direction). */
#define GA_PLOSS_RENYI_BIG 1e4
static void renyi_bracket(ga_result *r, const ga_ploss *L, int dir, double alpha)
{
    double lo = 0, hi = 0;
    for (size_t j = 0; j < L->n; j++) {
        const ga_ploss_term *t = &L->t[j];
        double g = 0.5 * alpha * t->m * t->m;
        if (t->q >= 1) {
            lo += t->count * g;
            hi += t->count * g;
        } else if (!(t->add ^ dir)) {
            lo += t->count * fmax(g + alpha / (alpha - 1) * log(t->q), 0);
            hi += t->count * g;
        } else {
            hi += -t->count * log1p(-t->q);
        }
    }
    r->val = 0.5 * (lo + hi);
    r->err = 0.5 * (hi - lo) + 8 * DBL_EPSILON * hi;
    if (!isfinite(r->val)) {
        r->val = INFINITY;
        r->err = 0;
    }
}

int ga_ploss_renyi(ga_result *xy, ga_result *yx, const ga_ploss *L, double alpha)
{
    if (!(alpha > 1) || !isfinite(alpha))
        return GA_EINVAL;
    if (L->t[0].r > 0 || L->t[0].nu > 0) /* covariance steps and masked releases: not here */
        return GA_EDOM;
    if (alpha > GA_PLOSS_RENYI_BIG) {
        renyi_bracket(xy, L, 0, alpha);
        renyi_bracket(yx, L, 1, alpha);
        return GA_OK;
    }
    for (int dir = 0; dir < 2; dir++) {
        ga_result *r = dir ? yx : xy;
        double d1, d2, rel;
        double K = comp_cgf_real(&d1, &d2, &rel, L, dir, alpha - 1);
        r->val = K / (alpha - 1);
        r->err = (rel + 4 * DBL_EPSILON) / (alpha - 1) + 4 * DBL_EPSILON * fabs(r->val);
        if (!isfinite(r->val)) {
            r->val = INFINITY;
            r->err = 0;
        }
    }
    return GA_OK;
}

/* The RDP accountant's order-alpha value for the remove direction at integer alpha >= 2:
 * log sum_k C(alpha, k) (1 - q)^{alpha - k} q^k e^{k (k - 1) m^2 / 2} / (alpha - 1) per step
 * (Mironov, Talwar & Zhang 2019, Section 3.3, the binomial expansion of E_Q[(P/Q)^alpha]). */
double ga_ploss_rdp_binomial(const ga_ploss_term *s, int alpha)
{
    double lq = log(s->q), l1q = s->q < 1 ? log1p(-s->q) : -INFINITY, acc = -INFINITY;
    for (int k = 0; k <= alpha; k++) {
        double lc = ga_lgamma(alpha + 1.0) - ga_lgamma(k + 1.0) - ga_lgamma(alpha - k + 1.0);
        double lt = lc + (k ? k * lq : 0) + (alpha - k ? (alpha - k) * l1q : 0) +
                    0.5 * k * (k - 1.0) * s->m * s->m;
        acc = ga_logaddexp(acc, lt);
    }
    return acc / (alpha - 1);
}

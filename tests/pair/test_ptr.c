/*
 * test_ptr.c - propose-test-release ridge releases (pair/ptr.c through the public
 * ga_pair_reduce_ptr). References, independent of the library's cells and chi-square form:
 * - the test's outcome always the same (margin far above the test's means; both noises): the
 *   upper bound is
 *   the fixed-ridge pair N(0, a + rho + x^2) against N(0, a + rho), r columns, which the
 *   Gaussian engine computes as a generalized chi-square (double, and certified intervals
 *   must contain it);
 * - the mechanism simulated (seeded), one dimension, Gaussian and Laplace test noise: the
 *   test's value, the ridge, r columns;
 *   the upper bound is the mean of (1 - e^(eps - L))_+ with L the log-likelihood ratio of (the
 *   ridge level, the columns) from the densities, the lower bound against the best threshold
 *   on the columns' sum of squares found by simulation, within five standard errors;
 * - post-processing: the lower bound never above the upper one (seeded random cases, double
 *   and certified).
 */
#include "gaussaudit.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_ENGINE 1e-6  /* the atom-only upper bound against the Gaussian engine (relative) */
#define MC_SIGMAS 5.0    /* Monte-Carlo tolerance in standard errors */
#define MC_N 200000      /* simulated releases per case */
#define LOWER_SHARE 0.9  /* the lower bound's event reaches this share of the best threshold */
#define TOL_ORDER 1e-12  /* an inequality may fail by this much (rounding) */

typedef struct {
    double r, tau, margin, target, scale, a, x2, eps;
    int lap; /* the test's noise: Laplace of scale tau (1) or Gaussian (0) */
} case_t;

static ga_pair *make(const case_t *c, int bound, const double *mu, const double *c2)
{
    ga_ptr_input in = {c->r, c->tau, c->margin, c->target, c->scale, c->a + c->x2, c->a, 1,
                       mu, c2, 1, bound, c->lap};
    ga_pair *p = NULL;
    char msg[256];
    cr_assert(ga_pair_reduce_ptr(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    return p;
}

static double rho_of(const case_t *c, double y)
{
    double over = fmax(y - c->margin, 0), v = c->target - over;
    return v > 0 ? c->scale * v : 0;
}

/* the test's value: mean m plus its noise; its lower tail at a */
static double test_value(const case_t *c, double m, gsl_rng *g)
{
    return m + (c->lap ? gsl_ran_laplace(g, c->tau) : c->tau * gsl_ran_gaussian(g, 1));
}

static double test_cdf(const case_t *c, double a, double m)
{
    double z = (a - m) / c->tau;
    if (c->lap)
        return z < 0 ? 0.5 * exp(z) : 1 - 0.5 * exp(-z);
    return 0.5 * erfc(-z / M_SQRT2);
}

static double log_norm_ratio(double z2, double v1, double v2)
{
    return -0.5 * z2 / v1 - 0.5 * log(v1) + 0.5 * z2 / v2 + 0.5 * log(v2);
}

Test(ptr, atom_only_upper_bound_is_the_fixed_ridge_pair)
{
    static const double cases[][6] = {/* r, a, x2, target (rho = target), eps */
                                      {1, 1, 0.5, 0.5, 0.1, 0}, {3, 0.2, 1, 2, 0.5, 0},
                                      {10, 2, 1, 1, 1, 0},      {40, 5, 1, 3, 0.2, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const double *v = cases[k];
        case_t c = {v[0], 1, 1e6, v[3], 1, v[1], v[2], v[4], (int)(k % 2)};
        double mu = c.a, c2 = c.x2;
        ga_pair *p = make(&c, 1, &mu, &c2);
        ga_delta d;
        cr_assert(ga_pair_delta(&d, p, c.eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        /* the Gaussian engine on the fixed-ridge pair */
        double m0 = 0, sx = c.a + c.target + c.x2, sy = c.a + c.target;
        ga_pair_input gi = {1, &m0, &m0, &sx, &sy, c.r, {NULL, NULL, NULL, NULL}};
        ga_pair *g = NULL;
        char msg[256];
        cr_assert(ga_pair_reduce(&g, &gi, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta e;
        cr_assert(ga_pair_delta(&e, g, c.eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        cr_expect(fabs(d.xy.val - e.xy.val) <= TOL_ENGINE * e.xy.val + d.xy.err + e.xy.err,
                  "case %zu: XY %.17g +- %.2g, engine %.17g", k, d.xy.val, d.xy.err, e.xy.val);
        cr_expect(fabs(d.yx.val - e.yx.val) <= TOL_ENGINE * e.yx.val + d.yx.err + e.yx.err,
                  "case %zu: YX %.17g +- %.2g, engine %.17g", k, d.yx.val, d.yx.err, e.yx.val);
        char et[32];
        snprintf(et, sizeof et, "%.17g", c.eps);
        ga_delta_cert dc;
        cr_assert(ga_pair_delta_cert(&dc, p, NULL, NULL, et, NULL) == GA_OK);
        cr_expect(dc.xy.lo <= e.xy.val * (1 + TOL_ENGINE) && e.xy.val * (1 - TOL_ENGINE) <= dc.xy.hi,
                  "case %zu: certified XY [%.17g, %.17g], engine %.17g", k, dc.xy.lo, dc.xy.hi, e.xy.val);
        cr_expect(dc.yx.lo <= e.yx.val * (1 + TOL_ENGINE) && e.yx.val * (1 - TOL_ENGINE) <= dc.yx.hi,
                  "case %zu: certified YX [%.17g, %.17g], engine %.17g", k, dc.yx.lo, dc.yx.hi, e.yx.val);
        ga_pair_free(g);
        ga_pair_free(p);
    }
}

/* The upper bound by simulation in direction big (P the dataset with the row): mean of (1 -
 * e^(eps - L))_+, L the loss of (the ridge level, the columns); *se its standard error. */
static double mc_upper(double *se, const case_t *c, int big, gsl_rng *g)
{
    double mP = big ? c->a + c->x2 : c->a, mQ = big ? c->a : c->a + c->x2;
    double lo = c->margin, hi = c->margin + c->target, t = c->tau;
    double alo = log(test_cdf(c, lo, mP) / test_cdf(c, lo, mQ));
    double ahi = log((1 - test_cdf(c, hi, mP)) / (1 - test_cdf(c, hi, mQ)));
    double s = 0, s2 = 0;
    for (int i = 0; i < MC_N; i++) {
        double y = test_value(c, mP, g), rho = rho_of(c, y);
        double vP = (big ? c->a + c->x2 : c->a) + rho, vQ = (big ? c->a : c->a + c->x2) + rho;
        double l1 = c->lap ? (fabs(y - mQ) - fabs(y - mP)) / t
                           : ((y - mQ) * (y - mQ) - (y - mP) * (y - mP)) / (2 * t * t);
        double L = y <= lo ? alo : y >= hi ? ahi : l1;
        for (int j = 0; j < (int)c->r; j++) {
            double z = gsl_ran_gaussian(g, sqrt(vP));
            L += log_norm_ratio(z * z, vP, vQ);
        }
        double v = fmax(1 - exp(c->eps - L), 0);
        s += v;
        s2 += v * v;
    }
    double m = s / MC_N;
    *se = sqrt(fmax(s2 / MC_N - m * m, 0) / MC_N);
    return m;
}

/* The best threshold event on the columns' sum of squares, by simulation: max over a grid
 * of c of P[W > c] - e^eps Q[W > c] (direction big; W < c otherwise); *se its error. */
static double mc_lower(double *se, const case_t *c, int big, gsl_rng *g)
{
    enum { NC = 200 };
    static double wp[MC_N], wq[MC_N];
    for (int law = 0; law < 2; law++) {
        int isbig = law == 0 ? big : !big;
        double m = isbig ? c->a + c->x2 : c->a;
        for (int i = 0; i < MC_N; i++) {
            double y = test_value(c, m, g), v = (isbig ? c->a + c->x2 : c->a) + rho_of(c, y);
            double w = 0;
            for (int j = 0; j < (int)c->r; j++) {
                double z = gsl_ran_gaussian(g, sqrt(v));
                w += z * z;
            }
            (law ? wq : wp)[i] = w;
        }
    }
    double best = -1, ee = exp(c->eps), top = 0;
    for (int i = 0; i < MC_N; i++)
        top = fmax(top, wp[i]);
    for (int k = 1; k < NC; k++) {
        double thr = top * k / NC, np = 0, nq = 0;
        for (int i = 0; i < MC_N; i++) {
            np += big ? wp[i] > thr : wp[i] < thr;
            nq += big ? wq[i] > thr : wq[i] < thr;
        }
        double v = np / MC_N - ee * nq / MC_N;
        if (v > best) {
            best = v;
            *se = sqrt(np / MC_N / MC_N + ee * ee * nq / MC_N / MC_N);
        }
    }
    return best;
}

static case_t random_case(gsl_rng *g)
{
    case_t c;
    c.r = 1 + (double)gsl_rng_uniform_int(g, 5);
    c.tau = 0.5 + 1.5 * gsl_rng_uniform(g);
    c.margin = gsl_rng_uniform(g);
    c.target = 0.5 + 3.5 * gsl_rng_uniform(g);
    c.scale = 0.5 + 1.5 * gsl_rng_uniform(g);
    c.a = 0.1 + 2.9 * gsl_rng_uniform(g);
    c.x2 = 0.2 + 1.3 * gsl_rng_uniform(g);
    c.eps = gsl_rng_uniform(g);
    c.lap = (int)gsl_rng_uniform_int(g, 2);
    return c;
}

Test(ptr, bounds_against_the_simulated_mechanism, .timeout = 600)
{
    gsl_rng *g = ga_test_rng(20261206);
    long n = ga_test_count(4);
    for (long k = 0; k < n; k++) {
        case_t c = random_case(g);
        c.lap = (int)(k % 2); /* both test noises every run */
        double mu = c.a, c2 = c.x2;
        ga_pair *up = make(&c, 1, &mu, &c2), *lo = make(&c, 0, &mu, &c2);
        ga_delta du, dl;
        cr_assert(ga_pair_delta(&du, up, c.eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        cr_assert(ga_pair_delta(&dl, lo, c.eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        for (int big = 1; big >= 0; big--) {
            const ga_result *u = big ? &du.xy : &du.yx, *l = big ? &dl.xy : &dl.yx;
            double se, m = mc_upper(&se, &c, big, g);
            cr_expect(fabs(u->val - m) <= MC_SIGMAS * se + u->err + 1e-4 * m,
                      "case %ld (r %g tau %g margin %g target %g scale %g a %g x2 %g eps %g) %s: "
                      "upper %.10g +- %.2g, simulated %.10g +- %.2g", k, c.r, c.tau, c.margin,
                      c.target, c.scale, c.a, c.x2, c.eps, big ? "XY" : "YX", u->val, u->err, m, se);
            double sl, ml = fmax(mc_lower(&sl, &c, big, g), 0); /* (no event: delta 0) */
            cr_expect(l->val <= ml + MC_SIGMAS * sl + l->err && l->val >= LOWER_SHARE * ml - MC_SIGMAS * sl - l->err,
                      "case %ld (r %g tau %g margin %g target %g scale %g a %g x2 %g eps %g) %s: "
                      "lower %.10g +- %.2g, best simulated threshold %.10g +- %.2g", k, c.r, c.tau,
                      c.margin, c.target, c.scale, c.a, c.x2, c.eps, big ? "XY" : "YX", l->val,
                      l->err, ml, sl);
        }
        ga_pair_free(up);
        ga_pair_free(lo);
    }
    gsl_rng_free(g);
}

Test(ptr, lower_never_above_upper, .timeout = 600)
{
    gsl_rng *g = ga_test_rng(7171);
    long n = ga_test_count(6);
    for (long k = 0; k < n; k++) {
        /* three dimensions: eigenvalues and components at random */
        double mu[3], c2[3], x2 = 0;
        for (int i = 0; i < 3; i++) {
            mu[i] = 0.1 + 3 * gsl_rng_uniform(g);
            c2[i] = gsl_rng_uniform(g);
            x2 += c2[i];
        }
        case_t c = random_case(g);
        double lmin = fmin(mu[0], fmin(mu[1], mu[2]));
        ga_ptr_input in = {c.r, c.tau, c.margin, c.target, c.scale, lmin + x2 * gsl_rng_uniform(g),
                           lmin, 3, mu, c2, (int)gsl_rng_uniform_int(g, 2), 0, c.lap};
        ga_pair *lo = NULL, *up = NULL;
        char msg[256];
        cr_assert(ga_pair_reduce_ptr(&lo, &in, msg, sizeof msg) == GA_OK, "%s", msg);
        in.bound = 1;
        cr_assert(ga_pair_reduce_ptr(&up, &in, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta dl, du;
        cr_assert(ga_pair_delta(&dl, lo, c.eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        cr_assert(ga_pair_delta(&du, up, c.eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        cr_expect(dl.xy.val - dl.xy.err <= du.xy.val + du.xy.err + TOL_ORDER &&
                      dl.yx.val - dl.yx.err <= du.yx.val + du.yx.err + TOL_ORDER,
                  "case %ld (eps %g): lower %.10g, %.10g above upper %.10g, %.10g", k, c.eps,
                  dl.xy.val, dl.yx.val, du.xy.val, du.yx.val);
        if (k < 2) { /* certified: the brackets contain the estimates and stay ordered */
            char et[32];
            snprintf(et, sizeof et, "%.17g", c.eps);
            ga_delta_cert cl, cu;
            cr_assert(ga_pair_delta_cert(&cl, lo, NULL, NULL, et, NULL) == GA_OK);
            cr_assert(ga_pair_delta_cert(&cu, up, NULL, NULL, et, NULL) == GA_OK);
            cr_expect(cl.xy.lo <= cu.xy.hi * (1 + TOL_ORDER) && cl.yx.lo <= cu.yx.hi * (1 + TOL_ORDER),
                      "case %ld: certified lower [%g, %g] above upper [%g, %g]", k, cl.xy.lo,
                      cl.yx.lo, cu.xy.hi, cu.yx.hi);
            cr_expect(cu.xy.lo <= du.xy.val + du.xy.err && du.xy.val - du.xy.err <= cu.xy.hi,
                      "case %ld: certified upper XY [%.17g, %.17g], estimate %.17g +- %.2g", k,
                      cu.xy.lo, cu.xy.hi, du.xy.val, du.xy.err);
        }
        ga_pair_free(lo);
        ga_pair_free(up);
    }
    gsl_rng_free(g);
}

Test(ptr, bad_inputs_are_refused)
{
    double mu = 1, c2 = 1, neg = -1;
    ga_ptr_input ok = {3, 1, 0.5, 2, 1, 2, 1, 1, &mu, &c2, 1, 1, 0};
    ga_ptr_input bad[7];
    for (int i = 0; i < 7; i++)
        bad[i] = ok;
    bad[6].test_laplace = 2;
    bad[0].columns = 0.5;
    bad[1].test_sigma = 0;
    bad[2].margin = -1;
    bad[3].target = NAN;
    bad[4].mu = &neg;
    bad[5].d = 0;
    for (int i = 0; i < 7; i++) {
        ga_pair *p = NULL;
        char msg[256] = "";
        cr_expect(ga_pair_reduce_ptr(&p, &bad[i], msg, sizeof msg) == GA_EINVAL && !p && msg[0],
                  "input %d accepted", i);
    }
    ga_pair *p = NULL;
    char msg[256];
    cr_assert(ga_pair_reduce_ptr(&p, &ok, msg, sizeof msg) == GA_OK, "%s", msg);
    ga_result xy, yx;
    cr_expect(ga_pair_renyi(&xy, &yx, p, 2.0) == GA_EDOM, "Renyi divergences are not computed");
    ga_pair_free(p);
}

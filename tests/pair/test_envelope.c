/*
 * test_envelope.c - the supremum over a one-dimensional sensitivity envelope
 * (pair/type_envelope.c through ga_pair_reduce_envelope). References, independent of the
 * library's roots, slopes and cells:
 * - a brute-force grid: delta(m, R) of N(m, R) against N(0, 1) in closed form (double, libm's
 *   erfc, the event found from the log-likelihood ratio's quadratic written out here) over
 *   2001 variance ratios and 41 mean shifts; the bracket must contain the grid's largest value
 *   and reach it within a small relative distance (seeded random envelopes);
 * - the mean shift: the grid's value at the largest shift is its largest at every ratio (the
 *   monotonicity the supremum rests on);
 * - no variance change: the analytic Gaussian mechanism;
 * - the slope enclosure the cells are bounded with contains central differences of the
 *   closed form inside the cell;
 * - any direction (the chain-rule bound): at least the one-dimensional supremum and every
 *   two-dimensional member N((D cos t, D sin t), diag(r, 1)) against N(0, I) (the Gaussian
 *   engine, a second method), and the analytic Gaussian mechanism without a variance change;
 * - certified intervals contain the double bracket and are narrow.
 */
#include "gaussaudit.h"
#include "pair/pair.h" /* (ga_pair_envelope_slope) */
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GRID_R 2001
#define GRID_M 41
#define TOL_REACH 2e-3   /* the bracket's upper end within this of the grid's largest value */
#define TOL_ROUND 1e-12  /* the analytic Gaussian mechanism in double (relative) */
#define TOL_ABS 1e-300

static double qn(double x) /* P[Z > x] */
{
    return 0.5 * erfc(x / M_SQRT2);
}

static double closed_delta(double m, double R, double eps)
{
    return ga_test_normal_pair_delta(m, R, eps, NULL);
}

static double closed_delta_err(double m, double R, double eps, double *err)
{
    return ga_test_normal_pair_delta(m, R, eps, err);
}

static ga_pair *make_dir(double D, double rho, int any)
{
    ga_envelope_input in = {D, rho, any};
    ga_pair *p = NULL;
    char msg[256];
    cr_assert(ga_pair_reduce_envelope(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    return p;
}

static ga_pair *make(double D, double rho)
{
    return make_dir(D, rho, 0);
}

Test(envelope, bracket_contains_the_grid_and_the_mean_shift_is_monotone)
{
    gsl_rng *r = ga_test_rng(20261206);
    long cases = ga_test_count(40);
    for (long c = 0; c < cases; c++) {
        double D = pow(10, -1.5 + 2 * gsl_rng_uniform(r)), rho = pow(10, -4 + 4.3 * gsl_rng_uniform(r));
        double eps = pow(10, -1.5 + 2 * gsl_rng_uniform(r));
        double gmax = 0, gerr = 0;
        int mono = 1;
        for (int k = 0; k < GRID_R; k++) {
            double R = exp(-rho + 2 * rho * k / (GRID_R - 1)), te;
            double top = closed_delta_err(D, R, eps, &te);
            if (top > gmax)
                gmax = top, gerr = te;
            for (int i = 0; i < GRID_M && mono; i += 1 + (k % 7 != 0) * GRID_M) {
                double v = closed_delta(D * i / (GRID_M - 1), R, eps);
                if (v > top + 2 * te) {
                    mono = 0;
                    cr_expect(0, "case %ld (seed 20261206): D %.17g rho %.17g eps %.17g: delta "
                              "at the mean shift %.17g, ratio %.17g is %.17g > %.17g at D", c, D,
                              rho, eps, D * i / (GRID_M - 1), R, v, top);
                }
            }
        }
        ga_pair *p = make(D, rho);
        ga_delta d;
        int rc = ga_pair_delta(&d, p, eps, GA_DELTA_AUTO, NULL, NULL);
        double lo = d.xy.val - d.xy.err, hi = d.xy.val + d.xy.err;
        cr_expect(rc == GA_OK && lo <= gmax + gerr + TOL_ABS && hi >= gmax - gerr &&
                      hi <= gmax * (1 + TOL_REACH) + gerr + TOL_ABS && d.yx.val == d.xy.val,
                  "case %ld (seed 20261206): D %.17g rho %.17g eps %.17g: rc %d bracket [%.17g, "
                  "%.17g], grid maximum %.17g +- %.3g", c, D, rho, eps, rc, lo, hi, gmax, gerr);
        ga_pair_free(p);
    }
    gsl_rng_free(r);
}

Test(envelope, no_variance_change_is_the_gaussian_mechanism)
{
    static const double D[] = {0.05, 0.3, 1, 2.5}, E[] = {0, 0.1, 1, 3};
    for (size_t i = 0; i < 4; i++)
        for (size_t k = 0; k < 4; k++) {
            ga_pair *p = make(D[i], 0);
            ga_delta d;
            char eps[32];
            snprintf(eps, sizeof eps, "%g", E[k]);
            cr_assert(ga_pair_delta(&d, p, E[k], GA_DELTA_AUTO, NULL, NULL) == GA_OK);
            double wa = qn(E[k] / D[i] - D[i] / 2), wb = exp(E[k]) * qn(E[k] / D[i] + D[i] / 2);
            double want = wa - wb, werr = TOL_ROUND * (wa + wb); /* (the subtraction's rounding) */
            cr_expect(fabs(d.xy.val - want) <= d.xy.err + werr,
                      "D %g eps %g: %.17g +- %.3g, analytic %.17g", D[i], E[k], d.xy.val, d.xy.err, want);
            ga_delta_cert dc;
            cr_expect(ga_pair_delta_cert(&dc, p, NULL, NULL, eps, NULL) == GA_OK &&
                          dc.xy.lo <= want + werr && dc.xy.hi >= want - werr,
                      "D %g eps %g: certified [%.17g, %.17g], analytic %.17g", D[i], E[k], dc.xy.lo,
                      dc.xy.hi, want);
            ga_pair_free(p);
        }
}

Test(envelope, certified_contains_the_double_bracket)
{
    gsl_rng *r = ga_test_rng(20261207);
    long cases = ga_test_count(12);
    for (long c = 0; c < cases; c++) {
        double D = pow(10, -1 + 1.5 * gsl_rng_uniform(r)), rho = pow(10, -3 + 3.5 * gsl_rng_uniform(r));
        double e = round(1000 * pow(10, -1 + 1.3 * gsl_rng_uniform(r))) / 1000;
        char eps[32];
        snprintf(eps, sizeof eps, "%.3f", e);
        ga_pair *p = make(D, rho);
        ga_delta d;
        ga_delta_cert dc;
        cr_assert(ga_pair_delta(&d, p, e, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        int rc = ga_pair_delta_cert(&dc, p, NULL, NULL, eps, NULL);
        double lo = d.xy.val - d.xy.err, hi = d.xy.val + d.xy.err;
        /* both contain the supremum: they overlap, and the certified one is narrow */
        cr_expect(rc == GA_OK && dc.xy.lo <= hi && dc.xy.hi >= lo &&
                      dc.xy.hi - dc.xy.lo <= 1e-4 * dc.xy.hi && dc.yx.lo == dc.xy.lo,
                  "case %ld (seed 20261207): D %.17g rho %.17g eps %s: rc %d certified [%.17g, "
                  "%.17g], double [%.17g, %.17g]", c, D, rho, eps, rc, dc.xy.lo, dc.xy.hi, lo, hi);
        ga_pair_free(p);
    }
    gsl_rng_free(r);
}

Test(envelope, refuses_bad_inputs_and_renyi)
{
    static const double bad[][3] = {{0, 1, 0}, {-1, 1, 0}, {NAN, 1, 0}, {1, -0.1, 0}, {1, NAN, 0},
                                    {1, 21, 0}, {2e6, 1, 0}, {1, 1, 2}, {1, 1, -1}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ga_envelope_input in = {bad[i][0], bad[i][1], (int)bad[i][2]};
        ga_pair *p = NULL;
        char msg[256] = "";
        cr_expect(ga_pair_reduce_envelope(&p, &in, msg, sizeof msg) == GA_EINVAL && !p &&
                      strstr(msg, "envelope"), "case %zu: %s", i, msg);
    }
    ga_pair *p = make(0.5, 0.3);
    ga_result x, y;
    cr_expect(ga_pair_renyi(&x, &y, p, 2) == GA_EDOM);
    ga_delta d;
    cr_expect(ga_pair_delta(&d, p, -1, GA_DELTA_AUTO, NULL, NULL) == GA_EDOM);
    ga_pair_free(p);
}

#define TOL_SLOPE 1e-6 /* a central difference's truncation and rounding (relative to the
                          differences' scale) */

Test(envelope, slope_enclosure_contains_differences)
{
    gsl_rng *r = ga_test_rng(20261208);
    long cases = ga_test_count(300);
    for (long c = 0; c < cases; c++) {
        double m = pow(10, -1.5 + 2 * gsl_rng_uniform(r)), eps = pow(10, -1.5 + 1.8 * gsl_rng_uniform(r));
        int up = c % 2;
        double t0 = pow(10, -3 + 3 * gsl_rng_uniform(r)) * (up ? 1 : -1);
        double w = fabs(t0) * pow(10, -3 + 2.5 * gsl_rng_uniform(r));
        double r0 = exp(up ? t0 : t0 - w), r1 = exp(up ? t0 + w : t0);
        double lo, hi;
        cr_assert(ga_pair_envelope_slope(&lo, &hi, m, r0, r1, eps) == GA_OK);
        for (int k = 1; k < 8; k++) {
            double R = r0 + (r1 - r0) * k / 8, h = 1e-5 * (r1 - r0);
            double e1, e2, d1 = closed_delta_err(m, R + h, eps, &e1), d2 = closed_delta_err(m, R - h, eps, &e2);
            double fd = (d1 - d2) / (2 * h), slack = (e1 + e2) / (2 * h) + TOL_SLOPE * (fabs(fd) + fabs(lo) + fabs(hi));
            cr_expect(fd >= lo - slack && fd <= hi + slack,
                      "case %ld (seed 20261208): m %.17g eps %.17g cell [%.17g, %.17g]: difference "
                      "%.17g at R %.17g outside [%.17g, %.17g]", c, m, eps, r0, r1, fd, R, lo, hi);
        }
    }
    double lo, hi;
    cr_expect(ga_pair_envelope_slope(&lo, &hi, 1, 0.9, 1.1, 1) == GA_EINVAL);
    gsl_rng_free(r);
}

#define TOL_ENGINE 1e-9 /* the Gaussian engine's members (relative, beyond their error) */

/* delta_XY of N((a, b), diag(r, 1)) against N(0, I) by the Gaussian engine */
static double member2(double a, double b, double r, double eps)
{
    double mx[2] = {a, b}, my[2] = {0, 0}, sx[4] = {r, 0, 0, 1}, sy[4] = {1, 0, 0, 1};
    ga_pair_input in = {2, mx, my, sx, sy, 1, {NULL, NULL, NULL, NULL}};
    ga_pair *p;
    char msg[256];
    cr_assert(ga_pair_reduce(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    ga_delta d;
    cr_assert(ga_pair_delta(&d, p, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
    ga_pair_free(p);
    return d.xy.val - d.xy.err;
}

Test(envelope, any_direction_bounds_every_member)
{
    gsl_rng *r = ga_test_rng(20261210);
    long cases = ga_test_count(12);
    for (long c = 0; c < cases; c++) {
        double D = pow(10, -1 + 1.3 * gsl_rng_uniform(r)), rho = pow(10, -3 + 3.3 * gsl_rng_uniform(r));
        double eps = pow(10, -1 + 1.2 * gsl_rng_uniform(r));
        ga_pair *p = make_dir(D, rho, 1), *q = make(D, rho);
        ga_delta d, e;
        cr_assert(ga_pair_delta(&d, p, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        cr_assert(ga_pair_delta(&e, q, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        double ub = d.xy.val + d.xy.err, worst = e.xy.val - e.xy.err;
        for (int k = 0; k <= 6; k++)
            for (int s = -1; s <= 1; s += 2) {
                double t = M_PI / 2 * k / 6;
                worst = fmax(worst, member2(D * cos(t), D * sin(t), exp(s * rho), eps) * (1 - TOL_ENGINE));
            }
        cr_expect(ub >= worst && d.yx.val == d.xy.val,
                  "case %ld (seed 20261210): D %.17g rho %.17g eps %.17g: the chain-rule bound "
                  "%.17g below a member's %.17g", c, D, rho, eps, ub, worst);
        char et[32];
        snprintf(et, sizeof et, "%.17g", eps);
        ga_delta_cert dc;
        /* (the bound is its value at the eps1 its search finds, which may differ in the last
         * bits between a double eps and its decimal) */
        cr_expect(ga_pair_delta_cert(&dc, p, NULL, NULL, et, NULL) == GA_OK && dc.xy.hi >= worst &&
                      dc.xy.lo <= ub * (1 + TOL_ENGINE) && dc.xy.hi >= (d.xy.val - d.xy.err) * (1 - TOL_ENGINE),
                  "case %ld: certified [%.17g, %.17g], double %.17g +- %.3g", c, dc.xy.lo, dc.xy.hi,
                  d.xy.val, d.xy.err);
        ga_pair_free(p);
        ga_pair_free(q);
    }
    /* no variance change: the mean shift alone, the analytic Gaussian mechanism */
    ga_pair *p = make_dir(0.4, 0, 1);
    ga_delta d;
    cr_assert(ga_pair_delta(&d, p, 1, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
    double wa = qn(1 / 0.4 - 0.2), wb = exp(1) * qn(1 / 0.4 + 0.2);
    cr_expect(fabs(d.xy.val - (wa - wb)) <= d.xy.err + TOL_ROUND * (wa + wb), "%.17g +- %.3g, analytic %.17g",
              d.xy.val, d.xy.err, wa - wb);
    ga_pair_free(p);
    gsl_rng_free(r);
}

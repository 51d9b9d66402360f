/*
 * test_alloc.c - random allocation's upper bound (pair/alloc.c, pair/type_alloc.c through
 * ga_pair_reduce_allocation). References, independent of the library's:
 * - tests/data/alloc_renyi.h (tests/data/alloc_renyi.py, numpy): the divergences of one
 *   epoch of the dominating pair, remove (the multinomial sum, exact) and add (quadrature at
 *   two resolutions): the remove bound must equal it, the add bound lie above it and near it;
 * - closed forms: one step per epoch is the Gaussian mechanism (D_alpha = alpha / (2
 *   sigma^2)), and two steps' E M^2 = (1 + e^{1/sigma^2})/2, E M^3 = (e^{3/sigma^2} + 3
 *   e^{1/sigma^2})/4;
 * - the dominating pair simulated (seeded): its likelihood ratio's moments within five
 *   standard errors of the exact ones (remove) or below the bounds (add), and its deltas
 *   below the pair's in both directions;
 * - post-processing: the pair's delta lies between the sum test's (a lower bound: every
 *   epoch's sums added) and the Gaussian mechanism's of sensitivity sqrt(T), on seeded random
 *   cases, the certified interval around the double value.
 */
#include "gaussaudit.h"
#include "numerics/arb.h"
#include "pair/loss.h"
#include "tests/data/alloc_renyi.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_EXACT 1e-12  /* the remove direction: a rounded-up ball of the exact sum */
#define TOL_REF 1e-10    /* the table's remove values (numpy's sums in log space, in double) */
#define TOL_ADD 2e-3     /* the add bound above the reference, relative, orders <= 12 */
#define TOL_ADD_HIGH 1e-2 /* the same, order 20 (the bound's tail term is coarser there) */
#define TOL_ORDER 1e-12  /* an inequality may fail by this much relative (rounding) */
#define MC_SIGMAS 5.0    /* Monte-Carlo tolerance in standard errors */

static ga_pair *make(double sigma, double t, double T, const char *sigma_txt)
{
    ga_allocation_input in = {sigma, t, T, sigma_txt};
    ga_pair *p = NULL;
    char msg[256];
    cr_assert(ga_pair_reduce_allocation(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    return p;
}

static int order_index(const ga_alloc_renyi *R, int alpha)
{
    for (int i = 0; i < R->n; i++)
        if (R->alpha[i] == alpha)
            return i;
    return -1;
}

Test(alloc, divergences_against_the_reference_table, .timeout = 600)
{
    size_t n = sizeof alloc_renyi_ref / sizeof *alloc_renyi_ref;
    ga_alloc_renyi R;
    double sigma = 0, t = 0;
    for (size_t r = 0; r < n; r++) {
        if (alloc_renyi_ref[r].sigma != sigma || alloc_renyi_ref[r].t != t) {
            sigma = alloc_renyi_ref[r].sigma;
            t = alloc_renyi_ref[r].t;
            cr_assert(ga_alloc_renyi_make(&R, NULL, sigma, t, 0) == GA_OK);
        }
        int a = (int)alloc_renyi_ref[r].alpha, i = order_index(&R, a);
        cr_assert(i >= 0, "order %d not tabulated", a);
        double rm = alloc_renyi_ref[r].remove, ad = alloc_renyi_ref[r].add;
        double tol = a <= 12 ? TOL_ADD : TOL_ADD_HIGH;
        cr_expect(fabs(R.dx[i] - rm) <= TOL_REF * rm,
                  "sigma %g t %g alpha %d: remove %.17g, reference %.17g", sigma, t, a, R.dx[i],
                  rm);
        cr_expect(R.dy[i] >= ad - alloc_renyi_ref[r].unc && R.dy[i] <= ad * (1 + tol),
                  "sigma %g t %g alpha %d: add bound %.17g, reference %.17g (+- %.3g; at most "
                  "%g above)", sigma, t, a, R.dy[i], ad, alloc_renyi_ref[r].unc, tol);
    }
}

Test(alloc, closed_forms_at_one_and_two_steps)
{
    gsl_rng *rng = ga_test_rng(41);
    long n = ga_test_count(3);
    for (long k = 0; k < n; k++) {
        double sigma = 0.5 + 3 * gsl_rng_uniform(rng), c = 1 / (2 * sigma * sigma);
        ga_alloc_renyi R1, R2;
        cr_assert(ga_alloc_renyi_make(&R1, NULL, sigma, 1, 0) == GA_OK);
        cr_assert(ga_alloc_renyi_make(&R2, NULL, sigma, 2, 0) == GA_OK);
        for (int i = 0; i < R1.n; i++) {
            double g = R1.alpha[i] * c;
            cr_expect(fabs(R1.dx[i] - g) <= TOL_EXACT * g && fabs(R1.dy[i] - g) <= TOL_EXACT * g,
                      "sigma %.17g, one step, alpha %d: %.17g, %.17g, closed form %.17g", sigma,
                      R1.alpha[i], R1.dx[i], R1.dy[i], g);
            /* (two steps: between the mean of two and one whole step) */
            cr_expect(R2.dy[i] <= g * (1 + TOL_ORDER) && R2.dx[i] <= g * (1 + TOL_ORDER),
                      "sigma %.17g, two steps, alpha %d: %.17g, %.17g above one step's %.17g",
                      sigma, R2.alpha[i], R2.dx[i], R2.dy[i], g);
        }
        double d2 = log((1 + exp(2 * c)) / 2), d3 = log((exp(6 * c) + 3 * exp(2 * c)) / 4) / 2;
        int i2 = order_index(&R2, 2), i3 = order_index(&R2, 3);
        cr_expect(fabs(R2.dx[i2] - d2) <= TOL_EXACT * d2 && fabs(R2.dx[i3] - d3) <= TOL_EXACT * d3,
                  "sigma %.17g, two steps: D_2 %.17g (closed form %.17g), D_3 %.17g (%.17g)",
                  sigma, R2.dx[i2], d2, R2.dx[i3], d3);
    }
    gsl_rng_free(rng);
}

/* The dominating pair simulated: t steps, T epochs; under Q (without the record) each epoch's
 * ratio is the mean of exp(u_j/sigma - c) over its steps. */
Test(alloc, the_dominating_pair_simulated, .timeout = 600)
{
    static const struct { double sigma, t, T; } cases[] = {{0.8, 3, 1}, {1.5, 4, 2}, {1.1, 10, 3}};
    static const double eps[] = {0.1, 0.5, 1.5};
    gsl_rng *rng = ga_test_rng(7);
    long ns = 200000 * ga_test_count(1);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double sigma = cases[k].sigma, t = cases[k].t, T = cases[k].T, c = 1 / (2 * sigma * sigma);
        ga_alloc_renyi R;
        cr_assert(ga_alloc_renyi_make(&R, NULL, sigma, t, 0) == GA_OK);
        ga_pair *p = make(sigma, t, T, NULL);
        double m[2][3] = {{0}}; /* E L^2, E L^-1 (orders 2) and their squares; deltas below */
        double dl[3][2] = {{0}}, dl2[3][2] = {{0}};
        for (long s = 0; s < ns; s++) {
            double L = 1;
            for (int e = 0; e < (int)T; e++) {
                double M = 0;
                for (int j = 0; j < (int)t; j++)
                    M += exp(gsl_ran_ugaussian(rng) / sigma - c);
                L *= M / t;
            }
            m[0][0] += L * L;
            m[0][1] += L * L * L * L;
            m[1][0] += 1 / L;
            m[1][1] += 1 / (L * L);
            for (int e = 0; e < 3; e++) {
                double x = fmax(L - exp(eps[e]), 0), y = fmax(1 - exp(eps[e]) * L, 0);
                dl[e][0] += x;
                dl2[e][0] += x * x;
                dl[e][1] += y;
                dl2[e][1] += y * y;
            }
        }
        /* order 2: E L^2 = e^{T D_2(P||Q)}, E L^-1 = e^{T D_2(Q||P)} <= e^{T dy} */
        int i2 = order_index(&R, 2);
        for (int d = 0; d < 2; d++) {
            double mean = m[d][0] / ns, se = sqrt((m[d][1] / ns - mean * mean) / ns);
            double want = exp(T * (d ? R.dy[i2] : R.dx[i2]));
            cr_expect(d ? mean <= want + MC_SIGMAS * se : fabs(mean - want) <= MC_SIGMAS * se,
                      "sigma %g t %g T %g: E L^%s %.9g +- %.2g, %s %.9g", sigma, t, T,
                      d ? "-1" : "2", mean, se, d ? "bound" : "exact", want);
        }
        for (int e = 0; e < 3; e++) {
            ga_delta dv;
            cr_assert(ga_pair_delta(&dv, p, eps[e], GA_DELTA_AUTO, NULL, NULL) == GA_OK);
            for (int d = 0; d < 2; d++) {
                double mean = dl[e][d] / ns, se = sqrt((dl2[e][d] / ns - mean * mean) / ns);
                double b = d ? dv.yx.val : dv.xy.val;
                cr_expect(mean <= b + MC_SIGMAS * se, "sigma %g t %g T %g eps %g %s: simulated "
                          "delta %.9g +- %.2g above the bound %.9g", sigma, t, T, eps[e],
                          d ? "YX" : "XY", mean, se, b);
            }
        }
        ga_pair_free(p);
    }
    gsl_rng_free(rng);
}

Test(alloc, between_the_sum_test_and_the_gaussian_mechanism, .timeout = 600)
{
    gsl_rng *rng = ga_test_rng(1234);
    long n = ga_test_count(4);
    for (long k = 0; k < n; k++) {
        double sigma = 0.6 + 2.4 * gsl_rng_uniform(rng);
        double t = 2 + floor(400 * gsl_rng_uniform(rng)), T = 1 + floor(60 * gsl_rng_uniform(rng));
        char st[32];
        snprintf(st, sizeof st, "%.6f", sigma);
        sigma = atof(st);
        ga_pair *p = make(sigma, t, T, st);
        double prev = INFINITY;
        for (double eps = 0.05; eps < 8; eps *= 1.7) {
            ga_delta dv;
            cr_assert(ga_pair_delta(&dv, p, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
            double hi = ga_test_gdp_delta(sqrt(T) / sigma, eps), lo = ga_test_gdp_delta(sqrt(T / t) / sigma, eps);
            double v = fmax(dv.xy.val, dv.yx.val);
            cr_expect(dv.xy.val <= hi * (1 + TOL_ORDER) + 1e-300 &&
                          dv.yx.val <= hi * (1 + TOL_ORDER) + 1e-300 &&
                          v >= lo * (1 - TOL_ORDER) && v <= prev,
                      "sigma %s t %g T %g eps %g: bound %.17g, %.17g; the sum test %.17g, the "
                      "Gaussian %.17g, at the last eps %.17g", st, t, T, eps, dv.xy.val,
                      dv.yx.val, lo, hi, prev);
            prev = v;
            char es[32];
            snprintf(es, sizeof es, "%.17g", eps);
            ga_delta_cert dc;
            cr_assert(ga_pair_delta_cert(&dc, p, NULL, NULL, es, NULL) == GA_OK);
            /* (the decimal eps differs from the double in the 17th digit) */
            cr_expect(dc.xy.lo <= dv.xy.val * (1 + TOL_ORDER) &&
                          dv.xy.val <= dc.xy.hi * (1 + TOL_ORDER) &&
                          dc.yx.lo <= dv.yx.val * (1 + TOL_ORDER) &&
                          dv.yx.val <= dc.yx.hi * (1 + TOL_ORDER),
                      "sigma %s t %g T %g eps %g: certified [%.17g, %.17g], [%.17g, %.17g] "
                      "around %.17g, %.17g", st, t, T, eps, dc.xy.lo, dc.xy.hi, dc.yx.lo,
                      dc.yx.hi, dv.xy.val, dv.yx.val);
        }
        ga_pair_free(p);
    }
    gsl_rng_free(rng);
}

Test(alloc, renyi_divergences_of_the_bound)
{
    ga_pair *p = make(1.1, 235, 60, "1.1");
    ga_alloc_renyi R;
    cr_assert(ga_alloc_renyi_make(&R, "1.1", 1.1, 235, 0) == GA_OK);
    ga_result x2, y2, x3, y3, xm, ym;
    cr_assert(ga_pair_renyi(&x2, &y2, p, 2) == GA_OK);
    cr_assert(ga_pair_renyi(&x3, &y3, p, 3) == GA_OK);
    cr_assert(ga_pair_renyi(&xm, &ym, p, 2.5) == GA_OK);
    int i2 = order_index(&R, 2);
    cr_expect(fabs(x2.val - 60 * R.dx[i2]) <= TOL_ORDER * x2.val &&
                  fabs(y2.val - 60 * R.dy[i2]) <= TOL_ORDER * y2.val,
              "D_2 %.17g, %.17g against 60 epochs' %.17g, %.17g", x2.val, y2.val, 60 * R.dx[i2],
              60 * R.dy[i2]);
    /* between the orders: at least the lower one's, at most the higher one's */
    cr_expect(x2.val <= xm.val && xm.val <= x3.val && y2.val <= ym.val && ym.val <= y3.val,
              "D_2.5 %.17g, %.17g outside [%.17g, %.17g], [%.17g, %.17g]", xm.val, ym.val,
              x2.val, x3.val, y2.val, y3.val);
    ga_interval cx, cy;
    cr_assert(ga_pair_renyi_cert(&cx, &cy, p, NULL, NULL, "2.5", NULL) == GA_OK);
    cr_expect(cx.lo <= xm.val && xm.val <= cx.hi && cy.lo <= ym.val && ym.val <= cy.hi,
              "certified D_2.5 [%.17g, %.17g], [%.17g, %.17g] around %.17g, %.17g", cx.lo, cx.hi,
              cy.lo, cy.hi, xm.val, ym.val);
    /* above the largest order: the Gaussian's alpha T / (2 sigma^2) */
    cr_assert(ga_pair_renyi(&xm, &ym, p, 200) == GA_OK);
    double g = 200 * 60 / (2 * 1.21);
    cr_expect(fabs(xm.val - g) <= 1e-12 * g, "D_200 %.17g, the Gaussian's %.17g", xm.val, g);
    ga_pair_free(p);
}

Test(alloc, invalid_inputs_are_refused)
{
    static const ga_allocation_input bad[] = {
        {0, 10, 1, NULL}, {1, 0, 1, NULL}, {1, 1.5, 1, NULL}, {1, 10, 0, NULL},
        {1, 10, 1e5, NULL}, {1, 2e7, 1, NULL}, {1, 10, 1, "1e"}, {NAN, 10, 1, NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ga_pair *p = (ga_pair *)1;
        char msg[256] = "";
        cr_expect(ga_pair_reduce_allocation(&p, &bad[i], msg, sizeof msg) == GA_EINVAL &&
                      p == NULL && strstr(msg, "random allocation pair"),
                  "row %zu: accepted (%s)", i, msg);
    }
}

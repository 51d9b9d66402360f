/*
 * test_masked.c - matrix masking's setting (B) for one column (pair/masked.c, through
 * the public ga_pair_reduce_masked): delta of a pair of noncentral chi-square laws.
 * References, independent of the library's formulas:
 * - delta = int (f_a - e^eps f_b)_+ by GSL adaptive quadrature of the densities in their
 *   Bessel form f(w) = e^{-(w + lam)/2} (w/lam)^{nu/4 - 1/2} I_{nu/2 - 1}(sqrt(lam w)) / 2
 *   (GSL's scaled Bessel I; nu = 1 by I_{-1/2}(z) = sqrt(2/(pi z)) cosh z), not the Poisson
 *   mixture the library sums;
 * - the tails at the threshold against the library's generalized chi-square engine (a single
 *   term 1 * chi^2_nu(lam): the Bromwich integral, another method);
 * - setting (A), the Gaussian mechanism with the same shift, bounds delta from above (the
 *   paper's Lemma 2.3); the universe worst case (l^2/sigma^2 against 0) dominates every
 *   neighbour's exact pair (seeded random datasets);
 * - certified intervals (Arb) contain the double values within their error estimates.
 */
#include "gaussaudit.h"
#include "pair/loss.h"
#include "pair/pair.h" /* (ga_pair_describe_event, ga_pair_no_renyi) */
#include "tests/support.h"

#include <criterion/criterion.h>
#include <float.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_bessel.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOL_QUAD 1e-9     /* relative, against quadrature at 1e-12 (plus the error estimates) */
#define TOL_ENGINE 1e-10  /* tails against the generalized chi-square engine */
#define TOL_ORDER 1e-12   /* an inequality may fail by this much relative (rounding) */


typedef struct {
    double nu, la, lb, ee;
} qp_t;

static double integrand(double w, void *v)
{
    qp_t *p = v;
    double d = ga_test_ncx2_pdf(p->nu, p->la, w) - p->ee * ga_test_ncx2_pdf(p->nu, p->lb, w);
    return d > 0 ? d : 0;
}

/* int_0^inf (f_a - e^eps f_b)_+: [0, W] with breakpoints every few standard deviations
 * (W far beyond both laws' mass), the integrand's kink found by the quadrature itself */
static double quad_delta(double nu, double la, double lb, double eps, double *abserr)
{
    qp_t p = {nu, la, lb, exp(eps)};
    gsl_function F = {integrand, &p};
    double m = nu + fmax(la, lb), sd = sqrt(2 * nu + 4 * fmax(la, lb));
    double W = m + 60 * sd + 200, pts[202];
    size_t np = 0;
    pts[np++] = 0;
    for (int k = 1; k < 200; k++) {
        double x = m - 30 * sd + k * 0.45 * sd;
        if (x > pts[np - 1] && x < W)
            pts[np++] = x;
    }
    pts[np++] = W;
    gsl_integration_workspace *ws = gsl_integration_workspace_alloc(4000);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    double r = 0;
    int st = gsl_integration_qagp(&F, pts, np, 0, 1e-12, 4000, ws, &r, abserr);
    gsl_set_error_handler(old);
    gsl_integration_workspace_free(ws);
    cr_assert(st == 0 || st == GSL_EROUND, "quadrature failed (%s) nu %g la %g lb %g eps %g",
              gsl_strerror(st), nu, la, lb, eps);
    return r;
}

/* a table: n, sigma, |x|, |x'|, eps (both directions are checked) */
static const struct {
    double n, sigma, nx, ny, eps;
} cases[] = {
    {1, 0.7, 1, 0, 1},       /* one row: I_{-1/2} */
    {1, 0.5, 0.3, 1, 0.2},
    {2, 0.8, 1, 0, 0.5},
    {3, 0.6, 1.2, 0.4, 0.3},
    {5, 0.5, 1, 0.3, 0.5},
    {20, 1, 2, 1, 0.1},
    {100, 0.8358755991721479, 1, 0, 0.1}, /* the exact calibration of the gallery */
    {100, 1.3, 1, 0, 0.1},
    {100, 1, 8, 7.9, 0.05},  /* both noncentral */
    {1000, 0.5, 1, 0, 0.2},
    {10000, 0.3, 1, 0, 0.05},
};

Test(masked, delta_against_quadrature_of_the_densities)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ga_pair *p = ga_test_masked_pair(cases[i].n, cases[i].sigma, cases[i].nx, cases[i].ny);
        ga_delta d;
        cr_assert(ga_pair_delta(&d, p, cases[i].eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        double lx = pow(cases[i].nx / cases[i].sigma, 2), ly = pow(cases[i].ny / cases[i].sigma, 2);
        for (int dir = 0; dir < 2; dir++) {
            double qe, q = quad_delta(cases[i].n, dir ? ly : lx, dir ? lx : ly, cases[i].eps, &qe);
            ga_result r = dir ? d.yx : d.xy;
            cr_expect(fabs(r.val - q) <= TOL_QUAD * q + r.err + qe + 1e-300,
                      "case %zu dir %d: %.17g +- %.3g, quadrature %.17g +- %.3g (n %g sigma %g "
                      "|x| %g |x'| %g eps %g)", i, dir, r.val, r.err, q, qe, cases[i].n,
                      cases[i].sigma, cases[i].nx, cases[i].ny, cases[i].eps);
            cr_expect(r.err <= 1e-8 * q + 1e-15, "case %zu dir %d: error estimate %.3g for %.3g",
                      i, dir, r.err, q);
        }
        ga_pair_free(p);
    }
}

Test(masked, tails_against_the_generalized_chi_square_engine)
{
    double nus[] = {1, 4, 30, 200}, lams[] = {0, 0.3, 5, 40}, qs[] = {0.01, 0.5, 0.99};
    ga_gchisq_work *ws = ga_gchisq_work_alloc();
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 4; b++) {
            ga_gchisq *q = ga_gchisq_alloc(1);
            double w1 = 1, dof = nus[a], nc = lams[b];
            cr_assert(q && ga_gchisq_set_classical(q, 1, &w1, &dof, &nc, 0, 0, NULL, 0) == GA_OK);
            double mean = nus[a] + lams[b], sd = sqrt(2 * nus[a] + 4 * lams[b]);
            for (size_t k = 0; k < 3; k++) {
                double w = fmax(mean + gsl_cdf_ugaussian_Pinv(qs[k]) * sd, 0.05 * mean), Q, P;
                ga_gchisq_prob pr;
                cr_assert(ga_gchisq_prob_eval(&pr, q, w, NULL, ws) == GA_OK);
                cr_assert(ga_ncx2_tail(&Q, &P, nus[a], lams[b], w) == GA_OK);
                cr_expect(fabs(Q - pr.sf.val) <= TOL_ENGINE * pr.sf.val + pr.sf.err &&
                          fabs(P - pr.cdf.val) <= TOL_ENGINE * pr.cdf.val + pr.cdf.err,
                          "nu %g lam %g w %g: Q %.17g P %.17g, engine %.17g %.17g", nus[a],
                          lams[b], w, Q, P, pr.sf.val, pr.cdf.val);
            }
            ga_gchisq_free(q);
        }
    ga_gchisq_work_free(ws);
}

/* delta of the Gaussian mechanism N(t, s^2) vs N(0, s^2) at eps (both directions equal) */
Test(masked, universe_worst_case_dominates_neighbours_and_setting_a_bounds_it)
{
    gsl_rng *rng = ga_test_rng(19);
    long count = ga_test_count(30);
    for (long c = 0; c < count; c++) {
        size_t n = 1 + gsl_rng_uniform_int(rng, 60);
        double sigma = 0.3 + 2 * gsl_rng_uniform(rng), eps = 0.02 + 1.5 * gsl_rng_uniform(rng);
        double l = 0.5 + gsl_rng_uniform(rng), s2 = 0;
        size_t i0 = gsl_rng_uniform_int(rng, n);
        double xi = 0, s2y;
        for (size_t i = 0; i < n; i++) {
            double x = l * (2 * gsl_rng_uniform(rng) - 1);
            s2 += x * x;
            if (i == i0)
                xi = x;
        }
        s2y = s2 - xi * xi; /* zero_out row i0 */
        ga_pair *nb = ga_test_masked_pair((double)n, sigma, sqrt(s2), sqrt(s2y));
        ga_pair *wc = ga_test_masked_pair((double)n, sigma, l, 0);
        ga_delta dn, dw;
        cr_assert(ga_pair_delta(&dn, nb, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        cr_assert(ga_pair_delta(&dw, wc, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        double a = ga_test_gdp_delta(l / sigma, eps);
        double vn = fmax(dn.xy.val, dn.yx.val), vw = fmax(dw.xy.val, dw.yx.val);
        cr_expect(vn <= vw * (1 + TOL_ORDER) + dn.xy.err + dw.xy.err + 1e-300,
                  "seed 19 case %ld: neighbour %.17g above the worst case %.17g (n %zu sigma %g "
                  "l %g eps %g |x|^2 %g |x'|^2 %g)", c, vn, vw, n, sigma, l, eps, s2, s2y);
        cr_expect(vw <= a * (1 + TOL_ORDER) + dw.xy.err + dw.yx.err + 1e-300,
                  "seed 19 case %ld: masked %.17g above setting (A) %.17g (n %zu sigma %g l %g "
                  "eps %g)", c, vw, a, n, sigma, l, eps);
        ga_pair_free(nb);
        ga_pair_free(wc);
    }
    gsl_rng_free(rng);
}

Test(masked, delta_increases_with_the_noncentrality)
{
    /* a smaller change is a post-processing of a larger one */
    double prev[2] = {0, 0};
    for (double l = 0.1; l <= 3; l += 0.1) {
        ga_pair *p = ga_test_masked_pair(7, 1, l, 0);
        ga_delta d;
        cr_assert(ga_pair_delta(&d, p, 0.3, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        cr_expect(d.xy.val >= prev[0] * (1 - TOL_ORDER) && d.yx.val >= prev[1] * (1 - TOL_ORDER),
                  "l %g: %.17g %.17g after %.17g %.17g", l, d.xy.val, d.yx.val, prev[0], prev[1]);
        prev[0] = d.xy.val;
        prev[1] = d.yx.val;
        ga_pair_free(p);
    }
}

Test(masked, certified_intervals_contain_the_double_values)
{
    gsl_rng *rng = ga_test_rng(1919);
    long count = ga_test_count(8);
    /* two fixed large cases (where the double error estimate must cover rounding in exponents
     * of size 1e6), then seeded random ones */
    static const double fixed[][5] = {{1e6, 0.08, 1, 0, 0.1}, {1e4, 0.26, 1, 0.5, 0.1}};
    for (long c = -2; c < count; c++) {
        double n = 1 + (double)gsl_rng_uniform_int(rng, 400);
        double sigma = 0.3 + 3 * gsl_rng_uniform(rng), eps = 0.01 + 1.2 * gsl_rng_uniform(rng);
        double nx = 2 * gsl_rng_uniform(rng), ny = 2 * gsl_rng_uniform(rng);
        if (c < 0) {
            n = fixed[c + 2][0];
            sigma = fixed[c + 2][1];
            nx = fixed[c + 2][2];
            ny = fixed[c + 2][3];
            eps = fixed[c + 2][4];
        }
        char es[32], ss[32], xs[32], ys[32];
        snprintf(es, sizeof es, "%.6f", eps);
        snprintf(ss, sizeof ss, "%.6f", sigma);
        snprintf(xs, sizeof xs, "%.6f", nx);
        snprintf(ys, sizeof ys, "%.6f", ny);
        /* the decimals are the parameters: both paths read the same numbers */
        eps = atof(es), sigma = atof(ss), nx = atof(xs), ny = atof(ys);
        ga_masked_input in = {n, sigma, nx, ny, ss, xs, ys};
        ga_pair *p;
        char msg[256];
        cr_assert(ga_pair_reduce_masked(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta d;
        cr_assert(ga_pair_delta(&d, p, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        ga_cert_opts o;
        ga_cert_opts_init(&o);
        o.digits = 15;
        ga_delta_cert ce;
        int st = ga_pair_delta_cert(&ce, p, NULL, NULL, es, &o);
        cr_expect(st == GA_OK, "seed 1919 case %ld: status %d (n %g sigma %s |x| %s |x'| %s eps %s)",
                  c, st, n, ss, xs, ys, es);
        for (int dir = 0; dir < 2; dir++) {
            ga_result r = dir ? d.yx : d.xy;
            ga_interval iv = dir ? ce.yx : ce.xy;
            cr_expect(iv.lo <= r.val + r.err && r.val - r.err <= iv.hi,
                      "seed 1919 case %ld dir %d: %.17g +- %.3g outside [%.17g, %.17g] (n %g "
                      "sigma %s |x| %s |x'| %s eps %s)", c, dir, r.val, r.err, iv.lo, iv.hi, n,
                      ss, xs, ys, es);
            cr_expect(iv.hi - iv.lo <= 1e-14 * iv.hi + 1e-300,
                      "seed 1919 case %ld dir %d: width %.3g of [%.17g, %.17g]", c, dir,
                      iv.hi - iv.lo, iv.lo, iv.hi);
        }
        ga_pair_free(p);
    }
    gsl_rng_free(rng);
}

Test(masked, no_event_and_equal_laws_are_exactly_zero)
{
    ga_pair *p = ga_test_masked_pair(10, 1, 1, 1); /* the same law */
    ga_delta d;
    cr_assert(ga_pair_delta(&d, p, 0, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
    cr_expect(d.xy.val == 0 && d.yx.val == 0 && d.xy.err == 0);
    ga_pair_free(p);
    /* the loss of Y against X is at most (lx - ly)/2 = 0.5: nothing beyond eps = 0.5 */
    p = ga_test_masked_pair(10, 1, 1, 0);
    cr_assert(ga_pair_delta(&d, p, 0.5, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
    cr_expect(d.yx.val == 0 && d.yx.err == 0 && d.xy.val > 0, "%.17g %.17g", d.xy.val, d.yx.val);
    ga_delta_cert ce;
    cr_assert(ga_pair_delta_cert(&ce, p, NULL, NULL, "0.5", NULL) == GA_OK);
    cr_expect(ce.yx.lo == 0 && ce.yx.hi == 0 && ce.xy.lo > 0);
    cr_assert(ga_pair_delta(&d, p, 0.49, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
    cr_expect(d.yx.val > 0, "just below the bound there is an event: %.17g", d.yx.val);
    ga_pair_free(p);
}

Test(masked, epsilon_and_the_other_functions)
{
    ga_pair *p = ga_test_masked_pair(100, 0.8358755991721479, 1, 0);
    ga_result e;
    int dir;
    cr_assert(ga_pair_epsilon(&e, &dir, p, 0.01, NULL, NULL) == GA_OK);
    cr_expect(fabs(e.val - 0.1) <= 1e-8, "eps(0.01) = %.17g, the calibration's 0.1", e.val);
    ga_result r1, r2;
    double eps;
    int order;
    cr_expect(ga_pair_renyi(&r1, &r2, p, 2) == GA_OK && r1.val > 0 && r2.val > 0);
    cr_expect(ga_pair_rdp_accountant(&eps, &order, p, 1e-5) == GA_EDOM);
    cr_expect(ga_pair_pld_accountant(&eps, p, 1e-5, 0) == GA_EDOM);
    ga_pair_free(p);
}

Test(masked, invalid_inputs)
{
    static const struct {
        ga_masked_input in;
        const char *says;
    } bad[] = {
        {{0, 1, 1, 0, NULL, NULL, NULL}, "rows"},
        {{2.5, 1, 1, 0, NULL, NULL, NULL}, "rows"},
        {{10, 1e-4, 1, 0, NULL, NULL, NULL}, "sigma"},
        {{10, NAN, 1, 0, NULL, NULL, NULL}, "sigma"},
        {{10, 1, -1, 0, NULL, NULL, NULL}, "norms"},
        {{10, 0.001, 100, 0, NULL, NULL, NULL}, "noncentralities"},
        {{10, 1, 1, 0, "1x", NULL, NULL}, "plain decimals"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ga_pair *p = (ga_pair *)1;
        char msg[256] = "";
        cr_expect(ga_pair_reduce_masked(&p, &bad[i].in, msg, sizeof msg) == GA_EINVAL, "row %zu", i);
        cr_expect(p == NULL && strstr(msg, bad[i].says), "row %zu: %s", i, msg);
    }
}

/* calibrate on one column (the proven worst case): the value is where the independent
 * quadrature of delta crosses the claim */
Test(masked, calibration_is_where_the_quadrature_crosses_the_claim)
{
    char path[] = "/tmp/ga_mcalXXXXXX", args[300], *out, *err;
    ga_test_temp_spec(path, "gaussaudit: 1\nmechanism: {kind: matrix_masking, masking: orthogonal, sigma: 5, rows: 100}\n"
          "neighbours: zero_out\nuniverse: {row_norm_bound: 1}\nclaim: {epsilon: 0.1, delta: 0.01}\n");
    snprintf(args, sizeof args, "calibrate %s --epsilon 0.1 --delta 0.01 --format json", path);
    int st = ga_test_run(args, &out, &err);
    cr_assert(st == 0, "status %d: %s", st, err);
    const char *v = strstr(out, "\"value\": ");
    cr_assert(v && strstr(out, "\"certified\": true"), "%s", out);
    double sigma = atof(v + 9), qe;
    double at = quad_delta(100, 1 / (sigma * sigma), 0, 0.1, &qe);
    double below = quad_delta(100, 1 / pow(sigma * (1 - 1e-6), 2), 0, 0.1, &qe);
    cr_expect(fabs(at - 0.01) <= 1e-9 && below > 0.01, "sigma %.17g: quadrature delta %.17g, "
              "%.17g at 1e-6 below", sigma, at, below);
    unlink(path);
    free(out);
    free(err);
}

/* A masked pair states its own event (a threshold on the released column's squared norm),
 * which attains delta both ways; its Renyi divergences are computed (no refusal). */
Test(masked, states_its_event)
{
    static const double cases[][5] = {{10, 1, 0.5, 1.5, 0.3}, {100, 2, 3, 1, 1}, {5, 0.5, 0, 1, 0.1}};
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const double *c = cases[k];
        ga_pair *p = ga_test_masked_pair(c[0], c[1], c[2], c[3]);
        const char *why = ga_pair_no_renyi(p);
        cr_expect(why == NULL, "case %zu: %s", k, why ? why : "NULL");
        ga_delta D;
        cr_assert(ga_pair_delta(&D, p, c[4], GA_DELTA_AUTO, NULL, w) == GA_OK, "case %zu", k);
        for (int dir = 1; dir <= 2; dir++) {
            char text[512];
            double px, py, want = dir == 1 ? D.xy.val : D.yx.val;
            double err = dir == 1 ? D.xy.err : D.yx.err;
            cr_assert(ga_pair_describe_event(text, sizeof text, &px, &py, p, c[4], dir) == GA_OK);
            double got = dir == 1 ? px - exp(c[4]) * py : py - exp(c[4]) * px;
            cr_expect(fabs(got - want) <= TOL_QUAD * want + err + 1e-14,
                      "case %zu dir %d: '%s' gives %.17g, delta %.17g (+- %.2g)", k, dir, text,
                      got, want, err);
        }
        ga_pair_free(p);
    }
    ga_gchisq_work_free(w);
}

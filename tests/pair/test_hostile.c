/*
 * test_hostile.c - numerically hostile inputs: extreme scales, condition
 * numbers up to 1e14, eigenvalues equal to many digits, means of 1e8 against unit
 * covariances, eps from 1e-9 to 50, huge and tiny weights and points. Each case must give
 * the right answer within its error estimate (against a closed form, an invariance, or the
 * certified path) or a status that says why; certified intervals must contain the truth.
 */
#include "gaussaudit.h"
#include "numerics/numerics.h" /* M_PI, M_SQRT2 */
#include "tests/support.h"

#include <criterion/criterion.h>
#include <float.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static void fini(void)
{
    ga_cleanup();
}
TestSuite(hostile, .fini = fini);

/* ------------------------------------------------------------ generalized chi-square */

typedef struct {
    const char *name;
    size_t n;
    double w[4], dof[4], nc[4], sigma, off, x;
    double ref_sf;  /* NAN: use the certified path as the reference */
    double tol;     /* absolute tolerance on top of the error estimate */
} gq_case;

static void check_gq(const gq_case *c)
{
    ga_gchisq *q = ga_gchisq_alloc(4);
    char msg[256];
    int st = ga_gchisq_set_classical(q, c->n, c->w, c->dof, c->nc, c->sigma, c->off, msg, sizeof msg);
    cr_assert(st == GA_OK, "%s: %s", c->name, msg);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_gchisq_prob p;
    st = ga_gchisq_prob_eval(&p, q, c->x, NULL, w);
    cr_expect(st == GA_OK || st == GA_ETOL, "%s: status %d", c->name, st);
    cr_expect(p.sf.val >= 0 && p.sf.val <= 1 && p.cdf.val >= 0 && p.cdf.val <= 1, "%s: out of [0,1]", c->name);
    double ref = c->ref_sf;
    if (isnan(ref)) { /* the certified path at the same exact (binary) inputs */
        ga_gchisq_exact *e = ga_gchisq_exact_alloc();
        ga_gchisq_exact_set_form(e, q);
        char xs[64];
        snprintf(xs, sizeof xs, "%.17g", c->x);
        ga_gchisq_cert cc;
        ga_cert_opts o;
        ga_cert_opts_init(&o);
        o.digits = 12;
        int cs = ga_gchisq_prob_cert(&cc, e, xs, &o);
        cr_expect(cs == GA_OK || cs == GA_EPREC, "%s: certified status %d", c->name, cs);
        cr_expect(cc.sf.lo <= p.sf.val + p.sf.err + c->tol && p.sf.val - p.sf.err - c->tol <= cc.sf.hi,
                  "%s: sf %.17g +- %.2g outside the certified [%.17g, %.17g]", c->name, p.sf.val,
                  p.sf.err, cc.sf.lo, cc.sf.hi);
        ga_gchisq_exact_free(e);
    } else {
        cr_expect(fabs(p.sf.val - ref) <= p.sf.err + c->tol,
                  "%s: sf %.17g +- %.2g vs %.17g", c->name, p.sf.val, p.sf.err, ref);
    }
    ga_gchisq_work_free(w);
    ga_gchisq_free(q);
}

Test(hostile, generalized_chi_square_cases)
{
    double q05 = gsl_sf_gamma_inc_Q(0.5, 0.5);
    gq_case cases[] = {
        {"weight 1e300", 1, {1e300}, {1}, {0}, 0, 0, 1e300, q05, 1e-14},
        {"weight 1e-300", 1, {1e-300}, {1}, {0}, 0, 0, 1e-300, q05, 1e-14},
        {"weights 1e10 and 1e-10", 2, {1e10, 1e-10}, {1, 1}, {0, 0}, 0, 0, 1e10, q05, 1e-9},
        {"x = 1e300", 2, {1, 2}, {1, 1}, {0, 0}, 0, 0, 1e300, 0, 0},
        {"x = -1e300, definite", 2, {1, 2}, {1, 1}, {0, 0}, 0, 0, -1e300, 1, 0},
        {"x = 0, central definite", 2, {1, 2}, {1, 1}, {0, 0}, 0, 0, 0, 1, 0},
        {"sigma 1e-150 alone", 0, {0}, {0}, {0}, 1e-150, 0, 0, 0.5, 1e-15},
        {"weights 1e308 twice", 2, {1e308, 1e308}, {1, 1}, {0, 0}, 0, 0, 1e308, exp(-0.5), 1e-15},
        {"x = 1e-320, chi2(1)", 1, {1}, {1}, {0}, 0, 0, 1e-320, 1 - sqrt(2e-320 / M_PI), 1e-15},
        {"nearly equal weights", 2, {1, 1 + 1e-15}, {1, 1}, {0, 0}, 0, 0, 10, exp(-5), 1e-12},
        {"symmetric indefinite at 0", 2, {1, -1}, {1, 1}, {0, 0}, 0, 0, 0, 0.5, 1e-14},
        {"noncentrality 1e6", 1, {1}, {1}, {1e6}, 0, 0, 1e6 + 1, NAN, 1e-9},
        {"dof 1e15", 1, {1}, {1e15}, {0}, 0, 0, 1e15 + 1e7, NAN, 1e-9},
        {"chi2 with 1e5 dof far tail", 1, {1}, {1e5}, {0}, 0, 0, 1.2e5, gsl_sf_gamma_inc_Q(5e4, 6e4), 1e-300},
        {"offset 1e8 plus unit chi2", 1, {1}, {2}, {0}, 0, 1e8, 1e8 + 4, exp(-2), 1e-8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_gq(&cases[i]);
}

/* A lower-tail saddle pressed against the pole of the negative term while a large
 * noncentral term pulls the mean far up: Q = 2 chi2(1, 2) - chi2(1, 3) + chi2(1, L) at
 * x = 5.1. A path that bends at once climbs e^17 (L = 1000) to e^2700 (L = 1e6) above the
 * saddle value and cancels its digits away; the bend is delayed until the path no longer
 * climbs, and the near-1 side is 1 minus the far tail. Reference: the certified path
 * (5.7895685556730775062e-99 at L = 1000, and a tail below the double range beyond). */
Test(hostile, saddle_against_a_pole)
{
    double w[3] = {2, -1, 1}, dof[3] = {1, 1, 1}, L[] = {1000, 22221, 1e6, 2.2222221e8};
    ga_gchisq *q = ga_gchisq_alloc(4);
    ga_gchisq_work *wk = ga_gchisq_work_alloc();
    ga_gchisq_exact *e = ga_gchisq_exact_alloc();
    for (size_t i = 0; i < sizeof L / sizeof *L; i++) {
        double nc[3] = {2, 3, L[i]};
        cr_assert(ga_gchisq_set_classical(q, 3, w, dof, nc, 0, 0, NULL, 0) == GA_OK);
        ga_gchisq_prob p;
        int st = ga_gchisq_prob_eval(&p, q, 5.1, NULL, wk);
        cr_expect(st == GA_OK, "L = %g: status %d", L[i], st);
        cr_expect(fabs(p.sf.val - 1) <= p.sf.err && p.sf.err <= 1e-15, "L = %g: sf %.17g +- %.2g",
                  L[i], p.sf.val, p.sf.err);
        if (i > 0) {
            cr_expect(p.cdf.val == 0 && p.cdf.err == 0, "L = %g: cdf %.17g +- %.2g", L[i], p.cdf.val, p.cdf.err);
            continue;
        }
        ga_gchisq_exact_set_form(e, q);
        ga_gchisq_cert c;
        ga_cert_opts o;
        ga_cert_opts_init(&o);
        cr_expect(ga_gchisq_prob_cert(&c, e, "5.0999999999999996447286321199499070644378662109375", &o) == GA_OK);
        cr_expect(c.cdf.lo <= p.cdf.val + p.cdf.err && p.cdf.val - p.cdf.err <= c.cdf.hi &&
                      p.cdf.err <= 1e-10 * p.cdf.val,
                  "L = %g: cdf %.17g +- %.2g, certified [%.17g, %.17g]", L[i], p.cdf.val, p.cdf.err,
                  c.cdf.lo, c.cdf.hi);
        cr_expect(fabs(c.cdf.lo / 5.7895685556730775062e-99 - 1) < 1e-15, "certified lo %.17g", c.cdf.lo);
    }
    /* certified at L = 22221: the far tail itself, not just a bound (the delayed bend) */
    double nc[3] = {2, 3, 22221};
    ga_gchisq_set_classical(q, 3, w, dof, nc, 0, 0, NULL, 0);
    ga_gchisq_exact_set_form(e, q);
    ga_gchisq_cert c;
    ga_cert_opts o;
    ga_cert_opts_init(&o);
    o.digits = 15;
    int cs = ga_gchisq_prob_cert(&c, e, "5.1", &o);
    cr_expect(cs == GA_OK && strncmp(c.cdf_lo, "1.854570033391694", 17) == 0 && strstr(c.cdf_lo, "e-2359"),
              "status %d, cdf in [%s, %s]", cs, c.cdf_lo, c.cdf_hi);
    /* and at L = 2.2222221e8 (a fuzz input that took 4 s for the Chernoff bound alone) */
    nc[2] = 2.2222221e8;
    ga_gchisq_set_classical(q, 3, w, dof, nc, 0, 0, NULL, 0);
    ga_gchisq_exact_set_form(e, q);
    cs = ga_gchisq_prob_cert(&c, e, "5.1", &o);
    cr_expect(cs == GA_OK && strncmp(c.cdf_lo, "4.562283687373227", 17) == 0 && strstr(c.cdf_lo, "e-24121868"),
              "status %d, cdf in [%s, %s]", cs, c.cdf_lo, c.cdf_hi);
    ga_gchisq_exact_free(e);
    ga_gchisq_work_free(wk);
    ga_gchisq_free(q);
}

/* ------------------------------------------------------------ pairs */

static ga_pair *pair(size_t d, const double *mx, const double *sx, const double *my, const double *sy)
{
    ga_pair_input in = {d, mx, my, sx, sy, 1, {NULL, NULL, NULL, NULL}};
    ga_pair *p;
    char msg[256];
    cr_assert(ga_pair_reduce(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    return p;
}

static double agm(double t, double eps)
{
    return gsl_cdf_ugaussian_P(t / 2 - eps / t) - exp(eps) * gsl_cdf_ugaussian_P(-t / 2 - eps / t);
}

Test(hostile, pair_cases)
{
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_delta D;
    double one = 1, zero = 0;
    struct {
        const char *name;
        double mx, my, eps, ref, tol;
    } eq[] = {
        {"means 1e8 apart", 1e8, 0, 1, 1, 1e-15},
        {"means 1e8 + 0.5 vs 1e8", 1e8 + 0.5, 1e8, 1, agm(0.5, 1), 1e-14},
        {"eps = 50", 1, 0, 50, 0, 1e-300},
        {"eps = 1e-9, t = 1", 1, 0, 1e-9, agm(1, 1e-9), 1e-14},
        {"eps = 1e-9, t = 3", 3, 0, 1e-9, agm(3, 1e-9), 1e-14},
        {"t = 1e-3, eps = 0 (TV)", 1e-3, 0, 0, erf(1e-3 / (2 * M_SQRT2)), 1e-17},
    };
    for (size_t i = 0; i < sizeof eq / sizeof *eq; i++) {
        ga_pair *p = pair(1, &eq[i].mx, &one, &eq[i].my, &one);
        int st = ga_pair_delta(&D, p, eq[i].eps, GA_DELTA_AUTO, NULL, w);
        cr_expect(st == GA_OK || st == GA_ETOL, "%s: status %d", eq[i].name, st);
        cr_expect(fabs(D.xy.val - eq[i].ref) <= D.xy.err + eq[i].tol &&
                      fabs(D.yx.val - eq[i].ref) <= D.yx.err + eq[i].tol,
                  "%s: %.17g/%.17g (err %.2g) vs %.17g", eq[i].name, D.xy.val, D.yx.val, D.xy.err, eq[i].ref);
        ga_pair_free(p);
    }
    /* condition 1e14: diagonal (exact) and rotated (honest error estimate) */
    double ev[2] = {1, 1e-14};
    for (int rot = 0; rot < 2; rot++) {
        double c = rot ? cos(0.5) : 1, s = rot ? sin(0.5) : 0, R[4] = {c, -s, s, c}, Sy[4], Sx[4];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                Sy[i * 2 + j] = R[i * 2] * ev[0] * R[j * 2] + R[i * 2 + 1] * ev[1] * R[j * 2 + 1];
                Sx[i * 2 + j] = 1.21 * Sy[i * 2 + j];
            }
        double m0[2] = {0.3, 0.3e-7}, mu[2] = {c * m0[0] - s * m0[1], s * m0[0] + c * m0[1]}, z[2] = {0, 0};
        ga_pair *p = pair(2, mu, Sx, z, Sy);
        ga_pair_delta(&D, p, 1, GA_DELTA_AUTO, NULL, w);
        double I2[4] = {1, 0, 0, 1}, I121[4] = {1.21, 0, 0, 1.21}, mm[2] = {0.3, 0.3};
        ga_pair *q = pair(2, mm, I121, z, I2);
        ga_delta E;
        ga_pair_delta(&E, q, 1, GA_DELTA_AUTO, NULL, w);
        cr_expect(fabs(D.xy.val - E.xy.val) <= D.xy.err + E.xy.err + 1e-15,
                  "condition 1e14 (%s): %.17g +- %.2g vs %.17g", rot ? "rotated" : "diagonal", D.xy.val,
                  D.xy.err, E.xy.val);
        if (!rot)
            cr_expect(D.xy.err < 1e-13, "diagonal condition 1e14 needs no large error: %.2g", D.xy.err);
        ga_pair_free(p);
        ga_pair_free(q);
    }
    /* eigenvalues equal to 15 digits: S_x = S_y (1 + 1e-15): the equal-covariance formula */
    double sy[25] = {0}, sx[25], mx5[5] = {0.4, -0.1, 0.2, 0, 0.3}, z5[5] = {0};
    for (int i = 0; i < 5; i++)
        sy[i * 5 + i] = 1 + 0.3 * i;
    for (int i = 0; i < 25; i++)
        sx[i] = sy[i] * (1 + 1e-15);
    double t = 0;
    for (int i = 0; i < 5; i++)
        t += mx5[i] * mx5[i] / sy[i * 5 + i];
    t = sqrt(t);
    ga_pair *p = pair(5, mx5, sx, z5, sy);
    ga_pair_delta(&D, p, 0.5, GA_DELTA_AUTO, NULL, w);
    cr_expect(fabs(D.xy.val - agm(t, 0.5)) <= D.xy.err + 1e-13, "tau = 1 + 1e-15: %.17g vs %.17g", D.xy.val, agm(t, 0.5));
    ga_pair_free(p);
    /* variances 1e6 apart in 1-D: the rank-one closed form with rho = 1e6, r = 1 */
    double big = 1e6;
    p = pair(1, &zero, &big, &zero, &one);
    ga_pair_delta(&D, p, 1, GA_DELTA_AUTO, NULL, w);
    double rho = 1e6, t0 = 2 * (1 + 0.5 * log(rho)) / (rho - 1);
    double ref = gsl_sf_gamma_inc_Q(0.5, t0 / 2) - exp(1) * gsl_sf_gamma_inc_Q(0.5, rho * t0 / 2);
    cr_expect(fabs(D.xy.val - ref) <= D.xy.err + 1e-12, "variance ratio 1e6: %.17g vs %.17g", D.xy.val, ref);
    /* reverse: Y puts its mass where X's density is 1e-3 of Y's: delta near 1 */
    double t1 = 2 * rho * (0.5 * log(rho) - 1) / (rho - 1);
    double rev = gsl_sf_gamma_inc_P(0.5, t1 / 2) - exp(1) * gsl_sf_gamma_inc_P(0.5, t1 / (2 * rho));
    cr_expect(fabs(D.yx.val - rev) <= D.yx.err + 1e-12, "variance ratio 1e6, reverse: %.17g vs %.17g",
              D.yx.val, rev);
    ga_pair_free(p);
    /* rank-one supports in 5-D equal to the 1-D pair; a mean offset of 1e-9 out of the support */
    double sr[25] = {0}, sr2[25] = {0}, mr[5] = {0.5, 0, 0, 0, 0};
    sr[0] = 1;
    sr2[0] = 2;
    p = pair(5, mr, sr2, z5, sr);
    ga_pair_delta(&D, p, 0.3, GA_DELTA_AUTO, NULL, w);
    double two = 2, half = 0.5;
    ga_pair *q = pair(1, &half, &two, &zero, &one);
    ga_delta E;
    ga_pair_delta(&E, q, 0.3, GA_DELTA_AUTO, NULL, w);
    cr_expect(ga_pair_support(p) == GA_SUPPORT_COMMON && fabs(D.xy.val - E.xy.val) < 1e-13,
              "rank-one support: %.17g vs %.17g", D.xy.val, E.xy.val);
    ga_pair_free(p);
    ga_pair_free(q);
    mr[3] = 1e-9;
    p = pair(5, mr, sr2, z5, sr);
    ga_pair_delta(&D, p, 0.3, GA_DELTA_AUTO, NULL, w);
    cr_expect(ga_pair_support(p) == GA_SUPPORT_DIFFER && D.xy.val == 1 && D.yx.val == 1,
              "a 1e-9 mean offset out of the support: delta must be 1");
    ga_pair_free(p);
    ga_gchisq_work_free(w);
}

/* Near neighbours in 3-D (X = N(m_x, C), Y = N(m_y, C + E)) whose change E is nearly
 * singular: the loss form has a term of weight 1e-8 to 1e-12 beside terms of weight 1e-3.
 * That term acts as a normal one up to |z| ~ 1/|2a| while its drift, -b^2/(4a), sets the
 * side the path bends to; the other terms' drift pulls the bent path up in between (e^408
 * above the saddle value between two of the climb check's doubling samples, in a pair of
 * the bench's 100,000: a path bent there fails, delta 1 +- 1, and its certified evaluation
 * escalates for minutes). Each delta must be GA_OK, accurate to 1e-8, and inside the
 * certified interval. */
static void tiny_term_pair(const double mx[3], const double sx[9], const double my[3],
                           const double sy[9], double eps)
{
    ga_pair_input in = {3, mx, my, sx, sy, 1, {NULL, NULL, NULL, NULL}};
    ga_pair *p;
    char msg[256], es[32];
    cr_assert(ga_pair_reduce(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    ga_delta D;
    int st = ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, NULL);
    snprintf(es, sizeof es, "%.17g", eps);
    ga_delta_cert c;
    int cs = ga_pair_delta_cert(&c, p, &in, NULL, es, NULL);
    const ga_result *r[2] = {&D.xy, &D.yx};
    const ga_interval *iv[2] = {&c.xy, &c.yx};
    for (int k = 0; k < 2; k++)
        cr_expect(st == GA_OK && r[k]->err <= 1e-8 * r[k]->val && cs == GA_OK &&
                      iv[k]->lo <= r[k]->val + r[k]->err && r[k]->val - r[k]->err <= iv[k]->hi,
                  "m_x (%.17g, %.17g, %.17g), m_y (%.17g, %.17g, %.17g), S_x[0..2] (%.17g, %.17g, "
                  "%.17g), eps %g, direction %d: status %d, %.17g +- %.2g, certified (status %d) "
                  "[%.17g, %.17g]", mx[0], mx[1], mx[2], my[0], my[1], my[2], sx[0], sx[1], sx[2],
                  eps, k, st, r[k]->val, r[k]->err, cs, iv[k]->lo, iv[k]->hi);
    ga_pair_free(p);
}

Test(hostile, term_of_tiny_weight)
{
    /* the bench's pair (its decimals as written in the spec) */
    double mx[3] = {0.021271, 0.056218, 0.019912}, my[3] = {-0.030678, -0.108183, -0.024570};
    double sx[9] = {1.01368429, 0.00665270, -0.00932291, 0.00665270, 1.01372566, -0.00738103,
                    -0.00932291, -0.00738103, 1.00907114};
    double sy[9] = {1.01584276, 0.00422179, -0.01093956, 0.00422179, 1.01863715, -0.00444310,
                    -0.01093956, -0.00444310, 1.01085619};
    tiny_term_pair(mx, sx, my, sy, 2);
    /* seeded: C = I + B B^T / 100, E = r u u^T + s v v^T + t w w^T with r of 1e-2 to 1e-3, s
     * of 1e-3 to 1e-5 (a small weight beside a mean shift: a large drift) and t of 1e-8 to
     * 1e-12, means N(0, 0.05^2), eps 1 to 3 */
    gsl_rng *g = ga_test_rng(41);
    long n = ga_test_count(6);
    for (long it = 0; it < n; it++) {
        double B[9], u[3][3], r = pow(10, -2 - gsl_rng_uniform(g));
        double s = pow(10, -3 - 2 * gsl_rng_uniform(g)), t = pow(10, -8 - 4 * gsl_rng_uniform(g));
        for (int k = 0; k < 9; k++)
            B[k] = gsl_ran_gaussian(g, 1);
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                u[j][k] = gsl_ran_gaussian(g, 1);
        for (int a = 0; a < 3; a++) {
            mx[a] = gsl_ran_gaussian(g, 0.05);
            my[a] = gsl_ran_gaussian(g, 0.05);
            for (int b = 0; b < 3; b++) {
                double c = (a == b) + (B[3 * a] * B[3 * b] + B[3 * a + 1] * B[3 * b + 1] +
                                       B[3 * a + 2] * B[3 * b + 2]) / 100;
                sx[3 * a + b] = c;
                sy[3 * a + b] =
                    c + r * u[0][a] * u[0][b] + s * u[1][a] * u[1][b] + t * u[2][a] * u[2][b];
            }
        }
        tiny_term_pair(mx, sx, my, sy, 1 + 2 * gsl_rng_uniform(g));
    }
    gsl_rng_free(g);
}

Test(hostile, certified_contains_the_truth)
{
    /* the analytic Gaussian formula (closed form) inside certified intervals */
    double one = 1, zero = 0;
    struct {
        double t, eps;
    } cases[] = {{1, 1e-9}, {1, 5}, {0.01, 0.001}, {4, 10}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ga_pair_input in = {1, &cases[i].t, &zero, &one, &one, 1, {NULL, NULL, NULL, NULL}};
        ga_pair *p;
        char msg[256], es[64];
        cr_assert(ga_pair_reduce(&p, &in, msg, sizeof msg) == GA_OK);
        snprintf(es, sizeof es, "%.17g", cases[i].eps);
        ga_delta_cert c;
        int st = ga_pair_delta_cert(&c, p, &in, NULL, es, NULL);
        double ref = agm(cases[i].t, cases[i].eps);
        /* the closed form's own rounding: cancellation of terms up to 1 */
        double rt = 1e-15 * (1 + exp(cases[i].eps) * gsl_cdf_ugaussian_P(-cases[i].t / 2 - cases[i].eps / cases[i].t));
        cr_expect(st == GA_OK || st == GA_EPREC, "t %g eps %g: status %d", cases[i].t, cases[i].eps, st);
        cr_expect(c.xy.lo <= ref + rt && ref - rt <= c.xy.hi, "t %g eps %g: [%.17g, %.17g] vs %.17g",
                  cases[i].t, cases[i].eps, c.xy.lo, c.xy.hi, ref);
        ga_pair_free(p);
    }
}

/* ------------------------------------------------------------ command line and specs */

Test(hostile, command_line_and_spec_cases)
{
    static const struct {
        const char *args;
        int status;
        const char *err_has; /* expected in stderr (NULL: anything) */
    } cli[] = {
        {"cdf --weights 1e308,1e308 --at 1e308", 0, NULL},
        {"cdf --weights 1 --at 1e-320", 0, NULL},
        {"cdf --weights -1e-300 --sigma 1e-300 --at 0", 65, "outside the double range"}, /* sigma^2 underflows: refused */
        {"cdf --sigma 1e-300 --at 0", 65, "outside the double range"},
        {"cdf --weights 1e300 --nc 1 --at 1", 65, "outside the double range"},                /* 4 w^2 nc overflows */
        {"cdf --weights 1e300 --at 1e300", 0, NULL},
        {"cdf --weights 1,1.5 --at 1e-300", 0, "accuracy not reached"},                 /* honest: error estimate 1 */
        {"cdf --weights 1 --nc 1e300 --at 1", 0, "accuracy not reached"},
        {"cdf --weights 1 --offset -1e300 --at 1e300", 0, NULL},
        /* certified: weights 61 orders apart (the ray bound once gave up), and an upper tail
         * near 10^-(10^40), beyond MPFR's exponent range, printed as a power of ten */
        {"cdf --weights 3e61,1 --at 20 --certified", 0, NULL},
        {"cdf --sigma 1 --weights 1.8e19,1 --offset 1 --at 4e41 --certified", 0, "no gain"},
        {"cdf --weights 1 --dof 1e12 --at 1000010000000 --certified", 0, NULL},
        /* a noncentral shift of 9e10 folded into the offset: double precision loses 1e-6
         * and says so; the certified path writes the term without the cancellation */
        {"cdf --weights 3e10,2 --dof 2,3 --nc 3,7 --sigma 5 --offset 5 --at 20", 0, "accuracy not reached"},
        {"cdf --weights 3e10,2 --dof 2,3 --nc 3,7 --sigma 5 --offset 5 --at 20 --certified --digits 15", 0, NULL},
        /* noncentrality 4e20, x deep in the lower tail: the integrals give up, the Chernoff
         * bound and the complement still give [0, 3.65e-90631837883373796716] and [1 - that, 1] */
        {"cdf --weights 9,3 --nc 92519840,417375039913298409992 --at 43 --certified", 0, "width not reached"},
    };
    for (size_t i = 0; i < sizeof cli / sizeof *cli; i++) {
        char *out, *err;
        int st = ga_test_run(cli[i].args, &out, &err);
        cr_expect(st == cli[i].status, "'%s': status %d: %s", cli[i].args, st, err);
        cr_expect(!cli[i].err_has || strstr(err, cli[i].err_has), "'%s': stderr lacks '%s': %s",
                  cli[i].args, cli[i].err_has, err);
        cr_expect(strstr(out, "nan") == NULL && strstr(out, "inf") == NULL, "'%s': %s", cli[i].args, out);
        free(out);
        free(err);
    }
    /* a tail of 10^-(8e13), certified to 20 digits: P[3 chi2_2 > x] = exp(-x/6) (mpmath at 60
     * digits: 1.548099094387963088439968...e-80424904056158); once the saddle solver stopped
     * 1e-10 short of a saddle 1e-15 from the pole and the interval was [0, 1e-80424903981324] */
    {
        char *o, *e;
        int st = ga_test_run("cdf --weights 3,3 --at 1111111111111112 --certified", &o, &e);
        cr_expect(st == 0 && strstr(o, "[1.5480990943879630884e-80424904056158, "
                                       "1.5480990943879630885e-80424904056158]") && !e[0],
                  "status %d: %s %s", st, o, e);
        free(o);
        free(e);
    }
    /* 5000 weights on the command line */
    size_t len = 5000 * 8 + 64;
    char *args = malloc(len);
    strcpy(args, "cdf --at 5000 --weights ");
    for (int i = 0; i < 5000; i++)
        strcat(args, i ? ",1.0001" : "1");
    char *out, *err;
    cr_expect(ga_test_run(args, &out, &err) == 0, "5000 weights: %s", err);
    free(out);
    free(err);
    free(args);
    /* YAML nested 100 deep is refused before it is built */
    char path[] = "/tmp/ga_hostXXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs: ", f);
    for (int i = 0; i < 100; i++)
        fputc('[', f);
    for (int i = 0; i < 100; i++)
        fputc(']', f);
    fputc('\n', f);
    fclose(f);
    char a2[128];
    snprintf(a2, sizeof a2, "delta %s --epsilon 1", path);
    cr_expect(ga_test_run(a2, &out, &err) == 65 && strstr(err, "nesting deeper"), "%s", err);
    free(out);
    free(err);
    unlink(path);
}

/* Dimension 2000 (GA_TEST_SCALE < 1 shrinks it, for valgrind): covariances H D H with a
 * Householder reflection H and eigenvalues spread over three decades, against closed forms:
 * equal covariances (the analytic Gaussian with t^2 = m0^T D^-1 m0) and S_x = rho S_y with
 * equal means (u = |S_y^-1/2 z|^2 is chi2_d under Y and rho chi2_d under X). */
Test(hostile, dimension_2000)
{
    size_t d = (size_t)ga_test_count(2000);
    if (d < 50)
        d = 50;
    double *v = malloc(d * sizeof *v), *D = malloc(d * sizeof *D), *m0 = malloc(d * sizeof *m0);
    double *S = malloc(d * d * sizeof *S), *S2 = malloc(d * d * sizeof *S2), *mu = malloc(d * sizeof *mu);
    double *z = calloc(d, sizeof *z);
    cr_assert(v && D && m0 && S && S2 && mu && z);
    double vv = 0, t2 = 0;
    for (size_t i = 0; i < d; i++) {
        v[i] = sin(1.0 + (double)i);
        vv += v[i] * v[i];
        D[i] = pow(10.0, 3.0 * (double)i / (double)(d - 1));
        m0[i] = 0.02 * cos((double)i);
        t2 += m0[i] * m0[i] / D[i];
    }
    for (size_t i = 0; i < d; i++)
        v[i] /= sqrt(vv);
    /* S = H D H, H = I - 2 v v^T: S_ij = D_i d_ij - 2 v_i v_j (D_i + D_j) + 4 v_i v_j (v^T D v) */
    double vDv = 0, hm = 0;
    for (size_t i = 0; i < d; i++) {
        vDv += v[i] * D[i] * v[i];
        hm += v[i] * m0[i];
    }
    for (size_t i = 0; i < d; i++) {
        for (size_t j = 0; j < d; j++)
            S[i * d + j] = (i == j ? D[i] : 0) - 2 * v[i] * v[j] * (D[i] + D[j]) + 4 * v[i] * v[j] * vDv;
        mu[i] = m0[i] - 2 * v[i] * hm;
    }
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_delta Dl;
    ga_pair *p = pair(d, mu, S, z, S);
    cr_assert(ga_pair_delta(&Dl, p, 1, GA_DELTA_AUTO, NULL, w) <= GA_ETOL);
    double ref = agm(sqrt(t2), 1);
    cr_expect(fabs(Dl.xy.val - ref) <= Dl.xy.err + 1e-10 * ref && fabs(Dl.yx.val - ref) <= Dl.yx.err + 1e-10 * ref,
              "d = %zu, equal covariances: %.17g/%.17g (err %.2g) vs %.17g", d, Dl.xy.val, Dl.yx.val, Dl.xy.err, ref);
    ga_pair_free(p);
    double rho = 1 + 2.0 / sqrt((double)d), eps = 0.5, half = 0.5 * (double)d;
    for (size_t i = 0; i < d * d; i++)
        S2[i] = rho * S[i];
    p = pair(d, z, S2, z, S);
    cr_assert(ga_pair_delta(&Dl, p, eps, GA_DELTA_AUTO, NULL, w) <= GA_ETOL);
    double u0 = 2 * (eps + half * log(rho)) / (1 - 1 / rho);
    double rxy = gsl_sf_gamma_inc_Q(half, u0 / (2 * rho)) - exp(eps) * gsl_sf_gamma_inc_Q(half, u0 / 2);
    double u1 = 2 * (half * log(rho) - eps) / (1 - 1 / rho);
    double ryx = u1 > 0 ? gsl_sf_gamma_inc_P(half, u1 / 2) - exp(eps) * gsl_sf_gamma_inc_P(half, u1 / (2 * rho)) : 0;
    if (ryx < 0)
        ryx = 0;
    cr_expect(fabs(Dl.xy.val - rxy) <= Dl.xy.err + 1e-9 * rxy && fabs(Dl.yx.val - ryx) <= Dl.yx.err + 1e-9 * ryx + 1e-15,
              "d = %zu, S_x = %.6g S_y: %.17g/%.17g (err %.2g/%.2g) vs %.17g/%.17g", d, rho, Dl.xy.val, Dl.yx.val,
              Dl.xy.err, Dl.yx.err, rxy, ryx);
    ga_pair_free(p);
    ga_gchisq_work_free(w);
    free(v);
    free(D);
    free(m0);
    free(S);
    free(S2);
    free(mu);
    free(z);
}

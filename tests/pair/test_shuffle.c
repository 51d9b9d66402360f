/*
 * test_shuffle.c - shuffled epochs, the max test (pair/shuffle.c through the public
 * ga_pair_reduce_shuffle). References, independent of the library's bracket:
 * - one batch per epoch: the pair is the Gaussian mechanism with mean shift sqrt(T)/sigma, in
 *   closed form (double) and in Arb (certified intervals must contain it);
 * - one epoch: the likelihood ratio is monotone in the largest sum, so delta is the closed
 *   form of the threshold event, with the threshold found here by bisection on this file's own
 *   loss and the laws Phi(y)^E, Phi(y - m) Phi(y)^(E-1);
 * - the shuffled release itself, simulated (seeded): each epoch's record in a random batch,
 *   the largest sum's losses added, delta as the mean of (1 - e^(eps - S))_+ under the law with
 *   the record, within five standard errors;
 * - post-processing: never above the Gaussian mechanism's delta at sqrt(T)/sigma (seeded
 *   random cases).
 */
#include "gaussaudit.h"
#include "numerics/arb.h"
#include "numerics/numerics.h" /* (ga_par_for) */
#include "pair/loss.h"        /* (ga_shuffle_laws_make) */
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_ORDER 1e-12 /* an inequality may fail by this much relative (rounding) */
#define MC_SIGMAS 5.0   /* Monte-Carlo tolerance in standard errors */
#define TOL_CUT 1e-19   /* the bracket's absolute width where delta is far below (tails cut) */
#define TOL_WIDTH 5e-2  /* the estimates' bracket (coarse grid, few epochs): relative half width */

static ga_pair *make(double sigma, double E, double T, const char *sigma_txt)
{
    ga_shuffle_input in = {sigma, E, T, 0, sigma_txt, NULL};
    ga_pair *p = NULL;
    char msg[256];
    cr_assert(ga_pair_reduce_shuffle(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    return p;
}

static double log_phi(double x)
{
    return x > 0 ? log1p(-0.5 * erfc(x / M_SQRT2)) : log(0.5 * erfc(-x / M_SQRT2));
}

/* the largest sum's loss, from its two laws' densities (this file's own formula) */
static double loss(double y, double m, double E)
{
    double f1 = exp(-0.5 * (y - m) * (y - m) + (E - 1) * log_phi(y)) +
                (E - 1) * exp(log_phi(y - m) - 0.5 * y * y + (E - 2) * log_phi(y));
    double f0 = E * exp(-0.5 * y * y + (E - 1) * log_phi(y));
    return log(f1 / f0);
}

static double root(double v, double m, double E)
{
    double lo = -30, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        *(loss(mid, m, E) > v ? &hi : &lo) = mid;
    }
    return 0.5 * (lo + hi);
}

Test(shuffle, one_batch_is_the_gaussian_mechanism)
{
    static const struct { double sigma, T; const char *txt; } rows[] = {
        {0.7, 1, "0.7"}, {1.3, 4, "1.3"}, {2.5, 9, "2.5"},
    };
    static const char *eps[] = {"0", "0.5", "2"};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        ga_pair *p = make(rows[i].sigma, 1, rows[i].T, rows[i].txt);
        double mu = sqrt(rows[i].T) / rows[i].sigma;
        for (size_t k = 0; k < 3; k++) {
            double e = atof(eps[k]), ref = ga_test_gdp_delta(mu, e);
            ga_delta d;
            cr_assert(ga_pair_delta(&d, p, e, 0, NULL, NULL) == GA_OK);
            for (int dir = 0; dir < 2; dir++) {
                ga_result r = dir ? d.yx : d.xy;
                cr_expect(fabs(r.val - ref) <= r.err + 1e-12 * ref && r.err <= TOL_WIDTH * ref,
                          "sigma %g T %g eps %s dir %d: %.17g +- %.3g vs %.17g", rows[i].sigma,
                          rows[i].T, eps[k], dir, r.val, r.err, ref);
            }
            /* certified: the interval contains the closed form in Arb */
            ga_delta_cert c;
            int st = ga_pair_delta_cert(&c, p, NULL, NULL, eps[k], NULL);
            cr_assert(st == GA_OK || st == GA_EPREC, "status %d", st);
            arb_t mu2, s, ref_b;
            arb_init(mu2);
            arb_init(s);
            arb_init(ref_b);
            arb_set_str(s, rows[i].txt, 256);
            arb_sqr(s, s, 256);
            arb_set_d(mu2, rows[i].T);
            arb_div(mu2, mu2, s, 256);
            ga_test_gdp_arb(ref_b, mu2, eps[k]);
            cr_expect(ga_test_decimals_contain(c.xy_lo, c.xy_hi, ref_b) &&
                          ga_test_decimals_contain(c.yx_lo, c.yx_hi, ref_b),
                      "sigma %s T %g eps %s: [%s, %s], [%s, %s] vs %.17g", rows[i].txt, rows[i].T,
                      eps[k], c.xy_lo, c.xy_hi, c.yx_lo, c.yx_hi, ref);
            arb_clear(mu2);
            arb_clear(s);
            arb_clear(ref_b);
        }
        ga_pair_free(p);
    }
}

Test(shuffle, one_epoch_against_the_threshold_event)
{
    static const struct { double sigma, E; } rows[] = {{0.6, 10}, {1.0, 240}, {1.8, 3}};
    static const double eps[] = {0.1, 1, 3};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        double m = 1 / rows[i].sigma, E = rows[i].E;
        ga_pair *p = make(rows[i].sigma, E, 1, NULL);
        for (size_t k = 0; k < 3; k++) {
            double e = eps[k];
            /* XY: S = {y > y*}, l(y*) = eps; YX: S = {y < y'}, l(y') = -eps */
            double ys = root(e, m, E), yr = root(-e, m, E);
            double l0 = E * log_phi(ys), l1 = log_phi(ys - m) + (E - 1) * log_phi(ys);
            double xy = -expm1(l1) - exp(e) * -expm1(l0);
            l0 = E * log_phi(yr);
            l1 = log_phi(yr - m) + (E - 1) * log_phi(yr);
            double yx = exp(l0) - exp(e) * exp(l1);
            ga_delta d;
            cr_assert(ga_pair_delta(&d, p, e, 0, NULL, NULL) == GA_OK);
            /* (the bracket's width: TOL_WIDTH relative, or the tails cut, 1e-20 per epoch) */
            cr_expect(fabs(d.xy.val - xy) <= d.xy.err + 1e-9 * xy && d.xy.err <= TOL_WIDTH * xy + TOL_CUT,
                      "sigma %g E %g eps %g XY: %.17g +- %.3g vs %.17g", rows[i].sigma, E, e,
                      d.xy.val, d.xy.err, xy);
            cr_expect(fabs(d.yx.val - yx) <= d.yx.err + 1e-9 * yx && d.yx.err <= TOL_WIDTH * yx + TOL_CUT,
                      "sigma %g E %g eps %g YX: %.17g +- %.3g vs %.17g", rows[i].sigma, E, e,
                      d.yx.val, d.yx.err, yx);
        }
        ga_pair_free(p);
    }
}

Test(shuffle, the_shuffled_release_simulated, .timeout = 600)
{
    /* E batch sums per epoch, the record in a uniformly random one; the test's statistic is
     * the largest sum, its losses added over the epochs */
    static const struct { double sigma, E, T, eps; } rows[] = {{0.7, 8, 3, 1}, {1.2, 30, 5, 0.5}};
    long N = ga_test_count(200000);
    gsl_rng *g = ga_test_rng(4711);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        double m = 1 / rows[i].sigma, E = rows[i].E, e = rows[i].eps;
        int T = (int)rows[i].T;
        double s1 = 0, s2 = 0;
        for (long n = 0; n < N; n++) {
            double S = 0;
            for (int t = 0; t < T; t++) {
                int slot = (int)gsl_rng_uniform_int(g, (unsigned long)E);
                double y = -INFINITY;
                for (int b = 0; b < (int)E; b++)
                    y = fmax(y, gsl_ran_gaussian_ziggurat(g, 1) + (b == slot ? m : 0));
                S += loss(y, m, E);
            }
            double f = S > e ? -expm1(e - S) : 0;
            s1 += f;
            s2 += f * f;
        }
        double mean = s1 / N, se = sqrt(fmax(s2 / N - mean * mean, 0) / N);
        ga_pair *p = make(rows[i].sigma, E, T, NULL);
        ga_delta d;
        cr_assert(ga_pair_delta(&d, p, e, 0, NULL, NULL) == GA_OK);
        cr_expect(fabs(d.xy.val - mean) <= d.xy.err + MC_SIGMAS * se,
                  "sigma %g E %g T %d eps %g: %.6g +- %.3g vs simulated %.6g +- %.3g (N %ld)",
                  rows[i].sigma, E, T, e, d.xy.val, d.xy.err, mean, se, N);
        ga_pair_free(p);
    }
    gsl_rng_free(g);
}

Test(shuffle, below_the_gaussian_mechanism, .timeout = 600)
{
    /* post-processing of one Gaussian step per epoch (the record's batch known): the max
     * test's delta never exceeds the Gaussian mechanism's at sqrt(T)/sigma; the certified
     * interval contains the estimate within its error */
    gsl_rng *g = ga_test_rng(2718);
    long n = ga_test_count(5);
    for (long k = 0; k < n; k++) {
        double sigma = 0.5 + 2.5 * gsl_rng_uniform(g), E = 2 + gsl_rng_uniform_int(g, 500);
        double T = 1 + gsl_rng_uniform_int(g, 30), e = 3 * gsl_rng_uniform(g);
        char et[32];
        snprintf(et, sizeof et, "%.6f", e);
        e = atof(et);
        ga_pair *p = make(sigma, E, T, NULL);
        ga_delta d;
        cr_assert(ga_pair_delta(&d, p, e, 0, NULL, NULL) == GA_OK);
        double gd = ga_test_gdp_delta(sqrt(T) / sigma, e);
        ga_delta_cert c;
        int st = ga_pair_delta_cert(&c, p, NULL, NULL, et, NULL);
        cr_assert(st == GA_OK || st == GA_EPREC, "status %d", st);
        for (int dir = 0; dir < 2; dir++) {
            ga_result r = dir ? d.yx : d.xy;
            ga_interval iv = dir ? c.yx : c.xy;
            cr_expect(r.val - r.err <= gd * (1 + TOL_ORDER) && iv.lo <= gd * (1 + TOL_ORDER),
                      "sigma %.17g E %g T %g eps %s dir %d: %.17g +- %.3g above the Gaussian %.17g",
                      sigma, E, T, et, dir, r.val, r.err, gd);
            cr_expect(iv.lo <= r.val + r.err && r.val - r.err <= iv.hi && iv.lo <= iv.hi,
                      "sigma %.17g E %g T %g eps %s dir %d: [%.17g, %.17g] vs %.17g +- %.3g",
                      sigma, E, T, et, dir, iv.lo, iv.hi, r.val, r.err);
        }
        ga_pair_free(p);
    }
    gsl_rng_free(g);
}

/* The laws made on the threads lent to their caller (the points' balls and the four sides'
 * powers shared out) are those of one thread, every bit (seeded random settings, both grids) */
typedef struct {
    double sigma, E, T;
    int fine, rc;
    ga_shuffle_laws S;
} laws_case;

static void make_laws(laws_case *c)
{
    c->rc = ga_shuffle_laws_make(&c->S, NULL, 1, NULL, c->sigma, c->E, c->T, c->fine, 0);
}

static void laws_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)i;
    (void)w;
    make_laws(ctx);
}

static int same_side(const ga_shuffle_side *a, const ga_shuffle_side *b)
{
    return a->k0 == b->k0 && a->len == b->len && !memcmp(&a->inf, &b->inf, sizeof a->inf) &&
           (!a->len || !memcmp(a->w, b->w, a->len * sizeof *a->w));
}

Test(shuffle, lent_threads_make_the_laws_of_one_thread)
{
    gsl_rng *r = ga_test_rng(6121);
    long n = ga_test_count(4);
    for (long k = 0; k < n; k++) {
        laws_case one;
        memset(&one, 0, sizeof one);
        one.sigma = 0.6 + 1.5 * gsl_rng_uniform(r);
        one.E = (double)(2 + gsl_rng_uniform_int(r, 300));
        one.T = (double)(1 + gsl_rng_uniform_int(r, 6));
        one.fine = k == 0;
        laws_case lent = one;
        make_laws(&one);
        cr_assert(ga_par_for(1, 3, 0, laws_item, &lent, NULL, NULL) == GA_OK);
        int same = one.rc == lent.rc && !memcmp(&one.S.h, &lent.S.h, sizeof one.S.h) &&
                   !memcmp(&one.S.eta, &lent.S.eta, sizeof one.S.eta);
        for (int d = 0; d < 4 && same && one.rc == GA_OK; d++)
            same = same_side(&one.S.s[d / 2][d % 2], &lent.S.s[d / 2][d % 2]);
        cr_expect(same && one.rc == GA_OK, "sigma %.17g E %g T %g fine %d: status %d / %d, the "
                  "laws differ", one.sigma, one.E, one.T, one.fine, one.rc, lent.rc);
        ga_shuffle_laws_clear(&one.S);
        ga_shuffle_laws_clear(&lent.S);
    }
    gsl_rng_free(r);
}

Test(shuffle, invalid_inputs_are_refused)
{
    static const ga_shuffle_input bad[] = {
        {0, 10, 1, 0, NULL, NULL},     {1, 0, 1, 0, NULL, NULL},   {1, 2.5, 1, 0, NULL, NULL},
        {1, 10, 0, 0, NULL, NULL},     {1, 10, 1e5, 0, NULL, NULL}, {1, 10, 1, -1, NULL, NULL},
        {1e-3, 10, 1, 1, NULL, NULL}, {1, 10, 1, 0, "1e", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ga_pair *p = NULL;
        char msg[256] = "";
        cr_expect(ga_pair_reduce_shuffle(&p, &bad[i], msg, sizeof msg) == GA_EINVAL && !p &&
                      strstr(msg, "shuffled epochs"), "row %zu accepted (%s)", i, msg);
    }
    /* no Gaussian laws: the functions that read them refuse the pair */
    ga_pair *p = make(1, 10, 2, NULL);
    ga_result xy, yx;
    cr_expect(ga_pair_renyi(&xy, &yx, p, 2) == GA_EDOM);
    ga_gchisq *lx = ga_gchisq_alloc(4), *ly = ga_gchisq_alloc(4);
    cr_assert(lx && ly);
    cr_expect(ga_pair_loss_forms(lx, ly, p) == GA_EDOM);
    ga_interval t2;
    cr_expect(ga_pair_mahalanobis_cert(&t2, p, NULL, NULL, NULL) == GA_EDOM);
    ga_gchisq_free(lx);
    ga_gchisq_free(ly);
    ga_pair_free(p);
}

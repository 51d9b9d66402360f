/*
 * test_envelope.c - the regression kinds over a universe (catalogue/envelope.c): the
 * envelopes of Propositions 7 (Bayesian logistic regression) and 8 (GP regression) of 001 as
 * proven upper bounds, and the NDIS-calibrated noise of Figure 5 that calibrate reports beside
 * the exact one. References:
 * - Figure 5's noise from tests/tools/ndis_fig5.py (Python, every infimum by a dense grid and
 *   golden section, the s and u infima numerically rather than by the closed forms the C code
 *   uses);
 * - the exact calibration: the envelope's largest delta on a grid of variance ratios (closed
 *   form, tests/support.c) at the calibrated noise is the claimed delta;
 * - the violation of Figure 5 on two rows: the posteriors written out by hand (2 x 2 and
 *   1 x 1 solves) and delta in closed form;
 * - post-processing: every audited neighbour's delta is at most the envelope's (seeded random
 *   datasets; GP: both kernels, remove_one and add_one; logistic regression: 1 to 3 features,
 *   the rows near the norm bound, the label of the changed row either way).
 */
#include "gaussaudit.h"
#include "catalogue/catalogue.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_PUBLISHED 1e-8 /* Figure 5's noise against the Python reference (relative) */
#define TOL_GRID 2e-3      /* the envelope's supremum above a grid's largest value (relative) */
#define TOL_LAW 1e-9       /* a neighbour's delta against the hand-written posteriors */

/* the two-row example: Figure 5's noise at (1, 1e-5) is too small */
static const char *two_rows(char *b, size_t n, const char *sigma)
{
    snprintf(b, n, "gaussaudit: 1\nmechanism: {kind: gaussian_process_regression, kernel: rbf, "
             "lengthscale: 1, signal_variance: 1, noise_variance: 0.01, sigma: %s, query: [[0]]}\n"
             "dataset: {rows: [[0, 0], [4, 0.01]]}\nneighbours: remove_one\n"
             "universe: {label_bound: 0.01, max_rows: 2}\nclaim: {epsilon: 1, delta: 1e-5}\n", sigma);
    return b;
}

static const char *five_rows(char *b, size_t n, const char *sigma)
{
    snprintf(b, n, "gaussaudit: 1\nmechanism: {kind: gaussian_process_regression, kernel: rbf, "
             "lengthscale: 1, signal_variance: 1, noise_variance: 0.25, sigma: %s, query: [[0]]}\n"
             "dataset: {rows: [[0, 1], [0.5, -1], [1, 0.5], [-1, 1], [2, -0.5]]}\n"
             "neighbours: remove_one\nuniverse: {label_bound: 1, max_rows: 100}\n"
             "claim: {epsilon: 1, delta: 1e-5}\n", sigma);
    return b;
}

/* the envelope's largest delta on a grid of ratios at noise sigma (k** = 1) */
static double grid_sup(double nbs, double sigma, double eps)
{
    double D = nbs / sigma, rho = log1p(1 / (sigma * sigma)), best = 0;
    for (int k = 0; k <= 4000; k++)
        best = fmax(best, ga_test_normal_pair_delta(D, exp(-rho + 2 * rho * k / 4000), eps, NULL));
    return best;
}

Test(envelope, figure5_and_exact_calibrations)
{
    static const struct {
        int five;
        double fig5;  /* tests/tools/ndis_fig5.py KSS NV B N 1 1e-5 */
        double nbs;   /* sqrt(n) B / s_n */
    } cases[] = {
        {0, 0.869667202928, 1.4142135623730951 * 0.01 / 0.1}, /* 1 0.01 0.01 2 */
        {1, 74.6187340785, 10 * 1 / 0.5},                     /* 1 0.25 1 100 */
    };
    for (size_t i = 0; i < 2; i++) {
        char text[1024], msg[512];
        const char *t = cases[i].five ? five_rows(text, sizeof text, "1") : two_rows(text, sizeof text, "1");
        ga_calibration *c = NULL;
        int rc = ga_calibrate_spec_text(&c, t, strlen(t), "gp.yaml", 1, 1e-5, NULL, msg, sizeof msg);
        cr_assert(rc == GA_OK, "case %zu: %s", i, msg);
        ga_calibration_info info;
        ga_calibration_get(&info, c);
        ga_published_info pub;
        cr_assert(info.npublished == 1 && ga_calibration_published(&pub, c, 0) == GA_OK);
        cr_expect(fabs(pub.value - cases[i].fig5) <= TOL_PUBLISHED * cases[i].fig5 &&
                      strstr(pub.name, "Figure 5"),
                  "case %zu: Figure 5's sigma %.17g, reference %.17g", i, pub.value, cases[i].fig5);
        /* the exact one: the envelope's supremum is the claimed delta there */
        double g = grid_sup(cases[i].nbs, info.value, 1);
        cr_expect(info.worst_case && info.certified && g <= 1e-5 * (1 + 1e-6) &&
                      g >= 1e-5 / (1 + TOL_GRID),
                  "case %zu: sigma %.17g (certified %d): the grid's supremum %.17g", i,
                  info.value, info.certified, g);
        ga_calibration_free(c);
    }
}

Test(envelope, figure5_violation_on_two_rows)
{
    const double sigma = 0.8696672029, s2 = sigma * sigma, k12 = exp(-8), a = 1.01, y2 = 0.01;
    /* D' = {(4, 0.01)}: k* = k12, A = 1.01 */
    double mu1 = k12 * y2 / a, v1 = 1 - k12 * k12 / a;
    /* D = {(0, 0), (4, 0.01)}: A = [[a, k12], [k12, a]], k* = [1, k12], y = [0, y2] */
    double det = a * a - k12 * k12, i11 = a / det, i12 = -k12 / det, i22 = a / det;
    double w1 = i12 * y2, w2 = i22 * y2; /* A^-1 y */
    double mu = 1 * w1 + k12 * w2;
    double v = 1 - (i11 + 2 * i12 * k12 + i22 * k12 * k12);
    /* the pair 'remove row 1' in the direction Y, X: N(mu1, v1 + s2) against N(mu, v + s2) */
    double m = (mu1 - mu) / sqrt(v + s2), R = (v1 + s2) / (v + s2), err;
    double want = ga_test_normal_pair_delta(m, R, 1, &err);
    char text[1024], msg[512];
    two_rows(text, sizeof text, "0.8696672029");
    ga_spec s;
    ga_pairset set;
    cr_assert(ga_mech_parse(&s, &set, text, strlen(text), "v.yaml", NULL, NULL, msg, sizeof msg) == GA_OK, "%s", msg);
    cr_assert(ga_pairset_npairs(&set) == 3 && set.verified && set.verified_bound && set.verified_pair == 2);
    ga_pair *p;
    cr_assert(ga_mech_pair_reduce(&p, &set.pairs[0], msg, sizeof msg) == GA_OK, "%s", msg);
    ga_delta d;
    cr_assert(ga_pair_delta(&d, p, 1, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
    cr_expect(fabs(d.yx.val - want) <= d.yx.err + err + TOL_LAW * want && want > 0.07 && want < 0.071,
              "remove row 1: delta_YX %.17g +- %.3g, by hand %.17g (m %.17g, R %.17g)", d.yx.val,
              d.yx.err, want, m, R);
    ga_pair_free(p);
    /* the envelope bounds it */
    cr_assert(ga_mech_pair_reduce(&p, &set.pairs[2], msg, sizeof msg) == GA_OK, "%s", msg);
    ga_delta e;
    cr_assert(ga_pair_delta(&e, p, 1, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
    cr_expect(e.xy.val + e.xy.err >= want, "envelope %.17g below the neighbour's %.17g", e.xy.val, want);
    ga_pair_free(p);
    ga_mech_clear(&s, &set);
}

/* post-processing: every pair of the set but its last (the envelope) has delta at most the
 * envelope's, at eps e0 and e1 */
static void expect_bounded(const ga_pairset *set, double e0, double e1, long c, unsigned long seed,
                           const char *text)
{
    size_t np = ga_pairset_npairs(set);
    char msg[512];
    ga_pair *env;
    ga_spec_pair_buf b;
    cr_assert(ga_mech_pair_reduce(&env, ga_pairset_pair_at(set, np - 1, &b, 0), msg, sizeof msg) == GA_OK);
    for (int k = 0; k < 2; k++) {
        double eps = k ? e1 : e0;
        ga_delta E;
        cr_assert(ga_pair_delta(&E, env, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
        for (size_t i = 0; i + 1 < np; i++) {
            ga_pair *p;
            cr_assert(ga_mech_pair_reduce(&p, ga_pairset_pair_at(set, i, &b, 0), msg, sizeof msg) == GA_OK);
            ga_delta d;
            cr_assert(ga_pair_delta(&d, p, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
            double worst = fmax(d.xy.val - d.xy.err, d.yx.val - d.yx.err);
            cr_expect(worst <= E.xy.val + E.xy.err,
                      "case %ld (seed %lu), eps %g, pair %zu: delta %.17g above the envelope's "
                      "%.17g\n%s", c, seed, eps, i, worst, E.xy.val + E.xy.err, text);
            ga_pair_free(p);
        }
    }
    ga_pair_free(env);
}

Test(envelope, envelope_bounds_every_audited_neighbour)
{
    gsl_rng *r = ga_test_rng(20261209);
    long cases = ga_test_count(16);
    static char text[1 << 14];
    for (long c = 0; c < cases; c++) {
        int linear = c % 2, add = c % 4 >= 2;
        size_t n = 2 + gsl_rng_uniform_int(r, 10), max_rows = n + 1 + gsl_rng_uniform_int(r, 20);
        double B = 0.2 + 2 * gsl_rng_uniform(r), nv = 0.02 + 0.5 * gsl_rng_uniform(r);
        double sigma = 0.2 + 3 * gsl_rng_uniform(r);
        size_t l = (size_t)snprintf(text, sizeof text, "gaussaudit: 1\nmechanism: {kind: "
                                    "gaussian_process_regression, kernel: %s, lengthscale: 0.8, "
                                    "signal_variance: 1.5, noise_variance: %.17g, sigma: %.17g, "
                                    "query: [[0.2, -0.1]]}\ndataset: {rows: [", linear ? "linear" : "rbf",
                                    nv, sigma);
        for (size_t i = 0; i < n; i++)
            l += (size_t)snprintf(text + l, sizeof text - l, "%s[%.6f, %.6f, %.6f]", i ? ", " : "",
                                  gsl_rng_uniform(r) - 0.5, gsl_rng_uniform(r) - 0.5,
                                  B * (2 * gsl_rng_uniform(r) - 1));
        l += (size_t)snprintf(text + l, sizeof text - l, "]}\nneighbours: {relation: %s",
                              add ? "add_one, candidates: [" : "remove_one");
        for (int i = 0; add && i < 3; i++)
            l += (size_t)snprintf(text + l, sizeof text - l, "%s[%.6f, %.6f, %.17g]", i ? ", " : "",
                                  0.2 + 0.1 * i * gsl_rng_uniform(r), -0.1, B * (1 - i));
        snprintf(text + l, sizeof text - l, "%s}\nuniverse: {label_bound: %.17g, max_rows: %zu}\n",
                 add ? "]" : "", B, max_rows);
        ga_spec s;
        ga_pairset set;
        char msg[512];
        cr_assert(ga_mech_parse(&s, &set, text, strlen(text), "g.yaml", NULL, NULL, msg, sizeof msg) == GA_OK,
                  "case %ld: %s\n%s", c, msg, text);
        cr_assert(set.verified && set.verified_pair == ga_pairset_npairs(&set) - 1);
        expect_bounded(&set, 0.3, 2, c, 20261209, text);
        ga_mech_clear(&s, &set);
    }
    gsl_rng_free(r);
}

Test(envelope, refuses_what_it_does_not_cover)
{
    static const struct {
        const char *mech, *rest, *want;
    } bad[] = {
        {"sigma: 1, query: [[0], [1]]", "neighbours: remove_one\nuniverse: {label_bound: 1, max_rows: 5}", "one query point"},
        {"sigma: 1, query: [[0]]", "neighbours: {relation: replace_one, candidates: [[0, 0]]}\nuniverse: {label_bound: 1, max_rows: 5}", "add/remove"},
        {"sigma: 1, query: [[0]]", "neighbours: remove_one\nuniverse: {label_bound: 0.1, max_rows: 5}", "beyond label_bound"},
        {"sigma: 1, query: [[0]]", "neighbours: remove_one\nuniverse: {label_bound: 1, max_rows: 1}", "more than max_rows"},
        {"query: [[0]]", "neighbours: remove_one\nuniverse: {label_bound: 1, max_rows: 5}", "sigma > 0"},
        {"sigma: 1, query: [[0]]", "neighbours: remove_one\nuniverse: {row_norm_bound: 1}", "missing"},
        {"sigma: 1, query: [[0]]", "neighbours: remove_one\nuniverse: {label_bound: 1, max_rows: 5, row_norm_bound: 1}", "not used here"},
        {"sigma: 1, query: [[0]]", "neighbours: remove_one\nuniverse: {label_bound: 1, max_rows: 2.5}", "whole number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[1024], msg[1024] = "";
        snprintf(text, sizeof text, "gaussaudit: 1\nmechanism: {kind: gaussian_process_regression, "
                 "kernel: rbf, lengthscale: 1, signal_variance: 1, noise_variance: 0.1, %s}\n"
                 "dataset: {rows: [[0, 0.5], [1, -0.5]]}\n%s\n", bad[i].mech, bad[i].rest);
        ga_spec s;
        ga_pairset set;
        int st = ga_mech_parse(&s, &set, text, strlen(text), "u.yaml", NULL, NULL, msg, sizeof msg);
        cr_expect(st == GA_EINVAL && strstr(msg, bad[i].want), "case %zu: %d %s", i, st, msg);
        ga_mech_clear(&s, &set);
    }
    /* a row-norm kind refuses the GP's keys */
    const char *lr = "gaussaudit: 1\nmechanism: {kind: linear_regression, columns: 10, sigma: 1}\n"
                     "dataset: {rows: [[0.1, 0.2], [0.3, 0.1]]}\nneighbours: remove_one\n"
                     "universe: {row_norm_bound: 1, label_bound: 1}\n";
    ga_spec s;
    ga_pairset set;
    char msg[1024];
    cr_expect(ga_mech_parse(&s, &set, lr, strlen(lr), "l.yaml", NULL, NULL, msg, sizeof msg) == GA_EINVAL &&
                  strstr(msg, "universe.label_bound") && strstr(msg, "not used here"), "%s", msg);
    ga_mech_clear(&s, &set);
}

Test(envelope, logistic_figure5_against_reference)
{
    static const struct {
        const char *spec;
        double fig5; /* tests/tools/ndis_fig5.py blr L LAMBDA N D 1 1e-5 */
    } cases[] = {
        {"lambda: 1, sigma: 1}\ndataset: {rows: [[0.5, 1], [-0.3, 0], [0.8, 1], [0.1, 0]]}\n"
         "neighbours: remove_one\nuniverse: {row_norm_bound: 1, max_rows: 10}", 3.77634033051},
        {"lambda: 0.5, sigma: 1}\ndataset: {rows: [[0.5, 0.1, -0.2, 1], [-0.3, 0.4, 0.1, 0]]}\n"
         "neighbours: remove_one\nuniverse: {row_norm_bound: 1, max_rows: 50}", 7.78896761211},
    };
    for (size_t i = 0; i < 2; i++) {
        char text[1024], msg[512];
        snprintf(text, sizeof text, "gaussaudit: 1\nmechanism: {kind: bayesian_logistic_regression, %s\n",
                 cases[i].spec);
        ga_calibration *c = NULL;
        int rc = ga_calibrate_spec_text(&c, text, strlen(text), "b.yaml", 1, 1e-5, NULL, msg, sizeof msg);
        cr_assert(rc == GA_OK, "case %zu: %s", i, msg);
        ga_calibration_info info;
        ga_calibration_get(&info, c);
        ga_published_info pub;
        cr_assert(info.npublished == 1 && ga_calibration_published(&pub, c, 0) == GA_OK);
        cr_expect(fabs(pub.value - cases[i].fig5) <= TOL_PUBLISHED * cases[i].fig5 && info.worst_case,
                  "case %zu: Figure 5's sigma %.17g, reference %.17g", i, pub.value, cases[i].fig5);
        ga_calibration_free(c);
    }
}

Test(envelope, logistic_envelope_bounds_every_audited_neighbour)
{
    gsl_rng *r = ga_test_rng(20261211);
    long cases = ga_test_count(12);
    static char text[1 << 14];
    for (long c = 0; c < cases; c++) {
        size_t p = 1 + c % 3, n = 2 + gsl_rng_uniform_int(r, 8), max_rows = n + 1 + gsl_rng_uniform_int(r, 10);
        double l = 0.5 + 2 * gsl_rng_uniform(r), lambda = 0.1 + 2 * gsl_rng_uniform(r);
        double sigma = 0.05 + 1.5 * gsl_rng_uniform(r);
        size_t k = (size_t)snprintf(text, sizeof text, "gaussaudit: 1\nmechanism: {kind: "
                                    "bayesian_logistic_regression, lambda: %.17g, sigma: %.17g}\n"
                                    "dataset: {rows: [", lambda, sigma);
        for (size_t i = 0; i < n; i++) {
            double x[3], t = 0;
            for (size_t j = 0; j < p; j++)
                x[j] = gsl_rng_uniform(r) - 0.3, t += x[j] * x[j];
            double scale = l * (0.9 + 0.0999 * gsl_rng_uniform(r)) / sqrt(t); /* (near the bound) */
            k += (size_t)snprintf(text + k, sizeof text - k, "%s[", i ? ", " : "");
            for (size_t j = 0; j < p; j++)
                k += (size_t)snprintf(text + k, sizeof text - k, "%.17g, ", x[j] * scale);
            k += (size_t)snprintf(text + k, sizeof text - k, "%d]", (int)gsl_rng_uniform_int(r, 2));
        }
        snprintf(text + k, sizeof text - k, "]}\nneighbours: remove_one\nuniverse: {row_norm_bound: "
                 "%.17g, max_rows: %zu}\n", l, max_rows);
        ga_spec s;
        ga_pairset set;
        char msg[512];
        cr_assert(ga_mech_parse(&s, &set, text, strlen(text), "b.yaml", NULL, NULL, msg, sizeof msg) == GA_OK,
                  "case %ld: %s\n%s", c, msg, text);
        size_t np = ga_pairset_npairs(&set);
        cr_assert(set.verified && set.verified_bound && set.verified_pair == np - 1 && np == n + 1);
        expect_bounded(&set, 0.2, 1.5, c, 20261211, text);
        ga_mech_clear(&s, &set);
    }
    gsl_rng_free(r);
    /* the covariance factor is attained: one row of norm l removed from a dataset of it alone
     * (C' = I/lambda); the mean bound is Proposition 7's */
    {
        const double l = 1.5, lambda = 0.7, sigma = 0.4;
        char t[512], msg[512];
        snprintf(t, sizeof t, "gaussaudit: 1\nmechanism: {kind: bayesian_logistic_regression, "
                 "lambda: %.17g, sigma: %.17g}\ndataset: {rows: [[0.9, 1.2, 1]]}\nneighbours: "
                 "remove_one\nuniverse: {row_norm_bound: %.17g, max_rows: 3}\n", lambda, sigma, l);
        ga_spec s;
        ga_pairset set;
        cr_assert(ga_mech_parse(&s, &set, t, strlen(t), "b.yaml", NULL, NULL, msg, sizeof msg) == GA_OK, "%s", msg);
        const ga_spec_pair *p = &set.pairs[0];
        const ga_envelope_input *e = set.pairs[1].envelope;
        cr_assert(p->d == 2 && e && e->any_direction == 1);
        /* S_y = (1/lambda + sigma^2) I: tau the least eigenvalue of S_x / that */
        double sy = 1 / lambda + sigma * sigma, a = p->s_x[0], b = p->s_x[1], c = p->s_x[3];
        double tau = (0.5 * (a + c) - sqrt(0.25 * (a - c) * (a - c) + b * b)) / sy;
        double want_d = l / lambda / sqrt(sigma * sigma + 1 / (lambda + 3 * l * l / 4));
        cr_expect(fabs(-log(tau) - e->log_ratio_bound) <= 1e-12 * e->log_ratio_bound &&
                      -log(tau) <= e->log_ratio_bound,
                  "the envelope's log ratio %.17g, the pair's %.17g", e->log_ratio_bound, -log(tau));
        cr_expect(e->mean_bound >= want_d && e->mean_bound <= want_d * (1 + 1e-13),
                  "the envelope's mean bound %.17g, Proposition 7's %.17g", e->mean_bound, want_d);
        ga_mech_clear(&s, &set);
    }
    /* refusals: a row beyond the bound (features only: the label is not a feature), zero_out */
    static const struct {
        const char *rows, *rel, *want;
    } bad[] = {
        {"[[0.9, 1], [1.2, 0]]", "remove_one", "features of norm"},
        {"[[0.9, 1], [0.2, 0]]", "zero_out", "add/remove"},
        {"[[0.99, 1], [-1, 1]]", "remove_one", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char t[512], msg[512] = "";
        snprintf(t, sizeof t, "gaussaudit: 1\nmechanism: {kind: bayesian_logistic_regression, lambda: 1, "
                 "sigma: 1}\ndataset: {rows: %s}\nneighbours: %s\nuniverse: {row_norm_bound: 1, "
                 "max_rows: 5}\n", bad[i].rows, bad[i].rel);
        ga_spec s;
        ga_pairset set;
        int st = ga_mech_parse(&s, &set, t, strlen(t), "b.yaml", NULL, NULL, msg, sizeof msg);
        if (bad[i].want)
            cr_expect(st == GA_EINVAL && strstr(msg, bad[i].want), "case %zu: %d %s", i, st, msg);
        else
            cr_expect(st == GA_OK, "case %zu: %d %s", i, st, msg);
        ga_mech_clear(&s, &set);
    }
}

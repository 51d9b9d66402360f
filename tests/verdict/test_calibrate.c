/*
 * test_calibrate.c - gaussaudit calibrate against independent computations: the analytic
 * Gaussian mechanism (Balle & Wang 2018), i.e. the root of the closed-form delta in sigma
 * found by bisection here, and the sketch's leverage threshold from the incomplete-gamma
 * closed form (NDIS paper, Lemma 4), also by bisection.
 */
#include "gaussaudit.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double num(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(text, pat);
    cr_assert(p != NULL, "no '%s' in %s", key, text);
    return strtod(p + strlen(pat), NULL);
}

/* delta of the Gaussian mechanism with sensitivity 1 and noise sigma at eps */
static double agm_delta(double sigma, double eps)
{
    double t = 1 / sigma;
    return gsl_cdf_ugaussian_P(t / 2 - eps / t) - exp(eps) * gsl_cdf_ugaussian_P(-t / 2 - eps / t);
}

Test(calibrate, analytic_gaussian_mechanism)
{
    double cases[][2] = {{1, 1e-5}, {0.5, 1e-6}, {3, 1e-3}};
    for (int c = 0; c < 3; c++) {
        double eps = cases[c][0], delta = cases[c][1];
        char args[256], *out, *err;
        snprintf(args, sizeof args, "calibrate specs/examples/classic_gaussian_eps1.yaml --epsilon %g --delta %g --format json",
                 eps, delta);
        int st = ga_test_run(args, &out, &err);
        cr_assert(st == 0, "status %d: %s", st, err);
        double v = num(out, "value");
        cr_expect(strstr(out, "\"certified\": true") != NULL, "%s", out);
        /* independent: bisection on the closed form */
        double lo = 0.01, hi = 1000;
        for (int k = 0; k < 200; k++) {
            double mid = sqrt(lo * hi);
            if (agm_delta(mid, eps) > delta)
                lo = mid;
            else
                hi = mid;
        }
        cr_expect(fabs(v - hi) <= 1e-10 * hi, "eps %g delta %g: calibrate %.17g vs analytic %.17g", eps, delta, v, hi);
        free(out);
        free(err);
    }
}

Test(calibrate, sketch_leverage_threshold)
{
    char *out, *err;
    int st = ga_test_run("calibrate specs/examples/sketch_remove_one.yaml --epsilon 1 --delta 1e-6 --format json",
                         &out, &err);
    cr_assert(st == 0, "status %d: %s", st, err);
    double v = num(out, "value");
    cr_expect(strstr(out, "\"certified\": true") != NULL, "%s", out);
    /* lambda_min of D^T D for the example's CSV (60 x 5, header) */
    FILE *f = fopen("specs/examples/sketch_rows.csv", "r");
    cr_assert(f != NULL);
    char line[512];
    double S[25] = {0};
    cr_assert(fgets(line, sizeof line, f) != NULL); /* header */
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        double x[5];
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf", &x[0], &x[1], &x[2], &x[3], &x[4]) != 5)
            continue;
        for (int a = 0; a < 5; a++)
            for (int b = 0; b < 5; b++)
                S[a * 5 + b] += x[a] * x[b];
        n++;
    }
    fclose(f);
    cr_assert(n == 60);
    gsl_matrix_view M = gsl_matrix_view_array(S, 5, 5);
    gsl_vector *ev = gsl_vector_alloc(5);
    gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(5);
    gsl_eigen_symm(&M.matrix, ev, ws);
    double lmin = gsl_vector_min(ev);
    gsl_eigen_symm_free(ws);
    gsl_vector_free(ev);
    /* worst leverage at noise s: min(1/(lmin + s^2), 1/(1 + s^2)) (rows of norm <= 1);
     * delta_XY(1) in the leverage, r = 300: Q(r/2, t0/2) - e Q(r/2, rho t0/2) */
    double r = 300, eps = 1, lo = 0.1, hi = 100;
    for (int k = 0; k < 200; k++) {
        double s = sqrt(lo * hi), p = fmin(1 / (lmin + s * s), 1 / (1 + s * s)), rho = 1 / (1 - p);
        double t0 = 2 * (eps + 0.5 * r * log(rho)) / (rho - 1);
        double d = gsl_sf_gamma_inc_Q(r / 2, t0 / 2) - exp(eps) * gsl_sf_gamma_inc_Q(r / 2, rho * t0 / 2);
        if (d > 1e-6)
            lo = s;
        else
            hi = s;
    }
    /* the closed form cancels at delta = 1e-6 (terms of order 1e-4): agreement to 1e-8 */
    cr_expect(fabs(v - hi) <= 1e-8 * hi, "calibrate %.17g vs bisection %.17g", v, hi);
    free(out);
    free(err);
}

Test(calibrate, errors)
{
    char *out, *err;
    /* an explicit pair whose covariances differ: scaling both by c^2 leaves the covariance
     * shift as it is, so no noise level reaches delta = 1e-5 (said, not a wrong value) */
    cr_expect(ga_test_run("calibrate specs/examples/two_explicit_outputs.yaml --epsilon 1 --delta 1e-5", &out, &err) == 65);
    cr_expect(strstr(err, "no noise level") != NULL, "%s", err);
    free(out);
    free(err);
    cr_expect(ga_test_run("calibrate specs/examples/classic_gaussian_eps1.yaml --epsilon 1", &out, &err) == 64);
    free(out);
    free(err);
    cr_expect(ga_test_run("calibrate specs/examples/classic_gaussian_eps1.yaml --epsilon 1 --delta 2", &out, &err) == 64);
    free(out);
    free(err);
    /* --timeout bounds the search: exit 2 with the reason, nothing on stdout */
    int st = ga_test_run("calibrate specs/examples/sketch_remove_one.yaml --epsilon 1 --delta 1e-6 "
                         "--timeout 0.001", &out, &err);
    cr_expect(st == 2 && strstr(err, "--timeout") && out[0] == 0, "exit %d: %s", st, err);
    free(out);
    free(err);
}

/* calibrate a spec given as text through the public API */
static ga_calibration *cal_text(const char *yaml, double eps, double delta)
{
    ga_calibration *c;
    char msg[512];
    int st = ga_calibrate_spec_text(&c, yaml, strlen(yaml), "t.yaml", eps, delta, NULL, msg, sizeof msg);
    cr_assert(st == GA_OK, "%s", msg);
    return c;
}

/* zero noise is an answer: a sketch whose data span every column needs none at eps = 30
 * (its largest leverage 0.2 gives delta far below 1e-6 at r = 1); the same spec audited
 * with noise_sigma: 0 holds */
Test(calibrate, zero_noise_is_an_answer)
{
    static const char *yaml =
        "gaussaudit: 1\nname: z\nmechanism: {kind: sketch, columns: 1, noise_sigma: 1}\n"
        "dataset: {rows: [[1, 0], [0, 1], [1, 1], [1, -1], [2, 0], [0, 2], [1, 2], [2, 1]]}\n"
        "neighbours: remove_one\n";
    ga_calibration *c = cal_text(yaml, 30, 1e-6);
    ga_calibration_info in;
    ga_calibration_get(&in, c);
    cr_expect(in.value == 0 && in.certified && in.upper_at_value <= 1e-6, "value %g certified %d ub %g (%s)",
              in.value, in.certified, in.upper_at_value, in.note);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_expect(ga_calibration_write(f, c, GA_FORMAT_TEXT) == GA_OK);
    fclose(f);
    cr_expect(strstr(buf, "with no noise at all") != NULL, "%s", buf);
    free(buf);
    ga_calibration_free(c);
}

/* noise_cov is scaled (sigma^2 noise_cov): with noise_cov = 4 I the factor is the analytic
 * sigma over 2; and the published values use the spec's own sensitivity: matrix masking
 * zeroing rows of norm sqrt 2 is the Gaussian mechanism of sensitivity sqrt 2, so Ding et
 * al.'s (12) is sqrt 2 times its sensitivity-1 value (Ding et al. 2024, eq. 12) */
Test(calibrate, noise_cov_scale_and_published_sensitivity)
{
    static const char *gm =
        "gaussaudit: 1\nname: g\nmechanism: {kind: gaussian_mechanism, f: [0, 0],"
        " f_neighbours: [[1, 0], [0.6, 0.8]], noise_cov: [[4, 0], [0, 4]]}\n";
    ga_calibration *c = cal_text(gm, 1, 1e-5);
    ga_calibration_info in;
    ga_calibration_get(&in, c);
    /* the analytic sigma for sensitivity 1 by bisection on the closed form */
    double lo = 1, hi = 10;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        *(agm_delta(mid, 1) > 1e-5 ? &lo : &hi) = mid;
    }
    cr_expect(fabs(2 * in.value - hi) <= 1e-9 * hi && in.certified, "factor %.17g (x2 = %.17g) vs %.17g",
              in.value, 2 * in.value, hi);
    cr_expect(strstr(in.knob, "noise_cov") != NULL, "%s", in.knob);
    ga_calibration_free(c);
    static const char *mm =
        "gaussaudit: 1\nname: m\nmechanism: {kind: matrix_masking, sigma: 1}\n"
        "dataset: {rows: [[1, 1], [0.5, 0.5], [1, -1]]}\nneighbours: zero_out\n";
    c = cal_text(mm, 1, 1e-5);
    ga_calibration_get(&in, c);
    cr_expect(fabs(in.value - sqrt(2.0) * hi) <= 1e-9 * hi, "exact %.17g vs %.17g", in.value, sqrt(2.0) * hi);
    double g = gsl_cdf_ugaussian_Qinv(1e-5), b12 = sqrt(2.0) * g * (1 + 1 / (2 * g * g));
    int found = 0;
    for (size_t i = 0; i < in.npublished; i++) {
        ga_published_info pi;
        cr_assert(ga_calibration_published(&pi, c, i) == GA_OK);
        if (strstr(pi.name, "(12)")) {
            found = 1;
            cr_expect(fabs(pi.value - b12) <= 1e-12 * b12, "Ding (12) %.17g vs %.17g", pi.value, b12);
        }
    }
    cr_expect(found, "no Ding et al. (12) value");
    ga_calibration_free(c);
}

/* a composition calibrates one factor on every part's noise: Gaussian mechanisms with
 * sigma 2c and 3c compose to sigma c / sqrt(1/4 + 1/9), so c = sigma_analytic sqrt(1/4 + 1/9) */
Test(calibrate, composition_shared_noise_scale)
{
    static const char *yaml =
        "gaussaudit: 1\nname: c\nmechanism:\n  kind: composition\n  parts:\n"
        "    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 2}\n"
        "    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 3}\n";
    ga_calibration *c = cal_text(yaml, 0.5, 1e-6);
    ga_calibration_info in;
    ga_calibration_get(&in, c);
    double lo = 1, hi = 100;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        *(agm_delta(mid, 0.5) > 1e-6 ? &lo : &hi) = mid;
    }
    double want = hi * sqrt(0.25 + 1.0 / 9);
    cr_expect(fabs(in.value - want) <= 1e-9 * want && in.certified && !strcmp(in.knob, "noise_scale"),
              "%s %.17g vs %.17g (certified %d: %s)", in.knob, in.value, want, in.certified, in.note);
    ga_calibration_free(c);
}

/* --part: one part's noise alone. Parts sigma 20 and s2 compose to sigma (1/400 + 1/s2^2)^(-1/2),
 * so s2 = (1/sigma_a^2 - 1/400)^(-1/2) with sigma_a the analytic calibration */
Test(calibrate, composition_one_part)
{
    static const char *yaml =
        "gaussaudit: 1\nname: c\nmechanism:\n  kind: composition\n  parts:\n"
        "    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 20}\n"
        "    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 3}\n";
    ga_audit_options o;
    ga_audit_options_init(&o);
    o.part = 2;
    ga_calibration *c;
    char msg[512];
    cr_assert(ga_calibrate_spec_text(&c, yaml, strlen(yaml), "c.yaml", 0.5, 1e-6, &o, msg, sizeof msg) == GA_OK, "%s", msg);
    ga_calibration_info in;
    ga_calibration_get(&in, c);
    double lo = 1, hi = 100;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        *(agm_delta(mid, 0.5) > 1e-6 ? &lo : &hi) = mid;
    }
    double want = 1 / sqrt(1 / (hi * hi) - 1.0 / 400);
    cr_expect(fabs(in.value - want) <= 1e-9 * want && in.certified && !strcmp(in.knob, "parts[2].sigma"),
              "%s %.17g vs %.17g", in.knob, in.value, want);
    ga_calibration_free(c);
    o.part = 3;
    cr_expect(ga_calibrate_spec_text(&c, yaml, strlen(yaml), "c.yaml", 0.5, 1e-6, &o, msg, sizeof msg) == GA_EINVAL &&
              strstr(msg, "--part 3"), "%s", msg);
}

/* calibrate to the double: the analytic Gaussian mechanism at (1, 1e-5)
 * has sigma* = 3.730631634815941832249822575 (mpmath, 40 digits, the root of the closed form;
 * the double closed form cancels to ~1e-15 and cannot decide the last bits); calibrate gives
 * it to 2e-16 relative (the exact value 3.7306316348159418), certified */
Test(calibrate, to_the_double)
{
    const double ref = 3.730631634815941832249822575;
    char *out, *err;
    int st = ga_test_run("calibrate specs/examples/classic_gaussian_eps1.yaml --epsilon 1 --delta 1e-5 --format json", &out, &err);
    cr_assert(st == 0, "%s", err);
    double v = num(out, "value");
    cr_expect(fabs(v - ref) <= 2e-16 * ref, "calibrate %.17g vs %.17g", v, ref);
    cr_expect(strstr(out, "\"certified\": true") != NULL, "%s", out);
    free(out);
    free(err);
}

/*
 * test_mechanisms.c - the mechanism catalogue: every worked example of specs/examples runs
 * through delta and epsilon, and each kind's pairs match an independent computation (GSL
 * linear algebra instead of LAPACKE, the noisy-GD recursion iterated instead of solved, the
 * analytic Gaussian mechanism formula, the incomplete-gamma closed form in the leverage).
 */
#include "gaussaudit.h"
#include "specs/spec.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static void load(ga_spec *s, const char *path)
{
    char msg[1024];
    int st = ga_spec_load(s, path, msg, sizeof msg);
    cr_assert(st == GA_OK, "%s: %s", path, msg);
}

static ga_pair *reduce(const ga_spec_pair *sp)
{
    ga_pair_input in;
    char labels[4][200];
    ga_spec_pair_input(&in, sp, labels);
    ga_pair *p;
    char msg[512];
    cr_assert(ga_pair_reduce(&p, &in, msg, sizeof msg) == GA_OK, "%s: %s", sp->name, msg);
    return p;
}

/* (A + c I)^{-1} b with GSL's Cholesky (independent of the LAPACKE code under test) */
static void gsl_spd_solve(double *x, const double *A, double c, const double *b, size_t d)
{
    gsl_matrix *M = gsl_matrix_alloc(d, d);
    gsl_vector *B = gsl_vector_alloc(d), *X = gsl_vector_alloc(d);
    for (size_t i = 0; i < d; i++) {
        for (size_t j = 0; j < d; j++)
            gsl_matrix_set(M, i, j, A[i * d + j] + (i == j ? c : 0));
        gsl_vector_set(B, i, b[i]);
    }
    gsl_linalg_cholesky_decomp1(M);
    gsl_linalg_cholesky_solve(M, B, X);
    for (size_t i = 0; i < d; i++)
        x[i] = gsl_vector_get(X, i);
    gsl_matrix_free(M);
    gsl_vector_free(B);
    gsl_vector_free(X);
}

/* features X^T X and X^T y of rows [x | y] (rows listed in keep, or all) */
static void normal_equations(double *XtX, double *Xty, const ga_dataset *D, size_t skip)
{
    size_t p = D->d - 1;
    memset(XtX, 0, p * p * sizeof *XtX);
    memset(Xty, 0, p * sizeof *Xty);
    for (size_t i = 0; i < D->n; i++) {
        if (i == skip)
            continue;
        const double *r = D->x + i * D->d;
        for (size_t a = 0; a < p; a++) {
            Xty[a] += r[a] * r[p];
            for (size_t b = 0; b < p; b++)
                XtX[a * p + b] += r[a] * r[b];
        }
    }
}

Test(mechanisms, every_example_runs_delta_and_epsilon)
{
    const char *ex[] = {"gaussian_mechanism", "sketch_remove_one", "linear_regression",
                        "bayesian_logistic_regression", "gaussian_process_regression",
                        "output_perturbation", "noisy_gradient_descent", "matrix_masking",
                        "two_explicit_outputs", "gaussian_mechanism_pair"};
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        char args[256], *out, *err;
        snprintf(args, sizeof args, "delta specs/examples/%s.yaml --epsilon 1 --format json", ex[i]);
        int st = ga_test_run(args, &out, &err);
        cr_expect(st == 0, "%s: delta status %d: %s", ex[i], st, err);
        free(out);
        free(err);
        snprintf(args, sizeof args, "epsilon specs/examples/%s.yaml --delta 1e-5 --format json", ex[i]);
        st = ga_test_run(args, &out, &err);
        cr_expect(st == 0, "%s: epsilon status %d: %s", ex[i], st, err);
        cr_expect(strstr(out, "\"overall\"") != NULL, "%s: %s", ex[i], out);
        free(out);
        free(err);
    }
}

Test(mechanisms, gaussian_mechanism_is_the_analytic_formula)
{
    ga_spec s;
    load(&s, "specs/examples/gaussian_mechanism.yaml");
    cr_assert(s.npairs == 1 && s.verified);
    ga_pair *p = reduce(&s.pairs[0]);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    double t = 1.0 / 0.4844805262605389;
    for (double eps = 0; eps <= 12; eps += 2) {
        ga_delta D;
        ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, w);
        double ref = gsl_cdf_ugaussian_P(t / 2 - eps / t) - exp(eps) * gsl_cdf_ugaussian_P(-t / 2 - eps / t);
        /* the closed form cancels for large eps: compare with its own rounding error */
        double tol = 1e-12 * ref + 1e-15 * (1 + exp(eps) * gsl_cdf_ugaussian_P(-t / 2 - eps / t));
        cr_expect(fabs(D.xy.val - ref) <= tol && fabs(D.yx.val - ref) <= tol,
                  "eps %g: %.17g %.17g vs %.17g", eps, D.xy.val, D.yx.val, ref);
    }
    /* issue 6 fact: the classic calibration at eps = 10 has delta about 2.27e-5 */
    ga_delta D;
    ga_pair_delta(&D, p, 10, GA_DELTA_AUTO, NULL, w);
    cr_expect(fabs(D.xy.val - 2.27e-5) < 0.01e-5, "delta(10) = %.6g", D.xy.val);
    ga_pair_free(p);
    ga_gchisq_work_free(w);
    ga_spec_clear(&s);
}

Test(mechanisms, sketch_leverage_closed_form_and_full_pair)
{
    ga_spec s;
    load(&s, "specs/examples/sketch_remove_one.yaml");
    size_t n = s.data.n, d = s.data.d;
    cr_assert(n == 60 && d == 5 && s.npairs == 61 && s.verified, "%zu pairs", s.npairs);
    double sig2 = 6.185 * 6.185, r = 300, eps = 1;
    double *S = calloc(d * d, sizeof *S), *x = malloc(d * sizeof *x);
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++)
                S[a * d + b] += s.data.x[i * d + a] * s.data.x[i * d + b];
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t i = 0; i < n; i++) {
        const double *v = s.data.x + i * d;
        gsl_spd_solve(x, S, sig2, v, d);
        double lev = 0;
        for (size_t a = 0; a < d; a++)
            lev += v[a] * x[a];
        double rho = 1 / (1 - lev), t0 = 2 * (eps + 0.5 * r * log(rho)) / (rho - 1);
        double xy = gsl_sf_gamma_inc_Q(r / 2, t0 / 2) - exp(eps) * gsl_sf_gamma_inc_Q(r / 2, rho * t0 / 2);
        ga_pair *p = reduce(&s.pairs[i]);
        ga_delta D;
        ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, w);
        double tol = 1e-12 + 1e-13 * exp(eps) * gsl_sf_gamma_inc_Q(r / 2, rho * t0 / 2) + 1e-9 * xy;
        cr_expect(fabs(D.xy.val - xy) <= tol, "row %zu leverage %.17g: %.17g vs %.17g", i + 1, lev,
                  D.xy.val, xy);
        /* the 1-D reduction equals the full 5-D pair S vs S - v v^T */
        if (i < 4) {
            double *sx = malloc(d * d * sizeof *sx), *sy = malloc(d * d * sizeof *sy), *z = calloc(d, sizeof *z);
            for (size_t a = 0; a < d; a++)
                for (size_t b = 0; b < d; b++) {
                    sx[a * d + b] = S[a * d + b] + (a == b ? sig2 : 0);
                    sy[a * d + b] = sx[a * d + b] - v[a] * v[b];
                }
            ga_pair_input in = {d, z, z, sx, sy, r, {NULL, NULL, NULL, NULL}};
            ga_pair *full;
            char msg[256];
            cr_assert(ga_pair_reduce(&full, &in, msg, sizeof msg) == GA_OK, "%s", msg);
            ga_delta F;
            ga_pair_delta(&F, full, eps, GA_DELTA_AUTO, NULL, w);
            cr_expect(fabs(F.xy.val - D.xy.val) <= 1e-12 + 1e-9 * D.xy.val &&
                          fabs(F.yx.val - D.yx.val) <= 1e-12 + 1e-9 * D.yx.val,
                      "row %zu: full %.17g/%.17g vs 1-D %.17g/%.17g", i + 1, F.xy.val, F.yx.val,
                      D.xy.val, D.yx.val);
            ga_pair_free(full);
            free(sx);
            free(sy);
            free(z);
        }
        ga_pair_free(p);
    }
    /* the universe pair is at least as private-costly as every row's */
    ga_pair *pw = reduce(&s.pairs[n]);
    ga_delta W;
    ga_pair_delta(&W, pw, eps, GA_DELTA_AUTO, NULL, w);
    for (size_t i = 0; i < n; i++) {
        ga_pair *p = reduce(&s.pairs[i]);
        ga_delta D;
        ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, w);
        cr_expect(D.xy.val <= W.xy.val * (1 + 1e-12) && D.yx.val <= W.yx.val * (1 + 1e-12),
                  "row %zu exceeds the universe worst case", i + 1);
        ga_pair_free(p);
    }
    ga_pair_free(pw);
    ga_gchisq_work_free(w);
    free(S);
    free(x);
    ga_spec_clear(&s);
}

Test(mechanisms, ridge_kinds_against_gsl)
{
    /* output perturbation: means are ridge solutions, covariance sigma^2 I */
    ga_spec s;
    load(&s, "specs/examples/output_perturbation.yaml");
    size_t p = s.data.d - 1;
    double XtX[16], Xty[4], th[4];
    for (size_t k = 0; k < s.npairs; k++) {
        normal_equations(XtX, Xty, &s.data, SIZE_MAX);
        gsl_spd_solve(th, XtX, 5.0, Xty, p);
        for (size_t a = 0; a < p; a++)
            cr_expect(fabs(s.pairs[k].mu_x[a] - th[a]) < 1e-13, "theta(D)[%zu]", a);
        normal_equations(XtX, Xty, &s.data, k);
        gsl_spd_solve(th, XtX, 5.0, Xty, p);
        for (size_t a = 0; a < p; a++)
            cr_expect(fabs(s.pairs[k].mu_y[a] - th[a]) < 1e-13, "pair %zu theta(D')[%zu] %.17g vs %.17g",
                      k, a, s.pairs[k].mu_y[a], th[a]);
        cr_expect(s.pairs[k].s_x[0] == 0.09 && s.pairs[k].s_x[1] == 0);
    }
    ga_spec_clear(&s);
    /* noisy gradient descent: the stationary covariance by iterating the recursion */
    load(&s, "specs/examples/noisy_gradient_descent.yaml");
    p = s.data.d - 1;
    normal_equations(XtX, Xty, &s.data, SIZE_MAX);
    double eta = 0.1, sig = 0.5, lam = 1.0, M[4], Sg[4] = {0, 0, 0, 0}, T[4];
    for (size_t a = 0; a < p; a++)
        for (size_t b = 0; b < p; b++)
            M[a * p + b] = (a == b) - eta * (XtX[a * p + b] + (a == b ? lam : 0));
    for (int it = 0; it < 20000; it++) { /* S <- M S M + 2 eta sigma^2 I */
        for (size_t a = 0; a < p; a++)
            for (size_t b = 0; b < p; b++) {
                double v = 0;
                for (size_t c = 0; c < p; c++)
                    for (size_t e = 0; e < p; e++)
                        v += M[a * p + c] * Sg[c * p + e] * M[e * p + b];
                T[a * p + b] = v + (a == b ? 2 * eta * sig * sig : 0);
            }
        memcpy(Sg, T, sizeof T);
    }
    for (size_t i = 0; i < p * p; i++)
        cr_expect(fabs(s.pairs[0].s_x[i] - Sg[i]) < 1e-12 * fabs(Sg[0]), "S[%zu] %.17g vs iterated %.17g",
                  i, s.pairs[0].s_x[i], Sg[i]);
    ga_spec_clear(&s);
    /* sketched least squares: x and ||e||^2 (B^T B + sigma^2 I)^{-1}/r */
    load(&s, "specs/examples/linear_regression.yaml");
    p = s.data.d - 1;
    normal_equations(XtX, Xty, &s.data, 0); /* the neighbour without row 1 */
    gsl_spd_solve(th, XtX, 4.0, Xty, p);
    double e2 = 4.0 * (th[0] * th[0] + th[1] * th[1]);
    for (size_t i = 1; i < s.data.n; i++) {
        const double *r = s.data.x + i * s.data.d;
        double res = r[2] - r[0] * th[0] - r[1] * th[1];
        e2 += res * res;
    }
    double e1[2] = {1, 0}, col[2];
    gsl_spd_solve(col, XtX, 4.0, e1, p);
    cr_expect(fabs(s.pairs[0].mu_y[0] - th[0]) < 1e-13 && fabs(s.pairs[0].mu_y[1] - th[1]) < 1e-13);
    cr_expect(fabs(s.pairs[0].s_y[0] - e2 * col[0] / 200) < 1e-13 * e2 &&
                  fabs(s.pairs[0].s_y[2] - e2 * col[1] / 200) < 1e-13 * e2,
              "cov %.17g vs %.17g", s.pairs[0].s_y[0], e2 * col[0] / 200);
    ga_spec_clear(&s);
}

static double sigmoid(double m) { return 1 / (1 + exp(-m)); }

Test(mechanisms, logistic_and_gp_against_independent_code)
{
    ga_spec s;
    load(&s, "specs/examples/bayesian_logistic_regression.yaml");
    size_t p = s.data.d - 1;
    /* the MAP estimate: the gradient of the log posterior vanishes */
    const double *th = s.pairs[0].mu_x;
    double g[2] = {-1.0 * th[0], -1.0 * th[1]};
    for (size_t i = 0; i < s.data.n; i++) {
        const double *r = s.data.x + i * s.data.d;
        double y = r[p] > 0 ? 1 : -1, m = y * (r[0] * th[0] + r[1] * th[1]);
        g[0] += y * r[0] * sigmoid(-m);
        g[1] += y * r[1] * sigmoid(-m);
    }
    cr_expect(fabs(g[0]) < 1e-12 && fabs(g[1]) < 1e-12, "gradient %.3g %.3g", g[0], g[1]);
    /* covariance (I + X^T X / 4)^{-1} + 0.25 I */
    double XtX[4] = {0}, Xty[2], e[2] = {1, 0}, col[2];
    normal_equations(XtX, Xty, &s.data, SIZE_MAX);
    for (int i = 0; i < 4; i++)
        XtX[i] *= 0.25;
    gsl_spd_solve(col, XtX, 1.0, e, 2);
    cr_expect(fabs(s.pairs[0].s_x[0] - (col[0] + 0.25)) < 1e-14 && fabs(s.pairs[0].s_x[2] - col[1]) < 1e-14,
              "cov %.17g vs %.17g", s.pairs[0].s_x[0], col[0] + 0.25);
    ga_spec_clear(&s);
    /* GP: posterior mean and covariance at the query points with GSL */
    load(&s, "specs/examples/gaussian_process_regression.yaml");
    size_t n = s.data.n;
    double K[64], ks[16], q[2] = {0.25, 0.75}, y[8], a[8];
    for (size_t i = 0; i < n; i++) {
        y[i] = s.data.x[i * 2 + 1];
        for (size_t j = 0; j < n; j++) {
            double dx = s.data.x[i * 2] - s.data.x[j * 2];
            K[i * n + j] = exp(-0.5 * dx * dx / 0.25);
        }
        for (int b = 0; b < 2; b++) {
            double dx = s.data.x[i * 2] - q[b];
            ks[i * 2 + b] = exp(-0.5 * dx * dx / 0.25);
        }
    }
    gsl_spd_solve(a, K, 0.1, y, n);
    for (int b = 0; b < 2; b++) {
        double m = 0;
        for (size_t i = 0; i < n; i++)
            m += ks[i * 2 + b] * a[i];
        cr_expect(fabs(s.pairs[0].mu_x[b] - m) < 1e-13, "GP mean %d: %.17g vs %.17g", b, s.pairs[0].mu_x[b], m);
    }
    double kc[8] = {0}, v[8];
    for (size_t i = 0; i < n; i++)
        kc[i] = ks[i * 2];
    gsl_spd_solve(v, K, 0.1, kc, n);
    double var = 1 + 0.04;
    for (size_t i = 0; i < n; i++)
        var -= kc[i] * v[i];
    cr_expect(fabs(s.pairs[0].s_x[0] - var) < 1e-13, "GP var %.17g vs %.17g", s.pairs[0].s_x[0], var);
    ga_spec_clear(&s);
    /* matrix masking: the mean moves by the zeroed row */
    load(&s, "specs/examples/matrix_masking.yaml");
    cr_expect(s.npairs == 5 && s.verified);
    cr_expect(fabs(s.pairs[0].mu_x[0] - 1.0) < 1e-15, "row 1 norm %.17g", s.pairs[0].mu_x[0]);
    cr_expect(fabs(s.pairs[1].mu_x[0] - 0.5) < 1e-15, "row 2 norm %.17g", s.pairs[1].mu_x[0]);
    cr_expect(s.pairs[4].mu_x[0] == 1.0, "universe worst case");
    ga_spec_clear(&s);
}

Test(mechanisms, malformed_catalogue_specs)
{
    static const struct {
        const char *yaml, *needle;
    } cases[] = {
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 3}\n", "dataset: missing"},
        {"gaussaudit: 1\nmechanism: {kind: sketch}\ndataset: {rows: [[1]]}\n", "mechanism.columns: missing"},
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 0.5}\ndataset: {rows: [[1]]}\n", "whole number"},
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: -1}\ndataset: {rows: [[1]]}\n", "noise_sigma"},
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 3}\ndataset: {rows: [[1, 2], [3]]}\n", "ragged"},
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 3}\ndataset: {rows: [[1, 0]]}\n", "singular"},
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 3}\ndataset: {rows: [[1]], csv: a.csv}\n", "exactly one"},
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 3}\ndataset: {csv: /nonexistent.csv}\n", "cannot open CSV"},
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: 1}\ndataset: {rows: [[1]]}\nneighbours: remove_two\n", "unknown relation"},
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: 1}\ndataset: {rows: [[1]]}\nneighbours: {relation: add_one}\n", "needs candidate rows"},
        {"gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: 1}\ndataset: {rows: [[1]]}\nneighbours: {relation: remove_one, rows: [5]}\n", "row number exceeds"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1}\n", "mechanism.sigma: missing"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 0}\n", "mechanism.sigma"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigm: 1}\n", "did you mean 'sigma'"},
        {"gaussaudit: 1\nmechanism: {kind: noisy_gradient_descent, lambda: 1, eta: 10, sigma: 1}\ndataset: {rows: [[1, 1], [2, 0]]}\n", "diverges"},
        {"gaussaudit: 1\nmechanism: {kind: bayesian_logistic_regression, lambda: 1}\ndataset: {rows: [[1, 2]]}\n", "label"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_process_regression, kernel: cubic, noise_variance: 1, query: [[0]]}\ndataset: {rows: [[1, 2]]}\n", "rbf or linear"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_process_regression, kernel: linear, noise_variance: 1}\ndataset: {rows: [[1, 2]]}\n", "mechanism.query"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_process_regression, kernel: linear, noise_variance: 1, query: [[0, 1]]}\ndataset: {rows: [[1, 2]]}\n", "has 2 entries, expected 1"},
        {"gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 1}\ndataset: {rows: [[1]]}\nneighbours: remove_one\n", "zero_out or replace_one"},
        {"gaussaudit: 1\nmechanism: {kind: output_perturbation, lambda: 1, sigma: 1}\ndataset: {rows: [[1]]}\n", "at least two columns"},
        {"gaussaudit: 1\nmechanism: {kind: output_perturbation, lambda: 1, sigma: 1}\ndataset: {rows: [[1, 2]]}\nuniverse: {row_norm_bound: -1}\n", "universe.row_norm_bound"},
        {"gaussaudit: 1\nmechanism: {kind: output_perturbation, lambda: 1, sigma: 1}\npairs: []\n", "belong to kind gaussian_pair"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_pair}\ndataset: {rows: [[1]]}\n", "explicit pairs"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[] = "/tmp/ga_mechXXXXXX";
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        FILE *f = fdopen(fd, "w");
        fputs(cases[i].yaml, f);
        fclose(f);
        char args[256], *out, *err;
        snprintf(args, sizeof args, "delta %s --epsilon 1", path);
        int st = ga_test_run(args, &out, &err);
        cr_expect(st == 65, "case %zu: status %d: %s\n---\n%s", i, st, err, cases[i].yaml);
        cr_expect(strstr(err, cases[i].needle) != NULL, "case %zu: stderr lacks '%s': %s", i,
                  cases[i].needle, err);
        unlink(path);
        free(out);
        free(err);
    }
}

static void write_spec(char *path, const char *yaml)
{
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(yaml, f);
    fclose(f);
}

Test(mechanisms, sketch_add_and_replace_and_gp_linear_kernel)
{
    /* add_one: leverage of the added row c in D + c is q/(1+q), q = c^T S^{-1} c, and the
     * pair is the remove pair with the roles swapped */
    char path[] = "/tmp/ga_mech2XXXXXX";
    write_spec(path, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 7, noise_sigma: 0.5}\n"
                     "dataset: {rows: [[1, 0], [0.5, 1], [-0.3, 0.8]]}\n"
                     "neighbours: {relation: add_one, candidates: [[0.6, -0.2]]}\n");
    ga_spec s;
    load(&s, path);
    unlink(path);
    cr_assert(s.npairs == 1);
    double S[4] = {1 + 0.25 + 0.09, 0.5 - 0.24, 0.5 - 0.24, 1 + 0.64}, c[2] = {0.6, -0.2}, x[2];
    gsl_spd_solve(x, S, 0.25, c, 2);
    double q = c[0] * x[0] + c[1] * x[1], lev = q / (1 + q), rho = 1 / (1 - lev), r = 7, eps = 0.3;
    /* delta_{Y,X} of the add pair is delta_{X,Y} of the remove pair with this leverage */
    double t0 = 2 * (eps + 0.5 * r * log(rho)) / (rho - 1);
    double ref = gsl_sf_gamma_inc_Q(r / 2, t0 / 2) - exp(eps) * gsl_sf_gamma_inc_Q(r / 2, rho * t0 / 2);
    ga_pair *p = reduce(&s.pairs[0]);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_delta D;
    ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, w);
    cr_expect(fabs(D.yx.val - ref) < 1e-12 + 1e-9 * ref, "add_one: %.17g vs %.17g", D.yx.val, ref);
    ga_pair_free(p);
    ga_spec_clear(&s);
    /* replace_one by the same row: identical laws, delta = 0 (TV = 0) */
    char path2[] = "/tmp/ga_mech3XXXXXX";
    write_spec(path2, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: 0.5}\n"
                      "dataset: {rows: [[1, 0], [0.5, 1], [-0.3, 0.8]]}\n"
                      "neighbours: {relation: replace_one, rows: [2], candidates: [[0.5, 1], [0, 0]]}\n");
    load(&s, path2);
    unlink(path2);
    cr_assert(s.npairs == 2);
    p = reduce(&s.pairs[0]);
    ga_pair_delta(&D, p, 0, GA_DELTA_AUTO, NULL, w);
    cr_expect(D.xy.val < 1e-15 && D.yx.val < 1e-15, "same row: %.3g %.3g", D.xy.val, D.yx.val);
    ga_pair_free(p);
    /* replacing by zero equals zero_out / remove for the sketch covariance */
    p = reduce(&s.pairs[1]);
    ga_pair_delta(&D, p, 0.2, GA_DELTA_AUTO, NULL, w);
    ga_pair_free(p);
    ga_spec_clear(&s);
    char path3[] = "/tmp/ga_mech4XXXXXX";
    write_spec(path3, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: 0.5}\n"
                      "dataset: {rows: [[1, 0], [0.5, 1], [-0.3, 0.8]]}\n"
                      "neighbours: {relation: remove_one, rows: [2]}\n");
    load(&s, path3);
    unlink(path3);
    p = reduce(&s.pairs[0]);
    ga_delta R;
    ga_pair_delta(&R, p, 0.2, GA_DELTA_AUTO, NULL, w);
    cr_expect(fabs(R.xy.val - D.xy.val) < 1e-12 && fabs(R.yx.val - D.yx.val) < 1e-12,
              "replace by 0 %.17g/%.17g vs remove %.17g/%.17g", D.xy.val, D.yx.val, R.xy.val, R.yx.val);
    ga_pair_free(p);
    ga_spec_clear(&s);
    /* GP with a linear kernel: mean x*^T (X^T X + s_n^2 I)^{-1} X^T y (push-through identity) */
    char path4[] = "/tmp/ga_mech5XXXXXX";
    write_spec(path4, "gaussaudit: 1\nmechanism: {kind: gaussian_process_regression, kernel: linear, "
                      "noise_variance: 0.3, query: [[0.5, -1]]}\n"
                      "dataset: {rows: [[1, 0, 2], [0.5, 1, 1], [-0.3, 0.8, 0]]}\n");
    load(&s, path4);
    unlink(path4);
    double XtX[4], Xty[2], th[2];
    normal_equations(XtX, Xty, &s.data, SIZE_MAX);
    gsl_spd_solve(th, XtX, 0.3, Xty, 2);
    double m = 0.5 * th[0] - th[1];
    cr_expect(fabs(s.pairs[0].mu_x[0] - m) < 1e-13, "GP linear mean %.17g vs %.17g", s.pairs[0].mu_x[0], m);
    ga_spec_clear(&s);
    ga_gchisq_work_free(w);
}

Test(mechanisms, gaussian_mechanism_explicit_outputs_with_noise_covariance)
{
    char path[] = "/tmp/ga_mech6XXXXXX";
    write_spec(path, "gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, f: [1, 0], "
                     "f_neighbours: [[0, 0], [1, 0.5]], noise_cov: [[1, 0.2], [0.2, 1]]}\n");
    ga_spec s;
    load(&s, path);
    unlink(path);
    cr_assert(s.npairs == 2 && !s.verified);
    /* the analytic formula with the Mahalanobis distance t^2 = m^T C^{-1} m */
    double ts[2] = {sqrt(1 / 0.96), sqrt(0.25 / 0.96)};
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t k = 0; k < 2; k++) {
        ga_pair *p = reduce(&s.pairs[k]);
        double t = ts[k], eps = 0.5;
        double ref = gsl_cdf_ugaussian_P(t / 2 - eps / t) - exp(eps) * gsl_cdf_ugaussian_P(-t / 2 - eps / t);
        ga_delta D;
        ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, w);
        cr_expect(fabs(D.xy.val - ref) < 1e-13 && fabs(D.yx.val - ref) < 1e-13, "pair %zu: %.17g vs %.17g",
                  k, D.xy.val, ref);
        ga_pair_free(p);
    }
    ga_gchisq_work_free(w);
    ga_spec_clear(&s);
}

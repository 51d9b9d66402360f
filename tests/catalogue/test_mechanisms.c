/*
 * test_mechanisms.c - the mechanism catalogue: every worked example of specs/examples runs
 * through delta and epsilon, and each kind's pairs match an independent computation (GSL
 * linear algebra instead of LAPACK, the noisy-GD recursion iterated instead of solved, the
 * analytic Gaussian mechanism formula, the incomplete-gamma closed form in the leverage).
 */
#include "gaussaudit.h"
#include "catalogue/catalogue.h"
#include "tests/support.h"

#include <arb.h>
#include <arb_hypgeom.h>
#include <criterion/criterion.h>
#include <float.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* a spec and the pairs built from it */
typedef struct {
    ga_spec spec;
    ga_pairset set;
} mech_t;

static void mech_clear(mech_t *m)
{
    ga_mech_clear(&m->spec, &m->set);
}

/* load a spec; its universe worst cases sought at eps (NAN: the kind's default) */
static void load_at(mech_t *s, const char *path, double eps)
{
    char msg[1024];
    ga_build_opts bo = {.neps = !isnan(eps), .eps = {eps}};
    int st = ga_mech_load(&s->spec, &s->set, path, NULL, &bo, msg, sizeof msg);
    cr_assert(st == GA_OK, "%s: %s", path, msg);
}

static void load(mech_t *s, const char *path)
{
    load_at(s, path, NAN);
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

/* (A + c I)^{-1} b with GSL's Cholesky (independent of the LAPACK calls under test) */
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

/* FLINT's caches (the ball arithmetic of the certified tests) are released per test process,
 * so that valgrind's leak check sees only what the code leaks */
static void fini(void)
{
    ga_cleanup();
}
TestSuite(mechanisms, .fini = fini);

Test(mechanisms, every_example_runs_delta_and_epsilon)
{
    const char *ex[] = {"gaussian_mechanism", "sketch_remove_one", "linear_regression",
                        "bayesian_logistic_regression", "gaussian_process_regression",
                        "output_perturbation", "noisy_gradient_descent", "matrix_masking",
                        "two_explicit_outputs", "gaussian_mechanism_pair",
                        "matrix_masking_orthogonal"};
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
    mech_t s;
    load(&s, "specs/examples/gaussian_mechanism.yaml");
    cr_assert(s.set.npairs == 1 && s.set.verified);
    ga_pair *p = reduce(&s.set.pairs[0]);
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
    /* the classic calibration at eps = 10 has delta about 2.27e-5 */
    ga_delta D;
    ga_pair_delta(&D, p, 10, GA_DELTA_AUTO, NULL, w);
    cr_expect(fabs(D.xy.val - 2.27e-5) < 0.01e-5, "delta(10) = %.6g", D.xy.val);
    ga_pair_free(p);
    ga_gchisq_work_free(w);
    mech_clear(&s);
}

Test(mechanisms, sketch_leverage_closed_form_and_full_pair)
{
    mech_t s;
    load(&s, "specs/examples/sketch_remove_one.yaml");
    size_t n = s.spec.data.n, d = s.spec.data.d;
    cr_assert(n == 60 && d == 5 && s.set.npairs == 61 && s.set.verified, "%zu pairs", s.set.npairs);
    double sig2 = 6.185 * 6.185, r = 300, eps = 1;
    double *S = calloc(d * d, sizeof *S), *x = malloc(d * sizeof *x);
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++)
                S[a * d + b] += s.spec.data.x[i * d + a] * s.spec.data.x[i * d + b];
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t i = 0; i < n; i++) {
        const double *v = s.spec.data.x + i * d;
        gsl_spd_solve(x, S, sig2, v, d);
        double lev = 0;
        for (size_t a = 0; a < d; a++)
            lev += v[a] * x[a];
        double rho = 1 / (1 - lev), t0 = 2 * (eps + 0.5 * r * log(rho)) / (rho - 1);
        double xy = gsl_sf_gamma_inc_Q(r / 2, t0 / 2) - exp(eps) * gsl_sf_gamma_inc_Q(r / 2, rho * t0 / 2);
        ga_pair *p = reduce(&s.set.pairs[i]);
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
    ga_pair *pw = reduce(&s.set.pairs[n]);
    ga_delta W;
    ga_pair_delta(&W, pw, eps, GA_DELTA_AUTO, NULL, w);
    for (size_t i = 0; i < n; i++) {
        ga_pair *p = reduce(&s.set.pairs[i]);
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
    mech_clear(&s);
}

Test(mechanisms, ridge_kinds_against_gsl)
{
    /* output perturbation: means are ridge solutions, covariance sigma^2 I */
    mech_t s;
    load(&s, "specs/examples/output_perturbation.yaml");
    size_t p = s.spec.data.d - 1;
    double XtX[16], Xty[4], th[4];
    for (size_t k = 0; k < s.set.npairs; k++) {
        normal_equations(XtX, Xty, &s.spec.data, SIZE_MAX);
        gsl_spd_solve(th, XtX, 5.0, Xty, p);
        for (size_t a = 0; a < p; a++)
            cr_expect(fabs(s.set.pairs[k].mu_x[a] - th[a]) < 1e-13, "theta(D)[%zu]", a);
        normal_equations(XtX, Xty, &s.spec.data, k);
        gsl_spd_solve(th, XtX, 5.0, Xty, p);
        for (size_t a = 0; a < p; a++)
            cr_expect(fabs(s.set.pairs[k].mu_y[a] - th[a]) < 1e-13, "pair %zu theta(D')[%zu] %.17g vs %.17g",
                      k, a, s.set.pairs[k].mu_y[a], th[a]);
        cr_expect(s.set.pairs[k].s_x[0] == 0.09 && s.set.pairs[k].s_x[1] == 0);
    }
    mech_clear(&s);
    /* noisy gradient descent: the stationary covariance by iterating the recursion */
    load(&s, "specs/examples/noisy_gradient_descent.yaml");
    p = s.spec.data.d - 1;
    normal_equations(XtX, Xty, &s.spec.data, SIZE_MAX);
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
        cr_expect(fabs(s.set.pairs[0].s_x[i] - Sg[i]) < 1e-12 * fabs(Sg[0]), "S[%zu] %.17g vs iterated %.17g",
                  i, s.set.pairs[0].s_x[i], Sg[i]);
    mech_clear(&s);
    /* sketched least squares: x and ||e||^2 (B^T B + sigma^2 I)^{-1}/r */
    load(&s, "specs/examples/linear_regression.yaml");
    p = s.spec.data.d - 1;
    normal_equations(XtX, Xty, &s.spec.data, 0); /* the neighbour without row 1 */
    gsl_spd_solve(th, XtX, 4.0, Xty, p);
    double e2 = 4.0 * (th[0] * th[0] + th[1] * th[1] + 1); /* augmentation sigma I_{d+1}, sigma = 2 */
    for (size_t i = 1; i < s.spec.data.n; i++) {
        const double *r = s.spec.data.x + i * s.spec.data.d;
        double res = r[2] - r[0] * th[0] - r[1] * th[1];
        e2 += res * res;
    }
    double e1[2] = {1, 0}, col[2];
    gsl_spd_solve(col, XtX, 4.0, e1, p);
    cr_expect(fabs(s.set.pairs[0].mu_y[0] - th[0]) < 1e-13 && fabs(s.set.pairs[0].mu_y[1] - th[1]) < 1e-13);
    cr_expect(fabs(s.set.pairs[0].s_y[0] - e2 * col[0] / 200) < 1e-13 * e2 &&
                  fabs(s.set.pairs[0].s_y[2] - e2 * col[1] / 200) < 1e-13 * e2,
              "cov %.17g vs %.17g", s.set.pairs[0].s_y[0], e2 * col[0] / 200);
    mech_clear(&s);
}

static double sigmoid(double m) { return 1 / (1 + exp(-m)); }

Test(mechanisms, logistic_and_gp_against_independent_code)
{
    mech_t s;
    load(&s, "specs/examples/bayesian_logistic_regression.yaml");
    size_t p = s.spec.data.d - 1;
    /* the MAP estimate: the gradient of the log posterior vanishes */
    const double *th = s.set.pairs[0].mu_x;
    double g[2] = {-1.0 * th[0], -1.0 * th[1]};
    for (size_t i = 0; i < s.spec.data.n; i++) {
        const double *r = s.spec.data.x + i * s.spec.data.d;
        double y = r[p] > 0 ? 1 : -1, m = y * (r[0] * th[0] + r[1] * th[1]);
        g[0] += y * r[0] * sigmoid(-m);
        g[1] += y * r[1] * sigmoid(-m);
    }
    cr_expect(fabs(g[0]) < 1e-12 && fabs(g[1]) < 1e-12, "gradient %.3g %.3g", g[0], g[1]);
    /* and every neighbour's (the data without row k): the damped Newton iteration once
     * stalled at a gradient of 1e-9 there (its line search halving against rounding noise) */
    for (size_t k = 0; k < s.set.npairs; k++) {
        const double *tk = s.set.pairs[k].mu_y;
        double h[2] = {-1.0 * tk[0], -1.0 * tk[1]};
        for (size_t i = 0; i < s.spec.data.n; i++) {
            if (i == k)
                continue;
            const double *r = s.spec.data.x + i * s.spec.data.d;
            double y = r[p] > 0 ? 1 : -1, m = y * (r[0] * tk[0] + r[1] * tk[1]);
            h[0] += y * r[0] * sigmoid(-m);
            h[1] += y * r[1] * sigmoid(-m);
        }
        cr_expect(fabs(h[0]) < 1e-12 && fabs(h[1]) < 1e-12, "neighbour %zu ('%s'): gradient %.3g %.3g",
                  k + 1, s.set.pairs[k].name, h[0], h[1]);
    }
    /* covariance (I + X^T X / 4)^{-1} + 0.25 I */
    double XtX[4] = {0}, Xty[2], e[2] = {1, 0}, col[2];
    normal_equations(XtX, Xty, &s.spec.data, SIZE_MAX);
    for (int i = 0; i < 4; i++)
        XtX[i] *= 0.25;
    gsl_spd_solve(col, XtX, 1.0, e, 2);
    cr_expect(fabs(s.set.pairs[0].s_x[0] - (col[0] + 0.25)) < 1e-14 && fabs(s.set.pairs[0].s_x[2] - col[1]) < 1e-14,
              "cov %.17g vs %.17g", s.set.pairs[0].s_x[0], col[0] + 0.25);
    mech_clear(&s);
    /* GP: posterior mean and covariance at the query points with GSL */
    load(&s, "specs/examples/gaussian_process_regression.yaml");
    size_t n = s.spec.data.n;
    double K[64], ks[16], q[2] = {0.25, 0.75}, y[8], a[8];
    for (size_t i = 0; i < n; i++) {
        y[i] = s.spec.data.x[i * 2 + 1];
        for (size_t j = 0; j < n; j++) {
            double dx = s.spec.data.x[i * 2] - s.spec.data.x[j * 2];
            K[i * n + j] = exp(-0.5 * dx * dx / 0.25);
        }
        for (int b = 0; b < 2; b++) {
            double dx = s.spec.data.x[i * 2] - q[b];
            ks[i * 2 + b] = exp(-0.5 * dx * dx / 0.25);
        }
    }
    gsl_spd_solve(a, K, 0.1, y, n);
    for (int b = 0; b < 2; b++) {
        double m = 0;
        for (size_t i = 0; i < n; i++)
            m += ks[i * 2 + b] * a[i];
        cr_expect(fabs(s.set.pairs[0].mu_x[b] - m) < 1e-13, "GP mean %d: %.17g vs %.17g", b, s.set.pairs[0].mu_x[b], m);
    }
    double kc[8] = {0}, v[8];
    for (size_t i = 0; i < n; i++)
        kc[i] = ks[i * 2];
    gsl_spd_solve(v, K, 0.1, kc, n);
    double var = 1 + 0.04;
    for (size_t i = 0; i < n; i++)
        var -= kc[i] * v[i];
    cr_expect(fabs(s.set.pairs[0].s_x[0] - var) < 1e-13, "GP var %.17g vs %.17g", s.set.pairs[0].s_x[0], var);
    mech_clear(&s);
    /* matrix masking: the mean moves by the zeroed row */
    load(&s, "specs/examples/matrix_masking.yaml");
    cr_expect(s.set.npairs == 5 && s.set.verified);
    cr_expect(fabs(s.set.pairs[0].mu_x[0] - 1.0) < 1e-15, "row 1 norm %.17g", s.set.pairs[0].mu_x[0]);
    cr_expect(fabs(s.set.pairs[1].mu_x[0] - 0.5) < 1e-15, "row 2 norm %.17g", s.set.pairs[1].mu_x[0]);
    cr_expect(s.set.pairs[4].mu_x[0] == 1.0, "universe worst case");
    mech_clear(&s);
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
        {"gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 1, masking: random}\ndataset: {rows: [[1]]}\nneighbours: zero_out\n", "none (setting (A)"},
        {"gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 1, masking: orthogonal, rows: 3}\ndataset: {rows: [[1]]}\nneighbours: zero_out\n", "comes from the dataset"},
        {"gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 1, masking: orthogonal, rows: 3}\nneighbours: zero_out\n", "needs a dataset or a universe"},
        {"gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 1, masking: orthogonal, rows: 2.5}\nneighbours: zero_out\nuniverse: {row_norm_bound: 1}\n", "mechanism.rows"},
        {"gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 1, masking: orthogonal, rows: 10, columns: 0.5}\nneighbours: zero_out\nuniverse: {row_norm_bound: 1}\n", "mechanism.columns"},
        {"gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 1, masking: orthogonal}\ndataset: {rows: [[1]]}\nneighbours: remove_one\n", "zero_out or replace_one"},
        {"gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 1, rows: 4}\ndataset: {rows: [[1]]}\nneighbours: zero_out\n", "for masking: orthogonal"},
        {"gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 1, masking: orthogonal, release: {matrix: [[1]]}}\ndataset: {rows: [[1]]}\nneighbours: zero_out\n", "not Gaussian"},
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

Test(mechanisms, sketch_add_and_replace_and_gp_linear_kernel)
{
    /* add_one: leverage of the added row c in D + c is q/(1+q), q = c^T S^{-1} c, and the
     * pair is the remove pair with the roles swapped */
    char path[] = "/tmp/ga_mech2XXXXXX";
    ga_test_temp_spec(path, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 7, noise_sigma: 0.5}\n"
                     "dataset: {rows: [[1, 0], [0.5, 1], [-0.3, 0.8]]}\n"
                     "neighbours: {relation: add_one, candidates: [[0.6, -0.2]]}\n");
    mech_t s;
    load(&s, path);
    unlink(path);
    cr_assert(s.set.npairs == 1);
    double S[4] = {1 + 0.25 + 0.09, 0.5 - 0.24, 0.5 - 0.24, 1 + 0.64}, c[2] = {0.6, -0.2}, x[2];
    gsl_spd_solve(x, S, 0.25, c, 2);
    double q = c[0] * x[0] + c[1] * x[1], lev = q / (1 + q), rho = 1 / (1 - lev), r = 7, eps = 0.3;
    /* delta_{Y,X} of the add pair is delta_{X,Y} of the remove pair with this leverage */
    double t0 = 2 * (eps + 0.5 * r * log(rho)) / (rho - 1);
    double ref = gsl_sf_gamma_inc_Q(r / 2, t0 / 2) - exp(eps) * gsl_sf_gamma_inc_Q(r / 2, rho * t0 / 2);
    ga_pair *p = reduce(&s.set.pairs[0]);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_delta D;
    ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, w);
    cr_expect(fabs(D.yx.val - ref) < 1e-12 + 1e-9 * ref, "add_one: %.17g vs %.17g", D.yx.val, ref);
    ga_pair_free(p);
    mech_clear(&s);
    /* replace_one by the same row: identical laws, delta = 0 (TV = 0) */
    char path2[] = "/tmp/ga_mech3XXXXXX";
    ga_test_temp_spec(path2, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: 0.5}\n"
                      "dataset: {rows: [[1, 0], [0.5, 1], [-0.3, 0.8]]}\n"
                      "neighbours: {relation: replace_one, rows: [2], candidates: [[0.5, 1], [0, 0]]}\n");
    load(&s, path2);
    unlink(path2);
    cr_assert(s.set.npairs == 2);
    p = reduce(&s.set.pairs[0]);
    ga_pair_delta(&D, p, 0, GA_DELTA_AUTO, NULL, w);
    cr_expect(D.xy.val < 1e-15 && D.yx.val < 1e-15, "same row: %.3g %.3g", D.xy.val, D.yx.val);
    ga_pair_free(p);
    /* replacing by zero equals zero_out / remove for the sketch covariance */
    p = reduce(&s.set.pairs[1]);
    ga_pair_delta(&D, p, 0.2, GA_DELTA_AUTO, NULL, w);
    ga_pair_free(p);
    mech_clear(&s);
    char path3[] = "/tmp/ga_mech4XXXXXX";
    ga_test_temp_spec(path3, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: 0.5}\n"
                      "dataset: {rows: [[1, 0], [0.5, 1], [-0.3, 0.8]]}\n"
                      "neighbours: {relation: remove_one, rows: [2]}\n");
    load(&s, path3);
    unlink(path3);
    p = reduce(&s.set.pairs[0]);
    ga_delta R;
    ga_pair_delta(&R, p, 0.2, GA_DELTA_AUTO, NULL, w);
    cr_expect(fabs(R.xy.val - D.xy.val) < 1e-12 && fabs(R.yx.val - D.yx.val) < 1e-12,
              "replace by 0 %.17g/%.17g vs remove %.17g/%.17g", D.xy.val, D.yx.val, R.xy.val, R.yx.val);
    ga_pair_free(p);
    mech_clear(&s);
    /* GP with a linear kernel: mean x*^T (X^T X + s_n^2 I)^{-1} X^T y (push-through identity) */
    char path4[] = "/tmp/ga_mech5XXXXXX";
    ga_test_temp_spec(path4, "gaussaudit: 1\nmechanism: {kind: gaussian_process_regression, kernel: linear, "
                      "noise_variance: 0.3, query: [[0.5, -1]]}\n"
                      "dataset: {rows: [[1, 0, 2], [0.5, 1, 1], [-0.3, 0.8, 0]]}\n");
    load(&s, path4);
    unlink(path4);
    double XtX[4], Xty[2], th[2];
    normal_equations(XtX, Xty, &s.spec.data, SIZE_MAX);
    gsl_spd_solve(th, XtX, 0.3, Xty, 2);
    double m = 0.5 * th[0] - th[1];
    cr_expect(fabs(s.set.pairs[0].mu_x[0] - m) < 1e-13, "GP linear mean %.17g vs %.17g", s.set.pairs[0].mu_x[0], m);
    mech_clear(&s);
    ga_gchisq_work_free(w);
}

Test(mechanisms, gaussian_mechanism_explicit_outputs_with_noise_covariance)
{
    char path[] = "/tmp/ga_mech6XXXXXX";
    ga_test_temp_spec(path, "gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, f: [1, 0], "
                     "f_neighbours: [[0, 0], [1, 0.5]], noise_cov: [[1, 0.2], [0.2, 1]]}\n");
    mech_t s;
    load(&s, path);
    unlink(path);
    cr_assert(s.set.npairs == 2 && !s.set.verified);
    /* the analytic formula with the Mahalanobis distance t^2 = m^T C^{-1} m */
    double ts[2] = {sqrt(1 / 0.96), sqrt(0.25 / 0.96)};
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t k = 0; k < 2; k++) {
        ga_pair *p = reduce(&s.set.pairs[k]);
        double t = ts[k], eps = 0.5;
        double ref = gsl_cdf_ugaussian_P(t / 2 - eps / t) - exp(eps) * gsl_cdf_ugaussian_P(-t / 2 - eps / t);
        ga_delta D;
        ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, w);
        cr_expect(fabs(D.xy.val - ref) < 1e-13 && fabs(D.yx.val - ref) < 1e-13, "pair %zu: %.17g vs %.17g",
                  k, D.xy.val, ref);
        ga_pair_free(p);
    }
    ga_gchisq_work_free(w);
    mech_clear(&s);
}

/* ------------------------------------------------------------ sketched least squares (M_LS) */

/* delta_ALS^eps(q, p) transcribed from the NDIS paper (Definition 13 with Table VI): four
 * generalized chi-squares W1, W2, W1', W2' (weights, dof (1, d - 1), noncentrality on the
 * first term), t = r p (q - p)/((1 - p)^2 - (1 - q)) - d ln(1 - q) + (d + 1) ln(1 - p). Returns
 * both components (the paper takes their maximum) and their error estimates. */
static void table_vi(double out[2], double err[2], double q, double p, double r, size_t d, double eps,
                     ga_gchisq_work *w)
{
    double den = ((1 - q) - (1 - p) * (1 - p)) * ((1 - q) - (1 - p) * (1 - p));
    double t = r * p * (q - p) / ((1 - p) * (1 - p) - (1 - q)) - (double)d * log(1 - q) + (double)(d + 1) * log(1 - p);
    double W[4][2] = {{1 - (1 - q) / ((1 - p) * (1 - p)), 1 - (1 - q) / (1 - p)},
                      {((1 - p) * (1 - p) - (1 - q)) / (1 - q), (q - p) / (1 - q)},
                      {1 - (1 - p) * (1 - p) / (1 - q), 1 - (1 - p) / (1 - q)},
                      {((1 - q) - (1 - p) * (1 - p)) / ((1 - p) * (1 - p)), (p - q) / (1 - p)}};
    double nc[4] = {r * p * (1 - q) * (q - p) / den, r * p * (1 - p) * (1 - p) * (q - p) / den,
                    r * p * (1 - p) * (1 - p) * (q - p) / den, r * p * (1 - q) * (q - p) / den};
    double x[4] = {t - 2 * eps, t - 2 * eps, -t - 2 * eps, -t - 2 * eps}, cdf[4], ce[4];
    ga_gchisq *g = ga_gchisq_alloc(2);
    for (int k = 0; k < 4; k++) {
        double dof[2] = {1, (double)d - 1}, ncv[2] = {nc[k], 0};
        char msg[256];
        cr_assert(ga_gchisq_set_classical(g, d > 1 ? 2 : 1, W[k], dof, ncv, 0, 0, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_gchisq_prob pr;
        cr_assert(ga_gchisq_prob_eval(&pr, g, x[k], NULL, w) <= GA_ETOL);
        cdf[k] = pr.cdf.val;
        ce[k] = pr.cdf.err;
    }
    ga_gchisq_free(g);
    for (int i = 0; i < 2; i++) {
        out[i] = cdf[2 * i] - exp(eps) * cdf[2 * i + 1];
        err[i] = ce[2 * i] + exp(eps) * ce[2 * i + 1] + 4 * DBL_EPSILON * (cdf[2 * i] + exp(eps) * cdf[2 * i + 1]);
    }
}

/* Theorem 4 / Table VI of the paper against the pair gaussaudit builds from (q, p): the first
 * component is delta_YX (the law without the row first), the second delta_XY. */
Test(mechanisms, als_theorem4_pair_matches_the_papers_table_vi)
{
    gsl_rng *rng = ga_test_rng(47);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    long n = ga_test_count(40);
    for (long k = 0; k < n; k++) {
        double p = 0.002 + 0.2 * gsl_rng_uniform(rng), q = p + (0.002 + 0.2 * gsl_rng_uniform(rng));
        double r = 20 + floor(400 * gsl_rng_uniform(rng)), eps = 0.1 + 2 * gsl_rng_uniform(rng);
        size_t d = 2 + (size_t)(8 * gsl_rng_uniform(rng));
        double tv[2], te[2];
        table_vi(tv, te, q, p, r, d, eps, w);
        ga_pair *pr;
        char msg[256];
        cr_assert(ga_mech_als_pair(&pr, q, p, r, d, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta D;
        ga_pair_delta(&D, pr, eps, GA_DELTA_AUTO, NULL, w);
        ga_pair_free(pr);
        /* Table VI is ill-conditioned in double precision: (1 - p)^2 - (1 - q) cancels when
         * q is near 2p - p^2, and the noncentralities (up to 1e6) and t inherit it, so its
         * double evaluation is good to about 1e-10 relative there (the pair is good to 1e-15;
         * the exact agreement is checked in ball arithmetic below) */
        cr_expect(fabs(fmax(tv[0], 0) - D.yx.val) <= te[0] + D.yx.err + 1e-9 * D.yx.val &&
                      fabs(fmax(tv[1], 0) - D.xy.val) <= te[1] + D.xy.err + 1e-9 * D.xy.val,
                  "q %.6g p %.6g r %g d %zu eps %.4g: Table VI %.17g/%.17g (err %.2g/%.2g) vs pair %.17g/%.17g",
                  q, p, r, d, eps, tv[0], tv[1], te[0], te[1], D.yx.val, D.xy.val);
    }
    gsl_rng_free(rng);
    ga_gchisq_work_free(w);
}

/* decimal text (60 digits) of a ball's midpoint: the exact input handed to the certified
 * paths (the ball's radius, below 1e-70 here, is far below every width compared) */
static char *arb_text(const arb_t v)
{
    char *t = arb_get_str(v, 60, ARB_STR_NO_RADIUS);
    char *c = strdup(t);
    flint_free(t);
    return c;
}

/* Table VI and the Theorem 4 pair, both certified (Arb) from 60-digit inputs computed in
 * ball arithmetic: the paper's formula and our reduction give the same delta. */
Test(mechanisms, als_table_vi_equals_theorem4_pair_certified)
{
    static const struct {
        const char *q, *p, *eps;
        int r, d;
    } cases[] = {{"0.257768", "0.137911", "0.7272", 100, 4}, {"0.05", "0.03", "1", 300, 5}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        slong prec = 256;
        arb_t q, p, r, e, t, u, v, den, one;
        arb_init(q), arb_init(p), arb_init(r), arb_init(e), arb_init(t), arb_init(u), arb_init(v), arb_init(den),
            arb_init(one);
        arb_set_str(q, cases[k].q, prec);
        arb_set_str(p, cases[k].p, prec);
        arb_set_str(e, cases[k].eps, prec);
        arb_set_si(r, cases[k].r);
        arb_one(one);
        int d = cases[k].d;
        /* a = 1 - p, b = 1 - q, c = a^2 - b */
        arb_t a, b, c;
        arb_init(a), arb_init(b), arb_init(c);
        arb_sub(a, one, p, prec);
        arb_sub(b, one, q, prec);
        arb_sqr(c, a, prec);
        arb_sub(c, c, b, prec);
        arb_sqr(den, c, prec);
        /* t = r p (q - p)/c - d log b + (d + 1) log a */
        arb_sub(u, q, p, prec);
        arb_mul(t, r, p, prec);
        arb_mul(t, t, u, prec);
        arb_div(t, t, c, prec);
        arb_log(v, b, prec);
        arb_mul_si(v, v, d, prec);
        arb_sub(t, t, v, prec);
        arb_log(v, a, prec);
        arb_mul_si(v, v, d + 1, prec);
        arb_add(t, t, v, prec);
        /* weights and noncentralities of W1, W2, W1', W2' */
        arb_t w[4][2], nc[4], x[4], a2;
        arb_init(a2);
        arb_sqr(a2, a, prec);
        for (int i = 0; i < 4; i++) {
            arb_init(w[i][0]), arb_init(w[i][1]), arb_init(nc[i]), arb_init(x[i]);
        }
        arb_div(w[0][0], b, a2, prec), arb_sub(w[0][0], one, w[0][0], prec);
        arb_div(w[0][1], b, a, prec), arb_sub(w[0][1], one, w[0][1], prec);
        arb_div(w[1][0], c, b, prec);
        arb_div(w[1][1], u, b, prec);
        arb_div(w[2][0], a2, b, prec), arb_sub(w[2][0], one, w[2][0], prec);
        arb_div(w[2][1], a, b, prec), arb_sub(w[2][1], one, w[2][1], prec);
        arb_div(w[3][0], c, a2, prec), arb_neg(w[3][0], w[3][0]);
        arb_div(w[3][1], u, a, prec), arb_neg(w[3][1], w[3][1]);
        arb_mul(v, r, p, prec);
        arb_mul(v, v, u, prec);
        arb_div(v, v, den, prec); /* r p (q - p)/c^2 */
        arb_mul(nc[0], v, b, prec);
        arb_mul(nc[1], v, a2, prec);
        arb_set(nc[2], nc[1]);
        arb_set(nc[3], nc[0]);
        arb_mul_2exp_si(v, e, 1);
        arb_sub(x[0], t, v, prec);
        arb_set(x[1], x[0]);
        arb_neg(x[2], t);
        arb_sub(x[2], x[2], v, prec);
        arb_set(x[3], x[2]);
        ga_interval cdf[4];
        for (int i = 0; i < 4; i++) {
            char *ws[2] = {arb_text(w[i][0]), arb_text(w[i][1])}, *ns[2] = {arb_text(nc[i]), strdup("0")};
            char ds[16], *xs = arb_text(x[i]);
            snprintf(ds, sizeof ds, "%d", d - 1);
            const char *dof[2] = {"1", ds};
            ga_gchisq_exact *ex = ga_gchisq_exact_alloc();
            char msg[256];
            cr_assert(ga_gchisq_exact_set_classical(ex, 2, (const char *const *)ws, dof, (const char *const *)ns, NULL,
                                                    NULL, msg, sizeof msg) == GA_OK, "%s", msg);
            ga_cert_opts o;
            ga_cert_opts_init(&o);
            o.digits = 20;
            ga_gchisq_cert cc;
            int st = ga_gchisq_prob_cert(&cc, ex, xs, &o);
            cr_assert(st == GA_OK || st == GA_EPREC, "W%d: status %d", i, st);
            cdf[i] = cc.cdf;
            ga_gchisq_exact_free(ex);
            free(ws[0]), free(ws[1]), free(ns[0]), free(ns[1]), free(xs);
        }
        double ee = exp(atof(cases[k].eps)) * (1 + 1e-15), el = exp(atof(cases[k].eps)) * (1 - 1e-15);
        double yx_lo = cdf[0].lo - ee * cdf[1].hi, yx_hi = cdf[0].hi - el * cdf[1].lo;
        double xy_lo = cdf[2].lo - ee * cdf[3].hi, xy_hi = cdf[2].hi - el * cdf[3].lo;
        /* the Theorem 4 pair from the same exact (q, p) */
        size_t n = (size_t)d;
        char **mx = calloc(n, sizeof *mx), **my = calloc(n, sizeof *my), **sx = calloc(n * n, sizeof *sx),
             **sy = calloc(n * n, sizeof *sy);
        double *dmx = calloc(n, sizeof *dmx), *dmy = calloc(n, sizeof *dmy), *dsx = calloc(n * n, sizeof *dsx),
               *dsy = calloc(n * n, sizeof *dsy);
        arb_mul(v, p, u, prec);
        arb_div(v, v, a, prec);
        arb_sqrt(v, v, prec);
        for (size_t i = 0; i < n; i++) {
            mx[i] = i ? strdup("0") : arb_text(v);
            my[i] = strdup("0");
            dmx[i] = i ? 0 : arf_get_d(arb_midref(v), ARF_RND_NEAR);
            for (size_t j = 0; j < n; j++) {
                arb_zero(t);
                if (i == j) {
                    if (i == 0)
                        arb_div(t, a, r, prec);
                    else
                        arb_inv(t, r, prec);
                }
                sx[i * n + j] = arb_text(t);
                dsx[i * n + j] = arf_get_d(arb_midref(t), ARF_RND_NEAR);
                arb_zero(t);
                if (i == j) {
                    arb_div(t, b, a, prec);
                    arb_div(t, t, r, prec);
                }
                sy[i * n + j] = arb_text(t);
                dsy[i * n + j] = arf_get_d(arb_midref(t), ARF_RND_NEAR);
            }
        }
        ga_pair_input in = {n, dmx, dmy, dsx, dsy, 1, {NULL, NULL, NULL, NULL}};
        ga_pair_text txt = {(const char *const *)mx, (const char *const *)my, (const char *const *)sx,
                            (const char *const *)sy};
        ga_pair *pr;
        char msg[256];
        cr_assert(ga_pair_reduce(&pr, &in, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta_cert dc;
        int st = ga_pair_delta_cert(&dc, pr, &in, &txt, cases[k].eps, NULL);
        cr_assert(st == GA_OK || st == GA_EPREC, "pair: status %d", st);
        cr_expect(dc.yx.lo <= yx_hi && yx_lo <= dc.yx.hi && dc.xy.lo <= xy_hi && xy_lo <= dc.xy.hi,
                  "q %s p %s: Table VI yx [%.17g, %.17g] xy [%.17g, %.17g] vs pair yx [%.17g, %.17g] xy [%.17g, %.17g]",
                  cases[k].q, cases[k].p, yx_lo, yx_hi, xy_lo, xy_hi, dc.yx.lo, dc.yx.hi, dc.xy.lo, dc.xy.hi);
        cr_expect(yx_hi - yx_lo < 1e-12 && dc.yx.hi - dc.yx.lo < 1e-12, "intervals too wide to compare");
        ga_pair_free(pr);
        for (size_t i = 0; i < n; i++) {
            free(mx[i]), free(my[i]);
            for (size_t j = 0; j < n; j++)
                free(sx[i * n + j]), free(sy[i * n + j]);
        }
        free(mx), free(my), free(sx), free(sy), free(dmx), free(dmy), free(dsx), free(dsy);
        for (int i = 0; i < 4; i++) {
            arb_clear(w[i][0]), arb_clear(w[i][1]), arb_clear(nc[i]), arb_clear(x[i]);
        }
        arb_clear(a2), arb_clear(a), arb_clear(b), arb_clear(c);
        arb_clear(q), arb_clear(p), arb_clear(r), arb_clear(e), arb_clear(t), arb_clear(u), arb_clear(v),
            arb_clear(den), arb_clear(one);
    }
}

/* The law the catalogue builds for a real dataset and its remove-one neighbour has the delta
 * of the Theorem 4 pair at that row's leverages, computed here independently with GSL: p the
 * leverage of u in B^T B + sigma^2 I (with the row), q the leverage of [u, y] in
 * [B, y]^T [B, y] + sigma^2 I_{d+1}. This checks the law (augmentation sigma I_{d+1}) and the
 * reduction of Theorem 4 at once. */
Test(mechanisms, als_dataset_pairs_have_the_theorem4_delta)
{
    mech_t s;
    double sigma = 5.333605870, r = 50, eps = 1;
    load_at(&s, "specs/papers/mls_rule_r50_eps1.yaml", eps);
    size_t d = s.spec.data.d - 1, n = s.spec.data.n;
    double G[49] = {0}; /* [B, y]^T [B, y] + sigma^2 I (d + 1 <= 7) */
    cr_assert(d + 1 <= 7);
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a <= d; a++)
            for (size_t b = 0; b <= d; b++)
                G[a * (d + 1) + b] += s.spec.data.x[i * (d + 1) + a] * s.spec.data.x[i * (d + 1) + b];
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t i = 0; i < n; i++) {
        const double *row = s.spec.data.x + i * (d + 1);
        double z[7], Bp[36];
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++)
                Bp[a * d + b] = G[a * (d + 1) + b];
        gsl_spd_solve(z, Bp, sigma * sigma, row, d);
        double p = 0, q = 0;
        for (size_t a = 0; a < d; a++)
            p += row[a] * z[a];
        gsl_spd_solve(z, G, sigma * sigma, row, d + 1);
        for (size_t a = 0; a <= d; a++)
            q += row[a] * z[a];
        ga_pair *pr = reduce(&s.set.pairs[i]), *pc;
        char msg[256];
        cr_assert(ga_mech_als_pair(&pc, q, p, r, d, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta A, B;
        ga_pair_delta(&A, pr, eps, GA_DELTA_AUTO, NULL, w);
        ga_pair_delta(&B, pc, eps, GA_DELTA_AUTO, NULL, w);
        cr_expect(fabs(A.xy.val - B.xy.val) <= 1e-9 * B.xy.val + A.xy.err + B.xy.err + 1e-300 &&
                      fabs(A.yx.val - B.yx.val) <= 1e-9 * B.yx.val + A.yx.err + B.yx.err + 1e-300,
                  "%s (q %.6g, p %.6g): dataset pair %.17g/%.17g vs Theorem 4 pair %.17g/%.17g", s.set.pairs[i].name,
                  q, p, A.xy.val, A.yx.val, B.xy.val, B.yx.val);
        ga_pair_free(pr);
        ga_pair_free(pc);
    }
    /* the universe pair: the row of norm 1 removed from an empty dataset, q = 1/(sigma^2 + 1) */
    const ga_spec_pair *u = &s.set.pairs[s.set.npairs - 1];
    cr_assert(strstr(u->name, "universe worst case") != NULL, "%s", u->name);
    double pu = strtod(strstr(u->name, "p = ") + 4, NULL), Q = 1 / (sigma * sigma + 1);
    ga_pair *pr = reduce(u), *pc;
    char msg[256];
    cr_assert(ga_mech_als_pair(&pc, Q, pu, r, d, msg, sizeof msg) == GA_OK, "%s", msg);
    ga_delta A, B;
    ga_pair_delta(&A, pr, eps, GA_DELTA_AUTO, NULL, w);
    ga_pair_delta(&B, pc, eps, GA_DELTA_AUTO, NULL, w);
    cr_expect(fabs(fmax(A.xy.val, A.yx.val) - fmax(B.xy.val, B.yx.val)) <= 1e-5 * fmax(B.xy.val, B.yx.val),
              "universe pair %.17g vs Theorem 4 at (Q, p) %.17g", fmax(A.xy.val, A.yx.val), fmax(B.xy.val, B.yx.val));
    /* and it is the maximum over p of delta_ALS(Q, p): no grid point beats it */
    for (int g = 0; g <= 64; g++) {
        double pg = Q * g / 64;
        ga_pair *pp;
        cr_assert(ga_mech_als_pair(&pp, Q, pg, r, d, msg, sizeof msg) == GA_OK);
        ga_delta C;
        ga_pair_delta(&C, pp, eps, GA_DELTA_AUTO, NULL, w);
        cr_expect(fmax(C.xy.val, C.yx.val) <= fmax(A.xy.val, A.yx.val) * (1 + 1e-6),
                  "p = %.6g gives %.17g > the universe pair's %.17g", pg, fmax(C.xy.val, C.yx.val),
                  fmax(A.xy.val, A.yx.val));
        ga_pair_free(pp);
    }
    ga_pair_free(pr);
    ga_pair_free(pc);
    ga_gchisq_work_free(w);
    mech_clear(&s);
}

/* The monotonicity Theorem 5's proof and the universe worst case rely on: delta_ALS(p + s, p)
 * grows with the residual share s at fixed leverage p and with p at fixed s. Random steps; a
 * failure would be a counterexample. (The theorem's stated hypothesis, growth in p at fixed q,
 * is false: the next test.) */
Test(mechanisms, als_delta_is_monotone_in_leverage_and_residual)
{
    gsl_rng *rng = ga_test_rng(53);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    long n = ga_test_count(60);
    for (long k = 0; k < n; k++) {
        double p = 0.3 * gsl_rng_uniform(rng), sh = 0.3 * gsl_rng_uniform(rng), h = 0.01 * gsl_rng_uniform(rng);
        double r = 20 + floor(400 * gsl_rng_uniform(rng)), eps = 0.05 + 2 * gsl_rng_uniform(rng);
        size_t d = 1 + (size_t)(8 * gsl_rng_uniform(rng));
        double v[3], e[3], args[3][2] = {{p + sh, p}, {p + sh + h, p}, {p + h + sh, p + h}};
        for (int j = 0; j < 3; j++) {
            ga_pair *pr;
            char msg[256];
            cr_assert(ga_mech_als_pair(&pr, args[j][0], args[j][1], r, d, msg, sizeof msg) == GA_OK, "%s", msg);
            ga_delta D;
            ga_pair_delta(&D, pr, eps, GA_DELTA_AUTO, NULL, w);
            ga_pair_free(pr);
            v[j] = fmax(D.xy.val, D.yx.val);
            e[j] = fmax(D.xy.err, D.yx.err);
        }
        cr_expect(v[1] >= v[0] - e[0] - e[1] - 1e-300, "residual: p %.6g s %.6g +%.3g r %g d %zu eps %.4g: %.17g < %.17g",
                  p, sh, h, r, d, eps, v[1], v[0]);
        cr_expect(v[2] >= v[0] - e[0] - e[2] - 1e-300, "leverage: p %.6g +%.3g s %.6g r %g d %zu eps %.4g: %.17g < %.17g",
                  p, h, sh, r, d, eps, v[2], v[0]);
    }
    gsl_rng_free(rng);
    ga_gchisq_work_free(w);
}

/* Theorem 5 of the NDIS paper assumes delta_ALS(q, p) increasing in p at fixed q; at q =
 * 0.062 (r = 50, d = 5, eps = 1, the larger direction) it rises from p = 0.0062 to 0.0124,
 * falls to p = 0.031 (by ten times) and rises again to p = 0.0434: the estimates of the
 * Theorem 4 pair with their error estimates (relative 1e-10 or less), far apart. */
Test(mechanisms, als_delta_is_not_monotone_in_leverage_at_fixed_q)
{
    const double q = 0.062, ps[4] = {0.0062, 0.0124, 0.031, 0.0434};
    double lo[4], hi[4];
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (int k = 0; k < 4; k++) {
        ga_delta D;
        int rc = ga_mech_als_delta(&D, q, ps[k], 50, 5, 1, w);
        cr_assert(rc == GA_OK, "p %g: status %d", ps[k], rc);
        const ga_result *b = D.xy.val >= D.yx.val ? &D.xy : &D.yx;
        cr_assert(b->err <= 1e-8 * b->val, "p %g: %.17g +- %.3g", ps[k], b->val, b->err);
        lo[k] = b->val - b->err;
        hi[k] = b->val + b->err;
    }
    ga_gchisq_work_free(w);
    cr_expect(hi[0] < lo[1] && lo[1] > 5 * hi[2] && hi[2] < lo[3],
              "delta_ALS(0.062, p) at p = 0.0062, 0.0124, 0.031, 0.0434: [%.6g, %.6g], [%.6g, %.6g], "
              "[%.6g, %.6g], [%.6g, %.6g]", lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3], hi[3]);
}

Test(mechanisms, universe_is_checked)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"gaussaudit: 1\nmechanism: {kind: output_perturbation, lambda: 1, sigma: 1}\n"
         "dataset: {rows: [[0.1, 0.2], [0.3, 0.1]]}\nneighbours: remove_one\nuniverse: {row_norm_bound: 1}\n",
         "does not use a universe"},
        {"gaussaudit: 1\nmechanism: {kind: linear_regression, columns: 10, sigma: 2}\n"
         "dataset: {rows: [[0.1, 0.2], [3, 0.1]]}\nneighbours: remove_one\nuniverse: {row_norm_bound: 1}\n",
         "dataset row 2 has norm"},
        {"gaussaudit: 1\nmechanism: {kind: linear_regression, columns: 10}\n"
         "dataset: {rows: [[0.1, 0.2], [0.3, 0.1]]}\nneighbours: remove_one\nuniverse: {row_norm_bound: 1}\n",
         "sigma > 0"},
        {"gaussaudit: 1\nmechanism: {kind: linear_regression, columns: 10, sigma: 1}\n"
         "dataset: {rows: [[0.1, 0.2], [0.3, 0.1]]}\nneighbours: zero_out\nuniverse: {row_norm_bound: 1}\n",
         "remove_one and add_one"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mech_t s;
        char msg[1024];
        int st = ga_mech_parse(&s.spec, &s.set, bad[i].text, strlen(bad[i].text), "u.yaml", NULL, NULL, msg, sizeof msg);
        cr_expect(st == GA_EINVAL && strstr(msg, bad[i].want) && strstr(msg, "universe"), "case %zu: %d %s", i, st, msg);
        mech_clear(&s);
    }
}

/* The rows' norms are checked a block of 16,384 rows per item on the threads: datasets of
 * 40,000 to 60,000 rows with two rows over the bound in different blocks (the later block's
 * first), on one to four threads, name the first of them and its norm, which is the norm of
 * that row's values. */
Test(mechanisms, universe_names_the_first_row_over_the_bound)
{
    gsl_rng *r = ga_test_rng(16384);
    long n = ga_test_count(4);
    for (long k = 0; k < n; k++) {
        size_t rows = 40000 + gsl_rng_uniform_int(r, 20000);
        size_t first = 16384 + gsl_rng_uniform_int(r, 16384);
        size_t later = 32768 + gsl_rng_uniform_int(r, 7000);
        size_t cap = rows * 64 + 400, len = 0;
        char *text = malloc(cap);
        cr_assert(text);
        len += (size_t)snprintf(text + len, cap - len, "gaussaudit: 1\nmechanism: {kind: "
                                "linear_regression, columns: 10, sigma: 2}\nneighbours: remove_one\n"
                                "universe: {row_norm_bound: 1}\ndataset: {rows: [");
        double a = 0, b = 0;
        for (size_t i = 0; i < rows; i++) {
            double x = gsl_rng_uniform(r) * 0.6, y = gsl_rng_uniform(r) * 0.6;
            if (i == first || i == later)
                x += 1.0; /* (norm > 1) */
            if (i == first)
                a = x, b = y;
            len += (size_t)snprintf(text + len, cap - len, "%s[%.17g, %.17g]", i ? ", " : "", x, y);
        }
        len += (size_t)snprintf(text + len, cap - len, "]}\n");
        char want[200];
        snprintf(want, sizeof want, "dataset row %zu has norm %.17g >", first + 1,
                 sqrt(a * a + b * b));
        for (int jobs = 1; jobs <= 4; jobs++) {
            mech_t s;
            char msg[1024];
            ga_build_opts bo = {.jobs = jobs};
            int st = ga_mech_parse(&s.spec, &s.set, text, len, "u.yaml", NULL, &bo, msg, sizeof msg);
            cr_expect(st == GA_EINVAL && strstr(msg, want), "table %ld (%zu rows, over at %zu and "
                      "%zu), %d threads: %d '%s', want '%s'", k, rows, first + 1, later + 1, jobs, st,
                      msg, want);
            mech_clear(&s);
        }
        free(text);
    }
    gsl_rng_free(r);
}

/* ------------------------------------------------------------ composition, repeat, release */

#define TOL_COMPOSE 1e-12 /* relative, against the analytic Gaussian */

static void parse_text(mech_t *s, const char *yaml, const char *name)
{
    char msg[1024];
    int st = ga_mech_parse(&s->spec, &s->set, yaml, strlen(yaml), name, NULL, NULL, msg, sizeof msg);
    cr_assert(st == GA_OK, "%s: %s", name, msg);
}

/* delta of the analytic Gaussian mechanism, sensitivity 1, noise sigma */
static double analytic_gm(double sigma, double eps)
{
    double a = 1 / (2 * sigma), b = eps * sigma;
    return 0.5 * erfc(-(a - b) / M_SQRT2) - exp(eps) * 0.5 * erfc((a + b) / M_SQRT2);
}

/* both directions of the worst pair (the last, the proven worst case) at eps */
static void worst_delta(ga_delta *D, const mech_t *s, double eps)
{
    cr_assert(s->set.verified && s->set.npairs >= 1);
    ga_pair *p;
    char msg[512];
    cr_assert(ga_mech_pair_reduce(&p, &s->set.pairs[s->set.verified_pair], msg, sizeof msg) == GA_OK, "%s", msg);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_pair_delta(D, p, eps, GA_DELTA_AUTO, NULL, w);
    ga_gchisq_work_free(w);
    ga_pair_free(p);
}

Test(mechanisms, composition_of_gaussian_mechanisms_is_analytic)
{
    static const char *comp =
        "gaussaudit: 1\nname: c\nmechanism:\n  kind: composition\n  parts:\n"
        "    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 2}\n"
        "    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 3}\n";
    static const char *rep =
        "gaussaudit: 1\nname: r\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 2, repeat: 4}\n";
    mech_t a, b;
    parse_text(&a, comp, "c.yaml");
    parse_text(&b, rep, "r.yaml");
    cr_expect(a.set.npairs == 1 && a.set.pairs[0].nblocks == 2, "%zu pairs", a.set.npairs);
    cr_expect(strstr(a.set.verified_note, "part 1 (gaussian_mechanism) dominates") != NULL, "%s",
              a.set.verified_note);
    double se = 1 / sqrt(0.25 + 1.0 / 9);
    static const double eps[] = {0, 0.3, 1, 2};
    for (size_t i = 0; i < sizeof eps / sizeof eps[0]; i++) {
        ga_delta D, R;
        worst_delta(&D, &a, eps[i]);
        worst_delta(&R, &b, eps[i]);
        double ra = analytic_gm(se, eps[i]), rb = analytic_gm(1, eps[i]);
        cr_expect(fabs(D.xy.val - ra) <= TOL_COMPOSE * ra && fabs(D.yx.val - ra) <= TOL_COMPOSE * ra,
                  "composition eps %g: %.17g %.17g vs %.17g", eps[i], D.xy.val, D.yx.val, ra);
        cr_expect(fabs(R.xy.val - rb) <= TOL_COMPOSE * rb && fabs(R.yx.val - rb) <= TOL_COMPOSE * rb,
                  "repeat eps %g: %.17g %.17g vs %.17g", eps[i], R.xy.val, R.yx.val, rb);
    }
    mech_clear(&a);
    mech_clear(&b);
}

/* mu2 += T (sens/sigma)^2 from decimals */
static void add_mu2(arb_t mu2, const char *sens, const char *sigma, double T)
{
    arb_t a, b;
    arb_init(a);
    arb_init(b);
    arb_set_str(a, sens, 400);
    arb_set_str(b, sigma, 400);
    arb_div(a, a, b, 400);
    arb_sqr(a, a, 400);
    arb_mul_ui(a, a, (ulong)T, 400);
    arb_add(mu2, mu2, a, 400);
    arb_clear(a);
    arb_clear(b);
}

/* Certified intervals of the Gaussian mechanism by sensitivity are for the spec's decimals,
 * not for the double of sigma squared in double (sigma 0.9 at eps 12 was certified at
 * variance fl(0.81), 4e-14 away): seeded decimals of sigma and the sensitivity, alone, in a
 * composition of Gaussian parts (a product pair) and beside a q = 1 subsampled part (the
 * composed privacy loss), against the mu-GDP closed form in Arb at the exact decimals. */
Test(mechanisms, gaussian_mechanism_certificates_are_for_the_decimals)
{
    gsl_rng *rng = ga_test_rng(4242);
    long n = ga_test_count(6);
    static const char *eps[3] = {"0.5", "3", "12"};
    for (long k = 0; k < n; k++) {
        char s1[32], s2[32], d1[32], d2[32], yaml[3][600];
        snprintf(s1, sizeof s1, "%.*f", 1 + (int)(k % 3), 0.3 + 2.7 * gsl_rng_uniform(rng));
        snprintf(s2, sizeof s2, "%.2f", 0.5 + 2 * gsl_rng_uniform(rng));
        snprintf(d1, sizeof d1, "%.1f", 0.3 + 2 * gsl_rng_uniform(rng));
        snprintf(d2, sizeof d2, "%.3f", 0.2 + gsl_rng_uniform(rng));
        double T = (double)(2 + gsl_rng_uniform_int(rng, 30));
        snprintf(yaml[0], sizeof yaml[0], "gaussaudit: 1\nname: g\nmechanism: {kind: "
                 "gaussian_mechanism, sensitivity: %s, sigma: %s}\n", d1, s1);
        snprintf(yaml[1], sizeof yaml[1], "gaussaudit: 1\nname: c\nmechanism:\n  kind: "
                 "composition\n  parts:\n    - {kind: gaussian_mechanism, sensitivity: %s, sigma: "
                 "%s}\n    - {kind: gaussian_mechanism, sensitivity: %s, sigma: %s}\n", d1, s1,
                 d2, s2);
        snprintf(yaml[2], sizeof yaml[2], "gaussaudit: 1\nname: s\nmechanism:\n  kind: "
                 "composition\n  parts:\n    - {kind: subsampled_gaussian, rate: 1, sigma: %s, "
                 "steps: %.0f}\n    - {kind: gaussian_mechanism, sensitivity: %s, sigma: %s}\n",
                 s2, T, d1, s1);
        for (int kind = 0; kind < 3; kind++) {
            mech_t sp;
            parse_text(&sp, yaml[kind], "decimals.yaml");
            arb_t mu2, ref;
            arb_init(mu2);
            arb_init(ref);
            add_mu2(mu2, d1, s1, 1);
            if (kind == 1)
                add_mu2(mu2, d2, s2, 1);
            if (kind == 2)
                add_mu2(mu2, "1", s2, T);
            const ga_spec_pair *sp0 = &sp.set.pairs[0];
            ga_pair *p;
            char msg[512];
            cr_assert(ga_mech_pair_reduce(&p, sp0, msg, sizeof msg) == GA_OK, "%s", msg);
            ga_spec_pair_view v;
            cr_assert(ga_spec_pair_view_init(&v, sp0, 1) == GA_OK);
            ga_cert_opts o;
            ga_cert_opts_init(&o);
            o.digits = 20;
            for (int e = 0; e < 3; e++) {
                ga_delta_cert C;
                int st = ga_pair_delta_cert(&C, p, v.in, v.txt, eps[e], &o);
                ga_test_gdp_arb(ref, mu2, eps[e]);
                cr_expect((st == GA_OK || st == GA_EPREC) && ga_test_decimals_contain(C.xy_lo, C.xy_hi, ref) &&
                              ga_test_decimals_contain(C.yx_lo, C.yx_hi, ref),
                          "case %ld kind %d (sens %s sigma %s; %s %s; T %g) eps %s: status %d, "
                          "xy [%s, %s], yx [%s, %s], closed form %.20g", k, kind, d1, s1, d2, s2, T,
                          eps[e], st, C.xy_lo, C.xy_hi, C.yx_lo, C.yx_hi,
                          arf_get_d(arb_midref(ref), ARF_RND_NEAR));
            }
            ga_spec_pair_view_clear(&v);
            ga_pair_free(p);
            arb_clear(mu2);
            arb_clear(ref);
            mech_clear(&sp);
        }
    }
    gsl_rng_free(rng);
}

/* a sketch (r = 3) plus a repeated Gaussian mechanism on a small dataset equals, pair by
 * pair, the block-diagonal gaussian_pair written out in the output coordinates: the sketch
 * block N(0, S) vs N(0, S - v v^T) three times (S = D^T D + sigma^2 I), the mechanism block
 * N(1, 4) vs N(0, 4) twice; double within the error estimates, certified intervals overlapping */
Test(mechanisms, composition_equals_block_diagonal_by_hand)
{
    static const double X[4][2] = {{1, 0.5}, {0.2, -1}, {0.3, 0.3}, {-1, 2}};
    static const char *comp =
        "gaussaudit: 1\nname: c\nmechanism:\n  kind: composition\n  parts:\n"
        "    - {kind: sketch, columns: 3, noise_sigma: 1}\n"
        "    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 2, repeat: 2}\n"
        "dataset: {rows: [[1, 0.5], [0.2, -1], [0.3, 0.3], [-1, 2]]}\nneighbours: remove_one\n";
    mech_t a;
    parse_text(&a, comp, "c.yaml");
    cr_assert(a.set.npairs == 4 && !a.set.verified, "%zu pairs", a.set.npairs);
    double S[4] = {1, 0, 0, 1}; /* D^T D + I */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++)
                S[j * 2 + k] += X[i][j] * X[i][k];
    /* the hand-written spec: one explicit 8-D pair per removed row */
    char *yaml = malloc(1 << 16);
    size_t at = (size_t)snprintf(yaml, 1 << 16, "gaussaudit: 1\nname: h\nmechanism: {kind: gaussian_pair}\npairs:\n");
    for (int row = 0; row < 4; row++) {
        double M[2][64] = {{0}}, C[2][64] = {{0}}, mu[2][8] = {{0}};
        for (int w = 0; w < 2; w++) {
            for (int c = 0; c < 3; c++)
                for (int j = 0; j < 2; j++)
                    for (int k = 0; k < 2; k++)
                        C[w][(2 * c + j) * 8 + 2 * c + k] = S[j * 2 + k] - (w ? X[row][j] * X[row][k] : 0);
            for (int c = 6; c < 8; c++)
                C[w][c * 8 + c] = 4;
        }
        mu[0][6] = mu[0][7] = 1;
        (void)M;
        at += (size_t)snprintf(yaml + at, (1 << 16) - at, "  - name: row %d\n", row + 1);
        for (int w = 0; w < 2; w++) {
            at += (size_t)snprintf(yaml + at, (1 << 16) - at, "    %s: {mean: [", w ? "y" : "x");
            for (int i = 0; i < 8; i++)
                at += (size_t)snprintf(yaml + at, (1 << 16) - at, "%s%.17g", i ? ", " : "", mu[w][i]);
            at += (size_t)snprintf(yaml + at, (1 << 16) - at, "], cov: [");
            for (int i = 0; i < 8; i++) {
                at += (size_t)snprintf(yaml + at, (1 << 16) - at, "%s[", i ? ", " : "");
                for (int j = 0; j < 8; j++)
                    at += (size_t)snprintf(yaml + at, (1 << 16) - at, "%s%.17g", j ? ", " : "", C[w][i * 8 + j]);
                at += (size_t)snprintf(yaml + at, (1 << 16) - at, "]");
            }
            at += (size_t)snprintf(yaml + at, (1 << 16) - at, "]}\n");
        }
    }
    mech_t h;
    parse_text(&h, yaml, "h.yaml");
    free(yaml);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t i = 0; i < 4; i++) {
        ga_pair *p, *q;
        char msg[512];
        cr_assert(ga_mech_pair_reduce(&p, &a.set.pairs[i], msg, sizeof msg) == GA_OK, "%s", msg);
        cr_assert(ga_mech_pair_reduce(&q, &h.set.pairs[i], msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta A, B;
        ga_pair_delta(&A, p, 1, GA_DELTA_AUTO, NULL, w);
        ga_pair_delta(&B, q, 1, GA_DELTA_AUTO, NULL, w);
        cr_expect(fabs(A.xy.val - B.xy.val) <= A.xy.err + B.xy.err &&
                      fabs(A.yx.val - B.yx.val) <= A.yx.err + B.yx.err,
                  "row %zu: composition %.17g %.17g, by hand %.17g %.17g (err %g %g)", i + 1,
                  A.xy.val, A.yx.val, B.xy.val, B.yx.val, A.xy.err, B.xy.err);
        ga_spec_pair_view va, vh;
        cr_assert(ga_spec_pair_view_init(&va, &a.set.pairs[i], 1) == GA_OK && ga_spec_pair_view_init(&vh, &h.set.pairs[i], 1) == GA_OK);
        ga_delta_cert C, E;
        int s1 = ga_pair_delta_cert(&C, p, va.in, va.txt, "1", NULL);
        int s2 = ga_pair_delta_cert(&E, q, vh.in, vh.txt, "1", NULL);
        cr_expect(s1 == GA_OK && (s2 == GA_OK || s2 == GA_EPREC), "row %zu: status %d %d", i + 1, s1, s2);
        /* the two are certificates for slightly different exact pairs: the composition's
         * sketch block is exact in the doubles of its leverages, the hand-written spec in the
         * %.17g decimals of S - v v^T computed in double; they agree to about 1e-16, and the
         * intervals (1e-17 wide where the reference is refined) overlap within that */
        double tol = 1e-15 * fmax(C.xy.hi, C.yx.hi);
        cr_expect(C.xy.lo <= E.xy.hi + tol && E.xy.lo <= C.xy.hi + tol && C.yx.lo <= E.yx.hi + tol &&
                      E.yx.lo <= C.yx.hi + tol,
                  "row %zu: composition [%.17g, %.17g] [%.17g, %.17g], by hand [%.17g, %.17g] [%.17g, %.17g]",
                  i + 1, C.xy.lo, C.xy.hi, C.yx.lo, C.yx.hi, E.xy.lo, E.xy.hi, E.yx.lo, E.yx.hi);
        cr_expect(C.xy.hi - C.xy.lo <= 1e-12 * C.xy.hi, "row %zu: width %g", i + 1, C.xy.hi - C.xy.lo);
        ga_spec_pair_view_clear(&va);
        ga_spec_pair_view_clear(&vh);
        ga_pair_free(p);
        ga_pair_free(q);
    }
    ga_gchisq_work_free(w);
    mech_clear(&a);
    mech_clear(&h);
}

/* release: a 2-D pair released through the 1 x 2 matrix [a, b] is the 1-D pair
 * N(a m1 + b m2, a^2 s11 + 2ab s12 + b^2 s22) vs N(0, ...) (closed form, analytic Gaussian for
 * equal covariances; and a pair with unequal covariances against the explicit 1-D pair) */
/* The 2-D pair the release tests compare with, its estimates and certified intervals at
 * eps = 0.7 (the caller frees u, *pu and vu) */
static const char *release_pair2 =
    "pairs:\n  - {name: a, x: {mean: [1, 0.5], cov: [[2, 0.3], [0.3, 1]]}, "
    "y: {mean: [0, 0], cov: [[1, 0], [0, 1.5]]}}\n";
static void release_reference(mech_t *u, ga_pair **pu, ga_spec_pair_view *vu, ga_delta *Du,
                              ga_delta_cert *Cu, ga_gchisq_work *w)
{
    char yaml[1024], msg[512];
    snprintf(yaml, sizeof yaml, "gaussaudit: 1\nname: u\nmechanism: {kind: gaussian_pair}\n%s",
             release_pair2);
    parse_text(u, yaml, "u.yaml");
    cr_assert(ga_mech_pair_reduce(pu, &u->set.pairs[0], msg, sizeof msg) == GA_OK, "%s", msg);
    ga_pair_delta(Du, *pu, 0.7, GA_DELTA_AUTO, NULL, w);
    cr_assert(ga_spec_pair_view_init(vu, &u->set.pairs[0], 1) == GA_OK);
    cr_assert(ga_pair_delta_cert(Cu, *pu, vu->in, vu->txt, "0.7", NULL) == GA_OK);
}

/* A release by a matrix of full column rank (square invertible, or tall: 3 x 2) leaves
 * delta unchanged whatever its scale (1e-300 to 1e300, where A S A^T under- or overflows) and
 * conditioning (up to 1e6): the released spec's estimates and certified intervals are the
 * unreleased pair's, and the support stays full (a 3 x 2 release once gave rank-2
 * covariances in 3-D with error estimates of 1.5 to 4123 on probabilities). */
Test(mechanisms, injective_releases_leave_delta_unchanged)
{
    const char *pair = release_pair2;
    char yaml[2048], msg[512];
    mech_t u;
    ga_pair *pu;
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_delta Du;
    ga_spec_pair_view vu;
    ga_delta_cert Cu;
    release_reference(&u, &pu, &vu, &Du, &Cu, w);
    gsl_rng *rng = ga_test_rng(77);
    long n = ga_test_count(12);
    for (long k = 0; k < n; k++) {
        double scale = pow(10, -300 + 600 * gsl_rng_uniform(rng));
        double cond = pow(10, 6 * gsl_rng_uniform(rng)), th = 6.28 * gsl_rng_uniform(rng),
               ph = 6.28 * gsl_rng_uniform(rng);
        int tall = (int)(k % 2);
        /* A = scale R(th) diag(1, 1/cond) R(ph) (+ a third row, their sum, when tall) */
        double c1 = cos(th), s1 = sin(th), c2 = cos(ph), s2 = sin(ph), A[3][2];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                double Ri[2] = {i == 0 ? c1 : s1, i == 0 ? -s1 : c1};
                double Rj[2] = {j == 0 ? c2 : -s2, j == 0 ? s2 : c2};
                A[i][j] = scale * (Ri[0] * Rj[0] + Ri[1] * Rj[1] / cond);
            }
        A[2][0] = A[0][0] + A[1][0];
        A[2][1] = A[0][1] + A[1][1];
        char rows[600] = "";
        for (int i = 0; i < 2 + tall; i++) {
            size_t l = strlen(rows);
            snprintf(rows + l, sizeof rows - l, "%s[%.17g, %.17g]", i ? ", " : "", A[i][0], A[i][1]);
        }
        snprintf(yaml, sizeof yaml, "gaussaudit: 1\nname: r\nmechanism: {kind: gaussian_pair, "
                 "release: {matrix: [%s]}}\n%s", rows, pair);
        mech_t r;
        parse_text(&r, yaml, "r.yaml");
        ga_pair *pr;
        cr_assert(ga_mech_pair_reduce(&pr, &r.set.pairs[0], msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta Dr;
        ga_pair_delta(&Dr, pr, 0.7, GA_DELTA_AUTO, NULL, w);
        cr_expect(fabs(Dr.xy.val - Du.xy.val) <= Dr.xy.err + Du.xy.err &&
                      fabs(Dr.yx.val - Du.yx.val) <= Dr.yx.err + Du.yx.err &&
                      Dr.xy.err <= 1e-13 && Dr.yx.err <= 1e-13 && ga_pair_support(pr) == GA_SUPPORT_FULL,
                  "case %ld (scale %g, condition %g, %s): released %.17g +- %g, %.17g +- %g vs "
                  "%.17g, %.17g; support %d", k, scale, cond, tall ? "3 x 2" : "2 x 2",
                  Dr.xy.val, Dr.xy.err, Dr.yx.val, Dr.yx.err, Du.xy.val, Du.yx.val,
                  (int)ga_pair_support(pr));
        ga_spec_pair_view vr;
        cr_assert(ga_spec_pair_view_init(&vr, &r.set.pairs[0], 1) == GA_OK);
        ga_delta_cert Cr;
        int st = ga_pair_delta_cert(&Cr, pr, vr.in, vr.txt, "0.7", NULL);
        cr_expect(st == GA_OK && !strcmp(Cr.xy_lo, Cu.xy_lo) && !strcmp(Cr.xy_hi, Cu.xy_hi) &&
                      !strcmp(Cr.yx_lo, Cu.yx_lo) && !strcmp(Cr.yx_hi, Cu.yx_hi),
                  "case %ld (scale %g, condition %g): certified status %d [%s, %s] vs [%s, %s]", k,
                  scale, cond, st, Cr.xy_lo, Cr.xy_hi, Cu.xy_lo, Cu.xy_hi);
        ga_spec_pair_view_clear(&vr);
        ga_pair_free(pr);
        mech_clear(&r);
    }
    gsl_rng_free(rng);
    ga_spec_pair_view_clear(&vu);
    ga_pair_free(pu);
    ga_gchisq_work_free(w);
    mech_clear(&u);
}

/* A release by a wide matrix (2 x 3, full row rank) whose rows span the first two output
 * coordinates is a bijective function of them: its profile is that of the 2-D marginal pair,
 * whatever the scale (1e-300 to 1e300: A S A^T under- or overflows in double) and however
 * nearly parallel the rows (A = s [[c1, c2, 0], [c1, c2 (1 + h)], 0]], h down to 1e-15: the
 * released covariance has condition up to about 1e31). Estimates agree with the marginal's
 * within their error estimates, which stay small, and the certified interval (from the exact
 * decimals, widened by the rounding of the released laws) overlaps the marginal's. A
 * rank-deficient release (the second row twice the first) cannot be handled so: its pairs
 * are audited before the release, as upper bounds, and never show a violation. */
Test(mechanisms, wide_releases_of_any_scale_and_condition)
{
    static const char *pair3 =
        "pairs:\n  - {name: a, x: {mean: [1, 0.5, -0.3], cov: [[2, 0.3, 0.1], [0.3, 1, 0.2], "
        "[0.1, 0.2, 1.5]]}, y: {mean: [0, 0, 0], cov: [[1, 0, 0.4], [0, 1.5, 0], [0.4, 0, 2]]}}\n";
    mech_t u;
    ga_pair *pu;
    char msg[512], yaml[2048];
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_delta Du;
    ga_spec_pair_view vu;
    ga_delta_cert Cu;
    release_reference(&u, &pu, &vu, &Du, &Cu, w); /* (the 2-D marginal of pair3) */
    gsl_rng *rng = ga_test_rng(78);
    long n = ga_test_count(12);
    for (long k = 0; k < n; k++) {
        /* the corners first, then seeded: scale 10^e, h = 10^-j, digits c1, c2 */
        int e = k == 0 ? -300 : k == 1 ? 300 : (int)gsl_rng_uniform_int(rng, 601) - 300;
        int j = k < 2 ? 15 : 1 + (int)gsl_rng_uniform_int(rng, 15);
        int c1 = 1 + (int)gsl_rng_uniform_int(rng, 9), c2 = 1 + (int)gsl_rng_uniform_int(rng, 9);
        const char *sg = gsl_rng_uniform(rng) < 0.5 ? "-" : "";
        /* c2 (1 + 10^-j) = c2 . (j - 1 zeros) c2, exactly */
        char zeros[16] = "";
        for (int z = 0; z < j - 1; z++)
            zeros[z] = '0';
        snprintf(yaml, sizeof yaml, "gaussaudit: 1\nname: r\nmechanism: {kind: gaussian_pair, "
                 "release: {matrix: [[%s%de%d, %de%d, 0], [%s%de%d, %d.%s%de%d, 0]]}}\n%s",
                 sg, c1, e, c2, e, sg, c1, e, c2, zeros, c2, e, pair3);
        mech_t r;
        parse_text(&r, yaml, "r.yaml");
        cr_assert(r.set.pairs[0].d == 2 && !r.set.pairs[0].unreleased, "case %ld: %s", k, yaml);
        ga_pair *pr;
        cr_assert(ga_mech_pair_reduce(&pr, &r.set.pairs[0], msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta Dr;
        ga_pair_delta(&Dr, pr, 0.7, GA_DELTA_AUTO, NULL, w);
        cr_expect(fabs(Dr.xy.val - Du.xy.val) <= Dr.xy.err + Du.xy.err &&
                      fabs(Dr.yx.val - Du.yx.val) <= Dr.yx.err + Du.yx.err &&
                      Dr.xy.err <= 1e-12 && Dr.yx.err <= 1e-12,
                  "case %ld (scale 1e%d, h 1e-%d, c %d %d): released %.17g +- %g, %.17g +- %g "
                  "vs %.17g, %.17g", k, e, j, c1, c2, Dr.xy.val, Dr.xy.err, Dr.yx.val,
                  Dr.yx.err, Du.xy.val, Du.yx.val);
        ga_spec_pair_view vr;
        cr_assert(ga_spec_pair_view_init(&vr, &r.set.pairs[0], 1) == GA_OK);
        ga_delta_cert Cr;
        int st = ga_pair_delta_cert(&Cr, pr, vr.in, vr.txt, "0.7", NULL);
        cr_expect(st == GA_OK && Cr.xy.lo <= Cu.xy.hi && Cu.xy.lo <= Cr.xy.hi &&
                      Cr.yx.lo <= Cu.yx.hi && Cu.yx.lo <= Cr.yx.hi &&
                      Cr.xy.hi - Cr.xy.lo <= 1e-12 && Cr.yx.hi - Cr.yx.lo <= 1e-12,
                  "case %ld (scale 1e%d, h 1e-%d): certified status %d [%s, %s] [%s, %s] vs "
                  "[%s, %s] [%s, %s]", k, e, j, st, Cr.xy_lo, Cr.xy_hi, Cr.yx_lo, Cr.yx_hi,
                  Cu.xy_lo, Cu.xy_hi, Cu.yx_lo, Cu.yx_hi);
        /* no Renyi certificate for laws known within a distance: refused, not wrong */
        ga_interval rx, ry;
        cr_expect(ga_pair_renyi_cert(&rx, &ry, pr, vr.in, vr.txt, "2", NULL) == GA_EDOM);
        ga_spec_pair_view_clear(&vr);
        ga_pair_free(pr);
        mech_clear(&r);
        /* the rank-deficient release at the same scale: audited before it, never a violation */
        snprintf(yaml, sizeof yaml, "gaussaudit: 1\nname: r\nmechanism: {kind: gaussian_pair, "
                 "release: {matrix: [[%de%d, %de%d, 0], [%de%d, %de%d, 0]]}}\n"
                 "claim: {epsilon: 0.7, delta: %s}\n%s",
                 c1, e, c2, e, 2 * c1, e, 2 * c2, e, k % 2 ? "1e-6" : "0.9999", pair3);
        parse_text(&r, yaml, "r.yaml");
        cr_expect(r.set.pairs[0].d == 3 && r.set.pairs[0].unreleased && r.set.release_note[0],
                  "case %ld: %s", k, yaml);
        mech_clear(&r);
        ga_audit_result *res = NULL;
        cr_assert(ga_audit_spec_text(&res, yaml, strlen(yaml), "r.yaml", NULL, msg, sizeof msg) == GA_OK, "%s", msg);
        int want = k % 2 ? GA_VERDICT_INCONCLUSIVE : GA_VERDICT_NO_VIOLATION;
        cr_expect(ga_audit_result_verdict(res) == want, "case %ld: verdict %d, want %d: %s", k,
                  ga_audit_result_verdict(res), want, yaml);
        ga_audit_result_free(res);
    }
    gsl_rng_free(rng);
    ga_spec_pair_view_clear(&vu);
    ga_pair_free(pu);
    ga_gchisq_work_free(w);
    mech_clear(&u);
}

Test(mechanisms, release_matrix_is_the_projected_pair)
{
    static const char *rel =
        "gaussaudit: 1\nname: r\nmechanism: {kind: gaussian_pair, release: {matrix: [[0.6, -0.8]]}}\n"
        "pairs:\n  - {name: a, x: {mean: [1, 2], cov: [[2, 0.5], [0.5, 1]]}, y: {mean: [0, 0], cov: [[2, 0.5], [0.5, 1]]}}\n"
        "  - {name: b, x: {mean: [1, 0], cov: [[1, 0], [0, 3]]}, y: {mean: [0, 1], cov: [[2, 0], [0, 1]]}}\n";
    static const char *one =
        "gaussaudit: 1\nname: o\nmechanism: {kind: gaussian_pair}\n"
        "pairs:\n  - {name: b, x: {mean: [0.6], cov: [[2.28]]}, y: {mean: [-0.8], cov: [[1.36]]}}\n";
    mech_t a, o;
    parse_text(&a, rel, "rel.yaml");
    parse_text(&o, one, "one.yaml");
    cr_assert(a.set.npairs == 2 && a.set.pairs[0].d == 1 && a.set.pairs[1].d == 1);
    /* pair a: mean 0.6 - 1.6 = -1, variance 0.72 - 0.48 + 0.64 = 0.88 */
    ga_pair *p, *q;
    char msg[512];
    cr_assert(ga_mech_pair_reduce(&p, &a.set.pairs[0], msg, sizeof msg) == GA_OK, "%s", msg);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_delta D;
    ga_pair_delta(&D, p, 0.5, GA_DELTA_AUTO, NULL, w);
    double ref = analytic_gm(sqrt(0.88), 0.5);
    cr_expect(fabs(D.xy.val - ref) <= 1e-13 * ref && fabs(D.yx.val - ref) <= 1e-13 * ref,
              "%.17g %.17g vs %.17g", D.xy.val, D.yx.val, ref);
    ga_pair_free(p);
    cr_assert(ga_mech_pair_reduce(&p, &a.set.pairs[1], msg, sizeof msg) == GA_OK, "%s", msg);
    cr_assert(ga_mech_pair_reduce(&q, &o.set.pairs[0], msg, sizeof msg) == GA_OK, "%s", msg);
    ga_delta E;
    ga_pair_delta(&D, p, 0.5, GA_DELTA_AUTO, NULL, w);
    ga_pair_delta(&E, q, 0.5, GA_DELTA_AUTO, NULL, w);
    cr_expect(fabs(D.xy.val - E.xy.val) <= D.xy.err + E.xy.err + 1e-15 &&
              fabs(D.yx.val - E.yx.val) <= D.yx.err + E.yx.err + 1e-15,
              "%.17g %.17g vs %.17g %.17g", D.xy.val, D.yx.val, E.xy.val, E.yx.val);
    ga_pair_free(p);
    ga_pair_free(q);
    ga_gchisq_work_free(w);
    mech_clear(&a);
    mech_clear(&o);
    /* errors: a kind whose pairs are whitened; a matrix of the wrong width */
    static const char *bad1 =
        "gaussaudit: 1\nname: b\nmechanism: {kind: matrix_masking, sigma: 1, release: {matrix: [[1, 0]]}}\n"
        "dataset: {rows: [[1, 0], [0, 1]]}\nneighbours: zero_out\n";
    static const char *bad2 =
        "gaussaudit: 1\nname: b\nmechanism: {kind: gaussian_pair, release: {matrix: [[1, 0, 1]]}}\n"
        "pairs:\n  - {name: a, x: {mean: [1, 2], cov: [[1, 0], [0, 1]]}, y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}}\n";
    static const char *bad3 =
        "gaussaudit: 1\nname: b\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 1, repeat: 1.5}\n";
    const struct { const char *yaml, *want; } bad[] = {
        {bad1, "whitened basis"}, {bad2, "3 columns; the output has dimension 2"},
        {bad3, "repeat: must be a whole number"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mech_t s;
        int st = ga_mech_parse(&s.spec, &s.set, bad[i].yaml, strlen(bad[i].yaml), "b.yaml", NULL, NULL, msg, sizeof msg);
        cr_expect(st == GA_EINVAL && strstr(msg, bad[i].want), "case %zu: %d %s", i, st, msg);
        if (st == GA_OK)
            mech_clear(&s);
    }
}

/* label DP: output perturbation's mean moves by C (X^T X + lambda I)^{-1} x_i when row i's
 * label moves by C (GSL solve, independent of the catalogue), the covariance stays sigma^2 I:
 * the proven worst case is the row with the largest shift, and its profile is the analytic
 * Gaussian mechanism's with sensitivity max_i |shift_i| */
Test(mechanisms, change_label_worst_case_is_proven)
{
    static const double X[6][3] = {{0.5, 0.1, 1.2}, {0.3, -0.4, 0.1}, {-0.2, 0.8, 0.9},
                                   {0.9, 0.2, 1.8}, {-0.6, -0.3, -1.1}, {0.1, 0.5, 0.7}};
    static const char *yaml =
        "gaussaudit: 1\nname: l\nmechanism: {kind: output_perturbation, lambda: 5.0, sigma: 0.3}\n"
        "dataset:\n  rows: [[0.5, 0.1, 1.2], [0.3, -0.4, 0.1], [-0.2, 0.8, 0.9], [0.9, 0.2, 1.8],\n"
        "         [-0.6, -0.3, -1.1], [0.1, 0.5, 0.7]]\n"
        "neighbours: {relation: change_label, label_bound: 2}\n";
    mech_t s;
    parse_text(&s, yaml, "l.yaml");
    cr_expect(s.set.npairs == 13 && s.set.verified && s.set.verified_pair == 12, "%zu pairs, verified %d",
              s.set.npairs, s.set.verified);
    double G[4] = {5, 0, 0, 5}, worst = 0;
    for (int i = 0; i < 6; i++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                G[a * 2 + b] += X[i][a] * X[i][b];
    for (int i = 0; i < 6; i++) {
        double u[2], x[2] = {X[i][0], X[i][1]};
        gsl_spd_solve(u, G, 0, x, 2);
        worst = fmax(worst, 2 * hypot(u[0], u[1]) / 0.3);
    }
    ga_delta D;
    worst_delta(&D, &s, 0.5);
    double ref = analytic_gm(1 / worst, 0.5);
    cr_expect(fabs(D.xy.val - ref) <= 1e-12 * ref && fabs(D.yx.val - ref) <= 1e-12 * ref,
              "%.17g %.17g vs %.17g (distance %.17g)", D.xy.val, D.yx.val, ref, worst);
    mech_clear(&s);
    /* binary labels are flipped (one pair per row, no proof: the MAP is not linear in them);
     * continuous targets without linearity get +C and -C, no proof */
    static const char *logit =
        "gaussaudit: 1\nname: b\nmechanism: {kind: bayesian_logistic_regression, lambda: 1}\n"
        "dataset: {rows: [[0.5, 1], [-0.3, 0], [0.8, 1], [-0.9, 0]]}\nneighbours: change_label\n";
    parse_text(&s, logit, "b.yaml");
    cr_expect(s.set.npairs == 4 && !s.set.verified && strstr(s.set.pairs[0].name, "flip") != NULL, "%zu %s",
              s.set.npairs, s.set.pairs[0].name);
    mech_clear(&s);
    char msg[512];
    const struct { const char *yaml, *want; } bad[] = {
        {"gaussaudit: 1\nname: b\nmechanism: {kind: sketch, columns: 2}\n"
         "dataset: {rows: [[1, 0], [0, 1]]}\nneighbours: {relation: change_label, label_bound: 1}\n",
         "change_label needs a kind whose dataset ends with a target"},
        {"gaussaudit: 1\nname: b\nmechanism: {kind: output_perturbation, lambda: 1, sigma: 1}\n"
         "dataset: {rows: [[1, 0], [0, 1]]}\nneighbours: change_label\n",
         "label_bound: missing"},
        {"gaussaudit: 1\nname: b\nmechanism: {kind: output_perturbation, lambda: 1, sigma: 1}\n"
         "dataset: {rows: [[1, 0], [0, 1]]}\nneighbours: {relation: remove_one, label_bound: 1}\n",
         "only change_label takes a label bound"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int st = ga_mech_parse(&s.spec, &s.set, bad[i].yaml, strlen(bad[i].yaml), "b.yaml", NULL, NULL, msg, sizeof msg);
        cr_expect(st == GA_EINVAL && strstr(msg, bad[i].want), "case %zu: %d %s", i, st, msg);
        if (st == GA_OK)
            mech_clear(&s);
    }
}

/* ------------------------------------------------------------ noisy GD, finite runs */

/* the joint law of (theta_1..theta_T) of t <- M t + b + c xi from N(m0, S0), written out
 * here as the linear image of (theta_0, xi_1..xi_T): theta_t = M^t theta_0 + sum_{k<=t}
 * M^{t-k} (b + c xi_k) (p = 2; independent of the catalogue's eigenbasis formulas) */
static void ngd_joint(double *mu, double *cov, const double X[][3], size_t n, double lambda,
                      double eta, double sigma, size_t T, const double *m0, const double *S0)
{
    size_t p = 2, D = T * p, W = p + T * p;
    double H[4] = {lambda, 0, 0, lambda}, b[2] = {0, 0}, M[4];
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < 2; a++) {
            b[a] += eta * X[i][a] * X[i][2];
            for (size_t c = 0; c < 2; c++)
                H[a * 2 + c] += X[i][a] * X[i][c];
        }
    for (size_t a = 0; a < 4; a++)
        M[a] = (a % 3 == 0) - eta * H[a];
    double *A = calloc(D * W, sizeof *A), *P = malloc(T * 4 * sizeof *P), c = sqrt(2 * eta) * sigma;
    /* P_t = M^t */
    double cur[4] = {1, 0, 0, 1};
    for (size_t t = 0; t < T; t++) {
        double nx[4];
        for (size_t a = 0; a < 2; a++)
            for (size_t e = 0; e < 2; e++)
                nx[a * 2 + e] = M[a * 2] * cur[e] + M[a * 2 + 1] * cur[2 + e];
        memcpy(cur, nx, sizeof cur);
        memcpy(P + t * 4, cur, sizeof cur); /* M^(t+1) */
    }
    for (size_t t = 1; t <= T; t++) {
        double sb[2] = {0, 0}, pw[4] = {1, 0, 0, 1};
        for (size_t k = t; k >= 1; k--) { /* M^(t-k) (b + c xi_k) */
            for (size_t a = 0; a < 2; a++) {
                sb[a] += pw[a * 2] * b[0] + pw[a * 2 + 1] * b[1];
                for (size_t e = 0; e < 2; e++)
                    A[((t - 1) * p + a) * W + p + (k - 1) * p + e] = c * pw[a * 2 + e];
            }
            double nx[4];
            for (size_t a = 0; a < 2; a++)
                for (size_t e = 0; e < 2; e++)
                    nx[a * 2 + e] = M[a * 2] * pw[e] + M[a * 2 + 1] * pw[2 + e];
            memcpy(pw, nx, sizeof pw);
        }
        for (size_t a = 0; a < 2; a++) {
            mu[(t - 1) * p + a] = sb[a] + P[(t - 1) * 4 + a * 2] * m0[0] + P[(t - 1) * 4 + a * 2 + 1] * m0[1];
            for (size_t e = 0; e < 2; e++)
                A[((t - 1) * p + a) * W + e] = P[(t - 1) * 4 + a * 2 + e];
        }
    }
    /* cov = A diag(S0, I) A^T */
    for (size_t i = 0; i < D; i++)
        for (size_t j = 0; j < D; j++) {
            double v = 0;
            for (size_t a = 0; a < 2; a++)
                for (size_t e = 0; e < 2; e++)
                    v += A[i * W + a] * S0[a * 2 + e] * A[j * W + e];
            for (size_t k = p; k < W; k++)
                v += A[i * W + k] * A[j * W + k];
            cov[i * D + j] = v;
        }
    free(A);
    free(P);
}

/* T = 1 and T = 3 trajectories under label DP (the catalogue's product of the first iterate
 * and the innovations) against the joint law written out here, and the last iterate at large
 * T against the stationary law */
Test(mechanisms, noisy_gd_finite_runs_against_direct_computation)
{
    static const double X[4][3] = {{0.5, 0.1, 1.2}, {0.3, -0.4, 0.1}, {-0.2, 0.8, 0.9}, {0.9, 0.2, 1.8}};
    const double m0[2] = {0.3, -0.2}, S0[4] = {2, 0.5, 0.5, 1};
    static const size_t Ts[] = {1, 3};
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t it = 0; it < 2; it++) {
        size_t T = Ts[it], D = 2 * T;
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "gaussaudit: 1\nname: g\nmechanism: {kind: noisy_gradient_descent, lambda: 1, eta: 0.1,"
                 " sigma: 0.5, iterations: %zu, release_trajectory: true, init: {mean: [0.3, -0.2],"
                 " cov: [[2, 0.5], [0.5, 1]]}}\n"
                 "dataset: {rows: [[0.5, 0.1, 1.2], [0.3, -0.4, 0.1], [-0.2, 0.8, 0.9], [0.9, 0.2, 1.8]]}\n"
                 "neighbours: {relation: change_label, label_bound: 1.5, rows: [3]}\n", T);
        mech_t s;
        parse_text(&s, yaml, "g.yaml");
        cr_assert(s.set.npairs == 2, "%zu pairs", s.set.npairs);
        double Xp[4][3];
        memcpy(Xp, X, sizeof Xp);
        Xp[2][2] += 1.5; /* row 3's label moved by +C */
        double mu[2][6], cov[2][36];
        ngd_joint(mu[0], cov[0], X, 4, 1, 0.1, 0.5, T, m0, S0);
        ngd_joint(mu[1], cov[1], (const double(*)[3])Xp, 4, 1, 0.1, 0.5, T, m0, S0);
        ga_pair_input in = {D, mu[0], mu[1], cov[0], cov[1], 1, {NULL, NULL, NULL, NULL}};
        ga_pair *p, *q;
        char msg[512];
        cr_assert(ga_mech_pair_reduce(&p, &s.set.pairs[0], msg, sizeof msg) == GA_OK, "%s", msg);
        cr_assert(ga_pair_reduce(&q, &in, msg, sizeof msg) == GA_OK, "%s", msg);
        for (double eps = 0; eps <= 2; eps += 0.5) {
            ga_delta A, B;
            ga_pair_delta(&A, p, eps, GA_DELTA_AUTO, NULL, w);
            ga_pair_delta(&B, q, eps, GA_DELTA_AUTO, NULL, w);
            cr_expect(fabs(A.xy.val - B.xy.val) <= A.xy.err + B.xy.err + 1e-13 * B.xy.val &&
                          fabs(A.yx.val - B.yx.val) <= A.yx.err + B.yx.err + 1e-13 * B.yx.val,
                      "T %zu eps %g: catalogue %.17g %.17g, direct %.17g %.17g", T, eps, A.xy.val,
                      A.yx.val, B.xy.val, B.yx.val);
        }
        ga_pair_free(p);
        ga_pair_free(q);
        mech_clear(&s);
    }
    /* large T: the last iterate's law approaches the stationary one */
    mech_t a, b;
    parse_text(&a, "gaussaudit: 1\nname: a\nmechanism: {kind: noisy_gradient_descent, lambda: 1, eta: 0.1, sigma: 0.5, iterations: 3000}\n"
                   "dataset: {rows: [[0.5, 0.1, 1.2], [0.3, -0.4, 0.1], [-0.2, 0.8, 0.9], [0.9, 0.2, 1.8]]}\n", "a.yaml");
    parse_text(&b, "gaussaudit: 1\nname: b\nmechanism: {kind: noisy_gradient_descent, lambda: 1, eta: 0.1, sigma: 0.5}\n"
                   "dataset: {rows: [[0.5, 0.1, 1.2], [0.3, -0.4, 0.1], [-0.2, 0.8, 0.9], [0.9, 0.2, 1.8]]}\n", "b.yaml");
    for (size_t i = 0; i < a.set.npairs; i++)
        for (size_t j = 0; j < 4; j++)
            cr_expect(fabs(a.set.pairs[i].s_x[j] - b.set.pairs[i].s_x[j]) <= 1e-12 &&
                          fabs(a.set.pairs[i].mu_y[j % 2] - b.set.pairs[i].mu_y[j % 2]) <= 1e-12,
                      "pair %zu entry %zu: %.17g vs %.17g", i, j, a.set.pairs[i].s_x[j], b.set.pairs[i].s_x[j]);
    mech_clear(&a);
    mech_clear(&b);
    ga_gchisq_work_free(w);
}

/* relative DP: the pairs are the neighbours within the set (as multisets: row order does not
 * matter); each pair is the kind's pair for that change, here the sketch's leverage pair
 * N(0, 1/(1 - p)) vs N(0, 1), p = v^T (D^T D)^{-1} v by a GSL solve */
Test(mechanisms, relative_dp_pairs_within_the_set)
{
    static const char *yaml =
        "gaussaudit: 1\nname: r\nmechanism: {kind: sketch, columns: 20}\nrelative:\n  datasets:\n"
        "    - {rows: [[1, 0], [0, 1], [1, 1], [0.5, -0.5]]}\n"
        "    - {rows: [[1, 1], [0, 1], [1, 0]]}\n"          /* D1 minus row 4, shuffled */
        "    - {rows: [[0, 1], [1, 1], [0.5, -0.5]]}\n"     /* D1 minus row 1 */
        "    - {rows: [[2, 2], [0, 1], [1, 1], [0.5, -0.5]]}\n" /* D1 with row 1 replaced */
        "neighbours: %s\n";
    char text[1024];
    snprintf(text, sizeof text, yaml, "remove_one");
    mech_t s;
    parse_text(&s, text, "r.yaml");
    cr_assert(s.set.npairs == 3, "%zu pairs", s.set.npairs);
    cr_expect(strstr(s.set.pairs[0].name, "datasets[1] -> datasets[2]") && strstr(s.set.pairs[1].name, "datasets[1] -> datasets[3]") &&
              strstr(s.set.pairs[2].name, "datasets[4] -> datasets[3]"), "%s | %s | %s", s.set.pairs[0].name,
              s.set.pairs[1].name, s.set.pairs[2].name);
    /* pair 1: v = [0.5, -0.5] removed from D1 */
    double G[4] = {0}, D1[4][2] = {{1, 0}, {0, 1}, {1, 1}, {0.5, -0.5}}, v[2] = {0.5, -0.5}, u[2];
    for (int i = 0; i < 4; i++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                G[a * 2 + b] += D1[i][a] * D1[i][b];
    gsl_spd_solve(u, G, 0, v, 2);
    double p = v[0] * u[0] + v[1] * u[1];
    cr_expect(fabs(s.set.pairs[0].s_x[0] - 1 / (1 - p)) <= 1e-14 / (1 - p) && s.set.pairs[0].columns == 20,
              "%.17g vs %.17g", s.set.pairs[0].s_x[0], 1 / (1 - p));
    mech_clear(&s);
    snprintf(text, sizeof text, yaml, "replace_one");
    parse_text(&s, text, "r.yaml");
    /* D1 and D4 differ in row 1; D2 and D3 in one row too ([1, 0] against [0.5, -0.5]) */
    cr_expect(s.set.npairs == 2 && strstr(s.set.pairs[0].name, "datasets[1] -> datasets[4]") &&
              strstr(s.set.pairs[1].name, "datasets[2] -> datasets[3]"), "%zu %s", s.set.npairs,
              s.set.npairs ? s.set.pairs[0].name : "");
    mech_clear(&s);
    char msg[512];
    static const char *none =
        "gaussaudit: 1\nname: r\nmechanism: {kind: sketch, columns: 2}\nrelative:\n  datasets:\n"
        "    - {rows: [[1, 0], [0, 1]]}\n    - {rows: [[3, 0], [0, 3]]}\n";
    int st = ga_mech_parse(&s.spec, &s.set, none, strlen(none), "n.yaml", NULL, NULL, msg, sizeof msg);
    cr_expect(st == GA_EINVAL && strstr(msg, "no two datasets of the set are neighbours"), "%d %s", st, msg);
    if (st == GA_OK)
        mech_clear(&s);
}

/* a released sketch (per column A x): with an invertible A the profile is the sketch's own
 * (invertible post-processing); with a 1 x 2 A = [a] the pair of removing v is N(0, a^T S a)
 * vs N(0, a^T S a - (a^T v)^2) per column, S = D^T D + sigma^2 I (written out here) */
Test(mechanisms, sketch_release_in_output_coordinates)
{
    static const char *fmt =
        "gaussaudit: 1\nname: s\nmechanism: {kind: sketch, columns: 3, noise_sigma: 1%s}\n"
        "dataset: {rows: [[1, 0.5], [0.2, -1], [0.3, 0.3], [-1, 2]]}\nneighbours: remove_one\n";
    static const double D[4][2] = {{1, 0.5}, {0.2, -1}, {0.3, 0.3}, {-1, 2}}, a[2] = {0.6, -0.8};
    /* the same releases scaled by 10^e: A S A^T under- or overflows in double at the ends */
    static const int ex[] = {0, -300, -200, -100, 100, 200, 300};
    char t0[512], t1[512], t2[512], r1[160], r2[160];
    snprintf(t0, sizeof t0, fmt, "");
    mech_t s0;
    parse_text(&s0, t0, "s0.yaml");
    double S[4] = {1, 0, 0, 1};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++)
                S[j * 2 + k] += D[i][j] * D[i][k];
    double aSa = a[0] * a[0] * S[0] + 2 * a[0] * a[1] * S[1] + a[1] * a[1] * S[3];
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t e = 0; e < sizeof ex / sizeof *ex; e++) {
        snprintf(r1, sizeof r1, ", release: {matrix: [[1e%d, 0], [0.5e%d, 0.5e%d]]}", ex[e], ex[e], ex[e]);
        snprintf(r2, sizeof r2, ", release: {matrix: [[0.6e%d, -0.8e%d]]}", ex[e], ex[e]);
        snprintf(t1, sizeof t1, fmt, r1);
        snprintf(t2, sizeof t2, fmt, r2);
        mech_t s1, s2;
        parse_text(&s1, t1, "s1.yaml");
        parse_text(&s2, t2, "s2.yaml");
        cr_assert(s0.set.npairs == 4 && s1.set.npairs == 4 && s2.set.npairs == 4);
        for (size_t i = 0; i < 4; i++) {
            ga_pair *p0, *p1, *p2, *q;
            char msg[512];
            double av = a[0] * D[i][0] + a[1] * D[i][1], mz = 0, sx = aSa, sy = aSa - av * av;
            ga_pair_input in = {1, &mz, &mz, &sx, &sy, 3, {NULL, NULL, NULL, NULL}};
            cr_assert(ga_mech_pair_reduce(&p0, &s0.set.pairs[i], msg, sizeof msg) == GA_OK, "%s", msg);
            cr_assert(ga_mech_pair_reduce(&p1, &s1.set.pairs[i], msg, sizeof msg) == GA_OK, "%s", msg);
            cr_assert(ga_mech_pair_reduce(&p2, &s2.set.pairs[i], msg, sizeof msg) == GA_OK, "%s", msg);
            cr_assert(ga_pair_reduce(&q, &in, msg, sizeof msg) == GA_OK, "%s", msg);
            ga_delta A0, A1, A2, B;
            ga_pair_delta(&A0, p0, 0.5, GA_DELTA_AUTO, NULL, w);
            ga_pair_delta(&A1, p1, 0.5, GA_DELTA_AUTO, NULL, w);
            ga_pair_delta(&A2, p2, 0.5, GA_DELTA_AUTO, NULL, w);
            ga_pair_delta(&B, q, 0.5, GA_DELTA_AUTO, NULL, w);
            cr_expect(fabs(A1.xy.val - A0.xy.val) <= A1.xy.err + A0.xy.err + 1e-14 * A0.xy.val &&
                          fabs(A1.yx.val - A0.yx.val) <= A1.yx.err + A0.yx.err + 1e-14 * A0.yx.val,
                      "row %zu invertible A (scale 1e%d): %.17g %.17g vs %.17g %.17g", i + 1,
                      ex[e], A1.xy.val, A1.yx.val, A0.xy.val, A0.yx.val);
            cr_expect(fabs(A2.xy.val - B.xy.val) <= A2.xy.err + B.xy.err + 1e-14 * B.xy.val &&
                          fabs(A2.yx.val - B.yx.val) <= A2.yx.err + B.yx.err + 1e-14 * B.yx.val &&
                          A2.xy.err <= 1e-12 && A2.yx.err <= 1e-12,
                      "row %zu 1 x 2 A (scale 1e%d): %.17g +- %g %.17g +- %g vs %.17g %.17g",
                      i + 1, ex[e], A2.xy.val, A2.xy.err, A2.yx.val, A2.yx.err, B.xy.val, B.yx.val);
            ga_pair_free(p0);
            ga_pair_free(p1);
            ga_pair_free(p2);
            ga_pair_free(q);
        }
        mech_clear(&s1);
        mech_clear(&s2);
    }
    ga_gchisq_work_free(w);
    mech_clear(&s0);
}

/* matrix masking, setting (B): the pairs the catalogue builds */
Test(mechanisms, masked_pairs_and_their_bounds)
{
    /* one column over a dataset: every zero-out neighbour exact, |x| and |x'| the column's
     * norms; the universe worst case (1, 0) with n rows, proven */
    mech_t s;
    parse_text(&s, "gaussaudit: 1\nmechanism: {kind: matrix_masking, masking: orthogonal, sigma: 2}\n"
                   "dataset: {rows: [[0.5], [-1], [0.25]]}\nneighbours: zero_out\n"
                   "universe: {row_norm_bound: 1}\n", "p1");
    cr_assert(s.set.npairs == 4 && s.set.verified && !s.set.verified_bound);
    double n2 = 0.25 + 1 + 0.0625;
    for (size_t i = 0; i < 3; i++) {
        const ga_masked_input *m = s.set.pairs[i].masked;
        cr_assert(m);
        double xi = i == 0 ? 0.5 : i == 1 ? -1 : 0.25;
        cr_expect(m->rows == 3 && m->sigma == 2 && fabs(m->norm_x * m->norm_x - n2) < 1e-15 &&
                  fabs(m->norm_y * m->norm_y - (n2 - xi * xi)) < 1e-15, "pair %zu: %g %g", i,
                  m->norm_x, m->norm_y);
    }
    const ga_masked_input *w = s.set.pairs[s.set.verified_pair].masked;
    cr_expect(w && w->rows == 3 && w->norm_x == 1 && w->norm_y == 0 && !strcmp(w->norm_x_txt, "1"));
    mech_clear(&s);
    /* two columns: lower bounds along the changed row; the universe's upper bound is the
     * Gaussian mechanism of setting (A), a bound (verified_bound) */
    parse_text(&s, "gaussaudit: 1\nmechanism: {kind: matrix_masking, masking: orthogonal, sigma: 2}\n"
                   "dataset: {rows: [[1, 0], [0, 1], [0.5, 0.5]]}\nneighbours: {relation: zero_out, rows: [1]}\n"
                   "universe: {row_norm_bound: 1}\n", "p2");
    cr_assert(s.set.npairs == 3 && s.set.verified && s.set.verified_bound && s.set.verified_pair == 2);
    const ga_masked_input *m = s.set.pairs[0].masked;
    cr_expect(m && fabs(m->norm_x * m->norm_x - 1.25) < 1e-15 && fabs(m->norm_y * m->norm_y - 0.25) < 1e-15,
              "u = e_1: |X u|^2 = 1.25, |X' u|^2 = 0.25; got %g %g", m->norm_x, m->norm_y);
    cr_expect(strstr(s.set.pairs[0].name, "lower bound") != NULL, "%s", s.set.pairs[0].name);
    cr_expect(s.set.pairs[1].masked && s.set.pairs[1].masked->norm_x == 1 && s.set.pairs[1].masked->norm_y == 0);
    cr_expect(!s.set.pairs[2].masked && s.set.pairs[2].d == 1 && s.set.pairs[2].mu_x[0] == 1 && s.set.pairs[2].s_x[0] == 4);
    mech_clear(&s);
}

/* p > 1 verdicts: the lower bound shows violations, the upper bound proves, between them the
 * audit says so */
Test(mechanisms, masked_bounds_decide_or_say_inconclusive)
{
    static const struct {
        const char *sigma, *verdict;
    } rows[] = {
        {"0.2", "\"VIOLATION\""},     /* below the exact p = 1 calibration 0.836: the lower bound */
        {"3", "\"INCONCLUSIVE\""},    /* between 0.836 and setting (A)'s 9.5418 */
        {"9.6", "\"VERIFIED\""},      /* above setting (A)'s calibration */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char path[] = "/tmp/ga_mmXXXXXX", yaml[512], args[300], *out, *err;
        snprintf(yaml, sizeof yaml, "gaussaudit: 1\nmechanism: {kind: matrix_masking, masking: "
                 "orthogonal, sigma: %s, rows: 100, columns: 5}\nneighbours: zero_out\nuniverse: "
                 "{row_norm_bound: 1}\nclaim: {epsilon: 0.1, delta: 0.01}\n", rows[i].sigma);
        ga_test_temp_spec(path, yaml);
        snprintf(args, sizeof args, "audit %s --format json", path);
        ga_test_run(args, &out, &err);
        cr_expect(strstr(out, rows[i].verdict) != NULL, "sigma %s: expected %s: %.600s", rows[i].sigma,
                  rows[i].verdict, out);
        if (i == 1)
            cr_expect(strstr(out, "\"value_kind\": \"upper bound\"") != NULL, "%.600s", out);
        unlink(path);
        free(out);
        free(err);
    }
}

/* GP remove-one by a rank-one downdate of one factorisation: every
 * neighbour's law equals the law computed directly on the dataset without that row (a spec of
 * its own), on seeded random datasets, rbf and linear kernels, 1 to 3 query points */
#define TOL_GP_DOWNDATE 1e-10 /* relative to the scale of the law */

static void gp_spec_text(char *b, size_t n, const double *rows, size_t nrows, size_t skip,
                         int linear, int nq, double nv)
{
    size_t l = (size_t)snprintf(b, n, "gaussaudit: 1\nmechanism: {kind: gaussian_process_regression, "
                                "kernel: %s, lengthscale: 0.7, signal_variance: 1.3, noise_variance: %g, "
                                "sigma: 0.1, query: [", linear ? "linear" : "rbf", nv);
    for (int a = 0; a < nq; a++)
        l += (size_t)snprintf(b + l, n - l, "%s[%g, %g]", a ? ", " : "", 0.3 * a, 1 - 0.4 * a);
    l += (size_t)snprintf(b + l, n - l, "]}\ndataset: {rows: [");
    for (size_t i = 0, k = 0; i < nrows; i++)
        if (i != skip)
            l += (size_t)snprintf(b + l, n - l, "%s[%.17g, %.17g, %.17g]", k++ ? ", " : "",
                                  rows[3 * i], rows[3 * i + 1], rows[3 * i + 2]);
    snprintf(b + l, n - l, "]}\nneighbours: remove_one\nclaim: {epsilon: 1, delta: 1.0e-5}\n");
}

Test(mechanisms, gp_remove_one_downdate_equals_direct_laws)
{
    gsl_rng *r = ga_test_rng(20261123);
    long cases = ga_test_count(12);
    static char text[1 << 16];
    for (long c = 0; c < cases; c++) {
        size_t nrows = 3 + gsl_rng_uniform_int(r, 40);
        int linear = c % 3 == 2, nq = 1 + (int)(c % 3);
        double nv = 0.05 + gsl_rng_uniform(r), rows[3 * 43];
        for (size_t i = 0; i < 3 * nrows; i++)
            rows[i] = 2 * gsl_rng_uniform(r) - 1;
        mech_t s, t;
        gp_spec_text(text, sizeof text, rows, nrows, SIZE_MAX, linear, nq, nv);
        parse_text(&s, text, "gp.yaml");
        cr_assert(s.set.npairs == nrows, "%zu pairs for %zu rows", s.set.npairs, nrows);
        for (size_t i = 0; i < nrows; i++) {
            gp_spec_text(text, sizeof text, rows, nrows, i, linear, nq, nv);
            parse_text(&t, text, "gp_minus_i.yaml"); /* its X law: the law on D without row i */
            double scale = 0;
            for (int a = 0; a < nq * nq; a++)
                scale = fmax(scale, fabs(t.set.pairs[0].s_x[a]));
            for (int a = 0; a < nq; a++)
                scale = fmax(scale, fabs(t.set.pairs[0].mu_x[a]));
            double worst = 0;
            for (int a = 0; a < nq; a++)
                worst = fmax(worst, fabs(s.set.pairs[i].mu_y[a] - t.set.pairs[0].mu_x[a]));
            for (int a = 0; a < nq * nq; a++)
                worst = fmax(worst, fabs(s.set.pairs[i].s_y[a] - t.set.pairs[0].s_x[a]));
            cr_expect(worst <= TOL_GP_DOWNDATE * scale && !strncmp(s.set.pairs[i].name, "remove row", 10),
                      "case %ld (seed 20261123), %zu rows, %s kernel, %d queries, noise %g: "
                      "neighbour %zu ('%s') differs from the direct law by %.3g (scale %.3g)",
                      c, nrows, linear ? "linear" : "rbf", nq, nv, i + 1, s.set.pairs[i].name, worst, scale);
            mech_clear(&t);
        }
        mech_clear(&s);
    }
    gsl_rng_free(r);
}

/* ---------------------------------------------------------- ridge kinds by updates */

/* relative to the scale of the law times the condition number of X'^T X' + lambda I (both
 * the update and the direct sum carry rounding errors of order u kappa; an update that
 * cancels, without its guard, is 1e4 times further off on the outlier rows) */
#define TOL_RIDGE_UPDATE 1e-14

/* the 2-norm condition number of X^T X + c I, X the first p columns of rows [x | y] (GSL) */
static double ridge_condition(const double *rows, size_t n, size_t p, double c)
{
    gsl_matrix *H = gsl_matrix_calloc(p, p);
    gsl_vector *ev = gsl_vector_alloc(p);
    gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(p);
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < p; a++)
            for (size_t b = 0; b < p; b++)
                *gsl_matrix_ptr(H, a, b) += rows[i * (p + 1) + a] * rows[i * (p + 1) + b];
    for (size_t a = 0; a < p; a++)
        *gsl_matrix_ptr(H, a, a) += c;
    gsl_eigen_symm(H, ev, w);
    double k = gsl_vector_max(ev) / gsl_vector_min(ev);
    gsl_eigen_symm_free(w);
    gsl_vector_free(ev);
    gsl_matrix_free(H);
    return k;
}

/* a spec of a ridge-type kind on the rows given (nrows x (p + 1)), with a neighbour relation
 * (and candidates for add_one / replace_one) */
static void ridge_spec_text(char *b, size_t n, int kind, double eta, const double *rows,
                            size_t nrows, size_t p, const char *relation, const double *cand,
                            size_t ncand)
{
    static const char *const mech[] = {
        "{kind: output_perturbation, lambda: 1, sigma: 0.5}",
        "{kind: linear_regression, columns: 20, sigma: 1.5}",
        "{kind: noisy_gradient_descent, lambda: 1, eta: %.17g, sigma: 0.5}"};
    char m[128];
    snprintf(m, sizeof m, mech[kind], eta);
    size_t l = (size_t)snprintf(b, n, "gaussaudit: 1\nmechanism: %s\ndataset: {rows: [", m);
    for (size_t i = 0; i < nrows; i++) {
        l += (size_t)snprintf(b + l, n - l, "%s[", i ? ", " : "");
        for (size_t a = 0; a <= p; a++)
            l += (size_t)snprintf(b + l, n - l, "%s%.17g", a ? ", " : "", rows[i * (p + 1) + a]);
        l += (size_t)snprintf(b + l, n - l, "]");
    }
    l += (size_t)snprintf(b + l, n - l, "]}\nneighbours: {relation: %s", relation);
    if (!strcmp(relation, "change_label"))
        l += (size_t)snprintf(b + l, n - l, ", label_bound: 0.75");
    if (ncand) {
        l += (size_t)snprintf(b + l, n - l, ", candidates: [");
        for (size_t i = 0; i < ncand; i++) {
            l += (size_t)snprintf(b + l, n - l, "%s[", i ? ", " : "");
            for (size_t a = 0; a <= p; a++)
                l += (size_t)snprintf(b + l, n - l, "%s%.17g", a ? ", " : "", cand[i * (p + 1) + a]);
            l += (size_t)snprintf(b + l, n - l, "]");
        }
        l += (size_t)snprintf(b + l, n - l, "]");
    }
    snprintf(b + l, n - l, "}\nclaim: {epsilon: 1, delta: 1.0e-5}\n");
}

/* The neighbours of output_perturbation, linear_regression and noisy_gradient_descent come
 * from updates of X^T X and X^T y (catalogue/laws.c, ridge_update); each must equal the law
 * computed directly on the neighbour's dataset, written out as a spec of its own (the test
 * applies the relation itself). Some datasets have an outlier row (1e4) that dominates its
 * columns: removing or replacing it must not cancel (the update's accuracy guard). */
Test(mechanisms, ridge_neighbours_by_update_equal_direct_laws)
{
    static const char *const rel[] = {"remove_one", "add_one", "replace_one", "change_label",
                                      "zero_out"};
    static const char *const kinds[] = {"output_perturbation", "linear_regression",
                                        "noisy_gradient_descent"};
    gsl_rng *r = ga_test_rng(20261124);
    long cases = ga_test_count(30);
    static char text[1 << 16];
    double worst_seen = 0;
    for (long c = 0; c < cases; c++) {
        int kind = (int)(c % 3), ri = (int)((c / 3) % 5);
        size_t p = 1 + gsl_rng_uniform_int(r, 4), nrows = 3 + gsl_rng_uniform_int(r, 25);
        size_t ncand = ri == 1 || ri == 2 ? 2 : 0, d = p + 1;
        double rows[30 * 5], cand[2 * 5], nb[31 * 5];
        for (size_t i = 0; i < nrows * d; i++)
            rows[i] = 2 * gsl_rng_uniform(r) - 1;
        for (size_t i = 0; i < ncand * d; i++)
            cand[i] = 2 * gsl_rng_uniform(r) - 1;
        int outlier = c % 2;
        if (outlier)
            for (size_t a = 0; a < p; a++)
                rows[(nrows / 2) * d + a] *= 1e4;
        if (kind == 1 && ri == 3)
            ri = 0; /* linear_regression: remove_one or add_one (neighbours by leverage) */
        if (kind == 1 && ri >= 2)
            ri = 1, ncand = 2;
        /* eta below 2 / (the largest eigenvalue of X^T X + lambda I) of every neighbour */
        double tr = 1;
        for (size_t i = 0; i < nrows * d; i++)
            tr += rows[i] * rows[i];
        for (size_t i = 0; i < ncand * d; i++)
            tr += cand[i] * cand[i];
        double eta = 1 / (tr + 2);
        mech_t s, t;
        ridge_spec_text(text, sizeof text, kind, eta, rows, nrows, p, rel[ri], cand, ncand);
        parse_text(&s, text, "ridge.yaml");
        for (size_t k = 0; k < s.set.npairs; k++) {
            if (!strncmp(s.set.pairs[k].name, "label-DP worst case", 19))
                continue; /* the proven worst case (change_label), not a neighbour */
            /* neighbour k as the relation defines it (nb_count's order) */
            size_t m = nrows, row = ri == 2 ? k / ncand : ri == 3 ? k / 2 : k;
            memcpy(nb, rows, nrows * d * sizeof *nb);
            if (ri == 0) {
                memmove(nb + row * d, nb + (row + 1) * d, (nrows - row - 1) * d * sizeof *nb);
                m--;
            } else if (ri == 1) {
                memcpy(nb + nrows * d, cand + k * d, d * sizeof *nb);
                m++;
            } else if (ri == 2) {
                memcpy(nb + row * d, cand + (k % ncand) * d, d * sizeof *nb);
            } else if (ri == 3) {
                nb[row * d + p] += k % 2 ? -0.75 : 0.75;
            } else {
                memset(nb + row * d, 0, d * sizeof *nb);
            }
            ridge_spec_text(text, sizeof text, kind, eta, nb, m, p, "remove_one", NULL, 0);
            parse_text(&t, text, "ridge_neighbour.yaml"); /* its X law: the neighbour's */
            size_t dim = t.set.pairs[0].d;
            cr_assert(dim == s.set.pairs[k].d);
            double scale = 0, worst = 0;
            for (size_t a = 0; a < dim; a++) {
                scale = fmax(scale, fabs(t.set.pairs[0].mu_x[a]));
                worst = fmax(worst, fabs(s.set.pairs[k].mu_y[a] - t.set.pairs[0].mu_x[a]));
            }
            for (size_t a = 0; a < dim * dim; a++) {
                scale = fmax(scale, fabs(t.set.pairs[0].s_x[a]));
                worst = fmax(worst, fabs(s.set.pairs[k].s_y[a] - t.set.pairs[0].s_x[a]));
            }
            double kappa = ridge_condition(nb, m, p, kind == 1 ? 2.25 : 1);
            worst_seen = fmax(worst_seen, worst / (scale * kappa));
            cr_expect(worst <= TOL_RIDGE_UPDATE * kappa * scale,
                      "case %ld (seed 20261124): %s, %s, %zu rows, p = %zu%s: neighbour %zu "
                      "('%s') differs from the direct law by %.3g (scale %.3g, condition %.3g)",
                      c, kinds[kind], rel[ri], nrows, p, outlier ? ", an outlier row" : "",
                      k + 1, s.set.pairs[k].name, worst, scale, kappa);
            mech_clear(&t);
        }
        mech_clear(&s);
    }
    cr_log_info("ridge updates: largest difference / (scale condition) %.3g", worst_seen);
    gsl_rng_free(r);
}

/* a spec loaded with drop_data (as the audit loads it) frees the sketch's
 * data once the leverages are computed, so the data's doubles are not held beside the pairs.
 * Its pairs must be those of a load that keeps the data, bit for bit (remove_one with a
 * universe, zero_out, add_one, a row selection); a composition of sketches keeps the data
 * (its parts share it); a rebuild of a dropped spec fails with a message, it does not read
 * freed memory. */
Test(mechanisms, sketch_drops_its_data_after_the_leverages)
{
    gsl_rng *rng = ga_test_rng(31);
    char rows[4096];
    size_t l = 0;
    for (int i = 0; i < 30; i++)
        l += (size_t)snprintf(rows + l, sizeof rows - l, "%s[%.5f, %.5f, %.5f]", i ? ", " : "",
                              gsl_rng_uniform(rng) - 0.5, gsl_rng_uniform(rng) - 0.5,
                              gsl_rng_uniform(rng) - 0.5);
    gsl_rng_free(rng);
    static const char *neigh[] = {
        "neighbours: remove_one\nuniverse: {row_norm_bound: 1}\n",
        "neighbours: zero_out\n",
        "neighbours: {relation: add_one, candidates: [[0.3, -0.2, 0.1], [0, 0.4, 0.4]]}\n",
        "neighbours: {relation: remove_one, rows: [2, 30, 7]}\n",
    };
    for (int k = 0; k < 5; k++) {
        char text[8192];
        const char *mech = k < 4 ? "mechanism: {kind: sketch, columns: 9, noise_sigma: 0.7}\n"
                                 : "mechanism:\n  kind: composition\n  parts:\n"
                                   "    - {kind: sketch, columns: 4, noise_sigma: 1}\n"
                                   "    - {kind: sketch, columns: 6, noise_sigma: 0.5}\n";
        snprintf(text, sizeof text, "gaussaudit: 1\n%sdataset: {rows: [%s]}\n%s", mech, rows,
                 neigh[k < 4 ? k : 0]);
        mech_t a, b;
        char msg[512];
        ga_build_opts keep = {.jobs = 1}, drop = {.jobs = 1, .drop_data = 1};
        cr_assert(ga_mech_parse(&a.spec, &a.set, text, strlen(text), "keep.yaml", NULL, &keep, msg,
                                sizeof msg) == GA_OK, "case %d: %s", k, msg);
        cr_assert(ga_mech_parse(&b.spec, &b.set, text, strlen(text), "drop.yaml", NULL, &drop, msg,
                                sizeof msg) == GA_OK, "case %d: %s", k, msg);
        cr_expect(a.spec.data.x != NULL && b.spec.data.n == 30 && b.spec.data.d == 3, "case %d", k);
        cr_expect(k < 4 ? b.spec.data.x == NULL : b.spec.data.x != NULL,
                  "case %d: the data %s", k, b.spec.data.x ? "was kept" : "was freed");
        cr_assert(a.set.npairs == b.set.npairs && a.set.npairs > 1, "case %d: %zu and %zu pairs", k, a.set.npairs,
                  b.set.npairs);
        cr_expect(a.set.verified == b.set.verified && a.set.verified_pair == b.set.verified_pair, "case %d", k);
        for (size_t i = 0; i < a.set.npairs; i++) {
            const ga_spec_pair *p = &a.set.pairs[i], *q = &b.set.pairs[i];
            cr_expect(!strcmp(p->name, q->name) && p->d == q->d && p->columns == q->columns &&
                      p->nblocks == q->nblocks, "case %d, pair %zu: %s / %s", k, i, p->name, q->name);
            for (size_t j = 0; j < (p->nblocks ? p->nblocks : 1) && p->nblocks == q->nblocks; j++) {
                const ga_spec_pair *pb = p->nblocks ? &p->blocks[j] : p, *qb = q->nblocks ? &q->blocks[j] : q;
                cr_assert(pb->d == 1 && qb->d == 1, "case %d, pair %zu", k, i);
                double u[4] = {pb->mu_x[0], pb->s_x[0], pb->mu_y[0], pb->s_y[0]},
                       v[4] = {qb->mu_x[0], qb->s_x[0], qb->mu_y[0], qb->s_y[0]};
                cr_expect(!memcmp(u, v, sizeof u), "case %d, pair %zu (%s), block %zu: (%.17g, %.17g, "
                          "%.17g, %.17g) kept, (%.17g, %.17g, %.17g, %.17g) dropped", k, i, p->name, j,
                          u[0], u[1], u[2], u[3], v[0], v[1], v[2], v[3]);
            }
        }
        if (k < 4) {
            cr_expect(ga_mech_rebuild(&b.set, &b.spec, NULL, 2.0, msg, sizeof msg) == GA_EINVAL && strstr(msg, "freed"),
                      "case %d: a rebuild without the data: %s", k, msg);
            cr_expect(ga_mech_rebuild(&a.set, &a.spec, NULL, 2.0, msg, sizeof msg) == GA_OK, "case %d: %s", k, msg);
        }
        mech_clear(&a);
        mech_clear(&b);
    }
}

/* The sketch's proven worst case over a universe of rows of norm <= l has leverage
 * l^2/(lambda_min(D^T D) + sigma^2) (remove one; add one: q = l^2/lambda_min(S), then
 * q/(1 + q)). That pair must be at least as far apart as the exact one, so its covariance is
 * rounded up, from a certified lower bound on lambda_min of the exact data's S. References:
 * D^T D = 2 I exactly (leverage 1/3: covariances 3/2 and 4/3), and random two-column data of
 * three-digit decimals, whose lambda_min has the closed form (tr - sqrt(tr^2 - 4 det))/2,
 * evaluated in Arb from the exact decimal sums. Each pair is also at most 1e-9 above. (The
 * old bound, LAPACK's eigenvalue and the pair's covariance rounded to nearest, gave 3/2 -
 * 2^-52 in the first case. The Gram and decimal terms of the bound are a worst case that
 * data of a few rows cannot reach: the certified Cholesky's own term is tested in
 * test_cert.) */
#define TOL_UNIVERSE_ABOVE 1e-9 /* how far above the exact worst case the bound may be */
static void sketch_universe_case(const char *rows, const char *rel, double sigma, double l,
                                 const arb_t lmin, const char *what)
{
    char yaml[8192], msg[1024];
    snprintf(yaml, sizeof yaml, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: "
             "%.17g}\ndataset: {rows: %s}\nneighbours: %s\nuniverse: {row_norm_bound: %.17g}\n",
             sigma, rows, rel, l);
    mech_t s;
    int st = ga_mech_parse(&s.spec, &s.set, yaml, strlen(yaml), "u.yaml", NULL, NULL, msg, sizeof msg);
    cr_assert(st == GA_OK && s.set.verified, "%s: %d %s", what, st, msg);
    const ga_spec_pair *p = &s.set.pairs[s.set.verified_pair];
    int add = strstr(rel, "add_one") != NULL;
    double got = add ? p->s_y[0] : p->s_x[0], other = add ? p->s_x[0] : p->s_y[0];
    /* the exact covariance: remove 1/(1 - l^2/(lmin + sigma^2)) (or 1/(1 - l^2/(l^2 +
     * sigma^2)) when that is smaller); add 1 + l^2/(lmin + sigma^2) */
    arb_t S, q, ex, t;
    arb_init(S);
    arb_init(q);
    arb_init(ex);
    arb_init(t);
    arb_set_d(t, sigma);
    arb_sqr(t, t, 200);
    arb_add(S, lmin, t, 200);
    arb_set_d(q, l);
    arb_sqr(q, q, 200);
    arb_div(ex, q, S, 200); /* l^2 / lambda_min(S) */
    if (add) {
        arb_add_ui(ex, ex, 1, 200);
    } else {
        arb_add(t, q, t, 200); /* l^2 + sigma^2 */
        arb_div(t, q, t, 200);
        arb_min(ex, ex, t, 200);
        arb_sub_ui(ex, ex, 1, 200);
        arb_neg(ex, ex);
        arb_inv(ex, ex, 200);
    }
    arb_set_d(t, got);
    char *et = arb_get_str(ex, 25, 0);
    cr_assert(other == 1 && arb_ge(t, ex), "%s: the worst pair's covariance %.17g is below the "
              "exact %s", what, got, et);
    arb_set_d(t, got / (1 + TOL_UNIVERSE_ABOVE));
    cr_assert(arb_le(t, ex), "%s: the worst pair's covariance %.17g is far above the exact %s",
              what, got, et);
    flint_free(et);
    arb_clear(S);
    arb_clear(q);
    arb_clear(ex);
    arb_clear(t);
    mech_clear(&s);
}

Test(mechanisms, sketch_universe_bound_is_rounded_outward)
{
    arb_t lmin, a, b, c, t;
    arb_init(lmin);
    arb_init(a);
    arb_init(b);
    arb_init(c);
    arb_init(t);
    arb_set_ui(lmin, 2);
    sketch_universe_case("[[1, 0], [0, 1], [1, 0], [0, 1]]", "remove_one", 1, 1, lmin, "2 I, remove");
    sketch_universe_case("[[1, 0], [0, 1], [1, 0], [0, 1]]",
                         "{relation: add_one, candidates: [[1, 0]]}", 1, 1, lmin, "2 I, add");
    gsl_rng *r = ga_test_rng(31);
    long n = ga_test_count(30);
    for (long k = 0; k < n; k++) {
        /* 5 to 60 rows of two three-digit decimals in [-1, 1] (norm < l = 1.5), sigma a
         * sixteenth (exact in binary and in decimal) */
        size_t m = 5 + gsl_rng_uniform_int(r, 56);
        char rows[4096], *w = rows;
        arb_zero(a);
        arb_zero(b);
        arb_zero(c);
        w += sprintf(w, "[");
        for (size_t i = 0; i < m; i++) {
            long u = (long)gsl_rng_uniform_int(r, 2001) - 1000, v = (long)gsl_rng_uniform_int(r, 2001) - 1000;
            w += sprintf(w, "%s[%s%ld.%03ld, %s%ld.%03ld]", i ? ", " : "", u < 0 ? "-" : "",
                         labs(u) / 1000, labs(u) % 1000, v < 0 ? "-" : "", labs(v) / 1000,
                         labs(v) % 1000);
            arb_set_si(t, u * u); /* the exact sums, in units of 10^-6 */
            arb_add(a, a, t, 200);
            arb_set_si(t, v * v);
            arb_add(c, c, t, 200);
            arb_set_si(t, u * v);
            arb_add(b, b, t, 200);
        }
        sprintf(w, "]");
        /* lambda_min = (a + c - sqrt((a - c)^2 + 4 b^2)) / 2, times 10^-6 */
        arb_sub(t, a, c, 200);
        arb_sqr(t, t, 200);
        arb_sqr(lmin, b, 200);
        arb_mul_2exp_si(lmin, lmin, 2);
        arb_add(t, t, lmin, 200);
        arb_sqrt(t, t, 200);
        arb_add(lmin, a, c, 200);
        arb_sub(lmin, lmin, t, 200);
        arb_mul_2exp_si(lmin, lmin, -1);
        arb_div_ui(lmin, lmin, 1000000, 200);
        char what[64];
        snprintf(what, sizeof what, "random case %ld (%zu rows)", k, m);
        double sigma = (double)(1 + gsl_rng_uniform_int(r, 16)) / 16;
        sketch_universe_case(rows, k % 2 ? "remove_one" : "{relation: add_one, candidates: [[0.5, 0.5]]}",
                             sigma, 1.5, lmin, what);
    }
    gsl_rng_free(r);
    arb_clear(lmin);
    arb_clear(a);
    arb_clear(b);
    arb_clear(c);
    arb_clear(t);
}

/* calibrate's noise parameter is a build option: a rebuild changes the pairs, never what was
 * parsed (the spec's number reads as written, gaussian_pair's written pairs stay) */
Test(mechanisms, rebuilds_leave_the_parsed_spec_as_written)
{
    static const char *gm = "gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, "
                            "sigma: 1.5}\nclaim: {epsilon: 1, delta: 1.0e-5}\n";
    static const char *gp = "gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs:\n"
                            "  - {name: p, x: {mean: [1], cov: [[2]]}, y: {mean: [0], cov: [[2]]}}\n"
                            "claim: {epsilon: 1, delta: 1.0e-5}\n";
    mech_t m;
    char msg[512];
    parse_text(&m, gm, "gm.yaml");
    double s0 = m.set.pairs[0].s_x[0], v;
    for (int k = 0; k < 2; k++) {
        cr_assert(ga_mech_rebuild(&m.set, &m.spec, NULL, 3.0, msg, sizeof msg) == GA_OK, "%s", msg);
        cr_expect(ga_spec_mech_number(&m.spec, "sigma", &v, 1, msg, sizeof msg) == GA_OK && v == 1.5,
                  "rebuild %d: the spec's sigma reads %g, not as written (1.5)", k, v);
        cr_expect(fabs(m.set.pairs[0].s_x[0] - 4 * s0) <= 1e-15 * s0,
                  "rebuild %d: variance %.17g, expected 4 x %.17g", k, m.set.pairs[0].s_x[0], s0);
    }
    mech_clear(&m);
    parse_text(&m, gp, "gp.yaml");
    for (int k = 0; k < 2; k++) {
        cr_assert(ga_mech_rebuild(&m.set, &m.spec, NULL, 2.0, msg, sizeof msg) == GA_OK, "%s", msg);
        cr_expect(m.spec.written.npairs == 1 && m.spec.written.pairs[0].s_x[0] == 2,
                  "rebuild %d: the written pair changed", k);
        cr_expect(m.set.npairs == 1 && m.set.pairs[0].s_x[0] == 8 && !m.set.pairs[0].src,
                  "rebuild %d: the scaled pair has variance %g (expected 8) and %s decimals", k,
                  m.set.pairs[0].s_x[0], m.set.pairs[0].src ? "the written" : "no");
    }
    mech_clear(&m);
}

/* the masked pairs of a spec text: rows (block size) and the two norms of each, in order */
static size_t masked_pairs(ga_masked_input *out, size_t max, const char *yaml)
{
    mech_t m;
    char msg[512];
    ga_build_opts bo = {0};
    cr_assert(ga_mech_parse(&m.spec, &m.set, yaml, strlen(yaml), "b.yaml", NULL, &bo, msg,
                            sizeof msg) == GA_OK, "%s\n%s", msg, yaml);
    size_t k = 0;
    for (size_t i = 0; i < m.set.npairs && k < max; i++)
        if (m.set.pairs[i].masked)
            out[k++] = *m.set.pairs[i].masked;
    mech_clear(&m);
    return k;
}

Test(mechanisms, block_diagonal_masking_is_the_block_of_the_changed_row)
{
    /* blocks [3, 2]: each neighbour's pair is the masked pair of its block alone (the rows of
     * that block as a dataset of their own), and the universe's is the smallest block's; the
     * smallest block's delta dominates a larger one's (a larger block adds common noise) */
    static const char *head = "gaussaudit: 1\nmechanism: {kind: matrix_masking, sigma: 2, "
                              "masking: orthogonal%s}\ndataset: {rows: %s}\nneighbours: %s\n%s";
    static const char *rels[2] = {"zero_out", "{relation: replace_one, candidates: [[0.7]]}"};
    char yaml[600];
    static const struct { const char *blocks, *parts[3]; double smallest; } cfg[] = {
        {", blocks: [3, 2]", {"[[0.5], [0.2], [0.1]]", "[[0.9], [0.3]]", NULL}, 2},
        {", blocks: [1, 2, 2]", {"[[0.5]]", "[[0.2], [0.1]]", "[[0.9], [0.3]]"}, 1},
    };
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 2; r++) {
            snprintf(yaml, sizeof yaml, head, cfg[c].blocks, "[[0.5], [0.2], [0.1], [0.9], [0.3]]",
                     rels[r], "universe: {row_norm_bound: 1}\n");
            ga_masked_input got[16], one[8];
            size_t n = masked_pairs(got, 16, yaml);
            size_t k = 0;
            for (int b = 0; b < 3 && cfg[c].parts[b]; b++) {
                snprintf(yaml, sizeof yaml, head, "", cfg[c].parts[b], rels[r], "");
                size_t nb = masked_pairs(one, 8, yaml);
                for (size_t i = 0; i < nb; i++, k++)
                    cr_expect(k < n && got[k].rows == one[i].rows &&
                                  got[k].norm_x == one[i].norm_x && got[k].norm_y == one[i].norm_y,
                              "blocks%s relation %d, block %d, pair %zu: rows %g norms %g, %g; "
                              "alone: rows %g norms %g, %g", cfg[c].blocks, r, b, i, got[k].rows,
                              got[k].norm_x, got[k].norm_y, one[i].rows, one[i].norm_x,
                              one[i].norm_y);
            }
            cr_expect(n == k + 1 && got[k].rows == cfg[c].smallest && got[k].norm_x == 1 &&
                          got[k].norm_y == 0,
                      "blocks%s relation %d: %zu pairs, the last rows %g norms %g, %g",
                      cfg[c].blocks, r, n, got[k].rows, got[k].norm_x, got[k].norm_y);
        }
    /* post-processing: the universe pair at n = 2 has the larger delta than at n = 3 */
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    double d[2];
    for (int i = 0; i < 2; i++) {
        ga_masked_input in = {2 + i, 2, 1, 0, NULL, NULL, NULL};
        ga_pair *p;
        char msg[256];
        cr_assert(ga_pair_reduce_masked(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_delta D;
        cr_assert(ga_pair_delta(&D, p, 0.5, GA_DELTA_AUTO, NULL, w) == GA_OK);
        d[i] = D.xy.val;
        ga_pair_free(p);
    }
    cr_expect(d[0] > d[1], "delta at n = 2 %.17g, at n = 3 %.17g", d[0], d[1]);
    ga_gchisq_work_free(w);
    /* the blocks must fit the rows */
    static const char *bad[3][2] = {{"[3, 3]", "add up to 6, not to the 5 rows"},
                                    {"[2.5, 2.5]", "whole number"}, {"[]", "empty list"}};
    for (int i = 0; i < 3; i++) {
        char blocks[64];
        snprintf(blocks, sizeof blocks, ", blocks: %s", bad[i][0]);
        snprintf(yaml, sizeof yaml, head, blocks, "[[0.5], [0.2], [0.1], [0.9], [0.3]]",
                 "zero_out", "");
        mech_t m;
        char msg[512] = "";
        ga_build_opts bo = {0};
        int st = ga_mech_parse(&m.spec, &m.set, yaml, strlen(yaml), "b.yaml", NULL, &bo, msg,
                               sizeof msg);
        cr_expect(st == GA_EINVAL && strstr(msg, bad[i][1]), "blocks %s: %s", bad[i][0], msg);
        if (st == GA_OK)
            mech_clear(&m);
    }
}

/* The propose-test-release sketch (mechanism.ptr) on a small dataset against the mechanism
 * simulated with numpy (tests/tools/ptr_mc.py, seed 12345, 2e6 releases per law): per removed
 * row the upper bound in both directions and the best threshold event of the lower bound's
 * statistic (XY), with their standard errors. */
#define PTR_MC_SIGMAS 5.0
#define PTR_LOWER_SHARE 0.8 /* the lower bound's event reaches this share of the best threshold */
Test(mechanisms, ptr_bounds_against_simulation, .timeout = 600)
{
    static const double ref[4][6] = {/* upper xy, se, upper yx, se, lower xy, se */
                                      {0.20314, 0.00020, 0.18357, 0.00015, 0.01568, 0.00029},
                                      {0.27773, 0.00023, 0.26507, 0.00018, 0.00601, 0.00021},
                                      {0.01473, 0.00005, 0, 1e-5, 0.00094, 0.00012},
                                      {0.12252, 0.00016, 0.09901, 0.00010, 0.00991, 0.00027}};
    const char *spec = "gaussaudit: 1\nname: ptr\n"
                       "mechanism: {kind: sketch, columns: 3, ptr: {test_sigma: 1, margin: 0.5, target: 3}}\n"
                       "dataset: {rows: [[1, 0.2], [0.3, 0.9], [0.5, -0.4], [-0.7, 0.6]]}\n"
                       "neighbours: remove_one\nclaim: {epsilon: 0.3, delta: 0.1}\n";
    char path[] = "/tmp/ga_ptrXXXXXX", args[256], *out = NULL, *err = NULL;
    ga_test_temp_spec(path, spec);
    snprintf(args, sizeof args, "delta %s --epsilon 0.3 --format json", path);
    cr_assert(ga_test_run(args, &out, &err) == 0, "%s", err);
    /* the pairs in order: row k's lower bound, then its upper bound */
    const char *at = out;
    for (int k = 0; k < 4; k++) {
        double v[4], e[4]; /* lower xy, yx, upper xy, yx */
        for (int i = 0; i < 4; i++) {
            at = strstr(at, "\"value\":");
            cr_assert(at, "row %d: value %d missing in %s", k + 1, i, out);
            v[i] = strtod(at + 8, NULL);
            at = strstr(at, "\"err\":");
            cr_assert(at);
            e[i] = strtod(at + 6, NULL);
        }
        const double *r = ref[k];
        cr_expect(fabs(v[2] - r[0]) <= PTR_MC_SIGMAS * r[1] + e[2] &&
                      fabs(v[3] - r[2]) <= PTR_MC_SIGMAS * r[3] + e[3],
                  "row %d: upper %.6g, %.6g against simulated %.6g, %.6g", k + 1, v[2], v[3], r[0], r[2]);
        cr_expect(v[0] <= r[4] + PTR_MC_SIGMAS * r[5] + e[0] &&
                      v[0] >= PTR_LOWER_SHARE * r[4] - PTR_MC_SIGMAS * r[5] - e[0],
                  "row %d: lower %.6g against the best simulated threshold %.6g", k + 1, v[0], r[4]);
    }
    free(out);
    free(err);
    /* the claim lies between the bounds: undecided, not "no violation" */
    snprintf(args, sizeof args, "audit %s --format json --quiet", path);
    ga_test_run(args, &out, &err);
    cr_expect(strstr(out, "\"verdict\": \"INCONCLUSIVE\""), "%s", out);
    free(out);
    free(err);
    unlink(path);
}

Test(mechanisms, ptr_refuses_what_it_does_not_audit)
{
    static const char *const bad[][2] = {
        {"ptr: {test_sigma: 1, margin: 0.5}", "mechanism.ptr"},
        {"ptr: {test_sigma: 0, margin: 0.5, target: 3}", "the test's noise must be positive"},
        {"ptr: {test_sigma: 1, margin: 0.5, target: 3, scal: 1}", "scal"},
        {"ptr: {test_sigma: 1, margin: 0.5, target: 3}, subsampling: {poisson: 0.1}", "neither subsampling"},
        {"ptr: {test_sigma: 1, test_laplace: 1, margin: 0.5, target: 3}", "one of them"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char spec[512], path[] = "/tmp/ga_ptrXXXXXX", args[256], *out = NULL, *err = NULL;
        snprintf(spec, sizeof spec, "gaussaudit: 1\nname: ptr\nmechanism: {kind: sketch, "
                 "columns: 3, %s}\ndataset: {rows: [[1, 0.2], [0.3, 0.9]]}\nneighbours: "
                 "remove_one\nclaim: {epsilon: 0.3, delta: 0.1}\n", bad[k][0]);
        ga_test_temp_spec(path, spec);
        snprintf(args, sizeof args, "audit %s --quiet", path);
        int st = ga_test_run(args, &out, &err);
        cr_expect(st != 0 && strstr(err, bad[k][1]), "case %zu: status %d, %s", k, st, err);
        free(out);
        free(err);
        unlink(path);
    }
    /* a universe: no proven worst case */
    char path[] = "/tmp/ga_ptrXXXXXX", args[256], *out = NULL, *err = NULL;
    ga_test_temp_spec(path, "gaussaudit: 1\nname: ptr\nmechanism: {kind: sketch, columns: 3, "
                            "ptr: {test_sigma: 1, margin: 0.5, target: 3}}\ndataset: {rows: "
                            "[[1, 0.2], [0.3, 0.9]]}\nuniverse: {row_norm_bound: 1}\n"
                            "claim: {epsilon: 0.3, delta: 0.1}\n");
    snprintf(args, sizeof args, "audit %s --quiet", path);
    cr_expect(ga_test_run(args, &out, &err) != 0 && strstr(err, "universe"), "%s", err);
    free(out);
    free(err);
    unlink(path);
}

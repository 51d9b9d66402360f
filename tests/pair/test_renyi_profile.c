/*
 * test_renyi_profile.c - Renyi divergences from privacy profiles (pair/renyi_profile.c) of
 * matrix masking's noncentral chi-square pairs, synthetic points and a subsampled sketch step.
 * References, independent of the profile route:
 * - D_alpha = log int f_a^alpha f_b^{1-alpha} / (alpha - 1) by GSL quadrature of the densities
 *   (the noncentral chi-square density in its Bessel form; the density of S C by a nested
 *   quadrature; the sketch's mixture against the chi-square density);
 * - the sketch's D_alpha(X||Y) at integer alpha by the binomial expansion in closed form, and
 *   its infinity exactly where (alpha - 1) m^2 >= 1;
 * - data processing: synthetic points <= the masked pair of the same noncentralities (S is
 *   computed from the model) <= the Gaussian alpha (sqrt la - sqrt lb)^2 / 2, on seeded
 *   random cases;
 * - the generic routine on a Gaussian mean shift, whose D_alpha = alpha mu^2 / 2 exactly;
 * - certified intervals contain the references.
 */
#include "gaussaudit.h"
#include "pair/cert_internal.h"
#include "pair/loss.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_QUAD 1e-7   /* relative, against GSL quadrature of the densities */
#define TOL_ORDER 1e-9  /* an inequality (data processing) may fail by this much relative */
#define TOL_EXACT 1e-9  /* against a closed form */

static ga_pair *sketch(double q, double sigma, double r)
{
    ga_subsampled_input in = {q, sigma, 1, 0, NULL, NULL, r, 0, NULL, NULL};
    ga_pair *p;
    char msg[256];
    cr_assert(ga_pair_reduce_subsampled(&p, &in, 1, msg, sizeof msg) == GA_OK, "%s", msg);
    return p;
}

/* log int f_a^alpha f_b^{1 - alpha} for densities given as a function of one parameter */
typedef struct {
    double (*f)(double x, double lam, void *aux);
    void *aux;
    double la, lb, alpha;
} ren_t;

static double ren_f(double x, void *v)
{
    ren_t *r = v;
    double a = r->f(x, r->la, r->aux), b = r->f(x, r->lb, r->aux);
    return a > 0 && b > 0 ? exp(r->alpha * log(a) + (1 - r->alpha) * log(b)) : 0;
}

static double quad_renyi(ren_t *r, double split)
{
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(4000);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_function F = {ren_f, r};
    double a, b, e;
    gsl_integration_qags(&F, 0, split, 0, 1e-12, 4000, w, &a, &e);
    gsl_integration_qagiu(&F, split, 0, 1e-12, 4000, w, &b, &e);
    gsl_set_error_handler(old);
    gsl_integration_workspace_free(w);
    return log(a + b) / (r->alpha - 1);
}

static double ncx2_f(double w, double lam, void *aux)
{
    return ga_test_ncx2_pdf(*(double *)aux, lam, w);
}

/* ------------------------------------------------------------ masked */

/* the reference D_alpha of direction dir of the masked case c = {rows, sigma, |x|, |x'|,
 * alpha}: the quadrature of the noncentral chi-square densities, split past their bulk */
static double masked_ref(const double *c, int dir)
{
    double nu = c[0], la = pow(c[2] / c[1], 2), lb = pow(c[3] / c[1], 2);
    ren_t r = {ncx2_f, &nu, dir ? lb : la, dir ? la : lb, c[4]};
    return quad_renyi(&r, nu + la + lb + 10 * sqrt(2 * nu));
}

Test(renyi_profile, masked_against_quadrature_of_the_densities)
{
    static const double cases[][5] = { /* rows, sigma, |x|, |x'|, alpha */
        {100, 0.9, 1, 0, 2}, {100, 0.9, 1, 0, 3.5}, {10, 1, 0.5, 1.5, 1.5}, {5, 0.5, 0, 1, 2},
        {1, 1, 1, 0, 2}, {40, 2, 3, 1, 8}, {300, 0.4, 1, 0, 1.1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const double *c = cases[k];
        ga_pair *p = ga_test_masked_pair(c[0], c[1], c[2], c[3]);
        ga_result xy, yx;
        cr_assert(ga_pair_renyi(&xy, &yx, p, c[4]) == GA_OK, "case %zu", k);
        double la = pow(c[2] / c[1], 2), lb = pow(c[3] / c[1], 2);
        for (int dir = 0; dir < 2; dir++) {
            double ref = masked_ref(c, dir);
            const ga_result *g = dir ? &yx : &xy;
            cr_expect(fabs(g->val - ref) <= g->err + TOL_QUAD * ref + 1e-14,
                      "case %zu (rows %g sigma %g norms %g %g alpha %g) dir %d: %.17g +- %.2g, "
                      "quadrature %.17g", k, c[0], c[1], c[2], c[3], c[4], dir, g->val, g->err, ref);
            /* data processing: at most the Gaussian's alpha (sqrt la - sqrt lb)^2 / 2 */
            double gauss = c[4] * pow(sqrt(la) - sqrt(lb), 2) / 2;
            cr_expect(g->val <= gauss * (1 + TOL_ORDER), "case %zu dir %d: %.17g above the "
                      "Gaussian %.17g", k, dir, g->val, gauss);
        }
        ga_pair_free(p);
    }
}

/* certified intervals contain the quadrature reference; a few nodes suffice for 1e-4 */
Test(renyi_profile, masked_certified_contains_the_reference)
{
    static const double cases[][5] = {{100, 0.9, 1, 0, 2}, {10, 1, 0.5, 1.5, 3}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const double *c = cases[k];
        ga_pair *p = ga_test_masked_pair(c[0], c[1], c[2], c[3]);
        ga_cert_opts o;
        ga_cert_opts_init(&o);
        o.digits = 4;
        char at[32];
        snprintf(at, sizeof at, "%g", c[4]);
        ga_interval cx, cy;
        int st = ga_pair_renyi_cert(&cx, &cy, p, NULL, NULL, at, &o);
        cr_assert(st == GA_OK, "case %zu: status %d, [%.17g, %.17g] [%.17g, %.17g]", k, st, cx.lo,
                  cx.hi, cy.lo, cy.hi);
        for (int dir = 0; dir < 2; dir++) {
            double ref = masked_ref(c, dir);
            const ga_interval *iv = dir ? &cy : &cx;
            cr_expect(iv->lo <= ref * (1 + TOL_QUAD) && ref * (1 - TOL_QUAD) <= iv->hi &&
                          iv->hi - iv->lo <= 1e-4 * iv->hi,
                      "case %zu dir %d: [%.17g, %.17g], quadrature %.17g", k, dir, iv->lo, iv->hi, ref);
        }
        ga_pair_free(p);
    }
}

/* ------------------------------------------------------------ synthetic points */

typedef struct {
    double d, m;
    gsl_integration_workspace *w;
} syn_t;

/* the density of R = S C at x (tests/support.c) */
static double syn_f(double x, double lam, void *aux)
{
    syn_t *s = aux;
    return ga_test_synth_pdf(s->d, s->m, lam, x, 1e-12, s->w);
}

Test(renyi_profile, synthetic_against_nested_quadrature_and_data_processing)
{
    static const double cases[][6] = { /* dim, points, sigma, |theta|, |theta'|, alpha */
        {2, 2, 1, 1, 0, 2}, {4, 1, 1, 2, 1, 3}, {12, 5, 1, 1, 0, 1.5},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const double *c = cases[k];
        ga_pair *p = ga_test_synth_pair(c[0], c[1], c[2], c[3], c[4]);
        ga_result xy, yx;
        cr_assert(ga_pair_renyi(&xy, &yx, p, c[5]) == GA_OK, "case %zu", k);
        double la = pow(c[3] / c[2], 2), lb = pow(c[4] / c[2], 2);
        syn_t s = {c[0], c[1], gsl_integration_workspace_alloc(2000)};
        for (int dir = 0; dir < 2; dir++) {
            ren_t r = {syn_f, &s, dir ? lb : la, dir ? la : lb, c[5]};
            double ref = quad_renyi(&r, (c[0] + la + lb) * c[1] * 4);
            const ga_result *g = dir ? &yx : &xy;
            cr_expect(fabs(g->val - ref) <= g->err + 1e-6 * ref + 1e-12,
                      "case %zu (dim %g points %g sigma %g norms %g %g alpha %g) dir %d: %.17g +- "
                      "%.2g, nested quadrature %.17g", k, c[0], c[1], c[2], c[3], c[4], c[5], dir,
                      g->val, g->err, ref);
        }
        gsl_integration_workspace_free(s.w);
        ga_pair_free(p);
    }
    /* seeded random cases: synthetic <= masked(rows = dim) <= Gaussian, both directions */
    gsl_rng *rng = ga_test_rng(401);
    long n = ga_test_count(4);
    for (long it = 0; it < n; it++) {
        double d = 2 * (1 + gsl_rng_uniform_int(rng, 8)), pts = 1 + gsl_rng_uniform_int(rng, 6);
        double sg = 0.5 + 2 * gsl_rng_uniform(rng), nx = 3 * gsl_rng_uniform(rng),
               ny = 3 * gsl_rng_uniform(rng), al = 1.2 + 6 * gsl_rng_uniform(rng);
        ga_pair *s = ga_test_synth_pair(d, pts, sg, nx, ny), *m = ga_test_masked_pair(d, sg, nx, ny);
        ga_result sx, sy, mx, my;
        cr_assert(ga_pair_renyi(&sx, &sy, s, al) == GA_OK, "case %ld", it);
        cr_assert(ga_pair_renyi(&mx, &my, m, al) == GA_OK, "case %ld", it);
        double gauss = al * pow(nx - ny, 2) / (2 * sg * sg);
        cr_expect(sx.val <= mx.val * (1 + TOL_ORDER) + sx.err + mx.err &&
                      sy.val <= my.val * (1 + TOL_ORDER) + sy.err + my.err &&
                      mx.val <= gauss * (1 + TOL_ORDER) && my.val <= gauss * (1 + TOL_ORDER),
                  "case %ld (dim %g points %g sigma %.17g norms %.17g %.17g alpha %.17g): "
                  "synthetic %.17g %.17g, masked %.17g %.17g, Gaussian %.17g", it, d, pts, sg, nx,
                  ny, al, sx.val, sy.val, mx.val, my.val, gauss);
        ga_pair_free(s);
        ga_pair_free(m);
    }
    gsl_rng_free(rng);
}

Test(renyi_profile, synthetic_certified_contains_the_estimate)
{
    ga_pair *p = ga_test_synth_pair(4, 1, 1, 2, 1);
    ga_result xy, yx;
    cr_assert(ga_pair_renyi(&xy, &yx, p, 3) == GA_OK);
    ga_cert_opts o;
    ga_cert_opts_init(&o);
    o.digits = 3;
    ga_interval cx, cy;
    int st = ga_pair_renyi_cert(&cx, &cy, p, NULL, NULL, "3", &o);
    cr_assert(st == GA_OK, "status %d", st);
    cr_expect(cx.lo <= xy.val + xy.err && xy.val - xy.err <= cx.hi && cy.lo <= yx.val + yx.err &&
                  yx.val - yx.err <= cy.hi,
              "[%.17g, %.17g] vs %.17g, [%.17g, %.17g] vs %.17g", cx.lo, cx.hi, xy.val, cy.lo,
              cy.hi, yx.val);
    ga_pair_free(p);
}

/* ------------------------------------------------------------ subsampled sketch step */

typedef struct {
    double q, lam, r;
} sk_t;

/* the densities of |x|^2 under the mixture (lam = 1) and under N(0, I_r) (lam = 0) */
static double sk_f(double s, double which, void *aux)
{
    sk_t *k = aux;
    double p0 = gsl_ran_chisq_pdf(s, k->r);
    if (which == 0)
        return p0;
    return (1 - k->q) * p0 + k->q * gsl_ran_chisq_pdf(s / (1 + k->lam), k->r) / (1 + k->lam);
}

/* E_Y[(1 - q + q g)^alpha], integer alpha: sum_k C(alpha, k) (1 - q)^{alpha-k} q^k E[g^k],
 * E[g^k] = (1 + lam)^{-k r/2} ((1 + lam)/(1 - (k - 1) lam))^{r/2} */
static double sk_binomial(const sk_t *k, int alpha)
{
    double s = 0;
    for (int j = 0; j <= alpha; j++) {
        double lg = -0.5 * j * k->r * log1p(k->lam) + 0.5 * k->r * (log1p(k->lam) - log1p(-(j - 1) * k->lam));
        s += gsl_sf_choose((unsigned)alpha, (unsigned)j) * pow(1 - k->q, alpha - j) * pow(k->q, j) * exp(lg);
    }
    return log(s) / (alpha - 1);
}

Test(renyi_profile, sketch_against_the_binomial_expansion_and_quadrature)
{
    static const double cases[][4] = { /* q, sigma, r, alpha */
        {0.1, 1.2, 10, 2}, {0.5, 2, 50, 3}, {0.02, 1.5, 3, 2}, {1, 1.5, 20, 2}, {0.3, 2, 5, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const double *c = cases[i];
        ga_pair *p = sketch(c[0], c[1], c[2]);
        sk_t k = {c[0], 1 / (c[1] * c[1]), c[2]};
        ga_result xy, yx;
        cr_assert(ga_pair_renyi(&xy, &yx, p, c[3]) == GA_OK, "case %zu", i);
        double bin = sk_binomial(&k, (int)c[3]);
        cr_expect(fabs(xy.val - bin) <= xy.err + TOL_EXACT * bin,
                  "case %zu (q %g sigma %g r %g alpha %g): D(X||Y) %.17g +- %.2g, binomial %.17g",
                  i, c[0], c[1], c[2], c[3], xy.val, xy.err, bin);
        ren_t r = {sk_f, &k, 0, 1, c[3]};
        double ref = quad_renyi(&r, c[2] * (1 + k.lam) * 4);
        cr_expect(fabs(yx.val - ref) <= yx.err + TOL_QUAD * ref,
                  "case %zu (q %g sigma %g r %g alpha %g): D(Y||X) %.17g +- %.2g, quadrature %.17g",
                  i, c[0], c[1], c[2], c[3], yx.val, yx.err, ref);
        ga_pair_free(p);
    }
    /* infinite exactly from (alpha - 1) m^2 >= 1: sigma 1, alpha 2 is the boundary */
    ga_pair *p = sketch(0.1, 1, 5);
    ga_result xy, yx;
    cr_assert(ga_pair_renyi(&xy, &yx, p, 2) == GA_OK);
    cr_expect(isinf(xy.val) && isfinite(yx.val), "%.17g %.17g", xy.val, yx.val);
    cr_assert(ga_pair_renyi(&xy, &yx, p, 1.5) == GA_OK);
    cr_expect(isfinite(xy.val) && xy.val > 0, "%.17g", xy.val);
    ga_interval cx, cy;
    ga_cert_opts o;
    ga_cert_opts_init(&o);
    o.digits = 3;
    cr_expect(ga_pair_renyi_cert(&cx, &cy, p, NULL, NULL, "2", &o) == GA_OK);
    cr_expect(isinf(cx.lo) && isfinite(cy.hi), "[%g, %g] [%g, %g]", cx.lo, cx.hi, cy.lo, cy.hi);
    ga_pair_free(p);
}

/* ------------------------------------------------------------ the generic route */

/* a Gaussian mean shift N(mu, 1) vs N(0, 1): log E_P e^{lam L} = lam (lam + 1) mu^2 / 2 */
static double g_mu = 1.3;
static double g_sup(const ga_pair *p, int dir)
{
    (void)p, (void)dir;
    return INFINITY;
}
static double g_cap(const ga_pair *p, int dir, double lam)
{
    (void)p, (void)dir;
    return 0.5 * lam * (lam + 1) * g_mu * g_mu;
}
static int g_cap_arb(arb_t res, const ga_pair *p, int dir, const arb_t lam, slong prec)
{
    (void)p, (void)dir;
    arb_t t;
    arb_init(t);
    arb_set_d(t, g_mu);
    arb_mul(t, t, t, prec);
    arb_mul(t, t, lam, prec);
    arb_add_ui(res, lam, 1, prec);
    arb_mul(res, res, t, prec);
    arb_mul_2exp_si(res, res, -1);
    arb_clear(t);
    return GA_OK;
}

Test(renyi_profile, gaussian_mean_shift_in_closed_form)
{
    double mx[1] = {g_mu}, my[1] = {0}, s[1] = {1};
    ga_pair_input in = {1, mx, my, s, s, 1, {NULL}};
    ga_pair *p;
    char msg[256];
    cr_assert(ga_pair_reduce(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    pc_renyi_tails tl = {g_sup, g_cap, g_cap_arb, NULL, NULL, 1025};
    const double alphas[] = {1.05, 1.5, 2, 4, 10};
    for (size_t k = 0; k < sizeof alphas / sizeof *alphas; k++) {
        ga_result xy, yx;
        cr_assert(pc_renyi_profile(&xy, &yx, p, alphas[k], &tl) == GA_OK, "alpha %g", alphas[k]);
        double want = alphas[k] * g_mu * g_mu / 2;
        cr_expect(fabs(xy.val - want) <= xy.err + TOL_EXACT * want &&
                      fabs(yx.val - want) <= yx.err + TOL_EXACT * want && xy.err < 1e-8 * want,
                  "alpha %g: %.17g +- %.2g, %.17g +- %.2g, exact %.17g", alphas[k], xy.val,
                  xy.err, yx.val, yx.err, want);
    }
    ga_cert_opts o;
    ga_cert_opts_init(&o);
    o.digits = 4;
    ga_interval cx, cy;
    int st = pc_renyi_profile_cert(&cx, &cy, p, &in, NULL, "2", &tl, &o);
    double want = g_mu * g_mu;
    cr_expect(st == GA_OK && cx.lo <= want && want <= cx.hi && cy.lo <= want && want <= cy.hi,
              "status %d: [%.17g, %.17g] [%.17g, %.17g], exact %.17g", st, cx.lo, cx.hi, cy.lo,
              cy.hi, want);
    ga_pair_free(p);
}

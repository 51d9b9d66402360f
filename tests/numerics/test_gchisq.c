/*
 * test_gchisq.c - the generalized chi-square type and the double-precision engines.
 * References: tests/data/gchisq.json (30-digit values), closed forms (exponential
 * sums for even degrees of freedom, erf/erfc, incomplete gamma), and agreement between
 * engines. Random loops are seeded; GA_TEST_SCALE scales their counts.
 */
#include "gaussaudit.h"
#include "numerics/numerics.h"
#include "tests/support.h"

#include <arb.h>
#include <arb_hypgeom.h>
#include <criterion/criterion.h>
#include <float.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* named tolerances */
#define TOL_REF_ABS 1e-13  /* both tails against the reference values */
#define TOL_REF_REL 1e-9   /* the smaller tail, relative */
#define TOL_FAR_REL 1e-9   /* far tails */
#define TOL_DEEP_REL 1e-8  /* tails down to 1e-300 */
#define TOL_PROP_REL 1e-11 /* invariance properties of the contour engine, relative */

static ga_gchisq *classical(size_t n, const double *w, const double *dof, const double *nc,
                            double sigma, double offset)
{
    ga_gchisq *q = ga_gchisq_alloc(n);
    char msg[256];
    cr_assert(q != NULL);
    int st = ga_gchisq_set_classical(q, n, w, dof, nc, sigma, offset, msg, sizeof msg);
    cr_assert(st == GA_OK, "set_classical failed: %s", msg);
    return q;
}

static int eval(ga_gchisq_prob *p, const ga_gchisq *q, double x, int method)
{
    ga_gchisq_opts o;
    ga_gchisq_opts_init(&o);
    o.method = method;
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    cr_assert(w != NULL);
    int st = ga_gchisq_prob_eval(p, q, x, &o, w);
    ga_gchisq_work_free(w);
    return st;
}

static void print_form(char *buf, size_t len, const ga_gchisq *q)
{
    size_t k = (size_t)snprintf(buf, len, "offset=%.17g sigma2=%.17g terms:", q->offset,
                                q->sigma2);
    for (size_t j = 0; j < q->n && k < len; j++)
        k += (size_t)snprintf(buf + k, len - k, " (a=%.17g nu=%.17g b2=%.17g)", q->t[j].a,
                              q->t[j].nu, q->t[j].b2);
}

/* ------------------------------------------------------------ shared references */

static void check_reference(int method, int strict)
{
    ga_doc doc;
    ga_test_load_ref(&doc, "gchisq.json");
    const ga_node *cases = ga_node_get(doc.root, "cases");
    cr_assert(cases && cases->kind == GA_NODE_SEQ && cases->n >= 10);
    for (size_t i = 0; i < cases->n; i++) {
        const ga_node *c = cases->kids[i];
        double *w, *dof, *nc;
        size_t n = ga_test_doubles(&w, ga_node_get(c, "weights"));
        cr_assert(ga_test_doubles(&dof, ga_node_get(c, "dof")) == n);
        cr_assert(ga_test_doubles(&nc, ga_node_get(c, "nc")) == n);
        double sigma = ga_test_num(ga_node_get(c, "sigma"));
        double off = ga_test_num(ga_node_get(c, "offset"));
        double x = ga_test_num(ga_node_get(c, "x"));
        double sf = ga_test_num(ga_node_get(c, "sf")), cdf = ga_test_num(ga_node_get(c, "cdf"));
        const char *name = ga_node_get(c, "name")->text;
        ga_gchisq *q = classical(n, w, dof, nc, sigma, off);
        ga_gchisq_prob p;
        int st = eval(&p, q, x, method);
        double esf = fabs(p.sf.val - sf), ecdf = fabs(p.cdf.val - cdf);
        /* every engine: the error estimate covers the true error */
        cr_expect(esf <= p.sf.err + 4 * DBL_EPSILON * sf && ecdf <= p.cdf.err + 4 * DBL_EPSILON * cdf,
                  "%s %s x=%g: error estimate too small: sf %.17g (ref %.17g, err %.3g est %.3g), "
                  "cdf %.17g (ref %.17g, err %.3g est %.3g), status %d",
                  ga_method_name(method), name, x, p.sf.val, sf, esf, p.sf.err, p.cdf.val, cdf,
                  ecdf, p.cdf.err, st);
        if (strict) {
            cr_expect(st == GA_OK, "%s %s x=%g: status %d (%s)", ga_method_name(method), name,
                      x, st, ga_strerror(st));
            cr_expect(esf <= TOL_REF_ABS && ecdf <= TOL_REF_ABS,
                      "%s %s x=%g: sf %.17g vs %.17g, cdf %.17g vs %.17g",
                      ga_method_name(method), name, x, p.sf.val, sf, p.cdf.val, cdf);
            double small = fmin(sf, cdf), esmall = sf < cdf ? esf : ecdf;
            cr_expect(esmall <= TOL_REF_REL * small, "%s %s x=%g: smaller tail rel err %.3g",
                      ga_method_name(method), name, x, esmall / small);
        }
        ga_gchisq_free(q);
        free(w);
        free(dof);
        free(nc);
    }
    ga_doc_clear(&doc);
}

Test(reference, auto_engine) { check_reference(GA_METHOD_AUTO, 1); }
Test(reference, contour_engine) { check_reference(GA_METHOD_CONTOUR, 1); }
/* Imhof and Davies are absolute methods whose truncation is slow for few degrees of
 * freedom: they must be honest (error estimate covers the error), not necessarily tight */
Test(reference, imhof_engine_honest) { check_reference(GA_METHOD_IMHOF, 0); }
Test(reference, davies_engine_honest) { check_reference(GA_METHOD_DAVIES, 0); }

/* ------------------------------------------------------------ far tails */

Test(tails, published_far_tails)
{
    /* existing libraries return 0 or negative numbers here */
    double w1 = 0.5;
    ga_gchisq *q1 = classical(1, &w1, NULL, NULL, 0, 0);
    double w3[3] = {6, 3, 1};
    ga_gchisq *q3 = classical(3, w3, NULL, NULL, 0, 0);
    int methods[2] = {GA_METHOD_AUTO, GA_METHOD_CONTOUR};
    for (int m = 0; m < 2; m++) {
        ga_gchisq_prob p;
        eval(&p, q1, 17.29879, methods[m]);
        double ref = 4.054099791138347e-9;
        cr_expect(fabs(p.sf.val - ref) <= TOL_FAR_REL * ref, "%s: P[0.5 chi2_1 > 17.29879] = %.17g",
                  ga_method_name(methods[m]), p.sf.val);
        eval(&p, q3, 200, methods[m]);
        ref = 1.2247827606700466e-8;
        cr_expect(fabs(p.sf.val - ref) <= TOL_FAR_REL * ref, "%s: P[6,3,1 chi2_1 > 200] = %.17g",
                  ga_method_name(methods[m]), p.sf.val);
    }
    ga_gchisq_free(q1);
    ga_gchisq_free(q3);
}

/* P[sum_i a_i chi2_2 > x] for distinct a_i > 0: a hypoexponential tail,
 * sum_i prod_{j != i} a_i / (a_i - a_j) exp(-x / (2 a_i)), on the log scale. */
static double log_hypoexp_tail(const double *a, int n, double x)
{
    double terms[8], mx = -INFINITY;
    for (int i = 0; i < n; i++) {
        double c = 1;
        for (int j = 0; j < n; j++)
            if (j != i)
                c *= a[i] / (a[i] - a[j]);
        terms[i] = c;
        mx = fmax(mx, -x / (2 * a[i]));
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += terms[i] * exp(-x / (2 * a[i]) - mx);
    return mx + log(s);
}

Test(tails, deep_tails_to_1e300)
{
    double a[3] = {1.0, 0.5, 0.25}, dof[3] = {2, 2, 2};
    ga_gchisq *q = classical(3, a, dof, NULL, 0, 0);
    double xs[] = {50, 200, 700, 1300, 1370};
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++) {
        double lref = log_hypoexp_tail(a, 3, xs[i]);
        ga_gchisq_prob p;
        int st = eval(&p, q, xs[i], GA_METHOD_AUTO);
        cr_expect(st == GA_OK, "x=%g status %d", xs[i], st);
        cr_expect(fabs(p.log_sf - lref) <= TOL_DEEP_REL, "x=%g: log sf %.17g vs %.17g", xs[i],
                  p.log_sf, lref);
        if (lref > -700) {
            double ref = exp(lref);
            cr_expect(fabs(p.sf.val - ref) <= TOL_DEEP_REL * ref, "x=%g: sf %.17g vs %.17g",
                      xs[i], p.sf.val, ref);
            /* the reference itself is only good to about eps * |exponent| = eps x/(2 min a) */
            double referr = 8 * DBL_EPSILON * xs[i] / (2 * 0.25) * ref;
            cr_expect(fabs(p.sf.val - ref) <= p.sf.err + referr,
                      "x=%g: sf err estimate %.3g < error %.3g", xs[i], p.sf.err,
                      fabs(p.sf.val - ref));
        }
    }
    /* the mirrored form: lower tail of -Q */
    double na[3] = {-1.0, -0.5, -0.25};
    ga_gchisq *qn = classical(3, na, dof, NULL, 0, 0);
    double lref = log_hypoexp_tail(a, 3, 1300);
    ga_gchisq_prob p;
    eval(&p, qn, -1300, GA_METHOD_AUTO);
    cr_expect(fabs(p.log_cdf - lref) <= TOL_DEEP_REL, "mirror: log cdf %.17g vs %.17g",
              p.log_cdf, lref);
    /* a single chi2_2: P = exp(-x/2) exactly, down to 1e-300 */
    double one = 1, two = 2;
    ga_gchisq *q1 = classical(1, &one, &two, NULL, 0, 0);
    for (double x = 10; x <= 1380; x += 170) {
        int ms[2] = {GA_METHOD_AUTO, GA_METHOD_CONTOUR};
        for (int m = 0; m < 2; m++) {
            eval(&p, q1, x, ms[m]);
            cr_expect(fabs(p.log_sf + x / 2) <= TOL_DEEP_REL * x / 2 + 1e-14,
                      "%s chi2_2 x=%g: log sf %.17g vs %.17g", ga_method_name(ms[m]), x,
                      p.log_sf, -x / 2);
            if (x < 1380)
                cr_expect(fabs(p.sf.val - exp(-x / 2)) <= TOL_DEEP_REL * exp(-x / 2),
                          "%s chi2_2 x=%g: sf %.17g vs %.17g", ga_method_name(ms[m]), x,
                          p.sf.val, exp(-x / 2));
        }
    }
    /* normal plus a small chi-square, deep on both sides vs a contour/closed comparison */
    ga_gchisq_free(q);
    ga_gchisq_free(qn);
    ga_gchisq_free(q1);
}

Test(tails, normal_deep)
{
    ga_gchisq *q = classical(0, NULL, NULL, NULL, 2.0, 1.0);
    double zs[] = {-37, -20, -3, 0, 3, 20, 37};
    for (size_t i = 0; i < sizeof zs / sizeof *zs; i++) {
        double x = 1.0 + 2.0 * zs[i];
        ga_gchisq_prob pa, pc;
        eval(&pa, q, x, GA_METHOD_AUTO);
        eval(&pc, q, x, GA_METHOD_CONTOUR);
        cr_expect(fabs(pa.log_sf - pc.log_sf) <= TOL_DEEP_REL * fmax(1, fabs(pa.log_sf)),
                  "z=%g log sf closed %.17g contour %.17g", zs[i], pa.log_sf, pc.log_sf);
        cr_expect(fabs(pa.log_cdf - pc.log_cdf) <= TOL_DEEP_REL * fmax(1, fabs(pa.log_cdf)),
                  "z=%g log cdf closed %.17g contour %.17g", zs[i], pa.log_cdf, pc.log_cdf);
        double ref = 0.5 * erfc(zs[i] / sqrt(2.0));
        /* the reference's argument z/sqrt(2) is rounded: relative effect about z^2 eps */
        double rtol = 1e-14 + 2 * zs[i] * zs[i] * DBL_EPSILON;
        cr_expect(fabs(pa.sf.val - ref) <= rtol * ref + 1e-300, "z=%g sf %.17g vs erfc %.17g",
                  zs[i], pa.sf.val, ref);
    }
    ga_gchisq_free(q);
}

Test(tails, tiny_x_one_dof)
{
    /* P[0.2 chi2_1 <= 1e-5] = P[|Z| <= sqrt(5e-5)] = erf(sqrt(2.5e-5)) */
    double w = 0.2;
    ga_gchisq *q = classical(1, &w, NULL, NULL, 0, 0);
    double ref = erf(sqrt(2.5e-5));
    int ms[2] = {GA_METHOD_AUTO, GA_METHOD_CONTOUR};
    for (int m = 0; m < 2; m++) {
        ga_gchisq_prob p;
        int st = eval(&p, q, 1e-5, ms[m]);
        cr_expect(st == GA_OK, "%s status %d", ga_method_name(ms[m]), st);
        cr_expect(fabs(p.cdf.val - ref) <= 1e-12 * ref, "%s: cdf %.17g vs %.17g",
                  ga_method_name(ms[m]), p.cdf.val, ref);
        cr_expect(fabs(p.sf.val - (1 - ref)) <= 1e-14, "%s: sf %.17g", ga_method_name(ms[m]),
                  p.sf.val);
    }
    ga_gchisq_free(q);
}

/* ------------------------------------------------------------ random forms */

static ga_gchisq *random_form(gsl_rng *r, size_t maxn)
{
    size_t n = 1 + gsl_rng_uniform_int(r, maxn);
    ga_gchisq *q = ga_gchisq_alloc(n);
    int indefinite = gsl_rng_uniform(r) < 0.5;
    for (size_t j = 0; j < n; j++) {
        double a = 0.1 + 4.9 * gsl_rng_uniform(r);
        if (indefinite && gsl_rng_uniform(r) < 0.4)
            a = -a;
        double nu = 1 + gsl_rng_uniform_int(r, 3);
        double b2 = gsl_rng_uniform(r) < 0.5 ? 0 : 4 * a * a * 3 * gsl_rng_uniform(r);
        ga_gchisq_add_term(q, a, nu, b2);
    }
    if (gsl_rng_uniform(r) < 0.3)
        q->sigma2 = 2 * gsl_rng_uniform(r);
    q->offset = gsl_rng_uniform(r) < 0.5 ? 0 : 4 * (gsl_rng_uniform(r) - 0.5);
    return q;
}

static double random_x(gsl_rng *r, const ga_gchisq *q)
{
    double m, v;
    ga_gchisq_moments(&m, &v, q);
    return m + sqrt(v) * (6 * gsl_rng_uniform(r) - 3);
}

Test(properties, engines_agree)
{
    gsl_rng *r = ga_test_rng(20261121);
    long n = ga_test_count(60);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    char form[4096];
    for (long k = 0; k < n; k++) {
        ga_gchisq *q = random_form(r, 8);
        double x = random_x(r, q);
        ga_gchisq_prob pc, pi, pd;
        ga_gchisq_opts o;
        ga_gchisq_opts_init(&o);
        o.method = GA_METHOD_CONTOUR;
        int sc = ga_gchisq_prob_eval(&pc, q, x, &o, w);
        o.method = GA_METHOD_IMHOF;
        o.max_evals = 20000;
        ga_gchisq_prob_eval(&pi, q, x, &o, w);
        o.method = GA_METHOD_DAVIES;
        ga_gchisq_prob_eval(&pd, q, x, &o, w);
        print_form(form, sizeof form, q);
        cr_expect(sc == GA_OK, "case %ld contour status %d x=%.17g %s", k, sc, x, form);
        cr_expect(fabs(pc.sf.val - pi.sf.val) <= pc.sf.err + pi.sf.err + 1e-15,
                  "case %ld contour %.17g (%.2g) vs imhof %.17g (%.2g) x=%.17g %s", k, pc.sf.val,
                  pc.sf.err, pi.sf.val, pi.sf.err, x, form);
        cr_expect(fabs(pc.cdf.val - pd.cdf.val) <= pc.cdf.err + pd.cdf.err + 1e-15,
                  "case %ld contour %.17g (%.2g) vs davies %.17g (%.2g) x=%.17g %s", k,
                  pc.cdf.val, pc.cdf.err, pd.cdf.val, pd.cdf.err, x, form);
        cr_expect(fabs(pc.cdf.val + pc.sf.val - 1) <= pc.cdf.err + pc.sf.err + 2 * DBL_EPSILON,
                  "case %ld cdf+sf-1 = %.3g x=%.17g %s", k, pc.cdf.val + pc.sf.val - 1, x, form);
        ga_gchisq_free(q);
    }
    ga_gchisq_work_free(w);
    gsl_rng_free(r);
}

/* A form of `terms` central and noncentral terms of both signs (the bench's forms), with a
 * normal part of random size in 3 of 10 forms when `normal` is set. */
static ga_gchisq *many_terms(gsl_rng *r, size_t terms, int normal)
{
    ga_gchisq *q = ga_gchisq_alloc(terms);
    cr_assert(q != NULL);
    for (size_t j = 0; j < terms; j++) {
        double a = 0.1 + gsl_rng_uniform(r);
        if (gsl_rng_uniform(r) < 0.4)
            a = -a;
        ga_gchisq_add_term(q, a, 1 + gsl_rng_uniform_int(r, 2),
                           gsl_rng_uniform(r) < 0.5 ? 0 : a * a * gsl_rng_uniform(r));
    }
    if (normal && gsl_rng_uniform(r) < 0.3)
        q->sigma2 = terms * gsl_rng_uniform(r);
    return q;
}

/* auto by cost: forms of 16..300 terms at points from the bulk to the
 * tails and two targets; auto meets its relative target in both tails (its error estimate
 * within it, its value within the error estimates of the contour engine at 1e-14), takes
 * Davies in the bulk and the contour engine in the tails */
Test(properties, auto_by_cost)
{
    gsl_rng *r = ga_test_rng(20261123);
    long n = ga_test_count(40);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    const double zs[] = {0, 0.3, 1, 2, 4}, targets[] = {1e-13, 1e-10};
    int davies = 0, contour_in_tail = 0, tails = 0;
    char form[4096];
    for (long k = 0; k < n; k++) {
        size_t terms = 16 + gsl_rng_uniform_int(r, 285);
        ga_gchisq *q = many_terms(r, terms, 0);
        double m, v;
        ga_gchisq_moments(&m, &v, q);
        double x = m + zs[k % 5] * sqrt(v) * (gsl_rng_uniform(r) < 0.5 ? -1 : 1);
        double target = targets[(k / 5) % 2];
        ga_gchisq_prob pa, pc;
        ga_gchisq_opts o;
        ga_gchisq_opts_init(&o);
        o.method = GA_METHOD_CONTOUR;
        o.epsrel = 1e-14;
        ga_gchisq_prob_eval(&pc, q, x, &o, w);
        o.method = GA_METHOD_AUTO;
        o.epsrel = target;
        int st = ga_gchisq_prob_eval(&pa, q, x, &o, w);
        snprintf(form, sizeof form, "%zu terms, x = mean %+g sd, target %g", terms,
                 (x - m) / sqrt(v), target);
        cr_expect(st == GA_OK, "case %ld: status %d, %s", k, st, form);
        /* (Davies' answer is taken only when its bound meets the target: checked here) */
        cr_expect(pa.method != GA_METHOD_DAVIES ||
                      (pa.sf.err <= target * pa.sf.val && pa.cdf.err <= target * pa.cdf.val),
                  "case %ld: error estimates %.3g %.3g above the target for %.17g %.17g (%s, %s)",
                  k, pa.sf.err, pa.cdf.err, pa.sf.val, pa.cdf.val,
                  pa.method == GA_METHOD_DAVIES ? "davies" : "contour", form);
        cr_expect(fabs(pa.sf.val - pc.sf.val) <= pa.sf.err + pc.sf.err &&
                      fabs(pa.cdf.val - pc.cdf.val) <= pa.cdf.err + pc.cdf.err,
                  "case %ld: auto (%s) sf %.17g cdf %.17g, contour %.17g %.17g (%s)", k,
                  pa.method == GA_METHOD_DAVIES ? "davies" : "contour", pa.sf.val, pa.cdf.val,
                  pc.sf.val, pc.cdf.val, form);
        davies += pa.method == GA_METHOD_DAVIES;
        if (fmin(pc.sf.val, pc.cdf.val) < 1e-4) {
            tails++;
            contour_in_tail += pa.method != GA_METHOD_DAVIES;
        }
        ga_gchisq_free(q);
    }
    cr_expect(davies > 0, "auto never took Davies' method in %ld cases", n);
    cr_expect(contour_in_tail == tails, "auto took Davies' method in a tail below 1e-4");
    ga_gchisq_work_free(w);
    gsl_rng_free(r);
}

static void fini_caches(void);

/* The trapezoidal rule on the line through the saddle point (shifted.c), with no node cap:
 * on forms of 16 to 3000 terms from the bulk to tails of 1e-60, wherever it answers (GA_OK or
 * GA_ETOL) its value is within its error estimate plus the contour engine's (asked for 1e-14)
 * in both tails, it answers 1 to 10 standard deviations from the mean at a relative 1e-10,
 * and the two tails add up to 1. */
Test(properties, shifted_rule_honest)
{
    gsl_rng *r = ga_test_rng(20261128);
    long n = ga_test_count(30);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    const double zs[] = {0.3, 1, 2, 4, 8, 16};
    int ok = 0;
    char form[256];
    for (long k = 0; k < n; k++) {
        size_t terms = 16 + (size_t)exp(gsl_rng_uniform(r) * log(3000.0 / 16));
        ga_gchisq *q = many_terms(r, terms, 1);
        double m, v;
        ga_gchisq_moments(&m, &v, q);
        double z = zs[k % 6] * (k % 12 < 6 ? 1 : -1);
        double x = m + z * sqrt(v);
        ga_gchisq_normalize(q, 0);
        x = ga_gchisq_rescale(q, x);
        ga_gchisq_opts o;
        ga_gchisq_opts_init(&o);
        o.epsrel = k % 3 == 2 ? 1e-12 : 1e-10;
        snprintf(form, sizeof form, "case %ld: %zu terms, x = mean %+g sd, target %g", k, terms,
                 z, o.epsrel);
        ga_gchisq_prob ps = {0}, pc;
        int st = ga_engine_shifted_capped(&ps, q, x, &o, 100000);
        o.epsrel = 1e-14;
        ga_engine_contour(&pc, q, x, &o, &w->quad);
        if (st == GA_OK || st == GA_ETOL) {
            ok += st == GA_OK;
            cr_expect(fabs(ps.sf.val - pc.sf.val) <= ps.sf.err + pc.sf.err &&
                          fabs(ps.cdf.val - pc.cdf.val) <= ps.cdf.err + pc.cdf.err,
                      "%s: shifted sf %.17g +- %.3g cdf %.17g +- %.3g, contour %.17g +- %.3g, "
                      "%.17g +- %.3g", form, ps.sf.val, ps.sf.err, ps.cdf.val, ps.cdf.err,
                      pc.sf.val, pc.sf.err, pc.cdf.val, pc.cdf.err);
            cr_expect(fabs(ps.sf.val + ps.cdf.val - 1) <= DBL_EPSILON, "%s: tails add to %.17g",
                      form, ps.sf.val + ps.cdf.val);
        } else {
            cr_expect(st == GA_EMAXITER, "%s: status %d", form, st);
            cr_expect(fabs(z) < 1 || fabs(z) > 10 || o.epsrel < 1e-10,
                      "%s: no answer in the range it serves", form);
        }
        ga_gchisq_free(q);
    }
    cr_expect(ok >= n / 3, "the shifted rule met its target in %d of %ld cases only", ok, n);
    ga_gchisq_work_free(w);
    gsl_rng_free(r);
}

/* The same rule against certified values (Arb): forms of 40 and 400 terms, both tails. */
Test(properties, shifted_rule_certified, .fini = fini_caches)
{
    gsl_rng *r = ga_test_rng(20261129);
    const size_t sizes[] = {40, 400};
    const double zs[] = {2, -3, 6};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            ga_gchisq *q = many_terms(r, sizes[i], 1);
            double m, v;
            ga_gchisq_moments(&m, &v, q);
            char xs[64];
            snprintf(xs, sizeof xs, "%.17g", m + zs[j] * sqrt(v));
            double x = strtod(xs, NULL);
            ga_gchisq_exact *e = ga_gchisq_exact_alloc();
            cr_assert(e != NULL && ga_gchisq_exact_set_form(e, q) == GA_OK);
            ga_cert_opts co;
            ga_cert_opts_init(&co);
            co.digits = 18;
            ga_gchisq_cert c;
            cr_assert(ga_gchisq_prob_cert(&c, e, xs, &co) == GA_OK);
            ga_gchisq_normalize(q, 0);
            double xn = ga_gchisq_rescale(q, x);
            ga_gchisq_opts o;
            ga_gchisq_opts_init(&o);
            o.epsrel = 1e-10;
            ga_gchisq_prob p = {0};
            int st = ga_engine_shifted_capped(&p, q, xn, &o, 100000);
            cr_expect(st == GA_OK, "%zu terms, z %g: status %d", sizes[i], zs[j], st);
            cr_expect(p.sf.val + p.sf.err >= c.sf.lo && p.sf.val - p.sf.err <= c.sf.hi &&
                          p.cdf.val + p.cdf.err >= c.cdf.lo && p.cdf.val - p.cdf.err <= c.cdf.hi,
                      "%zu terms, z %g: sf %.17g +- %.3g vs [%.17g, %.17g], cdf %.17g +- %.3g "
                      "vs [%.17g, %.17g]", sizes[i], zs[j], p.sf.val, p.sf.err, c.sf.lo,
                      c.sf.hi, p.cdf.val, p.cdf.err, c.cdf.lo, c.cdf.hi);
            ga_gchisq_exact_free(e);
            ga_gchisq_free(q);
        }
    gsl_rng_free(r);
}

static void expect_same(const ga_gchisq_prob *a, const ga_gchisq_prob *b, const char *what,
                        long k, double x, const char *form)
{
    cr_expect(fabs(a->sf.val - b->sf.val) <= TOL_PROP_REL * fmax(a->sf.val, 1e-300) + a->sf.err + b->sf.err &&
                  fabs(a->cdf.val - b->cdf.val) <= TOL_PROP_REL * fmax(a->cdf.val, 1e-300) + a->cdf.err + b->cdf.err,
              "case %ld %s changed the answer: sf %.17g vs %.17g, cdf %.17g vs %.17g, x=%.17g %s",
              k, what, a->sf.val, b->sf.val, a->cdf.val, b->cdf.val, x, form);
}

Test(properties, invariances)
{
    gsl_rng *r = ga_test_rng(4242);
    long n = ga_test_count(40);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_gchisq_opts o;
    ga_gchisq_opts_init(&o);
    char form[4096];
    for (long k = 0; k < n; k++) {
        ga_gchisq *q = random_form(r, 6);
        double x = random_x(r, q);
        print_form(form, sizeof form, q);
        ga_gchisq_prob p0, p;
        o.method = k % 2 ? GA_METHOD_CONTOUR : GA_METHOD_AUTO;
        ga_gchisq_prob_eval(&p0, q, x, &o, w);
        ga_gchisq *t = ga_gchisq_alloc(q->n * 4);
        /* scaling Q and x by s */
        double s = exp(4 * gsl_rng_uniform(r) - 2);
        ga_gchisq_copy(t, q);
        for (size_t j = 0; j < t->n; j++) {
            t->t[j].a *= s;
            t->t[j].b2 *= s * s;
        }
        t->offset *= s;
        t->sigma2 *= s * s;
        ga_gchisq_prob_eval(&p, t, s * x, &o, w);
        expect_same(&p0, &p, "scaling", k, x, form);
        /* permuting the terms */
        ga_gchisq_copy(t, q);
        for (size_t j = t->n; j > 1; j--) {
            size_t i = gsl_rng_uniform_int(r, j);
            ga_gchisq_term tmp = t->t[i];
            t->t[i] = t->t[j - 1];
            t->t[j - 1] = tmp;
        }
        ga_gchisq_prob_eval(&p, t, x, &o, w);
        expect_same(&p0, &p, "permutation", k, x, form);
        /* splitting dof-k terms into k dof-1 terms (b2 shared out unevenly) */
        ga_gchisq_zero(t);
        t->offset = q->offset;
        t->sigma2 = q->sigma2;
        for (size_t j = 0; j < q->n; j++) {
            double left = q->t[j].b2;
            for (int i = 0; i < (int)q->t[j].nu; i++) {
                double part = i + 1 == (int)q->t[j].nu ? left : left * gsl_rng_uniform(r);
                left -= part;
                ga_gchisq_add_term(t, q->t[j].a, 1, part);
            }
        }
        ga_gchisq_prob_eval(&p, t, x, &o, w);
        expect_same(&p0, &p, "splitting", k, x, form);
        /* adding a constant */
        double c = 10 * (gsl_rng_uniform(r) - 0.5);
        ga_gchisq_copy(t, q);
        t->offset += c;
        ga_gchisq_prob_eval(&p, t, x + c, &o, w);
        expect_same(&p0, &p, "shift", k, x, form);
        /* monotone in x */
        ga_gchisq_prob_eval(&p, q, x + 0.1, &o, w);
        cr_expect(p.cdf.val >= p0.cdf.val - p.cdf.err - p0.cdf.err,
                  "case %ld cdf not monotone: %.17g at x, %.17g at x+0.1 %s", k, p0.cdf.val,
                  p.cdf.val, form);
        ga_gchisq_free(t);
        ga_gchisq_free(q);
    }
    ga_gchisq_work_free(w);
    gsl_rng_free(r);
}

/* ------------------------------------------------------------ the type */

Test(form, classical_conversion_and_moments)
{
    double w[2] = {2, -3}, dof[2] = {3, 1}, nc[2] = {0.5, 2};
    ga_gchisq *q = classical(2, w, dof, nc, 1.5, 0.25);
    cr_expect(q->n == 2 && q->t[0].a == 2 && q->t[0].nu == 3 && q->t[0].b2 == 4 * 4 * 0.5);
    cr_expect(q->offset == 0.25 + 2 * 0.5 + (-3) * 2);
    double m, v;
    ga_gchisq_moments(&m, &v, q);
    /* E[w chi2(k, l)] = w (k + l); Var = 2 w^2 (k + 2 l) */
    cr_expect(fabs(m - (0.25 + 2 * 3.5 - 3 * 3)) < 1e-14, "mean %.17g", m);
    cr_expect(fabs(v - (2.25 + 8 * 4 + 18 * 5)) < 1e-12, "var %.17g", v);
    ga_gchisq_free(q);
}

Test(form, normalize_merges_equal_coefficients)
{
    ga_gchisq *q = ga_gchisq_alloc(1);
    ga_gchisq_add_term(q, 2.0, 1, 0.5);
    ga_gchisq_add_term(q, 0.0, 1, 3.0); /* a normal component */
    ga_gchisq_add_term(q, -1.0, 2, 0);
    ga_gchisq_add_term(q, 2.0, 3, 1.5);
    ga_gchisq_add_term(q, 2.0 * (1 + 1e-13), 1, 0);
    ga_gchisq_normalize(q, 0);
    cr_expect(q->n == 3, "exact merge left %zu terms", q->n);
    cr_expect(q->sigma2 == 3.0);
    cr_expect(q->t[0].a == -1.0 && q->t[1].a == 2.0 && q->t[1].nu == 4 && q->t[1].b2 == 2.0);
    ga_gchisq_normalize(q, 1e-10);
    cr_expect(q->n == 2 && q->t[1].nu == 5, "tolerance merge left %zu terms", q->n);
    ga_gchisq_free(q);
}

Test(form, validation_messages)
{
    ga_gchisq *q = ga_gchisq_alloc(2);
    char msg[256];
    double w[2] = {1, 2}, bad[2] = {1, -1};
    cr_expect(ga_gchisq_set_classical(q, 2, w, bad, NULL, 0, 0, msg, sizeof msg) == GA_EINVAL);
    cr_expect(strstr(msg, "dof[1]") != NULL, "message: %s", msg);
    cr_expect(ga_gchisq_set_classical(q, 2, w, NULL, bad, 0, 0, msg, sizeof msg) == GA_EINVAL);
    cr_expect(strstr(msg, "nc[1]") != NULL, "message: %s", msg);
    double nanw[2] = {1, NAN};
    cr_expect(ga_gchisq_set_classical(q, 2, nanw, NULL, NULL, 0, 0, msg, sizeof msg) == GA_EINVAL);
    cr_expect(strstr(msg, "weights[1]") != NULL, "message: %s", msg);
    cr_expect(ga_gchisq_set_classical(q, 0, NULL, NULL, NULL, 0, 0, msg, sizeof msg) == GA_EINVAL);
    cr_expect(strstr(msg, "empty") != NULL, "message: %s", msg);
    cr_expect(ga_gchisq_set_classical(q, 2, w, NULL, NULL, -1, 0, msg, sizeof msg) == GA_EINVAL);
    cr_expect(ga_gchisq_add_term(q, 1, 0, 0) == GA_EINVAL);
    cr_expect(ga_gchisq_add_term(q, INFINITY, 1, 0) == GA_EINVAL);
    ga_gchisq_set_classical(q, 2, w, NULL, NULL, 0, 0, msg, sizeof msg);
    ga_gchisq_prob p;
    cr_expect(eval(&p, q, NAN, GA_METHOD_AUTO) == GA_EINVAL);
    cr_expect(eval(&p, q, 1.0, GA_METHOD_CLOSED) == GA_EDOM);
    ga_gchisq_free(q);
}

Test(form, degenerate_exact)
{
    ga_gchisq *q = ga_gchisq_alloc(1);
    q->offset = 2.0; /* point mass */
    ga_gchisq_prob p;
    cr_expect(eval(&p, q, 1.0, GA_METHOD_AUTO) == GA_OK && p.cdf.val == 0 && p.sf.val == 1);
    cr_expect(eval(&p, q, 2.0, GA_METHOD_AUTO) == GA_OK && p.cdf.val == 1 && p.sf.val == 0);
    /* below the support of a positive definite form */
    double w[2] = {1, 2};
    ga_gchisq *d = classical(2, w, NULL, NULL, 0, 0);
    cr_expect(eval(&p, d, -0.5, GA_METHOD_CONTOUR) == GA_OK && p.cdf.val == 0 && p.sf.val == 1);
    ga_gchisq_free(q);
    ga_gchisq_free(d);
}

/* Tails below the double range: the value underflows to 0 with error
 * 0, and log_sf is the log of the tail (not the Chernoff bound, not -DBL_MAX): chi2_1 with
 * P[chi2_1 > x] = erfc(sqrt(x/2)) (log from Arb at 128 bits), and chi2_2 with exactly -x/2,
 * for every engine that claims relative accuracy. */
static void fini_caches(void)
{
    ga_cleanup(); /* Arb's constant caches (the reference values use Arb), for valgrind */
}

Test(gchisq, log_tails_below_the_double_range, .fini = fini_caches)
{
    double one = 1, two = 2;
    ga_gchisq *q1 = classical(1, &one, NULL, NULL, 0, 0), *q2 = classical(1, &one, &two, NULL, 0, 0);
    static const double xs[] = {1500, 2000, 1e4, 1e5};
    int ms[3] = {GA_METHOD_AUTO, GA_METHOD_CONTOUR, GA_METHOD_CLOSED};
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++) {
        arb_t r;
        arb_init(r);
        arb_set_d(r, xs[i] / 2);
        arb_sqrt(r, r, 128);
        arb_hypgeom_erfc(r, r, 128);
        arb_log(r, r, 128);
        double lref = arf_get_d(arb_midref(r), ARF_RND_NEAR);
        arb_clear(r);
        for (int m = 0; m < 3; m++) {
            ga_gchisq_prob p;
            eval(&p, q1, xs[i], ms[m]);
            cr_expect(p.sf.val == 0 && p.sf.err == 0, "%s x=%g: sf %g +- %g", ga_method_name(ms[m]),
                      xs[i], p.sf.val, p.sf.err);
            cr_expect(fabs(p.log_sf - lref) <= 1e-12 * fabs(lref), "%s chi2_1 x=%g: log sf %.17g "
                      "vs %.17g", ga_method_name(ms[m]), xs[i], p.log_sf, lref);
            eval(&p, q2, xs[i], ms[m]);
            cr_expect(fabs(p.log_sf + xs[i] / 2) <= 1e-12 * xs[i] / 2, "%s chi2_2 x=%g: log sf "
                      "%.17g vs %.17g", ga_method_name(ms[m]), xs[i], p.log_sf, -xs[i] / 2);
        }
    }
    ga_gchisq_free(q1);
    ga_gchisq_free(q2);
}

/* The saddle point K'(s) = x: a form of one term and no normal part has it in closed form
 * (numerics/contour.c), solved to rounding, where Newton's iteration stops at
 * |K'(s) - x| <= 1e-3 sqrt(K''(s)); every other form (here the same law as two terms, which
 * takes the iteration) meets that test. Random a of both signs, nu, b2 (half of them 0),
 * offsets, and x from near the mean to far in both tails. A wrong root of the quadratic
 * would leave the closed form to the iteration, which fails the tight test. */
#define TOL_SADDLE_CLOSED 1e-9 /* |K'(s) - x| / (|x - offset| + sqrt(K'')) */
Test(gchisq, saddle_point_closed_form_and_newton)
{
    gsl_rng *r = ga_test_rng(777);
    long n = ga_test_count(2000);
    for (long k = 0; k < n; k++) {
        double a = (gsl_rng_uniform(r) < 0.5 ? -1 : 1) * exp(6 * gsl_rng_uniform(r) - 3);
        double nu = 1 + gsl_rng_uniform_int(r, 60), off = 4 * gsl_rng_uniform(r) - 2;
        double b2 = gsl_rng_uniform(r) < 0.5 ? 0 : exp(8 * gsl_rng_uniform(r) - 4);
        ga_gchisq *q = ga_gchisq_alloc(1), *q2 = ga_gchisq_alloc(2);
        cr_assert(q && q2 && ga_gchisq_add_term(q, a, nu, b2) == GA_OK);
        cr_assert(ga_gchisq_add_term(q2, a, nu / 2, b2 / 2) == GA_OK &&
                  ga_gchisq_add_term(q2, a, nu / 2, b2 / 2) == GA_OK);
        q->offset = q2->offset = off;
        double mean, var;
        ga_gchisq_moments(&mean, &var, q);
        /* x at -4..+40 sd, inside the support (beyond the drift on the bounded side) */
        double z = 44 * gsl_rng_uniform(r) - 4, x = mean + z * sqrt(var);
        double drift = ga_gchisq_drift(q);
        if ((a > 0 && x <= drift) || (a < 0 && x >= drift))
            x = mean + 0.5 * (drift - mean) * gsl_rng_uniform(r);
        if (x == mean) {
            ga_gchisq_free(q);
            ga_gchisq_free(q2);
            continue;
        }
        double s, s2, k1, k2;
        cr_assert(ga_gchisq_saddle(&s, q, x) == GA_OK, "case %ld: a=%.17g nu=%g b2=%.17g off=%.17g "
                  "x=%.17g", k, a, nu, b2, off, x);
        cr_assert(ga_gchisq_cgf(NULL, &k1, &k2, q, s) == GA_OK);
        cr_assert(fabs(k1 - x) <= TOL_SADDLE_CLOSED * (fabs(x - off) + sqrt(k2)),
                  "case %ld (one term): K'(s) - x = %.3g at s = %.17g; a=%.17g nu=%g b2=%.17g "
                  "off=%.17g x=%.17g", k, k1 - x, s, a, nu, b2, off, x);
        cr_assert(ga_gchisq_saddle(&s2, q2, x) == GA_OK);
        cr_assert(ga_gchisq_cgf(NULL, &k1, &k2, q2, s2) == GA_OK);
        cr_assert(fabs(k1 - x) <= 1e-3 * sqrt(k2) * (1 + 1e-12) ||
                  fabs(s2 - s) <= 1e-9 * fabs(s),
                  "case %ld (two terms): K'(s) - x = %.3g, sqrt(K'') = %.3g; one term's s = "
                  "%.17g, two terms' %.17g; a=%.17g nu=%g b2=%.17g off=%.17g x=%.17g", k,
                  k1 - x, sqrt(k2), s, s2, a, nu, b2, off, x);
        ga_gchisq_free(q);
        ga_gchisq_free(q2);
    }
    gsl_rng_free(r);
}

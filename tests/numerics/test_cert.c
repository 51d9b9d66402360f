/*
 * test_cert.c - certified generalized chi-square probabilities (Arb).
 * References: tests/data/gchisq.json (30-digit values), exact closed forms evaluated
 * in ball arithmetic (exp(-x/2) for chi2_2, exact decimal inputs), the double-precision
 * engines (agreement within their error estimates), and the certified path itself at two
 * precisions (overlap).
 */
#include "gaussaudit.h"
#include "numerics/arb.h"
#include "tests/support.h"

#include <arb.h>
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fini_caches(void)
{
    ga_cleanup();
}
TestSuite(cert, .fini = fini_caches);

#define REF_DIGITS 20        /* intervals narrower than 1e-20 with --digits 20 */
#define TAIL_REL_WIDTH 1e-15 /* the far tails, relative width */

/* ball [lo, hi] from the certified decimal strings */
static void interval_ball(arb_t b, const char *lo, const char *hi)
{
    arb_t l, h;
    arb_init(l);
    arb_init(h);
    cr_assert(arb_set_str(l, lo, 256) == 0 && arb_set_str(h, hi, 256) == 0, "bad bounds %s %s",
              lo, hi);
    arb_union(b, l, h, 256);
    arb_clear(l);
    arb_clear(h);
}

/* does [lo, hi] contain the reference given to `refdigits` significant digits? */
static int contains_ref(const char *lo, const char *hi, const char *ref)
{
    arb_t b, r;
    arb_init(b);
    arb_init(r);
    interval_ball(b, lo, hi);
    arb_set_str(r, ref, 256);
    /* the reference is rounded to its last printed digit: widen by half a unit of it */
    size_t sig = 0;
    for (const char *p = ref; *p && *p != 'e' && *p != 'E'; p++)
        if (*p >= '0' && *p <= '9')
            sig += sig || *p != '0';
    arb_t u;
    arb_init(u);
    arb_abs(u, r);
    arb_mul_2exp_si(u, u, 0);
    mag_t m;
    mag_init(m);
    arb_get_mag(m, u);
    arb_t ten;
    arb_init(ten);
    arb_set_ui(ten, 10);
    arb_pow_ui(ten, ten, sig, 256);
    arb_div(u, u, ten, 256);
    arb_mul_ui(u, u, 10, 256); /* one unit in the last place, generous */
    arb_add_error(r, u);
    int ok = arb_overlaps(b, r);
    arb_clear(b);
    arb_clear(r);
    arb_clear(u);
    arb_clear(ten);
    mag_clear(m);
    return ok;
}

static double width(const char *lo, const char *hi)
{
    return strtod(hi, NULL) - strtod(lo, NULL);
}

/* The exact decimal expansion of the double nearest to the text (glibc prints it exactly). */
static char *binary64_text(const char *text)
{
    char *buf = malloc(1024);
    cr_assert(buf != NULL);
    snprintf(buf, 1024, "%.780g", strtod(text, NULL));
    return buf;
}

/*
 * The shared reference values were computed for the binary64 values of the JSON inputs,
 * not for the decimals: with exact decimals, case L1 (weights 0.4, 0.1, nc 0.6, 0.8) moves
 * by 1.6e-17 relative, and with the binary64 values all 22 reference digits agree. So this
 * test feeds the exact expansions of the parsed doubles.
 */
Test(cert, reference_cases_20_digits)
{
    ga_doc doc;
    ga_test_load_ref(&doc, "gchisq.json");
    const ga_node *cases = ga_node_get(doc.root, "cases");
    ga_gchisq_exact *q = ga_gchisq_exact_alloc();
    ga_cert_opts o;
    ga_cert_opts_init(&o);
    o.digits = REF_DIGITS;
    for (size_t i = 0; i < cases->n; i++) {
        const ga_node *c = cases->kids[i];
        const ga_node *ws = ga_node_get(c, "weights"), *ds = ga_node_get(c, "dof"),
                      *ns = ga_node_get(c, "nc");
        char *w[16], *d[16], *nc[16];
        for (size_t j = 0; j < ws->n; j++) {
            w[j] = binary64_text(ws->kids[j]->text);
            d[j] = binary64_text(ds->kids[j]->text);
            nc[j] = binary64_text(ns->kids[j]->text);
        }
        char msg[256], *sig = binary64_text(ga_node_get(c, "sigma")->text),
                       *off = binary64_text(ga_node_get(c, "offset")->text),
                       *x = binary64_text(ga_node_get(c, "x")->text);
        int st = ga_gchisq_exact_set_classical(q, ws->n, (const char *const *)w,
                                               (const char *const *)d, (const char *const *)nc,
                                               sig, off, msg, sizeof msg);
        cr_assert(st == GA_OK, "%s", msg);
        for (size_t j = 0; j < ws->n; j++) {
            free(w[j]);
            free(d[j]);
            free(nc[j]);
        }
        free(sig);
        free(off);
        const char *name = ga_node_get(c, "name")->text;
        const char *sf = ga_node_get(c, "sf")->text, *cdf = ga_node_get(c, "cdf")->text;
        ga_gchisq_cert r;
        st = ga_gchisq_prob_cert(&r, q, x, &o);
        cr_expect(st == GA_OK, "%s x=%s: status %d", name, x, st);
        cr_expect(contains_ref(r.sf_lo, r.sf_hi, sf), "%s x=%s: sf [%s, %s] excludes %s", name, x,
                  r.sf_lo, r.sf_hi, sf);
        cr_expect(contains_ref(r.cdf_lo, r.cdf_hi, cdf), "%s x=%s: cdf [%s, %s] excludes %s",
                  name, x, r.cdf_lo, r.cdf_hi, cdf);
        cr_expect(width(r.sf_lo, r.sf_hi) < 1e-20 && width(r.cdf_lo, r.cdf_hi) < 1e-20,
                  "%s x=%s: too wide: sf [%s, %s] cdf [%s, %s]", name, x, r.sf_lo, r.sf_hi,
                  r.cdf_lo, r.cdf_hi);
        /* the double enclosures are consistent with the strings */
        cr_expect(r.sf.lo <= strtod(sf, NULL) && strtod(sf, NULL) <= r.sf.hi + 1e-16,
                  "%s: double interval [%.17g, %.17g]", name, r.sf.lo, r.sf.hi);
        free(x);
    }
    ga_gchisq_exact_free(q);
    ga_doc_clear(&doc);
}

Test(cert, far_tails_relative_width)
{
    struct {
        const char *w, *x, *ref;
    } cases[] = {
        {"0.5", "17.29879", "4.054099791138347e-9"},
        {"6,3,1", "200", "1.2247827606700466e-8"},
    };
    for (size_t i = 0; i < 2; i++) {
        size_t n = 0;
        char *buf = strdup(cases[i].w);
        const char *w[4];
        for (char *s = strtok(buf, ","); s; s = strtok(NULL, ","))
            w[n++] = s;
        ga_gchisq_exact *q = ga_gchisq_exact_alloc();
        char msg[200];
        cr_assert(ga_gchisq_exact_set_classical(q, n, w, NULL, NULL, NULL, NULL, msg, 200) == 0);
        ga_gchisq_cert r;
        int st = ga_gchisq_prob_cert(&r, q, cases[i].x, NULL);
        cr_expect(st == GA_OK, "status %d", st);
        double lo = strtod(r.sf_lo, NULL), hi = strtod(r.sf_hi, NULL);
        cr_expect((hi - lo) / lo < TAIL_REL_WIDTH, "%s at %s: [%s, %s]", cases[i].w, cases[i].x,
                  r.sf_lo, r.sf_hi);
        cr_expect(contains_ref(r.sf_lo, r.sf_hi, cases[i].ref), "%s at %s: [%s, %s] vs %s",
                  cases[i].w, cases[i].x, r.sf_lo, r.sf_hi, cases[i].ref);
        ga_gchisq_exact_free(q);
        free(buf);
    }
}

Test(cert, exact_decimal_inputs)
{
    /* 0.1 chi2_2 > 0.2 has probability exp(-1) exactly; through the double 0.1 the answer
     * would differ in the 17th digit, which a 30-digit interval detects */
    const char *w[1] = {"0.1"}, *d[1] = {"2"};
    ga_gchisq_exact *q = ga_gchisq_exact_alloc();
    char msg[200];
    cr_assert(ga_gchisq_exact_set_classical(q, 1, w, d, NULL, NULL, NULL, msg, 200) == 0);
    ga_cert_opts o;
    ga_cert_opts_init(&o);
    o.digits = 30;
    ga_gchisq_cert r;
    cr_assert(ga_gchisq_prob_cert(&r, q, "0.2", &o) == GA_OK);
    arb_t b, e;
    arb_init(b);
    arb_init(e);
    interval_ball(b, r.sf_lo, r.sf_hi);
    arb_set_si(e, -1);
    arb_exp(e, e, 256);
    cr_expect(arb_contains(b, e), "[%s, %s] does not contain exp(-1)", r.sf_lo, r.sf_hi);
    /* and the double 0.1 gives a law whose answer is NOT exp(-1) at this width */
    ga_gchisq *qd = ga_gchisq_alloc(1);
    ga_gchisq_add_term(qd, 0.1, 2, 0);
    ga_gchisq_exact_set_form(q, qd);
    cr_assert(ga_gchisq_prob_cert(&r, q, "0.2", &o) == GA_OK);
    interval_ball(b, r.sf_lo, r.sf_hi);
    cr_expect(!arb_contains(b, e), "double 0.1 gave [%s, %s]", r.sf_lo, r.sf_hi);
    arb_clear(b);
    arb_clear(e);
    ga_gchisq_free(qd);
    ga_gchisq_exact_free(q);
}

Test(cert, chi2_2_deep_tail_exact)
{
    const char *w[1] = {"1"}, *d[1] = {"2"};
    ga_gchisq_exact *q = ga_gchisq_exact_alloc();
    char msg[200];
    cr_assert(ga_gchisq_exact_set_classical(q, 1, w, d, NULL, NULL, NULL, msg, 200) == 0);
    const char *xs[] = {"3", "100", "1300"};
    for (int i = 0; i < 3; i++) {
        ga_gchisq_cert r;
        cr_assert(ga_gchisq_prob_cert(&r, q, xs[i], NULL) == GA_OK);
        arb_t b, e;
        arb_init(b);
        arb_init(e);
        interval_ball(b, r.sf_lo, r.sf_hi);
        arb_set_str(e, xs[i], 256);
        arb_mul_2exp_si(e, e, -1);
        arb_neg(e, e);
        arb_exp(e, e, 256);
        cr_expect(arb_contains(b, e), "x=%s: [%s, %s] excludes exp(-x/2)", xs[i], r.sf_lo,
                  r.sf_hi);
        arb_clear(b);
        arb_clear(e);
    }
    ga_gchisq_exact_free(q);
}

Test(cert, normal_and_support_ends)
{
    ga_gchisq_exact *q = ga_gchisq_exact_alloc();
    char msg[200];
    cr_assert(ga_gchisq_exact_set_classical(q, 0, NULL, NULL, NULL, "2", "1", msg, 200) == 0);
    ga_gchisq_cert r;
    cr_assert(ga_gchisq_prob_cert(&r, q, "7", NULL) == GA_OK); /* z = 3 */
    cr_expect(r.sf.lo <= 0.5 * erfc(3 / sqrt(2.0)) * (1 + 1e-15) &&
                  0.5 * erfc(3 / sqrt(2.0)) * (1 - 1e-15) <= r.sf.hi,
              "normal: [%.17g, %.17g]", r.sf.lo, r.sf.hi);
    const char *w[2] = {"1", "2"}, *nc[2] = {"0", "0.5"};
    cr_assert(ga_gchisq_exact_set_classical(q, 2, w, NULL, nc, NULL, NULL, msg, 200) == 0);
    /* support end m = offset - sum b2/(4a) = 1 - 4*4*0.5/8 = 0 for this form */
    cr_assert(ga_gchisq_prob_cert(&r, q, "-0.5", NULL) == GA_OK);
    cr_expect(r.cdf.lo == 0 && r.cdf.hi == 0 && r.sf.lo == 1 && r.sf.hi == 1);
    ga_gchisq_exact_free(q);
}

Test(cert, precision_cap_reports_status_and_valid_interval)
{
    const char *w[3] = {"6", "3", "1"};
    ga_gchisq_exact *q = ga_gchisq_exact_alloc();
    char msg[200];
    cr_assert(ga_gchisq_exact_set_classical(q, 3, w, NULL, NULL, NULL, NULL, msg, 200) == 0);
    ga_cert_opts o;
    ga_cert_opts_init(&o);
    o.digits = 40;
    o.max_prec = 64;
    ga_gchisq_cert r;
    cr_expect(ga_gchisq_prob_cert(&r, q, "20", &o) == GA_EPREC);
    cr_expect(contains_ref(r.sf_lo, r.sf_hi, "0.1239590741623263023639"), "[%s, %s]", r.sf_lo,
              r.sf_hi);
    ga_gchisq_exact_free(q);
}

Test(cert, input_errors_name_the_argument)
{
    ga_gchisq_exact *q = ga_gchisq_exact_alloc();
    char msg[200];
    const char *w[2] = {"1", "abc"}, *good[2] = {"1", "2"}, *bad[2] = {"1", "-1"};
    cr_expect(ga_gchisq_exact_set_classical(q, 2, w, NULL, NULL, NULL, NULL, msg, 200) == GA_EINVAL);
    cr_expect(strstr(msg, "weights[1]") != NULL, "%s", msg);
    cr_expect(ga_gchisq_exact_set_classical(q, 2, good, bad, NULL, NULL, NULL, msg, 200) == GA_EINVAL);
    cr_expect(strstr(msg, "dof[1]") != NULL, "%s", msg);
    cr_expect(ga_gchisq_exact_set_classical(q, 2, good, NULL, bad, NULL, NULL, msg, 200) == GA_EINVAL);
    cr_expect(strstr(msg, "nc[1]") != NULL, "%s", msg);
    cr_expect(ga_gchisq_exact_set_classical(q, 2, good, NULL, NULL, "-2", NULL, msg, 200) == GA_EINVAL);
    cr_expect(strstr(msg, "sigma") != NULL, "%s", msg);
    cr_expect(ga_gchisq_exact_set_classical(q, 2, good, NULL, NULL, "1 +/- 1", NULL, msg, 200) == GA_EINVAL);
    ga_gchisq_cert r;
    cr_assert(ga_gchisq_exact_set_classical(q, 2, good, NULL, NULL, NULL, NULL, msg, 200) == 0);
    cr_expect(ga_gchisq_prob_cert(&r, q, "nan", NULL) == GA_EINVAL);
    ga_gchisq_exact_free(q);
}

/* random forms: the certified interval meets [val - err, val + err] of the double engine,
 * and the intervals at 10 and 25 digits overlap */
Test(cert, random_forms_agree_with_double_engine)
{
    gsl_rng *rng = ga_test_rng(31337);
    long n = ga_test_count(12);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_gchisq_exact *qe = ga_gchisq_exact_alloc();
    for (long k = 0; k < n; k++) {
        size_t nt = 2 + gsl_rng_uniform_int(rng, 49);
        ga_gchisq *q = ga_gchisq_alloc(nt);
        int indefinite = k % 2;
        for (size_t j = 0; j < nt; j++) {
            double a = 0.1 + gsl_rng_uniform(rng);
            if (indefinite && gsl_rng_uniform(rng) < 0.4)
                a = -a;
            double b2 = gsl_rng_uniform(rng) < 0.5 ? 0 : a * a * gsl_rng_uniform(rng);
            ga_gchisq_add_term(q, a, 1 + gsl_rng_uniform_int(rng, 2), b2);
        }
        if (k % 3 == 0)
            q->sigma2 = gsl_rng_uniform(rng);
        double m, v;
        ga_gchisq_moments(&m, &v, q);
        double x = m + sqrt(v) * (5 * gsl_rng_uniform(rng) - 2);
        char xs[64];
        snprintf(xs, sizeof xs, "%.17g", x);
        ga_gchisq_prob p;
        ga_gchisq_prob_eval(&p, q, strtod(xs, NULL), NULL, w);
        ga_gchisq_exact_set_form(qe, q);
        ga_cert_opts o;
        ga_cert_opts_init(&o);
        o.digits = 10;
        ga_gchisq_cert c1, c2;
        int s1 = ga_gchisq_prob_cert(&c1, qe, xs, &o);
        o.digits = 25;
        int s2 = ga_gchisq_prob_cert(&c2, qe, xs, &o);
        cr_expect(s1 == GA_OK && s2 == GA_OK, "case %ld (%zu terms, x=%s): status %d %d", k, nt,
                  xs, s1, s2);
        cr_expect(c1.sf.lo <= p.sf.val + p.sf.err && p.sf.val - p.sf.err <= c1.sf.hi,
                  "case %ld (%zu terms, x=%s): sf double %.17g +- %.2g vs [%.17g, %.17g]", k, nt,
                  xs, p.sf.val, p.sf.err, c1.sf.lo, c1.sf.hi);
        cr_expect(c1.cdf.lo <= p.cdf.val + p.cdf.err && p.cdf.val - p.cdf.err <= c1.cdf.hi,
                  "case %ld (%zu terms, x=%s): cdf double %.17g +- %.2g vs [%.17g, %.17g]", k,
                  nt, xs, p.cdf.val, p.cdf.err, c1.cdf.lo, c1.cdf.hi);
        arb_t b1, b2;
        arb_init(b1);
        arb_init(b2);
        interval_ball(b1, c1.sf_lo, c1.sf_hi);
        interval_ball(b2, c2.sf_lo, c2.sf_hi);
        cr_expect(arb_overlaps(b1, b2), "case %ld: [%s, %s] and [%s, %s] disjoint", k, c1.sf_lo,
                  c1.sf_hi, c2.sf_lo, c2.sf_hi);
        arb_clear(b1);
        arb_clear(b2);
        ga_gchisq_free(q);
    }
    ga_gchisq_exact_free(qe);
    ga_gchisq_work_free(w);
    gsl_rng_free(rng);
}

/* The double kernels on their saddle-point paths (as the engines evaluate them:
 * ga_path_setup_scale, ga_path_integrate): delta, E[(1 - e^{x - Q})_+] (the Gaussian pair's),
 * and the tail on x's side of the mean (the contour engine's: the other side is the bulk,
 * which it takes as 1 minus this one where that is more accurate), against the same integrals
 * in Arb on those paths (a valid path gives the exact value whatever its shape): within the
 * double's error estimate, 1e-14 of the value aside. The number of integrals compared (a
 * path above 1e-300 of scale and a finite Arb value). */
#define DELTA_PATH_SLACK 1e-14
static int path_check(const ga_gchisq *q, double x, long k, ga_gchisq_exact *qe)
{
    double mean, var;
    ga_gchisq_moments(&mean, &var, q);
    const struct {
        int kernel, sign;
        const char *what;
    } kinds[] = {{GA_KERNEL_DELTA, 1, "delta"},
                 {GA_KERNEL_TAIL, x >= mean ? 1 : -1, x >= mean ? "P[Q > x]" : "P[Q <= x]"}};
    int compared = 0;
    arb_t ref, xa;
    arb_init(ref);
    arb_init(xa);
    ga_gchisq_exact_set_form(qe, q);
    arb_set_d(xa, x);
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        ga_path p;
        if (ga_path_setup_scale(&p, q, x, kinds[i].sign, kinds[i].kernel, -800) != GA_OK ||
            p.L0 < -690)
            continue; /* (no path, or below the double range: the engines' Chernoff bound) */
        ga_result r;
        int st = ga_path_integrate(&r, &p, 1e-300, 1e-10, 100000, NULL);
        if (ga_arb_path_tail(ref, qe, xa, &p, 128) != GA_OK || !arb_is_finite(ref))
            continue;
        /* (the double integral is the value times sign pi e^{-L0}) */
        double v = arf_get_d(arb_midref(ref), ARF_RND_NEAR) * M_PI / exp(p.L0),
               d = kinds[i].sign * r.val;
        compared++;
        cr_expect(fabs(d - v) <= r.err + DELTA_PATH_SLACK * fabs(v),
                  "form %ld, %s (offset %.17g, sigma2 %.17g, x %.17g, terms (a, nu, b2) (%.17g, "
                  "%g, %.17g) (%.17g, %g, %.17g) ..., %zu in all): double %.17g +- %.2g (status "
                  "%d), Arb %.17g (both times pi e^{-L0})", k, kinds[i].what, q->offset,
                  q->sigma2, x, q->t[0].a, q->t[0].nu, q->t[0].b2, q->n > 1 ? q->t[1].a : 0,
                  q->n > 1 ? q->t[1].nu : 0, q->n > 1 ? q->t[1].b2 : 0, q->n, d, r.err, st, v);
    }
    arb_clear(ref);
    arb_clear(xa);
    return compared;
}

/* 10^u, u uniform in [lo, hi) */
static double pow10_between(gsl_rng *g, double lo, double hi)
{
    return pow(10, lo + (hi - lo) * gsl_rng_uniform(g));
}

/* Fixed rows: paths bent late (t0 of 3e5 and 1e7), where the bend's offset sqrt(t^2 + t0^2)
 * - t0 taken as a difference puts the points off the path (1e-12 and 6e-11 relative, 10x and
 * 3x the estimates), and shallow humps near t0 (of e^-24) that steps of 2 straddle (1e-10
 * and 3e-10 relative, 33x and 7x the estimates), and a narrow feature that two levels of
 * the trapezoid alias alike (2.5e-13 off under an estimate of 1.8e-13). Then two seeded
 * families: (a) two terms of negative weight 1e-4 to 1e-2 whose drift pulls the bent path
 * up, beside a term of weight 1e-12 to 1e-8 that acts as a normal one (humps far out on the path, between the climb check's samples and between the
 * trapezoid's nodes: values off by up to 1e37 relative with estimates of 1e-15); (b) one to
 * five terms of weights 1e-12 to 1, with or without a normal part, x from half a standard
 * deviation to 30 above the mean. */
Test(cert, paths_against_arb)
{
    static const struct {
        double offset, x;
        size_t n;
        double t[5][3], sigma2;
    } rows[] = {
        {-0.072022681124508381, 1.3664881860572777, 5,
         {{1.3463771330729771e-07, 2, 0.00030944790244789313},
          {-0.0041049761733969624, 3, 0.00010782088057366197},
          {0.0010352846536408591, 1, 0.0001134143929926457},
          {-0.0001217648402587716, 1, 0.13834084353745171},
          {0.067885822377706379, 2, 0.0027915627250783416}},
         0},
        {0.0019762287847697735, 15.390144229290318, 5,
         {{0.00057970794640859998, 2, 1.7935861363508696},
          {-1.560151355607273e-11, 3, 3.6684819159457134e-05},
          {-0.00014641292926502832, 2, 0.00010193261153633797},
          {-0.03157163728968649, 3, 2.4919286130265688},
          {0.0011040050753020642, 3, 0.00110190071595261}},
         0},
        {0.48787754611112177, 48.766624337036134, 4,
         {{-0.00067407974476344423, 1, 0.025855638890750297},
          {-1.5395831125058377e-06, 2, 2.2963477233709129},
          {0.076009104476061309, 2, 0.23709250144009208},
          {-0.0013839364209728478, 3, 0.010351848370588871}},
         0},
        {-0.20881495275534689, 14.069268673437495, 5,
         {{-0.00048961953087079887, 3, 0.0026009649639271433},
          {0.082232900349134622, 1, 2.1548269894762695e-05},
          {0.015491538348004897, 2, 0.2310038324362621},
          {-0.00056417910436891905, 2, 0.00034120310856616511},
          {-0.00021432638184840815, 3, 0.14455133562417977}},
         0},
        /* the trapezoid's changes 3.6e-4, 1.2e-8, 9.5e-12, 1.5e-13, 4.4e-13: a narrow feature
         * aliased alike by two levels (accepted at 1.5e-13 with the sum 2.5e-13 off) */
        {-0.14451007335446775, 58.326354943403643, 3,
         {{0.34372844248385137, 2, 5.8759234015173014},
          {-1.6185028323979271e-06, 3, 0.01608141014437188},
          {0.00054978100535586641, 3, 0}},
         0.00020401297363188353},
    };
    ga_gchisq *q = ga_gchisq_alloc(8);
    ga_gchisq_exact *qe = ga_gchisq_exact_alloc();
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        q->n = 0;
        q->sigma2 = rows[i].sigma2;
        q->offset = rows[i].offset;
        for (size_t j = 0; j < rows[i].n; j++)
            ga_gchisq_add_term(q, rows[i].t[j][0], rows[i].t[j][1], rows[i].t[j][2]);
        cr_expect(path_check(q, rows[i].x, -1 - (long)i, qe) > 0, "row %zu not compared", i);
    }
    gsl_rng *g = ga_test_rng(2026);
    long n = ga_test_count(300), compared = 0;
    for (long k = 0; k < n; k++) {
        q->n = 0;
        q->sigma2 = 0;
        double x;
        if (k % 2 == 0) { /* (one draw per statement: the order of the draws is fixed) */
            for (int j = 0; j < 3; j++) {
                static const double lo[3][2] = {{-3, -2}, {-4, -3}, {-12, -8}};
                double a = -pow10_between(g, lo[j][0], lo[j][1]);
                if (j == 2 && gsl_rng_uniform(g) < 0.5)
                    a = -a;
                ga_gchisq_add_term(q, a, 1, pow10_between(g, j < 2 ? -2.5 : -4, j < 2 ? -1.5 : -2));
            }
            q->offset = 0.05 * gsl_rng_uniform(g);
            x = 1 + 2 * gsl_rng_uniform(g);
        } else {
            int nt = 1 + (int)gsl_rng_uniform_int(g, 5);
            for (int j = 0; j < nt; j++) {
                double a = gsl_rng_uniform(g) < 0.5 ? pow10_between(g, -12, 0) : pow10_between(g, -4, -1);
                double b2 = gsl_rng_uniform(g) < 0.2 ? 0 : pow10_between(g, -5, 1);
                if (gsl_rng_uniform(g) < 0.5)
                    a = -a;
                ga_gchisq_add_term(q, a, 1 + (double)gsl_rng_uniform_int(g, 3), b2);
            }
            q->sigma2 = gsl_rng_uniform(g) < 0.2 ? pow10_between(g, -4, 0) : 0;
            q->offset = gsl_rng_uniform(g) - 0.5;
            double m, v;
            ga_gchisq_moments(&m, &v, q);
            x = m + sqrt(v) * (0.5 + 29.5 * gsl_rng_uniform(g));
        }
        compared += path_check(q, x, k, qe);
    }
    cr_expect(compared >= n, "only %ld integrals compared on %ld forms", compared, n);
    ga_gchisq_exact_free(qe);
    ga_gchisq_free(q);
    gsl_rng_free(g);
}

/* the escalation loop itself: levels tried, what each step status means, cap and deadline */
typedef struct {
    int calls, ok_at, stall_at, fail_at;
    slong last;
} step_log;

static int logged_step(void *vc, slong prec)
{
    step_log *c = vc;
    c->calls++;
    c->last = prec;
    if (c->calls == c->ok_at)
        return GA_OK;
    if (c->calls == c->stall_at)
        return GA_ARB_STALLED;
    if (c->calls == c->fail_at)
        return GA_EDOM;
    return GA_EPREC;
}

Test(cert, escalation_loop_contract)
{
    static const struct {
        const char *what;
        int ok_at, stall_at, fail_at;
        slong start, cap;
        double deadline;
        int expect, calls;
        slong used;
    } rows[] = {
        {"accurate at the third level", 3, 0, 0, 64, 4096, 0, GA_OK, 3, 256},
        {"never accurate: every level to the cap", 0, 0, 0, 64, 4096, 0, GA_EPREC, 7, 4096},
        {"stalled at the second level", 0, 2, 0, 64, 4096, 0, GA_EPREC, 2, 128},
        {"a failure is passed through", 0, 0, 2, 64, 4096, 0, GA_EDOM, 2, 128},
        {"start above the cap: no level", 1, 0, 0, 128, 64, 0, GA_EPREC, 0, -1},
        {"deadline passed: no level", 1, 0, 0, 64, 4096, 1e-9, GA_ETIME, 0, -1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        step_log c = {0, rows[i].ok_at, rows[i].stall_at, rows[i].fail_at, -1};
        slong used = -1;
        int st = ga_arb_escalate(&used, logged_step, &c, rows[i].start, rows[i].cap, rows[i].deadline);
        cr_expect(st == rows[i].expect && c.calls == rows[i].calls && used == rows[i].used,
                  "%s: status %d (expected %d), %d calls (expected %d), last precision %ld "
                  "(expected %ld)", rows[i].what, st, rows[i].expect, c.calls, rows[i].calls,
                  (long)used, (long)rows[i].used);
    }
}

/* FLINT out of memory, or a FLINT exception, inside a certified step is a status, not the
 * end of the process: an arb_sqrt at 2^50 bits (a mantissa of 128 TiB) gives GA_ENOMEM with
 * the size named, a division by zero gives GA_EDEP, and Arb works as before afterwards */
#ifdef __SANITIZE_ADDRESS__
/* (ASan's allocator returns NULL for a size it cannot have, as malloc does, rather than end
 * the test) */
/* (exported: the sanitizer's runtime looks it up in the executable's dynamic symbols, and
 * the tests are compiled with hidden visibility) */
__attribute__((visibility("default"))) const char *__asan_default_options(void);
__attribute__((visibility("default"))) const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#endif
static int huge_step(void *ctx, slong prec)
{
    (void)prec;
    arb_ptr x = ctx;
    arb_sqrt(x, x, (slong)1 << 50);
    return GA_OK;
}
static int exception_step(void *ctx, slong prec)
{
    (void)ctx;
    (void)prec;
    fmpz_t a, z;
    fmpz_init_set_ui(a, 6);
    fmpz_init(z);
    fmpz_divexact(a, a, z);
    fmpz_clear(a);
    return GA_OK;
}
Test(cert, flint_failures_are_statuses)
{
    cr_assert(ga_cert_available(NULL));
    arb_t x, y;
    arb_init(x);
    arb_init(y);
    arb_set_ui(x, 3);
    int st = ga_arb_escalate(NULL, huge_step, x, 64, 64, 0);
    char why[200];
    ga_arb_last_failure(why, sizeof why);
    cr_expect(st == GA_ENOMEM && strstr(why, "could not allocate") && strstr(why, "bytes"),
              "allocation of 2^50 bits: status %d, '%s'", st, why);
    cr_expect(arb_is_exact(x) && arb_equal_si(x, 3), "the argument changed");
    st = ga_arb_escalate(NULL, exception_step, NULL, 64, 64, 0);
    ga_arb_last_failure(why, sizeof why);
    cr_expect(st == GA_EDEP && strstr(why, "exception"), "division by zero: status %d, '%s'",
              st, why);
    arb_sqrt(y, x, 128); /* Arb still works */
    arb_mul(y, y, y, 128);
    cr_expect(arb_contains_si(y, 3) && arb_rel_accuracy_bits(y) > 100, "sqrt(3)^2 after the failures");
    arb_clear(x);
    arb_clear(y);
}

/*
 * The pair certificate's KL bound (ga_arb_logdet_gap_bound): sum_i (e_i - log(1 + e_i)) <=
 * f2 / (2 (1 - sqrt f2)) for every set of eigenvalues with sum e_i^2 <= f2 < 1. Checked against
 * the exact sum at 256 bits for random eigenvalues scaled to ||E||_F from 0.01 to 0.97, and
 * for the extreme case, one eigenvalue -rho, where the sum is -rho - log(1 - rho) = rho^2/2 +
 * rho^3/3 + ...: a bound without the 1/(1 - rho) factor fails there. It is tight to first
 * order (within 2x of +rho's sum for rho <= 0.3), uses the upper end of a ball f2, and
 * refuses f2 >= 1.
 */
#define GAP_TIGHT 2 /* bound / exact sum, one eigenvalue +rho, rho <= 0.3 */
Test(cert, logdet_gap_bound_holds_and_is_tight)
{
    gsl_rng *rng = ga_test_rng(2718);
    long n = ga_test_count(400);
    arb_t f2, b, sum, e, t;
    arb_init(f2);
    arb_init(b);
    arb_init(sum);
    arb_init(e);
    arb_init(t);
    for (long c = 0; c < n; c++) {
        size_t k = 1 + gsl_rng_uniform_int(rng, 6);
        double rho = c < 40 ? 0.01 + 0.96 * (double)c / 39 : 0.01 + 0.96 * gsl_rng_uniform(rng);
        double ev[6], nn = 0;
        int extreme = c < 40 ? (c % 2 ? 1 : -1) : 0; /* one eigenvalue -rho or +rho */
        for (size_t i = 0; i < k; i++) {
            ev[i] = extreme ? (i == 0 ? extreme * rho : 0) : gsl_rng_uniform(rng) - 0.5;
            nn += ev[i] * ev[i];
        }
        if (!extreme)
            for (size_t i = 0; i < k; i++)
                ev[i] *= rho / sqrt(nn);
        arb_zero(f2);
        arb_zero(sum);
        for (size_t i = 0; i < k; i++) {
            arb_set_d(e, ev[i]);
            arb_addmul(f2, e, e, 256);
            arb_log1p(t, e, 256);
            arb_sub(t, e, t, 256);
            arb_add(sum, sum, t, 256);
        }
        cr_assert(ga_arb_logdet_gap_bound(b, f2, 128) == 0, "case %ld: k %zu rho %.17g refused", c,
                  k, rho);
        arb_sub(t, b, sum, 256);
        cr_assert(arb_is_nonnegative(t), "case %ld: k %zu rho %.17g e0 %.17g: bound %s below the "
                  "sum %s", c, k, rho, ev[0], arb_get_str(b, 20, 0), arb_get_str(sum, 20, 0));
        if (extreme == 1 && rho <= 0.3) {
            arb_mul_ui(t, sum, GAP_TIGHT, 256);
            arb_sub(t, t, b, 256);
            cr_assert(arb_is_nonnegative(t), "case %ld: rho %.17g: bound %s above %g x the sum %s",
                      c, rho, arb_get_str(b, 20, 0), GAP_TIGHT, arb_get_str(sum, 20, 0));
        }
    }
    /* the upper end of f2 is used: [0.25 +- 0.0025] bounds as 0.2525 does */
    arb_set_d(f2, 0.25);
    mag_set_d(arb_radref(f2), 0.0025);
    cr_assert(ga_arb_logdet_gap_bound(b, f2, 128) == 0);
    arb_set_d(t, 0.2525 / (2 * (1 - sqrt(0.2525))) * (1 - 1e-12));
    arb_sub(t, b, t, 128);
    cr_assert(arb_is_positive(t), "ball f2: bound %s", arb_get_str(b, 20, 0));
    /* ||E||_F >= 1, or not certainly below: nothing is known */
    double bad[] = {1.0, 1.5, 0.999999};
    for (size_t i = 0; i < 3; i++) {
        arb_set_d(f2, bad[i]);
        if (i == 2)
            mag_set_d(arb_radref(f2), 0.01);
        cr_assert(ga_arb_logdet_gap_bound(b, f2, 128) == -1, "f2 %g accepted", bad[i]);
    }
    arb_clear(f2);
    arb_clear(b);
    arb_clear(sum);
    arb_clear(e);
    arb_clear(t);
    gsl_rng_free(rng);
}

/* ga_spd_eig_min_lower (numerics/spd.c), a rigorous lower bound on lambda_min from a floating
 * Cholesky factorisation: integer matrices A = B^T B + I whose rows of B sum to zero, so that
 * lambda_min(A) = 1 exactly (the vector of ones; every entry exact in double), B's entries up
 * to 10^3 (A's up to about 10^8: Cholesky's rounding, about d u ||A||, far above the gap
 * between the guesses below and 1). The guesses: 1, and 1 + 10^-k above it (a LAPACK
 * estimate can be on either side); the bound must never exceed 1 (without its error term,
 * a factorisation that the rounding lets through at mu > 1 returns mu), and with the exact
 * guess it is within 1e-5 of 1. An indefinite matrix (A - 2 I) gives a negative bound or
 * none. */
#define TOL_EIGMIN_BELOW 1e-5
Test(cert, spd_eig_min_lower_never_above)
{
    gsl_rng *r = ga_test_rng(991);
    long n = ga_test_count(60), above_guesses = 0;
    for (long k = 0; k < n; k++) {
        size_t d = 2 + gsl_rng_uniform_int(r, 12), m = d + gsl_rng_uniform_int(r, 10);
        double *B = malloc(m * d * sizeof *B), *A = calloc(d * d, sizeof *A);
        cr_assert(B && A);
        long scale = k % 3 == 0 ? 3 : 1000;
        for (size_t i = 0; i < m; i++) {
            double s = 0;
            for (size_t j = 0; j + 1 < d; j++) {
                B[i * d + j] = (double)((long)gsl_rng_uniform_int(r, 2 * scale + 1) - scale);
                s += B[i * d + j];
            }
            B[i * d + d - 1] = -s;
        }
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++) {
                for (size_t i = 0; i < m; i++)
                    A[a * d + b] += B[i * d + a] * B[i * d + b]; /* (integers below 2^53: exact) */
                A[a * d + b] += a == b;
            }
        for (int g = 0; g <= 10; g++) {
            double guess = g == 0 ? 1 : 1 + pow(10, -(g + 2)), lo;
            int st = ga_spd_eig_min_lower(&lo, A, d, guess);
            cr_assert(st == GA_OK, "case %ld (d %zu, m %zu), guess %.17g: status %d", k, d, m, guess, st);
            cr_assert(lo <= 1, "case %ld (d %zu, m %zu, entries to %ld), guess %.17g: bound %.17g "
                      "above lambda_min = 1", k, d, m, scale, guess, lo);
            if (g == 0)
                cr_assert(lo >= 1 - TOL_EIGMIN_BELOW, "case %ld (d %zu): bound %.17g, 1 - %.1g "
                          "expected", k, d, lo, TOL_EIGMIN_BELOW);
            above_guesses += g > 0 && lo > 0.5;
        }
        for (size_t a = 0; a < d; a++)
            A[a * d + a] -= 2; /* lambda_min = -1 */
        double lo;
        int st = ga_spd_eig_min_lower(&lo, A, d, 1);
        cr_assert((st == GA_EDOM && lo == -INFINITY) || (st == GA_OK && lo <= -1),
                  "case %ld: indefinite matrix, status %d bound %.17g", k, st, lo);
        free(A);
        free(B);
    }
    /* (most guesses above 1 still give a useful bound: the shifts below them succeed) */
    cr_assert(above_guesses > n * 5, "only %ld guesses above 1 gave a bound above 0.5", above_guesses);
    gsl_rng_free(r);
}

/* ga_arb_mat_mul_blas (numerics/matmul.c), the ball-matrix product on the BLAS, against
 * products in Arb at 320 bits:
 *  - the exact product of the midpoints, and of points of the balls (their corners, where
 *    each factor's radius pushes the entry one way, and random points), lies in every entry;
 *  - the radius is at most the radii's own propagation plus m 2^(e_i + f_j - ACC_BITS), e_i
 *    and f_j the row's and column's magnitudes;
 *  - the cases: doubles; 200-bit midpoints with rows and columns scaled by up to 2^+-60,
 *    zero rows and columns and radii; near-identity factors (the refinement's); and positive
 *    entries just below 1 with m = 4000, where the BLAS's partial sums come within a factor 2
 *    of 2^53 (one more bit per limb makes them inexact, and the test fails). */
#define ACC_BITS 90
static void blas_case_entry(arb_t x, gsl_rng *r, int mode, long rowsc, long colsc, int zero)
{
    if (zero) {
        arb_zero(x);
        return;
    }
    switch (mode) {
    case 0:
        arb_set_d(x, gsl_rng_uniform(r) * 2 - 1);
        break;
    case 1: { /* a 200-bit midpoint */
        arb_set_d(x, gsl_rng_uniform(r) * 2 - 1);
        for (int k = 1; k <= 3; k++) {
            arb_t t;
            arb_init(t);
            arb_set_d(t, gsl_rng_uniform(r));
            arb_mul_2exp_si(t, t, -53 * k);
            arb_add(x, x, t, 400);
            arb_clear(t);
        }
        arb_mul_2exp_si(x, x, rowsc + colsc);
        if (gsl_rng_uniform(r) < 0.3) {
            mag_set_d(arb_radref(x), ldexp(gsl_rng_uniform(r), (int)(rowsc + colsc) - 60));
        }
        break;
    }
    case 2: /* I + 1e-16 N(0, 1) (the diagonal is set by the caller) */
        arb_set_d(x, 1e-16 * (gsl_rng_uniform(r) - 0.5));
        break;
    default: { /* 1 - v 2^-12, v uniform in (0, 1): positive, with top limbs near their
              * largest and of either parity, so that the partial sums grow to their bound
              * and one bit more per limb rounds them */
        arb_one(x);
        arb_t t;
        arb_init(t);
        arb_set_d(t, gsl_rng_uniform_pos(r));
        arb_mul_2exp_si(t, t, -12);
        arb_sub(x, x, t, 400);
        arb_clear(t);
    }
    }
}

/* Y = a random point of the balls of X: mid + t rad, t uniform in [-1, 1] */
static void blas_case_point(arb_mat_t Y, const arb_mat_t X, gsl_rng *r)
{
    arf_t t;
    arf_init(t);
    for (slong i = 0; i < arb_mat_nrows(X); i++)
        for (slong j = 0; j < arb_mat_ncols(X); j++) {
            const arb_struct *x = arb_mat_entry(X, i, j);
            arb_ptr y = arb_mat_entry(Y, i, j);
            arf_set_mag(t, arb_radref(x));
            arb_set_d(y, gsl_rng_uniform(r) * 2 - 1);
            arb_mul_arf(y, y, t, 600);
            arb_add_arf(y, y, arb_midref(x), 600);
        }
    arf_clear(t);
}

/* y <- mid(x) + s rad(x), exactly */
static void blas_case_push(arb_ptr y, const arb_struct *x, int s)
{
    arf_t t;
    arf_init(t);
    arf_set_mag(t, arb_radref(x));
    if (s < 0)
        arf_neg(t, t);
    arf_add(arb_midref(y), arb_midref(x), t, ARF_PREC_EXACT, ARF_RND_DOWN);
    mag_zero(arb_radref(y));
    arf_clear(t);
}

Test(cert, blas_matrix_product_encloses)
{
    gsl_rng *r = ga_test_rng(2048);
    long n = ga_test_count(8);
    for (long it = 0; it < n; it++) {
        int mode = (int)(it % 4);
        slong rows = 64 + (slong)gsl_rng_uniform_int(r, 40), cols = 64 + (slong)gsl_rng_uniform_int(r, 40);
        slong m = mode == 3 ? 4000 : 64 + (slong)gsl_rng_uniform_int(r, 300);
        arb_mat_t A, B, C, P, Ap, Bp;
        arb_mat_init(A, rows, m);
        arb_mat_init(B, m, cols);
        arb_mat_init(C, rows, cols);
        arb_mat_init(P, rows, cols);
        arb_mat_init(Ap, rows, m);
        arb_mat_init(Bp, m, cols);
        long *rs = malloc((size_t)rows * sizeof *rs), *cs = malloc((size_t)cols * sizeof *cs),
             *ms = malloc((size_t)m * sizeof *ms);
        cr_assert(rs && cs && ms);
        for (slong i = 0; i < rows; i++)
            rs[i] = mode == 1 ? (long)gsl_rng_uniform_int(r, 121) - 60 : 0;
        for (slong j = 0; j < cols; j++)
            cs[j] = mode == 1 ? (long)gsl_rng_uniform_int(r, 121) - 60 : 0;
        for (slong k = 0; k < m; k++)
            ms[k] = mode == 1 ? (long)gsl_rng_uniform_int(r, 21) - 10 : 0;
        for (slong i = 0; i < rows; i++)
            for (slong k = 0; k < m; k++) {
                arb_ptr x = arb_mat_entry(A, i, k);
                blas_case_entry(x, r, mode, rs[i], ms[k], mode == 1 && (i == 1 || k == 2));
                if (mode == 2 && i == k)
                    arb_add_ui(x, x, 1, 600);
            }
        for (slong k = 0; k < m; k++)
            for (slong j = 0; j < cols; j++) {
                arb_ptr x = arb_mat_entry(B, k, j);
                blas_case_entry(x, r, mode, -ms[k], cs[j], mode == 1 && (j == 3 || k == 5));
                if (mode == 2 && k == j)
                    arb_add_ui(x, x, 1, 600);
            }
        cr_assert(ga_arb_mat_mul_blas(C, A, B, 128) == 0, "case %ld (mode %d, %ld x %ld x %ld): "
                  "not applied", it, mode, (long)rows, (long)m, (long)cols);
        /* the points: the midpoints, two random points, and corners for a few entries */
        for (int pt = 0; pt < 5; pt++) {
            slong ci = (slong)gsl_rng_uniform_int(r, (unsigned long)rows),
                  cj = (slong)gsl_rng_uniform_int(r, (unsigned long)cols);
            if (pt == 0) {
                arb_mat_get_mid(Ap, A);
                arb_mat_get_mid(Bp, B);
            } else if (pt < 3) {
                blas_case_point(Ap, A, r);
                blas_case_point(Bp, B, r);
            } else { /* corners for entry (ci, cj): every |a_ik| pushed up, every |b_kj| up
                      * (pt 3) or down (pt 4) */
                arb_mat_get_mid(Ap, A);
                arb_mat_get_mid(Bp, B);
                for (slong k = 0; k < m; k++) {
                    const arb_struct *a = arb_mat_entry(A, ci, k), *b = arb_mat_entry(B, k, cj);
                    int sa = arf_sgn(arb_midref(a)) < 0 ? -1 : 1, sb = arf_sgn(arb_midref(b)) < 0 ? -1 : 1;
                    blas_case_push(arb_mat_entry(Ap, ci, k), a, sa);
                    blas_case_push(arb_mat_entry(Bp, k, cj), b, pt == 3 ? sb : -sb);
                }
            }
            arb_mat_mul(P, Ap, Bp, 320);
            for (slong i = 0; i < rows; i++)
                for (slong j = 0; j < cols; j++)
                    cr_assert(arb_contains(arb_mat_entry(C, i, j), arb_mat_entry(P, i, j)),
                              "case %ld (mode %d, %ld x %ld x %ld), point %d: entry (%ld, %ld) "
                              "%s not in %s", it, mode, (long)rows, (long)m, (long)cols, pt,
                              (long)i, (long)j, arb_get_str(arb_mat_entry(P, i, j), 40, 0),
                              arb_get_str(arb_mat_entry(C, i, j), 40, 0));
        }
        /* the radius: the propagation of the factors' radii, plus the accuracy asked */
        double *am = malloc((size_t)(rows * m) * sizeof *am), *ar = malloc((size_t)(rows * m) * sizeof *ar);
        double *bm = malloc((size_t)(m * cols) * sizeof *bm), *br = malloc((size_t)(m * cols) * sizeof *br);
        cr_assert(am && ar && bm && br);
        for (slong i = 0; i < rows * m; i++) {
            const arb_struct *a = arb_mat_entry(A, i / m, i % m);
            am[i] = fabs(arf_get_d(arb_midref(a), ARF_RND_UP));
            ar[i] = mag_get_d(arb_radref(a));
        }
        for (slong i = 0; i < m * cols; i++) {
            const arb_struct *b = arb_mat_entry(B, i / cols, i % cols);
            bm[i] = fabs(arf_get_d(arb_midref(b), ARF_RND_UP));
            br[i] = mag_get_d(arb_radref(b));
        }
        for (slong i = 0; i < rows; i++)
            for (slong j = 0; j < cols; j++) {
                double prop = 0, amax = 0, bmax = 0;
                for (slong k = 0; k < m; k++) {
                    double a = am[i * m + k], b = bm[k * cols + j];
                    prop += ar[i * m + k] * (b + br[k * cols + j]) + a * br[k * cols + j];
                    amax = fmax(amax, a);
                    bmax = fmax(bmax, b);
                }
                /* (an empty row or column has the scale 2^-900; the bound on underflow in
                 * the BLAS's products is m 2^-1019) */
                double tol = 1.01 * prop + (double)m * 4 * fmax(amax, 0x1p-900) *
                                               fmax(bmax, 0x1p-900) * ldexp(1, -ACC_BITS) +
                             (double)m * 0x1p-1000;
                double rad = mag_get_d(arb_radref(arb_mat_entry(C, i, j)));
                cr_assert(rad <= tol, "case %ld (mode %d, %ld x %ld x %ld): entry (%ld, %ld) radius "
                          "%.3g above %.3g (propagated %.3g, row max %.3g, column max %.3g)", it,
                          mode, (long)rows, (long)m, (long)cols, (long)i, (long)j, rad, tol, prop,
                          amax, bmax);
            }
        free(am);
        free(ar);
        free(bm);
        free(br);
        free(rs);
        free(cs);
        free(ms);
        arb_mat_clear(A);
        arb_mat_clear(B);
        arb_mat_clear(C);
        arb_mat_clear(P);
        arb_mat_clear(Ap);
        arb_mat_clear(Bp);
    }
    gsl_rng_free(r);
}

/*
 * common.c - what every report format says the same way: which methods computed the values,
 * the slack and tightness of a claim, the pairs table (largest delta first, at most
 * TABLE_CAP rows), certified intervals and witnesses as text, verdict meanings, and HTML
 * escaping (shared with the JUnit XML).
 */
#include "reports/internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define METHODS_GAUSS \
    "double precision: privacy loss as a generalized chi-square per direction, delta by one " \
    "Bromwich integral on a saddle-point contour (sinh-mapped trapezoidal rule) with error " \
    "estimates; certified: Arb ball arithmetic (acb_calc_integrate plus a proven tail bound) " \
    "and an a-posteriori linear-algebra certificate (Pinsker, KL in ball arithmetic)"
static const char *methods_text = METHODS_GAUSS;

static const char *methods_sub_text =
    "double precision: the one-dimensional privacy loss of subsampled Gaussian steps, its "
    "moment generating function by trapezoid sums on the real line and delta by one Bromwich "
    "integral (one step: the closed form of its threshold event; a subsampled sketch: the "
    "same with chi-square tails) with error estimates; "
    "certified: one step in Arb ball arithmetic (erfc); a composition by the same Bromwich "
    "integral in ball arithmetic (trapezoid sums with Trefethen-Weideman bounds, "
    "Gauss-Legendre panels with Bernstein-ellipse bounds, the tail by chord and "
    "integration-by-parts bounds on the moment generating function)";

static const char *methods_masked_text =
    "masked releases (matrix masking, setting (B)): delta as two noncentral chi-square tails at "
    "the threshold of the monotone likelihood ratio (Poisson mixtures of incomplete gamma "
    "functions) with error estimates; certified: the same in Arb ball arithmetic, the "
    "threshold bracketed by certified signs of the loss. Gaussian pairs (bounds): " METHODS_GAUSS;

static const char *methods_synth_text =
    "synthetic points from random inputs: the release reduced to |y|^2 = sigma^2 S C (S "
    "noncentral chi-square, C chi-square), delta as two tails at the threshold of the monotone "
    "likelihood ratio (Poisson mixtures of finite sums of Bessel K functions) with error "
    "estimates; certified: the same tails in Arb ball arithmetic, the maximiser of the unimodal "
    "tail difference bracketed by certified comparisons";

/* the methods of the audit's pairs */
const char *rp_methods(const ga_audit *a)
{
    size_t n = ga_spec_npairs(&a->spec);
    ga_spec_pair_buf b;
    for (size_t i = 0; i < n; i++)
        if (ga_spec_pair_at(&a->spec, i, &b, 0)->nsub)
            return methods_sub_text;
    for (size_t i = 0; i < n; i++)
        if (ga_spec_pair_at(&a->spec, i, &b, 0)->masked)
            return methods_masked_text;
    for (size_t i = 0; i < n; i++)
        if (ga_spec_pair_at(&a->spec, i, &b, 0)->synth)
            return methods_synth_text;
    return methods_text;
}

/* a claim the --timeout deadline left without any number */
int rp_evaluated(const ga_claim_result *r)
{
    return r->evaluated;
}

/* log10 of a decimal "m.mmm" or "m.mmme-NNNN" (exponents beyond the double range); -inf for
 * zero, NaN when unreadable */
double rp_decimal_log10(const char *d)
{
    char *end;
    double m = strtod(d, &end); /* strtod reads the exponent too: split it off first */
    const char *e = strpbrk(d, "eE");
    if (e) {
        char mant[80];
        size_t l = (size_t)(e - d) < sizeof mant - 1 ? (size_t)(e - d) : sizeof mant - 1;
        memcpy(mant, d, l);
        mant[l] = 0;
        m = strtod(mant, NULL);
        double ex = strtod(e + 1, NULL);
        return m > 0 ? log10(m) + ex : m == 0 ? -INFINITY : NAN;
    }
    (void)end;
    return m > 0 ? log10(m) : m == 0 ? -INFINITY : NAN;
}

/* "the claim is 3.2x conservative", never 1x or infx: near 1 the relative difference, at an
 * exact value of 0 (or below the double range) no factor */
static void slack_text(char *b, size_t n, double slack, const char *what, double exact)
{
    if (!isfinite(slack))
        snprintf(b, n, "the exact %s is 0 to double precision", what);
    else if (slack == 0 && isinf(exact))
        snprintf(b, n, "the exact %s is infinite", what);
    else if (slack == 0)
        snprintf(b, n, "the claim is 0, the exact %s is not", what);
    else if (slack == 1)
        snprintf(b, n, "the claim equals the exact %s to double precision", what);
    else if (fabs(slack - 1) < 0.05) /* a factor would read 1x or 1.01x: the difference */
        snprintf(b, n, slack > 1 ? "the claim is above the exact %s by a relative %.2g"
                                 : "the exact %s exceeds the claim by a relative %.2g",
                 what, fabs(slack - 1));
    else if (slack > 1)
        snprintf(b, n, "the claim is %.3gx conservative", slack);
    else
        snprintf(b, n, "%.3gx the claimed %s", 1 / slack, what);
}

void rp_tightness_text(char *b, size_t n, const ga_claim_result *r)
{
    char v[96], sl[160], ce[32], cd[32];
    if (!rp_evaluated(r)) {
        snprintf(b, n, "not evaluated");
    } else if (r->type != GA_CLAIM_GDP && !(r->exact.val >= 0 && isfinite(r->exact.err))) {
        snprintf(b, n, "no value: not computed, or the double-precision evaluation failed (the "
                 "reason says which)");
    } else if (r->type == GA_CLAIM_DP) {
        char e[320] = "";
        ga_fmt_shortest(ce, sizeof ce, r->eps);
        ga_fmt_shortest(cd, sizeof cd, r->delta);
        if (r->eps_txt)
            snprintf(ce, sizeof ce, "%.30s", r->eps_txt); /* as written */
        if (r->delta_txt)
            snprintf(cd, sizeof cd, "%.30s", r->delta_txt);
        if (isfinite(r->eps_at_delta.val))
            snprintf(e, sizeof e, "; the smallest eps at delta %s is %.6g", cd, r->eps_at_delta.val);
        if (r->rdp_eps > 0 && isfinite(r->eps_at_delta.val) && r->eps_at_delta.val > 0) {
            size_t l = strlen(e);
            snprintf(e + l, sizeof e - l, " (an RDP accountant reports %.6g, %.3gx as much",
                     r->rdp_eps, r->rdp_eps / r->eps_at_delta.val);
            l = strlen(e);
            if (r->pld_eps > 0 && isfinite(r->pld_eps))
                snprintf(e + l, sizeof e - l, "; a PLD accountant %.7g, above by a relative %.2g)",
                         r->pld_eps, r->pld_eps / r->eps_at_delta.val - 1);
            else
                snprintf(e + l, sizeof e - l, ")");
        }
        /* the value shown lies in the certified interval when there is one (the estimate may
         * stray by its error), with the digits that decide against the claim */
        double x = r->certified ? fmin(fmax(r->exact.val, r->cert_lo), r->cert_hi) : r->exact.val;
        ga_fmt_decide(v, sizeof v, x, r->delta, 6);
        slack_text(sl, sizeof sl, r->slack, "delta", r->exact.val);
        if (r->certified && r->cert_hi < 1e-300 && r->cert_hi_dec[0] && r->delta > 0) {
            /* below the double range: the certified decimal, and the factor as a power of 10 */
            snprintf(v, sizeof v, "%s", r->cert_hi_dec); /* (whole: a cut exponent is
                                                              another number) */
            double f = log10(r->delta) - rp_decimal_log10(r->cert_hi_dec);
            snprintf(sl, sizeof sl, fabs(f) < 1e6 ? "the claim is 10^%.1f times the exact delta "
                     "(certified; below the double range)" : "the claim is 10^(%.4g) times the "
                     "exact delta (certified; below the double range)", f);
        }
        snprintf(b, n, "%s delta(%s) = %s: %s%s",
                 r->bound   ? "upper bound (no neighbour need attain it): exact"
                 : r->lower ? "lower bound (a function of the release): exact"
                            : "exact", ce, v, sl, e);
    } else if (r->type == GA_CLAIM_RDP) {
        ga_fmt_shortest(ce, sizeof ce, r->alpha);
        ga_fmt_decide(v, sizeof v, r->exact.val, r->eps_a, 6);
        slack_text(sl, sizeof sl, r->slack, "divergence", r->exact.val);
        snprintf(b, n, "exact D_%s = %s: %s", ce, v, sl);
    } else if (r->type == GA_CLAIM_ZCDP) {
        ga_fmt_decide(v, sizeof v, r->exact.val, r->eps_a, 6);
        slack_text(sl, sizeof sl, r->slack, "rho", r->exact.val);
        snprintf(b, n, "max D_alpha/alpha = %s at alpha = %.4g: %s", v, r->at, sl);
    } else if (r->type == GA_CLAIM_GDP) {
        snprintf(b, n, "largest excess of delta over the GDP curve: %.3g at eps = %.4g", r->exact.val, r->at);
    } else {
        snprintf(b, n, "?");
    }
}

/* pairs in descending order of their delta at the table eps (at most cap), ties by index;
 * a pair whose value is NaN is not listed. One pass that keeps the cap best so far sorted
 * (insertion), O(n cap) at worst and O(n) for most orders: the table of a 100k-pair audit
 * was a selection of O(n cap), 8% of the audit's time */
static double table_value(const ga_audit *a, size_t i)
{
    return fmax(a->pair_xy[i], a->pair_yx[i]);
}

size_t rp_order(const ga_audit *a, size_t *idx, size_t cap)
{
    size_t m = 0;
    for (size_t i = 0; i < a->npairs && cap; i++) {
        double v = table_value(a, i);
        if (!(v > -INFINITY) || (m == cap && !(v > table_value(a, idx[m - 1]))))
            continue; /* NaN, or not above the last kept (a tie keeps the lower index) */
        size_t j = m < cap ? m++ : m - 1;
        for (; j > 0 && v > table_value(a, idx[j - 1]); j--)
            idx[j] = idx[j - 1];
        idx[j] = i;
    }
    return m;
}

/* HTML and XML 1.0 text and attribute values: markup characters as entities; control
 * characters (invalid in XML 1.0 even as references, and terminal escapes in a viewer) as
 * the visible text \xNN */
void rp_html_escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        unsigned cp;
        size_t h = ga_utf8_hidden(s, &cp);
        if (h) { /* bidi and invisible characters as visible text */
            fprintf(out, "\\u%04x", cp);
            s += h - 1;
            continue;
        }
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
            fprintf(out, "\\x%02x", ch);
            continue;
        }
        switch (*s) {
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '&':
            fputs("&amp;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}

/* "P_X[S] = .., P_Y[S] = .." of a claim's witness: "n/a" where a probability could not be
 * evaluated (NaN), never "nan" */
void rp_witness_probs(char *b, size_t n, const ga_claim_result *r)
{
    char p[2][32];
    double v[2] = {r->witness_px, r->witness_py};
    for (int i = 0; i < 2; i++) {
        if (isnan(v[i]))
            snprintf(p[i], sizeof p[i], "n/a (not evaluated)");
        else
            snprintf(p[i], sizeof p[i], "%.6g", v[i]);
    }
    snprintf(b, n, "P_X[S] = %s, P_Y[S] = %s", p[0], p[1]);
}

/* a claim's certified interval, rounded outward, at least 10 significant digits and as many
 * as keep each bound on its side of the claim */
void rp_cert_text(char *iv, size_t n, const ga_claim_result *r)
{
    if (r->cert_hi_dec[0] && (r->cert_hi == 0 || (r->cert_lo == 0 && r->cert_hi < 1e-300))) {
        /* below the double range: the decimal bounds (mantissa and exponent) */
        snprintf(iv, n, "[%s, %s]", r->cert_lo_dec, r->cert_hi_dec); /* (whole: see above) */
        return;
    }
    char lo[32], hi[32];
    double ref = r->type == GA_CLAIM_DP ? r->delta : r->eps_a; /* the claim it decides */
    ga_fmt_bound_decide(lo, sizeof lo, r->cert_lo, 0, ref, 10);
    ga_fmt_bound_decide(hi, sizeof hi, r->cert_hi, 1, ref, 10);
    snprintf(iv, n, "[%s, %s]", lo, hi);
}

/* each verdict's one-line meaning, the same in every format */
const char *rp_verdict_meaning(int v)
{
    static const char *m[] = {
        "proof: certified bounds on a proven worst case show the claim holds for every neighbour",
        "no proof: the claim holds on every audited pair, which need not be every neighbour",
        "undecided: neither a proof nor a violation could be established (the reasons say why)",
        "disproof: a certified lower bound on an audited pair exceeds the claim"};
    return v >= 0 && v < 4 ? m[v] : "?";
}

/* a mark that tells the verdicts apart without colour (colour-blind readers, print) */
const char *rp_verdict_mark(int v)
{
    static const char *m[] = {"&#10004;", "&#9675;", "?", "&#10008;"};
    return v >= 0 && v < 4 ? m[v] : "";
}

/* a pair's certified interval for the pairs table ("not certified" when it was not) */
void rp_pair_cert_text(char *b, size_t n, const ga_interval *iv)
{
    if (!(iv->lo <= iv->hi)) {
        snprintf(b, n, "not certified");
        return;
    }
    char lo[32], hi[32];
    ga_fmt_bound(lo, sizeof lo, iv->lo, 0, 10);
    ga_fmt_bound(hi, sizeof hi, iv->hi, 1, 10);
    snprintf(b, n, "[%s, %s]", lo, hi);
}

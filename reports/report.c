/*
 * report.c - audit reports: Markdown, HTML (one self-contained file: inline CSS, inline SVG
 * plots, a few lines of inline JavaScript to sort the pairs table; nothing is fetched),
 * JSON (the same data, numbers with 17 significant digits) and JUnit (one test case per
 * claim). All four are written from the same ga_audit.
 */
#include "reports/report.h"
#include "numerics/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <ctype.h>

#define TABLE_CAP 200 /* pairs listed in reports (the largest deltas first) */

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
static const char *methods(const ga_audit *a)
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
static int evaluated(const ga_claim_result *r)
{
    return r->evaluated;
}

/* log10 of a decimal "m.mmm" or "m.mmme-NNNN" (exponents beyond the double range); -inf for
 * zero, NaN when unreadable */
static double decimal_log10(const char *d)
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

static void tightness_text(char *b, size_t n, const ga_claim_result *r)
{
    char v[96], sl[160], ce[32], cd[32];
    if (!evaluated(r)) {
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
            double f = log10(r->delta) - decimal_log10(r->cert_hi_dec);
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

static size_t order(const ga_audit *a, size_t *idx, size_t cap)
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
static void html_escape(FILE *out, const char *s)
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
static void witness_probs(char *b, size_t n, const ga_claim_result *r)
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
static void cert_text(char *iv, size_t n, const ga_claim_result *r)
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
static const char *verdict_meaning(int v)
{
    static const char *m[] = {
        "proof: certified bounds on a proven worst case show the claim holds for every neighbour",
        "no proof: the claim holds on every audited pair, which need not be every neighbour",
        "undecided: neither a proof nor a violation could be established (the reasons say why)",
        "disproof: a certified lower bound on an audited pair exceeds the claim"};
    return v >= 0 && v < 4 ? m[v] : "?";
}

/* a mark that tells the verdicts apart without colour (colour-blind readers, print) */
static const char *verdict_mark(int v)
{
    static const char *m[] = {"&#10004;", "&#9675;", "?", "&#10008;"};
    return v >= 0 && v < 4 ? m[v] : "";
}

/* a pair's certified interval for the pairs table ("not certified" when it was not) */
static void pair_cert_text(char *b, size_t n, const ga_interval *iv)
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


/* ------------------------------------------------------------ Markdown */

/* A user string (spec and pair names, paths, reasons quoting them) as inline Markdown text,
 * also safe in a table cell: emphasis, code, link, HTML and table characters backslash-escaped
 * (CommonMark allows it for any ASCII punctuation), control characters and newlines (which
 * could start a heading or a fake verdict line) as the visible text \xNN. */
static void md_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        unsigned cp;
        size_t h = ga_utf8_hidden(s, &cp);
        if (h) { /* bidi and invisible characters as visible text */
            fprintf(out, "\\\\u%04x", cp);
            s += h - 1;
        } else if (ch < 0x20 || ch == 0x7f)
            fprintf(out, "\\\\x%02x", ch);
        else if (strchr("\\`*_[]<>|~&", ch))
            fprintf(out, "\\%c", ch);
        else
            fputc(ch, out);
    }
}

/* the lines "mechanism: ...", "source: ...", "description: ..." (those the spec has), each
 * between pre and post, the values escaped by esc */
static void what_was_audited(FILE *out, const ga_audit *a, void (*esc)(FILE *, const char *),
                             const char *pre, const char *post)
{
    char mech[GA_REPORT_MECH_LEN];
    ga_report_mechanism_text(mech, sizeof mech, &a->spec);
    const char *key[3] = {"mechanism", "source", "description"};
    const char *val[3] = {mech, ga_report_spec_text(&a->spec, "source"),
                          ga_report_spec_text(&a->spec, "description")};
    for (int k = 0; k < 3; k++)
        if (val[k]) {
            fprintf(out, "%s%s: ", pre, key[k]);
            esc(out, val[k]);
            fputs(post, out);
        }
}

int ga_report_markdown(FILE *out, const ga_audit *a)
{
    char nb[GA_SPEC_NAME_LEN]; /* (ga_audit_pair_name) */
    fprintf(out, "# gaussaudit report: ");
    md_text(out, a->spec.name);
    fprintf(out, " \xe2\x80\x94 %s\n\n", ga_verdict_name(a->overall));
    fprintf(out, "**Verdict: %s**: %s.\n\n", ga_verdict_name(a->overall), verdict_meaning(a->overall));
    if (a->incomplete)
        fprintf(out, "**Incomplete: %s.**\n\n", a->timeout_note); /* our own text */
    if (a->spec.nrel)
        fprintf(out, "Relative DP (Lu et al.; 000 Section 7): the claims are audited over the %zu "
                "neighbouring pairs within the given set of %zu datasets, not over every "
                "neighbour.\n\n", a->npairs, a->spec.nrel);
    if (a->spec.verified)
        fprintf(out, "The audited pairs include the proven %s.\n\n", a->spec.verified_note);
    if (a->spec.release_note[0])
        fprintf(out, "Some pairs are audited before the release: %s. Their values are upper "
                "bounds of the release's (post-processing), never violations.\n\n",
                a->spec.release_note); /* (our own text) */
    fprintf(out, "## Claims\n\n| claim | verdict | tightness | certified | reason |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < a->nclaims; i++) {
        const ga_claim_result *r = &a->claims[i];
        char c[96], t[640], iv[176] = "no";
        ga_claim_text(c, sizeof c, r);
        tightness_text(t, sizeof t, r);
        if (r->certified)
            cert_text(iv, sizeof iv, r);
        fprintf(out, "| %s | %s | ", c, ga_verdict_name(r->verdict));
        md_text(out, t);
        fprintf(out, " | %s | ", iv);
        md_text(out, r->reason);
        fprintf(out, " |\n");
    }
    for (size_t i = 0; i < a->nclaims; i++) {
        const ga_claim_result *r = &a->claims[i];
        if (r->type != GA_CLAIM_DP || !evaluated(r))
            continue;
        char ct[96];
        ga_claim_text(ct, sizeof ct, r);
        fprintf(out, "\n### Worst pair for ");
        md_text(out, ct);
        fprintf(out, "\n\n");
        fprintf(out, "Pair **");
        md_text(out, ga_audit_pair_name(a, r->worst_pair, nb));
        fprintf(out, "**, direction %s. Distinguishing event: ", r->worst_dir == 1 ? "X,Y" : "Y,X");
        md_text(out, r->witness);
        char wp[96];
        witness_probs(wp, sizeof wp, r);
        fprintf(out, ". %s, so delta = P[S] - e^eps P'[S] = %.6g.\n", wp, r->exact.val);
    }
    size_t *idx = malloc(TABLE_CAP * sizeof *idx);
    size_t m = idx ? order(a, idx, TABLE_CAP) : 0;
    int withc = a->npair_cert > 0;
    fprintf(out, "\n## Pairs (delta at eps = %.6g%s)\n\n| pair | delta_XY | delta_YX |%s\n|---|---|---|%s\n",
            a->table_eps, a->npairs > m ? ", largest first" : "",
            withc ? " certified delta_XY | certified delta_YX |" : "", withc ? "---|---|" : "");
    for (size_t k = 0; k < m; k++) {
        fprintf(out, "| ");
        md_text(out, ga_audit_pair_name(a, idx[k], nb));
        fprintf(out, " | %.6g (+- %.2g) | %.6g (+- %.2g) |", a->pair_xy[idx[k]],
                a->pair_xy_err[idx[k]], a->pair_yx[idx[k]], a->pair_yx_err[idx[k]]);
        if (withc) {
            char c1[80], c2[80];
            ga_interval cx, cy;
            ga_audit_pair_cert(a, idx[k], &cx, &cy);
            pair_cert_text(c1, sizeof c1, &cx);
            pair_cert_text(c2, sizeof c2, &cy);
            fprintf(out, " %s | %s |", c1, c2);
        }
        fprintf(out, "\n");
    }
    if (a->npairs > m)
        fprintf(out, "\n%zu more pairs not listed.\n", a->npairs - m);
    free(idx);
    fprintf(out, "\n## Reproducibility\n\n- tool: gaussaudit %s\n- spec: ", GA_VERSION_STRING);
    md_text(out, a->spec.path);
    fprintf(out, " (SHA-256 `%s`)\n", a->digest);
    what_was_audited(out, a, md_text, "- ", "\n");
    for (size_t i = 0; i < a->spec.ninputs; i++) {
        fprintf(out, "- ");
        md_text(out, a->spec.inputs[i].key);
        fprintf(out, ": ");
        md_text(out, a->spec.inputs[i].path);
        fprintf(out, " (SHA-256 `%s`)\n", a->spec.inputs[i].sha256);
    }
    fprintf(out, "- pairs audited: %zu\n- methods: %s\n- certified mode: %s; certified evaluations: %zu "
                 "(delta, Renyi or Mahalanobis intervals of single pairs); highest precision: "
                 "%ld bits (the time they took is in the JSON and HTML reports: Markdown reports "
                 "are reproducible byte for byte)\n",
            a->npairs, methods(a),
            a->certified_mode ? "yes" : "no (escalated where a verdict needed it)", a->ncertified,
            a->max_bits);
    return ferror(out) ? GA_EIO : GA_OK;
}

/* ------------------------------------------------------------ SVG plots */

typedef struct {
    const double *x, *y;
    size_t n;
    const char *color, *label;
    int dashed;
} series;

/* a round tick step for a span: 1, 2 or 5 times a power of ten, about n steps */
static double nice_step(double span, int n)
{
    double raw = span / (n > 0 ? n : 1), p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* claim markers: shape and colour by verdict (colour-blind safe, told apart without colour) */
static void svg_marker(FILE *out, double x, double y, int verdict)
{
    static const char *col[] = {"#1b7837", "#2166ac", "#b35806", "#b2182b"};
    const char *c = verdict >= 0 && verdict < 4 ? col[verdict] : "#000";
    if (verdict == GA_VERDICT_VIOLATION)
        fprintf(out, "<path class=\"claim\" d=\"M%.1f %.1fl10 10m0 -10l-10 10\" stroke=\"%s\" "
                     "stroke-width=\"2.5\"/>\n", x - 5, y - 5, c);
    else if (verdict == GA_VERDICT_INCONCLUSIVE)
        fprintf(out, "<path class=\"claim\" d=\"M%.1f %.1fl6 10h-12z\" fill=\"none\" stroke=\"%s\" "
                     "stroke-width=\"2\"/>\n", x, y - 6, c);
    else if (verdict == GA_VERDICT_NO_VIOLATION)
        fprintf(out, "<rect class=\"claim\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" "
                     "fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", x - 5, y - 5, c);
    else
        fprintf(out, "<circle class=\"claim\" cx=\"%.1f\" cy=\"%.1f\" r=\"5.5\" fill=\"none\" "
                     "stroke=\"%s\" stroke-width=\"2\"/>\n", x, y, c);
}

/* the judged window of a plot: x up to xcap (0: the data's), log-y down to ymin (0: the
 * data's), the claims as markers with their verdicts */
typedef struct {
    const double *mx, *my;
    const int *mv;
    size_t nm;
    double xcap, ymin;
} plot_marks;

/* A plot with linear x and log10 (logy) or linear y: round ticks, the axis ranges of what is
 * judged, a legend beside the plot (line-style swatches, full labels wrapped), claim markers
 * by verdict; the SVG scales with the page (viewBox, width 100%). */
static void svg_plot(FILE *out, const char *id, const char *title, const char *xl, const char *yl,
                     int logy, const series *s, size_t ns, const plot_marks *pm)
{
    const double W = 820, H = 380, L = 70, R = 250, T = 34, B = 50; /* R: the legend's column */
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (size_t k = 0; k < ns; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            double y = s[k].y[i];
            if ((logy && !(y > 0)) || !isfinite(y) || (pm->xcap > 0 && s[k].x[i] > pm->xcap))
                continue;
            y = logy ? log10(y) : y;
            x0 = fmin(x0, s[k].x[i]);
            x1 = fmax(x1, s[k].x[i]);
            y0 = fmin(y0, y);
            y1 = fmax(y1, y);
        }
    for (size_t i = 0; i < pm->nm; i++) {
        if (logy && !(pm->my[i] > 0))
            continue;
        double y = logy ? log10(pm->my[i]) : pm->my[i];
        x0 = fmin(x0, pm->mx[i]);
        x1 = fmax(x1, pm->mx[i]);
        y0 = fmin(y0, y);
        y1 = fmax(y1, y);
    }
    if (logy && pm->ymin > 0 && y0 < log10(pm->ymin))
        y0 = log10(pm->ymin); /* down to the smallest judged value, not to 1e-323 */
    if (!(x1 > x0)) {
        x0 = isfinite(x0) ? x0 - 1 : 0;
        x1 = x0 + 2;
    }
    if (!(y1 > y0)) {
        y0 = isfinite(y0) ? y0 - 1 : 0;
        y1 = y0 + 2;
    }
    /* round ranges: multiples of the tick step (decades on a log axis) */
    double xs = nice_step(x1 - x0, 5);
    x0 = floor(x0 / xs) * xs;
    x1 = ceil(x1 / xs) * xs;
    double ys = logy ? fmax(1, ceil((ceil(y1) - floor(y0)) / 8)) : nice_step(y1 - y0, 5);
    y0 = floor(y0 / ys) * ys;
    y1 = ceil(y1 / ys) * ys;
#define PX(v) (L + ((v) - x0) / (x1 - x0) * (W - L - R))
#define PY(v) (H - B - ((v) - y0) / (y1 - y0) * (H - T - B))
    fprintf(out, "<svg id=\"%s\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%%\" "
                 "style=\"max-width:%.0fpx\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"",
            id, 1.3 * W, W, H);
    html_escape(out, title);
    fprintf(out, "\">\n<title>");
    html_escape(out, title);
    fprintf(out, "</title>\n<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\" "
                 "stroke=\"#888\"/>\n", L, T, W - L - R, H - T - B);
    for (double xv = x0; xv <= x1 + 1e-9 * xs; xv += xs) {
        double px = PX(xv);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                     "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%g</text>\n",
                px, T, px, H - B, px, H - B + 15, fabs(xv) < 1e-12 * xs ? 0.0 : xv);
    }
    for (double yv = y0; yv <= y1 + 1e-9 * ys; yv += ys) {
        double py = PY(yv);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", L, py, W - R, py);
        if (logy)
            fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">1e%d</text>\n",
                    L - 5, py + 4, (int)lround(yv));
        else
            fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g</text>\n",
                    L - 5, py + 4, fabs(yv) < 1e-12 * ys ? 0.0 : yv);
    }
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
            (L + W - R) / 2, H - 12, xl);
    fprintf(out, "<text x=\"14\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 14 %.1f)\">%s%s</text>\n", (T + H - B) / 2, (T + H - B) / 2, yl,
            logy ? " (log scale)" : "");
    fprintf(out, "<text x=\"%.1f\" y=\"20\" font-size=\"13\" text-anchor=\"middle\">", W / 2);
    html_escape(out, title);
    fprintf(out, "</text>\n");
    /* the legend, right of the plot area: a swatch in each series' colour and dash, the label
     * wrapped at 34 characters (never cut) */
    double ly = T + 10;
    for (size_t k = 0; k < ns; k++) {
        fprintf(out, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
                s[k].color, s[k].dashed == 1 ? " stroke-dasharray=\"6,4\"" : s[k].dashed == 2 ? " stroke-dasharray=\"2,3\"" : "");
        for (size_t i = 0; i < s[k].n; i++) {
            double y = s[k].y[i];
            if ((logy && !(y > 0)) || !isfinite(y) || s[k].x[i] > x1 || s[k].x[i] < x0)
                continue;
            y = logy ? log10(y) : y;
            if (y < y0)
                continue;
            fprintf(out, "%.1f,%.1f ", PX(s[k].x[i]), PY(y));
        }
        fprintf(out, "\"/>\n");
        fprintf(out, "<line class=\"swatch\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                     "stroke-width=\"2\"%s/>", W - R + 12, ly - 4, W - R + 40, ly - 4, s[k].color,
                s[k].dashed == 1 ? " stroke-dasharray=\"6,4\"" : s[k].dashed == 2 ? " stroke-dasharray=\"2,3\"" : "");
        const char *lab = s[k].label;
        size_t len = strlen(lab), at = 0;
        while (at < len) {
            size_t take = len - at > 34 ? 34 : len - at;
            if (at + take < len) /* break at a space when there is one */
                for (size_t q = take; q > 16; q--)
                    if (lab[at + q] == ' ') {
                        take = q;
                        break;
                    }
            fprintf(out, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", W - R + 46, ly);
            char part[64];
            snprintf(part, sizeof part, "%.*s", (int)take, lab + at);
            html_escape(out, part);
            fprintf(out, "</text>\n");
            ly += 13;
            at += take;
            while (at < len && lab[at] == ' ')
                at++;
        }
        ly += 4;
    }
    if (pm->nm) {
        static const char *vn[] = {"claim: VERIFIED", "claim: NO VIOLATION FOUND",
                                   "claim: INCONCLUSIVE", "claim: VIOLATION"};
        int seen[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < pm->nm; i++)
            if (pm->mv[i] >= 0 && pm->mv[i] < 4)
                seen[pm->mv[i]] = 1;
        for (int v = 0; v < 4; v++)
            if (seen[v]) {
                svg_marker(out, W - R + 26, ly - 4, v);
                fprintf(out, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n",
                        W - R + 46, ly, vn[v]);
                ly += 17;
            }
    }
    for (size_t i = 0; i < pm->nm; i++) {
        if (logy && !(pm->my[i] > 0))
            continue;
        double y = logy ? log10(pm->my[i]) : pm->my[i];
        svg_marker(out, PX(pm->mx[i]), PY(y), pm->mv[i]);
    }
    fprintf(out, "</svg>\n");
#undef PX
#undef PY
}

/* The trade-off (f-DP) curve of the worst plotted pair against a GDP claim's G_mu(alpha) =
 * Phi(Phi^{-1}(1 - alpha) - mu): from the profile by f(alpha) = sup_eps max(0, 1 - delta(eps)
 * - e^eps alpha, e^-eps (1 - delta(eps) - alpha)), delta = the larger direction (Dong, Roth &
 * Su 2022, Prop. 2.12); on the plotted eps grid the supremum is approached from below, so the
 * curve drawn is a lower bound of the pair's trade-off function. */
static void tradeoff_plot(FILE *out, const ga_audit *a)
{
    char nb[GA_SPEC_NAME_LEN]; /* (ga_audit_pair_name) */
    double mu = NAN;
    for (size_t i = 0; i < a->nclaims; i++)
        if (a->claims[i].type == GA_CLAIM_GDP) {
            mu = a->claims[i].eps_a;
            break;
        }
    if (!isfinite(mu) || !a->nplot)
        return;
    enum { N = 101 };
    double al[N], fp[N], fg[N];
    for (int k = 0; k < N; k++) {
        double x = (double)k / (N - 1), f = 0;
        for (size_t j = 0; j < GA_PLOT_POINTS; j++) {
            double e = a->plot_eps[j], d = fmax(a->plot_xy[0][j], a->plot_yx[0][j]);
            if (!isfinite(d))
                continue;
            f = fmax(f, fmax(1 - d - exp(e) * x, exp(-e) * (1 - d - x)));
        }
        al[k] = x;
        fp[k] = fmin(fmax(0, f), 1 - x); /* a trade-off function lies below 1 - alpha */
        /* G_mu(x) = Phi(Phi^{-1}(1 - x) - mu), Phi^{-1} by bisection on erfc (monotone) */
        double lo = -40, hi = 40;
        for (int it = 0; it < 200 && x > 0 && x < 1; it++) {
            double m = 0.5 * (lo + hi);
            if (0.5 * erfc(-m / M_SQRT2) < 1 - x)
                lo = m;
            else
                hi = m;
        }
        fg[k] = x <= 0 ? 1 : x >= 1 ? 0 : 0.5 * erfc(-(0.5 * (lo + hi) - mu) / M_SQRT2);
    }
    char lab[300], gl[80];
    snprintf(lab, sizeof lab, "%s (from its profile: a lower bound)", ga_audit_pair_name(a, a->plot_pair[0], nb));
    snprintf(gl, sizeof gl, "the claimed %g-GDP curve G_mu", mu);
    series s[2] = {{al, fp, N, "#D55E00", lab, 0}, {al, fg, N, "#000", gl, 2}};
    plot_marks pm = {NULL, NULL, NULL, 0, 0, 0};
    fprintf(out, "<h2>Trade-off curve</h2>\n");
    svg_plot(out, "tradeoff-plot", "trade-off (f-DP): type II error against type I error",
             "type I error alpha", "type II error beta", 0, s, 2, &pm);
}

/* ------------------------------------------------------------ HTML */

static const char *verdict_class(int v)
{
    static const char *c[] = {"verified", "noviolation", "inconclusive", "violation"};
    return v >= 0 && v <= 3 ? c[v] : "inconclusive";
}

int ga_report_html(FILE *out, const ga_audit *a)
{
    char nb[GA_SPEC_NAME_LEN]; /* (ga_audit_pair_name) */
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>gaussaudit report: ");
    html_escape(out, a->spec.name);
    fprintf(out, " \xe2\x80\x94 %s</title>\n<style>\n"
                 "body{font-family:sans-serif;max-width:1000px;margin:1em auto;padding:0 1em;color:#222}\n"
                 ".banner{padding:1em;border-radius:6px;font-size:1.3em;font-weight:bold;margin:1em 0}\n"
                 ".violation{background:#fde0dc;border:3px solid #b2182b}"
                 ".verified{background:#d9f0d3;border:3px solid #1b7837}\n"
                 ".noviolation{background:#e8eef5;border:3px dashed #2166ac}"
                 ".inconclusive{background:#fff1cc;border:3px dotted #b35806}\n"
                 ".banner .meaning{display:block;font-size:.7em;font-weight:normal;margin-top:.3em}\n"
                 "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #bbb;padding:3px 6px;font-size:0.9em}\n"
                 "th{background:#eee;cursor:pointer}.num{text-align:right;font-family:monospace}\n"
                 ".repro{background:#f6f6f6;padding:0.5em 1em;font-size:0.85em}\n</style>\n</head>\n<body>\n",
            ga_verdict_name(a->overall));
    fprintf(out, "<h1>gaussaudit report: ");
    html_escape(out, a->spec.name);
    fprintf(out, " \xe2\x80\x94 %s</h1>\n<div id=\"verdict\" class=\"banner %s\">%s %s<span class=\"meaning\">%s</span>"
                 "</div>\n", ga_verdict_name(a->overall), verdict_class(a->overall),
            verdict_mark(a->overall), ga_verdict_name(a->overall), verdict_meaning(a->overall));
    if (a->incomplete)
        fprintf(out, "<p><b>Incomplete: %s.</b></p>\n", a->timeout_note);
    if (a->spec.nrel)
        fprintf(out, "<p><b>Relative DP</b> (Lu et al.; 000 Section 7): the claims are audited over "
                "the %zu neighbouring pairs within the given set of %zu datasets, not over every "
                "neighbour.</p>\n", a->npairs, a->spec.nrel);
    if (a->spec.verified) {
        fprintf(out, "<p>The audited pairs include the proven ");
        html_escape(out, a->spec.verified_note);
        fprintf(out, ".</p>\n");
    }
    if (a->spec.release_note[0]) {
        fprintf(out, "<p>Some pairs are audited before the release: ");
        html_escape(out, a->spec.release_note);
        fprintf(out, ". Their values are upper bounds of the release's (post-processing), never "
                "violations.</p>\n");
    }
    fprintf(out, "<h2>Claims</h2>\n<table id=\"claims\"><tr><th>claim</th><th>verdict</th><th>tightness</th>"
                 "<th>certified</th><th>reason</th></tr>\n");
    for (size_t i = 0; i < a->nclaims; i++) {
        const ga_claim_result *r = &a->claims[i];
        char c[96], t[640], iv[176] = "no";
        ga_claim_text(c, sizeof c, r);
        tightness_text(t, sizeof t, r);
        if (r->certified)
            cert_text(iv, sizeof iv, r);
        fprintf(out, "<tr class=\"%s\"><td>", verdict_class(r->verdict));
        html_escape(out, c);
        fprintf(out, "</td><td>%s</td><td>", ga_verdict_name(r->verdict));
        html_escape(out, t);
        fprintf(out, "</td><td class=\"num\">%s</td><td>", iv);
        html_escape(out, r->reason);
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</table>\n");
    for (size_t i = 0; i < a->nclaims; i++) {
        const ga_claim_result *r = &a->claims[i];
        if (r->type != GA_CLAIM_DP || !evaluated(r))
            continue;
        char ct[96];
        ga_claim_text(ct, sizeof ct, r);
        fprintf(out, "<h3>Worst pair for ");
        html_escape(out, ct);
        fprintf(out, "</h3>\n<p>Pair <b>");
        html_escape(out, ga_audit_pair_name(a, r->worst_pair, nb));
        fprintf(out, "</b>, direction %s. Distinguishing event: ", r->worst_dir == 1 ? "X,Y" : "Y,X");
        html_escape(out, r->witness);
        char wp[96];
        witness_probs(wp, sizeof wp, r);
        fprintf(out, ". %s.</p>\n", wp);
    }
    /* privacy profile plot with the claims marked */
    if (a->nplot) {
        series s[2 * GA_PLOT_PAIRS + 1];
        /* Okabe-Ito colours (told apart with colour-blindness) and a dash per direction */
        static const char *colors[] = {"#D55E00", "#0072B2", "#009E73", "#E69F00", "#CC79A7", "#56B4E9"};
        char labels[2 * GA_PLOT_PAIRS][400];
        size_t ns = 0;
        for (size_t j = 0; j < a->nplot; j++) {
            /* directions whose curves coincide are one curve, labelled so */
            int same = 1;
            for (size_t k = 0; k < GA_PLOT_POINTS && same; k++)
                same = fabs(a->plot_xy[j][k] - a->plot_yx[j][k]) <=
                       1e-9 * fmax(fabs(a->plot_xy[j][k]), 1e-300);
            for (int dir = 0; dir < (same ? 1 : 2); dir++, ns++) {
                snprintf(labels[ns], sizeof labels[ns], "%s: %s", ga_audit_pair_name(a, a->plot_pair[j], nb),
                         same ? "delta_XY = delta_YX (the curves coincide)" : dir ? "delta_YX" : "delta_XY");
                s[ns] = (series){a->plot_eps, dir ? a->plot_yx[j] : a->plot_xy[j], GA_PLOT_POINTS,
                                 colors[ns % 6], labels[ns], dir};
            }
        }
        double gx[GA_PLOT_POINTS], gy[GA_PLOT_POINTS];
        for (size_t i = 0; i < a->nclaims; i++)
            if (a->claims[i].type == GA_CLAIM_GDP) {
                double mu = a->claims[i].eps_a;
                for (size_t k = 0; k < GA_PLOT_POINTS; k++) {
                    gx[k] = a->plot_eps[k];
                    gy[k] = 0.5 * erfc((gx[k] / mu - mu / 2) / M_SQRT2) -
                            exp(gx[k]) * 0.5 * erfc((gx[k] / mu + mu / 2) / M_SQRT2);
                }
                s[ns++] = (series){gx, gy, GA_PLOT_POINTS, "#000", "the claimed GDP curve", 2};
                break;
            }
        double mx[64], my[64], xcap = 0, ymin = INFINITY;
        int mv[64];
        size_t nm = 0;
        for (size_t i = 0; i < a->nclaims && nm < 64; i++)
            if (a->claims[i].type == GA_CLAIM_DP) {
                mx[nm] = a->claims[i].eps;
                mv[nm] = a->claims[i].verdict;
                my[nm++] = a->claims[i].delta;
                /* judged: up to twice the largest claimed eps, down to a hundredth of the
                 * smallest claimed or exact delta */
                xcap = fmax(xcap, 2 * a->claims[i].eps + 0.5);
                if (a->claims[i].delta > 0)
                    ymin = fmin(ymin, a->claims[i].delta / 100);
                if (a->claims[i].exact.val > 0)
                    ymin = fmin(ymin, a->claims[i].exact.val / 100);
            }
        plot_marks pm = {mx, my, mv, nm, nm ? xcap : 0, isfinite(ymin) ? ymin : 1e-20};
        fprintf(out, "<h2>Privacy profile</h2>\n");
        svg_plot(out, "profile-plot", "privacy profile delta(eps), both directions; markers: claims",
                 "epsilon", "delta", 1, s, ns, &pm);
    }
    tradeoff_plot(out, a);
    if (a->have_renyi) {
        series s[2] = {{a->renyi_alpha, a->renyi_xy, 60, "#D55E00", "D_alpha(X||Y)", 0},
                       {a->renyi_alpha, a->renyi_yx, 60, "#0072B2", "D_alpha(Y||X)", 1}};
        double mx[64], my[64];
        int mv[64];
        size_t nm = 0;
        for (size_t i = 0; i < a->nclaims && nm < 64; i++)
            if (a->claims[i].type == GA_CLAIM_RDP) {
                mx[nm] = a->claims[i].alpha;
                mv[nm] = a->claims[i].verdict;
                my[nm++] = a->claims[i].eps_a;
            }
        plot_marks pm = {mx, my, mv, nm, 0, 0};
        fprintf(out, "<h2>Renyi divergence</h2>\n");
        char title[200];
        snprintf(title, sizeof title, "Renyi divergence of pair '%.60s'; markers: RDP claims",
                 ga_audit_pair_name(a, a->renyi_pair, nb));
        svg_plot(out, "renyi-plot", title, "alpha", "D_alpha", 0, s, 2, &pm);
    }
    /* sortable pairs table */
    size_t *idx = malloc(TABLE_CAP * sizeof *idx);
    size_t m = idx ? order(a, idx, TABLE_CAP) : 0;
    fprintf(out, "<h2>Pairs</h2>\n<p>delta at eps = %.6g%s; click a column to sort.</p>\n"
                 "<table id=\"pairs\" class=\"sortable\"><thead><tr><th>pair</th><th>delta_XY</th>"
                 "<th>error</th><th>delta_YX</th><th>error</th>%s</tr></thead><tbody>\n",
            a->table_eps, a->npairs > m ? " (the largest first)" : "",
            a->npair_cert ? "<th>certified delta_XY</th><th>certified delta_YX</th>" : "");
    for (size_t k = 0; k < m; k++) {
        size_t i = idx[k];
        fprintf(out, "<tr><td>");
        html_escape(out, ga_audit_pair_name(a, i, nb));
        fprintf(out, "</td><td class=\"num\" data-v=\"%.17g\">%.6g</td><td class=\"num\" data-v=\"%.17g\">%.2g</td>"
                     "<td class=\"num\" data-v=\"%.17g\">%.6g</td><td class=\"num\" data-v=\"%.17g\">%.2g</td>",
                a->pair_xy[i], a->pair_xy[i], a->pair_xy_err[i], a->pair_xy_err[i], a->pair_yx[i],
                a->pair_yx[i], a->pair_yx_err[i], a->pair_yx_err[i]);
        if (a->npair_cert) {
            char c1[80], c2[80];
            ga_interval cx, cy;
            ga_audit_pair_cert(a, i, &cx, &cy);
            pair_cert_text(c1, sizeof c1, &cx);
            pair_cert_text(c2, sizeof c2, &cy);
            fprintf(out, "<td class=\"num\">%s</td><td class=\"num\">%s</td>", c1, c2);
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</tbody></table>\n");
    if (a->npairs > m)
        fprintf(out, "<p>%zu more pairs not listed.</p>\n", a->npairs - m);
    free(idx);
    fprintf(out, "<h2>Reproducibility</h2>\n<div class=\"repro\" id=\"repro\"><p>tool: gaussaudit %s<br>"
                 "spec: <code>", GA_VERSION_STRING);
    html_escape(out, a->spec.path);
    fprintf(out, "</code>, SHA-256 <code>%s</code><br>", a->digest);
    what_was_audited(out, a, html_escape, "", "<br>");
    for (size_t i = 0; i < a->spec.ninputs; i++) {
        html_escape(out, a->spec.inputs[i].key);
        fprintf(out, ": <code>");
        html_escape(out, a->spec.inputs[i].path);
        fprintf(out, "</code>, SHA-256 <code>%s</code><br>", a->spec.inputs[i].sha256);
    }
    fprintf(out, "pairs audited: %zu<br>methods: %s<br>"
                 "certified mode: %s; certified evaluations: %zu (delta, Renyi or Mahalanobis intervals "
                 "of single pairs), %.3f s; highest precision: %ld bits</p></div>\n",
            a->npairs, methods(a),
            a->certified_mode ? "yes" : "no (escalated where a verdict needed it)", a->ncertified,
            a->cert_seconds, a->max_bits);
    fprintf(out,
            "<script>\n"
            "document.querySelectorAll('table.sortable').forEach(function (t) {\n"
            "  t.querySelectorAll('th').forEach(function (th, col) {\n"
            "    th.addEventListener('click', function () {\n"
            "      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
            "      var asc = th.dataset.asc !== '1'; th.dataset.asc = asc ? '1' : '0';\n"
            "      rows.sort(function (a, b) {\n"
            "        var x = a.cells[col], y = b.cells[col];\n"
            "        var u = x.dataset.v !== undefined ? parseFloat(x.dataset.v) : x.textContent;\n"
            "        var v = y.dataset.v !== undefined ? parseFloat(y.dataset.v) : y.textContent;\n"
            "        return (u < v ? -1 : u > v ? 1 : 0) * (asc ? 1 : -1);\n"
            "      });\n"
            "      rows.forEach(function (r) { body.appendChild(r); });\n"
            "    });\n"
            "  });\n"
            "});\n"
            /* a self-check a test can read from the rendered DOM: SVG text that leaves its
             * plot, and how many plot elements were drawn */
            "(function () {\n"
            "  var bad = 0, n = 0;\n"
            "  document.querySelectorAll('svg.plot').forEach(function (svg) {\n"
            "    var s = svg.getBoundingClientRect();\n"
            "    svg.querySelectorAll('text').forEach(function (t) {\n"
            "      var b = t.getBoundingClientRect(); n++; /* transforms included */\n"
            "      if (b.left < s.left - 0.5 || b.top < s.top - 0.5 || b.right > s.right + 0.5 ||\n"
            "          b.bottom > s.bottom + 0.5) {\n"
            "        if (!bad) document.body.setAttribute('data-text-overflow-first', t.textContent);\n"
            "        bad++;\n"
            "      }\n"
            "    });\n"
            "  });\n"
            "  document.body.setAttribute('data-text-overflow', String(bad));\n"
            "  document.body.setAttribute('data-plot-texts', String(n));\n"
            "})();\n"
            "</script>\n</body>\n</html>\n");
    return ferror(out) ? GA_EIO : GA_OK;
}

/* ------------------------------------------------------------ JSON */

/* "plots": the curves the HTML report draws, as numbers a user can plot again: the privacy
 * profiles of the pairs with the largest delta at the table's eps (both directions, on one
 * eps grid) and the Renyi divergences of the worst pair of an RDP or zCDP claim (null where a
 * point could not be computed; absent curves: the audit ran out of time, or has no such
 * claim) */
static void json_plots(ga_jw *j, const ga_audit *a)
{
    char nb[GA_SPEC_NAME_LEN];
    ga_jw_obj(j, "plots");
    ga_jw_obj(j, "profile");
    ga_jw_arr(j, "epsilon");
    for (size_t i = 0; a->nplot && i < GA_PLOT_POINTS; i++)
        ga_jw_num(j, NULL, a->plot_eps[i]);
    ga_jw_arr_end(j);
    ga_jw_arr(j, "pairs");
    for (size_t p = 0; p < a->nplot; p++) {
        ga_jw_obj(j, NULL);
        ga_jw_str(j, "name", ga_audit_pair_name(a, a->plot_pair[p], nb));
        for (int d = 0; d < 2; d++) {
            ga_jw_arr(j, d ? "delta_yx" : "delta_xy");
            for (size_t i = 0; i < GA_PLOT_POINTS; i++)
                ga_jw_num(j, NULL, d ? a->plot_yx[p][i] : a->plot_xy[p][i]);
            ga_jw_arr_end(j);
        }
        ga_jw_obj_end(j);
    }
    ga_jw_arr_end(j);
    ga_jw_obj_end(j);
    if (a->have_renyi) {
        ga_jw_obj(j, "renyi");
        ga_jw_str(j, "pair", ga_audit_pair_name(a, a->renyi_pair, nb));
        const double *v[3] = {a->renyi_alpha, a->renyi_xy, a->renyi_yx};
        static const char *const key[3] = {"alpha", "d_xy", "d_yx"};
        for (int k = 0; k < 3; k++) {
            ga_jw_arr(j, key[k]);
            for (size_t i = 0; i < sizeof a->renyi_alpha / sizeof *a->renyi_alpha; i++)
                ga_jw_num(j, NULL, v[k][i]);
            ga_jw_arr_end(j);
        }
        ga_jw_obj_end(j);
    } else {
        ga_jw_null(j, "renyi");
    }
    ga_jw_obj_end(j);
}

int ga_report_json(FILE *out, const ga_audit *a)
{
    char nb[GA_SPEC_NAME_LEN]; /* (ga_audit_pair_name) */
    char tool[64];
    snprintf(tool, sizeof tool, "gaussaudit %s", GA_VERSION_STRING);
    ga_jw j;
    ga_jw_init(&j, out);
    ga_jw_obj(&j, NULL);
    ga_jw_str(&j, "tool", tool);
    ga_jw_str(&j, "spec", a->spec.name);
    ga_jw_str(&j, "spec_path", a->spec.path);
    ga_jw_str(&j, "spec_sha256", a->digest);
    ga_report_inputs_json(&j, &a->spec);
    ga_report_mechanism_json(&j, "mechanism", &a->spec);
    ga_jw_str(&j, "source", ga_report_spec_text(&a->spec, "source"));
    ga_jw_str(&j, "description", ga_report_spec_text(&a->spec, "description"));
    ga_jw_str(&j, "verdict", ga_verdict_name(a->overall));
    ga_jw_int(&j, "exit_status",
              a->overall == GA_VERDICT_VIOLATION ? 1 : a->overall == GA_VERDICT_INCONCLUSIVE ? 2 : 0);
    ga_jw_bool(&j, "relative", a->spec.nrel > 0);
    if (a->spec.nrel)
        ga_jw_int(&j, "relative_datasets", (long)a->spec.nrel);
    ga_jw_bool(&j, "verification", a->spec.verified);
    if (a->spec.verified)
        ga_jw_str(&j, "verification_note", a->spec.verified_note);
    if (a->spec.release_note[0])
        ga_jw_str(&j, "unreleased_note", a->spec.release_note);
    ga_jw_bool(&j, "timed_out", a->incomplete);
    if (a->incomplete)
        ga_jw_str(&j, "timeout_note", a->timeout_note);
    ga_jw_arr(&j, "claims");
    for (size_t i = 0; i < a->nclaims; i++) {
        const ga_claim_result *r = &a->claims[i];
        const char *tn = ga_claim_type_name(r->type);
        ga_jw_obj(&j, NULL);
        ga_jw_str(&j, "type", tn ? tn : "unknown");
        if (r->type == GA_CLAIM_DP) {
            ga_jw_num(&j, "epsilon", r->eps);
            ga_jw_num(&j, "delta", r->delta);
        } else if (r->type == GA_CLAIM_RDP) {
            ga_jw_num(&j, "alpha", r->alpha);
            ga_jw_num(&j, "eps_alpha", r->eps_a);
        } else {
            ga_jw_num(&j, r->type == GA_CLAIM_ZCDP ? "rho" : "mu", r->eps_a);
        }
        ga_jw_str(&j, "verdict", ga_verdict_name(r->verdict));
        ga_jw_str(&j, "reason", r->reason);
        ga_jw_obj(&j, "exact");
        ga_jw_num(&j, "value", r->exact.val);
        ga_jw_num(&j, "err", r->exact.err);
        ga_jw_obj_end(&j);
        ga_jw_bool(&j, "certified", r->certified);
        if (r->certified) {
            ga_interval iv = {r->cert_lo, r->cert_hi};
            ga_jw_interval(&j, "interval", &iv, r->cert_lo_dec[0] ? r->cert_lo_dec : NULL,
                           r->cert_hi_dec[0] ? r->cert_hi_dec : NULL);
            /* log10 of the bounds, finite where the doubles underflow to 0 */
            if (r->cert_lo_dec[0])
                ga_jw_num(&j, "interval_lo_log10", decimal_log10(r->cert_lo_dec));
            if (r->cert_hi_dec[0])
                ga_jw_num(&j, "interval_hi_log10", decimal_log10(r->cert_hi_dec));
        }
        if (r->exact.val > 0)
            ga_jw_num(&j, "exact_log10", log10(r->exact.val));
        ga_jw_bool(&j, "evaluated", r->evaluated);
        if (!r->evaluated) { /* (the deadline came first: no pair, no witness) */
            ga_jw_obj_end(&j);
            continue;
        }
        ga_jw_str(&j, "worst_pair", ga_audit_pair_name(a, r->worst_pair, nb));
        ga_jw_str(&j, "direction", r->worst_dir == 1 ? "xy" : "yx");
        if (r->type == GA_CLAIM_DP) /* the value is the release's, or a bound's (not attained) */
            ga_jw_str(&j, "value_kind", r->bound ? "upper bound" : r->lower ? "lower bound" : "exact");
        ga_jw_num(&j, "slack", r->slack);
        if (r->type == GA_CLAIM_DP) {
            ga_jw_num(&j, "epsilon_at_delta", r->eps_at_delta.val);
            if (r->rdp_eps > 0) { /* subsampled pairs: the RDP accountant, for comparison */
                ga_jw_num(&j, "rdp_accountant_epsilon", r->rdp_eps);
                ga_jw_num(&j, "rdp_accountant_order", r->rdp_order);
            }
            if (r->pld_eps > 0) /* and a PLD accountant's (connect the dots, grid 1e-4) */
                ga_jw_num(&j, "pld_accountant_epsilon", r->pld_eps);
            ga_jw_obj(&j, "witness");
            ga_jw_str(&j, "event", r->witness);
            ga_jw_num(&j, "p_x", r->witness_px);
            ga_jw_num(&j, "p_y", r->witness_py);
            if (r->witness_d) { /* the event as numbers: x^T A x + b^T x + c vs threshold */
                size_t d = r->witness_d;
                ga_jw_arr(&j, "A");
                for (size_t i = 0; i < d; i++) {
                    ga_jw_arr(&j, NULL);
                    for (size_t k = 0; k < d; k++)
                        ga_jw_num(&j, NULL, r->witness_A[i * d + k]);
                    ga_jw_arr_end(&j);
                }
                ga_jw_arr_end(&j);
                ga_jw_arr(&j, "b");
                for (size_t i = 0; i < d; i++)
                    ga_jw_num(&j, NULL, r->witness_b[i]);
                ga_jw_arr_end(&j);
                ga_jw_num(&j, "c", r->witness_c);
                ga_jw_str(&j, "relation", r->witness_rel > 0 ? ">" : "<");
                ga_jw_num(&j, "threshold", r->witness_threshold);
                ga_jw_num(&j, "columns", r->witness_columns);
            }
            ga_jw_obj_end(&j);
        }
        if (r->type == GA_CLAIM_ZCDP || r->type == GA_CLAIM_GDP)
            ga_jw_num(&j, "at", r->at);
        ga_jw_obj_end(&j);
    }
    ga_jw_arr_end(&j);
    ga_jw_num(&j, "table_epsilon", a->table_eps);
    ga_jw_arr(&j, "pairs");
    for (size_t i = 0; i < a->npairs; i++) {
        ga_result xy = {a->pair_xy[i], a->pair_xy_err[i]}, yx = {a->pair_yx[i], a->pair_yx_err[i]};
        ga_jw_obj(&j, NULL);
        ga_jw_str(&j, "name", ga_audit_pair_name(a, i, nb));
        ga_jw_result(&j, "xy", &xy);
        ga_jw_result(&j, "yx", &yx);
        ga_interval cx, cy;
        ga_audit_pair_cert(a, i, &cx, &cy);
        if (cx.lo <= cx.hi) {
            ga_jw_interval(&j, "certified_xy", &cx, NULL, NULL);
            ga_jw_interval(&j, "certified_yx", &cy, NULL, NULL);
        }
        ga_jw_obj_end(&j);
    }
    ga_jw_arr_end(&j);
    json_plots(&j, a);
    ga_jw_obj(&j, "reproducibility");
    ga_jw_bool(&j, "certified_mode", a->certified_mode);
    ga_jw_int(&j, "certified_evaluations", (long)a->ncertified);
    ga_jw_num(&j, "certified_seconds", a->cert_seconds);
    ga_jw_int(&j, "precision_bits", a->max_bits);
    ga_jw_str(&j, "methods", methods(a));
    ga_jw_obj_end(&j);
    ga_jw_obj_end(&j);
    return ferror(out) ? GA_EIO : GA_OK;
}

/* ------------------------------------------------------------ JUnit */

/* the JUnit classname of a spec: its path without the extension, '/' as '.', then its name,
 * every character outside [A-Za-z0-9_] as '_' (dashboards split classnames at dots) */
static void junit_classname(FILE *out, const ga_audit *a)
{
    const char *p = a->spec.path;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    size_t n = strlen(p);
    if (n > 5 && !strcmp(p + n - 5, ".yaml"))
        n -= 5;
    else if (n > 4 && !strcmp(p + n - 4, ".yml"))
        n -= 4;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        fputc(c == '/' ? '.' : (isalnum(c) || c == '_' || c == '-') ? c : '_', out);
    }
    fputc('.', out);
    int last = 0;
    for (const unsigned char *q = (const unsigned char *)a->spec.name; *q; q++) {
        int ok = isalnum(*q);
        if (ok || last)
            fputc(ok ? *q : '_', out);
        last = ok;
    }
}

/* one testsuite: properties (tool version, spec path and digest, verdict), a testcase per
 * claim (VIOLATION: failure with the reason and the witness; INCONCLUSIVE: error, since the
 * Ant schema has no skipped element), the passing claims' reasons in system-out */
static void junit_suite(FILE *out, const ga_audit *a, size_t id, const char *host)
{
    size_t fails = 0, errs = 0;
    for (size_t i = 0; i < a->nclaims; i++) {
        fails += a->claims[i].verdict == GA_VERDICT_VIOLATION;
        errs += a->claims[i].verdict == GA_VERDICT_INCONCLUSIVE;
    }
    char stamp[32] = "1970-01-01T00:00:00";
    time_t t = (time_t)a->started;
    struct tm tmv;
    if (gmtime_r(&t, &tmv))
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tmv);
    fprintf(out, "  <testsuite name=\"");
    html_escape(out, a->spec.name);
    fprintf(out, "\" package=\"");
    html_escape(out, a->spec.path);
    fprintf(out, "\" id=\"%zu\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\" "
                 "timestamp=\"%s\" hostname=\"", id, a->nclaims, fails, errs, a->seconds, stamp);
    html_escape(out, host);
    fprintf(out, "\">\n    <properties>\n");
    fprintf(out, "      <property name=\"tool\" value=\"gaussaudit %s\"/>\n", GA_VERSION_STRING);
    fprintf(out, "      <property name=\"spec_path\" value=\"");
    html_escape(out, a->spec.path);
    fprintf(out, "\"/>\n      <property name=\"spec_sha256\" value=\"%s\"/>\n", a->digest);
    for (size_t i = 0; i < a->spec.ninputs; i++) {
        fprintf(out, "      <property name=\"input:");
        html_escape(out, a->spec.inputs[i].key);
        fprintf(out, "\" value=\"%s ", a->spec.inputs[i].sha256);
        html_escape(out, a->spec.inputs[i].path);
        fprintf(out, "\"/>\n");
    }
    char mech[GA_REPORT_MECH_LEN];
    ga_report_mechanism_text(mech, sizeof mech, &a->spec);
    fprintf(out, "      <property name=\"mechanism\" value=\"");
    html_escape(out, mech);
    fprintf(out, "\"/>\n");
    const char *src = ga_report_spec_text(&a->spec, "source");
    if (src) {
        fprintf(out, "      <property name=\"source\" value=\"");
        html_escape(out, src);
        fprintf(out, "\"/>\n");
    }
    fprintf(out, "      <property name=\"verdict\" value=\"%s\"/>\n    </properties>\n",
            ga_verdict_name(a->overall));
    for (size_t i = 0; i < a->nclaims; i++) {
        const ga_claim_result *r = &a->claims[i];
        char c[96];
        ga_claim_text(c, sizeof c, r);
        fprintf(out, "    <testcase classname=\"");
        junit_classname(out, a);
        fprintf(out, "\" name=\"");
        html_escape(out, c);
        fprintf(out, "\" time=\"%.3f\"", r->seconds);
        if (r->verdict != GA_VERDICT_VIOLATION && r->verdict != GA_VERDICT_INCONCLUSIVE) {
            fprintf(out, "/>\n");
            continue;
        }
        int viol = r->verdict == GA_VERDICT_VIOLATION;
        fprintf(out, ">\n      <%s message=\"", viol ? "failure" : "error");
        html_escape(out, r->reason);
        if (viol && r->type == GA_CLAIM_DP && r->witness[0]) {
            fprintf(out, "; witness: ");
            html_escape(out, r->witness);
        }
        fprintf(out, "\" type=\"%s\">", ga_verdict_name(r->verdict));
        html_escape(out, r->reason);
        if (r->type == GA_CLAIM_DP && r->witness[0]) {
            fprintf(out, "\nwitness: ");
            html_escape(out, r->witness);
            fprintf(out, "\nP_X[S] = %.17g, P_Y[S] = %.17g", r->witness_px, r->witness_py);
        }
        fprintf(out, "</%s>\n    </testcase>\n", viol ? "failure" : "error");
    }
    fprintf(out, "    <system-out>");
    for (size_t i = 0; i < a->nclaims; i++) {
        char c[96];
        ga_claim_text(c, sizeof c, &a->claims[i]);
        html_escape(out, c);
        fprintf(out, ": %s: ", ga_verdict_name(a->claims[i].verdict));
        html_escape(out, a->claims[i].reason);
        fprintf(out, "\n");
    }
    fprintf(out, "</system-out>\n    <system-err/>\n  </testsuite>\n");
}

/* the testsuite of a spec that could not be audited (invalid, unreadable): one testcase
 * "spec" with an error carrying the message */
static void junit_error_suite(FILE *out, const char *path, const char *error, size_t id,
                              const char *host)
{
    fprintf(out, "  <testsuite name=\"");
    html_escape(out, path);
    fprintf(out, "\" package=\"");
    html_escape(out, path);
    fprintf(out, "\" id=\"%zu\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"0.000\" "
                 "timestamp=\"1970-01-01T00:00:00\" hostname=\"", id);
    html_escape(out, host);
    fprintf(out, "\">\n    <properties>\n");
    fprintf(out, "      <property name=\"tool\" value=\"gaussaudit %s\"/>\n", GA_VERSION_STRING);
    fprintf(out, "      <property name=\"spec_path\" value=\"");
    html_escape(out, path);
    fprintf(out, "\"/>\n      <property name=\"verdict\" value=\"ERROR\"/>\n    </properties>\n");
    fprintf(out, "    <testcase classname=\"gaussaudit\" name=\"spec\" time=\"0.000\">\n"
                 "      <error message=\"");
    html_escape(out, error);
    fprintf(out, "\" type=\"ERROR\">");
    html_escape(out, error);
    fprintf(out, "</error>\n    </testcase>\n    <system-out/>\n    <system-err/>\n"
                 "  </testsuite>\n");
}

int ga_report_junit_many(FILE *out, const ga_audit *const *a, const char *const *paths,
                         const char *const *errors, size_t n)
{
    char host[256] = "localhost";
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "localhost");
    host[sizeof host - 1] = 0;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (size_t i = 0; i < n; i++) {
        if (a[i])
            junit_suite(out, a[i], i, host);
        else
            junit_error_suite(out, paths && paths[i] ? paths[i] : "?",
                              errors && errors[i] ? errors[i] : "not audited", i, host);
    }
    fprintf(out, "</testsuites>\n");
    return ferror(out) ? GA_EIO : GA_OK;
}

int ga_report_junit(FILE *out, const ga_audit *a)
{
    return ga_report_junit_many(out, &a, NULL, NULL, 1);
}

int ga_audit_results_write_junit_errors(FILE *out, ga_audit_result *const *r,
                                        const char *const *paths, const char *const *errors,
                                        size_t n)
{
    const ga_audit **a = malloc((n ? n : 1) * sizeof *a);
    if (!a)
        return GA_ENOMEM;
    for (size_t i = 0; i < n; i++)
        a[i] = r[i] ? &r[i]->a : NULL;
    int rc = ga_report_junit_many(out, a, paths, errors, n);
    free(a);
    return rc;
}

int ga_audit_results_write_junit(FILE *out, ga_audit_result *const *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!r[i])
            return GA_EINVAL;
    return ga_audit_results_write_junit_errors(out, r, NULL, NULL, n);
}

int ga_audit_result_write(FILE *out, const ga_audit_result *r, int format)
{
    /* a shard's result is a partial result only; a partial result is a shard's only */
    if ((format == GA_FORMAT_PARTIAL) != (r->a.book.mode == GA_REC_RECORD))
        return GA_EINVAL;
    switch (format) {
    case GA_FORMAT_PARTIAL:
        return ga_report_partial(out, &r->a);
    case GA_FORMAT_MARKDOWN:
        return ga_report_markdown(out, &r->a);
    case GA_FORMAT_HTML:
        return ga_report_html(out, &r->a);
    case GA_FORMAT_JSON:
        return ga_report_json(out, &r->a);
    case GA_FORMAT_JUNIT:
        return ga_report_junit(out, &r->a);
    default:
        return GA_EINVAL;
    }
}

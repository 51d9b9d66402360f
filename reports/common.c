/*
 * common.c - what every report format says the same way: which methods computed the values,
 * the slack and tightness of a claim, the pairs table (largest delta first, at most
 * TABLE_CAP rows), certified intervals and witnesses as text, verdict meanings, and HTML
 * escaping (shared with the JUnit XML).
 */
#include "reports/internal.h"
#include "pair/pair.h" /* (ga_pair_methods) */

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *rp_methods(char *buf, size_t n, const ga_audit *a)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < GA_AUDIT_METHODS && a->methods[i] && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? "; and " : "", a->methods[i]);
    if (!buf[0])
        snprintf(buf, n, "%s", ga_pair_methods(NULL));
    return buf;
}

int rp_evaluated(const ga_claim_result *r)
{
    return r->evaluated;
}

/* Is claim r marked as plot (enum ga_claim_plot) by its row? Then its numbers are in pv. */
int rp_claim_plot(double pv[2], const ga_claim_result *r, int plot)
{
    const ga_claim_row *row = ga_claim_row_of(r->type);
    if (row->plot != plot)
        return 0;
    row->params(pv, r);
    return 1;
}

void rp_tightness_text(char *b, size_t n, const ga_claim_result *r)
{
    if (!rp_evaluated(r))
        snprintf(b, n, "not evaluated");
    else
        ga_claim_row_of(r->type)->tightness(b, n, r);
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
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f || !(h = ga_utf8_len(s))) { /* (or not UTF-8) */
            fprintf(out, "\\x%02x", ch);
            continue;
        }
        if (h > 1) { /* a character beyond ASCII, as it is */
            fwrite(s, 1, h, out);
            s += h - 1;
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

void rp_cert_text(char *iv, size_t n, const ga_claim_result *r)
{
    if (r->cert_hi_dec[0] && (r->cert_hi == 0 || (r->cert_lo == 0 && r->cert_hi < 1e-300))) {
        /* below the double range: the decimal bounds (mantissa and exponent) */
        snprintf(iv, n, "[%s, %s]", r->cert_lo_dec, r->cert_hi_dec); /* (whole: see above) */
        return;
    }
    char lo[32], hi[32];
    double ref = ga_claim_row_of(r->type)->ref(r); /* the claim it decides */
    ga_fmt_bound_decide(lo, sizeof lo, r->cert_lo, 0, ref, 10);
    ga_fmt_bound_decide(hi, sizeof hi, r->cert_hi, 1, ref, 10);
    snprintf(iv, n, "[%s, %s]", lo, hi);
}

const char *rp_verdict_meaning(const ga_audit *a)
{
    int v = a->overall, scoped = 0;
    for (size_t i = 0; i < a->nclaims; i++)
        scoped |= a->claims[i].scope_pair[0] != 0;
    if (v == GA_VERDICT_VERIFIED && scoped)
        return "proof: certified bounds show each claim holds for every neighbour in its scope "
               "(the one pair a claim is about, or a proven worst case)";
    static const char *m[] = {
        "proof: certified bounds on a proven worst case show the claim holds for every neighbour",
        "no proof: the claim holds on every audited pair, which need not be every neighbour",
        "undecided: neither a proof nor a violation could be established (the reasons say why)",
        "disproof: a certified lower bound on an audited pair exceeds the claim"};
    return v >= 0 && v < 4 ? m[v] : "?";
}

const char *rp_verdict_mark(int v)
{
    static const char *m[] = {"&#10004;", "&#9675;", "?", "&#10008;"};
    return v >= 0 && v < 4 ? m[v] : "";
}

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

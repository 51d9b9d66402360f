/*
 * html.c - the HTML report: one self-contained file (inline CSS, inline SVG plots, a few
 * lines of inline JavaScript to sort the pairs table; nothing is fetched), every user string
 * escaped.
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

static const char *verdict_class(int v)
{
    static const char *c[] = {"verified", "noviolation", "inconclusive", "violation"};
    return v >= 0 && v <= 3 ? c[v] : "inconclusive";
}

/* the document head and style, the verdict banner and the notes on what was audited */
static void html_head(FILE *out, const ga_audit *a)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>gaussaudit report: ");
    rp_html_escape(out, a->spec.name);
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
    rp_html_escape(out, a->spec.name);
    fprintf(out, " \xe2\x80\x94 %s</h1>\n<div id=\"verdict\" class=\"banner %s\">%s %s<span class=\"meaning\">%s</span>"
                 "</div>\n", ga_verdict_name(a->overall), verdict_class(a->overall),
            rp_verdict_mark(a->overall), ga_verdict_name(a->overall), rp_verdict_meaning(a));
    if (a->incomplete)
        fprintf(out, "<p><b>Incomplete: %s.</b></p>\n", a->timeout_note);
    if (a->spec.nrel)
        fprintf(out, "<p><b>Relative DP</b> (Lu et al.; 000 Section 7): the claims are audited over "
                "the %zu neighbouring pairs within the given set of %zu datasets, not over every "
                "neighbour.</p>\n", a->npairs, a->spec.nrel);
    if (a->set.verified) {
        fprintf(out, "<p>The audited pairs include the proven ");
        rp_html_escape(out, a->set.verified_note);
        fprintf(out, ".</p>\n");
    }
    if (a->set.release_note[0]) {
        fprintf(out, "<p>Some pairs are audited before the release: ");
        rp_html_escape(out, a->set.release_note);
        fprintf(out, ". Their values are upper bounds of the release's (post-processing), never "
                "violations.</p>\n");
    }
}

/* the claims table, and the worst pair of each claim decided on delta(eps) with its witness */
static void html_claims(FILE *out, const ga_audit *a)
{
    fprintf(out, "<h2>Claims</h2>\n<table id=\"claims\"><tr><th>claim</th><th>verdict</th><th>tightness</th>"
                 "<th>certified</th><th>reason</th></tr>\n");
    for (size_t i = 0; i < a->nclaims; i++) {
        const ga_claim_result *r = &a->claims[i];
        rp_claim_cells c;
        rp_claim_cells_of(&c, r);
        fprintf(out, "<tr class=\"%s\"><td>", verdict_class(r->verdict));
        rp_html_escape(out, c.claim);
        fprintf(out, "</td><td>%s</td><td>", ga_verdict_name(r->verdict));
        rp_html_escape(out, c.tightness);
        fprintf(out, "</td><td class=\"num\">%s</td><td>", c.cert);
        rp_html_escape(out, r->reason);
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</table>\n");
    for (size_t i = 0; i < a->nclaims; i++) {
        rp_worst_cells w;
        if (!rp_worst_of(&w, a, &a->claims[i]))
            continue;
        fprintf(out, "<h3>Worst pair for ");
        rp_html_escape(out, w.claim);
        fprintf(out, "</h3>\n<p>Pair <b>");
        rp_html_escape(out, w.pair);
        fprintf(out, "</b>, direction %s. Distinguishing event: ", w.dir);
        rp_html_escape(out, a->claims[i].witness);
        fprintf(out, ". %s, so delta = P[S] - e^eps P'[S] = %s.</p>\n", w.probs, w.delta);
    }
}

/* the privacy profiles of the worst pairs with the claims marked */
static void html_profile(FILE *out, const ga_audit *a)
{
    char nb[GA_SPEC_NAME_LEN]; /* (ga_audit_pair_name) */
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
        double gx[GA_PLOT_POINTS], gy[GA_PLOT_POINTS], pv[2];
        for (size_t i = 0; i < a->nclaims; i++)
            if (rp_claim_plot(pv, &a->claims[i], GA_CLAIM_PLOT_PROFILE_GDP)) {
                double mu = pv[0];
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
            if (rp_claim_plot(pv, &a->claims[i], GA_CLAIM_PLOT_PROFILE_POINT)) {
                mx[nm] = pv[0];
                mv[nm] = a->claims[i].verdict;
                my[nm++] = pv[1];
                /* judged: up to twice the largest claimed eps, down to a hundredth of the
                 * smallest claimed or exact delta */
                xcap = fmax(xcap, 2 * pv[0] + 0.5);
                if (pv[1] > 0)
                    ymin = fmin(ymin, pv[1] / 100);
                if (a->claims[i].exact.val > 0)
                    ymin = fmin(ymin, a->claims[i].exact.val / 100);
            }
        plot_marks pm = {mx, my, mv, nm, nm ? xcap : 0, isfinite(ymin) ? ymin : 1e-20};
        fprintf(out, "<h2>Privacy profile</h2>\n");
        rp_svg_plot(out, "profile-plot", "privacy profile delta(eps), both directions; markers: claims",
                    "epsilon", "delta", 1, s, ns, &pm);
    }
}

/* the trade-off plot, and the Renyi divergences of the worst pair with the RDP claims marked */
static void html_renyi(FILE *out, const ga_audit *a)
{
    char nb[GA_SPEC_NAME_LEN]; /* (ga_audit_pair_name) */
    rp_tradeoff_plot(out, a);
    if (a->have_renyi) {
        series s[2] = {{a->renyi_alpha, a->renyi_xy, 60, "#D55E00", "D_alpha(X||Y)", 0},
                       {a->renyi_alpha, a->renyi_yx, 60, "#0072B2", "D_alpha(Y||X)", 1}};
        double mx[64], my[64], pv[2];
        int mv[64];
        size_t nm = 0;
        for (size_t i = 0; i < a->nclaims && nm < 64; i++)
            if (rp_claim_plot(pv, &a->claims[i], GA_CLAIM_PLOT_RENYI_POINT)) {
                mx[nm] = pv[0];
                mv[nm] = a->claims[i].verdict;
                my[nm++] = pv[1];
            }
        plot_marks pm = {mx, my, mv, nm, 0, 0};
        fprintf(out, "<h2>Renyi divergence</h2>\n");
        char title[200];
        snprintf(title, sizeof title, "Renyi divergence of pair '%.60s'; markers: RDP claims",
                 ga_audit_pair_name(a, a->renyi_pair, nb));
        rp_svg_plot(out, "renyi-plot", title, "alpha", "D_alpha", 0, s, 2, &pm);
    }
}

/* the pairs table (the largest delta first), sortable */
static void html_pairs(FILE *out, const ga_audit *a)
{
    /* sortable pairs table */
    rp_pairs_table pt;
    rp_pairs_begin(&pt, a);
    fprintf(out, "<h2>Pairs</h2>\n<p>delta at eps = %.6g%s; click a column to sort.</p>\n"
                 "<table id=\"pairs\" class=\"sortable\"><thead><tr><th>pair</th><th>delta_XY</th>"
                 "<th>error</th><th>delta_YX</th><th>error</th>%s</tr></thead><tbody>\n",
            a->table_eps, pt.more ? " (the largest first)" : "",
            pt.with_cert ? "<th>certified delta_XY</th><th>certified delta_YX</th>" : "");
    for (size_t k = 0; k < pt.m; k++) {
        rp_pair_cells p;
        rp_pair_cells_of(&p, a, &pt, k);
        size_t i = p.i;
        fprintf(out, "<tr><td>");
        rp_html_escape(out, p.name);
        fprintf(out, "</td><td class=\"num\" data-v=\"%.17g\">%.6g</td><td class=\"num\" data-v=\"%.17g\">%.2g</td>"
                     "<td class=\"num\" data-v=\"%.17g\">%.6g</td><td class=\"num\" data-v=\"%.17g\">%.2g</td>",
                a->pair_xy[i], a->pair_xy[i], a->pair_xy_err[i], a->pair_xy_err[i], a->pair_yx[i],
                a->pair_yx[i], a->pair_yx_err[i], a->pair_yx_err[i]);
        if (pt.with_cert)
            fprintf(out, "<td class=\"num\">%s</td><td class=\"num\">%s</td>", p.cert_xy, p.cert_yx);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</tbody></table>\n");
    if (pt.more)
        fprintf(out, "<p>%zu more pairs not listed.</p>\n", pt.more);
    rp_pairs_end(&pt);
}

/* what reproduces the audit: tool, spec and input digests, methods, certified effort */
static void html_repro(FILE *out, const ga_audit *a)
{
    char mb[RP_METHODS_LEN];
    fprintf(out, "<h2>Reproducibility</h2>\n<div class=\"repro\" id=\"repro\"><p>tool: gaussaudit %s<br>"
                 "spec: <code>", GA_VERSION_STRING);
    rp_html_escape(out, a->spec.path);
    fprintf(out, "</code>, SHA-256 <code>%s</code><br>", a->digest);
    rp_what_was_audited(out, a, rp_html_escape, "", "<br>");
    for (size_t i = 0; i < a->spec.ninputs; i++) {
        rp_html_escape(out, a->spec.inputs[i].key);
        fprintf(out, ": <code>");
        rp_html_escape(out, a->spec.inputs[i].path);
        fprintf(out, "</code>, SHA-256 <code>%s</code><br>", a->spec.inputs[i].sha256);
    }
    fprintf(out, "pairs audited: %zu<br>methods: %s<br>"
                 "certified mode: %s; certified evaluations: %zu (delta, Renyi or Mahalanobis intervals "
                 "of single pairs), %.3f s; highest precision: %ld bits</p></div>\n",
            a->npairs, rp_methods(mb, sizeof mb, a),
            a->certified_mode ? "yes" : "no (escalated where a verdict needed it)", a->ncertified,
            a->cert_seconds, a->max_bits);
}

/* the script that sorts the tables and the self-check a test reads from the DOM; the end */
static int html_script(FILE *out)
{
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

/* The HTML report: one self-contained document, section by section */
int ga_report_html(FILE *out, const ga_audit *a)
{
    html_head(out, a);
    html_claims(out, a);
    html_profile(out, a);
    html_renyi(out, a);
    html_pairs(out, a);
    html_repro(out, a);
    return html_script(out);
}

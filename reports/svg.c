/*
 * svg.c - the inline SVG plots of the HTML report: privacy profiles of the worst pairs with
 * the claims marked, Renyi divergences, and the trade-off curve; axes with round ticks.
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

void rp_svg_plot(FILE *out, const char *id, const char *title, const char *xl, const char *yl,
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
    rp_html_escape(out, title);
    fprintf(out, "\">\n<title>");
    rp_html_escape(out, title);
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
    rp_html_escape(out, title);
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
            rp_html_escape(out, part);
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

void rp_tradeoff_plot(FILE *out, const ga_audit *a)
{
    char nb[GA_SPEC_NAME_LEN]; /* (ga_audit_pair_name) */
    double mu = NAN, pv[2];
    for (size_t i = 0; i < a->nclaims; i++)
        if (rp_claim_plot(pv, &a->claims[i], GA_CLAIM_PLOT_PROFILE_GDP)) {
            mu = pv[0];
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
    rp_svg_plot(out, "tradeoff-plot", "trade-off (f-DP): type II error against type I error",
                "type I error alpha", "type II error beta", 0, s, 2, &pm);
}

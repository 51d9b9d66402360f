/*
 * internal.h - what the report writers share, not seen above them: the wording of verdicts,
 * slack and tightness, the pairs table's order, escaping (common.c), and the SVG plots
 * (svg.c). Names shared between the writers carry the rp_ prefix.
 */
#ifndef GA_REPORTS_INTERNAL_H
#define GA_REPORTS_INTERNAL_H

#include "reports/report.h"
#include "numerics/numerics.h"

#include <stdio.h>

#define TABLE_CAP 200 /* pairs listed in reports (the largest deltas first) */

/* The walk the Markdown and HTML reports share (walk.c): the texts of the claims table, of a
 * claim's worst pair and of the pairs table, prepared once; the writers lay them out. */
typedef struct {
    char claim[96], tightness[640], cert[176]; /* cert: the certified interval, or "no" */
} rp_claim_cells;
void rp_claim_cells_of(rp_claim_cells *c, const ga_claim_result *r);
/* the worst pair of a claim decided on delta(eps) that was evaluated: 1 with its cells (pair
 * points into nb or the audit; delta: its exact delta with the error estimate), 0 for any
 * other claim (the reports show none) */
typedef struct {
    char claim[96], probs[96], delta[64], nb[GA_SPEC_NAME_LEN];
    const char *pair, *dir;
} rp_worst_cells;
int rp_worst_of(rp_worst_cells *w, const ga_audit *a, const ga_claim_result *r);
/* the pairs table: rows k < m in the order shown (rp_order), `more` pairs not listed, and
 * whether certified intervals are shown; a row's cells (cert_* empty without them) */
typedef struct {
    size_t *idx, m, more;
    int with_cert;
} rp_pairs_table;
typedef struct {
    size_t i;
    const char *name;
    char nb[GA_SPEC_NAME_LEN], cert_xy[80], cert_yx[80];
} rp_pair_cells;
void rp_pairs_begin(rp_pairs_table *t, const ga_audit *a);
void rp_pair_cells_of(rp_pair_cells *p, const ga_audit *a, const rp_pairs_table *t, size_t k);
void rp_pairs_end(rp_pairs_table *t);

/* the methods of the audit's pairs, each pair family's joined by "; and " (the Gaussian
 * pairs' where there is no other), into buf (n bytes, RP_METHODS_LEN suffices): buf */
#define RP_METHODS_LEN 4096
const char *rp_methods(char *buf, size_t n, const ga_audit *a);

/* a claim the --timeout deadline left without any number */
int rp_evaluated(const ga_claim_result *r);

void rp_tightness_text(char *b, size_t n, const ga_claim_result *r);

size_t rp_order(const ga_audit *a, size_t *idx, size_t cap);

/* HTML and XML 1.0 text and attribute values: markup characters as entities; control
 * characters (invalid in XML 1.0 even as references, and terminal escapes in a viewer) and
 * bytes that are not UTF-8 as the visible text \xNN */
void rp_html_escape(FILE *out, const char *s);

/* "P_X[S] = .., P_Y[S] = .." of a claim's witness: "n/a" where a probability could not be
 * evaluated (NaN), never "nan" */
void rp_witness_probs(char *b, size_t n, const ga_claim_result *r);

/* a claim's certified interval, rounded outward, at least 10 significant digits and as many
 * as keep each bound on its side of the claim */
void rp_cert_text(char *iv, size_t n, const ga_claim_result *r);

/* the overall verdict's one-line meaning (for scoped claims, what their proof covers), the
 * same in every format */
const char *rp_verdict_meaning(const ga_audit *a);

/* a mark that tells the verdicts apart without colour (colour-blind readers, print) */
const char *rp_verdict_mark(int v);

/* a pair's certified interval for the pairs table ("not certified" when it was not) */
void rp_pair_cert_text(char *b, size_t n, const ga_interval *iv);

/* the lines "mechanism: ...", "source: ...", "description: ..." (those the spec has), each
 * between pre and post, the values escaped by esc */
void rp_what_was_audited(FILE *out, const ga_audit *a, void (*esc)(FILE *, const char *),
                         const char *pre, const char *post);

typedef struct {
    const double *x, *y;
    size_t n;
    const char *color, *label;
    int dashed;
} series;

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
void rp_svg_plot(FILE *out, const char *id, const char *title, const char *xl, const char *yl,
                 int logy, const series *s, size_t ns, const plot_marks *pm);

/* The trade-off (f-DP) curve of the worst plotted pair against a GDP claim's G_mu(alpha) =
 * Phi(Phi^{-1}(1 - alpha) - mu): from the profile by f(alpha) = sup_eps max(0, 1 - delta(eps)
 * - e^eps alpha, e^-eps (1 - delta(eps) - alpha)), delta = the larger direction (Dong, Roth &
 * Su 2022, Prop. 2.12); on the plotted eps grid the supremum is approached from below, so the
 * curve drawn is a lower bound of the pair's trade-off function. */
void rp_tradeoff_plot(FILE *out, const ga_audit *a);

/* Is claim r marked as plot (enum ga_claim_plot) by its row? Then its numbers are in pv. */
int rp_claim_plot(double pv[2], const ga_claim_result *r, int plot);

#endif

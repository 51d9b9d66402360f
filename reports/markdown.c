/*
 * markdown.c - the Markdown report: verdicts, what was audited, each claim with its exact
 * value, slack, tightness and witness, and the pairs table. User text (names, paths) is
 * escaped so that it cannot close a table cell or start a link.
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

/* A user string (spec and pair names, paths, reasons quoting them) as inline Markdown text,
 * also safe in a table cell: emphasis, code, link, HTML and table characters backslash-escaped
 * (CommonMark allows it for any ASCII punctuation), control characters and newlines (which
 * could start a heading or a fake verdict line) and bytes that are not UTF-8 as the visible
 * text \xNN. */
static void md_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        unsigned cp;
        size_t h = ga_utf8_hidden(s, &cp);
        if (h) { /* bidi and invisible characters as visible text */
            fprintf(out, "\\\\u%04x", cp);
            s += h - 1;
        } else if (ch < 0x20 || ch == 0x7f || !(h = ga_utf8_len(s))) /* (or not UTF-8) */
            fprintf(out, "\\\\x%02x", ch);
        else if (h > 1) { /* a character beyond ASCII, as it is */
            fwrite(s, 1, h, out);
            s += h - 1;
        } else if (strchr("\\`*_[]<>|~&", ch))
            fprintf(out, "\\%c", ch);
        else
            fputc(ch, out);
    }
}

void rp_what_was_audited(FILE *out, const ga_audit *a, void (*esc)(FILE *, const char *),
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
    fprintf(out, "# gaussaudit report: ");
    md_text(out, a->spec.name);
    fprintf(out, " \xe2\x80\x94 %s\n\n", ga_verdict_name(a->overall));
    fprintf(out, "**Verdict: %s**: %s.\n\n", ga_verdict_name(a->overall), rp_verdict_meaning(a));
    if (a->incomplete)
        fprintf(out, "**Incomplete: %s.**\n\n", a->timeout_note); /* our own text */
    if (a->spec.nrel)
        fprintf(out, "Relative DP (Lu et al.; 000 Section 7): the claims are audited over the %zu "
                "neighbouring pairs within the given set of %zu datasets, not over every "
                "neighbour.\n\n", a->npairs, a->spec.nrel);
    if (a->set.verified)
        fprintf(out, "The audited pairs include the proven %s.\n\n", a->set.verified_note);
    if (a->set.release_note[0])
        fprintf(out, "Some pairs are audited before the release: %s. Their values are upper "
                "bounds of the release's (post-processing), never violations.\n\n",
                a->set.release_note); /* (our own text) */
    fprintf(out, "## Claims\n\n| claim | verdict | tightness | certified | reason |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < a->nclaims; i++) {
        rp_claim_cells c;
        rp_claim_cells_of(&c, &a->claims[i]);
        fprintf(out, "| %s | %s | ", c.claim, ga_verdict_name(a->claims[i].verdict));
        md_text(out, c.tightness);
        fprintf(out, " | %s | ", c.cert);
        md_text(out, a->claims[i].reason);
        fprintf(out, " |\n");
    }
    for (size_t i = 0; i < a->nclaims; i++) {
        rp_worst_cells w;
        if (!rp_worst_of(&w, a, &a->claims[i]))
            continue;
        fprintf(out, "\n### Worst pair for ");
        md_text(out, w.claim);
        fprintf(out, "\n\n");
        fprintf(out, "Pair **");
        md_text(out, w.pair);
        fprintf(out, "**, direction %s. Distinguishing event: ", w.dir);
        md_text(out, a->claims[i].witness);
        fprintf(out, ". %s, so delta = P[S] - e^eps P'[S] = %s.\n", w.probs, w.delta);
    }
    rp_pairs_table pt;
    rp_pairs_begin(&pt, a);
    fprintf(out, "\n## Pairs (delta at eps = %.6g%s)\n\n| pair | delta_XY | delta_YX |%s\n|---|---|---|%s\n",
            a->table_eps, pt.more ? ", largest first" : "",
            pt.with_cert ? " certified delta_XY | certified delta_YX |" : "", pt.with_cert ? "---|---|" : "");
    for (size_t k = 0; k < pt.m; k++) {
        rp_pair_cells p;
        rp_pair_cells_of(&p, a, &pt, k);
        fprintf(out, "| ");
        md_text(out, p.name);
        fprintf(out, " | %.6g (+- %.2g) | %.6g (+- %.2g) |", a->pair_xy[p.i], a->pair_xy_err[p.i],
                a->pair_yx[p.i], a->pair_yx_err[p.i]);
        if (pt.with_cert)
            fprintf(out, " %s | %s |", p.cert_xy, p.cert_yx);
        fprintf(out, "\n");
    }
    if (pt.more)
        fprintf(out, "\n%zu more pairs not listed.\n", pt.more);
    rp_pairs_end(&pt);
    char mb[RP_METHODS_LEN];
    fprintf(out, "\n## Reproducibility\n\n- tool: gaussaudit %s\n- spec: ", GA_VERSION_STRING);
    md_text(out, a->spec.path);
    fprintf(out, " (SHA-256 `%s`)\n", a->digest);
    rp_what_was_audited(out, a, md_text, "- ", "\n");
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
            a->npairs, rp_methods(mb, sizeof mb, a),
            a->certified_mode ? "yes" : "no (escalated where a verdict needed it)", a->ncertified,
            a->max_bits);
    return ferror(out) ? GA_EIO : GA_OK;
}

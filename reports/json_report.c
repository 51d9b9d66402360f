/*
 * json_report.c - the JSON report: the same data as the others, numbers with 17 significant
 * digits (a reader gets the doubles back), certified bounds as outward doubles and their
 * decimals, and the plotted curves; written through the one JSON writer (json.c).
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

/* the per-pair table's row of pair i */
static void json_pair(ga_jw *j, const ga_audit *a, size_t i)
{
    char nb[GA_SPEC_NAME_LEN];
    ga_result xy = {a->pair_xy[i], a->pair_xy_err[i]}, yx = {a->pair_yx[i], a->pair_yx_err[i]};
    ga_jw_obj(j, NULL);
    ga_jw_str(j, "name", ga_audit_pair_name(a, i, nb));
    ga_jw_result(j, "xy", &xy);
    ga_jw_result(j, "yx", &yx);
    ga_interval cx, cy;
    ga_audit_pair_cert(a, i, &cx, &cy);
    if (cx.lo <= cx.hi) {
        ga_jw_interval(j, "certified_xy", &cx, NULL, NULL);
        ga_jw_interval(j, "certified_yx", &cy, NULL, NULL);
    }
    ga_jw_obj_end(j);
}

/* The rows of many pairs are formatted in blocks on the audit's threads, a round of blocks at
 * a time (the text of one round in memory), and written in order: the same bytes as one
 * thread writes. A block that could not be formatted (no memory) is written here. */
#define JSON_BLOCK 2048
typedef struct {
    const ga_audit *a;
    const ga_jw *j;
    size_t first;      /* the round's first block */
    char **text;
    size_t *len;
} json_round;

/* the rows of block b: from *i0, how many */
static size_t block_rows(size_t *i0, const ga_audit *a, size_t b)
{
    *i0 = b * JSON_BLOCK;
    return a->npairs - *i0 < JSON_BLOCK ? a->npairs - *i0 : JSON_BLOCK;
}

static void json_block(void *ctx, size_t b, ga_gchisq_work *w)
{
    (void)w;
    json_round *r = ctx;
    size_t i0, n = block_rows(&i0, r->a, r->first + b);
    r->text[b] = NULL;
    FILE *f = open_memstream(&r->text[b], &r->len[b]);
    if (!f)
        return;
    ga_jw sub;
    ga_jw_init_inside(&sub, f, r->j, i0);
    for (size_t i = i0; i < i0 + n; i++)
        json_pair(&sub, r->a, i);
    ga_jw_flush(&sub);
    if (ferror(f) | fclose(f)) {
        free(r->text[b]);
        r->text[b] = NULL;
    }
}

static void json_pairs(ga_jw *j, const ga_audit *a)
{
    size_t nblocks = (a->npairs + JSON_BLOCK - 1) / JSON_BLOCK;
    size_t per = 8 * (size_t)ga_par_jobs(a->jobs); /* (at most 8 * 256) */
    char *text[8 * 256];
    size_t len[8 * 256];
    if (a->jobs <= 1 || nblocks < 2) {
        for (size_t i = 0; i < a->npairs; i++)
            json_pair(j, a, i);
        return;
    }
    for (size_t first = 0; first < nblocks; first += per) {
        size_t nb = nblocks - first < per ? nblocks - first : per;
        json_round r = {a, j, first, text, len};
        ga_par_items(nb, a->jobs, 0, json_block, &r);
        for (size_t b = 0; b < nb; b++) {
            size_t i0, n = block_rows(&i0, a, first + b);
            if (text[b]) {
                ga_jw_splice(j, text[b], len[b], n);
            } else {
                for (size_t i = i0; i < i0 + n; i++)
                    json_pair(j, a, i);
            }
            free(text[b]);
        }
    }
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
    ga_jw_bool(&j, "verification", a->set.verified);
    if (a->set.verified)
        ga_jw_str(&j, "verification_note", a->set.verified_note);
    if (a->set.release_note[0])
        ga_jw_str(&j, "unreleased_note", a->set.release_note);
    ga_jw_bool(&j, "timed_out", a->incomplete);
    if (a->incomplete)
        ga_jw_str(&j, "timeout_note", a->timeout_note);
    ga_jw_arr(&j, "claims");
    for (size_t i = 0; i < a->nclaims; i++) {
        const ga_claim_result *r = &a->claims[i];
        const ga_claim_row *row = ga_claim_row_of(r->type);
        ga_jw_obj(&j, NULL);
        ga_jw_str(&j, "type", row->name ? row->name : "unknown");
        double pv[2];
        row->params(pv, r);
        for (int k = 0; k < 2; k++)
            if (row->param_keys[k])
                ga_jw_num(&j, row->param_keys[k], pv[k]);
        if (r->scope_dir || r->scope_pair[0]) { /* the claim's scope, as the spec gave it */
            ga_jw_obj(&j, "scope");
            if (r->scope_dir)
                ga_jw_str(&j, "direction", r->scope_dir == 1 ? "xy" : "yx");
            if (r->scope_pair[0])
                ga_jw_str(&j, "pair", r->scope_pair);
            ga_jw_obj_end(&j);
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
                ga_jw_num(&j, "interval_lo_log10", ga_decimal_log10(r->cert_lo_dec));
            if (r->cert_hi_dec[0])
                ga_jw_num(&j, "interval_hi_log10", ga_decimal_log10(r->cert_hi_dec));
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
        if (row->profile) /* the value is the release's, or a bound's (not attained) */
            ga_jw_str(&j, "value_kind", r->bound ? "upper bound" : r->lower ? "lower bound" : "exact");
        ga_jw_num(&j, "slack", r->slack);
        if (row->profile) {
            ga_jw_num(&j, "epsilon_at_delta", r->eps_at_delta.val);
            if (r->rdp_eps > 0) { /* subsampled pairs: the RDP accountant, for comparison */
                ga_jw_num(&j, "rdp_accountant_epsilon", r->rdp_eps);
                ga_jw_num(&j, "rdp_accountant_order", r->rdp_order);
            }
            if (r->pld_eps > 0) /* and a PLD accountant's (connect the dots, grid 1e-4) */
                ga_jw_num(&j, "pld_accountant_epsilon", r->pld_eps);
            if (r->has_attained) { /* the worst pair a bound: what a neighbour attains */
                ga_jw_num(&j, "attained_delta", r->attained_delta.val);
                ga_jw_num(&j, "attained_delta_error", r->attained_delta.err);
                if (isfinite(r->attained_eps.val))
                    ga_jw_num(&j, "attained_epsilon", r->attained_eps.val);
            }
            if (r->poisson_eps.val > 0) { /* fixed-size batches: the same with Poisson sampling */
                ga_jw_num(&j, "poisson_sampling_epsilon", r->poisson_eps.val);
                ga_jw_num(&j, "poisson_sampling_epsilon_error", r->poisson_eps.err);
            }
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
        if (row->has_at)
            ga_jw_num(&j, "at", r->at);
        ga_jw_obj_end(&j);
    }
    ga_jw_arr_end(&j);
    ga_jw_num(&j, "table_epsilon", a->table_eps);
    ga_jw_arr(&j, "pairs");
    json_pairs(&j, a);
    ga_jw_arr_end(&j);
    json_plots(&j, a);
    ga_jw_obj(&j, "reproducibility");
    ga_jw_bool(&j, "certified_mode", a->certified_mode);
    ga_jw_int(&j, "certified_evaluations", (long)a->ncertified);
    ga_jw_num(&j, "certified_seconds", a->cert_seconds);
    ga_jw_int(&j, "precision_bits", a->max_bits);
    {
        char mb[RP_METHODS_LEN];
        ga_jw_str(&j, "methods", rp_methods(mb, sizeof mb, a));
    }
    ga_jw_obj_end(&j);
    ga_jw_obj_end(&j);
    return ferror(out) ? GA_EIO : GA_OK;
}

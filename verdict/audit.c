/*
 * audit.c - verdicts for a spec's claims (doc/design.md, section 6).
 *
 * Every claim is first evaluated on every pair with the double-precision path (estimates
 * with error estimates). Certified intervals (Arb) are then computed only where a decision
 * depends on them: pairs whose estimate does not clearly hold (value + error above the
 * claim), every pair in --certified mode (up to GA_AUDIT_CERT_CAP per claim), and the proven
 * worst case of a universe. The verdicts:
 *   VIOLATION      a certified lower bound exceeds the claim;
 *   VERIFIED       the claim holds with a certified upper bound on a proven worst case
 *                  (it then holds for every neighbour that worst case covers);
 *   NO VIOLATION   the claim holds on every audited pair (estimates, or certified);
 *   INCONCLUSIVE   otherwise, with the reason (a certified interval straddles the claim,
 *                  certification unavailable, a grid-based check).
 */
#include "verdict/internal.h"

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* the share of --timeout given to building the pairs (the rest evaluates the pairs built;
 * a pair is cheaper to evaluate than to build for every data-dependent kind) */
#define GA_AUDIT_BUILD_SHARE 0.6

void ga_audit_clear(ga_audit *a)
{
    ga_rec_clear(&a->book);
    free(a->slice);
    free(a->claim_override);
    for (size_t i = 0; i < a->npairs; i++)
        ga_pair_free(a->pairs[i]);
    free(a->pairs);
    free(a->rebuilt);
    free(a->claims);
    free(a->pair_xy);
    free(a->pair_cert);
    free(a->pair_yx);
    free(a->pair_xy_err);
    free(a->pair_yx_err);
    ga_mech_clear(&a->spec, &a->set);
    memset(a, 0, sizeof *a);
}

/* stage 1: load the spec and build its pairs (60% of the budget), allocate the results */
static int audit_claim_list(ga_audit *a, char *msg, size_t msglen);

/* the family of a one-dimensional loss pair, by its input (-1: Gaussian laws) */
static int loss_family(const ga_spec_pair *sp)
{
    return sp->nsub ? 0 : sp->masked ? 1 : sp->synth ? 2 : sp->shuffle ? 3 : sp->ptr ? 4
         : sp->envelope ? 5 : sp->alloc ? 6 : -1;
}

/* the methods the reports name: those of each one-dimensional loss family among the pairs
 * (the first pair of each family reduced for its type row's text), else the Gaussian pairs' */
static void audit_methods(ga_audit *a)
{
    ga_spec_pair_buf b;
    size_t n = 0;
    unsigned seen = 0;
    memset(a->methods, 0, sizeof a->methods);
    for (size_t i = 0; i < ga_pairset_npairs(&a->set) && n < GA_AUDIT_METHODS; i++) {
        const ga_spec_pair *sp = ga_pairset_pair_at(&a->set, i, &b, 0);
        int f = loss_family(sp);
        ga_pair *p;
        if (f < 0 || (seen >> f & 1) || ga_mech_pair_reduce(&p, sp, NULL, 0) != GA_OK)
            continue;
        seen |= 1u << f;
        const char *m = ga_pair_methods(p); /* (a static text of the row) */
        ga_pair_free(p);
        int dup = 0;
        for (size_t k = 0; k < n; k++)
            dup |= a->methods[k] == m;
        if (!dup)
            a->methods[n++] = m;
    }
    if (!n)
        a->methods[0] = ga_pair_methods(NULL);
}

static int audit_load(ga_audit *a, const char *path, const char *text, size_t len,
                      const ga_audit_opts *o, char *msg, size_t msglen)
{
    /* building the pairs gets GA_AUDIT_BUILD_SHARE of the --timeout budget, so that the
     * pairs built can still be evaluated (a violation among them is a violation) */
    double t0 = ga_monotonic();
    a->deadline = o->timeout > 0 ? t0 + o->timeout : 0;
    ga_spec_opts so = {.allow_paths = o->allow_paths, .nallow = o->nallow,
                       .kind_at = ga_mech_kind_at /* (the parser checks kind names) */,
                       .jobs = o->jobs};
    ga_build_opts bo = {.deadline = o->timeout > 0 ? t0 + GA_AUDIT_BUILD_SHARE * o->timeout : 0,
                        .jobs = o->jobs,
                        .drop_data = 1 /* (built once: a builder may free the data's values) */,
                        .families = !o->keep_pairs /* (a test's audit that keeps every pair
                                                      keeps every record too) */};
    ga_audit_watch_stage(a->watch, "reading the spec");
    int rc = text ? ga_spec_parse_opts(&a->spec, text, len, path, &so, msg, msglen)
                  : ga_spec_load_opts(&a->spec, path, &so, msg, msglen);
    if (rc)
        return rc;
    if (o->claim && (rc = ga_spec_set_claim(&a->spec, o->claim, msg, msglen)))
        return rc;
    if (o->claim && !(a->claim_override = strdup(o->claim)))
        return GA_ENOMEM;
    if ((rc = audit_claim_list(a, msg, msglen))) /* (and the table's eps: the reduction takes
                                                     its estimates) */
        return rc;
    if (a->nclaims == 0) {
        ga_msg(msg, msglen, "%s: claim: missing: nothing to audit (add e.g. claim: {epsilon: 1, "
               "delta: 1.0e-5}; see doc/spec.md)", path);
        return GA_EINVAL;
    }
    memcpy(a->digest, a->spec.digest, sizeof a->digest);
    a->certified_mode = o->certified;
    /* worst cases are sought at the eps of the claims decided on the profile */
    bo.neps = ga_claim_list_eps(bo.eps, GA_BUILD_MAX_EPS,
                                &(ga_claim_list){a->claims, a->nclaims, a->nclaims});
    ga_audit_watch_spec(a->watch, a, 0);
    ga_audit_watch_stage(a->watch, "building the neighbouring pairs");
    if ((rc = ga_mech_build(&a->set, &a->spec, &bo, msg, msglen)))
        return rc;
    if (a->set.truncated) {
        a->incomplete = 1;
        snprintf(a->timeout_note, sizeof a->timeout_note,
                 "only %zu of %zu neighbouring pairs were built within %.0f%% of the --timeout budget",
                 ga_pairset_npairs(&a->set), a->set.planned, 100 * GA_AUDIT_BUILD_SHARE);
    }
    audit_methods(a);
    size_t n = ga_pairset_npairs(&a->set) ? ga_pairset_npairs(&a->set) : 1;
    a->pairs = calloc(n, sizeof *a->pairs);
    a->rebuilt = o->keep_pairs ? NULL : calloc(n, 1);
    a->pair_xy = calloc(n, sizeof(double));
    a->pair_yx = calloc(n, sizeof(double));
    a->pair_xy_err = calloc(n, sizeof(double));
    a->pair_yx_err = calloc(n, sizeof(double));
    if (!a->pairs || (!a->rebuilt && !o->keep_pairs) || !a->pair_xy || !a->pair_yx ||
        !a->pair_xy_err || !a->pair_yx_err)
        return GA_ENOMEM;
    ga_audit_watch_spec(a->watch, a, 1);
    return GA_OK;
}

/* the per-pair table's eps: the first claim's decided on the privacy profile (the total
 * variation, eps = 0, when there is none); set with the claim list (audit_claim_list) */
static void table_eps(ga_audit *a)
{
    a->table_eps = 0;
    for (size_t i = 0; i < a->nclaims; i++)
        if (ga_claim_row_of(a->claims[i].type)->profile) {
            a->table_eps = a->claims[i].eps;
            break;
        }
}

/* stage 2: reduce every pair built (a shard: its pairs) until the deadline, on o->jobs
 * threads; an audit that is not a shard takes the per-pair table's estimates (stage 3) of
 * each pair while it is in hand (l->xy set), so that a pair reduced again where it is used
 * (a->rebuilt) is not reduced twice for them */
static void reduce_item(void *vl, size_t j, ga_gchisq_work *w)
{
    pair_loop *l = vl;
    size_t i = l->idx ? l->idx[j] : j;
    ga_audit *a = l->a;
    ga_spec_pair_buf pb;
    const ga_spec_pair *sp = vd_spair(a, i, &pb);
    l->st[j] = ga_mech_pair_reduce(&a->pairs[i], sp, NULL, 0);
    if (l->st[j] == GA_OK && l->xy)
        vd_est_store(l, i, a->pairs[i], w);
    if (l->st[j] == GA_OK && a->rebuilt && ga_mech_pair_rebuildable(sp)) {
        ga_pair_free(a->pairs[i]); /* checked; reduced again where used */
        a->pairs[i] = NULL;
        a->rebuilt[i] = 1;
    }
    vd_tick(l);
}

static int audit_reduce(ga_audit *a, const char *path, const ga_audit_opts *o, char *msg,
                        size_t msglen, ga_gchisq_work *w)
{
    size_t n = a->slice ? a->nslice : ga_pairset_npairs(&a->set);
    int *st = calloc(n ? n : 1, sizeof *st);
    unsigned char *done = malloc(n ? n : 1);
    pair_loop l = {.a = a, .o = o, .st = st, .idx = a->slice};
    if (!o->nshards) { /* the table's estimates too (a shard's are per claim: shard_pass) */
        l.eps = a->table_eps;
        l.xy = a->pair_xy;
        l.yx = a->pair_yx;
        l.exy = a->pair_xy_err;
        l.eyx = a->pair_yx_err;
    }
    int rc = !st || !done ? GA_ENOMEM : vd_pair_loop_run(&l, reduce_item, n, "reduce", done, w);
    /* the pairs reduced, in order up to the first the deadline left or the first error (its
     * message from a second, serial reduction: the same inputs, the same failure) */
    size_t k = 0;
    for (; rc == GA_OK && k < n; k++) {
        size_t i = a->slice ? a->slice[k] : k;
        if (!done[k]) {
            vd_expired(a, "the reduction", k, n);
            break;
        }
        if (st[k]) {
            ga_pair_free(a->pairs[i]);
            a->pairs[i] = NULL;
            ga_spec_pair_buf pb; /* (named: the message names the pair's fields) */
            rc = ga_mech_pair_reduce(&a->pairs[i], ga_pairset_pair_at(&a->set, i, &pb, 1), msg, msglen);
            if (rc == GA_OK) { /* it did not fail again: keep the second result */
                if (l.xy)
                    vd_est_store(&l, i, a->pairs[i], w);
                continue;
            }
            char m2[512];
            snprintf(m2, sizeof m2, "%s: %s", path, msg);
            ga_msg(msg, msglen, "%s", m2);
            break;
        }
    }
    /* beyond the prefix: not audited (a shard keeps the numbering of all pairs; its other
     * pairs stay NULL and are never evaluated) */
    for (size_t j = k; j < n && a->pairs; j++) {
        size_t i = a->slice ? a->slice[j] : j;
        ga_pair_free(a->pairs[i]);
        a->pairs[i] = NULL;
        if (a->rebuilt)
            a->rebuilt[i] = 0;
    }
    a->npairs = a->slice ? ga_pairset_npairs(&a->set) : k;
    if (a->slice)
        a->nslice = k;
    a->table_done = rc == GA_OK && l.xy;
    free(st);
    free(done);
    return rc;
}

/* the spec's claims as a flat list, every row's in the table's order (ga_claim_list_parse);
 * and the table's eps */
static int audit_claim_list(ga_audit *a, char *msg, size_t msglen)
{
    ga_claim_list l = {0};
    int rc = ga_claim_list_parse(&l, &a->spec, msg, msglen);
    a->claims = l.c;
    a->nclaims = l.n;
    if (rc)
        return rc;
    for (size_t i = 0; i < a->nclaims; i++)
        a->claims[i].relative = a->spec.nrel > 0;
    table_eps(a);
    return GA_OK;
}

/* stage 3: the per-pair table (taken in stage 2 unless the audit is a shard) */
static void audit_table(ga_audit *a, const ga_audit_opts *o, ga_gchisq_work *w)
{
    if (!a->table_done && !vd_expired(a, "the per-pair table", 0, a->npairs))
        vd_est_all(a, o, a->table_eps, a->pair_xy, a->pair_yx, a->pair_xy_err, a->pair_yx_err,
                   "the per-pair table", w);
}

/* stage 4: every claim by its row of the claim table, then the overall verdict */
static void audit_claims(ga_audit *a, const ga_audit_opts *o, ga_gchisq_work *w)
{
    size_t n = a->npairs;
    for (size_t i = 0; i < a->nclaims; i++) {
        ga_claim_result *r = &a->claims[i];
        if (a->timed_out || n == 0) {
            /* no number to report (n == 0: the deadline came before the first pair was
             * built); the reports print "not evaluated" instead */
            char why[sizeof a->timeout_note + 64];
            snprintf(why, sizeof why, n == 0 ? "no audited pairs were built (incomplete: %s)"
                                             : "%s", a->timeout_note);
            ga_claim_not_evaluated(r, why);
            continue;
        }
        if (vd_claim_row(r->type) < 0) { /* not in the table: no verdict by another type's rules */
            r->verdict = GA_VERDICT_INCONCLUSIVE;
            snprintf(r->reason, sizeof r->reason, "unknown claim type %d", r->type);
            continue;
        }
        double tc = ga_monotonic();
        char eb[64];
        ga_audit_watch_stage(a->watch, "evaluating claim %zu of %zu", i + 1, a->nclaims);
        vd_claim_eval(a, r, vd_claim_eps_text(eb, sizeof eb, a, i), o, w);
        r->evaluated = 1;
        r->seconds = ga_monotonic() - tc;
        if (r->verdict == GA_VERDICT_VIOLATION && !vd_attained(a, r->worst_pair)) {
            /* the evidence is the bound, not a neighbour: no violation shown */
            char old[sizeof r->reason];
            memcpy(old, r->reason, sizeof old);
            r->verdict = GA_VERDICT_INCONCLUSIVE;
            ga_spec_pair_buf b;
            if (r->worst_pair < ga_pairset_npairs(&a->set) && ga_spec_pair_unreleased(vd_spair(a, r->worst_pair, &b)))
                snprintf(r->reason, sizeof r->reason, "the release's laws could not be computed "
                         "rigorously (%.300s), so the output before the release is audited: an "
                         "upper bound of the release's (post-processing), and it exceeds the "
                         "claim (%.500s); no violation is shown", a->set.release_note, old);
            else
                snprintf(r->reason, sizeof r->reason, "the proven worst case is an upper bound "
                         "that no single neighbour need attain, and it exceeds the claim "
                         "(%.700s); no audited neighbour was shown to violate it", old);
        }
        ga_audit_watch_claim(a->watch, a, i);
    }
    /* a claim that ran into the deadline cannot hold; a violation found before it stands */
    if (a->incomplete)
        for (size_t i = 0; i < a->nclaims; i++)
            if (a->claims[i].verdict != GA_VERDICT_VIOLATION && a->claims[i].evaluated) {
                a->claims[i].verdict = GA_VERDICT_INCONCLUSIVE;
                size_t l = strlen(a->claims[i].reason);
                snprintf(a->claims[i].reason + l, sizeof a->claims[i].reason - l, " (incomplete: %s)",
                         a->timeout_note);
            }
    /* overall verdict: violation > inconclusive > no violation > verified */
    a->overall = GA_VERDICT_VERIFIED;
    for (size_t i = 0; i < a->nclaims; i++)
        if (a->claims[i].verdict > a->overall)
            a->overall = a->claims[i].verdict;
}

/* one curve's points: delta at each eps of the grid, each on any thread */
typedef struct {
    const ga_pair *p;
    const double *eps;
    const ga_gchisq_opts *g;
    ga_delta D[GA_PLOT_POINTS];
    int st[GA_PLOT_POINTS];
} plot_run;

static void plot_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    plot_run *r = ctx;
    r->st[i] = ga_pair_delta(&r->D[i], r->p, r->eps[i], GA_DELTA_AUTO, r->g, w);
}

/* a curve of the pair p: its points on the threads lent to the plots (in order on one thread
 * for a pair whose values depend on that order), then read in order; after a failed
 * evaluation, or one the deadline did not let start, the curve stops (no number; none at
 * all without the pair, p NULL) */
static void plot_curve(double *xy, double *yx, ga_audit *a, const ga_pair *p,
                       const ga_gchisq_opts *g, ga_gchisq_work *w)
{
    plot_run *r = p ? malloc(sizeof *r) : NULL;
    unsigned char done[GA_PLOT_POINTS] = {0};
    if (r)
        *r = (plot_run){.p = p, .eps = a->plot_eps, .g = g};
    if (r && !ga_pair_in_order(p))
        (void)ga_par_for(GA_PLOT_POINTS, ga_par_inner_jobs(), a->deadline, plot_item, r, done,
                         w);
    for (size_t i = 0; r && ga_pair_in_order(p) && i < GA_PLOT_POINTS; i++) {
        if (ga_expired(a->deadline))
            break;
        plot_item(r, i, w); /* (its own loops keep the threads lent to the plots) */
        done[i] = 1;
        if (r->st[i] != GA_OK && r->st[i] != GA_ETOL)
            break;
    }
    int failed = 0;
    for (size_t i = 0; i < GA_PLOT_POINTS; i++) {
        failed |= !r || !done[i] || (r->st[i] != GA_OK && r->st[i] != GA_ETOL);
        xy[i] = failed ? NAN : r->D[i].xy.val;
        yx[i] = failed ? NAN : r->D[i].yx.val;
    }
    free(r);
}

/* stage 5: the data of the plots: the profiles of the pairs with the largest delta at the
 * table eps, and the Renyi curve of the worst pair of an RDP or zCDP claim */
static void audit_plots(ga_audit *a, ga_gchisq_work *w)
{
    size_t n = a->npairs;
    double *key = malloc((n ? n : 1) * sizeof *key);
    if (key) {
        for (size_t i = 0; i < n; i++)
            key[i] = fmax(a->pair_xy[i], a->pair_yx[i]);
        for (a->nplot = 0; a->nplot < GA_PLOT_PAIRS && a->nplot < n; a->nplot++) {
            size_t best = 0;
            for (size_t i = 1; i < n; i++)
                if (key[i] > key[best])
                    best = i;
            a->plot_pair[a->nplot] = best;
            key[best] = -INFINITY;
        }
        free(key);
    }
    if (a->timed_out || ga_expired(a->deadline))
        a->nplot = 0; /* (the plots are illustrations: no time left, none, and no verdict changes) */
    if (a->nplot) {
        ga_gchisq_opts gg = vd_gopts(a);
        gg.epsrel = GA_PLOT_EPSREL;
        for (size_t j = 0; j < a->nplot; j++) {
            ga_pair *own;
            const ga_pair *p = vd_pair_use(a, a->plot_pair[j], &own);
            if (j == 0 && p)
                ga_pair_profile_grid(a->plot_eps, GA_PLOT_POINTS, p, &gg, w);
            size_t m = 0; /* a pair plotted before whose roles this one swaps: its curves */
            while (m < j && !(p && ga_pair_mirrors(a->pairs[a->plot_pair[m]], p)))
                m++;
            for (size_t i = 0; m < j && i < GA_PLOT_POINTS; i++) {
                a->plot_xy[j][i] = a->plot_yx[m][i];
                a->plot_yx[j][i] = a->plot_xy[m][i];
            }
            if (m == j)
                plot_curve(a->plot_xy[j], a->plot_yx[j], a, p, &gg, w);
            ga_pair_free(own);
        }
    }
    for (size_t i = 0; i < a->nclaims; i++)
        if (ga_claim_row_of(a->claims[i].type)->renyi) {
            a->have_renyi = 1;
            a->renyi_pair = a->claims[i].worst_pair;
            break;
        }
    if (a->timed_out || n == 0)
        a->have_renyi = 0;
    if (a->have_renyi) {
        double amax = 64;
        for (size_t i = 0; i < a->nclaims; i++) { /* the plot reaches past the orders claimed */
            const ga_claim_row *row = ga_claim_row_of(a->claims[i].type);
            double v[2];
            row->params(v, &a->claims[i]);
            if (row->plot == GA_CLAIM_PLOT_RENYI_POINT)
                amax = fmax(amax, 2 * v[0]);
        }
        ga_pair *own;
        const ga_pair *p = vd_pair_use(a, a->renyi_pair, &own);
        int stop = 0;
        for (int j = 0; j < 60; j++) {
            ga_result xy = {NAN, INFINITY}, yx = {NAN, INFINITY};
            a->renyi_alpha[j] = exp(log(1.01) + (log(amax) - log(1.01)) * j / 59.0);
            /* (a curve from a privacy profile takes a fraction of a second per order: the
             * orders past the deadline or past the first the estimate failed at, where the
             * higher ones fail too, are left out of the plot) */
            if (p && !stop && !ga_expired(a->deadline) &&
                ga_pair_renyi(&xy, &yx, p, a->renyi_alpha[j]) != GA_OK) {
                xy.val = yx.val = NAN;
                stop = 1;
            }
            a->renyi_xy[j] = xy.val;
            a->renyi_yx[j] = yx.val;
        }
        ga_pair_free(own);
    }
}

/* A shard (--shard I/N): the evaluations the claims' decisions read, for this shard's pairs,
 * recorded in a->book: the table's estimates; per DP claim its estimates and the certified
 * intervals of the pairs it would certify among these (a superset of what the decisions over
 * all pairs certify here: vd_dp_cert_select); per RDP claim the Renyi estimates and the
 * certified divergences the same way; per zCDP/GDP claim the grid scan over these pairs and
 * the certified Mahalanobis distances the exact verdict reads. The rest (the witness, the
 * smallest eps, the plots, the accountants) concerns a few pairs the merge picks and
 * evaluates itself. */
static void shard_pass(ga_audit *a, const ga_audit_opts *o, ga_gchisq_work *w)
{
    size_t n = a->npairs, m = a->nslice, nc = m < GA_AUDIT_CERT_CAP + 1 ? m : GA_AUDIT_CERT_CAP + 1;
    vd_shard_buf b = {0};
    double *v = malloc(4 * (n ? n : 1) * sizeof *v);
    b.vst = malloc((n ? n : 1) * sizeof *b.vst);
    b.cst = malloc((nc ? nc : 1) * sizeof *b.cst);
    b.sel = malloc((nc ? nc : 1) * sizeof *b.sel);
    b.certs = malloc((nc ? nc : 1) * sizeof *b.certs);
    b.csec = malloc((nc ? nc : 1) * sizeof *b.csec);
    b.cdone = malloc(nc ? nc : 1);
    if (!v || !b.vst || !b.cst || !b.sel || !b.certs || !b.csec || !b.cdone) {
        a->book.failed = 1;
        goto cleanup;
    }
    b.xy = v;
    b.yx = v + n;
    b.exy = v + 2 * n;
    b.eyx = v + 3 * n;
    for (size_t ci = 0; ci < a->nclaims && !vd_expired(a, "the claims", 0, n); ci++) {
        const ga_claim_row *row = ga_claim_row_of(a->claims[ci].type);
        if (row->shard)
            row->shard(a, ci, o, &b, w);
    }
cleanup:
    free(v);
    free(b.vst);
    free(b.cst);
    free(b.sel);
    free(b.certs);
    free(b.csec);
    free(b.cdone);
}

/* SOURCE_DATE_EPOCH (the reproducible-builds convention: seconds since 1970 as decimal
 * digits) set: the report's clock readings are fixed, the start time to that value and every
 * wall time to 0, so that two runs of one spec give byte-identical reports (whatever --jobs);
 * a value that is not such a number is ignored */
static void reproducible_times(ga_audit *a)
{
    const char *e = getenv("SOURCE_DATE_EPOCH");
    if (!e || !*e || strlen(e) > 15 || strspn(e, "0123456789") != strlen(e))
        return;
    a->started = strtoll(e, NULL, 10);
    a->seconds = a->cert_seconds = 0;
    for (size_t i = 0; i < a->nclaims; i++)
        a->claims[i].seconds = 0;
}

/* this shard's pairs: i = shard - 1 mod nshards, in order */
static int shard_slice(ga_audit *a, const ga_audit_opts *o)
{
    size_t n = ga_pairset_npairs(&a->set);
    a->slice = malloc((n / o->nshards + 1) * sizeof *a->slice);
    if (!a->slice || ga_rec_begin(&a->book, GA_REC_RECORD))
        return GA_ENOMEM;
    a->book.shard = o->shard;
    a->book.nshards = o->nshards;
    for (size_t i = o->shard - 1; i < n; i += o->nshards)
        a->slice[a->nslice++] = i;
    return GA_OK;
}

/* each claim's worst pair's name, kept for ga_audit_result_claim where it is written out (a
 * row family's pair has none stored) */
static void name_worst_pairs(ga_audit *a)
{
    for (size_t k = 0; k < a->nclaims; k++) {
        ga_claim_result *c = &a->claims[k];
        c->worst_named = c->worst_pair < ga_pairset_npairs(&a->set) &&
                         ga_pairset_pair_name(&a->set, c->worst_pair, c->worst_name,
                                           sizeof c->worst_name) == c->worst_name;
    }
}

/* the decisions after the pairs are reduced: the table, the claims, the plots */
typedef struct {
    ga_audit *a;
    const ga_audit_opts *o;
} decide_run;

static void decide_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)i;
    decide_run *d = ctx;
    ga_audit_watch_stage(d->a->watch, "the per-pair table");
    audit_table(d->a, d->o, w);
    audit_claims(d->a, d->o, w);
    ga_audit_watch_stage(d->a->watch, "the plots");
    audit_plots(d->a, w);
    name_worst_pairs(d->a);
}

/* The audit; a shard (o->nshards > 0) records its evaluations instead of deciding; a merge
 * (book != NULL: the parts' records, moved into a) decides with them, the spec's bytes
 * checked against digest first. */
static int audit_run(ga_audit *a, const char *path, const char *text, size_t len,
                     const ga_audit_opts *o, ga_recbook *book, const ga_partial_head *head,
                     char *msg, size_t msglen)
{
    const char *digest = head ? head->digest : NULL;
    memset(a, 0, sizeof *a);
    a->watch = o->watch;
    a->jobs = o->jobs;
    if (book) {
        a->book = *book;
        memset(book, 0, sizeof *book);
    }
    double t0 = ga_monotonic();
    ga_gchisq_work *w = NULL;
    int rc = audit_load(a, path, text, len, o, msg, msglen);
    a->started = (long long)time(NULL);
    if (rc == GA_OK && digest && strcmp(digest, a->digest)) {
        ga_msg(msg, msglen, "%s: the spec is not the one the parts audited (SHA-256 %.12s..., the "
               "parts have %.12s...): merge needs the same bytes", path, a->digest, digest);
        rc = GA_EINVAL;
    }
    size_t bi;
    const ga_spec_input *df = rc == GA_OK && head
        ? ga_inputs_differ(a->spec.inputs, a->spec.ninputs, head->inputs, head->ninputs, &bi)
        : NULL;
    if (rc == GA_OK && head && (df || a->spec.ninputs != head->ninputs)) {
        if (df)
            ga_msg(msg, msglen, "%s: %s = %s has SHA-256 %.12s... now; the parts read %s: the "
                   "data changed since the shards ran (run them again)", path, df->key, df->path,
                   df->sha256, bi < head->ninputs ? head->inputs[bi].sha256 : "no such file");
        else
            ga_msg(msg, msglen, "%s: the spec reads %zu files now, the parts read %zu: the data "
                   "changed since the shards ran (run them again)", path, a->spec.ninputs,
                   head->ninputs);
        rc = GA_EINVAL;
    }
    if (rc == GA_OK && o->nshards)
        rc = shard_slice(a, o);
    if (rc == GA_OK && !(w = ga_gchisq_work_alloc()))
        rc = GA_ENOMEM;
    if (rc == GA_OK) {
        ga_audit_watch_stage(a->watch, "reducing the pairs");
        rc = audit_reduce(a, path, o, msg, msglen, w);
    }
    if (rc == GA_OK) {
        if (o->nshards) {
            shard_pass(a, o, w);
            if (a->book.failed)
                rc = GA_ENOMEM;
        } else {
            /* (one item: its pair loops run on the threads, and a single expensive pair's
             * evaluations, its plots' among them, are lent them: ga_par_inner_jobs; with w
             * given the loop always runs its item) */
            decide_run d = {a, o};
            (void)ga_par_for(1, ga_par_jobs(o->jobs), 0, decide_item, &d, NULL, w);
        }
    }
    a->seconds = ga_monotonic() - t0;
    ga_gchisq_work_free(w);
    reproducible_times(a);
    return rc;
}

int ga_audit_run(ga_audit *a, const char *path, const ga_audit_opts *o, char *msg, size_t msglen)
{
    return audit_run(a, path, NULL, 0, o, NULL, NULL, msg, msglen);
}

/* Merge re-derives what its violations rest on: every certified record (delta, Renyi,
 * Mahalanobis) of each violated claim's worst pair is evaluated again here, and a part whose
 * interval does not overlap the new one is refused (a part file is untrusted: its digest
 * shows that it is what a shard wrote, not that the shard computed it right). */
static int merge_rederive_claims(ga_audit *a, char *msg, size_t msglen);

static int merge_rederive(ga_audit *a, char *msg, size_t msglen)
{
    /* (the report counts the audit's own evaluations: these are not) */
    size_t ncert = a->ncertified;
    long bits = a->max_bits;
    double secs = a->cert_seconds;
    int rc = merge_rederive_claims(a, msg, msglen);
    a->ncertified = ncert;
    a->max_bits = bits;
    a->cert_seconds = secs;
    return rc;
}

static int merge_rederive_claims(ga_audit *a, char *msg, size_t msglen)
{
    for (size_t c = 0; c < a->nclaims; c++) {
        const ga_claim_result *r = &a->claims[c];
        if (r->verdict != GA_VERDICT_VIOLATION)
            continue;
        for (size_t k = 0; k < a->book.n; k++) {
            const ga_rec *x = &a->book.r[k];
            if (x->pair != r->worst_pair ||
                (x->type != GA_REC_CERT && x->type != GA_REC_CERT_RENYI && x->type != GA_REC_MAHA))
                continue;
            int mode = a->book.mode, st;
            a->book.mode = GA_REC_OFF;
            ga_interval iv[2] = {{0, 1}, {0, 1}};
            if (x->type == GA_REC_CERT) {
                ga_delta_cert dc;
                double sec;
                st = vd_cert_delta_eval(a, x->pair, x->key_txt, &dc, &sec);
                iv[0] = dc.xy;
                iv[1] = dc.yx;
            } else if (x->type == GA_REC_CERT_RENYI) {
                st = vd_cert_renyi(a, x->pair, x->key, &iv[0], &iv[1]);
            } else {
                st = vd_maha_cert(a, x->pair, &iv[0]);
                iv[1] = iv[0];
            }
            a->book.mode = mode;
            int agree = 1;
            for (int d = 0; d < (x->type == GA_REC_MAHA ? 1 : 2); d++)
                agree &= !(iv[d].lo > x->v[2 * d + 1] || x->v[2 * d] > iv[d].hi);
            if (st == GA_OK && !agree) {
                char nb[GA_SPEC_NAME_LEN];
                ga_msg(msg, msglen, "merge: the parts' certified interval for pair '%s' "
                       "([%.17g, %.17g]) is not what it is (recomputed [%.17g, %.17g]): a part "
                       "was not written by this spec's audit; refused",
                       ga_audit_pair_name(a, x->pair, nb), x->v[0], x->v[1], iv[0].lo, iv[0].hi);
                return GA_EINVAL;
            }
        }
    }
    return GA_OK;
}

int ga_audit_merge_run(ga_audit *a, const char *const *parts, size_t nparts,
                       const char *spec_path, const ga_audit_opts *o, char *msg, size_t msglen)
{
    ga_recbook book;
    ga_partial_head h0 = {0}, h = {0};
    unsigned char *seen = calloc(nparts ? nparts : 1, 1);
    int rc = !seen ? GA_ENOMEM : nparts == 0 ? GA_EINVAL : ga_rec_begin(&book, GA_REC_REPLAY);
    memset(a, 0, sizeof *a);
    if (rc == GA_EINVAL)
        ga_msg(msg, msglen, "merge: no partial results given");
    for (size_t p = 0; rc == GA_OK && p < nparts; p++) {
        ga_partial_head_clear(&h);
        if ((rc = ga_partial_read(p ? &h : &h0, &book, parts[p], msg, msglen)) != GA_OK)
            break;
        const ga_partial_head *x = p ? &h : &h0;
        size_t bi;
        const ga_spec_input *df = p ? ga_inputs_differ(h.inputs, h.ninputs, h0.inputs,
                                                       h0.ninputs, &bi) : NULL;
        rc = GA_EINVAL;
        if (x->incomplete)
            ga_msg(msg, msglen, "%s: shard %zu/%zu is incomplete (stopped by --timeout): run it "
                   "again", parts[p], x->shard, x->nshards);
        else if (x->nshards != nparts)
            ga_msg(msg, msglen, "%s: shard %zu of %zu, but %zu parts were given: merge needs "
                   "every shard once", parts[p], x->shard, x->nshards, nparts);
        else if (seen[x->shard - 1]++)
            ga_msg(msg, msglen, "%s: shard %zu/%zu was given twice", parts[p], x->shard, x->nshards);
        else if (p && (strcmp(x->digest, h0.digest) || x->npairs != h0.npairs ||
                       x->nclaims != h0.nclaims || x->certified != h0.certified ||
                       x->has_claim != h0.has_claim || strcmp(x->claim, h0.claim)))
            ga_msg(msg, msglen, "%s: this part audited another spec or with other options "
                   "(--certified, --claim) than %s", parts[p], parts[0]);
        else if (p && df)
            ga_msg(msg, msglen, "%s: this part read %s (%s) with SHA-256 %.12s..., %s %s%.12s%s: "
                   "the data changed between the shards (run them again on the same files)",
                   parts[p], df->key, df->path, df->sha256, parts[0],
                   bi < h0.ninputs ? "with " : "did not read it", bi < h0.ninputs ?
                   h0.inputs[bi].sha256 : "", bi < h0.ninputs ? "..." : "");
        else if (p && h.ninputs != h0.ninputs)
            ga_msg(msg, msglen, "%s: this part read %zu files, %s %zu: the data changed between "
                   "the shards (run them again on the same files)", parts[p], h.ninputs,
                   parts[0], h0.ninputs);
        else
            rc = GA_OK;
    }
    /* a path a part names is untrusted: only a regular file is read (never a device, a FIFO
     * or a directory), and the spec reader quotes no byte of a file that is not a spec */
    struct stat sb;
    if (rc == GA_OK && !spec_path && (stat(h0.spec, &sb) != 0 || !S_ISREG(sb.st_mode))) {
        ga_msg(msg, msglen, "merge: the parts name the spec '%.300s', which is not a regular file "
               "(give the spec's path with --spec)", h0.spec);
        rc = GA_EIO;
    }
    if (rc == GA_OK) {
        ga_audit_opts mo = *o;
        mo.certified = h0.certified;
        mo.claim = h0.has_claim ? h0.claim : NULL;
        mo.shard = mo.nshards = 0;
        book.nshards = nparts;
        rc = audit_run(a, spec_path ? spec_path : h0.spec, NULL, 0, &mo, &book, &h0, msg,
                       msglen);
        if (rc == GA_OK && (ga_pairset_npairs(&a->set) != h0.npairs || a->nclaims != h0.nclaims)) {
            ga_msg(msg, msglen, "merge: the spec has %zu pairs and %zu claims, the parts %zu and "
                   "%zu", ga_pairset_npairs(&a->set), a->nclaims, h0.npairs, h0.nclaims);
            rc = GA_EINVAL;
        }
        if (rc == GA_OK)
            rc = merge_rederive(a, msg, msglen);
    }
    ga_rec_clear(&book);
    ga_partial_head_clear(&h0);
    ga_partial_head_clear(&h);
    free(seen);
    return rc;
}

int ga_audit_run_text(ga_audit *a, const char *text, size_t len, const char *name,
                      const ga_audit_opts *o, char *msg, size_t msglen)
{
    return audit_run(a, name ? name : "<spec>", text, len, o, NULL, NULL, msg, msglen);
}

void ga_audit_options_init(ga_audit_options *o)
{
    memset(o, 0, sizeof *o);
}

/* the internal options of the public ones; GA_EINVAL for a shard number out of range */
static int internal_opts(ga_audit_opts *o, const ga_audit_options *opts, char *msg, size_t msglen)
{
    *o = (ga_audit_opts){.certified = opts->certified, .quiet = opts->progress == NULL,
                         .progress = opts->progress, .timeout = opts->timeout,
                         .claim = opts->claim, .allow_paths = opts->allow_paths,
                         .nallow = opts->nallow, .jobs = ga_par_jobs(opts->jobs),
                         .shard = opts->shard, .nshards = opts->nshards};
    if (opts->nshards && !(opts->shard >= 1 && opts->shard <= opts->nshards)) {
        ga_msg(msg, msglen, "shard %zu of %zu: shards are numbered 1 to N", opts->shard,
               opts->nshards);
        return GA_EINVAL;
    }
    return GA_OK;
}

/* path (spec text, or nparts partial results to merge) into a result */
static int pipeline(ga_audit_result **out, const char *path, const char *text, size_t len,
                    const char *const *parts, size_t nparts, const ga_audit_options *opts,
                    ga_audit_watch *watch, char *msg, size_t msglen)
{
    ga_audit_options d;
    if (!opts) {
        ga_audit_options_init(&d);
        opts = &d;
    }
    *out = NULL;
    ga_audit_opts o;
    int rc = internal_opts(&o, opts, msg, msglen);
    if (rc)
        return rc;
    o.watch = watch;
    ga_audit_result *r = calloc(1, sizeof *r);
    if (!r)
        return GA_ENOMEM;
    rc = parts ? ga_audit_merge_run(&r->a, parts, nparts, path, &o, msg, msglen)
               : audit_run(&r->a, path, text, len, &o, NULL, NULL, msg, msglen);
    if (rc) {
        ga_audit_watch_leave(watch); /* (before the spec the snapshot points into is freed) */
        ga_audit_clear(&r->a);
        free(r);
        return rc;
    }
    *out = r;
    return GA_OK;
}

int ga_audit_merge_files(ga_audit_result **out, const char *const *parts, size_t nparts,
                         const char *spec, const ga_audit_options *opts, char *msg, size_t msglen)
{
    *out = NULL;
    if (opts && opts->nshards) {
        ga_msg(msg, msglen, "merge: the options ask for a shard");
        return GA_EINVAL;
    }
    if (nparts == 0 || !parts) {
        ga_msg(msg, msglen, "merge: no partial results given (one per shard 1..N)");
        return GA_EINVAL;
    }
    return pipeline(out, spec, NULL, 0, parts, nparts, opts, NULL, msg, msglen);
}

int ga_audit_spec_file(ga_audit_result **out, const char *path, const ga_audit_options *opts,
                       char *msg, size_t msglen)
{
    return pipeline(out, path, NULL, 0, NULL, 0, opts, NULL, msg, msglen);
}

int ga_audit_spec_file_watched(ga_audit_result **out, const char *path,
                               const ga_audit_options *opts, ga_audit_watch *w, char *msg,
                               size_t msglen)
{
    return pipeline(out, path, NULL, 0, NULL, 0, opts, w, msg, msglen);
}

int ga_audit_spec_text(ga_audit_result **out, const char *text, size_t len, const char *name,
                       const ga_audit_options *opts, char *msg, size_t msglen)
{
    return pipeline(out, name ? name : "<spec>", text, len, NULL, 0, opts, NULL, msg, msglen);
}

void ga_audit_result_free(ga_audit_result *r)
{
    if (!r)
        return;
    ga_audit_clear(&r->a);
    free(r);
}

int ga_audit_result_verdict(const ga_audit_result *r)
{
    return r->a.overall;
}

int ga_audit_result_exit_status(const ga_audit_result *r)
{
    if (r->a.book.mode == GA_REC_RECORD) /* a shard: no verdict; 2 when it did not finish */
        return r->a.incomplete ? 2 : 0;
    return r->a.overall == GA_VERDICT_VIOLATION ? 1 : r->a.overall == GA_VERDICT_INCONCLUSIVE ? 2 : 0;
}

size_t ga_audit_result_nclaims(const ga_audit_result *r)
{
    return r->a.nclaims;
}

const char *ga_audit_result_spec_name(const ga_audit_result *r)
{
    return r->a.spec.name;
}

int ga_audit_result_claim(ga_claim_info *out, const ga_audit_result *r, size_t i)
{
    if (i >= r->a.nclaims)
        return GA_EINVAL;
    const ga_claim_result *c = &r->a.claims[i];
    memset(out, 0, sizeof *out);
    out->type = ga_claim_type_name(c->type);
    out->epsilon = c->eps;
    out->delta = c->delta;
    out->alpha = c->alpha;
    out->bound = c->eps_a;
    out->verdict = c->verdict;
    out->reason = c->reason;
    out->exact = c->exact;
    out->certified = c->certified;
    out->interval.lo = c->cert_lo;
    out->interval.hi = c->cert_hi;
    out->worst_pair = c->worst_named ? c->worst_name
                      : c->worst_pair < ga_pairset_npairs(&r->a.set)
                          ? ga_pairset_pair_name(&r->a.set, c->worst_pair, NULL, 0) /* (a record) */
                          : "";
    out->direction = c->worst_dir;
    out->evaluated = c->evaluated;
    return GA_OK;
}

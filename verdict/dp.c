/*
 * dp.c - the verdict of an (eps, delta) claim: the double-precision estimates of every pair
 * select the candidates, certified intervals decide (VIOLATION only when a certified lower
 * bound exceeds the claim by the pair's margin, VERIFIED only when every pair's certified
 * upper bound is below it, or a proven worst case's is), with the exact value, the slack and
 * the worst pair; a profile over the claim's eps grid where the spec asks for it.
 */
#include "verdict/internal.h"

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* is i among list[0..n)? */
static int in_list(const size_t *list, size_t n, size_t i)
{
    for (size_t k = 0; k < n; k++)
        if (list[k] == i)
            return 1;
    return 0;
}

/* r's exact value and slack those of pair i in r->worst_dir (the pair its interval is of) */
static void dp_exact_of(ga_claim_result *r, size_t i, const double *xy, const double *yx,
                        const double *exy, const double *eyx)
{
    int d1 = r->worst_dir == 1;
    r->exact.val = d1 ? xy[i] : yx[i];
    r->exact.err = d1 ? exy[i] : eyx[i];
    r->slack = r->exact.val > 0 ? r->delta / r->exact.val : INFINITY;
}

/* One (eps, delta) claim being decided: the estimates of every pair at the claim's eps, the
 * worst pair by estimate, and what the certified evaluations found. */
typedef struct {
    ga_audit *a;
    ga_claim_result *r;
    const ga_audit_opts *o;
    ga_gchisq_work *w;
    size_t n;
    double *xy, *yx, *exy, *eyx; /* estimates per pair (bounds masked: -2) */
    int reuse, alias;            /* the table's estimates are the claim's (alias: in place) */
    size_t worst, nfailed;       /* the largest estimate; pairs whose estimate failed */
    double ub_max;               /* the largest estimate of a neighbour's upper bound (a pair
                                    flagged bound) in the claim's scope; -1: none */
    size_t ub_pair;
    int wdir;
    size_t scope_i;              /* the claim's scope (vd_dp_scope_index) */
    /* found by the certification: */
    int violation, ambiguous, uncertifiable, capped, bound_over, built_close, unc_status;
    int stopped; /* the time budget ended before a needed certified evaluation finished */
    char amb_pair[200], uncert_note[200], stopped_pair[200];
} dp_run;

/* the estimates of every pair at the claim's eps (the table's when they are the same), and
 * the worst pair by estimate; bounds no neighbour need attain are never the worst */
static void dp_estimates(dp_run *d)
{
    ga_audit *a = d->a;
    ga_claim_result *r = d->r;
    size_t n = d->n;
    double *xy = d->xy, *yx = d->yx, *exy = d->exy, *eyx = d->eyx;
    size_t worst = 0, nfailed = 0;
    int wdir = 1;
    double wv = -1, ubv = -1;
    if (d->alias) {
        /* (read in place) */
    } else if (d->reuse) {
        memcpy(xy, a->pair_xy, n * sizeof *xy);
        memcpy(yx, a->pair_yx, n * sizeof *yx);
        memcpy(exy, a->pair_xy_err, n * sizeof *exy);
        memcpy(eyx, a->pair_yx_err, n * sizeof *eyx);
    } else if (!vd_expired(a, "the claims", 0, n)) {
        vd_est_all(a, d->o, r->eps, xy, yx, exy, eyx, "the claims", d->w);
    } else {
        for (size_t i = 0; i < n; i++)
            xy[i] = yx[i] = exy[i] = eyx[i] = 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (ga_pairset_pair_bound(&a->set, i)) { /* an upper bound of a neighbour (shown in the pairs
                                          table): never the worst pair, never certified; above
                                          the claim it leaves the neighbour undecided */
            double ub = fmax(vd_dp_counts(r, d->scope_i, i, 1) ? xy[i] : -1,
                             vd_dp_counts(r, d->scope_i, i, 2) ? yx[i] : -1);
            if (ub > ubv) {
                ubv = ub;
                d->ub_pair = i;
            }
            xy[i] = yx[i] = -2;
            exy[i] = eyx[i] = 0;
            continue;
        }
        int cx = vd_dp_counts(r, d->scope_i, i, 1), cy = vd_dp_counts(r, d->scope_i, i, 2);
        if ((cx && isnan(xy[i])) || (cy && isnan(yx[i])))
            nfailed++;
        if (cx && xy[i] > wv) {
            wv = xy[i];
            worst = i;
            wdir = 1;
        }
        if (cy && yx[i] > wv) {
            wv = yx[i];
            worst = i;
            wdir = 2;
        }
    }
    r->worst_pair = worst;
    r->worst_dir = wdir;
    r->exact.val = wv;
    r->exact.err = wdir == 1 ? exy[worst] : eyx[worst];
    r->slack = wv > 0 ? r->delta / wv : INFINITY;
    d->worst = worst;
    d->wdir = wdir;
    d->nfailed = nfailed;
    d->ub_max = ubv;
}

/* certified intervals of the pairs that decide (vd_dp_cert_select: at most the cap, and the
 * proven worst case), on o->jobs threads, and what they show: a violation (the interval of
 * the pair shown), an interval containing the claim, a pair that cannot be certified.
 * GA_OK, or GA_ENOMEM (nothing certified). */
static int dp_certify(dp_run *d, const char *eps_txt)
{
    ga_audit *a = d->a;
    ga_claim_result *r = d->r;
    const ga_audit_opts *o = d->o;
    ga_gchisq_work *w = d->w;
    size_t n = d->n, worst = d->worst;
    int wdir = d->wdir, reuse = d->reuse;
    double *xy = d->xy, *yx = d->yx, *exy = d->exy, *eyx = d->eyx;
    char nb[GA_SPEC_NAME_LEN];
    ga_spec_pair_buf pb;
    size_t ncap = n < GA_AUDIT_CERT_CAP + 1 ? n : GA_AUDIT_CERT_CAP + 1;
    size_t *sel = malloc((ncap ? ncap : 1) * sizeof *sel);
    ga_delta_cert *certs = malloc((ncap ? ncap : 1) * sizeof *certs);
    int *cst = malloc((ncap ? ncap : 1) * sizeof *cst);
    double *csec = malloc((ncap ? ncap : 1) * sizeof *csec);
    unsigned char *cdone = malloc(ncap ? ncap : 1);
    int violation = 0, ambiguous = 0, uncertifiable = 0, capped = 0, bound_over = 0,
        built_close = 0, rc = GA_OK;
    size_t ncert = 0;
    char *amb_pair = d->amb_pair, *uncert_note = d->uncert_note;
    int unc_status = GA_OK; /* the status of the evaluation that made it uncertifiable */
    if (!sel || !certs || !cst || !csec || !cdone) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    /* the pairs to certify, in order (the cap counts them in order) */
    ncert = vd_dp_cert_select(sel, &capped, a, r, xy, yx, exy, eyx, NULL, n, o);
    /* their certified values on o->jobs threads */
    vd_cert_selected(a, o, sel, ncert, eps_txt, certs, cst, csec, cdone, w);
    for (size_t j = 0; j < ncert; j++) {
        size_t i = sel[j];
        int cx = vd_dp_counts(r, d->scope_i, i, 1), cy = vd_dp_counts(r, d->scope_i, i, 2);
        int clear = (!cx || xy[i] + exy[i] <= r->delta) && (!cy || yx[i] + eyx[i] <= r->delta);
        if (!cdone[j]) {
            vd_expired(a, "certification", i, n);
            d->stopped = 1;
            snprintf(d->stopped_pair, sizeof d->stopped_pair, "%s", ga_audit_pair_name(a, i, nb));
            break;
        }
        ga_delta_cert c = certs[j];
        int st = cst[j];
        vd_cert_account(a, &c, csec[j]);
        if (o->fail_cert == i + 1)
            st = o->fail_cert_status ? o->fail_cert_status : GA_EDOM;
        if (reuse && (st == GA_OK || st == GA_EPREC)) /* shown per pair in the reports */
            vd_store_pair_cert(a, i, &c);
        if (st == GA_ETIME) { /* (the budget ran out inside the evaluation: the audit says so) */
            vd_expired(a, "certification", j, ncert);
            if (!d->stopped)
                snprintf(d->stopped_pair, sizeof d->stopped_pair, "%s", ga_audit_pair_name(a, i, nb));
            d->stopped = 1;
            continue;
        }
        if (st != GA_OK && st != GA_EPREC) {
            /* a proven worst case whose estimates clear the claim but which has no certified
             * evaluation (a composition of subsampled steps whose Bromwich integrand decays
             * too slowly for the certified bounds: GA_EMAXITER) proves nothing: the verdict
             * is then NO VIOLATION FOUND, saying so */
            if (clear && (st == GA_EDOM || st == GA_EMAXITER) && ga_spec_pair_is_loss(vd_spair(a, i, &pb))) {
                snprintf(uncert_note, sizeof d->uncert_note, "%s", ga_audit_pair_name(a, i, nb));
            } else if (!clear || (a->set.verified && i == a->set.verified_pair)) {
                uncertifiable = 1;
                unc_status = st;
                snprintf(amb_pair, sizeof d->amb_pair, "%s", ga_audit_pair_name(a, i, nb));
            }
            continue;
        }
        /* (the directions in the claim's scope only) */
        double lo = fmax(cx ? c.xy.lo : 0, cy ? c.yx.lo : 0), hi = fmax(cx ? c.xy.hi : 0, cy ? c.yx.hi : 0);
        /* the reported pair, direction and interval always belong together: the worst pair
         * (largest estimate) unless another pair is a certified violation and it is not */
        double margin = vd_built_margin(a, i);
        int is_violation = lo > r->delta * (1 + margin) && vd_attained(a, i);
        if (lo > r->delta && !is_violation && margin > 0 && vd_attained(a, i))
            built_close = 1; /* above the claim, but within the construction's rounding */
        if (is_violation && (!violation || i == worst)) {
            r->worst_pair = i;
            r->worst_dir = cx && (!cy || c.xy.lo >= c.yx.lo) ? 1 : 2;
            const ga_interval *iv = r->worst_dir == 1 ? &c.xy : &c.yx;
            dp_exact_of(r, i, xy, yx, exy, eyx); /* the value beside the interval is its pair's */
            r->certified = 1;
            r->cert_lo = iv->lo;
            r->cert_hi = iv->hi;
            vd_cert_decimals(r, &c, r->worst_dir == 1, r->worst_dir == 1);
        } else if (!violation && i == worst) {
            const ga_interval *iv = wdir == 1 ? &c.xy : &c.yx;
            r->certified = 1;
            r->cert_lo = iv->lo;
            r->cert_hi = iv->hi;
            vd_cert_decimals(r, &c, wdir == 1, wdir == 1);
        }
        if (is_violation) {
            violation = 1;
        } else if (hi > r->delta) {
            ambiguous = 1;
            if (lo > r->delta && !built_close) { /* the bound exceeds the claim; no neighbour
                                                    shown (2: the output before a release) */
                ga_spec_pair_buf ub;
                bound_over = i < ga_pairset_npairs(&a->set) && ga_spec_pair_unreleased(vd_spair(a, i, &ub)) ? 2 : 1;
            }
            snprintf(amb_pair, sizeof d->amb_pair, "%s", ga_audit_pair_name(a, i, nb));
        } else if (!violation && ((a->set.verified && i == a->set.verified_pair) ||
                                  (r->scope_pair[0] && i == d->scope_i))) {
            int xlo = cx && (!cy || c.xy.lo >= c.yx.lo), xhi = cx && (!cy || c.xy.hi >= c.yx.hi);
            r->certified = 1;
            r->cert_lo = lo;
            r->cert_hi = hi;
            vd_cert_decimals(r, &c, xlo, xhi);
            if (i != worst) { /* the value beside the interval is its pair's */
                r->worst_pair = i;
                r->worst_dir = xhi ? 1 : 2;
                dp_exact_of(r, i, xy, yx, exy, eyx);
            }
        }
    }
cleanup:
    d->violation = violation;
    d->ambiguous = ambiguous;
    d->uncertifiable = uncertifiable;
    d->capped = capped;
    d->bound_over = bound_over;
    d->built_close = built_close;
    d->unc_status = unc_status;
    free(sel);
    free(certs);
    free(cst);
    free(csec);
    free(cdone);
    return rc;
}

/* the verdict and its reason from what the certification found */
static void dp_verdict(dp_run *d)
{
    ga_audit *a = d->a;
    ga_claim_result *r = d->r;
    const ga_audit_opts *o = d->o;
    size_t n = d->n, nfailed = d->nfailed;
    int violation = d->violation, ambiguous = d->ambiguous, uncertifiable = d->uncertifiable,
        capped = d->capped, bound_over = d->bound_over, built_close = d->built_close,
        unc_status = d->unc_status;
    const char *amb_pair = d->amb_pair, *uncert_note = d->uncert_note;
    char nb[GA_SPEC_NAME_LEN];
    char claim[96], ce[32], cd[32];
    /* (num writes into its buffer: never the source and the destination of one snprintf) */
    if (r->eps_txt)
        snprintf(ce, sizeof ce, "%.30s", r->eps_txt);
    else
        vd_num(ce, r->eps);
    if (r->delta_txt)
        snprintf(cd, sizeof cd, "%.30s", r->delta_txt);
    else
        vd_num(cd, r->delta);
    snprintf(claim, sizeof claim, "claim delta(%s) <= %s", ce, cd);
    if (violation) {
        char b1[32], b2[32];
        r->verdict = GA_VERDICT_VIOLATION;
        snprintf(r->reason, sizeof r->reason,
                 "certified: delta_%s(%s) of pair '%s' lies in [%s, %s], above the claimed %s",
                 r->worst_dir == 1 ? "XY" : "YX", ce, ga_audit_pair_name(a, r->worst_pair, nb),
                 vd_bnd_vs(b1, r->cert_lo, 0, r->delta), vd_bnd_vs(b2, r->cert_hi, 1, r->delta), cd);
    } else if (d->stopped) {
        /* nothing certified may be read into the estimates: say where they stand */
        char v1[32], v2[32];
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "%s: undecided: the time budget ended before the "
                 "certified evaluation of pair '%s' finished (the largest estimate, delta = %s "
                 "+- %s, is %s the claim)", claim, d->stopped_pair, vd_num(v1, r->exact.val),
                 (snprintf(v2, sizeof v2, "%.2g", r->exact.err), v2),
                 r->exact.val - r->exact.err > r->delta   ? "above"
                 : r->exact.val + r->exact.err <= r->delta ? "below"
                                                           : "within its error of");
    } else if (ambiguous || uncertifiable || capped) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "%s: %s",
                 claim, bound_over == 2 ? "the output before a release whose laws could not be "
                                          "computed rigorously, an upper bound of the release's "
                                          "delta, has certified delta above the claim; no "
                                          "violation is shown (pair '"
                        : bound_over ? "the proven worst case, an upper bound no single neighbour "
                                     "need attain, has certified delta above the claim and no "
                                     "audited neighbour was shown to violate it (pair '"
                        : ambiguous && built_close
                            ? "a certified delta exceeds the claim by less than the rounding of "
                              "the pair's construction from the data (1e-9 relative) (pair '"
                        : ambiguous ? "a certified interval contains the claimed delta (pair '"
                        : uncertifiable ? "certified mode is not available (pair '"
                                        : "more pairs are close to the claim than the certification cap ('");
        size_t l = strlen(r->reason);
        snprintf(r->reason + l, sizeof r->reason - l, "%s')", amb_pair);
        if (uncertifiable && (unc_status == GA_ENOMEM || unc_status == GA_EDEP)) {
            char why[200]; /* (what FLINT/Arb could not allocate, or its exception) */
            ga_arb_last_failure(why, sizeof why);
            l = strlen(r->reason);
            snprintf(r->reason + l, sizeof r->reason - l, ": %s", why[0] ? why : ga_strerror(unc_status));
        }
        if (uncertifiable && !ambiguous && !bound_over && amb_pair[0] && vd_sub_pair(a, amb_pair) &&
            r->exact.val >= 0 && isfinite(r->exact.err)) {
            char v1[32], v2[32];
            l = strlen(r->reason);
            snprintf(r->reason + l, sizeof r->reason - l, ": no certified evaluation of this "
                     "composition of subsampled steps (few steps of a small rate: the Bromwich "
                     "integrand decays too slowly for the certified bounds, and the certified "
                     "bracket covers up to 128 identical steps; the estimate of delta is %s +- %s)",
                     vd_num(v1, r->exact.val), (snprintf(v2, sizeof v2, "%.2g", r->exact.err), v2));
        }
        if (nfailed) {
            l = strlen(r->reason);
            snprintf(r->reason + l, sizeof r->reason - l, "; the double-precision evaluation "
                     "failed on %zu pair(s)", nfailed);
        }
    } else if (r->scope_pair[0] && r->certified) {
        char b1[32];
        r->verdict = GA_VERDICT_VERIFIED;
        snprintf(r->reason, sizeof r->reason,
                 "holds for the pair '%s'%s, the claim's scope: certified delta%s(%s) <= %s",
                 r->scope_pair, r->scope_dir == 1 ? " in direction XY" : r->scope_dir == 2 ? " in direction YX" : "",
                 r->scope_dir == 1 ? "_XY" : r->scope_dir == 2 ? "_YX" : "", ce,
                 vd_bnd_vs(b1, r->cert_hi, 1, r->delta));
    } else if (a->set.verified && r->certified) {
        char b1[32];
        r->verdict = GA_VERDICT_VERIFIED;
        snprintf(r->reason, sizeof r->reason,
                 "holds for every neighbour: the proven %s has certified delta <= %s",
                 a->set.verified_note, vd_bnd_vs(b1, r->cert_hi, 1, r->delta));
    } else if (d->ub_max > r->delta) {
        char v1[32];
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "%s: undecided: every lower bound holds, but the "
                 "upper bound '%s' is above the claim (estimate %s): the claim may fail on that "
                 "neighbour", claim, ga_audit_pair_name(a, d->ub_pair, nb),
                 vd_num(v1, d->ub_max));
    } else {
        r->verdict = GA_VERDICT_NO_VIOLATION;
        if (uncert_note[0])
            snprintf(r->reason, sizeof r->reason, "holds on all %zu audited pairs, among them the "
                     "proven worst case, by estimates with error estimates below the claim; not "
                     "certified (pair '%s': no certified evaluation of this composition of "
                     "subsampled steps, beyond both the certified Bromwich bounds and the "
                     "certified bracket of up to 128 identical steps), so not proven", n,
                     uncert_note);
        else if (d->ub_max >= 0) {
            char v1[32];
            snprintf(r->reason, sizeof r->reason, "holds on every audited neighbour: each one's "
                     "upper bound is below the claim (the largest, '%s', %s: estimates with "
                     "error estimates)", ga_audit_pair_name(a, d->ub_pair, nb),
                     vd_num(v1, d->ub_max));
        } else
            snprintf(r->reason, sizeof r->reason, "holds on all %zu audited pairs%s (%s)", n,
                     r->scope_dir == 1   ? " in direction XY, the claim's scope"
                     : r->scope_dir == 2 ? " in direction YX, the claim's scope"
                                         : "",
                     o->certified ? "certified" : "estimates with error estimates below the claim");
    }
}

/* Fixed-size batches: the exact eps at the claimed delta of the same training with Poisson
 * sampling at the same rates (the number a Poisson accountant reports at best), computed
 * like the pairs' own; left 0 when it fails (the report then shows no comparison). */
static void poisson_compare(const ga_audit *a, ga_claim_result *r, ga_gchisq_work *w)
{
    ga_pair *p;
    ga_result e;
    int dir;
    char msg[256];
    if (ga_pair_reduce_subsampled(&p, a->set.compare, a->set.ncompare, msg, sizeof msg) != GA_OK)
        return;
    ga_gchisq_opts go = vd_gopts(a);
    int st = ga_pair_epsilon(&e, &dir, p, r->delta, &go, w);
    if (st == GA_OK || st == GA_ETOL)
        r->poisson_eps = e;
    ga_pair_free(p);
}

/* pair i's smallest eps at the claimed delta (ga_pair_epsilon's status) */
static int eps_of(ga_result *e, int *dir, const ga_audit *a, size_t i, double delta,
                  ga_gchisq_work *w)
{
    ga_pair *own;
    const ga_pair *p = vd_pair_use(a, i, &own);
    ga_gchisq_opts go = vd_gopts(a);
    int st = p ? ga_pair_epsilon(e, dir, p, delta, &go, w) : GA_ENOMEM;
    ga_pair_free(own);
    return st;
}

/* The worst pair an upper bound no neighbour need attain (shuffled epochs, masking with
 * several columns, a universe's supremum): the attained pair with the largest delta at the
 * claimed eps, its delta and its eps at the claimed delta, the other end of the bracket the
 * report states. */
static void attained_of(const ga_audit *a, ga_claim_result *r, const double *xy,
                        const double *yx, const double *exy, const double *eyx, size_t scope_i,
                        ga_gchisq_work *w)
{
    size_t best = SIZE_MAX;
    double bv = -1, be = 0;
    for (size_t i = 0; i < a->npairs; i++) {
        if (!vd_attained(a, i))
            continue;
        int cx = vd_dp_counts(r, scope_i, i, 1), cy = vd_dp_counts(r, scope_i, i, 2);
        if (cx && xy[i] > bv) {
            bv = xy[i];
            be = exy[i];
            best = i;
        }
        if (cy && yx[i] > bv) {
            bv = yx[i];
            be = eyx[i];
            best = i;
        }
    }
    if (best == SIZE_MAX || !isfinite(be))
        return;
    r->has_attained = 1;
    r->attained_delta.val = bv;
    r->attained_delta.err = be;
    r->attained_eps.val = NAN;
    r->attained_eps.err = INFINITY;
    if (!(r->delta > 0 && r->delta < 1))
        return;
    /* the eps: the largest over the attained pairs when they are few (two tests of shuffled
     * epochs: the larger delta at the claimed eps need not have the larger eps), else the
     * one with the largest delta */
    int few = a->npairs <= 8;
    size_t from = few ? 0 : best, to = few ? a->npairs : best + 1;
    for (size_t i = from; i < to; i++) {
        if (!vd_attained(a, i) || !(vd_dp_counts(r, scope_i, i, 1) || vd_dp_counts(r, scope_i, i, 2)))
            continue;
        ga_result e;
        int dir;
        int st = eps_of(&e, &dir, a, i, r->delta, w);
        /* (the largest: attained_eps starts as NaN, which no value is below) */
        if ((st == GA_OK || st == GA_ETOL) && !(r->scope_dir && dir && dir != r->scope_dir) &&
            !(e.val <= r->attained_eps.val))
            r->attained_eps = e;
    }
}

/* what the report shows beside the verdict: the smallest eps at the claimed delta (over the
 * pairs with the largest delta), the accountants' eps for subsampled pairs, the witness */
static void dp_extras(dp_run *d)
{
    ga_audit *a = d->a;
    ga_claim_result *r = d->r;
    ga_gchisq_work *w = d->w;
    size_t n = d->n;
    const double *xy = d->xy, *yx = d->yx;
    ga_spec_pair_buf pb;
    /* smallest eps at the claimed delta: over the pairs with the largest delta at eps */
    r->eps_at_delta.val = r->delta > 0 ? 0 : INFINITY;
    if (r->delta > 0) {
        size_t taken[GA_AUDIT_EPS_PAIRS];
        int any = !vd_attained(a, r->worst_pair);
        for (int t = 0; t < GA_AUDIT_EPS_PAIRS && t < (int)n; t++) {
            size_t best = SIZE_MAX;
            double bv = -1;
            /* (bounds no neighbour need attain count only when the worst pair is one) */
            for (size_t i = 0; i < n; i++) {
                double v = fmax(vd_dp_counts(r, d->scope_i, i, 1) ? xy[i] : -1,
                                vd_dp_counts(r, d->scope_i, i, 2) ? yx[i] : -1);
                if (v > bv && (any || vd_attained(a, i)) &&
                    !in_list(taken, (size_t)t, i)) {
                    bv = v;
                    best = i;
                }
            }
            if (best == SIZE_MAX)
                break;
            int mirrored = 0; /* the roles of a pair taken swapped: the same eps */
            for (int u = 0; u < t && !mirrored; u++)
                mirrored = ga_pair_mirrors(a->pairs[taken[u]], a->pairs[best]);
            if (mirrored) {
                taken[t] = best;
                continue;
            }
            ga_result e;
            int dir;
            int st = eps_of(&e, &dir, a, best, r->delta, w);
            if (st == GA_EDOM)
                e.val = INFINITY;
            if (r->scope_dir && dir != r->scope_dir) {
                /* the other direction binds: the scoped direction's eps is below this one,
                 * and not computed */
                r->eps_at_delta.val = NAN;
                break;
            }
            if (st != GA_OK && st != GA_ETOL && st != GA_EDOM) { /* failed: no number */
                r->eps_at_delta.val = NAN;
                break;
            }
            if (e.val > r->eps_at_delta.val)
                r->eps_at_delta = e;
            taken[t] = best; /* next */
        }
    }
    /* subsampled pairs (kept by the audit, never rebuilt): the RDP and PLD accountants' eps
     * of the claim's worst pair (a remove or add pair: each the other's directions; or, where
     * the run is bracketed, the bound whose eps is shown) and the Poisson comparison at the
     * claimed delta; an earlier DP claim at the same delta and worst pair has them (claims are
     * evaluated in order, one at a time: a composition's FFT is not redone) */
    int known = 0;
    for (size_t c = 0; c < (size_t)(r - a->claims) && !known; c++) {
        const ga_claim_result *q = &a->claims[c];
        if (q->type == GA_CLAIM_DP && q->evaluated && q->delta == r->delta &&
            q->worst_pair == r->worst_pair && (q->rdp_eps > 0 || q->pld_eps > 0)) {
            r->rdp_eps = q->rdp_eps;
            r->rdp_order = q->rdp_order;
            r->pld_eps = q->pld_eps;
            r->poisson_eps = q->poisson_eps;
            known = 1;
        }
    }
    if (n && r->delta > 0 && r->delta < 1 && !known && vd_spair(a, r->worst_pair, &pb)->nsub) {
        double e;
        int order;
        if (ga_pair_rdp_accountant(&e, &order, a->pairs[r->worst_pair], r->delta) == GA_OK) {
            r->rdp_eps = e;
            r->rdp_order = order;
        }
        if (ga_pair_pld_accountant(&e, a->pairs[r->worst_pair], r->delta, 1e-4) == GA_OK)
            r->pld_eps = e;
    }
    if (!known && a->set.ncompare && r->delta > 0 && r->delta < 1)
        poisson_compare(a, r, w);
    if (n) {
        r->bound = !vd_attained(a, r->worst_pair);
        r->lower = vd_spair(a, r->worst_pair, &pb)->lower;
        if (r->bound && !r->scope_pair[0])
            attained_of(a, r, d->xy, d->yx, d->exy, d->eyx, d->scope_i, w);
        vd_witness(a, r, w);
    }
}

/* The verdict of an (eps, delta) claim (the method is in the file's top comment): estimates,
 * then certified intervals where they decide, then the verdict, its reason and what is shown
 * beside it. Out of memory: INCONCLUSIVE, saying so. */
void vd_eval_dp(ga_audit *a, ga_claim_result *r, const char *eps_txt, const ga_audit_opts *o,
                ga_gchisq_work *w)
{
    size_t n = a->npairs;
    /* the estimates at the table's eps are read in place (no copy: 32 bytes per pair), unless
     * a bound must be masked in them */
    int reuse = a->pair_xy && r->eps == a->table_eps, masked = 0;
    for (size_t i = 0; i < n; i++)
        masked |= ga_pairset_pair_bound(&a->set, i);
    int alias = reuse && !masked;
    dp_run d = {.a = a, .r = r, .o = o, .w = w, .n = n, .reuse = reuse, .alias = alias,
                .scope_i = vd_dp_scope_index(a, r)};
    if (d.scope_i == VD_NO_PAIR) {
        ga_claim_not_evaluated(r, "");
        snprintf(r->reason, sizeof r->reason, "claim.pair names no listed pair ('%s'): the "
                 "pairs table of the report gives their names", r->scope_pair);
        return;
    }
    d.xy = alias ? a->pair_xy : malloc(n * sizeof *d.xy);
    d.yx = alias ? a->pair_yx : malloc(n * sizeof *d.yx);
    d.exy = alias ? a->pair_xy_err : malloc(n * sizeof *d.exy);
    d.eyx = alias ? a->pair_yx_err : malloc(n * sizeof *d.eyx);
    char es[64];
    if (!d.xy || !d.yx || !d.exy || !d.eyx) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "out of memory");
        goto cleanup;
    }
    if (!eps_txt) {
        snprintf(es, sizeof es, "%.17g", r->eps);
        eps_txt = es;
    }
    dp_estimates(&d);
    if (dp_certify(&d, eps_txt) != GA_OK) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "out of memory");
        goto cleanup;
    }
    dp_verdict(&d);
    dp_extras(&d);
cleanup:
    if (!alias) {
        free(d.xy);
        free(d.yx);
        free(d.exy);
        free(d.eyx);
    }
}

void vd_shard_dp(ga_audit *a, size_t ci, const ga_audit_opts *o, vd_shard_buf *b,
                 ga_gchisq_work *w)
{
    ga_claim_result *r = &a->claims[ci];
    size_t m = a->nslice, *sl = a->slice;
    char eb[64];
    const char *et = vd_claim_eps_text(eb, sizeof eb, a, ci);
    vd_est_some(a, o, r->eps, b->xy, b->yx, b->exy, b->eyx, "the claims", sl, m, w);
    int capped = 0;
    size_t ns = vd_dp_cert_select(b->sel, &capped, a, r, b->xy, b->yx, b->exy, b->eyx, sl, m, o);
    vd_cert_selected(a, o, b->sel, ns, et, b->certs, b->cst, b->csec, b->cdone, w);
    for (size_t j = 0; j < ns; j++)
        if (!b->cdone[j]) {
            vd_expired(a, "certification", j, ns);
            break;
        }
}

/*
 * renyi.c - claims on Renyi divergences: RDP at given orders, zCDP (sup over alpha of
 * D_alpha / alpha) and mu-GDP (delta(eps) against Phi(-eps/mu + mu/2) - e^eps
 * Phi(-eps/mu - mu/2)). Mean shifts with equal covariances are decided exactly from the
 * certified Mahalanobis distance; other pairs on a grid of orders or eps, where a grid point
 * above the claim is a certified violation and no grid proves the claim (NO VIOLATION FOUND).
 */
#include "verdict/internal.h"

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int vd_cert_renyi(ga_audit *a, size_t i, double alpha, ga_interval *xy, ga_interval *yx)
{
    a->ncertified++;
    const ga_rec *k = a->book.mode == GA_REC_REPLAY
                          ? ga_rec_find(&a->book, GA_REC_CERT_RENYI, i, alpha, NULL) : NULL;
    if (k) { /* merge: the shard's evaluation */
        *xy = (ga_interval){k->v[0], k->v[1]};
        *yx = (ga_interval){k->v[2], k->v[3]};
        return k->status;
    }
    ga_spec_pair_view v;
    ga_spec_pair_buf pb; /* (the view points into it) */
    if (ga_spec_pair_view_init(&v, vd_spair(a, i, &pb), 1))
        return GA_ENOMEM;
    /* The claim's order is a decimal whose double is alpha: D at the exact decimals of the
     * neighbouring doubles bracket D at it (D_alpha is nondecreasing in alpha), so the hull
     * of their intervals holds D at the decimal (below 1 + ulp: D >= 0) */
    char as[2][120];
    double an[2] = {nextafter(alpha, 0), nextafter(alpha, INFINITY)};
    ga_cert_opts co = vd_cert_opts(a);
    ga_pair *own;
    const ga_pair *p = vd_pair_use(a, i, &own);
    ga_interval bx[2] = {{0, 0}, {0, 0}}, by[2] = {{0, 0}, {0, 0}};
    int st = p ? GA_OK : GA_ENOMEM;
    /* (GA_EPREC: an enclosure wider than asked, still one: both ends are needed) */
    for (int k = 0; k < 2 && (st == GA_OK || st == GA_EPREC); k++) {
        if (an[k] <= 1)
            continue;
        snprintf(as[k], sizeof as[k], "%.70e", an[k]); /* (glibc prints it exactly) */
        int sk = ga_pair_renyi_cert(&bx[k], &by[k], p, v.in, v.txt, as[k], &co);
        if (sk != GA_OK && st == GA_OK)
            st = sk;
        else if (sk != GA_OK && sk != GA_EPREC)
            st = sk;
    }
    xy->lo = bx[0].lo;
    xy->hi = bx[1].hi;
    yx->lo = by[0].lo;
    yx->hi = by[1].hi;
    ga_pair_free(own);
    ga_spec_pair_view_clear(&v);
    if (a->book.mode == GA_REC_RECORD) {
        ga_rec r = {.type = GA_REC_CERT_RENYI, .pair = i, .key = alpha, .status = st,
                    .v = {xy->lo, xy->hi, yx->lo, yx->hi}};
        ga_rec_add(&a->book, &r); /* (a failure is kept in the book) */
    }
    return st;
}

void vd_eval_rdp(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o, ga_gchisq_work *w)
{
    char nb[GA_SPEC_NAME_LEN];
    ga_spec_pair_buf pb;
    size_t n = a->npairs;
    double wv = -1;
    int violation = 0, ambiguous = 0, verified_ok = 0, uncert = 0;
    size_t ncert = 0;
    char amb[256] = "";
    double *v = malloc(4 * (n ? n : 1) * sizeof *v);
    int *vst = malloc((n ? n : 1) * sizeof *vst);
    if (!v || !vst) {
        free(v);
        free(vst);
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "out of memory");
        return;
    }
    /* the estimates on o->jobs threads (failed: NaN; certify it or stay inconclusive) */
    vd_renyi_all(a, o, r->alpha, v, v + n, v + 2 * n, v + 3 * n, vst, w);
    /* the worst estimate (the reported pair unless a certified interval of another pair
     * decides: the value, the pair and the interval reported always belong together) */
    int interval_set = 0;
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        char fam[160];
        int lower;
        if (vd_no_renyi(a, i, fam, sizeof fam, &lower)) { /* (a lower bound: claims.c) */
            left++;
            continue;
        }
        ga_result xy = {v[i], v[2 * n + i]}, yx = {v[n + i], v[3 * n + i]};
        for (int d = 1; d <= 2; d++) {
            const ga_result *e = d == 1 ? &xy : &yx;
            if (e->val > wv) {
                wv = e->val;
                if (!interval_set) {
                    r->exact = *e;
                    r->worst_pair = i;
                    r->worst_dir = d;
                }
            }
        }
        int clear = xy.val + xy.err <= r->eps_a && yx.val + yx.err <= r->eps_a;
        int is_v = a->set.verified && i == a->set.verified_pair;
        if (clear && !is_v)
            continue;
        if (ncert++ >= 200) {
            ambiguous = 1;
            snprintf(amb, sizeof amb, "more pairs than the certification cap");
            continue;
        }
        ga_interval cx, cy;
        int st = vd_cert_renyi(a, i, r->alpha, &cx, &cy);
        double lo = fmax(cx.lo, cy.lo), hi = fmax(cx.hi, cy.hi);
        if (st == GA_EDOM && clear && ga_spec_pair_is_loss(vd_spair(a, i, &pb))) {
            uncert = 1; /* subsampled: estimates only (as for delta) */
            continue;
        }
        if (st != GA_OK && st != GA_EPREC) { /* (EPREC: an enclosure, wider than asked) */
            ambiguous = 1;
            snprintf(amb, sizeof amb, "certified Renyi divergence unavailable for pair '%.100s'",
                     ga_audit_pair_name(a, i, nb));
            continue;
        }
        if (lo > r->eps_a * (1 + vd_built_margin(a, i))) { /* (a computed pair's margin) */
            if (!violation) {
                r->worst_pair = i;
                r->worst_dir = cx.lo >= cy.lo ? 1 : 2;
                r->certified = 1;
                r->cert_lo = cx.lo >= cy.lo ? cx.lo : cy.lo;
                r->cert_hi = cx.lo >= cy.lo ? cx.hi : cy.hi;
                r->exact = r->worst_dir == 1 ? xy : yx; /* the interval's pair and direction */
                interval_set = 1;
            }
            violation = 1;
        } else if (hi > r->eps_a) {
            ambiguous = 1;
            char b1[32], b2[32];
            snprintf(amb, sizeof amb, "certified D_%.4g of pair '%.40s' in [%s, %s] contains the claim",
                     r->alpha, ga_audit_pair_name(a, i, nb), vd_bnd(b1, lo, 0), vd_bnd(b2, hi, 1));
        } else if (is_v) {
            verified_ok = 1;
            r->certified = 1;
            r->cert_lo = lo;
            r->cert_hi = hi;
            if (!violation) { /* the value beside the interval is its pair's */
                r->worst_pair = i;
                r->worst_dir = cx.hi >= cy.hi ? 1 : 2;
                r->exact = r->worst_dir == 1 ? xy : yx;
                interval_set = 1;
            }
        }
    }
    r->slack = r->exact.val > 0 ? r->eps_a / r->exact.val : INFINITY;
    if (violation) {
        r->verdict = GA_VERDICT_VIOLATION;
        char b1[32], b2[32], ca[32], cb[32];
        snprintf(r->reason, sizeof r->reason,
                 "certified: D_%s(%s) of pair '%s' lies in [%s, %s], above the claimed %s",
                 vd_num(ca, r->alpha), r->worst_dir == 1 ? "X||Y" : "Y||X",
                 ga_audit_pair_name(a, r->worst_pair, nb), vd_bnd_vs(b1, r->cert_lo, 0, r->eps_a),
                 vd_bnd_vs(b2, r->cert_hi, 1, r->eps_a), vd_num(cb, r->eps_a));
    } else if (ambiguous) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "%s", amb);
    } else if (a->set.verified && verified_ok) {
        char b1[32];
        r->verdict = GA_VERDICT_VERIFIED;
        snprintf(r->reason, sizeof r->reason,
                 "holds for every neighbour: certified D_%.6g <= %s on the proven "
                 "worst case (the Renyi divergence also increases along it)", r->alpha,
                 vd_bnd(b1, r->cert_hi, 1));
    } else {
        r->verdict = GA_VERDICT_NO_VIOLATION;
        snprintf(r->reason, sizeof r->reason, "holds on all audited pairs: max D_%.6g = %.6g <= %.6g%s%s",
                 r->alpha, wv, r->eps_a, uncert ? " (estimates with error estimates; the "
                 "subsampled pairs have no certified Renyi divergence yet, so not proven)" : "",
                 left ? " (lower bounds whose Renyi divergences are not computed left out)" : "");
    }
    free(v);
    free(vst);
}

int vd_maha_cert(ga_audit *a, size_t i, ga_interval *iv)
{
    const ga_rec *k = a->book.mode == GA_REC_REPLAY ? ga_rec_find(&a->book, GA_REC_MAHA, i, 0, NULL)
                                                    : NULL;
    if (k) {
        *iv = (ga_interval){k->v[0], k->v[1]};
        return k->status;
    }
    ga_spec_pair_view v;
    ga_spec_pair_buf pb; /* (the view points into it) */
    if (ga_spec_pair_view_init(&v, vd_spair(a, i, &pb), 1))
        return GA_ENOMEM;
    ga_cert_opts co = vd_cert_opts(a);
    ga_pair *own;
    const ga_pair *p = vd_pair_use(a, i, &own);
    int st = p ? ga_pair_mahalanobis_cert(iv, p, v.in, v.txt, &co) : GA_ENOMEM;
    ga_pair_free(own);
    ga_spec_pair_view_clear(&v);
    if (a->book.mode == GA_REC_RECORD) {
        ga_rec r = {.type = GA_REC_MAHA, .pair = i, .status = st, .v = {iv->lo, iv->hi}};
        ga_rec_add(&a->book, &r); /* (a failure is kept in the book) */
    }
    return st;
}

/* When every audited pair has equal covariances (a mean shift: the Gaussian mechanism,
 * matrix masking), each pair's profile is exactly the mu-GDP curve of mu = sqrt(r D2) and
 * D_alpha = alpha r D2/2 (r D2 the squared Mahalanobis distance times the columns), so GDP
 * and zCDP claims are decided by max r D2, certified from the exact inputs
 * (ga_pair_mahalanobis_cert): no grid. Returns 1 with the enclosure of max r D2 and its pair,
 * 0 when some pair has unequal covariances or cannot be certified (then the grid decides). */
static int exact_t2(ga_audit *a, ga_interval *t2, size_t *worst)
{
    if (a->npairs == 0 || a->npairs > GA_AUDIT_CERT_CAP)
        return 0;
    t2->lo = t2->hi = 0;
    *worst = 0;
    for (size_t i = 0; i < a->npairs; i++) {
        if (vd_expired(a, "certification", i, a->npairs))
            return 0;
        ga_interval iv;
        if (vd_maha_cert(a, i, &iv) != GA_OK)
            return 0;
        a->ncertified++;
        if (iv.hi > t2->hi) {
            t2->hi = iv.hi;
            *worst = i;
        }
        t2->lo = fmax(t2->lo, iv.lo);
    }
    return 1;
}

/* the exact verdict of a GDP (is_gdp) or zCDP claim from max r D2 (see exact_t2): the claim
 * holds iff r D2 <= mu^2 (GDP curves are nested in mu), resp. r D2 / 2 <= rho */
static void exact_gdp_zcdp(ga_audit *a, ga_claim_result *r, const ga_interval *t2, size_t worst,
                           int is_gdp)
{
    char nb[GA_SPEC_NAME_LEN];
    /* the claimed bound on r D2, exactly: mu^2 (a product of two doubles, exact in Arb) or
     * 2 rho; compared in ball arithmetic */
    arb_t b, lo, hi;
    arb_init(b);
    arb_init(lo);
    arb_init(hi);
    arb_set_d(b, r->eps_a);
    if (is_gdp)
        arb_sqr(b, b, 128);
    else
        arb_mul_2exp_si(b, b, 1);
    arb_set_d(lo, t2->lo);
    arb_set_d(hi, t2->hi);
    int holds = arb_le(hi, b), fails = arb_gt(lo, b);
    arb_clear(b);
    arb_clear(lo);
    arb_clear(hi);
    char b1[32], b2[32];
    const char *pn = ga_audit_pair_name(a, worst, nb);
    r->certified = 1;
    r->worst_pair = worst;
    /* the certified interval shown: mu = sqrt(r D2) (GDP) or rho = r D2/2 (zCDP), outward */
    r->cert_lo = is_gdp ? nextafter(sqrt(t2->lo), 0) : 0.5 * t2->lo;
    r->cert_hi = is_gdp ? ga_up(sqrt(t2->hi)) : 0.5 * t2->hi;
    ga_fmt_bound(b1, sizeof b1, r->cert_lo, 0, 10);
    ga_fmt_bound(b2, sizeof b2, r->cert_hi, 1, 10);
    const char *what = is_gdp ? "mu" : "rho";
    if (fails) {
        r->verdict = GA_VERDICT_VIOLATION;
        snprintf(r->reason, sizeof r->reason,
                 "certified: pair '%s' has equal covariances, so its profile is exactly the "
                 "%s-GDP curve with %s in [%s, %s]%s, above the claimed %.17g", pn,
                 is_gdp ? "mu" : "(mu^2/2 = rho)", what, b1, b2,
                 is_gdp ? "" : " (D_alpha = alpha rho for every alpha)", r->eps_a);
    } else if (!holds) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "the exact %s of pair '%s' lies in [%s, %s], which contains the claimed %.17g", what,
                 pn, b1, b2, r->eps_a);
    } else if (a->set.verified) {
        r->verdict = GA_VERDICT_VERIFIED;
        snprintf(r->reason, sizeof r->reason,
                 "holds for every neighbour: the proven %s has equal covariances, "
                 "so its profile is exactly the %s-GDP curve with certified %s <= %s%s", 
                 a->set.verified_note, is_gdp ? "mu" : "sqrt(2 rho)", what, b2,
                 is_gdp ? " (GDP curves are nested in mu)" : " (D_alpha/alpha = rho for every alpha)");
    } else {
        r->verdict = GA_VERDICT_NO_VIOLATION;
        snprintf(r->reason, sizeof r->reason,
                 "holds on all %zu audited pairs, for every %s: each has equal covariances, so its "
                 "profile is exactly a GDP curve; certified max %s <= %s", a->npairs,
                 is_gdp ? "eps" : "alpha", what, b2);
    }
}

/* zCDP rho: sup over alpha of D_alpha / alpha <= rho, checked on a grid of alpha values */
static void eval_zcdp_grid(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o,
                           ga_gchisq_work *w);

void vd_eval_zcdp(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o, ga_gchisq_work *w)
{
    eval_zcdp_grid(a, r, o, w);
    ga_interval t2;
    size_t worst;
    if (r->verdict != GA_VERDICT_VIOLATION && exact_t2(a, &t2, &worst))
        exact_gdp_zcdp(a, r, &t2, worst, 0);
}

/* GDP mu: delta(eps) <= Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) on a grid of eps */
static double gdp_delta(double mu, double eps)
{
    return 0.5 * erfc((eps / mu - mu / 2) / M_SQRT2) - exp(eps) * 0.5 * erfc((eps / mu + mu / 2) / M_SQRT2);
}

/* The largest value over a grid of points (k) and a set of pairs (i), at the first (k, i) in
 * scan order that attains it; failed evaluations counted. A scan over all pairs equals the
 * combination (grid_take) of scans over any partition of the pairs: the shards' scans. */
typedef struct {
    int found, k, dir;
    size_t pair, failed;
    double best, at, val, err;
} grid_best;

static void grid_take(grid_best *g, const grid_best *h)
{
    size_t failed = g->failed + h->failed;
    if (h->found && (!g->found || h->best > g->best ||
                     (h->best == g->best && (h->k < g->k || (h->k == g->k && h->pair < g->pair)))))
        *g = *h;
    g->failed = failed;
}

static void grid_hit(grid_best *g, int k, size_t i, double v, double at, int dir, double err)
{
    if (v > g->best) {
        *g = (grid_best){1, k, dir, i, g->failed, v, at, v, err};
    }
}

/* zCDP: D_alpha / alpha on 120 alphas in (1, 1001] over the pairs idx (NULL: all) */
static int zcdp_scan(grid_best *g, ga_audit *a, const size_t *idx, size_t nidx,
                     const ga_audit_opts *o, ga_gchisq_work *w)
{
    size_t n = a->npairs, m = idx ? nidx : n, nalive = 0;
    double *v = malloc(4 * (n ? n : 1) * sizeof *v);
    int *vst = malloc((n ? n : 1) * sizeof *vst);
    size_t *alive = malloc((m ? m : 1) * sizeof *alive);
    *g = (grid_best){.best = -1};
    if (!v || !vst || !alive) {
        free(v);
        free(vst);
        free(alive);
        return GA_ENOMEM;
    }
    for (size_t j = 0; j < m; j++) {
        char fam[160];
        int lower;
        if (!vd_no_renyi(a, idx ? idx[j] : j, fam, sizeof fam, &lower)) /* (else: claims.c) */
            alive[nalive++] = idx ? idx[j] : j;
    }
    /* A pair whose estimate fails at an order (an error, or an error estimate above the value:
     * a divergence from a privacy profile whose tail bound is too loose there) fails at the
     * higher orders too: it is not evaluated again, its remaining points counted as failed.
     * The divergences are nondecreasing in alpha, so the failure does not depend on the
     * pairs beside it (shards scan what one scan would). */
    for (int k = 0; k < 120; k++) {
        double al = 1 + pow(10.0, -3 + 6.0 * k / 119); /* 1.001 .. 1e3 */
        vd_renyi_some(a, o, al, v, v + n, v + 2 * n, v + 3 * n, vst, alive, nalive, w);
        size_t keep = 0;
        for (size_t j = 0; j < nalive; j++) {
            size_t i = alive[j];
            ga_result xy = {v[i], v[2 * n + i]}, yx = {v[n + i], v[3 * n + i]};
            int useless = !(xy.err <= fabs(xy.val) || isinf(xy.val)) ||
                          !(yx.err <= fabs(yx.val) || isinf(yx.val));
            if ((vst[i] != GA_OK && vst[i] != GA_ETOL) || (vst[i] == GA_ETOL && useless)) {
                g->failed += (size_t)(120 - k);
                continue;
            }
            alive[keep++] = i;
            grid_hit(g, k, i, fmax(xy.val, yx.val) / al, al, xy.val >= yx.val ? 1 : 2,
                     fmax(xy.err, yx.err) / al);
        }
        nalive = keep;
    }
    free(v);
    free(vst);
    free(alive);
    return GA_OK;
}

/* GDP: delta(eps) minus the mu-GDP curve on 60 eps over the pairs idx (NULL: all) */
static int gdp_scan(grid_best *g, ga_audit *a, double mu, const size_t *idx, size_t nidx,
                    const ga_audit_opts *o, ga_gchisq_work *w)
{
    size_t n = a->npairs, m = idx ? nidx : n;
    double *dv = malloc(4 * (n ? n : 1) * sizeof *dv);
    *g = (grid_best){.best = -INFINITY};
    if (!dv)
        return GA_ENOMEM;
    for (int k = 0; k < 60; k++) {
        double eps = k == 0 ? 0 : (mu * mu / 2 + 4 * mu) * pow(10.0, -2 + 2.5 * k / 59.0);
        double bound = gdp_delta(mu, eps);
        vd_est_some(a, o, eps, dv, dv + n, dv + 2 * n, dv + 3 * n, "the GDP check", idx, nidx, w);
        for (size_t j = 0; j < m; j++) {
            size_t i = idx ? idx[j] : j;
            ga_delta D = {{dv[i], dv[2 * n + i]}, {dv[n + i], dv[3 * n + i]}, 0};
            if (isnan(D.xy.val))
                g->failed++;
            grid_hit(g, k, i, fmax(D.xy.val, D.yx.val) - bound, eps, D.xy.val >= D.yx.val ? 1 : 2,
                     fmax(D.xy.err, D.yx.err));
        }
    }
    free(dv);
    return GA_OK;
}

/* a claim's grid scan: over every pair, or (merge) combined from the shards' records; a
 * shard records its own scan (shard_pass). GA_OK or GA_ENOMEM. */
static int grid_scan(grid_best *g, ga_audit *a, const ga_claim_result *r, const ga_audit_opts *o,
                     ga_gchisq_work *w)
{
    int is_gdp = r->type == GA_CLAIM_GDP;
    size_t ci = (size_t)(r - a->claims);
    if (a->book.mode == GA_REC_REPLAY) {
        *g = (grid_best){.best = is_gdp ? -INFINITY : -1};
        size_t s = 1;
        for (; s <= a->book.nshards; s++) {
            const ga_rec *k = ga_rec_find(&a->book, GA_REC_GRID, ci, (double)s, NULL);
            if (!k)
                break;
            grid_best h = {k->status, (int)k->v[0], (int)k->v[1], (size_t)k->v[2], (size_t)k->v[3],
                           k->v[4], k->v[5], k->v[6], k->v[7]};
            grid_take(g, &h);
        }
        if (s > a->book.nshards)
            return GA_OK;
        /* (a part without this scan: scanned here) */
    }
    return is_gdp ? gdp_scan(g, a, r->eps_a, NULL, 0, o, w) : zcdp_scan(g, a, NULL, 0, o, w);
}

/* the grid scan over the attained pairs alone (vd_attained); GA_EDOM: none, GA_ENOMEM */
static int attained_scan(grid_best *g, ga_audit *a, const ga_claim_result *r,
                         const ga_audit_opts *o, ga_gchisq_work *w)
{
    size_t n = a->npairs, m = 0, *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return GA_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (vd_attained(a, i))
            idx[m++] = i;
    int st = !m ? GA_EDOM
             : r->type == GA_CLAIM_GDP ? gdp_scan(g, a, r->eps_a, idx, m, o, w)
                                       : zcdp_scan(g, a, idx, m, o, w);
    free(idx);
    return st;
}

/* a claim's grid scan (grid_scan), its worst point into r (alpha or eps, pair, direction,
 * value); 0, or -1 with r INCONCLUSIVE (no memory) */
static int grid_claim(grid_best *g, ga_audit *a, ga_claim_result *r, const ga_audit_opts *o,
                      ga_gchisq_work *w)
{
    /* a bracketed run (the proven worst case only an upper bound, which shows no violation):
     * the attained pairs first, whose worst point above the claim is the one to certify
     * (a merge of shards scans them here too: it reduces every pair, as one run does) */
    int attained = a->set.verified && a->set.verified_bound &&
                   attained_scan(g, a, r, o, w) == GA_OK && g->found &&
                   g->best - g->err > (r->type == GA_CLAIM_GDP ? 0 : r->eps_a);
    if (!attained && grid_scan(g, a, r, o, w)) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "out of memory");
        return -1;
    }
    if (g->found) {
        r->at = g->at;
        r->worst_pair = g->pair;
        r->worst_dir = g->dir;
        r->exact.val = g->val;
        r->exact.err = g->err;
    }
    return 0;
}

void vd_grid_record(ga_audit *a, const ga_claim_result *r, const ga_audit_opts *o,
                    ga_gchisq_work *w)
{
    grid_best g;
    /* the scan's own evaluations are not recorded (the merge reads its result only): the
     * book is off while it runs (no thread records meanwhile) */
    a->book.mode = GA_REC_OFF;
    int st = r->type == GA_CLAIM_GDP ? gdp_scan(&g, a, r->eps_a, a->slice, a->nslice, o, w)
                                     : zcdp_scan(&g, a, a->slice, a->nslice, o, w);
    a->book.mode = GA_REC_RECORD;
    if (st) {
        a->book.failed = 1;
        return;
    }
    ga_rec k = {.type = GA_REC_GRID, .pair = (size_t)(r - a->claims), .key = (double)a->book.shard,
                .status = g.found, .v = {g.k, g.dir, (double)g.pair, (double)g.failed, g.best, g.at,
                                         g.val, g.err}};
    ga_rec_add(&a->book, &k);
}

static void eval_zcdp_grid(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o,
                           ga_gchisq_work *w)
{
    char nb[GA_SPEC_NAME_LEN];
    grid_best g;
    if (grid_claim(&g, a, r, o, w))
        return;
    double best = g.best;
    size_t failed = g.failed;
    r->slack = best > 0 ? r->eps_a / best : INFINITY;
    if (best - r->exact.err > r->eps_a) {
        ga_interval cx, cy;
        int st = vd_cert_renyi(a, r->worst_pair, r->at, &cx, &cy);
        /* the quotient of a bound by alpha, rounded outward */
        double lo = ga_dn(fmax(cx.lo, cy.lo) / r->at);
        if ((st == GA_OK || st == GA_EPREC) && lo > r->eps_a) {
            r->verdict = GA_VERDICT_VIOLATION;
            r->certified = 1;
            r->cert_lo = lo;
            r->cert_hi = ga_up(fmax(cx.hi, cy.hi) / r->at);
            snprintf(r->reason, sizeof r->reason,
                     "certified: D_alpha/alpha >= %.6g > rho = %.6g at alpha = %.6g (pair '%s')", lo,
                     r->eps_a, r->at, ga_audit_pair_name(a, r->worst_pair, nb));
        } else {
            r->verdict = GA_VERDICT_INCONCLUSIVE;
            snprintf(r->reason, sizeof r->reason,
                     "the estimate D_alpha/alpha = %.6g exceeds rho = %.6g at alpha = %.6g but the "
                     "certified check did not confirm it", best, r->eps_a, r->at);
        }
    } else if (failed) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "the Renyi divergence could not be evaluated at %zu "
                 "(alpha, pair) points", failed);
    } else {
        r->verdict = GA_VERDICT_NO_VIOLATION;
        snprintf(r->reason, sizeof r->reason,
                 "max D_alpha/alpha = %.6g <= rho = %.6g on 120 alpha values in (1, 1001] (a grid: "
                 "not a proof for every alpha)", best, r->eps_a);
    }
}

static void eval_gdp_grid(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o,
                          ga_gchisq_work *w);

void vd_eval_gdp(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o, ga_gchisq_work *w)
{
    eval_gdp_grid(a, r, o, w);
    ga_interval t2;
    size_t worst;
    if (r->verdict != GA_VERDICT_VIOLATION && exact_t2(a, &t2, &worst))
        exact_gdp_zcdp(a, r, &t2, worst, 1);
}

static void eval_gdp_grid(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o,
                          ga_gchisq_work *w)
{
    char nb[GA_SPEC_NAME_LEN];
    double mu = r->eps_a;
    grid_best g;
    if (grid_claim(&g, a, r, o, w))
        return;
    double best = g.best;
    size_t failed = g.failed;
    if (best - r->exact.err > 0) {
        /* certify the worst point */
        char es[64];
        snprintf(es, sizeof es, "%.17g", r->at);
        ga_delta_cert c;
        int st = vd_cert_delta(a, r->worst_pair, es, &c);
        double lo = fmax(c.xy.lo, c.yx.lo), bound = gdp_delta(mu, r->at);
        /* the mu-GDP curve itself is evaluated in double: demand a clear margin */
        if ((st == GA_OK || st == GA_EPREC) && lo > bound * (1 + 1e-12) + 1e-300) {
            r->verdict = GA_VERDICT_VIOLATION;
            r->certified = 1;
            r->cert_lo = lo;
            r->cert_hi = fmax(c.xy.hi, c.yx.hi);
            snprintf(r->reason, sizeof r->reason,
                     "certified delta(%.6g) >= %.6g exceeds the %.6g-GDP curve %.6g (pair '%s')",
                     r->at, lo, mu, bound, ga_audit_pair_name(a, r->worst_pair, nb));
            return;
        }
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "the estimate exceeds the %.6g-GDP curve at eps = %.6g but certification did not confirm it",
                 mu, r->at);
        return;
    }
    if (failed) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "delta could not be evaluated at %zu (eps, pair) "
                 "points of the GDP check", failed);
        return;
    }
    r->verdict = GA_VERDICT_NO_VIOLATION;
    snprintf(r->reason, sizeof r->reason,
             "the profile stays below the %.6g-GDP curve on 60 eps values (max excess %.3g; a grid: "
             "not a proof for every eps)", mu, best);
}

void vd_shard_rdp(ga_audit *a, size_t ci, const ga_audit_opts *o, vd_shard_buf *b,
                  ga_gchisq_work *w)
{
    ga_claim_result *r = &a->claims[ci];
    size_t m = a->nslice, *sl = a->slice;
    vd_renyi_some(a, o, r->alpha, b->xy, b->yx, b->exy, b->eyx, b->vst, sl, m, w);
    size_t ncert = 0;
    for (size_t j = 0; j < m && !vd_expired(a, "certification", j, m); j++) {
        size_t i = sl[j];
        int clear = b->xy[i] + b->exy[i] <= r->eps_a && b->yx[i] + b->eyx[i] <= r->eps_a;
        if (clear && !(a->set.verified && i == a->set.verified_pair))
            continue;
        if (ncert++ >= GA_AUDIT_CERT_CAP)
            continue;
        ga_interval cx, cy;
        vd_cert_renyi(a, i, r->alpha, &cx, &cy);
    }
}

void vd_shard_grid(ga_audit *a, size_t ci, const ga_audit_opts *o, vd_shard_buf *b,
                   ga_gchisq_work *w)
{
    (void)b;
    size_t n = a->npairs, m = a->nslice, *sl = a->slice;
    vd_grid_record(a, &a->claims[ci], o, w);
    for (size_t j = 0; n <= GA_AUDIT_CERT_CAP && j < m; j++) {
        ga_interval iv;
        if (vd_expired(a, "certification", j, m) || vd_maha_cert(a, sl[j], &iv) != GA_OK)
            break; /* (exact_t2 stops at the first pair without one) */
    }
}

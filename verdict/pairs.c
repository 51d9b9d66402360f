/*
 * pairs.c - the audit's view of its pairs: each pair as built or reduced, the deadline,
 * parallel loops over the pairs (estimates of delta and of Renyi divergences at one
 * argument, certified delta at the exact text of eps, each item writing only its own
 * results), the certified values kept for the report, and the messages' number formats.
 */
#include "verdict/internal.h"

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* has the --timeout deadline passed? (remembered once it has) */
int vd_expired(ga_audit *a, const char *where, size_t done, size_t total)
{
    if (a->timed_out)
        return 1;
    if (a->deadline > 0 && ga_monotonic() > a->deadline) {
        a->timed_out = 1;
        a->incomplete = 1;
        size_t l = strlen(a->timeout_note);
        snprintf(a->timeout_note + l, sizeof a->timeout_note - l,
                 "%sstopped by --timeout during %s after %zu of %zu pairs", l ? "; " : "", where,
                 done, total);
    }
    return a->timed_out;
}

static void progress(const ga_audit_opts *o, const char *what, size_t i, size_t n)
{
    if (!o->progress || n < 50)
        return;
    if (i % 1000 == 0 || i + 1 == n)
        fprintf(o->progress, "\r%s: %zu/%zu", what, i + 1, n);
    if (i + 1 == n)
        fprintf(o->progress, "\n");
}

const ga_spec_pair *vd_spair(const ga_audit *a, size_t i, ga_spec_pair_buf *b)
{
    return ga_pairset_pair_at(&a->set, i, b, 0);
}

const char *ga_audit_pair_name(const ga_audit *a, size_t i, char buf[GA_SPEC_NAME_LEN])
{
    return i < ga_pairset_npairs(&a->set) ? ga_pairset_pair_name(&a->set, i, buf, GA_SPEC_NAME_LEN)
                                        : "";
}

const ga_pair *vd_pair_use(const ga_audit *a, size_t i, ga_pair **own)
{
    *own = NULL;
    if (!a->rebuilt || !a->rebuilt[i])
        return a->pairs[i];
    ga_spec_pair_buf b;
    return ga_mech_pair_use(NULL, vd_spair(a, i, &b), own);
}

void vd_tick(pair_loop *l)
{
    if (l->o->progress && l->n >= 50) /* (a counter shared by the threads: only when shown) */
        progress(l->o, l->what, atomic_fetch_add(&l->ndone, 1), l->n);
}

int vd_pair_loop_run(pair_loop *l, ga_par_fn fn, size_t n, const char *what,
                     unsigned char *done, ga_gchisq_work *w)
{
    l->what = what;
    l->n = n;
    atomic_init(&l->ndone, 0);
    memset(done, 0, n ? n : 1);
    return ga_par_for(n, l->o->jobs, l->a->deadline, fn, l, done, w);
}

const char *vd_bnd(char *b, double v, int upper)
{
    ga_fmt_bound(b, 32, v, upper, 10);
    return b;
}

const char *vd_bnd_vs(char *b, double v, int upper, double ref)
{
    ga_fmt_bound_decide(b, 32, v, upper, ref, 10);
    return b;
}

const char *vd_num(char *b, double v)
{
    ga_fmt_shortest(b, 32, v);
    return b;
}

ga_gchisq_opts vd_gopts(const ga_audit *a)
{
    ga_gchisq_opts go;
    ga_gchisq_opts_init(&go);
    go.deadline = a->deadline;
    return go;
}

/* delta of pair i (reduced: the pair in hand, or NULL: reduced where used) in both directions
 * at eps in double precision; a failed evaluation
 * (any status but GA_OK and GA_ETOL, whose value comes with an honest error) gives NaN
 * values, which no comparison reads as "holds": such a pair is certified or the claim is
 * INCONCLUSIVE. o->fail_pair injects a failure (tests). */
static int est_delta(ga_delta *D, ga_audit *a, size_t i, const ga_pair *reduced, double eps,
                     const ga_audit_opts *o, ga_gchisq_work *w)
{
    const ga_rec *k = a->book.mode == GA_REC_REPLAY ? ga_rec_find(&a->book, GA_REC_EST, i, eps, NULL)
                                                    : NULL;
    if (k) { /* merge: the shard's evaluation */
        *D = (ga_delta){{k->v[0], k->v[1]}, {k->v[2], k->v[3]}, (int)k->v[4]};
        return k->status;
    }
    ga_pair *own = NULL;
    const ga_pair *p = reduced ? reduced : vd_pair_use(a, i, &own);
    ga_gchisq_opts go = vd_gopts(a);
    int st = p ? ga_pair_delta(D, p, eps, GA_DELTA_AUTO, &go, w) : GA_ENOMEM;
    ga_pair_free(own);
    if (o && o->fail_pair == i + 1)
        st = GA_EDOM;
    if (st != GA_OK && st != GA_ETOL) {
        D->xy.val = D->yx.val = NAN;
        D->xy.err = D->yx.err = INFINITY;
    }
    if (a->book.mode == GA_REC_RECORD) {
        ga_rec r = {.type = GA_REC_EST, .pair = i, .key = eps, .status = st,
                    .v = {D->xy.val, D->xy.err, D->yx.val, D->yx.err, D->method}};
        ga_rec_add(&a->book, &r); /* (a failure is kept in the book) */
    }
    return st;
}

void vd_est_store(pair_loop *l, size_t i, const ga_pair *reduced, ga_gchisq_work *w)
{
    ga_delta D;
    est_delta(&D, l->a, i, reduced, l->eps, l->o, w);
    l->xy[i] = D.xy.val;
    l->yx[i] = D.yx.val;
    l->exy[i] = D.xy.err;
    l->eyx[i] = D.yx.err;
}

/* item: the estimates of pair i at l->eps */
static void est_item(void *vl, size_t j, ga_gchisq_work *w)
{
    pair_loop *l = vl;
    vd_est_store(l, l->idx ? l->idx[j] : j, NULL, w);
    vd_tick(l);
}

void vd_est_some(ga_audit *a, const ga_audit_opts *o, double eps, double *xy, double *yx,
                 double *exy, double *eyx, const char *where, const size_t *idx, size_t nidx,
                 ga_gchisq_work *w)
{
    size_t n = idx ? nidx : a->npairs;
    unsigned char *done = malloc(n ? n : 1);
    pair_loop l = {.a = a, .o = o, .eps = eps, .xy = xy, .yx = yx, .exy = exy, .eyx = eyx,
                   .idx = idx};
    for (size_t i = 0; i < a->npairs; i++)
        xy[i] = yx[i] = exy[i] = eyx[i] = 0;
    if (!done || vd_pair_loop_run(&l, est_item, n, "delta", done, w) != GA_OK) {
        /* no memory for the loop: every pair failed (NaN: no comparison reads it as holding) */
        for (size_t i = 0; i < a->npairs; i++) {
            xy[i] = yx[i] = NAN;
            exy[i] = eyx[i] = INFINITY;
        }
        free(done);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!done[i]) {
            vd_expired(a, where, i, n);
            break;
        }
    free(done);
}

void vd_est_all(ga_audit *a, const ga_audit_opts *o, double eps, double *xy, double *yx,
                double *exy, double *eyx, const char *where, ga_gchisq_work *w)
{
    vd_est_some(a, o, eps, xy, yx, exy, eyx, where, NULL, 0, w);
}

/* item: the Renyi divergences of pair i at alpha = l->eps (failed: NaN, status in l->st) */
static void renyi_item(void *vl, size_t j, ga_gchisq_work *w)
{
    (void)w;
    pair_loop *l = vl;
    size_t i = l->idx ? l->idx[j] : j;
    ga_audit *a = l->a;
    ga_result xy, yx;
    const ga_rec *k = a->book.mode == GA_REC_REPLAY
                          ? ga_rec_find(&a->book, GA_REC_RENYI, i, l->eps, NULL) : NULL;
    int rs;
    if (k) { /* merge: the shard's evaluation */
        xy = (ga_result){k->v[0], k->v[1]};
        yx = (ga_result){k->v[2], k->v[3]};
        rs = k->status;
    } else {
        ga_pair *own;
        const ga_pair *p = vd_pair_use(a, i, &own);
        rs = p ? ga_pair_renyi_near(&xy, &yx, p, l->eps) : GA_ENOMEM;
        ga_pair_free(own);
        if (rs != GA_OK && rs != GA_ETOL) {
            xy.val = yx.val = NAN;
            xy.err = yx.err = INFINITY;
        }
        if (a->book.mode == GA_REC_RECORD) {
            ga_rec r = {.type = GA_REC_RENYI, .pair = i, .key = l->eps, .status = rs,
                        .v = {xy.val, xy.err, yx.val, yx.err}};
            ga_rec_add(&a->book, &r); /* (a failure is kept in the book) */
        }
    }
    l->st[i] = rs;
    l->xy[i] = xy.val;
    l->yx[i] = yx.val;
    l->exy[i] = xy.err;
    l->eyx[i] = yx.err;
}

void vd_renyi_some(ga_audit *a, const ga_audit_opts *o, double alpha, double *xy, double *yx,
                   double *exy, double *eyx, int *st, const size_t *idx, size_t nidx,
                   ga_gchisq_work *w)
{
    size_t n = idx ? nidx : a->npairs;
    unsigned char *done = malloc(n ? n : 1);
    pair_loop l = {.a = a, .o = o, .eps = alpha, .xy = xy, .yx = yx, .exy = exy, .eyx = eyx,
                   .st = st, .idx = idx};
    if (done) /* (no memory for the loop: every pair failed) */
        vd_pair_loop_run(&l, renyi_item, n, "Renyi", done, w);
    for (size_t j = 0; j < n; j++)
        if (!done || !done[j]) {
            size_t i = idx ? idx[j] : j;
            xy[i] = yx[i] = NAN;
            exy[i] = eyx[i] = INFINITY;
            st[i] = GA_ETIME;
        }
    free(done);
}

void vd_renyi_all(ga_audit *a, const ga_audit_opts *o, double alpha, double *xy, double *yx,
                  double *exy, double *eyx, int *st, ga_gchisq_work *w)
{
    vd_renyi_some(a, o, alpha, xy, yx, exy, eyx, st, NULL, 0, w);
}

/* The relative margin a violation of pair i must clear: a pair computed from a dataset in
 * double precision (leverages, ridge and GP laws, masked norms) is certified as built, and
 * its construction's rounding (about the condition number times 1e-16: a 5e-42 tail of a
 * sketch moved by 3e-12 relative with another order of the solve) is in no interval, so a
 * verdict does not rest on a difference below 1e-9 relative; 0 for pairs from the spec's
 * decimals (explicit, by sensitivity, subsampled). */
#define GA_BUILT_MARGIN 1e-9

double vd_built_margin(const ga_audit *a, size_t i)
{
    ga_spec_pair_buf b;
    const ga_spec_pair *sp = vd_spair(a, i, &b);
    return a->spec.data.n > 0 && !sp->src && !sp->mean_txt && !sp->nsub ? GA_BUILT_MARGIN : 0;
}

const char *vd_no_renyi(const ga_audit *a, size_t i, char *fam, size_t famlen, int *lower)
{
    ga_spec_pair_buf pb;
    const ga_spec_pair *sp = vd_spair(a, i, &pb);
    *lower = sp->lower;
    if (!ga_spec_pair_is_loss(sp))
        return NULL; /* (a Gaussian pair: its divergences are computed) */
    ga_pair *own;
    const ga_pair *p = vd_pair_use(a, i, &own);
    const char *what = p ? ga_pair_no_renyi(p) : NULL;
    if (what)
        snprintf(fam, famlen, "%s", what);
    ga_pair_free(own);
    return what ? fam : NULL;
}

int vd_attained(const ga_audit *a, size_t i)
{
    int in = i < ga_pairset_npairs(&a->set);
    return !(a->set.verified && a->set.verified_bound && i == a->set.verified_pair) &&
           !(in && (ga_pairset_pair_bound(&a->set, i) || ga_pairset_pair_unreleased(&a->set, i)));
}

ga_cert_opts vd_cert_opts(const ga_audit *a)
{
    ga_cert_opts co;
    ga_cert_opts_init(&co);
    co.deadline = a->deadline;
    return co;
}

void vd_cert_decimals(ga_claim_result *r, const ga_delta_cert *c, int lo_xy, int hi_xy)
{
    snprintf(r->cert_lo_dec, sizeof r->cert_lo_dec, "%s", lo_xy ? c->xy_lo : c->yx_lo);
    snprintf(r->cert_hi_dec, sizeof r->cert_hi_dec, "%s", hi_xy ? c->xy_hi : c->yx_hi);
}

/* where pair i is, or would be inserted, in the sorted list a->pair_cert */
static size_t pair_cert_pos(const ga_audit *a, size_t i)
{
    size_t lo = 0, hi = a->npair_cert;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->pair_cert[mid].pair < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void vd_store_pair_cert(ga_audit *a, size_t i, const ga_delta_cert *c)
{
    size_t k = pair_cert_pos(a, i);
    if (k == a->npair_cert || a->pair_cert[k].pair != i) {
        if (a->npair_cert == a->cap_pair_cert) {
            ga_pair_cert *np = ga_grow(a->pair_cert, &a->cap_pair_cert, sizeof *np, 16);
            if (!np)
                return;
            a->pair_cert = np;
        }
        memmove(a->pair_cert + k + 1, a->pair_cert + k, (a->npair_cert - k) * sizeof *a->pair_cert);
        a->npair_cert++;
    }
    a->pair_cert[k] = (ga_pair_cert){i, c->xy, c->yx};
}

void ga_audit_pair_cert(const ga_audit *a, size_t i, ga_interval *xy, ga_interval *yx)
{
    size_t k = pair_cert_pos(a, i);
    int found = k < a->npair_cert && a->pair_cert[k].pair == i;
    *xy = found ? a->pair_cert[k].xy : (ga_interval){1, 0}; /* lo > hi: none */
    *yx = found ? a->pair_cert[k].yx : (ga_interval){1, 0};
}

int vd_cert_delta_eval(ga_audit *a, size_t i, const char *eps, ga_delta_cert *c,
                       double *seconds)
{
    ga_spec_pair_view v;
    memset(c, 0, sizeof *c);
    *seconds = 0;
    const ga_rec *k = a->book.mode == GA_REC_REPLAY ? ga_rec_find(&a->book, GA_REC_CERT, i, 0, eps)
                                                    : NULL;
    if (k) { /* merge: the shard's evaluation */
        c->xy = (ga_interval){k->v[0], k->v[1]};
        c->yx = (ga_interval){k->v[2], k->v[3]};
        c->la_bound_xy = k->v[4];
        c->la_bound_yx = k->v[5];
        *seconds = k->v[6];
        c->precision_bits = k->bits;
        memcpy(c->xy_lo, k->dec[0], sizeof c->xy_lo);
        memcpy(c->xy_hi, k->dec[1], sizeof c->xy_hi);
        memcpy(c->yx_lo, k->dec[2], sizeof c->yx_lo);
        memcpy(c->yx_hi, k->dec[3], sizeof c->yx_hi);
        return k->status;
    }
    ga_spec_pair_buf pb; /* (the view points into it) */
    if (ga_spec_pair_view_init(&v, vd_spair(a, i, &pb), 1))
        return GA_ENOMEM;
    ga_cert_opts co = vd_cert_opts(a);
    double t0 = ga_monotonic();
    ga_pair *own;
    const ga_pair *p = vd_pair_use(a, i, &own);
    int st = p ? ga_pair_delta_cert(c, p, v.in, v.txt, eps, &co) : GA_ENOMEM;
    *seconds = ga_monotonic() - t0;
    ga_pair_free(own);
    ga_spec_pair_view_clear(&v);
    if (a->book.mode == GA_REC_RECORD && strlen(eps) < sizeof ((ga_rec *)0)->key_txt) {
        ga_rec r = {.type = GA_REC_CERT, .pair = i, .status = st, .bits = c->precision_bits,
                    .v = {c->xy.lo, c->xy.hi, c->yx.lo, c->yx.hi, c->la_bound_xy, c->la_bound_yx,
                          *seconds}};
        memcpy(r.key_txt, eps, strlen(eps) + 1);
        memcpy(r.dec[0], c->xy_lo, sizeof r.dec[0]);
        memcpy(r.dec[1], c->xy_hi, sizeof r.dec[1]);
        memcpy(r.dec[2], c->yx_lo, sizeof r.dec[2]);
        memcpy(r.dec[3], c->yx_hi, sizeof r.dec[3]);
        ga_rec_add(&a->book, &r); /* (a failure is kept in the book) */
    }
    return st;
}

void vd_cert_account(ga_audit *a, const ga_delta_cert *c, double seconds)
{
    a->cert_seconds += seconds;
    a->ncertified++;
    if (c->precision_bits > a->max_bits)
        a->max_bits = c->precision_bits;
}

int vd_cert_delta(ga_audit *a, size_t i, const char *eps, ga_delta_cert *c)
{
    double sec;
    int st = vd_cert_delta_eval(a, i, eps, c, &sec);
    vd_cert_account(a, c, sec);
    return st;
}

/* item: the certified delta of pair l->idx[j] */
static void cert_item(void *vl, size_t j, ga_gchisq_work *w)
{
    (void)w;
    pair_loop *l = vl;
    l->st[j] = vd_cert_delta_eval(l->a, l->idx[j], l->eps_txt, &l->cert[j], &l->secs[j]);
}

void vd_cert_selected(ga_audit *a, const ga_audit_opts *o, const size_t *sel, size_t ns,
                      const char *eps_txt, ga_delta_cert *certs, int *cst, double *csec,
                      unsigned char *cdone, ga_gchisq_work *w)
{
    pair_loop cl = {.a = a, .o = o, .idx = sel, .eps_txt = eps_txt, .cert = certs, .st = cst,
                    .secs = csec};
    memset(cdone, 0, ns ? ns : 1);
    if (ns && !vd_expired(a, "certification", sel[0], a->npairs) &&
        vd_pair_loop_run(&cl, cert_item, ns, "certify", cdone, w) != GA_OK)
        memset(cdone, 0, ns);
}

size_t vd_dp_scope_index(const ga_audit *a, const ga_claim_result *r)
{
    if (!r->scope_pair[0])
        return VD_ALL_PAIRS;
    char nb[GA_SPEC_NAME_LEN];
    for (size_t i = 0; i < a->npairs; i++)
        if (!strcmp(ga_audit_pair_name(a, i, nb), r->scope_pair))
            return i;
    return VD_NO_PAIR;
}

size_t vd_dp_cert_select(size_t *sel, int *capped, const ga_audit *a, const ga_claim_result *r,
                         const double *xy, const double *yx, const double *exy,
                         const double *eyx, const size_t *idx, size_t m, const ga_audit_opts *o)
{
    size_t ncert = 0, si = vd_dp_scope_index(a, r);
    for (size_t j = 0; j < m; j++) {
        size_t i = idx ? idx[j] : j;
        int cx = vd_dp_counts(r, si, i, 1), cy = vd_dp_counts(r, si, i, 2);
        if (!cx && !cy)
            continue; /* (outside the claim's scope) */
        /* (a bound no neighbour need attain is never certified unless it is the worst case) */
        int clear = ga_pairset_pair_bound(&a->set, i) || ((!cx || xy[i] + exy[i] <= r->delta) &&
                                                   (!cy || yx[i] + eyx[i] <= r->delta));
        int want = !clear || (o->certified && ncert < GA_AUDIT_CERT_CAP) ||
                   (a->set.verified && i == a->set.verified_pair) || (r->scope_pair[0] && i == si);
        if (!want)
            continue;
        if (ncert >= GA_AUDIT_CERT_CAP && !clear) {
            *capped = 1;
            continue;
        }
        sel[ncert++] = i;
    }
    return ncert;
}

const char *vd_claim_eps_text(char *buf, size_t n, const ga_audit *a, size_t ci)
{
    if (a->claims[ci].eps_txt) /* as written */
        return a->claims[ci].eps_txt;
    snprintf(buf, n, "%.17g", a->claims[ci].eps);
    return buf;
}

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
 *                  (it then holds for every neighbour in the universe);
 *   NO VIOLATION   the claim holds on every audited pair (estimates, or certified);
 *   INCONCLUSIVE   otherwise, with the reason (a certified interval straddles the claim,
 *                  certification unavailable, a grid-based check).
 */
#include "audit/audit.h"
#include "audit/mechanisms.h"
#include "audit/pair_internal.h"
#include "numerics/arb_internal.h"

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GA_AUDIT_CERT_CAP 200
#define GA_AUDIT_EPS_PAIRS 5
/* the share of --timeout given to building the pairs (the rest evaluates the pairs built;
 * a pair is cheaper to evaluate than to build for every data-dependent kind) */
#define GA_AUDIT_BUILD_SHARE 0.6

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* has the --timeout deadline passed? (remembered once it has) */
static int expired(ga_audit *a, const char *where, size_t done, size_t total)
{
    if (a->timed_out)
        return 1;
    if (a->deadline > 0 && now() > a->deadline) {
        a->timed_out = 1;
        a->incomplete = 1;
        size_t l = strlen(a->timeout_note);
        snprintf(a->timeout_note + l, sizeof a->timeout_note - l,
                 "%sstopped by --timeout during %s after %zu of %zu pairs", l ? "; " : "", where,
                 done, total);
    }
    return a->timed_out;
}

/* ------------------------------------------------------------ the claim types */

typedef void (*claim_eval_fn)(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                              const ga_audit_opts *o, ga_gchisq_work *w);

static void run_dp(ga_audit *a, ga_claim_result *r, const char *eps_txt, const ga_audit_opts *o,
                   ga_gchisq_work *w);
static void run_rdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w);
static void run_zcdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                     const ga_audit_opts *o, ga_gchisq_work *w);
static void run_gdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w);

/* One row per claim type: adding a type is a row here, its parse in specs/spec.c and its
 * evaluator (reports read the name and the wording from here). */
static const struct {
    int type;
    const char *name;     /* in JSON */
    claim_eval_fn eval;
} claim_types[] = {
    {GA_CLAIM_DP, "dp", run_dp},
    {GA_CLAIM_RDP, "rdp", run_rdp},
    {GA_CLAIM_ZCDP, "zcdp", run_zcdp},
    {GA_CLAIM_GDP, "gdp", run_gdp},
};

static int claim_row(int type)
{
    for (size_t i = 0; i < sizeof claim_types / sizeof *claim_types; i++)
        if (claim_types[i].type == type)
            return (int)i;
    return -1;
}

const char *ga_claim_type_name(int type)
{
    int i = claim_row(type);
    return i < 0 ? NULL : claim_types[i].name;
}

void ga_claim_text(char *b, size_t n, const ga_claim_result *r)
{
    if (r->relative && n > 9) { /* every claim of a relative audit says so */
        memcpy(b, "relative ", 9);
        b += 9;
        n -= 9;
    }
    /* the claimed numbers as their writer wrote them: the shortest round-trip decimals */
    char x[32], y[32];
    switch (r->type) {
    case GA_CLAIM_DP:
        ga_fmt_shortest(x, sizeof x, r->eps);
        ga_fmt_shortest(y, sizeof y, r->delta);
        snprintf(b, n, "(%.30s, %.30s)-DP", r->eps_txt ? r->eps_txt : x,
                 r->delta_txt ? r->delta_txt : y);
        break;
    case GA_CLAIM_RDP:
        ga_fmt_shortest(x, sizeof x, r->alpha);
        ga_fmt_shortest(y, sizeof y, r->eps_a);
        snprintf(b, n, "RDP: D_%s <= %s", x, y);
        break;
    case GA_CLAIM_ZCDP:
        ga_fmt_shortest(x, sizeof x, r->eps_a);
        snprintf(b, n, "%s-zCDP", x);
        break;
    case GA_CLAIM_GDP:
        ga_fmt_shortest(x, sizeof x, r->eps_a);
        snprintf(b, n, "%s-GDP", x);
        break;
    default:
        snprintf(b, n, "?"); /* never another type's wording */
    }
}

void ga_claim_not_evaluated(ga_claim_result *r, const char *why)
{
    r->verdict = GA_VERDICT_INCONCLUSIVE;
    r->exact.val = r->exact.err = r->slack = r->eps_at_delta.val = NAN;
    r->certified = 0;
    snprintf(r->reason, sizeof r->reason, "not evaluated: %s", why);
}

const char *ga_verdict_name(int v)
{
    static const char *n[] = {"VERIFIED", "NO VIOLATION FOUND", "INCONCLUSIVE", "VIOLATION"};
    return v >= 0 && v <= 3 ? n[v] : "?";
}

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
    ga_spec_clear(&a->spec);
    memset(a, 0, sizeof *a);
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


/* ------------------------------------------------------------ parallel pair loops
 *
 * The pairs are independent: their reductions, estimates and certified intervals run on
 * o->jobs threads (ga_par_for, numerics/par.c), each item writing its own slots of the
 * arrays below; every decision that reads several pairs (the worst pair, the first
 * violation, the certification cap, the deadline's note) is then taken in pair order on the
 * calling thread, so the report does not depend on the number of threads. */
typedef struct {
    ga_audit *a;
    const ga_audit_opts *o;
    const char *what;            /* progress label */
    size_t n;                    /* items */
    atomic_size_t ndone;
    double eps;                  /* estimates: at this eps */
    double *xy, *yx, *exy, *eyx; /* estimates: per item (pair) */
    int *st;                     /* reductions, certified values: status per item */
    const size_t *idx;           /* the pair of item j (NULL: item j is pair j) */
    const char *eps_txt;
    ga_delta_cert *cert;         /* certified values: per item */
    double *secs;                /* certified values: wall time per item */
} pair_loop;

/* spec pair i: its record, or a row family's written into *b */
static const ga_spec_pair *spair(const ga_audit *a, size_t i, ga_spec_pair_buf *b)
{
    return ga_spec_pair_at(&a->spec, i, b, 0);
}

const char *ga_audit_pair_name(const ga_audit *a, size_t i, char buf[GA_SPEC_NAME_LEN])
{
    return i < ga_spec_npairs(&a->spec) ? ga_spec_pair_name(&a->spec, i, buf, GA_SPEC_NAME_LEN)
                                        : "";
}

/* Pair i reduced, for reading (safe on any thread): the audit's own, or (rebuilt[i]) a pair
 * reduced again for this use in *own, which the caller frees (ga_pair_free; NULL when the
 * audit's own was returned). NULL: no memory for the rebuild, or pair i is not audited. */
static const ga_pair *pair_use(const ga_audit *a, size_t i, ga_pair **own)
{
    *own = NULL;
    if (!a->rebuilt || !a->rebuilt[i])
        return a->pairs[i];
    ga_spec_pair_buf b;
    return ga_mech_pair_use(NULL, spair(a, i, &b), own);
}

static void tick(pair_loop *l)
{
    progress(l->o, l->what, atomic_fetch_add(&l->ndone, 1), l->n);
}

/* run fn on the n items of l, done[j] set for each item run (the others: the deadline) */
static int pair_loop_run(pair_loop *l, ga_par_fn fn, size_t n, const char *what,
                         unsigned char *done, ga_gchisq_work *w)
{
    l->what = what;
    l->n = n;
    atomic_init(&l->ndone, 0);
    memset(done, 0, n ? n : 1);
    return ga_par_for(n, l->o->jobs, l->a->deadline, fn, l, done, w);
}

/* a certified bound in a message: 10 significant digits rounded outward (numerics/format.c)
 * into the caller's buffer b (32 bytes) */
static const char *bnd(char *b, double v, int upper)
{
    ga_fmt_bound(b, 32, v, upper, 10);
    return b;
}

/* a certified bound compared with the claim ref: outward, with the digits that keep it on
 * its side of the claim (at least 10) */
static const char *bnd_vs(char *b, double v, int upper, double ref)
{
    ga_fmt_bound_decide(b, 32, v, upper, ref, 10);
    return b;
}

/* a claimed number as written (shortest round trip) */
static const char *num(char *b, double v)
{
    ga_fmt_shortest(b, 32, v);
    return b;
}

/* the double path's options: the defaults, and --timeout's deadline (a long evaluation stops
 * there without a value) */
static ga_gchisq_opts gopts(const ga_audit *a)
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
    const ga_pair *p = reduced ? reduced : pair_use(a, i, &own);
    ga_gchisq_opts go = gopts(a);
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

/* the estimates of pair i (reduced: NULL, or the pair in hand) at l->eps into l's arrays */
static void est_store(pair_loop *l, size_t i, const ga_pair *reduced, ga_gchisq_work *w)
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
    est_store(l, l->idx ? l->idx[j] : j, NULL, w);
    tick(l);
}

/* the estimates at eps of the pairs idx[0..nidx) (idx NULL: of every pair) into xy, yx, exy,
 * eyx, indexed by pair (pairs the deadline left: 0) */
static void est_some(ga_audit *a, const ga_audit_opts *o, double eps, double *xy, double *yx,
                     double *exy, double *eyx, const char *where, const size_t *idx, size_t nidx,
                     ga_gchisq_work *w)
{
    size_t n = idx ? nidx : a->npairs;
    unsigned char *done = malloc(n ? n : 1);
    pair_loop l = {.a = a, .o = o, .eps = eps, .xy = xy, .yx = yx, .exy = exy, .eyx = eyx,
                   .idx = idx};
    for (size_t i = 0; i < a->npairs; i++)
        xy[i] = yx[i] = exy[i] = eyx[i] = 0;
    if (!done || pair_loop_run(&l, est_item, n, "delta", done, w) != GA_OK) {
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
            expired(a, where, i, n);
            break;
        }
    free(done);
}

static void est_all(ga_audit *a, const ga_audit_opts *o, double eps, double *xy, double *yx,
                    double *exy, double *eyx, const char *where, ga_gchisq_work *w)
{
    est_some(a, o, eps, xy, yx, exy, eyx, where, NULL, 0, w);
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
        const ga_pair *p = pair_use(a, i, &own);
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

/* the Renyi divergences at alpha of the pairs idx[0..nidx) (idx NULL: of every pair),
 * indexed by pair, status per pair in st (pairs the deadline left: NaN, status GA_ETIME) */
static void renyi_some(ga_audit *a, const ga_audit_opts *o, double alpha, double *xy, double *yx,
                       double *exy, double *eyx, int *st, const size_t *idx, size_t nidx,
                       ga_gchisq_work *w)
{
    size_t n = idx ? nidx : a->npairs;
    unsigned char *done = malloc(n ? n : 1);
    pair_loop l = {.a = a, .o = o, .eps = alpha, .xy = xy, .yx = yx, .exy = exy, .eyx = eyx,
                   .st = st, .idx = idx};
    if (done) /* (no memory for the loop: every pair failed) */
        pair_loop_run(&l, renyi_item, n, "Renyi", done, w);
    for (size_t j = 0; j < n; j++)
        if (!done || !done[j]) {
            size_t i = idx ? idx[j] : j;
            xy[i] = yx[i] = NAN;
            exy[i] = eyx[i] = INFINITY;
            st[i] = GA_ETIME;
        }
    free(done);
}

static void renyi_all(ga_audit *a, const ga_audit_opts *o, double alpha, double *xy, double *yx,
                      double *exy, double *eyx, int *st, ga_gchisq_work *w)
{
    renyi_some(a, o, alpha, xy, yx, exy, eyx, st, NULL, 0, w);
}

/* certified delta in both directions at eps (exact text) for pair i */
/* Is pair i a law some neighbour has? Not the proven worst case when it is only a bound
 * (spec.verified_bound): a certified value of it above a claim shows no violation. */
/* The relative margin a violation of pair i must clear: a pair computed from a dataset in
 * double precision (leverages, ridge and GP laws, masked norms) is certified as built, and
 * its construction's rounding (about the condition number times 1e-16: a 5e-42 tail of a
 * sketch moved by 3e-12 relative with another order of the solve) is in no interval, so a
 * verdict does not rest on a difference below 1e-9 relative; 0 for pairs from the spec's
 * decimals (explicit, by sensitivity, subsampled). */
#define GA_BUILT_MARGIN 1e-9
static double built_margin(const ga_audit *a, size_t i)
{
    ga_spec_pair_buf b;
    const ga_spec_pair *sp = spair(a, i, &b);
    return a->spec.data.n > 0 && !sp->src && !sp->mean_txt && !sp->nsub ? GA_BUILT_MARGIN : 0;
}

static int attained(const ga_audit *a, size_t i)
{
    ga_spec_pair_buf b;
    const ga_spec_pair *sp = i < ga_spec_npairs(&a->spec) ? spair(a, i, &b) : NULL;
    return !(a->spec.verified && a->spec.verified_bound && i == a->spec.verified_pair) &&
           !(sp && (sp->bound || ga_spec_pair_unreleased(sp)));
}

/* the options of every certified evaluation of an audit: the defaults, and --timeout's
 * deadline, which reaches into the escalation and the integrand */
static ga_cert_opts cert_opts(const ga_audit *a)
{
    ga_cert_opts co;
    ga_cert_opts_init(&co);
    co.deadline = a->deadline;
    return co;
}

/* the claim's certified bounds as decimals too (from direction xy where lo_xy/hi_xy, else
 * yx): they reach below the double range, where the doubles are 0 */
static void cert_decimals(ga_claim_result *r, const ga_delta_cert *c, int lo_xy, int hi_xy)
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

/* keep pair i's certified intervals at the table eps for the reports (a list by pair: only
 * the few pairs certified take room; none kept when there is no memory for it) */
static void store_pair_cert(ga_audit *a, size_t i, const ga_delta_cert *c)
{
    size_t k = pair_cert_pos(a, i);
    if (k == a->npair_cert || a->pair_cert[k].pair != i) {
        if (a->npair_cert == a->cap_pair_cert) {
            size_t cap = a->cap_pair_cert ? 2 * a->cap_pair_cert : 16;
            ga_pair_cert *np = realloc(a->pair_cert, cap * sizeof *np);
            if (!np)
                return;
            a->pair_cert = np;
            a->cap_pair_cert = cap;
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

/* the certified evaluation itself (reads a only: safe on any thread); its wall time */
static int cert_delta_eval(ga_audit *a, size_t i, const char *eps, ga_delta_cert *c,
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
    if (ga_spec_pair_view_init(&v, spair(a, i, &pb), 1))
        return GA_ENOMEM;
    ga_cert_opts co = cert_opts(a);
    double t0 = now();
    ga_pair *own;
    const ga_pair *p = pair_use(a, i, &own);
    int st = p ? ga_pair_delta_cert(c, p, v.in, v.txt, eps, &co) : GA_ENOMEM;
    *seconds = now() - t0;
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

/* the audit's account of a certified evaluation (calling thread) */
static void cert_account(ga_audit *a, const ga_delta_cert *c, double seconds)
{
    a->cert_seconds += seconds;
    a->ncertified++;
    if (c->precision_bits > a->max_bits)
        a->max_bits = c->precision_bits;
}

static int cert_delta(ga_audit *a, size_t i, const char *eps, ga_delta_cert *c)
{
    double sec;
    int st = cert_delta_eval(a, i, eps, c, &sec);
    cert_account(a, c, sec);
    return st;
}

/* item: the certified delta of pair l->idx[j] */
static void cert_item(void *vl, size_t j, ga_gchisq_work *w)
{
    (void)w;
    pair_loop *l = vl;
    l->st[j] = cert_delta_eval(l->a, l->idx[j], l->eps_txt, &l->cert[j], &l->secs[j]);
}

/* the certified deltas at eps_txt of the pairs sel[0..ns) on o->jobs threads, item j into
 * certs[j], cst[j], csec[j]; cdone[j] set for each item run (none when the deadline has
 * passed before the first) */
static void cert_selected(ga_audit *a, const ga_audit_opts *o, const size_t *sel, size_t ns,
                          const char *eps_txt, ga_delta_cert *certs, int *cst, double *csec,
                          unsigned char *cdone, ga_gchisq_work *w)
{
    pair_loop cl = {.a = a, .o = o, .idx = sel, .eps_txt = eps_txt, .cert = certs, .st = cst,
                    .secs = csec};
    memset(cdone, 0, ns ? ns : 1);
    if (ns && !expired(a, "certification", sel[0], a->npairs) &&
        pair_loop_run(&cl, cert_item, ns, "certify", cdone, w) != GA_OK)
        memset(cdone, 0, ns);
}

/* The pairs idx[0..m) (NULL: 0..m) a DP claim certifies, in order, into sel (at most
 * GA_AUDIT_CERT_CAP + 1): those whose estimates do not clear the claim, with --certified
 * every pair up to the cap, and the proven worst case; *capped: some pair that needed it was
 * left out by the cap. Over a shard's pairs it selects a superset of the shard's share of
 * the selection over all pairs (the cap counts fewer pairs before any of them). */
static size_t dp_cert_select(size_t *sel, int *capped, const ga_audit *a, const ga_claim_result *r,
                             const double *xy, const double *yx, const double *exy,
                             const double *eyx, const size_t *idx, size_t m, const ga_audit_opts *o)
{
    size_t ncert = 0;
    for (size_t j = 0; j < m; j++) {
        size_t i = idx ? idx[j] : j;
        /* (a bound no neighbour need attain is never certified unless it is the worst case) */
        ga_spec_pair_buf pb;
        int clear = spair(a, i, &pb)->bound ||
                    (xy[i] + exy[i] <= r->delta && yx[i] + eyx[i] <= r->delta);
        int want = !clear || (o->certified && ncert < GA_AUDIT_CERT_CAP) ||
                   (a->spec.verified && i == a->spec.verified_pair);
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

/* the text of claim ci's eps for the certified path: as written for the (eps, delta) claim,
 * else the double exactly */
static const char *claim_eps_text(char *buf, size_t n, const ga_audit *a, size_t ci)
{
    if (ci == 0 && a->spec.claim.has_eps_delta && a->spec.claim.epsilon_txt)
        return a->spec.claim.epsilon_txt;
    snprintf(buf, n, "%.17g", a->claims[ci].eps);
    return buf;
}

/* A subsampled pair: one step's event is a threshold on the released noisy sum (the loss
 * l(x) = log(1 - q + q e^{(2x - 1)/(2 sigma^2)}) increases in x); T steps sum the losses */
static void subsampled_witness(ga_claim_result *r, const ga_spec_pair *sp)
{
    const ga_subsampled_input *t = &sp->sub[0];
    int mix_is_x = !t->add, up = r->worst_dir == 1; /* S = {l_XY > eps} or {l_XY < -eps} */
    /* in terms of the loss of the mixture against the plain law, l = log P/Q: */
    int l_up = up == mix_is_x; /* S = {l > e} (else {l < -e}) */
    r->witness_px = r->witness_py = NAN;
    if (sp->nsub > 1) {
        snprintf(r->witness, sizeof r->witness,
                 "S = {the sum of the privacy losses of all steps of the %zu parts %s %.17g}, "
                 "each step's loss log(1 - q + q e^{(2x - 1)/(2 sigma^2)}) of its released noisy "
                 "sum x (q, sigma of its part)", sp->nsub, l_up ? ">" : "<",
                 l_up ? r->eps : -r->eps);
        return;
    }
    if (t->steps > 1) {
        snprintf(r->witness, sizeof r->witness,
                 "S = {(x_1, ..., x_T) : l(x_1) + ... + l(x_T) %s %.17g}, x_t the released noisy "
                 "sum of step t and l(x) = log(1 - q + q e^{(2x - 1)/(2 sigma^2)}) its privacy "
                 "loss (q = %g, sigma = %g, T = %.0f)", l_up ? ">" : "<", l_up ? r->eps : -r->eps,
                 t->q, t->sigma, t->steps);
        return;
    }
    /* one step: {l > eps} = {x > x0}, {l < -eps} = {x < x0} with e^{+-eps} = 1 - q + q e^{(2 x0 - 1)/(2 sigma^2)} */
    double e = l_up ? expm1(r->eps) + t->q : expm1(-r->eps) + t->q, s2 = t->sigma * t->sigma;
    if (!(e > 0)) {
        snprintf(r->witness, sizeof r->witness, "S is empty (the loss never falls below %.17g)", -r->eps);
        r->witness_px = r->witness_py = 0;
        return;
    }
    if (t->columns > 0) {
        /* a subsampled sketch: the loss increases in s = sum_k (u^T z_k)^2 / sigma^2 ~ chi^2_r
         * (numerics/ploss.c), the threshold s1 where (1 + lam)^{-r/2} e^{lam s1/(2 (1 + lam))} =
         * e/q, lam = (norm/sigma)^2 */
        double nr = t->norm > 0 ? t->norm : 1, lam = nr * nr / s2, h = 0.5 * t->columns;
        double s1 = (log(e / t->q) + h * log1p(lam)) * 2 * (1 + lam) / lam;
        if (!(s1 > 0) && !l_up) {
            snprintf(r->witness, sizeof r->witness, "S is empty (the loss never falls below %.17g)", -r->eps);
            r->witness_px = r->witness_py = 0;
            return;
        }
        s1 = fmax(s1, 0);
        double qq = gsl_sf_gamma_inc_Q(h, 0.5 * s1);
        double qp = (1 - t->q) * qq + t->q * gsl_sf_gamma_inc_Q(h, 0.5 * s1 / (1 + lam));
        double pm = l_up ? qp : 1 - qp, pq = l_up ? qq : 1 - qq;
        r->witness_px = mix_is_x ? pm : pq;
        r->witness_py = mix_is_x ? pq : pm;
        snprintf(r->witness, sizeof r->witness,
                 "S = {(z_1, ..., z_r) : (u^T z_1)^2 + ... + (u^T z_r)^2 %s %.17g}, z_k the "
                 "released columns and u the record's direction (r = %.0f, noise_sigma %.17g, the "
                 "record's norm %.17g, sampled with probability %.17g)", l_up ? ">" : "<", s1 * s2,
                 t->columns, t->sigma, nr, t->q);
        return;
    }
    double x0 = s2 * log(e / t->q) + 0.5;
    /* P[x > x0] under the mixture and under N(0, sigma^2) */
    double qp = (1 - t->q) * 0.5 * erfc(x0 / (t->sigma * M_SQRT2)) +
                t->q * 0.5 * erfc((x0 - 1) / (t->sigma * M_SQRT2));
    double qq = 0.5 * erfc(x0 / (t->sigma * M_SQRT2));
    double pm = l_up ? qp : 1 - qp, pq = l_up ? qq : 1 - qq; /* P[S] under mixture, plain */
    r->witness_px = mix_is_x ? pm : pq;
    r->witness_py = mix_is_x ? pq : pm;
    snprintf(r->witness, sizeof r->witness,
             "S = {x %s %.17g}, x the released noisy sum (noise N(0, %.17g^2), the record's "
             "contribution 1, sampled with probability %.17g)", l_up ? ">" : "<", x0, t->sigma, t->q);
}

/* A masked pair (matrix masking, setting (B)): the loss is monotone in |y|^2, the squared
 * norm of the released column (numerics/masked.c), so the event is a threshold on it */
static void masked_witness(ga_claim_result *r, const ga_spec_pair *sp)
{
    const ga_masked_input *m = sp->masked;
    double lx = pow(m->norm_x / m->sigma, 2), ly = pow(m->norm_y / m->sigma, 2), w, qx, px, qy, py;
    int xy = r->worst_dir == 1; /* S = {l_XY > eps} (else {l_YX > eps}) */
    double la = xy ? lx : ly, lb = xy ? ly : lx;
    ga_result d;
    r->witness_px = r->witness_py = NAN;
    if (ga_ncx2_delta(&d, &w, m->rows, la, lb, r->eps) || isnan(w) ||
        ga_ncx2_tail(&qx, &px, m->rows, lx, w) || ga_ncx2_tail(&qy, &py, m->rows, ly, w)) {
        snprintf(r->witness, sizeof r->witness, "S is empty (the loss never exceeds %.17g)", r->eps);
        r->witness_px = r->witness_py = 0;
        return;
    }
    int above = la > lb; /* the loss of a against b increases in |y|^2 */
    r->witness_px = above ? qx : px;
    r->witness_py = above ? qy : py;
    snprintf(r->witness, sizeof r->witness,
             "S = {Y : |Y|^2 %s %.17g}, |Y|^2 the sum of the squared entries of the released "
             "column (n = %.0f, sigma %.17g; |x| = %.17g under X, %.17g under Y)", above ? ">" : "<",
             w * m->sigma * m->sigma, m->rows, m->sigma, m->norm_x, m->norm_y);
}

/* Synthetic points: the loss is monotone in |y|^2, the squared norm of the released points */
static void synth_witness(ga_claim_result *r, const ga_spec_pair *sp)
{
    const ga_synthetic_input *m = sp->synth;
    double lx = pow(m->norm_x / m->sigma, 2), ly = pow(m->norm_y / m->sigma, 2), z, tx, ty;
    int xy = r->worst_dir == 1;
    double la = xy ? lx : ly, lb = xy ? ly : lx;
    ga_result d;
    r->witness_px = r->witness_py = NAN;
    if (ga_synth_delta(&d, &z, m->dim, m->points, la, lb, r->eps) || isnan(z) ||
        ga_synth_tail(&tx, m->dim, m->points, lx, z) || ga_synth_tail(&ty, m->dim, m->points, ly, z)) {
        snprintf(r->witness, sizeof r->witness, "S is empty (the loss never exceeds %.17g)", r->eps);
        r->witness_px = r->witness_py = 0;
        return;
    }
    int above = la > lb;
    r->witness_px = above ? tx : 1 - tx;
    r->witness_py = above ? ty : 1 - ty;
    snprintf(r->witness, sizeof r->witness,
             "S = {y : |y|^2 %s %.17g}, |y|^2 the sum of the squared synthetic outputs (%.0f point(s) "
             "from a model of dimension %.0f, sigma %.17g; |theta| = %.17g under X, %.17g under Y)",
             above ? ">" : "<", 4 * z * m->sigma * m->sigma, m->points, m->dim, m->sigma,
             m->norm_x, m->norm_y);
}

/* is the pair of this name a subsampled pair? */
static int sub_pair(const ga_audit *a, const char *name)
{
    char buf[GA_SPEC_NAME_LEN];
    ga_spec_pair_buf pb;
    for (size_t i = 0; i < a->npairs; i++)
        if (!strcmp(ga_audit_pair_name(a, i, buf), name))
            return ga_spec_pair_is_loss(spair(a, i, &pb));
    return 0;
}

/* the event S of the worst direction, described in the pair's coordinates, and its
 * probabilities under both laws */
static void witness_of(ga_claim_result *r, const ga_pair *p, const ga_spec_pair *sp,
                       ga_gchisq_work *w)
{
    if (p->support == GA_SUPPORT_DIFFER) {
        snprintf(r->witness, sizeof r->witness,
                 "the supports differ: S = the complement of the support of the other law "
                 "(probability 1 under one law, 0 under the other)");
        r->witness_px = 1;
        r->witness_py = 0;
        return;
    }
    if (sp->nsub) {
        subsampled_witness(r, sp);
        return;
    }
    if (sp->masked) {
        masked_witness(r, sp);
        return;
    }
    if (sp->synth) {
        synth_witness(r, sp);
        return;
    }
    ga_gchisq_prob px, py;
    int sx, sy;
    if (r->worst_dir == 1) { /* S = {l > eps} */
        sx = ga_gchisq_prob_eval(&px, p->lx, r->eps, NULL, w);
        sy = ga_gchisq_prob_eval(&py, p->ly, -r->eps, NULL, w);
        r->witness_px = px.sf.val;
        r->witness_py = py.cdf.val;
    } else { /* S = {l < -eps} */
        sy = ga_gchisq_prob_eval(&py, p->ly, r->eps, NULL, w);
        sx = ga_gchisq_prob_eval(&px, p->lx, -r->eps, NULL, w);
        r->witness_px = px.cdf.val;
        r->witness_py = py.sf.val;
    }
    /* a probability that could not be evaluated has no number (null in JSON, n/a in text) */
    if (sx != GA_OK && sx != GA_ETOL && sx != GA_EUNDERFLOW)
        r->witness_px = NAN;
    if (sy != GA_OK && sy != GA_ETOL && sy != GA_EUNDERFLOW)
        r->witness_py = NAN;
    size_t d = sp->d;
    const char *rel = r->worst_dir == 1 ? ">" : "<";
    double thr = r->worst_dir == 1 ? r->eps : -r->eps;
    if (sp->nblocks) {
        snprintf(r->witness, sizeof r->witness,
                 "S = {(x_1, ..., x_%zu) : l_1(x_1) + ... + l_%zu(x_%zu) %s %.6g}, x_b the output "
                 "of part b and l_b its privacy loss (a quadratic in x_b)", sp->nblocks,
                 sp->nblocks, sp->nblocks, rel, thr);
        return;
    }
    if (d > 4 || p->support != GA_SUPPORT_FULL) {
        snprintf(r->witness, sizeof r->witness,
                 "S = {x : l(x) %s %.17g}, l(x) = log p_X(x) - log p_Y(x) a quadratic in x "
                 "(dimension %zu%s)", rel, thr, d, sp->columns > 1 ? ", summed over the iid columns" : "");
        return;
    }
    /* l(x) = x^T A x + b^T x + c with A = (S_y^{-1} - S_x^{-1})/2, b = S_x^{-1} mu_x -
     * S_y^{-1} mu_y, c = (mu_y^T S_y^{-1} mu_y - mu_x^T S_x^{-1} mu_x + log det S_y -
     * log det S_x)/2 (per column) */
    double ix[16], iy[16], lx = 0, ly = 0;
    memcpy(ix, sp->s_x, d * d * sizeof *ix);
    memcpy(iy, sp->s_y, d * d * sizeof *iy);
    if (ga_lapack_potrf('L', d, ix, d) || ga_lapack_potrf('L', d, iy, d))
        return;
    for (size_t i = 0; i < d; i++) {
        lx += 2 * log(ix[i * d + i]);
        ly += 2 * log(iy[i * d + i]);
    }
    ga_lapack_potri('L', d, ix, d);
    ga_lapack_potri('L', d, iy, d);
    for (size_t i = 0; i < d; i++)
        for (size_t j = i + 1; j < d; j++) {
            ix[i * d + j] = ix[j * d + i];
            iy[i * d + j] = iy[j * d + i];
        }
    double A[16], b[4], c = 0.5 * (ly - lx);
    for (size_t i = 0; i < d; i++) {
        b[i] = 0;
        for (size_t j = 0; j < d; j++) {
            A[i * d + j] = 0.5 * (iy[i * d + j] - ix[i * d + j]);
            b[i] += ix[i * d + j] * sp->mu_x[j] - iy[i * d + j] * sp->mu_y[j];
            c += 0.5 * (sp->mu_y[i] * iy[i * d + j] * sp->mu_y[j] - sp->mu_x[i] * ix[i * d + j] * sp->mu_x[j]);
        }
    }
    /* as data (JSON numbers), and in the text with 17 significant digits so that the event,
     * and P_X[S], P_Y[S] through it, can be reproduced */
    r->witness_d = d;
    memcpy(r->witness_A, A, d * d * sizeof *A);
    memcpy(r->witness_b, b, d * sizeof *b);
    r->witness_c = c;
    r->witness_threshold = thr;
    r->witness_rel = r->worst_dir == 1 ? 1 : -1;
    r->witness_columns = sp->columns;
    char A_s[600] = "", b_s[200] = "", t[32];
    size_t k = 0, kb = 0;
    for (size_t i = 0; i < d; i++) {
        k += (size_t)snprintf(A_s + k, sizeof A_s - k, "%s[", i ? ", " : "[");
        for (size_t j = 0; j < d; j++) {
            ga_fmt_shortest(t, sizeof t, A[i * d + j]);
            k += (size_t)snprintf(A_s + k, sizeof A_s - k, "%s%s", j ? ", " : "", t);
        }
        k += (size_t)snprintf(A_s + k, sizeof A_s - k, "]%s", i + 1 == d ? "]" : "");
        ga_fmt_shortest(t, sizeof t, b[i]);
        kb += (size_t)snprintf(b_s + kb, sizeof b_s - kb, "%s%s", i ? ", " : "[", t);
    }
    snprintf(b_s + kb, sizeof b_s - kb, "]");
    char cs[32], ts[32];
    ga_fmt_shortest(cs, sizeof cs, c);
    ga_fmt_shortest(ts, sizeof ts, thr);
    if (sp->columns > 1) /* the comparison is of the sum, outside it */
        snprintf(r->witness, sizeof r->witness,
                 "S = {(x_1, ..., x_%.0f) : sum over the iid columns j of (x_j^T A x_j + b^T x_j + c) "
                 "%s %s} with A = %s, b = %s, c = %s", sp->columns, rel, ts, A_s, b_s, cs);
    else
        snprintf(r->witness, sizeof r->witness, "S = {x : x^T A x + b^T x + c %s %s} with A = %s, "
                 "b = %s, c = %s", rel, ts, A_s, b_s, cs);
}

/* the witness of claim r's worst pair (no witness when its rebuild finds no memory) */
static void witness(ga_audit *a, ga_claim_result *r, ga_gchisq_work *w)
{
    ga_pair *own;
    ga_spec_pair_buf pb;
    const ga_pair *p = pair_use(a, r->worst_pair, &own);
    if (p)
        witness_of(r, p, spair(a, r->worst_pair, &pb), w);
    ga_pair_free(own);
}

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

static void eval_dp(ga_audit *a, ga_claim_result *r, const char *eps_txt, const ga_audit_opts *o,
                    ga_gchisq_work *w)
{
    char nb[GA_SPEC_NAME_LEN];
    size_t n = a->npairs;
    /* the estimates at the table's eps are read in place (no copy: 32 bytes per pair), unless
     * a bound must be masked in them */
    int reuse = a->pair_xy && r->eps == a->table_eps, masked = 0;
    ga_spec_pair_buf pb;
    for (size_t i = 0; i < n; i++)
        masked |= spair(a, i, &pb)->bound;
    int alias = reuse && !masked;
    double *xy = alias ? a->pair_xy : malloc(n * sizeof *xy),
           *yx = alias ? a->pair_yx : malloc(n * sizeof *yx),
           *exy = alias ? a->pair_xy_err : malloc(n * sizeof *exy),
           *eyx = alias ? a->pair_yx_err : malloc(n * sizeof *eyx);
    /* the pairs certified (at most the cap, and the proven worst case), their results */
    size_t ncap = n < GA_AUDIT_CERT_CAP + 1 ? n : GA_AUDIT_CERT_CAP + 1;
    size_t *sel = malloc((ncap ? ncap : 1) * sizeof *sel);
    ga_delta_cert *certs = malloc((ncap ? ncap : 1) * sizeof *certs);
    int *cst = malloc((ncap ? ncap : 1) * sizeof *cst);
    double *csec = malloc((ncap ? ncap : 1) * sizeof *csec);
    unsigned char *cdone = malloc(ncap ? ncap : 1);
    char es[64];
    if (!xy || !yx || !exy || !eyx || !sel || !certs || !cst || !csec || !cdone) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "out of memory");
        goto cleanup;
    }
    if (!eps_txt) {
        snprintf(es, sizeof es, "%.17g", r->eps);
        eps_txt = es;
    }
    size_t worst = 0, nfailed = 0;
    int wdir = 1;
    double wv = -1;
    if (alias) {
        /* (read in place) */
    } else if (reuse) {
        memcpy(xy, a->pair_xy, n * sizeof *xy);
        memcpy(yx, a->pair_yx, n * sizeof *yx);
        memcpy(exy, a->pair_xy_err, n * sizeof *exy);
        memcpy(eyx, a->pair_yx_err, n * sizeof *eyx);
    } else if (!expired(a, "the claims", 0, n)) {
        est_all(a, o, r->eps, xy, yx, exy, eyx, "the claims", w);
    } else {
        for (size_t i = 0; i < n; i++)
            xy[i] = yx[i] = exy[i] = eyx[i] = 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (spair(a, i, &pb)->bound) { /* an upper bound of a neighbour (shown in the pairs
                                          table): never the worst pair, never certified */
            xy[i] = yx[i] = -2;
            exy[i] = eyx[i] = 0;
            continue;
        }
        if (isnan(xy[i]) || isnan(yx[i]))
            nfailed++;
        if (xy[i] > wv) {
            wv = xy[i];
            worst = i;
            wdir = 1;
        }
        if (yx[i] > wv) {
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
    /* which pairs need a certified interval */
    int violation = 0, ambiguous = 0, uncertifiable = 0, capped = 0, bound_over = 0,
        built_close = 0;
    size_t ncert = 0;
    char amb_pair[200] = "", uncert_note[200] = "";
    int unc_status = GA_OK; /* the status of the evaluation that made it uncertifiable */
    /* the pairs to certify, in order (the cap counts them in order) */
    ncert = dp_cert_select(sel, &capped, a, r, xy, yx, exy, eyx, NULL, n, o);
    /* their certified values on o->jobs threads */
    cert_selected(a, o, sel, ncert, eps_txt, certs, cst, csec, cdone, w);
    for (size_t j = 0; j < ncert; j++) {
        size_t i = sel[j];
        int clear = xy[i] + exy[i] <= r->delta && yx[i] + eyx[i] <= r->delta;
        if (!cdone[j]) {
            expired(a, "certification", i, n);
            break;
        }
        ga_delta_cert c = certs[j];
        int st = cst[j];
        cert_account(a, &c, csec[j]);
        if (o->fail_cert == i + 1)
            st = GA_EDOM;
        if (reuse && (st == GA_OK || st == GA_EPREC)) /* shown per pair in the reports */
            store_pair_cert(a, i, &c);
        if (st == GA_ETIME) /* (the budget ran out inside the evaluation: the audit says so) */
            expired(a, "certification", j, ncert);
        if (st != GA_OK && st != GA_EPREC) {
            /* a proven worst case whose estimates clear the claim but which has no certified
             * evaluation (a composition of subsampled steps whose Bromwich integrand decays
             * too slowly for the certified bounds: GA_EMAXITER) proves nothing: the verdict
             * is then NO VIOLATION FOUND, saying so */
            if (clear && (st == GA_EDOM || st == GA_EMAXITER) && ga_spec_pair_is_loss(spair(a, i, &pb))) {
                snprintf(uncert_note, sizeof uncert_note, "%s", ga_audit_pair_name(a, i, nb));
            } else if (!clear || (a->spec.verified && i == a->spec.verified_pair)) {
                uncertifiable = 1;
                unc_status = st;
                snprintf(amb_pair, sizeof amb_pair, "%s", ga_audit_pair_name(a, i, nb));
            }
            continue;
        }
        double lo = fmax(c.xy.lo, c.yx.lo), hi = fmax(c.xy.hi, c.yx.hi);
        /* the reported pair, direction and interval always belong together: the worst pair
         * (largest estimate) unless another pair is a certified violation and it is not */
        double margin = built_margin(a, i);
        int is_violation = lo > r->delta * (1 + margin) && attained(a, i);
        if (lo > r->delta && !is_violation && margin > 0 && attained(a, i))
            built_close = 1; /* above the claim, but within the construction's rounding */
        if (is_violation && (!violation || i == worst)) {
            r->worst_pair = i;
            r->worst_dir = c.xy.lo >= c.yx.lo ? 1 : 2;
            const ga_interval *iv = r->worst_dir == 1 ? &c.xy : &c.yx;
            dp_exact_of(r, i, xy, yx, exy, eyx); /* the value beside the interval is its pair's */
            r->certified = 1;
            r->cert_lo = iv->lo;
            r->cert_hi = iv->hi;
            cert_decimals(r, &c, r->worst_dir == 1, r->worst_dir == 1);
        } else if (!violation && i == worst) {
            const ga_interval *iv = wdir == 1 ? &c.xy : &c.yx;
            r->certified = 1;
            r->cert_lo = iv->lo;
            r->cert_hi = iv->hi;
            cert_decimals(r, &c, wdir == 1, wdir == 1);
        }
        if (is_violation) {
            violation = 1;
        } else if (hi > r->delta) {
            ambiguous = 1;
            if (lo > r->delta && !built_close) { /* the bound exceeds the claim; no neighbour
                                                    shown (2: the output before a release) */
                ga_spec_pair_buf ub;
                bound_over = i < ga_spec_npairs(&a->spec) && ga_spec_pair_unreleased(spair(a, i, &ub)) ? 2 : 1;
            }
            snprintf(amb_pair, sizeof amb_pair, "%s", ga_audit_pair_name(a, i, nb));
        } else if (!violation && a->spec.verified && i == a->spec.verified_pair) {
            r->certified = 1;
            r->cert_lo = fmax(c.xy.lo, c.yx.lo);
            r->cert_hi = hi;
            cert_decimals(r, &c, c.xy.lo >= c.yx.lo, c.xy.hi >= c.yx.hi);
            if (i != worst) { /* the value beside the interval is its pair's */
                r->worst_pair = i;
                r->worst_dir = c.xy.hi >= c.yx.hi ? 1 : 2;
                dp_exact_of(r, i, xy, yx, exy, eyx);
            }
        }
    }
    char claim[96], ce[32], cd[32];
    /* (num writes into its buffer: never the source and the destination of one snprintf) */
    if (r->eps_txt)
        snprintf(ce, sizeof ce, "%.30s", r->eps_txt);
    else
        num(ce, r->eps);
    if (r->delta_txt)
        snprintf(cd, sizeof cd, "%.30s", r->delta_txt);
    else
        num(cd, r->delta);
    snprintf(claim, sizeof claim, "claim delta(%s) <= %s", ce, cd);
    if (violation) {
        char b1[32], b2[32];
        r->verdict = GA_VERDICT_VIOLATION;
        snprintf(r->reason, sizeof r->reason,
                 "certified: delta_%s(%s) of pair '%s' lies in [%s, %s], above the claimed %s",
                 r->worst_dir == 1 ? "XY" : "YX", ce, ga_audit_pair_name(a, r->worst_pair, nb),
                 bnd_vs(b1, r->cert_lo, 0, r->delta), bnd_vs(b2, r->cert_hi, 1, r->delta), cd);
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
        if (uncertifiable && !ambiguous && !bound_over && amb_pair[0] && sub_pair(a, amb_pair) &&
            r->exact.val >= 0 && isfinite(r->exact.err)) {
            char v1[32], v2[32];
            l = strlen(r->reason);
            snprintf(r->reason + l, sizeof r->reason - l, ": no certified evaluation of this "
                     "composition of subsampled steps (too few steps of a small rate for the "
                     "certified bounds; the estimate of delta is %s +- %s)",
                     num(v1, r->exact.val), (snprintf(v2, sizeof v2, "%.2g", r->exact.err), v2));
        }
        if (nfailed) {
            l = strlen(r->reason);
            snprintf(r->reason + l, sizeof r->reason - l, "; the double-precision evaluation "
                     "failed on %zu pair(s)", nfailed);
        }
    } else if (a->spec.verified && r->certified) {
        char b1[32];
        r->verdict = GA_VERDICT_VERIFIED;
        snprintf(r->reason, sizeof r->reason,
                 "holds for every neighbour in the universe: the proven %s has certified delta <= %s",
                 a->spec.verified_note, bnd_vs(b1, r->cert_hi, 1, r->delta));
    } else {
        r->verdict = GA_VERDICT_NO_VIOLATION;
        if (uncert_note[0])
            snprintf(r->reason, sizeof r->reason, "holds on all %zu audited pairs, among them the "
                     "proven worst case, by estimates with error estimates below the claim; not "
                     "certified (pair '%s': no certified evaluation of this composition of "
                     "subsampled steps, too few steps of a small rate for the certified bounds), "
                     "so not proven", n, uncert_note);
        else
            snprintf(r->reason, sizeof r->reason, "holds on all %zu audited pairs (%s)", n,
                     o->certified ? "certified" : "estimates with error estimates below the claim");
    }
    /* smallest eps at the claimed delta: over the pairs with the largest delta at eps */
    r->eps_at_delta.val = r->delta > 0 ? 0 : INFINITY;
    if (r->delta > 0) {
        size_t taken[GA_AUDIT_EPS_PAIRS];
        for (int t = 0; t < GA_AUDIT_EPS_PAIRS && t < (int)n; t++) {
            size_t best = SIZE_MAX;
            double bv = -1;
            /* (bounds no neighbour need attain count only when the worst pair is one) */
            for (size_t i = 0; i < n; i++)
                if (fmax(xy[i], yx[i]) > bv && (attained(a, i) || !attained(a, r->worst_pair)) &&
                    !in_list(taken, (size_t)t, i)) {
                    bv = fmax(xy[i], yx[i]);
                    best = i;
                }
            if (best == SIZE_MAX)
                break;
            ga_result e;
            int dir;
            ga_pair *own;
            const ga_pair *p = pair_use(a, best, &own);
            ga_gchisq_opts go = gopts(a);
            int st = p ? ga_pair_epsilon(&e, &dir, p, r->delta, &go, w) : GA_ENOMEM;
            ga_pair_free(own);
            if (st == GA_EDOM)
                e.val = INFINITY;
            if (st != GA_OK && st != GA_ETOL && st != GA_EDOM) { /* failed: no number */
                r->eps_at_delta.val = NAN;
                break;
            }
            if (e.val > r->eps_at_delta.val)
                r->eps_at_delta = e;
            taken[t] = best; /* next */
        }
    }
    /* subsampled pairs (kept by the audit, never rebuilt): the RDP accountant's eps at the
     * claimed delta, for comparison */
    for (size_t i = 0; r->delta > 0 && r->delta < 1 && i < n; i++) {
        double e;
        int order;
        if (spair(a, i, &pb)->nsub && ga_pair_rdp_accountant(&e, &order, a->pairs[i], r->delta) == GA_OK &&
            e > r->rdp_eps) {
            r->rdp_eps = e;
            r->rdp_order = order;
        }
    }
    /* and a PLD accountant's: one pair suffices (the remove and add pairs of the subsampled
     * kinds are each other's directions) */
    for (size_t i = 0; r->delta > 0 && r->delta < 1 && i < n; i++) {
        double e;
        if (spair(a, i, &pb)->nsub && ga_pair_pld_accountant(&e, a->pairs[i], r->delta, 1e-4) == GA_OK) {
            r->pld_eps = e;
            break;
        }
    }
    if (n) {
        r->bound = !attained(a, r->worst_pair);
        r->lower = spair(a, r->worst_pair, &pb)->lower;
        witness(a, r, w);
    }
cleanup:
    if (!alias) {
        free(xy);
        free(yx);
        free(exy);
        free(eyx);
    }
    free(sel);
    free(certs);
    free(cst);
    free(csec);
    free(cdone);
}

/* certified D_alpha of pair i, both directions */
static int cert_renyi(ga_audit *a, size_t i, double alpha, ga_interval *xy, ga_interval *yx)
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
    if (ga_spec_pair_view_init(&v, spair(a, i, &pb), 1))
        return GA_ENOMEM;
    /* The claim's order is a decimal whose double is alpha: D at the exact decimals of the
     * neighbouring doubles bracket D at it (D_alpha is nondecreasing in alpha), so the hull
     * of their intervals holds D at the decimal (below 1 + ulp: D >= 0) */
    char as[2][120];
    double an[2] = {nextafter(alpha, 0), nextafter(alpha, INFINITY)};
    ga_cert_opts co = cert_opts(a);
    ga_pair *own;
    const ga_pair *p = pair_use(a, i, &own);
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

static void eval_rdp(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o, ga_gchisq_work *w)
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
    renyi_all(a, o, r->alpha, v, v + n, v + 2 * n, v + 3 * n, vst, w);
    /* the worst estimate (the reported pair unless a certified interval of another pair
     * decides: the value, the pair and the interval reported always belong together) */
    int interval_set = 0;
    for (size_t i = 0; i < n; i++) {
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
        int is_v = a->spec.verified && i == a->spec.verified_pair;
        if (clear && !is_v)
            continue;
        if (ncert++ >= 200) {
            ambiguous = 1;
            snprintf(amb, sizeof amb, "more pairs than the certification cap");
            continue;
        }
        ga_interval cx, cy;
        int st = cert_renyi(a, i, r->alpha, &cx, &cy);
        double lo = fmax(cx.lo, cy.lo), hi = fmax(cx.hi, cy.hi);
        if (st == GA_EDOM && clear && ga_spec_pair_is_loss(spair(a, i, &pb))) {
            uncert = 1; /* subsampled: estimates only (as for delta) */
            continue;
        }
        if (st != GA_OK && st != GA_EPREC) { /* (EPREC: an enclosure, wider than asked) */
            ambiguous = 1;
            snprintf(amb, sizeof amb, "certified Renyi divergence unavailable for pair '%.100s'",
                     ga_audit_pair_name(a, i, nb));
            continue;
        }
        if (lo > r->eps_a * (1 + built_margin(a, i))) { /* (a computed pair's margin) */
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
                     r->alpha, ga_audit_pair_name(a, i, nb), bnd(b1, lo, 0), bnd(b2, hi, 1));
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
                 num(ca, r->alpha), r->worst_dir == 1 ? "X||Y" : "Y||X",
                 ga_audit_pair_name(a, r->worst_pair, nb), bnd_vs(b1, r->cert_lo, 0, r->eps_a),
                 bnd_vs(b2, r->cert_hi, 1, r->eps_a), num(cb, r->eps_a));
    } else if (ambiguous) {
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason, "%s", amb);
    } else if (a->spec.verified && verified_ok) {
        char b1[32];
        r->verdict = GA_VERDICT_VERIFIED;
        snprintf(r->reason, sizeof r->reason,
                 "holds for every neighbour in the universe: certified D_%.6g <= %s on the proven "
                 "worst case (the Renyi divergence also increases along it)", r->alpha,
                 bnd(b1, r->cert_hi, 1));
    } else {
        r->verdict = GA_VERDICT_NO_VIOLATION;
        snprintf(r->reason, sizeof r->reason, "holds on all audited pairs: max D_%.6g = %.6g <= %.6g%s",
                 r->alpha, wv, r->eps_a, uncert ? " (estimates with error estimates; the "
                 "subsampled pairs have no certified Renyi divergence yet, so not proven)" : "");
    }
    free(v);
    free(vst);
}

/* When every audited pair has equal covariances (a mean shift: the Gaussian mechanism,
 * matrix masking), each pair's profile is exactly the mu-GDP curve of mu = sqrt(r D2) and
 * D_alpha = alpha r D2/2 (r D2 the squared Mahalanobis distance times the columns), so GDP
 * and zCDP claims are decided by max r D2, certified from the exact inputs
 * (ga_pair_mahalanobis_cert): no grid. Returns 1 with the enclosure of max r D2 and its pair,
 * 0 when some pair has unequal covariances or cannot be certified (then the grid decides). */
/* the certified r D2 of pair i (recorded or replayed like the other evaluations) */
static int maha_cert(ga_audit *a, size_t i, ga_interval *iv)
{
    const ga_rec *k = a->book.mode == GA_REC_REPLAY ? ga_rec_find(&a->book, GA_REC_MAHA, i, 0, NULL)
                                                    : NULL;
    if (k) {
        *iv = (ga_interval){k->v[0], k->v[1]};
        return k->status;
    }
    ga_spec_pair_view v;
    ga_spec_pair_buf pb; /* (the view points into it) */
    if (ga_spec_pair_view_init(&v, spair(a, i, &pb), 1))
        return GA_ENOMEM;
    ga_cert_opts co = cert_opts(a);
    ga_pair *own;
    const ga_pair *p = pair_use(a, i, &own);
    int st = p ? ga_pair_mahalanobis_cert(iv, p, v.in, v.txt, &co) : GA_ENOMEM;
    ga_pair_free(own);
    ga_spec_pair_view_clear(&v);
    if (a->book.mode == GA_REC_RECORD) {
        ga_rec r = {.type = GA_REC_MAHA, .pair = i, .status = st, .v = {iv->lo, iv->hi}};
        ga_rec_add(&a->book, &r); /* (a failure is kept in the book) */
    }
    return st;
}

static int exact_t2(ga_audit *a, ga_interval *t2, size_t *worst)
{
    if (a->npairs == 0 || a->npairs > GA_AUDIT_CERT_CAP)
        return 0;
    t2->lo = t2->hi = 0;
    *worst = 0;
    for (size_t i = 0; i < a->npairs; i++) {
        if (expired(a, "certification", i, a->npairs))
            return 0;
        ga_interval iv;
        if (maha_cert(a, i, &iv) != GA_OK)
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
    } else if (a->spec.verified) {
        r->verdict = GA_VERDICT_VERIFIED;
        snprintf(r->reason, sizeof r->reason,
                 "holds for every neighbour in the universe: the proven %s has equal covariances, "
                 "so its profile is exactly the %s-GDP curve with certified %s <= %s%s", 
                 a->spec.verified_note, is_gdp ? "mu" : "sqrt(2 rho)", what, b2,
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

static void eval_zcdp(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o, ga_gchisq_work *w)
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
    size_t n = a->npairs, m = idx ? nidx : n;
    double *v = malloc(4 * (n ? n : 1) * sizeof *v);
    int *vst = malloc((n ? n : 1) * sizeof *vst);
    *g = (grid_best){.best = -1};
    if (!v || !vst) {
        free(v);
        free(vst);
        return GA_ENOMEM;
    }
    for (int k = 0; k < 120; k++) {
        double al = 1 + pow(10.0, -3 + 6.0 * k / 119); /* 1.001 .. 1e3 */
        renyi_some(a, o, al, v, v + n, v + 2 * n, v + 3 * n, vst, idx, nidx, w);
        for (size_t j = 0; j < m; j++) {
            size_t i = idx ? idx[j] : j;
            ga_result xy = {v[i], v[2 * n + i]}, yx = {v[n + i], v[3 * n + i]};
            if (vst[i] != GA_OK && vst[i] != GA_ETOL)
                g->failed++;
            grid_hit(g, k, i, fmax(xy.val, yx.val) / al, al, xy.val >= yx.val ? 1 : 2,
                     fmax(xy.err, yx.err) / al);
        }
    }
    free(v);
    free(vst);
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
        est_some(a, o, eps, dv, dv + n, dv + 2 * n, dv + 3 * n, "the GDP check", idx, nidx, w);
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

/* a claim's grid scan (grid_scan), its worst point into r (alpha or eps, pair, direction,
 * value); 0, or -1 with r INCONCLUSIVE (no memory) */
static int grid_claim(grid_best *g, ga_audit *a, ga_claim_result *r, const ga_audit_opts *o,
                      ga_gchisq_work *w)
{
    if (grid_scan(g, a, r, o, w)) {
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

/* a shard's scan of its pairs, recorded */
static void grid_record(ga_audit *a, const ga_claim_result *r, const ga_audit_opts *o,
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
        int st = cert_renyi(a, r->worst_pair, r->at, &cx, &cy);
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

static void eval_gdp(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o, ga_gchisq_work *w)
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
        int st = cert_delta(a, r->worst_pair, es, &c);
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

/* stage 1: load the spec and build its pairs (60% of the budget), allocate the results */
static void audit_claim_list(ga_audit *a);
static int audit_load(ga_audit *a, const char *path, const char *text, size_t len,
                      const ga_audit_opts *o, char *msg, size_t msglen)
{
    /* building the pairs gets GA_AUDIT_BUILD_SHARE of the --timeout budget, so that the
     * pairs built can still be evaluated (a violation among them is a violation) */
    double t0 = now();
    a->deadline = o->timeout > 0 ? t0 + o->timeout : 0;
    ga_spec_opts so = {.deadline = o->timeout > 0 ? t0 + GA_AUDIT_BUILD_SHARE * o->timeout : 0,
                       .jobs = o->jobs, .allow_paths = o->allow_paths, .nallow = o->nallow,
                       .drop_data = 1 /* (built once: a builder may free the data's values) */,
                       .families = !o->keep_pairs /* (a test's audit that keeps every pair
                                                     keeps every record too) */};
    so.kind_at = ga_mech_kind_at; /* (the parser checks kind names against the table) */
    ga_audit_watch_stage(a->watch, "reading the spec");
    int rc = text ? ga_spec_parse_opts(&a->spec, text, len, path, &so, msg, msglen)
                  : ga_spec_load_opts(&a->spec, path, &so, msg, msglen);
    if (rc)
        return rc;
    if (o->claim && (rc = ga_spec_set_claim(&a->spec, o->claim, msg, msglen)))
        return rc;
    if (o->claim && !(a->claim_override = strdup(o->claim)))
        return GA_ENOMEM;
    const ga_spec_claim *cl = &a->spec.claim;
    size_t nc = (size_t)cl->has_eps_delta + cl->nprofile + cl->nrdp + (size_t)cl->has_zcdp +
                (size_t)cl->has_gdp;
    if (nc == 0) {
        ga_msg(msg, msglen, "%s: claim: missing: nothing to audit (add e.g. claim: {epsilon: 1, "
               "delta: 1.0e-5}; see doc/spec.md)", path);
        return GA_EINVAL;
    }
    if (!(a->claims = calloc(nc, sizeof *a->claims)))
        return GA_ENOMEM;
    memcpy(a->digest, a->spec.digest, sizeof a->digest);
    a->certified_mode = o->certified;
    audit_claim_list(a); /* (and the table's eps: the reduction takes its estimates) */
    ga_audit_watch_spec(a->watch, a, 0);
    ga_audit_watch_stage(a->watch, "building the neighbouring pairs");
    if ((rc = ga_mech_build(&a->spec, msg, msglen)))
        return rc;
    if (a->spec.truncated) {
        a->incomplete = 1;
        snprintf(a->timeout_note, sizeof a->timeout_note,
                 "only %zu of %zu neighbouring pairs were built within %.0f%% of the --timeout budget",
                 ga_spec_npairs(&a->spec), a->spec.planned, 100 * GA_AUDIT_BUILD_SHARE);
    }
    size_t n = ga_spec_npairs(&a->spec) ? ga_spec_npairs(&a->spec) : 1;
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

/* the per-pair table's eps: the first DP claim's (the total variation, eps = 0, when there
 * is none); set with the claim list (audit_claim_list) */
static void table_eps(ga_audit *a)
{
    a->table_eps = 0;
    for (size_t i = 0; i < a->nclaims; i++)
        if (a->claims[i].type == GA_CLAIM_DP) {
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
    const ga_spec_pair *sp = spair(a, i, &pb);
    l->st[j] = ga_mech_pair_reduce(&a->pairs[i], sp, NULL, 0);
    if (l->st[j] == GA_OK && l->xy)
        est_store(l, i, a->pairs[i], w);
    if (l->st[j] == GA_OK && a->rebuilt && ga_mech_pair_rebuildable(sp)) {
        ga_pair_free(a->pairs[i]); /* checked; reduced again where used */
        a->pairs[i] = NULL;
        a->rebuilt[i] = 1;
    }
    tick(l);
}

static int audit_reduce(ga_audit *a, const char *path, const ga_audit_opts *o, char *msg,
                        size_t msglen, ga_gchisq_work *w)
{
    size_t n = a->slice ? a->nslice : ga_spec_npairs(&a->spec);
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
    int rc = !st || !done ? GA_ENOMEM : pair_loop_run(&l, reduce_item, n, "reduce", done, w);
    /* the pairs reduced, in order up to the first the deadline left or the first error (its
     * message from a second, serial reduction: the same inputs, the same failure) */
    size_t k = 0;
    for (; rc == GA_OK && k < n; k++) {
        size_t i = a->slice ? a->slice[k] : k;
        if (!done[k]) {
            expired(a, "the reduction", k, n);
            break;
        }
        if (st[k]) {
            ga_pair_free(a->pairs[i]);
            a->pairs[i] = NULL;
            ga_spec_pair_buf pb; /* (named: the message names the pair's fields) */
            rc = ga_mech_pair_reduce(&a->pairs[i], ga_spec_pair_at(&a->spec, i, &pb, 1), msg, msglen);
            if (rc == GA_OK) { /* it did not fail again: keep the second result */
                if (l.xy)
                    est_store(&l, i, a->pairs[i], w);
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
    a->npairs = a->slice ? ga_spec_npairs(&a->spec) : k;
    if (a->slice)
        a->nslice = k;
    a->table_done = rc == GA_OK && l.xy;
    free(st);
    free(done);
    return rc;
}

/* the spec's claims as a flat list, in order: (eps, delta), profile points, RDP points,
 * zCDP, GDP */
static void audit_claim_list(ga_audit *a)
{
    const ga_spec_claim *cl = &a->spec.claim;
    size_t k = 0;
    if (cl->has_eps_delta) {
        a->claims[k].type = GA_CLAIM_DP;
        a->claims[k].eps = cl->epsilon;
        a->claims[k].delta = cl->delta;
        a->claims[k].eps_txt = cl->epsilon_txt; /* echoed as written */
        a->claims[k].delta_txt = cl->delta_txt;
        k++;
    }
    for (size_t i = 0; i < cl->nprofile; i++, k++) {
        a->claims[k].type = GA_CLAIM_DP;
        a->claims[k].eps = cl->profile[2 * i];
        a->claims[k].delta = cl->profile[2 * i + 1];
    }
    for (size_t i = 0; i < cl->nrdp; i++, k++) {
        a->claims[k].type = GA_CLAIM_RDP;
        a->claims[k].alpha = cl->rdp[2 * i];
        a->claims[k].eps_a = cl->rdp[2 * i + 1];
    }
    if (cl->has_zcdp) {
        a->claims[k].type = GA_CLAIM_ZCDP;
        a->claims[k].eps_a = cl->zcdp_rho;
        k++;
    }
    if (cl->has_gdp) {
        a->claims[k].type = GA_CLAIM_GDP;
        a->claims[k].eps_a = cl->gdp_mu;
        k++;
    }
    a->nclaims = k;
    for (size_t i = 0; i < k; i++)
        a->claims[i].relative = a->spec.nrel > 0;
    table_eps(a);
}

/* stage 3: the per-pair table (taken in stage 2 unless the audit is a shard) */
static void audit_table(ga_audit *a, const ga_audit_opts *o, ga_gchisq_work *w)
{
    if (!a->table_done && !expired(a, "the per-pair table", 0, a->npairs))
        est_all(a, o, a->table_eps, a->pair_xy, a->pair_yx, a->pair_xy_err, a->pair_yx_err,
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
        int row = claim_row(r->type);
        if (row < 0) { /* not in the table: no verdict by another type's rules */
            r->verdict = GA_VERDICT_INCONCLUSIVE;
            snprintf(r->reason, sizeof r->reason, "unknown claim type %d", r->type);
            continue;
        }
        double tc = now();
        char eb[64];
        ga_audit_watch_stage(a->watch, "evaluating claim %zu of %zu", i + 1, a->nclaims);
        claim_types[row].eval(a, r, claim_eps_text(eb, sizeof eb, a, i), o, w);
        r->evaluated = 1;
        r->seconds = now() - tc;
        if (r->verdict == GA_VERDICT_VIOLATION && !attained(a, r->worst_pair)) {
            /* the evidence is the bound, not a neighbour: no violation shown */
            char old[sizeof r->reason];
            memcpy(old, r->reason, sizeof old);
            r->verdict = GA_VERDICT_INCONCLUSIVE;
            ga_spec_pair_buf b;
            if (r->worst_pair < ga_spec_npairs(&a->spec) && ga_spec_pair_unreleased(spair(a, r->worst_pair, &b)))
                snprintf(r->reason, sizeof r->reason, "the release's laws could not be computed "
                         "rigorously (%.300s), so the output before the release is audited: an "
                         "upper bound of the release's (post-processing), and it exceeds the "
                         "claim (%.500s); no violation is shown", a->spec.release_note, old);
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
        ga_gchisq_opts gg = gopts(a);
        for (size_t j = 0; j < a->nplot; j++) {
            ga_pair *own;
            const ga_pair *p = pair_use(a, a->plot_pair[j], &own);
            if (j == 0 && p)
                ga_pair_profile_grid(a->plot_eps, GA_PLOT_POINTS, p, &gg, w);
            int failed = !p; /* after a failed evaluation the curve stops (no number, no time) */
            for (size_t i = 0; i < GA_PLOT_POINTS; i++) {
                ga_delta D = {{NAN, 0}, {NAN, 0}, 0};
                if (!failed) {
                    ga_gchisq_opts go = gopts(a);
                    int st = ga_pair_delta(&D, p, a->plot_eps[i], GA_DELTA_AUTO, &go, w);
                    failed = (st != GA_OK && st != GA_ETOL) || ga_expired(a->deadline);
                    if (st != GA_OK && st != GA_ETOL)
                        D.xy.val = D.yx.val = NAN;
                }
                a->plot_xy[j][i] = D.xy.val;
                a->plot_yx[j][i] = D.yx.val;
            }
            ga_pair_free(own);
        }
    }
    for (size_t i = 0; i < a->nclaims; i++)
        if (a->claims[i].type == GA_CLAIM_RDP || a->claims[i].type == GA_CLAIM_ZCDP) {
            a->have_renyi = 1;
            a->renyi_pair = a->claims[i].worst_pair;
            break;
        }
    if (a->timed_out || n == 0)
        a->have_renyi = 0;
    if (a->have_renyi) {
        double amax = 64;
        for (size_t i = 0; i < a->nclaims; i++)
            if (a->claims[i].type == GA_CLAIM_RDP)
                amax = fmax(amax, 2 * a->claims[i].alpha);
        ga_pair *own;
        const ga_pair *p = pair_use(a, a->renyi_pair, &own);
        for (int j = 0; j < 60; j++) {
            ga_result xy = {NAN, INFINITY}, yx = {NAN, INFINITY};
            a->renyi_alpha[j] = exp(log(1.01) + (log(amax) - log(1.01)) * j / 59.0);
            if (p)
                ga_pair_renyi(&xy, &yx, p, a->renyi_alpha[j]);
            a->renyi_xy[j] = xy.val;
            a->renyi_yx[j] = yx.val;
        }
        ga_pair_free(own);
    }
}

/* A shard (--shard I/N): the evaluations the claims' decisions read, for this shard's pairs,
 * recorded in a->book: the table's estimates; per DP claim its estimates and the certified
 * intervals of the pairs it would certify among these (a superset of what the decisions over
 * all pairs certify here: dp_cert_select); per RDP claim the Renyi estimates and the
 * certified divergences the same way; per zCDP/GDP claim the grid scan over these pairs and
 * the certified Mahalanobis distances the exact verdict reads. The rest (the witness, the
 * smallest eps, the plots, the accountants) concerns a few pairs the merge picks and
 * evaluates itself. */
static void shard_pass(ga_audit *a, const ga_audit_opts *o, ga_gchisq_work *w)
{
    size_t n = a->npairs, m = a->nslice, *sl = a->slice, nc = m < GA_AUDIT_CERT_CAP + 1 ? m : GA_AUDIT_CERT_CAP + 1;
    double *v = malloc(4 * (n ? n : 1) * sizeof *v);
    int *vst = malloc((n ? n : 1) * sizeof *vst), *cst = malloc((nc ? nc : 1) * sizeof *cst);
    size_t *sel = malloc((nc ? nc : 1) * sizeof *sel);
    ga_delta_cert *certs = malloc((nc ? nc : 1) * sizeof *certs);
    double *csec = malloc((nc ? nc : 1) * sizeof *csec);
    unsigned char *cdone = malloc(nc ? nc : 1);
    if (!v || !vst || !cst || !sel || !certs || !csec || !cdone) {
        a->book.failed = 1;
        goto cleanup;
    }
    double *xy = v, *yx = v + n, *exy = v + 2 * n, *eyx = v + 3 * n;
    for (size_t ci = 0; ci < a->nclaims && !expired(a, "the claims", 0, n); ci++) {
        ga_claim_result *r = &a->claims[ci];
        if (r->type == GA_CLAIM_DP) {
            char eb[64];
            const char *et = claim_eps_text(eb, sizeof eb, a, ci);
            est_some(a, o, r->eps, xy, yx, exy, eyx, "the claims", sl, m, w);
            int capped = 0;
            size_t ns = dp_cert_select(sel, &capped, a, r, xy, yx, exy, eyx, sl, m, o);
            cert_selected(a, o, sel, ns, et, certs, cst, csec, cdone, w);
            for (size_t j = 0; j < ns; j++)
                if (!cdone[j]) {
                    expired(a, "certification", j, ns);
                    break;
                }
        } else if (r->type == GA_CLAIM_RDP) {
            renyi_some(a, o, r->alpha, xy, yx, exy, eyx, vst, sl, m, w);
            size_t ncert = 0;
            for (size_t j = 0; j < m && !expired(a, "certification", j, m); j++) {
                size_t i = sl[j];
                int clear = xy[i] + exy[i] <= r->eps_a && yx[i] + eyx[i] <= r->eps_a;
                if (clear && !(a->spec.verified && i == a->spec.verified_pair))
                    continue;
                if (ncert++ >= GA_AUDIT_CERT_CAP)
                    continue;
                ga_interval cx, cy;
                cert_renyi(a, i, r->alpha, &cx, &cy);
            }
        } else if (r->type == GA_CLAIM_ZCDP || r->type == GA_CLAIM_GDP) {
            grid_record(a, r, o, w);
            for (size_t j = 0; n <= GA_AUDIT_CERT_CAP && j < m; j++) {
                ga_interval iv;
                if (expired(a, "certification", j, m) || maha_cert(a, sl[j], &iv) != GA_OK)
                    break; /* (exact_t2 stops at the first pair without one) */
            }
        }
    }
cleanup:
    free(v);
    free(vst);
    free(cst);
    free(sel);
    free(certs);
    free(csec);
    free(cdone);
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
    size_t n = ga_spec_npairs(&a->spec);
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
        c->worst_named = c->worst_pair < ga_spec_npairs(&a->spec) &&
                         ga_spec_pair_name(&a->spec, c->worst_pair, c->worst_name,
                                           sizeof c->worst_name) == c->worst_name;
    }
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
    if (book) {
        a->book = *book;
        memset(book, 0, sizeof *book);
    }
    double t0 = now();
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
            ga_audit_watch_stage(a->watch, "the per-pair table");
            audit_table(a, o, w);
            audit_claims(a, o, w);
            ga_audit_watch_stage(a->watch, "the plots");
            audit_plots(a, w);
            name_worst_pairs(a);
        }
    }
    a->seconds = now() - t0;
    ga_gchisq_work_free(w);
    reproducible_times(a);
    return rc;
}

/* the claim table's evaluators, one signature */
static void run_dp(ga_audit *a, ga_claim_result *r, const char *eps_txt, const ga_audit_opts *o,
                   ga_gchisq_work *w)
{
    eval_dp(a, r, eps_txt, o, w);
}

/* Claims on Renyi divergences (RDP, zCDP) need each pair's own divergence. A masked or
 * synthetic pair (a non-Gaussian release) and a subsampled sketch step have none here: such a
 * claim is refused with the reason (INCONCLUSIVE, no value), never computed from another
 * family's fields. 1: refused. */
static int renyi_refused(ga_audit *a, ga_claim_result *r)
{
    char nb[GA_SPEC_NAME_LEN];
    ga_spec_pair_buf pb;
    for (size_t i = 0; i < a->npairs; i++) {
        const ga_spec_pair *sp = spair(a, i, &pb);
        const char *fam = sp->masked ? "matrix masking (a noncentral chi-square release)"
                          : sp->synth ? "synthetic data from random inputs"
                          : sp->nsub && sp->sub[0].columns > 0 ? "a subsampled sketch step"
                                                               : NULL;
        if (!fam)
            continue;
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        r->exact = (ga_result){NAN, INFINITY};
        r->worst_pair = i;
        snprintf(r->reason, sizeof r->reason, "not applicable: the Renyi divergences of %s are "
                 "not computed (pair '%.100s'), so a %s claim is not decided; its (eps, delta) "
                 "profile is (a DP claim)", fam, ga_audit_pair_name(a, i, nb),
                 r->type == GA_CLAIM_RDP ? "Renyi DP" : "zCDP");
        return 1;
    }
    return 0;
}

static void run_rdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w)
{
    (void)eps_txt;
    if (!renyi_refused(a, r))
        eval_rdp(a, r, o, w);
}

static void run_zcdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                     const ga_audit_opts *o, ga_gchisq_work *w)
{
    (void)eps_txt;
    if (!renyi_refused(a, r))
        eval_zcdp(a, r, o, w);
}

static void run_gdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w)
{
    (void)eps_txt;
    eval_gdp(a, r, o, w);
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
                st = cert_delta_eval(a, x->pair, x->key_txt, &dc, &sec);
                iv[0] = dc.xy;
                iv[1] = dc.yx;
            } else if (x->type == GA_REC_CERT_RENYI) {
                st = cert_renyi(a, x->pair, x->key, &iv[0], &iv[1]);
            } else {
                st = maha_cert(a, x->pair, &iv[0]);
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
        if (rc == GA_OK && (ga_spec_npairs(&a->spec) != h0.npairs || a->nclaims != h0.nclaims)) {
            ga_msg(msg, msglen, "merge: the spec has %zu pairs and %zu claims, the parts %zu and "
                   "%zu", ga_spec_npairs(&a->spec), a->nclaims, h0.npairs, h0.nclaims);
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

/* ------------------------------------------------------------ the public pipeline */

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
                      : c->worst_pair < ga_spec_npairs(&r->a.spec)
                          ? ga_spec_pair_name(&r->a.spec, c->worst_pair, NULL, 0) /* (a record) */
                          : "";
    out->direction = c->worst_dir;
    out->evaluated = c->evaluated;
    return GA_OK;
}

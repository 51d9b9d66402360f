/*
 * renyi_profile.c - Renyi divergences from privacy profiles, for the pairs whose loss has no
 * moment generating function route here (matrix masking's noncentral chi-square pairs,
 * synthetic points from random inputs, a subsampled sketch step), in double precision with an
 * error estimate and certified.
 *
 * For P, Q mutually absolutely continuous with ratio r = dP/dQ and alpha > 1, Taylor's formula
 * with integral remainder for t^alpha about t = 1, averaged under Q (where E_Q[r - 1] = 0), is
 *   E_Q[r^alpha] = 1 + alpha (alpha - 1) [int_1^inf g^{alpha-2} E_Q(r - g)_+ dg
 *                                       + int_0^1 g^{alpha-2} E_Q(g - r)_+ dg],
 * and E_Q(r - g)_+ = delta_PQ(log g), E_Q(g - r)_+ = g delta_QP(-log g), so with g = e^{+-eps}
 *   E_Q[r^alpha] = 1 + alpha (alpha - 1) (A + B),
 *   A = int_0^inf e^{(alpha-1) eps} delta_PQ(eps) deps,  B = int_0^inf e^{-alpha eps} delta_QP(eps) deps,
 * and D_alpha(P||Q) = log(1 + alpha (alpha - 1)(A + B)) / (alpha - 1): the integral form of
 * f-divergences through hockey-stick divergences (Sason & Verdu, f-divergence inequalities,
 * IEEE Trans. Inf. Theory 2016). These pairs compute their profiles exactly, so their
 * divergences follow from them.
 *
 * Double precision: adaptive Gauss-Kronrod on the panels [0, s], [s, 2s], [2s, 4s], ... (s
 * where the profile has halved), each scaled by a bound of its integrand (no overflow at
 * large alpha), until the bound of what lies beyond is negligible; the error estimate adds the
 * quadrature's, the profile's own (times the panel's width) and the tail bound.
 *
 * Certified: delta_PQ(log g) is convex and nonincreasing in g (an average of (r - g)_+), so on
 * a cell [g_i, g_{i+1}] of a grid it lies below its chord and above the extensions of the
 * neighbouring cells' chords (and above its value at g_{i+1}); the power weights integrate
 * these lines in closed form, which brackets A and B from certified deltas at the grid's
 * points (exact dyadic eps). The cells whose brackets are widest are bisected until the
 * divergence's interval is as narrow as asked, or the node cap or the deadline.
 *
 * Tails: beyond E, delta_PQ(eps) <= P_P[L > eps] <= e^{K(lam) - lam eps} for every lam > 0,
 * K(lam) >= log E_P[e^{lam L}] the family's bound (pc_renyi_tails.cap: data processing from
 * the Gaussian the release is computed from, or Jensen's inequality for a mixture), so the
 * rest of A is at most e^{K(lam) - (lam - alpha + 1) E} / (lam - alpha + 1) for lam > alpha -
 * 1; the rest of B is at most delta_QP(E) e^{-alpha E} / alpha (delta is nonincreasing); and
 * nothing is left where delta is 0 (beyond the loss's supremum, or certified 0 at E).
 */
#include "pair/cert_internal.h"
#include "pair/loss.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RP_MAX_PANELS 80  /* panels [0, s], [s, 2s], ...: at most up to s 2^79 */
#define RP_REL 1e-9       /* the double quadrature's relative target per panel */
#define RP_TINY 1e-280    /* a delta below this has lost its relative accuracy in double */
#define RP_NEGLIGIBLE 1e-14 /* the tail bound, relative to the integral, that ends the panels */
#define RP_LOST 1e-3      /* a delta whose error estimate is this share of it ends the panels */
#define RP_ACCEPT 1e-6    /* a double estimate less accurate than this is refused (GA_ETOL) */
#define RP_SPLIT 8        /* the certified grid's first cells per panel */
#define RP_FLOOR 1e-4     /* the certified interval's relative width asked for, at least */
#define RP_PREC 128       /* working precision of the certified brackets */
#define RP_TAIL_SHARE 0.01 /* the certified grid ends where its tail is this share of the width */
#define RP_FAR 1e-30      /* ... or where delta falls below this (certified, it needs many bits) */

/* ---------------------------------------------------------------- double precision */

typedef struct {
    const ga_pair *p;
    const pc_renyi_tails *tl;
    ga_gchisq_opts o;
    ga_gchisq_work *w;
    double alpha;
    int dir, status;
    double shift;     /* the integrand is computed times e^-shift */
    double panel_err; /* largest weighted error estimate of delta on the current panel */
} rp_ctx;

/* The pair's cache of deltas (p->dcache): RP_CACHE slots addressed by the bits of eps, a
 * newer entry replacing an older one; one lock for every pair's cache (held only to copy an
 * entry: the deltas are computed outside it). A delta depends on the pair and eps alone, so a
 * value recalled is the value computed again, whatever the order of evaluations or threads. */
#define RP_CACHE 16384
typedef struct {
    double e;
    ga_result d[2];
    int st, used;
} rp_entry;
typedef struct { /* certified: the two neighbouring orders of a claim share their nodes */
    double e;
    ga_interval d[2];
    int digits, used;
} rp_centry;
typedef struct {
    rp_entry d[RP_CACHE];
    rp_centry c[RP_CACHE];
} rp_cache;
static pthread_mutex_t rp_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t rp_slot(double e)
{
    unsigned long long u;
    memcpy(&u, &e, sizeof u);
    u ^= u >> 29;
    u *= 0xbf58476d1ce4e5b9ULL;
    u ^= u >> 32;
    return (size_t)(u % RP_CACHE);
}

static int rp_recall(ga_result d[2], int *st, const ga_pair *p, double e)
{
    int found = 0;
    pthread_mutex_lock(&rp_lock);
    const rp_entry *c = p->dcache ? ((const rp_cache *)p->dcache)->d + rp_slot(e) : NULL;
    if (c && c->used && c->e == e) {
        d[0] = c->d[0];
        d[1] = c->d[1];
        *st = c->st;
        found = 1;
    }
    pthread_mutex_unlock(&rp_lock);
    return found;
}

/* the pair's cache, allocated on first use (under the lock); NULL without memory */
static rp_cache *rp_cache_of(const ga_pair *p)
{
    ga_pair *w = (ga_pair *)p; /* (the cache only: what the pair computes is unchanged) */
    if (!w->dcache)
        w->dcache = calloc(1, sizeof(rp_cache));
    return w->dcache;
}

static void rp_store(const ga_pair *p, double e, const ga_result d[2], int st)
{
    pthread_mutex_lock(&rp_lock);
    rp_cache *c = rp_cache_of(p);
    if (c)
        c->d[rp_slot(e)] = (rp_entry){e, {d[0], d[1]}, st, 1};
    pthread_mutex_unlock(&rp_lock);
}

/* certified deltas at e to `digits` (found: 1) */
static int rp_recall_cert(ga_interval d[2], const ga_pair *p, double e, int digits)
{
    int found = 0;
    pthread_mutex_lock(&rp_lock);
    const rp_centry *c = p->dcache ? ((const rp_cache *)p->dcache)->c + rp_slot(e) : NULL;
    if (c && c->used && c->e == e && c->digits == digits) {
        d[0] = c->d[0];
        d[1] = c->d[1];
        found = 1;
    }
    pthread_mutex_unlock(&rp_lock);
    return found;
}

static void rp_store_cert(const ga_pair *p, double e, int digits, const ga_interval d[2])
{
    pthread_mutex_lock(&rp_lock);
    rp_cache *c = rp_cache_of(p);
    if (c)
        c->c[rp_slot(e)] = (rp_centry){e, {d[0], d[1]}, digits, 1};
    pthread_mutex_unlock(&rp_lock);
}

/* delta in both directions at e; a failure is kept in c->status */
static int rp_delta(ga_result d[2], rp_ctx *c, double e)
{
    int st;
    if (!rp_recall(d, &st, c->p, e)) {
        ga_delta out;
        st = ga_pair_delta(&out, c->p, e, GA_DELTA_AUTO, &c->o, c->w);
        d[0] = out.xy;
        d[1] = out.yx;
        rp_store(c->p, e, d, st);
    }
    if (st == GA_OK && !(isfinite(d[0].val) && isfinite(d[1].val) && isfinite(d[0].err) &&
                         isfinite(d[1].err)))
        st = GA_ETOL;
    if (st != GA_OK && c->status == GA_OK)
        c->status = st;
    return st;
}

/* direction dir's integrand e^{(alpha - 1) e} delta_dir + e^{-alpha e} delta_other, times
 * e^-shift, and its error */
static double rp_weighted(double *err, const rp_ctx *c, double e, const ga_result d[2])
{
    double wa = exp((c->alpha - 1) * e - c->shift), wb = exp(-c->alpha * e - c->shift);
    const ga_result *a = &d[c->dir], *b = &d[!c->dir];
    double va = a->val == 0 && a->err == 0 ? 0 : wa * a->val, ea = a->err == 0 ? 0 : wa * a->err;
    *err = ea + wb * b->err;
    return va + wb * b->val;
}

static double rp_f(double e, void *vc)
{
    rp_ctx *c = vc;
    ga_result d[2];
    double err;
    if (rp_delta(d, c, e) != GA_OK)
        return 0;
    double v = rp_weighted(&err, c, e, d);
    if (!isfinite(v) || !isfinite(err)) {
        if (c->status == GA_OK)
            c->status = GA_ETOL;
        return 0;
    }
    c->panel_err = fmax(c->panel_err, err);
    return v;
}

/* log int_e^t e^{a u} du, t > e, a > 0 */
static double rp_log_int_exp(double a, double e, double t)
{
    return a * t + log(-expm1(-a * (t - e))) - log(a);
}

/* log of a bound of int_e^inf e^{(alpha - 1) t} delta_dir(t) dt given delta_dir(e) <= dv:
 * delta <= dv up to a split point and <= e^{K(lam) - lam t} beyond it (Chernoff; see the top
 * comment), so the integral is at most dv (e^{a sp} - e^{a e}) / a + e^{K - x sp} / x (a =
 * alpha - 1, x = lam - a > 0), minimised over x on a grid with the split where the two bounds
 * meet; *lam, *sp: the choice (NaN: none). INFINITY: no bound. */
static double rp_tail_bound(double *lam, double *sp, const ga_pair *p, const pc_renyi_tails *tl,
                            int dir, double alpha, double e, double dv)
{
    double a = alpha - 1, ldv = log(dv), best = INFINITY;
    *lam = *sp = NAN;
    for (int k = 0; k <= 160; k++) {
        double x = ldexp(1, -30) * exp2(0.375 * k); /* 2^-30 .. 2^30 */
        double K = tl->cap(p, dir, a + x);
        if (!isfinite(K))
            continue;
        double t = fmax(e, (K - ldv) / (a + x));
        double p1 = t > e ? ldv + rp_log_int_exp(a, e, t) : -INFINITY;
        double v = ga_logaddexp(p1, K - x * t - log(x));
        if (v < best) {
            best = v;
            *lam = a + x;
            *sp = t;
        }
    }
    return best;
}

/* the log of the bound of the rest of direction dir's integral beyond e, from the deltas at e
 * (an underflowed delta counted as RP_TINY): the A part by rp_tail_bound and, below a finite
 * supremum, by delta(e) int_e^sup e^{(alpha - 1) t} dt (delta nonincreasing); the B part by
 * delta_other(e) e^{-alpha e} / alpha; nothing beyond a supremum */
static double rp_tail(const rp_ctx *c, double e, const ga_result d[2])
{
    double lam, t, am1 = c->alpha - 1, sup = c->tl->sup(c->p, c->dir), ta = -INFINITY;
    const ga_result *x = &d[c->dir], *b = &d[!c->dir];
    if (e < sup) {
        double dv = fmax(x->val + x->err, x->val < RP_TINY ? RP_TINY : 0);
        ta = rp_tail_bound(&lam, &t, c->p, c->tl, c->dir, c->alpha, e, dv);
        if (isfinite(sup))
            ta = fmin(ta, log(dv) + rp_log_int_exp(am1, e, sup));
    }
    double tb = e >= c->tl->sup(c->p, !c->dir) ? -INFINITY
                                              : log(b->val + b->err) - c->alpha * e - log(c->alpha);
    return ga_logaddexp(ta, tb);
}

/* s = 2^j, the first with max(delta(s)) <= d0/2 from 1 up or down */
static int rp_scale(double *s, rp_ctx *c, double d0)
{
    ga_result d[2];
    int j = 0;
    if (rp_delta(d, c, 1) != GA_OK)
        return c->status;
    if (fmax(d[0].val, d[1].val) > d0 / 2) {
        for (; j < 60; j++) {
            if (rp_delta(d, c, ldexp(1, j + 1)) != GA_OK)
                return c->status;
            if (fmax(d[0].val, d[1].val) <= d0 / 2) {
                j++;
                break;
            }
        }
    } else {
        for (; j > -40; j--) {
            if (rp_delta(d, c, ldexp(1, j - 1)) != GA_OK)
                return c->status;
            if (fmax(d[0].val, d[1].val) > d0 / 2)
                break;
        }
    }
    *s = ldexp(1, j);
    return GA_OK;
}

/* one direction: I (in units e^S) with its error over the panels; *end, the last panel's end */
static int rp_direction(ga_result *D, double *end, rp_ctx *c, double s, ga_quad_work *qw)
{
    double Iv = 0, err = 0, S = -INFINITY, a = 0, b = s, al = c->alpha;
    ga_result da[2], db[2];
    if (rp_delta(da, c, 0) != GA_OK)
        return c->status;
    int k, done = 0;
    for (k = 0; k < RP_MAX_PANELS && !done; k++, a = b, b *= 2, da[0] = db[0], da[1] = db[1]) {
        if (rp_delta(db, c, b) != GA_OK)
            return c->status;
        /* a bound of the integrand on [a, b] (delta nonincreasing): the panel's scale */
        const ga_result *x = &da[c->dir], *y = &da[!c->dir];
        double Sk = ga_logaddexp((al - 1) * b + log(x->val + x->err),
                                 -al * a + log(y->val + y->err));
        if (Sk > -INFINITY) {
            c->shift = Sk;
            c->panel_err = 0;
            ga_result r;
            double absint = 0;
            size_t ev = 0;
            ga_quad_gk(&r, &absint, &ev, rp_f, c, a, b, 0, RP_REL, 20000, qw);
            if (c->status != GA_OK)
                return c->status;
            double pe = r.err + (b - a) * c->panel_err + 16 * DBL_EPSILON * absint;
            /* an underflowed delta inside the panel: what it may have missed */
            if (db[c->dir].val < RP_TINY && b < c->tl->sup(c->p, c->dir))
                pe += (b - a) * RP_TINY * exp((al - 1) * b - Sk);
            if (Sk > S) { /* to the larger scale */
                Iv *= exp(S - Sk);
                err *= exp(S - Sk);
                S = Sk;
            }
            Iv += r.val * exp(Sk - S);
            err += pe * exp(Sk - S);
        }
        double T = rp_tail(c, b, db);
        /* (below a finite supremum the bound of rp_tail covers an underflowed delta) */
        const ga_result *z = &db[c->dir];
        int under = (z->val < RP_TINY || z->err > RP_LOST * z->val) && isinf(c->tl->sup(c->p, c->dir));
        if (T == -INFINITY || (S > -INFINITY && T - S <= log(RP_NEGLIGIBLE * Iv)) || under ||
            k == RP_MAX_PANELS - 1) {
            if (T > -INFINITY)
                err += S > -INFINITY ? exp(T - S) : INFINITY;
            done = 1;
        }
    }
    *end = a; /* (the last panel's end: the loop moved a to it) */
    double am1 = al - 1;
    if (Iv <= 0 || S == -INFINITY) { /* identical laws to the double's accuracy */
        D->val = 0;
        D->err = S == -INFINITY ? 0 : al * err * exp(S);
        return GA_OK;
    }
    double lx = log(al * am1) + log(Iv) + S; /* log X, X = alpha (alpha - 1) Iv e^S */
    D->val = (lx > 0 ? lx + log1p(exp(-lx)) : log1p(exp(lx))) / am1;
    D->err = err / Iv / (1 + exp(-lx)) / am1 + 8 * DBL_EPSILON * fabs(D->val);
    return isfinite(D->val) ? GA_OK : GA_ETOL;
}

/* the plan both routes share: the scale s and each direction's estimate and end */
static int rp_plan(ga_result D[2], double end[2], double *s, const ga_pair *p, double alpha,
                   const pc_renyi_tails *tl)
{
    rp_ctx c = {.p = p, .tl = tl, .alpha = alpha};
    D[0] = D[1] = (ga_result){NAN, INFINITY};
    end[0] = end[1] = 0;
    *s = 1;
    ga_gchisq_opts_init(&c.o);
    ga_quad_work *qw = calloc(1, sizeof *qw);
    c.w = ga_gchisq_work_alloc();
    int rc = GA_ENOMEM;
    if (!qw || !c.w)
        goto cleanup;
    ga_result d0[2];
    if ((rc = rp_delta(d0, &c, 0)) != GA_OK)
        goto cleanup;
    double top = fmax(d0[0].val, d0[1].val);
    if (top <= 0 && d0[0].err == 0 && d0[1].err == 0) { /* identical laws */
        D[0] = D[1] = (ga_result){0, 0};
        goto cleanup;
    }
    if ((rc = rp_scale(s, &c, top)) != GA_OK)
        goto cleanup;
    for (int dir = 0; dir < 2 && rc == GA_OK; dir++) {
        c.dir = dir;
        if (tl->infinite && tl->infinite(p, dir, alpha) != 0) {
            D[dir] = (ga_result){INFINITY, 0};
            end[dir] = 0;
            continue;
        }
        rc = rp_direction(&D[dir], &end[dir], &c, *s, qw);
    }
cleanup:
    free(qw);
    ga_gchisq_work_free(c.w);
    return rc;
}

int pc_renyi_profile(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha,
                     const pc_renyi_tails *tl)
{
    ga_result D[2] = {{NAN, INFINITY}, {NAN, INFINITY}};
    double end[2], s;
    int rc = rp_plan(D, end, &s, p, alpha, tl);
    *xy = D[0];
    *yx = D[1];
    if (rc != GA_OK)
        return rc;
    for (int k = 0; k < 2; k++)
        if (isfinite(D[k].val) && D[k].err > RP_ACCEPT * fmax(D[k].val, 1e-300))
            return GA_ETOL;
    return GA_OK;
}

/* ---------------------------------------------------------------- certified */

/* The certified grid's end: the first of the first grid's points (RP_SPLIT per panel [s 2^k,
 * s 2^{k+1}], up to E) where, in both directions, the double bound of what lies beyond
 * (rp_tail) is at most RP_TAIL_SHARE of the width asked for, or where both deltas fall below
 * RP_FAR */
static double rp_cert_end(const ga_pair *p, const pc_renyi_tails *tl, double alpha, double s,
                          double E, const ga_result De[2], double target)
{
    rp_ctx c = {.p = p, .tl = tl, .alpha = alpha};
    ga_gchisq_opts_init(&c.o);
    if (!(c.w = ga_gchisq_work_alloc()))
        return E;
    double b = s / RP_SPLIT, a = 0, w = s; /* b = a + w j / RP_SPLIT in the panel [a, a + w] */
    for (int j = 1; b < E; b = a + w * ++j / RP_SPLIT) {
        if (j > RP_SPLIT) {
            a += w;
            w = a;
            j = 1;
            b = a + w / RP_SPLIT;
        }
        ga_result d[2];
        if (rp_delta(d, &c, b) != GA_OK)
            break;
        int ok = 1;
        for (int dir = 0; dir < 2; dir++) {
            if (!isfinite(De[dir].val))
                continue;
            c.dir = dir;
            double Iv = expm1((alpha - 1) * De[dir].val) / (alpha * (alpha - 1));
            ok &= rp_tail(&c, b, d) <= log(RP_TAIL_SHARE * target * Iv);
        }
        if (ok || fmax(d[0].val, d[1].val) < RP_FAR)
            break;
    }
    ga_gchisq_work_free(c.w);
    return fmin(b, E);
}

typedef struct {
    double e;       /* an exact dyadic eps */
    ga_interval d[2]; /* certified delta_XY, delta_YX at it */
} rp_node;

static int rp_node_cmp(const void *a, const void *b)
{
    double x = ((const rp_node *)a)->e, y = ((const rp_node *)b)->e;
    return (x > y) - (x < y);
}

static int rp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* certified deltas at the nodes without them (from index `from`) */
static int rp_eval(rp_node *nd, size_t from, size_t n, const ga_pair *p, const ga_pair_input *in,
                   const ga_pair_text *txt, const ga_cert_opts *o)
{
    for (size_t i = from; i < n; i++) {
        if (rp_recall_cert(nd[i].d, p, nd[i].e, o->digits))
            continue;
        char t[128];
        snprintf(t, sizeof t, "%.80e", nd[i].e); /* (a dyadic of few bits: exact) */
        ga_delta_cert dc;
        int st = ga_pair_delta_cert(&dc, p, in, txt, t, o);
        if (st != GA_OK && st != GA_EPREC)
            return st;
        nd[i].d[0] = dc.xy;
        nd[i].d[1] = dc.yx;
        rp_store_cert(p, nd[i].e, o->digits, nd[i].d);
    }
    return GA_OK;
}

static void rp_ball(arb_t b, const ga_interval *iv, slong prec)
{
    arf_t lo, hi;
    arf_init(lo);
    arf_init(hi);
    arf_set_d(lo, fmax(iv->lo, 0));
    arf_set_d(hi, iv->hi);
    arb_set_interval_arf(b, lo, hi, prec);
    arf_clear(lo);
    arf_clear(hi);
}

static double rp_lower(const arb_t v)
{
    ga_interval iv;
    ga_arb_bounds(&iv, v);
    return iv.lo;
}

static double rp_upper(const arb_t v)
{
    ga_interval iv;
    ga_arb_bounds(&iv, v);
    return iv.hi;
}

/* integral of w against the line through (xa, ya), (xb, yb) over a cell with moments M0 = int
 * w, M1 = int g w */
static void rp_line(arb_t res, const arb_t M0, const arb_t M1, const arb_t xa, const arb_t ya,
                    const arb_t xb, const arb_t yb, slong prec)
{
    arb_t t, u;
    arb_init(t);
    arb_init(u);
    arb_mul(t, xa, M0, prec);
    arb_sub(t, M1, t, prec); /* int (g - xa) w */
    arb_sub(u, yb, ya, prec);
    arb_mul(t, t, u, prec);
    arb_sub(u, xb, xa, prec);
    arb_div(t, t, u, prec);
    arb_mul(u, ya, M0, prec);
    arb_add(res, u, t, prec);
    arb_clear(t);
    arb_clear(u);
}

/* The brackets of the four integrals (k = 2 part + dir: part 0 the A weight g^{alpha-2}, 1 the
 * B weight g^{-1-alpha}; dir the delta integrated) summed over the cells: lo[k], hi[k]
 * (without tails), and each cell's width summed over k in cw (relative to scale[k]). */
static void rp_brackets(double lo[4], double hi[4], double *cw, const rp_node *nd, size_t n,
                        const arb_t alpha, const double scale[4], slong prec)
{
    arb_ptr g = _arb_vec_init((slong)n), y = _arb_vec_init(2 * (slong)n);
    arb_ptr pw = _arb_vec_init(4 * (slong)n); /* g^{alpha-1}, g^alpha, g^-alpha, g^{1-alpha} */
    arb_t am1, M0, M1, t, u, v, L[4], H[4];
    arb_init(am1);
    arb_init(M0);
    arb_init(M1);
    arb_init(t);
    arb_init(u);
    arb_init(v);
    for (int k = 0; k < 4; k++) {
        arb_init(L[k]);
        arb_init(H[k]);
    }
    arb_sub_ui(am1, alpha, 1, prec);
    for (size_t i = 0; i < n; i++) {
        arb_set_d(t, nd[i].e);
        arb_exp(g + i, t, prec);
        arb_mul(u, t, am1, prec);
        arb_exp(pw + 4 * i, u, prec);
        arb_mul(u, t, alpha, prec);
        arb_exp(pw + 4 * i + 1, u, prec);
        arb_neg(u, u);
        arb_exp(pw + 4 * i + 2, u, prec);
        arb_mul(u, t, am1, prec);
        arb_neg(u, u);
        arb_exp(pw + 4 * i + 3, u, prec);
        rp_ball(y + 2 * i, &nd[i].d[0], prec);
        rp_ball(y + 2 * i + 1, &nd[i].d[1], prec);
    }
    for (size_t i = 0; i + 1 < n; i++) {
        cw[i] = 0;
        for (int part = 0; part < 2; part++) {
            arb_srcptr a = pw + 4 * i, b = pw + 4 * (i + 1);
            if (part == 0) { /* int g^{alpha-2} = g^{alpha-1}/(alpha-1), int g^{alpha-1} = g^alpha/alpha */
                arb_sub(M0, b, a, prec);
                arb_div(M0, M0, am1, prec);
                arb_sub(M1, b + 1, a + 1, prec);
                arb_div(M1, M1, alpha, prec);
            } else { /* int g^{-1-alpha} = -g^-alpha/alpha, int g^-alpha = -g^{1-alpha}/(alpha-1) */
                arb_sub(M0, a + 2, b + 2, prec);
                arb_div(M0, M0, alpha, prec);
                arb_sub(M1, a + 3, b + 3, prec);
                arb_div(M1, M1, am1, prec);
            }
            for (int dir = 0; dir < 2; dir++) {
                int k = 2 * part + dir;
                arb_srcptr y0 = y + 2 * i + dir, y1 = y + 2 * (i + 1) + dir;
                /* above: the chord */
                rp_line(v, M0, M1, g + i, y0, g + i + 1, y1, prec);
                double up = fmax(rp_upper(v), 0);
                /* below: the value at the right end, and the neighbours' chords extended */
                arb_mul(t, y1, M0, prec);
                double dn = fmax(0, rp_lower(t));
                if (i >= 1) {
                    rp_line(t, M0, M1, g + i - 1, y + 2 * (i - 1) + dir, g + i, y0, prec);
                    dn = fmax(dn, rp_lower(t));
                }
                if (i + 2 < n) {
                    rp_line(t, M0, M1, g + i + 1, y1, g + i + 2, y + 2 * (i + 2) + dir, prec);
                    dn = fmax(dn, rp_lower(t));
                }
                dn = fmin(dn, up); /* (both bound one integral) */
                arb_set_d(t, dn);
                arb_add(L[k], L[k], t, prec);
                arb_set_d(t, up);
                arb_add(H[k], H[k], t, prec);
                cw[i] += scale[k] > 0 ? (up - dn) / scale[k] : 0;
            }
        }
    }
    for (int k = 0; k < 4; k++) {
        lo[k] = rp_lower(L[k]);
        hi[k] = rp_upper(H[k]);
        arb_clear(L[k]);
        arb_clear(H[k]);
    }
    arb_clear(am1);
    arb_clear(M0);
    arb_clear(M1);
    arb_clear(t);
    arb_clear(u);
    arb_clear(v);
    _arb_vec_clear(g, (slong)n);
    _arb_vec_clear(y, 2 * (slong)n);
    _arb_vec_clear(pw, 4 * (slong)n);
}

/* upper bounds of the tails beyond the last node E: tail[k] as the brackets' k */
static void rp_tails(double tail[4], const rp_node *last, const ga_pair *p,
                     const pc_renyi_tails *tl, const arb_t alpha, double alpha_d, slong prec)
{
    arb_t E, x, K, t;
    arb_init(E);
    arb_init(x);
    arb_init(K);
    arb_init(t);
    arb_set_d(E, last->e);
    for (int dir = 0; dir < 2; dir++) {
        /* A: zero when delta(E) is certainly 0, else rp_tail_bound at the double's choice of
         * lam and split point sp (any choice is a bound) */
        double lam, sp, D = last->d[dir].hi;
        tail[dir] = INFINITY;
        if (D == 0) {
            tail[dir] = 0;
        } else if (isfinite(rp_tail_bound(&lam, &sp, p, tl, dir, alpha_d, last->e, D))) {
            arb_t a, S, v;
            arb_init(a);
            arb_init(S);
            arb_init(v);
            arb_sub_ui(a, alpha, 1, prec);
            arb_set_d(t, lam);
            arb_sub(x, t, a, prec); /* lam - alpha + 1 */
            if (arb_is_positive(x) && tl->cap_arb(K, p, dir, t, prec) == GA_OK) {
                arb_set_d(S, sp);
                arb_mul(t, x, S, prec);
                arb_sub(K, K, t, prec);
                arb_exp(K, K, prec);
                arb_div(K, K, x, prec); /* e^{K - x sp} / x */
                if (sp > last->e) { /* + D (e^{a sp} - e^{a E}) / a */
                    arb_mul(v, a, S, prec);
                    arb_exp(v, v, prec);
                    arb_mul(t, a, E, prec);
                    arb_exp(t, t, prec);
                    arb_sub(v, v, t, prec);
                    arb_div(v, v, a, prec);
                    arb_set_d(t, D);
                    arb_mul(v, v, t, prec);
                    arb_add(K, K, v, prec);
                }
                tail[dir] = rp_upper(K);
            }
            arb_clear(a);
            arb_clear(S);
            arb_clear(v);
        }
        /* B: delta(E) e^{-alpha E} / alpha */
        arb_mul(t, alpha, E, prec);
        arb_neg(t, t);
        arb_exp(t, t, prec);
        arb_div(t, t, alpha, prec);
        arb_set_d(K, last->d[dir].hi);
        arb_mul(t, t, K, prec);
        tail[2 + dir] = last->d[dir].hi == 0 ? 0 : rp_upper(t);
    }
    arb_clear(E);
    arb_clear(x);
    arb_clear(K);
    arb_clear(t);
}

/* D = log1p(alpha (alpha - 1) I) / (alpha - 1) at the ends of I's bracket, outward */
static void rp_divergence(ga_interval *D, double Ilo, double Ihi, const arb_t alpha, slong prec)
{
    arb_t c, v;
    arb_init(c);
    arb_init(v);
    arb_sub_ui(c, alpha, 1, prec);
    for (int end = 0; end < 2; end++) {
        double Iv = end ? Ihi : Ilo;
        if (!isfinite(Iv)) {
            D->hi = INFINITY;
            continue;
        }
        arb_set_d(v, fmax(Iv, 0));
        arb_mul(v, v, alpha, prec);
        arb_mul(v, v, c, prec);
        arb_log1p(v, v, prec);
        arb_div(v, v, c, prec);
        if (end)
            D->hi = rp_upper(v);
        else
            D->lo = fmax(0, rp_lower(v));
    }
    arb_clear(c);
    arb_clear(v);
}

int pc_renyi_profile_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                          const ga_pair_input *in, const ga_pair_text *txt, const char *alpha_txt,
                          const pc_renyi_tails *tl, const ga_cert_opts *o)
{
    xy->lo = yx->lo = 0;
    xy->hi = yx->hi = INFINITY;
    double alpha_d;
    if (ga_decimal_to_double(&alpha_d, alpha_txt) || !(alpha_d > 1))
        return GA_EINVAL;
    slong prec = RP_PREC;
    arb_t alpha;
    arb_init(alpha);
    rp_node *nd = NULL;
    double *cw = NULL;
    int rc = GA_OK, fin[2] = {1, 1};
    if (arb_set_str(alpha, alpha_txt, prec)) {
        rc = GA_EINVAL;
        goto cleanup;
    }
    for (int dir = 0; dir < 2 && tl->infinite_arb; dir++) {
        int inf = tl->infinite_arb(p, dir, alpha, prec);
        if (inf < 0) { /* undecided at the boundary */
            rc = GA_EPREC;
            goto cleanup;
        }
        fin[dir] = !inf;
    }
    ga_result De[2];
    double end[2], s;
    if ((rc = rp_plan(De, end, &s, p, alpha_d, tl)) != GA_OK && rc != GA_ETOL)
        goto cleanup;
    rc = GA_OK;
    /* the deltas to a digit beyond the width asked for (more would cost far out, where
     * delta is tiny and its certified value needs many bits) */
    double target = fmax(pow(10, -o->digits), RP_FLOOR);
    ga_cert_opts od = *o;
    od.digits = (int)ceil(-log10(target)) + 1;
    double E = rp_cert_end(p, tl, alpha_d, s, fmax(fin[0] ? end[0] : 0, fin[1] ? end[1] : 0),
                           De, target);
    /* the first grid: RP_SPLIT cells in [0, s] and in each panel [s 2^k, s 2^{k+1}] up to E */
    size_t n = 0, cap = tl->nodes > RP_SPLIT + 2 ? tl->nodes : RP_SPLIT + 2;
    if (!(nd = malloc(cap * sizeof *nd)) || !(cw = malloc(cap * sizeof *cw))) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    nd[n++].e = 0;
    for (double a = 0, b = s; a < E && n + RP_SPLIT < cap; a = b, b *= 2)
        for (int j = 1; j <= RP_SPLIT && a + (b - a) * j / RP_SPLIT <= E; j++)
            nd[n++].e = a + (b - a) * j / RP_SPLIT;
    size_t done = 0;
    for (;;) {
        if ((rc = rp_eval(nd, done, n, p, in, txt, &od)) != GA_OK)
            break;
        qsort(nd, n, sizeof *nd, rp_node_cmp);
        done = n;
        double lo[4], hi[4], tail[4], scale[4];
        for (int k = 0; k < 4; k++) /* (the A and B parts of each direction's integral) */
        { /* k = 2 + dir is the B part of the other direction's integral */
            const ga_result *e = &De[k < 2 ? k : 3 - k];
            scale[k] = isfinite(e->val) ? expm1((alpha_d - 1) * e->val) / (alpha_d * (alpha_d - 1)) : 1;
        }
        rp_brackets(lo, hi, cw, nd, n, alpha, scale, prec);
        rp_tails(tail, &nd[n - 1], p, tl, alpha, alpha_d, prec);
        ga_interval D[2];
        int ok = 1;
        for (int dir = 0; dir < 2; dir++) {
            if (!fin[dir]) {
                D[dir] = (ga_interval){INFINITY, INFINITY};
                continue;
            }
            /* I_dir = A(delta_dir) + B(delta_other) */
            double Ilo = lo[dir] + lo[2 + !dir], Ihi = hi[dir] + hi[2 + !dir] + tail[dir] + tail[2 + !dir];
            Ilo = nextafter(nextafter(Ilo, 0), 0); /* (the double sums, outward) */
            Ihi = nextafter(nextafter(Ihi, INFINITY), INFINITY);
            rp_divergence(&D[dir], Ilo, Ihi, alpha, prec);
            ok &= D[dir].hi - D[dir].lo <= target * D[dir].hi;
        }
        *xy = D[0];
        *yx = D[1];
        if (ok)
            break;
        if (n >= cap - 1) {
            rc = GA_EPREC;
            break;
        }
        if (o->deadline > 0 && ga_monotonic() > o->deadline) {
            rc = GA_ETIME;
            break;
        }
        /* bisect the widest quarter of the cells (dyadic midpoints: exact) */
        double *sorted = n > 1 ? malloc((n - 1) * sizeof *sorted) : NULL;
        if (!sorted) {
            rc = n > 1 ? GA_ENOMEM : GA_EPREC;
            break;
        }
        memcpy(sorted, cw, (n - 1) * sizeof *sorted);
        qsort(sorted, n - 1, sizeof *sorted, rp_desc);
        double thr = sorted[(n - 1) / 4];
        free(sorted);
        size_t m = n;
        for (size_t i = 0; i + 1 < n && m < cap; i++) {
            double mid = 0.5 * (nd[i].e + nd[i + 1].e);
            if (cw[i] >= thr && cw[i] > 0 && mid > nd[i].e && mid < nd[i + 1].e)
                nd[m++].e = mid;
        }
        if (m == n) {
            rc = GA_EPREC;
            break;
        }
        n = m;
    }
cleanup:
    free(nd);
    free(cw);
    arb_clear(alpha);
    return rc;
}

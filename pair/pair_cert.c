/*
 * pair_cert.c - certified delta, epsilon and Renyi divergences of a pair, whatever its
 * variant: the Gaussian pair (cert_gauss.c, whose top comment states the method), products
 * of blocks, and the pairs whose loss is one-dimensional (cert_loss.c). Epsilon is bracketed
 * between certified deltas; Renyi divergences of Gaussian pairs are closed forms in exact
 * balls, of subsampled pairs certified trapezoid sums (pair/ploss_cert.c).
 */
#include "pair/cert_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ga_pair_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                       const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    if (!ga_cert_available(NULL)) {
        memset(out, 0, sizeof *out);
        out->xy.hi = out->yx.hi = 1;
        strcpy(out->xy_lo, "0");
        strcpy(out->yx_lo, "0");
        strcpy(out->xy_hi, "1");
        strcpy(out->yx_hi, "1");
        return GA_EDEP;
    }
    if (p->ploss) {
        memset(out, 0, sizeof *out);
        out->xy.hi = out->yx.hi = 1;
        strcpy(out->xy_lo, "0");
        strcpy(out->yx_lo, "0");
        strcpy(out->xy_hi, "1");
        strcpy(out->yx_hi, "1");
        return pc_delta_cert_subsampled(out, p, eps, opts);
    }
    if (!p->swapped)
        return pc_delta_cert(out, p, in, txt, eps, opts);
    /* the reduction whitened by X: certify the pair (Y, X) it describes, swap the answers */
    ga_pair_input in2;
    ga_pair_text t2;
    const ga_pair_text *tp;
    pc_swap_input(&in2, &t2, &tp, in, txt);
    int rc = pc_delta_cert(out, p, &in2, tp, eps, opts);
    ga_interval iv = out->xy;
    out->xy = out->yx;
    out->yx = iv;
    char s[sizeof out->xy_lo];
    memcpy(s, out->xy_lo, sizeof s);
    memcpy(out->xy_lo, out->yx_lo, sizeof s);
    memcpy(out->yx_lo, s, sizeof s);
    memcpy(s, out->xy_hi, sizeof s);
    memcpy(out->xy_hi, out->yx_hi, sizeof s);
    memcpy(out->yx_hi, s, sizeof s);
    double b = out->la_bound_xy;
    out->la_bound_xy = out->la_bound_yx;
    out->la_bound_yx = b;
    return rc;
}

/* certified max(delta_xy, delta_yx) at eps (double, printed exactly): upper and lower ends */
static int cert_at(double eps, const ga_pair *p, const ga_pair_input *in, const ga_pair_text *txt,
                   const ga_cert_opts *o, ga_delta_cert *c)
{
    char es[64];
    snprintf(es, sizeof es, "%.17g", eps);
    return ga_pair_delta_cert(c, p, in, txt, es, o);
}

/* Where no bracket around the estimate could be certified: [0, the smallest certified
 * RDP conversion] (Mironov 2017, Prop. 3: a pair with D_alpha <= rho in both directions is
 * (rho + log(1/delta)/(alpha - 1), delta)-DP), over a few orders, each bound rounded up. A
 * valid bracket, wide where the orders are coarse. GA_OK (eps->hi finite) or GA_EDOM. */
static int rdp_bracket(ga_interval *eps, const ga_pair *p, const ga_pair_input *in,
                       const ga_pair_text *txt, const char *delta, const ga_cert_opts *o)
{
    static const char *const orders[] = {"1.5", "2", "3", "5", "8", "12", "20", "32", "64", "128"};
    double best = INFINITY;
    arb_t d, a, v;
    arb_init(d);
    arb_init(a);
    arb_init(v);
    arb_set_str(d, delta, PARSE_PREC);
    arb_log(d, d, 128);
    arb_neg(d, d); /* log(1/delta) */
    for (size_t k = 0; k < sizeof orders / sizeof *orders && !ga_expired(o->deadline); k++) {
        ga_interval cx, cy;
        int st = ga_pair_renyi_cert(&cx, &cy, p, in, txt, orders[k], o);
        double D = fmax(cx.hi, cy.hi);
        if ((st != GA_OK && st != GA_EPREC) || !isfinite(D))
            continue;
        arb_set_str(a, orders[k], 64);
        arb_sub_ui(a, a, 1, 64);
        arb_div(v, d, a, 128);
        arb_set_d(a, D);
        arb_add(v, v, a, 128);
        ga_interval iv;
        ga_arb_bounds(&iv, v);
        best = fmin(best, iv.hi);
    }
    arb_clear(d);
    arb_clear(a);
    arb_clear(v);
    if (!isfinite(best))
        return GA_EDOM;
    eps->lo = 0;
    eps->hi = best;
    return GA_OK;
}

int ga_pair_epsilon_cert(ga_interval *eps, int *direction, const ga_pair *p,
                         const ga_pair_input *in, const ga_pair_text *txt, const char *delta,
                         const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    eps->lo = 0;
    eps->hi = INFINITY;
    *direction = 0;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    double target;
    if (ga_decimal_to_double(&target, delta) || !(target > 0 && target < 1))
        return GA_EINVAL;
    if (p->support == GA_SUPPORT_DIFFER)
        return GA_EDOM;
    /* compare certified bounds with the exact decimal target */
    arb_t t;
    arb_init(t);
    arb_set_str(t, delta, PARSE_PREC);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_result er;
    ga_gchisq_opts go;
    ga_gchisq_opts_init(&go);
    go.deadline = o.deadline;
    int rc = w ? ga_pair_epsilon(&er, direction, p, target, &go, w) : GA_ENOMEM;
    ga_gchisq_work_free(w);
    if (rc != GA_OK && rc != GA_ETOL) {
        if (rc != GA_ENOMEM && rc != GA_ETIME && rdp_bracket(eps, p, in, txt, delta, &o) == GA_OK)
            rc = GA_EPREC;
        goto cleanup;
    }
    rc = GA_EPREC;
    double x = er.val, h = fmax(1e-12 * x, 1e-14) + 2 * er.err;
    for (int it = 0; it < 12; it++, h *= 8) {
        double hi = x + h, lo = x - h;
        ga_delta_cert c;
        if (ga_expired(o.deadline)) {
            rc = GA_ETIME;
            break;
        }
        /* upper end: both directions certified <= target */
        if (cert_at(hi, p, in, txt, &o, &c) != GA_OK)
            continue;
        arb_t b;
        arb_init(b);
        arb_set_d(b, fmax(c.xy.hi, c.yx.hi)); /* outward double bounds */
        int ok_hi = arb_le(b, t);
        int ok_lo = 1;
        if (lo > 0 && ok_hi) {
            /* lower end: some direction certified > target */
            if (cert_at(lo, p, in, txt, &o, &c) != GA_OK) {
                arb_clear(b);
                continue;
            }
            arb_set_d(b, fmax(c.xy.lo, c.yx.lo));
            ok_lo = arb_gt(b, t);
            *direction = c.xy.lo >= c.yx.lo ? 1 : 2;
        } else if (lo <= 0) {
            lo = 0; /* [0, hi]: the claim eps = 0 may already hold */
        }
        arb_clear(b);
        if (ok_hi && ok_lo) {
            eps->lo = lo;
            eps->hi = hi;
            rc = GA_OK;
            break;
        }
    }
    if (rc == GA_EPREC) /* no bracket around the estimate: at least a certified upper end */
        rdp_bracket(eps, p, in, txt, delta, &o);
cleanup:
    arb_clear(t);
    return rc;
}

/* both directions of the certified Renyi divergence, each until accurate enough */
typedef struct {
    arb_mat_struct *Sx, *Sy, *dm, *dmn;
    arb_srcptr alpha;
    arb_ptr res;
    double r;
    slong want;
    ga_interval *xy, *yx;
    int done[2];
} renyi_ctx;

static int renyi_step(void *vc, slong prec)
{
    renyi_ctx *c = vc;
    for (int dir = 0; dir < 2; dir++) {
        if (c->done[dir])
            continue;
        ga_interval *iv = dir ? c->yx : c->xy;
        int s = dir ? pc_renyi_ball(c->res, c->Sy, c->Sx, c->dmn, c->alpha, c->r, prec)
                    : pc_renyi_ball(c->res, c->Sx, c->Sy, c->dm, c->alpha, c->r, prec);
        if (s == 1) {
            iv->lo = iv->hi = INFINITY;
        } else if (s == 0) {
            ga_arb_bounds(iv, c->res);
            if (arb_rel_accuracy_bits(c->res) < c->want && !arb_contains_zero(c->res))
                continue; /* too wide: more precision */
        } else {
            continue;
        }
        c->done[dir] = 1;
    }
    return c->done[0] && c->done[1] ? GA_OK : GA_EPREC;
}

/* a product's divergences are the sums of its blocks': the enclosures are summed with the
 * rounding of the double sums bounded (n terms: relative (n + 1) eps, the terms >= 0) */
static int renyi_cert_product(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                              const ga_pair_input *in, const ga_pair_text *txt,
                              const char *alpha_txt, const ga_cert_opts *opts)
{
    double lx = 0, hx = 0, ly = 0, hy = 0;
    int rc = GA_OK;
    for (size_t b = 0; b < p->nblocks; b++) {
        ga_interval bx, by;
        int st = ga_pair_renyi_cert(&bx, &by, p->blocks[b], in + b, txt ? txt + b : NULL,
                                    alpha_txt, opts);
        if (st != GA_OK && st != GA_EPREC && st != GA_ETIME)
            return st;
        if (st != GA_OK && rc == GA_OK)
            rc = st;
        lx += fmax(bx.lo, 0);
        hx += bx.hi;
        ly += fmax(by.lo, 0);
        hy += by.hi;
    }
    double f = (double)(p->nblocks + 1) * DBL_EPSILON;
    xy->lo = lx * (1 - f);
    yx->lo = ly * (1 - f);
    xy->hi = hx * (1 + f);
    yx->hi = hy * (1 + f);
    return rc;
}

/* Subsampled pairs: the composition's K at alpha - 1 (and -alpha) in ball arithmetic, the
 * trapezoid designs sized for the digits asked (pair/ploss_cert.c) */
typedef struct {
    const ga_pair *p;
    arb_t alpha, xy, yx;
    slong want, best[2];
    int stalls[2];
    double lnrel;
} rsub_ctx;

static int rsub_step(void *vc, slong prec)
{
    rsub_ctx *c = vc;
    const ga_ploss *L = c->p->ploss;
    slong n = (slong)L->n;
    arb_ptr q = _arb_vec_init(n), m = _arb_vec_init(n);
    int rc = GA_OK, acc = 1, stalled = 1;
    for (slong j = 0; j < n && rc == GA_OK; j++)
        rc = pc_sub_params(q + j, m + j, c->p, (size_t)j, prec);
    for (int dir = 0; rc == GA_OK && dir < 2; dir++) {
        arb_t v;
        arb_init(v);
        int st = ga_ploss_renyi_arb(v, L, q, m, dir, c->alpha, c->lnrel, prec);
        arb_ptr dst = dir ? c->yx : c->xy;
        if (st == GA_OK && (!arb_is_finite(dst) || arb_rel_accuracy_bits(v) > arb_rel_accuracy_bits(dst)))
            arb_set(dst, v);
        else if (st != GA_OK && st != GA_EPREC)
            rc = st;
        acc &= arb_rel_accuracy_bits(dst) >= c->want || arb_is_zero(dst);
        stalled &= ga_arb_stalled(&c->best[dir], &c->stalls[dir], v);
        arb_clear(v);
    }
    _arb_vec_clear(q, n);
    _arb_vec_clear(m, n);
    if (rc != GA_OK)
        return rc;
    return acc ? GA_OK : stalled ? GA_ARB_STALLED : GA_EPREC;
}

/* Certified D_alpha at large alpha (above 1e4, where the designs would need about alpha
 * nodes): the closed-form bracket of each step (pair/ploss.c, renyi_bracket), in ball
 * arithmetic from the exact q, sigma and norm: alpha m^2/2 + alpha/(alpha - 1) log q <=
 * D_alpha(M || Q) <= alpha m^2/2 and 0 <= D_alpha(Q || M) <= -log(1 - q), times each step's
 * count. GA_EPREC (a valid bracket, wider than asked) or GA_EINVAL. */
static int renyi_bracket_arb(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                             const char *alpha_txt)
{
    const ga_ploss *L = p->ploss;
    slong prec = 128;
    arb_t a, q, m, g, t, lo[2], hi[2];
    arb_init(a);
    arb_init(q);
    arb_init(m);
    arb_init(g);
    arb_init(t);
    for (int d = 0; d < 2; d++) {
        arb_init(lo[d]);
        arb_init(hi[d]);
    }
    int rc = arb_set_str(a, alpha_txt, PARSE_PREC) ? GA_EINVAL : GA_EPREC;
    for (size_t j = 0; j < L->n && rc == GA_EPREC; j++) {
        if (pc_sub_params(q, m, p, j, prec)) {
            rc = GA_EINVAL;
            break;
        }
        arb_mul(g, m, m, prec); /* g = alpha m^2 / 2 */
        arb_mul(g, g, a, prec);
        arb_mul_2exp_si(g, g, -1);
        for (int d = 0; d < 2; d++) {
            arb_t c;
            arb_init(c);
            arb_set_d(c, L->t[j].count);
            if (arb_is_one(q) || !(L->t[j].add ^ d)) {
                arb_mul(t, c, g, prec);
                arb_add(hi[d], hi[d], t, prec);
                if (!arb_is_one(q)) { /* + alpha/(alpha - 1) log q, at least 0 */
                    arb_log(t, q, prec);
                    arb_mul(t, t, a, prec);
                    arb_sub_ui(m, a, 1, prec); /* (m is free here) */
                    arb_div(t, t, m, prec);
                    arb_add(t, t, g, prec);
                    arb_zero(m);
                    arb_max(t, t, m, prec);
                    arb_mul(t, t, c, prec);
                } else {
                    arb_mul(t, c, g, prec);
                }
                arb_add(lo[d], lo[d], t, prec);
            } else { /* 0 <= D <= -count log(1 - q) */
                arb_neg(t, q);
                arb_log1p(t, t, prec);
                arb_mul(t, t, c, prec);
                arb_sub(hi[d], hi[d], t, prec);
            }
            arb_clear(c);
            /* (m was overwritten: read again for the other direction) */
            if (pc_sub_params(q, m, p, j, prec))
                rc = GA_EINVAL;
        }
    }
    if (rc == GA_EPREC) {
        ga_interval il, ih;
        for (int d = 0; d < 2; d++) {
            ga_interval *out = d ? yx : xy;
            ga_arb_bounds(&il, lo[d]);
            ga_arb_bounds(&ih, hi[d]);
            out->lo = fmax(il.lo, 0);
            out->hi = ih.hi;
        }
    }
    arb_clear(a);
    arb_clear(q);
    arb_clear(m);
    arb_clear(g);
    arb_clear(t);
    for (int d = 0; d < 2; d++) {
        arb_clear(lo[d]);
        arb_clear(hi[d]);
    }
    return rc;
}

static int renyi_cert_subsampled(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                                 const char *alpha_txt, const ga_cert_opts *o)
{
    double ad;
    if (ga_decimal_to_double(&ad, alpha_txt) == GA_OK && ad > 1e4)
        return renyi_bracket_arb(xy, yx, p, alpha_txt);
    rsub_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.want = pc_want_bits(o->digits);
    c.best[0] = c.best[1] = LONG_MIN / 2;
    double steps = 0;
    for (size_t j = 0; j < p->ploss->n; j++)
        steps += p->ploss->t[j].count;
    c.lnrel = fmax(36, log(steps) + (double)c.want * M_LN2 + 6);
    arb_init(c.alpha);
    arb_init(c.xy);
    arb_init(c.yx);
    arb_indeterminate(c.xy);
    arb_indeterminate(c.yx);
    arb_set_str(c.alpha, alpha_txt, PARSE_PREC); /* the decimal (syntax checked by the caller) */
    int rc = ga_arb_escalate(NULL, rsub_step, &c, 64, o->max_prec, o->deadline);
    if (arb_is_finite(c.xy))
        ga_arb_bounds(xy, c.xy);
    if (arb_is_finite(c.yx))
        ga_arb_bounds(yx, c.yx);
    if (xy->lo < 0)
        xy->lo = 0;
    if (yx->lo < 0)
        yx->lo = 0;
    arb_clear(c.alpha);
    arb_clear(c.xy);
    arb_clear(c.yx);
    return rc;
}

int ga_pair_renyi_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                       const ga_pair_input *in, const ga_pair_text *txt, const char *alpha_txt,
                       const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    xy->lo = yx->lo = 0;
    xy->hi = yx->hi = INFINITY;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    double alpha;
    if (ga_decimal_to_double(&alpha, alpha_txt) || o.digits < 1 || o.max_prec < 64)
        return GA_EINVAL;
    if (!(alpha > 1))
        return GA_EDOM;
    if (p->ploss) /* (covariance steps, masked and synthetic releases: no divergence here) */
        return p->ploss->t[0].r > 0 || p->ploss->t[0].nu > 0
                   ? GA_EDOM : renyi_cert_subsampled(xy, yx, p, alpha_txt, &o);
    if (p->support != GA_SUPPORT_FULL)
        return GA_EDOM;
    if (p->in_tv[0] > 0 || p->in_tv[1] > 0) {
        /* laws known within a total variation distance: no divergence from them; a released
         * mean shift's is alpha r D2 / 2 both ways, D2 enclosed from the exact inputs */
        if (!(p->in_d2[1] > 0))
            return GA_EDOM;
        double a = alpha; /* (the decimal's double: the interval is widened by its ulp) */
        double lo = ga_dn(ga_dn(ga_dn(nextafter(a, 0) * p->r) * p->in_d2[0]) / 2),
               hi = ga_up(ga_up(ga_up(nextafter(a, INFINITY) * p->r) * p->in_d2[1]) / 2);
        *xy = *yx = (ga_interval){lo, hi};
        return GA_OK;
    }
    if (p->nblocks)
        return renyi_cert_product(xy, yx, p, in, txt, alpha_txt, opts);
    slong k = (slong)in->d;
    int rc = GA_EPREC;
    arb_mat_t Sx, Sy, dm, dmn;
    arb_t a, res, u;
    arb_mat_init(Sx, k, k);
    arb_mat_init(Sy, k, k);
    arb_mat_init(dm, k, 1);
    arb_mat_init(dmn, k, 1);
    arb_init(a);
    arb_init(res);
    arb_init(u);
    arb_set_str(a, alpha_txt, PARSE_PREC); /* the exact decimal (syntax checked above) */
    for (slong i = 0; i < k * k; i++)
        if (ga_cert_entry(arb_mat_entry(Sx, i / k, i % k), txt ? txt->s_x : NULL, in->s_x, (size_t)i) ||
            ga_cert_entry(arb_mat_entry(Sy, i / k, i % k), txt ? txt->s_y : NULL, in->s_y, (size_t)i)) {
            rc = GA_EINVAL;
            goto cleanup;
        }
    for (slong i = 0; i < k; i++) {
        if (ga_cert_entry(res, txt ? txt->mu_x : NULL, in->mu_x, (size_t)i) ||
            ga_cert_entry(u, txt ? txt->mu_y : NULL, in->mu_y, (size_t)i)) {
            rc = GA_EINVAL;
            goto cleanup;
        }
        arb_sub(arb_mat_entry(dm, i, 0), res, u, PARSE_PREC);
        arb_neg(arb_mat_entry(dmn, i, 0), arb_mat_entry(dm, i, 0));
    }
    renyi_ctx c = {Sx, Sy, dm, dmn, a, res, p->r, pc_want_bits(o.digits), xy, yx, {0, 0}};
    rc = ga_arb_escalate(NULL, renyi_step, &c, 128, o.max_prec, o.deadline);
cleanup:
    arb_mat_clear(Sx);
    arb_mat_clear(Sy);
    arb_mat_clear(dm);
    arb_mat_clear(dmn);
    arb_clear(a);
    arb_clear(res);
    arb_clear(u);
    return rc;
}

/*
 * type_loss.c - the pair types whose privacy loss is one-dimensional: subsampled Gaussian
 * steps and their compositions (ploss.c, ploss_cert.c), matrix masking's noncentral
 * chi-square pairs (masked.c) and synthetic points from random inputs (synth.c). They share
 * the loss's double-precision delta and Renyi divergences and the certified delta of
 * cert_loss.c; only subsampled Gaussian steps have certified Renyi divergences (certified
 * trapezoid sums of the composition's cumulant generating function).
 */
#include "pair/cert_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* delta of the one-dimensional loss; the two tails only for one step */
static int loss_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                      const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    int one_step = p->ploss->n == 1 && p->ploss->t[0].count == 1;
    if (method == GA_DELTA_TAILS && !one_step)
        return GA_EDOM;
    if (method == GA_DELTA_AUTO && one_step)
        out->method = GA_DELTA_TAILS;
    return ga_ploss_delta(&out->xy, &out->yx, p->ploss, eps, out->method, o, &w->quad);
}

static int loss_renyi(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    return ga_ploss_renyi(xy, yx, p->ploss, alpha);
}

static int loss_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                           const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    (void)in, (void)txt;
    pc_cert_unknown(out);
    return pc_delta_cert_subsampled(out, p, eps, opts);
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

/* (a covariance step, of a subsampled sketch: no divergence here) */
static int subsampled_renyi_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                                 const ga_pair_input *in, const ga_pair_text *txt,
                                 const char *alpha_txt, const ga_cert_opts *opts)
{
    (void)in, (void)txt;
    return p->ploss->t[0].r > 0 ? GA_EDOM : renyi_cert_subsampled(xy, yx, p, alpha_txt, opts);
}

/* the terms, their decimals and the inputs as given */
static void loss_free(ga_pair *p)
{
    if (p->ploss) {
        for (size_t j = 0; j < 3 * p->ploss->n; j++)
            free(p->ptxt[j]);
        free(p->ploss->t);
        free(p->ploss);
    }
    free(p->ptxt);
    free(p->psigma);
}

const ga_pair_type ga_pair_type_subsampled = {
    "subsampled", loss_delta, loss_renyi, loss_delta_cert, subsampled_renyi_cert, NULL,
    loss_free,
};
const ga_pair_type ga_pair_type_masked = {
    "masked", loss_delta, loss_renyi, loss_delta_cert, NULL, NULL, loss_free,
};
const ga_pair_type ga_pair_type_synthetic = {
    "synthetic", loss_delta, loss_renyi, loss_delta_cert, NULL, NULL, loss_free,
};

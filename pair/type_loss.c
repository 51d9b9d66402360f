/*
 * type_loss.c - the pair types whose privacy loss is one-dimensional: subsampled Gaussian
 * steps and their compositions (ploss.c, ploss_cert.c), matrix masking's noncentral
 * chi-square pairs (masked.c) and synthetic points from random inputs (synth.c). They share
 * the loss's double-precision delta and Renyi divergences and the certified delta of
 * cert_loss.c; only subsampled Gaussian steps have certified Renyi divergences (certified
 * trapezoid sums of the composition's cumulant generating function). Each describes its
 * distinguishing events in its release's coordinates (a threshold on the noisy sum, on the
 * released column's norm, on the synthetic points' norm).
 */
#include "pair/cert_internal.h"

#include <gsl/gsl_sf_gamma.h>
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

/* eps of few identical subsampled steps: the bracket inverted, refined by Bromwich values
 * (pair/ploss.c), which need a workspace (NULL: one for the call, as ga_pair_delta) */
static int subsampled_epsilon(ga_result *eps, int *direction, const ga_pair *p, double delta,
                              const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    ga_gchisq_work *own = w ? NULL : ga_gchisq_work_alloc();
    if (!w && !own)
        return GA_ENOMEM;
    int rc = ga_ploss_epsilon_few(eps, direction, p->ploss, delta, o, w ? &w->quad : &own->quad);
    ga_gchisq_work_free(own);
    return rc;
}

/* The one-step pairs whose divergences come from their profiles (pair/renyi_profile.c): a
 * masked release, synthetic points, a subsampled sketch step */
static int from_profile(const ga_pair *p)
{
    const ga_ploss_term *t = &p->ploss->t[0];
    return (t->nu > 0 || t->r > 0) && p->ploss->n == 1 && t->count == 1;
}

static double tails_sup(const ga_pair *p, int dir)
{
    return ga_ploss_loss_sup(p->ploss, dir);
}

static double tails_cap(const ga_pair *p, int dir, double lam)
{
    return ga_ploss_cgf_cap(p->ploss, dir, lam);
}

/* A covariance step's D_alpha with the mixture first is infinite iff E[g^alpha] is: alpha
 * m^2/(1 + m^2) >= 1, i.e. (alpha - 1) m^2 >= 1 (see ga_ploss_cgf_cap) */
static int tails_infinite(const ga_pair *p, int dir, double alpha)
{
    const ga_ploss_term *t = &p->ploss->t[0];
    return t->r > 0 && !(t->add ^ dir) && !((alpha - 1) * t->m * t->m < 1);
}

static int tails_infinite_arb(const ga_pair *p, int dir, const arb_t alpha, slong prec)
{
    const ga_ploss_term *t = &p->ploss->t[0];
    if (!(t->r > 0 && !(t->add ^ dir)))
        return 0;
    arb_t q, m;
    arb_init(q);
    arb_init(m);
    int r = -1;
    if (pc_sub_params(q, m, p, 0, prec) == GA_OK) {
        arb_sqr(m, m, prec);
        arb_sub_ui(q, alpha, 1, prec);
        arb_mul(m, m, q, prec);
        arb_sub_ui(m, m, 1, prec);
        r = arb_is_nonnegative(m) ? 1 : arb_is_negative(m) ? 0 : -1;
    }
    arb_clear(q);
    arb_clear(m);
    return r;
}

/* (a synthetic release's certified delta takes up to half a second: fewer nodes) */
static const pc_renyi_tails loss_tails = {tails_sup, tails_cap, pc_loss_cgf_cap, tails_infinite,
                                          tails_infinite_arb, 1025};
static const pc_renyi_tails synth_tails = {tails_sup, tails_cap, pc_loss_cgf_cap, NULL, NULL, 257};

static int loss_renyi(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    if (from_profile(p))
        return pc_renyi_profile(xy, yx, p, alpha, p->ploss->t[0].pts > 0 ? &synth_tails : &loss_tails);
    return ga_ploss_renyi(xy, yx, p->ploss, alpha);
}

static int profile_renyi_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                              const ga_pair_input *in, const ga_pair_text *txt,
                              const char *alpha_txt, const ga_cert_opts *opts)
{
    if (!from_profile(p))
        return GA_EDOM;
    return pc_renyi_profile_cert(xy, yx, p, in, txt, alpha_txt,
                                 p->ploss->t[0].pts > 0 ? &synth_tails : &loss_tails, opts);
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
    if (p->ploss->t[0].r > 0)
        return profile_renyi_cert(xy, yx, p, in, txt, alpha_txt, opts);
    return renyi_cert_subsampled(xy, yx, p, alpha_txt, opts);
}

/* A subsampled pair: one step's event is a threshold on the released noisy sum (the loss
 * l(x) = log(1 - q + q e^{(2 c x - c^2)/(2 sigma^2)}), c the record's contribution, increases
 * in x); T steps sum the losses */
static int subsampled_describe(char *text, size_t n, double *px, double *py, const ga_pair *p,
                               double eps, int dir)
{
    const ga_subsampled_input *t = p->input;
    int mix_is_x = !t->add, up = dir == 1; /* S = {l_XY > eps} or {l_XY < -eps} */
    /* in terms of the loss of the mixture against the plain law, l = log P/Q: */
    int l_up = up == mix_is_x; /* S = {l > e} (else {l < -e}) */
    *px = *py = NAN;
    if (p->ninput > 1) {
        snprintf(text, n,
                 "S = {the sum of the privacy losses of all steps of the %zu parts %s %.17g}, "
                 "each step's loss log(1 - q + q e^{(2 c x - c^2)/(2 sigma^2)}) of its released "
                 "noisy sum x (q, sigma and the record's contribution c of its part)", p->ninput,
                 l_up ? ">" : "<", l_up ? eps : -eps);
        return GA_OK;
    }
    double c = t->norm > 0 ? t->norm : 1; /* the record's contribution */
    if (t->steps > 1) {
        char cc[64] = "";
        if (c != 1)
            snprintf(cc, sizeof cc, ", c = %g", c);
        snprintf(text, n,
                 "S = {(x_1, ..., x_T) : l(x_1) + ... + l(x_T) %s %.17g}, x_t the released noisy "
                 "sum of step t and l(x) = log(1 - q + q e^{(%s)/(2 sigma^2)}) its privacy "
                 "loss (q = %g, sigma = %g%s, T = %.0f)", l_up ? ">" : "<", l_up ? eps : -eps,
                 c != 1 ? "2 c x - c^2" : "2x - 1", t->q, t->sigma, cc, t->steps);
        return GA_OK;
    }
    /* one step: {l > eps} = {x > x0}, {l < -eps} = {x < x0} with e^{+-eps} = 1 - q + q e^{(2 x0 - 1)/(2 sigma^2)} */
    double e = l_up ? expm1(eps) + t->q : expm1(-eps) + t->q, s2 = t->sigma * t->sigma;
    if (!(e > 0)) {
        snprintf(text, n, "S is empty (the loss never falls below %.17g)", -eps);
        *px = *py = 0;
        return GA_OK;
    }
    if (t->columns > 0) {
        /* a subsampled sketch: the loss increases in s = sum_k (u^T z_k)^2 / sigma^2 ~ chi^2_r
         * (pair/ploss.c), the threshold s1 where (1 + lam)^{-r/2} e^{lam s1/(2 (1 + lam))} =
         * e/q, lam = (norm/sigma)^2 */
        double nr = t->norm > 0 ? t->norm : 1, lam = nr * nr / s2, h = 0.5 * t->columns;
        double s1 = (log(e / t->q) + h * log1p(lam)) * 2 * (1 + lam) / lam;
        if (!(s1 > 0) && !l_up) {
            snprintf(text, n, "S is empty (the loss never falls below %.17g)", -eps);
            *px = *py = 0;
            return GA_OK;
        }
        s1 = fmax(s1, 0);
        double qq = gsl_sf_gamma_inc_Q(h, 0.5 * s1);
        double qp = (1 - t->q) * qq + t->q * gsl_sf_gamma_inc_Q(h, 0.5 * s1 / (1 + lam));
        double pm = l_up ? qp : 1 - qp, pq = l_up ? qq : 1 - qq;
        *px = mix_is_x ? pm : pq;
        *py = mix_is_x ? pq : pm;
        snprintf(text, n,
                 "S = {(z_1, ..., z_r) : (u^T z_1)^2 + ... + (u^T z_r)^2 %s %.17g}, z_k the "
                 "released columns and u the record's direction (r = %.0f, noise_sigma %.17g, the "
                 "record's norm %.17g, sampled with probability %.17g)", l_up ? ">" : "<", s1 * s2,
                 t->columns, t->sigma, nr, t->q);
        return GA_OK;
    }
    /* (2 c x0 - c^2)/(2 sigma^2) = log(e/q) */
    double x0 = s2 * log(e / t->q) / c + 0.5 * c;
    /* P[x > x0] under the mixture and under N(0, sigma^2) */
    double qp = (1 - t->q) * 0.5 * erfc(x0 / (t->sigma * M_SQRT2)) +
                t->q * 0.5 * erfc((x0 - c) / (t->sigma * M_SQRT2));
    double qq = 0.5 * erfc(x0 / (t->sigma * M_SQRT2));
    double pm = l_up ? qp : 1 - qp, pq = l_up ? qq : 1 - qq; /* P[S] under mixture, plain */
    *px = mix_is_x ? pm : pq;
    *py = mix_is_x ? pq : pm;
    snprintf(text, n,
             "S = {x %s %.17g}, x the released noisy sum (noise N(0, %.17g^2), the record's "
             "contribution %.17g, sampled with probability %.17g)", l_up ? ">" : "<", x0, t->sigma,
             c, t->q);
    return GA_OK;
}

/* A masked pair (matrix masking, setting (B)): the loss is monotone in |y|^2, the squared
 * norm of the released column (pair/masked.c), so the event is a threshold on it */
static int masked_describe(char *text, size_t n, double *px, double *py, const ga_pair *p,
                           double eps, int dir)
{
    const ga_masked_input *m = p->input;
    double lx = pow(m->norm_x / m->sigma, 2), ly = pow(m->norm_y / m->sigma, 2), w, qx, bx, qy, by; /* (the tails above and below) */
    int xy = dir == 1; /* S = {l_XY > eps} (else {l_YX > eps}) */
    double la = xy ? lx : ly, lb = xy ? ly : lx;
    ga_result d;
    *px = *py = NAN;
    if (ga_ncx2_delta(&d, &w, m->rows, la, lb, eps) || isnan(w) ||
        ga_ncx2_tail(&qx, &bx, m->rows, lx, w) || ga_ncx2_tail(&qy, &by, m->rows, ly, w)) {
        snprintf(text, n, "S is empty (the loss never exceeds %.17g)", eps);
        *px = *py = 0;
        return GA_OK;
    }
    int above = la > lb; /* the loss of a against b increases in |y|^2 */
    *px = above ? qx : bx;
    *py = above ? qy : by;
    snprintf(text, n,
             "S = {Y : |Y|^2 %s %.17g}, |Y|^2 the sum of the squared entries of the released "
             "column (n = %.0f, sigma %.17g; |x| = %.17g under X, %.17g under Y)", above ? ">" : "<",
             w * m->sigma * m->sigma, m->rows, m->sigma, m->norm_x, m->norm_y);
    return GA_OK;
}

/* Synthetic points: the loss is monotone in |y|^2, the squared norm of the released points */
static int synthetic_describe(char *text, size_t n, double *px, double *py, const ga_pair *p,
                              double eps, int dir)
{
    const ga_synthetic_input *m = p->input;
    double lx = pow(m->norm_x / m->sigma, 2), ly = pow(m->norm_y / m->sigma, 2), z, tx, ty;
    int xy = dir == 1;
    double la = xy ? lx : ly, lb = xy ? ly : lx;
    ga_result d;
    *px = *py = NAN;
    if (ga_synth_delta(&d, &z, m->dim, m->points, la, lb, eps) || isnan(z) ||
        ga_synth_tail(&tx, m->dim, m->points, lx, z) || ga_synth_tail(&ty, m->dim, m->points, ly, z)) {
        snprintf(text, n, "S is empty (the loss never exceeds %.17g)", eps);
        *px = *py = 0;
        return GA_OK;
    }
    int above = la > lb;
    *px = above ? tx : 1 - tx;
    *py = above ? ty : 1 - ty;
    snprintf(text, n,
             "S = {y : |y|^2 %s %.17g}, |y|^2 the sum of the squared synthetic outputs (%.0f point(s) "
             "from a model of dimension %.0f, sigma %.17g; |theta| = %.17g under X, %.17g under Y)",
             above ? ">" : "<", 4 * z * m->sigma * m->sigma, m->points, m->dim, m->sigma,
             m->norm_x, m->norm_y);
    return GA_OK;
}

/* the terms, their decimals and the inputs as given */
static void loss_free(ga_pair *p)
{
    if (p->ploss) {
        for (size_t j = 0; j < GA_PTXT_PER_TERM * p->ploss->n; j++)
            free(p->ptxt[j]);
        free(p->ploss->t);
        free(p->ploss);
    }
    free(p->ptxt);
    free(p->psigma);
}

/* the pairs whose Renyi divergences are not computed: compositions of sketch steps */
static const char *subsampled_no_renyi(const ga_pair *p)
{
    return p->ploss->t[0].r > 0 && !from_profile(p) ? "a composition of subsampled sketch steps" : NULL;
}

/* the same exact text, or both absent */
static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* compositions of mean steps whose every term is the other's with the relation flipped
 * (remove against add one record), from the same exact decimals: every direction of one is
 * the other's swapped, computed by the same code (the direction enters as add ^ dir), and
 * a certified interval of one is one of the other's */
static int subsampled_mirrors(const ga_pair *p, const ga_pair *q)
{
    const ga_ploss *a = p->ploss, *b = q->ploss;
    if (q->type != p->type || !a || !b || a->n != b->n || p->support != q->support ||
        !p->ptxt != !q->ptxt || !p->psigma != !q->psigma)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const ga_ploss_term *s = &a->t[i], *t = &b->t[i];
        if (s->r != 0 || s->nu != 0 || t->r != 0 || t->nu != 0 || s->q != t->q || s->m != t->m ||
            s->count != t->count || s->add == t->add)
            return 0;
        for (size_t k = 0; p->ptxt && k < GA_PTXT_PER_TERM; k++)
            if (!same_text(p->ptxt[GA_PTXT_PER_TERM * i + k], q->ptxt[GA_PTXT_PER_TERM * i + k]))
                return 0;
        if (p->psigma && (p->psigma[2 * i] != q->psigma[2 * i] ||
                          p->psigma[2 * i + 1] != q->psigma[2 * i + 1]))
            return 0;
    }
    return 1;
}

const ga_pair_type ga_pair_type_subsampled = {
    "subsampled", loss_delta, loss_renyi, loss_delta_cert, subsampled_renyi_cert, NULL,
    loss_free, subsampled_describe, subsampled_no_renyi,
    "double precision: the one-dimensional privacy loss of subsampled Gaussian steps, its "
    "moment generating function by trapezoid sums on the real line and delta by one Bromwich "
    "integral (one step: the closed form of its threshold event; a subsampled sketch: the "
    "same with chi-square tails; few identical steps of a small rate: a bracket of "
    "discretised losses composed by FFT) with error estimates; "
    "certified: one step in Arb ball arithmetic (erfc); a composition by the same Bromwich "
    "integral in ball arithmetic (trapezoid sums with Trefethen-Weideman bounds, "
    "Gauss-Legendre panels with Bernstein-ellipse bounds, the tail by chord and "
    "integration-by-parts bounds on the moment generating function); few identical steps of "
    "a small rate: the bracket with every input proven (the cells' masses by Arb's erfc, their "
    "offsets through the loss's convexity)",
    subsampled_mirrors,
    subsampled_epsilon,
    0,
};
const ga_pair_type ga_pair_type_masked = {
    "masked", loss_delta, loss_renyi, loss_delta_cert, profile_renyi_cert, NULL, loss_free,
    masked_describe, NULL,
    "masked releases (matrix masking, setting (B)): delta as two noncentral chi-square tails at "
    "the threshold of the monotone likelihood ratio (Poisson mixtures of incomplete gamma "
    "functions) with error estimates; certified: the same in Arb ball arithmetic, the "
    "threshold bracketed by certified signs of the loss. Gaussian pairs (bounds): "
    PR_METHODS_GAUSS,
    NULL,
    NULL,
    0,
};
const ga_pair_type ga_pair_type_synthetic = {
    "synthetic", loss_delta, loss_renyi, loss_delta_cert, profile_renyi_cert, NULL, loss_free,
    synthetic_describe, NULL,
    "synthetic points from random inputs: the release reduced to |y|^2 = sigma^2 S C (S "
    "noncentral chi-square, C chi-square), delta as two tails at the threshold of the monotone "
    "likelihood ratio (Poisson mixtures of finite sums of Bessel K functions) with error "
    "estimates; certified: the same tails in Arb ball arithmetic, the maximiser of the unimodal "
    "tail difference bracketed by certified comparisons",
    NULL,
    NULL,
    0,
};

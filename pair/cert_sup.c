/*
 * cert_sup.c - the supremum of a Gaussian pair's privacy loss, certified: where eps is at or
 * above it, delta in that direction is exactly 0.
 *
 * For X = N(mu_x, S_x), Y = N(mu_y, S_y) the loss l(x) = log p_X(x) - log p_Y(x) is, with
 * u = x - mu_x and D = mu_x - mu_y,
 *   l = 1/2 log(det S_y / det S_x) - 1/2 u^T (S_x^-1 - S_y^-1) u + u^T S_y^-1 D + 1/2 D^T S_y^-1 D.
 * It is bounded above exactly when C = S_x^-1 - S_y^-1 is positive definite, i.e. S_y - S_x is
 * (then S_y > S_x). Maximising over u (u* = C^-1 S_y^-1 D) gives
 *   sup l = 1/2 log(det S_y / det S_x) + 1/2 D^T (S_y^-1 C^-1 S_x^-1) D
 *         = 1/2 log(det S_y / det S_x) + 1/2 D^T (S_y - S_x)^-1 D,
 * since S_y^-1 C^-1 S_x^-1 = (S_x C S_y)^-1 = (S_y - S_x)^-1. delta_{X,Y}(eps) = E_X[(1 -
 * e^{eps - l})_+] vanishes for eps >= sup l (NDIS 001, Lemma 2's zero-leakage threshold in
 * the equal-mean case). The direction Y,X is the same with the roles exchanged. A pair of
 * r independent columns has r times the loss; a product pair the sum of its blocks'.
 * Everything is computed in ball arithmetic from the exact decimal inputs: the Cholesky
 * factorisations certify positive definiteness, and the comparison with eps is certified.
 */
#include "pair/cert_internal.h"

#include <math.h>

/* log det of a positive definite S from its Cholesky factor (0 if S is not certified
 * positive definite at this precision) */
static int log_det(arb_t ld, const arb_mat_t s, slong prec)
{
    slong k = arb_mat_nrows(s);
    arb_mat_t l;
    arb_t t;
    arb_mat_init(l, k, k);
    arb_init(t);
    int ok = arb_mat_cho(l, s, prec);
    arb_zero(ld);
    for (slong i = 0; ok && i < k; i++) {
        arb_log(t, arb_mat_entry(l, i, i), prec);
        arb_add(ld, ld, t, prec);
    }
    arb_mul_2exp_si(ld, ld, 1);
    arb_mat_clear(l);
    arb_clear(t);
    return ok && arb_is_finite(ld);
}

/* sup of the loss of a plain pair in direction dir (0: l under X, delta_{X,Y}; 1: -l under
 * Y, delta_{Y,X}): 1 with sup, 0 when not certified bounded above, -1 unreadable inputs */
static int sup_plain(arb_t sup, const ga_pair *p, const ga_pair_input *in,
                     const ga_pair_text *txt, int dir, slong prec)
{
    slong k = (slong)in->d;
    arb_mat_t sx, sy, dm, s, z;
    arb_t lx, ly, q;
    arb_mat_init(sx, k, k);
    arb_mat_init(sy, k, k);
    arb_mat_init(dm, k, 1);
    arb_mat_init(s, k, k);
    arb_mat_init(z, k, 1);
    arb_init(lx);
    arb_init(ly);
    arb_init(q);
    /* the exact inputs, as the certificate reads them: the covariances' symmetric parts (s
     * as scratch) and D */
    int rc = ga_cert_input_cov(sx, s, txt ? txt->s_x : NULL, in->s_x, prec) ||
                     ga_cert_input_cov(sy, s, txt ? txt->s_y : NULL, in->s_y, prec) ||
                     ga_cert_input_mean(dm, in, txt, prec)
                 ? -1
                 : 0;
    if (rc < 0)
        goto cleanup;
    /* direction Y,X: the pair (Y, X), whose D is -D (the quadratic form is even in D) */
    if (dir)
        arb_mat_sub(s, sx, sy, prec);
    else
        arb_mat_sub(s, sy, sx, prec);
    rc = 0;
    if (!log_det(lx, sx, prec) || !log_det(ly, sy, prec) || !arb_mat_spd_solve(z, s, dm, prec))
        goto cleanup; /* (S_y - S_x not certified positive definite: unbounded, or unsettled) */
    arb_zero(q);
    for (slong i = 0; i < k; i++)
        arb_addmul(q, arb_mat_entry(dm, i, 0), arb_mat_entry(z, i, 0), prec);
    if (dir)
        arb_sub(sup, lx, ly, prec);
    else
        arb_sub(sup, ly, lx, prec);
    arb_add(sup, sup, q, prec);
    arb_mul_2exp_si(sup, sup, -1);
    arb_set_d(q, p->r);
    arb_mul(sup, sup, q, prec);
    rc = arb_is_finite(sup);
cleanup:
    arb_mat_clear(sx);
    arb_mat_clear(sy);
    arb_mat_clear(dm);
    arb_mat_clear(s);
    arb_mat_clear(z);
    arb_clear(lx);
    arb_clear(ly);
    arb_clear(q);
    return rc;
}

/* sup of a floating loss form (terms a z^2 + b z over nu iid normals): offset + sum over the
 * terms of b2 / (-4 a), or +inf when a term is unbounded above (a > 0, or a = 0 with b2 > 0) */
static double sup_form(const ga_gchisq *q)
{
    if (!q || q->sigma2 > 0)
        return INFINITY;
    double s = q->offset;
    for (size_t i = 0; i < q->n; i++) {
        const ga_gchisq_term *t = &q->t[i];
        if (t->a > 0 || (t->a == 0 && t->b2 > 0))
            return INFINITY;
        if (t->a < 0)
            s += t->b2 / (-4 * t->a);
    }
    return s;
}

int pc_loss_sup_below(const ga_pair *p, const ga_pair_input *in, const ga_pair_text *txt,
                      int dir, const arb_t eps, slong prec)
{
    /* the doubles first: a loss unbounded above, or a supremum clearly above eps, is not
     * worth the O(k^3) ball arithmetic */
    double sd = sup_form(dir ? p->ly : p->lx), ed = arf_get_d(arb_midref(eps), ARF_RND_NEAR);
    if (!(sd <= ed + 1e-9 * (1 + fabs(ed))) || p->d > GA_SUP_MAX_DIM)
        return 0;
    arb_t s, t;
    arb_init(s);
    arb_init(t);
    arb_zero(s);
    int ok = 1;
    if (p->nblocks) {
        for (size_t b = 0; b < p->nblocks && ok; b++) {
            const ga_pair *q = p->blocks[b];
            ok = !q->nblocks && q->support == GA_SUPPORT_FULL &&
                 sup_plain(t, q, in + b, txt ? txt + b : NULL, dir, prec) == 1;
            arb_add(s, s, t, prec);
        }
    } else {
        ok = p->support == GA_SUPPORT_FULL && sup_plain(s, p, in, txt, dir, prec) == 1;
    }
    ok = ok && arb_le(s, eps);
    arb_clear(s);
    arb_clear(t);
    return ok;
}

/*
 * witness.c - the witness of a claim's worst pair: the event S of the worst direction with
 * P(S) under each law and P_X(S) - e^eps P_Y(S), stated in the pair's own coordinates (a
 * region of the released vector for a Gaussian pair; a threshold on the released noisy sum,
 * on a masked norm or on a synthetic point's norm for the one-dimensional losses).
 */
#include "verdict/internal.h"

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
         * (pair/ploss.c), the threshold s1 where (1 + lam)^{-r/2} e^{lam s1/(2 (1 + lam))} =
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
 * norm of the released column (pair/masked.c), so the event is a threshold on it */
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

int vd_sub_pair(const ga_audit *a, const char *name)
{
    char buf[GA_SPEC_NAME_LEN];
    ga_spec_pair_buf pb;
    for (size_t i = 0; i < a->npairs; i++)
        if (!strcmp(ga_audit_pair_name(a, i, buf), name))
            return ga_spec_pair_is_loss(vd_spair(a, i, &pb));
    return 0;
}

/* the event S of the worst direction, described in the pair's coordinates, and its
 * probabilities under both laws */
static void witness_of(ga_claim_result *r, const ga_pair *p, const ga_spec_pair *sp,
                       ga_gchisq_work *w)
{
    if (ga_pair_support(p) == GA_SUPPORT_DIFFER) {
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
    /* (a probability that could not be evaluated has no number: null in JSON, n/a in text) */
    (void)ga_pair_event_probs(&r->witness_px, &r->witness_py, p, r->eps, r->worst_dir, w);
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
    if (d > 4 || ga_pair_support(p) != GA_SUPPORT_FULL) {
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

void vd_witness(ga_audit *a, ga_claim_result *r, ga_gchisq_work *w)
{
    ga_pair *own;
    ga_spec_pair_buf pb;
    const ga_pair *p = vd_pair_use(a, r->worst_pair, &own);
    if (p)
        witness_of(r, p, vd_spair(a, r->worst_pair, &pb), w);
    ga_pair_free(own);
}

/*
 * witness.c - the witness of a claim's worst pair: the event S of the worst direction with
 * P(S) under each law and P_X(S) - e^eps P_Y(S), stated in the pair's own coordinates (a
 * region of the released vector for a Gaussian pair; for a one-dimensional loss, as its
 * family describes it: pair/type_loss.c).
 */
#include "verdict/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    /* a one-dimensional loss: its family states the event in the release's coordinates */
    if (ga_pair_describe_event(r->witness, sizeof r->witness, &r->witness_px, &r->witness_py, p,
                               r->eps, r->worst_dir) != GA_EDOM)
        return;
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

/*
 * cert_inputs.c - the exact inputs of a pair in ball arithmetic (the decimals as written, or
 * the doubles), whitened by the floating basis W ~ (L V)^{-1} taken as exact, and the
 * rigorous bound of the total variation between the exact laws and the reduced pair's
 * (Pinsker over Gaussian KL bounds from the entries, no determinant: la_kl); where that
 * bound is too wide, a refined reference pair (a basis diagonalising both covariances to
 * about 1e-30 by first-order perturbation and rotations within eigenvalue clusters). The
 * method is stated in cert_gauss.c.
 */
#include "pair/cert_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* x <- x * d for a double d (exact conversion) */
void pc_mul_d(arb_t x, double d, slong prec)
{
    arb_t t;
    arb_init(t);
    arb_set_d(t, d);
    arb_mul(x, x, t, prec);
    arb_clear(t);
}

/* exact value of input entry i: the decimal text if given, else the double */
int ga_cert_entry(arb_t v, const char *const *txt, const double *val, size_t i)
{
    if (txt && txt[i]) {
        if (arb_set_str(v, txt[i], PARSE_PREC) != 0)
            return -1;
    } else {
        arb_set_d(v, val[i]);
    }
    return 0;
}

/* S = the exact input covariance (entries as in entry(), rounded outward to prec: the parsed
 * decimals carry PARSE_PREC bits, which the products need not see; T is k x k scratch).
 * Returns 0 on success, -1 for an unparsable entry. */
int ga_cert_input_cov(arb_mat_t S, arb_mat_t T, const char *const *txt, const double *val,
                      slong prec)
{
    slong k = arb_mat_nrows(S);
    for (slong i = 0; i < k * k; i++) {
        arb_ptr e = arb_mat_entry(S, i / k, i % k);
        if (ga_cert_entry(e, txt, val, (size_t)i))
            return -1;
        arb_set_round(e, e, prec);
    }
    /* the covariance is the symmetric part (S + S^T)/2: the pair library accepts inputs
     * symmetric to 1e-12 and reduces their symmetric part; the certificate must describe the
     * same law (and a KL divergence is only nonnegative for a symmetric matrix) */
    arb_mat_transpose(T, S);
    arb_mat_add(S, S, T, prec);
    arb_mat_scalar_mul_2exp_si(S, S, -1);
    return 0;
}

/* M = W S W^T (T and Wt k x k scratch) */
static void congruent(arb_mat_t M, arb_mat_t T, arb_mat_t Wt, const arb_mat_t W,
                      const arb_mat_t S, slong prec)
{
    ga_arb_mat_mul(T, W, S, prec);
    arb_mat_transpose(Wt, W);
    ga_arb_mat_mul(M, T, Wt, prec);
}

/* W ~ (L V)^{-1} = V^T L^{-1}, the inverse of the floating reduction's whitening, computed in
 * floating point (a triangular solve L^T X = V, W = X^T) and then taken as exact numbers.
 * Any invertible W is a valid basis: hockey-stick divergences are invariant under it, and
 * the KL bounds of la_kl are computed for the exact W S W^T, whatever W's rounding errors
 * (they only make M and P less close to the reference). W is invertible when W S_y W^T is,
 * which la_kl establishes (||M - I||_F < 1). Forming W costs one triangular solve in double,
 * where an exact inverse of L V in ball arithmetic cost five solves per precision level
 *. Returns 0, or -1 for a non-finite W (or no memory). */
static int floating_inverse_basis(arb_mat_t W, const ga_pair *p)
{
    slong k = (slong)p->k;
    if (k == 0) /* (a block of equal laws: nothing to whiten) */
        return 0;
    double *x = malloc((size_t)(k * k) * sizeof *x);
    if (!x)
        return -1;
    memcpy(x, p->V, (size_t)(k * k) * sizeof *x);
    ga_cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, (int)k,
                   (int)k, 1.0, p->L, (int)k, x, (int)k);
    int rc = 0;
    for (slong i = 0; i < k && rc == 0; i++)
        for (slong j = 0; j < k; j++) {
            double w = x[j * k + i]; /* W = X^T */
            if (!isfinite(w)) {
                rc = -1;
                break;
            }
            arb_set_d(arb_mat_entry(W, i, j), w);
        }
    free(x);
    return rc;
}

/* dm = mu_x - mu_y for the exact input means (k x 1). Returns 0, or -1 for an unparsable
 * entry. */
int ga_cert_input_mean(arb_mat_t dm, const ga_pair_input *in, const ga_pair_text *txt, slong prec)
{
    arb_t t, u;
    arb_init(t);
    arb_init(u);
    int ok = 1;
    for (slong i = 0; i < arb_mat_nrows(dm) && ok; i++) {
        ok = !ga_cert_entry(t, txt ? txt->mu_x : NULL, in->mu_x, (size_t)i) &&
             !ga_cert_entry(u, txt ? txt->mu_y : NULL, in->mu_y, (size_t)i);
        arb_sub(arb_mat_entry(dm, i, 0), t, u, prec);
    }
    arb_clear(t);
    arb_clear(u);
    return ok ? 0 : -1;
}

void pc_la_ref_init(la_ref *f, slong k)
{
    f->k = k;
    f->lam = _arb_vec_init(k);
    f->mt = _arb_vec_init(k);
}

void pc_la_ref_clear(la_ref *f)
{
    _arb_vec_clear(f->lam, f->k);
    _arb_vec_clear(f->mt, f->k);
}

static void la_ref_floating(la_ref *f, const ga_pair *p)
{
    for (slong i = 0; i < f->k; i++) {
        arb_set_d(f->lam + i, p->lambda[i]);
        arb_set_d(f->mt + i, p->mt[i]);
    }
}

/* TV <= sqrt(KL / 2) as a mag; KL >= 0 mathematically, so the ball's lower end is clipped.
 * A ball entirely below 0 cannot enclose a divergence: then the bound is infinite (the
 * certificate fails rather than rest on it). */
static void tv_of_kl(mag_t tv, const arb_t kl, slong prec)
{
    arb_t u;
    arb_init(u);
    arb_get_ubound_arf(arb_midref(u), kl, prec);
    mag_zero(arb_radref(u));
    if (arf_sgn(arb_midref(u)) < 0) {
        mag_inf(tv);
        arb_clear(u);
        return;
    }
    arb_mul_2exp_si(u, u, -1);
    arb_sqrt(u, u, prec);
    arb_get_mag(tv, u);
    arb_clear(u);
}

/* Upper bounds (mags) of TV(X, X'') and TV(Y, Y'') from the exact whitened inputs: M and P
 * the covariances of Y and X, v the mean of X (Y's is 0), against the reference f. With
 * D = diag(tau), tau = 1 + lam, E = M - I and E' = D^{-1/2} P D^{-1/2} - I:
 *   KL(Y || Y'') = r/2 [tr E - log det(I + E)],
 *   KL(X || X'') = r/2 [tr E' - log det(I + E') + sum (mt_i - v_i)^2 / tau_i],
 * and tr E - log det(I + E) <= ||E||_F^2 / (2 (1 - ||E||_F)) (ga_arb_logdet_gap_bound,
 * numerics/cert.c). The bound is O(k^2) from the entries (no determinant, no cancellation between tr and log det: the
 * entries of E are ~1e-16, or ~1e-32 refined, and their radii only need to be smaller), and
 * tight to first order (the exact gap is ||E||_F^2 / 2 + O(||E||^3)). Returns 0 on success,
 * -1 when ||E||_F or ||E'||_F is not certainly below 1. */
static int la_kl(mag_t tvx, mag_t tvy, const arb_mat_t M, const arb_mat_t P, const arb_mat_t v,
                 const la_ref *f, double r, slong prec)
{
    slong k = arb_mat_nrows(M);
    int rc = -1;
    arb_t t, u, f2, kl;
    arb_ptr rt = _arb_vec_init(k); /* 1 / sqrt(tau_i) */
    arb_init(t);
    arb_init(u);
    arb_init(f2);
    arb_init(kl);
    /* Y: ||M - I||_F^2 */
    arb_zero(f2);
    for (slong i = 0; i < k; i++)
        for (slong j = 0; j < k; j++) {
            arb_set(t, arb_mat_entry(M, i, j));
            if (i == j)
                arb_sub_ui(t, t, 1, prec);
            arb_addmul(f2, t, t, prec);
        }
    if (ga_arb_logdet_gap_bound(kl, f2, prec))
        goto cleanup;
    pc_mul_d(kl, 0.5 * r, prec); /* r/2 is an exact double */
    tv_of_kl(tvy, kl, prec);
    /* X: ||D^{-1/2} P D^{-1/2} - I||_F^2 and the means */
    for (slong i = 0; i < k; i++) {
        arb_add_ui(t, f->lam + i, 1, prec);
        arb_rsqrt(rt + i, t, prec);
    }
    arb_zero(f2);
    arb_zero(kl);
    for (slong i = 0; i < k; i++) {
        for (slong j = 0; j < k; j++) {
            arb_mul(t, arb_mat_entry(P, i, j), rt + i, prec);
            arb_mul(t, t, rt + j, prec);
            if (i == j)
                arb_sub_ui(t, t, 1, prec);
            arb_addmul(f2, t, t, prec);
        }
        arb_sub(t, f->mt + i, arb_mat_entry(v, i, 0), prec);
        arb_mul(t, t, rt + i, prec);
        arb_addmul(kl, t, t, prec); /* (mt_i - v_i)^2 / tau_i */
    }
    if (ga_arb_logdet_gap_bound(u, f2, prec))
        goto cleanup;
    arb_add(kl, kl, u, prec);
    pc_mul_d(kl, 0.5 * r, prec);
    tv_of_kl(tvx, kl, prec);
    rc = mag_is_finite(tvx) && mag_is_finite(tvy) ? 0 : -1;
cleanup:
    _arb_vec_clear(rt, k);
    arb_clear(t);
    arb_clear(u);
    arb_clear(f2);
    arb_clear(kl);
    return rc;
}

/* The exact inputs as balls (S_y, S_x, mu_x - mu_y), read once per precision level, and the
 * scratch of the products. */
typedef struct {
    arb_mat_t sy, sx, dm, T, Wt;
} la_inputs;

static void la_inputs_init(la_inputs *q, slong k)
{
    arb_mat_init(q->sy, k, k);
    arb_mat_init(q->sx, k, k);
    arb_mat_init(q->dm, k, 1);
    arb_mat_init(q->T, k, k);
    arb_mat_init(q->Wt, k, k);
}

static void la_inputs_clear(la_inputs *q)
{
    arb_mat_clear(q->sy);
    arb_mat_clear(q->sx);
    arb_mat_clear(q->dm);
    arb_mat_clear(q->T);
    arb_mat_clear(q->Wt);
}

static int la_inputs_read(la_inputs *q, const ga_pair_input *in, const ga_pair_text *txt,
                          slong prec)
{
    return ga_cert_input_cov(q->sy, q->T, txt ? txt->s_y : NULL, in->s_y, prec) ||
                   ga_cert_input_cov(q->sx, q->T, txt ? txt->s_x : NULL, in->s_x, prec) ||
                   ga_cert_input_mean(q->dm, in, txt, prec)
               ? -1
               : 0;
}

/* M, P and v of la_kl in the basis W: W S_y W^T, W S_x W^T, W (mu_x - mu_y) */
static void la_whiten(arb_mat_t M, arb_mat_t P, arb_mat_t v, const arb_mat_t W, la_inputs *q,
                      slong prec)
{
    congruent(M, q->T, q->Wt, W, q->sy, prec);
    congruent(P, q->T, q->Wt, W, q->sx, prec);
    arb_mat_mul(v, W, q->dm, prec);
}

int pc_la_whiten_floating(arb_mat_t M, arb_mat_t P, arb_mat_t v, const ga_pair *p,
                          const ga_pair_input *in, const ga_pair_text *txt, slong prec)
{
    slong k = (slong)p->k;
    arb_mat_t W;
    la_inputs q;
    arb_mat_init(W, k, k);
    la_inputs_init(&q, k);
    int rc = floating_inverse_basis(W, p) || la_inputs_read(&q, in, txt, prec) ? -1 : 0;
    if (rc == 0)
        la_whiten(M, P, v, W, &q, prec);
    arb_mat_clear(W);
    la_inputs_clear(&q);
    return rc;
}

int pc_la_certificate(mag_t tvx, mag_t tvy, const ga_pair *p, const ga_pair_input *in,
                      const ga_pair_text *txt, slong prec)
{
    slong k = (slong)p->k;
    arb_mat_t M, P, v;
    la_ref f;
    arb_mat_init(M, k, k);
    arb_mat_init(P, k, k);
    arb_mat_init(v, k, 1);
    pc_la_ref_init(&f, k);
    la_ref_floating(&f, p);
    int rc = pc_la_whiten_floating(M, P, v, p, in, txt, prec) ? -1
                                                            : la_kl(tvx, tvy, M, P, v, &f, p->r, prec);
    arb_mat_clear(M);
    arb_mat_clear(P);
    arb_mat_clear(v);
    pc_la_ref_clear(&f);
    return rc;
}

/* Refinement. The floating reduction is correct to about 1e-16 relative, and so is the
 * reference pair it defines: the TV widening above is of that order whatever the working
 * precision. Where a
 * narrower interval is asked for, the basis is refined in ball arithmetic: with M = I + E
 * and P = D + F (D = diag(tau), tau = 1 + lambda) the exact whitened covariances, a
 * transformation C = I + G with
 *     G_ij + G_ji = -E_ij,   F_ij + tau_j G_ij + tau_i G_ji = 0   (i != j),  G_ii = -E_ii/2,
 * i.e. G_ij = (tau_i E_ij - F_ij) / (tau_j - tau_i), makes C M C^T = I and C P C^T diagonal
 * up to second order (E, F ~ 1e-16: ~1e-32). Where tau_i and tau_j are close (a cluster, as
 * the d - 1 equal values of a rank-one change) the first order is not enough: there G is the
 * symmetric -E/2, and the cluster's block of P - tau M (of the size of the rounding) is
 * diagonalised by its eigenvectors (LAPACK in double, then orthonormalised by two
 * Newton-Schulz steps in ball arithmetic), after which a second first-order pass sees its
 * values separated. Each transformation C is chosen as exact numbers (midpoints) and applied
 * to the basis, W <- C W, and M, P, v are computed again from the exact inputs in the new
 * basis: rigorous enclosures of the exact pair, whose radii are those of two products (a
 * radius carried through C M C^T would grow with the dense rotations of a cluster). The new
 * reference takes lam_i = mid(P_ii) - 1 and mt = mid(v), and la_kl bounds what is left.
 * Cost: about 14 k x k products (23 with a cluster), so it is used only where the width asked
 * needs it, and for k <= GA_REFINE_MAX: 23 to 29 s at k = 1000, 2 to 3.5 minutes and 2.8 GB
 * at k = 2000 to 2048 (make bench, section certified). */

/* C <- (I + G) C (C: the basis) for G of the first-order rule from M and P, the covariances
 * in the basis C (their midpoints), and the values tau_i = mid(P_ii / M_ii); pairs whose
 * relative gap is below 1e-6 are a cluster (G symmetric there). cl[i] gets the cluster's
 * first index. */
static void first_order(arb_mat_t C, const arb_mat_t M, const arb_mat_t P, slong *cl, slong prec)
{
    slong k = arb_mat_nrows(M);
    double *tau = malloc((size_t)k * sizeof *tau);
    slong *ord = malloc((size_t)k * sizeof *ord);
    arb_mat_t G, T;
    arb_t e, f, t;
    arb_mat_init(G, k, k);
    arb_mat_init(T, k, k);
    arb_init(e);
    arb_init(f);
    arb_init(t);
    if (!tau || !ord)
        goto cleanup; /* (C unchanged: a weaker certificate, still a valid one) */
    for (slong i = 0; i < k; i++) {
        tau[i] = arf_get_d(arb_midref(arb_mat_entry(P, i, i)), ARF_RND_NEAR) /
                 arf_get_d(arb_midref(arb_mat_entry(M, i, i)), ARF_RND_NEAR);
        ord[i] = i;
    }
    /* clusters: runs of close values in sorted order (insertion sort: k <= GA_REFINE_MAX) */
    for (slong i = 1; i < k; i++)
        for (slong j = i; j > 0 && tau[ord[j]] < tau[ord[j - 1]]; j--) {
            slong x = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = x;
        }
    for (slong i = 0; i < k; i++)
        cl[ord[i]] = i > 0 && tau[ord[i]] - tau[ord[i - 1]] <= 1e-6 * fabs(tau[ord[i]])
                         ? cl[ord[i - 1]]
                         : ord[i];
    for (slong i = 0; i < k; i++)
        for (slong j = 0; j < k; j++) {
            arb_get_mid_arb(e, arb_mat_entry(M, i, j));
            if (i == j)
                arb_sub_ui(e, e, 1, prec);
            if (i == j || cl[i] == cl[j]) {
                arb_mul_2exp_si(arb_mat_entry(G, i, j), e, -1);
                arb_neg(arb_mat_entry(G, i, j), arb_mat_entry(G, i, j));
            } else {
                arb_get_mid_arb(f, arb_mat_entry(P, i, j));
                arb_set_d(t, tau[i]);
                arb_mul(e, e, t, prec);
                arb_sub(e, e, f, prec);
                arb_set_d(t, tau[j] - tau[i]);
                arb_div(arb_mat_entry(G, i, j), e, t, prec);
            }
            /* an exact number: the transformation is chosen, not computed */
            mag_zero(arb_radref(arb_mat_entry(G, i, j)));
        }
    for (slong i = 0; i < k; i++)
        arb_add_ui(arb_mat_entry(G, i, i), arb_mat_entry(G, i, i), 1, prec);
    ga_arb_mat_mul(T, G, C, prec);
    arb_mat_get_mid(C, T);
cleanup:
    free(tau);
    free(ord);
    arb_mat_clear(G);
    arb_mat_clear(T);
    arb_clear(e);
    arb_clear(f);
    arb_clear(t);
}

/* C <- R C, R block-diagonal over the clusters of size >= 2: each block the eigenvectors of
 * the cluster's block of P - tau M (scaled to order one), orthonormalised in ball arithmetic
 * (R <- (3 R - R R^T R) / 2, twice: 1e-16 -> 1e-32 -> 1e-64, or the accuracy of the BLAS's
 * products, about 1e-30, from k = 64), identity elsewhere. Returns
 * 1 when C changed (some cluster was rotated), else 0. */
static int cluster_rotations(arb_mat_t C, const arb_mat_t M, const arb_mat_t P, const slong *cl,
                              slong prec)
{
    slong k = arb_mat_nrows(M);
    arb_mat_t R, T, U;
    arb_mat_init(R, k, k);
    arb_mat_init(T, k, k);
    arb_mat_init(U, k, k);
    arb_mat_one(R);
    slong *idx = malloc((size_t)k * sizeof *idx);
    double *B = malloc((size_t)k * (size_t)k * sizeof *B), *w = malloc((size_t)k * sizeof *w);
    int any = 0;
    for (slong c = 0; c < k && idx && B && w; c++) {
        slong m = 0;
        for (slong i = 0; i < k; i++)
            if (cl[i] == c)
                idx[m++] = i;
        if (m < 2)
            continue;
        double tau = arf_get_d(arb_midref(arb_mat_entry(P, c, c)), ARF_RND_NEAR) /
                     arf_get_d(arb_midref(arb_mat_entry(M, c, c)), ARF_RND_NEAR);
        double big = 0;
        arb_t x, y;
        arb_init(x);
        arb_init(y);
        for (slong a = 0; a < m; a++)
            for (slong b = 0; b < m; b++) {
                arb_get_mid_arb(x, arb_mat_entry(M, idx[a], idx[b]));
                arb_set_d(y, tau);
                arb_mul(x, x, y, prec);
                arb_get_mid_arb(y, arb_mat_entry(P, idx[a], idx[b]));
                arb_sub(x, y, x, prec);
                B[a * m + b] = arf_get_d(arb_midref(x), ARF_RND_NEAR);
                big = fmax(big, fabs(B[a * m + b]));
            }
        arb_clear(x);
        arb_clear(y);
        if (!(big > 0) || !isfinite(big))
            continue; /* nothing to separate (equal to the working precision) */
        for (slong a = 0; a < m * m; a++)
            B[a] /= big;
        for (slong a = 0; a < m; a++) /* symmetric to the last bit for LAPACK */
            for (slong b = 0; b < a; b++)
                B[a * m + b] = B[b * m + a] = 0.5 * (B[a * m + b] + B[b * m + a]);
        if (ga_lapack_syev('V', 'U', m, B, m, w) != 0)
            continue;
        for (slong a = 0; a < m; a++) /* R's rows: the eigenvectors (B's columns) */
            for (slong b = 0; b < m; b++)
                arb_set_d(arb_mat_entry(R, idx[a], idx[b]), B[b * m + a]);
        any = 1;
    }
    if (any) {
        for (int it = 0; it < 2; it++) {
            arb_mat_transpose(T, R);
            ga_arb_mat_mul(U, R, T, prec);  /* R R^T */
            ga_arb_mat_mul(T, U, R, prec);  /* R R^T R */
            arb_mat_scalar_mul_2exp_si(U, R, 1);
            arb_mat_add(U, U, R, prec);  /* 3 R */
            arb_mat_sub(U, U, T, prec);
            arb_mat_scalar_mul_2exp_si(U, U, -1);
            arb_mat_get_mid(R, U);
        }
        ga_arb_mat_mul(T, R, C, prec);
        arb_mat_get_mid(C, T);
    }
    free(idx);
    free(B);
    free(w);
    arb_mat_clear(R);
    arb_mat_clear(T);
    arb_mat_clear(U);
    return any;
}

int pc_la_refined(mag_t tvx, mag_t tvy, la_ref *f, const ga_pair *p, const ga_pair_input *in,
                  const ga_pair_text *txt, slong zbits, double deadline, slong prec)
{
    slong k = (slong)p->k;
    int rc = -1;
    arb_mat_t M, P, v, W;
    la_inputs q;
    slong *cl = malloc((size_t)(k ? k : 1) * sizeof *cl); /* (k = 0: a block of equal laws) */
    arb_mat_init(M, k, k);
    arb_mat_init(P, k, k);
    arb_mat_init(v, k, 1);
    arb_mat_init(W, k, k);
    la_inputs_init(&q, k);
    if (!cl || floating_inverse_basis(W, p) || la_inputs_read(&q, in, txt, prec))
        goto cleanup;
    la_whiten(M, P, v, W, &q, prec);
    for (int step = 0; step < 3; step++) {
        if (ga_expired(deadline))
            goto cleanup;
        /* a first-order pass, the clusters' rotations (where there are clusters), and a
         * second first-order pass that sees the rotated clusters' values separated */
        int changed = 1;
        if (step == 1)
            changed = cluster_rotations(W, M, P, cl, prec);
        else
            first_order(W, M, P, cl, prec);
        if (changed)
            la_whiten(M, P, v, W, &q, prec);
    }
    if (ga_expired(deadline))
        goto cleanup;
    for (slong i = 0; i < k; i++) {
        arb_get_mid_arb(f->lam + i, arb_mat_entry(P, i, i));
        arb_sub_ui(f->lam + i, f->lam + i, 1, prec);
        arb_get_mid_arb(f->lam + i, f->lam + i);
        /* a direction where the laws agree far beyond the width asked (the d - 1 equal
         * directions of a rank-one change come out near 1e-60 from Arb's products, at the
         * level of the radius of P_ii from the BLAS's) is given lam = 0, a normal component:
         * a coefficient of 1e-60 would be exact too, but the integrand decays along the path
         * only beyond 1e60 (a coefficient of 1e-24 left in 69 directions made the integrals
         * fail up to 512 bits). Any reference is valid; la_kl charges the difference, a TV
         * of about |lam|, below 2^-zbits or 64 times the radius. */
        mag_t th, al;
        mag_init(th);
        mag_init(al);
        mag_mul_2exp_si(th, arb_radref(arb_mat_entry(P, i, i)), 6);
        arf_get_mag(al, arb_midref(f->lam + i));
        if (arf_cmpabs_2exp_si(arb_midref(f->lam + i), -zbits) < 0 || mag_cmp(al, th) <= 0)
            arb_zero(f->lam + i);
        mag_clear(th);
        mag_clear(al);
        if (!(arf_cmp_si(arb_midref(f->lam + i), -1) > 0))
            goto cleanup;
        arb_get_mid_arb(f->mt + i, arb_mat_entry(v, i, 0));
    }
    rc = la_kl(tvx, tvy, M, P, v, f, p->r, prec);
cleanup:
    free(cl);
    arb_mat_clear(M);
    arb_mat_clear(P);
    arb_mat_clear(v);
    arb_mat_clear(W);
    la_inputs_clear(&q);
    return rc;
}

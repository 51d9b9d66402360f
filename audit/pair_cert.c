/*
 * pair_cert.c - certified delta of a Gaussian pair (doc/design.md, section 4).
 *
 * 1. The floating reduction (L, V, lambda, mt) defines an exact pair: in whitened
 *    coordinates Y'' = N(0, I) and X'' = N(mt, diag(1 + lambda)) with the stored doubles as
 *    exact numbers. Its privacy loss laws are generalized chi-squares whose parameters are
 *    computed here in ball arithmetic, and delta'' = E[(1 - e^{eps - l})_+] is certified by
 *    the Bromwich integral with kernel 1/(z (z+1)) (numerics/cert.c).
 * 2. Hockey-stick divergence is invariant under an invertible affine map applied to both
 *    laws, so delta'' is also the delta of the pair W^{-1} (Y'', X'') for any invertible W.
 *    W ~ (L V)^{-1} is computed in floating point (a triangular solve) and taken as exact
 *    numbers, so the exact inputs are whitened by ball-matrix products alone: M = W S_y W^T,
 *    P = W S_x W^T, v = W (mu_x - mu_y). For every event S, |P_X(S) - P_X''(S)| <=
 *    TV(X, X''), so
 *      |delta_{X,Y} - delta_{X'',Y''}| <= TV(X, X'') + e^eps TV(Y, Y''),
 *    and TV <= sqrt(KL / 2) (Pinsker), with the Gaussian KL divergences (E = M - I,
 *    E' = D^{-1/2} P D^{-1/2} - I, D = diag(1 + lambda))
 *      KL(Y || Y'') = r/2 [tr E - log det(I + E)] <= r/2 ||E||_F^2 / (2 (1 - ||E||_F)),
 *      KL(X || X'') = r/2 [tr E' - log det(I + E') + sum (mt_i - v_i)^2 / (1 + lambda_i)],
 *    bounded alike: O(k^2) from the entries, no determinant (la_kl). Together with the
 *    products this makes the certificate a few k x k products per precision level (issue
 *    20, item 8: five ball solves and two determinants before).
 *    The interval is widened by that bound. It does not shrink with the working precision:
 *    the escalation stops once the integration part is below it.
 * 3. Where that widening keeps the interval wider than asked, the reference pair is refined
 *    (la_refined: a basis W chosen so that W S_y W^T and W S_x W^T are diagonal to about
 *    1e-30 relative) and the integrals are computed again for it; the KL bounds of step 2 are
 *    computed against the refined reference, so the widening falls to 1e-36 (k = 50) to
 *    2e-23 (k = 2000: the BLAS products' own accuracy, below).
 * From dimension 64 the ball-matrix products run on the BLAS (ga_arb_mat_mul,
 * numerics/matmul.c: exact products of 20- to 23-bit limbs, about 2^-100 of the scale),
 * 3.5 times faster than Arb's at k = 1000.
 */
#include "numerics/arb_internal.h"
#include "audit/pair_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PARSE_PREC 4300

/* x <- x * d for a double d (exact conversion) */
static void mul_d(arb_t x, double d, slong prec)
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
static int input_mean(arb_mat_t dm, const ga_pair_input *in, const ga_pair_text *txt, slong prec)
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

/* The reference pair the certified integrals are computed for, in whitened coordinates:
 * Y'' = N(0, I), X'' = N(mt, diag(1 + lam)) (with the pair's r columns). By default lam and
 * mt are the floating reduction's doubles; the refinement below replaces them (and the
 * basis) by values correct to far beyond double precision. */
typedef struct {
    slong k;
    arb_ptr lam, mt; /* exact numbers (radius 0) */
} la_ref;

static void la_ref_init(la_ref *f, slong k)
{
    f->k = k;
    f->lam = _arb_vec_init(k);
    f->mt = _arb_vec_init(k);
}

static void la_ref_clear(la_ref *f)
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
    mul_d(kl, 0.5 * r, prec); /* r/2 is an exact double */
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
    mul_d(kl, 0.5 * r, prec);
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
                   input_mean(q->dm, in, txt, prec)
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

/* M, P and v in the basis W ~ (L V)^{-1} (floating_inverse_basis). 0, or -1. */
static int la_whiten_floating(arb_mat_t M, arb_mat_t P, arb_mat_t v, const ga_pair *p,
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

/* Upper bounds (mags) of TV(X, X'') and TV(Y, Y'') against the floating reduction's own
 * exact pair. Returns 0 on success. */
static int la_certificate(mag_t tvx, mag_t tvy, const ga_pair *p, const ga_pair_input *in,
                          const ga_pair_text *txt, slong prec)
{
    slong k = (slong)p->k;
    arb_mat_t M, P, v;
    la_ref f;
    arb_mat_init(M, k, k);
    arb_mat_init(P, k, k);
    arb_mat_init(v, k, 1);
    la_ref_init(&f, k);
    la_ref_floating(&f, p);
    int rc = la_whiten_floating(M, P, v, p, in, txt, prec) ? -1
                                                            : la_kl(tvx, tvy, M, P, v, &f, p->r, prec);
    arb_mat_clear(M);
    arb_mat_clear(P);
    arb_mat_clear(v);
    la_ref_clear(&f);
    return rc;
}

/* ---------------------------------------------------------------- refinement (item 8)
 *
 * The floating reduction is correct to about 1e-16 relative, and so is the reference pair it
 * defines: the TV widening above is of that order whatever the working precision. Where a
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
#define GA_REFINE_MAX 2048

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

/* TV bounds against the refined reference f (filled in; a |lam_i| below 2^-zbits is taken
 * as 0). Each step changes the basis W (W <- (I + G) W, W <- R W: chosen matrices, taken as
 * exact) and recomputes M, P, v = W S_y W^T, W S_x W^T, W (mu_x - mu_y) from the exact inputs,
 * so that the radii of the final M, P are those of two products (a radius carried through
 * C M C^T for a dense rotation C would grow by k). Returns 0 on success, -1 on failure or
 * once the deadline has passed (checked between the steps: each takes seconds at k = 2000). */
static int la_refined(mag_t tvx, mag_t tvy, la_ref *f, const ga_pair *p, const ga_pair_input *in,
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

/* The exact loss laws of the exact whitened pair: lx'' (l under X'') and ly'' (-l under
 * Y''), parameters in ball arithmetic from the reference f (NULL: the stored doubles). */
static void exact_forms(ga_gchisq_exact *lx, ga_gchisq_exact *ly, const ga_pair *p,
                        const la_ref *f, slong prec)
{
    arb_t lam, tau, m2, t, r;
    arb_init(lam);
    arb_init(tau);
    arb_init(m2);
    arb_init(t);
    arb_init(r);
    ga_arb_exact_resize(lx, (slong)p->k);
    ga_arb_exact_resize(ly, (slong)p->k);
    lx->n = ly->n = 0;
    arb_zero(lx->offset);
    arb_zero(ly->offset);
    arb_zero(lx->sigma2);
    arb_zero(ly->sigma2);
    arb_set_d(r, p->r);
    for (size_t i = 0; i < p->k; i++) {
        if (f) {
            arb_set(lam, f->lam + i);
            arb_set(m2, f->mt + i);
        } else {
            arb_set_d(lam, p->lambda[i]);
            arb_set_d(m2, p->mt[i]);
        }
        arb_add_ui(tau, lam, 1, prec);
        arb_sqr(m2, m2, prec);
        arb_mul(m2, m2, r, prec); /* r mt^2 */
        /* offsets: lx += r(-1/2 log tau + mt^2/2), ly += r(1/2 log tau + mt^2/(2 tau)) */
        arb_log1p(t, lam, prec);
        arb_mul(t, t, r, prec);
        arb_mul_2exp_si(t, t, -1);
        arb_sub(lx->offset, lx->offset, t, prec);
        arb_add(ly->offset, ly->offset, t, prec);
        arb_mul_2exp_si(t, m2, -1);
        arb_add(lx->offset, lx->offset, t, prec);
        arb_div(t, t, tau, prec);
        arb_add(ly->offset, ly->offset, t, prec);
        if (arb_is_zero(lam)) { /* a = 0: normal components with variance r mt^2 */
            arb_add(lx->sigma2, lx->sigma2, m2, prec);
            arb_add(ly->sigma2, ly->sigma2, m2, prec);
            continue;
        }
        slong j = lx->n++;
        ly->n++;
        arb_mul_2exp_si(lx->a + j, lam, -1);
        arb_set(lx->nu + j, r);
        arb_mul(lx->b2 + j, m2, tau, prec);
        arb_div(ly->a + j, lam, tau, prec);
        arb_mul_2exp_si(ly->a + j, ly->a + j, -1);
        arb_neg(ly->a + j, ly->a + j);
        arb_set(ly->nu + j, r);
        arb_div(ly->b2 + j, m2, tau, prec);
        arb_div(ly->b2 + j, ly->b2 + j, tau, prec);
    }
    arb_clear(lam);
    arb_clear(tau);
    arb_clear(m2);
    arb_clear(t);
    arb_clear(r);
}

/* q += t (independent sum of exact laws) */
static void exact_append(ga_gchisq_exact *q, const ga_gchisq_exact *t, slong prec)
{
    ga_arb_exact_resize(q, q->n + t->n);
    for (slong j = 0; j < t->n; j++) {
        arb_set(q->a + q->n + j, t->a + j);
        arb_set(q->nu + q->n + j, t->nu + j);
        arb_set(q->b2 + q->n + j, t->b2 + j);
    }
    q->n += t->n;
    arb_add(q->offset, q->offset, t->offset, prec);
    arb_add(q->sigma2, q->sigma2, t->sigma2, prec);
}

/* The exact losses of a product pair in its original directions (l under X, -l under Y):
 * the sums of its blocks' (each block's exact_forms, exchanged where the block's reduction
 * whitened by X). Returns 0, or -1 when out of memory. */
/* (f: the refined reference of every block, concatenated in block order; NULL: the
 * blocks' doubles) */
static int product_exact_forms(ga_gchisq_exact *lx, ga_gchisq_exact *ly, const ga_pair *p,
                               const la_ref *f, slong prec)
{
    ga_gchisq_exact *ex = ga_gchisq_exact_alloc(), *ey = ga_gchisq_exact_alloc();
    int rc = ex && ey ? 0 : -1;
    lx->n = ly->n = 0;
    arb_zero(lx->offset);
    arb_zero(ly->offset);
    arb_zero(lx->sigma2);
    arb_zero(ly->sigma2);
    slong off = 0;
    for (size_t b = 0; b < p->nblocks && rc == 0; b++) {
        const ga_pair *q = p->blocks[b];
        la_ref slice = {(slong)q->k, f ? f->lam + off : NULL, f ? f->mt + off : NULL};
        off += (slong)q->k;
        exact_forms(ex, ey, q, f ? &slice : NULL, prec);
        exact_append(lx, q->swapped ? ey : ex, prec);
        exact_append(ly, q->swapped ? ex : ey, prec);
    }
    ga_gchisq_exact_free(ex);
    ga_gchisq_exact_free(ey);
    return rc;
}

/* the inputs of the pair (Y, X): for a pair whose reduction whitened by X */
static void swap_input(ga_pair_input *in2, ga_pair_text *t2, const ga_pair_text **tp,
                       const ga_pair_input *in, const ga_pair_text *txt)
{
    *in2 = *in;
    in2->mu_x = in->mu_y;
    in2->mu_y = in->mu_x;
    in2->s_x = in->s_y;
    in2->s_y = in->s_x;
    in2->field[0] = in->field[1];
    in2->field[1] = in->field[0];
    in2->field[2] = in->field[3];
    in2->field[3] = in->field[2];
    *tp = NULL;
    if (txt) {
        t2->mu_x = txt->mu_y;
        t2->mu_y = txt->mu_x;
        t2->s_x = txt->s_y;
        t2->s_y = txt->s_x;
        *tp = t2;
    }
}

/* Q ~ N(k, s^2) (a mean shift with equal covariances): the closed form of the analytic
 * Gaussian mechanism (Balle & Wang 2018, Theorem 8), in ball arithmetic,
 *   E[(1 - e^{eps - Q})_+] = Phi(u) - e^{eps - k + s^2/2} Phi(u - s),  u = (k - eps)/s,
 * with Phi(z) = erfc(-z/sqrt 2)/2. Arb carries any exponent, so a claim at eps = 1e300 (a
 * delta near exp(-1e600), the two terms equal to 300 digits) is settled by escalating the
 * precision, with no integral. */
/* h(x) = e^{x^2} erfc(x) sqrt(pi) x for real x >= 64 by the asymptotic series
 * sum_{m<N} (-1)^m (2m-1)!!/(2x^2)^m, whose remainder is bounded by the first omitted term
 * (DLMF 7.12.1 and 7.12(i), real argument): terms are taken until one is below 2^-prec
 * (they decrease while m < x^2, so at most a few prec/log2(x) terms). */
static void erfc_scaled_large(arb_t h, const arb_t x, slong prec)
{
    arb_t t, y;
    arb_init(t);
    arb_init(y);
    arb_sqr(y, x, prec);
    arb_mul_2exp_si(y, y, 1); /* 2 x^2 */
    arb_one(h);
    arb_one(t);
    for (slong m = 1; m < 100000; m++) {
        arb_mul_si(t, t, -(2 * m - 1), prec);
        arb_div(t, t, y, prec);
        if (arb_rel_accuracy_bits(t) < 0 || mag_cmp_2exp_si(arb_radref(t), 0) > 0)
            break;
        arf_t a;
        arf_init(a);
        arb_get_abs_ubound_arf(a, t, prec);
        int small = arf_cmpabs_2exp_si(a, -prec - 8) < 0;
        arf_clear(a);
        if (small) { /* the first omitted term bounds the remainder */
            arb_add_error(h, t);
            break;
        }
        arb_add(h, h, t, prec);
    }
    arb_clear(t);
    arb_clear(y);
}

static void delta_normal_ball(arb_t res, const ga_gchisq_exact *q, const arb_t eps, slong prec)
{
    arb_t s, u, t, r2;
    arb_init(s);
    arb_init(u);
    arb_init(t);
    arb_init(r2);
    arb_sqrt(s, q->sigma2, prec);
    arb_sub(u, q->offset, eps, prec);
    arb_div(u, u, s, prec);
    arb_set_ui(r2, 2);
    arb_rsqrt(r2, r2, prec);
    arb_mul(t, u, r2, prec);
    arb_neg(t, t); /* x1 = -u/sqrt 2 */
    if (arb_gt(t, r2) && arf_cmp_si(arb_midref(t), 64) > 0 && arb_rel_accuracy_bits(t) > 8) {
        /* far tail (eps >> the loss mean): with x1 = (eps - k)/(s sqrt 2) and x2 = x1 +
         * s/sqrt 2, x2^2 - x1^2 = eps - k + s^2/2 exactly, so the exponential factors agree
         * and delta = e^{-x1^2} (h(x1)/x1 - h(x2)/x2) / (2 sqrt pi), h as above: no erfc of an
         * argument beyond Arb's reach, the cancellation (about s/x1) paid in precision */
        arb_t x2, h1, h2;
        arb_init(x2);
        arb_init(h1);
        arb_init(h2);
        arb_mul(x2, s, r2, prec);
        arb_add(x2, x2, t, prec);
        erfc_scaled_large(h1, t, prec);
        arb_div(h1, h1, t, prec);
        erfc_scaled_large(h2, x2, prec);
        arb_div(h2, h2, x2, prec);
        arb_sub(h1, h1, h2, prec);
        arb_sqr(h2, t, prec);
        arb_neg(h2, h2);
        arb_exp(h2, h2, prec);
        arb_mul(res, h1, h2, prec);
        arb_const_sqrt_pi(h2, prec);
        arb_div(res, res, h2, prec);
        arb_mul_2exp_si(res, res, -1);
        arb_clear(x2);
        arb_clear(h1);
        arb_clear(h2);
        goto cleanup;
    }
    arb_mul(t, u, r2, prec);
    arb_neg(t, t);
    arb_hypgeom_erfc(res, t, prec); /* 2 Phi(u) */
    arb_sub(t, u, s, prec);
    arb_mul(t, t, r2, prec);
    arb_neg(t, t);
    arb_hypgeom_erfc(t, t, prec); /* 2 Phi(u - s) */
    arb_mul_2exp_si(u, q->sigma2, -1);
    arb_sub(u, u, q->offset, prec);
    arb_add(u, u, eps, prec);
    arb_exp(u, u, prec);
    arb_mul(t, t, u, prec);
    arb_sub(res, res, t, prec);
    arb_mul_2exp_si(res, res, -1);
cleanup:
    arb_clear(s);
    arb_clear(u);
    arb_clear(t);
    arb_clear(r2);
}

/* Equal covariances (as exact numbers): the privacy loss is N(r D2/2, r D2) under X and
 * -l ~ N(r D2/2, r D2) under Y, D2 = (mu_x - mu_y)^T S^{-1} (mu_x - mu_y) the squared
 * Mahalanobis distance, computed here in ball arithmetic from the exact inputs: no floating
 * reduction, so no linear-algebra widening and no e^eps growth of the certificate. Returns
 * 1 with d2 = r D2 when the covariances are equal, 0 when they are not, 2 when the solve
 * fails at this precision, -1 on an unparsable entry. */
static int equal_cov_d2_plain(arb_t d2, const ga_pair *p, const ga_pair_input *in,
                              const ga_pair_text *txt, slong prec);

/* the same for any pair: a product's blocks add (independent losses; the first block whose
 * covariances differ, or whose solve fails, decides) */
static int equal_cov_d2(arb_t d2, const ga_pair *p, const ga_pair_input *in,
                        const ga_pair_text *txt, slong prec)
{
    if (!p->nblocks)
        return equal_cov_d2_plain(d2, p, in, txt, prec);
    arb_t u;
    arb_init(u);
    arb_zero(d2);
    int rc = 1;
    for (size_t b = 0; b < p->nblocks && rc == 1; b++) {
        rc = equal_cov_d2_plain(u, p->blocks[b], in + b, txt ? txt + b : NULL, prec);
        arb_add(d2, d2, u, prec);
    }
    arb_clear(u);
    return rc;
}

static int equal_cov_d2_plain(arb_t d2, const ga_pair *p, const ga_pair_input *in,
                              const ga_pair_text *txt, slong prec)
{
    slong k = (slong)in->d;
    int rc = 0;
    arb_mat_t S, dm, z;
    arb_t u, v;
    arb_mat_init(S, k, k);
    arb_mat_init(dm, k, 1);
    arb_mat_init(z, k, 1);
    arb_init(u);
    arb_init(v);
    for (slong i = 0; i < k * k; i++) {
        if (ga_cert_entry(u, txt ? txt->s_x : NULL, in->s_x, (size_t)i) ||
            ga_cert_entry(v, txt ? txt->s_y : NULL, in->s_y, (size_t)i)) {
            rc = -1;
            goto cleanup;
        }
        if (!arb_equal(u, v)) /* exact numbers: equal balls of radius 0 */
            goto cleanup;
        arb_set(arb_mat_entry(S, i / k, i % k), u);
    }
    for (slong i = 0; i < k; i++) {
        if (ga_cert_entry(u, txt ? txt->mu_x : NULL, in->mu_x, (size_t)i) ||
            ga_cert_entry(v, txt ? txt->mu_y : NULL, in->mu_y, (size_t)i)) {
            rc = -1;
            goto cleanup;
        }
        arb_sub(arb_mat_entry(dm, i, 0), u, v, PARSE_PREC);
    }
    int diagonal = 1; /* sigma^2 I and other diagonal noise: D2 = sum dm_i^2 / S_ii, O(k) */
    for (slong i = 0; i < k && diagonal; i++)
        for (slong j = 0; j < k && diagonal; j++)
            diagonal = i == j || arb_is_zero(arb_mat_entry(S, i, j));
    if (diagonal) {
        for (slong i = 0; i < k; i++)
            arb_div(arb_mat_entry(z, i, 0), arb_mat_entry(dm, i, 0), arb_mat_entry(S, i, i), prec);
    } else if (!arb_mat_spd_solve(z, S, dm, prec) && !arb_mat_solve(z, S, dm, prec)) {
        rc = 2;
        goto cleanup;
    }
    arb_zero(d2);
    for (slong i = 0; i < k; i++)
        arb_addmul(d2, arb_mat_entry(dm, i, 0), arb_mat_entry(z, i, 0), prec);
    arb_set_d(v, p->r);
    arb_mul(d2, d2, v, prec);
    rc = 1;
cleanup:
    arb_mat_clear(S);
    arb_mat_clear(dm);
    arb_mat_clear(z);
    arb_clear(u);
    arb_clear(v);
    return rc;
}

/* delta of an equal-covariance pair from its r D2 (see equal_cov_d2): 1 when done, else the
 * return of equal_cov_d2 */
static int equal_cov_delta(arb_t xy, const ga_pair *p, const ga_pair_input *in,
                           const ga_pair_text *txt, const arb_t eps, slong prec)
{
    arb_t u;
    arb_init(u);
    int rc = equal_cov_d2(u, p, in, txt, prec);
    if (rc == 2)
        rc = 0; /* not settled at this precision */
    if (rc == 1) {
        if (arb_is_zero(u)) {
            arb_zero(xy); /* X = Y */
        } else if (!arb_is_positive(u)) {
            rc = 0;
        } else {
            ga_gchisq_exact *q = ga_gchisq_exact_alloc();
            if (!q) {
                rc = -1;
            } else {
                arb_set(q->sigma2, u);
                arb_mul_2exp_si(q->offset, u, -1);
                q->n = 0;
                delta_normal_ball(xy, q, eps, prec);
                ga_gchisq_exact_free(q);
            }
        }
    }
    arb_clear(u);
    return rc;
}

/* the squared Mahalanobis distance r D2 of an equal-covariance pair, escalated */
typedef struct {
    const ga_pair *p;
    const ga_pair_input *in;
    const ga_pair_text *txt;
    arb_ptr d2;
    ga_interval *t2;
} maha_ctx;

static int maha_step(void *vc, slong prec)
{
    maha_ctx *c = vc;
    int e = equal_cov_d2(c->d2, c->p, c->in, c->txt, prec);
    if (e < 0)
        return GA_EINVAL;
    if (e == 0)
        return GA_EDOM; /* the covariances differ */
    if (e == 2)
        return GA_EPREC; /* the solve did not settle at this precision */
    ga_arb_bounds(c->t2, c->d2);
    if (c->t2->lo < 0)
        c->t2->lo = 0;
    return arb_rel_accuracy_bits(c->d2) >= 60 || arb_is_zero(c->d2) ? GA_OK : GA_EPREC;
}

int ga_pair_mahalanobis_cert(ga_interval *t2, const ga_pair *p, const ga_pair_input *in,
                             const ga_pair_text *txt, const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    t2->lo = 0;
    t2->hi = INFINITY;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    if (p->support != GA_SUPPORT_FULL || p->ploss)
        return GA_EDOM;
    if (p->in_tv[0] > 0 || p->in_tv[1] > 0) { /* a release: its D2 from the exact inputs */
        if (!(p->in_d2[1] > 0))
            return GA_EDOM;
        t2->lo = ga_dn(p->r * p->in_d2[0]);
        t2->hi = ga_up(p->r * p->in_d2[1]);
        return GA_OK;
    }
    arb_t d2;
    arb_init(d2);
    maha_ctx c = {p, in, txt, d2, t2};
    int rc = ga_arb_escalate(NULL, maha_step, &c, 128, o.max_prec, o.deadline);
    arb_clear(d2);
    return rc;
}

/* certified E[(1 - e^{eps - Q})_+] for the exact law q (double twin qd for the path) */
static int delta_one(arb_t res, const ga_gchisq_exact *q, const ga_gchisq *qd, const arb_t eps,
                     double epsd, double deadline, slong prec)
{
    arb_t cdf, sf;
    arb_init(cdf);
    arb_init(sf);
    int rc;
    if (ga_arb_exact_support(cdf, sf, q, eps) && arb_is_zero(sf)) {
        arb_zero(res); /* Q <= eps almost surely */
        rc = GA_OK;
    } else if (q->n == 0 && arb_is_positive(q->sigma2)) {
        delta_normal_ball(res, q, eps, prec);
        rc = arb_is_finite(res) ? GA_OK : GA_EPREC;
    } else {
        ga_path dp;
        rc = ga_path_setup(&dp, qd, epsd, 1, GA_KERNEL_DELTA);
        dp.deadline = deadline;
        if (rc == GA_OK)
            rc = ga_arb_path_tail(res, q, eps, &dp, prec);
    }
    arb_clear(cdf);
    arb_clear(sf);
    return rc;
}

static int delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                      const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts);

static int renyi_ball(arb_t res, const arb_mat_t Sp, const arb_mat_t Sq, const arb_mat_t dm,
                      const arb_t alpha, double r, slong prec);

/*
 * A certificate whose linear-algebra part does not grow like e^eps (issue "Trust", item 7).
 * If D_alpha(P||Q) <= rho then P[S] <= e^h Q[S] + exp((alpha - 1)(rho - h)) for every event S
 * and h > 0 (RDP to DP, Mironov 2017, Prop. 3). The floating pair (X'', Y'') is within
 * Renyi divergence ~sqrt(KL) of the exact (X, Y) at alpha - 1 ~ 1/sqrt(KL), so with
 * h ~ 8 sqrt(KL) (eps + 1100) these deltas are below e^-(eps + 1000), and for every S
 * (direction xy)
 *   delta_xy(eps) <= e^h delta''_xy(eps - 2h) + d(X||X'') + e^(eps - h) d(Y''||Y),
 *   delta_xy(eps) >= e^-h delta''_xy(eps + 2h) - e^-h d(X''||X) - e^eps d(Y||Y''),
 * d(P||Q) = exp((alpha - 1)(D_alpha(P||Q) - h)); direction yx with X and Y exchanged. The
 * e^eps only multiplies the e^-1000 terms; the price is the shift 2h of eps (a relative
 * change of delta of about 2h |d log delta / d eps|, ~1e-11). In whitened coordinates
 * (W ~ (L V)^{-1}, floating_inverse_basis): X = N(v, P), X'' = N(mt, diag(1 + lambda)),
 * Y = N(0, M), Y'' = N(0, I), with P = W S_x W^T, M = W S_y W^T, v = W (mu_x - mu_y).
 * On success returns 0 and sets d[0..3] = d(X||X''), d(X''||X), d(Y||Y''), d(Y''||Y) and h.
 */
static int shift_deltas(arb_ptr d, arb_t h, const ga_pair *p, const ga_pair_input *in,
                        const ga_pair_text *txt, double kl, double epsd, slong prec)
{
    slong k = (slong)p->k;
    int rc = -1;
    arb_mat_t M, P, T, Id, v, dm, z;
    arb_t al, t, u;
    arb_mat_init(M, k, k);
    arb_mat_init(P, k, k);
    arb_mat_init(T, k, k);
    arb_mat_init(Id, k, k);
    arb_mat_init(v, k, 1);
    arb_mat_init(dm, k, 1);
    arb_mat_init(z, k, 1);
    arb_init(al);
    arb_init(t);
    arb_init(u);
    if (la_whiten_floating(M, P, v, p, in, txt, prec))
        goto cleanup;
    arb_mat_one(Id);
    arb_mat_zero(T); /* diag(1 + lambda) */
    for (slong i = 0; i < k; i++) {
        arb_set_d(arb_mat_entry(T, i, i), p->lambda[i]);
        arb_add_ui(arb_mat_entry(T, i, i), arb_mat_entry(T, i, i), 1, prec);
        arb_set_d(t, p->mt[i]);
        arb_sub(arb_mat_entry(dm, i, 0), arb_mat_entry(v, i, 0), t, prec); /* v - mt */
    }
    /* alpha - 1 = 1/(8 sqrt(kl)) keeps (alpha - 1) |E| small (|E| ~ 2 sqrt(kl) the deviation
     * of the whitened covariances from each other), so D_alpha ~ alpha kl ~ sqrt(kl)/8;
     * h = 8 sqrt(kl) (eps + 1100) makes (alpha - 1)(h - D_alpha) >= eps + 1000, so that even
     * e^eps times these deltas is below e^-1000 */
    double sk = sqrt(fmax(kl, 1e-300));
    arb_set_d(al, 1 + 0.125 / sk);
    arb_set_d(h, 8 * sk * (fabs(epsd) + 1100));
    arb_mat_zero(z);
    int r0 = renyi_ball(d + 0, P, T, dm, al, p->r, prec);  /* D(X || X'') */
    int r1 = renyi_ball(d + 1, T, P, dm, al, p->r, prec);  /* D(X'' || X) */
    int r2 = renyi_ball(d + 2, M, Id, z, al, p->r, prec);  /* D(Y || Y'') */
    int r3 = renyi_ball(d + 3, Id, M, z, al, p->r, prec);  /* D(Y'' || Y) */
    if (r0 || r1 || r2 || r3)
        goto cleanup;
    arb_sub_ui(u, al, 1, prec);
    for (int i = 0; i < 4; i++) { /* d = exp((alpha - 1)(D - h)) */
        arb_sub(t, d + i, h, prec);
        arb_mul(t, t, u, prec);
        arb_exp(d + i, t, prec);
    }
    rc = 0;
cleanup:
    arb_mat_clear(M);
    arb_mat_clear(P);
    arb_mat_clear(T);
    arb_mat_clear(Id);
    arb_mat_clear(v);
    arb_mat_clear(dm);
    arb_mat_clear(z);
    arb_clear(al);
    arb_clear(t);
    arb_clear(u);
    return rc;
}

/* [lo, hi] of delta in direction xy (dir 0) or yx (1) by the shifted certificate above,
 * intersected into res; lx, ly the exact loss forms, tx, ty their double twins. Returns 1 when
 * res was narrowed (or confirmed), 0 when the certificate was not available. */
static int shift_bound(arb_t res, int dir, const ga_gchisq_exact *lx, const ga_gchisq_exact *ly,
                       const ga_gchisq *tx, const ga_gchisq *ty, arb_srcptr dd, const arb_t h,
                       const arb_t eps, double deadline, slong prec)
{
    const ga_gchisq_exact *q = dir ? ly : lx;
    const ga_gchisq *qd = dir ? ty : tx;
    /* xy: d(X||X''), d(Y''||Y) up; d(X''||X), d(Y||Y'') down. yx: X and Y exchanged */
    arb_srcptr up_a = dir ? dd + 2 : dd + 0, up_b = dir ? dd + 1 : dd + 3;
    arb_srcptr lo_a = dir ? dd + 3 : dd + 1, lo_b = dir ? dd + 0 : dd + 2;
    arb_t e2, lo, hi, t, eh;
    arb_init(e2);
    arb_init(lo);
    arb_init(hi);
    arb_init(t);
    arb_init(eh);
    int ok = 0;
    arb_exp(eh, h, prec);
    /* upper: e^h delta''(eps - 2h) + up_a + e^(eps - h) up_b */
    arb_mul_2exp_si(e2, h, 1);
    arb_sub(e2, eps, e2, prec);
    double e2d = arf_get_d(arb_midref(e2), ARF_RND_NEAR);
    if (delta_one(hi, q, qd, e2, e2d, deadline, prec) != GA_OK)
        goto cleanup;
    arb_mul(hi, hi, eh, prec);
    arb_add(hi, hi, up_a, prec);
    arb_sub(t, eps, h, prec);
    arb_exp(t, t, prec);
    arb_mul(t, t, up_b, prec);
    arb_add(hi, hi, t, prec);
    /* lower: e^-h delta''(eps + 2h) - e^-h lo_a - e^eps lo_b */
    arb_mul_2exp_si(e2, h, 1);
    arb_add(e2, eps, e2, prec);
    e2d = arf_get_d(arb_midref(e2), ARF_RND_NEAR);
    if (delta_one(lo, q, qd, e2, e2d, deadline, prec) != GA_OK)
        goto cleanup;
    arb_sub(lo, lo, lo_a, prec);
    arb_div(lo, lo, eh, prec);
    arb_exp(t, eps, prec);
    arb_mul(t, t, lo_b, prec);
    arb_sub(lo, lo, t, prec);
    /* the enclosure [lower end of lo, upper end of hi] */
    arf_t a, b;
    arf_init(a);
    arf_init(b);
    arb_get_lbound_arf(a, lo, prec);
    arb_get_ubound_arf(b, hi, prec);
    if (arf_cmp(a, b) <= 0) {
        arb_set_interval_arf(t, a, b, prec);
        if (!arb_is_finite(res) || arb_intersection(t, t, res, prec)) {
            arb_set(res, t);
            ok = 1;
        }
    }
    arf_clear(a);
    arf_clear(b);
cleanup:
    arb_clear(e2);
    arb_clear(lo);
    arb_clear(hi);
    arb_clear(t);
    arb_clear(eh);
    return ok;
}

/* ------------------------------------------------------------ subsampled pairs */

/* bits of relative accuracy that make `digits` decimal digits */
static slong want_bits(int digits)
{
    return (slong)ceil(digits * 3.3219280948873623) + 1;
}


typedef struct {
    const ga_pair *p;
    const char *eps;
    arb_t xy, yx;
    slong want;
} sub_ctx;

/* the exact q and m = norm/sigma of term j (decimal text, or the doubles as given) */
static int sub_params(arb_t q, arb_t m, const ga_pair *p, size_t j, slong prec)
{
    const char *qt = p->ptxt[3 * j], *st = p->ptxt[3 * j + 1], *nt = p->ptxt[3 * j + 2];
    arb_t nv;
    arb_init(nv);
    int rc = GA_OK;
    if ((qt ? arb_set_str(q, qt, prec) : (arb_set_d(q, p->ploss->t[j].q), 0)) ||
        (st ? arb_set_str(m, st, prec) : (arb_set_d(m, p->psigma[2 * j]), 0)) ||
        (nt ? arb_set_str(nv, nt, prec) : (arb_set_d(nv, p->psigma[2 * j + 1]), 0)))
        rc = GA_EINVAL;
    arb_div(m, nv, m, prec);
    arb_clear(nv);
    return rc;
}

/* a masked pair's noncentralities lambda_x = (|x|/sigma)^2, lambda_y = (|x'|/sigma)^2 */
static int masked_params(arb_t lx, arb_t ly, const ga_pair *p, slong prec)
{
    arb_t s;
    arb_init(s);
    int rc = GA_OK;
    for (int k = 0; k < 2 && rc == GA_OK; k++) {
        arb_ptr v = k ? ly : lx;
        const char *nt = p->ptxt[k ? 0 : 2], *st = p->ptxt[1];
        if ((nt ? arb_set_str(v, nt, prec) : (arb_set_d(v, p->psigma[k ? 2 : 1]), 0)) ||
            (st ? arb_set_str(s, st, prec) : (arb_set_d(s, p->psigma[0]), 0)))
            rc = GA_EINVAL;
        arb_div(v, v, s, prec);
        arb_sqr(v, v, prec);
    }
    arb_clear(s);
    return rc;
}

/* one direction of a masked pair: the double threshold as the hint, then Arb */
static int masked_delta(arb_t v, const ga_pair *p, const arb_t lx, const arb_t ly, int dir,
                        const arb_t e, double eps_d, slong prec)
{
    const ga_ploss_term *t = &p->ploss->t[0];
    double dx = t->m * t->m, w;
    ga_result r;
    if (ga_ncx2_delta(&r, &w, t->nu, dir ? t->ly : dx, dir ? dx : t->ly, eps_d) != GA_OK)
        return GA_EPREC;
    if (isnan(w) && r.val == 0 && r.err == 0) { /* no event in double: certify the same */
        arb_t d;
        arb_init(d);
        arb_sub(d, dir ? lx : ly, dir ? ly : lx, prec);
        arb_mul_2exp_si(d, d, -1);
        int ok = arb_le(d, e) || arb_is_zero(d);
        arb_clear(d);
        if (ok) {
            arb_zero(v);
            return GA_OK;
        }
        return GA_EPREC;
    }
    return ga_ncx2_delta_arb(v, t->nu, dir ? ly : lx, dir ? lx : ly, e, w, prec);
}

/* one direction of a synthetic-points pair: the same with the threshold of ga_synth_delta */
static int synth_delta(arb_t v, const ga_pair *p, const arb_t lx, const arb_t ly, int dir,
                       const arb_t e, double eps_d, slong prec)
{
    const ga_ploss_term *t = &p->ploss->t[0];
    double dx = t->m * t->m, z;
    ga_result r;
    if (ga_synth_delta(&r, &z, t->nu, t->pts, dir ? t->ly : dx, dir ? dx : t->ly, eps_d) != GA_OK)
        return GA_EPREC;
    if (isnan(z) && r.val == 0 && r.err == 0) { /* no event in double: the Arb path certifies it */
        int st = ga_synth_delta_arb(v, t->nu, t->pts, dir ? ly : lx, dir ? lx : ly, e, 1, prec);
        return st == GA_OK && arb_is_zero(v) ? GA_OK : GA_EPREC;
    }
    return ga_synth_delta_arb(v, t->nu, t->pts, dir ? ly : lx, dir ? lx : ly, e, z, prec);
}

static int sub_step(void *vc, slong prec)
{
    sub_ctx *c = vc;
    const ga_ploss_term *t = &c->p->ploss->t[0];
    arb_t q, m, e;
    arb_init(q);
    arb_init(m);
    arb_init(e);
    int rc = t->nu > 0 ? masked_params(q, m, c->p, prec) : sub_params(q, m, c->p, 0, prec);
    double eps_d = NAN;
    if (rc == GA_OK && (arb_set_str(e, c->eps, prec) || ga_decimal_to_double(&eps_d, c->eps)))
        rc = GA_EINVAL;
    for (int dir = 0; rc == GA_OK && dir < 2; dir++) {
        arb_t v;
        arb_init(v);
        int st1 = t->nu > 0 && t->pts > 0 ? synth_delta(v, c->p, q, m, dir, e, eps_d, prec)
                  : t->nu > 0  ? masked_delta(v, c->p, q, m, dir, e, eps_d, prec)
                  : t->r > 0 ? ga_ploss_delta_one_chi2_arb(v, q, m, t->r, dir ^ t->add, e, prec)
                             : ga_ploss_delta_one_arb(v, q, m, dir ^ t->add, e, prec);
        if (st1 == GA_OK) {
            arb_ptr dst = dir ? c->yx : c->xy;
            /* keep the narrower of the enclosures met so far (both contain the value) */
            if (!arb_is_finite(dst) || arb_rel_accuracy_bits(v) > arb_rel_accuracy_bits(dst))
                arb_set(dst, v);
        }
        arb_clear(v);
    }
    if (rc == GA_OK) {
        int done = 1;
        for (int dir = 0; dir < 2; dir++) {
            arb_srcptr v = dir ? c->yx : c->xy;
            done &= arb_is_zero(v) || arb_rel_accuracy_bits(v) >= c->want;
        }
        rc = done ? GA_OK : GA_EPREC;
    }
    arb_clear(q);
    arb_clear(m);
    arb_clear(e);
    return rc;
}

/* a subsampled pair's enclosures for output: [0, 1] where none was found, outward decimals */
static void sub_cert_out(ga_delta_cert *out, arb_t xy, arb_t yx, int digits)
{
    if (!arb_is_finite(xy))
        arb_zero_pm_one(xy);
    if (!arb_is_finite(yx))
        arb_zero_pm_one(yx);
    ga_arb_prob_out(&out->xy, out->xy_lo, out->xy_hi, sizeof out->xy_lo, xy, digits + 3);
    ga_arb_prob_out(&out->yx, out->yx_lo, out->yx_hi, sizeof out->yx_lo, yx, digits + 3);
}

/* A composition: the certified Bromwich integral (numerics/ploss_cert.c) per direction, at
 * the precision of the escalation; a direction is done when accurate, or when more precision
 * no longer narrows it (the truncation bounds, not the arithmetic, set its width). */
typedef struct {
    const ga_pair *p;
    arb_t eps;
    arb_t xy, yx;
    double est[2], reltol, deadline;
    slong want, best[2];
    int stalls[2], done[2], fail; /* fail: the first failed evaluation's status */
} comp_ctx;

static int comp_step(void *vc, slong prec)
{
    comp_ctx *c = vc;
    const ga_ploss *L = c->p->ploss;
    slong n = (slong)L->n;
    arb_ptr q = _arb_vec_init(n), m = _arb_vec_init(n);
    int rc = GA_OK;
    for (slong j = 0; j < n && rc == GA_OK; j++)
        rc = sub_params(q + j, m + j, c->p, (size_t)j, prec);
    for (int dir = 0; rc == GA_OK && dir < 2; dir++) {
        if (c->done[dir])
            continue;
        arb_t v;
        arb_init(v);
        int st = ga_ploss_delta_comp_arb(v, L, q, m, dir, c->eps, c->est[dir], c->reltol, prec,
                                         c->deadline);
        if (st == GA_ETIME || st == GA_ENOMEM)
            rc = st;
        else if (st != GA_OK) { /* no enclosure at any precision: [0, 1] for this direction */
            if (!c->fail)
                c->fail = st;
            c->done[dir] = 1;
        }
        arb_ptr dst = dir ? c->yx : c->xy;
        if (arb_is_finite(v) && (!arb_is_finite(dst) || arb_rel_accuracy_bits(v) > arb_rel_accuracy_bits(dst)))
            arb_set(dst, v);
        if (arb_is_zero(dst) || arb_rel_accuracy_bits(dst) >= c->want ||
            ga_arb_stalled(&c->best[dir], &c->stalls[dir], v))
            c->done[dir] = 1;
        arb_clear(v);
    }
    _arb_vec_clear(q, n);
    _arb_vec_clear(m, n);
    if (rc != GA_OK)
        return rc;
    if (!(c->done[0] && c->done[1]))
        return GA_EPREC;
    int acc = 1;
    for (int dir = 0; dir < 2; dir++) {
        arb_srcptr v = dir ? c->yx : c->xy;
        acc &= arb_is_zero(v) || arb_rel_accuracy_bits(v) >= c->want;
    }
    return acc ? GA_OK : GA_ARB_STALLED;
}

static int delta_cert_composition(ga_delta_cert *out, const ga_pair *p, const char *eps,
                                  double e, const ga_cert_opts *o)
{
    ga_delta est;
    int st = ga_pair_delta(&est, p, e, GA_DELTA_AUTO, NULL, NULL);
    if (st == GA_ENOMEM)
        return st;
    comp_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.est[0] = isfinite(est.xy.val) ? est.xy.val : 0;
    c.est[1] = isfinite(est.yx.val) ? est.yx.val : 0;
    c.want = want_bits(o->digits);
    c.reltol = pow(10.0, -(o->digits + 1));
    c.deadline = o->deadline;
    c.best[0] = c.best[1] = LONG_MIN / 2;
    arb_init(c.eps);
    arb_init(c.xy);
    arb_init(c.yx);
    arb_indeterminate(c.xy);
    arb_indeterminate(c.yx);
    int rc = GA_EINVAL;
    if (!arb_set_str(c.eps, eps, 256)) /* a ball containing the decimal */
        rc = ga_arb_escalate(&out->precision_bits, comp_step, &c, 64, o->max_prec, o->deadline);
    if (rc != GA_EINVAL)
        sub_cert_out(out, c.xy, c.yx, o->digits);
    if (c.fail && (rc == GA_OK || rc == GA_EPREC))
        rc = c.fail;
    arb_clear(c.eps);
    arb_clear(c.xy);
    arb_clear(c.yx);
    return rc;
}

/* One subsampled step: the certified closed form; a composition: the certified integral. */
/* Far out (eps > 1000 beyond D_2 by 800): delta_{X,Y}(eps) <= P_X[L > eps] <= E_X[e^L] e^-eps
 * = e^{D_2(X||Y) - eps} (Chernoff at 1), with D_2 certified (ga_ploss_renyi_arb): the interval
 * [0, that bound], where the Bromwich plan would put its saddle near z = eps and need about
 * eps nodes. GA_EPREC (valid, wider than asked), or GA_EDOM when eps is not that far. */
static int delta_cert_far(ga_delta_cert *out, const ga_pair *p, const char *eps,
                          const ga_cert_opts *o)
{
    const ga_ploss *L = p->ploss;
    slong n = (slong)L->n, prec = 128;
    arb_ptr q = _arb_vec_init(n), m = _arb_vec_init(n);
    arb_t a, d2, e, res[2];
    arb_init(a);
    arb_init(d2);
    arb_init(e);
    arb_init(res[0]);
    arb_init(res[1]);
    int rc = arb_set_str(e, eps, PARSE_PREC) ? GA_EINVAL : GA_EPREC;
    for (slong j = 0; j < n && rc == GA_EPREC; j++)
        if (sub_params(q + j, m + j, p, (size_t)j, prec))
            rc = GA_EINVAL;
    arb_set_ui(a, 2);
    for (int dir = 0; dir < 2 && rc == GA_EPREC; dir++) {
        double steps = 0;
        for (size_t j = 0; j < L->n; j++)
            steps += L->t[j].count;
        int st = ga_ploss_renyi_arb(d2, L, q, m, dir, a, fmax(36, log(steps) + 30), prec);
        arb_sub(d2, d2, e, prec);
        arb_t lim;
        arb_init(lim);
        arb_set_si(lim, -800);
        if ((st != GA_OK && st != GA_EPREC) || !arb_is_finite(d2) || !arb_lt(d2, lim))
            rc = GA_EDOM;
        arb_clear(lim);
        arb_exp(d2, d2, prec);
        arb_get_ubound_arf(arb_midref(res[dir]), d2, prec); /* [0, ub] as a ball */
        arb_mul_2exp_si(res[dir], res[dir], -1);
        arf_get_mag(arb_radref(res[dir]), arb_midref(res[dir]));
    }
    if (rc == GA_EPREC)
        sub_cert_out(out, res[0], res[1], o->digits);
    _arb_vec_clear(q, n);
    _arb_vec_clear(m, n);
    arb_clear(a);
    arb_clear(d2);
    arb_clear(e);
    arb_clear(res[0]);
    arb_clear(res[1]);
    return rc;
}

static int delta_cert_subsampled(ga_delta_cert *out, const ga_pair *p, const char *eps,
                                 const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    double e;
    if (ga_decimal_to_double(&e, eps) || o.digits < 1 || o.max_prec < 64)
        return GA_EINVAL;
    if (e > 1000 && p->ploss->t[0].nu == 0 && p->ploss->t[0].r == 0) {
        int r = delta_cert_far(out, p, eps, &o);
        if (r != GA_EDOM)
            return r;
    }
    if (p->ploss->n != 1 || p->ploss->t[0].count != 1)
        return delta_cert_composition(out, p, eps, e, &o);
    sub_ctx c;
    c.p = p;
    c.eps = eps;
    c.want = want_bits(o.digits);
    arb_init(c.xy);
    arb_init(c.yx);
    arb_indeterminate(c.xy);
    arb_indeterminate(c.yx);
    int rc = ga_arb_escalate(&out->precision_bits, sub_step, &c, 64, o.max_prec, o.deadline);
    if (rc != GA_EINVAL)
        sub_cert_out(out, c.xy, c.yx, o.digits);
    arb_clear(c.xy);
    arb_clear(c.yx);
    return rc;
}

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
        return delta_cert_subsampled(out, p, eps, opts);
    }
    if (!p->swapped)
        return delta_cert(out, p, in, txt, eps, opts);
    /* the reduction whitened by X: certify the pair (Y, X) it describes, swap the answers */
    ga_pair_input in2;
    ga_pair_text t2;
    const ga_pair_text *tp;
    swap_input(&in2, &t2, &tp, in, txt);
    int rc = delta_cert(out, p, &in2, tp, eps, opts);
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

/* stage 0 of delta_cert: equal covariances, the closed form (both directions equal) */
typedef struct {
    const ga_pair *p;
    const ga_pair_input *in;
    const ga_pair_text *txt;
    arb_srcptr e;
    arb_ptr res;
    slong want;
    int applies;
} eqcov_ctx;

static int eqcov_step(void *vc, slong prec)
{
    eqcov_ctx *c = vc;
    int eq = equal_cov_delta(c->res, c->p, c->in, c->txt, c->e, prec);
    c->applies = eq == 1;
    if (eq != 1)
        return GA_EDOM; /* the covariances differ (or the solve failed): not this stage */
    return arb_is_zero(c->res) || arb_rel_accuracy_bits(c->res) >= c->want ? GA_OK : GA_EPREC;
}

/* Can the reference be refined (stage 2b)? A plain pair of at most GA_REFINE_MAX
 * dimensions, or a product of such blocks (each refined on its own). */
static int refinable(const ga_pair *p)
{
    if (!p->nblocks)
        return p->k <= GA_REFINE_MAX;
    for (size_t b = 0; b < p->nblocks; b++)
        if (p->blocks[b]->nblocks || p->blocks[b]->k > GA_REFINE_MAX)
            return 0;
    return 1;
}

/* The linear-algebra certificate of any pair: a product's blocks add (TV of a product of
 * laws is at most the sum of the blocks' TVs), each block in its original directions.
 * f == NULL: against the floating reduction's reference (la_certificate); otherwise against
 * the refined one (la_refined, a refinable pair), which f receives: a product's blocks'
 * references concatenated in block order, as its lambda and mt. Returns 0, or -1 when some
 * block has none at this precision (f and the bounds are then partial). */
static int la_any(mag_t tvx, mag_t tvy, la_ref *f, const ga_pair *p, const ga_pair_input *in,
                  const ga_pair_text *txt, slong zbits, double deadline, slong prec)
{
    if (!p->nblocks)
        return f ? la_refined(tvx, tvy, f, p, in, txt, zbits, deadline, prec)
                 : la_certificate(tvx, tvy, p, in, txt, prec);
    mag_t a, b;
    mag_init(a);
    mag_init(b);
    mag_zero(tvx);
    mag_zero(tvy);
    int rc = 0;
    slong off = 0;
    for (size_t k = 0; k < p->nblocks && rc == 0; k++) {
        const ga_pair *q = p->blocks[k];
        const ga_pair_text *tk = txt ? txt + k : NULL, *tp = tk;
        ga_pair_input in2 = in[k];
        ga_pair_text t2;
        if (q->swapped)
            swap_input(&in2, &t2, &tp, in + k, tk);
        if (f) { /* this block's slice of f */
            la_ref slice = {(slong)q->k, f->lam + off, f->mt + off};
            rc = la_refined(a, b, &slice, q, &in2, tp, zbits, deadline, prec);
        } else {
            rc = la_certificate(a, b, q, &in2, tp, prec);
        }
        off += (slong)q->k;
        mag_add(tvx, tvx, q->swapped ? b : a);
        mag_add(tvy, tvy, q->swapped ? a : b);
    }
    mag_clear(a);
    mag_clear(b);
    return rc;
}

/* stage 1: the linear-algebra certificate (TV bounds), until it stops shrinking; with f,
 * against the refined reference (stage 1b), which it fills in (a |lam| below 2^-zbits is 0) */
typedef struct {
    const ga_pair *p;
    const ga_pair_input *in;
    const ga_pair_text *txt;
    mag_ptr tvx, tvy;
    double prev;
    int have;
    la_ref *f;
    slong zbits;
    double enough; /* a widening at or below this needs no more precision (0: none) */
    double deadline;
} la_ctx;

static int la_step(void *vc, slong prec)
{
    la_ctx *c = vc;
    mag_t a, b;
    la_ref t;
    mag_init(a);
    mag_init(b);
    if (c->f)
        la_ref_init(&t, (slong)c->p->k);
    int rc = GA_EPREC;
    if (la_any(a, b, c->f ? &t : NULL, c->p, c->in, c->txt, c->zbits, c->deadline, prec) == 0) {
        double wnow = fmax(mag_get_d(a), mag_get_d(b));
        mag_set(c->tvx, a);
        mag_set(c->tvy, b);
        if (c->f) { /* (the reference that goes with these bounds) */
            _arb_vec_set(c->f->lam, t.lam, t.k);
            _arb_vec_set(c->f->mt, t.mt, t.k);
        }
        c->have = 1;
        int settled = wnow > 0.25 * c->prev;
        c->prev = wnow;
        if (settled || wnow == 0 || wnow <= c->enough)
            rc = GA_OK;
    }
    if (c->f)
        la_ref_clear(&t);
    mag_clear(a);
    mag_clear(b);
    return rc;
}

/* stage 2: the two integrals plus the widening TV(X, X'') + e^eps TV(Y, Y'') (xy), roles
 * swapped for yx; xy/yx hold the latest enclosures */
typedef struct {
    const ga_pair *p;
    ga_gchisq_exact *lx, *ly;
    arb_srcptr e;
    arb_ptr ee;
    double epsd, deadline;
    arb_ptr xy, yx;
    mag_srcptr tvx, tvy;
    slong want, acc_xy, acc_yx;
    int stalls_xy, stalls_yx;
    ga_delta_cert *out;
    arb_t ixy, iyx;
    const la_ref *ref; /* the refined reference, or NULL */
} integrals_ctx;

static int integrals_step(void *vc, slong prec)
{
    integrals_ctx *c = vc;
    const ga_pair *p = c->p;
    /* the double twins of the exact forms: those of the reduced pair, which is (Y, X) when
     * the reduction whitened by X (ga_pair keeps the original directions); a product's
     * exact forms are in the original directions */
    const ga_gchisq *tx = p->swapped ? p->ly : p->lx, *ty = p->swapped ? p->lx : p->ly;
    if (p->nblocks) {
        if (product_exact_forms(c->lx, c->ly, p, c->ref, prec))
            return GA_ENOMEM;
    } else {
        exact_forms(c->lx, c->ly, p, c->ref, prec);
    }
    if (delta_one(c->ixy, c->lx, tx, c->e, c->epsd, c->deadline, prec) != GA_OK ||
        delta_one(c->iyx, c->ly, ty, c->e, c->epsd, c->deadline, prec) != GA_OK)
        return GA_EPREC;
    arb_exp(c->ee, c->e, prec);
    mag_t wx, wy, tmp;
    mag_init(wx);
    mag_init(wy);
    mag_init(tmp);
    arb_get_mag(tmp, c->ee);
    mag_mul(wx, tmp, c->tvy);
    mag_add(wx, wx, c->tvx);
    mag_mul(wy, tmp, c->tvx);
    mag_add(wy, wy, c->tvy);
    int done_xy = mag_cmp(arb_radref(c->ixy), wx) <= 0 || arb_rel_accuracy_bits(c->ixy) >= c->want;
    int done_yx = mag_cmp(arb_radref(c->iyx), wy) <= 0 || arb_rel_accuracy_bits(c->iyx) >= c->want;
    c->out->la_bound_xy = mag_get_d(wx);
    c->out->la_bound_yx = mag_get_d(wy);
    arb_set(c->xy, c->ixy);
    arb_set(c->yx, c->iyx);
    arb_add_error_mag(c->xy, wx);
    arb_add_error_mag(c->yx, wy);
    mag_clear(wx);
    mag_clear(wy);
    mag_clear(tmp);
    if (done_xy && done_yx)
        return GA_OK;
    int stalled_xy = ga_arb_stalled(&c->acc_xy, &c->stalls_xy, c->ixy);
    int stalled_yx = ga_arb_stalled(&c->acc_yx, &c->stalls_yx, c->iyx);
    if ((done_xy || stalled_xy) && (done_yx || stalled_yx))
        return GA_ARB_STALLED; /* more precision would not narrow what is left */
    return GA_EPREC;
}

/* v <- v + [-(a + ee b), a + ee b] (a, b >= 0 doubles, ee a ball) */
static void widen_tv(arb_t v, double a, double b, const arb_t ee)
{
    arb_t t;
    arf_t u;
    arb_init(t);
    arf_init(u);
    arb_set_d(t, b);
    arb_mul(t, t, ee, 64);
    arb_t x;
    arb_init(x);
    arb_set_d(x, a);
    arb_add(t, t, x, 64);
    arb_clear(x);
    arb_get_ubound_arf(u, t, 64);
    arb_add_error_arf(v, u);
    arb_clear(t);
    arf_clear(u);
}

static int delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                      const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    memset(out, 0, sizeof *out);
    /* whatever the status, the intervals are enclosures: [0, 1] until something is known */
    out->xy.hi = out->yx.hi = 1;
    strcpy(out->xy_lo, "0");
    strcpy(out->yx_lo, "0");
    strcpy(out->xy_hi, "1");
    strcpy(out->yx_hi, "1");
    int rc = GA_EINVAL;
    arb_t e, ee, xy, yx, w;
    mag_t tvx, tvy;
    ga_gchisq_exact *lx = ga_gchisq_exact_alloc(), *ly = ga_gchisq_exact_alloc();
    arb_init(e);
    arb_init(ee);
    arb_init(xy);
    arb_init(yx);
    /* nothing is known until an integral succeeds: [0, 1], never the 0 of arb_init (which
     * a failed escalation would otherwise print as the certificate [0, 0]) */
    arb_indeterminate(xy);
    arb_indeterminate(yx);
    arb_init(w);
    mag_init(tvx);
    mag_init(tvy);
    if (!lx || !ly) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    if (arb_set_str(e, eps, PARSE_PREC) != 0 || !arb_is_finite(e))
        goto cleanup;
    double epsd = arf_get_d(arb_midref(e), ARF_RND_NEAR);
    if (p->support == GA_SUPPORT_DIFFER && !p->support_exact) {
        rc = GA_EDOM; /* a rank tolerance decided the supports: no certificate */
        goto cleanup;
    }
    if (p->support == GA_SUPPORT_DIFFER) {
        arb_one(xy);
        arb_one(yx);
        rc = GA_OK;
        goto done;
    }
    if (p->support != GA_SUPPORT_FULL) {
        rc = GA_EDOM; /* singular covariances: certified mode not available */
        goto cleanup;
    }
    /* 0. equal covariances: the closed form on the exact inputs, escalated */
    {
        eqcov_ctx c = {p, in, txt, e, xy, want_bits(o.digits), 0};
        int r = ga_arb_escalate(&out->precision_bits, eqcov_step, &c, 64, o.max_prec, o.deadline);
        if (c.applies) {
            arb_set(yx, xy);
            rc = r;
            goto done;
        }
    }
    /* 1. the linear-algebra certificate, escalated until it stops shrinking (TV ~ sqrt(KL):
     *    the radius of the KL ball matters until 2^-prec is below KL itself) */
    slong want = want_bits(o.digits);
    {
        /* where the refined reference will be needed anyway (a width the floating one, about
         * 1e-16 k relative, cannot give, at a size where the products run on the BLAS and
         * are accurate to 2^-80 already at 64 bits), one level: the bounds of any level are
         * valid, and a second level only confirmed that the first had settled */
        double enough =
            refinable(p) && p->k >= GA_ARB_MAT_BLAS_MIN && want > 40 ? INFINITY : 0;
        la_ctx c = {p, in, txt, tvx, tvy, INFINITY, 0, NULL, 0, enough, o.deadline};
        ga_arb_escalate(NULL, la_step, &c, 64, o.max_prec, o.deadline);
        rc = ga_expired(o.deadline) ? GA_ETIME : GA_EPREC;
        if (!c.have)
            goto cleanup;
    }
    /* 2. the integrals, escalated until narrow enough or below the widening */
    {
        integrals_ctx c = {.p = p, .lx = lx, .ly = ly, .e = e, .ee = ee, .epsd = epsd,
                           .deadline = o.deadline, .xy = xy, .yx = yx, .tvx = tvx, .tvy = tvy,
                           .want = want, .acc_xy = WORD_MIN / 2, .acc_yx = WORD_MIN / 2, .out = out};
        arb_init(c.ixy);
        arb_init(c.iyx);
        rc = ga_arb_escalate(&out->precision_bits, integrals_step, &c, 64, o.max_prec, o.deadline);
        arb_clear(c.ixy);
        arb_clear(c.iyx);
    }
    /* 2b. where the widening keeps an interval wider than asked (item 8), the refined
     *     reference: its widening is of the order of the refinement's second-order residual
     *     (1e-30 for a well-conditioned pair), then the integrals again, at their own
     *     precision; both results are enclosures, so they are intersected */
    if (refinable(p) && out->precision_bits > 0 && !ga_expired(o.deadline) &&
        ((arb_rel_accuracy_bits(xy) < want && out->la_bound_xy > 0) ||
         (arb_rel_accuracy_bits(yx) < want && out->la_bound_yx > 0))) {
        la_ref f;
        mag_t rx, ry;
        la_ref_init(&f, (slong)p->k);
        mag_init(rx);
        mag_init(ry);
        /* a refined widening 2^-8 below the width asked (of the smaller delta) needs no
         * second precision level to confirm it has settled: each level is a dozen k x k
         * ball-matrix products */
        ga_interval bx, by;
        ga_arb_bounds(&bx, xy);
        ga_arb_bounds(&by, yx);
        double lo = fmin(bx.lo, by.lo);
        la_ctx c = {p, in, txt, rx, ry, INFINITY, 0, &f, 2 * want,
                    lo > 0 ? ldexp(lo, -(int)want - 8) : 0, o.deadline};
        /* (precision: what the width asked needs, with room; not the 4096-bit cap. From
         * dimension 64 the products run on the BLAS, whose accuracy stops growing at 128
         * bits (about 2^-100 of the scale, numerics/matmul.c): one level) */
        slong cap = 8 * want + 256 < o.max_prec ? 8 * want + 256 : o.max_prec;
        slong la_cap = p->k >= GA_ARB_MAT_BLAS_MIN && cap > 128 ? 128 : cap;
        ga_arb_escalate(NULL, la_step, &c, 128, la_cap, o.deadline);
        if (c.have && (mag_cmp(rx, tvx) < 0 || mag_cmp(ry, tvy) < 0)) {
            arb_t xy2, yx2;
            ga_delta_cert o2;
            slong bits2 = 0;
            arb_init(xy2);
            arb_init(yx2);
            arb_indeterminate(xy2);
            arb_indeterminate(yx2);
            memset(&o2, 0, sizeof o2);
            integrals_ctx c2 = {.p = p, .lx = lx, .ly = ly, .e = e, .ee = ee, .epsd = epsd,
                                .deadline = o.deadline, .xy = xy2, .yx = yx2, .tvx = rx,
                                .tvy = ry, .want = want, .acc_xy = WORD_MIN / 2,
                                .acc_yx = WORD_MIN / 2, .out = &o2, .ref = &f};
            arb_init(c2.ixy);
            arb_init(c2.iyx);
            int r2 = ga_arb_escalate(&bits2, integrals_step, &c2, 64, cap, o.deadline);
            arb_clear(c2.ixy);
            arb_clear(c2.iyx);
            if (arb_is_finite(xy2) && arb_is_finite(yx2) && arb_overlaps(xy, xy2) &&
                arb_overlaps(yx, yx2)) {
                arb_intersection(xy, xy, xy2, 2 * want + 64);
                arb_intersection(yx, yx, yx2, 2 * want + 64);
                out->la_bound_xy = o2.la_bound_xy;
                out->la_bound_yx = o2.la_bound_yx;
                if (bits2 > out->precision_bits)
                    out->precision_bits = bits2;
                if (r2 == GA_OK) /* (otherwise the first status stands: its interval did) */
                    rc = r2;
            }
            arb_clear(xy2);
            arb_clear(yx2);
        }
        la_ref_clear(&f);
        mag_clear(rx);
        mag_clear(ry);
    }
    /* 3. where the widening TV(X, X'') + e^eps TV(Y, Y'') left an interval wider than asked
     *    (large eps), the shifted certificate, whose linear-algebra part does not grow with
     *    e^eps; both are enclosures, so they are intersected */
    /* (its own accuracy is about 2h |d log delta/d eps| ~ 1e-11 relative: worth its cost
     * only where the TV widening left less than about 20 bits) */
    if (!p->nblocks && out->precision_bits > 0 && !ga_expired(o.deadline) &&
        (arb_rel_accuracy_bits(xy) < 20 || arb_rel_accuracy_bits(yx) < 20)) {
        slong prec = out->precision_bits < 256 ? 256 : out->precision_bits;
        double kl = 2 * fmax(mag_get_d(tvx), mag_get_d(tvy));
        kl *= kl / 2; /* TV = sqrt(KL/2): KL = 2 TV^2 */
        arb_ptr dd = _arb_vec_init(4);
        arb_t h;
        arb_init(h);
        exact_forms(lx, ly, p, NULL, prec); /* (the shift uses the unrefined TVs) */
        if (shift_deltas(dd, h, p, in, txt, kl, epsd, prec) == 0) {
            const ga_gchisq *tx = p->swapped ? p->ly : p->lx, *ty = p->swapped ? p->lx : p->ly;
            int n1 = shift_bound(xy, 0, lx, ly, tx, ty, dd, h, e, o.deadline, prec);
            int n2 = shift_bound(yx, 1, lx, ly, tx, ty, dd, h, e, o.deadline, prec);
            if ((n1 || n2) && arb_rel_accuracy_bits(xy) >= want && arb_rel_accuracy_bits(yx) >= want)
                rc = GA_OK;
        }
        _arb_vec_clear(dd, 4);
        arb_clear(h);
    }
done:
    /* laws within total variation of the exact ones (pair_release.c): delta_{X,Y} moves by
     * at most tv_X + e^eps tv_Y (here X is the reduction's, Y's when it was swapped) */
    if (p->in_tv[0] > 0 || p->in_tv[1] > 0) {
        double tx = p->in_tv[p->swapped ? 1 : 0], ty = p->in_tv[p->swapped ? 0 : 1];
        arb_exp(ee, e, 64);
        widen_tv(xy, tx, ty, ee);
        widen_tv(yx, ty, tx, ee);
    }
    /* delta lies in [0, 1] */
    arb_set_d(w, 0.5);
    mag_set_d(arb_radref(w), 0.5);
    if (arb_is_finite(xy))
        arb_intersection(xy, xy, w, 256);
    if (arb_is_finite(yx))
        arb_intersection(yx, yx, w, 256);
    ga_arb_prob_out(&out->xy, out->xy_lo, out->xy_hi, sizeof out->xy_lo, xy, o.digits + 3);
    ga_arb_prob_out(&out->yx, out->yx_lo, out->yx_hi, sizeof out->yx_lo, yx, o.digits + 3);
cleanup:
    ga_gchisq_exact_free(lx);
    ga_gchisq_exact_free(ly);
    arb_clear(e);
    arb_clear(ee);
    arb_clear(xy);
    arb_clear(yx);
    arb_clear(w);
    mag_clear(tvx);
    mag_clear(tvy);
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

/* D_alpha(P||Q) for P = N(mp, Sp), Q = N(mq, Sq) (k x k exact balls), times r:
 * r [alpha/2 dm^T S_a^{-1} dm - (log det S_a - (1-alpha) log det Sp - alpha log det Sq)/(2(alpha-1))],
 * S_a = alpha Sq + (1 - alpha) Sp. Returns 0 (res finite), 1 (certainly infinite: S_a not
 * positive definite), -1 (undecided at this precision). */
static int renyi_ball(arb_t res, const arb_mat_t Sp, const arb_mat_t Sq, const arb_mat_t dm,
                      const arb_t alpha, double r, slong prec)
{
    slong k = arb_mat_nrows(Sp);
    int rc = -1;
    arb_mat_t Sa, T, L, x;
    arb_t t, ld, a1;
    arb_mat_init(Sa, k, k);
    arb_mat_init(T, k, k);
    arb_mat_init(L, k, k);
    arb_mat_init(x, k, 1);
    arb_init(t);
    arb_init(ld);
    arb_init(a1);
    arb_sub_ui(a1, alpha, 1, prec); /* alpha - 1 */
    arb_mat_scalar_mul_arb(Sa, Sq, alpha, prec);
    arb_mat_scalar_mul_arb(T, Sp, a1, prec);
    arb_mat_sub(Sa, Sa, T, prec);
    if (!arb_mat_cho(L, Sa, prec)) {
        /* not certainly positive definite: certainly not if its determinant is negative */
        arb_mat_det(t, Sa, prec);
        if (arb_is_negative(t) || (k == 1 && !arb_is_positive(arb_mat_entry(Sa, 0, 0)) &&
                                   arb_is_nonpositive(arb_mat_entry(Sa, 0, 0))))
            rc = 1;
        goto cleanup;
    }
    /* log det S_a */
    arb_zero(ld);
    for (slong i = 0; i < k; i++) {
        arb_log(t, arb_mat_entry(L, i, i), prec);
        arb_add(ld, ld, t, prec);
    }
    arb_mul_2exp_si(ld, ld, 1);
    /* quadratic term */
    if (!arb_mat_spd_solve(x, Sa, dm, prec))
        goto cleanup;
    arb_zero(res);
    for (slong i = 0; i < k; i++) {
        arb_mul(t, arb_mat_entry(x, i, 0), arb_mat_entry(dm, i, 0), prec);
        arb_add(res, res, t, prec);
    }
    arb_mul(res, res, alpha, prec);
    arb_mul_2exp_si(res, res, -1);
    /* - (ld - (1 - alpha) log det Sp - alpha log det Sq) / (2 (alpha - 1)) */
    arb_mat_t Lp;
    arb_mat_init(Lp, k, k);
    int ok = arb_mat_cho(Lp, Sp, prec);
    for (slong i = 0; i < k && ok; i++) {
        arb_log(t, arb_mat_entry(Lp, i, i), prec);
        arb_mul_2exp_si(t, t, 1);
        arb_mul(t, t, a1, prec); /* + (alpha - 1) log det Sp */
        arb_add(ld, ld, t, prec);
    }
    ok = ok && arb_mat_cho(Lp, Sq, prec);
    for (slong i = 0; i < k && ok; i++) {
        arb_log(t, arb_mat_entry(Lp, i, i), prec);
        arb_mul_2exp_si(t, t, 1);
        arb_mul(t, t, alpha, prec);
        arb_sub(ld, ld, t, prec);
    }
    arb_mat_clear(Lp);
    if (!ok)
        goto cleanup;
    arb_div(t, ld, a1, prec);
    arb_mul_2exp_si(t, t, -1);
    arb_sub(res, res, t, prec);
    mul_d(res, r, prec);
    rc = arb_is_finite(res) ? 0 : -1;
cleanup:
    arb_mat_clear(Sa);
    arb_mat_clear(T);
    arb_mat_clear(L);
    arb_mat_clear(x);
    arb_clear(t);
    arb_clear(ld);
    arb_clear(a1);
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
        int s = dir ? renyi_ball(c->res, c->Sy, c->Sx, c->dmn, c->alpha, c->r, prec)
                    : renyi_ball(c->res, c->Sx, c->Sy, c->dm, c->alpha, c->r, prec);
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
 * trapezoid designs sized for the digits asked (numerics/ploss_cert.c) */
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
        rc = sub_params(q + j, m + j, c->p, (size_t)j, prec);
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
 * nodes): the closed-form bracket of each step (numerics/ploss.c, renyi_bracket), in ball
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
        if (sub_params(q, m, p, j, prec)) {
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
            if (sub_params(q, m, p, j, prec))
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
    c.want = want_bits(o->digits);
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
    renyi_ctx c = {Sx, Sy, dm, dmn, a, res, p->r, want_bits(o.digits), xy, yx, {0, 0}};
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

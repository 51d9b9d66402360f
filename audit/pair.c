/*
 * pair.c - exact privacy profile of a Gaussian pair (doc/design.md, sections 1 and 2).
 *
 * Reduction: whiten by Y, L = chol(S_y); the whitened X has covariance
 * R = L^{-1} S_x L^{-T} = I + L^{-1} (S_x - S_y) L^{-T}; the eigenvalues lambda_i = tau_i - 1
 * of the second form come without the cancellation of tau_i - 1 when tau_i is near 1 (the
 * normal case for small leverage or large dimension). With R = V diag(tau) V^T and
 * mt = V^T L^{-1} (mu_x - mu_y), the coordinates are independent and the privacy loss
 * l = sum_i -1/2 log tau_i - (y - mt_i)^2/(2 tau_i) + y^2/2 is, per coordinate, a quadratic
 * in one standard normal (NDIS lemma, Lu, Magdon-Ismail, Wei & Zikas, arXiv 2309.01243,
 * Lemma 1 and Theorem 4.1, here whitened by Y):
 *   under X: a = lambda/2,              b2 = mt^2 tau,   k = -1/2 log tau + mt^2/2
 *   under Y: a = lambda/(2 tau),        b2 = mt^2/tau^2, k = -1/2 log tau - mt^2/(2 tau)
 * With r iid columns every term has nu = r and b2, k are multiplied by r (no (d r)-sized
 * matrix is formed). Then
 *   delta_{X,Y}(eps) = P_X[l > eps] - e^eps P_Y[l > eps] = E_X[(1 - e^{eps - l})_+],
 *   delta_{Y,X}(eps) = P_Y[l < -eps] - e^eps P_X[l < -eps] = E_Y[(1 - e^{eps + l})_+].
 * The direct formula: for 0 < c < smax, E[(1 - e^{eps - Q})_+] = int_eps^inf e^{eps-s} P[Q > s] ds
 * = (1/2 pi i) int M(z) e^{-z eps} / (z (z + 1)) dz (Bromwich, Re z = c): one integral whose
 * size is set by M(c) e^{-c eps}, a Renyi-type bound on delta, so tiny deltas keep their
 * relative accuracy.
 */
#include "audit/pair_internal.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* p->reason, formatted (the pair's own copy: a pair's reason is kept apart from it so that
 * the many pairs of a large audit do not each carry a 400-byte buffer; a constant text is
 * pointed to, set_reason_static) */
static void set_reason(ga_pair *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_reason(ga_pair *p, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (p->reason_owned)
        free(p->reason);
    p->reason = strdup(buf);
    p->reason_owned = p->reason != NULL;
    if (!p->reason)
        p->reason = (char *)"(the reason could not be stored: out of memory)";
}

static void set_reason_static(ga_pair *p, const char *text)
{
    if (p->reason_owned)
        free(p->reason);
    p->reason = (char *)text;
    p->reason_owned = 0;
}

/* lambda, mt, L and V: one block at lambda (arrays_block, reduce_pd) or four */
static void free_arrays(ga_pair *p)
{
    free(p->lambda);
    if (!p->arrays_block) {
        free(p->mt);
        free(p->L);
        free(p->V);
    }
    p->lambda = p->mt = p->L = p->V = NULL;
    p->arrays_block = 0;
}

void ga_pair_free(ga_pair *p)
{
    if (!p)
        return;
    if (p->reason_owned)
        free(p->reason);
    free_arrays(p);
    free(p->U);
    ga_gchisq_free(p->lx);
    ga_gchisq_free(p->ly);
    for (size_t b = 0; b < p->nblocks; b++)
        ga_pair_free(p->blocks[b]);
    free(p->blocks);
    if (p->ploss) {
        for (size_t j = 0; j < 3 * p->ploss->n; j++)
            free(p->ptxt[j]);
        free(p->ptxt);
        free(p->ploss->t);
        free(p->ploss);
    }
    free(p->psigma);
    free(p);
}

/* ------------------------------------------------------------ subsampled Gaussian pairs */

static char *dup_text(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int ga_pair_reduce_subsampled(ga_pair **out, const ga_subsampled_input *in, size_t n,
                              char *msg, size_t msglen)
{
    *out = NULL;
    if (n == 0 || n > GA_PLOSS_MAX_TERMS) {
        ga_msg(msg, msglen, "a subsampled pair needs 1 to %d terms (got %zu)", GA_PLOSS_MAX_TERMS, n);
        return GA_EINVAL;
    }
    for (size_t j = 0; j < n; j++) {
        const ga_subsampled_input *t = &in[j];
        const char *bad = NULL;
        if (!(t->q > 0 && t->q <= 1))
            bad = "q must be in (0, 1]";
        else if (!(t->sigma >= 1e-3) || !isfinite(t->sigma))
            bad = "sigma must be finite and at least 0.001";
        else if (!(t->steps >= 1 && t->steps <= GA_PLOSS_MAX_COUNT && t->steps == floor(t->steps)))
            bad = "steps must be a whole number in 1..1e9";
        else if ((t->q_txt && !ga_decimal_syntax(t->q_txt)) ||
                 (t->sigma_txt && !ga_decimal_syntax(t->sigma_txt)) ||
                 (t->norm_txt && !ga_decimal_syntax(t->norm_txt)))
            bad = "q_txt, sigma_txt and norm_txt must be plain decimals";
        else if (!(t->norm >= 0 && t->norm <= 1e6))
            bad = "norm must be in [0, 1e6] (0: 1)";
        else if (!(t->columns == 0 || (t->columns >= 1 && t->columns <= 1e6 &&
                                        t->columns == floor(t->columns))))
            bad = "columns must be 0 or a whole number in 1..1e6";
        else if (t->columns > 0 && (n > 1 || t->steps > 1))
            bad = "a subsampled sketch step (columns > 0) is a single release: it composes "
                  "with nothing yet (steps 1, one term)";
        else if (!(t->sigma / (t->norm > 0 ? t->norm : 1) >= 1e-3))
            bad = "sigma/norm must be at least 0.001";
        if (bad) {
            ga_msg(msg, msglen, "subsampled term %zu: %s (q %g, sigma %g, steps %g)", j, bad,
                   t->q, t->sigma, t->steps);
            return GA_EINVAL;
        }
    }
    ga_pair *p = calloc(1, sizeof *p);
    int rc = GA_ENOMEM;
    if (!p || !(p->ploss = calloc(1, sizeof *p->ploss)) ||
        !(p->ploss->t = calloc(n, sizeof *p->ploss->t)) ||
        !(p->ptxt = calloc(3 * n, sizeof *p->ptxt)) || !(p->psigma = calloc(2 * n, sizeof *p->psigma)))
        goto cleanup;
    p->ploss->n = n;
    for (size_t j = 0; j < n; j++) {
        ga_ploss_term *t = &p->ploss->t[j];
        double norm = in[j].norm > 0 ? in[j].norm : 1;
        t->q = in[j].q;
        t->m = norm / in[j].sigma;
        t->count = in[j].steps;
        t->add = in[j].add != 0;
        t->r = in[j].columns;
        p->psigma[2 * j] = in[j].sigma;
        p->psigma[2 * j + 1] = norm;
        if ((in[j].q_txt && !(p->ptxt[3 * j] = dup_text(in[j].q_txt))) ||
            (in[j].sigma_txt && !(p->ptxt[3 * j + 1] = dup_text(in[j].sigma_txt))) ||
            (in[j].norm_txt && in[j].norm > 0 && !(p->ptxt[3 * j + 2] = dup_text(in[j].norm_txt))))
            goto cleanup;
    }
    p->r = 1;
    p->support = GA_SUPPORT_FULL;
    rc = GA_OK;
cleanup:
    if (rc == GA_OK) {
        *out = p;
    } else {
        ga_msg(msg, msglen, "%s", "out of memory building a subsampled pair");
        ga_pair_free(p);
    }
    return rc;
}

/* A pair of noncentral chi-square laws with rows degrees of freedom (pts = 0: the masked
 * release) or of their products with chi^2_pts (synthetic points): the shared checks and the
 * one-term privacy loss */
static int reduce_chi2(ga_pair **out, const char *what, double rows, double pts, double sigma,
                       double norm_x, double norm_y, const char *sigma_txt, const char *nx_txt,
                       const char *ny_txt, char *msg, size_t msglen)
{
    *out = NULL;
    const char *bad = NULL;
    double lx = 0, ly = 0;
    if (!(rows >= 1 && rows <= 1e9 && rows == floor(rows)))
        bad = pts ? "dim must be a whole number in 1..1e9" : "rows must be a whole number in 1..1e9";
    else if (pts && !(pts >= 1 && pts <= 1e6 && pts == floor(pts)))
        bad = "points must be a whole number in 1..1e6";
    else if (pts && fmod(pts, 2) != 0 && fmod(rows, 2) != 0)
        bad = "dim and points are both odd: the tails have no finite form here (make one even)";
    else if (!(sigma >= 1e-3) || !isfinite(sigma))
        bad = "sigma must be finite and at least 0.001";
    else if (!(norm_x >= 0 && norm_x <= 1e6 && norm_y >= 0 && norm_y <= 1e6))
        bad = "the norms must be in [0, 1e6]";
    else if ((sigma_txt && !ga_decimal_syntax(sigma_txt)) || (nx_txt && !ga_decimal_syntax(nx_txt)) ||
             (ny_txt && !ga_decimal_syntax(ny_txt)))
        bad = "sigma_txt, norm_x_txt and norm_y_txt must be plain decimals";
    else if (!((lx = pow(norm_x / sigma, 2)) <= 1e8 && (ly = pow(norm_y / sigma, 2)) <= 1e8))
        bad = "the noncentralities |x|^2/sigma^2 must be at most 1e8";
    if (bad) {
        ga_msg(msg, msglen, "%s pair: %s (%s %g, sigma %g, norms %g and %g)", what, bad,
               pts ? "dim" : "rows", rows, sigma, norm_x, norm_y);
        return GA_EINVAL;
    }
    ga_pair *p = calloc(1, sizeof *p);
    int rc = GA_ENOMEM;
    if (!p || !(p->ploss = calloc(1, sizeof *p->ploss)) ||
        !(p->ploss->t = calloc(1, sizeof *p->ploss->t)) ||
        !(p->ptxt = calloc(3, sizeof *p->ptxt)) || !(p->psigma = calloc(3, sizeof *p->psigma)))
        goto cleanup;
    p->ploss->n = 1;
    ga_ploss_term *t = &p->ploss->t[0];
    t->q = 1;
    t->count = 1;
    t->m = norm_x / sigma;
    t->nu = rows;
    t->pts = pts;
    t->ly = ly;
    p->psigma[0] = sigma;
    p->psigma[1] = norm_x;
    p->psigma[2] = norm_y;
    if ((ny_txt && !(p->ptxt[0] = dup_text(ny_txt))) || (sigma_txt && !(p->ptxt[1] = dup_text(sigma_txt))) ||
        (nx_txt && !(p->ptxt[2] = dup_text(nx_txt))))
        goto cleanup;
    p->r = 1;
    p->support = GA_SUPPORT_FULL;
    rc = ga_ploss_check(p->ploss->t, 1, msg, msglen);
cleanup:
    if (rc == GA_OK) {
        *out = p;
    } else {
        if (rc == GA_ENOMEM)
            ga_msg(msg, msglen, "out of memory building a %s pair", what);
        ga_pair_free(p);
    }
    return rc;
}

int ga_pair_reduce_masked(ga_pair **out, const ga_masked_input *in, char *msg, size_t msglen)
{
    return reduce_chi2(out, "masked", in->rows, 0, in->sigma, in->norm_x, in->norm_y, in->sigma_txt,
                       in->norm_x_txt, in->norm_y_txt, msg, msglen);
}

int ga_pair_reduce_synthetic(ga_pair **out, const ga_synthetic_input *in, char *msg, size_t msglen)
{
    *out = NULL;
    if (!(in->points >= 1)) { /* (0 would be the masked pair) */
        ga_msg(msg, msglen, "synthetic pair: points must be a whole number in 1..1e6 (got %g)", in->points);
        return GA_EINVAL;
    }
    return reduce_chi2(out, "synthetic", in->dim, in->points, in->sigma, in->norm_x, in->norm_y,
                       in->sigma_txt, in->norm_x_txt, in->norm_y_txt, msg, msglen);
}

int ga_pair_pld_accountant(double *eps, const ga_pair *p, double delta, double h)
{
    *eps = NAN;
    if (!p->ploss || p->ploss->t[0].r > 0 || p->ploss->t[0].nu > 0)
        return GA_EDOM;
    double e[2];
    for (int dir = 0; dir < 2; dir++) {
        int rc = ga_ploss_pld_epsilon(&e[dir], p->ploss, dir, delta, h > 0 ? h : 1e-4);
        if (rc)
            return rc;
    }
    *eps = fmax(e[0], e[1]);
    return GA_OK;
}

int ga_pair_rdp_accountant(double *eps, int *alpha, const ga_pair *p, double delta)
{
    *eps = NAN;
    *alpha = 0;
    if (!p->ploss || p->ploss->t[0].r > 0 || p->ploss->t[0].nu > 0) /* no binomial expansion */
        return GA_EDOM;
    if (!(delta > 0 && delta < 1))
        return GA_EINVAL;
    /* each order's RDP adds over the steps; the conversion is minimised over the orders */
    double best = INFINITY;
    for (int a = 2; a <= 256; a++) {
        double r = 0;
        for (size_t j = 0; j < p->ploss->n; j++)
            r += p->ploss->t[j].count * ga_ploss_rdp_binomial(&p->ploss->t[j], a);
        double e = ga_rdp_to_dp_mironov(a, r, delta);
        if (e < best) {
            best = e;
            *alpha = a;
        }
    }
    *eps = best;
    return GA_OK;
}

size_t ga_pair_nblocks(const ga_pair *p) { return p->nblocks ? p->nblocks : 1; }
const ga_pair *ga_pair_block(const ga_pair *p, size_t i)
{
    return p->nblocks ? (i < p->nblocks ? p->blocks[i] : NULL) : (i == 0 ? p : NULL);
}

int ga_pair_support(const ga_pair *p) { return p->support; }
const char *ga_pair_support_reason(const ga_pair *p) { return p->reason ? p->reason : ""; }
size_t ga_pair_dim(const ga_pair *p) { return p->k; }
const double *ga_pair_lambda(const ga_pair *p) { return p->lambda; }
const double *ga_pair_mt(const ga_pair *p) { return p->mt; }
double ga_pair_columns(const ga_pair *p) { return p->r; }

/* symmetric check and copy; returns 0 or fills msg */
static int check_matrix(double *dst, const double *s, size_t d, const char *name, char *msg,
                        size_t msglen)
{
    double mx = 0;
    for (size_t i = 0; i < d * d; i++) {
        if (!isfinite(s[i])) {
            ga_msg(msg, msglen, "%s[%zu][%zu] is not finite (%g)", name, i / d, i % d, s[i]);
            return -1;
        }
        mx = fmax(mx, fabs(s[i]));
    }
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < i; j++) {
            double u = s[i * d + j], v = s[j * d + i];
            if (fabs(u - v) > 1e-12 * mx) {
                ga_msg(msg, msglen,
                       "%s is not symmetric: entry [%zu][%zu] = %.17g but [%zu][%zu] = %.17g",
                       name, i, j, u, j, i, v);
                return -1;
            }
            dst[i * d + j] = dst[j * d + i] = 0.5 * (u + v);
        }
    for (size_t i = 0; i < d; i++)
        dst[i * d + i] = s[i * d + i];
    return 0;
}

/* why the last sym_eig on this thread failed (for the message) */
static _Thread_local char eig_why[160];

/* eigenvalues (ascending) and, if vec != NULL, eigenvectors of a symmetric matrix copy */
static int sym_eig(double *w, double *vec, const double *s, size_t d)
{
    double *a = malloc(d * d * sizeof *a);
    if (!a)
        return GA_ENOMEM;
    memcpy(a, s, d * d * sizeof *a);
    int info = ga_lapack_syevd(vec ? 'V' : 'N', 'U', d, a, d, w);
    if (vec && info == 0)
        memcpy(vec, a, d * d * sizeof *a);
    free(a);
    if (info)
        ga_lapack_why(eig_why, sizeof eig_why, info);
    return ga_lapack_status(info);
}

/* The regular reduction on PD matrices of size k. sx, sy, dmu are k-sized (dmu = mu_x - mu_y). */
/* Cholesky factor (lower, in place) with a scalar path for k = 1: the many 1-D pairs of the
 * catalogue (rank-one changes, compositions of them) would otherwise pay LAPACK's call and
 * threading overhead for a square root. 0 on success. */
static int potrf(double *a, size_t k)
{
    if (k == 1) {
        if (!(a[0] > 0) || !isfinite(a[0]))
            return -1;
        a[0] = sqrt(a[0]);
        return 0;
    }
    return ga_lapack_potrf('L', k, a, k) != 0;
}

static int reduce_pd(ga_pair *p, const double *sx, const double *sy, const double *dmu,
                     size_t k, char *msg, size_t msglen)
{
    int rc = GA_ENOMEM;
    /* two allocations (a remove-one audit reduces 1-D pairs by the hundred thousand, twice
     * each): the pair's lambda, mt, L, V (p->arrays_block), and the working B, C, m */
    double *B = malloc((2 * k * k + k) * sizeof *B), *C = B ? B + k * k : NULL,
           *m = B ? C + k * k : NULL;
    double *blk = calloc(2 * k + 2 * k * k, sizeof *blk);
    if (!B || !blk) {
        free(blk);
        goto cleanup;
    }
    p->lambda = blk;
    p->mt = blk + k;
    p->L = blk + 2 * k;
    p->V = blk + 2 * k + k * k;
    p->arrays_block = 1;
    memcpy(p->L, sy, k * k * sizeof *sy);
    if (potrf(p->L, k)) {
        ga_msg(msg, msglen, "%s", "s_y is numerically singular after reduction");
        rc = GA_EINVAL;
        goto cleanup;
    }
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++)
            p->L[i * k + j] = 0;
    /* C = S_x - S_y, then B = L^{-1} C L^{-T} by two triangular solves */
    int equal = 1;
    for (size_t i = 0; i < k * k; i++) {
        C[i] = sx[i] - sy[i];
        equal &= C[i] == 0;
    }
    if (equal) {
        /* a mean shift (equal covariances): lambda = 0, V = I, no eigendecomposition (an
         * O(k^3) eigensolver on a zero matrix took minutes at k = 3000) */
        memset(p->lambda, 0, k * sizeof *p->lambda);
        memset(p->V, 0, k * k * sizeof *p->V);
        for (size_t i = 0; i < k; i++)
            p->V[i * k + i] = 1;
        goto conditioning;
    }
    if (k == 1) { /* (sx - sy)/sy as (C / L) / L, the two triangular solves below */
        p->lambda[0] = C[0] / p->L[0] / p->L[0];
        p->V[0] = 1;
        goto snap;
    }
    ga_cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)k,
                (int)k, 1.0, p->L, (int)k, C, (int)k);
    for (size_t i = 0; i < k; i++) /* B = C^T */
        for (size_t j = 0; j < k; j++)
            B[i * k + j] = C[j * k + i];
    ga_cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)k,
                (int)k, 1.0, p->L, (int)k, B, (int)k);
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++)
            B[i * k + j] = B[j * k + i] = 0.5 * (B[i * k + j] + B[j * k + i]);
    if ((rc = sym_eig(p->lambda, p->V, B, k)) != GA_OK) {
        ga_msg(msg, msglen, "the symmetric eigensolver failed on a %zu x %zu matrix: %s", k, k,
               eig_why);
        goto cleanup;
    }
    /* Eigenvalues at rounding level are zero (e.g. the d - 1 unchanged directions of a
     * rank-one update): their noise, about k eps max|lambda|, would otherwise create terms
     * with |a| ~ 1e-17 whose asymptotic drift b2/(4a) misleads the contour setup. Snapping
     * them perturbs the whitened X covariance by at most that noise, i.e. the privacy loss
     * by eta (z^2 + 1)/2 pointwise with eta the snapped value: a relative change of delta of
     * order eta (1 + eps + chi2 quantile), estimated in la_err (a relative first-order
     * estimate; the certified path bounds it rigorously by TV instead). */
snap:;
    double lmax = 0, snapped = 0;
    for (size_t i = 0; i < k; i++)
        lmax = fmax(lmax, fabs(p->lambda[i]));
    double ltol = 8.0 * k * DBL_EPSILON * fmax(lmax, 1.0);
    for (size_t i = 0; i < k; i++)
        if (fabs(p->lambda[i]) <= ltol) {
            snapped += p->lambda[i] * p->lambda[i];
            p->lambda[i] = 0;
        }
    p->la_err = sqrt(snapped * p->r);
conditioning:;
    /* Input conditioning: the double inputs perturb S by about eps |S| entrywise, i.e. the
     * whitened covariances by eps |L^{-1}| |S| |L^{-T}| (Skeel-type, componentwise): harmless
     * for a diagonal S however ill-conditioned, about eps kappa for a dense one. Computed
     * when the Cholesky diagonal hints at kappa > 1e6 (an O(k^3) extra), and carried in
     * la_err as a perturbation of the privacy loss. */
    double dmax = 0, dmin = INFINITY;
    for (size_t i = 0; i < k; i++) {
        dmax = fmax(dmax, p->L[i * k + i]);
        dmin = fmin(dmin, p->L[i * k + i]);
    }
    if (dmax / dmin > 1e3) {
        double *Li = malloc(k * k * sizeof *Li), *T = malloc(k * k * sizeof *T), *U = malloc(k * k * sizeof *U);
        if (Li && T && U) {
            memcpy(Li, p->L, k * k * sizeof *Li);
            if (ga_lapack_trtri('L', 'N', k, Li, k) == 0) {
                for (size_t i = 0; i < k * k; i++)
                    Li[i] = fabs(Li[i]);
                double worst = 0;
                for (int which = 0; which < 2; which++) {
                    const double *S = which ? sx : sy;
                    for (size_t i = 0; i < k * k; i++)
                        U[i] = fabs(S[i]);
                    ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)k, (int)k, (int)k, 1.0,
                                Li, (int)k, U, (int)k, 0.0, T, (int)k);
                    ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)k, (int)k, (int)k, 1.0, T,
                                (int)k, Li, (int)k, 0.0, U, (int)k);
                    for (size_t i = 0; i < k * k; i++)
                        worst = fmax(worst, U[i]);
                }
                p->la_err += 4.0 * k * DBL_EPSILON * worst * sqrt(p->r);
            }
        }
        free(Li);
        free(T);
        free(U);
    }
    for (size_t i = 0; i < k; i++) {
        if (!(p->lambda[i] > -1)) {
            ga_msg(msg, msglen, "%s", "s_x is numerically singular relative to s_y");
            rc = GA_EINVAL;
            goto cleanup;
        }
    }
    memcpy(m, dmu, k * sizeof *m);
    if (k == 1) {
        p->mt[0] = m[0] / p->L[0] * p->V[0];
    } else {
        ga_cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)k, p->L, (int)k, m, 1);
        ga_cblas_dgemv(CblasRowMajor, CblasTrans, (int)k, (int)k, 1.0, p->V, (int)k, m, 1, 0.0, p->mt, 1);
    }
    /* likewise mean components at rounding level: in a direction with lambda = 0 they would
     * add a normal part of variance ~1e-32 that makes a bounded loss law unbounded; the
     * effect is TV(N(mt, 1), N(0, 1)) <= |mt| / sqrt(2 pi) per direction */
    double mmax = 0, msnap = 0;
    for (size_t i = 0; i < k; i++)
        mmax = fmax(mmax, fabs(p->mt[i]));
    double mtol = 8.0 * k * DBL_EPSILON * mmax;
    for (size_t i = 0; i < k; i++)
        if (p->lambda[i] == 0 && fabs(p->mt[i]) <= mtol) {
            msnap += p->mt[i] * p->mt[i];
            p->mt[i] = 0;
        }
    p->la_err += sqrt(msnap * p->r);
    p->k = k;
    rc = GA_OK;
cleanup:
    free(B); /* (C, m) */
    return rc;
}

/* Relative error of the tau_i = 1 + lambda_i: lambda comes from a symmetric eigensolver with
 * an absolute error of a few eps max|lambda| (backward stable; 4 eps max|lambda| is taken),
 * so a tau near 0 (S_x much smaller than S_y in some direction) keeps few digits: 1e-12
 * from -1 + 1e-12 keeps four. Returns sqrt(sum (dlambda/tau_i)^2) over the eigenvalues not
 * snapped to 0 (those are counted in la_err already): the size of the perturbation of the
 * privacy loss (tau -> tau (1 + rho) moves l by rho (z^2 - 1)/2 per column). */
static double tau_rel_err(const ga_pair *p)
{
    double lmax = 0, s = 0;
    for (size_t i = 0; i < p->k; i++)
        lmax = fmax(lmax, fabs(p->lambda[i]));
    double dl = 4 * DBL_EPSILON * lmax;
    for (size_t i = 0; i < p->k; i++) {
        if (p->lambda[i] == 0)
            continue;
        double rho = dl / (1 + p->lambda[i]);
        s += rho * rho;
    }
    return sqrt(s);
}

/* Full-rank pairs: whiten by Y, unless the tau lose digits that whitening by X keeps (the
 * reciprocal eigenvalues 1/tau - 1 are then large and carry their relative accuracy): the
 * pair (Y, X) is reduced instead and the two loss laws are swapped back (build_forms). The
 * remaining eigenvalue error is carried in la_err. */
static int reduce_full(ga_pair *p, const double *sx, const double *sy, double *dmu, size_t d,
                       char *msg, size_t msglen)
{
    int rc = reduce_pd(p, sx, sy, dmu, d, msg, msglen);
    if (rc != GA_OK)
        return rc;
    double ey = tau_rel_err(p);
    if (ey > 1e-10) {
        ga_pair *q = calloc(1, sizeof *q);
        if (!q)
            return GA_ENOMEM;
        q->d = d;
        q->r = p->r;
        for (size_t i = 0; i < d; i++)
            dmu[i] = -dmu[i];
        char m2[256];
        if (reduce_pd(q, sy, sx, dmu, d, m2, sizeof m2) == GA_OK && tau_rel_err(q) < ey) {
            free_arrays(p);
            p->lambda = q->lambda;
            p->mt = q->mt;
            p->L = q->L;
            p->V = q->V;
            p->arrays_block = q->arrays_block;
            p->la_err = q->la_err;
            p->k = q->k;
            p->swapped = 1;
            q->lambda = q->mt = q->L = q->V = NULL;
            q->arrays_block = 0;
        }
        for (size_t i = 0; i < d; i++)
            dmu[i] = -dmu[i];
        ga_pair_free(q);
    }
    p->la_err += sqrt(p->r) * tau_rel_err(p);
    return GA_OK;
}

static int build_forms(ga_pair *p)
{
    p->lx = ga_gchisq_alloc(p->k);
    p->ly = ga_gchisq_alloc(p->k);
    if (!p->lx || !p->ly)
        return GA_ENOMEM;
    double r = p->r, ox = 0, oy = 0;
    for (size_t i = 0; i < p->k; i++) {
        double lam = p->lambda[i], tau = 1 + lam, m2 = p->mt[i] * p->mt[i], lt = log1p(lam);
        int s1 = ga_gchisq_add_term(p->lx, 0.5 * lam, r, r * m2 * tau);
        /* -l under Y: a = -lambda/(2 tau), b2 = mt^2 / tau^2 */
        int s2 = ga_gchisq_add_term(p->ly, -0.5 * lam / tau, r, r * m2 / (tau * tau));
        if (s1 || s2)
            return GA_EINVAL;
        ox += -0.5 * lt + 0.5 * m2;
        oy += 0.5 * lt + 0.5 * m2 / tau;
    }
    p->lx->offset = r * ox;
    p->ly->offset = r * oy;
    ga_gchisq_normalize(p->lx, 0);
    ga_gchisq_normalize(p->ly, 0);
    if (p->swapped) { /* the loss of (Y, X) under Y is -l under Y; its negation under X is l */
        ga_gchisq *t = p->lx;
        p->lx = p->ly;
        p->ly = t;
    }
    return GA_OK;
}

/* Singular (or indefinite) covariances: the supports from the eigendecompositions of both,
 * decided exactly where the inputs allow (zero rows), else by a rank tolerance (said in the
 * reason); equal supports are reduced on the common subspace. F: the field names. */
static int reduce_singular(ga_pair *p, const double *sx, const double *sy, const double *dmu,
                           const ga_pair_input *in, const char *const F[4], char *msg,
                           size_t msglen)
{
    size_t d = p->d;
    int rc;
    double *wx = NULL, *wy = NULL, *vy = NULL, *rx = NULL, *ry = NULL, *rm = NULL;
    rc = GA_ENOMEM;
    wx = malloc(d * sizeof *wx);
    wy = malloc(d * sizeof *wy);
    vy = malloc(d * d * sizeof *vy);
    if (!wx || !wy || !vy)
        goto cleanup;
    if ((rc = sym_eig(wx, NULL, sx, d)) || (rc = sym_eig(wy, vy, sy, d))) {
        ga_msg(msg, msglen, "the symmetric eigensolver failed on a %zu x %zu matrix: %s", d, d,
               eig_why);
        goto cleanup;
    }
    rc = GA_EINVAL;
    double scale = fmax(fmax(fabs(wx[0]), fabs(wx[d - 1])), fmax(fabs(wy[0]), fabs(wy[d - 1])));
    double tol = 64.0 * d * DBL_EPSILON * scale;
    if (wx[0] < -tol || wy[0] < -tol) {
        int bx = wx[0] < -tol;
        ga_msg(msg, msglen,
               "%s is not positive semi-definite: its most negative eigenvalue is %.6g "
               "(tolerance %.3g)", bx ? F[2] : F[3], bx ? wx[0] : wy[0], tol);
        goto cleanup;
    }
    size_t kx = 0, ky = 0;
    for (size_t i = 0; i < d; i++) {
        kx += wx[i] > tol;
        ky += wy[i] > tol;
    }
    /* basis of range(S_y): eigenvectors with eigenvalue > tol (the last ky columns) */
    size_t k = ky;
    int same = kx == ky && k > 0;
    rc = GA_ENOMEM;
    p->U = malloc(d * (k ? k : 1) * sizeof *p->U);
    rx = malloc((k ? k : 1) * d * sizeof *rx);
    if (!p->U || !rx)
        goto cleanup;
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < k; j++)
            p->U[i * k + j] = vy[i * d + (d - k + j)];
    double resid = 0, mres = 0, mnorm = 0;
    if (same) {
        /* range(S_x) = range(S_y) iff (I - U U^T) S_x = 0 (same rank); the mean difference
         * must lie in the range too */
        ga_cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)k, (int)d, (int)d, 1.0, p->U,
                    (int)k, sx, (int)d, 0.0, rx, (int)d); /* rx = U^T S_x (k x d) */
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < d; j++) {
                double v = sx[i * d + j];
                for (size_t l = 0; l < k; l++)
                    v -= p->U[i * k + l] * rx[l * d + j];
                resid = fmax(resid, fabs(v));
            }
        for (size_t i = 0; i < d; i++) {
            double v = dmu[i];
            for (size_t l = 0; l < k; l++) {
                double c = 0;
                for (size_t j = 0; j < d; j++)
                    c += p->U[j * k + l] * dmu[j];
                v -= p->U[i * k + l] * c;
            }
            mres = fmax(mres, fabs(v));
            mnorm = fmax(mnorm, fabs(in->mu_x[i]) + fabs(in->mu_y[i]));
        }
    }
    /* The mean test is relative to the means alone: rounding in mu_x - mu_y and in its
     * projection is a few ulps of |mu_x| + |mu_y| (a covariance-based floor would swallow a
     * genuine shift of 1e-20 where both laws have zero variance). Exact zero rows come
     * first: a coordinate with an exactly zero row in both covariances and a nonzero mean
     * difference separates the supports exactly, whatever the tolerance. */
    double mtol = 64.0 * d * DBL_EPSILON * mnorm;
    size_t exact_i = d;
    for (size_t i = 0; i < d && exact_i == d; i++) {
        if (dmu[i] == 0)
            continue;
        int zero = 1;
        for (size_t j = 0; j < d && zero; j++)
            zero = sx[i * d + j] == 0 && sy[i * d + j] == 0;
        if (zero)
            exact_i = i;
    }
    /* a rigorous reason for different supports, on the exact inputs: a coordinate where one
     * law is a point mass (zero row) and the other is not, or both are point masses at
     * different places */
    for (size_t i = 0; i < d && !p->support_exact; i++) {
        int zx = 1, zy = 1;
        for (size_t j = 0; j < d; j++) {
            zx &= sx[i * d + j] == 0;
            zy &= sy[i * d + j] == 0;
        }
        p->support_exact = (zx != zy) || (zx && zy && dmu[i] != 0);
    }
    if (kx == 0 && ky == 0) {
        /* both laws are point masses (every eigenvalue within the rank tolerance of 0): the
         * same point (the privacy loss is 0) or two points (disjoint supports) */
        double dmax = 0, pnorm = 0;
        for (size_t i = 0; i < d; i++) {
            dmax = fmax(dmax, fabs(dmu[i]));
            pnorm = fmax(pnorm, fabs(in->mu_x[i]) + fabs(in->mu_y[i]));
        }
        double ptol = 64.0 * d * DBL_EPSILON * pnorm;
        if (p->support_exact || dmax > ptol) {
            p->support = GA_SUPPORT_DIFFER;
            set_reason(p,
                       "the supports differ: both laws are point masses (both covariances zero "
                       "to the rank tolerance %.3g) at different "
                       "places (largest |mu_x - mu_y| component %.17g): delta = 1 in both "
                       "directions for every eps%s", tol, dmax,
                       p->support_exact ? " (exact, no tolerance involved)"
                                        : " (a tolerance decided this: not certifiable)");
            p->k = 0;
            rc = GA_OK;
            goto cleanup;
        }
        /* the same point: audited as N(0, 1) vs N(0, 1) (a coordinate both laws share
         * changes no privacy loss), whose loss is 0: delta = 0 for every eps >= 0 */
        p->support = GA_SUPPORT_COMMON;
        set_reason(p,
                   "both laws are the same point mass (both covariances zero to the rank "
                   "tolerance %.3g, |mu_x - mu_y| <= %.3g): the privacy "
                   "loss is 0, delta = 0 for every eps >= 0", tol, ptol);
        double one = 1, zero = 0;
        rc = reduce_pd(p, &one, &one, &zero, 1, msg, msglen);
        goto cleanup;
    }
    if (exact_i < d && same) {
        p->support = GA_SUPPORT_DIFFER;
        set_reason(p,
                 "the supports differ: both covariances have an exactly zero row %zu but the "
                 "means differ there (mu_x - mu_y = %.17g), so each law puts all its mass where "
                 "the other has none: delta = 1 in both directions for every eps (exact, no "
                 "tolerance involved)", exact_i, dmu[exact_i]);
        p->k = 0;
        rc = GA_OK;
        goto cleanup;
    }
    if (!same || resid > tol || mres > mtol) {
        p->support = GA_SUPPORT_DIFFER;
        const char *how = p->support_exact ? "" : " (a tolerance decided this: not certifiable)";
        if (!same)
            set_reason(p,
                       "the supports differ: rank(s_x) = %zu but rank(s_y) = %zu (rank tolerance "
                       "%.3g), so each law puts all its mass where the other has none: delta = 1 "
                       "in both directions for every eps%s", kx, ky, tol, how);
        else if (resid > tol)
            set_reason(p,
                       "the supports differ: s_x and s_y have rank %zu but different ranges "
                       "(residual %.3g > tolerance %.3g): delta = 1 in both directions for "
                       "every eps%s", k, resid, tol, how);
        else
            set_reason(p,
                       "the supports differ: mu_x - mu_y leaves the common range of the "
                       "covariances (residual %.3g > tolerance %.3g): delta = 1 in both "
                       "directions for every eps%s", mres, mtol, how);
        p->k = 0;
        rc = GA_OK;
        goto cleanup;
    }
    /* reduce to the common range: S' = U^T S U, mu' = U^T dmu */
    rc = GA_ENOMEM;
    ry = malloc(k * k * sizeof *ry);
    rm = malloc(k * sizeof *rm);
    double *t2 = malloc(k * d * sizeof *t2);
    double *sxk = malloc(k * k * sizeof *sxk);
    if (!ry || !rm || !t2 || !sxk) {
        free(t2);
        free(sxk);
        goto cleanup;
    }
    ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)k, (int)k, (int)d, 1.0, rx,
                (int)d, p->U, (int)k, 0.0, sxk, (int)k);
    ga_cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)k, (int)d, (int)d, 1.0, p->U,
                (int)k, sy, (int)d, 0.0, t2, (int)d);
    ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)k, (int)k, (int)d, 1.0, t2,
                (int)d, p->U, (int)k, 0.0, ry, (int)k);
    ga_cblas_dgemv(CblasRowMajor, CblasTrans, (int)d, (int)k, 1.0, p->U, (int)k, dmu, 1, 0.0, rm, 1);
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++) {
            sxk[i * k + j] = sxk[j * k + i] = 0.5 * (sxk[i * k + j] + sxk[j * k + i]);
            ry[i * k + j] = ry[j * k + i] = 0.5 * (ry[i * k + j] + ry[j * k + i]);
        }
    p->support = GA_SUPPORT_COMMON;
    set_reason(p,
             "singular covariances with a common support of dimension %zu of %zu (a tolerance "
             "decided it: rank tolerance %.3g, range residual %.3g, mean residual %.3g <= %.3g "
             "treated as zero): the pair is audited on that subspace", k, d, tol, resid, mres,
             mtol);
    rc = reduce_pd(p, sxk, ry, rm, k, msg, msglen);
    if (rc == GA_OK)
        p->la_err += sqrt(p->r) * tau_rel_err(p);
    free(t2);
    free(sxk);
cleanup:
    free(wx);
    free(wy);
    free(vy);
    free(rx);
    free(ry);
    free(rm);
    return rc;
}

/* The input checks (finite entries, symmetric matrices, a mean difference in range) and the
 * working copies: sx, sy symmetrized, dmu = mu_x - mu_y. GA_OK or GA_EINVAL with a message
 * naming the field. */
static int validate_input(double *sx, double *sy, double *dmu, const ga_pair_input *in,
                          const char *const F[4], char *msg, size_t msglen)
{
    size_t d = in->d;
    for (size_t i = 0; i < d; i++) {
        if (!isfinite(in->mu_x[i]) || !isfinite(in->mu_y[i])) {
            ga_msg(msg, msglen, "%s[%zu] is not finite", isfinite(in->mu_x[i]) ? F[1] : F[0], i);
            return GA_EINVAL;
        }
        dmu[i] = in->mu_x[i] - in->mu_y[i];
        if (!isfinite(dmu[i])) {
            ga_msg(msg, msglen, "%s[%zu] - %s[%zu] = %.17g - %.17g overflows the double range",
                   F[0], i, F[1], i, in->mu_x[i], in->mu_y[i]);
            return GA_EINVAL;
        }
    }
    if (check_matrix(sx, in->s_x, d, F[2], msg, msglen) ||
        check_matrix(sy, in->s_y, d, F[3], msg, msglen))
        return GA_EINVAL;
    return GA_OK;
}

int ga_pair_reduce(ga_pair **out, const ga_pair_input *in, char *msg, size_t msglen)
{
    static const char *defaults[4] = {"mu_x", "mu_y", "s_x", "s_y"};
    const char *F[4];
    for (int i = 0; i < 4; i++)
        F[i] = in->field[i] ? in->field[i] : defaults[i];
    int rc = GA_EINVAL;
    size_t d = in->d;
    double *sx = NULL, *sy = NULL, *dmu = NULL, *tmp = NULL;
    ga_pair *p = calloc(1, sizeof *p);
    *out = NULL;
    if (msg && msglen)
        msg[0] = 0; /* every failure below leaves a message (see cleanup) */
    if (!p)
        return GA_ENOMEM;
    p->d = d;
    p->r = in->columns > 0 ? in->columns : 1;
    if (!in->mu_x || !in->mu_y || !in->s_x || !in->s_y) {
        ga_msg(msg, msglen, "%s", "a mean or covariance array is missing (NULL)");
        goto cleanup;
    }
    if (d == 0) {
        ga_msg(msg, msglen, "%s", "dimension is 0: give at least one coordinate");
        goto cleanup;
    }
    if (!isfinite(p->r) || p->r < 1) {
        ga_msg(msg, msglen, "columns must be >= 1 (got %g)", in->columns);
        goto cleanup;
    }
    if (d > 100000) {
        ga_msg(msg, msglen, "dimension %zu exceeds the cap of 100000", d);
        goto cleanup;
    }
    rc = GA_ENOMEM;
    /* the working copies, one allocation (a remove-one audit reduces 1-D pairs by the
     * hundred thousand, twice each) */
    if (!(sx = malloc((3 * d * d + d) * sizeof *sx)))
        goto cleanup;
    sy = sx + d * d;
    tmp = sy + d * d;
    dmu = tmp + d * d;
    if ((rc = validate_input(sx, sy, dmu, in, F, msg, msglen)))
        goto cleanup;
    /* fast path: both positive definite (Cholesky succeeds) */
    memcpy(tmp, sx, d * d * sizeof *tmp);
    int xpd = potrf(tmp, d) == 0;
    memcpy(tmp, sy, d * d * sizeof *tmp);
    int ypd = potrf(tmp, d) == 0;
    if (xpd && ypd) {
        p->support = GA_SUPPORT_FULL;
        set_reason_static(p, "both covariances are positive definite");
        rc = reduce_full(p, sx, sy, dmu, d, msg, msglen);
    } else {
        rc = reduce_singular(p, sx, sy, dmu, in, F, msg, msglen);
    }
    if (rc == GA_OK && p->support != GA_SUPPORT_DIFFER)
        rc = build_forms(p);
cleanup:
    free(sx); /* (sy, tmp, dmu) */
    if (rc == GA_OK) {
        *out = p;
    } else {
        if (msg && msglen && !msg[0] && rc == GA_ENOMEM)
            ga_msg(msg, msglen, "the reduction of a pair of dimension %zu failed: out of "
                   "memory (it holds a few %zu x %zu matrices of %.3g MB each)", p->d, p->d,
                   p->d, (double)p->d * (double)p->d * 8e-6);
        else if (msg && msglen && !msg[0])
            ga_msg(msg, msglen, "the reduction failed: %s (a whitened mean or covariance "
                   "entry outside the double range?)", ga_strerror(rc));
        ga_pair_free(p);
    }
    return rc;
}

/* q += the terms, offset and normal part of t (independent sum) */
static int form_add(ga_gchisq *q, const ga_gchisq *t)
{
    for (size_t j = 0; j < t->n; j++)
        if (ga_gchisq_add_term(q, t->t[j].a, t->t[j].nu, t->t[j].b2))
            return GA_EINVAL;
    q->offset += t->offset;
    q->sigma2 += t->sigma2;
    return GA_OK;
}

/* the product's summaries from its reduced blocks */
static int product_summary(ga_pair *p)
{
    size_t k = 0, nx = 0, ny = 0;
    int differ = 0, common = 0;
    for (size_t b = 0; b < p->nblocks; b++) {
        const ga_pair *q = p->blocks[b];
        p->d += q->d;
        k += q->k;
        p->la_err += q->la_err;
        if (q->support == GA_SUPPORT_DIFFER) {
            if (!differ || (q->support_exact && !p->support_exact)) {
                p->support_exact = q->support_exact;
                set_reason(p, "block %zu: %s", b + 1, ga_pair_support_reason(q));
            }
            differ = 1;
        } else {
            common |= q->support == GA_SUPPORT_COMMON;
            nx += q->lx->n;
            ny += q->ly->n;
        }
    }
    p->k = k;
    p->r = 1;
    p->support = differ ? GA_SUPPORT_DIFFER : common ? GA_SUPPORT_COMMON : GA_SUPPORT_FULL;
    if (!differ)
        set_reason(p, "a product of %zu independent blocks (%s)", p->nblocks,
                   common ? "some singular, reduced to their common supports"
                          : "all covariances positive definite");
    p->lambda = malloc((k ? k : 1) * sizeof *p->lambda);
    p->mt = malloc((k ? k : 1) * sizeof *p->mt);
    if (!p->lambda || !p->mt)
        return GA_ENOMEM;
    for (size_t b = 0, at = 0; b < p->nblocks; at += p->blocks[b]->k, b++) {
        memcpy(p->lambda + at, p->blocks[b]->lambda, p->blocks[b]->k * sizeof *p->lambda);
        memcpy(p->mt + at, p->blocks[b]->mt, p->blocks[b]->k * sizeof *p->mt);
    }
    if (differ)
        return GA_OK;
    /* the privacy loss of a product is the sum of the blocks' independent losses */
    p->lx = ga_gchisq_alloc(nx);
    p->ly = ga_gchisq_alloc(ny);
    if (!p->lx || !p->ly)
        return GA_ENOMEM;
    for (size_t b = 0; b < p->nblocks; b++)
        if (form_add(p->lx, p->blocks[b]->lx) || form_add(p->ly, p->blocks[b]->ly))
            return GA_EINVAL;
    ga_gchisq_normalize(p->lx, 0);
    ga_gchisq_normalize(p->ly, 0);
    return GA_OK;
}

int ga_pair_reduce_product(ga_pair **out, const ga_pair_input *in, size_t n, char *msg,
                           size_t msglen)
{
    *out = NULL;
    if (n == 1)
        return ga_pair_reduce(out, in, msg, msglen);
    if (n == 0 || n > GA_PAIR_MAX_BLOCKS) {
        ga_msg(msg, msglen, "a product pair needs 1 to %d blocks (got %zu)", GA_PAIR_MAX_BLOCKS, n);
        return GA_EINVAL;
    }
    ga_pair *p = calloc(1, sizeof *p);
    int rc = GA_ENOMEM;
    if (!p || !(p->blocks = calloc(n, sizeof *p->blocks)))
        goto cleanup;
    for (size_t b = 0; b < n; b++, p->nblocks = b)
        if ((rc = ga_pair_reduce(&p->blocks[b], in + b, msg, msglen)))
            goto cleanup;
    rc = product_summary(p);
cleanup:
    if (rc == GA_OK) {
        *out = p;
    } else {
        if (rc == GA_ENOMEM && msg && msglen)
            ga_msg(msg, msglen, "%s", "out of memory reducing a product pair");
        ga_pair_free(p);
    }
    return rc;
}

int ga_pair_loss_forms(ga_gchisq *lx, ga_gchisq *ly, const ga_pair *p)
{
    if (p->support == GA_SUPPORT_DIFFER || p->ploss) /* a subsampled loss is no such form */
        return GA_EDOM;
    if (ga_gchisq_copy(lx, p->lx) || ga_gchisq_copy(ly, p->ly))
        return GA_ENOMEM;
    return GA_OK;
}

/* Pure normal loss Q ~ N(k, s^2) (equal covariances): the analytic Gaussian mechanism
 * formula (Balle & Wang 2018, Theorem 8), E[(1 - e^{eps - Q})_+] =
 * Phi((k - eps)/s) - e^{eps - k + s^2/2} Phi((k - eps)/s - s). Used when the two terms do not
 * cancel (their difference is at least a tenth of the first); returns 0 otherwise. */
static int delta_normal(ga_result *res, const ga_gchisq *q, double eps)
{
    double s = sqrt(q->sigma2), u = (q->offset - eps) / s;
    double A = 0.5 * erfc(-u / M_SQRT2);
    double lB = eps - q->offset + 0.5 * q->sigma2 + log(0.5 * erfc(-(u - s) / M_SQRT2));
    double B = exp(lB);
    if (!(A - B >= 0.1 * A) || !isfinite(B))
        return 0;
    res->val = A - B;
    /* erfc to a few ulp; u and lB carry rounding of size eps (|k| + |eps|)/s and
     * eps (|eps| + |k| + s^2), amplified by the densities */
    double du = 4 * DBL_EPSILON * (fabs(q->offset) + fabs(eps) + s) / s;
    res->err = 8 * DBL_EPSILON * (A + B) + du * (A + B) * (1 + fabs(u) + s) +
               4 * DBL_EPSILON * (fabs(eps) + fabs(q->offset) + q->sigma2) * B;
    return 1;
}

/* E[(1 - e^{eps - Q})_+] by the direct formula */
static int delta_direct(ga_result *res, const ga_gchisq *q, double eps,
                        const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    ga_gchisq_prob t;
    if (q->n == 0 && q->sigma2 > 0 && delta_normal(res, q, eps))
        return GA_OK;
    if (ga_gchisq_trivial(&t, q, eps) && t.sf.val == 0) {
        res->val = res->err = 0; /* Q <= eps almost surely */
        return GA_OK;
    }
    if (ga_gchisq_trivial(&t, q, eps) && t.cdf.val == 0 && q->n == 0) {
        /* point mass above eps: 1 - e^{eps - offset} */
        res->val = -expm1(eps - q->offset);
        res->err = 2 * DBL_EPSILON * res->val;
        return GA_OK;
    }
    ga_path p;
    if (ga_path_setup_scale(&p, q, eps, 1, GA_KERNEL_DELTA, -800) != GA_OK)
        return GA_EDOM;
    if (p.L0 < -800) {
        /* delta <= P[Q > eps] <= exp(K(c) - c eps) (Chernoff, c > 0): below the double
         * range, so 0 is the correctly rounded value */
        res->val = res->err = 0;
        return GA_OK;
    }
    ga_result in;
    double ea = o->epsabs * M_PI * exp(-p.L0);
    if (!isfinite(ea))
        ea = DBL_MAX;
    int st = ga_path_integrate(&in, &p, ea, o->epsrel, o->max_evals, &w->quad);
    double v = in.val / M_PI, e = in.err / M_PI;
    res->val = v > 0 ? exp(p.L0 + log(v)) : 0.0;
    res->err = e > 0 ? exp(p.L0 + log(e)) : 0.0;
    if (res->val - res->err > 1 || !isfinite(res->val)) {
        /* inconsistent with delta <= 1: say so instead of clipping */
        res->val = 1;
        res->err = 1;
        return GA_ETOL;
    }
    if (res->val > 1) {
        res->err += res->val - 1;
        res->val = 1;
    }
    return st;
}

static int delta_tails(ga_result *res, const ga_gchisq *qa, const ga_gchisq *qb, double eps,
                       const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    /* P[Qa > eps] - e^eps P[Qb < -eps]; Qa = l under the first law, Qb = -l under the second */
    ga_gchisq_prob pa, pb;
    int s1 = ga_gchisq_prob_eval(&pa, qa, eps, o, w);
    int s2 = ga_gchisq_prob_eval(&pb, qb, -eps, o, w);
    double ee = exp(eps);
    res->val = pa.sf.val - ee * pb.cdf.val;
    res->err = pa.sf.err + ee * pb.cdf.err + 2 * DBL_EPSILON * (pa.sf.val + ee * pb.cdf.val);
    if (res->val < 0) { /* delta >= 0: move into range, keeping the truth covered */
        res->err += -res->val;
        res->val = 0;
    }
    return s1 ? s1 : s2;
}

void ga_pair_set_input_tv(ga_pair *p, double tv_x, double tv_y, double eta)
{
    p->in_tv[0] = tv_x;
    p->in_tv[1] = tv_y;
    p->la_err += eta;
}

void ga_pair_set_input_d2(ga_pair *p, double lo, double hi)
{
    p->in_d2[0] = lo;
    p->in_d2[1] = hi;
}

/* laws within total variation tv of the exact ones (in_tv): for every event S,
 * |P_X(S) - P_X'(S)| <= tv_X, so delta_{X,Y} moves by at most tv_X + e^eps tv_Y */
static void widen_input(ga_delta *out, const ga_pair *p, double eps)
{
    if (p->in_tv[0] == 0 && p->in_tv[1] == 0)
        return;
    double ee = exp(eps);
    out->xy.err += p->in_tv[0] + ee * p->in_tv[1];
    out->yx.err += p->in_tv[1] + ee * p->in_tv[0];
}

int ga_pair_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                  const ga_gchisq_opts *opts, ga_gchisq_work *w)
{
    ga_gchisq_opts o = ga_gchisq_opts_or_default(opts);
    memset(out, 0, sizeof *out);
    if (!isfinite(eps) || method < 0 || method > GA_DELTA_TAILS)
        return GA_EINVAL;
    out->method = method == GA_DELTA_AUTO ? GA_DELTA_DIRECT : method;
    if (p->ploss && method == GA_DELTA_TAILS && !(p->ploss->n == 1 && p->ploss->t[0].count == 1))
        return GA_EDOM;
    if (p->support == GA_SUPPORT_DIFFER && !p->ploss) {
        out->xy.val = out->yx.val = 1;
        widen_input(out, p, eps);
        return GA_OK;
    }
    ga_gchisq_work *own = w ? NULL : ga_gchisq_work_alloc(); /* NULL: one for this call */
    if (!w && !own)
        return GA_ENOMEM;
    if (!w)
        w = own;
    int s1, s2;
    if (p->ploss) {
        if (method == GA_DELTA_AUTO && p->ploss->n == 1 && p->ploss->t[0].count == 1)
            out->method = GA_DELTA_TAILS;
        s1 = ga_ploss_delta(&out->xy, &out->yx, p->ploss, eps, out->method, &o, &w->quad);
        s2 = GA_OK;
    } else {
        if (out->method == GA_DELTA_DIRECT) {
            s1 = delta_direct(&out->xy, p->lx, eps, &o, w);
            s2 = delta_direct(&out->yx, p->ly, eps, &o, w);
        } else {
            s1 = delta_tails(&out->xy, p->lx, p->ly, eps, &o, w);
            s2 = delta_tails(&out->yx, p->ly, p->lx, eps, &o, w);
        }
        /* the snapped eigenvalues and mean components: a relative first-order effect (the
         * loss moves by about la_err (z^2 + 1)/2; z^2 up to ~80 covers tails down to 1e-18) */
        double rel = p->la_err * (40 + fabs(eps));
        out->xy.err += rel * out->xy.val;
        out->yx.err += rel * out->yx.val;
        widen_input(out, p, eps);
    }
    ga_gchisq_work_free(own);
    return s1 ? s1 : s2;
}

/* ------------------------------------------------------------ eps(delta) */

typedef struct {
    const ga_pair *p;
    const ga_gchisq_opts *o;
    ga_gchisq_work *w;
    double logt;
    ga_delta last;
    int status;
} eps_param;

static double eps_fn(double eps, void *param)
{
    eps_param *e = param;
    if (e->o->deadline > 0 && ga_expired(e->o->deadline)) {
        e->status = GA_ETIME; /* (the search ends: no value) */
        return 0;
    }
    int s = ga_pair_delta(&e->last, e->p, eps, GA_DELTA_AUTO, e->o, e->w);
    if (s && !e->status)
        e->status = s;
    double m = fmax(e->last.xy.val, e->last.yx.val);
    return (m > 0 ? log(m) : -745.0) - e->logt;
}

int ga_pair_epsilon(ga_result *eps, int *direction, const ga_pair *p, double delta,
                    const ga_gchisq_opts *opts, ga_gchisq_work *w)
{
    ga_gchisq_opts o = ga_gchisq_opts_or_default(opts);
    eps->val = eps->err = 0;
    *direction = 0;
    if (!(delta > 0 && delta < 1))
        return GA_EINVAL;
    if (p->support == GA_SUPPORT_DIFFER) {
        eps->val = INFINITY;
        return GA_EDOM;
    }
    eps_param ep = {p, &o, w, log(delta), {{0, 0}, {0, 0}, 0}, GA_OK};
    double f0 = eps_fn(0, &ep);
    if (ep.status != GA_OK && ep.status != GA_ETOL) { /* no value to search on */
        eps->val = NAN;
        eps->err = INFINITY;
        return ep.status;
    }
    if (f0 <= 0) {
        eps->val = 0;
        eps->err = 0;
        return ep.status;
    }
    double lo = 0, hi = 1, fhi = eps_fn(hi, &ep);
    while (fhi > 0 && hi < 1e300 && (ep.status == GA_OK || ep.status == GA_ETOL)) {
        lo = hi; /* doubling: at most ~1000 evaluations */
        hi *= 2;
        fhi = eps_fn(hi, &ep);
    }
    if (ep.status != GA_OK && ep.status != GA_ETOL) {
        eps->val = NAN;
        eps->err = INFINITY;
        return ep.status;
    }
    if (fhi > 0)
        return GA_EMAXITER;
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s)
        return GA_ENOMEM;
    gsl_function F = {eps_fn, &ep};
    gsl_root_fsolver_set(s, &F, lo, hi);
    double x = 0.5 * (lo + hi);
    for (int it = 0; it < 200; it++) {
        gsl_root_fsolver_iterate(s);
        x = gsl_root_fsolver_root(s);
        lo = gsl_root_fsolver_x_lower(s);
        hi = gsl_root_fsolver_x_upper(s);
        if (gsl_root_test_interval(lo, hi, 0, 1e-13) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    /* at the root: which direction binds, and the effect of the delta error estimates:
     * d log delta / d eps by a difference quotient over the final bracket (or a small step) */
    eps_fn(x, &ep);
    ga_delta at = ep.last;
    *direction = at.xy.val >= at.yx.val ? 1 : 2;
    double h = fmax(hi - lo, 1e-6 * fmax(x, 1e-3));
    double f1 = eps_fn(x + h, &ep), f2 = eps_fn(fmax(x - h, 0), &ep);
    double slope = (f1 - f2) / (x + h - fmax(x - h, 0));
    const ga_result *b = *direction == 1 ? &at.xy : &at.yx;
    double relerr = b->val > 0 ? b->err / b->val : 0;
    eps->val = x;
    eps->err = (hi - lo) + (slope < 0 ? relerr / -slope : 0) + 4 * DBL_EPSILON * x;
    return ep.status;
}

/* ------------------------------------------------------------ Renyi */

static int renyi_one(ga_result *r, const ga_gchisq *q, double alpha)
{
    double s = alpha - 1, smin, smax, K;
    ga_gchisq_domain(&smin, &smax, q);
    if (!(s < smax)) {
        r->val = INFINITY;
        r->err = 0;
        return GA_OK;
    }
    if (ga_gchisq_cgf(&K, NULL, NULL, q, s) != GA_OK) {
        r->val = INFINITY;
        r->err = 0;
        return GA_OK;
    }
    /* rounding: a few eps times the sum of the magnitudes of the summands of K */
    double mag = fabs(q->offset * s) + 0.5 * q->sigma2 * s * s;
    for (size_t j = 0; j < q->n; j++) {
        const ga_gchisq_term *t = &q->t[j];
        double u = 1 - 2 * t->a * s;
        mag += fabs(0.5 * t->nu * log(u)) + 0.5 * t->b2 * s * s / u +
               t->nu * fabs(t->a * s) / u; /* conditioning of log(1 - 2 a s) */
    }
    r->val = K / s;
    r->err = 8 * DBL_EPSILON * mag / s;
    return GA_OK;
}

/* r covers [lo.val - lo.err, hi.val + hi.err] too (lo, hi: the values at the neighbouring
 * orders; D is nondecreasing in alpha) */
static void renyi_cover(ga_result *r, const ga_result *lo, const ga_result *hi)
{
    if (!isfinite(r->val))
        return; /* +inf at alpha: +inf beyond it too */
    double up = isfinite(hi->val) ? ga_up(hi->val + hi->err) : INFINITY;
    double dn = ga_dn(lo->val - lo->err);
    r->err = fmax(r->err, fmax(ga_up(up - r->val), ga_up(r->val - dn)));
}

int ga_pair_renyi_near(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    int rc = ga_pair_renyi(xy, yx, p, alpha);
    if (rc != GA_OK && rc != GA_ETOL)
        return rc;
    double a_lo = nextafter(alpha, 0), a_hi = nextafter(alpha, INFINITY);
    ga_result lx = {0, 0}, ly = {0, 0}, hx, hy; /* below alpha = 1 + ulp: D >= 0 */
    if (a_lo > 1 && (rc = ga_pair_renyi(&lx, &ly, p, a_lo)) != GA_OK && rc != GA_ETOL)
        return rc;
    if ((rc = ga_pair_renyi(&hx, &hy, p, a_hi)) != GA_OK && rc != GA_ETOL)
        return rc;
    renyi_cover(xy, &lx, &hx);
    renyi_cover(yx, &ly, &hy);
    return rc;
}

int ga_pair_renyi(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    if (!(alpha > 1) || !isfinite(alpha))
        return GA_EINVAL;
    if (p->ploss)
        return ga_ploss_renyi(xy, yx, p->ploss, alpha);
    if (p->nblocks) { /* the divergences of independent blocks add */
        xy->val = yx->val = xy->err = yx->err = 0;
        for (size_t b = 0; b < p->nblocks; b++) {
            ga_result bx, by;
            ga_pair_renyi(&bx, &by, p->blocks[b], alpha);
            xy->val += bx.val;
            yx->val += by.val;
            xy->err += bx.err + 2 * DBL_EPSILON * fabs(xy->val);
            yx->err += by.err + 2 * DBL_EPSILON * fabs(yx->val);
        }
        if (!isfinite(xy->val))
            xy->err = 0;
        if (!isfinite(yx->val))
            yx->err = 0;
        return GA_OK;
    }
    if (p->support == GA_SUPPORT_DIFFER) {
        xy->val = yx->val = INFINITY;
        xy->err = yx->err = 0;
        return GA_OK;
    }
    renyi_one(xy, p->lx, alpha);
    renyi_one(yx, p->ly, alpha);
    /* What renyi_one cannot see: the errors of the reduction in the forms' parameters,
     * carried to first order. The eigenvalues have an absolute error dl = k eps max|lambda|
     * (backward-stable eigensolver), so each a_j (lambda/2 under X, -lambda/(2 tau) under
     * Y) is off by at most da = dl/(2 tau_min^2) + la_err/2, each b2_j (r mt^2 tau, r mt^2 /
     * tau^2) relatively by rho = 2 dl/tau_min + la_err (la_err: snapping and conditioning),
     * the offsets by r sum (dl/(2 tau_i)) plus their rounding (summands that can cancel).
     * With u_j = 1 - 2 a_j s, dK/da_j = nu_j s/u_j + b2_j s^3/u_j^2 and dK/db2_j =
     * s^2/(2 u_j), so D = K/s moves by at most the sum of these over s. */
    double lmax = 0, tmin = INFINITY, oerr = 0, omag = 0;
    for (size_t i = 0; i < p->k; i++) {
        lmax = fmax(lmax, fabs(p->lambda[i]));
        tmin = fmin(tmin, 1 + p->lambda[i]);
    }
    double dl = 4 * DBL_EPSILON * lmax; /* as in tau_rel_err */
    for (size_t i = 0; i < p->k; i++) {
        double tau = 1 + p->lambda[i], m2 = p->mt[i] * p->mt[i];
        omag += 0.5 * fabs(log1p(p->lambda[i])) + m2 * (1 + 1 / tau);
        oerr += dl / (2 * tau) + m2 * (2 * dl / tmin + p->la_err);
    }
    oerr = p->r * (oerr + 4 * DBL_EPSILON * omag);
    double da = dl / (2 * tmin * tmin) + 0.5 * p->la_err, rho = 2 * dl / tmin + p->la_err;
    for (int dir = 0; dir < 2; dir++) {
        ga_result *res = dir ? yx : xy;
        const ga_gchisq *q = dir ? p->ly : p->lx;
        if (!isfinite(res->val))
            continue;
        double sa = alpha - 1, dk = 0;
        for (size_t j = 0; j < q->n; j++) {
            const ga_gchisq_term *t = &q->t[j];
            double u = 1 - 2 * t->a * sa;
            dk += (t->nu * sa / u + t->b2 * sa * sa * sa / (u * u)) * da +
                  sa * sa / (2 * u) * t->b2 * rho;
        }
        res->err += dk / sa + oerr;
    }
    return GA_OK;
}

double ga_rdp_to_dp_mironov(double alpha, double eps_alpha, double delta)
{
    return eps_alpha + log(1 / delta) / (alpha - 1);
}

double ga_rdp_to_dp_improved(double alpha, double eps_alpha, double delta)
{
    return eps_alpha + log((alpha - 1) / alpha) - (log(delta) + log(alpha)) / (alpha - 1);
}

int ga_pair_profile_grid(double *eps, size_t n, const ga_pair *p, const ga_gchisq_opts *opts,
                         ga_gchisq_work *w)
{
    if (n < 2)
        return GA_EINVAL;
    ga_result e;
    int dir;
    double hi = 1;
    if (ga_pair_epsilon(&e, &dir, p, 1e-12, opts, w) == GA_OK && e.val > 0)
        hi = e.val;
    eps[0] = 0;
    for (size_t i = 1; i < n; i++)
        eps[i] = hi * pow(10.0, -3.0 + 3.0 * (double)(i - 1) / (double)(n > 2 ? n - 2 : 1));
    return GA_OK;
}

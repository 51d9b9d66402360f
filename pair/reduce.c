/*
 * reduce.c - the reduction of a Gaussian pair to independent coordinates (the method is
 * stated in pair.c): input checks, whitening by Y (Cholesky) or, when Y's covariance is
 * singular or its support differs from X's, by the common support first; the loss forms
 * of each direction; and products of independent blocks (compositions), whose loss is the
 * sum of the blocks'.
 */
#include "pair/internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYM_TILE 64 /* doubles: two 64 x 64 tiles fit in L2 */

/* the checks of one covariance: finite entries, symmetric to 1e-12 of its largest entry;
 * returns 0 (exactly symmetric), 1 (symmetric within the tolerance) or -1 with msg filled.
 * One pass in tiles (the row and the column reads in cache) gathers the largest entry and
 * the largest asymmetry, and a NaN sum flags a non-finite entry; the offending entry is
 * looked for, in row order, only when there is one. */
static int check_matrix(const double *s, size_t d, const char *name, char *msg, size_t msglen)
{
    double mx = 0, md = 0, nonfinite = 0;
    for (size_t ib = 0; ib < d; ib += SYM_TILE)
        for (size_t jb = 0; jb <= ib; jb += SYM_TILE) {
            size_t ie = ib + SYM_TILE < d ? ib + SYM_TILE : d;
            for (size_t i = ib; i < ie; i++) {
                size_t je = jb + SYM_TILE < i ? jb + SYM_TILE : i;
                for (size_t j = jb; j < je; j++) {
                    double u = s[i * d + j], v = s[j * d + i];
                    nonfinite += (u - u) + (v - v); /* NaN from an infinity or a NaN */
                    mx = fmax(mx, fmax(fabs(u), fabs(v)));
                    md = fmax(md, fabs(u - v));
                }
            }
        }
    for (size_t i = 0; i < d; i++) {
        double u = s[i * d + i];
        nonfinite += u - u;
        mx = fmax(mx, fabs(u));
    }
    if (nonfinite != 0) {
        for (size_t i = 0; i < d * d; i++)
            if (!isfinite(s[i])) {
                ga_msg(msg, msglen, "%s[%zu][%zu] is not finite (%g)", name, i / d, i % d, s[i]);
                return -1;
            }
    }
    if (md > 1e-12 * mx) {
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < i; j++) {
                double u = s[i * d + j], v = s[j * d + i];
                if (fabs(u - v) > 1e-12 * mx) {
                    ga_msg(msg, msglen,
                           "%s is not symmetric: entry [%zu][%zu] = %.17g but [%zu][%zu] = %.17g",
                           name, i, j, u, j, i, v);
                    return -1;
                }
            }
    }
    return md > 0;
}

/* the symmetric part of entry (i, j) of s (exact, and without overflow, where s is symmetric) */
static inline double sym_at(const double *s, size_t d, size_t i, size_t j)
{
    double u = s[i * d + j], v = s[j * d + i];
    return u == v ? u : 0.5 * u + 0.5 * v;
}

/* dst = sym(a) - sym(b) (b NULL: sym(a)); exact says that a and b are exactly symmetric
 * (a plain copy or difference), else in tiles so that the row and column reads stay in cache */
static void sym_copy(double *dst, const double *a, const double *b, size_t d, int exact)
{
    if (exact) {
        for (size_t i = 0; i < d * d; i++)
            dst[i] = b ? a[i] - b[i] : a[i];
        return;
    }
    for (size_t ib = 0; ib < d; ib += SYM_TILE)
        for (size_t jb = 0; jb <= ib; jb += SYM_TILE) {
            size_t ie = ib + SYM_TILE < d ? ib + SYM_TILE : d;
            for (size_t i = ib; i < ie; i++) {
                size_t je = jb + SYM_TILE < i + 1 ? jb + SYM_TILE : i + 1;
                for (size_t j = jb; j < je; j++) {
                    double v = sym_at(a, d, i, j) - (b ? sym_at(b, d, i, j) : 0);
                    dst[i * d + j] = dst[j * d + i] = v;
                }
            }
        }
}

/* why the last sym_eig on this thread failed (for the message) */
static _Thread_local char eig_why[160];

/* eigenvalues (ascending) and, if vec != NULL, eigenvectors of a symmetric matrix copy */
static int sym_eig(double *w, double *vec, const double *s, size_t d)
{
    double *a = malloc(d * d * sizeof *a);
    if (!a) {
        snprintf(eig_why, sizeof eig_why, "no memory for a working copy of %.3g MB",
                 (double)d * (double)d * 8e-6);
        return GA_ENOMEM;
    }
    memcpy(a, s, d * d * sizeof *a);
    int info = ga_lapack_syevd(vec ? 'V' : 'N', 'U', d, a, d, w);
    if (vec && info == 0)
        memcpy(vec, a, d * d * sizeof *a);
    free(a);
    if (info)
        ga_lapack_why(eig_why, sizeof eig_why, info);
    return ga_lapack_status(info);
}

/* Cholesky factor (lower, in place) with a scalar path for k = 1: the many 1-D pairs of the
 * catalogue (rank-one changes, compositions of them) would otherwise pay LAPACK's call and
 * threading overhead for a square root. The LAPACK status: 0 on success, > 0 not positive
 * definite, or a failure of the library itself (lapack_failed). */
static int potrf(double *a, size_t k)
{
    if (k == 1) {
        if (!(a[0] > 0) || !isfinite(a[0]))
            return 1;
        a[0] = sqrt(a[0]);
        return 0;
    }
    return ga_lapack_potrf('L', k, a, k);
}

/* a LAPACK status that says nothing about the matrix: no memory, or no library */
static int lapack_failed(int info)
{
    return info == GA_LAPACK_ENOMEM || info == GA_LAPACK_ENOLIB;
}

/* the message and status of a factorisation the library could not run */
static int lapack_failure(int info, size_t k, char *msg, size_t msglen)
{
    ga_lapack_why(eig_why, sizeof eig_why, info);
    ga_msg(msg, msglen, "the Cholesky factorisation of a %zu x %zu covariance could not run: %s",
           k, k, eig_why);
    return ga_lapack_status(info);
}

/* The reduction of a pair with positive definite covariances (the method in pair.c): whiten
 * by the Cholesky factor of S_y, the eigendecomposition of the whitened difference, the mean
 * in the eigenbasis, each snapped where it is at the rounding level (la_err); sx, sy (k x k,
 * symmetric to the input check's tolerance: their symmetric parts are used) and dmu = mu_x -
 * mu_y are read only. The whitened difference is formed, solved and decomposed in place in
 * the pair's V, so that the peak is the two inputs, L, V and the eigensolver's workspace.
 * With RD_PD_TEST, GA_EDOM is returned without a message when S_y fails Cholesky or S_x is
 * not positive definite relative to it (some tau <= 0): the caller takes the singular
 * route. RD_EXACT_SYM says sx and sy are exactly symmetric. GA_OK, GA_EINVAL (a covariance
 * not numerically positive definite, msg says which), GA_ENOMEM. One algorithm, kept whole
 * for its single allocation. */
enum { RD_PD_TEST = 1, RD_EXACT_SYM = 2 };
static int reduce_pd(ga_pair *p, const double *sx, const double *sy, const double *dmu,
                     size_t k, unsigned flags, char *msg, size_t msglen)
{
    int rc = GA_ENOMEM;
    /* one allocation (a remove-one audit reduces 1-D pairs by the hundred thousand, twice
     * each): the pair's lambda, mt, L, V (p->arrays_block) and the working mean m */
    double *blk = malloc((3 * k + 2 * k * k) * sizeof *blk), *m = blk ? blk + 2 * k + 2 * k * k : NULL;
    if (!blk)
        goto cleanup;
    p->lambda = blk;
    p->mt = blk + k;
    p->L = blk + 2 * k;
    p->V = blk + 2 * k + k * k;
    p->arrays_block = 1;
    int pd_test = flags & RD_PD_TEST, exact = (flags & RD_EXACT_SYM) != 0;
    sym_copy(p->L, sy, NULL, k, exact);
    int chol = potrf(p->L, k);
    if (lapack_failed(chol)) {
        rc = lapack_failure(chol, k, msg, msglen);
        goto cleanup;
    }
    if (chol) {
        if (pd_test) {
            rc = GA_EDOM;
            goto cleanup;
        }
        ga_msg(msg, msglen, "%s", "s_y is numerically singular after reduction");
        rc = GA_EINVAL;
        goto cleanup;
    }
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++)
            p->L[i * k + j] = 0;
    /* V = S_x - S_y, then L^{-1} V L^{-T} by two triangular solves in place */
    double *C = p->V;
    sym_copy(C, sx, sy, k, exact);
    int equal = 1;
    for (size_t i = 0; i < k * k; i++)
        equal &= C[i] == 0;
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
    ga_cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)k,
                (int)k, 1.0, p->L, (int)k, C, (int)k);
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < i; j++)
            C[i * k + j] = C[j * k + i] = 0.5 * (C[i * k + j] + C[j * k + i]);
    int info = ga_lapack_syevd('V', 'U', k, p->V, k, p->lambda);
    if (info) {
        ga_lapack_why(eig_why, sizeof eig_why, info);
        rc = ga_lapack_status(info);
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
            if (!pd_test)
                ga_msg(msg, msglen, "%s", "s_x is numerically singular relative to s_y");
            rc = pd_test ? GA_EDOM : GA_EINVAL;
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
    return rc; /* (on failure the caller frees the pair, and blk with it) */
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

/* Is S_x numerically positive definite, as its Cholesky factorisation would say? S_x = L (I +
 * B) L^T with the eigenvalues tau = 1 + lambda of I + B. When every tau >= 1/16 (S_x >= S_y /
 * 16), with the eigenvalues' error (about k eps max|lambda|) far below that and S_y
 * moderately conditioned (the Cholesky diagonal within a factor 1e3: the factorisation of S_y
 * just succeeded), S_x is: no second factorisation. Otherwise S_x is factorised.
 * GA_OK, GA_EDOM (not positive definite: the singular route), or GA_ENOMEM / GA_EDEP with
 * msg (the library could not run). */
static int x_is_pd(const ga_pair *p, const double *sx, int exact, char *msg, size_t msglen)
{
    size_t k = p->k; /* (set by reduce_pd) */
    double lmin = INFINITY, lmax = 0, dmax = 0, dmin = INFINITY;
    for (size_t i = 0; i < k; i++) {
        lmin = fmin(lmin, p->lambda[i]);
        lmax = fmax(lmax, fabs(p->lambda[i]));
        dmax = fmax(dmax, p->L[i * k + i]);
        dmin = fmin(dmin, p->L[i * k + i]);
    }
    if (1 + lmin >= 1.0 / 16 && dmax <= 1e3 * dmin && 8.0 * k * DBL_EPSILON * fmax(1, lmax) <= 1.0 / 32)
        return GA_OK;
    double *t = malloc(k * k * sizeof *t);
    if (!t)
        return GA_ENOMEM;
    sym_copy(t, sx, NULL, k, exact);
    int info = potrf(t, k);
    free(t);
    if (lapack_failed(info))
        return lapack_failure(info, k, msg, msglen);
    return info == 0 ? GA_OK : GA_EDOM;
}

/* Full-rank pairs: whiten by Y, unless the tau lose digits that whitening by X keeps (the
 * reciprocal eigenvalues 1/tau - 1 are then large and carry their relative accuracy): the
 * pair (Y, X) is reduced instead and the two loss laws are swapped back (build_forms). The
 * remaining eigenvalue error is carried in la_err. GA_EDOM, with nothing kept, when either
 * covariance is not numerically positive definite (Cholesky fails): the singular route. */
static int reduce_full(ga_pair *p, const double *sx, const double *sy, double *dmu, size_t d,
                       int exact, char *msg, size_t msglen)
{
    unsigned sym = exact ? RD_EXACT_SYM : 0;
    int rc = reduce_pd(p, sx, sy, dmu, d, RD_PD_TEST | sym, msg, msglen);
    if (rc == GA_OK)
        rc = x_is_pd(p, sx, exact, msg, msglen);
    if (rc != GA_OK)
        return rc;
    double ey = tau_rel_err(p);
    if (ey > 1e-10) {
        ga_pair *q = calloc(1, sizeof *q);
        if (!q)
            return GA_ENOMEM;
        q->type = &ga_pair_type_gaussian;
        q->d = d;
        q->r = p->r;
        for (size_t i = 0; i < d; i++)
            dmu[i] = -dmu[i];
        char m2[256];
        if (reduce_pd(q, sy, sx, dmu, d, sym, m2, sizeof m2) == GA_OK && tau_rel_err(q) < ey) {
            pr_free_arrays(p);
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
 * reason); equal supports are reduced on the common subspace. F: the field names. One
 * algorithm kept whole (its steps share the two eigendecompositions and the tolerance that
 * decided the supports, which the reason reports). */
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
            pr_set_reason(p,
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
        pr_set_reason(p,
                      "both laws are the same point mass (both covariances zero to the rank "
                      "tolerance %.3g, |mu_x - mu_y| <= %.3g): the privacy "
                      "loss is 0, delta = 0 for every eps >= 0", tol, ptol);
        double one = 1, zero = 0;
        rc = reduce_pd(p, &one, &one, &zero, 1, RD_EXACT_SYM, msg, msglen);
        goto cleanup;
    }
    if (exact_i < d && same) {
        p->support = GA_SUPPORT_DIFFER;
        pr_set_reason(p,
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
            pr_set_reason(p,
                          "the supports differ: rank(s_x) = %zu but rank(s_y) = %zu (rank tolerance "
                          "%.3g), so each law puts all its mass where the other has none: delta = 1 "
                          "in both directions for every eps%s", kx, ky, tol, how);
        else if (resid > tol)
            pr_set_reason(p,
                          "the supports differ: s_x and s_y have rank %zu but different ranges "
                          "(residual %.3g > tolerance %.3g): delta = 1 in both directions for "
                          "every eps%s", k, resid, tol, how);
        else
            pr_set_reason(p,
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
    pr_set_reason(p,
             "singular covariances with a common support of dimension %zu of %zu (a tolerance "
             "decided it: rank tolerance %.3g, range residual %.3g, mean residual %.3g <= %.3g "
             "treated as zero): the pair is audited on that subspace", k, d, tol, resid, mres,
             mtol);
    rc = reduce_pd(p, sxk, ry, rm, k, RD_EXACT_SYM, msg, msglen);
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

/* The input checks (finite entries, symmetric matrices, a mean difference in range) and
 * dmu = mu_x - mu_y; *exact says whether both covariances are exactly symmetric. GA_OK or
 * GA_EINVAL with a message naming the field. */
static int validate_input(double *dmu, int *exact, const ga_pair_input *in,
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
    int cx = check_matrix(in->s_x, d, F[2], msg, msglen);
    int cy = cx < 0 ? -1 : check_matrix(in->s_y, d, F[3], msg, msglen);
    if (cx < 0 || cy < 0)
        return GA_EINVAL;
    *exact = cx == 0 && cy == 0;
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
    double *sx = NULL, *sy = NULL, *dmu = NULL;
    ga_pair *p = calloc(1, sizeof *p);
    *out = NULL;
    if (msg && msglen)
        msg[0] = 0; /* every failure below leaves a message (see cleanup) */
    if (p)
        p->type = &ga_pair_type_gaussian;
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
    if (!(dmu = malloc(d * sizeof *dmu)))
        goto cleanup;
    int exact;
    if ((rc = validate_input(dmu, &exact, in, F, msg, msglen)))
        goto cleanup;
    /* fast path: both positive definite (Cholesky succeeds), reduced from the inputs without
     * copies of them */
    rc = reduce_full(p, in->s_x, in->s_y, dmu, d, exact, msg, msglen);
    if (rc == GA_OK) {
        p->support = GA_SUPPORT_FULL;
        pr_set_reason_static(p, "both covariances are positive definite");
    } else if (rc == GA_EDOM) {
        pr_free_arrays(p);
        rc = GA_ENOMEM;
        if (!(sx = malloc(2 * d * d * sizeof *sx)))
            goto cleanup;
        sy = sx + d * d;
        sym_copy(sx, in->s_x, NULL, d, exact);
        sym_copy(sy, in->s_y, NULL, d, exact);
        rc = reduce_singular(p, sx, sy, dmu, in, F, msg, msglen);
    }
    if (rc == GA_OK && p->support != GA_SUPPORT_DIFFER)
        rc = build_forms(p);
cleanup:
    free(sx); /* (sy) */
    free(dmu);
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
                pr_set_reason(p, "block %zu: %s", b + 1, ga_pair_support_reason(q));
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
        pr_set_reason(p, "a product of %zu independent blocks (%s)", p->nblocks,
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
    if (p)
        p->type = &ga_pair_type_product;
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
    if (p->support == GA_SUPPORT_DIFFER || !pr_has_laws(p)) /* (a loss family: no such form) */
        return GA_EDOM;
    if (ga_gchisq_copy(lx, p->lx) || ga_gchisq_copy(ly, p->ly))
        return GA_ENOMEM;
    return GA_OK;
}

/*
 * laws.c - the Gaussian output laws of the data-dependent kinds, and the generic builder that
 * evaluates a kind's law on a dataset and on each of its neighbours (in parallel, within the
 * time budget) into pairs. Ridge-type kinds update X^T X and X^T y per neighbour instead of
 * summing afresh (accuracy argument below). Sources: output perturbation and noisy gradient
 * descent for ridge regression (Pierquin, Bellet, Tommasi & Boussard, "Privacy Amplification
 * Through Synthetic Data", 003; the stationary covariance is solved from the recursion
 * itself: the paper's closed form does not follow from its own recursion); Bayesian logistic
 * regression with the Bohning bound and GP regression posteriors (Lu, Magdon-Ismail, Wei &
 * Zikas, "The Normal Distributions Indistinguishability Spectrum", arXiv 2309.01243, 001,
 * Def. 7-8).
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cat_ridge_base_free(ridge_base *rb)
{
    free(rb->G);
    free(rb->b);
    free(rb->a);
    free(rb->x);
    free(rb->c);
    free(rb->sq);
}

/* The sums of the rows [x | y] of Z, afresh: G = X^T X + lambda I, b = X^T y and (a != NULL)
 * a_j = sum_k |x_kj y_k|; b and a zeroed by the caller. GA_OK or GA_ENOMEM. */
static int ridge_sums(double *G, double *b, double *a, const double *Z, size_t n, size_t p,
                      double lambda)
{
    double *X = malloc((n ? n : 1) * p * sizeof *X);
    if (!X)
        return GA_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        memcpy(X + i * p, Z + i * (p + 1), p * sizeof *X);
        for (size_t j = 0; j < p; j++) {
            double t = Z[i * (p + 1) + j] * Z[i * (p + 1) + p];
            b[j] += t;
            if (a)
                a[j] += fabs(t);
        }
    }
    cat_gram(G, X, n, p, lambda);
    free(X);
    return GA_OK;
}

int cat_ridge_base_init(ridge_base *rb, const double *Z, size_t n, size_t p)
{
    rb->G = malloc(p * p * sizeof *rb->G);
    rb->b = calloc(p, sizeof *rb->b);
    rb->a = calloc(p, sizeof *rb->a);
    int rc = rb->G && rb->b && rb->a ? ridge_sums(rb->G, rb->b, rb->a, Z, n, p, 0) : GA_ENOMEM;
    if (rc)
        cat_ridge_base_free(rb);
    return rc;
}

/* G' + lambda I and b' of the neighbour (row x = Z's row c->row out, c->v in): 0, or 1 when
 * the update is not as accurate as a fresh sum (above) */
static int ridge_update(double *H, double *b, const ridge_base *rb, const double *Z, size_t p,
                        const nb_change *c, double lambda)
{
    const double *x = c->row == SIZE_MAX ? NULL : Z + c->row * (p + 1), *v = c->v;
    if (x) {
        double lev = 0;
        for (size_t j = 0; j < p; j++) {
            double xj = x[j], vj = v ? v[j] : 0, dj = rb->G[j * p + j] - xj * xj + vj * vj;
            double aj = rb->a[j] - fabs(xj * x[p]) + (v ? fabs(vj * v[p]) : 0);
            if (xj != 0 && !(dj > 0 && fabs(xj * x[p]) <= aj))
                return 1;
            if (xj != 0)
                lev += xj * xj / dj;
        }
        if (!(lev <= 1))
            return 1;
    }
    /* the features unchanged (change_label): G stays as it is, exactly */
    int same = x && v && !memcmp(x, v, p * sizeof *x);
    memcpy(H, rb->G, p * p * sizeof *H);
    memcpy(b, rb->b, p * sizeof *b);
    for (size_t i = 0; i < p; i++) {
        for (size_t j = 0; j < p && !same; j++)
            H[i * p + j] += (v ? v[i] * v[j] : 0) - (x ? x[i] * x[j] : 0);
        b[i] += (v ? v[i] * v[p] : 0) - (x ? x[i] * x[p] : 0);
        H[i * p + i] += lambda;
    }
    return GA_OK;
}

int cat_ridge(double *theta, double *H, const double *Z, size_t n, size_t p, double lambda,
              const law_par *lp)
{
    double *b = calloc(p, sizeof *b), *Dp = NULL;
    int rc = GA_ENOMEM;
    if (!b)
        goto cleanup;
    if (lp && lp->rb && lp->nb) {
        if (ridge_update(H, b, lp->rb, Z, p, lp->nb, lambda) == 0) {
            rc = cat_spd_solve(theta, H, b, p, 1);
            goto cleanup;
        }
        memset(b, 0, p * sizeof *b);
        if (cat_nb_apply(&Dp, &n, Z, n, p + 1, lp->nb) != GA_OK)
            goto cleanup;
        Z = Dp;
    }
    if ((rc = ridge_sums(H, b, NULL, Z, n, p, lambda)) == GA_OK)
        rc = cat_spd_solve(theta, H, b, p, 1);
cleanup:
    free(b);
    free(Dp);
    return rc;
}

/* the sum of squared residuals sum_i (y_i - z_i^T x)^2 over the rows [z | y] of Z, skipping
 * row `skip` (SIZE_MAX: none), plus the row v when non-NULL */
static double rss_direct(const double *Z, size_t n, size_t p, const double *x, size_t skip,
                         const double *v)
{
    double e2 = 0;
    for (size_t i = 0; i < n + (v != NULL); i++) {
        const double *z = i < n ? Z + i * (p + 1) : v;
        if (i == skip)
            continue; /* taken out; a row put in its place is summed last */
        double r = z[p] - ga_cblas_ddot((int)p, z, 1, x, 1);
        e2 += r * r;
    }
    return e2;
}

int cat_ridge_base_residuals(ridge_base *rb, const double *Z, size_t n, size_t p, double lambda)
{
    double *H = malloc(p * p * sizeof *H);
    rb->x = malloc(p * sizeof *rb->x);
    rb->c = malloc(p * sizeof *rb->c);
    rb->sq = malloc(p * sizeof *rb->sq);
    int rc = !H || !rb->x || !rb->c || !rb->sq ? GA_ENOMEM : cat_ridge(rb->x, H, Z, n, p, lambda, NULL);
    if (rc == GA_OK) {
        rb->rss = rss_direct(Z, n, p, rb->x, SIZE_MAX, NULL);
        for (size_t j = 0; j < p; j++) {
            rb->c[j] = rb->b[j] - ga_cblas_ddot((int)p, rb->G + j * p, 1, rb->x, 1);
            rb->sq[j] = sqrt(rb->G[j * p + j]);
        }
    } else {
        free(rb->x);
        free(rb->c);
        free(rb->sq);
        rb->x = rb->c = rb->sq = NULL;
    }
    free(H);
    return rc;
}

/* A neighbour's residual sum of squares at its solution x' = rb->x + dx (rows: the whole
 * dataset Z with change c), in O(p^2) instead of O(n p): over the neighbour's rows,
 *   sum (y_i - z_i^T x')^2 = RSS - 2 dx^T X^T r + dx^T X^T X dx - r'_k^2 + r'_v^2,
 * r = y - X x the whole dataset's residuals (X^T r = c), r'_k and r'_v the residuals at x' of
 * the row taken out and the row put in. Rounding: RSS, c and G are sums over the n rows
 * (gamma_n relative to their absolute sums: |c_j| err <= gamma (a_j + sqrt(G_jj) sum_k
 * sqrt(G_kk) |x_k|), since sum_i |x_ij x_ik| <= sqrt(G_jj G_kk)), so the error is at most
 * gamma_{n+p} times M = RSS + 2 |dx|^T (|c| + a + sq sq^T |x|) + (sq^T |dx|)^2 + r'_k^2 +
 * r'_v^2. Where M <= 4 times the result, that is the order of a direct sum's own rounding
 * (gamma_n times its terms) and the update is taken (*ok = 1); where terms cancel (a row
 * that carried the fit taken out), the caller sums afresh. */
static double rss_update(int *ok, const ridge_base *rb, const double *Z, size_t p,
                         const nb_change *c, const double *x1)
{
    double t2 = 0, t3 = 0, m2 = 0, sdx = 0, sx = 0;
    for (size_t j = 0; j < p; j++) {
        double dj = x1[j] - rb->x[j];
        t2 += dj * rb->c[j];
        m2 += fabs(dj) * (fabs(rb->c[j]) + rb->a[j]);
        sdx += fabs(dj) * rb->sq[j];
        sx += fabs(rb->x[j]) * rb->sq[j];
        double gd = 0;
        for (size_t k = 0; k < p; k++)
            gd += rb->G[j * p + k] * (x1[k] - rb->x[k]);
        t3 += dj * gd;
    }
    double rk2 = 0, rv2 = 0;
    if (c->row != SIZE_MAX) {
        const double *z = Z + c->row * (p + 1);
        double r = z[p] - ga_cblas_ddot((int)p, z, 1, x1, 1);
        rk2 = r * r;
    }
    if (c->v) {
        double r = c->v[p] - ga_cblas_ddot((int)p, c->v, 1, x1, 1);
        rv2 = r * r;
    }
    double e2 = rb->rss - 2 * t2 + t3 - rk2 + rv2;
    double mag = rb->rss + 2 * (m2 + sdx * sx) + sdx * sdx + rk2 + rv2;
    *ok = e2 > 0 && mag <= 4 * e2;
    return e2;
}

int cat_law_output_perturbation(double *mu, double *cov, const double *Z, size_t n,
                                const ga_spec *s, const void *vp, char *msg, size_t msglen)
{
    const law_par *lp = vp;
    size_t p = lp->p;
    double *H = malloc(p * p * sizeof *H);
    if (!H)
        return GA_ENOMEM;
    int rc = cat_ridge(mu, H, Z, n, p, lp->lambda, lp);
    free(H);
    if (rc) {
        ga_msg(msg, msglen, "%s: the ridge system is singular (give lambda > 0)", s->path);
        return rc;
    }
    memset(cov, 0, p * p * sizeof *cov);
    for (size_t i = 0; i < p; i++)
        cov[i * p + i] = lp->sigma * lp->sigma;
    return GA_OK;
}

/* A_k = V diag(g^k) V^T, g_i = 1 - eta h_i: k steps of the noiseless recursion */
static void ngd_power(double *A, const double *V, const double *h, double eta, size_t p, double k)
{
    for (size_t i = 0; i < p; i++)
        for (size_t j = 0; j < p; j++) {
            double v = 0;
            for (size_t a = 0; a < p; a++)
                v += V[i * p + a] * V[j * p + a] * pow(1 - eta * h[a], k);
            A[i * p + j] = v;
        }
}

/* the law of theta_t (t >= 1; t = 0: the stationary law) of t <- t - eta (H t - X^T y) +
 * sqrt(2 eta) sigma xi from theta_0 ~ N(m0, S0): with M = I - eta H = V diag(g) V^T and the
 * fixed point theta* = H^{-1} X^T y, theta_t - theta* = M^t (theta_0 - theta*) + noise, so
 * mean theta* + M^t (m0 - theta*), covariance M^t S0 M^t + 2 eta sigma^2 sum_{k<t} M^{2k}, the
 * sum V diag((1 - g^{2t})/(1 - g^2)) V^T with 1 - g^2 = eta h (2 - eta h) (no cancellation) */
static void ngd_iterate(double *mu, double *cov, const double *theta, const double *V,
                        const double *h, const law_par *lp, size_t t, double *A, double *B)
{
    size_t p = lp->p;
    double c = 2 * lp->eta * lp->sigma * lp->sigma;
    for (size_t i = 0; i < p; i++)
        for (size_t j = 0; j < p; j++) {
            double v = 0;
            for (size_t a = 0; a < p; a++) {
                double eh = lp->eta * h[a], g = 1 - eh, den = eh * (2 - eh);
                double f = t == 0 ? 1 / den
                         : den != 0 ? -expm1(2.0 * (double)t * log(fabs(g))) / den : (double)t;
                v += V[i * p + a] * V[j * p + a] * c * f;
            }
            cov[i * p + j] = v;
        }
    if (t == 0) {
        memcpy(mu, theta, p * sizeof *mu);
        return;
    }
    ngd_power(A, V, h, lp->eta, p, (double)t);
    for (size_t i = 0; i < p; i++) {
        mu[i] = theta[i];
        for (size_t j = 0; j < p; j++)
            mu[i] += A[i * p + j] * (lp->init_mean[j] - theta[j]);
    }
    /* + A S0 A */
    ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p, (int)p, (int)p, 1.0, A,
                (int)p, lp->init_cov, (int)p, 0.0, B, (int)p);
    ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p, (int)p, (int)p, 1.0, B,
                (int)p, A, (int)p, 1.0, cov, (int)p);
    for (size_t i = 0; i < p; i++)
        for (size_t j = 0; j < i; j++)
            cov[i * p + j] = cov[j * p + i] = 0.5 * (cov[i * p + j] + cov[j * p + i]);
}

/* Noisy gradient descent on F(t) = 1/2 ||y - X t||^2 + lambda/2 ||t||^2:
 * t <- t - eta (H t - X^T y) + sqrt(2 eta) sigma xi, H = X^T X + lambda I. Stationary law:
 * mean H^{-1} X^T y; covariance S = M S M + 2 eta sigma^2 I with M = I - eta H, i.e. in the
 * eigenbasis of H, S_ii = 2 eta sigma^2 / (1 - (1 - eta h_i)^2) (needs 0 < eta h_i < 2). */
int cat_law_noisy_gd(double *mu, double *cov, const double *Z, size_t n, const ga_spec *s,
                     const void *vp, char *msg, size_t msglen)
{
    const law_par *lp = vp;
    size_t p = lp->p, T = lp->iterations;
    double *H = malloc(p * p * sizeof *H), *h = malloc(p * sizeof *h), *V = malloc(p * p * sizeof *V),
           *theta = malloc(p * sizeof *theta), *A = malloc(p * p * sizeof *A),
           *B = malloc(p * p * sizeof *B), *C = malloc(p * p * sizeof *C);
    int rc = GA_ENOMEM;
    if (!H || !h || !V || !theta || !A || !B || !C)
        goto cleanup;
    if ((rc = cat_ridge(theta, H, Z, n, p, lp->lambda, lp))) {
        ga_msg(msg, msglen, "%s: the ridge system is singular (give lambda > 0)", s->path);
        goto cleanup;
    }
    memcpy(V, H, p * p * sizeof *V);
    if (ga_lapack_syevd('V', 'U', p, V, p, h) != 0) {
        rc = GA_EINVAL;
        goto cleanup;
    }
    for (size_t i = 0; i < p && T == 0; i++) {
        double eh = lp->eta * h[i];
        if (!(eh > 0 && eh < 2)) {
            ga_msg(msg, msglen,
                   "%s: mechanism.eta: noisy gradient descent diverges: eta * h = %.6g for an "
                   "eigenvalue h = %.6g of X^T X + lambda I (need 0 < eta h < 2 for the "
                   "stationary law; give iterations: T for a finite run)", s->path, eh, h[i]);
            rc = GA_EINVAL;
            goto cleanup;
        }
    }
    if (!lp->trajectory) {
        ngd_iterate(mu, cov, theta, V, h, lp, T, A, B);
        rc = GA_OK;
        goto cleanup;
    }
    size_t D = T * p;
    for (size_t t = 1; t <= T; t++) {
        /* the block (t, t), then the blocks (u, t) = M^{u-t} Cov(theta_t) for u > t */
        ngd_iterate(mu + (t - 1) * p, C, theta, V, h, lp, t, A, B);
        for (size_t u = t; u <= T; u++) {
            ngd_power(A, V, h, lp->eta, p, (double)(u - t));
            ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p, (int)p, (int)p, 1.0,
                        A, (int)p, C, (int)p, 0.0, B, (int)p);
            for (size_t i = 0; i < p; i++)
                for (size_t j = 0; j < p; j++) {
                    cov[((u - 1) * p + i) * D + (t - 1) * p + j] = B[i * p + j];
                    cov[((t - 1) * p + j) * D + (u - 1) * p + i] = B[i * p + j];
                }
        }
    }
    rc = GA_OK;
cleanup:
    free(H);
    free(h);
    free(V);
    free(theta);
    free(A);
    free(B);
    free(C);
    return rc;
}

int cat_law_linear_regression(double *mu, double *cov, const double *Z, size_t n,
                              const ga_spec *s, const void *vp, char *msg, size_t msglen)
{
    const law_par *lp = vp;
    size_t p = lp->p;
    double *H = malloc(p * p * sizeof *H);
    if (!H)
        return GA_ENOMEM;
    int rc = cat_ridge(mu, H, Z, n, p, lp->sigma * lp->sigma, lp);
    if (rc) {
        ga_msg(msg, msglen, "%s: B^T B is singular: give mechanism.sigma > 0 (augmentation)", s->path);
        free(H);
        return rc;
    }
    /* a neighbour's residuals: updated from the whole dataset's in O(p^2) (rss_update),
     * or, where that would cancel (one row dominates the fit), summed directly over its
     * rows in O(n p) */
    const nb_change *nb = lp->rb ? lp->nb : NULL;
    double e2 = lp->sigma * lp->sigma * (ga_cblas_ddot((int)p, mu, 1, mu, 1) + 1);
    int ok = 0;
    double rss = nb && lp->rb->x ? rss_update(&ok, lp->rb, Z, p, nb, mu) : 0;
    e2 += ok ? rss : rss_direct(Z, n, p, mu, nb ? nb->row : SIZE_MAX, nb ? nb->v : NULL);
    rc = cat_spd_inverse(cov, H, p);
    for (size_t i = 0; i < p * p; i++)
        cov[i] *= e2 / lp->r;
    free(H);
    return rc;
}

int cat_law_logistic(double *mu, double *cov, const double *Z, size_t n, const ga_spec *s,
                     const void *vp, char *msg, size_t msglen)
{
    const law_par *lp = vp;
    size_t p = lp->p;
    int rc = GA_ENOMEM;
    double *g = malloc(p * sizeof *g), *Hm = malloc(p * p * sizeof *Hm), *st = malloc(p * sizeof *st),
           *t2 = malloc(p * sizeof *t2);
    if (!g || !Hm || !st || !t2)
        goto cleanup;
    /* a neighbour starts at the MAP of the whole dataset, a row away from its own: Newton
     * then needs 2-3 iterations instead of 6-8 (damped Newton converges from any start on
     * this strictly convex objective, and stops by the same tests) */
    if (lp->warm)
        memcpy(mu, lp->warm, p * sizeof *mu);
    else
        memset(mu, 0, p * sizeof *mu);
    double f = 0;
    for (int it = 0; it < 100; it++) {
        /* gradient and Hessian of the negative log posterior */
        memset(g, 0, p * sizeof *g);
        memset(Hm, 0, p * p * sizeof *Hm);
        f = 0.5 * lp->lambda * ga_cblas_ddot((int)p, mu, 1, mu, 1);
        for (size_t i = 0; i < n; i++) {
            const double *x = Z + i * (p + 1);
            double y = x[p] > 0 ? 1 : -1, m = y * ga_cblas_ddot((int)p, x, 1, mu, 1);
            double sg = 1 / (1 + exp(m)); /* sigma(-m) */
            f += m > 0 ? log1p(exp(-m)) : -m + log1p(exp(m));
            for (size_t a = 0; a < p; a++) {
                g[a] -= sg * y * x[a];
                for (size_t b = 0; b <= a; b++)
                    Hm[a * p + b] += sg * (1 - sg) * x[a] * x[b];
            }
        }
        for (size_t a = 0; a < p; a++) {
            g[a] += lp->lambda * mu[a];
            Hm[a * p + a] += lp->lambda;
            for (size_t b = 0; b < a; b++)
                Hm[b * p + a] = Hm[a * p + b];
        }
        double gn = ga_cblas_dnrm2((int)p, g, 1);
        if (gn <= 1e-13 * (1 + ga_cblas_dnrm2((int)p, mu, 1) * lp->lambda + n))
            break;
        if (cat_spd_solve(st, Hm, g, p, 1)) {
            ga_msg(msg, msglen, "%s: logistic regression: singular Hessian (give lambda > 0)", s->path);
            rc = GA_EINVAL;
            goto cleanup;
        }
        /* a Newton step at the rounding level of mu: converged (the gradient test above can be
         * out of reach for large n, and each further iteration costs O(n p^2) and 2n
         * transcendentals: 80 ms per neighbour at 3000 rows over 100 iterations) */
        double smax = 0, mmax = 0;
        for (size_t a = 0; a < p; a++) {
            smax = fmax(smax, fabs(st[a]));
            mmax = fmax(mmax, fabs(mu[a]));
        }
        if (smax <= 8 * DBL_EPSILON * mmax) {
            for (size_t a = 0; a < p; a++)
                mu[a] -= st[a];
            break;
        }
        /* the decrease a Newton step predicts, g^T H^{-1} g / 2, below the rounding of the
         * objective (a sum of n terms): no line search can see it, and this close Newton
         * converges quadratically; the full step (a line search there halved the step
         * against rounding noise until the iteration limit: 3000 rows, 100 iterations) */
        double noise = 16 * DBL_EPSILON * (fabs(f) + n); /* the objective's rounding */
        if (0.5 * ga_cblas_ddot((int)p, g, 1, st, 1) <= noise) {
            for (size_t a = 0; a < p; a++)
                mu[a] -= st[a];
            continue;
        }
        /* damped Newton: halve until the objective decreases (or changes by no more than
         * its rounding: a step whose decrease the sum cannot see is taken, not halved 60
         * times against the noise, which a warm start near the optimum met often) */
        double step = 1;
        int decreased = 0;
        for (int h = 0; h < 60 && !decreased; h++, step *= 0.5) {
            for (size_t a = 0; a < p; a++)
                t2[a] = mu[a] - step * st[a];
            double f2 = 0.5 * lp->lambda * ga_cblas_ddot((int)p, t2, 1, t2, 1);
            for (size_t i = 0; i < n; i++) {
                const double *x = Z + i * (p + 1);
                double y = x[p] > 0 ? 1 : -1, m = y * ga_cblas_ddot((int)p, x, 1, t2, 1);
                f2 += m > 0 ? log1p(exp(-m)) : -m + log1p(exp(m));
            }
            decreased = f2 <= f + noise;
        }
        /* no step decreases the objective: the minimum is reached to rounding */
        if (!decreased)
            break;
        memcpy(mu, t2, p * sizeof *mu);
    }
    /* covariance (lambda I + X^T X / 4)^{-1} + sigma^2 I */
    double *X = malloc((n ? n : 1) * p * sizeof *X);
    if (!X)
        goto cleanup;
    for (size_t i = 0; i < n; i++)
        memcpy(X + i * p, Z + i * (p + 1), p * sizeof *X);
    cat_gram(Hm, X, n, p, 0);
    free(X);
    for (size_t i = 0; i < p * p; i++)
        Hm[i] *= 0.25;
    for (size_t i = 0; i < p; i++)
        Hm[i * p + i] += lp->lambda;
    if ((rc = cat_spd_inverse(cov, Hm, p)))
        goto cleanup;
    for (size_t i = 0; i < p; i++)
        cov[i * p + i] += lp->sigma * lp->sigma;
    rc = GA_OK;
cleanup:
    free(g);
    free(Hm);
    free(st);
    free(t2);
    return rc;
}

/* GP regression posterior at public query points, rows [x | y]; kernel rbf
 * s2 exp(-|x - x'|^2 / (2 l^2)) or linear x^T x'; noise variance s_n^2; released law
 * N(K*^T (K + s_n^2 I)^{-1} y, K** - K*^T (K + s_n^2 I)^{-1} K* + sigma^2 I). */
double cat_gp_kernel(const law_par *lp, const double *a, const double *b, size_t p)
{
    if (lp->linear_kernel)
        return ga_cblas_ddot((int)p, a, 1, b, 1);
    double d2 = 0;
    for (size_t i = 0; i < p; i++)
        d2 += (a[i] - b[i]) * (a[i] - b[i]);
    return lp->signal_var * exp(-0.5 * d2 / (lp->lengthscale * lp->lengthscale));
}

/* The GP's solve on rows Z (n of them): W = (K + s_n^2 I)^{-1} [y | K*] (n x (q + 1)), K* in
 * Ks (n x q); with adiag != NULL also the diagonal of (K + s_n^2 I)^{-1} (from the same
 * Cholesky factor). GA_OK, GA_EINVAL (singular) or GA_ENOMEM. */
static _Thread_local char gp_why[160]; /* why the last gp_solve on this thread failed */

static int gp_solve(double *W, double *Ks, double *adiag, const double *Z, size_t n,
                    const law_par *lp)
{
    size_t p = lp->p, q = lp->nq;
    double *M = malloc((n ? n * n : 1) * sizeof *M);
    if (!M) {
        snprintf(gp_why, sizeof gp_why, "no memory for the %zu x %zu kernel matrix (%.3g MB)",
                 n, n, (double)n * (double)n * 8e-6);
        return GA_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j <= i; j++)
            M[i * n + j] = M[j * n + i] = cat_gp_kernel(lp, Z + i * (p + 1), Z + j * (p + 1), p);
        M[i * n + i] += lp->noise_var;
        for (size_t a = 0; a < q; a++)
            Ks[i * q + a] = cat_gp_kernel(lp, Z + i * (p + 1), lp->query + a * p, p);
        W[i * (q + 1)] = Z[i * (p + 1) + p];
        memcpy(W + i * (q + 1) + 1, Ks + i * q, q * sizeof *W);
    }
    int info = n ? ga_lapack_posv('L', n, q + 1, M, n, W, q + 1) : 0;
    if (info == 0 && n && adiag)
        info = ga_lapack_potri('L', n, M, n);
    int rc = ga_lapack_status(info);
    if (rc) {
        ga_lapack_why(gp_why, sizeof gp_why, info);
        goto cleanup;
    }
    for (size_t i = 0; adiag && i < n; i++)
        adiag[i] = M[i * n + i];
    rc = GA_OK;
cleanup:
    free(M);
    return rc;
}

/* the message of a failed GP law of n rows (rc from the allocations, then gp_solve, whose
 * reason is in gp_why: the caller empties it first) */
static void gp_fail_msg(char *msg, size_t msglen, const ga_spec *s, size_t n, int rc)
{
    if (rc == GA_EINVAL)
        ga_msg(msg, msglen, "%s: the GP kernel matrix is singular (give noise_variance > 0): %s",
               s->path, gp_why);
    else if (rc == GA_ENOMEM || rc == GA_EDEP)
        ga_msg(msg, msglen, "%s: the GP law of %zu rows: %s", s->path, n,
               gp_why[0] ? gp_why : "no memory for its kernel rows");
}

/* the released law from gp_solve's W and K*: mean K*^T A y, covariance K** - K*^T A K* +
 * sigma^2 I */
static void gp_law(double *mu, double *cov, const double *W, const double *Ks, size_t n,
                   const law_par *lp)
{
    size_t p = lp->p, q = lp->nq;
    for (size_t a = 0; a < q; a++) {
        double m = 0;
        for (size_t i = 0; i < n; i++)
            m += Ks[i * q + a] * W[i * (q + 1)];
        mu[a] = m;
        for (size_t b = 0; b <= a; b++) {
            double c = cat_gp_kernel(lp, lp->query + a * p, lp->query + b * p, p);
            for (size_t i = 0; i < n; i++)
                c -= Ks[i * q + a] * W[i * (q + 1) + 1 + b];
            cov[a * q + b] = cov[b * q + a] = c;
        }
        cov[a * q + a] += lp->sigma * lp->sigma;
    }
    for (size_t a = 0; a < q; a++)
        for (size_t b = 0; b < a; b++)
            cov[a * q + b] = cov[b * q + a] = 0.5 * (cov[a * q + b] + cov[b * q + a]);
}

int cat_law_gp(double *mu, double *cov, const double *Z, size_t n, const ga_spec *s,
               const void *vp, char *msg, size_t msglen)
{
    const law_par *lp = vp;
    size_t q = lp->nq;
    double *Ks = malloc((n ? n : 1) * q * sizeof *Ks), *W = malloc((n ? n : 1) * (q + 1) * sizeof *W);
    gp_why[0] = 0;
    int rc = !Ks || !W ? GA_ENOMEM : gp_solve(W, Ks, NULL, Z, n, lp);
    gp_fail_msg(msg, msglen, s, n, rc);
    if (rc == GA_OK)
        gp_law(mu, cov, W, Ks, n, lp);
    free(Ks);
    free(W);
    return rc;
}

int cat_build_gp_remove_one(cat_job *j, const law_par *lp, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    size_t n = s->data.n, q = lp->nq, nn = cat_nb_count(s);
    int rc = cat_pairs_fit(j, nn, q, "mechanism", msg, msglen);
    if (rc)
        return rc;
    double *Ks = malloc(n * q * sizeof *Ks), *W = malloc(n * (q + 1) * sizeof *W),
           *ad = malloc(n * sizeof *ad), *mu = malloc(q * sizeof *mu), *cov = malloc(q * q * sizeof *cov);
    gp_why[0] = 0;
    rc = !Ks || !W || !ad || !mu || !cov ? GA_ENOMEM : gp_solve(W, Ks, ad, s->data.x, n, lp);
    gp_fail_msg(msg, msglen, s, n, rc);
    if (rc == GA_OK)
        gp_law(mu, cov, W, Ks, n, lp);
    for (size_t k = 0; k < nn && rc == GA_OK && !cat_out_of_time(j, nn); k++) {
        size_t row = s->rows ? s->rows[k] : k;
        if (row >= n) {
            ga_msg(msg, msglen, "%s: neighbours.rows: row %zu does not exist (the dataset has %zu rows)",
                   s->path, row + 1, n);
            rc = GA_EINVAL;
            break;
        }
        double *mu2 = malloc(q * sizeof *mu2), *cov2 = malloc(q * q * sizeof *cov2);
        if (!mu2 || !cov2) {
            free(mu2);
            free(cov2);
            rc = GA_ENOMEM;
            break;
        }
        const double *g = W + row * (q + 1) + 1;
        double a = ad[row], wi = W[row * (q + 1)];
        for (size_t i = 0; i < q; i++) {
            mu2[i] = mu[i] - g[i] * wi / a;
            for (size_t j = 0; j < q; j++)
                cov2[i * q + j] = cov[i * q + j] + g[i] * g[j] / a;
        }
        char name[96];
        snprintf(name, sizeof name, "remove row %zu", row + 1);
        rc = ga_pairset_add(j->out, name, q, 1, cat_dup(mu, q), cat_dup(cov, q * q), mu2, cov2);
    }
    free(Ks);
    free(W);
    free(ad);
    free(mu);
    free(cov);
    return rc;
}

int cat_out_of_time(cat_job *j, size_t planned)
{
    if (!ga_expired(j->o->deadline))
        return 0;
    j->out->truncated = 1;
    j->out->planned = planned;
    return 1;
}

int cat_pairs_cap(cat_job *j, size_t npairs, size_t dim, const char *field, char *msg,
                  size_t msglen)
{
    ga_spec *s = j->s;
    char what[256];
    if (npairs > GA_SPEC_MAX_PAIRS) {
        snprintf(what, sizeof what, "%zu neighbouring pairs exceed the cap of %d", npairs,
                 GA_SPEC_MAX_PAIRS);
        return ga_spec_fail(s, s->mechanism, field, msg, msglen, what);
    }
    if (dim > GA_SPEC_MAX_DIM) {
        snprintf(what, sizeof what, "output dimension %zu exceeds the cap of %d", dim,
                 GA_SPEC_MAX_DIM);
        return ga_spec_fail(s, s->mechanism, field, msg, msglen, what);
    }
    double bytes = (double)npairs * 2.0 * ((double)dim + (double)dim * dim) * sizeof(double);
    if (bytes > (double)GA_SPEC_MAX_PAIR_BYTES) {
        snprintf(what, sizeof what, "%zu pairs of dimension %zu need %.3g GiB for their laws, "
                 "more than the cap of %.3g GiB", npairs, dim, bytes / (1 << 30),
                 (double)GA_SPEC_MAX_PAIR_BYTES / (1 << 30));
        return ga_spec_fail(s, s->mechanism, field, msg, msglen, what);
    }
    return GA_OK;
}

int cat_pairs_fit(cat_job *j, size_t npairs, size_t dim, const char *field, char *msg,
                  size_t msglen)
{
    int rc = cat_pairs_cap(j, npairs, dim, field, msg, msglen);
    return rc ? rc : ga_pairset_reserve(j->out, npairs + 1);
}

/* the neighbours' laws, a chunk at a time on j->o->jobs threads (numerics/par.c): item j of
 * the chunk is neighbour k0 + j; each writes only its own slots */
#define GA_BUILD_CHUNK 256

typedef struct {
    const ga_spec *s;
    law_fn law;
    const law_par *lp;
    size_t dim, k0;
    double *mu[GA_BUILD_CHUNK], *cov[GA_BUILD_CHUNK];
    int rc[GA_BUILD_CHUNK];
    char name[GA_BUILD_CHUNK][96];
    char msg[GA_BUILD_CHUNK][512];
} law_chunk;

static void law_item(void *vc, size_t j, ga_gchisq_work *w)
{
    (void)w;
    law_chunk *c = vc;
    size_t k = c->k0 + j, m = c->s->data.n;
    double *Dp = NULL, *v = NULL;
    law_par lp = *c->lp;
    nb_change change;
    c->msg[j][0] = 0;
    /* ridge-type kinds take the change itself (law_par.nb); the others a copy of the rows */
    int r;
    if (lp.rb) {
        v = malloc(c->s->data.d * sizeof *v);
        r = v ? cat_nb_describe(c->s, k, &change, v, c->name[j], sizeof c->name[j]) : -2;
    } else {
        r = cat_nb_make(c->s, k, &Dp, &m, c->name[j], sizeof c->name[j]);
    }
    if (r) {
        c->rc[j] = r == -2 ? GA_ENOMEM : -1; /* -1: the row does not exist */
        free(v);
        return;
    }
    lp.nb = lp.rb ? &change : NULL;
    c->mu[j] = malloc(c->dim * sizeof *c->mu[j]);
    c->cov[j] = malloc(c->dim * c->dim * sizeof *c->cov[j]);
    c->rc[j] = !c->mu[j] || !c->cov[j]
                   ? GA_ENOMEM
                   : c->law(c->mu[j], c->cov[j], Dp ? Dp : c->s->data.x, m, c->s, &lp,
                            c->msg[j], sizeof c->msg[j]);
    free(Dp);
    free(v);
}

int cat_build_generic(cat_job *j, law_fn law, const law_par *lp, size_t dim, char *msg,
                      size_t msglen)
{
    ga_spec *s = j->s;
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                            "missing: this kind derives its output law from a dataset");
    int rc = cat_pairs_fit(j, cat_nb_count(s), dim, "mechanism", msg, msglen);
    if (rc)
        return rc;
    double *mu = malloc(dim * sizeof *mu), *cov = malloc(dim * dim * sizeof *cov);
    law_chunk *c = calloc(1, sizeof *c);
    if (!mu || !cov || !c) {
        free(mu);
        free(cov);
        free(c);
        return GA_ENOMEM;
    }
    rc = law(mu, cov, s->data.x, s->data.n, s, lp, msg, msglen);
    size_t nn = cat_nb_count(s);
    law_par warm = *lp; /* the neighbours may start from the whole dataset's law */
    warm.warm = mu;
    *c = (law_chunk){.s = s, .law = law, .lp = &warm, .dim = dim};
    for (size_t k0 = 0; k0 < nn && rc == GA_OK; k0 += GA_BUILD_CHUNK) {
        size_t nk = nn - k0 < GA_BUILD_CHUNK ? nn - k0 : GA_BUILD_CHUNK;
        unsigned char done[GA_BUILD_CHUNK] = {0};
        c->k0 = k0;
        memset(c->mu, 0, sizeof c->mu);
        memset(c->cov, 0, sizeof c->cov);
        rc = ga_par_for(nk, j->o->jobs, j->o->deadline, law_item, c, done, NULL);
        /* in order: the pairs, the first error, or the deadline */
        for (size_t q = 0; q < nk; q++) {
            if (rc == GA_OK && !done[q] && cat_out_of_time(j, nn))
                rc = -1; /* stop here; not an error */
            if (rc == GA_OK && c->rc[q] == -1) {
                ga_msg(msg, msglen, "%s: neighbours.rows: row %zu does not exist (the dataset "
                       "has %zu rows)", s->path, (s->rows ? s->rows[k0 + q] : k0 + q) + 1,
                       s->data.n);
                rc = GA_EINVAL;
            } else if (rc == GA_OK && c->rc[q]) {
                ga_msg(msg, msglen, "%s", c->msg[q]);
                rc = c->rc[q];
            } else if (rc == GA_OK) {
                rc = ga_pairset_add(j->out, c->name[q], dim, 1, cat_dup(mu, dim), cat_dup(cov, dim * dim),
                                      c->mu[q], c->cov[q]);
                c->mu[q] = c->cov[q] = NULL; /* the spec owns them now */
            }
            free(c->mu[q]);
            free(c->cov[q]);
        }
    }
    if (rc == -1)
        rc = GA_OK;
    free(c);
    free(mu);
    free(cov);
    return rc;
}

/*
 * mechanisms.c - the mechanism catalogue (doc/spec.md): from a mechanism kind, its
 * parameters, a dataset and a neighbour relation, the Gaussian output law on D and on each
 * neighbour D', as pairs X = law on D, Y = law on D'.
 *
 * Sources: Gaussian mechanism (Dwork & Roth 2014; analytic form Balle & Wang 2018);
 * random projection / Gaussian sketch D^T G + sigma N and sketched least squares M_LS (the
 * NDIS papers, Lu, Magdon-Ismail, Wei & Zikas, "The Normal Distributions Indistinguishability
 * Spectrum", arXiv 2309.01243: "000" and "001" below; Lev et al., "The Gaussian Mixing
 * Mechanism", 002); Bayesian logistic regression with the Bohning bound and GP regression
 * posteriors (001, Def. 7-8); output perturbation and noisy gradient descent for ridge
 * regression (Pierquin, Bellet, Tommasi & Boussard, "Privacy Amplification Through Synthetic
 * Data", 003; the stationary covariance is solved from the recursion itself: the paper's
 * closed form does not follow from its own recursion); matrix masking, Gaussian setting
 * (Ding, Wu, Miao & Chen, "Reducing Noise Level in Differential Privacy through Matrix
 * Masking", 004). Each kind's parametrisation is stated in doc/spec.md.
 */
#include "audit/mechanisms.h"
#include "audit/pair_internal.h"
#include "numerics/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ small linear algebra */

/* S <- X^T X (+ c I), X n x d row-major (the first n rows) */
static void gram(double *S, const double *X, size_t n, size_t d, double c)
{
    memset(S, 0, d * d * sizeof *S);
    if (n)
        ga_cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)d, (int)n, 1.0, X, (int)d, 0.0,
                    S, (int)d);
    for (size_t i = 0; i < d; i++) {
        S[i * d + i] += c;
        for (size_t j = 0; j < i; j++)
            S[i * d + j] = S[j * d + i];
    }
}

/* solve A x = b (A SPD d x d, not modified), nrhs columns in b (row-major d x nrhs) */
static int spd_solve(double *x, const double *A, const double *b, size_t d, size_t nrhs)
{
    double *L = malloc(d * d * sizeof *L);
    if (!L)
        return GA_ENOMEM;
    memcpy(L, A, d * d * sizeof *L);
    memcpy(x, b, d * nrhs * sizeof *x);
    int info = ga_lapack_posv('L', d, nrhs, L, d, x, nrhs);
    free(L);
    return info == 0 ? GA_OK : GA_EINVAL;
}

/* inverse of an SPD matrix */
static int spd_inverse(double *inv, const double *A, size_t d)
{
    double *id = calloc(d * d, sizeof *id);
    if (!id)
        return GA_ENOMEM;
    for (size_t i = 0; i < d; i++)
        id[i * d + i] = 1;
    int rc = spd_solve(inv, A, id, d, d);
    free(id);
    for (size_t i = 0; i < d && rc == GA_OK; i++)
        for (size_t j = 0; j < i; j++)
            inv[i * d + j] = inv[j * d + i] = 0.5 * (inv[i * d + j] + inv[j * d + i]);
    return rc;
}

static double *dup(const double *v, size_t n)
{
    double *r = malloc((n ? n : 1) * sizeof *r);
    if (r && n)
        memcpy(r, v, n * sizeof *r);
    return r;
}

/* ------------------------------------------------------------ neighbours */

/* change_label on binary labels (bayesian_logistic_regression) flips them; on continuous
 * targets it moves them by +C and by -C */
static int label_flip(const ga_spec *s)
{
    return s->kind && !strcmp(s->kind, "bayesian_logistic_regression");
}

static size_t nb_count(const ga_spec *s)
{
    size_t rows = s->rows ? s->nrows_sel : s->data.n;
    switch (s->relation) {
    case GA_REL_ADD_ONE:
        return s->candidates.n;
    case GA_REL_REPLACE_ONE:
        return rows * s->candidates.n;
    case GA_REL_CHANGE_LABEL:
        return label_flip(s) ? rows : 2 * rows;
    default:
        return rows;
    }
}

/* A neighbour as a change of the dataset: row `row` taken out (SIZE_MAX: none) and the row v
 * (d values; NULL: none) put in, in its place or, when no row is taken out, appended. */
typedef struct {
    size_t row;
    const double *v;
} nb_change;

/* Neighbour k as a change (v: the caller's d values, filled when the neighbour has a new
 * row); name it. Returns 0 or -1 (the row does not exist). */
static int nb_describe(const ga_spec *s, size_t k, nb_change *c, double *v, char *name,
                       size_t len)
{
    const ga_dataset *D = &s->data;
    size_t d = D->d, nc = s->candidates.n;
    size_t rowsel = s->relation == GA_REL_REPLACE_ONE ? k / (nc ? nc : 1)
                    : s->relation == GA_REL_CHANGE_LABEL && !label_flip(s) ? k / 2 : k;
    size_t row = s->rows ? s->rows[rowsel] : rowsel;
    if (s->relation != GA_REL_ADD_ONE && row >= D->n)
        return -1;
    c->row = row;
    c->v = v;
    switch (s->relation) {
    case GA_REL_ADD_ONE:
        c->row = SIZE_MAX;
        memcpy(v, s->candidates.x + k * d, d * sizeof *v);
        snprintf(name, len, "add candidate %zu", k + 1);
        break;
    case GA_REL_ZERO_OUT:
        memset(v, 0, d * sizeof *v);
        snprintf(name, len, "zero out row %zu", row + 1);
        break;
    case GA_REL_CHANGE_LABEL: {
        memcpy(v, D->x + row * d, d * sizeof *v);
        double *y = v + d - 1; /* the target: the last column */
        if (label_flip(s)) {
            *y = s->labels_pm1 ? -*y : 1 - *y; /* labels in {-1, 1} or {0, 1} */
            snprintf(name, len, "flip the label of row %zu", row + 1);
        } else {
            double a = k % 2 ? -s->label_bound : s->label_bound;
            *y += a;
            snprintf(name, len, "change the label of row %zu by %+g", row + 1, a);
        }
        break;
    }
    case GA_REL_REPLACE_ONE:
        memcpy(v, s->candidates.x + (k % nc) * d, d * sizeof *v);
        snprintf(name, len, "replace row %zu by candidate %zu", row + 1, k % nc + 1);
        break;
    default: /* remove_one */
        c->v = NULL;
        snprintf(name, len, "remove row %zu", row + 1);
        break;
    }
    return 0;
}

/* The rows of the dataset Z (n rows of d) changed by c, malloc'ed in *Dp (*m rows); the
 * one place a change becomes a dataset. GA_OK or GA_ENOMEM. */
static int nb_apply(double **Dp, size_t *m, const double *Z, size_t n, size_t d,
                    const nb_change *c)
{
    double *x = malloc((n + 1) * d * sizeof *x);
    if (!x)
        return GA_ENOMEM;
    memcpy(x, Z, n * d * sizeof *x);
    if (c->row == SIZE_MAX) {
        memcpy(x + n * d, c->v, d * sizeof *x);
        *m = n + 1;
    } else if (c->v) {
        memcpy(x + c->row * d, c->v, d * sizeof *x);
        *m = n;
    } else {
        memmove(x + c->row * d, x + (c->row + 1) * d, (n - c->row - 1) * d * sizeof *x);
        *m = n - 1;
    }
    *Dp = x;
    return GA_OK;
}

/* Fill D' (malloc'ed, *m rows) for neighbour k; name it. Returns 0, -1 (bad row) or -2 (no
 * memory). */
static int nb_make(const ga_spec *s, size_t k, double **Dp, size_t *m, char *name, size_t len)
{
    size_t d = s->data.d;
    double *v = malloc(d * sizeof *v);
    nb_change c;
    int r = !v ? -2 : nb_describe(s, k, &c, v, name, len);
    if (r == 0 && nb_apply(Dp, m, s->data.x, s->data.n, d, &c) != GA_OK)
        r = -2;
    free(v);
    return r;
}

/* ------------------------------------------------------------ output laws */

/* A kind's output law on a dataset: mean (dim) and covariance (dim x dim). */
typedef int (*law_fn)(double *mu, double *cov, const double *X, size_t n, const ga_spec *s,
                      const void *par, char *msg, size_t msglen);

typedef struct {
    double lambda, sigma, eta, r;
    int linear_kernel;
    double lengthscale, signal_var, noise_var;
    const double *query;
    size_t nq;
    size_t p; /* number of features (data columns minus the target) */
    size_t iterations;        /* noisy GD: T steps (0: the stationary law) */
    const double *init_mean;  /* noisy GD: the law of the initial iterate (p, p x p) */
    const double *init_cov;
    int trajectory;           /* noisy GD: release every iterate theta_1..theta_T */
    const double *warm;       /* the law's mean on the whole dataset, where a neighbour's
                                 iteration may start (build_generic sets it; NULL: none) */
    const struct ridge_base *rb; /* ridge-type kinds: the whole dataset's X^T X and X^T y */
    const nb_change *nb;      /* with rb: the law is the neighbour's, the rows given being the
                                 whole dataset's and nb the change (NULL: the rows as given) */
} law_par;

/*
 * Ridge-type kinds (output_perturbation, noisy_gradient_descent, linear_regression) see the
 * data through G = X^T X and b = X^T y only (plus the residuals, for linear_regression). A
 * neighbour changes one row, so its G and b are the whole dataset's minus x x^T and y x (the
 * row taken out) plus v v^T and y_v v (the row put in): O(p^2) per neighbour instead of the
 * O(n p^2) of a new Gram matrix.
 *
 * Accuracy. Summed afresh, G' has the rounding error |E| <= gamma_n |X'|^T |X'| (gamma_n ~ n u,
 * X' the neighbour's rows); updated, |E| <= gamma_{n+1} (|X'|^T |X'| + 2 |x| |x|^T). Scaled by
 * D = diag(|X'|^T |X'|) the first matrix has 2-norm >= 1 (unit diagonal) and the extra term
 * 2 sum_j x_j^2 / D_jj; so where sum_j x_j^2 / D_jj <= 1 the update's bound is at most 3x the
 * fresh sum's, the same order as the rounding the reduction already treats as exact (a
 * typical row has sum_j x_j^2 / D_jj ~ p / n). Likewise b'_j: |x_j y| <= sum over the
 * neighbour's rows of |x_kj y_k|. A row that carries more than that (an outlier that
 * dominates a column: at most a few rows) is summed afresh.
 */
typedef struct ridge_base {
    double *G; /* X^T X, p x p */
    double *b; /* X^T y */
    double *a; /* sum_k |x_kj y_k| */
    /* linear_regression (ridge_base_residuals; NULL otherwise): the whole dataset's solution
     * x of (G + lambda I) x = b, its residual sum of squares, c = b - G x = X^T (y - X x),
     * and sqrt(G_jj) */
    double *x, *c, *sq;
    double rss;
} ridge_base;

static void ridge_base_free(ridge_base *rb)
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
    gram(G, X, n, p, lambda);
    free(X);
    return GA_OK;
}

/* the statistics of the rows [x | y] of Z */
static int ridge_base_init(ridge_base *rb, const double *Z, size_t n, size_t p)
{
    rb->G = malloc(p * p * sizeof *rb->G);
    rb->b = calloc(p, sizeof *rb->b);
    rb->a = calloc(p, sizeof *rb->a);
    int rc = rb->G && rb->b && rb->a ? ridge_sums(rb->G, rb->b, rb->a, Z, n, p, 0) : GA_ENOMEM;
    if (rc)
        ridge_base_free(rb);
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

/* ridge estimate theta = (X^T X + lambda I)^{-1} X^T y and H = X^T X + lambda I on rows
 * [x | y]; with lp->rb and lp->nb: on the neighbour (Z, n the whole dataset), updated where
 * that is as accurate as summing afresh */
static int ridge(double *theta, double *H, const double *Z, size_t n, size_t p, double lambda,
                 const law_par *lp)
{
    double *b = calloc(p, sizeof *b), *Dp = NULL;
    int rc = GA_ENOMEM;
    if (!b)
        goto cleanup;
    if (lp && lp->rb && lp->nb) {
        if (ridge_update(H, b, lp->rb, Z, p, lp->nb, lambda) == 0) {
            rc = spd_solve(theta, H, b, p, 1);
            goto cleanup;
        }
        memset(b, 0, p * sizeof *b);
        if (nb_apply(&Dp, &n, Z, n, p + 1, lp->nb) != GA_OK)
            goto cleanup;
        Z = Dp;
    }
    if ((rc = ridge_sums(H, b, NULL, Z, n, p, lambda)) == GA_OK)
        rc = spd_solve(theta, H, b, p, 1);
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

/* linear_regression: what a neighbour's residual sum of squares is updated from (rb->x, c,
 * sq, rss; lambda = sigma^2). GA_OK, GA_ENOMEM, or GA_EINVAL (a singular system). */
static int ridge_base_residuals(ridge_base *rb, const double *Z, size_t n, size_t p, double lambda)
{
    double *H = malloc(p * p * sizeof *H);
    rb->x = malloc(p * sizeof *rb->x);
    rb->c = malloc(p * sizeof *rb->c);
    rb->sq = malloc(p * sizeof *rb->sq);
    int rc = !H || !rb->x || !rb->c || !rb->sq ? GA_ENOMEM : ridge(rb->x, H, Z, n, p, lambda, NULL);
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

static int law_output_perturbation(double *mu, double *cov, const double *Z, size_t n,
                                   const ga_spec *s, const void *vp, char *msg, size_t msglen)
{
    const law_par *lp = vp;
    size_t p = lp->p;
    double *H = malloc(p * p * sizeof *H);
    if (!H)
        return GA_ENOMEM;
    int rc = ridge(mu, H, Z, n, p, lp->lambda, lp);
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

/* Noisy gradient descent on F(t) = 1/2 ||y - X t||^2 + lambda/2 ||t||^2:
 * t <- t - eta (H t - X^T y) + sqrt(2 eta) sigma xi, H = X^T X + lambda I. Stationary law:
 * mean H^{-1} X^T y; covariance S = M S M + 2 eta sigma^2 I with M = I - eta H, i.e. in the
 * eigenbasis of H, S_ii = 2 eta sigma^2 / (1 - (1 - eta h_i)^2) (needs 0 < eta h_i < 2). */
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

/* noisy GD: the stationary law (iterations absent), the T-th iterate, or the trajectory
 * theta_1..theta_T (dimension T p: Cov(theta_t, theta_s) = M^{t-s} Cov(theta_s), t >= s) */
static int law_noisy_gd(double *mu, double *cov, const double *Z, size_t n, const ga_spec *s,
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
    if ((rc = ridge(theta, H, Z, n, p, lp->lambda, lp))) {
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

/* Sketched least squares (NDIS paper, M_LS, Figure 4): rows [b | y], the data matrix
 * [B, y] augmented by sigma I_{d+1} (d rows [sigma e_j | 0] and the row [0 | sigma]);
 * x = (B^T B + sigma^2 I)^{-1} B^T y, e the residual of the augmented system,
 * ||e||^2 = ||y - B x||^2 + sigma^2 ||x||^2 + sigma^2, law N(x, ||e||^2 (B^T B + sigma^2 I)^{-1} / r).
 * The last augmented row keeps ||e||^2 >= sigma^2, which bounds the residual part of the
 * leverage (the paper's regularisation); without it a neighbour could have ||e|| = 0. */
static int law_linear_regression(double *mu, double *cov, const double *Z, size_t n,
                                 const ga_spec *s, const void *vp, char *msg, size_t msglen)
{
    const law_par *lp = vp;
    size_t p = lp->p;
    double *H = malloc(p * p * sizeof *H);
    if (!H)
        return GA_ENOMEM;
    int rc = ridge(mu, H, Z, n, p, lp->sigma * lp->sigma, lp);
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
    rc = spd_inverse(cov, H, p);
    for (size_t i = 0; i < p * p; i++)
        cov[i] *= e2 / lp->r;
    free(H);
    return rc;
}

/* Bayesian logistic regression, rows [x | label], labels 0/1 or -1/+1: theta = MAP of
 * sum log sigma(y x^T t) - lambda/2 ||t||^2 (Newton with step halving); law
 * N(theta, (lambda I + X^T X / 4)^{-1} + sigma^2 I) (the Bohning bound on the Hessian). */
static int law_logistic(double *mu, double *cov, const double *Z, size_t n, const ga_spec *s,
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
        if (spd_solve(st, Hm, g, p, 1)) {
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
    gram(Hm, X, n, p, 0);
    free(X);
    for (size_t i = 0; i < p * p; i++)
        Hm[i] *= 0.25;
    for (size_t i = 0; i < p; i++)
        Hm[i * p + i] += lp->lambda;
    if ((rc = spd_inverse(cov, Hm, p)))
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
static double kern(const law_par *lp, const double *a, const double *b, size_t p)
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
            M[i * n + j] = M[j * n + i] = kern(lp, Z + i * (p + 1), Z + j * (p + 1), p);
        M[i * n + i] += lp->noise_var;
        for (size_t a = 0; a < q; a++)
            Ks[i * q + a] = kern(lp, Z + i * (p + 1), lp->query + a * p, p);
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
            double c = kern(lp, lp->query + a * p, lp->query + b * p, p);
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

static int law_gp(double *mu, double *cov, const double *Z, size_t n, const ga_spec *s,
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

/*
 * GP regression with remove-one neighbours, from one factorisation. With
 * A = (K + s_n^2 I)^{-1}, removing row i leaves the inverse A - u u^T / a_ii (u = A e_i; its
 * row and column i vanish: the block inverse of the other rows, embedded), so the law on the
 * neighbour is
 *   mean  mu - g_i w_i / a_ii,    covariance  C + g_i g_i^T / a_ii,
 * g_i = row i of A K* (the q-vector K*^T u), w_i = (A y)_i: O(q^2) per neighbour after one
 * O(n^3) Cholesky factorisation, instead of a factorisation per neighbour (the generic path
 * gives the same laws to rounding: tests/test_mechanisms.c compares them).
 */
static int pairs_fit(ga_spec *s, size_t npairs, size_t dim, const char *field, char *msg,
                     size_t msglen);
static int out_of_time(ga_spec *s, size_t planned);

static int build_gp_remove_one(ga_spec *s, const law_par *lp, char *msg, size_t msglen)
{
    size_t n = s->data.n, q = lp->nq, nn = nb_count(s);
    int rc = pairs_fit(s, nn, q, "mechanism", msg, msglen);
    if (rc)
        return rc;
    double *Ks = malloc(n * q * sizeof *Ks), *W = malloc(n * (q + 1) * sizeof *W),
           *ad = malloc(n * sizeof *ad), *mu = malloc(q * sizeof *mu), *cov = malloc(q * q * sizeof *cov);
    gp_why[0] = 0;
    rc = !Ks || !W || !ad || !mu || !cov ? GA_ENOMEM : gp_solve(W, Ks, ad, s->data.x, n, lp);
    gp_fail_msg(msg, msglen, s, n, rc);
    if (rc == GA_OK)
        gp_law(mu, cov, W, Ks, n, lp);
    for (size_t k = 0; k < nn && rc == GA_OK && !out_of_time(s, nn); k++) {
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
        rc = ga_spec_add_pair(s, name, q, 1, dup(mu, q), dup(cov, q * q), mu2, cov2);
    }
    free(Ks);
    free(W);
    free(ad);
    free(mu);
    free(cov);
    return rc;
}

/* generic: law on D and on each neighbour */
/* audit --timeout: has the builders' deadline passed? Then the construction stops with
 * what it has (s->truncated, s->planned pairs were due). Checked before every pair. */
static int out_of_time(ga_spec *s, size_t planned)
{
    if (!ga_expired(s->deadline))
        return 0;
    s->truncated = 1;
    s->planned = planned;
    return 1;
}

/* Caps before allocation (README, "Limits and hostile input"): the number of pairs the
 * relation produces, and the memory their laws take (two means and two d x d covariances
 * each, GA_SPEC_MAX_PAIR_BYTES in all). GA_OK or GA_EINVAL with a message naming the cap. */
static int pairs_cap(ga_spec *s, size_t npairs, size_t dim, const char *field, char *msg,
                     size_t msglen)
{
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

/* pairs_cap, then room for the pairs and one more (a universe's worst case), without
 * doubling past them */
static int pairs_fit(ga_spec *s, size_t npairs, size_t dim, const char *field, char *msg,
                     size_t msglen)
{
    int rc = pairs_cap(s, npairs, dim, field, msg, msglen);
    return rc ? rc : ga_spec_reserve_pairs(s, npairs + 1);
}

/* the neighbours' laws, a chunk at a time on s->jobs threads (numerics/par.c): item j of
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
        r = v ? nb_describe(c->s, k, &change, v, c->name[j], sizeof c->name[j]) : -2;
    } else {
        r = nb_make(c->s, k, &Dp, &m, c->name[j], sizeof c->name[j]);
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

static int build_generic(ga_spec *s, law_fn law, const law_par *lp, size_t dim, char *msg,
                         size_t msglen)
{
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                            "missing: this kind derives its output law from a dataset");
    int rc = pairs_fit(s, nb_count(s), dim, "mechanism", msg, msglen);
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
    size_t nn = nb_count(s);
    law_par warm = *lp; /* the neighbours may start from the whole dataset's law */
    warm.warm = mu;
    *c = (law_chunk){.s = s, .law = law, .lp = &warm, .dim = dim};
    for (size_t k0 = 0; k0 < nn && rc == GA_OK; k0 += GA_BUILD_CHUNK) {
        size_t nk = nn - k0 < GA_BUILD_CHUNK ? nn - k0 : GA_BUILD_CHUNK;
        unsigned char done[GA_BUILD_CHUNK] = {0};
        c->k0 = k0;
        memset(c->mu, 0, sizeof c->mu);
        memset(c->cov, 0, sizeof c->cov);
        rc = ga_par_for(nk, s->jobs, s->deadline, law_item, c, done, NULL);
        /* in order: the pairs, the first error, or the deadline */
        for (size_t j = 0; j < nk; j++) {
            if (rc == GA_OK && !done[j] && out_of_time(s, nn))
                rc = -1; /* stop here; not an error */
            if (rc == GA_OK && c->rc[j] == -1) {
                ga_msg(msg, msglen, "%s: neighbours.rows: row %zu does not exist (the dataset "
                       "has %zu rows)", s->path, (s->rows ? s->rows[k0 + j] : k0 + j) + 1,
                       s->data.n);
                rc = GA_EINVAL;
            } else if (rc == GA_OK && c->rc[j]) {
                ga_msg(msg, msglen, "%s", c->msg[j]);
                rc = c->rc[j];
            } else if (rc == GA_OK) {
                rc = ga_spec_add_pair(s, c->name[j], dim, 1, dup(mu, dim), dup(cov, dim * dim),
                                      c->mu[j], c->cov[j]);
                c->mu[j] = c->cov[j] = NULL; /* the spec owns them now */
            }
            free(c->mu[j]);
            free(c->cov[j]);
        }
    }
    if (rc == -1)
        rc = GA_OK;
    free(c);
    free(mu);
    free(cov);
    return rc;
}

/* ------------------------------------------------------------ the kinds */

/* A covariance read from the spec must be symmetric (to 1e-12 of its largest entry) and
 * positive semidefinite (its smallest eigenvalue, from LAPACK, at least -1e-12 times the
 * largest): a law with a negative variance has no profile. */
static int need_psd(ga_spec *s, const ga_node *n, const char *path, const double *S, size_t p,
                    char *msg, size_t msglen)
{
    double mx = 0, *A = malloc(p * p * sizeof *A), *w = malloc(p * sizeof *w);
    int rc = A && w ? GA_OK : GA_ENOMEM;
    for (size_t i = 0; rc == GA_OK && i < p * p; i++)
        mx = fmax(mx, fabs(S[i]));
    for (size_t i = 0; rc == GA_OK && i < p; i++)
        for (size_t j = 0; j < i; j++)
            if (fabs(S[i * p + j] - S[j * p + i]) > 1e-12 * mx)
                rc = ga_spec_fail(s, n, path, msg, msglen, "must be symmetric");
    if (rc == GA_OK) {
        memcpy(A, S, p * p * sizeof *A);
        if (ga_lapack_syev('N', 'L', p, A, p, w) != 0)
            rc = ga_spec_fail(s, n, path, msg, msglen, "its eigenvalues could not be computed");
        else if (w[0] < -1e-12 * fmax(fabs(w[p - 1]), mx)) {
            char what[160];
            snprintf(what, sizeof what, "must be positive semidefinite (its smallest eigenvalue "
                     "is %.3g)", w[0]);
            rc = ga_spec_fail(s, n, path, msg, msglen, what);
        }
    }
    free(A);
    free(w);
    return rc;
}

static int need_positive(ga_spec *s, const char *key, double v, int allow_zero, char *msg, size_t msglen)
{
    if (allow_zero ? v >= 0 : v > 0)
        return GA_OK;
    char what[128];
    snprintf(what, sizeof what, "must be %s (got %g)", allow_zero ? ">= 0" : "> 0", v);
    char path[64];
    snprintf(path, sizeof path, "mechanism.%s", key);
    return ga_spec_fail(s, ga_node_get(s->mechanism, key), path, msg, msglen, what);
}

/* 1-D pair N(m, v1) vs N(0, v2) with r columns */
static int add_1d(ga_spec *s, const char *name, double m, double v1, double v2, double r)
{
    int rc = ga_spec_add_1d(s, name, r, m, v1, 0, v2);
    if (rc == GA_OK)
        s->pairs[s->npairs - 1].reduced = 1; /* a whitened basis, not output coordinates */
    return rc;
}

static int build_gaussian_mechanism(ga_spec *s, char *msg, size_t msglen)
{
    static const char *const keys[] = {"kind", "sensitivity", "sigma", "noise_cov", "f",
                                       "f_neighbours", NULL};
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen);
    if (rc)
        return rc;
    const ga_node *fn = ga_node_get(s->mechanism, "f");
    double sigma = 0;
    rc = ga_spec_mech_number(s, "sigma", &sigma, 0, msg, msglen);
    if (rc > 0 || (rc == GA_OK && (rc = need_positive(s, "sigma", sigma, 0, msg, msglen))))
        return rc;
    int have_sigma = rc == GA_OK;
    if (!fn) {
        /* by sensitivity: by rotation and translation invariance every pair of neighbours
         * with ||f(D) - f(D')|| = t is the 1-D pair N(t, sigma^2) vs N(0, sigma^2), and delta
         * increases with t: the pair at t = sensitivity is the proven worst case */
        double sens;
        if ((rc = ga_spec_mech_number(s, "sensitivity", &sens, 1, msg, msglen)) ||
            (rc = need_positive(s, "sensitivity", sens, 0, msg, msglen)))
            return rc;
        if (!have_sigma)
            return ga_spec_fail(s, s->mechanism, "mechanism.sigma", msg, msglen,
                                "missing (required with sensitivity)");
        if (ga_node_get(s->mechanism, "noise_cov"))
            return ga_spec_fail(s, ga_node_get(s->mechanism, "noise_cov"), "mechanism.noise_cov",
                                msg, msglen, "goes with explicit outputs f and f_neighbours");
        s->verified = 1;
        s->verified_pair = s->npairs;
        snprintf(s->verified_note, sizeof s->verified_note,
                 "worst case over all neighbours with ||f(D) - f(D')|| <= %g (the profile of the "
                 "Gaussian mechanism depends only on that distance and increases with it)", sens);
        char name[96];
        snprintf(name, sizeof name, "worst case: ||f(D) - f(D')|| = %g", sens);
        if ((rc = add_1d(s, name, sens, sigma * sigma, sigma * sigma, 1)))
            return rc;
        /* the exact decimals for the certified path (calibrate's sigma is the double tried) */
        if (!(s->knob && !strcmp(s->knob, "sigma"))) {
            ga_spec_pair *p = &s->pairs[s->npairs - 1];
            p->mean_txt = ga_node_get(s->mechanism, "sensitivity")->text;
            p->sd_txt = ga_node_get(s->mechanism, "sigma")->text;
        }
        return GA_OK;
    }
    /* explicit outputs: f(D) and a list of f(D'), noise sigma^2 I or noise_cov */
    if (ga_node_get(s->mechanism, "sensitivity"))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "sensitivity"), "mechanism.sensitivity",
                            msg, msglen, "give either sensitivity or explicit outputs f");
    double *f;
    size_t d;
    if ((rc = ga_spec_vector(s, fn, "mechanism.f", 0, &f, &d, msg, msglen)))
        return rc;
    const ga_node *nbn = ga_node_get(s->mechanism, "f_neighbours");
    if ((rc = pairs_fit(s, nbn && nbn->kind == GA_NODE_SEQ ? nbn->n : 0, d, "mechanism.f", msg,
                        msglen))) {
        free(f);
        return rc;
    }
    double *cov = NULL;
    const ga_node *nc = ga_node_get(s->mechanism, "noise_cov");
    /* calibrate scales a noise covariance: sigma^2 noise_cov (sigma then a pure factor) */
    int scaled = nc && s->knob && !strcmp(s->knob, "sigma") && !ga_node_get(s->mechanism, "sigma");
    if (nc && have_sigma && !scaled) {
        free(f);
        return ga_spec_fail(s, nc, "mechanism.noise_cov", msg, msglen, "give sigma or noise_cov, not both");
    }
    if (nc) {
        if ((rc = ga_spec_matrix(s, nc, "mechanism.noise_cov", d, &cov, msg, msglen))) {
            free(f);
            return rc;
        }
        for (size_t i = 0; scaled && i < d * d; i++)
            cov[i] *= sigma * sigma;
    } else if (have_sigma) {
        cov = calloc(d * d, sizeof *cov);
        if (!cov) {
            free(f);
            return GA_ENOMEM;
        }
        for (size_t i = 0; i < d; i++)
            cov[i * d + i] = sigma * sigma;
    } else {
        free(f);
        return ga_spec_fail(s, s->mechanism, "mechanism.sigma", msg, msglen,
                            "missing: give sigma or noise_cov");
    }
    const ga_node *nb = ga_node_get(s->mechanism, "f_neighbours");
    if (!nb || nb->kind != GA_NODE_SEQ || nb->n == 0) {
        free(f);
        free(cov);
        return ga_spec_fail(s, nb ? nb : s->mechanism, "mechanism.f_neighbours", msg, msglen,
                            "missing: a list of outputs f(D') on the neighbours");
    }
    for (size_t k = 0; k < nb->n && rc == GA_OK && !out_of_time(s, nb->n); k++) {
        double *g;
        size_t len;
        char path[64], name[64];
        snprintf(path, sizeof path, "mechanism.f_neighbours[%zu]", k);
        if ((rc = ga_spec_vector(s, nb->kids[k], path, d, &g, &len, msg, msglen)))
            break;
        snprintf(name, sizeof name, "f(D) vs f_neighbours[%zu]", k);
        rc = ga_spec_add_pair(s, name, d, 1, dup(f, d), dup(cov, d * d), g, dup(cov, d * d));
        if (rc == GA_ENOMEM)
            ga_msg(msg, msglen, "%s: out of memory for the laws of %s (two %zu x %zu "
                   "covariances, %.3g MB each)", s->path, name, d, d, (double)d * (double)d * 8e-6);
    }
    free(f);
    free(cov);
    return rc;
}

/* A masked pair (ga_pair_reduce_masked): one column of n rows with norms nx (X) and ny (Y) */
static int add_masked(ga_spec *s, const char *name, double n, double sigma, const char *sigma_txt,
                      double nx, const char *nx_txt, double ny, const char *ny_txt)
{
    ga_masked_input *in = malloc(sizeof *in);
    if (!in)
        return GA_ENOMEM;
    *in = (ga_masked_input){n, sigma, nx, ny, sigma_txt, nx_txt, ny_txt};
    int rc = ga_spec_add_pair(s, name, 1, 1, NULL, NULL, NULL, NULL);
    if (rc) {
        free(in);
        return rc;
    }
    s->pairs[s->npairs - 1].reduced = 1;
    s->pairs[s->npairs - 1].masked = in;
    return GA_OK;
}

/* |D u|^2 for the n x d row-major D */
static double col_norm2(const double *D, size_t n, size_t d, const double *u)
{
    double t = 0;
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        for (size_t j = 0; j < d; j++)
            v += D[i * d + j] * u[j];
        t += v * v;
    }
    return t;
}

/*
 * matrix_masking with masking: orthogonal, setting (B) of Ding, Wu, Miao & Chen: A (X + C),
 * A a uniformly random n x n orthogonal matrix. One column (p = 1): the release is exactly
 * |x + c|^2 (ga_pair_reduce_masked), so each neighbour's pair is exact, and over a universe
 * of rows of norm <= l the worst case is noncentrality l^2/sigma^2 against 0 (proof in the
 * note below). p > 1 columns: bounds. Lower: u^T W u for a unit u (W = (X + C)^T (X + C)) is
 * sigma^2 chi^2_n(|X u|^2/sigma^2), a post-processing of the release, so its exact delta is
 * attained by a function of the release: a violation there is a violation. Upper: setting (A),
 * X + C itself (the paper's Lemma 2.3: A is applied after the noise; the release is a
 * post-processing of X + C), a Gaussian mechanism of sensitivity l (zero_out) or 2 l
 * (replace_one): it proves claims, never shows a violation.
 */
static int build_masked(ga_spec *s, double sigma, char *msg, size_t msglen)
{
    const ga_node *sn = ga_node_get(s->mechanism, "sigma");
    int knobbed = s->knob && !strcmp(s->knob, "sigma");
    const char *st = knobbed || !sn ? NULL : sn->text;
    double rows = 0, cols = 0;
    int rc = ga_spec_mech_number(s, "rows", &rows, 0, msg, msglen);
    if (rc > 0 || (rc = ga_spec_mech_number(s, "columns", &cols, 0, msg, msglen)) > 0)
        return rc;
    rc = GA_OK; /* (absent: -1) */
    if (s->data.n) {
        if (rows || cols)
            return ga_spec_fail(s, ga_node_get(s->mechanism, rows ? "rows" : "columns"),
                                rows ? "mechanism.rows" : "mechanism.columns", msg, msglen,
                                "comes from the dataset: give one or the other");
        rows = (double)s->data.n;
        cols = (double)s->data.d;
    } else {
        if (!s->has_universe)
            return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                                "missing: masking: orthogonal needs a dataset or a universe "
                                "(with rows and columns)");
        if (!(rows >= 1 && rows <= 1e9 && rows == floor(rows)))
            return ga_spec_fail(s, ga_node_get(s->mechanism, "rows"), "mechanism.rows", msg, msglen,
                                "must be a whole number in 1..1e9 (n, the rows of the data matrix)");
        if (cols == 0)
            cols = 1;
        if (!(cols >= 1 && cols <= GA_SPEC_MAX_COLS && cols == floor(cols)))
            return ga_spec_fail(s, ga_node_get(s->mechanism, "columns"), "mechanism.columns", msg,
                                msglen, "must be a whole number in 1..10000 (p, the columns)");
    }
    if (s->release.n)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                            msglen, "the masked release is not Gaussian: a linear map of it is "
                            "not supported");
    if (!(sigma >= 1e-3))
        return ga_spec_fail(s, sn, "mechanism.sigma", msg, msglen, "must be at least 0.001");
    size_t n = s->data.n, d = s->data.d, nn = nb_count(s);
    for (size_t k = 0; n && k < nn && rc == GA_OK && !out_of_time(s, nn); k++) {
        double *Dp, nx, ny;
        size_t m;
        char name[96], full[200];
        if (nb_make(s, k, &Dp, &m, name, sizeof name))
            return ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen, "a row number exceeds the dataset");
        if (d == 1) {
            nx = sqrt(col_norm2(s->data.x, n, 1, (double[]){1}));
            ny = sqrt(col_norm2(Dp, m, 1, (double[]){1}));
            snprintf(full, sizeof full, "%s (exact)", name);
        } else {
            /* u along the changed row, as it was or as it becomes: the larger change of
             * |X u|^2 (any unit u gives a lower bound) */
            double *u = malloc(d * sizeof *u), best = -1;
            nx = ny = 0;
            if (!u) {
                free(Dp);
                return GA_ENOMEM;
            }
            for (size_t i = 0; i < n && i < m && best < 0; i++) {
                int changed = 0;
                for (size_t j = 0; j < d; j++)
                    changed |= Dp[i * d + j] != s->data.x[i * d + j];
                if (!changed)
                    continue;
                for (int side = 0; side < 2; side++) {
                    const double *row = side ? Dp + i * d : s->data.x + i * d;
                    double r2 = 0;
                    for (size_t j = 0; j < d; j++)
                        r2 += row[j] * row[j];
                    if (!(r2 > 0))
                        continue;
                    for (size_t j = 0; j < d; j++)
                        u[j] = row[j] / sqrt(r2);
                    double a = col_norm2(s->data.x, n, d, u), b = col_norm2(Dp, m, d, u);
                    if (fabs(a - b) > best) {
                        best = fabs(a - b);
                        nx = sqrt(a);
                        ny = sqrt(b);
                    }
                }
            }
            free(u);
            snprintf(full, sizeof full, "%s (lower bound: the statistic u^T W u along the changed "
                     "row, a post-processing of the release)", name);
        }
        free(Dp);
        rc = add_masked(s, full, rows, sigma, st, nx, NULL, ny, NULL);
        if (rc == GA_OK && d > 1)
            s->pairs[s->npairs - 1].lower = 1;
    }
    if (rc || !s->has_universe)
        return rc;
    const ga_node *ln = s->universe ? ga_node_get(s->universe, "row_norm_bound") : NULL;
    double l = s->row_norm_bound;
    char name[200];
    if (cols == 1) {
        snprintf(name, sizeof name, "universe worst case (exact: noncentrality %g^2/sigma^2 "
                 "against 0, n = %.0f)", l, rows);
        s->verified = 1;
        s->verified_pair = s->npairs;
        snprintf(s->verified_note, sizeof s->verified_note,
                 "worst case over the universe (one column, |x_i| <= %g, n = %.0f): the release "
                 "is |x + c|^2/sigma^2, noncentral chi-square with noncentrality |x|^2/sigma^2; a "
                 "neighbour changes it by at most %g^2/sigma^2, common noncentrality is common "
                 "noise and a smaller change is a post-processing of a larger one, so (%g^2/"
                 "sigma^2, 0) dominates every neighbour", l, rows, l, l);
        return add_masked(s, name, rows, sigma, st, l, ln ? ln->text : NULL, 0, "0");
    }
    snprintf(name, sizeof name, "universe, lower bound (exact for the statistic e_1^T W e_1: a "
             "row %g e_1 zeroed, noncentrality %g^2/sigma^2 against 0, n = %.0f)", l, l, rows);
    if ((rc = add_masked(s, name, rows, sigma, st, l, ln ? ln->text : NULL, 0, "0")))
        return rc;
    s->pairs[s->npairs - 1].lower = 1;
    double t = (s->relation == GA_REL_REPLACE_ONE ? 2 : 1) * l;
    snprintf(name, sizeof name, "universe, upper bound (setting (A), the unmasked X + C: a "
             "Gaussian mechanism with sensitivity %g; Lemma 2.3)", t);
    s->verified = 1;
    s->verified_bound = 1;
    s->verified_pair = s->npairs;
    snprintf(s->verified_note, sizeof s->verified_note,
             "bounds over the universe (rows of norm <= %g, %.0f columns, n = %.0f): the masked "
             "release A (X + C) is a post-processing of X + C (setting (A), a Gaussian mechanism "
             "with sensitivity %g), which bounds it from above; the statistic e_1^T W e_1 of the "
             "release bounds it from below. Between the two the exact value is not known here",
             l, cols, rows, t);
    return add_1d(s, name, t, sigma * sigma, sigma * sigma, 1);
}

static int build_matrix_masking(ga_spec *s, char *msg, size_t msglen)
{
    static const char *const keys[] = {"kind", "sigma", "masking", "rows", "columns", NULL};
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen);
    double sigma;
    if (rc || (rc = ga_spec_mech_number(s, "sigma", &sigma, 1, msg, msglen)) ||
        (rc = need_positive(s, "sigma", sigma, 0, msg, msglen)))
        return rc;
    const ga_node *mk = ga_node_get(s->mechanism, "masking");
    if (mk && (!mk->text || (strcmp(mk->text, "orthogonal") && strcmp(mk->text, "none"))))
        return ga_spec_fail(s, mk, "mechanism.masking", msg, msglen,
                            "must be none (setting (A), X + C) or orthogonal (setting (B), A (X + C))");
    int masked = mk && !strcmp(mk->text, "orthogonal");
    if (s->relation == GA_REL_REMOVE_ONE || s->relation == GA_REL_ADD_ONE || !s->relation)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "matrix_masking releases D + sigma N, whose shape changes when a row "
                            "is removed or added: use zero_out or replace_one");
    if (masked)
        return build_masked(s, sigma, msg, msglen);
    if (ga_node_get(s->mechanism, "rows") || ga_node_get(s->mechanism, "columns"))
        return ga_spec_fail(s, s->mechanism, "mechanism", msg, msglen,
                            "rows and columns are for masking: orthogonal without a dataset");
    if (s->relation == GA_REL_REMOVE_ONE || s->relation == GA_REL_ADD_ONE || !s->relation)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "matrix_masking releases D + sigma N, whose shape changes when a row "
                            "is removed or added: use zero_out or replace_one");
    /* D + sigma N vs D' + sigma N: a Gaussian mechanism whose mean moves by the changed row */
    size_t d = s->data.d, nn = nb_count(s);
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen, "missing: the data matrix");
    for (size_t k = 0; k < nn && rc == GA_OK && !out_of_time(s, nn); k++) {
        double *Dp;
        size_t m;
        char name[96];
        if (nb_make(s, k, &Dp, &m, name, sizeof name))
            return ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen, "a row number exceeds the dataset");
        double t = 0;
        for (size_t i = 0; i < m * d; i++)
            t += (Dp[i] - s->data.x[i]) * (Dp[i] - s->data.x[i]);
        free(Dp);
        rc = add_1d(s, name, sqrt(t), sigma * sigma, sigma * sigma, 1);
    }
    if (rc == GA_OK && s->has_universe) {
        /* zero_out / replace within norm l rows: ||v - v'|| <= 2 l (replace) or l (zero_out) */
        double t = (s->relation == GA_REL_ZERO_OUT ? 1 : 2) * s->row_norm_bound;
        s->verified = 1;
        s->verified_pair = s->npairs;
        snprintf(s->verified_note, sizeof s->verified_note,
                 "worst case over all neighbours in the universe (rows of norm <= %g): the "
                 "release is a Gaussian mechanism with sensitivity %g", s->row_norm_bound, t);
        rc = add_1d(s, "universe worst case", t, sigma * sigma, sigma * sigma, 1);
    }
    return rc;
}

/* The sketch released through A (m x d, per column) when A is not proven injective: each
 * column is N(0, S) on D, S = D^T D + sigma^2 I, and a neighbour changes S by a rank-one or
 * rank-two term (S - v v^T, S + c c^T, both for replace_one). Each pair is formed in the
 * output coordinates (d x d) and released from there (release_pair: from the doubles, taken
 * as exact; the data-built margin covers their construction). apply_release then has nothing
 * left to do (s->release_done). */
#define SKETCH_RELEASE_MAX_WORK 4e8 /* ball multiply-adds over all pairs */
static int release_injective(const ga_dataset *A);
static const char **release_texts(const ga_node *rn, size_t m, size_t d);
static int release_pair(ga_spec *s, ga_spec_pair *p, const ga_dataset *A, const char **atxt);
static int sketch_released(ga_spec *s, double r, double sigma, int rel, char *msg, size_t msglen)
{
    const ga_dataset *A = &s->release, *D = &s->data;
    size_t m = A->n, d = D->d, nc = s->candidates.n;
    size_t rows = s->rows ? s->nrows_sel : D->n;
    size_t nn = rel == GA_REL_ADD_ONE ? nc : rel == GA_REL_REPLACE_ONE ? rows * nc : rows;
    int rc = pairs_fit(s, nn, m > d ? m : d, "mechanism.release", msg, msglen);
    double work = (double)nn * (double)m * (double)d * (double)(m + d);
    if (rc == GA_OK && work > SKETCH_RELEASE_MAX_WORK)
        snprintf(s->release_note, sizeof s->release_note, "the released laws of %zu pairs "
                 "through a %zu x %zu matrix are beyond the size they are computed exactly for "
                 "(%.3g ball operations, at most %.3g)", nn, m, d, work, SKETCH_RELEASE_MAX_WORK);
    double *S = malloc(d * d * sizeof *S);
    const char **atxt = release_texts(ga_node_get(s->mechanism, "release"), m, d);
    if (rc == GA_OK && !S)
        rc = GA_ENOMEM;
    if (rc == GA_OK)
        gram(S, D->x, D->n, d, sigma * sigma);
    for (size_t k = 0; k < nn && rc == GA_OK && !out_of_time(s, nn); k++) {
        size_t sel = rel == GA_REL_REPLACE_ONE ? k / nc : k;
        size_t row = rel == GA_REL_ADD_ONE ? 0 : (s->rows ? s->rows[sel] : sel);
        if (rel != GA_REL_ADD_ONE && row >= D->n) {
            rc = ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen,
                              "a row number exceeds the dataset");
            break;
        }
        const double *v = rel == GA_REL_ADD_ONE ? NULL : D->x + row * d;
        const double *c = rel == GA_REL_ADD_ONE ? s->candidates.x + k * d
                        : rel == GA_REL_REPLACE_ONE ? s->candidates.x + (k % nc) * d : NULL;
        double *sy = malloc(d * d * sizeof *sy), *mx = calloc(d, sizeof *mx), *my = calloc(d, sizeof *my);
        if (!sy || !mx || !my) {
            free(sy);
            free(mx);
            free(my);
            rc = GA_ENOMEM;
            break;
        }
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++)
                sy[a * d + b] = S[a * d + b] - (v ? v[a] * v[b] : 0) + (c ? c[a] * c[b] : 0);
        char name[96];
        if (rel == GA_REL_ADD_ONE)
            snprintf(name, sizeof name, "add candidate %zu (released)", k + 1);
        else if (rel == GA_REL_REPLACE_ONE)
            snprintf(name, sizeof name, "replace row %zu by candidate %zu (released)", row + 1, k % nc + 1);
        else
            snprintf(name, sizeof name, "%s row %zu (released)", rel == GA_REL_ZERO_OUT ? "zero out" : "remove", row + 1);
        rc = ga_spec_add_pair(s, name, d, r, mx, dup(S, d * d), my, sy);
        if (rc == GA_OK)
            rc = release_pair(s, &s->pairs[s->npairs - 1], A, atxt);
    }
    free(S);
    free(atxt);
    s->release_done = 1;
    return rc;
}

/* Gaussian sketch D^T G + sigma N with r columns: each column ~ N(0, D^T D + sigma^2 I).
 * Removing row v is a rank-one change: whitened by the smaller covariance it is the 1-D pair
 * N(0, 1/(1 - p)) vs N(0, 1) with r columns, p = v^T (D^T D + sigma^2 I)^{-1} v the ridge
 * leverage of v; adding row c: p' = q/(1 + q), q = c^T (D^T D + sigma^2 I)^{-1} c, roles
 * swapped. All remove-one pairs come from one Cholesky factor and n triangular solves. */
/* The remove and add pairs of a subsampled term t (t->add ignored), named names[0] and
 * names[1], as the spec's proven worst case (the caller writes the note) */
static int add_subsampled_pairs(ga_spec *s, const ga_subsampled_input *t, const char names[2][160])
{
    for (int add = 0; add < 2; add++) {
        ga_subsampled_input *in = malloc(sizeof *in);
        if (!in)
            return GA_ENOMEM;
        *in = *t;
        in->add = add;
        int rc = ga_spec_add_pair(s, names[add], 1, 1, NULL, NULL, NULL, NULL);
        if (rc) {
            free(in);
            return rc;
        }
        ga_spec_pair *p = &s->pairs[s->npairs - 1];
        p->reduced = 1;
        p->nsub = 1;
        p->sub = in;
    }
    s->verified = 1;
    s->verified_pair = s->npairs - 2;
    return GA_OK;
}

/* The sketch's remove-, zero-out- and add-one pairs, one leverage v each: (0, 1/(1 - v);
 * 0, 1) for a row of D taken out, (0, 1; 0, 1/(1 - v)) for a row added, in `columns` copies
 * (whitened; NDIS paper, Theorem 5.1). The records and the row family read the same two
 * functions, so an audit that keeps the family reports what one that keeps records does. */
static void sketch_laws(double laws[4], const ga_spec_family *f, size_t k)
{
    double a = 1 / (1 - f->v[k]);
    laws[0] = laws[2] = 0;
    laws[1] = f->relation == GA_REL_ADD_ONE ? 1 : a;
    laws[3] = f->relation == GA_REL_ADD_ONE ? a : 1;
}

static void sketch_name(char *buf, size_t len, const ga_spec_family *f, size_t k)
{
    if (f->relation == GA_REL_ADD_ONE)
        snprintf(buf, len, "add candidate %zu (leverage %.6g)", k + 1, f->v[k]);
    else
        snprintf(buf, len, "%s row %zu (leverage %.6g)",
                 f->relation == GA_REL_ZERO_OUT ? "zero out" : "remove",
                 (f->rows ? f->rows[k] : k) + 1, f->v[k]);
}

/* Does build_sketch hold its pairs as a row family? For an audit (built once, the data
 * dropped) of the plain remove-, zero-out- or add-one neighbours: not released (the laws
 * are then d-dimensional), subsampled, repeated, nor part of a composition or a relative
 * set (those specs are copies with drop_data = 0). */
static int sketch_family(const ga_spec *s)
{
    int rel = s->relation ? s->relation : GA_REL_REMOVE_ONE;
    return s->families && s->drop_data && !s->nrel && s->release.n == 0 &&
           !ga_node_get(s->mechanism, "subsampling") && !ga_node_get(s->mechanism, "repeat") &&
           (rel == GA_REL_REMOVE_ONE || rel == GA_REL_ZERO_OUT || rel == GA_REL_ADD_ONE);
}

/*
 * sketch with subsampling: {poisson: q} (the Poisson-subsampled random projection of 001
 * Figure 3, Theorem 5.3): each row enters the sample S with probability q, then D_S^T G +
 * sigma N is released. For a record v added or removed, the other rows' selection S' mixes
 * both laws alike, so delta <= max over S' of delta(X | S', Y | S') (joint convexity), and
 * each of those is a post-processing of the S' = {} pair (D_S'^T G' is added to both, independent
 * of the rest): the worst case is the dataset {v} with |v| = l, whose pairs are one covariance
 * step (numerics/ploss.c: r columns N(0, sigma^2 I + v v^T) with probability q, else N(0, sigma^2
 * I)), attained by that dataset and its empty neighbour. The audited pairs are its remove and
 * add pairs, a proven worst case over the universe; the dataset (if any) is not needed.
 */
static int build_sketch_subsampled(ga_spec *s, double r, double sigma, char *msg, size_t msglen)
{
    const ga_node *sn = ga_node_get(s->mechanism, "subsampling");
    const ga_node *pn = sn ? ga_node_get(sn, "poisson") : NULL;
    double q;
    if (!pn || !pn->text || ga_decimal_to_double(&q, pn->text) || !(q > 0 && q <= 1))
        return ga_spec_fail(s, sn, "mechanism.subsampling", msg, msglen,
                            "must be {poisson: q} with a rate q in (0, 1]");
    if (!(sigma > 0))
        return ga_spec_fail(s, s->mechanism, "mechanism.noise_sigma", msg, msglen,
                            "a subsampled sketch needs noise_sigma > 0 (its worst case is the "
                            "dataset of one record)");
    if (!(s->row_norm_bound > 0))
        return ga_spec_fail(s, s->mechanism, "universe", msg, msglen,
                            "a subsampled sketch is audited at its worst case over the universe: "
                            "give universe: {row_norm_bound: l}");
    if (s->release.n)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                            msglen, "a subsampled release is a mixture, not a Gaussian law: a "
                            "linear map of it is not supported");
    if (s->relation != GA_REL_NONE && s->relation != GA_REL_REMOVE_ONE && s->relation != GA_REL_ADD_ONE)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "a subsampled sketch is audited for add/remove neighbours (both are "
                            "its pairs); other relations are not supported");
    if (r > 1e6)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "columns"), "mechanism.columns", msg,
                            msglen, "at most 1e6 columns with subsampling");
    const ga_node *ln = s->universe ? ga_node_get(s->universe, "row_norm_bound") : NULL;
    const ga_node *gn = ga_node_get(s->mechanism, "noise_sigma");
    int knobbed = s->knob && !strcmp(s->knob, "noise_sigma");
    ga_subsampled_input t = {q, sigma, 1, 0, pn->text, knobbed || !gn ? NULL : gn->text,
                             r, s->row_norm_bound, ln ? ln->text : NULL};
    char names[2][160];
    snprintf(names[0], sizeof names[0], "remove one record of norm %g (X with it, Y without it)",
             s->row_norm_bound);
    snprintf(names[1], sizeof names[1], "add one record of norm %g (X without it, Y with it)",
             s->row_norm_bound);
    int rc = add_subsampled_pairs(s, &t, names);
    if (rc)
        return rc;
    snprintf(s->verified_note, sizeof s->verified_note,
             "worst case over all add/remove neighbours with rows of norm <= %g (the other rows' "
             "Poisson selection only adds common noise: the dataset of one record of norm %g is "
             "the worst; rate %g, %.0f columns, noise_sigma %g)", s->row_norm_bound,
             s->row_norm_bound, q, r, sigma);
    return GA_OK;
}

/* A lower bound on lambda_min of the exact S = D^T D + sigma^2 I (D and sigma the exact
 * decimals whose doubles were read: each within a relative 2u of its double, u = 2^-53)
 * from Sf = gram(D, fl(sigma^2)) of n rows and a floating estimate of its smallest
 * eigenvalue; <= 0 when none is proven. Weyl: lambda_min(S) >= lambda_min(Sf) - ||S - Sf||_2,
 * the first certified (numerics/spd.c), the second at most
 *   gamma_n F (dsyrk's sums: |fl(G) - G| <= gamma_n |D|^T |D| in any order, whose 2-norm is
 *              at most F = ||D||_F^2 <= tr(Sf) (1 + 2u) / (1 - gamma_n)),
 *   + 4.01 u F (the decimals: 2 ||D|| ||dD|| + ||dD||^2 with ||dD||_F <= 2u sqrt F),
 *   + 2u max Sf_ii (the diagonal's sums) + 7u fl(sigma^2) (its rounding and sigma's),
 * each term rounded up (an underflowed decimal's absolute error is covered by 1e-300). */
static double sketch_lmin_lower(const double *Sf, size_t n, size_t d, double sigma, double guess)
{
    const double u = 0x1p-53;
    double mu;
    if ((double)n * u >= 0.25 || ga_spd_eig_min_lower(&mu, Sf, d, guess) != GA_OK)
        return 0;
    double tr = 0, mx = 0;
    for (size_t i = 0; i < d; i++) {
        tr = ga_up(tr + Sf[i * d + i]);
        mx = fmax(mx, Sf[i * d + i]);
    }
    double nu = ga_up((double)n * u), gn = ga_up(nu / ga_dn(1 - nu));
    double F = ga_up(ga_up(tr * (1 + 2 * u)) / ga_dn(1 - gn)), c = ga_up(sigma * sigma);
    double e = ga_up(ga_up(ga_up(gn + 5 * u) * F) + ga_up(2 * u * mx + 8 * u * c));
    return ga_dn(mu - ga_up(e + 1e-300));
}

/* The universe's worst pair (remove one: X's covariance 1/(1 - p), p = min(l^2/lambda_min(S),
 * l^2/(l^2 + sigma^2)); add one: Y's, 1 + l^2/lambda_min(S)) with its leverage, both
 * rounded up from lmin_lo <= lambda_min(S) and the doubles of the exact decimals l and sigma
 * (within 2u): the pair is at least as far apart as the exact worst one. 0 when no leverage
 * below 1 is proven. */
static int sketch_worst_cov(double *cov, double *lev, double lmin_lo, double l, double sigma,
                            int add)
{
    const double u = 0x1p-53, hi = 1 + 2 * u, lo = 1 - 2 * u;
    double l2 = ga_up(ga_up(ga_up(l * l) * hi) * hi);
    double s2 = ga_dn(ga_dn(ga_dn(sigma * sigma) * lo) * lo);
    double q = lmin_lo > 0 ? ga_up(l2 / lmin_lo) : INFINITY; /* >= l^2 / lambda_min(S) */
    if (add) {
        *cov = ga_up(1 + q);
        *lev = ga_up(q / ga_dn(1 + q));
        return q < INFINITY;
    }
    double p = s2 > 0 ? fmin(q, ga_up(l2 / ga_dn(l2 + s2))) : q;
    *cov = p < 1 ? ga_up(1 / ga_dn(1 - p)) : INFINITY;
    *lev = p;
    return p < 1;
}

static int build_sketch(ga_spec *s, char *msg, size_t msglen)
{
    static const char *const keys[] = {"kind", "columns", "noise_sigma", "subsampling", NULL};
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen);
    double r, sigma = 0;
    if (rc || (rc = ga_spec_mech_number(s, "columns", &r, 1, msg, msglen)))
        return rc;
    if (!(r >= 1 && r == floor(r) && r <= 1e9))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "columns"), "mechanism.columns", msg,
                            msglen, "must be a whole number from 1 to 1e9");
    rc = ga_spec_mech_number(s, "noise_sigma", &sigma, 0, msg, msglen);
    if (rc > 0 || (rc == GA_OK && (rc = need_positive(s, "noise_sigma", sigma, 1, msg, msglen))))
        return rc;
    if (ga_node_get(s->mechanism, "subsampling"))
        return build_sketch_subsampled(s, r, sigma, msg, msglen);
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen, "missing: the data matrix D");
    size_t n = s->data.n, d = s->data.d;
    if (d > GA_SPEC_MAX_DIM)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen, "too many columns");
    double *S = malloc(d * d * sizeof *S), *ev = malloc(d * sizeof *ev);
    rc = GA_ENOMEM;
    if (!S || !ev)
        goto cleanup;
    gram(S, s->data.x, n, d, sigma * sigma);
    double *E = malloc(d * d * sizeof *E);
    if (!E)
        goto cleanup;
    memcpy(E, S, d * d * sizeof *E);
    int info = ga_lapack_syevd('N', 'U', d, E, d, ev);
    free(E);
    if (info != 0 || !(ev[0] > 64 * d * DBL_EPSILON * ev[d - 1])) {
        rc = ga_spec_fail(s, s->mechanism, "mechanism.noise_sigma", msg, msglen,
                          "D^T D + sigma^2 I is singular: the data do not span all columns; "
                          "give noise_sigma > 0");
        goto cleanup;
    }
    /* (before S becomes its Cholesky factor) */
    double lmin_lo = s->has_universe ? sketch_lmin_lower(S, n, d, sigma, ev[0]) : 0;
    if (ga_lapack_potrf('L', d, S, d) != 0) {
        rc = GA_EINVAL;
        goto cleanup;
    }
    int rel = s->relation ? s->relation : GA_REL_REMOVE_ONE;
    rc = GA_OK;
    if (s->release.n && s->release.d != d) {
        char what[160];
        snprintf(what, sizeof what, "the matrix has %zu columns; the sketch's output has %zu rows "
                 "(the dataset's columns)", s->release.d, d);
        rc = ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                          msglen, what);
        goto cleanup;
    }
    if (s->release.n && release_injective(&s->release)) {
        /* a bijection of the output: the sketch's own pairs, exact */
        s->release_done = 1;
    } else if (s->release.n) {
        /* a release A: the pairs in the released coordinates, then the universe below */
        rc = sketch_released(s, r, sigma, rel, msg, msglen);
        goto universe;
    }
    if (rel == GA_REL_REPLACE_ONE) {
        /* a rank-two change S - v v^T + c c^T: explicit d x d pairs (general reduction) */
        if (s->candidates.d != d) {
            rc = ga_spec_fail(s, s->mechanism, "neighbours.candidates", msg, msglen,
                              "candidate rows must have as many columns as the dataset");
            goto cleanup;
        }
        double *S0 = malloc(d * d * sizeof *S0);
        if (!S0) {
            rc = GA_ENOMEM;
            goto cleanup;
        }
        gram(S0, s->data.x, n, d, sigma * sigma);
        size_t rows = s->rows ? s->nrows_sel : n, nc = s->candidates.n;
        if ((rc = pairs_fit(s, rows * nc, d, "neighbours", msg, msglen))) {
            free(S0);
            goto cleanup;
        }
        for (size_t k = 0; k < rows * nc && rc == GA_OK && !out_of_time(s, rows * nc); k++) {
            size_t row = s->rows ? s->rows[k / nc] : k / nc;
            if (row >= n) {
                rc = ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen,
                                  "a row number exceeds the dataset");
                break;
            }
            const double *v = s->data.x + row * d, *c = s->candidates.x + (k % nc) * d;
            double *sy = malloc(d * d * sizeof *sy), *mz = calloc(d, sizeof *mz),
                   *my = calloc(d, sizeof *my);
            if (!sy || !mz || !my) {
                free(sy);
                free(mz);
                free(my);
                rc = GA_ENOMEM;
                break;
            }
            for (size_t a = 0; a < d; a++)
                for (size_t b = 0; b < d; b++)
                    sy[a * d + b] = S0[a * d + b] - v[a] * v[b] + c[a] * c[b];
            char name[96];
            snprintf(name, sizeof name, "replace row %zu by candidate %zu", row + 1, k % nc + 1);
            rc = ga_spec_add_pair(s, name, d, r, mz, dup(S0, d * d), my, sy);
        }
        free(S0);
        goto cleanup;
    }
    size_t nn = rel == GA_REL_ADD_ONE ? s->candidates.n : (s->rows ? s->nrows_sel : n);
    int fam = sketch_family(s);
    rc = (fam ? pairs_cap : pairs_fit)(s, nn, 1, "neighbours", msg, msglen);
    if (rc == GA_OK && rel == GA_REL_ADD_ONE && nn && s->candidates.d != d)
        rc = ga_spec_fail(s, s->mechanism, "neighbours.candidates", msg, msglen,
                          "candidate rows must have as many columns as the dataset");
    /* the leverages first, so that the dataset can go before the pairs are built (an audit
     * builds them once: s->drop_data; the data's doubles are then not held beside them):
     * |L^{-1} v|^2 for the rows v, a block of rows at a time (one triangular solve with many
     * right-hand sides, W L^T = V, per block: not one BLAS call per row) */
    enum { LEV_BLOCK = 256 };
    double *lev = rc == GA_OK ? malloc((nn ? nn : 1) * sizeof *lev) : NULL;
    double *W = rc == GA_OK ? malloc(LEV_BLOCK * d * sizeof *W) : NULL;
    if (rc == GA_OK && (!lev || !W))
        rc = GA_ENOMEM;
    for (size_t k0 = 0; k0 < nn && rc == GA_OK; k0 += LEV_BLOCK) {
        size_t nb = nn - k0 < LEV_BLOCK ? nn - k0 : LEV_BLOCK;
        for (size_t j = 0; j < nb; j++) {
            size_t k = k0 + j, row = rel == GA_REL_ADD_ONE ? k : (s->rows ? s->rows[k] : k);
            if (rel != GA_REL_ADD_ONE && row >= n) {
                rc = ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen,
                                  "a row number exceeds the dataset");
                break;
            }
            memcpy(W + j * d, rel == GA_REL_ADD_ONE ? s->candidates.x + k * d : s->data.x + row * d,
                   d * sizeof *W);
        }
        if (rc != GA_OK)
            break;
        ga_cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)nb,
                       (int)d, 1.0, S, (int)d, W, (int)d);
        for (size_t j = 0; j < nb; j++) {
            double q = ga_cblas_ddot((int)d, W + j * d, 1, W + j * d, 1);
            /* a row of D: q is its leverage p < 1; an added row: its leverage is q / (1 + q) */
            lev[k0 + j] = rel == GA_REL_ADD_ONE ? q / (1 + q) : q;
        }
    }
    free(W);
    if (rc == GA_OK && s->drop_data)
        ga_spec_drop_data(s);
    ga_spec_family f = {.n = nn, .v = lev, .rows = rel == GA_REL_ADD_ONE ? NULL : s->rows,
                        .relation = rel, .columns = r, .laws = sketch_laws, .name = sketch_name};
    if (rc == GA_OK && fam) {
        s->fam = f; /* the pairs are these numbers (the spec takes lev) */
        lev = NULL;
    }
    for (size_t k = 0; k < nn && rc == GA_OK && !fam && !out_of_time(s, nn); k++) {
        double l[4];
        char name[GA_SPEC_NAME_LEN];
        sketch_laws(l, &f, k);
        sketch_name(name, sizeof name, &f, k);
        rc = add_1d(s, name, l[0], l[1], l[3], r);
    }
    free(lev);
universe:
    if (rc == GA_OK && s->has_universe) {
        /* rows of norm <= l: p <= min(l^2/lambda_min(S), l^2/(l^2 + sigma^2)) for a row of D
         * (S >= v v^T + sigma^2 I), and q <= l^2/lambda_min(S) for an added row; the
         * profile increases with the leverage (NDIS paper), so these pairs are the worst.
         * The pair's covariance is an upper bound of the exact one (sketch_worst_cov) */
        double cov, lev;
        int ok = sketch_worst_cov(&cov, &lev, lmin_lo, s->row_norm_bound, sigma,
                                  rel == GA_REL_ADD_ONE);
        s->verified = ok;
        s->verified_pair = ga_spec_npairs(s);
        char name[128], lb[32];
        ga_fmt_bound(lb, sizeof lb, lev, 1, 6);
        if (ok && rel == GA_REL_ADD_ONE) {
            snprintf(name, sizeof name, "universe worst case: add a row of norm %g (leverage <= %s)",
                     s->row_norm_bound, lb);
            rc = add_1d(s, name, 0, 1, cov, r);
        } else if (ok) {
            snprintf(name, sizeof name, "universe worst case: remove a row of norm %g (leverage <= %s)",
                     s->row_norm_bound, lb);
            rc = add_1d(s, name, 0, cov, 1, r);
        }
        if (s->verified)
            snprintf(s->verified_note, sizeof s->verified_note,
                     "worst case over every neighbour of D whose changed row has norm <= %g "
                     "(leverage bound l^2/(lambda_min + sigma^2), profile increasing in leverage; "
                     "rounded up, so a bound only)%s",
                     s->row_norm_bound, s->release.n ? "; before the release, which cannot "
                     "increase delta" : "");
        /* (no neighbour need attain it: l^2/lambda_min is not a leverage of a row of D in
         * general, and the covariance is rounded up; a certified value above a claim is no
         * violation) */
        s->verified_bound = s->verified;
    }
cleanup:
    free(S);
    free(ev);
    return rc;
}

int ga_mech_als_pair(ga_pair **out, double q, double p, double r, size_t d, char *msg,
                     size_t msglen)
{
    *out = NULL;
    if (!(p >= 0 && q >= p && q < 1 && r >= 1 && d >= 1 && d <= GA_SPEC_MAX_DIM)) {
        ga_msg(msg, msglen, "ALS pair: need 0 <= p <= q < 1, r >= 1, d >= 1 (got q = %.17g, "
               "p = %.17g, r = %g, d = %zu)", q, p, r, d);
        return GA_EINVAL;
    }
    int rc = GA_ENOMEM;
    double *mx = calloc(d, sizeof *mx), *my = calloc(d, sizeof *my), *sx = calloc(d * d, sizeof *sx),
           *sy = calloc(d * d, sizeof *sy);
    if (!mx || !my || !sx || !sy)
        goto cleanup;
    mx[0] = sqrt(p * (q - p) / (1 - p));
    for (size_t i = 0; i < d; i++) {
        sx[i * d + i] = (i == 0 ? 1 - p : 1) / r;
        sy[i * d + i] = (1 - q) / (1 - p) / r;
    }
    ga_pair_input in = {d, mx, my, sx, sy, 1, {NULL, NULL, NULL, NULL}};
    rc = ga_pair_reduce(out, &in, msg, msglen);
cleanup:
    free(mx);
    free(my);
    free(sx);
    free(sy);
    return rc;
}

int ga_mech_als_delta(ga_delta *out, double q, double p, double r, size_t d, double eps,
                      ga_gchisq_work *w)
{
    ga_pair *pr;
    char m[256];
    int rc = ga_mech_als_pair(&pr, q, p, r, d, m, sizeof m);
    if (rc)
        return rc;
    rc = ga_pair_delta(out, pr, eps, GA_DELTA_AUTO, NULL, w);
    ga_pair_free(pr);
    return rc;
}

/* delta_ALS(q, p) at eps: the larger direction (-1 on error) */
static double als_worst(double q, double p, double r, size_t d, double eps, ga_gchisq_work *w)
{
    ga_delta D;
    int rc = ga_mech_als_delta(&D, q, p, r, d, eps, w);
    return rc == GA_OK || rc == GA_ETOL ? fmax(D.xy.val, D.yx.val) : -1;
}

/*
 * linear_regression with a universe (rows [u, y] of norm <= l): adding or removing a row w
 * to any D' (augmented by sigma I_{d+1}, so its Gram matrix is >= sigma^2 I) gives leverages
 * q = w^T (A + w w^T)^{-1} w <= l^2/(sigma^2 + l^2) = Q in [B, y] and p <= q in B, and every
 * such (q, p) is attained: D' empty, w = [|u| e_1, y] with |w| = l has q = Q and
 * p = |u|^2/(sigma^2 + |u|^2). By Theorem 4 the privacy profile depends on (q, p, r, d)
 * only. If delta_ALS grows with the residual share q - p at fixed p (the monotonicity the
 * paper conjectures for Theorem 5; our grid checks support it), the worst case over the
 * universe is max over p of delta_ALS(Q, p): found for each claimed eps by a grid and a
 * golden-section refinement, and added as the real pair D = {w} vs D' = {} (its delta is
 * attained, so it is a lower bound on the worst case in any event). Not a proof: the
 * verdict stays NO VIOLATION FOUND at best.
 */
static int als_universe(ga_spec *s, const law_par *lp, char *msg, size_t msglen)
{
    if (s->relation != GA_REL_REMOVE_ONE && s->relation != GA_REL_ADD_ONE && s->relation)
        return ga_spec_fail(s, s->universe, "universe", msg, msglen,
                            "for linear_regression the universe worst case covers remove_one and "
                            "add_one neighbours only");
    if (!(lp->sigma > 0))
        return ga_spec_fail(s, s->universe, "universe", msg, msglen,
                            "linear_regression needs mechanism.sigma > 0 for a universe worst case "
                            "(without augmentation one row can carry the whole residual)");
    size_t d = lp->p;
    double l2 = s->row_norm_bound * s->row_norm_bound, sg2 = lp->sigma * lp->sigma;
    double Q = l2 / (sg2 + l2);
    double eps_list[16];
    size_t ne = 0;
    if (s->has_focus_eps)
        eps_list[ne++] = s->focus_eps;
    else {
        if (s->claim.has_eps_delta)
            eps_list[ne++] = s->claim.epsilon;
        for (size_t i = 0; i < s->claim.nprofile && ne < 16; i++)
            eps_list[ne++] = s->claim.profile[2 * i];
        if (ne == 0)
            eps_list[ne++] = 0;
    }
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    if (!w)
        return GA_ENOMEM;
    int rc = GA_OK;
    double done[16];
    size_t ndone = 0;
    for (size_t k = 0; k < ne && rc == GA_OK; k++) {
        double eps = eps_list[k];
        /* grid over p in [0, Q], then golden section around the best grid point */
        enum { NG = 48 };
        double best = -1, bp = 0;
        for (int g = 0; g <= NG; g++) {
            double p = Q * g / NG, v = als_worst(Q, p, lp->r, d, eps, w);
            if (v > best) {
                best = v;
                bp = p;
            }
        }
        double a = fmax(0, bp - Q / NG), b = fmin(Q, bp + Q / NG), gr = 0.6180339887498949;
        double x1 = b - gr * (b - a), x2 = a + gr * (b - a);
        double f1 = als_worst(Q, x1, lp->r, d, eps, w), f2 = als_worst(Q, x2, lp->r, d, eps, w);
        for (int it = 0; it < 60 && b - a > 1e-12 * Q; it++) {
            if (f1 < f2) {
                a = x1;
                x1 = x2;
                f1 = f2;
                x2 = a + gr * (b - a);
                f2 = als_worst(Q, x2, lp->r, d, eps, w);
            } else {
                b = x2;
                x2 = x1;
                f2 = f1;
                x1 = b - gr * (b - a);
                f1 = als_worst(Q, x1, lp->r, d, eps, w);
            }
        }
        double p = f1 > best ? x1 : (f2 > best ? x2 : bp);
        int dup = 0;
        for (size_t j = 0; j < ndone; j++)
            dup |= fabs(done[j] - p) <= 1e-12 * Q;
        if (dup)
            continue;
        done[ndone++] = p;
        /* the row w = [|u| e_1, y]: p = |u|^2/(sigma^2 + |u|^2) */
        double u2 = fmin(l2, sg2 * p / (1 - p)), row[GA_SPEC_MAX_COLS];
        if (d + 1 > sizeof row / sizeof *row)
            break;
        memset(row, 0, (d + 1) * sizeof *row);
        row[0] = sqrt(u2);
        row[d] = sqrt(fmax(0, l2 - u2));
        double *mu = malloc(d * sizeof *mu), *cov = malloc(d * d * sizeof *cov),
               *mu2 = malloc(d * sizeof *mu2), *cov2 = malloc(d * d * sizeof *cov2);
        if (!mu || !cov || !mu2 || !cov2) {
            free(mu);
            free(cov);
            free(mu2);
            free(cov2);
            rc = GA_ENOMEM;
            break;
        }
        if ((rc = law_linear_regression(mu, cov, row, 1, s, lp, msg, msglen)) == GA_OK)
            rc = law_linear_regression(mu2, cov2, row, 0, s, lp, msg, msglen);
        if (rc) {
            free(mu);
            free(cov);
            free(mu2);
            free(cov2);
            break;
        }
        char name[200];
        snprintf(name, sizeof name, "universe worst case at eps %g: remove the row [%.6g e_1, %.6g] "
                 "(leverages p = %.6g, q = %.6g; if delta_ALS is monotone)", eps, row[0], row[d], p, Q);
        rc = ga_spec_add_pair(s, name, d, 1, mu, cov, mu2, cov2);
    }
    ga_gchisq_work_free(w);
    return rc;
}

/* noisy GD's finite-run options: iterations T, init {mean, cov} (default N(0, I), the
 * standard Gaussian initialisation of 003_a9d59285c5b7ff78 Section 3), release_trajectory */
static int ngd_options(ga_spec *s, law_par *lp, double **m0, double **S0, char *msg,
                       size_t msglen)
{
    double T = 0;
    int rc = ga_spec_mech_number(s, "iterations", &T, 0, msg, msglen);
    if (rc > 0)
        return rc;
    const ga_node *tr = ga_node_get(s->mechanism, "release_trajectory"),
                  *in = ga_node_get(s->mechanism, "init");
    if (tr && (tr->kind != GA_NODE_SCALAR || (strcmp(tr->text, "true") && strcmp(tr->text, "false"))))
        return ga_spec_fail(s, tr, "mechanism.release_trajectory", msg, msglen, "expected true or false");
    lp->trajectory = tr && !strcmp(tr->text, "true");
    if (rc < 0) {
        if (lp->trajectory || in)
            return ga_spec_fail(s, tr ? tr : in, "mechanism.iterations", msg, msglen,
                                "missing: init and release_trajectory describe a finite run of T "
                                "steps (without iterations, the stationary law is released)");
        return GA_OK;
    }
    if (!(T >= 1 && T == floor(T) && T <= 1e6))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "iterations"), "mechanism.iterations",
                            msg, msglen, "must be a whole number from 1 to 1e6");
    lp->iterations = (size_t)T;
    size_t p = lp->p;
    if (lp->trajectory && (double)p * T > GA_SPEC_MAX_DIM)
        return ga_spec_fail(s, tr, "mechanism.release_trajectory", msg, msglen,
                            "the trajectory's dimension (iterations x features) exceeds the cap");
    if (in) {
        static const char *const keys[] = {"mean", "cov", NULL};
        size_t len;
        if ((rc = ga_spec_check_map(s, in, "mechanism.init", keys, msg, msglen)))
            return rc;
        const ga_node *mn = ga_node_get(in, "mean"), *cn = ga_node_get(in, "cov");
        if (mn && (rc = ga_spec_vector(s, mn, "mechanism.init.mean", p, m0, &len, msg, msglen)))
            return rc;
        if (cn && (rc = ga_spec_matrix(s, cn, "mechanism.init.cov", p, S0, msg, msglen)))
            return rc;
        if (cn && (rc = need_psd(s, cn, "mechanism.init.cov", *S0, p, msg, msglen)))
            return rc;
    }
    if (!*m0 && !(*m0 = calloc(p, sizeof **m0)))
        return GA_ENOMEM;
    if (!*S0) {
        if (!(*S0 = calloc(p * p, sizeof **S0)))
            return GA_ENOMEM;
        for (size_t i = 0; i < p; i++)
            (*S0)[i * p + i] = 1;
    }
    lp->init_mean = *m0;
    lp->init_cov = *S0;
    return GA_OK;
}

/* The trajectory under label DP, without the (T p) x (T p) joint: X is the same on D and D',
 * so M = I - eta H is too, and (theta_1, theta_2 - M theta_1, ..., theta_T - M theta_{T-1}) is
 * the same invertible linear image of the trajectory under both: its blocks are independent,
 * theta_1 ~ N(M m0 + b, M S0 M + 2 eta sigma^2 I) and T - 1 iid innovations N(b, 2 eta
 * sigma^2 I), b = eta X^T y. So each pair is the product of the first iterate's pair and the
 * innovation pair with T - 1 columns (invertible post-processing preserves the profile). */
static int build_ngd_label_trajectory(ga_spec *s, const law_par *lp, char *msg, size_t msglen)
{
    size_t p = lp->p, nn = nb_count(s), T = lp->iterations;
    law_par one = *lp;
    one.trajectory = 0;
    one.iterations = 1;
    int rc = pairs_fit(s, nn, p, "neighbours", msg, msglen);
    double c = 2 * lp->eta * lp->sigma * lp->sigma;
    for (size_t k = 0; k < nn && rc == GA_OK && !out_of_time(s, nn); k++) {
        double *Dp;
        size_t m;
        char name[96];
        if (nb_make(s, k, &Dp, &m, name, sizeof name))
            return GA_ENOMEM;
        const double *Z[2] = {s->data.x, Dp};
        size_t nz[2] = {s->data.n, m};
        ga_spec_pair *blocks = calloc(T > 1 ? 2 : 1, sizeof *blocks);
        double *mu[2] = {malloc(p * sizeof(double)), malloc(p * sizeof(double))},
               *cv[2] = {malloc(p * p * sizeof(double)), malloc(p * p * sizeof(double))},
               *b[2] = {calloc(p, sizeof(double)), calloc(p, sizeof(double))},
               *ci[2] = {calloc(p * p, sizeof(double)), calloc(p * p, sizeof(double))};
        rc = blocks && mu[0] && mu[1] && cv[0] && cv[1] && b[0] && b[1] && ci[0] && ci[1] ? GA_OK : GA_ENOMEM;
        for (int w = 0; w < 2 && rc == GA_OK; w++) {
            rc = law_noisy_gd(mu[w], cv[w], Z[w], nz[w], s, &one, msg, msglen);
            for (size_t i = 0; i < nz[w]; i++) /* b = eta X^T y */
                for (size_t j = 0; j < p; j++)
                    b[w][j] += lp->eta * Z[w][i * (p + 1) + j] * Z[w][i * (p + 1) + p];
            for (size_t j = 0; j < p; j++)
                ci[w][j * p + j] = c;
        }
        free(Dp);
        if (rc == GA_OK) {
            blocks[0] = (ga_spec_pair){.name = strdup("theta_1"), .d = p, .columns = 1,
                                       .mu_x = mu[0], .mu_y = mu[1], .s_x = cv[0], .s_y = cv[1]};
            mu[0] = mu[1] = cv[0] = cv[1] = NULL;
            if (T > 1) {
                blocks[1] = (ga_spec_pair){.name = strdup("innovations"), .d = p,
                                           .columns = (double)(T - 1), .mu_x = b[0], .mu_y = b[1],
                                           .s_x = ci[0], .s_y = ci[1]};
                b[0] = b[1] = ci[0] = ci[1] = NULL;
            }
            rc = ga_spec_add_product(s, name, blocks, T > 1 ? 2 : 1);
            blocks = NULL;
        }
        free(blocks);
        for (int w = 0; w < 2; w++) {
            free(mu[w]);
            free(cv[w]);
            free(b[w]);
            free(ci[w]);
        }
    }
    return rc;
}

/* kinds with a law on rows [x | y] */
static int build_regression_kind(ga_spec *s, char *msg, size_t msglen)
{
    law_par lp = {0};
    law_fn law;
    size_t dim;
    int rc;
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                            "missing: rows [x_1, ..., x_p, y] (the last column is the target)");
    if (s->data.d < 2)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                            "needs at least two columns: features and the target (last column)");
    lp.p = s->data.d - 1;
    if ((s->relation == GA_REL_ADD_ONE || s->relation == GA_REL_REPLACE_ONE) &&
        s->candidates.d != s->data.d)
        return ga_spec_fail(s, s->mechanism, "neighbours.candidates", msg, msglen,
                            "candidate rows must have as many columns as the dataset");
    if (!strcmp(s->kind, "output_perturbation")) {
        static const char *const keys[] = {"kind", "lambda", "sigma", NULL};
        if ((rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen)) ||
            (rc = ga_spec_mech_number(s, "lambda", &lp.lambda, 1, msg, msglen)) ||
            (rc = ga_spec_mech_number(s, "sigma", &lp.sigma, 1, msg, msglen)) ||
            (rc = need_positive(s, "lambda", lp.lambda, 1, msg, msglen)) ||
            (rc = need_positive(s, "sigma", lp.sigma, 0, msg, msglen)))
            return rc;
        law = law_output_perturbation;
        dim = lp.p;
    } else if (!strcmp(s->kind, "noisy_gradient_descent")) {
        static const char *const keys[] = {"kind", "lambda", "eta", "sigma", "iterations", "init",
                                           "release_trajectory", NULL};
        if ((rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen)) ||
            (rc = ga_spec_mech_number(s, "lambda", &lp.lambda, 1, msg, msglen)) ||
            (rc = ga_spec_mech_number(s, "eta", &lp.eta, 1, msg, msglen)) ||
            (rc = ga_spec_mech_number(s, "sigma", &lp.sigma, 1, msg, msglen)) ||
            (rc = need_positive(s, "lambda", lp.lambda, 1, msg, msglen)) ||
            (rc = need_positive(s, "eta", lp.eta, 0, msg, msglen)) ||
            (rc = need_positive(s, "sigma", lp.sigma, 0, msg, msglen)))
            return rc;
        double *m0 = NULL, *S0 = NULL;
        ridge_base rb = {0};
        if ((rc = ngd_options(s, &lp, &m0, &S0, msg, msglen)) == GA_OK &&
            (rc = ridge_base_init(&rb, s->data.x, s->data.n, lp.p)) == GA_OK) {
            lp.rb = &rb;
            rc = lp.trajectory && s->relation == GA_REL_CHANGE_LABEL
                     ? build_ngd_label_trajectory(s, &lp, msg, msglen)
                     : build_generic(s, law_noisy_gd, &lp, lp.trajectory ? lp.p * lp.iterations : lp.p,
                                     msg, msglen);
            ridge_base_free(&rb);
        }
        free(m0);
        free(S0);
        return rc;
    } else if (!strcmp(s->kind, "linear_regression")) {
        static const char *const keys[] = {"kind", "columns", "sigma", NULL};
        if ((rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen)) ||
            (rc = ga_spec_mech_number(s, "columns", &lp.r, 1, msg, msglen)))
            return rc;
        rc = ga_spec_mech_number(s, "sigma", &lp.sigma, 0, msg, msglen);
        if (rc > 0 || (rc == GA_OK && (rc = need_positive(s, "sigma", lp.sigma, 1, msg, msglen))))
            return rc;
        if (!(lp.r >= 1 && lp.r == floor(lp.r)))
            return ga_spec_fail(s, ga_node_get(s->mechanism, "columns"), "mechanism.columns", msg,
                                msglen, "must be a whole number >= 1 (the sketch size r)");
        law = law_linear_regression;
        dim = lp.p;
    } else if (!strcmp(s->kind, "bayesian_logistic_regression")) {
        static const char *const keys[] = {"kind", "lambda", "sigma", NULL};
        if ((rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen)) ||
            (rc = ga_spec_mech_number(s, "lambda", &lp.lambda, 1, msg, msglen)) ||
            (rc = need_positive(s, "lambda", lp.lambda, 0, msg, msglen)))
            return rc;
        rc = ga_spec_mech_number(s, "sigma", &lp.sigma, 0, msg, msglen);
        if (rc > 0 || (rc == GA_OK && (rc = need_positive(s, "sigma", lp.sigma, 1, msg, msglen))))
            return rc;
        for (size_t i = 0; i < s->data.n; i++) {
            double y = s->data.x[i * s->data.d + lp.p];
            s->labels_pm1 |= y == -1;
            if (!(y == 0 || y == 1 || y == -1)) {
                char what[128];
                snprintf(what, sizeof what, "row %zu: the label (last column) must be 0, 1 or -1 (got %g)", i + 1, y);
                return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen, what);
            }
        }
        law = law_logistic;
        dim = lp.p;
    } else if (!strcmp(s->kind, "gaussian_process_regression")) {
        static const char *const keys[] = {"kind", "kernel", "lengthscale", "signal_variance",
                                           "noise_variance", "sigma", "query", NULL};
        if ((rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen)))
            return rc;
        const ga_node *k = ga_node_get(s->mechanism, "kernel");
        if (!k || k->kind != GA_NODE_SCALAR || (strcmp(k->text, "rbf") && strcmp(k->text, "linear")))
            return ga_spec_fail(s, k ? k : s->mechanism, "mechanism.kernel", msg, msglen,
                                "must be rbf or linear");
        lp.linear_kernel = !strcmp(k->text, "linear");
        if (!lp.linear_kernel &&
            ((rc = ga_spec_mech_number(s, "lengthscale", &lp.lengthscale, 1, msg, msglen)) ||
             (rc = ga_spec_mech_number(s, "signal_variance", &lp.signal_var, 1, msg, msglen)) ||
             (rc = need_positive(s, "lengthscale", lp.lengthscale, 0, msg, msglen)) ||
             (rc = need_positive(s, "signal_variance", lp.signal_var, 0, msg, msglen))))
            return rc;
        if ((rc = ga_spec_mech_number(s, "noise_variance", &lp.noise_var, 1, msg, msglen)) ||
            (rc = need_positive(s, "noise_variance", lp.noise_var, 0, msg, msglen)))
            return rc;
        rc = ga_spec_mech_number(s, "sigma", &lp.sigma, 0, msg, msglen);
        if (rc > 0 || (rc == GA_OK && (rc = need_positive(s, "sigma", lp.sigma, 1, msg, msglen))))
            return rc;
        const ga_node *qn = ga_node_get(s->mechanism, "query");
        if (!qn || qn->kind != GA_NODE_SEQ || qn->n == 0)
            return ga_spec_fail(s, qn ? qn : s->mechanism, "mechanism.query", msg, msglen,
                                "missing: a list of public query points [[x_1, ..., x_p], ...]");
        double *qv = malloc(qn->n * lp.p * sizeof *qv);
        if (!qv)
            return GA_ENOMEM;
        for (size_t a = 0; a < qn->n; a++) {
            double *row;
            size_t len;
            char path[64];
            snprintf(path, sizeof path, "mechanism.query[%zu]", a);
            if ((rc = ga_spec_vector(s, qn->kids[a], path, lp.p, &row, &len, msg, msglen))) {
                free(qv);
                return rc;
            }
            memcpy(qv + a * lp.p, row, lp.p * sizeof *qv);
            free(row);
        }
        lp.query = qv;
        lp.nq = qn->n;
        law = law_gp;
        dim = lp.nq;
        /* remove-one: one factorisation and a rank-one downdate per neighbour */
        rc = s->relation == GA_REL_REMOVE_ONE ? build_gp_remove_one(s, &lp, msg, msglen)
                                              : build_generic(s, law, &lp, dim, msg, msglen);
        free(qv);
        return rc;
    } else { /* a kind routed here by mistake: never another kind's rules */
        return ga_spec_fail(s, s->mechanism, "mechanism.kind", msg, msglen,
                            "internal error: not a regression kind");
    }
    /* output_perturbation and linear_regression: neighbours by updates of X^T X, X^T y
     * (and, for linear_regression, of the residual sum of squares) */
    ridge_base rb = {0};
    if (law != law_logistic) {
        if ((rc = ridge_base_init(&rb, s->data.x, s->data.n, lp.p)))
            return rc;
        lp.rb = &rb;
        /* (a singular whole-dataset system: the neighbours sum their residuals directly,
         * and the whole dataset's law reports it) */
        if (law == law_linear_regression &&
            ridge_base_residuals(&rb, s->data.x, s->data.n, lp.p, lp.sigma * lp.sigma) == GA_ENOMEM) {
            ridge_base_free(&rb);
            return GA_ENOMEM;
        }
    }
    rc = build_generic(s, law, &lp, dim, msg, msglen);
    lp.rb = NULL;
    ridge_base_free(&rb); /* (all NULL for logistic regression) */
    if (rc == GA_OK && s->has_universe && !s->truncated)
        rc = als_universe(s, &lp, msg, msglen);
    return rc;
}

/* synthetic_random_inputs with explicit models: dim d and norms [[|theta|, |theta'|], ...] (the
 * pairs the paper's figures plot: any two models at distance <= Delta) */
static int synthetic_norms(ga_spec *s, const ga_node *nn, double sigma, double m, const char *st,
                           char *msg, size_t msglen)
{
    double d = 0;
    int rc = ga_spec_mech_number(s, "dim", &d, 1, msg, msglen);
    if (rc)
        return rc;
    if (!(d >= 1 && d <= 1e9 && d == floor(d)))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "dim"), "mechanism.dim", msg, msglen,
                            "must be a whole number in 1..1e9 (the model's dimension)");
    if (!(m >= 1 && m <= 1e6 && m == floor(m)) || (fmod(m, 2) != 0 && fmod(d, 2) != 0))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "points"), "mechanism.points", msg, msglen,
                            "must be a whole number in 1..1e6, even when dim is odd");
    if (s->data.n || ga_node_get(s->mechanism, "lambda"))
        return ga_spec_fail(s, nn, "mechanism.norms", msg, msglen,
                            "explicit norms replace the dataset and lambda: give one or the other");
    if (nn->kind != GA_NODE_SEQ || nn->n == 0 || nn->n > 10000)
        return ga_spec_fail(s, nn, "mechanism.norms", msg, msglen,
                            "must be a list of 1 to 10000 pairs [|theta(D)|, |theta(D')|]");
    for (size_t i = 0; i < nn->n; i++) {
        double *v;
        size_t len;
        char path[64], name[160];
        snprintf(path, sizeof path, "mechanism.norms[%zu]", i);
        if ((rc = ga_spec_vector(s, nn->kids[i], path, 2, &v, &len, msg, msglen)))
            return rc;
        if (nn->kids[i]->kind != GA_NODE_SEQ) { /* (two numbers are never read as NUMS; the
                                                   texts below must be the doc's) */
            free(v);
            return ga_spec_fail(s, nn->kids[i], path, msg, msglen, "expected [a, b]");
        }
        if (!(v[0] >= 0 && v[1] >= 0 && v[0] <= 1e6 && v[1] <= 1e6)) {
            free(v);
            return ga_spec_fail(s, nn->kids[i], path, msg, msglen, "norms must be in [0, 1e6]");
        }
        ga_synthetic_input *in = malloc(sizeof *in);
        if (!in) {
            free(v);
            return GA_ENOMEM;
        }
        const ga_node *kx = nn->kids[i]->kids[0], *ky = nn->kids[i]->kids[1];
        *in = (ga_synthetic_input){d, m, sigma, v[0], v[1], st, kx->text, ky->text};
        snprintf(name, sizeof name, "models of norm %g (X) and %g (Y)", v[0], v[1]);
        free(v);
        if ((rc = ga_spec_add_pair(s, name, 1, 1, NULL, NULL, NULL, NULL))) {
            free(in);
            return rc;
        }
        s->pairs[s->npairs - 1].reduced = 1;
        s->pairs[s->npairs - 1].synth = in;
    }
    return GA_OK;
}

/* the ridge models of k targets (the dataset's last k columns), V k x p row-major */
static int ridge_multi(double *V, const double *Z, size_t n, size_t p, size_t k, double lambda)
{
    double *Zj = malloc((n ? n : 1) * (p + 1) * sizeof *Zj), *H = malloc(p * p * sizeof *H);
    int rc = Zj && H ? GA_OK : GA_ENOMEM;
    for (size_t j = 0; j < k && rc == GA_OK; j++) {
        for (size_t i = 0; i < n; i++) {
            memcpy(Zj + i * (p + 1), Z + i * (p + k), p * sizeof *Zj);
            Zj[i * (p + 1) + p] = Z[i * (p + k) + p + j];
        }
        rc = ridge(V + j * p, H, Zj, n, p, lambda, NULL);
    }
    free(Zj);
    free(H);
    return rc;
}

/*
 * Vector outputs (k > 1 targets, the model V k x p): the release y_i = V~ z_i is no longer a
 * function of one norm. Bounds per neighbour: below, the outputs projected on a unit u in R^k,
 * u^T y_i = (V~^T u)^T z_i, a scalar synthetic release of the model V^T u (exact for it and a
 * post-processing of the release: its violations are the release's), u the top left singular
 * vector of V - V'; above, the model itself (the release is a post-processing of it): the
 * Gaussian mechanism with shift |V - V'|_F, a bound that never shows a violation.
 */
static int synthetic_vector(ga_spec *s, const law_par *lp, size_t k, double m, char *msg, size_t msglen)
{
    size_t p = lp->p, n = s->data.n, nn = nb_count(s);
    const ga_node *sn = ga_node_get(s->mechanism, "sigma");
    int knobbed = s->knob && !strcmp(s->knob, "sigma");
    double *V = malloc(k * p * sizeof *V), *W = malloc(k * p * sizeof *W), *G = malloc(k * k * sizeof *G),
           *ev = malloc(k * sizeof *ev);
    int rc = V && W && G && ev ? GA_OK : GA_ENOMEM;
    if (rc == GA_OK && (rc = ridge_multi(V, s->data.x, n, p, k, lp->lambda)))
        ga_msg(msg, msglen, "%s: the ridge system is singular (give lambda > 0)", s->path);
    for (size_t q = 0; q < nn && rc == GA_OK && !out_of_time(s, nn); q++) {
        double *Dp;
        size_t mm;
        char name[96], full[200];
        if (nb_make(s, q, &Dp, &mm, name, sizeof name)) {
            rc = ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen, "a row number exceeds the dataset");
            break;
        }
        rc = ridge_multi(W, Dp, mm, p, k, lp->lambda);
        free(Dp);
        if (rc)
            break;
        /* G = (V - W)(V - W)^T; its top eigenvector is u */
        double fro = 0;
        for (size_t a = 0; a < k; a++)
            for (size_t b = 0; b < k; b++) {
                double t = 0;
                for (size_t j = 0; j < p; j++)
                    t += (V[a * p + j] - W[a * p + j]) * (V[b * p + j] - W[b * p + j]);
                G[a * k + b] = t;
            }
        for (size_t a = 0; a < k; a++)
            fro += G[a * k + a];
        if (ga_lapack_syev('V', 'U', k, G, k, ev)) {
            rc = GA_EINVAL;
            ga_msg(msg, msglen, "%s: eigendecomposition failed", s->path);
            break;
        }
        double nx = 0, ny = 0; /* |V^T u|, |W^T u|, u = column k - 1 of G (largest eigenvalue) */
        for (size_t j = 0; j < p; j++) {
            double a = 0, b = 0;
            for (size_t r = 0; r < k; r++) {
                a += V[r * p + j] * G[r * k + k - 1];
                b += W[r * p + j] * G[r * k + k - 1];
            }
            nx += a * a;
            ny += b * b;
        }
        ga_synthetic_input *in = malloc(sizeof *in);
        if (!in) {
            rc = GA_ENOMEM;
            break;
        }
        *in = (ga_synthetic_input){(double)p, m, lp->sigma, sqrt(nx), sqrt(ny),
                                   knobbed || !sn ? NULL : sn->text, NULL, NULL};
        snprintf(full, sizeof full, "%s (lower bound: the outputs projected on the top singular "
                 "direction of the change)", name);
        if ((rc = ga_spec_add_pair(s, full, 1, 1, NULL, NULL, NULL, NULL))) {
            free(in);
            break;
        }
        s->pairs[s->npairs - 1].reduced = 1;
        s->pairs[s->npairs - 1].synth = in;
        s->pairs[s->npairs - 1].lower = 1;
        snprintf(full, sizeof full, "%s (upper bound: the model itself, shift %.6g)", name, sqrt(fro));
        if ((rc = add_1d(s, full, sqrt(fro), lp->sigma * lp->sigma, lp->sigma * lp->sigma, 1)))
            break;
        s->pairs[s->npairs - 1].bound = 1;
    }
    free(V);
    free(W);
    free(G);
    free(ev);
    s->verified = 0;
    return rc;
}

/*
 * synthetic_random_inputs (Pierquin, Bellet, Tommasi & Boussard, Section 4): the output-perturbed
 * ridge model theta~ = theta(D) + sigma N (as output_perturbation) is queried at `points` hidden
 * inputs z_i ~ N(0, I) and only theta~^T z_i are released (scalar outputs). The release is the
 * function |y|^2 = sigma^2 S C of a noncentral chi-square S (noncentrality |theta|^2/sigma^2)
 * and an independent chi^2_points C (numerics/synth.c), so each neighbour's pair is exact and
 * depends on |theta(D)| and |theta(D')| only. No worst case over a universe is proven here: the
 * privacy depends on |theta| as well as on the change, so verdicts are about the audited
 * neighbours (NO VIOLATION FOUND at best).
 */
static int build_synthetic(ga_spec *s, char *msg, size_t msglen)
{
    static const char *const keys[] = {"kind", "lambda", "sigma", "points", "outputs", "dim",
                                       "norms", NULL};
    law_par lp = {0};
    double m = 0, outs = 1;
    int rc;
    if ((rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen)) ||
        (rc = ga_spec_mech_number(s, "sigma", &lp.sigma, 1, msg, msglen)) ||
        (rc = ga_spec_mech_number(s, "points", &m, 1, msg, msglen)) ||
        (rc = need_positive(s, "sigma", lp.sigma, 0, msg, msglen)))
        return rc;
    const ga_node *sn = ga_node_get(s->mechanism, "sigma");
    int knobbed = s->knob && !strcmp(s->knob, "sigma");
    const ga_node *nn = ga_node_get(s->mechanism, "norms");
    if (nn) /* explicit models: |theta(D)| and |theta(D')| per pair, no dataset */
        return synthetic_norms(s, nn, lp.sigma, m, knobbed || !sn ? NULL : sn->text, msg, msglen);
    if ((rc = ga_spec_mech_number(s, "lambda", &lp.lambda, 1, msg, msglen)) ||
        (rc = need_positive(s, "lambda", lp.lambda, 1, msg, msglen)))
        return rc;
    if (ga_node_get(s->mechanism, "dim"))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "dim"), "mechanism.dim", msg, msglen,
                            "dim goes with norms (explicit models); with a dataset it is the "
                            "number of features");
    if ((rc = ga_spec_mech_number(s, "outputs", &outs, 0, msg, msglen)) > 0)
        return rc;
    if (!(outs >= 1 && outs == floor(outs) && outs <= 100 && (s->data.n == 0 || outs < (double)s->data.d)))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "outputs"), "mechanism.outputs", msg,
                            msglen, "must be a whole number in 1..100, fewer than the dataset's "
                            "columns (the last `outputs` columns are the targets)");
    if (!(m >= 1 && m <= 1e6 && m == floor(m)))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "points"), "mechanism.points", msg,
                            msglen, "must be a whole number in 1..1e6 (the synthetic points)");
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                            "missing: rows [x_1, ..., x_p, y] (the last column is the target)");
    if (s->data.d < 2)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                            "needs at least two columns: features and the target (last column)");
    lp.p = s->data.d - (size_t)outs;
    if (fmod(m, 2) != 0 && fmod((double)lp.p, 2) != 0)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "points"), "mechanism.points", msg,
                            msglen, "with an odd number of features the number of points must be "
                            "even (the exact tails need one of them even)");
    if (s->release.n)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                            msglen, "the synthetic release is not Gaussian: a linear map of it is "
                            "not supported");
    if ((s->relation == GA_REL_ADD_ONE || s->relation == GA_REL_REPLACE_ONE) &&
        s->candidates.d != s->data.d)
        return ga_spec_fail(s, s->mechanism, "neighbours.candidates", msg, msglen,
                            "candidate rows must have as many columns as the dataset");
    if (outs > 1)
        return synthetic_vector(s, &lp, (size_t)outs, m, msg, msglen);
    size_t from = s->npairs;
    if ((rc = build_generic(s, law_output_perturbation, &lp, lp.p, msg, msglen)))
        return rc;
    for (size_t i = from; i < s->npairs; i++) {
        ga_spec_pair *p = &s->pairs[i];
        double nx = 0, ny = 0;
        for (size_t j = 0; j < p->d; j++) {
            nx += p->mu_x[j] * p->mu_x[j];
            ny += p->mu_y[j] * p->mu_y[j];
        }
        ga_synthetic_input *in = malloc(sizeof *in);
        if (!in)
            return GA_ENOMEM;
        *in = (ga_synthetic_input){(double)lp.p, m, lp.sigma, sqrt(nx), sqrt(ny),
                                   knobbed || !sn ? NULL : sn->text, NULL, NULL};
        ga_spec_pair_set_laws(p, 1, NULL, NULL, NULL, NULL);
        p->reduced = 1;
        p->synth = in;
    }
    s->verified = 0;
    return GA_OK;
}

/* ------------------------------------------------------------ published calibrations */

/* delta_ALS^eps(q, p) of the NDIS paper (Definition 13): the delta of the Theorem 4 pair,
 * the larger of both directions plus its error estimate (-1 on error) */
static double als_delta(double q, double p, double r, size_t d, double eps, ga_gchisq_work *w)
{
    ga_delta D;
    int rc = ga_mech_als_delta(&D, q, p, r, d, eps, w);
    return rc == GA_OK || rc == GA_ETOL ? fmax(D.xy.val + D.xy.err, D.yx.val + D.yx.err) : -1;
}

/* The NDIS paper's M_LS rule (Figure 4, step 1; Theorem 5): the sigma with
 * delta_ALS(2 l^2/sigma^2, l^2/sigma^2) = delta, by bisection in t = l^2/sigma^2 (the rule
 * assumes delta_ALS increasing, so delta_ALS(2t, t) is increasing in t). Returns 0 when no
 * t in (0, 1/2) meets the target. */
static double mls_rule_sigma(double l, double r, size_t d, double eps, double delta, ga_gchisq_work *w)
{
    double lo = 1e-12, hi = 0.5 * (1 - 1e-12);
    if (als_delta(2 * lo, lo, r, d, eps, w) > delta)
        return 0;
    if (als_delta(2 * hi, hi, r, d, eps, w) <= delta)
        return l / sqrt(hi);
    for (int k = 0; k < 200 && hi - lo > 1e-14 * hi; k++) {
        double mid = sqrt(lo * hi);
        if (!(mid > lo && mid < hi))
            mid = 0.5 * (lo + hi);
        if (als_delta(2 * mid, mid, r, d, eps, w) > delta)
            hi = mid;
        else
            lo = mid;
    }
    return l / sqrt(lo);
}

static void pub_add(ga_mech_published *pv, size_t *np, size_t max, const char *name, double value,
                    double lev, double exact_lev, const char *text)
{
    if (*np >= max)
        return;
    ga_mech_published *e = &pv[(*np)++];
    e->name = name;
    e->value = value;
    e->leverage = lev;
    e->exact_leverage = exact_lev;
    snprintf(e->text, sizeof e->text, "%s", text ? text : "");
}

/* Ding et al. (matrix masking, noise only), their bounds (12) sufficient and (11) necessary
 * for the distance scale of the worst pair */
static void pub_ding(ga_mech_published *pv, size_t *np, size_t max, double scale, double eps,
                     double delta)
{
    double g = gsl_cdf_ugaussian_Qinv(delta);
    double b12 = scale * g / eps * (1 + 1 / (2 * g * g)), b11 = scale * g / eps;
    char t[320];
    snprintf(t, sizeof t, "Ding et al. (matrix masking, noise only): sufficient (12) %.6g, "
             "stated necessary (11) %.6g", b12, b11);
    pub_add(pv, np, max, "Ding et al. (12) sufficient", b12, NAN, NAN, t);
    pub_add(pv, np, max, "Ding et al. (11) necessary", b11, NAN, NAN, NULL);
}

static size_t pub_gaussian_mechanism(ga_mech_published *pv, size_t max, ga_spec *s, double eps,
                                     double delta, double value, ga_gchisq_work *w)
{
    (void)w;
    char msg[256], t[320];
    size_t np = 0;
    double sens;
    if (ga_spec_mech_number(s, "sensitivity", &sens, 0, msg, sizeof msg) != GA_OK)
        return 0;
    double classic = sens * sqrt(2 * log(1.25 / delta)) / eps;
    snprintf(t, sizeof t, "classic Gaussian (Dwork & Roth 2014, Thm A.1; stated for eps < 1): "
             "%.10g (%.4gx the exact value)", classic, classic / value);
    pub_add(pv, &np, max, "classic Gaussian", classic, NAN, NAN, t);
    pub_add(pv, &np, max, "analytic Gaussian (Balle & Wang 2018)", value, NAN, NAN,
            "analytic Gaussian (Balle & Wang 2018): the exact calibration of this mechanism, the "
            "value above");
    pub_ding(pv, &np, max, sens, eps, delta);
    return np;
}

/* the upper delta-quantile of noncentral chi^2_df(a) (bisection on the estimated tail) */
static double ncx2_quantile(double df, double a, double delta)
{
    double lo = 0, hi = df + a + 10, Q, P;
    for (int k = 0; k < 200 && !ga_ncx2_tail(&Q, &P, df, a, hi) && Q > delta; k++)
        hi *= 2;
    for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (ga_ncx2_tail(&Q, &P, df, a, mid))
            return NAN;
        if (Q > delta)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Ding et al.'s Theorem 3.4 (13): sigma0 the largest root of g(sigma) = (2 sqrt(p) + 1)/(2 (n -
 * p)) gamma_{delta; 2 (n - p), p/sigma^2} + sqrt(p) - sigma^2 eps (g decreases in sigma: the
 * quantile decreases with the noncentrality), for rows of entries <= 1 */
static double ding_thm34(double n, double p, double eps, double delta)
{
    double lo = 1e-3, hi = 1e6;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double sg = sqrt(lo * hi);
        double g = (2 * sqrt(p) + 1) / (2 * (n - p)) * ncx2_quantile(2 * (n - p), p / (sg * sg), delta) +
                   sqrt(p) - sg * sg * eps;
        if (isnan(g))
            return NAN;
        if (g > 0)
            lo = sg;
        else
            hi = sg;
    }
    return sqrt(lo * hi);
}

static size_t pub_matrix_masking(ga_mech_published *pv, size_t max, ga_spec *s, double eps,
                                 double delta, double value, ga_gchisq_work *w)
{
    (void)value, (void)w;
    size_t np = 0;
    for (size_t i = 0; i < s->npairs; i++) {
        if (!s->pairs[i].masked)
            continue;
        /* setting (B): Theorem 3.4 (13) and Corollary 3.5 (14), stated for entries <= 1, n > p */
        double n = s->pairs[i].masked->rows, p = 1;
        const ga_node *cn = ga_node_get(s->mechanism, "columns");
        if (s->data.n)
            p = (double)s->data.d;
        else if (cn && cn->text)
            ga_decimal_to_double(&p, cn->text);
        char t[320];
        if (n > p) {
            double b13 = ding_thm34(n, p, eps, delta);
            double b14 = sqrt((2 * n - p + log(1 / delta)) / (2 * (n - p))) * 3 * pow(p, 0.25) / sqrt(eps);
            snprintf(t, sizeof t, "Ding et al. setting (B), masked (entries <= 1): Theorem 3.4 (13) "
                     "%.6g, Corollary 3.5 (14) %.6g", b13, b14);
            pub_add(pv, &np, max, "Ding et al. (13) masked", b13, NAN, NAN, t);
            pub_add(pv, &np, max, "Ding et al. (14) masked", b14, NAN, NAN, NULL);
        }
        double l = s->row_norm_bound > 0 ? s->row_norm_bound : 1;
        pub_ding(pv, &np, max, (s->relation == GA_REL_REPLACE_ONE ? 2 : 1) * l, eps, delta);
        return np;
    }
    /* the sensitivity the published formulas take: the proven worst case's row change, or
     * without a universe the largest change among the audited neighbours */
    double scale = 0;
    if (s->verified && s->npairs)
        scale = s->pairs[s->verified_pair].mu_x[0];
    else
        for (size_t i = 0; i < s->npairs; i++)
            scale = fmax(scale, fabs(s->pairs[i].mu_x[0]));
    if (!(scale > 0))
        return 0;
    pub_ding(pv, &np, max, scale, eps, delta);
    return np;
}

static size_t pub_sketch(ga_mech_published *pv, size_t max, ga_spec *s, double eps,
                         double delta, double value, ga_gchisq_work *w)
{
    (void)w;
    /* (the LSV and leverage rules are for the unsampled sketch) */
    if (!s->verified || !s->has_universe || ga_node_get(s->mechanism, "subsampling"))
        return 0;
    char msg[256], t[320];
    size_t np = 0;
    double r;
    ga_spec_mech_number(s, "columns", &r, 1, msg, sizeof msg);
    double L4 = log(4 / delta), plsv = eps / (4 * (sqrt(2 * r * L4) + L4));
    /* leverage bound l^2/(lambda_min + sigma^2): recover lambda_min from the worst pair */
    double l2 = s->row_norm_bound * s->row_norm_bound;
    ga_mech_rebuild(s, value, msg, sizeof msg);
    double tau = s->pairs[s->verified_pair].s_x[0], pstar = 1 - 1 / tau;
    double lmin = l2 / pstar - value * value, s2 = l2 / plsv - lmin;
    snprintf(t, sizeof t, "leverage threshold: exact %.6g; LSV-based (Sheffet 2019, Thm 2, as in "
             "the NDIS paper) %.6g, i.e. noise_sigma %.6g (%.3gx the exact leverage allowed)",
             pstar, plsv, s2 > 0 ? sqrt(s2) : 0.0, pstar / plsv);
    pub_add(pv, &np, max, "LSV-based", s2 > 0 ? sqrt(s2) : 0.0, plsv, pstar, t);
    return np;
}

static size_t pub_linear_regression(ga_mech_published *pv, size_t max, ga_spec *s, double eps,
                                    double delta, double value, ga_gchisq_work *w)
{
    if (!s->has_universe)
        return 0;
    char msg[256], t[320];
    size_t np = 0;
    double r;
    ga_spec_mech_number(s, "columns", &r, 1, msg, sizeof msg);
    double sr = mls_rule_sigma(s->row_norm_bound, r, s->data.d - 1, eps, delta, w);
    if (sr > 0) {
        snprintf(t, sizeof t, "NDIS paper, M_LS rule (Figure 4: delta_ALS(2 l^2/sigma^2, "
                 "l^2/sigma^2) <= delta, Theorem 5 assuming delta_ALS monotone): sigma %.10g "
                 "(%.4gx the exact value)", sr, sr / value);
        pub_add(pv, &np, max, "NDIS M_LS rule", sr, NAN, NAN, t);
    }
    return np;
}

/* explicit pairs are parsed with the spec: nothing to build */
static int pair_copy(ga_spec_pair *dst, const ga_spec_pair *src);
static int pair_room_move(ga_spec *s, ga_spec_pair *p, const char *name);

/* explicit pairs are parsed with the spec; calibrate treats their covariances as the noise
 * and scales them (noise_scale c: c^2 S_x, c^2 S_y) from the pairs as written, kept aside */
static int build_explicit(ga_spec *s, char *msg, size_t msglen)
{
    (void)msg, (void)msglen;
    if (!s->knob || !s->explicit_orig)
        return GA_OK;
    double c2 = s->knob_value * s->knob_value;
    int rc = GA_OK;
    for (size_t i = 0; i < s->nexplicit_orig && rc == GA_OK; i++) {
        ga_spec_pair w;
        if ((rc = pair_copy(&w, &s->explicit_orig[i])))
            break;
        for (size_t j = 0; j < w.d * w.d; j++) {
            w.s_x[j] *= c2;
            w.s_y[j] *= c2;
        }
        rc = pair_room_move(s, &w, s->explicit_orig[i].name);
        free(w.name);
    }
    return rc;
}

/* ------------------------------------------------------------ common keys: repeat, release */

/* repeat: k independent runs of the mechanism: every pair (every block of a product) gets k
 * times the iid columns */
static int apply_repeat(ga_spec *s, size_t from, char *msg, size_t msglen)
{
    double k;
    int rc = ga_spec_mech_number(s, "repeat", &k, 0, msg, msglen);
    if (rc < 0)
        return GA_OK; /* absent */
    if (rc)
        return rc;
    if (!(k >= 1 && k == floor(k) && k <= 1e9))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "repeat"), "mechanism.repeat", msg,
                            msglen, "must be a whole number from 1 to 1e9");
    for (size_t i = from; i < s->npairs && k > 1; i++) {
        for (size_t j = 0; j < s->pairs[i].nsub; j++)
            if (s->pairs[i].sub[j].columns > 0)
                return ga_spec_fail(s, ga_node_get(s->mechanism, "repeat"), "mechanism.repeat",
                                    msg, msglen, "a subsampled sketch is a single release: "
                                    "repeat (independent samples) is not supported yet");
        if (s->pairs[i].masked || s->pairs[i].synth)
            return ga_spec_fail(s, ga_node_get(s->mechanism, "repeat"), "mechanism.repeat", msg,
                                msglen, "masked and synthetic releases are single releases: "
                                "repeat (independent runs) is not supported yet");
    }
    for (size_t i = from; i < s->npairs; i++) {
        ga_spec_pair *p = &s->pairs[i];
        for (size_t j = 0; j < p->nsub; j++) /* k runs of T steps: k T steps */
            p->sub[j].steps *= k;
        p->columns *= k;
        for (size_t b = 0; b < p->nblocks; b++)
            p->blocks[b].columns *= k;
    }
    if (s->verified && k > 1) {
        size_t l = strlen(s->verified_note);
        snprintf(s->verified_note + l, sizeof s->verified_note - l,
                 "; repeated %.0f times (independent runs compose the worst case)", k);
    }
    return GA_OK;
}

/* Is the exact release matrix A (m x d: the decimals whose doubles A->x holds, each within a
 * relative u = 2^-53) of full column rank, proven? Then x -> A x is a bijection onto its range
 * and leaves every divergence and delta unchanged. A is scaled by a power of two (exact), its
 * Gram matrix G = A^T A formed in double, and by Weyl
 *   sigma_min(A)^2 >= lambda_min(fl(G)) - gamma_m F,   F = ||A||_F^2 (the sums' rounding),
 * with lambda_min(fl(G)) bounded below rigorously (numerics/spd.c) from LAPACK's estimate; the
 * decimals move sigma_min by at most ||dA||_2 <= u sqrt(F). Every term is rounded outward. 1:
 * proven injective; 0: not proven (rank-deficient, too ill-conditioned to tell, entries
 * spanning more than 2^400, or no memory). */
static int release_injective(const ga_dataset *A)
{
    const double u = 0x1p-53;
    size_t m = A->n, d = A->d;
    if (m < d || d == 0 || (double)m * u >= 0.01)
        return 0;
    double amax = 0;
    for (size_t i = 0; i < m * d; i++)
        amax = fmax(amax, fabs(A->x[i]));
    if (!(amax > 0) || !isfinite(amax))
        return 0;
    int e = ilogb(amax);
    double *As = malloc(m * d * sizeof *As), *G = calloc(d * d, sizeof *G);
    int ok = 0;
    if (!As || !G)
        goto cleanup;
    double F = 0;
    for (size_t i = 0; i < m * d; i++) {
        As[i] = ldexp(A->x[i], -e); /* exact: |As| in [2^-400, 2) or 0 */
        if (As[i] != 0 && fabs(As[i]) < 0x1p-400)
            goto cleanup;
        F = ga_up(F + ga_up(As[i] * As[i]));
    }
    for (size_t a = 0; a < d; a++)
        for (size_t b = 0; b <= a; b++) {
            double t = 0;
            for (size_t i = 0; i < m; i++)
                t += As[i * d + a] * As[i * d + b];
            G[a * d + b] = G[b * d + a] = t;
        }
    double mu;
    if (ga_spd_eig_min_lower_est(&mu, G, d) != GA_OK || !(mu > 0))
        goto cleanup;
    double mu_ = ga_up((double)m * u), gm = ga_up(mu_ / ga_dn(1 - mu_));
    double lo = ga_dn(mu - ga_up(gm * F));
    /* sqrt(lo) > u sqrt(F), with a factor 4 to spare: lo > 16 u^2 F */
    ok = lo > 0 && lo > ga_up(16 * u * u * F);
cleanup:
    free(As);
    free(G);
    return ok;
}

/* the decimals of release: {matrix: [[...], ...]}, row-major (NULL: the matrix came from a
 * file, or no memory: its doubles are then taken within half an ulp); malloc'd */
static const char **release_texts(const ga_node *rn, size_t m, size_t d)
{
    const ga_node *mx = rn ? ga_node_get(rn, "matrix") : NULL;
    if (!mx || mx->kind != GA_NODE_SEQ || mx->n != m)
        return NULL;
    const char **t = malloc(m * d * sizeof *t);
    for (size_t i = 0; t && i < m; i++) {
        const ga_node *row = mx->kids[i];
        for (size_t j = 0; t && j < d; j++) {
            if (row->kind != GA_NODE_SEQ || row->n != d || row->kids[j]->kind != GA_NODE_SCALAR) {
                free(t);
                t = NULL;
            } else {
                t[i * d + j] = row->kids[j]->text;
            }
        }
    }
    return t;
}

/* pair p released through A: its laws computed from the exact inputs (pair_release.c), or,
 * where that cannot be done rigorously, kept as they are and marked unreleased (an upper
 * bound of the release by post-processing; s->release_note says why) */
static int release_pair(ga_spec *s, ga_spec_pair *p, const ga_dataset *A, const char **atxt)
{
    if (s->release_note[0]) {
        /* an earlier pair could not be released (a rank-deficient A, the deadline, the size):
         * the others would fail alike, at the same cost */
        p->unreleased = 1;
        return GA_OK;
    }
    ga_spec_pair_view v;
    if (ga_spec_pair_view_init(&v, p, 1))
        return GA_ENOMEM;
    ga_release_laws L;
    char why[300] = "";
    int rc = ga_pair_release_laws(&L, v.in, v.txt, A->n, A->x, atxt, s->deadline, why, sizeof why);
    ga_spec_pair_view_clear(&v);
    if (rc == GA_OK) {
        ga_spec_pair_set_laws(p, L.m, L.mu_x, L.s_x, L.mu_y, L.s_y);
        p->rel_kl[0] = L.kl[0];
        p->rel_kl[1] = L.kl[1];
        p->rel_eta = L.eta;
        p->rel_d2[0] = L.d2[0];
        p->rel_d2[1] = L.d2[1];
        return GA_OK;
    }
    if (rc == GA_ETIME)
        snprintf(why, sizeof why, "the deadline passed before the release was computed");
    else if (rc != GA_EDOM)
        return rc;
    p->unreleased = 1;
    if (!s->release_note[0])
        snprintf(s->release_note, sizeof s->release_note, "%s", why);
    return GA_OK;
}

/* release: the released value is A times the output (per column): N(A mu, A S A^T). The
 * proven worst case, if any, is kept as it is: post-processing cannot increase delta, so the
 * unreleased worst case still bounds every released pair. A matrix of full column rank
 * (proven) changes no profile: the pairs stay as built. Otherwise each pair's released laws
 * are computed from the exact inputs (release_pair). */
static int apply_release(ga_spec *s, const ga_dataset *A, size_t from, char *msg, size_t msglen)
{
    if (A->n == 0 || s->release_done)
        return GA_OK; /* no release, or the kind's builder released its pairs itself */
    const ga_node *rn = ga_node_get(s->mechanism, "release");
    size_t m = A->n, d = A->d;
    int rc0 = pairs_fit(s, s->npairs, m, "mechanism.release", msg, msglen); /* caps first */
    if (rc0)
        return rc0;
    /* an injective release changes no pair's profile: the pairs stay as built, exact (their
     * decimals kept), whatever A's scale or conditioning, once its rank is proven */
    int injective = release_injective(A);
    const char **atxt = NULL;
    int rc = GA_OK;
    for (size_t i = from; i < s->npairs && rc == GA_OK; i++) {
        ga_spec_pair *p = &s->pairs[i];
        if (s->verified && i == s->verified_pair)
            continue;
        char what[300];
        if (p->reduced || p->nblocks) {
            snprintf(what, sizeof what, "kind %s builds its pairs in a whitened basis, not in "
                     "the output coordinates a release matrix acts on (matrix_masking, and "
                     "gaussian_mechanism by sensitivity: give the outputs f explicitly)", s->kind);
            rc = ga_spec_fail(s, rn, "mechanism.release", msg, msglen, what);
        } else if (p->d != d) {
            snprintf(what, sizeof what, "the matrix has %zu columns; the output has dimension %zu",
                     d, p->d);
            rc = ga_spec_fail(s, rn, "mechanism.release", msg, msglen, what);
        } else if (!injective) {
            if (!atxt)
                atxt = release_texts(rn, m, d);
            rc = release_pair(s, p, A, atxt);
            if (rc == GA_ENOMEM)
                snprintf(msg, msglen, "out of memory while computing the released laws of "
                         "pair %zu (a %zu x %zu release)", i + 1, m, d);
        }
    }
    free(atxt);
    if (rc)
        return rc;
    if (s->verified) {
        size_t l = strlen(s->verified_note);
        snprintf(s->verified_note + l, sizeof s->verified_note - l,
                 injective ? "; the release matrix has full column rank (proven), so the "
                             "release has the same profile"
                           : "; before the release, which cannot increase delta (so a bound only)");
        s->verified_bound |= !injective;
    }
    return GA_OK;
}


/* ------------------------------------------------------------ composition */

static int kind_row(const char *name);
static const char *kind_knob(int k);
static int kind_universe(int k);
static int build_composition(ga_spec *s, char *msg, size_t msglen);
static int build_kind(ga_spec *s, int k, char *msg, size_t msglen);

/* a deep copy of a plain pair (its arrays; its decimals are the same doc's lists) */
static int pair_copy(ga_spec_pair *dst, const ga_spec_pair *src)
{
    size_t d = src->d;
    memset(dst, 0, sizeof *dst);
    *dst = *src;
    dst->laws_block = 0; /* (four arrays of its own) */
    dst->name = strdup(src->name);
    dst->mu_x = dup(src->mu_x, d);
    dst->mu_y = dup(src->mu_y, d);
    dst->s_x = dup(src->s_x, d * d);
    dst->s_y = dup(src->s_y, d * d);
    dst->nblocks = 0;
    dst->blocks = NULL;
    if (!dst->name || !dst->mu_x || !dst->mu_y || !dst->s_x || !dst->s_y) {
        ga_spec_pair_free(dst);
        return GA_ENOMEM;
    }
    return GA_OK; /* (the decimals' lists are the same doc's) */
}

/* The pairs of one part: built by its kind's row on a view of the spec that shares the
 * dataset, neighbours and universe (a part whose kind does not use a universe ignores it) */
static int build_part(ga_spec *sub, const ga_spec *s, size_t b, char *msg, size_t msglen)
{
    const ga_node *node = ga_node_get(s->mechanism, "parts")->kids[b];
    char path[64];
    snprintf(path, sizeof path, "mechanism.parts[%zu]", b);
    if (node->kind != GA_NODE_MAP)
        return ga_spec_fail(s, node, path, msg, msglen, "expected a mechanism mapping {kind: ...}");
    const ga_node *kn = ga_node_get(node, "kind");
    int k = kn && kn->kind == GA_NODE_SCALAR ? kind_row(kn->text) : -1;
    if (k < 0 || !strcmp(kn->text, "composition") || !strcmp(kn->text, "gaussian_pair"))
        return ga_spec_fail(s, kn ? kn : node, path, msg, msglen,
                            "kind: a mechanism kind of the catalogue other than composition and "
                            "gaussian_pair (the parts share the dataset and the neighbours)");
    *sub = *s;
    sub->drop_data = 0; /* (the dataset is the parent's, shared by every part) */
    sub->mechanism = node;
    sub->kind = kn->text;
    sub->pairs = NULL;
    sub->npairs = sub->cappairs = 0;
    sub->verified = 0;
    sub->verified_pair = 0;
    sub->verified_note[0] = 0;
    sub->release_note[0] = 0;
    sub->truncated = 0;
    sub->release = s->part_release[b];
    sub->nparts = 0;
    sub->part_release = NULL;
    sub->has_universe = s->has_universe && kind_universe(k); /* others ignore it */
    sub->knob = NULL;
    sub->knob_part = 0;
    if (s->knob && s->knob_part == b + 1) {
        /* calibrate tunes this part's noise parameter alone */
        if (!kind_knob(k))
            return ga_spec_fail(s, node, path, msg, msglen, "this part's kind has no noise "
                                "parameter to calibrate");
        sub->knob = kind_knob(k);
        sub->knob_value = s->knob_value;
    } else if (s->knob && !s->knob_part) {
        /* calibrate scales every part's noise parameter by one factor (noise_scale) */
        double v;
        if (!kind_knob(k) || ga_spec_mech_number(sub, kind_knob(k), &v, 0, msg, msglen) != GA_OK)
            return ga_spec_fail(s, node, path, msg, msglen,
                                "calibrate scales the parts' noise: every part needs its noise "
                                "parameter (sigma, noise_sigma for sketch) written out");
        sub->knob = kind_knob(k);
        sub->knob_value = v * s->knob_value;
    }
    int rc = build_kind(sub, k, msg, msglen);
    for (size_t i = 0; rc == GA_OK && i < sub->npairs; i++)
        if (sub->pairs[i].masked || sub->pairs[i].synth)
            rc = ga_spec_fail(s, node, path, msg, msglen, "masked and synthetic releases are not "
                              "Gaussian laws: they do not compose with other parts yet");
    return rc ? rc : apply_repeat(sub, 0, msg, msglen);
}

/* the part whose own worst case has the largest delta at eps: it dominates the composition */
static void dominant_part(ga_spec *s, const ga_spec_pair *worst, const char *const *kind,
                          size_t n, double eps)
{
    size_t best = n;
    double bd = -1;
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t b = 0; b < n && w; b++) {
        ga_pair *p;
        char m[256];
        if (ga_mech_pair_reduce(&p, &worst[b], m, sizeof m))
            continue;
        ga_delta D;
        ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, w);
        double v = fmax(D.xy.val, D.yx.val);
        if (v > bd) {
            bd = v;
            best = b;
        }
        ga_pair_free(p);
    }
    ga_gchisq_work_free(w);
    if (best < n) {
        size_t l = strlen(s->verified_note);
        snprintf(s->verified_note + l, sizeof s->verified_note - l,
                 "; part %zu (%s) dominates: its own worst case has delta(%g) = %.3g", best + 1,
                 kind[best], eps, bd);
    }
}

/* the pairs of part b (built in sub) into the composition's rows: its worst case kept in
 * worst[b], a data-independent part marked for broadcasting, the others moved row by row */
static int take_part(ga_spec *s, ga_spec *sub, size_t b, size_t n, ga_spec_pair ***rows,
                     size_t *N, size_t *first, ga_spec_pair *worst, int *bcast, char *msg,
                     size_t msglen)
{
    if (sub->verified) {
        worst[b] = sub->pairs[sub->verified_pair]; /* moved */
        memset(&sub->pairs[sub->verified_pair], 0, sizeof *sub->pairs);
    }
    if (sub->verified && sub->npairs == 1) {
        bcast[b] = 1; /* a data-independent worst case: the same block for every neighbour */
        return GA_OK;
    }
    size_t cnt = sub->npairs - (size_t)sub->verified;
    if (*first == n) {
        *first = b;
        *N = cnt;
        *rows = calloc(cnt ? cnt : 1, sizeof **rows);
        if (!*rows)
            return GA_ENOMEM;
        for (size_t i = 0; i < cnt; i++)
            if (!((*rows)[i] = calloc(n, sizeof ***rows)))
                return GA_ENOMEM;
    } else if (cnt != *N && !s->truncated) {
        char what[200];
        snprintf(what, sizeof what, "gives %zu neighbouring pairs where part %zu gives %zu: the "
                 "parts must share the neighbours", cnt, *first + 1, *N);
        return ga_spec_fail(s, ga_node_get(s->mechanism, "parts")->kids[b], "mechanism.parts",
                            msg, msglen, what);
    }
    if (cnt < *N)
        *N = cnt; /* the deadline stopped some part earlier: the neighbours all parts reached */
    for (size_t i = 0, j = 0; i < *N; i++, j++) {
        if (sub->verified && j == sub->verified_pair)
            j++; /* the part's own worst case, kept above */
        (*rows)[i][b] = sub->pairs[j]; /* moved: each pair is used once */
        memset(&sub->pairs[j], 0, sizeof *sub->pairs);
    }
    return GA_OK;
}

/* Parts are built one at a time and their pairs moved into the composition's rows at once,
 * so that one part's pairs are alive beside the composition's, not every part's. */
/* A composition with subsampled parts: every part must be subsampled_gaussian or the
 * Gaussian mechanism by sensitivity (a subsampled step with q = 1 and noise sigma/sensitivity,
 * its columns the steps); the remove pair is the product of the parts' remove pairs and the
 * add pair that of their add pairs, each one subsampled pair of all the parts' terms. The same
 * record in every part attains both: they are the proven worst case (not only a bound). */
static int compose_subsampled(ga_spec *s, char *msg, size_t msglen)
{
    size_t n = s->nparts, nt = 0;
    ga_subsampled_input *t[2] = {calloc(n, sizeof **t), calloc(n, sizeof **t)};
    int rc = t[0] && t[1] ? GA_OK : GA_ENOMEM;
    for (size_t b = 0; b < n && rc == GA_OK; b++) {
        ga_spec sub;
        memset(&sub, 0, sizeof sub);
        rc = build_part(&sub, s, b, msg, msglen);
        s->truncated |= sub.truncated;
        if (rc == GA_OK) {
            const ga_spec_pair *p0 = sub.npairs ? &sub.pairs[0] : NULL;
            if (sub.npairs == 2 && p0->nsub == 1 && sub.pairs[1].nsub == 1 && p0->sub->columns == 0) {
                t[0][nt] = *p0->sub; /* texts point into the doc, which outlives the spec */
                t[1][nt++] = sub.pairs[1].sub[0];
            } else if (sub.npairs == 1 && sub.verified && p0->d == 1 && !p0->nblocks &&
                       p0->s_x[0] == p0->s_y[0] && p0->mu_y[0] == 0 && p0->mu_x[0] != 0) {
                /* the Gaussian mechanism by sensitivity: N(D, s^2) vs N(0, s^2), r columns */
                ga_subsampled_input g = {1, sqrt(p0->s_x[0]) / fabs(p0->mu_x[0]), p0->columns,
                                         0, NULL, NULL, 0, 0, NULL};
                if (p0->sd_txt && p0->mean_txt && p0->mu_x[0] > 0 && p0->mu_x[0] <= 1e6 &&
                    sqrt(p0->s_x[0]) >= 1e-3) {
                    /* m = norm/sigma from the spec's decimals (texts into the doc) */
                    g.sigma = sqrt(p0->s_x[0]);
                    g.norm = p0->mu_x[0];
                    g.sigma_txt = p0->sd_txt;
                    g.norm_txt = p0->mean_txt;
                }
                t[0][nt] = g;
                g.add = 1;
                t[1][nt++] = g;
            } else {
                char path[64];
                snprintf(path, sizeof path, "mechanism.parts[%zu]", b);
                rc = ga_spec_fail(s, ga_node_get(s->mechanism, "parts")->kids[b], path, msg, msglen,
                                  "a composition with subsampled_gaussian parts takes only "
                                  "subsampled_gaussian parts and gaussian_mechanism parts by "
                                  "sensitivity (data-dependent Gaussian pairs and subsampled "
                                  "sketches do not compose with a subsampled loss yet)");
            }
        }
        ga_spec_reset_pairs(&sub);
        free(sub.pairs);
    }
    for (int add = 0; add < 2 && rc == GA_OK; add++) {
        char name[96];
        snprintf(name, sizeof name, "%s one record in every part (%s)", add ? "add" : "remove",
                 add ? "X without it, Y with it" : "X with it, Y without it");
        if ((rc = ga_spec_add_pair(s, name, 1, 1, NULL, NULL, NULL, NULL)))
            break;
        ga_spec_pair *p = &s->pairs[s->npairs - 1];
        p->reduced = 1;
        p->nsub = nt;
        p->sub = t[add];
        t[add] = NULL;
    }
    if (rc == GA_OK) {
        s->verified = 1;
        s->verified_pair = s->npairs - 2;
        snprintf(s->verified_note, sizeof s->verified_note,
                 "worst case of the composition: the same record removed or added in every part "
                 "(%zu parts; each part's pairs are its proven worst case)", n);
    }
    free(t[0]);
    free(t[1]);
    return rc;
}

/* does some part have kind subsampled_gaussian? */
static int has_subsampled_part(const ga_spec *s)
{
    const ga_node *parts = ga_node_get(s->mechanism, "parts");
    for (size_t b = 0; parts && parts->kind == GA_NODE_SEQ && b < parts->n; b++) {
        const ga_node *kn = parts->kids[b] ? ga_node_get(parts->kids[b], "kind") : NULL;
        if ((kn && kn->kind == GA_NODE_SCALAR && kn->text && !strcmp(kn->text, "subsampled_gaussian")) ||
            (parts->kids[b] && ga_node_get(parts->kids[b], "subsampling")))
            return 1;
    }
    return 0;
}

static int build_composition(ga_spec *s, char *msg, size_t msglen)
{
    if (ga_node_get(s->mechanism, "parts") && has_subsampled_part(s)) {
        static const char *const ckeys[] = {"kind", "parts", NULL};
        int rc0 = ga_spec_check_map(s, s->mechanism, "mechanism", ckeys, msg, msglen);
        return rc0 ? rc0 : compose_subsampled(s, msg, msglen);
    }
    static const char *const keys[] = {"kind", "parts", NULL};
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen);
    if (rc)
        return rc;
    if (s->release.n)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                            msglen, "a composition releases its parts' outputs: put release on "
                            "the parts");
    size_t n = s->nparts, N = 0, first = n, nrows = 0;
    ga_spec_pair **rows = NULL, *worst = calloc(n, sizeof *worst);
    int *bcast = calloc(n, sizeof *bcast), all_verified = 1, any_bound = 0;
    size_t ndep = 0;
    const char **kindname = calloc(n, sizeof *kindname);
    if (!worst || !bcast || !kindname) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    for (size_t b = 0; b < n && rc == GA_OK; b++) {
        ga_spec sub;
        memset(&sub, 0, sizeof sub); /* build_part may fail before it fills sub */
        rc = build_part(&sub, s, b, msg, msglen);
        s->truncated |= sub.truncated;
        if (sub.release_note[0] && !s->release_note[0])
            snprintf(s->release_note, sizeof s->release_note, "part %zu: %.360s", b + 1,
                     sub.release_note);
        all_verified &= sub.verified;
        any_bound |= sub.verified && sub.verified_bound;
        ndep += rc == GA_OK && !(sub.verified && sub.npairs == 1);
        kindname[b] = sub.kind;
        if (rc == GA_OK) {
            size_t had = first;
            rc = take_part(s, &sub, b, n, &rows, &N, &first, worst, bcast, msg, msglen);
            if (had == n && first < n)
                nrows = N; /* rows allocated (freed below up to nrows) */
        }
        ga_spec_reset_pairs(&sub);
        free(sub.pairs);
    }
    if (rc)
        goto cleanup;
    if (first == n) { /* every part is data-independent: one composed pair */
        N = nrows = 1;
        if (!(rows = calloc(1, sizeof *rows)) || !(rows[0] = calloc(n, sizeof **rows))) {
            rc = GA_ENOMEM;
            goto cleanup;
        }
    }
    int with_worst = all_verified && first < n;
    if ((rc = pairs_fit(s, N + (size_t)with_worst, 1, "mechanism.parts", msg, msglen)))
        goto cleanup;
    if (all_verified) {
        snprintf(s->verified_note, sizeof s->verified_note,
                 "worst case of the composition: the parts' proven worst cases composed "
                 "(composing preserves the order of privacy profiles: Dong, Roth & Su 2022, "
                 "Lemma 3.2)");
        double eps = s->has_focus_eps ? s->focus_eps : s->claim.has_eps_delta ? s->claim.epsilon : 1;
        dominant_part(s, worst, kindname, n, eps);
    }
    for (size_t i = 0; i < N && rc == GA_OK; i++) {
        for (size_t b = 0; b < n && rc == GA_OK; b++)
            if (bcast[b])
                rc = pair_copy(&rows[i][b], &worst[b]);
        if (rc)
            break;
        char name[300];
        snprintf(name, sizeof name, "%s", first < n && rows[i][first].name
                 ? rows[i][first].name : "worst case: the parts' worst cases composed");
        rc = ga_spec_add_product(s, name, rows[i], n); /* takes rows[i] */
        rows[i] = NULL;
    }
    if (rc == GA_OK && with_worst) {
        rc = ga_spec_add_product(s, "universe worst case: the parts' proven worst cases composed",
                                 worst, n);
        worst = NULL;
    }
    if (rc == GA_OK && all_verified) {
        s->verified = 1;
        s->verified_pair = s->npairs - 1;
        /* worst cases of two parts may come from different neighbours: a bound */
        s->verified_bound = ndep > 1 || any_bound;
    }
cleanup:
    for (size_t i = 0; rows && i < nrows; i++)
        if (rows[i]) {
            for (size_t b = 0; b < n; b++)
                ga_spec_pair_free(&rows[i][b]);
            free(rows[i]);
        }
    free(rows);
    for (size_t b = 0; worst && b < n; b++)
        ga_spec_pair_free(&worst[b]);
    free(worst);
    free(bcast);
    free(kindname);
    return rc;
}

/* Poisson-subsampled Gaussian (DP-SGD accounting): rate q, noise multiplier sigma, steps T.
 * Its pairs are not Gaussian: the remove pair (X: the record is in the data) and the add pair
 * (Y: it is), each a composition of T subsampled steps (numerics/ploss.c). Every pair of
 * neighbouring datasets (add/remove one record, gradients clipped to norm 1) is dominated
 * by these two (the sum with and without a unit vector, by rotation invariance; Zhu, Dong &
 * Wang 2022, Section 4), and their two directions cover each other: the pairs are the proven
 * worst case. */
static int build_subsampled(ga_spec *s, char *msg, size_t msglen)
{
    static const char *const keys[] = {"kind", "rate", "sigma", "steps", NULL};
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen);
    if (rc)
        return rc;
    if (s->release.n)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                            msglen, "a subsampled Gaussian release is a mixture, not a Gaussian "
                            "law: a linear map of it is not supported");
    double q, sigma, steps = 1;
    if ((rc = ga_spec_mech_number(s, "rate", &q, 1, msg, msglen)))
        return rc;
    if (!(q > 0 && q <= 1))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "rate"), "mechanism.rate", msg, msglen,
                            "must be in (0, 1] (the Poisson sampling rate)");
    if ((rc = ga_spec_mech_number(s, "sigma", &sigma, 1, msg, msglen)))
        return rc;
    if (!(sigma >= 1e-3 && sigma <= 1e6))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "sigma"), "mechanism.sigma", msg, msglen,
                            "must be in [0.001, 1e6] (the noise multiplier)");
    rc = ga_spec_mech_number(s, "steps", &steps, 0, msg, msglen);
    if (rc > 0)
        return rc;
    if (!(steps >= 1 && steps <= 1e9 && steps == floor(steps)))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "steps"), "mechanism.steps", msg, msglen,
                            "must be a whole number in 1..1e9");
    const ga_node *qn = ga_node_get(s->mechanism, "rate"), *sn = ga_node_get(s->mechanism, "sigma");
    int knobbed = s->knob && !strcmp(s->knob, "sigma");
    /* calibrate: the double tried, not the decimal */
    ga_subsampled_input t = {q, sigma, steps, 0, qn->text, knobbed ? NULL : sn->text, 0, 0, NULL};
    static const char names[2][160] = {"remove one record (X with it, Y without it)",
                                       "add one record (X without it, Y with it)"};
    if ((rc = add_subsampled_pairs(s, &t, names)))
        return rc;
    snprintf(s->verified_note, sizeof s->verified_note,
             "worst case over all add/remove neighbours with gradients of norm <= 1 (every such "
             "pair is dominated by the subsampled sum with and without a unit vector; %.0f "
             "steps at rate %g, noise multiplier %g)", steps, q, sigma);
    return GA_OK;
}

/* The table of kinds, one row each: adding a kind is a row here, its builder (and its
 * published calibrations, if any) above, and its documentation. */
static const struct {
    const char *name;
    const char *knob;      /* the noise parameter calibrate tunes (NULL: none) */
    int universe;          /* accepts universe: {row_norm_bound} (a proven worst case) */
    int target;            /* the last dataset column is a target: change_label applies (2:
                              the output mean is linear in it and the covariance free of it,
                              so the label-DP worst case is proven) */
    int (*build)(ga_spec *s, char *msg, size_t msglen);
    /* published calibrations to compare with the exact one (NULL: none known) */
    size_t (*published)(ga_mech_published *pv, size_t max, ga_spec *s, double eps,
                        double delta, double value, ga_gchisq_work *w);
    /* does the builder hold this spec's pairs as a row family (ga_spec_family)? Then no room
     * is reserved for their records (NULL: never) */
    int (*family)(const ga_spec *s);
} kinds[] = {
    {"gaussian_pair", "noise_scale", 0, 0, build_explicit, NULL, NULL},
    {"gaussian_mechanism", "sigma", 0, 0, build_gaussian_mechanism, pub_gaussian_mechanism, NULL},
    {"sketch", "noise_sigma", 1, 0, build_sketch, pub_sketch, sketch_family},
    {"linear_regression", "sigma", 1, 1, build_regression_kind, pub_linear_regression, NULL},
    {"bayesian_logistic_regression", "sigma", 0, 1, build_regression_kind, NULL, NULL},
    {"gaussian_process_regression", "sigma", 0, 2, build_regression_kind, NULL, NULL},
    {"output_perturbation", "sigma", 0, 2, build_regression_kind, NULL, NULL},
    {"noisy_gradient_descent", "sigma", 0, 2, build_regression_kind, NULL, NULL},
    {"matrix_masking", "sigma", 1, 0, build_matrix_masking, pub_matrix_masking, NULL},
    {"composition", "noise_scale", 1, 1, build_composition, NULL, NULL},
    {"subsampled_gaussian", "sigma", 0, 0, build_subsampled, NULL, NULL},
    {"synthetic_random_inputs", "sigma", 0, 1, build_synthetic, NULL, NULL},
};
#define NKINDS (sizeof kinds / sizeof *kinds)

static int kind_row(const char *name)
{
    for (size_t i = 0; name && i < NKINDS; i++)
        if (!strcmp(name, kinds[i].name))
            return (int)i;
    return -1;
}

int ga_mech_pair_reduce(ga_pair **out, const ga_spec_pair *sp, char *msg, size_t msglen)
{
    ga_spec_pair_view v;
    *out = NULL;
    if (sp->nsub)
        return ga_pair_reduce_subsampled(out, sp->sub, sp->nsub, msg, msglen);
    if (sp->masked)
        return ga_pair_reduce_masked(out, sp->masked, msg, msglen);
    if (sp->synth)
        return ga_pair_reduce_synthetic(out, sp->synth, msg, msglen);
    if (ga_spec_pair_view_init(&v, sp, 0))
        return GA_ENOMEM;
    int rc = ga_pair_reduce_product(out, v.in, v.n, msg, msglen);
    ga_spec_pair_view_clear(&v);
    /* rounded laws (a release): Pinsker's TV <= sqrt(KL / 2), the KL of r columns r times,
     * of a product's blocks their sum */
    double kl[2] = {0, 0}, eta = 0;
    size_t nb = sp->nblocks ? sp->nblocks : 1;
    for (size_t b = 0; b < nb; b++) {
        const ga_spec_pair *q = sp->nblocks ? &sp->blocks[b] : sp;
        double r = q->columns >= 1 ? q->columns : 1;
        for (int w = 0; w < 2; w++)
            if (q->rel_kl[w] > 0) /* (ga_up(0) is the smallest subnormal, not 0) */
                kl[w] = ga_up(kl[w] + ga_up(r * q->rel_kl[w]));
        eta += q->rel_eta;
    }
    if (rc == GA_OK && (kl[0] > 0 || kl[1] > 0)) {
        ga_pair_set_input_tv(*out, fmin(1, ga_up(sqrt(ga_up(kl[0] / 2)))),
                             fmin(1, ga_up(sqrt(ga_up(kl[1] / 2)))), eta);
        if (!sp->nblocks && sp->rel_d2[1] > 0)
            ga_pair_set_input_d2(*out, sp->rel_d2[0], sp->rel_d2[1]);
    }
    return rc;
}

int ga_mech_pair_rebuildable(const ga_spec_pair *sp)
{
    if (ga_spec_pair_is_loss(sp))
        return 0;
    if (sp->nblocks == 0)
        return sp->d == 1;
    for (size_t b = 0; b < sp->nblocks; b++)
        if (!ga_mech_pair_rebuildable(&sp->blocks[b]))
            return 0;
    return 1;
}

const ga_pair *ga_mech_pair_use(const ga_pair *kept, const ga_spec_pair *sp, ga_pair **own)
{
    *own = NULL;
    if (kept)
        return kept;
    if (ga_mech_pair_reduce(own, sp, NULL, 0) != GA_OK) {
        ga_pair_free(*own);
        *own = NULL;
    }
    return *own;
}

static const char *kind_knob(int k)
{
    return kinds[k].knob;
}

static int kind_universe(int k)
{
    return kinds[k].universe;
}

const char *ga_mech_kind_at(size_t i)
{
    return i < NKINDS ? kinds[i].name : NULL;
}

size_t ga_mech_published_values(ga_mech_published *pv, size_t max, ga_spec *s, double eps,
                                double delta, double value, ga_gchisq_work *w)
{
    int k = kind_row(s->kind);
    return k < 0 || !kinds[k].published ? 0 : kinds[k].published(pv, max, s, eps, delta, value, w);
}

const char *ga_mech_knob(const ga_spec *s)
{
    int k = kind_row(s->kind);
    return k < 0 ? NULL : kinds[k].knob;
}

/* universe: only the kinds that use it accept it, and every given row must obey it */
static int check_universe(ga_spec *s, char *msg, size_t msglen)
{
    if (!s->has_universe)
        return GA_OK;
    int k = kind_row(s->kind);
    if (k < 0 || !kinds[k].universe) {
        char what[300], list[160] = "";
        for (size_t i = 0; i < NKINDS; i++)
            if (kinds[i].universe) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", kinds[i].name);
            }
        snprintf(what, sizeof what, "kind '%s' does not use a universe (%s do): remove it",
                 s->kind, list);
        return ga_spec_fail(s, s->universe, "universe", msg, msglen, what);
    }
    const ga_dataset *sets[2] = {&s->data, &s->candidates};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sets[k]->n; i++) {
            double t = 0;
            for (size_t j = 0; j < sets[k]->d; j++)
                t += sets[k]->x[i * sets[k]->d + j] * sets[k]->x[i * sets[k]->d + j];
            if (sqrt(t) > s->row_norm_bound * (1 + 1e-12)) {
                char what[200];
                snprintf(what, sizeof what, "%s row %zu has norm %.17g > row_norm_bound %.17g",
                         k ? "candidate" : "dataset", i + 1, sqrt(t), s->row_norm_bound);
                return ga_spec_fail(s, s->universe, "universe.row_norm_bound", msg, msglen, what);
            }
        }
    return GA_OK;
}

/* a kind's pairs: its universe check, caps, its builder */
/* change_label: only kinds with a target; a bound unless the labels are binary */
static int check_labels(ga_spec *s, int k, char *msg, size_t msglen)
{
    if (s->relation != GA_REL_CHANGE_LABEL)
        return GA_OK;
    if (!kinds[k].target) {
        char what[300], list[200] = "";
        for (size_t i = 0; i < NKINDS; i++)
            if (kinds[i].target && strcmp(kinds[i].name, "composition")) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", kinds[i].name);
            }
        snprintf(what, sizeof what, "change_label needs a kind whose dataset ends with a target "
                 "(%s); kind %s has none", list, s->kind);
        return ga_spec_fail(s, s->mechanism, "neighbours.relation", msg, msglen, what);
    }
    if (!label_flip(s) && !(s->label_bound > 0) && strcmp(s->kind, "composition"))
        return ga_spec_fail(s, s->mechanism, "neighbours.label_bound", msg, msglen,
                            "missing: change_label on a continuous target needs the largest "
                            "change C, {relation: change_label, label_bound: C}");
    return GA_OK;
}

/* Label DP where the output mean is linear in the labels and the covariance does not depend
 * on them (the kinds' target = 2): changing row i's label by c moves the mean by c u_i and
 * leaves the covariance S, so the pair is a Gaussian mechanism whose profile increases with
 * |c| sqrt(u_i^T S^{-1} u_i); the audited pairs (c = +-C for every row) contain the worst
 * case over every label change of at most C: the pair with the largest Mahalanobis distance. */
/* columns x the squared Mahalanobis distance of an equal-covariance pair (a product: the sum
 * over its blocks); -1 when some covariances differ (bit for bit) or are not definite */
static double pair_d2(const ga_spec_pair *p)
{
    if (p->nblocks) {
        double t = 0;
        for (size_t b = 0; b < p->nblocks; b++) {
            double u = pair_d2(&p->blocks[b]);
            if (u < 0)
                return -1;
            t += u;
        }
        return t;
    }
    size_t d = p->d;
    if (memcmp(p->s_x, p->s_y, d * d * sizeof *p->s_x))
        return -1;
    double *L = malloc(d * d * sizeof *L), *v = malloc(d * sizeof *v), t = -1;
    if (L && v) {
        memcpy(L, p->s_x, d * d * sizeof *L);
        for (size_t j = 0; j < d; j++)
            v[j] = p->mu_x[j] - p->mu_y[j];
        if (ga_lapack_potrf('L', d, L, d) == 0) {
            ga_cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)d, L, (int)d, v, 1);
            t = p->columns * ga_cblas_ddot((int)d, v, 1, v, 1);
        }
    }
    free(L);
    free(v);
    return t;
}

static int label_worst_case(ga_spec *s)
{
    size_t best = 0;
    double bd = -1;
    if (s->truncated || s->rows || s->npairs == 0)
        return GA_OK; /* not every row was audited: no proof */
    for (size_t i = 0; i < s->npairs; i++) {
        double t = pair_d2(&s->pairs[i]);
        if (t < 0)
            return GA_OK; /* not a Gaussian mechanism after all: no proof */
        if (t > bd) {
            bd = t;
            best = i;
        }
    }
    if (s->pairs[best].nblocks) { /* a product: its blocks copied into the worst case */
        size_t n = s->pairs[best].nblocks;
        ga_spec_pair *blocks = calloc(n, sizeof *blocks);
        int rc = blocks ? GA_OK : GA_ENOMEM;
        for (size_t b = 0; b < n && rc == GA_OK; b++)
            rc = pair_copy(&blocks[b], &s->pairs[best].blocks[b]);
        char name[200];
        snprintf(name, sizeof name, "label-DP worst case: %s", s->pairs[best].name);
        if (rc == GA_OK) {
            rc = ga_spec_add_product(s, name, blocks, n);
        } else if (blocks) {
            for (size_t b = 0; b < n; b++)
                ga_spec_pair_free(&blocks[b]);
            free(blocks);
        }
        if (rc)
            return rc;
        goto proven;
    }
    /* appended as a pair of its own, as every kind's proven worst case is */
    ga_spec_pair w;
    int rc = pair_copy(&w, &s->pairs[best]);
    if (rc)
        return rc;
    char name[200];
    snprintf(name, sizeof name, "label-DP worst case: %s", s->pairs[best].name);
    free(w.name);
    if ((rc = ga_spec_add_pair(s, name, w.d, w.columns, w.mu_x, w.s_x, w.mu_y, w.s_y)))
        return rc;
proven:
    s->verified = 1;
    s->verified_pair = s->npairs - 1;
    snprintf(s->verified_note, sizeof s->verified_note,
             "worst case over every change of one label by at most %g (the output mean is "
             "linear in the labels and the covariance free of them, so the pair with the "
             "largest Mahalanobis distance dominates every label change)", s->label_bound);
    return GA_OK;
}

/* ------------------------------------------------------------ relative DP */

/* append the pair p (its laws moved into s) under name */
static int pair_room_move(ga_spec *s, ga_spec_pair *p, const char *name)
{
    ga_spec_pair q = {.d = p->d, .columns = p->columns, .mu_x = p->mu_x, .s_x = p->s_x,
                      .mu_y = p->mu_y, .s_y = p->s_y, .reduced = p->reduced,
                      .laws_block = p->laws_block};
    return ga_spec_add_moved(s, name, &q);
}

/* lexicographic order of rows a and b of D */
static int row_cmp(const ga_dataset *D, size_t a, size_t b)
{
    const double *x = D->x + a * D->d, *y = D->x + b * D->d;
    for (size_t j = 0; j < D->d; j++)
        if (x[j] != y[j])
            return x[j] < y[j] ? -1 : 1;
    return 0;
}

/* the rows of D sorted lexicographically (an index permutation; bottom-up merge sort, so no
 * comparison context in a global) */
static size_t *sorted_rows(const ga_dataset *D)
{
    size_t n = D->n, *ix = malloc((n ? n : 1) * sizeof *ix), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!ix || !tmp) {
        free(ix);
        free(tmp);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid || b < hi)
                tmp[o++] = b >= hi || (a < mid && row_cmp(D, ix[a], ix[b]) <= 0) ? ix[a++] : ix[b++];
        }
        memcpy(ix, tmp, n * sizeof *ix);
    }
    free(tmp);
    return ix;
}

/* Multiset difference of A and B (sorted indices ia, ib): the rows of A not matched in B (at
 * most 2 kept in onlya) and of B not in A. Returns the counts through na, nb. */
static void multiset_diff(const ga_dataset *A, const size_t *ia, const ga_dataset *B,
                          const size_t *ib, size_t *onlya, size_t *na, size_t *onlyb, size_t *nb)
{
    size_t i = 0, j = 0, d = A->d;
    *na = *nb = 0;
    while (i < A->n || j < B->n) {
        int c = i >= A->n ? 1 : j >= B->n ? -1 : 0;
        if (!c)
            for (size_t k = 0; k < d && !c; k++) {
                double x = A->x[ia[i] * d + k], y = B->x[ib[j] * d + k];
                c = x == y ? 0 : x < y ? -1 : 1;
            }
        if (c == 0) {
            i++;
            j++;
        } else if (c < 0) {
            if (*na < 2)
                onlya[*na] = ia[i];
            ++*na;
            i++;
        } else {
            if (*nb < 2)
                onlyb[*nb] = ib[j];
            ++*nb;
            j++;
        }
    }
}

/* The pairs of relative DP: for every two datasets of the set that are neighbours under the
 * relation (D' = D minus a row, plus a row, with a row replaced or zeroed), the kind's pair
 * for that one change, built by its own builder on a view of the spec with data D and the
 * change as its only neighbour. X is the law on the first dataset, Y on the second. */
static int build_relative(ga_spec *s, int k, char *msg, size_t msglen)
{
    if (!strcmp(s->kind, "gaussian_mechanism") || !strcmp(s->kind, "composition"))
        return ga_spec_fail(s, s->mechanism, "relative", msg, msglen,
                            "relative DP needs a kind whose output law is computed from the "
                            "dataset (not gaussian_mechanism or composition)");
    if (s->rows || s->candidates.n || s->has_universe)
        return ga_spec_fail(s, s->mechanism, "relative", msg, msglen,
                            "with relative, the neighbours are the pairs within the set: give "
                            "only neighbours: RELATION (no rows, candidates or universe)");
    int rel = s->relation ? s->relation : GA_REL_REMOVE_ONE;
    if (rel == GA_REL_CHANGE_LABEL)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "relative DP supports remove_one, add_one, replace_one, zero_out");
    size_t m = s->nrel, found = 0;
    size_t **ix = calloc(m, sizeof *ix);
    int rc = ix ? GA_OK : GA_ENOMEM;
    for (size_t i = 0; i < m && rc == GA_OK; i++)
        if (!(ix[i] = sorted_rows(&s->rel_sets[i])))
            rc = GA_ENOMEM;
    for (size_t i = 0; i < m && rc == GA_OK; i++)
        for (size_t j = 0; j < m && rc == GA_OK; j++) {
            if (i == j || (rel == GA_REL_REPLACE_ONE && j < i) || out_of_time(s, m * m))
                continue;
            const ga_dataset *A = &s->rel_sets[i], *B = &s->rel_sets[j];
            size_t oa[2], ob[2], na, nb;
            multiset_diff(A, ix[i], B, ix[j], oa, &na, ob, &nb);
            int remove = rel == GA_REL_REMOVE_ONE && na == 1 && nb == 0;
            int add = rel == GA_REL_ADD_ONE && na == 0 && nb == 1;
            int repl = (rel == GA_REL_REPLACE_ONE || rel == GA_REL_ZERO_OUT) && na == 1 && nb == 1;
            if (repl && rel == GA_REL_ZERO_OUT)
                for (size_t c = 0; c < B->d; c++)
                    repl &= B->x[ob[0] * B->d + c] == 0;
            if (!remove && !add && !repl)
                continue;
            ga_spec sub = *s;
            sub.drop_data = 0; /* (the set's dataset) */
            size_t row = oa[0];
            sub.data = *A;
            sub.nrel = 0;
            sub.rel_sets = NULL;
            sub.relation = rel;
            sub.rows = remove || repl ? &row : NULL;
            sub.nrows_sel = remove || repl ? 1 : 0;
            memset(&sub.candidates, 0, sizeof sub.candidates);
            if (add || (repl && rel == GA_REL_REPLACE_ONE)) {
                sub.candidates.n = 1;
                sub.candidates.d = B->d;
                sub.candidates.x = B->x + ob[0] * B->d;
            }
            sub.pairs = NULL;
            sub.npairs = sub.cappairs = 0;
            sub.verified = 0;
            rc = kinds[k].build(&sub, msg, msglen);
            if (rc == GA_OK && sub.npairs == 1) {
                char name[300];
                snprintf(name, sizeof name, "datasets[%zu] -> datasets[%zu]: %s", i + 1, j + 1,
                         sub.pairs[0].name);
                ga_spec_pair p = sub.pairs[0];
                free(p.name);
                p.name = NULL;
                memset(&sub.pairs[0], 0, sizeof sub.pairs[0]);
                /* moved into s under its new name */
                rc = pair_room_move(s, &p, name);
                found++;
            }
            ga_spec_reset_pairs(&sub);
            free(sub.pairs);
        }
    for (size_t i = 0; ix && i < m; i++)
        free(ix[i]);
    free(ix);
    if (rc == GA_OK && found == 0 && !s->truncated)
        rc = ga_spec_fail(s, s->mechanism, "relative.datasets", msg, msglen,
                          "no two datasets of the set are neighbours under the relation");
    return rc;
}

/* a kind's pairs: its universe and label checks, caps, its builder */
static int build_kind(ga_spec *s, int k, char *msg, size_t msglen)
{
    int rc = check_universe(s, msg, msglen);
    if (rc || (rc = check_labels(s, k, msg, msglen)))
        return rc;
    /* (a row family holds its pairs without records: room for them would be wasted) */
    int fam = kinds[k].family && kinds[k].family(s);
    if ((rc = (fam ? pairs_cap : pairs_fit)(s, nb_count(s), 1, "neighbours", msg, msglen)))
        return rc;
    rc = s->nrel ? build_relative(s, k, msg, msglen) : kinds[k].build(s, msg, msglen);
    if (rc == GA_OK && ga_spec_npairs(s) == 0 && !s->truncated)
        rc = ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                          "no neighbouring pair to audit (empty candidate list or row selection)");
    /* the release before the label proof: the proof then holds for the released laws */
    if (rc == GA_OK)
        rc = apply_release(s, &s->release, 0, msg, msglen);
    if (rc == GA_OK && s->relation == GA_REL_CHANGE_LABEL && kinds[k].target == 2)
        rc = label_worst_case(s);
    return rc;
}

int ga_mech_build(ga_spec *s, char *msg, size_t msglen)
{
    int k = kind_row(s->kind);
    if (k < 0) /* ga_spec_parse checks the names it is given; this is the backstop */
        return ga_spec_fail(s, s->mechanism, "mechanism.kind", msg, msglen, "unknown kind");
    if (msg && msglen)
        msg[0] = 0;
    int rc = kinds[k].build != build_explicit ? build_kind(s, k, msg, msglen)
             : (rc = build_explicit(s, msg, msglen)) ? rc : apply_release(s, &s->release, 0, msg, msglen);
    rc = rc ? rc : apply_repeat(s, 0, msg, msglen);
    if (rc == GA_ENOMEM && msg && msglen && !msg[0]) { /* (a builder's allocation, unnamed) */
        size_t d = s->npairs ? s->pairs[s->npairs - 1].d : 0;
        char size[96] = "";
        if (d)
            snprintf(size, sizeof size, "; the laws take %.3g MB per pair of dimension %zu",
                     (2.0 * (double)d * (double)d + 2.0 * (double)d) * 8e-6, d);
        ga_msg(msg, msglen, "%s: out of memory while building the neighbouring pairs (%zu "
               "built%s)", s->path, ga_spec_npairs(s), size);
    }
    return rc;
}

int ga_mech_part_knob(const ga_spec *s, size_t part, const char **knob, double *current)
{
    const ga_node *parts = ga_node_get(s->mechanism, "parts");
    *knob = NULL;
    *current = NAN;
    if (!s->kind || strcmp(s->kind, "composition") || !parts || part < 1 || part > parts->n)
        return GA_EINVAL;
    const ga_node *node = parts->kids[part - 1], *kn = node ? ga_node_get(node, "kind") : NULL;
    int k = kn && kn->kind == GA_NODE_SCALAR ? kind_row(kn->text) : -1;
    if (k < 0 || !kinds[k].knob)
        return GA_EINVAL;
    *knob = kinds[k].knob;
    const ga_node *v = ga_node_get(node, kinds[k].knob);
    if (v && v->kind == GA_NODE_SCALAR)
        ga_decimal_to_double(current, v->text);
    return GA_OK;
}

int ga_mech_rebuild(ga_spec *s, double value, char *msg, size_t msglen)
{
    const char *k = ga_mech_knob(s);
    if (!k)
        return GA_EDOM;
    if (s->data.n && !s->data.x) { /* (loaded with drop_data: a caller's mistake) */
        ga_msg(msg, msglen, "%s: the dataset's values were freed after the first build "
               "(drop_data): the pairs cannot be rebuilt", s->path);
        return GA_EINVAL;
    }
    if (!strcmp(s->kind, "gaussian_pair") && !s->explicit_orig) {
        /* keep the pairs as written: every rebuild scales them afresh */
        s->explicit_orig = s->pairs;
        s->nexplicit_orig = s->npairs;
        s->pairs = NULL;
        s->npairs = s->cappairs = 0;
    }
    ga_spec_reset_pairs(s);
    s->knob = k;
    s->knob_value = value;
    return ga_mech_build(s, msg, msglen);
}

int ga_mech_load(ga_spec *s, const char *path, const ga_spec_opts *o, char *msg, size_t msglen)
{
    ga_spec_opts so = {0};
    if (o)
        so = *o;
    so.kind_at = ga_mech_kind_at; /* the parser checks kind names against the table */
    int rc = ga_spec_load_opts(s, path, &so, msg, msglen);
    if (rc == GA_OK && (rc = ga_mech_build(s, msg, msglen)))
        ga_spec_clear(s);
    return rc;
}

int ga_mech_parse(ga_spec *s, const char *text, size_t len, const char *name,
                  const ga_spec_opts *o, char *msg, size_t msglen)
{
    ga_spec_opts so = {0};
    if (o)
        so = *o;
    so.kind_at = ga_mech_kind_at;
    int rc = ga_spec_parse_opts(s, text, len, name, &so, msg, msglen);
    if (rc == GA_OK && (rc = ga_mech_build(s, msg, msglen)))
        ga_spec_clear(s);
    return rc;
}

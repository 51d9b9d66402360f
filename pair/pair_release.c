/*
 * pair_release.c - the laws of a pair released through a public matrix A, from the exact
 * inputs.
 *
 * The release of X ~ N(mu_x, S_x) is A X ~ N(A mu_x, A S_x A^T), likewise for Y. Forming
 * A S A^T in double precision loses everything the spec says once A is badly scaled (A S A^T
 * under- or overflows) or ill-conditioned (the released covariance has a condition number
 * near 1e16, where its rounding is as large as its smallest eigenvalue). Here:
 *
 * 1. Rows of A that are zero or that repeat an earlier row digit for digit are left out: the
 *    release is a function of the remaining rows and back. Each remaining row is scaled by a
 *    power of two, and both laws by a common power of two (exact, and bijections).
 * 2. In ball arithmetic, from the exact decimals (or from doubles within half an ulp where a
 *    CSV file gave A), the released covariance M_y = A S_y A^T is formed and a floating basis
 *    T found with T M_y T^T close to I: a Cholesky factor of M_y, in double where its
 *    midpoint factors and in ball arithmetic at rising precision where it does not (an
 *    ill-conditioned A), inverted in double, refined up to three times. Any invertible T
 *    will do: (T A X, T A Y) is a bijective function of (A X, A Y), so the two pairs have
 *    the same hockey-stick divergences. T A S_y A^T T^T positive definite (shown below)
 *    proves both T invertible and A of full row rank; a matrix whose rows could not be
 *    proven independent at 2048 bits is refused (the caller then keeps the unreleased pair,
 *    an upper bound by post-processing).
 * 3. The laws P_w = B S_w B^T, n_w = B mu_w (B = T A, balls) are rounded to doubles D_w, d_w.
 *    The exact law N(n_w, P_w) is within KL of N(d_w, D_w), with
 *      KL = 1/2 [tr(D^{-1} P) - m - log det(D^{-1} P) + (n - d)^T D^{-1} (n - d)]
 *         <= 1/2 [e^2 / (2 (1 - e)) + |n - d|^2 / lambda_min(D)],
 *    e = ||P - D||_F / lambda_min(D) bounding the Frobenius norm of the symmetric
 *    D^{-1/2} (P - D) D^{-1/2} (sum over its eigenvalues g of g - log(1 + g) <= g^2 / (2 (1 -
 *    |g|))), lambda_min(D) bounded below rigorously (numerics/spd.c). The caller widens every
 *    delta by the total variation these give (Pinsker: TV <= sqrt(KL / 2)).
 */
#include "numerics/arb.h"
#include "pair/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ball entries held at once (about 48 bytes each at 128 bits): about 1 GB */
#define RELEASE_MAX_ENTRIES 20000000.0
#define RELEASE_MAX_PREC 2048
#define PARSE_PREC 4300

typedef struct {
    const ga_pair_input *in;
    const ga_pair_text *txt;
    const double *a;
    const char *const *a_txt;
    size_t d, m, *rows; /* the kept rows of A */
    double *dx, *dy, *nx, *ny; /* the rounded laws */
    double kl[2], eta, d2[2];
    int eqcov;          /* the input covariances are the same numbers */
    int singular;       /* a rounded covariance was not proven positive definite */
} rel_ctx;

/* a ball containing the exact entry a_ij: its decimal, or the double within half an ulp */
static int a_entry(arb_t v, const rel_ctx *c, size_t i, size_t j, slong prec)
{
    size_t k = i * c->d + j;
    if (c->a_txt) {
        if (arb_set_str(v, c->a_txt[k], PARSE_PREC) != 0)
            return -1;
        arb_set_round(v, v, prec);
        return 0;
    }
    double x = c->a[k];
    arb_set_d(v, x);
    mag_set_d(arb_radref(v), ldexp(fabs(x), -53) + 0x1p-1074);
    return 0;
}

/* the double entries of a (row-major n x n or n x 1) as balls */
static void mat_set_d(arb_mat_t M, const double *x)
{
    slong r = arb_mat_nrows(M), cl = arb_mat_ncols(M);
    for (slong i = 0; i < r; i++)
        for (slong j = 0; j < cl; j++)
            arb_set_d(arb_mat_entry(M, i, j), x[i * cl + j]);
}

/* |X_ij - x_ij| summed in squares, as an upper bound of ||X - x||_F for the exact X the balls
 * enclose: a vector (n x 1), or a symmetric matrix (its lower triangle, off-diagonal twice) */
static double frob_gap(const arb_mat_t X, const double *x, slong prec)
{
    slong n = arb_mat_nrows(X), vec = arb_mat_ncols(X) == 1;
    arb_t t;
    arf_t u;
    arb_init(t);
    arf_init(u);
    double s = 0;
    for (slong i = 0; i < n; i++)
        for (slong j = vec ? i : 0; j <= i; j++) {
            if (vec) {
                arb_set_d(t, x[i]);
                arb_sub(t, arb_mat_entry(X, i, 0), t, prec);
                arb_get_abs_ubound_arf(u, t, prec);
                double g = ga_up(arf_get_d(u, ARF_RND_UP));
                s = ga_up(s + ga_up(g * g));
                continue;
            }
            arb_set_d(t, x[i * n + j]);
            arb_sub(t, arb_mat_entry(X, i, j), t, prec);
            arb_get_abs_ubound_arf(u, t, prec);
            double g = ga_up(arf_get_d(u, ARF_RND_UP));
            s = ga_up(s + ga_up((i == j ? 1.0 : 2.0) * ga_up(g * g)));
        }
    arb_clear(t);
    arf_clear(u);
    return ga_up(sqrt(s));
}

/* x <- the doubles nearest the midpoints (the lower triangle, mirrored when square) */
static int mat_round(double *x, const arb_mat_t X)
{
    slong r = arb_mat_nrows(X), cl = arb_mat_ncols(X);
    for (slong i = 0; i < r; i++)
        for (slong j = 0; j < cl; j++) {
            slong a = r == cl && j > i ? j : i, b = r == cl && j > i ? i : j;
            x[i * cl + j] = arf_get_d(arb_midref(arb_mat_entry(X, a, b)), ARF_RND_NEAR);
            if (!isfinite(x[i * cl + j]))
                return -1;
        }
    return 0;
}

/* l <- l^{-1} for a lower Cholesky factor l (n x n doubles, row-major; its upper part is
 * zeroed). 0, or -1 for a non-finite inverse. */
static int lower_inverse(double *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            l[i * n + j] = 0;
    if (ga_lapack_trtri('L', 'N', n, l, n) != 0) /* (row-major, as LAPACKE) */
        return -1;
    for (size_t i = 0; i < n * n; i++)
        if (!isfinite(l[i]))
            return -1;
    return 0;
}

/* Is the floating Cholesky factor l of P (m x m) accurate enough to whiten it? Its smallest
 * pivot squared against P's largest diagonal entry estimates 1/cond(P); near 1/u a factor that
 * LAPACK accepts can be anything (ball arithmetic then factors P instead). */
static int chol_conditioned(const double *l, const arb_mat_t P)
{
    slong m = arb_mat_nrows(P);
    double pmin = INFINITY, dmax = 0;
    for (slong i = 0; i < m; i++) {
        pmin = fmin(pmin, l[i * m + i] * l[i * m + i]);
        dmax = fmax(dmax, fabs(arf_get_d(arb_midref(arb_mat_entry(P, i, i)), ARF_RND_NEAR)));
    }
    return pmin >= 1e-8 * dmax;
}

/* One precision level of the released laws (the method in this file's top comment): A's rows
 * and the exact inputs as balls, A S A^T and A mu for both laws, the basis T from a floating
 * Cholesky factor (or the ball one where that factor is ill-conditioned), the laws in that
 * basis rounded to doubles, and the KL bounds of the rounding. One step of ga_arb_escalate,
 * kept whole: its fourteen ball matrices live for the whole step. GA_OK, GA_EPREC (more
 * precision), GA_EDOM (a released covariance not proven positive definite), GA_EINVAL (an
 * input entry unreadable), GA_ENOMEM. */
static int release_step(void *vc, slong prec)
{
    rel_ctx *c = vc;
    slong m = (slong)c->m, d = (slong)c->d;
    int rc = GA_EPREC;
    arb_mat_t Sx, Sy, Ss, mx, my, T, B, Bt, W, Py, Px, nx, ny, L;
    arb_mat_init(Sx, d, d);
    arb_mat_init(Sy, d, d);
    arb_mat_init(Ss, d, d);
    arb_mat_init(mx, d, 1);
    arb_mat_init(my, d, 1);
    arb_mat_init(T, m, m);
    arb_mat_init(B, m, d);
    arb_mat_init(Bt, d, m);
    arb_mat_init(W, m, d);
    arb_mat_init(Py, m, m);
    arb_mat_init(Px, m, m);
    arb_mat_init(nx, m, 1);
    arb_mat_init(ny, m, 1);
    arb_mat_init(L, m, m);
    double *l = malloc((size_t)(m * m) * sizeof *l);
    if (!l) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    /* the exact inputs: A's kept rows (into B, the basis's first term), each scaled by a power
     * of two; both laws by 2^-2f */
    for (slong i = 0; i < m; i++) {
        double amax = 0;
        for (slong j = 0; j < d; j++)
            amax = fmax(amax, fabs(c->a[c->rows[i] * c->d + (size_t)j]));
        int e = ilogb(amax);
        for (slong j = 0; j < d; j++) {
            arb_ptr v = arb_mat_entry(B, i, j);
            if (a_entry(v, c, c->rows[i], (size_t)j, prec)) {
                rc = GA_EINVAL;
                goto cleanup;
            }
            arb_mul_2exp_si(v, v, -e);
        }
    }
    if (ga_cert_input_cov(Sy, Ss, c->txt ? c->txt->s_y : NULL, c->in->s_y, prec) ||
        ga_cert_input_cov(Sx, Ss, c->txt ? c->txt->s_x : NULL, c->in->s_x, prec)) {
        rc = GA_EINVAL;
        goto cleanup;
    }
    for (slong i = 0; i < d; i++)
        if (ga_cert_entry(arb_mat_entry(mx, i, 0), c->txt ? c->txt->mu_x : NULL, c->in->mu_x, (size_t)i) ||
            ga_cert_entry(arb_mat_entry(my, i, 0), c->txt ? c->txt->mu_y : NULL, c->in->mu_y, (size_t)i)) {
            rc = GA_EINVAL;
            goto cleanup;
        }
    double smax = 0;
    for (slong i = 0; i < d * d; i++)
        smax = fmax(smax, fabs(c->in->s_y[i]));
    if (smax > 0) {
        int f = ilogb(smax) / 2;
        arb_mat_scalar_mul_2exp_si(Sx, Sx, -2 * f);
        arb_mat_scalar_mul_2exp_si(Sy, Sy, -2 * f);
        arb_mat_scalar_mul_2exp_si(mx, mx, -f);
        arb_mat_scalar_mul_2exp_si(my, my, -f);
    }
    /* 2. the basis: B = T_r ... T_1 A, each T_i the floating inverse of a Cholesky factor of
     *    the previous P_y = B S_y B^T, applied in ball arithmetic (a product of the T_i in
     *    double would lose what an ill-conditioned A needs: its entries would have to cancel
     *    to about u cond(A)) */
    int good = 0;
    for (int round = 0; round < 5; round++) {
        arb_mat_transpose(Bt, B);
        ga_arb_mat_mul(W, B, Sy, prec);
        ga_arb_mat_mul(Py, W, Bt, prec);
        double gap = 0;
        arb_t u;
        arb_init(u);
        for (slong i = 0; i < m; i++)
            for (slong j = 0; j <= i; j++) {
                arb_set(u, arb_mat_entry(Py, i, j));
                if (i == j)
                    arb_sub_ui(u, u, 1, prec);
                double g = arf_get_d(arb_midref(u), ARF_RND_NEAR);
                gap = fmax(gap, fabs(g) + mag_get_d(arb_radref(u)));
            }
        arb_clear(u);
        if (!isfinite(gap)) /* (a non-finite ball: more precision) */
            goto cleanup;
        if (gap <= 1e-3) { /* (well-conditioned: the rounding below is about 1e-16 of it) */
            good = 1;
            break;
        }
        if (round == 4)
            break;
        if (mat_round(l, Py) == 0 && ga_lapack_potrf('L', (size_t)m, l, (size_t)m) == 0 &&
            chol_conditioned(l, Py)) {
            /* (the floating factor will do) */
        } else if (!(arb_mat_cho(L, Py, prec) && mat_round(l, L) == 0)) {
            goto cleanup; /* not positive definite at this precision */
        }
        if (lower_inverse(l, (size_t)m))
            goto cleanup;
        mat_set_d(T, l);
        ga_arb_mat_mul(W, T, B, prec);
        arb_mat_swap(W, B);
    }
    if (!good)
        goto cleanup;
    /* 3. the laws, rounded, and the KL divergence of the exact ones from them */
    ga_arb_mat_mul(W, B, Sx, prec);
    ga_arb_mat_mul(Px, W, Bt, prec);
    ga_arb_mat_mul(nx, B, mx, prec);
    ga_arb_mat_mul(ny, B, my, prec);
    if (mat_round(c->dx, Px) || mat_round(c->dy, Py) || mat_round(c->nx, nx) ||
        mat_round(c->ny, ny))
        goto cleanup;
    const arb_mat_struct *P[2] = {Px, Py}, *N[2] = {nx, ny};
    double *D[2] = {c->dx, c->dy}, *Dn[2] = {c->nx, c->ny}, es = 0, gs = 0;
    for (int w = 0; w < 2; w++) {
        double lo;
        if (ga_spd_eig_min_lower_est(&lo, D[w], (size_t)m) != GA_OK || !(lo > 0)) {
            c->singular = 1;
            rc = GA_EDOM;
            goto cleanup;
        }
        double e = ga_up(frob_gap(P[w], D[w], prec) / lo), dn = frob_gap(N[w], Dn[w], prec);
        double g = ga_up(ga_up(dn * dn) / lo);
        if (!(e < 0.5))
            goto cleanup; /* (the rounding is not the only gap: more precision) */
        c->kl[w] = ga_up(0.5 * ga_up(ga_up(e * e) / ga_dn(2 * (1 - e)) + g));
        es += e;
        gs += g;
    }
    c->eta = es + sqrt(gs);
    if (c->eqcov) { /* a mean shift: D2 = dn^T P^{-1} dn from the balls (P_x = P_y) */
        arb_mat_sub(nx, nx, ny, prec);
        if (!arb_mat_spd_solve(ny, Py, nx, prec))
            goto cleanup; /* (more precision) */
        arb_t d2;
        arb_init(d2);
        for (slong i = 0; i < m; i++)
            arb_addmul(d2, arb_mat_entry(nx, i, 0), arb_mat_entry(ny, i, 0), prec);
        ga_interval iv;
        ga_arb_bounds(&iv, d2);
        arb_clear(d2);
        c->d2[0] = fmax(iv.lo, 0);
        c->d2[1] = iv.hi;
        if (!(c->d2[1] > 0) || !isfinite(c->d2[1]))
            c->d2[0] = c->d2[1] = 0; /* (no shift, or unbounded: not used) */
    }
    rc = GA_OK;
cleanup:
    free(l);
    arb_mat_clear(Sx);
    arb_mat_clear(Sy);
    arb_mat_clear(Ss);
    arb_mat_clear(mx);
    arb_mat_clear(my);
    arb_mat_clear(T);
    arb_mat_clear(B);
    arb_mat_clear(Bt);
    arb_mat_clear(W);
    arb_mat_clear(Py);
    arb_mat_clear(Px);
    arb_mat_clear(nx);
    arb_mat_clear(ny);
    arb_mat_clear(L);
    return rc;
}

/* is row i of A zero, or the same decimals as row j (the same doubles where no text)? */
static int row_zero(const double *a, size_t d, size_t i)
{
    for (size_t k = 0; k < d; k++)
        if (a[i * d + k] != 0)
            return 0;
    return 1;
}

static int row_repeats(const double *a, const char *const *t, size_t d, size_t i, size_t j)
{
    for (size_t k = 0; k < d; k++)
        if (a[i * d + k] != a[j * d + k] || !t || strcmp(t[i * d + k], t[j * d + k]))
            return 0;
    return 1;
}

int ga_pair_release_laws(ga_release_laws *out, const ga_pair_input *in, const ga_pair_text *txt,
                         size_t m, const double *a, const char *const *a_txt, double deadline,
                         char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    size_t d = in->d;
    const char *no_arb;
    if (!ga_cert_available(&no_arb)) {
        snprintf(why, whylen, "%s", no_arb);
        return GA_EDOM;
    }
    double need = (double)m * (double)d * 4 + (double)d * (double)d * 2 + (double)m * (double)m * 4;
    if (need > RELEASE_MAX_ENTRIES) {
        snprintf(why, whylen, "a %zu x %zu release of a pair of dimension %zu is beyond the "
                 "size its laws are computed exactly for (%.0f ball entries, at most %.0f)",
                 m, d, d, need, RELEASE_MAX_ENTRIES);
        return GA_EDOM;
    }
    rel_ctx c = {.in = in, .txt = txt, .a = a, .a_txt = a_txt, .d = d};
    c.eqcov = 1; /* the same numbers: the same doubles, and the same decimals where given */
    for (size_t i = 0; i < d * d && c.eqcov; i++) {
        const char *tx = txt && txt->s_x ? txt->s_x[i] : NULL, *ty = txt && txt->s_y ? txt->s_y[i] : NULL;
        c.eqcov = in->s_x[i] == in->s_y[i] && (tx ? ty && !strcmp(tx, ty) : !ty);
    }
    c.rows = malloc((m ? m : 1) * sizeof *c.rows);
    int rc = GA_ENOMEM;
    if (!c.rows)
        goto cleanup;
    for (size_t i = 0; i < m; i++) {
        int keep = !row_zero(a, d, i);
        for (size_t j = 0; keep && j < c.m; j++)
            keep = !row_repeats(a, a_txt, d, i, c.rows[j]);
        if (keep)
            c.rows[c.m++] = i;
    }
    size_t k = c.m;
    if (k == 0) {
        snprintf(why, whylen, "every row of the release matrix is zero: the release is a "
                 "constant");
        rc = GA_EDOM;
        goto cleanup;
    }
    c.dx = malloc(k * k * sizeof *c.dx);
    c.dy = malloc(k * k * sizeof *c.dy);
    c.nx = malloc(k * sizeof *c.nx);
    c.ny = malloc(k * sizeof *c.ny);
    if (!c.dx || !c.dy || !c.nx || !c.ny)
        goto cleanup;
    /* (a rank-deficient A fails at every level: the top level is kept cheap for large m) */
    slong cap = k <= 64 ? RELEASE_MAX_PREC : k <= 256 ? 512 : 256;
    rc = ga_arb_escalate(NULL, release_step, &c, 128, cap, deadline);
    if (rc == GA_OK) {
        out->m = k;
        out->mu_x = c.nx;
        out->mu_y = c.ny;
        out->s_x = c.dx;
        out->s_y = c.dy;
        out->kl[0] = c.kl[0];
        out->kl[1] = c.kl[1];
        out->eta = c.eta;
        out->d2[0] = c.d2[0];
        out->d2[1] = c.d2[1];
        c.nx = c.ny = c.dx = c.dy = NULL;
    } else if (rc == GA_EPREC || (rc == GA_EDOM && c.singular)) {
        if (c.singular)
            snprintf(why, whylen, "a released covariance is singular, or too ill-conditioned "
                     "to bound its rounding");
        else
            snprintf(why, whylen, "the release matrix's rows (%zu of them once zero and "
                     "repeated rows are left out) could not be proven linearly independent at "
                     "%ld bits%s", k, (long)cap, a_txt ? "" : " (its entries read from "
                     "a file as doubles, each within half an ulp of its decimal)");
        rc = GA_EDOM;
    } else if (rc == GA_EINVAL) {
        snprintf(why, whylen, "an input is not a decimal number");
    }
cleanup:
    free(c.rows);
    free(c.dx);
    free(c.dy);
    free(c.nx);
    free(c.ny);
    return rc;
}

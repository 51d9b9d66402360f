/*
 * davies.c - Davies' method (Biometrika 1973; Applied Statistics AS 155, 1980): the
 * Gil-Pelaez integral by the midpoint (offset trapezoidal) rule with step D,
 *   P[Q <= x] ~ 1/2 - sum_{k=0}^{K-1} Im(phi(t_k) e^{-i t_k x}) / (pi (k + 1/2)),  t_k = (k+1/2) D.
 * Discretisation (Poisson summation, Davies 1973 eq. 3): the sum equals
 *   F(x) - sum_{n>=1} (-1)^n (S(x + nL) - F(x - nL)),  L = 2 pi / D,  S = 1 - F,
 * and the two alternating series of monotone terms give an error in [-S(x+L), F(x-L)].
 * Both tails are bounded by Chernoff's inequality, S(y) <= exp(K(s) - s y) for s > 0 and
 * F(y) <= exp(K(s) - s y) for s < 0, at the saddle point of y: rigorous.
 * Truncation: |phi(t)|/t decreases, so the terms k >= K sum to at most
 * (1/pi) int_{(K-1/2)D}^inf |phi(t)|/t dt, bounded by the vertical-path bound of contour.c.
 * This is an own implementation from the papers' mathematics: no convergence factor; when
 * the characteristic function decays too slowly for the evaluation cap, the (larger)
 * truncation bound is reported in the error and the status is GA_ETOL.
 */
#include "numerics/numerics.h"

#include <float.h>
#include <math.h>

/* Chernoff bound of P[Q > y] (upper = 1) or P[Q < y] (upper = 0); 1 when useless. */
static double chernoff(const ga_gchisq *q, double y, int upper)
{
    double mean, var, s, K;
    ga_gchisq_moments(&mean, &var, q);
    if (upper ? y <= mean : y >= mean)
        return 1.0;
    /* beyond the support end of a definite form the tail is exactly 0 */
    ga_gchisq_prob t;
    if (ga_gchisq_trivial(&t, q, y))
        return upper ? t.sf.val : t.cdf.val;
    if (ga_gchisq_saddle(&s, q, y) != GA_OK || ga_gchisq_cgf(&K, NULL, NULL, q, s) != GA_OK)
        return 1.0;
    return fmin(1.0, exp(K - s * y));
}

int ga_engine_davies(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                     const ga_gchisq_opts *o)
{
    return ga_engine_davies_capped(out, q, x, o, (size_t)-1);
}

int ga_engine_davies_capped(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                            const ga_gchisq_opts *o, size_t kcap)
{
    double mean, var;
    ga_gchisq_moments(&mean, &var, q);
    /* an absolute method (the sum sits around 1/2): the relative target acts as absolute */
    double sd = sqrt(var), tol = fmax(o->epsabs, o->epsrel);
    int status = GA_OK;
    /* discretisation: L such that both aliased tails are below tol/2 */
    double L = 8 * sd, disc = 1;
    for (int i = 0; i < 200; i++) {
        disc = fmax(chernoff(q, x + L, 1), chernoff(q, x - L, 0));
        if (disc <= 0.5 * tol)
            break;
        L *= 1.5;
    }
    double D = 2 * M_PI / L;
    ga_path p = {.q = q, .x = x, .c = 0, .L0 = 0, .t0 = 0, .beta = 0, .dir = 0,
                 .kernel = GA_KERNEL_TAIL, .imag_only = 1, .nevals = 0};
    /* truncation: smallest K (by doubling, then bisection) with bound <= tol/2 */
    size_t kmax = o->max_evals;
    if (kcap < kmax) /* (no bound beyond the caller's budget is needed) */
        kmax = kcap + 1;
    size_t K = 16;
    double tb = ga_path_tailbound(&p, (K - 0.5) * D) / M_PI;
    while (tb > 0.5 * tol && K < kmax) {
        K = K * 2 > kmax ? kmax : K * 2;
        tb = ga_path_tailbound(&p, (K - 0.5) * D) / M_PI;
    }
    if (tb <= 0.5 * tol && K > 16) {
        size_t lo = K / 2, hi = K;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (ga_path_tailbound(&p, (mid - 0.5) * D) / M_PI <= 0.5 * tol)
                hi = mid;
            else
                lo = mid;
        }
        K = hi;
        tb = ga_path_tailbound(&p, (K - 0.5) * D) / M_PI;
    }
    /* more nodes than the caller's budget: no sum (auto then takes the contour engine) */
    if (kcap != (size_t)-1 && (K > kcap || !(tb <= 0.5 * tol) || !(disc <= 0.5 * tol)))
        return GA_EMAXITER;
    /* Kahan-compensated sum */
    double s = 0, comp = 0, sabs = 0;
    for (size_t k = 0; k < K; k++) {
        double kh = k + 0.5;
        double complex e = ga_path_logmgf(&p, I * (kh * D));
        double term = creal(e) < -745 ? 0.0 : cimag(cexp(e)) / (M_PI * kh);
        double y = term - comp, t = s + y;
        comp = (t - s) - y;
        s = t;
        /* the phase t x carries an absolute rounding error of about eps t |x| */
        sabs += fabs(term) * (1 + fabs(kh * D * x) + fabs(creal(e)));
    }
    double err = disc + tb + 8 * DBL_EPSILON * (sabs + 1);
    out->cdf.val = fmin(1, fmax(0, 0.5 - s));
    out->sf.val = fmin(1, fmax(0, 0.5 + s));
    out->cdf.err = out->sf.err = err + DBL_EPSILON;
    out->log_cdf = log(out->cdf.val);
    out->log_sf = log(out->sf.val);
    out->method = GA_METHOD_DAVIES;
    out->evals = K;
    if (!(tb <= 0.5 * tol) || !(disc <= 0.5 * tol))
        status = GA_ETOL;
    return status;
}

/*
 * shifted.c - the trapezoidal rule on the vertical line through the saddle point: Davies'
 * rule moved off the imaginary axis, for one tail of a form of many terms in the bulk and
 * the moderate tails.
 *
 * For the upper tail T(y) = P[Q > y] take 0 < c < smax; for the lower tail T(y) = P[Q <= y]
 * take smin < c < 0. Then g(y) = e^{c y} T(y) is continuous and integrable, and its Fourier
 * transform is sign M(c + i t) / (c + i t) (integration by parts; sign = +1 upper, -1 lower).
 * By Poisson summation the trapezoidal rule of step D for the inversion integral is
 *   e^{-c x} (D / 2 pi) sum_k ghat(k D) e^{-i k D x} = T(x) + sum_{n != 0} e^{c n L} T(x + n L),
 * L = 2 pi / D (Davies 1973, eq. 3, on the line c = 0; the shift is the Fourier-series
 * Laplace inversion of Dubner and Abate 1968). Every alias term is positive:
 *  - on the side away from the tail (n c < 0) T <= 1, so those terms sum to at most
 *    r0 / (1 - r0), r0 = e^{-|c| L};
 *  - on the tail's side Chernoff's T(y) <= e^{K(s) - s y}, at a point s beyond c (same sign,
 *    |s| > |c|), bounds them by e^{K(s) - s x} r1 / (1 - r1), r1 = e^{-(|s| - |c|) L}.
 * Truncation: |M(c + i t)| / |c + i t| decreases in t (every factor does: see
 * ga_path_tailbound), so the terms |k| >= K sum to at most (1 / pi) e^{L0}
 * int_{(K-1) D}^inf |F|, the vertical-path bound of contour.c. At the saddle point the terms
 * have the size of the answer, so the rule gives a relative accuracy in a tail where the
 * rule on c = 0 gives an absolute one, and for a form of many terms M(c + i t) decays like a
 * normal's: a few dozen nodes, against one to two hundred on the bent contour.
 * The other tail is 1 - T, with T's error plus one rounding of the subtraction.
 */
#include "numerics/numerics.h"

#include <float.h>
#include <math.h>

int ga_engine_shifted_capped(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                             const ga_gchisq_opts *o, size_t kcap)
{
    double mean, var, smin, smax, c, K0, K1, K2, Ks;
    ga_gchisq_moments(&mean, &var, q);
    ga_gchisq_domain(&smin, &smax, q);
    if (!(var > 0) || x == mean || q->n == 0)
        return GA_EMAXITER;
    int sign = x > mean ? 1 : -1;
    if (ga_gchisq_saddle(&c, q, x) != GA_OK || !(sign * c > 0) ||
        ga_gchisq_cgf(&K0, &K1, &K2, q, c) != GA_OK || !(K2 > 0))
        return GA_EMAXITER;
    double L0 = K0 - c * x, ac = fabs(c);
    if (!(L0 > -600)) /* tails below about 1e-260: the contour engine's log scale */
        return GA_EMAXITER;
    /* the target, absolute on T, from the saddle-point guess of T (at most 1/2) */
    double lguess = fmin(L0 - log(ac * sqrt(2 * M_PI * K2)), -M_LN2);
    double ltol = log(o->epsrel) + lguess;
    if (o->epsabs > 0)
        ltol = o->epsrel > 0 ? ga_logaddexp(log(o->epsabs), ltol) : log(o->epsabs);
    /* the exponent's rounding (see the sum below) at the typical node t = 1 / sqrt(K2), as a
     * relative error of T: where it alone exceeds half the target the sum cannot meet it */
    double rfloor = 16 * DBL_EPSILON * (1 + fabs(L0) + fabs(c * x) + fabs(x) / sqrt(K2));
    if (log(rfloor) + lguess > ltol - M_LN2)
        return GA_EMAXITER;
    /* the alias period: each of the two alias sums at most tol / 4 */
    double dist = sign > 0 ? smax : -smin, as = fmin(2 * ac, 0.5 * (ac + dist));
    if (!(as > ac) || ga_gchisq_cgf(&Ks, NULL, NULL, q, sign * as) != GA_OK)
        return GA_EMAXITER;
    double Es = Ks - sign * as * x; /* log of the Chernoff factor at s */
    double L = fmax(ga_logaddexp(0, 2 * M_LN2 - ltol) / ac,
                    ga_logaddexp(0, 2 * M_LN2 + Es - ltol) / (as - ac));
    if (!isfinite(L) || !(L > 0))
        return GA_EMAXITER;
    double D = 2 * M_PI / L;
    ga_path p = {.q = q, .x = x, .c = c, .L0 = L0, .t0 = 0, .beta = 0, .dir = 0,
                 .kernel = GA_KERNEL_TAIL, .imag_only = 1, .nevals = 0};
    /* truncation: the number of nodes from the normal model exp(-K2 t^2 / 2) / |c|, grown
     * until the rigorous bound meets tol / 4 (on the L0 scale: tol e^{-L0}) */
    double ltrunc = ltol - L0 - 2 * M_LN2 + log(M_PI);
    double tn = sqrt(2 * fmax(0, -(ltrunc + log(ac)))) / sqrt(K2);
    if (!(tn / D < (double)kcap))
        return GA_EMAXITER;
    size_t K = (size_t)ceil(tn / D) + 2;
    double tb = ga_path_tailbound(&p, (K - 1) * D);
    while (!(log(tb) <= ltrunc)) {
        if (K >= kcap)
            return GA_EMAXITER;
        K = K + K / 4 + 1 > kcap ? kcap : K + K / 4 + 1;
        tb = ga_path_tailbound(&p, (K - 1) * D);
    }
    /* the sum on the L0 scale, k = 0 (the real term 1/c) and twice the real parts of k >= 1 */
    double s = 0.5 / c, comp = 0, sabs = 0.5 * (1 + fabs(L0) + fabs(c * x)) / ac;
    for (size_t k = 1; k < K; k++) {
        double t = k * D;
        double complex e = ga_path_logmgf(&p, c + I * t);
        double term = 0;
        if (creal(e) >= -745) {
            double m = exp(creal(e)) / (c * c + t * t);
            term = m * (cos(cimag(e)) * c + sin(cimag(e)) * t); /* Re(exp(e) / z) */
        }
        double y = term - comp, u = s + y;
        comp = (u - s) - y;
        s = u;
        /* the exponent carries an absolute rounding error of a few eps (1 + |L0| + |c x|),
         * the phase t x one of eps t |x| */
        sabs += fabs(term) * (1 + fabs(L0) + fabs(c * x) + fabs(t * x));
    }
    double scale = D / M_PI; /* (D / 2 pi) times 2 for the conjugate half */
    double v = sign * scale * s;
    double r0 = exp(-ac * L), r1 = exp(-(as - ac) * L);
    double alias = r0 / (1 - r0) + exp(Es) * r1 / (1 - r1);
    double err_scaled = tb / M_PI + 16 * DBL_EPSILON * scale * sabs;
    double T = exp(L0) * v, err = alias + exp(L0) * err_scaled;
    if (!(v > 0) || !(err < 0.25) || !isfinite(T))
        return GA_EMAXITER;
    ga_result *t1 = sign > 0 ? &out->sf : &out->cdf, *t2 = sign > 0 ? &out->cdf : &out->sf;
    t1->val = fmin(T, 1);
    t1->err = err;
    t2->val = 1 - t1->val;
    t2->err = err + DBL_EPSILON;
    double lt1 = L0 + log(v), lt2 = log1p(-t1->val);
    out->log_sf = sign > 0 ? lt1 : lt2;
    out->log_cdf = sign > 0 ? lt2 : lt1;
    out->method = GA_METHOD_CONTOUR;
    out->evals = K;
    return t1->err <= fmax(o->epsabs, o->epsrel * t1->val) &&
                   t2->err <= fmax(o->epsabs, o->epsrel * t2->val)
               ? GA_OK
               : GA_ETOL;
}

/*
 * closed.c - closed forms for the generalized chi-square: point mass, support ends of
 * definite forms, the pure normal (erfc), and one distinct coefficient (central or
 * noncentral chi-square).
 *
 * One term (a, nu, b2), no normal part: a z^2 + b z = a (z + b/(2a))^2 - b^2/(4a), so
 * Q = k' + a chi2(nu, lambda) with lambda = b2/(4a^2), k' = offset - b2/(4a).
 * The noncentral chi-square tail is the Poisson mixture (Johnson, Kotz & Balakrishnan,
 * Continuous Univariate Distributions vol. 2, ch. 29):
 *   P[chi2(nu, lambda) > y] = sum_j Pois(j; lambda/2) Q(nu/2 + j, y/2),
 * and likewise for the lower tail with P(.,.). All terms are positive, so each tail keeps
 * full relative accuracy; the sum starts at the Poisson mode and runs both ways until the
 * remaining terms, bounded by a geometric series times a monotone bound on the incomplete
 * gamma factor, are below 1e-17 of the sum.
 */
#define _DEFAULT_SOURCE 1 /* (glibc declares lgamma_r) */
#include "numerics/numerics.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_log.h>
#include <math.h>

double ga_lgamma(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}

static void set_exact(ga_gchisq_prob *out, double cdf)
{
    out->cdf.val = cdf;
    out->sf.val = 1 - cdf;
    out->cdf.err = out->sf.err = 0;
    out->log_cdf = log(out->cdf.val);
    out->log_sf = log(out->sf.val);
    out->method = GA_METHOD_CLOSED;
    out->evals = 0;
}

int ga_gchisq_trivial(ga_gchisq_prob *out, const ga_gchisq *q, double x)
{
    if (q->n == 0 && q->sigma2 == 0) {
        set_exact(out, x >= q->offset ? 1.0 : 0.0);
        return 1;
    }
    if (q->sigma2 != 0 || q->n == 0)
        return 0;
    int pos = 1, neg = 1, central = 1;
    double scale = fabs(q->offset);
    for (size_t j = 0; j < q->n; j++) {
        pos &= q->t[j].a > 0;
        neg &= q->t[j].a < 0;
        central &= q->t[j].b2 == 0;
        scale += q->t[j].b2 / (4 * fabs(q->t[j].a));
    }
    /* the support end m is rounded unless the form is central (m = offset): decide only
     * outside a safety margin. Q has no atom at m, so P[Q <= m] = 0 for x = m itself. */
    double m = ga_gchisq_drift(q), margin = central ? 0 : 64 * DBL_EPSILON * scale + DBL_MIN;
    if (pos && (central ? x <= m : x < m - margin)) {
        set_exact(out, 0.0);
        return 1;
    }
    if (neg && (central ? x >= m : x > m + margin)) {
        set_exact(out, 1.0);
        return 1;
    }
    return 0;
}

/* Standard normal tails of z: lower Phi(z) and upper 1 - Phi(z), both directly. */
static int normal_tails(ga_gchisq_prob *out, double z)
{
    gsl_sf_result lo, up;
    double s = 1 / M_SQRT2;
    if (fabs(z) > 40) {
        /* the far tail is below 1e-349: 0 and 1 are the correctly rounded doubles (GSL's
         * erfc gives NaN for arguments near the double range); the log of the far tail is
         * -z^2/2 - log(-z sqrt(2 pi)) (1 + O(1/z^2)), or -inf where z^2 overflows */
        double z2 = 1 / (z * z), lt;
        gsl_sf_result l;
        if (gsl_sf_log_erfc_e(fabs(z) * s, &l) == GSL_SUCCESS && isfinite(l.val))
            lt = l.val - M_LN2;
        else /* DLMF 7.12.1: the series to the 1/z^6 term (error below 105/z^8 < 2e-11) */
            lt = -0.5 * z * z - log(fabs(z) * sqrt(2 * M_PI)) +
                 log1p(z2 * (-1 + z2 * (3 - 15 * z2)));
        ga_result one = {1, 0}, zero = {0, 0};
        out->cdf = z > 0 ? one : zero;
        out->sf = z > 0 ? zero : one;
        out->log_cdf = z > 0 ? 0 : lt;
        out->log_sf = z > 0 ? lt : 0;
        return GA_OK;
    }
    int e1 = gsl_sf_erfc_e(-z * s, &lo), e2 = gsl_sf_erfc_e(z * s, &up);
    out->cdf.val = 0.5 * lo.val;
    out->cdf.err = 0.5 * lo.err + 2 * DBL_EPSILON * out->cdf.val;
    out->sf.val = 0.5 * up.val;
    out->sf.err = 0.5 * up.err + 2 * DBL_EPSILON * out->sf.val;
    gsl_sf_result llo, lup;
    if (gsl_sf_log_erfc_e(-z * s, &llo) == GSL_SUCCESS)
        out->log_cdf = llo.val - M_LN2;
    else
        out->log_cdf = log(out->cdf.val);
    if (gsl_sf_log_erfc_e(z * s, &lup) == GSL_SUCCESS)
        out->log_sf = lup.val - M_LN2;
    else
        out->log_sf = log(out->sf.val);
    if (e1 == GSL_EUNDRFLW || e2 == GSL_EUNDRFLW || out->cdf.val == 0 || out->sf.val == 0)
        return GA_EUNDERFLOW;
    return (e1 || e2) ? GA_ETOL : GA_OK;
}

/* P[chi2(nu, lam) > y] (upper) or <= y (lower) with error estimate and density at y. */
static int ncchisq(ga_result *res, double *pdf, double nu, double lam, double y, int upper)
{
    if (y <= 0) {
        res->val = upper ? 1.0 : 0.0;
        res->err = 0;
        *pdf = 0;
        return GA_OK;
    }
    double h = 0.5 * lam, y2 = 0.5 * y;
    long j0 = (long)floor(h);
    double lw0 = h > 0 ? -h + j0 * log(h) - ga_lgamma(j0 + 1.0) : 0.0;
    /* absolute error of log w: the cancellation in -h + j log h - log j! (Poisson weights
     * near the mode of a large mean lose about eps * (h + j |log h| + log j!) of relative
     * accuracy), then each recurrence step adds about eps (|log h| + |log(j+1)|) */
    double lwerr0 = h > 0 ? 4 * DBL_EPSILON * (h + j0 * fabs(log(h)) + ga_lgamma(j0 + 1.0)) : 0.0;
    double sum = 0, err = 0, dens = 0;
    int status = GA_OK;
    for (int dirn = 1; dirn >= -1; dirn -= 2) {
        double lw = lw0, lwerr = lwerr0;
        long j = dirn > 0 ? j0 : j0 - 1;
        if (dirn < 0) {
            if (j < 0)
                break;
            lw = lw0 - log(h) + log((double)j0); /* weight of j0 - 1 */
        }
        for (long steps = 0; steps < 100000000L; steps++) {
            double w = exp(lw);
            gsl_sf_result g;
            int e = upper ? gsl_sf_gamma_inc_Q_e(0.5 * nu + j, y2, &g)
                          : gsl_sf_gamma_inc_P_e(0.5 * nu + j, y2, &g);
            if (e == GSL_EUNDRFLW) {
                g.val = 0;
                g.err = DBL_MIN;
                if (w != 0)
                    status = GA_EUNDERFLOW;
            } else if (e) {
                status = GA_ETOL;
            }
            sum += w * g.val;
            err += w * (g.err + g.val * lwerr);
            /* density of chi2(nu + 2j) at y, on the log scale */
            double k = 0.5 * nu + j;
            dens += exp(lw + (k - 1) * log(y2) - y2 - ga_lgamma(k)) * 0.5;
            /* Q(nu/2 + j, y/2) increases with j, P decreases: bound the rest by the
             * geometric series of the Poisson weights times the monotone bound */
            double gb = ((dirn > 0) == (upper != 0)) ? 1.0 : g.val;
            double ratio = dirn > 0 ? h / (j + 1.0) : (j > 0 ? j / h : 0.0);
            if (ratio < 1) {
                double rest = w * gb * ratio / (1 - ratio);
                if (rest <= 1e-17 * sum || (sum == 0 && w == 0)) {
                    err += rest;
                    break;
                }
            }
            lwerr += 2 * DBL_EPSILON * (fabs(log(h)) + log(j + 2.0));
            if (dirn > 0) {
                lw += log(h) - log(j + 1.0);
                j++;
                if (h == 0)
                    break;
            } else {
                if (j == 0)
                    break;
                lw += log((double)j) - log(h);
                j--;
            }
        }
    }
    res->val = sum;
    res->err = err + 4 * DBL_EPSILON * sum;
    *pdf = dens;
    return status;
}

int ga_engine_closed(ga_gchisq_prob *out, const ga_gchisq *q, double x)
{
    if (ga_gchisq_trivial(out, q, x))
        return GA_OK;
    out->method = GA_METHOD_CLOSED;
    out->evals = 0;
    if (q->n == 0) {
        double s = sqrt(q->sigma2);
        int st = normal_tails(out, (x - q->offset) / s);
        double dz = 2 * DBL_EPSILON * (fabs(x) + fabs(q->offset)) / s;
        double dens = exp(-0.5 * pow((x - q->offset) / s, 2)) / sqrt(2 * M_PI);
        out->cdf.err += dens * dz;
        out->sf.err += dens * dz;
        return st;
    }
    if (q->n != 1 || q->sigma2 != 0)
        return GA_EDOM;
    const ga_gchisq_term *t = &q->t[0];
    double a = t->a, lam = t->b2 / (4 * a * a);
    if (lam > 1e7)
        return GA_EDOM; /* Poisson sum too long: the contour engine is the better tool */
    double kp = q->offset - t->b2 / (4 * a);
    double y = (x - kp) / a;
    /* rounding of y: from x, the offset and b2/(4a) */
    double dy = 4 * DBL_EPSILON * (fabs(x) + fabs(q->offset) + t->b2 / (4 * fabs(a))) / fabs(a);
    ga_result up, lo;
    double pdf;
    int s1 = ncchisq(&up, &pdf, t->nu, lam, y, 1);
    int s2 = ncchisq(&lo, &pdf, t->nu, lam, y, 0);
    up.err += pdf * dy;
    lo.err += pdf * dy;
    if (a > 0) {
        out->sf = up;
        out->cdf = lo;
    } else {
        out->sf = lo;
        out->cdf = up;
    }
    out->log_sf = log(out->sf.val);
    out->log_cdf = log(out->cdf.val);
    if (s1 == GA_EUNDERFLOW || s2 == GA_EUNDERFLOW)
        return GA_EUNDERFLOW;
    return s1 ? s1 : s2;
}

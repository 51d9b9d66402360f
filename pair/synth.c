/*
 * synth.c - synthetic data from random inputs (Pierquin, Bellet, Tommasi & Boussard, Privacy
 * Amplification Through Synthetic Data, Section 4): a model theta~ = theta + sigma N in R^d
 * (output perturbation) is queried at m hidden inputs z_i ~ N(0, I_d) and only the scalar
 * outputs y_i = theta~^T z_i are released. Given theta~, y ~ N(0, |theta~|^2 I_m), so |y|^2 is
 * sufficient, and with S = |theta~|^2/sigma^2 ~ chi^2_d(lam), lam = |theta|^2/sigma^2, and C ~
 * chi^2_m independent, the release is R = |y|^2/sigma^2 = S C. A neighbour changes lam only.
 *
 * With U = S/2 (a Poisson mixture of Gamma(a_k), a_k = d/2 + k, weights Pois(k; lam/2)) and
 * V = C/2 ~ Gamma(b), b = m/2, R = 4 U V and, at z = R/4 (int_0^inf v^{nu-1} e^{-v - z/v} dv =
 * 2 z^{nu/2} K_nu(2 sqrt z)),
 *   density of U V:   h_a(z) = 2 z^{(a+b)/2 - 1} K_{a-b}(2 sqrt z) / (Gamma(a) Gamma(b)),
 *   upper tail, b integer (m even):  t_a(z) = sum_{j<b} z^j/j! 2 z^{(a-j)/2} K_{a-j}(2 sqrt z)/Gamma(a),
 *   upper tail, a integer (d even):  t_a(z) = sum_{j<a} z^j/j! 2 z^{(b-j)/2} K_{b-j}(2 sqrt z)/Gamma(b)
 * (the Gamma variable with the integer shape has the finite Poisson-sum tail). d and m both odd
 * have no such finite form: GA_EDOM. The tails are the Poisson mixtures of t_a, every t_a in
 * [0, 1] and increasing in a (U grows stochastically), which bounds the dropped weights.
 *
 * The likelihood ratio of two laws (lam_a, lam_b) is monotone in z: log S has a density TP2 in
 * (lam, log s) (the noncentral chi-square family has a monotone likelihood ratio), log C a
 * log-concave one, and their convolution stays TP2 (Karlin's composition). So delta is the
 * threshold event, and h(z) = T_a(z) - e^eps T_b(z) (or with the lower tails) is unimodal with
 * its maximum delta at the threshold. The certified evaluation uses only that: three points u
 * < c < v with certified h(c) > h(u), h(v) bracket the maximiser, so h(c) <= delta <= T_a(u) -
 * e^eps T_b(v) (the tails decrease); no density needs enclosing. When lam_a < lam_b the loss
 * is bounded above by its limit at z -> 0 (loss_sup0 below; K_nu(x) ~ Gamma(nu)/2 (x/2)^-nu),
 * and there is no event at eps beyond it.
 */
#include "numerics/arb.h"
#include "pair/loss.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_bessel.h>

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define LOG2 0.69314718055994530942

/* ---------------------------------------------------------------- double precision */

/* lgamma at the multiples of 1/2 the sums take (orders d/2 + k, m/2, k + 1, j + 1), from a table
 * of libm's lgamma(i/2) filled once: the same values as the calls it replaces (so the same
 * error estimates), without their cost in the inner loops */
#define LG_HALVES (1 << 18)
static double *_Atomic lg_table;
static pthread_once_t lg_once = PTHREAD_ONCE_INIT;

static void lg_fill(void)
{
    double *t = malloc(LG_HALVES * sizeof *t);
    if (!t)
        return; /* (lg then calls lgamma) */
    t[0] = INFINITY;
    for (size_t i = 1; i < LG_HALVES; i++)
        t[i] = ga_lgamma(0.5 * (double)i);
    atomic_store_explicit(&lg_table, t, memory_order_release);
}

static double lg(double x)
{
    double *t = atomic_load_explicit(&lg_table, memory_order_acquire);
    if (!t) {
        pthread_once(&lg_once, lg_fill);
        t = atomic_load_explicit(&lg_table, memory_order_acquire);
    }
    double h = 2 * x;
    return t && h >= 1 && h < LG_HALVES && h == floor(h) ? t[(size_t)h] : ga_lgamma(x);
}

/* log K_nu(x) (K_{-nu} = K_nu) with an absolute error estimate */
static int lnk(double nu, double x, double *v, double *err)
{
    gsl_sf_result r;
    int st = gsl_sf_bessel_lnKnu_e(fabs(nu), x, &r);
    *v = r.val;
    *err = r.err + 4 * DBL_EPSILON * fabs(r.val);
    return st;
}

/* log K_{f+i}(x), i = 0 .. n - 1 (n >= 2), from two of GSL's by the ratio form of the upward
 * recurrence, K_{nu+1}/K_nu = K_{nu-1}/K_nu + 2 nu/x (stable upward; no overflow in logs);
 * ek: absolute error estimates of the logs */
static int lnk_table(double *lk, double *ek, size_t n, double f, double x)
{
    if (lnk(f, x, &lk[0], &ek[0]) || lnk(f + 1, x, &lk[1], &ek[1]))
        return GA_EMAXITER;
    for (size_t i = 1; i + 1 < n; i++) {
        double r = exp(lk[i - 1] - lk[i]) + 2 * (f + (double)i) / x;
        lk[i + 1] = lk[i] + log(r);
        ek[i + 1] = ek[i] + 8 * DBL_EPSILON;
    }
    return GA_OK;
}

/* the table's entry of order nu (orders in f + Z, |nu| used) */
#define LK(tab, nu, f) ((tab)[(size_t)(fabs(nu) - (f) + 0.5)])

/* the Bessel orders the densities of the laws lam_1, lam_2 at z need: log K_{f+i}(2 sqrt z), i
 * < *n, in tl[0..n) and their errors in tl[n..2n) (malloc'ed; NULL where a law's Poisson range
 * is too wide or there is no memory) */
static double *dens_table(size_t *n, double *f, double d, double m, double lam1, double lam2, double z)
{
    double klo, khi1, khi2, dropped, b = 0.5 * m;
    ga_pois_range(0.5 * lam1, &klo, &khi1, &dropped);
    ga_pois_range(0.5 * lam2, &klo, &khi2, &dropped);
    double top = fabs(0.5 * d - b) + fmax(khi1, khi2);
    if (!(top <= 1e5))
        return NULL;
    *f = fmod(fabs(0.5 * d - b), 1);
    *n = (size_t)top + 3;
    double *tl = malloc(2 * *n * sizeof *tl);
    if (tl && lnk_table(tl, tl + *n, *n, *f, 2 * sqrt(z))) {
        free(tl);
        tl = NULL;
    }
    return tl;
}

/* log of the law's density in z (the mixture of h_{a_k}), with an absolute error estimate,
 * from dens_table's orders (tl, n, f). The terms are summed relative to the largest (one exp
 * each), which the first pass finds. */
static double log_dens_tab(double d, double m, double lam, double z, const double *tl, size_t n,
                           double f, double *err)
{
    double mu = 0.5 * lam, b = 0.5 * m, klo, khi, dropped, lz = log(z);
    ga_pois_range(mu, &klo, &khi, &dropped);
    double top = -INFINITY, e = 0, acc = 0, lmu = mu > 0 ? log(mu) : 0, lgb = lg(b);
    for (int pass = 0; pass < 2; pass++)
        for (double k = klo; k <= khi; k++) {
            double a = 0.5 * d + k, lk = LK(tl, a - b, f);
            double lp = mu > 0 ? k * lmu - mu - lg(k + 1) : 0, lga = lg(a);
            double t = lp + LOG2 + (0.5 * (a + b) - 1) * lz + lk - lga - lgb;
            if (pass == 0) {
                top = fmax(top, t);
                e = fmax(e, LK(tl + n, a - b, f) +
                                4 * DBL_EPSILON * (fabs(lp) + fabs((0.5 * (a + b) - 1) * lz) + lga + fabs(lgb) + 1));
            } else {
                acc += exp(t - top);
            }
        }
    /* (each term's relative error below e; the sum's rounding: the count) */
    *err = e + 1e-15 + 2 * DBL_EPSILON * (khi - klo + 2);
    return isfinite(top) ? top + log(acc) : top;
}

/* lf[i] <- log f_a(z), log f_b(z) (the laws la, lb) and e[i] their absolute error
 * estimates, from one table of Bessel orders; NaN where the table could not be made */
static void log_dens2(double lf[2], double e[2], double d, double m, double la, double lb,
                      double z)
{
    size_t n;
    double f, *tl = dens_table(&n, &f, d, m, la, lb, z);
    lf[0] = lf[1] = e[0] = e[1] = NAN;
    if (!tl)
        return;
    lf[0] = log_dens_tab(d, m, la, z, tl, n, f, &e[0]);
    lf[1] = log_dens_tab(d, m, lb, z, tl, n, f, &e[1]);
    free(tl);
}

/* the loss log f_a(z) - log f_b(z) */
static double loss(double d, double m, double la, double lb, double z, double *err)
{
    double lf[2], e[2];
    log_dens2(lf, e, d, m, la, lb, z);
    *err = e[0] + e[1];
    return lf[0] - lf[1];
}

/* the upper tail P[U V > z] of the law lam and an absolute error estimate */
static int tail(double *T, double *err, double d, double m, double lam, double z)
{
    double mu = 0.5 * lam, b = 0.5 * m, klo, khi, dropped, lz = log(z), x = 2 * sqrt(z);
    int bint = fmod(m, 2) == 0, aint = fmod(d, 2) == 0;
    if (!bint && !aint)
        return GA_EDOM;
    if (!(z > 0)) {
        *T = 1;
        *err = 0;
        return GA_OK;
    }
    ga_pois_range(mu, &klo, &khi, &dropped);
    if (0.5 * d + khi + b > 1e5) /* every Bessel order up to d/2 + khi is summed: cap the cost
                                    (noncentralities up to about 2e5) */
        return GA_EMAXITER;
    double f = bint ? fmod(0.5 * d, 1) : fmod(b, 1);
    size_t n = (size_t)(0.5 * d + khi + b) + 3;
    double *tl = malloc(2 * n * sizeof *tl);
    if (!tl || lnk_table(tl, tl + n, n, f, x)) {
        free(tl);
        return GA_EMAXITER;
    }
    double s = 0, e = 0, t_lo = 0, cum = 0, ecum = 0, lmu = mu > 0 ? log(mu) : 0;
    double jnext = 0; /* a integer: c_j accumulated up to j < a_k */
    for (double k = klo; k <= khi; k++) {
        double a = 0.5 * d + k, t = 0, et = 0;
        if (bint) {
            for (double j = 0; j < b; j++) {
                double lk = LK(tl, a - j, f), ek = LK(tl + n, a - j, f);
                double l = j * lz - lg(j + 1) + LOG2 + 0.5 * (a - j) * lz + lk - lg(a);
                double c = exp(l);
                t += c;
                et += c * (ek + 4 * DBL_EPSILON * (fabs(j * lz) + lg(j + 1) + fabs(0.5 * (a - j) * lz) + fabs(lg(a)) + 1));
            }
        } else {
            for (; jnext < a; jnext++) {
                double j = jnext, lk = LK(tl, b - j, f), ek = LK(tl + n, b - j, f);
                double l = j * lz - lg(j + 1) + LOG2 + 0.5 * (b - j) * lz + lk - lg(b);
                double c = exp(l);
                cum += c;
                ecum += c * (ek + 4 * DBL_EPSILON * (fabs(j * lz) + lg(j + 1) + fabs(0.5 * (b - j) * lz) + fabs(lg(b)) + 1));
            }
            t = cum;
            et = ecum;
        }
        t = fmin(t, 1);
        if (k == klo)
            t_lo = t;
        double p = mu > 0 ? exp(k * lmu - mu - lg(k + 1)) : 1;
        double ep = mu > 0 ? 4 * DBL_EPSILON * (fabs(k * lmu) + mu + lg(k + 1) + 1) : 0;
        s += p * t;
        e += p * (et + ep * t) + 2 * DBL_EPSILON * s;
        if (!(mu > 0))
            break;
    }
    free(tl);
    if (mu > 0)
        e += ga_pois_rest(mu, khi, 0) + ga_pois_rest(mu, klo, 1) * t_lo;
    *T = fmin(s, 1);
    *err = e;
    return GA_OK;
}

/* the loss's supremum where lam_a < lam_b: its limit at z -> 0. For d > m every h_{a_k} ~
 * z^{b-1} Gamma(a_k - b)/(Gamma(a_k) Gamma(b)), so the limit is log L(lam_a)/L(lam_b); for d <=
 * m the k = 0 term dominates (z^{a_0 - 1}, or z^{b-1} log(1/z) when a_0 = b), and the limit is
 * log p_0(lam_a)/p_0(lam_b) = (lam_b - lam_a)/2 */
static double loss_sup0(double d, double m, double la, double lb)
{
    if (!(d > m))
        return 0.5 * (lb - la);
    double L[2];
    for (int i = 0; i < 2; i++) {
        double mu = 0.5 * (i ? lb : la), b = 0.5 * m, klo, khi, dropped, acc = -INFINITY;
        ga_pois_range(mu, &klo, &khi, &dropped);
        for (double k = klo; k <= khi; k++) {
            double a = 0.5 * d + k, lp = mu > 0 ? k * log(mu) - mu - lg(k + 1) : 0;
            acc = ga_logaddexp(acc, lp + lg(a - b) - lg(a));
        }
        L[i] = acc;
    }
    return L[0] - L[1];
}

double ga_synth_loss_sup(double d, double m, double la, double lb)
{
    if (la > lb)
        return INFINITY;
    if (la == lb)
        return 0;
    return loss_sup0(d, m, la, lb);
}

int ga_synth_delta(ga_result *out, double *zstar, double d, double m, double la, double lb, double eps)
{
    return ga_synth_delta_until(out, zstar, d, m, la, lb, eps, 0);
}

int ga_synth_delta_until(ga_result *out, double *zstar, double d, double m, double la, double lb,
                         double eps, double deadline)
{
    out->val = out->err = 0;
    if (zstar)
        *zstar = NAN;
    if (!(d >= 1 && m >= 1 && la >= 0 && lb >= 0 && isfinite(la) && isfinite(lb) && eps >= 0))
        return GA_EINVAL;
    if (fmod(d, 2) != 0 && fmod(m, 2) != 0)
        return GA_EDOM;
    if (la == lb)
        return GA_OK;
    int up = la > lb;
    if (!up && ga_synth_loss_sup(d, m, la, lb) <= eps)
        return GA_OK;
    /* the threshold in z (the loss is monotone): a bracket [lo, hi] by doubling z, then
     * halving it where the first point is already past the threshold; then false position */
    double e, lo = 0, hi = 0.25 * (d + la + lb) * m + 1, known = 0, glo = NAN, ghi = NAN;
    for (int k = 0; k < 3000; k++) {
        /* z* > known, and S C / 4 > known needs S or C above x = 2 sqrt(known): by Chernoff
         * at t = 1/4, P_a[Z > known] <= e^{-x/4} (2^{d/2} e^{la/2} + 2^{m/2}). Below every
         * double: delta <= that, before the loss is evaluated at z so large that it takes
         * seconds (eps 1e300) */
        double x = 2 * sqrt(known), la_ = -0.25 * x + 0.5 * d * M_LN2 + 0.5 * la,
               lc = -0.25 * x + 0.5 * m * M_LN2;
        double lt = fmax(la_, lc) + M_LN2;
        if (up && known > 1e6 && lt < -800) { /* (below 1e6: as the certified path wants) */
            out->err = fmax(exp(lt), 0x1p-1074);
            return GA_OK;
        }
        if (ga_expired(deadline)) {
            out->val = NAN;
            out->err = INFINITY;
            return GA_ETIME;
        }
        double lv = loss(d, m, la, lb, hi, &e);
        if (!isfinite(lv))
            return GA_EMAXITER; /* (no loss here: no threshold, no bound either) */
        if ((lv - eps > 0) == up) {
            ghi = up ? lv - eps : eps - lv;
            break;
        }
        known = hi;
        glo = up ? lv - eps : eps - lv;
        if (!isfinite(hi *= 2))
            return GA_EMAXITER;
    }
    lo = known;
    for (int it = 0; lo == 0 && it < 2000 && hi > 1e-250; it++) { /* (the threshold below hi) */
        if (ga_expired(deadline)) {
            out->val = NAN;
            out->err = INFINITY;
            return GA_ETIME;
        }
        double lv = loss(d, m, la, lb, 0.5 * hi, &e), g = up ? lv - eps : eps - lv;
        if (g > 0)
            hi *= 0.5, ghi = g;
        else
            lo = 0.5 * hi, glo = g; /* (a NaN loss counts as below, as in the search) */
    }
    /* false position in log z on g = +-(loss - eps), negative below the threshold: Illinois'
     * variant (an end kept twice has its g halved, so both ends converge), every fourth step
     * and every step without finite values a halving; to a bracket of 2 ulp */
    for (int it = 0, last = 0; it < 300 && hi - lo > 2 * DBL_EPSILON * hi; it++) {
        if (ga_expired(deadline)) {
            out->val = NAN;
            out->err = INFINITY;
            return GA_ETIME;
        }
        double mid = lo > 0 ? 0.5 * (lo + hi) : (hi > 1e-250 ? 0.5 * hi : hi);
        if (lo > 0 && it % 4 != 3 && glo <= 0 && ghi > 0 && isfinite(glo) && isfinite(ghi)) {
            double sl = log(lo), x = exp(sl + (log(hi) - sl) * glo / (glo - ghi));
            if (x > lo && x < hi)
                mid = x;
        }
        if (!(mid > lo) || !(mid < hi))
            break;
        double lv = loss(d, m, la, lb, mid, &e);
        ga_illinois_update(&hi, &ghi, &lo, &glo, &last, mid, up ? lv - eps : eps - lv);
    }
    double z = 0.5 * (lo + hi), ta, ea, tb, eb;
    if (zstar)
        *zstar = z;
    int rc = tail(&ta, &ea, d, m, la, z);
    if (!rc)
        rc = tail(&tb, &eb, d, m, lb, z);
    if (rc) {
        out->val = NAN;
        out->err = INFINITY;
        return rc;
    }
    double ee = exp(eps), a = up ? ta : 1 - ta, b = up ? tb : 1 - tb;
    out->val = fmax(a - ee * b, 0);
    /* the threshold's error dz (the loss's error over its slope, the search's final bracket):
     * delta is stationary there, h' = +-f_b (e^eps - e^l), so it moves by at most dz f_b e^eps
     * expm1(|l'| dz) (f_b and l' within a factor 2 over dz, which dz far below their scales
     * ensures; else the first-order dz (f_a + e^eps f_b)) */
    double lf[2], ef[2], e2, hz = 1e-6 * z + 1e-300;
    log_dens2(lf, ef, d, m, la, lb, z);
    double l0 = lf[0] - lf[1], el = ef[0] + ef[1];
    double slope = fabs(loss(d, m, la, lb, z + hz, &e2) - l0) / hz;
    double dz = (el + e2) / fmax(slope, 1e-300) + 4 * DBL_EPSILON * z;
    double fa = exp(lf[0]), fb = exp(lf[1]);
    double thr = dz < 1e-3 * z && slope * dz < 1e-3 ? 2 * dz * fb * ee * expm1(2 * slope * dz)
                                                    : dz * (fa + ee * fb);
    out->err = ea + ee * eb + thr + 4 * DBL_EPSILON * (a + ee * b);
    if (isnan(out->err) || isnan(out->val)) { /* (an error that cannot be bounded: no value) */
        out->val = NAN;
        out->err = INFINITY;
        return GA_EMAXITER;
    }
    if (out->err < 1e-300) /* (tails below the doubles' range: delta is below them too) */
        out->err = 1e-300;
    return GA_OK;
}

int ga_synth_tail(double *T, double d, double m, double lam, double z)
{
    double e;
    return tail(T, &e, d, m, lam, z);
}

/* ---------------------------------------------------------------- ball arithmetic */

/* add to acc the dropped Poisson weights' contribution: the mass above khi times hi_fac plus
 * the mass below klo times lo_fac (bounds of the dropped terms); GA_EPREC when the geometric
 * bounds are not certain */
static int add_dropped(arb_t acc, const arb_t mu, const arb_t lmu, double klo, double khi,
                       const arb_t hi_fac, const arb_t lo_fac, slong prec)
{
    arf_t ub, lb;
    arb_t c, e;
    arf_init(ub);
    arf_init(lb);
    arb_init(c);
    arb_init(e);
    int rc = GA_OK;
    if (!ga_pois_rest_arb(ub, mu, lmu, khi, 0, prec) || !ga_pois_rest_arb(lb, mu, lmu, klo, 1, prec)) {
        rc = GA_EPREC;
    } else {
        arb_set_arf(c, lb);
        arb_mul(c, c, lo_fac, prec);
        arb_set_arf(e, ub);
        arb_addmul(c, e, hi_fac, prec);
        arb_get_ubound_arf(ub, c, prec);
        arb_add_error_arf(acc, ub);
    }
    arf_clear(ub);
    arf_clear(lb);
    arb_clear(c);
    arb_clear(e);
    return rc;
}

/* the upper tail at the exact z, in Arb: the same sums, with every K_nu(x) of the orders needed
 * (all in f + {0, 1, 2, ...}, f = 0 or 1/2, K_{-nu} = K_nu) from two of arb_hypgeom_bessel_k by
 * the upward recurrence K_{nu+1} = K_{nu-1} + (2 nu/x) K_nu (stable: K grows with the order),
 * and the other factors and the Poisson weights by their ratios */
static int tail_arb(arb_t res, double d, double m, const arb_t lam, const arf_t zf, slong prec)
{
    if (arf_is_zero(zf)) {
        arb_one(res);
        return GA_OK;
    }
    double b = 0.5 * m, klo, khi, dropped;
    int bint = fmod(m, 2) == 0;
    ga_pois_range(0.5 * arf_get_d(arb_midref(lam), ARF_RND_NEAR), &klo, &khi, &dropped);
    if (khi > 4000 || 0.5 * d + khi + b > 1e5) /* noncentralities above about 7000, or large d:
                       the Bessel sums run over every order up to d/2 + khi, too slow in ball
                       arithmetic (not certified); the cap also bounds the table allocated */
        return GA_EPREC;
    arb_t z, x, sz, mu, lmu, p, t, c, g, acc, cum, t_lo, fac;
    arb_init(z); arb_init(x); arb_init(sz); arb_init(mu); arb_init(lmu); arb_init(p); arb_init(t);
    arb_init(c); arb_init(g); arb_init(acc); arb_init(cum); arb_init(t_lo); arb_init(fac);
    arb_ptr K = NULL;
    slong nk = 0;
    int rc = GA_OK;
    arb_set_arf(z, zf);
    arb_sqrt(sz, z, prec);
    arb_mul_2exp_si(x, sz, 1);
    arb_mul_2exp_si(mu, lam, -1);
    int zero_mu = arb_is_zero(mu);
    if (!zero_mu && !arb_is_positive(mu)) {
        rc = GA_EPREC;
        goto cleanup;
    }
    if (zero_mu)
        klo = khi = 0;
    else
        arb_log(lmu, mu, prec);
    /* K_{f + i}(x), i = 0 .. nk - 1 */
    double f = bint ? fmod(0.5 * d, 1) : fmod(b, 1);
    nk = (slong)(0.5 * d + khi + b) + 3;
    K = _arb_vec_init(nk);
    arb_set_d(g, f);
    arb_hypgeom_bessel_k(K, g, x, prec);
    arb_set_d(g, f + 1);
    arb_hypgeom_bessel_k(K + 1, g, x, prec);
    for (slong i = 1; i + 1 < nk; i++) {
        arb_set_d(g, 2 * (f + (double)i));
        arb_div(g, g, x, prec);
        arb_mul(K + i + 1, K + i, g, prec);
        arb_add(K + i + 1, K + i + 1, K + i - 1, prec);
    }
#define KABS(nu) (K + (slong)(fabs(nu) - f + 0.5))
    if (zero_mu)
        arb_one(p);
    else
        ga_pois_weight_arb(p, mu, lmu, klo, prec);
    if (bint) {
        /* t_a = 2 z^{a/2}/Gamma(a) sum_{j<b} z^{j/2}/j! K_{a-j}(x); fac = z^{a/2}/Gamma(a) */
        double a0 = 0.5 * d + klo;
        arb_set_d(g, a0);
        arb_lgamma(g, g, prec);
        arb_log(fac, z, prec);
        arb_mul_2exp_si(fac, fac, -1);
        arb_set_d(c, a0); /* a half-integer: exact */
        arb_mul(fac, fac, c, prec);
        arb_sub(fac, fac, g, prec);
        arb_exp(fac, fac, prec);
        for (double k = klo; k <= khi; k++) {
            double a = 0.5 * d + k;
            arb_zero(t);
            arb_one(c); /* z^{j/2}/j! */
            for (double j = 0; j < b; j++) {
                if (j > 0) {
                    arb_mul(c, c, sz, prec);
                    arb_div_ui(c, c, (ulong)j, prec);
                }
                arb_addmul(t, c, KABS(a - j), prec);
            }
            arb_mul(t, t, fac, prec);
            arb_mul_2exp_si(t, t, 1);
            if (k == klo)
                arb_set(t_lo, t);
            arb_addmul(acc, p, t, prec);
            arb_mul(fac, fac, sz, prec);
            arb_set_d(c, a);
            arb_div(fac, fac, c, prec);     /* z^{(a+1)/2}/Gamma(a + 1) */
            arb_mul(p, p, mu, prec);
            arb_div_ui(p, p, (ulong)(k + 1), prec);
            if (zero_mu)
                break;
        }
    } else {
        /* c_j = 2 z^{(b+j)/2}/(j! Gamma(b)) K_{b-j}(x), t_{a_k} = sum_{j<a_k} c_j */
        arb_set_d(g, b);
        arb_lgamma(g, g, prec);
        arb_log(fac, z, prec);
        arb_mul_2exp_si(fac, fac, -1);
        arb_set_d(c, b);
        arb_mul(fac, fac, c, prec);
        arb_sub(fac, fac, g, prec);
        arb_exp(fac, fac, prec);     /* z^{b/2}/Gamma(b), then times z^{j/2}/j! */
        double j = 0;
        for (double k = klo; k <= khi; k++) {
            double a = 0.5 * d + k;
            for (; j < a; j++) {
                if (j > 0) {
                    arb_mul(fac, fac, sz, prec);
                    arb_div_ui(fac, fac, (ulong)j, prec);
                }
                arb_mul(c, fac, KABS(b - j), prec);
                arb_mul_2exp_si(c, c, 1);
                arb_add(cum, cum, c, prec);
            }
            arb_set(t, cum);
            if (k == klo)
                arb_set(t_lo, t);
            arb_addmul(acc, p, t, prec);
            arb_mul(p, p, mu, prec);
            arb_div_ui(p, p, (ulong)(k + 1), prec);
            if (zero_mu)
                break;
        }
    }
#undef KABS
    if (!zero_mu) { /* dropped weights: above khi t <= 1, below klo t <= t(klo) */
        arb_one(c);
        rc = add_dropped(acc, mu, lmu, klo, khi, c, t_lo, prec);
    }
    arb_set(res, acc);
cleanup:
    if (K)
        _arb_vec_clear(K, nk);
    arb_clear(z); arb_clear(x); arb_clear(sz); arb_clear(mu); arb_clear(lmu); arb_clear(p);
    arb_clear(t); arb_clear(c); arb_clear(g); arb_clear(acc); arb_clear(cum); arb_clear(t_lo);
    arb_clear(fac);
    return rc;
}

/* h(u, v) = T_a(u) - e^eps T_b(v) (up) or (1 - T_a(v)) - e^eps (1 - T_b(u)) (down) */
static int h_arb(arb_t res, double d, double m, const arb_t la, const arb_t lb, const arf_t u,
                 const arf_t v, const arb_t ee, int up, slong prec)
{
    arb_t A, B;
    arb_init(A);
    arb_init(B);
    int rc = tail_arb(A, d, m, la, up ? u : v, prec);
    if (!rc)
        rc = tail_arb(B, d, m, lb, up ? v : u, prec);
    if (!up) {
        arb_sub_ui(A, A, 1, prec);
        arb_neg(A, A);
        arb_sub_ui(B, B, 1, prec);
        arb_neg(B, B);
    }
    arb_mul(B, B, ee, prec);
    arb_sub(res, A, B, prec);
    arb_clear(A);
    arb_clear(B);
    return rc;
}

/* L(lam) = sum_k p_k Gamma(a_k - b)/Gamma(a_k) (d > m), enclosed with its dropped weights
 * (the terms decrease in k: above khi at most the khi term, below klo at most the k = 0 term) */
static int limit_arb(arb_t res, double d, double m, const arb_t lam, slong prec)
{
    double klo, khi, dropped, b = 0.5 * m;
    ga_pois_range(0.5 * arf_get_d(arb_midref(lam), ARF_RND_NEAR), &klo, &khi, &dropped);
    arb_t mu, lmu, p, g, h, acc;
    arb_init(mu); arb_init(lmu); arb_init(p); arb_init(g); arb_init(h); arb_init(acc);
    int rc = GA_OK;
    arb_mul_2exp_si(mu, lam, -1);
    int zero_mu = arb_is_zero(mu);
    if (zero_mu)
        klo = khi = 0;
    else if (arb_is_positive(mu) && khi <= 4000)
        arb_log(lmu, mu, prec);
    else
        rc = GA_EPREC;
    /* g_k = Gamma(a_k - b)/Gamma(a_k) and p_k by their ratios from k = klo */
    if (rc == GA_OK) {
        arb_set_d(g, 0.5 * d + klo - b);
        arb_lgamma(g, g, prec);
        arb_set_d(h, 0.5 * d + klo);
        arb_lgamma(h, h, prec);
        arb_sub(g, g, h, prec);
        arb_exp(g, g, prec);
        if (zero_mu)
            arb_one(p);
        else
            ga_pois_weight_arb(p, mu, lmu, klo, prec);
    }
    for (double k = klo; rc == GA_OK && k <= khi; k++) {
        arb_addmul(acc, p, g, prec);
        arb_set_d(h, 0.5 * d + k - b);
        arb_mul(g, g, h, prec);
        arb_set_d(h, 0.5 * d + k);
        arb_div(g, g, h, prec);
        arb_mul(p, p, mu, prec);
        arb_div_ui(p, p, (ulong)(k + 1), prec);
    }
    if (rc == GA_OK && !zero_mu) {
        /* the largest term: k = 0 (Gamma(a - b)/Gamma(a) decreases in a for b > 0) */
        arb_set_d(g, 0.5 * d - b);
        arb_lgamma(g, g, prec);
        arb_set_d(h, 0.5 * d);
        arb_lgamma(h, h, prec);
        arb_sub(g, g, h, prec);
        arb_exp(g, g, prec);
        rc = add_dropped(acc, mu, lmu, klo, khi, g, g, prec);
    }
    arb_set(res, acc);
    arb_clear(mu); arb_clear(lmu); arb_clear(p); arb_clear(g); arb_clear(h); arb_clear(acc);
    return rc;
}

int ga_synth_delta_arb(arb_t res, double d, double m, const arb_t la, const arb_t lb,
                       const arb_t eps, double z_hint, slong want, slong prec)
{
    arb_t df, ee, hc, hu, hv, up_b;
    arf_t u, v, c;
    arb_init(df); arb_init(ee); arb_init(hc); arb_init(hu); arb_init(hv); arb_init(up_b);
    arf_init(u); arf_init(v); arf_init(c);
    int rc = GA_OK;
    if (fmod(d, 2) != 0 && fmod(m, 2) != 0) {
        rc = GA_EDOM;
        goto cleanup;
    }
    arb_sub(df, la, lb, prec);
    if (arb_is_zero(df)) {
        arb_zero(res);
        goto cleanup;
    }
    if (!arb_is_positive(df) && !arb_is_negative(df)) {
        rc = GA_EPREC;
        goto cleanup;
    }
    int up = arb_is_positive(df);
    if (!up) { /* the loss is at most log L(la)/L(lb) (d > m) or (lb - la)/2 (d <= m) */
        arb_t A, B;
        arb_init(A);
        arb_init(B);
        int none = 0;
        if (d > m) {
            int r1 = limit_arb(A, d, m, la, prec), r2 = limit_arb(B, d, m, lb, prec);
            if (!r1 && !r2 && arb_is_positive(A) && arb_is_positive(B)) {
                arb_div(A, A, B, prec);
                arb_log(A, A, prec);
                none = arb_le(A, eps);
            }
        } else {
            arb_neg(A, df);
            arb_mul_2exp_si(A, A, -1);
            none = arb_le(A, eps);
        }
        arb_clear(A);
        arb_clear(B);
        if (none) {
            arb_zero(res);
            goto cleanup;
        }
    }
    if (!(z_hint > 0) || !isfinite(z_hint) || prec > 2048) { /* (Bessel K beyond 2048 bits
                                                                   costs seconds per call) */
        rc = GA_EPREC;
        goto cleanup;
    }
    arb_exp(ee, eps, prec);
    /* three points around the double threshold: h(c) above h(u) and h(v) brackets the
     * maximiser (h is unimodal); widen until certified. The bracket's relative width aimed
     * at: what the precision can separate, 2^(4 - prec/2), or with want a width wrel
     * (2^-(want + 8) first, which the upper bound's excess, about the width times z (f_a +
     * e^eps f_b), keeps within 2^-want unless delta is far in a tail: then narrower) */
    double wrel = want > 0 ? ldexp(1.0, -(int)want - 8) : 0, g0 = ldexp(1.0, -(int)(prec / 2) + 4);
    arf_set_d(c, z_hint);
    if ((rc = h_arb(hc, d, m, la, lb, c, c, ee, up, prec)))
        goto cleanup;
    int found = 0;
    for (double g = fmax(g0, 0.25 * wrel); g < 0.5 && !found; g *= 4) {
        arf_set_d(u, z_hint * (1 - g));
        arf_set_d(v, z_hint * (1 + g));
        if ((rc = h_arb(hu, d, m, la, lb, u, u, ee, up, prec)) ||
            (rc = h_arb(hv, d, m, la, lb, v, v, ee, up, prec)))
            goto cleanup;
        found = arb_gt(hc, hu) && arb_gt(hc, hv);
    }
    if (!found) {
        rc = GA_EPREC;
        goto cleanup;
    }
    /* narrow the bracket by halving while the comparisons stay certain: keep the best of the
     * midpoints of [u, c], [c, v] and c with its two neighbours (h is unimodal); with want,
     * to the width wrel, then 2^-8 times narrower while the enclosure is not accurate */
    for (int tight = 0; !tight;) {
        arf_t c1, c2;
        arb_t h1, h2;
        arf_init(c1);
        arf_init(c2);
        arb_init(h1);
        arb_init(h2);
        tight = 1; /* (the loop ends at the width the precision sets, or undecided) */
        for (int it = 0; it < 400 && rc == GA_OK; it++) {
            arf_sub(c1, v, u, prec, ARF_RND_UP);
            if (arf_cmpabs_2exp_si(c1, arf_abs_bound_lt_2exp_si(c) - prec / 2 - 4) < 0)
                break;
            if (wrel * z_hint > 0 && arf_cmpabs_2exp_si(c1, (slong)floor(log2(wrel * z_hint))) < 0) {
                tight = 0;
                break;
            }
            arf_add(c1, u, c, ARF_PREC_EXACT, ARF_RND_DOWN);
            arf_mul_2exp_si(c1, c1, -1);
            arf_add(c2, c, v, ARF_PREC_EXACT, ARF_RND_DOWN);
            arf_mul_2exp_si(c2, c2, -1);
            if ((rc = h_arb(h1, d, m, la, lb, c1, c1, ee, up, prec)) ||
                (rc = h_arb(h2, d, m, la, lb, c2, c2, ee, up, prec)))
                break;
            if (arb_gt(h1, hc)) {        /* the maximiser lies in (u, c) */
                arf_set(v, c);
                arf_set(c, c1);
                arb_set(hc, h1);
            } else if (arb_gt(h2, hc)) { /* in (c, v) */
                arf_set(u, c);
                arf_set(c, c2);
                arb_set(hc, h2);
            } else if (arb_gt(hc, h1) && arb_gt(hc, h2)) {
                arf_set(u, c1);
                arf_set(v, c2);
            } else {
                break; /* this precision cannot tell */
            }
        }
        arf_clear(c1);
        arf_clear(c2);
        arb_clear(h1);
        arb_clear(h2);
        if (rc)
            goto cleanup;
        if ((rc = h_arb(up_b, d, m, la, lb, u, v, ee, up, prec)))
            goto cleanup;
        rc = ga_arb_delta_interval(res, hc, up_b, prec);
        if (rc != GA_OK || arb_is_zero(res) || arb_rel_accuracy_bits(res) > want)
            tight = 1; /* (accurate, or a narrower bracket cannot help) */
        wrel = ldexp(wrel, -8);
    }
cleanup:
    if (rc)
        arb_zero_pm_one(res);
    arb_clear(df); arb_clear(ee); arb_clear(hc); arb_clear(hu); arb_clear(hv); arb_clear(up_b);
    arf_clear(u); arf_clear(v); arf_clear(c);
    return rc;
}

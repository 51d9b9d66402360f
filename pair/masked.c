/*
 * masked.c - privacy profiles of a pair of noncentral chi-square laws with the same degrees
 * of freedom: the release of matrix masking's setting (B) for one column (Ding, Wu, Miao &
 * Chen, "Reducing Noise Level in Differential Privacy through Matrix Masking", setting (B):
 * Y = A (x + c), A uniformly random orthogonal n x n, c ~ N(0, sigma^2 I_n)), in double
 * precision with error estimates and in Arb ball arithmetic.
 *
 * Why this is the whole release: for a fixed v = x + c, A v is uniform on the sphere of radius
 * |v| whatever the direction of v, so |v|^2 is sufficient and the law of the release given
 * |v| does not depend on x; w = |v|^2 / sigma^2 is noncentral chi-square with nu = n degrees
 * of freedom and noncentrality lambda = |x|^2 / sigma^2. Its density is the Poisson mixture
 *   f_lambda(w) = sum_k Pois(k; lambda/2) g_{nu + 2k}(w)  (g_r the chi^2_r density),
 * so f_la / f_lb = e^{-(la - lb)/2} 0F1(; nu/2; la w/4) / 0F1(; nu/2; lb w/4), increasing in
 * w when la > lb (the family has a monotone likelihood ratio: the ratio of two 0F1 series in
 * la w and lb w). The privacy loss l(w) = log f_a/f_b is therefore monotone, the optimal
 * event of delta_{a,b}(eps) = sup_S P_a(S) - e^eps P_b(S) is a threshold event, and
 *   la > lb: delta = Q_a(w*) - e^eps Q_b(w*), l(w*) = eps (l runs from -(la - lb)/2 to inf),
 *   la < lb: delta = P_a(w*) - e^eps P_b(w*), l(w*) = eps, or 0 when (lb - la)/2 <= eps,
 * with P, Q the lower and upper tails. Moreover delta = max_w [Q_a(w) - e^eps Q_b(w)] (resp.
 * with P): any w gives a lower bound, and a bracket [u, v] of w* gives the upper bound
 * Q_a(u) - e^eps Q_b(v) (both tails decrease in w). The certified evaluation uses exactly
 * these two facts, so only the sign of l(w) - eps at the bracket's ends must be certified.
 *
 * The tails are Poisson mixtures of regularized incomplete gamma functions,
 *   Q_lambda(w) = sum_k p_k Q(nu/2 + k, w/2),  P_lambda(w) = sum_k p_k P(nu/2 + k, w/2),
 * every term in [0, p_k]: the sum over k_lo..k_hi plus the dropped Poisson mass (bounded by
 * the geometric ratio of the Poisson weights beyond the mode) encloses them. Along k one seed
 * and the recurrences Q(s + 1, x) = Q(s, x) + t_s, P(s, x) = P(s + 1, x) + t_s, t_s = x^s
 * e^{-x} / Gamma(s + 1) (upward for Q, downward for P) add only positive terms, so neither
 * loses accuracy. 0F1 by its power series summed outward from its largest term.
 */
#include "numerics/arb.h"
#include "pair/loss.h"


#include <float.h>
#include <math.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- double precision */

/* log 0F1(; b; z) for z >= 0; *err: an estimate of its absolute error */
static double log0f1(double b, double z, double *err)
{
    if (!(z > 0)) {
        *err = 0;
        return 0;
    }
    /* the largest term t_k = z^k / ((b)_k k!): t_{k+1}/t_k = z / ((b + k)(k + 1)) */
    double kk = floor(0.5 * (-(b + 1) + sqrt((b - 1) * (b - 1) + 4 * z)));
    if (kk < 0)
        kk = 0;
    double lt = kk * log(z) + ga_lgamma(b) - ga_lgamma(b + kk) - ga_lgamma(kk + 1);
    double s = 1, t = 1;
    size_t n = 1;
    for (double k = kk; n < 100000000; k++, n++) { /* upward */
        t *= z / ((b + k) * (k + 1));
        s += t;
        if (t < 1e-18 * s)
            break;
    }
    t = 1;
    for (double k = kk; k > 0; k--, n++) { /* downward: t_{k-1} = t_k (b + k - 1) k / z */
        t *= (b + k - 1) * k / z;
        s += t;
        if (t < 1e-18 * s)
            break;
    }
    *err = 4 * DBL_EPSILON * (fabs(kk * log(z)) + fabs(ga_lgamma(b + kk)) + ga_lgamma(kk + 1) + fabs(ga_lgamma(b)) + 2.0 * n);
    return lt + log(s);
}

/* the privacy loss l(w) = log f_a(w) / f_b(w) and an estimate of its absolute error */
static double loss(double nu, double la, double lb, double w, double *err)
{
    double e1, e2;
    double v = -0.5 * (la - lb) + log0f1(0.5 * nu, 0.25 * la * w, &e1) - log0f1(0.5 * nu, 0.25 * lb * w, &e2);
    *err = e1 + e2 + 4 * DBL_EPSILON * (fabs(v) + fabs(0.5 * (la - lb)));
    return v;
}

/* The Poisson range k_lo..k_hi of mean mu outside which the mass is negligible (e^-80 or
 * so of the whole), and a bound of that mass (the ratio bounds of ga_pois_rest). */
void ga_pois_range(double mu, double *klo, double *khi, double *dropped)
{
    if (!(mu > 0)) {
        *klo = *khi = 0;
        *dropped = 0;
        return;
    }
    double sd = sqrt(mu);
    *klo = fmax(0, floor(mu - 13 * sd - 10));
    *khi = ceil(mu + 13 * sd + 40);
    *dropped = ga_pois_rest(mu, *klo, 1) + ga_pois_rest(mu, *khi, 0);
}

/* the Poisson mass below k (lower) or above k: sum_{j < k} p_j <= p_{k-1} / (1 - (k - 1)/mu)
 * for k - 1 < mu, sum_{j > k} p_j <= p_{k+1} / (1 - mu/(k + 2)) for k + 2 > mu (else 1) */
double ga_pois_rest(double mu, double k, int lower)
{
    if (lower && k <= 0)
        return 0;
    double j = lower ? k - 1 : k + 1, r = lower ? j / mu : mu / (j + 1);
    if (!(r < 1))
        return 1;
    return exp(j * log(mu) - mu - ga_lgamma(j + 1)) / (1 - r);
}

/* log(x^a e^{-x} / Gamma(a + 1)) and an estimate of its absolute error. For a >= 10 in
 * Temme's form a (log1p(u) - u) - log(2 pi a)/2 - R(a), u = (x - a)/a, R the Stirling series of
 * log Gamma(a + 1) - (a + 1/2) log a + a - log(2 pi)/2: no cancellation between terms of size
 * a log x (which cost 1e-9 relative at a = 5e5 when summed directly). */
static double log_gamma_prefactor(double a, double x, double *err)
{
    if (a < 10) {
        double v = a * log(x) - x - ga_lgamma(a + 1);
        *err = 4 * DBL_EPSILON * (fabs(a * log(x)) + x + fabs(ga_lgamma(a + 1)) + 1);
        return v;
    }
    double u = (x - a) / a, d;
    if (fabs(u) < 0.1) { /* log1p(u) - u = -u^2/2 + u^3/3 - ... */
        double term = -u * u / 2, sum = 0;
        for (int k = 2; k < 60 && fabs(term) > 1e-18 * fabs(sum); k++) {
            sum += term;
            term *= -u * k / (k + 1);
        }
        d = sum;
    } else {
        d = log1p(u) - u;
    }
    double ia = 1 / a, ia2 = ia * ia;
    double R = ia * (1.0 / 12 - ia2 * (1.0 / 360 - ia2 * (1.0 / 1260 - ia2 / 1680)));
    double v = a * d - 0.5 * log(2 * M_PI * a) - R;
    *err = 8 * DBL_EPSILON * (fabs(a * d) + fabs(0.5 * log(2 * M_PI * a)) + 1) + 1e-17;
    return v;
}

/* the regularized P(a, x) and Q(a, x) with a relative error estimate of the smaller one (the
 * other is 1 minus it): the series x^a e^{-x}/Gamma(a + 1) sum_j x^j/((a+1)...(a+j)) for P when
 * x < a + 1, else the continued fraction of Q (modified Lentz). GSL's gamma_inc was off by
 * 2e-6 at a = 5e5, x/a = 0.9988 with an error estimate of 4e-13; these have no such region. */
static int gamma_pq(double a, double x, double *P, double *Q, double *rel)
{
    double le, lt = log_gamma_prefactor(a, x, &le), t = exp(lt);
    if (x < a + 1) {
        double term = 1, sum = 1;
        long j;
        for (j = 1; j < 100000000; j++) {
            term *= x / (a + j);
            sum += term;
            if (term < 1e-17 * sum)
                break;
        }
        *P = t * sum;
        *Q = 1 - *P;
        *rel = le + (4.0 * j + 8) * DBL_EPSILON;
        if (*P > 0.5) /* Q by subtraction: its relative error grows */
            *rel *= *P / fmax(*Q, 1e-300);
        return j < 100000000 ? GA_OK : GA_EMAXITER;
    }
    /* Q = x^a e^{-x}/Gamma(a) * 1/(x + 1 - a - 1 (1 - a)/(x + 3 - a - 2 (2 - a)/(x + 5 - a - ...))) */
    double b = x + 1 - a, c = 1 / 1e-300, d = 1 / b, h = d;
    long i;
    for (i = 1; i < 100000000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < 1e-300)
            d = 1e-300;
        c = b + an / c;
        if (fabs(c) < 1e-300)
            c = 1e-300;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    *Q = t * a * h; /* x^a e^{-x}/Gamma(a) = a t */
    *P = 1 - *Q;
    *rel = le + (8.0 * i + 16) * DBL_EPSILON;
    if (*Q > 0.5)
        *rel *= *Q / fmax(*P, 1e-300);
    return i < 100000000 ? GA_OK : GA_EMAXITER;
}

/* upper and lower tails of the noncentral chi-square (nu, lam) at w, with absolute error
 * estimates, and its density there: the same sums as ncx2_tail_arb below (GSL seeds) */
static int ncx2_tails(double *Q, double *eq, double *P, double *ep, double *dens, double nu,
                      double lam, double w)
{
    double mu = 0.5 * lam, x = 0.5 * w, s = 0.5 * nu, klo, khi, dropped;
    *dens = 0;
    if (!(x > 0)) {
        *Q = 1;
        *P = 0;
        *eq = *ep = 0;
        return GA_OK;
    }
    ga_pois_range(mu, &klo, &khi, &dropped);
    double lmu = mu > 0 ? log(mu) : 0;
    /* the seeds Q(s + klo, x), P(s + khi, x) with absolute errors */
    struct { double val, err; } q0, p0;
    double pp, qq, rq, rp;
    if (gamma_pq(s + klo, x, &pp, &qq, &rq))
        return GA_EMAXITER;
    q0.val = qq;
    q0.err = rq * (pp < qq ? pp : qq) + 4 * DBL_EPSILON * qq;
    if (gamma_pq(s + khi, x, &pp, &qq, &rp))
        return GA_EMAXITER;
    p0.val = pp;
    p0.err = rp * (pp < qq ? pp : qq) + 4 * DBL_EPSILON * pp;
    /* Q upward from klo; the density x^{s+k-1} e^{-x} / (2 Gamma(s + k)) = t_k (s + k) / (2 x) */
    double p = mu > 0 ? exp(klo * lmu - mu - ga_lgamma(klo + 1)) : 1;
    double et, t = exp(log_gamma_prefactor(s + klo, x, &et)), qk = q0.val, sq = 0, d = 0;
    /* the exponents of t_klo and p_klo carry absolute rounding errors of their size: relative
     * errors of every t (a common factor: ratios follow) and of every weight */
    double epw = mu > 0 ? 4 * DBL_EPSILON * (fabs(klo * lmu) + mu + ga_lgamma(klo + 1) + 1) : 0;
    double st = 0; /* sum_k p_k (Q_k - Q_klo): the part the t's make */
    double k = klo;
    for (;; k++) {
        sq += p * qk;
        st += p * (qk - q0.val);
        d += p * 0.5 * t * (s + k) / x;
        if (!(mu > 0))
            break;
        qk += t;
        t *= x / (s + k + 1);
        p *= mu / (k + 1);
        if (k >= khi) {
            double rest = ga_pois_rest(mu, k, 0);
            if (rest <= 1e-18 * sq || k > khi + 4e6) {
                sq += 0; /* the rest goes into the error */
                *eq = rest;
                break;
            }
        }
    }
    double nq = k - klo + 1;
    *eq += (mu > 0 ? ga_pois_rest(mu, klo, 1) * q0.val : 0) + q0.err * (sq / fmax(q0.val, 1e-300)) +
           (4 * nq + 16) * DBL_EPSILON * sq + et * st + epw * sq;
    if (!(mu > 0))
        *eq = q0.err + 16 * DBL_EPSILON * sq;
    /* P downward from khi */
    size_t K = (size_t)(khi - klo) + 1;
    double *tv = malloc(K * sizeof *tv);
    if (!tv)
        return GA_ENOMEM;
    t = exp(log_gamma_prefactor(s + klo, x, &et));
    for (size_t i = 0; i < K; i++) {
        tv[i] = t;
        t *= x / (s + klo + i + 1);
    }
    p = mu > 0 ? exp(khi * lmu - mu - ga_lgamma(khi + 1)) : 1;
    double pk = p0.val, sp = 0, spt = 0;
    for (size_t i = K; i-- > 0;) {
        sp += p * pk;
        spt += p * (pk - p0.val);
        if (i) {
            pk += tv[i - 1];
            p *= (klo + i) / mu;
        }
    }
    free(tv);
    *ep = (mu > 0 ? ga_pois_rest(mu, klo, 1) + ga_pois_rest(mu, khi, 0) * p0.val : 0) +
          p0.err * (sp / fmax(p0.val, 1e-300)) + (4.0 * K + 16) * DBL_EPSILON * sp + et * spt +
          4 * DBL_EPSILON * (fabs(khi * lmu) + mu + ga_lgamma(khi + 1) + 1) * sp;
    *Q = fmin(sq, 1);
    *P = fmin(sp, 1);
    *dens = d;
    return GA_OK;
}

int ga_ncx2_tail(double *Q, double *P, double nu, double lam, double w)
{
    double eq, ep, d;
    return ncx2_tails(Q, &eq, P, &ep, &d, nu, lam, w);
}

/* the threshold w* >= 0 with l(w*) = eps (l monotone; up: increasing) by bisection; returns
 * 0 when found, 1 when l never reaches eps on (0, inf) */
static int threshold(double *w, double nu, double la, double lb, double eps, int up,
                     double *tail)
{
    double e, lo = 0, hi = nu + la + lb + 1, known = 0;
    int k = 0;
    while (k++ < 2000) {
        /* w* > known: where P_a[W > known] is below every double (the Chernoff bound at t =
         * 1/4, E e^{W/4} = 2^{nu/2} e^{la/2}), delta <= that tail: stop, before the loss is
         * evaluated at w so large that its series takes minutes */
        double lt = -0.25 * known + 0.5 * nu * M_LN2 + 0.5 * la;
        if (up && known > 1e6 && lt < -800) { /* (below 1e6 the loss is cheap, and the
                                                   certified path wants the threshold) */
            *tail = lt;
            return 2;
        }
        double lv = loss(nu, la, lb, hi, &e);
        if (!isfinite(lv))
            return 1; /* (no loss here: no threshold, no bound either) */
        if ((lv - eps > 0) == up)
            break;
        known = hi;
        if (!isfinite(hi *= 2))
            return 1;
    }
    for (int it = 0; it < 200 && hi - lo > 2 * DBL_EPSILON * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if ((loss(nu, la, lb, mid, &e) - eps > 0) == up)
            hi = mid;
        else
            lo = mid;
    }
    *w = 0.5 * (lo + hi);
    return 0;
}

int ga_ncx2_delta(ga_result *out, double *wstar, double nu, double la, double lb, double eps)
{
    out->val = out->err = 0;
    if (wstar)
        *wstar = NAN;
    if (!(nu >= 1 && la >= 0 && lb >= 0 && isfinite(la) && isfinite(lb) && eps >= 0))
        return GA_EINVAL;
    if (la == lb)
        return GA_OK; /* the same law */
    int up = la > lb;
    if (!up && 0.5 * (lb - la) <= eps)
        return GA_OK; /* the loss never exceeds eps */
    double w, eqa, epa, eqb, epb, qa, pa, da, qb, pb, db, el, tail;
    int th = threshold(&w, nu, la, lb, eps, up, &tail);
    if (th == 2) { /* delta <= P_a[W > w*] < e^tail, below every double */
        out->err = fmax(exp(tail), 0x1p-1074);
        return GA_OK;
    }
    if (th)
        return GA_EMAXITER;
    if (wstar)
        *wstar = w;
    int rc = ncx2_tails(&qa, &eqa, &pa, &epa, &da, nu, la, w);
    if (!rc)
        rc = ncx2_tails(&qb, &eqb, &pb, &epb, &db, nu, lb, w);
    if (rc) {
        out->val = NAN;
        out->err = INFINITY;
        return rc;
    }
    double ee = exp(eps), a = up ? qa : pa, b = up ? qb : pb;
    out->val = fmax(a - ee * b, 0);
    /* the threshold's error dw: the loss's error over its slope, and the bisection's width.
     * delta is stationary at w*: the derivative of h(w) = Q_a - e^eps Q_b (or P_a - e^eps
     * P_b) is +-f_b (e^eps - e^l), and within dw of w* |e^l - e^eps| <= e^eps expm1(|l'| dw),
     * so h moves by at most dw f_b e^eps expm1(|l'| dw) (f_b and l' within a factor 2 of
     * their values at the computed threshold, which dw far below their scales ensures) */
    double l0 = loss(nu, la, lb, w, &el), e2, h = 1e-6 * w + 1e-300;
    double slope = fabs(loss(nu, la, lb, w + h, &e2) - l0) / h;
    double dw = (el + e2) / fmax(slope, 1e-300) + 4 * DBL_EPSILON * w;
    double thr = dw < 1e-3 * w && slope * dw < 1e-3 ? 2 * dw * db * ee * expm1(2 * slope * dw)
                                                    : dw * (da + ee * db);
    out->err = (up ? eqa + ee * eqb : epa + ee * epb) + thr + 4 * DBL_EPSILON * (a + ee * b);
    if (!(out->err >= 1e-300))
        out->err = 1e-300; /* there is an event: delta > 0, perhaps below the double range */
    return GA_OK;
}

/* ---------------------------------------------------------------- ball arithmetic */

/* log 0F1(; b; z) for z >= 0 by its series of positive terms t_{k+1} = t_k z / ((b + k)(k +
 * 1)), summed until the ratio is below 1/2 and the geometric bound of the rest is below 2^-prec
 * of the sum (then added); [+-inf] when 10^7 terms do not suffice. (Arb's arb_hypgeom_0f1 gave
 * wide balls for b and z in the 10^5..10^7 range in the Arb this was written against.) */
static void log0f1_arb(arb_t res, const arb_t b, const arb_t z, slong prec)
{
    arb_t t, S, u;
    arb_init(t); arb_init(S); arb_init(u);
    arb_one(t);
    arb_one(S);
    int done = arb_is_zero(z);
    /* the ratio falls below 1/2 past k with (b + k)(k + 1) = 2 z: far beyond a million terms,
     * [+-inf] at once (each term costs a ball division at the working precision) */
    double bd = arf_get_d(arb_midref(b), ARF_RND_DOWN), zd = arf_get_d(arb_midref(z), ARF_RND_UP);
    double kneed = 0.5 * (-(bd + 1) + sqrt((bd - 1) * (bd - 1) + 8 * zd));
    for (ulong k = 0; !done && k < 10000000 && !(kneed > 1e6); k++) {
        arb_add_ui(u, b, k, prec);
        arb_mul_ui(u, u, k + 1, prec);
        arb_div(u, z, u, prec);          /* the ratio r_k */
        arb_mul(t, t, u, prec);
        arb_add(S, S, t, prec);
        /* the ratios decrease in k: the rest is at most t r / (1 - r) once r = r_k < 1 */
        if (k % 8 == 7 && arf_cmp_2exp_si(arb_midref(u), -1) < 0 && arb_is_nonnegative(u)) {
            arb_t r1;
            arf_t ub;
            arb_init(r1);
            arf_init(ub);
            arb_sub_ui(r1, u, 1, prec);
            arb_neg(r1, r1);
            arb_div(r1, u, r1, prec);
            arb_mul(r1, r1, t, prec);
            arb_get_ubound_arf(ub, r1, prec);
            if (arf_cmpabs_2exp_si(ub, arf_abs_bound_lt_2exp_si(arb_midref(S)) - prec - 4) < 0) {
                arb_add_error_arf(S, ub);
                done = 1;
            }
            arf_clear(ub);
            arb_clear(r1);
        }
    }
    if (done)
        arb_log(res, S, prec);
    else
        arb_indeterminate(res);
    arb_clear(t); arb_clear(S); arb_clear(u);
}

/* l(w) - eps at the exact point w, in Arb */
static void loss_arb(arb_t res, double nu, const arb_t la, const arb_t lb, const arf_t w,
                     const arb_t eps, slong prec)
{
    arb_t b, z, f, g;
    arb_init(b); arb_init(z); arb_init(f); arb_init(g);
    arb_set_d(b, 0.5 * nu);
    arb_mul_arf(z, la, w, prec);
    arb_mul_2exp_si(z, z, -2);
    log0f1_arb(f, b, z, prec);
    arb_mul_arf(z, lb, w, prec);
    arb_mul_2exp_si(z, z, -2);
    log0f1_arb(g, b, z, prec);
    arb_sub(res, f, g, prec);
    arb_sub(z, la, lb, prec);
    arb_mul_2exp_si(z, z, -1);
    arb_sub(res, res, z, prec);
    arb_sub(res, res, eps, prec);
    arb_clear(b); arb_clear(z); arb_clear(f); arb_clear(g);
}

/* the sign of l(w) - eps: +1, -1, or 0 when not certain */
static int loss_sign(double nu, const arb_t la, const arb_t lb, const arf_t w, const arb_t eps, slong prec)
{
    arb_t v;
    arb_init(v);
    loss_arb(v, nu, la, lb, w, eps, prec);
    int s = arb_is_positive(v) ? 1 : arb_is_negative(v) ? -1 : 0;
    arb_clear(v);
    return s;
}

/* x^s e^{-x} / Gamma(s + 1), the prefactor of the incomplete gamma series and recurrences */
void ga_gamma_prefactor_arb(arb_t res, const arb_t s, const arb_t x, slong prec)
{
    arb_t g;
    arb_init(g);
    arb_log(res, x, prec);
    arb_mul(res, res, s, prec);
    arb_sub(res, res, x, prec);
    arb_add_ui(g, s, 1, prec);
    arb_lgamma(g, g, prec);
    arb_sub(res, res, g, prec);
    arb_exp(res, res, prec);
    arb_clear(g);
}

/* P(s, x) = x^s e^{-x} / Gamma(s + 1) sum_j x^j / ((s + 1) ... (s + j)): positive terms,
 * summed until the geometric bound of the rest (ratio x/(s + j + 1) < 1) is below 2^-prec of
 * the sum, and that bound added. (Arb's regularized lower incomplete gamma returned balls of
 * radius 1e800 for s, x in the thousands in the Arb this was written against.) */
static void gamma_p_series(arb_t res, const arb_t s, const arb_t x, slong prec)
{
    arb_t t, S, u, r;
    arb_init(t); arb_init(S); arb_init(u); arb_init(r);
    arb_one(S);
    arb_one(t);
    double xd = arf_get_d(arb_midref(x), ARF_RND_UP), sd = arf_get_d(arb_midref(s), ARF_RND_DOWN);
    int done = 0;
    /* (the ratio falls below 1/2 only past j = 2x - s: beyond the cap, [0, 1] at once rather
     * than four million terms per call, which a Poisson sum of such calls multiplies) */
    for (ulong j = 1; j < 4000000 && !(2 * xd - sd > 4000000); j++) {
        arb_add_ui(u, s, j, prec);
        arb_mul(t, t, x, prec);
        arb_div(t, t, u, prec);
        arb_add(S, S, t, prec);
        if (sd + j + 1 > 2 * xd && j % 8 == 0) { /* ratio < 1/2 from here on */
            arb_add_ui(u, s, j + 1, prec);
            arb_div(r, x, u, prec);
            arb_sub_ui(u, r, 1, prec);
            arb_neg(u, u);
            arb_div(u, r, u, prec);
            arb_mul(u, u, t, prec); /* the rest: t r / (1 - r) */
            if (arb_is_positive(u) || arb_is_zero(u)) {
                arf_t ub;
                arf_init(ub);
                arb_get_ubound_arf(ub, u, prec);
                if (arf_cmpabs_2exp_si(ub, arf_abs_bound_lt_2exp_si(arb_midref(S)) - prec - 4) < 0) {
                    arb_add_error_arf(S, ub);
                    done = 1;
                }
                arf_clear(ub);
            }
            if (done)
                break;
        }
    }
    if (!done) {
        arb_zero_pm_one(res);
        goto cleanup;
    }
    ga_gamma_prefactor_arb(u, s, x, prec);
    arb_mul(res, S, u, prec);
cleanup:
    arb_clear(t); arb_clear(S); arb_clear(u); arb_clear(r);
}

/* the regularized tails P(s, x) (upper = 0) or Q(s, x): the series above, and for Q also
 * Arb's upper incomplete gamma, intersected (both are enclosures) */
static void gamma_tail(arb_t res, const arb_t s, const arb_t x, int upper, slong prec)
{
    gamma_p_series(res, s, x, prec);
    if (!upper)
        return;
    arb_t a;
    arb_init(a);
    arb_sub_ui(res, res, 1, prec);
    arb_neg(res, res);
    arb_hypgeom_gamma_upper(a, s, x, 1, prec);
    if (arb_overlaps(a, res))
        arb_intersection(res, res, a, prec);
    arb_clear(a);
}

/* log p_k = k log mu - mu - lgamma(k + 1), the Poisson weight, in Arb */
void ga_pois_weight_arb(arb_t res, const arb_t mu, const arb_t lmu, double k, slong prec)
{
    arb_t g;
    arb_init(g);
    arb_mul_ui(res, lmu, (ulong)k, prec);
    arb_sub(res, res, mu, prec);
    arb_set_d(g, k + 1);
    arb_lgamma(g, g, prec);
    arb_sub(res, res, g, prec);
    arb_exp(res, res, prec);
    arb_clear(g);
}

/* an upper bound of the Poisson mass below k (lower = 1: sum_{j < k} p_j <= p_{k-1} / (1 -
 * (k - 1)/mu)) or above k (sum_{j > k} p_j <= p_{k+1} / (1 - mu/(k + 2))); 0 when the ratio
 * is not certainly below 1 */
int ga_pois_rest_arb(arf_t ub, const arb_t mu, const arb_t lmu, double k, int lower, slong prec)
{
    arb_t q, g;
    arb_init(q);
    arb_init(g);
    int ok = 1;
    arf_zero(ub);
    if (lower && k <= 0)
        goto done;
    double j = lower ? k - 1 : k + 1;
    ga_pois_weight_arb(q, mu, lmu, j, prec);
    if (lower) {
        arb_set_d(g, j);
        arb_div(g, g, mu, prec);
    } else {
        arb_set_d(g, j + 1);
        arb_div(g, mu, g, prec);
    }
    arb_sub_ui(g, g, 1, prec);
    arb_neg(g, g);
    if (!arb_is_positive(g))
        ok = 0;
    else {
        arb_div(q, q, g, prec);
        arb_get_ubound_arf(ub, q, prec);
    }
done:
    arb_clear(q);
    arb_clear(g);
    return ok;
}

/* upper (upper = 1) or lower tail of the noncentral chi-square (nu, lam) at the exact w:
 * the lower tail over klo..khi (ga_pois_range) by the downward recurrence, the dropped mass
 * above khi weighted by P(s + khi) >= P(s + k); the upper tail upward from klo until the
 * mass above is below 2^-prec of the sum, the dropped mass below klo weighted by Q(s + klo) */
static int ncx2_tail_arb(arb_t res, double nu, const arb_t lam, const arf_t w, int upper, slong prec)
{
    if (arf_is_zero(w)) {
        if (upper)
            arb_one(res);
        else
            arb_zero(res);
        return GA_OK;
    }
    double klo, khi, dropped;
    double mud = 0.5 * arf_get_d(arb_midref(lam), ARF_RND_NEAR);
    ga_pois_range(mud, &klo, &khi, &dropped);
    arb_t mu, x, s, p, acc, g, t, lmu, seed;
    arf_t ub;
    arb_init(mu); arb_init(x); arb_init(s); arb_init(p); arb_init(acc); arb_init(g); arb_init(t);
    arb_init(lmu); arb_init(seed);
    arf_init(ub);
    arb_ptr tv = NULL;
    int rc = GA_OK;
    arb_mul_2exp_si(mu, lam, -1);
    arb_set_arf(x, w);
    arb_mul_2exp_si(x, x, -1);
    int zero_mu = arb_is_zero(mu);
    if (!zero_mu && !arb_is_positive(mu)) {
        rc = GA_EPREC;
        goto cleanup;
    }
    if (zero_mu) {
        klo = khi = 0;
        arb_one(p);
    } else {
        arb_log(lmu, mu, prec);
        ga_pois_weight_arb(p, mu, lmu, klo, prec);
    }
    /* t = x^{s+k} e^{-x} / Gamma(s + k + 1) at k = klo */
    arb_set_d(s, 0.5 * nu + klo);
    ga_gamma_prefactor_arb(t, s, x, prec);
    arb_zero(acc);
    if (upper) {
        gamma_tail(seed, s, x, 1, prec); /* Q(s + klo) */
        arb_set(g, seed);
        for (double k = klo; !zero_mu || k == klo; k++) {
            arb_addmul(acc, p, g, prec);
            if (zero_mu)
                break;
            arb_add(g, g, t, prec);           /* Q(s + k + 1) */
            arb_set_d(s, 0.5 * nu + k + 1);
            arb_mul(t, t, x, prec);
            arb_div(t, t, s, prec);           /* t at k + 1 */
            arb_mul(p, p, mu, prec);
            arb_div_ui(p, p, (ulong)(k + 1), prec);
            if (k >= khi && ((long)(k - khi) % 16) == 0) {
                /* stop when the mass above is below 2^-prec of the sum, or (a sum this
                 * precision cannot resolve: more precision will) below 2^-prec absolutely;
                 * at most 10^5 terms beyond khi */
                int ok = ga_pois_rest_arb(ub, mu, lmu, k, 0, prec);
                if (ok && (arf_is_zero(ub) ||
                           (arb_is_positive(acc) && arf_cmpabs_2exp_si(ub, arf_abs_bound_lt_2exp_si(arb_midref(acc)) - prec - 8) < 0) ||
                           (!arb_is_positive(acc) && arf_cmpabs_2exp_si(ub, -prec - 8) < 0))) {
                    arb_add_error_arf(acc, ub); /* Q <= 1 above */
                    break;
                }
                if (k > khi + 1e5) {
                    rc = GA_EPREC;
                    goto cleanup;
                }
            }
        }
        if (!zero_mu && klo > 0) {
            if (!ga_pois_rest_arb(ub, mu, lmu, klo, 1, prec)) {
                rc = GA_EPREC;
                goto cleanup;
            }
            arb_t e;
            arb_init(e);
            arb_set_arf(e, ub);
            arb_mul(e, e, seed, prec); /* Q(s + k) <= Q(s + klo) for k < klo */
            arb_get_ubound_arf(ub, e, prec);
            arb_add_error_arf(acc, ub);
            arb_clear(e);
        }
    } else {
        slong K = (slong)(khi - klo) + 1;
        tv = _arb_vec_init(K);
        arb_set(tv, t);
        for (slong i = 1; i < K; i++) {
            arb_set_d(g, 0.5 * nu + klo + (double)i);
            arb_mul(tv + i, tv + i - 1, x, prec);
            arb_div(tv + i, tv + i, g, prec);
        }
        arb_set_d(s, 0.5 * nu + khi);
        gamma_tail(seed, s, x, 0, prec); /* P(s + khi) */
        arb_set(g, seed);
        for (slong i = 0; i < K - 1; i++) { /* p_khi */
            arb_mul(p, p, mu, prec);
            arb_div_ui(p, p, (ulong)(klo + i + 1), prec);
        }
        for (slong i = K - 1; i >= 0; i--) {
            arb_addmul(acc, p, g, prec);
            if (i > 0) {
                arb_add(g, g, tv + i - 1, prec);
                arb_mul_ui(p, p, (ulong)(klo + i), prec);
                arb_div(p, p, mu, prec);
            }
        }
        if (!zero_mu) {
            arf_t lo;
            arf_init(lo);
            arb_t e;
            arb_init(e);
            int ok = ga_pois_rest_arb(lo, mu, lmu, klo, 1, prec) && ga_pois_rest_arb(ub, mu, lmu, khi, 0, prec);
            arb_set_arf(e, ub);
            arb_mul(e, e, seed, prec); /* P(s + k) <= P(s + khi) for k > khi */
            arb_add_arf(e, e, lo, prec);
            arb_get_ubound_arf(ub, e, prec);
            if (ok)
                arb_add_error_arf(acc, ub);
            else
                rc = GA_EPREC;
            arb_clear(e);
            arf_clear(lo);
        }
        _arb_vec_clear(tv, K);
    }
    arb_set(res, acc);
cleanup:
    arb_clear(mu); arb_clear(x); arb_clear(s); arb_clear(p); arb_clear(acc); arb_clear(g);
    arb_clear(t); arb_clear(lmu); arb_clear(seed);
    arf_clear(ub);
    return rc;
}

/* Q_a(u) - e^eps Q_b(v) (up) or P_a(v) - e^eps P_b(u) (down): at u = v a lower bound of
 * delta, at a bracket u <= w* <= v an upper bound */
static int h_arb(arb_t res, double nu, const arb_t la, const arb_t lb, const arf_t u, const arf_t v,
                 const arb_t ee, int up, slong prec)
{
    arb_t A, B;
    arb_init(A);
    arb_init(B);
    int rc = up ? ncx2_tail_arb(A, nu, la, u, 1, prec) : ncx2_tail_arb(A, nu, la, v, 0, prec);
    if (!rc)
        rc = up ? ncx2_tail_arb(B, nu, lb, v, 1, prec) : ncx2_tail_arb(B, nu, lb, u, 0, prec);
    arb_mul(B, B, ee, prec);
    arb_sub(res, A, B, prec);
    arb_clear(A);
    arb_clear(B);
    return rc;
}

int ga_arb_delta_interval(arb_t res, const arb_t lo, const arb_t hi, slong prec)
{
    arf_t a, b;
    arf_init(a);
    arf_init(b);
    arb_get_lbound_arf(a, lo, prec);
    arb_get_ubound_arf(b, hi, prec);
    if (arf_sgn(a) < 0)
        arf_zero(a); /* delta >= 0 */
    int rc = arf_cmp(b, a) < 0 || !arf_is_finite(b) ? GA_EPREC : GA_OK;
    if (rc == GA_OK)
        arb_set_interval_arf(res, a, b, prec);
    arf_clear(a);
    arf_clear(b);
    return rc;
}

#define GA_NCX2_ARB_MAX_NU 1e7
int ga_ncx2_delta_arb(arb_t res, double nu, const arb_t la, const arb_t lb, const arb_t eps,
                      double w_hint, slong prec)
{
    if (nu > GA_NCX2_ARB_MAX_NU) { /* (the series and quadratures grow with nu: minutes at 1e9) */
        arb_zero_pm_one(res);
        return GA_EDOM;
    }
    arb_t d, ee, lo, hi;
    arf_t u, v, m;
    arb_init(d); arb_init(ee); arb_init(lo); arb_init(hi);
    arf_init(u); arf_init(v); arf_init(m);
    int rc = GA_OK;
    arb_sub(d, la, lb, prec);
    if (arb_is_zero(d)) {
        arb_zero(res);
        goto cleanup;
    }
    if (!arb_is_positive(d) && !arb_is_negative(d)) {
        rc = GA_EPREC;
        goto cleanup;
    }
    int up = arb_is_positive(d), sgn = up ? 1 : -1;
    if (!up) { /* the loss is at most (lb - la)/2: no event when that is <= eps */
        arb_neg(d, d);
        arb_mul_2exp_si(d, d, -1);
        if (arb_le(d, eps)) {
            arb_zero(res);
            goto cleanup;
        }
        if (!arb_gt(d, eps)) {
            rc = GA_EPREC;
            goto cleanup;
        }
    }
    if (!(w_hint > 0) || !isfinite(w_hint)) {
        rc = GA_EPREC;
        goto cleanup;
    }
    /* bracket w*: u with l(u) < eps, v with l(v) > eps (up; the other way round when down) */
    double g = ldexp(w_hint, -40);
    int su = 0, sv = 0;
    for (int k = 0; k < 80 && (su != -sgn || sv != sgn); k++, g *= 4) {
        arf_set_d(u, fmax(w_hint - g, 0));
        arf_set_d(v, w_hint + g);
        su = arf_is_zero(u) ? -sgn : loss_sign(nu, la, lb, u, eps, prec);
        sv = loss_sign(nu, la, lb, v, eps, prec);
        if (su == 0 || sv == 0)
            break; /* the precision cannot tell: more precision will */
    }
    if (su != -sgn || sv != sgn) {
        rc = GA_EPREC;
        goto cleanup;
    }
    /* bisect in exact binary points while the sign is certain */
    for (slong it = 0; it < prec + 20; it++) {
        arf_sub(m, v, u, prec, ARF_RND_UP);
        if (arf_cmpabs_2exp_si(m, arf_abs_bound_lt_2exp_si(v) - prec + 4) < 0)
            break;
        arf_add(m, u, v, ARF_PREC_EXACT, ARF_RND_DOWN);
        arf_mul_2exp_si(m, m, -1);
        int sm = loss_sign(nu, la, lb, m, eps, prec);
        if (sm == 0)
            break;
        if (sm == sgn)
            arf_set(v, m);
        else
            arf_set(u, m);
    }
    arb_exp(ee, eps, prec);
    arf_add(m, u, v, ARF_PREC_EXACT, ARF_RND_DOWN);
    arf_mul_2exp_si(m, m, -1);
    if ((rc = h_arb(lo, nu, la, lb, m, m, ee, up, prec)) || (rc = h_arb(hi, nu, la, lb, u, v, ee, up, prec)))
        goto cleanup;
    rc = ga_arb_delta_interval(res, lo, hi, prec);
cleanup:
    if (rc)
        arb_zero_pm_one(res);
    arb_clear(d); arb_clear(ee); arb_clear(lo); arb_clear(hi);
    arf_clear(u); arf_clear(v); arf_clear(m);
    return rc;
}

/*
 * contour.c - Bromwich (inverse Laplace) integrals along a shifted and bent contour, the
 * Imhof (Gil-Pelaez) engine, and the saddle point solver.
 *
 * For 0 < c < smax the upper tail is P[Q > x] = (1/2 pi i) int_{c - i inf}^{c + i inf}
 * M(z) e^{-z x} / z dz, M the moment generating function; for smin < c < 0 the same integral
 * is -P[Q <= x] (the pole at 0 is crossed). By the symmetry F(conj z) = conj F(z) the integral
 * over a path symmetric about the real axis is (1/pi) Im int_{upper half} F dz.
 *
 * The path: vertical from c to c + i t0 (t0 = 2 / sqrt(K''(c)), the width of the saddle
 * peak), then a ray of slope beta < 1 bending to the side where M(z) e^{-z x} decays:
 * for large |z|, log M(z) - z x = -(x - m_inf) z + O(log z) with m_inf = offset - sum b2/(4a),
 * so the ray bends right when x > m_inf and left otherwise. No singularity lies between the
 * vertical line and the ray (the singularities of M are on the real axis, the path meets the
 * real axis only at c), and on the ray the integrand decays exponentially, so the
 * deformation is exact and the truncated range is small. A vertical line alone leaves an
 * integrand decaying only like t^{-1-sum nu/2}: for one or two degrees of freedom the
 * truncation error then cannot reach 1e-15 at any practical length.
 * Choosing c at the saddle point K'(c) = x makes the integrand's size comparable to the
 * answer, which gives relative accuracy far in the tails (Daniels 1954; Helstrom 1983);
 * factoring out exp(K(c) - c x) keeps the computation in range for tails below 1e-300.
 *
 * The truncation bound (ga_path_tailbound) is derived in full in
 * docs of this file's functions below; it is rigorous for exact arithmetic.
 */
#include "numerics/numerics.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

double ga_gchisq_drift(const ga_gchisq *q)
{
    double m = q->offset;
    for (size_t j = 0; j < q->n; j++)
        if (q->t[j].a != 0)
            m -= q->t[j].b2 / (4.0 * q->t[j].a);
    return m;
}

/* The saddle point of a form of one term and no normal part, in closed form: with
 * y = 1/(1 - 2 a s) > 0, K'(s) = m + nu a y + B y^2 (m = offset - B, B = b2/(4a)), which is
 * monotone in y > 0 (as K' is in s), so K'(s) = x has at most one root y > 0, and
 * s = (y - 1)/(2 a y). NAN where there is none (x outside the range of K'). The caller
 * checks the point as it checks a Newton iterate: a point rounded off the saddle is only a
 * starting point. */
static double saddle_one_term(const ga_gchisq *q, double x)
{
    const ga_gchisq_term *t = &q->t[0];
    double a = t->a, B = t->b2 / (4 * a), C = x - (q->offset - B), b = t->nu * a, y;
    if (B == 0) {
        y = C / b;
    } else { /* B y^2 + b y - C = 0, the roots without cancellation */
        double disc = b * b + 4 * B * C;
        if (!(disc >= 0))
            return NAN;
        double h = -0.5 * (b + copysign(sqrt(disc), b)), y1 = h / B, y2 = h != 0 ? -C / h : NAN;
        y = y1 > 0 ? y1 : y2;
    }
    return y > 0 && isfinite(y) ? (y - 1) / (2 * a * y) : NAN;
}

int ga_gchisq_saddle(double *s, const ga_gchisq *q, double x)
{
    double mean, var, smin, smax, k1, k2;
    ga_gchisq_moments(&mean, &var, q);
    ga_gchisq_domain(&smin, &smax, q);
    if (x == mean || var == 0) {
        *s = 0;
        return GA_OK;
    }
    if (q->n == 1 && q->sigma2 == 0 && q->t[0].a != 0) {
        /* (the remove-one pairs of a row family are such forms, by the hundred thousand) */
        double v = saddle_one_term(q, x);
        if (isfinite(v) && ga_gchisq_cgf(NULL, &k1, &k2, q, v) == GA_OK &&
            fabs(k1 - x) <= 1e-3 * sqrt(k2)) { /* (the Newton loop's test below) */
            *s = v;
            return GA_OK;
        }
    }
    double sd = sqrt(var);
    double lo, hi;
    if (x > mean) {
        lo = 0;
        hi = smax;
        if (!isfinite(hi)) { /* grow until K'(hi) > x */
            hi = 1.0 / sd;
            for (int i = 0; i < 2100; i++) {
                if (ga_gchisq_cgf(NULL, &k1, NULL, q, hi) == GA_OK && k1 > x)
                    break;
                lo = hi;
                hi *= 2;
            }
            if (!isfinite(hi))
                return GA_EDOM;
        }
    } else {
        hi = 0;
        lo = smin;
        if (!isfinite(lo)) {
            lo = -1.0 / sd;
            for (int i = 0; i < 2100; i++) {
                if (ga_gchisq_cgf(NULL, &k1, NULL, q, lo) == GA_OK && k1 < x)
                    break;
                hi = lo;
                lo *= 2;
            }
            if (!isfinite(lo))
                return GA_EDOM;
        }
    }
    /* safeguarded Newton on K'(s) - x, increasing in s; the bracket ends may be singular */
    /* start from the saddle point of the normal approximation */
    double v = (x - mean) / var;
    if (!(v > lo && v < hi))
        v = x > mean ? fmin(0.5 * (lo + hi), lo + 1.0 / sd) : fmax(0.5 * (lo + hi), hi - 1.0 / sd);
    if (!(v > lo && v < hi))
        v = 0.5 * (lo + hi);
    for (int it = 0; it < 200; it++) {
        if (ga_gchisq_cgf(NULL, &k1, &k2, q, v) != GA_OK) {
            hi = v; /* only possible beyond a singular end: shrink towards the inside */
            v = 0.5 * (lo + hi);
            continue;
        }
        double f = k1 - x;
        /* near the saddle K(v) - v x exceeds its minimum by about f^2 / (2 K''), so
         * |f| <= 1e-3 sqrt(K'') costs nothing; a relative step test alone stops 1e-10 away
         * from a saddle that sits 1e-15 from a singularity (x far in the tail), where the
         * Chernoff exponent is then off by 1e5 */
        if (fabs(f) <= 1e-3 * sqrt(k2))
            break;
        if (f > 0)
            hi = v;
        else
            lo = v;
        double nv = v - f / k2;
        if (!(nv > lo && nv < hi))
            nv = 0.5 * (lo + hi);
        /* the callers need a point near the saddle, not the digits of it: any abscissa in
         * the domain gives a valid contour and a valid Chernoff bound */
        if (hi - lo <= 4 * DBL_EPSILON * fabs(v) ||
            (fabs(nv - v) <= 1e-12 * fabs(v) && fabs(f) <= 1e-9 * fabs(x))) {
            v = nv;
            break;
        }
        v = nv;
    }
    *s = v;
    return GA_OK;
}

/* log(1 + w) accurate for small |w| */
static inline double complex clog1p(double complex w)
{
    double re = creal(w), im = cimag(w);
    return 0.5 * log1p(2 * re + re * re + im * im) + I * atan2(im, 1 + re);
}

/*
 * Running product of factors (1 + w) with the unwrapped argument: for Im z > 0 every factor
 * 1 - 2 a z with a of one sign lies in one open half-plane, so each multiplication turns
 * the product by less than pi in one direction, and crossing the negative real axis is
 * detected exactly from the signs of the imaginary parts. This replaces a log1p and an
 * atan2 per term by one complex multiplication; the magnitude is kept in range by exact
 * power-of-two rescaling.
 */
typedef struct {
    double re, im;
    int wind; /* completed turns across the negative real axis (signed) */
    int e2;   /* binary exponent removed by rescaling */
} wprod;

static inline void wprod_mul(wprod *P, double re, double im)
{
    double nr = P->re * re - P->im * im, ni = P->re * im + P->im * re;
    if (ni > 0 && P->im <= 0 && !(P->im == 0 && P->re > 0) && im < 0)
        P->wind--; /* turned clockwise past -pi */
    else if (ni < 0 && P->im >= 0 && !(P->im == 0 && P->re > 0) && im > 0)
        P->wind++; /* turned counterclockwise past +pi */
    P->re = nr;
    P->im = ni;
    double m = fabs(nr) + fabs(ni);
    if (m > 0x1p500 || m < 0x1p-500) {
        int e;
        frexp(m, &e);
        P->re = ldexp(P->re, -e);
        P->im = ldexp(P->im, -e);
        P->e2 += e;
    }
}

double complex ga_path_logmgf(const ga_path *p, double complex z)
{
    const ga_gchisq *q = p->q;
    double zr = creal(z), zi = cimag(z);
    double z2r = zr * zr - zi * zi, z2i = 2 * zr * zi;
    /* offset and normal part: (offset - x) z + sigma2 z^2 / 2 - L0 (real arithmetic: C
     * complex products carry NaN checks that dominate this loop) */
    double er = (q->offset - p->x) * zr + 0.5 * q->sigma2 * z2r - p->L0;
    double ei = (q->offset - p->x) * zi + 0.5 * q->sigma2 * z2i;
    /* products of (1 - 2 a z)^nu for small integer nu, one per sign of a */
    wprod pos = {1, 0, 0, 0}, neg = {1, 0, 0, 0};
    for (size_t j = 0; j < q->n; j++) {
        const ga_gchisq_term *t = &q->t[j];
        double wr = 1 - 2 * t->a * zr, wi = -2 * t->a * zi; /* 1 + w = 1 - 2 a z */
        int k = t->nu <= 8 ? (int)t->nu : 0; /* (int) of a large double is undefined */
        if (zi > 0 && k > 0 && (double)k == t->nu) {
            wprod *P = t->a > 0 ? &pos : &neg;
            for (int i = 0; i < k; i++)
                wprod_mul(P, wr, wi);
        } else {
            double complex l = clog1p(-2.0 * t->a * z);
            er -= 0.5 * t->nu * creal(l);
            ei -= 0.5 * t->nu * cimag(l);
        }
        /* b2 z^2 / (2 (1 + w)) = b2 z^2 conj(1 + w) / (2 |1 + w|^2), also for b2 = 0 (a
         * division costs less than the branch on a mix of central and noncentral terms
         * mispredicts; |1 + w| > 0 on every path inside the domain) */
        double wn = wr * wr + wi * wi, s = 0.5 * t->b2 / (wn > DBL_MIN ? wn : DBL_MIN);
        er += s * (z2r * wr + z2i * wi);
        ei += s * (z2i * wr - z2r * wi);
    }
    if (pos.re != 1 || pos.im != 0 || pos.e2 || neg.re != 1 || neg.im != 0 || neg.e2) {
        /* log(pos) + log(neg) with one log and one atan2: with p, n the principal
         * arguments of the two products, p + n lies in (-2 pi, 2 pi] and equals the
         * principal argument of the product up to one turn, which the signs of the
         * imaginary parts decide (both in [0, pi] and the product below the axis: +2 pi;
         * both in (-pi, 0) and the product on or above it: -2 pi) */
        double pr = pos.re * neg.re - pos.im * neg.im, pi = pos.re * neg.im + pos.im * neg.re;
        double lm = 0.5 * log(pr * pr + pi * pi) + (pos.e2 + neg.e2) * M_LN2;
        int turn = 0;
        if (pos.im >= 0 && neg.im >= 0 && pi < 0)
            turn = 1;
        else if (pos.im < 0 && neg.im < 0 && pi >= 0)
            turn = -1;
        double ar = atan2(pi, pr) + 2 * M_PI * (pos.wind + neg.wind + turn);
        er -= 0.5 * lm;
        ei -= 0.5 * ar;
    }
    return er + I * ei;
}

/* The path z(t) = c + i t + dir beta (sqrt(t^2 + t0^2) - t0): vertical at t = 0, asymptotic to
 * a ray of slope beta, symmetric (z(-t) = conj z(t)) and analytic for |Im t| < t0, so the
 * trapezoidal rule converges geometrically on it. */
static inline double complex path_point(const ga_path *p, double t, double complex *dz)
{
    if (p->dir == 0) {
        *dz = I;
        return p->c + I * t;
    }
    double r = sqrt(t * t + p->t0 * p->t0), bd = p->dir * p->beta;
    *dz = bd * t / r + I;
    /* r - t0 as t^2 / (r + t0): the difference loses the digits of t^2 / (2 t0) to the
     * rounding of r when t << t0, and a point off the path by that much, with z' taken on
     * the path, biases the sum (by 1e-12 relative at t0 = 3e5) */
    return p->c + bd * (t * t / (r + p->t0)) + I * t;
}

double ga_path_integrand(double t, void *param)
{
    ga_path *p = param;
    double complex dz, z = path_point(p, t, &dz);
    double complex e = ga_path_logmgf(p, z);
    p->nevals++;
    if (creal(e) < -745)
        return 0.0;
    /* Im(exp(e) dz / z) (or dz / (z (z + 1))) in real arithmetic */
    double zr = creal(z), zi = cimag(z), kr = zr, ki = zi;
    if (p->kernel == GA_KERNEL_DELTA) {
        kr = zr * (zr + 1) - zi * zi;
        ki = zi * (2 * zr + 1);
    }
    double m = exp(creal(e)) / (kr * kr + ki * ki), c = cos(cimag(e)), s = sin(cimag(e));
    double dr = creal(dz), di = cimag(dz);
    /* exp(e) * conj(k) * dz / |k|^2 */
    double ar = c * kr + s * ki, ai = s * kr - c * ki;
    return m * (ar * di + ai * dr);
}

/*
 * Bound of int_{t >= T} |F(z(t))| |z'(t)| dt (without the factor exp(L0)).
 * Write w_j = 1 - 2 a_j z. Per term, |w_j|^{-nu/2} exp(b2/2 Re(z^2/w_j)).
 * Vertical part (Re z = c, t >= T): |w|^2 = u^2 + 4a^2 t^2 (u = 1 - 2ac) increases with t, and
 *   Re(z^2/w) = (c^2 u - t^2 (1 + 2ac)) / (u^2 + 4 a^2 t^2) has t^2-derivative of the sign of
 *   -u < 0: both factors are largest at t = T. log|w|^2 is convex in log t with slope
 *   theta(t) = 8a^2t^2/(u^2+4a^2t^2), increasing, so |w(t)|^{-nu/2} <= |w(T)|^{-nu/2} (t/T)^{-nu theta(T)/4}.
 *   The normal part (sigma2/2)(c^2 - t^2) <= (sigma2/2)(c^2 - T^2) - sigma2 T (t - T).
 * Ray (arc length r >= 0 from z1 = R1 + i T, unit direction (dir cb, sb), cb = beta/sqrt(1+beta^2),
 *   sb = 1/sqrt(1+beta^2)); requires dir R1 >= 0 and |R1| < T so that Re(z^2) <= 0 on the ray:
 *   - a opposite to dir (a Re z < 0): Re w > 1 so Re(1/w) < 1 and, from
 *     z^2/w = -z/(2a) - 1/(4a^2) + 1/(4a^2 w), Re(z^2/w) <= |Re z| / (2|a|); |Re w| >= 1 + 2|a||R1|.
 *   - a on the side of dir (a Re z >= 0): Re(z^2/w) = (Re z^2 - 2a|z|^2 Re z)/|w|^2 <= 0, and
 *     if Im z >= 1/(4|a|), Re(1/w) <= 1/(2|Im w|) <= 1 gives Re(z^2/w) <= -|Re z|/(2|a|).
 *     Otherwise, with |w| <= 1 + 2|a||z| and -Re z^2 >= m |z|^2 (m = min of -cos(2 arg z) at
 *     z1 and at the ray's direction: arg z is monotone along a ray), and |z| increasing along
 *     the ray, Re(z^2/w) <= -m|z1|^2/(1 + 2|a||z1|)^2.
 *   - normal part: Re z^2 <= R1^2 - T^2 - 2 r (T sb - |R1| cb).
 *   - kernel: 1/|z| <= 1/Im z (1/|z(z+1)| <= 1/Im(z)^2).
 * All together |F| <= A (1 + sb r/T)^{-qe} exp(-gamma r), and
 *   int_0^inf (1 + sb r/T)^{-qe} e^{-gamma r} dr <= min(1/gamma, T/(sb (qe - 1))).
 */
double ga_path_tailbound(const ga_path *p, double T)
{
    const ga_gchisq *q = p->q;
    double kpow = p->kernel == GA_KERNEL_DELTA ? 2.0 : 1.0;
    double E0 = -p->L0 - kpow * log(T), qe = kpow, rate = 0, sb = 1.0;
    if (p->dir == 0) {
        double c = p->c;
        E0 += c * (q->offset - p->x) + 0.5 * q->sigma2 * (c * c - T * T);
        rate = q->sigma2 * T;
        for (size_t j = 0; j < q->n; j++) {
            const ga_gchisq_term *t = &q->t[j];
            double a = t->a, u = 1 - 2 * a * c, v2 = 4 * a * a * T * T, wn = u * u + v2;
            E0 += -0.25 * t->nu * log(wn) + 0.5 * t->b2 * (c * c * u - T * T * (1 + 2 * a * c)) / wn;
            qe += 0.25 * t->nu * (2 * v2 / wn);
        }
    } else {
        double beta = p->beta, cb = beta / sqrt(1 + beta * beta);
        sb = 1 / sqrt(1 + beta * beta);
        /* the tail of the path beyond z(T) may be replaced by the ray of slope beta from
         * z(T): the wedge between them holds no singularity (all lie on the real axis) */
        double complex dz1;
        double R1 = creal(path_point(p, T, &dz1)); /* (the path's own point) */
        if (p->dir * R1 < 0 || !(fabs(R1) < T))
            return INFINITY;
        double aR = fabs(R1), z1 = hypot(R1, T);
        double m = fmin((T * T - R1 * R1) / (z1 * z1), (1 - beta * beta) / (1 + beta * beta));
        E0 += (q->offset - p->x) * R1 + 0.5 * q->sigma2 * (R1 * R1 - T * T);
        rate = -(q->offset - p->x) * p->dir * cb + q->sigma2 * (T * sb - aR * cb);
        for (size_t j = 0; j < q->n; j++) {
            const ga_gchisq_term *t = &q->t[j];
            double a = fabs(t->a), u1;
            if (t->a * p->dir < 0) { /* opposite side */
                E0 += t->b2 * aR / (4 * a);
                rate -= t->b2 * cb / (4 * a);
                u1 = 1 + 2 * a * aR;
            } else {
                if (T >= 0.25 / a) {
                    E0 -= t->b2 * aR / (4 * a);
                    rate += t->b2 * cb / (4 * a);
                } else {
                    double g = 1 + 2 * a * z1;
                    E0 -= 0.5 * t->b2 * m * z1 * z1 / (g * g);
                }
                u1 = 0;
            }
            double v2 = 4 * a * a * T * T, wn = u1 * u1 + v2;
            E0 += -0.25 * t->nu * log(wn);
            qe += 0.25 * t->nu * (2 * v2 / wn);
        }
    }
    double lint = INFINITY;
    if (rate > 0)
        lint = -log(rate);
    if (qe > 1)
        lint = fmin(lint, log(T / (sb * (qe - 1))));
    if (!isfinite(lint))
        return INFINITY;
    double b = exp(E0 + lint);
    return isnan(b) ? INFINITY : b;
}

/* log|F| at height t on the path (NaN as infinitely high) */
static double path_height(const ga_path *p, double t)
{
    double complex dz, z = path_point(p, t, &dz);
    double e = creal(ga_path_logmgf(p, z));
    return isnan(e) ? INFINITY : e;
}

/* The top of a hump of log|F| inside [lo, hi] (a stretch around its highest sample, on
 * which it is unimodal): a ternary search */
static double hump_top(const ga_path *p, double lo, double hi)
{
    for (int i = 0; i < 40 && hi - lo > 1e-9 * hi; i++) {
        double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (path_height(p, m1) < path_height(p, m2))
            lo = m1;
        else
            hi = m2;
    }
    return path_height(p, 0.5 * (lo + hi));
}

/* How far the path climbs (accepted at most 2): the largest log|F(z(t))| (saddle value 0)
 * at t = t0/8 and on by steps of 2 (of sqrt 2 where log|F| is above -60, where a hump would
 * weigh) up to 2^12 t0 (the hyperbola bends already for t < t0, and the climb of a large
 * tail peaks near t0), or a hump's top plus 42. Away from the saddle log|F| falls along
 * the path; where it rises from one sample to the next, a hump lies about them that the
 * steps can straddle (a term of tiny weight acting as a normal one up to
 * |z| ~ 1/|2a| while the others' drift pulls the ray up: e^408 between two samples at
 * e^-2010 and e^-337). Far out, the trapezoidal nodes are sparse (spacing t h): a narrow
 * hump there can fall between the nodes of two successive levels, which then agree on a
 * wrong sum (a hump of e^2 at t = 6455, 500 wide, cost 2e-3 of the value with an estimate
 * of 1e-12; one of e^-24 near t0 cost 1e-10 with 3e-12). So a hump must stay below e^-40
 * of the saddle value: the stretches on both sides of a rise are sampled at steps of
 * 2^(1/32) and the highest sample's neighbourhood searched for its top. */
#define GA_CLIMB_MAX 48 /* (samples: 15 doublings, at most 30 steps of sqrt 2) */
static double path_climb(const ga_path *p)
{
    double g = -INFINITY, e[GA_CLIMB_MAX], ts[GA_CLIMB_MAX];
    int m = 0;
    for (double t = p->t0 / 8; m < GA_CLIMB_MAX && t <= 4096 * p->t0;
         t *= e[m - 1] > -60 ? M_SQRT2 : 2) {
        ts[m] = t;
        e[m++] = path_height(p, t);
        g = fmax(g, e[m - 1]);
    }
    for (int k = 1; k < m; k++) {
        if (!(e[k] > e[k - 1] || (k >= 2 && e[k - 1] > e[k - 2])))
            continue;
        double top = fmax(e[k], e[k - 1]), at = 0, r = log2(ts[k] / ts[k - 1]);
        for (int i = 1; i < 32 * r; i++) {
            double t = ts[k] * exp2(-i / 32.0), h = path_height(p, t);
            if (h > top) {
                top = h;
                at = t;
            }
        }
        if (at > 0)
            top = fmax(top, hump_top(p, at * exp2(-1 / 32.0), at * exp2(1 / 32.0)));
        g = fmax(g, top + 42);
    }
    return g;
}

int ga_path_setup(ga_path *p, const ga_gchisq *q, double x, int sign, int kernel)
{
    return ga_path_setup_scale(p, q, x, sign, kernel, -INFINITY);
}

int ga_path_setup_scale(ga_path *p, const ga_gchisq *q, double x, int sign, int kernel,
                        double below)
{
    double mean, var, smin, smax, K, K2;
    ga_gchisq_moments(&mean, &var, q);
    ga_gchisq_domain(&smin, &smax, q);
    double sd = sqrt(var);
    double dist = sign > 0 ? smax : -smin; /* distance from 0 to the singularity on that side */
    double c;
    if (sign * (x - mean) > 0) {
        if (ga_gchisq_saddle(&c, q, x) != GA_OK)
            return GA_EDOM;
        double floor_c = fmin(0.25 / sd, 0.5 * dist);
        if (fabs(c) < floor_c)
            c = sign * floor_c;
    } else {
        double h = fmin(0.5 / sd, 0.5 * dist);
        if (x != mean)
            h = fmin(h, 1.0 / fabs(x - mean));
        c = sign * h;
    }
    if (kernel == GA_KERNEL_DELTA && !(c > 0))
        return GA_EDOM;
    double K1;
    if (ga_gchisq_cgf(&K, &K1, &K2, q, c) != GA_OK)
        return GA_EDOM;
    p->q = q;
    p->x = x;
    p->c = c;
    p->L0 = K - c * x;
    p->t0 = 2.0 / sqrt(K2);
    double D = x - ga_gchisq_drift(q);
    p->dir = D > 0 ? 1 : (D < 0 ? -1 : 0);
    /* Away from the saddle (the large tail) the integrand oscillates along the vertical
     * with frequency |x - K'(c)|; where the bend also damps locally (|F| changes like
     * exp((K'(c) - x) Re dz)), bend after about one radian of phase instead. */
    double fr = x - K1;
    if (p->dir != 0 && (fr > 0 ? 1 : -1) == p->dir && 1.0 / fabs(fr) < p->t0)
        p->t0 = 1.0 / fabs(fr);
    /* The slope of the bend sets the wedge |arg dt| < w around the path in which the
     * integrand stays analytic and decaying, and the trapezoidal rule converges like
     * exp(-2 pi w / h) in the sinh variable. A normal component (sigma2, or terms with
     * |a| so small that they act as normals over the range of z) needs |Re z| < Im z
     * there: slope tan(pi/8) gives w = pi/8 on both sides. Otherwise the only condition is
     * Re z -> dir*inf, and slope 0.8 gives w of about 0.67 on both sides. */
    int normal_like = q->sigma2 > 0;
    double zscale = 10 * (fabs(c) + p->t0);
    for (size_t j = 0; j < q->n; j++)
        normal_like |= q->t[j].b2 > 0 && 2 * fabs(q->t[j].a) * zscale < 1;
    p->beta = p->dir ? (normal_like ? 0.41421356237309505 : 0.8) : 0.0;
    p->kernel = kernel;
    p->imag_only = 1;
    p->nevals = 0;
    p->deadline = 0;
    if (p->L0 < below)
        return GA_OK; /* (the caller needs the scale only: the value is below its range) */
    /* A bend that starts too early can climb: moving Re z toward the other side of 0
     * before the vertical decay has set in (a large noncentral term whose pole is far
     * from c, a saddle pressed against a pole) takes |F| far above its value at the
     * saddle, and the integral then cancels away digits (e^17 on the path of a 1e-99
     * tail cost it 9 digits); a hump far out, where the nodes are sparse, can be missed
     * by two levels alike and the sum accepted wrong. Sample log|F| on the path; while it
     * rises above the saddle value by more than 2 (a factor 7), or to a hump above e^-40
     * past a fall (path_climb), bend later: t0 doubled, at most 24 times, the best kept.
     * A climb alone is caught by the error estimate (its rounding part scales with
     * int |F|); a missed hump is not, so the check is what keeps that estimate honest.
     * Skipped where log|F| is rounding noise in double (|L0| or |c x| beyond about 1e14:
     * only the certified path meets those, and it keeps the plain bend). */
    if (p->dir != 0 && 16 * DBL_EPSILON * (1 + fabs(p->L0) + fabs(c * x)) < 0.5) {
        double best_t0 = p->t0, best = INFINITY;
        for (int k = 0; k <= 24; k++, p->t0 *= 2) {
            double g = path_climb(p);
            if (g < best) {
                best = g;
                best_t0 = p->t0;
            }
            if (g <= 2)
                break;
        }
        p->t0 = best_t0;
    }
    return GA_OK;
}

/* Adaptive Gauss-Kronrod along a vertical path in geometric chunks (the Imhof engine, whose
 * integrand decays only algebraically). */
static int path_integrate_gk(ga_result *out, ga_path *p, double epsabs, double epsrel,
                             size_t max_evals, ga_quad_work *w)
{
    ga_result r;
    double absint = 0, ai;
    size_t evals = 0;
    int status = ga_quad_gk(&r, &ai, &evals, ga_path_integrand, p, 0.0, p->t0,
                            0.5 * epsabs, 0.5 * epsrel, max_evals, w);
    double val = r.val, err = r.err;
    absint += ai;
    double T = p->t0, L = p->t0, tail = INFINITY;
    /* the integrand oscillates like exp(i t (mean - x)) near 0 and exp(i t (m_inf - x)) far
     * out: a chunk longer than one period lets the 7- and 15-point rules agree by accident,
     * so chunks grow geometrically only up to one period */
    double mean, var;
    ga_gchisq_moments(&mean, &var, p->q);
    double omega = fmax(fabs(p->x - mean), fabs(p->x - ga_gchisq_drift(p->q)));
    double period = omega > 0 ? 2 * M_PI / omega : INFINITY;
    for (int chunk = 0; chunk < 200; chunk++) {
        double tol = 0.25 * fmax(epsabs, epsrel * fabs(val));
        tail = ga_path_tailbound(p, T);
        if (tail <= tol)
            break;
        if (evals >= max_evals) {
            status = GA_ETOL;
            break;
        }
        int s = ga_quad_gk(&r, &ai, &evals, ga_path_integrand, p, T, T + L, 0.5 * tol, 0.0,
                           max_evals - evals, w);
        if (s)
            status = s;
        val += r.val;
        err += r.err;
        absint += ai;
        T += L;
        /* grow the chunks geometrically: the integrand decays at least exponentially on the
         * ray, and only algebraically on a vertical path */
        L = fmin(2 * L, fmax(period, p->t0));
        if (!isfinite(T))
            break;
    }
    if (!isfinite(tail)) {
        status = GA_ETOL;
    }
    /* rounding: the exponent K(z) - z x - L0 is computed with an absolute error of a few
     * eps (|K(c)| + |c x|), i.e. a relative error of the integrand; 16 eps (1 + |L0| + |c x|)
     * times int |integrand| bounds its effect with margin. */
    double round = 16 * DBL_EPSILON * (1 + fabs(p->L0) + fabs(p->c * p->x)) * absint;
    out->val = val;
    out->err = err + tail + round;
    /* the status judges what more work can reduce (quadrature and truncation); the rounding
     * floor is reported in err but cannot be lowered in double precision */
    if (err + tail > fmax(epsabs, epsrel * fabs(val)) && status == GA_OK)
        status = GA_ETOL;
    return status;
}

/*
 * Trapezoidal rule on the symmetric analytic path after the substitution t = d sinh(u):
 * the full-line rule equals the half-line rule with weight 1/2 at u = 0. Near t = 0 the
 * nearest singularities (the pole at z = 0, branch points of M on the real axis, the
 * path's own branch points at t = +-i t0) are at distance >= d, and further out at distance
 * of order |t|: the sinh map turns that into a strip of roughly constant width in u, so the
 * rule converges geometrically, like exp(-2 pi w / h) (Trefethen & Weideman, SIAM Review
 * 56, 2014), with a step that grows with t. The range is fixed at the coarsest level by
 * the tail bound; the step is halved (reusing every node) until the change between two
 * levels is within half the tolerance, and that change is reported as the quadrature error
 * (pessimistic under geometric convergence, where the accepted sum is much better), or
 * until the changes are rounding noise. The truncation part is a bound.
 */
static inline double sinh_integrand(double u, ga_path *p, double d)
{
    double e = exp(u), ie = 1 / e;
    return ga_path_integrand(0.5 * d * (e - ie), p) * 0.5 * d * (e + ie);
}

int ga_path_integrate(ga_result *out, ga_path *p, double epsabs, double epsrel,
                      size_t max_evals, ga_quad_work *w)
{
    (void)w;
    const ga_gchisq *q = p->q;
    double d = fabs(p->c);
    if (p->dir != 0)
        d = fmin(d, p->t0);
    if (p->kernel == GA_KERNEL_DELTA)
        d = fmin(d, fabs(p->c + 1));
    for (size_t j = 0; j < q->n; j++)
        d = fmin(d, fabs(0.5 / q->t[j].a - p->c));
    double h = 0.5;
    int status = GA_OK;
    /* coarsest level and range */
    double g0 = sinh_integrand(0.0, p, d);
    double sum = 0.5 * g0, asum = 0.5 * fabs(g0), tail = INFINITY;
    size_t k, kmax = 4000;
    for (k = 1; k <= kmax; k++) {
        double v = sinh_integrand(k * h, p, d);
        sum += v;
        asum += fabs(v);
        if (!isfinite(sum)) /* overflow on the path: refining cannot help */
            break;
        tail = ga_path_tailbound(p, d * sinh(k * h));
        if (tail <= 0.25 * fmax(epsabs, epsrel * fabs(h * sum)))
            break;
    }
    if (k > kmax) {
        k = kmax;
        status = GA_ETOL;
    }
    double U = k * h, S = h * sum, A = h * asum, delta = INFINITY, delta_prev = INFINITY,
           err = INFINITY;
    for (int level = 1; level <= 16; level++) {
        h *= 0.5;
        double add = 0, aadd = 0;
        for (double u = h; u < U; u += 2 * h) {
            double v = sinh_integrand(u, p, d);
            add += v;
            aadd += fabs(v);
        }
        if (!isfinite(S) || !isfinite(add))
            break;
        double Sn = 0.5 * S + h * add, dn = fabs(Sn - S);
        A = 0.5 * A + h * aadd;
        S = Sn;
        double tol = fmax(epsabs, epsrel * fabs(S));
        /* converged to the rounding floor: the changes are rounding noise from here on */
        double floor_r = 16 * DBL_EPSILON * (1 + fabs(p->L0) + fabs(p->c * p->x)) * A;
        if (level >= 2 && dn <= floor_r && delta <= 1e3 * floor_r) {
            err = dn;
            break;
        }
        /* Under geometric convergence each change is a smaller fraction of the one before
         * (halving the step squares exp(-2 pi w / h)). A ratio that grows instead is a second,
         * narrower feature of the integrand (a singularity nearer the path than the one that
         * set the early rate) that the levels so far alias alike: it shows only in later
         * changes (a fixed row of the path test: ratios 3e-5, 8e-4, 0.016, and the sum off
         * by 1.7 times that last change). Such a level is not accepted: the next one tells. */
        int slowing = level >= 3 && dn * delta_prev > delta * delta;
        if (!slowing && dn <= 1e-3 * tol) {
            err = dn;
            break;
        }
        /* accept a level when its change is within half the tolerance: convergence is
         * geometric, so the error of the accepted sum is far below that change (a model
         * extrapolating from two changes is fooled when two singularities with different
         * strip widths compete, which happens) */
        if (!slowing && level >= 2 && dn <= 0.5 * tol && dn <= delta) {
            err = dn;
            break;
        }
        delta_prev = delta;
        delta = dn;
        err = dn;
        if (p->nevals > max_evals) {
            status = GA_ETOL;
            break;
        }
    }
    double scale = 16 * DBL_EPSILON * (1 + fabs(p->L0) + fabs(p->c * p->x));
    double round = scale * A;
    out->val = S;
    out->err = err + 2 * tail + round;
    if (!isfinite(S) || !(out->err < INFINITY)) /* overflow on the path: nothing vouched for */
        return GA_ETOL;
    /* The status: the target, or the rounding floor of this integral in double precision
     * (arguments of size L0 and c x), whichever is larger, but a floor above 1e-10 relative
     * (c x of 1e6 and more: terms in the exponent that cancel, as for a large noncentral
     * shift folded into the offset, or sum |f| >> |sum f|) is a failure: GA_ETOL. */
    double unavoidable = fmin(4 * scale, 1e-10) * fabs(S);
    if (out->err > fmax(fmax(epsabs, epsrel * fabs(S)), unavoidable) && status == GA_OK)
        status = GA_ETOL;
    return status;
}

/* Fill one tail of out from the integral on scale L0 (sign +1: sf, -1: cdf). */
static void set_tail(ga_gchisq_prob *out, int sign, const ga_result *in, double L0)
{
    double v = sign * in->val / M_PI, e = in->err / M_PI;
    double lv = v > 0 ? L0 + log(v) : -INFINITY;
    double val = v > 0 ? exp(lv) : 0.0;
    double err = exp(L0 + log(e));
    if (e == 0)
        err = 0;
    if (!(err <= 1))
        err = 1; /* a failed integral (NaN) vouches for nothing: the tail is in [0, 1] */
    if (val > 1)
        val = 1;
    if (sign > 0) {
        out->sf.val = val;
        out->sf.err = err;
        out->log_sf = lv;
    } else {
        out->cdf.val = val;
        out->cdf.err = err;
        out->log_cdf = lv;
    }
}

int ga_engine_contour(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                      const ga_gchisq_opts *o, ga_quad_work *w)
{
    int st[2] = {GA_OK, GA_OK}; /* sf, cdf */
    out->method = GA_METHOD_CONTOUR;
    out->evals = 0;
    for (int sign = 1; sign >= -1; sign -= 2) {
        ga_path p;
        ga_result in;
        if (ga_path_setup(&p, q, x, sign, GA_KERNEL_TAIL) != GA_OK)
            return GA_EDOM;
        if (p.L0 < -800) {
            /* Chernoff: the tail is at most exp(K(c) - c x) < 1e-347, so 0 is its correctly
             * rounded double (error 0). Its log still comes from the integral on the L0 scale
             * (relative target only); where that fails the log is left at -inf, never at
             * the Chernoff bound (which is off by the log of the prefactor, e.g. 8 at 1e-436) */
            ga_result z = {0, 0};
            int sl = ga_path_integrate(&in, &p, 0.0, fmax(o->epsrel, 1e-10), o->max_evals, w);
            out->evals += p.nevals;
            double v = sign * in.val / M_PI;
            /* the log needs the integral to a relative 1e-8 (an absolute 1e-8 in the log),
             * not the target (whose rounding floor grows with c x) */
            double lv = (sl == GA_OK || sl == GA_ETOL) && v > 0 && in.err <= 1e-8 * fabs(in.val)
                            ? p.L0 + log(v) : -INFINITY;
            set_tail(out, sign, &z, p.L0);
            if (sign > 0)
                out->log_sf = lv;
            else
                out->log_cdf = lv;
            continue;
        }
        /* targets on the L0 scale: absolute epsabs / exp(L0) (times pi) */
        double ea = o->epsabs > 0 ? o->epsabs * M_PI * exp(-p.L0) : 0.0; /* (0 * inf: NaN) */
        if (!isfinite(ea))
            ea = DBL_MAX;
        st[sign < 0] = ga_path_integrate(&in, &p, ea, o->epsrel, o->max_evals, w);
        out->evals += p.nevals;
        set_tail(out, sign, &in, p.L0);
    }
    /* P[Q <= x] + P[Q > x] = 1: where a direct integral failed or is less accurate than 1
     * minus the other tail (the bulk side of a far tail, whose path is the harder one),
     * take the complement, with the other's error plus one ulp of 1 for the subtraction
     * (and for a remainder below the other's double: a tail rounded to 0 is < 1e-347). */
    for (int i = 0; i < 2; i++) {
        ga_result *t = i ? &out->cdf : &out->sf, *u = i ? &out->sf : &out->cdf;
        double e = u->err + DBL_EPSILON;
        if (st[1 - i] == GA_OK && u->val <= 1 && e < t->err) {
            t->val = 1 - u->val;
            t->err = e;
            double *lt = i ? &out->log_cdf : &out->log_sf;
            *lt = log1p(-u->val);
            st[i] = e <= fmax(o->epsabs, o->epsrel * t->val) ? GA_OK : GA_ETOL;
        }
    }
    return st[0] ? st[0] : st[1];
}

/*
 * Imhof (1961) / Gil-Pelaez: P[Q <= x] = 1/2 - (1/pi) int_0^inf Im(e^{-itx} phi(t)) / t dt,
 * the vertical path through c = 0 where the pole at 0 is taken as half its residue. The same
 * integral gives P[Q > x] = 1/2 + (1/pi) int. Truncation: the vertical-path bound of
 * ga_path_tailbound with c = 0 (Imhof's section 3 bound, extended to noncentral terms).
 * Both tails share one integral, so neither has relative accuracy below the absolute error.
 */
int ga_engine_imhof(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                    const ga_gchisq_opts *o, ga_quad_work *w)
{
    double mean, var;
    ga_gchisq_moments(&mean, &var, q);
    ga_path p = {.q = q, .x = x, .c = 0, .L0 = 0, .t0 = 2.0 / sqrt(var), .beta = 0,
                 .dir = 0, .kernel = GA_KERNEL_TAIL, .imag_only = 1, .nevals = 0};
    ga_result in;
    /* Im(F i) = Re F: the integrand is Re(phi(t) e^{-itx} / (it)) = Im(e^{-itx} phi)/t */
    /* an absolute method (both tails are 1/2 +- the integral): relative target as absolute */
    double tol = fmax(o->epsabs, o->epsrel);
    /* the oscillatory, slowly decaying integrand can fool the QUADPACK heuristic */
    w->conservative = 1;
    int status = path_integrate_gk(&in, &p, tol * M_PI, 0.0, o->max_evals, w);
    w->conservative = 0;
    double v = in.val / M_PI, e = in.err / M_PI;
    out->sf.val = 0.5 + v;
    out->cdf.val = 0.5 - v;
    out->sf.err = out->cdf.err = e + DBL_EPSILON;
    out->sf.val = fmin(1, fmax(0, out->sf.val));
    out->cdf.val = fmin(1, fmax(0, out->cdf.val));
    out->log_sf = log(out->sf.val);
    out->log_cdf = log(out->cdf.val);
    out->method = GA_METHOD_IMHOF;
    out->evals = p.nevals;
    if (status == GA_OK && out->sf.err > tol)
        status = GA_ETOL;
    return status;
}

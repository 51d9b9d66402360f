/*
 * ploss_bracket.c - a two-sided bound of delta for a few Poisson-subsampled Gaussian steps,
 * by discretised privacy losses with second-order corrections.
 *
 * One term of T identical steps (pair/ploss.c for the loss l(x) and the roles): in the
 * direction asked each step's loss is V = l(x), x from the mixture (1 - q) N(0, 1) + q N(m, 1)
 * (sw 0), or V = -l(x), x ~ N(0, 1) (sw 1), and delta = E[f(S)] with S the sum of T iid copies
 * and f(s) = (1 - e^{eps - s})_+, which is nondecreasing, 0 up to eps and concave beyond.
 *
 * On the grid l_k = k h the cell [l_k, l_{k+1}) has the mass w_k and the offset d_k = E[(V -
 * l_k) 1(V in the cell)]. Rounding every step's loss down to its cell's left end gives a sum
 * S_ = S - x with x the sum of the T roundings r_i in [0, h), so 0 <= x < T h. Since 1 - e^{-y}
 * >= y - y^2/2 for y >= 0 and (1 - e^{-y})_+ = 0 > y - y^2/2 for y < 0,
 *   f(S) = f(S_) + e^{eps - S_} (1 - e^{-x}) >= f(S_) + f'(S_) (x - x^2/2)   where S_ > eps,
 *   f(S) >= y - y^2/2,  y = S - eps = (S_ - eps) + x                           where S_ <= eps
 * (the second on the band S_ > eps - T h, below which it is negative, taken at the grid points
 * where its expectation is positive, any choice being a bound), and x^2 = sum r_i^2 + sum_{i
 * != j} r_i r_j <= h x + sum_{i != j} r_i r_j. By independence each term's expectation is one
 * of the rounded sum's: E[x; S_ = s] = T D(s), D = d * w^{*(T-1)}, and E[r_i r_j; S_ = s] = Q(s),
 * Q = d * d * w^{*(T-2)}, so the lower bound's gap is of second order in h and grows like T h^2
 * (the h x term) and T^3 h^3 (the cubic one), not like T^2 h^2. Certified, the bound uses the
 * chord of the concave 1 - e^{-x} over [0, T h] instead (slope c = (1 - e^{-T h})/(T h): f(S) >=
 * f(S_) + c f'(S_) x above, c y on the band), which needs no Q: a gap like T^2 h^2. The upper
 * bound splits each cell's
 * mass w_k between its ends, the part E[1 - e^{-(V - l_k)}] / (1 - e^{-h}) at l_{k+1} and the
 * rest at l_k, which keeps the cell's masses under both laws (the "connect the dots"
 * discretisation, Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, PETS 2022): the step is a
 * post-processing of the split pair (merge the ends), so the split pair's T-fold delta is an
 * upper bound with a gap of second order in h, without corrections (certified: the part at
 * l_{k+1} is (w_k - e^{l_k} w_Y,k) / (1 - e^{-h}) from the cell's masses under both laws in
 * Arb, the ball's upper end taken, since moving more mass up still dominates). The bounds are
 * dominating discretisations (Meiser & Mohammadi, CCS 2018), the lower one with the
 * first-order term of the rounding taken back.
 *
 * The T-fold sums are taken over a window of the points that carry the tilted mass, not over
 * their whole support (ga_ploss_window, below: what lies outside is bounded by a Chernoff
 * bound of the discretised step and added to both ends), and the grid's step is the finest
 * whose window fits FFT_CAP points: many steps of a small rate, whose tilted sums are narrow,
 * get a grid much finer than a transform of the whole support would allow.
 *
 * eps(delta) (ga_ploss_bracket_eps): one grid's convolutions, tilted near a guess of eps*,
 * give both bounds at every eps; the smallest point found where the upper bound is at most
 * delta and the largest where the lower bound exceeds it enclose eps* (regula falsi keeping a
 * point of each sign: the bounds need not be monotone). The search runs on suffix sums of the
 * convolutions (the band's T points apart, a bound then costs O(T)); the two points it returns
 * are checked by the bound's own evaluation.
 *
 * The grid covers the loss where its tails exceed a cut (TAILREL times the Chernoff bound of
 * delta, then smaller until the tail above weighs under 1e-6 of the lower bound): below it the
 * lower bound drops the mass and the upper one moves it to the first point; above it the lower
 * bound drops it and the upper one counts it as a loss of +infinity. Convolutions by FFT are
 * accurate in 2-norm relative to the vectors' norms, so the vectors are tilted by
 * e^{theta (l - eps/T)} (theta >= 0 where the tilted loss has mean eps, pair/ploss.c): the
 * outcomes that carry delta then weigh about as much as the rest, and the FFT's rounding
 * (the masses and the offsets in one complex transform, numerics/fft.c, bounded in 2-norm by
 * Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Theorem 24.2) is added to
 * both ends, as are the rounding of the masses
 * (differences of normal tails) and of the tilt; the offsets come from Gauss-Legendre panels
 * in x, where the integrand is analytic, with a margin of 1e-9 of themselves taken off (they
 * only enter as a correction of first order in h).
 *
 * Certified (ga_ploss_bracket_arb), the same bracket on the grid, cut and window the double
 * one chooses (up to 32768 cells; the window's outside masses proven, proven_tail) takes every
 * input proven (pair/ploss_bracket_arb.c: the masses
 * from Arb's erfc, the offsets bounded through the loss's convexity, the FFT's twiddle
 * factors from Arb, the weights as exponential sequences of proven rounding, the sums'
 * rounding by gamma_n, the final scale in Arb).
 */
#include "numerics/arb.h"
#include "pair/loss.h"

#include <float.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TAILREL 1e-12    /* tail mass dropped, relative to the Chernoff scale (per step) */
#define MAX_TOTAL ((1 << 23) - 64) /* T times the points of one step at most */
#define FFT_CAP (1 << 19)          /* the cyclic convolutions' length the grid is chosen for */
#define CELL_CAP 65536             /* the cells of one step at most */
#define MIN_H 1e-6       /* the finest grid */
#define CERT_CELLS 32768 /* the certified bracket's cells at most (each a few erfc in Arb) */

typedef struct {
    const ga_ploss_term *t; /* the step: rate, shift */
    double lq;              /* log(1 - q) */
    int sw;                 /* the direction of the step's loss (pair/ploss_step.c) */
} step_t;

/* P[V <= v] and P[V > v], each from the smaller tail */
static void cdf2(double *F, double *G, const step_t *s, double v)
{
    ga_step_tails(F, G, s->t, s->sw, v);
}

/* the loss of the step at x and the density of x there: with E = e^{m x - m^2/2}, e^{l(x)}
 * = 1 - q + q E and the mixture's density is phi(x) e^{l(x)} (phi the standard normal's);
 * where E or phi(x) leaves the doubles' range, each from its own exponentials */
static void V_dens(double *V, double *dn, const step_t *s, double x)
{
    double q = s->t->q, m = s->t->m, e1 = m * x - 0.5 * m * m, p0 = exp(-0.5 * x * x), l, mix;
    if (e1 < 700 && x * x < 1400) {
        double E = exp(e1);
        l = log1p(q * (E - 1));
        mix = p0 * ((1 - q) + q * E);
    } else {
        l = ga_step_loss(s->t, s->lq, x);
        mix = (1 - q) * p0 + q * exp(-0.5 * (x - m) * (x - m));
    }
    *V = s->sw ? -l : l;
    *dn = (s->sw ? p0 : mix) * (0.5 * M_2_SQRTPI * M_SQRT1_2); /* (times 1/sqrt(2 pi)) */
}

/* Gauss-Legendre nodes and weights on [-1, 1] (4 and 8 points) */
typedef struct {
    double x4[4], w4[4], x8[8], w8[8];
} gl_t;

static int gl_init(gl_t *g)
{
    gsl_integration_glfixed_table *t4 = gsl_integration_glfixed_table_alloc(4);
    gsl_integration_glfixed_table *t8 = gsl_integration_glfixed_table_alloc(8);
    int ok = t4 && t8;
    for (size_t j = 0; ok && j < 8; j++) {
        if (j < 4)
            gsl_integration_glfixed_point(-1, 1, j, &g->x4[j], &g->w4[j], t4);
        gsl_integration_glfixed_point(-1, 1, j, &g->x8[j], &g->w8[j], t8);
    }
    if (t4)
        gsl_integration_glfixed_table_free(t4);
    if (t8)
        gsl_integration_glfixed_table_free(t8);
    return ok ? GA_OK : GA_ENOMEM;
}

/* E[(V - a) 1(V in [a, b))] (*d0) and E[(1 - e^{-(V - a)}) 1(V in [a, b))] (*d1) by
 * Gauss-Legendre panels over the cell's x-interval [x0, x1], both from the same nodes */
static void offsets(double *d0, double *d1, const step_t *s, double a, double x0, double x1,
                    const gl_t *gl)
{
    *d0 = *d1 = 0;
    x0 = fmax(x0, -40.0); /* the density below is under 1e-340 */
    x1 = fmin(x1, 40.0 + s->t->m);
    if (!(x1 > x0))
        return;
    double pw = 0.25 / fmax(1.0, s->t->m);
    /* a narrow cell (most of them): 4 nodes; else 8-node panels no wider than pw */
    int narrow = x1 - x0 <= 0.1 * pw, nn = narrow ? 4 : 8;
    const double *xs = narrow ? gl->x4 : gl->x8, *ws = narrow ? gl->w4 : gl->w8;
    size_t np = (size_t)ceil((x1 - x0) / pw);
    if (np < 1)
        np = 1;
    double step = (x1 - x0) / (double)np, s0 = 0, s1 = 0;
    for (size_t i = 0; i < np; i++) {
        double lo = x0 + (double)i * step, hi = x0 + (double)(i + 1) * step;
        double c = 0.5 * (lo + hi), r = 0.5 * (hi - lo);
        for (int j = 0; j < nn; j++) {
            double V, dn;
            V_dens(&V, &dn, s, c + r * xs[j]);
            double u = V - a, wd = r * ws[j] * dn;
            s0 += u * wd;
            s1 += -expm1(-u) * wd;
        }
    }
    *d0 = fmin(fmax(s0, 0), 1);
    *d1 = fmin(fmax(s1, 0), 1);
}

/* ---------------------------------------------------------------- one side */

static double norm2(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i] * v[i];
    return sqrt(s);
}

/* z^k for a complex z (repeated squaring: about 2 log2 k roundings) */
static void cpowk(double *re, double *im, unsigned k)
{
    double ar = 1, ai = 0, br = *re, bi = *im;
    while (k) {
        if (k & 1) {
            double t = ar * br - ai * bi;
            ai = ar * bi + ai * br;
            ar = t;
        }
        k >>= 1;
        if (k) {
            double t = br * br - bi * bi;
            bi = 2 * br * bi;
            br = t;
        }
    }
    *re = ar;
    *im = ai;
}

/* At the position pair (i, j) of frequencies f and -f (numerics/fft.c's order) of the packed
 * transform z of v + i c dv: the transforms of v and c dv are V = (Z_i + conj Z_j) / 2 and
 * C = (Z_i - conj Z_j) / (2i); with P = V^{T-1}, the spectra of W = v^{*T} and c D = c dv *
 * v^{*(T-1)} are P V and P C, packed again as P V + i P C (at j: their conjugates), whose
 * inverse transform is W + i c D. With zq (T >= 2), P = R V with R = V^{T-2}, and the
 * spectrum of c^2 Q = c^2 dv * dv * v^{*(T-2)}, R C C, goes to zq at i (conjugated at j). */
static void power_pair(double *z, double *zq, size_t i, size_t j, unsigned T)
{
    double V[2], C[2];
    ga_fft_unpack(V, C, z, i, j);
    double vr = V[0], vi = V[1], cr = C[0], ci = C[1], rr = 1, ri = 0, pr, pi;
    if (zq) {
        if (T > 2) {
            rr = vr, ri = vi;
            cpowk(&rr, &ri, T - 2);
        }
        pr = rr * vr - ri * vi, pi = rr * vi + ri * vr;
        double qr = rr * cr - ri * ci, qi = rr * ci + ri * cr;
        double sr = qr * cr - qi * ci, si = qr * ci + qi * cr;
        zq[2 * i] = sr;
        zq[2 * i + 1] = si;
        zq[2 * j] = sr;
        zq[2 * j + 1] = -si;
    } else {
        pr = vr, pi = vi;
        cpowk(&pr, &pi, T - 1);
    }
    double wr = pr * vr - pi * vi, wi = pr * vi + pi * vr;
    double dr = pr * cr - pi * ci, di = pr * ci + pi * cr;
    z[2 * i] = wr - di;
    z[2 * i + 1] = wi + dr;
    z[2 * j] = wr + di;
    z[2 * j + 1] = dr - wi;
}

/* One side's T-fold convolution, cyclic of length N: the linear index i (sum s = (T k0 + i) h,
 * i < len) in the window ws <= i < ws + N is at z[2 (i mod N)] (W) and z[2 (i mod N) + 1]
 * (c D); eW, eD bound the 2-norms of their rounding errors, aW and aD the masses of W and D
 * outside the window (the wrap-around: each is at most that mass off, and what lies outside
 * is missing) */
typedef struct {
    double *z;
    const double *zq; /* the lower side, T >= 2, double precision: c^2 Q at zq[2 (i mod N)]
                       * (the upper side's z, its imaginary parts) */
    double *qbuf;     /* c^2 Q's spectrum until the upper side takes it (then freed) */
    size_t len, N, ws;
    double c, eW, eD, eQ, aW, aD;
    double eQs, pwq;  /* the part of eQ c^2 from the spectrum's error; the powers' rounding,
                       * relative */
} conv_t;

/* the window's end: the points i with ws <= i < min(len, ws + N) */
static size_t win_end(const conv_t *cv)
{
    return cv->ws + cv->N < cv->len ? cv->ws + cv->N : cv->len;
}

/* Certified mode: the step's exact parameters, eps between two doubles, the tilt's centre
 * lc (the cells carry e^{theta (l - lc)}), and the two results (balls below and above delta) */
typedef struct {
    const arb_struct *q, *m;
    double eps_lo, eps_hi, lc;
    slong prec;
    arb_struct *lower, *upper;
} cert_t;

/* the running sums of cert_sums: the W and D terms, their weights' errors, absolute values
 * and squared weights */
typedef struct {
    double sum, corr, aw, ad, sw, sd, n2f, n2g;
} csum_t;

/* A ball's ends as a double near its middle and the distance to either end (at least). */
static double ball_d(double *err, const arb_t v)
{
    ga_interval iv;
    ga_arb_bounds(&iv, v);
    double m = 0.5 * iv.lo + 0.5 * iv.hi;
    *err = fmax(iv.hi - m, m - iv.lo) * (1 + 4 * DBL_EPSILON) + 0x1p-1070;
    return m;
}

/* The chord's slope (1 - e^{-T h}) / (T h) in Arb (the lower side's factor, above) */
static void chord_arb(arb_t res, unsigned T, double h, slong prec)
{
    arb_t x;
    arb_init(x);
    arb_set_d(x, h);
    arb_mul_si(x, x, -(long)T, 256); /* -T h, exact */
    arb_expm1(res, x, prec);
    arb_div(res, res, x, prec);
    arb_clear(x);
}

/* The lower side's band, the grid points s in (eps' - T h, eps'] below i0 (eps' = eps_hi):
 * f(S) >= c (S - eps') where S <= s + T h (c the chord's slope), in expectation c ((s - eps')
 * W(s) + T D(s)) times the tilt's undoing, taken where positive (any choice is a bound); the
 * weights from Arb with their errors in the sums' allowances */
static int band_sums(csum_t *cs, const conv_t *cv, size_t i0, long base, unsigned T,
                     double h, double theta, const cert_t *ct)
{
    slong prec = ct->prec;
    arb_t sp, d, tb, eTh, x;
    arb_init(sp), arb_init(d), arb_init(tb), arb_init(eTh), arb_init(x);
    chord_arb(eTh, T, h, prec);
    int rc = GA_OK;
    for (size_t i = i0; i-- > cv->ws;) {
        arb_set_d(sp, h);
        arb_mul_si(sp, sp, base + (long)i, 256); /* s, exact */
        arb_set_d(x, ct->eps_hi);
        arb_sub(d, sp, x, prec); /* s - eps' <= 0 */
        arb_set_d(x, h);
        arb_mul_si(x, x, (long)T, 256);
        arb_add(x, x, d, prec);
        if (!arb_is_positive(x))
            break; /* (s <= eps' - T h: the band ends) */
        arb_set_d(tb, ct->lc);
        arb_mul_ui(tb, tb, T, 256);
        arb_sub(tb, tb, sp, prec);
        arb_set_d(x, theta);
        arb_mul(tb, tb, x, prec);
        arb_exp(tb, tb, prec);
        arb_mul(tb, tb, eTh, prec); /* the D weight b = c e^{theta (T lc - s)} */
        arb_mul(d, d, tb, prec);    /* the W weight a = b (s - eps') */
        double ea, eb, a = ball_d(&ea, d), b = ball_d(&eb, tb);
        if (!isfinite(a) || !isfinite(b)) {
            rc = GA_EPREC;
            break;
        }
        size_t iz = i % cv->N;
        double W = cv->z[2 * iz], D = cv->z[2 * iz + 1] / cv->c; /* (c a power of two: exact) */
        if (a * W + T * b * D > 0) {
            cs->sum += a * W;
            cs->corr += b * D;
        }
        /* (the rounding of either choice, and the FFT's error through both weights) */
        cs->aw += fabs(W) * ea;
        cs->ad += fabs(D) * eb;
        cs->sw += fabs(a * W);
        cs->sd += fabs(b * D);
        cs->n2f += (fabs(a) + ea) * (fabs(a) + ea);
        cs->n2g += (b + eb) * (b + eb);
    }
    arb_clear(sp), arb_clear(d), arb_clear(tb), arb_clear(eTh), arb_clear(x);
    return rc;
}

/*
 * Certified weights and sums of one side over the transform's output z (W at z[2 i], c D at
 * z[2 i + 1], s_i = (T k0 + i) h), the FFT's error norms eW, eD given: the weights
 * e^{-theta (s - T lc)} and e^{eps' - s} from ga_exp_seq_arb (2 ulps each, proven), with eps'
 * the end of eps's ball that keeps the side a bound (the lower side's f at eps_hi, its g at
 * eps_lo, over s > eps_hi, and its band below eps_hi; the upper side's f at eps_lo over s >
 * eps_lo, the split vector having no corrections), e^{-T h} from Arb, each weight's rounding
 * (5 ulps of the tilt for f, 6 of g, or 2^-1070 below the normal range) and the sums'
 * (gamma_len) in the allowance, which is then raised by 1e-10 for its own rounding.
 */
static int cert_sums(double *val, double *allow, const conv_t *cv, long k0, unsigned T,
                     double h, double theta, int side, const cert_t *ct)
{
    long base = (long)T * k0;
    size_t len = win_end(cv);
    size_t i0 = ga_grid_first_above(base, h, side ? ct->eps_lo : ct->eps_hi, 1, len);
    if (i0 < cv->ws)
        i0 = cv->ws;
    size_t ic = side ? len : i0; /* (the upper side: no corrections) */
    size_t n = len - i0;
    *val = 0;
    *allow = 0;
    if (n == 0)
        return GA_OK;
    double *tt = malloc(n * sizeof *tt), *yf = malloc(n * sizeof *yf), *yg = malloc(n * sizeof *yg);
    arb_t s0, a, b, x;
    arb_init(s0);
    arb_init(a);
    arb_init(b);
    arb_init(x);
    slong prec = ct->prec;
    int rc = tt && yf && yg ? GA_OK : GA_ENOMEM;
    arb_set_d(s0, h);
    arb_mul_si(s0, s0, base + (long)i0, 256); /* s_{i0}, exact */
    if (rc == GA_OK) { /* the tilt undone: e^{theta (T lc - s)} */
        arb_set_d(a, ct->lc);
        arb_mul_ui(a, a, T, 256);
        arb_sub(a, a, s0, prec);
        arb_set_d(x, theta);
        arb_mul(a, a, x, prec);
        arb_set_d(b, -h);
        arb_mul(b, b, x, prec);
        rc = ga_exp_seq_arb(tt, n, a, b, prec);
    }
    for (int k = 0; k < 2 && rc == GA_OK; k++) { /* e^{eps' - s}: f's and g's ends */
        arb_set_d(a, k == 0 && !side ? ct->eps_hi : ct->eps_lo);
        arb_sub(a, a, s0, prec);
        arb_set_d(b, -h);
        rc = ga_exp_seq_arb(k ? yg : yf, n, a, b, prec);
    }
    double eTh = 1; /* (the chord's slope, to half an ulp) */
    if (rc == GA_OK && !side) {
        chord_arb(x, T, h, prec);
        eTh = arf_get_d(arb_midref(x), ARF_RND_NEAR);
    }
    const double u = DBL_EPSILON / 2, tiny = 0x1p-1070;
    csum_t cs = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t j = 0; rc == GA_OK && j < n; j++) {
        size_t i = i0 + j, iz = i % cv->N;
        double W = cv->z[2 * iz], D = cv->z[2 * iz + 1] / cv->c; /* (c a power of two: exact) */
        double f = (1 - yf[j]) * tt[j], ef = 5 * u * tt[j] + tiny;
        cs.sum += W * f;
        cs.aw += fabs(W) * ef;
        cs.sw += fabs(W * f);
        cs.n2f += (fabs(f) + ef) * (fabs(f) + ef);
        if (i >= ic) {
            double g = yg[j] * tt[j] * eTh, eg = 6 * u * g + tiny;
            cs.corr += D * g;
            cs.ad += fabs(D) * eg;
            cs.sd += fabs(D * g);
            cs.n2g += (g + eg) * (g + eg);
        }
    }
    if (rc == GA_OK && !side)
        rc = band_sums(&cs, cv, i0, base, T, h, theta, ct);
    if (rc == GA_OK) {
        double gl = (double)len * u / (1 - (double)len * u);
        *val = side ? cs.sum - T * cs.corr : cs.sum + T * cs.corr;
        *allow = (sqrt(cs.n2f) * cv->eW + T * sqrt(cs.n2g) * cv->eD + cs.aw + T * cs.ad +
                  gl * (cs.sw + T * cs.sd) + 4 * u * (fabs(cs.sum) + T * fabs(cs.corr))) *
                 (1 + 1e-10);
    }
    free(tt);
    free(yf);
    free(yg);
    arb_clear(s0);
    arb_clear(a);
    arb_clear(b);
    arb_clear(x);
    return rc;
}

/*
 * The bound of one side from the tilted mass vector v (sum 1, v >= 0) and offset vector dv,
 * both at grid indices k0 .. k0 + n - 1: W = v^{*T} and D = dv * v^{*(T-1)} by one complex
 * FFT of v + i c dv (c = 2^e brings dv to the size of v, exactly) of the window's length N
 * (ga_ploss_window: what wraps around is bounded there), powers of the transform and one
 * inverse transform (side_conv), then (side_eval) over the window
 *   side 0: sum_{s > eps} W(s) f(s) + T e^{-T h} sum_{s > eps} D(s) f'(s)
 *           + e^{-T h} sum over the band (eps - T h, eps] of ((s - eps) W(s) + T D(s))_+
 *   side 1: sum_{s > eps} W(s) f(s) (the split vector, dv = 0),
 * each term times e^{-theta (s - eps_t)} (the tilt, centred at eps_t, undone up to the common
 * scale). The allowance bounds the rounding, in 2-norms: the forward transform errs by ef = ga_fft_relerr(N)
 * relative to its output (of norm sqrt N |z|), the separation into V and C adds 2 ulps of it,
 * the power multiplies a frequency's error by at most T (|V| <= 1; in P C the error of P
 * meets |C| <= c |dv|_1) and adds pw, 2 log2 T roundings and the products' with a margin; the
 * inverse maps spectral 2-norms to 2-norms over sqrt N and adds ef of its output's norm; the
 * sums then err by at most the 2-norm of their weights times that of the vector's error
 * (Cauchy-Schwarz).
 */

/*
 * The window. The T-fold sums of a tilted step concentrate about T times its mean, with tails
 * that fall geometrically, so a cyclic convolution shorter than the support T (n - 1) + 1 holds
 * all that matters: the mass of W = |v|^{*T} at i >= b is at most e^{T log M(lam) - lam (b - T
 * kc)} and at i <= a at most e^{T log M(-lam) + lam (a - T kc)} (Chernoff; M(lam) = sum_k |v_k|
 * e^{lam (k - kc)}, any lam > 0 and centre kc), and D = dv * v^{*(T-1)} likewise with one
 * factor M_dv. The window [ws, ws + N) is the smallest power of two that leaves at most
 * WIN_TAIL e^-lw outside on each side (over a ladder of lam; lw = theta T h, the log of the
 * weights' scale beyond 1 in alias_allow), and its outside masses aW, aD are
 * bounded at the best lam of the ladder. The sums M are accumulated from an anchor every 64
 * cells: a term is off by the anchor's argument's rounding (2 ulps of at most lam n <= 600,
 * 1200 ulps), the anchor's exp and 63 steps of a rounded factor (130 ulps), then n more in
 * the sum: their logs are raised by (n + 2000) ulps (and 4 ulps of the log).
 */
#define WIN_LAMS 24
#define WIN_TAIL 1e-18 /* the mass left outside the window on each side, of the tilted total 1 */

static void log_mgf(double *lp, double *lm, const double *v, size_t n, double kc, double lam)
{
    double sp = 0, sm = 0, ep = 0, em = 0, rp = exp(lam), rm = exp(-lam);
    for (size_t k = 0; k < n; k++) {
        if (k % 64 == 0) {
            ep = exp(lam * ((double)k - kc));
            em = exp(-lam * ((double)k - kc));
        } else {
            ep *= rp;
            em *= rm;
        }
        sp += fabs(v[k]) * ep;
        sm += fabs(v[k]) * em;
    }
    double a = log(sp), b = log(sm), r = (double)(n + 2000) * DBL_EPSILON;
    *lp = a + r + 4 * DBL_EPSILON * fabs(a);
    *lm = b + r + 4 * DBL_EPSILON * fabs(b);
}

/* the Chernoff bound of the mass at or beyond the linear index b (up: i >= b; else i <= b),
 * *at the ladder's exponent that gives it */
static double tail_bound(int *at, const double *lam, const double *lv, const double *ld, int nl,
                         unsigned T, double kc, double b, int up)
{
    double best = INFINITY;
    *at = 0;
    for (int j = 0; j < nl; j++) {
        double x = (ld ? ld[j] + (T - 1.0) * lv[j] : T * lv[j]) +
                   (up ? -lam[j] : lam[j]) * (b - T * kc);
        if (x < best)
            best = x, *at = j;
    }
    return exp(best) * (1 + 1e-9);
}

/* Certified, the same bound at one exponent lam with every operation proven: the sums of
 * |v_k| e^{+-lam (k - kc)} from ga_exp_seq_arb's exponentials (2 ulps each, or 2^-1072 below
 * the normal range), their products and sum rounded up by (n + 8) ulps, the logs and the final
 * exponential in Arb, the upper end taken. INFINITY where a ball is not finite. */
static double proven_sum(const double *v, size_t n, const arb_t a, const arb_t b, slong prec)
{
    double *e = malloc(n * sizeof *e), sum = 0;
    if (!e || ga_exp_seq_arb(e, n, a, b, prec) != GA_OK) {
        free(e);
        return INFINITY;
    }
    for (size_t k = 0; k < n; k++)
        sum += fabs(v[k]) * e[k];
    free(e);
    return (sum + (double)n * 0x1p-1070) * (1 + (double)(n + 8) * DBL_EPSILON);
}

static double proven_tail(const double *v, const double *dv, size_t n, unsigned T, double kc,
                          double lam, double b, int up, slong prec)
{
    arb_t a, st, x, y;
    arb_init(a), arb_init(st), arb_init(x), arb_init(y);
    arb_set_d(st, up ? lam : -lam); /* e^{st (k - kc)}: a = -st kc, step st */
    arb_set_d(a, kc);
    arb_mul(a, a, st, prec);
    arb_neg(a, a);
    double sv = proven_sum(v, n, a, st, prec), sd = dv ? proven_sum(dv, n, a, st, prec) : 1;
    double res = INFINITY;
    if (isfinite(sv) && isfinite(sd) && sv > 0 && sd > 0) {
        /* (T - [dv]) log sv + [dv] log sd - st (b - T kc) */
        arb_set_d(x, sv);
        arb_log(x, x, prec);
        arb_mul_ui(x, x, dv ? T - 1 : T, prec);
        if (dv) {
            arb_set_d(y, sd);
            arb_log(y, y, prec);
            arb_add(x, x, y, prec);
        }
        arb_set_d(y, kc);
        arb_mul_ui(y, y, T, prec);
        arb_set_d(a, b);
        arb_sub(y, a, y, prec); /* b - T kc */
        arb_submul(x, st, y, prec);
        arb_exp(x, x, prec);
        ga_interval iv;
        ga_arb_bounds(&iv, x);
        res = iv.hi;
    }
    arb_clear(a), arb_clear(st), arb_clear(x), arb_clear(y);
    return res;
}

void ga_ploss_window(size_t *ws, size_t *N, double *aW, double *aD, const double *v,
                     const double *dv, size_t n, unsigned T, double lw, long prec)
{
    size_t len = (size_t)T * (n - 1) + 1, full = 2;
    while (full < len)
        full <<= 1;
    *ws = 0, *N = full, *aW = 0, *aD = 0;
    double sum = 0, mom = 0;
    for (size_t k = 0; k < n; k++) {
        sum += fabs(v[k]);
        mom += (double)k * fabs(v[k]);
    }
    if (T < 2 || !(sum > 0))
        return;
    double kc = mom / sum, lam[WIN_LAMS], lp[WIN_LAMS], lm[WIN_LAMS], dp[WIN_LAMS], dm[WIN_LAMS];
    double lt = log(WIN_TAIL) - lw, lo = -INFINITY, hi = INFINITY;
    int nl = 0;
    for (int j = 0; j < WIN_LAMS; j++) {
        double l = 0.25 / (double)n * exp2(0.5 * j);
        if (l * (double)n > 600)
            break; /* (e^600 n stays finite) */
        lam[nl] = l;
        log_mgf(&lp[nl], &lm[nl], v, n, kc, l);
        dp[nl] = dm[nl] = 0;
        if (dv)
            log_mgf(&dp[nl], &dm[nl], dv, n, kc, l);
        hi = fmin(hi, T * kc + (T * lp[nl] - lt) / l);
        lo = fmax(lo, T * kc - (T * lm[nl] - lt) / l);
        nl++;
    }
    double L = ceil(hi) - floor(lo) + 1;
    if (!(L < 0.5 * (double)full))
        return; /* (the whole support, or no use: no window) */
    size_t M = 2;
    while (M < n || (double)M < L)
        M <<= 1;
    if (M >= full)
        return;
    double w0 = floor(lo) - floor(0.5 * ((double)M - L));
    w0 = fmin(fmax(w0, 0), (double)(len - M));
    /* (no mass below index 0 nor beyond the support) */
    int below = w0 > 0, above = w0 + (double)M < (double)len;
    /* the four tails (W and D, above and below), each at its best exponent of the ladder;
     * certified (prec > 0), again there with every operation proven */
    double tb[4] = {0, 0, 0, 0}, at[4] = {w0 + (double)M, w0 - 1, w0 + (double)M, w0 - 1};
    for (int k = 0; k < 4; k++) {
        int up = !(k & 1), j;
        if (!(up ? above : below) || (k >= 2 && !dv))
            continue;
        tb[k] = tail_bound(&j, lam, up ? lp : lm, k < 2 ? NULL : up ? dp : dm, nl, T, kc, at[k],
                           up);
        if (prec > 0)
            tb[k] = proven_tail(v, k < 2 ? NULL : dv, n, T, kc, lam[j], at[k], up, prec);
    }
    double a = tb[0] + tb[1], d = tb[2] + tb[3];
    if (prec > 0) /* (the two additions, rounded up) */
        a *= 1 + DBL_EPSILON, d *= 1 + DBL_EPSILON;
    if (!(a <= 1e3 * exp(lt)) || !(d <= 1e3 * exp(lt)))
        return;
    *ws = (size_t)w0, *N = M, *aW = a, *aD = d;
}


/* What the window can move a side's sum by: the outside masses times the largest weights,
 * once for what wraps in and once for what is missing. The weights of W are at most S max(1,
 * T h) and those of T D at most T S, S = e^{theta (max(eps_t - eps, 0) + T h)} (f and g at
 * most the tilt's undoing above eps; on the band below it b <= e^{theta (T h + eps_t - eps)}
 * and |a| <= T h b). */
static double alias_allow(const conv_t *cv, unsigned T, double h, double theta, double eps,
                          double eps_t)
{
    if (cv->aW == 0 && cv->aD == 0)
        return 0;
    double Th = T * h, S = exp(theta * (fmax(eps_t - eps, 0) + Th)) * (1 + 1e-9);
    return 2 * S * (fmax(1, Th) * cv->aW + T * cv->aD);
}

/* the same, certified: S from Arb (eps_t = T lc exactly), the rest rounded up */
static double alias_allow_arb(const conv_t *cv, unsigned T, double h, double theta,
                              double eps_lo, double lc, slong prec)
{
    if (cv->aW == 0 && cv->aD == 0)
        return 0;
    arb_t x, y;
    arb_init(x), arb_init(y);
    arb_set_d(x, lc);
    arb_mul_ui(x, x, T, prec);
    arb_set_d(y, eps_lo);
    arb_sub(x, x, y, prec); /* eps_t - eps, 0 where negative (the upper end is what counts) */
    if (arb_is_negative(x))
        arb_zero(x);
    arb_set_d(y, h);
    arb_mul_ui(y, y, T, prec);
    arb_add(x, x, y, prec);
    arb_set_d(y, theta);
    arb_mul(x, x, y, prec);
    arb_exp(x, x, prec);
    ga_interval iv;
    ga_arb_bounds(&iv, x);
    arb_clear(x), arb_clear(y);
    double Th = T * h * (1 + DBL_EPSILON);
    return 2 * iv.hi * (fmax(1, Th) * cv->aW + T * cv->aD) * (1 + 8 * DBL_EPSILON);
}

/* Q's values from its inverse transform, whose output (of 2-norm nY) holds c^2 Q in the
 * imaginary parts at q (stride 2): its error bound, the spectrum's part, the powers' rounding
 * and the inverse's own */
static void q_out(conv_t *low, const double *q, size_t N, double nY)
{
    double u = DBL_EPSILON / 2, nQ = 0;
    for (size_t i = 0; i < N; i++)
        nQ += q[2 * i] * q[2 * i];
    nQ = sqrt(nQ) * (1 + 4 * u);
    low->zq = q;
    low->eQ = (low->eQs + low->pwq * nQ + ga_fft_relerr(N) * nY) / (low->c * low->c);
}

/* One side's window (ga_ploss_window; certified: its outside masses with every operation
 * proven): cv's ws, N, aW, aD and len. GA_EDOM where it is longer than the grid was chosen
 * for (twice FFT_CAP: not by this route). */
static int side_window(conv_t *cv, const double *v, const double *dv, size_t n, unsigned T,
                       double lw, const cert_t *ct)
{
    cv->len = (size_t)T * (n - 1) + 1; /* the support of W and D */
    ga_ploss_window(&cv->ws, &cv->N, &cv->aW, &cv->aD, v, dv, n, T, lw, ct ? ct->prec : 0);
    return cv->N > 2 * (size_t)FFT_CAP ? GA_EDOM : GA_OK;
}

/* One side's convolutions (above) over its window (side_window's). The lower side in double
 * precision (dv, T >= 2, no ct) also leaves the spectrum of c^2 Q in qbuf; the upper side,
 * given it (low, of the same length: bracket_at makes the two windows equally long), adds
 * it as its imaginary part (both outputs real) and takes it through its inverse transform,
 * one transform for the two */
static int side_conv(conv_t *cv, const double *v, const double *dv, size_t n, unsigned T,
                     ga_fft_plan *pl, const cert_t *ct, conv_t *low)
{
    size_t N = cv->N;
    if (pl->n != N) { /* (the two sides share a plan but where their lengths differ) */
        ga_fft_plan_clear(pl);
        int rc = ct ? ga_fft_plan_init_cert(pl, N) : ga_fft_plan_init(pl, N);
        if (rc != GA_OK)
            return rc;
    }
    double *z = calloc(2 * N, sizeof *z), *zq = NULL;
    if (!z)
        return GA_ENOMEM;
    if (dv && !ct && T >= 2 && !(zq = malloc(2 * N * sizeof *zq))) {
        free(z);
        return GA_ENOMEM;
    }
    double nv2 = norm2(v, n), nd2 = dv ? norm2(dv, n) : 0, nd1 = 0;
    for (size_t i = 0; dv && i < n; i++)
        nd1 += fabs(dv[i]);
    int ex = 0;
    if (nd2 > 0 && nv2 > 0)
        (void)frexp(nv2 / nd2, &ex);
    double c = ldexp(1.0, ex);
    for (size_t i = 0; i < n; i++) {
        z[2 * i] = v[i];
        z[2 * i + 1] = dv ? c * dv[i] : 0;
    }
    ga_fft_forward(pl, z);
    for (size_t i = 0, m = 1; i < N; i++) {
        if (i >= 2 * m)
            m <<= 1; /* (the block [m, 2m) that holds i) */
        size_t j = ga_fft_partner_in(i, m);
        if (j >= i)
            power_pair(z, zq, i, j, T);
    }
    int pack = low && low->qbuf && !dv;
    if (pack && low->N != N) {
        free(z);
        return GA_EINVAL; /* (bracket_at gives both sides one length) */
    }
    for (size_t i = 0; pack && i < N; i++) { /* z + i (c^2 Q's spectrum) */
        z[2 * i] -= low->qbuf[2 * i + 1];
        z[2 * i + 1] += low->qbuf[2 * i];
    }
    ga_fft_inverse(pl, z);
    double u = DBL_EPSILON / 2, ef = ga_fft_relerr(N), pw = (4 * log2((double)T + 1) + 8) * u;
    double nz = hypot(nv2, c * nd2), e1 = (ef + 2 * u * (1 + ef)) * nz, nW = 0, nD = 0;
    for (size_t i = 0; i < N; i++) {
        nW += z[2 * i] * z[2 * i];
        nD += z[2 * i + 1] * z[2 * i + 1];
    }
    nW = sqrt(nW) * (1 + 4 * u);
    nD = sqrt(nD) * (1 + 4 * u);
    double nY = hypot(nW, nD) * (1 + 4 * u);
    if (pack) {
        free(low->qbuf);
        low->qbuf = NULL;
        q_out(low, z + 1, N, nY);
    }
    cv->z = z;
    cv->zq = NULL;
    cv->qbuf = zq;
    cv->eQ = 0;
    /* |d(P C C)| <= (T - 2) |C|^2 |dV| + 2 |C| |dC|, |C| <= c |dv|_1, and the powers'
     * rounding (relative per frequency: in 2-norm pwq of the output's, counted in q_out) */
    double cn = c * nd1;
    cv->eQs = zq ? ((T - 2.0) * cn + 2) * cn * e1 : 0;
    cv->pwq = pw + 8 * u;
    cv->c = c;
    cv->eW = T * e1 + pw * nW + ef * nY;
    cv->eD = ((1 + c * nd1 * (T - 1.0)) * e1 + pw * nD + ef * nY) / c;
    return GA_OK;
}

/* one side's bound from its convolution at eps, the tilt centred at eps_t (the cells carry
 * e^{theta (l - eps_t/T)}): side 0 the rounded-down sums with their corrections, side 1 the
 * split vector's plain sum (no offsets). With Q (zq): above eps f(s) W + f'(s) (T (1 - h/2) D
 * - T (T - 1) Q / 2), on the band of width T h below it the expectation of y - y^2/2, y = s -
 * eps + x, where positive; without Q the chord's slope c in place of the quadratic term
 * (f'(s) c T D above, c ((s - eps) W + T D) on the band). Q is raised by QMARGIN: the offsets
 * in the transform are their estimates less 1e-9 of themselves, so Q from them is at most
 * that much below Q from the true offsets. */
#define QMARGIN 5e-9

/* One band point's term a W + T (b D - g c^2 Q) at s = eps + y0 (y0 in (-T h, 0], tb the
 * tilt's undoing there, iz its place in the transform), as described above (eTh, qc:
 * lower_coefs'); wt: the weights a, b, g, and val: W, D, c^2 Q, for the allowance */
static double band_term(double wt[3], double val[3], const conv_t *cv, size_t iz, unsigned T,
                        double y0, double tb, double eTh, double qc, double h)
{
    if (cv->zq) {
        wt[0] = (y0 - 0.5 * y0 * y0) * tb;
        wt[1] = (1 - y0 - 0.5 * h) * tb;
    } else {
        wt[1] = eTh * tb;
        wt[0] = wt[1] * y0;
    }
    wt[2] = qc * tb;
    val[0] = cv->z[2 * iz];
    val[1] = cv->z[2 * iz + 1] / cv->c;
    val[2] = cv->zq ? cv->zq[2 * iz] : 0;
    return wt[0] * val[0] + T * (wt[1] * val[1] - wt[2] * val[2]);
}

/* the lower side's factors: eTh of D beyond the band (1 - h/2 with Q, else the chord's
 * slope), qc of zq */
static void lower_coefs(double *eTh, double *qc, const conv_t *cv, unsigned T, double h)
{
    double Th = T * h;
    *eTh = cv->zq ? 1 - 0.5 * h : Th > 0 ? -expm1(-Th) / Th : 1;
    *qc = cv->zq ? 0.5 * (T - 1.0) * (1 + QMARGIN) / (cv->c * cv->c) : 0;
}

static void side_eval(double *val, double *allow, const conv_t *cv, long k0, unsigned T,
                      double h, double eps, double eps_t, double theta, int side)
{
    const double *z = cv->z, *zq = side ? NULL : cv->zq;
    double Th = T * h, sum = 0, corr = 0, n2f = 0, n2g = 0, n2q = 0, c = cv->c, sa = 0;
    double eTh, qc;
    lower_coefs(&eTh, &qc, cv, T, h);
    double rt = exp(-theta * h), ry = exp(-h), tilt = 0, y = 0;
    size_t k = 0;
    /* (the first point that can weigh: above eps - T h, one cell's margin) */
    double first = floor((eps - Th) / h) - (double)T * (double)k0 - 1;
    size_t end = win_end(cv), i = first > 0 ? (first < (double)end ? (size_t)first : end) : 0;
    if (i < cv->ws)
        i = cv->ws;
    for (; i < end; i++) {
        size_t iz = i % cv->N;
        double s = (double)(T * k0 + (long)i) * h;
        if (s <= eps) {
            if (side || s <= eps - Th)
                continue;
            double wt[3], v[3];
            double t = band_term(wt, v, cv, iz, T, s - eps, exp(-theta * (s - eps_t)), eTh, qc, h);
            if (t > 0) {
                sum += wt[0] * v[0];
                corr += wt[1] * v[1] - wt[2] * v[2];
            }
            n2f += wt[0] * wt[0];
            n2g += wt[1] * wt[1];
            n2q += wt[2] * wt[2] * c * c * c * c;
            sa += fabs(wt[0] * v[0]) + T * (fabs(wt[1] * v[1]) + fabs(wt[2] * v[2]));
            continue;
        }
        /* f = (1 - e^{eps - s}) e^{-theta (s - eps_t)} and e^{eps - s} e^{-theta (s - eps_t)}:
         * the two exponentials from an anchor every 64 points times the steps' factors (64
         * roundings at most, counted below), expm1 where 1 - e^{eps - s} cancels */
        if (k++ % 64 == 0) {
            tilt = exp(-theta * (s - eps_t));
            y = exp(eps - s);
        } else {
            tilt *= rt;
            y *= ry;
        }
        double f = (s - eps < 1 ? -expm1(eps - s) : 1 - y) * tilt;
        sum += z[2 * iz] * f;
        sa += fabs(z[2 * iz] * f);
        n2f += f * f;
        if (!side) {
            double yt = y * tilt, g = yt * eTh;
            corr += z[2 * iz + 1] / c * g;
            sa += T * fabs(z[2 * iz + 1] / c * g);
            n2g += g * g;
            if (zq) {
                double gq = qc * yt;
                corr -= zq[2 * iz] * gq;
                sa += T * fabs(zq[2 * iz] * gq);
                n2q += gq * gq * c * c * c * c;
            }
        }
    }
    *val = sum + T * corr;
    *allow = sqrt(n2f) * cv->eW + T * sqrt(n2g) * cv->eD + T * sqrt(n2q) * cv->eQ +
             160 * DBL_EPSILON * sa;
}

/* A side's bound in ball arithmetic: (val -+ allow) (e^mx Z)^T (Z and mx exact doubles),
 * at least 0 below; above, plus T times the mass above the grid */
static void cert_scale(arb_t res, double val, double allow, double mx, double Z, unsigned T,
                       double top, int side, slong prec)
{
    double u = DBL_EPSILON / 2, x = side ? val + allow : val - allow;
    x += (side ? 1 : -1) * 4 * u * (fabs(val) + allow); /* (the two roundings above) */
    if (!side && !(x > 0))
        x = 0;
    arb_t a, b;
    arb_init(a);
    arb_init(b);
    arb_set_d(a, mx);
    arb_mul_ui(a, a, T, prec);
    arb_exp(a, a, prec);
    arb_set_d(b, Z);
    arb_pow_ui(b, b, T, prec);
    arb_mul(a, a, b, prec);
    arb_set_d(b, x);
    arb_mul(res, a, b, prec);
    if (side) {
        arb_set_d(b, top);
        arb_mul_ui(b, b, T, prec);
        arb_add(res, res, b, prec);
    }
    if (!isfinite(x))
        arb_indeterminate(res);
    arb_clear(a);
    arb_clear(b);
}

/* ---------------------------------------------------------------- the bracket */

/* A thread's last convolutions, one per direction of the loss (double precision): evaluating
 * the bracket at another eps whose tilt centre, cut and grid are the same costs the weights
 * only (an eps search's last steps) */
typedef struct {
    double key[10]; /* q, m, T, sw, eps_t, theta, cut, total, coarse (key[9]: 1 when valid) */
    conv_t cv[2];
    long k0;
    double h, em[2], Z[2], mx, top, tmag, range;
    double allow[2]; /* the sums' allowances at the last eps evaluated */
} bentry_t;

typedef struct {
    bentry_t e[2];
    int every; /* keep every grid's convolutions, not only the finest's (an eps search's own
                * cache) */
} bcache_t;

static void bcache_clear(bcache_t *b)
{
    for (int k = 0; k < 2; k++)
        for (int side = 0; side < 2; side++)
            free(b->e[k].cv[side].z), free(b->e[k].cv[side].qbuf);
}

static void bcache_free(void *p)
{
    bcache_t *b = p;
    if (!b)
        return;
    bcache_clear(b);
    free(b);
}

/* With a tilt, the loss far below the tilted law's bulk weighs nothing: the point above vlo
 * where the mass below it, tilted, falls under TILTCUT times the tilted total (estimated on a
 * coarse grid). Below it the lower bound drops the mass and the upper one moves it up to the
 * point, a change of at most TILTCUT relative in the tilted sums: the grid then spans only
 * the part that matters (eps near the loss's supremum: steep tilts). */
#define TILTCUT 1e-30
static double tilted_floor(const step_t *s, double vlo, double vhi, double theta, double lc)
{
    double F, G, Fp, lz = -INFINITY, w = (vhi - vlo) / 4096;
    cdf2(&Fp, &G, s, vlo);
    for (int k = 1; k <= 4096; k++) {
        double v = vlo + k * w;
        cdf2(&F, &G, s, v);
        if (F > Fp) {
            double t = log(F - Fp) + theta * (v - lc);
            lz = lz > t ? lz + log1p(exp(t - lz)) : t + log1p(exp(lz - t));
        }
        Fp = F;
    }
    double a = vlo, b = vhi, target = lz + log(TILTCUT); /* tilted mass below a: under */
    cdf2(&F, &G, s, a);
    if (!(F > 0) || log(F) + theta * (a - lc) >= target)
        return vlo;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (a + b);
        cdf2(&F, &G, s, mid);
        *(F > 0 && log(F) + theta * (mid - lc) >= target ? &b : &a) = mid;
    }
    return a;
}

/* The finest step the convolutions allow: the window the T-fold sums need (ga_ploss_window,
 * from the tilted masses on a coarse grid of the step's range), to be held in FFT_CAP points;
 * where no window helps, the whole support T (vhi - vlo) */
static double fft_step(const step_t *s, unsigned T, double vlo, double vhi, double theta,
                       double lc)
{
    enum { NC = 1024 };
    double v[NC], hc = (vhi - vlo) / NC, F, G, Fp, Gp, mx = -INFINITY;
    double whole = T * (vhi - vlo) / (FFT_CAP - 64);
    cdf2(&Fp, &Gp, s, vlo);
    for (int k = 0; k < NC; k++) {
        double x = vlo + (k + 1) * hc;
        cdf2(&F, &G, s, x);
        double w = fmax(Fp < 0.5 ? F - Fp : Gp - G, 0);
        v[k] = w > 0 ? log(w) + theta * (x - lc) : -INFINITY;
        mx = fmax(mx, v[k]);
        Fp = F, Gp = G;
    }
    if (!(mx > -INFINITY) || !isfinite(mx))
        return whole;
    for (int k = 0; k < NC; k++)
        v[k] = exp(v[k] - mx);
    size_t ws, N;
    double aW, aD;
    ga_ploss_window(&ws, &N, &aW, &aD, v, NULL, NC, T, theta * T * hc, 0);
    /* (a window is shorter than the support; without one N holds the whole support) */
    return N < (size_t)T * (NC - 1) + 1 ? fmin(whole, 1.25 * (double)N * hc / FFT_CAP) : whole;
}

static int bracket_at(double *lower, double *upper, double *topm, double *hused,
                      const step_t *sp, unsigned T, double eps, double eps_t, double theta,
                      double cut, double total, double coarse, double deadline, cert_t *ct,
                      bcache_t *bc);

/* The bracket on one grid (T times its points at most total), the tails' cut refined as
 * described below; *h the grid's step. */
static int bracket_grid(double *lo, double *hi, double *h, double *cutp, const step_t *s,
                        unsigned T, double eps, double eps_t, double theta, double lchern,
                        double total, double coarse, double deadline, bcache_t *bc)
{
    /* The tails dropped: first TAILREL times the Chernoff bound; where the mass above the
     * grid (counted whole in the upper bound) then weighs more than 1e-6 of the lower bound
     * (the Chernoff bound can exceed delta by many orders: a tilted law with two modes) or the
     * lower bound is 0, again with tails of 1e-8 of the lower bound (or 1e-300 where it is
     * 0), at least 1e-3 of the last cut */
    double cut = TAILREL * exp(lchern) / T, lower = 0, upper = 1, top = 1;
    int rc = GA_OK;
    for (int pass = 0; pass < 6; pass++) {
        *cutp = cut;
        rc = bracket_at(&lower, &upper, &top, h, s, T, eps, eps_t, theta, cut, total, coarse,
                        deadline, NULL, bc);
        if (rc != GA_OK || cut <= 1e-300 || (lower > 0 && T * top <= 1e-6 * lower))
            break;
        cut = fmax(lower > 0 ? fmin(1e-8 * lower / T, 1e-3 * cut) : 0, 1e-300);
    }
    *lo = fmax(lower, 0);
    *hi = fmin(upper, 1);
    return rc;
}

double ga_ploss_tilt_centre(double eps)
{
    if (!(eps > 0) || !isfinite(eps))
        return eps;
    int e;
    double m = frexp(eps, &e); /* [1/2, 1): steps of 1/64, under 1/32 relative */
    return ldexp(round(m * 64) / 64, e);
}

int ga_ploss_bracket(double *lo, double *hi, int *decided, const ga_ploss *L, int dir,
                     double eps, double eps_t, double theta, double lchern, double epsabs,
                     double epsrel, double decide, int finest, double deadline,
                     ga_quad_work *w)
{
    *lo = 0;
    *hi = 1;
    *decided = 0;
    if (!ga_ploss_few(L) || !(theta >= 0) || !(eps >= 0) || !(eps_t >= 0) || !(lchern <= 0))
        return GA_EDOM;
    const ga_ploss_term *t = &L->t[0];
    if ((t->add ^ dir) && t->q < 1 && eps >= t->count * -log1p(-t->q)) {
        *hi = 0; /* the loss under Y never exceeds -log(1 - q) per step, nor eps in all */
        return GA_OK;
    }
    /* Chernoff at eps from the tilt's: e^{K(theta) - theta eps} */
    double lch_eps = fmin(lchern + theta * (eps_t - eps), 0);
    if (lch_eps < -600) {
        *hi = exp(lch_eps); /* below 1e-260: the Chernoff bound is the bracket */
        return GA_OK;
    }
    step_t s = {t, t->q < 1 ? log1p(-t->q) : -INFINITY, t->add ^ dir};
    unsigned T = (unsigned)t->count;
    bcache_t *bc = NULL;
    if (w) { /* (the thread's cache of convolutions: made on first use, freed with w) */
        if (!w->bcache && (w->bcache = calloc(1, sizeof(bcache_t))) != NULL)
            w->bcache_free = bcache_free;
        bc = w->bcache;
    }
    /* A grid of a 64th of the points first, then finer ones (each a quarter of the step): the
     * width falls about 16 times per level (second order in h), so the coarse grid's width
     * predicts the grid that meets the target (the finest where none does), and the coarse
     * grid costs a 64th more at most where the target needs the finest */
    double lower = 0, upper = 1, hprev = 0;
    int rc = GA_EDOM;
    for (int level = 3; level >= 0;) {
        double l, u, h = 0, cut;
        int r = bracket_grid(&l, &u, &h, &cut, &s, T, eps, eps_t, theta, lchern, MAX_TOTAL,
                             ldexp(1, 2 * level), deadline, bc);
        if (r == GA_ETIME || r == GA_ENOMEM)
            return r;
        if (r == GA_OK && l > u)
            return GA_EDOM; /* correct bounds cannot cross: no value, not a wrong one */
        int next = level - 1;
        if (r == GA_OK) {
            lower = l;
            upper = u;
            rc = GA_OK;
            double want = fmax(epsabs, epsrel * 0.5 * (l + u));
            if (0.5 * (u - l) <= want)
                break;
            if (decide > 0 && (u < decide || l > decide)) {
                *decided = level > 0; /* (the side of decide is certain: no finer grid) */
                break;
            }
            double lv = want > 0 ? ceil(log(0.5 * (u - l) / want) / log(16.0)) : 4;
            next = level - (int)fmin(fmax(lv, 1), 4);
            /* deciding: the grid of a 16th of the points first where its bracket, about 16
             * times narrower per level, would leave decide outside with room (a finer grid
             * than that costs nearly what the finest does, which is kept for the next eps) */
            double gap = fabs(0.5 * (l + u) - decide), hw = 0.5 * (u - l);
            if (decide > 0 && level == 3 && next < 2 && ldexp(hw, -4) < 0.25 * gap)
                next = 2;
        } else if (rc == GA_OK) {
            break; /* a finer grid did not fit: the coarser one's bracket stands */
        }
        if (hprev > 0 && h >= hprev * (1 - 1e-12))
            break; /* (the finest step already: no finer grid) */
        hprev = h;
        if (level <= finest)
            break;
        level = next < finest ? finest : next;
    }
    if (rc != GA_OK)
        return rc;
    *lo = lower;
    *hi = upper;
    return GA_OK;
}

int ga_ploss_bracket_arb(arb_t res, const ga_ploss *L, const arb_t q, const arb_t m, int dir,
                         const arb_t eps, double theta, double lch, slong prec,
                         double deadline)
{
    if (!ga_ploss_few(L) || !arb_is_nonnegative(eps))
        return GA_EDOM;
    const ga_ploss_term *t = &L->t[0];
    unsigned T = (unsigned)t->count;
    int sw = t->add ^ dir;
    if (sw && t->q < 1) { /* eps at or above the loss's supremum -T log(1 - q): exactly 0 */
        arb_t sup;
        arb_init(sup);
        arb_neg(sup, q);
        arb_log1p(sup, sup, prec);
        arb_mul_si(sup, sup, -(slong)T, prec);
        int zero = arb_ge(eps, sup);
        arb_clear(sup);
        if (zero) {
            arb_zero(res);
            return GA_OK;
        }
    }
    ga_interval ei;
    ga_arb_bounds(&ei, eps);
    double e = 0.5 * ei.lo + 0.5 * ei.hi, lo, hi, h, cut;
    if (!(theta >= 0) || !(lch <= 0) || lch < -600)
        return GA_EDOM; /* (the double route's answer there is a Chernoff bound in double) */
    step_t s = {t, t->q < 1 ? log1p(-t->q) : -INFINITY, sw};
    /* the grid (the finest, up to CERT_CELLS cells, its window's length as the double
     * bracket's) and the tails' cut as the double bracket chooses them, then once with every
     * input proven; where the proven window is not the one chosen (its bounds above the
     * aim: the whole support, too long for that grid), again on the grid whose whole
     * support fits FFT_CAP */
    arb_t a, b;
    arb_init(a);
    arb_init(b);
    int rc = GA_EDOM;
    for (int pass = 0; pass < 2 && rc == GA_EDOM; pass++) {
        double total = pass ? fmin((double)T * CERT_CELLS, FFT_CAP - 64) : (double)T * CERT_CELLS;
        if (pass && total == (double)T * CERT_CELLS)
            break; /* (the same grid) */
        rc = bracket_grid(&lo, &hi, &h, &cut, &s, T, e, e, theta, lch, total, 1, deadline, NULL);
        if (rc != GA_OK)
            break;
        cert_t ct = {q, m, ei.lo, ei.hi, 0, prec, a, b};
        double top;
        rc = bracket_at(&lo, &hi, &top, &h, &s, T, e, e, theta, cut, total, 1, deadline, &ct,
                        NULL);
    }
    if (rc == GA_OK)
        rc = ga_arb_delta_interval(res, a, b, prec);
    arb_clear(a);
    arb_clear(b);
    return rc;
}

/* One side's bound from its sum at eps (val, allow: side_eval's): the masses' errors move
 * the T-fold sums by at most T |e|_1 (each factor is a sub-probability; the weights are at
 * most 1), the correction by T (T - 1) h |e|_1 and the quadratic term by less than T^3 h^2
 * |e|_1; then the tilt's scale (e^mx Z)^T, and the rounding of the tilt, its undoing and the
 * weights e^{eps - s}: 4 ulps of every exponent involved. The upper side's includes T times
 * the mass above the grid. */
static double side_bound(const bentry_t *E, unsigned T, double eps, double eps_t, double theta,
                         int side, double val, double allow)
{
    double Th1 = 1 + T * E->h;
    allow += T * Th1 * Th1 * E->em[side] / E->Z[side] +
             alias_allow(&E->cv[side], T, E->h, theta, eps, eps_t);
    double x = side ? val + allow : val - allow, lsc = T * (E->mx + log(E->Z[side]));
    double rr = 4 * DBL_EPSILON *
                (T * E->tmag + (1 + theta) * (T * E->range + fmax(eps, eps_t)) + fabs(lsc) + 16);
    double b = x > 0 ? exp(lsc + log(x)) * (side ? 1 + rr : 1 - rr) : 0;
    return side ? b + T * E->top * (1 + 4 * DBL_EPSILON) : b;
}

/* The two bounds from the sides' convolutions at eps (each side's allowance kept in E: the
 * eps search's first guess of it) */
static void assemble(double *lower, double *upper, double *topm, bentry_t *E, unsigned T,
                     double eps, double eps_t, double theta)
{
    double bd[2];
    for (int side = 0; side < 2; side++) {
        double val;
        side_eval(&val, &E->allow[side], &E->cv[side], E->k0, T, E->h, eps, eps_t, theta, side);
        bd[side] = side_bound(E, T, eps, eps_t, theta, side, val, E->allow[side]);
    }
    *lower = bd[0];
    *upper = bd[1];
    *topm = E->top;
}

/* One pass of the bracket with the tails below cut dropped, the tilt centred at eps_t: *lower,
 * *upper and the mass above the grid, *top (with ct: every input proven, and the two bounds
 * as balls in ct; with bc: the convolutions are taken from and kept in this cache) */
static int bracket_at(double *lower, double *upper, double *topm, double *hused,
                      const step_t *sp, unsigned T, double eps, double eps_t, double theta,
                      double cut, double total, double coarse, double deadline, cert_t *ct,
                      bcache_t *bc)
{
    double key[10] = {sp->t->q, sp->t->m, T, sp->sw, eps_t, theta, cut, total, coarse, 1};
    if (bc && !ct && memcmp(bc->e[sp->sw].key, key, sizeof key) == 0) {
        bentry_t *hit = &bc->e[sp->sw];
        *hused = hit->h;
        assemble(lower, upper, topm, hit, T, eps, eps_t, theta);
        return isfinite(*lower) && isfinite(*upper) ? GA_OK : GA_EDOM;
    }
    bentry_t E;
    memset(&E, 0, sizeof E);
    step_t s = *sp;
    double vlo, vhi; /* the loss's points where the tails fall to cut */
    if (ga_step_cut(&vhi, s.t, s.sw, cut, 1, 0, 1e5) != GA_OK ||
        ga_step_cut(&vlo, s.t, s.sw, cut, 0, 0, 1e5) != GA_OK)
        return GA_EDOM;
    if (!s.sw && s.lq > -INFINITY)
        vlo = fmax(vlo, s.lq); /* the loss never falls below log(1 - q) */
    if (theta > 0)
        vlo = tilted_floor(&s, vlo, vhi, theta, eps_t / T);
    double range = vhi - vlo;
    double h = coarse * fmax(fmax(MIN_H, range * T / total),
                             fmax(range / CELL_CAP, fft_step(&s, T, vlo, vhi, theta, eps_t / T)));
    *hused = h;
    long k0 = (long)floor(vlo / h), k1 = (long)ceil(vhi / h);
    size_t n = (size_t)(k1 - k0); /* cells k0 .. k1 - 1 */
    if (n < 2 || n > 2 * CELL_CAP)
        return GA_EDOM;
    double *Fk = malloc((n + 1) * sizeof *Fk), *Gk = malloc((n + 1) * sizeof *Gk);
    double *wl = malloc(n * sizeof *wl), *dl = malloc(n * sizeof *dl);
    double *wu = malloc((n + 1) * sizeof *wu);
    double *Xk = malloc((n + 1) * sizeof *Xk); /* the normal law's point at each l_k */
    gl_t gl;
    ga_fft_plan pl = {0, NULL};
    int rc = GA_OK;
    if (!Fk || !Gk || !wl || !dl || !wu || !Xk || gl_init(&gl) != GA_OK) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    for (size_t k = 0; k <= n; k++)
        ga_step_tails_x(&Fk[k], &Gk[k], &Xk[k], s.t, s.sw, (double)(k0 + (long)k) * h);
    /* the tilt e^{theta (l - eps_t/T) - mx}, mx its largest log-weight (no overflow) */
    double lc = eps_t / T, mx = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        wl[k] = fmax(Fk[k] < 0.5 ? Fk[k + 1] - Fk[k] : Gk[k] - Gk[k + 1], 0);
        if (wl[k] > 0)
            mx = fmax(mx, log(wl[k]) + theta * ((double)(k0 + (long)k + 1) * h - lc));
    }
    if (!(mx > -INFINITY)) {
        rc = GA_EDOM;
        goto cleanup;
    }
    /* em: the masses' rounding (each of the two tails at a cell's ends is off by at most 3
     * ulps of itself: erfc, the mixture), tilted, per side; tmag: the largest tilt exponent */
    double em[2] = {0, 0}, tmag = 0, top = Gk[n]; /* the mass above: a loss of +infinity */
    if (ct) { /* proven masses and offsets */
        ct->lc = lc;
        rc = ga_bracket_cells_arb(wl, dl, wu, em, &top, ct->q, ct->m, s.sw, k0, n, h,
                                  theta, lc, mx, ct->prec, deadline);
        if (rc != GA_OK)
            goto cleanup;
    }
    if (!ct)
        wu[0] = 0;
    for (size_t k = 0; !ct && k < n; k++) {
        if (deadline > 0 && (k & 1023) == 0 && ga_expired(deadline)) {
            rc = GA_ETIME;
            goto cleanup;
        }
        double l = (double)(k0 + (long)k) * h;
        double off, off1; /* (relative errors far below 1e-9) */
        /* (the cell's x-range: from x(l_k) up for sw 0, from x(-l_{k+1}) up for sw 1) */
        offsets(&off, &off1, &s, l, Xk[k + s.sw], Xk[k + !s.sw], &gl);
        double tl = exp(theta * (l - lc) - mx), tu = exp(theta * (l + h - lc) - mx);
        double e = 6 * DBL_EPSILON * (Fk[k] < 0.5 ? Fk[k + 1] : Gk[k]);
        /* the upper side splits the cell's mass between its ends so that both laws keep
         * their masses (connect the dots): the part at l + h is E[(1 - e^{-(V - l)})] / (1 -
         * e^{-h}) over the cell, raised by 1e-9 of itself, more than its quadrature's error
         * (moving more mass up still dominates: the bound grows with every step's loss) */
        double ph = fmin(off1 / -expm1(-h) * (1 + 1e-9), wl[k]);
        em[0] += e * tl;
        em[1] += e * (tu + tl);
        tmag = fmax(tmag, fabs(theta * (l + h - lc) - mx));
        wu[k] += (wl[k] - ph) * tl;
        wu[k + 1] = ph * tu;
        dl[k] = fmin(off * (1 - 1e-9), h * wl[k]) * tl;
        wl[k] *= tl;
    }
    if (!ct) {
        wu[0] += Fk[0] * exp(theta * ((double)k0 * h - lc) - mx); /* the mass below, at l_{k0} */
        em[1] += 3 * DBL_EPSILON * wu[0];
    }
    E.k0 = k0;
    E.h = h;
    E.mx = mx;
    E.top = top;
    E.tmag = tmag;
    E.range = vhi - vlo;
    for (int side = 0; side < 2; side++) {
        double *v = side ? wu : wl, *dv = side ? NULL : dl, Z = 0;
        size_t nv = side ? n + 1 : n;
        for (size_t k = 0; k < nv; k++)
            Z += v[k];
        if (ct) { /* above the sum of the exact masses too (both vectors sub-probabilities),
                   * and the divisions' rounding (half an ulp each, 2^-1075 below the normal
                   * range) counted with the masses' errors */
            Z = (Z + em[side]) * (1 + (double)(nv + 4) * DBL_EPSILON);
            em[side] += (DBL_EPSILON + (double)nv * 0x1p-1074) * Z;
        }
        for (size_t k = 0; k < nv; k++) {
            v[k] /= Z;
            if (dv)
                dv[k] /= Z;
        }
        E.Z[side] = Z;
        E.em[side] = em[side];
        if ((rc = side_window(&E.cv[side], v, dv, nv, T, theta * T * h, ct)) != GA_OK)
            goto cleanup;
    }
    if (!ct) { /* (one length for both sides' transforms: a longer window only leaves less
                * outside it, so its bounds aW, aD still hold) */
        size_t N = E.cv[0].N > E.cv[1].N ? E.cv[0].N : E.cv[1].N;
        E.cv[0].N = E.cv[1].N = N;
    }
    double bd[2];
    for (int side = 0; side < 2; side++) {
        double *v = side ? wu : wl, *dv = side ? NULL : dl, val, allow, Z = E.Z[side];
        size_t nv = side ? n + 1 : n;
        if ((rc = side_conv(&E.cv[side], v, dv, nv, T, &pl, ct, side ? &E.cv[0] : NULL)) !=
            GA_OK)
            goto cleanup;
        if (!ct)
            continue;
        rc = cert_sums(&val, &allow, &E.cv[side], k0, T, h, theta, side, ct);
        if (rc != GA_OK)
            goto cleanup;
        /* the masses' errors e move the T-fold sums by at most T |e|_1 (each factor is a
         * sub-probability; the weights are at most 1) and the correction by T (T - 1) h |e|_1 */
        allow += T * (1 + T * h) * em[side] / Z +
                 alias_allow_arb(&E.cv[side], T, h, theta, ct->eps_lo, ct->lc, ct->prec);
        cert_scale(side ? ct->upper : ct->lower, val, allow, mx, Z, T, side ? top : 0, side,
                   ct->prec);
        bd[side] = arf_get_d(arb_midref(side ? ct->upper : ct->lower), ARF_RND_NEAR);
    }
    if (ct) {
        *lower = bd[0];
        *upper = bd[1];
        *topm = top;
    } else {
        assemble(lower, upper, topm, &E, T, eps, eps_t, theta);
        if (bc && (bc->every || coarse < 2)) { /* the finest grid's (the coarser ones are
                                                * cheap) kept for the next eps with the same
                                                * tilt, cut and grid */
            bentry_t *slot = &bc->e[s.sw];
            for (int side = 0; side < 2; side++)
                free(slot->cv[side].z), free(slot->cv[side].qbuf);
            *slot = E;
            memcpy(slot->key, key, sizeof key);
            E.cv[0].z = E.cv[1].z = E.cv[0].qbuf = E.cv[1].qbuf = NULL;
        }
    }
    if (!(isfinite(*lower) && isfinite(*upper)))
        rc = GA_EDOM;
cleanup:
    free(E.cv[0].z);
    free(E.cv[1].z);
    free(E.cv[0].qbuf);
    free(E.cv[1].qbuf);
    free(Fk);
    free(Gk);
    free(wl);
    free(dl);
    free(wu);
    free(Xk);
    ga_fft_plan_clear(&pl);
    return rc;
}

/* ---------------------------------------------------------------- eps from the bracket */

/*
 * The search for the crossings runs on a fast form of each side's sum: beyond the band the
 * side's terms are W tau - e^{eps - s} G tau (tau the tilt's undoing, G = W for the upper
 * side, W - T eTh D + T (T - 1)/2 Q for the lower), so with suffix sums over the window,
 * sa(i) = sum_{j >= i} W tau and sb(i) = sum_{j >= i} G tau e^{s_0 - s} (s_0 the tilt's
 * centre, near the eps searched: no exponent overflows where it counts), a sum at eps costs
 * the band's T points only. Its rounding differs from side_eval's (the difference of two
 * sums), so it only guides the search: the allowance is the last exact one, and the points
 * returned are checked by side_eval, the bound's own evaluation (verify).
 */
typedef struct {
    double *sa, *sb; /* suffix sums from the window's start (one past its end: 0) */
    double s0;       /* the sums' reference point (the tilt's centre) */
    double allow;    /* the last exact evaluation's allowance (first: the grid's at g) */
} fast_t;

typedef struct {
    const bentry_t *E;
    unsigned T;
    double theta, ld;
    fast_t f[2];
    int fast; /* the search on the suffix sums */
} search_t;

/* the point s_i of the linear index i */
static double grid_s(const bentry_t *E, unsigned T, size_t i)
{
    return (double)((long)T * E->k0 + (long)i) * E->h;
}

static int fast_build(fast_t *F, const bentry_t *E, unsigned T, double theta, int side)
{
    const conv_t *cv = &E->cv[side];
    double eps_t = E->key[4], h = E->h, c = cv->c, eTh, qc;
    lower_coefs(&eTh, &qc, cv, T, h);
    size_t ws = cv->ws, m = win_end(cv) - ws;
    F->sa = malloc((m + 1) * sizeof *F->sa);
    F->sb = malloc((m + 1) * sizeof *F->sb);
    if (!F->sa || !F->sb)
        return GA_ENOMEM;
    F->s0 = eps_t;
    F->allow = E->allow[side];
    F->sa[m] = F->sb[m] = 0;
    double tau = 0, y = 0, rt = exp(theta * h), ry = exp(-h);
    for (size_t k = m, n = 0; k-- > 0; n++) {
        size_t iz = (ws + k) % cv->N;
        double sk = grid_s(E, T, ws + k);
        if (n % 64 == 0) { /* (anchors, as in side_eval: the search's guide only) */
            tau = exp(-theta * (sk - eps_t));
            y = exp(F->s0 - sk);
        } else {
            tau *= rt;
            y /= ry;
        }
        double W = cv->z[2 * iz], G = W;
        if (!side)
            G -= T * (eTh * cv->z[2 * iz + 1] / c - (cv->zq ? qc * cv->zq[2 * iz] : 0));
        F->sa[k] = F->sa[k + 1] + W * tau;
        F->sb[k] = F->sb[k + 1] + G * tau * y;
    }
    return GA_OK;
}

/* the side's sum at eps from the suffix sums (and the lower side's band point by point) */
static double fast_val(const fast_t *F, const bentry_t *E, unsigned T, double theta, int side,
                       double eps)
{
    const conv_t *cv = &E->cv[side];
    double h = E->h, eps_t = E->key[4];
    size_t ws = cv->ws, end = win_end(cv);
    double fi = floor(eps / h) - (double)T * (double)E->k0; /* (about the last i with s <= eps) */
    size_t i0 = fi < (double)ws ? ws : fi >= (double)end ? end : (size_t)fi;
    while (i0 < end && grid_s(E, T, i0) <= eps)
        i0++;
    while (i0 > ws && grid_s(E, T, i0 - 1) > eps)
        i0--;
    double val = F->sa[i0 - ws] - exp(eps - F->s0) * F->sb[i0 - ws];
    if (side)
        return val;
    double eTh, qc, Th = T * h;
    lower_coefs(&eTh, &qc, cv, T, h);
    for (size_t i = i0; i-- > ws;) {
        double si = grid_s(E, T, i);
        if (si <= eps - Th)
            break;
        double wt[3], v[3];
        double t = band_term(wt, v, cv, i % cv->N, T, si - eps, exp(-theta * (si - eps_t)), eTh,
                             qc, h);
        if (t > 0)
            val += t;
    }
    return val;
}

/* One bound of the grid at eps (side 0 the lower, 1 the upper), as log - log delta: exact
 * (side_eval, its allowance kept for the fast form) or from the suffix sums */
static double bound_at(search_t *S, double eps, int side, int fast)
{
    const bentry_t *E = S->E;
    double val, allow, eps_t = E->key[4];
    if (fast) {
        val = fast_val(&S->f[side], E, S->T, S->theta, side, eps);
        allow = S->f[side].allow;
    } else {
        side_eval(&val, &allow, &E->cv[side], E->k0, S->T, E->h, eps, eps_t, S->theta, side);
        S->f[side].allow = allow;
    }
    double b = side_bound(E, S->T, eps, eps_t, S->theta, side, val, allow);
    return (b > 0 ? log(b) : -1e4) - S->ld;
}

/* A point x with the side's bound at x on the wanted side of delta, as near the bound's
 * crossing as tol: the upper side's smallest x found with upper(x) <= delta (then delta(x)
 * <= delta, eps* <= x), the lower side's largest with lower(x) > delta (eps* > x). The
 * search keeps a point of each sign (regula falsi, Illinois variant, halving where it
 * stalls); the bounds need not be monotone, the two points' signs are what is proven. */
static double cross(search_t *S, int side, double xp, double fp, double xn, double fn, double tol)
{
    int last = 0;
    for (int it = 0; it < 200 && xn - xp > tol; it++) {
        double x = xp + (xn - xp) * fp / (fp - fn);
        if (!(x > xp && x < xn) || it % 4 == 3)
            x = 0.5 * (xp + xn);
        ga_illinois_update(&xp, &fp, &xn, &fn, &last, x, bound_at(S, x, side, S->fast));
    }
    return side ? xn : xp;
}

/* Points of both signs of a side's bound around g (steps growing 4 times from 1% of g):
 * 1 with (xp, fp > 0) and (xn, fn <= 0); 0 where the bound is <= delta already at 0 (xn =
 * 0), -1 where it stays above delta up to the cap (xp the last point tried); eps at or
 * above sup has delta = 0 exactly */
static int signs(double *xp, double *fp, double *xn, double *fn, search_t *S, int side,
                 double g, double sup)
{
    double f = bound_at(S, g, side, S->fast), d = 0.01 * g;
    if (f > 0) {
        *xp = g, *fp = f;
        for (int it = 0; it < 60; it++, d *= 4) {
            double x = g + d;
            if (x >= sup) {
                *xn = sup, *fn = -1e4;
                return 1;
            }
            f = bound_at(S, x, side, S->fast);
            if (f <= 0) {
                *xn = x, *fn = f;
                return 1;
            }
            *xp = x, *fp = f;
        }
        return -1;
    }
    *xn = g, *fn = f;
    for (int it = 0; it < 60; it++, d *= 4) {
        double x = fmax(g - d, 0);
        f = bound_at(S, x, side, S->fast);
        if (f > 0) {
            *xp = x, *fp = f;
            return 1;
        }
        *xn = x, *fn = f;
        if (x == 0)
            return 0;
    }
    return 0;
}

/* The point a fast search returned, checked by the exact bound and moved outwards (up for
 * the upper side, down for the lower) by steps doubling from tol until the exact bound is
 * on its side: 1 with *x so proven, 0 where eight steps did not do (the caller searches
 * again on the exact bound). x at sup (delta 0 there) or at 0 for the lower side needs no
 * check. */
static int verify(search_t *S, int side, double *x, double sup, double tol)
{
    if (side ? *x >= sup : *x <= 0)
        return 1;
    double d = fmax(tol, 1e-15 * *x);
    for (int k = 0; k < 8; k++, d *= 2) {
        double f = bound_at(S, *x, side, 0);
        if (side ? f <= 0 : f > 0)
            return 1;
        *x = side ? fmin(*x + d, sup) : fmax(*x - d, 0);
        if (side ? *x >= sup : *x <= 0)
            return 1;
    }
    return 0;
}

/* Both crossings of the cached grid (ga_ploss_bracket_invert's, below): GA_EDOM where the
 * upper bound stays above delta; *misled where a point the fast form gave did not hold */
static int crossings(double *lo, double *hi, double *slope, int *misled, search_t *S, double g,
                     double sup, double tol)
{
    *misled = 0;
    double xp, fp, xn, fn;
    int su = signs(&xp, &fp, &xn, &fn, S, 1, g, sup);
    if (su < 0)
        return GA_EDOM; /* the upper bound stays above delta: a finer grid */
    *hi = su ? cross(S, 1, xp, fp, xn, fn, tol) : 0;
    if (*hi > 0 && *hi < sup) { /* d log(upper) / d eps there: delta's, to O(h^2) */
        double dx = fmax(1e-4 * *hi, 1e-9);
        *slope = (bound_at(S, *hi + dx, 1, S->fast) - bound_at(S, *hi, 1, S->fast)) / dx;
    }
    if (signs(&xp, &fp, &xn, &fn, S, 0, g, sup) > 0)
        *lo = cross(S, 0, xp, fp, xn, fn, tol);
    *misled = S->fast && !(verify(S, 1, hi, sup, tol) && verify(S, 0, lo, sup, tol));
    return GA_OK;
}

int ga_ploss_bracket_invert(double *lo, double *hi, double *slope, const ga_ploss *L, int dir,
                            double delta, double g, double eps_t, double theta, double lchern,
                            double coarse, double tol, double deadline)
{
    *lo = 0;
    *hi = INFINITY;
    *slope = NAN;
    if (!ga_ploss_few(L) || !(delta > 0 && delta < 1) || !(g > 0) || !isfinite(g) ||
        !(coarse >= 1 && coarse <= 64))
        return GA_EDOM;
    const ga_ploss_term *t = &L->t[0];
    unsigned T = (unsigned)t->count;
    int sw = t->add ^ dir;
    step_t s = {t, t->q < 1 ? log1p(-t->q) : -INFINITY, sw};
    double sup = sw && t->q < 1 ? T * -log1p(-t->q) : INFINITY, ld = log(delta);
    bcache_t own;
    memset(&own, 0, sizeof own);
    own.every = 1;
    double l, u, h, cut;
    int rc = bracket_grid(&l, &u, &h, &cut, &s, T, g, eps_t, theta, lchern, MAX_TOTAL,
                          coarse, deadline, &own);
    if (rc == GA_OK) {
        search_t S = {&own.e[sw], T, theta, ld, {{NULL, NULL, 0, 0}, {NULL, NULL, 0, 0}}, 1};
        for (int side = 0; side < 2 && rc == GA_OK; side++)
            rc = fast_build(&S.f[side], S.E, T, theta, side);
        int misled = 0;
        if (rc == GA_OK)
            rc = crossings(lo, hi, slope, &misled, &S, g, sup, tol);
        if (rc == GA_OK && misled) { /* (again on the exact bound) */
            S.fast = 0;
            *lo = 0;
            *hi = INFINITY;
            *slope = NAN;
            rc = crossings(lo, hi, slope, &misled, &S, g, sup, tol);
        }
        for (int side = 0; side < 2; side++)
            free(S.f[side].sa), free(S.f[side].sb);
    }
    bcache_clear(&own);
    return rc;
}

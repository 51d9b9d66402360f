/*
 * alloc.c - random allocation (each record in one of the t steps of an epoch, chosen
 * uniformly and independently of the other records; Feldman & Shenfeld, "Privacy
 * amplification by random allocation", 2025): upper bounds of the Renyi divergences of one
 * epoch, in both directions, at integer orders, in ball arithmetic (Arb).
 *
 * The dominating pair. Gradients clipped to norm 1, noise multiplier sigma, X the dataset
 * with the audited record and Y without it (or with it zeroed). The other records' steps do
 * not depend on the audited one, so given them and the outputs so far, step j adds the
 * record's gradient v_j (|v_j| <= 1, chosen adaptively) to its sum if the record is in step
 * j. Per step the likelihood ratio of the record's presence there is X_j = exp(a_j u_j -
 * a_j^2/2) with a_j = |v_j|/sigma and u_j standard normal under Y given the past, and an
 * epoch's ratio dX/dY is the mean M = (1/t) sum_j prod_{i != j} 1 X_j = (1/t) sum_j X_j;
 * epochs multiply. The divergences below are E_Y[f(ratio)] with f convex (x^alpha, x^(1 -
 * alpha), (x - c)_+, (1 - c x)_+); the ratio is affine in each X_j given the others, and the
 * mean-one lognormals exp(a u - a^2/2) increase in convex order with a, so backward induction
 * over the steps sets every a_j to 1/sigma: the pair P = (1/t) sum_j N(e_j/sigma, I_t), Q =
 * N(0, I_t) per epoch dominates every such pair of neighbours in both directions, and is
 * attained (every other gradient 0, the record's constant). X_j are then iid, X = exp(Z/sigma
 * - c), c = 1/(2 sigma^2), E X^n = exp(n (n - 1) c).
 *
 * Remove direction (X || Y): E_Q[M^alpha] = alpha! t^-alpha [z^alpha] F(z)^t with F(z) =
 * sum_n E X^n z^n / n! (the multinomial expansion), a finite sum of positive terms: exact,
 * here a ball from the truncated power of F (binary powering).
 *
 * Add direction (Y || X): E_Q[M^(1 - alpha)] = E M^-b (b = alpha - 1 >= 1) = (1/Gamma(b))
 * int_0^inf s^(b-1) psi(s/t)^t ds, psi(u) = E e^{-u X}; with D(s) = t log psi(s/t) + s (>= 0
 * by Jensen, convex: log psi is a cumulant generating function), E M^-b = 1 + (1/Gamma(b))
 * int s^(b-1) e^-s (e^D - 1) ds, so that every error below is relative to the deviation D,
 * not to 1. Upper bounds only:
 *   psi on a grid of z (steps 2^-k near sigma/64, on [-12, 12]), w = u e^{z/sigma - c}:
 *   small u: psi = 1 - u + int phi r, r = e^-w - 1 + w, increasing and convex in z: below its
 *     chord on each cell; where w is small r <= w^2/2 - w^3/6 + w^4/24 (and r <= w)
 *     integrates in closed form (int_{-inf}^z phi(y) e^{k (y/sigma - c)} dy = e^{k (k - 1) c}
 *     Phi(z - k/sigma)); where w is large r <= w - 1 + e^{-w(z0)};
 *   large u: psi = int phi g, g = e^-w decreasing, concave where w <= 1 (its tangent at the
 *     cell's left end), convex above (the chord), mixed cells g's left value; small w: e^-w
 *     <= its degree-4 Taylor polynomial (and <= 1), large w: g <= g(z0);
 *   each cell integrated against phi exactly (its mass and first moment), the better form
 *   taken where both apply.
 *   s runs over a geometric grid; on each piece D <= its chord through the bounds at the
 *   cell's ends, and s^(b-1) e^-s <= the exponential of the tangent of its log at the
 *   piece's middle: int e^{T + C} - int e^T, exponentials of affine functions, exactly.
 *   Below the grid s^(b-1) e^-s <= s0^(b-1) and D below its chord from 0; beyond a cell's end
 *   S, the rest is at most int_S^inf s^(b-1) psi(s/t)^t ds <= psi(S/t)^(t-1) Gamma(b) t^b
 *   E X^-b = psi(S/t)^(t-1) Gamma(b) t^b e^{b (b + 1) c}; the sum is cut at the cell end
 *   where that total is least.
 * Each order's bound is D_alpha <= log(that) / (alpha - 1), rounded up, and at most one whole
 * step's alpha c (joint quasi-convexity: a mixture's divergence is at most its components'
 * largest). The quadratures only decide how tight the bounds are, never whether they hold.
 */
#include "numerics/arb.h"
#include "pair/internal.h"
#include "base/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AL_PREC 128
#define AL_QPREC 64       /* psi's sums (relative accuracy 1e-17 is ample) */
#define AL_OPREC 64       /* each order's sum over the pieces of s */
#define AL_Z 12.0          /* the z grid spans [-AL_Z, AL_Z] (Phi(-12) = 1.8e-33) */
#define AL_W0 3e-2         /* w below this: the closed-form quartic bound */
#define AL_W1 40.0         /* w above this: g at the window's end (e^-40) */
#define AL_UR 4.0          /* psi as 1 - u + R for u up to this */
#define AL_UG 0.25         /* psi from g itself from this u on */
#define AL_S0 0x1p-30      /* the s grid starts here (doubling up to AL_S1) */
#define AL_S1 0x1p-12
#define AL_RATIO (1 + 1.0 / 32) /* and grows by this factor */
#define AL_UMAX 2000.0     /* up to s = t AL_UMAX, */
#define AL_RATIO_FAR 1.25  /* then this factor, */
#define AL_UEND 1e8        /* up to t AL_UEND at most (beyond: the tail's bound) */
#define AL_SUB 4           /* pieces per cell of s */

static const int al_orders[] = {2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
                                18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 34,
                                36, 38, 40, 44, 48, 52, 56, 64, 72, 80, 96, 112, 128};
#define AL_NORDERS ((int)(sizeof al_orders / sizeof *al_orders))

/* out = x y truncated to degree A (x, y, out: A + 1 coefficients; out distinct) */
static void mul_trunc(arb_ptr out, arb_srcptr x, arb_srcptr y, int A)
{
    for (int k = 0; k <= A; k++) {
        arb_zero(out + k);
        for (int i = 0; i <= k; i++)
            arb_addmul(out + k, x + i, y + k - i, AL_PREC);
    }
}

/* dx[i] >= D_alpha(X || Y) of one epoch at order al_orders[i] (the remove direction) */
static void remove_bounds(double *dx, const arb_t c, ulong t)
{
    int A = al_orders[AL_NORDERS - 1];
    arb_ptr f = _arb_vec_init(A + 1), r = _arb_vec_init(A + 1), tmp = _arb_vec_init(A + 1);
    arb_t x, y;
    arb_init(x);
    arb_init(y);
    for (int k = 0; k <= A; k++) { /* f_k = E X^k / k! = exp(k (k - 1) c - log k!) */
        arb_mul_ui(x, c, (ulong)k * (ulong)(k > 0 ? k - 1 : 0), AL_PREC);
        arb_set_ui(y, (ulong)k + 1);
        arb_lgamma(y, y, AL_PREC);
        arb_sub(x, x, y, AL_PREC);
        arb_exp(f + k, x, AL_PREC);
        arb_zero(r + k);
    }
    arb_one(r);
    for (ulong e = t;;) { /* r = f^t (truncated) */
        arb_ptr sw;
        if (e & 1) {
            mul_trunc(tmp, r, f, A);
            sw = r, r = tmp, tmp = sw;
        }
        e >>= 1;
        if (!e)
            break;
        mul_trunc(tmp, f, f, A);
        sw = f, f = tmp, tmp = sw;
    }
    for (int i = 0; i < AL_NORDERS; i++) {
        int a = al_orders[i];
        arb_log(x, r + a, AL_PREC); /* log(alpha! t^-alpha r_alpha) / (alpha - 1) */
        arb_set_ui(y, (ulong)a + 1);
        arb_lgamma(y, y, AL_PREC);
        arb_add(x, x, y, AL_PREC);
        arb_set_ui(y, t);
        arb_log(y, y, AL_PREC);
        arb_submul_ui(x, y, (ulong)a, AL_PREC);
        arb_div_ui(x, x, (ulong)a - 1, AL_PREC);
        ga_interval iv;
        ga_arb_bounds(&iv, x);
        dx[i] = iv.hi;
    }
    arb_clear(x);
    arb_clear(y);
    _arb_vec_clear(f, A + 1);
    _arb_vec_clear(r, A + 1);
    _arb_vec_clear(tmp, A + 1);
}

/* the z grid z_i = -AL_Z + i h, i = 0..n, and what the bounds of psi take from it */
typedef struct {
    slong n;
    double h;
    arb_ptr P, Q, E, U1; /* per point: Phi(z), 1 - Phi(z), e^{a z - c}, int_z^inf phi e^{a y - c}
                            dy = Q(z - a) */
    arb_ptr L[4];    /* per point: int_{-inf}^z phi e^{k (a z - c)} = e^{k (k - 1) c} Phi(z - k a),
                        k = 1..4 */
    arb_ptr m, mu;           /* per cell: its mass and first moment about its left end */
    arb_t a, c;
    double w0; /* the closed-form region ends where w reaches this */
} zgrid;

static void zgrid_clear(zgrid *g)
{
    if (g->P) {
        _arb_vec_clear(g->P, g->n + 1);
        _arb_vec_clear(g->Q, g->n + 1);
        for (int k = 0; k < 4; k++)
            _arb_vec_clear(g->L[k], g->n + 1);
        _arb_vec_clear(g->E, g->n + 1);
        _arb_vec_clear(g->U1, g->n + 1);
        _arb_vec_clear(g->m, g->n);
        _arb_vec_clear(g->mu, g->n);
    }
    arb_clear(g->a);
    arb_clear(g->c);
}

static void zgrid_make(zgrid *g, const arb_t a, const arb_t c, double sigma)
{
    int k = (int)floor(log2(fmin(fmax(sigma, 0.25) / 64, 1.0 / 16)));
    g->h = ldexp(1, k); /* (the points exact doubles) */
    g->n = (slong)(2 * AL_Z / g->h);
    /* the region's truncation error, below w^5/120 per unit mass, against the deviation of
     * psi from e^-u, about w^2 (e^{1/sigma^2} - 1)/2: 1e-6 of it */
    g->w0 = fmin(AL_W0, cbrt(60e-6 * expm1(1 / (sigma * sigma))));
    slong n = g->n;
    arb_init(g->a);
    arb_init(g->c);
    arb_set(g->a, a);
    arb_set(g->c, c);
    g->P = _arb_vec_init(n + 1);
    g->Q = _arb_vec_init(n + 1);
    for (int k = 0; k < 4; k++)
        g->L[k] = _arb_vec_init(n + 1);
    g->E = _arb_vec_init(n + 1);
    g->U1 = _arb_vec_init(n + 1);
    g->m = _arb_vec_init(n);
    g->mu = _arb_vec_init(n);
    arb_ptr dens = _arb_vec_init(n + 1);
    arb_t z, x, y, rpi, ek[4];
    arb_init(z);
    arb_init(x);
    arb_init(y);
    arb_init(rpi);
    for (int k = 0; k < 4; k++) { /* e^{k (k + 1) c}: the factor of L[k] (order k + 1) */
        arb_init(ek[k]);
        arb_mul_ui(ek[k], c, (ulong)(k * (k + 1)), AL_PREC);
        arb_exp(ek[k], ek[k], AL_PREC);
    }
    arb_const_pi(rpi, AL_PREC);
    arb_mul_2exp_si(rpi, rpi, 1);
    arb_rsqrt(rpi, rpi, AL_PREC); /* 1/sqrt(2 pi) */
    for (slong i = 0; i <= n; i++) {
        arb_set_d(z, -AL_Z + (double)i * g->h);
        ga_arb_normal_tails(g->P + i, g->Q + i, z, NULL, AL_PREC);
        arb_set(x, z);
        for (int k = 0; k < 4; k++) {
            arb_sub(x, x, a, AL_PREC);
            ga_arb_normal_tails(g->L[k] + i, k ? y : g->U1 + i, x, NULL, AL_PREC);
            arb_mul(g->L[k] + i, g->L[k] + i, ek[k], AL_PREC);
        }
        arb_mul(x, a, z, AL_PREC);
        arb_sub(x, x, c, AL_PREC);
        arb_exp(g->E + i, x, AL_PREC);
        arb_mul(x, z, z, AL_PREC);
        arb_mul_2exp_si(x, x, -1);
        arb_neg(x, x);
        arb_exp(x, x, AL_PREC);
        arb_mul(dens + i, x, rpi, AL_PREC);
    }
    for (slong i = 0; i < n; i++) {
        double zl = -AL_Z + (double)i * g->h, zr = zl + g->h;
        if (zr <= 0) /* the mass from the nearer tail (its relative accuracy) */
            arb_sub(g->m + i, g->P + i + 1, g->P + i, AL_PREC);
        else if (zl >= 0)
            arb_sub(g->m + i, g->Q + i, g->Q + i + 1, AL_PREC);
        else {
            arb_add(x, g->P + i, g->Q + i + 1, AL_PREC);
            arb_sub_ui(x, x, 1, AL_PREC);
            arb_neg(g->m + i, x);
        }
        /* int (z - z_l) phi = phi(z_l) - phi(z_r) - z_l m */
        arb_sub(x, dens + i, dens + i + 1, AL_PREC);
        arb_set_d(z, zl);
        arb_submul(x, z, g->m + i, AL_PREC);
        arb_set(g->mu + i, x);
    }
    _arb_vec_clear(dens, n + 1);
    arb_clear(z);
    arb_clear(x);
    arb_clear(y);
    arb_clear(rpi);
    for (int k = 0; k < 4; k++)
        arb_clear(ek[k]);
}

/* s <- y where y's upper end is below s's, or s is no number (both upper bounds of one
 * quantity: the better) */
static void upper_min(arb_t s, const arb_t y)
{
    ga_interval a, b;
    ga_arb_bounds(&a, s);
    ga_arb_bounds(&b, y);
    if (b.hi < a.hi || isnan(a.hi))
        arb_set(s, y);
}

/* the window of z where w = u e^{a z - c} runs from AL_W0 to AL_W1, as grid indices (doubles:
 * they decide only which valid bound each part takes) */
static void window(slong *il, slong *ir, const zgrid *g, double ud, double ad, double cd)
{
    double zl = (log(g->w0 / ud) + cd) / ad, zr = (log(AL_W1 / ud) + cd) / ad;
    double fl = floor((zl + AL_Z) / g->h), fr = ceil((zr + AL_Z) / g->h);
    double n = (double)g->n;
    *il = fl < 0 ? 0 : fl > n ? g->n : (slong)fl;
    *ir = fr < (double)*il ? *il : fr > n ? g->n : (slong)fr;
}

/* an upper bound of psi(u) (a ball: its upper end) from g = e^-w itself (large u, where psi
 * is small): g decreases in z, is concave where w <= 1 (g'' = a^2 g (w^2 - w)) and convex
 * above */
static void psi_by_g(arb_t s, const zgrid *g, const arb_t u, slong il, slong ir)
{
    arb_t w0, w1, g0, g1, x, one;
    arb_init(w0);
    arb_init(w1);
    arb_init(g0);
    arb_init(g1);
    arb_init(x);
    arb_init(one);
    arb_one(one);
    /* (-inf, z_il]: e^-w <= 1 - w + w^2/2 - w^3/6 + w^4/24, and e^-w <= 1 */
    arb_set(s, g->P + il);
    arb_one(x);
    for (int k = 0; k < 4; k++) {
        arb_mul(x, x, u, AL_QPREC);
        arb_div_ui(x, x, (ulong)k + 1, AL_QPREC);
        arb_neg(x, x); /* (-u)^(k+1) / (k+1)! */
        arb_addmul(s, x, g->L[k] + il, AL_QPREC);
    }
    upper_min(s, g->P + il);
    arb_mul(w0, u, g->E + il, AL_QPREC);
    arb_neg(x, w0);
    arb_exp(g0, x, AL_QPREC);
    for (slong i = il; i < ir; i++) {
        arb_mul(w1, u, g->E + i + 1, AL_QPREC);
        arb_neg(x, w1);
        arb_exp(g1, x, AL_QPREC);
        arb_addmul(s, g0, g->m + i, AL_QPREC);
        if (arb_le(w1, one)) { /* concave: the tangent at z_i, slope -a w g */
            arb_mul(x, w0, g0, AL_QPREC);
            arb_mul(x, x, g->a, AL_QPREC);
            arb_submul(s, x, g->mu + i, AL_QPREC);
        } else if (arb_ge(w0, one)) { /* convex: the chord */
            arb_sub(x, g1, g0, AL_QPREC);
            arb_mul(x, x, g->mu + i, AL_QPREC);
            arb_mul_2exp_si(x, x, -(slong)ilogb(g->h)); /* (/ h, h = 2^k) */
            arb_add(s, s, x, AL_QPREC);
        } /* (else g <= its left value) */
        arb_swap(w0, w1);
        arb_swap(g0, g1);
    }
    /* [z_ir, inf): g <= g(z_ir) */
    arb_addmul(s, g0, g->Q + ir, AL_QPREC);
    arb_clear(w0);
    arb_clear(w1);
    arb_clear(g0);
    arb_clear(g1);
    arb_clear(x);
    arb_clear(one);
}

/* an upper bound of psi(u) (a ball: its upper end) as 1 - u + R (small u, where psi is near
 * 1 - u): R the integral of phi r, r = e^-w - 1 + w >= 0, which increases and is convex in z
 * (r'' = a^2 w (w e^-w + 1 - e^-w)): below its chords on the cells */
static void psi_by_r(arb_t s, const zgrid *g, const arb_t u, slong il, slong ir)
{
    arb_t w, r0, r1, x;
    arb_init(w);
    arb_init(r0);
    arb_init(r1);
    arb_init(x);
    /* (-inf, z_il]: r <= w^2/2 - w^3/6 + w^4/24 (e^-w's alternating series), and r <= w */
    arb_zero(s);
    arb_neg(x, u);
    for (int k = 1; k < 4; k++) {
        arb_mul(x, x, u, AL_QPREC);
        arb_div_ui(x, x, (ulong)k + 1, AL_QPREC);
        arb_neg(x, x); /* (-u)^(k+1) / (k+1)! */
        arb_addmul(s, x, g->L[k] + il, AL_QPREC);
    }
    arb_mul(x, u, g->L[0] + il, AL_QPREC);
    upper_min(s, x);
    /* the cells: r below its chord */
    arb_mul(w, u, g->E + il, AL_QPREC);
    arb_neg(x, w);
    arb_expm1(r0, x, AL_QPREC);
    arb_add(r0, r0, w, AL_QPREC);
    for (slong i = il; i < ir; i++) {
        arb_mul(w, u, g->E + i + 1, AL_QPREC);
        arb_neg(x, w);
        arb_expm1(r1, x, AL_QPREC);
        arb_add(r1, r1, w, AL_QPREC);
        arb_addmul(s, r0, g->m + i, AL_QPREC);
        arb_sub(x, r1, r0, AL_QPREC);
        arb_mul(x, x, g->mu + i, AL_QPREC);
        arb_mul_2exp_si(x, x, -(slong)ilogb(g->h)); /* (/ h, h = 2^k) */
        arb_add(s, s, x, AL_QPREC);
        arb_swap(r0, r1);
    }
    /* [z_ir, inf): r <= w - 1 + e^{-w(z_ir)}: u U1 + (e^{-w(z_ir)} - 1) Q */
    arb_mul(w, u, g->E + ir, AL_QPREC);
    arb_neg(x, w);
    arb_expm1(x, x, AL_QPREC);
    arb_addmul(s, x, g->Q + ir, AL_QPREC);
    arb_addmul(s, u, g->U1 + ir, AL_QPREC);
    arb_sub(s, s, u, AL_PREC);
    arb_add_ui(s, s, 1, AL_PREC);
    arb_clear(w);
    arb_clear(r0);
    arb_clear(r1);
    arb_clear(x);
}

/* an upper bound of t log psi(u) + s at s = t u (u a ball, ud its double), rounded up: the
 * better of the two forms where both are accurate (>= 0: psi(u) >= e^-u, Jensen) */
static double dev_bound(const zgrid *g, const arb_t u, double ud, double sd, ulong t, double ad,
                        double cd)
{
    slong il, ir;
    window(&il, &ir, g, ud, ad, cd);
    double best = INFINITY;
    arb_t s, x;
    arb_init(s);
    arb_init(x);
    for (int form = 0; form < 2; form++) {
        if (form ? ud < AL_UG : ud > AL_UR)
            continue;
        if (form)
            psi_by_g(s, g, u, il, ir);
        else
            psi_by_r(s, g, u, il, ir);
        arb_log(s, s, AL_PREC);
        arb_mul_ui(s, s, t, AL_PREC);
        arb_set_d(x, sd);
        arb_add(s, s, x, AL_PREC);
        ga_interval iv;
        ga_arb_bounds(&iv, s);
        best = fmin(best, iv.hi);
    }
    arb_clear(s);
    arb_clear(x);
    return fmin(best, sd); /* (psi <= 1) */
}

/* The pieces of the s grid (AL_SUB per cell), each with what its integral needs for every
 * order: s0 its start, d its width, lm = log m - d/(2 m) and im = 1/m (m its middle: the
 * tangent of log s at m, at the piece's start and its slope), c0 the cell's chord of the
 * deviation D at the piece's start and sl its slope. */
typedef struct {
    slong n;
    arb_ptr s0, d, lm, im, c0, sl;
} pieces;

static void pieces_clear(pieces *q)
{
    _arb_vec_clear(q->s0, q->n);
    _arb_vec_clear(q->d, q->n);
    _arb_vec_clear(q->lm, q->n);
    _arb_vec_clear(q->im, q->n);
    _arb_vec_clear(q->c0, q->n);
    _arb_vec_clear(q->sl, q->n);
}

static void pieces_make(pieces *q, const double *s, const double *dv, size_t ns)
{
    q->n = (slong)(ns - 1) * AL_SUB;
    q->s0 = _arb_vec_init(q->n);
    q->d = _arb_vec_init(q->n);
    q->lm = _arb_vec_init(q->n);
    q->im = _arb_vec_init(q->n);
    q->c0 = _arb_vec_init(q->n);
    q->sl = _arb_vec_init(q->n);
    arb_t B, y, z, m;
    arb_init(B);
    arb_init(y);
    arb_init(z);
    arb_init(m);
    for (size_t k = 0; k + 1 < ns; k++) {
        /* the chord's slope (D1 - D0)/(s1 - s0) */
        arb_set_d(B, dv[k + 1]);
        arb_set_d(y, dv[k]);
        arb_sub(B, B, y, AL_PREC);
        arb_set_d(y, s[k + 1]);
        arb_set_d(z, s[k]);
        arb_sub(y, y, z, AL_PREC);
        arb_div(B, B, y, AL_PREC);
        double w = s[k + 1] - s[k];
        for (int j = 0; j < AL_SUB; j++) {
            slong i = (slong)k * AL_SUB + j;
            double a0 = j ? s[k] + w * j / AL_SUB : s[k];
            double a1 = j + 1 < AL_SUB ? s[k] + w * (j + 1) / AL_SUB : s[k + 1];
            arb_set(q->sl + i, B);
            arb_set_d(q->s0 + i, a0); /* c0 = D0 + B (a0 - s_k) */
            arb_set_d(z, s[k]);
            arb_sub(y, q->s0 + i, z, AL_PREC);
            arb_mul(q->c0 + i, B, y, AL_PREC);
            arb_set_d(y, dv[k]);
            arb_add(q->c0 + i, q->c0 + i, y, AL_PREC);
            arb_set_d(y, a1);
            arb_sub(q->d + i, y, q->s0 + i, AL_PREC); /* (exact: neighbouring doubles) */
            arb_add(m, q->s0 + i, y, AL_PREC);
            arb_mul_2exp_si(m, m, -1);
            arb_ui_div(q->im + i, 1, m, AL_PREC);
            arb_log(q->lm + i, m, AL_PREC);
            arb_mul(y, q->d + i, q->im + i, AL_PREC);
            arb_mul_2exp_si(y, y, -1);
            arb_sub(q->lm + i, q->lm + i, y, AL_PREC);
        }
    }
    arb_clear(B);
    arb_clear(y);
    arb_clear(z);
    arb_clear(m);
}

/* out = int_0^d e^{A + B s} ds = e^A d (e^{B d} - 1)/(B d) (x scratch) */
static void exp_integral(arb_t out, const arb_t A, const arb_t B, const arb_t d, arb_t x)
{
    arb_mul(x, B, d, AL_PREC);
    if (arb_contains_zero(x)) { /* 0 < (e^y - 1)/y <= e^{max(y, 0)}: the ball [0, that] */
        ga_interval iv;
        ga_arb_bounds(&iv, x);
        arb_set_d(x, fmax(iv.hi, 0));
        arb_exp(x, x, AL_PREC);
        arb_mul_2exp_si(x, x, -1);
        arb_add_error(x, x);
    } else {
        arb_expm1(out, x, AL_PREC);
        arb_div(x, out, x, AL_PREC);
    }
    arb_exp(out, A, AL_PREC);
    arb_mul(out, out, d, AL_PREC);
    arb_mul(out, out, x, AL_PREC);
}

/* acc += for every piece, an upper bound of the integral of s^(b-1) e^-s (e^D - 1): s^(b-1)
 * e^-s <= e^T, T = (b - 1)(lm + im (s - s0)) - s, and D <= C = c0 + sl (s - s0) with C >= 0:
 * int e^{T + C} - int e^T. Beyond each cell's end S_k the rest is at most psi(S_k/t)^(t-1)
 * Gamma(b) t^b e^{b (b + 1) c} (tl: its logarithm less (t - 1) log psi(S_k/t); lpk: the
 * bounds of log psi at the cells' ends): acc becomes the least of the sums so truncated. */
static void pieces_add(arb_t acc, const pieces *q, ulong b, const arb_t tl, const double *lpk,
                       ulong t)
{
    arb_t A, B, A2, B2, v, x, best;
    arb_init(A);
    arb_init(B);
    arb_init(A2);
    arb_init(B2);
    arb_init(v);
    arb_init(x);
    arb_init(best);
    arb_indeterminate(best); /* (no bound yet) */
    for (slong i = 0; i < q->n; i++) {
        arb_mul_ui(A, q->lm + i, b - 1, AL_PREC);
        arb_sub(A, A, q->s0 + i, AL_PREC);
        arb_mul_ui(B, q->im + i, b - 1, AL_PREC);
        arb_sub_ui(B, B, 1, AL_PREC);
        arb_add(A2, A, q->c0 + i, AL_PREC);
        arb_add(B2, B, q->sl + i, AL_PREC);
        exp_integral(v, A2, B2, q->d + i, x);
        arb_add(acc, acc, v, AL_PREC);
        exp_integral(v, A, B, q->d + i, x);
        arb_sub(acc, acc, v, AL_PREC);
        if ((i + 1) % AL_SUB == 0) { /* the cell's end: truncate there? */
            arb_set_d(x, lpk[(i + 1) / AL_SUB]);
            arb_mul_ui(x, x, t - 1, AL_PREC);
            arb_add(x, x, tl, AL_PREC);
            arb_exp(x, x, AL_PREC);
            arb_add(x, x, acc, AL_PREC);
            upper_min(best, x);
        }
    }
    arb_swap(acc, best);
    arb_clear(A);
    arb_clear(B);
    arb_clear(A2);
    arb_clear(B2);
    arb_clear(v);
    arb_clear(x);
    arb_clear(best);
}

/* dy[i] >= D_alpha(Y || X) of one epoch (the add direction); GA_OK or GA_ETIME */
static int add_bounds(double *dy, const arb_t a, const arb_t c, double sigma, ulong t,
                      double deadline)
{
    int rc = GA_OK;
    zgrid g;
    memset(&g, 0, sizeof g);
    zgrid_make(&g, a, c, sigma);
    double ad = 1 / sigma, cd = 0.5 / (sigma * sigma), td = (double)t;
    size_t ns = 0, cap = 0;
    double *s = NULL, *dv = NULL; /* the grid and the bounds of D(s) = t log psi(s/t) + s */
    arb_t u, x, y, acc, lt;
    arb_init(u);
    arb_init(x);
    arb_init(y);
    arb_init(acc);
    arb_init(lt);
    /* the tail's bound for the largest order, less log(psi(S/t)^(t-1)): the grid ends where
     * that is below e^-70, or at u = AL_UEND */
    int bmax = al_orders[AL_NORDERS - 1] - 1;
    double tail0 = bmax * log(td) + ga_lgamma(bmax) + bmax * (bmax + 1.0) * cd;
    for (double sk = AL_S0;; sk *= sk < AL_S1 ? 2 : sk < AL_UMAX * td ? AL_RATIO : AL_RATIO_FAR) {
        if (ns == cap) {
            cap = cap ? 2 * cap : 1024;
            double *s2 = realloc(s, cap * sizeof *s), *d2 = s2 ? realloc(dv, cap * sizeof *dv) : NULL;
            if (s2)
                s = s2;
            if (!d2) {
                rc = GA_ENOMEM;
                goto cleanup;
            }
            dv = d2;
        }
        if ((ns & 63) == 0 && ga_expired(deadline)) {
            rc = GA_ETIME;
            goto cleanup;
        }
        arb_set_d(u, sk);
        arb_div_ui(u, u, t, AL_PREC);
        s[ns] = sk;
        dv[ns] = dev_bound(&g, u, sk / td, sk, t, ad, cd);
        ns++;
        if (sk / td > AL_UEND || (td - 1) / td * (dv[ns - 1] - sk) + tail0 < -70)
            break;
    }
    pieces q;
    pieces_make(&q, s, dv, ns);
    double d0 = dv[0], *lpk = dv; /* log psi(s_k/t) <= (D(s_k) - s_k)/t, rounded up, over dv */
    for (size_t k = 0; k < ns; k++) {
        arb_set_d(x, dv[k]);
        arb_set_d(y, s[k]);
        arb_sub(x, x, y, AL_PREC);
        arb_div_ui(x, x, t, AL_PREC);
        ga_interval iv;
        ga_arb_bounds(&iv, x);
        lpk[k] = fmin(iv.hi, 0);
    }
    arb_set_ui(lt, t);
    arb_log(lt, lt, AL_PREC);
    for (int i = 0; i < AL_NORDERS; i++) {
        ulong b = (ulong)al_orders[i] - 1;
        /* E M^-b = 1 + (1/Gamma(b)) int s^(b-1) e^-s (e^D - 1) ds. Head [0, s0]: s^(b-1) e^-s
         * <= s0^(b-1) and D below its chord from D(0) = 0: s0^b ((e^x - 1)/x - 1), x = D(s0) */
        arb_zero(acc);
        if (d0 > 0) {
            arb_set_d(x, d0);
            arb_expm1(y, x, AL_PREC);
            arb_div(y, y, x, AL_PREC);
            arb_sub_ui(y, y, 1, AL_PREC);
            arb_set_d(acc, s[0]);
            arb_pow_ui(acc, acc, b, AL_PREC);
            arb_mul(acc, acc, y, AL_PREC);
        }
        /* the tail: tl = log(Gamma(b) t^b) + b (b + 1) c */
        arb_mul_ui(x, c, b * (b + 1), AL_PREC);
        arb_addmul_ui(x, lt, b, AL_PREC);
        arb_set_ui(y, b);
        arb_lgamma(y, y, AL_PREC);
        arb_add(x, x, y, AL_PREC);
        pieces_add(acc, &q, b, x, lpk, t);
        /* D_alpha <= log(1 + acc/Gamma(b)) / b */
        arb_neg(y, y);
        arb_exp(y, y, AL_PREC);
        arb_mul(acc, acc, y, AL_PREC);
        arb_log1p(acc, acc, AL_PREC);
        arb_div_ui(acc, acc, b, AL_PREC);
        ga_interval iv;
        ga_arb_bounds(&iv, acc);
        dy[i] = iv.hi;
    }
    pieces_clear(&q);
cleanup:
    free(s);
    free(dv);
    arb_clear(u);
    arb_clear(x);
    arb_clear(y);
    arb_clear(acc);
    arb_clear(lt);
    zgrid_clear(&g);
    return rc;
}

int ga_alloc_renyi_make(ga_alloc_renyi *R, const char *sigma_txt, double sigma, double t,
                        double deadline)
{
    memset(R, 0, sizeof *R);
    if (!(sigma >= 1e-3 && sigma <= 1e6 && t >= 1 && t <= 1e7 && t == floor(t)))
        return GA_EINVAL;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    arb_t sg, a, c;
    arb_init(sg);
    arb_init(a);
    arb_init(c);
    int rc = GA_OK;
    if (ga_cert_entry(sg, &sigma_txt, &sigma, 0)) {
        rc = GA_EINVAL;
        goto cleanup;
    }
    arb_ui_div(a, 1, sg, AL_PREC); /* 1/sigma */
    arb_mul(c, a, a, AL_PREC);
    arb_mul_2exp_si(c, c, -1);    /* 1/(2 sigma^2) */
    R->n = AL_NORDERS;
    for (int i = 0; i < AL_NORDERS; i++)
        R->alpha[i] = al_orders[i];
    ulong tu = (ulong)t;
    remove_bounds(R->dx, c, tu);
    if (tu == 1) { /* one step: the Gaussian's D = alpha c both ways */
        for (int i = 0; i < AL_NORDERS; i++)
            R->dy[i] = R->dx[i];
    } else {
        rc = add_bounds(R->dy, a, c, sigma, tu, deadline);
    }
    /* and at most one whole step's, alpha c (the mixture's divergence in either direction is
     * at most its components' largest: joint quasi-convexity) */
    for (int i = 0; i < AL_NORDERS && rc == GA_OK; i++) {
        arb_mul_ui(sg, c, (ulong)al_orders[i], AL_PREC);
        ga_interval iv;
        ga_arb_bounds(&iv, sg);
        R->dx[i] = fmin(R->dx[i], iv.hi);
        R->dy[i] = fmin(R->dy[i], iv.hi);
    }
cleanup:
    arb_clear(sg);
    arb_clear(a);
    arb_clear(c);
    return rc;
}

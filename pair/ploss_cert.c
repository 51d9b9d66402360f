/*
 * ploss_cert.c - certified delta of subsampled Gaussian steps (ball arithmetic): one step by
 * its closed form (first part), a composition by the Bromwich integral (second part).
 *
 * One step of the remove relation, P = (1 - q) N(0, 1) + q N(m, 1) against Q = N(0, 1) (m =
 * 1/sigma): the loss l(x) = log(1 - q + q e^{m x - m^2/2}) is increasing, so the optimal events
 * are thresholds (pair/ploss.c) and, with r = e^eps - 1 + q and tau = (log(r/q) + m^2/2)/m,
 *   delta_{P,Q}(eps) = q Qbar(tau - m) - r Qbar(tau),
 *   delta_{Q,P}(eps) = Phi(tau') - e^eps ((1 - q) Phi(tau') + q Phi(tau' - m))  where
 *                      r' = e^-eps - 1 + q > 0 (tau' from r'), and 0 where r' <= 0,
 * with Qbar(x) = erfc(x/sqrt 2)/2 and Phi(x) = Qbar(-x) from Arb's rigorous erfc. The
 * difference loses about log2(tau/m) bits to cancellation, which the caller's precision
 * escalation recovers.
 */
#include "numerics/arb.h"
#include "pair/loss.h"


static void qbar(arb_t r, const arb_t x, slong prec)
{
    arb_t t;
    arb_init(t);
    ga_arb_normal_tails(t, r, x, NULL, prec);
    arb_clear(t);
}

/* tau = (log(r/q) + m^2/2)/m */
static void threshold(arb_t tau, const arb_t r, const arb_t q, const arb_t m, slong prec)
{
    arb_t t;
    arb_init(t);
    arb_div(tau, r, q, prec);
    arb_log(tau, tau, prec);
    arb_sqr(t, m, prec);
    arb_mul_2exp_si(t, t, -1);
    arb_add(tau, tau, t, prec);
    arb_div(tau, tau, m, prec);
    arb_clear(t);
}

int ga_ploss_delta_one_arb(arb_t res, const arb_t q, const arb_t m, int dir, const arb_t eps,
                           slong prec)
{
    arb_t r, tau, a, b, u;
    arb_init(r);
    arb_init(tau);
    arb_init(a);
    arb_init(b);
    arb_init(u);
    int rc = GA_OK;
    if (dir == 0) {
        arb_expm1(r, eps, prec);
        arb_add(r, r, q, prec);
        threshold(tau, r, q, m, prec);
        arb_sub(u, tau, m, prec);
        qbar(a, u, prec);
        arb_mul(a, a, q, prec);
        qbar(b, tau, prec);
        arb_mul(b, b, r, prec);
        arb_sub(res, a, b, prec);
    } else {
        arb_neg(u, eps);
        arb_expm1(r, u, prec);
        arb_add(r, r, q, prec);
        if (arb_is_nonpositive(r)) {
            arb_zero(res); /* the loss never falls below -eps: exactly 0 */
        } else if (!arb_is_positive(r)) {
            arb_zero_pm_one(res); /* undecided: the caller adds precision */
            rc = GA_EPREC;
        } else {
            threshold(tau, r, q, m, prec);
            arb_neg(u, tau);
            qbar(a, u, prec); /* Phi(tau') */
            arb_sub(u, m, tau, prec);
            qbar(b, u, prec); /* Phi(tau' - m) */
            arb_mul(b, b, q, prec);
            arb_sub_ui(u, q, 1, prec);
            arb_neg(u, u);
            arb_addmul(b, u, a, prec); /* (1 - q) Phi(tau') + q Phi(tau' - m) */
            arb_exp(u, eps, prec);
            arb_mul(b, b, u, prec);
            arb_sub(res, a, b, prec);
        }
    }
    arb_clear(r);
    arb_clear(tau);
    arb_clear(a);
    arb_clear(b);
    arb_clear(u);
    return rc;
}

/* One covariance step (pair/ploss.c, delta_one_chi2): the same threshold events with the
 * chi^2_r tails from Arb's regularized incomplete gamma functions; lam = m^2, r columns. */
int ga_ploss_delta_one_chi2_arb(arb_t res, const arb_t q, const arb_t m, double r, int dir,
                                const arb_t eps, slong prec)
{
    arb_t lam, kap, c0, rho, st, h, A, B, u;
    arb_init(lam); arb_init(kap); arb_init(c0); arb_init(rho); arb_init(st); arb_init(h);
    arb_init(A); arb_init(B); arb_init(u);
    int rc = GA_OK;
    arb_sqr(lam, m, prec);
    arb_add_ui(u, lam, 1, prec);
    arb_div(kap, lam, u, prec);
    arb_mul_2exp_si(kap, kap, -1);            /* lambda / (2 (1 + lambda)) */
    arb_set_d(h, 0.5 * r);                     /* r/2, exact */
    arb_log1p(c0, lam, prec);
    arb_mul(c0, c0, h, prec);                  /* (r/2) log(1 + lambda) */
    if (dir == 0)
        arb_expm1(rho, eps, prec);
    else {
        arb_neg(u, eps);
        arb_expm1(rho, u, prec);
    }
    arb_add(rho, rho, q, prec);
    if (dir == 1 && arb_is_nonpositive(rho)) {
        arb_zero(res); /* the loss never falls below -eps */
        goto cleanup;
    }
    if (!arb_is_positive(rho)) {
        arb_zero_pm_one(res);
        rc = GA_EPREC;
        goto cleanup;
    }
    arb_div(st, rho, q, prec);
    arb_log(st, st, prec);
    arb_add(st, st, c0, prec);
    arb_div(st, st, kap, prec);                /* the threshold s1 or s2 */
    if (dir == 1 && arb_is_nonpositive(st)) {
        arb_zero(res);
        goto cleanup;
    }
    if (dir == 0 && arb_is_negative(st))
        arb_zero(st);                          /* (cannot happen for eps >= 0) */
    if (!arb_is_nonnegative(st)) {
        arb_zero_pm_one(res);
        rc = GA_EPREC;
        goto cleanup;
    }
    arb_mul_2exp_si(st, st, -1);               /* the gamma argument s/2 */
    arb_add_ui(u, lam, 1, prec);
    arb_div(u, st, u, prec);                   /* s/(2 (1 + lambda)) */
    if (dir == 0) {
        arb_hypgeom_gamma_upper(A, h, u, 1, prec);
        arb_hypgeom_gamma_upper(B, h, st, 1, prec);
        arb_mul(A, A, q, prec);
        arb_mul(B, B, rho, prec);
        arb_sub(res, A, B, prec);
    } else {
        arb_hypgeom_gamma_lower(A, h, st, 1, prec);
        arb_hypgeom_gamma_lower(B, h, u, 1, prec);
        arb_mul(A, A, rho, prec);
        arb_mul(B, B, q, prec);
        arb_sub(res, A, B, prec);
        arb_exp(u, eps, prec);
        arb_mul(res, res, u, prec);
    }
cleanup:
    arb_clear(lam); arb_clear(kap); arb_clear(c0); arb_clear(rho); arb_clear(st); arb_clear(h);
    arb_clear(A); arb_clear(B); arb_clear(u);
    return rc;
}

/* ================================================================ compositions
 *
 * A composition of subsampled steps (and Gaussian steps, q = 1) has no closed form; delta is
 * the Bromwich integral of pair/ploss.c,
 *   delta = [c < 0] + e^{L0} (1/pi) int_0^inf Re F(t) dt,
 *   F(t) = e^{K(z) - z eps - L0} / (z (z + 1)),  z = c + i t,  K(z) = sum_j T_j log M_j(s_j(z)),
 * and each piece is enclosed rigorously here:
 *
 * 1. M_j(w) = int phi(x) e^{(1 + w) l(x)} dx by the trapezoid rule on the double-precision
 *    design grid, every node in ball arithmetic, plus the Trefethen-Weideman discretisation
 *    bound 2 N / (e^{2 pi d / h} - 1) (pair/ploss.c derives N <= e^{d^2/2 + |t| theta}
 *    cos(theta/2)^{-max(0,-a)} M(a - 1), a = 1 + Re w, theta = m d <= pi/2; M(a - 1) is
 *    bounded by the same sum at t = 0 divided by 1 - its own discretisation bound) and the
 *    truncated tails: beyond the last node x_N, (log g)' <= -D with D = x_N - a m (a >= 0)
 *    or x_N - a l'(x_N) (a < 0; l' increases), so the dropped terms are at most
 *    g(x_N) e^{-Dh} / (1 - e^{-Dh}); likewise on the left.
 * 2. [0, tmax]: Gauss-Legendre panels. On a panel's Bernstein ellipse (semi-minor axis nu) Re z
 *    lies in [c - nu, c + nu], |e^{K(z)}| <= e^{K(Re z)}, and K(s) - s eps is convex in s, so
 *    |F| <= max(e^{K(c +- nu) - (c +- nu) eps - L0}) / (|z| |z + 1|)_min, and the panel's error
 *    is at most (b - a)/2 * 64 sup|F| / (15 (1 - rho^-2) rho^{2n}) (Gauss-Legendre on an
 *    ellipse of parameter rho; Trefethen, Approximation Theory and Approximation Practice,
 *    Theorem 19.3, as stated for n nodes in Fungrim's Gaussian quadrature entry). The
 *    ellipse avoids the poles t = i c and t = i (1 + c): nu < min(|c|, 1 + c), or the
 *    panel stays right of Re t > 0.
 * 3. [tmax, inf): |F| <= e^{-c eps - L0} B(t) / t^2 with B(t) >= |e^{K(c + it)}|, from
 *    (a) chords: on [t_k, t_k + D] the centred M~(tau) = e^{-i tau lam} M(a - 1 + i tau)
 *        (|M~| = |M|) differs from its chord by at most D^2/8 sup |M~''| (the Peano kernel
 *        of linear interpolation, valid for complex values), and |M~''| <= M2 = int g (l -
 *        lam)^2 (bounded by its own trapezoid sum with strip and tail bounds), so |M| <=
 *        max(|M(t_k)|, |M(t_k + D)|) + D^2 M2 / 8 there;
 *    (b) integration by parts: M(a - 1 + i t) = int g e^{i t l} dx with g = phi e^{a l} and
 *        h = g / l', so |M| <= TV(h) / |t|; h has at most two local maxima ((log h)' is a line
 *        minus a sigmoid), so TV(h) <= 4 sup h, bounded on a cover of cells in ball
 *        arithmetic (h is monotone outside [(min(a + 1, 0) - 1) m, (max(a + 1, 0) - 1) m]);
 *        and, split at a point x*, |M| <= int_{x < x*} g + 5 sup_{x >= x*} h / |t|, which falls
 *        below M(a - 1) far sooner where most of the mass has a nearly constant loss;
 *    (c) Gaussian steps exactly: |M(a - 1 + i t)| = e^{m^2 ((a - 1) a - t^2)/2}.
 *    The grid t_k advances by steps D sized from each term's share of the budget's slack while
 *    (a) keeps B below it; the remainder from the last point is bounded by (b) in closed form.
 *    Where the decay is too slow for the budget (few steps of a small rate) the range is
 *    extended (up to a cap), then the evaluation gives up (GA_EMAXITER, no enclosure).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <stdio.h>
#include <string.h>

static void arb_add_d_(arb_t r, const arb_t x, double d, slong prec)
{
    arb_t u;
    arb_init(u);
    arb_set_d(u, d);
    arb_add(r, x, u, prec);
    arb_clear(u);
}

#define NGL 9
/* the largest Bromwich range certified (beyond: GA_EMAXITER) and the most integrand
 * evaluations of one range (about a minute at the worst) */
#define CERT_EVAL_CAP 5000
#define TAIL_STEPS 150
/* trapezoid nodes of one certified evaluation (about 16 s at 64 bits; 100 steps of rate
 * 0.01, sigma 1 at eps 0.718 need 2.6 million) */
#define CERT_NODE_CAP 4000000
static const slong gl_sizes[NGL] = {8, 12, 16, 24, 32, 48, 64, 96, 128};

typedef struct {
    const ga_ploss_term *d;
    arb_t q, m, l1q, lq, hm2; /* q, m, log(1 - q), log q, m^2/2 */
    size_t *nodes;            /* the evaluation's trapezoid nodes so far (budget) */
} cterm;

typedef struct {
    const ga_ploss *L;
    cterm *t;
    int dir;
    slong prec;
    double deadline, lnrel; /* per-M accuracy of the trapezoid designs (log) */
    arb_t c, eps, L0;
    arb_ptr glx[NGL], glw[NGL];
    slong gl_prec[NGL];
} cctx;

/* l(x) = log(1 - q) + log1p(e^{log q + m x - m^2/2 - log(1 - q)}) */
static void closs(arb_t l, const cterm *s, const arb_t x, slong prec)
{
    arb_mul(l, s->m, x, prec);
    arb_add(l, l, s->lq, prec);
    arb_sub(l, l, s->hm2, prec);
    arb_sub(l, l, s->l1q, prec);
    arb_exp(l, l, prec);
    arb_log1p(l, l, prec);
    arb_add(l, l, s->l1q, prec);
}

/* l'(x) = m (1 - e^{log(1 - q) - l(x)}) */
static void cdloss(arb_t d, const cterm *s, const arb_t l, slong prec)
{
    arb_sub(d, s->l1q, l, prec);
    arb_exp(d, d, prec);
    arb_sub_ui(d, d, 1, prec);
    arb_neg(d, d);
    arb_mul(d, d, s->m, prec);
}

static double arb_up(const arb_t x)
{
    arf_t u;
    arf_init(u);
    arb_get_ubound_arf(u, x, 53);
    double v = arf_get_d(u, ARF_RND_UP);
    arf_clear(u);
    return v;
}

/* sum_{j >= 1} g e^{-D j h} = g / (e^{D h} - 1), D > 0 (else infinite) */
static void geom_tail(arb_t res, const arb_t g, const arb_t D, const arb_t h, slong prec)
{
    if (!arb_is_positive(D)) {
        arb_pos_inf(res);
        return;
    }
    arb_t u;
    arb_init(u);
    arb_mul(u, D, h, prec);
    arb_expm1(u, u, prec);
    arb_div(res, g, u, prec);
    arb_clear(u);
}

/* The bound of a l'(x) beyond an end of the grid ((log g)' = -x + a l'(x), 0 < l' < m, l'
 * increasing): on the right a m (a >= 0) or a l'(x_N) (a < 0), on the left 0 (a >= 0) or
 * a l'(x_0) (a < 0); l_end is the loss at that end */
static void end_drift(arb_t u, const cterm *s, const arb_t a, const arb_t l_end, int right,
                      slong prec)
{
    if (arb_is_nonnegative(a)) {
        if (right)
            arb_mul(u, a, s->m, prec);
        else
            arb_zero(u);
    } else {
        cdloss(u, s, l_end, prec);
        arb_mul(u, u, a, prec);
    }
}

/* M(w) of one step at w = a - 1 + i t (q < 1): a real ball, t a ball; lnrel sets the design
 * grid's accuracy. With m2 (t = 0 only): also an upper bound of M2 = int g (l - lam)^2, whose
 * strip bound is N2 <= e^{d^2/2} cf int g (|l - lam| + kappa)^2 <= 2 e^{..} (M2 + kappa^2 M0),
 * kappa = theta - log cos(theta/2) (|Im l| <= theta, Re l - l in [log cos(theta/2), 0]), and
 * whose tails carry (|l(x_N) - lam| + m (x - x_N))^2 on the right (0 < l' < m) and
 * max(|l(x_0) - lam|, |log(1 - q) - lam|)^2 on the left.
 * GA_OK, or GA_EMAXITER when the design exceeds the node cap. One algorithm (the design, the
 * sums and their three error bounds share the grid), kept whole. */
static int step_mgf(acb_t res, arb_t m2, const cterm *s, const arb_t a, const arb_t t,
                    const arb_t lam, double lnrel, slong prec)
{
    double ad = arf_get_d(arb_midref(a), ARF_RND_NEAR);
    arb_t x, l, e, sn, cs, sre, sim, sg, e0, eN, l0, lN, h, u, v, D;
    ga_ploss_grid g;
    arf_t tu;
    arf_init(tu);
    arb_get_abs_ubound_arf(tu, t, 53);
    double td = arf_get_d(tu, ARF_RND_UP);
    ga_ploss_grid_make(&g, s->d, ad, td, lnrel);
    *s->nodes += g.n;
    if (g.capped || g.n < 2 || *s->nodes > CERT_NODE_CAP) {
        if (getenv("GA_PLOSS_DEBUG"))
            fprintf(stderr, "grid a %g t %g: n %zu h %g disc %g\n", ad, td, g.n, g.h, g.disc);
        acb_indeterminate(res);
        arf_clear(tu);
        return GA_EMAXITER;
    }
    arb_init(x); arb_init(l); arb_init(e); arb_init(sn); arb_init(cs); arb_init(sre);
    arb_init(sim); arb_init(sg); arb_init(e0); arb_init(eN); arb_init(l0); arb_init(lN);
    arb_init(h); arb_init(u); arb_init(v); arb_init(D);
    arb_t s2, R2, DR;
    arb_init(s2); arb_init(R2); arb_init(DR);
    arb_set_d(h, g.h);
    for (size_t k = 0; k < g.n; k++) {
        arb_mul_ui(x, h, (ulong)k, prec);
        arb_add_d_(x, x, g.x0, prec);
        closs(l, s, x, prec);
        arb_sqr(u, x, prec);
        arb_mul_2exp_si(u, u, -1);
        arb_mul(v, a, l, prec);
        arb_sub(v, v, u, prec); /* a l - x^2/2 */
        arb_exp(e, v, prec);
        arb_mul(u, t, l, prec);
        arb_sin_cos(sn, cs, u, prec);
        arb_addmul(sre, e, cs, prec);
        arb_addmul(sim, e, sn, prec);
        arb_add(sg, sg, e, prec);
        if (m2) {
            arb_sub(u, l, lam, prec);
            arb_sqr(u, u, prec);
            arb_addmul(s2, u, e, prec);
        }
        if (k == 0)
            arb_set(e0, e), arb_set(l0, l);
        if (k + 1 == g.n)
            arb_set(eN, e), arb_set(lN, l);
    }
    /* the tails (in units of the sum): right of x_N and left of x_0 */
    arb_t R, Lt;
    arb_init(R);
    arb_init(Lt);
    arb_mul_ui(x, h, (ulong)(g.n - 1), prec);
    arb_add_d_(x, x, g.x0, prec); /* x_N */
    end_drift(u, s, a, lN, 1, prec);
    arb_sub(D, x, u, prec);
    arb_set(DR, D);
    geom_tail(R, eN, D, h, prec);
    arb_set_d(x, g.x0);
    end_drift(u, s, a, l0, 0, prec);
    arb_sub(D, u, x, prec);
    geom_tail(Lt, e0, D, h, prec);
    if (m2) {
        /* R2 = sum_j g_N e^{-D j h} (A + m j h)^2 <= g_N (2 A^2 S0 + 2 m^2 h^2 S2), with
         * S0 = 1/(e^k - 1), S2 = e^k (e^k + 1)/(e^k - 1)^3, k = D h; plus the left tail */
        arb_t A, k, ek, t1;
        arb_init(A); arb_init(k); arb_init(ek); arb_init(t1);
        arb_sub(A, lN, lam, prec);
        arb_abs(A, A);
        arb_mul(k, DR, h, prec);
        arb_exp(ek, k, prec);
        arb_sub_ui(t1, ek, 1, prec);          /* e^k - 1 */
        arb_sqr(u, A, prec);
        arb_div(u, u, t1, prec);               /* A^2 S0 */
        arb_pow_ui(v, t1, 3, prec);
        arb_add_ui(k, ek, 1, prec);
        arb_mul(k, k, ek, prec);
        arb_div(v, k, v, prec);                /* S2 */
        arb_mul(v, v, s->m, prec);
        arb_mul(v, v, s->m, prec);
        arb_mul(v, v, h, prec);
        arb_mul(v, v, h, prec);
        arb_add(u, u, v, prec);
        arb_mul_2exp_si(u, u, 1);
        arb_mul(R2, u, eN, prec);
        if (!arb_is_positive(DR))
            arb_pos_inf(R2);
        /* left: |l - lam| <= max(|l(x_0) - lam|, |log(1 - q) - lam|) */
        arb_sub(A, l0, lam, prec);
        arb_abs(A, A);
        arb_sub(k, s->l1q, lam, prec);
        arb_abs(k, k);
        arb_max(A, A, k, prec);
        arb_sqr(A, A, prec);
        arb_addmul(R2, A, Lt, prec);
        arb_clear(A); arb_clear(k); arb_clear(ek); arb_clear(t1);
    }
    arb_add(R, R, Lt, prec);
    /* the strip: d a little inside the design's, theta = m d < pi/2 */
    arb_t d, th, pi2, E0, Et, cf;
    arb_init(d); arb_init(th); arb_init(pi2); arb_init(E0); arb_init(Et); arb_init(cf);
    arb_set_d(d, g.d * (1 - 1e-9));
    arb_mul(th, s->m, d, prec);
    arb_const_pi(pi2, prec);
    arb_mul_2exp_si(pi2, pi2, -1);
    int ok = arb_lt(th, pi2);
    /* cf = d^2/2 + max(0, -a) (-log cos(theta/2)) */
    arb_sqr(cf, d, prec);
    arb_mul_2exp_si(cf, cf, -1);
    if (!arb_is_nonnegative(a)) {
        arb_mul_2exp_si(u, th, -1);
        arb_cos(u, u, prec);
        arb_log(u, u, prec);
        arb_mul(u, u, a, prec); /* a log cos >= 0 for a < 0 */
        if (arb_is_negative(a))
            arb_add(cf, cf, u, prec);
        else /* a straddles 0: the bound with |a| */
            arb_add(cf, cf, u, prec), arb_add_error(cf, u);
    }
    /* e^{2 pi d / h} - 1 */
    arb_const_pi(u, prec);
    arb_mul(u, u, d, prec);
    arb_mul_2exp_si(u, u, 1);
    arb_div(u, u, h, prec);
    arb_expm1(u, u, prec);
    arb_exp(E0, cf, prec);
    arb_mul_2exp_si(E0, E0, 1);
    arb_div(E0, E0, u, prec); /* disc at t = 0 */
    arb_set_arf(v, tu);
    arb_mul(v, v, th, prec);
    arb_add(v, v, cf, prec);
    arb_exp(Et, v, prec);
    arb_mul_2exp_si(Et, Et, 1);
    arb_div(Et, Et, u, prec); /* disc at |t| */
    /* c0 = h / sqrt(2 pi); M(a - 1) <= c0 (sg + tails) / (1 - disc0) */
    arb_const_pi(u, prec);
    arb_mul_2exp_si(u, u, 1);
    arb_rsqrt(u, u, prec);
    arb_mul(u, u, h, prec);
    arb_add(v, sg, R, prec);
    arb_mul(v, v, u, prec);
    arb_sub_ui(cf, E0, 1, prec);
    arb_neg(cf, cf);
    ok = ok && arb_is_positive(cf) && arb_is_finite(R);
    arb_div(v, v, cf, prec);
    if (m2) {
        /* M2 <= (c0 (S2 + R2) + 2 disc0 kappa^2 M0) / (1 - 2 disc0) */
        arb_t kap, w2;
        arb_init(kap);
        arb_init(w2);
        arb_mul_2exp_si(w2, th, -1);
        arb_cos(w2, w2, prec);
        arb_log(w2, w2, prec);
        arb_sub(kap, th, w2, prec);
        arb_sqr(kap, kap, prec);
        arb_mul(kap, kap, v, prec);
        arb_mul(kap, kap, E0, prec);
        arb_mul_2exp_si(kap, kap, 1);
        arb_add(w2, s2, R2, prec);
        arb_mul(w2, w2, u, prec);
        arb_add(w2, w2, kap, prec);
        arb_mul_2exp_si(kap, E0, 1);
        arb_sub_ui(kap, kap, 1, prec);
        arb_neg(kap, kap);
        if (ok && arb_is_positive(kap) && arb_is_finite(w2))
            arb_div(m2, w2, kap, prec);
        else
            arb_pos_inf(m2);
        arb_clear(kap);
        arb_clear(w2);
    }
    arb_mul(v, v, Et, prec);      /* discretisation */
    arb_addmul(v, R, u, prec);    /* + c0 tails */
    acb_set_arb_arb(res, sre, sim);
    acb_mul_arb(res, res, u, prec);
    if (ok) {
        arb_get_abs_ubound_arf(tu, v, prec);
        arb_set_arf(v, tu);
        acb_add_error_arb(res, v);
    } else {
        if (getenv("GA_PLOSS_DEBUG"))
            fprintf(stderr, "step_mgf a %g t %g: no bound (theta %d, disc0 %g, tails %g, D %g)\n", ad,
                    td, arb_lt(th, pi2), arb_up(E0), arb_up(R), arf_get_d(arb_midref(D), ARF_RND_NEAR));
        acb_indeterminate(res);
    }
    arb_clear(d); arb_clear(th); arb_clear(pi2); arb_clear(E0); arb_clear(Et); arb_clear(cf);
    arb_clear(R); arb_clear(Lt);
    arb_clear(x); arb_clear(l); arb_clear(e); arb_clear(sn); arb_clear(cs); arb_clear(sre);
    arb_clear(sim); arb_clear(sg); arb_clear(e0); arb_clear(eN); arb_clear(l0); arb_clear(lN);
    arb_clear(h); arb_clear(u); arb_clear(v); arb_clear(D);
    arb_clear(s2); arb_clear(R2); arb_clear(DR);
    arf_clear(tu);
    return ok ? GA_OK : GA_EDOM;
}

/* M(w) of term j at w = a - 1 + i t (Gaussian steps in closed form) */
static int term_mgf(acb_t res, const cterm *s, const arb_t a, const arb_t t, double lnrel,
                    slong prec)
{
    if (s->d->q < 1)
        return step_mgf(res, NULL, s, a, t, NULL, lnrel, prec);
    acb_t w, u;
    acb_init(w);
    acb_init(u);
    arb_sub_ui(acb_realref(w), a, 1, prec);
    arb_set(acb_imagref(w), t);
    acb_add_ui(u, w, 1, prec);
    acb_mul(u, u, w, prec);
    acb_mul_arb(u, u, s->hm2, prec);
    acb_exp(res, u, prec);
    acb_clear(w);
    acb_clear(u);
    return GA_OK;
}

/* a_j = 1 + Re s_j(z) and the sign of Im s_j for Re z = re */
static int term_side(arb_t a, const cctx *C, size_t j, const arb_t re, slong prec)
{
    int sw = C->t[j].d->add ^ C->dir;
    if (sw)
        arb_neg(a, re); /* s = -1 - z */
    else
        arb_add_ui(a, re, 1, prec);
    return sw;
}

/* e^{K(z)} at z = re + i t */
static int comp_mgf(acb_t res, cctx *C, const arb_t re, const arb_t t, double lnrel, slong prec)
{
    acb_t M;
    arb_t a, tt;
    acb_init(M);
    arb_init(a);
    arb_init(tt);
    acb_one(res);
    int rc = GA_OK;
    for (size_t j = 0; j < C->L->n && rc == GA_OK; j++) {
        if (C->deadline > 0 && ga_expired(C->deadline)) {
            rc = GA_ETIME; /* (an evaluation of many terms can take seconds) */
            break;
        }
        if (term_side(a, C, j, re, prec))
            arb_neg(tt, t);
        else
            arb_set(tt, t);
        rc = term_mgf(M, &C->t[j], a, tt, lnrel, prec);
        acb_pow_ui(M, M, (ulong)C->t[j].d->count, prec);
        acb_mul(res, res, M, prec);
    }
    if (rc != GA_OK)
        acb_indeterminate(res);
    acb_clear(M);
    arb_clear(a);
    arb_clear(tt);
    return rc;
}

/* upper bound of e^{K(s) - s eps - L0} at real s (as a ball) */
static int real_scaled(arb_t res, cctx *C, const arb_t s, slong prec)
{
    acb_t M;
    arb_t z, u;
    acb_init(M);
    arb_init(z);
    arb_init(u);
    int rc = comp_mgf(M, C, s, z, C->lnrel - 6, prec);
    arb_mul(u, s, C->eps, prec);
    arb_add(u, u, C->L0, prec);
    arb_neg(u, u);
    arb_exp(u, u, prec);
    arb_mul(res, acb_realref(M), u, prec);
    acb_clear(M);
    arb_clear(z);
    arb_clear(u);
    return rc;
}

/* Gauss-Legendre nodes and weights on [-1, 1] for size index i, at prec */
static void gl_nodes(cctx *C, int i, slong prec)
{
    if (C->glx[i] && C->gl_prec[i] >= prec)
        return;
    slong n = gl_sizes[i];
    if (!C->glx[i]) {
        C->glx[i] = _arb_vec_init(n);
        C->glw[i] = _arb_vec_init(n);
    }
    for (slong k = 0; k < n; k++)
        arb_hypgeom_legendre_p_ui_root(C->glx[i] + k, C->glw[i] + k, (ulong)n, (ulong)k, prec);
    C->gl_prec[i] = prec;
}

/* F(t) = e^{K(z) - z eps - L0} / (pi z (z + 1)), z = c + i t */
static int integrand(acb_t F, cctx *C, const arb_t t, slong prec)
{
    acb_t z, u;
    acb_init(z);
    acb_init(u);
    int rc = comp_mgf(F, C, C->c, t, C->lnrel, prec);
    acb_set_arb_arb(z, C->c, t);
    acb_mul_arb(u, z, C->eps, prec);
    acb_add_arb(u, u, C->L0, prec);
    acb_neg(u, u);
    acb_exp(u, u, prec);
    acb_mul(F, F, u, prec);
    acb_add_ui(u, z, 1, prec);
    acb_mul(u, u, z, prec);
    acb_div(F, F, u, prec);
    arb_const_pi(acb_realref(u), prec);
    acb_div_arb(F, F, acb_realref(u), prec);
    acb_clear(z);
    acb_clear(u);
    return rc;
}

/* (1/pi) int_from^tmax Re F dt with its rigorous quadrature error; tol: absolute target for
 * [0, tmax] (panels share it by length). One algorithm: the panels, their Bernstein-ellipse
 * bounds and the subdivision share one loop. */
static int gl_range(arb_t res, cctx *C, double cd, double k2, double from, double tm, double tol,
                    slong prec)
{
    /* nu_a keeps the poles off (|Im t| < min(|c|, 1 + c)); nucap keeps e^{K(c +- nu)} within
     * about e^6 of e^{K(c)} (K'' = k2) */
    double ac = fabs(cd), nu_a = 0.5 * fmin(ac, 1 + cd);
    double nucap = fmin(sqrt(12 / fmax(k2, 1e-300)), 50.0), nu0 = fmin(nu_a, nucap);
    arb_t acc, s, u, v, rho, lz, lz1, G, mid, hl, tk, A, B;
    acb_t F;
    arb_init(acc); arb_init(s); arb_init(u); arb_init(v); arb_init(rho); arb_init(lz);
    arb_init(lz1); arb_init(G); arb_init(mid); arb_init(hl); arb_init(tk); arb_init(A);
    arb_init(B);
    acb_init(F);
    int rc = GA_OK;
    double a0 = from;
    long evals = 0;
    while (a0 < tm && rc == GA_OK) {
        if (C->deadline > 0 && ga_monotonic() > C->deadline) {
            rc = GA_ETIME;
            break;
        }
        double len = a0 == 0 ? 3 * nu0 : fmin(fmax(3 * nu0, a0), 3 * nucap), b = 0;
        int last = 0;
        if (a0 + len > tm || tm - (a0 + len) < 0.3 * len)
            len = tm - a0, last = 1;
        int idx = -1;
        double nu = 0;
        for (int tries = 0; tries < 60; tries++) {
            double h2 = len / 2, nu_b = a0 > 0 ? sqrt(a0 * h2 + a0 * a0 / 4) : 0;
            nu = fmin(nucap, fmax(nu_a, nu_b));
            /* The panel is [a0, b] exactly, its centre and half-length balls: the doubles
             * a0 + len/2 and len/2 would leave gaps (or overlaps) of an ulp between panels,
             * about 1e-16 of the integrand, far above the quadrature bound. */
            b = last ? tm : a0 + len;
            arb_set_d(A, a0);
            arb_set_d(B, b);
            arb_sub(hl, B, A, prec);
            arb_mul_2exp_si(hl, hl, -1);
            arb_add(mid, A, B, prec);
            arb_mul_2exp_si(mid, mid, -1);
            /* rho = nu/hl + sqrt(1 + (nu/hl)^2), as a ball: its lower bound is used */
            arb_set_d(u, nu);
            arb_div(u, u, hl, prec);
            arb_sqr(v, u, prec);
            arb_add_ui(v, v, 1, prec);
            arb_sqrt(v, v, prec);
            arb_add(rho, u, v, prec);
            /* lower bounds of |z| and |z + 1| on the ellipse */
            arb_zero(lz);
            arb_zero(lz1);
            if (nu < ac) {
                arb_set_d(lz, ac);
                arb_add_d_(lz, lz, -nu, prec);
            }
            if (nu < 1 + cd) {
                arb_set_d(lz1, 1 + cd);
                arb_add_d_(lz1, lz1, -nu, prec);
            }
            /* tmin = mid - sqrt(hl^2 + nu^2) */
            arb_set_d(v, nu);
            arb_sqr(v, v, prec);
            arb_addmul(v, hl, hl, prec);
            arb_sqrt(v, v, prec);
            arb_sub(u, mid, v, prec);
            if (arb_is_positive(u)) {
                arb_max(lz, lz, u, prec);
                arb_max(lz1, lz1, u, prec);
            }
            if (!arb_is_positive(lz) || !arb_is_positive(lz1)) {
                len /= 2, last = 0;
                continue;
            }
            /* sup |F| <= max over s = c +- nu of e^{K(s) - s eps - L0} / (pi lz lz1) */
            arb_set_d(u, nu);
            arb_sub(v, C->c, u, prec);
            rc = real_scaled(G, C, v, prec);
            arb_add(v, C->c, u, prec);
            if (rc == GA_OK)
                rc = real_scaled(s, C, v, prec);
            if (rc != GA_OK)
                break;
            arb_max(G, G, s, prec);
            /* K'' may grow fast away from c (heavy-tailed losses): keep sup |F| within e^10 of
             * its value at t = 0 (about 1 by the choice of L0) by a narrower ellipse */
            arb_log(u, G, prec);
            if (!(arb_up(u) <= 10) && nu > 1e-6 * nu0) {
                nucap = fmin(nucap, nu) / 2;
                nu0 = fmin(nu0, nucap);
                if (3 * nucap < len)
                    len = 3 * nucap, last = 0;
                continue;
            }
            arb_mul(u, lz, lz1, prec);
            arb_const_pi(v, prec);
            arb_mul(u, u, v, prec);
            arb_div(G, G, u, prec);
            /* error factor: hl 64 G / (15 (1 - rho^-2)) rho^{-2n} */
            arb_sqr(u, rho, prec);
            arb_inv(v, u, prec);
            arb_sub_ui(v, v, 1, prec);
            arb_neg(v, v);
            arb_mul_ui(s, G, 64, prec);
            arb_div_ui(s, s, 15, prec);
            arb_div(s, s, v, prec);
            arb_mul(s, s, hl, prec);
            double lr = log(fmax(arf_get_d(arb_midref(rho), ARF_RND_DOWN), 1 + 1e-12));
            arb_log(u, s, prec);
            double need = (arb_up(u) - log(tol * len / tm)) / (2 * lr);
            for (int i = 0; i < NGL; i++)
                if (gl_sizes[i] >= need) {
                    idx = i;
                    break;
                }
            if (idx >= 0)
                break;
            len /= 2, last = 0;
        }
        if (rc == GA_OK && idx < 0)
            rc = GA_EMAXITER;
        if (rc != GA_OK) {
            if (getenv("GA_PLOSS_DEBUG"))
                fprintf(stderr, "panel at %g, length %g, nu %g: status %d\n", a0, len, nu, rc);
            break;
        }
        /* the bound at the chosen n: s rho^{-2n} (rho at its lower bound) */
        arf_t lo;
        arf_init(lo);
        arb_get_lbound_arf(lo, rho, prec);
        arb_set_arf(u, lo);
        arf_clear(lo);
        arb_pow_ui(u, u, (ulong)(2 * gl_sizes[idx]), prec);
        arb_div(s, s, u, prec);
        evals += gl_sizes[idx];
        if (evals > CERT_EVAL_CAP) {
            rc = GA_EMAXITER;
            break;
        }
        gl_nodes(C, idx, prec);
        arb_zero(v);
        for (slong k = 0; k < gl_sizes[idx] && rc == GA_OK; k++) {
            arb_mul(tk, hl, C->glx[idx] + k, prec);
            arb_add(tk, tk, mid, prec);
            rc = integrand(F, C, tk, prec);
            arb_addmul(v, C->glw[idx] + k, acb_realref(F), prec);
        }
        arb_mul(v, v, hl, prec);
        arb_get_abs_ubound_arf(arb_midref(u), s, prec);
        mag_zero(arb_radref(u));
        arb_add_error(v, u);
        arb_add(acc, acc, v, prec);
        if (getenv("GA_PLOSS_DEBUG"))
            fprintf(stderr, "panel [%g, %g] nu %g n %ld err %g\n", a0, b, nu,
                    (long)gl_sizes[idx], arb_up(s));
        a0 = b;
    }
    arb_set(res, acc);
    arb_clear(acc); arb_clear(s); arb_clear(u); arb_clear(v); arb_clear(rho); arb_clear(lz);
    arb_clear(lz1); arb_clear(G); arb_clear(mid); arb_clear(hl); arb_clear(tk); arb_clear(A);
    arb_clear(B);
    acb_clear(F);
    return rc;
}

/* The large-|t| bounds of one subsampled step's |M(a - 1 + i t)|, g = phi e^{a l} and h = g / l'
 * (log h = -x^2/2 - log sqrt(2 pi) + (a + 1) l - log m - log q - m x + m^2/2):
 * (b) over R, |M| <= TV(h) / |t| <= 4 sup h / |t| (logTV);
 * (b') split at x*: the part left of x* is at most its mass, int_{-inf}^{x*} g <= Phi(x*)
 *      sup_{x <= x*} e^{a l} (e^{a l(x*)} for a >= 0, (1 - q)^a for a < 0: l increases from
 *      log(1 - q)), and the part right of it, integrated by parts in u = l(x), at most
 *      (h(x*) + TV_{[x*, inf)} h) / |t| <= 5 sup_{x >= x*} h / |t| (h has at most two local
 *      maxima and tends to 0). So |M| <= A_i + S_i / |t| for every candidate x*_i, a bound
 *      that holds for all larger |t| too: where the step's loss is nearly constant over much of
 *      the mass (a small rate at a large shift), TV(h) / |t| only falls below M(a - 1) at
 *      very large |t|, while the split bound does so as soon as the mass left of x* is
 *      noticeably below M(a - 1).
 * h is monotone outside [xl, xr] = [(min(a + 1, 0) - 1) m, (max(a + 1, 0) - 1) m]: cells of
 * width 0.01 cover [xl, xr] as balls, their suffix maxima give sup_{x >= x*} h inside, h(x*)
 * itself beyond xr, the largest cell for x* <= xl. Every stored number is an upper bound
 * rounded up to a double. */
#define SPLIT_CANDS 160
typedef struct {
    double logTV;                /* log (4 sup h) */
    int n;                       /* candidates */
    double logA[SPLIT_CANDS];    /* log (Phi(x*) sup_{x <= x*} e^{a l}) */
    double logS[SPLIT_CANDS];    /* log (5 sup_{x >= x*} h) */
} split_t;

/* log h at the ball x */
static void log_h(arb_t v, const cterm *s, const arb_t ap1, const arb_t x, slong prec)
{
    arb_t l, u;
    arb_init(l);
    arb_init(u);
    closs(l, s, x, prec);
    arb_mul(v, ap1, l, prec);
    arb_sqr(u, x, prec);
    arb_mul_2exp_si(u, u, -1);
    arb_sub(v, v, u, prec);
    arb_submul(v, s->m, x, prec);
    arb_add(v, v, s->hm2, prec);
    arb_sub(v, v, s->lq, prec);
    arb_log(u, s->m, prec);
    arb_sub(v, v, u, prec);
    arb_const_pi(u, prec);
    arb_mul_2exp_si(u, u, 1);
    arb_log(u, u, prec);
    arb_mul_2exp_si(u, u, -1);
    arb_sub(v, v, u, prec);
    arb_clear(l);
    arb_clear(u);
}

static int split_prepare(split_t *sp, const cterm *s, const arb_t a, slong prec)
{
    double ad = arf_get_d(arb_midref(a), ARF_RND_NEAR) + 1, md = s->d->m;
    double xl = (fmin(ad, 0) - 1) * md - 0.01, xr = (fmax(ad, 0) - 1) * md + 0.01;
    double ra = mag_get_d(arb_radref(a)) * md + 1e-9; /* (widened for the ball a) */
    xl -= ra, xr += ra;
    slong nc = (slong)fmin(20000, ceil((xr - xl) / 0.01));
    double w = (xr - xl) / (double)nc;
    double *cell = malloc((size_t)nc * sizeof *cell);
    if (!cell)
        return GA_ENOMEM;
    arb_t x, v, u, ap1;
    arb_init(x); arb_init(v); arb_init(u); arb_init(ap1);
    arb_add_ui(ap1, a, 1, prec);
    for (slong k = 0; k < nc; k++) { /* the cell [xl + k w, xl + (k + 1) w] as a ball */
        arf_set_d(arb_midref(x), xl + ((double)k + 0.5) * w);
        mag_set_d(arb_radref(x), 0.5 * w * (1 + 1e-12));
        log_h(v, s, ap1, x, prec);
        cell[k] = arb_up(v);
    }
    for (slong k = nc - 1; k > 0; k--) /* suffix maxima */
        cell[k - 1] = fmax(cell[k - 1], cell[k]);
    double log4 = log(4.0) * (1 + 1e-15), log5 = log(5.0) * (1 + 1e-15);
    sp->logTV = nextafter(cell[0] + log4, INFINITY); /* (the sums rounded up) */
    /* the candidates: [xl - 4, xr + 6], at most SPLIT_CANDS of them */
    double c0 = xl - 4, cw = (xr + 6 - c0) / (SPLIT_CANDS - 1);
    sp->n = SPLIT_CANDS;
    for (int i = 0; i < SPLIT_CANDS; i++) {
        double xs = c0 + i * cw, ls;
        arb_set_d(x, xs);
        if (xs <= xl)
            ls = cell[0];
        else if (xs >= xr) {
            log_h(v, s, ap1, x, prec);
            ls = arb_up(v);
        } else {
            slong k = (slong)floor((xs - xl) / w) - 1; /* (the cell below: xs on a cell's
                                                          end, rounded, stays covered) */
            ls = cell[k < 0 ? 0 : k < nc ? k : nc - 1];
        }
        sp->logS[i] = nextafter(ls + log5, INFINITY);
        /* log Phi(x*) */
        ga_arb_normal_tails(v, u, x, NULL, prec);
        arb_log(v, v, prec);
        /* plus sup_{x <= x*} a l: a l(x*) (a >= 0), a log(1 - q) (a < 0), the larger */
        double best = -INFINITY;
        if (!arb_is_negative(a)) {
            closs(u, s, x, prec);
            arb_mul(u, u, a, prec);
            best = arb_up(u);
        }
        if (!arb_is_nonnegative(a)) {
            arb_mul(u, a, s->l1q, prec);
            best = fmax(best, arb_up(u));
        }
        sp->logA[i] = nextafter(arb_up(v) + best, INFINITY); /* (not finite: not used) */
    }
    arb_clear(x); arb_clear(v); arb_clear(u); arb_clear(ap1);
    free(cell);
    return GA_OK;
}

/* log of the split bound at |t| (valid for every larger |t|): min_i A_i + S_i / t, an upper
 * bound as a ball */
static void split_log(arb_t res, const split_t *sp, const arb_t logt, slong prec)
{
    arb_t u, v;
    arb_init(u);
    arb_init(v);
    arb_pos_inf(res);
    for (int i = 0; i < sp->n; i++) {
        if (!isfinite(sp->logA[i]) || !isfinite(sp->logS[i]))
            continue;
        arb_set_d(u, sp->logS[i]);
        arb_sub(u, u, logt, prec);
        arb_exp(u, u, prec);
        arb_set_d(v, sp->logA[i]);
        arb_exp(v, v, prec);
        arb_add(u, u, v, prec);
        arb_log(u, u, prec);
        if (arb_is_finite(u) && (!arb_is_finite(res) || arb_up(u) < arb_up(res)))
            arb_set(res, u);
    }
    arb_clear(u);
    arb_clear(v);
}

/* log |M(a - 1 + i t)| of a Gaussian step (q = 1), exactly: m^2 ((a - 1) a - t^2) / 2, which
 * decreases in |t| */
static void gauss_log_abs(arb_t res, const cterm *s, const arb_t a, const arb_t t, slong prec)
{
    arb_sub_ui(res, a, 1, prec);
    arb_mul(res, res, a, prec);
    arb_submul(res, t, t, prec);
    arb_mul(res, res, s->hm2, prec);
}

/* log B for the closed-form remainder from t: W + sum_j T_j min(log TV_j - log t, log M0_j)
 * (Gaussian steps: their value at t, decreasing) - log t - log(P + 1), P the steps whose TV
 * bound is used: int_t^inf prod (TV/s)^{T} s^-2 ds = prod TV^T t^{-P-1} / (P + 1) */
static void remainder_log(arb_t lb, const cctx *C, arb_srcptr aj, arb_srcptr logTV,
                          arb_srcptr logM0, arb_srcptr logR, const arb_t W, const arb_t t,
                          slong prec)
{
    arb_t u, v;
    arb_init(u);
    arb_init(v);
    double P = 0;
    arb_set(lb, W);
    arb_log(u, t, prec);
    for (size_t j = 0; j < C->L->n; j++) {
        const cterm *s = &C->t[j];
        if (s->d->q == 1) {
            gauss_log_abs(v, s, aj + j, t, prec);
        } else {
            arb_t b;
            arb_init(b);
            arb_min(b, logM0 + j, logR + j, prec);
            arb_sub(v, logTV + j, u, prec);
            if (arb_lt(v, b))
                P += s->d->count;
            else
                arb_set(v, b);
            arb_clear(b);
        }
        arb_addmul_ui(lb, v, (ulong)s->d->count, prec);
    }
    arb_sub(lb, lb, u, prec);
    arb_set_d(v, P + 1);
    arb_log(v, v, prec);
    arb_sub(lb, lb, v, prec);
    arb_clear(u);
    arb_clear(v);
}

/* |M_j(a_j - 1 +- i t)| for the subsampled terms, upper bounds in out */
static int abs_at(arb_ptr out, cctx *C, arb_srcptr aj, const int *sw, double t, slong prec)
{
    arb_t tt;
    acb_t M;
    arb_init(tt);
    acb_init(M);
    int rc = GA_OK;
    for (size_t j = 0; j < C->L->n && rc == GA_OK; j++) {
        if (C->t[j].d->q == 1)
            continue;
        arb_set_d(tt, sw[j] ? -t : t);
        rc = term_mgf(M, &C->t[j], aj + j, tt, 12, prec);
        /* the upper bound as a point (never 0: a tiny floor keeps its log finite) */
        arf_t ub;
        arf_init(ub);
        acb_get_abs_ubound_arf(ub, M, prec);
        arb_set_arf(out + j, ub);
        arf_clear(ub);
        if (!arb_is_positive(out + j))
            arb_set_d(out + j, 1e-300);
    }
    arb_clear(tt);
    acb_clear(M);
    return rc;
}

/* Upper bound (res, a ball whose upper end counts) of int_tm^inf |F| dt; tol: the target.
 * Between grid points t_k < t_{k+1} = t_k + D the centred transform M~(tau) = e^{-i tau
 * lam} M(a - 1 + i tau) (|M~| = |M|) is its chord plus at most D^2/8 sup|M~''|, and
 * |M~''| <= M2 = int g (l - lam)^2, so |M| <= max(|M(t_k)|, |M(t_{k+1})|) + D^2 M2 / 8 there;
 * also |M| <= TV/t_k, |M| <= M(a - 1) and the split bound at t_k (split_prepare). One
 * bound, kept whole. */
static int tail_bound(arb_t res, cctx *C, double tm, double tol, slong prec)
{
    size_t n = C->L->n;
    arb_ptr logTV = _arb_vec_init((slong)n), logM0 = _arb_vec_init((slong)n);
    arb_ptr M0 = _arb_vec_init((slong)n), M2 = _arb_vec_init((slong)n);
    arb_ptr cur = _arb_vec_init((slong)n), nxt = _arb_vec_init((slong)n);
    arb_ptr aj = _arb_vec_init((slong)n);
    int *sw = calloc(n, sizeof *sw);
    split_t *spl = calloc(n, sizeof *spl);
    arb_ptr logR = _arb_vec_init((slong)n); /* the split bounds at t_k */
    arb_t W, sum, u, v, t, lb, tt, lam;
    acb_t M;
    arb_init(W); arb_init(sum); arb_init(u); arb_init(v); arb_init(t); arb_init(lb);
    arb_init(tt); arb_init(lam);
    acb_init(M);
    int rc = sw && spl ? GA_OK : GA_ENOMEM, nq = 0;
    /* W = log(e^{-c eps - L0} / pi) */
    arb_mul(W, C->c, C->eps, prec);
    arb_add(W, W, C->L0, prec);
    arb_const_pi(u, prec);
    arb_log(u, u, prec);
    arb_add(W, W, u, prec);
    arb_neg(W, W);
    for (size_t j = 0; j < n && rc == GA_OK; j++) {
        const cterm *s = &C->t[j];
        sw[j] = term_side(aj + j, C, j, C->c, prec);
        arb_zero(tt);
        if (s->d->q == 1) {
            rc = term_mgf(M, s, aj + j, tt, 30, prec);
            arb_log(logM0 + j, acb_realref(M), prec);
            continue;
        }
        nq++;
        double ad = arf_get_d(arb_midref(aj + j), ARF_RND_NEAR);
        arb_set_d(lam, ga_ploss_step_mean(s->d, ad - 1));
        rc = step_mgf(M, M2 + j, s, aj + j, tt, lam, 30, prec);
        arb_set(M0 + j, acb_realref(M));
        arb_log(logM0 + j, M0 + j, prec);
        if (rc == GA_OK)
            rc = split_prepare(&spl[j], s, aj + j, prec);
        arb_set_d(logTV + j, spl[j].logTV);
    }
    double target = log(tol * tm / 2), tcur = tm;
    if (rc == GA_OK)
        rc = abs_at(cur, C, aj, sw, tcur, prec);
    int done = 0;
    for (int it = 0; it < TAIL_STEPS && rc == GA_OK && !done; it++) {
        if (C->deadline > 0 && ga_monotonic() > C->deadline) {
            rc = GA_ETIME;
            break;
        }
        arb_set_d(t, tcur);
        arb_log(u, t, prec);
        for (size_t j = 0; j < n; j++)
            if (C->t[j].d->q < 1)
                split_log(logR + j, &spl[j], u, prec);
        remainder_log(lb, C, aj, logTV, logM0, logR, W, t, prec);
        /* the slack of the budget at t_k */
        arb_set(v, W);
        for (size_t j = 0; j < n; j++) {
            const cterm *s = &C->t[j];
            if (s->d->q == 1)
                gauss_log_abs(u, s, aj + j, t, prec);
            else
                arb_log(u, cur + j, prec);
            arb_addmul_ui(v, u, (ulong)s->d->count, prec);
        }
        double slack = target - arb_up(v);
        if (arb_up(lb) <= log(tol / 2) || it == TAIL_STEPS - 1 || !(slack > 0) || nq == 0) {
            arb_exp(lb, lb, prec);
            arb_add(sum, sum, lb, prec);
            done = 1;
            break;
        }
        /* the step: each term may grow by a share of the slack through D^2 M2 / 8 */
        double D = INFINITY;
        for (size_t j = 0; j < n; j++) {
            if (C->t[j].d->q == 1)
                continue;
            double cj = arf_get_d(arb_midref(cur + j), ARF_RND_NEAR);
            /* up to half way to the level that would use this term's share of the slack */
            double gj = 0.5 * expm1(fmin(slack / (nq * C->t[j].d->count), 700));
            D = fmin(D, sqrt(8 * cj * gj / arb_up(M2 + j)));
        }
        if (!(D > 0) || !isfinite(D))
            D = tcur;
        for (int h = 0; h < 12; h++) {
            rc = abs_at(nxt, C, aj, sw, tcur + D, prec);
            if (rc != GA_OK)
                break;
            /* the cell is [t_k, t_{k+1}] with t_{k+1} the double tcur + D: its length Dk
             * (exact in a ball) bounds the chord term, not the rounded D */
            arb_t Dk;
            arb_init(Dk);
            arb_set_d(tt, tcur + D);
            arb_sub(Dk, tt, t, prec);
            arb_set(lb, W);
            arb_log(u, t, prec);
            for (size_t j = 0; j < n; j++) {
                const cterm *s = &C->t[j];
                if (s->d->q == 1) {
                    gauss_log_abs(v, s, aj + j, t, prec);
                } else {
                    arb_max(v, cur + j, nxt + j, prec);
                    arb_sqr(tt, Dk, prec);
                    arb_mul_2exp_si(tt, tt, -3);
                    arb_addmul(v, tt, M2 + j, prec);
                    arb_min(v, v, M0 + j, prec);
                    arb_log(v, v, prec);
                    arb_min(v, v, logR + j, prec);
                    arb_sub(tt, logTV + j, u, prec);
                    arb_min(v, v, tt, prec);
                }
                arb_addmul_ui(lb, v, (ulong)s->d->count, prec);
            }
            if (arb_up(lb) <= target || h == 11) {
                /* contribution: e^{lb} (1/t_k - 1/t_{k+1}) = e^{lb} Dk / (t_k t_{k+1}) */
                arb_exp(lb, lb, prec);
                arb_mul(lb, lb, Dk, prec);
                arb_div(lb, lb, t, prec);
                arb_set_d(tt, tcur + D);
                arb_div(lb, lb, tt, prec);
                arb_add(sum, sum, lb, prec);
                arb_clear(Dk);
                break;
            }
            arb_clear(Dk);
            D /= 2;
        }
        if (getenv("GA_PLOSS_DEBUG"))
            fprintf(stderr, "tail step t %g D %g slack %g\n", tcur, D, slack);
        tcur += D;
        _arb_vec_set(cur, nxt, (slong)n);
    }
    if (rc == GA_OK && !done)
        rc = GA_EMAXITER;
    arb_set(res, sum);
    if (rc != GA_OK) /* no bound: nothing is known about the rest of the integral */
        arb_pos_inf(res);
    if (getenv("GA_PLOSS_DEBUG"))
        fprintf(stderr, "tail from %g to %g: %g (tol %g) rc %d\n", tm, tcur, arb_up(sum), tol, rc);
    _arb_vec_clear(logTV, (slong)n);
    _arb_vec_clear(logR, (slong)n);
    free(spl);
    _arb_vec_clear(logM0, (slong)n);
    _arb_vec_clear(M0, (slong)n);
    _arb_vec_clear(M2, (slong)n);
    _arb_vec_clear(cur, (slong)n);
    _arb_vec_clear(nxt, (slong)n);
    _arb_vec_clear(aj, (slong)n);
    free(sw);
    arb_clear(W); arb_clear(sum); arb_clear(u); arb_clear(v); arb_clear(t); arb_clear(lb);
    arb_clear(tt); arb_clear(lam);
    acb_clear(M);
    return rc;
}

/* the terms in ball arithmetic (q, m exact balls; log q, log(1 - q), m^2/2) */
static int cctx_init(cctx *C, const ga_ploss *L, arb_srcptr q, arb_srcptr m, int dir,
                     size_t *nodes, slong prec)
{
    memset(C, 0, sizeof *C);
    C->L = L;
    C->dir = dir;
    C->prec = prec;
    C->lnrel = 36;
    C->t = calloc(L->n, sizeof *C->t);
    if (!C->t)
        return GA_ENOMEM;
    for (size_t j = 0; j < L->n; j++) {
        cterm *s = &C->t[j];
        s->d = &L->t[j];
        s->nodes = nodes;
        arb_init(s->q); arb_init(s->m); arb_init(s->l1q); arb_init(s->lq); arb_init(s->hm2);
        arb_set(s->q, q + j);
        arb_set(s->m, m + j);
        arb_sqr(s->hm2, s->m, prec);
        arb_mul_2exp_si(s->hm2, s->hm2, -1);
        arb_log(s->lq, s->q, prec);
        if (L->t[j].q < 1) {
            arb_sub_ui(s->l1q, s->q, 1, prec);
            arb_neg(s->l1q, s->l1q);
            arb_log(s->l1q, s->l1q, prec);
        }
    }
    arb_init(C->c);
    arb_init(C->eps);
    arb_init(C->L0);
    return GA_OK;
}

static void cctx_clear(cctx *C)
{
    for (size_t j = 0; j < C->L->n; j++) {
        cterm *s = &C->t[j];
        arb_clear(s->q); arb_clear(s->m); arb_clear(s->l1q); arb_clear(s->lq); arb_clear(s->hm2);
    }
    free(C->t);
    for (int i = 0; i < NGL; i++)
        if (C->glx[i]) {
            _arb_vec_clear(C->glx[i], gl_sizes[i]);
            _arb_vec_clear(C->glw[i], gl_sizes[i]);
        }
    arb_clear(C->c);
    arb_clear(C->eps);
    arb_clear(C->L0);
}

int ga_ploss_delta_comp_arb(arb_t res, const ga_ploss *L, arb_srcptr q, arb_srcptr m, int dir,
                            const arb_t eps, double est, double reltol, double giveup,
                            slong prec, double deadline)
{
    double epsd = arf_get_d(arb_midref(eps), ARF_RND_NEAR);
    size_t n = L->n;
    arb_zero_pm_one(res);
    /* exactly 0 from the loss's supremum on (every step a remove step seen from Y) */
    arb_t sup, u;
    arb_init(sup);
    arb_init(u);
    int bounded = 1;
    for (size_t j = 0; j < n && bounded; j++) {
        if (!(L->t[j].add ^ dir) || L->t[j].q == 1) {
            bounded = 0;
            break;
        }
        arb_sub_ui(u, q + j, 1, prec);
        arb_neg(u, u);
        arb_log(u, u, prec);
        arb_submul_ui(sup, u, (ulong)L->t[j].count, prec);
    }
    int ge = bounded && arb_ge(eps, sup);
    arb_clear(sup);
    arb_clear(u);
    if (ge) {
        arb_zero(res);
        return GA_OK;
    }
    double cd, tm, k2, L0;
    int prc = ga_ploss_plan(&cd, &tm, &k2, &L0, L, dir, epsd);
    if (getenv("GA_PLOSS_DEBUG"))
        fprintf(stderr, "cert dir %d eps %g: plan %d c %g tmax %g k2 %g L0 %g est %g\n", dir, epsd,
                prc, cd, tm, k2, L0, est);
    /* no plan, or one whose range is beyond what the certified evaluation affords (the
     * trapezoid nodes grow like t, the panels like tmax): no enclosure */
    if (prc != GA_OK || !isfinite(cd) || !isfinite(L0) || !isfinite(tm) || tm > GA_PLOSS_CERT_TMAX)
        return GA_EMAXITER;
    cctx C;
    size_t nodes = 0;
    if (cctx_init(&C, L, q, m, dir, &nodes, prec))
        return GA_ENOMEM;
    C.deadline = deadline;
    arb_set_d(C.c, cd);
    arb_set(C.eps, eps);
    arb_set_d(C.L0, L0);
    /* the absolute target on the integral: reltol of the estimate, scaled by e^{-L0} */
    double tol = reltol * fmax(fabs(est), 1e-300) * exp(-L0), steps = 0;
    for (size_t j = 0; j < n; j++)
        steps += L->t[j].count;
    /* e^K carries sum_j T_j times each M_j's relative error */
    C.lnrel = fmax(36, log(steps) - log(reltol) + 6);
    if (!(tol > 0) || !isfinite(tol))
        tol = reltol * DBL_MIN;
    arb_t Iv, Tb;
    arb_init(Iv);
    arb_init(Tb);
    /* The range: the plan's (chosen for the estimate), doubled while the tail's bound beyond
     * it misses its target. The tails come first (the panels cost far more): a tail whose
     * bound stays above giveup times the estimate ends the evaluation before any panel. */
    double tr = tm;
    int rc = tail_bound(Tb, &C, tr, tol / 2, prec); /* +inf when it fails */
    while (rc == GA_OK && !(arb_up(Tb) <= tol / 2) && 2 * tr <= GA_PLOSS_CERT_TMAX) {
        tr *= 2;
        rc = tail_bound(Tb, &C, tr, tol / 2, prec);
    }
    if (rc == GA_OK && giveup < INFINITY && !(arb_up(Tb) <= giveup * fabs(est) * exp(-L0)))
        rc = GA_ETOL;
    /* [0, tm], then [tm, 2 tm], ... up to the range */
    if (rc == GA_OK)
        rc = gl_range(Iv, &C, cd, k2, 0, tm, tol / 2, prec);
    for (; rc == GA_OK && tm < tr; tm *= 2) {
        arb_t J;
        arb_init(J);
        rc = gl_range(J, &C, cd, k2, tm, 2 * tm, tol / 4, prec);
        arb_add(Iv, Iv, J, prec);
        arb_clear(J);
    }
    if (rc == GA_OK) {
        /* Iv + [-Tb, Tb], times e^{L0}, plus 1 for c < 0 */
        arf_t tu;
        arf_init(tu);
        arb_get_abs_ubound_arf(tu, Tb, prec);
        arb_set_arf(Tb, tu);
        arf_clear(tu);
        arb_add_error(Iv, Tb);
        arb_exp(Tb, C.L0, prec);
        arb_mul(res, Iv, Tb, prec);
        if (cd < 0)
            arb_add_ui(res, res, 1, prec);
        if (!arb_is_finite(res))
            arb_zero_pm_one(res);
    } else {
        arb_zero_pm_one(res);
    }
    arb_clear(Iv);
    arb_clear(Tb);
    cctx_clear(&C);
    return rc;
}

int ga_ploss_renyi_arb(arb_t res, const ga_ploss *L, arb_srcptr q, arb_srcptr m, int dir,
                       const arb_t alpha, double lnrel, slong prec)
{
    cctx C;
    size_t nodes = 0;
    if (cctx_init(&C, L, q, m, 0, &nodes, prec))
        return GA_ENOMEM;
    /* D_alpha(X||Y) = K_XY(alpha - 1)/(alpha - 1), D_alpha(Y||X) = K_XY(-alpha)/(alpha - 1) */
    arb_t re, z, a1;
    acb_t M;
    arb_init(re);
    arb_init(z);
    arb_init(a1);
    acb_init(M);
    arb_sub_ui(a1, alpha, 1, prec);
    if (dir)
        arb_neg(re, alpha);
    else
        arb_set(re, a1);
    int rc = comp_mgf(M, &C, re, z, lnrel, prec);
    if (rc == GA_OK && arb_is_positive(acb_realref(M))) {
        arb_log(res, acb_realref(M), prec);
        arb_div(res, res, a1, prec);
    } else {
        arb_indeterminate(res);
        if (rc == GA_OK)
            rc = GA_EPREC;
    }
    arb_clear(re);
    arb_clear(z);
    arb_clear(a1);
    acb_clear(M);
    cctx_clear(&C);
    return rc;
}

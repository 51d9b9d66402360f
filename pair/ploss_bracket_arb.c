/*
 * ploss_bracket_arb.c - the certified inputs of the bracket of few subsampled Gaussian steps
 * (pair/ploss_bracket.c): each cell's mass and tilt in ball arithmetic, exponential sequences
 * rounded to doubles with proven relative errors, and exact comparisons of grid points.
 *
 * The bracket's arithmetic after these inputs is in double precision with its rounding
 * bounded (the FFT by Higham's theorem with Arb's twiddle factors, sums by gamma_n): what
 * must come from here are the numbers whose double evaluation (erfc, exp, log from libm)
 * has no proven error. A cell's mass is a difference of the step's loss tails at its ends,
 * F(l) = P[V <= l], with V = l(x), x from (1 - q) N(0, 1) + q N(m, 1) (sw 0), or V = -l(x),
 * x from N(0, 1) (sw 1), and x(v) = (log(e^v - 1 + q) - log q + m^2/2)/m the inverse of
 * l (pair/ploss_step.c); the tails come from Arb's erfc, each from the smaller side.
 * Doubles handed back are ball midpoints (clipped at 0 for masses) with an error bound that
 * the bracket adds to its allowance, and, for the cells' offsets (which enter the bracket's
 * second-order correction), lower ends of balls below the true values (cell_offsets).
 */
#include "numerics/arb.h"
#include "pair/loss.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define SEQ_BLOCK 512 /* an exponential sequence: an anchor per block, a table within */

typedef struct {
    const arb_struct *q, *m;
    arb_t lq, h2, rs2, omq, rs2pi; /* log q, m^2/2, 1/sqrt 2, 1 - q, 1/sqrt(2 pi) */
    int sw;
    slong prec;
} tails_t;

static void tails_init(tails_t *t, const arb_t q, const arb_t m, int sw, slong prec)
{
    t->q = q;
    t->m = m;
    t->sw = sw;
    t->prec = prec;
    arb_init(t->lq);
    arb_init(t->h2);
    arb_init(t->rs2);
    arb_init(t->omq);
    arb_init(t->rs2pi);
    arb_log(t->lq, q, prec);
    arb_mul(t->h2, m, m, prec);
    arb_mul_2exp_si(t->h2, t->h2, -1);
    arb_sqrt_ui(t->rs2, 2, prec);
    arb_ui_div(t->rs2, 1, t->rs2, prec);
    arb_sub_ui(t->omq, q, 1, prec);
    arb_neg(t->omq, t->omq);
    arb_const_pi(t->rs2pi, prec);
    arb_mul_2exp_si(t->rs2pi, t->rs2pi, 1);
    arb_rsqrt(t->rs2pi, t->rs2pi, prec);
}

static void tails_clear(tails_t *t)
{
    arb_clear(t->lq);
    arb_clear(t->h2);
    arb_clear(t->rs2);
    arb_clear(t->omq);
    arb_clear(t->rs2pi);
}

/* A point x and the step's normal components there: Phi, Qbar and the density phi at x (P0,
 * Q0, d0) and at x - m (P1, Q1, d1: the mixture's second component, sw 0) */
typedef struct {
    arb_t x, P0, Q0, d0, P1, Q1, d1;
} pt_t;

static void pt_init(pt_t *p)
{
    arb_init(p->x), arb_init(p->P0), arb_init(p->Q0), arb_init(p->d0);
    arb_init(p->P1), arb_init(p->Q1), arb_init(p->d1);
}

static void pt_clear(pt_t *p)
{
    arb_clear(p->x), arb_clear(p->P0), arb_clear(p->Q0), arb_clear(p->d0);
    arb_clear(p->P1), arb_clear(p->Q1), arb_clear(p->d1);
}

/* The step's loss law at one grid point v: in = 1 where x = x(v) (sw 0) or x(-v) (sw 1) is
 * finite, with the point p at x and the loss's slope l'(x) (lp); F = P[V <= v] and G = P[V >
 * v] */
typedef struct {
    int in;
    pt_t p;
    arb_t lp, F, G;
    arb_t FY, GY; /* the same tails under the other law, Y (V is log dX/dY) */
} bnd_t;

static void bnd_init(bnd_t *b)
{
    pt_init(&b->p);
    arb_init(b->lp), arb_init(b->F), arb_init(b->G), arb_init(b->FY), arb_init(b->GY);
}

static void bnd_clear(bnd_t *b)
{
    pt_clear(&b->p);
    arb_clear(b->lp), arb_clear(b->F), arb_clear(b->G), arb_clear(b->FY), arb_clear(b->GY);
}

static void phi(arb_t r, const arb_t x, const tails_t *t)
{
    arb_mul(r, x, x, t->prec);
    arb_mul_2exp_si(r, r, -1);
    arb_neg(r, r);
    arb_exp(r, r, t->prec);
    arb_mul(r, r, t->rs2pi, t->prec);
}

/* GA_OK, or GA_EPREC where the ball cannot tell whether v is inside the loss's range */
static int bnd_at(bnd_t *b, const tails_t *t, const arb_t v)
{
    slong prec = t->prec;
    arb_t e;
    arb_init(e);
    int rc = GA_OK;
    if (t->sw)
        arb_neg(e, v); /* V <= v iff l(x) >= -v */
    else
        arb_set(e, v);
    arb_expm1(e, e, prec);
    arb_add(e, e, t->q, prec); /* e^v - 1 + q: positive inside the range */
    b->in = arb_is_positive(e);
    if (b->in) {
        /* l'(x) = m (1 - (1 - q) e^{-l(x)}) = m e / (e + 1 - q), with e^{l(x)} = e + 1 - q */
        arb_add(b->lp, e, t->omq, prec);
        arb_div(b->lp, e, b->lp, prec);
        arb_mul(b->lp, b->lp, t->m, prec);
        arb_log(b->p.x, e, prec);
        arb_sub(b->p.x, b->p.x, t->lq, prec);
        arb_add(b->p.x, b->p.x, t->h2, prec);
        arb_div(b->p.x, b->p.x, t->m, prec);
        ga_arb_normal_tails(b->p.P0, b->p.Q0, b->p.x, t->rs2, prec);
        phi(b->p.d0, b->p.x, t);
        arb_sub(e, b->p.x, t->m, prec);
        ga_arb_normal_tails(b->p.P1, b->p.Q1, e, t->rs2, prec);
        phi(b->p.d1, e, t);
        /* the mixture's tails (1 - q) Phi(x) + q Phi(x - m) and the same with Qbar: F and G
         * for sw 0 (X the mixture, x increasing in V), Y's for sw 1 (V <= v iff x >= x(-v)) */
        arb_t *mF = !t->sw ? &b->F : &b->GY, *mG = !t->sw ? &b->G : &b->FY;
        arb_mul(*mF, b->p.P0, t->omq, prec);
        arb_addmul(*mF, b->p.P1, t->q, prec);
        arb_mul(*mG, b->p.Q0, t->omq, prec);
        arb_addmul(*mG, b->p.Q1, t->q, prec);
        if (!t->sw) { /* Y = N(0, 1) */
            arb_set(b->FY, b->p.P0);
            arb_set(b->GY, b->p.Q0);
        } else { /* X = N(0, 1): F = P[x >= x(-v)] */
            arb_set(b->F, b->p.Q0);
            arb_set(b->G, b->p.P0);
        }
    } else if (arb_is_nonpositive(e)) { /* v beyond the range: all mass on one side */
        arb_set_ui(b->F, t->sw ? 1 : 0);
        arb_set_ui(b->G, t->sw ? 0 : 1);
        arb_set(b->FY, b->F);
        arb_set(b->GY, b->G);
    } else {
        rc = GA_EPREC;
    }
    arb_clear(e);
    return rc;
}

/* P[lo < y <= hi] from the distribution function P and the survival function Q at the ends,
 * the difference on the smaller side (no cancellation of a mass near 1) */
static void mass_between(arb_t r, const arb_t Plo, const arb_t Qlo, const arb_t Phi_,
                         const arb_t Qhi, slong prec)
{
    if (arf_cmp_2exp_si(arb_midref(Plo), -1) < 0)
        arb_sub(r, Phi_, Plo, prec);
    else
        arb_sub(r, Qlo, Qhi, prec);
}

/* a bound c of the offset: from below (lo = max) or, above, from above (hi = min) */
static void tighten(arb_t lo, arb_t hi, const arb_t c, int above, slong prec)
{
    if (above)
        arb_min(hi, hi, c, prec);
    else
        arb_max(lo, lo, c, prec);
}

/*
 * A cell wide in x (the bulk of few steps of a small rate, where l is nearly flat) leaves the
 * two tangents of cell_offsets a gap of order l'' D^2 in its lower bound, a sizeable part of
 * h w. Split into r pieces [u_j, u_j+1], the lower bound takes on each piece the better of
 * the tangents at its ends (sw 0: V = l convex) or its chord (sw 1: V = -l concave), whose
 * expectations are the piece's mass and partial first moment under each normal component:
 * the gap falls as 1/r^2. With l'' = l' (m - l') <= m l'(b), r is the least that makes
 * m l'(b) (D/r)^2 / 8 at most SUB_GAP h, capped at SUB_MAX.
 */
#define SUB_GAP 1e-3 /* the pieces' gap aimed at, per unit mass, relative to h */
#define SUB_MAX 64

/* one point of a piece: the point p, l(x) and l'(x) */
typedef struct {
    pt_t p;
    arb_t l, lp;
} sub_t;

static void sub_init(sub_t *u)
{
    pt_init(&u->p);
    arb_init(u->l), arb_init(u->lp);
}

static void sub_clear(sub_t *u)
{
    pt_clear(&u->p);
    arb_clear(u->l), arb_clear(u->lp);
}

static void sub_at(sub_t *u, const arb_t x, const tails_t *t)
{
    slong prec = t->prec;
    arb_t e;
    arb_init(e);
    arb_set(u->p.x, x);
    arb_mul(e, t->m, x, prec);
    arb_sub(e, e, t->h2, prec);
    arb_add(e, e, t->lq, prec);
    arb_exp(e, e, prec); /* q e^{m x - m^2/2} */
    arb_add(u->l, e, t->omq, prec); /* e^{l(x)} */
    arb_div(u->lp, e, u->l, prec);
    arb_mul(u->lp, u->lp, t->m, prec);
    arb_log(u->l, u->l, prec);
    ga_arb_normal_tails(u->p.P0, u->p.Q0, x, t->rs2, prec);
    phi(u->p.d0, x, t);
    if (!t->sw) {
        arb_sub(e, x, t->m, prec);
        ga_arb_normal_tails(u->p.P1, u->p.Q1, e, t->rs2, prec);
        phi(u->p.d1, e, t);
    }
    arb_clear(e);
}

/* the mass of [a, b] and E[(x - a) 1(a <= x <= b)] under the step's law of x (sw 0: the
 * mixture (1 - q) N(0, 1) + q N(m, 1); sw 1: N(0, 1)) */
static void pt_moments(arb_t w, arb_t M, const pt_t *a, const pt_t *b, const tails_t *t)
{
    slong prec = t->prec;
    arb_t c, d;
    arb_init(c), arb_init(d);
    mass_between(c, a->P0, a->Q0, b->P0, b->Q0, prec);
    arb_sub(M, a->d0, b->d0, prec);
    arb_submul(M, c, a->x, prec); /* phi(a) - phi(b) - a (Phi(b) - Phi(a)) */
    arb_set(w, c);
    if (!t->sw) { /* (1 - q) N(0, 1) + q N(m, 1) */
        arb_mul(w, w, t->omq, prec);
        arb_mul(M, M, t->omq, prec);
        mass_between(c, a->P1, a->Q1, b->P1, b->Q1, prec);
        arb_addmul(w, c, t->q, prec);
        arb_sub(d, t->m, a->x, prec);
        arb_mul(d, d, c, prec);
        arb_add(d, d, a->d1, prec);
        arb_sub(d, d, b->d1, prec); /* phi(a - m) - phi(b - m) + (m - a) P1 */
        arb_addmul(M, d, t->q, prec);
    }
    arb_clear(c), arb_clear(d);
}

/* a lower bound of the cell's offset from r pieces of its x-range [xl, xu] (lk: l_k) */
static void sub_offset(arb_t res, const arb_t xl, const arb_t xu, const arb_t lk, int r,
                       const tails_t *t)
{
    slong prec = t->prec;
    sub_t u[2];
    sub_init(&u[0]), sub_init(&u[1]);
    arb_t x, D, w, M, c, b;
    arb_init(x), arb_init(D), arb_init(w), arb_init(M), arb_init(c), arb_init(b);
    arb_zero(res);
    sub_at(&u[0], xl, t);
    for (int j = 0; j < r; j++) {
        sub_t *A = &u[j & 1], *B = &u[!(j & 1)];
        if (j + 1 == r) {
            arb_set(x, xu);
        } else { /* xl + (xu - xl) (j + 1) / r */
            arb_sub(x, xu, xl, prec);
            arb_mul_si(x, x, j + 1, prec);
            arb_div_ui(x, x, (ulong)r, prec);
            arb_add(x, x, xl, prec);
        }
        sub_at(B, x, t);
        pt_moments(w, M, &A->p, &B->p, t);
        arb_sub(D, B->p.x, A->p.x, prec);
        if (!t->sw) { /* V - l_k >= the tangent at either end */
            arb_sub(c, A->l, lk, prec);
            arb_mul(c, c, w, prec);
            arb_addmul(c, A->lp, M, prec);
            arb_sub(b, B->l, lk, prec);
            arb_mul(b, b, w, prec);
            arb_mul(x, D, w, prec);
            arb_sub(x, x, M, prec); /* E[(b - x) 1] */
            arb_submul(b, B->lp, x, prec);
            arb_max(c, c, b, prec);
        } else { /* V = -l: the chord, (-l(a) - l_k) w + (l(a) - l(b)) M / D */
            arb_add(c, A->l, lk, prec);
            arb_neg(c, c);
            arb_mul(c, c, w, prec);
            arb_sub(b, A->l, B->l, prec);
            arb_mul(b, b, M, prec);
            arb_div(b, b, D, prec);
            arb_add(c, c, b, prec);
        }
        arb_add(res, res, c, prec);
    }
    sub_clear(&u[0]), sub_clear(&u[1]);
    arb_clear(x), arb_clear(D), arb_clear(w), arb_clear(M), arb_clear(c), arb_clear(b);
}

/*
 * The cell's offset E[(V - l_k) 1(V in the cell)] between lo and hi, w its mass, A and B the
 * laws at its ends l_k and l_{k+1} = l_k + h. The loss l is convex in x (a log of a
 * sum of exponentials of linear functions): on the cell's x-range a chord lies above it and
 * the tangents at the ends below, with l'(x) = m (1 - (1 - q) e^{-l(x)}); V = l(x) (sw 0) or
 * -l(x) (concave, sw 1) is then between lines, whose expectations over the cell are the
 * partial first moments E[(x - a) 1(a <= x <= b)] = phi(a - mu) - phi(b - mu) + (mu - a)
 * (Phi(b - mu) - Phi(a - mu)) of N(mu, 1) (mu = 0, m). Their difference is of second order
 * in h: the offset is known to second order. Outside the range (an end at x = -infinity) the
 * bounds are 0 and h w.
 */
static void cell_offsets(arb_t lo, arb_t hi, const bnd_t *A, const bnd_t *B, const arb_t w,
                         const arb_t lk, double h, const tails_t *t)
{
    slong prec = t->prec;
    arb_t hw, D, M, c;
    arb_init(hw), arb_init(D), arb_init(M), arb_init(c);
    arb_set_d(hw, h);
    arb_mul(hw, hw, w, prec); /* h w */
    arb_zero(lo);
    arb_set(hi, hw);
    if (!A->in || !B->in)
        goto cleanup;
    /* the x-range [a, b] of the cell: sw 0 from x(l_k) up, sw 1 from x(-l_{k+1}) up */
    const bnd_t *L = t->sw ? B : A, *U = t->sw ? A : B;
    arb_sub(D, U->p.x, L->p.x, prec);
    if (!arb_is_positive(D))
        goto cleanup;
    /* M = E[(x - a) 1] for sw 0, E[(b - x) 1] = D P - E[(x - a) 1] for sw 1 */
    pt_moments(c, M, &L->p, &U->p, t);
    if (t->sw) {
        arb_mul(c, c, D, prec);
        arb_sub(M, c, M, prec);
    }
    /* the chord: h M / D (above for sw 0, below for sw 1) */
    arb_set_d(c, h);
    arb_mul(c, c, M, prec);
    arb_div(c, c, D, prec);
    arb_set(t->sw ? lo : hi, c);
    /* the tangents at the two ends, below V - l_k for sw 0 and above it for sw 1 (those of
     * -l): at A's x, where V - l_k is 0, l' M; at B's, h w - l' (D w - M) */
    arb_mul(c, A->lp, M, prec);
    tighten(lo, hi, c, t->sw, prec);
    arb_mul(c, D, w, prec);
    arb_sub(c, c, M, prec);
    arb_mul(c, c, B->lp, prec);
    arb_sub(c, hw, c, prec);
    tighten(lo, hi, c, t->sw, prec);
    /* a cell wide in x: the pieces (the curvature at most m l' at the upper end) */
    double Dm = arf_get_d(arb_midref(D), ARF_RND_NEAR);
    double lpu = arf_get_d(arb_midref(U->lp), ARF_RND_NEAR);
    double mm = arf_get_d(arb_midref(t->m), ARF_RND_NEAR);
    double rr = ceil(Dm * sqrt(fmax(mm * lpu, 0) / (8 * SUB_GAP * h)));
    if (rr >= 2 && isfinite(rr)) {
        sub_offset(c, L->p.x, U->p.x, lk, (int)fmin(rr, SUB_MAX), t);
        if (arb_is_finite(c)) /* (pieces too narrow for the precision: the tangents stand) */
            tighten(lo, hi, c, 0, prec);
    }
cleanup:
    arb_clear(hw), arb_clear(D), arb_clear(M), arb_clear(c);
}

/* a ball's midpoint as a double, clipped at 0 where nonneg, and *err >= |value - that| */
static double mid_err(double *err, const arb_t v, int nonneg)
{
    ga_interval iv;
    ga_arb_bounds(&iv, v);
    double mid = 0.5 * iv.lo + 0.5 * iv.hi;
    if (!isfinite(mid)) {
        *err = INFINITY;
        return 0;
    }
    if (nonneg && mid < 0)
        mid = 0;
    *err = fmax(iv.hi - mid, mid - iv.lo) * (1 + 4 * DBL_EPSILON) + 0x1p-1070;
    return mid;
}

/* the lower end of a ball as a double (rounded down), at least 0 and at most cap */
static double low_end(const arb_t v, double cap)
{
    ga_interval iv;
    ga_arb_bounds(&iv, v);
    return isfinite(iv.lo) ? fmin(fmax(iv.lo, 0), cap) : 0;
}

/* the exact grid point (base + i) h as a ball of radius 0 */
static void grid_point(arb_t s, long base, long i, double h)
{
    arb_set_d(s, h);
    arb_mul_si(s, s, base + i, 256);
}

int ga_bracket_cells_arb(double *wl, double *dl, double *wu, double em[2],
                         double *top, const arb_t q, const arb_t m, int sw, long k0, size_t n,
                         double h, double theta, double lc, double mx, slong prec,
                         double deadline)
{
    tails_t t;
    tails_init(&t, q, m, sw, prec);
    bnd_t bd[2];
    bnd_init(&bd[0]);
    bnd_init(&bd[1]);
    int ia = 0; /* bd[ia] at the cell's lower end, bd[1 - ia] at its upper end */
    arb_t la, lb, w, tl, tu, th, c, x, mxb, olo, ohi, wy, omeh, phb;
    arb_init(la), arb_init(lb), arb_init(w), arb_init(tl), arb_init(tu), arb_init(th);
    arb_init(c), arb_init(x), arb_init(mxb), arb_init(olo), arb_init(ohi), arb_init(wy);
    arb_init(omeh), arb_init(phb);
    arb_set_d(omeh, -h); /* 1 - e^{-h} */
    arb_expm1(omeh, omeh, prec);
    arb_neg(omeh, omeh);
    arb_set_d(mxb, mx);
    arb_set_d(th, theta);
    arb_set_d(c, lc);
    arb_neg(c, c);
    /* the tilt at the exact point: e^{theta (l - lc) - mx} */
#define TILT(out, point)                                                                       \
    do {                                                                                       \
        arb_add(x, point, c, prec);                                                            \
        arb_mul(x, x, th, prec);                                                               \
        arb_sub(x, x, mxb, prec);                                                              \
        arb_exp(out, x, prec);                                                                 \
    } while (0)
    em[0] = em[1] = 0;
    int rc = GA_OK;
    grid_point(la, k0, 0, h);
    if ((rc = bnd_at(&bd[0], &t, la)) != GA_OK)
        goto cleanup;
    TILT(tl, la);
    arb_mul(w, bd[0].F, tl, prec); /* the mass below the grid, moved up to its first point */
    double e;
    wu[0] = mid_err(&e, w, 1);
    em[1] += e;
    for (size_t k = 0; k < n; k++) {
        if (deadline > 0 && (k & 255) == 0 && ga_expired(deadline)) {
            rc = GA_ETIME;
            goto cleanup;
        }
        const bnd_t *A = &bd[ia], *B = &bd[1 - ia];
        grid_point(lb, k0, (long)k + 1, h);
        if ((rc = bnd_at(&bd[1 - ia], &t, lb)) != GA_OK)
            goto cleanup;
        mass_between(w, A->F, A->G, B->F, B->G, prec); /* the cell's mass */
        cell_offsets(olo, ohi, A, B, w, la, h, &t);
        TILT(tu, lb);
        arb_mul(x, w, tl, prec);
        wl[k] = mid_err(&e, x, 1);
        em[0] += e;
        arb_mul(x, olo, tl, prec); /* the lower side's offsets: below the true ones */
        dl[k] = low_end(x, h * wl[k]);
        /* the upper side splits the cell's X-mass w between its ends keeping its Y-mass wY:
         * the part at l_{k+1} is (w - e^{l_k} wY) / (1 - e^{-h}); any larger part (up to all
         * of w) still dominates, so the ball's upper end is taken, capped at w's, and the
         * entries' distance from a dominating split (at most w's diameter each) is counted
         * with the masses' errors */
        mass_between(wy, A->FY, A->GY, B->FY, B->GY, prec);
        arb_exp(x, la, prec);
        arb_mul(x, x, wy, prec);
        arb_sub(x, w, x, prec);
        arb_div(x, x, omeh, prec);
        ga_interval pi, wi;
        ga_arb_bounds(&pi, x);
        ga_arb_bounds(&wi, w);
        double ph = isfinite(pi.hi) ? fmin(fmax(pi.hi, 0), fmax(wi.hi, 0)) : fmax(wi.hi, 0);
        if (!isfinite(ph)) {
            rc = GA_EPREC;
            goto cleanup;
        }
        double wrad = 2 * fmax(wi.hi - wi.lo, 0);
        arb_set_d(phb, ph);
        arb_sub(x, w, phb, prec);
        arb_mul(x, x, tl, prec);
        wu[k] += mid_err(&e, x, 1);
        em[1] += e + wrad * arf_get_d(arb_midref(tl), ARF_RND_UP) * (1 + 1e-10);
        arb_mul(x, phb, tu, prec);
        wu[k + 1] = mid_err(&e, x, 1);
        em[1] += e + wrad * arf_get_d(arb_midref(tu), ARF_RND_UP) * (1 + 1e-10);
        ia = 1 - ia;
        arb_swap(la, lb);
        arb_swap(tl, tu);
    }
    ga_interval iv;
    ga_arb_bounds(&iv, bd[ia].G); /* the mass above the grid */
    *top = fmax(iv.hi, 0);
    em[0] *= 1 + (double)(n + 4) * DBL_EPSILON; /* (the sums' own rounding) */
    em[1] *= 1 + (double)(n + 4) * DBL_EPSILON;
    if (!(isfinite(em[0]) && isfinite(em[1]) && isfinite(*top)))
        rc = GA_EPREC;
#undef TILT
cleanup:
    tails_clear(&t);
    bnd_clear(&bd[0]);
    bnd_clear(&bd[1]);
    arb_clear(la), arb_clear(lb), arb_clear(w), arb_clear(tl), arb_clear(tu), arb_clear(th);
    arb_clear(c), arb_clear(x), arb_clear(mxb), arb_clear(olo), arb_clear(ohi), arb_clear(wy);
    arb_clear(omeh), arb_clear(phb);
    return rc;
}

int ga_exp_seq_arb(double *out, size_t n, const arb_t a, const arb_t b, slong prec)
{
    double tab[SEQ_BLOCK];
    arb_t x, y;
    arb_init(x);
    arb_init(y);
    int rc = GA_OK;
    /* each double is the ball's midpoint rounded to nearest: half an ulp and the radius */
    for (size_t j = 0; j < SEQ_BLOCK && j < n; j++) {
        arb_mul_ui(x, b, (ulong)j, prec);
        arb_exp(x, x, prec);
        if (arb_rel_error_bits(x) > -60 && !arb_is_zero(x))
            rc = GA_EPREC;
        tab[j] = arf_get_d(arb_midref(x), ARF_RND_NEAR);
    }
    for (size_t i0 = 0; i0 < n && rc == GA_OK; i0 += SEQ_BLOCK) {
        arb_mul_ui(x, b, (ulong)i0, prec);
        arb_add(x, x, a, prec);
        arb_exp(y, x, prec);
        if (arb_rel_error_bits(y) > -60 && !arb_is_zero(y))
            rc = GA_EPREC;
        double an = arf_get_d(arb_midref(y), ARF_RND_NEAR);
        for (size_t j = 0; j < SEQ_BLOCK && i0 + j < n; j++)
            out[i0 + j] = an * tab[j];
    }
    arb_clear(x);
    arb_clear(y);
    return rc;
}

size_t ga_grid_first_above(long base, double h, double x, int strict, size_t len)
{
    arb_t s, xx;
    arb_init(s);
    arb_init(xx);
    arb_set_d(xx, x);
    double g = ceil(x / h) - (double)base;
    long i = g < 0 ? 0 : g > (double)len ? (long)len : (long)g;
#define ABOVE(k) (grid_point(s, base, (k), h), strict ? arb_gt(s, xx) : arb_ge(s, xx))
    while (i > 0 && ABOVE(i - 1))
        i--;
    while (i < (long)len && !ABOVE(i))
        i++;
#undef ABOVE
    arb_clear(s);
    arb_clear(xx);
    return (size_t)i;
}

/* the lower end of a ball as a double at or below it (0 for a ball reaching below 0) */
static double mass_lo(const arb_t v)
{
    ga_interval iv;
    ga_arb_bounds(&iv, v);
    return isfinite(iv.lo) && iv.lo > 0 ? iv.lo : 0;
}

int ga_loss_cells_arb(double *w, double tails[4], const arb_t q, const arb_t m, int sw, long k0,
                      size_t n, double h, slong prec, double deadline)
{
    tails_t t;
    tails_init(&t, q, m, sw, prec);
    bnd_t b;
    bnd_init(&b);
    arb_t l, c;
    arb_init(l);
    arb_init(c);
    /* the law's two tails at every grid point, then each cell from the smaller pair */
    arb_ptr F = _arb_vec_init((slong)n + 1), G = _arb_vec_init((slong)n + 1);
    int rc = GA_OK;
    for (size_t k = 0; k <= n && rc == GA_OK; k++) {
        if (deadline > 0 && (k & 255) == 0 && ga_expired(deadline))
            rc = GA_ETIME;
        grid_point(l, k0, (long)k, h);
        if (rc == GA_OK && (rc = bnd_at(&b, &t, l)) == GA_OK) {
            arb_set(F + k, b.F);
            arb_set(G + k, b.G);
        }
    }
    if (rc != GA_OK)
        goto cleanup;
    for (size_t k = 0; k < n; k++) {
        mass_between(c, F + k, G + k, F + k + 1, G + k + 1, prec);
        w[k] = mass_lo(c);
    }
    ga_interval iv;
    tails[0] = mass_lo(F); /* the mass at or below the grid's first point */
    ga_arb_bounds(&iv, F);
    tails[1] = isfinite(iv.hi) ? fmin(fmax(iv.hi, 0), 1) : 1;
    tails[2] = mass_lo(G + n); /* the mass above its last point */
    ga_arb_bounds(&iv, G + n);
    tails[3] = isfinite(iv.hi) ? fmin(fmax(iv.hi, 0), 1) : 1;
cleanup:
    _arb_vec_clear(F, (slong)n + 1);
    _arb_vec_clear(G, (slong)n + 1);
    tails_clear(&t);
    bnd_clear(&b);
    arb_clear(l);
    arb_clear(c);
    return rc;
}

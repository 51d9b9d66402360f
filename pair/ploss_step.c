/*
 * ploss_step.c - one subsampled Gaussian step's privacy loss as a law on the line: its value
 * at a point, its inverse, its two tails and the points where they fall to a cut (the range a
 * grid must cover). Shared by the bracket of few steps (pair/ploss_bracket.c), the PLD
 * accountant (pair/pld.c) and the Bromwich grid (pair/ploss.c).
 *
 * In scaled units (noise N(0, 1), m = 1/sigma) the loss is l(x) = log(1 - q + q e^{m x -
 * m^2/2}), increasing in x with inverse x(v) = (log(e^v - 1 + q) - log q + m^2/2) / m for
 * v > log(1 - q). Direction sw = 0 (remove, X against Y): L = l(x) with x from the mixture
 * (1 - q) N(0, 1) + q N(m, 1); sw = 1: L = -l(x) with x from N(0, 1) (pair/ploss.c for the
 * roles). Each tail is computed from the smaller normal tails (erfc), so neither loses its
 * relative accuracy where the other is close to 1.
 */
#include "pair/loss.h"

#include <math.h>

double ga_step_loss(const ga_ploss_term *s, double log1mq, double x)
{
    return ga_logaddexp(log1mq, log(s->q) + s->m * x - 0.5 * s->m * s->m);
}

double ga_step_x(const ga_ploss_term *s, double v)
{
    double lg;
    if (v > 30) {
        lg = v + log1p((s->q - 1) * exp(-v)); /* log(e^v - 1 + q) without overflow */
    } else {
        double e = expm1(v) + s->q; /* e^v - 1 + q */
        if (!(e > 0))
            return -INFINITY;
        lg = log(e);
    }
    return (lg - log(s->q) + 0.5 * s->m * s->m) / s->m;
}

/* Phi(x) and Phi(-x) from one erfc: the smaller from erfc, the larger as 1 minus it (at
 * least 1/2, so within an ulp and a half of itself) */
static void phi_pair(double *lo, double *hi, double x)
{
    double p = 0.5 * erfc(fabs(x) / M_SQRT2), r = 1 - p;
    *lo = x <= 0 ? p : r;
    *hi = x <= 0 ? r : p;
}

void ga_step_tails_x(double *F, double *G, double *xv, const ga_ploss_term *s, int sw, double v)
{
    double q = s->q, m = s->m;
    double x = *xv = ga_step_x(s, sw ? -v : v); /* (sw 1: L <= v iff l(x) >= -v) */
    if (x == -INFINITY) {
        *F = sw;
        *G = !sw;
        return;
    }
    double a, b, c, d;
    phi_pair(&a, &b, x);
    if (sw) {
        *F = b;
        *G = a;
        return;
    }
    phi_pair(&c, &d, x - m);
    *F = (1 - q) * a + q * c;
    *G = (1 - q) * b + q * d;
}

void ga_step_tails(double *F, double *G, const ga_ploss_term *s, int sw, double v)
{
    double x;
    ga_step_tails_x(F, G, &x, s, sw, v);
}

/* whether the condition of ga_step_cut holds at v: true far left, false far right */
static int below_cut(const ga_ploss_term *s, int sw, double cut, int upper, double v)
{
    double F, G;
    ga_step_tails(&F, &G, s, sw, v);
    return upper ? G > cut : F <= cut;
}

int ga_step_cut(double *v, const ga_ploss_term *s, int sw, double cut, int upper, double tol,
                double vmax)
{
    double a = -1, b = 1;
    int ha, hb;
    while ((hb = below_cut(s, sw, cut, upper, b)) && b < vmax)
        b *= 2;
    while (!(ha = below_cut(s, sw, cut, upper, a)) && a > -vmax)
        a *= 2;
    if (hb || !ha) {
        *v = upper ? b : a;
        return GA_EDOM;
    }
    for (int it = 0; it < 200 && b - a > tol; it++) {
        double mid = 0.5 * (a + b);
        if (mid <= a || mid >= b)
            break;
        *(below_cut(s, sw, cut, upper, mid) ? &a : &b) = mid;
    }
    *v = upper ? b : a;
    return GA_OK;
}

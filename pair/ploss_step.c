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

static double Phi(double x) { return 0.5 * erfc(-x / M_SQRT2); }

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

void ga_step_tails(double *F, double *G, const ga_ploss_term *s, int sw, double v)
{
    double q = s->q, m = s->m;
    if (!sw) {
        double x = ga_step_x(s, v);
        if (x == -INFINITY) {
            *F = 0;
            *G = 1;
            return;
        }
        *F = (1 - q) * Phi(x) + q * Phi(x - m);
        *G = (1 - q) * Phi(-x) + q * Phi(m - x);
        return;
    }
    double x = ga_step_x(s, -v); /* L <= v iff l(x) >= -v iff x >= x(-v) */
    if (x == -INFINITY) {
        *F = 1;
        *G = 0;
        return;
    }
    *F = Phi(-x);
    *G = Phi(x);
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

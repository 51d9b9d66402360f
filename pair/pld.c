/*
 * pld.c - what a privacy-loss-distribution (PLD) accountant reports for compositions of
 * subsampled Gaussian steps, for comparison with the exact value.
 *
 * The accountant of Meiser & Mohammadi (CCS 2018, "privacy buckets") and Koskela, Jalko &
 * Honkela (AISTATS 2020) with the pessimistic "connect the dots" discretisation of
 * Doroshenko et al. (PETS 2022), as DP libraries implement it: each step's privacy loss is
 * replaced by a discrete one on a grid of spacing h that dominates it (step_pmf), tails beyond
 * a truncation mass go to +infinity (upper) or to the lowest kept point (lower), the steps are
 * composed by convolution (FFT, repeated squaring for T steps, the same truncation after each
 * product), and delta(eps) = w_inf + sum_k w_k (1 - e^{eps - k h})_+ is an upper bound up to
 * the FFT's rounding; its eps(delta) is what the accountant reports. A comparison column, not
 * a certified value: the exact value is pair/ploss.c's.
 *
 * One step's loss, its inverse, tails and range are pair/ploss_step.c's: in scaled units
 * (noise N(0, 1), m = 1/sigma) l(x) = log(1 - q + q e^{m x - m^2/2}), in the remove direction
 * L = l(x) with x from the mixture (1 - q) N(0, 1) + q N(m, 1), in the add direction L = -l(x)
 * with x from N(0, 1) (pair/ploss.c for the roles).
 */
#include "pair/loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRUNC 1e-15      /* tail mass moved to +inf (upper) or to the lowest point (lower) */
#define MAX_LEN (1 << 22) /* grid points of one distribution (beyond: GA_EMAXITER) */

typedef struct {
    long lo;     /* the grid index of w[0]: loss lo * h */
    size_t n;
    double *w;
    double inf;  /* mass at +infinity */
} pmf_t;

static double Phi(double x) { return 0.5 * erfc(-x / M_SQRT2); }

/* one step's delta(v) at any real v in direction sw (the closed form of the threshold
 * event; pair/ploss.c has the careful version, this column does not need it) */
static double step_delta(const ga_ploss_term *s, int sw, double v)
{
    double q = s->q, m = s->m;
    if (!sw) {
        double tau = ga_step_x(s, v);
        if (tau == -INFINITY)
            return -expm1(v); /* l > v everywhere */
        double pt = Phi(-tau); /* (0 wherever e^v - 1 + q overflows) */
        return fmax(q * Phi(m - tau) - (pt > 0 ? (expm1(v) + q) * pt : 0), 0);
    }
    double tau = ga_step_x(s, -v);
    if (tau == -INFINITY)
        return 0;
    return fmax(Phi(tau) - exp(v) * ((1 - q) * Phi(tau) + q * Phi(tau - m)), 0);
}

/*
 * One step's PMF on the grid h by "connecting the dots" (Doroshenko, Ghazi, Kamath, Kumar &
 * Manurangsi, PETS 2022): delta as a function of t = e^eps is convex, and its chords through
 * (0, 1), (e^{k h}, delta(k h)) for k0 <= k <= k1, then constant, lie above it; the chords are
 * the delta curve of the discrete loss with mass w_k = t_k (s_k - s_{k-1}) at k h (s the chords'
 * slopes) and delta(k1 h) at +infinity, which therefore dominates the step (the accountants'
 * default, second-order in h where rounding the losses up is first-order).
 */
static int step_pmf(pmf_t *p, const ga_ploss_term *s, int sw, double h)
{
    /* the range: from the TRUNC quantile of the loss to the point where its upper tail is
     * below TRUNC, each to within h (pair/ploss_step.c) */
    double a, th;
    ga_step_cut(&a, s, sw, TRUNC, 0, h, 1e6);
    ga_step_cut(&th, s, sw, TRUNC, 1, h, 1e6);
    long k0 = (long)floor(a / h), k1 = (long)ceil(th / h);
    if (k1 - k0 + 1 > MAX_LEN)
        return GA_EMAXITER;
    size_t n = (size_t)(k1 - k0 + 1);
    double *f = malloc(n * sizeof *f), *t = malloc(n * sizeof *t);
    p->w = calloc(n, sizeof *p->w);
    if (!f || !t || !p->w) {
        free(f);
        free(t);
        free(p->w);
        p->w = NULL;
        return GA_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        double v = (double)(k0 + (long)i) * h;
        t[i] = exp(v);
        f[i] = step_delta(s, sw, v);
    }
    double sprev = (f[0] - 1) / t[0]; /* the chord from (0, 1) */
    for (size_t i = 0; i < n; i++) {
        double si = i + 1 < n ? (f[i + 1] - f[i]) / (t[i + 1] - t[i]) : 0;
        p->w[i] = fmax(t[i] * (si - sprev), 0);
        sprev = si;
    }
    p->lo = k0;
    p->n = n;
    p->inf = f[n - 1];
    free(f);
    free(t);
    return GA_OK;
}

/* truncate the tails of a composed PMF: the top below TRUNC to +inf, the bottom below TRUNC
 * up to the lowest kept point */
static void trim(pmf_t *p)
{
    size_t a = 0, b = p->n;
    double low = 0, up = 0;
    while (a + 1 < b && low + p->w[a] <= TRUNC)
        low += p->w[a++];
    while (b - 1 > a && up + p->w[b - 1] <= TRUNC)
        up += p->w[--b];
    if (a > 0) {
        memmove(p->w, p->w + a, (b - a) * sizeof *p->w);
        p->w[0] += low;
        p->lo += (long)a;
    }
    p->n = b - a;
    p->inf += up;
}

/* What a direction's convolutions keep from one to the next: the FFT plans of the lengths met
 * (by log2 of the length: repeated squaring meets few lengths, many times each) and the
 * transform's buffer. */
#define LOG2_MAX 24 /* 2 MAX_LEN = 2^23 points */
typedef struct {
    ga_fft_plan plan[LOG2_MAX + 1];
    double *z;
    size_t cap; /* complex points z holds */
} conv_ws;

static void conv_ws_clear(conv_ws *c)
{
    for (int k = 0; k <= LOG2_MAX; k++)
        ga_fft_plan_clear(&c->plan[k]);
    free(c->z);
}

/* r = a * b (convolution by one complex FFT, numerics/fft.c, of a + i b; a square, a == b,
 * squares the transform of a; inf masses: 1 - (1 - a.inf)(1 - b.inf)) */
static int convolve(pmf_t *r, const pmf_t *a, const pmf_t *b, conv_ws *c)
{
    size_t need = a->n + b->n - 1, N = 2;
    int lg = 1;
    for (; N < need; lg++)
        N <<= 1;
    if (N > 2 * (size_t)MAX_LEN)
        return GA_EMAXITER;
    ga_fft_plan *pl = &c->plan[lg];
    if (!pl->tw && ga_fft_plan_init(pl, N) != GA_OK)
        return GA_ENOMEM;
    if (c->cap < N) {
        free(c->z);
        c->cap = 0;
        if (!(c->z = malloc(2 * N * sizeof *c->z)))
            return GA_ENOMEM;
        c->cap = N;
    }
    double *z = c->z, *w = malloc(need * sizeof *w);
    if (!w)
        return GA_ENOMEM;
    for (size_t i = 0; i < N; i++) {
        z[2 * i] = i < a->n ? a->w[i] : 0;
        z[2 * i + 1] = a != b && i < b->n ? b->w[i] : 0;
    }
    ga_fft_forward(pl, z);
    for (size_t i = 0; i < N; i++) {
        double zr = z[2 * i], zi = z[2 * i + 1];
        if (a == b) {
            z[2 * i] = zr * zr - zi * zi;
            z[2 * i + 1] = 2 * zr * zi;
            continue;
        }
        size_t j = ga_fft_partner(i); /* frequency -f */
        if (j < i)
            continue;
        double A[2], B[2]; /* the transforms of a and b */
        ga_fft_unpack(A, B, z, i, j);
        double pr = A[0] * B[0] - A[1] * B[1], pi = A[0] * B[1] + A[1] * B[0];
        z[2 * i] = pr;
        z[2 * i + 1] = pi;
        z[2 * j] = pr;
        z[2 * j + 1] = -pi;
    }
    ga_fft_inverse(pl, z);
    for (size_t i = 0; i < need; i++)
        w[i] = fmax(z[2 * i], 0); /* FFT rounding can leave tiny negatives */
    r->lo = a->lo + b->lo;
    r->n = need;
    r->w = w;
    r->inf = 1 - (1 - a->inf) * (1 - b->inf);
    trim(r);
    return GA_OK;
}

static void pmf_free(pmf_t *p)
{
    free(p->w);
    p->w = NULL;
    p->n = 0;
}

/* acc <- acc * p^T (repeated squaring) */
static int power_into(pmf_t *acc, pmf_t *p, double T, conv_ws *c)
{
    unsigned long long t = (unsigned long long)T;
    int rc = GA_OK;
    while (t && rc == GA_OK) {
        if (t & 1) {
            pmf_t r;
            if (!acc->w) { /* the first factor */
                acc->lo = p->lo;
                acc->n = p->n;
                acc->inf = p->inf;
                acc->w = malloc(p->n * sizeof *acc->w);
                if (!acc->w)
                    return GA_ENOMEM;
                memcpy(acc->w, p->w, p->n * sizeof *acc->w);
            } else if ((rc = convolve(&r, acc, p, c)) == GA_OK) {
                pmf_free(acc);
                *acc = r;
            }
        }
        t >>= 1;
        if (t && rc == GA_OK) {
            pmf_t r;
            if ((rc = convolve(&r, p, p, c)) == GA_OK) {
                pmf_free(p);
                *p = r;
            }
        }
    }
    return rc;
}

static double pmf_delta(const pmf_t *p, double h, double eps)
{
    double d = p->inf;
    for (size_t i = 0; i < p->n; i++) {
        double v = (double)(p->lo + (long)i) * h;
        if (v > eps)
            d += p->w[i] * -expm1(eps - v);
    }
    return d;
}

/* one direction's eps: the steps' PMFs composed, then delta(eps) inverted by bisection */
static int pld_epsilon(double *eps, const ga_ploss *L, int dir, double delta, double h)
{
    *eps = NAN;
    pmf_t acc = {0, 0, NULL, 0};
    conv_ws cw;
    memset(&cw, 0, sizeof cw);
    int rc = GA_OK;
    for (size_t j = 0; j < L->n && rc == GA_OK; j++) {
        pmf_t p = {0, 0, NULL, 0};
        rc = step_pmf(&p, &L->t[j], L->t[j].add ^ dir, h);
        /* the composed grid spreads like sqrt(steps) times the step's (its tails trimmed):
         * beyond about 2^24 points (1e9 steps, say) the accountant is not computed */
        if (rc == GA_OK && (double)p.n * sqrt(L->t[j].count) > 16777216.0)
            rc = GA_EDOM;
        if (rc == GA_OK)
            rc = power_into(&acc, &p, L->t[j].count, &cw);
        pmf_free(&p);
    }
    if (rc == GA_OK) {
        if (acc.inf >= delta) {
            *eps = INFINITY;
        } else {
            double lo = 0, hi = (double)(acc.lo + (long)acc.n) * h;
            if (pmf_delta(&acc, h, 0) <= delta) {
                *eps = 0;
            } else {
                /* (once mid is lo or hi the bracket is at the last bit: more steps change
                 * nothing) */
                for (int it = 0; it < 100; it++) {
                    double mid = 0.5 * (lo + hi);
                    if (mid == lo || mid == hi)
                        break;
                    if (pmf_delta(&acc, h, mid) > delta)
                        lo = mid;
                    else
                        hi = mid;
                }
                *eps = hi;
            }
        }
    }
    pmf_free(&acc);
    conv_ws_clear(&cw);
    return rc;
}

typedef struct {
    const ga_ploss *L;
    double delta, h, *eps;
    int rc[2];
} pld_run;

static void pld_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    pld_run *r = ctx;
    r->rc[i] = pld_epsilon(&r->eps[i], r->L, (int)i, r->delta, r->h);
}

int ga_ploss_pld_epsilon(double eps[2], const ga_ploss *L, double delta, double h)
{
    eps[0] = eps[1] = NAN;
    if (!(delta > 0 && delta < 1) || !(h > 0))
        return GA_EINVAL;
    for (size_t j = 0; j < L->n; j++)
        if (L->t[j].r > 0 || L->t[j].nu > 0)
            return GA_EDOM; /* covariance steps: not here */
    pld_run r = {L, delta, h, eps, {GA_ENOMEM, GA_ENOMEM}};
    ga_par_items(2, ga_par_inner_jobs(), 0, pld_item, &r);
    return r.rc[0] != GA_OK ? r.rc[0] : r.rc[1];
}

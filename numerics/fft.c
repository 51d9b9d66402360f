/*
 * fft.c - the discrete Fourier transform of a power-of-two length, complex, in place, with a
 * bound on its rounding error, and without a bit-reversal pass.
 *
 * Algorithm: radix-2 Cooley-Tukey (Cooley & Tukey 1965). The forward transform decimates in
 * frequency: from natural order to the transform in bit-reversed order (position i holds
 * frequency rev(i)); the inverse decimates in time, from bit-reversed order back to natural
 * order. A convolution multiplies the spectra pointwise in between, in whatever order they
 * lie, so neither direction permutes the data. In bit-reversed order the frequencies k and
 * n - k (whose values a real input makes conjugate) lie at mirrored positions of the same
 * dyadic block: positions 0 and 1 hold frequencies 0 and n/2, and position i in [2^m, 2^{m+1})
 * pairs with 3 2^m - 1 - i (ga_fft_partner). Each pass reads its twiddle factors from a table
 * of its own (one per block size, contiguous); passes on blocks that fit in the cache run
 * block by block (the same operations in another order). On the threads lent to the caller
 * (ga_par_inner_jobs: a single expensive pair of an audit) the blocks, and the butterflies of
 * each larger pass in runs of a block's, are shared out: each butterfly is the same operation
 * on the same operands whichever thread does it, so the result does not depend on them.
 *
 * The table: cos and sin of angles of at most pi/4 (the others by the exact symmetries of the
 * circle), each angle (pi/2) (j / (n/4)) with j / (n/4) exact, so an entry is off by at most
 * mu = 3 ulps (the angle's two roundings and glibc's cos and sin, each under one ulp as glibc
 * documents); a certified plan (ga_fft_plan_init_cert) takes the entries from Arb, rounded
 * to nearest: half an ulp, proven.
 *
 * Error (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Theorem 24.2, for
 * the radix-2 factorisation into log2 n butterfly factors; decimation in frequency applies the
 * same butterflies, add and subtract then the twiddle, factor by factor): the computed y^ of
 * y = F x satisfies ||y^ - y||_2 <= L eta / (1 - L eta) ||y||_2 with L = log2 n and
 * eta = mu + gamma_4 (sqrt 2 + mu), gamma_4 = 4u / (1 - 4u); the inverse (conjugate twiddles)
 * obeys the same bound, and its scaling by 1/n, a power of two, is exact. ga_fft_relerr
 * returns that bound rounded up.
 */
#include "numerics/arb.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define BLOCK 4096 /* complex points (64 KiB): passes within blocks of this size run per block */

/* the table's first entries c[j] = cos(2 pi j / n), s[j] = sin(2 pi j / n), j <= n/8: from
 * glibc (under one ulp each, as documented, not proven), or from Arb rounded to nearest (half
 * an ulp and the ball's radius, below 2^-60 relative: proven) */
static int base_table(double *c, double *s, size_t q, int cert)
{
    if (!cert) {
        for (size_t j = 1; j <= q / 2; j++) {
            double a = (M_PI / 2) * ((double)j / (double)q);
            c[j] = cos(a);
            s[j] = sin(a);
        }
        return GA_OK;
    }
    arb_t a0, a, sn, cs;
    arb_init(a0);
    arb_init(a);
    arb_init(sn);
    arb_init(cs);
    arb_const_pi(a0, 128);
    arb_div_ui(a0, a0, (ulong)(2 * q), 128); /* pi/(2q) */
    int rc = GA_OK;
    for (size_t j = 1; j <= q / 2 && rc == GA_OK; j++) {
        arb_mul_ui(a, a0, (ulong)j, 128); /* (pi/2) (j/q) */
        arb_sin_cos(sn, cs, a, 128);
        if (arb_rel_error_bits(sn) > -70 || arb_rel_error_bits(cs) > -70)
            rc = GA_EPREC;
        c[j] = arf_get_d(arb_midref(cs), ARF_RND_NEAR);
        s[j] = arf_get_d(arb_midref(sn), ARF_RND_NEAR);
    }
    arb_clear(a0);
    arb_clear(a);
    arb_clear(sn);
    arb_clear(cs);
    return rc;
}

static int plan_init(ga_fft_plan *p, size_t n, int cert)
{
    p->n = n;
    p->tw = NULL;
    if (n < 2 || (n & (n - 1)) || n > ((size_t)1 << 40))
        return GA_EINVAL;
    size_t h = n / 2, q = n / 4;
    double *c = malloc(h * sizeof *c), *s = malloc(h * sizeof *s);
    p->tw = malloc(2 * (n - 1) * sizeof *p->tw);
    int rc = GA_OK;
    if (!c || !s || !p->tw) {
        ga_fft_plan_clear(p);
        rc = GA_ENOMEM;
        goto cleanup;
    }
    /* c[j] = cos(2 pi j / n), s[j] = sin(2 pi j / n) for j < n/2 from angles <= pi/4 */
    c[0] = 1;
    s[0] = 0;
    if ((rc = base_table(c, s, q, cert)) != GA_OK) {
        ga_fft_plan_clear(p);
        goto cleanup;
    }
    for (size_t j = q / 2 + 1; j <= q && j < h; j++) { /* pi/2 - angle(q - j) */
        c[j] = s[q - j];
        s[j] = c[q - j];
    }
    for (size_t j = q + 1; j < h; j++) { /* pi - angle(h - j) */
        c[j] = -c[h - j];
        s[j] = s[h - j];
    }
    /* the pass on blocks of len = 2 half points: its half twiddles e^{-2 pi i k / len} at
     * tw[2 (half - 1 + k)] (cos) and tw[2 (half - 1 + k) + 1] (sin) */
    for (size_t half = 1; half <= h; half <<= 1)
        for (size_t k = 0; k < half; k++) {
            p->tw[2 * (half - 1 + k)] = c[k * (h / half)];
            p->tw[2 * (half - 1 + k) + 1] = s[k * (h / half)];
        }
cleanup:
    free(c);
    free(s);
    return rc;
}

int ga_fft_plan_init(ga_fft_plan *p, size_t n) { return plan_init(p, n, 0); }

int ga_fft_plan_init_cert(ga_fft_plan *p, size_t n) { return plan_init(p, n, 1); }

void ga_fft_plan_clear(ga_fft_plan *p)
{
    free(p->tw);
    p->tw = NULL;
}

/* m butterflies of decimation in frequency: (x_k, y_k) -> (x_k + y_k, (x_k - y_k) w^k) with
 * w^k = conj(w[k]) (the table's e^{+...}) */
static void dif_run(const double *w, double *x, double *y, size_t m)
{
    for (size_t k = 0; k < m; k++) {
        double wr = w[2 * k], wi = -w[2 * k + 1];
        double dr = x[2 * k] - y[2 * k], di = x[2 * k + 1] - y[2 * k + 1];
        x[2 * k] += y[2 * k];
        x[2 * k + 1] += y[2 * k + 1];
        y[2 * k] = wr * dr - wi * di;
        y[2 * k + 1] = wr * di + wi * dr;
    }
}

/* m butterflies of decimation in time: (x_k, y_k) -> (x_k + w^k y_k, x_k - w^k y_k) */
static void dit_run(const double *w, double *x, double *y, size_t m)
{
    for (size_t k = 0; k < m; k++) {
        double wr = w[2 * k], wi = w[2 * k + 1];
        double tr = wr * y[2 * k] - wi * y[2 * k + 1];
        double ti = wr * y[2 * k + 1] + wi * y[2 * k];
        y[2 * k] = x[2 * k] - tr;
        y[2 * k + 1] = x[2 * k + 1] - ti;
        x[2 * k] += tr;
        x[2 * k + 1] += ti;
    }
}

/* one pass of decimation in frequency over points [from, to), blocks of 2 half points:
 * (a, b) -> (a + b, (a - b) w^k), w = e^{-2 pi i / (2 half)} */
static void dif_pass(const ga_fft_plan *p, double *z, size_t from, size_t to, size_t half)
{
    for (size_t b = from; b < to; b += 2 * half)
        dif_run(p->tw + 2 * (half - 1), z + 2 * b, z + 2 * (b + half), half);
}

/* one pass of decimation in time: (a, b) -> (a + w^k b, a - w^k b), w = e^{+2 pi i / (2 half)} */
static void dit_pass(const ga_fft_plan *p, double *z, size_t from, size_t to, size_t half)
{
    for (size_t b = from; b < to; b += 2 * half)
        dit_run(p->tw + 2 * (half - 1), z + 2 * b, z + 2 * (b + half), half);
}

/* One item of a transform on the threads: with half >= blk, the butterflies (b, k) of the
 * pass of that half with k in the i-th run of blk / 2 (runs ordered by block b, then k);
 * with half == 0, block i's passes within it (forward: halves blk/2 .. 1; inverse: 1 ..
 * blk/2) */
typedef struct {
    const ga_fft_plan *p;
    double *z;
    size_t blk, half;
    int inverse;
} fft_par;

static void fft_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    const fft_par *f = ctx;
    size_t blk = f->blk;
    if (f->half == 0) {
        size_t b0 = i * blk;
        if (f->inverse)
            for (size_t half = 1; half < blk; half <<= 1)
                dit_pass(f->p, f->z, b0, b0 + blk, half);
        else
            for (size_t half = blk / 2; half >= 1; half >>= 1)
                dif_pass(f->p, f->z, b0, b0 + blk, half);
        return;
    }
    /* the run's butterflies: block b of the pass, k in [k0, k0 + blk / 2), as a pass over
     * that block with the twiddles and the partner offset of the full half */
    size_t runs = f->half / (blk / 2), b = i / runs, k0 = (i % runs) * (blk / 2), half = f->half;
    const double *tw = f->p->tw + 2 * (half - 1) + 2 * k0;
    double *x = f->z + 2 * (b * 2 * half + k0), *y = x + 2 * half;
    if (f->inverse)
        dit_run(tw, x, y, blk / 2);
    else
        dif_run(tw, x, y, blk / 2);
}

/* (below this many points a transform stays on one thread: a thread costs more) */
#define FFT_PAR_MIN ((size_t)1 << 16)

/* (one thread, or the threads lent to the caller: the items in that order, or shared out) */
void ga_fft_forward(const ga_fft_plan *p, double *z)
{
    size_t n = p->n, blk = n < BLOCK ? n : BLOCK;
    int jobs = n >= FFT_PAR_MIN ? ga_par_inner_jobs() : 1;
    fft_par f = {p, z, blk, 0, 0};
    for (f.half = n / 2; f.half >= blk; f.half >>= 1)
        ga_par_items(n / blk, jobs, 0, fft_item, &f);
    f.half = 0;
    ga_par_items(n / blk, jobs, 0, fft_item, &f);
}

void ga_fft_inverse(const ga_fft_plan *p, double *z)
{
    size_t n = p->n, blk = n < BLOCK ? n : BLOCK;
    int jobs = n >= FFT_PAR_MIN ? ga_par_inner_jobs() : 1;
    fft_par f = {p, z, blk, 0, 1};
    ga_par_items(n / blk, jobs, 0, fft_item, &f);
    for (f.half = blk; f.half < n; f.half <<= 1)
        ga_par_items(n / blk, jobs, 0, fft_item, &f);
    double sc = 1.0 / (double)n; /* exact: n is a power of two */
    for (size_t i = 0; i < 2 * n; i++)
        z[i] *= sc;
}

size_t ga_fft_freq(size_t n, size_t i)
{
    size_t r = 0;
    for (size_t b = 1; b < n; b <<= 1, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

size_t ga_fft_partner(size_t i)
{
    if (i < 2)
        return i;
    size_t m = 1;
    while (m <= i / 2)
        m <<= 1; /* 2^m <= i < 2^{m+1} */
    return 3 * m - 1 - i;
}

void ga_fft_unpack(double x[2], double y[2], const double *z, size_t i, size_t j)
{
    double ar = z[2 * i], ai = z[2 * i + 1], br = z[2 * j], bi = z[2 * j + 1];
    x[0] = 0.5 * (ar + br); /* (Z_i + conj Z_j) / 2 */
    x[1] = 0.5 * (ai - bi);
    y[0] = 0.5 * (ai + bi); /* (Z_i - conj Z_j) / (2i) */
    y[1] = 0.5 * (br - ar);
}

double ga_fft_relerr(size_t n)
{
    double u = DBL_EPSILON / 2, L = 0, mu = 3 * u, g4 = 4 * u / (1 - 4 * u);
    while (((size_t)1 << (size_t)L) < n)
        L++;
    double eta = mu + g4 * (M_SQRT2 + mu), b = L * eta;
    return 1.01 * b / (1 - b);
}

/*
 * test_fft.c - the Fourier transform of numerics/fft.c against the transform summed directly
 * in long double (64-bit significands: its own error, about n ulps of long double, is under a
 * hundredth of the bound checked): the rounding stays within ga_fft_relerr in 2-norm for
 * random and structured inputs in both directions, the order of the spectrum is bit reversal,
 * partners are the conjugate frequencies, plans refuse lengths that are not powers of two,
 * and transforms on lent threads give the one-thread bits.
 * Random loops are seeded; GA_TEST_SCALE scales their counts.
 */
#include "numerics/numerics.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOG2 11 /* the direct sums cost n^2 */

/* ||z - ref|| / ||ref|| with z in the transform's order (bit-reversed when rev) against the
 * direct sum of x in direction sg (-1 forward, +1 inverse with 1/n) */
static double rel_err(const double *z, const double *x, size_t n, int sg, int rev)
{
    const long double tau = 6.283185307179586476925286766559005768L;
    long double *c = malloc(n * sizeof *c), *s = malloc(n * sizeof *s), e = 0, nn = 0;
    cr_assert(c && s);
    for (size_t m = 0; m < n; m++) {
        c[m] = cosl(tau * (long double)m / (long double)n);
        s[m] = sg * sinl(tau * (long double)m / (long double)n);
    }
    for (size_t j = 0; j < n; j++) {
        long double sr = 0, si = 0;
        for (size_t k = 0; k < n; k++) {
            size_t m = (j * (sg > 0 ? ga_fft_freq(n, k) : k)) % n; /* the inverse reads bit-reversed */
            sr += x[2 * k] * c[m] - x[2 * k + 1] * s[m];
            si += x[2 * k] * s[m] + x[2 * k + 1] * c[m];
        }
        if (sg > 0) {
            sr /= n;
            si /= n;
        }
        size_t p = rev ? ga_fft_freq(n, j) : j; /* where frequency j lies (an involution) */
        e += (z[2 * p] - sr) * (z[2 * p] - sr) + (z[2 * p + 1] - si) * (z[2 * p + 1] - si);
        nn += sr * sr + si * si;
    }
    free(c);
    free(s);
    return nn > 0 ? (double)sqrtl(e / nn) : (double)sqrtl(e);
}

static void check(const double *x, size_t n, const char *what)
{
    ga_fft_plan p;
    cr_assert(ga_fft_plan_init(&p, n) == GA_OK, "n %zu: no plan", n);
    double *z = malloc(2 * n * sizeof *z);
    cr_assert(z != NULL);
    for (size_t i = 0; i < 2 * n; i++)
        z[i] = x[i];
    ga_fft_forward(&p, z);
    double bound = ga_fft_relerr(n), e = rel_err(z, x, n, -1, 1);
    cr_expect(e <= bound, "%s, n %zu, forward: relative error %.3g > bound %.3g", what, n, e, bound);
    for (size_t i = 0; i < 2 * n; i++)
        z[i] = x[i];
    ga_fft_inverse(&p, z); /* x read as a spectrum in bit-reversed order */
    e = rel_err(z, x, n, 1, 0);
    cr_expect(e <= bound, "%s, n %zu, inverse: relative error %.3g > bound %.3g", what, n, e, bound);
    free(z);
    ga_fft_plan_clear(&p);
}

Test(fft, random_inputs_within_the_bound)
{
    gsl_rng *r = ga_test_rng(61);
    long reps = ga_test_count(3);
    for (size_t n = 2; n <= ((size_t)1 << MAX_LOG2); n *= 2)
        for (long t = 0; t < reps; t++) {
            double *x = malloc(2 * n * sizeof *x);
            cr_assert(x != NULL);
            /* entries over many magnitudes, and some real vectors (the bracket's case) */
            for (size_t i = 0; i < 2 * n; i++)
                x[i] = (t % 2 && i % 2) ? 0 : (gsl_rng_uniform(r) - 0.5) * exp(20 * gsl_rng_uniform(r) - 10);
            char what[64];
            snprintf(what, sizeof what, "random input %ld (seed 61)", t);
            check(x, n, what);
            free(x);
        }
    gsl_rng_free(r);
}

Test(fft, structured_inputs_within_the_bound)
{
    for (size_t n = 2; n <= ((size_t)1 << MAX_LOG2); n *= 4) {
        double *x = calloc(2 * n, sizeof *x);
        cr_assert(x != NULL);
        x[2] = 1; /* an impulse at 1: every frequency has modulus 1 */
        check(x, n, "impulse");
        for (size_t i = 0; i < n; i++)
            x[2 * i] = 1, x[2 * i + 1] = 0; /* a constant: all in frequency 0 */
        check(x, n, "constant");
        for (size_t i = 0; i < n; i++)
            x[2 * i] = exp(-0.5 * (double)i), x[2 * i + 1] = 0; /* a decaying law */
        check(x, n, "geometric");
        free(x);
    }
}

Test(fft, order_and_partners)
{
    for (size_t n = 2; n <= ((size_t)1 << 16); n *= 2) {
        unsigned char *seen = calloc(n, 1);
        cr_assert(seen != NULL);
        for (size_t i = 0, m = 1; i < n; i++) {
            size_t f = ga_fft_freq(n, i), g = ga_fft_freq(n, ga_fft_partner(i));
            if (i >= 2 * m)
                m <<= 1; /* (the loop's block, as a caller of ga_fft_partner_in keeps it) */
            cr_assert(ga_fft_partner_in(i, m) == ga_fft_partner(i),
                      "n %zu: position %zu: partner %zu in the block from %zu, %zu searched", n,
                      i, ga_fft_partner_in(i, m), m, ga_fft_partner(i));
            cr_assert(f < n && !seen[f], "n %zu: position %zu holds frequency %zu twice", n, i, f);
            seen[f] = 1;
            cr_assert(ga_fft_partner(i) < n && g == (n - f) % n,
                      "n %zu: position %zu (frequency %zu): partner %zu holds %zu", n, i, f,
                      ga_fft_partner(i), g);
        }
        free(seen);
    }
}

/* two real vectors transformed as one complex one, x + i y, come apart (ga_fft_unpack) into
 * the transforms of x and y taken alone, at every position, within the bound */
Test(fft, two_real_vectors_in_one_transform)
{
    gsl_rng *r = ga_test_rng(62);
    for (size_t n = 2; n <= 4096; n *= 4) {
        ga_fft_plan p;
        cr_assert(ga_fft_plan_init(&p, n) == GA_OK);
        double *z = malloc(2 * n * sizeof *z), *zx = calloc(2 * n, sizeof *zx),
               *zy = calloc(2 * n, sizeof *zy);
        cr_assert(z && zx && zy);
        for (size_t i = 0; i < n; i++) {
            z[2 * i] = zx[2 * i] = gsl_rng_uniform(r) - 0.5;
            z[2 * i + 1] = zy[2 * i] = gsl_rng_uniform(r) - 0.5;
        }
        ga_fft_forward(&p, z);
        ga_fft_forward(&p, zx);
        ga_fft_forward(&p, zy);
        double e = 0, nx = 0, bound = 3 * ga_fft_relerr(n);
        for (size_t i = 0; i < n; i++) {
            double x[2], y[2];
            ga_fft_unpack(x, y, z, i, ga_fft_partner(i));
            e = fmax(e, hypot(x[0] - zx[2 * i], x[1] - zx[2 * i + 1]));
            e = fmax(e, hypot(y[0] - zy[2 * i], y[1] - zy[2 * i + 1]));
            nx += zx[2 * i] * zx[2 * i] + zx[2 * i + 1] * zx[2 * i + 1] + zy[2 * i] * zy[2 * i] +
                  zy[2 * i + 1] * zy[2 * i + 1];
        }
        cr_expect(e <= bound * sqrt(nx), "n %zu (seed 62): unpacked transforms off by %.3g, "
                  "allowed %.3g", n, e, bound * sqrt(nx));
        free(z);
        free(zx);
        free(zy);
        ga_fft_plan_clear(&p);
    }
    gsl_rng_free(r);
}

Test(fft, lengths_that_are_not_powers_of_two_are_refused)
{
    static const size_t bad[] = {0, 1, 3, 6, 12, 1000};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        ga_fft_plan p;
        cr_expect(ga_fft_plan_init(&p, bad[k]) == GA_EINVAL, "n %zu accepted", bad[k]);
        ga_fft_plan_clear(&p);
    }
}

/* On threads lent by a loop of one item (a single pair of an audit) the transforms share
 * out their blocks and their larger passes' butterflies: bit for bit the one-thread result,
 * both directions, at lengths around the threshold and the block, on 2, 3 and 8 threads */
typedef struct {
    const ga_fft_plan *p;
    double *z;
    int inverse;
} lent_fft;

static void lent_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)i;
    (void)w;
    lent_fft *f = ctx;
    if (f->inverse)
        ga_fft_inverse(f->p, f->z);
    else
        ga_fft_forward(f->p, f->z);
}

Test(fft, threads_give_the_same_bits)
{
    static const size_t sizes[] = {(size_t)1 << 15, (size_t)1 << 16, (size_t)1 << 17,
                                   (size_t)1 << 19};
    static const int jobs[] = {2, 3, 8};
    gsl_rng *r = ga_test_rng(616);
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++) {
        size_t n = sizes[a];
        ga_fft_plan p;
        cr_assert(ga_fft_plan_init(&p, n) == GA_OK);
        double *x = malloc(2 * n * sizeof *x), *y = malloc(2 * n * sizeof *y);
        cr_assert(x && y);
        for (size_t i = 0; i < 2 * n; i++)
            x[i] = gsl_rng_uniform(r) - 0.5;
        for (int inverse = 0; inverse < 2; inverse++)
            for (size_t b = 0; b < sizeof jobs / sizeof *jobs; b++) {
                memcpy(y, x, 2 * n * sizeof *x);
                lent_fft f = {&p, y, inverse};
                ga_par_for(1, jobs[b], 0, lent_item, &f, NULL, NULL);
                double *one = malloc(2 * n * sizeof *one);
                cr_assert(one);
                memcpy(one, x, 2 * n * sizeof *x);
                f.z = one;
                lent_item(&f, 0, NULL); /* (outside any loop: one thread) */
                cr_expect(memcmp(one, y, 2 * n * sizeof *y) == 0,
                          "n %zu, %s, %d threads: not the one-thread transform bit for bit", n,
                          inverse ? "inverse" : "forward", jobs[b]);
                free(one);
            }
        free(x);
        free(y);
        ga_fft_plan_clear(&p);
    }
    gsl_rng_free(r);
}

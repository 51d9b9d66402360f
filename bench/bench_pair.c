/*
 * bench_pair.c - Gaussian pairs: reduction + 200-point two-direction profile for random
 * pairs of dimension 10 to 2000 (time, peak memory, agreement of the direct and two-tail
 * formulas at a few points), and the certified delta at one eps for d = 10, 50.
 */
#include "gaussaudit.h"
#include "bench/bench.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* bench.h's rank-one pair; generic: a full-rank change as well (every eigenvalue moves) */
static void make_pair(size_t d, gsl_rng *r, double *mx, double *sx, double *my, double *sy,
                      int generic)
{
    rank_one_pair(r, d, mx, sx, my, sy);
    for (size_t i = 0; generic && i < d; i++)
        sx[i * d + i] += 0.05 * (1 + i % 7);
}

int main(void)
{
    ga_init();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 99);
    printf("\n# Gaussian pairs: reduction + 200-point profile, both directions (direct formula)\n\n");
    printf("| d | change | reduce s | profile s | total s | peak RSS MiB | max |direct - tails| | max err est |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    size_t dims[] = {10, 50, 200, 1000, 2000};
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t di = 0; di < sizeof dims / sizeof *dims; di++) {
        for (int generic = 0; generic < 2; generic++) {
            size_t d = dims[di];
            if (d == 2000 && generic)
                continue;
            double *mx = malloc(d * sizeof *mx), *my = malloc(d * sizeof *my);
            double *sx = malloc(d * d * sizeof *sx), *sy = malloc(d * d * sizeof *sy);
            make_pair(d, r, mx, sx, my, sy, generic);
            ga_pair_input in = {d, mx, my, sx, sy, 1, {NULL, NULL, NULL, NULL}};
            ga_pair *p;
            char msg[256];
            double t0 = now();
            if (ga_pair_reduce(&p, &in, msg, sizeof msg)) {
                printf("| %zu | reduce failed: %s |\n", d, msg);
                continue;
            }
            double t1 = now();
            double eps[200];
            ga_pair_profile_grid(eps, 200, p, NULL, w);
            double maxerr = 0;
            for (int i = 0; i < 200; i++) {
                ga_delta D;
                ga_pair_delta(&D, p, eps[i], GA_DELTA_AUTO, NULL, w);
                maxerr = fmax(maxerr, fmax(D.xy.err, D.yx.err));
            }
            double t2 = now();
            double agree = 0;
            for (int i = 0; i < 200; i += 40) {
                ga_delta a, b;
                ga_pair_delta(&a, p, eps[i], GA_DELTA_DIRECT, NULL, w);
                ga_pair_delta(&b, p, eps[i], GA_DELTA_TAILS, NULL, w);
                agree = fmax(agree, fmax(fabs(a.xy.val - b.xy.val), fabs(a.yx.val - b.yx.val)));
            }
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            printf("| %zu | %s | %.3f | %.3f | %.3f | %.0f | %.1e | %.1e |\n", d,
                   generic ? "full rank" : "rank one", t1 - t0, t2 - t1, t2 - t0,
                   ru.ru_maxrss / 1024.0, agree, maxerr);
            fflush(stdout);
            ga_pair_free(p);
            free(mx);
            free(my);
            free(sx);
            free(sy);
        }
    }
    printf("\n# certified delta at eps = 1 (both directions)\n\n");
    printf("Relative widths from the printed decimal bounds (20 digits); asked: 1e-17 (digits 17).\n\n");
    printf("| d | s | bits | rel. width xy | rel. width yx | linear-algebra widening |\n|---|---|---|---|---|---|\n");
    size_t cd[] = {10, 50};
    for (size_t di = 0; di < 2; di++) {
        size_t d = cd[di];
        double *mx = malloc(d * sizeof *mx), *my = malloc(d * sizeof *my);
        double *sx = malloc(d * d * sizeof *sx), *sy = malloc(d * d * sizeof *sy);
        make_pair(d, r, mx, sx, my, sy, 1);
        ga_pair_input in = {d, mx, my, sx, sy, 1, {NULL, NULL, NULL, NULL}};
        ga_pair *p;
        char msg[256];
        ga_pair_reduce(&p, &in, msg, sizeof msg);
        ga_delta_cert c;
        double t0 = now();
        int st = ga_pair_delta_cert(&c, p, &in, NULL, "1", NULL);
        double t1 = now();
        long double lx = strtold(c.xy_lo, NULL), hx = strtold(c.xy_hi, NULL);
        long double ly = strtold(c.yx_lo, NULL), hy = strtold(c.yx_hi, NULL);
        printf("| %zu | %.2f | %ld | %.1Le | %.1Le | %.1e |%s\n", d, t1 - t0, c.precision_bits,
               (hx - lx) / lx, (hy - ly) / ly, fmax(c.la_bound_xy, c.la_bound_yx),
               st ? " status not ok" : "");
        ga_pair_free(p);
        free(mx);
        free(my);
        free(sx);
        free(sy);
    }
    ga_gchisq_work_free(w);
    gsl_rng_free(r);
    ga_cleanup();
    return 0;
}

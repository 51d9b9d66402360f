/*
 * bench_masked.c - matrix masking's setting (B), one column (noncentral chi-square pairs): the
 * pair's delta in both directions against its floor, the four noncentral chi-square tails
 * the closed form needs evaluated by the library's generalized chi-square engine (one run,
 * interleaved; ratio = masked delta / those four tails), and the certified delta to 15 digits
 * against the same floor. Synthetic points from random inputs: delta of the Figure 1 pair in
 * double and certified (ratio: certified / double, one run).
 */
#include "gaussaudit.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(void)
{
    ga_init();
    printf("\n# matrix masking, setting (B), one column: delta of a noncentral chi-square pair\n\n");
    printf("| n | sigma | delta at eps = 0.1 (XY) | double, per pair | four engine tails (floor) | "
           "ratio | certified 15 digits | ratio |\n|---|---|---|---|---|---|---|---|\n");
    static const double cases[][2] = {{100, 0.8358755991721479}, {10000, 0.2602362}, {1e6, 0.08}};
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double n = cases[c][0], sigma = cases[c][1], lam = 1 / (sigma * sigma);
        ga_masked_input in = {n, sigma, 1, 0, NULL, "1", "0"};
        ga_pair *p;
        char msg[256];
        if (ga_pair_reduce_masked(&p, &in, msg, sizeof msg)) {
            fprintf(stderr, "%s\n", msg);
            return 1;
        }
        ga_gchisq *qa = ga_gchisq_alloc(1), *qb = ga_gchisq_alloc(1);
        double one = 1, zero = 0;
        ga_gchisq_set_classical(qa, 1, &one, &n, &lam, 0, 0, NULL, 0);
        ga_gchisq_set_classical(qb, 1, &one, &n, &zero, 0, 0, NULL, 0);
        int reps = n > 1e5 ? 5 : 50;
        double tm = 0, te = 0, x = n + 1;
        ga_delta D;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            ga_pair_delta(&D, p, 0.1, GA_DELTA_AUTO, NULL, w);
            double t1 = now();
            ga_gchisq_prob pr;
            for (int k = 0; k < 2; k++) {
                ga_gchisq_prob_eval(&pr, qa, x, NULL, w);
                ga_gchisq_prob_eval(&pr, qb, x, NULL, w);
            }
            double t2 = now();
            tm += t1 - t0;
            te += t2 - t1;
        }
        tm /= reps;
        te /= reps;
        ga_cert_opts o;
        ga_cert_opts_init(&o);
        o.digits = 15;
        ga_delta_cert ce;
        double t0 = now();
        int st = ga_pair_delta_cert(&ce, p, NULL, NULL, "0.1", &o);
        double tc = now() - t0;
        printf("| %.0f | %.7g | %.6g +- %.1e | %.3g ms | %.3g ms | %.2f | %.3g ms%s | %.1f |\n", n,
               sigma, D.xy.val, D.xy.err, 1e3 * tm, 1e3 * te, tm / te, 1e3 * tc,
               st ? " (not reached)" : "", tc / te);
        ga_gchisq_free(qa);
        ga_gchisq_free(qb);
        ga_pair_free(p);
    }
    ga_gchisq_work_free(w);
    /* synthetic points from random inputs: the Figure 1 setting of Pierquin et al. */
    printf("\n# synthetic points from random inputs (d = 12, sigma = 1, models of norm 4 and 5)\n\n");
    printf("| points | delta at eps = 0.5 (YX) | double, per pair | certified 12 digits | ratio |\n"
           "|---|---|---|---|---|\n");
    static const double pts[] = {1, 5, 50};
    for (size_t c = 0; c < sizeof pts / sizeof *pts; c++) {
        ga_synthetic_input in = {12, pts[c], 1, 4, 5, "1", "4", "5", 0, 0};
        ga_pair *p;
        char msg[256];
        if (ga_pair_reduce_synthetic(&p, &in, msg, sizeof msg)) {
            fprintf(stderr, "%s\n", msg);
            return 1;
        }
        ga_delta D;
        double t0 = now();
        for (int r = 0; r < 20; r++)
            ga_pair_delta(&D, p, 0.5, GA_DELTA_AUTO, NULL, NULL);
        double td = (now() - t0) / 20;
        ga_cert_opts o;
        ga_cert_opts_init(&o);
        o.digits = 12;
        ga_delta_cert ce;
        t0 = now();
        int st = ga_pair_delta_cert(&ce, p, NULL, NULL, "0.5", &o);
        double tc = now() - t0;
        printf("| %.0f | %.6g +- %.1e | %.3g ms | %.3g ms%s | %.0f |\n", pts[c], D.yx.val, D.yx.err,
               1e3 * td, 1e3 * tc, st ? " (not reached)" : "", tc / td);
        ga_pair_free(p);
    }
    return 0;
}

/*
 * bench_cert.c - the certified path: time per certified evaluation (both tails) at relative
 * widths 1e-15 and 1e-30, for the reference-style forms and random forms of 10 and 50 terms,
 * with the precision reached.
 */
#include "gaussaudit.h"

#include <arb.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void run(const char *name, const ga_gchisq_exact *q, const char *x)
{
    int digits[3] = {15, 20, 30};
    for (int i = 0; i < 3; i++) {
        ga_cert_opts o;
        ga_cert_opts_init(&o);
        o.digits = digits[i];
        ga_gchisq_cert c;
        int n = 0, st = 0;
        double t0 = now(), t;
        do {
            st = ga_gchisq_prob_cert(&c, q, x, &o);
            n++;
            t = now();
        } while (t - t0 < 0.3);
        /* relative width of the printed sf interval, in ball arithmetic */
        arb_t lo, hi;
        arb_init(lo);
        arb_init(hi);
        arb_set_str(lo, c.sf_lo, 512);
        arb_set_str(hi, c.sf_hi, 512);
        arb_sub(hi, hi, lo, 512);
        arb_div(hi, hi, lo, 512);
        double w = arf_get_d(arb_midref(hi), ARF_RND_NEAR);
        arb_clear(lo);
        arb_clear(hi);
        printf("| %s | %s | 1e-%d | %.1f | %ld | %.1e | %s |\n", name, x, digits[i],
               1e3 * (t - t0) / n, c.precision_bits, w, st ? ga_strerror(st) : "ok");
    }
}

int main(void)
{
    ga_init();
    printf("\n# certified generalized chi-square (Arb): ms per evaluation (both tails)\n\n");
    printf("| form | x | rel. width asked | ms | bits | sf rel. width | status |\n");
    printf("|---|---|---|---|---|---|---|\n");
    ga_gchisq_exact *q = ga_gchisq_exact_alloc();
    char msg[256];
    const char *w3[3] = {"6", "3", "1"};
    ga_gchisq_exact_set_classical(q, 3, w3, NULL, NULL, NULL, NULL, msg, sizeof msg);
    run("6,3,1 chi2_1", q, "20");
    run("6,3,1 chi2_1", q, "200");
    const char *wg[3] = {"1", "-10", "2"}, *dg[3] = {"1", "2", "3"}, *ng[3] = {"2", "3", "7"};
    ga_gchisq_exact_set_classical(q, 3, wg, dg, ng, "5", "10", msg, sizeof msg);
    run("G1 (indefinite, normal)", q, "25");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    size_t sizes[2] = {10, 50};
    for (int s = 0; s < 2; s++) {
        ga_gchisq *qd = ga_gchisq_alloc(sizes[s]);
        for (size_t j = 0; j < sizes[s]; j++) {
            double a = 0.1 + gsl_rng_uniform(r);
            if (gsl_rng_uniform(r) < 0.4)
                a = -a;
            ga_gchisq_add_term(qd, a, 1, gsl_rng_uniform(r) < 0.5 ? 0 : a * a * gsl_rng_uniform(r));
        }
        double m, v;
        ga_gchisq_moments(&m, &v, qd);
        char xs[64], name[64];
        snprintf(xs, sizeof xs, "%.6g", m + 2 * sqrt(v));
        snprintf(name, sizeof name, "random, %zu terms", sizes[s]);
        ga_gchisq_exact_set_form(q, qd);
        run(name, q, xs);
        ga_gchisq_free(qd);
    }
    gsl_rng_free(r);
    ga_gchisq_exact_free(q);
    return 0;
}

/*
 * bench_gchisq.c - timings and accuracy of the generalized chi-square engines.
 * Per engine: time per tail (one ga_gchisq_prob_eval gives both tails; time / 2) and the
 * achieved error: against tests/data/gchisq.json for the reference cases, and
 * against a second, independent engine for random forms with 2, 10, 100, 1000 terms
 * (Davies with a tight tolerance, else Imhof; marked '-' when neither converged).
 */
#include "gaussaudit.h"
#include "specs/doc.h"

#include <float.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* seconds per call of ga_gchisq_prob_eval, repeated for at least `budget` seconds */
static double time_eval(const ga_gchisq *q, double x, const ga_gchisq_opts *o,
                        ga_gchisq_work *w, ga_gchisq_prob *p, double budget)
{
    long n = 0;
    double t0 = now(), t;
    do {
        ga_gchisq_prob_eval(p, q, x, o, w);
        n++;
        t = now();
    } while (t - t0 < budget);
    return (t - t0) / n;
}

static const int methods[] = {GA_METHOD_AUTO, GA_METHOD_CONTOUR, GA_METHOD_IMHOF,
                              GA_METHOD_DAVIES};
#define NMETH 4

static void reference_table(ga_gchisq *q, ga_gchisq_work *w)
{
    char msg[512];
    ga_doc doc;
    char path[1024];
    snprintf(path, sizeof path, "%s", "tests/data/gchisq.json");
    if (ga_doc_load(&doc, path, msg, sizeof msg)) {
        printf("reference cases skipped: %s\n", msg);
        return;
    }
    printf("\n## Reference cases (tests/data/gchisq.json), default options\n\n");
    printf("| case | x | method | us/tail | evals | max abs err | smaller-tail rel err | status |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    const ga_node *cases = ga_node_get(doc.root, "cases");
    for (size_t i = 0; cases && i < cases->n; i++) {
        const ga_node *c = cases->kids[i];
        double wv[16], dof[16], nc[16];
        const ga_node *ws = ga_node_get(c, "weights"), *ds = ga_node_get(c, "dof"),
                      *ns = ga_node_get(c, "nc");
        size_t n = ws->n;
        for (size_t j = 0; j < n && j < 16; j++) {
            ga_node_double(&wv[j], ws->kids[j]);
            ga_node_double(&dof[j], ds->kids[j]);
            ga_node_double(&nc[j], ns->kids[j]);
        }
        double sigma, off, x, sf, cdf;
        ga_node_double(&sigma, ga_node_get(c, "sigma"));
        ga_node_double(&off, ga_node_get(c, "offset"));
        ga_node_double(&x, ga_node_get(c, "x"));
        sf = strtod(ga_node_get(c, "sf")->text, NULL);
        cdf = strtod(ga_node_get(c, "cdf")->text, NULL);
        ga_gchisq_set_classical(q, n, wv, dof, nc, sigma, off, msg, sizeof msg);
        for (int m = 0; m < NMETH; m++) {
            ga_gchisq_opts o;
            ga_gchisq_opts_init(&o);
            o.method = methods[m];
            ga_gchisq_prob p;
            double t = time_eval(q, x, &o, w, &p, 0.05);
            int st = ga_gchisq_prob_eval(&p, q, x, &o, w);
            double ea = fmax(fabs(p.sf.val - sf), fabs(p.cdf.val - cdf));
            double er = sf < cdf ? fabs(p.sf.val - sf) / sf : fabs(p.cdf.val - cdf) / cdf;
            printf("| %s | %g | %s | %.1f | %zu | %.1e | %.1e | %s |\n",
                   ga_node_get(c, "name")->text, x, ga_method_name(methods[m]), 0.5e6 * t,
                   p.evals, ea, er, st ? ga_strerror(st) : "ok");
        }
    }
    ga_doc_clear(&doc);
}

static void random_forms(ga_gchisq *q, ga_gchisq_work *w)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    printf("\n## Random forms (x = mean + 2 sd; 40%% negative weights, half noncentral)\n\n");
    printf("| terms | method | us/tail | evals | err vs second engine | err estimate | status |\n");
    printf("|---|---|---|---|---|---|---|\n");
    size_t sizes[] = {2, 10, 100, 1000};
    for (size_t si = 0; si < 4; si++) {
        size_t n = sizes[si];
        double stats[NMETH][4] = {{0}};
        int nforms = 5;
        for (int f = 0; f < nforms; f++) {
            ga_gchisq_zero(q);
            for (size_t j = 0; j < n; j++) {
                double a = 0.1 + gsl_rng_uniform(r);
                if (gsl_rng_uniform(r) < 0.4)
                    a = -a;
                double b2 = gsl_rng_uniform(r) < 0.5 ? 0 : a * a * gsl_rng_uniform(r);
                ga_gchisq_add_term(q, a, 1, b2);
            }
            double m, v;
            ga_gchisq_moments(&m, &v, q);
            double x = m + 2 * sqrt(v);
            /* reference: Davies, tight, else Imhof */
            ga_gchisq_opts o;
            ga_gchisq_opts_init(&o);
            o.method = GA_METHOD_DAVIES;
            o.epsrel = 1e-15;
            o.max_evals = 2000000;
            ga_gchisq_prob ref;
            int sr = ga_gchisq_prob_eval(&ref, q, x, &o, w);
            if (sr) {
                o.method = GA_METHOD_IMHOF;
                sr = ga_gchisq_prob_eval(&ref, q, x, &o, w);
            }
            for (int mi = 0; mi < NMETH; mi++) {
                ga_gchisq_opts_init(&o);
                o.method = methods[mi];
                ga_gchisq_prob p;
                double t = time_eval(q, x, &o, w, &p, n >= 1000 ? 0.2 : 0.05);
                int st = ga_gchisq_prob_eval(&p, q, x, &o, w);
                double e = sr ? NAN : fmax(fabs(p.sf.val - ref.sf.val), fabs(p.cdf.val - ref.cdf.val));
                stats[mi][0] += 0.5e6 * t / nforms;
                stats[mi][1] += (double)p.evals / nforms;
                stats[mi][2] = fmax(stats[mi][2], e);
                stats[mi][3] = fmax(stats[mi][3], fmax(p.sf.err, p.cdf.err));
                if (st)
                    stats[mi][3] = -fabs(stats[mi][3]) - DBL_MIN; /* mark not converged */
            }
        }
        for (int mi = 0; mi < NMETH; mi++) {
            char es[32];
            if (isnan(stats[mi][2]))
                snprintf(es, sizeof es, "-");
            else
                snprintf(es, sizeof es, "%.1e", stats[mi][2]);
            printf("| %zu | %s | %.1f | %.0f | %s | %.1e | %s |\n", n, ga_method_name(methods[mi]),
                   stats[mi][0], stats[mi][1], es, fabs(stats[mi][3]),
                   stats[mi][3] < 0 ? "not all converged" : "ok");
        }
    }
    gsl_rng_free(r);
}

int main(void)
{
    ga_init();
    ga_gchisq *q = ga_gchisq_alloc(1000);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    if (!q || !w)
        return 1;
    printf("# gaussaudit benchmark: generalized chi-square engines (double precision)\n");
    reference_table(q, w);
    random_forms(q, w);
    ga_gchisq_free(q);
    ga_gchisq_work_free(w);
    return 0;
}

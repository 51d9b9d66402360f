/*
 * bench_scale.c - speed at scale: each figure beside its target and the ratio,
 * measured in one run against a floor or a second method:
 *   threads   an evaluation-heavy audit (2000 pairs, DP, RDP, zCDP and GDP claims) and a
 *             build-heavy one (GP regression, 300 neighbours), --jobs 1 against --jobs 2
 *             (and all cores); the reports compared byte for byte
 *   ridge     output_perturbation and linear_regression remove-one on 1500, 3000, 6000
 *             rows of 20 features: the time per neighbour (updates of X^T X, and of the
 *             residual sum of squares) must stay flat; beside it, n fresh Gram matrices' time
 *   shards    the first of them in 4 shards and the merge: the merged report against the
 *             single run's, the merge's time against the single run's
 *   engines   auto against the project's own davies engine per tail on random forms of 100
 *             and 1000 terms (x = mean + 2 sd), with Davies also asked for auto's guarantee
 *             (relative 1e-13 in the smaller tail, i.e. an absolute tolerance of 1e-13 times it),
 *             and the contour engine at that target: auto against the fastest that meets it
 *   reduction a full-rank pair at d = 1000 against the floor chain (Cholesky, two triangular
 *             solves, dsyevd) in the same run
 *   reading   gaussian_pair specs of dimension 600 and 2000 (two dense covariances, 15 and
 *             165 MB of YAML), each in a fresh process: read and parse against read and a
 *             bare strtod scan of the same file; the peak memory the load added against the
 *             matrices' bytes
 *   certified one ball-matrix product at 128 bits, k = 300 and 1000: Arb's arb_mat_mul
 *             against the BLAS (numerics/matmul.c) in the same run; the certified delta's
 *             relative width at eps = 1 for well-conditioned pairs of dimension 50 to 2000
 *             (rank-one and full-rank changes), asked 1e-17, beside the floating reduction's
 *             own widening (digits 12: refined only where even 12 digits need it); and a
 *             product of two full-rank blocks of dimension 50 (refined block by block)
 *   calibrate the analytic Gaussian case against its 40-digit root (mpmath)
 *   start-up  `gaussaudit version`, a 1-D cdf and a 2-D delta against /bin/true
 *             (posix_spawn, wall and CPU time, 40 runs each), and the shared objects loaded before main
 */
#include "gaussaudit.h"
#include "bench/bench.h"
#include "catalogue/catalogue.h"
#include "numerics/numerics.h"
#include "numerics/arb.h"

#include <gsl/gsl_cblas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* a text buffer (open_memstream) */
typedef struct {
    char *p;
    size_t n;
    FILE *f;
} buf;

static void buf_open(buf *b)
{
    b->p = NULL;
    b->n = 0;
    b->f = open_memstream(&b->p, &b->n);
}

static char *buf_close(buf *b)
{
    fclose(b->f);
    return b->p;
}

/* the evaluation-heavy spec: n explicit pairs of dimension 3 with unequal covariances (every
 * delta a contour integral), claims of every type (the GDP check: 60 eps per pair) */
static char *spec_many(int n)
{
    buf b;
    buf_open(&b);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    fputs("gaussaudit: 1\nname: many pairs\nmechanism: {kind: gaussian_pair}\npairs:\n", b.f);
    for (int k = 0; k < n; k++) {
        fprintf(b.f, "  - name: pair %d\n", k + 1);
        for (int side = 0; side < 2; side++) {
            double c[3];
            for (int i = 0; i < 3; i++)
                c[i] = side ? 1.0 : 0.7 + 0.6 * gsl_rng_uniform(r);
            fprintf(b.f, "    %s: {mean: [%.4f, %.4f, %.4f], cov: [[%.4f, 0.1, 0], [0.1, %.4f, 0], "
                    "[0, 0, %.4f]]}\n", side ? "y" : "x", side ? 0 : 0.3 * gsl_rng_uniform(r),
                    side ? 0 : 0.3 * gsl_rng_uniform(r), 0.0, c[0], c[1], c[2]);
        }
    }
    fputs("claim:\n  epsilon: 1\n  delta: 0.2\n  rdp: [[2, 0.3]]\n  zcdp: 0.2\n  gdp: 1.5\n", b.f);
    gsl_rng_free(r);
    return buf_close(&b);
}

/* a GP regression spec on n rows (remove-one: one factorisation, a downdate per neighbour) */
static char *spec_gp(int n)
{
    buf b;
    buf_open(&b);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 6);
    fputs("gaussaudit: 1\nname: GP\nmechanism: {kind: gaussian_process_regression, kernel: rbf, "
          "lengthscale: 0.5, signal_variance: 1, noise_variance: 0.1, sigma: 0.2, query: [[0.1, "
          "0.2], [0.5, 0.5], [0.9, 0.1]]}\ndataset: {rows: [", b.f);
    for (int i = 0; i < n; i++)
        fprintf(b.f, "%s[%.4f, %.4f, %.4f]", i ? ", " : "", gsl_rng_uniform(r), gsl_rng_uniform(r),
                gsl_rng_uniform(r) - 0.5);
    fputs("]}\nneighbours: remove_one\nclaim: {epsilon: 1, delta: 1.0e-5}\n", b.f);
    gsl_rng_free(r);
    return buf_close(&b);
}

/* the build-heavy spec: Bayesian logistic regression on n rows of 6 features (a Newton
 * solve per neighbour) */
static char *spec_logistic(int n)
{
    buf b;
    buf_open(&b);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 4);
    fputs("gaussaudit: 1\nname: logistic\nmechanism: {kind: bayesian_logistic_regression, "
          "lambda: 1.0, sigma: 0.5}\ndataset: {rows: [", b.f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", [" : "[", b.f);
        for (int j = 0; j < 6; j++)
            fprintf(b.f, "%.4f, ", 2 * gsl_rng_uniform(r) - 1);
        fprintf(b.f, "%d]", gsl_rng_uniform(r) < 0.5);
    }
    fputs("]}\nneighbours: remove_one\nclaim: {epsilon: 1, delta: 1.0e-5}\n", b.f);
    gsl_rng_free(r);
    return buf_close(&b);
}

/* audit spec text with opts; the JSON report (malloc'ed) and the wall time */
static char *audit_json(const char *text, const ga_audit_options *o, double *secs)
{
    ga_audit_result *r;
    char msg[512];
    double t0 = now();
    if (ga_audit_spec_text(&r, text, strlen(text), "bench.yaml", o, msg, sizeof msg)) {
        printf("audit failed: %s\n", msg);
        exit(1);
    }
    *secs = now() - t0;
    buf b;
    buf_open(&b);
    ga_audit_result_write(b.f, r, GA_FORMAT_JSON);
    ga_audit_result_free(r);
    return buf_close(&b);
}

static void threads(void)
{
    printf("\n## Threads: --jobs (this machine: %ld online cores)\n\n",
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("| audit | pairs | jobs 1 s (best of 2) | jobs 2 s (best of 2) | speedup | target | all cores s | reports |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    struct {
        const char *name;
        char *text;
        int pairs, certified;
    } w[] = {{"evaluation-heavy (DP, RDP, zCDP, GDP)", spec_many(300), 300, 0},
             {"build-heavy (Bayesian logistic regression)", spec_logistic(3000), 3000, 0},
             {"certified (--certified: every pair's intervals in Arb)", spec_many(200), 200, 1}};
    for (int k = 0; k < 3; k++) {
        ga_audit_options o;
        ga_audit_options_init(&o);
        o.certified = w[k].certified;
        /* best of two runs at each --jobs (this virtual machine's timings vary by up to half
         * from one run to the next); every report must be the same */
        double t1 = INFINITY, t2 = INFINITY, ta, t;
        char *a = NULL, *b = NULL, *c;
        int same = 1;
        for (int rep = 0; rep < 2; rep++) {
            o.jobs = 1;
            char *x = audit_json(w[k].text, &o, &t);
            t1 = fmin(t1, t);
            o.jobs = 2;
            char *y = audit_json(w[k].text, &o, &t);
            t2 = fmin(t2, t);
            same &= !strcmp(x, y) && (!a || !strcmp(a, x));
            free(a);
            free(b);
            a = x;
            b = y;
        }
        o.jobs = 0;
        c = audit_json(w[k].text, &o, &ta);
        same &= !strcmp(a, c);
        printf("| %s | %d | %.2f | %.2f | %.2fx | >= 1.6x on 2 cores | %.2f | %s |\n", w[k].name,
               w[k].pairs, t1, t2, t1 / t2, ta, same ? "identical" : "DIFFER");
        char work[160], m[128];
        snprintf(work, sizeof work, "%d pairs, %s, audit --jobs 1 against --jobs 2", w[k].pairs, w[k].name);
        snprintf(m, sizeof m, "%.2f s, %.2f s (reports %s)", t1, t2, same ? "identical" : "DIFFER");
        goal_row(work, m, ">= 1.6x on 2 cores (10x on 16), identical reports", t1 / t2,
                 t1 / t2 >= 1.6 && same);
        free(a);
        free(b);
        free(c);
    }
    /* shards: the first audit in 4 parts, merged */
    printf("\n## Shards: audit --shard I/4, then merge (one machine, one shard after another)\n\n");
    printf("| audit | single s | shards s (each) | merge s | merge / single | merged report |\n|---|---|---|---|---|---|\n");
    ga_audit_options o;
    ga_audit_options_init(&o);
    o.jobs = 1;
    double t1;
    char spec[64];
    snprintf(spec, sizeof spec, "/tmp/ga_bench_spec_%d.yaml", (int)getpid());
    FILE *sf = fopen(spec, "w");
    fputs(w[0].text, sf);
    fclose(sf);
    char *one = audit_json(w[0].text, &o, &t1);
    char path[4][64], each[128] = "";
    const char *parts[4];
    double tsum = 0;
    for (int i = 0; i < 4; i++) {
        snprintf(path[i], sizeof path[i], "/tmp/ga_bench_part%d_%d.json", i + 1, (int)getpid());
        parts[i] = path[i];
        o.shard = (size_t)i + 1;
        o.nshards = 4;
        ga_audit_result *r;
        char msg[512];
        double t0 = now();
        if (ga_audit_spec_file(&r, spec, &o, msg, sizeof msg))
            return (void)printf("shard failed: %s\n", msg);
        double ts = now() - t0;
        tsum += ts;
        FILE *f = fopen(path[i], "w");
        ga_audit_result_write(f, r, GA_FORMAT_PARTIAL);
        fclose(f);
        ga_audit_result_free(r);
        size_t l = strlen(each);
        snprintf(each + l, sizeof each - l, "%s%.2f", i ? ", " : "", ts);
    }
    o.shard = o.nshards = 0;
    ga_audit_result *m;
    char msg[512];
    double t0 = now();
    if (ga_audit_merge_files(&m, parts, 4, NULL, &o, msg, sizeof msg))
        return (void)printf("merge failed: %s\n", msg);
    double tm = now() - t0;
    buf b;
    buf_open(&b);
    ga_audit_result_write(b.f, m, GA_FORMAT_JSON);
    ga_audit_result_free(m);
    char *mj = buf_close(&b);
    /* the single run's report names "bench.yaml", the merged one the file: compare the
     * merged report with a single run on the file */
    free(one);
    one = NULL;
    {
        ga_audit_result *r1;
        if (ga_audit_spec_file(&r1, spec, &o, msg, sizeof msg) == GA_OK) {
            buf_open(&b);
            ga_audit_result_write(b.f, r1, GA_FORMAT_JSON);
            ga_audit_result_free(r1);
            one = buf_close(&b);
        }
    }
    unlink(spec);
    printf("| %s | %.2f | %s (sum %.2f) | %.2f | %.2f | %s |\n", w[0].name, t1, each, tsum, tm,
           tm / t1, one && !strcmp(one, mj) ? "identical" : "DIFFER");
    for (int i = 0; i < 4; i++)
        unlink(path[i]);
    free(one);
    free(mj);
    for (int k = 0; k < 3; k++)
        free(w[k].text);
}

/* GP regression remove-one, 1500 rows (0.3 s per neighbour, about 8 minutes, with a
 * factorisation per neighbour) */
static void gp_rows(void)
{
    char *t = spec_gp(1500);
    ga_audit_options o;
    ga_audit_options_init(&o);
    o.jobs = 1;
    double secs;
    free(audit_json(t, &o, &secs));
    printf("\n## GP regression, remove-one, 1500 rows (one factorisation, a rank-one downdate per "
           "neighbour)\n\n| audit s (jobs 1) | per neighbour ms | target per neighbour ms | "
           "ratio |\n|---|---|---|---|\n| %.2f | %.3f | 300 | %.4f |\n", secs, 1e3 * secs / 1500,
           secs / 1500 / 0.3);
    free(t);
}

/* a ridge-type kind (mech: its mapping) on n rows of p features, remove-one */
static char *spec_ridge(const char *mech, int n, int p, double **rows)
{
    buf b;
    buf_open(&b);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 8);
    *rows = malloc((size_t)n * (size_t)p * sizeof **rows);
    fprintf(b.f, "gaussaudit: 1\nname: ridge\nmechanism: %s\ndataset: {rows: [", mech);
    for (int i = 0; i < n; i++) {
        double y = 0;
        fputs(i ? ", [" : "[", b.f);
        for (int j = 0; j < p; j++) {
            double x = round(1e4 * (2 * gsl_rng_uniform(r) - 1)) / 1e4;
            (*rows)[(size_t)i * (size_t)p + (size_t)j] = x;
            y += j < 3 ? x : 0;
            fprintf(b.f, "%.4f, ", x);
        }
        fprintf(b.f, "%.4f]", y + 0.5 * (gsl_rng_uniform(r) - 0.5));
    }
    fputs("]}\nneighbours: remove_one\nclaim: {epsilon: 1, delta: 1.0e-5}\n", b.f);
    gsl_rng_free(r);
    return buf_close(&b);
}

static void ridge_kind_rows(const char *mech, const char *what);

/* Ridge-type kinds: the neighbours' laws from updates of X^T X and X^T y
 * (linear_regression: and of the residual sum of squares), O(p^2) each plus a p x p solve, so
 * building all n laws is O(n p^2 + n p^3): the time per neighbour must stay flat as n grows.
 * Beside it, what n fresh Gram matrices (one dsyrk of the n x p data per neighbour, the
 * previous way) would cost. */
static void ridge_rows(void)
{
    static const char *const mech[2] = {"{kind: output_perturbation, lambda: 5, sigma: 0.3}",
                                        "{kind: linear_regression, columns: 200, sigma: 2}"};
    for (int kd = 0; kd < 2; kd++)
        ridge_kind_rows(mech[kd], kd ? "linear_regression, residuals updated too"
                                      : "output_perturbation");
}

static void ridge_kind_rows(const char *mech, const char *what)
{
    const int p = 20, ns[] = {1500, 3000, 6000};
    double per[3];
    printf("\n## Ridge kinds (%s), remove-one, p = %d: neighbours by updates of "
           "X^T X, X^T y\n\n| rows | build s (parse + all laws, 1 thread, best of 2) | per neighbour us | "
           "n fresh Gram matrices s | per neighbour vs 1500 rows (target <= 1.3) |\n"
           "|---|---|---|---|---|\n", what, p);
    for (int t = -1; t < 3; t++) { /* t = -1: a warm-up (the BLAS is loaded on first use) */
        int n = t < 0 ? 100 : ns[t];
        double *rows;
        char *text = spec_ridge(mech, n, p, &rows);
        ga_spec s;
        ga_pairset set;
        char msg[512];
        double secs = INFINITY;
        for (int rep = 0; rep < 2; rep++) { /* the faster of two (the first grows the heap) */
            double t0 = now();
            int rc = ga_mech_parse(&s, &set, text, strlen(text), "ridge.yaml", NULL, NULL, msg,
                                   sizeof msg);
            secs = fmin(secs, now() - t0);
            if (rc) {
                printf("ridge: %s\n", msg);
                free(text);
                free(rows);
                return;
            }
            ga_mech_clear(&s, &set);
        }
        if (t < 0) {
            free(text);
            free(rows);
            continue;
        }
        double *G = malloc((size_t)p * (size_t)p * sizeof *G);
        int reps = 0;
        double g0 = now(), g;
        do {
            ga_cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, p, n, 1.0, rows, p, 0.0, G, p);
            reps++;
        } while ((g = now() - g0) < 0.2);
        per[t] = secs / n;
        printf("| %d | %.3f | %.1f | %.2f | %.2f |\n", n, secs, 1e6 * per[t], g / reps * n,
               per[t] / per[0]);
        free(G);
        free(text);
        free(rows);
    }
}

static double time_eval(const ga_gchisq *q, double x, const ga_gchisq_opts *o, ga_gchisq_work *w,
                        ga_gchisq_prob *p, int *st)
{
    int reps = 0;
    double t0 = now(), t;
    do {
        *st = ga_gchisq_prob_eval(p, q, x, o, w);
        reps++;
    } while ((t = now() - t0) < 0.2);
    return 1e6 * t / reps;
}

/* one row: forms of n terms at x = mean + zsd sd, auto and davies at relative epsrel */
static void engine_row(size_t n, double zsd, double epsrel, gsl_rng *r, ga_gchisq *q,
                       ga_gchisq_work *w)
{
    double ta = 0, td = 0, tstrict = 0, tc = 0, ea = 0, ed = 0, ad = 0;
    int ok_strict = 0, ok_contour = 0, nf = 3, used_davies = 0;
    for (int f = 0; f < nf; f++) {
        ga_gchisq_zero(q);
        for (size_t j = 0; j < n; j++) {
            double a = 0.1 + gsl_rng_uniform(r);
            if (gsl_rng_uniform(r) < 0.4)
                a = -a;
            ga_gchisq_add_term(q, a, 1, gsl_rng_uniform(r) < 0.5 ? 0 : a * a * gsl_rng_uniform(r));
        }
        double m, v;
        ga_gchisq_moments(&m, &v, q);
        double x = m + zsd * sqrt(v);
        ga_gchisq_opts o;
        ga_gchisq_prob p, ref;
        int st;
        ga_gchisq_opts_init(&o);
        o.method = GA_METHOD_CONTOUR; /* the reference: the contour engine at 1e-14 */
        o.epsrel = 1e-14;
        ga_gchisq_prob_eval(&ref, q, x, &o, w);
        double small = fmin(ref.sf.val, ref.cdf.val);
        ga_gchisq_opts_init(&o);
        o.epsrel = epsrel;
        ta += time_eval(q, x, &o, w, &p, &st) / nf;
        used_davies += p.method == GA_METHOD_DAVIES;
        ea = fmax(ea, fmax(p.sf.err, p.cdf.err) / small);
        ad = fmax(ad, fmax(fabs(p.sf.val - ref.sf.val), fabs(p.cdf.val - ref.cdf.val)) / small);
        o.method = GA_METHOD_DAVIES;
        o.epsrel = 1e-13; /* the project's davies engine at an absolute 1e-13 */
        td += time_eval(q, x, &o, w, &p, &st) / nf;
        ed = fmax(ed, fmax(p.sf.err, p.cdf.err) / small);
        /* davies asked for auto's guarantee: an absolute epsrel times the smaller tail */
        o.epsrel = 0;
        o.epsabs = epsrel * small;
        tstrict += time_eval(q, x, &o, w, &p, &st) / nf;
        ok_strict += st == GA_OK && fmax(p.sf.err, p.cdf.err) <= epsrel * small;
        /* the contour engine at auto's target (relative, both tails) */
        ga_gchisq_opts_init(&o);
        o.method = GA_METHOD_CONTOUR;
        o.epsrel = epsrel;
        tc += time_eval(q, x, &o, w, &p, &st) / nf;
        ok_contour += st == GA_OK;
    }
    printf("| %zu | mean + %g sd | %.0e | %.1f | %s | %.1e | %.1e | %.1f | %.1e | %.2f | %d of %d "
           "(%.0f us) |\n", n, zsd, epsrel, ta, used_davies == nf ? "davies" : used_davies ? "mixed" : "contour",
           ea, ad, td, ed, ta / td, ok_strict, nf, tstrict);
    if (zsd == 2) {
        /* the goal: auto against the fastest engine that gives auto's guarantee (relative
         * epsrel on both tails) on every form; davies at the looser absolute 1e-13 is shown
         * beside it (at relative 1e-13 on a 2% tail, i.e. 10 ulps absolute, its sum's rounding
         * bound of about 8 ulps of 1/2 leaves no room: it never qualifies there) */
        double best = INFINITY;
        const char *who = "none";
        if (ok_contour == nf && tc < best) {
            best = tc;
            who = "contour";
        }
        if (ok_strict == nf && tstrict < best) {
            best = tstrict;
            who = "davies";
        }
        char work[128], m[256];
        snprintf(work, sizeof work, "generalized chi-square CDF, bulk (mean + 2 sd), %zu terms, "
                 "relative %.0e", n, epsrel);
        snprintf(m, sizeof m, "auto %.0f us/tail; the fastest engine meeting that target on all %d "
                 "forms: %s %.0f us (davies met it on %d, %.0f us; at absolute 1e-13 %.0f us)",
                 ta, nf, who, best, ok_strict, tstrict, td);
        goal_row(work, m, "auto <= 1.2x the fastest engine at the same guarantee", ta / best,
                 ta / best <= 1.2);
    }
}

static void engines(void)
{
    printf("\n## Engines: auto against the project's davies engine, per tail (random forms)\n\n");
    printf("auto guarantees the relative target in both tails; davies is run at an absolute "
           "1e-13 and asked for auto's guarantee (absolute: target x the smaller "
           "tail; 'met' = status ok and error bound within it). Target: auto <= 1.2 x the fastest "
           "engine (contour, or davies where it met it) at auto's guarantee.\n\n");
    printf("| terms | x | relative target | auto us | auto chose | auto rel err est | auto rel err "
           "(vs contour 1e-14) | davies us (abs 1e-13) | its rel err est | auto / davies | davies "
           "at auto's target: met |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    ga_gchisq *q = ga_gchisq_alloc(1000);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    size_t sizes[] = {100, 1000};
    for (int si = 0; si < 2; si++) {
        engine_row(sizes[si], 2, 1e-13, r, q, w);
        engine_row(sizes[si], 0.2, 1e-13, r, q, w);
        engine_row(sizes[si], 2, 1e-10, r, q, w);
    }
    ga_gchisq_free(q);
    ga_gchisq_work_free(w);
    gsl_rng_free(r);
}

static void reduction(void)
{
    printf("\n## Reduction of a full-rank pair against the floor chain (Cholesky, 2 triangular "
           "solves, dsyevd)\n\n| d | reduce s | floor s | ratio | target |\n|---|---|---|---|---|\n");
    size_t ds[] = {1000, 2000};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 8);
    for (int k = 0; k < 2; k++) {
        size_t d = ds[k];
        double *b = malloc(d * d * sizeof *b), *sx = malloc(d * d * sizeof *sx),
               *sy = malloc(d * d * sizeof *sy), *mx = calloc(d, sizeof *mx), *my = calloc(d, sizeof *my),
               *L = malloc(d * d * sizeof *L), *C = malloc(d * d * sizeof *C), *ev = malloc(d * sizeof *ev);
        for (size_t i = 0; i < d * d; i++)
            b[i] = gsl_ran_gaussian(r, 1);
        ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)d, (int)d, (int)d, 1.0 / d, b,
                    (int)d, b, (int)d, 0.0, sy, (int)d);
        for (size_t i = 0; i < d; i++) {
            sy[i * d + i] += 1;
            mx[i] = gsl_ran_gaussian(r, 1) / sqrt((double)d);
        }
        memcpy(sx, sy, d * d * sizeof *sx);
        for (size_t i = 0; i < d; i++)
            sx[i * d + i] += 0.05 * (1 + i % 7);
        ga_pair_input in = {.d = d, .mu_x = mx, .mu_y = my, .s_x = sx, .s_y = sy, .columns = 1};
        char msg[256];
        /* interleaved, the better of two rounds each (the first BLAS call of a size wakes
         * threads and faults in buffers) */
        double tr = INFINITY, tf = INFINITY;
        for (int round = 0; round < 2; round++) {
            ga_pair *p;
            double t0 = now();
            if (ga_pair_reduce(&p, &in, msg, sizeof msg)) {
                printf("| %zu | reduce failed: %s |\n", d, msg);
                break;
            }
            tr = fmin(tr, now() - t0);
            ga_pair_free(p);
            t0 = now();
            memcpy(L, sy, d * d * sizeof *L);
            ga_lapack_potrf('L', d, L, d);
            for (size_t i = 0; i < d * d; i++)
                C[i] = sx[i] - sy[i];
            ga_cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)d,
                        (int)d, 1.0, L, (int)d, C, (int)d);
            ga_cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)d,
                        (int)d, 1.0, L, (int)d, C, (int)d);
            ga_lapack_syevd('V', 'U', d, C, d, ev);
            tf = fmin(tf, now() - t0);
        }
        printf("| %zu | %.3f | %.3f | %.2f | <= 1.2 |\n", d, tr, tf, tr / tf);
        char work[128], m[128];
        snprintf(work, sizeof work, "pair reduction d = %zu against the LAPACK floor", d);
        snprintf(m, sizeof m, "%.3f s, floor %.3f s", tr, tf);
        goal_row(work, m, "<= 1.2x", tr / tf, tr / tf <= 1.2);
        free(b);
        free(sx);
        free(sy);
        free(mx);
        free(my);
        free(L);
        free(C);
        free(ev);
    }
    gsl_rng_free(r);
}

/* a /proc/self/status field in KiB (VmRSS, VmHWM) */
static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':')
            v = atol(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

/* The child of the reading figure, a fresh process as the CLI is (the same malloc settings,
 * the libraries loaded and initialised): read the file into memory, then either scan it with
 * strtod (mode "floor") or parse it as a spec (mode "load"). Prints the seconds and the peak
 * resident memory added (KiB) to what the process had before reading. */
static int read_child(const char *mode, const char *path)
{
    long base = status_kib("VmRSS");
    double t0 = now(), sum = 0;
    int rc = 0;
    if (!strcmp(mode, "floor")) {
        if (strtod_floor(path, &sum) < 0)
            return 1;
    } else {
        /* as the CLI reads a spec file: in pieces, the text never whole (specs/doc.c) */
        ga_spec sp;
        ga_pairset set;
        char msg[256];
        ga_build_opts bo = {.drop_data = 1}; /* (as the CLI: built once) */
        rc = ga_mech_load(&sp, &set, path, NULL, &bo, msg, sizeof msg);
        sum = rc ? 0 : set.pairs[0].s_x[1];
    }
    double t = now() - t0;
    printf("%.6f %ld %g\n", t, status_kib("VmHWM") - base, sum);
    return rc ? 1 : 0;
}

static void reading(const char *self)
{
    printf("\n## Reading a spec: gaussian_pair (two dense covariances), fresh processes\n\n"
           "The floor reads the file and scans every number with strtod; the load reads the file\n"
           "as the CLI does (in pieces, parsed as they arrive: the one number reader, the exact\n"
           "decimals kept, the SHA-256). Best of 3. Memory: the peak resident memory the load\n"
           "added while reading, text included (the text alone is about 2.8x the matrices'\n"
           "bytes, and the floor holds it whole).\n\n");
    printf("| d | YAML MB | load s | floor s | ratio | target | load peak MiB | text MiB | "
           "matrices MiB | peak / matrices | target |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    const size_t dims[2] = {600, 2000};
    for (int k = 0; k < 2; k++) {
        size_t d = dims[k];
        char path[128];
        snprintf(path, sizeof path, "/tmp/ga_bench_read_%d.yaml", (int)getpid());
        FILE *f = fopen(path, "w");
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, 9);
        fputs("gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs:\n  - name: big\n", f);
        for (int side = 0; side < 2; side++) {
            fprintf(f, "    %s: {mean: [", side ? "y" : "x");
            for (size_t i = 0; i < d; i++)
                fprintf(f, "%s%.17g", i ? ", " : "", side ? 0.0 : gsl_rng_uniform(r));
            fputs("], cov: [", f);
            for (size_t i = 0; i < d; i++) {
                fputs(i ? ", [" : "[", f);
                for (size_t j = 0; j < d; j++)
                    fprintf(f, "%s%.17g", j ? ", " : "",
                            i == j ? 2.0 + side : 1.0 / (1.0 + (double)(i > j ? i - j : j - i)));
                fputs("]", f);
            }
            fputs("]}\n", f);
        }
        fputs("claim: {epsilon: 1, delta: 1.0e-5}\n", f);
        long len = ftell(f);
        fclose(f);
        gsl_rng_free(r);
        double best[2] = {1e300, 1e300};
        long peak[2] = {0, 0};
        int ok = 1;
        for (int rep = 0; rep < 3; rep++)
            for (int m = 0; m < 2; m++) {
                char cmd[512];
                snprintf(cmd, sizeof cmd, "%s --read-%s %s", self, m ? "floor" : "load", path);
                FILE *c = popen(cmd, "r");
                double t = 0, chk = 0;
                long kib = 0;
                if (!c || fscanf(c, "%lf %ld %lf", &t, &kib, &chk) != 3)
                    ok = 0;
                if (c && pclose(c) != 0)
                    ok = 0;
                if (t < best[m]) {
                    best[m] = t;
                    peak[m] = kib;
                }
            }
        unlink(path);
        double mat = 2.0 * (double)(d * d + d) * sizeof(double) / (1 << 20);
        double text = len / (double)(1 << 20), pk = peak[0] / 1024.0;
        printf("| %zu | %.1f | %.3f%s | %.3f | %.2f | <= 2 | %.1f | %.1f | %.1f | %.2f | <= 3 |\n",
               d, len / 1e6, best[0], ok ? "" : " (failed)", best[1], best[0] / best[1], pk, text,
               mat, pk / mat);
        if (d == 2000) {
            char m[128];
            snprintf(m, sizeof m, "%.3f s, strtod scan %.3f s%s", best[0], best[1], ok ? "" : " (failed)");
            goal_row("spec reading d = 2000 against a bare strtod scan", m, "<= 1.5x",
                     best[0] / best[1], ok && best[0] / best[1] <= 1.5);
        }
    }
}

/* certified width (item 8): a well-conditioned pair of dimension d, a rank-one change
 * (d - 1 equal generalized eigenvalues) or a full-rank one, certified at eps = 1 with the
 * default 17 digits (the refined reference) against digits 12 (the floating reduction's own
 * reference, whose widening is the floor of 1e-14) */
/* a well-conditioned pair of dimension d (bench.h's rank-one pair; generic: plus a random
 * diagonal in S_x, a full-rank change) */
static void cert_pair(gsl_rng *r, size_t d, int generic, double *mx, double *my, double *sx,
                      double *sy)
{
    rank_one_pair(r, d, mx, sx, my, sy);
    for (size_t i = 0; generic && i < d; i++)
        sx[i * d + i] += 0.3 * gsl_rng_uniform(r);
}

/* One ball-matrix product of dimension k at 128 bits (the refinement's), Arb's arb_mat_mul
 * against the BLAS (numerics/matmul.c), in one run: seconds and the largest radius relative
 * to the entries' scale (A: doubles; B: 128-bit midpoints with radii 2^-120). */
static void certified_products(void)
{
    printf("\n## Ball-matrix product at 128 bits (the refinement's): Arb against the BLAS\n\n"
           "| k | arb_mat_mul s | BLAS s | ratio | largest radius, Arb | BLAS |\n"
           "|---|---|---|---|---|---|\n");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 8);
    static const slong ks[] = {300, 1000};
    for (size_t c = 0; c < sizeof ks / sizeof *ks; c++) {
        slong k = ks[c];
        arb_mat_t A, B, C1, C2;
        arb_mat_init(A, k, k);
        arb_mat_init(B, k, k);
        arb_mat_init(C1, k, k);
        arb_mat_init(C2, k, k);
        arb_t t;
        arb_init(t);
        for (slong i = 0; i < k; i++)
            for (slong j = 0; j < k; j++) {
                arb_set_d(arb_mat_entry(A, i, j), gsl_ran_gaussian(r, 1) / sqrt((double)k));
                arb_ptr b = arb_mat_entry(B, i, j);
                arb_set_d(b, gsl_ran_gaussian(r, 1));
                arb_set_d(t, gsl_rng_uniform(r));
                arb_mul_2exp_si(t, t, -60);
                arb_add(b, b, t, 128);
                mag_set_ui_2exp_si(arb_radref(b), 1, -120);
            }
        double t0 = now();
        arb_mat_mul(C1, A, B, 128);
        double ta = now() - t0;
        t0 = now();
        int st = ga_arb_mat_mul_blas(C2, A, B, 128);
        double tb = now() - t0;
        double ra = 0, rb = 0;
        for (slong i = 0; i < k; i++)
            for (slong j = 0; j < k; j++) {
                ra = fmax(ra, mag_get_d(arb_radref(arb_mat_entry(C1, i, j))));
                rb = fmax(rb, mag_get_d(arb_radref(arb_mat_entry(C2, i, j))));
            }
        printf("| %ld | %.2f | %.2f%s | %.1f | %.1e | %.1e |\n", (long)k, ta, tb,
               st ? " (not applied)" : "", ta / tb, ra, rb);
        arb_clear(t);
        arb_mat_clear(A);
        arb_mat_clear(B);
        arb_mat_clear(C1);
        arb_mat_clear(C2);
    }
    gsl_rng_free(r);
}

/* plain pairs of dimension 50 to 2000 (rank-one and full-rank changes); a product
 * (composition) of two full-rank blocks of dimension 50, refined block by block */
static void certified_width(void)
{
    printf("\n## Certified delta: width asked 1e-17 relative (eps = 1)\n\n"
           "| d | change | s | rel. width xy | rel. width yx | widening | widening at digits 12 | "
           "target |\n|---|---|---|---|---|---|---|---|\n");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 50);
    static const struct {
        size_t d, nb;
        int generic;
    } cases[] = {{50, 1, 0}, {50, 1, 1}, {100, 1, 0}, {100, 1, 1}, {50, 2, 1},
                 {300, 1, 0}, {300, 1, 1}, {500, 1, 1}, {1000, 1, 0}, {2000, 1, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t d = cases[k].d, nb = cases[k].nb;
        int generic = cases[k].generic;
        ga_pair_input in[2];
        double *arr[2][4];
        for (size_t bl = 0; bl < nb; bl++) {
            for (int w = 0; w < 4; w++)
                arr[bl][w] = malloc((w < 2 ? d : d * d) * sizeof(double));
            cert_pair(r, d, generic, arr[bl][0], arr[bl][1], arr[bl][2], arr[bl][3]);
            in[bl] = (ga_pair_input){d, arr[bl][0], arr[bl][1], arr[bl][2], arr[bl][3], 1,
                                     {NULL, NULL, NULL, NULL}};
        }
        ga_pair *p;
        char msg[256];
        ga_delta_cert c, c12;
        ga_cert_opts o;
        ga_cert_opts_init(&o);
        o.digits = 12;
        if (ga_pair_reduce_product(&p, in, nb, msg, sizeof msg) == GA_OK) {
            double t0 = now();
            int st = ga_pair_delta_cert(&c, p, in, NULL, "1", NULL);
            double t = now() - t0;
            int s12 = ga_pair_delta_cert(&c12, p, in, NULL, "1", &o);
            long double lx = strtold(c.xy_lo, NULL), hx = strtold(c.xy_hi, NULL);
            long double ly = strtold(c.yx_lo, NULL), hy = strtold(c.yx_hi, NULL);
            char dtxt[32];
            snprintf(dtxt, sizeof dtxt, nb > 1 ? "%zu + %zu (product)" : "%zu", d, d);
            printf("| %s | %s | %.2f | %.1Le | %.1Le | %.1e | %.1e | <= 1e-17 |%s\n", dtxt,
                   generic ? "full rank" : "rank one", t, (hx - lx) / lx, (hy - ly) / ly,
                   fmax(c.la_bound_xy, c.la_bound_yx), fmax(c12.la_bound_xy, c12.la_bound_yx),
                   st || s12 ? " (status not ok)" : "");
            ga_pair_free(p);
        }
        for (size_t bl = 0; bl < nb; bl++)
            for (int w = 0; w < 4; w++)
                free(arr[bl][w]);
    }
    gsl_rng_free(r);
}

static void calibration(void)
{
    const double ref = 3.730631634815941832249822575; /* mpmath, 40 digits (tests/verdict/test_calibrate.c) */
    const char *yaml = "gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 1}\n"
                       "claim: {epsilon: 1, delta: 1.0e-5}\n";
    ga_calibration *c;
    char msg[256];
    double t0 = now();
    if (ga_calibrate_spec_text(&c, yaml, strlen(yaml), "c.yaml", 1, 1e-5, NULL, msg, sizeof msg))
        return (void)printf("calibrate failed: %s\n", msg);
    double t = now() - t0;
    ga_calibration_info in;
    ga_calibration_get(&in, c);
    printf("\n## calibrate, the analytic Gaussian case (eps 1, delta 1e-5)\n\n| value | relative "
           "error | target | certified | s |\n|---|---|---|---|---|\n| %.17g | %.1e | <= 2e-16 | %s | %.2f |\n",
           in.value, fabs(in.value - ref) / ref, in.certified ? "yes" : "no", t);
    ga_calibration_free(c);
}

/* mean wall and CPU (user + system, from the children's rusage) seconds of n runs, started
 * with posix_spawn (glibc: a vfork-style clone, so the bench's own large heap is not copied
 * and torn down in the child, which fork + exec would charge to every run) */
extern char **environ;

static void spawn(double *wall, double *cpu, const char *const argv[], char *const envp[], int n)
{
    fflush(stdout);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    struct rusage r0, r1;
    getrusage(RUSAGE_CHILDREN, &r0);
    double t0 = now();
    for (int i = 0; i < n; i++) {
        pid_t pid;
        int st;
        if (posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, envp ? envp : environ) == 0)
            waitpid(pid, &st, 0);
    }
    *wall = (now() - t0) / n;
    getrusage(RUSAGE_CHILDREN, &r1);
    posix_spawn_file_actions_destroy(&fa);
#define TV(t) ((double)(t).tv_sec + 1e-6 * (double)(t).tv_usec)
    *cpu = (TV(r1.ru_utime) - TV(r0.ru_utime) + TV(r1.ru_stime) - TV(r0.ru_stime)) / n;
#undef TV
}

/* the shared objects the dynamic loader maps before main (as ldd lists them) */
static int loaded_at_start(const char *bin)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "LD_TRACE_LOADED_OBJECTS=1 %s 2>/dev/null", bin);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    int n = 0, c, last = '\n';
    while ((c = fgetc(f)) != EOF) {
        n += c == '\n';
        last = c;
    }
    pclose(f);
    return n + (last != '\n');
}

/* Start-up: no work before main that a command does not need. BLAS/LAPACK
 * (base/blas.c) and FLINT/Arb (numerics/arb_load.c) are opened on first use, so `version`
 * and a one-dimensional `cdf` cost the loader's work for GSL, libyaml and libc only; a 2-D
 * `delta` adds the BLAS it needs, a certified one FLINT/Arb. The row "as linked" preloads
 * FLINT/Arb (LD_PRELOAD: mapped, relocated and its C++ constructors run before main, as when
 * the library linked it): the same binary before and after, in one run. Floor: /bin/true. */
static void startup(void)
{
    const char *tr[] = {"/bin/true", NULL}, *ver[] = {"build/gaussaudit", "version", NULL},
               *cdf[] = {"build/gaussaudit", "cdf", "--weights", "1", "--at", "1", NULL},
               *dl[] = {"build/gaussaudit", "delta", "specs/examples/two_explicit_outputs.yaml",
                        "--epsilon", "1", NULL},
               *cert[] = {"build/gaussaudit", "delta", "specs/examples/classic_gaussian_eps1.yaml",
                          "--epsilon", "1", "--certified", NULL};
    /* the environment plus LD_PRELOAD of FLINT/Arb */
    size_t ne = 0;
    while (environ[ne])
        ne++;
    char **pre = calloc(ne + 2, sizeof *pre), preload[] = "LD_PRELOAD=libflint-arb.so.2";
    if (!pre)
        return;
    for (size_t i = 0; i < ne; i++)
        pre[i] = environ[i];
    pre[ne] = preload;
    const char *const *cmds[] = {tr, ver, ver, cdf, dl, cert};
    char *const *envs[] = {NULL, NULL, pre, NULL, NULL, NULL};
    const char *names[] = {"/bin/true (floor)", "gaussaudit version",
                           "gaussaudit version, FLINT/Arb as linked (LD_PRELOAD)",
                           "gaussaudit cdf --weights 1 --at 1",
                           "gaussaudit delta, 2-D pair (opens BLAS)",
                           "gaussaudit delta --certified, 1-D (opens FLINT/Arb)"};
    enum { NCMD = 6 };
    double wall[NCMD], cpu[NCMD];
    for (int round = 0; round < 2; round++) /* interleaved: drift hits every row alike */
        for (int i = 0; i < NCMD; i++) {
            double w, c;
            spawn(&w, &c, cmds[i], envs[i], 20);
            wall[i] = round ? 0.5 * (wall[i] + w) : w;
            cpu[i] = round ? 0.5 * (cpu[i] + c) : c;
        }
    free(pre);
    printf("\n## Start-up (posix_spawn, 40 runs each; BLAS and FLINT/Arb opened on first use)\n\n"
           "shared objects mapped before main: %d (ldd lines; 23 with LAPACKE and OpenBLAS linked, "
           "16 with FLINT/Arb linked)\n\n"
           "| command | wall ms | CPU ms | CPU ratio to /bin/true |\n|---|---|---|---|\n",
           loaded_at_start("build/gaussaudit"));
    for (int i = 0; i < NCMD; i++)
        printf("| %s | %.2f | %.2f | %.1f |\n", names[i], 1e3 * wall[i], 1e3 * cpu[i],
               cpu[i] / cpu[0]);
    printf("\nversion: %.2f ms CPU, %.2f ms with FLINT/Arb loaded at start (%.2fx)\n", 1e3 * cpu[1],
           1e3 * cpu[2], cpu[2] / cpu[1]);
}

int main(int argc, char **argv)
{
    mallopt(M_MMAP_THRESHOLD, 256 << 20); /* as the CLI does (cli/main.c) */
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    ga_init();
    if (argc == 3 && !strncmp(argv[1], "--read-", 7))
        return read_child(argv[1] + 7, argv[2]);
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1); /* reports compared byte for byte */
    printf("# gaussaudit benchmark: speed at scale\n");
    /* bench_scale [SECTION]: one section only (threads, gp, engines, reduction, reading,
     * certified, calibrate, startup, ridge) */
    const char *only = argc == 2 ? argv[1] : NULL;
#define SECTION(name, call)                                                                  \
    if (!only || !strcmp(only, name))                                                        \
        call;
    SECTION("threads", threads());
    SECTION("gp", gp_rows());
    SECTION("ridge", ridge_rows());
    SECTION("engines", engines());
    SECTION("reduction", reduction());
    SECTION("reading", reading(argv[0]));
    SECTION("certified", (certified_products(), certified_width()));
    SECTION("calibrate", calibration());
    SECTION("startup", startup());
#undef SECTION
    return 0;
}

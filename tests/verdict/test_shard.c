/*
 * test_shard.c - audits on several threads and on several machines: --jobs 1 and
 * --jobs 2 write byte-identical reports; N shards (audit --shard I/N) merged write the report
 * of one run, in every format, --certified too; seeded random specs (explicit pairs of random
 * dimension, covariances and claims of every type) for both; merge refuses parts that do not
 * belong together, malformed parts and incomplete shards, naming the reason. An audit that
 * rebuilds its one-dimensional pairs where it uses them writes the reports of one that keeps
 * every reduced pair.
 * Clock readings are fixed by SOURCE_DATE_EPOCH (set in each test's process, inherited by
 * the commands), so the reports compare byte for byte.
 */
#include "tests/support.h"
#include "verdict/audit.h"
#include "reports/report.h"
#include "numerics/numerics.h"

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *formats[] = {"json", "md", "html", "junit"};

/* the report of `audit spec extra --format fmt` (status in *st) */
static char *report(const char *spec, const char *extra, const char *fmt, int *st)
{
    char args[1024], *out, *err;
    snprintf(args, sizeof args, "audit %s %s --format %s --quiet", spec, extra, fmt);
    *st = ga_test_run(args, &out, &err);
    cr_assert(*st <= 2, "audit %s %s: status %d: %s", spec, extra, *st, err);
    free(err);
    return out;
}

/* the N shards of spec into dir/part<I>.json */
static void shard(const char *dir, const char *spec, const char *extra, int n)
{
    char args[4096], *out, *err;
    for (int i = 1; i <= n; i++) {
        snprintf(args, sizeof args, "audit %s %s --shard %d/%d -o %s/part%d.json --quiet", spec,
                 extra, i, n, dir, i);
        int s = ga_test_run(args, &out, &err);
        cr_assert(s == 0, "%s: status %d: %s", args, s, err);
        free(out);
        free(err);
    }
}

/* the report in fmt merged from dir/part1.json .. dir/part<N>.json */
static char *merge(const char *dir, int n, const char *fmt, int *st)
{
    char args[4096], *out, *err;
    size_t l = (size_t)snprintf(args, sizeof args, "merge --format %s --quiet", fmt);
    for (int i = 1; i <= n; i++)
        l += (size_t)snprintf(args + l, sizeof args - l, " %s/part%d.json", dir, i);
    *st = ga_test_run(args, &out, &err);
    cr_assert(*st <= 2, "%s: status %d: %s", args, *st, err);
    free(err);
    return out;
}

/* the N shards of spec, then the merged report in fmt */
static char *merged(const char *dir, const char *spec, const char *extra, int n, const char *fmt,
                    int *st)
{
    shard(dir, spec, extra, n);
    return merge(dir, n, fmt, st);
}

static void same(const char *a, const char *b, const char *what)
{
    cr_assert(strlen(a) > 100, "%s: the report is empty", what);
    if (strcmp(a, b)) {
        size_t i = 0;
        while (a[i] && a[i] == b[i])
            i++;
        cr_assert_fail("%s: the reports differ at byte %zu:\n%.200s\n---\n%.200s", what, i,
                       a + (i > 60 ? i - 60 : 0), b + (i > 60 ? i - 60 : 0));
    }
}

/* a spec with many neighbours and a claim of every type */
static void many_claims_spec(const char *dir, const char *name, int rows, unsigned long seed)
{
    gsl_rng *r = ga_test_rng(seed);
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert(f != NULL);
    fputs("gaussaudit: 1\nname: many claims\nmechanism: {kind: output_perturbation, lambda: 1, "
          "sigma: 0.3}\ndataset: {rows: [", f);
    for (int i = 0; i < rows; i++)
        fprintf(f, "%s[%.4f, %.4f, %.4f]", i ? ", " : "", gsl_rng_uniform(r),
                gsl_rng_uniform(r) - 0.5, gsl_rng_uniform(r));
    fputs("]}\nneighbours: remove_one\nclaim:\n  epsilon: 1\n  delta: 1.0e-5\n"
          "  profile: [[0.5, 0.2], [2.0, 0.001]]\n  rdp: [[2, 0.3], [4, 0.9]]\n  zcdp: 0.2\n"
          "  gdp: 0.7\n", f);
    cr_assert(fclose(f) == 0);
    gsl_rng_free(r);
}

/* explicit pairs of random dimension (1..maxd), means, covariances (equal or not) and claims of
 * every type, some violated */
static void random_spec(const char *path, gsl_rng *r, int maxd)
{
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL);
    int npairs = 1 + (int)gsl_rng_uniform_int(r, 9), d = 1 + (int)gsl_rng_uniform_int(r, maxd);
    fputs("gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs:\n", f);
    for (int k = 0; k < npairs; k++) {
        int equal = gsl_rng_uniform(r) < 0.5;
        fprintf(f, "  - name: pair %d\n", k + 1);
        for (int side = 0; side < 2; side++) {
            double s = 0.5 + 2 * gsl_rng_uniform(r);
            fprintf(f, "    %s: {mean: [", side ? "y" : "x");
            for (int i = 0; i < d; i++)
                fprintf(f, "%s%.3f", i ? ", " : "", side ? 0.0 : 2 * gsl_rng_uniform(r));
            fputs("], cov: [", f);
            for (int i = 0; i < d; i++) {
                fputs(i ? ", [" : "[", f);
                for (int j = 0; j < d; j++)
                    fprintf(f, "%s%.3f", j ? ", " : "", i == j ? (equal ? 1.0 : s) : 0.0);
                fputs("]", f);
            }
            fputs("]}\n", f);
        }
    }
    fprintf(f, "claim:\n  epsilon: %.3f\n  delta: %.3g\n  rdp: [[%.2f, %.3f]]\n  zcdp: %.3f\n"
            "  gdp: %.3f\n", 0.2 + 2 * gsl_rng_uniform(r), pow(10, -1 - 4 * gsl_rng_uniform(r)),
            1.5 + 4 * gsl_rng_uniform(r), 0.1 + gsl_rng_uniform(r), 0.1 + gsl_rng_uniform(r),
            0.3 + 2 * gsl_rng_uniform(r));
    cr_assert(fclose(f) == 0);
}

static char dir[] = "/tmp/ga_shardXXXXXX";

static void setup(void)
{
    cr_assert(mkdtemp(dir) != NULL);
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect(system(cmd) == 0);
}

TestSuite(shard, .init = setup, .fini = teardown, .timeout = 1200);

static const char *specs[] = {"specs/examples/gaussian_process_regression.yaml",
                              "specs/examples/bayesian_logistic_regression.yaml",
                              "specs/examples/two_explicit_outputs.yaml",
                              "specs/examples/sketch_remove_one.yaml",
                              "specs/examples/matrix_masking_orthogonal.yaml",
                              "specs/papers/mls_rule_r50_eps1.yaml",
                              "specs/papers/mean_covariance_shift_thm42.yaml", /* (scoped claims) */
                              NULL};

Test(shard, jobs_1_and_2_write_identical_reports)
{
    char many[600];
    many_claims_spec(dir, "many.yaml", 150, 11);
    snprintf(many, sizeof many, "%s/many.yaml", dir);
    /* a shard's partial result too: its records are in the order the threads finished until
     * written sorted (three runs with 2 threads differed before) */
    char *first = NULL;
    for (int run = 0; run < 4; run++) {
        char args[1024], *out, *err;
        snprintf(args, sizeof args, "audit %s --shard 1/2 --quiet --jobs %d", many, run ? 2 : 1);
        int st = ga_test_run(args, &out, &err);
        cr_assert(st == 0 && strstr(out, "gaussaudit_partial"), "%s: status %d: %s", args, st, err);
        free(err);
        if (run)
            same(first, out, "a partial result, --jobs 1 against --jobs 2 (three runs)");
        if (run)
            free(out);
        else
            first = out;
    }
    free(first);
    for (int s = 0; s < 8; s++) {
        const char *spec = specs[s] ? specs[s] : many;
        for (int k = 0; k < 2; k++) {
            int s1, s2;
            char *a = report(spec, "--jobs 1", formats[k], &s1);
            char *b = report(spec, "--jobs 2", formats[k], &s2);
            char what[700];
            snprintf(what, sizeof what, "%s, %s, --jobs 1 against --jobs 2", spec, formats[k]);
            cr_expect(s1 == s2, "%s: status %d and %d", what, s1, s2);
            same(a, b, what);
            free(a);
            free(b);
        }
    }
}

/* A pair whose values depend on the order of its evaluations (the synthetic universe's
 * search starts from its last result): its curves' points are evaluated in order on one
 * thread, the report the same at --jobs 1 and 2 (three runs) */
Test(shard, a_pair_evaluated_in_order_plots_alike_on_any_threads)
{
    char spec[600];
    snprintf(spec, sizeof spec, "%s/universe.yaml", dir);
    FILE *f = fopen(spec, "w");
    cr_assert(f != NULL);
    fputs("gaussaudit: 1\nname: a small universe\nmechanism:\n  kind: synthetic_random_inputs\n"
          "  sigma: 1\n  points: 1\n  dim: 2\n  models: {norm_bound: 2, distance: 1}\n"
          "claim: {epsilon: 1.0, delta: 1.0e-5}\n", f);
    cr_assert(fclose(f) == 0);
    int s1, s2;
    char *a = report(spec, "--jobs 1", "json", &s1);
    cr_assert(strstr(a, "\"delta_xy\": [") != NULL, "no curve: %s", a);
    for (int run = 0; run < 3; run++) {
        char *b = report(spec, "--jobs 2", "json", &s2);
        cr_expect(s1 == s2, "statuses %d and %d", s1, s2);
        same(a, b, "a synthetic universe, --jobs 1 against --jobs 2");
        free(b);
    }
    free(a);
}

Test(shard, shards_merged_equal_one_run)
{
    char many[600];
    many_claims_spec(dir, "many.yaml", 90, 12);
    snprintf(many, sizeof many, "%s/many.yaml", dir);
    /* (under valgrind, make valgrind sets GA_VALGRIND: two specs and one format, each run
     * there taking some 60 times as long) */
    int nspecs = getenv("GA_VALGRIND") ? 2 : 8, nformats = getenv("GA_VALGRIND") ? 1 : 4;
    for (int s = 0; s < nspecs; s++) {
        const char *spec = specs[s] ? specs[s] : many;
        int n = 2 + s % 3;
        shard(dir, spec, "", n); /* once: the parts merge into every format */
        for (int k = 0; k < nformats; k++) {
            int s1, s2;
            char *a = report(spec, "", formats[k], &s1);
            char *b = merge(dir, n, formats[k], &s2);
            char what[700];
            snprintf(what, sizeof what, "%s, %s: one run against %d shards merged", spec, formats[k], n);
            cr_expect(s1 == s2, "%s: status %d and %d", what, s1, s2);
            same(a, b, what);
            free(a);
            free(b);
        }
    }
    /* --certified: every decision certified, the cap counted over all pairs */
    int s1, s2;
    char *a = report(many, "--certified", "json", &s1);
    char *b = merged(dir, many, "--certified", 3, "json", &s2);
    cr_expect(strstr(a, "\"certified_mode\": true") != NULL);
    same(a, b, "--certified, 3 shards");
    free(a);
    free(b);
}

Test(shard, random_specs_jobs_and_shards)
{
    gsl_rng *r = ga_test_rng(20);
    long n = ga_test_count(6);
    char spec[600];
    snprintf(spec, sizeof spec, "%s/random.yaml", dir);
    for (long t = 0; t < n; t++) {
        random_spec(spec, r, 3);
        int nshards = 1 + (int)gsl_rng_uniform_int(r, 4), s1, s2, s3;
        char *a = report(spec, "--jobs 1", "json", &s1);
        char *b = report(spec, "--jobs 2", "json", &s2);
        char *c = merged(dir, spec, "", nshards, "json", &s3);
        char what[900];
        snprintf(what, sizeof what, "random spec %ld (seed 20; %d shards):\n%s", t, nshards, a);
        same(a, b, what);
        same(a, c, what);
        cr_expect(s1 == s2 && s1 == s3, "%s: statuses %d %d %d", what, s1, s2, s3);
        free(a);
        free(b);
        free(c);
    }
    gsl_rng_free(r);
}

/* the reports of the audit of spec in the first nf formats (formats[]) into rep[], audited
 * once with opts o */
static void reports_of(char **rep, int nf, const char *spec, const ga_audit_opts *o,
                       size_t *nrebuilt, size_t *nfamily)
{
    ga_audit a;
    char msg[512];
    cr_assert(ga_audit_run(&a, spec, o, msg, sizeof msg) == GA_OK, "%s: %s", spec, msg);
    *nrebuilt = 0;
    for (size_t i = 0; a.rebuilt && i < a.npairs; i++)
        *nrebuilt += a.rebuilt[i];
    *nfamily = a.set.fam.n;
    int (*write[4])(FILE *, const ga_audit *) = {ga_report_json, ga_report_markdown,
                                                  ga_report_html, ga_report_junit};
    for (int k = 0; k < nf; k++) {
        size_t len = 0;
        rep[k] = NULL;
        FILE *f = open_memstream(&rep[k], &len);
        cr_assert(f != NULL);
        cr_assert(write[k](f, &a) == GA_OK, "%s: %s", spec, formats[k]);
        cr_assert(fclose(f) == 0);
    }
    ga_audit_clear(&a);
}

/* the audit keeps no reduced pair of one-dimensional laws (nor a product of
 * them) but reduces it again where it is used, and holds a sketch's remove-, zero-out- and
 * add-one pairs as a row family (one leverage each, no record or name). Its reports must be
 * those of an audit that keeps every pair and every record, byte for byte: every bundled
 * example in every format, sketches of each family relation (a row selection, a universe,
 * add-one candidates), random specs of one-dimensional pairs with claims of every type,
 * --certified too. */
Test(shard, rebuilt_pairs_give_the_reports_of_kept_pairs)
{
    static const char *examples[] = {
        "specs/examples/gaussian_mechanism.yaml", "specs/examples/classic_gaussian_eps1.yaml",
        "specs/examples/sketch_remove_one.yaml", "specs/examples/noisy_gradient_descent.yaml",
        "specs/examples/output_perturbation.yaml", "specs/examples/two_explicit_outputs.yaml",
        "specs/examples/inconclusive_at_the_exact_value.yaml",
        "specs/papers/relative_rp_small_set.yaml", NULL};
    char comp[600], rnd[600], fam[3][600];
    static const char *const fam_nb[3] = {
        "neighbours: {relation: zero_out, rows: [3, 1, 4]}\nuniverse: {row_norm_bound: 1}\n",
        "neighbours: {relation: add_one, candidates: [[0.3, -0.2], [0.9, 0.1], [-0.5, 0.5]]}\n"
        "universe: {row_norm_bound: 1}\n",
        "neighbours: remove_one\n"};
    for (int v = 0; v < 3; v++) {
        snprintf(fam[v], sizeof fam[v], "%s/family%d.yaml", dir, v);
        FILE *g = fopen(fam[v], "w");
        cr_assert(g != NULL);
        fprintf(g, "gaussaudit: 1\nname: sketch family %d\nmechanism: {kind: sketch, columns: "
                   "%d, noise_sigma: 1.2}\ndataset: {rows: [[0.5, 0.1], [0.2, -0.7], [0.9, 0.3], "
                   "[-0.4, 0.4], [0.1, 0.1]]}\n%sclaim: {epsilon: 0.3, delta: 1.0e-2, rdp: [[2, 0.5]], "
                   "zcdp: 0.2, gdp: 0.5}\n", v, 4 + 3 * v, fam_nb[v]);
        cr_assert(fclose(g) == 0);
    }
    snprintf(comp, sizeof comp, "%s/composition.yaml", dir);
    FILE *f = fopen(comp, "w");
    cr_assert(f != NULL);
    fputs("gaussaudit: 1\nname: sketches\nmechanism:\n  kind: composition\n  parts:\n"
          "    - {kind: sketch, columns: 5, noise_sigma: 1}\n"
          "    - {kind: sketch, columns: 8, noise_sigma: 1.5}\n"
          "dataset: {rows: [[0.5, 0.1], [0.2, -0.7], [0.9, 0.3], [-0.4, 0.4]]}\n"
          "neighbours: remove_one\nuniverse: {row_norm_bound: 1}\n"
          "claim: {epsilon: 0.5, delta: 1.0e-3, rdp: [[3, 0.4]], zcdp: 0.1, gdp: 0.6}\n", f);
    cr_assert(fclose(f) == 0);
    snprintf(rnd, sizeof rnd, "%s/random1.yaml", dir);
    gsl_rng *r = ga_test_rng(21);
    /* (under valgrind: the first example, the families, the composition, one random spec and
       one format: the full loop takes longer than the hang guard) */
    int vg = getenv("GA_VALGRIND") != NULL;
    long nrand = vg ? 1 : ga_test_count(6);
    int nformats = vg ? 1 : 4;
    size_t total = 0, families = 0;
    for (long t = -12; t < nrand; t++) {
        const char *spec = t < -4 ? examples[t + 12] : t < -1 ? fam[t + 4] : t == -1 ? comp : rnd;
        if (!spec || (vg && t > -12 && t < -4))
            continue;
        if (t >= 0)
            random_spec(rnd, r, 1);
        for (int cert = 0; cert < 2; cert++) {
            /* each audit once, its reports in every format (--certified: the JSON report) */
            int nf = cert ? 1 : nformats;
            ga_audit_opts keep = {.jobs = 2, .certified = cert, .keep_pairs = 1},
                          rebuild = {.jobs = 2, .certified = cert};
            size_t n0, n1, f0, f1;
            char *a[4], *b[4];
            reports_of(a, nf, spec, &keep, &n0, &f0);
            reports_of(b, nf, spec, &rebuild, &n1, &f1);
            for (int k = 0; k < nf; k++) {
                char what[900];
                snprintf(what, sizeof what, "%s (random spec %ld, seed 21)%s, %s: pairs kept "
                         "against pairs rebuilt", spec, t, cert ? ", --certified" : "", formats[k]);
                cr_expect(n0 == 0 && f0 == 0, "%s: %zu pairs rebuilt, %zu in a family, when all "
                          "are kept", what, n0, f0);
                cr_expect(f1 > 0 || !strstr(spec, "/family"), "%s: no row family", what);
                same(a[k], b[k], what);
                total += n1;
                families += f1;
                free(a[k]);
                free(b[k]);
            }
        }
    }
    /* (the sketches, the Gaussian mechanism and every random spec have such pairs) */
    size_t least = vg ? 5 : 20;
    cr_expect(total > least, "only %zu pairs were rebuilt: the test exercises nothing", total);
    cr_expect(families > least, "only %zu pairs were a row family's", families);
    /* a family pair that fails to reduce is named in the message as a record would be */
    char bad[600], msg[512];
    snprintf(bad, sizeof bad, "%s/family_bad.yaml", dir);
    ga_test_write(dir, "family_bad.yaml", "gaussaudit: 1\nname: leverage one\nmechanism: {kind: "
                  "sketch, columns: 3, noise_sigma: 0}\ndataset: {rows: [[1, 0], [0, 1], [0, 2]]}\n"
                  "neighbours: remove_one\nclaim: {epsilon: 1, delta: 1.0e-3}\n");
    for (int keep = 0; keep < 2; keep++) {
        ga_audit a;
        ga_audit_opts o = {.jobs = 2, .keep_pairs = keep};
        cr_expect(ga_audit_run(&a, bad, &o, msg, sizeof msg) == GA_EINVAL, "keep %d: accepted", keep);
        cr_expect(strstr(msg, "remove row 1 (leverage 1).x.cov[0][0] is not finite") != NULL,
                  "keep %d: %s", keep, msg);
        ga_audit_clear(&a);
    }
    gsl_rng_free(r);
}

Test(shard, merge_refuses_parts_that_do_not_belong_together)
{
    char args[2048], *out, *err;
    const char *g = "specs/examples/gaussian_process_regression.yaml";
    const char *t = "specs/examples/two_explicit_outputs.yaml";
    for (int i = 1; i <= 3; i++) {
        snprintf(args, sizeof args, "audit %s --shard %d/3 -o %s/g%d.json --quiet", g, i, dir, i);
        cr_assert(ga_test_run(args, &out, &err) == 0, "%s: %s", args, err);
        free(out);
        free(err);
    }
    snprintf(args, sizeof args, "audit %s --shard 2/3 -o %s/t2.json --quiet", t, dir);
    cr_assert(ga_test_run(args, &out, &err) == 0, "%s", err);
    free(out);
    free(err);
    ga_test_write(dir, "bad1.json", "{\"gaussaudit_partial\": 1}");
    ga_test_write(dir, "bad2.json", "[1, 2]");
    /* a record naming a pair beyond the spec's */
    snprintf(args, sizeof args, "sed 's/\\[1, 0, /[1, 999, /' %s/g1.json > %s/bad3.json", dir, dir);
    cr_assert(system(args) == 0);
    struct {
        const char *parts; /* %1$s: the directory */
        int status;
        const char *message;
    } rows[] = {
        {"%1$s/g1.json %1$s/g2.json", 65, "but 2 parts were given"},
        {"%1$s/g1.json %1$s/g1.json %1$s/g3.json", 65, "given twice"},
        {"%1$s/g1.json %1$s/t2.json %1$s/g3.json", 65, "another spec"},
        {"%1$s/bad1.json", 65, "missing or malformed"},
        {"%1$s/bad2.json", 65, "not a partial result"},
        {"%1$s/bad3.json %1$s/g2.json %1$s/g3.json", 65, "record 1 is malformed"},
        {"%1$s/g1.json %1$s/g2.json %1$s/g3.json --spec specs/examples/gaussian_mechanism.yaml",
         65, "not the one the parts audited"},
        {"%1$s/nothere.json", 66, "nothere.json"},
        {"%1$s/g1.json %1$s/g2.json %1$s/g3.json --format partial", 64, "--format"},
        {"%1$s/g3.json %1$s/g1.json %1$s/g2.json", 1, "VIOLATION"}, /* any order */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char parts[1024];
        snprintf(parts, sizeof parts, rows[i].parts, dir);
        snprintf(args, sizeof args, "merge --format json %s", parts);
        int st = ga_test_run(args, &out, &err);
        cr_expect(st == rows[i].status && (strstr(err, rows[i].message) || strstr(out, rows[i].message)),
                  "merge %s: status %d (expected %d), message '%s' (expected '%s')", parts, st,
                  rows[i].status, err, rows[i].message);
        free(out);
        free(err);
    }
    /* --shard's own refusals */
    const char *bad[] = {"0/3", "4/3", "1/0", "a/3", "1/3 --format md", "1/100001"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "audit %s --shard %s", g, bad[i]);
        int st = ga_test_run(args, &out, &err);
        cr_expect(st == 64 && strstr(err, "--shard"), "--shard %s: status %d: %s", bad[i], st, err);
        free(out);
        free(err);
    }
}

Test(shard, an_incomplete_shard_is_not_merged)
{
    char args[1024], *out, *err;
    ga_test_write_many_pairs_spec(dir, "op.yaml", 20000);
    /* the budget ends while the pairs are built or evaluated, after the spec is read (under
     * valgrind, where reading the spec alone takes longer than 0.3 s, 5 s) */
    double tmo = getenv("GA_VALGRIND") ? 5 : 0.3;
    snprintf(args, sizeof args, "audit %s/op.yaml --shard 1/2 --timeout %g -o %s/p1.json --quiet",
             dir, tmo, dir);
    int st = ga_test_run(args, &out, &err);
    cr_expect(st == 2, "a shard stopped by --timeout: status %d (expected 2): %s", st, err);
    free(out);
    free(err);
    snprintf(args, sizeof args, "audit %s/op.yaml --shard 2/2 --timeout %g -o %s/p2.json --quiet",
             dir, tmo, dir);
    free((ga_test_run(args, &out, &err), out));
    free(err);
    snprintf(args, sizeof args, "merge %s/p1.json %s/p2.json", dir, dir);
    st = ga_test_run(args, &out, &err);
    cr_expect(st == 65 && strstr(err, "incomplete"), "status %d: %s", st, err);
    free(out);
    free(err);
}

/* A part as a shard writes it, after edit changed its records in memory (the digest is then
 * that of the edited records: what a shard that computed them wrongly would write) */
static void write_part(const char *spec, const char *out, void (*edit)(ga_audit *a), int certified)
{
    ga_audit a;
    ga_audit_opts o = {.quiet = 1, .shard = 1, .nshards = 1, .jobs = 1, .certified = certified};
    char msg[1024];
    cr_assert(ga_audit_run(&a, spec, &o, msg, sizeof msg) == GA_OK, "%s", msg);
    if (edit)
        edit(&a);
    FILE *f = fopen(out, "w");
    cr_assert(f && ga_report_partial(f, &a) == GA_OK);
    fclose(f);
    ga_audit_clear(&a);
}

/* the records of pair 0 of a type, their first value set to v (and the second to w) */
static void set_first(ga_audit *a, int type, double v, double w, int both)
{
    for (size_t i = 0; i < a->book.n; i++)
        if (a->book.r[i].type == type && a->book.r[i].pair == 0) {
            a->book.r[i].v[0] = v;
            a->book.r[i].v[1] = w;
            if (both) {
                a->book.r[i].v[2] = v;
                a->book.r[i].v[3] = w;
            }
        }
}

static void est_half(ga_audit *a) { set_first(a, GA_REC_EST, 0.5, 1e-16, 0); }
static void est_nan(ga_audit *a) { set_first(a, GA_REC_EST, NAN, 1e-16, 0); }
static void est_zero(ga_audit *a) { set_first(a, GA_REC_EST, 0, 0, 1); }
static void forged_violation(ga_audit *a)
{
    set_first(a, GA_REC_EST, 0.9, 1e-16, 1);
    set_first(a, GA_REC_CERT, 0.9, 0.9, 1);
}

Test(shard, merge_reads_the_parts_evaluations)
{
    /* the part's estimate of delta_XY at the table's eps replaced by 0.5 in the shard's
     * book: the merged report shows 0.5, so the merge read it rather than evaluating the
     * pair again */
    char args[1024], path[512], *out, *err;
    snprintf(path, sizeof path, "%s/q.json", dir);
    write_part("specs/examples/gaussian_mechanism_pair.yaml", path, est_half, 0);
    snprintf(args, sizeof args, "merge %s --format json", path);
    int st = ga_test_run(args, &out, &err);
    cr_expect(st == 0 && strstr(out, "\"xy\": {\"value\": 0.5,"), "status %d: %s %s", st, out, err);
    free(out);
    free(err);
}

/* A part is untrusted: one edited after the shard wrote it does not match its digest; values
 * no evaluation gives (NaN with a success status), an estimate that contradicts the same
 * part's certified interval (a violating pair zeroed), and a forged violation whose records
 * agree with each other (re-derived by the merge) are each refused with the reason, never
 * merged into a verdict. */
Test(shard, merge_refuses_edited_and_forged_parts)
{
    static const char *spec = "gaussaudit: 1\nname: v\nmechanism: {kind: gaussian_pair}\npairs:\n"
                              "  - {name: a, x: {mean: [1], cov: [[1]]}, y: {mean: [0], cov: [[1]]}}\n"
                              "claim: {epsilon: 1, delta: %s}\n";
    char args[1024], path[512], sp[512], text[512], *out, *err;
    snprintf(sp, sizeof sp, "%s/v.yaml", dir);
    snprintf(path, sizeof path, "%s/p.json", dir);
    static const struct {
        const char *delta;
        void (*edit)(ga_audit *);
        const char *sed, *want;
    } rows[] = {
        {"0.01", NULL, "s/\"3f/\"3e/", "records_sha256"},
        {"0.01", est_nan, NULL, "values its status cannot give"},
        {"0.01", est_zero, NULL, "contradicts itself"},
        {"0.5", forged_violation, NULL, "is not what it is"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        snprintf(text, sizeof text, spec, rows[i].delta);
        FILE *f = fopen(sp, "w");
        cr_assert(f && fputs(text, f) >= 0);
        fclose(f);
        write_part(sp, path, rows[i].edit, rows[i].edit == forged_violation);
        if (rows[i].sed) {
            snprintf(args, sizeof args, "sed -i '%s' %s", rows[i].sed, path);
            cr_assert(system(args) == 0);
        }
        snprintf(args, sizeof args, "merge %s --format json", path);
        int st = ga_test_run(args, &out, &err);
        cr_expect(st == 65 && strstr(err, rows[i].want), "row %zu: status %d: %s %s", i, st, out, err);
        free(out);
        free(err);
    }
}

/* Shards pin the files the spec read: a CSV that changed between two shards, or after them,
 * is named and the merge refused; every report format records the files' SHA-256 */
Test(shard, merge_refuses_data_that_changed)
{
    char args[2048], *out, *err;
    static const char *spec = "gaussaudit: 1\nname: s\nmechanism: {kind: sketch, columns: 3, "
                              "noise_sigma: 1}\ndataset: {csv: d.csv}\nneighbours: remove_one\n"
                              "claim: {epsilon: 1, delta: 0.5}\n";
    static const char *d1 = "1,0.5\n0.2,-1\n0.3,0.3\n-1,2\n", *d2 = "1,0.5\n0.2,-1\n0.3,0.3\n-1,2.5\n";
    char sp[512], dp[512];
    snprintf(sp, sizeof sp, "%s/s.yaml", dir);
    snprintf(dp, sizeof dp, "%s/d.csv", dir);
    const char *texts[3][2] = {{sp, spec}, {dp, d1}, {NULL, NULL}};
    for (int k = 0; texts[k][0]; k++) {
        FILE *f = fopen(texts[k][0], "w");
        cr_assert(f && fputs(texts[k][1], f) >= 0);
        fclose(f);
    }
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        int st;
        char *rep = report(sp, "", formats[i], &st);
        cr_expect(strstr(rep, "dataset.csv") && strstr(rep, "d.csv") &&
                      strstr(rep, "1de3d019613b"), "%s: the data file's digest: %s", formats[i], rep);
        free(rep);
    }
    snprintf(args, sizeof args, "audit %s --shard 1/2 -o %s/p1.json --quiet", sp, dir);
    cr_assert(ga_test_run(args, &out, &err) == 0, "%s", err);
    free(out);
    free(err);
    FILE *f = fopen(dp, "w");
    cr_assert(f && fputs(d2, f) >= 0);
    fclose(f);
    snprintf(args, sizeof args, "audit %s --shard 2/2 -o %s/p2.json --quiet", sp, dir);
    cr_assert(ga_test_run(args, &out, &err) == 0, "%s", err);
    free(out);
    free(err);
    snprintf(args, sizeof args, "merge %s/p1.json %s/p2.json", dir, dir);
    int st = ga_test_run(args, &out, &err);
    cr_expect(st == 65 && strstr(err, "dataset.csv") && strstr(err, "changed between the shards"),
              "between: status %d: %s", st, err);
    free(out);
    free(err);
    /* both shards on the new data, then the data changed back */
    snprintf(args, sizeof args, "audit %s --shard 1/2 -o %s/p1.json --quiet", sp, dir);
    cr_assert(ga_test_run(args, &out, &err) == 0, "%s", err);
    free(out);
    free(err);
    f = fopen(dp, "w");
    cr_assert(f && fputs(d1, f) >= 0);
    fclose(f);
    snprintf(args, sizeof args, "merge %s/p1.json %s/p2.json", dir, dir);
    st = ga_test_run(args, &out, &err);
    cr_expect(st == 65 && strstr(err, "d.csv") && strstr(err, "changed since the shards ran"),
              "after: status %d: %s", st, err);
    free(out);
    free(err);
}

/* A part file is untrusted, and so is the spec path it names: a secret-looking regular file
 * is read but never quoted (it is not a spec: the message names the position only), a FIFO
 * (which would block) and a device (/dev/zero: a gigabyte of reading) are refused before they
 * are opened. */
Test(shard, merge_takes_no_file_a_part_names_on_trust)
{
    char args[2048], *out, *err;
    const char *g = "specs/examples/gaussian_mechanism.yaml";
    snprintf(args, sizeof args, "audit %s --shard 1/1 -o %s/p.json --quiet", g, dir);
    cr_assert(ga_test_run(args, &out, &err) == 0, "%s", err);
    free(out);
    free(err);
    ga_test_write(dir, "secret", "root:s3cr3t-hash:20228:0:99999:7:::\nbin:*:1:1::\n");
    char fifo[256];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert(mkfifo(fifo, 0600) == 0);
    const char *targets[3] = {"secret", "fifo", "/dev/zero"};
    for (int k = 0; k < 3; k++) {
        char target[300];
        if (targets[k][0] == '/')
            snprintf(target, sizeof target, "%s", targets[k]);
        else
            snprintf(target, sizeof target, "%s/%s", dir, targets[k]);
        /* the part with its spec path replaced */
        snprintf(args, sizeof args, "sed 's|\"spec\": \"[^\"]*\"|\"spec\": \"%s\"|' %s/p.json > %s/q%d.json",
                 target, dir, dir, k);
        cr_assert(system(args) == 0);
        snprintf(args, sizeof args, "merge %s/q%d.json --quiet", dir, k);
        double t0 = ga_monotonic();
        int st = ga_test_run(args, &out, &err);
        double took = ga_monotonic() - t0;
        cr_expect(st == 65 || st == 66, "%s: status %d: %s", targets[k], st, err);
        cr_expect(strstr(err, "s3cr3t") == NULL && strstr(out, "s3cr3t") == NULL,
                  "%s: the file's bytes are quoted: %s", targets[k], err);
        cr_expect(k == 0 ? strstr(err, "not a gaussaudit spec") != NULL
                         : strstr(err, "not a regular file") != NULL, "%s: message '%s'",
                  targets[k], err);
        cr_expect(took < 60, "%s: merge took %.1f s (a hang guard)", targets[k], took);
        free(out);
        free(err);
    }
}

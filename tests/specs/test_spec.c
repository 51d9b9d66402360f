/*
 * test_spec.c - the spec language: a table of malformed specs (each must give exit status
 * 65 with the key path and line in the message), unknown-key hints, and the spec commands
 * delta / epsilon / rdp end to end on the bundled examples (JSON fields, values against
 * tests/data/delta.json); a spec whose lists are read in one pass gives the same
 * pairs, decimal texts and certified intervals as one read node by node.
 */
#include "catalogue/catalogue.h" /* (ga_mech_pair_reduce) */
#include "specs/readfile.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    const char *yaml;
    const char *needle; /* expected in stderr (key path and/or line) */
} bad_spec;

static const char *pair_ok = "    x: {mean: [0, 0], cov: [[1, 0.2], [0.2, 0.8]]}\n"
                             "    y: {mean: [0.5, -0.3], cov: [[1.3, -0.1], [-0.1, 0.6]]}\n";

static char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/ga_specXXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

Test(spec, malformed_specs_exit_65_with_path_and_line)
{
    char head[] = "gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs:\n  - name: p\n";
    static char buf[64][1024];
    bad_spec cases[] = {
        {"gaussaudit: 1\nmechanism: {kind: gaussian_pair\n", "YAML syntax error"},
        {"gaussaudit: 2\nmechanism: {kind: gaussian_pair}\n", "unsupported format version"},
        {"mechanism: {kind: gaussian_pair}\n", "gaussaudit: missing"},
        {"gaussaudit: 1\n", "mechanism: missing"},
        {"gaussaudit: 1\nmechanism: {kind: gausian_pair}\n", "did you mean 'gaussian_pair'"},
        {"gaussaudit: 1\nmechanism: {kind: sketch}\n", "mechanism.columns: missing"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_pair}\n", "pairs: missing"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs: []\n", "non-empty list"},
        {"gaussaudit: 1\nmechansim: {kind: gaussian_pair}\n", "did you mean 'mechanism'"},
        {"gaussaudit: 1\nmechanism: {kind: gaussian_pair, sigma: 1}\n", "unknown key 'sigma'"},
        {"gaussaudit: 1\ngaussaudit: 1\nmechanism: {kind: gaussian_pair}\n", "appears twice"},
        {"- 1\n- 2\n", "expected a mapping"},
        {"gaussaudit: 1\nmechanism: &a {kind: gaussian_pair}\n", "anchors"},
        {"gaussaudit: '1'\nmechanism: {kind: gaussian_pair}\n", "expected a number"},
    };
    size_t n = sizeof cases / sizeof *cases;
    /* pair-level cases built on a valid header */
    const char *pair_cases[][2] = {
        {"    x: {mean: [0, 0], cov: [[1, 0.2], [0.3, 0.8]]}\n    y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n",
         "pairs[0] (line 4).x.cov is not symmetric"},
        {"    x: {mean: [0, 0], cov: [[1, 2], [2, 1]]}\n    y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n",
         "x.cov is not positive semi-definite: its most negative eigenvalue is -1"},
        {"    x: {mean: [0, .nan], cov: [[1, 0], [0, 1]]}\n    y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n",
         "pairs[0].x.mean[1]"},
        {"    x: {mean: [0, 0], cov: [[1, 0], [0, .inf]]}\n    y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n",
         "pairs[0].x.cov[1][1]"},
        {"    x: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n    y: {mean: [0, 0, 0], cov: [[1, 0], [0, 1]]}\n",
         "both laws must have the same dimension"},
        {"    x: {mean: [0, 0], cov: [[1, 0], [0, 1], [0, 0]]}\n    y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n",
         "has 3 rows, expected 2"},
        {"    x: {mean: [0, 0], cov: [[1, 0], [0]]}\n    y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n",
         "row has 1 entries, expected 2"},
        {"    x: {mean: [0, 0], cov: [[1, 0], [0, one]]}\n    y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n",
         "expected a number, got 'one'"},
        {"    x: {mean: [], cov: []}\n    y: {mean: [], cov: []}\n", "empty list"},
        {"    x: {mean: [0, 0], covv: [[1, 0], [0, 1]]}\n    y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n",
         "did you mean 'cov'"},
        {"    y: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n", "pairs[0].x: missing"},
        {"    x: {mean: [0], cov: [[1]]}\n    y: {mean: [0], cov: [[1]]}\n    columns: 0\n",
         "pairs[0].columns"},
        {"    x: {mean: [0], cov: [[1]]}\n    y: {mean: [0], cov: [[1]]}\n    columns: 2.5\n",
         "whole number"},
        {"    x: {mean: [0], cov: [[1]]}\n    y: {mean: [0], cov: [[-1]]}\n",
         "y.cov is not positive semi-definite"},
    };
    size_t np = sizeof pair_cases / sizeof *pair_cases;
    /* claim-level cases */
    const char *claim_cases[][2] = {
        {"claim: {epsilon: 1}\n", "epsilon and delta must be given together"},
        {"claim: {epsilon: -1, delta: 1e-5}\n", "claim.epsilon"},
        {"claim: {epsilon: 1, delta: 2}\n", "claim.delta"},
        {"claim: {epsilon: 1, delta: 1e-5, zcdp: 0}\n", "claim.zcdp"},
        {"claim: {rdp: [[0.5, 1]]}\n", "claim.rdp"},
        {"claim: {profile: [[1]]}\n", "expected a point"},
        {"claim: {epsiln: 1}\n", "did you mean 'epsilon'"},
    };
    size_t nc = sizeof claim_cases / sizeof *claim_cases;
    for (size_t i = 0; i < n + np + nc; i++) {
        const char *yaml, *needle;
        if (i < n) {
            yaml = cases[i].yaml;
            needle = cases[i].needle;
        } else if (i < n + np) {
            snprintf(buf[i], sizeof buf[i], "%s%s", head, pair_cases[i - n][0]);
            yaml = buf[i];
            needle = pair_cases[i - n][1];
        } else {
            snprintf(buf[i], sizeof buf[i], "%s%s%s", head, pair_ok, claim_cases[i - n - np][0]);
            yaml = buf[i];
            needle = claim_cases[i - n - np][1];
        }
        char *path = write_tmp(yaml);
        char args[256], *out, *err;
        snprintf(args, sizeof args, "delta %s --epsilon 1", path);
        int st = ga_test_run(args, &out, &err);
        cr_expect(st == 65, "spec %zu: status %d (expected 65); stderr: %s\n---\n%s", i, st, err, yaml);
        cr_expect(strstr(err, needle) != NULL, "spec %zu: stderr lacks '%s': %s\n---\n%s", i,
                  needle, err, yaml);
        cr_expect(strstr(err, path) != NULL, "spec %zu: stderr does not name the file: %s", i, err);
        unlink(path);
        free(path);
        free(out);
        free(err);
    }
    char *out, *err;
    cr_expect(ga_test_run("delta /nonexistent/spec.yaml --epsilon 1", &out, &err) == 66);
    free(out);
    free(err);
}

static double json_num_after(const char *text, const char *key, int nth)
{
    const char *p = text;
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    for (int i = 0; i <= nth; i++) {
        p = strstr(p, pat);
        cr_assert(p != NULL, "no %d-th '%s' in %s", nth, key, text);
        p += strlen(pat);
    }
    if (*p == '{')
        p = strstr(p, "\"value\": ") + strlen("\"value\": ");
    return strtod(p, NULL);
}

Test(spec, delta_epsilon_rdp_commands)
{
    char *out, *err;
    int st = ga_test_run("delta specs/examples/two_explicit_outputs.yaml --epsilon 0.5,1 --format json",
                         &out, &err);
    cr_assert(st == 0, "status %d: %s", st, err);
    /* tests/data/delta.json, "2-D, mean and covariance differ" */
    cr_expect(fabs(json_num_after(out, "xy", 0) - 0.082203716727378213575) < 1e-12, "%s", out);
    cr_expect(fabs(json_num_after(out, "yx", 0) - 0.15950531184183919167) < 1e-12, "%s", out);
    cr_expect(fabs(json_num_after(out, "xy", 1) - 0.028382225982794348569) < 1e-12, "%s", out);
    cr_expect(strstr(out, "\"certified\": false") && strstr(out, "\"method\": \"direct\""), "%s", out);
    free(out);
    free(err);
    st = ga_test_run("delta specs/examples/two_explicit_outputs.yaml --epsilon 1 --method tails --format json",
                     &out, &err);
    cr_assert(st == 0);
    cr_expect(fabs(json_num_after(out, "yx", 0) - 0.092578245991114022302) < 1e-12, "%s", out);
    free(out);
    free(err);
    /* epsilon: invert delta(1) of the same pair; the binding direction is yx */
    st = ga_test_run("epsilon specs/examples/two_explicit_outputs.yaml --delta 0.092578245991114022302 --format json",
                     &out, &err);
    cr_assert(st == 0, "%s", err);
    cr_expect(fabs(json_num_after(out, "epsilon", 0) - 1) < 1e-9, "%s", out);
    cr_expect(strstr(out, "\"binding\": \"yx\"") != NULL, "%s", out);
    free(out);
    free(err);
    st = ga_test_run("rdp specs/examples/gaussian_mechanism_pair.yaml --alpha 2 --format json", &out, &err);
    cr_assert(st == 0, "%s", err);
    /* D_2 = alpha Delta^2 / (2 sigma^2) = 1 / 23.404138991201812 */
    cr_expect(fabs(json_num_after(out, "xy", 0) - 1 / 23.404138991201812) < 1e-14, "%s", out);
    free(out);
    free(err);
    static const struct {
        const char *args;
        int status;
        const char *needle;
    } bad[] = {
        {"delta specs/examples/two_explicit_outputs.yaml", 64, "--epsilon"},
        {"delta --epsilon 1", 64, "SPEC.yaml"},
        {"delta specs/examples/two_explicit_outputs.yaml --epsilon x", 64, "--epsilon"},
        {"delta specs/examples/two_explicit_outputs.yaml --epsilon 1 --method fast", 64, "--method"},
        {"epsilon specs/examples/two_explicit_outputs.yaml --delta 1.5", 64, "--delta"},
        {"rdp specs/examples/two_explicit_outputs.yaml --alpha 1", 64, "--alpha"},
        {"rdp specs/examples/two_explicit_outputs.yaml --alpha 2 extra", 64, "unexpected"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        st = ga_test_run(bad[i].args, &out, &err);
        cr_expect(st == bad[i].status, "'%s': status %d: %s", bad[i].args, st, err);
        cr_expect(strstr(err, bad[i].needle) != NULL, "'%s': %s", bad[i].args, err);
        free(out);
        free(err);
    }
}

Test(spec, profile_command)
{
    char *out, *err;
    int st = ga_test_run("delta specs/examples/two_explicit_outputs.yaml --profile 50 --format json",
                         &out, &err);
    cr_assert(st == 0, "status %d: %s", st, err);
    /* 50 points, eps = 0 first (TV: the same in both directions), delta non-increasing */
    size_t n = 0;
    double prev = 2, first_xy = -1, first_yx = -1;
    for (const char *p = strstr(out, "\"epsilon\": "); p; p = strstr(p + 1, "\"epsilon\": ")) {
        double xy = json_num_after(p, "xy", 0), yx = json_num_after(p, "yx", 0);
        if (n == 0) {
            first_xy = xy;
            first_yx = yx;
            cr_expect(strtod(p + strlen("\"epsilon\": "), NULL) == 0, "first eps is not 0");
        }
        cr_expect(fmax(xy, yx) <= prev + 1e-14, "profile increases at point %zu", n);
        prev = fmax(xy, yx);
        n++;
    }
    cr_expect(n == 50, "%zu points", n);
    cr_expect(fabs(first_xy - first_yx) < 1e-14, "TV differs: %.17g %.17g", first_xy, first_yx);
    free(out);
    free(err);
    cr_expect(ga_test_run("delta specs/examples/two_explicit_outputs.yaml --profile 1", &out, &err) == 64);
    free(out);
    free(err);
    cr_expect(ga_test_run("delta specs/examples/two_explicit_outputs.yaml --profile 5 --epsilon 1", &out, &err) == 64);
    free(out);
    free(err);
}

Test(spec, lists_read_in_one_pass_give_the_same_pairs_and_certificates)
{
    /* d = 18 (lists past the one-pass threshold), decimals that are not doubles (0.1) */
    enum { D = 18 };
    char *y = malloc(1 << 16), *p = y;
    cr_assert(y);
    gsl_rng *r = ga_test_rng(18);
    p += sprintf(p, "gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs:\n  - name: p\n");
    for (int side = 0; side < 2; side++) {
        p += sprintf(p, "    %s: {mean: [", side ? "y" : "x");
        for (int i = 0; i < D; i++)
            p += sprintf(p, "%s%.2f", i ? ", " : "", side ? 0.1 * i : 0.1 * i + gsl_rng_uniform(r) / 3);
        p += sprintf(p, "], cov: [");
        for (int i = 0; i < D; i++) {
            p += sprintf(p, "%s[", i ? ", " : "");
            for (int j = 0; j < D; j++)
                p += sprintf(p, "%s%s", j ? ", " : "",
                             i == j ? (side ? "1.3" : "1.1") : (abs(i - j) == 1 ? "0.1" : "0"));
            p += sprintf(p, "]");
        }
        p += sprintf(p, "]}\n");
    }
    p += sprintf(p, "claim: {epsilon: 1, delta: 1.0e-5}\n");
    gsl_rng_free(r);
    ga_spec a, b;
    char msg[256];
    ga_doc_set_nums_min(GA_DOC_NUMS_MIN);
    cr_assert(ga_spec_parse(&a, y, strlen(y), "a.yaml", msg, sizeof msg) == 0, "%s", msg);
    ga_doc_set_nums_min(SIZE_MAX);
    cr_assert(ga_spec_parse(&b, y, strlen(y), "b.yaml", msg, sizeof msg) == 0, "%s", msg);
    cr_assert(a.written.npairs == 1 && b.written.npairs == 1 && a.written.pairs[0].d == D);
    ga_spec_pair_view va, vb;
    cr_assert(ga_spec_pair_view_init(&va, &a.written.pairs[0], 1) == GA_OK &&
              ga_spec_pair_view_init(&vb, &b.written.pairs[0], 1) == GA_OK);
    const ga_node *mx = ga_spec_pair_src(&a.written.pairs[0], 0), *sx = ga_spec_pair_src(&a.written.pairs[0], 2);
    cr_assert(mx && mx->kind == GA_NODE_NUMS && sx->kids[0]->kind == GA_NODE_NUMS,
              "the lists were not read in one pass");
    const char *const *ta[4] = {va.txt->mu_x, va.txt->mu_y, va.txt->s_x, va.txt->s_y};
    const char *const *tb[4] = {vb.txt->mu_x, vb.txt->mu_y, vb.txt->s_x, vb.txt->s_y};
    const double *da[4] = {va.in->mu_x, va.in->mu_y, va.in->s_x, va.in->s_y};
    const double *db[4] = {vb.in->mu_x, vb.in->mu_y, vb.in->s_x, vb.in->s_y};
    for (int w = 0; w < 4; w++)
        for (size_t i = 0; i < (w < 2 ? (size_t)D : (size_t)D * D); i++) {
            char x[80], z[80];
            ga_test_decimal_normal(x, sizeof x, ta[w][i]);
            ga_test_decimal_normal(z, sizeof z, tb[w][i]);
            cr_assert(!strcmp(x, z) && da[w][i] == db[w][i], "array %d item %zu: '%s' (%.17g) and '%s' (%.17g)",
                      w, i, ta[w][i], da[w][i], tb[w][i], db[w][i]);
        }
    ga_pair *pa, *pb;
    cr_assert(ga_mech_pair_reduce(&pa, &a.written.pairs[0], msg, sizeof msg) == GA_OK, "%s", msg);
    cr_assert(ga_mech_pair_reduce(&pb, &b.written.pairs[0], msg, sizeof msg) == GA_OK, "%s", msg);
    ga_delta_cert ca, cb;
    int s1 = ga_pair_delta_cert(&ca, pa, va.in, va.txt, "1", NULL);
    int s2 = ga_pair_delta_cert(&cb, pb, vb.in, vb.txt, "1", NULL);
    cr_expect(s1 == GA_OK && s2 == GA_OK && ca.xy.lo == cb.xy.lo && ca.xy.hi == cb.xy.hi &&
                  ca.yx.lo == cb.yx.lo && ca.yx.hi == cb.yx.hi,
              "status %d %d: [%.17g, %.17g] [%.17g, %.17g] against [%.17g, %.17g] [%.17g, %.17g]", s1, s2,
              ca.xy.lo, ca.xy.hi, ca.yx.lo, ca.yx.hi, cb.xy.lo, cb.xy.hi, cb.yx.lo, cb.yx.hi);
    ga_pair_free(pa);
    ga_pair_free(pb);
    ga_spec_pair_view_clear(&va);
    ga_spec_pair_view_clear(&vb);
    ga_spec_clear(&a);
    ga_spec_clear(&b);
    free(y);
}

/* a new empty file at the mkstemp template path */
static void new_temp(char *path)
{
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp %s", path);
    close(fd);
}

/* the file at path holds text[0, len) */
static void put_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(text, 1, len, f) == len && fclose(f) == 0, "writing %s", path);
}

/* A CSV dataset is read in pieces (specs/csv.c): random tables written as CSV (a
 * header or none, blank and comment lines, CRLF, blanks around fields, a last line with or
 * without its line break, fields in several formats) and read with pieces of 1-64 bytes give
 * the values, bit for bit, of the same numbers written in the spec as rows: [[...]] (read by
 * the YAML path); broken tables (ragged rows, a field that is not a number) give the same
 * message with tiny pieces as with the default. */
static int load_dataset(ga_spec *s, const char *yaml, char *msg, size_t msglen)
{
    char *path = write_tmp(yaml);
    int rc = ga_spec_load(s, path, msg, msglen);
    unlink(path);
    free(path);
    return rc;
}

/* the same on jobs threads (a piece split into chunks read in parallel: specs/csv.c) */
static int load_dataset_jobs(ga_spec *s, const char *yaml, int jobs, char *msg, size_t msglen)
{
    char *path = write_tmp(yaml);
    ga_spec_opts so = {.jobs = jobs};
    int rc = ga_spec_load_opts(s, path, &so, msg, msglen);
    unlink(path);
    free(path);
    return rc;
}

Test(spec, csv_read_in_pieces_equals_rows_in_the_spec)
{
    gsl_rng *r = ga_test_rng(4242);
    long n = ga_test_count(300);
    size_t broken = 0;
    char csvpath[] = "/tmp/ga_test_csv_XXXXXX";
    new_temp(csvpath);
    char *csv = malloc(1 << 16), *yaml = malloc(1 << 17), *rows = malloc(1 << 16);
    cr_assert(csv && yaml && rows);
    for (long k = 0; k < n; k++) {
        size_t nr = 1 + gsl_rng_uniform_int(r, 40), nc = 1 + gsl_rng_uniform_int(r, 6);
        int header = gsl_rng_uniform(r) < 0.5, crlf = gsl_rng_uniform(r) < 0.2;
        int bad = gsl_rng_uniform(r) < 0.15 ? 1 + (int)gsl_rng_uniform_int(r, 2) : 0;
        size_t badrow = gsl_rng_uniform_int(r, nr);
        const char *eol = crlf ? "\r\n" : "\n";
        char *c = csv, *y = rows;
        if (header) {
            for (size_t j = 0; j < nc; j++)
                c += sprintf(c, "%sc%zu", j ? "," : "", j);
            c += sprintf(c, "%s", eol);
        }
        y += sprintf(y, "[");
        for (size_t i = 0; i < nr; i++) {
            if (gsl_rng_uniform(r) < 0.1)
                c += sprintf(c, gsl_rng_uniform(r) < 0.5 ? "%s" : "# a comment, 1, 2%s", eol);
            y += sprintf(y, "%s[", i ? ", " : "");
            size_t fields = bad == 1 && i == badrow ? nc + 1 : nc;
            for (size_t j = 0; j < fields; j++) {
                char num[40];
                double x = (gsl_rng_uniform(r) - 0.4) * pow(10, (int)gsl_rng_uniform_int(r, 9) - 4);
                int f = (int)gsl_rng_uniform_int(r, 3);
                snprintf(num, sizeof num, f == 0 ? "%.17g" : f == 1 ? "%.4e" : "%.0f", x);
                if (bad == 2 && i == badrow && j == nc - 1)
                    snprintf(num, sizeof num, "1.5x");
                const char *pad = gsl_rng_uniform(r) < 0.2 ? " " : "";
                c += sprintf(c, "%s%s%s%s", j ? "," : "", pad, num, pad);
                if (j < nc)
                    y += sprintf(y, "%s%s", j ? ", " : "", num);
            }
            y += sprintf(y, "]");
            if (i + 1 < nr || gsl_rng_uniform(r) < 0.7)
                c += sprintf(c, "%s", eol);
        }
        y += sprintf(y, "]");
        put_file(csvpath, csv, (size_t)(c - csv));
        const char *head = "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, noise_sigma: 1}\n";
        ga_spec a, b, w;
        char ma[600] = "", mb[600] = "", mw[600] = "";
        snprintf(yaml, 1 << 17, "%sdataset: {csv: '%s', header: %s}\n", head, csvpath,
                 header ? "true" : "false");
        size_t piece = 1 + gsl_rng_uniform_int(r, 64), piece2 = 1 + gsl_rng_uniform_int(r, 64);
        int jobs = 2 + (int)(k % 3);
        ga_file_set_piece(piece);
        int ra = load_dataset(&a, yaml, ma, sizeof ma);
        ga_file_set_piece(piece2);
        ga_spec t;
        char mt[600] = "";
        int rt = load_dataset_jobs(&t, yaml, jobs, mt, sizeof mt);
        ga_file_set_piece(0);
        int rw = load_dataset(&w, yaml, mw, sizeof mw);
        cr_assert_eq(ra != 0, rw != 0, "table %ld, pieces of %zu: %d (%s), whole %d (%s)\n%s", k,
                     piece, ra, ma, rw, mw, csv);
        cr_assert_eq(rt != 0, rw != 0, "table %ld, pieces of %zu on %d threads: %d (%s), whole "
                     "%d (%s)\n%s", k, piece2, jobs, rt, mt, rw, mw, csv);
        if (bad) {
            /* (the messages name the spec files, which differ: compared from the key path) */
            const char *ta = strstr(ma, " dataset.csv:"), *tw = strstr(mw, " dataset.csv:"),
                       *tt = strstr(mt, " dataset.csv:");
            cr_assert(ra != 0 && ta && tw && !strcmp(ta, tw), "table %ld (broken %d), pieces "
                      "of %zu: '%s' against '%s'\n%s", k, bad, piece, ma, mw, csv);
            cr_assert(tt && !strcmp(tt, tw), "table %ld (broken %d), pieces of %zu on %d threads: "
                      "'%s' against '%s'\n%s", k, bad, piece2, jobs, mt, mw, csv);
            broken++;
            continue;
        }
        cr_assert(t.data.n == nr && t.data.d == nc, "table %ld on %d threads: %zu x %zu", k, jobs,
                  t.data.n, t.data.d);
        cr_assert(!strcmp(t.inputs[0].sha256, w.inputs[0].sha256), "table %ld on %d threads: "
                  "SHA-256 %s, one thread %s", k, jobs, t.inputs[0].sha256, w.inputs[0].sha256);
        for (size_t i = 0; i < nr * nc; i++)
            cr_assert(memcmp(&t.data.x[i], &w.data.x[i], sizeof(double)) == 0,
                      "table %ld, pieces of %zu on %d threads, value %zu: %a, one thread %a\n%s",
                      k, piece2, jobs, i, t.data.x[i], w.data.x[i], csv);
        ga_spec_clear(&t);
        cr_assert(ra == 0, "table %ld, pieces of %zu: %s\n%s", k, piece, ma, csv);
        snprintf(yaml, 1 << 17, "%sdataset: {rows: %s}\n", head, rows);
        int rb = load_dataset(&b, yaml, mb, sizeof mb);
        cr_assert(rb == 0, "table %ld as rows: %s", k, mb);
        cr_assert(a.data.n == nr && a.data.d == nc && b.data.n == nr && b.data.d == nc,
                  "table %ld: %zu x %zu and %zu x %zu, written %zu x %zu", k, a.data.n, a.data.d,
                  b.data.n, b.data.d, nr, nc);
        for (size_t i = 0; i < nr * nc; i++)
            cr_assert(memcmp(&a.data.x[i], &b.data.x[i], sizeof(double)) == 0,
                      "table %ld, pieces of %zu, value %zu: %a from the CSV, %a from rows\n%s", k,
                      piece, i, a.data.x[i], b.data.x[i], csv);
        ga_spec_clear(&a);
        ga_spec_clear(&b);
        ga_spec_clear(&w);
    }
    cr_assert(broken > (size_t)n / 20, "only %zu broken tables", broken);
    unlink(csvpath);
    free(csv);
    free(yaml);
    free(rows);
    gsl_rng_free(r);
}

/* The reader parses each field where it lies (no NUL written, no second count of the
 * commas) and tells the first fault in the file: the messages of a table of broken lines, read whole and in pieces of 1 to 7
 * bytes, on one thread and on three, against the message each must give (a stray '\r' ends
 * its field; the next is then empty), and the values of the lines that parse. */
Test(spec, csv_field_errors_and_values_table)
{
    static const struct {
        const char *csv;  /* two columns, no header */
        const char *want; /* a fragment of the message (NULL: it loads) */
        double v[4];      /* the values when it loads (two rows) */
    } rows[] = {
        {"1,2\n3,4\n", NULL, {1, 2, 3, 4}},
        {"1,2\r\n3,4\r\n", NULL, {1, 2, 3, 4}},
        {" 1 ,\t2\t\n-3e-2 , 4.5e+1", NULL, {1, 2, -0.03, 45}},
        {"1,2\r\n3,4\rjunk\n", ":2: field 2 ('4\\x0djunk') is not a finite decimal number", {0}},
        {"1\r,2\n3,4\n", ":1: field 1 ('1\\x0d') is not a finite decimal number", {0}},
        /* RFC 4180: quoted fields (spreadsheet and pandas exports quote numbers) */
        {"\"1\",\"2\"\n\"3\",\"4\"\n", NULL, {1, 2, 3, 4}},
        {"\"1\",2\r\n3,\"-4.5e-1\"", NULL, {1, 2, 3, -0.45}},
        {" \"1\" ,\t\"2\"\n3,4\n", NULL, {1, 2, 3, 4}},
        {"\"1,5\",2\n3,4\n", ":1: field 1 ('1,5') is not a finite decimal number", {0}},
        {"\"1\n\",2\n3,4\n", ":1: field 1 ('1\\x0a') is not a finite decimal number", {0}},
        {"1,2\n\"3\"x,4\n", ":2: field 1: a quote is not closed, or text follows", {0}},
        {"1,2\n\"3,4\n5,6\n", ":2: field 1: a quote is not closed", {0}},
        {"1,\"2\"\"\"\n3,4\n", ":1: field 2 ('2\\x22\\x22') is not a finite decimal number", {0}},
        {"1,2\n3,\" 4\"\n", ":2: field 2 (' 4') is not a finite decimal number", {0}},
        {"1,2\n3,\n", ":2: field 2 ('') is not a finite decimal number", {0}},
        {"1,2\n,4\n", ":2: field 1 ('') is not a finite decimal number", {0}},
        {"1,2\n3, 4 x\n", ":2: field 2 ('4 x') is not a finite decimal number", {0}},
        {"1,2\n3,0x10\n", ":2: field 2 ('0x10') is not a finite decimal number", {0}},
        {"1,2\n3,4,\n", ":2: row has 3 fields, expected 2 (ragged CSV)", {0}},
        {"1,2\n3\r\n", ":2: row has 1 fields, expected 2 (ragged CSV)", {0}},
        {"1,2\n3,1e999\n", ":2: field 2 ('1e999') is not a finite decimal number", {0}},
        /* (the first fault in the file is told: the values are read as the rows are checked) */
        {"1,2\n3,x\n5,6,7\n", ":2: field 2 ('x') is not a finite decimal number", {0}},
        {"1,2\n3,4,5\n5,x\n", ":2: row has 3 fields, expected 2 (ragged CSV)", {0}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char csvpath[] = "/tmp/ga_test_csv2_XXXXXX", yaml[400];
        ga_test_temp_spec(csvpath, rows[i].csv); /* (any text) */
        snprintf(yaml, sizeof yaml, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, "
                 "noise_sigma: 1}\ndataset: {csv: '%s', header: false}\n", csvpath);
        for (size_t piece = 0; piece <= 15; piece++) {
            int jobs = piece < 8 ? 1 : 3; /* (then on three threads: specs/csv.c's chunks) */
            ga_file_set_piece(piece % 8);
            ga_spec s;
            char msg[600] = "";
            int rc = load_dataset_jobs(&s, yaml, jobs, msg, sizeof msg);
            if (rows[i].want) {
                cr_assert(rc != 0 && strstr(msg, rows[i].want), "row %zu, pieces of %zu, %d "
                          "threads: %d '%s', want '%s'", i, piece % 8, jobs, rc, msg, rows[i].want);
                continue;
            }
            cr_assert(rc == 0, "row %zu, pieces of %zu, %d threads: %s", i, piece % 8, jobs, msg);
            cr_assert(s.data.n == 2 && s.data.d == 2, "row %zu: %zu x %zu", i, s.data.n, s.data.d);
            for (size_t k = 0; k < 4; k++)
                cr_assert(s.data.x[k] == rows[i].v[k], "row %zu, pieces of %zu, %d threads, value "
                          "%zu: %.17g, want %.17g", i, piece % 8, jobs, k, s.data.x[k],
                          rows[i].v[k]);
            ga_spec_clear(&s);
        }
        unlink(csvpath);
    }
    ga_file_set_piece(0);
}

/* The values' room is estimated from the bytes per value of the first MiB of records
 * (specs/csv.c): tables whose later rows hold many more values per byte than the first (the
 * room grows past its estimate) or many fewer (it is trimmed at the end), read on one thread
 * and on two to four, in pieces of the default, 64 KiB and a few KiB, give back every value
 * written (%.17g: the doubles bit for bit), the rows and the columns, and whether a last value
 * is -1 (binary labels read as -1/1). */
Test(spec, csv_values_room_follows_the_rows)
{
    gsl_rng *r = ga_test_rng(4242);
    long n = ga_test_count(8);
    char csvpath[] = "/tmp/ga_test_csv4_XXXXXX";
    new_temp(csvpath);
    size_t cap = (size_t)8 << 20;
    char *csv = malloc(cap), yaml[600];
    double *want = malloc(((size_t)1 << 20) * sizeof *want);
    cr_assert(csv && want);
    for (long k = 0; k < n; k++) {
        /* 40,000 values padded to 58 bytes each (2.3 MB: past the bytes the estimate waits
         * for), then 200,000 of two bytes (the room estimated grows), or those first (the room
         * estimated is trimmed) */
        int sparse_first = (int)(k % 2);
        size_t nc = 1 + gsl_rng_uniform_int(r, 6);
        size_t nr = (240000 + gsl_rng_uniform_int(r, 5000)) / nc;
        size_t first = sparse_first ? 200000 : 40000;
        size_t nv = 0, minus = (k / 2) % 2 ? gsl_rng_uniform_int(r, nr) : nr; /* (a label -1) */
        char *c = csv;
        for (size_t i = 0; i < nr; i++) {
            int padded = (nv < first) == !sparse_first;
            for (size_t j = 0; j < nc; j++) {
                double x = padded ? (gsl_rng_uniform(r) - 0.5) * 1e-3 : (double)(i % 10);
                x = i == minus && j + 1 == nc ? -1 : x;
                want[nv++] = x;
                c += sprintf(c, padded ? "%s%.17g%40s" : "%s%.0f", j ? "," : "", x, "");
            }
            c += sprintf(c, "\n");
            cr_assert((size_t)(c - csv) < cap - 4096 && nv < ((size_t)1 << 20) - 16);
        }
        put_file(csvpath, csv, (size_t)(c - csv));
        snprintf(yaml, sizeof yaml, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, "
                 "noise_sigma: 1}\ndataset: {csv: '%s', header: false}\n", csvpath);
        const size_t pieces[] = {0, 65536, 2048 + gsl_rng_uniform_int(r, 4096)};
        for (size_t p = 0; p < 6; p++) {
            int jobs = p < 3 ? 1 : 2 + (int)gsl_rng_uniform_int(r, 3);
            ga_spec t;
            char m[600] = "";
            ga_file_set_piece(pieces[p % 3]);
            int rc = load_dataset_jobs(&t, yaml, jobs, m, sizeof m);
            ga_file_set_piece(0);
            cr_assert(rc == 0, "table %ld (%s first, %zu x %zu), pieces of %zu on %d threads: %s",
                      k, sparse_first ? "sparse" : "dense", nr, nc, pieces[p % 3], jobs, m);
            cr_assert(t.data.n == nr && t.data.d == nc, "table %ld (%s first), pieces of %zu on %d "
                      "threads: %zu x %zu, written %zu x %zu", k, sparse_first ? "sparse" :
                      "dense", pieces[p % 3], jobs, t.data.n, t.data.d, nr, nc);
            cr_assert(t.data.labels_pm1 == (minus < nr), "table %ld, pieces of %zu on %d threads: "
                      "labels_pm1 %d, a last value -1 written at row %zu of %zu", k,
                      pieces[p % 3], jobs, t.data.labels_pm1, minus + 1, nr);
            for (size_t i = 0; i < nv; i++)
                cr_assert(memcmp(&t.data.x[i], &want[i], sizeof(double)) == 0, "table %ld (%s "
                          "first), pieces of %zu on %d threads, value %zu: %a, written %a", k,
                          sparse_first ? "sparse" : "dense", pieces[p % 3], jobs, i, t.data.x[i],
                          want[i]);
            ga_spec_clear(&t);
        }
    }
    unlink(csvpath);
    free(csv);
    free(want);
    gsl_rng_free(r);
}

/* A file written to while it is read is told (ga_file_changed, which the CSV reader asks at its
 * end): unchanged, GA_OK; a byte appended, or the modification time moved with the size kept,
 * GA_EINVAL and a message naming the file. */
Test(spec, file_changed_while_read_is_told)
{
    char path[] = "/tmp/ga_test_changed_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0 && write(fd, "1,2\n3,4\n", 8) == 8 && close(fd) == 0);
    ga_read_policy pol = {.max_bytes = 1 << 20, .what = "CSV file"};
    for (int how = 0; how < 3; how++) {
        ga_file f;
        char msg[600] = "", buf[64];
        size_t got;
        cr_assert(ga_file_open(&f, path, &pol, msg, sizeof msg) == GA_OK, "%s", msg);
        cr_assert(ga_file_read(&f, buf, sizeof buf, &got, msg, sizeof msg) == GA_OK && got >= 8,
                  "%s", msg);
        if (how == 1) { /* appended */
            FILE *a = fopen(path, "ab");
            cr_assert(a && fputc('5', a) == '5' && fclose(a) == 0);
        } else if (how == 2) { /* the same size, another modification time */
            struct timespec ts[2] = {{0, UTIME_OMIT}, {1000000000, 123}};
            cr_assert(utimensat(AT_FDCWD, path, ts, 0) == 0);
        }
        int rc = ga_file_changed(&f, msg, sizeof msg);
        ga_file_close(&f);
        if (how == 0)
            cr_assert(rc == GA_OK, "unchanged: %d '%s'", rc, msg);
        else
            cr_assert(rc == GA_EINVAL && strstr(msg, "changed while it was read") &&
                      strstr(msg, "ga_test_changed_"), "change %d: %d '%s'", how, rc, msg);
    }
    unlink(path);
}

/* A CSV read on several threads (each piece's records split into chunks: specs/csv.c) is the
 * table read on one, value for value, with the same SHA-256, and a broken one gives the same
 * message: tables of 10,000 to 40,000 values, pieces of 1 MiB (chunks of 64 KiB), 64 KiB and
 * 4 to 8 KiB (chunks of a few rows; smaller pieces: the test above), 2 to 8 threads, and one
 * record of each kind the chunks hand back to the serial reader (a quoted field, one not
 * closed, a ragged row, a field that is not a number, an empty field), or blank and comment
 * lines, CRLF, a header, a last line without its break. */
Test(spec, csv_on_threads_reads_as_on_one)
{
    static const char *const faults[] = {"none", "quoted", "open quote", "ragged", "not a number",
                                         "empty field", "blank and comment", "crlf"};
    enum { NFAULTS = sizeof faults / sizeof *faults };
    gsl_rng *r = ga_test_rng(9090);
    long n = ga_test_count(32);
    char csvpath[] = "/tmp/ga_test_csv3_XXXXXX";
    new_temp(csvpath);
    size_t cap = (size_t)1 << 20;
    char *csv = malloc(cap), yaml[600];
    cr_assert(csv);
    for (long k = 0; k < n; k++) {
        size_t nc = 1 + gsl_rng_uniform_int(r, 8), nr = (10000 + gsl_rng_uniform_int(r, 30000)) / nc;
        int fault = (int)(k % NFAULTS), header = gsl_rng_uniform(r) < 0.5;
        int last_break = gsl_rng_uniform(r) < 0.5;
        size_t at = gsl_rng_uniform_int(r, nr);
        const char *eol = fault == 7 ? "\r\n" : "\n";
        char *c = csv;
        if (header)
            c += sprintf(c, "a,b%s", eol);
        for (size_t i = 0; i < nr; i++) {
            if (fault == 6 && i % 97 == at % 97 && i % 2)
                c += sprintf(c, " %s", eol);
            else if (fault == 6 && i % 97 == at % 97)
                c += sprintf(c, "# %zu, 1%s", i, eol);
            size_t fields = fault == 3 && i == at ? nc + 1 : nc;
            for (size_t j = 0; j < fields; j++) {
                double x = (gsl_rng_uniform(r) - 0.4) * pow(10, (int)gsl_rng_uniform_int(r, 9) - 4);
                const char *sep = j ? "," : "";
                if (i == at && j == nc - 1 && fault == 1)
                    c += sprintf(c, "%s\"%.6g\"", sep, x);
                else if (i == at && j == nc - 1 && fault == 2)
                    c += sprintf(c, "%s\"%.6g", sep, x);
                else if (i == at && j == nc - 1 && fault == 4)
                    c += sprintf(c, "%s%.3gq", sep, x);
                else if (i == at && j == nc - 1 && fault == 5)
                    c += sprintf(c, "%s", sep);
                else
                    c += sprintf(c, gsl_rng_uniform(r) < 0.5 ? "%s%.17g" : "%s%.5e", sep, x);
            }
            if (i + 1 < nr || last_break)
                c += sprintf(c, "%s", eol);
            cr_assert((size_t)(c - csv) < cap - 4096);
        }
        put_file(csvpath, csv, (size_t)(c - csv));
        snprintf(yaml, sizeof yaml, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, "
                 "noise_sigma: 1}\ndataset: {csv: '%s', header: %s}\n", csvpath,
                 header ? "true" : "false");
        ga_spec one;
        char m1[600] = "";
        ga_file_set_piece(0);
        int r1 = load_dataset_jobs(&one, yaml, 1, m1, sizeof m1);
        cr_assert_eq(r1 != 0, fault >= 2 && fault <= 5, "table %ld (%s): %d '%s'", k,
                     faults[fault], r1, m1);
        const size_t pieces[] = {0, 65536, 4096 + gsl_rng_uniform_int(r, 4096)};
        for (size_t p = 0; p < 3; p++) {
            int jobs = 2 + (int)gsl_rng_uniform_int(r, 7);
            ga_spec t;
            char mt[600] = "";
            ga_file_set_piece(pieces[p]);
            int rt = load_dataset_jobs(&t, yaml, jobs, mt, sizeof mt);
            ga_file_set_piece(0);
            const char *t1 = strstr(m1, " dataset.csv:"), *tt = strstr(mt, " dataset.csv:");
            cr_assert(rt == r1 && (!r1 || (t1 && tt && !strcmp(t1, tt))), "table %ld (%s at row "
                      "%zu), pieces of %zu on %d threads: %d '%s', one thread %d '%s'", k,
                      faults[fault], at + 1, pieces[p], jobs, rt, mt, r1, m1);
            if (r1)
                continue;
            cr_assert(t.data.n == nr && t.data.d == nc && one.data.n == nr,
                      "table %ld (%s): %zu x %zu on %d threads, %zu x %zu on one, written %zu x "
                      "%zu", k, faults[fault], t.data.n, t.data.d, jobs, one.data.n, one.data.d,
                      nr, nc);
            cr_assert(!strcmp(t.inputs[0].sha256, one.inputs[0].sha256), "table %ld (%s), pieces "
                      "of %zu on %d threads: SHA-256 %s, one thread %s", k, faults[fault],
                      pieces[p], jobs, t.inputs[0].sha256, one.inputs[0].sha256);
            for (size_t i = 0; i < nr * nc; i++)
                cr_assert(memcmp(&t.data.x[i], &one.data.x[i], sizeof(double)) == 0,
                          "table %ld (%s), pieces of %zu on %d threads, value %zu: %a, one "
                          "thread %a", k, faults[fault], pieces[p], jobs, i, t.data.x[i],
                          one.data.x[i]);
            ga_spec_clear(&t);
        }
        if (!r1)
            ga_spec_clear(&one);
    }
    unlink(csvpath);
    free(csv);
    gsl_rng_free(r);
}

/* Explicit pairs are read on the spec's threads (specs/spec.c): specs of 50 to 400 pairs,
 * sound or with two broken pairs (an unknown key, a missing law, a ragged covariance, a mean
 * of another dimension, a value that is not a number, columns that are not whole), read on
 * one thread and on two to five give the same status and message, the first broken pair's,
 * and the same records value for value. */
Test(spec, explicit_pairs_on_threads_read_as_on_one)
{
    static const char *const faults[] = {"none", "unknown key", "missing y", "ragged cov",
                                         "mean dimension", "not a number", "columns"};
    enum { NF = sizeof faults / sizeof *faults };
    gsl_rng *r = ga_test_rng(6262);
    long n = ga_test_count(21);
    size_t cap = (size_t)1 << 20;
    char *yaml = malloc(cap);
    cr_assert(yaml);
    for (long k = 0; k < n; k++) {
        size_t np = 50 + gsl_rng_uniform_int(r, 350), bad = gsl_rng_uniform_int(r, np - 1);
        size_t bad2 = bad + 1 + gsl_rng_uniform_int(r, np - bad - 1); /* (a second, later) */
        int fault = (int)(k % NF);
        char *y = yaml;
        y += sprintf(y, "gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs:\n");
        for (size_t i = 0; i < np; i++) {
            int f = i == bad ? fault : i == bad2 && fault ? 1 + fault % (NF - 1) : 0;
            double a = gsl_rng_uniform(r), b = gsl_rng_uniform(r);
            y += sprintf(y, "  - name: p%zu\n", i);
            if (f == 1)
                y += sprintf(y, "    colums: 2\n");
            if (f == 6)
                y += sprintf(y, "    columns: 2.5\n");
            y += sprintf(y, "    x: {mean: [%.17g, 0], cov: [[1, %.6f], [%.6f, 1]]}\n", a, b / 2, b / 2);
            if (f == 2)
                continue;
            y += sprintf(y, "    y: {mean: [%s, 1], cov: [[2, 0], [0%s]]}\n",
                         f == 4 ? "0, 0" : f == 5 ? "1x" : "0.5", f == 3 ? "" : ", 2");
            cr_assert((size_t)(y - yaml) < cap - 1024);
        }
        ga_spec one;
        char m1[600] = "";
        int r1 = load_dataset_jobs(&one, yaml, 1, m1, sizeof m1);
        char first[32];
        snprintf(first, sizeof first, "pairs[%zu]", bad);
        cr_assert_eq(r1 != 0, fault != 0, "spec %ld (%s at pair %zu of %zu): %d '%s'", k,
                     faults[fault], bad, np, r1, m1);
        cr_assert(!r1 || strstr(m1, first), "spec %ld (%s at pair %zu, another at %zu): '%s' does "
                  "not name the first", k, faults[fault], bad, bad2, m1);
        int jobs = 2 + (int)(k % 4);
        ga_spec t;
        char mt[600] = "";
        int rt = load_dataset_jobs(&t, yaml, jobs, mt, sizeof mt);
        /* (the messages name the spec files, which differ: compared from the line) */
        const char *a1 = strchr(m1, ':'), *at = strchr(mt, ':');
        cr_assert(rt == r1 && (!r1 || (a1 && at && !strcmp(a1, at))), "spec %ld (%s at pair %zu "
                  "of %zu) on %d threads: %d '%s', one thread %d '%s'", k, faults[fault], bad, np,
                  jobs, rt, mt, r1, m1);
        if (r1)
            continue;
        cr_assert(t.written.npairs == np && one.written.npairs == np);
        for (size_t i = 0; i < np; i++) {
            const ga_spec_pair *p = &t.written.pairs[i], *q = &one.written.pairs[i];
            cr_assert(p->d == 2 && q->d == 2 && !strcmp(p->name, q->name) &&
                      p->columns == q->columns && p->line == q->line &&
                      !memcmp(p->mu_x, q->mu_x, 2 * sizeof(double)) &&
                      !memcmp(p->s_x, q->s_x, 4 * sizeof(double)) &&
                      !memcmp(p->mu_y, q->mu_y, 2 * sizeof(double)) &&
                      !memcmp(p->s_y, q->s_y, 4 * sizeof(double)),
                      "spec %ld, pair %zu: the records on %d threads and on one differ", k, i, jobs);
        }
        ga_spec_clear(&t);
        ga_spec_clear(&one);
    }
    free(yaml);
    gsl_rng_free(r);
}

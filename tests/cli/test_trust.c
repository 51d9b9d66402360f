/*
 * test_trust.c - no false certificate, no wrong verdict, no silent wrong number, on any
 * input: the file policy (regular files inside the spec's
 * directory tree, --allow-path, no FIFO blocking, caps while reading), the support decision
 * on exact inputs, failed evaluations reaching the verdict, escaping of user strings,
 * outward bounds in JSON, atomic reports and checked output.
 */
#include "tests/support.h"
#include "verdict/audit.h"
#include "numerics/numerics.h"

#include <arb.h>
#include <arb_hypgeom.h>
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <gsl/gsl_rng.h>
#include <unistd.h>

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ga_trustXXXXXX");
    cr_assert(mkdtemp(dir) != NULL);
}

static void teardown(void)
{
    ga_cleanup(); /* FLINT's caches from the in-process certified runs (valgrind) */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert(system(cmd) == 0);
}

static void write_file(const char *name, const char *text)
{
    ga_test_write(dir, name, text);
}

/* a sketch spec over the CSV named csv (text substituted into the spec) */
static void sketch_spec(const char *name, const char *csv)
{
    char t[1024];
    snprintf(t, sizeof t,
             "gaussaudit: 1\nname: t\nmechanism: {kind: sketch, columns: 3, noise_sigma: 0.5}\n"
             "dataset: {csv: '%s', header: true}\nneighbours: remove_one\n"
             "claim: {epsilon: 1.0, delta: 1.0e-5}\n", csv);
    write_file(name, t);
}

static const char *rows_csv = "a,b\n0.9,0.1\n0.2,0.8\n0.5,0.5\n-0.7,0.3\n";

/* DIR/NAME: the Gaussian mechanism with explicit outputs of dimension d, sigma 1: f(D) = 0
 * and nb neighbours, neighbour k shifted by 1 in coordinate hot + k (hot < 0: no shift, f(D')
 * = 0), then the claim (a YAML mapping's body) */
static void explicit_outputs_spec(const char *name, int d, int nb, int hot, const char *claim)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert(f != NULL, "%s", p);
    fputs("gaussaudit: 1\nname: g\nmechanism: {kind: gaussian_mechanism, sigma: 1, f: [", f);
    for (int i = 0; i < d; i++)
        fprintf(f, "%s0", i ? "," : "");
    fputs("], f_neighbours: [", f);
    for (int k = 0; k < nb; k++) {
        fputs(k ? ", [" : "[", f);
        for (int i = 0; i < d; i++)
            fprintf(f, "%s%d", i ? "," : "", hot >= 0 && i == hot + k);
        fputs("]", f);
    }
    fprintf(f, "]}\nclaim: {%s}\n", claim);
    cr_assert(fclose(f) == 0);
}

static int run(const char *fmt, const char *arg, char **out, char **err)
{
    char args[1024];
    snprintf(args, sizeof args, fmt, dir, arg);
    return ga_test_run(args, out, err);
}

Test(trust, csv_regular_files_only, .init = setup, .fini = teardown)
{
    char *out, *err;
    write_file("rows.csv", rows_csv);
    sketch_spec("s.yaml", "rows.csv");
    int st = run("audit %s/s.yaml --quiet --format json%s", "", &out, &err);
    cr_expect(st == 1, "regular file: status %d (expected a violation, 1): %s", st, err);
    free(out);
    free(err);
    /* a FIFO with no writer: refused at once (before a blocking open), not read */
    char p[256];
    snprintf(p, sizeof p, "%s/fifo.csv", dir);
    cr_assert(mkfifo(p, 0600) == 0);
    sketch_spec("f.yaml", "fifo.csv");
    st = run("audit %s/f.yaml --quiet%s", "", &out, &err);
    cr_expect(st == 65 && strstr(err, "FIFO"), "FIFO: status %d: %s", st, err);
    free(out);
    free(err);
    /* a pipe (/dev/stdin) is not a regular file inside the spec's tree */
    sketch_spec("p.yaml", "/dev/stdin");
    st = run("audit %s/p.yaml --quiet%s", "", &out, &err);
    cr_expect(st == 65, "/dev/stdin: status %d: %s", st, err);
    free(out);
    free(err);
    /* a directory */
    snprintf(p, sizeof p, "%s/sub", dir);
    cr_assert(mkdir(p, 0700) == 0);
    sketch_spec("d.yaml", "sub");
    st = run("audit %s/d.yaml --quiet%s", "", &out, &err);
    cr_expect(st == 65 && strstr(err, "directory"), "directory: status %d: %s", st, err);
    free(out);
    free(err);
}

Test(trust, csv_policy_outside_the_tree, .init = setup, .fini = teardown)
{
    static const char *bad[] = {"/etc/passwd", "/proc/self/environ", "/dev/zero", "../x.csv",
                                "link.csv"};
    char p[256];
    snprintf(p, sizeof p, "%s/link.csv", dir);
    cr_assert(symlink("/etc/passwd", p) == 0);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out, *err;
        sketch_spec("s.yaml", bad[i]);
        int st = run("audit %s/s.yaml --quiet%s", "", &out, &err);
        cr_expect(st == 65 || st == 66, "%s: status %d: %s", bad[i], st, err);
        cr_expect(strstr(err, "root:") == NULL && strstr(err, "PATH=") == NULL,
                  "%s: the message echoes file contents: %s", bad[i], err);
        if (i != 3) /* ../x.csv does not exist: cannot open */
            cr_expect(strstr(err, "outside the spec's directory tree") != NULL,
                      "%s: no policy message: %s", bad[i], err);
        free(out);
        free(err);
    }
    /* --allow-path widens the policy explicitly: /etc/passwd is then read, and its fields
     * are not echoed (the first field of a line would be a user name) */
    char *out, *err;
    sketch_spec("s.yaml", "link.csv");
    int st = run("audit %s/s.yaml --quiet --allow-path /etc%s", "", &out, &err);
    cr_expect(st == 65 && strstr(err, "outside") == NULL && strstr(err, "root") == NULL,
              "--allow-path: status %d: %s", st, err);
    free(out);
    free(err);
}

Test(trust, csv_caps_while_reading, .init = setup, .fini = teardown)
{
    char p[256];
    snprintf(p, sizeof p, "%s/long.csv", dir);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    for (int i = 0; i < 300000; i++)
        fputs("1.0,", f);
    fputs("1\n", f);
    cr_assert(fclose(f) == 0);
    sketch_spec("s.yaml", "long.csv");
    char *out, *err;
    int st = run("audit %s/s.yaml --quiet%s", "", &out, &err);
    cr_expect(st == 65 && strstr(err, "longer than the cap"), "status %d: %s", st, err);
    free(out);
    free(err);
    /* a bad field is quoted truncated and escaped, never whole */
    write_file("bad.csv", "a,b\n0.5,SECRETSECRETSECRETSECRETSECRETSECRET\x1b[31m\n");
    sketch_spec("s.yaml", "bad.csv");
    st = run("audit %s/s.yaml --quiet%s", "", &out, &err);
    cr_expect(st == 65 && strstr(err, "SECRETSECRETSECRETSECRETSECRETSECRET") == NULL &&
              strchr(err, '\x1b') == NULL, "status %d: %s", st, err);
    free(out);
    free(err);
}

Test(trust, shift_where_both_laws_have_zero_variance, .init = setup, .fini = teardown)
{
    write_file("z.yaml", "gaussaudit: 1\nname: z\nmechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - x: {mean: [0, 0], cov: [[1, 0], [0, 0]]}\n"
                         "    y: {mean: [0, 1e-20], cov: [[1, 0], [0, 0]]}\n"
                         "claim: {epsilon: 1, delta: 1e-5}\n");
    char *out, *err;
    int st = run("audit %s/z.yaml --quiet --format json%s", "", &out, &err);
    cr_expect(st == 1, "status %d (the supports differ: delta = 1): %s %s", st, out, err);
    free(out);
    free(err);
    st = run("delta %s/z.yaml --epsilon 0.5 --format json%s", "", &out, &err);
    cr_expect(st == 0 && strstr(out, "exactly zero row"), "status %d: %s", st, out);
    free(out);
    free(err);
}

/* a claim that holds clearly on estimates: an injected failure of the double evaluation
 * must not read as "holds"; with the certificate failing too, INCONCLUSIVE */
Test(trust, failed_evaluation_reaches_the_verdict, .init = setup, .fini = teardown)
{
    write_file("g.yaml", "gaussaudit: 1\nname: g\nmechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - x: {mean: [0], cov: [[1]]}\n    y: {mean: [0.1], cov: [[1]]}\n"
                         "  - x: {mean: [0], cov: [[1]]}\n    y: {mean: [0.2], cov: [[1.1]]}\n"
                         "claim: {epsilon: 1, delta: 1e-3, gdp: 1}\n");
    char path[256], msg[512];
    snprintf(path, sizeof path, "%s/g.yaml", dir);
    ga_audit a;
    ga_audit_opts o = {.fail_pair = 2};
    cr_assert(ga_audit_run(&a, path, &o, msg, sizeof msg) == GA_OK, "%s", msg);
    cr_expect(a.claims[0].verdict == GA_VERDICT_NO_VIOLATION, "certified instead: %d %s",
              a.claims[0].verdict, a.claims[0].reason);
    cr_expect(a.ncertified >= 1, "the failed pair was not certified");
    cr_expect(a.claims[1].verdict == GA_VERDICT_INCONCLUSIVE, "GDP: %d %s",
              a.claims[1].verdict, a.claims[1].reason);
    ga_audit_clear(&a);
    o.fail_cert = 2;
    cr_assert(ga_audit_run(&a, path, &o, msg, sizeof msg) == GA_OK, "%s", msg);
    cr_expect(a.claims[0].verdict == GA_VERDICT_INCONCLUSIVE && strstr(a.claims[0].reason, "failed"),
              "%d %s", a.claims[0].verdict, a.claims[0].reason);
    cr_expect(a.overall == GA_VERDICT_INCONCLUSIVE);
    ga_audit_clear(&a);
    /* the budget ending inside the certification of a pair whose estimate is above the
     * claim: undecided, saying where the estimate stands, never "holds" */
    write_file("v.yaml", "gaussaudit: 1\nname: v\nmechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - x: {mean: [0], cov: [[1]]}\n    y: {mean: [1], cov: [[1]]}\n"
                         "claim: {epsilon: 1, delta: 1e-5}\n");
    snprintf(path, sizeof path, "%s/v.yaml", dir);
    ga_audit_opts ot = {.fail_cert = 1, .fail_cert_status = GA_ETIME};
    cr_assert(ga_audit_run(&a, path, &ot, msg, sizeof msg) == GA_OK, "%s", msg);
    cr_expect(a.claims[0].verdict == GA_VERDICT_INCONCLUSIVE && !strstr(a.claims[0].reason, "holds") &&
                  strstr(a.claims[0].reason, "time budget") && strstr(a.claims[0].reason, "above the claim"),
              "%d %s", a.claims[0].verdict, a.claims[0].reason);
    ga_audit_clear(&a);
}

/* a composition of subsampled steps whose certified evaluation fails (as for too few steps
 * of a small rate): estimates clear of the claim give NO VIOLATION FOUND saying "not proven",
 * never VERIFIED; a claim below the exact value is still shown violated by the other pair
 * (add), whose certificate holds */
Test(trust, uncertifiable_subsampled_composition, .init = setup, .fini = teardown)
{
    static const char *claims[2] = {"0.5", "0.02"}; /* delta_XY(1) = 0.0241677... */
    static const int want[2] = {GA_VERDICT_NO_VIOLATION, GA_VERDICT_VIOLATION};
    static const char *says[2] = {"not proven", "add one record"};
    for (int k = 0; k < 2; k++) {
        char spec[300], path[256], msg[512];
        snprintf(spec, sizeof spec, "gaussaudit: 1\nname: s\nmechanism: {kind: subsampled_gaussian, "
                 "rate: 0.01, sigma: 0.8, steps: 1000}\nclaim: {epsilon: 1, delta: %s}\n", claims[k]);
        write_file("s.yaml", spec);
        snprintf(path, sizeof path, "%s/s.yaml", dir);
        ga_audit a;
        ga_audit_opts o = {.fail_cert = 1};
        cr_assert(ga_audit_run(&a, path, &o, msg, sizeof msg) == GA_OK, "%s", msg);
        cr_expect(a.claims[0].verdict == want[k] && strstr(a.claims[0].reason, says[k]),
                  "claim %s: %d %s", claims[k], a.claims[0].verdict, a.claims[0].reason);
        ga_audit_clear(&a);
    }
}

/* the number after the first occurrence of key (e.g. "\"hi\": ") at or after from */
static double num_after(const char *s, const char *key, const char **next)
{
    const char *p = strstr(s, key);
    cr_assert(p != NULL, "no %s in %s", key, s);
    char *end;
    double v = strtod(p + strlen(key), &end);
    cr_assert(end != p + strlen(key), "no number after %s in %s", key, s);
    if (next)
        *next = end;
    return v;
}

/* [lo, hi] as a reader converting JSON numbers to doubles sees them must contain v (an Arb
 * ball of the closed form at 256 bits) */
static void expect_contains(double lo, double hi, const arb_t v, const char *what)
{
    arb_t l, h;
    arb_init(l);
    arb_init(h);
    arb_set_d(l, lo);
    arb_set_d(h, hi);
    cr_expect(arb_le(l, v) && arb_ge(h, v), "%s: [%.17g, %.17g] does not contain %s", what, lo,
              hi, arb_get_str(v, 30, 0));
    arb_clear(l);
    arb_clear(h);
}

Test(trust, json_bounds_stay_bounds_as_doubles, .init = setup, .fini = teardown)
{
    write_file("n.yaml", "gaussaudit: 1\nname: n\nmechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - x: {mean: [0], cov: [[1]]}\n    y: {mean: [1], cov: [[1]]}\n");
    char *out, *err;
    int st = run("delta %s/n.yaml --epsilon .0 --certified --format json%s", "", &out, &err);
    cr_assert(st == 0, "status %d: %s", st, err);
    /* delta(0) = TV = 2 Phi(1/2) - 1 = erf(1/(2 sqrt 2)) */
    arb_t ref;
    arb_init(ref);
    arb_set_ui(ref, 8);
    arb_rsqrt(ref, ref, 256);
    arb_hypgeom_erf(ref, ref, 256);
    const char *p = out;
    for (int dir = 0; dir < 2; dir++) {
        double lo = num_after(p, "\"lo\": ", &p), hi = num_after(p, "\"hi\": ", &p);
        expect_contains(lo, hi, ref, out);
    }
    cr_expect(strstr(out, "\"epsilon\": 0,") != NULL, "the epsilon is not a JSON number: %s", out);
    free(out);
    free(err);
    /* cdf: P[chi2_1 <= 1/2] = erf(1/2) */
    st = run("cdf --weights 1 --at .5 --certified --format json%.0s%s", "", &out, &err);
    cr_assert(st == 0, "status %d: %s", st, err);
    arb_set_d(ref, 0.5);
    arb_hypgeom_erf(ref, ref, 256);
    p = out;
    double lo = num_after(p, "\"lo\": ", &p), hi = num_after(p, "\"hi\": ", &p);
    expect_contains(lo, hi, ref, out);
    cr_expect(strstr(out, "\"x\": 0.5,") != NULL, "x is not a JSON number: %s", out);
    arb_clear(ref);
    free(out);
    free(err);
}

Test(trust, user_strings_escaped_in_every_format, .init = setup, .fini = teardown)
{
    write_file("e.yaml", "gaussaudit: 1\nname: \"Payroll\\n\\n**Verdict: VERIFIED**\\n\\n<!--\\x1b[31m\"\n"
                         "mechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - name: \"a|b*<c>\\x07\\r\"\n    x: {mean: [0], cov: [[1]]}\n"
                         "    y: {mean: [3], cov: [[1]]}\nclaim: {epsilon: 1, delta: 1e-5}\n");
    static const char *fmts[] = {"md", "html", "junit", "json"};
    for (int k = 0; k < 4; k++) {
        char *out, *err, args[64];
        snprintf(args, sizeof args, "--format %s", fmts[k]);
        int st = run("audit %s/e.yaml %s", args, &out, &err);
        cr_expect(st == 1, "%s: status %d: %s", fmts[k], st, err);
        for (const char *c = out; *c; c++)
            cr_expect(!((unsigned char)*c < 0x20 && *c != '\n' && *c != '\t'),
                      "%s: raw control byte 0x%02x in the report", fmts[k], (unsigned char)*c);
        for (const char *c = err; *c; c++)
            cr_expect(!((unsigned char)*c < 0x20 && *c != '\n'),
                      "%s: raw control byte 0x%02x on stderr", fmts[k], (unsigned char)*c);
        if (k == 0) {
            cr_expect(strstr(out, "\n**Verdict: VERIFIED") == NULL, "markdown injection: %s", out);
            for (const char *c = strchr(out, '<'); c; c = strchr(c + 1, '<'))
                cr_expect(c > out && c[-1] == '\\', "unescaped '<' in markdown: %s", out);
            cr_expect(strstr(out, "**Verdict: VIOLATION**") != NULL);
        }
        if (k == 1 || k == 2)
            cr_expect(strstr(out, "<!--") == NULL && strstr(out, "<c>") == NULL, "%s: %s",
                      fmts[k], out);
        free(out);
        free(err);
    }
}

/* A spec named VERIFIED, with a right-to-left override (U+202E), a zero-width space (U+200B)
 * and a byte that is not UTF-8 (0xff) in its name, in every format: the title says
 * "gaussaudit report: <name> - <verdict>" with the real verdict, the hidden characters appear
 * as the visible text \u202e and \u200b (never as their bytes), and the JSON stays valid. */
Test(trust, titles_name_the_verdict_and_hide_nothing, .init = setup, .fini = teardown)
{
    write_file("v.yaml", "gaussaudit: 1\nname: \"VERIFIED\xe2\x80\xae\xe2\x80\x8bok\"\n"
                         "mechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 1}\n"
                         "claim: {epsilon: 1, delta: 1e-5}\n");
    static const char *fmts[] = {"md", "html", "junit", "json"};
    for (int k = 0; k < 4; k++) {
        char *out, *err, args[64];
        snprintf(args, sizeof args, "--format %s", fmts[k]);
        int st = run("audit %s/v.yaml %s", args, &out, &err);
        cr_expect(st == 1, "%s: status %d: %s", fmts[k], st, err);
        cr_expect(strstr(out, "\xe2\x80\xae") == NULL && strstr(out, "\xe2\x80\x8b") == NULL,
                  "%s: a bidi or zero-width character passed through: %s", fmts[k], out);
        cr_expect(strstr(out, "u202e") != NULL, "%s: the override is not shown: %s", fmts[k], out);
        if (k == 0)
            cr_expect(!strncmp(out, "# gaussaudit report: VERIFIED\\\\u202e\\\\u200bok \xe2\x80\x94 "
                               "VIOLATION\n", 59), "markdown title: %.80s", out);
        if (k == 1)
            cr_expect(strstr(out, "<title>gaussaudit report: VERIFIED\\u202e\\u200bok \xe2\x80\x94 "
                              "VIOLATION</title>") != NULL &&
                          strstr(out, "<h1>gaussaudit report: VERIFIED\\u202e\\u200bok \xe2\x80\x94 "
                                 "VIOLATION</h1>") != NULL, "html title: %.600s", out);
        if (k == 3) {
            size_t at = 0;
            cr_expect(ga_test_json_valid(out, &at), "json invalid at %zu: %.200s", at, out + at);
        }
        free(out);
        free(err);
    }
    /* a byte that is not UTF-8 in the spec's file name: the JSON report stays valid */
    write_file("n\xff.yaml", "gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, "
                             "sigma: 1}\nclaim: {epsilon: 1, delta: 1e-5}\n");
    char *out, *err;
    run("audit %s/n\xff.yaml %s", "--format json", &out, &err);
    size_t at = 0;
    cr_expect(ga_test_json_valid(out, &at) && strstr(out, "\\ufffd") != NULL,
              "json with a non-UTF-8 file name invalid at %zu: %.300s", at, out);
    free(out);
    free(err);
}

Test(trust, output_errors_are_reported, .init = setup, .fini = teardown)
{
    write_file("n.yaml", "gaussaudit: 1\nname: n\nmechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - x: {mean: [0], cov: [[1]]}\n    y: {mean: [1], cov: [[1]]}\n"
                         "claim: {epsilon: 1, delta: 0.5}\n");
    char *out, *err;
    /* (the harness appends its own redirections: the command ends with "exit") */
    int st = run("delta %s/n.yaml --epsilon 1 2>%s/full.err >/dev/full; exit $?", dir, &out, &err);
    free(out);
    free(err);
    char p[256];
    snprintf(p, sizeof p, "%s/full.err", dir);
    FILE *f = fopen(p, "r");
    char line[512] = "";
    cr_assert(f != NULL);
    cr_assert(fgets(line, sizeof line, f) != NULL || 1);
    fclose(f);
    cr_expect(st == 74 && strstr(line, "error writing"), "stdout to /dev/full: %d: %s", st, line);
    st = run("audit %s/n.yaml --quiet -o %s/nodir/r.md", dir, &out, &err);
    cr_expect(st == 74 && strstr(err, "cannot write"), "-o into a missing dir: %d: %s", st, err);
    free(out);
    free(err);
    /* a report replaced atomically: no temporary file is left behind, the mode is not 0600 */
    st = run("audit %s/n.yaml --quiet -o %s/r.md", dir, &out, &err);
    cr_expect(st == 0, "status %d: %s", st, err);
    free(out);
    free(err);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "test -s %s/r.md && test $(ls -A %s | grep -c '^\\.r\\.md') = 0", dir,
             dir);
    cr_expect(system(cmd) == 0, "report missing or temporary file left in %s", dir);
}

/* caps are checked before allocation: under a 2 GiB address-space limit each spec is
 * refused with a message naming the cap (an allocation first would fail with ENOMEM, 70) */
Test(trust, caps_before_allocation, .init = setup, .fini = teardown)
{
    FILE *f;
    char p[256];
    /* 2,100,000 replace_one pairs */
    snprintf(p, sizeof p, "%s/rep.yaml", dir);
    cr_assert((f = fopen(p, "w")) != NULL);
    fputs("gaussaudit: 1\nname: r\nmechanism: {kind: output_perturbation, lambda: 1, sigma: 1}\n"
          "dataset: {rows: [", f);
    for (int i = 0; i < 2100; i++)
        fprintf(f, "%s[%d, 0.5, -0.25]", i ? ", " : "", i % 7);
    fputs("]}\nneighbours: {relation: replace_one, candidates: [", f);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "%s[0.1, 0.2, 0.3]", i ? ", " : "");
    fputs("]}\nclaim: {epsilon: 1, delta: 1e-5}\n", f);
    cr_assert(fclose(f) == 0);
    /* 130 explicit outputs of dimension 3000: 17 GiB of laws */
    explicit_outputs_spec("gm.yaml", 3000, 130, -1, "epsilon: 1, delta: 1e-5");
    /* a 4000-long mean with a covariance of 4000 one-entry rows (128 MB if allocated first) */
    snprintf(p, sizeof p, "%s/pb.yaml", dir);
    cr_assert((f = fopen(p, "w")) != NULL);
    fputs("gaussaudit: 1\nname: g\nmechanism: {kind: gaussian_pair}\npairs:\n  - x: {mean: [", f);
    for (int i = 0; i < 4000; i++)
        fprintf(f, "%s0", i ? "," : "");
    fputs("], cov: [", f);
    for (int i = 0; i < 4000; i++)
        fprintf(f, "%s[1]", i ? "," : "");
    fputs("]}\n    y: {mean: [0], cov: [[1]]}\n", f);
    cr_assert(fclose(f) == 0);
    static const struct {
        const char *file, *needle;
    } cases[] = {{"rep.yaml", "exceed the cap of 2000000"}, {"gm.yaml", "more than the cap"},
                 {"pb.yaml", "row has 1 entries, expected 4000"}};
    for (size_t i = 0; i < 3; i++) {
        char *out, *err;
        int st = run("audit %s/%s", cases[i].file, &out, &err);
        cr_expect(st == 65 && strstr(err, cases[i].needle), "%s: status %d: %s", cases[i].file, st,
                  err);
        free(out);
        free(err);
    }
}

Test(trust, overflowing_mean_difference_has_a_message, .init = setup, .fini = teardown)
{
    write_file("b.yaml", "gaussaudit: 1\nname: b\nmechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - x: {mean: [1e308, 0], cov: [[1, 0], [0, 1]]}\n"
                         "    y: {mean: [-1e308, 0], cov: [[1, 0], [0, 1]]}\n"
                         "claim: {epsilon: 1, delta: 1e-5}\n");
    char *out, *err;
    int st = run("delta %s/b.yaml --epsilon %s", "1", &out, &err);
    cr_expect(st == 65 && strstr(err, "overflows the double range"), "status %d: %s", st, err);
    for (const char *c = err; *c; c++)
        cr_expect((unsigned char)*c >= 0x20 || *c == '\n', "garbage byte in the message: %s", err);
    free(out);
    free(err);
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* --timeout is a bound: slow inputs under --timeout 2 return well inside 10 s (the audit
 * checks its deadline between pairs, in the certified escalation and integrand; a step that
 * cannot be interrupted, one reduction of dimension 6000, is outlasted by the report the
 * audit's watch gives at the budget), always with a whole report that says so: on stdout,
 * and through -o, in JSON and Markdown */
Test(trust, timeout_bounds_the_wall_time, .init = setup, .fini = teardown, .timeout = 120)
{
    char p[256];
    FILE *f;
    /* GP regression, 1500 rows, zero-out neighbours: one O(n^3) law per neighbour (remove-one
     * is a rank-one downdate of one factorisation: fast) */
    snprintf(p, sizeof p, "%s/gp.yaml", dir);
    cr_assert((f = fopen(p, "w")) != NULL);
    fputs("gaussaudit: 1\nname: gp\nmechanism: {kind: gaussian_process_regression, kernel: rbf, "
          "lengthscale: 0.5, signal_variance: 1.0, noise_variance: 0.1, sigma: 0.2, query: "
          "[[0.25], [0.75]]}\ndataset: {rows: [", f);
    gsl_rng *r = ga_test_rng(13);
    for (int i = 0; i < 1500; i++)
        fprintf(f, "%s[%.4f, %.4f]", i ? ", " : "", gsl_rng_uniform(r), 2 * gsl_rng_uniform(r) - 1);
    gsl_rng_free(r);
    fputs("]}\nneighbours: zero_out\nclaim: {epsilon: 1, delta: 1.0e-5}\n", f);
    cr_assert(fclose(f) == 0);
    /* explicit outputs of dimension 4000, three neighbours: about 6 s in all */
    explicit_outputs_spec("gm.yaml", 4000, 3, 0, "epsilon: 1, delta: 1e-5");
    /* many cheap pairs: the deadline between pairs */
    ga_test_write_many_pairs_spec(dir, "op.yaml", 20000);
    /* under valgrind (make valgrind sets GA_VALGRIND) a single GP law or reduction outlasts
     * the budget, and the backstop's _exit leaves the heap to the kernel, which valgrind
     * reports: there only the input with cheap steps runs */
    static const char *specs[] = {"op.yaml", "gp.yaml", "gm.yaml"};
    int n = getenv("GA_VALGRIND") ? 1 : 3;
    for (int i = 0; i < n; i++) {
        char *out, *err;
        double t0 = wall();
        int st = run("audit %s/%s --timeout 2 --quiet --format json", specs[i], &out, &err);
        double t = wall() - t0;
        size_t n = strlen(out);
        cr_expect(t < 10, "%s: %.1f s under --timeout 2", specs[i], t);
        cr_expect(st == 2 && strstr(out, "\"timed_out\": true") && n > 2 &&
                  !strcmp(out + n - 2, "}\n") && !strstr(err, "no report"),
                  "%s: status %d, no whole report saying it timed out: %.300s %s", specs[i], st,
                  out, err);
        free(out);
        free(err);
    }
    if (getenv("GA_VALGRIND"))
        return;
    /* -o: a reduction of dimension 6000 (one Cholesky factorisation of a 288 MB matrix, which
     * cannot be interrupted) spans the end of --timeout 1: the watch's report replaces the
     * old file whole, in both formats (on a loaded machine the budget may instead end between
     * two steps, where the audit stops by itself: its own report, saying so, replaces it) */
    explicit_outputs_spec("g4.yaml", 6000, 1, 0, "epsilon: 1, delta: 1e-5");
    static const char *fmts[] = {"json", "md"};
    for (int k = 0; k < 2; k++) {
        char rp[300];
        snprintf(rp, sizeof rp, "%s/r.%s", dir, fmts[k]);
        cr_assert((f = fopen(rp, "w")) != NULL);
        fputs("old", f);
        cr_assert(fclose(f) == 0);
        char *out, *err, cmd[700], rep[4096] = "";
        snprintf(cmd, sizeof cmd, "audit %s/g4.yaml --timeout 1 --quiet --format %s -o %s", dir,
                 fmts[k], rp);
        int st = ga_test_run(cmd, &out, &err);
        cr_assert((f = fopen(rp, "r")) != NULL);
        rep[fread(rep, 1, sizeof rep - 1, f)] = 0;
        fclose(f);
        cr_expect(st == 2 && strstr(rep, "INCONCLUSIVE") &&
                      (strstr(rep, "could not be interrupted") ||
                       strstr(rep, "stopped by --timeout")) &&
                      !strstr(err, "no report"),
                  "%s: status %d: %.300s %s", fmts[k], st, rep, err);
        free(out);
        free(err);
    }
}

/* Under an address-space limit (ulimit -v) no command hangs in OpenBLAS's endless retry of a
 * buffer it cannot allocate, none aborts, and a failed allocation names its size: the
 * certified audit of the Gaussian mechanism is decided (a VIOLATION) at every limit, the
 * audit in dimension 2500 (a shift of 1 against sigma 1: a VIOLATION) either finishes, or is
 * INCONCLUSIVE because the certificate could not allocate (the reason names the bytes), or
 * fails with exit 70 naming the megabytes. */
Test(trust, memory_limits_end_in_a_status, .init = setup, .fini = teardown, .timeout = 240)
{
#ifdef __SANITIZE_ADDRESS__
    return; /* (ASan reserves terabytes of shadow memory: ulimit -v cannot apply) */
#endif
    if (getenv("GA_VALGRIND"))
        return;
    write_file("g.yaml", "gaussaudit: 1\nname: g\nmechanism: {kind: gaussian_mechanism, "
                         "sensitivity: 1, sigma: 1}\nclaim: {epsilon: 1, delta: 0.1269}\n");
    explicit_outputs_spec("gm.yaml", 2500, 1, 0, "epsilon: 1, delta: 1e-5");
    static const long limits[] = {100000, 200000, 300000, 600000, 1000000}; /* KiB */
    for (size_t k = 0; k < sizeof limits / sizeof *limits; k++) {
        char pre[64], args[512], *out, *err;
        snprintf(pre, sizeof pre, "ulimit -v %ld; exec", limits[k]);
        snprintf(args, sizeof args, "audit %s/g.yaml --certified --quiet --format json --timeout 60", dir);
        double t0 = wall();
        int st = ga_test_spawn(pre, args, &out, &err);
        double t = wall() - t0;
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1 && strstr(out, "\"VIOLATION\"") && t < 30,
                  "ulimit -v %ld, certified: status %#x after %.1f s: %.300s %s", limits[k], st, t,
                  out, err);
        free(out);
        free(err);
        snprintf(args, sizeof args, "audit %s/gm.yaml --quiet --format json --timeout 60", dir);
        t0 = wall();
        st = ga_test_spawn(pre, args, &out, &err);
        t = wall() - t0;
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        size_t n = strlen(out);
        cr_expect((code == 1 && strstr(out, "\"VIOLATION\"") && n > 2 && !strcmp(out + n - 2, "}\n")) ||
                  (code == 2 && strstr(out, "\"INCONCLUSIVE\"") && strstr(out, "could not allocate")) ||
                  (code == 70 && (strstr(err, " MB") || strstr(err, "MiB") || strstr(err, "bytes"))),
                  "ulimit -v %ld, dimension 2500: status %#x: %.300s %s", limits[k], st, out, err);
        cr_expect(t < 50, "ulimit -v %ld, dimension 2500: %.1f s", limits[k], t);
        free(out);
        free(err);
    }
}

/* the certified delta of a mean shift of 1e8 against variance 4 finishes (no timeout), and
 * eps = 1e300 on the Gaussian mechanism gives a positive certified upper bound */
Test(trust, huge_shift_and_huge_eps_certified, .init = setup, .fini = teardown)
{
    write_file("s.yaml", "gaussaudit: 1\nname: s\nmechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - x: {mean: [1e8], cov: [[4]]}\n    y: {mean: [0], cov: [[4]]}\n");
    char *out, *err;
    int st = run("delta %s/s.yaml --epsilon 1 --certified --format json%s", "", &out, &err);
    cr_expect(st == 0 && strstr(out, "\"hi\": 1,"), "status %d: %s %s", st, out, err);
    free(out);
    free(err);
    write_file("g.yaml", "gaussaudit: 1\nname: g\nmechanism: {kind: gaussian_mechanism, "
                         "sensitivity: 1, sigma: 1}\nclaim: {epsilon: 1e300, delta: 1e-5}\n");
    st = run("audit %s/g.yaml --quiet --format json%s", "", &out, &err);
    cr_expect(st == 0 && strstr(out, "\"verdict\": \"VERIFIED\""), "status %d: %s", st, out);
    cr_expect(strstr(out, "\"hi\": 0,") == NULL && strstr(out, "\"hi\": 0}") == NULL,
              "an upper bound of 0 for a positive delta: %s", out);
    free(out);
    free(err);
}

/* epsilon never prints a half-written document: a pair that fails is a status in the output
 * (here: eps(1e-12) of a variance ratio 1e12 is about 2.5e13, found by the double path; the
 * certified bracket cannot be had there) */
Test(trust, epsilon_output_is_complete, .init = setup, .fini = teardown)
{
    write_file("v.yaml", "gaussaudit: 1\nname: v\nmechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - x: {mean: [0], cov: [[1]]}\n    y: {mean: [0], cov: [[1e12]]}\n"
                         "  - x: {mean: [0], cov: [[1]]}\n    y: {mean: [1], cov: [[1]]}\n");
    char *out, *err;
    int st = run("epsilon %s/v.yaml --delta 1e-12 --format json%s", "", &out, &err);
    cr_expect(st == 0 && strstr(out, "\"value\": 254"), "double: status %d: %s %s", st, out, err);
    free(out);
    free(err);
    st = run("epsilon %s/v.yaml --delta 1e-12 --certified --format json%s", "", &out, &err);
    size_t n = strlen(out);
    cr_expect(n > 2 && !strcmp(out + n - 2, "}\n") && strstr(out, "\"overall\": null") &&
              strstr(out, "\"status\": \"success\""), "certified: status %d: %s", st, out);
    cr_expect(st == 65, "a pair without a certified bracket: status %d", st);
    free(out);
    free(err);
}

/* GDP and zCDP on mean-shift pairs are decided exactly (mu = sqrt(r D2), rho = r D2/2, from
 * the exact inputs): VERIFIED on the proven worst case of the Gaussian mechanism, VIOLATION
 * just above, no grid */
Test(trust, gdp_zcdp_exact_on_equal_covariances, .init = setup, .fini = teardown)
{
    static const struct {
        const char *claim;
        int verdict;
    } rows[] = {{"gdp: 0.5", GA_VERDICT_VERIFIED},      {"gdp: 0.4999999", GA_VERDICT_VIOLATION},
                {"zcdp: 0.125", GA_VERDICT_VERIFIED},   {"zcdp: 0.1249999", GA_VERDICT_VIOLATION},
                {"gdp: 3", GA_VERDICT_VERIFIED},        {"zcdp: 1e-3", GA_VERDICT_VIOLATION}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char t[256], path[256], msg[512];
        snprintf(t, sizeof t, "gaussaudit: 1\nname: g\nmechanism: {kind: gaussian_mechanism, "
                              "sensitivity: 1, sigma: 2}\nclaim: {%s}\n", rows[i].claim);
        write_file("g.yaml", t);
        snprintf(path, sizeof path, "%s/g.yaml", dir);
        ga_audit a;
        ga_audit_opts o = {0};
        cr_assert(ga_audit_run(&a, path, &o, msg, sizeof msg) == GA_OK, "%s", msg);
        cr_expect(a.claims[0].verdict == rows[i].verdict, "%s: verdict %d (expected %d): %s",
                  rows[i].claim, a.claims[0].verdict, rows[i].verdict, a.claims[0].reason);
        ga_audit_clear(&a);
    }
}

/* the certified path takes exact decimals with no double range: Q scaled by 1e-200 (weights,
 * and x) has the same certified probabilities as Q */
Test(trust, certified_cdf_beyond_the_double_range)
{
    char *o1, *o2, *e1, *e2;
    int s1 = ga_test_run("cdf --weights 3e-200,-1e-200 --dof 2,3 --nc 1,0 --at 5e-200 --certified", &o1, &e1);
    int s2 = ga_test_run("cdf --weights 3,-1 --dof 2,3 --nc 1,0 --at 5 --certified", &o2, &e2);
    cr_expect(s1 == 0 && s2 == 0, "status %d %d: %s %s", s1, s2, e1, e2);
    const char *p1 = strstr(o1, "P[Q"), *p2 = strstr(o2, "P[Q");
    cr_expect(p1 && p2 && !strcmp(p1, p2), "scaled: %s\nunscaled: %s", o1, o2);
    free(o1);
    free(o2);
    free(e1);
    free(e2);
}

/* a violation by 22 orders of magnitude at eps = 40 is a certified VIOLATION, and a claim
 * that holds there is certified too (--certified) */
Test(trust, large_eps_verdicts, .init = setup, .fini = teardown)
{
    static const struct {
        const char *claim;
        int verdict;
    } rows[] = {{"{epsilon: 40, delta: 1e-30}", GA_VERDICT_VIOLATION},
                {"{epsilon: 40, delta: 1.9e-8}", GA_VERDICT_NO_VIOLATION},
                {"{epsilon: 50, delta: 1e-40}", GA_VERDICT_VIOLATION}};
    for (size_t i = 0; i < 3; i++) {
        char t[512], path[256], msg[512];
        snprintf(t, sizeof t, "gaussaudit: 1\nname: le\nmechanism: {kind: gaussian_pair}\npairs:\n"
                              "  - x: {mean: [0.3, 0], cov: [[1, 0.2], [0.2, 1]]}\n"
                              "    y: {mean: [0, 0.1], cov: [[2.5, 0], [0, 3]]}\nclaim: %s\n",
                 rows[i].claim);
        write_file("le.yaml", t);
        snprintf(path, sizeof path, "%s/le.yaml", dir);
        ga_audit a;
        ga_audit_opts o = {.certified = 1};
        cr_assert(ga_audit_run(&a, path, &o, msg, sizeof msg) == GA_OK, "%s", msg);
        cr_expect(a.claims[0].verdict == rows[i].verdict && a.claims[0].certified,
                  "%s: verdict %d (expected %d), certified %d: %s", rows[i].claim,
                  a.claims[0].verdict, rows[i].verdict, a.claims[0].certified, a.claims[0].reason);
        ga_audit_clear(&a);
    }
}

/* explicit outputs of dimension 1500 with sigma^2 I noise: a mean shift is reduced without
 * an eigendecomposition and certified in O(d) (diagonal covariance); the value is the
 * analytic Gaussian mechanism's delta(1) at distance 1: 0.12693673750664394 */
Test(trust, large_dimension_mean_shift, .init = setup, .fini = teardown)
{
    char p[256];
    explicit_outputs_spec("gm.yaml", 1500, 1, 700, "epsilon: 1, delta: 0.12693673750664");
    snprintf(p, sizeof p, "%s/gm.yaml", dir);
    char msg[512];
    ga_audit a;
    ga_audit_opts o = {0};
    cr_assert(ga_audit_run(&a, p, &o, msg, sizeof msg) == GA_OK, "%s", msg);
    const ga_claim_result *r = &a.claims[0];
    cr_expect(r->verdict == GA_VERDICT_VIOLATION && r->certified, "%d %s", r->verdict, r->reason);
    cr_expect(r->cert_lo <= 0.12693673750664394 && r->cert_hi >= 0.12693673750664394 &&
              r->cert_hi - r->cert_lo < 1e-15, "[%.17g, %.17g]", r->cert_lo, r->cert_hi);
    cr_expect(fabs(r->exact.val - 0.12693673750664394) <= r->exact.err + 1e-17, "%.17g +- %.3g",
              r->exact.val, r->exact.err);
    ga_audit_clear(&a);
}

/* Every kind of the catalogue against every claim type, certified: each claim either gets a
 * value that its own certified interval does not contradict (the exact value within its
 * error of the interval, a VIOLATION only with a certified interval above the claim), or is
 * refused with the reason ("not applicable"). The claims are set tight, so that most are
 * decided by a certified interval. An RDP claim on matrix masking (orthogonal) or on synthetic
 * data once gave a certified VIOLATION from an interval of the wrong quantities ("exact D_2 =
 * 0" beside "certified [16, 16]"). */
Test(trust, every_kind_and_claim_type_is_decided_or_refused)
{
    static const char *specs[] = {
        "specs/examples/gaussian_mechanism_pair.yaml",
        "specs/examples/two_explicit_outputs.yaml",
        "specs/examples/gaussian_mechanism.yaml",
        "specs/examples/sketch_remove_one.yaml",
        "specs/examples/linear_regression.yaml",
        "specs/examples/bayesian_logistic_regression.yaml",
        "specs/examples/gaussian_process_regression.yaml",
        "specs/examples/output_perturbation.yaml",
        "specs/examples/noisy_gradient_descent.yaml",
        "specs/examples/matrix_masking.yaml",
        "specs/examples/matrix_masking_orthogonal.yaml",
        "specs/papers/composition_gdp_heterogeneous.yaml",
        "specs/papers/rp_poisson_thm53.yaml",
        "text:gaussaudit: 1\nname: sub\nmechanism: {kind: subsampled_gaussian, rate: 0.5, "
        "sigma: 2, steps: 20}\nclaim: {epsilon: 1, delta: 1e-5}\n",
        "text:gaussaudit: 1\nname: comp\nmechanism:\n  kind: composition\n  parts:\n"
        "    - {kind: subsampled_gaussian, rate: 0.5, sigma: 2, steps: 4}\n"
        "    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 3}\n"
        "claim: {epsilon: 1, delta: 1e-5}\n",
        "text:gaussaudit: 1\nname: syn\nmechanism: {kind: synthetic_random_inputs, sigma: 1, "
        "points: 1, dim: 12, norms: [[4, 5]]}\nclaim: {epsilon: 1, delta: 1e-5}\n",
    };
    static const char *claims[] = {"{epsilon: 0.05, delta: 1e-9}", "{rdp: [[2, 0.01]]}",
                                   "{rdp: [[1.5, 100]]}", "{zcdp: 0.001}", "{gdp: 0.01}"};
    /* the composed privacy losses (the last three specs) certify their (eps, delta) and GDP
     * claims in seconds each, and synthetic points (the last) their Renyi divergences from
     * certified profiles in about ten: those in the long run (GA_TEST_SCALE >= 2) */
    size_t nspecs = sizeof specs / sizeof *specs, heavy = nspecs - 3;
    int long_run = ga_test_count(1) > 1;
    for (size_t s = 0; s < nspecs; s++) {
        for (size_t c = 0; c < sizeof claims / sizeof *claims; c++) {
            if (s >= heavy && !long_run && (c == 0 || c == 4 || (s == nspecs - 1 && c != 2)))
                continue;
            ga_audit_options o;
            ga_audit_options_init(&o);
            o.certified = 1;
            o.claim = claims[c];
            o.timeout = 120;
            o.jobs = 1;
            ga_audit_result *r = NULL;
            char msg[1024];
            int st = !strncmp(specs[s], "text:", 5)
                         ? ga_audit_spec_text(&r, specs[s] + 5, strlen(specs[s] + 5), "inline.yaml",
                                              &o, msg, sizeof msg)
                         : ga_audit_spec_file(&r, specs[s], &o, msg, sizeof msg);
            const char *name = !strncmp(specs[s], "text:", 5) ? specs[s] + 5 : specs[s];
            cr_assert(st == GA_OK, "%.60s with %s: %s", name, claims[c], msg);
            for (size_t i = 0; i < ga_audit_result_nclaims(r); i++) {
                ga_claim_info ci;
                cr_assert(ga_audit_result_claim(&ci, r, i) == GA_OK);
                if (!ci.evaluated)
                    continue;
                int refused = strstr(ci.reason, "not applicable") != NULL;
                int has_value = ci.exact.val >= 0 && isfinite(ci.exact.err);
                if (ci.verdict == GA_VERDICT_VIOLATION)
                    cr_expect(ci.certified && has_value, "%.60s with %s: a VIOLATION without a "
                              "certified interval or a value (%s)", name, claims[c], ci.reason);
                if (refused)
                    cr_expect(ci.verdict == GA_VERDICT_INCONCLUSIVE && !ci.certified && !has_value,
                              "%.60s with %s: refused, yet verdict %s (%s)", name, claims[c],
                              ga_verdict_name(ci.verdict), ci.reason);
                if (ci.certified && has_value && isinf(ci.exact.val)) {
                    cr_expect(isinf(ci.interval.hi), "%.60s with %s: exact inf, certified [%.17g, "
                              "%.17g]", name, claims[c], ci.interval.lo, ci.interval.hi);
                } else if (ci.certified && has_value && strcmp(ci.type, "gdp")) {
                    /* the value stated beside a certified interval lies in it (within the
                     * value's own error estimate) */
                    double slack = ci.exact.err + 1e-12 * fabs(ci.exact.val);
                    cr_expect(ci.interval.lo <= ci.exact.val + slack &&
                                  ci.exact.val - slack <= ci.interval.hi,
                              "%.60s with %s: exact %.17g +- %.3g outside its certified [%.17g, "
                              "%.17g] (%s)", name, claims[c], ci.exact.val, ci.exact.err,
                              ci.interval.lo, ci.interval.hi, ci.reason);
                }

            }
            ga_audit_result_free(r);
        }
    }
}

/* Validation names the field and the cap: repeat beyond 1e9, a label bound of 1e300 (which
 * overflowed the laws, and the message named a pair's covariance), an initial covariance that
 * is not positive semidefinite (accepted before) */
Test(trust, validation_names_the_field_and_the_cap, .init = setup, .fini = teardown)
{
    static const struct {
        const char *yaml, *want;
    } cases[] = {
        {"gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 1, "
         "repeat: 1e15}\nclaim: {epsilon: 1, delta: 1e-5}\n",
         "mechanism.repeat: must be a whole number from 1 to 1e9"},
        {"gaussaudit: 1\nmechanism: {kind: linear_regression, sigma: 1, columns: 2}\n"
         "dataset: {rows: [[1, 0.5], [0.3, 1], [0.2, -0.4]]}\n"
         "neighbours: {relation: change_label, label_bound: 1e300}\nclaim: {epsilon: 1, delta: 1e-5}\n",
         "neighbours.label_bound: must be a number in (0, 1e50]"},
        {"gaussaudit: 1\nmechanism: {kind: noisy_gradient_descent, lambda: 1, eta: 0.1, sigma: 0.5, "
         "iterations: 3, init: {mean: [0, 0], cov: [[1, 2], [2, 1]]}}\n"
         "dataset: {rows: [[0.5, 0.1, 1.2], [0.3, -0.4, 0.1], [-0.2, 0.8, 0.9]]}\n"
         "neighbours: remove_one\nclaim: {epsilon: 1, delta: 1e-5}\n",
         "mechanism.init.cov: must be positive semidefinite (its smallest eigenvalue is -1)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        write_file("v.yaml", cases[k].yaml);
        char *out, *err;
        int st = run("audit %s/v.yaml%s", "", &out, &err);
        cr_expect(st == 65 && strstr(err, cases[k].want) != NULL, "case %zu: status %d, message "
                  "'%s', expected '%s'", k, st, err, cases[k].want);
        free(out);
        free(err);
    }
}

/* -o replaces a report atomically and keeps the old file's mode (a 0600 report stays 0600),
 * and never replaces one of the command's inputs (the spec itself) */
Test(trust, output_keeps_the_mode_and_spares_the_inputs, .init = setup, .fini = teardown)
{
    write_file("m.yaml", "gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, "
                         "sigma: 5}\nclaim: {epsilon: 1, delta: 1e-5}\n");
    char path[128], args[512], *out, *err;
    snprintf(path, sizeof path, "%s/r.md", dir);
    write_file("r.md", "old report\n");
    cr_assert(chmod(path, 0600) == 0);
    snprintf(args, sizeof args, "audit %s/m.yaml -o %s --quiet", dir, path);
    int st = ga_test_run(args, &out, &err);
    struct stat sb;
    cr_expect(st == 0 && stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0600,
              "status %d, mode %o (expected 0600): %s", st, (unsigned)(sb.st_mode & 07777), err);
    free(out);
    free(err);
    snprintf(args, sizeof args, "audit %s/m.yaml -o %s/m.yaml --quiet", dir, dir);
    st = ga_test_run(args, &out, &err);
    char spec[128];
    snprintf(spec, sizeof spec, "%s/m.yaml", dir);
    FILE *f = fopen(spec, "r");
    char line[64] = "";
    cr_assert(f && fgets(line, sizeof line, f));
    fclose(f);
    cr_expect(st == 74 && strstr(err, "one of the command's inputs") && !strcmp(line, "gaussaudit: 1\n"),
              "status %d, first line '%s': %s", st, line, err);
    free(out);
    free(err);
}

/* A spec read from a pipe has no directory of its own: its relative CSV path is refused
 * unless --allow-path names a directory (it was resolved against the pipe's /dev or /proc
 * directory, which admitted /dev/shm); with --allow-path the file is read from there */
Test(trust, a_piped_spec_reads_only_allowed_directories, .init = setup, .fini = teardown)
{
    write_file("x.csv", rows_csv);
    char spec[1024];
    for (int allow = 0; allow < 2; allow++) {
        snprintf(spec, sizeof spec, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 3, "
                 "noise_sigma: 0.5}\ndataset: {csv: '%s%sx.csv', header: true}\n"
                 "neighbours: remove_one\nclaim: {epsilon: 1, delta: 1e-5}\n", allow ? dir : "",
                 allow ? "/" : "");
        write_file("piped.yaml", spec);
        char fifo[128], prefix[512], args[512], *out, *err;
        snprintf(fifo, sizeof fifo, "%s/spec%d.fifo", dir, allow);
        cr_assert(mkfifo(fifo, 0600) == 0);
        snprintf(prefix, sizeof prefix, "(cat %s/piped.yaml > %s &) &&", dir, fifo);
        snprintf(args, sizeof args, "audit %s%s%s --quiet -o /dev/null", fifo,
                 allow ? " --allow-path " : "", allow ? dir : "");
        int st = ga_test_spawn(prefix, args, &out, &err);
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (allow)
            cr_expect(code == 1 || code == 0 || code == 2, "with --allow-path: status %d: %s", code, err);
        else
            cr_expect(code == 65 && strstr(err, "no directory of its own"), "without --allow-path: "
                      "status %d: %s", code, err);
        free(out);
        free(err);
    }
}

/* A pair computed from a dataset is certified as built, not for the data's exact decimals:
 * a claim below its certified delta by less than the construction's rounding margin (1e-9
 * relative) is INCONCLUSIVE with that reason, not a VIOLATION; by 1e-6 it is a VIOLATION */
Test(trust, data_built_pairs_need_a_margin_to_violate)
{
    const char *spec = "specs/examples/linear_regression.yaml";
    ga_audit_options o;
    ga_audit_options_init(&o);
    o.certified = 1;
    o.jobs = 1;
    o.claim = "{epsilon: 1, delta: 1e-9}";
    ga_audit_result *r;
    char msg[1024];
    cr_assert(ga_audit_spec_file(&r, spec, &o, msg, sizeof msg) == GA_OK, "%s", msg);
    ga_claim_info ci;
    cr_assert(ga_audit_result_claim(&ci, r, 0) == GA_OK && ci.certified);
    double lo = ci.interval.lo;
    ga_audit_result_free(r);
    const double rel[2] = {1e-11, 1e-6};
    for (int k = 0; k < 2; k++) {
        char claim[128];
        snprintf(claim, sizeof claim, "{epsilon: 1, delta: %.17g}", lo * (1 - rel[k]));
        o.claim = claim;
        cr_assert(ga_audit_spec_file(&r, spec, &o, msg, sizeof msg) == GA_OK, "%s", msg);
        cr_assert(ga_audit_result_claim(&ci, r, 0) == GA_OK);
        if (k == 0)
            cr_expect(ci.verdict == GA_VERDICT_INCONCLUSIVE && strstr(ci.reason, "construction"),
                      "%s: %s (%s)", claim, ga_verdict_name(ci.verdict), ci.reason);
        else
            cr_expect(ci.verdict == GA_VERDICT_VIOLATION, "%s: %s (%s)", claim,
                      ga_verdict_name(ci.verdict), ci.reason);
        ga_audit_result_free(r);
    }
}

/* The terminal tables of delta, epsilon and rdp escape the spec's and pairs' names as the
 * messages do: no raw escape sequence, no bidi override reaches the terminal */
Test(trust, terminal_tables_escape_names, .init = setup, .fini = teardown)
{
    write_file("t.yaml", "gaussaudit: 1\nname: \"evil\\x1b[31m\\u202e\"\nmechanism: {kind: "
                         "gaussian_pair}\npairs:\n  - name: \"p\\x1b]0;x\\x07\"\n"
                         "    x: {mean: [1], cov: [[1]]}\n    y: {mean: [0], cov: [[1]]}\n");
    static const char *cmds[] = {"delta %s/t.yaml --epsilon 1", "delta %s/t.yaml --epsilon 1 --certified",
                                 "epsilon %s/t.yaml --delta 1e-5", "rdp %s/t.yaml --alpha 2"};
    for (int k = 0; k < 4; k++) {
        char *out, *err;
        int st = run(cmds[k], "", &out, &err);
        cr_expect(st == 0, "%s: status %d: %s", cmds[k], st, err);
        cr_expect(strchr(out, '\x1b') == NULL && strchr(out, '\x07') == NULL &&
                      strstr(out, "\xe2\x80\xae") == NULL && strstr(out, "\\u202e") != NULL,
                  "%s: raw control or bidi bytes in: %s", cmds[k], out);
        free(out);
        free(err);
    }
}

/* Every command meets its time budget with what it finished: on specs of about 100 bytes
 * that once ran for minutes or hours (eps, alpha and rho of 1e300; 1e9 steps; 64 parts of 1e9
 * steps; matrix masking at eps 1e300 and with 1e9 rows; synthetic points in dimension 1e5) each
 * command with --timeout 2 (times GA_SLOWDOWN) writes its whole document (a report, a table),
 * never the backstop's "no report written" (an audit whose last step outlasted the budget
 * reports from its watch, which is a whole report), and exits 0, 1 or 2 (2: the budget
 * stopped it). The wall time is checked only against a generous hang guard (the budget plus
 * 20 s). Every --help states the budget and its default. */
Test(trust, every_command_meets_its_time_budget, .init = setup, .fini = teardown)
{
    static const char *sub = "gaussaudit: 1\nname: s\nmechanism: {kind: subsampled_gaussian, "
                             "rate: 0.01, sigma: 1, steps: %s}\nclaim: {%s}\n";
    char t[8192];
    snprintf(t, sizeof t, sub, "1000000000", "epsilon: 1e300, delta: 1e-5");
    write_file("s1.yaml", t);
    snprintf(t, sizeof t, sub, "1000", "rdp: [[1e300, 1]]");
    write_file("s2.yaml", t);
    snprintf(t, sizeof t, sub, "1000", "zcdp: 1e300");
    write_file("s3.yaml", t);
    size_t l = (size_t)snprintf(t, sizeof t, "gaussaudit: 1\nname: c\nmechanism:\n  kind: "
                                "composition\n  parts:\n");
    for (int k = 0; k < 64; k++)
        l += (size_t)snprintf(t + l, sizeof t - l, "    - {kind: subsampled_gaussian, rate: 0.01, "
                              "sigma: 1, steps: 1000000000}\n");
    snprintf(t + l, sizeof t - l, "claim: {epsilon: 1, delta: 1e-5}\n");
    write_file("c64.yaml", t);
    write_file("m1.yaml", "gaussaudit: 1\nname: m\nmechanism: {kind: matrix_masking, masking: "
                          "orthogonal, sigma: 0.9, rows: 1000000000}\nneighbours: zero_out\n"
                          "universe: {row_norm_bound: 1}\nclaim: {epsilon: 1, delta: 1e-5}\n");
    write_file("m2.yaml", "gaussaudit: 1\nname: m\nmechanism: {kind: matrix_masking, masking: "
                          "orthogonal, sigma: 0.9}\ndataset: {rows: [[0.6], [0.3], [-0.5]]}\n"
                          "neighbours: zero_out\nclaim: {epsilon: 1e300, delta: 1e-5}\n");
    write_file("y1.yaml", "gaussaudit: 1\nname: y\nmechanism: {kind: synthetic_random_inputs, "
                          "sigma: 1, points: 1, dim: 100000, norms: [[0, 1], [4, 5]]}\n"
                          "claim: {epsilon: 1, delta: 0.1}\n");
    static const char *const cmds[] = {
        "audit %s/s1.yaml --format json", "audit %s/s2.yaml", "audit %s/s3.yaml",
        "audit %s/c64.yaml", "audit %s/m1.yaml", "audit %s/m2.yaml", "audit %s/y1.yaml",
        "delta %s/c64.yaml --epsilon 1,1e300", "delta %s/y1.yaml --epsilon 1,1e300",
        "delta %s/c64.yaml --epsilon 1 --certified", "epsilon %s/c64.yaml --delta 1e-5",
        "epsilon %s/s1.yaml --delta 1e-5 --certified", "rdp %s/s2.yaml --alpha 2,1e300",
        "rdp %s/c64.yaml --alpha 2,1e300"};
    /* (under the sanitizers and valgrind a single evaluation takes GA_SLOWDOWN times longer:
     * the budget with it) */
    const char *sd = getenv("GA_SLOWDOWN");
    double budget = 2 * (sd && atof(sd) > 1 ? atof(sd) : 1);
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char fmt[256], *out, *err;
        snprintf(fmt, sizeof fmt, "%s --timeout %g%%s", cmds[i], budget);
        double t0 = ga_monotonic();
        int st = run(fmt, "", &out, &err);
        double sec = ga_monotonic() - t0;
        size_t n = out ? strlen(out) : 0;
        /* (a certified value that reaches its iteration limit within the budget, as the
         * 64-part composition does where the budget is long enough, is reported as not
         * computed with the data-error status: in time all the same) */
        int limit = st == 65 && strstr(err, "iteration limit reached") != NULL;
        cr_expect(((st >= 0 && st <= 2) || limit) && n > 1 && out[n - 1] == '\n' &&
                      !strstr(err, "no report") && sec < budget + 20,
                  "%s: status %d after %.1f s, %zu bytes out: %s", cmds[i], st, sec, strlen(out),
                  err);
        free(out);
        free(err);
    }
    static const char *const helps[] = {"audit", "merge", "calibrate", "delta", "epsilon", "rdp",
                                        "cdf"};
    for (size_t i = 0; i < sizeof helps / sizeof *helps; i++) {
        char args[64], *out, *err;
        snprintf(args, sizeof args, "%s --help", helps[i]);
        int st = ga_test_run(args, &out, &err);
        cr_expect(st == 0 && strstr(out, "--timeout") && strstr(out, "600"), "%s --help: %s",
                  helps[i], out);
        free(out);
        free(err);
    }
}

/* epsilon gives a value wherever one exists: on a seeded grid of subsampled Gaussians with
 * few steps at small rates (T q down to 0.05, where the add direction's saddle point once ran
 * off towards infinity and the pair reported "iteration limit reached" with "overall": null),
 * every pair has an estimate and the overall eps is there; the add pair's eps equals the
 * remove pair's (the same pair with the roles swapped) within the error estimates. With
 * GA_TEST_SCALE >= 2 a certified case: a finite bracket that contains the estimate. */
Test(trust, epsilon_has_a_value_on_few_steps_of_small_rates, .init = setup, .fini = teardown)
{
    /* three fixed cases (the first the one once reported), then seeded ones with
     * GA_TEST_SCALE >= 2 (small rates take 15 s and more per case) */
    static const double fixed[3][3] = {{0.001, 1, 1000}, {0.01, 2, 50}, {0.01, 0.8, 100}};
    static const double qs[] = {0.001, 0.01}, sigmas[] = {0.8, 1, 2}, steps[] = {50, 100, 1000};
    gsl_rng *rng = ga_test_rng(341);
    long n = 3 + (ga_test_count(1) >= 2 ? ga_test_count(2) : 0);
    for (long k = 0; k < n; k++) {
        double q = k < 3 ? fixed[k][0] : qs[gsl_rng_uniform_int(rng, 2)],
               s = k < 3 ? fixed[k][1] : sigmas[gsl_rng_uniform_int(rng, 3)],
               T = k < 3 ? fixed[k][2] : steps[gsl_rng_uniform_int(rng, 3)];
        char t[512], *out, *err;
        snprintf(t, sizeof t, "gaussaudit: 1\nname: e\nmechanism: {kind: subsampled_gaussian, "
                 "rate: %g, sigma: %g, steps: %g}\n", q, s, T);
        write_file("e.yaml", t);
        int st = run("epsilon %s/e.yaml --delta 1e-5 --format json%s", "", &out, &err);
        double v[2] = {NAN, NAN}, e[2] = {NAN, NAN};
        const char *p = out;
        for (int i = 0; i < 2 && (p = strstr(p, "\"epsilon\": {\"value\": ")); i++) {
            p += strlen("\"epsilon\": {\"value\": ");
            v[i] = strtod(p, NULL);
            const char *ep = strstr(p, "\"err\": ");
            e[i] = ep ? strtod(ep + 7, NULL) : NAN;
        }
        cr_expect(st == 0 && !strstr(out, "\"overall\": null") && isfinite(v[0]) &&
                      isfinite(v[1]) && fabs(v[0] - v[1]) <= e[0] + e[1] + 1e-12,
                  "q %g sigma %g T %g: status %d, eps %.17g +- %g and %.17g +- %g: %s", q, s, T,
                  st, v[0], e[0], v[1], e[1], err);
        free(out);
        free(err);
    }
    gsl_rng_free(rng);
    if (ga_test_count(1) >= 2) { /* (GA_TEST_SCALE >= 2) */
        write_file("c.yaml", "gaussaudit: 1\nname: c\nmechanism: {kind: subsampled_gaussian, "
                             "rate: 0.001, sigma: 1, steps: 100}\n");
        char *out, *err;
        int st = run("epsilon %s/c.yaml --delta 1e-5 --certified --timeout 300%s", "", &out, &err);
        cr_expect(st == 0 && strstr(out, "overall: eps in [0, 1.04"), "status %d: %s %s", st, out, err);
        free(out);
        free(err);
    }
}

/* Without FLINT/Arb (GAUSSAUDIT_ARB naming a library that does not exist) no process aborts:
 * certified evaluations report that the library could not be loaded (GA_EDEP) beside the
 * pair, cdf --certified says so and exits 70, and an audit whose violation needs a
 * certificate is INCONCLUSIVE rather than killed. */
Test(trust, no_arb_library_is_a_status_not_an_abort, .init = setup, .fini = teardown)
{
    write_file("v.yaml", "gaussaudit: 1\nname: v\nmechanism: {kind: gaussian_pair}\npairs:\n"
                         "  - {x: {mean: [1], cov: [[1]]}, y: {mean: [0], cov: [[1]]}}\n"
                         "claim: {epsilon: 1, delta: 0.01}\n");
    setenv("GAUSSAUDIT_ARB", "/nonexistent/libflint-arb.so.2", 1);
    static const struct {
        const char *cmd;
        int status;
        const char *want;
    } rows[] = {
        {"delta %s/v.yaml --epsilon 1 --certified%s", 65, "could not be loaded"},
        {"epsilon %s/v.yaml --delta 1e-5 --certified%s", 65, "could not be loaded"},
        {"audit %s/v.yaml --format json%s", 2, "INCONCLUSIVE"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char *out, *err;
        int st = run(rows[i].cmd, "", &out, &err);
        cr_expect(st == rows[i].status && (strstr(out, rows[i].want) || strstr(err, rows[i].want)),
                  "%s: status %d: %s %s", rows[i].cmd, st, out, err);
        free(out);
        free(err);
    }
    char *out, *err;
    int st = ga_test_run("cdf --weights 1 --at 1 --certified", &out, &err);
    cr_expect(st == 70 && strstr(err, "cannot load FLINT/Arb"), "cdf: status %d: %s", st, err);
    free(out);
    free(err);
    unsetenv("GAUSSAUDIT_ARB");
}

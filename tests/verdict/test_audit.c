/*
 * test_audit.c - gaussaudit audit: verdicts with their exit statuses and JSON fields, the
 * classic Gaussian calibration (a certified violation at eps = 10, holding with its slack at
 * eps = 1), the reports (Markdown, JUnit), and the HTML report rendered in headless Chromium
 * (SVG plot elements present, no console errors).
 */
#include "tests/support.h"
#include "verdict/audit.h" /* (the claim table) */

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double num_after(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(text, pat);
    cr_assert(p != NULL, "no '%s' in %s", key, text);
    return strtod(p + strlen(pat), NULL);
}

Test(audit, classic_gaussian_violation_at_eps_10)
{
    char *out, *err;
    int st = ga_test_run("audit specs/examples/gaussian_mechanism.yaml --format json", &out, &err);
    cr_expect(st == 1, "exit status %d (expected 1: violation): %s", st, err);
    cr_expect(strstr(out, "\"verdict\": \"VIOLATION\"") != NULL, "%s", out);
    cr_expect(strstr(out, "\"certified\": true") != NULL, "the violation must be certified: %s", out);
    double lo = num_after(strstr(out, "\"interval\""), "lo"), v = num_after(strstr(out, "\"exact\""), "value");
    cr_expect(lo > 1e-5, "certified lower bound %.17g", lo);
    cr_expect(fabs(v - 2.27e-5) < 0.01e-5, "exact delta %.17g (about 2.27e-5)", v);
    cr_expect(strstr(out, "\"exit_status\": 1") && strstr(out, "\"witness\"") && strstr(out, "\"spec_sha256\""),
              "%s", out);
    free(out);
    free(err);
}

Test(audit, classic_gaussian_holds_at_eps_1_with_slack)
{
    char *out, *err;
    int st = ga_test_run("audit specs/examples/classic_gaussian_eps1.yaml --format json", &out, &err);
    cr_expect(st == 0, "exit status %d: %s", st, err);
    cr_expect(strstr(out, "\"verdict\": \"VERIFIED\"") != NULL, "%s", out);
    double slack = num_after(out, "slack");
    cr_expect(slack > 100 && slack < 1000, "slack %.6g (exact delta about 4.3e-8)", slack);
    free(out);
    free(err);
    st = ga_test_run("audit specs/examples/classic_gaussian_eps1.yaml", &out, &err);
    cr_expect(st == 0);
    cr_expect(strstr(out, "conservative") && strstr(out, "**Verdict: VERIFIED**"), "%s", out);
    free(out);
    free(err);
}

Test(audit, no_violation_found_and_inconclusive)
{
    char *out, *err;
    int st = ga_test_run("audit specs/examples/gaussian_mechanism_pair.yaml --format json", &out, &err);
    cr_expect(st == 0, "status %d", st);
    cr_expect(strstr(out, "\"verdict\": \"NO VIOLATION FOUND\"") != NULL, "%s", out);
    free(out);
    free(err);
    /* a claim placed exactly at the true delta (tests/data/delta.json, sigma 1,
     * eps 1): the certified interval contains it, so no verdict is possible */
    char path[] = "/tmp/ga_auditXXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs:\n"
          "  - {x: {mean: [1], cov: [[1]]}, y: {mean: [0], cov: [[1]]}}\n"
          "claim: {epsilon: 1, delta: 0.1269367375066439458008}\n", f);
    fclose(f);
    char args[128];
    snprintf(args, sizeof args, "audit %s --format json", path);
    st = ga_test_run(args, &out, &err);
    cr_expect(st == 2, "status %d (expected 2: inconclusive): %s %s", st, out, err);
    cr_expect(strstr(out, "\"verdict\": \"INCONCLUSIVE\"") && strstr(out, "contains the claimed delta"), "%s", out);
    free(out);
    free(err);
    /* no claim: a data error */
    f = fopen(path, "w");
    fputs("gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs:\n"
          "  - {x: {mean: [1], cov: [[1]]}, y: {mean: [0], cov: [[1]]}}\n", f);
    fclose(f);
    snprintf(args, sizeof args, "audit %s", path);
    st = ga_test_run(args, &out, &err);
    cr_expect(st == 65 && strstr(err, "claim: missing"), "status %d: %s", st, err);
    free(out);
    free(err);
    unlink(path);
    st = ga_test_run("audit specs/examples/gaussian_mechanism.yaml --format pdf", &out, &err);
    cr_expect(st == 64 && strstr(err, "--format"), "status %d", st);
    free(out);
    free(err);
}

/* The sketch's universe pair is an upper bound no neighbour of D need attain (leverage
 * min(l^2/lambda_min, l^2/(l^2 + sigma^2)), rounded up): a certified value of it above the
 * claim is no violation. Here the rows of D have leverages 1/3 and 0.0098 (delta(1) 0.268
 * at most) and the bound 1/2 (delta(1) 0.599): a claim of 0.5 is INCONCLUSIVE, not a
 * VIOLATION; a claim of 0.2 is violated by the rows of leverage 1/3; a claim of 0.7 is
 * VERIFIED by the bound. */
Test(audit, sketch_universe_bound_shows_no_violation)
{
    static const struct {
        const char *delta, *verdict;
        int status;
    } rows[] = {{"0.5", "INCONCLUSIVE", 2}, {"0.2", "VIOLATION", 1}, {"0.7", "VERIFIED", 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char path[] = "/tmp/ga_auditXXXXXX", yaml[400];
        snprintf(yaml, sizeof yaml, "gaussaudit: 1\nmechanism: {kind: sketch, columns: 20, "
                 "noise_sigma: 1}\ndataset: {rows: [[0.1, 0], [0.1, 0], [0, 1], [0, 1]]}\n"
                 "neighbours: remove_one\nuniverse: {row_norm_bound: 1}\nclaim: {epsilon: 1, "
                 "delta: %s}\n", rows[i].delta);
        ga_test_temp_spec(path, yaml);
        char args[128], *out, *err, want[64];
        snprintf(args, sizeof args, "audit %s --format json", path);
        int st = ga_test_run(args, &out, &err);
        snprintf(want, sizeof want, "\"verdict\": \"%s\"", rows[i].verdict);
        cr_expect(st == rows[i].status && strstr(out, want), "claim delta %s: status %d, want %d "
                  "and %s: %s %s", rows[i].delta, st, rows[i].status, rows[i].verdict, out, err);
        if (rows[i].status == 2)
            cr_expect(strstr(out, "no single neighbour need attain"), "%s", out);
        free(out);
        free(err);
        unlink(path);
    }
}

Test(audit, junit_and_markdown)
{
    char *out, *err;
    int st = ga_test_run("audit specs/examples/two_explicit_outputs.yaml --format junit", &out, &err);
    cr_expect(st == 1, "status %d", st);
    cr_expect(strstr(out, "tests=\"4\" failures=\"2\" errors=\"0\"") != NULL, "%s", out);
    cr_expect(strstr(out, "<failure message=") != NULL, "%s", out);
    free(out);
    free(err);
    st = ga_test_run("audit specs/examples/sketch_remove_one.yaml --quiet", &out, &err);
    cr_expect(st == 0, "status %d", st);
    cr_expect(strstr(out, "**Verdict: VERIFIED**") && strstr(out, "## Pairs") && strstr(out, "SHA-256"), "%s", out);
    cr_expect(err[0] == 0, "--quiet printed: %s", err);
    free(out);
    free(err);
}

Test(audit, html_report_in_headless_chromium)
{
    /* the name must end in .html: Chromium serves extension-less files as text */
    char html[64];
    snprintf(html, sizeof html, "/tmp/ga_report_%d.html", (int)getpid());
    char args[256], *out, *err;
    snprintf(args, sizeof args, "audit specs/examples/two_explicit_outputs.yaml --format html -o %s --quiet", html);
    int st = ga_test_run(args, &out, &err);
    cr_expect(st == 1, "status %d: %s", st, err);
    free(out);
    free(err);
    const char *chromium = access("/usr/bin/chromium", X_OK) == 0 ? "/usr/bin/chromium" : NULL;
    cr_assert(chromium != NULL, "chromium is not installed (make test installs the Debian package)");
    char cmd[1024], dom[] = "/tmp/ga_domXXXXXX", log[] = "/tmp/ga_logXXXXXX";
    int f1 = mkstemp(dom), f2 = mkstemp(log);
    cr_assert(f1 >= 0 && f2 >= 0);
    close(f1);
    close(f2);
    snprintf(cmd, sizeof cmd,
             "timeout 120 %s --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
             "--disable-background-networking --disable-component-update --disable-sync "
             "--user-data-dir=%s.profile --enable-logging=stderr --v=0 --dump-dom file://%s >%s 2>%s",
             chromium, dom, html, dom, log);
    st = system(cmd);
    cr_expect(st == 0, "chromium failed (%d)", st);
    FILE *f = fopen(dom, "r");
    cr_assert(f != NULL);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    cr_expect(strstr(buf, "<svg id=\"profile-plot\"") != NULL, "no profile plot in the DOM");
    cr_expect(strstr(buf, "<svg id=\"renyi-plot\"") != NULL, "no Renyi plot in the DOM");
    size_t lines = 0, circles = 0;
    for (const char *p = buf; (p = strstr(p, "class=\"series\"")); p++)
        lines++;
    for (const char *p = buf; (p = strstr(p, "class=\"claim\"")); p++)
        circles++;
    cr_expect(lines >= 4 && circles >= 3, "%zu series, %zu claim markers", lines, circles);
    cr_expect(strstr(buf, "id=\"verdict\"") && strstr(buf, "VIOLATION"), "no verdict banner");
    f = fopen(log, "r");
    cr_assert(f != NULL);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    /* page errors are logged as CONSOLE messages (uncaught exceptions, failed loads) */
    cr_expect(strstr(buf, "Uncaught") == NULL && strstr(buf, "CONSOLE") == NULL,
              "console messages from the page: %s", buf);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s %s %s.profile", html, dom, log, dom);
    (void)system(cmd);
}

/* The reported worst pair, its certified interval and its witness event belong together:
 * P_X[S] - e^eps P_Y[S] of the witness is the exact delta, and the pair named is the one
 * with the largest delta in the pair table (once, a violation named the first violating
 * pair with the interval of another). */
Test(audit, worst_pair_interval_and_witness_agree)
{
    static const char *specs[] = {"specs/examples/output_perturbation.yaml",
                                  "specs/examples/linear_regression.yaml",
                                  "specs/examples/two_explicit_outputs.yaml"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        char args[256], *out, *err;
        snprintf(args, sizeof args, "audit %s --format json", specs[k]);
        ga_test_run(args, &out, &err);
        const char *c = strstr(out, "\"claims\": [");
        cr_assert(c != NULL, "%s: %s", specs[k], out);
        double eps = num_after(c, "epsilon"), v = num_after(strstr(c, "\"exact\""), "value");
        const char *wit = strstr(c, "\"witness\"");
        double px = num_after(wit, "p_x"), py = num_after(wit, "p_y");
        if (strstr(c, "\"direction\": \"yx\"") && strstr(c, "\"direction\": \"yx\"") < wit) {
            double t = px; /* delta_YX: P_Y[S] - e^eps P_X[S] */
            px = py;
            py = t;
        }
        cr_expect(fabs(px - exp(eps) * py - v) <= 1e-9 * (1 + px), "%s: witness %.17g - e^%g %.17g vs delta %.17g",
                  specs[k], px, eps, py, v);
        /* the worst pair's name in the pair table has the largest value */
        const char *wp = strstr(c, "\"worst_pair\": \"");
        cr_assert(wp != NULL);
        wp += strlen("\"worst_pair\": \"");
        char name[128];
        size_t l = strcspn(wp, "\"");
        snprintf(name, sizeof name, "%.*s", (int)(l < 127 ? l : 127), wp);
        cr_expect(l > 0, "%s: the worst pair has no name", specs[k]);
        char pat[160];
        snprintf(pat, sizeof pat, "{\"name\": \"%s\", ", name);
        const char *row = strstr(strstr(out, "\"pairs\": ["), pat);
        cr_assert(row != NULL, "%s: worst pair '%s' not in the table", specs[k], name);
        double pxy = num_after(row, "value"), pyx = num_after(strstr(row, "\"yx\""), "value");
        cr_expect(fabs(fmax(pxy, pyx) - v) <= 1e-12 * (1 + v), "%s: pair '%s' has %.17g/%.17g, claim says %.17g",
                  specs[k], name, pxy, pyx, v);
        free(out);
        free(err);
    }
}

/* --timeout: 20000 remove-one neighbours of a Bayesian logistic regression (a Newton solve
 * over all rows each) cannot be built in 0.4 s (a ridge regression's can, by updates); the
 * audit says how many were, evaluates those, and is INCONCLUSIVE (exit 2) */
Test(audit, timeout_reports_what_it_finished)
{
    char dir[] = "/tmp/ga_timeoutXXXXXX";
    cr_assert(mkdtemp(dir) != NULL);
    char csv[128], yaml[128];
    snprintf(csv, sizeof csv, "%s/big.csv", dir);
    snprintf(yaml, sizeof yaml, "%s/big.yaml", dir);
    FILE *f = fopen(csv, "w");
    cr_assert(f != NULL);
    unsigned long s = 12345;
    for (int i = 0; i < 20000; i++)
        for (int j = 0; j < 6; j++) {
            s = s * 6364136223846793005UL + 1442695040888963407UL;
            if (j < 5)
                fprintf(f, "%.6f,", (double)(s >> 11) / 9007199254740992.0 * 2 - 1);
            else
                fprintf(f, "%d\n", (int)(s >> 63)); /* a 0/1 label */
        }
    fclose(f);
    f = fopen(yaml, "w");
    fputs("gaussaudit: 1\nmechanism: {kind: bayesian_logistic_regression, lambda: 1.0, sigma: 0.5}\n"
          "dataset: {csv: big.csv}\nneighbours: remove_one\nclaim: {epsilon: 1, delta: 1.0e-5}\n", f);
    fclose(f);
    char args[256], *out, *err;
    /* (under valgrind, where one chunk of neighbours outlasts 0.4 s and the backstop, 8 s:
     * the construction is still cut short between chunks) */
    double tmo = getenv("GA_VALGRIND") ? 8 : 0.4;
    snprintf(args, sizeof args, "audit %s --timeout %g --format json", yaml, tmo);
    int st = ga_test_run(args, &out, &err);
    cr_expect(st == 2, "exit status %d (expected 2: inconclusive): %s", st, err);
    cr_expect(strstr(out, "\"timed_out\": true") && strstr(out, "neighbouring pairs were built"), "%s", out);
    const char *r = strstr(out, "\"reason\": \"");
    cr_expect(r && strstr(r, "audited pairs") && strstr(r, "incomplete"), "the pairs built are evaluated: %.400s", r);
    free(out);
    free(err);
    snprintf(args, sizeof args, "audit %s --timeout %g", yaml, tmo);
    st = ga_test_run(args, &out, &err);
    cr_expect(st == 2 && strstr(out, "**Incomplete: only "), "status %d: %.300s", st, out);
    free(out);
    free(err);
    /* a deadline before the first pair is built: every claim inconclusive, nothing read
     * from the (empty) pair list (300 rows, 50 under valgrind: their reading and the first
     * chunk of neighbours, which no deadline interrupts, stay within the 0.8 s backstop) */
    char small[128];
    snprintf(small, sizeof small, "%s/small.yaml", dir);
    f = fopen(small, "w");
    cr_assert(f != NULL);
    fputs("gaussaudit: 1\nmechanism: {kind: bayesian_logistic_regression, lambda: 1.0, sigma: 0.5}\n"
          "dataset: {csv: small.csv}\nneighbours: remove_one\nclaim: {epsilon: 1, delta: 1.0e-5}\n", f);
    fclose(f);
    char scsv[128];
    snprintf(scsv, sizeof scsv, "%s/small.csv", dir);
    FILE *in = fopen(csv, "r"), *outf = fopen(scsv, "w");
    cr_assert(in && outf);
    char line[256];
    for (int i = 0; i < (getenv("GA_VALGRIND") ? 50 : 300) && fgets(line, sizeof line, in); i++)
        fputs(line, outf);
    fclose(in);
    fclose(outf);
    snprintf(args, sizeof args, "audit %s --timeout 1e-6 --format json", small);
    st = ga_test_run(args, &out, &err);
    /* (under valgrind the process may not even reach the first pair by the backstop, whose
       report, written from the watch, is the one checked then) */
    int vg = getenv("GA_VALGRIND") != NULL;
    cr_expect(st == 2 && (strstr(out, "no audited pairs were built") ||
                          (vg && strstr(err, "could not be interrupted"))),
              "status %d: %.300s %s", st, out, err);
    cr_expect(strstr(out, "\"exact\": {\"value\": null"), "no number for an unevaluated claim: %.600s", out);
    free(out);
    free(err);
    snprintf(args, sizeof args, "audit %s --timeout 1e-6", small);
    st = ga_test_run(args, &out, &err);
    cr_expect(st == 2 && (strstr(out, "| not evaluated |") || vg) &&
              !strstr(out, "Worst pair"), "status %d: %.600s", st, out);
    free(out);
    free(err);
    snprintf(args, sizeof args, "audit %s --timeout -1", yaml);
    st = ga_test_run(args, &out, &err);
    cr_expect(st == 64 && strstr(err, "--timeout"), "status %d: %s", st, err);
    free(out);
    free(err);
    unlink(csv);
    unlink(yaml);
    unlink(scsv);
    unlink(small);
    rmdir(dir);
}

/* The claim table: each type's row names it once, writes the claim as its writer wrote it,
 * gives its numbers under its JSON keys and the number a value is compared with; a type not
 * in the table is "?" and shows nothing (never another type's wording). */
Test(audit, claim_rows_write_each_type)
{
    static const struct {
        int type;
        const char *name, *text, *keys[2];
        double params[2], ref;
        int profile, has_at, plot;
    } rows[] = {
        {GA_CLAIM_DP, "dp", "(1, 1e-05)-DP", {"epsilon", "delta"}, {1, 1e-5}, 1e-5, 1, 0,
         GA_CLAIM_PLOT_PROFILE_POINT},
        {GA_CLAIM_RDP, "rdp", "RDP: D_2 <= 0.5", {"alpha", "eps_alpha"}, {2, 0.5}, 0.5, 0, 0,
         GA_CLAIM_PLOT_RENYI_POINT},
        {GA_CLAIM_ZCDP, "zcdp", "0.5-zCDP", {"rho", NULL}, {0.5, NAN}, 0.5, 0, 1,
         GA_CLAIM_PLOT_NONE},
        {GA_CLAIM_GDP, "gdp", "0.5-GDP", {"mu", NULL}, {0.5, NAN}, 0.5, 0, 1,
         GA_CLAIM_PLOT_PROFILE_GDP},
    };
    cr_assert(sizeof rows / sizeof rows[0] == GA_NCLAIM_TYPES);
    for (size_t k = 0; k < GA_NCLAIM_TYPES; k++) {
        ga_claim_result r = {.type = rows[k].type, .eps = 1, .delta = 1e-5, .alpha = 2,
                             .eps_a = 0.5};
        const ga_claim_row *row = ga_claim_row_of(r.type);
        char t[96];
        ga_claim_text(t, sizeof t, &r);
        double v[2];
        row->params(v, &r);
        cr_expect(row->name && !strcmp(row->name, rows[k].name) && !strcmp(t, rows[k].text),
                  "type %d: name %s, text '%s' (expected %s, '%s')", rows[k].type,
                  row->name ? row->name : "NULL", t, rows[k].name, rows[k].text);
        for (int i = 0; i < 2; i++)
            cr_expect((rows[k].keys[i] ? row->param_keys[i] && !strcmp(row->param_keys[i],
                                                                        rows[k].keys[i])
                                       : !row->param_keys[i]) &&
                          (!rows[k].keys[i] || v[i] == rows[k].params[i]),
                      "type %s: key %d %s = %g (expected %s = %g)", rows[k].name, i,
                      row->param_keys[i] ? row->param_keys[i] : "NULL", v[i],
                      rows[k].keys[i] ? rows[k].keys[i] : "NULL", rows[k].params[i]);
        cr_expect(row->ref(&r) == rows[k].ref && row->profile == rows[k].profile &&
                      row->has_at == rows[k].has_at && row->plot == rows[k].plot && row->eval,
                  "type %s: ref %g, profile %d, has_at %d, plot %d", rows[k].name, row->ref(&r),
                  row->profile, row->has_at, row->plot);
    }
    ga_claim_result u = {.type = GA_NCLAIM_TYPES, .relative = 1};
    char t[96];
    ga_claim_text(t, sizeof t, &u);
    const ga_claim_row *row = ga_claim_row_of(u.type);
    cr_expect(!strcmp(t, "relative ?") && !row->name && !row->eval && !row->profile &&
                  row->plot == GA_CLAIM_PLOT_NONE,
              "an unknown type: text '%s', name %s", t, row->name ? row->name : "NULL");
}

/* Each claim type reads its own keys of the spec's claim mapping (its row's parse): one spec
 * with every key gives the claims in the table's order, each with the numbers written; a
 * misspelt key gets a hint; a replacing claim's messages name it, not the spec. */
Test(audit, claim_rows_read_their_keys)
{
    static const char *head = "gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, "
                               "sensitivity: 1, sigma: 2}\n";
    char text[512], msg[512];
    snprintf(text, sizeof text, "%sclaim: {gdp: 0.75, zcdp: 0.125, rdp: [[2, 0.5], [4, 1.5]], "
             "profile: [[0.5, 0.01]], epsilon: 1, delta: 1.0e-5}\n", head);
    ga_spec s;
    cr_assert(ga_spec_parse(&s, text, strlen(text), "all.yaml", msg, sizeof msg) == GA_OK, "%s",
              msg);
    ga_claim_list l = {0};
    cr_assert(ga_claim_list_parse(&l, &s, msg, sizeof msg) == GA_OK, "%s", msg);
    static const struct {
        int type;
        double v[2];
    } want[] = {{GA_CLAIM_DP, {1, 1e-5}}, {GA_CLAIM_DP, {0.5, 0.01}}, {GA_CLAIM_RDP, {2, 0.5}},
                {GA_CLAIM_RDP, {4, 1.5}}, {GA_CLAIM_ZCDP, {0.125, NAN}},
                {GA_CLAIM_GDP, {0.75, NAN}}};
    cr_assert(l.n == sizeof want / sizeof *want, "%zu claims", l.n);
    for (size_t i = 0; i < l.n; i++) {
        double v[2];
        const ga_claim_row *row = ga_claim_row_of(l.c[i].type);
        row->params(v, &l.c[i]);
        cr_expect(l.c[i].type == want[i].type && v[0] == want[i].v[0] &&
                      (isnan(want[i].v[1]) || v[1] == want[i].v[1]) && row->parse && row->keys[0],
                  "claim %zu: type %d (%g, %g), expected type %d (%g, %g)", i, l.c[i].type, v[0],
                  v[1], want[i].type, want[i].v[0], want[i].v[1]);
    }
    cr_expect(l.c[0].eps_txt && !strcmp(l.c[0].eps_txt, "1") && l.c[0].delta_txt &&
              !strcmp(l.c[0].delta_txt, "1.0e-5"), "the (eps, delta) claim keeps its decimals");
    double eps[4];
    cr_expect(ga_claim_list_eps(eps, 4, &l) == 2 && eps[0] == 1 && eps[1] == 0.5,
              "the profile claims' eps, in order");
    free(l.c);
    ga_spec_clear(&s);
    snprintf(text, sizeof text, "%sclaim: {epsilom: 1, delta: 1.0e-5}\n", head);
    cr_assert(ga_spec_parse(&s, text, strlen(text), "typo.yaml", msg, sizeof msg) == GA_OK);
    l = (ga_claim_list){0};
    cr_expect(ga_claim_list_parse(&l, &s, msg, sizeof msg) == GA_EINVAL &&
              strstr(msg, "typo.yaml:") && strstr(msg, "did you mean 'epsilon'"), "%s", msg);
    free(l.c);
    cr_assert(ga_spec_set_claim(&s, "{epsilon: -1, delta: 1.0e-5}", msg, sizeof msg) == GA_OK,
              "%s", msg);
    l = (ga_claim_list){0};
    cr_expect(ga_claim_list_parse(&l, &s, msg, sizeof msg) == GA_EINVAL &&
              strstr(msg, "the replacing claim:") && strstr(msg, "claim.epsilon: must be >= 0"),
              "%s", msg);
    free(l.c);
    ga_spec_clear(&s);
}

/* delta_{X,Y}(eps) of X = N(0, 1), Y = N(1, 2) in closed form: l(x) = 1/2 log 2 - x^2/2 +
 * (x - 1)^2/4 > eps exactly where (x + 1)^2 < 2 - 4 (eps - 1/2 log 2) */
static double thm42_delta_xy(double eps)
{
    double r2 = 2 - 4 * (eps - 0.5 * log(2.0));
    if (!(r2 > 0))
        return 0;
    double r = sqrt(r2), a = -1 - r, b = -1 + r;
    double px = 0.5 * (erfc(-b / M_SQRT2) - erfc(-a / M_SQRT2));
    double py = 0.5 * (erfc(-(b - 1) / 2) - erfc(-(a - 1) / 2)); /* (Y's sd sqrt 2: / sqrt 2 / sqrt 2) */
    return px - exp(eps) * py;
}

#define TOL_CLOSED 1e-14 /* the closed form's rounding (absolute, on values near 0.1) */

/* Claims scoped to one direction and one pair (claim.direction, claim.pair) are statements
 * about that pair: VERIFIED by its certified delta in that direction, a VIOLATION above it,
 * whatever the other direction does; a direction alone keeps the audit's usual verdicts; a
 * pair that is not listed, and scopes given where they cannot apply, are refused with the
 * reason. The certified interval of the scoped direction holds the closed form. */
Test(audit, claims_scoped_to_a_direction_and_a_pair)
{
    static const struct {
        const char *claim;
        int verdict;
        const char *says; /* in the reason */
    } rows[] = {
        /* delta_XY(0.5) = 0.11371, delta_YX(0.5) = 0.2569 */
        {"epsilon: 0.5, delta: 0.404485784, direction: xy, pair: p", GA_VERDICT_VERIFIED, "the claim's scope"},
        {"epsilon: 0.5, delta: 0.2, direction: xy, pair: p", GA_VERDICT_VERIFIED, "direction XY"},
        {"epsilon: 0.5, delta: 0.2, pair: p", GA_VERDICT_VIOLATION, "delta_YX"},
        {"epsilon: 0.5, delta: 0.2, direction: yx, pair: p", GA_VERDICT_VIOLATION, "delta_YX"},
        {"epsilon: 0.5, delta: 0.1, direction: xy, pair: p", GA_VERDICT_VIOLATION, "delta_XY"},
        {"epsilon: 0.5, delta: 0.2, direction: xy", GA_VERDICT_NO_VIOLATION, "direction XY"},
        {"epsilon: 0.5, delta: 0.2", GA_VERDICT_VIOLATION, "delta_YX"},
        {"epsilon: 0.5, delta: 0.2, pair: q", GA_VERDICT_INCONCLUSIVE, "names no listed pair"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        char spec[512], msg[512];
        snprintf(spec, sizeof spec, "gaussaudit: 1\nname: s\nmechanism: {kind: gaussian_pair}\n"
                 "pairs:\n  - name: p\n    x: {mean: [0], cov: [[1]]}\n    y: {mean: [1], cov: "
                 "[[2]]}\nclaim: {%s}\n", rows[k].claim);
        ga_audit_result *r = NULL;
        cr_assert(ga_audit_spec_text(&r, spec, strlen(spec), "s.yaml", NULL, msg, sizeof msg) == GA_OK,
                  "%s: %s", rows[k].claim, msg);
        ga_claim_info ci;
        cr_assert(ga_audit_result_claim(&ci, r, 0) == GA_OK);
        cr_expect(ci.verdict == rows[k].verdict && strstr(ci.reason, rows[k].says),
                  "claim {%s}: verdict %d, expected %d with '%s': %s", rows[k].claim, ci.verdict,
                  rows[k].verdict, rows[k].says, ci.reason);
        if (ci.certified && ci.direction == 1) {
            double want = thm42_delta_xy(0.5);
            cr_expect(ci.interval.lo <= want + TOL_CLOSED && want - TOL_CLOSED <= ci.interval.hi &&
                          ci.interval.hi - ci.interval.lo < 1e-9,
                      "claim {%s}: certified delta_XY(0.5) in [%.17g, %.17g], closed form %.17g",
                      rows[k].claim, ci.interval.lo, ci.interval.hi, want);
        }
        ga_audit_result_free(r);
    }
    /* refused where they cannot apply */
    static const char *bad[] = {"direction: zz, epsilon: 0.5, delta: 0.2",
                                "direction: xy",
                                "pair: p, gdp: 1",
                                "direction: xy, epsilon: 0.5, delta: 0.2, rdp: [[2, 1]]",
                                "pair: [p], epsilon: 0.5, delta: 0.2"};
    static const char *why[] = {"must be xy", "scopes (epsilon, delta) claims", "scopes (epsilon",
                                "scopes the (epsilon, delta) claims only", "must name one of"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char spec[512], msg[512];
        snprintf(spec, sizeof spec, "gaussaudit: 1\nname: s\nmechanism: {kind: gaussian_pair}\n"
                 "pairs:\n  - name: p\n    x: {mean: [0], cov: [[1]]}\n    y: {mean: [1], cov: "
                 "[[2]]}\nclaim: {%s}\n", bad[k]);
        ga_audit_result *r = NULL;
        int rc = ga_audit_spec_text(&r, spec, strlen(spec), "s.yaml", NULL, msg, sizeof msg);
        cr_expect(rc == GA_EINVAL && strstr(msg, why[k]), "claim {%s}: status %d, message %s",
                  bad[k], rc, msg);
        ga_audit_result_free(r);
    }
}

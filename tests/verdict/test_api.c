/*
 * test_api.c - the public pipeline of gaussaudit.h, used as a library user would (this file
 * includes no internal header): audit a spec from text, read the verdicts, claims and
 * certified intervals, render the report; errors come back as statuses with messages.
 * References: the analytic Gaussian mechanism's delta(1) at distance 1,
 * 0.12693673750664394 (closed form, also in tests/cli/test_trust.c), and mu-GDP exactly.
 */
#include "gaussaudit.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fini(void)
{
    ga_cleanup();
}

Test(api, audit_from_text, .fini = fini)
{
    static const char *spec =
        "gaussaudit: 1\nname: api\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 1}\n"
        "claim: {epsilon: 1, delta: 0.12693673750664, gdp: 1}\n";
    ga_audit_result *r;
    char msg[512];
    cr_assert(ga_audit_spec_text(&r, spec, strlen(spec), "api.yaml", NULL, msg, sizeof msg) == GA_OK,
              "%s", msg);
    cr_expect(ga_audit_result_nclaims(r) == 2);
    cr_expect(ga_audit_result_verdict(r) == GA_VERDICT_VIOLATION);
    cr_expect(ga_audit_result_exit_status(r) == 1);
    ga_claim_info c;
    cr_assert(ga_audit_result_claim(&c, r, 0) == GA_OK);
    cr_expect(!strcmp(c.type, "dp") && c.verdict == GA_VERDICT_VIOLATION && c.certified &&
              c.evaluated, "%s %d %s", c.type, c.verdict, c.reason);
    cr_expect(c.interval.lo <= 0.12693673750664394 && c.interval.hi >= 0.12693673750664394,
              "[%.17g, %.17g]", c.interval.lo, c.interval.hi);
    cr_assert(ga_audit_result_claim(&c, r, 1) == GA_OK);
    cr_expect(!strcmp(c.type, "gdp") && c.verdict == GA_VERDICT_VERIFIED, "%s %d %s", c.type,
              c.verdict, c.reason); /* mu = 1 exactly: the worst case is 1-GDP */
    cr_expect(ga_audit_result_claim(&c, r, 2) == GA_EINVAL);
    cr_expect(!strcmp(ga_verdict_name(GA_VERDICT_VIOLATION), "VIOLATION"));
    /* the JSON report through a memory stream */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f != NULL);
    cr_expect(ga_audit_result_write(f, r, GA_FORMAT_JSON) == GA_OK);
    cr_expect(ga_audit_result_write(f, r, 99) == GA_EINVAL);
    fclose(f);
    size_t at = 0;
    cr_expect(ga_test_json_valid(buf, &at), "invalid JSON near %zu: %.300s", at, buf);
    cr_expect(strstr(buf, "\"verdict\": \"VIOLATION\"") != NULL);
    free(buf);
    ga_audit_result_free(r);
}

Test(api, errors_are_statuses_with_messages)
{
    ga_audit_result *r = (ga_audit_result *)1;
    char msg[512] = "";
    static const char *bad = "gaussaudit: 1\nname: b\nmechanism: {kind: gaussian_mechanizm}\n";
    cr_expect(ga_audit_spec_text(&r, bad, strlen(bad), "b.yaml", NULL, msg, sizeof msg) == GA_EINVAL);
    cr_expect(r == NULL);
    cr_expect(strstr(msg, "b.yaml:3") && strstr(msg, "did you mean 'gaussian_mechanism'"), "%s", msg);
    cr_expect(ga_audit_spec_file(&r, "/nonexistent/spec.yaml", NULL, msg, sizeof msg) == GA_EIO,
              "%s", msg);
    static const char *noclaim =
        "gaussaudit: 1\nname: n\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 1}\n";
    cr_expect(ga_audit_spec_text(&r, noclaim, strlen(noclaim), "n.yaml", NULL, msg, sizeof msg) ==
              GA_EINVAL && strstr(msg, "nothing to audit"), "%s", msg);
    ga_audit_result_free(NULL); /* a no-op */
    /* a pair input without its arrays is an error, not a crash */
    double one = 1;
    ga_pair_input in = {1, &one, NULL, &one, &one, 1, {NULL, NULL, NULL, NULL}};
    ga_pair *p = NULL;
    cr_expect(ga_pair_reduce(&p, &in, msg, sizeof msg) == GA_EINVAL && p == NULL &&
              strstr(msg, "missing"), "%s", msg);
}

/* the analytic Gaussian mechanism's delta (Balle and Wang 2018, Thm 8), sensitivity 1 */
static double analytic_delta(double sigma, double eps)
{
    double a = 1 / (2 * sigma), b = eps * sigma;
    return 0.5 * erfc(-(a - b) / sqrt(2.0)) - exp(eps) * 0.5 * erfc((a + b) / sqrt(2.0));
}

Test(api, calibrate_from_text, .fini = fini)
{
    static const char *spec =
        "gaussaudit: 1\nname: cal\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 2}\n"
        "claim: {epsilon: 1, delta: 1e-5}\n";
    ga_calibration *c;
    char msg[512];
    cr_assert(ga_calibrate_spec_text(&c, spec, strlen(spec), "cal.yaml", 1, 1e-5, NULL, msg,
                                     sizeof msg) == GA_OK, "%s", msg);
    ga_calibration_info info;
    ga_calibration_get(&info, c);
    /* the smallest sigma: delta <= 1e-5 at it, > 1e-5 a relative 1e-9 below */
    cr_expect(info.certified && info.worst_case && !strcmp(info.knob, "sigma"), "%d %d %s: %s",
              info.certified, info.worst_case, info.knob, info.note);
    cr_expect(analytic_delta(info.value, 1) <= 1e-5 * (1 + 1e-12) &&
                  analytic_delta(info.value * (1 - 1e-9), 1) > 1e-5,
              "sigma %.17g: delta %.17g, below %.17g", info.value, analytic_delta(info.value, 1),
              analytic_delta(info.value * (1 - 1e-9), 1));
    cr_expect(info.upper_at_value <= 1e-5 && info.lower_below > 1e-5, "[%g, %g]",
              info.upper_at_value, info.lower_below);
    cr_expect(info.npublished >= 2);
    ga_published_info pi;
    cr_expect(ga_calibration_published(&pi, c, 0) == GA_OK && pi.value > info.value,
              "%s %g", pi.name, pi.value); /* the classic calibration is conservative */
    cr_expect(ga_calibration_published(&pi, c, info.npublished) == GA_EINVAL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f != NULL);
    cr_expect(ga_calibration_write(f, c, GA_FORMAT_JSON) == GA_OK);
    cr_expect(ga_calibration_write(f, c, GA_FORMAT_HTML) == GA_EINVAL);
    fclose(f);
    size_t at = 0;
    cr_expect(ga_test_json_valid(buf, &at), "invalid JSON near %zu: %.300s", at, buf);
    free(buf);
    ga_calibration_free(c);
    /* an explicit pair's covariances are scaled (noise_scale c: c^2 S): N(1, c^2) vs N(0, c^2)
     * is the Gaussian mechanism with sigma c, so c is the analytic calibration */
    static const char *pair =
        "gaussaudit: 1\nname: p\nmechanism: {kind: gaussian_pair}\npairs:\n"
        "  - {name: a, x: {mean: [0], cov: [[1]]}, y: {mean: [1], cov: [[1]]}}\n";
    cr_assert(ga_calibrate_spec_text(&c, pair, strlen(pair), "p.yaml", 1, 1e-5, NULL, msg,
                                     sizeof msg) == GA_OK, "%s", msg);
    ga_calibration_info pin;
    ga_calibration_get(&pin, c);
    cr_expect(fabs(pin.value - info.value) <= 1e-10 * info.value && pin.certified &&
              !strcmp(pin.knob, "noise_scale"), "%s %.17g vs %.17g", pin.knob, pin.value, info.value);
    ga_calibration_free(c);
    /* errors: statuses with messages, *out NULL */
    cr_expect(ga_calibrate_spec_text(&c, spec, strlen(spec), "cal.yaml", 1, 2, NULL, msg,
                                     sizeof msg) == GA_EINVAL && strstr(msg, "delta"), "%s", msg);
    ga_calibration_free(NULL);
}

/* a composition's proven worst case joins two parts' worst cases, which different neighbours
 * may attain: it proves claims but never shows a violation. A claim between the largest
 * neighbour (row 4: delta(1) = 0.4701) and the bound (0.7260) is INCONCLUSIVE, a claim below
 * a neighbour is a VIOLATION shown on that neighbour */
Test(api, composed_worst_case_is_a_bound, .fini = fini)
{
    static const char *fmt =
        "gaussaudit: 1\nname: b\nmechanism:\n  kind: composition\n  parts:\n"
        "    - {kind: sketch, columns: 3, noise_sigma: 1}\n"
        "    - {kind: sketch, columns: 3, noise_sigma: 2}\n"
        "dataset: {rows: [[1, 0.5], [0.2, -1], [0.3, 0.3], [-1, 2]]}\nneighbours: remove_one\n"
        "universe: {row_norm_bound: 2.5}\nclaim: {epsilon: 1, delta: %s}\n";
    static const struct {
        const char *delta;
        int verdict;
        const char *reason, *pair;
    } rows[] = {
        {"0.5", GA_VERDICT_INCONCLUSIVE, "upper bound no single neighbour need attain", NULL},
        {"0.3", GA_VERDICT_VIOLATION, "certified", "remove row 4"},
        {"0.8", GA_VERDICT_VERIFIED, "holds for every neighbour", NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[1024], msg[512];
        snprintf(text, sizeof text, fmt, rows[i].delta);
        ga_audit_result *r;
        cr_assert(ga_audit_spec_text(&r, text, strlen(text), "b.yaml", NULL, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_claim_info c;
        cr_assert(ga_audit_result_claim(&c, r, 0) == GA_OK);
        cr_expect(c.verdict == rows[i].verdict && strstr(c.reason, rows[i].reason) &&
                      (!rows[i].pair || strstr(c.worst_pair, rows[i].pair)),
                  "delta %s: verdict %d, pair '%s': %s", rows[i].delta, c.verdict, c.worst_pair, c.reason);
        ga_audit_result_free(r);
    }
}

/* the report of r in format fmt, as a string (free it) */
static char *written(const ga_audit_result *r, int fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f != NULL);
    cr_assert(ga_audit_result_write(f, r, fmt) == GA_OK, "format %d", fmt);
    fclose(f);
    return buf;
}

/* A sketch audit holds its remove- and add-one pairs as a row family (no stored name): the
 * claim's worst pair is still named through the API, as the JSON report names it, and the
 * name stays valid while the result lives */
Test(api, row_family_worst_pair_is_named, .fini = fini)
{
    static const char *fmt =
        "gaussaudit: 1\nname: f\nmechanism: {kind: sketch, columns: 4, noise_sigma: 0.5}\n"
        "dataset: {rows: [[1, 0.5], [0.2, -1], [0.3, 0.3], [-1, 2], [0.1, 0.2]]}\n"
        "neighbours: %s\nclaim: {epsilon: 1, delta: 1.0e-3}\n";
    static const struct {
        const char *nb, *pair;
    } rows[] = {
        {"remove_one", "remove row 4 (leverage "},
        {"{relation: zero_out, rows: [2, 4]}", "zero out row 4 (leverage "},
        {"{relation: add_one, candidates: [[0.1, 0.1], [2, -2]]}", "add candidate 2 (leverage "},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[1024], msg[512], quoted[160];
        snprintf(text, sizeof text, fmt, rows[i].nb);
        ga_audit_result *r;
        cr_assert(ga_audit_spec_text(&r, text, strlen(text), "f.yaml", NULL, msg, sizeof msg) == GA_OK,
                  "%s: %s", rows[i].nb, msg);
        ga_claim_info c;
        cr_assert(ga_audit_result_claim(&c, r, 0) == GA_OK);
        char *json = written(r, GA_FORMAT_JSON);
        snprintf(quoted, sizeof quoted, "\"worst_pair\": \"%s\"", c.worst_pair);
        cr_expect(c.verdict == GA_VERDICT_VIOLATION && !strncmp(c.worst_pair, rows[i].pair,
                  strlen(rows[i].pair)) && strstr(json, quoted),
                  "%s: verdict %d, worst pair '%s'", rows[i].nb, c.verdict, c.worst_pair);
        free(json);
        ga_audit_result_free(r);
    }
}

/* Digits that decide: near-tight claims 1 ulp, 1e-11 and 1e-6 relative above and
 * below the analytic Gaussian mechanism's delta(1) = 0.12693673750664394: in Markdown and
 * HTML the printed exact value and the printed claim are on the sides the numbers are, the
 * printed certified bounds enclose the interval and keep their sides of the claim; JSON
 * carries the numbers themselves */
static double order3(double a, double b)
{
    return a < b ? -1 : a > b ? 1 : 0;
}

/* the number after `key` in s (its first occurrence after `from`) */
static double number_after(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    cr_assert(p != NULL, "no '%s' in %.400s", key, s);
    return strtod(p + strlen(key), NULL);
}

Test(api, digits_that_decide_near_tight_claims, .fini = fini)
{
    const double x = 0.12693673750664394;
    const double claims[6] = {nextafter(x, 1), x * (1 + 1e-11), x * (1 + 1e-6),
                              nextafter(x, 0), x * (1 - 1e-11), x * (1 - 1e-6)};
    for (int i = 0; i < 6; i++) {
        char spec[512], msg[512];
        snprintf(spec, sizeof spec,
                 "gaussaudit: 1\nname: t\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, "
                 "sigma: 1}\nclaim: {epsilon: 1, delta: %.17g}\n", claims[i]);
        ga_audit_result *r;
        cr_assert(ga_audit_spec_text(&r, spec, strlen(spec), "t.yaml", NULL, msg, sizeof msg) == GA_OK, "%s", msg);
        ga_claim_info c;
        cr_assert(ga_audit_result_claim(&c, r, 0) == GA_OK && c.certified);
        double shown = fmin(fmax(c.exact.val, c.interval.lo), c.interval.hi);
        for (int fmt = 0; fmt < 2; fmt++) { /* Markdown, HTML */
            char *buf = written(r, fmt ? GA_FORMAT_HTML : GA_FORMAT_MARKDOWN);
            double pe = number_after(buf, "exact delta(1) = ");
            double pc = number_after(buf, "(1, ");
            cr_expect(pc == claims[i], "case %d fmt %d: claim printed as %.17g, written %.17g", i, fmt, pc, claims[i]);
            cr_expect(order3(pe, pc) == order3(shown, claims[i]) || shown == claims[i],
                      "case %d fmt %d: exact printed %.17g vs claim %.17g, but %.17g vs %.17g", i,
                      fmt, pe, pc, shown, claims[i]);
            /* the certified column: "[lo, hi]" right after the tightness cell */
            const char *iv = strstr(buf, fmt ? "<td class=\"num\">[" : "| [");
            cr_assert(iv != NULL, "case %d fmt %d: no interval", i, fmt);
            double lo = strtod(strchr(iv, '[') + 1, NULL), hi = strtod(strchr(iv, ',') + 1, NULL);
            cr_expect(lo <= c.interval.lo && hi >= c.interval.hi,
                      "case %d fmt %d: printed [%.17g, %.17g] does not enclose [%.17g, %.17g]", i,
                      fmt, lo, hi, c.interval.lo, c.interval.hi);
            cr_expect(order3(lo, claims[i]) == order3(c.interval.lo, claims[i]) &&
                          order3(hi, claims[i]) == order3(c.interval.hi, claims[i]),
                      "case %d fmt %d: printed [%.17g, %.17g] against the claim %.17g, but "
                      "[%.17g, %.17g]", i, fmt, lo, hi, claims[i], c.interval.lo, c.interval.hi);
            free(buf);
        }
        char *buf = written(r, GA_FORMAT_JSON);
        cr_expect(number_after(buf, "\"delta\": ") == claims[i], "case %d: JSON claim %.300s", i, buf);
        free(buf);
        ga_audit_result_free(r);
    }
}

/* The witness as data: the event's A, b, c and threshold in JSON reproduce P_X[S]
 * and P_Y[S]. The Gaussian mechanism N(1, 1) vs N(0, 1) at eps = 1 has l(x) = x - 1/2, so
 * S = {x > 3/2}: P_X[S] = erfc(1/(2 sqrt 2))/2 and P_Y[S] = erfc(3/(2 sqrt 2))/2, recomputed
 * here from the printed numbers */
Test(api, witness_as_data_reproduces_the_probabilities, .fini = fini)
{
    static const char *spec =
        "gaussaudit: 1\nname: w\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 1}\n"
        "claim: {epsilon: 1, delta: 0.1}\n";
    ga_audit_result *r;
    char msg[512];
    cr_assert(ga_audit_spec_text(&r, spec, strlen(spec), "w.yaml", NULL, msg, sizeof msg) == GA_OK, "%s", msg);
    char *buf = written(r, GA_FORMAT_JSON);
    double A = number_after(buf, "\"A\": [["), b = number_after(buf, "\"b\": ["),
           c = number_after(buf, "\"c\": "), t = number_after(buf, "\"threshold\": "),
           px = number_after(buf, "\"p_x\": "), py = number_after(buf, "\"p_y\": ");
    cr_assert(A == 0 && b > 0, "A %g b %g", A, b);
    double x0 = (t - c) / b; /* S = {x > x0} */
    double qx = 0.5 * erfc((x0 - 1) / sqrt(2.0)), qy = 0.5 * erfc(x0 / sqrt(2.0));
    cr_expect(fabs(qx - px) <= 1e-14 * px && fabs(qy - py) <= 1e-14 * py,
              "from A, b, c: %.17g %.17g; printed %.17g %.17g", qx, qy, px, py);
    cr_expect(fabs(px - 0.5 * erfc(0.5 / sqrt(2.0))) <= 1e-14, "%.17g", px);
    free(buf);
    ga_audit_result_free(r);
}

/* Below the double range: the Gaussian mechanism's delta(200) at distance 1 is
 * 3.0503068792146020517868e-8648 (mpmath, 60 digits): the certified bounds come as decimals
 * with their log10 in JSON, and the Markdown prints the decimal, not 0 */
Test(api, values_below_the_double_range, .fini = fini)
{
    static const char *spec =
        "gaussaudit: 1\nname: u\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 1}\n"
        "claim: {epsilon: 200, delta: 1e-10}\n";
    ga_audit_result *r;
    char msg[512];
    cr_assert(ga_audit_spec_text(&r, spec, strlen(spec), "u.yaml", NULL, msg, sizeof msg) == GA_OK, "%s", msg);
    char *buf = written(r, GA_FORMAT_JSON);
    double lo = number_after(buf, "\"interval_lo_log10\": "), hi = number_after(buf, "\"interval_hi_log10\": ");
    const double ref = -8647.515656465818753;
    cr_expect(lo <= ref + 1e-12 && ref - 1e-12 <= hi && hi - lo < 1e-9, "log10 [%.17g, %.17g]", lo, hi);
    free(buf);
    buf = written(r, GA_FORMAT_MARKDOWN);
    cr_expect(strstr(buf, "e-8648") != NULL && strstr(buf, "exact delta(200) = 0") == NULL, "%.600s", buf);
    free(buf);
    ga_audit_result_free(r);
}

/* the profile of two explicit pairs (shifts 1 and 2 with unit covariance: mu-GDP with mu = 1
 * and 2) is the larger, mu = 2's, at every eps; randomized eps and delta (seeded) */
Test(api, profile_is_the_largest_pair, .fini = fini)
{
    static const char *spec =
        "gaussaudit: 1\nmechanism: {kind: gaussian_pair}\npairs:\n"
        "  - {name: near, x: {mean: [0], cov: [[1]]}, y: {mean: [1], cov: [[1]]}}\n"
        "  - {name: far, x: {mean: [0], cov: [[1]]}, y: {mean: [2], cov: [[1]]}}\n";
    const double TOL_REL = 1e-12; /* the closed form in doubles against the engines */
    ga_profile *p;
    char msg[512];
    cr_assert(ga_profile_spec_text(&p, spec, strlen(spec), "profile.yaml", NULL, msg,
                                   sizeof msg) == GA_OK, "%s", msg);
    cr_expect(ga_profile_npairs(p) == 2);
    gsl_rng *r = ga_test_rng(37);
    long n = ga_test_count(20);
    for (long i = 0; i < n; i++) {
        double eps = 4 * gsl_rng_uniform(r), ref = ga_test_gdp_delta(2, eps);
        ga_result d;
        cr_assert(ga_profile_delta(&d, p, eps) == GA_OK, "eps %.17g", eps);
        cr_expect(fabs(d.val - ref) <= d.err + TOL_REL * ref && d.err <= 1e-9 * ref + 1e-300,
                  "eps %.17g: %.17g +- %.3g, closed form %.17g", eps, d.val, d.err, ref);
        char txt[32];
        snprintf(txt, sizeof txt, "%.17g", eps);
        ga_interval iv;
        cr_assert(ga_profile_delta_cert(&iv, p, txt) == GA_OK, "eps %s", txt);
        cr_expect(iv.lo <= ref * (1 + TOL_REL) && ref * (1 - TOL_REL) <= iv.hi &&
                  iv.lo >= ga_test_gdp_delta(1, eps) * (1 + TOL_REL),
                  "eps %s: [%.17g, %.17g], closed form %.17g", txt, iv.lo, iv.hi, ref);
        double delta = pow(10, -1 - 8 * gsl_rng_uniform(r));
        ga_result e;
        cr_assert(ga_profile_epsilon(&e, p, delta) == GA_OK, "delta %.17g", delta);
        double back = ga_test_gdp_delta(2, e.val);
        cr_expect(fabs(back - delta) <= 1e-6 * delta, "delta %.17g: eps %.17g gives %.17g",
                  delta, e.val, back);
    }
    gsl_rng_free(r);
    ga_profile_free(p);
    /* a spec that does not parse: a status and a message with the position */
    const char *bad = "gaussaudit: 1\nmechanism: {kind: x}\n";
    cr_expect(ga_profile_spec_text(&p, bad, strlen(bad), "bad.yaml", NULL, msg, sizeof msg) ==
              GA_EINVAL && strstr(msg, "bad.yaml:2:"), "%s", msg);
    cr_expect(p == NULL);
}

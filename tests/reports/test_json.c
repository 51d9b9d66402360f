/*
 * test_json.c - every command's --format json output is one valid JSON document (a strict
 * checker, tests/support.c), on awkward inputs: leading-dot and signed decimals, quotes and
 * backslashes in paths and names, non-finite results (infinite Renyi divergences, tails below
 * the double range), more than 200 pairs, --profile with and without a count, certified
 * output, a timed-out audit, failures reported inside the document; and the writer's own
 * buffer against escapes written out in the test.
 */
#include "reports/report.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[64], dir[160];

static void setup(void)
{
    snprintf(top, sizeof top, "/tmp/ga_jsonXXXXXX");
    cr_assert(mkdtemp(top) != NULL);
    /* a directory whose name needs escaping in JSON (and quoting in the shell) */
    snprintf(dir, sizeof dir, "%s/we\"ird\\dir", top);
    cr_assert(mkdir(dir, 0700) == 0);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    cr_assert(system(cmd) == 0);
}

static void write_file(const char *name, const char *text)
{
    ga_test_write(dir, name, text);
}

/* run "CMD 'DIR/FILE' ARGS" (FILE may be empty: no spec) and check the JSON */
static void check(const char *cmd, const char *file, const char *args, int want_status)
{
    char line[1024];
    if (file && *file)
        snprintf(line, sizeof line, "%s '%s/%s' %s", cmd, dir, file, args);
    else
        snprintf(line, sizeof line, "%s %s", cmd, args);
    char *out, *err;
    int st = ga_test_run(line, &out, &err);
    size_t at = 0;
    cr_expect(want_status < 0 ? st != 64 : st == want_status, "%s: status %d: %s", line, st, err);
    cr_expect(ga_test_json_valid(out, &at), "%s: invalid JSON near offset %zu: %.400s", line, at,
              out);
    free(out);
    free(err);
}

static const char *pair_spec =
    "gaussaudit: 1\nname: \"a \\\"quoted\\\" \\\\ name\\ttab\"\nmechanism: {kind: gaussian_pair}\n"
    "pairs:\n"
    "  - name: \"back\\\\slash \\\"q\\\"\"\n    x: {mean: [0, .5], cov: [[1, 0.2], [0.2, 1]]}\n"
    "    y: {mean: [+0.25, -.5], cov: [[1.5, 0], [0, .3]]}\n"
    "  - x: {mean: [0, 0], cov: [[1, 0], [0, 1]]}\n    y: {mean: [1, 0], cov: [[1, 0], [0, 1]]}\n"
    "  - x: {mean: [0, 0], cov: [[1, 0], [0, 0]]}\n    y: {mean: [0, 1e-20], cov: [[1, 0], [0, 0]]}\n"
    "claim: {epsilon: .5, delta: 1.0e-5, rdp: [[2, 0.5], [1000, 3]], zcdp: 0.5, gdp: 1}\n";

Test(json, spec_commands, .init = setup, .fini = teardown)
{
    write_file("p.yaml", pair_spec);
    check("delta", "p.yaml", "--epsilon .5,+1,0 --format json", 0);
    check("delta", "p.yaml", "--epsilon .5 --certified --format json", -1);
    check("delta", "p.yaml", "--epsilon 1 --method tails --format json", 0);
    check("delta", "p.yaml", "--profile --format json", 0);
    check("delta", "p.yaml", "--format json --profile", 0);
    check("delta", "p.yaml", "--profile 5 --format json", 0);
    check("epsilon", "p.yaml", "--delta 1e-5 --format json", -1);
    check("epsilon", "p.yaml", "--delta .001 --certified --format json", -1);
    check("rdp", "p.yaml", "--alpha 2,1000,1.0001 --format json", -1);
    check("audit", "p.yaml", "--format json --quiet", -1);
    check("audit", "p.yaml", "--format json --quiet --certified", -1);
}

Test(json, cdf, .init = setup, .fini = teardown)
{
    check("cdf", "", "--weights 1 --at .5 --format json", 0);
    check("cdf", "", "--weights 1 --at +5 --certified --format json", 0);
    check("cdf", "", "--weights 1,-2 --nc .5,0 --at -.5,.5,1e5 --format json", -1);
    check("cdf", "", "--weights 1 --at 1e7 --format json", -1); /* log_sf unavailable: null */
    check("cdf", "", "--weights 0 --sigma 1 --at 1e300 --format json", 0);
    check("cdf", "", "--weights 3e-200,-1e-200 --dof 2,3 --nc 1,0 --at 5e-200 --certified --format json", 0);
}

/* more than 200 pairs: the audit's certification cap, and calibrate's check past it (which
 * printed nan) */
/* a spec of n one-dimensional neighbours f = 0.5 + step i (printed with digits decimals)
 * claiming (1, 1e-5), at dir/name */
static void write_many(const char *in, const char *name, int n, double step, int digits)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", in, name);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    fputs("gaussaudit: 1\nname: many\nmechanism: {kind: gaussian_mechanism, sigma: 2, f: [0], "
          "f_neighbours: [", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s[%.*f]", i ? ", " : "", digits, 0.5 + step * i);
    fputs("]}\nclaim: {epsilon: 1, delta: 1e-5}\n", f);
    cr_assert(fclose(f) == 0);
}

Test(json, many_pairs_and_calibrate, .init = setup, .fini = teardown)
{
    write_many(dir, "m.yaml", 230, 0.002, 3);
    check("audit", "m.yaml", "--format json --quiet", -1);
    check("calibrate", "m.yaml", "--epsilon 1 --delta 1e-5 --format json", 0);
    write_file("c.yaml", "gaussaudit: 1\nname: c\nmechanism: {kind: gaussian_mechanism, "
                         "sensitivity: 1, sigma: 1}\nclaim: {epsilon: 1, delta: 1e-5}\n");
    check("calibrate", "c.yaml", "--epsilon .5 --delta 1e-5 --format json", 0);
}

/* The per-pair table of many pairs is formatted in blocks on the audit's threads, in rounds
 * of eight blocks a thread: 40,000 pairs (20 blocks; two rounds at --jobs 2) give the same
 * bytes at --jobs 1, 2 and 3 (reproducible times: SOURCE_DATE_EPOCH) */
Test(json, pairs_table_on_threads_is_the_same_text, .init = setup, .fini = teardown)
{
    char p[256];
    write_many(top, "m.yaml", 40000, 1e-5, 5);
    snprintf(p, sizeof p, "%s/m.yaml", top);
    cr_assert(setenv("SOURCE_DATE_EPOCH", "0", 1) == 0);
    char *first = NULL;
    for (int jobs = 1; jobs <= 3; jobs++) {
        char line[512], *out, *err;
        snprintf(line, sizeof line, "audit '%s' --format json --quiet --jobs %d", p, jobs);
        int st = ga_test_run(line, &out, &err);
        size_t at = 0;
        cr_assert(st >= 0 && st <= 2 && ga_test_json_valid(out, &at), /* (a verdict's status) */
                  "%s: status %d, JSON near %zu: %s", line, st, at, err);
        cr_assert(strstr(out, "\"name\": \"f(D) vs f_neighbours[39999]\""), "%s: the last pair", line);
        if (!first) {
            first = out;
        } else {
            size_t d = 0;
            while (first[d] && first[d] == out[d])
                d++;
            cr_assert(!first[d] && !out[d], "--jobs %d differs from --jobs 1 at byte %zu", jobs, d);
            free(out);
        }
        free(err);
    }
    unsetenv("SOURCE_DATE_EPOCH");
    free(first);
}

/* a timed-out audit still writes a complete document (many cheap pairs: the deadline between
 * pairs stops it, not the backstop; a longer budget under valgrind) */
Test(json, timed_out_audit, .init = setup, .fini = teardown)
{
    ga_test_write_many_pairs_spec(dir, "op.yaml", 20000);
    check("audit", "op.yaml", getenv("GA_VALGRIND") ? "--format json --quiet --timeout 20"
                                                    : "--format json --quiet --timeout 0.5", 2);
}

/* n numbers of the JSON array after `key` (searched from `from`) into v; returns how many */
static size_t json_numbers(double *v, size_t n, const char *from, const char *key)
{
    const char *p = strstr(from, key);
    if (!p || !(p = strchr(p, '[')))
        return 0;
    size_t k = 0;
    for (p++; *p && *p != ']' && k < n; k++) {
        char *end;
        v[k] = strtod(p, &end);
        if (end == p)
            break;
        p = end;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return k;
}

/* Every report says what was audited: the mechanism's parameters as written (a long list by
 * its length), the spec's source, and the JSON carries the plotted curves, which a user can
 * plot again: 120 eps points, both directions of each plotted pair, the Renyi curve of an
 * RDP claim; a plotted delta agrees with `delta` at that eps */
#define TOL_REPLOT 1e-12
Test(json, reports_say_what_was_audited, .init = setup, .fini = teardown)
{
    char t[4096];
    size_t l = (size_t)snprintf(t, sizeof t, "gaussaudit: 1\nname: w\nsource: Somebody (2026), "
                                "Table 2\nmechanism: {kind: gaussian_mechanism, sigma: 2.5, f: [");
    for (int i = 0; i < 20; i++)
        l += (size_t)snprintf(t + l, sizeof t - l, "%s0", i ? ", " : "");
    l += (size_t)snprintf(t + l, sizeof t - l, "], f_neighbours: [[");
    for (int i = 0; i < 20; i++)
        l += (size_t)snprintf(t + l, sizeof t - l, "%s%d", i ? ", " : "", i == 3);
    snprintf(t + l, sizeof t - l, "]]}\nclaim: {epsilon: 1, delta: 1e-5, rdp: [[2, 0.5]]}\n");
    write_file("w.yaml", t);
    char cmd[1024], *out, *err;
    snprintf(cmd, sizeof cmd, "audit '%s/w.yaml' --quiet --format json", dir);
    ga_test_run(cmd, &out, &err);
    cr_expect(strstr(out, "\"mechanism\": {\"kind\": \"gaussian_mechanism\", \"sigma\": \"2.5\", "
                          "\"f\": {\"items\": 20}, \"f_neighbours\": [{\"items\": 20}]}") &&
              strstr(out, "\"source\": \"Somebody (2026), Table 2\""), "JSON: %.600s", out);
    double eps[130], xy[130], alpha[70], dxy[70];
    const char *pl = strstr(out, "\"plots\"");
    size_t ne = pl ? json_numbers(eps, 130, pl, "\"epsilon\"") : 0,
           nx = pl ? json_numbers(xy, 130, pl, "\"delta_xy\"") : 0,
           na = pl ? json_numbers(alpha, 70, pl, "\"alpha\"") : 0,
           nd = pl ? json_numbers(dxy, 70, pl, "\"d_xy\"") : 0;
    cr_expect(ne == 120 && nx == 120 && na == 60 && nd == 60,
              "plot data: %zu eps, %zu delta_xy, %zu alpha, %zu d_xy", ne, nx, na, nd);
    /* D_alpha of a shift of 1 against sigma 2.5 is alpha / (2 * 2.5^2) */
    for (size_t k = 0; k < na && k < nd; k++)
        cr_expect(fabs(dxy[k] - alpha[k] / 12.5) <= TOL_REPLOT * (alpha[k] / 12.5),
                  "Renyi point %zu: D_%.17g = %.17g, closed form %.17g", k, alpha[k], dxy[k],
                  alpha[k] / 12.5);
    free(out);
    free(err);
    if (ne == 120 && nx == 120) {
        snprintf(cmd, sizeof cmd, "delta '%s/w.yaml' --epsilon %.17g --format json", dir, eps[60]);
        ga_test_run(cmd, &out, &err);
        double v[1];
        cr_expect(json_numbers(v, 1, out, "\"xy\": {\"value\"") == 0); /* (not an array) */
        const char *p = strstr(out, "\"xy\": {\"value\": ");
        double d = p ? strtod(p + 17, NULL) : NAN;
        cr_expect(fabs(d - xy[60]) <= TOL_REPLOT * d, "plotted delta_xy(%.17g) = %.17g, delta "
                  "says %.17g", eps[60], xy[60], d);
        free(out);
        free(err);
    }
    snprintf(cmd, sizeof cmd, "audit '%s/w.yaml' --quiet", dir);
    ga_test_run(cmd, &out, &err);
    cr_expect(strstr(out, "- mechanism: kind: gaussian\\_mechanism, sigma: 2.5, f: \\[20 items\\], "
                          "f\\_neighbours: \\[\\[20 items\\]\\]") &&
              strstr(out, "- source: Somebody (2026), Table 2"), "Markdown: %s", out);
    /* the worst pair's delta with its error estimate: a shift of 1 against sigma 2.5 */
    const char *dl = strstr(out, "so delta = P[S] - e^eps P'[S] = ");
    double dv = NAN, de = NAN, want = ga_test_gdp_delta(0.4, 1);
    cr_expect(dl && sscanf(dl + 32, "%lf (+- %lf)", &dv, &de) == 2 && de >= 0 && de < 1e-12 &&
                  fabs(dv - want) <= 5e-6 * want + de, /* (6 digits) */
              "Markdown's worst pair: %.200s (closed form %.17g)", dl ? dl : "(none)", want);
    free(out);
    free(err);
}

/* A report names how every family of its pairs was computed: random allocation's lower
 * bound (the max test) and upper bound (its dominating pair's divergences), in JSON and in
 * Markdown; a Gaussian pair alone names the Gaussian methods. */
Test(json, reports_name_each_pair_familys_methods, .init = setup, .fini = teardown)
{
    write_file("r.yaml", "gaussaudit: 1\nname: r\nmechanism: {kind: subsampled_gaussian, sampler: "
                         "random_allocation, steps: 20, sigma: 1.5, epochs: 2}\nclaim: {epsilon: 3, "
                         "delta: 1e-5}\n");
    write_file("g.yaml", pair_spec);
    static const char *const fmt[2] = {"--format json", ""};
    for (int f = 0; f < 2; f++) {
        char cmd[1024], *out, *err;
        snprintf(cmd, sizeof cmd, "audit '%s/r.yaml' --quiet %s", dir, fmt[f]);
        ga_test_run(cmd, &out, &err);
        const char *m = strstr(out, f ? "- methods: " : "\"methods\": ");
        cr_expect(m && strstr(m, "the max test of epochs") && strstr(m, "; and an upper bound of "
                  "random allocation") && !strstr(m, "Bromwich integral on a saddle-point"),
                  "%s: %.2000s", fmt[f], m ? m : out);
        free(out);
        free(err);
        snprintf(cmd, sizeof cmd, "audit '%s/g.yaml' --quiet %s", dir, fmt[f]);
        ga_test_run(cmd, &out, &err);
        m = strstr(out, f ? "- methods: " : "\"methods\": ");
        cr_expect(m && strstr(m, "Bromwich integral on a saddle-point") && !strstr(m, "; and "),
                  "%s: %.2000s", fmt[f], m ? m : out);
        free(out);
        free(err);
    }
}

/* The writer's buffer (reports/json.c): strings of every length around the buffer's size
 * (8192 bytes) and far beyond, of plain ASCII, quotes, backslashes, control characters and
 * two-byte UTF-8, inside objects and arrays, against the escaping written out here; and the
 * caller's own writes between top-level values stay where they were written. */
static size_t escape_ref(char *out, const char *s)
{
    size_t k = 0;
    out[k++] = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            k += (size_t)sprintf(out + k, "\\%c", c);
        else if (c < 0x20)
            k += (size_t)sprintf(out + k, "\\u%04x", c);
        else
            out[k++] = (char)c;
    }
    out[k++] = '"';
    out[k] = 0;
    return k;
}

Test(json, writer_buffer_keeps_every_byte_in_order)
{
    static const size_t lens[] = {0, 1, 100, 8180, 8189, 8190, 8191, 8192, 8193, 8200, 16384,
                                  30000};
    static const char *const pieces[] = {"a", "z", "\"", "\\", "\n", "\x01", "\xc3\xa9", " "};
    enum { NL = sizeof lens / sizeof *lens, NPLAIN = 40 };
    gsl_rng *r = ga_test_rng(3131);
    /* mixed strings of the lengths above, then plain ones (one run each) of 8170 to 8209
     * bytes: the buffer then fills exactly at each kind of write, and a run longer than the
     * buffer goes out whole */
    for (size_t li = 0; li < NL + NPLAIN; li++) {
        int plain = li >= NL;
        size_t want = plain ? 8170 + (li - NL) : lens[li];
        char *s = malloc(want + 8), *exp = malloc(30 * want + 4096), *got = NULL;
        size_t glen = 0, n = 0;
        cr_assert(s && exp);
        while (n < want) {
            const char *p = plain ? "a" : pieces[gsl_rng_uniform_int(r, 8)];
            size_t pl = strlen(p);
            if (n + pl > want)
                p = "a", pl = 1;
            memcpy(s + n, p, pl);
            n += pl;
        }
        s[n] = 0;
        FILE *f = open_memstream(&got, &glen);
        cr_assert(f);
        ga_jw j;
        ga_jw_init(&j, f);
        ga_jw_obj(&j, NULL);
        ga_jw_str(&j, "s", s);
        ga_jw_arr(&j, "a");
        for (int k = 0; k < 3; k++) {
            ga_jw_num(&j, NULL, 0.1 * k);
            ga_jw_str(&j, NULL, s);
        }
        ga_jw_arr_end(&j);
        ga_jw_int(&j, "n", -42);
        ga_jw_obj_end(&j);
        fputs("between\n", f); /* (the caller's own write, between top-level values) */
        ga_jw_str(&j, NULL, s);
        cr_assert(fclose(f) == 0);
        size_t k = 0;
        k += (size_t)sprintf(exp + k, "{\"s\": ");
        k += escape_ref(exp + k, s);
        k += (size_t)sprintf(exp + k, ", \"a\": [");
        for (int i = 0; i < 3; i++) {
            k += (size_t)sprintf(exp + k, "%s%s, ", i ? ", " : "", i == 0 ? "0" : i == 1 ? "0.1" : "0.2");
            k += escape_ref(exp + k, s);
        }
        k += (size_t)sprintf(exp + k, "], \"n\": -42}\nbetween\n");
        k += escape_ref(exp + k, s);
        size_t d = 0;
        while (d < k && d < glen && got[d] == exp[d])
            d++;
        cr_assert(glen == k && d == k, "a string of %zu bytes: %zu bytes written, %zu expected; "
                  "first difference at byte %zu", want, glen, k, d);
        free(s);
        free(exp);
        free(got);
    }
    gsl_rng_free(r);
}

/* A long array written in parts by writers that continue it (ga_jw_init_inside), the parts
 * spliced in order: the same text as one writer makes, for parts of every size, the first
 * part empty or not */
Test(json, array_written_in_parts_is_one_array)
{
    gsl_rng *r = ga_test_rng(4242);
    for (int trial = 0; trial < 50; trial++) {
        size_t n = gsl_rng_uniform_int(r, 40), pre = gsl_rng_uniform_int(r, 3);
        char *want = NULL, *got = NULL;
        size_t wl = 0, gl = 0;
        FILE *fw = open_memstream(&want, &wl), *fg = open_memstream(&got, &gl);
        cr_assert(fw && fg);
        ga_jw w, g;
        ga_jw_init(&w, fw);
        ga_jw_init(&g, fg);
        ga_jw *both[2] = {&w, &g};
        for (int b = 0; b < 2; b++) {
            ga_jw_obj(both[b], NULL);
            ga_jw_arr(both[b], "a");
            for (size_t i = 0; i < pre; i++) /* (values written before the parts) */
                ga_jw_int(both[b], NULL, -(long)i);
        }
        for (size_t i = 0; i < n; i++) {
            ga_jw_obj(&w, NULL);
            ga_jw_num(&w, "v", 0.1 * (double)i);
            ga_jw_obj_end(&w);
        }
        for (size_t i = 0; i < n;) {
            size_t m = 1 + gsl_rng_uniform_int(r, 7);
            m = m < n - i ? m : n - i;
            char *t = NULL;
            size_t tl = 0;
            FILE *ft = open_memstream(&t, &tl);
            cr_assert(ft);
            ga_jw sub;
            ga_jw_init_inside(&sub, ft, &g, pre + i);
            for (size_t k = i; k < i + m; k++) {
                ga_jw_obj(&sub, NULL);
                ga_jw_num(&sub, "v", 0.1 * (double)k);
                ga_jw_obj_end(&sub);
            }
            ga_jw_flush(&sub);
            cr_assert(fclose(ft) == 0);
            ga_jw_splice(&g, t, tl, m);
            free(t);
            i += m;
        }
        for (int b = 0; b < 2; b++) {
            ga_jw_int(both[b], NULL, 7); /* (a value after the parts) */
            ga_jw_arr_end(both[b]);
            ga_jw_obj_end(both[b]);
        }
        cr_assert(fclose(fw) == 0 && fclose(fg) == 0);
        cr_assert(gl == wl && !memcmp(want, got, wl), "%zu values after %zu: %s\nagainst %s", n,
                  pre, got, want);
        free(want);
        free(got);
    }
    gsl_rng_free(r);
}

/*
 * test_cli.c - the gaussaudit command line: exit statuses (sysexits), messages that name
 * the argument, JSON output fields and round-tripping numbers.
 */
#include "tests/support.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *args;
    int status;
    const char *needle; /* expected in stderr */
} bad_case;

Test(cli, bad_input_statuses_and_messages)
{
    static const bad_case cases[] = {
        {"", 64, "usage"},
        {"frobnicate", 64, "unknown command"},
        {"cdf --at 1", 64, "--weights"},
        {"cdf --weights 1,2", 64, "--at"},
        {"cdf --weights 1 --at", 64, "--at needs a value"},
        {"cdf --weights 1 --at 1 --bogus", 64, "--bogus"},
        {"cdf --weights 1 --at 1 --method fancy", 64, "--method"},
        {"cdf --weights 1 --at 1 --format xml", 64, "--format"},
        {"cdf --weights 1,x --at 1", 64, "--weights: item 2"},
        {"cdf --weights 1,nan --at 1", 64, "--weights: item 2"},
        {"cdf --weights 1,inf --at 1", 64, "--weights: item 2"},
        {"cdf --weights 1, --at 1", 64, "--weights: item 2"},
        {"cdf --weights 1,2 --dof 1 --at 1", 64, "--dof has 1 items"},
        {"cdf --weights 1,2 --dof 1,-2 --at 1", 64, "--dof: item 2"},
        {"cdf --weights 1,2 --dof 1,0 --at 1", 64, "--dof: item 2"},
        {"cdf --weights 1,2 --nc 1,-0.5 --at 1", 64, "--nc: item 2"},
        {"cdf --weights 1,2 --nc 1 --at 1", 64, "--nc has 1 items"},
        {"cdf --weights 1 --sigma -1 --at 1", 64, "--sigma"},
        {"cdf --weights 1 --sigma abc --at 1", 64, "--sigma"},
        {"cdf --weights 1 --offset 1e999 --at 1", 64, "--offset"},
        {"cdf --weights 1 --at 1e400", 64, "--at"},
        {"cdf --weights 1 --at 1 --epsrel 0", 64, "--epsrel"},
        {"cdf --weights 1,2 --at 1 --method closed", 64, "does not apply"},
        {"pld --sigma 1", 64, "--rate"},
        {"pld --rate 0.01", 64, "--sigma"},
        {"pld --rate 1 --sigma 1", 64, "--rate must be"},
        {"pld --rate 0.01 --sigma -1", 64, "--rate must be"},
        {"pld --rate 0.01 --sigma 1 --grid 0", 64, "--grid"},
        {"pld --rate 0.01 --sigma 1 --grid 1e-12", 65, "2^22 grid points"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out, *err;
        int st = ga_test_run(cases[i].args, &out, &err);
        cr_expect(st == cases[i].status, "'%s': status %d, expected %d (stderr: %s)",
                  cases[i].args, st, cases[i].status, err);
        cr_expect(strstr(err, cases[i].needle) != NULL, "'%s': stderr lacks '%s': %s",
                  cases[i].args, cases[i].needle, err);
        free(out);
        free(err);
    }
}

Test(cli, help_documents_the_options)
{
    char *out, *err;
    cr_expect(ga_test_run("cdf --help", &out, &err) == 0);
    const char *words[] = {"--weights", "--dof", "--nc", "--sigma", "--offset", "--at",
                           "--method", "--format", "json"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        cr_expect(strstr(out, words[i]) != NULL, "cdf --help lacks %s", words[i]);
    free(out);
    free(err);
    cr_expect(ga_test_run("help", &out, &err) == 0 && strstr(out, "cdf") != NULL &&
              strstr(out, "GAUSSAUDIT_BLAS") != NULL, "help: %s", out);
    free(out);
    free(err);
}

/* Extract the number after "key": in a JSON text (first occurrence after from). */
static double json_num(const char *text, const char *from, const char *key)
{
    const char *p = strstr(text, from);
    cr_assert(p != NULL, "no '%s' in %s", from, text);
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    p = strstr(p, pat);
    cr_assert(p != NULL, "no '%s' in %s", key, text);
    return strtod(p + strlen(pat), NULL);
}

Test(cli, json_fields_and_values)
{
    char *out, *err;
    int st = ga_test_run("cdf --weights 6,3,1 --at 200 --format json", &out, &err);
    cr_assert(st == 0, "status %d: %s", st, err);
    double sf = json_num(out, "\"sf\"", "value"), sferr = json_num(out, "\"sf\"", "err");
    double cdf = json_num(out, "\"cdf\"", "value");
    double ref = 1.2247827606700466e-8;
    cr_expect(fabs(sf - ref) <= 1e-9 * ref, "sf %.17g", sf);
    cr_expect(fabs(sf - ref) <= sferr + 1e-16 * ref, "sf err estimate %.3g", sferr);
    cr_expect(fabs(cdf - (1 - ref)) <= 1e-14, "cdf %.17g", cdf);
    cr_expect(strstr(out, "\"method\": \"contour\"") != NULL, "%s", out);
    cr_expect(strstr(out, "\"certified\": false") != NULL, "%s", out);
    free(out);
    free(err);
    /* several points give a list; the closed form is named */
    st = ga_test_run("cdf --weights 0.5 --at 1,17.29879 --format json", &out, &err);
    cr_assert(st == 0);
    cr_expect(out[0] == '[' && strstr(out, "\"method\": \"closed\"") != NULL, "%s", out);
    free(out);
    free(err);
}

Test(cli, text_prints_only_supported_digits)
{
    char *out, *err;
    int st = ga_test_run("cdf --weights 6,3,1 --dof 2,2,2 --at 60 --method imhof --epsrel 1e-6",
                         &out, &err);
    cr_assert(st == 0, "status %d %s", st, err);
    /* an error estimate near 1e-7 supports about 6-7 significant digits, never 17 */
    const char *p = strstr(out, "P[Q >  x] = ");
    cr_assert(p != NULL, "%s", out);
    p += strlen("P[Q >  x] = ");
    size_t digits = 0;
    for (; *p && *p != ' '; p++)
        digits += (*p >= '0' && *p <= '9');
    cr_expect(digits <= 10, "too many digits printed: %s", out);
    free(out);
    free(err);
}

Test(cli, certified_json_and_options)
{
    char *out, *err;
    int st = ga_test_run("cdf --weights 6,3,1 --at 20 --certified --digits 20 --format json",
                         &out, &err);
    cr_assert(st == 0, "status %d: %s", st, err);
    cr_expect(strstr(out, "\"certified\": true") && strstr(out, "\"method\": \"arb\"") &&
                  strstr(out, "\"precision_bits\": "),
              "%s", out);
    /* lo <= reference <= hi, printed with 23 digits */
    const char *p = strstr(out, "\"sf\": {\"lo\": ");
    cr_assert(p != NULL, "%s", out);
    cr_expect(strstr(out, "1.2395907416232630236394e-1") != NULL, "sf lower bound digits: %s", out);
    free(out);
    free(err);
    static const bad_case bad[] = {
        {"cdf --weights 1 --at 1 --certified --digits 0", 64, "--digits"},
        {"cdf --weights 1 --at 1 --certified --digits x", 64, "--digits"},
        {"cdf --weights 1 --at 1 --digits 5", 64, "--certified"},
        {"cdf --weights 1 --at 1 --certified --method imhof", 64, "--certified"},
        {"cdf --weights 1,0.5 --dof 1,-1 --at 1 --certified", 64, "--dof: item 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        st = ga_test_run(bad[i].args, &out, &err);
        cr_expect(st == bad[i].status, "'%s': status %d (stderr %s)", bad[i].args, st, err);
        cr_expect(strstr(err, bad[i].needle) != NULL, "'%s': stderr %s", bad[i].args, err);
        free(out);
        free(err);
    }
    /* --method arb is the certified path; text output gives intervals */
    st = ga_test_run("cdf --weights 0.5 --at 17.29879 --method arb", &out, &err);
    cr_assert(st == 0);
    cr_expect(strstr(out, "P[Q >  x] in [4.05409979113834") != NULL, "%s", out);
    free(out);
    free(err);
}

/* -o naming a FIFO (or /dev/null, /dev/stdout): the report is written into it; the atomic
 * rename of a temporary file would have replaced the FIFO itself (as root, /dev/null became a
 * regular file that way) */
Test(cli, output_into_a_fifo_keeps_the_fifo)
{
    char dir[] = "/tmp/ga_fifoXXXXXX", fifo[64], out[64], cmd[256];
    cr_assert(mkdtemp(dir) != NULL);
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(out, sizeof out, "%s/out.md", dir);
    cr_assert(mkfifo(fifo, 0600) == 0);
    snprintf(cmd, sizeof cmd, "cat %s > %s &", fifo, out); /* the reader */
    cr_assert(system(cmd) == 0);
    char args[256], *o, *e;
    snprintf(args, sizeof args, "audit specs/examples/gaussian_mechanism_pair.yaml --quiet -o %s", fifo);
    int st = ga_test_run(args, &o, &e);
    cr_expect(st == 0, "status %d: %s", st, e);
    struct stat sb;
    cr_expect(stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode), "-o replaced the FIFO");
    /* (the reader runs in the background: polled for up to 30 s, as a loaded machine under
     * the sanitizers may be slow to schedule it; it is there within milliseconds otherwise) */
    snprintf(cmd, sizeof cmd, "i=0; while [ $i -lt 150 ]; do grep -q Verdict %s && exit 0; "
             "sleep 0.2; i=$((i + 1)); done; exit 1", out);
    cr_expect(system(cmd) == 0, "the report did not come through the FIFO");
    free(o);
    free(e);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect(system(cmd) == 0);
}

/* --report FORMAT:FILE: the same audit's report in further formats, each written atomically;
 * a report that cannot be written is an output error (74) and does not stop the others;
 * malformed values, a FILE given twice, with --shard, or a format other than JUnit for
 * several specs are usage errors (64) */
static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = calloc(1, 1 << 20);
    if (b)
        fread(b, 1, (1 << 20) - 1, f);
    fclose(f);
    return b;
}

Test(cli, reports_in_several_formats_from_one_audit)
{
    char dir[] = "/tmp/ga_reportsXXXXXX", args[512], path[128], *o, *e;
    cr_assert(mkdtemp(dir) != NULL);
    const char *spec = "specs/examples/gaussian_mechanism_pair.yaml";
    snprintf(args, sizeof args, "audit %s --quiet --format json --report md:%s/r.md --report "
             "html:%s/r.html --report junit:%s/r.xml", spec, dir, dir, dir);
    int st = ga_test_run(args, &o, &e);
    size_t at = 0;
    cr_expect(st == 0 && ga_test_json_valid(o, &at) && strstr(o, "\"verdict\": \"NO VIOLATION FOUND\""),
              "status %d (at %zu): %s %.300s", st, at, e, o);
    static const struct {
        const char *file, *start, *verdict;
    } want[] = {{"r.md", "# ", "NO VIOLATION FOUND"}, {"r.html", "<!DOCTYPE html>", "NO VIOLATION FOUND"},
                {"r.xml", "<?xml", "<testsuite"}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, want[i].file);
        char *b = slurp_file(path);
        cr_expect(b && !strncmp(b, want[i].start, strlen(want[i].start)) && strstr(b, want[i].verdict),
                  "%s: %.200s", want[i].file, b ? b : "(missing)");
        free(b);
    }
    free(o);
    free(e);
    /* one report into a missing directory: 74, the others written */
    snprintf(args, sizeof args, "audit %s --quiet -o %s/a.md --report json:%s/nodir/a.json "
             "--report html:%s/a.html", spec, dir, dir, dir);
    st = ga_test_run(args, &o, &e);
    cr_expect(st == 74 && strstr(e, "nodir"), "status %d: %s", st, e);
    struct stat sb;
    snprintf(path, sizeof path, "%s/a.html", dir);
    cr_expect(stat(path, &sb) == 0 && sb.st_size > 0, "a.html not written beside the failure");
    snprintf(path, sizeof path, "%s/a.md", dir);
    cr_expect(stat(path, &sb) == 0 && sb.st_size > 0, "a.md not written beside the failure");
    free(o);
    free(e);
    static const char *bad[] = {"--report html:", "--report :x.html", "--report pdf:x.pdf",
                                "--report html", "-o X.md --report md:X.md",
                                "--report md:Y --report html:Y", "--shard 1/2 --report md:Z",
                                "--format junit --report html:W specs/examples/gaussian_mechanism.yaml"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(args, sizeof args, "audit %s --quiet %s", spec, bad[i]);
        st = ga_test_run(args, &o, &e);
        cr_expect(st == 64 && (strstr(e, "--report") || strstr(e, "junit")), "%s: status %d: %s",
                  bad[i], st, e);
        free(o);
        free(e);
    }
    snprintf(args, sizeof args, "rm -rf %s", dir);
    cr_expect(system(args) == 0);
}

/* FLINT/Arb is opened on the first certified computation (numerics/arb_load.c): without it,
 * commands that certify nothing run and print what they print with it; a certified
 * computation is reported as not computed, naming the library and why on stderr (no interval
 * from a computation that did not run, and no abort); naming the default library explicitly
 * changes nothing */
Test(cli, arb_is_loaded_on_first_use_and_its_failure_is_reported)
{
    static const struct {
        const char *lib, *args;
        int fails;          /* 1: the process must exit 65, never abort */
        const char *needle; /* in stderr; NULL: the same stdout and stderr as without the
                             * variable */
    } cases[] = {
        {"/nonexistent/libarb.so", "version", 0, NULL},
        {"/nonexistent/libarb.so", "cdf --weights 1,2 --at 1", 0, NULL},
        {"/nonexistent/libarb.so", "delta specs/examples/classic_gaussian_eps1.yaml --epsilon 1", 0, NULL},
        {"/nonexistent/libarb.so", "delta specs/examples/classic_gaussian_eps1.yaml --epsilon 1 --certified",
         1, "cannot load FLINT/Arb (/nonexistent/libarb.so)"},
        {"libgslcblas.so.0", "delta specs/examples/classic_gaussian_eps1.yaml --epsilon 1 --certified", 1,
         "lacks "},
        {"libflint-arb.so.2", "delta specs/examples/classic_gaussian_eps1.yaml --epsilon 1 --certified", 0,
         NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char env[256], *out[2], *err[2];
        int st[2];
        /* exec: the status is the program's own, a signal included (no shell between) */
        snprintf(env, sizeof env, "GAUSSAUDIT_ARB=%s exec", cases[i].lib);
        const char *cmd = cases[i].args;
        st[0] = ga_test_spawn("exec", cmd, &out[0], &err[0]);
        st[1] = ga_test_spawn(env, cmd, &out[1], &err[1]);
        if (cases[i].fails) /* (the whole table, the pair "not computed", and the reason) */
            cr_expect(WIFEXITED(st[1]) && WEXITSTATUS(st[1]) == 65 && strstr(out[1], "not computed"),
                      "%s %s: status %#x, expected exit 65 and the table: %s", env, cmd, st[1], out[1]);
        else
            cr_expect(WIFEXITED(st[1]) && WEXITSTATUS(st[1]) == 0, "%s %s: status %#x: %s", env, cmd, st[1],
                      err[1]);
        if (cases[i].needle)
            cr_expect(strstr(err[1], cases[i].needle) && strstr(err[1], "certified"),
                      "%s %s: stderr lacks '%s': %s", env, cmd, cases[i].needle, err[1]);
        else
            cr_expect(st[0] == st[1] && !strcmp(out[0], out[1]) && !strcmp(err[0], err[1]) && out[0][0],
                      "%s %s: differs from the run without GAUSSAUDIT_ARB:\n%s%s\n--\n%s%s", env, cmd,
                      out[0], err[0], out[1], err[1]);
        for (int with = 0; with < 2; with++) {
            free(out[with]);
            free(err[with]);
        }
    }
}

/* BLAS/LAPACK are opened on first use (base/blas.c): commands that need no linear algebra
 * never try; a library that cannot be opened, or lacks LAPACK, is named on stderr and the
 * pairs that need a factorisation fail with exit 69, a library unavailable (no verdict from a
 * routine that did not run); naming the default library explicitly gives the same report to the byte */
Test(cli, blas_is_loaded_on_first_use_and_its_failure_is_an_error)
{
    static const struct {
        const char *lib, *args;
        int status;
        const char *needle; /* in stderr; NULL: stderr must be empty */
    } cases[] = {
        {"/nonexistent/libblas.so", "version", 0, NULL},
        {"/nonexistent/libblas.so", "cdf --weights 1,2 --at 1", 0, NULL},
        {"/nonexistent/libblas.so", "audit specs/examples/two_explicit_outputs.yaml --quiet", 69,
         "cannot load the BLAS/LAPACK library /nonexistent/libblas.so"},
        {"libgslcblas.so.0", "audit specs/examples/two_explicit_outputs.yaml --quiet", 69,
         "lacks dpotrf_"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out, *err;
        cr_assert(setenv("GAUSSAUDIT_BLAS", cases[i].lib, 1) == 0);
        int st = ga_test_run(cases[i].args, &out, &err);
        unsetenv("GAUSSAUDIT_BLAS");
        cr_expect(st == cases[i].status, "GAUSSAUDIT_BLAS=%s %s: status %d, expected %d (%s)",
                  cases[i].lib, cases[i].args, st, cases[i].status, err);
        if (cases[i].needle)
            cr_expect(strstr(err, cases[i].needle) != NULL, "GAUSSAUDIT_BLAS=%s %s: stderr "
                      "lacks '%s': %s", cases[i].lib, cases[i].args, cases[i].needle, err);
        else
            cr_expect(err[0] == 0, "GAUSSAUDIT_BLAS=%s %s: stderr not empty: %s", cases[i].lib,
                      cases[i].args, err);
        cr_expect(st == 0 || strstr(out, "VERIFIED") == NULL, "a verdict after a failure: %s",
                  out);
        free(out);
        free(err);
    }
    const char *args = "audit specs/examples/sketch_remove_one.yaml --quiet"; /* Markdown: byte-reproducible */
    char *o1, *e1, *o2, *e2;
    int s1 = ga_test_run(args, &o1, &e1);
    cr_assert(setenv("GAUSSAUDIT_BLAS", "libopenblas.so.0", 1) == 0);
    int s2 = ga_test_run(args, &o2, &e2);
    unsetenv("GAUSSAUDIT_BLAS");
    cr_expect(s1 == s2 && strcmp(o1, o2) == 0 && o1[0] != 0,
              "default and explicit libopenblas.so.0 differ (%d, %d): %s", s1, s2, e2);
    free(o1);
    free(e1);
    free(o2);
    free(e2);
}

/* Shell manners: GNU option syntax (getopt_long), "--", "-" for standard input, suggestions
 * for a mistyped command, option or kind, exit 64 for every usage error, tabs named as such */
Test(cli, shell_manners)
{
    char tab[64] = "/tmp/ga_specXXXXXX", kind[64] = "/tmp/ga_specXXXXXX", out_json[128];
    ga_test_temp_spec(tab, "gaussaudit: 1\nmechanism:\n\tkind: sketch\n");
    ga_test_temp_spec(kind, "gaussaudit: 1\nmechanism: {kind: sketc, columns: 2}\n");
    snprintf(out_json, sizeof out_json, "%s.json", tab);
    const char *g = "specs/examples/classic_gaussian_eps1.yaml";
    char args[10][600];
    snprintf(args[0], sizeof args[0], "audit %s --certifed", g);
    snprintf(args[1], sizeof args[1], "calibrate %s --epsilon abc --delta 1e-5", g);
    snprintf(args[2], sizeof args[2], "delta %s --epsilon 1 --certified=1", g);
    snprintf(args[3], sizeof args[3], "audit %s", tab);
    snprintf(args[4], sizeof args[4], "audit %s", kind);
    snprintf(args[5], sizeof args[5], "audit %s --timeout -1", g);
    snprintf(args[6], sizeof args[6], "epsilon %s --delta 2", g);
    snprintf(args[7], sizeof args[7], "audit --quiet --format=json -o%s -- %s", out_json, g);
    snprintf(args[8], sizeof args[8], "audit %s --claim '{epsilon: 0.5, delta: 1e-6}' --quiet", g);
    snprintf(args[9], sizeof args[9], "audit %s --claim '{epsilon: 1, delt: 1e-6}' --quiet", g);
    const struct {
        const char *args;
        int status;
        const char *needle;
    } cases[] = {
        {"audti x", 64, "did you mean audit?"},
        {"audti x", 64, "the commands: audit, merge, calibrate"},
        {args[0], 64, "unknown option '--certifed'; did you mean --certified?"},
        {args[1], 64, "--epsilon must be a number"},
        {args[2], 64, "option --certified takes no value"},
        {args[3], 65, "a tab character indents this line"},
        {args[4], 65, "did you mean 'sketch'?); the kinds: gaussian_pair, gaussian_mechanism"},
        {args[5], 64, "--timeout"},
        {args[6], 64, "--delta must be a number in (0, 1)"},
        {args[7], 0, ""},
        {args[8], 1, "VIOLATION"},
        {args[9], 64, "the replacing claim:1:14: claim: unknown key 'delt' (did you mean 'delta'?)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out, *err;
        int st = ga_test_run(cases[i].args, &out, &err);
        cr_expect(st == cases[i].status, "'%s': status %d, expected %d (stderr: %s)",
                  cases[i].args, st, cases[i].status, err);
        cr_expect(strstr(err, cases[i].needle) != NULL || strstr(out, cases[i].needle) != NULL,
                  "'%s': no '%s' in stderr %s or stdout %.300s", cases[i].args, cases[i].needle,
                  err, out);
        free(out);
        free(err);
    }
    /* -oFILE after "--"-free options wrote the report; "--" kept the spec an operand */
    struct stat sb;
    cr_expect(stat(out_json, &sb) == 0 && sb.st_size > 100, "no report in %s", out_json);
    unlink(out_json);
    /* '-': the spec from standard input, the same report as from the file but for its path */
    const char *bin = getenv("GA_BIN") && *getenv("GA_BIN") ? getenv("GA_BIN") : "build/gaussaudit";
    char cmd[4096], o1[128], o2[128];
    snprintf(o1, sizeof o1, "%s.1.json", tab);
    snprintf(o2, sizeof o2, "%s.2.json", tab);
    snprintf(cmd, sizeof cmd, "%s audit - --quiet --format json < %s > %s && %s audit %s --quiet "
             "--format json > %s", bin, g, o1, bin, g, o2);
    cr_assert(system(cmd) == 0, "%s", cmd);
    const char *strip = "sed -e 's/\"spec_path\": \"[^\"]*\"//' -e 's/\"[a-z_]*seconds\": [^,}]*//g'"
                        " -e 's/\"started\": [^,}]*//'";
    snprintf(cmd, sizeof cmd, "%s %s > %s.s && %s %s > %s.s && cmp -s %s.s %s.s", strip, o1, o1,
             strip, o2, o2, o1, o2);
    cr_expect(system(cmd) == 0, "the report of the spec read from '-' differs: %s, %s", o1, o2);
    snprintf(cmd, sizeof cmd, "rm -f %s %s %s.s %s.s", o1, o2, o1, o2);
    cr_expect(system(cmd) == 0);
    /* a spec file name that is not UTF-8: every report stays a valid document (the byte
     * shown as \xff, or U+FFFD in JSON) */
    snprintf(cmd, sizeof cmd, "cp %s %s.\377.yaml", g, tab);
    cr_assert(system(cmd) == 0);
    static const char *const fmts[] = {"json", "junit", "html", "md"};
    for (int k = 0; k < 4; k++) {
        char *out, *err;
        snprintf(cmd, sizeof cmd, "audit %s.\377.yaml --quiet --format %s", tab, fmts[k]);
        cr_expect(ga_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
        size_t at = 0;
        if (k == 0)
            cr_expect(ga_test_json_valid(out, &at) && strstr(out, "\\ufffd.yaml"),
                      "invalid JSON at byte %zu: %.300s", at, out + at);
        else
            cr_expect(strstr(out, k == 3 ? "\\\\xff.yaml" : "\\xff.yaml") && !strchr(out, '\377'),
                      "%s: the byte is not escaped: %.500s", fmts[k], out);
        free(out);
        free(err);
    }
    snprintf(cmd, sizeof cmd, "%s.\377.yaml", tab);
    unlink(cmd);
    unlink(tab);
    unlink(kind);
}

/* gaussaudit pld: both directions as JSON, the pessimistic laws (with their infinity mass)
 * summing to at least 1 and the optimistic ones to at most 1; one step's delta from the
 * pessimistic law at or above the exact one (the remove direction's, ga_pair_delta), the
 * optimistic one's at or below */
Test(cli, pld_exports_bracketing_laws)
{
    const double h = 0.01, eps = 0.05;
    ga_subsampled_input in = {0.01, 1, 1, 0, NULL, NULL, 0, 0, NULL, NULL};
    ga_pair *p;
    char msg[256];
    cr_assert(ga_pair_reduce_subsampled(&p, &in, 1, msg, sizeof msg) == GA_OK, "%s", msg);
    ga_delta D;
    cr_assert(ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, NULL) == GA_OK);
    ga_pair_free(p);
    for (int opt = 0; opt < 2; opt++) {
        char *out, *err;
        int st = ga_test_run(opt ? "pld --rate 0.01 --sigma 1 --grid 0.01 --optimistic"
                                 : "pld --rate 0.01 --sigma 1 --grid 0.01", &out, &err);
        cr_assert(st == 0, "status %d: %s", st, err);
        cr_expect(strstr(out, "\"remove\": {") && strstr(out, "\"add\": {") &&
                      strstr(out, opt ? "\"pessimistic_estimate\": false" : "\"pessimistic_estimate\": true"),
                  "%.300s", out);
        /* the remove law: index, masses, infinity mass */
        const char *r = strstr(out, "\"remove\": {\"lowest_loss_index\": ");
        cr_assert(r != NULL, "%.300s", out);
        char *e;
        long k0 = strtol(r + strlen("\"remove\": {\"lowest_loss_index\": "), &e, 10);
        const char *m = strstr(e, "[");
        cr_assert(m != NULL);
        double sum = 0, delta = 0;
        m++;
        for (long i = 0; *m != ']'; i++) {
            double v = strtod(m, &e);
            cr_assert(e != m, "masses: %.60s", m);
            sum += v;
            double l = (double)(k0 + i) * h;
            if (l > eps)
                delta += v * -expm1(eps - l);
            m = e;
            while (*m == ',' || *m == ' ')
                m++;
        }
        const char *im = strstr(m, "\"infinity_mass\": ");
        cr_assert(im != NULL);
        double inf = strtod(im + strlen("\"infinity_mass\": "), NULL);
        sum += inf;
        delta += inf;
        cr_expect(opt ? sum <= 1 + 1e-13 && inf == 0 : sum >= 1 - 1e-13,
                  "%s: total %.17g, infinity mass %.3g", opt ? "optimistic" : "pessimistic", sum, inf);
        cr_expect(opt ? delta <= D.xy.val + D.xy.err : delta >= D.xy.val - D.xy.err,
                  "%s: delta(%g) from the law %.12g, exact %.12g +- %.2g",
                  opt ? "optimistic" : "pessimistic", eps, delta, D.xy.val, D.xy.err);
        free(out);
        free(err);
    }
}

/* the text between the n-th (from 0) occurrence of key and the next '}' */
static void json_obj_at(char *dst, size_t cap, const char *text, const char *key, int n)
{
    const char *p = text;
    for (int k = 0; k <= n && p; k++)
        if ((p = strstr(p, key)) != NULL && k < n)
            p += strlen(key);
    cr_assert(p != NULL, "no %d-th '%s' in %s", n, key, text);
    const char *e = strchr(p, '}');
    cr_assert(e != NULL && (size_t)(e - p) < cap, "%s", p);
    memcpy(dst, p + strlen(key), (size_t)(e - p) - strlen(key));
    dst[(size_t)(e - p) - strlen(key)] = 0;
}

/* Remove and add one record of the same decimals are each other's roles swapped: delta
 * and epsilon give the second pair the first's numbers with the directions exchanged,
 * certified intervals to the last decimal, and the binding direction swapped */
Test(cli, mirrored_pairs_swap_their_directions)
{
    char spec[] = "/tmp/ga_specXXXXXX";
    ga_test_temp_spec(spec, "gaussaudit: 1\nname: mirrors\nmechanism: {kind: subsampled_gaussian, "
                            "rate: 0.01, sigma: 1, steps: 1000}\n");
    static const char *const modes[] = {"--epsilon 0.5,1 --certified", "--epsilon 0.5,1"};
    for (size_t m = 0; m < 2; m++) {
        char args[256], *out, *err;
        snprintf(args, sizeof args, "delta %s %s --format json", spec, modes[m]);
        int st = ga_test_run(args, &out, &err);
        cr_assert(st == 0, "%s: status %d: %s", args, st, err);
        for (int k = 0; k < 2; k++) { /* eps k: pair 0's rows are 0, 1; pair 1's 2, 3 */
            char a[512], b[512], c[512], d[512];
            json_obj_at(a, sizeof a, out, "\"xy\": {", k);
            json_obj_at(b, sizeof b, out, "\"yx\": {", k);
            json_obj_at(c, sizeof c, out, "\"xy\": {", 2 + k);
            json_obj_at(d, sizeof d, out, "\"yx\": {", 2 + k);
            cr_expect(!strcmp(a, d) && !strcmp(b, c) && strcmp(a, b),
                      "%s, eps %d: xy {%s} yx {%s}, mirrored xy {%s} yx {%s}", args, k, a, b, c,
                      d);
        }
        free(out);
        free(err);
        snprintf(args, sizeof args, "epsilon %s --delta 1e-5 --format json%s", spec,
                 m ? "" : " --certified");
        st = ga_test_run(args, &out, &err);
        cr_assert(st == 0, "%s: status %d: %s", args, st, err);
        char a[512], c[512];
        json_obj_at(a, sizeof a, out, "\"epsilon\": {", 0);
        json_obj_at(c, sizeof c, out, "\"epsilon\": {", 1);
        const char *b0 = strstr(out, "\"binding\": \""), *b1 = b0 ? strstr(b0 + 1, "\"binding\": \"") : NULL;
        cr_expect(!strcmp(a, c) && b0 && b1 && !strncmp(b0, "\"binding\": \"xy\"", 15) &&
                      !strncmp(b1, "\"binding\": \"yx\"", 15),
                  "%s: %s", args, out);
        free(out);
        free(err);
    }
    unlink(spec);
}

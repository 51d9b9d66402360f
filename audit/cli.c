/*
 * cli.c - the gaussaudit command line (doc/commands.md). Exit statuses follow sysexits:
 * 0 success, 64 usage error, 65 data error, 66 cannot open input, 69 a library it needs is
 * unavailable, 70 internal error (no memory), 74 output error; `audit` adds 1 (violation) and
 * 2 (inconclusive, or stopped by the time budget).
 */
#include "audit/cli.h"
#include "reports/report.h"
#include "numerics/internal.h"

#include <errno.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>
#include <stdarg.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *usage_main =
    "usage: gaussaudit COMMAND [OPTIONS]\n"
    "\n"
    "Exact privacy profiles of Gaussian mechanisms, and the generalized chi-square\n"
    "distribution they rest on.\n"
    "\n"
    "commands:\n"
    "  audit      check a spec's claims: verdict, tightness, witness; md/html/json/junit\n"
    "  merge      combine the partial results of audit --shard I/N into one report\n"
    "  calibrate  the smallest noise for (eps, delta)-DP, certified\n"
    "  delta      delta(eps) in both directions for every neighbouring pair of a spec\n"
    "  epsilon    the smallest eps with delta(eps) <= D, per pair and overall\n"
    "  rdp        exact Renyi divergences in both directions\n"
    "  cdf        P[Q <= x] and P[Q > x] of a generalized chi-square Q\n"
    "  help       this text; 'gaussaudit COMMAND --help' for one command\n"
    "  version    print the version\n"
    "\n"
    "Every command takes --timeout SECONDS (default 600: ten minutes): the computation\n"
    "stops in time to report what it finished (the rest is marked as not computed) and the\n"
    "process ends by SECONDS + 1 whatever the input.\n"
    "\n"
    "exit status: 0 success, 64 usage error, 65 data error, 66 input not found,\n"
    "69 a library it needs is unavailable (FLINT/Arb, BLAS/LAPACK), 70 internal\n"
    "error (out of memory: the message names what and how much), 74 output error;\n"
    "audit: 1 violation, 2 inconclusive; any command: 2 when the time budget\n"
    "stopped it (audit: the report has what was finished, the rest INCONCLUSIVE).\n"
    "\n"
    "environment: GAUSSAUDIT_BLAS names the BLAS/LAPACK library opened on the first\n"
    "linear-algebra call (default libopenblas.so.0; CBLAS and Fortran LAPACK symbols);\n"
    "GAUSSAUDIT_ARB names the FLINT/Arb library opened on the first certified\n"
    "computation (default libflint-arb.so.2; without it, certified results are reported as\n"
    "not available, with the reason).\n";

static const char *usage_cdf =
    "usage: gaussaudit cdf --weights W1,W2,.. [--dof K1,K2,..] [--nc L1,L2,..]\n"
    "                      [--sigma S] [--offset M] --at X[,X2,..]\n"
    "                      [--method auto|imhof|davies|contour|closed|arb]\n"
    "                      [--epsrel R] [--certified [--digits N]] [--format text|json]\n"
    "                      [--timeout SECONDS]\n"
    "\n"
    "Both tails of Q = M + S*Z0 + sum_j W_j * chi2(K_j, L_j), Z0 standard normal, chi2(K, L)\n"
    "a (noncentral) chi-square with K degrees of freedom and noncentrality L (the sum of\n"
    "squared means). Each tail is computed directly, so that small tails keep their\n"
    "relative accuracy, with an error estimate (1 minus the other tail is used only where\n"
    "that has the smaller error).\n"
    "\n"
    "  --weights   coefficients W_j (any sign, nonzero; zero weights are dropped)\n"
    "  --dof       degrees of freedom K_j > 0 (default 1 each)\n"
    "  --nc        noncentralities L_j >= 0 (default 0 each)\n"
    "  --sigma     standard deviation of the normal term (default 0)\n"
    "  --offset    constant M (default 0)\n"
    "  --at        the point(s) x\n"
    "  --method    auto (default): closed form when Q is a single scaled (noncentral)\n"
    "              chi-square or a normal; Davies' rule in the bulk of a form of 16+ terms\n"
    "              when its bound meets the relative target; else contour; contour: saddle-point Bromwich\n"
    "              integral on a bent path (relative accuracy far into the tails);\n"
    "              imhof: Gil-Pelaez integral (absolute accuracy only); davies:\n"
    "              trapezoidal rule with Davies' bounds (absolute accuracy only);\n"
    "              closed: closed forms only (fails on other forms);\n"
    "              arb: the same as --certified\n"
    "  --epsrel    relative error target per tail (default 1e-13)\n"
    "  --certified intervals [lo, hi] that provably contain P[Q <= x] and P[Q > x] for\n"
    "              the exact decimal inputs (ball arithmetic with Arb, precision raised\n"
    "              64, 128, ... up to 4096 bits until the width is reached)\n"
    "  --digits N  certified: relative width of each interval <= 10^-N (default 17);\n"
    "              bounds are printed with N + 3 digits, lo rounded down, hi rounded up\n"
    "  --format    text (default): values rounded to the digits the error supports;\n"
    "              json: {\"x\", \"cdf\": {\"value\", \"err\"}, \"sf\": {...}, \"log_cdf\",\n"
    "              \"log_sf\", \"method\", \"certified\", \"status\"} (a list for several x);\n"
    "              numbers printed with 17 significant digits (round-trip); a log that\n"
    "              cannot be computed is null; certified: {\"x\", \"x_decimal\", \"cdf\":\n"
    "              {\"lo\", \"hi\", \"lo_decimal\", \"hi_decimal\"}, \"sf\": {...}, \"method\":\n"
    "              \"arb\", \"certified\": true, \"precision_bits\", \"status\"}: \"lo\"/\"hi\" are\n"
    "              the outward-rounded doubles (still bounds for a double reader), the\n"
    "              decimal bounds (digits + 3 digits, outward) are strings\n"
    "\n"
    "  --timeout SECONDS  the time budget (default 600 s): a certified interval not\n"
    "              finished by then is printed as far as it got (exit status 2)\n"
    "\n"
    "A status other than success (e.g. accuracy not reached) is reported in the output\n"
    "and on stderr; the value and its honest error estimate are still printed.\n";

/* ------------------------------------------------------------ argument helpers */

int ga_cli_parse_double(double *v, const char *s)
{
    return ga_decimal_to_double(v, s) == GA_OK ? 0 : -1; /* the one number reader */
}

int ga_cli_parse_jobs(int *jobs, const char *s)
{
    double v;
    *jobs = 0;
    if (!s)
        return 0;
    if (ga_cli_parse_double(&v, s) || v != floor(v) || v < 1 || v > 256)
        return -1;
    *jobs = (int)v;
    return 0;
}

/* Parse "a,b,c" into a new array; returns count or -1 (index of the bad item in *bad). */
long ga_cli_parse_list(double **out, const char *s, long *bad)
{
    *out = NULL;
    if (!s || !*s)
        return -1;
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    double *v = malloc(n * sizeof *v);
    char *buf = strdup(s);
    long count = -1;
    if (!v || !buf)
        goto cleanup;
    char *save = buf;
    for (size_t i = 0; i < n; i++) {
        char *comma = strchr(save, ',');
        if (comma)
            *comma = 0;
        while (*save == ' ')
            save++;
        if (ga_cli_parse_double(&v[i], save)) {
            *bad = (long)i;
            goto cleanup;
        }
        save = comma ? comma + 1 : save + strlen(save);
    }
    *out = v;
    v = NULL;
    count = (long)n;
cleanup:
    free(v);
    free(buf);
    return count;
}

/* Split "a,b,c" into n malloc'ed strings (spaces trimmed); the array is NULL-terminated. */
char **ga_cli_split_list(const char *s, size_t *n)
{
    size_t k = 1;
    for (const char *p = s; *p; p++)
        k += *p == ',';
    char **v = calloc(k + 1, sizeof *v);
    if (!v)
        return NULL;
    const char *p = s;
    for (size_t i = 0; i < k; i++) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ') {
            p++;
            len--;
        }
        while (len && p[len - 1] == ' ')
            len--;
        v[i] = malloc(len + 1);
        if (!v[i]) {
            ga_cli_free_list(v);
            return NULL;
        }
        memcpy(v[i], p, len);
        v[i][len] = 0;
        p = e ? e + 1 : p + len;
    }
    *n = k;
    return v;
}

void ga_cli_free_list(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

/* s[0..n) for a terminal: control bytes as \xNN, C1 controls and bidi or invisible
 * characters as \uXXXX, a final newline kept (keep_nl) */
static void terminal_text(FILE *f, const char *s, size_t n, int keep_nl)
{
    size_t h;
    unsigned cp;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned char c1 = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        if (c == '\n' && i + 1 == n && keep_nl)
            fputc('\n', f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else if (c == 0xc2 && c1 >= 0x80 && c1 <= 0x9f) { /* C1 control in UTF-8 */
            fprintf(f, "\\u%04x", c1);
            i++;
        } else if ((h = ga_utf8_hidden(s + i, &cp)) > 0) { /* bidi, invisible */
            fprintf(f, "\\u%04x", cp);
            i += h - 1;
        } else
            fputc(c, f);
    }
}

void ga_cli_err(FILE *err, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    terminal_text(err, buf, strlen(buf), 1);
}

const char *ga_cli_safe(char *out, size_t n, const char *s)
{
    FILE *f = n > 1 ? fmemopen(out, n, "w") : NULL;
    if (!f)
        return "?";
    setvbuf(f, NULL, _IONBF, 0);
    terminal_text(f, s, strlen(s), 0);
    fclose(f); /* (writes the terminating NUL; a longer text is cut) */
    out[n - 1] = 0;
    return out;
}

int ga_cli_take_multi(int argc, char **argv, const char *name, const char **vals, size_t max,
                      size_t *n, const char *cmd, FILE *err)
{
    size_t ln = strlen(name);
    int k = 0;
    *n = 0;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], name)) {
            if (i + 1 >= argc) {
                ga_cli_err(err, "gaussaudit %s: option %s needs a value\n", cmd, name);
                return -1;
            }
            v = argv[++i];
        } else if (!strncmp(argv[i], name, ln) && argv[i][ln] == '=') {
            v = argv[i] + ln + 1;
        } else {
            argv[k++] = argv[i];
            continue;
        }
        if (*n >= max) {
            ga_cli_err(err, "gaussaudit %s: at most %zu %s options\n", cmd, max, name);
            return -1;
        }
        vals[(*n)++] = v;
    }
    return k;
}

int ga_cli_options(int argc, char **argv, ga_cli_opt *opts, const char **positional,
                   const char *cmd, FILE *out, FILE *err, const char *usage)
{
    size_t n = 0;
    return ga_cli_options_multi(argc, argv, opts, positional, positional ? 1 : 0, &n, cmd, out,
                                err, usage);
}

int ga_cli_options_multi(int argc, char **argv, ga_cli_opt *opts, const char **positional,
                         size_t maxpos, size_t *npos_out, const char *cmd, FILE *out, FILE *err,
                         const char *usage)
{
    size_t npos = 0;
    *npos_out = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, out);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0) {
            if (positional && npos < maxpos) {
                positional[npos++] = a;
                *npos_out = npos;
                continue;
            }
            ga_cli_err(err, "gaussaudit %s: unexpected argument '%s' (see gaussaudit %s --help)\n",
                    cmd, a, cmd);
            return -1;
        }
        ga_cli_opt *o = NULL;
        const char *val = NULL;
        for (ga_cli_opt *q = opts; q->name; q++) {
            size_t ln = strlen(q->name);
            if (strncmp(a, q->name, ln) == 0 && (a[ln] == 0 || (a[ln] == '=' && q->value))) {
                o = q;
                val = a[ln] == '=' ? a + ln + 1 : NULL;
                break;
            }
        }
        if (!o) {
            ga_cli_err(err, "gaussaudit %s: unknown argument '%s' (see gaussaudit %s --help)\n",
                    cmd, a, cmd);
            return -1;
        }
        if (o->flag) {
            *o->flag = 1;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc) {
                ga_cli_err(err, "gaussaudit %s: option %s needs a value\n", cmd, o->name);
                return -1;
            }
            val = argv[++i];
        }
        *o->value = val;
    }
    return 0;
}

/* Print a double with the digits its absolute error supports (at least 2, at most 17). */
void ga_cli_print_value(FILE *out, double val, double err)
{
    int digits = 17;
    if (val != 0 && err > 0 && isfinite(err)) {
        double rel = err / fabs(val);
        digits = (int)ceil(-log10(rel));
        if (digits < 2)
            digits = 2;
        if (digits > 17)
            digits = 17;
    } else if (val == 0 && err > 0) {
        fprintf(out, "0");
        return;
    }
    fprintf(out, "%.*g", digits, val);
}

/* ------------------------------------------------------------ cdf */

/* cdf: parse the arguments, compute every point, then print (a failure at one point is an
 * error before anything is printed: never a half-written document) */
typedef struct {
    int certified, json;
    ga_gchisq_opts o;
    ga_cert_opts co;
    const char *sw, *sdof, *snc, *ssig, *soff, *sat;
    double *w, *dof, *nc, *xs;
    long nw, nx;
    double sigma, offset;
} cdf_args;

static void cdf_args_clear(cdf_args *a)
{
    free(a->w);
    free(a->dof);
    free(a->nc);
    free(a->xs);
}

/* a comma list of numbers for option name: its count, or -1 after printing the error */
static long cdf_list(double **v, const char *s, const char *name, long want, FILE *err)
{
    long bad = 0, n = ga_cli_parse_list(v, s, &bad);
    if (n < 0) {
        ga_cli_err(err, "gaussaudit cdf: %s: item %ld is not a finite number in '%s'\n", name,
                   bad + 1, s);
        return -1;
    }
    if (want >= 0 && n != want) {
        ga_cli_err(err, "gaussaudit cdf: %s has %ld items but --weights has %ld\n", name, n, want);
        return -1;
    }
    return n;
}

/* Returns -1 when a holds valid arguments, else the exit status (usage printed for --help,
 * an error message otherwise). */
static int cdf_parse(cdf_args *a, int argc, char **argv, FILE *out, FILE *err)
{
    const char *smeth = NULL, *sfmt = NULL, *seps = NULL, *sdig = NULL;
    memset(a, 0, sizeof *a);
    ga_gchisq_opts_init(&a->o);
    ga_cert_opts_init(&a->co);
    ga_cli_opt opts[] = {{"--weights", &a->sw, NULL}, {"--dof", &a->sdof, NULL},
                         {"--nc", &a->snc, NULL}, {"--sigma", &a->ssig, NULL},
                         {"--offset", &a->soff, NULL}, {"--at", &a->sat, NULL},
                         {"--method", &smeth, NULL}, {"--format", &sfmt, NULL},
                         {"--epsrel", &seps, NULL}, {"--digits", &sdig, NULL},
                         {"--certified", NULL, &a->certified}, {NULL, NULL, NULL}};
    int pr = ga_cli_options(argc, argv, opts, NULL, "cdf", out, err, usage_cdf);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if (!a->sw && !a->ssig) {
        ga_cli_err(err, "gaussaudit cdf: --weights (or --sigma) is required\n");
        return EX_USAGE;
    }
    if (!a->sat) {
        ga_cli_err(err, "gaussaudit cdf: --at X is required\n");
        return EX_USAGE;
    }
    if (sfmt && strcmp(sfmt, "json") && strcmp(sfmt, "text")) {
        ga_cli_err(err, "gaussaudit cdf: --format must be text or json (got '%s')\n", sfmt);
        return EX_USAGE;
    }
    a->json = sfmt && !strcmp(sfmt, "json");
    if (smeth) {
        a->o.method = ga_method_parse(smeth);
        if (a->o.method < 0) {
            ga_cli_err(err, "gaussaudit cdf: --method must be auto, imhof, davies, contour, closed "
                       "or arb (got '%s')\n", smeth);
            return EX_USAGE;
        }
        if (a->o.method == GA_METHOD_ARB)
            a->certified = 1;
        else if (a->certified) {
            ga_cli_err(err, "gaussaudit cdf: --certified uses method arb, not '%s'\n", smeth);
            return EX_USAGE;
        }
    }
    if (sdig) {
        char *end;
        long d = strtol(sdig, &end, 10);
        if (*end || end == sdig || d < 1 || d > 300) {
            ga_cli_err(err, "gaussaudit cdf: --digits must be an integer from 1 to 300 (got "
                       "'%s')\n", sdig);
            return EX_DATAERR;
        }
        if (!a->certified) {
            ga_cli_err(err, "gaussaudit cdf: --digits applies to --certified only\n");
            return EX_USAGE;
        }
        a->co.digits = (int)d;
    }
    if (seps && (ga_cli_parse_double(&a->o.epsrel, seps) || !(a->o.epsrel > 0) || a->o.epsrel >= 1)) {
        ga_cli_err(err, "gaussaudit cdf: --epsrel must be a number in (0, 1) (got '%s')\n", seps);
        return EX_DATAERR;
    }
    if ((a->sw && (a->nw = cdf_list(&a->w, a->sw, "--weights", -1, err)) < 0) ||
        (a->sdof && cdf_list(&a->dof, a->sdof, "--dof", a->nw, err) < 0) ||
        (a->snc && cdf_list(&a->nc, a->snc, "--nc", a->nw, err) < 0))
        return EX_DATAERR;
    if (a->ssig && ga_cli_parse_double(&a->sigma, a->ssig)) {
        ga_cli_err(err, "gaussaudit cdf: --sigma: '%s' is not a finite number\n", a->ssig);
        return EX_DATAERR;
    }
    if (a->soff && ga_cli_parse_double(&a->offset, a->soff)) {
        ga_cli_err(err, "gaussaudit cdf: --offset: '%s' is not a finite number\n", a->soff);
        return EX_DATAERR;
    }
    if ((a->nx = cdf_list(&a->xs, a->sat, "--at", -1, err)) < 0)
        return EX_DATAERR;
    /* domain checks here so that messages name the option as typed */
    for (long j = 0; j < a->nw; j++) {
        if (a->dof && !(a->dof[j] > 0 && a->dof[j] <= GA_GCHISQ_MAX_DOF)) {
            ga_cli_err(err, "gaussaudit cdf: --dof: item %ld must be > 0 and at most %g (got "
                       "%.17g)\n", j + 1, GA_GCHISQ_MAX_DOF, a->dof[j]);
            return EX_DATAERR;
        }
        if (a->nc && !(a->nc[j] >= 0)) {
            ga_cli_err(err, "gaussaudit cdf: --nc: item %ld must be >= 0 (got %.17g)\n", j + 1,
                       a->nc[j]);
            return EX_DATAERR;
        }
    }
    if (a->sigma < 0) {
        ga_cli_err(err, "gaussaudit cdf: --sigma must be >= 0 (got %.17g)\n", a->sigma);
        return EX_DATAERR;
    }
    return -1;
}

static void cdf_print_cert(FILE *out, const cdf_args *a, char **lx, const ga_gchisq_cert *c,
                           const int *st)
{
    ga_jw j;
    ga_jw_init(&j, out);
    if (a->json && a->nx > 1)
        ga_jw_arr(&j, NULL);
    for (long i = 0; i < a->nx; i++) {
        if (a->json) {
            /* "lo"/"hi": outward doubles, round-trip; the decimal bounds as strings */
            ga_jw_obj(&j, NULL);
            ga_jw_num(&j, "x", a->xs[i]);
            ga_jw_str(&j, "x_decimal", lx[i]);
            ga_jw_interval(&j, "cdf", &c[i].cdf, c[i].cdf_lo, c[i].cdf_hi);
            ga_jw_interval(&j, "sf", &c[i].sf, c[i].sf_lo, c[i].sf_hi);
            ga_jw_str(&j, "method", "arb");
            ga_jw_bool(&j, "certified", 1);
            ga_jw_int(&j, "precision_bits", c[i].precision_bits);
            ga_jw_str(&j, "status", st[i] == GA_OK ? "success" : ga_strerror(st[i]));
            ga_jw_obj_end(&j);
        } else {
            fprintf(out, "x = %s\nP[Q <= x] in [%s, %s]\nP[Q >  x] in [%s, %s]\n"
                    "method: arb, certified (%ld bits)\n", lx[i], c[i].cdf_lo, c[i].cdf_hi,
                    c[i].sf_lo, c[i].sf_hi, c[i].precision_bits);
        }
    }
    if (a->json && a->nx > 1)
        ga_jw_arr_end(&j);
}

/* certified: the exact decimal inputs (the same lists as text), every point, then print */
static int cdf_certified(const cdf_args *a, FILE *out, FILE *err)
{
    char **lw = NULL, **ld = NULL, **ln = NULL, **lx = NULL, msg[256];
    size_t k;
    const char *why;
    if (!ga_cert_available(&why)) {
        ga_cli_err(err, "gaussaudit cdf: certified mode: %s\n", why);
        return EX_SOFTWARE;
    }
    int rc = EX_SOFTWARE, *st = calloc((size_t)a->nx, sizeof *st);
    ga_gchisq_cert *c = calloc((size_t)a->nx, sizeof *c);
    ga_gchisq_exact *qe = ga_gchisq_exact_alloc();
    if (!st || !c || !qe || (a->sw && !(lw = ga_cli_split_list(a->sw, &k))) ||
        (a->sdof && !(ld = ga_cli_split_list(a->sdof, &k))) ||
        (a->snc && !(ln = ga_cli_split_list(a->snc, &k))) || !(lx = ga_cli_split_list(a->sat, &k))) {
        ga_cli_err(err, "gaussaudit cdf: out of memory\n");
        goto cleanup;
    }
    if (ga_gchisq_exact_set_classical(qe, (size_t)a->nw, (const char *const *)lw,
                                      (const char *const *)ld, (const char *const *)ln, a->ssig,
                                      a->soff, msg, sizeof msg)) {
        ga_cli_err(err, "gaussaudit cdf: %s\n", msg);
        rc = EX_DATAERR;
        goto cleanup;
    }
    int timed = 0;
    for (long i = 0; i < a->nx; i++) {
        st[i] = ga_gchisq_prob_cert(&c[i], qe, lx[i], &a->co);
        timed |= st[i] == GA_ETIME; /* (the intervals found so far: valid, wider) */
        if (st[i] != GA_OK && st[i] != GA_EPREC && st[i] != GA_ETIME) {
            ga_cli_err(err, "gaussaudit cdf: at x = %s: %s\n", lx[i], ga_strerror(st[i]));
            rc = st[i] == GA_ENOMEM ? EX_SOFTWARE : EX_DATAERR;
            goto cleanup;
        }
        if (st[i] != GA_OK)
            ga_cli_err(err, "gaussaudit cdf: warning at x = %s: %s\n", lx[i], ga_strerror(st[i]));
    }
    cdf_print_cert(out, a, lx, c, st);
    rc = ferror(out) ? EX_IOERR : timed ? GA_CLI_EX_TIMEOUT : EX_OK;
cleanup:
    ga_cli_free_list(lw);
    ga_cli_free_list(ld);
    ga_cli_free_list(ln);
    ga_cli_free_list(lx);
    ga_gchisq_exact_free(qe);
    free(st);
    free(c);
    return rc;
}

static void cdf_print_double(FILE *out, const cdf_args *a, const ga_gchisq_prob *p, const int *st)
{
    ga_jw j;
    ga_jw_init(&j, out);
    if (a->json && a->nx > 1)
        ga_jw_arr(&j, NULL);
    for (long i = 0; i < a->nx; i++) {
        if (a->json) {
            ga_jw_obj(&j, NULL);
            ga_jw_num(&j, "x", a->xs[i]);
            ga_jw_obj(&j, "cdf");
            ga_jw_num(&j, "value", p[i].cdf.val);
            ga_jw_num(&j, "err", p[i].cdf.err);
            ga_jw_obj_end(&j);
            ga_jw_obj(&j, "sf");
            ga_jw_num(&j, "value", p[i].sf.val);
            ga_jw_num(&j, "err", p[i].sf.err);
            ga_jw_obj_end(&j);
            /* a log that could not be computed (or is log 0) is null, never a number */
            ga_jw_num(&j, "log_cdf", p[i].log_cdf);
            ga_jw_num(&j, "log_sf", p[i].log_sf);
            ga_jw_str(&j, "method", ga_method_name(p[i].method));
            ga_jw_bool(&j, "certified", 0);
            ga_jw_str(&j, "status", st[i] == GA_OK ? "success" : ga_strerror(st[i]));
            ga_jw_obj_end(&j);
        } else {
            fprintf(out, "x = %.17g\nP[Q <= x] = ", a->xs[i]);
            ga_cli_print_value(out, p[i].cdf.val, p[i].cdf.err);
            fprintf(out, "  (error estimate %.2g)\nP[Q >  x] = ", p[i].cdf.err);
            ga_cli_print_value(out, p[i].sf.val, p[i].sf.err);
            fprintf(out, "  (error estimate %.2g)\nmethod: %s, estimate (not certified)\n",
                    p[i].sf.err, ga_method_name(p[i].method));
        }
    }
    if (a->json && a->nx > 1)
        ga_jw_arr_end(&j);
}

static int cdf_double(const cdf_args *a, FILE *out, FILE *err)
{
    char msg[256];
    int rc = EX_SOFTWARE, *st = calloc((size_t)a->nx, sizeof *st);
    ga_gchisq_prob *p = calloc((size_t)a->nx, sizeof *p);
    ga_gchisq *q = ga_gchisq_alloc((size_t)a->nw);
    ga_gchisq_work *work = ga_gchisq_work_alloc();
    if (!st || !p || !q || !work) {
        ga_cli_err(err, "gaussaudit cdf: out of memory\n");
        goto cleanup;
    }
    if (ga_gchisq_set_classical(q, (size_t)a->nw, a->w, a->dof, a->nc, a->sigma, a->offset, msg,
                                sizeof msg)) {
        ga_cli_err(err, "gaussaudit cdf: %s\n", msg); /* names the argument as typed */
        rc = EX_DATAERR;
        goto cleanup;
    }
    for (long i = 0; i < a->nx; i++) {
        st[i] = ga_gchisq_prob_eval(&p[i], q, a->xs[i], &a->o, work);
        if (st[i] == GA_EINVAL || st[i] == GA_ENOMEM ||
            (st[i] == GA_EDOM && p[i].method == GA_METHOD_AUTO)) {
            ga_cli_err(err, "gaussaudit cdf: at x = %.17g: %s\n", a->xs[i], ga_strerror(st[i]));
            rc = st[i] == GA_ENOMEM ? EX_SOFTWARE : EX_DATAERR;
            goto cleanup;
        }
        if (st[i] == GA_EDOM) { /* the user chose a method that cannot do this form */
            ga_cli_err(err, "gaussaudit cdf: method '%s' does not apply to this form (%s)\n",
                       ga_method_name(a->o.method), ga_strerror(st[i]));
            rc = EX_USAGE;
            goto cleanup;
        }
        if (st[i] != GA_OK)
            ga_cli_err(err, "gaussaudit cdf: warning at x = %.17g: %s\n", a->xs[i],
                       ga_strerror(st[i]));
    }
    cdf_print_double(out, a, p, st);
    rc = ferror(out) ? EX_IOERR : EX_OK;
cleanup:
    free(st);
    free(p);
    ga_gchisq_free(q);
    ga_gchisq_work_free(work);
    return rc;
}

static int cmd_cdf(int argc, char **argv, FILE *out, FILE *err)
{
    cdf_args a;
    int rc = cdf_parse(&a, argc, argv, out, err);
    if (rc < 0) {
        a.co.deadline = ga_cli_deadline();
        rc = a.certified ? cdf_certified(&a, out, err) : cdf_double(&a, out, err);
    }
    cdf_args_clear(&a);
    return rc;
}

static int dispatch(int argc, char **argv, FILE *out, FILE *err);

/* ------------------------------------------------------------ the time budget */

static double soft_deadline, budget_end;
static char *volatile temp_path;
static char stop_msg[200];
static size_t stop_len;

double ga_cli_deadline(void)
{
    return soft_deadline;
}

double ga_cli_budget_end(void)
{
    return budget_end;
}

double ga_cli_remaining(void)
{
    double r = soft_deadline - ga_monotonic();
    return r > 1e-3 ? r : 1e-3;
}

/* a signal that ends the process: no temporary report is left behind */
static void end_signal(int sig)
{
    char *t = temp_path;
    if (t)
        unlink(t); /* (async-signal-safe) */
    if (sig == SIGALRM) {
        ssize_t w = write(2, stop_msg, stop_len);
        (void)w;
        _exit(GA_CLI_EX_TIMEOUT);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void ga_cli_temp_guard(char *path)
{
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    temp_path = path;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = path ? end_signal : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < 3; k++)
        sigaction(sigs[k], &sa, NULL);
}

/* Take --timeout SECONDS (or --timeout=SECONDS) out of argv and arm the budget: 0, or -1 (a
 * missing value) or -2 (a value out of range) after the message. The soft deadline leaves the output 15% of the budget (at most 15 s). */
static int take_budget(int *argc, char **argv, const char *cmd, FILE *err)
{
    const char *v = NULL;
    size_t n = 0;
    if ((*argc = ga_cli_take_multi(*argc, argv, "--timeout", &v, 1, &n, cmd, err)) < 0)
        return -1;
    double b = GA_CLI_DEFAULT_BUDGET;
    if (v && (ga_cli_parse_double(&b, v) || !(b > 0 && b <= GA_CLI_MAX_BUDGET))) {
        ga_cli_err(err, "gaussaudit %s: --timeout must be a number of seconds > 0 and at most "
                   "%g (got '%s')\n", cmd, GA_CLI_MAX_BUDGET, v);
        return -2; /* (a value out of range: a data error, as for the other numbers) */
    }
    double t0 = ga_monotonic();
    soft_deadline = t0 + b - fmin(0.15 * b, 15.0);
    budget_end = t0 + b;
    stop_len = (size_t)snprintf(stop_msg, sizeof stop_msg, "gaussaudit %s: stopped by the time "
                                "budget (--timeout %g s%s) inside a step that could not be "
                                "interrupted; no report written\n", cmd, b,
                                v ? "" : ", the default");
    if (stop_len >= sizeof stop_msg)
        stop_len = sizeof stop_msg - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = end_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    double t = b + GA_CLI_GRACE;
    struct itimerval it = {{0, 0}, {(time_t)t, (suseconds_t)((t - floor(t)) * 1e6)}};
    setitimer(ITIMER_REAL, &it, NULL);
    return 0;
}

int ga_cli_exit_status(int st)
{
    return st == GA_EIO ? EX_NOINPUT : st == GA_ENOMEM ? EX_SOFTWARE
         : st == GA_EDEP ? EX_UNAVAILABLE : st == GA_ETIME ? GA_CLI_EX_TIMEOUT : EX_DATAERR;
}

int ga_cli_main(int argc, char **argv, FILE *out, FILE *err)
{
    int rc = dispatch(argc, argv, out, err);
    /* a full disk or a closed pipe on standard output is an error, not a success */
    errno = 0;
    if (fflush(out) != 0 || ferror(out)) {
        ga_cli_err(err, "gaussaudit: error writing the output: %s\n",
                   errno ? strerror(errno) : "write error");
        rc = EX_IOERR;
    }
    return rc;
}

static int dispatch(int argc, char **argv, FILE *out, FILE *err)
{
    if (argc < 2) {
        fputs(usage_main, err);
        return EX_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage_main, out);
        return EX_OK;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        fprintf(out, "gaussaudit %s\n", GA_VERSION_STRING);
        return EX_OK;
    }
    /* every command: the time budget (argv[0..1] are the program and the command) */
    int rest = argc - 2, tb = take_budget(&rest, argv + 2, cmd, err);
    if (tb)
        return tb == -2 ? EX_DATAERR : EX_USAGE;
    argc = rest + 2;
    if (!strcmp(cmd, "cdf"))
        return cmd_cdf(argc - 2, argv + 2, out, err);
    if (!strcmp(cmd, "calibrate"))
        return ga_cmd_calibrate(argc - 2, argv + 2, out, err);
    if (!strcmp(cmd, "audit"))
        return ga_cmd_audit(argc - 2, argv + 2, out, err);
    if (!strcmp(cmd, "merge"))
        return ga_cmd_merge(argc - 2, argv + 2, out, err);
    if (!strcmp(cmd, "delta"))
        return ga_cmd_delta(argc - 2, argv + 2, out, err);
    if (!strcmp(cmd, "epsilon"))
        return ga_cmd_epsilon(argc - 2, argv + 2, out, err);
    if (!strcmp(cmd, "rdp"))
        return ga_cmd_rdp(argc - 2, argv + 2, out, err);
    ga_cli_err(err, "gaussaudit: unknown command '%s' (see gaussaudit help)\n", cmd);
    return EX_USAGE;
}

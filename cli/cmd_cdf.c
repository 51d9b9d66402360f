/*
 * cmd_cdf.c - gaussaudit cdf: the generalized chi-square distribution at given points, in
 * double precision with error estimates or (--certified) as outward-rounded intervals.
 * Every point is computed before anything is printed: a failure at one point is an error,
 * never a half-written document.
 */
#include "cli/cli.h"
#include "reports/report.h"
#include "numerics/numerics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    ga_cli_opt opts[] = {GA_OPT_VALUE("--weights", &a->sw), GA_OPT_VALUE("--dof", &a->sdof),
                         GA_OPT_VALUE("--nc", &a->snc), GA_OPT_VALUE("--sigma", &a->ssig),
                         GA_OPT_VALUE("--offset", &a->soff), GA_OPT_VALUE("--at", &a->sat),
                         GA_OPT_VALUE("--method", &smeth), GA_OPT_VALUE("--format", &sfmt),
                         GA_OPT_VALUE("--epsrel", &seps), GA_OPT_VALUE("--digits", &sdig),
                         GA_OPT_FLAG("--certified", &a->certified), GA_OPT_END};
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
            return EX_USAGE;
        }
        if (!a->certified) {
            ga_cli_err(err, "gaussaudit cdf: --digits applies to --certified only\n");
            return EX_USAGE;
        }
        a->co.digits = (int)d;
    }
    if (seps && (ga_cli_parse_double(&a->o.epsrel, seps) || !(a->o.epsrel > 0) || a->o.epsrel >= 1)) {
        ga_cli_err(err, "gaussaudit cdf: --epsrel must be a number in (0, 1) (got '%s')\n", seps);
        return EX_USAGE;
    }
    if ((a->sw && (a->nw = cdf_list(&a->w, a->sw, "--weights", -1, err)) < 0) ||
        (a->sdof && cdf_list(&a->dof, a->sdof, "--dof", a->nw, err) < 0) ||
        (a->snc && cdf_list(&a->nc, a->snc, "--nc", a->nw, err) < 0))
        return EX_USAGE;
    if (a->ssig && ga_cli_parse_double(&a->sigma, a->ssig)) {
        ga_cli_err(err, "gaussaudit cdf: --sigma: '%s' is not a finite number\n", a->ssig);
        return EX_USAGE;
    }
    if (a->soff && ga_cli_parse_double(&a->offset, a->soff)) {
        ga_cli_err(err, "gaussaudit cdf: --offset: '%s' is not a finite number\n", a->soff);
        return EX_USAGE;
    }
    if ((a->nx = cdf_list(&a->xs, a->sat, "--at", -1, err)) < 0)
        return EX_USAGE;
    /* domain checks here so that messages name the option as typed */
    for (long j = 0; j < a->nw; j++) {
        if (a->dof && !(a->dof[j] > 0 && a->dof[j] <= GA_GCHISQ_MAX_DOF)) {
            ga_cli_err(err, "gaussaudit cdf: --dof: item %ld must be > 0 and at most %g (got "
                       "%.17g)\n", j + 1, GA_GCHISQ_MAX_DOF, a->dof[j]);
            return EX_USAGE;
        }
        if (a->nc && !(a->nc[j] >= 0)) {
            ga_cli_err(err, "gaussaudit cdf: --nc: item %ld must be >= 0 (got %.17g)\n", j + 1,
                       a->nc[j]);
            return EX_USAGE;
        }
    }
    if (a->sigma < 0) {
        ga_cli_err(err, "gaussaudit cdf: --sigma must be >= 0 (got %.17g)\n", a->sigma);
        return EX_USAGE;
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

int ga_cmd_cdf(int argc, char **argv, FILE *out, FILE *err)
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

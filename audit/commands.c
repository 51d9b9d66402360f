/*
 * commands.c - the spec commands of the command line: delta, epsilon, rdp, audit, merge
 * (doc/commands.md). Each loads a spec, reduces every neighbouring pair once and reports both
 * directions. Exit statuses: 0, 64 usage, 65 data (spec or pair errors, with file, line
 * and key path), 66 spec not found, 70 internal.
 */
#include "audit/cli.h"
#include "reports/report.h"
#include "audit/mechanisms.h"
#include "numerics/internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A loaded spec with its reduced pairs (NULL: a pair cheap to reduce again, which is not
 * kept: read through use()). */
typedef struct {
    ga_spec spec;
    ga_pair **pairs;
    size_t n;
    size_t skipped;   /* pairs the time budget left out (built or reduced: not computed) */
} loaded_t;

/* has the command's time budget run out (its soft deadline, audit/cli.h)? */
static int out_of_time(void)
{
    return ga_expired(ga_cli_deadline());
}

/* the double path's options with the budget's deadline (a long evaluation stops there) */
static const ga_gchisq_opts *cli_gopts(void)
{
    static ga_gchisq_opts go;
    ga_gchisq_opts_init(&go);
    go.deadline = ga_cli_deadline();
    return &go;
}

/* a status for a message: ga_strerror, and for GA_EDEP what could not be loaded */
static const char *status_text(int st)
{
    static char b[700];
    const char *why;
    if (st != GA_EDEP || ga_cert_available(&why))
        return ga_strerror(st);
    snprintf(b, sizeof b, "%s: %s", ga_strerror(st), why);
    return b;
}

/* the line that says how many pairs or values the time budget left out */
static void say_budget(FILE *err, const char *cmd, size_t n, const char *what)
{
    ga_cli_err(err, "gaussaudit %s: the time budget (--timeout) ran out: %zu %s not computed "
               "(exit status 2)\n", cmd, n, what);
}

/* pair i of l for reading: kept, or reduced again into *own, which the caller frees (NULL:
 * no memory, said on err as command cmd when err is non-NULL) */
static const ga_pair *use(const loaded_t *l, size_t i, ga_pair **own, FILE *err, const char *cmd)
{
    const ga_pair *p = ga_mech_pair_use(l->pairs[i], &l->spec.pairs[i], own);
    if (!p && err)
        ga_cli_err(err, "gaussaudit %s: out of memory\n", cmd);
    return p;
}

/* why pair i's supports are what they are (ga_pair_support_reason; at most 511 bytes) */
static const char *support_note(char b[512], const loaded_t *l, size_t i)
{
    ga_pair *own;
    const ga_pair *p = use(l, i, &own, NULL, NULL);
    snprintf(b, 512, "%s", p ? ga_pair_support_reason(p) : "(out of memory)");
    ga_pair_free(own);
    return b;
}

static void loaded_clear(loaded_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        ga_pair_free(l->pairs[i]);
    free(l->pairs);
    ga_spec_clear(&l->spec);
}

/* Load and reduce; returns an exit status (0 on success) after printing the error. */
static int load_spec(loaded_t *l, const char *path, const char *cmd, const ga_spec_opts *so,
                     FILE *err)
{
    char msg[1024];
    memset(l, 0, sizeof *l);
    ga_spec_opts o = *so;
    o.deadline = ga_cli_deadline(); /* (the builders stop there) */
    int st = ga_mech_load(&l->spec, path, &o, msg, sizeof msg);
    if (st) {
        ga_cli_err(err, "gaussaudit %s: %s\n", cmd, msg);
        return ga_cli_exit_status(st);
    }
    l->pairs = calloc(l->spec.npairs, sizeof *l->pairs);
    if (!l->pairs)
        return EX_SOFTWARE;
    if (l->spec.truncated)
        l->skipped = l->spec.planned > l->spec.npairs ? l->spec.planned - l->spec.npairs : 1;
    for (size_t i = 0; i < l->spec.npairs; i++) {
        if (out_of_time()) {
            l->skipped += l->spec.npairs - i;
            break;
        }
        st = ga_mech_pair_reduce(&l->pairs[i], &l->spec.pairs[i], msg, sizeof msg);
        if (st) {
            ga_cli_err(err, "gaussaudit %s: %s: %s\n", cmd, path, msg);
            return st == GA_ENOMEM ? EX_SOFTWARE : EX_DATAERR;
        }
        if (ga_mech_pair_rebuildable(&l->spec.pairs[i])) {
            ga_pair_free(l->pairs[i]); /* checked; reduced again where used */
            l->pairs[i] = NULL;
        }
        l->n = i + 1;
    }
    return EX_OK;
}

static const char *support_name(int s)
{
    return s == GA_SUPPORT_FULL ? "full" : s == GA_SUPPORT_COMMON ? "common" : "differ";
}

/* the proven-worst-case label of specs with a universe bound */
static void print_verified(FILE *out, const ga_spec *s)
{
    if (s->verified)
        fprintf(out, "verification: the audited pairs include the proven %s\n", s->verified_note);
}

/* a user string for the terminal tables (escaped; a buffer of its own per use) */
#define SAFE(s) ga_cli_safe((char[GA_SPEC_NAME_LEN * 2]){0}, GA_SPEC_NAME_LEN * 2, (s))

/* the opening of a spec command's JSON document: {"spec", "verification", ... */
static void json_head(ga_jw *j, const ga_spec *s)
{
    ga_jw_obj(j, NULL);
    ga_jw_str(j, "spec", s->name);
    ga_jw_bool(j, "verification", s->verified);
    if (s->verified)
        ga_jw_str(j, "verification_note", s->verified_note);
}

/* a status in JSON: "success", or the message */
static void json_status(ga_jw *j, int st)
{
    ga_jw_str(j, "status", st == GA_OK ? "success" : ga_strerror(st));
}



static int parse_format(const char *f, const char *cmd, FILE *err)
{
    if (!f || !strcmp(f, "text"))
        return 0;
    if (!strcmp(f, "json"))
        return 1;
    ga_cli_err(err, "gaussaudit %s: --format must be text or json (got '%s')\n", cmd, f);
    return -1;
}

static void print_text_value(FILE *out, const ga_result *r)
{
    if (isinf(r->val)) {
        fprintf(out, "inf"); /* exactly infinite: no error to state */
        return;
    }
    ga_cli_print_value(out, r->val, r->err);
    fprintf(out, " (+- %.2g)", r->err);
}

/* the pair column's width: the longest name (tables widen, they never cut a name) */
static int name_width(const ga_spec *s)
{
    size_t w = 28;
    for (size_t i = 0; i < s->npairs; i++)
        if (strlen(s->pairs[i].name) > w)
            w = strlen(s->pairs[i].name);
    return (int)(w > 1000 ? 1000 : w);
}

/* --certified / --digits: fills co; returns nonzero after printing an error */
static int cert_options(ga_cert_opts *co, int certified, const char *sdig, const char *cmd,
                        FILE *err)
{
    ga_cert_opts_init(co);
    if (!sdig)
        return 0;
    if (!certified) {
        ga_cli_err(err, "gaussaudit %s: --digits applies to --certified only\n", cmd);
        return -1;
    }
    char *end;
    long d = strtol(sdig, &end, 10);
    if (*end || end == sdig || d < 1 || d > 300) {
        ga_cli_err(err, "gaussaudit %s: --digits must be an integer from 1 to 300 (got '%s')\n",
                cmd, sdig);
        return -1;
    }
    co->digits = (int)d;
    return 0;
}


/* ------------------------------------------------------------ delta */

/* delta --profile: N-point profile per pair on the pair's own grid */
static int profile_cmd(const char *spec, const ga_spec_opts *so, size_t np, int json, FILE *out,
                       FILE *err)
{
    loaded_t l;
    int rc = load_spec(&l, spec, "delta", so, err);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    double *eps = malloc(np * sizeof *eps);
    if (!rc && (!w || !eps))
        rc = EX_SOFTWARE;
    if (rc)
        goto cleanup;
    ga_jw j;
    ga_jw_init(&j, out);
    int nfail = 0;
    if (json) {
        ga_jw_obj(&j, NULL);
        ga_jw_str(&j, "spec", l.spec.name);
        ga_jw_arr(&j, "profiles");
    } else {
        fprintf(out, "spec: %s\n", SAFE(l.spec.name));
    }
    for (size_t i = 0; i < l.n; i++) {
        ga_pair *own;
        const ga_pair *p = use(&l, i, &own, err, "delta");
        if (!p) {
            rc = EX_SOFTWARE;
            goto cleanup;
        }
        if (out_of_time()) {
            ga_pair_free(own);
            l.skipped += l.n - i;
            break;
        }
        ga_pair_profile_grid(eps, np, p, cli_gopts(), w);
        if (json) {
            ga_jw_obj(&j, NULL);
            ga_jw_str(&j, "name", l.spec.pairs[i].name);
            ga_jw_arr(&j, "points");
        } else {
            fprintf(out, "pair: %s\n%-24s %-32s %s\n", SAFE(l.spec.pairs[i].name), "epsilon",
                    "delta_XY", "delta_YX");
        }
        for (size_t k = 0; k < np; k++) {
            ga_delta D;
            int st = ga_pair_delta(&D, p, eps[k], GA_DELTA_AUTO, cli_gopts(), w);
            int ok = st == GA_OK || st == GA_ETOL; /* a failed point has no number */
            nfail += !ok;
            if (json) {
                ga_jw_obj(&j, NULL);
                ga_jw_num(&j, "epsilon", eps[k]);
                if (ok) {
                    ga_jw_result(&j, "xy", &D.xy);
                    ga_jw_result(&j, "yx", &D.yx);
                } else {
                    ga_jw_null(&j, "xy");
                    ga_jw_null(&j, "yx");
                }
                if (st != GA_OK)
                    json_status(&j, st);
                ga_jw_obj_end(&j);
            } else if (ok) {
                fprintf(out, "%-24.17g ", eps[k]);
                print_text_value(out, &D.xy);
                fprintf(out, "   ");
                print_text_value(out, &D.yx);
                fprintf(out, "\n");
            } else {
                fprintf(out, "%-24.17g not computed: %s\n", eps[k], ga_strerror(st));
            }
        }
        if (json) {
            ga_jw_arr_end(&j);
            ga_jw_obj_end(&j);
        }
        ga_pair_free(own);
    }
    if (json) {
        ga_jw_arr_end(&j);
        ga_jw_bool(&j, "certified", 0);
        ga_jw_obj_end(&j);
    }
    if (nfail)
        ga_cli_err(err, "gaussaudit delta: %d profile points could not be computed\n", nfail);
    if (l.skipped)
        say_budget(err, "delta", l.skipped, "pairs");
    rc = ferror(out) ? EX_IOERR : l.skipped ? GA_CLI_EX_TIMEOUT : nfail ? EX_DATAERR : EX_OK;
    goto cleanup;
cleanup:
    free(eps);
    ga_gchisq_work_free(w);
    loaded_clear(&l);
    return rc;
}

static const char *usage_delta =
    "usage: gaussaudit delta SPEC.yaml (--epsilon E[,E2,..] | --profile [N])\n"
    "                        [--method auto|direct|tails] [--timeout SECONDS]\n"
    "                        [--certified [--digits N]] [--format text|json]\n"
    "\n"
    "delta_{X,Y}(eps) and delta_{Y,X}(eps), both directions, for every neighbouring pair of\n"
    "the spec (X: output on D, Y: output on the neighbour). Estimates with error estimates.\n"
    "  --profile N  the privacy profile on N points (default 200) per pair: eps = 0 (the\n"
    "            total variation distance) and N - 1 log-spaced points up to the eps where\n"
    "            delta = 1e-12, chosen from the pair; one reduction serves all points\n"
    "  --method  auto (default) and direct: one Bromwich integral per direction,\n"
    "            delta = (1/pi) Im int M(z) e^{-z eps}/(z (z+1)) dz (keeps relative accuracy\n"
    "            for tiny delta); tails: P_X[l > eps] - e^eps P_Y[l > eps] (cross-check)\n"
    "  --certified  intervals that provably contain delta for the exact decimal inputs of\n"
    "            the spec: a certified integral (Arb) for the pair defined by the floating\n"
    "            eigendecomposition, widened by TV bounds (Pinsker, KL in ball arithmetic)\n"
    "            to the true pair, and intersected with a bound whose linear-algebra part\n"
    "            does not grow with e^eps (large eps); equal covariances: the closed form on\n"
    "            the exact inputs; --digits N asks for relative width 10^-N (default 17)\n"
    "  --format  json: {\"spec\", \"pairs\": [{\"name\", \"epsilon\", \"xy\": {\"value\", \"err\"}\n"
    "            or certified {\"lo\", \"hi\", \"lo_decimal\", \"hi_decimal\"}, \"yx\": {...},\n"
    "            \"method\", \"certified\", \"precision_bits\", \"support\", \"note\"}]}; \"lo\"/\"hi\"\n"
    "            are the outward doubles (round-trip), the decimal bounds are strings\n"
    "  --allow-path DIR  also read files (CSV datasets) the spec names inside DIR; by default a\n"
    "            spec reads only regular files inside its own directory tree (repeatable)\n"
    "  --timeout SECONDS  the time budget (default 600 s): what is not finished by then is\n"
    "            reported as not computed, with exit status 2\n"
    ;

int ga_cmd_delta(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    ga_spec_opts so = {.allow_paths = allow};
    if ((argc = ga_cli_take_multi(argc, argv, "--allow-path", allow, GA_SPEC_MAX_ALLOW,
                                  &so.nallow, "delta", err)) < 0)
        return EX_USAGE;
    const char *spec = NULL, *seps = NULL, *smeth = NULL, *sfmt = NULL, *sdig = NULL,
               *sprof = NULL;
    int certified = 0;
    ga_cli_opt opts[] = {{"--epsilon", &seps, NULL}, {"--method", &smeth, NULL},
                         {"--format", &sfmt, NULL}, {"--digits", &sdig, NULL},
                         {"--profile", &sprof, NULL}, {"--certified", NULL, &certified},
                         {NULL, NULL, NULL}};
    int json;
    /* --profile takes an optional count: --profile without a number after it (at the end, or
     * followed by another option) means 200 */
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--profile") && (i + 1 == argc || argv[i + 1][0] == '-'))
            argv[i] = "--profile=200";
    int pr = ga_cli_options(argc, argv, opts, &spec, "delta", out, err, usage_delta);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if ((json = parse_format(sfmt, "delta", err)) < 0)
        return EX_USAGE;
    if (!spec || (!seps == !sprof)) {
        ga_cli_err(err, "gaussaudit delta: %s (see gaussaudit delta --help)\n",
                !spec ? "SPEC.yaml is required"
                      : "give exactly one of --epsilon E and --profile N");
        return EX_USAGE;
    }
    if (sprof) {
        char *end;
        long np = strtol(sprof, &end, 10);
        if (*end || np < 2 || np > 100000) {
            ga_cli_err(err, "gaussaudit delta: --profile N needs 2 <= N <= 100000 (got '%s')\n", sprof);
            return EX_DATAERR;
        }
        if (certified) {
            ga_cli_err(err, "gaussaudit delta: --profile is an estimate; use --epsilon for certified values\n");
            return EX_USAGE;
        }
        return profile_cmd(spec, &so, (size_t)np, json, out, err);
    }
    int method = GA_DELTA_AUTO;
    if (smeth) {
        if (!strcmp(smeth, "direct"))
            method = GA_DELTA_DIRECT;
        else if (!strcmp(smeth, "tails"))
            method = GA_DELTA_TAILS;
        else if (strcmp(smeth, "auto")) {
            ga_cli_err(err, "gaussaudit delta: --method must be auto, direct or tails (got '%s')\n",
                    smeth);
            return EX_USAGE;
        }
    }
    ga_cert_opts co;
    if (cert_options(&co, certified, sdig, "delta", err))
        return sdig && certified ? EX_DATAERR : EX_USAGE;
    co.deadline = ga_cli_deadline();
    double *eps = NULL;
    long bad, ne = ga_cli_parse_list(&eps, seps, &bad);
    if (ne < 0) {
        ga_cli_err(err, "gaussaudit delta: --epsilon: item %ld is not a finite number in '%s'\n",
                bad + 1, seps);
        return EX_DATAERR;
    }
    size_t nes;
    char **etxt = ga_cli_split_list(seps, &nes);
    if (!etxt) {
        free(eps);
        return EX_SOFTWARE;
    }
    loaded_t l;
    int rc = load_spec(&l, spec, "delta", &so, err);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    if (!rc && !w)
        rc = EX_SOFTWARE;
    if (rc)
        goto cleanup;
    /* a pair that fails is a row with a status (no number) in a complete document, and the
     * exit status says so */
    ga_jw jw;
    ga_jw_init(&jw, out);
    int nw = name_width(&l.spec);
    if (json) {
        json_head(&jw, &l.spec);
        ga_jw_arr(&jw, "pairs");
    } else {
        fprintf(out, "spec: %s\n", SAFE(l.spec.name));
        print_verified(out, &l.spec);
        fprintf(out, "%-*s %-10s %-32s %-32s\n", nw, "pair", "epsilon", "delta_XY", "delta_YX");
    }
    int warned = 0, nfail = 0, ntime = 0;
    for (size_t i = 0; i < l.n; i++) {
        ga_pair *own;
        const ga_pair *p = use(&l, i, &own, err, "delta");
        if (!p) {
            rc = EX_SOFTWARE;
            goto cleanup;
        }
        int sup = ga_pair_support(p);
        for (long k = 0; k < ne; k++) {
            ga_delta_cert C;
            ga_delta D;
            int st, ok;
            if (out_of_time()) {
                st = GA_ETIME; /* (not started: the budget ran out) */
                ok = 0;
            } else if (certified) {
                ga_spec_pair_view v;
                st = ga_spec_pair_view_init(&v, &l.spec.pairs[i], 1);
                if (st == GA_OK)
                    st = ga_pair_delta_cert(&C, p, v.in, v.txt, etxt[k], &co);
                ga_spec_pair_view_clear(&v);
                ok = st == GA_OK || st == GA_EPREC; /* EPREC: valid, wider than asked */
            } else {
                st = ga_pair_delta(&D, p, eps[k], method, cli_gopts(), w);
                ok = st == GA_OK || st == GA_ETOL; /* ETOL: valid, larger error estimate */
            }
            if (st == GA_ETIME) {
                ntime++; /* (not started, or a certified interval cut short) */
            } else if (!ok) {
                nfail++;
                ga_cli_err(err, "gaussaudit delta: %s at eps = %s: %s%s\n", l.spec.pairs[i].name,
                           etxt[k], certified ? "certified mode: " : "",
                           certified && st == GA_EDOM ? "not available for singular covariances "
                                                        "with a common support"
                                                      : status_text(st));
            } else if (st != GA_OK && !warned++) {
                ga_cli_err(err, "gaussaudit delta: warning: %s\n", ga_strerror(st));
            }
            if (json) {
                ga_jw_obj(&jw, NULL);
                ga_jw_str(&jw, "name", l.spec.pairs[i].name);
                ga_jw_num(&jw, "epsilon", eps[k]);
                if (certified)
                    ga_jw_str(&jw, "epsilon_decimal", etxt[k]);
                if (!ok) {
                    ga_jw_null(&jw, "xy");
                    ga_jw_null(&jw, "yx");
                } else if (certified) {
                    ga_jw_interval(&jw, "xy", &C.xy, C.xy_lo, C.xy_hi);
                    ga_jw_interval(&jw, "yx", &C.yx, C.yx_lo, C.yx_hi);
                } else {
                    ga_jw_result(&jw, "xy", &D.xy);
                    ga_jw_result(&jw, "yx", &D.yx);
                }
                ga_jw_str(&jw, "method", certified ? "arb" : D.method == GA_DELTA_TAILS ? "tails" : "direct");
                ga_jw_bool(&jw, "certified", certified);
                if (certified && ok) {
                    ga_jw_int(&jw, "precision_bits", C.precision_bits);
                    ga_jw_num(&jw, "la_bound", fmax(C.la_bound_xy, C.la_bound_yx));
                }
                ga_jw_str(&jw, "support", support_name(sup));
                if (sup != GA_SUPPORT_FULL)
                    ga_jw_str(&jw, "note", ga_pair_support_reason(p));
                json_status(&jw, st);
                ga_jw_obj_end(&jw);
            } else if (!ok) {
                fprintf(out, "%-*s %-10s not computed: %s\n", nw, SAFE(l.spec.pairs[i].name), etxt[k],
                        ga_strerror(st));
            } else if (certified) {
                fprintf(out, "%-*s %-10s [%s, %s]   [%s, %s]\n", nw, SAFE(l.spec.pairs[i].name),
                        etxt[k], C.xy_lo, C.xy_hi, C.yx_lo, C.yx_hi);
            } else {
                fprintf(out, "%-*s %-10g ", nw, SAFE(l.spec.pairs[i].name), eps[k]);
                print_text_value(out, &D.xy);
                fprintf(out, "   ");
                print_text_value(out, &D.yx);
                fprintf(out, "\n");
                if (sup != GA_SUPPORT_FULL && k == 0)
                    fprintf(out, "  note: %s\n", ga_pair_support_reason(p));
            }
        }
        ga_pair_free(own);
    }
    if (json) {
        ga_jw_arr_end(&jw);
        ga_jw_obj_end(&jw);
    } else if (certified) {
        fprintf(out, "certified intervals (Arb; exact decimal inputs)\n");
    } else {
        fprintf(out, "estimates (not certified); method: %s\n",
                method == GA_DELTA_TAILS ? "two tails" : "direct integral");
    }
    if (ntime || l.skipped)
        say_budget(err, "delta", (size_t)ntime + l.skipped * (size_t)ne, "values");
    rc = ferror(out) ? EX_IOERR : ntime || l.skipped ? GA_CLI_EX_TIMEOUT : nfail ? EX_DATAERR : EX_OK;
    goto cleanup;
cleanup:
    free(eps);
    ga_cli_free_list(etxt);
    ga_gchisq_work_free(w);
    loaded_clear(&l);
    return rc;
}

/* ------------------------------------------------------------ epsilon */

static const char *usage_epsilon =
    "usage: gaussaudit epsilon SPEC.yaml --delta D [--certified] [--format text|json]\n"
    "                          [--allow-path DIR] [--timeout SECONDS]\n"
    "\n"
    "The smallest eps >= 0 with max(delta_XY, delta_YX)(eps) <= D, per pair and overall\n"
    "(the maximum over pairs), and which direction binds. Estimates with error estimates;\n"
    "--certified gives an interval [lo, hi] with certified max delta(hi) <= D and, when\n"
    "lo > 0, certified max delta(lo) > D, so the exact smallest eps lies in it.\n"
    "  --format  json: {\"spec\", \"delta\", \"pairs\": [{\"name\", \"epsilon\": {\"value\",\n"
    "            \"err\"}, \"binding\": \"xy\"|\"yx\"|\"none\"}], \"overall\": {\"epsilon\", \"pair\"}}\n"
    "  --timeout SECONDS  the time budget (default 600 s): what is not finished by then is\n"
    "            reported as not computed, with exit status 2\n";

/* one pair's eps(delta): the double estimate or the certified bracket, with its status */
typedef struct {
    int status, dir;
    ga_result e;       /* double path */
    ga_interval iv;    /* certified path */
} eps_row;

static void eps_compute(eps_row *row, const loaded_t *l, size_t i, double delta, const char *sdel,
                        int certified, ga_gchisq_work *w)
{
    memset(row, 0, sizeof *row);
    if (out_of_time()) {
        row->status = GA_ETIME;
        return;
    }
    ga_cert_opts co;
    ga_cert_opts_init(&co);
    co.deadline = ga_cli_deadline();
    ga_pair *own;
    const ga_pair *p = use(l, i, &own, NULL, NULL); /* (the row says so) */
    if (!p) {
        row->status = GA_ENOMEM;
    } else if (certified) {
        ga_spec_pair_view v;
        row->status = ga_spec_pair_view_init(&v, &l->spec.pairs[i], 1);
        if (row->status == GA_OK)
            row->status = ga_pair_epsilon_cert(&row->iv, &row->dir, p, v.in, v.txt, sdel, &co);
        ga_spec_pair_view_clear(&v);
    } else {
        row->status = ga_pair_epsilon(&row->e, &row->dir, p, delta, cli_gopts(), w);
    }
    ga_pair_free(own);
}

/* a row that failed has no number: the statuses that still give one are OK, ETOL (double,
 * honest error), EPREC (certified: a valid bracket, wider than asked, when its upper end is
 * finite) and EDOM (supports differ: eps = inf) */
static int eps_ok(const eps_row *row, int certified)
{
    return row->status == GA_OK || row->status == GA_EDOM ||
           (certified ? row->status == GA_EPREC && isfinite(row->iv.hi) : row->status == GA_ETOL);
}

static void eps_print_json(FILE *out, const loaded_t *l, const eps_row *rows, double delta,
                           int certified, size_t wi, int all_ok)
{
    ga_jw j;
    ga_jw_init(&j, out);
    json_head(&j, &l->spec);
    ga_jw_num(&j, "delta", delta);
    ga_jw_arr(&j, "pairs");
    for (size_t i = 0; i < l->n; i++) {
        const eps_row *r = &rows[i];
        ga_jw_obj(&j, NULL);
        ga_jw_str(&j, "name", l->spec.pairs[i].name);
        if (!eps_ok(r, certified))
            ga_jw_null(&j, "epsilon");
        else if (certified) /* an infinite bracket (supports differ): nulls with "infinite" */
            ga_jw_interval(&j, "epsilon", &r->iv, NULL, NULL);
        else
            ga_jw_result(&j, "epsilon", &r->e);
        ga_jw_str(&j, "binding", r->status == GA_EDOM ? "both" : r->dir == 1 ? "xy"
                                 : r->dir == 2 ? "yx" : "none");
        ga_jw_str(&j, "status", r->status == GA_OK ? "success"
                                : r->status == GA_EDOM ? "infinite: the supports differ"
                                                       : ga_strerror(r->status));
        char note[512];
        if (r->status == GA_EDOM)
            ga_jw_str(&j, "note", support_note(note, l, i));
        ga_jw_obj_end(&j);
    }
    ga_jw_arr_end(&j);
    if (!all_ok) {
        ga_jw_null(&j, "overall");
    } else {
        ga_jw_obj(&j, "overall");
        if (certified)
            ga_jw_interval(&j, "epsilon", &rows[wi].iv, NULL, NULL);
        else
            ga_jw_result(&j, "epsilon", &rows[wi].e);
        ga_jw_str(&j, "pair", l->spec.pairs[wi].name);
        ga_jw_obj_end(&j);
    }
    ga_jw_bool(&j, "certified", certified);
    ga_jw_obj_end(&j);
}

static void eps_print_text(FILE *out, const loaded_t *l, const eps_row *rows, double delta,
                           int certified, size_t wi, int all_ok)
{
    fprintf(out, "spec: %s\n", SAFE(l->spec.name));
    print_verified(out, &l->spec);
    fprintf(out, "delta = %g\n%-*s %-32s %s\n", delta, name_width(&l->spec), "pair", "epsilon",
            "binding direction");
    for (size_t i = 0; i < l->n; i++) {
        const eps_row *r = &rows[i];
        const char *b = r->status == GA_EDOM ? "both" : r->dir == 1 ? "xy" : r->dir == 2 ? "yx" : "none";
        fprintf(out, "%-*s ", name_width(&l->spec), SAFE(l->spec.pairs[i].name));
        if (!eps_ok(r, certified))
            fprintf(out, "not computed: %s\n", ga_strerror(r->status));
        else if (certified)
            fprintf(out, "[%.17g, %.17g]   %s\n", r->iv.lo, r->iv.hi, b);
        else {
            print_text_value(out, &r->e);
            fprintf(out, "   %s\n", b);
        }
        char note[512];
        if (r->status == GA_EDOM)
            fprintf(out, "  note: %s\n", support_note(note, l, i));
    }
    if (!all_ok)
        fprintf(out, "overall: not computed (a pair failed)\n");
    else if (certified)
        fprintf(out, "overall: eps in [%.17g, %.17g] (pair %s); certified\n", rows[wi].iv.lo,
                rows[wi].iv.hi, l->spec.pairs[wi].name);
    else {
        fprintf(out, "overall: eps = ");
        print_text_value(out, &rows[wi].e);
        fprintf(out, " (pair %s); estimates, not certified\n", SAFE(l->spec.pairs[wi].name));
    }
}

int ga_cmd_epsilon(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    ga_spec_opts so = {.allow_paths = allow};
    if ((argc = ga_cli_take_multi(argc, argv, "--allow-path", allow, GA_SPEC_MAX_ALLOW,
                                  &so.nallow, "epsilon", err)) < 0)
        return EX_USAGE;
    const char *spec = NULL, *sdel = NULL, *sfmt = NULL;
    int certified = 0;
    ga_cli_opt opts[] = {{"--delta", &sdel, NULL}, {"--format", &sfmt, NULL},
                         {"--certified", NULL, &certified}, {NULL, NULL, NULL}};
    int pr = ga_cli_options(argc, argv, opts, &spec, "epsilon", out, err, usage_epsilon);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if (!spec || !sdel) {
        ga_cli_err(err, "gaussaudit epsilon: %s is required (see gaussaudit epsilon --help)\n",
                !spec ? "SPEC.yaml" : "--delta D");
        return EX_USAGE;
    }
    int json = parse_format(sfmt, "epsilon", err);
    if (json < 0)
        return EX_USAGE;
    double delta;
    if (ga_cli_parse_double(&delta, sdel) || !(delta > 0 && delta < 1)) {
        ga_cli_err(err, "gaussaudit epsilon: --delta must be a number in (0, 1) (got '%s')\n", sdel);
        return EX_DATAERR;
    }
    loaded_t l;
    eps_row *rows = NULL;
    int rc = load_spec(&l, spec, "epsilon", &so, err);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    if (!rc && (!w || !(rows = calloc(l.n ? l.n : 1, sizeof *rows))))
        rc = EX_SOFTWARE;
    if (rc)
        goto cleanup;
    /* compute every pair, then print: a failure is a status in the output, never a
     * half-written document */
    size_t wi = 0, nfail = 0, ntime = 0;
    for (size_t i = 0; i < l.n; i++) {
        eps_compute(&rows[i], &l, i, delta, sdel, certified, w);
        if (rows[i].status == GA_ETIME) {
            nfail++;
            ntime++;
            continue;
        }
        if (!eps_ok(&rows[i], certified)) {
            nfail++;
            ga_cli_err(err, "gaussaudit epsilon: %s: %s%s\n", l.spec.pairs[i].name,
                       certified ? "certified mode: " : "", status_text(rows[i].status));
            continue;
        }
        double v = certified ? rows[i].iv.hi : rows[i].e.val, vw = certified ? rows[wi].iv.hi : rows[wi].e.val;
        if (i == 0 || !eps_ok(&rows[wi], certified) || v > vw)
            wi = i;
    }
    if (json)
        eps_print_json(out, &l, rows, delta, certified, wi, nfail == 0 && !l.skipped);
    else
        eps_print_text(out, &l, rows, delta, certified, wi, nfail == 0 && !l.skipped);
    if (ntime || l.skipped)
        say_budget(err, "epsilon", ntime + l.skipped, "pairs");
    rc = ferror(out) ? EX_IOERR : ntime || l.skipped ? GA_CLI_EX_TIMEOUT : nfail ? EX_DATAERR : EX_OK;
cleanup:
    free(rows);
    ga_gchisq_work_free(w);
    loaded_clear(&l);
    return rc;
}

/* ------------------------------------------------------------ rdp */

static const char *usage_rdp =
    "usage: gaussaudit rdp SPEC.yaml --alpha A[,A2,..] [--format text|json] [--allow-path DIR]\n"
    "                      [--timeout SECONDS]\n"
    "\n"
    "Exact Renyi divergences D_alpha(X||Y) and D_alpha(Y||X) (alpha > 1) for every pair, in\n"
    "closed form from the cumulant generating function of the privacy loss; infinite where\n"
    "alpha S_Y + (1 - alpha) S_X is not positive definite (resp. the roles swapped).\n"
    "Also the (eps, delta = 1e-5) conversions of Mironov (2017) and Canonne et al. (2020).\n"
    "  --format  json: {\"spec\", \"pairs\": [{\"name\", \"alpha\", \"xy\": {\"value\", \"err\"} or\n"
    "            {\"value\": null, \"infinite\": true}, \"yx\": {...}}]}\n"
    "  --timeout SECONDS  the time budget (default 600 s): what is not finished by then is\n"
    "            reported as not computed, with exit status 2\n";

int ga_cmd_rdp(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    ga_spec_opts so = {.allow_paths = allow};
    if ((argc = ga_cli_take_multi(argc, argv, "--allow-path", allow, GA_SPEC_MAX_ALLOW,
                                  &so.nallow, "rdp", err)) < 0)
        return EX_USAGE;
    const char *spec = NULL, *sal = NULL, *sfmt = NULL;
    ga_cli_opt opts[] = {{"--alpha", &sal, NULL}, {"--format", &sfmt, NULL}, {NULL, NULL, NULL}};
    int pr = ga_cli_options(argc, argv, opts, &spec, "rdp", out, err, usage_rdp);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if (!spec || !sal) {
        ga_cli_err(err, "gaussaudit rdp: %s is required (see gaussaudit rdp --help)\n",
                !spec ? "SPEC.yaml" : "--alpha A");
        return EX_USAGE;
    }
    int json = parse_format(sfmt, "rdp", err);
    if (json < 0)
        return EX_USAGE;
    double *al = NULL;
    long bad, na = ga_cli_parse_list(&al, sal, &bad);
    if (na < 0) {
        ga_cli_err(err, "gaussaudit rdp: --alpha: item %ld is not a finite number in '%s'\n",
                bad + 1, sal);
        return EX_DATAERR;
    }
    for (long k = 0; k < na; k++)
        if (!(al[k] > 1)) {
            ga_cli_err(err, "gaussaudit rdp: --alpha: item %ld must be > 1 (got %g)\n", k + 1,
                    al[k]);
            free(al);
            return EX_DATAERR;
        }
    loaded_t l;
    int rc = load_spec(&l, spec, "rdp", &so, err);
    if (rc)
        goto cleanup;
    ga_jw j;
    ga_jw_init(&j, out);
    int nfail = 0, ntime = 0;
    if (json) {
        json_head(&j, &l.spec);
        ga_jw_arr(&j, "pairs");
    } else {
        fprintf(out, "spec: %s\n%-*s %-8s %-28s %-28s %s\n", SAFE(l.spec.name), name_width(&l.spec), "pair", "alpha",
                "D_alpha(X||Y)", "D_alpha(Y||X)", "eps at delta=1e-5 (Mironov / improved)");
    }
    for (size_t i = 0; i < l.n; i++) {
        ga_pair *own;
        const ga_pair *p = use(&l, i, &own, NULL, NULL); /* (each row says so) */
        for (long k = 0; k < na; k++) {
            ga_result xy = {NAN, INFINITY}, yx = {NAN, INFINITY};
            int st = out_of_time() ? GA_ETIME
                     : p ? ga_pair_renyi_near(&xy, &yx, p, al[k]) : GA_ENOMEM; /* (decimals) */
            int ok = st == GA_OK || st == GA_ETOL; /* a failure has no number */
            nfail += !ok && st != GA_ETIME;
            ntime += st == GA_ETIME;
            double worst = fmax(xy.val, yx.val);
            if (json) {
                ga_jw_obj(&j, NULL);
                ga_jw_str(&j, "name", l.spec.pairs[i].name);
                ga_jw_num(&j, "alpha", al[k]);
                if (ok) {
                    ga_jw_result(&j, "xy", &xy);
                    ga_jw_result(&j, "yx", &yx);
                } else {
                    ga_jw_null(&j, "xy");
                    ga_jw_null(&j, "yx");
                }
                json_status(&j, st);
                ga_jw_obj_end(&j);
            } else if (!ok) {
                fprintf(out, "%-*s %-8g not computed: %s\n", name_width(&l.spec), SAFE(l.spec.pairs[i].name), al[k],
                        ga_strerror(st));
            } else {
                fprintf(out, "%-*s %-8g ", name_width(&l.spec), SAFE(l.spec.pairs[i].name), al[k]);
                print_text_value(out, &xy);
                fprintf(out, "   ");
                print_text_value(out, &yx);
                if (isfinite(worst))
                    fprintf(out, "   %.6g / %.6g", ga_rdp_to_dp_mironov(al[k], worst, 1e-5),
                            ga_rdp_to_dp_improved(al[k], worst, 1e-5));
                fprintf(out, "\n");
            }
        }
        ga_pair_free(own);
    }
    if (json) {
        ga_jw_arr_end(&j);
        ga_jw_bool(&j, "certified", 0);
        ga_jw_obj_end(&j);
    }
    if (nfail)
        ga_cli_err(err, "gaussaudit rdp: %d values could not be computed\n", nfail);
    if (ntime || l.skipped)
        say_budget(err, "rdp", (size_t)ntime + l.skipped * (size_t)na, "values");
    rc = ferror(out) ? EX_IOERR : ntime || l.skipped ? GA_CLI_EX_TIMEOUT : nfail ? EX_DATAERR : EX_OK;
    goto cleanup;
cleanup:
    free(al);
    loaded_clear(&l);
    return rc;
}

/* ------------------------------------------------------------ audit */

static const char *usage_audit =
    "usage: gaussaudit audit SPEC.yaml [--format md|html|json|junit] [-o FILE] [--certified]\n"
    "                        [--timeout SECONDS] [--jobs N] [--quiet] [--allow-path DIR]\n"
    "       gaussaudit audit SPEC.yaml --shard I/N [-o PART.json] [--certified] ...\n"
    "       gaussaudit audit SPEC.yaml SPEC2.yaml ... --format junit [-o FILE] ...\n"
    "\n"
    "Check the spec's claim on every neighbouring pair and report a verdict:\n"
    "  VIOLATION           a certified lower bound exceeds the claim (exit status 1)\n"
    "  VERIFIED            the claim holds with certified upper bounds on a proven worst\n"
    "                      case (a universe bound), so for every neighbour (exit 0)\n"
    "  NO VIOLATION FOUND  the claim holds on all audited pairs (exit 0)\n"
    "  INCONCLUSIVE        neither could be established; the report says why (exit 2)\n"
    "Estimates decide where they are clear; certified intervals (Arb) are computed where a\n"
    "verdict depends on them, and for every pair (up to 200) with --certified.\n"
    "Claims: (epsilon, delta), profile points, RDP points, zCDP rho, GDP mu (doc/spec.md).\n"
    "For each claim the report gives the exact value, how conservative the claim is, the\n"
    "worst pair and direction, and the distinguishing event.\n"
    "  --format  md (default), html (one self-contained file with plots), json, junit\n"
    "  -o FILE   write the report to FILE instead of standard output\n"
    "  --quiet   no progress on standard error (shown for many pairs when it is a terminal)\n"
    "  --jobs N  evaluate the pairs on N threads (default: one per online core); the report\n"
    "            is the same for every N\n"
    "  --shard I/N  evaluate only pairs I, I + N, I + 2N, ... (counting from 1) and write a\n"
    "            partial result (JSON) instead of a report; 'gaussaudit merge' combines the\n"
    "            N parts into the report one run would give (run them anywhere: a job array)\n"
    "  --timeout SECONDS  the time budget (default 600 s; building the pairs gets 60% of the\n"
    "            computing time, the report the last 15% of the budget, at most 15 s): a\n"
    "            violation found stands, every other claim is INCONCLUSIVE, and the report\n"
    "            says how far the audit got; a step that cannot be interrupted ends the run\n"
    "            at SECONDS + 0.8 with exit 2 and no report\n"
    "  --allow-path DIR  also read files (CSV datasets) the spec names inside DIR; by default a\n"
    "            spec reads only regular files inside its own directory tree (repeatable)\n"
    "Several specs (--format junit only): one JUnit document, a testsuite per spec (time,\n"
    "timestamp, hostname, properties with the tool version and the spec's SHA-256), a\n"
    "testcase per claim with classname from the spec's file and name; VIOLATION is a\n"
    "failure whose message carries the witness, INCONCLUSIVE an error (the Ant JUnit schema\n"
    "has no skipped); the specs share the one time budget. The exit status is the worst.\n"
    "Exit status: 0, 1, 2 as above; 64 usage, 65 data error, 66 spec not found, 74 output.\n";

/* -o FILE: the report goes to a temporary file in FILE's directory, is flushed and synced,
 * then renamed over FILE, so a reader sees the old report or the whole new one, never a
 * fragment; every failure is reported and leaves FILE as it was. Returns 0 or GA_EIO. */
/* the report(s) of an audit command: one result in any format, or several as JUnit (a spec
 * that could not be audited: r[i] NULL, its path and message in paths, errors) */
typedef struct {
    ga_audit_result **r;
    size_t n;
    int fmt;
    const char *const *paths;
    const char *const *errors;
} audit_reports;

static int write_reports(FILE *f, const audit_reports *ar)
{
    return ar->n == 1 && ar->fmt != GA_FORMAT_JUNIT
               ? ga_audit_result_write(f, ar->r[0], ar->fmt)
               : ga_audit_results_write_junit_errors(f, ar->r, ar->paths, ar->errors, ar->n);
}

/* -o to something that is not a regular file (/dev/null, /dev/stdout, a FIFO): written to
 * directly, since renaming a temporary file over it would replace the device or pipe itself
 * (as root, /dev/null became a regular file). Returns 0 or GA_EIO. */
static int write_direct(const char *path, const audit_reports *a, FILE *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        ga_cli_err(err, "gaussaudit: cannot write '%s': %s\n", path, strerror(errno));
        return GA_EIO;
    }
    int wr = write_reports(f, a);
    errno = 0;
    int bad = wr || fflush(f) != 0 || ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    if (bad)
        ga_cli_err(err, "gaussaudit: error writing '%s': %s\n", path, errno ? strerror(errno) : "write error");
    return bad ? GA_EIO : GA_OK;
}

static int write_atomic(const char *path, const audit_reports *a, const char *const *inputs,
                        size_t ninputs, FILE *err)
{
    struct stat st, si;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode))
        return write_direct(path, a, err);
    /* never replace one of the command's own inputs (a spec, a part) by its report */
    for (size_t i = 0; exists && i < ninputs; i++)
        if (inputs[i] && stat(inputs[i], &si) == 0 && si.st_dev == st.st_dev &&
            si.st_ino == st.st_ino) {
            ga_cli_err(err, "gaussaudit: -o '%s' is one of the command's inputs: not replaced\n",
                       path);
            return GA_EIO;
        }
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return GA_EIO;
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    snprintf(tmp, n + 16, "%.*s.%s.XXXXXX", (int)dl, path, path + dl);
    ga_cli_temp_guard(tmp);
    int rc = GA_EIO, fd = mkstemp(tmp);
    mode_t mask = umask(0); /* a new report gets the usual 0666 & ~umask, not mkstemp's 0600; */
    umask(mask);            /* a replaced one keeps its mode (a 0600 report stays 0600) */
    if (fd >= 0)
        fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        ga_cli_err(err, "gaussaudit audit: cannot write '%s': %s\n", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        ga_cli_temp_guard(NULL);
        free(tmp);
        return GA_EIO;
    }
    int wr = write_reports(f, a);
    errno = 0;
    if (wr || fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
        ga_cli_err(err, "gaussaudit audit: error writing '%s': %s\n", path,
                   errno ? strerror(errno) : "write error");
        fclose(f);
    } else if (fclose(f) != 0) {
        ga_cli_err(err, "gaussaudit audit: error writing '%s': %s\n", path, strerror(errno));
    } else if (rename(tmp, path) != 0) {
        ga_cli_err(err, "gaussaudit audit: cannot replace '%s': %s\n", path, strerror(errno));
    } else {
        rc = GA_OK;
    }
    if (rc)
        unlink(tmp);
    ga_cli_temp_guard(NULL);
    free(tmp);
    return rc;
}

/* "I/N" with 1 <= I <= N <= 100000: 0, or -1 */
static int parse_shard(size_t *i, size_t *n, const char *s)
{
    char a[16], b[16];
    const char *slash = strchr(s, '/');
    if (!slash || slash - s == 0 || slash - s >= 16 || strlen(slash + 1) == 0 ||
        strlen(slash + 1) >= 16)
        return -1;
    memcpy(a, s, (size_t)(slash - s));
    a[slash - s] = 0;
    strcpy(b, slash + 1);
    double x, y;
    if (strspn(a, "0123456789") != strlen(a) || strspn(b, "0123456789") != strlen(b) ||
        ga_cli_parse_double(&x, a) || ga_cli_parse_double(&y, b) || !(x >= 1 && x <= y && y <= 100000))
        return -1;
    *i = (size_t)x;
    *n = (size_t)y;
    return 0;
}

/* --format md|html|json|junit (NULL: md) as enum ga_format, or -1 */
static int report_format(const char *s)
{
    static const struct {
        const char *name;
        int format;
    } f[] = {{"md", GA_FORMAT_MARKDOWN}, {"html", GA_FORMAT_HTML}, {"json", GA_FORMAT_JSON},
             {"junit", GA_FORMAT_JUNIT}};
    if (!s)
        return GA_FORMAT_MARKDOWN;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!strcmp(s, f[i].name))
            return f[i].format;
    return -1;
}

static const char *usage_merge =
    "usage: gaussaudit merge PART.json... [--format md|html|json|junit] [-o FILE]\n"
    "                        [--spec SPEC.yaml] [--jobs N] [--allow-path DIR] [--quiet]\n"
    "                        [--timeout SECONDS]\n"
    "\n"
    "Combine the partial results of 'gaussaudit audit SPEC.yaml --shard I/N' (I = 1..N, each\n"
    "once, complete) into the report a single run writes: the spec is read again (the path the\n"
    "parts recorded, or --spec; its bytes must be those the parts audited), its pairs are\n"
    "reduced, and the decisions read the parts' evaluations; only the few pairs the witness,\n"
    "the smallest eps and the plots concern are evaluated again. --certified and --claim are\n"
    "those the parts ran with.\n"
    "  --timeout SECONDS  the time budget (default 600 s): what is not finished by then is\n"
    "            reported as not computed, with exit status 2\n"
    "Exit status: as audit (0, 1 violation, 2 inconclusive), 64 usage, 65 a part or the spec\n"
    "is invalid or does not match, 66 not found, 74 output.\n";

int ga_cmd_merge(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    size_t nallow = 0;
    if ((argc = ga_cli_take_multi(argc, argv, "--allow-path", allow, GA_SPEC_MAX_ALLOW, &nallow,
                                  "merge", err)) < 0)
        return EX_USAGE;
    const char *parts[GA_CLI_MAX_SPECS], *sfmt = NULL, *sout = NULL, *sspec = NULL,
               *sjobs = NULL;
    size_t nparts = 0;
    int quiet = 0;
    ga_cli_opt opts[] = {{"--format", &sfmt, NULL}, {"--output", &sout, NULL},
                         {"--spec", &sspec, NULL}, {"--jobs", &sjobs, NULL},
                         {"--quiet", NULL, &quiet}, {NULL, NULL, NULL}};
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            argv[i] = "--output";
    int pr = ga_cli_options_multi(argc, argv, opts, parts, GA_CLI_MAX_SPECS, &nparts, "merge",
                                  out, err, usage_merge);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    int fmt = report_format(sfmt);
    if (!nparts || fmt < 0 || fmt == GA_FORMAT_PARTIAL) {
        ga_cli_err(err, "gaussaudit merge: PART.json... is required, --format md, html, json or "
                   "junit (see gaussaudit merge --help)\n");
        return EX_USAGE;
    }
    ga_audit_options o;
    ga_audit_options_init(&o);
    if (ga_cli_parse_jobs(&o.jobs, sjobs)) {
        ga_cli_err(err, "gaussaudit merge: --jobs must be an integer from 1 to 256 (got '%s')\n", sjobs);
        return EX_USAGE;
    }
    o.allow_paths = allow;
    o.nallow = nallow;
    o.timeout = ga_cli_remaining();
    if (!quiet && isatty(fileno(err)))
        o.progress = err;
    char msg[1024];
    ga_audit_result *res = NULL;
    int st = ga_audit_merge_files(&res, parts, nparts, sspec, &o, msg, sizeof msg);
    if (st) {
        ga_cli_err(err, "gaussaudit merge: %s\n", msg);
        return ga_cli_exit_status(st);
    }
    int rc = ga_audit_result_exit_status(res);
    if (!quiet)
        ga_cli_err(err, "gaussaudit merge: %s: %s (%zu parts)\n", ga_audit_result_spec_name(res),
                   ga_verdict_name(ga_audit_result_verdict(res)), nparts);
    audit_reports ar = {&res, 1, fmt, NULL, NULL};
    if (sout ? write_atomic(sout, &ar, parts, nparts, err) : write_reports(out, &ar))
        rc = EX_IOERR;
    ga_audit_result_free(res);
    return rc;
}

/* The specs of one audit command, audited on a worker thread so that the command reports
 * within its time budget even when one step cannot be interrupted (audit/watch.c). */
typedef struct {
    const char *const *specs;
    size_t nspecs;
    ga_audit_options *o;
    ga_audit_result **res; /* by spec; NULL where st[i] != GA_OK */
    char **msgs;           /* st[i]'s message (malloc'ed) */
    int *st;
    int keep_going;        /* several specs in one JUnit document: an error does not stop */
    size_t done;           /* specs finished (under watch.lock) */
    int finished;          /* the worker returned (under watch.lock) */
    ga_audit_watch watch;
    pthread_cond_t cv;
    int watched, threaded; /* watch and cv were initialised (else: one thread, no watch) */
} spec_run;

static void *spec_worker(void *v)
{
    spec_run *r = v;
    char msg[1024];
    ga_audit_watch *w = r->watched ? &r->watch : NULL;
    for (size_t k = 0; k < r->nspecs; k++) {
        r->o->timeout = ga_cli_remaining(); /* (the specs share the command's budget) */
        msg[0] = 0;
        ga_audit_result *res = NULL;
        int st = ga_audit_spec_file_watched(&res, r->specs[k], r->o, w, msg, sizeof msg);
        if (w)
            pthread_mutex_lock(&w->lock);
        r->res[k] = res;
        r->st[k] = st;
        r->msgs[k] = st ? strdup(msg) : NULL;
        r->done = k + 1;
        if (w)
            pthread_mutex_unlock(&w->lock);
        ga_audit_watch_leave(w); /* (the next spec's snapshot is its own) */
        if (st && (!r->keep_going || st == GA_ENOMEM))
            break;
    }
    if (r->threaded) {
        ga_arb_thread_cleanup(); /* this thread's Arb/FLINT caches (they die with it) */
        pthread_mutex_lock(&w->lock);
        r->finished = 1;
        pthread_cond_signal(&r->cv);
        pthread_mutex_unlock(&w->lock);
    }
    return NULL;
}

/* Audit the specs: 0 when the worker finished (results in res, st, msgs), 1 when the budget
 * ended first (the watch is then sealed and the worker still runs), -1 when no thread could
 * be started (the specs were audited on this thread, the backstop alone bounding the time). */
static int run_specs(spec_run *r)
{
    pthread_condattr_t ca;
    r->watched = ga_audit_watch_init(&r->watch) == GA_OK;
    if (r->watched && pthread_condattr_init(&ca) == 0) {
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        r->threaded = pthread_cond_init(&r->cv, &ca) == 0;
        pthread_condattr_destroy(&ca);
    }
    pthread_t th;
    if (r->threaded && pthread_create(&th, NULL, spec_worker, r)) {
        pthread_cond_destroy(&r->cv);
        r->threaded = 0;
    }
    if (!r->threaded) {
        spec_worker(r);
        if (r->watched)
            ga_audit_watch_clear(&r->watch);
        return -1;
    }
    /* the budget itself belongs to the audit (its soft deadline leaves the report the last
     * 15%); the watch's report comes half the grace later, the backstop at its end */
    double end = ga_cli_budget_end() + 0.5 * GA_CLI_GRACE;
    struct timespec ts = {(time_t)end, (long)((end - floor(end)) * 1e9)};
    pthread_mutex_lock(&r->watch.lock);
    while (!r->finished)
        if (pthread_cond_timedwait(&r->cv, &r->watch.lock, &ts) == ETIMEDOUT && !r->finished)
            return 1; /* (the lock is kept: the watch is sealed, ga_audit_watch_seal) */
    pthread_mutex_unlock(&r->watch.lock);
    pthread_join(th, NULL);
    pthread_cond_destroy(&r->cv);
    ga_audit_watch_clear(&r->watch);
    return 0;
}

/* The budget ended inside a step that could not be interrupted: the report of what was
 * finished (the specs done, the running one from its watch, the others not audited), then
 * the process ends with status 2 (the worker is still inside that step). */
static void budget_report(spec_run *r, audit_reports *ar, const char *sout, FILE *out, FILE *err)
{
    /* (run_specs returned with the watch's lock held: the watch is sealed) */
    size_t k = r->done;
    if (k < r->nspecs) {
        r->res[k] = ga_audit_watch_report(&r->watch, r->specs[k]);
        r->st[k] = r->res[k] ? GA_OK : GA_ENOMEM;
    }
    char **errs = (char **)ar->errors;
    for (size_t i = 0; i < r->nspecs; i++)
        if (!r->res[i] && !errs[i])
            errs[i] = (char *)(r->msgs[i] ? r->msgs[i] : i > k ? "not audited: the time budget "
                               "(--timeout) ended before this spec" : "no memory for its report");
    int ok = k >= r->nspecs || r->res[k];
    int wr = !ok || (sout ? write_atomic(sout, ar, r->specs, r->nspecs, err)
                          : write_reports(out, ar));
    if (!sout && (fflush(out) != 0 || ferror(out)))
        wr = 1;
    ga_cli_err(err, "gaussaudit audit: stopped by the time budget (--timeout) while %s, inside "
               "a step that could not be interrupted; %s\n", r->watch.stage,
               wr ? "no report written" : "the report has what was finished, the rest INCONCLUSIVE");
    fflush(err);
    _exit(wr ? EX_IOERR : GA_CLI_EX_TIMEOUT);
}

int ga_cmd_audit(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    ga_spec_opts so = {.allow_paths = allow};
    if ((argc = ga_cli_take_multi(argc, argv, "--allow-path", allow, GA_SPEC_MAX_ALLOW,
                                  &so.nallow, "audit", err)) < 0)
        return EX_USAGE;
    const char *specs[GA_CLI_MAX_SPECS], *sfmt = NULL, *sout = NULL, *sjobs = NULL,
               *sshard = NULL;
    size_t nspecs = 0;
    int certified = 0, quiet = 0;
    ga_cli_opt opts[] = {{"--format", &sfmt, NULL}, {"-o", &sout, NULL}, {"--output", &sout, NULL},
                         {"--jobs", &sjobs, NULL}, {"--shard", &sshard, NULL},
                         {"--certified", NULL, &certified}, {"--quiet", NULL, &quiet},
                         {NULL, NULL, NULL}};
    /* "-o" is accepted as an option although it has one dash */
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            sout = argv[i + 1];
            argv[i] = "--output";
        }
    int pr = ga_cli_options_multi(argc, argv, opts, specs, GA_CLI_MAX_SPECS, &nspecs, "audit",
                                  out, err, usage_audit);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if (!nspecs) {
        ga_cli_err(err, "gaussaudit audit: SPEC.yaml is required (see gaussaudit audit --help)\n");
        return EX_USAGE;
    }
    int fmt = report_format(sfmt);
    if (fmt < 0 || fmt == GA_FORMAT_PARTIAL) {
        ga_cli_err(err, "gaussaudit audit: --format must be md, html, json or junit (got '%s')\n", sfmt);
        return EX_USAGE;
    }
    ga_audit_options o;
    ga_audit_options_init(&o);
    if (ga_cli_parse_jobs(&o.jobs, sjobs)) {
        ga_cli_err(err, "gaussaudit audit: --jobs must be an integer from 1 to 256 (got '%s')\n", sjobs);
        return EX_USAGE;
    }
    if (sshard && (parse_shard(&o.shard, &o.nshards, sshard) || sfmt || nspecs > 1)) {
        ga_cli_err(err, "gaussaudit audit: --shard takes I/N with 1 <= I <= N <= 100000 (got "
                   "'%s'), one spec, and no --format (it writes a partial result)\n", sshard);
        return EX_USAGE;
    }
    if (sshard)
        fmt = GA_FORMAT_PARTIAL;
    o.certified = certified;
    o.allow_paths = allow;
    o.nallow = so.nallow;
    if (!quiet && isatty(fileno(err)))
        o.progress = err;
    if (nspecs > 1 && fmt != GA_FORMAT_JUNIT) {
        ga_cli_err(err, "gaussaudit audit: several specs are reported together with --format junit only\n");
        return EX_USAGE;
    }
    ga_audit_result **res = calloc(nspecs, sizeof *res);
    char **errs = calloc(nspecs, sizeof *errs);
    spec_run run = {.specs = specs, .nspecs = nspecs, .o = &o, .res = res,
                    .msgs = calloc(nspecs, sizeof *run.msgs), .st = calloc(nspecs, sizeof *run.st),
                    .keep_going = fmt == GA_FORMAT_JUNIT && nspecs > 1};
    if (!res || !errs || !run.msgs || !run.st) {
        free(res);
        free(errs);
        free(run.msgs);
        free(run.st);
        return EX_SOFTWARE;
    }
    if (run_specs(&run) == 1) { /* the budget ended inside a step: reported from the watch */
        audit_reports ar = {res, nspecs, fmt, specs, (const char *const *)errs};
        budget_report(&run, &ar, sout, out, err);
    }
    int rc = EX_OK, junit_many = fmt == GA_FORMAT_JUNIT && nspecs > 1;
    size_t done = 0;
    for (; done < nspecs; done++) {
        int st = run.st[done];
        if (st) {
            const char *msg = run.msgs[done] ? run.msgs[done] : "no memory for the message";
            ga_cli_err(err, "gaussaudit audit: %s\n", msg);
            int code = ga_cli_exit_status(st);
            if (rc == EX_OK || rc == 1 || rc == 2)
                rc = code;
            /* several specs in one JUnit document: the others are still audited, this one
             * is a testsuite with an error */
            if (junit_many && st != GA_ENOMEM && (errs[done] = strdup(msg)))
                continue;
            break;
        }
        int es = ga_audit_result_exit_status(res[done]);
        if ((es == 1 && (rc == EX_OK || rc == 2)) || (es == 2 && rc == EX_OK))
            rc = es; /* the worst: an error, a violation, then inconclusive */
        if (sshard) /* no verdict yet: 2 when the shard did not finish (--timeout) */
            rc = ga_audit_result_exit_status(res[done]);
        if (!quiet && sshard)
            ga_cli_err(err, "gaussaudit audit: %s: shard %zu/%zu %s\n",
                       ga_audit_result_spec_name(res[done]), o.shard, o.nshards,
                       rc == EX_OK ? "done" : "incomplete (the time budget ran out)");
        else if (!quiet)
            ga_cli_err(err, "gaussaudit audit: %s: %s\n", ga_audit_result_spec_name(res[done]),
                       ga_verdict_name(ga_audit_result_verdict(res[done])));
    }
    if (done == nspecs) {
        audit_reports ar = {res, nspecs, fmt, specs, (const char *const *)errs};
        int wr = sout ? write_atomic(sout, &ar, specs, nspecs, err) : write_reports(out, &ar);
        if (wr)
            rc = EX_IOERR;
    }
    for (size_t i = 0; i < nspecs; i++) {
        ga_audit_result_free(res[i]);
        free(errs[i]);
        free(run.msgs[i]);
    }
    free(res);
    free(errs);
    free(run.msgs);
    free(run.st);
    return rc;
}

/*
 * cmd_epsilon.c - gaussaudit epsilon: the least eps with delta(eps) <= delta for each pair,
 * with its error estimate or a certified bracket, and the worst direction.
 */
#include "cli/internal.h"
#include "pair/pair.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

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
    if (cl_out_of_time()) {
        row->status = GA_ETIME;
        return;
    }
    ga_cert_opts co;
    ga_cert_opts_init(&co);
    co.deadline = ga_cli_deadline();
    ga_pair *own;
    const ga_pair *p = cl_use(l, i, &own, NULL, NULL); /* (the row says so) */
    if (!p) {
        row->status = GA_ENOMEM;
    } else if (certified) {
        ga_spec_pair_view v;
        row->status = ga_spec_pair_view_init(&v, &l->set.pairs[i], 1);
        if (row->status == GA_OK)
            row->status = ga_pair_epsilon_cert(&row->iv, &row->dir, p, v.in, v.txt, sdel, &co);
        ga_spec_pair_view_clear(&v);
    } else {
        row->status = ga_pair_epsilon(&row->e, &row->dir, p, delta, cl_cli_gopts(), w);
    }
    ga_pair_free(own);
}

/* the previous pair, where this one swaps its roles (remove and add one record from the
 * same decimals, listed one after the other): its row, the binding direction swapped (the
 * same numbers, certified ones included, pair/pair.h); 0 where it does not */
static int eps_mirror(eps_row *row, const loaded_t *l, const eps_row *rows, size_t i)
{
    if (i == 0 || rows[i - 1].status == GA_ETIME || !ga_pair_mirrors(l->pairs[i - 1], l->pairs[i]))
        return 0;
    *row = rows[i - 1];
    row->dir = row->dir == 1 ? 2 : row->dir == 2 ? 1 : row->dir;
    return 1;
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
    cl_json_head(&j, l);
    ga_jw_num(&j, "delta", delta);
    ga_jw_arr(&j, "pairs");
    for (size_t i = 0; i < l->n; i++) {
        const eps_row *r = &rows[i];
        ga_jw_obj(&j, NULL);
        ga_jw_str(&j, "name", l->set.pairs[i].name);
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
            ga_jw_str(&j, "note", cl_support_note(note, l, i));
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
        ga_jw_str(&j, "pair", l->set.pairs[wi].name);
        ga_jw_obj_end(&j);
    }
    ga_jw_bool(&j, "certified", certified);
    ga_jw_obj_end(&j);
}

static void eps_print_text(FILE *out, const loaded_t *l, const eps_row *rows, double delta,
                           int certified, size_t wi, int all_ok)
{
    fprintf(out, "spec: %s\n", SAFE(l->spec.name));
    cl_print_verified(out, l);
    fprintf(out, "delta = %g\n%-*s %-32s %s\n", delta, cl_name_width(l), "pair", "epsilon",
            "binding direction");
    for (size_t i = 0; i < l->n; i++) {
        const eps_row *r = &rows[i];
        const char *b = r->status == GA_EDOM ? "both" : r->dir == 1 ? "xy" : r->dir == 2 ? "yx" : "none";
        fprintf(out, "%-*s ", cl_name_width(l), SAFE(l->set.pairs[i].name));
        if (!eps_ok(r, certified))
            fprintf(out, "not computed: %s\n", ga_strerror(r->status));
        else if (certified)
            fprintf(out, "[%.17g, %.17g]   %s\n", r->iv.lo, r->iv.hi, b);
        else {
            cl_print_text_value(out, &r->e);
            fprintf(out, "   %s\n", b);
        }
        char note[512];
        if (r->status == GA_EDOM)
            fprintf(out, "  note: %s\n", cl_support_note(note, l, i));
    }
    if (!all_ok)
        fprintf(out, "overall: not computed (a pair failed)\n");
    else if (certified)
        fprintf(out, "overall: eps in [%.17g, %.17g] (pair %s); certified\n", rows[wi].iv.lo,
                rows[wi].iv.hi, l->set.pairs[wi].name);
    else {
        fprintf(out, "overall: eps = ");
        cl_print_text_value(out, &rows[wi].e);
        fprintf(out, " (pair %s); estimates, not certified\n", SAFE(l->set.pairs[wi].name));
    }
}

int ga_cmd_epsilon(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    ga_spec_opts so = {.allow_paths = allow};
    const char *spec = NULL, *sdel = NULL, *sfmt = NULL;
    int certified = 0;
    ga_cli_opt opts[] = {GA_OPT_VALUE("--delta", &sdel), GA_OPT_VALUE("--format", &sfmt),
                         GA_OPT_FLAG("--certified", &certified),
                         GA_OPT_MULTI("--allow-path", allow, GA_SPEC_MAX_ALLOW, &so.nallow),
                         GA_OPT_END};
    int pr = ga_cli_options(argc, argv, opts, &spec, "epsilon", out, err, usage_epsilon);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if (!spec || !sdel) {
        ga_cli_err(err, "gaussaudit epsilon: %s is required (see gaussaudit epsilon --help)\n",
                !spec ? "SPEC.yaml" : "--delta D");
        return EX_USAGE;
    }
    int json = cl_parse_format(sfmt, "epsilon", err);
    if (json < 0)
        return EX_USAGE;
    double delta;
    if (ga_cli_parse_double(&delta, sdel) || !(delta > 0 && delta < 1)) {
        ga_cli_err(err, "gaussaudit epsilon: --delta must be a number in (0, 1) (got '%s')\n", sdel);
        return EX_USAGE;
    }
    loaded_t l;
    eps_row *rows = NULL;
    int rc = cl_load_spec(&l, spec, "epsilon", &so, err);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    if (!rc && (!w || !(rows = calloc(l.n ? l.n : 1, sizeof *rows))))
        rc = EX_SOFTWARE;
    if (rc)
        goto cleanup;
    /* compute every pair, then print: a failure is a status in the output, never a
     * half-written document */
    size_t wi = 0, nfail = 0, ntime = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (!eps_mirror(&rows[i], &l, rows, i))
            eps_compute(&rows[i], &l, i, delta, sdel, certified, w);
        if (rows[i].status == GA_ETIME) {
            nfail++;
            ntime++;
            continue;
        }
        if (!eps_ok(&rows[i], certified)) {
            nfail++;
            ga_cli_err(err, "gaussaudit epsilon: %s: %s%s\n", l.set.pairs[i].name,
                       certified ? "certified mode: " : "", cl_status_text(rows[i].status));
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
        cl_say_budget(err, "epsilon", ntime + l.skipped, "pairs");
    rc = ferror(out) ? EX_IOERR : ntime || l.skipped ? GA_CLI_EX_TIMEOUT : nfail ? EX_DATAERR : EX_OK;
cleanup:
    free(rows);
    ga_gchisq_work_free(w);
    cl_loaded_clear(&l);
    return rc;
}

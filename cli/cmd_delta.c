/*
 * cmd_delta.c - gaussaudit delta: each pair's delta(eps) in both directions at the given eps
 * (or a profile over a grid), with error estimates, or certified (--certified, --digits).
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

/* delta --profile: N-point profile per pair on the pair's own grid */
static int profile_cmd(const char *spec, const ga_spec_opts *so, size_t np, int json, FILE *out,
                       FILE *err)
{
    loaded_t l;
    int rc = cl_load_spec(&l, spec, "delta", so, err);
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
        const ga_pair *p = cl_use(&l, i, &own, err, "delta");
        if (!p) {
            rc = EX_SOFTWARE;
            goto cleanup;
        }
        if (cl_out_of_time()) {
            ga_pair_free(own);
            l.skipped += l.n - i;
            break;
        }
        ga_pair_profile_grid(eps, np, p, cl_cli_gopts(), w);
        if (json) {
            ga_jw_obj(&j, NULL);
            ga_jw_str(&j, "name", l.set.pairs[i].name);
            ga_jw_arr(&j, "points");
        } else {
            fprintf(out, "pair: %s\n%-24s %-32s %s\n", SAFE(l.set.pairs[i].name), "epsilon",
                    "delta_XY", "delta_YX");
        }
        for (size_t k = 0; k < np; k++) {
            ga_delta D;
            int st = ga_pair_delta(&D, p, eps[k], GA_DELTA_AUTO, cl_cli_gopts(), w);
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
                    cl_json_status(&j, st);
                ga_jw_obj_end(&j);
            } else if (ok) {
                fprintf(out, "%-24.17g ", eps[k]);
                cl_print_text_value(out, &D.xy);
                fprintf(out, "   ");
                cl_print_text_value(out, &D.yx);
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
        cl_say_budget(err, "delta", l.skipped, "pairs");
    rc = ferror(out) ? EX_IOERR : l.skipped ? GA_CLI_EX_TIMEOUT : nfail ? EX_DATAERR : EX_OK;
    goto cleanup;
cleanup:
    free(eps);
    ga_gchisq_work_free(w);
    cl_loaded_clear(&l);
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

/* one value of the table: a pair at one eps, estimated or certified (not started once the
 * budget has run out: GA_ETIME); ok: there is a value to print */
typedef struct {
    ga_delta D;
    ga_delta_cert C;
    int st, ok;
} delta_cell;

static void delta_compute(delta_cell *c, const ga_spec_pair *sp, const ga_pair *p, double eps,
                          const char *etxt, int certified, int method, const ga_cert_opts *co,
                          ga_gchisq_work *w)
{
    if (cl_out_of_time()) {
        c->st = GA_ETIME; /* (not started: the budget ran out) */
        c->ok = 0;
    } else if (certified) {
        ga_spec_pair_view v;
        c->st = ga_spec_pair_view_init(&v, sp, 1);
        if (c->st == GA_OK)
            c->st = ga_pair_delta_cert(&c->C, p, v.in, v.txt, etxt, co);
        ga_spec_pair_view_clear(&v);
        c->ok = c->st == GA_OK || c->st == GA_EPREC; /* EPREC: valid, wider than asked */
    } else {
        c->st = ga_pair_delta(&c->D, p, eps, method, cl_cli_gopts(), w);
        c->ok = c->st == GA_OK || c->st == GA_ETOL; /* ETOL: valid, larger error estimate */
    }
}

/* c <- the cell of the pair whose roles this one swaps: the directions exchanged */
static void delta_mirror(delta_cell *c, const delta_cell *m)
{
    *c = *m;
    c->D.xy = m->D.yx;
    c->D.yx = m->D.xy;
    c->C.xy = m->C.yx;
    c->C.yx = m->C.xy;
    memcpy(c->C.xy_lo, m->C.yx_lo, sizeof c->C.xy_lo);
    memcpy(c->C.xy_hi, m->C.yx_hi, sizeof c->C.xy_hi);
    memcpy(c->C.yx_lo, m->C.xy_lo, sizeof c->C.yx_lo);
    memcpy(c->C.yx_hi, m->C.xy_hi, sizeof c->C.yx_hi);
    c->C.la_bound_xy = m->C.la_bound_yx;
    c->C.la_bound_yx = m->C.la_bound_xy;
}

/* the row of one value: a JSON object into jw, or (jw NULL) a line of the text table, the
 * pair's support note after its first value */
static void delta_print(FILE *out, ga_jw *jw, const delta_cell *c, const ga_spec_pair *sp,
                        const ga_pair *p, double eps, const char *etxt, int certified, int nw,
                        int first)
{
    int sup = ga_pair_support(p);
    if (jw) {
        ga_jw_obj(jw, NULL);
        ga_jw_str(jw, "name", sp->name);
        ga_jw_num(jw, "epsilon", eps);
        if (certified)
            ga_jw_str(jw, "epsilon_decimal", etxt);
        if (!c->ok) {
            ga_jw_null(jw, "xy");
            ga_jw_null(jw, "yx");
        } else if (certified) {
            ga_jw_interval(jw, "xy", &c->C.xy, c->C.xy_lo, c->C.xy_hi);
            ga_jw_interval(jw, "yx", &c->C.yx, c->C.yx_lo, c->C.yx_hi);
        } else {
            ga_jw_result(jw, "xy", &c->D.xy);
            ga_jw_result(jw, "yx", &c->D.yx);
        }
        ga_jw_str(jw, "method", certified ? "arb" : c->D.method == GA_DELTA_TAILS ? "tails" : "direct");
        ga_jw_bool(jw, "certified", certified);
        if (certified && c->ok) {
            ga_jw_int(jw, "precision_bits", c->C.precision_bits);
            ga_jw_num(jw, "la_bound", fmax(c->C.la_bound_xy, c->C.la_bound_yx));
        }
        ga_jw_str(jw, "support", cl_support_name(sup));
        if (sup != GA_SUPPORT_FULL)
            ga_jw_str(jw, "note", ga_pair_support_reason(p));
        cl_json_status(jw, c->st);
        ga_jw_obj_end(jw);
    } else if (!c->ok) {
        fprintf(out, "%-*s %-10s not computed: %s\n", nw, SAFE(sp->name), etxt,
                ga_strerror(c->st));
    } else if (certified) {
        fprintf(out, "%-*s %-10s [%s, %s]   [%s, %s]\n", nw, SAFE(sp->name),
                etxt, c->C.xy_lo, c->C.xy_hi, c->C.yx_lo, c->C.yx_hi);
    } else {
        fprintf(out, "%-*s %-10g ", nw, SAFE(sp->name), eps);
        cl_print_text_value(out, &c->D.xy);
        fprintf(out, "   ");
        cl_print_text_value(out, &c->D.yx);
        fprintf(out, "\n");
        if (sup != GA_SUPPORT_FULL && first)
            fprintf(out, "  note: %s\n", ga_pair_support_reason(p));
    }
}

int ga_cmd_delta(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    ga_spec_opts so = {.allow_paths = allow};
    const char *spec = NULL, *seps = NULL, *smeth = NULL, *sfmt = NULL, *sdig = NULL,
               *sprof = NULL;
    int certified = 0;
    ga_cli_opt opts[] = {GA_OPT_VALUE("--epsilon", &seps), GA_OPT_VALUE("--method", &smeth),
                         GA_OPT_VALUE("--format", &sfmt), GA_OPT_VALUE("--digits", &sdig),
                         GA_OPT_VALUE("--profile", &sprof), GA_OPT_FLAG("--certified", &certified),
                         GA_OPT_MULTI("--allow-path", allow, GA_SPEC_MAX_ALLOW, &so.nallow),
                         GA_OPT_END};
    int json;
    /* --profile takes an optional count: --profile without a number after it (at the end, or
     * followed by another option) means 200 */
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--profile") && (i + 1 == argc || argv[i + 1][0] == '-'))
            argv[i] = "--profile=200";
    int pr = ga_cli_options(argc, argv, opts, &spec, "delta", out, err, usage_delta);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if ((json = cl_parse_format(sfmt, "delta", err)) < 0)
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
            return EX_USAGE;
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
    if (cl_cert_options(&co, certified, sdig, "delta", err))
        return EX_USAGE;
    co.deadline = ga_cli_deadline();
    double *eps = NULL;
    long bad, ne = ga_cli_parse_list(&eps, seps, &bad);
    if (ne < 0) {
        ga_cli_err(err, "gaussaudit delta: --epsilon: item %ld is not a finite number in '%s'\n",
                bad + 1, seps);
        return EX_USAGE;
    }
    size_t nes;
    char **etxt = ga_cli_split_list(seps, &nes);
    if (!etxt) {
        free(eps);
        return EX_SOFTWARE;
    }
    loaded_t l;
    delta_cell *prev = NULL;
    int rc = cl_load_spec(&l, spec, "delta", &so, err);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    if (!rc && !w)
        rc = EX_SOFTWARE;
    if (rc)
        goto cleanup;
    /* a pair that fails is a row with a status (no number) in a complete document, and the
     * exit status says so */
    ga_jw jw;
    ga_jw_init(&jw, out);
    int nw = cl_name_width(&l);
    if (json) {
        cl_json_head(&jw, &l);
        ga_jw_arr(&jw, "pairs");
    } else {
        fprintf(out, "spec: %s\n", SAFE(l.spec.name));
        cl_print_verified(out, &l);
        fprintf(out, "%-*s %-10s %-32s %-32s\n", nw, "pair", "epsilon", "delta_XY", "delta_YX");
    }
    int warned = 0, nfail = 0, ntime = 0;
    /* the last pair's cells: the next pair, where it swaps that one's roles (remove and add
     * one record, listed one after the other), takes them with the directions exchanged */
    prev = calloc(ne > 0 ? (size_t)ne : 1, sizeof *prev);
    if (!prev) {
        rc = EX_SOFTWARE;
        goto cleanup;
    }
    for (size_t i = 0; i < l.n; i++) {
        ga_pair *own;
        const ga_pair *p = cl_use(&l, i, &own, err, "delta");
        if (!p) {
            rc = EX_SOFTWARE;
            goto cleanup;
        }
        int mirror = i > 0 && ga_pair_mirrors(l.pairs[i - 1], l.pairs[i]);
        for (long k = 0; k < ne; k++) {
            delta_cell c;
            if (mirror && prev[k].st != GA_ETIME)
                delta_mirror(&c, &prev[k]);
            else
                delta_compute(&c, &l.set.pairs[i], p, eps[k], etxt[k], certified, method, &co, w);
            prev[k] = c;
            int st = c.st, ok = c.ok;
            if (st == GA_ETIME) {
                ntime++; /* (not started, or a certified interval cut short) */
            } else if (!ok) {
                nfail++;
                ga_cli_err(err, "gaussaudit delta: %s at eps = %s: %s%s\n", l.set.pairs[i].name,
                           etxt[k], certified ? "certified mode: " : "",
                           certified && st == GA_EDOM ? "not available for singular covariances "
                                                        "with a common support"
                                                      : cl_status_text(st));
            } else if (st != GA_OK && !warned++) {
                ga_cli_err(err, "gaussaudit delta: warning: %s\n", ga_strerror(st));
            }
            delta_print(out, json ? &jw : NULL, &c, &l.set.pairs[i], p, eps[k], etxt[k], certified,
                        nw, k == 0);
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
        cl_say_budget(err, "delta", (size_t)ntime + l.skipped * (size_t)ne, "values");
    rc = ferror(out) ? EX_IOERR : ntime || l.skipped ? GA_CLI_EX_TIMEOUT : nfail ? EX_DATAERR : EX_OK;
    goto cleanup;
cleanup:
    free(prev);
    free(eps);
    ga_cli_free_list(etxt);
    ga_gchisq_work_free(w);
    cl_loaded_clear(&l);
    return rc;
}

/*
 * cmd_rdp.c - gaussaudit rdp: Renyi divergences of each pair at the given orders, both
 * directions, estimates or certified intervals.
 */
#include "cli/internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static const char *usage_rdp =
    "usage: gaussaudit rdp SPEC.yaml --alpha A[,A2,..] [--format text|json] [--allow-path DIR]\n"
    "                      [--timeout SECONDS]\n"
    "\n"
    "Exact Renyi divergences D_alpha(X||Y) and D_alpha(Y||X) (alpha > 1) for every pair, in\n"
    "closed form from the cumulant generating function of the privacy loss; infinite where\n"
    "alpha S_Y + (1 - alpha) S_X is not positive definite (resp. the roles swapped);\n"
    "matrix masking, synthetic points and a subsampled sketch step from their privacy\n"
    "profiles (D_alpha as an integral of delta(eps) in both directions).\n"
    "Also the (eps, delta = 1e-5) conversions of Mironov (2017) and Canonne et al. (2020).\n"
    "  --format  json: {\"spec\", \"pairs\": [{\"name\", \"alpha\", \"xy\": {\"value\", \"err\"} or\n"
    "            {\"value\": null, \"infinite\": true}, \"yx\": {...}}]}\n"
    "  --timeout SECONDS  the time budget (default 600 s): what is not finished by then is\n"
    "            reported as not computed, with exit status 2\n";

int ga_cmd_rdp(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    ga_spec_opts so = {.allow_paths = allow};
    const char *spec = NULL, *sal = NULL, *sfmt = NULL;
    ga_cli_opt opts[] = {GA_OPT_VALUE("--alpha", &sal), GA_OPT_VALUE("--format", &sfmt),
                         GA_OPT_MULTI("--allow-path", allow, GA_SPEC_MAX_ALLOW, &so.nallow),
                         GA_OPT_END};
    int pr = ga_cli_options(argc, argv, opts, &spec, "rdp", out, err, usage_rdp);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if (!spec || !sal) {
        ga_cli_err(err, "gaussaudit rdp: %s is required (see gaussaudit rdp --help)\n",
                !spec ? "SPEC.yaml" : "--alpha A");
        return EX_USAGE;
    }
    int json = cl_parse_format(sfmt, "rdp", err);
    if (json < 0)
        return EX_USAGE;
    double *al = NULL;
    long bad, na = ga_cli_parse_list(&al, sal, &bad);
    if (na < 0) {
        ga_cli_err(err, "gaussaudit rdp: --alpha: item %ld is not a finite number in '%s'\n",
                bad + 1, sal);
        return EX_USAGE;
    }
    for (long k = 0; k < na; k++)
        if (!(al[k] > 1)) {
            ga_cli_err(err, "gaussaudit rdp: --alpha: item %ld must be > 1 (got %g)\n", k + 1,
                    al[k]);
            free(al);
            return EX_USAGE;
        }
    loaded_t l;
    int rc = cl_load_spec(&l, spec, "rdp", &so, err);
    if (rc)
        goto cleanup;
    ga_jw j;
    ga_jw_init(&j, out);
    int nfail = 0, ntime = 0;
    if (json) {
        cl_json_head(&j, &l);
        ga_jw_arr(&j, "pairs");
    } else {
        fprintf(out, "spec: %s\n%-*s %-8s %-28s %-28s %s\n", SAFE(l.spec.name), cl_name_width(&l), "pair", "alpha",
                "D_alpha(X||Y)", "D_alpha(Y||X)", "eps at delta=1e-5 (Mironov / improved)");
    }
    for (size_t i = 0; i < l.n; i++) {
        ga_pair *own;
        const ga_pair *p = cl_use(&l, i, &own, NULL, NULL); /* (each row says so) */
        for (long k = 0; k < na; k++) {
            ga_result xy = {NAN, INFINITY}, yx = {NAN, INFINITY};
            int st = cl_out_of_time() ? GA_ETIME
                     : p ? ga_pair_renyi_near(&xy, &yx, p, al[k]) : GA_ENOMEM; /* (decimals) */
            int ok = st == GA_OK || st == GA_ETOL; /* a failure has no number */
            nfail += !ok && st != GA_ETIME;
            ntime += st == GA_ETIME;
            double worst = fmax(xy.val, yx.val);
            if (json) {
                ga_jw_obj(&j, NULL);
                ga_jw_str(&j, "name", l.set.pairs[i].name);
                ga_jw_num(&j, "alpha", al[k]);
                if (ok) {
                    ga_jw_result(&j, "xy", &xy);
                    ga_jw_result(&j, "yx", &yx);
                } else {
                    ga_jw_null(&j, "xy");
                    ga_jw_null(&j, "yx");
                }
                cl_json_status(&j, st);
                ga_jw_obj_end(&j);
            } else if (!ok) {
                fprintf(out, "%-*s %-8g not computed: %s\n", cl_name_width(&l), SAFE(l.set.pairs[i].name), al[k],
                        ga_strerror(st));
            } else {
                fprintf(out, "%-*s %-8g ", cl_name_width(&l), SAFE(l.set.pairs[i].name), al[k]);
                cl_print_text_value(out, &xy);
                fprintf(out, "   ");
                cl_print_text_value(out, &yx);
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
        cl_say_budget(err, "rdp", (size_t)ntime + l.skipped * (size_t)na, "values");
    rc = ferror(out) ? EX_IOERR : ntime || l.skipped ? GA_CLI_EX_TIMEOUT : nfail ? EX_DATAERR : EX_OK;
    goto cleanup;
cleanup:
    free(al);
    cl_loaded_clear(&l);
    return rc;
}

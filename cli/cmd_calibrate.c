/*
 * cmd_calibrate.c - `gaussaudit calibrate`: arguments in, ga_calibrate_spec_file (the public
 * API, verdict/calibrate.c), the result out (reports/calibration.c).
 */
#include "cli/cli.h"
#include "specs/spec.h" /* GA_SPEC_MAX_ALLOW */

#include <math.h>
#include <string.h>

static const char *usage_calibrate =
    "usage: gaussaudit calibrate SPEC.yaml --epsilon E --delta D [--format text|json]\n"
    "                            [--timeout SECONDS] [--part K] [--jobs N] [--allow-path DIR]\n"
    "\n"
    "The smallest value of the mechanism's noise parameter (sigma; noise_sigma for sketch)\n"
    "such that the mechanism is (E, D)-DP on the spec's neighbouring pairs, or on the proven\n"
    "worst case when the spec has a universe. Certified: delta at the returned value has a\n"
    "certified upper bound <= D, and at the value reduced by a relative 1e-6 a certified\n"
    "lower bound > D. Published calibrations are printed for comparison where they exist\n"
    "(classic Gaussian, analytic Gaussian, Ding et al. (12), the LSV-based sketch bound, the\n"
    "NDIS paper's M_LS rule for linear_regression with a universe).\n"
    "A composition scales every part's noise parameter by one factor (noise_scale), or with\n"
    "--part K tunes part K's noise parameter alone, the others as written.\n"
    "--jobs N reads CSV files and builds the neighbours' laws on N threads (default: one per\n"
    "online core).\n"
    "\n"
    "--timeout SECONDS (default 600) bounds the search; the output then says how far it got.\n"
    "\n"
    "Exit status: 0 (found; the output says whether it is certified), 2 (the time budget\n"
    "ran out before a value was found), 64 (usage: an option or its value), 65 (invalid\n"
    "spec), 66 (cannot read), 74 (write error).\n";

int ga_cmd_calibrate(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    size_t nallow = 0;
    const char *spec = NULL, *seps = NULL, *sdel = NULL, *sfmt = NULL, *spart = NULL,
               *sjobs = NULL;
    ga_cli_opt opts[] = {GA_OPT_VALUE("--epsilon", &seps), GA_OPT_VALUE("--delta", &sdel),
                         GA_OPT_VALUE("--format", &sfmt), GA_OPT_VALUE("--part", &spart),
                         GA_OPT_VALUE("--jobs", &sjobs),
                         GA_OPT_MULTI("--allow-path", allow, GA_SPEC_MAX_ALLOW, &nallow),
                         GA_OPT_END};
    int pr = ga_cli_options(argc, argv, opts, &spec, "calibrate", out, err, usage_calibrate);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if (!spec || !seps || !sdel) {
        ga_cli_err(err, "gaussaudit calibrate: SPEC.yaml, --epsilon and --delta are required\n");
        return EX_USAGE;
    }
    int json = sfmt && !strcmp(sfmt, "json");
    if (sfmt && !json && strcmp(sfmt, "text")) {
        ga_cli_err(err, "gaussaudit calibrate: --format must be text or json (got '%s')\n", sfmt);
        return EX_USAGE;
    }
    double eps, delta;
    if (ga_cli_parse_double(&eps, seps) || eps < 0) {
        ga_cli_err(err, "gaussaudit calibrate: --epsilon must be a number >= 0 (got '%s')\n", seps);
        return EX_USAGE;
    }
    if (ga_cli_parse_double(&delta, sdel) || !(delta > 0 && delta < 1)) {
        ga_cli_err(err, "gaussaudit calibrate: --delta must be a number in (0, 1) (got '%s')\n", sdel);
        return EX_USAGE;
    }
    ga_audit_options o;
    ga_audit_options_init(&o);
    o.allow_paths = allow;
    o.nallow = nallow;
    if (ga_cli_parse_jobs(&o.jobs, sjobs)) {
        ga_cli_err(err, "gaussaudit calibrate: --jobs must be an integer from 1 to 256 (got '%s')\n",
                   sjobs);
        return EX_USAGE;
    }
    o.timeout = ga_cli_remaining();
    double part = 0;
    if (spart && (ga_cli_parse_double(&part, spart) || !(part >= 1 && part == floor(part) && part <= 1e6))) {
        ga_cli_err(err, "gaussaudit calibrate: --part must be a part number >= 1 (got '%s')\n", spart);
        return EX_USAGE;
    }
    o.part = (size_t)part;
    ga_calibration *c;
    char msg[1024];
    int st = ga_calibrate_spec_file(&c, spec, eps, delta, &o, msg, sizeof msg);
    if (st) {
        ga_cli_err(err, "gaussaudit calibrate: %s\n", msg);
        return ga_cli_exit_status(st);
    }
    int rc = ga_calibration_write(out, c, json ? GA_FORMAT_JSON : GA_FORMAT_TEXT) ? EX_IOERR : EX_OK;
    ga_calibration_free(c);
    return rc;
}

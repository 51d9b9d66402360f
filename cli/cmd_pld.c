/*
 * cmd_pld.c - gaussaudit pld: the certified privacy-loss distributions of one Poisson-
 * subsampled Gaussian step on a grid (pair/pld_export.c), as JSON for other accountants.
 */
#include "cli/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *usage_pld =
    "usage: gaussaudit pld --rate Q --sigma S [--grid H] [--optimistic] [--timeout SECONDS]\n"
    "       gaussaudit pld --batch-size B --dataset-size N --sigma S [...]\n"
    "\n"
    "The privacy-loss distributions of one Poisson-subsampled Gaussian step (rate Q, noise\n"
    "multiplier S, read as exact decimals), or of one step on a fixed-size batch of B of N\n"
    "records (add/remove neighbours: the Poisson step at rate B/N with sensitivity 2), on a\n"
    "grid of spacing H (default 1e-4), certified\n"
    "for composition: pessimistic (default: every loss rounded up, every mass a certified\n"
    "lower bound, the rest at +infinity), so that composing them with any accountant's\n"
    "convolution gives a delta at or above the true one; --optimistic: rounded down, the rest\n"
    "left out, at or below it. JSON on standard output:\n"
    "  {\"tool\", \"mechanism\": {\"kind\", \"rate\" (or \"batch_size\", \"dataset_size\"), \"sigma\"},\n"
    "   \"value_discretization_interval\",\n"
    "   \"pessimistic_estimate\", \"remove\": {\"lowest_loss_index\", \"probability_mass_function\",\n"
    "   \"infinity_mass\"}, \"add\": {...}, \"certified\": true}\n"
    "  remove: the law of log(p_X/p_Y) under X, X the release with the record; add: the law of\n"
    "  log(p_Y/p_X) under Y, Y the release without it; mass i is at the loss\n"
    "  (lowest_loss_index + i) H.\n"
    "  --timeout SECONDS  the time budget (default 600 s)\n";

static void write_pmf(ga_jw *j, const char *key, const ga_pld_pmf *p)
{
    ga_jw_obj(j, key);
    ga_jw_int(j, "lowest_loss_index", p->k0);
    ga_jw_arr(j, "probability_mass_function");
    for (size_t i = 0; i < p->n; i++)
        ga_jw_num(j, NULL, p->mass[i]);
    ga_jw_arr_end(j);
    ga_jw_num(j, "infinity_mass", p->infinity_mass);
    ga_jw_obj_end(j);
}

int ga_cmd_pld(int argc, char **argv, FILE *out, FILE *err)
{
    const char *rate = NULL, *sigma = NULL, *grid = NULL, *bs = NULL, *ds = NULL;
    int optimistic = 0;
    ga_cli_opt opts[] = {GA_OPT_VALUE("--rate", &rate), GA_OPT_VALUE("--sigma", &sigma),
                         GA_OPT_VALUE("--batch-size", &bs), GA_OPT_VALUE("--dataset-size", &ds),
                         GA_OPT_VALUE("--grid", &grid), GA_OPT_FLAG("--optimistic", &optimistic),
                         GA_OPT_END};
    int pr = ga_cli_options(argc, argv, opts, NULL, "pld", out, err, usage_pld);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if ((!rate == !(bs || ds)) || (!bs != !ds) || !sigma) {
        ga_cli_err(err, "gaussaudit pld: %s (see gaussaudit pld --help)\n",
                   !sigma ? "--sigma S is required"
                          : "give --rate Q, or --batch-size B with --dataset-size N");
        return EX_USAGE;
    }
    double h = 1e-4, v;
    if (grid && (ga_cli_parse_double(&h, grid) || !(h > 0 && h <= 1))) {
        char b[64];
        ga_cli_err(err, "gaussaudit pld: --grid: a spacing in (0, 1] is needed (got '%s')\n",
                   ga_cli_safe(b, sizeof b, grid));
        return EX_USAGE;
    }
    double b = 0, n = 0, s = 0;
    if (bs && (ga_cli_parse_double(&b, bs) || ga_cli_parse_double(&n, ds) || !(n >= 2 &&
               n <= 9007199254740992.0 && n == floor(n)) || !(b >= 1 && b < n && b == floor(b)))) {
        ga_cli_err(err, "gaussaudit pld: --batch-size and --dataset-size must be whole numbers "
                   "with 1 <= B < N <= 2^53\n");
        return EX_USAGE;
    }
    if ((rate && (ga_cli_parse_double(&v, rate) || !(v > 0 && v < 1))) ||
        ga_cli_parse_double(&s, sigma) || !(s >= 1e-3)) {
        ga_cli_err(err, "gaussaudit pld: --rate must be a decimal in (0, 1) and --sigma one of "
                   "at least 0.001\n");
        return EX_USAGE;
    }
    /* the step: Poisson at rate Q, or the fixed-size batch's (rate B/N exactly, norm 2) */
    ga_subsampled_input t = {rate ? v : b / n, s, 1, 0, rate ? rate : bs, sigma, 0, bs ? 2 : 0,
                             bs ? "2" : NULL, bs ? ds : NULL};
    ga_pld_pmf rm, ad;
    int st = ga_subsampled_pld_step(&rm, &ad, &t, h, !optimistic, ga_cli_deadline());
    if (st == GA_EMAXITER) {
        ga_cli_err(err, "gaussaudit pld: --grid %g would take more than 2^22 grid points "
                   "(a coarser grid)\n", h);
        return EX_DATAERR;
    }
    if (st != GA_OK) {
        ga_cli_err(err, "gaussaudit pld: %s\n", cl_status_text(st));
        return ga_cli_exit_status(st);
    }
    ga_jw j;
    ga_jw_init(&j, out);
    ga_jw_obj(&j, NULL);
    ga_jw_str(&j, "tool", "gaussaudit " GA_VERSION_STRING);
    ga_jw_obj(&j, "mechanism");
    ga_jw_str(&j, "kind", "subsampled_gaussian (one step)");
    if (bs) {
        ga_jw_str(&j, "sampler", "fixed_size");
        ga_jw_str(&j, "batch_size", bs);
        ga_jw_str(&j, "dataset_size", ds);
    } else {
        ga_jw_str(&j, "rate", rate);
    }
    ga_jw_str(&j, "sigma", sigma);
    ga_jw_obj_end(&j);
    ga_jw_num(&j, "value_discretization_interval", h);
    ga_jw_bool(&j, "pessimistic_estimate", !optimistic);
    write_pmf(&j, "remove", &rm);
    write_pmf(&j, "add", &ad);
    ga_jw_bool(&j, "certified", 1);
    ga_jw_obj_end(&j);
    ga_pld_pmf_clear(&rm);
    ga_pld_pmf_clear(&ad);
    return ferror(out) ? EX_IOERR : EX_OK;
}

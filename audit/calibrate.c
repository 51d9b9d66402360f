/*
 * calibrate.c - gaussaudit calibrate: the smallest value of the mechanism's noise knob such
 * that the mechanism is (eps, delta)-DP on the audited pairs, or on the proven worst case
 * when a universe is given.
 *
 * The pairs are rebuilt for each trial value (specs/spec.c: ga_spec_rebuild), delta is
 * non-increasing in the noise for every kind of the catalogue whose knob adds independent
 * Gaussian noise (post-processing), and the root of log max delta(knob) = log delta is found by
 * bisection in log(knob) to relative 1e-13. The result is then checked in ball arithmetic:
 * the certified upper bound of delta at the returned value is <= delta, and the certified
 * lower bound at the value reduced by a relative 1e-6 is > delta. The certificate is for
 * the output laws as computed in double precision from the trial value and the data.
 */
#include "reports/report.h"
#include "audit/cli.h"
#include "audit/mechanisms.h"
#include "numerics/internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ga_spec *s;
    double eps;
    char msg[1024];
    int error;
    ga_gchisq_work *w;
} cal_t;


/* worst delta over the relevant pairs at the knob value v (-1 on error) */
static double worst_delta(cal_t *c, double v)
{
    if (ga_mech_rebuild(c->s, v, c->msg, sizeof c->msg)) {
        c->error = 1;
        return -1;
    }
    size_t lo = 0, hi = c->s->npairs;
    if (c->s->verified) { /* the proven worst case dominates every other pair */
        lo = c->s->verified_pair;
        hi = lo + 1;
    }
    double m = 0;
    for (size_t i = lo; i < hi; i++) {
        ga_pair_input in;
        char labels[4][200];
        ga_spec_pair_input(&in, &c->s->pairs[i], labels);
        ga_pair *p;
        if (ga_pair_reduce(&p, &in, c->msg, sizeof c->msg)) {
            c->error = 1;
            return -1;
        }
        ga_delta D;
        ga_pair_delta(&D, p, c->eps, GA_DELTA_AUTO, NULL, c->w);
        m = fmax(m, fmax(D.xy.val + D.xy.err, D.yx.val + D.yx.err));
        ga_pair_free(p);
    }
    return m;
}

/* certified max over the relevant pairs of the (lower or upper) bound at v */
static int cert_bound(cal_t *c, double v, const char *eps, int upper, double *out)
{
    if (ga_mech_rebuild(c->s, v, c->msg, sizeof c->msg))
        return -1;
    size_t lo = 0, hi = c->s->npairs;
    if (c->s->verified) {
        lo = c->s->verified_pair;
        hi = lo + 1;
    }
    if (hi - lo > 200)
        return -2;
    double m = 0;
    for (size_t i = lo; i < hi; i++) {
        ga_pair_input in;
        char labels[4][200];
        ga_spec_pair_input(&in, &c->s->pairs[i], labels);
        ga_pair *p;
        if (ga_pair_reduce(&p, &in, c->msg, sizeof c->msg))
            return -1;
        ga_delta_cert dc;
        int st = ga_pair_delta_cert(&dc, p, &in, NULL, eps, NULL);
        ga_pair_free(p);
        if (st != GA_OK && st != GA_EPREC)
            return -1;
        m = fmax(m, upper ? fmax(dc.xy.hi, dc.yx.hi) : fmax(dc.xy.lo, dc.yx.lo));
    }
    *out = m;
    return 0;
}

static const char *usage_calibrate =
    "usage: gaussaudit calibrate SPEC.yaml --epsilon E --delta D [--format text|json]\n"
    "                            [--allow-path DIR]\n"
    "\n"
    "The smallest value of the mechanism's noise parameter (sigma; noise_sigma for sketch)\n"
    "such that the mechanism is (E, D)-DP on the spec's neighbouring pairs, or on the proven\n"
    "worst case when the spec has a universe. Certified: delta at the returned value has a\n"
    "certified upper bound <= D, and at the value reduced by a relative 1e-6 a certified\n"
    "lower bound > D. Published calibrations are printed for comparison where they exist\n"
    "(classic Gaussian, analytic Gaussian, Ding et al. (12), the LSV-based sketch bound, the\n"
    "NDIS paper's M_LS rule for linear_regression with a universe).\n";

/* the smallest knob value with worst delta <= delta: a bracket by doubling or halving from
 * v0, then bisection in log(v) to 1e-13 relative. 0 with *value (the upper end), or -1 after
 * printing the error. */
static int cal_search(cal_t *c, double delta, double v0, double *value, const char *spec, FILE *err)
{
    /* bracket: g(v) = log worst delta - log delta, decreasing in v */
    double lo = v0, hi = v0, f = worst_delta(c, v0);
    if (c->error)
        goto fail;
    int it = 0;
    if (f > delta) {
        while (f > delta && it++ < 200) {
            lo = hi;
            hi *= 2;
            f = worst_delta(c, hi);
            if (c->error)
                goto fail;
        }
    } else {
        while (f <= delta && it++ < 200 && lo > 1e-300) {
            hi = lo;
            lo /= 2;
            f = worst_delta(c, lo);
            if (c->error)
                goto fail;
        }
    }
    if (it >= 200 || f < 0) {
        ga_cli_err(err, "gaussaudit calibrate: %s: no noise level in [1e-300, 1e300] brackets delta = %g\n",
                spec, delta);
        return -1;
    }
    /* bisection in log(v) */
    for (int k = 0; k < 200 && (hi - lo) > 1e-13 * hi; k++) {
        double mid = sqrt(lo * hi);
        if (!(mid > lo && mid < hi))
            mid = 0.5 * (lo + hi);
        double fm = worst_delta(c, mid);
        if (c->error)
            goto fail;
        if (fm > delta)
            lo = mid;
        else
            hi = mid;
    }
    *value = hi;
    return 0;
fail:
    ga_cli_err(err, "gaussaudit calibrate: %s\n", c->msg);
    return -1;
}

/* certify: delta <= D at the returned value (raised by the certified width if needed) and
 * delta > D at the value 1e-6 lower. Sets *certified, and *cerr (1: a check failed, 2: more
 * pairs than certification covers). */
static void cal_certify(cal_t *c, double eps, double delta, double *value_io, double *ub_out,
                        double *lb_out, int *certified_out, int *cerr_out)
{
    /* certify: upper bound at the returned value, lower bound just below */
    double value = *value_io, ub = NAN, lb = NAN;
    int certified = 0, cerr = 0;
    char es[64];
    snprintf(es, sizeof es, "%.17g", eps);
    for (int k = 0; k < 12; k++) {
        int r1 = cert_bound(c, value, es, 1, &ub);
        if (r1 == -2) {
            cerr = 2;
            break;
        }
        if (r1 == 0 && ub <= delta)
            break;
        if (r1 != 0) {
            cerr = 1;
            break;
        }
        value *= 1 + 1e-14 * pow(8, k); /* just enough to clear the certified width */
    }
    if (!cerr && ub <= delta && cert_bound(c, value * (1 - 1e-6), es, 0, &lb) == 0 && lb > delta)
        certified = 1;
    *value_io = value;
    *ub_out = ub;
    *lb_out = lb;
    *certified_out = certified;
    *cerr_out = cerr;
}

/* the published calibrations of the spec's kind (the kind table's hook, audit/mechanisms.c):
 * their text lines into pub */
static size_t cal_published(ga_spec *sp, cal_t *c, double eps, double delta, double value,
                            char *pub, size_t npub, ga_mech_published *pv, size_t max)
{
    size_t np = ga_mech_published_values(pv, max, sp, eps, delta, value, c->w), kp = 0;
    pub[0] = 0;
    for (size_t i = 0; i < np; i++)
        if (pv[i].text[0])
            kp += (size_t)snprintf(pub + kp, kp < npub ? npub - kp : 0, "  %s\n", pv[i].text);
    return np;
}

static void cal_print(FILE *out, const ga_spec *sp, const char *knob, double eps, double delta,
                      double value, double ub, double lb, int certified, int cerr, int json,
                      const char *pub, const ga_mech_published *pv, size_t np)
{
    int kp = pub[0] != 0;
    if (json) {
        ga_jw j;
        ga_jw_init(&j, out);
        ga_jw_obj(&j, NULL);
        ga_jw_str(&j, "spec", sp->path);
        ga_jw_str(&j, "kind", sp->kind);
        ga_jw_str(&j, "knob", knob);
        ga_jw_num(&j, "epsilon", eps);
        ga_jw_num(&j, "delta", delta);
        ga_jw_num(&j, "value", value);
        ga_jw_str(&j, "scope", sp->verified ? "proven worst case" : "audited pairs");
        ga_jw_bool(&j, "certified", certified);
        ga_jw_obj(&j, "check");
        ga_jw_num(&j, "upper_at_value", ub);
        ga_jw_num(&j, "lower_below", lb);
        ga_jw_obj_end(&j);
        ga_jw_arr(&j, "published");
        for (size_t i = 0; i < np; i++) {
            ga_jw_obj(&j, NULL);
            ga_jw_str(&j, "name", pv[i].name);
            ga_jw_num(&j, "value", pv[i].value);
            if (!isnan(pv[i].leverage)) {
                ga_jw_num(&j, "leverage", pv[i].leverage);
                ga_jw_num(&j, "exact_leverage", pv[i].exact_leverage);
            }
            ga_jw_obj_end(&j);
        }
        ga_jw_arr_end(&j);
        ga_jw_obj_end(&j);
    } else {
        fprintf(out, "spec: %s (%s)\nsmallest %s for (%g, %g)-DP on %s: %.12g\n", sp->name, sp->kind, knob, eps,
                delta, sp->verified ? "the proven worst case (every neighbour in the universe)"
                                  : "the audited pairs",
                value);
        if (certified) {
            char bu[32], bl[32];
            ga_fmt_bound(bu, sizeof bu, ub, 1, 10); /* outward: still bounds as printed */
            ga_fmt_bound(bl, sizeof bl, lb, 0, 10);
            fprintf(out, "certified: delta <= %s at %s = %.12g, delta >= %s at %.12g (1e-6 lower)\n",
                    bu, knob, value, bl, value * (1 - 1e-6));
        }
        else
            fprintf(out, "not certified (%s); the value is an estimate\n",
                    cerr == 2 ? "more than 200 pairs" : "the certified check did not confirm it");
        if (kp)
            fprintf(out, "published calibrations:\n%s", pub);
    }
}

int ga_cmd_calibrate(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    ga_spec_opts so = {.allow_paths = allow};
    if ((argc = ga_cli_take_multi(argc, argv, "--allow-path", allow, GA_SPEC_MAX_ALLOW,
                                  &so.nallow, "calibrate", err)) < 0)
        return EX_USAGE;
    const char *spec = NULL, *seps = NULL, *sdel = NULL, *sfmt = NULL;
    ga_cli_opt opts[] = {{"--epsilon", &seps, NULL}, {"--delta", &sdel, NULL},
                         {"--format", &sfmt, NULL}, {NULL, NULL, NULL}};
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
        return EX_DATAERR;
    }
    if (ga_cli_parse_double(&delta, sdel) || !(delta > 0 && delta < 1)) {
        ga_cli_err(err, "gaussaudit calibrate: --delta must be a number in (0, 1) (got '%s')\n", sdel);
        return EX_DATAERR;
    }
    ga_spec s;
    char msg[1024];
    int st = ga_mech_load(&s, spec, &so, msg, sizeof msg);
    if (st) {
        ga_cli_err(err, "gaussaudit calibrate: %s\n", msg);
        return st == GA_EIO ? EX_NOINPUT : EX_DATAERR;
    }
    int rc = EX_DATAERR;
    s.has_focus_eps = 1; /* universe worst cases at the eps being calibrated */
    s.focus_eps = eps;
    const char *knob = ga_mech_knob(&s);
    cal_t c = {&s, eps, "", 0, ga_gchisq_work_alloc()};
    if (!knob) {
        ga_cli_err(err, "gaussaudit calibrate: %s: kind %s has no noise parameter to calibrate\n", spec, s.kind);
        goto cleanup;
    }
    if (ga_node_get(s.mechanism, "noise_cov")) {
        ga_cli_err(err, "gaussaudit calibrate: %s: mechanism.noise_cov: calibrate scales sigma; give "
                     "sigma instead of a noise covariance\n", spec);
        goto cleanup;
    }
    double v0 = 1, cur, value, ub, lb;
    int certified, cerr;
    if (ga_spec_mech_number(&s, knob, &cur, 0, msg, sizeof msg) == GA_OK && cur > 0)
        v0 = cur;
    if (cal_search(&c, delta, v0, &value, spec, err))
        goto cleanup;
    cal_certify(&c, eps, delta, &value, &ub, &lb, &certified, &cerr);
    char pub[2048];
    ga_mech_published pv[8];
    size_t np = cal_published(&s, &c, eps, delta, value, pub, sizeof pub, pv, 8);
    cal_print(out, &s, knob, eps, delta, value, ub, lb, certified, cerr, json, pub, pv, np);
    rc = ferror(out) ? EX_IOERR : EX_OK;
cleanup:
    ga_gchisq_work_free(c.w);
    ga_spec_clear(&s);
    return rc;
}

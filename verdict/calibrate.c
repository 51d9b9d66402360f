/*
 * calibrate.c - calibration (verdict layer, public as ga_calibrate_spec_*): the smallest value of the mechanism's noise knob such
 * that the mechanism is (eps, delta)-DP on the audited pairs, or on the proven worst case
 * when a universe is given.
 *
 * The pairs are rebuilt for each trial value (specs/spec.c: ga_spec_rebuild), delta is
 * non-increasing in the noise for every kind of the catalogue whose knob adds independent
 * Gaussian noise (post-processing), and the root of log max delta(knob) = log delta is found by
 * bisection (in log(knob), then in knob) to adjacent doubles. The result is then checked in
 * ball arithmetic:
 * the certified upper bound of delta at the returned value is <= delta, and the certified
 * lower bound at the value reduced by a relative 1e-6 is > delta. The certificate is for
 * the output laws as computed in double precision from the trial value and the data.
 */
#include "verdict/calibrate.h"
#include "verdict/audit.h"
#include "numerics/numerics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ga_spec *s;
    ga_pairset *set;       /* s's pairs, rebuilt at each value tried */
    ga_build_opts bo;      /* how: the deadline, the eps, the part tuned */
    double eps;
    char msg[1024];
    int error;
    double deadline;
    ga_gchisq_work *w;
    int conservative; /* no certified check possible: search on estimate + error */
} cal_t;


/* worst delta over the relevant pairs at the knob value v (-1 on error) */
static double worst_delta(cal_t *c, double v)
{
    if (ga_expired(c->deadline)) {
        ga_msg(c->msg, sizeof c->msg, "%s: the --timeout budget ran out during the search",
               c->s->path);
        c->error = GA_ETIME;
        return -1;
    }
    if (ga_mech_rebuild(c->set, c->s, &c->bo, v, c->msg, sizeof c->msg)) {
        c->error = GA_EINVAL;
        return -1;
    }
    size_t lo = 0, hi = c->set->npairs;
    if (c->set->verified) { /* the proven worst case dominates every other pair */
        lo = c->set->verified_pair;
        hi = lo + 1;
    }
    double m = 0;
    for (size_t i = lo; i < hi; i++) {
        ga_pair *p;
        if (ga_mech_pair_reduce(&p, &c->set->pairs[i], c->msg, sizeof c->msg)) {
            c->error = GA_EINVAL;
            return -1;
        }
        ga_delta D;
        int st = ga_pair_delta(&D, p, c->eps, GA_DELTA_AUTO, NULL, c->w);
        if ((st != GA_OK && st != GA_ETOL) || isnan(D.xy.val) || isnan(D.yx.val))
            D.xy.val = D.yx.val = 1; /* no value: never taken for a value below the claim */
        /* the estimate itself: the root is the exact calibration to the double, and the
         * certified check below decides whether delta <= D really holds there; where no
         * certified check will be made (too many pairs), the estimate plus its error, so that
         * the uncertified value errs on the safe side */
        m = fmax(m, c->conservative ? fmax(D.xy.val + D.xy.err, D.yx.val + D.yx.err)
                                    : fmax(D.xy.val, D.yx.val));
        ga_pair_free(p);
    }
    return m;
}

/* certified max over the relevant pairs of the (lower or upper) bound at v */
static int cert_bound(cal_t *c, double v, const char *eps, double delta, int upper, double *out)
{
    if (ga_mech_rebuild(c->set, c->s, &c->bo, v, c->msg, sizeof c->msg))
        return -1;
    size_t lo = 0, hi = c->set->npairs;
    if (c->set->verified) {
        lo = c->set->verified_pair;
        hi = lo + 1;
    }
    if (hi - lo > 200)
        return -2;
    double m = 0;
    for (size_t i = lo; i < hi; i++) {
        ga_pair *p;
        ga_spec_pair_view v;
        if (ga_mech_pair_reduce(&p, &c->set->pairs[i], c->msg, sizeof c->msg))
            return -1;
        if (ga_spec_pair_view_init(&v, &c->set->pairs[i], 1)) {
            ga_pair_free(p);
            return -1;
        }
        ga_delta_cert dc;
        ga_cert_opts co;
        ga_cert_opts_init(&co);
        co.deadline = c->deadline;
        /* digits enough to separate the pair from the claim: a pair far from it needs few */
        ga_delta D;
        double e = NAN; /* (unreadable: no tuning of the digits) */
        ga_decimal_to_double(&e, eps);
        if (ga_pair_delta(&D, p, e, GA_DELTA_AUTO, NULL, c->w) == GA_OK && delta > 0) {
            double gap = fabs(delta - fmax(D.xy.val, D.yx.val)) / delta;
            if (gap > 0 && isfinite(gap))
                co.digits = (int)fmin(co.digits, fmax(3, ceil(-log10(gap)) + 3));
        }
        int st = ga_pair_delta_cert(&dc, p, v.in, NULL, eps, &co);
        ga_spec_pair_view_clear(&v);
        if (st == GA_ETIME) {
            ga_pair_free(p);
            return -3;
        }
        ga_pair_free(p);
        /* (no enclosure at any precision, [0, 1]: no value of the knob will certify it) */
        if ((st != GA_OK && st != GA_EPREC) || (st == GA_EPREC && upper && fmax(dc.xy.hi, dc.yx.hi) >= 1))
            return -1;
        m = fmax(m, upper ? fmax(dc.xy.hi, dc.yx.hi) : fmax(dc.xy.lo, dc.yx.lo));
    }
    *out = m;
    return 0;
}

/* the smallest knob value with worst delta <= delta: a bracket by doubling or halving from
 * v0, then bisection to adjacent doubles. GA_OK with *value (the upper end), or an
 * error status with the message in c->msg. */
static int cal_search(cal_t *c, double delta, double v0, double *value)
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
        ga_msg(c->msg, sizeof c->msg, "%s: no noise level in [1e-300, 1e300] brackets delta = %g",
               c->s->path, delta);
        return GA_EDOM;
    }
    /* bisection in log(v) while the bracket is wide, then in v down to adjacent doubles: the
     * value is the smallest double whose estimated delta (plus its error) is <= delta */
    for (int k = 0; k < 400 && nextafter(lo, INFINITY) < hi; k++) {
        double mid = hi > 2 * lo ? sqrt(lo * hi) : lo + 0.5 * (hi - lo);
        if (!(mid > lo && mid < hi))
            mid = 0.5 * (lo + hi);
        if (!(mid > lo && mid < hi))
            break; /* adjacent already */
        double fm = worst_delta(c, mid);
        if (c->error)
            goto fail;
        if (fm > delta)
            lo = mid;
        else
            hi = mid;
    }
    *value = hi;
    return GA_OK;
fail:
    return c->error;
}

/* certify: delta <= D at the returned value (raised by the certified width if needed) and
 * delta > D at the value 1e-6 lower. Sets *certified, and *cerr (1: a check failed, 2: more
 * pairs than certification covers, 3: the deadline passed). */
static void cal_certify(cal_t *c, double eps, double delta, double *value_io, double *ub_out,
                        double *lb_out, int *certified_out, int *cerr_out)
{
    /* certify: upper bound at the returned value, lower bound just below */
    double value = *value_io, ub = NAN, lb = NAN;
    int certified = 0, cerr = 0;
    char es[64];
    snprintf(es, sizeof es, "%.17g", eps);
    for (int k = 0; k < 64; k++) {
        int r1 = cert_bound(c, value, es, delta, 1, &ub);
        if (r1 == -2 || r1 == -3) {
            cerr = r1 == -2 ? 2 : 3;
            break;
        }
        if (r1 == 0 && ub <= delta)
            break;
        if (r1 != 0) {
            cerr = 1;
            break;
        }
        /* just enough to clear the certified width: 1, 2, 4, ... ulps up */
        double up = value;
        for (int u = 0; u < (1 << (k < 20 ? k : 20)); u++)
            up = nextafter(up, INFINITY);
        value = k < 20 ? up : value * (1 + ldexp(1.0, k - 60));
    }
    if (!cerr && ub <= delta && cert_bound(c, value * (1 - 1e-6), es, delta, 0, &lb) == 0 && lb > delta)
        certified = 1;
    *value_io = value;
    *ub_out = ub;
    *lb_out = lb;
    *certified_out = certified;
    *cerr_out = cerr;
}

/* the published calibrations of the spec's kind (the kind table's hook, catalogue/catalogue.c):
 * their text lines into pub */
static size_t cal_published(cal_t *c, double eps, double delta, double value, char *pub,
                            size_t npub, ga_mech_published *pv, size_t max)
{
    size_t np = ga_mech_published_values(pv, max, c->set, c->s, &c->bo, eps, delta, value, c->w);
    size_t kp = 0;
    pub[0] = 0;
    for (size_t i = 0; i < np; i++)
        if (pv[i].text[0])
            kp += (size_t)snprintf(pub + kp, kp < npub ? npub - kp : 0, "  %s\n", pv[i].text);
    return np;
}


/* load, search, certify, compare: the calibration of the spec in r->spec */
static int calibrate(struct ga_calibration *r, cal_t *c, char *msg, size_t msglen)
{
    ga_spec *s = &r->spec;
    r->knob = ga_mech_knob(s);
    if (!r->knob) {
        ga_msg(msg, msglen, "%s: kind %s has no noise parameter to calibrate", s->path, s->kind);
        return GA_EINVAL;
    }
    double v0 = 1, cur;
    if (ga_spec_mech_number(s, r->knob, &cur, 0, msg, msglen) == GA_OK && cur > 0)
        v0 = cur;
    if (r->part) { /* one part of a composition */
        const char *pk;
        if (ga_mech_part_knob(s, r->part, &pk, &cur)) {
            ga_msg(msg, msglen, "%s: --part %zu: not a part of a composition with a noise "
                   "parameter", s->path, r->part);
            return GA_EINVAL;
        }
        c->bo.knob_part = r->part;
        snprintf(r->knob_text, sizeof r->knob_text, "parts[%zu].%s", r->part, pk);
        r->knob = r->knob_text;
        v0 = cur > 0 ? cur : 1;
    }
    if (ga_node_get(s->mechanism, "noise_cov"))
        r->knob = "sigma (the factor of the noise: sigma^2 noise_cov)";
    c->conservative = !r->set.verified && r->set.npairs > 200; /* cert_bound's cap */
    /* no noise at all may be enough (a knob that may be 0, e.g. the sketch's noise_sigma when
     * the data span every column); a kind that needs noise refuses 0 and the search starts */
    double f0 = worst_delta(c, 0);
    if (!c->error && f0 >= 0 && f0 <= r->delta) {
        r->value = 0;
        char es[64];
        snprintf(es, sizeof es, "%.17g", r->eps);
        int e = cert_bound(c, 0, es, r->delta, 1, &r->ub);
        r->certified = e == 0 && r->ub <= r->delta; /* nothing lies below 0 */
        r->cerr = e == -2 ? 2 : e == -3 ? 3 : r->certified ? 0 : 1;
        r->np = cal_published(c, r->eps, r->delta, r->value, r->pub, sizeof r->pub, r->pv,
                              GA_CAL_MAX_PUBLISHED);
        return GA_OK;
    }
    c->error = 0;
    if (c->msg[0] && ga_expired(c->deadline)) {
        ga_msg(msg, msglen, "%s", c->msg);
        return GA_ETIME;
    }
    int st = cal_search(c, r->delta, v0, &r->value);
    if (st) {
        ga_msg(msg, msglen, "%s", c->msg);
        return st;
    }
    cal_certify(c, r->eps, r->delta, &r->value, &r->ub, &r->lb, &r->certified, &r->cerr);
    r->np = cal_published(c, r->eps, r->delta, r->value, r->pub, sizeof r->pub, r->pv,
                          GA_CAL_MAX_PUBLISHED);
    return GA_OK;
}

static int cal_pipeline(ga_calibration **out, const char *path, const char *text, size_t len,
                        double eps, double delta, const ga_audit_options *opts, char *msg,
                        size_t msglen)
{
    *out = NULL;
    ga_audit_options def;
    ga_audit_options_init(&def);
    if (!opts)
        opts = &def;
    if (!(eps >= 0) || !isfinite(eps)) {
        ga_msg(msg, msglen, "epsilon must be a finite number >= 0 (got %g)", eps);
        return GA_EINVAL;
    }
    if (!(delta > 0 && delta < 1)) {
        ga_msg(msg, msglen, "delta must be in (0, 1) (got %g)", delta);
        return GA_EINVAL;
    }
    struct ga_calibration *r = calloc(1, sizeof *r);
    if (!r)
        return GA_ENOMEM;
    double deadline = opts->timeout > 0 ? ga_monotonic() + opts->timeout : 0;
    ga_spec_opts so = {.allow_paths = opts->allow_paths, .nallow = opts->nallow,
                       .jobs = opts->jobs};
    /* universe worst cases at the eps being calibrated */
    ga_build_opts bo = {.deadline = deadline, .jobs = ga_par_jobs(opts->jobs), .neps = 1,
                        .eps = {eps}};
    int st = text ? ga_mech_parse(&r->spec, &r->set, text, len, path, &so, &bo, msg, msglen)
                  : ga_mech_load(&r->spec, &r->set, path, &so, &bo, msg, msglen);
    ga_claim_list cl = {0}; /* (the spec's claims are checked as the audit checks them) */
    if (st == GA_OK && (st = ga_claim_list_parse(&cl, &r->spec, msg, msglen)))
        ga_mech_clear(&r->spec, &r->set);
    free(cl.c);
    if (st) {
        free(r);
        return st;
    }
    r->eps = eps;
    r->delta = delta;
    r->part = opts->part;
    r->ub = r->lb = NAN;
    cal_t c = {&r->spec, &r->set, bo, eps, "", 0, deadline, ga_gchisq_work_alloc(), 0};
    st = c.w ? calibrate(r, &c, msg, msglen) : GA_ENOMEM;
    ga_gchisq_work_free(c.w);
    if (st) {
        ga_calibration_free(r);
        return st;
    }
    *out = r;
    return GA_OK;
}

int ga_calibrate_spec_file(ga_calibration **out, const char *path, double eps, double delta,
                           const ga_audit_options *opts, char *msg, size_t msglen)
{
    return cal_pipeline(out, path, NULL, 0, eps, delta, opts, msg, msglen);
}

int ga_calibrate_spec_text(ga_calibration **out, const char *text, size_t len, const char *name,
                           double eps, double delta, const ga_audit_options *opts, char *msg,
                           size_t msglen)
{
    return cal_pipeline(out, name ? name : "<spec>", text, len, eps, delta, opts, msg, msglen);
}

void ga_calibration_free(ga_calibration *c)
{
    if (!c)
        return;
    ga_mech_clear(&c->spec, &c->set);
    free(c);
}


void ga_calibration_get(ga_calibration_info *out, const ga_calibration *c)
{
    memset(out, 0, sizeof *out);
    out->spec_name = c->spec.name;
    out->spec_path = c->spec.path;
    out->kind = c->spec.kind;
    out->knob = c->knob;
    out->epsilon = c->eps;
    out->delta = c->delta;
    out->value = c->value;
    out->worst_case = c->set.verified;
    out->certified = c->certified;
    out->upper_at_value = c->ub;
    out->lower_below = c->lb;
    out->note = c->certified ? ""
                : c->cerr == 2   ? "more than 200 pairs"
                : c->cerr == 3   ? "the --timeout budget ran out before the certified check"
                                 : "the certified check did not confirm it";
    out->npublished = c->np;
}

int ga_calibration_published(ga_published_info *out, const ga_calibration *c, size_t i)
{
    if (i >= c->np)
        return GA_EINVAL;
    out->name = c->pv[i].name;
    out->value = c->pv[i].value;
    out->leverage = c->pv[i].leverage;
    out->exact_leverage = c->pv[i].exact_leverage;
    out->text = c->pv[i].text;
    return GA_OK;
}

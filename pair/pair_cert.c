/*
 * pair_cert.c - certified delta, epsilon and Renyi divergences of a pair, whatever its
 * variant: the Gaussian pair (cert_gauss.c, whose top comment states the method), products
 * of blocks, and the pairs whose loss is one-dimensional (cert_loss.c). Epsilon is bracketed
 * between certified deltas; Renyi divergences of Gaussian pairs are closed forms in exact
 * balls, of subsampled pairs certified trapezoid sums (pair/ploss_cert.c).
 */
#include "pair/cert_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ga_pair_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                       const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    if (!ga_cert_available(NULL)) {
        pc_cert_unknown(out);
        return GA_EDEP;
    }
    return p->type->delta_cert(out, p, in, txt, eps, opts);
}

/* out: [0, 1] in both directions (what is known before anything is certified) */
void pc_cert_unknown(ga_delta_cert *out)
{
    memset(out, 0, sizeof *out);
    out->xy.hi = out->yx.hi = 1;
    strcpy(out->xy_lo, "0");
    strcpy(out->yx_lo, "0");
    strcpy(out->xy_hi, "1");
    strcpy(out->yx_hi, "1");
}

/* certified max(delta_xy, delta_yx) at eps (double, printed exactly): upper and lower ends;
 * GA_OK where they are usable, GA_OK and GA_EPREC both (the intervals then contain the true
 * values, only wider than the digits asked: few subsampled steps, envelopes) */
static int cert_at(double eps, const ga_pair *p, const ga_pair_input *in, const ga_pair_text *txt,
                   const ga_cert_opts *o, ga_delta_cert *c)
{
    char es[64];
    snprintf(es, sizeof es, "%.17g", eps);
    int st = ga_pair_delta_cert(c, p, in, txt, es, o);
    return st == GA_EPREC ? GA_OK : st;
}

/* Where no bracket around the estimate could be certified: [0, the smallest certified
 * RDP conversion] (Mironov 2017, Prop. 3: a pair with D_alpha <= rho in both directions is
 * (rho + log(1/delta)/(alpha - 1), delta)-DP), over a few orders, each bound rounded up. A
 * valid bracket, wide where the orders are coarse. GA_OK (eps->hi finite) or GA_EDOM. */
static int rdp_bracket(ga_interval *eps, const ga_pair *p, const ga_pair_input *in,
                       const ga_pair_text *txt, const char *delta, const ga_cert_opts *o)
{
    static const char *const orders[] = {"1.5", "2", "3", "5", "8", "12", "20", "32", "64", "128"};
    double best = INFINITY;
    arb_t d, a, v;
    arb_init(d);
    arb_init(a);
    arb_init(v);
    arb_set_str(d, delta, PARSE_PREC);
    arb_log(d, d, 128);
    arb_neg(d, d); /* log(1/delta) */
    for (size_t k = 0; k < sizeof orders / sizeof *orders && !ga_expired(o->deadline); k++) {
        ga_interval cx, cy;
        int st = ga_pair_renyi_cert(&cx, &cy, p, in, txt, orders[k], o);
        double D = fmax(cx.hi, cy.hi);
        if ((st != GA_OK && st != GA_EPREC) || !isfinite(D))
            continue;
        arb_set_str(a, orders[k], 64);
        arb_sub_ui(a, a, 1, 64);
        arb_div(v, d, a, 128);
        arb_set_d(a, D);
        arb_add(v, v, a, 128);
        ga_interval iv;
        ga_arb_bounds(&iv, v);
        best = fmin(best, iv.hi);
    }
    arb_clear(d);
    arb_clear(a);
    arb_clear(v);
    if (!isfinite(best))
        return GA_EDOM;
    eps->lo = 0;
    eps->hi = best;
    return GA_OK;
}

/* -d/deps of max(delta_xy, delta_yx) at x, from double estimates 1e-3 x on either side
 * (only the search's step sizes rest on it); NAN where they give none */
static double delta_slope(const ga_pair *p, double x, const ga_gchisq_opts *go)
{
    double h = fmax(1e-3 * x, 1e-9), a = fmax(x - h, 0), b = x + h;
    ga_delta da, db;
    int sa = ga_pair_delta(&da, p, a, GA_DELTA_AUTO, go, NULL);
    int sb = ga_pair_delta(&db, p, b, GA_DELTA_AUTO, go, NULL);
    if ((sa != GA_OK && sa != GA_ETOL) || (sb != GA_OK && sb != GA_ETOL))
        return NAN;
    double s = (fmax(da.xy.val, da.yx.val) - fmax(db.xy.val, db.yx.val)) / (b - a);
    return s > 0 ? s : NAN;
}

/* One end of the certified eps around the estimate x: the step h (from *h, each next at
 * least twice the last) at which max(delta_xy, delta_yx) at x + h is certified <= target
 * (upper) or at x - h certified > target (lower; h = x when x - h reaches 0: the claim eps =
 * 0 may already hold). Where a certified interval misses by more than the step's effect on
 * delta (the bracket of few steps, envelopes), the next step comes from delta's slope at x
 * (*slope, computed once), not eight times the last one by one, where that interval is
 * within a factor 2 (a wider one, such as [0, 1], says nothing of how far to go). binding: the lower end's
 * binding direction (1 xy, 2 yx). lower: the upper end's last certified lower bound of
 * delta, at x + h (where the lower end's search starts from). GA_OK, GA_EPREC (12 steps
 * without), GA_ETIME. */
static int cert_end(double *h, int *binding, double *lower, int upper, double x, double target,
                    const arb_t t, double *slope, const ga_pair *p, const ga_pair_input *in,
                    const ga_pair_text *txt, const ga_cert_opts *o, const ga_gchisq_opts *go)
{
    for (int it = 0; it < 12; it++) {
        if (ga_expired(o->deadline))
            return GA_ETIME;
        double e = upper ? x + *h : x - *h, next = 8 * *h;
        if (!upper && !(e > 0)) {
            *h = x;
            return GA_OK;
        }
        ga_delta_cert c;
        if (cert_at(e, p, in, txt, o, &c) == GA_OK) {
            double v = upper ? fmax(c.xy.hi, c.yx.hi) : fmax(c.xy.lo, c.yx.lo);
            if (upper)
                *lower = fmax(c.xy.lo, c.yx.lo);
            arb_t b;
            arb_init(b);
            arb_set_d(b, v); /* (outward double bounds) */
            int ok = upper ? arb_le(b, t) : arb_gt(b, t);
            arb_clear(b);
            if (ok) {
                if (!upper)
                    *binding = c.xy.lo >= c.yx.lo ? 1 : 2;
                return GA_OK;
            }
            /* (an interval within a factor 2: a value, not a bound such as [0, 1]) */
            double miss = upper ? v - target : target - v;
            if (2 * fmax(c.xy.lo, c.yx.lo) >= fmax(c.xy.hi, c.yx.hi)) {
                if (*slope == 0)
                    *slope = delta_slope(p, x, go);
                if (*slope > 0 && isfinite(miss / *slope))
                    next = fmax(2 * *h, *h + 1.25 * miss / *slope);
            }
        }
        *h = next;
    }
    return GA_EPREC;
}

int ga_pair_epsilon_cert(ga_interval *eps, int *direction, const ga_pair *p,
                         const ga_pair_input *in, const ga_pair_text *txt, const char *delta,
                         const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    eps->lo = 0;
    eps->hi = INFINITY;
    *direction = 0;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    double target;
    if (ga_decimal_to_double(&target, delta) || !(target > 0 && target < 1))
        return GA_EINVAL;
    if (p->support == GA_SUPPORT_DIFFER)
        return GA_EDOM;
    /* compare certified bounds with the exact decimal target */
    arb_t t;
    arb_init(t);
    arb_set_str(t, delta, PARSE_PREC);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_result er;
    ga_gchisq_opts go;
    ga_gchisq_opts_init(&go);
    go.deadline = o.deadline;
    int rc = w ? ga_pair_epsilon(&er, direction, p, target, &go, w) : GA_ENOMEM;
    ga_gchisq_work_free(w);
    if (rc != GA_OK && rc != GA_ETOL) {
        if (rc != GA_ENOMEM && rc != GA_ETIME && rdp_bracket(eps, p, in, txt, delta, &o) == GA_OK)
            rc = GA_EPREC;
        goto cleanup;
    }
    rc = GA_EPREC;
    double x = er.val, h0 = fmax(1e-12 * x, 1e-14) + 2 * er.err, hh = h0, hl = h0, slope = 0;
    double lower = NAN;
    int st = cert_end(&hh, direction, &lower, 1, x, target, t, &slope, p, in, txt, &o, &go);
    /* the lower end from the upper end's certified lower bound, where the slope is known:
     * that bound at x - hl is about lower + slope (hh + hl) */
    if (st == GA_OK && slope > 0 && lower > 0 && isfinite((target - lower) / slope))
        hl = fmax(h0, 1.25 * ((target - lower) / slope - hh));
    if (st == GA_OK)
        st = cert_end(&hl, direction, &lower, 0, x, target, t, &slope, p, in, txt, &o, &go);
    if (st == GA_OK) {
        eps->lo = x - hl; /* (0 where the lower end reached 0: hl = x) */
        eps->hi = x + hh;
        rc = GA_OK;
    } else if (st == GA_ETIME) {
        rc = GA_ETIME;
    }
    if (rc == GA_EPREC) /* no bracket around the estimate: at least a certified upper end */
        rdp_bracket(eps, p, in, txt, delta, &o);
cleanup:
    arb_clear(t);
    return rc;
}

int ga_pair_renyi_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                       const ga_pair_input *in, const ga_pair_text *txt, const char *alpha_txt,
                       const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    xy->lo = yx->lo = 0;
    xy->hi = yx->hi = INFINITY;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    double alpha;
    if (ga_decimal_to_double(&alpha, alpha_txt) || o.digits < 1 || o.max_prec < 64)
        return GA_EINVAL;
    if (!(alpha > 1))
        return GA_EDOM;
    return p->type->renyi_cert ? p->type->renyi_cert(xy, yx, p, in, txt, alpha_txt, &o) : GA_EDOM;
}

/*
 * prob.c - the engine front end: options, method names, workspace, and the dispatch of
 * ga_gchisq_prob_eval (auto: exact answers for degenerate forms, closed forms where they
 * apply, otherwise the saddle-point contour engine).
 */
#include "numerics/numerics.h"

#include <float.h>

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *method_names[GA_NMETHOD] = {"auto", "imhof", "davies", "contour", "closed",
                                               "arb"};

const char *ga_method_name(int method)
{
    if (method < 0 || method >= GA_NMETHOD)
        return "unknown";
    return method_names[method];
}

int ga_method_parse(const char *name)
{
    for (int m = 0; m < GA_NMETHOD; m++)
        if (strcmp(name, method_names[m]) == 0)
            return m;
    return -1;
}

void ga_gchisq_opts_init(ga_gchisq_opts *o)
{
    memset(o, 0, sizeof *o); /* (deadline 0: none) */
    o->method = GA_METHOD_AUTO;
    o->epsabs = 0;
    o->epsrel = 1e-13;
    o->max_evals = 200000;
}

ga_gchisq_work *ga_gchisq_work_alloc(void)
{
    ga_gchisq_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->qn = ga_gchisq_alloc(16);
    if (!w->qn) {
        free(w);
        return NULL;
    }
    return w;
}

void ga_gchisq_work_free(ga_gchisq_work *w)
{
    if (!w)
        return;
    ga_gchisq_free(w->qn);
    if (w->quad.bcache_free)
        w->quad.bcache_free(w->quad.bcache);
    free(w);
}

/* The larger relative error of the two tails (infinite for a zero value with an error). */
static double worst_rel_err(const ga_gchisq_prob *p)
{
    double r = 0;
    const ga_result *t[2] = {&p->cdf, &p->sf};
    for (int i = 0; i < 2; i++)
        if (t[i]->err > 0)
            r = fmax(r, t[i]->val > 0 ? t[i]->err / t[i]->val : INFINITY);
    return isnan(r) ? INFINITY : r;
}

/* A closed form whose tail underflowed to 0 has no log (log 0): take the log of that tail
 * from the contour engine, which integrates on the log scale. */
static void underflow_logs(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                           const ga_gchisq_opts *o, ga_quad_work *w)
{
    if ((out->sf.val > 0 || isfinite(out->log_sf)) && (out->cdf.val > 0 || isfinite(out->log_cdf)))
        return;
    ga_gchisq_prob c;
    if (ga_engine_contour(&c, q, x, o, w) != GA_EDOM) {
        if (out->sf.val == 0 && !isfinite(out->log_sf))
            out->log_sf = c.log_sf;
        if (out->cdf.val == 0 && !isfinite(out->log_cdf))
            out->log_cdf = c.log_cdf;
    }
}

/*
 * auto, by cost: in the bulk of a form of many terms, Davies' trapezoid (rigorous
 * discretisation and truncation bounds) needs a few dozen nodes where the contour integral
 * needs one to two hundred, each node one log-MGF of all the terms (1000 terms near the
 * mean: 0.29 ms against 1.6 ms, make bench). Its error is absolute, so it is asked for
 * epsrel times a guess of the smaller tail (the normal approximation, halved), and its
 * answer is taken only when the error bound meets the relative target for both tails
 * computed from it (err <= max(epsabs, epsrel (min tail - err))), and only when the plan
 * needs at most GA_AUTO_DAVIES_NODES nodes (the plan costs a few bound evaluations) and the
 * absolute tolerance is above the sum's rounding floor. At the default relative 1e-13 this is
 * the central bulk (tails above about 0.3); at 1e-10 most of the range. Returns 1
 * with *out, or 0: the contour engine decides (tails, few terms, slowly decaying forms).
 */
#define GA_AUTO_DAVIES_TERMS 16
#define GA_AUTO_DAVIES_NODES 96
#define GA_AUTO_DAVIES_FLOOR (64 * DBL_EPSILON)

static int bulk_davies(ga_gchisq_prob *out, const ga_gchisq *q, double x, const ga_gchisq_opts *o)
{
    double mean, var;
    if (q->n < GA_AUTO_DAVIES_TERMS)
        return 0;
    ga_gchisq_moments(&mean, &var, q);
    double guess = 0.25 * erfc(fabs(x - mean) / sqrt(2 * var));
    if (!(guess >= 1e-3)) /* a tail: relative accuracy is the contour engine's */
        return 0;
    ga_gchisq_opts d = *o;
    d.method = GA_METHOD_DAVIES;
    d.epsabs = fmax(o->epsabs, o->epsrel * guess);
    d.epsrel = 0;
    /* below this the rounding error of the sum (about 8 eps times the sum of the terms' sizes,
     * known only after summing) would miss the target anyway: no plan */
    if (d.epsabs < GA_AUTO_DAVIES_FLOOR)
        return 0;
    ga_gchisq_prob p;
    if (ga_engine_davies_capped(&p, q, x, &d, GA_AUTO_DAVIES_NODES) != GA_OK)
        return 0;
    double err = fmax(p.cdf.err, p.sf.err), low = fmin(p.cdf.val, p.sf.val) - err;
    if (!(err <= fmax(o->epsabs, o->epsrel * low)))
        return 0;
    *out = p;
    return 1;
}

/*
 * Next by cost, for the same forms of many terms: the trapezoidal rule on the line through
 * the saddle point (shifted.c), one tail to the relative target and the other as its
 * complement, when it needs at most GA_AUTO_SHIFTED_NODES nodes (the bent contour needs one
 * to two hundred per tail) and meets the target for both tails. Returns 1 with *out, or 0.
 */
#define GA_AUTO_SHIFTED_NODES 80

static int bulk_shifted(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                        const ga_gchisq_opts *o)
{
    if (q->n < GA_AUTO_DAVIES_TERMS)
        return 0;
    ga_gchisq_prob p = *out;
    if (ga_engine_shifted_capped(&p, q, x, o, GA_AUTO_SHIFTED_NODES) != GA_OK)
        return 0;
    *out = p;
    return 1;
}

ga_gchisq_opts ga_gchisq_opts_or_default(const ga_gchisq_opts *opts)
{
    ga_gchisq_opts o;
    if (opts)
        o = *opts;
    else
        ga_gchisq_opts_init(&o);
    return o;
}

int ga_gchisq_prob_eval(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                        const ga_gchisq_opts *opts, ga_gchisq_work *w)
{
    ga_gchisq_opts o = ga_gchisq_opts_or_default(opts);
    memset(out, 0, sizeof *out);
    if (!isfinite(x) || ga_gchisq_validate(q, NULL, 0) != GA_OK)
        return GA_EINVAL;
    if (!(o.epsabs >= 0) || !(o.epsrel >= 0) || (o.epsabs == 0 && o.epsrel == 0))
        return GA_EINVAL;
    if (ga_gchisq_copy(w->qn, q) != GA_OK)
        return GA_ENOMEM;
    ga_gchisq_normalize(w->qn, 0.0);
    x = ga_gchisq_rescale(w->qn, x);
    const ga_gchisq *qn = w->qn;
    if (ga_gchisq_trivial(out, qn, x))
        return GA_OK;
    switch (o.method) {
    case GA_METHOD_CLOSED: {
        int s = ga_engine_closed(out, qn, x);
        if (s == GA_OK || s == GA_EUNDERFLOW)
            underflow_logs(out, qn, x, &o, &w->quad);
        return s;
    }
    case GA_METHOD_CONTOUR:
        return ga_engine_contour(out, qn, x, &o, &w->quad);
    case GA_METHOD_IMHOF:
        return ga_engine_imhof(out, qn, x, &o, &w->quad);
    case GA_METHOD_DAVIES:
        return ga_engine_davies(out, qn, x, &o);
    case GA_METHOD_AUTO: {
        if (qn->n == 0 || (qn->n == 1 && qn->sigma2 == 0)) {
            /* the closed form when it meets the target (large noncentralities cost it
             * digits in the Poisson weights); otherwise the contour engine, unless that
             * does worse (e.g. x within rounding of the end of the support) */
            ga_gchisq_prob closed;
            int s = ga_engine_closed(&closed, qn, x);
            if (s == GA_OK && closed.sf.err <= fmax(o.epsabs, o.epsrel * closed.sf.val) &&
                closed.cdf.err <= fmax(o.epsabs, o.epsrel * closed.cdf.val)) {
                *out = closed;
                underflow_logs(out, qn, x, &o, &w->quad);
                return s;
            }
            int c = ga_engine_contour(out, qn, x, &o, &w->quad);
            if (c != GA_OK && s == GA_OK && worst_rel_err(&closed) < worst_rel_err(out)) {
                *out = closed;
                return GA_ETOL;
            }
            return c;
        }
        if (bulk_davies(out, qn, x, &o) || bulk_shifted(out, qn, x, &o))
            return GA_OK;
        return ga_engine_contour(out, qn, x, &o, &w->quad);
    }
    default:
        return GA_EINVAL;
    }
}

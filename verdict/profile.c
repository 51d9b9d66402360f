/*
 * profile.c - a spec's privacy profile over all its neighbouring pairs, for callers that ask
 * a question rather than check a claim (the Python accountant interface): delta(eps) =
 * max over pairs and both directions of delta_{X,Y}(eps), and eps(delta), the smallest eps
 * with delta(eps) <= delta, which is the largest of the pairs' own eps(delta) because each
 * pair's profile is non-increasing. Estimates carry the error estimate of the pair that gives
 * the maximum plus the gap to the runner-up when the two are within their errors (either may
 * be the true maximum); certified values are the maximum of the pairs' enclosures, which
 * encloses the maximum of the true values.
 */
#include "verdict/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ga_profile {
    ga_spec spec;
    ga_pairset set;
    ga_pair **pairs; /* every pair reduced (a rebuildable pair too: asked many times) */
    size_t n;
    double timeout;  /* seconds for each question (0: none) */
};

static void profile_clear(ga_profile *p)
{
    for (size_t i = 0; i < p->n; i++)
        ga_pair_free(p->pairs[i]);
    free(p->pairs);
    ga_mech_clear(&p->spec, &p->set);
}

void ga_profile_free(ga_profile *p)
{
    if (!p)
        return;
    profile_clear(p);
    free(p);
}

static int profile_load(ga_profile **out, const char *path, const char *text, size_t len,
                        const ga_audit_options *o, char *msg, size_t msglen)
{
    ga_audit_options def;
    if (!o) {
        ga_audit_options_init(&def);
        o = &def;
    }
    *out = NULL;
    ga_profile *p = calloc(1, sizeof *p);
    if (!p) {
        ga_msg(msg, msglen, "no memory for a profile");
        return GA_ENOMEM;
    }
    p->timeout = o->timeout;
    ga_spec_opts so = {.allow_paths = o->allow_paths, .nallow = o->nallow,
                       .kind_at = ga_mech_kind_at, .jobs = ga_par_jobs(o->jobs)};
    ga_build_opts bo = {.deadline = o->timeout > 0 ? ga_monotonic() + o->timeout : 0,
                        .jobs = ga_par_jobs(o->jobs), .drop_data = 1};
    int st = text ? ga_mech_parse(&p->spec, &p->set, text, len, path, &so, &bo, msg, msglen)
                  : ga_mech_load(&p->spec, &p->set, path, &so, &bo, msg, msglen);
    if (st) {
        free(p);
        return st;
    }
    if (p->set.truncated) { /* a profile over part of the pairs would be too low */
        ga_msg(msg, msglen, "%s: the time budget ran out while building the pairs (%zu of %zu "
               "built); no profile over part of them", path, p->set.npairs, p->set.planned);
        st = GA_ETIME;
        goto cleanup;
    }
    for (size_t i = 0; i < p->set.npairs; i++)
        if (p->set.pairs[i].lower) { /* the largest of them would be the upper bound alone */
            ga_msg(msg, msglen, "%s: its pairs bracket the mechanism's profile (lower bounds "
                   "from real neighbours%s), which is not computed exactly: audit a claim "
                   "instead", path, p->set.verified_bound ? " and a proven upper bound" : "");
            st = GA_EDOM;
            goto cleanup;
        }
    if (!(p->pairs = calloc(p->set.npairs ? p->set.npairs : 1, sizeof *p->pairs))) {
        ga_msg(msg, msglen, "no memory for %zu pairs", p->set.npairs);
        st = GA_ENOMEM;
        goto cleanup;
    }
    for (; p->n < p->set.npairs; p->n++)
        if ((st = ga_mech_pair_reduce(&p->pairs[p->n], &p->set.pairs[p->n], msg, msglen)))
            goto cleanup;
    *out = p;
    return GA_OK;
cleanup:
    profile_clear(p);
    free(p);
    return st;
}

int ga_profile_spec_file(ga_profile **out, const char *path, const ga_audit_options *o,
                         char *msg, size_t msglen)
{
    return profile_load(out, path, NULL, 0, o, msg, msglen);
}

int ga_profile_spec_text(ga_profile **out, const char *text, size_t len, const char *name,
                         const ga_audit_options *o, char *msg, size_t msglen)
{
    return profile_load(out, name ? name : "<spec>", text, len, o, msg, msglen);
}

size_t ga_profile_npairs(const ga_profile *p)
{
    return p->n;
}

/* the largest of values with error estimates: the value of the largest, and an error that
 * covers every value whose interval reaches above it */
static void max_update(ga_result *m, int *have, double v, double e)
{
    if (!*have) {
        m->val = v;
        m->err = e;
        *have = 1;
        return;
    }
    double vhi = v + e;
    if (v > m->val) {
        double reach = m->val + m->err - v; /* the old maximum may still be the larger */
        m->val = v;
        m->err = reach > e ? reach : e;
    } else if (vhi > m->val + m->err)
        m->err = vhi - m->val;
}

/* the deadline of one question: its timeout from now (0: none) */
static double question_deadline(const ga_profile *p)
{
    return p->timeout > 0 ? ga_monotonic() + p->timeout : 0;
}

/* pair i's values at x: delta_{X,Y}(x) and delta_{Y,X}(x) (two), or eps(x) (one) */
static int pair_values(ga_result v[2], size_t *n, const ga_profile *p, size_t i, double x,
                       int epsilon, const ga_gchisq_opts *go, ga_gchisq_work *w)
{
    if (epsilon) {
        int dir;
        *n = 1;
        return ga_pair_epsilon(&v[0], &dir, p->pairs[i], x, go, w);
    }
    ga_delta d;
    int st = ga_pair_delta(&d, p->pairs[i], x, GA_DELTA_AUTO, go, w);
    v[0] = d.xy;
    v[1] = d.yx;
    *n = 2;
    return st;
}

/* the largest value over the pairs at x (delta at eps, or eps at delta): GA_OK, GA_ETOL, the
 * first failure (NaN), or GA_EDOM for eps when supports differ (inf) */
static int profile_max(ga_result *m, const ga_profile *p, double x, int epsilon)
{
    ga_gchisq_opts go;
    ga_gchisq_opts_init(&go);
    go.deadline = question_deadline(p);
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    int have = 0, st = w ? GA_OK : GA_ENOMEM, worst = GA_OK;
    m->val = m->err = NAN; /* (no pair: no value) */
    for (size_t i = 0; i < p->n && (st == GA_OK || st == GA_ETOL); i++) {
        ga_result v[2];
        size_t n;
        st = pair_values(v, &n, p, i, x, epsilon, &go, w);
        worst = st == GA_ETOL ? GA_ETOL : worst;
        for (size_t k = 0; k < n && (st == GA_OK || st == GA_ETOL); k++)
            max_update(m, &have, v[k].val, v[k].err);
    }
    ga_gchisq_work_free(w);
    if (epsilon && st == GA_EDOM) { /* supports differ: no finite eps */
        m->val = INFINITY;
        m->err = 0;
        return GA_EDOM;
    }
    if (st != GA_OK && st != GA_ETOL) {
        m->val = m->err = NAN;
        return st;
    }
    return have ? worst : GA_EINVAL;
}

int ga_profile_delta(ga_result *delta, const ga_profile *p, double eps)
{
    return profile_max(delta, p, eps, 0);
}

int ga_profile_epsilon(ga_result *eps, const ga_profile *p, double delta)
{
    return profile_max(eps, p, delta, 1);
}

/* the certified path's view of pair i (the decimal texts it reads), then one evaluation */
static int pair_cert(const ga_profile *p, size_t i, const char *x, int epsilon, ga_interval *lo_hi,
                     const ga_cert_opts *co)
{
    ga_spec_pair_view v;
    int st = ga_spec_pair_view_init(&v, &p->set.pairs[i], 1);
    if (st == GA_OK && epsilon) {
        int dir;
        st = ga_pair_epsilon_cert(lo_hi, &dir, p->pairs[i], v.in, v.txt, x, co);
    } else if (st == GA_OK) {
        ga_delta_cert c;
        st = ga_pair_delta_cert(&c, p->pairs[i], v.in, v.txt, x, co);
        lo_hi->lo = c.xy.lo > c.yx.lo ? c.xy.lo : c.yx.lo;
        lo_hi->hi = c.xy.hi > c.yx.hi ? c.xy.hi : c.yx.hi;
    }
    ga_spec_pair_view_clear(&v);
    return st;
}

/* the maximum over the pairs of their enclosures: GA_OK, or the first failure (GA_EPREC:
 * valid intervals wider than asked, kept going) */
static int profile_cert(ga_interval *out, const ga_profile *p, const char *x, int epsilon)
{
    ga_cert_opts co;
    ga_cert_opts_init(&co);
    co.deadline = question_deadline(p);
    int st = GA_OK;
    out->lo = 0;
    out->hi = 0;
    if (!p->n)
        return GA_EINVAL;
    for (size_t i = 0; i < p->n; i++) {
        ga_interval iv;
        int s = pair_cert(p, i, x, epsilon, &iv, &co);
        if (epsilon && s == GA_EDOM) {
            out->lo = out->hi = INFINITY;
            return GA_EDOM;
        }
        if (s != GA_OK && s != GA_EPREC) {
            out->lo = 0;
            out->hi = epsilon ? INFINITY : 1;
            return s;
        }
        st = s == GA_EPREC ? GA_EPREC : st;
        out->lo = iv.lo > out->lo ? iv.lo : out->lo;
        out->hi = iv.hi > out->hi ? iv.hi : out->hi;
    }
    return st;
}

int ga_profile_delta_cert(ga_interval *delta, const ga_profile *p, const char *eps)
{
    return profile_cert(delta, p, eps, 0);
}

int ga_profile_epsilon_cert(ga_interval *eps, const ga_profile *p, const char *delta)
{
    return profile_cert(eps, p, delta, 1);
}

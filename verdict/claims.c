/*
 * claims.c - the claim table (ga_claim_row): one row per claim type with its name, its
 * numbers under their JSON keys, the number a value is compared with, its wording, its
 * tightness text, what the reports show beside it and how it is plotted, the keys of the
 * spec's claim mapping it reads and their parse, its evaluator and a shard's records; and the
 * verdict names. The pipeline and the reports read claims through their rows only: adding a
 * claim type is a row here and its evaluator (dp.c, renyi.c). Claims on Renyi divergences
 * are refused, with the reason, for pairs whose divergences are not computed.
 */
#include "verdict/internal.h"

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_dp(ga_audit *a, ga_claim_result *r, const char *eps_txt, const ga_audit_opts *o,
                   ga_gchisq_work *w);

static void run_rdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w);

static void run_zcdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                     const ga_audit_opts *o, ga_gchisq_work *w);

static void run_gdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w);

/* "the claim is 3.2x conservative", never 1x or infx: near 1 the relative difference, at an
 * exact value of 0 (or below the double range) no factor */
static void slack_text(char *b, size_t n, double slack, const char *what, double exact)
{
    if (!isfinite(slack))
        snprintf(b, n, "the exact %s is 0 to double precision", what);
    else if (slack == 0 && isinf(exact))
        snprintf(b, n, "the exact %s is infinite", what);
    else if (slack == 0)
        snprintf(b, n, "the claim is 0, the exact %s is not", what);
    else if (slack == 1)
        snprintf(b, n, "the claim equals the exact %s to double precision", what);
    else if (fabs(slack - 1) < 0.05) /* a factor would read 1x or 1.01x: the difference */
        snprintf(b, n, slack > 1 ? "the claim is above the exact %s by a relative %.2g"
                                 : "the exact %s exceeds the claim by a relative %.2g",
                 what, fabs(slack - 1));
    else if (slack > 1)
        snprintf(b, n, "the claim is %.3gx conservative", slack);
    else
        snprintf(b, n, "%.3gx the claimed %s", 1 / slack, what);
}

/* an evaluated claim with no value: its double-precision evaluation failed */
static int no_value(char *b, size_t n, const ga_claim_result *r)
{
    if (r->exact.val >= 0 && isfinite(r->exact.err))
        return 0;
    snprintf(b, n, "no value: not computed, or the double-precision evaluation failed (the "
             "reason says which)");
    return 1;
}

/* ------------------------------------------------------------ (eps, delta)-DP */

static void dp_text(char *b, size_t n, const ga_claim_result *r)
{
    char x[32], y[32];
    ga_fmt_shortest(x, sizeof x, r->eps);
    ga_fmt_shortest(y, sizeof y, r->delta);
    int l = snprintf(b, n, "(%.30s, %.30s)-DP", r->eps_txt ? r->eps_txt : x,
                     r->delta_txt ? r->delta_txt : y);
    if (l < 0 || (size_t)l >= n)
        return;
    /* the scope (no user text here: the pair's name is in the reason) */
    if (r->scope_dir || r->scope_pair[0])
        snprintf(b + l, n - l, "%s%s%s", r->scope_dir ? " in direction " : "",
                 r->scope_dir == 1 ? "XY" : r->scope_dir == 2 ? "YX" : "",
                 r->scope_pair[0] ? ", of one pair" : "");
}

static void dp_tightness(char *b, size_t n, const ga_claim_result *r)
{
    char v[96], sl[160], ce[32], cd[32];
    if (no_value(b, n, r))
        return;
    char e[480] = "";
    ga_fmt_shortest(ce, sizeof ce, r->eps);
    ga_fmt_shortest(cd, sizeof cd, r->delta);
    if (r->eps_txt)
        snprintf(ce, sizeof ce, "%.30s", r->eps_txt); /* as written */
    if (r->delta_txt)
        snprintf(cd, sizeof cd, "%.30s", r->delta_txt);
    if (isfinite(r->eps_at_delta.val)) /* (of a lower bound: a lower bound of it) */
        snprintf(e, sizeof e, "; the smallest eps at delta %s is %s%.6g", cd,
                 r->lower && !r->bound && r->eps_at_delta.val > 0 ? "at least " : "",
                 r->eps_at_delta.val);
    if (r->rdp_eps > 0 && isfinite(r->eps_at_delta.val) && r->eps_at_delta.val > 0) {
        size_t l = strlen(e);
        snprintf(e + l, sizeof e - l, " (an RDP accountant reports %.6g, %.3gx as much",
                 r->rdp_eps, r->rdp_eps / r->eps_at_delta.val);
        l = strlen(e);
        if (r->pld_eps > 0 && isfinite(r->pld_eps))
            snprintf(e + l, sizeof e - l, "; a PLD accountant %.7g, above by a relative %.2g)",
                     r->pld_eps, r->pld_eps / r->eps_at_delta.val - 1);
        else
            snprintf(e + l, sizeof e - l, ")");
    }
    if (r->has_attained) { /* the bracket's lower end: what a neighbour attains */
        size_t l = strlen(e);
        if (r->attained_delta.val > 0)
            snprintf(e + l, sizeof e - l, "; a neighbour attains delta(%s) = %.6g", ce,
                     r->attained_delta.val);
        else
            snprintf(e + l, sizeof e - l, "; the audited neighbours' delta(%s) is 0 to double "
                     "precision", ce);
        l = strlen(e);
        if (isfinite(r->attained_eps.val) && r->attained_eps.val > 0)
            snprintf(e + l, sizeof e - l, " and eps %.6g at delta %s", r->attained_eps.val, cd);
    }
    if (r->poisson_eps.val > 0 && isfinite(r->eps_at_delta.val) && r->eps_at_delta.val > 0) {
        size_t l = strlen(e);
        if (r->bound && r->has_attained && isfinite(r->attained_eps.val))
            snprintf(e + l, sizeof e - l, "; with Poisson sampling at the same rates it would "
                     "be %.6g (the eps a neighbour attains is %.3gx that, the upper bound %.3gx)",
                     r->poisson_eps.val, r->attained_eps.val / r->poisson_eps.val,
                     r->eps_at_delta.val / r->poisson_eps.val);
        else
            snprintf(e + l, sizeof e - l, "; with Poisson sampling at the same rates it would "
                     "be %.6g (the %s eps is %.3gx that)", r->poisson_eps.val,
                     r->lower ? "attained" : "exact", r->eps_at_delta.val / r->poisson_eps.val);
    }
    /* the value shown lies in the certified interval when there is one (the estimate may
     * stray by its error), with the digits that decide against the claim */
    double x = r->certified ? fmin(fmax(r->exact.val, r->cert_lo), r->cert_hi) : r->exact.val;
    ga_fmt_decide(v, sizeof v, x, r->delta, 6);
    slack_text(sl, sizeof sl, r->slack, "delta", r->exact.val);
    if (r->lower && !r->bound && isfinite(r->slack) && r->slack >= 1.05)
        /* the release's delta is at least this value: the claim is at most that loose */
        snprintf(sl, sizeof sl, "the claim is at most %.3gx conservative", r->slack);
    if (r->certified && r->cert_hi == 0 && r->cert_lo == 0) {
        snprintf(v, sizeof v, "0");
        snprintf(sl, sizeof sl, "exactly 0 (certified: eps is at or above the privacy loss's "
                 "supremum)");
    } else if (r->certified && r->cert_hi < 1e-300 && r->cert_hi_dec[0] && r->delta > 0) {
        /* below the double range: the certified decimal, and the factor as a power of 10 */
        snprintf(v, sizeof v, "%s", r->cert_hi_dec); /* (whole: a cut exponent is
                                                          another number) */
        double f = log10(r->delta) - ga_decimal_log10(r->cert_hi_dec);
        snprintf(sl, sizeof sl, fabs(f) < 1e6 ? "the claim is 10^%.1f times the exact delta "
                 "(certified; below the double range)" : "the claim is 10^(%.4g) times the "
                 "exact delta (certified; below the double range)", f);
    }
    snprintf(b, n, "%s delta(%s) = %s: %s%s",
             r->bound   ? "upper bound (no neighbour need attain it): exact"
             : r->lower ? "lower bound (the outputs of real neighbours, or a function of them): exact"
                        : "exact", ce, v, sl, e);
}

static void dp_params(double v[2], const ga_claim_result *r)
{
    v[0] = r->eps;
    v[1] = r->delta;
}

static double dp_ref(const ga_claim_result *r)
{
    return r->delta;
}

/* ------------------------------------------------------------ Renyi DP, zCDP, GDP */

static void rdp_text(char *b, size_t n, const ga_claim_result *r)
{
    char x[32], y[32];
    ga_fmt_shortest(x, sizeof x, r->alpha);
    ga_fmt_shortest(y, sizeof y, r->eps_a);
    snprintf(b, n, "RDP: D_%s <= %s", x, y);
}

static void rdp_tightness(char *b, size_t n, const ga_claim_result *r)
{
    char v[96], sl[160], ce[32];
    if (no_value(b, n, r))
        return;
    ga_fmt_shortest(ce, sizeof ce, r->alpha);
    ga_fmt_decide(v, sizeof v, r->exact.val, r->eps_a, 6);
    slack_text(sl, sizeof sl, r->slack, "divergence", r->exact.val);
    snprintf(b, n, "exact D_%s = %s: %s", ce, v, sl);
}

static void rdp_params(double v[2], const ga_claim_result *r)
{
    v[0] = r->alpha;
    v[1] = r->eps_a;
}

/* the claimed bound of a Renyi-type claim (RDP eps_alpha, zCDP rho, GDP mu) */
static double bound_ref(const ga_claim_result *r)
{
    return r->eps_a;
}

static void zcdp_text(char *b, size_t n, const ga_claim_result *r)
{
    char x[32];
    ga_fmt_shortest(x, sizeof x, r->eps_a);
    snprintf(b, n, "%s-zCDP", x);
}

static void zcdp_tightness(char *b, size_t n, const ga_claim_result *r)
{
    char v[96], sl[160];
    if (no_value(b, n, r))
        return;
    ga_fmt_decide(v, sizeof v, r->exact.val, r->eps_a, 6);
    slack_text(sl, sizeof sl, r->slack, "rho", r->exact.val);
    snprintf(b, n, "max D_alpha/alpha = %s at alpha = %.4g: %s", v, r->at, sl);
}

/* the one number of a zCDP (rho) or GDP (mu) claim */
static void one_param(double v[2], const ga_claim_result *r)
{
    v[0] = r->eps_a;
    v[1] = NAN;
}

static void gdp_text(char *b, size_t n, const ga_claim_result *r)
{
    char x[32];
    ga_fmt_shortest(x, sizeof x, r->eps_a);
    snprintf(b, n, "%s-GDP", x);
}

/* (the excess over the curve may be negative: no "no value" case) */
static void gdp_tightness(char *b, size_t n, const ga_claim_result *r)
{
    snprintf(b, n, "largest excess of delta over the GDP curve: %.3g at eps = %.4g", r->exact.val, r->at);
}

/* ------------------------------------------------------------ the claims' keys */

ga_claim_result *ga_claim_list_add(ga_claim_list *l, int type)
{
    if (l->n == l->cap) {
        ga_claim_result *c = ga_grow(l->c, &l->cap, sizeof *c, 8);
        if (!c)
            return NULL;
        l->c = c;
    }
    ga_claim_result *r = &l->c[l->n++];
    memset(r, 0, sizeof *r);
    r->type = type;
    return r;
}

/* "FILE:LINE:COL: PATH: what" for the claim's node n (what formatted) */
static int claim_fail(const ga_spec *s, const ga_node *n, const char *path, char *msg,
                      size_t msglen, const char *fmt, ...)
{
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ga_spec_claim_fail(s, n, path, msg, msglen, what);
}

/* a list of [a, b] points under key, each checked by ok (else "point i: need"), each a claim
 * of the type with (a, b) set by put */
static int parse_points(ga_claim_list *l, const ga_spec *s, const char *key, int type,
                        int (*ok)(double a, double b), const char *need,
                        void (*put)(ga_claim_result *r, double a, double b), char *msg,
                        size_t msglen)
{
    const ga_node *n = ga_node_get(s->claim, key);
    if (!n)
        return GA_OK;
    char path[32];
    snprintf(path, sizeof path, "claim.%s", key);
    double *v;
    size_t np;
    int rc = ga_spec_claim_points(s, n, path, &v, &np, msg, msglen);
    for (size_t i = 0; rc == GA_OK && i < np; i++) {
        ga_claim_result *r;
        if (!ok(v[2 * i], v[2 * i + 1]))
            rc = claim_fail(s, n->kids[i], path, msg, msglen, "point %zu: need %s", i, need);
        else if (!(r = ga_claim_list_add(l, type)))
            rc = GA_ENOMEM;
        else
            put(r, v[2 * i], v[2 * i + 1]);
    }
    free(v);
    return rc;
}

/* one number under key, > 0 (rho, mu): one claim of the type with eps_a = it */
static int parse_positive(ga_claim_list *l, const ga_spec *s, const char *key, int type,
                          const char *what, char *msg, size_t msglen)
{
    const ga_node *n = ga_node_get(s->claim, key);
    if (!n)
        return GA_OK;
    char path[32];
    snprintf(path, sizeof path, "claim.%s", key);
    double v;
    int rc = ga_spec_claim_number(s, n, path, &v, NULL, msg, msglen);
    if (rc)
        return rc;
    if (!(v > 0))
        return claim_fail(s, n, path, msg, msglen, "%s must be > 0 (got %s)", what, n->text);
    ga_claim_result *r = ga_claim_list_add(l, type);
    if (!r)
        return GA_ENOMEM;
    r->eps_a = v;
    return GA_OK;
}

static int dp_point_ok(double e, double d)
{
    return e >= 0 && d >= 0 && d < 1;
}

static void dp_put(ga_claim_result *r, double e, double d)
{
    r->eps = e;
    r->delta = d;
}

/* claim.direction and claim.pair: the scope of the (eps, delta) claims l->c[first..] */
static int dp_scope(ga_claim_list *l, size_t first, const ga_spec *s, char *msg, size_t msglen)
{
    const ga_node *dn = ga_node_get(s->claim, "direction"), *pn = ga_node_get(s->claim, "pair");
    if (!dn && !pn)
        return GA_OK;
    const ga_node *at = dn ? dn : pn;
    const char *path = dn ? "claim.direction" : "claim.pair";
    if (first == l->n)
        return claim_fail(s, at, path, msg, msglen, "scopes (epsilon, delta) claims: give epsilon "
                          "and delta, or a profile");
    static const char *const others[] = {"rdp", "zcdp", "gdp"};
    for (size_t k = 0; k < 3; k++)
        if (ga_node_get(s->claim, others[k]))
            return claim_fail(s, at, path, msg, msglen, "scopes the (epsilon, delta) claims only, "
                              "and this claim also has %s: give the %s claim in a spec of its "
                              "own", others[k], others[k]);
    int dir = 0;
    if (dn) {
        if (dn->kind != GA_NODE_SCALAR || !dn->text ||
            (strcmp(dn->text, "xy") && strcmp(dn->text, "yx")))
            return claim_fail(s, dn, "claim.direction", msg, msglen, "must be xy (delta_{X,Y} "
                              "only: X the pair's first law) or yx (got %s)",
                              dn->text ? dn->text : "a list or mapping");
        dir = strcmp(dn->text, "xy") ? 2 : 1;
    }
    if (pn && (pn->kind != GA_NODE_SCALAR || !pn->text || !pn->text[0] ||
               strlen(pn->text) >= GA_SPEC_NAME_LEN))
        return claim_fail(s, pn, "claim.pair", msg, msglen, "must name one of the listed pairs "
                          "(a string of at most %d bytes)", GA_SPEC_NAME_LEN - 1);
    for (size_t i = first; i < l->n; i++) {
        l->c[i].scope_dir = dir;
        if (pn)
            snprintf(l->c[i].scope_pair, sizeof l->c[i].scope_pair, "%s", pn->text);
    }
    return GA_OK;
}

/* epsilon and delta (one claim, echoed as written), then the profile's points, then their
 * scope */
static int dp_parse(ga_claim_list *l, const ga_spec *s, char *msg, size_t msglen)
{
    const ga_node *e = ga_node_get(s->claim, "epsilon"), *d = ga_node_get(s->claim, "delta");
    if ((e != NULL) != (d != NULL))
        return claim_fail(s, e ? e : d, "claim", msg, msglen,
                          "epsilon and delta must be given together");
    if (e) {
        ga_claim_result c = {.type = GA_CLAIM_DP}, *r;
        int rc;
        if ((rc = ga_spec_claim_number(s, e, "claim.epsilon", &c.eps, &c.eps_txt, msg, msglen)) ||
            (rc = ga_spec_claim_number(s, d, "claim.delta", &c.delta, &c.delta_txt, msg, msglen)))
            return rc;
        if (c.eps < 0)
            return claim_fail(s, e, "claim.epsilon", msg, msglen, "must be >= 0 (got %s)", e->text);
        if (!(c.delta >= 0 && c.delta < 1))
            return claim_fail(s, d, "claim.delta", msg, msglen, "must be in [0, 1) (got %s)",
                              d->text);
        if (!(r = ga_claim_list_add(l, GA_CLAIM_DP)))
            return GA_ENOMEM;
        *r = c;
    }
    size_t first = l->n - (e ? 1 : 0);
    int rc = parse_points(l, s, "profile", GA_CLAIM_DP, dp_point_ok, "eps >= 0 and 0 <= delta < 1",
                          dp_put, msg, msglen);
    return rc ? rc : dp_scope(l, first, s, msg, msglen);
}

static int rdp_point_ok(double alpha, double e)
{
    return alpha > 1 && e >= 0;
}

static void rdp_put(ga_claim_result *r, double alpha, double e)
{
    r->alpha = alpha;
    r->eps_a = e;
}

static int rdp_parse(ga_claim_list *l, const ga_spec *s, char *msg, size_t msglen)
{
    return parse_points(l, s, "rdp", GA_CLAIM_RDP, rdp_point_ok, "alpha > 1 and eps >= 0",
                        rdp_put, msg, msglen);
}

static int zcdp_parse(ga_claim_list *l, const ga_spec *s, char *msg, size_t msglen)
{
    return parse_positive(l, s, "zcdp", GA_CLAIM_ZCDP, "rho", msg, msglen);
}

static int gdp_parse(ga_claim_list *l, const ga_spec *s, char *msg, size_t msglen)
{
    return parse_positive(l, s, "gdp", GA_CLAIM_GDP, "mu", msg, msglen);
}

/* ------------------------------------------------------------ the table */

static const ga_claim_row claim_types[] = {
    {GA_CLAIM_DP, "dp", {"epsilon", "delta", "profile", "direction", "pair"}, dp_parse,
     {"epsilon", "delta"}, run_dp, vd_shard_dp, dp_params, dp_ref, dp_text, dp_tightness, 1, 0,
     GA_CLAIM_PLOT_PROFILE_POINT, 0,
     {GA_SHAPE_NONNEG, GA_SHAPE_PROB, GA_SHAPE_POINTS, GA_SHAPE_DIRECTION, GA_SHAPE_NAME}},
    {GA_CLAIM_RDP, "rdp", {"rdp"}, rdp_parse, {"alpha", "eps_alpha"}, run_rdp, vd_shard_rdp,
     rdp_params, bound_ref, rdp_text, rdp_tightness, 0, 0, GA_CLAIM_PLOT_RENYI_POINT, 1,
     {GA_SHAPE_POINTS}},
    {GA_CLAIM_ZCDP, "zcdp", {"zcdp"}, zcdp_parse, {"rho", NULL}, run_zcdp, vd_shard_grid,
     one_param, bound_ref, zcdp_text, zcdp_tightness, 0, 1, GA_CLAIM_PLOT_NONE, 1,
     {GA_SHAPE_POSITIVE}},
    {GA_CLAIM_GDP, "gdp", {"gdp"}, gdp_parse, {"mu", NULL}, run_gdp, vd_shard_grid, one_param,
     bound_ref, gdp_text, gdp_tightness, 0, 1, GA_CLAIM_PLOT_PROFILE_GDP, 0,
     {GA_SHAPE_POSITIVE}},
};

#define NROWS (sizeof claim_types / sizeof *claim_types)

const ga_claim_row *ga_claim_row_at(size_t i)
{
    return i < NROWS ? &claim_types[i] : NULL;
}

int ga_claim_list_parse(ga_claim_list *l, const ga_spec *s, char *msg, size_t msglen)
{
    const char *keys[GA_CLAIM_KEYS * NROWS + 1];
    size_t nk = 0;
    for (size_t i = 0; i < NROWS; i++)
        for (size_t k = 0; k < GA_CLAIM_KEYS && claim_types[i].keys[k]; k++)
            keys[nk++] = claim_types[i].keys[k];
    keys[nk] = NULL;
    int rc = s->claim ? ga_spec_claim_keys(s, keys, msg, msglen) : GA_OK;
    for (size_t i = 0; s->claim && rc == GA_OK && i < NROWS; i++)
        rc = claim_types[i].parse(l, s, msg, msglen);
    return rc;
}

size_t ga_claim_list_eps(double *eps, size_t max, const ga_claim_list *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n && n < max; i++)
        if (ga_claim_row_of(l->c[i].type)->profile)
            eps[n++] = l->c[i].eps;
    return n;
}

static void unknown_params(double v[2], const ga_claim_result *r)
{
    (void)r;
    v[0] = v[1] = NAN;
}

static double unknown_ref(const ga_claim_result *r)
{
    (void)r;
    return NAN;
}

static void unknown_text(char *b, size_t n, const ga_claim_result *r)
{
    (void)r;
    snprintf(b, n, "?"); /* never another type's wording */
}

static const ga_claim_row unknown_row = {-1, NULL, {NULL}, NULL, {NULL, NULL}, NULL, NULL,
                                         unknown_params, unknown_ref, unknown_text,
                                         unknown_text, 0, 0, GA_CLAIM_PLOT_NONE, 0,
                                         {GA_SHAPE_NONE}};

int vd_claim_row(int type)
{
    for (size_t i = 0; i < NROWS; i++)
        if (claim_types[i].type == type)
            return (int)i;
    return -1;
}

const ga_claim_row *ga_claim_row_of(int type)
{
    int i = vd_claim_row(type);
    return i < 0 ? &unknown_row : &claim_types[i];
}

void vd_claim_eval(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                   const ga_audit_opts *o, ga_gchisq_work *w)
{
    claim_types[vd_claim_row(r->type)].eval(a, r, eps_txt, o, w);
}

const char *ga_claim_type_name(int type)
{
    return ga_claim_row_of(type)->name;
}

void ga_claim_text(char *b, size_t n, const ga_claim_result *r)
{
    if (r->relative && n > 9) { /* every claim of a relative audit says so */
        memcpy(b, "relative ", 9);
        b += 9;
        n -= 9;
    }
    ga_claim_row_of(r->type)->text(b, n, r);
}

void ga_claim_not_evaluated(ga_claim_result *r, const char *why)
{
    r->verdict = GA_VERDICT_INCONCLUSIVE;
    r->exact.val = r->exact.err = r->slack = r->eps_at_delta.val = NAN;
    r->certified = 0;
    snprintf(r->reason, sizeof r->reason, "not evaluated: %s", why);
}

const char *ga_verdict_name(int v)
{
    static const char *n[] = {"VERIFIED", "NO VIOLATION FOUND", "INCONCLUSIVE", "VIOLATION"};
    return v >= 0 && v <= 3 ? n[v] : "?";
}

/* the claim table's evaluators, one signature */
static void run_dp(ga_audit *a, ga_claim_result *r, const char *eps_txt, const ga_audit_opts *o,
                   ga_gchisq_work *w)
{
    vd_eval_dp(a, r, eps_txt, o, w);
}

/* Claims on Renyi divergences (RDP, zCDP) need each pair's own divergence. A pair whose
 * family has none computed (ga_pair_no_renyi: a composition of subsampled sketch steps) makes
 * such a claim refused with the reason (INCONCLUSIVE, no value), never computed from another
 * family's fields, unless it is a lower bound and some other pair's divergences are computed:
 * the evaluators leave it out (vd_no_renyi). 1: refused. */
static int renyi_refused(ga_audit *a, ga_claim_result *r)
{
    char nb[GA_SPEC_NAME_LEN], fam[160] = "";
    size_t first = a->npairs, computed = 0;
    int lower_only = 1;
    for (size_t i = 0; i < a->npairs; i++) {
        int lower;
        char f[160];
        if (!vd_no_renyi(a, i, f, sizeof f, &lower)) {
            computed++;
            continue;
        }
        if (first == a->npairs) {
            snprintf(fam, sizeof fam, "%s", f);
            first = i;
        }
        lower_only &= lower;
    }
    if (first == a->npairs || (lower_only && computed))
        return 0;
    r->verdict = GA_VERDICT_INCONCLUSIVE;
    r->exact = (ga_result){NAN, INFINITY};
    r->worst_pair = first;
    snprintf(r->reason, sizeof r->reason, "not applicable: the Renyi divergences of %s are "
             "not computed (pair '%.100s'), so a %s claim is not decided; its (eps, delta) "
             "profile is (a DP claim)", fam, ga_audit_pair_name(a, first, nb),
             r->type == GA_CLAIM_RDP ? "Renyi DP" : "zCDP");
    return 1;
}

static void run_rdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w)
{
    (void)eps_txt;
    if (!renyi_refused(a, r))
        vd_eval_rdp(a, r, o, w);
}

static void run_zcdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                     const ga_audit_opts *o, ga_gchisq_work *w)
{
    (void)eps_txt;
    if (!renyi_refused(a, r))
        vd_eval_zcdp(a, r, o, w);
}

static void run_gdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w)
{
    (void)eps_txt;
    vd_eval_gdp(a, r, o, w);
}

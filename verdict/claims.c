/*
 * claims.c - the claim table: one row per claim type {type, name, evaluator}, the wording of
 * a claim, and the verdict names. Adding a claim type is a row here, its parse in
 * specs/spec.c and its evaluator (dp.c, renyi.c). Claims on Renyi divergences are refused,
 * with the reason, for pairs whose divergences are not computed.
 */
#include "verdict/internal.h"

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef void (*claim_eval_fn)(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                              const ga_audit_opts *o, ga_gchisq_work *w);

static void run_dp(ga_audit *a, ga_claim_result *r, const char *eps_txt, const ga_audit_opts *o,
                   ga_gchisq_work *w);

static void run_rdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w);

static void run_zcdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                     const ga_audit_opts *o, ga_gchisq_work *w);

static void run_gdp(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                    const ga_audit_opts *o, ga_gchisq_work *w);

/* One row per claim type: adding a type is a row here, its parse in specs/spec.c and its
 * evaluator (reports read the name and the wording from here). */
static const struct {
    int type;
    const char *name;     /* in JSON */
    claim_eval_fn eval;
} claim_types[] = {
    {GA_CLAIM_DP, "dp", run_dp},
    {GA_CLAIM_RDP, "rdp", run_rdp},
    {GA_CLAIM_ZCDP, "zcdp", run_zcdp},
    {GA_CLAIM_GDP, "gdp", run_gdp},
};

int vd_claim_row(int type)
{
    for (size_t i = 0; i < sizeof claim_types / sizeof *claim_types; i++)
        if (claim_types[i].type == type)
            return (int)i;
    return -1;
}

/* evaluate claim r by its row (the type is in the table: vd_claim_row(r->type) >= 0) */
void vd_claim_eval(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                   const ga_audit_opts *o, ga_gchisq_work *w)
{
    claim_types[vd_claim_row(r->type)].eval(a, r, eps_txt, o, w);
}

const char *ga_claim_type_name(int type)
{
    int i = vd_claim_row(type);
    return i < 0 ? NULL : claim_types[i].name;
}

void ga_claim_text(char *b, size_t n, const ga_claim_result *r)
{
    if (r->relative && n > 9) { /* every claim of a relative audit says so */
        memcpy(b, "relative ", 9);
        b += 9;
        n -= 9;
    }
    /* the claimed numbers as their writer wrote them: the shortest round-trip decimals */
    char x[32], y[32];
    switch (r->type) {
    case GA_CLAIM_DP:
        ga_fmt_shortest(x, sizeof x, r->eps);
        ga_fmt_shortest(y, sizeof y, r->delta);
        snprintf(b, n, "(%.30s, %.30s)-DP", r->eps_txt ? r->eps_txt : x,
                 r->delta_txt ? r->delta_txt : y);
        break;
    case GA_CLAIM_RDP:
        ga_fmt_shortest(x, sizeof x, r->alpha);
        ga_fmt_shortest(y, sizeof y, r->eps_a);
        snprintf(b, n, "RDP: D_%s <= %s", x, y);
        break;
    case GA_CLAIM_ZCDP:
        ga_fmt_shortest(x, sizeof x, r->eps_a);
        snprintf(b, n, "%s-zCDP", x);
        break;
    case GA_CLAIM_GDP:
        ga_fmt_shortest(x, sizeof x, r->eps_a);
        snprintf(b, n, "%s-GDP", x);
        break;
    default:
        snprintf(b, n, "?"); /* never another type's wording */
    }
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

/* Claims on Renyi divergences (RDP, zCDP) need each pair's own divergence. A masked or
 * synthetic pair (a non-Gaussian release) and a subsampled sketch step have none here: such a
 * claim is refused with the reason (INCONCLUSIVE, no value), never computed from another
 * family's fields. 1: refused. */
static int renyi_refused(ga_audit *a, ga_claim_result *r)
{
    char nb[GA_SPEC_NAME_LEN];
    ga_spec_pair_buf pb;
    for (size_t i = 0; i < a->npairs; i++) {
        const ga_spec_pair *sp = vd_spair(a, i, &pb);
        const char *fam = sp->masked ? "matrix masking (a noncentral chi-square release)"
                          : sp->synth ? "synthetic data from random inputs"
                          : sp->nsub && sp->sub[0].columns > 0 ? "a subsampled sketch step"
                                                               : NULL;
        if (!fam)
            continue;
        r->verdict = GA_VERDICT_INCONCLUSIVE;
        r->exact = (ga_result){NAN, INFINITY};
        r->worst_pair = i;
        snprintf(r->reason, sizeof r->reason, "not applicable: the Renyi divergences of %s are "
                 "not computed (pair '%.100s'), so a %s claim is not decided; its (eps, delta) "
                 "profile is (a DP claim)", fam, ga_audit_pair_name(a, i, nb),
                 r->type == GA_CLAIM_RDP ? "Renyi DP" : "zCDP");
        return 1;
    }
    return 0;
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

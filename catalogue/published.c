/*
 * published.c - the published calibrations a kind's exact one is compared with (calibrate):
 * the classic and analytic Gaussian mechanism, Ding et al.'s conditions for matrix masking,
 * the NDIS sketch and M_LS rules, each with its source in the text it reports.
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* delta_ALS^eps(q, p) of the NDIS paper (Definition 13): the delta of the Theorem 4 pair,
 * the larger of both directions plus its error estimate (-1 on error) */
static double als_delta(double q, double p, double r, size_t d, double eps, ga_gchisq_work *w)
{
    ga_delta D;
    int rc = ga_mech_als_delta(&D, q, p, r, d, eps, w);
    return rc == GA_OK || rc == GA_ETOL ? fmax(D.xy.val + D.xy.err, D.yx.val + D.yx.err) : -1;
}

/* The NDIS paper's M_LS rule (Figure 4, step 1; Theorem 5): the sigma with
 * delta_ALS(2 l^2/sigma^2, l^2/sigma^2) = delta, by bisection in t = l^2/sigma^2 (the rule
 * assumes delta_ALS increasing, so delta_ALS(2t, t) is increasing in t). Returns 0 when no
 * t in (0, 1/2) meets the target. */
static double mls_rule_sigma(double l, double r, size_t d, double eps, double delta, ga_gchisq_work *w)
{
    double lo = 1e-12, hi = 0.5 * (1 - 1e-12);
    if (als_delta(2 * lo, lo, r, d, eps, w) > delta)
        return 0;
    if (als_delta(2 * hi, hi, r, d, eps, w) <= delta)
        return l / sqrt(hi);
    for (int k = 0; k < 200 && hi - lo > 1e-14 * hi; k++) {
        double mid = sqrt(lo * hi);
        if (!(mid > lo && mid < hi))
            mid = 0.5 * (lo + hi);
        if (als_delta(2 * mid, mid, r, d, eps, w) > delta)
            hi = mid;
        else
            lo = mid;
    }
    return l / sqrt(lo);
}

static void pub_add(ga_mech_published *pv, size_t *np, size_t max, const char *name, double value,
                    double lev, double exact_lev, const char *text)
{
    if (*np >= max)
        return;
    ga_mech_published *e = &pv[(*np)++];
    e->name = name;
    e->value = value;
    e->leverage = lev;
    e->exact_leverage = exact_lev;
    snprintf(e->text, sizeof e->text, "%s", text ? text : "");
}

/* Ding et al. (matrix masking, noise only), their bounds (12) sufficient and (11) necessary
 * for the distance scale of the worst pair */
static void pub_ding(ga_mech_published *pv, size_t *np, size_t max, double scale, double eps,
                     double delta)
{
    double g = gsl_cdf_ugaussian_Qinv(delta);
    double b12 = scale * g / eps * (1 + 1 / (2 * g * g)), b11 = scale * g / eps;
    char t[320];
    snprintf(t, sizeof t, "Ding et al. (matrix masking, noise only): sufficient (12) %.6g, "
             "stated necessary (11) %.6g", b12, b11);
    pub_add(pv, np, max, "Ding et al. (12) sufficient", b12, NAN, NAN, t);
    pub_add(pv, np, max, "Ding et al. (11) necessary", b11, NAN, NAN, NULL);
}

size_t cat_pub_gaussian_mechanism(ga_mech_published *pv, size_t max, ga_pairset *set,
                                  ga_spec *s, const ga_build_opts *bo, double eps,
                                  double delta, double value, ga_gchisq_work *w)
{
    (void)bo, (void)set;
    (void)w;
    char msg[256], t[320];
    size_t np = 0;
    double sens;
    if (ga_spec_mech_number(s, "sensitivity", &sens, 0, msg, sizeof msg) != GA_OK)
        return 0;
    double classic = sens * sqrt(2 * log(1.25 / delta)) / eps;
    snprintf(t, sizeof t, "classic Gaussian (Dwork & Roth 2014, Thm A.1; stated for eps < 1): "
             "%.10g (%.4gx the exact value)", classic, classic / value);
    pub_add(pv, &np, max, "classic Gaussian", classic, NAN, NAN, t);
    pub_add(pv, &np, max, "analytic Gaussian (Balle & Wang 2018)", value, NAN, NAN,
            "analytic Gaussian (Balle & Wang 2018): the exact calibration of this mechanism, the "
            "value above");
    pub_ding(pv, &np, max, sens, eps, delta);
    return np;
}

/* the upper delta-quantile of noncentral chi^2_df(a) (bisection on the estimated tail) */
static double ncx2_quantile(double df, double a, double delta)
{
    double lo = 0, hi = df + a + 10, Q, P;
    for (int k = 0; k < 200 && !ga_ncx2_tail(&Q, &P, df, a, hi) && Q > delta; k++)
        hi *= 2;
    for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (ga_ncx2_tail(&Q, &P, df, a, mid))
            return NAN;
        if (Q > delta)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Ding et al.'s Theorem 3.4 (13): sigma0 the largest root of g(sigma) = (2 sqrt(p) + 1)/(2 (n -
 * p)) gamma_{delta; 2 (n - p), p/sigma^2} + sqrt(p) - sigma^2 eps (g decreases in sigma: the
 * quantile decreases with the noncentrality), for rows of entries <= 1 */
static double ding_thm34(double n, double p, double eps, double delta)
{
    double lo = 1e-3, hi = 1e6;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double sg = sqrt(lo * hi);
        double g = (2 * sqrt(p) + 1) / (2 * (n - p)) * ncx2_quantile(2 * (n - p), p / (sg * sg), delta) +
                   sqrt(p) - sg * sg * eps;
        if (isnan(g))
            return NAN;
        if (g > 0)
            lo = sg;
        else
            hi = sg;
    }
    return sqrt(lo * hi);
}

size_t cat_pub_matrix_masking(ga_mech_published *pv, size_t max, ga_pairset *set,
                              ga_spec *s, const ga_build_opts *bo, double eps,
                              double delta, double value, ga_gchisq_work *w)
{
    (void)bo, (void)set;
    (void)value, (void)w;
    size_t np = 0;
    for (size_t i = 0; i < set->npairs; i++) {
        if (!set->pairs[i].masked)
            continue;
        /* setting (B): Theorem 3.4 (13) and Corollary 3.5 (14), stated for entries <= 1, n > p;
         * block-diagonal masking: n the smallest block's (Section 4), here the fewest rows
         * of the audited pairs (the universe's pair has the smallest block's) */
        double n = set->pairs[i].masked->rows, p = 1;
        for (size_t k = i + 1; k < set->npairs; k++)
            if (set->pairs[k].masked)
                n = fmin(n, set->pairs[k].masked->rows);
        const ga_node *cn = ga_node_get(s->mechanism, "columns");
        if (s->data.n)
            p = (double)s->data.d;
        else if (cn && cn->text)
            ga_decimal_to_double(&p, cn->text);
        char t[320];
        if (n > p) {
            double b13 = ding_thm34(n, p, eps, delta);
            double b14 = sqrt((2 * n - p + log(1 / delta)) / (2 * (n - p))) * 3 * pow(p, 0.25) / sqrt(eps);
            snprintf(t, sizeof t, "Ding et al. setting (B), masked (entries <= 1): Theorem 3.4 (13) "
                     "%.6g, Corollary 3.5 (14) %.6g", b13, b14);
            pub_add(pv, &np, max, "Ding et al. (13) masked", b13, NAN, NAN, t);
            pub_add(pv, &np, max, "Ding et al. (14) masked", b14, NAN, NAN, NULL);
        }
        double l = s->row_norm_bound > 0 ? s->row_norm_bound : 1;
        pub_ding(pv, &np, max, (s->relation == GA_REL_REPLACE_ONE ? 2 : 1) * l, eps, delta);
        return np;
    }
    /* the sensitivity the published formulas take: the proven worst case's row change, or
     * without a universe the largest change among the audited neighbours */
    double scale = 0;
    if (set->verified && set->npairs)
        scale = set->pairs[set->verified_pair].mu_x[0];
    else
        for (size_t i = 0; i < set->npairs; i++)
            scale = fmax(scale, fabs(set->pairs[i].mu_x[0]));
    if (!(scale > 0))
        return 0;
    pub_ding(pv, &np, max, scale, eps, delta);
    return np;
}

size_t cat_pub_sketch(ga_mech_published *pv, size_t max, ga_pairset *set,
                      ga_spec *s, const ga_build_opts *bo, double eps,
                      double delta, double value, ga_gchisq_work *w)
{
    (void)w;
    /* (the LSV and leverage rules are for the unsampled sketch) */
    if (!set->verified || !s->has_universe || ga_node_get(s->mechanism, "subsampling"))
        return 0;
    char msg[256], t[320];
    size_t np = 0;
    double r;
    ga_spec_mech_number(s, "columns", &r, 1, msg, sizeof msg);
    double L4 = log(4 / delta), plsv = eps / (4 * (sqrt(2 * r * L4) + L4));
    /* leverage bound l^2/(lambda_min + sigma^2): recover lambda_min from the worst pair */
    double l2 = s->row_norm_bound * s->row_norm_bound;
    ga_mech_rebuild(set, s, bo, value, msg, sizeof msg);
    double tau = set->pairs[set->verified_pair].s_x[0], pstar = 1 - 1 / tau;
    double lmin = l2 / pstar - value * value, s2 = l2 / plsv - lmin;
    snprintf(t, sizeof t, "leverage threshold: exact %.6g; LSV-based (Sheffet 2019, Thm 2, as in "
             "the NDIS paper) %.6g, i.e. noise_sigma %.6g (%.3gx the exact leverage allowed)",
             pstar, plsv, s2 > 0 ? sqrt(s2) : 0.0, pstar / plsv);
    pub_add(pv, &np, max, "LSV-based", s2 > 0 ? sqrt(s2) : 0.0, plsv, pstar, t);
    return np;
}

size_t cat_pub_linear_regression(ga_mech_published *pv, size_t max, ga_pairset *set,
                                 ga_spec *s, const ga_build_opts *bo, double eps,
                                 double delta, double value, ga_gchisq_work *w)
{
    (void)bo, (void)set;
    if (!s->has_universe)
        return 0;
    char msg[256], t[320];
    size_t np = 0;
    double r;
    ga_spec_mech_number(s, "columns", &r, 1, msg, sizeof msg);
    double sr = mls_rule_sigma(s->row_norm_bound, r, s->data.d - 1, eps, delta, w);
    if (sr > 0) {
        snprintf(t, sizeof t, "NDIS paper, M_LS rule (Figure 4: delta_ALS(2 l^2/sigma^2, "
                 "l^2/sigma^2) <= delta, Theorem 5 assuming delta_ALS monotone): sigma %.10g "
                 "(%.4gx the exact value)", sr, sr / value);
        pub_add(pv, &np, max, "NDIS M_LS rule", sr, NAN, NAN, t);
    }
    return np;
}

/*
 * envelope.c - the regression kinds over a universe through the sensitivity envelopes of Wei,
 * Lu, Magdon-Ismail & Zikas (001, Section 6: Definitions 5-8, Propositions 7-8, Figure 5): the
 * envelope as a proven upper bound, and the noise of the paper's NDIS-calibrated mechanism,
 * which calibrate compares with the exact one.
 *
 * Gaussian process regression (Proposition 8). At one public query point x*, the posterior of
 * a dataset with labels |y| <= B is N(mu, v) with v in (0, k**], k** = k(x*, x*). For D = D'
 * plus one row and D of at most n rows, Proposition 8's proof gives |mu(D) - mu(D')| <=
 * sqrt(v') sqrt(n) B / s_n <= sqrt(k**) sqrt(n) B / s_n (a Schur complement of the Gram matrix
 * with the query point, and y^T A^-1 y <= n B^2 / s_n^2); the proposition states it with an
 * l^2 above every k(x, x), its proof uses k** only. The release adds N(0, sigma^2), so for both
 * orders of every add/remove pair the mean shift over the second law's standard deviation is
 * at most D = sqrt(k**) sqrt(n) B / (s_n sigma) and the variance ratio lies within e^+-rho,
 * rho = log(1 + k** / sigma^2): the one-dimensional envelope, whose supremum
 * (pair/type_envelope.c) bounds every neighbour's delta in the universe.
 *
 * Bayesian logistic regression (Definition 7, Proposition 7; rows of norm <= l, at most n of
 * them): the MAP estimates of D and D' = D minus a row x differ by at most l / lambda (lambda-
 * strong convexity, the row's loss gradient of norm <= |x|), every covariance (lambda I + X^T
 * X / 4)^-1 + sigma^2 I lies between m = sigma^2 + 1/(lambda + n l^2/4) and M = sigma^2 +
 * 1/lambda, so the whitened mean shift is at most D = (l / lambda) / sqrt(m) and the ratio's
 * eigenvalues lie within [m/M, M/m]. The precisions differ by x x^T / 4, a rank-one change:
 * the whitened ratio differs from I along one direction only (Proposition 7 allows every
 * eigenvalue to move, nu = d rho), by the factor tau with 1 - tau = v^T S'^-1 v, v = C' x /
 * sqrt(4 + x^T C' x), C' = (lambda I + X'^T X'/4)^-1 <= I/lambda, S' = C' + sigma^2 I: at most
 * (a/(a + sigma^2)) t/(4 + t), a = 1/lambda, t = l^2 a (a bound free of n, often well inside
 * M/m). The envelope with the mean shift in any direction has no supremum computed here: the
 * chain rule through the mean-shifted law bounds it.
 *
 * Either envelope's value bounds every neighbour's delta in the universe without being
 * attained: it can prove a claim, never show a violation.
 *
 * Figure 5. The paper's noise variance (our sigma^2) is the least one with delta_LC(eps; D, rho,
 * nu) <= delta (Definition 6): the infimum over eps1 + eps2 = eps of delta_mean(eps1; D) +
 * e^eps1 delta_cov(eps2), delta_mean(e; D) = Phi(D/2 - e/D) - e^e Phi(-D/2 - e/D), delta_cov =
 * 0 for eps2 >= nu/2 and otherwise the infimum over s >= 0, u in (0, 1/(2(e^rho - 1))) of
 * exp(-2 eps2 s + A(s)) - e^eps2 (1 - exp(2 eps2 u + B(u))). With nu = d rho (both
 * propositions) the envelope functionals take every coordinate at rho (phi_s and psi_u are
 * convex, >= 0 and 0 at 0): A(s) = d (s rho - log(1 + 2 s c)/2), c = 1 - e^-rho, and B(u) =
 * d (-u rho - log(1 - 2 u (e^rho - 1))/2). The derivative of 2 eps2 u + B(u) is 2 eps2 + d
 * ((e^rho - 1)/(1 - 2 u (e^rho - 1)) - rho) > 0, so the infimum over u is the limit u -> 0,
 * where the second term vanishes; s g - (d/2) log(1 + 2 s c), g = d rho - 2 eps2, is least at
 * 1 + 2 s c = d c / g (when g < d c; otherwise at s = 0, where the bound is 1). The infimum
 * over eps1 is taken on a grid refined by golden section: any eps1 gives an upper bound of the
 * paper's value, so the noise found is at least the paper's.
 */
#include "catalogue/internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENV_PAD (1 + 32 * DBL_EPSILON) /* outward: a few roundings of the envelope's formulas */

/* par: k**, sqrt(n) B / s_n */
static void gp_envelope(double *d, double *rho, double sigma, const double *par)
{
    *d = sqrt(par[0]) * par[1] / sigma;
    *rho = log1p(par[0] / (sigma * sigma));
}

/* par: l, lambda, n (Proposition 7: nu = d rho) */
static void logistic_envelope(double *d, double *rho, double sigma, const double *par)
{
    double l = par[0], lambda = par[1], n = par[2], s2 = sigma * sigma;
    double m = s2 + 1 / (lambda + n * l * l / 4), M = s2 + 1 / lambda;
    *d = l / lambda / sqrt(m);
    *rho = log(M / m);
}

/* add the envelope's pair as the proven upper bound */
static int add_envelope(cat_job *j, const ga_envelope_input *v, const char *name, const char *note)
{
    ga_envelope_input *e = malloc(sizeof *e);
    if (!e)
        return GA_ENOMEM;
    *e = *v;
    int rc = ga_pairset_add(j->out, name, 1, 1, NULL, NULL, NULL, NULL);
    if (rc) {
        free(e);
        return rc;
    }
    j->out->pairs[j->out->npairs - 1].reduced = 1;
    j->out->pairs[j->out->npairs - 1].envelope = e;
    j->out->verified = 1;
    j->out->verified_bound = 1;
    j->out->verified_pair = ga_pairset_npairs(j->out) - 1;
    snprintf(j->out->verified_note, sizeof j->out->verified_note, "%s", note);
    return GA_OK;
}

/* the GP envelope's parameters: k(x*, x*) by the mechanism's kernel, sqrt(n) B / s_n */
static void gp_params(double par[2], const law_par *lp, const ga_spec *s)
{
    par[0] = cat_gp_kernel(lp, lp->query, lp->query, lp->p);
    par[1] = sqrt(s->universe_max_rows) * s->universe_label_bound / sqrt(lp->noise_var);
}

/* the same from the mechanism's keys (calibrate's published value; the builder checked them) */
static int gp_params_of_spec(double par[2], const ga_spec *s)
{
    char msg[160];
    law_par lp = {0};
    const ga_node *k = ga_node_get(s->mechanism, "kernel");
    const ga_node *q = ga_node_get(s->mechanism, "query");
    if (!k || !k->text || !q || q->kind != GA_NODE_SEQ || q->n != 1 || s->data.d < 2)
        return GA_EINVAL;
    lp.linear_kernel = !strcmp(k->text, "linear");
    lp.p = s->data.d - 1;
    if (ga_spec_mech_number(s, "noise_variance", &lp.noise_var, 1, msg, sizeof msg) ||
        (!lp.linear_kernel &&
         (ga_spec_mech_number(s, "signal_variance", &lp.signal_var, 1, msg, sizeof msg) ||
          ga_spec_mech_number(s, "lengthscale", &lp.lengthscale, 1, msg, sizeof msg))))
        return GA_EINVAL;
    double *v;
    size_t len;
    if (ga_spec_vector(s, q->kids[0], "mechanism.query[0]", lp.p, &v, &len, msg, sizeof msg))
        return GA_EINVAL;
    lp.query = v;
    lp.nq = 1;
    gp_params(par, &lp, s);
    free(v);
    return GA_OK;
}

/* what both universes need: add/remove neighbours, added noise, the audited datasets within
 * max_rows */
static int addremove_universe(cat_job *j, double sigma, const char *prop, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    char what[200];
    if (s->relation != GA_REL_NONE && s->relation != GA_REL_REMOVE_ONE &&
        s->relation != GA_REL_ADD_ONE) {
        snprintf(what, sizeof what, "the envelope of %s covers add/remove neighbours "
                 "(remove_one, add_one)", prop);
        return ga_spec_fail(s, s->universe, "universe", msg, msglen, what);
    }
    if (!(sigma > 0))
        return ga_spec_fail(s, s->universe, "universe", msg, msglen, "a universe needs "
                            "mechanism.sigma > 0 (without added noise the envelope is unbounded)");
    size_t rows = s->data.n + (s->relation == GA_REL_ADD_ONE);
    if ((double)rows > s->universe_max_rows) {
        snprintf(what, sizeof what, "the audited datasets have up to %zu rows, more than "
                 "max_rows %.17g", rows, s->universe_max_rows);
        return ga_spec_fail(s, s->universe, "universe.max_rows", msg, msglen, what);
    }
    return GA_OK;
}

int cat_gp_universe_check(cat_job *j, const law_par *lp, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = addremove_universe(j, lp->sigma, "Proposition 8", msg, msglen);
    if (rc)
        return rc;
    if (lp->nq != 1)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "query"), "mechanism.query", msg, msglen,
                            "a universe needs one query point (the envelope of Proposition 8 is "
                            "the posterior at one point)");
    const ga_dataset *sets[2] = {&s->data, &s->candidates};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sets[k]->n; i++) {
            double y = sets[k]->x[i * sets[k]->d + sets[k]->d - 1];
            if (fabs(y) > s->universe_label_bound) {
                char what[200];
                snprintf(what, sizeof what, "%s row %zu has label %.17g beyond label_bound %.17g",
                         k ? "candidate" : "dataset", i + 1, y, s->universe_label_bound);
                return ga_spec_fail(s, s->universe, "universe.label_bound", msg, msglen, what);
            }
        }
    return GA_OK;
}

int cat_gp_universe_add(cat_job *j, const law_par *lp, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    double par[2], d, rho;
    gp_params(par, lp, s);
    gp_envelope(&d, &rho, lp->sigma, par);
    ga_envelope_input e = {d * ENV_PAD * ENV_PAD, rho * ENV_PAD, 0};
    ga_pair *p;
    int rc = ga_pair_reduce_envelope(&p, &e, msg, msglen);
    if (rc)
        return rc;
    ga_pair_free(p);
    char name[200], note[512];
    snprintf(name, sizeof name, "every add/remove pair of datasets of at most %.0f rows with "
             "labels in [-%g, %g] (the envelope's supremum)", s->universe_max_rows,
             s->universe_label_bound, s->universe_label_bound);
    snprintf(note, sizeof note, "worst case over every add/remove pair of datasets of at most "
             "%.0f rows with labels in [-%g, %g], bounded by the supremum of delta over the "
             "envelope of Proposition 8 (001: mean shift <= sqrt(k(x*, x*) n) B / (s_n sigma) = "
             "%.6g standard deviations, variance ratio within e^+-%.6g)", s->universe_max_rows,
             s->universe_label_bound, s->universe_label_bound, e.mean_bound, e.log_ratio_bound);
    return add_envelope(j, &e, name, note);
}

/* ------------------------------------------------------------------ Figure 5's noise */

static double lc_mean(double e1, double d)
{
    /* Phi(d/2 - e1/d) - e^e1 Phi(-d/2 - e1/d), the tails by erfc */
    return 0.5 * erfc(-(d / 2 - e1 / d) / M_SQRT2) - exp(e1) * 0.5 * erfc((d / 2 + e1 / d) / M_SQRT2);
}

static double lc_cov(double e2, double rho, double dim)
{
    if (e2 >= dim * rho / 2)
        return 0;
    double c = -expm1(-rho), g = dim * rho - 2 * e2;
    if (g >= dim * c)
        return 1;
    double s = (dim * c / g - 1) / (2 * c);
    return exp(s * g - 0.5 * dim * log(dim * c / g));
}

static double lc_sum(double e1, double eps, double d, double rho, double dim)
{
    return lc_mean(e1, d) + exp(e1) * lc_cov(eps - e1, rho, dim);
}

/* Definition 6's delta_LC(eps; d, rho, nu = dim rho): the covariance term vanishes from
 * eps1 = eps - nu/2 down and rises like a square root above it, so that point is a candidate
 * beside the grid's (it is the infimum whenever the mean term's decrease does not outrun the
 * covariance term's growth further up) */
static double delta_lc(double eps, double d, double rho, double dim)
{
    enum { N = 400 };
    double kink = eps - dim * rho / 2;
    /* (at the kink itself eps2 = nu/2 and the covariance term is 0; eps - kink in doubles may
     * fall an ulp short of it) */
    double best = kink >= 0 ? lc_mean(kink, d) : INFINITY, gbest = INFINITY;
    int ib = 0;
    for (int i = 0; i <= N; i++) {
        double v = lc_sum(eps * i / N, eps, d, rho, dim);
        if (v < gbest) {
            gbest = v;
            ib = i;
        }
    }
    best = fmin(best, gbest);
    double lo = eps * (ib > 0 ? ib - 1 : 0) / N, hi = eps * (ib < N ? ib + 1 : N) / N;
    const double g = 0.5 * (sqrt(5.0) - 1);
    for (int it = 0; it < 100 && hi - lo > 1e-15 * (1 + eps); it++) {
        double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
        if (lc_sum(x1, eps, d, rho, dim) <= lc_sum(x2, eps, d, rho, dim))
            hi = x2;
        else
            lo = x1;
    }
    return fmin(best, lc_sum(0.5 * (lo + hi), eps, d, rho, dim));
}

/* the envelope (D, rho) of a kind at noise sigma */
typedef void (*envelope_fn)(double *d, double *rho, double sigma, const double *par);

/* the least sigma with delta_LC(eps; D(sigma), rho(sigma), dim rho(sigma)) <= delta:
 * delta_LC decreases in sigma (the paper's Theorem 6.1 proof); bracketed by doubling from
 * start, then bisected in log sigma */
static double figure5_sigma(envelope_fn env, const double *par, double dim, double eps,
                            double delta, double start)
{
    double lo = start, hi = start, d, rho;
    for (int k = 0; k < 200; k++, hi *= 2) {
        env(&d, &rho, hi, par);
        if (delta_lc(eps, d, rho, dim) <= delta)
            break;
    }
    for (int k = 0; k < 200; k++, lo /= 2) {
        env(&d, &rho, lo, par);
        if (delta_lc(eps, d, rho, dim) > delta)
            break;
    }
    for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
        double mid = sqrt(lo * hi);
        env(&d, &rho, mid, par);
        if (delta_lc(eps, d, rho, dim) > delta)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

static size_t pub_figure5(ga_mech_published *pv, double value, double sigma, const char *prop)
{
    ga_mech_published *e = &pv[0];
    e->name = "NDIS-calibrated (001 Figure 5)";
    e->value = sigma;
    e->leverage = e->exact_leverage = NAN;
    snprintf(e->text, sizeof e->text, "NDIS-calibrated mechanism (001 Figure 5: Definition 6's "
             "delta_LC with %s's sensitivities; noise variance sigma^2): %.10g (%.4gx the exact "
             "value)", prop, sigma, sigma / value);
    return 1;
}

size_t cat_pub_gp(ga_mech_published *pv, size_t max, ga_pairset *set, ga_spec *s,
                  const ga_build_opts *bo, double eps, double delta, double value,
                  ga_gchisq_work *w)
{
    (void)set, (void)bo, (void)w;
    double par[2];
    if (!max || !s->has_universe || !(value > 0) || gp_params_of_spec(par, s))
        return 0;
    return pub_figure5(pv, value, figure5_sigma(gp_envelope, par, 1, eps, delta, value), "Proposition 8");
}

size_t cat_pub_logistic(ga_mech_published *pv, size_t max, ga_pairset *set, ga_spec *s,
                        const ga_build_opts *bo, double eps, double delta, double value,
                        ga_gchisq_work *w)
{
    (void)set, (void)bo, (void)w;
    char msg[160];
    double lambda;
    if (!max || !s->has_universe || !(value > 0) || s->data.d < 2 ||
        ga_spec_mech_number(s, "lambda", &lambda, 1, msg, sizeof msg))
        return 0;
    double par[3] = {s->row_norm_bound, lambda, s->universe_max_rows};
    return pub_figure5(pv, value, figure5_sigma(logistic_envelope, par, (double)(s->data.d - 1), eps,
                                                delta, value), "Proposition 7");
}

int cat_logistic_universe_check(cat_job *j, const law_par *lp, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = addremove_universe(j, lp->sigma, "Proposition 7", msg, msglen);
    if (rc)
        return rc;
    const ga_dataset *sets[2] = {&s->data, &s->candidates};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sets[k]->n; i++) {
            double t = 0;
            for (size_t c = 0; c + 1 < sets[k]->d; c++)
                t += sets[k]->x[i * sets[k]->d + c] * sets[k]->x[i * sets[k]->d + c];
            if (sqrt(t) > s->row_norm_bound * (1 + 1e-12)) {
                char what[200];
                snprintf(what, sizeof what, "%s row %zu has features of norm %.17g > "
                         "row_norm_bound %.17g", k ? "candidate" : "dataset", i + 1, sqrt(t),
                         s->row_norm_bound);
                return ga_spec_fail(s, s->universe, "universe.row_norm_bound", msg, msglen, what);
            }
        }
    return GA_OK;
}

int cat_logistic_universe_add(cat_job *j, const law_par *lp, char *msg, size_t msglen)
{
    (void)msg, (void)msglen;
    ga_spec *s = j->s;
    double l = s->row_norm_bound, par[3] = {l, lp->lambda, s->universe_max_rows}, d, rho;
    logistic_envelope(&d, &rho, lp->sigma, par);
    /* the one eigenvalue tau of the ratio: 1 - tau = v^T S'^-1 v, v = C' x / sqrt(4 + x^T C'
     * x) (C' = (lambda I + X'^T X'/4)^-1 <= I/lambda, S' = C' + sigma^2 I), at most
     * (a/(a + sigma^2)) t/(4 + t) with a = 1/lambda, t = l^2 a (both factors grow with C') */
    double a = 1 / lp->lambda, t = l * l * a;
    double one = a / (a + lp->sigma * lp->sigma) * t / (4 + t);
    rho = fmin(rho, -log1p(-one));
    ga_envelope_input e = {d * ENV_PAD, rho * ENV_PAD, 1};
    char name[200], note[512];
    snprintf(name, sizeof name, "every add/remove pair of datasets of at most %.0f rows of "
             "norm <= %g (the envelope's chain-rule bound)", s->universe_max_rows, s->row_norm_bound);
    snprintf(note, sizeof note, "worst case over every add/remove pair of datasets of at most %.0f "
             "rows with features of norm <= %g, bounded by the chain rule over the envelope of "
             "Proposition 7 (001: whitened mean shift <= (l / lambda) / sqrt(sigma^2 + 1/(lambda + "
             "n l^2/4)) = %.6g; the precisions differ by a rank-one x x^T / 4, so the whitened "
             "covariance ratio differs from I along one direction, by a factor within e^+-%.6g)",
             s->universe_max_rows, s->row_norm_bound, e.mean_bound, e.log_ratio_bound);
    return add_envelope(j, &e, name, note);
}

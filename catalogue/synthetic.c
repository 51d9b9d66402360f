/*
 * synthetic.c - synthetic data from random inputs (Pierquin, Bellet, Tommasi & Boussard,
 * "Privacy Amplification Through Synthetic Data", 003): the released points' norms and the
 * vector form, as pairs of the pair layer's synthetic type.
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* synthetic_random_inputs with explicit models: dim d and norms [[|theta|, |theta'|], ...] (the
 * pairs the paper's figures plot: any two models at distance <= Delta) */
/* the explicit models' dimension (mechanism.dim) and the points' check; what names the key
 * that replaces the dataset (norms or models) */
static int synthetic_dim(double *d, cat_job *j, const ga_node *nn, double m, const char *what,
                         char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = cat_mech_number(j, "dim", d, 1, msg, msglen);
    char path[64], why[160];
    if (rc)
        return rc;
    if (!(*d >= 1 && *d <= 1e9 && *d == floor(*d)))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "dim"), "mechanism.dim", msg, msglen,
                            "must be a whole number in 1..1e9 (the model's dimension)");
    if (!(m >= 1 && m <= 1e6 && m == floor(m)) || (fmod(m, 2) != 0 && fmod(*d, 2) != 0))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "points"), "mechanism.points", msg, msglen,
                            "must be a whole number in 1..1e6, even when dim is odd");
    snprintf(path, sizeof path, "mechanism.%s", what);
    snprintf(why, sizeof why, "explicit %s replace the dataset and lambda: give one or the other",
             what);
    if (s->data.n || ga_node_get(s->mechanism, "lambda"))
        return ga_spec_fail(s, nn, path, msg, msglen, why);
    return GA_OK;
}

/* a pair of the pair layer's synthetic type named name, from a copy of v (the last pair of
 * j->out on success) */
static int add_synth(cat_job *j, const char *name, const ga_synthetic_input *v)
{
    ga_synthetic_input *in = malloc(sizeof *in);
    if (!in)
        return GA_ENOMEM;
    *in = *v;
    int rc = ga_pairset_add(j->out, name, 1, 1, NULL, NULL, NULL, NULL);
    if (rc) {
        free(in);
        return rc;
    }
    j->out->pairs[j->out->npairs - 1].reduced = 1;
    j->out->pairs[j->out->npairs - 1].synth = in;
    return GA_OK;
}

static int synthetic_norms(cat_job *j, const ga_node *nn, double sigma, double m, const char *st,
                           char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    double d = 0;
    int rc = synthetic_dim(&d, j, nn, m, "norms", msg, msglen);
    if (rc)
        return rc;
    if (nn->kind != GA_NODE_SEQ || nn->n == 0 || nn->n > 10000)
        return ga_spec_fail(s, nn, "mechanism.norms", msg, msglen,
                            "must be a list of 1 to 10000 pairs [|theta(D)|, |theta(D')|]");
    for (size_t i = 0; i < nn->n; i++) {
        double *v;
        size_t len;
        char path[64], name[160];
        snprintf(path, sizeof path, "mechanism.norms[%zu]", i);
        if ((rc = ga_spec_vector(s, nn->kids[i], path, 2, &v, &len, msg, msglen)))
            return rc;
        if (nn->kids[i]->kind != GA_NODE_SEQ) { /* (two numbers are never read as NUMS; the
                                                   texts below must be the doc's) */
            free(v);
            return ga_spec_fail(s, nn->kids[i], path, msg, msglen, "expected [a, b]");
        }
        if (!(v[0] >= 0 && v[1] >= 0 && v[0] <= 1e6 && v[1] <= 1e6)) {
            free(v);
            return ga_spec_fail(s, nn->kids[i], path, msg, msglen, "norms must be in [0, 1e6]");
        }
        const ga_node *kx = nn->kids[i]->kids[0], *ky = nn->kids[i]->kids[1];
        ga_synthetic_input in = {d, m, sigma, v[0], v[1], st, kx->text, ky->text, 0, 0};
        snprintf(name, sizeof name, "models of norm %g (X) and %g (Y)", v[0], v[1]);
        free(v);
        if ((rc = add_synth(j, name, &in)))
            return rc;
    }
    return GA_OK;
}

/*
 * Every two models of norm at most R at distance at most D (models: {norm_bound: R, distance:
 * D}): the supremum pair (pair/type_synth_sup.c: the release's law is ordered in the model's
 * norm, so the supremum is over the pairs at distance min(D, R), bounded cell by cell), the
 * proven worst case as an upper bound, and for each eps of the claims the member of the
 * universe where the double branch and bound found the largest delta (a neighbour that can
 * show a violation).
 */
static int synthetic_models(cat_job *j, const ga_node *mn, double sigma, double m, const char *st,
                            char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    double d = 0, v[2];
    int rc = synthetic_dim(&d, j, mn, m, "models", msg, msglen);
    if (rc)
        return rc;
    static const char *const keys[] = {"norm_bound", "distance", NULL};
    static const char *const why[] = {"must be a number in (0, 1e5] (the largest model norm)",
                                      "must be a positive number (the largest distance of two "
                                      "neighbouring models)"};
    if (mn->kind != GA_NODE_MAP)
        return ga_spec_fail(s, mn, "mechanism.models", msg, msglen,
                            "must be {norm_bound: R, distance: D}");
    if ((rc = ga_spec_check_map(s, mn, "mechanism.models", keys, msg, msglen)))
        return rc;
    for (int k = 0; k < 2; k++) {
        const ga_node *kn = ga_node_get(mn, keys[k]);
        char path[64];
        snprintf(path, sizeof path, "mechanism.models.%s", keys[k]);
        if (!kn || !kn->text || ga_decimal_to_double(&v[k], kn->text) || !(v[k] > 0) ||
            !isfinite(v[k]) || (k == 0 && v[k] > 1e5))
            return ga_spec_fail(s, kn ? kn : mn, path, msg, msglen, why[k]);
    }
    ga_synthetic_input sup = {d, m, sigma, 0, 0, st, NULL, NULL, v[0], v[1]};
    ga_pair *p;
    if ((rc = ga_pair_reduce_synthetic(&p, &sup, msg, msglen)))
        return rc;
    /* the members at the claims' eps (eps 1 without any) */
    size_t ne = j->o->neps ? j->o->neps : 1;
    for (size_t e = 0; e < ne && rc == GA_OK && !cat_out_of_time(j, ne); e++) {
        double eps = j->o->neps ? j->o->eps[e] : 1, a, b;
        if ((rc = ga_pair_synth_sup_argmax(&a, &b, p, eps)) != GA_OK) {
            ga_msg(msg, msglen, "%s: the largest delta over the models at eps %g could not be "
                   "evaluated (%s)", s->path, eps, ga_strerror(rc));
            break;
        }
        int seen = 0;
        for (size_t i = 0; i < j->out->npairs; i++)
            seen |= j->out->pairs[i].synth && j->out->pairs[i].synth->norm_x == a &&
                    j->out->pairs[i].synth->norm_y == b;
        if (seen)
            continue;
        char name[200];
        snprintf(name, sizeof name, "models of norm %.6g (X) and %.6g (Y), the largest delta at "
                 "eps %g", a, b, eps);
        ga_synthetic_input in = {d, m, sigma, a, b, st, NULL, NULL, 0, 0};
        if ((rc = add_synth(j, name, &in)))
            break;
    }
    ga_pair_free(p);
    if (rc)
        return rc;
    char name[200];
    snprintf(name, sizeof name, "every two models of norm <= %g at distance <= %g (the supremum)",
             v[0], v[1]);
    if ((rc = add_synth(j, name, &sup)))
        return rc;
    j->out->verified = 1;
    j->out->verified_bound = 1;
    j->out->verified_pair = j->out->npairs - 1;
    snprintf(j->out->verified_note, sizeof j->out->verified_note,
             "worst case over every two models of norm at most %g at distance at most %g, "
             "their supremum (the release's law is ordered in the model's norm, so it lies at "
             "distance %g; bounded on cells of the smaller norm by the pair of the cell's outer "
             "ends)",
             v[0], v[1], fmin(v[0], v[1]));
    return GA_OK;
}

/* the ridge models of k targets (the dataset's last k columns), V k x p row-major */
static int ridge_multi(double *V, const double *Z, size_t n, size_t p, size_t k, double lambda)
{
    double *Zj = malloc((n ? n : 1) * (p + 1) * sizeof *Zj), *H = malloc(p * p * sizeof *H);
    int rc = Zj && H ? GA_OK : GA_ENOMEM;
    for (size_t j = 0; j < k && rc == GA_OK; j++) {
        for (size_t i = 0; i < n; i++) {
            memcpy(Zj + i * (p + 1), Z + i * (p + k), p * sizeof *Zj);
            Zj[i * (p + 1) + p] = Z[i * (p + k) + p + j];
        }
        rc = cat_ridge(V + j * p, H, Zj, n, p, lambda, NULL);
    }
    free(Zj);
    free(H);
    return rc;
}

/*
 * Vector outputs (k > 1 targets, the model V k x p): the release y_i = V~ z_i is no longer a
 * function of one norm. Bounds per neighbour: below, the outputs projected on a unit u in R^k,
 * u^T y_i = (V~^T u)^T z_i, a scalar synthetic release of the model V^T u (exact for it and a
 * post-processing of the release: its violations are the release's), u the top left singular
 * vector of V - V'; above, the model itself (the release is a post-processing of it): the
 * Gaussian mechanism with shift |V - V'|_F, a bound that never shows a violation.
 */
static int synthetic_vector(cat_job *j, const law_par *lp, size_t k, double m, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    size_t p = lp->p, n = s->data.n, nn = cat_nb_count(s);
    const ga_node *sn = ga_node_get(s->mechanism, "sigma");
    int knobbed = j->o->knob && !strcmp(j->o->knob, "sigma");
    double *V = malloc(k * p * sizeof *V), *W = malloc(k * p * sizeof *W), *G = malloc(k * k * sizeof *G),
           *ev = malloc(k * sizeof *ev);
    int rc = V && W && G && ev ? GA_OK : GA_ENOMEM;
    if (rc == GA_OK && (rc = ridge_multi(V, s->data.x, n, p, k, lp->lambda)))
        ga_msg(msg, msglen, "%s: the ridge system is singular (give lambda > 0)", s->path);
    for (size_t q = 0; q < nn && rc == GA_OK && !cat_out_of_time(j, nn); q++) {
        double *Dp;
        size_t mm;
        char name[96], full[200];
        if (cat_nb_make(s, q, &Dp, &mm, name, sizeof name)) {
            rc = ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen, "a row number exceeds the dataset");
            break;
        }
        rc = ridge_multi(W, Dp, mm, p, k, lp->lambda);
        free(Dp);
        if (rc)
            break;
        /* G = (V - W)(V - W)^T; its top eigenvector is u */
        double fro = 0;
        for (size_t a = 0; a < k; a++)
            for (size_t b = 0; b < k; b++) {
                double t = 0;
                for (size_t j = 0; j < p; j++)
                    t += (V[a * p + j] - W[a * p + j]) * (V[b * p + j] - W[b * p + j]);
                G[a * k + b] = t;
            }
        for (size_t a = 0; a < k; a++)
            fro += G[a * k + a];
        if (ga_lapack_syev('V', 'U', k, G, k, ev)) {
            rc = GA_EINVAL;
            ga_msg(msg, msglen, "%s: eigendecomposition failed", s->path);
            break;
        }
        double nx = 0, ny = 0; /* |V^T u|, |W^T u|, u = column k - 1 of G (largest eigenvalue) */
        for (size_t j = 0; j < p; j++) {
            double a = 0, b = 0;
            for (size_t r = 0; r < k; r++) {
                a += V[r * p + j] * G[r * k + k - 1];
                b += W[r * p + j] * G[r * k + k - 1];
            }
            nx += a * a;
            ny += b * b;
        }
        ga_synthetic_input in = {(double)p, m, lp->sigma, sqrt(nx), sqrt(ny),
                                 knobbed || !sn ? NULL : sn->text, NULL, NULL, 0, 0};
        snprintf(full, sizeof full, "%s (lower bound: the outputs projected on the top singular "
                 "direction of the change)", name);
        if ((rc = add_synth(j, full, &in)))
            break;
        j->out->pairs[j->out->npairs - 1].lower = 1;
        snprintf(full, sizeof full, "%s (upper bound: the model itself, shift %.6g)", name, sqrt(fro));
        if ((rc = cat_add_1d(j, full, sqrt(fro), lp->sigma * lp->sigma, lp->sigma * lp->sigma, 1)))
            break;
        j->out->pairs[j->out->npairs - 1].bound = 1;
    }
    free(V);
    free(W);
    free(G);
    free(ev);
    j->out->verified = 0;
    return rc;
}

/* the mechanism keys of kind synthetic_random_inputs (its row in the kind table;
 * the JSON Schema) */
const char *const cat_keys_synthetic_random_inputs[] = {"kind", "lambda", "sigma", "points",
                                                        "outputs", "dim", "norms", "models",
                                                        NULL};

int cat_build_synthetic(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    law_par lp = {0};
    double m = 0, outs = 1;
    int rc;
    if ((rc = ga_spec_check_map(s, s->mechanism, "mechanism", cat_keys_synthetic_random_inputs,
                                    msg, msglen)) ||
        (rc = cat_mech_number(j, "sigma", &lp.sigma, 1, msg, msglen)) ||
        (rc = cat_mech_number(j, "points", &m, 1, msg, msglen)) ||
        (rc = cat_need_positive(s, "sigma", lp.sigma, 0, msg, msglen)))
        return rc;
    const ga_node *sn = ga_node_get(s->mechanism, "sigma");
    int knobbed = j->o->knob && !strcmp(j->o->knob, "sigma");
    const ga_node *nn = ga_node_get(s->mechanism, "norms");
    const ga_node *mn = ga_node_get(s->mechanism, "models");
    if (nn && mn)
        return ga_spec_fail(s, mn, "mechanism.models", msg, msglen,
                            "give norms (a list of model pairs) or models (every pair within "
                            "bounds), not both");
    if (nn) /* explicit models: |theta(D)| and |theta(D')| per pair, no dataset */
        return synthetic_norms(j, nn, lp.sigma, m, knobbed || !sn ? NULL : sn->text, msg, msglen);
    if (mn) /* every pair of models within bounds: the supremum */
        return synthetic_models(j, mn, lp.sigma, m, knobbed || !sn ? NULL : sn->text, msg, msglen);
    if ((rc = cat_mech_number(j, "lambda", &lp.lambda, 1, msg, msglen)) ||
        (rc = cat_need_positive(s, "lambda", lp.lambda, 1, msg, msglen)))
        return rc;
    if (ga_node_get(s->mechanism, "dim"))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "dim"), "mechanism.dim", msg, msglen,
                            "dim goes with norms (explicit models); with a dataset it is the "
                            "number of features");
    if ((rc = cat_mech_number(j, "outputs", &outs, 0, msg, msglen)) > 0)
        return rc;
    if (!(outs >= 1 && outs == floor(outs) && outs <= 100 && (s->data.n == 0 || outs < (double)s->data.d)))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "outputs"), "mechanism.outputs", msg,
                            msglen, "must be a whole number in 1..100, fewer than the dataset's "
                            "columns (the last `outputs` columns are the targets)");
    if (!(m >= 1 && m <= 1e6 && m == floor(m)))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "points"), "mechanism.points", msg,
                            msglen, "must be a whole number in 1..1e6 (the synthetic points)");
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                            "missing: rows [x_1, ..., x_p, y] (the last column is the target)");
    if (s->data.d < 2)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                            "needs at least two columns: features and the target (last column)");
    lp.p = s->data.d - (size_t)outs;
    if (fmod(m, 2) != 0 && fmod((double)lp.p, 2) != 0)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "points"), "mechanism.points", msg,
                            msglen, "with an odd number of features the number of points must be "
                            "even (the exact tails need one of them even)");
    if (s->release.n)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                            msglen, "the synthetic release is not Gaussian: a linear map of it is "
                            "not supported");
    if ((s->relation == GA_REL_ADD_ONE || s->relation == GA_REL_REPLACE_ONE) &&
        s->candidates.d != s->data.d)
        return ga_spec_fail(s, s->mechanism, "neighbours.candidates", msg, msglen,
                            "candidate rows must have as many columns as the dataset");
    if (outs > 1)
        return synthetic_vector(j, &lp, (size_t)outs, m, msg, msglen);
    size_t from = j->out->npairs;
    if ((rc = cat_build_generic(j, cat_law_output_perturbation, &lp, lp.p, msg, msglen)))
        return rc;
    for (size_t i = from; i < j->out->npairs; i++) {
        ga_spec_pair *p = &j->out->pairs[i];
        double nx = 0, ny = 0;
        for (size_t j = 0; j < p->d; j++) {
            nx += p->mu_x[j] * p->mu_x[j];
            ny += p->mu_y[j] * p->mu_y[j];
        }
        ga_synthetic_input *in = malloc(sizeof *in);
        if (!in)
            return GA_ENOMEM;
        *in = (ga_synthetic_input){(double)lp.p, m, lp.sigma, sqrt(nx), sqrt(ny),
                                   knobbed || !sn ? NULL : sn->text, NULL, NULL, 0, 0};
        ga_spec_pair_set_laws(p, 1, NULL, NULL, NULL, NULL);
        p->reduced = 1;
        p->synth = in;
    }
    j->out->verified = 0;
    return GA_OK;
}

/*
 * ptr.c - the sketch behind a propose-test-release ridge (mechanism.ptr: the NDIS paper's PTR
 * wrapper, arXiv 2309.01243 v4, Figure 4; the Gaussian mixing mechanism's Algorithm 1, Lev et
 * al.). The test's value y = lambda_min(D^T D) + N(0, test_sigma^2) (or Laplace noise of scale
 * test_laplace) sets the ridge rho(y) =
 * scale max(target - max(y - margin, 0), 0), and r columns N(0, D^T D + (noise_sigma^2 + rho)
 * I) are released. Each neighbour (one row more or less) gives two pairs (pair/ptr.c): a lower
 * bound (one event on the release) and an upper bound (the release with its ridge level). The
 * pairs' numbers are the neighbours' Gram matrices' eigen-decompositions in double precision.
 * No worst case over a universe is proven: verdicts cover the listed neighbours.
 */
#include "catalogue/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTR_MAX_WORK 4e9 /* multiply-adds over all neighbours (Gram matrices, eigensolvers) */

static const char *const ptr_keys[] = {"test_sigma", "test_laplace", "margin", "target",
                                       "scale", NULL};

/* the two pairs of one neighbour */
static int add_ptr(cat_job *j, const char *name, const ga_ptr_input *in)
{
    for (int bound = 0; bound < 2; bound++) {
        char full[400];
        snprintf(full, sizeof full, "%s (%s)", name,
                 bound ? "upper bound: the release with its ridge level"
                       : "lower bound: one event on the release");
        ga_ptr_input *c = malloc(sizeof *c + 2 * in->d * sizeof(double));
        if (!c)
            return GA_ENOMEM;
        double *a = (double *)(c + 1);
        *c = *in;
        memcpy(a, in->mu, in->d * sizeof *a);
        memcpy(a + in->d, in->c2, in->d * sizeof *a);
        c->mu = a;
        c->c2 = a + in->d;
        c->bound = bound;
        int rc = ga_pairset_add(j->out, full, 1, in->columns, NULL, NULL, NULL, NULL);
        if (rc) {
            free(c);
            return rc;
        }
        ga_spec_pair *p = &j->out->pairs[j->out->npairs - 1];
        p->reduced = 1;
        p->ptr = c;
        p->lower = !bound;
        p->bound = bound;
    }
    return GA_OK;
}

/* the smallest eigenvalue of the Gram matrix of m rows (E: d x d scratch), or NaN */
static double gram_lmin(double *E, const double *X, size_t m, size_t d, double *w)
{
    cat_gram(E, X, m, d, 0);
    return ga_lapack_syevd('N', 'U', d, E, d, w) ? NAN : w[0];
}

/* the ptr mapping's numbers into in: the test's noise (test_sigma, Gaussian, or test_laplace,
 * Laplace's scale: one of them), margin, target, scale (default 1) */
static int ptr_numbers(ga_ptr_input *in, cat_job *j, const ga_node *pn, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = ga_spec_check_map(s, pn, "mechanism.ptr", ptr_keys, msg, msglen);
    if (rc)
        return rc;
    in->test_laplace = ga_node_get(pn, "test_laplace") != NULL;
    if (in->test_laplace == (ga_node_get(pn, "test_sigma") != NULL))
        return ga_spec_fail(s, pn, "mechanism.ptr", msg, msglen, "give the test's noise: "
                            "test_sigma (Gaussian) or test_laplace (Laplace's scale), one of them");
    double v[4] = {0, 0, 0, 1};
    const char *key[4] = {in->test_laplace ? "test_laplace" : "test_sigma", "margin", "target",
                          "scale"};
    for (int k = 0; k < 4 && rc == GA_OK; k++) {
        rc = ga_spec_node_number(s, pn, "mechanism.ptr", key[k], &v[k], k < 3, msg, msglen);
        if (rc < 0)
            rc = GA_OK; /* (scale absent: 1) */
    }
    if (rc)
        return rc;
    const char *bad = !(v[0] > 0 && v[0] < INFINITY)   ? "the test's noise must be positive"
                      : !(v[1] >= 0 && v[1] < INFINITY) ? "margin must be >= 0"
                      : !(v[2] > 0 && v[2] < INFINITY)  ? "target must be positive"
                      : !(v[3] > 0 && v[3] < INFINITY)  ? "scale must be positive"
                                                        : NULL;
    if (bad)
        return ga_spec_fail(s, pn, "mechanism.ptr", msg, msglen, bad);
    in->test_sigma = v[0];
    in->margin = v[1];
    in->target = v[2];
    in->scale = v[3];
    return GA_OK;
}

int cat_build_sketch_ptr(cat_job *j, double r, double sigma, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    const ga_node *pn = ga_node_get(s->mechanism, "ptr");
    ga_ptr_input in = {0};
    int rc = ptr_numbers(&in, j, pn, msg, msglen);
    if (rc)
        return rc;
    const char *why = ga_node_get(s->mechanism, "subsampling") ? "subsampling"
                      : s->release.n                           ? "release"
                      : s->has_universe                        ? "universe"
                                                               : NULL;
    if (why)
        return ga_spec_fail(s, s->mechanism, "mechanism.ptr", msg, msglen,
                            !strcmp(why, "universe")
                                ? "no worst case over a universe is proven for a propose-test-"
                                  "release release: remove universe (the listed neighbours are "
                                  "audited)"
                                : "a propose-test-release release takes neither subsampling nor "
                                  "release");
    int rel = s->relation ? s->relation : GA_REL_REMOVE_ONE;
    if (rel != GA_REL_REMOVE_ONE && rel != GA_REL_ZERO_OUT && rel != GA_REL_ADD_ONE)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "a propose-test-release release is audited for remove_one, zero_out "
                            "and add_one (one row more or less)");
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen, "missing: the data matrix D");
    if (!(r <= 1e5))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "columns"), "mechanism.columns", msg,
                            msglen, "at most 100000 columns with ptr");
    size_t n = s->data.n, d = s->data.d, nn = cat_nb_count(s);
    double work = (double)nn * ((double)n * d * d + 10.0 * d * d * d);
    if (work > PTR_MAX_WORK)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "too many neighbours for their eigen-decompositions: select rows "
                            "with neighbours.rows");
    if ((rc = cat_pairs_fit(j, 2 * nn, 1, "neighbours", msg, msglen)))
        return rc;
    in.columns = r;
    in.d = d;
    /* E, w: the smaller dataset's Gram matrix's eigen-decomposition; F, wf: scratch */
    double *E = malloc(d * d * sizeof *E), *w = malloc(d * sizeof *w);
    double *F = malloc(d * d * sizeof *F), *wf = malloc(d * sizeof *wf);
    double *mu = malloc(d * sizeof *mu), *c2 = malloc(d * sizeof *c2), *v = malloc(d * sizeof *v);
    rc = GA_ENOMEM;
    if (!E || !w || !F || !wf || !mu || !c2 || !v)
        goto cleanup;
    rc = GA_OK;
    int add = rel == GA_REL_ADD_ONE;
    /* the whole dataset's smallest eigenvalue; adding a row, its Gram matrix is the smaller one
     * of every pair, decomposed once */
    double lmin = NAN;
    if (add) {
        cat_gram(E, s->data.x, n, d, 0);
        if (!ga_lapack_syevd('V', 'U', d, E, d, w))
            lmin = w[0];
    } else {
        lmin = gram_lmin(F, s->data.x, n, d, wf);
    }
    for (size_t k = 0; k < nn && rc == GA_OK && !cat_out_of_time(j, nn); k++) {
        double *Dp;
        size_t m;
        char name[96];
        nb_change c;
        if (cat_nb_describe(s, k, &c, v, name, sizeof name) ||
            cat_nb_make(s, k, &Dp, &m, name, sizeof name)) {
            rc = ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen,
                              "a row number exceeds the dataset");
            break;
        }
        const double *x = add ? v : s->data.x + c.row * d;
        /* D''s smallest eigenvalue; removing a row, D' is the smaller dataset: its Gram
         * matrix decomposed */
        double lm = NAN;
        if (add) {
            lm = gram_lmin(F, Dp, m, d, wf);
        } else {
            cat_gram(E, Dp, m, d, 0);
            if (!ga_lapack_syevd('V', 'U', d, E, d, w))
                lm = w[0];
        }
        free(Dp);
        if (!isfinite(lm) || !isfinite(lmin)) {
            rc = ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                              "an eigen-decomposition of a neighbour's Gram matrix failed");
            break;
        }
        for (size_t a = 0; a < d; a++) {
            double t = 0;
            for (size_t b = 0; b < d; b++)
                t += E[b * d + a] * x[b]; /* eigenvector a is column a */
            c2[a] = t * t;
            mu[a] = fmax(w[a], 0) + sigma * sigma;
        }
        in.lmin_big = add ? lm : lmin;
        in.lmin_small = add ? lmin : lm;
        in.mu = mu;
        in.c2 = c2;
        in.big_is_x = !add;
        rc = add_ptr(j, name, &in);
    }
    j->out->verified = 0;
cleanup:
    free(E);
    free(w);
    free(F);
    free(wf);
    free(mu);
    free(c2);
    free(v);
    return rc;
}

/*
 * gaussian.c - the Gaussian mechanism (Dwork & Roth 2014; analytic form Balle & Wang 2018)
 * and matrix masking in its Gaussian setting (Ding, Wu, Miao & Chen, "Reducing Noise Level in
 * Differential Privacy through Matrix Masking", 004), with the checks on their parameters
 * that other kinds share.
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cat_need_psd(const ga_spec *s, const ga_node *n, const char *path, const double *S, size_t p,
                 char *msg, size_t msglen)
{
    double mx = 0, *A = malloc(p * p * sizeof *A), *w = malloc(p * sizeof *w);
    int rc = A && w ? GA_OK : GA_ENOMEM;
    for (size_t i = 0; rc == GA_OK && i < p * p; i++)
        mx = fmax(mx, fabs(S[i]));
    for (size_t i = 0; rc == GA_OK && i < p; i++)
        for (size_t j = 0; j < i; j++)
            if (fabs(S[i * p + j] - S[j * p + i]) > 1e-12 * mx)
                rc = ga_spec_fail(s, n, path, msg, msglen, "must be symmetric");
    if (rc == GA_OK) {
        memcpy(A, S, p * p * sizeof *A);
        if (ga_lapack_syev('N', 'L', p, A, p, w) != 0)
            rc = ga_spec_fail(s, n, path, msg, msglen, "its eigenvalues could not be computed");
        else if (w[0] < -1e-12 * fmax(fabs(w[p - 1]), mx)) {
            char what[160];
            snprintf(what, sizeof what, "must be positive semidefinite (its smallest eigenvalue "
                     "is %.3g)", w[0]);
            rc = ga_spec_fail(s, n, path, msg, msglen, what);
        }
    }
    free(A);
    free(w);
    return rc;
}

int cat_need_positive(const ga_spec *s, const char *key, double v, int allow_zero, char *msg, size_t msglen)
{
    if (allow_zero ? v >= 0 : v > 0)
        return GA_OK;
    char what[128];
    snprintf(what, sizeof what, "must be %s (got %g)", allow_zero ? ">= 0" : "> 0", v);
    char path[64];
    snprintf(path, sizeof path, "mechanism.%s", key);
    return ga_spec_fail(s, ga_node_get(s->mechanism, key), path, msg, msglen, what);
}

int cat_add_1d(cat_job *j, const char *name, double m, double v1, double v2, double r)
{
    int rc = ga_pairset_add_1d(j->out, name, r, m, v1, 0, v2);
    if (rc == GA_OK)
        j->out->pairs[j->out->npairs - 1].reduced = 1; /* a whitened basis, not output coordinates */
    return rc;
}

/* the mechanism keys of kind gaussian_mechanism (its row in the kind table; the JSON Schema) */
const char *const cat_keys_gaussian_mechanism[] = {"kind", "sensitivity", "sigma", "noise_cov",
                                                   "f", "f_neighbours", NULL};

int cat_build_gaussian_mechanism(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", cat_keys_gaussian_mechanism,
                                   msg, msglen);
    if (rc)
        return rc;
    const ga_node *fn = ga_node_get(s->mechanism, "f");
    double sigma = 0;
    rc = cat_mech_number(j, "sigma", &sigma, 0, msg, msglen);
    if (rc > 0 || (rc == GA_OK && (rc = cat_need_positive(s, "sigma", sigma, 0, msg, msglen))))
        return rc;
    int have_sigma = rc == GA_OK;
    if (!fn) {
        /* by sensitivity: by rotation and translation invariance every pair of neighbours
         * with ||f(D) - f(D')|| = t is the 1-D pair N(t, sigma^2) vs N(0, sigma^2), and delta
         * increases with t: the pair at t = sensitivity is the proven worst case */
        double sens;
        if ((rc = cat_mech_number(j, "sensitivity", &sens, 1, msg, msglen)) ||
            (rc = cat_need_positive(s, "sensitivity", sens, 0, msg, msglen)))
            return rc;
        if (!have_sigma)
            return ga_spec_fail(s, s->mechanism, "mechanism.sigma", msg, msglen,
                                "missing (required with sensitivity)");
        if (ga_node_get(s->mechanism, "noise_cov"))
            return ga_spec_fail(s, ga_node_get(s->mechanism, "noise_cov"), "mechanism.noise_cov",
                                msg, msglen, "goes with explicit outputs f and f_neighbours");
        j->out->verified = 1;
        j->out->verified_pair = j->out->npairs;
        snprintf(j->out->verified_note, sizeof j->out->verified_note,
                 "worst case over all neighbours with ||f(D) - f(D')|| <= %g (the profile of the "
                 "Gaussian mechanism depends only on that distance and increases with it)", sens);
        char name[96];
        snprintf(name, sizeof name, "worst case: ||f(D) - f(D')|| = %g", sens);
        if ((rc = cat_add_1d(j, name, sens, sigma * sigma, sigma * sigma, 1)))
            return rc;
        /* the exact decimals for the certified path (calibrate's sigma is the double tried) */
        if (!(j->o->knob && !strcmp(j->o->knob, "sigma"))) {
            ga_spec_pair *p = &j->out->pairs[j->out->npairs - 1];
            p->mean_txt = ga_node_get(s->mechanism, "sensitivity")->text;
            p->sd_txt = ga_node_get(s->mechanism, "sigma")->text;
        }
        return GA_OK;
    }
    /* explicit outputs: f(D) and a list of f(D'), noise sigma^2 I or noise_cov */
    if (ga_node_get(s->mechanism, "sensitivity"))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "sensitivity"), "mechanism.sensitivity",
                            msg, msglen, "give either sensitivity or explicit outputs f");
    double *f;
    size_t d;
    if ((rc = ga_spec_vector(s, fn, "mechanism.f", 0, &f, &d, msg, msglen)))
        return rc;
    const ga_node *nbn = ga_node_get(s->mechanism, "f_neighbours");
    if ((rc = cat_pairs_fit(j, nbn && nbn->kind == GA_NODE_SEQ ? nbn->n : 0, d, "mechanism.f", msg,
                            msglen))) {
        free(f);
        return rc;
    }
    double *cov = NULL;
    const ga_node *nc = ga_node_get(s->mechanism, "noise_cov");
    /* calibrate scales a noise covariance: sigma^2 noise_cov (sigma then a pure factor) */
    int scaled = nc && j->o->knob && !strcmp(j->o->knob, "sigma") && !ga_node_get(s->mechanism, "sigma");
    if (nc && have_sigma && !scaled) {
        free(f);
        return ga_spec_fail(s, nc, "mechanism.noise_cov", msg, msglen, "give sigma or noise_cov, not both");
    }
    if (nc) {
        if ((rc = ga_spec_matrix(s, nc, "mechanism.noise_cov", d, &cov, msg, msglen))) {
            free(f);
            return rc;
        }
        for (size_t i = 0; scaled && i < d * d; i++)
            cov[i] *= sigma * sigma;
    } else if (have_sigma) {
        cov = calloc(d * d, sizeof *cov);
        if (!cov) {
            free(f);
            return GA_ENOMEM;
        }
        for (size_t i = 0; i < d; i++)
            cov[i * d + i] = sigma * sigma;
    } else {
        free(f);
        return ga_spec_fail(s, s->mechanism, "mechanism.sigma", msg, msglen,
                            "missing: give sigma or noise_cov");
    }
    const ga_node *nb = ga_node_get(s->mechanism, "f_neighbours");
    if (!nb || nb->kind != GA_NODE_SEQ || nb->n == 0) {
        free(f);
        free(cov);
        return ga_spec_fail(s, nb ? nb : s->mechanism, "mechanism.f_neighbours", msg, msglen,
                            "missing: a list of outputs f(D') on the neighbours");
    }
    for (size_t k = 0; k < nb->n && rc == GA_OK && !cat_out_of_time(j, nb->n); k++) {
        double *g;
        size_t len;
        char path[64], name[64];
        snprintf(path, sizeof path, "mechanism.f_neighbours[%zu]", k);
        if ((rc = ga_spec_vector(s, nb->kids[k], path, d, &g, &len, msg, msglen)))
            break;
        snprintf(name, sizeof name, "f(D) vs f_neighbours[%zu]", k);
        rc = ga_pairset_add(j->out, name, d, 1, cat_dup(f, d), cat_dup(cov, d * d), g, cat_dup(cov, d * d));
        if (rc == GA_ENOMEM)
            ga_msg(msg, msglen, "%s: out of memory for the laws of %s (two %zu x %zu "
                   "covariances, %.3g MB each)", s->path, name, d, d, (double)d * (double)d * 8e-6);
    }
    free(f);
    free(cov);
    return rc;
}

/* A masked pair (ga_pair_reduce_masked): one column of n rows with norms nx (X) and ny (Y) */
static int add_masked(cat_job *j, const char *name, double n, double sigma, const char *sigma_txt,
                      double nx, const char *nx_txt, double ny, const char *ny_txt)
{
    ga_masked_input *in = malloc(sizeof *in);
    if (!in)
        return GA_ENOMEM;
    *in = (ga_masked_input){n, sigma, nx, ny, sigma_txt, nx_txt, ny_txt};
    int rc = ga_pairset_add(j->out, name, 1, 1, NULL, NULL, NULL, NULL);
    if (rc) {
        free(in);
        return rc;
    }
    j->out->pairs[j->out->npairs - 1].reduced = 1;
    j->out->pairs[j->out->npairs - 1].masked = in;
    return GA_OK;
}

/* |D u|^2 for the n x d row-major D */
static double col_norm2(const double *D, size_t n, size_t d, const double *u)
{
    double t = 0;
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        for (size_t j = 0; j < d; j++)
            v += D[i * d + j] * u[j];
        t += v * v;
    }
    return t;
}

/* The blocks of a block-diagonal masking matrix (mechanism.blocks: sizes n_1..n_k, in row
 * order, summing to the rows): *v (caller frees) and *k; none given: one block of all rows
 * (*v NULL, *k 0). GA_OK or GA_EINVAL with the rule. */
static int masking_blocks(const cat_job *j, double rows, double **v, size_t *k, char *msg,
                          size_t msglen)
{
    ga_spec *s = j->s;
    const ga_node *bn = ga_node_get(s->mechanism, "blocks");
    *v = NULL;
    *k = 0;
    if (!bn)
        return GA_OK;
    int rc = ga_spec_vector(s, bn, "mechanism.blocks", 0, v, k, msg, msglen);
    if (rc)
        return rc;
    double sum = 0;
    for (size_t i = 0; i < *k && rc == GA_OK; i++) {
        if (!((*v)[i] >= 1 && (*v)[i] == floor((*v)[i])))
            rc = ga_spec_fail(s, bn, "mechanism.blocks", msg, msglen,
                              "each block size must be a whole number >= 1");
        sum += (*v)[i];
    }
    if (rc == GA_OK && *k == 0)
        rc = ga_spec_fail(s, bn, "mechanism.blocks", msg, msglen, "expected a list of block sizes");
    if (rc == GA_OK && sum != rows) {
        char what[160];
        snprintf(what, sizeof what, "the block sizes add up to %.0f, not to the %.0f rows", sum,
                 rows);
        rc = ga_spec_fail(s, bn, "mechanism.blocks", msg, msglen, what);
    }
    if (rc) {
        free(*v);
        *v = NULL;
        *k = 0;
    }
    return rc;
}

/*
 * matrix_masking with masking: orthogonal, setting (B) of Ding, Wu, Miao & Chen: A (X + C),
 * A a uniformly random n x n orthogonal matrix. One column (p = 1): the release is exactly
 * |x + c|^2 (ga_pair_reduce_masked), so each neighbour's pair is exact, and over a universe
 * of rows of norm <= l the worst case is noncentrality l^2/sigma^2 against 0 (proof in the
 * note below). p > 1 columns: bounds. Lower: u^T W u for a unit u (W = (X + C)^T (X + C)) is
 * sigma^2 chi^2_n(|X u|^2/sigma^2), a post-processing of the release, so its exact delta is
 * attained by a function of the release: a violation there is a violation. Upper: setting (A),
 * X + C itself (the paper's Lemma 2.3: A is applied after the noise; the release is a
 * post-processing of X + C), a Gaussian mechanism of sensitivity l (zero_out) or 2 l
 * (replace_one): it proves claims, never shows a violation.
 * Block-diagonal masking (mechanism.blocks, the paper's Section 4): A = diag(A_1, ..., A_k),
 * A_b uniform orthogonal of size n_b. The blocks' releases are independent and a neighbour
 * changes one row, so one block: the other blocks are common to both datasets (post-
 * processing), and the pair is the one above for that block alone (n_b rows, the column's
 * segment in it). Over a universe the smallest block n_s is the worst: a block of n_b > n_s
 * rows adds independent common chi-square noise to the smallest one's statistic, a post-
 * processing, so the worst case is the one above with n = n_s (as the paper states for (13)).
 */
static int build_masked(cat_job *j, double sigma, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    const ga_node *sn = ga_node_get(s->mechanism, "sigma");
    int knobbed = j->o->knob && !strcmp(j->o->knob, "sigma");
    const char *st = knobbed || !sn ? NULL : sn->text;
    double rows = 0, cols = 0;
    int rc = cat_mech_number(j, "rows", &rows, 0, msg, msglen);
    if (rc > 0 || (rc = cat_mech_number(j, "columns", &cols, 0, msg, msglen)) > 0)
        return rc;
    rc = GA_OK; /* (absent: -1) */
    if (s->data.n) {
        if (rows || cols)
            return ga_spec_fail(s, ga_node_get(s->mechanism, rows ? "rows" : "columns"),
                                rows ? "mechanism.rows" : "mechanism.columns", msg, msglen,
                                "comes from the dataset: give one or the other");
        rows = (double)s->data.n;
        cols = (double)s->data.d;
    } else {
        if (!s->has_universe)
            return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen,
                                "missing: masking: orthogonal needs a dataset or a universe "
                                "(with rows and columns)");
        if (!(rows >= 1 && rows <= 1e9 && rows == floor(rows)))
            return ga_spec_fail(s, ga_node_get(s->mechanism, "rows"), "mechanism.rows", msg, msglen,
                                "must be a whole number in 1..1e9 (n, the rows of the data matrix)");
        if (cols == 0)
            cols = 1;
        if (!(cols >= 1 && cols <= GA_SPEC_MAX_COLS && cols == floor(cols)))
            return ga_spec_fail(s, ga_node_get(s->mechanism, "columns"), "mechanism.columns", msg,
                                msglen, "must be a whole number in 1..10000 (p, the columns)");
    }
    if (s->release.n)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                            msglen, "the masked release is not Gaussian: a linear map of it is "
                            "not supported");
    if (!(sigma >= 1e-3))
        return ga_spec_fail(s, sn, "mechanism.sigma", msg, msglen, "must be at least 0.001");
    double *blk, *start = NULL;
    size_t nblk;
    if ((rc = masking_blocks(j, rows, &blk, &nblk, msg, msglen)))
        return rc;
    if (nblk && !(start = malloc(nblk * sizeof *start))) {
        free(blk);
        return GA_ENOMEM;
    }
    for (size_t b = 0; b < nblk; b++) /* each block's first row */
        start[b] = b ? start[b - 1] + blk[b - 1] : 0;
    size_t n = s->data.n, d = s->data.d, nn = cat_nb_count(s);
    for (size_t k = 0; n && k < nn && rc == GA_OK && !cat_out_of_time(j, nn); k++) {
        double *Dp, nx, ny, nb = rows;
        size_t m, r0 = 0;
        char name[96], full[320], where[96] = "";
        if (cat_nb_make(s, k, &Dp, &m, name, sizeof name)) {
            free(blk);
            free(start);
            return ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen, "a row number exceeds the dataset");
        }
        if (nblk) { /* the block of the changed row: its rows alone */
            size_t i = 0, b = 0, hi = nblk - 1;
            while (i < n && i < m && !memcmp(&Dp[i * d], &s->data.x[i * d], d * sizeof *Dp))
                i++;
            while (i < n && b < hi) { /* the block whose rows start[b] .. start[b + 1] hold i */
                size_t mid = (b + hi + 1) / 2;
                if ((double)i >= start[mid])
                    b = mid;
                else
                    hi = mid - 1;
            }
            r0 = (size_t)start[b]; /* (no change: the first block, all the same) */
            nb = blk[b];
            snprintf(where, sizeof where, ", block %zu of %.0f rows", b + 1, nb);
        }
        const double *X = s->data.x + r0 * d, *Y = Dp + r0 * d;
        size_t nr = (size_t)nb;
        if (d == 1) {
            nx = sqrt(col_norm2(X, nr, 1, (double[]){1}));
            ny = sqrt(col_norm2(Y, nr, 1, (double[]){1}));
            snprintf(full, sizeof full, "%s (exact%s)", name, where);
        } else {
            /* u along the changed row, as it was or as it becomes: the larger change of
             * |X u|^2 (any unit u gives a lower bound) */
            double *u = malloc(d * sizeof *u), best = -1;
            nx = ny = 0;
            if (!u) {
                free(Dp);
                free(blk);
                free(start);
                return GA_ENOMEM;
            }
            for (size_t i = 0; i < n && i < m && best < 0; i++) {
                int changed = 0;
                for (size_t j = 0; j < d; j++)
                    changed |= Dp[i * d + j] != s->data.x[i * d + j];
                if (!changed)
                    continue;
                for (int side = 0; side < 2; side++) {
                    const double *row = side ? Dp + i * d : s->data.x + i * d;
                    double r2 = 0;
                    for (size_t j = 0; j < d; j++)
                        r2 += row[j] * row[j];
                    if (!(r2 > 0))
                        continue;
                    for (size_t j = 0; j < d; j++)
                        u[j] = row[j] / sqrt(r2);
                    double a = col_norm2(X, nr, d, u), b = col_norm2(Y, nr, d, u);
                    if (fabs(a - b) > best) {
                        best = fabs(a - b);
                        nx = sqrt(a);
                        ny = sqrt(b);
                    }
                }
            }
            free(u);
            snprintf(full, sizeof full, "%s (lower bound: the statistic u^T W u along the changed "
                     "row, a post-processing of the release%s)", name, where);
        }
        free(Dp);
        rc = add_masked(j, full, nb, sigma, st, nx, NULL, ny, NULL);
        if (rc == GA_OK && d > 1)
            j->out->pairs[j->out->npairs - 1].lower = 1;
    }
    double ns = rows; /* the smallest block: the universe's worst case */
    for (size_t b = 0; b < nblk; b++)
        ns = fmin(ns, blk[b]);
    free(blk);
    free(start);
    if (rc || !s->has_universe)
        return rc;
    const ga_node *ln = s->universe ? ga_node_get(s->universe, "row_norm_bound") : NULL;
    double l = s->row_norm_bound;
    char name[200];
    if (nblk) /* (the blocks' pairs are the one-block pairs at the smallest block) */
        rows = ns;
    if (cols == 1) {
        snprintf(name, sizeof name, "universe worst case (exact: noncentrality %g^2/sigma^2 "
                 "against 0, n = %.0f)", l, rows);
        j->out->verified = 1;
        j->out->verified_pair = j->out->npairs;
        snprintf(j->out->verified_note, sizeof j->out->verified_note,
                 "worst case over the universe (one column, |x_i| <= %g, n = %.0f): the release "
                 "is |x + c|^2/sigma^2, noncentral chi-square with noncentrality |x|^2/sigma^2; a "
                 "neighbour changes it by at most %g^2/sigma^2, common noncentrality is common "
                 "noise and a smaller change is a post-processing of a larger one, so (%g^2/"
                 "sigma^2, 0) dominates every neighbour%s", l, rows, l, l,
                 nblk ? "; with blocks, n is the smallest block's (a larger block adds common "
                        "chi-square noise, a post-processing)" : "");
        return add_masked(j, name, rows, sigma, st, l, ln ? ln->text : NULL, 0, "0");
    }
    snprintf(name, sizeof name, "universe, lower bound (exact for the statistic e_1^T W e_1: a "
             "row %g e_1 zeroed, noncentrality %g^2/sigma^2 against 0, n = %.0f)", l, l, rows);
    if ((rc = add_masked(j, name, rows, sigma, st, l, ln ? ln->text : NULL, 0, "0")))
        return rc;
    j->out->pairs[j->out->npairs - 1].lower = 1;
    double t = (s->relation == GA_REL_REPLACE_ONE ? 2 : 1) * l;
    snprintf(name, sizeof name, "universe, upper bound (setting (A), the unmasked X + C: a "
             "Gaussian mechanism with sensitivity %g; Lemma 2.3)", t);
    j->out->verified = 1;
    j->out->verified_bound = 1;
    j->out->verified_pair = j->out->npairs;
    snprintf(j->out->verified_note, sizeof j->out->verified_note,
             "bounds over the universe (rows of norm <= %g, %.0f columns, n = %.0f): the masked "
             "release A (X + C) is a post-processing of X + C (setting (A), a Gaussian mechanism "
             "with sensitivity %g), which bounds it from above; the statistic e_1^T W e_1 of the "
             "release bounds it from below. Between the two the exact value is not known here",
             l, cols, rows, t);
    return cat_add_1d(j, name, t, sigma * sigma, sigma * sigma, 1);
}

/* the mechanism keys of kind matrix_masking (its row in the kind table; the JSON Schema) */
const char *const cat_keys_matrix_masking[] = {"kind", "sigma", "masking", "rows", "columns",
                                               "blocks", NULL};

int cat_build_matrix_masking(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", cat_keys_matrix_masking, msg, msglen);
    double sigma;
    if (rc || (rc = cat_mech_number(j, "sigma", &sigma, 1, msg, msglen)) ||
        (rc = cat_need_positive(s, "sigma", sigma, 0, msg, msglen)))
        return rc;
    const ga_node *mk = ga_node_get(s->mechanism, "masking");
    if (mk && (!mk->text || (strcmp(mk->text, "orthogonal") && strcmp(mk->text, "none"))))
        return ga_spec_fail(s, mk, "mechanism.masking", msg, msglen,
                            "must be none (setting (A), X + C) or orthogonal (setting (B), A (X + C))");
    int masked = mk && !strcmp(mk->text, "orthogonal");
    if (s->relation == GA_REL_REMOVE_ONE || s->relation == GA_REL_ADD_ONE || !s->relation)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "matrix_masking releases D + sigma N, whose shape changes when a row "
                            "is removed or added: use zero_out or replace_one");
    if (masked)
        return build_masked(j, sigma, msg, msglen);
    if (ga_node_get(s->mechanism, "rows") || ga_node_get(s->mechanism, "columns") ||
        ga_node_get(s->mechanism, "blocks"))
        return ga_spec_fail(s, s->mechanism, "mechanism", msg, msglen,
                            "rows and columns (without a dataset) and blocks are for masking: "
                            "orthogonal");
    if (s->relation == GA_REL_REMOVE_ONE || s->relation == GA_REL_ADD_ONE || !s->relation)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "matrix_masking releases D + sigma N, whose shape changes when a row "
                            "is removed or added: use zero_out or replace_one");
    /* D + sigma N vs D' + sigma N: a Gaussian mechanism whose mean moves by the changed row */
    size_t d = s->data.d, nn = cat_nb_count(s);
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen, "missing: the data matrix");
    for (size_t k = 0; k < nn && rc == GA_OK && !cat_out_of_time(j, nn); k++) {
        double *Dp;
        size_t m;
        char name[96];
        if (cat_nb_make(s, k, &Dp, &m, name, sizeof name))
            return ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen, "a row number exceeds the dataset");
        double t = 0;
        for (size_t i = 0; i < m * d; i++)
            t += (Dp[i] - s->data.x[i]) * (Dp[i] - s->data.x[i]);
        free(Dp);
        rc = cat_add_1d(j, name, sqrt(t), sigma * sigma, sigma * sigma, 1);
    }
    if (rc == GA_OK && s->has_universe) {
        /* zero_out / replace within norm l rows: ||v - v'|| <= 2 l (replace) or l (zero_out) */
        double t = (s->relation == GA_REL_ZERO_OUT ? 1 : 2) * s->row_norm_bound;
        j->out->verified = 1;
        j->out->verified_pair = j->out->npairs;
        snprintf(j->out->verified_note, sizeof j->out->verified_note,
                 "worst case over all neighbours in the universe (rows of norm <= %g): the "
                 "release is a Gaussian mechanism with sensitivity %g", s->row_norm_bound, t);
        rc = cat_add_1d(j, "universe worst case", t, sigma * sigma, sigma * sigma, 1);
    }
    return rc;
}

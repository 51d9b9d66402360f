/*
 * sketch.c - the random projection (Gaussian sketch D^T G + sigma N) of the NDIS papers (Lu,
 * Magdon-Ismail, Wei & Zikas, arXiv 2309.01243, "000" and "001"; Lev et al., "The Gaussian
 * Mixing Mechanism", 002): its pairs as a row family over the dataset's leverages, the
 * proven worst case under a universe, the sketch released through a matrix, and the
 * subsampled sketch.
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sketch released through A (m x d, per column) when A is not proven injective: each
 * column is N(0, S) on D, S = D^T D + sigma^2 I, and a neighbour changes S by a rank-one or
 * rank-two term (S - v v^T, S + c c^T, both for replace_one). Each pair is formed in the
 * output coordinates (d x d) and released from there (cat_release_pair: from the doubles, taken
 * as exact; the data-built margin covers their construction). cat_apply_release then has nothing
 * left to do (j->out->release_done). */
#define SKETCH_RELEASE_MAX_WORK 4e8 /* ball multiply-adds over all pairs */

static int sketch_released(cat_job *j, double r, double sigma, int rel, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    const ga_dataset *A = &s->release, *D = &s->data;
    size_t m = A->n, d = D->d, nc = s->candidates.n;
    size_t rows = s->rows ? s->nrows_sel : D->n;
    size_t nn = rel == GA_REL_ADD_ONE ? nc : rel == GA_REL_REPLACE_ONE ? rows * nc : rows;
    int rc = cat_pairs_fit(j, nn, m > d ? m : d, "mechanism.release", msg, msglen);
    double work = (double)nn * (double)m * (double)d * (double)(m + d);
    if (rc == GA_OK && work > SKETCH_RELEASE_MAX_WORK)
        snprintf(j->out->release_note, sizeof j->out->release_note, "the released laws of %zu pairs "
                 "through a %zu x %zu matrix are beyond the size they are computed exactly for "
                 "(%.3g ball operations, at most %.3g)", nn, m, d, work, SKETCH_RELEASE_MAX_WORK);
    double *S = malloc(d * d * sizeof *S);
    const char **atxt = cat_release_texts(ga_node_get(s->mechanism, "release"), m, d);
    if (rc == GA_OK && !S)
        rc = GA_ENOMEM;
    if (rc == GA_OK)
        cat_gram(S, D->x, D->n, d, sigma * sigma);
    for (size_t k = 0; k < nn && rc == GA_OK && !cat_out_of_time(j, nn); k++) {
        size_t sel = rel == GA_REL_REPLACE_ONE ? k / nc : k;
        size_t row = rel == GA_REL_ADD_ONE ? 0 : (s->rows ? s->rows[sel] : sel);
        if (rel != GA_REL_ADD_ONE && row >= D->n) {
            rc = ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen,
                              "a row number exceeds the dataset");
            break;
        }
        const double *v = rel == GA_REL_ADD_ONE ? NULL : D->x + row * d;
        const double *c = rel == GA_REL_ADD_ONE ? s->candidates.x + k * d
                        : rel == GA_REL_REPLACE_ONE ? s->candidates.x + (k % nc) * d : NULL;
        double *sy = malloc(d * d * sizeof *sy), *mx = calloc(d, sizeof *mx), *my = calloc(d, sizeof *my);
        if (!sy || !mx || !my) {
            free(sy);
            free(mx);
            free(my);
            rc = GA_ENOMEM;
            break;
        }
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++)
                sy[a * d + b] = S[a * d + b] - (v ? v[a] * v[b] : 0) + (c ? c[a] * c[b] : 0);
        char name[96];
        if (rel == GA_REL_ADD_ONE)
            snprintf(name, sizeof name, "add candidate %zu (released)", k + 1);
        else if (rel == GA_REL_REPLACE_ONE)
            snprintf(name, sizeof name, "replace row %zu by candidate %zu (released)", row + 1, k % nc + 1);
        else
            snprintf(name, sizeof name, "%s row %zu (released)", rel == GA_REL_ZERO_OUT ? "zero out" : "remove", row + 1);
        rc = ga_pairset_add(j->out, name, d, r, mx, cat_dup(S, d * d), my, sy);
        if (rc == GA_OK)
            rc = cat_release_pair(j, &j->out->pairs[j->out->npairs - 1], A, atxt);
    }
    free(S);
    free(atxt);
    j->out->release_done = 1;
    return rc;
}

int cat_add_subsampled_pairs(cat_job *j, const ga_subsampled_input *t, size_t n,
                             const char names[2][160])
{
    for (int add = 0; add < 2; add++) {
        ga_subsampled_input *in = malloc(n * sizeof *in);
        if (!in)
            return GA_ENOMEM;
        for (size_t k = 0; k < n; k++) {
            in[k] = t[k];
            in[k].add = add;
        }
        int rc = ga_pairset_add(j->out, names[add], 1, 1, NULL, NULL, NULL, NULL);
        if (rc) {
            free(in);
            return rc;
        }
        ga_spec_pair *p = &j->out->pairs[j->out->npairs - 1];
        p->reduced = 1;
        p->nsub = n;
        p->sub = in;
    }
    j->out->verified = 1;
    j->out->verified_pair = j->out->npairs - 2;
    return GA_OK;
}

/* The sketch's remove-, zero-out- and add-one pairs, one leverage v each: (0, 1/(1 - v);
 * 0, 1) for a row of D taken out, (0, 1; 0, 1/(1 - v)) for a row added, in `columns` copies
 * (whitened; NDIS paper, Theorem 5.1). The records and the row family read the same two
 * functions, so an audit that keeps the family reports what one that keeps records does. */
static void sketch_laws(double laws[4], const ga_spec_family *f, size_t k)
{
    double a = 1 / (1 - f->v[k]);
    laws[0] = laws[2] = 0;
    laws[1] = f->relation == GA_REL_ADD_ONE ? 1 : a;
    laws[3] = f->relation == GA_REL_ADD_ONE ? a : 1;
}

/* "add candidate K (leverage %.6g)" or "remove|zero out row K (leverage %.6g)", cut to len
 * bytes as snprintf cuts; put together without printf (a name per row of a large report,
 * where printf's parsing and float formatting were a tenth of the audit) */
static void sketch_name(char *buf, size_t len, const ga_spec_family *f, size_t k)
{
    char t[96], *q = t;
    q = stpcpy(q, f->relation == GA_REL_ADD_ONE    ? "add candidate "
                  : f->relation == GA_REL_ZERO_OUT ? "zero out row "
                                                   : "remove row ");
    q = ga_put_digits(q, f->relation == GA_REL_ADD_ONE ? k + 1 : (f->rows ? f->rows[k] : k) + 1);
    q = stpcpy(q, " (leverage ");
    ga_fmt_g(q, (size_t)(t + sizeof t - q), f->v[k], 6);
    q += strlen(q);
    *q++ = ')';
    ga_copy_cut(buf, len, t, (size_t)(q - t));
}

int cat_sketch_family(const cat_job *j)
{
    const ga_spec *s = j->s;
    int rel = s->relation ? s->relation : GA_REL_REMOVE_ONE;
    return j->o->families && j->o->drop_data && !s->nrel && s->release.n == 0 &&
           !ga_node_get(s->mechanism, "subsampling") && !ga_node_get(s->mechanism, "repeat") &&
           !ga_node_get(s->mechanism, "ptr") &&
           (rel == GA_REL_REMOVE_ONE || rel == GA_REL_ZERO_OUT || rel == GA_REL_ADD_ONE);
}

/*
 * sketch with subsampling: {poisson: q} (the Poisson-subsampled random projection of 001
 * Figure 3, Theorem 5.3): each row enters the sample S with probability q, then D_S^T G +
 * sigma N is released. For a record v added or removed, the other rows' selection S' mixes
 * both laws alike, so delta <= max over S' of delta(X | S', Y | S') (joint convexity), and
 * each of those is a post-processing of the S' = {} pair (D_S'^T G' is added to both, independent
 * of the rest): the worst case is the dataset {v} with |v| = l, whose pairs are one covariance
 * step (pair/ploss.c: r columns N(0, sigma^2 I + v v^T) with probability q, else N(0, sigma^2
 * I)), attained by that dataset and its empty neighbour. The audited pairs are its remove and
 * add pairs, a proven worst case over the universe; the dataset (if any) is not needed.
 */
static int build_sketch_subsampled(cat_job *j, double r, double sigma, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    const ga_node *sn = ga_node_get(s->mechanism, "subsampling");
    const ga_node *pn = sn ? ga_node_get(sn, "poisson") : NULL;
    double q;
    if (!pn || !pn->text || ga_decimal_to_double(&q, pn->text) || !(q > 0 && q <= 1))
        return ga_spec_fail(s, sn, "mechanism.subsampling", msg, msglen,
                            "must be {poisson: q} with a rate q in (0, 1]");
    if (!(sigma > 0))
        return ga_spec_fail(s, s->mechanism, "mechanism.noise_sigma", msg, msglen,
                            "a subsampled sketch needs noise_sigma > 0 (its worst case is the "
                            "dataset of one record)");
    if (!(s->row_norm_bound > 0))
        return ga_spec_fail(s, s->mechanism, "universe", msg, msglen,
                            "a subsampled sketch is audited at its worst case over the universe: "
                            "give universe: {row_norm_bound: l}");
    if (s->release.n)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                            msglen, "a subsampled release is a mixture, not a Gaussian law: a "
                            "linear map of it is not supported");
    if (s->relation != GA_REL_NONE && s->relation != GA_REL_REMOVE_ONE && s->relation != GA_REL_ADD_ONE)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "a subsampled sketch is audited for add/remove neighbours (both are "
                            "its pairs); other relations are not supported");
    if (r > 1e6)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "columns"), "mechanism.columns", msg,
                            msglen, "at most 1e6 columns with subsampling");
    const ga_node *ln = s->universe ? ga_node_get(s->universe, "row_norm_bound") : NULL;
    const ga_node *gn = ga_node_get(s->mechanism, "noise_sigma");
    int knobbed = j->o->knob && !strcmp(j->o->knob, "noise_sigma");
    ga_subsampled_input t = {q, sigma, 1, 0, pn->text, knobbed || !gn ? NULL : gn->text,
                             r, s->row_norm_bound, ln ? ln->text : NULL, NULL};
    char names[2][160];
    snprintf(names[0], sizeof names[0], "remove one record of norm %g (X with it, Y without it)",
             s->row_norm_bound);
    snprintf(names[1], sizeof names[1], "add one record of norm %g (X without it, Y with it)",
             s->row_norm_bound);
    int rc = cat_add_subsampled_pairs(j, &t, 1, names);
    if (rc)
        return rc;
    snprintf(j->out->verified_note, sizeof j->out->verified_note,
             "worst case over all add/remove neighbours with rows of norm <= %g (the other rows' "
             "Poisson selection only adds common noise: the dataset of one record of norm %g is "
             "the worst; rate %g, %.0f columns, noise_sigma %g)", s->row_norm_bound,
             s->row_norm_bound, q, r, sigma);
    return GA_OK;
}

/* A lower bound on lambda_min of the exact S = D^T D + sigma^2 I (D and sigma the exact
 * decimals whose doubles were read: each within a relative 2u of its double, u = 2^-53)
 * from Sf = gram(D, fl(sigma^2)) of n rows and a floating estimate of its smallest
 * eigenvalue; <= 0 when none is proven. Weyl: lambda_min(S) >= lambda_min(Sf) - ||S - Sf||_2,
 * the first certified (numerics/spd.c), the second at most
 *   gamma_n F (dsyrk's sums: |fl(G) - G| <= gamma_n |D|^T |D| in any order, whose 2-norm is
 *              at most F = ||D||_F^2 <= tr(Sf) (1 + 2u) / (1 - gamma_n)),
 *   + 4.01 u F (the decimals: 2 ||D|| ||dD|| + ||dD||^2 with ||dD||_F <= 2u sqrt F),
 *   + 2u max Sf_ii (the diagonal's sums) + 7u fl(sigma^2) (its rounding and sigma's),
 * each term rounded up (an underflowed decimal's absolute error is covered by 1e-300). */
static double sketch_lmin_lower(const double *Sf, size_t n, size_t d, double sigma, double guess)
{
    const double u = 0x1p-53;
    double mu;
    if ((double)n * u >= 0.25 || ga_spd_eig_min_lower(&mu, Sf, d, guess) != GA_OK)
        return 0;
    double tr = 0, mx = 0;
    for (size_t i = 0; i < d; i++) {
        tr = ga_up(tr + Sf[i * d + i]);
        mx = fmax(mx, Sf[i * d + i]);
    }
    double nu = ga_up((double)n * u), gn = ga_up(nu / ga_dn(1 - nu));
    double F = ga_up(ga_up(tr * (1 + 2 * u)) / ga_dn(1 - gn)), c = ga_up(sigma * sigma);
    double e = ga_up(ga_up(ga_up(gn + 5 * u) * F) + ga_up(2 * u * mx + 8 * u * c));
    return ga_dn(mu - ga_up(e + 1e-300));
}

/* The universe's worst pair (remove one: X's covariance 1/(1 - p), p = min(l^2/lambda_min(S),
 * l^2/(l^2 + sigma^2)); add one: Y's, 1 + l^2/lambda_min(S)) with its leverage, both
 * rounded up from lmin_lo <= lambda_min(S) and the doubles of the exact decimals l and sigma
 * (within 2u): the pair is at least as far apart as the exact worst one. 0 when no leverage
 * below 1 is proven. */
static int sketch_worst_cov(double *cov, double *lev, double lmin_lo, double l, double sigma,
                            int add)
{
    const double u = 0x1p-53, hi = 1 + 2 * u, lo = 1 - 2 * u;
    double l2 = ga_up(ga_up(ga_up(l * l) * hi) * hi);
    double s2 = ga_dn(ga_dn(ga_dn(sigma * sigma) * lo) * lo);
    double q = lmin_lo > 0 ? ga_up(l2 / lmin_lo) : INFINITY; /* >= l^2 / lambda_min(S) */
    if (add) {
        *cov = ga_up(1 + q);
        *lev = ga_up(q / ga_dn(1 + q));
        return q < INFINITY;
    }
    double p = s2 > 0 ? fmin(q, ga_up(l2 / ga_dn(l2 + s2))) : q;
    *cov = p < 1 ? ga_up(1 / ga_dn(1 - p)) : INFINITY;
    *lev = p;
    return p < 1;
}

/* replace_one: a rank-two change S - v v^T + c c^T per row and candidate, as explicit d x d
 * pairs (the general reduction) */
static int sketch_replace_one(cat_job *j, double r, double sigma, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    size_t n = s->data.n, d = s->data.d;
    int rc;
    /* a rank-two change S - v v^T + c c^T: explicit d x d pairs (general reduction) */
    if (s->candidates.d != d)
        return ga_spec_fail(s, s->mechanism, "neighbours.candidates", msg, msglen,
                            "candidate rows must have as many columns as the dataset");
    double *S0 = malloc(d * d * sizeof *S0);
    if (!S0)
        return GA_ENOMEM;
    cat_gram(S0, s->data.x, n, d, sigma * sigma);
    size_t rows = s->rows ? s->nrows_sel : n, nc = s->candidates.n;
    if ((rc = cat_pairs_fit(j, rows * nc, d, "neighbours", msg, msglen))) {
        free(S0);
        return rc;
    }
    for (size_t k = 0; k < rows * nc && rc == GA_OK && !cat_out_of_time(j, rows * nc); k++) {
        size_t row = s->rows ? s->rows[k / nc] : k / nc;
        if (row >= n) {
            rc = ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen,
                              "a row number exceeds the dataset");
            break;
        }
        const double *v = s->data.x + row * d, *c = s->candidates.x + (k % nc) * d;
        double *sy = malloc(d * d * sizeof *sy), *mz = calloc(d, sizeof *mz),
               *my = calloc(d, sizeof *my);
        if (!sy || !mz || !my) {
            free(sy);
            free(mz);
            free(my);
            rc = GA_ENOMEM;
            break;
        }
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++)
                sy[a * d + b] = S0[a * d + b] - v[a] * v[b] + c[a] * c[b];
        char name[96];
        snprintf(name, sizeof name, "replace row %zu by candidate %zu", row + 1, k % nc + 1);
        rc = ga_pairset_add(j->out, name, d, r, mz, cat_dup(S0, d * d), my, sy);
    }
    free(S0);    return rc;
}

/* Leverages |L^{-1} v|^2 of the rows v (the dataset's, or the added candidates'), a block of
 * LEV_BLOCK rows at a time (one triangular solve with many right-hand sides, W L^T = V, per
 * block: not one BLAS call per row), the blocks on j->o->jobs threads (each writes its own
 * leverages: the same values for any number of threads) */
enum { LEV_BLOCK = 256 };
typedef struct {
    const ga_spec *s;
    const double *S; /* the Cholesky factor L of D^T D + sigma^2 I */
    size_t nn;
    int rel;
    double *lev;
    int *st; /* per block: GA_OK or GA_ENOMEM */
} lev_run;

static void lev_block(void *ctx, size_t b, ga_gchisq_work *w)
{
    (void)w;
    lev_run *L = ctx;
    const ga_spec *s = L->s;
    size_t d = s->data.d, k0 = b * LEV_BLOCK, nb = L->nn - k0 < LEV_BLOCK ? L->nn - k0 : LEV_BLOCK;
    double *W = malloc(nb * d * sizeof *W);
    if (!W) {
        L->st[b] = GA_ENOMEM;
        return;
    }
    for (size_t i = 0; i < nb; i++) {
        size_t k = k0 + i;
        memcpy(W + i * d, L->rel == GA_REL_ADD_ONE ? s->candidates.x + k * d
                                                   : s->data.x + (s->rows ? s->rows[k] : k) * d,
               d * sizeof *W);
    }
    ga_cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)nb,
                   (int)d, 1.0, L->S, (int)d, W, (int)d);
    for (size_t i = 0; i < nb; i++) {
        double q = ga_cblas_ddot((int)d, W + i * d, 1, W + i * d, 1);
        /* a row of D: q is its leverage p < 1; an added row: its leverage is q / (1 + q) */
        L->lev[k0 + i] = L->rel == GA_REL_ADD_ONE ? q / (1 + q) : q;
    }
    free(W);
}

/* lev[k] for the nn neighbours (row numbers checked by the caller): GA_OK or GA_ENOMEM */
static int sketch_leverages(double *lev, const cat_job *j, const double *S, size_t nn, int rel)
{
    size_t nblocks = (nn + LEV_BLOCK - 1) / LEV_BLOCK;
    int *st = calloc(nblocks ? nblocks : 1, sizeof *st), rc = GA_OK;
    if (!st)
        return GA_ENOMEM;
    lev_run L = {.s = j->s, .S = S, .nn = nn, .rel = rel, .lev = lev, .st = st};
    rc = ga_par_for(nblocks, j->o->jobs, 0, lev_block, &L, NULL, NULL);
    for (size_t b = 0; rc == GA_OK && b < nblocks; b++)
        rc = st[b];
    free(st);
    return rc;
}

/* Gaussian sketch D^T G + sigma N with r columns: each column ~ N(0, D^T D + sigma^2 I).
 * Removing row v is a rank-one change: whitened by the smaller covariance it is the 1-D pair
 * N(0, 1/(1 - p)) vs N(0, 1) with r columns, p = v^T (D^T D + sigma^2 I)^{-1} v the ridge
 * leverage of v; adding row c: p' = q/(1 + q), q = c^T (D^T D + sigma^2 I)^{-1} c, roles
 * swapped. All remove-one pairs come from one Cholesky factor and n triangular solves.
 * remove_one, add_one: each neighbour's pair is fixed by one leverage (sketch_leverages, from
 * the Cholesky factor S of D^T D + sigma^2 I); the pairs are a row family (cat_sketch_family)
 * or added one by one */
static int sketch_by_leverage(cat_job *j, const double *S, double r, int rel, char *msg,
                              size_t msglen)
{
    ga_spec *s = j->s;
    size_t n = s->data.n, d = s->data.d;
    int rc;
    size_t nn = rel == GA_REL_ADD_ONE ? s->candidates.n : (s->rows ? s->nrows_sel : n);
    int fam = cat_sketch_family(j);
    rc = (fam ? cat_pairs_cap : cat_pairs_fit)(j, nn, 1, "neighbours", msg, msglen);
    if (rc == GA_OK && rel == GA_REL_ADD_ONE && nn && s->candidates.d != d)
        rc = ga_spec_fail(s, s->mechanism, "neighbours.candidates", msg, msglen,
                          "candidate rows must have as many columns as the dataset");
    /* the leverages first, so that the dataset can go before the pairs are built (an audit
     * builds them once: j->o->drop_data; the data's doubles are then not held beside them) */
    double *lev = rc == GA_OK ? malloc((nn ? nn : 1) * sizeof *lev) : NULL;
    if (rc == GA_OK && !lev)
        rc = GA_ENOMEM;
    for (size_t k = 0; rc == GA_OK && rel != GA_REL_ADD_ONE && s->rows && k < nn; k++)
        if (s->rows[k] >= n)
            rc = ga_spec_fail(s, s->mechanism, "neighbours.rows", msg, msglen,
                              "a row number exceeds the dataset");
    if (rc == GA_OK)
        rc = sketch_leverages(lev, j, S, nn, rel);
    if (rc == GA_OK && j->o->drop_data)
        ga_spec_drop_data(s);
    ga_spec_family f = {.n = nn, .v = lev, .rows = rel == GA_REL_ADD_ONE ? NULL : s->rows,
                        .relation = rel, .columns = r, .laws = sketch_laws, .name = sketch_name};
    if (rc == GA_OK && fam) {
        j->out->fam = f; /* the pairs are these numbers (the spec takes lev) */
        lev = NULL;
    }
    for (size_t k = 0; k < nn && rc == GA_OK && !fam && !cat_out_of_time(j, nn); k++) {
        double l[4];
        char name[GA_SPEC_NAME_LEN];
        sketch_laws(l, &f, k);
        sketch_name(name, sizeof name, &f, k);
        rc = cat_add_1d(j, name, l[0], l[1], l[3], r);
    }
    free(lev);
    return rc;
}

/* under a universe, the proven worst case: the largest leverage a row of norm
 * <= row_norm_bound can have, rounded up (a bound no neighbour need attain) */
static int sketch_universe(cat_job *j, double lmin_lo, double sigma, double r, int rel)
{
    ga_spec *s = j->s;
    int rc = GA_OK;
    /* rows of norm <= l: p <= min(l^2/lambda_min(S), l^2/(l^2 + sigma^2)) for a row of D
     * (S >= v v^T + sigma^2 I), and q <= l^2/lambda_min(S) for an added row; the
     * profile increases with the leverage (NDIS paper), so these pairs are the worst.
     * The pair's covariance is an upper bound of the exact one (sketch_worst_cov) */
    double cov, lev;
    int ok = sketch_worst_cov(&cov, &lev, lmin_lo, s->row_norm_bound, sigma,
                              rel == GA_REL_ADD_ONE);
    j->out->verified = ok;
    j->out->verified_pair = ga_pairset_npairs(j->out);
    char name[128], lb[32];
    ga_fmt_bound(lb, sizeof lb, lev, 1, 6);
    if (ok && rel == GA_REL_ADD_ONE) {
        snprintf(name, sizeof name, "universe worst case: add a row of norm %g (leverage <= %s)",
                 s->row_norm_bound, lb);
        rc = cat_add_1d(j, name, 0, 1, cov, r);
    } else if (ok) {
        snprintf(name, sizeof name, "universe worst case: remove a row of norm %g (leverage <= %s)",
                 s->row_norm_bound, lb);
        rc = cat_add_1d(j, name, 0, cov, 1, r);
    }
    if (j->out->verified)
        snprintf(j->out->verified_note, sizeof j->out->verified_note,
                 "worst case over every neighbour of D whose changed row has norm <= %g "
                 "(leverage bound l^2/(lambda_min + sigma^2), profile increasing in leverage; "
                 "rounded up, so a bound only)%s",
                 s->row_norm_bound, s->release.n ? "; before the release, which cannot "
                 "increase delta" : "");
    /* (no neighbour need attain it: l^2/lambda_min is not a leverage of a row of D in
     * general, and the covariance is rounded up; a certified value above a claim is no
     * violation) */
    j->out->verified_bound = j->out->verified;
    return rc;
}

/* The sketch kind: checks its keys and data, factors D^T D + sigma^2 I, and builds the pairs
 * of its neighbour relation (released through a matrix, replace_one, or by leverage), then
 * the universe's worst case */
/* the mechanism keys of kind sketch (its row in the kind table; the JSON Schema) */
const char *const cat_keys_sketch[] = {"kind", "columns", "noise_sigma", "subsampling", "ptr",
                                       NULL};

int cat_build_sketch(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", cat_keys_sketch, msg, msglen);
    double r, sigma = 0;
    if (rc || (rc = cat_mech_number(j, "columns", &r, 1, msg, msglen)))
        return rc;
    if (!(r >= 1 && r == floor(r) && r <= 1e9))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "columns"), "mechanism.columns", msg,
                            msglen, "must be a whole number from 1 to 1e9");
    rc = cat_mech_number(j, "noise_sigma", &sigma, 0, msg, msglen);
    if (rc > 0 || (rc == GA_OK && (rc = cat_need_positive(s, "noise_sigma", sigma, 1, msg, msglen))))
        return rc;
    if (ga_node_get(s->mechanism, "ptr"))
        return cat_build_sketch_ptr(j, r, sigma, msg, msglen);
    if (ga_node_get(s->mechanism, "subsampling"))
        return build_sketch_subsampled(j, r, sigma, msg, msglen);
    if (s->data.n == 0)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen, "missing: the data matrix D");
    size_t n = s->data.n, d = s->data.d;
    if (d > GA_SPEC_MAX_DIM)
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen, "too many columns");
    double *S = malloc(d * d * sizeof *S), *ev = malloc(d * sizeof *ev);
    rc = GA_ENOMEM;
    if (!S || !ev)
        goto cleanup;
    cat_gram(S, s->data.x, n, d, sigma * sigma);
    double *E = malloc(d * d * sizeof *E);
    if (!E)
        goto cleanup;
    memcpy(E, S, d * d * sizeof *E);
    int info = ga_lapack_syevd('N', 'U', d, E, d, ev);
    free(E);
    if (info != 0 || !(ev[0] > 64 * d * DBL_EPSILON * ev[d - 1])) {
        rc = ga_spec_fail(s, s->mechanism, "mechanism.noise_sigma", msg, msglen,
                          "D^T D + sigma^2 I is singular: the data do not span all columns; "
                          "give noise_sigma > 0");
        goto cleanup;
    }
    /* (before S becomes its Cholesky factor) */
    double lmin_lo = s->has_universe ? sketch_lmin_lower(S, n, d, sigma, ev[0]) : 0;
    if (ga_lapack_potrf('L', d, S, d) != 0) {
        rc = GA_EINVAL;
        goto cleanup;
    }
    int rel = s->relation ? s->relation : GA_REL_REMOVE_ONE;
    rc = GA_OK;
    if (s->release.n && s->release.d != d) {
        char what[160];
        snprintf(what, sizeof what, "the matrix has %zu columns; the sketch's output has %zu rows "
                 "(the dataset's columns)", s->release.d, d);
        rc = ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                          msglen, what);
        goto cleanup;
    }
    if (s->release.n && cat_release_injective(&s->release)) {
        /* a bijection of the output: the sketch's own pairs, exact */
        j->out->release_done = 1;
    } else if (s->release.n) {
        /* a release A: the pairs in the released coordinates, then the universe below */
        rc = sketch_released(j, r, sigma, rel, msg, msglen);
        goto universe;
    }
    if (rel == GA_REL_REPLACE_ONE) {
        rc = sketch_replace_one(j, r, sigma, msg, msglen);
        goto cleanup;
    }
    rc = sketch_by_leverage(j, S, r, rel, msg, msglen);
universe:
    if (rc == GA_OK && s->has_universe)
        rc = sketch_universe(j, lmin_lo, sigma, r, rel);
cleanup:
    free(S);
    free(ev);
    return rc;
}

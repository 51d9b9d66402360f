/*
 * pair_internal.h - the reduced Gaussian pair, shared by pair.c and pair_cert.c.
 */
#ifndef GA_AUDIT_PAIR_INTERNAL_H
#define GA_AUDIT_PAIR_INTERNAL_H

#include "pair/loss.h"

/* A pair variant: what a pair of that kind computes, called through the row (as GSL's
 * gsl_rng_type). Every pair points at one row, set where it is made (reduce.c,
 * reduce_loss.c); ga_pair_delta and the other public entry points check their arguments and
 * call through it. A new release family is a new row (its file: type_*.c) and the pair
 * maker that sets it.
 *   delta       double-precision delta in both directions at eps; method is as asked
 *               (GA_DELTA_AUTO allowed), out->method holds the default it resolves to, w is
 *               a workspace (never NULL); the status of ga_pair_delta
 *   renyi       D_alpha in both directions, alpha > 1 checked (estimates with errors)
 *   delta_cert  certified delta at the exact text eps (FLINT/Arb available)
 *   renyi_cert  certified D_alpha (alpha_txt > 1 checked; opts defaulted); NULL: the
 *               variant has no divergence (GA_EDOM)
 *   free        the variant's own data (NULL: none); ga_pair_free frees the rest */
typedef struct ga_pair_type {
    const char *name;
    int (*delta)(ga_delta *out, const ga_pair *p, double eps, int method,
                 const ga_gchisq_opts *o, ga_gchisq_work *w);
    int (*renyi)(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha);
    int (*delta_cert)(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                      const ga_pair_text *txt, const char *eps, const ga_cert_opts *o);
    int (*renyi_cert)(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                      const ga_pair_input *in, const ga_pair_text *txt, const char *alpha_txt,
                      const ga_cert_opts *o);
    void (*free)(ga_pair *p);
} ga_pair_type;

/* the rows: type_gaussian.c, type_product.c, type_loss.c */
extern const ga_pair_type ga_pair_type_gaussian, ga_pair_type_product, ga_pair_type_subsampled,
    ga_pair_type_masked, ga_pair_type_synthetic;

struct ga_pair {
    const ga_pair_type *type; /* the variant (never NULL) */
    size_t d, k;      /* input and reduced dimension */
    double r;         /* columns */
    int support;      /* enum ga_pair_support */
    int support_exact;/* GA_SUPPORT_DIFFER decided without a tolerance (certifiable) */
    char *reason;     /* why the supports are what they are (NULL: nothing to say); a static
                         text, or the pair's own when reason_owned */
    int reason_owned;
    double *lambda;   /* k: tau - 1 */
    double *mt;       /* k */
    double *L;        /* k x k lower Cholesky factor of (reduced) S_y */
    double *V;        /* k x k eigenvectors (columns) */
    int arrays_block; /* lambda, mt, L, V are one allocation at lambda (reduce_pd) */
    double *U;        /* d x k basis of the common support (NULL when full) */
    ga_gchisq *lx, *ly;
    double la_err;    /* size of the snapped rounding-level lambdas and mean components,
                         and of the eigenvalue errors relative to tau (loss perturbation) */
    int swapped;      /* the reduction whitened by X (the pair (Y, X) was reduced; lx, ly
                         are swapped back, so delta and Renyi need nothing; L, V, lambda,
                         mt describe the swapped pair) */
    size_t nblocks;   /* a product of independent blocks (composition): 0 for a plain pair;
                         then lx, ly are the sums of the blocks' losses, lambda and mt their
                         concatenation, la_err the sum, and L, V, U, r, swapped unused */
    struct ga_pair **blocks;
    ga_ploss *ploss;  /* a subsampled Gaussian pair (its one-dimensional loss): then only
                         support and reason are set, and ptxt holds the exact decimals of
                         each term's q, sigma and norm (3 per term, NULL: the doubles) */
    char **ptxt;
    double *psigma;   /* each term's sigma and norm as given, 2 per term (m = norm/sigma is
                         rounded); a masked pair (t[0].nu > 0): ptxt = {|x'|, sigma, |x|}
                         and psigma = {sigma, |x|, |x'|} */
    double in_d2[2];  /* with in_tv: the exact laws' squared Mahalanobis distance per column,
                         an enclosure [lo, hi] (a mean shift; {0, 0}: not known) */
    double in_tv[2];  /* the laws reduced are not the pair's exact laws but within these total
                         variation distances of them (X's, Y's; a release computed from the
                         exact inputs, pair_release.c): every delta widens by
                         tv_X + e^eps tv_Y, and divergences have no certificate. 0: exact */
};

/* Marks p (plain, as reduced) as computed from laws within total variation tv_x, tv_y of the
 * exact ones, whose whitened parameters are off by about eta relatively (added to la_err). */
void ga_pair_set_input_tv(ga_pair *p, double tv_x, double tv_y, double eta);
/* ... and, for a mean shift, the enclosure [lo, hi] of its exact per-column D2 */
void ga_pair_set_input_d2(ga_pair *p, double lo, double hi);

/* The laws of a pair released through an exact matrix A (m x d): A X and A Y, computed in
 * ball arithmetic from the exact inputs (the decimals of txt, or the doubles of in; A's
 * decimals a_txt, or its doubles a each within half an ulp, as the decimal reader rounds),
 * then taken to a basis T (floating, invertible: a function of the release and back) where
 * T A S_y A^T T^T is about I, and rounded to doubles. The released pair's profile is that of
 * the pair (T A X, T A Y), whose laws are within kl[0], kl[1] (per column, rigorous upper
 * bounds of the Kullback-Leibler divergence of the exact law from the rounded one) of these
 * doubles. Rows of A that are zero, or repeat an earlier row digit for digit, are left out
 * (they are functions of the others). */
typedef struct {
    size_t m;                        /* the rows kept */
    double *mu_x, *mu_y, *s_x, *s_y; /* m, m, m*m, m*m; malloc'd, the caller's */
    double kl[2];                    /* per column, X's and Y's */
    double eta;                      /* relative size of the rounding (an estimate) */
    double d2[2];                    /* equal input covariances: an enclosure [lo, hi] of the
                                        released pair's squared Mahalanobis distance (per
                                        column), from the exact inputs; else {0, 0} */
} ga_release_laws;

/* GA_OK: out filled. GA_EDOM: not computed, why says why (the rows could not be proven
 * linearly independent at any working precision, a released covariance is singular, or the
 * matrices are beyond the size this is done for); GA_ETIME: the deadline (monotonic
 * seconds, 0: none) passed; GA_ENOMEM. out owns nothing unless GA_OK. */
int ga_pair_release_laws(ga_release_laws *out, const ga_pair_input *in, const ga_pair_text *txt,
                         size_t m, const double *a, const char *const *a_txt, double deadline,
                         char *why, size_t whylen);

#ifdef GA_NUMERICS_ARB_H
/* (pair_cert.c) v <- the exact input entry i: decimal text txt[i], or the double val[i] when
 * txt is NULL or txt[i] is. 0, or -1 for unparsable text. */
int ga_cert_entry(arb_t v, const char *const *txt, const double *val, size_t i);
/* S <- the exact input covariance's symmetric part (S + S^T)/2 (k x k, k = rows of S, T
 * scratch of the same size), entries rounded outward to prec. 0, or -1. */
int ga_cert_input_cov(arb_mat_t S, arb_mat_t T, const char *const *txt, const double *val,
                      slong prec);
#endif

/* shared by pair.c, reduce.c and reduce_loss.c (the pr_ prefix) */

void pr_set_reason(ga_pair *p, const char *fmt, ...);

void pr_set_reason_static(ga_pair *p, const char *text);

/* lambda, mt, L and V: one block at lambda (arrays_block, reduce_pd) or four */
void pr_free_arrays(ga_pair *p);

/* the Gaussian type's delta and certified delta, which products share (type_gaussian.c) */
int pr_gaussian_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                      const ga_gchisq_opts *o, ga_gchisq_work *w);
int pr_gaussian_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                           const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts);

#endif

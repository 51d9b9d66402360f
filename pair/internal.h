/*
 * internal.h - the pair and its type table, private to pair/: the reduced Gaussian pair
 * (struct ga_pair), the rows of the variants, and what the pair files share (pr_ prefix).
 */
#ifndef GA_PAIR_INTERNAL_H
#define GA_PAIR_INTERNAL_H

#include "pair/loss.h"
#include "pair/pair.h"

/* the exact texts kept per term of a one-dimensional loss pair (ga_pair.ptxt) */
#define GA_PTXT_PER_TERM 4

/* A pair variant: what a pair of that kind computes, called through the row (as GSL's
 * gsl_rng_type). Every pair points at one row, set where it is made (reduce.c,
 * reduce_loss.c); ga_pair_delta and the other public entry points check their arguments and
 * call through it. A new release family is a new row (its file: type_*.c, with how it states
 * its distinguishing events) and the pair maker that sets it.
 *   delta       double-precision delta in both directions at eps; method is as asked
 *               (GA_DELTA_AUTO allowed), out->method holds the default it resolves to, w is
 *               a workspace (never NULL); the status of ga_pair_delta
 *   renyi       D_alpha in both directions, alpha > 1 checked (estimates with errors)
 *   delta_cert  certified delta at the exact text eps (FLINT/Arb available)
 *   renyi_cert  certified D_alpha (alpha_txt > 1 checked; opts defaulted); NULL: the
 *               variant has no divergence (GA_EDOM)
 *   event       P_X[S] and P_Y[S] of the distinguishing event of direction dir (1: S = {l >
 *               eps}, 2: S = {l < -eps}) from the loss forms, NaN where an evaluation
 *               failed; NULL: the variant states its events itself (describe)
 *   free        the variant's own data (NULL: none); ga_pair_free frees the rest
 *   describe    the distinguishing event of direction dir in the release's own coordinates
 *               (a threshold on a noisy sum, on a norm) and P_X[S], P_Y[S], from the
 *               family's input (p->input); NULL: the event is the loss's, described from the
 *               laws by the caller (event)
 *   no_renyi    what the pair is when its Renyi divergences are not computed (a claim on them
 *               is refused with the reason), NULL when they are; a NULL field: always are
 *   methods     how its values are computed, for the reports (one paragraph) */
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
    int (*event)(double *px, double *py, const ga_pair *p, double eps, int dir,
                 ga_gchisq_work *w);
    void (*free)(ga_pair *p);
    int (*describe)(char *text, size_t n, double *px, double *py, const ga_pair *p, double eps,
                    int dir);
    const char *(*no_renyi)(const ga_pair *p);
    const char *methods;
    /* 1 when q is p with the roles of X and Y swapped, computed alike (q's delta_xy is p's
     * delta_yx and so on); NULL: never known */
    int (*mirrors)(const ga_pair *p, const ga_pair *q);
    /* eps(delta) by the type's own route where it has one (ga_pair_epsilon's outputs);
     * GA_EDOM: none here, the search over delta decides; NULL: never */
    int (*epsilon)(ga_result *eps, int *direction, const ga_pair *p, double delta,
                   const ga_gchisq_opts *o, ga_gchisq_work *w);
    /* 1 when a value depends, within its tolerance, on the pair's evaluations before it (a
     * search started from the last one's result): a curve's points are then evaluated in
     * order on one thread, so that reports do not depend on the threads */
    int in_order;
} ga_pair_type;

/* the Gaussian pairs' methods (type_gaussian.c; products and the bounds beside masked pairs
 * share them) */
#define PR_METHODS_GAUSS \
    "double precision: privacy loss as a generalized chi-square per direction, delta by one " \
    "Bromwich integral on a saddle-point contour (sinh-mapped trapezoidal rule) with error " \
    "estimates; certified: Arb ball arithmetic (acb_calc_integrate plus a proven tail bound) " \
    "and an a-posteriori linear-algebra certificate (Pinsker, KL in ball arithmetic)"

/* the rows: type_gaussian.c, type_product.c, type_loss.c */
extern const ga_pair_type ga_pair_type_gaussian, ga_pair_type_product, ga_pair_type_subsampled,
    ga_pair_type_masked, ga_pair_type_synthetic, ga_pair_type_synthetic_sup,
    ga_pair_type_shuffle, ga_pair_type_ptr, ga_pair_type_envelope, ga_pair_type_alloc;

/* the supremum over a universe of synthetic-point pairs (type_synth_sup.c; in->norm_bound > 0):
 * GA_OK and *out, or GA_EINVAL with a message */
int pr_synth_sup_make(ga_pair **out, const ga_synthetic_input *in, char *msg, size_t msglen);

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
                         each term's q, sigma, norm and q's denominator (GA_PTXT_PER_TERM per
                         term, NULL: the doubles, or no denominator) */
    char **ptxt;
    double *psigma;   /* each term's sigma and norm as given, 2 per term (m = norm/sigma is
                         rounded); a masked pair (t[0].nu > 0): ptxt = {|x'|, sigma, |x|}
                         and psigma = {sigma, |x|, |x'|} */
    void *input;      /* a loss family's input as given (its numbers; the texts are in ptxt):
                         ninput ga_subsampled_input, or one ga_masked_input or
                         ga_synthetic_input; for the description of its events */
    size_t ninput;
    double in_d2[2];  /* with in_tv: the exact laws' squared Mahalanobis distance per column,
                         an enclosure [lo, hi] (a mean shift; {0, 0}: not known) */
    double in_tv[2];  /* the laws reduced are not the pair's exact laws but within these total
                         variation distances of them (X's, Y's; a release computed from the
                         exact inputs, pair_release.c): every delta widens by
                         tv_X + e^eps tv_Y, and divergences have no certificate. 0: exact */
    void *dcache;     /* double-precision deltas already computed (renyi_profile.c: the
                         orders of a plot or a grid and both directions share their points;
                         NULL until used; a delta is a function of the pair and eps alone) */
};

#ifdef GA_NUMERICS_ARB_H
/* (pair_cert.c) v <- the exact input entry i: decimal text txt[i], or the double val[i] when
 * txt is NULL or txt[i] is. 0, or -1 for unparsable text. */
int ga_cert_entry(arb_t v, const char *const *txt, const double *val, size_t i);
/* S <- the exact input covariance's symmetric part (S + S^T)/2 (k x k, k = rows of S, T
 * scratch of the same size), entries rounded outward to prec. 0, or -1. */
int ga_cert_input_cov(arb_mat_t S, arb_mat_t T, const char *const *txt, const double *val,
                      slong prec);
/* dm <- mu_x - mu_y of the exact inputs (k x 1), in ball arithmetic at prec. 0, or -1. */
int ga_cert_input_mean(arb_mat_t dm, const ga_pair_input *in, const ga_pair_text *txt, slong prec);
#endif

/* shared by pair.c, reduce.c and reduce_loss.c (the pr_ prefix) */

void pr_set_reason(ga_pair *p, const char *fmt, ...);

void pr_set_reason_static(ga_pair *p, const char *text);

/* the Renyi row of a variant with no divergences: NaN, infinite errors, GA_EDOM */
int pr_renyi_none(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha);

/* p (zeroed) becomes a one-dimensional pair of the variant type whose numbers are all in
 * input (the pair takes it; full support) */
void pr_input_pair(ga_pair *p, const ga_pair_type *type, void *input);

/* Has p Gaussian laws (lx, ly and the reduction's arrays: the Gaussian and product types)?
 * The other variants (losses, universes, shuffled epochs) have none. */
static inline int pr_has_laws(const ga_pair *p)
{
    return p->type == &ga_pair_type_gaussian || p->type == &ga_pair_type_product;
}

/* lambda, mt, L and V: one block at lambda (arrays_block, reduce_pd) or four */
void pr_free_arrays(ga_pair *p);

/* the Gaussian type's delta, certified delta and event, which products share
 * (type_gaussian.c) */
int pr_gaussian_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                      const ga_gchisq_opts *o, ga_gchisq_work *w);
int pr_gaussian_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                           const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts);
int pr_gaussian_event(double *px, double *py, const ga_pair *p, double eps, int dir,
                      ga_gchisq_work *w);

#endif

/*
 * pair.h - what the pair layer offers the layers above it beyond gaussaudit.h (not
 * installed). The pair itself stays opaque: its variant answers through its row.
 */
#ifndef GA_PAIR_PAIR_H
#define GA_PAIR_PAIR_H

#include "gaussaudit.h"

/* P_X[S] (px) and P_Y[S] (py) of the event S that distinguishes the pair in direction dir (1:
 * S = {l > eps}, the loss l = log p_X - log p_Y; 2: S = {l < -eps}), from its loss forms; a
 * probability whose evaluation failed is NaN. w: a workspace (NULL: one for the call).
 * GA_OK, GA_EDOM (a pair whose loss is one-dimensional: its event is described from its
 * inputs), GA_EINVAL (dir), GA_ENOMEM. */
int ga_pair_event_probs(double *px, double *py, const ga_pair *p, double eps, int dir,
                        ga_gchisq_work *w);

/* The distinguishing event of direction dir (1: S = {l > eps}, 2: S = {l < -eps}) of a pair
 * whose family states it in its release's coordinates (a one-dimensional loss: a threshold
 * on a noisy sum or a norm): its text into text (n bytes) and P_X[S], P_Y[S] (NaN where not
 * evaluated). GA_OK, GA_EDOM (the event is the loss's: describe it from the laws, with
 * ga_pair_event_probs), GA_EINVAL (dir). */
int ga_pair_describe_event(char *text, size_t n, double *px, double *py, const ga_pair *p,
                           double eps, int dir);

/* 1 when q is p with the roles of X and Y swapped and computed alike, so that q's values are
 * p's with the directions exchanged (remove and add one record of subsampled steps); 0 when
 * that is not known. */
int ga_pair_mirrors(const ga_pair *p, const ga_pair *q);
/* 1 when p's values depend, within their error estimates, on the order of its evaluations (a
 * search warm-started from the last one: the synthetic universe), so that several of them are
 * to be made in a fixed order on one thread; 0 when each is a function of p and its arguments
 * alone. */
int ga_pair_in_order(const ga_pair *p);

/* The pair of a synthetic universe (ga_synthetic_input.norm_bound > 0) whose delta at eps is
 * largest, as found by the double branch and bound: the models' norms a (the smaller) and b,
 * a member of the universe. GA_OK, GA_EDOM (p is not such a pair), or an evaluation's status. */
int ga_pair_synth_sup_argmax(double *a, double *b, const ga_pair *p, double eps);

/* The enclosure [*lo, *hi] of d delta(m, R)/dR (delta of N(m, R) against N(0, 1) at eps, as
 * doubles) over R in [r0, r1], which must not contain 1: the slope a sensitivity envelope's
 * cells are bounded with (pair/type_envelope.c; for tests). GA_OK or GA_EINVAL. */
int ga_pair_envelope_slope(double *lo, double *hi, double m, double r0, double r1, double eps);

/* How p's values are computed (a paragraph for the reports; NULL: the Gaussian pairs'). */
const char *ga_pair_methods(const ga_pair *p);

/* What p is when its Renyi divergences are not computed here (a Renyi claim on it is refused,
 * naming it: "matrix masking (a noncentral chi-square release)"), NULL when they are. */
const char *ga_pair_no_renyi(const ga_pair *p);

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

#endif

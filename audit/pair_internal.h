/*
 * pair_internal.h - the reduced Gaussian pair, shared by pair.c and pair_cert.c.
 */
#ifndef GA_AUDIT_PAIR_INTERNAL_H
#define GA_AUDIT_PAIR_INTERNAL_H

#include "numerics/internal.h"

struct ga_pair {
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
};

#endif

/*
 * cert_internal.h - what the certified generalized chi-square files share, not seen outside
 * numerics/ (the nc_ prefix).
 */
#ifndef GA_NUMERICS_CERT_INTERNAL_H
#define GA_NUMERICS_CERT_INTERNAL_H

#include "numerics/arb.h"

typedef struct {
    const ga_gchisq_exact *q;
    const arb_struct *x;
    const arb_struct *L0;
    int kernel; /* enum ga_kernel: 1/z or 1/(z (z+1)) */
    /* optional (NULL: the plain form): mu_j = b2_j/(4 a_j) for the noncentral terms (0 for
     * the central ones), used where |2 a_j z| >= 1 (see nc_arb_exponent) */
    arb_srcptr mu;
    double deadline; /* ga_monotonic() time: past it the integrand is indeterminate, so that
                        acb_calc_integrate gives up at once (--timeout) */
} arb_integrand_param;

/* g(z) = K(z) - z x - L0 directly; non-finite where a logarithm leaves its analytic
 * domain (when analytic != 0) or a pole is hit. */
void nc_arb_exponent(acb_t e, const acb_t z, const arb_integrand_param *p, int analytic,
                     slong prec);

#endif

/*
 * ploss_cert.c - certified delta of one subsampled Gaussian step (ball arithmetic).
 *
 * One step of the remove relation, P = (1 - q) N(0, 1) + q N(m, 1) against Q = N(0, 1) (m =
 * 1/sigma): the loss l(x) = log(1 - q + q e^{m x - m^2/2}) is increasing, so the optimal events
 * are thresholds (numerics/ploss.c) and, with r = e^eps - 1 + q and tau = (log(r/q) + m^2/2)/m,
 *   delta_{P,Q}(eps) = q Qbar(tau - m) - r Qbar(tau),
 *   delta_{Q,P}(eps) = Phi(tau') - e^eps ((1 - q) Phi(tau') + q Phi(tau' - m))  where
 *                      r' = e^-eps - 1 + q > 0 (tau' from r'), and 0 where r' <= 0,
 * with Qbar(x) = erfc(x/sqrt 2)/2 and Phi(x) = Qbar(-x) from Arb's rigorous erfc. The
 * difference loses about log2(tau/m) bits to cancellation, which the caller's precision
 * escalation recovers.
 */
#include "numerics/arb_internal.h"

#include <arb_hypgeom.h>

static void qbar(arb_t r, const arb_t x, slong prec)
{
    arb_t t;
    arb_init(t);
    arb_sqrt_ui(t, 2, prec);
    arb_div(t, x, t, prec);
    arb_hypgeom_erfc(r, t, prec);
    arb_mul_2exp_si(r, r, -1);
    arb_clear(t);
}

/* tau = (log(r/q) + m^2/2)/m */
static void threshold(arb_t tau, const arb_t r, const arb_t q, const arb_t m, slong prec)
{
    arb_t t;
    arb_init(t);
    arb_div(tau, r, q, prec);
    arb_log(tau, tau, prec);
    arb_sqr(t, m, prec);
    arb_mul_2exp_si(t, t, -1);
    arb_add(tau, tau, t, prec);
    arb_div(tau, tau, m, prec);
    arb_clear(t);
}

int ga_ploss_delta_one_arb(arb_t res, const arb_t q, const arb_t m, int dir, const arb_t eps,
                           slong prec)
{
    arb_t r, tau, a, b, u;
    arb_init(r);
    arb_init(tau);
    arb_init(a);
    arb_init(b);
    arb_init(u);
    int rc = GA_OK;
    if (dir == 0) {
        arb_expm1(r, eps, prec);
        arb_add(r, r, q, prec);
        threshold(tau, r, q, m, prec);
        arb_sub(u, tau, m, prec);
        qbar(a, u, prec);
        arb_mul(a, a, q, prec);
        qbar(b, tau, prec);
        arb_mul(b, b, r, prec);
        arb_sub(res, a, b, prec);
    } else {
        arb_neg(u, eps);
        arb_expm1(r, u, prec);
        arb_add(r, r, q, prec);
        if (arb_is_nonpositive(r)) {
            arb_zero(res); /* the loss never falls below -eps: exactly 0 */
        } else if (!arb_is_positive(r)) {
            arb_zero_pm_one(res); /* undecided: the caller adds precision */
            rc = GA_EPREC;
        } else {
            threshold(tau, r, q, m, prec);
            arb_neg(u, tau);
            qbar(a, u, prec); /* Phi(tau') */
            arb_sub(u, m, tau, prec);
            qbar(b, u, prec); /* Phi(tau' - m) */
            arb_mul(b, b, q, prec);
            arb_sub_ui(u, q, 1, prec);
            arb_neg(u, u);
            arb_addmul(b, u, a, prec); /* (1 - q) Phi(tau') + q Phi(tau' - m) */
            arb_exp(u, eps, prec);
            arb_mul(b, b, u, prec);
            arb_sub(res, a, b, prec);
        }
    }
    arb_clear(r);
    arb_clear(tau);
    arb_clear(a);
    arb_clear(b);
    arb_clear(u);
    return rc;
}

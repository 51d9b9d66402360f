/*
 * cert_path.c - one tail of an exact generalized chi-square, certified: the Bromwich
 * integrand in ball arithmetic along the double path (Arb's acb_calc_integrate on the
 * segment), the rigorous bound of the ray beyond it (arb_ray_bound), their sum an enclosure
 * of the tail (the method is stated in cert.c).
 */
#include "numerics/cert_internal.h"

#include <gsl/gsl_errno.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the noncentral terms written in the mu form at z: |2 a_j| |mid z| >= 1 */
static int use_mu_form(const arb_integrand_param *p, slong j, const acb_t z)
{
    if (!p->mu || arb_is_zero(p->mu + j))
        return 0;
    double zr = arf_get_d(arb_midref(acb_realref(z)), ARF_RND_NEAR);
    double zi = arf_get_d(arb_midref(acb_imagref(z)), ARF_RND_NEAR);
    return 2 * fabs(arf_get_d(arb_midref(p->q->a + j), ARF_RND_NEAR)) * hypot(zr, zi) >= 1;
}

/* s = offset - x - sum of mu_j over the terms in the mu form at z */
static void linear_coefficient(arb_t s, const acb_t z, const arb_integrand_param *p, slong prec)
{
    arb_sub(s, p->q->offset, p->x, prec);
    for (slong j = 0; p->mu && j < p->q->n; j++)
        if (use_mu_form(p, j, z))
            arb_sub(s, s, p->mu + j, prec);
}

/* w = 1 - 2 a z */
static void one_minus_2az(acb_t w, const acb_t z, const arb_t a, slong prec)
{
    acb_mul_arb(w, z, a, prec);
    acb_mul_2exp_si(w, w, 1);
    acb_neg(w, w);
    acb_add_ui(w, w, 1, prec);
}

void nc_arb_exponent(acb_t e, const acb_t z, const arb_integrand_param *p, int analytic,
                     slong prec)
{
    const ga_gchisq_exact *q = p->q;
    acb_t w, l, z2, t;
    arb_t s;
    acb_init(w);
    acb_init(l);
    acb_init(z2);
    acb_init(t);
    arb_init(s);
    acb_sqr(z2, z, prec);
    /* (offset - x - sum mu_j) z + sigma2 z^2 / 2 - L0 */
    linear_coefficient(s, z, p, prec);
    acb_mul_arb(e, z, s, prec);
    acb_mul_arb(t, z2, q->sigma2, prec);
    acb_mul_2exp_si(t, t, -1);
    acb_add(e, e, t, prec);
    acb_sub_arb(e, e, p->L0, prec);
    for (slong j = 0; j < q->n; j++) {
        one_minus_2az(w, z, q->a + j, prec);
        /* -nu/2 log w: principal branch, analytic where Re w > 0 or Im w != 0; along the
         * path Im w = -2 a Im z keeps one sign, so this is the continuation from w(c) > 0 */
        acb_log_analytic(l, w, analytic, prec);
        acb_mul_arb(l, l, q->nu + j, prec);
        acb_mul_2exp_si(l, l, -1);
        acb_sub(e, e, l, prec);
        if (use_mu_form(p, j, z)) {
            /* b2 z^2/(2 w) + mu z = mu z / w: the noncentral shift mu (folded into the offset
             * by the classical parametrisation) and the b2 term cancel to the last digit of
             * mu |z| when |2 a z| is large, and on a box their radii add; this form has no
             * cancellation (the exact identity lets each box choose its form) */
            acb_div(t, z, w, prec);
            acb_mul_arb(t, t, p->mu + j, prec);
            acb_add(e, e, t, prec);
        } else if (!arb_is_zero(q->b2 + j)) {
            acb_div(t, z2, w, prec);
            acb_mul_arb(t, t, q->b2 + j, prec);
            acb_mul_2exp_si(t, t, -1);
            acb_add(e, e, t, prec);
        }
    }
    acb_clear(w);
    acb_clear(l);
    acb_clear(z2);
    acb_clear(t);
    arb_clear(s);
}

/* g'(z) = offset - x + sigma2 z + sum_j [nu_j a_j / w_j + b2_j z (1 - a_j z) / w_j^2],
 * w_j = 1 - 2 a_j z. (noinline: when inlined, gcc 12 reports a false -Wstringop-overread
 * inside acb_mul_arb.) */
static __attribute__((noinline)) void arb_exponent_deriv(acb_t d, const acb_t z, const arb_integrand_param *p, slong prec)
{
    const ga_gchisq_exact *q = p->q;
    acb_t w, t, u;
    acb_init(w);
    acb_init(t);
    acb_init(u);
    arb_t s;
    arb_init(s);
    acb_mul_arb(d, z, q->sigma2, prec);
    linear_coefficient(s, z, p, prec);
    acb_add_arb(d, d, s, prec);
    arb_clear(s);
    for (slong j = 0; j < q->n; j++) {
        one_minus_2az(w, z, q->a + j, prec);
        acb_inv(t, w, prec);
        acb_mul_arb(u, t, q->a + j, prec);
        acb_mul_arb(u, u, q->nu + j, prec);
        acb_add(d, d, u, prec);
        if (use_mu_form(p, j, z)) {
            /* (mu z / w)' = mu / w^2 */
            acb_sqr(u, t, prec);
            acb_mul_arb(u, u, p->mu + j, prec);
            acb_add(d, d, u, prec);
        } else if (!arb_is_zero(q->b2 + j)) {
            /* b2 z (1 - a z) / w^2 */
            acb_mul_arb(u, z, q->a + j, prec);
            acb_neg(u, u);
            acb_add_ui(u, u, 1, prec);
            acb_mul(u, u, z, prec);
            acb_mul(u, u, t, prec);
            acb_mul(u, u, t, prec);
            acb_mul_arb(u, u, q->b2 + j, prec);
            acb_add(d, d, u, prec);
        }
    }
    acb_clear(w);
    acb_clear(t);
    acb_clear(u);
}

/* F(z) = exp(K(z) - z x - L0) / z; non-finite where not holomorphic (order != 0).
 *
 * On a box (order 1: acb_calc_integrate bounding |F| on an ellipse) the direct evaluation
 * suffers from the dependency problem: near the saddle K(z) and z x cancel, but their
 * radii add, so with nu degrees of freedom the box had to shrink like 1/nu instead of the
 * 1/sqrt(nu) width of the integrand (dof 1e9 took minutes). There the exponent is also
 * enclosed in the centered (mean-value) form g(m) + g'(B) (z - m), m the midpoint:
 * g(z) - g(m) is (z - m) times the average of g' over the segment [m, z], which lies in
 * the convex box B, so it lies in the (convex) enclosure of g'(B) times (z - m). Both
 * enclosures are valid; their intersection is used. */
static int arb_integrand(acb_ptr out, const acb_t z, void *param, slong order, slong prec)
{
    const arb_integrand_param *p = param;
    int analytic = order != 0;
    acb_t e, m, d, t;
    arb_t r;
    acb_init(e);
    acb_init(m);
    acb_init(d);
    acb_init(t);
    arb_init(r);
    if (order > 1)
        flint_abort(); /* acb_calc_integrate asks for order 0 or 1 only */
    if (ga_expired(p->deadline)) {
        acb_indeterminate(out);
        goto cleanup;
    }
    nc_arb_exponent(e, z, p, analytic, prec);
    if (analytic && acb_is_finite(e) && !acb_is_exact(z)) {
        acb_get_mid(m, z);
        nc_arb_exponent(t, m, p, 0, prec);
        arb_exponent_deriv(d, z, p, prec);
        /* z - m: the ball around 0 with the radii of z (exact) */
        acb_zero(m);
        mag_set(arb_radref(acb_realref(m)), arb_radref(acb_realref(z)));
        mag_set(arb_radref(acb_imagref(m)), arb_radref(acb_imagref(z)));
        acb_mul(d, d, m, prec);
        acb_add(t, t, d, prec);
        if (acb_is_finite(t)) {
            if (arb_intersection(r, acb_realref(e), acb_realref(t), prec))
                arb_swap(r, acb_realref(e));
            if (arb_intersection(r, acb_imagref(e), acb_imagref(t), prec))
                arb_swap(r, acb_imagref(e));
        }
    }
    if (!acb_is_finite(e)) {
        acb_indeterminate(out);
        goto cleanup;
    }
    acb_exp(e, e, prec);
    if (p->kernel == GA_KERNEL_DELTA) {
        acb_add_ui(t, z, 1, prec);
        acb_mul(t, t, z, prec);
        acb_div(out, e, t, prec);
    } else {
        acb_div(out, e, z, prec);
    }
cleanup:
    acb_clear(e);
    acb_clear(m);
    acb_clear(d);
    acb_clear(t);
    arb_clear(r);
    return 0;
}

/*
 * Upper bound (a mag) of int_ray |F| |dz| beyond z1 = R1 + i T, on the L0 scale. The
 * derivation is the one of ga_path_tailbound (contour.c), ray case; here every condition is
 * checked in ball arithmetic. Returns 0 and sets *bound, or -1 when no bound holds at T.
 * One derivation, kept whole so that each checked condition stands beside the step of the
 * proof that needs it.
 */
static int arb_ray_bound(mag_t bound, const ga_gchisq_exact *q, const arb_t x, const arb_t L0,
                         double R1d, int dir, double beta, double Td, int kernel, slong prec)
{
    arb_t T, R1, aR, z1, cb, sb, m, m2, E0, rate, qe, tmp, u, v2, wn, a, one;
    int ok = -1;
    arb_init(T);
    arb_init(R1);
    arb_init(aR);
    arb_init(z1);
    arb_init(cb);
    arb_init(sb);
    arb_init(m);
    arb_init(m2);
    arb_init(E0);
    arb_init(rate);
    arb_init(qe);
    arb_init(tmp);
    arb_init(u);
    arb_init(v2);
    arb_init(wn);
    arb_init(a);
    arb_init(one);
    arb_one(one);
    arb_set_d(T, Td);
    arb_set_d(R1, R1d); /* the ray starts exactly where the integrated polygon ends */
    /* conditions: dir R1 >= 0, |R1| < T */
    arb_mul_si(tmp, R1, dir, prec);
    if (!arb_is_nonnegative(tmp))
        goto cleanup;
    arb_abs(aR, R1);
    if (!arb_lt(aR, T))
        goto cleanup;
    /* cb = beta / sqrt(1 + beta^2), sb = 1 / sqrt(1 + beta^2) */
    arb_set_d(tmp, beta);
    arb_sqr(sb, tmp, prec);
    arb_add_ui(sb, sb, 1, prec);
    arb_rsqrt(sb, sb, prec);
    arb_mul(cb, tmp, sb, prec);
    /* m = min((T^2 - R1^2)/|z1|^2, (1 - beta^2)/(1 + beta^2)) > 0 */
    arb_hypot(z1, R1, T, prec);
    arb_sqr(m, T, prec);
    arb_sqr(u, R1, prec);
    arb_sub(m, m, u, prec);
    arb_sqr(u, z1, prec);
    arb_div(m, m, u, prec);
    arb_sqr(m2, tmp, prec); /* beta^2 */
    arb_sub(u, one, m2, prec);
    arb_add(v2, one, m2, prec);
    arb_div(m2, u, v2, prec);
    arb_min(m, m, m2, prec);
    /* E0 = -L0 - kpow log T + (offset - x) R1 + sigma2/2 (R1^2 - T^2), kpow = 1 for the
     * kernel 1/z (|1/z| <= 1/Im z) and 2 for 1/(z (z+1)) (|z|, |z+1| >= Im z) */
    int kpow = kernel == GA_KERNEL_DELTA ? 2 : 1;
    arb_log(E0, T, prec);
    arb_mul_si(E0, E0, kpow, prec);
    arb_add(E0, E0, L0, prec);
    arb_neg(E0, E0);
    arb_sub(u, q->offset, x, prec);
    arb_mul(tmp, u, R1, prec);
    arb_add(E0, E0, tmp, prec);
    arb_sqr(tmp, R1, prec);
    arb_sqr(v2, T, prec);
    arb_sub(tmp, tmp, v2, prec);
    arb_mul(tmp, tmp, q->sigma2, prec);
    arb_mul_2exp_si(tmp, tmp, -1);
    arb_add(E0, E0, tmp, prec);
    /* rate = -(offset - x) dir cb + sigma2 (T sb - |R1| cb) */
    arb_mul(rate, u, cb, prec);
    arb_mul_si(rate, rate, -dir, prec);
    arb_mul(tmp, T, sb, prec);
    arb_mul(v2, aR, cb, prec);
    arb_sub(tmp, tmp, v2, prec);
    if (!arb_is_nonnegative(tmp))
        goto cleanup;
    arb_mul(tmp, tmp, q->sigma2, prec);
    arb_add(rate, rate, tmp, prec);
    arb_set_si(qe, kpow);
    for (slong j = 0; j < q->n; j++) {
        arb_abs(a, q->a + j);
        arb_t u1;
        arb_init(u1);
        int opposite = dir > 0 ? arb_is_negative(q->a + j) : arb_is_positive(q->a + j);
        if (opposite) {
            /* E0 += b2 |R1| / (4|a|); rate -= b2 cb / (4|a|); u1 = 1 + 2|a||R1| */
            arb_mul(tmp, q->b2 + j, aR, prec);
            arb_div(tmp, tmp, a, prec);
            arb_mul_2exp_si(tmp, tmp, -2);
            arb_add(E0, E0, tmp, prec);
            arb_mul(tmp, q->b2 + j, cb, prec);
            arb_div(tmp, tmp, a, prec);
            arb_mul_2exp_si(tmp, tmp, -2);
            arb_sub(rate, rate, tmp, prec);
            arb_mul(u1, a, aR, prec);
            arb_mul_2exp_si(u1, u1, 1);
            arb_add_ui(u1, u1, 1, prec);
        } else {
            /* same side: linear decay when T >= 1/(4|a|) for sure, else the constant */
            arb_mul(tmp, T, a, prec);
            arb_mul_2exp_si(tmp, tmp, 2);
            if (arb_ge(tmp, one)) {
                arb_mul(tmp, q->b2 + j, aR, prec);
                arb_div(tmp, tmp, a, prec);
                arb_mul_2exp_si(tmp, tmp, -2);
                arb_sub(E0, E0, tmp, prec);
                arb_mul(tmp, q->b2 + j, cb, prec);
                arb_div(tmp, tmp, a, prec);
                arb_mul_2exp_si(tmp, tmp, -2);
                arb_add(rate, rate, tmp, prec);
            } else {
                /* -(b2/2) m |z1|^2 / (1 + 2|a||z1|)^2, needs m > 0 */
                if (!arb_is_positive(m)) {
                    arb_clear(u1);
                    goto cleanup;
                }
                arb_mul(v2, a, z1, prec);
                arb_mul_2exp_si(v2, v2, 1);
                arb_add_ui(v2, v2, 1, prec);
                arb_sqr(v2, v2, prec);
                arb_sqr(tmp, z1, prec);
                arb_div(tmp, tmp, v2, prec);
                arb_mul(tmp, tmp, m, prec);
                arb_mul(tmp, tmp, q->b2 + j, prec);
                arb_mul_2exp_si(tmp, tmp, -1);
                arb_sub(E0, E0, tmp, prec);
            }
            arb_zero(u1);
        }
        /* polynomial factor: E0 -= nu/4 log(u1^2 + 4 a^2 T^2); qe += nu theta / 4 */
        arb_mul(v2, a, T, prec);
        arb_sqr(v2, v2, prec);
        arb_mul_2exp_si(v2, v2, 2);
        arb_sqr(wn, u1, prec);
        arb_add(wn, wn, v2, prec);
        arb_log(tmp, wn, prec);
        arb_mul(tmp, tmp, q->nu + j, prec);
        arb_mul_2exp_si(tmp, tmp, -2);
        arb_sub(E0, E0, tmp, prec);
        arb_div(tmp, v2, wn, prec); /* theta / 2 */
        arb_mul(tmp, tmp, q->nu + j, prec);
        arb_mul_2exp_si(tmp, tmp, -1);
        arb_add(qe, qe, tmp, prec);
        arb_clear(u1);
    }
    /* integral factor min(1/rate, T/(sb (qe - 1))) */
    arb_t lint;
    arb_init(lint);
    arb_pos_inf(lint);
    if (arb_is_positive(rate))
        arb_inv(lint, rate, prec);
    arb_sub_ui(tmp, qe, 1, prec);
    if (arb_is_positive(tmp)) {
        arb_mul(tmp, tmp, sb, prec);
        arb_div(tmp, T, tmp, prec);
        if (arb_is_finite(lint))
            arb_min(lint, lint, tmp, prec);
        else
            arb_set(lint, tmp);
    }
    if (arb_is_finite(lint)) {
        arb_exp(E0, E0, prec);
        arb_mul(E0, E0, lint, prec);
        arb_get_mag(bound, E0);
        ok = mag_is_finite(bound) ? 0 : -1;
    }
    arb_clear(lint);
cleanup:
    arb_clear(T);
    arb_clear(R1);
    arb_clear(aR);
    arb_clear(z1);
    arb_clear(cb);
    arb_clear(sb);
    arb_clear(m);
    arb_clear(m2);
    arb_clear(E0);
    arb_clear(rate);
    arb_clear(qe);
    arb_clear(tmp);
    arb_clear(u);
    arb_clear(v2);
    arb_clear(wn);
    arb_clear(a);
    arb_clear(one);
    return ok;
}

int ga_arb_path_tail(arb_t res, const ga_gchisq_exact *q, const arb_t x, const ga_path *dp,
                     slong prec)
{
    int rc = GA_EDOM, dir = dp->dir ? dp->dir : 1;
    double beta = dp->beta > 0 ? dp->beta : 0.41421356237309505;
    double c = dp->c, t0 = dp->t0;
    arb_t L0, tmp;
    acb_t za, zb, zc, I1, I2;
    mag_t tol, bound;
    arb_ptr mu = NULL;
    arb_init(L0);
    arb_init(tmp);
    acb_init(za);
    acb_init(zb);
    acb_init(zc);
    acb_init(I1);
    acb_init(I2);
    mag_init(tol);
    mag_init(bound);
    arb_indeterminate(res);
    /* the abscissa must be inside the domain: 1 - 2 a c > 0 for every term */
    for (slong j = 0; j < q->n; j++) {
        arb_set_d(tmp, -2 * c); /* exact: c is a double */
        arb_mul(tmp, tmp, q->a + j, prec);
        arb_add_ui(tmp, tmp, 1, prec);
        if (!arb_is_positive(tmp))
            goto cleanup;
    }
    if (c == 0 || (dp->kernel == GA_KERNEL_DELTA && !(c > 0)))
        goto cleanup;
    /* L0 = mid(K(c) - c x), an exact number */
    {
        arb_integrand_param p0 = {q, x, NULL, GA_KERNEL_TAIL, NULL, 0};
        arb_t zero;
        arb_init(zero);
        p0.L0 = zero;
        acb_set_d(za, c);
        arb_integrand(zb, za, &p0, 0, prec); /* exp(K(c) - c x) / c */
        arb_abs(tmp, acb_realref(zb));
        arb_set_d(acb_realref(za), fabs(c));
        arb_mul(tmp, tmp, acb_realref(za), prec);
        arb_log(tmp, tmp, prec);
        arf_set(arb_midref(L0), arb_midref(tmp));
        mag_zero(arb_radref(L0));
        arb_clear(zero);
        if (!arb_is_finite(tmp))
            goto cleanup;
    }
    /* the noncentral shifts mu_j = b2_j/(4 a_j), for the mu form (see nc_arb_exponent) */
    mu = _arb_vec_init(q->n);
    for (slong j = 0; j < q->n; j++)
        if (!arb_is_zero(q->b2 + j)) {
            arb_div(mu + j, q->b2 + j, q->a + j, prec);
            arb_mul_2exp_si(mu + j, mu + j, -2);
        }
    arb_integrand_param par = {q, x, L0, dp->kernel, mu, dp->deadline};
    acb_calc_integrate_opt_t opt;
    acb_calc_integrate_opt_init(opt);
    opt->eval_limit = 50000 + 200 * prec;
    mag_set_ui_2exp_si(tol, 1, -prec);
    /* vertical segment c -> c + i t0 */
    acb_set_d(za, c);
    acb_set_d_d(zb, c, t0);
    acb_calc_integrate(I1, arb_integrand, &par, za, zb, prec, tol, opt, prec);
    /* ray: extend T until the bound is below 2^-prec * max(|I1|, tiny) */
    mag_t scale;
    mag_init(scale);
    acb_get_mag(scale, I1);
    if (mag_cmp_2exp_si(scale, -prec) < 0)
        mag_set_ui_2exp_si(scale, 1, -prec);
    mag_mul_2exp_si(scale, scale, -prec - 2);
    double T = 2 * t0 + 4 * fabs(c) / beta;
    int found = 0;
    double R1 = 0;
    /* doubling up to the double range: weights may span hundreds of orders of magnitude,
     * and the ray only decays once T is beyond the scale of the smallest one */
    for (int k = 0; k < 2100 && !found && T < 1e300; k++, T *= 2) {
        R1 = c + dir * beta * (T - t0); /* any point works: the bound is for the ray from it */
        if (arb_ray_bound(bound, q, x, L0, R1, dir, beta, T, dp->kernel, prec) == 0 &&
            mag_cmp(bound, scale) <= 0)
            found = 1;
        if (found)
            break;
    }
    mag_clear(scale);
    if (!found)
        goto cleanup;
    acb_set_d_d(zc, R1, T);
    acb_calc_integrate(I2, arb_integrand, &par, zb, zc, prec, tol, opt, prec);
    acb_add(I1, I1, I2, prec);
    acb_add_error_mag(I1, bound);
    /* P = sign (1/pi) Im(I) exp(L0) */
    arb_const_pi(tmp, prec);
    arb_div(res, acb_imagref(I1), tmp, prec);
    arb_exp(tmp, L0, prec);
    arb_mul(res, res, tmp, prec);
    if (c < 0)
        arb_neg(res, res); /* -P[Q <= x] on the left of the pole (kernel 1/z only) */
    rc = arb_is_finite(res) ? GA_OK : GA_EDOM;
cleanup:
    if (mu)
        _arb_vec_clear(mu, q->n);
    arb_clear(L0);
    arb_clear(tmp);
    acb_clear(za);
    acb_clear(zb);
    acb_clear(zc);
    acb_clear(I1);
    acb_clear(I2);
    mag_clear(tol);
    mag_clear(bound);
    return rc;
}

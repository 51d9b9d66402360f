/*
 * cert.c - certified generalized chi-square probabilities in ball arithmetic (Arb).
 *
 * Mathematics (doc/design.md, section 4): for 0 < c < smax, P[Q > x] = (1/2 pi i) int M(z) e^{-z x}/z dz
 * over the vertical line Re z = c (Bromwich inversion of the Laplace transform of the
 * distribution; for c < 0 the same integral is -P[Q <= x]). The line may be replaced by the
 * polygon c -> c + i t0 -> ray of slope beta (and its mirror image): the region between them
 * meets the real axis only at c, so it holds no singularity of M(z)/z, and on horizontal
 * segments at height Y between the line and the ray |F| is bounded by the same estimates as
 * on the ray (below) times Y^{-1-sum nu/2}, so their contribution vanishes as Y -> inf.
 * By the symmetry F(conj z) = conj F(z), the integral is (1/pi) Im of the upper half.
 *
 * Rigour: the two finite segments are integrated with acb_calc_integrate (Petras-style
 * Gauss-Legendre with error bounds from the integrand's maximum on ellipses), whose
 * integrand reports non-holomorphy on a ball (acb_log_analytic; 1/z on a ball containing 0
 * is non-finite); the ray beyond z1 = c + dir beta (T - t0) + i T is bounded by the estimate
 * derived in contour.c (ga_path_tailbound), evaluated here in ball arithmetic with every
 * condition of its derivation checked rigorously. The log scale L0 is an exact number (the
 * midpoint of K(c) - c x), so it cancels exactly. Inputs are balls containing the exact
 * decimal values (parsed at GA_CERT_PARSE_PREC bits).
 */
#include "numerics/arb_internal.h"

#include <gsl/gsl_errno.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GA_CERT_PARSE_PREC 4300 /* > the default precision cap, so parsing never limits */

void ga_init(void)
{
    gsl_set_error_handler_off();
}

void ga_cleanup(void)
{
    ga_arb_thread_cleanup();
}

/* ------------------------------------------------------------ the exact form */

ga_gchisq_exact *ga_gchisq_exact_alloc(void)
{
    if (!ga_cert_available(NULL))
        return NULL; /* (no library: as no memory, the caller reports it) */
    ga_gchisq_exact *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    arb_init(q->offset);
    arb_init(q->sigma2);
    return q;
}

void ga_arb_exact_resize(ga_gchisq_exact *q, slong n)
{
    if (n > q->cap) {
        slong cap = n < 4 ? 4 : n;
        arb_ptr a = _arb_vec_init(cap), nu = _arb_vec_init(cap), b2 = _arb_vec_init(cap);
        for (slong i = 0; i < q->n; i++) {
            arb_swap(a + i, q->a + i);
            arb_swap(nu + i, q->nu + i);
            arb_swap(b2 + i, q->b2 + i);
        }
        if (q->cap) {
            _arb_vec_clear(q->a, q->cap);
            _arb_vec_clear(q->nu, q->cap);
            _arb_vec_clear(q->b2, q->cap);
        }
        q->a = a;
        q->nu = nu;
        q->b2 = b2;
        q->cap = cap;
    }
}

void ga_gchisq_exact_free(ga_gchisq_exact *q)
{
    if (!q)
        return;
    if (q->cap) {
        _arb_vec_clear(q->a, q->cap);
        _arb_vec_clear(q->nu, q->cap);
        _arb_vec_clear(q->b2, q->cap);
    }
    arb_clear(q->offset);
    arb_clear(q->sigma2);
    free(q);
}

/* Parse a decimal into a ball containing it; 0 on success. */
static int parse_exact(arb_t v, const char *s)
{
    /* arb_set_str accepts "a +/- r" and spaces; a number is one plain decimal (decimal.c) */
    if (!ga_decimal_syntax(s))
        return -1;
    if (arb_set_str(v, s, GA_CERT_PARSE_PREC) != 0 || !arb_is_finite(v))
        return -1;
    return 0;
}

int ga_gchisq_exact_set_classical(ga_gchisq_exact *q, size_t n, const char *const *w,
                                  const char *const *dof, const char *const *nc,
                                  const char *sigma, const char *offset, char *msg,
                                  size_t msglen)
{
    const char *no_arb;
    if (!ga_cert_available(&no_arb)) {
        ga_msg(msg, msglen, "%s", no_arb);
        return GA_EDEP;
    }
    arb_t wv, dv, lv, t;
    int rc = GA_EINVAL;
    slong prec = GA_CERT_PARSE_PREC;
    arb_init(wv);
    arb_init(dv);
    arb_init(lv);
    arb_init(t);
    ga_arb_exact_resize(q, (slong)n);
    q->n = 0;
    arb_zero(q->offset);
    arb_zero(q->sigma2);
    if (offset && parse_exact(q->offset, offset)) {
        ga_msg(msg, msglen, "offset: '%s' is not a finite decimal number", offset);
        goto cleanup;
    }
    if (sigma) {
        if (parse_exact(t, sigma)) {
            ga_msg(msg, msglen, "sigma: '%s' is not a finite decimal number", sigma);
            goto cleanup;
        }
        if (!arb_is_nonnegative(t)) {
            ga_msg(msg, msglen, "sigma must be >= 0 (got %s)", sigma);
            goto cleanup;
        }
        arb_sqr(q->sigma2, t, prec);
    }
    for (size_t j = 0; j < n; j++) {
        if (parse_exact(wv, w[j])) {
            ga_msg(msg, msglen, "weights[%zu]: '%s' is not a finite decimal number", j, w[j]);
            goto cleanup;
        }
        if (dof) {
            if (parse_exact(dv, dof[j])) {
                ga_msg(msg, msglen, "dof[%zu]: '%s' is not a finite decimal number", j, dof[j]);
                goto cleanup;
            }
            arb_set_d(t, GA_GCHISQ_MAX_DOF);
            if (!arb_is_positive(dv) || !arb_le(dv, t)) {
                ga_msg(msg, msglen, "dof[%zu] must be > 0 and at most %g (got %s)", j,
                       GA_GCHISQ_MAX_DOF, dof[j]);
                goto cleanup;
            }
        } else {
            arb_one(dv);
        }
        arb_zero(lv);
        if (nc) {
            if (parse_exact(lv, nc[j])) {
                ga_msg(msg, msglen, "nc[%zu]: '%s' is not a finite decimal number", j, nc[j]);
                goto cleanup;
            }
            if (!arb_is_nonnegative(lv)) {
                ga_msg(msg, msglen, "nc[%zu] must be >= 0 (got %s)", j, nc[j]);
                goto cleanup;
            }
        }
        if (arb_is_zero(wv))
            continue; /* 0 * chi2 = 0 */
        if (arb_contains_zero(wv)) {
            ga_msg(msg, msglen, "weights[%zu] = %s is too close to 0 to be certified", j, w[j]);
            goto cleanup;
        }
        slong k = q->n++;
        arb_set(q->a + k, wv);
        arb_set(q->nu + k, dv);
        /* w chi2(dof, nc): term (w, dof, 4 w^2 nc) and constant w nc */
        arb_sqr(t, wv, prec);
        arb_mul(t, t, lv, prec);
        arb_mul_2exp_si(q->b2 + k, t, 2);
        arb_mul(t, wv, lv, prec);
        arb_add(q->offset, q->offset, t, prec);
    }
    if (q->n == 0 && arb_is_zero(q->sigma2)) {
        /* a point mass is a valid law, but the classical API rejects an empty form */
        ga_msg(msg, msglen, "%s", "empty form: give at least one nonzero weight or sigma > 0");
        goto cleanup;
    }
    rc = GA_OK;
cleanup:
    arb_clear(wv);
    arb_clear(dv);
    arb_clear(lv);
    arb_clear(t);
    return rc;
}

int ga_gchisq_exact_set_form(ga_gchisq_exact *q, const ga_gchisq *form)
{
    if (ga_gchisq_validate(form, NULL, 0) != GA_OK)
        return GA_EINVAL;
    ga_arb_exact_resize(q, (slong)form->n);
    q->n = 0;
    arb_set_d(q->offset, form->offset);
    arb_set_d(q->sigma2, form->sigma2);
    for (size_t j = 0; j < form->n; j++) {
        const ga_gchisq_term *t = &form->t[j];
        if (t->a == 0) { /* a pure normal component */
            arb_t b;
            arb_init(b);
            arb_set_d(b, t->b2);
            arb_add(q->sigma2, q->sigma2, b, GA_CERT_PARSE_PREC);
            arb_clear(b);
            continue;
        }
        slong k = q->n++;
        arb_set_d(q->a + k, t->a);
        arb_set_d(q->nu + k, t->nu);
        arb_set_d(q->b2 + k, t->b2);
    }
    return GA_OK;
}

int ga_gchisq_exact_get_form(ga_gchisq *form, const ga_gchisq_exact *q)
{
    ga_gchisq_zero(form);
    form->offset = arf_get_d(arb_midref(q->offset), ARF_RND_NEAR);
    form->sigma2 = arf_get_d(arb_midref(q->sigma2), ARF_RND_NEAR);
    for (slong j = 0; j < q->n; j++) {
        int s = ga_gchisq_add_term(form, arf_get_d(arb_midref(q->a + j), ARF_RND_NEAR),
                                   arf_get_d(arb_midref(q->nu + j), ARF_RND_NEAR),
                                   arf_get_d(arb_midref(q->b2 + j), ARF_RND_NEAR));
        if (s)
            return s;
    }
    return ga_gchisq_validate(form, NULL, 0);
}

/* ------------------------------------------------------------ the integrand */

typedef struct {
    const ga_gchisq_exact *q;
    const arb_struct *x;
    const arb_struct *L0;
    int kernel; /* enum ga_kernel: 1/z or 1/(z (z+1)) */
    /* optional (NULL: the plain form): mu_j = b2_j/(4 a_j) for the noncentral terms (0 for
     * the central ones), used where |2 a_j z| >= 1 (see arb_exponent) */
    arb_srcptr mu;
    double deadline; /* ga_monotonic() time: past it the integrand is indeterminate, so that
                        acb_calc_integrate gives up at once (--timeout) */
} arb_integrand_param;

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

/* g(z) = K(z) - z x - L0 directly; non-finite where a logarithm leaves its analytic
 * domain (when analytic != 0) or a pole is hit. */
static void arb_exponent(acb_t e, const acb_t z, const arb_integrand_param *p, int analytic,
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
 * w_j = 1 - 2 a_j z. */
/* noinline: when inlined, gcc 12 reports a false -Wstringop-overread inside acb_mul_arb */
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
    arb_exponent(e, z, p, analytic, prec);
    if (analytic && acb_is_finite(e) && !acb_is_exact(z)) {
        acb_get_mid(m, z);
        arb_exponent(t, m, p, 0, prec);
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

/* ------------------------------------------------------------ the ray bound */

/*
 * Upper bound (a mag) of int_ray |F| |dz| beyond z1 = R1 + i T, on the L0 scale. The
 * derivation is the one of ga_path_tailbound (contour.c), ray case; here every condition is
 * checked in ball arithmetic. Returns 0 and sets *bound, or -1 when no bound holds at T.
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

/* ------------------------------------------------------------ one tail */

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
    /* the noncentral shifts mu_j = b2_j/(4 a_j), for the mu form (see arb_exponent) */
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

/* ------------------------------------------------------------ printing */

void ga_arb_bound_str(char *buf, size_t len, const arb_t v, int upper, int digits)
{
    arf_t b;
    mpfr_t m;
    arf_init(b);
    /* the bound rounded outward to a few more bits than printed (never exactly: mid 1 with
     * radius 2^-(10^20) would need 10^20 bits) */
    slong bp = 4 * (slong)digits + 64;
    if (upper)
        arb_get_ubound_arf(b, v, bp);
    else
        arb_get_lbound_arf(b, v, bp);
    if (!arf_is_finite(b)) {
        snprintf(buf, len, "%s", upper ? "inf" : "-inf");
        arf_clear(b);
        return;
    }
    if (arf_is_zero(b)) {
        snprintf(buf, len, "0");
        arf_clear(b);
        return;
    }
    if (fmpz_bits(ARF_EXPREF(b)) > 24) {
        /* beyond MPFR's exponent range (a tail like 10^-(10^40)): |b| = m 10^k with
         * L = log10|b| in ball arithmetic at a precision that resolves its fractional part
         * to the digits asked, k = floor(mid L), m = 10^(L - k) in [1, 10) (about); m is
         * then rounded outward like any other number and k is printed exactly */
        int neg = arf_sgn(b) < 0, away = upper != neg; /* away from zero: |bound| >= |b| */
        slong p = (slong)fmpz_bits(ARF_EXPREF(b)) + 4 * digits + 64;
        fmpz_t k;
        arb_t L, t;
        arf_t u;
        fmpz_init(k);
        arb_init(L);
        arb_init(t);
        arf_init(u);
        arf_abs(u, b);
        arb_set_arf(L, u);
        arb_log(L, L, p);
        arb_const_log10(t, p);
        arb_div(L, L, t, p);
        arf_get_fmpz(k, arb_midref(L), ARF_RND_FLOOR);
        arb_sub_fmpz(L, L, k, p);
        arb_mul(L, L, t, p);
        arb_exp(L, L, p); /* m, a ball around |b| 10^-k */
        if (away)
            arb_get_ubound_arf(u, L, p);
        else
            arb_get_lbound_arf(u, L, p);
        mpfr_init2(m, p);
        arf_get_mpfr(m, u, MPFR_RNDN); /* exact: p bits hold it */
        mpfr_exp_t e;
        char *ms = mpfr_get_str(NULL, &e, 10, (size_t)digits, m, away ? MPFR_RNDU : MPFR_RNDD);
        fmpz_add_si(k, k, (slong)e - 1); /* m = 0.DDD 10^e: D.DD 10^(k + e - 1) */
        char *ks = fmpz_get_str(NULL, 10, k);
        int w = snprintf(buf, len, "%s%c.%se%s", neg ? "-" : "", ms[0], ms + 1, ks);
        if (w < 0 || (size_t)w >= len) {
            /* the exponent does not fit (a tail like 10^-(10^599)): a weaker bound that
             * does. Toward zero: 0. Away from zero (|b| < 10^(k+1), k < 0): 10^-K with
             * K = -(k+1) cut to its leading digits, K' <= K, and 10^-K' >= 10^-K > |b|. */
            if (!away || fmpz_sgn(k) >= 0) {
                snprintf(buf, len, away ? "%sinf" : "0", neg ? "-" : "");
            } else {
                fmpz_add_ui(k, k, 1);
                fmpz_neg(k, k); /* K */
                flint_free(ks);
                ks = fmpz_get_str(NULL, 10, k);
                size_t keep = len > 8 ? len - 8 : 1, kl = strlen(ks);
                if (kl > keep)
                    ks[keep] = 0; /* K' = K div 10^(kl - keep) <= K */
                snprintf(buf, len, "%s1e-%s", neg ? "-" : "", ks);
            }
        }
        flint_free(ks);
        mpfr_free_str(ms);
        mpfr_clear(m);
        fmpz_clear(k);
        arb_clear(L);
        arb_clear(t);
        arf_clear(u);
        arf_clear(b);
        return;
    }
    slong bits = arf_bits(b);
    mpfr_init2(m, bits < 64 ? 64 : bits);
    arf_get_mpfr(m, b, MPFR_RNDN); /* exact: enough bits */
    mpfr_exp_t e;
    char *s = mpfr_get_str(NULL, &e, 10, (size_t)digits, m, upper ? MPFR_RNDU : MPFR_RNDD);
    const char *d = s;
    int neg = 0;
    if (*d == '-') {
        neg = 1;
        d++;
    }
    /* d = digits of the mantissa 0.DDDD times 10^e: print as D.DDDDe(e-1) */
    snprintf(buf, len, "%s%c.%se%ld", neg ? "-" : "", d[0], d + 1, (long)(e - 1));
    mpfr_free_str(s);
    mpfr_clear(m);
    arf_clear(b);
}

void ga_arb_prob_str(char *buf, size_t len, const arb_t v, int upper, int digits)
{
    arf_t b;
    arf_init(b);
    if (upper)
        arb_get_ubound_arf(b, v, 4 * (slong)digits + 64);
    else
        arb_get_lbound_arf(b, v, 4 * (slong)digits + 64);
    if (upper && (!arf_is_finite(b) || arf_cmp_si(b, 1) >= 0))
        snprintf(buf, len, "1"); /* a probability: [0, 1] whatever the ball */
    else if (!upper && (!arf_is_finite(b) || arf_sgn(b) <= 0))
        snprintf(buf, len, "0");
    else
        ga_arb_bound_str(buf, len, v, upper, digits);
    arf_clear(b);
}

/* ------------------------------------------------------------ escalation wrapper */

void ga_arb_prob_out(ga_interval *iv, char *lo, char *hi, size_t len, const arb_t v, int digits)
{
    ga_arb_interval(iv, v);
    ga_arb_prob_str(lo, len, v, 0, digits);
    ga_arb_prob_str(hi, len, v, 1, digits);
}

ga_cert_opts ga_cert_opts_or_default(const ga_cert_opts *opts)
{
    ga_cert_opts o;
    if (opts)
        o = *opts;
    else
        ga_cert_opts_init(&o);
    return o;
}

void ga_cert_opts_init(ga_cert_opts *o)
{
    o->digits = 17;
    o->max_prec = 4096;
    o->deadline = 0;
}

void ga_arb_bounds(ga_interval *iv, const arb_t v)
{
    arf_t b;
    arf_init(b);
    arb_get_lbound_arf(b, v, 53);
    iv->lo = arf_get_d(b, ARF_RND_FLOOR);
    arb_get_ubound_arf(b, v, 53);
    iv->hi = arf_get_d(b, ARF_RND_CEIL);
    arf_clear(b);
}

void ga_arb_interval(ga_interval *iv, const arb_t v)
{
    ga_arb_bounds(iv, v);
    /* probabilities: clip to [0, 1] (still an enclosure) */
    if (iv->lo < 0)
        iv->lo = 0;
    if (iv->hi > 1)
        iv->hi = 1;
}

/* An upper bound of e - log(1 + e) summed over the eigenvalues e of a symmetric E with
 * ||E||_F^2 <= f2 (f2: an upper bound, a ball whose upper end is used): for |e| <= rho < 1,
 * e - log(1 + e) = sum_{j >= 2} (-e)^j / j <= e^2/2 sum_{m >= 0} rho^m = e^2 / (2 (1 - rho)),
 * and sum e^2 = ||E||_F^2, max |e| <= ||E||_F = rho. res = f2 / (2 (1 - sqrt f2)); returns
 * -1 when sqrt f2 is not certainly below 1 (then nothing is known, not even that I + E is
 * positive definite). */
int ga_arb_logdet_gap_bound(arb_t res, const arb_t f2, slong prec)
{
    arb_t u, rho;
    arb_init(u);
    arb_init(rho);
    arb_get_ubound_arf(arb_midref(u), f2, prec);
    mag_zero(arb_radref(u));
    arb_sqrt(rho, u, prec);
    arb_sub_ui(rho, rho, 1, prec);
    arb_neg(rho, rho); /* 1 - rho */
    int rc = -1;
    if (arb_is_positive(rho)) {
        arb_div(res, u, rho, prec);
        arb_mul_2exp_si(res, res, -1);
        rc = 0;
    }
    arb_clear(u);
    arb_clear(rho);
    return rc;
}

/* relative accuracy reached: rad <= 10^-digits |mid| (or the ball is a point) */
static int narrow_enough(const arb_t v, int digits)
{
    if (!arb_is_finite(v))
        return 0;
    if (mag_is_zero(arb_radref(v)))
        return 1;
    return arb_rel_accuracy_bits(v) >= (slong)ceil(digits * 3.3219280948873623) + 1;
}

/* Exact tails outside the support of a definite form without normal part: for all a > 0,
 * Q = m + sum a (z + b/2a)^2 > m almost surely with m = offset - sum b2/(4a), so
 * P[Q <= x] = 0 for x <= m; mirrored for all a < 0. Returns 1 when it applies. */
int ga_arb_exact_support(arb_t cdf, arb_t sf, const ga_gchisq_exact *q, const arb_t x)
{
    int pos = 1, neg = 1, r = 0;
    arb_t m, t;
    if (!arb_is_zero(q->sigma2) || q->n == 0)
        return 0;
    arb_init(m);
    arb_init(t);
    arb_set(m, q->offset);
    for (slong j = 0; j < q->n; j++) {
        pos &= arb_is_positive(q->a + j);
        neg &= arb_is_negative(q->a + j);
        arb_div(t, q->b2 + j, q->a + j, 256);
        arb_mul_2exp_si(t, t, -2);
        arb_sub(m, m, t, 256);
    }
    if (pos && arb_le(x, m)) {
        arb_zero(cdf);
        arb_one(sf);
        r = 1;
    } else if (neg && arb_ge(x, m)) {
        arb_one(cdf);
        arb_zero(sf);
        r = 1;
    }
    arb_clear(m);
    arb_clear(t);
    return r;
}

/* Chernoff: P[Q > x] <= exp(K(c) - c x) for 0 < c (sign +1) and P[Q <= x] <= the same for
 * c < 0, c in the domain; intersects the tail's enclosure with [0, that bound] (a rigorous
 * fallback when the integrals fail; 0 when c is outside the domain) */
static int chernoff_into(arb_t tail, const ga_gchisq_exact *q, const arb_t x, double c, slong prec)
{
    int ok = 0;
    arb_t zero, u;
    acb_t z, e;
    arb_init(zero);
    arb_init(u);
    acb_init(z);
    acb_init(e);
    arb_integrand_param p0 = {q, x, zero, GA_KERNEL_TAIL, NULL, 0};
    acb_set_d(z, c);
    arb_exponent(e, z, &p0, 1, prec);
    if (c != 0 && acb_is_finite(e) && arb_is_zero(acb_imagref(e))) {
        /* [0, exp(e)] as a ball: midpoint and radius both half the upper bound */
        arb_exp(u, acb_realref(e), prec);
        arf_t hi;
        arf_init(hi);
        arb_get_ubound_arf(hi, u, prec);
        arb_set_arf(u, hi);
        arb_mul_2exp_si(u, u, -1);
        arb_add_error(u, u);
        arf_clear(hi);
        if (!arb_is_finite(tail))
            arb_swap(tail, u);
        else if (arb_intersection(u, u, tail, prec))
            arb_swap(tail, u);
        ok = 1;
    }
    arb_clear(zero);
    arb_clear(u);
    acb_clear(z);
    acb_clear(e);
    return ok;
}

/* target <- target intersected with 1 - other (or 1 - other when target is not finite);
 * 0 when they are disjoint (a defect) */
static int complement_into(arb_t target, const arb_t other, slong prec)
{
    arb_t t;
    arb_init(t);
    arb_sub_si(t, other, 1, prec);
    arb_neg(t, t);
    int ok = 1;
    if (!arb_is_finite(target))
        arb_swap(target, t);
    else if (!arb_intersection(t, t, target, prec))
        ok = 0;
    else
        arb_swap(target, t);
    arb_clear(t);
    return ok;
}

/* Bits that can carry a tail computed on the path p: the exponent K(c) - c x has size |L0|
 * (log2|L0| bits before the fraction), and c, a double, misses the saddle point: the
 * integral on the L0 scale is then about exp(-m) with m = f^2/(2 K'') + (eps c)^2 K''/2,
 * f = K'(c) - x, which costs m/log 2 more bits (a tail of 10^-(10^70), or an offset of
 * 1e95 against unit spread, whose saddle no double represents: m is astronomical and the
 * escalation stops at once with [0, hi]). */
static slong needed_bits(const ga_gchisq *qd, const ga_path *p, double x, slong want)
{
    double k1, k2, m = INFINITY;
    if (ga_gchisq_cgf(NULL, &k1, &k2, qd, p->c) == GA_OK && k2 > 0) {
        double f = k1 - x, dc = DBL_EPSILON * fabs(p->c);
        m = f * f / (2 * k2) + 0.5 * dc * dc * k2;
    }
    double b = (double)want + log2(1 + fabs(p->L0)) + m / M_LN2;
    return b < 1e6 ? (slong)ceil(b) : 1000000;
}

/* qs <- q / 2^e and xs <- x / 2^e (exact), 2^e the power of two nearest the largest scale
 * of q (|a_j|, or sigma when there is no term): probabilities are unchanged, and the double
 * twin that steers the path stays inside the double range (weights of 1e-200 with
 * noncentralities would otherwise give 4 a^2 nc = 0 in double). */
__attribute__((noinline)) static int scaled_copy(ga_gchisq_exact *qs, arb_t xs, const ga_gchisq_exact *q, const arb_t x)
{
    arf_t m, t;
    arf_init(m);
    arf_init(t);
    for (slong j = 0; j < q->n; j++) {
        arf_abs(t, arb_midref(q->a + j));
        if (arf_cmp(t, m) > 0)
            arf_set(m, t);
    }
    if (arf_is_zero(m) && arb_is_positive(q->sigma2)) {
        arb_t sd;
        arb_init(sd);
        arb_sqrt(sd, q->sigma2, 30);
        arf_set(m, arb_midref(sd));
        arb_clear(sd);
    }
    slong e = 0;
    if (!arf_is_zero(m) && arf_is_finite(m)) {
        fmpz_t ex;
        fmpz_init(ex);
        fmpz_set(ex, ARF_EXPREF(m));
        e = fmpz_fits_si(ex) ? fmpz_get_si(ex) : 0;
        fmpz_clear(ex);
        if (e > WORD_MAX / 4 || e < WORD_MIN / 4)
            e = 0;
    }
    arf_clear(m);
    arf_clear(t);
    ga_arb_exact_resize(qs, q->n);
    qs->n = q->n;
    for (slong j = 0; j < q->n; j++) {
        arb_mul_2exp_si(qs->a + j, q->a + j, -e);
        arb_set(qs->nu + j, q->nu + j);
        arb_mul_2exp_si(qs->b2 + j, q->b2 + j, -2 * e);
    }
    arb_srcptr off = q->offset, s2 = q->sigma2;
    arb_ptr qoff = qs->offset, qs2 = qs->sigma2;
    arb_mul_2exp_si(qoff, off, -e);
    arb_mul_2exp_si(qs2, s2, -2 * e);
    arb_mul_2exp_si(xs, x, -e);
    return GA_OK;
}

/* normal or point mass: Q = offset + sigma z0, both tails by erfc in ball arithmetic */
typedef struct {
    const ga_gchisq_exact *q;
    arb_srcptr x;
    arb_ptr cdf, sf;
    int digits;
} normal_step_ctx;

static int normal_step(void *vc, slong prec)
{
    normal_step_ctx *c = vc;
    const ga_gchisq_exact *q = c->q;
    if (arb_is_zero(q->sigma2)) {
        int below = arb_lt(c->x, q->offset), above = arb_ge(c->x, q->offset);
        if (!below && !above) {
            arb_indeterminate(c->cdf);
            arb_indeterminate(c->sf);
            return GA_EPREC;
        }
        arb_set_ui(c->cdf, above);
        arb_set_ui(c->sf, below);
        return GA_OK;
    }
    /* cdf = erfc(-(x - m)/(s sqrt 2))/2, sf = erfc((x - m)/(s sqrt 2))/2 */
    arb_t z;
    arb_init(z);
    arb_sub(z, c->x, q->offset, prec);
    arb_mul_2exp_si(c->sf, q->sigma2, 1);
    arb_rsqrt(c->sf, c->sf, prec);
    arb_mul(z, z, c->sf, prec);
    arb_hypgeom_erfc(c->sf, z, prec);
    arb_neg(z, z);
    arb_hypgeom_erfc(c->cdf, z, prec);
    arb_mul_2exp_si(c->sf, c->sf, -1);
    arb_mul_2exp_si(c->cdf, c->cdf, -1);
    arb_clear(z);
    return narrow_enough(c->cdf, c->digits) && narrow_enough(c->sf, c->digits) ? GA_OK : GA_EPREC;
}

/* one tail of a mixed form by the path integral, escalated on its own schedule */
typedef struct {
    const ga_gchisq_exact *q;
    arb_srcptr x;
    const ga_path *path;
    arb_ptr best;   /* the intersection of the enclosures so far */
    arb_ptr other;  /* the other tail's best (complement) */
    slong ceil, once, cap;
    int digits, done, stop, stalls;
    slong acc;
} tail_track;

/* one precision level of a track: 0, or -1 when two enclosures are disjoint (a defect) */
static int track_step(tail_track *t, arb_t tmp, slong prec)
{
    /* up to the first power of two >= the ceiling; a ceiling beyond the cap: one pass, at
     * the precision that gets L0 right, for the bound [0, hi] */
    t->stop |= prec / 2 >= t->ceil || (t->ceil > 2 * t->cap && prec > t->once);
    int skip = t->ceil > 2 * t->cap && prec < t->once;
    if (t->done || t->stop || skip || ga_arb_path_tail(tmp, t->q, t->x, t->path, prec) != GA_OK)
        return 0;
    /* keep the intersection of the enclosures found so far (both contain the tail; disjoint
     * ones would mean a defect, reported, never printed) */
    if (arb_is_finite(t->best) && !arb_intersection(tmp, tmp, t->best, prec))
        return -1;
    arb_set(t->best, tmp);
    t->done = narrow_enough(t->best, t->digits);
    t->stop = !t->done && ga_arb_stalled(&t->acc, &t->stalls, t->best);
    return 0;
}

/* P[Q <= x] + P[Q > x] = 1 exactly: each tail also lies in 1 minus the other, which settles
 * the bulk side of a far tail (1 - 1e-300 from a narrow 1e-300) without integrating it */
static int track_complement(tail_track *t, slong prec)
{
    if (t->done || !arb_is_finite(t->other))
        return 0;
    if (!complement_into(t->best, t->other, prec))
        return -1;
    t->done = narrow_enough(t->best, t->digits);
    return 0;
}

typedef struct {
    tail_track sf, cdf;
    arb_ptr tmp;
    int inconsistent;
} tails_ctx;

static int tails_step(void *vc, slong prec)
{
    tails_ctx *c = vc;
    if ((c->sf.done || c->sf.stop) && (c->cdf.done || c->cdf.stop))
        return GA_OK; /* finished (or stopped) before this level */
    if (track_step(&c->sf, c->tmp, prec) || track_step(&c->cdf, c->tmp, prec) ||
        track_complement(&c->sf, prec) || track_complement(&c->cdf, prec)) {
        c->inconsistent = 1;
        return GA_EDOM;
    }
    /* a stopped track counts as finished: the caller bounds what is left */
    return (c->sf.done || c->sf.stop) && (c->cdf.done || c->cdf.stop) ? GA_OK : GA_EPREC;
}

static void track_init(tail_track *t, const ga_gchisq_exact *q, arb_srcptr x, const ga_gchisq *qd,
                       double xd, const ga_path *path, arb_ptr best, arb_ptr other,
                       const ga_cert_opts *o)
{
    /* escalate until narrow enough, stalled (ga_arb_stalled), or past the precision that can
     * matter: the exponent K(c) - c x is of size |L0|, so about log2|L0| + (the digits
     * asked) bits carry the answer; twice that is the ceiling (a tail of 10^-(10^70) is
     * bounded at 1024 bits, not pursued to 4096) */
    slong want = (slong)ceil(o->digits * 3.3219280948873623) + 16;
    memset(t, 0, sizeof *t);
    t->q = q;
    t->x = x;
    t->path = path;
    t->best = best;
    t->other = other;
    t->cap = o->max_prec;
    t->digits = o->digits;
    t->ceil = 2 * needed_bits(qd, path, xd, want);
    t->once = 64;
    while (t->once < o->max_prec && t->once < 80 + log2(1 + fabs(path->L0)))
        t->once *= 2;
    t->acc = WORD_MIN / 2;
}

/* both tails of a mixed form; best_cdf/best_sf (indeterminate on entry) end as enclosures
 * whatever the status: where an integral left a tail unsettled, the Chernoff bound still
 * bounds it (and through the complement, the other tail) */
static int path_tails(arb_t best_cdf, arb_t best_sf, slong *used, const ga_gchisq_exact *q,
                      const ga_gchisq *qd, const arb_t xv, double xd, const ga_cert_opts *o)
{
    ga_path pu, pl;
    if (ga_path_setup(&pu, qd, xd, 1, GA_KERNEL_TAIL) != GA_OK ||
        ga_path_setup(&pl, qd, xd, -1, GA_KERNEL_TAIL) != GA_OK)
        return GA_EDOM;
    pu.deadline = pl.deadline = o->deadline;
    tails_ctx c;
    arb_t tmp;
    arb_init(tmp);
    track_init(&c.sf, q, xv, qd, xd, &pu, best_sf, best_cdf, o);
    track_init(&c.cdf, q, xv, qd, xd, &pl, best_cdf, best_sf, o);
    c.tmp = tmp;
    c.inconsistent = 0;
    int rc = ga_arb_escalate(used, tails_step, &c, 64, o->max_prec, o->deadline);
    int timed_out = rc == GA_ETIME;
    if (!c.inconsistent) {
        if (!c.sf.done)
            chernoff_into(best_sf, q, xv, pu.c, c.sf.once);
        if (!c.cdf.done)
            chernoff_into(best_cdf, q, xv, pl.c, c.cdf.once);
        if (arb_is_finite(best_cdf) && !complement_into(best_sf, best_cdf, c.sf.once))
            c.inconsistent = 1;
        else if (arb_is_finite(best_sf) && !complement_into(best_cdf, best_sf, c.cdf.once))
            c.inconsistent = 1;
    }
    arb_clear(tmp);
    if (c.inconsistent) {
        arb_indeterminate(best_sf); /* printed as [0, 1] */
        arb_indeterminate(best_cdf);
        return GA_EDOM;
    }
    if (narrow_enough(best_sf, o->digits) && narrow_enough(best_cdf, o->digits))
        return GA_OK;
    return timed_out || ga_expired(o->deadline) ? GA_ETIME : GA_EPREC;
}

int ga_gchisq_prob_cert(ga_gchisq_cert *out, const ga_gchisq_exact *q_in, const char *x,
                        const ga_cert_opts *opts)
{
    if (!ga_cert_available(NULL)) {
        memset(out, 0, sizeof *out);
        out->cdf.hi = out->sf.hi = 1;
        return GA_EDEP;
    }
    ga_gchisq_exact *q = ga_gchisq_exact_alloc();
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    memset(out, 0, sizeof *out);
    out->cdf.hi = out->sf.hi = 1; /* enclosures whatever the status: [0, 1] until known */
    strcpy(out->cdf_lo, "0");
    strcpy(out->sf_lo, "0");
    strcpy(out->cdf_hi, "1");
    strcpy(out->sf_hi, "1");
    int rc = GA_EINVAL;
    arb_t xv, cdf, sf, best_cdf, best_sf;
    ga_gchisq *qd = ga_gchisq_alloc((size_t)q_in->n + 1);
    arb_init(xv);
    arb_init(cdf);
    arb_init(sf);
    arb_init(best_cdf);
    arb_init(best_sf);
    arb_indeterminate(best_cdf);
    arb_indeterminate(best_sf);
    if (!qd || !q) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    if (o.digits < 1 || o.digits > 1000 || o.max_prec < 64 || parse_exact(xv, x))
        goto cleanup;
    scaled_copy(q, xv, q_in, xv);
    if (ga_gchisq_exact_get_form(qd, q) != GA_OK)
        goto cleanup;
    ga_gchisq_normalize(qd, 0);
    double xd = arf_get_d(arb_midref(xv), ARF_RND_NEAR);
    rc = GA_EPREC;
    if (qd->n == 0) {
        normal_step_ctx c = {q, xv, best_cdf, best_sf, o.digits};
        rc = ga_arb_escalate(&out->precision_bits, normal_step, &c, 64, o.max_prec, o.deadline);
    } else if (ga_arb_exact_support(cdf, sf, q, xv)) {
        arb_set(best_cdf, cdf);
        arb_set(best_sf, sf);
        out->precision_bits = 0;
        rc = GA_OK;
    } else {
        rc = path_tails(best_cdf, best_sf, &out->precision_bits, q, qd, xv, xd, &o);
    }
    /* probabilities lie in [0, 1]: clip (keeps the enclosure) */
    ga_arb_prob_out(&out->cdf, out->cdf_lo, out->cdf_hi, sizeof out->cdf_lo, best_cdf, o.digits + 3);
    ga_arb_prob_out(&out->sf, out->sf_lo, out->sf_hi, sizeof out->sf_lo, best_sf, o.digits + 3);
cleanup:
    ga_gchisq_exact_free(q);
    ga_gchisq_free(qd);
    arb_clear(xv);
    arb_clear(cdf);
    arb_clear(sf);
    arb_clear(best_cdf);
    arb_clear(best_sf);
    return rc;
}

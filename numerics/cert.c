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
#include "numerics/cert_internal.h"

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
    nc_arb_exponent(e, z, &p0, 1, prec);
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

void ga_arb_normal_tails(arb_t P, arb_t Q, const arb_t x, const arb_t rsqrt2, slong prec)
{
    int neg = arf_sgn(arb_midref(x)) < 0;
    arb_t z;
    arb_init(z);
    if (rsqrt2)
        arb_mul(z, x, rsqrt2, prec);
    else {
        arb_sqrt_ui(z, 2, prec);
        arb_div(z, x, z, prec);
    }
    if (neg)
        arb_neg(z, z);
    arb_hypgeom_erfc(Q, z, prec);
    arb_mul_2exp_si(Q, Q, -1); /* the tail on x's side: its relative accuracy */
    arb_sub_ui(P, Q, 1, prec);
    arb_neg(P, P);
    if (neg)
        arb_swap(P, Q);
    arb_clear(z);
}

/*
 * gchisq.c - the generalized chi-square type: storage, the classical parametrisation,
 * validation, normalisation (folding and merging), moments and the cumulant generating
 * function on the real axis.
 *
 * Division-free term form (doc/design.md, section 2): a term (a, nu, b2) is sum over nu iid normals
 * of a z^2 + b z with sum b^2 = b2. Its MGF is (1 - 2 a s)^{-nu/2} exp(b2 s^2 / (2 (1 - 2 a s))),
 * smooth as a -> 0 (where the classical noncentrality b2 / (4 a^2) blows up).
 * The classical w * chi2(dof, nc) = w * sum (z_i + m_i)^2 with sum m_i^2 = nc expands to
 * w z^2 + 2 w m z + w m^2, i.e. the term (w, dof, 4 w^2 nc) plus the constant w nc.
 */
#include "numerics/numerics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *status_msg[GA_NSTATUS] = {
    "success",
    "invalid argument",
    "out of memory",
    "requested accuracy not reached (value and error estimate returned)",
    "result underflows double precision",
    "method not applicable to this input",
    "requested width not reached: precision cap, or no gain from more precision (best interval returned)",
    "input/output error",
    "iteration limit reached",
    "deadline passed (the results returned are valid but unfinished)",
    "a library it needs (FLINT/Arb) could not be loaded (GAUSSAUDIT_ARB names another)",
};

const char *ga_version(void)
{
    return GA_VERSION_STRING;
}

const char *ga_strerror(int status)
{
    if (status < 0 || status >= GA_NSTATUS)
        return "unknown status";
    return status_msg[status];
}

ga_gchisq *ga_gchisq_alloc(size_t cap)
{
    ga_gchisq *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    if (cap < 1)
        cap = 1; /* exactly what is asked: a large audit keeps two forms per pair */
    q->t = calloc(cap, sizeof *q->t);
    if (!q->t) {
        free(q);
        return NULL;
    }
    q->cap = cap;
    return q;
}

void ga_gchisq_free(ga_gchisq *q)
{
    if (!q)
        return;
    free(q->t);
    free(q);
}

void ga_gchisq_zero(ga_gchisq *q)
{
    q->n = 0;
    q->offset = 0.0;
    q->sigma2 = 0.0;
}

static int reserve(ga_gchisq *q, size_t n)
{
    if (n <= q->cap)
        return GA_OK;
    size_t cap = q->cap ? q->cap : 4;
    while (cap < n)
        cap *= 2;
    ga_gchisq_term *t = realloc(q->t, cap * sizeof *t);
    if (!t)
        return GA_ENOMEM;
    q->t = t;
    q->cap = cap;
    return GA_OK;
}

int ga_gchisq_copy(ga_gchisq *dst, const ga_gchisq *src)
{
    if (dst == src)
        return GA_OK;
    if (reserve(dst, src->n))
        return GA_ENOMEM;
    if (src->n)
        memcpy(dst->t, src->t, src->n * sizeof *src->t);
    dst->n = src->n;
    dst->offset = src->offset;
    dst->sigma2 = src->sigma2;
    return GA_OK;
}

int ga_gchisq_add_term(ga_gchisq *q, double a, double nu, double b2)
{
    if (!isfinite(a) || !isfinite(nu) || !isfinite(b2) || nu <= 0 || nu > GA_GCHISQ_MAX_DOF ||
        b2 < 0)
        return GA_EINVAL;
    if (reserve(q, q->n + 1))
        return GA_ENOMEM;
    q->t[q->n].a = a;
    q->t[q->n].nu = nu;
    q->t[q->n].b2 = b2;
    q->n++;
    return GA_OK;
}

int ga_gchisq_set_classical(ga_gchisq *q, size_t n, const double *w, const double *dof,
                            const double *nc, double sigma, double offset,
                            char *msg, size_t msglen)
{
    ga_msg(msg, msglen, "%s", "");
    if (!isfinite(sigma) || sigma < 0) {
        ga_msg(msg, msglen, "sigma must be finite and >= 0 (got %.17g)", sigma);
        return GA_EINVAL;
    }
    if (!isfinite(offset)) {
        ga_msg(msg, msglen, "offset must be finite (got %.17g)", offset);
        return GA_EINVAL;
    }
    for (size_t j = 0; j < n; j++) {
        double d = dof ? dof[j] : 1.0, l = nc ? nc[j] : 0.0;
        if (!isfinite(w[j])) {
            ga_msg(msg, msglen, "weights[%zu] must be finite (got %.17g)", j, w[j]);
            return GA_EINVAL;
        }
        if (!isfinite(d) || d <= 0 || d > GA_GCHISQ_MAX_DOF) {
            ga_msg(msg, msglen, "dof[%zu] must be > 0 and at most %g (got %.17g)", j,
                   GA_GCHISQ_MAX_DOF, d);
            return GA_EINVAL;
        }
        if (!isfinite(l) || l < 0) {
            ga_msg(msg, msglen, "nc[%zu] (noncentrality) must be finite and >= 0 (got %.17g)",
                   j, l);
            return GA_EINVAL;
        }
    }
    if (n == 0 && sigma == 0) {
        ga_msg(msg, msglen, "%s", "empty form: give at least one weight or sigma > 0");
        return GA_EINVAL;
    }
    /* the form stores sigma^2 and b2 = 4 w^2 nc: refuse inputs whose squares leave the
     * double range instead of silently flushing them to 0 or inf */
    if (sigma > 0 && !(sigma * sigma >= DBL_MIN && sigma * sigma <= DBL_MAX)) {
        ga_msg(msg, msglen, "sigma^2 = (%.17g)^2 is outside the double range; rescale Q and x "
               "by a common factor (probabilities are invariant)", sigma);
        return GA_EINVAL;
    }
    for (size_t j = 0; j < n; j++) {
        double l = nc ? nc[j] : 0.0, b2 = l > 0 ? 4.0 * w[j] * w[j] * l : 0.0;
        double sh = l > 0 ? offset + w[j] * l : offset;
        if (l > 0 && w[j] != 0 && !(b2 >= DBL_MIN && b2 <= DBL_MAX && isfinite(sh))) {
            ga_msg(msg, msglen, "term %zu: 4 w^2 nc = 4 (%.17g)^2 (%.17g) or the mean shift w nc "
                   "is outside the double range; rescale Q and x by a common factor", j, w[j], l);
            return GA_EINVAL;
        }
        offset = sh;
    }
    if (reserve(q, n))
        return GA_ENOMEM;
    ga_gchisq_zero(q);
    q->offset = offset;
    q->sigma2 = sigma * sigma;
    for (size_t j = 0; j < n; j++) {
        double d = dof ? dof[j] : 1.0, l = nc ? nc[j] : 0.0;
        q->t[j].a = w[j];
        q->t[j].nu = d;
        q->t[j].b2 = l > 0 ? 4.0 * w[j] * w[j] * l : 0.0; /* inf * 0 would be NaN */
    }
    q->n = n;
    return GA_OK;
}

int ga_gchisq_validate(const ga_gchisq *q, char *msg, size_t msglen)
{
    if (!isfinite(q->offset)) {
        ga_msg(msg, msglen, "offset is not finite (%.17g)", q->offset);
        return GA_EINVAL;
    }
    if (!isfinite(q->sigma2) || q->sigma2 < 0) {
        ga_msg(msg, msglen, "normal variance sigma^2 must be finite and >= 0 (got %.17g)",
               q->sigma2);
        return GA_EINVAL;
    }
    for (size_t j = 0; j < q->n; j++) {
        const ga_gchisq_term *t = &q->t[j];
        if (!isfinite(t->a) || !isfinite(t->nu) || !isfinite(t->b2) || t->nu <= 0 ||
            t->nu > GA_GCHISQ_MAX_DOF || t->b2 < 0) {
            ga_msg(msg, msglen,
                   "term %zu is invalid (a = %.17g, nu = %.17g, b2 = %.17g): need finite a, "
                   "nu > 0, b2 >= 0", j, t->a, t->nu, t->b2);
            return GA_EINVAL;
        }
    }
    return GA_OK;
}

static int cmp_term(const void *x, const void *y)
{
    const ga_gchisq_term *s = x, *t = y;
    return (s->a > t->a) - (s->a < t->a);
}

int ga_gchisq_normalize(ga_gchisq *q, double rtol)
{
    size_t m = 0;
    for (size_t j = 0; j < q->n; j++) {
        if (q->t[j].a == 0.0)
            q->sigma2 += q->t[j].b2;
        else
            q->t[m++] = q->t[j];
    }
    q->n = m;
    if (m == 0)
        return GA_OK;
    qsort(q->t, m, sizeof *q->t, cmp_term);
    size_t k = 0;
    for (size_t j = 1; j < m; j++) {
        ga_gchisq_term *s = &q->t[k], *t = &q->t[j];
        int same = (t->a == s->a) ||
                   (rtol > 0 && (t->a > 0) == (s->a > 0) &&
                    fabs(t->a - s->a) <= rtol * fmax(fabs(t->a), fabs(s->a)));
        if (same) {
            double nu = s->nu + t->nu;
            if (t->a != s->a)
                s->a = (s->nu * s->a + t->nu * t->a) / nu;
            s->nu = nu;
            s->b2 += t->b2;
        } else {
            q->t[++k] = *t;
        }
    }
    q->n = k + 1;
    return GA_OK;
}

double ga_gchisq_rescale(ga_gchisq *q, double x)
{
    double m = sqrt(q->sigma2);
    for (size_t j = 0; j < q->n; j++)
        m = fmax(m, fmax(fabs(q->t[j].a), sqrt(q->t[j].b2)));
    if (!(m > 0) || !isfinite(m))
        return x;
    int k = ilogb(m); /* 2^k <= m < 2^(k+1) */
    double y = ldexp(x, -k) - ldexp(q->offset, -k);
    q->offset = 0;
    q->sigma2 = ldexp(q->sigma2, -2 * k);
    size_t n = 0;
    for (size_t j = 0; j < q->n; j++) {
        ga_gchisq_term t = q->t[j];
        t.a = ldexp(t.a, -k);
        t.b2 = ldexp(t.b2, -2 * k);
        if (t.a != 0)
            q->t[n++] = t;
        else
            q->sigma2 += t.b2; /* a weight 2^-1074 below the largest: its chi-square is
                                * below double resolution, its linear part stays */
    }
    q->n = n;
    if (isnan(y))
        y = 0;
    return fmax(-DBL_MAX, fmin(DBL_MAX, y));
}

void ga_gchisq_moments(double *mean, double *var, const ga_gchisq *q)
{
    /* term: E = nu a, Var = 2 nu a^2 + b2 */
    double m = q->offset, v = q->sigma2;
    for (size_t j = 0; j < q->n; j++) {
        const ga_gchisq_term *t = &q->t[j];
        m += t->nu * t->a;
        v += 2.0 * t->nu * t->a * t->a + t->b2;
    }
    *mean = m;
    *var = v;
}

void ga_gchisq_domain(double *smin, double *smax, const ga_gchisq *q)
{
    double lo = -INFINITY, hi = INFINITY;
    for (size_t j = 0; j < q->n; j++) {
        double a = q->t[j].a;
        if (a > 0)
            hi = fmin(hi, 0.5 / a);
        else if (a < 0)
            lo = fmax(lo, 0.5 / a);
    }
    *smin = lo;
    *smax = hi;
}

int ga_gchisq_cgf(double *k0, double *k1, double *k2, const ga_gchisq *q, double s)
{
    double K = q->offset * s + 0.5 * q->sigma2 * s * s;
    double K1 = q->offset + q->sigma2 * s;
    double K2 = q->sigma2;
    for (size_t j = 0; j < q->n; j++) {
        const ga_gchisq_term *t = &q->t[j];
        double u = 1.0 - 2.0 * t->a * s;
        if (!(u > 0))
            return GA_EDOM;
        double iu = 1.0 / u;
        /* -nu/2 log(1 - 2 a s) computed as -nu/2 log1p(-2 a s): exact near a s = 0 (and
         * only when K is asked: Newton's iterations on K' need no logarithm) */
        if (k0)
            K += -0.5 * t->nu * log1p(-2.0 * t->a * s) + 0.5 * t->b2 * s * s * iu;
        K1 += t->nu * t->a * iu + t->b2 * s * (1.0 - t->a * s) * iu * iu;
        K2 += 2.0 * t->nu * t->a * t->a * iu * iu + t->b2 * iu * iu * iu;
    }
    if (k0)
        *k0 = K;
    if (k1)
        *k1 = K1;
    if (k2)
        *k2 = K2;
    return GA_OK;
}

/*
 * pair.c - exact privacy profile of a Gaussian pair (doc/design.md, sections 1 and 2).
 *
 * Reduction: whiten by Y, L = chol(S_y); the whitened X has covariance
 * R = L^{-1} S_x L^{-T} = I + L^{-1} (S_x - S_y) L^{-T}; the eigenvalues lambda_i = tau_i - 1
 * of the second form come without the cancellation of tau_i - 1 when tau_i is near 1 (the
 * normal case for small leverage or large dimension). With R = V diag(tau) V^T and
 * mt = V^T L^{-1} (mu_x - mu_y), the coordinates are independent and the privacy loss
 * l = sum_i -1/2 log tau_i - (y - mt_i)^2/(2 tau_i) + y^2/2 is, per coordinate, a quadratic
 * in one standard normal (NDIS lemma, Lu, Magdon-Ismail, Wei & Zikas, arXiv 2309.01243,
 * Lemma 1 and Theorem 4.1, here whitened by Y):
 *   under X: a = lambda/2,              b2 = mt^2 tau,   k = -1/2 log tau + mt^2/2
 *   under Y: a = lambda/(2 tau),        b2 = mt^2/tau^2, k = -1/2 log tau - mt^2/(2 tau)
 * With r iid columns every term has nu = r and b2, k are multiplied by r (no (d r)-sized
 * matrix is formed). Then
 *   delta_{X,Y}(eps) = P_X[l > eps] - e^eps P_Y[l > eps] = E_X[(1 - e^{eps - l})_+],
 *   delta_{Y,X}(eps) = P_Y[l < -eps] - e^eps P_X[l < -eps] = E_Y[(1 - e^{eps + l})_+].
 * The direct formula: for 0 < c < smax, E[(1 - e^{eps - Q})_+] = int_eps^inf e^{eps-s} P[Q > s] ds
 * = (1/2 pi i) int M(z) e^{-z eps} / (z (z + 1)) dz (Bromwich, Re z = c): one integral whose
 * size is set by M(c) e^{-c eps}, a Renyi-type bound on delta, so tiny deltas keep their
 * relative accuracy.
 */
#include "pair/internal.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pr_set_reason(ga_pair *p, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (p->reason_owned)
        free(p->reason);
    p->reason = strdup(buf);
    p->reason_owned = p->reason != NULL;
    if (!p->reason)
        p->reason = (char *)"(the reason could not be stored: out of memory)";
}

void pr_set_reason_static(ga_pair *p, const char *text)
{
    if (p->reason_owned)
        free(p->reason);
    p->reason = (char *)text;
    p->reason_owned = 0;
}

/* lambda, mt, L and V: one block at lambda (arrays_block, reduce_pd) or four */
void pr_free_arrays(ga_pair *p)
{
    free(p->lambda);
    if (!p->arrays_block) {
        free(p->mt);
        free(p->L);
        free(p->V);
    }
    p->lambda = p->mt = p->L = p->V = NULL;
    p->arrays_block = 0;
}

void ga_pair_free(ga_pair *p)
{
    if (!p)
        return;
    if (p->reason_owned)
        free(p->reason);
    pr_free_arrays(p);
    free(p->U);
    ga_gchisq_free(p->lx);
    ga_gchisq_free(p->ly);
    for (size_t b = 0; b < p->nblocks; b++)
        ga_pair_free(p->blocks[b]);
    free(p->blocks);
    if (p->ploss) {
        for (size_t j = 0; j < 3 * p->ploss->n; j++)
            free(p->ptxt[j]);
        free(p->ptxt);
        free(p->ploss->t);
        free(p->ploss);
    }
    free(p->psigma);
    free(p);
}

size_t ga_pair_nblocks(const ga_pair *p) { return p->nblocks ? p->nblocks : 1; }

const ga_pair *ga_pair_block(const ga_pair *p, size_t i)
{
    return p->nblocks ? (i < p->nblocks ? p->blocks[i] : NULL) : (i == 0 ? p : NULL);
}

int ga_pair_support(const ga_pair *p) { return p->support; }

const char *ga_pair_support_reason(const ga_pair *p) { return p->reason ? p->reason : ""; }

size_t ga_pair_dim(const ga_pair *p) { return p->k; }

const double *ga_pair_lambda(const ga_pair *p) { return p->lambda; }

const double *ga_pair_mt(const ga_pair *p) { return p->mt; }

double ga_pair_columns(const ga_pair *p) { return p->r; }

/* Pure normal loss Q ~ N(k, s^2) (equal covariances): the analytic Gaussian mechanism
 * formula (Balle & Wang 2018, Theorem 8), E[(1 - e^{eps - Q})_+] =
 * Phi((k - eps)/s) - e^{eps - k + s^2/2} Phi((k - eps)/s - s). Used when the two terms do not
 * cancel (their difference is at least a tenth of the first); returns 0 otherwise. */
static int delta_normal(ga_result *res, const ga_gchisq *q, double eps)
{
    double s = sqrt(q->sigma2), u = (q->offset - eps) / s;
    double A = 0.5 * erfc(-u / M_SQRT2);
    double lB = eps - q->offset + 0.5 * q->sigma2 + log(0.5 * erfc(-(u - s) / M_SQRT2));
    double B = exp(lB);
    if (!(A - B >= 0.1 * A) || !isfinite(B))
        return 0;
    res->val = A - B;
    /* erfc to a few ulp; u and lB carry rounding of size eps (|k| + |eps|)/s and
     * eps (|eps| + |k| + s^2), amplified by the densities */
    double du = 4 * DBL_EPSILON * (fabs(q->offset) + fabs(eps) + s) / s;
    res->err = 8 * DBL_EPSILON * (A + B) + du * (A + B) * (1 + fabs(u) + s) +
               4 * DBL_EPSILON * (fabs(eps) + fabs(q->offset) + q->sigma2) * B;
    return 1;
}

/* E[(1 - e^{eps - Q})_+] by the direct formula */
static int delta_direct(ga_result *res, const ga_gchisq *q, double eps,
                        const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    ga_gchisq_prob t;
    if (q->n == 0 && q->sigma2 > 0 && delta_normal(res, q, eps))
        return GA_OK;
    if (ga_gchisq_trivial(&t, q, eps) && t.sf.val == 0) {
        res->val = res->err = 0; /* Q <= eps almost surely */
        return GA_OK;
    }
    if (ga_gchisq_trivial(&t, q, eps) && t.cdf.val == 0 && q->n == 0) {
        /* point mass above eps: 1 - e^{eps - offset} */
        res->val = -expm1(eps - q->offset);
        res->err = 2 * DBL_EPSILON * res->val;
        return GA_OK;
    }
    ga_path p;
    if (ga_path_setup_scale(&p, q, eps, 1, GA_KERNEL_DELTA, -800) != GA_OK)
        return GA_EDOM;
    if (p.L0 < -800) {
        /* delta <= P[Q > eps] <= exp(K(c) - c eps) (Chernoff, c > 0): below the double
         * range, so 0 is the correctly rounded value */
        res->val = res->err = 0;
        return GA_OK;
    }
    ga_result in;
    double ea = o->epsabs * M_PI * exp(-p.L0);
    if (!isfinite(ea))
        ea = DBL_MAX;
    int st = ga_path_integrate(&in, &p, ea, o->epsrel, o->max_evals, &w->quad);
    double v = in.val / M_PI, e = in.err / M_PI;
    res->val = v > 0 ? exp(p.L0 + log(v)) : 0.0;
    res->err = e > 0 ? exp(p.L0 + log(e)) : 0.0;
    if (res->val - res->err > 1 || !isfinite(res->val)) {
        /* inconsistent with delta <= 1: say so instead of clipping */
        res->val = 1;
        res->err = 1;
        return GA_ETOL;
    }
    if (res->val > 1) {
        res->err += res->val - 1;
        res->val = 1;
    }
    return st;
}

static int delta_tails(ga_result *res, const ga_gchisq *qa, const ga_gchisq *qb, double eps,
                       const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    /* P[Qa > eps] - e^eps P[Qb < -eps]; Qa = l under the first law, Qb = -l under the second */
    ga_gchisq_prob pa, pb;
    int s1 = ga_gchisq_prob_eval(&pa, qa, eps, o, w);
    int s2 = ga_gchisq_prob_eval(&pb, qb, -eps, o, w);
    double ee = exp(eps);
    res->val = pa.sf.val - ee * pb.cdf.val;
    res->err = pa.sf.err + ee * pb.cdf.err + 2 * DBL_EPSILON * (pa.sf.val + ee * pb.cdf.val);
    if (res->val < 0) { /* delta >= 0: move into range, keeping the truth covered */
        res->err += -res->val;
        res->val = 0;
    }
    return s1 ? s1 : s2;
}

void ga_pair_set_input_tv(ga_pair *p, double tv_x, double tv_y, double eta)
{
    p->in_tv[0] = tv_x;
    p->in_tv[1] = tv_y;
    p->la_err += eta;
}

void ga_pair_set_input_d2(ga_pair *p, double lo, double hi)
{
    p->in_d2[0] = lo;
    p->in_d2[1] = hi;
}

/* laws within total variation tv of the exact ones (in_tv): for every event S,
 * |P_X(S) - P_X'(S)| <= tv_X, so delta_{X,Y} moves by at most tv_X + e^eps tv_Y */
static void widen_input(ga_delta *out, const ga_pair *p, double eps)
{
    if (p->in_tv[0] == 0 && p->in_tv[1] == 0)
        return;
    double ee = exp(eps);
    out->xy.err += p->in_tv[0] + ee * p->in_tv[1];
    out->yx.err += p->in_tv[1] + ee * p->in_tv[0];
}

int ga_pair_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                  const ga_gchisq_opts *opts, ga_gchisq_work *w)
{
    ga_gchisq_opts o = ga_gchisq_opts_or_default(opts);
    memset(out, 0, sizeof *out);
    if (!isfinite(eps) || method < 0 || method > GA_DELTA_TAILS)
        return GA_EINVAL;
    out->method = method == GA_DELTA_AUTO ? GA_DELTA_DIRECT : method;
    if (p->ploss && method == GA_DELTA_TAILS && !(p->ploss->n == 1 && p->ploss->t[0].count == 1))
        return GA_EDOM;
    if (p->support == GA_SUPPORT_DIFFER && !p->ploss) {
        out->xy.val = out->yx.val = 1;
        widen_input(out, p, eps);
        return GA_OK;
    }
    ga_gchisq_work *own = w ? NULL : ga_gchisq_work_alloc(); /* NULL: one for this call */
    if (!w && !own)
        return GA_ENOMEM;
    if (!w)
        w = own;
    int s1, s2;
    if (p->ploss) {
        if (method == GA_DELTA_AUTO && p->ploss->n == 1 && p->ploss->t[0].count == 1)
            out->method = GA_DELTA_TAILS;
        s1 = ga_ploss_delta(&out->xy, &out->yx, p->ploss, eps, out->method, &o, &w->quad);
        s2 = GA_OK;
    } else {
        if (out->method == GA_DELTA_DIRECT) {
            s1 = delta_direct(&out->xy, p->lx, eps, &o, w);
            s2 = delta_direct(&out->yx, p->ly, eps, &o, w);
        } else {
            s1 = delta_tails(&out->xy, p->lx, p->ly, eps, &o, w);
            s2 = delta_tails(&out->yx, p->ly, p->lx, eps, &o, w);
        }
        /* the snapped eigenvalues and mean components: a relative first-order effect (the
         * loss moves by about la_err (z^2 + 1)/2; z^2 up to ~80 covers tails down to 1e-18) */
        double rel = p->la_err * (40 + fabs(eps));
        out->xy.err += rel * out->xy.val;
        out->yx.err += rel * out->yx.val;
        widen_input(out, p, eps);
    }
    ga_gchisq_work_free(own);
    return s1 ? s1 : s2;
}

typedef struct {
    const ga_pair *p;
    const ga_gchisq_opts *o;
    ga_gchisq_work *w;
    double logt;
    ga_delta last;
    int status;
} eps_param;

static double eps_fn(double eps, void *param)
{
    eps_param *e = param;
    if (e->o->deadline > 0 && ga_expired(e->o->deadline)) {
        e->status = GA_ETIME; /* (the search ends: no value) */
        return 0;
    }
    int s = ga_pair_delta(&e->last, e->p, eps, GA_DELTA_AUTO, e->o, e->w);
    if (s && !e->status)
        e->status = s;
    double m = fmax(e->last.xy.val, e->last.yx.val);
    return (m > 0 ? log(m) : -745.0) - e->logt;
}

int ga_pair_epsilon(ga_result *eps, int *direction, const ga_pair *p, double delta,
                    const ga_gchisq_opts *opts, ga_gchisq_work *w)
{
    ga_gchisq_opts o = ga_gchisq_opts_or_default(opts);
    eps->val = eps->err = 0;
    *direction = 0;
    if (!(delta > 0 && delta < 1))
        return GA_EINVAL;
    if (p->support == GA_SUPPORT_DIFFER) {
        eps->val = INFINITY;
        return GA_EDOM;
    }
    eps_param ep = {p, &o, w, log(delta), {{0, 0}, {0, 0}, 0}, GA_OK};
    double f0 = eps_fn(0, &ep);
    if (ep.status != GA_OK && ep.status != GA_ETOL) { /* no value to search on */
        eps->val = NAN;
        eps->err = INFINITY;
        return ep.status;
    }
    if (f0 <= 0) {
        eps->val = 0;
        eps->err = 0;
        return ep.status;
    }
    double lo = 0, hi = 1, fhi = eps_fn(hi, &ep);
    while (fhi > 0 && hi < 1e300 && (ep.status == GA_OK || ep.status == GA_ETOL)) {
        lo = hi; /* doubling: at most ~1000 evaluations */
        hi *= 2;
        fhi = eps_fn(hi, &ep);
    }
    if (ep.status != GA_OK && ep.status != GA_ETOL) {
        eps->val = NAN;
        eps->err = INFINITY;
        return ep.status;
    }
    if (fhi > 0)
        return GA_EMAXITER;
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s)
        return GA_ENOMEM;
    gsl_function F = {eps_fn, &ep};
    gsl_root_fsolver_set(s, &F, lo, hi);
    double x = 0.5 * (lo + hi);
    for (int it = 0; it < 200; it++) {
        gsl_root_fsolver_iterate(s);
        x = gsl_root_fsolver_root(s);
        lo = gsl_root_fsolver_x_lower(s);
        hi = gsl_root_fsolver_x_upper(s);
        if (gsl_root_test_interval(lo, hi, 0, 1e-13) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    /* at the root: which direction binds, and the effect of the delta error estimates:
     * d log delta / d eps by a difference quotient over the final bracket (or a small step) */
    eps_fn(x, &ep);
    ga_delta at = ep.last;
    *direction = at.xy.val >= at.yx.val ? 1 : 2;
    double h = fmax(hi - lo, 1e-6 * fmax(x, 1e-3));
    double f1 = eps_fn(x + h, &ep), f2 = eps_fn(fmax(x - h, 0), &ep);
    double slope = (f1 - f2) / (x + h - fmax(x - h, 0));
    const ga_result *b = *direction == 1 ? &at.xy : &at.yx;
    double relerr = b->val > 0 ? b->err / b->val : 0;
    eps->val = x;
    eps->err = (hi - lo) + (slope < 0 ? relerr / -slope : 0) + 4 * DBL_EPSILON * x;
    return ep.status;
}

static int renyi_one(ga_result *r, const ga_gchisq *q, double alpha)
{
    double s = alpha - 1, smin, smax, K;
    ga_gchisq_domain(&smin, &smax, q);
    if (!(s < smax)) {
        r->val = INFINITY;
        r->err = 0;
        return GA_OK;
    }
    if (ga_gchisq_cgf(&K, NULL, NULL, q, s) != GA_OK) {
        r->val = INFINITY;
        r->err = 0;
        return GA_OK;
    }
    /* rounding: a few eps times the sum of the magnitudes of the summands of K */
    double mag = fabs(q->offset * s) + 0.5 * q->sigma2 * s * s;
    for (size_t j = 0; j < q->n; j++) {
        const ga_gchisq_term *t = &q->t[j];
        double u = 1 - 2 * t->a * s;
        mag += fabs(0.5 * t->nu * log(u)) + 0.5 * t->b2 * s * s / u +
               t->nu * fabs(t->a * s) / u; /* conditioning of log(1 - 2 a s) */
    }
    r->val = K / s;
    r->err = 8 * DBL_EPSILON * mag / s;
    return GA_OK;
}

/* r covers [lo.val - lo.err, hi.val + hi.err] too (lo, hi: the values at the neighbouring
 * orders; D is nondecreasing in alpha) */
static void renyi_cover(ga_result *r, const ga_result *lo, const ga_result *hi)
{
    if (!isfinite(r->val))
        return; /* +inf at alpha: +inf beyond it too */
    double up = isfinite(hi->val) ? ga_up(hi->val + hi->err) : INFINITY;
    double dn = ga_dn(lo->val - lo->err);
    r->err = fmax(r->err, fmax(ga_up(up - r->val), ga_up(r->val - dn)));
}

int ga_pair_renyi_near(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    int rc = ga_pair_renyi(xy, yx, p, alpha);
    if (rc != GA_OK && rc != GA_ETOL)
        return rc;
    double a_lo = nextafter(alpha, 0), a_hi = nextafter(alpha, INFINITY);
    ga_result lx = {0, 0}, ly = {0, 0}, hx, hy; /* below alpha = 1 + ulp: D >= 0 */
    if (a_lo > 1 && (rc = ga_pair_renyi(&lx, &ly, p, a_lo)) != GA_OK && rc != GA_ETOL)
        return rc;
    if ((rc = ga_pair_renyi(&hx, &hy, p, a_hi)) != GA_OK && rc != GA_ETOL)
        return rc;
    renyi_cover(xy, &lx, &hx);
    renyi_cover(yx, &ly, &hy);
    return rc;
}

int ga_pair_renyi(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    if (!(alpha > 1) || !isfinite(alpha))
        return GA_EINVAL;
    if (p->ploss)
        return ga_ploss_renyi(xy, yx, p->ploss, alpha);
    if (p->nblocks) { /* the divergences of independent blocks add */
        xy->val = yx->val = xy->err = yx->err = 0;
        for (size_t b = 0; b < p->nblocks; b++) {
            ga_result bx, by;
            ga_pair_renyi(&bx, &by, p->blocks[b], alpha);
            xy->val += bx.val;
            yx->val += by.val;
            xy->err += bx.err + 2 * DBL_EPSILON * fabs(xy->val);
            yx->err += by.err + 2 * DBL_EPSILON * fabs(yx->val);
        }
        if (!isfinite(xy->val))
            xy->err = 0;
        if (!isfinite(yx->val))
            yx->err = 0;
        return GA_OK;
    }
    if (p->support == GA_SUPPORT_DIFFER) {
        xy->val = yx->val = INFINITY;
        xy->err = yx->err = 0;
        return GA_OK;
    }
    renyi_one(xy, p->lx, alpha);
    renyi_one(yx, p->ly, alpha);
    /* What renyi_one cannot see: the errors of the reduction in the forms' parameters,
     * carried to first order. The eigenvalues have an absolute error dl = k eps max|lambda|
     * (backward-stable eigensolver), so each a_j (lambda/2 under X, -lambda/(2 tau) under
     * Y) is off by at most da = dl/(2 tau_min^2) + la_err/2, each b2_j (r mt^2 tau, r mt^2 /
     * tau^2) relatively by rho = 2 dl/tau_min + la_err (la_err: snapping and conditioning),
     * the offsets by r sum (dl/(2 tau_i)) plus their rounding (summands that can cancel).
     * With u_j = 1 - 2 a_j s, dK/da_j = nu_j s/u_j + b2_j s^3/u_j^2 and dK/db2_j =
     * s^2/(2 u_j), so D = K/s moves by at most the sum of these over s. */
    double lmax = 0, tmin = INFINITY, oerr = 0, omag = 0;
    for (size_t i = 0; i < p->k; i++) {
        lmax = fmax(lmax, fabs(p->lambda[i]));
        tmin = fmin(tmin, 1 + p->lambda[i]);
    }
    double dl = 4 * DBL_EPSILON * lmax; /* as in tau_rel_err */
    for (size_t i = 0; i < p->k; i++) {
        double tau = 1 + p->lambda[i], m2 = p->mt[i] * p->mt[i];
        omag += 0.5 * fabs(log1p(p->lambda[i])) + m2 * (1 + 1 / tau);
        oerr += dl / (2 * tau) + m2 * (2 * dl / tmin + p->la_err);
    }
    oerr = p->r * (oerr + 4 * DBL_EPSILON * omag);
    double da = dl / (2 * tmin * tmin) + 0.5 * p->la_err, rho = 2 * dl / tmin + p->la_err;
    for (int dir = 0; dir < 2; dir++) {
        ga_result *res = dir ? yx : xy;
        const ga_gchisq *q = dir ? p->ly : p->lx;
        if (!isfinite(res->val))
            continue;
        double sa = alpha - 1, dk = 0;
        for (size_t j = 0; j < q->n; j++) {
            const ga_gchisq_term *t = &q->t[j];
            double u = 1 - 2 * t->a * sa;
            dk += (t->nu * sa / u + t->b2 * sa * sa * sa / (u * u)) * da +
                  sa * sa / (2 * u) * t->b2 * rho;
        }
        res->err += dk / sa + oerr;
    }
    return GA_OK;
}

double ga_rdp_to_dp_mironov(double alpha, double eps_alpha, double delta)
{
    return eps_alpha + log(1 / delta) / (alpha - 1);
}

double ga_rdp_to_dp_improved(double alpha, double eps_alpha, double delta)
{
    return eps_alpha + log((alpha - 1) / alpha) - (log(delta) + log(alpha)) / (alpha - 1);
}

int ga_pair_profile_grid(double *eps, size_t n, const ga_pair *p, const ga_gchisq_opts *opts,
                         ga_gchisq_work *w)
{
    if (n < 2)
        return GA_EINVAL;
    ga_result e;
    int dir;
    double hi = 1;
    if (ga_pair_epsilon(&e, &dir, p, 1e-12, opts, w) == GA_OK && e.val > 0)
        hi = e.val;
    eps[0] = 0;
    for (size_t i = 1; i < n; i++)
        eps[i] = hi * pow(10.0, -3.0 + 3.0 * (double)(i - 1) / (double)(n > 2 ? n - 2 : 1));
    return GA_OK;
}

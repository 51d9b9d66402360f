/*
 * type_gaussian.c - the Gaussian pair type: a pair of Gaussian laws reduced to independent
 * coordinates (reduce.c; the method is stated in pair.c). delta by the direct Bromwich
 * formula on the loss forms or by the two tails, the analytic Gaussian mechanism formula
 * for a pure normal loss; Renyi divergences from the forms' cumulant generating functions;
 * certified delta against the exact inputs (cert_gauss.c) and certified Renyi divergences
 * in closed form on their balls.
 */
#include "pair/cert_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* delta of a Gaussian pair or a product (the loss forms lx, ly): the direct formula, or the
 * two tails; widened by the reduction's snapping (la_err) and by the input's distance to
 * the exact laws (in_tv) */
int pr_gaussian_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                      const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    (void)method;
    if (p->support == GA_SUPPORT_DIFFER) {
        out->xy.val = out->yx.val = 1;
        widen_input(out, p, eps);
        return GA_OK;
    }
    int s1, s2;
    if (out->method == GA_DELTA_DIRECT) {
        s1 = delta_direct(&out->xy, p->lx, eps, o, w);
        s2 = delta_direct(&out->yx, p->ly, eps, o, w);
    } else {
        s1 = delta_tails(&out->xy, p->lx, p->ly, eps, o, w);
        s2 = delta_tails(&out->yx, p->ly, p->lx, eps, o, w);
    }
    /* the snapped eigenvalues and mean components: a relative first-order effect (the
     * loss moves by about la_err (z^2 + 1)/2; z^2 up to ~80 covers tails down to 1e-18) */
    double rel = p->la_err * (40 + fabs(eps));
    out->xy.err += rel * out->xy.val;
    out->yx.err += rel * out->yx.val;
    widen_input(out, p, eps);
    return s1 ? s1 : s2;
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

/* D_alpha of each direction from the loss forms' cumulant generating functions (renyi_one),
 * with the reduction's errors carried to first order */
static int gaussian_renyi(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
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

/* both directions of the certified Renyi divergence, each until accurate enough */
typedef struct {
    arb_mat_struct *Sx, *Sy, *dm, *dmn;
    arb_srcptr alpha;
    arb_ptr res;
    double r;
    slong want;
    ga_interval *xy, *yx;
    int done[2];
} renyi_ctx;

static int renyi_step(void *vc, slong prec)
{
    renyi_ctx *c = vc;
    for (int dir = 0; dir < 2; dir++) {
        if (c->done[dir])
            continue;
        ga_interval *iv = dir ? c->yx : c->xy;
        int s = dir ? pc_renyi_ball(c->res, c->Sy, c->Sx, c->dmn, c->alpha, c->r, prec)
                    : pc_renyi_ball(c->res, c->Sx, c->Sy, c->dm, c->alpha, c->r, prec);
        if (s == 1) {
            iv->lo = iv->hi = INFINITY;
        } else if (s == 0) {
            ga_arb_bounds(iv, c->res);
            if (arb_rel_accuracy_bits(c->res) < c->want && !arb_contains_zero(c->res))
                continue; /* too wide: more precision */
        } else {
            continue;
        }
        c->done[dir] = 1;
    }
    return c->done[0] && c->done[1] ? GA_OK : GA_EPREC;
}

/* a Gaussian pair (or a product): certified against the exact inputs (cert_gauss.c); a
 * pair reduced with the roles swapped is certified as (Y, X) and the answers swapped back */
int pr_gaussian_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                           const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    if (!p->swapped)
        return pc_delta_cert(out, p, in, txt, eps, opts);
    /* the reduction whitened by X: certify the pair (Y, X) it describes, swap the answers */
    ga_pair_input in2;
    ga_pair_text t2;
    const ga_pair_text *tp;
    pc_swap_input(&in2, &t2, &tp, in, txt);
    int rc = pc_delta_cert(out, p, &in2, tp, eps, opts);
    ga_interval iv = out->xy;
    out->xy = out->yx;
    out->yx = iv;
    char s[sizeof out->xy_lo];
    memcpy(s, out->xy_lo, sizeof s);
    memcpy(out->xy_lo, out->yx_lo, sizeof s);
    memcpy(out->yx_lo, s, sizeof s);
    memcpy(s, out->xy_hi, sizeof s);
    memcpy(out->xy_hi, out->yx_hi, sizeof s);
    memcpy(out->yx_hi, s, sizeof s);
    double b = out->la_bound_xy;
    out->la_bound_xy = out->la_bound_yx;
    out->la_bound_yx = b;
    return rc;
}

/* certified D_alpha of a Gaussian pair in closed form on the exact inputs' balls
 * (pc_renyi_ball), both directions escalated together; laws known only within a total
 * variation distance have none, except a released mean shift's (alpha r D2 / 2) */
static int gaussian_renyi_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                               const ga_pair_input *in, const ga_pair_text *txt,
                               const char *alpha_txt, const ga_cert_opts *opts)
{
    ga_cert_opts o = *opts;
    double alpha;
    ga_decimal_to_double(&alpha, alpha_txt); /* (checked by ga_pair_renyi_cert) */
    if (p->support != GA_SUPPORT_FULL)
        return GA_EDOM;
    if (p->in_tv[0] > 0 || p->in_tv[1] > 0) {
        /* laws known within a total variation distance: no divergence from them; a released
         * mean shift's is alpha r D2 / 2 both ways, D2 enclosed from the exact inputs */
        if (!(p->in_d2[1] > 0))
            return GA_EDOM;
        double a = alpha; /* (the decimal's double: the interval is widened by its ulp) */
        double lo = ga_dn(ga_dn(ga_dn(nextafter(a, 0) * p->r) * p->in_d2[0]) / 2),
               hi = ga_up(ga_up(ga_up(nextafter(a, INFINITY) * p->r) * p->in_d2[1]) / 2);
        *xy = *yx = (ga_interval){lo, hi};
        return GA_OK;
    }
    slong k = (slong)in->d;
    int rc = GA_EPREC;
    arb_mat_t Sx, Sy, dm, dmn;
    arb_t a, res, u;
    arb_mat_init(Sx, k, k);
    arb_mat_init(Sy, k, k);
    arb_mat_init(dm, k, 1);
    arb_mat_init(dmn, k, 1);
    arb_init(a);
    arb_init(res);
    arb_init(u);
    arb_set_str(a, alpha_txt, PARSE_PREC); /* the exact decimal (syntax checked above) */
    for (slong i = 0; i < k * k; i++)
        if (ga_cert_entry(arb_mat_entry(Sx, i / k, i % k), txt ? txt->s_x : NULL, in->s_x, (size_t)i) ||
            ga_cert_entry(arb_mat_entry(Sy, i / k, i % k), txt ? txt->s_y : NULL, in->s_y, (size_t)i)) {
            rc = GA_EINVAL;
            goto cleanup;
        }
    for (slong i = 0; i < k; i++) {
        if (ga_cert_entry(res, txt ? txt->mu_x : NULL, in->mu_x, (size_t)i) ||
            ga_cert_entry(u, txt ? txt->mu_y : NULL, in->mu_y, (size_t)i)) {
            rc = GA_EINVAL;
            goto cleanup;
        }
        arb_sub(arb_mat_entry(dm, i, 0), res, u, PARSE_PREC);
        arb_neg(arb_mat_entry(dmn, i, 0), arb_mat_entry(dm, i, 0));
    }
    renyi_ctx c = {Sx, Sy, dm, dmn, a, res, p->r, pc_want_bits(o.digits), xy, yx, {0, 0}};
    rc = ga_arb_escalate(NULL, renyi_step, &c, 128, o.max_prec, o.deadline);
cleanup:
    arb_mat_clear(Sx);
    arb_mat_clear(Sy);
    arb_mat_clear(dm);
    arb_mat_clear(dmn);
    arb_clear(a);
    arb_clear(res);
    arb_clear(u);
    return rc;
}

/* P_X[S], P_Y[S] of S = {l > eps} (dir 1: the upper tail of l under X, the lower tail of
 * -l under Y) or S = {l < -eps} (dir 2), from the loss forms */
int pr_gaussian_event(double *px, double *py, const ga_pair *p, double eps, int dir,
                      ga_gchisq_work *w)
{
    ga_gchisq_prob qx, qy;
    int sx, sy;
    if (dir == 1) {
        sx = ga_gchisq_prob_eval(&qx, p->lx, eps, NULL, w);
        sy = ga_gchisq_prob_eval(&qy, p->ly, -eps, NULL, w);
        *px = qx.sf.val;
        *py = qy.cdf.val;
    } else {
        sy = ga_gchisq_prob_eval(&qy, p->ly, eps, NULL, w);
        sx = ga_gchisq_prob_eval(&qx, p->lx, -eps, NULL, w);
        *px = qx.cdf.val;
        *py = qy.sf.val;
    }
    /* a probability that could not be evaluated has no number */
    if (sx != GA_OK && sx != GA_ETOL && sx != GA_EUNDERFLOW)
        *px = NAN;
    if (sy != GA_OK && sy != GA_ETOL && sy != GA_EUNDERFLOW)
        *py = NAN;
    return GA_OK;
}

const ga_pair_type ga_pair_type_gaussian = {
    "gaussian", pr_gaussian_delta, gaussian_renyi, pr_gaussian_delta_cert, gaussian_renyi_cert,
    pr_gaussian_event, NULL, NULL, NULL, PR_METHODS_GAUSS, NULL,
    NULL,
    0,
};

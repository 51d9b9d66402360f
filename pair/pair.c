/*
 * pair.c - a pair's public entry points: delta, epsilon (the root of delta in eps), Renyi
 * divergences and the pair's accessors. Each checks its arguments and calls through the
 * pair's row of the type table (internal.h; the rows are type_*.c). The exact privacy profile
 * of the Gaussian type (doc/design.md, sections 1 and 2), which reduce.c and type_gaussian.c
 * implement:
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

int pr_renyi_none(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    (void)p;
    (void)alpha;
    xy->val = yx->val = NAN;
    xy->err = yx->err = INFINITY;
    return GA_EDOM;
}

void pr_input_pair(ga_pair *p, const ga_pair_type *type, void *input)
{
    p->type = type;
    p->input = input;
    p->ninput = 1;
    p->r = 1;
    p->d = p->k = 1;
    p->support = GA_SUPPORT_FULL;
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
    if (p->type && p->type->free) /* (first: the variant's data may hang on input) */
        p->type->free(p);
    free(p->input);
    free(p->dcache);
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

int ga_pair_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                  const ga_gchisq_opts *opts, ga_gchisq_work *w)
{
    ga_gchisq_opts o = ga_gchisq_opts_or_default(opts);
    memset(out, 0, sizeof *out);
    if (!isfinite(eps) || method < 0 || method > GA_DELTA_TAILS)
        return GA_EINVAL;
    out->method = method == GA_DELTA_AUTO ? GA_DELTA_DIRECT : method;
    ga_gchisq_work *own = w ? NULL : ga_gchisq_work_alloc(); /* NULL: one for this call */
    if (!w && !own)
        return GA_ENOMEM;
    int rc = p->type->delta(out, p, eps, method, &o, w ? w : own);
    ga_gchisq_work_free(own);
    return rc;
}

#define EPS_HIST 64

typedef struct {
    const ga_pair *p;
    const ga_gchisq_opts *o;
    ga_gchisq_work *w;
    double logt;
    ga_delta last; /* the last evaluation (asked for), at eps = at with the value val */
    int status;
    double at, val;
    double relerr; /* the relative error estimate of its larger direction */
    int full;      /* values, not sides: the evaluations that set the error (slope, ends) */
    struct {
        double x;
        ga_delta d;
    } hist[EPS_HIST]; /* the last EPS_HIST evaluations (a ring) */
    unsigned nh;
} eps_param;

/* e->last, evaluated at eps, becomes the last evaluation: its value and relative error */
static double eps_take(eps_param *e, double eps)
{
    const ga_result *b = e->last.xy.val >= e->last.yx.val ? &e->last.xy : &e->last.yx;
    e->relerr = b->val > 0 ? b->err / b->val : 0;
    e->at = eps;
    e->val = (b->val > 0 ? log(b->val) : -745.0) - e->logt;
    return e->val;
}

static double eps_fn(double eps, void *param)
{
    eps_param *e = param;
    for (unsigned i = 0; i < EPS_HIST && i < e->nh; i++)
        if (e->hist[i].x == eps) { /* (the search, the bracket and the slope ask again) */
            e->last = e->hist[i].d;
            return eps_take(e, eps);
        }
    if (e->o->deadline > 0 && ga_expired(e->o->deadline)) {
        e->status = GA_ETIME; /* (the search ends: no value) */
        return 0;
    }
    /* only the side of the claimed delta matters here: an engine that brackets may stop
     * once its bracket excludes it (far from the root), its value then coarser than asked */
    if (e->w) {
        e->w->quad.decide = e->full ? 0 : exp(e->logt);
        e->w->quad.decided = 0;
    }
    int s = ga_pair_delta(&e->last, e->p, eps, GA_DELTA_AUTO, e->o, e->w);
    int decided = e->w && e->w->quad.decided;
    if (e->w)
        e->w->quad.decide = 0;
    if (s && !e->status)
        e->status = s;
    if (decided) { /* (not kept: asked again, near the root, it is computed in full) */
        double f = eps_take(e, eps);
        e->relerr = 0; /* (its coarse error must not set the search's tolerance) */
        return f;
    }
    e->hist[e->nh % EPS_HIST].x = eps;
    e->hist[e->nh % EPS_HIST].d = e->last;
    e->nh++;
    return eps_take(e, eps);
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
    if (p->type->epsilon) {
        int rc = p->type->epsilon(eps, direction, p, delta, &o, w);
        if (rc != GA_EDOM)
            return rc;
        eps->val = eps->err = 0;
        *direction = 0;
    }
    eps_param ep = {.p = p, .o = &o, .w = w, .logt = log(delta), .status = GA_OK, .at = NAN};
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
    double x = 0.5 * (lo + hi), px = NAN, pf = NAN, prevx = NAN, flo = NAN;
    ga_delta at = ep.last;
    int tight = 0;
    for (int it = 0; it < 200; it++) {
        gsl_root_fsolver_iterate(s);
        x = gsl_root_fsolver_root(s);
        lo = gsl_root_fsolver_x_lower(s);
        hi = gsl_root_fsolver_x_upper(s);
        /* Where delta's own error moves the root by more than 1e-9 (the slope from a secant
         * of the last two evaluations), the root is wanted to a tenth of that only: once two
         * estimates agree to it, x - tol and x + tol are tried as the bracket (Brent's own
         * bracket keeps an old end for long). Otherwise to 1e-13 relative. */
        double tol = 0, sl = (ep.val - pf) / (ep.at - px);
        if (ep.relerr > 0 && isfinite(sl) && sl < 0 && ep.relerr / -sl > 1e-9)
            tol = 0.1 * ep.relerr / -sl;
        px = ep.at;
        pf = ep.val;
        if (tol > 0 && fabs(x - prevx) <= tol) {
            eps_fn(x, &ep);
            ga_delta atx = ep.last;
            double a = fmax(lo, x - tol), c = fmin(hi, x + tol);
            ep.full = 1; /* (their values set the slope) */
            double fa = eps_fn(a, &ep), fc = eps_fn(c, &ep);
            ep.full = 0;
            if (ep.status != GA_OK && ep.status != GA_ETOL)
                break;
            if (fa >= 0 && fc <= 0 && c > a) {
                lo = a;
                hi = c;
                flo = fa;
                fhi = fc;
                at = atx;
                tight = 1;
                break;
            }
        }
        prevx = x;
        if (gsl_root_test_interval(lo, hi, 0, 1e-13) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    /* at the root: which direction binds, and the effect of the delta error estimates:
     * d log delta / d eps by a difference quotient over the final bracket (or a small step) */
    double slope;
    ep.full = 1;
    if (tight) {
        slope = (fhi - flo) / (hi - lo);
    } else {
        eps_fn(x, &ep);
        at = ep.last;
        double h = fmax(hi - lo, 1e-6 * fmax(x, 1e-3));
        double f1 = eps_fn(x + h, &ep), f2 = eps_fn(fmax(x - h, 0), &ep);
        slope = (f1 - f2) / (x + h - fmax(x - h, 0));
    }
    *direction = at.xy.val >= at.yx.val ? 1 : 2;
    const ga_result *b = *direction == 1 ? &at.xy : &at.yx;
    double relerr = b->val > 0 ? b->err / b->val : 0;
    eps->val = x;
    /* delta's relative error r moves the root by log(1/(1 - r)) / |slope| at most (delta
     * within a factor 1 - r of its value, log delta linear in eps to the slope's accuracy:
     * 5% more covers the slope's change over that distance) */
    double shift = slope < 0 ? (relerr < 1 ? -1.05 * log1p(-relerr) / -slope : INFINITY) : 0;
    eps->err = (hi - lo) + shift + 4 * DBL_EPSILON * x;
    return ep.status;
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

int ga_pair_mirrors(const ga_pair *p, const ga_pair *q)
{
    return p && q && p->type->mirrors && p->type->mirrors(p, q);
}

int ga_pair_in_order(const ga_pair *p)
{
    return p->type->in_order;
}

const char *ga_pair_methods(const ga_pair *p)
{
    return p ? p->type->methods : ga_pair_type_gaussian.methods;
}

const char *ga_pair_no_renyi(const ga_pair *p)
{
    return p->type->no_renyi ? p->type->no_renyi(p) : NULL;
}

int ga_pair_describe_event(char *text, size_t n, double *px, double *py, const ga_pair *p,
                           double eps, int dir)
{
    if (dir != 1 && dir != 2)
        return GA_EINVAL;
    if (!p->type->describe || !p->input)
        return GA_EDOM;
    *px = *py = NAN;
    return p->type->describe(text, n, px, py, p, eps, dir);
}

int ga_pair_event_probs(double *px, double *py, const ga_pair *p, double eps, int dir,
                        ga_gchisq_work *w)
{
    *px = *py = NAN;
    if (dir != 1 && dir != 2)
        return GA_EINVAL;
    if (!p->type->event)
        return GA_EDOM;
    ga_gchisq_work *own = w ? NULL : ga_gchisq_work_alloc(); /* NULL: one for this call */
    if (!w && !own)
        return GA_ENOMEM;
    int rc = p->type->event(px, py, p, eps, dir, w ? w : own);
    ga_gchisq_work_free(own);
    return rc;
}

int ga_pair_renyi(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    if (!(alpha > 1) || !isfinite(alpha))
        return GA_EINVAL;
    return p->type->renyi(xy, yx, p, alpha);
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
    int st = ga_pair_epsilon(&e, &dir, p, 1e-12, opts, w); /* (ETOL: an estimate still) */
    if ((st == GA_OK || st == GA_ETOL) && e.val > 0 && isfinite(e.val))
        hi = e.val;
    eps[0] = 0;
    for (size_t i = 1; i < n; i++)
        eps[i] = hi * pow(10.0, -3.0 + 3.0 * (double)(i - 1) / (double)(n > 2 ? n - 2 : 1));
    return GA_OK;
}

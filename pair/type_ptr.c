/*
 * type_ptr.c - the pair type of propose-test-release ridge releases (pair/ptr.c states the
 * bounds): the upper bound (the release with its ridge level) or the lower bound (one event on
 * the release alone) of a neighbour's pair. Estimates are the middle of the double-precision
 * bracket with half its width as the error (cells refined to 1e-3 of the value); certified
 * values the bracket in Arb on the cells a double evaluation to 1e-3 ended with (GA_OK at any
 * width: the cells', which more precision does not narrow).
 */
#include "numerics/arb.h"
#include "pair/internal.h"
#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTR_TOL 1e-3          /* estimates: the bracket's relative width */
#define PTR_MAXCELLS 4096
#define PTR_CERT_TOL 1e-3     /* certified: the cells' target */
#define PTR_CERT_MAXCELLS 2048

static int pt_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                    const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    (void)w;
    if (method != GA_DELTA_AUTO && method != GA_DELTA_DIRECT)
        return GA_EDOM;
    const ga_ptr *P = p->input;
    int rc = GA_OK;
    for (int dir = 0; dir < 2 && rc == GA_OK; dir++) {
        int pbig = dir ? !P->in.big_is_x : P->in.big_is_x;
        double lo, hi;
        rc = ga_ptr_delta(&lo, &hi, NULL, P, pbig, eps, PTR_TOL, PTR_MAXCELLS, o->deadline);
        if (rc == GA_OK && ga_expired(o->deadline))
            rc = GA_ETIME;
        ga_result *r = dir ? &out->yx : &out->xy;
        r->val = 0.5 * (lo + hi);
        r->err = 0.5 * (hi - lo) * (1 + 1e-9) + 1e-12 * hi + 1e-300;
    }
    out->method = GA_DELTA_DIRECT;
    return rc;
}

/* one direction's certified bracket at the eps ball e (its double middle em) */
static int cert_dir(ga_interval *iv, const ga_ptr *P, int pbig, const arb_t e, double em,
                    double deadline)
{
    ga_ptr_cells cells = {NULL, 0, 0};
    double lo, hi;
    int rc = ga_ptr_delta(&lo, &hi, &cells, P, pbig, em, PTR_CERT_TOL, PTR_CERT_MAXCELLS,
                          deadline);
    if (rc == GA_OK && !P->in.bound && !(P->t0 > 0)) {
        /* x = 0: equal laws, delta = max(0, 1 - e^eps) */
        arb_t v, z;
        arb_init(v);
        arb_init(z);
        arb_expm1(v, e, 128);
        arb_neg(v, v);
        arb_max(v, v, z, 128);
        ga_arb_interval(iv, v);
        arb_clear(v);
        arb_clear(z);
    } else if (rc == GA_OK) {
        rc = GA_EPREC;
        for (slong prec = 128; prec <= 1024 && rc == GA_EPREC && !ga_expired(deadline); prec *= 2)
            rc = ga_ptr_delta_arb(iv, P, pbig, e, &cells, prec);
    }
    free(cells.y);
    if (rc == GA_OK && ga_expired(deadline))
        rc = GA_ETIME;
    return rc;
}

static int pt_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *pin,
                         const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    (void)pin;
    (void)txt;
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    const ga_ptr *P = p->input;
    memset(out, 0, sizeof *out);
    arb_t e;
    arb_init(e);
    int rc = arb_set_str(e, eps, 256) ? GA_EINVAL : GA_OK;
    ga_interval ei;
    ga_arb_bounds(&ei, e);
    if (rc == GA_OK && !(ei.lo <= ei.hi))
        rc = GA_EINVAL;
    for (int dir = 0; dir < 2 && rc == GA_OK; dir++) {
        int pbig = dir ? !P->in.big_is_x : P->in.big_is_x;
        ga_interval *iv = dir ? &out->yx : &out->xy;
        rc = cert_dir(iv, P, pbig, e, 0.5 * (ei.lo + ei.hi), o.deadline);
        ga_fmt_bound(dir ? out->yx_lo : out->xy_lo, sizeof out->xy_lo, iv->lo, 0, o.digits + 3);
        ga_fmt_bound(dir ? out->yx_hi : out->xy_hi, sizeof out->xy_hi, iv->hi, 1, o.digits + 3);
    }
    arb_clear(e);
    if (rc != GA_OK) {
        out->xy.lo = out->yx.lo = 0;
        out->xy.hi = out->yx.hi = 1;
    }
    out->precision_bits = 128;
    return rc;
}

static const char *pt_no_renyi(const ga_pair *p)
{
    return ((const ga_ptr *)p->input)->in.bound
               ? "the propose-test-release release with its ridge level (an upper bound of the "
                 "release's profile)"
               : "one event on the propose-test-release release (a lower bound of its profile)";
}

static int pt_describe(char *text, size_t n, double *px, double *py, const ga_pair *p,
                       double eps, int dir)
{
    const ga_ptr *P = p->input;
    int pbig = dir == 1 ? P->in.big_is_x : !P->in.big_is_x;
    *px = *py = NAN;
    if (P->in.bound) {
        snprintf(text, n, "an upper bound, not an event: the release together with its ridge "
                 "level (the test's outcome), whose delta_%s(%.6g) bounds the release's",
                 dir == 1 ? "XY" : "YX", eps);
        return GA_OK;
    }
    ga_ptr_cells cells = {NULL, 0, 0};
    double lo, hi;
    int rc = ga_ptr_delta(&lo, &hi, &cells, P, pbig, eps, 1e-2, 256, 0);
    free(cells.y);
    if (rc != GA_OK)
        return rc;
    snprintf(text, n, "T = sum over the %.0f released columns m_j of (u^T m_j)^2, u = (A' + "
             "%.6g I)^-1 x (A' the Gram matrix without the row x, %.6g the ridge at the test's "
             "mean), says '%s the row' when T %s %.6g (scaled so that T ~ chi^2 at that ridge "
             "without the row); its delta is in [%.6g, %.6g]", P->in.columns, P->rho0, P->rho0,
             pbig ? "with" : "without", pbig ? ">" : "<", cells.c * P->t0, lo, hi);
    return GA_OK;
}

int ga_pair_reduce_ptr(ga_pair **out, const ga_ptr_input *in, char *msg, size_t msglen)
{
    *out = NULL;
    const char *bad =
        !(in->columns >= 1 && in->columns <= 1e5 && in->columns == floor(in->columns))
            ? "columns must be a whole number in 1..100000"
        : !(in->test_sigma > 0 && in->test_sigma < INFINITY) ? "test_sigma must be positive"
        : !(in->test_laplace == 0 || in->test_laplace == 1)   ? "test_laplace must be 0 or 1"
        : !(in->margin >= 0 && in->margin < INFINITY)        ? "margin must be >= 0"
        : !(in->target > 0 && in->target < INFINITY)         ? "target must be positive"
        : !(in->scale > 0 && in->scale < INFINITY)           ? "scale must be positive"
        : !(isfinite(in->lmin_big) && isfinite(in->lmin_small)) ? "the test means must be finite"
        : !(in->d >= 1 && in->d <= 20000 && in->mu && in->c2) ? "the dimension must be in 1..20000"
        : NULL;
    for (size_t i = 0; !bad && i < in->d; i++)
        if (!(in->mu[i] >= 0 && in->mu[i] < INFINITY && in->c2[i] >= 0 && in->c2[i] < INFINITY))
            bad = "eigenvalues and components must be finite and >= 0";
    if (bad) {
        ga_msg(msg, msglen, "propose-test-release pair: %s", bad);
        return GA_EINVAL;
    }
    ga_pair *p = calloc(1, sizeof *p);
    ga_ptr *P = calloc(1, sizeof *P + 2 * in->d * sizeof(double));
    if (!p || !P) {
        free(p);
        free(P);
        ga_msg(msg, msglen, "%s", "out of memory building a propose-test-release pair");
        return GA_ENOMEM;
    }
    double *a = (double *)(P + 1);
    memcpy(a, in->mu, in->d * sizeof *a);
    memcpy(a + in->d, in->c2, in->d * sizeof *a);
    P->in = *in;
    P->in.mu = a;
    P->in.c2 = a + in->d;
    ga_ptr_lower_dir(P);
    pr_input_pair(p, &ga_pair_type_ptr, P);
    p->r = in->columns;
    *out = p;
    return GA_OK;
}

const ga_pair_type ga_pair_type_ptr = {
    "propose-test-release", pt_delta, pr_renyi_none, pt_delta_cert, NULL, NULL, NULL,
    pt_describe, pt_no_renyi,
    "a propose-test-release ridge release: the noisy smallest eigenvalue sets the ridge; at a "
    "fixed ridge the neighbours' pair is two chi^2_r tails (the rank-one covariance change); "
    "the upper bound releases the ridge level too (its atoms exact, the test's value integrated "
    "over cells on which the integrand is monotone), the lower bound is one event on the "
    "release's statistic along the changed row; both are rigorous brackets (Arb's erfc and "
    "incomplete gamma on the cells), the estimate their middle",
    NULL,
    NULL,
    0,
};

/*
 * type_alloc.c - the pair type of random allocation's upper bound: each record in one of t
 * steps per epoch, T epochs (pair/alloc.c has the dominating pair and its Renyi divergences).
 *
 * delta(eps) of the T epochs, in each direction, is at most
 *   the Gaussian mechanism's of sensitivity sqrt(T): Q(eps/mu - mu/2) - e^eps Q(eps/mu + mu/2),
 *     mu = sqrt(T)/sigma, in closed form (pc_shift_delta; given the other records' steps an
 *     epoch moves one step sum by at most 1, adaptively composed; joint convexity over the
 *     steps' choice keeps it), and
 *   for every integer order alpha with D_alpha <= T d (d the epoch's bound, epochs compose),
 *     exp((alpha - 1)(T d - eps)) (alpha - 1)^(alpha - 1) / alpha^alpha, since for L the
 *     likelihood ratio and c = e^eps, (L - c)_+ <= L^alpha sup_x (x - c)_+ / x^alpha and that
 *     supremum, at x = alpha c / (alpha - 1), is c^(1 - alpha) (alpha - 1)^(alpha - 1) /
 *     alpha^alpha (the conversion of Canonne, Kamath & Steinke 2020; the one
 *     ga_rdp_to_dp_improved inverts).
 * The pair's value is the least of these (and 1): every term a ball (Arb), so the double
 * value carries its rounding as the error and the certified interval encloses it. The
 * divergences are computed once per pair, on first use, and shared by every eps.
 */
#include "pair/cert_internal.h"
#include "base/base.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AL_BPREC 128

typedef struct {
    ga_allocation_input in;
    pthread_mutex_t mu;
    int done;          /* 1 made, 0 not yet, -status failed */
    ga_alloc_renyi R;
} al_state;

/* the divergences, computed on first use (GA_ETIME is not kept: a later call tries again) */
static int renyi_of(const ga_alloc_renyi **out, const ga_pair *p, double deadline)
{
    al_state *s = p->input;
    int rc = GA_OK;
    pthread_mutex_lock(&s->mu);
    if (!s->done) {
        rc = ga_alloc_renyi_make(&s->R, s->in.sigma_txt, s->in.sigma, s->in.steps, deadline);
        s->done = rc == GA_OK ? 1 : rc == GA_ETIME ? 0 : -rc;
    } else if (s->done < 0) {
        rc = -s->done;
    }
    pthread_mutex_unlock(&s->mu);
    *out = &s->R;
    return rc;
}

/* x <- sigma, its exact decimal where given (checked when the pair was made) */
static void sigma_ball(arb_t x, const al_state *s)
{
    ga_cert_entry(x, &s->in.sigma_txt, &s->in.sigma, 0);
}

/* v[dir] <- the bound at eps (a ball) in direction dir (0: XY, 1: YX); *which (may be NULL):
 * per direction the term whose upper end is least (0: the Gaussian, else the order) */
static void bound_at(arb_t v[2], int which[2], const al_state *s, const ga_alloc_renyi *R,
                     const arb_t eps)
{
    arb_t x, g, e, best;
    arb_init(x);
    arb_init(g);
    arb_init(e);
    arb_init(best);
    sigma_ball(x, s);
    arb_sqr(x, x, AL_BPREC);
    arb_ui_div(x, (ulong)s->in.epochs, x, AL_BPREC); /* mu^2 = T / sigma^2 */
    pc_shift_delta(g, x, eps, AL_BPREC);
    for (int dir = 0; dir < 2; dir++) {
        const double *d = dir ? R->dy : R->dx;
        arb_set(best, g);
        int w = 0;
        ga_interval bi, ti;
        ga_arb_bounds(&bi, best);
        for (int i = 0; i < R->n; i++) {
            ulong a = (ulong)R->alpha[i];
            if (!isfinite(d[i]))
                continue;
            /* (a - 1)(T d - eps) + (a - 1) log(a - 1) - a log a */
            arb_set_d(x, d[i]);
            arb_mul_ui(x, x, (ulong)s->in.epochs, AL_BPREC);
            arb_sub(x, x, eps, AL_BPREC);
            arb_set_ui(e, a - 1);
            arb_log(e, e, AL_BPREC);
            arb_add(x, x, e, AL_BPREC);
            arb_mul_ui(x, x, a - 1, AL_BPREC);
            arb_set_ui(e, a);
            arb_log(e, e, AL_BPREC);
            arb_submul_ui(x, e, a, AL_BPREC);
            arb_exp(x, x, AL_BPREC);
            ga_arb_bounds(&ti, x);
            if (ti.hi < bi.hi) {
                w = (int)a;
                bi = ti;
            }
            arb_min(best, best, x, AL_BPREC);
        }
        arb_one(x);
        arb_min(v[dir], best, x, AL_BPREC);
        if (which)
            which[dir] = w;
    }
    arb_clear(x);
    arb_clear(g);
    arb_clear(e);
    arb_clear(best);
}

/* v[dir] <- an upper bound of D_alpha of the T epochs (alpha a ball > 1): the Gaussian's alpha
 * T / (2 sigma^2), or T times the epoch's bound interpolated between the tabulated orders a <=
 * alpha <= b ((alpha - 1) D_alpha is convex in alpha, the logarithm of E L^alpha, and 0 at
 * alpha = 1), the smaller */
static void renyi_at(arb_t v[2], const al_state *s, const ga_alloc_renyi *R, const arb_t alpha)
{
    arb_t g, x, y;
    arb_init(g);
    arb_init(x);
    arb_init(y);
    sigma_ball(x, s);
    arb_mul(x, x, x, AL_BPREC);
    arb_mul_2exp_si(x, x, 1);
    arb_mul_ui(g, alpha, (ulong)s->in.epochs, AL_BPREC);
    arb_div(g, g, x, AL_BPREC);
    ga_interval ai;
    ga_arb_bounds(&ai, alpha);
    int ia = -1, ib = -1; /* (ia -1: alpha = 1, where (alpha - 1) D = 0) */
    for (int i = 0; i < R->n; i++) {
        if (R->alpha[i] <= ai.lo)
            ia = i;
        if (R->alpha[i] >= ai.hi && ib < 0)
            ib = i;
    }
    for (int dir = 0; dir < 2; dir++) {
        const double *d = dir ? R->dy : R->dx;
        arb_set(v[dir], g);
        if (ib < 0 || !isfinite(d[ib]) || (ia >= 0 && !isfinite(d[ia])))
            continue;
        double a = ia < 0 ? 1 : R->alpha[ia], b = R->alpha[ib];
        /* ((b - alpha)(a - 1) d_a + (alpha - a)(b - 1) d_b) / ((b - a)(alpha - 1)) */
        arb_set_d(x, ia < 0 ? 0 : d[ia]);
        arb_mul_ui(x, x, (ulong)a - 1, AL_BPREC);
        arb_set_d(y, b);
        arb_sub(y, y, alpha, AL_BPREC);
        arb_mul(x, x, y, AL_BPREC);
        if (b > a) {
            arb_set_d(y, d[ib]);
            arb_mul_ui(y, y, (ulong)b - 1, AL_BPREC);
            arb_t z;
            arb_init(z);
            arb_set_d(z, a);
            arb_sub(z, alpha, z, AL_BPREC);
            arb_mul(y, y, z, AL_BPREC);
            arb_add(x, x, y, AL_BPREC);
            arb_set_d(z, b - a);
            arb_div(x, x, z, AL_BPREC);
            arb_sub_ui(z, alpha, 1, AL_BPREC);
            arb_div(x, x, z, AL_BPREC);
            arb_clear(z);
        } else {
            arb_set_d(x, d[ib]);
        }
        arb_mul_ui(x, x, (ulong)s->in.epochs, AL_BPREC);
        arb_min(v[dir], v[dir], x, AL_BPREC);
    }
    arb_clear(g);
    arb_clear(x);
    arb_clear(y);
}

/* v[dir] <- the bound of delta (renyi 0) or of D_alpha (renyi 1) at x in both directions
 * (0: XY, 1: YX): GA_OK, or the divergences' failure */
static int bound_of(arb_t v[2], const ga_pair *p, int renyi, const arb_t x, double deadline)
{
    const ga_alloc_renyi *R;
    int rc = renyi_of(&R, p, deadline);
    if (rc == GA_OK && renyi)
        renyi_at(v, p->input, R, x);
    else if (rc == GA_OK)
        bound_at(v, NULL, p->input, R, x);
    return rc;
}

/* the same at the double x, as values with their rounding as the errors (deltas clipped to
 * [0, 1]) */
static int bound_double(ga_result r[2], const ga_pair *p, int renyi, double x, double deadline)
{
    r[0] = r[1] = (ga_result){NAN, INFINITY};
    arb_t e, v[2];
    arb_init(e);
    arb_init(v[0]);
    arb_init(v[1]);
    arb_set_d(e, x);
    int rc = bound_of(v, p, renyi, e, deadline);
    for (int dir = 0; dir < 2 && rc == GA_OK; dir++) {
        ga_interval iv;
        if (renyi)
            ga_arb_bounds(&iv, v[dir]);
        else
            ga_arb_interval(&iv, v[dir]);
        r[dir].val = 0.5 * (iv.lo + iv.hi);
        r[dir].err = 0.5 * (iv.hi - iv.lo) * (1 + 1e-12) + 1e-300;
    }
    arb_clear(e);
    arb_clear(v[0]);
    arb_clear(v[1]);
    return rc;
}

/* the same at the decimal text x, as enclosures (GA_EINVAL: x is not a finite number) */
static int bound_text(arb_t v[2], const ga_pair *p, int renyi, const char *x, double deadline)
{
    arb_t e;
    arb_init(e);
    int rc = arb_set_str(e, x, 256) || !arb_is_finite(e) ? GA_EINVAL
                                                         : bound_of(v, p, renyi, e, deadline);
    arb_clear(e);
    return rc;
}

static int al_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                    const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    (void)w;
    if (method != GA_DELTA_AUTO && method != GA_DELTA_DIRECT)
        return GA_EDOM;
    out->method = GA_DELTA_DIRECT;
    ga_result r[2];
    int rc = bound_double(r, p, 0, eps, o->deadline);
    out->xy = r[0];
    out->yx = r[1];
    return rc;
}

static int al_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *pin,
                         const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    (void)pin;
    (void)txt;
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    pc_cert_unknown(out);
    arb_t v[2];
    arb_init(v[0]);
    arb_init(v[1]);
    int rc = bound_text(v, p, 0, eps, o.deadline);
    if (rc == GA_OK) {
        ga_arb_prob_out(&out->xy, out->xy_lo, out->xy_hi, sizeof out->xy_lo, v[0], o.digits + 3);
        ga_arb_prob_out(&out->yx, out->yx_lo, out->yx_hi, sizeof out->yx_lo, v[1], o.digits + 3);
        out->precision_bits = AL_BPREC;
    }
    arb_clear(v[0]);
    arb_clear(v[1]);
    return rc;
}

static int al_renyi(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    ga_result r[2];
    int rc = bound_double(r, p, 1, alpha, 0);
    if (rc != GA_OK)
        return pr_renyi_none(xy, yx, p, alpha), rc;
    *xy = r[0];
    *yx = r[1];
    return GA_OK;
}

static int al_renyi_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                         const ga_pair_input *in, const ga_pair_text *txt, const char *alpha_txt,
                         const ga_cert_opts *o)
{
    (void)in;
    (void)txt;
    arb_t v[2];
    arb_init(v[0]);
    arb_init(v[1]);
    int rc = bound_text(v, p, 1, alpha_txt, o->deadline);
    if (rc == GA_OK) {
        ga_arb_bounds(xy, v[0]);
        ga_arb_bounds(yx, v[1]);
    }
    arb_clear(v[0]);
    arb_clear(v[1]);
    return rc;
}

static int al_describe(char *text, size_t n, double *px, double *py, const ga_pair *p,
                       double eps, int dir)
{
    const al_state *s = p->input;
    const ga_alloc_renyi *R;
    *px = *py = NAN;
    int which[2] = {0, 0};
    if (renyi_of(&R, p, 0) == GA_OK) {
        arb_t e, v[2];
        arb_init(e);
        arb_init(v[0]);
        arb_init(v[1]);
        arb_set_d(e, eps);
        bound_at(v, which, s, R, e);
        arb_clear(e);
        arb_clear(v[0]);
        arb_clear(v[1]);
    }
    int w = which[dir == 2];
    char how[120];
    if (w)
        snprintf(how, sizeof how, "the Renyi divergence of order %d converted", w);
    else
        snprintf(how, sizeof how, "the Gaussian mechanism of sensitivity sqrt(%.0f)",
                 s->in.epochs);
    char sg[48];
    if (s->in.sigma_txt)
        snprintf(sg, sizeof sg, "%.40s", s->in.sigma_txt);
    else
        snprintf(sg, sizeof sg, "%.17g", s->in.sigma);
    snprintf(text, n, "an upper bound, not an event: random allocation (one of %.0f steps per "
             "epoch, %.0f epochs, noise multiplier %s) is dominated by the pair (1/t) sum_j "
             "N(e_j/sigma, I_t) against N(0, I_t) per epoch; at eps = %.6g the least bound "
             "is %s", s->in.steps, s->in.epochs, sg, eps, how);
    return GA_OK;
}

static void al_free(ga_pair *p)
{
    al_state *s = p->input;
    if (s)
        pthread_mutex_destroy(&s->mu);
}

int ga_pair_reduce_allocation(ga_pair **out, const ga_allocation_input *in, char *msg,
                              size_t msglen)
{
    *out = NULL;
    const char *bad =
        !(in->sigma >= 1e-3 && in->sigma <= 1e6) ? "sigma must be in [0.001, 1e6]"
        : !(in->steps >= 1 && in->steps <= 1e7 && in->steps == floor(in->steps))
            ? "steps must be a whole number in 1..1e7"
        : !(in->epochs >= 1 && in->epochs <= 1e4 && in->epochs == floor(in->epochs))
            ? "epochs must be a whole number in 1..10000"
        : in->sigma_txt && !ga_decimal_syntax(in->sigma_txt) ? "sigma's text must be a plain decimal"
                                                             : NULL;
    if (bad) {
        ga_msg(msg, msglen, "random allocation pair: %s", bad);
        return GA_EINVAL;
    }
    const char *why = NULL;
    if (!ga_cert_available(&why)) {
        ga_msg(msg, msglen, "random allocation pair: computed in ball arithmetic, and %s",
               why ? why : "FLINT/Arb is unavailable");
        return GA_EDEP;
    }
    size_t ls = in->sigma_txt ? strlen(in->sigma_txt) + 1 : 0;
    ga_pair *p = calloc(1, sizeof *p);
    al_state *s = calloc(1, sizeof *s + ls); /* (the text after it: one block) */
    if (!p || !s) {
        free(p);
        free(s);
        ga_msg(msg, msglen, "%s", "out of memory building a random allocation pair");
        return GA_ENOMEM;
    }
    s->in = *in;
    if (ls) {
        memcpy(s + 1, in->sigma_txt, ls);
        s->in.sigma_txt = (const char *)(s + 1);
    }
    pthread_mutex_init(&s->mu, NULL);
    pr_input_pair(p, &ga_pair_type_alloc, s);
    *out = p;
    return GA_OK;
}

const ga_pair_type ga_pair_type_alloc = {
    "random allocation", al_delta, al_renyi, al_delta_cert, al_renyi_cert, NULL, al_free,
    al_describe, NULL,
    "an upper bound of random allocation (each record in one of t steps per epoch): the "
    "smaller of the Gaussian mechanism of sensitivity sqrt(epochs) and the conversion of Renyi "
    "divergences of the epoch's dominating pair (the mean of t unit shifts against none) at "
    "integer orders, the remove direction's exact (a finite multinomial sum), the add "
    "direction's bounded by quadrature of a Laplace-transform integral with proven cell "
    "bounds; every number a ball (Arb)",
    NULL,
    NULL,
    0,
};

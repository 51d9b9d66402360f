/*
 * cert_loss.c - certified delta of the pairs whose privacy loss is one-dimensional:
 * subsampled Gaussian steps and their compositions (with Gaussian blocks), matrix masking's
 * noncentral chi-square pairs and synthetic points, each from exact balls of the parameters
 * as written (pair/ploss_cert.c, masked.c, synth.c), escalating the precision until the
 * digits asked for are certain.
 */
#include "pair/cert_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

slong pc_want_bits(int digits)
{
    return (slong)ceil(digits * 3.3219280948873623) + 1;
}

typedef struct {
    const ga_pair *p;
    const char *eps;
    arb_t xy, yx;
    slong want;
} sub_ctx;

int pc_sub_params(arb_t q, arb_t m, const ga_pair *p, size_t j, slong prec)
{
    char *const *tx = p->ptxt + GA_PTXT_PER_TERM * j;
    const char *qt = tx[0], *st = tx[1], *nt = tx[2], *dt = tx[3];
    arb_t nv;
    arb_init(nv);
    int rc = GA_OK;
    if ((qt ? arb_set_str(q, qt, prec) : (arb_set_d(q, p->ploss->t[j].q), 0)) ||
        (st ? arb_set_str(m, st, prec) : (arb_set_d(m, p->psigma[2 * j]), 0)) ||
        (nt ? arb_set_str(nv, nt, prec) : (arb_set_d(nv, p->psigma[2 * j + 1]), 0)))
        rc = GA_EINVAL;
    arb_div(m, nv, m, prec);
    if (rc == GA_OK && dt) { /* q = the ratio of two decimals */
        if (arb_set_str(nv, dt, prec) || !arb_is_positive(nv))
            rc = GA_EINVAL;
        arb_div(q, q, nv, prec);
    }
    arb_clear(nv);
    return rc;
}

/* a masked pair's noncentralities lambda_x = (|x|/sigma)^2, lambda_y = (|x'|/sigma)^2 */
static int masked_params(arb_t lx, arb_t ly, const ga_pair *p, slong prec)
{
    arb_t s;
    arb_init(s);
    int rc = GA_OK;
    for (int k = 0; k < 2 && rc == GA_OK; k++) {
        arb_ptr v = k ? ly : lx;
        const char *nt = p->ptxt[k ? 0 : 2], *st = p->ptxt[1];
        if ((nt ? arb_set_str(v, nt, prec) : (arb_set_d(v, p->psigma[k ? 2 : 1]), 0)) ||
            (st ? arb_set_str(s, st, prec) : (arb_set_d(s, p->psigma[0]), 0)))
            rc = GA_EINVAL;
        arb_div(v, v, s, prec);
        arb_sqr(v, v, prec);
    }
    arb_clear(s);
    return rc;
}

int pc_loss_cgf_cap(arb_t res, const ga_pair *p, int dir, const arb_t lam, slong prec)
{
    const ga_ploss_term *t = &p->ploss->t[0];
    arb_t a, b, g;
    arb_init(a);
    arb_init(b);
    arb_init(g);
    int rc = GA_OK;
    if (p->ploss->n != 1 || t->count != 1 || !arb_is_positive(lam) || (t->nu == 0 && t->r == 0)) {
        rc = GA_EDOM;
    } else if (t->nu > 0) { /* lam (lam + 1) (sqrt lx - sqrt ly)^2 / 2 */
        if ((rc = masked_params(a, b, p, prec)) == GA_OK) {
            arb_sqrt(a, a, prec);
            arb_sqrt(b, b, prec);
            arb_sub(a, a, b, prec);
            arb_sqr(a, a, prec);
            arb_add_ui(b, lam, 1, prec);
            arb_mul(a, a, b, prec);
            arb_mul(a, a, lam, prec);
            arb_mul_2exp_si(res, a, -1);
        }
    } else if ((rc = pc_sub_params(a, b, p, 0, prec)) == GA_OK) { /* a = q, b = m */
        arb_t u, k;
        arb_init(u);
        arb_init(k);
        arb_sqr(b, b, prec); /* m^2 */
        arb_add_ui(u, b, 1, prec);
        arb_div(u, b, u, prec); /* u = m^2/(1 + m^2) */
        arb_log1p(b, b, prec);  /* log s^2 */
        if (!(t->add ^ dir)) {
            arb_add_ui(k, lam, 1, prec);
            arb_mul(u, u, k, prec); /* k u */
            arb_one(g);
            if (!arb_lt(u, g)) {
                rc = GA_EDOM; /* (not certainly finite) */
            } else {
                arb_neg(u, u);
                arb_log1p(u, u, prec);
                arb_mul(g, k, b, prec);
                arb_add(g, g, u, prec);
                arb_neg(g, g); /* -(k log s^2 + log(1 - k u)) */
            }
        } else {
            arb_mul(u, u, lam, prec);
            arb_log1p(u, u, prec);
            arb_mul(g, lam, b, prec);
            arb_sub(g, g, u, prec); /* lam log s^2 - log(1 + lam u) */
        }
        if (rc == GA_OK) {
            arb_set_d(u, t->r); /* (exact) */
            arb_mul(g, g, u, prec);
            arb_mul_2exp_si(g, g, -1);
            arb_expm1(g, g, prec);
            arb_mul(g, g, a, prec);
            arb_log1p(res, g, prec);
        }
        arb_clear(u);
        arb_clear(k);
    }
    arb_clear(a);
    arb_clear(b);
    arb_clear(g);
    return rc;
}

/* one direction of a masked pair: the double threshold as the hint, then Arb */
static int masked_delta(arb_t v, const ga_pair *p, const arb_t lx, const arb_t ly, int dir,
                        const arb_t e, double eps_d, slong prec)
{
    const ga_ploss_term *t = &p->ploss->t[0];
    double dx = t->m * t->m, w;
    ga_result r;
    if (ga_ncx2_delta(&r, &w, t->nu, dir ? t->ly : dx, dir ? dx : t->ly, eps_d) != GA_OK)
        return GA_EPREC;
    if (isnan(w) && r.val == 0 && r.err == 0) { /* no event in double: certify the same */
        arb_t d;
        arb_init(d);
        arb_sub(d, dir ? lx : ly, dir ? ly : lx, prec);
        arb_mul_2exp_si(d, d, -1);
        int ok = arb_le(d, e) || arb_is_zero(d);
        arb_clear(d);
        if (ok) {
            arb_zero(v);
            return GA_OK;
        }
        return GA_EPREC;
    }
    return ga_ncx2_delta_arb(v, t->nu, dir ? ly : lx, dir ? lx : ly, e, w, prec);
}

/* one direction of a synthetic-points pair: the same with the threshold of ga_synth_delta */
static int synth_delta(arb_t v, const ga_pair *p, const arb_t lx, const arb_t ly, int dir,
                       const arb_t e, double eps_d, slong want, slong prec)
{
    const ga_ploss_term *t = &p->ploss->t[0];
    double dx = t->m * t->m, z;
    ga_result r;
    if (ga_synth_delta(&r, &z, t->nu, t->pts, dir ? t->ly : dx, dir ? dx : t->ly, eps_d) != GA_OK)
        return GA_EPREC;
    if (isnan(z) && r.val == 0 && r.err == 0) { /* no event in double: the Arb path certifies it */
        int st = ga_synth_delta_arb(v, t->nu, t->pts, dir ? ly : lx, dir ? lx : ly, e, 1, want, prec);
        return st == GA_OK && arb_is_zero(v) ? GA_OK : GA_EPREC;
    }
    return ga_synth_delta_arb(v, t->nu, t->pts, dir ? ly : lx, dir ? lx : ly, e, z, want, prec);
}

/* one direction of a one-step pair at one precision (sub_step's) */
typedef struct {
    const sub_ctx *c;
    arb_srcptr q, m, e;
    double eps_d;
} sub_args;

static int sub_dir(arb_t v, void *ctx, int dir, slong prec)
{
    const sub_args *a = ctx;
    const sub_ctx *c = a->c;
    const ga_ploss_term *t = &c->p->ploss->t[0];
    arb_srcptr q = a->q, m = a->m, e = a->e;
    if (t->nu > 0 && t->pts > 0)
        return synth_delta(v, c->p, q, m, dir, e, a->eps_d, c->want + 2, prec);
    return t->nu > 0 ? masked_delta(v, c->p, q, m, dir, e, a->eps_d, prec)
           : t->r > 0 ? ga_ploss_delta_one_chi2_arb(v, q, m, t->r, dir ^ t->add, e, prec)
                      : ga_ploss_delta_one_arb(v, q, m, dir ^ t->add, e, prec);
}

static int sub_step(void *vc, slong prec)
{
    sub_ctx *c = vc;
    const ga_ploss_term *t = &c->p->ploss->t[0];
    arb_t q, m, e;
    arb_init(q);
    arb_init(m);
    arb_init(e);
    int rc = t->nu > 0 ? masked_params(q, m, c->p, prec) : pc_sub_params(q, m, c->p, 0, prec);
    double eps_d = NAN;
    if (rc == GA_OK && (arb_set_str(e, c->eps, prec) || ga_decimal_to_double(&eps_d, c->eps)))
        rc = GA_EINVAL;
    sub_args sa = {c, q, m, e, eps_d};
    pc_dirs D;
    pc_dirs_init(&D, sub_dir, &sa, (int[2]){rc == GA_OK, rc == GA_OK}, prec);
    pc_dirs_run(&D, t->nu > 0 && t->pts > 0); /* (synthetic points: Bessel integrals) */
    for (int dir = 0; rc == GA_OK && dir < 2; dir++) {
        if (!D.ran[dir]) { /* FLINT stopped it: what the step's own guard would return */
            rc = D.guard[dir];
            break;
        }
        if (D.st[dir] == GA_OK) {
            arb_ptr dst = dir ? c->yx : c->xy, v = D.v[dir];
            /* keep the narrower of the enclosures met so far (both contain the value) */
            if (!arb_is_finite(dst) || arb_rel_accuracy_bits(v) > arb_rel_accuracy_bits(dst))
                arb_set(dst, v);
        }
    }
    pc_dirs_clear(&D);
    if (rc == GA_OK) {
        int done = 1;
        for (int dir = 0; dir < 2; dir++) {
            arb_srcptr v = dir ? c->yx : c->xy;
            done &= arb_is_zero(v) || arb_rel_accuracy_bits(v) >= c->want;
        }
        rc = done ? GA_OK : GA_EPREC;
    }
    arb_clear(q);
    arb_clear(m);
    arb_clear(e);
    return rc;
}

/* a subsampled pair's enclosures for output: [0, 1] where none was found, outward decimals */
static void sub_cert_out(ga_delta_cert *out, arb_t xy, arb_t yx, int digits)
{
    if (!arb_is_finite(xy))
        arb_zero_pm_one(xy);
    if (!arb_is_finite(yx))
        arb_zero_pm_one(yx);
    ga_arb_prob_out(&out->xy, out->xy_lo, out->xy_hi, sizeof out->xy_lo, xy, digits + 3);
    ga_arb_prob_out(&out->yx, out->yx_lo, out->yx_hi, sizeof out->yx_lo, yx, digits + 3);
}

/* A composition: the certified Bromwich integral (pair/ploss_cert.c) per direction, at
 * the precision of the escalation; a direction is done when accurate, or when more precision
 * no longer narrows it (the truncation bounds, not the arithmetic, set its width). */
typedef struct {
    const ga_pair *p;
    arb_t eps;
    arb_t xy, yx;
    double est[2], reltol, deadline, eps_d; /* eps_d: eps as a double */
    slong want, best[2];
    int stalls[2], done[2], fail; /* fail: the first failed evaluation's status */
    int few[2];                   /* the direction's route: the certified bracket */
} comp_ctx;

/* Few identical steps, whatever the plan: the bracket is their second route, where the
 * Bromwich integral's tail bound stays above FEW_GIVEUP times the estimate (the bracket's
 * relative width is 1e-4 to 1e-3) or it gives no enclosure */
#define FEW_GIVEUP 1e-4
static int few_steps_route_any(const ga_ploss *L)
{
    return ga_ploss_few(L) && L->t[0].count >= 2;
}

/* Few identical steps whose Bromwich integrand does not decay within the double plan (the
 * route of ga_ploss_bracket in double precision) or only beyond the range the certified
 * integral covers: the certified bracket of discretised losses, whose width the grid sets
 * (more precision does not narrow it) */
static int few_steps_route(const ga_ploss *L, int dir, double eps)
{
    if (!few_steps_route_any(L))
        return 0;
    double c, tm, k2, L0;
    return ga_ploss_plan(&c, &tm, &k2, &L0, L, dir, eps) != GA_OK || !(tm <= GA_PLOSS_CERT_TMAX);
}

/* one direction of a composition at one precision (comp_step's): the certified bracket of
 * few steps, else the certified Bromwich integral */
typedef struct {
    const comp_ctx *c;
    arb_srcptr q, m;
} comp_args;

static int comp_dir(arb_t v, void *ctx, int dir, slong prec)
{
    const comp_args *a = ctx;
    const comp_ctx *c = a->c;
    const ga_ploss *L = c->p->ploss;
    if (c->few[dir]) {
        double theta, lch;
        ga_ploss_tilt(&theta, &lch, L, dir, c->eps_d);
        arb_indeterminate(v); /* (set only with an enclosure) */
        return ga_ploss_bracket_arb(v, L, a->q, a->m, dir, c->eps, theta, lch, prec, c->deadline);
    }
    /* (few steps have the bracket, about 1e-4 wide, as their second route) */
    double giveup = few_steps_route_any(L) ? FEW_GIVEUP : INFINITY;
    return ga_ploss_delta_comp_arb(v, L, a->q, a->m, dir, c->eps, c->est[dir], c->reltol, giveup,
                                   prec, c->deadline);
}

static int comp_step(void *vc, slong prec)
{
    comp_ctx *c = vc;
    const ga_ploss *L = c->p->ploss;
    slong n = (slong)L->n;
    arb_ptr q = _arb_vec_init(n), m = _arb_vec_init(n);
    int rc = GA_OK;
    for (slong j = 0; j < n && rc == GA_OK; j++)
        rc = pc_sub_params(q + j, m + j, c->p, (size_t)j, prec);
    comp_args ca = {c, q, m};
    pc_dirs D;
    int todo[2] = {rc == GA_OK && !c->done[0], rc == GA_OK && !c->done[1]};
    pc_dirs_init(&D, comp_dir, &ca, todo, prec);
    pc_dirs_run(&D, 1);
    for (int dir = 0; rc == GA_OK && dir < 2; dir++) {
        if (c->done[dir])
            continue;
        arb_ptr v = D.v[dir];
        if (!D.ran[dir]) { /* FLINT stopped it: what the step's own guard would return */
            rc = D.guard[dir];
            break;
        }
        int st = D.st[dir];
        if (c->few[dir]) {
            if (st == GA_OK)
                c->done[dir] = 1; /* (the grid, not the precision, sets its width) */
            else if (st == GA_EPREC && prec < 1024)
                st = GA_OK; /* (another precision may do) */
        }
        int failed = st != GA_OK && st != GA_ETIME && st != GA_ENOMEM;
        if (st == GA_ETIME || st == GA_ENOMEM)
            rc = st;
        else if (failed && c->few[dir]) { /* no enclosure at any precision: [0, 1] */
            if (!c->fail)
                c->fail = st;
            c->done[dir] = 1;
        }
        arb_ptr dst = dir ? c->yx : c->xy;
        if (arb_is_finite(v) && (!arb_is_finite(dst) || arb_rel_accuracy_bits(v) > arb_rel_accuracy_bits(dst)))
            arb_set(dst, v);
        if (arb_is_zero(dst) || arb_rel_accuracy_bits(dst) >= c->want)
            c->done[dir] = 1;
        else if (!c->few[dir] && (failed || ga_arb_stalled(&c->best[dir], &c->stalls[dir], v))) {
            /* the Bromwich integral ends short of the digits asked: few steps take the
             * bracket next (both enclosures, the narrower kept), others end here */
            if (few_steps_route_any(L)) {
                c->few[dir] = 1;
                c->best[dir] = LONG_MIN / 2;
                c->stalls[dir] = 0;
            } else {
                if (failed && !c->fail)
                    c->fail = st;
                c->done[dir] = 1;
            }
        } else if (c->few[dir] && ga_arb_stalled(&c->best[dir], &c->stalls[dir], v))
            c->done[dir] = 1;
    }
    pc_dirs_clear(&D);
    _arb_vec_clear(q, n);
    _arb_vec_clear(m, n);
    if (rc != GA_OK)
        return rc;
    if (!(c->done[0] && c->done[1]))
        return GA_EPREC;
    int acc = 1;
    for (int dir = 0; dir < 2; dir++) {
        arb_srcptr v = dir ? c->yx : c->xy;
        acc &= arb_is_zero(v) || arb_rel_accuracy_bits(v) >= c->want;
    }
    return acc ? GA_OK : GA_ARB_STALLED;
}

/* The Renyi-Chernoff bound of direction dir: delta(eps) <= P[L > eps] <= E[e^{(alpha - 1) L}]
 * e^{-(alpha - 1) eps} = e^{(alpha - 1) (D_alpha - eps)}, with D_alpha certified
 * (ga_ploss_renyi_arb), the least over alpha = 2, 4, ..., amax (D_alpha increases with alpha
 * towards the loss's supremum, so the best order is where eps is still above it by enough).
 * res: the ball [0, bound] (an enclosure), GA_OK when the bound's log is below lim; GA_EDOM
 * where no order gives one that small; a parameter's status otherwise. Where the integral has
 * no enclosure (eps near the supremum of a bounded loss, the saddle point far out, or a range
 * beyond the certified one) delta is far below the bound's scale. */
static int renyi_chernoff(arb_t res, const ga_pair *p, const arb_t eps, int dir, unsigned amax,
                          slong lim, slong prec)
{
    const ga_ploss *L = p->ploss;
    slong n = (slong)L->n;
    arb_ptr q = _arb_vec_init(n), m = _arb_vec_init(n);
    arb_t a, d, best;
    arb_init(a);
    arb_init(d);
    arb_init(best);
    arb_pos_inf(best);
    int rc = GA_OK;
    double steps = 0;
    for (slong j = 0; j < n && rc == GA_OK; j++) {
        rc = pc_sub_params(q + j, m + j, p, (size_t)j, prec);
        steps += L->t[j].count;
    }
    for (unsigned alpha = 2; alpha <= amax && rc == GA_OK; alpha *= 2) {
        arb_set_ui(a, alpha);
        int st = ga_ploss_renyi_arb(d, L, q, m, dir, a, fmax(36, log(steps) + 30), prec);
        if ((st != GA_OK && st != GA_EPREC) || !arb_is_finite(d))
            break; /* (higher orders: infinite or beyond the evaluation) */
        arb_sub(d, d, eps, prec);
        arb_mul_ui(d, d, alpha - 1, prec);
        if (!arb_is_finite(best) || arb_lt(d, best))
            arb_set(best, d);
    }
    arb_set_si(a, lim);
    if (rc == GA_OK && (!arb_is_finite(best) || !arb_lt(best, a)))
        rc = GA_EDOM;
    if (rc == GA_OK) { /* [0, e^best] as a ball */
        arb_exp(best, best, prec);
        arb_get_ubound_arf(arb_midref(res), best, prec);
        arb_mul_2exp_si(res, res, -1);
        arf_get_mag(arb_radref(res), arb_midref(res));
    }
    _arb_vec_clear(q, n);
    _arb_vec_clear(m, n);
    arb_clear(a);
    arb_clear(d);
    arb_clear(best);
    return rc;
}

/* is b's upper end below v's (v not finite: yes)? */
static int below(const arb_t b, const arb_t v)
{
    if (!arb_is_finite(v))
        return 1;
    arf_t x, y;
    arf_init(x);
    arf_init(y);
    arb_get_ubound_arf(x, b, 64);
    arb_get_ubound_arf(y, v, 64);
    int r = arf_cmp(x, y) < 0;
    arf_clear(x);
    arf_clear(y);
    return r;
}

static int delta_cert_composition(ga_delta_cert *out, const ga_pair *p, const char *eps,
                                  double e, const ga_cert_opts *o)
{
    ga_delta est;
    int st = ga_pair_delta(&est, p, e, GA_DELTA_AUTO, NULL, NULL);
    if (st == GA_ENOMEM)
        return st;
    comp_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.est[0] = isfinite(est.xy.val) ? est.xy.val : 0;
    c.est[1] = isfinite(est.yx.val) ? est.yx.val : 0;
    c.want = pc_want_bits(o->digits);
    c.reltol = pow(10.0, -(o->digits + 1));
    c.deadline = o->deadline;
    c.eps_d = e; /* (the decimal read as a double: the tilt's and the route's eps) */
    c.best[0] = c.best[1] = LONG_MIN / 2;
    arb_init(c.eps);
    arb_init(c.xy);
    arb_init(c.yx);
    arb_indeterminate(c.xy);
    arb_indeterminate(c.yx);
    int rc = GA_EINVAL;
    if (!arb_set_str(c.eps, eps, 256)) { /* a ball containing the decimal */
        for (int dir = 0; dir < 2; dir++)
            c.few[dir] = few_steps_route(p->ploss, dir, c.eps_d);
        /* (the bracket's exponentials of arguments up to a few hundred need 128 bits) */
        slong start = c.few[0] || c.few[1] ? 128 : 64;
        rc = ga_arb_escalate(&out->precision_bits, comp_step, &c, start, o->max_prec, o->deadline);
        /* a direction without an enclosure: the Renyi-Chernoff bound [0, hi] (valid, wider
         * than asked) where one order gives it */
        int fixed = 0, open = 0;
        for (int dir = 0; dir < 2 && rc != GA_ETIME && rc != GA_ENOMEM &&
                          !(p->ploss->t[0].r > 0 || p->ploss->t[0].nu > 0); dir++) {
            arb_ptr v = dir ? c.yx : c.xy;
            if (arb_is_finite(v) && arb_rel_accuracy_bits(v) > 0)
                continue;
            arb_t b;
            arb_init(b);
            if (renyi_chernoff(b, p, c.eps, dir, 1024, 0, 128) == GA_OK && below(b, v)) {
                arb_set(v, b);
                fixed = 1;
            } else {
                open = 1;
            }
            arb_clear(b);
        }
        if (fixed && !open)
            c.fail = 0; /* (every direction has an enclosure now) */
        if (fixed && rc != GA_ETIME && rc != GA_ENOMEM)
            rc = GA_EPREC;
    }
    if (rc != GA_EINVAL)
        sub_cert_out(out, c.xy, c.yx, o->digits);
    if (c.fail && (rc == GA_OK || rc == GA_EPREC))
        rc = c.fail;
    arb_clear(c.eps);
    arb_clear(c.xy);
    arb_clear(c.yx);
    return rc;
}

/* Far out (eps > 1000 beyond D_2 by 800): delta_{X,Y}(eps) <= P_X[L > eps] <= E_X[e^L] e^-eps
 * = e^{D_2(X||Y) - eps} (Chernoff at 1, renyi_chernoff at order 2 only): the interval [0, that
 * bound], where the Bromwich plan would put its saddle near z = eps and need about eps nodes.
 * GA_EPREC (valid, wider than asked), or GA_EDOM when eps is not that far. */
static int delta_cert_far(ga_delta_cert *out, const ga_pair *p, const char *eps,
                          const ga_cert_opts *o)
{
    arb_t e, res[2];
    arb_init(e);
    arb_init(res[0]);
    arb_init(res[1]);
    int rc = arb_set_str(e, eps, PARSE_PREC) ? GA_EINVAL : GA_EPREC;
    for (int dir = 0; dir < 2 && rc == GA_EPREC; dir++) {
        int st = renyi_chernoff(res[dir], p, e, dir, 2, -800, 128);
        if (st != GA_OK)
            rc = st == GA_EDOM ? GA_EDOM : GA_EINVAL;
    }
    if (rc == GA_EPREC)
        sub_cert_out(out, res[0], res[1], o->digits);
    arb_clear(e);
    arb_clear(res[0]);
    arb_clear(res[1]);
    return rc;
}

/* One subsampled step: the certified closed form; a composition: the certified integral. */
int pc_delta_cert_subsampled(ga_delta_cert *out, const ga_pair *p, const char *eps,
                             const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    double e;
    if (ga_decimal_to_double(&e, eps) || o.digits < 1 || o.max_prec < 64)
        return GA_EINVAL;
    if (e > 1000 && p->ploss->t[0].nu == 0 && p->ploss->t[0].r == 0) {
        int r = delta_cert_far(out, p, eps, &o);
        if (r != GA_EDOM)
            return r;
    }
    if (p->ploss->n != 1 || p->ploss->t[0].count != 1)
        return delta_cert_composition(out, p, eps, e, &o);
    sub_ctx c;
    c.p = p;
    c.eps = eps;
    c.want = pc_want_bits(o.digits);
    arb_init(c.xy);
    arb_init(c.yx);
    arb_indeterminate(c.xy);
    arb_indeterminate(c.yx);
    int rc = ga_arb_escalate(&out->precision_bits, sub_step, &c, 64, o.max_prec, o.deadline);
    if (rc != GA_EINVAL)
        sub_cert_out(out, c.xy, c.yx, o.digits);
    arb_clear(c.xy);
    arb_clear(c.yx);
    return rc;
}

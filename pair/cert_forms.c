/*
 * cert_forms.c - the exact loss forms of a reduced pair (generalized chi-squares whose
 * parameters are balls), of products of blocks, and the closed forms that certify special
 * pairs directly: equal covariances (delta from the Mahalanobis distance, a scaled erfc for
 * large arguments), mean shifts, Renyi divergences of two Gaussian laws.
 */
#include "pair/cert_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pc_exact_forms(ga_gchisq_exact *lx, ga_gchisq_exact *ly, const ga_pair *p,
                    const la_ref *f, slong prec)
{
    arb_t lam, tau, m2, t, r;
    arb_init(lam);
    arb_init(tau);
    arb_init(m2);
    arb_init(t);
    arb_init(r);
    ga_arb_exact_resize(lx, (slong)p->k);
    ga_arb_exact_resize(ly, (slong)p->k);
    lx->n = ly->n = 0;
    arb_zero(lx->offset);
    arb_zero(ly->offset);
    arb_zero(lx->sigma2);
    arb_zero(ly->sigma2);
    arb_set_d(r, p->r);
    for (size_t i = 0; i < p->k; i++) {
        if (f) {
            arb_set(lam, f->lam + i);
            arb_set(m2, f->mt + i);
        } else {
            arb_set_d(lam, p->lambda[i]);
            arb_set_d(m2, p->mt[i]);
        }
        arb_add_ui(tau, lam, 1, prec);
        arb_sqr(m2, m2, prec);
        arb_mul(m2, m2, r, prec); /* r mt^2 */
        /* offsets: lx += r(-1/2 log tau + mt^2/2), ly += r(1/2 log tau + mt^2/(2 tau)) */
        arb_log1p(t, lam, prec);
        arb_mul(t, t, r, prec);
        arb_mul_2exp_si(t, t, -1);
        arb_sub(lx->offset, lx->offset, t, prec);
        arb_add(ly->offset, ly->offset, t, prec);
        arb_mul_2exp_si(t, m2, -1);
        arb_add(lx->offset, lx->offset, t, prec);
        arb_div(t, t, tau, prec);
        arb_add(ly->offset, ly->offset, t, prec);
        if (arb_is_zero(lam)) { /* a = 0: normal components with variance r mt^2 */
            arb_add(lx->sigma2, lx->sigma2, m2, prec);
            arb_add(ly->sigma2, ly->sigma2, m2, prec);
            continue;
        }
        slong j = lx->n++;
        ly->n++;
        arb_mul_2exp_si(lx->a + j, lam, -1);
        arb_set(lx->nu + j, r);
        arb_mul(lx->b2 + j, m2, tau, prec);
        arb_div(ly->a + j, lam, tau, prec);
        arb_mul_2exp_si(ly->a + j, ly->a + j, -1);
        arb_neg(ly->a + j, ly->a + j);
        arb_set(ly->nu + j, r);
        arb_div(ly->b2 + j, m2, tau, prec);
        arb_div(ly->b2 + j, ly->b2 + j, tau, prec);
    }
    arb_clear(lam);
    arb_clear(tau);
    arb_clear(m2);
    arb_clear(t);
    arb_clear(r);
}

/* q += t (independent sum of exact laws) */
static void exact_append(ga_gchisq_exact *q, const ga_gchisq_exact *t, slong prec)
{
    ga_arb_exact_resize(q, q->n + t->n);
    for (slong j = 0; j < t->n; j++) {
        arb_set(q->a + q->n + j, t->a + j);
        arb_set(q->nu + q->n + j, t->nu + j);
        arb_set(q->b2 + q->n + j, t->b2 + j);
    }
    q->n += t->n;
    arb_add(q->offset, q->offset, t->offset, prec);
    arb_add(q->sigma2, q->sigma2, t->sigma2, prec);
}

int pc_product_exact_forms(ga_gchisq_exact *lx, ga_gchisq_exact *ly, const ga_pair *p,
                           const la_ref *f, slong prec)
{
    ga_gchisq_exact *ex = ga_gchisq_exact_alloc(), *ey = ga_gchisq_exact_alloc();
    int rc = ex && ey ? 0 : -1;
    lx->n = ly->n = 0;
    arb_zero(lx->offset);
    arb_zero(ly->offset);
    arb_zero(lx->sigma2);
    arb_zero(ly->sigma2);
    slong off = 0;
    for (size_t b = 0; b < p->nblocks && rc == 0; b++) {
        const ga_pair *q = p->blocks[b];
        la_ref slice = {(slong)q->k, f ? f->lam + off : NULL, f ? f->mt + off : NULL};
        off += (slong)q->k;
        pc_exact_forms(ex, ey, q, f ? &slice : NULL, prec);
        exact_append(lx, q->swapped ? ey : ex, prec);
        exact_append(ly, q->swapped ? ex : ey, prec);
    }
    ga_gchisq_exact_free(ex);
    ga_gchisq_exact_free(ey);
    return rc;
}

void pc_swap_input(ga_pair_input *in2, ga_pair_text *t2, const ga_pair_text **tp,
                   const ga_pair_input *in, const ga_pair_text *txt)
{
    *in2 = *in;
    in2->mu_x = in->mu_y;
    in2->mu_y = in->mu_x;
    in2->s_x = in->s_y;
    in2->s_y = in->s_x;
    in2->field[0] = in->field[1];
    in2->field[1] = in->field[0];
    in2->field[2] = in->field[3];
    in2->field[3] = in->field[2];
    *tp = NULL;
    if (txt) {
        t2->mu_x = txt->mu_y;
        t2->mu_y = txt->mu_x;
        t2->s_x = txt->s_y;
        t2->s_y = txt->s_x;
        *tp = t2;
    }
}

/* h(x) = e^{x^2} erfc(x) sqrt(pi) x for real x >= 64 by the asymptotic series
 * sum_{m<N} (-1)^m (2m-1)!!/(2x^2)^m, whose remainder is bounded by the first omitted term
 * (DLMF 7.12.1 and 7.12(i), real argument): terms are taken until one is below 2^-prec
 * (they decrease while m < x^2, so at most a few prec/log2(x) terms). */
static void erfc_scaled_large(arb_t h, const arb_t x, slong prec)
{
    arb_t t, y;
    arb_init(t);
    arb_init(y);
    arb_sqr(y, x, prec);
    arb_mul_2exp_si(y, y, 1); /* 2 x^2 */
    arb_one(h);
    arb_one(t);
    for (slong m = 1; m < 100000; m++) {
        arb_mul_si(t, t, -(2 * m - 1), prec);
        arb_div(t, t, y, prec);
        if (arb_rel_accuracy_bits(t) < 0 || mag_cmp_2exp_si(arb_radref(t), 0) > 0)
            break;
        arf_t a;
        arf_init(a);
        arb_get_abs_ubound_arf(a, t, prec);
        int small = arf_cmpabs_2exp_si(a, -prec - 8) < 0;
        arf_clear(a);
        if (small) { /* the first omitted term bounds the remainder */
            arb_add_error(h, t);
            break;
        }
        arb_add(h, h, t, prec);
    }
    arb_clear(t);
    arb_clear(y);
}

/* Q ~ N(k, s^2) (a mean shift with equal covariances): the closed form of the analytic
 * Gaussian mechanism (Balle & Wang 2018, Theorem 8), in ball arithmetic,
 *   E[(1 - e^{eps - Q})_+] = Phi(u) - e^{eps - k + s^2/2} Phi(u - s),  u = (k - eps)/s,
 * with Phi(z) = erfc(-z/sqrt 2)/2. Arb carries any exponent, so a claim at eps = 1e300 (a
 * delta near exp(-1e600), the two terms equal to 300 digits) is settled by escalating the
 * precision, with no integral. */
static void delta_normal(arb_t res, const arb_t sigma2, const arb_t offset, const arb_t eps,
                         slong prec)
{
    arb_t s, u, t, r2;
    arb_init(s);
    arb_init(u);
    arb_init(t);
    arb_init(r2);
    arb_sqrt(s, sigma2, prec);
    arb_sub(u, offset, eps, prec);
    arb_div(u, u, s, prec);
    arb_set_ui(r2, 2);
    arb_rsqrt(r2, r2, prec);
    arb_mul(t, u, r2, prec);
    arb_neg(t, t); /* x1 = -u/sqrt 2 */
    if (arb_gt(t, r2) && arf_cmp_si(arb_midref(t), 64) > 0 && arb_rel_accuracy_bits(t) > 8) {
        /* far tail (eps >> the loss mean): with x1 = (eps - k)/(s sqrt 2) and x2 = x1 +
         * s/sqrt 2, x2^2 - x1^2 = eps - k + s^2/2 exactly, so the exponential factors agree
         * and delta = e^{-x1^2} (h(x1)/x1 - h(x2)/x2) / (2 sqrt pi), h as above: no erfc of an
         * argument beyond Arb's reach, the cancellation (about s/x1) paid in precision */
        arb_t x2, h1, h2;
        arb_init(x2);
        arb_init(h1);
        arb_init(h2);
        arb_mul(x2, s, r2, prec);
        arb_add(x2, x2, t, prec);
        erfc_scaled_large(h1, t, prec);
        arb_div(h1, h1, t, prec);
        erfc_scaled_large(h2, x2, prec);
        arb_div(h2, h2, x2, prec);
        arb_sub(h1, h1, h2, prec);
        arb_sqr(h2, t, prec);
        arb_neg(h2, h2);
        arb_exp(h2, h2, prec);
        arb_mul(res, h1, h2, prec);
        arb_const_sqrt_pi(h2, prec);
        arb_div(res, res, h2, prec);
        arb_mul_2exp_si(res, res, -1);
        arb_clear(x2);
        arb_clear(h1);
        arb_clear(h2);
        goto cleanup;
    }
    arb_mul(t, u, r2, prec);
    arb_neg(t, t);
    arb_hypgeom_erfc(res, t, prec); /* 2 Phi(u) */
    arb_sub(t, u, s, prec);
    arb_mul(t, t, r2, prec);
    arb_neg(t, t);
    arb_hypgeom_erfc(t, t, prec); /* 2 Phi(u - s) */
    arb_mul_2exp_si(u, sigma2, -1);
    arb_sub(u, u, offset, prec);
    arb_add(u, u, eps, prec);
    arb_exp(u, u, prec);
    arb_mul(t, t, u, prec);
    arb_sub(res, res, t, prec);
    arb_mul_2exp_si(res, res, -1);
cleanup:
    arb_clear(s);
    arb_clear(u);
    arb_clear(t);
    arb_clear(r2);
}

void pc_shift_delta(arb_t res, const arb_t d2, const arb_t eps, slong prec)
{
    arb_t h;
    arb_init(h);
    arb_mul_2exp_si(h, d2, -1);
    delta_normal(res, d2, h, eps, prec);
    arb_clear(h);
}

/* Equal covariances (as exact numbers): the privacy loss is N(r D2/2, r D2) under X and
 * -l ~ N(r D2/2, r D2) under Y, D2 = (mu_x - mu_y)^T S^{-1} (mu_x - mu_y) the squared
 * Mahalanobis distance, computed here in ball arithmetic from the exact inputs: no floating
 * reduction, so no linear-algebra widening and no e^eps growth of the certificate. Returns
 * 1 with d2 = r D2 when the covariances are equal, 0 when they are not, 2 when the solve
 * fails at this precision, -1 on an unparsable entry. */
static int equal_cov_d2_plain(arb_t d2, const ga_pair *p, const ga_pair_input *in,
                              const ga_pair_text *txt, slong prec);

/* the same for any pair: a product's blocks add (independent losses; the first block whose
 * covariances differ, or whose solve fails, decides) */
static int equal_cov_d2(arb_t d2, const ga_pair *p, const ga_pair_input *in,
                        const ga_pair_text *txt, slong prec)
{
    if (!p->nblocks)
        return equal_cov_d2_plain(d2, p, in, txt, prec);
    arb_t u;
    arb_init(u);
    arb_zero(d2);
    int rc = 1;
    for (size_t b = 0; b < p->nblocks && rc == 1; b++) {
        rc = equal_cov_d2_plain(u, p->blocks[b], in + b, txt ? txt + b : NULL, prec);
        arb_add(d2, d2, u, prec);
    }
    arb_clear(u);
    return rc;
}

static int equal_cov_d2_plain(arb_t d2, const ga_pair *p, const ga_pair_input *in,
                              const ga_pair_text *txt, slong prec)
{
    slong k = (slong)in->d;
    int rc = 0;
    arb_mat_t S, dm, z;
    arb_t u, v;
    arb_mat_init(S, k, k);
    arb_mat_init(dm, k, 1);
    arb_mat_init(z, k, 1);
    arb_init(u);
    arb_init(v);
    for (slong i = 0; i < k * k; i++) {
        if (ga_cert_entry(u, txt ? txt->s_x : NULL, in->s_x, (size_t)i) ||
            ga_cert_entry(v, txt ? txt->s_y : NULL, in->s_y, (size_t)i)) {
            rc = -1;
            goto cleanup;
        }
        if (!arb_equal(u, v)) /* exact numbers: equal balls of radius 0 */
            goto cleanup;
        arb_set(arb_mat_entry(S, i / k, i % k), u);
    }
    for (slong i = 0; i < k; i++) {
        if (ga_cert_entry(u, txt ? txt->mu_x : NULL, in->mu_x, (size_t)i) ||
            ga_cert_entry(v, txt ? txt->mu_y : NULL, in->mu_y, (size_t)i)) {
            rc = -1;
            goto cleanup;
        }
        arb_sub(arb_mat_entry(dm, i, 0), u, v, PARSE_PREC);
    }
    int diagonal = 1; /* sigma^2 I and other diagonal noise: D2 = sum dm_i^2 / S_ii, O(k) */
    for (slong i = 0; i < k && diagonal; i++)
        for (slong j = 0; j < k && diagonal; j++)
            diagonal = i == j || arb_is_zero(arb_mat_entry(S, i, j));
    if (diagonal) {
        for (slong i = 0; i < k; i++)
            arb_div(arb_mat_entry(z, i, 0), arb_mat_entry(dm, i, 0), arb_mat_entry(S, i, i), prec);
    } else if (!arb_mat_spd_solve(z, S, dm, prec) && !arb_mat_solve(z, S, dm, prec)) {
        rc = 2;
        goto cleanup;
    }
    arb_zero(d2);
    for (slong i = 0; i < k; i++)
        arb_addmul(d2, arb_mat_entry(dm, i, 0), arb_mat_entry(z, i, 0), prec);
    arb_set_d(v, p->r);
    arb_mul(d2, d2, v, prec);
    rc = 1;
cleanup:
    arb_mat_clear(S);
    arb_mat_clear(dm);
    arb_mat_clear(z);
    arb_clear(u);
    arb_clear(v);
    return rc;
}

int pc_equal_cov_delta(arb_t xy, const ga_pair *p, const ga_pair_input *in,
                       const ga_pair_text *txt, const arb_t eps, slong prec)
{
    arb_t u;
    arb_init(u);
    int rc = equal_cov_d2(u, p, in, txt, prec);
    if (rc == 2)
        rc = 0; /* not settled at this precision */
    if (rc == 1) {
        if (arb_is_zero(u)) {
            arb_zero(xy); /* X = Y */
        } else if (!arb_is_positive(u)) {
            rc = 0;
        } else {
            pc_shift_delta(xy, u, eps, prec);
        }
    }
    arb_clear(u);
    return rc;
}

/* the squared Mahalanobis distance r D2 of an equal-covariance pair, escalated */
typedef struct {
    const ga_pair *p;
    const ga_pair_input *in;
    const ga_pair_text *txt;
    arb_ptr d2;
    ga_interval *t2;
} maha_ctx;

static int maha_step(void *vc, slong prec)
{
    maha_ctx *c = vc;
    int e = equal_cov_d2(c->d2, c->p, c->in, c->txt, prec);
    if (e < 0)
        return GA_EINVAL;
    if (e == 0)
        return GA_EDOM; /* the covariances differ */
    if (e == 2)
        return GA_EPREC; /* the solve did not settle at this precision */
    ga_arb_bounds(c->t2, c->d2);
    if (c->t2->lo < 0)
        c->t2->lo = 0;
    return arb_rel_accuracy_bits(c->d2) >= 60 || arb_is_zero(c->d2) ? GA_OK : GA_EPREC;
}

int ga_pair_mahalanobis_cert(ga_interval *t2, const ga_pair *p, const ga_pair_input *in,
                             const ga_pair_text *txt, const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    t2->lo = 0;
    t2->hi = INFINITY;
    if (!ga_cert_available(NULL))
        return GA_EDEP;
    if (p->support != GA_SUPPORT_FULL || !pr_has_laws(p))
        return GA_EDOM;
    if (p->in_tv[0] > 0 || p->in_tv[1] > 0) { /* a release: its D2 from the exact inputs */
        if (!(p->in_d2[1] > 0))
            return GA_EDOM;
        t2->lo = ga_dn(p->r * p->in_d2[0]);
        t2->hi = ga_up(p->r * p->in_d2[1]);
        return GA_OK;
    }
    arb_t d2;
    arb_init(d2);
    maha_ctx c = {p, in, txt, d2, t2};
    int rc = ga_arb_escalate(NULL, maha_step, &c, 128, o.max_prec, o.deadline);
    arb_clear(d2);
    return rc;
}

int pc_delta_one(arb_t res, const ga_gchisq_exact *q, const ga_gchisq *qd, const arb_t eps,
                 double epsd, double deadline, slong prec)
{
    arb_t cdf, sf;
    arb_init(cdf);
    arb_init(sf);
    int rc;
    if (ga_arb_exact_support(cdf, sf, q, eps) && arb_is_zero(sf)) {
        arb_zero(res); /* Q <= eps almost surely */
        rc = GA_OK;
    } else if (q->n == 0 && arb_is_positive(q->sigma2)) {
        delta_normal(res, q->sigma2, q->offset, eps, prec);
        rc = arb_is_finite(res) ? GA_OK : GA_EPREC;
    } else {
        ga_path dp;
        rc = ga_path_setup(&dp, qd, epsd, 1, GA_KERNEL_DELTA);
        dp.deadline = deadline;
        if (rc == GA_OK)
            rc = ga_arb_path_tail(res, q, eps, &dp, prec);
    }
    arb_clear(cdf);
    arb_clear(sf);
    return rc;
}

int pc_shift_deltas(arb_ptr d, arb_t h, const ga_pair *p, const ga_pair_input *in,
                    const ga_pair_text *txt, double kl, double epsd, slong prec)
{
    slong k = (slong)p->k;
    int rc = -1;
    arb_mat_t M, P, T, Id, v, dm, z;
    arb_t al, t, u;
    arb_mat_init(M, k, k);
    arb_mat_init(P, k, k);
    arb_mat_init(T, k, k);
    arb_mat_init(Id, k, k);
    arb_mat_init(v, k, 1);
    arb_mat_init(dm, k, 1);
    arb_mat_init(z, k, 1);
    arb_init(al);
    arb_init(t);
    arb_init(u);
    if (pc_la_whiten_floating(M, P, v, p, in, txt, prec))
        goto cleanup;
    arb_mat_one(Id);
    arb_mat_zero(T); /* diag(1 + lambda) */
    for (slong i = 0; i < k; i++) {
        arb_set_d(arb_mat_entry(T, i, i), p->lambda[i]);
        arb_add_ui(arb_mat_entry(T, i, i), arb_mat_entry(T, i, i), 1, prec);
        arb_set_d(t, p->mt[i]);
        arb_sub(arb_mat_entry(dm, i, 0), arb_mat_entry(v, i, 0), t, prec); /* v - mt */
    }
    /* alpha - 1 = 1/(8 sqrt(kl)) keeps (alpha - 1) |E| small (|E| ~ 2 sqrt(kl) the deviation
     * of the whitened covariances from each other), so D_alpha ~ alpha kl ~ sqrt(kl)/8;
     * h = 8 sqrt(kl) (eps + 1100) makes (alpha - 1)(h - D_alpha) >= eps + 1000, so that even
     * e^eps times these deltas is below e^-1000 */
    double sk = sqrt(fmax(kl, 1e-300));
    arb_set_d(al, 1 + 0.125 / sk);
    arb_set_d(h, 8 * sk * (fabs(epsd) + 1100));
    arb_mat_zero(z);
    int r0 = pc_renyi_ball(d + 0, P, T, dm, al, p->r, prec);  /* D(X || X'') */
    int r1 = pc_renyi_ball(d + 1, T, P, dm, al, p->r, prec);  /* D(X'' || X) */
    int r2 = pc_renyi_ball(d + 2, M, Id, z, al, p->r, prec);  /* D(Y || Y'') */
    int r3 = pc_renyi_ball(d + 3, Id, M, z, al, p->r, prec);  /* D(Y'' || Y) */
    if (r0 || r1 || r2 || r3)
        goto cleanup;
    arb_sub_ui(u, al, 1, prec);
    for (int i = 0; i < 4; i++) { /* d = exp((alpha - 1)(D - h)) */
        arb_sub(t, d + i, h, prec);
        arb_mul(t, t, u, prec);
        arb_exp(d + i, t, prec);
    }
    rc = 0;
cleanup:
    arb_mat_clear(M);
    arb_mat_clear(P);
    arb_mat_clear(T);
    arb_mat_clear(Id);
    arb_mat_clear(v);
    arb_mat_clear(dm);
    arb_mat_clear(z);
    arb_clear(al);
    arb_clear(t);
    arb_clear(u);
    return rc;
}

int pc_shift_bound(arb_t res, int dir, const ga_gchisq_exact *lx, const ga_gchisq_exact *ly,
                   const ga_gchisq *tx, const ga_gchisq *ty, arb_srcptr dd, const arb_t h,
                   const arb_t eps, double deadline, slong prec)
{
    const ga_gchisq_exact *q = dir ? ly : lx;
    const ga_gchisq *qd = dir ? ty : tx;
    /* xy: d(X||X''), d(Y''||Y) up; d(X''||X), d(Y||Y'') down. yx: X and Y exchanged */
    arb_srcptr up_a = dir ? dd + 2 : dd + 0, up_b = dir ? dd + 1 : dd + 3;
    arb_srcptr lo_a = dir ? dd + 3 : dd + 1, lo_b = dir ? dd + 0 : dd + 2;
    arb_t e2, lo, hi, t, eh;
    arb_init(e2);
    arb_init(lo);
    arb_init(hi);
    arb_init(t);
    arb_init(eh);
    int ok = 0;
    arb_exp(eh, h, prec);
    /* upper: e^h delta''(eps - 2h) + up_a + e^(eps - h) up_b */
    arb_mul_2exp_si(e2, h, 1);
    arb_sub(e2, eps, e2, prec);
    double e2d = arf_get_d(arb_midref(e2), ARF_RND_NEAR);
    if (pc_delta_one(hi, q, qd, e2, e2d, deadline, prec) != GA_OK)
        goto cleanup;
    arb_mul(hi, hi, eh, prec);
    arb_add(hi, hi, up_a, prec);
    arb_sub(t, eps, h, prec);
    arb_exp(t, t, prec);
    arb_mul(t, t, up_b, prec);
    arb_add(hi, hi, t, prec);
    /* lower: e^-h delta''(eps + 2h) - e^-h lo_a - e^eps lo_b */
    arb_mul_2exp_si(e2, h, 1);
    arb_add(e2, eps, e2, prec);
    e2d = arf_get_d(arb_midref(e2), ARF_RND_NEAR);
    if (pc_delta_one(lo, q, qd, e2, e2d, deadline, prec) != GA_OK)
        goto cleanup;
    arb_sub(lo, lo, lo_a, prec);
    arb_div(lo, lo, eh, prec);
    arb_exp(t, eps, prec);
    arb_mul(t, t, lo_b, prec);
    arb_sub(lo, lo, t, prec);
    /* the enclosure [lower end of lo, upper end of hi] */
    arf_t a, b;
    arf_init(a);
    arf_init(b);
    arb_get_lbound_arf(a, lo, prec);
    arb_get_ubound_arf(b, hi, prec);
    if (arf_cmp(a, b) <= 0) {
        arb_set_interval_arf(t, a, b, prec);
        if (!arb_is_finite(res) || arb_intersection(t, t, res, prec)) {
            arb_set(res, t);
            ok = 1;
        }
    }
    arf_clear(a);
    arf_clear(b);
cleanup:
    arb_clear(e2);
    arb_clear(lo);
    arb_clear(hi);
    arb_clear(t);
    arb_clear(eh);
    return ok;
}

int pc_renyi_ball(arb_t res, const arb_mat_t Sp, const arb_mat_t Sq, const arb_mat_t dm,
                  const arb_t alpha, double r, slong prec)
{
    slong k = arb_mat_nrows(Sp);
    int rc = -1;
    arb_mat_t Sa, T, L, x;
    arb_t t, ld, a1;
    arb_mat_init(Sa, k, k);
    arb_mat_init(T, k, k);
    arb_mat_init(L, k, k);
    arb_mat_init(x, k, 1);
    arb_init(t);
    arb_init(ld);
    arb_init(a1);
    arb_sub_ui(a1, alpha, 1, prec); /* alpha - 1 */
    arb_mat_scalar_mul_arb(Sa, Sq, alpha, prec);
    arb_mat_scalar_mul_arb(T, Sp, a1, prec);
    arb_mat_sub(Sa, Sa, T, prec);
    if (!arb_mat_cho(L, Sa, prec)) {
        /* not certainly positive definite: certainly not if its determinant is negative */
        arb_mat_det(t, Sa, prec);
        if (arb_is_negative(t) || (k == 1 && !arb_is_positive(arb_mat_entry(Sa, 0, 0)) &&
                                   arb_is_nonpositive(arb_mat_entry(Sa, 0, 0))))
            rc = 1;
        goto cleanup;
    }
    /* log det S_a */
    arb_zero(ld);
    for (slong i = 0; i < k; i++) {
        arb_log(t, arb_mat_entry(L, i, i), prec);
        arb_add(ld, ld, t, prec);
    }
    arb_mul_2exp_si(ld, ld, 1);
    /* quadratic term */
    if (!arb_mat_spd_solve(x, Sa, dm, prec))
        goto cleanup;
    arb_zero(res);
    for (slong i = 0; i < k; i++) {
        arb_mul(t, arb_mat_entry(x, i, 0), arb_mat_entry(dm, i, 0), prec);
        arb_add(res, res, t, prec);
    }
    arb_mul(res, res, alpha, prec);
    arb_mul_2exp_si(res, res, -1);
    /* - (ld - (1 - alpha) log det Sp - alpha log det Sq) / (2 (alpha - 1)) */
    arb_mat_t Lp;
    arb_mat_init(Lp, k, k);
    int ok = arb_mat_cho(Lp, Sp, prec);
    for (slong i = 0; i < k && ok; i++) {
        arb_log(t, arb_mat_entry(Lp, i, i), prec);
        arb_mul_2exp_si(t, t, 1);
        arb_mul(t, t, a1, prec); /* + (alpha - 1) log det Sp */
        arb_add(ld, ld, t, prec);
    }
    ok = ok && arb_mat_cho(Lp, Sq, prec);
    for (slong i = 0; i < k && ok; i++) {
        arb_log(t, arb_mat_entry(Lp, i, i), prec);
        arb_mul_2exp_si(t, t, 1);
        arb_mul(t, t, alpha, prec);
        arb_sub(ld, ld, t, prec);
    }
    arb_mat_clear(Lp);
    if (!ok)
        goto cleanup;
    arb_div(t, ld, a1, prec);
    arb_mul_2exp_si(t, t, -1);
    arb_sub(res, res, t, prec);
    pc_mul_d(res, r, prec);
    rc = arb_is_finite(res) ? 0 : -1;
cleanup:
    arb_mat_clear(Sa);
    arb_mat_clear(T);
    arb_mat_clear(L);
    arb_mat_clear(x);
    arb_clear(t);
    arb_clear(ld);
    arb_clear(a1);
    return rc;
}

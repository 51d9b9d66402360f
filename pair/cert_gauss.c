/*
 * cert_gauss.c - certified delta of a Gaussian pair (doc/design.md, section 4).
 *
 * 1. The floating reduction (L, V, lambda, mt) defines an exact pair: in whitened
 *    coordinates Y'' = N(0, I) and X'' = N(mt, diag(1 + lambda)) with the stored doubles as
 *    exact numbers. Its privacy loss laws are generalized chi-squares whose parameters are
 *    computed here in ball arithmetic, and delta'' = E[(1 - e^{eps - l})_+] is certified by
 *    the Bromwich integral with kernel 1/(z (z+1)) (numerics/cert.c).
 * 2. Hockey-stick divergence is invariant under an invertible affine map applied to both
 *    laws, so delta'' is also the delta of the pair W^{-1} (Y'', X'') for any invertible W.
 *    W ~ (L V)^{-1} is computed in floating point (a triangular solve) and taken as exact
 *    numbers, so the exact inputs are whitened by ball-matrix products alone: M = W S_y W^T,
 *    P = W S_x W^T, v = W (mu_x - mu_y). For every event S, |P_X(S) - P_X''(S)| <=
 *    TV(X, X''), so
 *      |delta_{X,Y} - delta_{X'',Y''}| <= TV(X, X'') + e^eps TV(Y, Y''),
 *    and TV <= sqrt(KL / 2) (Pinsker), with the Gaussian KL divergences (E = M - I,
 *    E' = D^{-1/2} P D^{-1/2} - I, D = diag(1 + lambda))
 *      KL(Y || Y'') = r/2 [tr E - log det(I + E)] <= r/2 ||E||_F^2 / (2 (1 - ||E||_F)),
 *      KL(X || X'') = r/2 [tr E' - log det(I + E') + sum (mt_i - v_i)^2 / (1 + lambda_i)],
 *    bounded alike: O(k^2) from the entries, no determinant (la_kl). Together with the
 *    products this makes the certificate a few k x k products per precision level
 *    (cert_inputs.c).
 *    The interval is widened by that bound. It does not shrink with the working precision:
 *    the escalation stops once the integration part is below it.
 * 3. Where that widening keeps the interval wider than asked, the reference pair is refined
 *    (la_refined: a basis W chosen so that W S_y W^T and W S_x W^T are diagonal to about
 *    1e-30 relative) and the integrals are computed again for it; the KL bounds of step 2 are
 *    computed against the refined reference, so the widening falls to 1e-36 (k = 50) to
 *    2e-23 (k = 2000: the BLAS products' own accuracy, below).
 * From dimension 64 the ball-matrix products run on the BLAS (ga_arb_mat_mul,
 * numerics/matmul.c: exact products of 20- to 23-bit limbs, about 2^-100 of the scale),
 * 3.5 times faster than Arb's at k = 1000.
 */
#include "pair/cert_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* stage 0 of pc_delta_cert: equal covariances, the closed form (both directions equal) */
typedef struct {
    const ga_pair *p;
    const ga_pair_input *in;
    const ga_pair_text *txt;
    arb_srcptr e;
    arb_ptr res;
    slong want;
    int applies;
} eqcov_ctx;

static int eqcov_step(void *vc, slong prec)
{
    eqcov_ctx *c = vc;
    int eq = pc_equal_cov_delta(c->res, c->p, c->in, c->txt, c->e, prec);
    c->applies = eq == 1;
    if (eq != 1)
        return GA_EDOM; /* the covariances differ (or the solve failed): not this stage */
    return arb_is_zero(c->res) || arb_rel_accuracy_bits(c->res) >= c->want ? GA_OK : GA_EPREC;
}

/* Can the reference be refined (stage 2b)? A plain pair of at most GA_REFINE_MAX
 * dimensions, or a product of such blocks (each refined on its own). */
static int refinable(const ga_pair *p)
{
    if (!p->nblocks)
        return p->k <= GA_REFINE_MAX;
    for (size_t b = 0; b < p->nblocks; b++)
        if (p->blocks[b]->nblocks || p->blocks[b]->k > GA_REFINE_MAX)
            return 0;
    return 1;
}

/* The linear-algebra certificate of any pair: a product's blocks add (TV of a product of
 * laws is at most the sum of the blocks' TVs), each block in its original directions.
 * f == NULL: against the floating reduction's reference (pc_la_certificate); otherwise against
 * the refined one (pc_la_refined, a refinable pair), which f receives: a product's blocks'
 * references concatenated in block order, as its lambda and mt. Returns 0, or -1 when some
 * block has none at this precision (f and the bounds are then partial). */
static int la_any(mag_t tvx, mag_t tvy, la_ref *f, const ga_pair *p, const ga_pair_input *in,
                  const ga_pair_text *txt, slong zbits, double deadline, slong prec)
{
    if (!p->nblocks)
        return f ? pc_la_refined(tvx, tvy, f, p, in, txt, zbits, deadline, prec)
                 : pc_la_certificate(tvx, tvy, p, in, txt, prec);
    mag_t a, b;
    mag_init(a);
    mag_init(b);
    mag_zero(tvx);
    mag_zero(tvy);
    int rc = 0;
    slong off = 0;
    for (size_t k = 0; k < p->nblocks && rc == 0; k++) {
        const ga_pair *q = p->blocks[k];
        const ga_pair_text *tk = txt ? txt + k : NULL, *tp = tk;
        ga_pair_input in2 = in[k];
        ga_pair_text t2;
        if (q->swapped)
            pc_swap_input(&in2, &t2, &tp, in + k, tk);
        if (f) { /* this block's slice of f */
            la_ref slice = {(slong)q->k, f->lam + off, f->mt + off};
            rc = pc_la_refined(a, b, &slice, q, &in2, tp, zbits, deadline, prec);
        } else {
            rc = pc_la_certificate(a, b, q, &in2, tp, prec);
        }
        off += (slong)q->k;
        mag_add(tvx, tvx, q->swapped ? b : a);
        mag_add(tvy, tvy, q->swapped ? a : b);
    }
    mag_clear(a);
    mag_clear(b);
    return rc;
}

/* stage 1: the linear-algebra certificate (TV bounds), until it stops shrinking; with f,
 * against the refined reference (stage 1b), which it fills in (a |lam| below 2^-zbits is 0) */
typedef struct {
    const ga_pair *p;
    const ga_pair_input *in;
    const ga_pair_text *txt;
    mag_ptr tvx, tvy;
    double prev;
    int have;
    la_ref *f;
    slong zbits;
    double enough; /* a widening at or below this needs no more precision (0: none) */
    double deadline;
} la_ctx;

static int la_step(void *vc, slong prec)
{
    la_ctx *c = vc;
    mag_t a, b;
    la_ref t;
    mag_init(a);
    mag_init(b);
    if (c->f)
        pc_la_ref_init(&t, (slong)c->p->k);
    int rc = GA_EPREC;
    if (la_any(a, b, c->f ? &t : NULL, c->p, c->in, c->txt, c->zbits, c->deadline, prec) == 0) {
        double wnow = fmax(mag_get_d(a), mag_get_d(b));
        mag_set(c->tvx, a);
        mag_set(c->tvy, b);
        if (c->f) { /* (the reference that goes with these bounds) */
            _arb_vec_set(c->f->lam, t.lam, t.k);
            _arb_vec_set(c->f->mt, t.mt, t.k);
        }
        c->have = 1;
        int settled = wnow > 0.25 * c->prev;
        c->prev = wnow;
        if (settled || wnow == 0 || wnow <= c->enough)
            rc = GA_OK;
    }
    if (c->f)
        pc_la_ref_clear(&t);
    mag_clear(a);
    mag_clear(b);
    return rc;
}

/* stage 2: the two integrals plus the widening TV(X, X'') + e^eps TV(Y, Y'') (xy), roles
 * swapped for yx; xy/yx hold the latest enclosures */
typedef struct {
    const ga_pair *p;
    ga_gchisq_exact *lx, *ly;
    arb_srcptr e;
    arb_ptr ee;
    double epsd, deadline;
    arb_ptr xy, yx;
    mag_srcptr tvx, tvy;
    slong want, acc_xy, acc_yx;
    int stalls_xy, stalls_yx;
    ga_delta_cert *out;
    arb_t ixy, iyx;
    const la_ref *ref; /* the refined reference, or NULL */
} integrals_ctx;

/* one direction's integral at one precision (integrals_step's) */
typedef struct {
    const integrals_ctx *c;
    const ga_gchisq *t[2];
} ints_args;

static int ints_dir(arb_t v, void *ctx, int dir, slong prec)
{
    const ints_args *a = ctx;
    const integrals_ctx *c = a->c;
    return pc_delta_one(v, dir ? c->ly : c->lx, a->t[dir], c->e, c->epsd, c->deadline, prec);
}

static int integrals_step(void *vc, slong prec)
{
    integrals_ctx *c = vc;
    const ga_pair *p = c->p;
    /* the double twins of the exact forms: those of the reduced pair, which is (Y, X) when
     * the reduction whitened by X (ga_pair keeps the original directions); a product's
     * exact forms are in the original directions */
    const ga_gchisq *tx = p->swapped ? p->ly : p->lx, *ty = p->swapped ? p->lx : p->ly;
    if (p->nblocks) {
        if (pc_product_exact_forms(c->lx, c->ly, p, c->ref, prec))
            return GA_ENOMEM;
    } else {
        pc_exact_forms(c->lx, c->ly, p, c->ref, prec);
    }
    /* (both directions at once on the threads lent to the certificate) */
    ints_args ia = {c, {tx, ty}};
    pc_dirs D;
    pc_dirs_init(&D, ints_dir, &ia, (int[2]){1, 1}, prec);
    pc_dirs_run(&D, 1);
    int rc = GA_OK;
    for (int dir = 0; dir < 2 && rc == GA_OK; dir++)
        rc = !D.ran[dir] ? D.guard[dir] : D.st[dir] != GA_OK ? GA_EPREC : GA_OK;
    arb_swap(c->ixy, D.v[0]);
    arb_swap(c->iyx, D.v[1]);
    pc_dirs_clear(&D);
    if (rc != GA_OK)
        return rc;
    arb_exp(c->ee, c->e, prec);
    mag_t wx, wy, tmp;
    mag_init(wx);
    mag_init(wy);
    mag_init(tmp);
    arb_get_mag(tmp, c->ee);
    mag_mul(wx, tmp, c->tvy);
    mag_add(wx, wx, c->tvx);
    mag_mul(wy, tmp, c->tvx);
    mag_add(wy, wy, c->tvy);
    int done_xy = mag_cmp(arb_radref(c->ixy), wx) <= 0 || arb_rel_accuracy_bits(c->ixy) >= c->want;
    int done_yx = mag_cmp(arb_radref(c->iyx), wy) <= 0 || arb_rel_accuracy_bits(c->iyx) >= c->want;
    c->out->la_bound_xy = mag_get_d(wx);
    c->out->la_bound_yx = mag_get_d(wy);
    arb_set(c->xy, c->ixy);
    arb_set(c->yx, c->iyx);
    arb_add_error_mag(c->xy, wx);
    arb_add_error_mag(c->yx, wy);
    mag_clear(wx);
    mag_clear(wy);
    mag_clear(tmp);
    if (done_xy && done_yx)
        return GA_OK;
    int stalled_xy = ga_arb_stalled(&c->acc_xy, &c->stalls_xy, c->ixy);
    int stalled_yx = ga_arb_stalled(&c->acc_yx, &c->stalls_yx, c->iyx);
    if ((done_xy || stalled_xy) && (done_yx || stalled_yx))
        return GA_ARB_STALLED; /* more precision would not narrow what is left */
    return GA_EPREC;
}

/* one direction's shifted certificate (pc_shift_bound, from the enclosure so far): 1 where it
 * narrowed it into v */
typedef struct {
    arb_srcptr xy, yx;
    const ga_gchisq_exact *lx, *ly;
    const ga_gchisq *tx, *ty;
    arb_srcptr dd, h, e;
    double deadline;
} shift_args;

static int shift_dir(arb_t v, void *ctx, int dir, slong prec)
{
    const shift_args *a = ctx;
    arb_set(v, dir ? a->yx : a->xy);
    return pc_shift_bound(v, dir, a->lx, a->ly, a->tx, a->ty, a->dd, a->h, a->e, a->deadline,
                          prec);
}

/* v <- v + [-(a + ee b), a + ee b] (a, b >= 0 doubles, ee a ball) */
static void widen_tv(arb_t v, double a, double b, const arb_t ee)
{
    arb_t t;
    arf_t u;
    arb_init(t);
    arf_init(u);
    arb_set_d(t, b);
    arb_mul(t, t, ee, 64);
    arb_t x;
    arb_init(x);
    arb_set_d(x, a);
    arb_add(t, t, x, 64);
    arb_clear(x);
    arb_get_ubound_arf(u, t, 64);
    arb_add_error_arf(v, u);
    arb_clear(t);
    arf_clear(u);
}

/* Certified delta of a Gaussian pair (or product) at the exact text eps, both directions, by
 * the method in this file's top comment: equal covariances in closed form, else the exact
 * loss forms' Bromwich integrals escalated in precision, widened by the certificate that the
 * reduced laws are near the exact inputs, the reference refined where that widening is too
 * wide. One algorithm whose stages share the forms, the widening and the escalation state.
 * out's intervals are enclosures whatever the status: GA_OK, GA_EPREC (valid, wider than
 * asked), GA_ETIME, GA_ENOMEM, GA_EINVAL (eps or the inputs unreadable). */
int pc_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                  const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    /* whatever the status, the intervals are enclosures: [0, 1] until something is known */
    pc_cert_unknown(out);
    int rc = GA_EINVAL;
    arb_t e, ee, xy, yx, w;
    mag_t tvx, tvy;
    ga_gchisq_exact *lx = ga_gchisq_exact_alloc(), *ly = ga_gchisq_exact_alloc();
    arb_init(e);
    arb_init(ee);
    arb_init(xy);
    arb_init(yx);
    /* nothing is known until an integral succeeds: [0, 1], never the 0 of arb_init (which
     * a failed escalation would otherwise print as the certificate [0, 0]) */
    arb_indeterminate(xy);
    arb_indeterminate(yx);
    arb_init(w);
    mag_init(tvx);
    mag_init(tvy);
    if (!lx || !ly) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    if (arb_set_str(e, eps, PARSE_PREC) != 0 || !arb_is_finite(e))
        goto cleanup;
    double epsd = arf_get_d(arb_midref(e), ARF_RND_NEAR);
    if (p->support == GA_SUPPORT_DIFFER && !p->support_exact) {
        rc = GA_EDOM; /* a rank tolerance decided the supports: no certificate */
        goto cleanup;
    }
    if (p->support == GA_SUPPORT_DIFFER) {
        arb_one(xy);
        arb_one(yx);
        rc = GA_OK;
        goto done;
    }
    if (p->support != GA_SUPPORT_FULL) {
        rc = GA_EDOM; /* singular covariances: certified mode not available */
        goto cleanup;
    }
    /* 0. eps at or above the loss's supremum (a direction whose loss is bounded above):
     *    delta is exactly 0 there; both directions so: nothing to integrate */
    int zx = pc_loss_sup_below(p, in, txt, 0, e, 128), zy = pc_loss_sup_below(p, in, txt, 1, e, 128);
    if (zx && zy) {
        arb_zero(xy);
        arb_zero(yx);
        out->precision_bits = 128;
        rc = GA_OK;
        goto done;
    }
    /* 0. equal covariances: the closed form on the exact inputs, escalated */
    {
        eqcov_ctx c = {p, in, txt, e, xy, pc_want_bits(o.digits), 0};
        int r = ga_arb_escalate(&out->precision_bits, eqcov_step, &c, 64, o.max_prec, o.deadline);
        if (c.applies) {
            arb_set(yx, xy);
            rc = r;
            goto done;
        }
        if (r == GA_ENOMEM || r == GA_EDEP || r == GA_ETIME) { /* (not "another stage") */
            rc = r;
            goto cleanup;
        }
    }
    /* 1. the linear-algebra certificate, escalated until it stops shrinking (TV ~ sqrt(KL):
     *    the radius of the KL ball matters until 2^-prec is below KL itself) */
    slong want = pc_want_bits(o.digits);
    {
        /* where the refined reference will be needed anyway (a width the floating one, about
         * 1e-16 k relative, cannot give, at a size where the products run on the BLAS and
         * are accurate to 2^-80 already at 64 bits), one level: the bounds of any level are
         * valid, and a second level only confirmed that the first had settled */
        double enough =
            refinable(p) && p->k >= GA_ARB_MAT_BLAS_MIN && want > 40 ? INFINITY : 0;
        la_ctx c = {p, in, txt, tvx, tvy, INFINITY, 0, NULL, 0, enough, o.deadline};
        int r = ga_arb_escalate(NULL, la_step, &c, 64, o.max_prec, o.deadline);
        rc = ga_expired(o.deadline) ? GA_ETIME : GA_EPREC;
        if (!c.have && (r == GA_ENOMEM || r == GA_EDEP)) /* a failure, not a wide interval */
            rc = r;
        if (!c.have)
            goto cleanup;
    }
    /* 2. the integrals, escalated until narrow enough or below the widening */
    {
        integrals_ctx c = {.p = p, .lx = lx, .ly = ly, .e = e, .ee = ee, .epsd = epsd,
                           .deadline = o.deadline, .xy = xy, .yx = yx, .tvx = tvx, .tvy = tvy,
                           .want = want, .acc_xy = WORD_MIN / 2, .acc_yx = WORD_MIN / 2, .out = out};
        arb_init(c.ixy);
        arb_init(c.iyx);
        rc = ga_arb_escalate(&out->precision_bits, integrals_step, &c, 64, o.max_prec, o.deadline);
        arb_clear(c.ixy);
        arb_clear(c.iyx);
    }
    /* 2b. where the widening keeps an interval wider than asked, the refined
     *     reference: its widening is of the order of the refinement's second-order residual
     *     (1e-30 for a well-conditioned pair), then the integrals again, at their own
     *     precision; both results are enclosures, so they are intersected */
    if (refinable(p) && out->precision_bits > 0 && !ga_expired(o.deadline) &&
        ((arb_rel_accuracy_bits(xy) < want && out->la_bound_xy > 0) ||
         (arb_rel_accuracy_bits(yx) < want && out->la_bound_yx > 0))) {
        la_ref f;
        mag_t rx, ry;
        pc_la_ref_init(&f, (slong)p->k);
        mag_init(rx);
        mag_init(ry);
        /* a refined widening 2^-8 below the width asked (of the smaller delta) needs no
         * second precision level to confirm it has settled: each level is a dozen k x k
         * ball-matrix products */
        ga_interval bx, by;
        ga_arb_bounds(&bx, xy);
        ga_arb_bounds(&by, yx);
        double lo = fmin(bx.lo, by.lo);
        la_ctx c = {p, in, txt, rx, ry, INFINITY, 0, &f, 2 * want,
                    lo > 0 ? ldexp(lo, -(int)want - 8) : 0, o.deadline};
        /* (precision: what the width asked needs, with room; not the 4096-bit cap. From
         * dimension 64 the products run on the BLAS, whose accuracy stops growing at 128
         * bits (about 2^-100 of the scale, numerics/matmul.c): one level) */
        slong cap = 8 * want + 256 < o.max_prec ? 8 * want + 256 : o.max_prec;
        slong la_cap = p->k >= GA_ARB_MAT_BLAS_MIN && cap > 128 ? 128 : cap;
        ga_arb_escalate(NULL, la_step, &c, 128, la_cap, o.deadline);
        if (c.have && (mag_cmp(rx, tvx) < 0 || mag_cmp(ry, tvy) < 0)) {
            arb_t xy2, yx2;
            ga_delta_cert o2;
            slong bits2 = 0;
            arb_init(xy2);
            arb_init(yx2);
            arb_indeterminate(xy2);
            arb_indeterminate(yx2);
            memset(&o2, 0, sizeof o2);
            integrals_ctx c2 = {.p = p, .lx = lx, .ly = ly, .e = e, .ee = ee, .epsd = epsd,
                                .deadline = o.deadline, .xy = xy2, .yx = yx2, .tvx = rx,
                                .tvy = ry, .want = want, .acc_xy = WORD_MIN / 2,
                                .acc_yx = WORD_MIN / 2, .out = &o2, .ref = &f};
            arb_init(c2.ixy);
            arb_init(c2.iyx);
            int r2 = ga_arb_escalate(&bits2, integrals_step, &c2, 64, cap, o.deadline);
            arb_clear(c2.ixy);
            arb_clear(c2.iyx);
            if (arb_is_finite(xy2) && arb_is_finite(yx2) && arb_overlaps(xy, xy2) &&
                arb_overlaps(yx, yx2)) {
                arb_intersection(xy, xy, xy2, 2 * want + 64);
                arb_intersection(yx, yx, yx2, 2 * want + 64);
                out->la_bound_xy = o2.la_bound_xy;
                out->la_bound_yx = o2.la_bound_yx;
                if (bits2 > out->precision_bits)
                    out->precision_bits = bits2;
                if (r2 == GA_OK) /* (otherwise the first status stands: its interval did) */
                    rc = r2;
            }
            arb_clear(xy2);
            arb_clear(yx2);
        }
        pc_la_ref_clear(&f);
        mag_clear(rx);
        mag_clear(ry);
    }
    /* 3. where the widening TV(X, X'') + e^eps TV(Y, Y'') left an interval wider than asked
     *    (large eps), the shifted certificate, whose linear-algebra part does not grow with
     *    e^eps; both are enclosures, so they are intersected */
    /* (its own accuracy is about 2h |d log delta/d eps| ~ 1e-11 relative: worth its cost
     * only where the TV widening left less than about 20 bits) */
    if (!p->nblocks && out->precision_bits > 0 && !ga_expired(o.deadline) &&
        (arb_rel_accuracy_bits(xy) < 20 || arb_rel_accuracy_bits(yx) < 20)) {
        slong prec = out->precision_bits < 256 ? 256 : out->precision_bits;
        double kl = 2 * fmax(mag_get_d(tvx), mag_get_d(tvy));
        kl *= kl / 2; /* TV = sqrt(KL/2): KL = 2 TV^2 */
        arb_ptr dd = _arb_vec_init(4);
        arb_t h;
        arb_init(h);
        pc_exact_forms(lx, ly, p, NULL, prec); /* (the shift uses the unrefined TVs) */
        if (pc_shift_deltas(dd, h, p, in, txt, kl, epsd, prec) == 0) {
            const ga_gchisq *tx = p->swapped ? p->ly : p->lx, *ty = p->swapped ? p->lx : p->ly;
            shift_args sa = {xy, yx, lx, ly, tx, ty, dd, h, e, o.deadline};
            pc_dirs D;
            pc_dirs_init(&D, shift_dir, &sa, (int[2]){1, 1}, prec);
            pc_dirs_run(&D, 1); /* (both at once on the threads lent to the certificate) */
            int n1 = D.ran[0] && D.st[0], n2 = D.ran[1] && D.st[1];
            if (n1)
                arb_set(xy, D.v[0]);
            if (n2)
                arb_set(yx, D.v[1]);
            pc_dirs_clear(&D);
            if ((n1 || n2) && arb_rel_accuracy_bits(xy) >= want && arb_rel_accuracy_bits(yx) >= want)
                rc = GA_OK;
        }
        _arb_vec_clear(dd, 4);
        arb_clear(h);
    }
    if (zx) /* (exactly 0, whatever the integrals gave) */
        arb_zero(xy);
    if (zy)
        arb_zero(yx);
done:
    /* laws within total variation of the exact ones (pair_release.c): delta_{X,Y} moves by
     * at most tv_X + e^eps tv_Y (here X is the reduction's, Y's when it was swapped) */
    if (p->in_tv[0] > 0 || p->in_tv[1] > 0) {
        double tx = p->in_tv[p->swapped ? 1 : 0], ty = p->in_tv[p->swapped ? 0 : 1];
        arb_exp(ee, e, 64);
        widen_tv(xy, tx, ty, ee);
        widen_tv(yx, ty, tx, ee);
    }
    /* delta lies in [0, 1] */
    arb_set_d(w, 0.5);
    mag_set_d(arb_radref(w), 0.5);
    if (arb_is_finite(xy))
        arb_intersection(xy, xy, w, 256);
    if (arb_is_finite(yx))
        arb_intersection(yx, yx, w, 256);
    ga_arb_prob_out(&out->xy, out->xy_lo, out->xy_hi, sizeof out->xy_lo, xy, o.digits + 3);
    ga_arb_prob_out(&out->yx, out->yx_lo, out->yx_hi, sizeof out->yx_lo, yx, o.digits + 3);
cleanup:
    ga_gchisq_exact_free(lx);
    ga_gchisq_exact_free(ly);
    arb_clear(e);
    arb_clear(ee);
    arb_clear(xy);
    arb_clear(yx);
    arb_clear(w);
    mag_clear(tvx);
    mag_clear(tvy);
    return rc;
}

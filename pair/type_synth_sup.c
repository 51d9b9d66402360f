/*
 * type_synth_sup.c - synthetic points from random inputs over a universe of models: the
 * supremum of delta over every pair of models whose norms are at most R and whose distance is
 * at most D (Pierquin, Bellet, Tommasi & Boussard, "Privacy Amplification Through Synthetic
 * Data", 003, Section 4: the release depends on a model through its norm only).
 *
 * Order. Given a model of norm a the release's squared norm over sigma^2 is T = S C, S ~
 * chi^2_d(a^2 / sigma^2), C ~ chi^2_m. Noncentral chi-square densities are totally positive of
 * order 2 in (x, lambda) (Poisson mixtures of central ones, each TP2 in (x, degrees)), so
 * log S is TP2 in (u, a); log C has a log-concave density, so log T = log S + log C is TP2 in
 * (v, a) (Karlin's composition). The laws P_a of T thus have monotone likelihood ratios: for
 * a < b the optimal events of delta(P_a || P_b) are lower sets {T < t} and those of
 * delta(P_b || P_a) upper sets {T > t}, and P_a[T > t] increases with a. Hence delta(P_a ||
 * P_b) grows as a decreases or b increases (a < b), and as b increases or a decreases in
 * delta(P_b || P_a): the supremum over the universe U = {0 <= a, b <= R, |a - b| <= D} lies on
 * the lines b = a + D' (D' = min(D, R)), a in [0, R - D'], in both orders. U is symmetric, so
 * both directions of this pair are the same supremum.
 *
 * Cells. For a in [u, v] both delta(P_a || P_{a+D'}) and delta(P_{a+D'} || P_a) are at most
 * the two directions of the pair (u, v + D') (its norms rounded outward), while (u, u + D')
 * belongs to U (rounded inward). Branch and bound: the cell of largest upper bound is halved
 * until every upper bound is within a relative TOL of the best lower bound (or a cap). In
 * double precision the upper and lower bounds carry the evaluations' error estimates, and
 * the estimate is the middle of [best lower bound, largest upper bound]; certified, the
 * double partition's cells are each bounded by a certified delta (synth.c's tails in Arb),
 * the lower end by certified deltas at the best points, so the supremum lies in the interval.
 */
#include "pair/internal.h"
#include "base/base.h"
#include "numerics/numerics.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUP_CELLS0 32   /* the first partition of [0, R - D'] */
#define SUP_TOL 1e-2    /* the cells' upper bounds within this of the best lower bound */
#define SUP_EVALS 3000  /* double evaluations at most (about a millisecond each) */
#define SUP_CERT_DIGITS 4

typedef struct {
    double u, v, up;  /* the cell [u, v] and its upper bound (double) */
} cell_t;

/* the universe: norms in [0, R], distance at most D' = min(D, R), a on [0, amax], amax
 * rounded up from the decimals' R - D' (each double within half an ulp of its decimal), so
 * the cells cover every smaller norm of the universe */
static void universe(double *dd, double *amax, const ga_synthetic_input *in)
{
    *dd = fmin(in->distance, in->norm_bound);
    *amax = in->distance >= in->norm_bound
                ? 0
                : fmax(nextafter(nextafter(in->norm_bound, INFINITY) - nextafter(*dd, 0), INFINITY), 0);
}

/* a synthetic pair of models of norms a and b (doubles, exact) */
static int synth_pair(ga_pair **out, const ga_synthetic_input *in, double a, double b)
{
    ga_synthetic_input s = {in->dim, in->points, in->sigma, a, b, in->sigma_txt, NULL, NULL, 0, 0};
    char msg[160];
    return ga_pair_reduce_synthetic(out, &s, msg, sizeof msg);
}

/* max over both directions of delta at eps of the pair (a, b): the upper end (val + err) or
 * the lower end (val - err) */
static int eval_pair(double *res, const ga_synthetic_input *in, double a, double b, double eps,
                     int upper, size_t *evals)
{
    double la = (a / in->sigma) * (a / in->sigma), lb = (b / in->sigma) * (b / in->sigma), z;
    ga_result d[2];
    ++*evals;
    for (int k = 0; k < 2; k++) { /* (the noncentralities' rounding: the pairs a, b as doubles
                                     are members and covers up to it, well below the error) */
        int rc = ga_synth_delta(&d[k], &z, in->dim, in->points, k ? lb : la, k ? la : lb, eps);
        if (rc != GA_OK)
            return rc;
    }
    double x = upper ? d[0].val + d[0].err : d[0].val - d[0].err;
    double y = upper ? d[1].val + d[1].err : d[1].val - d[1].err;
    *res = fmax(fmax(x, y), 0);
    return isfinite(*res) ? GA_OK : GA_ETOL;
}

/* Several pairs' evaluations at once: pair j is (a[j], b[j]), its upper (up[j]) or lower end
 * into res[j], its status into rc[j]; on the threads lent to this pair (ga_par_inner_jobs:
 * each result is the one evaluation's, whichever thread made it) */
typedef struct {
    const ga_synthetic_input *in;
    double eps;
    const double *a, *b;
    const int *up;
    double *res;
    int *rc;
} eval_batch;

static void eval_item(void *ctx, size_t j, ga_gchisq_work *w)
{
    (void)w;
    eval_batch *e = ctx;
    size_t one = 0;
    e->rc[j] = eval_pair(&e->res[j], e->in, e->a[j], e->b[j], e->eps, e->up[j], &one);
}

/* the evaluations of e (n of them, counted in *evals): the first failure in index order, or
 * GA_OK */
static int eval_all(eval_batch *e, size_t n, size_t *evals)
{
    ga_par_items(n, ga_par_inner_jobs(), 0, eval_item, e);
    *evals += n;
    for (size_t j = 0; j < n; j++)
        if (e->rc[j] != GA_OK)
            return e->rc[j];
    return GA_OK;
}

/* the cover pair's norms of the cell [u, v]: u and v + D' rounded up */
static double cover_b(double v, double dd)
{
    return nextafter(v + nextafter(dd, INFINITY), INFINITY);
}

/* a member of the universe at a: (a, a + D') rounded down, and below the norm bound (whose
 * double may exceed its decimal by half an ulp) */
static double member_b(double a, double dd, double R)
{
    return fmin(nextafter(a + nextafter(dd, 0), 0), nextafter(R, 0));
}

/* the best member near a: golden-section search of the member's lower bound on [lo, hi]
 * (the function is smooth; a local refinement of the grid's best point, the branch and bound
 * below proves the rest) */
static int golden(double *lb, double *abest, const ga_synthetic_input *in, double lo, double hi,
                  double dd, double eps, size_t *evals)
{
    const double g = 0.5 * (sqrt(5.0) - 1);
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1, f2;
    int rc;
    if ((rc = eval_pair(&f1, in, x1, member_b(x1, dd, in->norm_bound), eps, 0, evals)) ||
        (rc = eval_pair(&f2, in, x2, member_b(x2, dd, in->norm_bound), eps, 0, evals)))
        return rc;
    for (int it = 0; it < 30 && hi - lo > 1e-9 * (1 + hi); it++) {
        if (f1 >= f2) {
            hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo);
            rc = eval_pair(&f1, in, x1, member_b(x1, dd, in->norm_bound), eps, 0, evals);
        } else {
            lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo);
            rc = eval_pair(&f2, in, x2, member_b(x2, dd, in->norm_bound), eps, 0, evals);
        }
        if (rc)
            return rc;
    }
    double f = fmax(f1, f2), x = f1 >= f2 ? x1 : x2;
    if (f > *lb) {
        *lb = f;
        *abest = x;
    }
    return GA_OK;
}

/* The pair's last partition (p->dcache, one block): delta is nonincreasing in eps for every
 * pair, so at a larger eps its cells' bounds still hold (stale, re-evaluated before a split)
 * and its best point is where the search for the best member starts: a curve's points, in
 * increasing eps, cost a fraction of a fresh search each */
typedef struct {
    double eps, abest;
    size_t n;
    cell_t c[SUP_CELLS0 + SUP_EVALS];
} sup_cache;

static pthread_mutex_t sup_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The double branch and bound at eps to the relative tolerance tol, into the buffer c (room
 * for SUP_CELLS0 + SUP_EVALS cells): *n cells, each with its upper bound, *lb the best lower
 * bound and *abest where it is attained (the best of a grid of members, or of the warm
 * start's best point, refined by golden section). With warm (its eps at most this one) the
 * partition starts from warm's cells, their bounds stale. GA_OK when every upper bound is
 * within tol of *lb (or below 1e-300), GA_ETOL at the cap, an evaluation's failure otherwise.
 */
static int sup_bb(cell_t *c, size_t *n, double *lb, double *abest, const ga_synthetic_input *in,
                  double eps, double tol, double deadline, const sup_cache *warm)
{
    double dd, amax;
    universe(&dd, &amax, in);
    size_t cap = SUP_CELLS0 + SUP_EVALS, nc = 0, evals = 0, n0 = amax > 0 ? SUP_CELLS0 : 1;
    unsigned char stale[SUP_CELLS0 + SUP_EVALS];
    int rc = GA_OK;
    *lb = 0;
    *abest = 0;
    if (warm && warm->eps <= eps && warm->n >= 1) {
        double f, h = amax / (double)n0, x = warm->abest;
        nc = warm->n;
        memcpy(c, warm->c, nc * sizeof *c);
        memset(stale, 1, nc);
        if ((rc = eval_pair(&f, in, x, member_b(x, dd, in->norm_bound), eps, 0, &evals)) == GA_OK) {
            *lb = f;
            *abest = x;
            if (amax > 0 && f > 0)
                rc = golden(lb, abest, in, fmax(x - h, 0), fmin(x + h, amax), dd, eps, &evals);
        }
    } else {
        /* the grid's members (lower ends, j <= n0) and the cells' bounds (upper ends, j > n0:
         * cell j - n0 - 1), evaluated together */
        double ga[2 * SUP_CELLS0 + 1], gb[2 * SUP_CELLS0 + 1], gr[2 * SUP_CELLS0 + 1];
        int gu[2 * SUP_CELLS0 + 1], grc[2 * SUP_CELLS0 + 1];
        size_t ib = 0, ng = 2 * n0 + 1;
        for (size_t i = 0; i <= n0; i++) {
            double u = i == n0 ? amax : amax * (double)i / (double)n0;
            ga[i] = u;
            gb[i] = member_b(u, dd, in->norm_bound);
            gu[i] = 0;
        }
        for (size_t i = 0; i < n0; i++) {
            double u = amax * (double)i / (double)n0,
                   v = i + 1 == n0 ? amax : amax * (double)(i + 1) / (double)n0;
            c[i] = (cell_t){u, v, 0};
            stale[i] = 0;
            ga[n0 + 1 + i] = u;
            gb[n0 + 1 + i] = cover_b(v, dd);
            gu[n0 + 1 + i] = 1;
        }
        eval_batch e = {in, eps, ga, gb, gu, gr, grc};
        rc = eval_all(&e, ng, &evals);
        for (size_t i = 0; i <= n0 && rc == GA_OK; i++) {
            if (gr[i] > *lb) {
                *lb = gr[i];
                *abest = ga[i];
                ib = i;
            }
        }
        if (rc == GA_OK && amax > 0 && *lb > 0)
            rc = golden(lb, abest, in, amax * (double)(ib ? ib - 1 : 0) / (double)n0,
                        ib + 1 >= n0 ? amax : amax * (double)(ib + 1) / (double)n0, dd, eps, &evals);
        for (size_t i = 0; i < n0; i++)
            c[i].up = gr[n0 + 1 + i];
        nc = rc == GA_OK ? n0 : 0;
    }
    while (rc == GA_OK) {
        size_t k = 0;
        for (size_t i = 1; i < nc; i++)
            if (c[i].up > c[k].up)
                k = i;
        if (c[k].up <= *lb * (1 + tol) || c[k].up < 1e-300)
            break;
        if (nc + 1 > cap || evals + 2 > SUP_EVALS) {
            rc = GA_ETOL;
            break;
        }
        if (deadline > 0 && ga_expired(deadline)) {
            rc = GA_ETIME;
            break;
        }
        if (stale[k]) { /* (a bound of a smaller eps: evaluated afresh first) */
            rc = eval_pair(&c[k].up, in, c[k].u, cover_b(c[k].v, dd), eps, 1, &evals);
            stale[k] = 0;
            continue;
        }
        double m = 0.5 * (c[k].u + c[k].v);
        if (!(m > c[k].u && m < c[k].v)) { /* (a cell of two doubles: its bound stands) */
            rc = GA_ETOL;
            break;
        }
        c[nc] = (cell_t){m, c[k].v, 0};
        c[k].v = m;
        stale[nc] = 0;
        /* (the two halves' bounds together) */
        double ha[2] = {m, c[k].u}, hb[2] = {cover_b(c[nc].v, dd), cover_b(m, dd)}, hr[2];
        int hu[2] = {1, 1}, hrc[2];
        eval_batch e = {in, eps, ha, hb, hu, hr, hrc};
        if ((rc = eval_all(&e, 2, &evals)))
            break;
        c[nc].up = hr[0];
        c[k].up = hr[1];
        nc++;
    }
    *n = nc;
    return rc;
}

/* sup_bb from the pair's last partition (where it is of a smaller eps), which it then
 * replaces; c has room for SUP_CELLS0 + SUP_EVALS cells */
static int sup_search(cell_t *c, size_t *n, double *lb, double *abest, const ga_pair *p,
                      double eps, double tol, double deadline)
{
    sup_cache *warm = malloc(sizeof *warm);
    int have = 0;
    if (warm) {
        pthread_mutex_lock(&sup_lock);
        if ((have = p->dcache != NULL))
            memcpy(warm, p->dcache, sizeof *warm);
        pthread_mutex_unlock(&sup_lock);
    }
    int rc = sup_bb(c, n, lb, abest, p->input, eps, tol, deadline, have ? warm : NULL);
    if (warm && (rc == GA_OK || rc == GA_ETOL)) {
        warm->eps = eps;
        warm->abest = *abest;
        warm->n = *n;
        memcpy(warm->c, c, *n * sizeof *c);
        pthread_mutex_lock(&sup_lock);
        ga_pair *q = (ga_pair *)p; /* (the cache only: the pair's values do not change) */
        if (!q->dcache)
            q->dcache = malloc(sizeof *warm);
        if (q->dcache)
            memcpy(q->dcache, warm, sizeof *warm);
        pthread_mutex_unlock(&sup_lock);
    }
    free(warm);
    return rc;
}

static double max_up(const cell_t *c, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, c[i].up);
    return m;
}

static int sup_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                     const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    (void)w;
    if (method != GA_DELTA_AUTO && method != GA_DELTA_DIRECT)
        return GA_EDOM;
    cell_t *c = malloc((SUP_CELLS0 + SUP_EVALS) * sizeof *c);
    size_t n = 0;
    double lb, a;
    if (!c)
        return GA_ENOMEM;
    /* (a curve's value, asked to 1e-3, to within 30%: its cells are far fewer) */
    double tol = fmax(SUP_TOL, fmin(300 * o->epsrel, 0.3));
    int rc = sup_search(c, &n, &lb, &a, p, eps, tol, o->deadline);
    if (rc == GA_OK || rc == GA_ETOL) {
        double ub = max_up(c, n);
        out->xy.val = out->yx.val = 0.5 * (lb + ub);
        out->xy.err = out->yx.err = 0.5 * (ub - lb);
    }
    free(c);
    return rc;
}

int ga_pair_synth_sup_argmax(double *a, double *b, const ga_pair *p, double eps)
{
    if (p->type != &ga_pair_type_synthetic_sup)
        return GA_EDOM;
    double dd, amax, lb;
    universe(&dd, &amax, p->input);
    cell_t *c = malloc((SUP_CELLS0 + SUP_EVALS) * sizeof *c);
    size_t n = 0;
    if (!c)
        return GA_ENOMEM;
    const ga_synthetic_input *in = p->input;
    int rc = sup_bb(c, &n, &lb, a, in, eps, 1, 0, NULL); /* (the members' best only) */
    free(c);
    *a = fmin(*a, amax);
    *b = member_b(*a, dd, in->norm_bound);
    return rc == GA_ETOL ? GA_OK : rc;
}

/* max over both directions of the certified delta of the pair (a, b): upper or lower end */
static int cert_pair(double *res, const ga_synthetic_input *in, double a, double b,
                     const char *eps, int upper, double deadline)
{
    ga_pair *p;
    int rc = synth_pair(&p, in, a, b);
    if (rc != GA_OK)
        return rc;
    ga_cert_opts o;
    ga_cert_opts_init(&o);
    o.digits = SUP_CERT_DIGITS;
    o.deadline = deadline;
    ga_delta_cert c;
    rc = ga_pair_delta_cert(&c, p, NULL, NULL, eps, &o);
    ga_pair_free(p);
    if (rc != GA_OK && rc != GA_EPREC)
        return rc;
    *res = upper ? fmax(c.xy.hi, c.yx.hi) : fmax(c.xy.lo, c.yx.lo);
    return GA_OK;
}

/* the cells' certified bounds, one item each (on the threads lent to this pair: the
 * largest of them does not depend on which thread computed which) */
typedef struct {
    const ga_synthetic_input *in;
    const cell_t *c;
    double dd, deadline, *hi;
    const char *eps;
    int *rc;
} cert_cells;

static void cert_cell(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    cert_cells *k = ctx;
    k->rc[i] = cert_pair(&k->hi[i], k->in, k->c[i].u, cover_b(k->c[i].v, k->dd), k->eps, 1,
                         k->deadline);
}

static void bound_out(ga_delta_cert *out, double lo, double hi, int digits)
{
    out->xy.lo = out->yx.lo = lo;
    out->xy.hi = out->yx.hi = hi;
    ga_fmt_bound(out->xy_lo, sizeof out->xy_lo, lo, 0, digits + 3);
    ga_fmt_bound(out->xy_hi, sizeof out->xy_hi, hi, 1, digits + 3);
    memcpy(out->yx_lo, out->xy_lo, sizeof out->yx_lo);
    memcpy(out->yx_hi, out->xy_hi, sizeof out->yx_hi);
}

static int sup_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *pin,
                          const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    (void)pin;
    (void)txt;
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    const ga_synthetic_input *in = p->input;
    memset(out, 0, sizeof *out);
    bound_out(out, 0, 1, o.digits);
    double e;
    if (ga_decimal_to_double(&e, eps))
        return GA_EINVAL;
    cell_t *c = malloc((SUP_CELLS0 + SUP_EVALS) * sizeof *c);
    size_t n = 0;
    double lb, a, dd, amax, lo = 0, hi = 0;
    if (!c)
        return GA_ENOMEM;
    universe(&dd, &amax, in);
    /* the partition in double precision (each cell's double bound near the best lower one),
     * then every cell's bound certified */
    int rc = sup_search(c, &n, &lb, &a, p, e, SUP_TOL, o.deadline);
    if (rc == GA_ETOL)
        rc = GA_OK;
    double *h = rc == GA_OK ? malloc((n ? n : 1) * sizeof *h) : NULL;
    int *hrc = rc == GA_OK ? malloc((n ? n : 1) * sizeof *hrc) : NULL;
    if (rc == GA_OK && (!h || !hrc))
        rc = GA_ENOMEM;
    if (rc == GA_OK) {
        cert_cells k = {in, c, dd, o.deadline, h, eps, hrc};
        for (size_t i = 0; i < n; i++)
            hrc[i] = GA_ETIME; /* (an item not run: past the deadline) */
        ga_par_items(n, ga_par_inner_jobs(), o.deadline, cert_cell, &k);
        for (size_t i = 0; i < n && rc == GA_OK; i++) { /* (the first failure in order) */
            rc = hrc[i];
            if (rc == GA_OK)
                hi = fmax(hi, h[i]);
        }
    }
    free(h);
    free(hrc);
    if (rc == GA_OK)
        rc = cert_pair(&lo, in, fmin(a, amax), member_b(fmin(a, amax), dd, in->norm_bound), eps,
                       0, o.deadline);
    free(c);
    if (rc != GA_OK)
        return rc; /* (the interval stays [0, 1]) */
    hi = fmin(hi, 1);
    bound_out(out, fmin(lo, hi), hi, o.digits);
    out->precision_bits = 0;
    return hi - lo <= pow(10, -o.digits) * hi ? GA_OK : GA_EPREC;
}

static const char *sup_no_renyi(const ga_pair *p)
{
    (void)p;
    return "the supremum over a universe of synthetic-point releases";
}

static int sup_describe(char *text, size_t n, double *px, double *py, const ga_pair *p,
                        double eps, int dir)
{
    (void)dir;
    const ga_synthetic_input *in = p->input;
    double a = 0, b = 0;
    *px = *py = NAN;
    if (ga_pair_synth_sup_argmax(&a, &b, p, eps) != GA_OK)
        a = b = NAN;
    snprintf(text, n,
             "the supremum over every pair of models of norm at most %.17g at distance at most "
             "%.17g (%.0f point(s), dimension %.0f, sigma %.17g); the largest delta at eps = "
             "%.17g is near models of norms %.6g and %.6g, distinguished by a threshold on the "
             "synthetic points' squared norm", in->norm_bound, in->distance, in->points,
             in->dim, in->sigma, eps, a, b);
    return GA_OK;
}

int pr_synth_sup_make(ga_pair **out, const ga_synthetic_input *in, char *msg, size_t msglen)
{
    *out = NULL;
    ga_pair *probe; /* the universe's extreme pair: the checks of a synthetic pair */
    if (!(in->norm_bound > 0 && in->norm_bound <= 1e5 && in->distance > 0 && isfinite(in->distance))) {
        ga_msg(msg, msglen, "synthetic universe: the norm bound must be in (0, 1e5] and the "
               "distance positive (got %g and %g)", in->norm_bound, in->distance);
        return GA_EINVAL;
    }
    ga_synthetic_input s = *in;
    s.norm_x = 0;
    s.norm_y = nextafter(in->norm_bound, INFINITY);
    s.norm_x_txt = s.norm_y_txt = NULL;
    s.norm_bound = s.distance = 0;
    int rc = ga_pair_reduce_synthetic(&probe, &s, msg, msglen);
    if (rc != GA_OK)
        return rc;
    ga_pair_free(probe);
    ga_pair *p = calloc(1, sizeof *p);
    size_t tl = in->sigma_txt ? strlen(in->sigma_txt) + 1 : 0;
    ga_synthetic_input *c = malloc(sizeof *c + tl); /* (sigma's text after it: one block) */
    if (!p || !c) {
        free(p);
        free(c);
        ga_msg(msg, msglen, "%s", "out of memory building a synthetic universe pair");
        return GA_ENOMEM;
    }
    *c = *in;
    c->norm_x_txt = c->norm_y_txt = NULL;
    if (tl) {
        memcpy((char *)(c + 1), in->sigma_txt, tl);
        c->sigma_txt = (const char *)(c + 1);
    }
    pr_input_pair(p, &ga_pair_type_synthetic_sup, c);
    *out = p;
    return GA_OK;
}

const ga_pair_type ga_pair_type_synthetic_sup = {
    "synthetic universe", sup_delta, pr_renyi_none, sup_delta_cert, NULL, NULL, NULL,
    sup_describe, sup_no_renyi,
    "synthetic points from random inputs over a universe of models: the supremum of delta over "
    "every pair of models within the norm bound at the distance, reduced by the release's "
    "monotone likelihood ratio in the model's norm to the pairs at the largest distance, and "
    "bounded on cells of the smaller norm by the pair of the cell's outer ends (branch and "
    "bound: double-precision deltas with error estimates, then each cell's bound certified "
    "in Arb ball arithmetic)",
    NULL,
    NULL,
    1,
};

/*
 * loss.h - the one-dimensional privacy-loss families behind the non-Gaussian pair types:
 * compositions of subsampled Gaussian steps (ploss.c, ploss_cert.c, pld.c), noncentral
 * chi-square pairs of matrix masking (masked.c) and synthetic points (synth.c), in double
 * precision and, with numerics/arb.h, certified. Not installed.
 */
#ifndef GA_PAIR_LOSS_H
#define GA_PAIR_LOSS_H

#include "numerics/numerics.h"

/* ------------------------------------------------------- one-dimensional privacy losses */

/* One term of a composition of subsampled Gaussian steps (pair/ploss.c): rate q in
 * (0, 1], m = 1/sigma, count steps, add = 1 for the add relation (roles swapped). */
typedef struct {
    double q, m, count;
    int add;
    double r; /* 0: a mean step (above); r >= 1: a covariance step (subsampled sketch): r
                 columns N(0, (1 + m^2) I) vs N(0, I) in the record's direction, one step */
    double nu, ly; /* nu >= 1: a masked release (pair/masked.c; q = 1, one step): X is
                      noncentral chi^2_nu(m^2), Y noncentral chi^2_nu(ly) */
    double pts;    /* with nu: pts >= 1 synthetic points (pair/synth.c): X is S C with S
                      ~ chi^2_nu(m^2), C ~ chi^2_pts, Y the same with S ~ chi^2_nu(ly) */
} ga_ploss_term;

#define GA_PLOSS_MAX_TERMS 10000
/* up to this many identical steps, where the Bromwich integrand does not decay, the bracket
 * of discretised losses (pair/ploss_bracket.c) is the route, in double and certified */
#define GA_PLOSS_FEW_STEPS 128
/* the longest Bromwich range the certified integral covers (pair/ploss_cert.c): few steps
 * whose planned range is longer go by the certified bracket */
#define GA_PLOSS_CERT_TMAX 1000.0
#define GA_PLOSS_MAX_COUNT 1e9

typedef struct {
    size_t n;
    ga_ploss_term *t;
} ga_ploss;

/* 1 when L is the case of the bracket of discretised losses (pair/ploss_bracket.c): one mean
 * term (no covariance or masked step) of at most GA_PLOSS_FEW_STEPS identical steps */
static inline int ga_ploss_few(const ga_ploss *L)
{
    return L->n == 1 && !(L->t[0].r > 0) && !(L->t[0].nu > 0) &&
           L->t[0].count <= GA_PLOSS_FEW_STEPS;
}

/* delta_{a,b}(eps) of the pair noncentral chi^2_nu(la) (a) and chi^2_nu(lb) (b), eps >= 0
 * (pair/masked.c): the closed form of the threshold event with an error estimate; *wstar
 * (may be NULL) receives the threshold w* of the event (NaN when there is none). GA_OK,
 * GA_EINVAL, GA_EMAXITER (no threshold found), GA_ENOMEM. */
int ga_ncx2_delta(ga_result *out, double *wstar, double nu, double la, double lb, double eps);
/* Synthetic points from random inputs (pair/synth.c): delta_{a,b}(eps) of the laws of S C,
 * S ~ chi^2_d(la) (a) or chi^2_d(lb) (b), C ~ chi^2_m, with an error estimate; *zstar (may be
 * NULL) the threshold in z = S C / 4 (NaN: none). GA_OK, GA_EINVAL, GA_EDOM (d and m both odd:
 * no finite tail formula), GA_EMAXITER (no threshold, or an error that cannot be bounded: the
 * value NaN, the error infinite). The loss's supremum (infinite when la > lb), and the
 * upper tail P[S C > 4 z] (estimates, for witnesses and tests). */
int ga_synth_delta(ga_result *out, double *zstar, double d, double m, double la, double lb, double eps);
/* the same, stopping with GA_ETIME (no value) once the deadline (monotonic seconds, 0: none)
 * has passed: at large d each loss evaluation sums about d/2 terms */
int ga_synth_delta_until(ga_result *out, double *zstar, double d, double m, double la, double lb,
                         double eps, double deadline);
double ga_synth_loss_sup(double d, double m, double la, double lb);
int ga_synth_tail(double *T, double d, double m, double lam, double z);

/* Poisson weights of mean mu (pair/masked.c): the range klo..khi outside which the mass
 * is negligible (about e^-80) with a bound of that mass, and the mass below k (lower = 1) or
 * above k (a geometric bound; 1 when the ratio is not below 1). */
void ga_pois_range(double mu, double *klo, double *khi, double *dropped);
double ga_pois_rest(double mu, double k, int lower);

/* The upper and lower tails of noncentral chi^2_nu(lam) at w (estimates, for witnesses):
 * GA_OK, GA_EMAXITER, GA_ENOMEM. */
int ga_ncx2_tail(double *Q, double *P, double nu, double lam, double w);

/* Validate terms: GA_OK or GA_EINVAL with a message naming the term. */
int ga_ploss_check(const ga_ploss_term *t, size_t n, char *msg, size_t msglen);
/* delta_{X,Y} and delta_{Y,X} at eps with error estimates (method: enum ga_delta_method;
 * AUTO is the closed form for one step, the Bromwich integral otherwise, and for up to 128
 * identical steps where that integral does not converge the midpoint of ga_ploss_bracket
 * with half its width as the error). GA_OK, GA_ETOL. */
int ga_ploss_delta(ga_result *xy, ga_result *yx, const ga_ploss *L, double eps, int method,
                   const ga_gchisq_opts *opts, ga_quad_work *w);
/* eps(delta) of 2 to 128 identical steps where the Bromwich integrand does not decay, from
 * the bracket of discretised losses inverted (pair/ploss.c): *eps its midpoint with half its
 * width, *direction 1 (X,Y binds) or 2. GA_OK, GA_ETOL (wider than 1e-6 relative), GA_ETIME,
 * GA_EDOM (not this route: the caller searches over delta). */
int ga_ploss_epsilon_few(ga_result *eps, int *direction, const ga_ploss *L, double delta,
                         const ga_gchisq_opts *o, ga_quad_work *w);
/* Renyi divergences of order alpha > 1 in both directions (estimates). */
int ga_ploss_renyi(ga_result *xy, ga_result *yx, const ga_ploss *L, double alpha);
/* Supremum of the loss in direction dir (0: XY, 1: YX): delta is 0 from there on. */
double ga_ploss_loss_sup(const ga_ploss *L, int dir);
/* An upper bound of log E_P[e^{lam L}], lam > 0, of a one-step masked, synthetic or
 * covariance pair's loss in direction dir (INFINITY: none); see pair/ploss.c. */
double ga_ploss_cgf_cap(const ga_ploss *L, int dir, double lam);
/* One mean step (pair/ploss_step.c) in direction sw (0: L = l(x), x from the mixture; 1: L =
 * -l(x), x from N(0, 1)): the loss l(x) (log1mq = log(1 - q)); its inverse x(v) (-inf where
 * v <= log(1 - q), no overflow for large v); P[L <= v] and P[L > v], each from the smaller
 * normal tails; and the point where the lower tail passes cut (upper = 0: the largest v found
 * with P[L <= v] <= cut) or the upper tail falls to it (upper = 1: the smallest v found with
 * P[L > v] <= cut), to within tol (0: to the last bit). GA_OK, or GA_EDOM when the point lies
 * beyond +-vmax (*v is then the last point tried). */
double ga_step_loss(const ga_ploss_term *s, double log1mq, double x);
double ga_step_x(const ga_ploss_term *s, double v);
void ga_step_tails(double *F, double *G, const ga_ploss_term *s, int sw, double v);
/* the same, and the point x of the normal law at v (x(v) for sw 0, x(-v) for sw 1) */
void ga_step_tails_x(double *F, double *G, double *x, const ga_ploss_term *s, int sw, double v);
int ga_step_cut(double *v, const ga_ploss_term *s, int sw, double cut, int upper, double tol,
                double vmax);
/* What a pessimistic PLD accountant (grid spacing h, tails truncated at 1e-15, FFT
 * composition; pair/pld.c) reports as eps at delta in each direction (eps[dir]; the two on
 * the threads lent to the caller, ga_par_inner_jobs): estimates above the exact values (for
 * comparison, not certified). GA_OK, else the first direction's failure: GA_EDOM (covariance
 * steps), GA_EMAXITER (more than 4M grid points), GA_EINVAL, GA_ENOMEM. */
int ga_ploss_pld_epsilon(double eps[2], const ga_ploss *L, double delta, double h);
/* Bounds lo <= delta <= hi in direction dir at eps of a composition of few identical steps
 * (one mean term, count <= 128; pair/ploss_bracket.c): discretised losses with their
 * first-order rounding taken back, FFT rounding and tails included. theta >= 0 tilts the
 * vectors and lchern, the log of the Chernoff bound at eps_t, sets the tails kept:
 * ga_ploss_tilt's at eps_t, the tilt's centre (accurate where delta is small). The grid is
 * the coarsest whose half width is at most max(epsabs, epsrel times the midpoint), or whose
 * bracket excludes decide (> 0; *decided is then 1 where a finer grid was not computed), or
 * the finest (epsabs = epsrel = decide = 0: always the finest); grids finer than level
 * `finest` (0 the finest of the four, 3 the coarsest) are not computed: the bracket of the
 * finest one computed is returned. delta = 0 (eps at or above the loss's supremum) is exact, and below e^-600 the
 * bound is [0, e^lchern]. GA_OK; GA_EDOM (not this route's case: several terms, covariance or
 * masked steps, many steps or grid points, a loss too concentrated for the finest grid; lo =
 * 0, hi = 1); GA_ETIME (deadline, monotonic seconds, 0: none); GA_ENOMEM. */
int ga_ploss_bracket(double *lo, double *hi, int *decided, const ga_ploss *L, int dir,
                     double eps, double eps_t, double theta, double lchern, double epsabs,
                     double epsrel, double decide, int finest, double deadline,
                     ga_quad_work *w);
/* The eps at which delta in direction dir of few identical steps (ga_ploss_bracket's case)
 * falls to delta, bracketed (pair/ploss.c): *lo < eps* <= *hi, where *hi is a point at which
 * the bracket's upper bound is at most delta and *lo one at which its lower bound exceeds it
 * (0 where none does); *slope: d log delta / d eps near *hi from the upper bound (an
 * estimate; NAN where none), from one grid's convolutions per pass tilted near guess (> 0, an
 * estimate of eps*: a coarse accountant's), the grid refined until the half width is at
 * most epsrel relative or the grid is the finest. GA_OK; GA_EDOM (not this route's case, or
 * no grid brought the upper bound under delta: *lo = 0, *hi = inf); GA_ETIME; GA_ENOMEM. */
int ga_ploss_bracket_eps(double *lo, double *hi, double *slope, const ga_ploss *L, int dir,
                         double delta, double guess, double epsrel, double deadline);
/* One pass of it (pair/ploss_bracket.c): the bracket on the grid of coarse times the finest's
 * step (coarse in [1, 64]) tilted by theta centred at eps_t (lchern as ga_ploss_tilt gives
 * them), its tails cut for eps near g, then both bounds inverted at delta to tol: GA_OK with
 * *lo (0 where the lower bound is at most delta everywhere), *hi and the upper bound's
 * log-slope there; GA_EDOM where the upper bound stays above delta (a finer grid may do);
 * GA_ETIME, GA_ENOMEM. */
int ga_ploss_bracket_invert(double *lo, double *hi, double *slope, const ga_ploss *L, int dir,
                            double delta, double g, double eps_t, double theta, double lchern,
                            double coarse, double tol, double deadline);
/* The window of that bracket's T-fold convolutions (pair/ploss_bracket.c): for a vector v of n
 * cells (and dv, or NULL, for D = dv * v^{*(T-1)}), the linear indices [ws, ws + N) of
 * W = v^{*T} (support T (n - 1) + 1) outside which the masses of |v|^{*T} and |dv| *
 * |v|^{*(T-1)} are at most *aW and *aD (Chernoff bounds), N a power of two; the tails aimed at
 * are 1e-18 e^-lw each. prec > 0: the bounds with every operation proven (Arb at prec, proven
 * exponential sequences), else in double with libm's rounding counted. Where no window is
 * shorter than the support, ws = 0, N the power of two that holds it and aW = aD = 0. */
void ga_ploss_window(size_t *ws, size_t *N, double *aW, double *aD, const double *v,
                     const double *dv, size_t n, unsigned T, double lw, long prec);
/* The bracket's tilt centre for eps: eps on a grid of 1/32 relative, so that nearby eps (an
 * eps search's last steps) share one convolution (w's cache); the bracket's values depend
 * on eps alone (the centre, the tilt and the cut are functions of it). */
double ga_ploss_tilt_centre(double eps);
/* The tilt theta >= 0 at which the loss in direction dir has mean eps (0 if its mean exceeds
 * eps) and the log of the Chernoff bound e^{K(theta) - theta eps} >= delta (at most 0). */
void ga_ploss_tilt(double *theta, double *lchern, const ga_ploss *L, int dir, double eps);
/* The trapezoid grid for M(w) of one step (q < 1) at real part a = 1 + Re w, |Im w| <= t:
 * step h, first node x0, n nodes, strip half-width d; disc, tail: the discretisation and
 * truncation bounds (relative), sized for a relative error about e^-lnrel. The certified
 * evaluation (pair/ploss_cert.c) takes the grid as a design and bounds it itself. */
typedef struct {
    double h, x0, d, disc;
    size_t n;
    double tail; /* bound of the dropped tails, relative to e^{peak} */
    double peak; /* log of the largest g on the grid's support (the scale) */
    int capped;  /* the node cap made the grid coarser than designed */
} ga_ploss_grid;
void ga_ploss_grid_make(ga_ploss_grid *g, const ga_ploss_term *s, double a, double t, double lnrel);
/* The mean of one step's loss tilted by e^{w l} (an approximation, for centring). */
double ga_ploss_step_mean(const ga_ploss_term *s, double w);
/* The Bromwich plan of delta in direction dir at eps (double precision): the abscissa c
 * (saddle point), the range [0, tmax] that matters, K''(c) and the scale L0 = K(c) - c eps.
 * GA_OK; GA_ETOL when the integrand had not decayed by the largest tmax tried (few steps
 * of a small rate); GA_EMAXITER when the node budget ran out. */
int ga_ploss_plan(double *c, double *tmax, double *k2, double *L0, const ga_ploss *L, int dir,
                  double eps);
/* One step's Renyi divergence of order alpha (integer >= 2) in the remove direction, as the
 * RDP accountants compute it (binomial expansion; Mironov, Talwar & Zhang 2019). */
double ga_ploss_rdp_binomial(const ga_ploss_term *s, int alpha);

/* Shuffled epochs, the max test (pair/shuffle.c): the T-fold laws of the epochs' rounded
 * losses, per direction (0: XY, the law with the record; 1: YX) and side (0: rounded down,
 * masses at or below the true ones; 1: rounded up, masses at or above, with the mass at
 * +infinity in inf), on the grid (k0 + i) h; eta bounds how far the grid's rounding may
 * have moved a sum the other way (taken back by ga_shuffle_delta_bounds). */
typedef struct {
    long k0;
    size_t len;
    double *w;
    double inf;
} ga_shuffle_side;
typedef struct {
    double h, eta;
    ga_shuffle_side s[2][2];
} ga_shuffle_laws;
/* The laws for m = norm/sigma (the decimals when given, else the doubles), E batches per
 * epoch, T epochs, on the coarse grid (fine = 0) or one four times finer. GA_OK, GA_EINVAL, GA_EDOM (m outside (1e-6, 50), a grid too long),
 * GA_EPREC, GA_EDEP (no FLINT/Arb), GA_ETIME, GA_ENOMEM; on error S is cleared. */
int ga_shuffle_laws_make(ga_shuffle_laws *S, const char *norm_txt, double norm,
                         const char *sigma_txt, double sigma, double E, double T, int fine,
                         double deadline);
void ga_shuffle_laws_clear(ga_shuffle_laws *S);
/* lo <= delta <= hi in direction dir for every eps in [eps_lo, eps_hi] (rigorous; the
 * exponentials proven in Arb, every rounding counted). GA_OK, GA_EINVAL, GA_ENOMEM,
 * GA_EPREC (then [0, 1]). */
int ga_shuffle_delta_bounds(double *lo, double *hi, const ga_shuffle_laws *S, int dir,
                            double eps_lo, double eps_hi);

/* Random allocation, one of t steps per epoch (pair/alloc.c): upper bounds of one epoch's
 * Renyi divergences at the integer orders alpha[i], dx[i] >= D(X || Y) (the remove
 * direction, the dataset with the record first) and dy[i] >= D(Y || X), for noise
 * multiplier sigma (its decimal when sigma_txt is given), gradients clipped to norm 1. */
#define GA_ALLOC_MAXORD 64
typedef struct {
    int n;
    int alpha[GA_ALLOC_MAXORD];
    double dx[GA_ALLOC_MAXORD], dy[GA_ALLOC_MAXORD];
} ga_alloc_renyi;
/* GA_OK, GA_EINVAL (sigma outside [1e-3, 1e6], t not a whole number in 1..1e7, a text that is
 * not a decimal), GA_EDEP (no FLINT/Arb), GA_ETIME, GA_ENOMEM. */
int ga_alloc_renyi_make(ga_alloc_renyi *R, const char *sigma_txt, double sigma, double t,
                        double deadline);

/* ------------------------------------------------------- certified (with numerics/arb.h) */

/* Propose-test-release ridge releases (pair/ptr.c, pair/ptr_arb.c): the input (its arrays
 * owned by the pair) and the lower bound's statistic, s_small(rho) = (a1 + rho t1) / t0 (at
 * rho0, the ridge at the big dataset's test mean, t0 = t(rho0)), s_big = s_small + t0. */
typedef struct {
    ga_ptr_input in;
    double rho0, t0, t1, a1;
} ga_ptr;
/* the cells' ends of one evaluation (y[0..n-1] over [margin, margin + target]) and the
 * lower bound's threshold c */
typedef struct {
    double *y;
    size_t n;
    double c;
} ga_ptr_cells;
double ga_ptr_rho(const ga_ptr_input *in, double y);
double ga_ptr_t(const ga_ptr_input *in, double rho);
/* delta at level e of r columns with variances 1 + t and 1 (big: the larger first) */
double ga_ptr_hockey(double t, double e, double r, int big);
/* P's lower-bound statistic (rho0, t0, t1, a1) from P->in */
void ga_ptr_lower_dir(ga_ptr *P);
double ga_ptr_scale(const ga_ptr *P, double rho, int big);
/* lo <= delta_PQ(eps) <= hi (pbig: P is the dataset with the row) in double precision, the
 * cells refined until the width is within tol of the value or maxcells; cells (may be NULL)
 * gets the final cells' ends and the threshold (free y). GA_OK, GA_ENOMEM, GA_EDOM. */
int ga_ptr_delta(double *lo, double *hi, ga_ptr_cells *cells, const ga_ptr *P, int pbig,
                 double eps, double tol, size_t maxcells, double deadline);

#ifdef GA_NUMERICS_ARB_H
/* Certified delta of one subsampled Gaussian step (pair/ploss_cert.c): q, m = 1/sigma and
 * eps exact balls; dir 0 is the mixture against N(0, 1), 1 the reverse. res is an enclosure
 * (not clipped); GA_OK, or GA_EPREC when the threshold's existence is undecided (res is then
 * [-1, 1]). */
int ga_ploss_delta_one_arb(arb_t res, const arb_t q, const arb_t m, int dir, const arb_t eps,
                           slong prec);

/* Certified delta of one covariance step (a subsampled sketch at its worst case: r columns,
 * lambda = m^2), direction dir as above; GA_OK, or GA_EPREC with [-1, 1] when the ball of a
 * threshold is too wide to decide the event. */
int ga_ploss_delta_one_chi2_arb(arb_t res, const arb_t q, const arb_t m, double r, int dir,
                                const arb_t eps, slong prec);

/* The same in ball arithmetic: a ball containing delta_{a,b}(eps), from a certified bracket
 * of the threshold around w_hint (ga_ncx2_delta's w*). GA_OK, or GA_EPREC ([0 +- 1]) when
 * this precision cannot certify the bracket, or GA_EDOM ([0 +- 1]) for nu above 1e7 (its
 * series and quadratures would take minutes: not certified). */
int ga_ncx2_delta_arb(arb_t res, double nu, const arb_t la, const arb_t lb, const arb_t eps,
                      double w_hint, slong prec);

/* The same for synthetic points (pair/synth.c): a ball containing delta_{a,b}(eps) from
 * three certified points around z_hint (ga_synth_delta's z*), to the relative accuracy of
 * want bits where the precision allows (want 0: as accurate as the precision allows, more
 * work). GA_OK, GA_EDOM (d, m odd), or GA_EPREC ([0 +- 1]). */
int ga_synth_delta_arb(arb_t res, double d, double m, const arb_t la, const arb_t lb,
                       const arb_t eps, double z_hint, slong want, slong prec);

/* delta in [max(0, lower end of lo), upper end of hi] (lo: a ball below delta, hi: above):
 * GA_OK, or GA_EPREC when the ends cross or hi is not finite (res unchanged). */
int ga_arb_delta_interval(arb_t res, const arb_t lo, const arb_t hi, slong prec);

/* The Poisson weight e^-mu mu^k / k! (lmu = log mu), and an upper bound (ub) of the mass
 * below k (lower = 1) or above k; returns 0 when the geometric ratio is not certainly < 1. */
void ga_pois_weight_arb(arb_t res, const arb_t mu, const arb_t lmu, double k, slong prec);
int ga_pois_rest_arb(arf_t ub, const arb_t mu, const arb_t lmu, double k, int lower, slong prec);

/* Certified delta in direction dir (0: XY, 1: YX) at eps of a composition of subsampled and
 * Gaussian steps (pair/ploss_cert.c): q[j], m[j] balls containing term j's exact rate
 * and 1/sigma; est, the double estimate, sets the truncation target reltol * est. res is a
 * valid enclosure whatever the status (wide where the decay is too slow for the target, [0,
 * 1] when there is no plan). GA_OK, GA_ETIME (deadline), GA_ENOMEM; GA_ETOL ([0, 1]) when
 * the bound of the integral's tail beyond the largest range stays above giveup * est (a
 * caller with another route passes the width that route gives; INFINITY: never). */
int ga_ploss_delta_comp_arb(arb_t res, const ga_ploss *L, arb_srcptr q, arb_srcptr m, int dir,
                            const arb_t eps, double est, double reltol, double giveup,
                            slong prec, double deadline);

/* Certified Renyi divergence of order alpha (a ball, > 1) of the same compositions in
 * direction dir: sum_j T_j log M_j / (alpha - 1) with each M_j a trapezoid sum with rigorous
 * bounds (lnrel: the designs' accuracy, log). res is a valid enclosure whatever the status.
 * GA_OK, GA_EMAXITER (node cap), GA_EPREC (undecided), GA_ENOMEM. */
int ga_ploss_renyi_arb(arb_t res, const ga_ploss *L, arb_srcptr q, arb_srcptr m, int dir,
                       const arb_t alpha, double lnrel, slong prec);

/* Certified delta of few identical subsampled steps in direction dir (pair/ploss_bracket.c):
 * the bracket of ga_ploss_bracket with every input proven (q, m: balls of the exact rate and
 * 1/sigma; eps a ball; the cells' offsets bounded through the loss's convexity; theta and
 * lchern as ga_ploss_tilt gives them at eps's midpoint), on the finest grid up to 32768 cells:
 * res contains delta. GA_OK (res
 * valid), GA_EDOM (not this route's case), GA_EPREC (a ball too wide at this precision),
 * GA_ETIME, GA_ENOMEM, GA_EDEP. */
int ga_ploss_bracket_arb(arb_t res, const ga_ploss *L, const arb_t q, const arb_t m, int dir,
                         const arb_t eps, double theta, double lchern, slong prec,
                         double deadline);

/* The cells of that bracket (pair/ploss_bracket_arb.c) on the grid l_k = (k0 + k) h of n
 * cells, w_k the exact mass of the cell in the step's loss law (direction sw): wl[k] = w_k
 * e^{theta (l_k - lc) - mx} (n values); wu (n + 1 values) the cells' masses split between
 * their ends so that the split dominates the step (at l_{k+1} at least (w_k - e^{l_k} w_Y,k) /
 * (1 - e^{-h}), w_Y,k the cell's mass under the other law; the rest at l_k), plus the mass
 * below l_{k0} at l_{k0}, each tilted at its point; the doubles' distances from exact such
 * vectors sum to at most em[0] and em[1]; dl[k] <= d_k e^{theta (l_k - lc) - mx}, d_k the
 * cell's exact offset E[(V - l_k) 1(V in the cell)]; *top >= the mass above the grid. GA_OK,
 * GA_EPREC, GA_ETIME. */
int ga_bracket_cells_arb(double *wl, double *dl, double *wu, double em[2],
                         double *top, const arb_t q, const arb_t m, int sw, long k0, size_t n,
                         double h, double theta, double lc, double mx, slong prec,
                         double deadline);
/* The step's loss law (direction sw, as above) on the grid l_k = (k0 + k) h: w[k] <= the exact
 * mass of the cell (l_k, l_{k+1}] (k < n), tails[0] <= P[V <= l_0] <= tails[1], tails[2] <=
 * P[V > l_n] <= tails[3], all from Arb at prec and rounded outward. GA_OK, GA_EPREC (a grid
 * point's side undecided at prec), GA_ETIME. */
int ga_loss_cells_arb(double *w, double tails[4], const arb_t q, const arb_t m, int sw, long k0,
                      size_t n, double h, slong prec, double deadline);
/* out[i] = e^{a + i b} (i < n) rounded to doubles, each within 2 ulps of its value (or 2^-1072
 * absolutely, below the normal range). GA_OK, or GA_EPREC (balls too wide at prec). */
int ga_exp_seq_arb(double *out, size_t n, const arb_t a, const arb_t b, slong prec);
/* The least i in [0, len] with (base + i) h > x (strict) or >= x, decided exactly. */
size_t ga_grid_first_above(long base, double h, double x, int strict, size_t len);
/* x^s e^{-x} / Gamma(s + 1) in balls: the prefactor of the incomplete gamma function's series
 * (pair/masked.c) */
void ga_gamma_prefactor_arb(arb_t res, const arb_t s, const arb_t x, slong prec);
/* The bracket of ga_ptr_delta on the given cells (and threshold) in ball arithmetic at prec:
 * iv encloses delta_PQ at every eps in the ball. GA_OK, GA_EPREC (a ball not finite). */
int ga_ptr_delta_arb(ga_interval *iv, const ga_ptr *P, int pbig, const arb_t eps,
                     const ga_ptr_cells *cells, slong prec);
#endif

#endif

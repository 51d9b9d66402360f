/*
 * internal.h - declarations shared by the numerics modules (not installed).
 */
#ifndef GA_NUMERICS_INTERNAL_H
#define GA_NUMERICS_INTERNAL_H

#include "gaussaudit.h"

#include <complex.h>
#include <gsl/gsl_cblas.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_SQRT2
#define M_SQRT2 1.41421356237309504880
#endif
#ifndef M_LN2
#define M_LN2 0.69314718055994530942
#endif

/* snprintf into msg (if msg != NULL and msglen > 0). */
void ga_msg(char *msg, size_t msglen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The one number reader (numerics/decimal.c): is s a plain decimal ([+-] digits [. digits]
 * [e [+-] digits]; no spaces, hex, inf or nan)? And its double (finite, no overflow or
 * underflow): GA_OK or GA_EINVAL. */
int ga_decimal_syntax(const char *s);
int ga_decimal_to_double(double *v, const char *s);
/* the same for the len bytes at s (no NUL needed: a field of a line read in place) */
int ga_decimal_to_double_n(double *v, const char *s, size_t len);

/* The exact product of the plain decimals a and b as text the reader reads
 * ([-]digits e[-]digits) in out (outlen bytes; 2 * 400 + 25 always suffice): GA_OK, or
 * GA_EINVAL (not plain decimals, more than 400 significant digits, or out too small). */
int ga_decimal_mul_text(char *out, size_t outlen, const char *a, const char *b);

/* A decimal in four bytes beside its double: the exact value is
 * m * 10^e where m is the one integer of at most 19 digits that is congruent to `low`
 * modulo 2^16 and nearest to |v| 10^-e (v the decimal's double: m lies within 2^14 of that
 * estimate, checked when it is made). e == GA_DEC_LONG: the decimal does not fit (more than
 * 19 significant digits, or a subnormal v too coarse to recover m) and its text is kept
 * apart. */
typedef struct {
    int16_t e;
    uint16_t low;
} ga_dec;
#define GA_DEC_LONG INT16_MIN
#define GA_DEC_TEXT_MAX 32 /* "-" 19 digits "e-" 5 digits NUL, rounded up */
/* The token s[0..len) by the one reader's rule (s need not end there: the token must be
 * followed by a character that is not part of a number, or end the buffer's text). GA_OK
 * with its double and compact form, or GA_EINVAL (syntax, overflow or underflow, as
 * ga_decimal_to_double). */
int ga_decimal_scan(double *v, ga_dec *dec, const char *s, size_t len);
/* The exact decimal of a compact form (dec.e != GA_DEC_LONG) as text that the one reader
 * reads: [-]digits[e[-]digits]; buf has GA_DEC_TEXT_MAX bytes. */
void ga_decimal_text(char *buf, double v, ga_dec dec);

/* The options a function was given, or the defaults for NULL (the one option prologue). */
ga_cert_opts ga_cert_opts_or_default(const ga_cert_opts *opts);
ga_gchisq_opts ga_gchisq_opts_or_default(const ga_gchisq_opts *opts);

/* CLOCK_MONOTONIC seconds, and whether a deadline in those units (0: none) has passed */
double ga_monotonic(void);
int ga_expired(double deadline);

/* ------------------------------------------------------- FLINT/Arb (arb_load.c) */

/* FLINT's caches of the calling thread (flint_cleanup), if FLINT/Arb was ever loaded (it is
 * opened on the first certified computation: numerics/arb_api.h); a thread or a process
 * that made none has no caches, and the library is not loaded to free them. */
void ga_arb_thread_cleanup(void);

/* ------------------------------------------------------- BLAS and LAPACK (blas.c) */

/* The BLAS/LAPACK library (OpenBLAS, or GAUSSAUDIT_BLAS) is opened on the first call of any
 * function here. Its name, and whether it loaded with every symbol needed (*ok); without it
 * the CBLAS functions run on GSL's CBLAS and the LAPACK ones return GA_LAPACK_ENOLIB. */
const char *ga_blas_name(int *ok);
/* OpenBLAS's thread count (1 if the library has no such setting), and setting it
 * (process-wide) */
int ga_blas_threads(void);
void ga_blas_set_threads(int n);

/* CBLAS (the enums are GSL's, the standard values) */
double ga_cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
double ga_cblas_dnrm2(int n, const double *x, int incx);
void ga_cblas_dgemv(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE t, int m, int n, double alpha,
                    const double *a, int lda, const double *x, int incx, double beta, double *y,
                    int incy);
void ga_cblas_dgemm(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m,
                    int n, int k, double alpha, const double *a, int lda, const double *b,
                    int ldb, double beta, double *c, int ldc);
void ga_cblas_dsyrk(enum CBLAS_ORDER o, enum CBLAS_UPLO u, enum CBLAS_TRANSPOSE t, int n, int k,
                    double alpha, const double *a, int lda, double beta, double *c, int ldc);
void ga_cblas_dtrsm(enum CBLAS_ORDER o, enum CBLAS_SIDE s, enum CBLAS_UPLO u,
                    enum CBLAS_TRANSPOSE t, enum CBLAS_DIAG d, int m, int n, double alpha,
                    const double *a, int lda, double *b, int ldb);
void ga_cblas_dtrsv(enum CBLAS_ORDER o, enum CBLAS_UPLO u, enum CBLAS_TRANSPOSE t,
                    enum CBLAS_DIAG d, int n, const double *a, int lda, double *x, int incx);

/* Row-major LAPACK, as LAPACKE's row-major calls (same results to the bit). Each returns 0 on
 * success; > 0 LAPACK's INFO (not positive definite, singular, no convergence); < 0 a
 * refused argument: -i for the i-th argument (a size above INT_MAX, a NaN or infinity in the
 * part the routine reads), GA_LAPACK_ENOMEM, or GA_LAPACK_ENOLIB (no library). The triangle
 * routines read and write only the triangle uplo. */
#define GA_LAPACK_ENOMEM (-1010)
#define GA_LAPACK_ENOLIB (-1011)
/* A wrapper's return as a library status: GA_OK, GA_ENOMEM, GA_EDEP (no library), GA_EINVAL
 * (LAPACK's INFO or a refused argument). ga_lapack_why: the failure as text into buf (returns
 * buf): for GA_LAPACK_ENOMEM, what this thread's last failure could not allocate and how
 * much. */
int ga_lapack_status(int info);
const char *ga_lapack_why(char *buf, size_t n, int info);
int ga_lapack_potrf(char uplo, size_t n, double *a, size_t lda);
int ga_lapack_potri(char uplo, size_t n, double *a, size_t lda);
int ga_lapack_trtri(char uplo, char diag, size_t n, double *a, size_t lda);
int ga_lapack_posv(char uplo, size_t n, size_t nrhs, double *a, size_t lda, double *b,
                   size_t ldb);
/* eigenvalues ascending in w; jobz 'V': a's columns become the eigenvectors */
int ga_lapack_syev(char jobz, char uplo, size_t n, double *a, size_t lda, double *w);
int ga_lapack_syevd(char jobz, char uplo, size_t n, double *a, size_t lda, double *w);

/* ------------------------------------------------------- large arrays (mem.c) */

/* Advice that the bytes at p (a block of the caller's, NULL: nothing) are about to be written
 * in full: a block of 256 KiB or more is faulted in at once, in huge pages where the kernel
 * allows. Nothing else changes; a kernel without the advice faults the pages as they are
 * written. */
void ga_mem_prefault(void *p, size_t bytes);

/* Outward rounding by one unit in the last place: for a correctly rounded r = fl(x) (an IEEE
 * operation or sqrt), the exact x lies in [ga_dn(r), ga_up(r)], so a chain of ga_up over
 * monotone operations on nonnegative upper bounds is an upper bound (and ga_dn below). */
static inline double ga_up(double x)
{
    return nextafter(x, INFINITY);
}

static inline double ga_dn(double x)
{
    return nextafter(x, -INFINITY);
}

/* ------------------------------------------------------- symmetric matrices (spd.c) */

/* A rigorous lower bound *lo <= lambda_min(A) for the symmetric d x d matrix A (row-major
 * doubles, taken as exact; its lower triangle read), from a floating Cholesky factorisation
 * of A - mu I for mu just below guess (a floating estimate of lambda_min; <= 0: mu = 0 only).
 * GA_OK (*lo may be negative when only mu = 0 succeeded), GA_EDOM when no shift tried gave
 * a factorisation (*lo = -inf), GA_ENOMEM. */
int ga_spd_eig_min_lower(double *lo, const double *A, size_t d, double guess);
/* The same with LAPACK's own estimate of lambda_min as the guess (one syev on a copy):
 * GA_OK, GA_EDOM (no estimate or no factorisation: *lo = -inf), GA_ENOMEM. */
int ga_spd_eig_min_lower_est(double *lo, const double *A, size_t d);

/* ------------------------------------------------------- the parallel loop (par.c) */

/* The number of threads for --jobs asked (<= 0: every online core), at most 256. */
int ga_par_jobs(int asked);
/* One item of a parallel loop: writes only its own results (index i); w is this thread's. */
typedef void (*ga_par_fn)(void *ctx, size_t i, ga_gchisq_work *w);
/* fn(ctx, i, w) for every i < n on up to jobs threads (the calling thread is one of them and
 * uses w; NULL: a workspace of its own). Items are not started once the deadline (monotonic
 * seconds, 0: none) has passed; done[i] (if done != NULL, zeroed by the caller) is set for
 * each item run. Returns GA_OK, or GA_ENOMEM (no item run) when w is NULL and no workspace
 * could be allocated. */
int ga_par_for(size_t n, int jobs, double deadline, ga_par_fn fn, void *ctx, unsigned char *done,
               ga_gchisq_work *w);

/* v printed with digits significant digits (1..17), rounded outward: the text read back is
 * <= v (lower bound, upper = 0) or >= v (upper = 1); 17 digits print v exactly. */
void ga_fmt_bound(char *buf, size_t n, double v, int upper, int digits);
/* The shortest decimal that reads back as v (at most 17 significant digits): a number as its
 * writer most likely wrote it (1e-05, 0.3). */
void ga_fmt_shortest(char *buf, size_t n, double v);

/* Does s start with a character that changes how the text around it is shown without being
 * seen itself: a bidirectional control (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)
 * or an invisible one (U+200B-U+200D, U+2060-U+2064, U+FEFF)? Its UTF-8 length (2 or 3) and
 * code point in *cp, or 0. The writers print such characters as the visible text \uXXXX, so
 * that a name cannot reorder or hide a verdict beside it. */
size_t ga_utf8_hidden(const char *s, unsigned *cp);
/* Digits that decide: v with the fewest significant digits (at least min_digits) whose
 * printed value is on the same side of ref as v (ref the claim v is compared with; v == ref
 * or non-finite: the shortest round trip). Rounded to nearest. */
void ga_fmt_decide(char *buf, size_t n, double v, double ref, int min_digits);
/* The same for a bound: rounded outward (ga_fmt_bound), with the digits that keep it on its
 * side of ref. */
void ga_fmt_bound_decide(char *buf, size_t n, double v, int upper, double ref, int min_digits);

/* ------------------------------------------------------- adaptive quadrature */

/* Real integrand of a real parameter. */
typedef double (*ga_quad_fn)(double t, void *param);

#define GA_QUAD_MAXINT 512

typedef struct {
    double a, b, val, err, absval;
    double raw; /* |K15 - G7| * h: the plain error estimate of the Gauss rule */
} ga_quad_interval;

typedef struct {
    ga_quad_interval iv[GA_QUAD_MAXINT]; /* heap ordered by err (largest first) */
    size_t n;
    int conservative; /* nonzero: per-interval error max(heuristic, |K15 - G7|) always */
} ga_quad_work;

/*
 * Adaptive Gauss-Kronrod (7/15) integration of f on [a, b], bisecting the interval with the
 * largest error estimate until err <= max(epsabs, epsrel*|val|), the interval capacity, or
 * max_evals. out->err is the sum of the per-interval estimates (QUADPACK-style heuristic:
 * an estimate, not a bound); when a limit stops the refinement, the heuristic is not
 * trusted and each interval contributes max(heuristic, |K15 - G7|). *absint receives the Kronrod estimate of int |f| (for rounding
 * error estimates), *evals is incremented. Returns GA_OK or GA_ETOL.
 */
int ga_quad_gk(ga_result *out, double *absint, size_t *evals, ga_quad_fn f, void *param,
               double a, double b, double epsabs, double epsrel, size_t max_evals,
               ga_quad_work *w);

/* ------------------------------------------------------- contour machinery */

/* Kernel of the Bromwich integral: 1/z (tail probabilities) or 1/(z (z+1)) (direct delta). */
enum ga_kernel { GA_KERNEL_TAIL = 0, GA_KERNEL_DELTA = 1 };

/*
 * Path and integrand description for int F(z) dz with
 *   F(z) = exp(K(z) - z x - L0) * kernel(z),
 * along the vertical segment c -> c + i t0 and then the ray c + i t0 + s (dir*beta + i),
 * s >= 0. q must be normalized (no a == 0 terms).
 */
typedef struct {
    const ga_gchisq *q;
    double x;       /* evaluation point */
    double c;       /* abscissa of the vertical part, in the domain of K, != 0 */
    double L0;      /* log scale: K(c) - c x */
    double t0;      /* height of the vertical part */
    double beta;    /* slope of the ray (0 <= beta < 1) */
    int dir;        /* -1, 0, +1: direction the ray bends */
    int kernel;     /* enum ga_kernel */
    int imag_only;  /* 0: the integrand returns Im(F z'); see ga_path_integrand */
    size_t nevals;
    double deadline;/* ga_monotonic() time after which integration gives up (0: none) */
} ga_path;

/* log of F(z) (complex), without the kernel: K(z) - z x - L0. */
double complex ga_path_logmgf(const ga_path *p, double complex z);

/* Real integrand Im(F(z(t)) z'(t)) at path parameter t >= 0. */
double ga_path_integrand(double t, void *param);

/*
 * Rigorous (up to floating rounding) upper bound of int_{t >= T} |F(z(t))| |dz(t)| with the
 * log scale L0 removed, i.e. the true bound is exp(L0) * returned value. T >= t0. Returns
 * +INFINITY when no useful bound is available at this T (the caller goes further out).
 */
double ga_path_tailbound(const ga_path *p, double T);

/* Choose c (saddle point clamped away from 0 and the singularities), L0, t0, dir, beta for
 * the tail with sign +1 (P[Q > x], c > 0) or -1 (P[Q <= x], c < 0). Returns GA_OK or GA_EDOM
 * when that side has no domain (cannot happen for a normalized, non-degenerate form). */
int ga_path_setup(ga_path *p, const ga_gchisq *q, double x, int sign, int kernel);
/* The same, except that when the scale L0 is below `below` the path's bend is not tuned (its
 * cost is sampling |F| along it): for a caller that then needs L0 only (a value below the
 * double range, known from the Chernoff bound exp(L0)). */
int ga_path_setup_scale(ga_path *p, const ga_gchisq *q, double x, int sign, int kernel,
                        double below);

/*
 * Integrate along a set-up path: I = int Im(F dz) with quadrature error, truncation bound
 * and rounding estimate folded into out->err (all on the L0 scale). Returns GA_OK or GA_ETOL.
 */
int ga_path_integrate(ga_result *out, ga_path *p, double epsabs, double epsrel,
                      size_t max_evals, ga_quad_work *w);

/* Solve K'(s) = x for s in the domain (Newton with bracketing). */
int ga_gchisq_saddle(double *s, const ga_gchisq *q, double x);

/* Asymptotic drift m_inf = offset - sum b2/(4a): the support end of a definite form. */
double ga_gchisq_drift(const ga_gchisq *q);
/* Replaces Q by (Q - offset) / 2^k, 2^k the power of two at or below the largest of |a_j|,
 * sqrt(b2_j) and sigma, and returns (x - offset) / 2^k (clamped to +-DBL_MAX): both tails
 * are unchanged, and the engines never see scales near the overflow or underflow
 * thresholds. Exact apart from the shift x - offset and from components more than 2^1074
 * below the largest, which are flushed (their effect is below double resolution). */
double ga_gchisq_rescale(ga_gchisq *q, double x);

/* ------------------------------------------------------- engines */

struct ga_gchisq_work {
    ga_gchisq *qn;     /* normalized copy of the form */
    ga_quad_work quad;
};

int ga_engine_closed(ga_gchisq_prob *out, const ga_gchisq *q, double x);
int ga_engine_contour(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                      const ga_gchisq_opts *o, ga_quad_work *w);
int ga_engine_imhof(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                    const ga_gchisq_opts *o, ga_quad_work *w);
int ga_engine_davies(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                     const ga_gchisq_opts *o);
/* The same, giving up (GA_EMAXITER, out untouched) before the sum when the tolerance needs
 * more than kcap nodes or the discretisation bound cannot reach it: the plan costs a few
 * Chernoff bounds and tail bounds, the sum kcap log-MGF evaluations at most. */
int ga_engine_davies_capped(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                            const ga_gchisq_opts *o, size_t kcap);

/* Exact answers for degenerate forms (point mass, x outside the support of a definite
 * form). Returns 1 and fills out when it applies, 0 otherwise. */
int ga_gchisq_trivial(ga_gchisq_prob *out, const ga_gchisq *q, double x);


/* ------------------------------------------------------- one-dimensional privacy losses */

/* One term of a composition of subsampled Gaussian steps (numerics/ploss.c): rate q in
 * (0, 1], m = 1/sigma, count steps, add = 1 for the add relation (roles swapped). */
typedef struct {
    double q, m, count;
    int add;
    double r; /* 0: a mean step (above); r >= 1: a covariance step (subsampled sketch): r
                 columns N(0, (1 + m^2) I) vs N(0, I) in the record's direction, one step */
    double nu, ly; /* nu >= 1: a masked release (numerics/masked.c; q = 1, one step): X is
                      noncentral chi^2_nu(m^2), Y noncentral chi^2_nu(ly) */
    double pts;    /* with nu: pts >= 1 synthetic points (numerics/synth.c): X is S C with S
                      ~ chi^2_nu(m^2), C ~ chi^2_pts, Y the same with S ~ chi^2_nu(ly) */
} ga_ploss_term;

#define GA_PLOSS_MAX_TERMS 10000
#define GA_PLOSS_MAX_COUNT 1e9

typedef struct {
    size_t n;
    ga_ploss_term *t;
} ga_ploss;

/* delta_{a,b}(eps) of the pair noncentral chi^2_nu(la) (a) and chi^2_nu(lb) (b), eps >= 0
 * (numerics/masked.c): the closed form of the threshold event with an error estimate; *wstar
 * (may be NULL) receives the threshold w* of the event (NaN when there is none). GA_OK,
 * GA_EINVAL, GA_EMAXITER (no threshold found), GA_ENOMEM. */
int ga_ncx2_delta(ga_result *out, double *wstar, double nu, double la, double lb, double eps);
/* Synthetic points from random inputs (numerics/synth.c): delta_{a,b}(eps) of the laws of S C,
 * S ~ chi^2_d(la) (a) or chi^2_d(lb) (b), C ~ chi^2_m, with an error estimate; *zstar (may be
 * NULL) the threshold in z = S C / 4 (NaN: none). GA_OK, GA_EINVAL, GA_EDOM (d and m both odd:
 * no finite tail formula), GA_EMAXITER. The loss's supremum (infinite when la > lb), and the
 * upper tail P[S C > 4 z] (estimates, for witnesses and tests). */
int ga_synth_delta(ga_result *out, double *zstar, double d, double m, double la, double lb, double eps);
/* the same, stopping with GA_ETIME (no value) once the deadline (monotonic seconds, 0: none)
 * has passed: at large d each loss evaluation sums about d/2 terms */
int ga_synth_delta_until(ga_result *out, double *zstar, double d, double m, double la, double lb,
                         double eps, double deadline);
double ga_synth_loss_sup(double d, double m, double la, double lb);
int ga_synth_tail(double *T, double d, double m, double lam, double z);

/* Poisson weights of mean mu (numerics/masked.c): the range klo..khi outside which the mass
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
 * AUTO is the closed form for one step, the Bromwich integral otherwise). GA_OK, GA_ETOL. */
int ga_ploss_delta(ga_result *xy, ga_result *yx, const ga_ploss *L, double eps, int method,
                   const ga_gchisq_opts *opts, ga_quad_work *w);
/* Renyi divergences of order alpha > 1 in both directions (estimates). */
int ga_ploss_renyi(ga_result *xy, ga_result *yx, const ga_ploss *L, double alpha);
/* Supremum of the loss in direction dir (0: XY, 1: YX): delta is 0 from there on. */
double ga_ploss_loss_sup(const ga_ploss *L, int dir);
/* What a pessimistic PLD accountant (grid spacing h, tails truncated at 1e-15, FFT
 * composition; numerics/pld.c) reports as eps at delta in direction dir: an estimate above
 * the exact value (for comparison, not certified). GA_OK, GA_EDOM (covariance steps),
 * GA_EMAXITER (more than 4M grid points), GA_EINVAL, GA_ENOMEM. */
int ga_ploss_pld_epsilon(double *eps, const ga_ploss *L, int dir, double delta, double h);
/* The trapezoid grid for M(w) of one step (q < 1) at real part a = 1 + Re w, |Im w| <= t:
 * step h, first node x0, n nodes, strip half-width d; disc, tail: the discretisation and
 * truncation bounds (relative), sized for a relative error about e^-lnrel. The certified
 * evaluation (numerics/ploss_cert.c) takes the grid as a design and bounds it itself. */
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

#endif

/*
 * numerics.h - the numerics layer as the layers above see it: the generalized chi-square
 * engines and their path machinery, quadrature, the parallel loop, symmetric matrices and the
 * Arb thread cleanup (the certified side is numerics/arb.h). Not installed.
 */
#ifndef GA_NUMERICS_H
#define GA_NUMERICS_H

#include "base/base.h"

/* The options a function was given, or the defaults for NULL (the one option prologue). */
ga_cert_opts ga_cert_opts_or_default(const ga_cert_opts *opts);
ga_gchisq_opts ga_gchisq_opts_or_default(const ga_gchisq_opts *opts);

/* ------------------------------------------------------- FLINT/Arb (arb_load.c) */

/* FLINT's caches of the calling thread (flint_cleanup), if FLINT/Arb was ever loaded (it is
 * opened on the first certified computation: numerics/arb_api.h); a thread or a process
 * that made none has no caches, and the library is not loaded to free them. */
void ga_arb_thread_cleanup(void);

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
 * uses w; NULL: a workspace of its own); inside an item of a loop whose threads are shared
 * (ga_par_inner_jobs) with jobs > 1 it starts none: that loop's threads join it as they run
 * out of items of their own. Items are not started once the deadline (monotonic
 * seconds, 0: none) has passed; done[i] (if done != NULL, zeroed by the caller) is set for
 * each item run. Returns GA_OK, or GA_ENOMEM (no item run) when w is NULL and no workspace
 * could be allocated. */
int ga_par_for(size_t n, int jobs, double deadline, ga_par_fn fn, void *ctx, unsigned char *done,
               ga_gchisq_work *w);
/* The threads the item running on this thread may use for a loop of its own (par.c's top
 * comment): jobs / n lent by a loop of n < jobs items (all of them to a single item: one
 * expensive pair of an audit, its cells, nodes or grid points on every core); the loop's
 * threads, shared, in a loop where that is 1 and it runs on several (its items' loops start
 * no thread: the loop's threads join them as they run out of items); 1 in a loop inside an
 * item, on one thread, and outside any loop (a library call starts no threads unasked). */
int ga_par_inner_jobs(void);
/* fn(ctx, i, w) for every i < n of items that need no workspace: on up to jobs threads when
 * jobs > 1 and n > 1 (as ga_par_for), else, and when that loop cannot start (no memory for
 * the calling thread's workspace), on the calling thread with w NULL. Items are not started
 * once the deadline (0: none) has passed. */
void ga_par_items(size_t n, int jobs, double deadline, ga_par_fn fn, void *ctx);
/* ga_mem_prefault of the block at p on up to jobs threads (ga_par_items), each faulting in a
 * part of it: a block that is about to be written in full by the calling thread alone is
 * mapped at the speed of every core (a fresh page can cost a fault of the virtual machine's
 * host too). Nothing else changes. */
void ga_par_prefault(void *p, size_t bytes, int jobs);

/* One step of regula falsi's bookkeeping, Illinois' variant: the point x with value f
 * replaces the end of its sign (f > 0: xp, else xn); an end kept twice in a row has its
 * value halved, so that both ends converge. *last: the end replaced last (1: xp, -1: xn, 0:
 * none yet). */
static inline void ga_illinois_update(double *xp, double *fp, double *xn, double *fn, int *last,
                                      double x, double f)
{
    if (f > 0) {
        *xp = x, *fp = f;
        if (*last == 1)
            *fn *= 0.5;
        *last = 1;
    } else {
        *xn = x, *fn = f;
        if (*last == -1)
            *fp *= 0.5;
        *last = -1;
    }
}

/* log |Gamma(x)|: libm's lgamma without its write of the global signgam (a data race when
 * threads call it; the same value: lgamma is lgamma_r with &signgam) */
double ga_lgamma(double x);

/* log(e^a + e^b) without overflow (a = -inf: b) */
static inline double ga_logaddexp(double a, double b)
{
    if (a == -INFINITY)
        return b;
    return fmax(a, b) + log1p(exp(-fabs(a - b)));
}

/* ------------------------------------------------------- the Fourier transform (fft.c) */

/* The twiddle factors of one power-of-two length n, a table per pass. */
typedef struct {
    size_t n;
    double *tw;
} ga_fft_plan;

/* GA_OK (the plan is usable until ga_fft_plan_clear), GA_EINVAL (n not a power of two >= 2),
 * GA_ENOMEM (nothing to clear; clearing is harmless). */
int ga_fft_plan_init(ga_fft_plan *p, size_t n);
/* The same with the twiddle factors from Arb (rounded to nearest: ga_fft_relerr then rests on
 * IEEE arithmetic alone); also GA_EDEP (Arb not available) or GA_EPREC. */
int ga_fft_plan_init_cert(ga_fft_plan *p, size_t n);
void ga_fft_plan_clear(ga_fft_plan *p);
/* In place on the n complex numbers z[2k] + i z[2k + 1] in natural order: position i then
 * holds y_{f(i)} = sum_k z_k e^{-2 pi i f(i) k / n}, f = ga_fft_freq (bit reversal). */
void ga_fft_forward(const ga_fft_plan *p, double *z);
/* The inverse of ga_fft_forward: from spectra in its order, (1/n) sum_j y_j e^{+2 pi i j k / n}
 * at position k. */
void ga_fft_inverse(const ga_fft_plan *p, double *z);
/* The frequency at position i of a forward transform of length n. */
size_t ga_fft_freq(size_t n, size_t i);
/* The position of frequency n - f(i) (mod n) in that order (independent of n). */
size_t ga_fft_partner(size_t i);
/* The same for i in the block [m, 2m) (m a power of two; any m for i < 2), without the
 * search for m: a loop over i keeps m as it goes */
static inline size_t ga_fft_partner_in(size_t i, size_t m)
{
    return i < 2 ? i : 3 * m - 1 - i;
}
/* The transforms of the real and the imaginary part of a forward transform's input at
 * position i, from z at i and at its partner j = ga_fft_partner(i): x = (Z_i + conj Z_j) / 2,
 * y = (Z_i - conj Z_j) / (2i), each {re, im} (one rounding of each sum). */
void ga_fft_unpack(double x[2], double y[2], const double *z, size_t i, size_t j);
/* A bound on ||y^ - y||_2 / ||y||_2 for either transform at length n (y the exact transform of
 * the given input, y^ the computed one). */
double ga_fft_relerr(size_t n);

/* ------------------------------------------------------- adaptive quadrature */

/* Real integrand of a real parameter. */
typedef double (*ga_quad_fn)(double t, void *param);

#define GA_QUAD_MAXINT 512

typedef struct {
    double a, b, val, err, absval;
    double raw; /* |K15 - G7| * h: the plain error estimate of the Gauss rule */
} ga_quad_interval;

/* A thread's memory of the last results of expensive pure computations (numerics/memo.c):
 * a key of up to GA_MEMO_KEY bytes maps to up to 4 doubles and a status */
#define GA_MEMO_SLOTS 16
#define GA_MEMO_KEY 96
typedef struct {
    unsigned char key[GA_MEMO_SLOTS][GA_MEMO_KEY];
    size_t klen[GA_MEMO_SLOTS]; /* 0: an empty slot */
    double val[GA_MEMO_SLOTS][4];
    int status[GA_MEMO_SLOTS];
    size_t next; /* the slot written next (the oldest) */
} ga_memo;

typedef struct {
    ga_quad_interval iv[GA_QUAD_MAXINT]; /* heap ordered by err (largest first) */
    size_t n;
    int conservative; /* nonzero: per-interval error max(heuristic, |K15 - G7|) always */
    ga_memo memo;     /* (zeroed with the workspace) */
    /* decide > 0: the caller (an eps search) needs only the side of this value that the
     * larger direction's delta lies on; an engine that brackets may stop once its bracket
     * excludes it, and then sets decided (its value's error is then larger than asked) */
    double decide;
    int decided;
    /* a cache the pair layer keeps per thread (the few-steps bracket's convolutions), freed
     * with the workspace through bcache_free */
    void *bcache;
    void (*bcache_free)(void *);
} ga_quad_work;

/* The values and status stored under key (klen bytes, at most GA_MEMO_KEY): 1 when found
 * (val[0..nval-1] and *status set), 0 otherwise. A result depends on its key alone, so what
 * a thread recalls is what it would compute again (results do not depend on the order of
 * evaluations, nor on the thread). */
int ga_memo_get(double *val, size_t nval, int *status, const ga_memo *m, const void *key,
                size_t klen);
/* Store nval <= 4 values and a status under key, replacing the entry of that key or else
 * the oldest (a key longer than GA_MEMO_KEY is not stored). */
void ga_memo_put(ga_memo *m, const void *key, size_t klen, const double *val, size_t nval,
                 int status);

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
/* The trapezoidal rule on the vertical line through the saddle point (shifted.c): the tail
 * on x's side of the mean to a relative target, the other tail as its complement. Gives up
 * (GA_EMAXITER, out untouched) when the plan needs more than kcap nodes or the tail is out of
 * its range (x at the mean, tails below about 1e-260); GA_ETOL (out filled, with honest
 * errors) when the sum misses the target for either tail. */
int ga_engine_shifted_capped(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                             const ga_gchisq_opts *o, size_t kcap);

/* Exact answers for degenerate forms (point mass, x outside the support of a definite
 * form). Returns 1 and fills out when it applies, 0 otherwise. */
int ga_gchisq_trivial(ga_gchisq_prob *out, const ga_gchisq *q, double x);


#endif

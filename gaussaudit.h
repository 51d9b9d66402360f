/*
 * gaussaudit.h - the one public header of libgaussaudit.
 *
 * Every public symbol carries the prefix ga_ (types, functions) or GA_ (constants).
 * Conventions:
 *   - functions return an int status (enum ga_status, 0 = success); ga_strerror() names it;
 *   - outputs come first, then inputs, then options/workspaces;
 *   - every numerical result is a ga_result {val, err} (an estimate with its error estimate)
 *     or, in certified mode, an interval that provably contains the true value;
 *   - _alloc/_free for heap objects (_free(NULL) is a no-op), caller-allocated workspaces,
 *     no allocation inside integrand loops, no global state (reentrant) beyond ga_init().
 */
#ifndef GAUSSAUDIT_H
#define GAUSSAUDIT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GA_VERSION_STRING "0.1.0"

/* The public API: the library is built with hidden visibility, and only what is declared
 * here with GA_API is exported (tests/exports.sh checks it). */
#define GA_API __attribute__((visibility("default")))

/* ------------------------------------------------------------------ status */

enum ga_status {
    GA_OK = 0,        /* success: value and error bound are valid */
    GA_EINVAL = 1,    /* invalid argument or parameter (message says which) */
    GA_ENOMEM = 2,    /* allocation failed */
    GA_ETOL = 3,      /* requested accuracy not reached; the returned value and its
                         (larger) error estimate are still valid */
    GA_EUNDERFLOW = 4,/* the result underflows double precision (log-scale value given) */
    GA_EDOM = 5,      /* method not applicable to this input (e.g. closed form on a mixed form) */
    GA_EPREC = 6,     /* certified: the requested width was not reached, because of the
                         precision cap or because two doublings of the precision brought
                         no gain; the best interval found is returned and is rigorous */
    GA_EIO = 7,       /* file or stream error */
    GA_EMAXITER = 8,  /* iteration limit reached (value and error estimate still returned) */
    GA_ETIME = 9,     /* the deadline passed (opts.deadline): what is returned is valid but
                         unfinished (a certified interval is still an enclosure, maybe [0, 1]) */
    GA_EDEP = 10,     /* a library the computation needs (FLINT/Arb, for every certified
                         result) could not be loaded: nothing was computed (ga_cert_available) */
    GA_NSTATUS
};

/* Human-readable message for a status code (never NULL). */
GA_API const char *ga_strerror(int status);

/* The library's version, GA_VERSION_STRING of the header it was built from ("0.1.0"): a
 * program or a binding compares it with the header it was compiled against, since the
 * library may be a different build than the header (never NULL). */
GA_API const char *ga_version(void);

/* Process set-up, once, before any other call: turns GSL's default error handler (which
 * aborts the process on a domain error or an underflow inside a special function) off, since
 * gaussaudit reads the status of every GSL call itself. This is the library's only global
 * side effect, and it happens here alone: a program that installs its own GSL handler (one
 * that returns) may call ga_init and then reinstall it, or skip ga_init. Idempotent. */
GA_API void ga_init(void);

/* Free the caches of the certified path (Arb/FLINT keep Gauss-Legendre nodes and
 * constants per thread). Optional: call before exit to keep leak checkers quiet. */
GA_API void ga_cleanup(void);

/* ------------------------------------------------------------------ results */

/* A value with an absolute error estimate: |true - val| <= err is expected (estimate)
 * unless the producing function documents the bound as rigorous. */
typedef struct {
    double val;
    double err;
} ga_result;

/* ------------------------------------------------ generalized chi-square type */

/*
 * Q = offset + sigma*z0 + sum_j sum_{i=1..nu_j} (a_j z_ji^2 + b_ji z_ji),  z iid N(0,1),
 * stored in the division-free form: term j is (a_j, nu_j, b2_j) with
 * b2_j = sum_i b_ji^2. Terms with a_j = 0 are pure normal components and are folded into
 * sigma2 (= sigma^2) by ga_gchisq_normalize(). nu_j > 0 may be non-integer.
 * The classical form w*chi2(dof, nc) is the term (w, dof, 4 w^2 nc) plus offset w*nc.
 */
/* Largest accepted number of degrees of freedom of one term (integers are exact in double
 * up to 2^53; beyond 1e15 a count of normals is meaningless). */
#define GA_GCHISQ_MAX_DOF 1e15

typedef struct {
    double a;   /* coefficient of z^2 (the classical weight) */
    double nu;  /* number of iid normals (degrees of freedom), > 0 */
    double b2;  /* sum of squared linear coefficients, >= 0 */
} ga_gchisq_term;

typedef struct {
    size_t n;              /* number of terms */
    size_t cap;            /* allocated terms */
    ga_gchisq_term *t;     /* the terms */
    double offset;         /* constant */
    double sigma2;         /* variance of the pure normal component, >= 0 */
} ga_gchisq;

/* Allocate an empty form with room for cap terms (grows on demand). NULL on failure. */
GA_API ga_gchisq *ga_gchisq_alloc(size_t cap);
/* Free a form; ga_gchisq_free(NULL) is a no-op. */
GA_API void ga_gchisq_free(ga_gchisq *q);
/* Deep copy into dst (resized as needed). Returns GA_OK or GA_ENOMEM. */
GA_API int ga_gchisq_copy(ga_gchisq *dst, const ga_gchisq *src);
/* Remove all terms, offset and normal part (Q = 0; keeps the storage: _zero, as in FLINT;
 * _free releases). */
GA_API void ga_gchisq_zero(ga_gchisq *q);

/* Append term (a, nu, b2). Returns GA_OK, GA_ENOMEM, or GA_EINVAL (non-finite values,
 * nu <= 0, b2 < 0); on error the form is unchanged. */
GA_API int ga_gchisq_add_term(ga_gchisq *q, double a, double nu, double b2);

/*
 * Build Q = offset + sigma*z0 + sum_j w_j chi2(dof_j, nc_j) (classical parametrisation).
 * dof may be NULL (all 1) and nc may be NULL (all 0). Any previous content of q is replaced.
 * Returns GA_OK; GA_EINVAL with a message in msg (if msg != NULL) naming the offending
 * argument and index for NaN/Inf, dof <= 0, nc < 0, sigma < 0, or n == 0 with sigma == 0.
 */
GA_API int ga_gchisq_set_classical(ga_gchisq *q, size_t n, const double *w, const double *dof,
                            const double *nc, double sigma, double offset,
                            char *msg, size_t msglen);

/*
 * Validate the form: finite parameters, nu > 0, b2 >= 0, sigma2 >= 0, at least one
 * non-degenerate component is NOT required (a point mass is a valid law).
 * Returns GA_OK or GA_EINVAL with a message naming the term.
 */
GA_API int ga_gchisq_validate(const ga_gchisq *q, char *msg, size_t msglen);

/*
 * Normalize: fold a == 0 terms into sigma2, drop empty terms, sort by a, merge terms whose
 * coefficients are equal to within relative tolerance rtol (rtol = 0: exactly equal only).
 * Merging with rtol > 0 replaces the close coefficients by their nu-weighted mean: it is an
 * approximation and must not be used on the certified path. Returns GA_OK.
 */
GA_API int ga_gchisq_normalize(ga_gchisq *q, double rtol);

/* Mean and variance of Q (exact formulas, rounded). */
GA_API void ga_gchisq_moments(double *mean, double *var, const ga_gchisq *q);

/*
 * Cumulant generating function K(s) = log E[exp(s Q)] for real s in the open interval
 * (smin, smax) where it is finite (ga_gchisq_domain). Returns GA_EDOM outside.
 */
GA_API void ga_gchisq_domain(double *smin, double *smax, const ga_gchisq *q);
GA_API int ga_gchisq_cgf(double *k0, double *k1, double *k2, const ga_gchisq *q, double s);

/* ------------------------------------------------------------------ engines */

enum ga_method {
    GA_METHOD_AUTO = 0,
    GA_METHOD_IMHOF,     /* Gil-Pelaez on the real line, adaptive quadrature */
    GA_METHOD_DAVIES,    /* trapezoidal rule with Davies' error bounds */
    GA_METHOD_CONTOUR,   /* saddle-point shifted and bent Bromwich contour */
    GA_METHOD_CLOSED,    /* closed forms: (noncentral) chi-square, normal, point mass */
    GA_METHOD_ARB,       /* certified ball arithmetic (see ga_gchisq_prob_arb) */
    GA_NMETHOD
};

/* Name of a method ("auto", "imhof", ...); ga_method_parse returns -1 for unknown names. */
GA_API const char *ga_method_name(int method);
GA_API int ga_method_parse(const char *name);

typedef struct {
    int method;        /* enum ga_method */
    double epsabs;     /* absolute error target for each tail (default 0) */
    double epsrel;     /* relative error target for each tail (default 1e-13) */
    size_t max_evals;  /* cap on integrand evaluations per tail (default 200000) */
    double deadline;   /* CLOCK_MONOTONIC seconds after which a long evaluation (a subsampled
                          composition's integral, an eps search) stops with GA_ETIME and no
                          value (default 0: none) */
} ga_gchisq_opts;

/* Default options (auto, no absolute target, 1e-13 relative). */
GA_API void ga_gchisq_opts_init(ga_gchisq_opts *o);

/* Both tails of Q at one point. */
typedef struct {
    ga_result cdf;     /* P[Q <= x] */
    ga_result sf;      /* P[Q >  x] */
    double log_cdf;    /* natural log of cdf.val, finite even when cdf.val underflows
                          (from the log-scaled contour integral, relative error about the
                          tail's relative accuracy); -inf where that integral failed: never
                          a bound passed off as the value */
    double log_sf;     /* natural log of sf.val, likewise */
    int method;        /* the method that produced the result (never AUTO) */
    size_t evals;      /* integrand evaluations used (0 for closed forms) */
} ga_gchisq_prob;

/* Workspace for the quadrature engines. One per thread. */
typedef struct ga_gchisq_work ga_gchisq_work;
GA_API ga_gchisq_work *ga_gchisq_work_alloc(void);
GA_API void ga_gchisq_work_free(ga_gchisq_work *w);

/*
 * P[Q <= x] and P[Q > x], each with an error estimate. Each tail is computed directly (a
 * small tail keeps its relative accuracy); the contour engine takes 1 minus the other tail
 * instead only where that has the smaller error (a near-1 tail whose integral failed). q need not be normalized (a normalized copy is made in w).
 * Returns GA_OK when both errors meet max(epsabs, epsrel*value), not counting the rounding
 * floor of double precision (which is included in err: in tails near 1e-300 it is about
 * 1e-13 relative); GA_ETOL when not (the values and honest, larger error estimates are
 * still returned); GA_EDOM when the
 * requested method does not apply; GA_EINVAL for an invalid form or non-finite x.
 * Error estimates: quadrature error estimate + rigorous truncation bound + rounding
 * estimate. They are estimates (floating point), not certificates.
 */
GA_API int ga_gchisq_prob_eval(ga_gchisq_prob *out, const ga_gchisq *q, double x,
                        const ga_gchisq_opts *opts, ga_gchisq_work *w);

/* ------------------------------------------------------------------ certified */

/*
 * The same law with parameters held exactly (as Arb balls that contain the exact values):
 * numbers given as decimal text enter as the exact decimal, never via a double.
 */
typedef struct ga_gchisq_exact ga_gchisq_exact;

GA_API ga_gchisq_exact *ga_gchisq_exact_alloc(void);
GA_API void ga_gchisq_exact_free(ga_gchisq_exact *q); /* NULL is a no-op */

/*
 * Classical parametrisation from decimal strings (dof or nc may be NULL: all 1 / all 0;
 * sigma and offset may be NULL: 0). Weights that are exactly zero are dropped.
 * Returns GA_OK, or GA_EINVAL with a message naming the argument and item (unparseable,
 * dof <= 0, nc < 0, sigma < 0, empty form).
 */
GA_API int ga_gchisq_exact_set_classical(ga_gchisq_exact *q, size_t n, const char *const *w,
                                  const char *const *dof, const char *const *nc,
                                  const char *sigma, const char *offset, char *msg,
                                  size_t msglen);
/* The exact values of a double-precision form (every double is an exact binary number). */
GA_API int ga_gchisq_exact_set_form(ga_gchisq_exact *q, const ga_gchisq *form);
/* Double approximation (nearest) of the exact form, for the floating-point engines. */
GA_API int ga_gchisq_exact_get_form(ga_gchisq *form, const ga_gchisq_exact *q);

typedef struct {
    double lo, hi; /* an enclosure: lo <= true value <= hi (doubles rounded outward) */
} ga_interval;

typedef struct {
    int digits;        /* stop when each interval's relative width <= 10^-digits (default 17) */
    long max_prec;     /* precision cap in bits (default 4096) */
    double deadline;   /* CLOCK_MONOTONIC seconds after which the computation stops with
                          GA_ETIME and the (valid) intervals found so far (default 0: none) */
} ga_cert_opts;

GA_API void ga_cert_opts_init(ga_cert_opts *o);

/* Can certified results be computed (FLINT/Arb loaded on first use, or now)? 1, or 0 with
 * *why (if not NULL) saying what could not be loaded: the certified functions then return
 * GA_EDEP. */
GA_API int ga_cert_available(const char **why);

typedef struct {
    ga_interval cdf, sf;      /* certified enclosures of P[Q <= x] and P[Q > x] */
    /* the same bounds as decimal text with digits + 3 significant digits, lo rounded down
     * and hi rounded up: these are what the CLI prints */
    char cdf_lo[80], cdf_hi[80], sf_lo[80], sf_hi[80];
    long precision_bits;      /* working precision of the final evaluation */
} ga_gchisq_cert;

/*
 * Certified P[Q <= x] and P[Q > x] for the exact law q at the exact point x (decimal text).
 * Precision escalates 64, 128, 256, ... bits up to opts->max_prec (the escalation loop every
 * certified function shares, honouring opts->max_prec and opts->deadline), each tail
 * by the Bromwich integral on a polygonal saddle-point contour (acb_calc_integrate) plus a
 * proven bound of the truncated ray.
 * Guarantees: whatever the status (except GA_EINVAL/GA_ENOMEM), every returned interval
 * contains the true value. GA_OK: both relative widths <= 10^-digits; GA_EPREC: the width
 * was not reached (precision cap 4096 bits by default, two doublings without gain, or a
 * precision beyond 2 (log2|L0| + the bits asked), L0 the Chernoff exponent; far tails whose
 * saddle point no double represents end there with [0, hi]) and the intervals are the
 * narrowest found; GA_ETIME: opts->deadline passed (the intervals found so far); GA_EDOM: no
 * valid path (intervals [0, 1]).
 */
GA_API int ga_gchisq_prob_cert(ga_gchisq_cert *out, const ga_gchisq_exact *q, const char *x,
                        const ga_cert_opts *opts);

/* ------------------------------------------------------------------ Gaussian pairs */

/*
 * A neighbouring pair X ~ N(mu_x, S_x), Y ~ N(mu_y, S_y) in dimension d, optionally with r
 * iid columns sharing these laws (Kronecker structure: the output is d x r). Matrices are
 * row-major d x d. The pair is reduced once: whitening by Y,
 * L = chol(S_y), lambda = eig(L^{-1} (S_x - S_y) L^{-T}) (so tau - 1 is computed directly,
 * without cancellation when tau is close to 1), mt = V^T L^{-1} (mu_x - mu_y); the privacy
 * loss l = log p_X - log p_Y is then a generalized chi-square under X and under Y.
 */
typedef struct {
    size_t d;
    const double *mu_x, *mu_y; /* d entries */
    const double *s_x, *s_y;   /* d*d, row-major, symmetric positive semi-definite */
    double columns;            /* r >= 1 iid columns (default 1 when 0) */
    /* optional names of mu_x, mu_y, s_x, s_y used in error messages (e.g. a spec path with
     * its line); NULL entries default to "mu_x", "mu_y", "s_x", "s_y" */
    const char *field[4];
} ga_pair_input;

typedef struct ga_pair ga_pair;

/* Degeneracy of a pair (singular covariances). */
enum ga_pair_support {
    GA_SUPPORT_FULL = 0,   /* both covariances positive definite */
    GA_SUPPORT_COMMON = 1, /* singular, equal supports: reduced to the common subspace */
    GA_SUPPORT_DIFFER = 2  /* supports differ: delta = 1 in both directions, every eps */
};

/*
 * Validate and reduce. Errors (GA_EINVAL) name the field: "s_x is not symmetric (entry
 * [i][j] ...)", "s_y is not positive semi-definite (most negative eigenvalue ...)",
 * non-finite entries, d == 0. Singular covariances are analysed with the rank tolerance
 * 64 d eps max|eig| (stated in the pair's description). Returns GA_OK and *out.
 */
GA_API int ga_pair_reduce(ga_pair **out, const ga_pair_input *in, char *msg, size_t msglen);
GA_API void ga_pair_free(ga_pair *p);

/*
 * A product pair: the release of n independent blocks (composition), block b with laws
 * N(in[b].mu_x, in[b].s_x) vs N(in[b].mu_y, in[b].s_y) and its own columns. Each block is
 * reduced on its own (no block-diagonal matrix is formed) and the privacy loss is the sum of
 * the blocks' losses: one generalized chi-square with the terms of every block. delta, eps,
 * Renyi and the certified functions accept a product pair; the certified ones then take
 * arrays of n inputs (in, txt). The supports differ when they differ in some block.
 * n == 1 is ga_pair_reduce. Returns GA_OK and *out, or the first block's error (the message
 * names the field through in[b].field), GA_EINVAL for n outside 1..GA_PAIR_MAX_BLOCKS.
 */
#define GA_PAIR_MAX_BLOCKS 100000
GA_API int ga_pair_reduce_product(ga_pair **out, const ga_pair_input *in, size_t n, char *msg,
                                  size_t msglen);
/* Blocks of a pair (1 for a plain pair, which is its own block 0); NULL past the end. */
GA_API size_t ga_pair_nblocks(const ga_pair *p);
GA_API const ga_pair *ga_pair_block(const ga_pair *p, size_t i);

/* Support analysis and a one-line human-readable description (reason for delta = 1). */
GA_API int ga_pair_support(const ga_pair *p);
GA_API const char *ga_pair_support_reason(const ga_pair *p);
/* Eigenvalues tau_i - 1 of the whitened covariance (k of them, k = reduced dimension; for a
 * product pair the blocks' ones concatenated, and columns 1: see each block). */
GA_API size_t ga_pair_dim(const ga_pair *p);
GA_API const double *ga_pair_lambda(const ga_pair *p);
GA_API const double *ga_pair_mt(const ga_pair *p);
GA_API double ga_pair_columns(const ga_pair *p);

/* The privacy loss l = log p_X/p_Y as a generalized chi-square under X (lx) and the
 * negated loss -l under Y (ly), the laws that give delta_{X,Y} and delta_{Y,X}. GA_OK,
 * GA_ENOMEM, or GA_EDOM for a pair without Gaussian laws (supports that differ, a loss
 * family, a universe, shuffled epochs). */
GA_API int ga_pair_loss_forms(ga_gchisq *lx, ga_gchisq *ly, const ga_pair *p);

enum ga_delta_method {
    GA_DELTA_AUTO = 0,   /* direct one-integral formula (well conditioned for tiny delta) */
    GA_DELTA_DIRECT = 1, /* delta = (1/pi) Im int M(z) e^{-z eps} / (z (z+1)) dz */
    GA_DELTA_TAILS = 2   /* P_X[l > eps] - e^eps P_Y[l > eps] from two tails */
};

typedef struct {
    ga_result xy;  /* delta_{X,Y}(eps) */
    ga_result yx;  /* delta_{Y,X}(eps) */
    int method;    /* enum ga_delta_method actually used */
} ga_delta;

/*
 * delta in both directions at eps (any real eps; eps >= 0 in DP use). Error estimates
 * combine the engines' estimates (the tails formula adds err1 + e^eps err2). w: a workspace
 * (NULL: one is allocated for the call).
 * Returns GA_OK, GA_ETOL (values and honest estimates returned), GA_EINVAL.
 */
GA_API int ga_pair_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                  const ga_gchisq_opts *opts, ga_gchisq_work *w);

/*
 * Smallest eps >= 0 with max(delta_xy, delta_yx)(eps) <= delta (0 < delta < 1), by a
 * bracketing root finder on log delta (delta is non-increasing in eps), to 1e-13 relative
 * or, where the delta error estimates move eps by more than 1e-9, to a tenth of their
 * effect. eps->err bounds the bracket width plus the effect of the delta error estimates. *direction receives 0
 * when both directions meet the target at eps = 0, 1 when X,Y is the binding direction,
 * 2 when Y,X is. 2 to 128 identical subsampled Gaussian steps whose Bromwich integrand decays
 * slowly (few steps of a small rate) take a bracket of discretised losses instead: eps->err
 * is its half width, asked to be at most max(1e-6, opts->epsrel) relative (a looser epsrel
 * takes coarser grids: faster), GA_ETOL where the finest grid stays wider.
 * Returns GA_OK, GA_ETOL, GA_EDOM (supports differ: no finite eps).
 */
GA_API int ga_pair_epsilon(ga_result *eps, int *direction, const ga_pair *p, double delta,
                    const ga_gchisq_opts *opts, ga_gchisq_work *w);

/*
 * Renyi divergences D_alpha(X||Y) and D_alpha(Y||X), alpha > 1, in closed form:
 * D_alpha(X||Y) = K_lX(alpha - 1) / (alpha - 1), K the cumulant generating function of l
 * under X. +INFINITY (status GA_OK) where alpha S_y + (1 - alpha) S_x is not positive
 * definite (resp. with the roles swapped). Masked releases, synthetic points and a subsampled
 * sketch step: from their privacy profiles (an integral of delta(eps) in both directions),
 * GA_ETOL where the bound of the profile's tail leaves an error above 1e-6 relative.
 */
GA_API int ga_pair_renyi(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha);

/*
 * The same for an order read from a decimal whose double is alpha: the values at alpha, each
 * error widened to cover D at every order within half an ulp of alpha (D_alpha is
 * nondecreasing in alpha, so it lies between the values at the neighbouring doubles). Near
 * the order where a divergence becomes infinite D changes fast with alpha, and the rounding
 * of the decimal can exceed the arithmetic's error by many orders. Returns as ga_pair_renyi;
 * an error is INFINITY where a neighbour's value is infinite and alpha's is not.
 */
GA_API int ga_pair_renyi_near(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha);

/* Standard conversions of an RDP point (alpha, eps_alpha) to (eps, delta):
 * Mironov (2017, Prop. 3): eps = eps_alpha + log(1/delta)/(alpha - 1);
 * Canonne, Kamath & Steinke (2020) / Balle et al. (2020):
 * eps = eps_alpha + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1). */
GA_API double ga_rdp_to_dp_mironov(double alpha, double eps_alpha, double delta);
GA_API double ga_rdp_to_dp_improved(double alpha, double eps_alpha, double delta);

/* Exact inputs of a pair as decimal text, entry by entry (row-major for matrices); a NULL
 * array means "the doubles of the ga_pair_input, as exact binary numbers". */
typedef struct {
    const char *const *mu_x, *const *mu_y, *const *s_x, *const *s_y;
} ga_pair_text;

typedef struct {
    ga_interval xy, yx;                 /* certified enclosures of delta_{X,Y}, delta_{Y,X} */
    char xy_lo[80], xy_hi[80], yx_lo[80], yx_hi[80]; /* outward decimal, digits + 3 */
    double la_bound_xy, la_bound_yx;    /* widening from the linear-algebra certificate */
    long precision_bits;
} ga_delta_cert;

/*
 * Certified delta in both directions at the exact eps (decimal text), for the exact inputs
 * (in, txt) of the reduced pair p (a certified integral for the exact
 * pair defined by the floating reduction, widened by TV(X, X'') + e^eps TV(Y, Y'') bounded
 * via Pinsker and Gaussian KL divergences in ball arithmetic).
 * Guarantee: whenever the status is GA_OK or GA_EPREC the intervals contain the true
 * values. GA_OK: relative width <= 10^-digits, or the width is set by the linear-algebra
 * certificate (la_bound_*), which more precision does not reduce. For the floating
 * reduction's own reference pair it is about (1 + e^eps) sqrt(r) times its rounding level
 * (1e-16 for a well-conditioned pair); where that is wider than asked and the pair has at
 * most 2048 dimensions (a product: every block, each refined on its own), the reference is
 * refined in ball arithmetic first (the widening then 1e-36 at d = 50 to 2e-23 at d = 2000),
 * at a cost of 14 to 23 k x k ball-matrix products at 128 bits, on the BLAS from k = 64
 * (wall time on 2 cores, make bench, over runs: d = 300: 2.5-4.6 s, d = 500: 5-9 s, d =
 * 1000: 21-32 s, d = 2000: 1.5-2 min and 2.8 GB in all; the CPU time is larger by the BLAS
 * threads' share, 1.4x on 2 cores, and d = 1000 took 47.5 s of CPU on a 16-core host). It grows like e^eps and is useless beyond eps of about 25-30. Covariances are taken
 * as their symmetric parts (S + S^T)/2, as ga_pair_reduce does.
 * GA_EDOM: singular covariances with a common support (not available in certified mode).
 */
GA_API int ga_pair_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                       const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts);

/*
 * Certified r D2 = r (mu_x - mu_y)^T S^{-1} (mu_x - mu_y) for a pair whose two covariances
 * are equal as exact numbers (the squared Mahalanobis distance times the columns): its
 * profile is then exactly the mu-GDP curve with mu = sqrt(r D2), and D_alpha = alpha r D2/2.
 * Computed in ball arithmetic from the exact inputs (no floating reduction).
 * Returns GA_OK (t2 an enclosure, relative width <= 2^-60), GA_EDOM when the covariances
 * differ (or the pair is not full rank), GA_EPREC when the solve did not settle, GA_EINVAL
 * for an unparsable decimal, GA_ETIME when opts->deadline passed (opts may be NULL: the
 * defaults; the precision escalates from 128 bits to opts->max_prec).
 */
GA_API int ga_pair_mahalanobis_cert(ga_interval *t2, const ga_pair *p, const ga_pair_input *in,
                                    const ga_pair_text *txt, const ga_cert_opts *opts);

/*
 * Certified eps(delta): an interval [lo, hi] around the smallest eps with
 * max(delta_xy, delta_yx)(eps) <= delta (exact decimal text), with certified
 * max(delta)(hi) <= delta and, when lo > 0, certified max(delta)(lo) > delta; so the true
 * smallest eps lies in [lo, hi]. lo = 0 means the claim may hold already at eps = 0. The
 * certified deltas compared may be wider than the digits asked (ga_pair_delta_cert's
 * GA_EPREC: still enclosures), which widens [lo, hi] accordingly.
 * Returns GA_OK, GA_EPREC (no certified bracket found), GA_EDOM (supports differ).
 */
GA_API int ga_pair_epsilon_cert(ga_interval *eps, int *direction, const ga_pair *p,
                         const ga_pair_input *in, const ga_pair_text *txt, const char *delta,
                         const ga_cert_opts *opts);

/*
 * Certified Renyi divergences D_alpha(X||Y), D_alpha(Y||X) at the exact decimal alpha > 1 from
 * the exact inputs, by the Gaussian closed form in ball arithmetic (Cholesky log-determinants
 * and a solve): intervals that contain the true values (lo = hi = INFINITY where alpha S_y +
 * (1 - alpha) S_x is certainly not positive definite); opts as for delta (digits, precision
 * cap, deadline; NULL: defaults). GA_OK (relative width <= 10^-digits), GA_EPREC (undecided at
 * the precision cap: the interval may be [0, inf]), GA_ETIME (the deadline passed), GA_EDOM
 * (singular covariances), GA_EINVAL (alpha not a decimal).
 */
GA_API int ga_pair_renyi_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                              const ga_pair_input *in, const ga_pair_text *txt,
                              const char *alpha, const ga_cert_opts *opts);

/*
 * A default eps grid for a profile: eps = 0 and n - 1 log-spaced points from eps_hi*1e-3 to
 * eps_hi, where eps_hi is the estimate of eps(1e-12) (GA_OK or GA_ETOL; 1 where there is
 * none or it is 0). Fills eps[0..n-1] (n >= 2).
 */
GA_API int ga_pair_profile_grid(double *eps, size_t n, const ga_pair *p, const ga_gchisq_opts *opts,
                         ga_gchisq_work *w);

/* ------------------------------------------------------------------ subsampled Gaussian */

/*
 * The Poisson-subsampled Gaussian mechanism (DP-SGD's step) and its compositions: a pair
 * whose privacy loss is one-dimensional, not a Gaussian pair. One term: each record enters a
 * step with probability q (0 < q <= 1; q = 1 is the Gaussian mechanism), the step adds
 * N(0, sigma^2) noise to a sum of sensitivity 1, and the term is `steps` independent steps.
 * Under the remove relation (add = 0) X is the output with the record (the mixture
 * (1 - q) N(0, sigma^2) + q N(1, sigma^2) per step) and Y without it (N(0, sigma^2)); add = 1
 * swaps them. A pair of n terms is the composition of all of them. q_txt and sigma_txt
 * (optional) are the exact decimals the certified path uses (NULL: the doubles), q_txt with
 * q_den_txt the exact ratio of two decimals (q then the double nearest it). With
 * columns = r >= 1 the term is one step of a Poisson-subsampled Gaussian sketch (001 Thm 5.3:
 * the release D_S^T G + sigma N over a Poisson sample S, at its worst case, a dataset of the
 * one record v): the loss is a function of s ~ chi^2_r, with lambda = (norm/sigma)^2, and delta
 * has the closed form of its threshold event (regularized incomplete gamma functions); such a
 * term composes with nothing (steps 1, n = 1) and has no Renyi divergence here (GA_EDOM).
 * The pair works with ga_pair_delta (one step alone: closed form of its threshold event;
 * otherwise the Bromwich integral of the product of the steps' moment generating functions,
 * each a trapezoid sum on the real line, and up to 128 identical steps where it does not
 * converge a bracket of discretised losses whose half width is the error), ga_pair_epsilon,
 * ga_pair_renyi, ga_pair_profile_grid, ga_pair_delta_cert (one step: the closed form in Arb; a composition:
 * the Bromwich integral in ball arithmetic; where its integrand decays too slowly for the
 * rigorous bounds (few steps of a small rate), up to 128 identical steps the bracket of
 * discretised losses with proven inputs, GA_EPREC with its interval (relative width 1e-6 to
 * 0.2% up to 10 steps, wider beyond), beyond GA_EMAXITER with [0, 1]), and the other certified functions where
 * documented (GA_EDOM otherwise).
 * Returns GA_OK and *out, or GA_EINVAL with a message naming the term (q outside (0, 1],
 * sigma not in [1e-3, inf), steps not a whole number in 1..1e9, n outside 1..10000).
 */
typedef struct {
    double q;                      /* Poisson sampling rate */
    double sigma;                  /* noise multiplier (noise std / sensitivity) */
    double steps;                  /* number of independent steps T >= 1 */
    int add;                       /* 0: remove relation, 1: add relation */
    const char *q_txt, *sigma_txt; /* exact decimals (NULL: the doubles) */
    /* optional (0/NULL: the DP-SGD step above) */
    double columns;                /* r >= 1: a Poisson-subsampled Gaussian sketch step, r
                                      columns N(0, sigma^2 I + v v^T) with the record (|v| =
                                      norm) or N(0, sigma^2 I) without it (one step only) */
    double norm;                   /* the record's norm / sensitivity (0: 1); m = norm/sigma */
    const char *norm_txt;          /* its exact decimal (NULL: the double) */
    const char *q_den_txt;         /* optional: q is exactly q_txt / q_den_txt (a sampling
                                      ratio such as batch size / dataset size, which has no
                                      finite decimal); NULL: q_txt alone */
} ga_subsampled_input;

GA_API int ga_pair_reduce_subsampled(ga_pair **out, const ga_subsampled_input *in, size_t n,
                                     char *msg, size_t msglen);

/*
 * Matrix masking, setting (B) of Ding, Wu, Miao & Chen (Reducing Noise Level in Differential
 * Privacy through Matrix Masking): one data column x (n rows) released as A (x + c), A a
 * uniformly random n x n orthogonal matrix, c ~ N(0, sigma^2 I). The release carries exactly
 * the information of |x + c|^2 (A (x + c) is uniform on the sphere of that radius), and
 * |x + c|^2 / sigma^2 is noncentral chi-square with n degrees of freedom and noncentrality
 * |x|^2 / sigma^2. The pair is the release on x (X) and on x' (Y); delta has the closed form of
 * a threshold event (two noncentral chi-square tails, the likelihood ratio being monotone),
 * certified in Arb (ga_pair_delta_cert). It works with ga_pair_delta, ga_pair_epsilon,
 * ga_pair_profile_grid, ga_pair_delta_cert and ga_pair_epsilon_cert; not with the Renyi,
 * RDP and PLD functions (GA_EDOM). Returns GA_OK and *out, or GA_EINVAL with a message
 * (rows not a whole number in 1..1e9, sigma not in [1e-3, inf), norms outside [0, 1e6] or
 * noncentralities above 1e8, texts that are not plain decimals).
 */
typedef struct {
    double rows;                   /* n: the length of the column (degrees of freedom) */
    double sigma;                  /* the noise standard deviation */
    double norm_x, norm_y;         /* |x| and |x'|, the column's norm on the two datasets */
    const char *sigma_txt, *norm_x_txt, *norm_y_txt; /* exact decimals (NULL: the doubles) */
} ga_masked_input;

GA_API int ga_pair_reduce_masked(ga_pair **out, const ga_masked_input *in, char *msg,
                                 size_t msglen);

/*
 * Synthetic data from random inputs (Pierquin, Bellet, Tommasi & Boussard, Section 4): a model
 * theta + sigma N (output perturbation, theta in R^d) is queried at m hidden random inputs z_i ~
 * N(0, I_d) and only the scalar outputs theta~^T z_i are released. Given the model the outputs
 * are N(0, |theta~|^2 I_m), so their squared norm is sufficient, and over sigma^2 it is S C with
 * S ~ chi^2_d(|theta|^2/sigma^2), C ~ chi^2_m independent. The pair is the release on theta (X,
 * |theta| = norm_x) and on theta' (Y, norm_y); delta is the threshold event of its monotone
 * likelihood ratio, with tails that are finite sums of Bessel K functions when d or m is even
 * (both odd: GA_EINVAL, no such form). Works with ga_pair_delta, ga_pair_epsilon,
 * ga_pair_profile_grid, ga_pair_delta_cert, ga_pair_epsilon_cert; GA_EDOM from the Renyi, RDP
 * and PLD functions. GA_OK and *out, or GA_EINVAL with a message (dim, points not whole
 * numbers in 1..1e9 and 1..1e6, sigma, norms and texts as for ga_pair_reduce_masked; with
 * norm_bound: norm_bound outside (0, 1e5] or distance not positive).
 */
typedef struct {
    double dim;                    /* d: the model's dimension */
    double points;                 /* m: the synthetic points released */
    double sigma;                  /* the output perturbation's noise standard deviation */
    double norm_x, norm_y;         /* |theta| and |theta'| on the two datasets */
    const char *sigma_txt, *norm_x_txt, *norm_y_txt; /* exact decimals (NULL: the doubles) */
    double norm_bound, distance;   /* norm_bound > 0: the pair is the supremum over every two
                                      models of norm at most norm_bound at distance at most
                                      distance (norm_x, norm_y unused; both directions the
                                      same supremum): delta and certified delta by branch and
                                      bound over the norms; no Renyi divergences (GA_EDOM) */
} ga_synthetic_input;

GA_API int ga_pair_reduce_synthetic(ga_pair **out, const ga_synthetic_input *in, char *msg,
                                    size_t msglen);

/*
 * Shuffled epochs of DP-SGD, the max test (a lower bound of the mechanism's privacy profile):
 * each epoch releases `batches` noisy batch sums (noise multiplier sigma), each record in
 * exactly one of them. With every other record's clipped gradient 0 and the audited one's of
 * norm `norm` (0: 1), the epoch is N(m e_t, I) with t the record's batch (uniform) against
 * N(0, I), m = norm/sigma: the laws of a real pair of neighbours. The pair is their
 * post-processing by the largest sum of each epoch, over `epochs` independent epochs; its
 * delta is a lower bound of the shuffled mechanism's delta (Chua et al., ICML 2024, study
 * the same neighbours). ga_pair_delta returns the middle of a rigorous bracket with half its
 * width as the error (the losses rounded down and up to a grid, masses in Arb, convolutions
 * in exact integers: first order in the grid, relative width about epochs times the grid
 * step); ga_pair_delta_cert returns the bracket (GA_OK at any width: the grid's, which more
 * precision does not narrow);
 * ga_pair_epsilon and ga_pair_epsilon_cert work through them; no Renyi divergences (GA_EDOM).
 * The first evaluation computes the laws (seconds for hundreds of epochs), later ones reuse
 * them. GA_OK and *out, or GA_EINVAL with a message (sigma outside [1e-3, 1e6], batches not a
 * whole number in 1..1e7, epochs not in 1..10000, norm/sigma outside (1e-6, 50), texts that
 * are not plain decimals).
 */
typedef struct {
    double sigma;                 /* noise multiplier (noise std / clipping norm) */
    double batches;               /* E >= 1: noisy batch sums per epoch */
    double epochs;                /* T >= 1 */
    double norm;                  /* the audited record's gradient norm (0: 1) */
    const char *sigma_txt, *norm_txt; /* exact decimals (NULL: the doubles) */
} ga_shuffle_input;

GA_API int ga_pair_reduce_shuffle(ga_pair **out, const ga_shuffle_input *in, char *msg,
                                  size_t msglen);

/*
 * Random allocation (Feldman & Shenfeld, "Privacy amplification by random allocation", 2025):
 * every epoch each record takes part in one of `steps` noisy gradient steps (noise multiplier
 * sigma, gradients clipped to norm 1), chosen uniformly and independently of the other
 * records, over `epochs` epochs. The pair is an upper bound of delta over every pair of
 * neighbours that differ in one record (removed, or its gradient zeroed), X with the record
 * and Y without it, in both directions: the smaller of the Gaussian mechanism of sensitivity
 * sqrt(epochs) and the conversion of Renyi divergence bounds of the dominating pair of an
 * epoch, (1/t) sum_j N(e_j/sigma, I_t) against N(0, I_t) (doc/methods.md), delta <=
 * min over integer orders alpha of exp((alpha - 1)(epochs D_alpha - eps)) (alpha - 1)^(alpha -
 * 1) / alpha^alpha: the remove direction's D_alpha exact (a finite sum), the add
 * direction's an upper bound (a Laplace-transform integral bounded by quadrature). Every
 * number is a ball (Arb): ga_pair_delta returns the bound's value with its rounding as the
 * error, ga_pair_delta_cert its enclosure (GA_OK); ga_pair_renyi and ga_pair_renyi_cert
 * return upper bounds of the epochs' Renyi divergences (the smaller of the Gaussian's alpha
 * epochs / (2 sigma^2) and epochs times the epoch's bound, interpolated between the integer
 * orders). The first evaluation computes the divergences (a fraction of a second), later
 * ones reuse them. GA_OK and *out, GA_EINVAL with a message (sigma outside [1e-3, 1e6], steps
 * not a whole number in 1..1e7, epochs not in 1..10000, a text that is not a plain decimal),
 * or GA_EDEP (FLINT/Arb could not be loaded).
 */
typedef struct {
    double sigma;          /* noise multiplier (noise std / clipping norm) */
    double steps;          /* t >= 1: steps per epoch, the record in one of them */
    double epochs;         /* T >= 1 */
    const char *sigma_txt; /* sigma's exact decimal (NULL: the double) */
} ga_allocation_input;

GA_API int ga_pair_reduce_allocation(ga_pair **out, const ga_allocation_input *in, char *msg,
                                     size_t msglen);

/*
 * A propose-test-release ridge release (the NDIS paper's PTR wrapper, arXiv 2309.01243 v4,
 * Figure 4; the Gaussian mixing mechanism's Algorithm 1, Lev et al.): the test's value y =
 * lambda_min(D^T D) + N(0, test_sigma^2) (or Laplace noise of scale test_sigma) sets the
 * ridge rho(y) = scale max(target - max(y -
 * margin, 0), 0), and `columns` iid columns N(0, D^T D + (s0^2 + rho(y)) I) are released. A
 * neighbour differs by one row x: the pair is given by the smaller Gram matrix plus s0^2 I
 * (eigenvalues mu, the squared components c2 of x in its eigenbasis: x^T (A' + rho I)^-1 x =
 * sum c2_i / (mu_i + rho)) and the test's two means (lambda_min of the data's Gram matrices with
 * and without x). With bound = 1 the pair is the release together with its ridge level, whose
 * delta is an upper bound of the release's (post-processing); with bound = 0 it is the release
 * reduced to one event on sum_j (u^T m_j)^2 (u = (A' + rho0 I)^-1 x, rho0 the ridge at the test's
 * mean), a lower bound. ga_pair_delta returns the middle of a rigorous bracket (cells over the
 * test's value, the integrand monotone on each) with half its width as the error;
 * ga_pair_delta_cert the bracket in Arb on the same cells. No Renyi divergences (GA_EDOM).
 * GA_OK and *out (the arrays copied), or GA_EINVAL with a message.
 */
typedef struct {
    double columns;            /* r >= 1 iid columns */
    double test_sigma;         /* > 0: the test's noise */
    double margin;             /* >= 0: subtracted from the noisy eigenvalue */
    double target;             /* > 0: the ridge's cap over scale */
    double scale;              /* > 0 */
    double lmin_big, lmin_small; /* the test's means with and without x */
    size_t d;
    const double *mu, *c2;     /* d each: mu >= 0, c2 >= 0 */
    int big_is_x;              /* 1: X is the dataset with x (remove), 0: Y is (add) */
    int bound;                 /* 1: upper bound (with the ridge level), 0: lower bound */
    int test_laplace;          /* 1: the test's noise is Laplace of scale test_sigma (density
                                  e^{-|z|/b} / (2b)), 0: Gaussian of standard deviation
                                  test_sigma */
} ga_ptr_input;

GA_API int ga_pair_reduce_ptr(ga_pair **out, const ga_ptr_input *in, char *msg, size_t msglen);

/*
 * The worst case over a sensitivity envelope (Wei, Lu, Magdon-Ismail & Zikas, Definition 5).
 * One dimension (any_direction 0): every ordered pair X = N(mu, s), Y = N(mu', s') with |mu -
 * mu'| / sqrt(s') <= mean_bound and |log(s / s')| <= log_ratio_bound. ga_pair_delta returns the
 * supremum of delta_XY(eps) over the envelope in both directions (the envelope holds both
 * orders of a pair): the middle of a rigorous bracket with half its width as the error;
 * ga_pair_delta_cert the bracket (GA_EPREC when wider than 1e-4 relative). Any direction
 * (any_direction 1): pairs N(mu, S), N(mu', S') of any dimension whose whitened covariance
 * ratio S'^-1/2 S S'^-1/2 differs from I along one direction (eigenvalue r, |log r| <=
 * log_ratio_bound) and whose whitened mean shift has norm <= mean_bound in any direction:
 * delta is then the chain rule through the mean-shifted law, an upper bound of the supremum
 * (its value, with the rounding as the error; certified: its enclosure). The doubles are
 * exact bounds (a caller rounds them outward); no Renyi divergences (GA_EDOM). The envelope's
 * members need not be pairs of any mechanism's outputs: the value is an upper bound.
 */
typedef struct {
    double mean_bound;      /* > 0 */
    double log_ratio_bound; /* >= 0 */
    int any_direction;      /* 0: one dimension (the supremum); 1: above (the chain rule) */
} ga_envelope_input;

/* GA_OK and *out, or GA_EINVAL with a message (mean_bound in (0, 1e6], log_ratio_bound in
 * [0, 20]), or GA_EDEP (every number of it is a ball: FLINT/Arb could not be loaded) */
GA_API int ga_pair_reduce_envelope(ga_pair **out, const ga_envelope_input *in, char *msg,
                                   size_t msglen);

/*
 * What an RDP accountant reports for a subsampled pair at delta: each step's Renyi DP at
 * integer orders 2..256 from the binomial expansion of Mironov, Talwar & Zhang (2019), added
 * over the steps, converted by ga_rdp_to_dp_improved (Balle et al. 2020, Theorem 21: the
 * conversion of today's RDP accountants, e.g. dp_accounting's, which reports 2.597 for DP-SGD
 * on MNIST at q = 256/60000, sigma 1.1, 14063 steps, delta 1e-5, as this does; Mironov's
 * original conversion gives 3.009 there) and minimised over the orders (*alpha receives the
 * order). An upper bound of the exact eps(delta), for comparison. GA_OK, GA_EDOM (not a
 * subsampled pair), GA_EINVAL (delta).
 */
GA_API int ga_pair_rdp_accountant(double *eps, int *alpha, const ga_pair *p, double delta);
/*
 * What a pessimistic privacy-loss-distribution accountant reports for a subsampled pair at
 * delta (Meiser & Mohammadi 2018; Koskela, Jalko & Honkela 2020; as DP libraries implement
 * it): each step's loss rounded up to a grid of spacing h (0: 1e-4), tails beyond 1e-15
 * truncated pessimistically, the steps composed by FFT; eps is the larger of the two
 * directions. For comparison with the exact eps (it lies above it up to the FFT's rounding);
 * not certified. GA_OK, GA_EDOM (not a subsampled pair, or a sketch step), GA_EMAXITER (more
 * than 4M grid points), GA_EINVAL (delta), GA_ENOMEM.
 */
GA_API int ga_pair_pld_accountant(double *eps, const ga_pair *p, double delta, double h);

/*
 * A privacy-loss distribution on a grid, as other accountants build theirs (dp_accounting's
 * PrivacyLossDistribution.create_from_rounded_probability takes the same numbers): mass[i] at
 * the privacy loss (k0 + i) h, i < n, and infinity_mass at +infinity; mass missing from a
 * total of 1 (an optimistic one) is at -infinity. Free with ga_pld_pmf_clear.
 */
typedef struct {
    double h;
    long k0;
    size_t n;
    double *mass;
    double infinity_mass;
} ga_pld_pmf;
GA_API void ga_pld_pmf_clear(ga_pld_pmf *p);

/*
 * The privacy-loss distributions of one Poisson-subsampled Gaussian step (rate q, noise
 * multiplier sigma, exact decimals), certified for composition: remove is the law of
 * l = log(p_X / p_Y) under X, add the law of log(p_Y / p_X) under Y, with X = (1 - q) N(0,
 * sigma^2) + q N(1, sigma^2) the release with the record and Y = N(0, sigma^2) the one
 * without. pessimistic != 0: every loss rounded up to the grid, every mass a certified lower
 * bound, and what that leaves out of 1 (with the tail above the grid, of mass below 1e-20)
 * put at +infinity: composing such distributions (any number, with any others of the same
 * kind) gives a delta(eps) at or above the true one, whatever the grid. pessimistic == 0:
 * losses rounded down, masses certified lower bounds, the rest at -infinity: at or below
 * the true delta. h in (0, 1] is the grid's spacing (0: 1e-4); the grid covers the losses
 * whose tails exceed 1e-20. GA_OK, GA_EINVAL (q, sigma unreadable or out of range, h),
 * GA_EMAXITER (more than 2^22 grid points), GA_ENOMEM, GA_EDEP (no FLINT/Arb), GA_ETIME.
 */
GA_API int ga_subsampled_pld(ga_pld_pmf *remove, ga_pld_pmf *add, const char *q,
                             const char *sigma, double h, int pessimistic, double deadline);
/* The same for any one step (steps 1, add 0, columns 0): q from step->q_txt (over
 * step->q_den_txt: an exact ratio) or its double, m = norm/sigma from their texts or doubles
 * (norm 0: 1). Fixed-size batches of b out of n records under add/remove neighbours are the
 * step with q = b/n and norm 2 (doc/spec.md). The statuses of ga_subsampled_pld. */
GA_API int ga_subsampled_pld_step(ga_pld_pmf *remove, ga_pld_pmf *add,
                                  const ga_subsampled_input *step, double h, int pessimistic,
                                  double deadline);

/* ------------------------------------------------------------------ the audit pipeline */

/*
 * A spec (a YAML file or text; the language: gaussaudit-spec(5)) audited end to end: load it, build its
 * neighbouring pairs (the mechanism catalogue), reduce them, evaluate every claim (estimates,
 * certified where a verdict depends on it), and render the result as a report. This is what
 * `gaussaudit audit` does; the result is opaque, read through the accessors below.
 */
enum ga_verdict {
    GA_VERDICT_VERIFIED = 0,     /* holds, with certified bounds on a proven worst case */
    GA_VERDICT_NO_VIOLATION = 1, /* holds on every audited pair (no proof for other pairs) */
    GA_VERDICT_INCONCLUSIVE = 2, /* neither could be established (the reason says why) */
    GA_VERDICT_VIOLATION = 3     /* a certified lower bound exceeds the claim */
};

/* "VERIFIED", "NO VIOLATION FOUND", "INCONCLUSIVE", "VIOLATION" ("?" otherwise). */
GA_API const char *ga_verdict_name(int verdict);

typedef struct ga_audit_result ga_audit_result;

typedef struct {
    int certified;                  /* certify every decision (up to 200 pairs per claim) */
    double timeout;                 /* seconds (0: none): see ga_audit_spec_file */
    const char *const *allow_paths; /* more directories the spec may read (--allow-path) */
    size_t nallow;
    FILE *progress;                 /* progress lines for long audits (NULL: none) */
    size_t part;                    /* calibrate, composition: tune part `part`'s noise
                                       parameter alone (1-based; 0: one factor on every part) */
    const char *claim;              /* audit: a YAML mapping replacing the spec's claim, e.g.
                                       "{epsilon: 1, delta: 1e-5}" (NULL: the spec's own) */
    int jobs;                       /* threads evaluating the pairs (0: one per online core);
                                       the result does not depend on it */
    size_t shard, nshards;          /* audit --shard I/N: evaluate pairs i = I - 1 mod N only
                                       and record them: the result is a partial result, written
                                       with GA_FORMAT_PARTIAL, merged by ga_audit_merge_files
                                       (0: the whole audit) */
} ga_audit_options;

GA_API void ga_audit_options_init(ga_audit_options *o);

/*
 * Audit the spec file at path (ga_audit_spec_file) or the spec text (ga_audit_spec_text; name
 * is used in messages, and files the spec names are read relative to its directory). opts may
 * be NULL (defaults). Returns GA_OK and *out (free with ga_audit_result_free), whatever the
 * verdicts; GA_EIO (cannot read), GA_EINVAL (the spec is invalid or has no claim: the message
 * names the file, line and field) or GA_ENOMEM, with *out NULL.
 */
GA_API int ga_audit_spec_file(ga_audit_result **out, const char *path,
                              const ga_audit_options *opts, char *msg, size_t msglen);
GA_API int ga_audit_spec_text(ga_audit_result **out, const char *text, size_t len,
                              const char *name, const ga_audit_options *opts, char *msg,
                              size_t msglen);
GA_API void ga_audit_result_free(ga_audit_result *r);
/*
 * Merge partial results (files written by shards, GA_FORMAT_PARTIAL) into the audit's result:
 * the spec (spec, or NULL: the path the parts recorded) is loaded and its pairs reduced, its
 * bytes must be those the parts audited, every shard 1..N must be given once, complete, with
 * the same --certified and --claim; the decisions then read the parts' evaluations. The
 * result is the one a single run gives (its reports are the same, clock readings aside).
 * Returns GA_OK and *out, or GA_EIO / GA_EINVAL (message names the part and the reason) /
 * GA_ENOMEM with *out NULL. opts->certified and opts->claim are taken from the parts.
 */
GA_API int ga_audit_merge_files(ga_audit_result **out, const char *const *parts, size_t nparts,
                                const char *spec, const ga_audit_options *opts, char *msg,
                                size_t msglen);

/* The overall verdict (the worst over the claims: violation > inconclusive > no violation >
 * verified), and the exit status `gaussaudit audit` gives for it (1, 2 or 0; a shard's
 * partial result: 0, or 2 when --timeout stopped it). */
GA_API int ga_audit_result_verdict(const ga_audit_result *r);
GA_API int ga_audit_result_exit_status(const ga_audit_result *r);
GA_API size_t ga_audit_result_nclaims(const ga_audit_result *r);
/* The spec's name (its `name:` field, else the file name), valid until ga_audit_result_free. */
GA_API const char *ga_audit_result_spec_name(const ga_audit_result *r);

/* One claim's result. Strings point into r (valid until ga_audit_result_free). */
typedef struct {
    const char *type;        /* "dp", "rdp", "zcdp", "gdp" */
    double epsilon, delta;   /* dp: the claim */
    double alpha, bound;     /* rdp: D_alpha <= bound; zcdp: rho = bound; gdp: mu = bound */
    int verdict;             /* enum ga_verdict */
    const char *reason;
    ga_result exact;         /* the exact value of the worst pair (see the report) */
    int certified;           /* interval below is a certified enclosure */
    ga_interval interval;
    const char *worst_pair;
    int direction;           /* 1: delta_XY (X||Y), 2: delta_YX */
    int evaluated;           /* 0: the deadline came first */
} ga_claim_info;

/* GA_OK, or GA_EINVAL for i out of range. */
GA_API int ga_audit_result_claim(ga_claim_info *out, const ga_audit_result *r, size_t i);

enum ga_format { GA_FORMAT_MARKDOWN = 0, GA_FORMAT_HTML, GA_FORMAT_JSON, GA_FORMAT_JUNIT,
                 GA_FORMAT_TEXT, GA_FORMAT_PARTIAL };

/* Write the report in the given format (Markdown, HTML, JSON, JUnit). GA_OK, GA_EIO (out
 * reported an error) or GA_EINVAL (a format audits are not written in). */
GA_API int ga_audit_result_write(FILE *out, const ga_audit_result *r, int format);

/* Several audits as one JUnit XML document (Ant schema): a testsuite per result (name: the
 * spec's name, package: its path, time, timestamp, hostname, properties with the tool version
 * and the spec's SHA-256), a testcase per claim (classname from the spec's file and name;
 * VIOLATION a failure with the witness, INCONCLUSIVE an error). GA_OK, GA_EIO or GA_ENOMEM. */
GA_API int ga_audit_results_write_junit(FILE *out, ga_audit_result *const *r, size_t n);

/* The JSON Schema (draft 2020-12) of the spec language, from the tables of keys, kinds,
 * relations and claims the parser checks (doc/gaussaudit-spec.schema.json is this output).
 * GA_OK or GA_EIO. */
GA_API int ga_spec_schema_write(FILE *out);

/*
 * A spec's privacy profile, asked as questions (the accountant interface): the spec is loaded
 * and every neighbouring pair built and reduced once (o: allow_paths, jobs, and timeout, the
 * budget of the build and then of each question; NULL: defaults). The spec's claim is not
 * read. GA_OK and *out (free with ga_profile_free); otherwise a status and a message naming
 * the file, line and field (GA_ETIME: the budget ran out while building: no profile over part
 * of the pairs is given; GA_EDOM: the spec's pairs only bracket its profile, lower bounds from
 * real neighbours beside an upper bound, as for shuffled epochs, random allocation and
 * fixed-size batches under substitution: audit a claim instead).
 */
typedef struct ga_profile ga_profile;
GA_API int ga_profile_spec_file(ga_profile **out, const char *path, const ga_audit_options *o,
                                char *msg, size_t msglen);
GA_API int ga_profile_spec_text(ga_profile **out, const char *text, size_t len,
                                const char *name, const ga_audit_options *o, char *msg,
                                size_t msglen);
GA_API void ga_profile_free(ga_profile *p);
GA_API size_t ga_profile_npairs(const ga_profile *p);
/* delta(eps) = the largest delta_{X,Y}(eps), delta_{Y,X}(eps) over the pairs; its error
 * estimate covers every pair that may be the largest. GA_OK, GA_ETOL (a larger honest error
 * estimate), or the failure of a pair's evaluation (then val and err are NaN). */
GA_API int ga_profile_delta(ga_result *delta, const ga_profile *p, double eps);
/* eps(delta), the smallest eps with delta(eps) <= delta (0 < delta < 1): the largest of the
 * pairs' ga_pair_epsilon. GA_EDOM (and val = inf) when a pair's supports differ. */
GA_API int ga_profile_epsilon(ga_result *eps, const ga_profile *p, double delta);
/* The certified versions (decimal text read exactly, Arb): intervals that contain the true
 * delta(eps) or eps(delta), doubles rounded outward. GA_OK, GA_EPREC (valid, wider than the
 * default 17 digits), GA_EDOM (eps: supports differ, [inf, inf]); any other status: no
 * certified value ([0, 1] or [0, inf]). */
GA_API int ga_profile_delta_cert(ga_interval *delta, const ga_profile *p, const char *eps);
GA_API int ga_profile_epsilon_cert(ga_interval *eps, const ga_profile *p, const char *delta);

/*
 * Calibration (`gaussaudit calibrate`): the smallest value of the spec's noise parameter (its
 * kind's knob: sigma, noise_sigma for sketch) such that the mechanism is (eps, delta)-DP on the
 * spec's neighbouring pairs, or on the proven worst case when the spec has a universe. delta is
 * non-increasing in the knob for every kind with one (post-processing of independent noise);
 * the root of max delta(knob) = delta is bracketed and bisected to adjacent doubles (the exact
 * calibration to the double),
 * then checked in ball arithmetic: a certified upper bound of delta at the value <= delta, and
 * a certified lower bound at the value reduced by a relative 1e-6 > delta (up to 200 pairs).
 * Returns GA_OK and *out (free with ga_calibration_free), certified or not (the info says);
 * GA_EIO (cannot read), GA_EINVAL (invalid spec, a kind without a knob, eps or delta out of
 * range: the message says which), GA_EDOM (no value in [1e-300, 1e300] brackets delta),
 * GA_ETIME (opts->timeout ran out during the search) or GA_ENOMEM, with *out NULL. From opts
 * (NULL: defaults) it uses timeout and the allowed paths.
 */
typedef struct ga_calibration ga_calibration;

typedef struct {
    const char *spec_name, *spec_path, *kind, *knob;
    double epsilon, delta;
    double value;            /* the smallest knob value found (upper end of the bisection) */
    int worst_case;          /* 1: on the proven worst case of the universe; 0: audited pairs */
    int certified;           /* the certified check above confirmed value */
    double upper_at_value;   /* certified upper bound of delta at value (NaN: not computed) */
    double lower_below;      /* certified lower bound at value (1 - 1e-6) (NaN: not computed) */
    const char *note;        /* why not certified ("" when certified) */
    size_t npublished;       /* published calibrations of the kind, for comparison */
} ga_calibration_info;

typedef struct {
    const char *name;        /* e.g. "analytic Gaussian (Balle and Wang 2018)" */
    double value;
    double leverage, exact_leverage; /* sketch thresholds (NaN otherwise) */
    const char *text;        /* a line for text output ("" when an earlier line covers it) */
} ga_published_info;

GA_API int ga_calibrate_spec_file(ga_calibration **out, const char *path, double eps,
                                  double delta, const ga_audit_options *opts, char *msg,
                                  size_t msglen);
GA_API int ga_calibrate_spec_text(ga_calibration **out, const char *text, size_t len,
                                  const char *name, double eps, double delta,
                                  const ga_audit_options *opts, char *msg, size_t msglen);
GA_API void ga_calibration_free(ga_calibration *c); /* NULL is a no-op */
/* The result; strings point into c (valid until ga_calibration_free). */
GA_API void ga_calibration_get(ga_calibration_info *out, const ga_calibration *c);
/* The i-th published calibration: GA_OK, or GA_EINVAL for i out of range. */
GA_API int ga_calibration_published(ga_published_info *out, const ga_calibration *c, size_t i);
/* Write the calibration as text (GA_FORMAT_TEXT) or JSON (GA_FORMAT_JSON). GA_OK, GA_EIO (out
 * reported an error) or GA_EINVAL (another format). */
GA_API int ga_calibration_write(FILE *out, const ga_calibration *c, int format);

#ifdef __cplusplus
}
#endif
#endif

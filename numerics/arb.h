/*
 * arb.h - the generalized chi-square in ball arithmetic (Arb), shared by the
 * certified modules (not installed: the public header does not expose Arb types).
 */
#ifndef GA_NUMERICS_ARB_H
#define GA_NUMERICS_ARB_H

#include "numerics/numerics.h"

/* the Arb headers, then the calls redirected to the library loaded on first use */
#include "numerics/arb_api.h"

/* Q = offset + sigma z0 + sum_j (a_j, nu_j, b2_j) terms, parameters as balls that contain
 * the exact values (exact decimals or exact doubles). a_j != 0 is known for every term. */
struct ga_gchisq_exact {
    slong n, cap;
    arb_ptr a, nu, b2;
    arb_t offset, sigma2;
};

/* Make room for n terms (keeps the first q->n). */
void ga_arb_exact_resize(struct ga_gchisq_exact *q, slong n);

/*
 * One tail on a given path: res <- a ball containing sign * (1/pi) Im int F(z) dz, i.e.
 * P[Q > x] (sign +1, c > 0) or P[Q <= x] (sign -1, c < 0) (kernel GA_KERNEL_TAIL), or
 * E[(1 - e^{x - Q})_+] (kernel GA_KERNEL_DELTA, c > 0), where
 * the path is the polygon c -> c + i t0 -> z1 = c + dir beta (T - t0) + i T followed by the
 * ray of slope beta from z1, whose contribution is bounded rigorously. The path parameters
 * (c, t0, dir, beta) are exact doubles from the floating-point setup; T is increased until
 * the tail bound is below 2^-prec relative to the scale exp(L0).
 * Returns GA_OK (res is a valid enclosure, possibly wide) or GA_EDOM when no valid path or
 * bound was found (res is then [-inf, inf]).
 */
int ga_arb_path_tail(arb_t res, const struct ga_gchisq_exact *q, const arb_t x,
                     const ga_path *dp, slong prec);

/* res <- an upper bound of tr E - log det(I + E) = sum (e - log(1 + e)) over the eigenvalues
 * e of any symmetric E with ||E||_F^2 <= the upper end of the ball f2: f2 / (2 (1 - sqrt f2)).
 * Returns 0, or -1 when sqrt f2 is not certainly below 1 (res is then unchanged: I + E need
 * not even be positive definite). Used by the pair certificate's KL bounds. */
int ga_arb_logdet_gap_bound(arb_t res, const arb_t f2, slong prec);

/* Exact tails outside the support of a definite form without normal part (cdf, sf set
 * to 0/1); returns 1 when it applies, 0 otherwise. */
int ga_arb_exact_support(arb_t cdf, arb_t sf, const struct ga_gchisq_exact *q, const arb_t x);

/* The one precision-escalation loop (numerics/escalate.c): calls step(ctx, prec) at
 * prec = start, 2 start, 4 start, ... while prec <= cap and the deadline (ga_monotonic()
 * time, 0: none) has not passed. step returns GA_OK when its result is accurate enough (the
 * loop returns GA_OK), GA_EPREC to ask for more precision, GA_ARB_STALLED when more precision
 * would not help (the loop returns GA_EPREC), or another status, returned as it is. Past the
 * cap: GA_EPREC; past the deadline: GA_ETIME. *used (if not NULL) is the last precision
 * tried. Whatever step stored at each level must be a valid enclosure on its own: the caller
 * keeps the last (or best) one whatever the status. */
#define GA_ARB_STALLED (-100)
typedef int (*ga_arb_step)(void *ctx, slong prec);
int ga_arb_escalate(slong *used, ga_arb_step step, void *ctx, slong start, slong cap,
                    double deadline);

/* step(ctx, prec) with FLINT/Arb's failures caught on this thread: FLINT allocates through
 * the library's functions (numerics/arb_load.c), and an allocation it cannot have (or a FLINT
 * abort) inside step ends step with GA_ENOMEM (an allocation) or GA_EDEP (an abort)
 * rather than the process. What step had allocated is then lost (a leak on a path that has
 * no memory); the arb_t the caller passed in are left valid (a failed reallocation keeps the
 * old block).
 * ga_arb_escalate runs every step through it. ga_arb_last_failure: the last failure caught
 * (any thread), as text naming the size ("" when none). */
int ga_arb_guarded(ga_arb_step step, void *ctx, slong prec);
void ga_arb_last_failure(char *buf, size_t n);

/* Precision escalation: tracks the relative accuracy of successive enclosures of one
 * quantity (init *best = LONG_MIN / 2, *stalls = 0; call once per precision level with the
 * new ball). Returns 1 when two consecutive doublings brought no gain in accuracy: the width
 * is then set by something other than the working precision (a tail below every
 * representable path scale, an integral of a quantity that is 0 to the precision of the
 * path), and further doublings would only cost time. Non-finite balls never count. */
int ga_arb_stalled(slong *best, int *stalls, const arb_t v);

/* Ball-matrix products on the BLAS (numerics/matmul.c). ga_arb_mat_mul_blas sets C (r x c)
 * to an enclosure of every product a b with a in A (r x m) and b in B (m x c), accurate to
 * about 2^-min(prec, 100) relative to the magnitude of A's row times B's column (not to each
 * entry), and returns 0; or returns -1, C unchanged, where it does not apply (m < 2 or above
 * 2^24, a non-finite entry, a midpoint beyond 2^+-900, no memory). C may alias A or B.
 * ga_arb_mat_mul uses it where every dimension is at least GA_ARB_MAT_BLAS_MIN (below it
 * arb_mat_mul is as fast, and its per-entry radii are tighter), else (or on -1) arb_mat_mul. */
#define GA_ARB_MAT_BLAS_MIN 64
int ga_arb_mat_mul_blas(arb_mat_t C, const arb_mat_t A, const arb_mat_t B, slong prec);
void ga_arb_mat_mul(arb_mat_t C, const arb_mat_t A, const arb_mat_t B, slong prec);

/* The standard normal's P = Phi(x) and Q = 1 - Phi(x) (P and Q distinct from x and from each
 * other): the tail on the side of x's midpoint from Arb's erfc (its relative accuracy), the
 * other as 1 minus it. rsqrt2: a ball containing 1/sqrt(2) at prec (a caller's hoisted
 * constant), or NULL. */
void ga_arb_normal_tails(arb_t P, arb_t Q, const arb_t x, const arb_t rsqrt2, slong prec);

/* Outward-rounded double enclosure [lo, hi] of a ball (infinite for a non-finite ball). */
void ga_arb_bounds(ga_interval *iv, const arb_t v);

/* The same, clipped to [0, 1] (probabilities). */
void ga_arb_interval(ga_interval *iv, const arb_t v);

/* Lower/upper bound of a ball as a decimal string with `digits` significant digits,
 * rounded down (lower) or up (upper). buf must hold digits + 16 characters. */
void ga_arb_bound_str(char *buf, size_t len, const arb_t v, int upper, int digits);

/* The same for a probability: bounds beyond [0, 1] are printed as 0 and 1. */
void ga_arb_prob_str(char *buf, size_t len, const arb_t v, int upper, int digits);

/* A certified probability for output: its clipped double enclosure (ga_arb_interval) and
 * its bounds as strings of `digits` significant digits (ga_arb_prob_str); lo and hi hold
 * len characters each. */
void ga_arb_prob_out(ga_interval *iv, char *lo, char *hi, size_t len, const arb_t v, int digits);

#endif


/*
 * cert_internal.h - what the certified side of the pair layer shares, not seen outside
 * pair/: the exact inputs in ball arithmetic and the certificate that the reduced laws are
 * near them (cert_inputs.c), exact loss forms and closed forms (cert_forms.c), the Gaussian
 * pair's certified delta (cert_gauss.c) and the loss families' (cert_loss.c), and the two
 * directions of an evaluation on the threads (cert_dirs.c). Names shared
 * between these files carry the pc_ prefix.
 */
#ifndef GA_PAIR_CERT_INTERNAL_H
#define GA_PAIR_CERT_INTERNAL_H

#include "numerics/arb.h"
#include "pair/internal.h"

#define PARSE_PREC 4300

/* The two directions of a certified evaluation at one precision (cert_dirs.c):
 * fn(v[dir], ctx, dir, prec), its status into st[dir], for each dir with todo[dir]; with par,
 * both at once on the threads lent to the caller where it has some (ga_par_inner_jobs: for
 * evaluations that cost far more than starting a thread), else one after the other; each
 * under its own guard: ran[dir] is 0 where FLINT stopped it, guard[dir] then the guard's
 * status. v[] is initialised by pc_dirs_init and cleared by pc_dirs_clear. */
typedef int (*pc_dir_fn)(arb_t v, void *ctx, int dir, slong prec);
typedef struct pc_dirs {
    pc_dir_fn fn;
    void *ctx;
    slong prec;
    int todo[2], st[2], ran[2], guard[2];
    arb_t v[2];
    struct pc_dir_arg {
        struct pc_dirs *D;
        int dir;
    } arg[2];
} pc_dirs;
void pc_dirs_init(pc_dirs *D, pc_dir_fn fn, void *ctx, const int todo[2], slong prec);
void pc_dirs_run(pc_dirs *D, int par);
void pc_dirs_clear(pc_dirs *D);

/* x <- x * d for a double d (exact conversion) */
void pc_mul_d(arb_t x, double d, slong prec);

/* The reference pair the certified integrals are computed for, in whitened coordinates:
 * Y'' = N(0, I), X'' = N(mt, diag(1 + lam)) (with the pair's r columns). By default lam and
 * mt are the floating reduction's doubles; the refinement below replaces them (and the
 * basis) by values correct to far beyond double precision. */
typedef struct {
    slong k;
    arb_ptr lam, mt; /* exact numbers (radius 0) */
} la_ref;

void pc_la_ref_init(la_ref *f, slong k);

void pc_la_ref_clear(la_ref *f);

/* M, P and v in the basis W ~ (L V)^{-1} (floating_inverse_basis). 0, or -1. */
int pc_la_whiten_floating(arb_mat_t M, arb_mat_t P, arb_mat_t v, const ga_pair *p,
                          const ga_pair_input *in, const ga_pair_text *txt, slong prec);

/* Upper bounds (mags) of TV(X, X'') and TV(Y, Y'') against the floating reduction's own
 * exact pair. Returns 0 on success. */
int pc_la_certificate(mag_t tvx, mag_t tvy, const ga_pair *p, const ga_pair_input *in,
                      const ga_pair_text *txt, slong prec);

/* the largest dimension whose reference pair is refined (cert_inputs.c) */
#define GA_REFINE_MAX 2048

/* TV bounds against the refined reference f (filled in; a |lam_i| below 2^-zbits is taken
 * as 0). Each step changes the basis W (W <- (I + G) W, W <- R W: chosen matrices, taken as
 * exact) and recomputes M, P, v = W S_y W^T, W S_x W^T, W (mu_x - mu_y) from the exact inputs,
 * so that the radii of the final M, P are those of two products (a radius carried through
 * C M C^T for a dense rotation C would grow by k). Returns 0 on success, -1 on failure or
 * once the deadline has passed (checked between the steps: each takes seconds at k = 2000). */
int pc_la_refined(mag_t tvx, mag_t tvy, la_ref *f, const ga_pair *p, const ga_pair_input *in,
                  const ga_pair_text *txt, slong zbits, double deadline, slong prec);

/* The exact loss laws of the exact whitened pair: lx'' (l under X'') and ly'' (-l under
 * Y''), parameters in ball arithmetic from the reference f (NULL: the stored doubles). */
void pc_exact_forms(ga_gchisq_exact *lx, ga_gchisq_exact *ly, const ga_pair *p,
                    const la_ref *f, slong prec);

/* The exact losses of a product pair in its original directions (l under X, -l under Y):
 * the sums of its blocks' (each block's pc_exact_forms, exchanged where the block's reduction
 * whitened by X); f: the refined reference of every block, concatenated in block order
 * (NULL: the blocks' doubles). Returns 0, or -1 when out of memory. */
int pc_product_exact_forms(ga_gchisq_exact *lx, ga_gchisq_exact *ly, const ga_pair *p,
                           const la_ref *f, slong prec);

/* the inputs of the pair (Y, X): for a pair whose reduction whitened by X */
void pc_swap_input(ga_pair_input *in2, ga_pair_text *t2, const ga_pair_text **tp,
                   const ga_pair_input *in, const ga_pair_text *txt);

/* Is eps certified at or above the supremum of the pair's privacy loss in direction dir (0:
 * delta_{X,Y}, 1: delta_{Y,X}), so that delta is exactly 0 there (pair/cert_sup.c)? 1 or 0
 * (unbounded, above eps, not settled at this precision, or beyond GA_SUP_MAX_DIM). */
#define GA_SUP_MAX_DIM 300
int pc_loss_sup_below(const ga_pair *p, const ga_pair_input *in, const ga_pair_text *txt,
                      int dir, const arb_t eps, slong prec);

/* res <- delta(eps) of a mean shift whose squared Mahalanobis distance is d2 > 0 (a ball):
 * the Gaussian mechanism at mu = sqrt(d2), whose privacy loss is N(d2/2, d2) in either
 * direction, in closed form (cert_forms.c) */
void pc_shift_delta(arb_t res, const arb_t d2, const arb_t eps, slong prec);

/* delta of an equal-covariance pair from its r D2 (see equal_cov_d2): 1 when done, else the
 * return of equal_cov_d2 */
int pc_equal_cov_delta(arb_t xy, const ga_pair *p, const ga_pair_input *in,
                       const ga_pair_text *txt, const arb_t eps, slong prec);

/* certified E[(1 - e^{eps - Q})_+] for the exact law q (double twin qd for the path) */
int pc_delta_one(arb_t res, const ga_gchisq_exact *q, const ga_gchisq *qd, const arb_t eps,
                 double epsd, double deadline, slong prec);

/*
 * A certificate whose linear-algebra part does not grow like e^eps.
 * If D_alpha(P||Q) <= rho then P[S] <= e^h Q[S] + exp((alpha - 1)(rho - h)) for every event S
 * and h > 0 (RDP to DP, Mironov 2017, Prop. 3). The floating pair (X'', Y'') is within
 * Renyi divergence ~sqrt(KL) of the exact (X, Y) at alpha - 1 ~ 1/sqrt(KL), so with
 * h ~ 8 sqrt(KL) (eps + 1100) these deltas are below e^-(eps + 1000), and for every S
 * (direction xy)
 *   delta_xy(eps) <= e^h delta''_xy(eps - 2h) + d(X||X'') + e^(eps - h) d(Y''||Y),
 *   delta_xy(eps) >= e^-h delta''_xy(eps + 2h) - e^-h d(X''||X) - e^eps d(Y||Y''),
 * d(P||Q) = exp((alpha - 1)(D_alpha(P||Q) - h)); direction yx with X and Y exchanged. The
 * e^eps only multiplies the e^-1000 terms; the price is the shift 2h of eps (a relative
 * change of delta of about 2h |d log delta / d eps|, ~1e-11). In whitened coordinates
 * (W ~ (L V)^{-1}, floating_inverse_basis): X = N(v, P), X'' = N(mt, diag(1 + lambda)),
 * Y = N(0, M), Y'' = N(0, I), with P = W S_x W^T, M = W S_y W^T, v = W (mu_x - mu_y).
 * On success returns 0 and sets d[0..3] = d(X||X''), d(X''||X), d(Y||Y''), d(Y''||Y) and h.
 */
int pc_shift_deltas(arb_ptr d, arb_t h, const ga_pair *p, const ga_pair_input *in,
                    const ga_pair_text *txt, double kl, double epsd, slong prec);

/* [lo, hi] of delta in direction xy (dir 0) or yx (1) by the shifted certificate above,
 * intersected into res; lx, ly the exact loss forms, tx, ty their double twins. Returns 1 when
 * res was narrowed (or confirmed), 0 when the certificate was not available. */
int pc_shift_bound(arb_t res, int dir, const ga_gchisq_exact *lx, const ga_gchisq_exact *ly,
                   const ga_gchisq *tx, const ga_gchisq *ty, arb_srcptr dd, const arb_t h,
                   const arb_t eps, double deadline, slong prec);

/* bits of relative accuracy that make `digits` decimal digits */
slong pc_want_bits(int digits);

/* the exact q and m = norm/sigma of term j (decimal text, or the doubles as given) */
int pc_sub_params(arb_t q, arb_t m, const ga_pair *p, size_t j, slong prec);

/* What the Renyi divergences from privacy profiles (pair/renyi_profile.c) need of a pair
 * family beyond its deltas: the loss's supremum in direction dir (INFINITY: none); an upper
 * bound of log E_P[e^{lam L}], lam > 0, in double and as a ball (GA_OK, or no bound); and
 * (NULL: never) whether D_alpha is infinite: 1, 0, or (Arb) -1 undecided. */
typedef struct {
    double (*sup)(const ga_pair *p, int dir);
    double (*cap)(const ga_pair *p, int dir, double lam);
    int (*cap_arb)(arb_t res, const ga_pair *p, int dir, const arb_t lam, slong prec);
    int (*infinite)(const ga_pair *p, int dir, double alpha);
    int (*infinite_arb)(const ga_pair *p, int dir, const arb_t alpha, slong prec);
    size_t nodes; /* the certified grid's node cap (its deltas' cost decides) */
} pc_renyi_tails;

/* D_alpha(X||Y), D_alpha(Y||X) of a pair with mutually absolutely continuous laws from its
 * double-precision deltas (estimates with errors): GA_OK; GA_ETOL when a relative error would
 * exceed 1e-6 or an evaluation failed (the values are then the estimates, or NaN). */
int pc_renyi_profile(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha,
                     const pc_renyi_tails *tl);
/* The same certified from certified deltas (in, txt passed to ga_pair_delta_cert): intervals
 * that contain the divergences whatever the status (except GA_EINVAL/GA_ENOMEM); GA_OK when
 * both relative widths are at most max(10^-digits, 1e-4), GA_EPREC (tl->nodes reached: the
 * intervals are wider than asked), GA_ETIME. */
int pc_renyi_profile_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                          const ga_pair_input *in, const ga_pair_text *txt, const char *alpha_txt,
                          const pc_renyi_tails *tl, const ga_cert_opts *o);

/* A ball above log E_P[e^{lam L}] (lam > 0) for a one-step masked, synthetic or covariance
 * pair in direction dir, from its exact parameters (the bound of ga_ploss_cgf_cap): GA_OK,
 * GA_EDOM (no finite bound certain), GA_EINVAL. */
int pc_loss_cgf_cap(arb_t res, const ga_pair *p, int dir, const arb_t lam, slong prec);

int pc_delta_cert_subsampled(ga_delta_cert *out, const ga_pair *p, const char *eps,
                             const ga_cert_opts *opts);

int pc_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *in,
                  const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts);

/* D_alpha(P||Q) for P = N(mp, Sp), Q = N(mq, Sq) (k x k exact balls), times r:
 * r [alpha/2 dm^T S_a^{-1} dm - (log det S_a - (1-alpha) log det Sp - alpha log det Sq)/(2(alpha-1))],
 * S_a = alpha Sq + (1 - alpha) Sp. Returns 0 (res finite), 1 (certainly infinite: S_a not
 * positive definite), -1 (undecided at this precision). */
int pc_renyi_ball(arb_t res, const arb_mat_t Sp, const arb_mat_t Sq, const arb_mat_t dm,
                  const arb_t alpha, double r, slong prec);

/* out: [0, 1] in both directions, as decimals too (pair_cert.c) */
void pc_cert_unknown(ga_delta_cert *out);

#endif

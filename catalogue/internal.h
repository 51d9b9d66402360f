/*
 * internal.h - what the files of the catalogue share, not seen above it: small linear
 * algebra (common.c), neighbour relations (neighbours.c), the output laws of data-dependent
 * kinds and the generic builder over neighbours (laws.c), and each family's builders. The
 * table of kinds and the recursion through it (composition, subsampling) are catalogue.c.
 * Names shared between these files carry the cat_ prefix.
 */
#ifndef GA_CATALOGUE_INTERNAL_H
#define GA_CATALOGUE_INTERNAL_H

#include "catalogue/catalogue.h"
#include "pair/loss.h"
#include "pair/pair.h"
#include "numerics/numerics.h"

/* One build: the spec (a composition part's or a relative pair's view of it) read, where its
 * pairs and findings go, the caller's options. The builders take one. */
/* The mechanism keys of each kind (beside "repeat" and "release", which every kind takes):
 * its builder checks them and the kind table lists them (ga_mech_kind_keys). */
extern const char *const cat_keys_gaussian_mechanism[];
extern const char *const cat_keys_matrix_masking[];
extern const char *const cat_keys_output_perturbation[];
extern const char *const cat_keys_noisy_gradient_descent[];
extern const char *const cat_keys_linear_regression[];
extern const char *const cat_keys_bayesian_logistic_regression[];
extern const char *const cat_keys_gaussian_process_regression[];
extern const char *const cat_keys_sketch[];
extern const char *const cat_keys_synthetic_random_inputs[];
extern const char *const cat_keys_composition[];
extern const char *const cat_keys_subsampled_gaussian[];
extern const char *const cat_keys_training[];

typedef struct cat_job {
    ga_spec *s;
    ga_pairset *out;
    const ga_build_opts *o;
} cat_job;

/* A number of the mechanism mapping (ga_spec_mech_number), except the noise parameter
 * calibrate sets (o->knob): its value then. */
int cat_mech_number(const cat_job *j, const char *key, double *v, int required, char *msg,
                    size_t msglen);

/* S <- X^T X (+ c I), X n x d row-major (the first n rows) */
void cat_gram(double *S, const double *X, size_t n, size_t d, double c);

/* solve A x = b (A SPD d x d, not modified), nrhs columns in b (row-major d x nrhs) */
int cat_spd_solve(double *x, const double *A, const double *b, size_t d, size_t nrhs);

/* inverse of an SPD matrix */
int cat_spd_inverse(double *inv, const double *A, size_t d);

double *cat_dup(const double *v, size_t n);

/* change_label on binary labels (bayesian_logistic_regression) flips them; on continuous
 * targets it moves them by +C and by -C */
int cat_label_flip(const ga_spec *s);

size_t cat_nb_count(const ga_spec *s);

/* A neighbour as a change of the dataset: row `row` taken out (SIZE_MAX: none) and the row v
 * (d values; NULL: none) put in, in its place or, when no row is taken out, appended. */
typedef struct {
    size_t row;
    const double *v;
} nb_change;

/* Neighbour k as a change (v: the caller's d values, filled when the neighbour has a new
 * row); name it. Returns 0 or -1 (the row does not exist). */
int cat_nb_describe(const ga_spec *s, size_t k, nb_change *c, double *v, char *name,
                    size_t len);

/* The rows of the dataset Z (n rows of d) changed by c, malloc'ed in *Dp (*m rows); the
 * one place a change becomes a dataset. GA_OK or GA_ENOMEM. */
int cat_nb_apply(double **Dp, size_t *m, const double *Z, size_t n, size_t d,
                 const nb_change *c);

/* Fill D' (malloc'ed, *m rows) for neighbour k; name it. Returns 0, -1 (bad row) or -2 (no
 * memory). */
int cat_nb_make(const ga_spec *s, size_t k, double **Dp, size_t *m, char *name, size_t len);

/* A kind's output law on a dataset: mean (dim) and covariance (dim x dim). */
typedef int (*law_fn)(double *mu, double *cov, const double *X, size_t n, const ga_spec *s,
                      const void *par, char *msg, size_t msglen);

typedef struct {
    double lambda, sigma, eta, r;
    int linear_kernel;
    double lengthscale, signal_var, noise_var;
    const double *query;
    size_t nq;
    size_t p; /* number of features (data columns minus the target) */
    size_t iterations;        /* noisy GD: T steps (0: the stationary law) */
    const double *init_mean;  /* noisy GD: the law of the initial iterate (p, p x p) */
    const double *init_cov;
    int trajectory;           /* noisy GD: release every iterate theta_1..theta_T */
    const double *warm;       /* the law's mean on the whole dataset, where a neighbour's
                                 iteration may start (cat_build_generic sets it; NULL: none) */
    const struct ridge_base *rb; /* ridge-type kinds: the whole dataset's X^T X and X^T y */
    const nb_change *nb;      /* with rb: the law is the neighbour's, the rows given being the
                                 whole dataset's and nb the change (NULL: the rows as given) */
} law_par;

/*
 * Ridge-type kinds (output_perturbation, noisy_gradient_descent, linear_regression) see the
 * data through G = X^T X and b = X^T y only (plus the residuals, for linear_regression). A
 * neighbour changes one row, so its G and b are the whole dataset's minus x x^T and y x (the
 * row taken out) plus v v^T and y_v v (the row put in): O(p^2) per neighbour instead of the
 * O(n p^2) of a new Gram matrix.
 *
 * Accuracy. Summed afresh, G' has the rounding error |E| <= gamma_n |X'|^T |X'| (gamma_n ~ n u,
 * X' the neighbour's rows); updated, |E| <= gamma_{n+1} (|X'|^T |X'| + 2 |x| |x|^T). Scaled by
 * D = diag(|X'|^T |X'|) the first matrix has 2-norm >= 1 (unit diagonal) and the extra term
 * 2 sum_j x_j^2 / D_jj; so where sum_j x_j^2 / D_jj <= 1 the update's bound is at most 3x the
 * fresh sum's, the same order as the rounding the reduction already treats as exact (a
 * typical row has sum_j x_j^2 / D_jj ~ p / n). Likewise b'_j: |x_j y| <= sum over the
 * neighbour's rows of |x_kj y_k|. A row that carries more than that (an outlier that
 * dominates a column: at most a few rows) is summed afresh.
 */
typedef struct ridge_base {
    double *G; /* X^T X, p x p */
    double *b; /* X^T y */
    double *a; /* sum_k |x_kj y_k| */
    /* linear_regression (cat_ridge_base_residuals; NULL otherwise): the whole dataset's solution
     * x of (G + lambda I) x = b, its residual sum of squares, c = b - G x = X^T (y - X x),
     * and sqrt(G_jj) */
    double *x, *c, *sq;
    double rss;
} ridge_base;

void cat_ridge_base_free(ridge_base *rb);

/* the statistics of the rows [x | y] of Z */
int cat_ridge_base_init(ridge_base *rb, const double *Z, size_t n, size_t p);

/* ridge estimate theta = (X^T X + lambda I)^{-1} X^T y and H = X^T X + lambda I on rows
 * [x | y]; with lp->rb and lp->nb: on the neighbour (Z, n the whole dataset), updated where
 * that is as accurate as summing afresh */
int cat_ridge(double *theta, double *H, const double *Z, size_t n, size_t p, double lambda,
              const law_par *lp);

/* linear_regression: what a neighbour's residual sum of squares is updated from (rb->x, c,
 * sq, rss; lambda = sigma^2). GA_OK, GA_ENOMEM, or GA_EINVAL (a singular system). */
int cat_ridge_base_residuals(ridge_base *rb, const double *Z, size_t n, size_t p, double lambda);

int cat_law_output_perturbation(double *mu, double *cov, const double *Z, size_t n,
                                const ga_spec *s, const void *vp, char *msg, size_t msglen);

/* noisy GD: the stationary law (iterations absent), the T-th iterate, or the trajectory
 * theta_1..theta_T (dimension T p: Cov(theta_t, theta_s) = M^{t-s} Cov(theta_s), t >= s) */
int cat_law_noisy_gd(double *mu, double *cov, const double *Z, size_t n, const ga_spec *s,
                     const void *vp, char *msg, size_t msglen);

/* Sketched least squares (NDIS paper, M_LS, Figure 4): rows [b | y], the data matrix
 * [B, y] augmented by sigma I_{d+1} (d rows [sigma e_j | 0] and the row [0 | sigma]);
 * x = (B^T B + sigma^2 I)^{-1} B^T y, e the residual of the augmented system,
 * ||e||^2 = ||y - B x||^2 + sigma^2 ||x||^2 + sigma^2, law N(x, ||e||^2 (B^T B + sigma^2 I)^{-1} / r).
 * The last augmented row keeps ||e||^2 >= sigma^2, which bounds the residual part of the
 * leverage (the paper's regularisation); without it a neighbour could have ||e|| = 0. */
int cat_law_linear_regression(double *mu, double *cov, const double *Z, size_t n,
                              const ga_spec *s, const void *vp, char *msg, size_t msglen);

/* Bayesian logistic regression, rows [x | label], labels 0/1 or -1/+1: theta = MAP of
 * sum log sigma(y x^T t) - lambda/2 ||t||^2 (Newton with step halving); law
 * N(theta, (lambda I + X^T X / 4)^{-1} + sigma^2 I) (the Bohning bound on the Hessian). */
int cat_law_logistic(double *mu, double *cov, const double *Z, size_t n, const ga_spec *s,
                     const void *vp, char *msg, size_t msglen);

int cat_law_gp(double *mu, double *cov, const double *Z, size_t n, const ga_spec *s,
               const void *vp, char *msg, size_t msglen);

int cat_build_gp_remove_one(cat_job *j, const law_par *lp, char *msg, size_t msglen);
/* the GP's kernel k(a, b) over p features (laws.c) */
double cat_gp_kernel(const law_par *lp, const double *a, const double *b, size_t p);

/* gaussian_process_regression's universe {label_bound, max_rows} (envelope.c): the
 * checks before the pairs are built (GA_OK or GA_EINVAL with a message), then the envelope's
 * supremum added as the proven upper bound (GA_OK, GA_ENOMEM) */
int cat_gp_universe_check(cat_job *j, const law_par *lp, char *msg, size_t msglen);
int cat_gp_universe_add(cat_job *j, const law_par *lp, char *msg, size_t msglen);
/* bayesian_logistic_regression's universe {row_norm_bound, max_rows} (envelope.c): likewise */
int cat_logistic_universe_check(cat_job *j, const law_par *lp, char *msg, size_t msglen);
int cat_logistic_universe_add(cat_job *j, const law_par *lp, char *msg, size_t msglen);

/* audit --timeout: has the builders' deadline passed? Then the construction stops with
 * what it has (j->out->truncated, j->out->planned pairs were due). Checked before every pair. */
int cat_out_of_time(cat_job *j, size_t planned);

/* Caps before allocation (README, "Limits and hostile input"): the number of pairs the
 * relation produces, and the memory their laws take (two means and two d x d covariances
 * each, GA_SPEC_MAX_PAIR_BYTES in all). GA_OK or GA_EINVAL with a message naming the cap. */
int cat_pairs_cap(cat_job *j, size_t npairs, size_t dim, const char *field, char *msg,
                  size_t msglen);

/* cat_pairs_cap, then room for the pairs and one more (a universe's worst case), without
 * doubling past them */
int cat_pairs_fit(cat_job *j, size_t npairs, size_t dim, const char *field, char *msg,
                  size_t msglen);

/* The generic builder: the kind's law on D, then on each neighbour (from D's law where the
 * law can start there), in chunks on --jobs threads, each neighbour's pair (dim) added in
 * order; at the builders' deadline it stops with what it has (cat_out_of_time). GA_OK, or
 * the first error with its message (a missing dataset, a row that does not exist). */
int cat_build_generic(cat_job *j, law_fn law, const law_par *lp, size_t dim, char *msg,
                      size_t msglen);

/* A covariance read from the spec must be symmetric (to 1e-12 of its largest entry) and
 * positive semidefinite (its smallest eigenvalue, from LAPACK, at least -1e-12 times the
 * largest): a law with a negative variance has no profile. */
int cat_need_psd(const ga_spec *s, const ga_node *n, const char *path, const double *S, size_t p,
                 char *msg, size_t msglen);

int cat_need_positive(const ga_spec *s, const char *key, double v, int allow_zero, char *msg, size_t msglen);

/* 1-D pair N(m, v1) vs N(0, v2) with r columns */
int cat_add_1d(cat_job *j, const char *name, double m, double v1, double v2, double r);

int cat_build_gaussian_mechanism(cat_job *j, char *msg, size_t msglen);

int cat_build_matrix_masking(cat_job *j, char *msg, size_t msglen);

/* The remove and add pairs of the subsampled terms t[0..n-1] composed (t->add ignored),
 * named names[0] and names[1], as the spec's proven worst case (the caller writes the note) */
int cat_add_subsampled_pairs(cat_job *j, const ga_subsampled_input *t, size_t n,
                             const char names[2][160]);

/* the batch samplers (samplers.c): subsampled_gaussian (one stage) and training (stages) */
int cat_build_subsampled(cat_job *j, char *msg, size_t msglen);
int cat_build_training(cat_job *j, char *msg, size_t msglen);

/* Does cat_build_sketch hold its pairs as a row family? For an audit (built once, the data
 * dropped) of the plain remove-, zero-out- or add-one neighbours: not released (the laws
 * are then d-dimensional), subsampled, repeated, nor part of a composition or a relative
 * set (those specs are copies with drop_data = 0). */
int cat_sketch_family(const cat_job *j);

int cat_build_sketch(cat_job *j, char *msg, size_t msglen);
/* the sketch behind a propose-test-release ridge (mechanism.ptr; catalogue/ptr.c) */
int cat_build_sketch_ptr(cat_job *j, double r, double sigma, char *msg, size_t msglen);

/* the regression kinds (regression.c), one builder each */
int cat_build_output_perturbation(cat_job *j, char *msg, size_t msglen);
int cat_build_noisy_gd(cat_job *j, char *msg, size_t msglen);
int cat_build_linear_regression(cat_job *j, char *msg, size_t msglen);
int cat_build_logistic(cat_job *j, char *msg, size_t msglen);
int cat_build_gp(cat_job *j, char *msg, size_t msglen);

/*
 * synthetic_random_inputs (Pierquin, Bellet, Tommasi & Boussard, Section 4): the output-perturbed
 * ridge model theta~ = theta(D) + sigma N (as output_perturbation) is queried at `points` hidden
 * inputs z_i ~ N(0, I) and only theta~^T z_i are released (scalar outputs). The release is the
 * function |y|^2 = sigma^2 S C of a noncentral chi-square S (noncentrality |theta|^2/sigma^2)
 * and an independent chi^2_points C (pair/synth.c), so each neighbour's pair is exact and
 * depends on |theta(D)| and |theta(D')| only. No worst case over a universe is proven here: the
 * privacy depends on |theta| as well as on the change, so verdicts are about the audited
 * neighbours (NO VIOLATION FOUND at best).
 */
int cat_build_synthetic(cat_job *j, char *msg, size_t msglen);

size_t cat_pub_gaussian_mechanism(ga_mech_published *pv, size_t max, ga_pairset *set,
                                  ga_spec *s, const ga_build_opts *bo, double eps,
                                  double delta, double value, ga_gchisq_work *w);

size_t cat_pub_matrix_masking(ga_mech_published *pv, size_t max, ga_pairset *set,
                              ga_spec *s, const ga_build_opts *bo, double eps,
                              double delta, double value, ga_gchisq_work *w);

size_t cat_pub_sketch(ga_mech_published *pv, size_t max, ga_pairset *set,
                      ga_spec *s, const ga_build_opts *bo, double eps,
                      double delta, double value, ga_gchisq_work *w);

size_t cat_pub_linear_regression(ga_mech_published *pv, size_t max, ga_pairset *set,
                                 ga_spec *s, const ga_build_opts *bo, double eps,
                                 double delta, double value, ga_gchisq_work *w);
size_t cat_pub_gp(ga_mech_published *pv, size_t max, ga_pairset *set, ga_spec *s,
                  const ga_build_opts *bo, double eps, double delta, double value,
                  ga_gchisq_work *w);
size_t cat_pub_logistic(ga_mech_published *pv, size_t max, ga_pairset *set, ga_spec *s,
                        const ga_build_opts *bo, double eps, double delta, double value,
                        ga_gchisq_work *w);

/* explicit pairs are parsed with the spec; calibrate treats their covariances as the noise
 * and scales them (noise_scale c: c^2 S_x, c^2 S_y) from the pairs as written, kept aside */
int cat_build_explicit(cat_job *j, char *msg, size_t msglen);

/* repeat: k independent runs of the mechanism: every pair (every block of a product) gets k
 * times the iid columns */
int cat_apply_repeat(cat_job *j, size_t from, char *msg, size_t msglen);

/* Is the exact release matrix A (m x d: the decimals whose doubles A->x holds, each within a
 * relative u = 2^-53) of full column rank, proven? Then x -> A x is a bijection onto its range
 * and leaves every divergence and delta unchanged. A is scaled by a power of two (exact), its
 * Gram matrix G = A^T A formed in double, and by Weyl
 *   sigma_min(A)^2 >= lambda_min(fl(G)) - gamma_m F,   F = ||A||_F^2 (the sums' rounding),
 * with lambda_min(fl(G)) bounded below rigorously (numerics/spd.c) from LAPACK's estimate; the
 * decimals move sigma_min by at most ||dA||_2 <= u sqrt(F). Every term is rounded outward. 1:
 * proven injective; 0: not proven (rank-deficient, too ill-conditioned to tell, entries
 * spanning more than 2^400, or no memory). */
int cat_release_injective(const ga_dataset *A);

/* the decimals of release: {matrix: [[...], ...]}, row-major (NULL: the matrix came from a
 * file, or no memory: its doubles are then taken within half an ulp); malloc'd */
const char **cat_release_texts(const ga_node *rn, size_t m, size_t d);

/* pair p released through A: its laws computed from the exact inputs (pair_release.c), or,
 * where that cannot be done rigorously, kept as they are and marked unreleased (an upper
 * bound of the release by post-processing; j->out->release_note says why) */
int cat_release_pair(cat_job *j, ga_spec_pair *p, const ga_dataset *A, const char **atxt);

/* release: the released value is A times the output (per column): N(A mu, A S A^T). The
 * proven worst case, if any, is kept as it is: post-processing cannot increase delta, so the
 * unreleased worst case still bounds every released pair. A matrix of full column rank
 * (proven) changes no profile: the pairs stay as built. Otherwise each pair's released laws
 * are computed from the exact inputs (cat_release_pair). */
int cat_apply_release(cat_job *j, const ga_dataset *A, size_t from, char *msg, size_t msglen);

/* a deep copy of a plain pair (its arrays; its decimals are the same doc's lists) */
int cat_pair_copy(ga_spec_pair *dst, const ga_spec_pair *src);

/* append the pair p (its laws moved into s) under name */
int cat_pair_room_move(cat_job *j, ga_spec_pair *p, const char *name);

/* The pairs of relative DP: for every two datasets of the set that are neighbours under the
 * relation (D' = D minus a row, plus a row, with a row replaced or zeroed), the kind's pair
 * for that one change, built by its own builder on a view of the spec with data D and the
 * change as its only neighbour (build: the kind's builder). X is the law on the first
 * dataset, Y on the second. */
int cat_build_relative(cat_job *j, int (*build)(cat_job *, char *, size_t), char *msg,
                       size_t msglen);

#endif

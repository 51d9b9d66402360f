/*
 * catalogue.h - the mechanism catalogue: from a parsed spec (specs/spec.h) to the list of
 * neighbouring Gaussian pairs of its kind, with the proven worst case where the kind has one.
 * Internal to the tool; it sits above specs/ and the pair library and below the verdicts.
 */
#ifndef GA_CATALOGUE_H
#define GA_CATALOGUE_H

#include "gaussaudit.h"
#include "specs/spec.h"

/* How the catalogue builds a spec's pairs: what the caller decides, not the spec. */
#define GA_BUILD_MAX_EPS 16
typedef struct {
    double deadline;       /* monotonic seconds after which builders stop (0: none); a
                              construction cut short says so (ga_pairset.truncated) */
    int jobs;              /* threads the builders may use (<= 1: one) */
    int drop_data;         /* the pairs are built once (audit): a builder may free the
                              dataset's values, and take the written pairs, once it no longer
                              needs them (the pairs cannot be rebuilt then) */
    int families;          /* a builder may hold its pairs as a row family (ga_spec_family;
                              the audit, unless it keeps every pair for a test) */
    const char *knob;      /* calibrate: the noise parameter set to knob_value instead of its
                              written value (NULL: none) */
    size_t knob_part;      /* a composition: 0 scales every part's noise by knob_value, k sets
                              part k's noise parameter to it */
    double knob_value;
    size_t neps;           /* the eps at which worst cases are sought (universe maxima, the
                              dominant part of a composition): the (eps, delta) claims' or
                              calibrate's (none: a kind's default) */
    double eps[GA_BUILD_MAX_EPS];
} ga_build_opts;

/* A published calibration of a kind, for comparison with the exact value calibrate finds:
 * its name and value (leverage fields NAN unless given) and a line of text (empty when the
 * line of a previous entry covers it). */
typedef struct {
    const char *name;
    double value, leverage, exact_leverage;
    char text[320];
} ga_mech_published;

/* The published calibrations of the spec's kind (the kind table's hook) at (eps, delta) for
 * the exact value; may rebuild set at value (with bo's other options). Returns how many
 * were written (<= max). */
size_t ga_mech_published_values(ga_mech_published *pv, size_t max, ga_pairset *set,
                                ga_spec *s, const ga_build_opts *bo, double eps, double delta,
                                double value, ga_gchisq_work *w);

/* Reduce a spec pair (ga_pair_reduce, or ga_pair_reduce_product for a composition's product
 * pair); the same returns and messages. */
int ga_mech_pair_reduce(ga_pair **out, const ga_spec_pair *sp, char *msg, size_t msglen);

/* Is the spec pair cheap to reduce again (laws of dimension one, or a product of such
 * blocks)? Its reduction need not be kept (a remove-one audit over n rows
 * kept n reduced pairs of about 0.5 KB each): it is reduced again where it is used, which
 * is deterministic, so every use sees the same pair, bit for bit. */
int ga_mech_pair_rebuildable(const ga_spec_pair *sp);
/* The reduced pair of sp, for reading (safe on any thread): kept when non-NULL (returned as
 * it is, *own = NULL), else sp reduced again into *own, which the caller frees
 * (ga_pair_free). NULL: the reduction failed (no memory, for a pair that reduced before). */
const ga_pair *ga_mech_pair_use(const ga_pair *kept, const ga_spec_pair *sp, ga_pair **own);

/* The name of the i-th kind of the table, NULL past the end (for the spec parser's check). */
const char *ga_mech_kind_at(size_t i);
/* The mechanism keys of the i-th kind (NULL-terminated; "repeat" and "release" apply to
 * every kind: ga_spec_common_mech_keys), NULL past the end. */
const char *const *ga_mech_kind_keys(size_t i);

/* Load a spec (ga_spec_load_opts) into s and build its pairs into set (ga_mech_build): what
 * every command that audits a spec needs. The same return conventions; on error both are
 * cleared. so and bo may be NULL (defaults). */
int ga_mech_load(ga_spec *s, ga_pairset *set, const char *path, const ga_spec_opts *so,
                 const ga_build_opts *bo, char *msg, size_t msglen);
/* The same from text (ga_spec_parse_opts). */
int ga_mech_parse(ga_spec *s, ga_pairset *set, const char *text, size_t len, const char *name,
                  const ga_spec_opts *so, const ga_build_opts *bo, char *msg, size_t msglen);
/* Clear both (ga_pairset_clear, ga_spec_clear). */
void ga_mech_clear(ga_spec *s, ga_pairset *set);

/* Build the pairs of the spec's kind into out (empty), with what the build found. GA_OK, or
 * GA_EINVAL/GA_ENOMEM with a message naming the field. s is read, except that with
 * bo->drop_data a builder may free its dataset's values and take its written pairs. */
int ga_mech_build(ga_pairset *out, ga_spec *s, const ga_build_opts *bo, char *msg,
                  size_t msglen);

/* The noise parameter ("knob") of the spec's kind (NULL when the kind has none). */
const char *ga_mech_knob(const ga_spec *s);
/* A composition's part (1-based): its kind's noise parameter and its written value (NaN when
 * absent). GA_OK, or GA_EINVAL when the spec is not a composition, the part does not exist or
 * its kind has no noise parameter. */
int ga_mech_part_knob(const ga_spec *s, size_t part, const char **knob, double *current);
/* Rebuild set, the pairs of s, with the kind's noise parameter set to value (calibrate; the
 * other options from bo, whose knob is ignored). GA_OK, GA_EDOM when the kind has no noise
 * parameter, or ga_mech_build's errors. */
int ga_mech_rebuild(ga_pairset *set, ga_spec *s, const ga_build_opts *bo, double value,
                    char *msg, size_t msglen);

/*
 * The NDIS paper's Theorem 4 pair for sketched least squares (ALS asymptotics, M_LS):
 * removing a row whose leverage is p in B and q in [B, y] (0 <= p <= q < 1, q - p the
 * residual share e_i^2/||e||^2), sketch size r, d features. In a basis where the Gram matrix
 * without the row is the identity, and up to the common factor ||e||^2, the law with the row
 * is X = N(sqrt(p (q - p)/(1 - p)) e_1, diag(1 - p, 1, ..., 1)/r) and the law without it is
 * Y = N(0, (1 - q)/(1 - p) I/r) (Sherman-Morrison: the mean moves by (B^T B)^{-1} u e_i/(1 - p)
 * = u e_i, the residual norm drops by e_i^2/(1 - p)). delta_ALS(q, p) of the paper
 * (Definition 13, Table VI) is max(delta_XY, delta_YX) of this pair. Returns GA_OK with a
 * reduced pair (ga_pair_free), or GA_EINVAL with a message when the leverages are invalid.
 */
int ga_mech_als_pair(ga_pair **out, double q, double p, double r, size_t d, char *msg,
                     size_t msglen);
/* delta_ALS^eps(q, p): both directions of that pair at eps (GA_OK, GA_ETOL or the error of
 * ga_mech_als_pair / ga_pair_delta). */
int ga_mech_als_delta(ga_delta *out, double q, double p, double r, size_t d, double eps,
                      ga_gchisq_work *w);

#endif

/*
 * spec.h - the YAML spec language (the full reference: doc/spec.md).
 * A spec describes one mechanism and the claim to audit; loading it yields what was parsed
 * (ga_spec), the numbers with their exact decimal text. The catalogue builds the neighbouring
 * pairs from it (a ga_pairset, defined here with the pair records both share).
 */
#ifndef GA_SPECS_SPEC_H
#define GA_SPECS_SPEC_H

#include "gaussaudit.h"
#include "specs/doc.h"

#include <stddef.h>

/* One neighbouring pair: X = output on D, Y = output on the neighbour D'. A product pair
 * (composition: independent parts) has nblocks > 0 blocks, each a pair of its own, and no
 * arrays of its own (d is the sum of the blocks'). */
typedef struct ga_spec_pair {
    char *name;
    size_t d;
    double columns;
    double *mu_x, *mu_y, *s_x, *s_y;        /* d, d, d*d, d*d (row-major) */
    const ga_node *src;                     /* an explicit pair's mapping, whose lists the
                                               numbers were read from, for their exact
                                               decimals (ga_spec_pair_src; NULL: the doubles
                                               are exact) */
    size_t src_pos;                         /* an explicit pair: 1 + its index in `pairs`
                                               (messages name it "pairs[3] (line 12)");
                                               0: built by a kind (messages use its name) */
    size_t nblocks;                         /* > 0: a product of these blocks */
    struct ga_spec_pair *blocks;
    size_t nsub;                            /* > 0: a subsampled Gaussian pair of these
                                               terms (no arrays; texts into the doc) */
    ga_subsampled_input *sub;
    ga_masked_input *masked;                /* non-NULL: a masked pair (matrix masking,
                                               setting (B); texts into the doc) */
    ga_synthetic_input *synth;              /* non-NULL: synthetic points from random inputs */
    ga_shuffle_input *shuffle;              /* non-NULL: shuffled epochs, the max test (a
                                               lower bound of the mechanism's profile) */
    ga_ptr_input *ptr;                      /* non-NULL: a propose-test-release ridge release
                                               (its arrays in the same block) */
    ga_envelope_input *envelope;            /* non-NULL: the supremum over a sensitivity
                                               envelope (an upper bound, never attained) */
    ga_allocation_input *alloc;             /* non-NULL: random allocation's upper bound
                                               (never attained) */
    const char *mean_txt, *sd_txt;          /* a kind's 1-D pair N(mean, sd^2) vs N(0, sd^2)
                                               from the spec's decimals: their texts, into
                                               the doc (NULL: the doubles are exact) */
    char *var_scale_txt;                    /* owned, with sd_txt: the variance is sd^2
                                               times this plain decimal (NULL: 1) */
    int line;                               /* where the pair is defined */
    /* flags (0 or 1; bytes: a remove-one audit keeps a pair per row) */
    unsigned char reduced;                  /* built in a whitened basis, not in the
                                               mechanism's output coordinates */
    unsigned char lower;                    /* exact for a post-processing of the release
                                               (a lower bound of the release's delta) */
    unsigned char bound;                    /* an upper bound no neighbour need attain (the
                                               model a release is a function of): it never
                                               shows a violation */
    unsigned char laws_block;               /* the four laws are one allocation at mu_x (a
                                               pair of dimension one: ga_pairset_add_1d) */
    unsigned char unreleased;               /* the output before a release whose laws could
                                               not be computed (s->release_note says why):
                                               an upper bound of the released pair's delta
                                               (post-processing), never a violation */
    double rel_kl[2];                       /* the laws are rounded: the exact ones are within
                                               these KL divergences (X's, Y's, per column) of
                                               them (a release, pair_release.c); 0: exact */
    double rel_eta;                         /* the rounding's relative size (an estimate) */
    double rel_d2[2];                       /* a released mean shift: its exact squared
                                               Mahalanobis distance per column, enclosed */
} ga_spec_pair;

/* Is the pair (or a block of it) the output before a release that could not be computed: an
 * upper bound of the released pair's profile (a product of such blocks: the product before
 * the releases, an upper bound too), never a violation? */
static inline int ga_spec_pair_unreleased(const ga_spec_pair *p)
{
    for (size_t b = 0; b < p->nblocks; b++)
        if (p->blocks[b].unreleased)
            return 1;
    return p->unreleased;
}

/* Is the pair given by a one-dimensional privacy loss (subsampled, masked, synthetic, ...) or a
 * supremum rather than by Gaussian laws? */
static inline int ga_spec_pair_is_loss(const ga_spec_pair *p)
{
    return p->nsub > 0 || p->masked || p->synth || p->shuffle || p->ptr || p->envelope ||
           p->alloc;
}

/* Is the pair one non-Gaussian release that neither composes with other parts nor repeats
 * (masked, synthetic, shuffled epochs, propose-test-release, a sensitivity envelope, random
 * allocation's bound)? */
static inline int ga_spec_pair_single(const ga_spec_pair *p)
{
    return p->masked || p->synth || p->shuffle || p->ptr || p->envelope || p->alloc;
}


/* Neighbour relations (doc/spec.md, neighbours). */
enum ga_relation { GA_REL_NONE = 0, GA_REL_REMOVE_ONE, GA_REL_ADD_ONE, GA_REL_ZERO_OUT,
                   GA_REL_REPLACE_ONE, GA_REL_CHANGE_LABEL };

typedef struct {
    size_t n, d;           /* rows, columns */
    double *x;             /* n * d, row-major */
    int line;              /* where the dataset is defined */
    char *source;          /* "rows" or the CSV path */
    int labels_pm1;        /* the last column holds a -1: binary labels there are read as
                              -1/1 (else 0/1) */
} ga_dataset;

#define GA_SPEC_MAX_ROWS 10000000
#define GA_SPEC_MAX_COLS 10000
#define GA_SPEC_MAX_PAIRS 2000000
#define GA_SPEC_MAX_DIM 20000
#define GA_SPEC_MAX_PAIR_BYTES ((size_t)8 << 30) /* the laws of all pairs together */
#define GA_SPEC_MAX_CSV_BYTES ((size_t)4 << 30)  /* a CSV file (read twice, in pieces) */
#define GA_SPEC_MAX_CSV_LINE ((size_t)1 << 20)   /* one CSV line */
#define GA_SPEC_MAX_ALLOW 16                      /* --allow-path directories */

/* Loading options: the file policy. A spec reads only regular files inside its own directory
 * tree (symlinks resolved, then checked) and inside the allow_paths directories
 * (--allow-path). (How the catalogue builds the pairs is its own options' business.) */
typedef struct {
    const char *const *allow_paths;   /* at most GA_SPEC_MAX_ALLOW */
    size_t nallow;
    const char *(*kind_at)(size_t i); /* the valid mechanism kinds, i = 0, 1, ... until NULL
                                         (the catalogue's table; NULL: not checked here) */
    int jobs;                         /* threads reading a CSV file (0: one per online core);
                                         the table and messages do not depend on it */
} ga_spec_opts;

/*
 * A row family: one-dimensional pairs that differ only in one number per pair, held as
 * that number instead of a record, a name and a law block each (the
 * remove-one audit of a 100,000-row sketch kept 128 + 48 + 48 bytes per row for them).
 * The catalogue's builder fills it and says how pair k reads: its four laws (mu_x, s_x,
 * mu_y, s_y) and its name are functions of v[k] and k. The family's pairs come first:
 * pair i < n of the set is family pair i, pair i >= n is pairs[i - n] (ga_pairset_pair_at).
 */
typedef struct ga_spec_family {
    size_t n;
    double *v;             /* n numbers, owned */
    const size_t *rows;    /* the spec's row selection (not owned; NULL: pair k is row k) */
    int relation;          /* enum ga_relation of the neighbours */
    double columns;        /* every pair's */
    void (*laws)(double laws[4], const struct ga_spec_family *f, size_t k);
    void (*name)(char *buf, size_t len, const struct ga_spec_family *f, size_t k);
} ga_spec_family;

/*
 * A set of neighbouring pairs: the records and a row family (pair i < fam.n is family pair
 * i, pair i >= fam.n is pairs[i - fam.n]). The catalogue's result holds, beside its pairs,
 * what the build found: the proven worst case, whether the deadline cut it short, and why
 * pairs were kept unreleased. A spec holds the pairs written in it (gaussian_pair) as one
 * too, with those fields zero.
 */
typedef struct ga_pairset {
    size_t npairs, cappairs; /* the records (ga_pairset_npairs: with the family's) */
    ga_spec_pair *pairs;
    ga_spec_family fam;    /* n > 0: the first fam.n pairs, held as a row family */
    int truncated;         /* the deadline stopped the construction of pairs */
    size_t planned;        /* pairs the relation would have produced */
    int verified;          /* the pairs include a proven worst case */
    size_t verified_pair;  /* its index (ga_pairset_pair_at) */
    int verified_bound;    /* that pair is an upper bound no single neighbour need attain (a
                              composition of worst cases, a worst case kept unreleased): it
                              proves claims, it never shows a violation */
    char verified_note[512];
    char release_note[400];/* why pairs are kept unreleased (ga_spec_pair.unreleased) */
    int release_done;      /* the kind's builder applied mechanism.release itself (sketch) */
    ga_subsampled_input *compare; /* fixed-size batches: the same training with Poisson
                              sampling at the same rates (ncompare terms, remove order; texts
                              into the doc), whose eps the report shows beside the exact one;
                              NULL: none */
    size_t ncompare;
} ga_pairset;

/* A file a spec read: the key that named it ("dataset.csv"), its path as opened, the SHA-256
 * of its bytes (the same in both passes of the CSV reader, or the file changed: an error). */
typedef struct {
    char *key, *path;
    char sha256[65];
} ga_spec_input;

typedef struct {
    ga_doc doc;
    char *path;
    const char *name;      /* into the doc */
    const char *kind;      /* mechanism kind */
    const ga_node *mechanism;
    ga_pairset written;    /* gaussian_pair: the pairs as written */
    const ga_node *claim;  /* the claim mapping (NULL: none): its keys are read by the claim
                              types (ga_spec_claim_*), in doc or in claim_doc */
    const char *claim_file;/* the name the claim's messages give (the spec's path, or "the
                              replacing claim") */
    ga_dataset data;       /* n = 0 when the kind has no dataset */
    int relation;          /* enum ga_relation */
    ga_dataset candidates; /* add_one / replace_one candidate rows */
    size_t *rows;          /* the rows whose neighbours are audited (NULL: all) */
    double label_bound;    /* change_label: a label changes by at most this (0: not given) */
    size_t nrows_sel;
    int has_universe;
    const ga_node *universe; /* its node, for messages */
    double row_norm_bound; /* universe: every row has norm <= this (0: not given) */
    double universe_label_bound; /* universe: every label has |y| <= this (0: not given) */
    double universe_max_rows;    /* universe: every dataset has at most this many rows (0: not
                                    given) */
    char digest[65];       /* SHA-256 of the bytes parsed */
    size_t ninputs;        /* the files the spec read (CSV datasets, candidates, release
                              matrices), in the order read, with their SHA-256 */
    ga_spec_input *inputs;
    ga_dataset release;    /* mechanism.release: the public matrix A (m x d; n = 0: none) */
    ga_doc *claim_doc;     /* ga_spec_set_claim: the replacing claim's own document */
    size_t nrel;           /* relative DP: the set of datasets (relative.datasets); the pairs
                              are the neighbours within it (data is then unused) */
    ga_dataset *rel_sets;
    size_t nparts;         /* composition: mechanism.parts, and each part's release */
    ga_dataset *part_release;
} ga_spec;

#define GA_SPEC_MAX_PARTS 64 /* composition parts */
#define GA_SPEC_MAX_RELATIVE 1000 /* relative DP: datasets in the set */

/* Keys every mechanism mapping accepts besides its kind's (ga_spec_check_map adds them):
 * repeat (k independent runs) and release (public linear post-processing). */
extern const char *const ga_spec_common_mech_keys[];
/* The keys of the spec language's mappings: the top level, a law (x:, y:), kind
 * gaussian_pair's mechanism (beside the common keys), a gaussian_pair pair, neighbours:,
 * universe: (NULL-terminated). */
extern const char *const ga_spec_top_keys[];
extern const char *const ga_spec_law_keys[];
extern const char *const ga_spec_pair_mech_keys[];
extern const char *const ga_spec_pair_keys[];
extern const char *const ga_spec_neighbour_keys[];
extern const char *const ga_spec_universe_keys[];
/* The name of the i-th neighbour relation (remove_one, ...), NULL past the end. */
const char *ga_spec_relation_at(size_t i);

/*
 * Load and validate a spec (text to a spec value: explicit pairs, dataset, neighbour
 * relation, universe, claims; the pairs of a catalogue kind are built by the catalogue,
 * catalogue/catalogue.h). On error returns GA_EINVAL (or GA_EIO, GA_ENOMEM) with a message
 * "FILE:LINE:COL: key.path: what is wrong" (unknown keys get a "did you mean" hint).
 */
int ga_spec_load(ga_spec *s, const char *path, char *msg, size_t msglen);
/* The same with options (the file policy). */
int ga_spec_load_opts(ga_spec *s, const char *path, const ga_spec_opts *o, char *msg,
                      size_t msglen);
/* The same from text (name is used in messages; files it names are read relative to the
 * directory of name, under the default policy; ga_spec_parse_opts with options). */
int ga_spec_parse_opts(ga_spec *s, const char *text, size_t len, const char *name,
                       const ga_spec_opts *o, char *msg, size_t msglen);
int ga_spec_parse(ga_spec *s, const char *text, size_t len, const char *name, char *msg,
                  size_t msglen);
void ga_spec_clear(ga_spec *s);

/* Append a pair (the set owns its arrays, which must be malloc'ed). */
int ga_pairset_add(ga_pairset *ps, const char *name, size_t d, double columns, double *mu_x,
                   double *s_x, double *mu_y, double *s_y);
/* Append the pair N(mu_x, s_x) vs N(mu_y, s_y) of dimension one with columns iid columns, its
 * four numbers in one allocation (a remove-one audit adds one per row). GA_OK, GA_ENOMEM, or
 * GA_EINVAL past the pair cap. */
int ga_pairset_add_1d(ga_pairset *ps, const char *name, double columns, double mu_x, double s_x,
                      double mu_y, double s_y);
/* Append the pair p under name: the set takes p's arrays and blocks (p is emptied; on an
 * error they are freed). GA_OK, GA_ENOMEM, or GA_EINVAL past the pair cap. */
int ga_pairset_add_moved(ga_pairset *ps, const char *name, ga_spec_pair *p);
/* Room for n more pairs without growing (a builder that knows its count: the array is not
 * grown by doubling past it). GA_OK or GA_ENOMEM; n is not checked against the cap. */
int ga_pairset_reserve(ga_pairset *ps, size_t n);

/* A number of the mechanism mapping: GA_OK, GA_EINVAL (message written), or -1 when it is
 * absent and not required. */
int ga_spec_mech_number(const ga_spec *s, const char *key, double *v, int required, char *msg,
                        size_t msglen);
/* A number node of the spec (its decimal text in *txt if txt), messages naming path. */
int ga_spec_number(const ga_spec *s, const ga_node *n, const char *path, double *v,
                   const char **txt, char *msg, size_t msglen);
/* The same for a key of any mapping of the mechanism (a training stage), its path in
 * messages prefix.key. */
int ga_spec_node_number(const ga_spec *s, const ga_node *map, const char *prefix,
                        const char *key, double *v, int required, char *msg, size_t msglen);

/* Error helpers for the builders: "FILE:LINE:COL: path: what" into msg; GA_EINVAL. */
int ga_spec_fail(const ga_spec *s, const ga_node *n, const char *path, char *msg, size_t msglen,
                 const char *what);
int ga_spec_check_map(const ga_spec *s, const ga_node *n, const char *path,
                      const char *const *allowed, char *msg, size_t msglen);
int ga_spec_matrix(const ga_spec *s, const ga_node *n, const char *path, size_t d, double **v,
                   char *msg, size_t msglen);
int ga_spec_vector(const ga_spec *s, const ga_node *n, const char *path, size_t want, double **v,
                   size_t *len, char *msg, size_t msglen);

/* The claim's keys, read by the claim types (verdict/claims.c); messages "FILE:LINE:COL:
 * path: what" name the claim's own file. ga_spec_claim_keys checks the mapping's keys
 * against allowed (a "did you mean" hint for a misspelt one; GA_OK without a claim);
 * ga_spec_claim_number reads a plain decimal (its text into *txt when txt is non-NULL);
 * ga_spec_claim_points a non-empty list of [a, b] points (*v malloc'ed, 2 *np numbers).
 * GA_OK, or GA_EINVAL (GA_ENOMEM) with the message. */
int ga_spec_claim_fail(const ga_spec *s, const ga_node *n, const char *path, char *msg,
                       size_t msglen, const char *what);
int ga_spec_claim_keys(const ga_spec *s, const char *const *allowed, char *msg, size_t msglen);
int ga_spec_claim_number(const ga_spec *s, const ga_node *n, const char *path, double *v,
                         const char **txt, char *msg, size_t msglen);
int ga_spec_claim_points(const ga_spec *s, const ga_node *n, const char *path, double **v,
                         size_t *np, char *msg, size_t msglen);

/* Replace the spec's claim by the YAML mapping text (as the claim: key takes it, e.g.
 * "{epsilon: 1, delta: 1e-5}"). GA_OK, or GA_EINVAL with a message naming "claim". */
int ga_spec_set_claim(ga_spec *s, const char *text, char *msg, size_t msglen);

/* Free the set's pairs and clear what the build found (the catalogue rebuilds them, e.g. for
 * calibrate); the record array is kept for reuse. */
void ga_pairset_reset(ga_pairset *ps);
/* Free everything the set holds. */
void ga_pairset_clear(ga_pairset *ps);

/* Free the dataset's values (drop_data: once a builder no longer needs them; n and d stay)
 * and return their memory to the system. */
void ga_spec_drop_data(ga_spec *s);

/* The set's pairs: the row family's (fam.n) and the records (npairs). */
size_t ga_pairset_npairs(const ga_pairset *ps);
/* Pair i < ga_pairset_npairs(ps): its record, or a family pair written into *b (valid while
 * ps and *b are). A family pair's name is written too when `named` (messages that name the
 * pair's fields), NULL otherwise (writing it costs a formatted print per use). */
#define GA_SPEC_NAME_LEN 128
typedef struct {
    ga_spec_pair p;
    double laws[4];
    char name[GA_SPEC_NAME_LEN];
} ga_spec_pair_buf;
const ga_spec_pair *ga_pairset_pair_at(const ga_pairset *ps, size_t i, ga_spec_pair_buf *b,
                                       int named);
/* Whether pair i is a bound no neighbour need attain (its record's `bound`; a family pair is
 * a neighbour's own): what ga_pairset_pair_at(...)->bound says, without building the pair */
int ga_pairset_pair_bound(const ga_pairset *ps, size_t i);
/* Whether pair i is kept unreleased (ga_spec_pair_unreleased of its record; a family pair is
 * not), without building the pair */
int ga_pairset_pair_unreleased(const ga_pairset *ps, size_t i);
/* Pair i's name: its record's ("" when it has none), or a family pair's written into buf
 * (GA_SPEC_NAME_LEN bytes are enough). */
const char *ga_pairset_pair_name(const ga_pairset *ps, size_t i, char *buf, size_t len);

/* Input for ga_pair_reduce from a plain spec pair (field labels point into the pair). */
void ga_spec_pair_input(ga_pair_input *in, const ga_spec_pair *p, char labels[4][200]);

/* Append a product pair of n blocks (composition); the set takes the blocks (an array of n
 * pairs, malloc'ed, each owning its arrays) whatever the return. GA_OK, GA_ENOMEM, or
 * GA_EINVAL past the pair cap. */
int ga_pairset_add_product(ga_pairset *ps, const char *name, ga_spec_pair *blocks, size_t n);
/* Replace a plain pair's laws (the pair takes the arrays; its decimal text is dropped: the
 * new laws are exact as doubles). */
void ga_spec_pair_set_laws(ga_spec_pair *p, size_t d, double *mu_x, double *s_x, double *mu_y,
                           double *s_y);
/* The list law w of p was read from (w = 0 mu_x, 1 mu_y, 2 s_x, 3 s_y; a matrix is a list of
 * rows), NULL when its doubles are exact. */
const ga_node *ga_spec_pair_src(const ga_spec_pair *p, int w);
/* Free one pair's arrays and blocks (not the pair itself). */
void ga_spec_pair_free(ga_spec_pair *p);

/* The inputs of a spec pair for the pair library, one per block (a plain pair is one
 * block): in[b] with its field labels, txt[b] its exact decimal text. Use in place (it may
 * point into itself); clear with ga_spec_pair_view_clear. With text = 0 the texts are left
 * NULL (for the floating-point paths: writing them costs time and memory); the certified
 * paths need text = 1. */
typedef struct {
    size_t n;
    ga_pair_input *in;
    ga_pair_text *txt;
    char (*labels)[4][200];
    ga_pair_input in1;
    ga_pair_text txt1;
    char labels1[4][200];
    void **owned;   /* the text arrays written for the view */
    size_t nowned;
} ga_spec_pair_view;
int ga_spec_pair_view_init(ga_spec_pair_view *v, const ga_spec_pair *p, int text); /* GA_OK, GA_ENOMEM */
void ga_spec_pair_view_clear(ga_spec_pair_view *v);

#endif

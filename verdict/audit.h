/*
 * audit.h - the audit of a spec's claims (verdicts, tightness, witnesses) and the data the
 * report writers (reports/) need. Internal to the tool.
 */
#ifndef GA_VERDICT_AUDIT_H
#define GA_VERDICT_AUDIT_H

#include "gaussaudit.h"
#include "specs/spec.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>


enum ga_claim_type { GA_CLAIM_DP = 0, GA_CLAIM_RDP, GA_CLAIM_ZCDP, GA_CLAIM_GDP, GA_NCLAIM_TYPES };

/* A claim type's name in JSON (its row's; NULL for a type not in the table) */
const char *ga_claim_type_name(int type);

typedef struct {
    int type;              /* enum ga_claim_type */
    int relative;          /* relative DP: claimed over the neighbours within a set of datasets */
    double eps, delta;     /* DP: (eps, delta) */
    const char *eps_txt, *delta_txt; /* the (eps, delta) claim as written (NULL: other claims) */
    double alpha, eps_a;   /* RDP: (alpha, eps_alpha); zCDP: rho in eps_a; GDP: mu in eps_a */
    /* DP: the claim's scope (claim.direction, claim.pair): the direction it is about (0 both,
     * 1 delta_XY only, 2 delta_YX only) and the one listed pair it is about ("" every pair);
     * a claim about one pair is decided by that pair's certified interval: VERIFIED there */
    int scope_dir;
    char scope_pair[GA_SPEC_NAME_LEN];
    int verdict;
    char reason[1024];
    /* DP: the worst pair and direction (1 = xy, 2 = yx) at the claimed eps */
    size_t worst_pair;
    int worst_dir;
    char worst_name[GA_SPEC_NAME_LEN]; /* its name when it is a row family's (worst_named) */
    int worst_named;
    ga_result exact;       /* exact delta (DP), D_alpha (RDP), max D_alpha/alpha (zCDP),
                              max delta - delta_mu (GDP) of the worst pair */
    int certified;         /* the decisive value has a certified interval */
    double cert_lo, cert_hi;
    char cert_lo_dec[80], cert_hi_dec[80]; /* DP: the same bounds as outward decimals, which
                                              reach below the double range ("" if none) */
    ga_result eps_at_delta;/* DP: smallest eps with delta <= claimed delta (overall) */
    double rdp_eps;        /* DP, subsampled pairs: what an RDP accountant reports at the
                              claimed delta (ga_pair_rdp_accountant; 0 when not applicable) */
    int rdp_order;
    double pld_eps;        /* DP, subsampled pairs: what a PLD accountant (connect the dots, grid
                              1e-4) reports (ga_pair_pld_accountant; 0 when not applicable) */
    ga_result poisson_eps; /* DP, fixed-size batches: the exact eps at the claimed delta of
                              the same training with Poisson sampling at the same rates (what
                              a Poisson accountant reports at best); val 0: not applicable */
    double slack;          /* DP: claimed delta / exact delta; RDP: claimed / exact */
    double witness_px, witness_py; /* DP: P_X[S], P_Y[S] of the distinguishing event */
    char witness[1200];    /* DP: the event in the pair's coordinates */
    /* the event as data (witness_d > 0): S = {x : sum over the columns of (x^T A x + b^T x +
     * c) > threshold} (relation +1) or < threshold (-1), A d x d row-major */
    size_t witness_d;
    double witness_A[16], witness_b[4], witness_c, witness_threshold, witness_columns;
    int witness_rel;
    double at;             /* zCDP: alpha of the maximum; GDP: eps of the maximum */
    int bound;             /* DP: the worst pair is an upper bound no neighbour need attain
                              (set.verified_bound): exact is the bound's value, not the
                              release's */
    int lower;             /* DP: the worst pair is exact for a post-processing of the
                              release only (ga_spec_pair.lower): exact is a lower bound */
    int has_attained;      /* DP, the worst pair an upper bound (bound): the attained pair
                              with the largest delta, its delta at eps and its smallest eps at
                              the claimed delta (attained_eps.val NaN: failed), so that the
                              report states the bracket [attained, bound] of the value */
    ga_result attained_delta, attained_eps;
    int evaluated;         /* the claim was evaluated (0: the deadline came first) */
    double seconds;        /* wall time of its evaluation */
} ga_claim_result;

/* The claim as text into b ("(1, 1e-05)-DP", "RDP: D_2 <= 0.5", "0.5-zCDP", "1-GDP"; "?" for a
 * type not in the table). */
void ga_claim_text(char *b, size_t n, const ga_claim_result *r);
/* A claim the deadline left: INCONCLUSIVE with no number, the reason "not evaluated: why". */
void ga_claim_not_evaluated(ga_claim_result *r, const char *why);

/* ------------------------------------------------------------ shard and merge
 *
 * The record book (verdict/shard.c): the per-pair evaluations an audit's decisions read (the
 * estimates of delta and of the Renyi divergences, the certified intervals, the certified
 * Mahalanobis distances) and the per-shard scans of the GDP/zCDP grids. `audit --shard I/N`
 * evaluates the pairs i with i mod N = I - 1 and records them (mode RECORD) into a partial
 * result; `merge` rebuilds and reduces the pairs, loads every part's records and runs the
 * audit's decisions with the evaluations read from the book (mode REPLAY; anything not
 * recorded, such as the witness and the plots of the few pairs they concern, is computed),
 * so that the merged report is the one a single run writes. */
enum ga_rec_type { GA_REC_EST = 1, GA_REC_CERT, GA_REC_RENYI, GA_REC_CERT_RENYI, GA_REC_MAHA,
                   GA_REC_GRID, GA_NREC };
enum ga_rec_mode { GA_REC_OFF = 0, GA_REC_RECORD, GA_REC_REPLAY };

typedef struct {
    int type;              /* enum ga_rec_type */
    size_t pair;           /* the pair (GA_REC_GRID: the claim's index) */
    double key;            /* eps or alpha (GA_REC_CERT: 0, the eps as text in key_txt) */
    char key_txt[40];
    int status;
    double v[8];           /* the values (see audit.c, rec_* helpers) */
    long bits;             /* certified: the precision used */
    char dec[4][80];       /* certified delta: the outward decimals */
} ga_rec;

typedef struct {
    int mode;              /* enum ga_rec_mode */
    ga_rec *r;
    size_t n, cap;
    size_t *slot, nslot;   /* open addressing: index + 1, 0 empty */
    void *lock;            /* a pthread mutex (RECORD: items record from several threads) */
    size_t shard, nshards; /* RECORD: this shard (1-based) of nshards; REPLAY: nshards */
    int failed;            /* RECORD: a record could not be stored (no memory) */
} ga_recbook;

/* Start an empty book in mode (GA_OK or GA_ENOMEM); find the record (type, pair, key,
 * key_txt) or NULL; add one (a copy; GA_OK or GA_ENOMEM, which also sets b->failed); clear
 * the book. Finding is safe on any thread while nobody adds; adding takes the book's lock. */
int ga_rec_begin(ga_recbook *b, int mode);
const ga_rec *ga_rec_find(const ga_recbook *b, int type, size_t pair, double key,
                          const char *key_txt);
int ga_rec_add(ga_recbook *b, const ga_rec *r);
/* The records in the key's order (type, pair, key, key text): the book holds them in the
 * order they were added, which varies from run to run when several threads record. A
 * malloc'd array of b->n pointers into the book (the caller frees it), or NULL without
 * memory. */
const ga_rec **ga_rec_sorted(const ga_recbook *b);
void ga_rec_clear(ga_recbook *b);

/* A partial result's header (and its records, into a book): GA_OK, GA_EIO, GA_EINVAL (a
 * message naming the file and the field) or GA_ENOMEM. ga_partial_head_clear frees what a
 * read left in h (also after a failed read). */
typedef struct {
    char spec[4096], digest[65];
    size_t shard, nshards, npairs, nclaims;
    int certified, incomplete, has_claim;
    char claim[1024];
    size_t ninputs;         /* the files the shard's spec read, with their SHA-256 */
    ga_spec_input *inputs;
} ga_partial_head;
int ga_partial_read(ga_partial_head *h, ga_recbook *b, const char *path, char *msg, size_t msglen);
void ga_partial_head_clear(ga_partial_head *h);
/* The digest a partial result carries over what it says (records_sha256): the spec's digest,
 * the shard, the files read and every record, in a canonical form (a part edited or
 * corrupted after it was written does not match it). */
void ga_partial_digest(char out[65], const char *spec_digest, size_t shard, size_t nshards,
                       const ga_spec_input *in, size_t nin, const ga_rec *const *recs, size_t n);
/* Do two lists of files read agree (the same keys in the same order, the same SHA-256)? NULL,
 * or the first input of a that differs (a's count beyond b's included), *bi its index in b
 * (b->n when b has no such key). */
const ga_spec_input *ga_inputs_differ(const ga_spec_input *a, size_t na, const ga_spec_input *b,
                                      size_t nb, size_t *bi);

#define GA_PLOT_PAIRS 3
#define GA_PLOT_POINTS 120
#define GA_PLOT_EPSREL 1e-3 /* the plots' values: relative accuracy asked (a curve, not a verdict) */

/* a pair's certified intervals at the table's eps */
typedef struct {
    size_t pair;
    ga_interval xy, yx;
} ga_pair_cert;

typedef struct ga_audit_watch ga_audit_watch;

/* the methods a report names at most: one per pair family */
#define GA_AUDIT_METHODS 4

typedef struct {
    ga_spec spec;          /* what was parsed */
    ga_pairset set;        /* the pairs built from it (the catalogue's result) */
    const char *methods[GA_AUDIT_METHODS]; /* how the values are computed: the methods of
                              each one-dimensional loss family among the pairs (their type
                              rows' static texts, in pair order, NULL after the last), else
                              the Gaussian pairs' alone (ga_pair_methods) */
    ga_audit_watch *watch; /* where the audit publishes its progress (NULL: nowhere) */
    long long started;     /* time(NULL) when the audit began (JUnit timestamp) */
    double seconds;        /* wall time of the whole audit */
    ga_pair **pairs;       /* pair i reduced; NULL where rebuilt[i] (or not audited) */
    unsigned char *rebuilt;/* 1: pair i reduced without error, not kept, reduced again
                              where used (a pair of one-dimensional laws or a product of
                              them: microseconds to rebuild, about 0.5 KB to keep) */
    size_t npairs;
    ga_claim_result *claims;
    size_t nclaims;
    int overall;           /* enum ga_verdict: the worst over claims */
    double table_eps;      /* eps of the per-pair table (first DP claim; NAN if none) */
    double *pair_xy, *pair_yx, *pair_xy_err, *pair_yx_err; /* per pair at table_eps */
    int table_done;        /* pair_xy... were filled while the pairs were reduced */
    ga_pair_cert *pair_cert;  /* certified at table_eps, by pair (few: the pairs a decision
                                 certified; ga_audit_pair_cert reads them) */
    size_t npair_cert, cap_pair_cert;
    double cert_seconds;   /* wall time spent in certified evaluations */
    size_t nplot;          /* profile plots */
    size_t plot_pair[GA_PLOT_PAIRS];
    double plot_eps[GA_PLOT_POINTS];
    double plot_xy[GA_PLOT_PAIRS][GA_PLOT_POINTS], plot_yx[GA_PLOT_PAIRS][GA_PLOT_POINTS];
    int have_renyi;        /* Renyi curve of the worst pair (RDP or zCDP claims) */
    size_t renyi_pair;
    double renyi_alpha[60], renyi_xy[60], renyi_yx[60];
    char digest[65];       /* SHA-256 of the spec bytes parsed */
    int certified_mode;    /* --certified was asked */
    long max_bits;         /* highest working precision used by certified evaluations */
    size_t ncertified;     /* certified evaluations made */
    double deadline;       /* --timeout: monotonic seconds (0: none) */
    int timed_out;         /* the deadline passed: claims not yet evaluated are INCONCLUSIVE */
    int incomplete;        /* timed out, or only some neighbouring pairs were built (the
                              build gets half the budget; the pairs built are evaluated):
                              claims other than violations are INCONCLUSIVE */
    char timeout_note[400];
    ga_recbook book;       /* shard (RECORD) or merge (REPLAY); GA_REC_OFF otherwise */
    size_t *slice, nslice; /* RECORD: the shard's pairs, in order */
    char *claim_override;  /* the --claim text the audit ran with (NULL: none) */
    int jobs;              /* the threads it ran on (its reports are formatted on them too) */
} ga_audit;

typedef struct {
    int certified;         /* certify every decision (up to 200 pairs) */
    int quiet;             /* no progress on stderr */
    FILE *progress;        /* stderr, or NULL */
    double timeout;        /* seconds (0: no limit) */
    const char *const *allow_paths; /* --allow-path: more directories a spec may read */
    size_t nallow;
    const char *claim;     /* a YAML mapping replacing the spec's claim (NULL: none) */
    int jobs;              /* threads for the pairs (<= 1: the calling thread only) */
    size_t shard, nshards; /* --shard I/N: evaluate and record pairs i = I - 1 mod N only
                              (0: the whole audit) */
    size_t fail_pair;      /* tests: the double evaluation of pair fail_pair (1-based) fails */
    size_t fail_cert;      /* tests: the certified evaluation of pair fail_cert fails */
    int fail_cert_status;  /* tests: with that status (0: GA_EDOM) */
    int keep_pairs;        /* tests: keep every reduced pair (none is rebuilt where used) */
    ga_audit_watch *watch; /* publish the progress there (NULL: nowhere) */
} ga_audit_opts;

/* The table of claim types (verdict/claims.c), one row each: how a claim of the type is
 * read, evaluated, written and shown. The reports and the pipeline read a claim through its
 * row, never by its type: a new claim type is a row and its evaluator.
 *   name        its "type" in JSON
 *   keys        the keys of the spec's claim mapping it reads (up to three)
 *   parse       its claims from those keys, appended to a list in the spec's order
 *               (ga_claim_list_add); GA_OK or GA_EINVAL/GA_ENOMEM with a message naming the key
 *   shard       a shard's evaluations for claim ci (audit --shard: the records the merge's
 *               decision reads; NULL: none)
 *   params      its numbers as the spec gave them, under the JSON keys param_keys (one or two)
 *   ref         the claimed number the exact value is compared with (digits that decide)
 *   text        the claim as written ("(1, 1e-05)-DP")
 *   tightness   the exact value against the claim, for an evaluated claim
 *   profile     decided on delta(eps): a witness event, eps at delta, accountants' eps and the
 *               kind of value (exact, or a bound) are reported
 *   has_at      the worst value's argument is reported ("at": an order or an eps)
 *   plot        how the HTML report marks it (enum ga_claim_plot)
 *   renyi       the Renyi plot shows the pair that decides it
 *   shape       what each key holds (the JSON Schema of the spec language) */
enum ga_claim_plot {
    GA_CLAIM_PLOT_NONE,
    GA_CLAIM_PLOT_PROFILE_POINT, /* a marker (params[0], params[1]) on the privacy profile */
    GA_CLAIM_PLOT_PROFILE_GDP,   /* the mu-GDP curve (mu = params[0]) on the privacy profile
                                    and the trade-off plot */
    GA_CLAIM_PLOT_RENYI_POINT    /* a marker (params[0], params[1]) on the Renyi plot */
};
typedef struct ga_claim_list {
    ga_claim_result *c;
    size_t n, cap;
} ga_claim_list;
typedef struct vd_shard_buf vd_shard_buf;
#define GA_CLAIM_KEYS 5 /* the most keys of one claim type */
typedef struct {
    int type;
    const char *name;
    const char *keys[GA_CLAIM_KEYS];
    int (*parse)(ga_claim_list *l, const ga_spec *s, char *msg, size_t msglen);
    const char *param_keys[2];
    void (*eval)(ga_audit *a, ga_claim_result *r, const char *eps_txt, const ga_audit_opts *o,
                 ga_gchisq_work *w);
    void (*shard)(ga_audit *a, size_t ci, const ga_audit_opts *o, vd_shard_buf *b,
                  ga_gchisq_work *w);
    void (*params)(double v[2], const ga_claim_result *r);
    double (*ref)(const ga_claim_result *r);
    void (*text)(char *b, size_t n, const ga_claim_result *r);
    void (*tightness)(char *b, size_t n, const ga_claim_result *r);
    int profile, has_at, plot, renyi;
    int shape[GA_CLAIM_KEYS]; /* what each key holds (enum ga_claim_shape), for the JSON Schema */
} ga_claim_row;
/* what a claim key holds */
enum ga_claim_shape {
    GA_SHAPE_NONE,
    GA_SHAPE_NONNEG,    /* a number >= 0 (epsilon) */
    GA_SHAPE_PROB,      /* a number in [0, 1) (delta) */
    GA_SHAPE_POSITIVE,  /* a number > 0 (rho, mu) */
    GA_SHAPE_POINTS,    /* a non-empty list of [x, y] pairs of numbers (profile, rdp) */
    GA_SHAPE_DIRECTION, /* "xy" or "yx" (direction) */
    GA_SHAPE_NAME       /* a pair's name (pair) */
};
/* row i of the claim table (NULL past the end) */
const ga_claim_row *ga_claim_row_at(size_t i);

/* Append a claim of the given type (its other fields zero) to l: its address, or NULL (no
 * memory). */
ga_claim_result *ga_claim_list_add(ga_claim_list *l, int type);
/* The claims of the spec's claim mapping, every row's, in the table's order (l empty before;
 * free l->c). The mapping's keys are checked against the rows' ("did you mean"). GA_OK (no
 * claim: none), or GA_EINVAL/GA_ENOMEM with a message "FILE:LINE:COL: claim.KEY: ...". */
int ga_claim_list_parse(ga_claim_list *l, const ga_spec *s, char *msg, size_t msglen);
/* The eps of the claims decided on the privacy profile (the rows with profile), in order, at
 * most max: where the catalogue seeks worst cases (ga_build_opts.eps). Returns how many. */
size_t ga_claim_list_eps(double *eps, size_t max, const ga_claim_list *l);

/* The row of a claim type; for a type not in the table a row that says "?" and shows
 * nothing (name NULL, no evaluator): never another type's. */
const ga_claim_row *ga_claim_row_of(int type);

/* Run the audit of a loaded spec file. Returns GA_OK (verdicts in a), GA_EINVAL (message in
 * msg, e.g. the spec has no claim), or GA_ENOMEM. */
int ga_audit_run(ga_audit *a, const char *path, const ga_audit_opts *o, char *msg, size_t msglen);
/* The same from spec text (name for messages and the directory of the files it names). */
int ga_audit_run_text(ga_audit *a, const char *text, size_t len, const char *name,
                      const ga_audit_opts *o, char *msg, size_t msglen);

/* The merge of partial results (audit --shard) named by parts: reads and checks them (one
 * spec, the same bytes, every shard once, the same options), loads the spec (spec_path, or
 * the path recorded in the parts), and runs the audit with the recorded evaluations.
 * Returns GA_OK (verdicts in a), GA_EIO or GA_EINVAL (message in msg), GA_ENOMEM. */
int ga_audit_merge_run(ga_audit *a, const char *const *parts, size_t nparts,
                       const char *spec_path, const ga_audit_opts *o, char *msg, size_t msglen);
/* ------------------------------------------------------------ the watch (verdict/watch.c)
 *
 * A caller that cannot wait for an audit to return (the CLI when a step that cannot be
 * interrupted, one Arb quadrature or one factorisation, outlasts the time budget) reports
 * from a watch instead. The audit publishes into it under its lock: the spec once parsed and
 * again once its pairs are built, each claim once decided, the stage it is in. The caller
 * seals the watch (takes the lock for good): the audit then stops at its next publication,
 * before it frees anything the snapshot points into, and the report made from the snapshot
 * has the claims decided so far and every other claim INCONCLUSIVE with the stage it ended
 * in. */
struct ga_audit_watch {
    pthread_mutex_t lock;
    int have_spec;         /* spec and claims hold a snapshot */
    int built;             /* the pairs were built (the snapshot's pairs are the audit's) */
    ga_spec spec;          /* a shallow copy of the audit's spec: its pointers are the audit's,
                              but for inputs (the watch's copy, ninputs of them) */
    ga_pairset set;        /* a shallow copy of the audit's pairs, once built */
    ga_spec_input *inputs;
    size_t ninputs;
    ga_claim_result *claims; /* copies, nclaims (malloc'ed, the watch's) */
    size_t nclaims, cap;
    char digest[65];
    int certified_mode, incomplete;
    char timeout_note[400];
    char stage[160];       /* "building the pairs", "evaluating claim 2 of 3", ... */
    double t0;             /* monotonic seconds when the audit began */
    long long started;
    double table_eps;
    const char *methods[GA_AUDIT_METHODS]; /* the audit's (static texts) */
};
/* GA_OK or GA_ENOMEM (no lock); ga_audit_watch_clear frees what a watch holds (not sealed). */
int ga_audit_watch_init(ga_audit_watch *w);
void ga_audit_watch_clear(ga_audit_watch *w);
/* The audit's publications (audit.c; no-ops when w is NULL): the spec and the claim list
 * (built: after the pairs were built); claim i decided; the stage; the audit is about to
 * free its spec (the snapshot is dropped). */
void ga_audit_watch_spec(ga_audit_watch *w, const ga_audit *a, int built);
void ga_audit_watch_claim(ga_audit_watch *w, const ga_audit *a, size_t i);
void ga_audit_watch_stage(ga_audit_watch *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ga_audit_watch_leave(ga_audit_watch *w);
/* Take the watch's lock and keep it: the audit publishes nothing more and frees nothing the
 * snapshot uses. Then ga_audit_watch_report: the report of the snapshot (path names the spec
 * when it was not parsed yet), or NULL without memory. The result shares the audit's memory:
 * it is for a process about to end, and is never freed. */
void ga_audit_watch_seal(ga_audit_watch *w);
ga_audit_result *ga_audit_watch_report(ga_audit_watch *w, const char *path);
/* ga_audit_spec_file publishing into w */
int ga_audit_spec_file_watched(ga_audit_result **out, const char *path,
                               const ga_audit_options *opts, ga_audit_watch *w, char *msg,
                               size_t msglen);

/* the public pipeline's result (gaussaudit.h): an audit */
struct ga_audit_result {
    ga_audit a;
};
void ga_audit_clear(ga_audit *a);
/* Pair i's certified intervals at the table's eps into xy and yx; lo > hi (none) when no
 * decision certified it there. */
void ga_audit_pair_cert(const ga_audit *a, size_t i, ga_interval *xy, ga_interval *yx);
/* Pair i's name: its record's, or a row family's written into buf; "" when i is not a pair
 * (the audit stopped before any pair existed). */
const char *ga_audit_pair_name(const ga_audit *a, size_t i, char buf[GA_SPEC_NAME_LEN]);

#endif

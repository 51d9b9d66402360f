/*
 * audit.h - the audit of a spec's claims (verdicts, tightness, witnesses) and the data the
 * report writers (reports/) need. Internal to the tool.
 */
#ifndef GA_AUDIT_AUDIT_H
#define GA_AUDIT_AUDIT_H

#include "gaussaudit.h"
#include "specs/spec.h"

#include <stddef.h>
#include <stdio.h>


enum ga_claim_type { GA_CLAIM_DP = 0, GA_CLAIM_RDP, GA_CLAIM_ZCDP, GA_CLAIM_GDP, GA_NCLAIM_TYPES };

/* The table of claim types (audit/audit.c), one row each: its name in JSON and the wording
 * of the claim in reports; NULL for a type that is not in the table (never another type). */
const char *ga_claim_type_name(int type);

typedef struct {
    int type;              /* enum ga_claim_type */
    int relative;          /* relative DP: claimed over the neighbours within a set of datasets */
    double eps, delta;     /* DP: (eps, delta); GDP: mu in eps */
    const char *eps_txt, *delta_txt; /* the (eps, delta) claim as written (NULL: other claims) */
    double alpha, eps_a;   /* RDP point; zCDP: rho in eps_a */
    int verdict;
    char reason[1024];
    /* DP: the worst pair and direction (1 = xy, 2 = yx) at the claimed eps */
    size_t worst_pair;
    int worst_dir;
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
                              (spec.verified_bound): exact is the bound's value, not the
                              release's */
    int lower;             /* DP: the worst pair is exact for a post-processing of the
                              release only (ga_spec_pair.lower): exact is a lower bound */
    int evaluated;         /* the claim was evaluated (0: the deadline came first) */
    double seconds;        /* wall time of its evaluation */
} ga_claim_result;

/* The claim as text into b ("(1, 1e-05)-DP", "RDP: D_2 <= 0.5", "0.5-zCDP", "1-GDP"; "?" for a
 * type not in the table). */
void ga_claim_text(char *b, size_t n, const ga_claim_result *r);

#define GA_PLOT_PAIRS 3
#define GA_PLOT_POINTS 120

typedef struct {
    ga_spec spec;
    long long started;     /* time(NULL) when the audit began (JUnit timestamp) */
    double seconds;        /* wall time of the whole audit */
    ga_pair **pairs;
    size_t npairs;
    ga_claim_result *claims;
    size_t nclaims;
    int overall;           /* enum ga_verdict: the worst over claims */
    double table_eps;      /* eps of the per-pair table (first DP claim; NAN if none) */
    double *pair_xy, *pair_yx, *pair_xy_err, *pair_yx_err; /* per pair at table_eps */
    ga_interval *pair_cert_xy, *pair_cert_yx; /* certified at table_eps (NULL until a pair is;
                                                 lo > hi: not certified) */
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
} ga_audit;

typedef struct {
    int certified;         /* certify every decision (up to 200 pairs) */
    int quiet;             /* no progress on stderr */
    FILE *progress;        /* stderr, or NULL */
    double timeout;        /* seconds (0: no limit) */
    const char *const *allow_paths; /* --allow-path: more directories a spec may read */
    size_t nallow;
    const char *claim;     /* a YAML mapping replacing the spec's claim (NULL: none) */
    size_t fail_pair;      /* tests: the double evaluation of pair fail_pair (1-based) fails */
    size_t fail_cert;      /* tests: the certified evaluation of pair fail_cert fails */
} ga_audit_opts;

/* Run the audit of a loaded spec file. Returns GA_OK (verdicts in a), GA_EINVAL (message in
 * msg, e.g. the spec has no claim), or GA_ENOMEM. */
int ga_audit_run(ga_audit *a, const char *path, const ga_audit_opts *o, char *msg, size_t msglen);
/* The same from spec text (name for messages and the directory of the files it names). */
int ga_audit_run_text(ga_audit *a, const char *text, size_t len, const char *name,
                      const ga_audit_opts *o, char *msg, size_t msglen);

/* the public pipeline's result (gaussaudit.h): an audit */
struct ga_audit_result {
    ga_audit a;
};
void ga_audit_clear(ga_audit *a);

#endif

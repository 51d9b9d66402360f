/*
 * internal.h - what the files of the verdict layer share, not seen above it: the audit's
 * view of its pairs (pairs.c: parallel loops, estimates, certified values), the claim table
 * (claims.c), the evaluators of each claim type (dp.c, renyi.c) and witnesses (witness.c).
 * The pipeline that runs them is audit.c. Names shared between these files carry the vd_
 * prefix.
 */
#ifndef GA_VERDICT_INTERNAL_H
#define GA_VERDICT_INTERNAL_H

#include "verdict/audit.h"
#include "catalogue/catalogue.h"
#include "pair/loss.h"
#include "pair/pair.h"
#include "numerics/arb.h"

#include <stdatomic.h>

#define GA_AUDIT_CERT_CAP 200

#define GA_AUDIT_EPS_PAIRS 5

/* has the --timeout deadline passed? (remembered once it has) */
int vd_expired(ga_audit *a, const char *where, size_t done, size_t total);

int vd_claim_row(int type);

/* evaluate claim r by its row (the type is in the table: vd_claim_row(r->type) >= 0) */
void vd_claim_eval(ga_audit *a, ga_claim_result *r, const char *eps_txt,
                   const ga_audit_opts *o, ga_gchisq_work *w);

/* ------------------------------------------------------------ parallel pair loops
 *
 * The pairs are independent: their reductions, estimates and certified intervals run on
 * o->jobs threads (ga_par_for, numerics/par.c), each item writing its own slots of the
 * arrays below; every decision that reads several pairs (the worst pair, the first
 * violation, the certification cap, the deadline's note) is then taken in pair order on the
 * calling thread, so the report does not depend on the number of threads. */
typedef struct {
    ga_audit *a;
    const ga_audit_opts *o;
    const char *what;            /* progress label */
    size_t n;                    /* items */
    atomic_size_t ndone;
    double eps;                  /* estimates: at this eps */
    double *xy, *yx, *exy, *eyx; /* estimates: per item (pair) */
    int *st;                     /* reductions, certified values: status per item */
    const size_t *idx;           /* the pair of item j (NULL: item j is pair j) */
    const char *eps_txt;
    ga_delta_cert *cert;         /* certified values: per item */
    double *secs;                /* certified values: wall time per item */
} pair_loop;

/* spec pair i: its record, or a row family's written into *b */
const ga_spec_pair *vd_spair(const ga_audit *a, size_t i, ga_spec_pair_buf *b);

/* Pair i reduced, for reading (safe on any thread): the audit's own, or (rebuilt[i]) a pair
 * reduced again for this use in *own, which the caller frees (ga_pair_free; NULL when the
 * audit's own was returned). NULL: no memory for the rebuild, or pair i is not audited. */
const ga_pair *vd_pair_use(const ga_audit *a, size_t i, ga_pair **own);

void vd_tick(pair_loop *l);

/* run fn on the n items of l, done[j] set for each item run (the others: the deadline) */
int vd_pair_loop_run(pair_loop *l, ga_par_fn fn, size_t n, const char *what,
                     unsigned char *done, ga_gchisq_work *w);

/* a certified bound in a message: 10 significant digits rounded outward (base/format.c)
 * into the caller's buffer b (32 bytes) */
const char *vd_bnd(char *b, double v, int upper);

/* a certified bound compared with the claim ref: outward, with the digits that keep it on
 * its side of the claim (at least 10) */
const char *vd_bnd_vs(char *b, double v, int upper, double ref);

/* a claimed number as written (shortest round trip) */
const char *vd_num(char *b, double v);

/* the double path's options: the defaults, and --timeout's deadline (a long evaluation stops
 * there without a value) */
ga_gchisq_opts vd_gopts(const ga_audit *a);

/* the estimates of pair i (reduced: NULL, or the pair in hand) at l->eps into l's arrays */
void vd_est_store(pair_loop *l, size_t i, const ga_pair *reduced, ga_gchisq_work *w);

/* the estimates at eps of the pairs idx[0..nidx) (idx NULL: of every pair) into xy, yx, exy,
 * eyx, indexed by pair (pairs the deadline left: 0) */
void vd_est_some(ga_audit *a, const ga_audit_opts *o, double eps, double *xy, double *yx,
                 double *exy, double *eyx, const char *where, const size_t *idx, size_t nidx,
                 ga_gchisq_work *w);

void vd_est_all(ga_audit *a, const ga_audit_opts *o, double eps, double *xy, double *yx,
                double *exy, double *eyx, const char *where, ga_gchisq_work *w);

/* the Renyi divergences at alpha of the pairs idx[0..nidx) (idx NULL: of every pair),
 * indexed by pair, status per pair in st (pairs the deadline left: NaN, status GA_ETIME) */
void vd_renyi_some(ga_audit *a, const ga_audit_opts *o, double alpha, double *xy, double *yx,
                   double *exy, double *eyx, int *st, const size_t *idx, size_t nidx,
                   ga_gchisq_work *w);

void vd_renyi_all(ga_audit *a, const ga_audit_opts *o, double alpha, double *xy, double *yx,
                  double *exy, double *eyx, int *st, ga_gchisq_work *w);

double vd_built_margin(const ga_audit *a, size_t i);

/* The family of pair i when its Renyi divergences are not computed (ga_pair_no_renyi,
 * copied into fam), else NULL; *lower: the pair is a lower bound, which a Renyi claim may
 * leave out (without it the claim's lower bounds are weaker, never wrong). */
const char *vd_no_renyi(const ga_audit *a, size_t i, char *fam, size_t famlen, int *lower);

/* Is pair i a law some neighbour has? Not the proven worst case when it is only a bound
 * (set.verified_bound): a certified value of it above a claim shows no violation. */
int vd_attained(const ga_audit *a, size_t i);

/* the options of every certified evaluation of an audit: the defaults, and --timeout's
 * deadline, which reaches into the escalation and the integrand */
ga_cert_opts vd_cert_opts(const ga_audit *a);

/* the claim's certified bounds as decimals too (from direction xy where lo_xy/hi_xy, else
 * yx): they reach below the double range, where the doubles are 0 */
void vd_cert_decimals(ga_claim_result *r, const ga_delta_cert *c, int lo_xy, int hi_xy);

/* keep pair i's certified intervals at the table eps for the reports (a list by pair: only
 * the few pairs certified take room; none kept when there is no memory for it) */
void vd_store_pair_cert(ga_audit *a, size_t i, const ga_delta_cert *c);

/* the certified evaluation itself (reads a only: safe on any thread); its wall time */
int vd_cert_delta_eval(ga_audit *a, size_t i, const char *eps, ga_delta_cert *c,
                       double *seconds);

/* the audit's account of a certified evaluation (calling thread) */
void vd_cert_account(ga_audit *a, const ga_delta_cert *c, double seconds);

/* certified delta in both directions at eps (exact text) for pair i, accounted */
int vd_cert_delta(ga_audit *a, size_t i, const char *eps, ga_delta_cert *c);

/* the certified deltas at eps_txt of the pairs sel[0..ns) on o->jobs threads, item j into
 * certs[j], cst[j], csec[j]; cdone[j] set for each item run (none when the deadline has
 * passed before the first) */
void vd_cert_selected(ga_audit *a, const ga_audit_opts *o, const size_t *sel, size_t ns,
                      const char *eps_txt, ga_delta_cert *certs, int *cst, double *csec,
                      unsigned char *cdone, ga_gchisq_work *w);

/* A DP claim's scope (claim.pair, claim.direction): the index of the one pair it is about
 * (VD_ALL_PAIRS: every pair; VD_NO_PAIR: no listed pair has that name), and whether
 * direction dir (1 delta_XY, 2 delta_YX) of pair i counts for it. */
#define VD_ALL_PAIRS ((size_t)-1)
#define VD_NO_PAIR ((size_t)-2)
size_t vd_dp_scope_index(const ga_audit *a, const ga_claim_result *r);
static inline int vd_dp_counts(const ga_claim_result *r, size_t scope_i, size_t i, int dir)
{
    return (scope_i == VD_ALL_PAIRS || i == scope_i) && (!r->scope_dir || r->scope_dir == dir);
}

/* The pairs idx[0..m) (NULL: 0..m) a DP claim certifies, in order, into sel (at most
 * GA_AUDIT_CERT_CAP + 1): those whose estimates do not clear the claim in its scope, with
 * --certified every pair up to the cap, the proven worst case, and the one pair a claim is
 * about (claim.pair); *capped: some pair that needed it was
 * left out by the cap. Over a shard's pairs it selects a superset of the shard's share of
 * the selection over all pairs (the cap counts fewer pairs before any of them). */
size_t vd_dp_cert_select(size_t *sel, int *capped, const ga_audit *a, const ga_claim_result *r,
                         const double *xy, const double *yx, const double *exy,
                         const double *eyx, const size_t *idx, size_t m, const ga_audit_opts *o);

/* the text of claim ci's eps for the certified path: as written for the (eps, delta) claim,
 * else the double exactly */
const char *vd_claim_eps_text(char *buf, size_t n, const ga_audit *a, size_t ci);

/* A shard's scratch space for its claims' records (audit --shard): per pair the estimates
 * both ways and their errors, statuses; per certified pair (up to GA_AUDIT_CERT_CAP + 1) its
 * selection, certificate, status, seconds and whether it was done. */
struct vd_shard_buf {
    double *xy, *yx, *exy, *eyx;
    int *vst, *cst;
    size_t *sel;
    ga_delta_cert *certs;
    double *csec;
    unsigned char *cdone;
};
/* A shard's records for claim ci, by type (a row's shard): a DP claim's estimates and the
 * certified intervals of the pairs it would certify among the shard's (a superset of what
 * the decision over all pairs certifies here: vd_dp_cert_select); an RDP claim's Renyi
 * estimates and certified divergences the same way; a zCDP or GDP claim's grid scan and the
 * certified Mahalanobis distances the exact verdict reads. */
void vd_shard_dp(ga_audit *a, size_t ci, const ga_audit_opts *o, vd_shard_buf *b,
                 ga_gchisq_work *w);
void vd_shard_rdp(ga_audit *a, size_t ci, const ga_audit_opts *o, vd_shard_buf *b,
                  ga_gchisq_work *w);
void vd_shard_grid(ga_audit *a, size_t ci, const ga_audit_opts *o, vd_shard_buf *b,
                   ga_gchisq_work *w);

/* is the pair of this name a subsampled pair? */
int vd_sub_pair(const ga_audit *a, const char *name);

/* the witness of claim r's worst pair (no witness when its rebuild finds no memory) */
void vd_witness(ga_audit *a, ga_claim_result *r, ga_gchisq_work *w);

void vd_eval_dp(ga_audit *a, ga_claim_result *r, const char *eps_txt, const ga_audit_opts *o,
                ga_gchisq_work *w);

/* certified D_alpha of pair i, both directions */
int vd_cert_renyi(ga_audit *a, size_t i, double alpha, ga_interval *xy, ga_interval *yx);

void vd_eval_rdp(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o, ga_gchisq_work *w);

/* the certified r D2 of pair i (recorded or replayed like the other evaluations) */
int vd_maha_cert(ga_audit *a, size_t i, ga_interval *iv);

void vd_eval_zcdp(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o, ga_gchisq_work *w);

/* a shard's scan of its pairs, recorded */
void vd_grid_record(ga_audit *a, const ga_claim_result *r, const ga_audit_opts *o,
                    ga_gchisq_work *w);

void vd_eval_gdp(ga_audit *a, ga_claim_result *r, const ga_audit_opts *o, ga_gchisq_work *w);

#endif

/*
 * samplers.c - DP-SGD's batch samplers: kind subsampled_gaussian (one stage) and kind
 * training (the stages a training run records, composed), each stage a term of the
 * one-dimensional privacy loss (pair/ploss.c) with T steps. The pairs are not Gaussian: the
 * remove pair (X: the record is in the data) and the add pair (Y: it is), each the
 * composition of every stage's steps.
 *
 * Poisson sampling at rate q: every pair of add/remove neighbours (gradients clipped to norm
 * 1) is dominated by the sum with and without a unit vector (rotation invariance; Zhu, Dong &
 * Wang 2022, Section 4), and the two directions cover each other: the proven worst case.
 *
 * Fixed-size batches of b out of n records (sampling without replacement): removing a record
 * from a dataset of n leaves n - 1 that still fill the batch, so with probability b/n the
 * batch swaps the record for another (the coupling of Balle, Barthe & Gaboardi 2018: draw
 * b - 1 common records and one more). Given the common draws, the step is the pair
 * ((1 - b/n) N(u) + (b/n) N(g), N(u)) with |g - u| <= 2, a post-processing of the one with
 * |g - u| = 2; joint convexity of the hockey-stick divergence over the common draws makes
 * that pair dominate, and it is attained (every other record's gradient u, the removed
 * one's -u). So a step is the Poisson step at rate b/n with sensitivity 2, and T steps its
 * T-fold composition (dominating pairs compose, adaptively). The same training with Poisson
 * sampling at rate b/n is kept for the report's comparison (ga_pairset.compare). Under
 * substitution (zero_out, replace_one) the run is bracketed (add_substitution_bounds).
 *
 * A training configuration's stages compose the same way: the same record, with the
 * gradients above, attains every stage's worst case at once, so the composed pairs are the
 * proven worst case of the whole run. Opacus' accountant history (rows [noise_multiplier,
 * sample_rate, steps]) lists Poisson stages.
 */
#include "catalogue/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the mechanism keys of kind subsampled_gaussian and training (their rows in the kind table;
 * the JSON Schema), and a training stage's */
const char *const cat_keys_subsampled_gaussian[] = {"kind", "sampler", "rate", "batch_size",
                                                    "dataset_size", "sigma", "steps", "epochs",
                                                    "participations", NULL};
const char *const cat_keys_training[] = {"kind", "stages", "opacus_history", NULL};
static const char *const stage_keys[] = {"sampler", "rate", "batch_size", "dataset_size",
                                         "noise_multiplier", "steps", NULL};

enum { SAMPLER_POISSON, SAMPLER_FIXED_SIZE, SAMPLER_SHUFFLE, SAMPLER_ALLOCATION, NSAMPLERS };

/* a stage's sampler (key sampler of map m): poisson (the default), fixed_size or, where
 * allowed (kind subsampled_gaussian alone), shuffle or random_allocation */
static int stage_sampler(const cat_job *j, const ga_node *m, const char *prefix, int *sampler,
                         int allow_shuffle, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    const ga_node *n = ga_node_get(m, "sampler");
    static const char *const names[NSAMPLERS] = {"poisson", "fixed_size", "shuffle",
                                                 "random_allocation"};
    char path[160];
    snprintf(path, sizeof path, "%s.sampler", prefix);
    *sampler = SAMPLER_POISSON;
    if (!n)
        return GA_OK;
    if (n->kind != GA_NODE_SCALAR)
        return ga_spec_fail(s, n, path, msg, msglen,
                            "expected poisson, fixed_size, shuffle or random_allocation");
    for (int i = 0; i < NSAMPLERS; i++)
        if (!strcmp(n->text, names[i])) {
            *sampler = i;
            if (i >= SAMPLER_SHUFFLE && !allow_shuffle)
                return ga_spec_fail(s, n, path, msg, msglen,
                                    "shuffled epochs and random allocation have bounds, not an "
                                    "exact pair, and do not compose with other stages here: "
                                    "audit such a run alone as kind subsampled_gaussian");
            return GA_OK;
        }
    const char *best = ga_nearest(n->text, names, NSAMPLERS, 3, 0);
    char what[200];
    snprintf(what, sizeof what, "unknown sampler '%.40s'%s%s%s (poisson, fixed_size, shuffle, "
             "random_allocation)", n->text, best ? " (did you mean '" : "", best ? best : "",
             best ? "'?)" : "");
    return ga_spec_fail(s, n, path, msg, msglen, what);
}

/* The neighbours the samplers audit: every add/remove pair (remove_one, the default, in both
 * orders); zero_out gives the same pairs under Poisson sampling (a zeroed record adds
 * nothing, as an absent one); with fixed-size batches, zero_out and replace_one (every stage
 * fixed-size) are bracketed (add_substitution_bounds). Other relations: refused. */
static int sampler_relation(const cat_job *j, const ga_subsampled_input *t, size_t n,
                            char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    size_t nfixed = 0;
    for (size_t i = 0; i < n; i++)
        nfixed += t[i].q_den_txt != NULL;
    if (s->relation == GA_REL_NONE || s->relation == GA_REL_REMOVE_ONE ||
        s->relation == GA_REL_ZERO_OUT ||
        (s->relation == GA_REL_REPLACE_ONE && nfixed == n))
        return GA_OK;
    return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                        s->relation == GA_REL_REPLACE_ONE
                            ? "replace_one is audited for fixed-size batches (every stage "
                              "sampler: fixed_size): the substitution pair of a Poisson-sampled "
                              "step ((1 - q) N(0) + q N(g) against (1 - q) N(0) + q N(g')) is "
                              "not computed"
                            : "subsampled Gaussian steps are audited for add/remove neighbours "
                              "(remove_one, the default, in both orders), zero_out, and "
                              "replace_one with fixed-size batches: their pairs for add_one "
                              "candidates or change_label are not computed");
}

/* batch_size b and dataset_size n: whole numbers, 1 <= b < n <= 2^53 (fixed-size batches),
 * or b <= n with full (shuffled epochs: one batch of every record is allowed) */
static int batch_counts(const cat_job *j, const ga_node *m, const char *prefix, int full,
                        double *b, double *n, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    char path[160];
    int rc;
    if ((rc = ga_spec_node_number(s, m, prefix, "batch_size", b, 1, msg, msglen)) ||
        (rc = ga_spec_node_number(s, m, prefix, "dataset_size", n, 1, msg, msglen)))
        return rc;
    snprintf(path, sizeof path, "%s.dataset_size", prefix);
    if (!(*n >= 2 && *n <= 9007199254740992.0 && *n == floor(*n)))
        return ga_spec_fail(s, ga_node_get(m, "dataset_size"), path, msg, msglen,
                            "must be a whole number in 2..2^53");
    snprintf(path, sizeof path, "%s.batch_size", prefix);
    if (!(*b >= 1 && (full ? *b <= *n : *b < *n) && *b == floor(*b)))
        return ga_spec_fail(s, ga_node_get(m, "batch_size"), path, msg, msglen,
                            full ? "must be a whole number in 1..dataset_size"
                                 : "must be a whole number in 1..dataset_size - 1 (the neighbour "
                                   "without the record must still fill a batch)");
    return GA_OK;
}

/* The noise multiplier of map m (key sigma_key; knob non-NULL: the value calibrate tries),
 * in [0.001, 1e6] */
static int noise_multiplier(const cat_job *j, const ga_node *m, const char *prefix,
                            const char *sigma_key, const double *knob, double *sigma, char *msg,
                            size_t msglen)
{
    ga_spec *s = j->s;
    char path[160];
    int rc;
    if (knob)
        *sigma = *knob;
    else if ((rc = ga_spec_node_number(s, m, prefix, sigma_key, sigma, 1, msg, msglen)))
        return rc;
    snprintf(path, sizeof path, "%s.%s", prefix, sigma_key);
    if (!(*sigma >= 1e-3 && *sigma <= 1e6))
        return ga_spec_fail(s, ga_node_get(m, sigma_key), path, msg, msglen,
                            "must be in [0.001, 1e6] (the noise multiplier)");
    return GA_OK;
}

/* One stage from map m (its keys' paths prefix.KEY): the term t of its remove pair and cmp,
 * the same with Poisson sampling at its rate. sigma_key names the noise multiplier; knob
 * (non-NULL) is the value calibrate tries for it. *fixed: the stage has fixed-size batches. */
static int stage_term(const cat_job *j, const ga_node *m, const char *prefix,
                      const char *sigma_key, const double *knob, ga_subsampled_input *t,
                      ga_subsampled_input *cmp, int *fixed, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int sampler, rc;
    char path[160];
    if ((rc = stage_sampler(j, m, prefix, &sampler, 0, msg, msglen)))
        return rc;
    static const char *const other[2][2] = {{"batch_size", "dataset_size"}, {"rate", NULL}};
    for (int k = 0; k < 2 && other[sampler][k]; k++) {
        const ga_node *x = ga_node_get(m, other[sampler][k]);
        if (x)
            return ga_spec_fail(s, x, prefix, msg, msglen, sampler == SAMPLER_POISSON
                                ? "batch_size and dataset_size describe sampler: fixed_size; "
                                  "Poisson sampling takes rate"
                                : "sampler: fixed_size takes batch_size and dataset_size (the "
                                  "rate is their ratio), not rate");
    }
    if (ga_node_get(m, "epochs"))
        return ga_spec_fail(s, ga_node_get(m, "epochs"), prefix, msg, msglen,
                            "epochs describe sampler: shuffle and random_allocation; Poisson "
                            "and fixed-size batches count steps");
    if (ga_node_get(m, "participations"))
        return ga_spec_fail(s, ga_node_get(m, "participations"), prefix, msg, msglen,
                            "participations describe sampler: random_allocation");
    double q, sigma, steps = 1, b = 0, n = 0;
    if (sampler == SAMPLER_FIXED_SIZE) {
        if ((rc = batch_counts(j, m, prefix, 0, &b, &n, msg, msglen)))
            return rc;
        q = b / n;
    } else {
        if ((rc = ga_spec_node_number(s, m, prefix, "rate", &q, 1, msg, msglen)))
            return rc;
        snprintf(path, sizeof path, "%s.rate", prefix);
        if (!(q > 0 && q <= 1))
            return ga_spec_fail(s, ga_node_get(m, "rate"), path, msg, msglen,
                                "must be in (0, 1] (the Poisson sampling rate)");
    }
    if ((rc = noise_multiplier(j, m, prefix, sigma_key, knob, &sigma, msg, msglen)))
        return rc;
    rc = ga_spec_node_number(s, m, prefix, "steps", &steps, 0, msg, msglen);
    if (rc > 0)
        return rc;
    snprintf(path, sizeof path, "%s.steps", prefix);
    if (!(steps >= 1 && steps <= 1e9 && steps == floor(steps)))
        return ga_spec_fail(s, ga_node_get(m, "steps"), path, msg, msglen,
                            "must be a whole number in 1..1e9");
    /* calibrate: the double tried, not the decimal */
    const char *st = knob ? NULL : ga_node_get(m, sigma_key)->text;
    *t = (ga_subsampled_input){q, sigma, steps, 0, NULL, st, 0, 0, NULL, NULL};
    *fixed = sampler == SAMPLER_FIXED_SIZE;
    if (*fixed) {
        t->q_txt = ga_node_get(m, "batch_size")->text;
        t->q_den_txt = ga_node_get(m, "dataset_size")->text;
    } else {
        t->q_txt = ga_node_get(m, "rate")->text;
    }
    *cmp = *t;
    if (*fixed) {
        t->norm = 2;
        t->norm_txt = "2";
    }
    return GA_OK;
}

static const char pair_names[2][160] = {"remove one record (X with it, Y without it)",
                                        "add one record (X without it, Y with it)"};

/* the pairs of n terms, and the Poisson comparison when some stage has fixed-size batches
 * (the arrays are the set's, or freed) */
static int add_stage_pairs(cat_job *j, ga_subsampled_input *t, ga_subsampled_input *cmp,
                           size_t n, int any_fixed, const char names[2][160])
{
    int rc = cat_add_subsampled_pairs(j, t, n, names);
    free(t);
    if (rc == GA_OK && any_fixed) {
        j->out->compare = cmp;
        j->out->ncompare = n;
    } else {
        free(cmp);
    }
    return rc;
}

/*
 * Fixed-size batches under substitution (zero_out: the record's gradient g against 0;
 * replace_one: g against g', |g - g'| <= 2 with clipping norm 1; s = 1 or 2 the largest
 * change). With b - 1 common records drawn and one more (the coupling above), a step
 * releases (1 - q) N(c) + q N(g) against (1 - q) N(c) + q N(g') up to the common sum, q = b/n,
 * c the gradient of the record drawn in its place: any of the others. For eps >= 0 its
 * profile is at most q times the Gaussian mechanism's at sensitivity s, at the eps' with
 * e^eps = 1 + q (e^eps' - 1) (advanced joint convexity; Balle, Barthe & Gaboardi 2018,
 * Theorem 10): the profile of the Poisson pair A = ((1 - q) N(0) + q N(s), N(0)), attained
 * with c = g' (every other gradient g'), and of its swap B in the other order. So
 *   lower: A^T and B^T, the pairs of that dataset in both orders (real neighbours);
 *   upper: a step's pair is dominated in both orders by the least symmetric pair whose
 *     profile is A's for eps >= 0 (Dong, Roth & Su 2022, Theorem 4.2: C_q(f)), and every
 *     symmetric pair dominating A and B dominates it: A x B does, so T steps are dominated by
 *     A^T x B^T (2T steps, composed adaptively, joint convexity over the common draws).
 * A Poisson stage under zero_out is exact (A in one order, B in the other) and joins both.
 * The comparison is the same training with Poisson sampling under add/remove.
 */
static const char subst_names[2][2][160] = {
    {"zero out the record, every other gradient 0 (X with it, Y zeroed): a lower bound",
     "zero out the record, every other gradient 0 (X zeroed, Y with it): a lower bound"},
    {"replace the record's gradient g by -g, every other -g (X with g, Y with -g): a lower bound",
     "replace the record's gradient g by -g, every other -g (X with -g, Y with g): a lower bound"}};

static int substitution(const cat_job *j)
{
    return j->s->relation == GA_REL_ZERO_OUT || j->s->relation == GA_REL_REPLACE_ONE;
}

static int add_substitution_bounds(cat_job *j, ga_subsampled_input *t, ga_subsampled_input *cmp,
                                   size_t n)
{
    int replace = j->s->relation == GA_REL_REPLACE_ONE, rc;
    size_t nfixed = 0, k = 0;
    double steps = 0;
    for (size_t i = 0; i < n; i++) {
        int fixed = t[i].q_den_txt != NULL;
        nfixed += fixed;
        steps += t[i].steps;
        if (fixed && !replace) { /* zero_out: a change of norm 1 */
            t[i].norm = 0;
            t[i].norm_txt = NULL;
        }
    }
    ga_subsampled_input *up = malloc((n + nfixed) * sizeof *up);
    if (!up) {
        free(t);
        free(cmp);
        return GA_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        up[k++] = t[i];
        if (t[i].q_den_txt) {
            up[k] = t[i];
            up[k++].add = 1;
        }
    }
    size_t first = j->out->npairs;
    rc = add_stage_pairs(j, t, cmp, n, 1, subst_names[replace]);
    if (rc == GA_OK)
        rc = ga_pairset_add(j->out, "upper bound: every fixed-size step composed in both "
                            "orders (2 steps per step)", 1, 1, NULL, NULL, NULL, NULL);
    if (rc) {
        free(up);
        return rc;
    }
    for (size_t i = first; i < j->out->npairs - 1; i++)
        j->out->pairs[i].lower = 1;
    ga_spec_pair *p = &j->out->pairs[j->out->npairs - 1];
    p->reduced = 1;
    p->nsub = n + nfixed;
    p->sub = up;
    j->out->verified = 1;
    j->out->verified_pair = j->out->npairs - 1;
    j->out->verified_bound = 1;
    snprintf(j->out->verified_note, sizeof j->out->verified_note,
             "upper bound over all %s neighbours with gradients of norm <= 1: given the other "
             "records drawn, a fixed-size step changes one Gaussian component of weight b/n by "
             "at most %d, and is dominated in both orders by its steps with and without that "
             "change composed in both orders (%.0f steps in all, %zu stage%s)",
             replace ? "replace-one" : "zero-out", replace ? 2 : 1, steps, n, n == 1 ? "" : "s");
    return GA_OK;
}

/* the mechanism's keys, and no release: the outputs are mixtures, not Gaussian laws */
static int sampler_mechanism(const cat_job *j, const char *const *keys, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", keys, msg, msglen);
    if (rc == GA_OK && s->release.n)
        rc = ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                          msglen, "subsampled Gaussian steps release mixtures, not Gaussian "
                          "laws: a linear map of them is not supported");
    return rc;
}

/*
 * Epochs in which each record takes part in k of t steps, the steps chosen independently of
 * the data (shuffled epochs: k = 1 of the E batches; random allocation: k of t steps). No
 * dominating pair is known for the run; the bounds:
 *   lower: every other record's gradient 0 and the audited one's of norm 1. Its neighbour
 *     (without it, or zeroed) releases N(0, sigma^2 I_t) every epoch, the dataset with it
 *     N(1_S, sigma^2 I_t) with S its k steps, whatever the others do: a pair of real
 *     neighbours. Tests of it with closed-form laws bound delta from below: the max test
 *     (k = 1: each epoch's largest sum, pair/shuffle.c) and the sum test (each epoch's sums
 *     added: N(k, t sigma^2) against N(0, t sigma^2), a Gaussian pair with one column per
 *     epoch).
 *   upper (where the neighbour runs the same steps for every other record): given the steps,
 *     an epoch is t Gaussian steps of which k move by at most 1 each and the rest not at all,
 *     adaptively composed: the Gaussian mechanism of sensitivity sqrt(k) per epoch, sqrt(k T)
 *     over T epochs, and joint convexity over the steps' choice keeps the bound.
 * The Poisson comparison is the same training with Poisson sampling at rate k/t for T t steps,
 * what a Poisson accountant reports for such a run.
 */
typedef struct {
    const char *what;     /* "shuffled epochs", "random allocation" */
    const char *unit;     /* what an epoch's steps are called: "batch", "step" */
    const char *note;     /* the upper bound's note (its argument, with the numbers) */
    double t, k, T;       /* steps per epoch, the record's steps per epoch, epochs */
    double sigma;
    const char *sigma_txt; /* (NULL: a calibration's knob) */
    const char *k_txt;     /* k as written ("1") */
    int upper;            /* the neighbour runs the same steps for the others: an upper bound */
    int alloc;            /* random allocation (the others' steps independent of the record's) */
    ga_subsampled_input *cmp; /* the Poisson comparison (taken over) */
} epoch_bounds;

static int add_epoch_bounds(cat_job *j, const epoch_bounds *e)
{
    j->out->compare = e->cmp;
    j->out->ncompare = 1;
    char name[240];
    int rc;
    ga_spec_pair *p;
    if (e->k == 1) {
        ga_shuffle_input *in = malloc(sizeof *in);
        if (!in)
            return GA_ENOMEM;
        *in = (ga_shuffle_input){e->sigma, e->t, e->T, 1, e->sigma_txt, "1"};
        snprintf(name, sizeof name, "max test over %s (X with the record, Y without it): a "
                 "lower bound", e->what);
        if ((rc = ga_pairset_add(j->out, name, 1, 1, NULL, NULL, NULL, NULL))) {
            free(in);
            return rc;
        }
        p = &j->out->pairs[j->out->npairs - 1];
        p->reduced = 1;
        p->lower = 1;
        p->shuffle = in;
    }
    /* the sum of an epoch's sums: N(k, t sigma^2) with the record, N(0, t sigma^2) without,
     * one column per epoch (the better test where the noise is large) */
    double tv = e->t * e->sigma * e->sigma;
    snprintf(name, sizeof name, "sum test over %s (an epoch's %.0f %s sums added: N(%s, %.0f "
             "sigma^2) with the record, N(0, %.0f sigma^2) without): a lower bound", e->what,
             e->t, e->unit, e->k_txt, e->t, e->t);
    if ((rc = cat_add_1d(j, name, e->k, tv, tv, e->T)))
        return rc;
    p = &j->out->pairs[j->out->npairs - 1];
    p->lower = 1;
    if (e->sigma_txt) {
        char et[32];
        snprintf(et, sizeof et, "%.0f", e->t);
        p->mean_txt = e->k_txt;
        p->sd_txt = e->sigma_txt;
        if (e->t > 1 && !(p->var_scale_txt = strdup(et)))
            return GA_ENOMEM;
    }
    if (!e->upper)
        return GA_OK;
    j->out->verified = 1;
    j->out->verified_pair = j->out->npairs;
    j->out->verified_bound = 1;
    snprintf(j->out->verified_note, sizeof j->out->verified_note, "%s", e->note);
    if (e->alloc && e->k == 1) { /* random allocation: its dominating pair's bound */
        ga_allocation_input *in = malloc(sizeof *in);
        if (!in)
            return GA_ENOMEM;
        *in = (ga_allocation_input){e->sigma, e->t, e->T, e->sigma_txt};
        snprintf(name, sizeof name, "upper bound: random allocation's dominating pair (Renyi "
                 "divergences converted) or the Gaussian mechanism of sensitivity sqrt(%.0f), "
                 "the smaller", e->T);
        if ((rc = ga_pairset_add(j->out, name, 1, 1, NULL, NULL, NULL, NULL))) {
            free(in);
            return rc;
        }
        p = &j->out->pairs[j->out->npairs - 1];
        p->reduced = 1;
        p->alloc = in;
        return GA_OK;
    }
    snprintf(name, sizeof name, "upper bound: every epoch %s Gaussian step%s of sensitivity 1 "
             "(%.0f epochs)", e->k == 1 ? "one" : e->k_txt, e->k == 1 ? "" : "s", e->T);
    if ((rc = cat_add_1d(j, name, 1, e->sigma * e->sigma, e->sigma * e->sigma, e->k * e->T)))
        return rc;
    p = &j->out->pairs[j->out->npairs - 1];
    if (e->sigma_txt) {
        p->mean_txt = "1";
        p->sd_txt = e->sigma_txt;
    }
    return GA_OK;
}

/* a key of the mechanism this sampler does not take: refused with why[k] for keys[k] */
static int keys_refused(cat_job *j, const ga_node *m, const char *const *keys,
                        const char *const *why, int n, char *msg, size_t msglen)
{
    for (int k = 0; k < n; k++)
        if (ga_node_get(m, keys[k]))
            return ga_spec_fail(j->s, ga_node_get(m, keys[k]), "mechanism", msg, msglen, why[k]);
    return GA_OK;
}

/* epochs T: a whole number in 1..10000 (default 1 where allowed) */
static int epochs_of(cat_job *j, const ga_node *m, double *T, int dflt, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    *T = 1;
    if (dflt && !ga_node_get(m, "epochs"))
        return GA_OK;
    int rc = ga_spec_node_number(s, m, "mechanism", "epochs", T, 1, msg, msglen);
    if (rc == GA_OK && !(*T >= 1 && *T <= 10000 && *T == floor(*T)))
        rc = ga_spec_fail(s, ga_node_get(m, "epochs"), "mechanism.epochs", msg, msglen,
                          "must be a whole number in 1..10000");
    return rc;
}

/* the noise multiplier and its text (NULL under a calibration of sigma) */
static int epoch_sigma(cat_job *j, const ga_node *m, double *sigma, const char **st, char *msg,
                       size_t msglen)
{
    int knobbed = j->o->knob && !strcmp(j->o->knob, "sigma");
    int rc = noise_multiplier(j, m, "mechanism", "sigma", knobbed ? &j->o->knob_value : NULL,
                              sigma, msg, msglen);
    *st = knobbed ? NULL : ga_node_get(m, "sigma")->text;
    return rc;
}

/*
 * Shuffled epochs (sampler: shuffle, batch_size b, dataset_size n, epochs T): each epoch
 * shuffles the records into E = ceil(n/b) batches, each record in exactly one (k = 1 of t =
 * E above). Under remove_one the neighbour must run the same E batches: the one of n - 1
 * records does unless n - 1 is a multiple of b, and then the one of n + 1 records (the
 * dataset of n without the record) does; with b = 1 neither does, and remove_one is refused.
 * The upper bound holds for zero_out only: the two datasets have the same records but one,
 * zeroed in one of them, so the same shuffle puts every other record in the same batch;
 * removing a record instead moves every later record to another batch, so no such bound
 * holds for remove_one: its claims are never VERIFIED.
 */
static int build_shuffle(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    const ga_node *m = s->mechanism;
    static const char *const not_here[] = {"rate", "steps", "participations"};
    static const char *const why[] = {
        "sampler: shuffle takes batch_size and dataset_size, not rate",
        "sampler: shuffle counts epochs (each record once per epoch): give epochs, not steps",
        ("sampler: shuffle puts each record in one batch per epoch (participations is "
         "random_allocation's)")};
    int rc = keys_refused(j, m, not_here, why, 3, msg, msglen);
    if (rc)
        return rc;
    double b, n, sigma, T;
    const char *st;
    if ((rc = batch_counts(j, m, "mechanism", 1, &b, &n, msg, msglen)) ||
        (rc = epochs_of(j, m, &T, 0, msg, msglen)))
        return rc;
    double E = ceil(n / b);
    if (!(E <= 1e7))
        return ga_spec_fail(s, ga_node_get(m, "batch_size"), "mechanism.batch_size", msg, msglen,
                            "at most 1e7 batches per epoch (dataset_size / batch_size)");
    if ((rc = epoch_sigma(j, m, &sigma, &st, msg, msglen)))
        return rc;
    int rel = s->relation, bounded = rel == GA_REL_ZERO_OUT;
    if (!bounded && rel != GA_REL_NONE && rel != GA_REL_REMOVE_ONE)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "shuffled epochs are audited for remove_one (a lower bound) and "
                            "zero_out (a lower and an upper bound)");
    if (!bounded && b == 1)
        return ga_spec_fail(s, ga_node_get(m, "batch_size"), "mechanism.batch_size", msg, msglen,
                            "with batches of one record the datasets of n - 1 and n + 1 records "
                            "run other numbers of steps: no remove_one pair of the same batches "
                            "(zero_out is audited)");
    ga_subsampled_input *cmp = malloc(sizeof *cmp);
    if (!cmp)
        return GA_ENOMEM;
    *cmp = (ga_subsampled_input){b / n, sigma, T * E, 0, ga_node_get(m, "batch_size")->text, st,
                                 0, 0, NULL, ga_node_get(m, "dataset_size")->text};
    char note[400];
    snprintf(note, sizeof note, "upper bound over all zero-out neighbours with gradients of "
             "norm <= 1 (given the shuffle, an epoch of %.0f batches of %.0f out of %.0f records "
             "moves one batch sum by at most 1; %.0f epochs, noise multiplier %g: the Gaussian "
             "mechanism of sensitivity 1 sqrt(%.0f))", E, b, n, T, sigma, T);
    epoch_bounds e = {"shuffled epochs", "batch", note, E, 1, T, sigma, st, "1", bounded, 0, cmp};
    return add_epoch_bounds(j, &e);
}

/*
 * Random allocation (sampler: random_allocation, steps t, participations k, epochs T): each
 * record takes part in k of every epoch's t steps, chosen uniformly and independently of the
 * other records (Feldman & Shenfeld, "Privacy amplification by random allocation", 2025).
 * The other records' steps do not depend on the audited record, so the upper bound holds for
 * remove_one and zero_out alike.
 */
static int build_allocation(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    const ga_node *m = s->mechanism;
    static const char *const not_here[] = {"rate", "batch_size", "dataset_size"};
#define TAKES "sampler: random_allocation takes steps (per epoch), participations (of those " \
              "steps, per record) and epochs"
    static const char *const why[] = {TAKES, TAKES, TAKES};
#undef TAKES
    double t, k = 1, T, sigma;
    const char *st, *kt = "1";
    int rc = keys_refused(j, m, not_here, why, 3, msg, msglen);
    if (rc || (rc = ga_spec_node_number(s, m, "mechanism", "steps", &t, 1, msg, msglen)))
        return rc;
    if (!(t >= 1 && t <= 1e7 && t == floor(t)))
        return ga_spec_fail(s, ga_node_get(m, "steps"), "mechanism.steps", msg, msglen,
                            "must be a whole number in 1..1e7 (the steps of one epoch)");
    const ga_node *kn = ga_node_get(m, "participations");
    if (kn) {
        if ((rc = ga_spec_node_number(s, m, "mechanism", "participations", &k, 1, msg, msglen)))
            return rc;
        if (!(k >= 1 && k <= t && k == floor(k)))
            return ga_spec_fail(s, kn, "mechanism.participations", msg, msglen,
                                "must be a whole number in 1..steps");
        kt = kn->text;
    }
    if ((rc = epochs_of(j, m, &T, 1, msg, msglen)) ||
        (rc = epoch_sigma(j, m, &sigma, &st, msg, msglen)))
        return rc;
    int rel = s->relation;
    if (rel != GA_REL_NONE && rel != GA_REL_REMOVE_ONE && rel != GA_REL_ZERO_OUT)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "random allocation is audited for remove_one and zero_out (lower "
                            "and upper bounds)");
    ga_subsampled_input *cmp = malloc(sizeof *cmp);
    if (!cmp)
        return GA_ENOMEM;
    *cmp = (ga_subsampled_input){k / t, sigma, T * t, 0, kt, st, 0, 0, NULL,
                                 ga_node_get(m, "steps")->text};
    char note[512];
    if (k == 1)
        snprintf(note, sizeof note, "upper bound over all remove-one and zero-out neighbours with "
                 "gradients of norm <= 1 (the other records' steps do not depend on the audited "
                 "one, so each epoch is dominated by the mean over its %.0f steps of a unit shift "
                 "of that step against none; %.0f epochs, noise multiplier %g: that pair's Renyi "
                 "divergences converted, or the Gaussian mechanism of sensitivity sqrt(%.0f), "
                 "the smaller)", t, T, sigma, T);
    else
        snprintf(note, sizeof note, "upper bound over all remove-one and zero-out neighbours "
                 "with gradients of norm <= 1 (the other records' steps do not depend on the "
                 "audited one; given them, an epoch of %.0f steps moves %.0f step sums by at "
                 "most 1 each; %.0f epochs, noise multiplier %g: the Gaussian mechanism of "
                 "sensitivity 1 sqrt(%.0f))", t, k, T, sigma, k * T);
    epoch_bounds e = {"random allocation", "step", note, t, k, T, sigma, st, kt, 1, 1, cmp};
    return add_epoch_bounds(j, &e);
}

int cat_build_subsampled(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = sampler_mechanism(j, cat_keys_subsampled_gaussian, msg, msglen);
    if (rc)
        return rc;
    int sampler;
    if ((rc = stage_sampler(j, s->mechanism, "mechanism", &sampler, 1, msg, msglen)))
        return rc;
    if (sampler == SAMPLER_SHUFFLE)
        return build_shuffle(j, msg, msglen);
    if (sampler == SAMPLER_ALLOCATION)
        return build_allocation(j, msg, msglen);
    ga_subsampled_input *t = malloc(sizeof *t), *cmp = malloc(sizeof *cmp);
    int fixed = 0;
    int knobbed = j->o->knob && !strcmp(j->o->knob, "sigma");
    if (!t || !cmp)
        rc = GA_ENOMEM;
    else
        rc = stage_term(j, s->mechanism, "mechanism", "sigma", knobbed ? &j->o->knob_value : NULL,
                        t, cmp, &fixed, msg, msglen);
    if (rc == GA_OK)
        rc = sampler_relation(j, t, 1, msg, msglen);
    if (rc) {
        free(t);
        free(cmp);
        return rc;
    }
    if (fixed && substitution(j))
        return add_substitution_bounds(j, t, cmp, 1);
    double q = t->q, sigma = t->sigma, steps = t->steps;
    if (fixed) {
        double b = strtod(t->q_txt, NULL), n = strtod(t->q_den_txt, NULL);
        snprintf(j->out->verified_note, sizeof j->out->verified_note,
                 "worst case over all add/remove neighbours (datasets of %.0f and %.0f records) "
                 "with gradients of norm <= 1: batches of %.0f drawn without replacement, so "
                 "a step swaps the record for another with probability %.0f/%.0f, dominated "
                 "by the sum with and without a vector of norm 2 and attained; %.0f steps, "
                 "noise multiplier %g", n, n - 1, b, b, n, steps, sigma);
    } else {
        snprintf(j->out->verified_note, sizeof j->out->verified_note,
                 "worst case over all add/remove neighbours with gradients of norm <= 1 (every "
                 "such pair is dominated by the subsampled sum with and without a unit vector; "
                 "%.0f steps at rate %g, noise multiplier %g)", steps, q, sigma);
    }
    return add_stage_pairs(j, t, cmp, 1, fixed, pair_names);
}

/* Opacus' accountant history: rows [noise_multiplier, sample_rate, steps], Poisson stages */
static int opacus_row(const cat_job *j, const ga_node *row, size_t i, ga_subsampled_input *t,
                      char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    char path[96];
    snprintf(path, sizeof path, "mechanism.opacus_history[%zu]", i);
    if (row->kind != GA_NODE_SEQ || row->n != 3)
        return ga_spec_fail(s, row, path, msg, msglen, "expected [noise_multiplier, "
                            "sample_rate, steps] (a row of Opacus' accountant history)");
    double v[3];
    const char *txt[3];
    static const char *const what[3] = {"noise_multiplier", "sample_rate", "steps"};
    for (int k = 0; k < 3; k++) {
        char p[128];
        snprintf(p, sizeof p, "%s.%s", path, what[k]);
        int rc = ga_spec_number(s, row->kids[k], p, &v[k], &txt[k], msg, msglen);
        if (rc)
            return rc;
    }
    const char *bad = !(v[0] >= 1e-3 && v[0] <= 1e6) ? "noise_multiplier must be in [0.001, 1e6]"
                      : !(v[1] > 0 && v[1] <= 1)     ? "sample_rate must be in (0, 1]"
                      : !(v[2] >= 1 && v[2] <= 1e9 && v[2] == floor(v[2]))
                          ? "steps must be a whole number in 1..1e9"
                          : NULL;
    if (bad)
        return ga_spec_fail(s, row, path, msg, msglen, bad);
    *t = (ga_subsampled_input){v[1], v[0], v[2], 0, txt[1], txt[0], 0, 0, NULL, NULL};
    return GA_OK;
}

/* Kind training: `stages` (mappings: sampler, rate or batch_size and dataset_size,
 * noise_multiplier, steps) or `opacus_history` (rows [noise_multiplier, sample_rate, steps]),
 * composed into one remove and one add pair of a term per stage. */
int cat_build_training(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = sampler_mechanism(j, cat_keys_training, msg, msglen);
    if (rc)
        return rc;
    const ga_node *st = ga_node_get(s->mechanism, "stages"),
                  *oh = ga_node_get(s->mechanism, "opacus_history"), *list = st ? st : oh;
    if (!st == !oh)
        return ga_spec_fail(s, s->mechanism, "mechanism", msg, msglen, "give exactly one of "
                            "stages (a list of {sampler, rate or batch_size and dataset_size, "
                            "noise_multiplier, steps}) and opacus_history (rows [noise_multiplier, "
                            "sample_rate, steps])");
    const char *key = st ? "mechanism.stages" : "mechanism.opacus_history";
    if (list->kind != GA_NODE_SEQ || list->n == 0 || list->n > GA_PLOSS_MAX_TERMS) {
        char what[96];
        snprintf(what, sizeof what, "expected a list of 1 to %d stages", GA_PLOSS_MAX_TERMS);
        return ga_spec_fail(s, list, key, msg, msglen, what);
    }
    size_t n = list->n;
    ga_subsampled_input *t = calloc(n, sizeof *t), *cmp = calloc(n, sizeof *cmp);
    int any_fixed = 0;
    double steps = 0;
    rc = t && cmp ? GA_OK : GA_ENOMEM;
    for (size_t i = 0; i < n && rc == GA_OK; i++) {
        const ga_node *m = list->kids[i];
        char prefix[96];
        snprintf(prefix, sizeof prefix, "%s[%zu]", key, i);
        if (oh) {
            rc = opacus_row(j, m, i, &t[i], msg, msglen);
            cmp[i] = t[i];
        } else if (m->kind != GA_NODE_MAP) {
            rc = ga_spec_fail(s, m, prefix, msg, msglen, "expected a stage {sampler, rate or "
                              "batch_size and dataset_size, noise_multiplier, steps}");
        } else if ((rc = ga_spec_check_map(s, m, prefix, stage_keys, msg, msglen)) == GA_OK) {
            int fixed;
            rc = stage_term(j, m, prefix, "noise_multiplier", NULL, &t[i], &cmp[i], &fixed, msg,
                            msglen);
            any_fixed |= fixed;
        }
        steps += t[i].steps;
    }
    if (rc == GA_OK)
        rc = sampler_relation(j, t, n, msg, msglen);
    if (rc) {
        free(t);
        free(cmp);
        return rc;
    }
    if (any_fixed && substitution(j))
        return add_substitution_bounds(j, t, cmp, n);
    snprintf(j->out->verified_note, sizeof j->out->verified_note,
             "worst case over all add/remove neighbours with gradients of norm <= 1: the same "
             "record in every stage attains each stage's worst case at once (%zu stages, %.0f "
             "steps in all%s)", n, steps, any_fixed ? "; fixed-size batches swap the record for "
             "another: sensitivity 2 in those stages" : "");
    return add_stage_pairs(j, t, cmp, n, any_fixed, pair_names);
}

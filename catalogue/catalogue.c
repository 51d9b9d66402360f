/*
 * catalogue.c - the mechanism catalogue (doc/spec.md): from a mechanism kind, its
 * parameters, a dataset and a neighbour relation, the Gaussian output law on D and on each
 * neighbour D', as pairs X = law on D, Y = law on D'. This file holds the table of kinds
 * (one row each: name, noise knob, universe, target, builder, published calibrations, row
 * family), the recursion through it (composition of parts, subsampled parts), the checks
 * every kind shares (universe, labels) and the entry points (ga_mech_*). Each family's
 * builder is in its own file with its sources: gaussian.c, sketch.c, regression.c,
 * synthetic.c, explicit.c, relative.c. Each kind's parametrisation is stated in doc/spec.md.
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int kind_row(const char *name);

static const char *kind_knob(int k);

static int kind_universe(int k);

static int build_composition(cat_job *j, char *msg, size_t msglen);

static int build_kind(cat_job *j, int k, char *msg, size_t msglen);

int cat_pair_copy(ga_spec_pair *dst, const ga_spec_pair *src)
{
    size_t d = src->d;
    memset(dst, 0, sizeof *dst);
    *dst = *src;
    dst->laws_block = 0; /* (four arrays of its own) */
    dst->name = strdup(src->name);
    dst->mu_x = cat_dup(src->mu_x, d);
    dst->mu_y = cat_dup(src->mu_y, d);
    dst->s_x = cat_dup(src->s_x, d * d);
    dst->s_y = cat_dup(src->s_y, d * d);
    dst->nblocks = 0;
    dst->blocks = NULL;
    if (!dst->name || !dst->mu_x || !dst->mu_y || !dst->s_x || !dst->s_y) {
        ga_spec_pair_free(dst);
        return GA_ENOMEM;
    }
    return GA_OK; /* (the decimals' lists are the same doc's) */
}

/* a composition's part: its view of the spec, its pairs, its options */
typedef struct {
    ga_spec s;
    ga_pairset out;
    ga_build_opts o;
    cat_job j;
} cat_part;

/* The pairs of one part: built by its kind's row on a view of the spec that shares the
 * dataset, neighbours and universe (a part whose kind does not use a universe ignores it) */
static int build_part(cat_part *sub, const cat_job *j, size_t b, char *msg, size_t msglen)
{
    const ga_spec *s = j->s;
    const ga_node *node = ga_node_get(s->mechanism, "parts")->kids[b];
    char path[64];
    snprintf(path, sizeof path, "mechanism.parts[%zu]", b);
    if (node->kind != GA_NODE_MAP)
        return ga_spec_fail(s, node, path, msg, msglen, "expected a mechanism mapping {kind: ...}");
    const ga_node *kn = ga_node_get(node, "kind");
    int k = kn && kn->kind == GA_NODE_SCALAR ? kind_row(kn->text) : -1;
    if (k < 0 || !strcmp(kn->text, "composition") || !strcmp(kn->text, "gaussian_pair") ||
        !strcmp(kn->text, "training"))
        return ga_spec_fail(s, kn ? kn : node, path, msg, msglen,
                            "kind: a mechanism kind of the catalogue other than composition, "
                            "gaussian_pair and training (the parts share the dataset and the "
                            "neighbours; a training run composes its own stages)");
    sub->s = *s;
    sub->s.mechanism = node;
    sub->s.kind = kn->text;
    sub->s.release = s->part_release[b];
    sub->s.nparts = 0;
    sub->s.part_release = NULL;
    sub->s.has_universe = s->has_universe && kind_universe(k); /* others ignore it */
    sub->o = *j->o;
    sub->o.drop_data = 0; /* (the dataset is the parent's, shared by every part) */
    sub->o.knob = NULL;
    sub->o.knob_part = 0;
    sub->j = (cat_job){&sub->s, &sub->out, &sub->o};
    if (j->o->knob && j->o->knob_part == b + 1) {
        /* calibrate tunes this part's noise parameter alone */
        if (!kind_knob(k))
            return ga_spec_fail(s, node, path, msg, msglen, "this part's kind has no noise "
                                "parameter to calibrate");
        sub->o.knob = kind_knob(k);
        sub->o.knob_value = j->o->knob_value;
    } else if (j->o->knob && !j->o->knob_part) {
        /* calibrate scales every part's noise parameter by one factor (noise_scale) */
        double v;
        if (!kind_knob(k) || ga_spec_mech_number(&sub->s, kind_knob(k), &v, 0, msg, msglen) != GA_OK)
            return ga_spec_fail(s, node, path, msg, msglen,
                                "calibrate scales the parts' noise: every part needs its noise "
                                "parameter (sigma, noise_sigma for sketch) written out");
        sub->o.knob = kind_knob(k);
        sub->o.knob_value = v * j->o->knob_value;
    }
    int rc = build_kind(&sub->j, k, msg, msglen);
    for (size_t i = 0; rc == GA_OK && i < sub->out.npairs; i++)
        if (ga_spec_pair_single(&sub->out.pairs[i]))
            rc = ga_spec_fail(s, node, path, msg, msglen, "masked, synthetic and propose-test-"
                              "release releases, shuffled epochs, random allocation and "
                              "sensitivity envelopes are not Gaussian laws: they do not compose "
                              "with other parts yet");
    return rc ? rc : cat_apply_repeat(&sub->j, 0, msg, msglen);
}

/* the part whose own worst case has the largest delta at eps: it dominates the composition */
static void dominant_part(cat_job *j, const ga_spec_pair *worst, const char *const *kind,
                          size_t n, double eps)
{
    size_t best = n;
    double bd = -1;
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    for (size_t b = 0; b < n && w; b++) {
        ga_pair *p;
        char m[256];
        if (ga_mech_pair_reduce(&p, &worst[b], m, sizeof m))
            continue;
        ga_delta D;
        ga_pair_delta(&D, p, eps, GA_DELTA_AUTO, NULL, w);
        double v = fmax(D.xy.val, D.yx.val);
        if (v > bd) {
            bd = v;
            best = b;
        }
        ga_pair_free(p);
    }
    ga_gchisq_work_free(w);
    if (best < n) {
        size_t l = strlen(j->out->verified_note);
        snprintf(j->out->verified_note + l, sizeof j->out->verified_note - l,
                 "; part %zu (%s) dominates: its own worst case has delta(%g) = %.3g", best + 1,
                 kind[best], eps, bd);
    }
}

/* the pairs of part b (built in sub) into the composition's rows: its worst case kept in
 * worst[b], a data-independent part marked for broadcasting, the others moved row by row */
static int take_part(cat_job *j, ga_pairset *sub, size_t b, size_t n, ga_spec_pair ***rows,
                     size_t *N, size_t *first, ga_spec_pair *worst, int *bcast, char *msg,
                     size_t msglen)
{
    ga_spec *s = j->s;
    if (sub->verified) {
        worst[b] = sub->pairs[sub->verified_pair]; /* moved */
        memset(&sub->pairs[sub->verified_pair], 0, sizeof *sub->pairs);
    }
    if (sub->verified && sub->npairs == 1) {
        bcast[b] = 1; /* a data-independent worst case: the same block for every neighbour */
        return GA_OK;
    }
    size_t cnt = sub->npairs - (size_t)sub->verified;
    if (*first == n) {
        *first = b;
        *N = cnt;
        *rows = calloc(cnt ? cnt : 1, sizeof **rows);
        if (!*rows)
            return GA_ENOMEM;
        for (size_t i = 0; i < cnt; i++)
            if (!((*rows)[i] = calloc(n, sizeof ***rows)))
                return GA_ENOMEM;
    } else if (cnt != *N && !j->out->truncated) {
        char what[200];
        snprintf(what, sizeof what, "gives %zu neighbouring pairs where part %zu gives %zu: the "
                 "parts must share the neighbours", cnt, *first + 1, *N);
        return ga_spec_fail(s, ga_node_get(s->mechanism, "parts")->kids[b], "mechanism.parts",
                            msg, msglen, what);
    }
    if (cnt < *N)
        *N = cnt; /* the deadline stopped some part earlier: the neighbours all parts reached */
    for (size_t i = 0, k = 0; i < *N; i++, k++) {
        if (sub->verified && k == sub->verified_pair)
            k++; /* the part's own worst case, kept above */
        (*rows)[i][b] = sub->pairs[k]; /* moved: each pair is used once */
        memset(&sub->pairs[k], 0, sizeof *sub->pairs);
    }
    return GA_OK;
}

/* A composition with subsampled parts: every part must be subsampled_gaussian or the
 * Gaussian mechanism by sensitivity (a subsampled step with q = 1 and noise sigma/sensitivity,
 * its columns the steps); the remove pair is the product of the parts' remove pairs and the
 * add pair that of their add pairs, each one subsampled pair of all the parts' terms. The same
 * record in every part attains both: they are the proven worst case (not only a bound). */
static int compose_subsampled(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    size_t n = s->nparts, nt = 0;
    ga_subsampled_input *t[2] = {calloc(n, sizeof **t), calloc(n, sizeof **t)};
    ga_subsampled_input *cmp = calloc(n, sizeof *cmp); /* with Poisson sampling throughout */
    int rc = t[0] && t[1] && cmp ? GA_OK : GA_ENOMEM, any_fixed = 0;
    for (size_t b = 0; b < n && rc == GA_OK; b++) {
        cat_part part;
        memset(&part, 0, sizeof part); /* build_part may fail before it fills it */
        ga_pairset *sub = &part.out;
        rc = build_part(&part, j, b, msg, msglen);
        j->out->truncated |= sub->truncated;
        if (rc == GA_OK) {
            const ga_spec_pair *p0 = sub->npairs ? &sub->pairs[0] : NULL;
            if (sub->npairs == 2 && p0->nsub == 1 && sub->pairs[1].nsub == 1 && p0->sub->columns == 0) {
                t[0][nt] = *p0->sub; /* texts point into the doc, which outlives the spec */
                cmp[nt] = sub->ncompare ? sub->compare[0] : *p0->sub;
                any_fixed |= sub->ncompare > 0;
                t[1][nt++] = sub->pairs[1].sub[0];
            } else if (sub->npairs == 1 && sub->verified && p0->d == 1 && !p0->nblocks &&
                       p0->s_x[0] == p0->s_y[0] && p0->mu_y[0] == 0 && p0->mu_x[0] != 0) {
                /* the Gaussian mechanism by sensitivity: N(D, s^2) vs N(0, s^2), r columns */
                ga_subsampled_input g = {1, sqrt(p0->s_x[0]) / fabs(p0->mu_x[0]), p0->columns,
                                         0, NULL, NULL, 0, 0, NULL, NULL};
                if (p0->sd_txt && p0->mean_txt && !p0->var_scale_txt && p0->mu_x[0] > 0 && p0->mu_x[0] <= 1e6 &&
                    sqrt(p0->s_x[0]) >= 1e-3) {
                    /* m = norm/sigma from the spec's decimals (texts into the doc) */
                    g.sigma = sqrt(p0->s_x[0]);
                    g.norm = p0->mu_x[0];
                    g.sigma_txt = p0->sd_txt;
                    g.norm_txt = p0->mean_txt;
                }
                t[0][nt] = cmp[nt] = g;
                g.add = 1;
                t[1][nt++] = g;
            } else {
                char path[64];
                snprintf(path, sizeof path, "mechanism.parts[%zu]", b);
                rc = ga_spec_fail(s, ga_node_get(s->mechanism, "parts")->kids[b], path, msg, msglen,
                                  sub->npairs && sub->pairs[0].lower
                                  ? "this part is bracketed by bounds, not an exact pair "
                                    "(fixed-size stages under zero_out or replace_one compose "
                                    "as the stages of kind training)"
                                  : "a composition with subsampled_gaussian parts takes only "
                                  "subsampled_gaussian parts and gaussian_mechanism parts by "
                                  "sensitivity (data-dependent Gaussian pairs and subsampled "
                                  "sketches do not compose with a subsampled loss yet)");
            }
        }
        ga_pairset_clear(sub);
    }
    for (int add = 0; add < 2 && rc == GA_OK; add++) {
        char name[96];
        snprintf(name, sizeof name, "%s one record in every part (%s)", add ? "add" : "remove",
                 add ? "X without it, Y with it" : "X with it, Y without it");
        if ((rc = ga_pairset_add(j->out, name, 1, 1, NULL, NULL, NULL, NULL)))
            break;
        ga_spec_pair *p = &j->out->pairs[j->out->npairs - 1];
        p->reduced = 1;
        p->nsub = nt;
        p->sub = t[add];
        t[add] = NULL;
    }
    if (rc == GA_OK) {
        j->out->verified = 1;
        j->out->verified_pair = j->out->npairs - 2;
        snprintf(j->out->verified_note, sizeof j->out->verified_note,
                 "worst case of the composition: the same record removed or added in every part "
                 "(%zu parts; each part's pairs are its proven worst case)", n);
        if (any_fixed) {
            j->out->compare = cmp;
            j->out->ncompare = nt;
            cmp = NULL;
        }
    }
    free(t[0]);
    free(t[1]);
    free(cmp);
    return rc;
}

/* does some part have kind subsampled_gaussian? */
static int has_subsampled_part(const ga_spec *s)
{
    const ga_node *parts = ga_node_get(s->mechanism, "parts");
    for (size_t b = 0; parts && parts->kind == GA_NODE_SEQ && b < parts->n; b++) {
        const ga_node *kn = parts->kids[b] ? ga_node_get(parts->kids[b], "kind") : NULL;
        if ((kn && kn->kind == GA_NODE_SCALAR && kn->text && !strcmp(kn->text, "subsampled_gaussian")) ||
            (parts->kids[b] && ga_node_get(parts->kids[b], "subsampling")))
            return 1;
    }
    return 0;
}

/* the mechanism keys of kind composition (its row in the kind table; the JSON Schema) */
const char *const cat_keys_composition[] = {"kind", "parts", NULL};

/* Parts are built one at a time and their pairs moved into the composition's rows at once,
 * so that one part's pairs are alive beside the composition's, not every part's. */
static int build_composition(cat_job *j, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    if (ga_node_get(s->mechanism, "parts") && has_subsampled_part(s)) {
        int rc0 = ga_spec_check_map(s, s->mechanism, "mechanism", cat_keys_composition, msg,
                                    msglen);
        return rc0 ? rc0 : compose_subsampled(j, msg, msglen);
    }
    int rc = ga_spec_check_map(s, s->mechanism, "mechanism", cat_keys_composition, msg, msglen);
    if (rc)
        return rc;
    if (s->release.n)
        return ga_spec_fail(s, ga_node_get(s->mechanism, "release"), "mechanism.release", msg,
                            msglen, "a composition releases its parts' outputs: put release on "
                            "the parts");
    size_t n = s->nparts, N = 0, first = n, nrows = 0;
    ga_spec_pair **rows = NULL, *worst = calloc(n, sizeof *worst);
    int *bcast = calloc(n, sizeof *bcast), all_verified = 1, any_bound = 0;
    size_t ndep = 0;
    const char **kindname = calloc(n, sizeof *kindname);
    if (!worst || !bcast || !kindname) {
        rc = GA_ENOMEM;
        goto cleanup;
    }
    for (size_t b = 0; b < n && rc == GA_OK; b++) {
        cat_part part;
        memset(&part, 0, sizeof part); /* build_part may fail before it fills it */
        ga_pairset *sub = &part.out;
        rc = build_part(&part, j, b, msg, msglen);
        j->out->truncated |= sub->truncated;
        if (sub->release_note[0] && !j->out->release_note[0])
            snprintf(j->out->release_note, sizeof j->out->release_note, "part %zu: %.360s", b + 1,
                     sub->release_note);
        all_verified &= sub->verified;
        any_bound |= sub->verified && sub->verified_bound;
        ndep += rc == GA_OK && !(sub->verified && sub->npairs == 1);
        kindname[b] = part.s.kind;
        if (rc == GA_OK) {
            size_t had = first;
            rc = take_part(j, sub, b, n, &rows, &N, &first, worst, bcast, msg, msglen);
            if (had == n && first < n)
                nrows = N; /* rows allocated (freed below up to nrows) */
        }
        ga_pairset_clear(sub);
    }
    if (rc)
        goto cleanup;
    if (first == n) { /* every part is data-independent: one composed pair */
        N = nrows = 1;
        if (!(rows = calloc(1, sizeof *rows)) || !(rows[0] = calloc(n, sizeof **rows))) {
            rc = GA_ENOMEM;
            goto cleanup;
        }
    }
    int with_worst = all_verified && first < n;
    if ((rc = cat_pairs_fit(j, N + (size_t)with_worst, 1, "mechanism.parts", msg, msglen)))
        goto cleanup;
    if (all_verified) {
        snprintf(j->out->verified_note, sizeof j->out->verified_note,
                 "worst case of the composition: the parts' proven worst cases composed "
                 "(composing preserves the order of privacy profiles: Dong, Roth & Su 2022, "
                 "Lemma 3.2)");
        double eps = j->o->neps ? j->o->eps[0] : 1;
        dominant_part(j, worst, kindname, n, eps);
    }
    for (size_t i = 0; i < N && rc == GA_OK; i++) {
        for (size_t b = 0; b < n && rc == GA_OK; b++)
            if (bcast[b])
                rc = cat_pair_copy(&rows[i][b], &worst[b]);
        if (rc)
            break;
        char name[300];
        snprintf(name, sizeof name, "%s", first < n && rows[i][first].name
                 ? rows[i][first].name : "worst case: the parts' worst cases composed");
        rc = ga_pairset_add_product(j->out, name, rows[i], n); /* takes rows[i] */
        rows[i] = NULL;
    }
    if (rc == GA_OK && with_worst) {
        rc = ga_pairset_add_product(j->out, "universe worst case: the parts' proven worst cases composed",
                                 worst, n);
        worst = NULL;
    }
    if (rc == GA_OK && all_verified) {
        j->out->verified = 1;
        j->out->verified_pair = j->out->npairs - 1;
        /* worst cases of two parts may come from different neighbours: a bound */
        j->out->verified_bound = ndep > 1 || any_bound;
    }
cleanup:
    for (size_t i = 0; rows && i < nrows; i++)
        if (rows[i]) {
            for (size_t b = 0; b < n; b++)
                ga_spec_pair_free(&rows[i][b]);
            free(rows[i]);
        }
    free(rows);
    for (size_t b = 0; worst && b < n; b++)
        ga_spec_pair_free(&worst[b]);
    free(worst);
    free(bcast);
    free(kindname);
    return rc;
}

/* The table of kinds, one row each: adding a kind is a row here, its builder (and its
 * published calibrations, if any) above, and its documentation. */
static const struct {
    const char *name;
    const char *knob;      /* the noise parameter calibrate tunes (NULL: none) */
    int universe;          /* the keys of the universe it accepts (a proven worst case), a
                              mask: 1 row_norm_bound, 2 label_bound, 4 max_rows (0: none) */
    int target;            /* the last dataset column is a target: change_label applies (2:
                              the output mean is linear in it and the covariance free of it,
                              so the label-DP worst case is proven) */
    int nodata;            /* the pairs are the proven worst case over every dataset: a
                              dataset (or relative set) given to the spec itself is refused,
                              not ignored (in a composition it is the other parts') */
    int (*build)(cat_job *j, char *msg, size_t msglen);
    /* published calibrations to compare with the exact one (NULL: none known) */
    size_t (*published)(ga_mech_published *pv, size_t max, ga_pairset *set, ga_spec *s,
                        const ga_build_opts *bo, double eps, double delta, double value,
                        ga_gchisq_work *w);
    /* does the builder hold this spec's pairs as a row family (ga_spec_family)? Then no room
     * is reserved for their records (NULL: never) */
    int (*family)(const cat_job *j);
    const char *const *keys; /* the mechanism's keys (beside repeat and release) */
} kinds[] = {
    {"gaussian_pair", "noise_scale", 0, 0, 0, cat_build_explicit, NULL, NULL,
      ga_spec_pair_mech_keys},
    {"gaussian_mechanism", "sigma", 0, 0, 0, cat_build_gaussian_mechanism,
      cat_pub_gaussian_mechanism, NULL, cat_keys_gaussian_mechanism},
    {"sketch", "noise_sigma", 1, 0, 0, cat_build_sketch, cat_pub_sketch, cat_sketch_family,
      cat_keys_sketch},
    {"linear_regression", "sigma", 1, 1, 0, cat_build_linear_regression,
      cat_pub_linear_regression, NULL, cat_keys_linear_regression},
    {"bayesian_logistic_regression", "sigma", 5, 1, 0, cat_build_logistic, cat_pub_logistic, NULL,
      cat_keys_bayesian_logistic_regression},
    {"gaussian_process_regression", "sigma", 6, 2, 0, cat_build_gp, cat_pub_gp, NULL,
      cat_keys_gaussian_process_regression},
    {"output_perturbation", "sigma", 0, 2, 0, cat_build_output_perturbation, NULL, NULL,
      cat_keys_output_perturbation},
    {"noisy_gradient_descent", "sigma", 0, 2, 0, cat_build_noisy_gd, NULL, NULL,
      cat_keys_noisy_gradient_descent},
    {"matrix_masking", "sigma", 1, 0, 0, cat_build_matrix_masking, cat_pub_matrix_masking, NULL,
      cat_keys_matrix_masking},
    {"composition", "noise_scale", 1, 1, 0, build_composition, NULL, NULL, cat_keys_composition},
    {"subsampled_gaussian", "sigma", 0, 0, 1, cat_build_subsampled, NULL, NULL,
      cat_keys_subsampled_gaussian},
    {"training", NULL, 0, 0, 1, cat_build_training, NULL, NULL, cat_keys_training},
    {"synthetic_random_inputs", "sigma", 0, 1, 0, cat_build_synthetic, NULL, NULL,
      cat_keys_synthetic_random_inputs},
};

#define NKINDS (sizeof kinds / sizeof *kinds)

static int kind_row(const char *name)
{
    for (size_t i = 0; name && i < NKINDS; i++)
        if (!strcmp(name, kinds[i].name))
            return (int)i;
    return -1;
}

int ga_mech_pair_reduce(ga_pair **out, const ga_spec_pair *sp, char *msg, size_t msglen)
{
    ga_spec_pair_view v;
    *out = NULL;
    if (sp->nsub)
        return ga_pair_reduce_subsampled(out, sp->sub, sp->nsub, msg, msglen);
    if (sp->masked)
        return ga_pair_reduce_masked(out, sp->masked, msg, msglen);
    if (sp->synth)
        return ga_pair_reduce_synthetic(out, sp->synth, msg, msglen);
    if (sp->shuffle)
        return ga_pair_reduce_shuffle(out, sp->shuffle, msg, msglen);
    if (sp->ptr)
        return ga_pair_reduce_ptr(out, sp->ptr, msg, msglen);
    if (sp->envelope)
        return ga_pair_reduce_envelope(out, sp->envelope, msg, msglen);
    if (sp->alloc)
        return ga_pair_reduce_allocation(out, sp->alloc, msg, msglen);
    if (ga_spec_pair_view_init(&v, sp, 0))
        return GA_ENOMEM;
    int rc = ga_pair_reduce_product(out, v.in, v.n, msg, msglen);
    ga_spec_pair_view_clear(&v);
    /* rounded laws (a release): Pinsker's TV <= sqrt(KL / 2), the KL of r columns r times,
     * of a product's blocks their sum */
    double kl[2] = {0, 0}, eta = 0;
    size_t nb = sp->nblocks ? sp->nblocks : 1;
    for (size_t b = 0; b < nb; b++) {
        const ga_spec_pair *q = sp->nblocks ? &sp->blocks[b] : sp;
        double r = q->columns >= 1 ? q->columns : 1;
        for (int w = 0; w < 2; w++)
            if (q->rel_kl[w] > 0) /* (ga_up(0) is the smallest subnormal, not 0) */
                kl[w] = ga_up(kl[w] + ga_up(r * q->rel_kl[w]));
        eta += q->rel_eta;
    }
    if (rc == GA_OK && (kl[0] > 0 || kl[1] > 0)) {
        ga_pair_set_input_tv(*out, fmin(1, ga_up(sqrt(ga_up(kl[0] / 2)))),
                             fmin(1, ga_up(sqrt(ga_up(kl[1] / 2)))), eta);
        if (!sp->nblocks && sp->rel_d2[1] > 0)
            ga_pair_set_input_d2(*out, sp->rel_d2[0], sp->rel_d2[1]);
    }
    return rc;
}

int ga_mech_pair_rebuildable(const ga_spec_pair *sp)
{
    if (ga_spec_pair_is_loss(sp))
        return 0;
    if (sp->nblocks == 0)
        return sp->d == 1;
    for (size_t b = 0; b < sp->nblocks; b++)
        if (!ga_mech_pair_rebuildable(&sp->blocks[b]))
            return 0;
    return 1;
}

const ga_pair *ga_mech_pair_use(const ga_pair *kept, const ga_spec_pair *sp, ga_pair **own)
{
    *own = NULL;
    if (kept)
        return kept;
    if (ga_mech_pair_reduce(own, sp, NULL, 0) != GA_OK) {
        ga_pair_free(*own);
        *own = NULL;
    }
    return *own;
}

static const char *kind_knob(int k)
{
    return kinds[k].knob;
}

static int kind_universe(int k)
{
    return kinds[k].universe;
}

const char *ga_mech_kind_at(size_t i)
{
    return i < NKINDS ? kinds[i].name : NULL;
}

const char *const *ga_mech_kind_keys(size_t i)
{
    return i < NKINDS ? kinds[i].keys : NULL;
}

size_t ga_mech_published_values(ga_mech_published *pv, size_t max, ga_pairset *set,
                                ga_spec *s, const ga_build_opts *bo, double eps, double delta,
                                double value, ga_gchisq_work *w)
{
    int k = kind_row(s->kind);
    return k < 0 || !kinds[k].published ? 0
           : kinds[k].published(pv, max, set, s, bo, eps, delta, value, w);
}

const char *ga_mech_knob(const ga_spec *s)
{
    int k = kind_row(s->kind);
    return k < 0 ? NULL : kinds[k].knob;
}

/* rows per item of the norms' loop */
#define NORM_BLOCK 16384

typedef struct {
    const ga_dataset *ds;
    double bound;
    size_t *first; /* per block: its first row over the bound, SIZE_MAX: none */
} norm_ctx;

/* the Euclidean norm of row i of ds */
static double row_norm(const ga_dataset *ds, size_t i)
{
    double t = 0;
    for (size_t j = 0; j < ds->d; j++)
        t += ds->x[i * ds->d + j] * ds->x[i * ds->d + j];
    return sqrt(t);
}

static void norm_block(void *ctx, size_t b, ga_gchisq_work *w)
{
    (void)w;
    norm_ctx *c = ctx;
    size_t end = (b + 1) * NORM_BLOCK < c->ds->n ? (b + 1) * NORM_BLOCK : c->ds->n;
    c->first[b] = SIZE_MAX;
    for (size_t i = b * NORM_BLOCK; i < end && c->first[b] == SIZE_MAX; i++)
        if (row_norm(c->ds, i) > c->bound)
            c->first[b] = i;
}

/* *row: the first row of ds whose norm exceeds bound (SIZE_MAX: none), the rows checked on
 * up to jobs threads a block each. GA_OK, or GA_ENOMEM (no room for the blocks' answers) */
static int first_row_over(size_t *row, const ga_dataset *ds, double bound, int jobs)
{
    size_t nb = (ds->n + NORM_BLOCK - 1) / NORM_BLOCK;
    norm_ctx c = {ds, bound, malloc((nb ? nb : 1) * sizeof *c.first)};
    *row = SIZE_MAX;
    if (!c.first)
        return GA_ENOMEM;
    ga_par_items(nb, jobs, 0, norm_block, &c);
    for (size_t b = 0; b < nb && *row == SIZE_MAX; b++)
        *row = c.first[b];
    free(c.first);
    return GA_OK;
}

/* universe: only the kinds that use it accept it, and every given row must obey it (its norm
 * checked on up to jobs threads) */
static int check_universe(ga_spec *s, int jobs, char *msg, size_t msglen)
{
    if (!s->has_universe)
        return GA_OK;
    int k = kind_row(s->kind);
    if (k < 0 || !kinds[k].universe) {
        char what[300], list[160] = "";
        for (size_t i = 0; i < NKINDS; i++)
            if (kinds[i].universe) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", kinds[i].name);
            }
        snprintf(what, sizeof what, "kind '%s' does not use a universe (%s do): remove it",
                 s->kind, list);
        return ga_spec_fail(s, s->universe, "universe", msg, msglen, what);
    }
    static const char *const keys[] = {"row_norm_bound", "label_bound", "max_rows"};
    const double given[] = {s->row_norm_bound, s->universe_label_bound, s->universe_max_rows};
    char form[80] = "";
    for (int i = 0; i < 3; i++)
        if (kinds[k].universe >> i & 1) {
            size_t l = strlen(form);
            snprintf(form + l, sizeof form - l, "%s%s: %s", l ? ", " : "{", keys[i], i == 0 ? "l" : i == 1 ? "B" : "n");
        }
    for (int i = 0; i < 6; i++) { /* (the missing keys first, then the extra ones) */
        int wanted = kinds[k].universe >> (i % 3) & 1;
        if (wanted == (given[i % 3] > 0) || (i < 3) != wanted)
            continue;
        char what[200], path[64];
        snprintf(path, sizeof path, "universe.%s", keys[i % 3]);
        snprintf(what, sizeof what, "%s: the universe of kind %s is %s}", wanted ? "missing" :
                 "not used here", s->kind, form);
        return ga_spec_fail(s, s->universe, path, msg, msglen, what);
    }
    if (kinds[k].universe != 1)
        return GA_OK; /* (the builder checks its rows) */
    const ga_dataset *sets[2] = {&s->data, &s->candidates};
    for (int k = 0; k < 2; k++) {
        size_t i;
        if (first_row_over(&i, sets[k], s->row_norm_bound * (1 + 1e-12), jobs))
            return ga_spec_fail(s, s->universe, "universe.row_norm_bound", msg, msglen,
                                "out of memory checking the rows' norms"), GA_ENOMEM;
        if (i != SIZE_MAX) {
            char what[200];
            snprintf(what, sizeof what, "%s row %zu has norm %.17g > row_norm_bound %.17g",
                     k ? "candidate" : "dataset", i + 1, row_norm(sets[k], i),
                     s->row_norm_bound);
            return ga_spec_fail(s, s->universe, "universe.row_norm_bound", msg, msglen, what);
        }
    }
    return GA_OK;
}

/* change_label: only kinds with a target; a bound unless the labels are binary */
static int check_labels(ga_spec *s, int k, char *msg, size_t msglen)
{
    if (s->relation != GA_REL_CHANGE_LABEL)
        return GA_OK;
    if (!kinds[k].target) {
        char what[300], list[200] = "";
        for (size_t i = 0; i < NKINDS; i++)
            if (kinds[i].target && strcmp(kinds[i].name, "composition")) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", kinds[i].name);
            }
        snprintf(what, sizeof what, "change_label needs a kind whose dataset ends with a target "
                 "(%s); kind %s has none", list, s->kind);
        return ga_spec_fail(s, s->mechanism, "neighbours.relation", msg, msglen, what);
    }
    if (!cat_label_flip(s) && !(s->label_bound > 0) && strcmp(s->kind, "composition"))
        return ga_spec_fail(s, s->mechanism, "neighbours.label_bound", msg, msglen,
                            "missing: change_label on a continuous target needs the largest "
                            "change C, {relation: change_label, label_bound: C}");
    return GA_OK;
}

/* columns x the squared Mahalanobis distance of an equal-covariance pair (a product: the sum
 * over its blocks); -1 when some covariances differ (bit for bit) or are not definite */
static double pair_d2(const ga_spec_pair *p)
{
    if (p->nblocks) {
        double t = 0;
        for (size_t b = 0; b < p->nblocks; b++) {
            double u = pair_d2(&p->blocks[b]);
            if (u < 0)
                return -1;
            t += u;
        }
        return t;
    }
    size_t d = p->d;
    if (memcmp(p->s_x, p->s_y, d * d * sizeof *p->s_x))
        return -1;
    double *L = malloc(d * d * sizeof *L), *v = malloc(d * sizeof *v), t = -1;
    if (L && v) {
        memcpy(L, p->s_x, d * d * sizeof *L);
        for (size_t j = 0; j < d; j++)
            v[j] = p->mu_x[j] - p->mu_y[j];
        if (ga_lapack_potrf('L', d, L, d) == 0) {
            ga_cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)d, L, (int)d, v, 1);
            t = p->columns * ga_cblas_ddot((int)d, v, 1, v, 1);
        }
    }
    free(L);
    free(v);
    return t;
}

/* Label DP where the output mean is linear in the labels and the covariance does not depend
 * on them (the kinds' target = 2): changing row i's label by c moves the mean by c u_i and
 * leaves the covariance S, so the pair is a Gaussian mechanism whose profile increases with
 * |c| sqrt(u_i^T S^{-1} u_i); the audited pairs (c = +-C for every row) contain the worst
 * case over every label change of at most C: the pair with the largest Mahalanobis distance. */
static int label_worst_case(cat_job *j)
{
    ga_spec *s = j->s;
    size_t best = 0;
    double bd = -1;
    if (j->out->truncated || s->rows || j->out->npairs == 0)
        return GA_OK; /* not every row was audited: no proof */
    for (size_t i = 0; i < j->out->npairs; i++) {
        double t = pair_d2(&j->out->pairs[i]);
        if (t < 0)
            return GA_OK; /* not a Gaussian mechanism after all: no proof */
        if (t > bd) {
            bd = t;
            best = i;
        }
    }
    if (j->out->pairs[best].nblocks) { /* a product: its blocks copied into the worst case */
        size_t n = j->out->pairs[best].nblocks;
        ga_spec_pair *blocks = calloc(n, sizeof *blocks);
        int rc = blocks ? GA_OK : GA_ENOMEM;
        for (size_t b = 0; b < n && rc == GA_OK; b++)
            rc = cat_pair_copy(&blocks[b], &j->out->pairs[best].blocks[b]);
        char name[200];
        snprintf(name, sizeof name, "label-DP worst case: %s", j->out->pairs[best].name);
        if (rc == GA_OK) {
            rc = ga_pairset_add_product(j->out, name, blocks, n);
        } else if (blocks) {
            for (size_t b = 0; b < n; b++)
                ga_spec_pair_free(&blocks[b]);
            free(blocks);
        }
        if (rc)
            return rc;
        goto proven;
    }
    /* appended as a pair of its own, as every kind's proven worst case is */
    ga_spec_pair w;
    int rc = cat_pair_copy(&w, &j->out->pairs[best]);
    if (rc)
        return rc;
    char name[200];
    snprintf(name, sizeof name, "label-DP worst case: %s", j->out->pairs[best].name);
    free(w.name);
    if ((rc = ga_pairset_add(j->out, name, w.d, w.columns, w.mu_x, w.s_x, w.mu_y, w.s_y)))
        return rc;
proven:
    j->out->verified = 1;
    j->out->verified_pair = j->out->npairs - 1;
    snprintf(j->out->verified_note, sizeof j->out->verified_note,
             "worst case over every change of one label by at most %g (the output mean is "
             "linear in the labels and the covariance free of them, so the pair with the "
             "largest Mahalanobis distance dominates every label change)", s->label_bound);
    return GA_OK;
}

/* a kind's pairs: its universe and label checks, caps, its builder */
static int build_kind(cat_job *j, int k, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    int rc = check_universe(s, j->o->jobs, msg, msglen);
    if (rc || (rc = check_labels(s, k, msg, msglen)))
        return rc;
    /* (a row family holds its pairs without records: room for them would be wasted) */
    int fam = kinds[k].family && kinds[k].family(j);
    if ((rc = (fam ? cat_pairs_cap : cat_pairs_fit)(j, cat_nb_count(s), 1, "neighbours", msg, msglen)))
        return rc;
    rc = s->nrel ? cat_build_relative(j, kinds[k].build, msg, msglen) : kinds[k].build(j, msg, msglen);
    if (rc == GA_OK && ga_pairset_npairs(j->out) == 0 && !j->out->truncated)
        rc = ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                          "no neighbouring pair to audit (empty candidate list or row selection)");
    /* the release before the label proof: the proof then holds for the released laws */
    if (rc == GA_OK)
        rc = cat_apply_release(j, &s->release, 0, msg, msglen);
    if (rc == GA_OK && s->relation == GA_REL_CHANGE_LABEL && kinds[k].target == 2)
        rc = label_worst_case(j);
    return rc;
}

int ga_mech_build(ga_pairset *out, ga_spec *s, const ga_build_opts *bo, char *msg,
                  size_t msglen)
{
    static const ga_build_opts none = {0};
    cat_job job = {s, out, bo ? bo : &none}, *j = &job;
    int k = kind_row(s->kind);
    if (k < 0) /* ga_spec_parse checks the names it is given; this is the backstop */
        return ga_spec_fail(s, s->mechanism, "mechanism.kind", msg, msglen, "unknown kind");
    if (msg && msglen)
        msg[0] = 0;
    if (kinds[k].nodata && (s->data.n || s->nrel))
        return ga_spec_fail(s, s->mechanism, "dataset", msg, msglen, "the sampled steps' pairs "
                            "are the proven worst case over every dataset (clipped gradients "
                            "of norm <= 1): they use no dataset, remove it");
    /* (a spec with a dataset was told so by the parser, at its neighbours line) */
    if (!kinds[k].nodata && !s->nrel && !s->candidates.n &&
        (s->relation == GA_REL_ADD_ONE || s->relation == GA_REL_REPLACE_ONE)) {
        const char *rel = s->relation == GA_REL_ADD_ONE ? "add_one" : "replace_one";
        char what[128];
        snprintf(what, sizeof what, "missing: %s needs candidate rows, {relation: %s, "
                 "candidates: [[...]]}", rel, rel);
        return ga_spec_fail(s, s->mechanism, "neighbours.candidates", msg, msglen, what);
    }
    int rc = kinds[k].build != cat_build_explicit ? build_kind(j, k, msg, msglen)
             : (rc = cat_build_explicit(j, msg, msglen)) ? rc : cat_apply_release(j, &s->release, 0, msg, msglen);
    rc = rc ? rc : cat_apply_repeat(j, 0, msg, msglen);
    if (rc == GA_ENOMEM && msg && msglen && !msg[0]) { /* (a builder's allocation, unnamed) */
        size_t d = out->npairs ? out->pairs[out->npairs - 1].d : 0;
        char size[96] = "";
        if (d)
            snprintf(size, sizeof size, "; the laws take %.3g MB per pair of dimension %zu",
                     (2.0 * (double)d * (double)d + 2.0 * (double)d) * 8e-6, d);
        ga_msg(msg, msglen, "%s: out of memory while building the neighbouring pairs (%zu "
               "built%s)", s->path, ga_pairset_npairs(out), size);
    }
    return rc;
}

int ga_mech_part_knob(const ga_spec *s, size_t part, const char **knob, double *current)
{
    const ga_node *parts = ga_node_get(s->mechanism, "parts");
    *knob = NULL;
    *current = NAN;
    if (!s->kind || strcmp(s->kind, "composition") || !parts || part < 1 || part > parts->n)
        return GA_EINVAL;
    const ga_node *node = parts->kids[part - 1], *kn = node ? ga_node_get(node, "kind") : NULL;
    int k = kn && kn->kind == GA_NODE_SCALAR ? kind_row(kn->text) : -1;
    if (k < 0 || !kinds[k].knob)
        return GA_EINVAL;
    *knob = kinds[k].knob;
    const ga_node *v = ga_node_get(node, kinds[k].knob);
    if (v && v->kind == GA_NODE_SCALAR)
        ga_decimal_to_double(current, v->text);
    return GA_OK;
}

int ga_mech_rebuild(ga_pairset *set, ga_spec *s, const ga_build_opts *bo, double value,
                    char *msg, size_t msglen)
{
    const char *k = ga_mech_knob(s);
    if (!k)
        return GA_EDOM;
    if ((s->data.n && !s->data.x) || (!strcmp(s->kind, "gaussian_pair") && !s->written.npairs)) {
        /* (loaded with drop_data: a caller's mistake) */
        ga_msg(msg, msglen, "%s: the dataset's values or the written pairs were freed or taken "
               "by the first build (drop_data): the pairs cannot be rebuilt", s->path);
        return GA_EINVAL;
    }
    ga_build_opts o = {0};
    if (bo)
        o = *bo;
    o.knob = k;
    o.knob_value = value;
    ga_pairset_reset(set);
    return ga_mech_build(set, s, &o, msg, msglen);
}

static int mech_load(ga_spec *s, ga_pairset *set, const char *text, size_t len,
                     const char *path, const ga_spec_opts *so, const ga_build_opts *bo,
                     char *msg, size_t msglen)
{
    ga_spec_opts o = {0};
    if (so)
        o = *so;
    o.kind_at = ga_mech_kind_at; /* the parser checks kind names against the table */
    memset(set, 0, sizeof *set);
    int rc = text ? ga_spec_parse_opts(s, text, len, path, &o, msg, msglen)
                  : ga_spec_load_opts(s, path, &o, msg, msglen);
    if (rc == GA_OK && (rc = ga_mech_build(set, s, bo, msg, msglen)))
        ga_mech_clear(s, set);
    return rc;
}

int ga_mech_load(ga_spec *s, ga_pairset *set, const char *path, const ga_spec_opts *so,
                 const ga_build_opts *bo, char *msg, size_t msglen)
{
    return mech_load(s, set, NULL, 0, path, so, bo, msg, msglen);
}

int ga_mech_parse(ga_spec *s, ga_pairset *set, const char *text, size_t len, const char *name,
                  const ga_spec_opts *so, const ga_build_opts *bo, char *msg, size_t msglen)
{
    return mech_load(s, set, text ? text : "", len, name, so, bo, msg, msglen);
}

void ga_mech_clear(ga_spec *s, ga_pairset *set)
{
    ga_pairset_clear(set);
    ga_spec_clear(s);
}

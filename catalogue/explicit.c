/*
 * explicit.c - explicit pairs (parsed with the spec) and the keys every kind shares: repeat
 * (k independent runs: k times the iid columns) and release (the output multiplied by an
 * exact matrix, its laws computed in ball arithmetic from the exact inputs).
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cat_build_explicit(cat_job *j, char *msg, size_t msglen)
{
    ga_pairset *w = &j->s->written;
    (void)msg, (void)msglen;
    if (!j->o->knob && j->o->drop_data) { /* built once: the pairs as written, taken */
        ga_pairset_clear(j->out);
        j->out->pairs = w->pairs;
        j->out->npairs = w->npairs;
        j->out->cappairs = w->cappairs;
        memset(w, 0, sizeof *w);
        return GA_OK;
    }
    /* calibrate: every rebuild scales the covariances of the pairs as written afresh */
    double c2 = j->o->knob ? j->o->knob_value * j->o->knob_value : 1;
    int rc = GA_OK;
    for (size_t i = 0; i < w->npairs && rc == GA_OK; i++) {
        ga_spec_pair p;
        if ((rc = cat_pair_copy(&p, &w->pairs[i])))
            break;
        if (!j->o->knob) { /* as written, with its decimals */
            rc = ga_pairset_add_moved(j->out, w->pairs[i].name, &p);
            continue;
        }
        for (size_t t = 0; t < p.d * p.d; t++) {
            p.s_x[t] *= c2;
            p.s_y[t] *= c2;
        }
        rc = cat_pair_room_move(j, &p, w->pairs[i].name); /* (the laws only: scaled, they
                                                              are not the written decimals) */
        free(p.name);
    }
    return rc;
}

int cat_apply_repeat(cat_job *j, size_t from, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    double k;
    int rc = cat_mech_number(j, "repeat", &k, 0, msg, msglen);
    if (rc < 0)
        return GA_OK; /* absent */
    if (rc)
        return rc;
    if (!(k >= 1 && k == floor(k) && k <= 1e9))
        return ga_spec_fail(s, ga_node_get(s->mechanism, "repeat"), "mechanism.repeat", msg,
                            msglen, "must be a whole number from 1 to 1e9");
    for (size_t i = from; i < j->out->npairs && k > 1; i++) {
        for (size_t t = 0; t < j->out->pairs[i].nsub; t++)
            if (j->out->pairs[i].sub[t].columns > 0)
                return ga_spec_fail(s, ga_node_get(s->mechanism, "repeat"), "mechanism.repeat",
                                    msg, msglen, "a subsampled sketch is a single release: "
                                    "repeat (independent samples) is not supported yet");
        if (ga_spec_pair_single(&j->out->pairs[i]))
            return ga_spec_fail(s, ga_node_get(s->mechanism, "repeat"), "mechanism.repeat", msg,
                                msglen, "masked, synthetic and propose-test-release releases and "
                                "sensitivity envelopes are single releases and shuffled epochs "
                                "and random allocation count their runs in epochs: repeat "
                                "(independent runs) is not supported");
    }
    for (size_t i = from; i < j->out->npairs; i++) {
        ga_spec_pair *p = &j->out->pairs[i];
        for (size_t t = 0; t < p->nsub; t++) /* k runs of T steps: k T steps */
            p->sub[t].steps *= k;
        p->columns *= k;
        for (size_t b = 0; b < p->nblocks; b++)
            p->blocks[b].columns *= k;
    }
    if (j->out->verified && k > 1) {
        size_t l = strlen(j->out->verified_note);
        snprintf(j->out->verified_note + l, sizeof j->out->verified_note - l,
                 "; repeated %.0f times (independent runs compose the worst case)", k);
    }
    return GA_OK;
}

int cat_release_injective(const ga_dataset *A)
{
    const double u = 0x1p-53;
    size_t m = A->n, d = A->d;
    if (m < d || d == 0 || (double)m * u >= 0.01)
        return 0;
    double amax = 0;
    for (size_t i = 0; i < m * d; i++)
        amax = fmax(amax, fabs(A->x[i]));
    if (!(amax > 0) || !isfinite(amax))
        return 0;
    int e = ilogb(amax);
    double *As = malloc(m * d * sizeof *As), *G = calloc(d * d, sizeof *G);
    int ok = 0;
    if (!As || !G)
        goto cleanup;
    double F = 0;
    for (size_t i = 0; i < m * d; i++) {
        As[i] = ldexp(A->x[i], -e); /* exact: |As| in [2^-400, 2) or 0 */
        if (As[i] != 0 && fabs(As[i]) < 0x1p-400)
            goto cleanup;
        F = ga_up(F + ga_up(As[i] * As[i]));
    }
    for (size_t a = 0; a < d; a++)
        for (size_t b = 0; b <= a; b++) {
            double t = 0;
            for (size_t i = 0; i < m; i++)
                t += As[i * d + a] * As[i * d + b];
            G[a * d + b] = G[b * d + a] = t;
        }
    double mu;
    if (ga_spd_eig_min_lower_est(&mu, G, d) != GA_OK || !(mu > 0))
        goto cleanup;
    double mu_ = ga_up((double)m * u), gm = ga_up(mu_ / ga_dn(1 - mu_));
    double lo = ga_dn(mu - ga_up(gm * F));
    /* sqrt(lo) > u sqrt(F), with a factor 4 to spare: lo > 16 u^2 F */
    ok = lo > 0 && lo > ga_up(16 * u * u * F);
cleanup:
    free(As);
    free(G);
    return ok;
}

const char **cat_release_texts(const ga_node *rn, size_t m, size_t d)
{
    const ga_node *mx = rn ? ga_node_get(rn, "matrix") : NULL;
    if (!mx || mx->kind != GA_NODE_SEQ || mx->n != m)
        return NULL;
    const char **t = malloc(m * d * sizeof *t);
    for (size_t i = 0; t && i < m; i++) {
        const ga_node *row = mx->kids[i];
        for (size_t j = 0; t && j < d; j++) {
            if (row->kind != GA_NODE_SEQ || row->n != d || row->kids[j]->kind != GA_NODE_SCALAR) {
                free(t);
                t = NULL;
            } else {
                t[i * d + j] = row->kids[j]->text;
            }
        }
    }
    return t;
}

int cat_release_pair(cat_job *j, ga_spec_pair *p, const ga_dataset *A, const char **atxt)
{
    if (j->out->release_note[0]) {
        /* an earlier pair could not be released (a rank-deficient A, the deadline, the size):
         * the others would fail alike, at the same cost */
        p->unreleased = 1;
        return GA_OK;
    }
    ga_spec_pair_view v;
    if (ga_spec_pair_view_init(&v, p, 1))
        return GA_ENOMEM;
    ga_release_laws L;
    char why[300] = "";
    int rc = ga_pair_release_laws(&L, v.in, v.txt, A->n, A->x, atxt, j->o->deadline, why, sizeof why);
    ga_spec_pair_view_clear(&v);
    if (rc == GA_OK) {
        ga_spec_pair_set_laws(p, L.m, L.mu_x, L.s_x, L.mu_y, L.s_y);
        p->rel_kl[0] = L.kl[0];
        p->rel_kl[1] = L.kl[1];
        p->rel_eta = L.eta;
        p->rel_d2[0] = L.d2[0];
        p->rel_d2[1] = L.d2[1];
        return GA_OK;
    }
    if (rc == GA_ETIME)
        snprintf(why, sizeof why, "the deadline passed before the release was computed");
    else if (rc != GA_EDOM)
        return rc;
    p->unreleased = 1;
    if (!j->out->release_note[0])
        snprintf(j->out->release_note, sizeof j->out->release_note, "%s", why);
    return GA_OK;
}

int cat_apply_release(cat_job *j, const ga_dataset *A, size_t from, char *msg, size_t msglen)
{
    ga_spec *s = j->s;
    if (A->n == 0 || j->out->release_done)
        return GA_OK; /* no release, or the kind's builder released its pairs itself */
    const ga_node *rn = ga_node_get(s->mechanism, "release");
    size_t m = A->n, d = A->d;
    int rc0 = cat_pairs_fit(j, j->out->npairs, m, "mechanism.release", msg, msglen); /* caps first */
    if (rc0)
        return rc0;
    /* an injective release changes no pair's profile: the pairs stay as built, exact (their
     * decimals kept), whatever A's scale or conditioning, once its rank is proven */
    int injective = cat_release_injective(A);
    const char **atxt = NULL;
    int rc = GA_OK;
    for (size_t i = from; i < j->out->npairs && rc == GA_OK; i++) {
        ga_spec_pair *p = &j->out->pairs[i];
        if (j->out->verified && i == j->out->verified_pair)
            continue;
        char what[300];
        if (p->reduced || p->nblocks) {
            snprintf(what, sizeof what, "kind %s builds its pairs in a whitened basis, not in "
                     "the output coordinates a release matrix acts on (matrix_masking, and "
                     "gaussian_mechanism by sensitivity: give the outputs f explicitly)", s->kind);
            rc = ga_spec_fail(s, rn, "mechanism.release", msg, msglen, what);
        } else if (p->d != d) {
            snprintf(what, sizeof what, "the matrix has %zu columns; the output has dimension %zu",
                     d, p->d);
            rc = ga_spec_fail(s, rn, "mechanism.release", msg, msglen, what);
        } else if (!injective) {
            if (!atxt)
                atxt = cat_release_texts(rn, m, d);
            rc = cat_release_pair(j, p, A, atxt);
            if (rc == GA_ENOMEM)
                snprintf(msg, msglen, "out of memory while computing the released laws of "
                         "pair %zu (a %zu x %zu release)", i + 1, m, d);
        }
    }
    free(atxt);
    if (rc)
        return rc;
    if (j->out->verified) {
        size_t l = strlen(j->out->verified_note);
        snprintf(j->out->verified_note + l, sizeof j->out->verified_note - l,
                 injective ? "; the release matrix has full column rank (proven), so the "
                             "release has the same profile"
                           : "; before the release, which cannot increase delta (so a bound only)");
        j->out->verified_bound |= !injective;
    }
    return GA_OK;
}

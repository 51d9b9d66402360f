/*
 * relative.c - relative DP: the pairs of two given datasets that differ in a multiset of
 * rows, found by sorting both.
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cat_pair_room_move(cat_job *j, ga_spec_pair *p, const char *name)
{
    ga_spec_pair q = {.d = p->d, .columns = p->columns, .mu_x = p->mu_x, .s_x = p->s_x,
                      .mu_y = p->mu_y, .s_y = p->s_y, .reduced = p->reduced,
                      .laws_block = p->laws_block};
    return ga_pairset_add_moved(j->out, name, &q);
}

/* lexicographic order of rows a and b of D */
static int row_cmp(const ga_dataset *D, size_t a, size_t b)
{
    const double *x = D->x + a * D->d, *y = D->x + b * D->d;
    for (size_t j = 0; j < D->d; j++)
        if (x[j] != y[j])
            return x[j] < y[j] ? -1 : 1;
    return 0;
}

/* the rows of D sorted lexicographically (an index permutation; bottom-up merge sort, so no
 * comparison context in a global) */
static size_t *sorted_rows(const ga_dataset *D)
{
    size_t n = D->n, *ix = malloc((n ? n : 1) * sizeof *ix), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!ix || !tmp) {
        free(ix);
        free(tmp);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid || b < hi)
                tmp[o++] = b >= hi || (a < mid && row_cmp(D, ix[a], ix[b]) <= 0) ? ix[a++] : ix[b++];
        }
        memcpy(ix, tmp, n * sizeof *ix);
    }
    free(tmp);
    return ix;
}

/* Multiset difference of A and B (sorted indices ia, ib): the rows of A not matched in B (at
 * most 2 kept in onlya) and of B not in A. Returns the counts through na, nb. */
static void multiset_diff(const ga_dataset *A, const size_t *ia, const ga_dataset *B,
                          const size_t *ib, size_t *onlya, size_t *na, size_t *onlyb, size_t *nb)
{
    size_t i = 0, j = 0, d = A->d;
    *na = *nb = 0;
    while (i < A->n || j < B->n) {
        int c = i >= A->n ? 1 : j >= B->n ? -1 : 0;
        if (!c)
            for (size_t k = 0; k < d && !c; k++) {
                double x = A->x[ia[i] * d + k], y = B->x[ib[j] * d + k];
                c = x == y ? 0 : x < y ? -1 : 1;
            }
        if (c == 0) {
            i++;
            j++;
        } else if (c < 0) {
            if (*na < 2)
                onlya[*na] = ia[i];
            ++*na;
            i++;
        } else {
            if (*nb < 2)
                onlyb[*nb] = ib[j];
            ++*nb;
            j++;
        }
    }
}

int cat_build_relative(cat_job *job, int (*build)(cat_job *, char *, size_t), char *msg,
                       size_t msglen)
{
    ga_spec *s = job->s;
    if (!strcmp(s->kind, "gaussian_mechanism") || !strcmp(s->kind, "composition"))
        return ga_spec_fail(s, s->mechanism, "relative", msg, msglen,
                            "relative DP needs a kind whose output law is computed from the "
                            "dataset (not gaussian_mechanism or composition)");
    if (s->rows || s->candidates.n || s->has_universe)
        return ga_spec_fail(s, s->mechanism, "relative", msg, msglen,
                            "with relative, the neighbours are the pairs within the set: give "
                            "only neighbours: RELATION (no rows, candidates or universe)");
    int rel = s->relation ? s->relation : GA_REL_REMOVE_ONE;
    if (rel == GA_REL_CHANGE_LABEL)
        return ga_spec_fail(s, s->mechanism, "neighbours", msg, msglen,
                            "relative DP supports remove_one, add_one, replace_one, zero_out");
    size_t m = s->nrel, found = 0;
    size_t **ix = calloc(m, sizeof *ix);
    int rc = ix ? GA_OK : GA_ENOMEM;
    for (size_t i = 0; i < m && rc == GA_OK; i++)
        if (!(ix[i] = sorted_rows(&s->rel_sets[i])))
            rc = GA_ENOMEM;
    for (size_t i = 0; i < m && rc == GA_OK; i++)
        for (size_t j = 0; j < m && rc == GA_OK; j++) {
            if (i == j || (rel == GA_REL_REPLACE_ONE && j < i) || cat_out_of_time(job, m * m))
                continue;
            const ga_dataset *A = &s->rel_sets[i], *B = &s->rel_sets[j];
            size_t oa[2], ob[2], na, nb;
            multiset_diff(A, ix[i], B, ix[j], oa, &na, ob, &nb);
            int remove = rel == GA_REL_REMOVE_ONE && na == 1 && nb == 0;
            int add = rel == GA_REL_ADD_ONE && na == 0 && nb == 1;
            int repl = (rel == GA_REL_REPLACE_ONE || rel == GA_REL_ZERO_OUT) && na == 1 && nb == 1;
            if (repl && rel == GA_REL_ZERO_OUT)
                for (size_t c = 0; c < B->d; c++)
                    repl &= B->x[ob[0] * B->d + c] == 0;
            if (!remove && !add && !repl)
                continue;
            ga_spec sub = *s;
            ga_pairset out = {0};
            ga_build_opts o = *job->o;
            o.drop_data = 0; /* (the set's dataset) */
            cat_job sj = {&sub, &out, &o};
            size_t row = oa[0];
            sub.data = *A;
            sub.nrel = 0;
            sub.rel_sets = NULL;
            sub.relation = rel;
            sub.rows = remove || repl ? &row : NULL;
            sub.nrows_sel = remove || repl ? 1 : 0;
            memset(&sub.candidates, 0, sizeof sub.candidates);
            if (add || (repl && rel == GA_REL_REPLACE_ONE)) {
                sub.candidates.n = 1;
                sub.candidates.d = B->d;
                sub.candidates.x = B->x + ob[0] * B->d;
            }
            rc = build(&sj, msg, msglen);
            if (rc == GA_OK && out.npairs == 1) {
                char name[300];
                snprintf(name, sizeof name, "datasets[%zu] -> datasets[%zu]: %s", i + 1, j + 1,
                         out.pairs[0].name);
                ga_spec_pair p = out.pairs[0];
                free(p.name);
                p.name = NULL;
                memset(&out.pairs[0], 0, sizeof out.pairs[0]);
                /* moved into s under its new name */
                rc = cat_pair_room_move(job, &p, name);
                found++;
            }
            ga_pairset_clear(&out);
        }
    for (size_t i = 0; ix && i < m; i++)
        free(ix[i]);
    free(ix);
    if (rc == GA_OK && found == 0 && !job->out->truncated)
        rc = ga_spec_fail(s, s->mechanism, "relative.datasets", msg, msglen,
                          "no two datasets of the set are neighbours under the relation");
    return rc;
}

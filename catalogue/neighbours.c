/*
 * neighbours.c - the neighbour relations of a dataset (doc/spec.md: add_one, remove_one,
 * replace_one, change_label, and a universe's worst cases): how many neighbours a spec has,
 * what the k-th one changes, and the neighbouring dataset itself.
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cat_label_flip(const ga_spec *s)
{
    return s->kind && !strcmp(s->kind, "bayesian_logistic_regression");
}

size_t cat_nb_count(const ga_spec *s)
{
    size_t rows = s->rows ? s->nrows_sel : s->data.n;
    switch (s->relation) {
    case GA_REL_ADD_ONE:
        return s->candidates.n;
    case GA_REL_REPLACE_ONE:
        return rows * s->candidates.n;
    case GA_REL_CHANGE_LABEL:
        return cat_label_flip(s) ? rows : 2 * rows;
    default:
        return rows;
    }
}

int cat_nb_describe(const ga_spec *s, size_t k, nb_change *c, double *v, char *name,
                    size_t len)
{
    const ga_dataset *D = &s->data;
    size_t d = D->d, nc = s->candidates.n;
    size_t rowsel = s->relation == GA_REL_REPLACE_ONE ? k / (nc ? nc : 1)
                    : s->relation == GA_REL_CHANGE_LABEL && !cat_label_flip(s) ? k / 2 : k;
    size_t row = s->rows ? s->rows[rowsel] : rowsel;
    if (s->relation != GA_REL_ADD_ONE && row >= D->n)
        return -1;
    c->row = row;
    c->v = v;
    switch (s->relation) {
    case GA_REL_ADD_ONE:
        c->row = SIZE_MAX;
        memcpy(v, s->candidates.x + k * d, d * sizeof *v);
        snprintf(name, len, "add candidate %zu", k + 1);
        break;
    case GA_REL_ZERO_OUT:
        memset(v, 0, d * sizeof *v);
        snprintf(name, len, "zero out row %zu", row + 1);
        break;
    case GA_REL_CHANGE_LABEL: {
        memcpy(v, D->x + row * d, d * sizeof *v);
        double *y = v + d - 1; /* the target: the last column */
        if (cat_label_flip(s)) {
            *y = D->labels_pm1 ? -*y : 1 - *y; /* labels in {-1, 1} or {0, 1} */
            snprintf(name, len, "flip the label of row %zu", row + 1);
        } else {
            double a = k % 2 ? -s->label_bound : s->label_bound;
            *y += a;
            snprintf(name, len, "change the label of row %zu by %+g", row + 1, a);
        }
        break;
    }
    case GA_REL_REPLACE_ONE:
        memcpy(v, s->candidates.x + (k % nc) * d, d * sizeof *v);
        snprintf(name, len, "replace row %zu by candidate %zu", row + 1, k % nc + 1);
        break;
    default: /* remove_one */
        c->v = NULL;
        snprintf(name, len, "remove row %zu", row + 1);
        break;
    }
    return 0;
}

int cat_nb_apply(double **Dp, size_t *m, const double *Z, size_t n, size_t d,
                 const nb_change *c)
{
    double *x = malloc((n + 1) * d * sizeof *x);
    if (!x)
        return GA_ENOMEM;
    memcpy(x, Z, n * d * sizeof *x);
    if (c->row == SIZE_MAX) {
        memcpy(x + n * d, c->v, d * sizeof *x);
        *m = n + 1;
    } else if (c->v) {
        memcpy(x + c->row * d, c->v, d * sizeof *x);
        *m = n;
    } else {
        memmove(x + c->row * d, x + (c->row + 1) * d, (n - c->row - 1) * d * sizeof *x);
        *m = n - 1;
    }
    *Dp = x;
    return GA_OK;
}

int cat_nb_make(const ga_spec *s, size_t k, double **Dp, size_t *m, char *name, size_t len)
{
    size_t d = s->data.d;
    double *v = malloc(d * sizeof *v);
    nb_change c;
    int r = !v ? -2 : cat_nb_describe(s, k, &c, v, name, len);
    if (r == 0 && cat_nb_apply(Dp, m, s->data.x, s->data.n, d, &c) != GA_OK)
        r = -2;
    free(v);
    return r;
}

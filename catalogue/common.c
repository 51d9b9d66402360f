/*
 * common.c - small dense linear algebra for the builders (Gram matrices, SPD solves and
 * inverses through LAPACK's Cholesky) and array copies.
 */
#include "catalogue/internal.h"

#include <gsl/gsl_cdf.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* S <- X^T X (+ c I), X n x d row-major (the first n rows) */
void cat_gram(double *S, const double *X, size_t n, size_t d, double c)
{
    memset(S, 0, d * d * sizeof *S);
    if (n)
        ga_cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)d, (int)n, 1.0, X, (int)d, 0.0,
                    S, (int)d);
    for (size_t i = 0; i < d; i++) {
        S[i * d + i] += c;
        for (size_t j = 0; j < i; j++)
            S[i * d + j] = S[j * d + i];
    }
}

int cat_spd_solve(double *x, const double *A, const double *b, size_t d, size_t nrhs)
{
    double *L = malloc(d * d * sizeof *L);
    if (!L)
        return GA_ENOMEM;
    memcpy(L, A, d * d * sizeof *L);
    memcpy(x, b, d * nrhs * sizeof *x);
    int info = ga_lapack_posv('L', d, nrhs, L, d, x, nrhs);
    free(L);
    return info == 0 ? GA_OK : GA_EINVAL;
}

int cat_spd_inverse(double *inv, const double *A, size_t d)
{
    double *id = calloc(d * d, sizeof *id);
    if (!id)
        return GA_ENOMEM;
    for (size_t i = 0; i < d; i++)
        id[i * d + i] = 1;
    int rc = cat_spd_solve(inv, A, id, d, d);
    free(id);
    for (size_t i = 0; i < d && rc == GA_OK; i++)
        for (size_t j = 0; j < i; j++)
            inv[i * d + j] = inv[j * d + i] = 0.5 * (inv[i * d + j] + inv[j * d + i]);
    return rc;
}

double *cat_dup(const double *v, size_t n)
{
    double *r = malloc((n ? n : 1) * sizeof *r);
    if (r && n)
        memcpy(r, v, n * sizeof *r);
    return r;
}

int cat_mech_number(const cat_job *j, const char *key, double *v, int required, char *msg,
                    size_t msglen)
{
    if (j->o->knob && !strcmp(key, j->o->knob)) {
        *v = j->o->knob_value; /* calibrate sets the noise parameter */
        return GA_OK;
    }
    return ga_spec_mech_number(j->s, key, v, required, msg, msglen);
}

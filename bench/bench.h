/*
 * bench.h - what several bench programs share, included, not linked (each bench is one
 * program): the reading floor (the file read whole and every number in it scanned with
 * strtod, the least a reader of decimal text can do: bench_scale, bench_spec), the random
 * neighbouring-like Gaussian pair (bench_pair, bench_scale) and the rows of the table of speed
 * goals that make bench prints at its end (goal_row).
 */
#ifndef GA_BENCH_BENCH_H
#define GA_BENCH_BENCH_H

#include "numerics/numerics.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* One row of the table of speed goals: appended to the file GA_BENCH_GOALS names (make bench
 * sets it and prints the table after the last bench; unset: nothing). ratio is the measured
 * figure against its floor, second engine or budget; met says whether the goal holds. */
static inline void goal_row(const char *work, const char *measured, const char *goal,
                            double ratio, int met)
{
    const char *path = getenv("GA_BENCH_GOALS");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    fprintf(f, "| %s | %s | %s | %.2f | %s |\n", work, measured, goal, ratio, met ? "met" : "missed");
    if (fclose(f) != 0)
        fprintf(stderr, "bench: cannot write %s\n", path);
}

/* Read path whole and add up every number strtod finds (into *sum, so the scan cannot be
 * optimised away). Returns the file's length, or -1 when it cannot be read. */
static inline long strtod_floor(const char *path, double *sum)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
        free(text);
        fclose(f);
        return -1;
    }
    text[len] = 0;
    fclose(f);
    for (const char *s = text; *s;) {
        if ((*s >= '0' && *s <= '9') || *s == '-') {
            char *e;
            *sum += strtod(s, &e);
            s = e > s ? e : s + 1;
        } else {
            s++;
        }
    }
    free(text);
    return len;
}

/* A neighbouring-like pair of dimension d: S_y = B B^T / d + I (B standard normal),
 * S_x = S_y + u u^T / 2 with u random of norm 1 (a rank-one change: all generalized
 * eigenvalues but one equal, which exercises the snapping of rounding-level eigenvalues),
 * mean shift mx - my = u. Callers add a diagonal to S_x for a full-rank change. */
static inline void rank_one_pair(gsl_rng *r, size_t d, double *mx, double *sx, double *my, double *sy)
{
    double *b = malloc(d * d * sizeof *b), *u = malloc(d * sizeof *u);
    for (size_t i = 0; i < d * d; i++)
        b[i] = gsl_ran_gaussian(r, 1);
    ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)d, (int)d, (int)d, 1.0 / d, b,
                   (int)d, b, (int)d, 0.0, sy, (int)d);
    double un = 0;
    for (size_t i = 0; i < d; i++) {
        u[i] = gsl_ran_gaussian(r, 1);
        un += u[i] * u[i];
        sy[i * d + i] += 1;
    }
    for (size_t i = 0; i < d; i++) {
        mx[i] = u[i] / sqrt(un);
        my[i] = 0;
        for (size_t j = 0; j < d; j++)
            sx[i * d + j] = sy[i * d + j] + 0.5 * u[i] * u[j] / un;
    }
    free(b);
    free(u);
}

#endif

/*
 * reduce_loss.c - the pairs whose privacy loss is one-dimensional, as pair values: subsampled
 * Gaussian steps and their compositions (kept with the exact decimals of every term), matrix
 * masking's noncentral chi-square pairs and synthetic points; and the accountants' epsilon
 * for them (a PLD accountant's grid, RDP conversion) to compare with the exact one.
 */
#include "pair/internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_text(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Is q the double nearest num/den (both plain decimals, den > 0)? The ratio of the two
 * doubles is checked against q with a margin of the three roundings (a few ulps): a q that
 * is not the ratio's double is a caller's mistake the certified path would not see. */
static int ratio_matches(double q, const char *num, const char *den)
{
    double a = strtod(num, NULL), b = strtod(den, NULL);
    return b > 0 && a >= 0 && isfinite(a / b) && fabs(q - a / b) <= 4 * DBL_EPSILON * (a / b);
}

int ga_pair_reduce_subsampled(ga_pair **out, const ga_subsampled_input *in, size_t n,
                              char *msg, size_t msglen)
{
    *out = NULL;
    if (n == 0 || n > GA_PLOSS_MAX_TERMS) {
        ga_msg(msg, msglen, "a subsampled pair needs 1 to %d terms (got %zu)", GA_PLOSS_MAX_TERMS, n);
        return GA_EINVAL;
    }
    for (size_t j = 0; j < n; j++) {
        const ga_subsampled_input *t = &in[j];
        const char *bad = NULL;
        if (!(t->q > 0 && t->q <= 1))
            bad = "q must be in (0, 1]";
        else if (!(t->sigma >= 1e-3) || !isfinite(t->sigma))
            bad = "sigma must be finite and at least 0.001";
        else if (!(t->steps >= 1 && t->steps <= GA_PLOSS_MAX_COUNT && t->steps == floor(t->steps)))
            bad = "steps must be a whole number in 1..1e9";
        else if ((t->q_txt && !ga_decimal_syntax(t->q_txt)) ||
                 (t->sigma_txt && !ga_decimal_syntax(t->sigma_txt)) ||
                 (t->norm_txt && !ga_decimal_syntax(t->norm_txt)) ||
                 (t->q_den_txt && !ga_decimal_syntax(t->q_den_txt)))
            bad = "q_txt, q_den_txt, sigma_txt and norm_txt must be plain decimals";
        else if (t->q_den_txt && !t->q_txt)
            bad = "q_den_txt needs q_txt (q = q_txt / q_den_txt)";
        else if (t->q_den_txt && !ratio_matches(t->q, t->q_txt, t->q_den_txt))
            bad = "q must be the double nearest q_txt / q_den_txt (a positive denominator)";
        else if (!(t->norm >= 0 && t->norm <= 1e6))
            bad = "norm must be in [0, 1e6] (0: 1)";
        else if (!(t->columns == 0 || (t->columns >= 1 && t->columns <= 1e6 &&
                                        t->columns == floor(t->columns))))
            bad = "columns must be 0 or a whole number in 1..1e6";
        else if (t->columns > 0 && (n > 1 || t->steps > 1))
            bad = "a subsampled sketch step (columns > 0) is a single release: it composes "
                  "with nothing yet (steps 1, one term)";
        else if (!(t->sigma / (t->norm > 0 ? t->norm : 1) >= 1e-3))
            bad = "sigma/norm must be at least 0.001";
        if (bad) {
            ga_msg(msg, msglen, "subsampled term %zu: %s (q %g, sigma %g, steps %g)", j, bad,
                   t->q, t->sigma, t->steps);
            return GA_EINVAL;
        }
    }
    ga_pair *p = calloc(1, sizeof *p);
    int rc = GA_ENOMEM;
    if (p)
        p->type = &ga_pair_type_subsampled;
    if (!p || !(p->ploss = calloc(1, sizeof *p->ploss)) ||
        !(p->ploss->t = calloc(n, sizeof *p->ploss->t)) ||
        !(p->ptxt = calloc(GA_PTXT_PER_TERM * n, sizeof *p->ptxt)) ||
        !(p->psigma = calloc(2 * n, sizeof *p->psigma)))
        goto cleanup;
    p->ploss->n = n;
    for (size_t j = 0; j < n; j++) {
        ga_ploss_term *t = &p->ploss->t[j];
        double norm = in[j].norm > 0 ? in[j].norm : 1;
        t->q = in[j].q;
        t->m = norm / in[j].sigma;
        t->count = in[j].steps;
        t->add = in[j].add != 0;
        t->r = in[j].columns;
        p->psigma[2 * j] = in[j].sigma;
        p->psigma[2 * j + 1] = norm;
        char **tx = p->ptxt + GA_PTXT_PER_TERM * j;
        if ((in[j].q_txt && !(tx[0] = dup_text(in[j].q_txt))) ||
            (in[j].sigma_txt && !(tx[1] = dup_text(in[j].sigma_txt))) ||
            (in[j].norm_txt && in[j].norm > 0 && !(tx[2] = dup_text(in[j].norm_txt))) ||
            (in[j].q_den_txt && !(tx[3] = dup_text(in[j].q_den_txt))))
            goto cleanup;
    }
    p->r = 1;
    p->support = GA_SUPPORT_FULL;
    if (!(p->input = malloc(n * sizeof *in)))
        goto cleanup;
    memcpy(p->input, in, n * sizeof *in);
    p->ninput = n;
    for (size_t j = 0; j < n; j++) { /* (the texts are the caller's: ptxt keeps copies) */
        ga_subsampled_input *c = (ga_subsampled_input *)p->input + j;
        c->q_txt = c->sigma_txt = c->norm_txt = c->q_den_txt = NULL;
    }
    rc = GA_OK;
cleanup:
    if (rc == GA_OK) {
        *out = p;
    } else {
        ga_msg(msg, msglen, "%s", "out of memory building a subsampled pair");
        ga_pair_free(p);
    }
    return rc;
}

/* A pair of noncentral chi-square laws with rows degrees of freedom (pts = 0: the masked
 * release) or of their products with chi^2_pts (synthetic points): the shared checks and the
 * one-term privacy loss */
static int reduce_chi2(ga_pair **out, const char *what, double rows, double pts, double sigma,
                       double norm_x, double norm_y, const char *sigma_txt, const char *nx_txt,
                       const char *ny_txt, char *msg, size_t msglen)
{
    *out = NULL;
    const char *bad = NULL;
    double lx = 0, ly = 0;
    if (!(rows >= 1 && rows <= 1e9 && rows == floor(rows)))
        bad = pts ? "dim must be a whole number in 1..1e9" : "rows must be a whole number in 1..1e9";
    else if (pts && !(pts >= 1 && pts <= 1e6 && pts == floor(pts)))
        bad = "points must be a whole number in 1..1e6";
    else if (pts && fmod(pts, 2) != 0 && fmod(rows, 2) != 0)
        bad = "dim and points are both odd: the tails have no finite form here (make one even)";
    else if (!(sigma >= 1e-3) || !isfinite(sigma))
        bad = "sigma must be finite and at least 0.001";
    else if (!(norm_x >= 0 && norm_x <= 1e6 && norm_y >= 0 && norm_y <= 1e6))
        bad = "the norms must be in [0, 1e6]";
    else if ((sigma_txt && !ga_decimal_syntax(sigma_txt)) || (nx_txt && !ga_decimal_syntax(nx_txt)) ||
             (ny_txt && !ga_decimal_syntax(ny_txt)))
        bad = "sigma_txt, norm_x_txt and norm_y_txt must be plain decimals";
    else if (!((lx = pow(norm_x / sigma, 2)) <= 1e8 && (ly = pow(norm_y / sigma, 2)) <= 1e8))
        bad = "the noncentralities |x|^2/sigma^2 must be at most 1e8";
    if (bad) {
        ga_msg(msg, msglen, "%s pair: %s (%s %g, sigma %g, norms %g and %g)", what, bad,
               pts ? "dim" : "rows", rows, sigma, norm_x, norm_y);
        return GA_EINVAL;
    }
    ga_pair *p = calloc(1, sizeof *p);
    int rc = GA_ENOMEM;
    if (p)
        p->type = pts > 0 ? &ga_pair_type_synthetic : &ga_pair_type_masked;
    if (!p || !(p->ploss = calloc(1, sizeof *p->ploss)) ||
        !(p->ploss->t = calloc(1, sizeof *p->ploss->t)) ||
        !(p->ptxt = calloc(GA_PTXT_PER_TERM, sizeof *p->ptxt)) ||
        !(p->psigma = calloc(3, sizeof *p->psigma)))
        goto cleanup;
    p->ploss->n = 1;
    ga_ploss_term *t = &p->ploss->t[0];
    t->q = 1;
    t->count = 1;
    t->m = norm_x / sigma;
    t->nu = rows;
    t->pts = pts;
    t->ly = ly;
    p->psigma[0] = sigma;
    p->psigma[1] = norm_x;
    p->psigma[2] = norm_y;
    if ((ny_txt && !(p->ptxt[0] = dup_text(ny_txt))) || (sigma_txt && !(p->ptxt[1] = dup_text(sigma_txt))) ||
        (nx_txt && !(p->ptxt[2] = dup_text(nx_txt))))
        goto cleanup;
    p->r = 1;
    p->support = GA_SUPPORT_FULL;
    rc = ga_ploss_check(p->ploss->t, 1, msg, msglen);
cleanup:
    if (rc == GA_OK) {
        *out = p;
    } else {
        if (rc == GA_ENOMEM)
            ga_msg(msg, msglen, "out of memory building a %s pair", what);
        ga_pair_free(p);
    }
    return rc;
}

/* the input of a masked or synthetic pair kept (size bytes), its texts dropped by the caller */
static int keep_input(ga_pair **out, const void *in, size_t size, int rc, char *msg, size_t msglen)
{
    if (rc == GA_OK && !((*out)->input = malloc(size))) {
        ga_msg(msg, msglen, "%s", "out of memory building a pair");
        ga_pair_free(*out);
        *out = NULL;
        return GA_ENOMEM;
    }
    if (rc == GA_OK) {
        memcpy((*out)->input, in, size);
        (*out)->ninput = 1;
    }
    return rc;
}

int ga_pair_reduce_masked(ga_pair **out, const ga_masked_input *in, char *msg, size_t msglen)
{
    int rc = reduce_chi2(out, "masked", in->rows, 0, in->sigma, in->norm_x, in->norm_y,
                         in->sigma_txt, in->norm_x_txt, in->norm_y_txt, msg, msglen);
    if ((rc = keep_input(out, in, sizeof *in, rc, msg, msglen)) == GA_OK) {
        ga_masked_input *c = (*out)->input;
        c->sigma_txt = c->norm_x_txt = c->norm_y_txt = NULL;
    }
    return rc;
}

int ga_pair_reduce_synthetic(ga_pair **out, const ga_synthetic_input *in, char *msg, size_t msglen)
{
    *out = NULL;
    if (in->norm_bound != 0 || in->distance != 0)
        return pr_synth_sup_make(out, in, msg, msglen);
    if (!(in->points >= 1)) { /* (0 would be the masked pair) */
        ga_msg(msg, msglen, "synthetic pair: points must be a whole number in 1..1e6 (got %g)", in->points);
        return GA_EINVAL;
    }
    int rc = reduce_chi2(out, "synthetic", in->dim, in->points, in->sigma, in->norm_x,
                         in->norm_y, in->sigma_txt, in->norm_x_txt, in->norm_y_txt, msg, msglen);
    if ((rc = keep_input(out, in, sizeof *in, rc, msg, msglen)) == GA_OK) {
        ga_synthetic_input *c = (*out)->input;
        c->sigma_txt = c->norm_x_txt = c->norm_y_txt = NULL;
    }
    return rc;
}

int ga_pair_pld_accountant(double *eps, const ga_pair *p, double delta, double h)
{
    *eps = NAN;
    if (!p->ploss || p->ploss->t[0].r > 0 || p->ploss->t[0].nu > 0)
        return GA_EDOM;
    double e[2];
    int rc = ga_ploss_pld_epsilon(e, p->ploss, delta, h > 0 ? h : 1e-4);
    if (rc)
        return rc;
    *eps = fmax(e[0], e[1]);
    return GA_OK;
}

int ga_pair_rdp_accountant(double *eps, int *alpha, const ga_pair *p, double delta)
{
    *eps = NAN;
    *alpha = 0;
    if (!p->ploss || p->ploss->t[0].r > 0 || p->ploss->t[0].nu > 0) /* no binomial expansion */
        return GA_EDOM;
    if (!(delta > 0 && delta < 1))
        return GA_EINVAL;
    /* each order's RDP adds over the steps; the conversion is minimised over the orders */
    double best = INFINITY;
    for (int a = 2; a <= 256; a++) {
        double r = 0;
        for (size_t j = 0; j < p->ploss->n; j++)
            r += p->ploss->t[j].count * ga_ploss_rdp_binomial(&p->ploss->t[j], a);
        double e = ga_rdp_to_dp_improved(a, r, delta);
        if (e < best) {
            best = e;
            *alpha = a;
        }
    }
    *eps = best;
    return GA_OK;
}

/*
 * type_shuffle.c - the pair type of shuffled epochs: the max test's laws over T epochs
 * (pair/shuffle.c), a pair of real neighbours' releases post-processed, so its delta is a
 * lower bound of the shuffled mechanism's. Its values are the rigorous bracket of that
 * delta: the estimate is the bracket's middle with half its width as the error, and the
 * certified interval is the bracket at the ends of eps's ball (GA_OK at any width: the
 * width is the grid's, which more precision does not narrow). Estimates use a coarse grid,
 * certified values one four times finer (pair/shuffle.c). The laws are computed once
 * per pair, on first use, and shared by every eps and both directions.
 */
#include "numerics/arb.h"
#include "pair/internal.h"
#include "base/base.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ga_shuffle_input in;
    pthread_mutex_t mu;
    int done[2];              /* per grid: 1 made, 0 not yet, -status failed */
    ga_shuffle_laws laws[2];  /* the coarse grid's (estimates) and the fine one's (certified) */
} sh_state;

static double norm_of(const ga_shuffle_input *in) { return in->norm > 0 ? in->norm : 1; }

/* the laws on the coarse (fine = 0) or fine grid, computed on first use (GA_ETIME is not
 * kept: a later call tries again) */
static int laws_of(const ga_shuffle_laws **out, const ga_pair *p, int fine, double deadline)
{
    sh_state *s = p->input;
    int rc = GA_OK;
    pthread_mutex_lock(&s->mu);
    if (!s->done[fine]) {
        rc = ga_shuffle_laws_make(&s->laws[fine], s->in.norm_txt, norm_of(&s->in),
                                  s->in.sigma_txt, s->in.sigma, s->in.batches, s->in.epochs,
                                  fine, deadline);
        s->done[fine] = rc == GA_OK ? 1 : rc == GA_ETIME ? 0 : -rc;
    } else if (s->done[fine] < 0) {
        rc = -s->done[fine];
    }
    pthread_mutex_unlock(&s->mu);
    *out = &s->laws[fine];
    return rc;
}

static int sh_delta(ga_delta *out, const ga_pair *p, double eps, int method,
                    const ga_gchisq_opts *o, ga_gchisq_work *w)
{
    (void)w;
    if (method != GA_DELTA_AUTO && method != GA_DELTA_DIRECT)
        return GA_EDOM;
    const ga_shuffle_laws *L;
    int rc = laws_of(&L, p, 0, o->deadline);
    for (int dir = 0; dir < 2 && rc == GA_OK; dir++) {
        double lo, hi;
        rc = ga_shuffle_delta_bounds(&lo, &hi, L, dir, eps, eps);
        ga_result *r = dir ? &out->yx : &out->xy;
        r->val = 0.5 * (lo + hi);
        r->err = 0.5 * (hi - lo) * (1 + 1e-12) + 1e-300;
    }
    out->method = GA_DELTA_DIRECT;
    return rc;
}

static int sh_delta_cert(ga_delta_cert *out, const ga_pair *p, const ga_pair_input *pin,
                         const ga_pair_text *txt, const char *eps, const ga_cert_opts *opts)
{
    (void)pin;
    (void)txt;
    ga_cert_opts o = ga_cert_opts_or_default(opts);
    memset(out, 0, sizeof *out);
    arb_t e;
    arb_init(e);
    int bad = arb_set_str(e, eps, 256);
    ga_interval ei;
    ga_arb_bounds(&ei, e);
    arb_clear(e);
    if (bad || !(ei.lo <= ei.hi))
        return GA_EINVAL;
    const ga_shuffle_laws *L;
    int rc = laws_of(&L, p, 1, o.deadline);
    for (int dir = 0; dir < 2 && rc == GA_OK; dir++) {
        double lo, hi;
        rc = ga_shuffle_delta_bounds(&lo, &hi, L, dir, ei.lo, ei.hi);
        ga_interval *iv = dir ? &out->yx : &out->xy;
        iv->lo = lo;
        iv->hi = hi;
        ga_fmt_bound(dir ? out->yx_lo : out->xy_lo, sizeof out->xy_lo, lo, 0, o.digits + 3);
        ga_fmt_bound(dir ? out->yx_hi : out->xy_hi, sizeof out->xy_hi, hi, 1, o.digits + 3);
    }
    if (rc != GA_OK) {
        out->xy.lo = out->yx.lo = 0;
        out->xy.hi = out->yx.hi = 1;
    }
    /* (GA_OK whatever the width: it is the grid's, which more precision does not narrow) */
    return rc;
}

static const char *sh_no_renyi(const ga_pair *p)
{
    (void)p;
    return "the max test on shuffled epochs (a lower bound of the mechanism's profile)";
}

static int sh_describe(char *text, size_t n, double *px, double *py, const ga_pair *p,
                       double eps, int dir)
{
    const sh_state *s = p->input;
    char sg[48];
    *px = *py = NAN;
    if (s->in.sigma_txt)
        snprintf(sg, sizeof sg, "%.40s", s->in.sigma_txt);
    else
        snprintf(sg, sizeof sg, "%.17g", s->in.sigma);
    snprintf(text, n,
             "every other record's gradient 0 and the audited record's of norm %.17g: each "
             "epoch's %.0f noisy batch sums (noise multiplier %s) are N(0, I) but for the "
             "record's batch; the test takes the largest sum of each epoch, y_k, and %s when "
             "sum_k l(y_k) %s %.17g over the %.0f epochs (l the log-likelihood ratio of the "
             "largest sum, increasing)", norm_of(&s->in), s->in.batches, sg,
             dir == 1 ? "says 'with the record'" : "says 'without the record'",
             dir == 1 ? ">" : "<", dir == 1 ? eps : -eps, s->in.epochs);
    return GA_OK;
}

static void sh_free(ga_pair *p)
{
    sh_state *s = p->input;
    if (!s)
        return;
    ga_shuffle_laws_clear(&s->laws[0]);
    ga_shuffle_laws_clear(&s->laws[1]);
    pthread_mutex_destroy(&s->mu);
}

int ga_pair_reduce_shuffle(ga_pair **out, const ga_shuffle_input *in, char *msg, size_t msglen)
{
    *out = NULL;
    double norm = norm_of(in);
    const char *bad =
        !(in->sigma >= 1e-3 && in->sigma <= 1e6)                                ? "sigma must be in [0.001, 1e6]"
        : !(in->batches >= 1 && in->batches <= 1e7 && in->batches == floor(in->batches)) ? "batches must be a whole number in 1..1e7"
        : !(in->epochs >= 1 && in->epochs <= 1e4 && in->epochs == floor(in->epochs))   ? "epochs must be a whole number in 1..10000"
        : !(in->norm >= 0 && norm <= 1e6)                                       ? "the norm must be in (0, 1e6]"
        : !(norm / in->sigma > 1e-6 && norm / in->sigma < 50)                  ? "norm/sigma must be in (1e-6, 50)"
        : (in->sigma_txt && !ga_decimal_syntax(in->sigma_txt)) ||
                  (in->norm_txt && !ga_decimal_syntax(in->norm_txt))
            ? "sigma and norm texts must be plain decimals"
            : NULL;
    if (bad) {
        ga_msg(msg, msglen, "shuffled epochs pair: %s", bad);
        return GA_EINVAL;
    }
    size_t ls = in->sigma_txt ? strlen(in->sigma_txt) + 1 : 0;
    size_t ln = in->norm_txt ? strlen(in->norm_txt) + 1 : 0;
    ga_pair *p = calloc(1, sizeof *p);
    sh_state *s = calloc(1, sizeof *s + ls + ln); /* (the texts after it: one block) */
    if (!p || !s) {
        free(p);
        free(s);
        ga_msg(msg, msglen, "%s", "out of memory building a shuffled epochs pair");
        return GA_ENOMEM;
    }
    s->in = *in;
    char *t = (char *)(s + 1);
    if (ls) {
        memcpy(t, in->sigma_txt, ls);
        s->in.sigma_txt = t;
    }
    if (ln) {
        memcpy(t + ls, in->norm_txt, ln);
        s->in.norm_txt = t + ls;
    }
    pthread_mutex_init(&s->mu, NULL);
    pr_input_pair(p, &ga_pair_type_shuffle, s);
    *out = p;
    return GA_OK;
}

const ga_pair_type ga_pair_type_shuffle = {
    "shuffled epochs", sh_delta, pr_renyi_none, sh_delta_cert, NULL, NULL, sh_free, sh_describe,
    sh_no_renyi,
    "the max test of epochs in which the record takes part in one step (shuffled epochs, "
    "random allocation): every other record's gradient 0, each epoch's largest noisy step "
    "sum, whose laws with and without the record have closed forms; the losses of T epochs "
    "rounded down and up to a grid, each cell's loss and mass a ball (Arb) placed as "
    "integers, their T-fold convolutions exact integer products (FLINT) truncated outward, so "
    "that the two sums bracket delta rigorously (a lower bound of the mechanism's delta); the "
    "estimate is the bracket's middle",
    NULL,
    NULL,
    0,
};

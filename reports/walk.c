/*
 * walk.c - the one walk over an audit's result that the Markdown and HTML reports share: the
 * claims table's cells, each claim's worst pair with its witness, and the pairs table (its
 * order, the rows listed, their certified intervals). The texts are prepared here once; each
 * writer only lays them out in its syntax, with its escaping of the user's strings.
 */
#include "reports/internal.h"

#include <stdlib.h>

void rp_claim_cells_of(rp_claim_cells *c, const ga_claim_result *r)
{
    ga_claim_text(c->claim, sizeof c->claim, r);
    rp_tightness_text(c->tightness, sizeof c->tightness, r);
    snprintf(c->cert, sizeof c->cert, "no");
    if (r->certified)
        rp_cert_text(c->cert, sizeof c->cert, r);
}

int rp_worst_of(rp_worst_cells *w, const ga_audit *a, const ga_claim_result *r)
{
    if (!ga_claim_row_of(r->type)->profile || !rp_evaluated(r))
        return 0;
    ga_claim_text(w->claim, sizeof w->claim, r);
    w->pair = ga_audit_pair_name(a, r->worst_pair, w->nb);
    w->dir = r->worst_dir == 1 ? "X,Y" : "Y,X";
    rp_witness_probs(w->probs, sizeof w->probs, r);
    /* with its error: a failed evaluation reads as such (delta 1 +- 1), never as a value */
    snprintf(w->delta, sizeof w->delta, "%.6g (+- %.2g)", r->exact.val, r->exact.err);
    return 1;
}

void rp_pairs_begin(rp_pairs_table *t, const ga_audit *a)
{
    t->idx = malloc(TABLE_CAP * sizeof *t->idx);
    t->m = t->idx ? rp_order(a, t->idx, TABLE_CAP) : 0;
    t->more = a->npairs - t->m;
    t->with_cert = a->npair_cert > 0;
}

void rp_pair_cells_of(rp_pair_cells *p, const ga_audit *a, const rp_pairs_table *t, size_t k)
{
    p->i = t->idx[k];
    p->name = ga_audit_pair_name(a, p->i, p->nb);
    p->cert_xy[0] = p->cert_yx[0] = 0;
    if (t->with_cert) {
        ga_interval cx, cy;
        ga_audit_pair_cert(a, p->i, &cx, &cy);
        rp_pair_cert_text(p->cert_xy, sizeof p->cert_xy, &cx);
        rp_pair_cert_text(p->cert_yx, sizeof p->cert_yx, &cy);
    }
}

void rp_pairs_end(rp_pairs_table *t)
{
    free(t->idx);
    t->idx = NULL;
}

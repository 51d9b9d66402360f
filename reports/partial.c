/*
 * partial.c - a shard's partial result (audit --shard I/N): JSON with the spec's path and
 * SHA-256, the shard, the options the decisions depend on (--certified, --claim), and the
 * records of its evaluations (verdict/shard.c reads them back). Every double is its IEEE bit
 * pattern as 16 hex digits: read back bit for bit, NaN, infinities and subnormals included.
 * The records are written in the key's order (ga_rec_sorted): the book holds them in the
 * order the threads finished, which varies from run to run, and the same shard must write
 * the same file (merge looks them up by key, so it reads any order).
 */
#include "reports/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void bits(ga_jw *j, double v)
{
    uint64_t u;
    char b[17];
    memcpy(&u, &v, sizeof u);
    snprintf(b, sizeof b, "%016llx", (unsigned long long)u);
    ga_jw_str(j, NULL, b);
}

int ga_report_partial(FILE *out, const ga_audit *a)
{
    if (a->book.mode != GA_REC_RECORD)
        return GA_EINVAL;
    const ga_rec **order = ga_rec_sorted(&a->book);
    if (!order)
        return GA_ENOMEM;
    ga_jw j;
    ga_jw_init(&j, out);
    ga_jw_obj(&j, NULL);
    ga_jw_int(&j, "gaussaudit_partial", 1);
    ga_jw_str(&j, "tool", "gaussaudit " GA_VERSION_STRING);
    ga_jw_str(&j, "spec", a->spec.path);
    ga_jw_str(&j, "spec_sha256", a->digest);
    ga_report_inputs_json(&j, &a->spec);
    ga_jw_int(&j, "shard", (long)a->book.shard);
    ga_jw_int(&j, "shards", (long)a->book.nshards);
    ga_jw_int(&j, "pairs", (long)ga_pairset_npairs(&a->set));
    ga_jw_int(&j, "claims", (long)a->nclaims);
    ga_jw_bool(&j, "certified", a->certified_mode);
    ga_jw_str(&j, "claim", a->claim_override);
    char dg[65];
    ga_partial_digest(dg, a->digest, a->book.shard, a->book.nshards, a->spec.inputs,
                      a->spec.ninputs, order, a->book.n);
    ga_jw_str(&j, "records_sha256", dg);
    ga_jw_bool(&j, "incomplete", a->incomplete);
    ga_jw_str(&j, "note", a->timeout_note);
    /* [type, pair, key bits, key text, status, precision bits, [8 values], [4 decimals]] */
    ga_jw_arr(&j, "records");
    for (size_t i = 0; i < a->book.n; i++) {
        const ga_rec *r = order[i];
        ga_jw_arr(&j, NULL);
        ga_jw_int(&j, NULL, r->type);
        ga_jw_int(&j, NULL, (long)r->pair);
        bits(&j, r->key);
        ga_jw_str(&j, NULL, r->key_txt);
        ga_jw_int(&j, NULL, r->status);
        ga_jw_int(&j, NULL, r->bits);
        ga_jw_arr(&j, NULL);
        for (int k = 0; k < 8; k++)
            bits(&j, r->v[k]);
        ga_jw_arr_end(&j);
        ga_jw_arr(&j, NULL);
        for (int k = 0; k < 4; k++)
            ga_jw_str(&j, NULL, r->dec[k]);
        ga_jw_arr_end(&j);
        ga_jw_arr_end(&j);
    }
    ga_jw_arr_end(&j);
    ga_jw_obj_end(&j);
    free(order);
    return ferror(out) ? GA_EIO : GA_OK;
}

/*
 * shard.c - the record book of shard and merge (audit.h), and the reader of partial results.
 *
 * A book is a table of evaluations keyed by (type, pair, key, key text), with an open-
 * addressing hash index (FNV-1a of the key; doubled when half full). A shard records from
 * several threads (a mutex around additions); a merge only finds (no lock needed).
 * A partial result (reports/partial.c writes it) is JSON; every double is its IEEE bit
 * pattern as 16 hex digits, so that a record read back is the record written, bit for bit
 * (NaN, infinities and subnormals included), without a decimal round trip. It is read with
 * the one file reader (a size cap) and the one document parser, and checked field by field:
 * a part is an untrusted file like a spec.
 */
#include "verdict/audit.h"
#include "numerics/numerics.h"
#include "specs/doc.h"
#include "specs/readfile.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GA_PARTIAL_MAX_BYTES ((size_t)1 << 31)

static uint64_t dbits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static uint64_t rec_hash(int type, size_t pair, double key, const char *txt)
{
    uint64_t h = 1469598103934665603ULL, parts[3] = {(uint64_t)type, (uint64_t)pair, dbits(key)};
    const unsigned char *p = (const unsigned char *)parts;
    for (size_t i = 0; i < sizeof parts; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    for (; txt && *txt; txt++)
        h = (h ^ (unsigned char)*txt) * 1099511628211ULL;
    return h;
}

static int rec_same(const ga_rec *r, int type, size_t pair, double key, const char *txt)
{
    return r->type == type && r->pair == pair && dbits(r->key) == dbits(key) &&
           !strcmp(r->key_txt, txt ? txt : "");
}

/* the key's order: (type, pair, key's bit pattern, key text), total (NaN keys included) */
static int rec_cmp(const void *pa, const void *pb)
{
    const ga_rec *a = *(const ga_rec *const *)pa, *b = *(const ga_rec *const *)pb;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    if (a->pair != b->pair)
        return a->pair < b->pair ? -1 : 1;
    uint64_t ka = dbits(a->key), kb = dbits(b->key);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return strcmp(a->key_txt, b->key_txt);
}

const ga_rec **ga_rec_sorted(const ga_recbook *b)
{
    const ga_rec **order = malloc((b->n ? b->n : 1) * sizeof *order);
    if (!order)
        return NULL;
    for (size_t i = 0; i < b->n; i++)
        order[i] = &b->r[i];
    qsort(order, b->n, sizeof *order, rec_cmp);
    return order;
}

const ga_rec *ga_rec_find(const ga_recbook *b, int type, size_t pair, double key,
                          const char *key_txt)
{
    if (!b->nslot)
        return NULL;
    for (size_t s = rec_hash(type, pair, key, key_txt) & (b->nslot - 1);; s = (s + 1) & (b->nslot - 1)) {
        if (!b->slot[s])
            return NULL;
        const ga_rec *r = &b->r[b->slot[s] - 1];
        if (rec_same(r, type, pair, key, key_txt))
            return r;
    }
}

/* the index rebuilt with nslot slots (a power of two, > 2n) */
static int reindex(ga_recbook *b, size_t nslot)
{
    size_t *slot = calloc(nslot, sizeof *slot);
    if (!slot)
        return GA_ENOMEM;
    for (size_t i = 0; i < b->n; i++) {
        const ga_rec *r = &b->r[i];
        size_t s = rec_hash(r->type, r->pair, r->key, r->key_txt) & (nslot - 1);
        while (slot[s])
            s = (s + 1) & (nslot - 1);
        slot[s] = i + 1;
    }
    free(b->slot);
    b->slot = slot;
    b->nslot = nslot;
    return GA_OK;
}

static int rec_add_locked(ga_recbook *b, const ga_rec *r)
{
    if (ga_rec_find(b, r->type, r->pair, r->key, r->key_txt))
        return GA_OK; /* the same evaluation twice: one record */
    if (b->n == b->cap) {
        ga_rec *nr = ga_grow(b->r, &b->cap, sizeof *nr, 256);
        if (!nr)
            return GA_ENOMEM;
        b->r = nr;
    }
    b->r[b->n++] = *r;
    if (2 * b->n >= b->nslot) {
        if (reindex(b, b->nslot ? 2 * b->nslot : 1024)) {
            b->n--;
            return GA_ENOMEM;
        }
        return GA_OK;
    }
    size_t s = rec_hash(r->type, r->pair, r->key, r->key_txt) & (b->nslot - 1);
    while (b->slot[s])
        s = (s + 1) & (b->nslot - 1);
    b->slot[s] = b->n;
    return GA_OK;
}

int ga_rec_begin(ga_recbook *b, int mode)
{
    memset(b, 0, sizeof *b);
    pthread_mutex_t *m = malloc(sizeof *m);
    if (!m || pthread_mutex_init(m, NULL)) {
        free(m);
        return GA_ENOMEM;
    }
    b->lock = m;
    b->mode = mode;
    return GA_OK;
}

int ga_rec_add(ga_recbook *b, const ga_rec *r)
{
    pthread_mutex_lock(b->lock);
    int rc = rec_add_locked(b, r);
    if (rc)
        b->failed = 1;
    pthread_mutex_unlock(b->lock);
    return rc;
}

void ga_rec_clear(ga_recbook *b)
{
    if (b->lock) {
        pthread_mutex_destroy(b->lock);
        free(b->lock);
    }
    free(b->r);
    free(b->slot);
    memset(b, 0, sizeof *b);
}

/* ------------------------------------------------------------ reading a part */

static const char *scalar(const ga_node *n)
{
    return n && n->kind == GA_NODE_SCALAR ? n->text : NULL;
}

/* a non-negative integer below cap */
static int get_size(size_t *v, const ga_node *n, size_t cap)
{
    const char *t = scalar(n);
    if (!t || !*t || strlen(t) > 18 || strspn(t, "0123456789") != strlen(t))
        return -1;
    unsigned long long u = strtoull(t, NULL, 10);
    if (u >= cap)
        return -1;
    *v = (size_t)u;
    return 0;
}

/* 16 hex digits: the bits of a double */
static int get_bits(double *v, const ga_node *n)
{
    const char *t = scalar(n);
    if (!t || strlen(t) != 16 || strspn(t, "0123456789abcdef") != 16)
        return -1;
    uint64_t u = strtoull(t, NULL, 16);
    memcpy(v, &u, sizeof *v);
    return 0;
}

static int get_text(char *dst, size_t n, const ga_node *nd)
{
    const char *t = scalar(nd);
    if (!t || strlen(t) >= n)
        return -1;
    memcpy(dst, t, strlen(t) + 1);
    return 0;
}

/* Are a record's values what an evaluation with its status can give? A successful estimate
 * (GA_OK, GA_ETOL, GA_EMAXITER) has finite deltas in [0, 1] up to their error and finite
 * nonnegative errors; a certified delta (any status) an interval within [0, 1]; a
 * divergence is nonnegative (infinite where the supports differ), its interval ordered. A
 * failed estimate is NaN (what the audit writes). */
static int rec_values_ok(const ga_rec *r)
{
    const double *v = r->v;
    int ok_status = r->status == GA_OK || r->status == GA_ETOL || r->status == GA_EMAXITER;
    switch (r->type) {
    case GA_REC_EST:
        if (!ok_status)
            return 1;
        for (int d = 0; d < 2; d++) {
            double val = v[2 * d], err = v[2 * d + 1];
            if (!isfinite(val) || !(err >= 0) || !(val >= -err - 1e-300) ||
                !(val <= 1 + err + 1e-15))
                return 0;
        }
        return 1;
    case GA_REC_CERT:
        for (int d = 0; d < 2; d++)
            if (!(v[2 * d] >= 0 && v[2 * d] <= v[2 * d + 1] && v[2 * d + 1] <= 1))
                return 0;
        return 1;
    case GA_REC_RENYI:
        if (!ok_status)
            return 1;
        return !isnan(v[0]) && !isnan(v[2]) && v[0] >= -v[1] - 1e-300 && v[2] >= -v[3] - 1e-300 &&
               v[1] >= 0 && v[3] >= 0;
    case GA_REC_CERT_RENYI:
    case GA_REC_MAHA:
        for (int d = 0; d < (r->type == GA_REC_MAHA ? 1 : 2); d++)
            if (!(v[2 * d] >= 0 && v[2 * d] <= v[2 * d + 1]))
                return 0;
        return 1;
    default:
        return 1;
    }
}

/* one record: [type, pair, key bits, key text, status, bits, [8 values], [4 decimals]];
 * 0, -1 (malformed) or -2 (values its status cannot give) */
static int read_rec(ga_rec *r, const ga_node *n, size_t npairs, size_t nclaims)
{
    size_t type, pair, status, bits;
    memset(r, 0, sizeof *r);
    if (!n || n->kind != GA_NODE_SEQ || n->n != 8 || get_size(&type, n->kids[0], GA_NREC) ||
        type < 1 || get_size(&pair, n->kids[1], type == GA_REC_GRID ? nclaims : npairs) ||
        get_bits(&r->key, n->kids[2]) || get_text(r->key_txt, sizeof r->key_txt, n->kids[3]) ||
        get_size(&status, n->kids[4], GA_NSTATUS) || get_size(&bits, n->kids[5], 1u << 30))
        return -1;
    const ga_node *v = n->kids[6], *d = n->kids[7];
    if (v->kind != GA_NODE_SEQ || v->n != 8 || d->kind != GA_NODE_SEQ || d->n != 4)
        return -1;
    for (size_t i = 0; i < 8; i++)
        if (get_bits(&r->v[i], v->kids[i]))
            return -1;
    for (size_t i = 0; i < 4; i++)
        if (get_text(r->dec[i], sizeof r->dec[i], d->kids[i]))
            return -1;
    r->type = (int)type;
    r->pair = pair;
    r->status = (int)status;
    r->bits = (long)bits;
    return rec_values_ok(r) ? 0 : -2;
}

void ga_partial_digest(char out[65], const char *spec_digest, size_t shard, size_t nshards,
                       const ga_spec_input *in, size_t nin, const ga_rec *const *recs, size_t n)
{
    ga_sha256 s;
    char b[256];
    ga_sha256_init(&s);
    int l = snprintf(b, sizeof b, "gaussaudit partial 1 %s %zu/%zu %zu\n", spec_digest, shard,
                     nshards, nin);
    ga_sha256_update(&s, b, (size_t)l);
    for (size_t i = 0; i < nin; i++) {
        ga_sha256_update(&s, in[i].key, strlen(in[i].key) + 1);
        ga_sha256_update(&s, in[i].sha256, 64);
    }
    for (size_t i = 0; i < n; i++) {
        const ga_rec *r = recs[i];
        l = snprintf(b, sizeof b, "%d %zu %016llx %d %ld", r->type, r->pair,
                     (unsigned long long)dbits(r->key), r->status, r->bits);
        ga_sha256_update(&s, b, (size_t)l + 1);
        ga_sha256_update(&s, r->key_txt, strlen(r->key_txt) + 1);
        for (int k = 0; k < 8; k++) {
            l = snprintf(b, sizeof b, "%016llx", (unsigned long long)dbits(r->v[k]));
            ga_sha256_update(&s, b, (size_t)l);
        }
        for (int k = 0; k < 4; k++)
            ga_sha256_update(&s, r->dec[k], strlen(r->dec[k]) + 1);
    }
    ga_sha256_final(&s, out);
}

void ga_partial_head_clear(ga_partial_head *h)
{
    for (size_t i = 0; i < h->ninputs; i++) {
        free(h->inputs[i].key);
        free(h->inputs[i].path);
    }
    free(h->inputs);
    h->inputs = NULL;
    h->ninputs = 0;
}

const ga_spec_input *ga_inputs_differ(const ga_spec_input *a, size_t na, const ga_spec_input *b,
                                      size_t nb, size_t *bi)
{
    for (size_t i = 0; i < na || i < nb; i++) {
        if (i >= na) { /* (b read a file a did not) */
            *bi = i;
            return NULL;
        }
        *bi = i < nb && !strcmp(a[i].key, b[i].key) ? i : nb;
        if (*bi == nb || strcmp(a[i].sha256, b[i].sha256))
            return &a[i];
    }
    return NULL;
}

/* "inputs": [{"key", "path", "sha256"}, ...] into h (at most 4096 files) */
#define GA_PARTIAL_MAX_INPUTS 4096
static int read_inputs(ga_partial_head *h, const ga_node *l)
{
    if (!l || l->kind != GA_NODE_SEQ || l->n > GA_PARTIAL_MAX_INPUTS)
        return -1;
    h->inputs = calloc(l->n ? l->n : 1, sizeof *h->inputs);
    if (!h->inputs)
        return -1;
    for (size_t i = 0; i < l->n; i++) {
        const ga_node *e = l->kids[i];
        const char *k = scalar(ga_node_get(e, "key")), *p = scalar(ga_node_get(e, "path")),
                   *d = scalar(ga_node_get(e, "sha256"));
        if (e->kind != GA_NODE_MAP || !k || !p || !d || strlen(k) > 200 || strlen(p) > 4096 ||
            strlen(d) != 64 || strspn(d, "0123456789abcdef") != 64)
            return -1;
        ga_spec_input *in = &h->inputs[h->ninputs];
        in->key = strdup(k);
        in->path = strdup(p);
        memcpy(in->sha256, d, 65);
        h->ninputs++;
        if (!in->key || !in->path)
            return -1;
    }
    return 0;
}

/* A part contradicts itself where a pair's estimate at some eps lies outside its certified
 * interval at that eps by more than the estimate's error (a value edited, or zeroed, beside
 * the interval that decides). GA_EINVAL (continue), -1 (refused: msg says why), GA_ENOMEM. */
static int part_consistent(const ga_rec *rs, size_t n, const char *path, char *msg, size_t msglen)
{
    ga_recbook lb;
    if (ga_rec_begin(&lb, GA_REC_REPLAY))
        return GA_ENOMEM;
    int rc = GA_EINVAL;
    for (size_t i = 0; i < n && rc == GA_EINVAL; i++)
        if (rs[i].type == GA_REC_EST && ga_rec_add(&lb, &rs[i]))
            rc = GA_ENOMEM;
    for (size_t i = 0; i < n && rc == GA_EINVAL; i++) {
        const ga_rec *c = &rs[i];
        double eps;
        if (c->type != GA_REC_CERT || ga_decimal_to_double(&eps, c->key_txt))
            continue;
        const ga_rec *e = ga_rec_find(&lb, GA_REC_EST, c->pair, eps, NULL);
        if (!e || !(e->status == GA_OK || e->status == GA_ETOL))
            continue;
        for (int d = 0; d < 2; d++) {
            double v = e->v[2 * d], err = e->v[2 * d + 1], lo = c->v[2 * d], hi = c->v[2 * d + 1];
            double gap = v < lo ? lo - v : v > hi ? v - hi : 0;
            if (gap > 4 * err + 1e-14 * fabs(v) + 1e-300) {
                ga_msg(msg, msglen, "%s: pair %zu's estimate %.17g +- %.3g at eps %s lies outside "
                       "its certified interval [%.17g, %.17g] in the same part: the part "
                       "contradicts itself (edited or corrupted); refused", path, c->pair + 1, v,
                       err, c->key_txt, lo, hi);
                rc = -1;
                break;
            }
        }
    }
    ga_rec_clear(&lb);
    return rc;
}

int ga_partial_read(ga_partial_head *h, ga_recbook *b, const char *path, char *msg, size_t msglen)
{
    ga_read_policy pol = {.max_bytes = GA_PARTIAL_MAX_BYTES, .what = "partial result"};
    char q[160], digest[65];
    ga_doc doc = {0};
    ga_file f;
    int rc = ga_file_open(&f, path, &pol, msg, msglen);
    if (rc == GA_OK)
        rc = ga_doc_read(&doc, &f, path, 1, digest, msg, msglen); /* (parsed as it is read) */
    ga_file_close(&f);
    if (rc)
        return rc;
    memset(h, 0, sizeof *h);
    rc = GA_EINVAL;
    const ga_node *root = doc.root, *recs = ga_node_get(root, "records");
    const char *magic = scalar(ga_node_get(root, "gaussaudit_partial"));
    const char *cert = scalar(ga_node_get(root, "certified"));
    const char *inc = scalar(ga_node_get(root, "incomplete"));
    const ga_node *claim = ga_node_get(root, "claim");
    if (!magic || strcmp(magic, "1")) {
        ga_msg(msg, msglen, "%s: not a partial result of gaussaudit audit --shard "
               "(no \"gaussaudit_partial\": 1)", path);
        goto cleanup;
    }
    if (get_text(h->spec, sizeof h->spec, ga_node_get(root, "spec")) ||
        get_text(h->digest, sizeof h->digest, ga_node_get(root, "spec_sha256")) ||
        strlen(h->digest) != 64 || get_size(&h->shard, ga_node_get(root, "shard"), 1u << 20) ||
        get_size(&h->nshards, ga_node_get(root, "shards"), 1u << 20) || h->shard < 1 ||
        h->shard > h->nshards || get_size(&h->npairs, ga_node_get(root, "pairs"), (size_t)1 << 40) ||
        get_size(&h->nclaims, ga_node_get(root, "claims"), 1u << 20) || !cert || !inc ||
        !claim || (claim->kind != GA_NODE_SCALAR) || !recs || recs->kind != GA_NODE_SEQ ||
        read_inputs(h, ga_node_get(root, "inputs"))) {
        ga_msg(msg, msglen, "%s: a field of the partial result is missing or malformed (spec, "
               "spec_sha256, inputs, shard, shards, pairs, claims, certified, incomplete, claim, "
               "records)", path);
        goto cleanup;
    }
    h->certified = !strcmp(cert, "true");
    h->incomplete = !strcmp(inc, "true");
    h->has_claim = !(claim->text && !claim->quoted && !strcmp(claim->text, "null"));
    if (h->has_claim && get_text(h->claim, sizeof h->claim, claim)) {
        ga_msg(msg, msglen, "%s: claim: too long", path);
        goto cleanup;
    }
    const char *given = scalar(ga_node_get(root, "records_sha256"));
    if (!given || strlen(given) != 64) {
        ga_msg(msg, msglen, "%s: records_sha256 is missing or malformed", path);
        goto cleanup;
    }
    ga_rec *rs = calloc(recs->n ? recs->n : 1, sizeof *rs);
    const ga_rec **order = calloc(recs->n ? recs->n : 1, sizeof *order);
    if (!rs || !order) {
        free(rs);
        free(order);
        rc = GA_ENOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < recs->n && rc == GA_EINVAL; i++) {
        int e = read_rec(&rs[i], recs->kids[i], h->npairs, h->nclaims);
        order[i] = &rs[i];
        if (e) {
            ga_quote_token(q, sizeof q, path, 100);
            ga_msg(msg, msglen, e == -2 ? "%s:%d: record %zu (pair %zu) holds values its status "
                   "cannot give (NaN, infinite or out of range)" : "%s:%d: record %zu is malformed "
                   "(or names a pair beyond the %zu pairs)", q, recs->kids[i]->line, i + 1,
                   e == -2 ? rs[i].pair + 1 : h->npairs);
            rc = -1;
        }
    }
    char mine[65];
    if (rc == GA_EINVAL) {
        ga_partial_digest(mine, h->digest, h->shard, h->nshards, h->inputs, h->ninputs, order,
                          recs->n);
        if (strcmp(mine, given)) {
            ga_msg(msg, msglen, "%s: its records do not match its records_sha256 (the file was "
                   "edited or corrupted after the shard wrote it): refused", path);
            rc = -1;
        }
    }
    if (rc == GA_EINVAL)
        rc = part_consistent(rs, recs->n, path, msg, msglen);
    for (size_t i = 0; i < recs->n && rc == GA_EINVAL; i++)
        if (ga_rec_add(b, &rs[i]) != GA_OK)
            rc = GA_ENOMEM;
    free(rs);
    free(order);
    if (rc != GA_EINVAL) {
        rc = rc == -1 ? GA_EINVAL : rc;
        goto cleanup;
    }
    rc = GA_OK;
cleanup:
    ga_doc_clear(&doc);
    return rc;
}

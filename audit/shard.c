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
#include "audit/audit.h"
#include "numerics/internal.h"
#include "specs/doc.h"
#include "specs/readfile.h"

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
        size_t cap = b->cap ? 2 * b->cap : 256;
        ga_rec *nr = realloc(b->r, cap * sizeof *nr);
        if (!nr)
            return GA_ENOMEM;
        b->r = nr;
        b->cap = cap;
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

/* one record: [type, pair, key bits, key text, status, bits, [8 values], [4 decimals]] */
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
    return 0;
}

int ga_partial_read(ga_partial_head *h, ga_recbook *b, const char *path, char *msg, size_t msglen)
{
    ga_read_policy pol = {.max_bytes = GA_PARTIAL_MAX_BYTES, .what = "partial result"};
    char q[160], digest[65];
    ga_doc doc = {0};
    ga_file f;
    int rc = ga_file_open(&f, path, &pol, msg, msglen);
    if (rc == GA_OK)
        rc = ga_doc_read(&doc, &f, path, digest, msg, msglen); /* (parsed as it is read) */
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
        !claim || (claim->kind != GA_NODE_SCALAR) || !recs || recs->kind != GA_NODE_SEQ) {
        ga_msg(msg, msglen, "%s: a field of the partial result is missing or malformed (spec, "
               "spec_sha256, shard, shards, pairs, claims, certified, incomplete, claim, records)",
               path);
        goto cleanup;
    }
    h->certified = !strcmp(cert, "true");
    h->incomplete = !strcmp(inc, "true");
    h->has_claim = !(claim->text && !claim->quoted && !strcmp(claim->text, "null"));
    if (h->has_claim && get_text(h->claim, sizeof h->claim, claim)) {
        ga_msg(msg, msglen, "%s: claim: too long", path);
        goto cleanup;
    }
    for (size_t i = 0; i < recs->n; i++) {
        ga_rec r;
        if (read_rec(&r, recs->kids[i], h->npairs, h->nclaims)) {
            ga_quote_token(q, sizeof q, path, 100);
            ga_msg(msg, msglen, "%s:%d: record %zu is malformed (or names a pair beyond the %zu "
                   "pairs)", q, recs->kids[i]->line, i + 1, h->npairs);
            goto cleanup;
        }
        if ((rc = ga_rec_add(b, &r)) != GA_OK)
            goto cleanup;
        rc = GA_EINVAL;
    }
    rc = GA_OK;
cleanup:
    ga_doc_clear(&doc);
    return rc;
}

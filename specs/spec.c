/*
 * spec.c - reading and validating specs (doc/spec.md). Every error
 * names the file, line, column and key path; unknown keys get a "did you mean" hint from
 * the edit distance to the allowed keys. Numbers keep their decimal text for the certified
 * path; a quoted scalar is a string, never a number.
 */
#include "specs/internal.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif
#include <string.h>

int sp_fail(ctx_t *c, const ga_node *n, const char *path, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (n)
        ga_msg(c->msg, c->msglen, "%s:%d:%d: %s: %s", c->file, n->line, n->col, path, what);
    else
        ga_msg(c->msg, c->msglen, "%s: %s: %s", c->file, path, what);
    return GA_EINVAL;
}

void sp_pathf(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

/* sp_pathf for messages only: nothing is formatted (dst is "") when c has no message buffer,
 * in a quiet read that is repeated with one where it fails (parse_pairs: 10^5 pairs are
 * millions of paths that no message uses) */
static void sp_pathq(ctx_t *c, char *dst, size_t n, const char *fmt, ...)
{
    if (!c->msg || !c->msglen) {
        dst[0] = 0;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

int sp_check_map(ctx_t *c, const ga_node *n, const char *path, const char *const *allowed)
{
    if (!n || n->kind != GA_NODE_MAP)
        return sp_fail(c, n, path, "expected a mapping (key: value)");
    for (size_t i = 0; i + 1 < n->n; i += 2) {
        const ga_node *k = n->kids[i];
        if (k->kind != GA_NODE_SCALAR)
            return sp_fail(c, k, path, "keys must be plain words");
        int ok = 0;
        size_t na = 0;
        for (; allowed[na]; na++)
            ok |= !strcmp(k->text, allowed[na]);
        if (!ok) {
            const char *best = ga_nearest(k->text, allowed, na, 2, 0);
            if (best)
                return sp_fail(c, k, path, "unknown key '%s' (did you mean '%s'?)", k->text, best);
            char list[256];
            ga_join(list, sizeof list, allowed, na);
            return sp_fail(c, k, path, "unknown key '%s' (allowed: %s)", k->text, list);
        }
        for (size_t j = 0; j < i; j += 2)
            if (!strcmp(n->kids[j]->text, k->text))
                return sp_fail(c, k, path, "key '%s' appears twice", k->text);
    }
    return GA_OK;
}

static int get_number(ctx_t *c, const ga_node *n, const char *path, double *v, const char **txt)
{
    if (!n)
        return sp_fail(c, NULL, path, "missing (a number is required)");
    if (n->kind != GA_NODE_SCALAR || n->quoted)
        return sp_fail(c, n, path, "expected a number%s%s%s", n->kind == GA_NODE_SCALAR ? ", got '" : "",
                       n->kind == GA_NODE_SCALAR ? n->text : "", n->kind == GA_NODE_SCALAR ? "'" : "");
    const char *s = n->text;
    /* the one number reader: plain decimals only (the certified path reads the text) */
    if (!ga_decimal_syntax(s))
        return sp_fail(c, n, path, "expected a number, got '%s' (a plain decimal: no hex, inf "
                       "or nan)", s);
    double d;
    if (ga_decimal_to_double(&d, s))
        return sp_fail(c, n, path, "the number '%s' is outside the double range", s);
    *v = d;
    if (txt)
        *txt = s;
    return GA_OK;
}

int sp_item_number(ctx_t *c, const ga_node *list, size_t i, const char *base, long row,
                   double *v)
{
    if (list->kind == GA_NODE_NUMS) {
        *v = list->nums->v[i];
        return GA_OK;
    }
    const ga_node *k = list->kids[i];
    if (k->kind == GA_NODE_SCALAR && !k->quoted && ga_decimal_to_double(v, k->text) == GA_OK)
        return GA_OK;
    char p[220];
    if (row >= 0)
        sp_pathf(p, sizeof p, "%s[%ld][%zu]", base, row, i);
    else
        sp_pathf(p, sizeof p, "%s[%zu]", base, i);
    return get_number(c, k, p, v, NULL);
}

/* The node that stands for item i of a list in messages (the list for a NUMS item). */
static const ga_node *item_node(const ga_node *list, size_t i)
{
    return list->kind == GA_NODE_SEQ ? list->kids[i] : list;
}

static int get_vector(ctx_t *c, const ga_node *n, const char *path, size_t want, double **v,
                      size_t *len)
{
    if (!n)
        return sp_fail(c, NULL, path, "missing (a list of numbers is required)");
    if (!ga_node_is_list(n))
        return sp_fail(c, n, path, "expected a list of numbers like [0, 1.5]");
    if (n->n == 0)
        return sp_fail(c, n, path, "empty list");
    if (want && n->n != want)
        return sp_fail(c, n, path, "has %zu entries, expected %zu", n->n, want);
    if (n->n > GA_SPEC_MAX_DIM)
        return sp_fail(c, n, path, "%zu entries exceed the dimension cap of %d", n->n,
                       GA_SPEC_MAX_DIM);
    *v = malloc(n->n * sizeof **v);
    if (!*v)
        return GA_ENOMEM;
    for (size_t i = 0; i < n->n; i++) {
        int s = sp_item_number(c, n, i, path, -1, &(*v)[i]);
        if (s) { /* the caller owns nothing on error */
            free(*v);
            *v = NULL;
            return s;
        }
    }
    *len = n->n;
    return GA_OK;
}

static int get_matrix(ctx_t *c, const ga_node *n, const char *path, size_t d, double **v)
{
    if (!n)
        return sp_fail(c, NULL, path, "missing (a %zu x %zu matrix is required)", d, d);
    if (n->kind != GA_NODE_SEQ)
        return sp_fail(c, n, path, "expected a matrix as a list of rows like [[1, 0], [0, 1]]");
    if (n->n != d)
        return sp_fail(c, n, path, "has %zu rows, expected %zu (the length of the mean)", n->n, d);
    /* the shape first: nothing is allocated for a matrix whose rows are not all there */
    for (size_t i = 0; i < d; i++) {
        const ga_node *row = n->kids[i];
        char p[200];
        sp_pathq(c, p, sizeof p, "%s[%zu]", path, i);
        if (!ga_node_is_list(row))
            return sp_fail(c, row, p, "expected a row (a list of %zu numbers)", d);
        if (row->n != d)
            return sp_fail(c, row, p, "row has %zu entries, expected %zu", row->n, d);
    }
    *v = malloc(d * d * sizeof **v);
    int s = GA_OK;
    if (!*v)
        return GA_ENOMEM;
    for (size_t i = 0; i < d && !s; i++) {
        const ga_node *row = n->kids[i];
        if (row->kind == GA_NODE_NUMS) {
            memcpy(*v + i * d, row->nums->v, d * sizeof **v);
            continue;
        }
        for (size_t j = 0; j < d && !s; j++)
            s = sp_item_number(c, row, j, path, (long)i, &(*v)[i * d + j]);
    }
    if (s) { /* the caller owns nothing on error */
        free(*v);
        *v = NULL;
    }
    return s;
}

static const char *scalar_text(const ga_node *n)
{
    return n && n->kind == GA_NODE_SCALAR ? n->text : NULL;
}

/* the keys of each mapping of the spec language (the parser checks them; the JSON Schema
 * lists them) */
const char *const ga_spec_top_keys[] = {"gaussaudit", "name", "description", "source",
                                        "mechanism", "pairs", "dataset", "neighbours",
                                        "universe", "claim", "relative", NULL};
const char *const ga_spec_law_keys[] = {"mean", "cov", NULL};
const char *const ga_spec_pair_mech_keys[] = {"kind", NULL};
const char *const ga_spec_pair_keys[] = {"name", "x", "y", "columns", NULL};
const char *const ga_spec_neighbour_keys[] = {"relation", "candidates", "rows", "label_bound",
                                              NULL};
const char *const ga_spec_universe_keys[] = {"row_norm_bound", "label_bound", "max_rows", NULL};

static int parse_law(ctx_t *c, const ga_node *n, const char *path, size_t *d, double **mu,
                     const ga_node **mut, double **s, const ga_node **st)
{
    int r = sp_check_map(c, n, path, ga_spec_law_keys);
    if (r)
        return r;
    char p[200];
    size_t len = 0;
    sp_pathq(c, p, sizeof p, "%s.mean", path);
    if ((r = get_vector(c, ga_node_get(n, "mean"), p, *d, mu, &len)))
        return r;
    *mut = ga_node_get(n, "mean");
    *d = len;
    sp_pathq(c, p, sizeof p, "%s.cov", path);
    if ((r = get_matrix(c, ga_node_get(n, "cov"), p, len, s)))
        return r;
    *st = ga_node_get(n, "cov");
    return GA_OK;
}

/* pair i of the list, node n, into p: GA_OK, or a failure's status and (c's) message */
static int parse_pair(ctx_t *c, const ga_node *n, size_t i, ga_spec_pair *p)
{
    char path[64], sub[96];
    sp_pathq(c, path, sizeof path, "pairs[%zu]", i);
    int r = sp_check_map(c, n, path, ga_spec_pair_keys);
    if (r)
        return r;
    p->line = n->line;
    p->src_pos = i + 1;
    const char *nm = scalar_text(ga_node_get(n, "name"));
    char defname[32];
    if (!nm)
        sp_pathf(defname, sizeof defname, "pair %zu", i + 1);
    p->name = strdup(nm ? nm : defname);
    if (!p->name)
        return GA_ENOMEM;
    p->columns = 1;
    const ga_node *cn = ga_node_get(n, "columns");
    if (cn) {
        sp_pathq(c, sub, sizeof sub, "%s.columns", path);
        if ((r = get_number(c, cn, sub, &p->columns, NULL)))
            return r;
        if (!(p->columns >= 1) || p->columns != floor(p->columns) || p->columns > 1e9)
            return sp_fail(c, cn, sub, "must be a whole number >= 1 (got %s)", cn->text);
    }
    size_t d = 0;
    sp_pathq(c, sub, sizeof sub, "%s.x", path);
    if (!ga_node_get(n, "x"))
        return sp_fail(c, n, sub, "missing: the output law on D, {mean: [...], cov: [[...]]}");
    const ga_node *ms, *ss; /* (p->src gives them back: ga_spec_pair_src) */
    if ((r = parse_law(c, ga_node_get(n, "x"), sub, &d, &p->mu_x, &ms, &p->s_x, &ss)))
        return r;
    sp_pathq(c, sub, sizeof sub, "%s.y", path);
    if (!ga_node_get(n, "y"))
        return sp_fail(c, n, sub, "missing: the output law on D', {mean: [...], cov: [[...]]}");
    size_t dy = d;
    const ga_node *yn = ga_node_get(n, "y");
    const ga_node *ym = ga_node_get(yn, "mean");
    if (ga_node_is_list(ym) && ym->n != d) {
        char q[120];
        sp_pathf(q, sizeof q, "%s.mean", sub);
        return sp_fail(c, ym, q, "has %zu entries but x.mean has %zu: both laws must have the "
                       "same dimension", ym->n, d);
    }
    if ((r = parse_law(c, yn, sub, &dy, &p->mu_y, &ms, &p->s_y, &ss)))
        return r;
    p->d = d;
    p->src = n;
    return GA_OK;
}

/* The pairs are read quietly (no message, no path formatted) on the spec's threads
 * (c->opts->jobs), each into its own record; the first that fails (in list order) is then
 * read again on this thread for its message, so the message and the records are the same
 * for any number of threads. */
typedef struct {
    ctx_t quiet; /* c without its message buffer */
    const ga_node *list;
    ga_spec_pair *pairs;
    int *st;
} pairs_run;

static void pair_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    pairs_run *pr = ctx;
    pr->st[i] = parse_pair(&pr->quiet, pr->list->kids[i], i, &pr->pairs[i]);
}

static int parse_pairs(ga_spec *s, ctx_t *c, const ga_node *list)
{
    if (!list)
        return sp_fail(c, NULL, "pairs", "missing: kind gaussian_pair needs a list of pairs");
    if (list->kind != GA_NODE_SEQ || list->n == 0)
        return sp_fail(c, list, "pairs", "expected a non-empty list of pairs");
    ga_pairset *w = &s->written;
    w->pairs = calloc(list->n, sizeof *w->pairs);
    if (!w->pairs)
        return GA_ENOMEM;
    w->npairs = w->cappairs = list->n;
    int *st = calloc(list->n, sizeof *st);
    if (!st)
        return GA_ENOMEM;
    pairs_run pr = {.quiet = *c, .list = list, .pairs = w->pairs, .st = st};
    pr.quiet.msg = NULL;
    pr.quiet.msglen = 0;
    ga_par_for(list->n, c->opts ? ga_par_jobs(c->opts->jobs) : 1, 0, pair_item, &pr, NULL, NULL);
    int r = GA_OK;
    for (size_t i = 0; i < list->n && !r; i++)
        if (st[i]) { /* read again here for the message (a record that reads now is kept) */
            ga_spec_pair_free(&w->pairs[i]);
            r = parse_pair(c, list->kids[i], i, &w->pairs[i]);
        }
    free(st);
    return r;
}

static int parse_points(ctx_t *c, const ga_node *n, const char *path, double **out, size_t *np)
{
    if (n->kind != GA_NODE_SEQ || n->n == 0)
        return sp_fail(c, n, path, "expected a non-empty list of [a, b] points");
    *out = malloc(2 * n->n * sizeof **out);
    if (!*out)
        return GA_ENOMEM;
    for (size_t i = 0; i < n->n; i++) {
        const ga_node *pt = n->kids[i];
        char p[96];
        sp_pathf(p, sizeof p, "%s[%zu]", path, i);
        if (!ga_node_is_list(pt) || pt->n != 2)
            return sp_fail(c, pt, p, "expected a point [a, b]");
        int r;
        if ((r = sp_item_number(c, pt, 0, path, (long)i, &(*out)[2 * i])) ||
            (r = sp_item_number(c, pt, 1, path, (long)i, &(*out)[2 * i + 1])))
            return r;
    }
    *np = n->n;
    return GA_OK;
}

/* the claim: a mapping whose keys the claim types read (verdict/claims.c: ga_spec_claim_*) */
static int parse_claim(ga_spec *s, ctx_t *c, const ga_node *n)
{
    if (n->kind != GA_NODE_MAP)
        return sp_fail(c, n, "claim", "expected a mapping, e.g. {epsilon: 1, delta: 1.0e-5}");
    s->claim = n;
    s->claim_file = c->file;
    return GA_OK;
}

static const struct {
    const char *name;
    int rel;
} relations[] = {{"remove_one", GA_REL_REMOVE_ONE}, {"add_one", GA_REL_ADD_ONE},
                 {"zero_out", GA_REL_ZERO_OUT}, {"replace_one", GA_REL_REPLACE_ONE},
                 {"change_label", GA_REL_CHANGE_LABEL}};

const char *ga_spec_relation_at(size_t i)
{
    return i < sizeof relations / sizeof *relations ? relations[i].name : NULL;
}

/* (has_data: the spec gives a dataset; without one, the catalogue decides whether its kind
 * needs candidates: the samplers' gradients are abstract) */
static int parse_neighbours(ga_spec *s, ctx_t *c, const ga_node *n, int has_data)
{
    const ga_node *rel = n;
    if (n->kind == GA_NODE_MAP) {
        int r = sp_check_map(c, n, "neighbours", ga_spec_neighbour_keys);
        if (r)
            return r;
        rel = ga_node_get(n, "relation");
        if (!rel)
            return sp_fail(c, n, "neighbours.relation", "missing: remove_one, add_one, zero_out, "
                           "replace_one or change_label");
    }
    if (rel->kind != GA_NODE_SCALAR)
        return sp_fail(c, rel, "neighbours", "expected a relation name or a mapping");
    for (size_t i = 0; i < sizeof relations / sizeof *relations; i++)
        if (!strcmp(rel->text, relations[i].name))
            s->relation = relations[i].rel;
    if (!s->relation) {
        const char *names[sizeof relations / sizeof *relations];
        for (size_t i = 0; i < sizeof relations / sizeof *relations; i++)
            names[i] = relations[i].name;
        const char *best = ga_nearest(rel->text, names, sizeof names / sizeof *names, 3, 0);
        char list[128];
        ga_join(list, sizeof list, names, sizeof names / sizeof *names);
        return sp_fail(c, rel, "neighbours", "unknown relation '%s'%s%s%s (%s)", rel->text,
                       best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "", list);
    }
    const ga_node *cand = n->kind == GA_NODE_MAP ? ga_node_get(n, "candidates") : NULL;
    /* (relative DP finds its neighbours within its set of datasets: no candidates) */
    int needs = (s->relation == GA_REL_ADD_ONE || s->relation == GA_REL_REPLACE_ONE) && !s->nrel;
    if (needs && !cand && has_data)
        return sp_fail(c, n, "neighbours.candidates", "missing: %s needs candidate rows, "
                       "{relation: %s, candidates: [[...]]}", rel->text, rel->text);
    if (!needs && cand)
        return sp_fail(c, cand, "neighbours.candidates", "only add_one and replace_one take candidates");
    if (cand) {
        int r;
        if (cand->kind == GA_NODE_MAP)
            r = sp_parse_dataset(s, c, cand, "neighbours.candidates", &s->candidates);
        else
            r = sp_parse_rows(c, cand, "neighbours.candidates", &s->candidates);
        if (r)
            return r;
    }
    const ga_node *lb = n->kind == GA_NODE_MAP ? ga_node_get(n, "label_bound") : NULL;
    if (lb && s->relation != GA_REL_CHANGE_LABEL)
        return sp_fail(c, lb, "neighbours.label_bound", "only change_label takes a label bound");
    if (lb) {
        int r = get_number(c, lb, "neighbours.label_bound", &s->label_bound, NULL);
        if (r)
            return r;
        /* (the laws carry the label squared, times the data: a bound far beyond any label
         * would overflow them, far from this field) */
        if (!(s->label_bound > 0 && s->label_bound <= 1e50))
            return sp_fail(c, lb, "neighbours.label_bound", "must be a number in (0, 1e50] (got %s)",
                           lb->text);
    }
    const ga_node *rows = n->kind == GA_NODE_MAP ? ga_node_get(n, "rows") : NULL;
    if (rows) {
        if (!ga_node_is_list(rows) || rows->n == 0)
            return sp_fail(c, rows, "neighbours.rows", "expected a non-empty list of row numbers (1-based)");
        s->rows = malloc(rows->n * sizeof *s->rows);
        if (!s->rows)
            return GA_ENOMEM;
        for (size_t i = 0; i < rows->n; i++) {
            double v;
            char p[64], buf[GA_DEC_TEXT_MAX];
            int r = sp_item_number(c, rows, i, "neighbours.rows", -1, &v);
            if (r)
                return r;
            sp_pathf(p, sizeof p, "neighbours.rows[%zu]", i);
            if (v < 1 || v != floor(v) || v > 1e15)
                return sp_fail(c, item_node(rows, i), p, "row numbers are whole numbers >= 1 (got %s)",
                            ga_node_item_text(rows, i, buf));
            s->rows[i] = (size_t)v - 1;
        }
        s->nrows_sel = rows->n;
    }
    return GA_OK;
}

/* helpers for the mechanism builders (catalogue/) */
int ga_spec_node_number(const ga_spec *s, const ga_node *map, const char *prefix,
                        const char *key, double *v, int required, char *msg, size_t msglen)
{
    ctx_t c = {s->path, msg, msglen, NULL, NULL};
    const ga_node *n = ga_node_get(map, key);
    char p[160];
    sp_pathf(p, sizeof p, "%s.%s", prefix, key);
    if (!n)
        return required ? sp_fail(&c, map, p, "missing (required by kind %s)", s->kind) : -1;
    return get_number(&c, n, p, v, NULL);
}

int ga_spec_number(const ga_spec *s, const ga_node *n, const char *path, double *v,
                   const char **txt, char *msg, size_t msglen)
{
    ctx_t c = {s->path, msg, msglen, NULL, NULL};
    return get_number(&c, n, path, v, txt);
}

int ga_spec_mech_number(const ga_spec *s, const char *key, double *v, int required, char *msg,
                        size_t msglen)
{
    return ga_spec_node_number(s, s->mechanism, "mechanism", key, v, required, msg, msglen);
}

int ga_spec_fail(const ga_spec *s, const ga_node *n, const char *path, char *msg, size_t msglen,
                 const char *what)
{
    ctx_t c = {s->path, msg, msglen, NULL, NULL};
    return sp_fail(&c, n, path, "%s", what);
}

/* the claim's helpers: messages name the claim's own file (the spec, or the replacing claim) */
int ga_spec_claim_fail(const ga_spec *s, const ga_node *n, const char *path, char *msg,
                       size_t msglen, const char *what)
{
    ctx_t c = {s->claim_file ? s->claim_file : s->path, msg, msglen, NULL, NULL};
    return sp_fail(&c, n, path, "%s", what);
}

int ga_spec_claim_keys(const ga_spec *s, const char *const *allowed, char *msg, size_t msglen)
{
    ctx_t c = {s->claim_file ? s->claim_file : s->path, msg, msglen, NULL, NULL};
    return s->claim ? sp_check_map(&c, s->claim, "claim", allowed) : GA_OK;
}

int ga_spec_claim_number(const ga_spec *s, const ga_node *n, const char *path, double *v,
                         const char **txt, char *msg, size_t msglen)
{
    ctx_t c = {s->claim_file ? s->claim_file : s->path, msg, msglen, NULL, NULL};
    return get_number(&c, n, path, v, txt);
}

int ga_spec_claim_points(const ga_spec *s, const ga_node *n, const char *path, double **v,
                         size_t *np, char *msg, size_t msglen)
{
    ctx_t c = {s->claim_file ? s->claim_file : s->path, msg, msglen, NULL, NULL};
    *v = NULL;
    *np = 0;
    int r = parse_points(&c, n, path, v, np);
    if (r) {
        free(*v);
        *v = NULL;
        *np = 0;
    }
    return r;
}

const char *const ga_spec_common_mech_keys[] = {"repeat", "release", NULL};

int ga_spec_check_map(const ga_spec *s, const ga_node *n, const char *path,
                      const char *const *allowed, char *msg, size_t msglen)
{
    ctx_t c = {s->path, msg, msglen, NULL, NULL};
    if (n != s->mechanism)
        return sp_check_map(&c, n, path, allowed);
    /* a mechanism mapping: its kind's keys and the common ones */
    const char *all[64];
    size_t k = 0;
    for (const char *const *a = allowed; *a && k < 60; a++)
        all[k++] = *a;
    for (const char *const *a = ga_spec_common_mech_keys; *a; a++)
        all[k++] = *a;
    all[k] = NULL;
    return sp_check_map(&c, n, path, all);
}

int ga_spec_matrix(const ga_spec *s, const ga_node *n, const char *path, size_t d, double **v,
                   char *msg, size_t msglen)
{
    ctx_t c = {s->path, msg, msglen, NULL, NULL};
    return get_matrix(&c, n, path, d, v);
}

int ga_spec_vector(const ga_spec *s, const ga_node *n, const char *path, size_t want, double **v,
                   size_t *len, char *msg, size_t msglen)
{
    ctx_t c = {s->path, msg, msglen, NULL, NULL};
    return get_vector(&c, n, path, want, v, len);
}

static int spec_parse(ga_spec *s, const char *text, size_t len, const char *name,
                      const ga_spec_opts *o, char *msg, size_t msglen);

int ga_spec_parse(ga_spec *s, const char *text, size_t len, const char *name, char *msg,
                  size_t msglen)
{
    return ga_spec_parse_opts(s, text, len, name, NULL, msg, msglen);
}

int ga_spec_parse_opts(ga_spec *s, const char *text, size_t len, const char *name,
                       const ga_spec_opts *o, char *msg, size_t msglen)
{
    int rc = spec_parse(s, text, len, name, o, msg, msglen);
    if (rc)
        ga_spec_clear(s); /* on error nothing is left to free */
    return rc;
}

/* the spec's fields before its document is read: 0, or GA_ENOMEM */
static int spec_begin(ga_spec *s, const char *name)
{
    memset(s, 0, sizeof *s);
    s->path = strdup(name ? name : "<spec>");
    return s->path ? GA_OK : GA_ENOMEM;
}

static int spec_from_doc(ga_spec *s, const ga_spec_opts *o, char *msg, size_t msglen);

static int spec_parse(ga_spec *s, const char *text, size_t len, const char *name,
                      const ga_spec_opts *o, char *msg, size_t msglen)
{
    if (spec_begin(s, name))
        return GA_ENOMEM;
    ga_sha256_hex(s->digest, (const unsigned char *)text, len);
    if (ga_doc_parse(&s->doc, text, len, s->path, msg, msglen))
        return GA_EINVAL;
    return spec_from_doc(s, o, msg, msglen);
}

/* the spec from its document (s->doc, s->digest and s->path set) */
static int spec_from_doc(ga_spec *s, const ga_spec_opts *o, char *msg, size_t msglen)
{
    ctx_t c = {s->path, msg, msglen, o, s};
    const ga_node *root = s->doc.root;
    const char *const *keys = ga_spec_top_keys;
    /* the version first: a file without it is not a spec, and its bytes (another file's:
     * a path a part named, say) are never quoted in a message, only the position */
    const ga_node *v = root && root->kind == GA_NODE_MAP ? ga_node_get(root, "gaussaudit") : NULL;
    double ver;
    if (root && root->kind != GA_NODE_MAP)
        return sp_check_map(&c, root, "(top level)", keys); /* "expected a mapping" */
    if (!v)
        return sp_fail(&c, root, "gaussaudit", "missing: the format version (gaussaudit: 1); not a "
                    "gaussaudit spec");
    int r = sp_check_map(&c, root, "(top level)", keys);
    if (r)
        return r;
    if ((r = get_number(&c, v, "gaussaudit", &ver, NULL)))
        return r;
    if (ver != 1)
        return sp_fail(&c, v, "gaussaudit", "unsupported format version %s (this tool reads 1)",
                    v->text);
    s->name = scalar_text(ga_node_get(root, "name"));
    if (!s->name)
        s->name = s->path;
    const ga_node *m = ga_node_get(root, "mechanism");
    if (!m)
        return sp_fail(&c, root, "mechanism", "missing: e.g. mechanism: {kind: gaussian_pair}");
    if (m->kind != GA_NODE_MAP)
        return sp_fail(&c, m, "mechanism", "expected a mapping, e.g. {kind: gaussian_pair}");
    s->mechanism = m;
    s->kind = scalar_text(ga_node_get(m, "kind"));
    if (!s->kind)
        return sp_fail(&c, m, "mechanism.kind", "missing: the mechanism kind");
    const char *(*kind_at)(size_t) = o ? o->kind_at : NULL;
    int known = !kind_at;
    for (size_t i = 0; kind_at && kind_at(i); i++)
        known |= !strcmp(kind_at(i), s->kind);
    if (!known) {
        const char *names[64];
        size_t nk = 0;
        for (size_t i = 0; kind_at(i) && nk < 64; i++)
            names[nk++] = kind_at(i);
        const char *best = ga_nearest(s->kind, names, nk, 3, 0);
        char list[1024];
        ga_join(list, sizeof list, names, nk);
        return sp_fail(&c, ga_node_get(m, "kind"), "mechanism.kind",
                       "unknown kind '%s'%s%s%s; the kinds: %s", s->kind,
                       best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "", list);
    }
    if ((r = sp_parse_releases(s, &c, m)))
        return r;
    if (!strcmp(s->kind, "gaussian_pair")) {
        if ((r = ga_spec_check_map(s, m, "mechanism", ga_spec_pair_mech_keys, msg, msglen)))
            return r;
        const ga_node *extra = ga_node_get(root, "dataset");
        if (!extra)
            extra = ga_node_get(root, "neighbours");
        if (extra)
            return sp_fail(&c, extra, "(top level)", "kind gaussian_pair takes explicit pairs, not "
                           "a dataset or neighbours");
        if ((r = parse_pairs(s, &c, ga_node_get(root, "pairs"))))
            return r;
    } else {
        if (ga_node_get(root, "pairs"))
            return sp_fail(&c, ga_node_get(root, "pairs"), "pairs",
                           "explicit pairs belong to kind gaussian_pair; kind %s derives them from "
                           "its dataset and neighbours", s->kind);
        const ga_node *ds = ga_node_get(root, "dataset");
        if (ds && (r = sp_parse_dataset(s, &c, ds, "dataset", &s->data)))
            return r;
        const ga_node *rel = ga_node_get(root, "relative");
        if (rel && ds)
            return sp_fail(&c, rel, "relative", "give either dataset (DP: every neighbour of it) or "
                           "relative (relative DP: the neighbours within a set of datasets)");
        if (rel && (r = sp_parse_relative(s, &c, rel)))
            return r;
        const ga_node *nb = ga_node_get(root, "neighbours");
        if (nb && (r = parse_neighbours(s, &c, nb, ds != NULL)))
            return r;
        const ga_node *un = ga_node_get(root, "universe");
        if (un) {
            if ((r = sp_check_map(&c, un, "universe", ga_spec_universe_keys)))
                return r;
            /* (which keys a kind's universe needs is the catalogue's business) */
            double *dst[] = {&s->row_norm_bound, &s->universe_label_bound, &s->universe_max_rows};
            int any = 0;
            for (int k = 0; k < 3; k++) {
                const ga_node *rb = ga_node_get(un, ga_spec_universe_keys[k]);
                char path[64];
                snprintf(path, sizeof path, "universe.%s", ga_spec_universe_keys[k]);
                if (!rb)
                    continue;
                if ((r = get_number(&c, rb, path, dst[k], NULL)))
                    return r;
                if (!(*dst[k] > 0) || !isfinite(*dst[k]))
                    return sp_fail(&c, rb, path, "must be a positive number (got %s)", rb->text);
                if (k == 2 && !(*dst[k] == floor(*dst[k]) && *dst[k] <= GA_SPEC_MAX_ROWS))
                    return sp_fail(&c, rb, path, "must be a whole number of rows in 1..%d (got %s)",
                                   GA_SPEC_MAX_ROWS, rb->text);
                any = 1;
            }
            if (!any)
                return sp_fail(&c, un, "universe", "give row_norm_bound (or, for "
                               "gaussian_process_regression, label_bound and max_rows)");
            s->has_universe = 1;
            s->universe = un;
        }
    }
    const ga_node *cl = ga_node_get(root, "claim");
    if (cl && (r = parse_claim(s, &c, cl)))
        return r;
    return GA_OK;
}

int ga_spec_load(ga_spec *s, const char *path, char *msg, size_t msglen)
{
    return ga_spec_load_opts(s, path, NULL, msg, msglen);
}

int ga_spec_load_opts(ga_spec *s, const char *path, const ga_spec_opts *o, char *msg,
                      size_t msglen)
{
    /* the digest describes the bytes parsed; the spec named on the command line may be a
     * pipe (/dev/stdin), still capped; a regular file is parsed as it is read (doc.c) */
    ga_read_policy pol = {.max_bytes = (size_t)1 << 30, .allow_stream = 1, .what = "spec"};
    ga_file f;
    if (!strcmp(path, "-")) /* the command-line convention for standard input */
        path = "/dev/stdin";
    int rc = spec_begin(s, path);
    if (rc == GA_OK && (rc = ga_file_open(&f, path, &pol, msg, msglen)) == GA_OK) {
        rc = ga_doc_read(&s->doc, &f, s->path, o ? ga_par_jobs(o->jobs) : 1, s->digest, msg,
                         msglen);
        ga_file_close(&f);
    }
    if (rc == GA_OK)
        rc = spec_from_doc(s, o, msg, msglen);
    if (rc)
        ga_spec_clear(s); /* on error nothing is left to free */
    return rc;
}

void ga_spec_clear(ga_spec *s)
{
    ga_pairset_clear(&s->written);
    free(s->data.x);
    free(s->data.source);
    free(s->candidates.x);
    free(s->candidates.source);
    free(s->rows);
    free(s->release.x);
    free(s->release.source);
    for (size_t i = 0; i < s->nparts; i++) {
        free(s->part_release[i].x);
        free(s->part_release[i].source);
    }
    free(s->part_release);
    for (size_t i = 0; i < s->nrel; i++) {
        free(s->rel_sets[i].x);
        free(s->rel_sets[i].source);
    }
    free(s->rel_sets);
    for (size_t i = 0; i < s->ninputs; i++) {
        free(s->inputs[i].key);
        free(s->inputs[i].path);
    }
    free(s->inputs);
    if (s->claim_doc) {
        ga_doc_clear(s->claim_doc);
        free(s->claim_doc);
    }
    ga_doc_clear(&s->doc);
    free(s->path);
    memset(s, 0, sizeof *s);
}

int ga_spec_set_claim(ga_spec *s, const char *text, char *msg, size_t msglen)
{
    ga_doc *doc = calloc(1, sizeof *doc);
    if (!doc)
        return GA_ENOMEM;
    static const char name[] = "the replacing claim";
    if (ga_doc_parse(doc, text, strlen(text), name, msg, msglen)) {
        free(doc);
        return GA_EINVAL;
    }
    if (s->claim_doc) {
        ga_doc_clear(s->claim_doc);
        free(s->claim_doc);
    }
    s->claim_doc = doc; /* the claim's decimal texts point into it */
    s->claim = NULL;
    ctx_t c = {name, msg, msglen, NULL, NULL};
    return parse_claim(s, &c, doc->root);
}

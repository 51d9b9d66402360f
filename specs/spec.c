/*
 * spec.c - reading and validating specs (doc/spec.md). Every error
 * names the file, line, column and key path; unknown keys get a "did you mean" hint from
 * the edit distance to the allowed keys. Numbers keep their decimal text for the certified
 * path; a quoted scalar is a string, never a number.
 */
#include "specs/spec.h"
#include "specs/readfile.h"
#include "numerics/internal.h"

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

typedef struct {
    const char *file;
    char *msg;
    size_t msglen;
    const ga_spec_opts *opts; /* file policy (NULL: the spec's own directory only) */
    ga_spec *spec;            /* the files read are listed in spec->inputs (NULL: not) */
} ctx_t;

static int fail(ctx_t *c, const ga_node *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(ctx_t *c, const ga_node *n, const char *path, const char *fmt, ...)
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

/* snprintf for key paths (truncation of an over-long path is harmless in a message) */
static void pathf(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pathf(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    size_t prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

/* Mapping with only allowed keys (NULL-terminated list); duplicate keys are errors. */
static int check_map(ctx_t *c, const ga_node *n, const char *path, const char *const *allowed)
{
    if (!n || n->kind != GA_NODE_MAP)
        return fail(c, n, path, "expected a mapping (key: value)");
    for (size_t i = 0; i + 1 < n->n; i += 2) {
        const ga_node *k = n->kids[i];
        if (k->kind != GA_NODE_SCALAR)
            return fail(c, k, path, "keys must be plain words");
        int ok = 0;
        const char *best = NULL;
        size_t bd = 99;
        for (const char *const *a = allowed; *a; a++) {
            if (!strcmp(k->text, *a))
                ok = 1;
            size_t e = edit_distance(k->text, *a);
            if (e < bd) {
                bd = e;
                best = *a;
            }
        }
        if (!ok) {
            if (best && bd <= 2)
                return fail(c, k, path, "unknown key '%s' (did you mean '%s'?)", k->text, best);
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 3);
                if (a[1])
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return fail(c, k, path, "unknown key '%s' (allowed: %s)", k->text, list);
        }
        for (size_t j = 0; j < i; j += 2)
            if (!strcmp(n->kids[j]->text, k->text))
                return fail(c, k, path, "key '%s' appears twice", k->text);
    }
    return GA_OK;
}

static int get_number(ctx_t *c, const ga_node *n, const char *path, double *v, const char **txt)
{
    if (!n)
        return fail(c, NULL, path, "missing (a number is required)");
    if (n->kind != GA_NODE_SCALAR || n->quoted)
        return fail(c, n, path, "expected a number%s%s%s", n->kind == GA_NODE_SCALAR ? ", got '" : "",
                    n->kind == GA_NODE_SCALAR ? n->text : "", n->kind == GA_NODE_SCALAR ? "'" : "");
    const char *s = n->text;
    /* the one number reader: plain decimals only (the certified path reads the text) */
    if (!ga_decimal_syntax(s))
        return fail(c, n, path, "expected a number, got '%s' (a plain decimal: no hex, inf "
                    "or nan)", s);
    double d;
    if (ga_decimal_to_double(&d, s))
        return fail(c, n, path, "the number '%s' is outside the double range", s);
    *v = d;
    if (txt)
        *txt = s;
    return GA_OK;
}

/* Item i of a list as a number (a NUMS item was read by the one reader already; a SEQ item
 * is read here). Its path, base[i] or base[row][i] with row >= 0, is written only for a
 * message: formatting it for each of millions of numbers cost more than reading them. */
static int item_number(ctx_t *c, const ga_node *list, size_t i, const char *base, long row,
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
        pathf(p, sizeof p, "%s[%ld][%zu]", base, row, i);
    else
        pathf(p, sizeof p, "%s[%zu]", base, i);
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
        return fail(c, NULL, path, "missing (a list of numbers is required)");
    if (!ga_node_is_list(n))
        return fail(c, n, path, "expected a list of numbers like [0, 1.5]");
    if (n->n == 0)
        return fail(c, n, path, "empty list");
    if (want && n->n != want)
        return fail(c, n, path, "has %zu entries, expected %zu", n->n, want);
    if (n->n > GA_SPEC_MAX_DIM)
        return fail(c, n, path, "%zu entries exceed the dimension cap of %d", n->n,
                    GA_SPEC_MAX_DIM);
    *v = malloc(n->n * sizeof **v);
    if (!*v)
        return GA_ENOMEM;
    for (size_t i = 0; i < n->n; i++) {
        int s = item_number(c, n, i, path, -1, &(*v)[i]);
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
        return fail(c, NULL, path, "missing (a %zu x %zu matrix is required)", d, d);
    if (n->kind != GA_NODE_SEQ)
        return fail(c, n, path, "expected a matrix as a list of rows like [[1, 0], [0, 1]]");
    if (n->n != d)
        return fail(c, n, path, "has %zu rows, expected %zu (the length of the mean)", n->n, d);
    /* the shape first: nothing is allocated for a matrix whose rows are not all there */
    for (size_t i = 0; i < d; i++) {
        const ga_node *row = n->kids[i];
        char p[200];
        pathf(p, sizeof p, "%s[%zu]", path, i);
        if (!ga_node_is_list(row))
            return fail(c, row, p, "expected a row (a list of %zu numbers)", d);
        if (row->n != d)
            return fail(c, row, p, "row has %zu entries, expected %zu", row->n, d);
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
            s = item_number(c, row, j, path, (long)i, &(*v)[i * d + j]);
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

static int parse_law(ctx_t *c, const ga_node *n, const char *path, size_t *d, double **mu,
                     const ga_node **mut, double **s, const ga_node **st)
{
    static const char *const keys[] = {"mean", "cov", NULL};
    int r = check_map(c, n, path, keys);
    if (r)
        return r;
    char p[200];
    size_t len = 0;
    pathf(p, sizeof p, "%s.mean", path);
    if ((r = get_vector(c, ga_node_get(n, "mean"), p, *d, mu, &len)))
        return r;
    *mut = ga_node_get(n, "mean");
    *d = len;
    pathf(p, sizeof p, "%s.cov", path);
    if ((r = get_matrix(c, ga_node_get(n, "cov"), p, len, s)))
        return r;
    *st = ga_node_get(n, "cov");
    return GA_OK;
}

static int parse_pairs(ga_spec *s, ctx_t *c, const ga_node *list)
{
    if (!list)
        return fail(c, NULL, "pairs", "missing: kind gaussian_pair needs a list of pairs");
    if (list->kind != GA_NODE_SEQ || list->n == 0)
        return fail(c, list, "pairs", "expected a non-empty list of pairs");
    s->pairs = calloc(list->n, sizeof *s->pairs);
    if (!s->pairs)
        return GA_ENOMEM;
    s->npairs = list->n;
    static const char *const keys[] = {"name", "x", "y", "columns", NULL};
    for (size_t i = 0; i < list->n; i++) {
        const ga_node *n = list->kids[i];
        ga_spec_pair *p = &s->pairs[i];
        char path[64], sub[96];
        pathf(path, sizeof path, "pairs[%zu]", i);
        int r = check_map(c, n, path, keys);
        if (r)
            return r;
        p->line = n->line;
        p->src_pos = i + 1;
        const char *nm = scalar_text(ga_node_get(n, "name"));
        char defname[32];
        pathf(defname, sizeof defname, "pair %zu", i + 1);
        p->name = strdup(nm ? nm : defname);
        if (!p->name)
            return GA_ENOMEM;
        p->columns = 1;
        const ga_node *cn = ga_node_get(n, "columns");
        if (cn) {
            pathf(sub, sizeof sub, "%s.columns", path);
            if ((r = get_number(c, cn, sub, &p->columns, NULL)))
                return r;
            if (!(p->columns >= 1) || p->columns != floor(p->columns) || p->columns > 1e9)
                return fail(c, cn, sub, "must be a whole number >= 1 (got %s)", cn->text);
        }
        size_t d = 0;
        pathf(sub, sizeof sub, "%s.x", path);
        if (!ga_node_get(n, "x"))
            return fail(c, n, sub, "missing: the output law on D, {mean: [...], cov: [[...]]}");
        const ga_node *ms, *ss; /* (p->src gives them back: ga_spec_pair_src) */
        if ((r = parse_law(c, ga_node_get(n, "x"), sub, &d, &p->mu_x, &ms, &p->s_x, &ss)))
            return r;
        pathf(sub, sizeof sub, "%s.y", path);
        if (!ga_node_get(n, "y"))
            return fail(c, n, sub, "missing: the output law on D', {mean: [...], cov: [[...]]}");
        size_t dy = d;
        const ga_node *yn = ga_node_get(n, "y");
        const ga_node *ym = ga_node_get(yn, "mean");
        if (ga_node_is_list(ym) && ym->n != d) {
            char q[120];
            pathf(q, sizeof q, "%s.mean", sub);
            return fail(c, ym, q, "has %zu entries but x.mean has %zu: both laws must have the "
                        "same dimension", ym->n, d);
        }
        if ((r = parse_law(c, yn, sub, &dy, &p->mu_y, &ms, &p->s_y, &ss)))
            return r;
        p->d = d;
        p->src = n;
    }
    return GA_OK;
}

static int parse_points(ctx_t *c, const ga_node *n, const char *path, double **out, size_t *np)
{
    if (n->kind != GA_NODE_SEQ || n->n == 0)
        return fail(c, n, path, "expected a non-empty list of [a, b] points");
    *out = malloc(2 * n->n * sizeof **out);
    if (!*out)
        return GA_ENOMEM;
    for (size_t i = 0; i < n->n; i++) {
        const ga_node *pt = n->kids[i];
        char p[96];
        pathf(p, sizeof p, "%s[%zu]", path, i);
        if (!ga_node_is_list(pt) || pt->n != 2)
            return fail(c, pt, p, "expected a point [a, b]");
        int r;
        if ((r = item_number(c, pt, 0, path, (long)i, &(*out)[2 * i])) ||
            (r = item_number(c, pt, 1, path, (long)i, &(*out)[2 * i + 1])))
            return r;
    }
    *np = n->n;
    return GA_OK;
}

static int parse_claim(ga_spec *s, ctx_t *c, const ga_node *n)
{
    static const char *const keys[] = {"epsilon", "delta", "profile", "rdp", "zcdp", "gdp", NULL};
    int r = check_map(c, n, "claim", keys);
    if (r)
        return r;
    ga_spec_claim *cl = &s->claim;
    const ga_node *e = ga_node_get(n, "epsilon"), *d = ga_node_get(n, "delta");
    if ((e != NULL) != (d != NULL))
        return fail(c, e ? e : d, "claim", "epsilon and delta must be given together");
    if (e) {
        if ((r = get_number(c, e, "claim.epsilon", &cl->epsilon, &cl->epsilon_txt)) ||
            (r = get_number(c, d, "claim.delta", &cl->delta, &cl->delta_txt)))
            return r;
        if (cl->epsilon < 0)
            return fail(c, e, "claim.epsilon", "must be >= 0 (got %s)", e->text);
        if (!(cl->delta >= 0 && cl->delta < 1))
            return fail(c, d, "claim.delta", "must be in [0, 1) (got %s)", d->text);
        cl->has_eps_delta = 1;
    }
    const ga_node *pr = ga_node_get(n, "profile");
    if (pr) {
        if ((r = parse_points(c, pr, "claim.profile", &cl->profile, &cl->nprofile)))
            return r;
        for (size_t i = 0; i < cl->nprofile; i++)
            if (cl->profile[2 * i] < 0 || !(cl->profile[2 * i + 1] >= 0 && cl->profile[2 * i + 1] < 1))
                return fail(c, pr->kids[i], "claim.profile",
                            "point %zu: need eps >= 0 and 0 <= delta < 1", i);
    }
    const ga_node *rd = ga_node_get(n, "rdp");
    if (rd) {
        if ((r = parse_points(c, rd, "claim.rdp", &cl->rdp, &cl->nrdp)))
            return r;
        for (size_t i = 0; i < cl->nrdp; i++)
            if (!(cl->rdp[2 * i] > 1) || cl->rdp[2 * i + 1] < 0)
                return fail(c, rd->kids[i], "claim.rdp", "point %zu: need alpha > 1 and eps >= 0",
                            i);
    }
    const ga_node *z = ga_node_get(n, "zcdp"), *g = ga_node_get(n, "gdp");
    if (z) {
        if ((r = get_number(c, z, "claim.zcdp", &cl->zcdp_rho, NULL)))
            return r;
        if (!(cl->zcdp_rho > 0))
            return fail(c, z, "claim.zcdp", "rho must be > 0 (got %s)", z->text);
        cl->has_zcdp = 1;
    }
    if (g) {
        if ((r = get_number(c, g, "claim.gdp", &cl->gdp_mu, NULL)))
            return r;
        if (!(cl->gdp_mu > 0))
            return fail(c, g, "claim.gdp", "mu must be > 0 (got %s)", g->text);
        cl->has_gdp = 1;
    }
    return GA_OK;
}

/* ------------------------------------------------------------ datasets */

/* parse a list of numeric rows (all the same length) */
static int parse_rows(ctx_t *c, const ga_node *n, const char *path, ga_dataset *ds)
{
    if (n->kind != GA_NODE_SEQ || n->n == 0)
        return fail(c, n, path, "expected a non-empty list of rows like [[1, 2], [3, 4]]");
    if (n->n > GA_SPEC_MAX_ROWS)
        return fail(c, n, path, "%zu rows exceed the cap of %d", n->n, GA_SPEC_MAX_ROWS);
    const ga_node *r0 = n->kids[0];
    if (!ga_node_is_list(r0) || r0->n == 0)
        return fail(c, r0, path, "row 1 is not a non-empty list of numbers");
    size_t d = r0->n;
    if (d > GA_SPEC_MAX_COLS)
        return fail(c, r0, path, "%zu columns exceed the cap of %d", d, GA_SPEC_MAX_COLS);
    ds->x = malloc(n->n * d * sizeof *ds->x);
    if (!ds->x)
        return GA_ENOMEM;
    for (size_t i = 0; i < n->n; i++) {
        const ga_node *row = n->kids[i];
        char p[200];
        pathf(p, sizeof p, "%s[%zu]", path, i);
        if (!ga_node_is_list(row) || row->n != d)
            return fail(c, row, p, "row has %zu entries, expected %zu (ragged rows)",
                        ga_node_is_list(row) ? row->n : 0, d);
        for (size_t j = 0; j < d; j++) {
            int r = item_number(c, row, j, path, (long)i, &ds->x[i * d + j]);
            if (r)
                return r;
        }
    }
    ds->n = n->n;
    ds->d = d;
    ds->line = n->line;
    return GA_OK;
}

/* is the (whitespace-stripped) line empty or a comment? */
static int blank_line(const char *t, const char *e)
{
    while (t < e && (*t == ' ' || *t == '\t' || *t == '\r'))
        t++;
    return t == e || *t == '#';
}

/* A CSV file is read twice, in pieces, and never held whole: the first pass counts and
 * checks the shape, the values are then allocated, and the second pass parses them. The
 * file may change in between: a second pass that sees another shape is an error. */
typedef struct {
    ctx_t *c;
    const ga_node *n;
    const char *path, *qfull;
    int header_seen;      /* (reset before each pass) */
    size_t rows, cols;    /* the first pass's count; the second checks against it */
    size_t lineno, r;
    ga_dataset *ds;       /* NULL in the first pass */
    ga_sha256 sha;        /* of the bytes of this pass */
    char *buf;            /* the pieces' buffer, kept for both passes (the caller frees it) */
    size_t cap;
} csv_pass;

/* the fields of the line t[0, e): its commas plus one */
static size_t csv_fields(const char *t, const char *e)
{
    size_t k = 1;
    for (const char *p = t; p < e; p++)
        k += *p == ',';
    return k;
}

static int csv_changed(csv_pass *q)
{
    return fail(q->c, q->n, q->path, "%s: the file changed while it was read (line %zu)",
                q->qfull, q->lineno);
}

/* one line t[0, e) (its '\n' excluded, writable: parsed in place): counted, or parsed into
 * ds->x. GA_OK, or the failure's status with its message */
static int csv_line(csv_pass *q, char *t, char *e)
{
    ctx_t *c = q->c;
    q->lineno++;
    if (blank_line(t, e))
        return GA_OK;
    if (!q->header_seen) { /* the first non-empty line is the header */
        q->header_seen = 1;
        return GA_OK;
    }
    if (!q->ds) {
        size_t k = csv_fields(t, e);
        if (q->cols == 0)
            q->cols = k;
        else if (k != q->cols)
            return fail(c, q->n, q->path, "%s:%zu: row has %zu fields, expected %zu (ragged CSV)",
                        q->qfull, q->lineno, k, q->cols);
        if (++q->rows > GA_SPEC_MAX_ROWS || q->cols > GA_SPEC_MAX_COLS)
            return fail(c, q->n, q->path, "%s: more than %d rows or %d columns (caps)", q->qfull,
                        GA_SPEC_MAX_ROWS, GA_SPEC_MAX_COLS);
        return GA_OK;
    }
    if (q->r == q->rows)
        return csv_changed(q);
    /* cols fields, as the first pass counted: a field ends at a comma, or at a '\r' (a CRLF
     * line end; before the last field, the next field is then empty, and refused). The
     * commas are counted again only on the way to an error, so that a line changed in
     * between (other commas now) is told as such first, as the count of every line did */
    char *field = t;
    for (size_t j = 0; j < q->cols; j++) {
        char *fe = field;
        while (fe < e && *fe != ',' && *fe != '\r')
            fe++;
        if ((j + 1 < q->cols ? fe == e : fe < e && (*fe == ',' || memchr(fe, ',', (size_t)(e - fe)))) &&
            csv_fields(t, e) != q->cols)
            return csv_changed(q); /* (fewer commas, or more; with as many, a '\r' ended a
                                      field early and an empty one is refused below) */
        char *a = field, *end = fe;
        while (a < end && (*a == ' ' || *a == '\t'))
            a++;
        while (end > a && (end[-1] == ' ' || end[-1] == '\t'))
            end--; /* (the reader takes no blanks) */
        double v;
        if (ga_decimal_to_double_n(&v, a, (size_t)(end - a))) {
            char tok[64];
            if (csv_fields(t, e) != q->cols)
                return csv_changed(q);
            *end = 0;
            ga_quote_token(tok, sizeof tok, a, 24);
            return fail(c, q->n, q->path,
                        "%s:%zu: field %zu ('%s') is not a finite decimal number", q->qfull,
                        q->lineno, j + 1, tok);
        }
        q->ds->x[q->r * q->cols + j] = v;
        field = fe + (fe < e && *fe == ',');
    }
    q->r++;
    return GA_OK;
}

/* one pass over the file from its first byte, line by line. GA_OK or a failure's status */
static int csv_pass_run(csv_pass *q, ga_file *f, int header)
{
    const size_t piece = ga_file_piece();
    size_t have = 0, got;
    char why[600];
    int rc;
    q->header_seen = !header;
    q->lineno = q->r = 0;
    ga_sha256_init(&q->sha);
    if ((rc = ga_file_rewind(f, why, sizeof why)))
        goto failed;
    do {
        if (!q->buf || q->cap - have - 1 < piece) { /* (a line longer than a piece: under the
                                                        line cap) */
            char *nb = realloc(q->buf, have + piece + 1);
            if (!nb) {
                fail(q->c, q->n, q->path, "%s: out of memory", q->qfull);
                return GA_ENOMEM;
            }
            q->buf = nb;
            q->cap = have + piece + 1;
            ga_mem_prefault(nb, q->cap); /* (read into whole: its pages faulted at once) */
        }
        char *buf = q->buf;
        size_t cap = q->cap;
        if ((rc = ga_file_read(f, buf + have, cap - have - 1, &got, why, sizeof why)))
            goto failed;
        ga_sha256_update(&q->sha, buf + have, got);
        if (memchr(buf + have, 0, got))
            return fail(q->c, q->n, q->path, "%s: contains a NUL byte (not a text CSV file)",
                        q->qfull);
        have += got;
        char *t = buf, *end = buf + have, *e;
        while (t < end) {
            e = memchr(t, '\n', (size_t)(end - t));
            if (!e && got)
                break; /* a line not yet complete: kept for the next piece */
            if (!e)
                e = end; /* the last line, without a line break */
            if ((rc = csv_line(q, t, e)))
                return rc;
            t = e + 1;
        }
        have = t < end ? (size_t)(end - t) : 0;
        memmove(buf, t < end ? t : end, have);
    } while (got);
    return GA_OK;
failed:
    fail(q->c, q->n, q->path, "%s", why);
    return rc == GA_ENOMEM ? GA_ENOMEM : GA_EINVAL;
}

/* the file at full, named by key path, with digest sha: listed in the spec's inputs */
static int add_input(ctx_t *c, const char *path, const char *full, const char *sha)
{
    ga_spec *s = c->spec;
    if (!s)
        return GA_OK;
    ga_spec_input *in = realloc(s->inputs, (s->ninputs + 1) * sizeof *in);
    if (!in)
        return GA_ENOMEM;
    s->inputs = in;
    in += s->ninputs;
    in->key = strdup(path);
    in->path = strdup(full);
    memcpy(in->sha256, sha, sizeof in->sha256);
    if (!in->key || !in->path) {
        free(in->key);
        free(in->path);
        return GA_ENOMEM;
    }
    s->ninputs++;
    return GA_OK;
}

/* CSV relative to the spec's directory, read under the file policy (readfile.h) */
static int parse_csv(ctx_t *c, const ga_node *n, const char *path, const char *file, int header,
                     ga_dataset *ds)
{
    char full[4096], dir[4096];
    const char *slash = strrchr(c->file, '/');
    if (slash)
        pathf(dir, sizeof dir, "%.*s", (int)(slash - c->file) + (slash == c->file), c->file);
    else
        pathf(dir, sizeof dir, ".");
    if (file[0] == '/' || !slash)
        pathf(full, sizeof full, "%s", file);
    else
        pathf(full, sizeof full, "%s/%s", dir, file);
    const char *dirs[1 + GA_SPEC_MAX_ALLOW];
    size_t ndirs = 0;
    /* a spec read from a pipe or a device (/dev/stdin) has no directory of its own (its path's
     * would be /dev or /proc): only --allow-path's directories admit files, a relative path
     * taken from the working directory */
    struct stat sb;
    int stream = stat(c->file, &sb) == 0 && !S_ISREG(sb.st_mode);
    if (stream) {
        if (!c->opts || c->opts->nallow == 0)
            return fail(c, n, path, "the spec was read from a pipe or device, which has no "
                        "directory of its own: give the CSV file's directory with --allow-path"),
                   GA_EINVAL;
        pathf(full, sizeof full, "%s", file);
    } else {
        dirs[ndirs++] = dir;
    }
    for (size_t i = 0; c->opts && i < c->opts->nallow && i < GA_SPEC_MAX_ALLOW; i++)
        dirs[ndirs++] = c->opts->allow_paths[i];
    ga_read_policy pol = {.max_bytes = GA_SPEC_MAX_CSV_BYTES, .max_line = GA_SPEC_MAX_CSV_LINE,
                          .what = "CSV file", .dirs = dirs, .ndirs = ndirs};
    char why[600], qfull[200];
    ga_file f;
    int rc = ga_file_open(&f, full, &pol, why, sizeof why);
    if (rc) {
        ga_file_close(&f);
        return fail(c, n, path, "%s", why), rc == GA_ENOMEM ? GA_ENOMEM : GA_EINVAL;
    }
    ga_quote_token(qfull, sizeof qfull, full, 160);
    csv_pass q = {.c = c, .n = n, .path = path, .qfull = qfull};
    char d1[65], d2[65];
    if ((rc = csv_pass_run(&q, &f, header)))
        goto cleanup;
    ga_sha256_final(&q.sha, d1);
    if (q.rows == 0) {
        rc = fail(c, n, path, "%s: no data rows (empty dataset)", qfull);
        goto cleanup;
    }
    if ((double)q.rows * (double)q.cols * sizeof(double) > 8.0 * (1 << 30)) {
        rc = fail(c, n, path, "%s: %zu x %zu values need more than the 8 GiB cap", qfull, q.rows,
                  q.cols);
        goto cleanup;
    }
    ds->x = malloc(q.rows * q.cols * sizeof *ds->x);
    if (!ds->x) {
        rc = fail(c, n, path, "%s: %zu x %zu values do not fit in memory", qfull, q.rows, q.cols);
        goto cleanup;
    }
    ga_mem_prefault(ds->x, q.rows * q.cols * sizeof *ds->x); /* (written in full below) */
    q.ds = ds;
    if ((rc = csv_pass_run(&q, &f, header)))
        goto cleanup;
    ga_sha256_final(&q.sha, d2);
    if (q.r != q.rows || strcmp(d1, d2)) {
        rc = fail(c, n, path, "%s: the file changed while it was read (%s)", qfull,
                  q.r != q.rows ? "fewer rows" : "its SHA-256 differs between the two passes");
        goto cleanup;
    }
    if ((rc = add_input(c, path, full, d2)))
        goto cleanup;
    ds->n = q.rows;
    ds->d = q.cols;
    ds->line = n->line;
cleanup:
    free(q.buf);
    ga_file_close(&f);
    return rc;
}

/* A table of numbers: {ROWS: [[...], ...]} (rows_key: "rows" for a dataset, "matrix" for a
 * release) or {csv: FILE, header: true|false}, the file read under the spec's policy */
static int parse_table(ctx_t *c, const ga_node *n, const char *path, const char *rows_key,
                       ga_dataset *ds)
{
    const char *const keys[] = {rows_key, "csv", "header", NULL};
    int r = check_map(c, n, path, keys);
    if (r)
        return r;
    const ga_node *rows = ga_node_get(n, rows_key), *csv = ga_node_get(n, "csv");
    if ((rows != NULL) == (csv != NULL))
        return fail(c, n, path, "give exactly one of %s: [[...]] and csv: FILE", rows_key);
    char p[160];
    if (rows) {
        pathf(p, sizeof p, "%s.%s", path, rows_key);
        ds->source = strdup(rows_key);
        return ds->source ? parse_rows(c, rows, p, ds) : GA_ENOMEM;
    }
    pathf(p, sizeof p, "%s.csv", path);
    if (csv->kind != GA_NODE_SCALAR || !csv->text[0])
        return fail(c, csv, p, "expected a file name");
    int header = 0;
    const ga_node *h = ga_node_get(n, "header");
    if (h) {
        char ph[170];
        pathf(ph, sizeof ph, "%s.header", path);
        if (h->kind != GA_NODE_SCALAR || (strcmp(h->text, "true") && strcmp(h->text, "false")))
            return fail(c, h, ph, "expected true or false");
        header = !strcmp(h->text, "true");
    }
    ds->source = strdup(csv->text);
    return ds->source ? parse_csv(c, csv, p, csv->text, header, ds) : GA_ENOMEM;
}

static int parse_dataset(ga_spec *s, ctx_t *c, const ga_node *n, const char *path,
                         ga_dataset *ds)
{
    (void)s;
    return parse_table(c, n, path, "rows", ds);
}

/* release: {matrix: [[...], ...]} or {csv: FILE, header: bool}: the public matrix A */
static int parse_release(ctx_t *c, const ga_node *n, const char *path, ga_dataset *A)
{
    return parse_table(c, n, path, "matrix", A);
}

/* the releases of the mechanism and, for a composition, of each of its parts (parsed here,
 * where the file policy lives; the catalogue applies them) */
static int parse_releases(ga_spec *s, ctx_t *c, const ga_node *m)
{
    const ga_node *rel = ga_node_get(m, "release");
    int r;
    if (rel && (r = parse_release(c, rel, "mechanism.release", &s->release)))
        return r;
    if (!s->kind || strcmp(s->kind, "composition"))
        return GA_OK;
    const ga_node *parts = ga_node_get(m, "parts");
    if (!parts || parts->kind != GA_NODE_SEQ || parts->n == 0)
        return fail(c, parts ? parts : m, "mechanism.parts",
                    "expected a non-empty list of mechanisms, e.g. [{kind: sketch, ...}, ...]");
    if (parts->n > GA_SPEC_MAX_PARTS)
        return fail(c, parts, "mechanism.parts", "%zu parts exceed the cap of %d", parts->n,
                    GA_SPEC_MAX_PARTS);
    s->part_release = calloc(parts->n, sizeof *s->part_release);
    if (!s->part_release)
        return GA_ENOMEM;
    s->nparts = parts->n;
    for (size_t i = 0; i < parts->n; i++) {
        char p[96];
        pathf(p, sizeof p, "mechanism.parts[%zu].release", i);
        const ga_node *pr = parts->kids[i]->kind == GA_NODE_MAP ? ga_node_get(parts->kids[i], "release") : NULL;
        if (pr && (r = parse_release(c, pr, p, &s->part_release[i])))
            return r;
    }
    return GA_OK;
}

/* relative: {datasets: [{rows | csv}, ...]}: the set of datasets of relative DP */
static int parse_relative(ga_spec *s, ctx_t *c, const ga_node *n)
{
    static const char *const keys[] = {"datasets", NULL};
    int r = check_map(c, n, "relative", keys);
    if (r)
        return r;
    const ga_node *l = ga_node_get(n, "datasets");
    if (!l || l->kind != GA_NODE_SEQ || l->n < 2)
        return fail(c, l ? l : n, "relative.datasets", "expected a list of at least two datasets "
                    "[{rows: ...} or {csv: ...}, ...]");
    if (l->n > GA_SPEC_MAX_RELATIVE)
        return fail(c, l, "relative.datasets", "%zu datasets exceed the cap of %d", l->n,
                    GA_SPEC_MAX_RELATIVE);
    s->rel_sets = calloc(l->n, sizeof *s->rel_sets);
    if (!s->rel_sets)
        return GA_ENOMEM;
    s->nrel = l->n;
    for (size_t i = 0; i < l->n; i++) {
        char p[64];
        pathf(p, sizeof p, "relative.datasets[%zu]", i);
        if ((r = parse_dataset(s, c, l->kids[i], p, &s->rel_sets[i])))
            return r;
        if (s->rel_sets[i].d != s->rel_sets[0].d)
            return fail(c, l->kids[i], p, "has %zu columns, the first dataset %zu",
                        s->rel_sets[i].d, s->rel_sets[0].d);
    }
    return GA_OK;
}

static const struct {
    const char *name;
    int rel;
} relations[] = {{"remove_one", GA_REL_REMOVE_ONE}, {"add_one", GA_REL_ADD_ONE},
                 {"zero_out", GA_REL_ZERO_OUT}, {"replace_one", GA_REL_REPLACE_ONE},
                 {"change_label", GA_REL_CHANGE_LABEL}};

static int parse_neighbours(ga_spec *s, ctx_t *c, const ga_node *n)
{
    const ga_node *rel = n;
    if (n->kind == GA_NODE_MAP) {
        static const char *const keys[] = {"relation", "candidates", "rows", "label_bound", NULL};
        int r = check_map(c, n, "neighbours", keys);
        if (r)
            return r;
        rel = ga_node_get(n, "relation");
        if (!rel)
            return fail(c, n, "neighbours.relation", "missing: remove_one, add_one, zero_out, "
                        "replace_one or change_label");
    }
    if (rel->kind != GA_NODE_SCALAR)
        return fail(c, rel, "neighbours", "expected a relation name or a mapping");
    for (size_t i = 0; i < sizeof relations / sizeof *relations; i++)
        if (!strcmp(rel->text, relations[i].name))
            s->relation = relations[i].rel;
    if (!s->relation) {
        const char *best = NULL;
        size_t bd = 99;
        for (size_t i = 0; i < sizeof relations / sizeof *relations; i++) {
            size_t e = edit_distance(rel->text, relations[i].name);
            if (e < bd) {
                bd = e;
                best = relations[i].name;
            }
        }
        return fail(c, rel, "neighbours", "unknown relation '%s'%s%s%s (remove_one, add_one, "
                    "zero_out, replace_one, change_label)", rel->text, bd <= 3 ? " (did you mean '" : "",
                    bd <= 3 ? best : "", bd <= 3 ? "'?)" : "");
    }
    const ga_node *cand = n->kind == GA_NODE_MAP ? ga_node_get(n, "candidates") : NULL;
    /* (relative DP finds its neighbours within its set of datasets: no candidates) */
    int needs = (s->relation == GA_REL_ADD_ONE || s->relation == GA_REL_REPLACE_ONE) && !s->nrel;
    if (needs && !cand)
        return fail(c, n, "neighbours.candidates", "missing: %s needs candidate rows, "
                    "{relation: %s, candidates: [[...]]}", rel->text, rel->text);
    if (!needs && cand)
        return fail(c, cand, "neighbours.candidates", "only add_one and replace_one take candidates");
    if (cand) {
        int r;
        if (cand->kind == GA_NODE_MAP)
            r = parse_dataset(s, c, cand, "neighbours.candidates", &s->candidates);
        else
            r = parse_rows(c, cand, "neighbours.candidates", &s->candidates);
        if (r)
            return r;
    }
    const ga_node *lb = n->kind == GA_NODE_MAP ? ga_node_get(n, "label_bound") : NULL;
    if (lb && s->relation != GA_REL_CHANGE_LABEL)
        return fail(c, lb, "neighbours.label_bound", "only change_label takes a label bound");
    if (lb) {
        int r = get_number(c, lb, "neighbours.label_bound", &s->label_bound, NULL);
        if (r)
            return r;
        /* (the laws carry the label squared, times the data: a bound far beyond any label
         * would overflow them, far from this field) */
        if (!(s->label_bound > 0 && s->label_bound <= 1e50))
            return fail(c, lb, "neighbours.label_bound", "must be a number in (0, 1e50] (got %s)",
                        lb->text);
    }
    const ga_node *rows = n->kind == GA_NODE_MAP ? ga_node_get(n, "rows") : NULL;
    if (rows) {
        if (!ga_node_is_list(rows) || rows->n == 0)
            return fail(c, rows, "neighbours.rows", "expected a non-empty list of row numbers (1-based)");
        s->rows = malloc(rows->n * sizeof *s->rows);
        if (!s->rows)
            return GA_ENOMEM;
        for (size_t i = 0; i < rows->n; i++) {
            double v;
            char p[64], buf[GA_DEC_TEXT_MAX];
            int r = item_number(c, rows, i, "neighbours.rows", -1, &v);
            if (r)
                return r;
            pathf(p, sizeof p, "neighbours.rows[%zu]", i);
            if (v < 1 || v != floor(v) || v > 1e15)
                return fail(c, item_node(rows, i), p, "row numbers are whole numbers >= 1 (got %s)",
                            ga_node_item_text(rows, i, buf));
            s->rows[i] = (size_t)v - 1;
        }
        s->nrows_sel = rows->n;
    }
    return GA_OK;
}

/* helpers for the mechanism builders (audit/mechanisms.c) */
int ga_spec_mech_number(const ga_spec *s, const char *key, double *v, int required, char *msg,
                        size_t msglen)
{
    ctx_t c = {s->path, msg, msglen, NULL, NULL};
    if (s->knob && !strcmp(key, s->knob)) {
        *v = s->knob_value; /* calibrate overrides the noise parameter */
        return GA_OK;
    }
    const ga_node *n = ga_node_get(s->mechanism, key);
    char p[96];
    pathf(p, sizeof p, "mechanism.%s", key);
    if (!n)
        return required ? fail(&c, s->mechanism, p, "missing (required by kind %s)", s->kind) : -1;
    return get_number(&c, n, p, v, NULL);
}

int ga_spec_fail(const ga_spec *s, const ga_node *n, const char *path, char *msg, size_t msglen,
                 const char *what)
{
    ctx_t c = {s->path, msg, msglen, NULL, NULL};
    return fail(&c, n, path, "%s", what);
}

const char *const ga_spec_common_mech_keys[] = {"repeat", "release", NULL};

int ga_spec_check_map(const ga_spec *s, const ga_node *n, const char *path,
                      const char *const *allowed, char *msg, size_t msglen)
{
    ctx_t c = {s->path, msg, msglen, NULL, NULL};
    if (n != s->mechanism)
        return check_map(&c, n, path, allowed);
    /* a mechanism mapping: its kind's keys and the common ones */
    const char *all[64];
    size_t k = 0;
    for (const char *const *a = allowed; *a && k < 60; a++)
        all[k++] = *a;
    for (const char *const *a = ga_spec_common_mech_keys; *a; a++)
        all[k++] = *a;
    all[k] = NULL;
    return check_map(&c, n, path, all);
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

int ga_spec_reserve_pairs(ga_spec *s, size_t n)
{
    if (n > SIZE_MAX / sizeof *s->pairs - s->npairs)
        return GA_ENOMEM;
    if (s->npairs + n <= s->cappairs)
        return GA_OK;
    ga_spec_pair *np = realloc(s->pairs, (s->npairs + n) * sizeof *np);
    if (!np)
        return GA_ENOMEM;
    s->pairs = np;
    s->cappairs = s->npairs + n;
    return GA_OK;
}

/* room for one more pair: GA_OK, GA_EINVAL (the cap), GA_ENOMEM */
static int pair_room(ga_spec *s)
{
    if (s->npairs >= GA_SPEC_MAX_PAIRS)
        return GA_EINVAL;
    if (s->npairs == s->cappairs) {
        size_t cap = s->cappairs ? 2 * s->cappairs : 16;
        ga_spec_pair *np = realloc(s->pairs, cap * sizeof *np);
        if (!np)
            return GA_ENOMEM;
        s->pairs = np;
        s->cappairs = cap;
    }
    return GA_OK;
}

/* the one way a pair is appended: the others describe theirs and move it in here */
int ga_spec_add_moved(ga_spec *s, const char *name, ga_spec_pair *p)
{
    int rc = pair_room(s);
    char *nm = rc ? NULL : strdup(name);
    if (!nm) {
        ga_spec_pair_free(p);
        return rc ? rc : GA_ENOMEM;
    }
    free(p->name);
    s->pairs[s->npairs] = *p;
    s->pairs[s->npairs++].name = nm;
    memset(p, 0, sizeof *p);
    return GA_OK;
}

int ga_spec_add_pair(ga_spec *s, const char *name, size_t d, double columns, double *mu_x,
                     double *s_x, double *mu_y, double *s_y)
{
    ga_spec_pair p = {.d = d, .columns = columns, .mu_x = mu_x, .s_x = s_x, .mu_y = mu_y,
                      .s_y = s_y};
    int given = !!mu_x + !!s_x + !!mu_y + !!s_y;
    if (given != 0 && given != 4) { /* a copy the caller made failed: no memory */
        ga_spec_pair_free(&p);
        return GA_ENOMEM;
    }
    return ga_spec_add_moved(s, name, &p);
}

int ga_spec_add_1d(ga_spec *s, const char *name, double columns, double mu_x, double s_x,
                   double mu_y, double s_y)
{
    double *v = malloc(4 * sizeof *v);
    if (!v)
        return GA_ENOMEM;
    v[0] = mu_x;
    v[1] = s_x;
    v[2] = mu_y;
    v[3] = s_y;
    ga_spec_pair p = {.d = 1, .columns = columns, .mu_x = v, .s_x = v + 1, .mu_y = v + 2,
                      .s_y = v + 3, .laws_block = 1};
    return ga_spec_add_moved(s, name, &p);
}

int ga_spec_add_product(ga_spec *s, const char *name, ga_spec_pair *blocks, size_t n)
{
    ga_spec_pair p = {.columns = 1, .nblocks = n, .blocks = blocks};
    for (size_t b = 0; b < n; b++)
        p.d += blocks[b].d;
    return ga_spec_add_moved(s, name, &p);
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
static int spec_begin(ga_spec *s, const char *name, const ga_spec_opts *o)
{
    memset(s, 0, sizeof *s);
    s->deadline = o ? o->deadline : 0;
    s->jobs = o ? o->jobs : 1;
    s->drop_data = o ? o->drop_data : 0;
    s->families = o ? o->families : 0;
    s->path = strdup(name ? name : "<spec>");
    return s->path ? GA_OK : GA_ENOMEM;
}

static int spec_from_doc(ga_spec *s, const ga_spec_opts *o, char *msg, size_t msglen);

static int spec_parse(ga_spec *s, const char *text, size_t len, const char *name,
                      const ga_spec_opts *o, char *msg, size_t msglen)
{
    if (spec_begin(s, name, o))
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
    static const char *const keys[] = {"gaussaudit", "name", "description", "source",
                                       "mechanism", "pairs", "dataset", "neighbours",
                                       "universe", "claim", "relative", NULL};
    /* the version first: a file without it is not a spec, and its bytes (another file's:
     * a path a part named, say) are never quoted in a message, only the position */
    const ga_node *v = root && root->kind == GA_NODE_MAP ? ga_node_get(root, "gaussaudit") : NULL;
    double ver;
    if (root && root->kind != GA_NODE_MAP)
        return check_map(&c, root, "(top level)", keys); /* "expected a mapping" */
    if (!v)
        return fail(&c, root, "gaussaudit", "missing: the format version (gaussaudit: 1); not a "
                    "gaussaudit spec");
    int r = check_map(&c, root, "(top level)", keys);
    if (r)
        return r;
    if ((r = get_number(&c, v, "gaussaudit", &ver, NULL)))
        return r;
    if (ver != 1)
        return fail(&c, v, "gaussaudit", "unsupported format version %s (this tool reads 1)",
                    v->text);
    s->name = scalar_text(ga_node_get(root, "name"));
    if (!s->name)
        s->name = s->path;
    const ga_node *m = ga_node_get(root, "mechanism");
    if (!m)
        return fail(&c, root, "mechanism", "missing: e.g. mechanism: {kind: gaussian_pair}");
    if (m->kind != GA_NODE_MAP)
        return fail(&c, m, "mechanism", "expected a mapping, e.g. {kind: gaussian_pair}");
    s->mechanism = m;
    s->kind = scalar_text(ga_node_get(m, "kind"));
    if (!s->kind)
        return fail(&c, m, "mechanism.kind", "missing: the mechanism kind");
    const char *(*kind_at)(size_t) = o ? o->kind_at : NULL;
    int known = !kind_at;
    for (size_t i = 0; kind_at && kind_at(i); i++)
        known |= !strcmp(kind_at(i), s->kind);
    if (!known) {
        const char *best = NULL;
        size_t bd = 99;
        for (size_t i = 0; kind_at(i); i++) {
            size_t e = edit_distance(s->kind, kind_at(i));
            if (e < bd) {
                bd = e;
                best = kind_at(i);
            }
        }
        return fail(&c, ga_node_get(m, "kind"), "mechanism.kind",
                    "unknown kind '%s'%s%s%s", s->kind, bd <= 3 ? " (did you mean '" : "",
                    bd <= 3 ? best : "", bd <= 3 ? "'?)" : "");
    }
    if ((r = parse_releases(s, &c, m)))
        return r;
    if (!strcmp(s->kind, "gaussian_pair")) {
        static const char *const mkeys[] = {"kind", "repeat", "release", NULL};
        if ((r = check_map(&c, m, "mechanism", mkeys)))
            return r;
        const ga_node *extra = ga_node_get(root, "dataset");
        if (!extra)
            extra = ga_node_get(root, "neighbours");
        if (extra)
            return fail(&c, extra, "(top level)", "kind gaussian_pair takes explicit pairs, not "
                        "a dataset or neighbours");
        if ((r = parse_pairs(s, &c, ga_node_get(root, "pairs"))))
            return r;
        s->cappairs = s->npairs;
    } else {
        if (ga_node_get(root, "pairs"))
            return fail(&c, ga_node_get(root, "pairs"), "pairs",
                        "explicit pairs belong to kind gaussian_pair; kind %s derives them from "
                        "its dataset and neighbours", s->kind);
        const ga_node *ds = ga_node_get(root, "dataset");
        if (ds && (r = parse_dataset(s, &c, ds, "dataset", &s->data)))
            return r;
        const ga_node *rel = ga_node_get(root, "relative");
        if (rel && ds)
            return fail(&c, rel, "relative", "give either dataset (DP: every neighbour of it) or "
                        "relative (relative DP: the neighbours within a set of datasets)");
        if (rel && (r = parse_relative(s, &c, rel)))
            return r;
        const ga_node *nb = ga_node_get(root, "neighbours");
        if (nb && (r = parse_neighbours(s, &c, nb)))
            return r;
        const ga_node *un = ga_node_get(root, "universe");
        if (un) {
            static const char *const ukeys[] = {"row_norm_bound", NULL};
            if ((r = check_map(&c, un, "universe", ukeys)))
                return r;
            const ga_node *rb = ga_node_get(un, "row_norm_bound");
            if (!rb)
                return fail(&c, un, "universe.row_norm_bound", "missing");
            if ((r = get_number(&c, rb, "universe.row_norm_bound", &s->row_norm_bound, NULL)))
                return r;
            if (!(s->row_norm_bound > 0))
                return fail(&c, rb, "universe.row_norm_bound", "must be > 0 (got %s)", rb->text);
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
    return ga_spec_load_until(s, path, 0, msg, msglen);
}

int ga_spec_load_until(ga_spec *s, const char *path, double deadline, char *msg, size_t msglen)
{
    ga_spec_opts o = {.deadline = deadline};
    return ga_spec_load_opts(s, path, &o, msg, msglen);
}

int ga_spec_load_opts(ga_spec *s, const char *path, const ga_spec_opts *o, char *msg,
                      size_t msglen)
{
    /* the digest describes the bytes parsed; the spec named on the command line may be a
     * pipe (/dev/stdin), still capped; a regular file is parsed as it is read (doc.c) */
    ga_read_policy pol = {.max_bytes = (size_t)1 << 30, .allow_stream = 1, .what = "spec"};
    ga_file f;
    int rc = spec_begin(s, path, o);
    if (rc == GA_OK && (rc = ga_file_open(&f, path, &pol, msg, msglen)) == GA_OK) {
        rc = ga_doc_read(&s->doc, &f, s->path, s->digest, msg, msglen);
        ga_file_close(&f);
    }
    if (rc == GA_OK)
        rc = spec_from_doc(s, o, msg, msglen);
    if (rc)
        ga_spec_clear(s); /* on error nothing is left to free */
    return rc;
}

const ga_node *ga_spec_pair_src(const ga_spec_pair *p, int w)
{
    /* (parse_law read mean and cov of x and y) */
    const ga_node *law = p->src ? ga_node_get(p->src, w == 0 || w == 2 ? "x" : "y") : NULL;
    return law ? ga_node_get(law, w < 2 ? "mean" : "cov") : NULL;
}

/* free a plain pair's four law arrays (one allocation when laws_block) */
static void free_laws(ga_spec_pair *p)
{
    free(p->mu_x);
    if (!p->laws_block) {
        free(p->mu_y);
        free(p->s_x);
        free(p->s_y);
    }
    p->mu_x = p->mu_y = p->s_x = p->s_y = NULL;
    p->laws_block = 0;
}

void ga_spec_pair_free(ga_spec_pair *p)
{
    free(p->name);
    free_laws(p);
    for (size_t b = 0; b < p->nblocks; b++)
        ga_spec_pair_free(&p->blocks[b]);
    free(p->blocks);
    free(p->sub);
    free(p->masked);
    free(p->synth);
    memset(p, 0, sizeof *p);
}

void ga_spec_pair_set_laws(ga_spec_pair *p, size_t d, double *mu_x, double *s_x, double *mu_y,
                           double *s_y)
{
    free_laws(p);
    p->src = NULL;
    p->mean_txt = p->sd_txt = NULL;
    p->d = d;
    p->mu_x = mu_x;
    p->mu_y = mu_y;
    p->s_x = s_x;
    p->s_y = s_y;
}

static void free_pairs(ga_spec *s)
{
    for (size_t i = 0; i < s->npairs; i++)
        ga_spec_pair_free(&s->pairs[i]);
    s->npairs = 0;
    free(s->fam.v);
    memset(&s->fam, 0, sizeof s->fam);
}

void ga_spec_drop_data(ga_spec *s)
{
    free(s->data.x);
    s->data.x = NULL;
#ifdef __GLIBC__
    /* the values were read when glibc's mmap threshold had risen (it follows the largest
     * block freed), so they may sit in the brk heap below blocks still in use, where free()
     * keeps their pages resident: hand the free pages back (about 16 MB for a 100k x 20 CSV) */
    malloc_trim(0);
#endif
}

size_t ga_spec_npairs(const ga_spec *s)
{
    return s->fam.n + s->npairs;
}

const ga_spec_pair *ga_spec_pair_at(const ga_spec *s, size_t i, ga_spec_pair_buf *b, int named)
{
    if (i >= s->fam.n)
        return &s->pairs[i - s->fam.n];
    const ga_spec_family *f = &s->fam;
    f->laws(b->laws, f, i);
    b->p = (ga_spec_pair){.d = 1, .columns = f->columns, .mu_x = b->laws, .s_x = b->laws + 1,
                          .mu_y = b->laws + 2, .s_y = b->laws + 3, .reduced = 1,
                          .laws_block = 1};
    if (named) {
        f->name(b->name, sizeof b->name, f, i);
        b->p.name = b->name;
    }
    return &b->p;
}

const char *ga_spec_pair_name(const ga_spec *s, size_t i, char *buf, size_t len)
{
    if (i >= s->fam.n)
        return s->pairs[i - s->fam.n].name ? s->pairs[i - s->fam.n].name : "";
    s->fam.name(buf, len, &s->fam, i);
    return buf;
}

void ga_spec_reset_pairs(ga_spec *s)
{
    free_pairs(s);
    s->verified = 0;
    s->truncated = 0;
}

void ga_spec_clear(ga_spec *s)
{
    free_pairs(s);
    free(s->pairs);
    free(s->data.x);
    free(s->data.source);
    free(s->candidates.x);
    free(s->candidates.source);
    free(s->rows);
    free(s->claim.profile);
    free(s->claim.rdp);
    free(s->release.x);
    free(s->release.source);
    for (size_t i = 0; i < s->nexplicit_orig; i++)
        ga_spec_pair_free(&s->explicit_orig[i]);
    free(s->explicit_orig);
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

void ga_spec_pair_input(ga_pair_input *in, const ga_spec_pair *p, char labels[4][200])
{
    memset(in, 0, sizeof *in);
    in->d = p->d;
    in->mu_x = p->mu_x;
    in->mu_y = p->mu_y;
    in->s_x = p->s_x;
    in->s_y = p->s_y;
    in->columns = p->columns;
    static const char *const f[4] = {"x.mean", "y.mean", "x.cov", "y.cov"};
    for (int i = 0; i < 4; i++) {
        if (p->src_pos)
            snprintf(labels[i], 200, "pairs[%zu] (line %d).%s", p->src_pos - 1, p->line, f[i]);
        else if (p->name)
            snprintf(labels[i], 200, "%.160s.%s", p->name, f[i]);
        in->field[i] = p->src_pos || p->name ? labels[i] : f[i]; /* (f: a row family's pair
                                                                     taken without its name) */
    }
}

/* The exact decimal texts of a list (rows = 0: a vector of d numbers) or of a list of d rows
 * of d numbers, row-major, as one allocation: the pointers, then the texts that are not in
 * the doc already (a NUMS item's decimal is written out; a scalar's text is pointed to).
 * NULL when out of memory or (not after a successful parse) when an item has no text. */
static const char **list_texts(const ga_node *n, size_t d, int rows)
{
    size_t nr = rows ? d : 1, total = 0;
    char buf[GA_DEC_TEXT_MAX];
    for (size_t i = 0; i < nr; i++) { /* the written texts' bytes */
        const ga_node *row = rows ? n->kids[i] : n;
        if (row->kind != GA_NODE_NUMS)
            continue;
        for (size_t j = 0; j < d; j++) {
            const char *t = ga_node_item_text(row, j, buf);
            if (!t)
                return NULL;
            if (t == buf)
                total += strlen(t) + 1;
        }
    }
    const char **out = malloc(nr * d * sizeof *out + total);
    if (!out)
        return NULL;
    char *arena = (char *)(out + nr * d);
    for (size_t i = 0; i < nr; i++) {
        const ga_node *row = rows ? n->kids[i] : n;
        for (size_t j = 0; j < d; j++) {
            const char *t = ga_node_item_text(row, j, arena);
            if (!t) {
                free(out);
                return NULL;
            }
            out[i * d + j] = t;
            if (t == arena)
                arena += strlen(t) + 1;
        }
    }
    return out;
}

/* A kind's pair N(mean, sd^2) vs N(0, sd^2): the texts of mean, 0 and the exact decimal
 * sd^2 (written for the view), so the certified path reads the spec's numbers, not the
 * double of the double's square */
static int view_gaussian_texts(ga_spec_pair_view *v, ga_pair_text *txt, const ga_spec_pair *p)
{
    enum { VAR_MAX = 2 * GA_DEC_TEXT_MAX + 32 };
    size_t lm = strlen(p->sd_txt);
    const char **t = malloc(4 * sizeof *t + 2 + VAR_MAX + 2 * lm);
    if (!t)
        return GA_ENOMEM;
    char *zero = (char *)(t + 4), *var = zero + 2;
    strcpy(zero, "0");
    if (ga_decimal_mul_text(var, VAR_MAX + 2 * lm, p->sd_txt, p->sd_txt)) {
        free(t);
        return GA_OK; /* (not plain decimals: the doubles stand, as for any pair) */
    }
    t[0] = p->mean_txt;
    t[1] = zero;
    t[2] = t[3] = var;
    v->owned[v->nowned++] = (void *)t;
    txt->mu_x = t;
    txt->mu_y = t + 1;
    txt->s_x = t + 2;
    txt->s_y = t + 3;
    return GA_OK;
}

static int view_one(ga_spec_pair_view *v, ga_pair_input *in, ga_pair_text *txt,
                    char labels[4][200], const ga_spec_pair *p, int text)
{
    ga_spec_pair_input(in, p, labels);
    memset(txt, 0, sizeof *txt);
    if (!text)
        return GA_OK;
    const ga_node *src[4] = {ga_spec_pair_src(p, 0), ga_spec_pair_src(p, 1),
                             ga_spec_pair_src(p, 2), ga_spec_pair_src(p, 3)};
    const char *const **dst[4] = {&txt->mu_x, &txt->mu_y, &txt->s_x, &txt->s_y};
    if (p->sd_txt && p->mean_txt && p->d == 1 && !p->nblocks)
        return view_gaussian_texts(v, txt, p);
    for (int w = 0; w < 4; w++) {
        if (!src[w])
            continue;
        const char **t = list_texts(src[w], p->d, w >= 2);
        if (!t)
            return GA_ENOMEM;
        v->owned[v->nowned++] = (void *)t;
        *dst[w] = t;
    }
    return GA_OK;
}

int ga_spec_pair_view_init(ga_spec_pair_view *v, const ga_spec_pair *p, int text)
{
    memset(v, 0, sizeof *v);
    size_t nb = p->nblocks ? p->nblocks : 1;
    if (text && !(v->owned = calloc(4 * nb, sizeof *v->owned)))
        return GA_ENOMEM;
    if (!p->nblocks) {
        v->n = 1;
        v->in = &v->in1;
        v->txt = &v->txt1;
        v->labels = &v->labels1;
    } else {
        v->in = calloc(p->nblocks, sizeof *v->in);
        v->txt = calloc(p->nblocks, sizeof *v->txt);
        v->labels = calloc(p->nblocks, sizeof *v->labels);
        if (!v->in || !v->txt || !v->labels) {
            ga_spec_pair_view_clear(v);
            return GA_ENOMEM;
        }
        v->n = p->nblocks;
    }
    for (size_t b = 0; b < v->n; b++)
        if (view_one(v, v->in + b, v->txt + b, v->labels[b], p->nblocks ? &p->blocks[b] : p,
                     text)) {
            ga_spec_pair_view_clear(v);
            return GA_ENOMEM;
        }
    return GA_OK;
}

void ga_spec_pair_view_clear(ga_spec_pair_view *v)
{
    if (v->in != &v->in1) {
        free(v->in);
        free(v->txt);
        free(v->labels);
    }
    for (size_t i = 0; i < v->nowned; i++)
        free(v->owned[i]);
    free(v->owned);
    memset(v, 0, sizeof *v);
}

int ga_spec_set_claim(ga_spec *s, const char *text, char *msg, size_t msglen)
{
    ga_doc *doc = calloc(1, sizeof *doc);
    if (!doc)
        return GA_ENOMEM;
    char name[64];
    snprintf(name, sizeof name, "%s", "the replacing claim");
    if (ga_doc_parse(doc, text, strlen(text), name, msg, msglen)) {
        free(doc);
        return GA_EINVAL;
    }
    free(s->claim.profile);
    free(s->claim.rdp);
    memset(&s->claim, 0, sizeof s->claim);
    if (s->claim_doc) {
        ga_doc_clear(s->claim_doc);
        free(s->claim_doc);
    }
    s->claim_doc = doc; /* the claim's decimal texts point into it */
    ctx_t c = {name, msg, msglen, NULL, NULL};
    return parse_claim(s, &c, doc->root);
}

/*
 * dataset.c - datasets in a spec: rows inline, or a CSV file (RFC 4180: comma-separated
 * decimals, quoted or not, CRLF or LF; read in pieces twice: once to count and check, once to
 * fill, so the text is never whole in memory), recorded with its path and SHA-256 among the
 * spec's inputs; release matrices and the datasets of relative DP.
 */
#include "specs/internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

int sp_parse_rows(ctx_t *c, const ga_node *n, const char *path, ga_dataset *ds)
{
    if (n->kind != GA_NODE_SEQ || n->n == 0)
        return sp_fail(c, n, path, "expected a non-empty list of rows like [[1, 2], [3, 4]]");
    if (n->n > GA_SPEC_MAX_ROWS)
        return sp_fail(c, n, path, "%zu rows exceed the cap of %d", n->n, GA_SPEC_MAX_ROWS);
    const ga_node *r0 = n->kids[0];
    if (!ga_node_is_list(r0) || r0->n == 0)
        return sp_fail(c, r0, path, "row 1 is not a non-empty list of numbers");
    size_t d = r0->n;
    if (d > GA_SPEC_MAX_COLS)
        return sp_fail(c, r0, path, "%zu columns exceed the cap of %d", d, GA_SPEC_MAX_COLS);
    ds->x = malloc(n->n * d * sizeof *ds->x);
    if (!ds->x)
        return GA_ENOMEM;
    for (size_t i = 0; i < n->n; i++) {
        const ga_node *row = n->kids[i];
        char p[200];
        sp_pathf(p, sizeof p, "%s[%zu]", path, i);
        if (!ga_node_is_list(row) || row->n != d)
            return sp_fail(c, row, p, "row has %zu entries, expected %zu (ragged rows)",
                           ga_node_is_list(row) ? row->n : 0, d);
        for (size_t j = 0; j < d; j++) {
            int r = sp_item_number(c, row, j, path, (long)i, &ds->x[i * d + j]);
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

/* RFC 4180 fields. A field is quoted ("...", a quote inside written "") or not (no quote, no
 * comma, no line break); blanks around a field are allowed and dropped (spreadsheets do not
 * write them, people do). A quoted field may hold commas and line breaks, so a record may
 * span lines; its content is then handed to the decimal reader as it stands, which takes
 * numbers only. */

/* The field of [p, e) that starts at p: its content [*a, *z) (a quoted field's, without its
 * quotes). Returns where it ends (at its comma, or e); *bad = 1 when a quote is not closed or
 * text follows a closing quote. */
static const char *csv_field(const char *p, const char *e, const char **a, const char **z,
                             int *bad)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    if (p < e && *p == '"') {
        *a = ++p;
        while (p < e && (*p != '"' || (p + 1 < e && p[1] == '"')))
            p += *p == '"' ? 2 : 1;
        *z = p;
        if (p >= e) {
            *bad = 1;
            return e;
        }
        for (p++; p < e && (*p == ' ' || *p == '\t'); p++)
            ;
        if (p < e && *p != ',')
            *bad = 1;
        return p;
    }
    *a = p;
    while (p < e && *p != ',')
        p++;
    const char *end = p;
    while (end > *a && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    *z = end;
    return p;
}

/* the number of fields of the record [t, e) in *k; -1, or the index of a malformed field. A
 * record without a quote (the common case) is its commas plus one. */
static long csv_count(const char *t, const char *e, int quoted, size_t *k)
{
    const char *p = t, *a, *z;
    if (!quoted) {
        for (*k = 1; (p = memchr(p, ',', (size_t)(e - p))) != NULL; p++)
            ++*k;
        return -1;
    }
    for (*k = 0;; p++) {
        int bad = 0;
        p = csv_field(p, e, &a, &z, &bad);
        if (bad)
            return (long)*k;
        ++*k;
        if (p >= e)
            return -1;
    }
}

/* the '\n' that ends the record starting at t (not one inside quotes), or NULL when [t, end)
 * holds no complete record. A line without a quote ends at its '\n' (memchr's speed); the
 * quotes are followed only from a line that has one. */
static char *record_end(char *t, char *end)
{
    char *nl = memchr(t, '\n', (size_t)(end - t));
    if (!memchr(t, '"', (size_t)((nl ? nl : end) - t)))
        return nl;
    int in = 0, start = 1; /* inside quotes; at a field's start (blanks allowed) */
    for (char *p = t; p < end; p++) {
        char ch = *p;
        if (in) {
            if (ch == '"' && p + 1 < end && p[1] == '"')
                p++;
            else if (ch == '"')
                in = 0;
        } else if (ch == '\n')
            return p;
        else if (ch == '"' && start)
            in = 1;
        else if (ch == ',')
            start = 1;
        else if (ch != ' ' && ch != '\t')
            start = 0;
    }
    return NULL;
}

static int csv_changed(csv_pass *q)
{
    return sp_fail(q->c, q->n, q->path, "%s: the file changed while it was read (line %zu)",
                   q->qfull, q->lineno);
}

/* one record t[0, e) (its '\n' excluded; a CRLF's '\r' dropped): counted, or parsed into
 * ds->x. GA_OK, or the failure's status with its message */
static int csv_line(csv_pass *q, char *t, char *e)
{
    ctx_t *c = q->c;
    size_t first = ++q->lineno, k = 0;
    int quoted = memchr(t, '"', (size_t)(e - t)) != NULL;
    for (const char *p = t; quoted && p < e; p++)
        q->lineno += *p == '\n'; /* (a record whose quoted field holds line breaks) */
    if (e > t && e[-1] == '\r')
        e--;
    if (blank_line(t, e))
        return GA_OK;
    if (!q->header_seen) { /* the first non-empty record is the header */
        q->header_seen = 1;
        return GA_OK;
    }
    /* every record is counted in the first pass; in the second (the values), a quoted record
     * is counted first, an unquoted one (the common case, the hot path) only on the way to an
     * error: a record changed in between is told as such first either way */
    long bad = quoted || !q->ds ? csv_count(t, e, quoted, &k) : -1;
    if (bad >= 0)
        return sp_fail(c, q->n, q->path, "%s:%zu: field %ld: a quote is not closed, or text "
                       "follows a closing quote (RFC 4180: a quoted field is \"...\" with \"\" "
                       "for a quote inside)", q->qfull, first, bad + 1);
    if (!q->ds) {
        if (q->cols == 0)
            q->cols = k;
        else if (k != q->cols)
            return sp_fail(c, q->n, q->path, "%s:%zu: row has %zu fields, expected %zu (ragged CSV)",
                           q->qfull, first, k, q->cols);
        if (++q->rows > GA_SPEC_MAX_ROWS || q->cols > GA_SPEC_MAX_COLS)
            return sp_fail(c, q->n, q->path, "%s: more than %d rows or %d columns (caps)", q->qfull,
                           GA_SPEC_MAX_ROWS, GA_SPEC_MAX_COLS);
        return GA_OK;
    }
    if (q->r == q->rows || (quoted && k != q->cols))
        return csv_changed(q);
    const char *p = t;
    for (size_t j = 0; j < q->cols; j++, p++) {
        const char *a, *z;
        int unused = 0;
        double v;
        p = csv_field(p, e, &a, &z, &unused);
        if (!quoted && (j + 1 < q->cols ? p >= e : p < e))
            return csv_changed(q); /* (fewer fields than counted, or more) */
        if (ga_decimal_to_double_n(&v, a, (size_t)(z - a))) {
            char tok[64], field[64];
            if (!quoted && (csv_count(t, e, 0, &k), k != q->cols))
                return csv_changed(q);
            snprintf(field, sizeof field, "%.*s", (int)(z - a < 48 ? z - a : 48), a);
            ga_quote_token(tok, sizeof tok, field, 24);
            return sp_fail(c, q->n, q->path,
                           "%s:%zu: field %zu ('%s') is not a finite decimal number", q->qfull,
                           first, j + 1, tok);
        }
        q->ds->x[q->r * q->cols + j] = v;
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
                sp_fail(q->c, q->n, q->path, "%s: out of memory", q->qfull);
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
            return sp_fail(q->c, q->n, q->path, "%s: contains a NUL byte (not a text CSV file)",
                           q->qfull);
        have += got;
        char *t = buf, *end = buf + have, *e;
        while (t < end) {
            e = record_end(t, end);
            if (!e && got)
                break; /* a record not yet complete: kept for the next piece */
            if (!e)
                e = end; /* the last record, without a line break */
            if ((rc = csv_line(q, t, e)))
                return rc;
            t = e + 1;
        }
        have = t < end ? (size_t)(end - t) : 0;
        memmove(buf, t < end ? t : end, have);
    } while (got);
    return GA_OK;
failed:
    sp_fail(q->c, q->n, q->path, "%s", why);
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
        sp_pathf(dir, sizeof dir, "%.*s", (int)(slash - c->file) + (slash == c->file), c->file);
    else
        sp_pathf(dir, sizeof dir, ".");
    if (file[0] == '/' || !slash)
        sp_pathf(full, sizeof full, "%s", file);
    else
        sp_pathf(full, sizeof full, "%s/%s", dir, file);
    const char *dirs[1 + GA_SPEC_MAX_ALLOW];
    size_t ndirs = 0;
    /* a spec read from a pipe or a device (/dev/stdin) has no directory of its own (its path's
     * would be /dev or /proc): only --allow-path's directories admit files, a relative path
     * taken from the working directory */
    struct stat sb;
    int stream = stat(c->file, &sb) == 0 && !S_ISREG(sb.st_mode);
    if (stream) {
        if (!c->opts || c->opts->nallow == 0)
            return sp_fail(c, n, path, "the spec was read from a pipe or device, which has no "
                           "directory of its own: give the CSV file's directory with --allow-path"),
                   GA_EINVAL;
        sp_pathf(full, sizeof full, "%s", file);
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
        return sp_fail(c, n, path, "%s", why), rc == GA_ENOMEM ? GA_ENOMEM : GA_EINVAL;
    }
    ga_quote_token(qfull, sizeof qfull, full, 160);
    csv_pass q = {.c = c, .n = n, .path = path, .qfull = qfull};
    char d1[65], d2[65];
    if ((rc = csv_pass_run(&q, &f, header)))
        goto cleanup;
    ga_sha256_final(&q.sha, d1);
    if (q.rows == 0) {
        rc = sp_fail(c, n, path, "%s: no data rows (empty dataset)", qfull);
        goto cleanup;
    }
    if ((double)q.rows * (double)q.cols * sizeof(double) > 8.0 * (1 << 30)) {
        rc = sp_fail(c, n, path, "%s: %zu x %zu values need more than the 8 GiB cap", qfull, q.rows,
                     q.cols);
        goto cleanup;
    }
    ds->x = malloc(q.rows * q.cols * sizeof *ds->x);
    if (!ds->x) {
        rc = sp_fail(c, n, path, "%s: %zu x %zu values do not fit in memory", qfull, q.rows, q.cols);
        goto cleanup;
    }
    ga_mem_prefault(ds->x, q.rows * q.cols * sizeof *ds->x); /* (written in full below) */
    q.ds = ds;
    if ((rc = csv_pass_run(&q, &f, header)))
        goto cleanup;
    ga_sha256_final(&q.sha, d2);
    if (q.r != q.rows || strcmp(d1, d2)) {
        rc = sp_fail(c, n, path, "%s: the file changed while it was read (%s)", qfull,
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

/* labels_pm1: whether the last column holds a -1 (binary labels are then -1/1); GA_OK */
static int last_column_pm1(ga_dataset *ds)
{
    for (size_t i = 0; ds->d && i < ds->n && !ds->labels_pm1; i++)
        ds->labels_pm1 = ds->x[i * ds->d + ds->d - 1] == -1;
    return GA_OK;
}

/* A table of numbers: {ROWS: [[...], ...]} (rows_key: "rows" for a dataset, "matrix" for a
 * release) or {csv: FILE, header: true|false}, the file read under the spec's policy */
static int parse_table(ctx_t *c, const ga_node *n, const char *path, const char *rows_key,
                       ga_dataset *ds)
{
    const char *const keys[] = {rows_key, "csv", "header", NULL};
    int r = sp_check_map(c, n, path, keys);
    if (r)
        return r;
    const ga_node *rows = ga_node_get(n, rows_key), *csv = ga_node_get(n, "csv");
    if ((rows != NULL) == (csv != NULL))
        return sp_fail(c, n, path, "give exactly one of %s: [[...]] and csv: FILE", rows_key);
    char p[160];
    if (rows) {
        sp_pathf(p, sizeof p, "%s.%s", path, rows_key);
        ds->source = strdup(rows_key);
        r = ds->source ? sp_parse_rows(c, rows, p, ds) : GA_ENOMEM;
        return r ? r : last_column_pm1(ds);
    }
    sp_pathf(p, sizeof p, "%s.csv", path);
    if (csv->kind != GA_NODE_SCALAR || !csv->text[0])
        return sp_fail(c, csv, p, "expected a file name");
    int header = 0;
    const ga_node *h = ga_node_get(n, "header");
    if (h) {
        char ph[170];
        sp_pathf(ph, sizeof ph, "%s.header", path);
        if (h->kind != GA_NODE_SCALAR || (strcmp(h->text, "true") && strcmp(h->text, "false")))
            return sp_fail(c, h, ph, "expected true or false");
        header = !strcmp(h->text, "true");
    }
    ds->source = strdup(csv->text);
    r = ds->source ? parse_csv(c, csv, p, csv->text, header, ds) : GA_ENOMEM;
    return r ? r : last_column_pm1(ds);
}

int sp_parse_dataset(ga_spec *s, ctx_t *c, const ga_node *n, const char *path,
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

int sp_parse_releases(ga_spec *s, ctx_t *c, const ga_node *m)
{
    const ga_node *rel = ga_node_get(m, "release");
    int r;
    if (rel && (r = parse_release(c, rel, "mechanism.release", &s->release)))
        return r;
    if (!s->kind || strcmp(s->kind, "composition"))
        return GA_OK;
    const ga_node *parts = ga_node_get(m, "parts");
    if (!parts || parts->kind != GA_NODE_SEQ || parts->n == 0)
        return sp_fail(c, parts ? parts : m, "mechanism.parts",
                       "expected a non-empty list of mechanisms, e.g. [{kind: sketch, ...}, ...]");
    if (parts->n > GA_SPEC_MAX_PARTS)
        return sp_fail(c, parts, "mechanism.parts", "%zu parts exceed the cap of %d", parts->n,
                       GA_SPEC_MAX_PARTS);
    s->part_release = calloc(parts->n, sizeof *s->part_release);
    if (!s->part_release)
        return GA_ENOMEM;
    s->nparts = parts->n;
    for (size_t i = 0; i < parts->n; i++) {
        char p[96];
        sp_pathf(p, sizeof p, "mechanism.parts[%zu].release", i);
        const ga_node *pr = parts->kids[i]->kind == GA_NODE_MAP ? ga_node_get(parts->kids[i], "release") : NULL;
        if (pr && (r = parse_release(c, pr, p, &s->part_release[i])))
            return r;
    }
    return GA_OK;
}

int sp_parse_relative(ga_spec *s, ctx_t *c, const ga_node *n)
{
    static const char *const keys[] = {"datasets", NULL};
    int r = sp_check_map(c, n, "relative", keys);
    if (r)
        return r;
    const ga_node *l = ga_node_get(n, "datasets");
    if (!l || l->kind != GA_NODE_SEQ || l->n < 2)
        return sp_fail(c, l ? l : n, "relative.datasets", "expected a list of at least two datasets "
                       "[{rows: ...} or {csv: ...}, ...]");
    if (l->n > GA_SPEC_MAX_RELATIVE)
        return sp_fail(c, l, "relative.datasets", "%zu datasets exceed the cap of %d", l->n,
                       GA_SPEC_MAX_RELATIVE);
    s->rel_sets = calloc(l->n, sizeof *s->rel_sets);
    if (!s->rel_sets)
        return GA_ENOMEM;
    s->nrel = l->n;
    for (size_t i = 0; i < l->n; i++) {
        char p[64];
        sp_pathf(p, sizeof p, "relative.datasets[%zu]", i);
        if ((r = sp_parse_dataset(s, c, l->kids[i], p, &s->rel_sets[i])))
            return r;
        if (s->rel_sets[i].d != s->rel_sets[0].d)
            return sp_fail(c, l->kids[i], p, "has %zu columns, the first dataset %zu",
                           s->rel_sets[i].d, s->rel_sets[0].d);
    }
    return GA_OK;
}

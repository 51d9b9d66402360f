/*
 * dataset.c - datasets in a spec: rows inline, or a CSV file (read by csv.c) recorded with its
 * path and SHA-256 among the spec's inputs; release matrices and the datasets of relative DP.
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
    char sha[65];
    if ((rc = sp_csv_read(c, n, path, qfull, &f, header, ds, sha)) == GA_OK &&
        (rc = add_input(c, path, full, sha)) == GA_OK)
        ds->line = n->line;
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
    /* (ds->labels_pm1 is read with the values) */
    return ds->source ? parse_csv(c, csv, p, csv->text, header, ds) : GA_ENOMEM;
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

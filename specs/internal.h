/*
 * internal.h - what the files of the spec reader share, not seen above it: the parse
 * context (file, message buffer) with its error and path helpers and the checked number,
 * vector and matrix readers (spec.c). Names shared between these files carry the sp_ prefix.
 */
#ifndef GA_SPECS_INTERNAL_H
#define GA_SPECS_INTERNAL_H

#include "specs/spec.h"
#include "specs/readfile.h"
#include "numerics/numerics.h"

typedef struct {
    const char *file;
    char *msg;
    size_t msglen;
    const ga_spec_opts *opts; /* file policy (NULL: the spec's own directory only) */
    ga_spec *spec;            /* the files read are listed in spec->inputs (NULL: not) */
} ctx_t;

int sp_fail(ctx_t *c, const ga_node *n, const char *path, const char *fmt, ...);

void sp_pathf(char *dst, size_t n, const char *fmt, ...);

/* Mapping with only allowed keys (NULL-terminated list); duplicate keys are errors. */
int sp_check_map(ctx_t *c, const ga_node *n, const char *path, const char *const *allowed);

/* Item i of a list as a number (a NUMS item was read by the one reader already; a SEQ item
 * is read here). Its path, base[i] or base[row][i] with row >= 0, is written only for a
 * message: formatting it for each of millions of numbers cost more than reading them. */
int sp_item_number(ctx_t *c, const ga_node *list, size_t i, const char *base, long row,
                   double *v);

/* The CSV file f (opened under the file policy; its name qfull, quoted for messages) read
 * into ds->x, ds->n, ds->d and ds->labels_pm1, a header line skipped when header, on
 * c->opts->jobs threads;
 * GA_OK and the file's SHA-256 (hex) in sha, or a failure's status and its message naming
 * the line (csv.c) */
int sp_csv_read(ctx_t *c, const ga_node *n, const char *path, const char *qfull, ga_file *f,
                int header, ga_dataset *ds, char sha[65]);

/* parse a list of numeric rows (all the same length) */
int sp_parse_rows(ctx_t *c, const ga_node *n, const char *path, ga_dataset *ds);

int sp_parse_dataset(ga_spec *s, ctx_t *c, const ga_node *n, const char *path,
                     ga_dataset *ds);

/* the releases of the mechanism and, for a composition, of each of its parts (parsed here,
 * where the file policy lives; the catalogue applies them) */
int sp_parse_releases(ga_spec *s, ctx_t *c, const ga_node *m);

/* relative: {datasets: [{rows | csv}, ...]}: the set of datasets of relative DP */
int sp_parse_relative(ga_spec *s, ctx_t *c, const ga_node *n);


#endif

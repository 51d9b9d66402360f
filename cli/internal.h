/*
 * internal.h - what the spec commands share (commands.c): a loaded spec with its reduced
 * pairs, statuses and support as text, the JSON head of a spec's output, option checks.
 * Names shared between the command files carry the cl_ prefix.
 */
#ifndef GA_CLI_INTERNAL_H
#define GA_CLI_INTERNAL_H

#include "cli/cli.h"
#include "reports/report.h"
#include "catalogue/catalogue.h"
#include "numerics/numerics.h"

/* A loaded spec with its reduced pairs (NULL: a pair cheap to reduce again, which is not
 * kept: read through use()). */
typedef struct {
    ga_spec spec;
    ga_pairset set;   /* its pairs, built */
    ga_pair **pairs;
    size_t n;
    size_t skipped;   /* pairs the time budget left out (built or reduced: not computed) */
} loaded_t;

/* has the command's time budget run out (its soft deadline, cli/cli.h)? */
int cl_out_of_time(void);

/* the double path's options with the budget's deadline (a long evaluation stops there) */
const ga_gchisq_opts *cl_cli_gopts(void);

/* a status for a message: ga_strerror, and for GA_EDEP what could not be loaded */
const char *cl_status_text(int st);

/* the line that says how many pairs or values the time budget left out */
void cl_say_budget(FILE *err, const char *cmd, size_t n, const char *what);

/* pair i of l for reading: kept, or reduced again into *own, which the caller frees (NULL:
 * no memory, said on err as command cmd when err is non-NULL) */
const ga_pair *cl_use(const loaded_t *l, size_t i, ga_pair **own, FILE *err, const char *cmd);

/* why pair i's supports are what they are (ga_pair_support_reason; at most 511 bytes) */
const char *cl_support_note(char b[512], const loaded_t *l, size_t i);

void cl_loaded_clear(loaded_t *l);

/* Load and reduce; returns an exit status (0 on success) after printing the error. */
int cl_load_spec(loaded_t *l, const char *path, const char *cmd, const ga_spec_opts *so,
                 FILE *err);

const char *cl_support_name(int s);

/* the proven-worst-case label of specs with a universe bound */
void cl_print_verified(FILE *out, const loaded_t *l);

/* a user string for the terminal tables (escaped; a buffer of its own per use) */
#define SAFE(s) ga_cli_safe((char[GA_SPEC_NAME_LEN * 2]){0}, GA_SPEC_NAME_LEN * 2, (s))

/* the opening of a spec command's JSON document: {"spec", "verification", ... */
void cl_json_head(ga_jw *j, const loaded_t *l);

/* a status in JSON: "success", or the message */
void cl_json_status(ga_jw *j, int st);

int cl_parse_format(const char *f, const char *cmd, FILE *err);

void cl_print_text_value(FILE *out, const ga_result *r);

/* the pair column's width: the longest name (tables widen, they never cut a name) */
int cl_name_width(const loaded_t *l);

/* --certified / --digits: fills co; returns nonzero after printing an error */
int cl_cert_options(ga_cert_opts *co, int certified, const char *sdig, const char *cmd,
                    FILE *err);

#endif

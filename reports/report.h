/*
 * report.h - the report writers (Markdown, HTML with inline SVG plots, JSON, JUnit) of an
 * audit result, and the one JSON string/number writer the commands share. Reports depend on
 * the verdict types (verdict/audit.h) only.
 */
#ifndef GA_REPORTS_REPORT_H
#define GA_REPORTS_REPORT_H

#include "verdict/audit.h"

#include <stdio.h>

/* Each writes the whole report of a to out; GA_OK, or GA_EIO when out reported an error. */
int ga_report_markdown(FILE *out, const ga_audit *a);
int ga_report_html(FILE *out, const ga_audit *a);
int ga_report_json(FILE *out, const ga_audit *a);
/* A shard's partial result (audit --shard; verdict/shard.c reads it): GA_OK, GA_EIO, or
 * GA_EINVAL when a is not a shard's audit. */
int ga_report_partial(FILE *out, const ga_audit *a);
int ga_report_junit(FILE *out, const ga_audit *a);
/* several audits as one JUnit document, a testsuite each */
/* JUnit for several audits; a[i] NULL: spec paths[i] could not be audited, errors[i] says
 * why (a testsuite with one error) */
int ga_report_junit_many(FILE *out, const ga_audit *const *a, const char *const *paths,
                         const char *const *errors, size_t n);
/* the same from results (r[i] NULL: paths[i], errors[i] as above) */
int ga_audit_results_write_junit_errors(FILE *out, ga_audit_result *const *r,
                                        const char *const *paths, const char *const *errors,
                                        size_t n);

/* The JSON writer: open and close objects and arrays, write keyed (key != NULL, inside an
 * object) or bare (key == NULL, inside an array or at the top) values; commas, escapes and
 * the null encoding of non-finite numbers are the writer's. A top-level value ends the line.
 * The text is buffered while a top-level value is open and written to out when it ends: the
 * caller writes to out itself only between top-level values. */
#define GA_JW_MAX_DEPTH 32
typedef struct {
    FILE *out;
    int depth;
    int count[GA_JW_MAX_DEPTH];
    size_t len;     /* bytes in buf not yet written */
    char buf[8192];
} ga_jw;

void ga_jw_init(ga_jw *j, FILE *out);
/* A writer into out that continues the array or object j has open, with `before` values in
 * it already (a part of a long array formatted apart: its separators as j would write them);
 * its text, written out with ga_jw_flush, goes into j with ga_jw_splice. */
void ga_jw_init_inside(ga_jw *sub, FILE *out, const ga_jw *j, size_t before);
void ga_jw_flush(ga_jw *j);
/* len bytes written by such a writer, holding values values, as the next ones of j */
void ga_jw_splice(ga_jw *j, const char *text, size_t len, size_t values);
void ga_jw_obj(ga_jw *j, const char *key);
void ga_jw_obj_end(ga_jw *j);
void ga_jw_arr(ga_jw *j, const char *key);
void ga_jw_arr_end(ga_jw *j);
void ga_jw_str(ga_jw *j, const char *key, const char *v); /* NULL: null */
void ga_jw_num(ga_jw *j, const char *key, double v);
void ga_jw_int(ga_jw *j, const char *key, long v);
void ga_jw_bool(ga_jw *j, const char *key, int v);
void ga_jw_null(ga_jw *j, const char *key);
/* {"value", ["infinite": true,] "err"} */
void ga_jw_result(ga_jw *j, const char *key, const ga_result *r);
/* "inputs": [{"key", "path", "sha256"}, ...]: the files the spec read (every report format
 * that records the spec's digest records these too) */
void ga_report_inputs_json(ga_jw *j, const ga_spec *s);
/* What was audited (reports/describe.c): the spec's mechanism mapping as compact text
 * ("kind: sketch, columns: 3, noise_sigma: 0.5"; lists of more than 8 items as "[N items]";
 * cut with "..." to n - 1 bytes), the same as a JSON value (scalars as their text, long lists
 * as {"items": N}), and a top-level text field of the spec ("source", "description"; NULL
 * when absent). */
#define GA_REPORT_MECH_LEN 600
void ga_report_mechanism_text(char *buf, size_t n, const ga_spec *s);
void ga_report_mechanism_json(ga_jw *j, const char *key, const ga_spec *s);
const char *ga_report_spec_text(const ga_spec *s, const char *key);
/* {"lo", "hi" (outward doubles), ["infinite": true,] "lo_decimal", "hi_decimal" (if given)} */
void ga_jw_interval(ga_jw *j, const char *key, const ga_interval *iv, const char *lo_decimal,
                    const char *hi_decimal);

#endif

/*
 * report.h - the report writers (Markdown, HTML with inline SVG plots, JSON, JUnit) of an
 * audit result, and the one JSON string/number writer the commands share. Reports depend on
 * the verdict types (audit/audit.h) only.
 */
#ifndef GA_REPORTS_REPORT_H
#define GA_REPORTS_REPORT_H

#include "audit/audit.h"

#include <stdio.h>

/* Each writes the whole report of a to out; GA_OK, or GA_EIO when out reported an error. */
int ga_report_markdown(FILE *out, const ga_audit *a);
int ga_report_html(FILE *out, const ga_audit *a);
int ga_report_json(FILE *out, const ga_audit *a);
int ga_report_junit(FILE *out, const ga_audit *a);
/* s as a JSON string literal: quotes, backslashes and control characters escaped */
void ga_json_str(FILE *out, const char *s);
/* v as a JSON number that round-trips (%.17g); a non-finite value is null (the one encoding
 * of non-finite numbers; an infinite result also says "infinite": true beside it) */
void ga_json_num(FILE *out, double v);

#endif

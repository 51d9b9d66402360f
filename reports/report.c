/*
 * report.c - the report formats as a table: each row names a format of gaussaudit.h
 * (enum ga_format) and the writer of its file (markdown.c, html.c, json_report.c, junit.c,
 * partial.c). Every writer reads the same ga_audit; a new format is a writer and a row here.
 */
#include "reports/report.h"

#include <stdio.h>

static const struct {
    int format;
    int (*write)(FILE *out, const ga_audit *a);
} formats[] = {
    {GA_FORMAT_MARKDOWN, ga_report_markdown}, {GA_FORMAT_HTML, ga_report_html},
    {GA_FORMAT_JSON, ga_report_json},         {GA_FORMAT_JUNIT, ga_report_junit},
    {GA_FORMAT_PARTIAL, ga_report_partial},
};

int ga_audit_result_write(FILE *out, const ga_audit_result *r, int format)
{
    /* a shard's result is a partial result only; a partial result is a shard's only */
    if ((format == GA_FORMAT_PARTIAL) != (r->a.book.mode == GA_REC_RECORD))
        return GA_EINVAL;
    for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++)
        if (formats[k].format == format)
            return formats[k].write(out, &r->a);
    return GA_EINVAL;
}

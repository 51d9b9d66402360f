/*
 * json.c - the one JSON writer: strings escaped (quotes, backslashes, control
 * characters, bytes that are not UTF-8), numbers as the shortest decimal that reads back as
 * the same double, every non-finite number written as null (an infinite result also carries
 * "infinite": true), commas and nesting kept by the writer rather than by each caller. Used by
 * the commands and the JSON report.
 */
#include "reports/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* s as a JSON string literal: quotes, backslashes and control characters escaped; bidi and
 * invisible characters as \uXXXX escapes (base/format.c); a byte that is not valid UTF-8
 * (a file name's, say) as U+FFFD, so that the document stays valid JSON */
static void ga_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    while (s && *s) {
        /* a run of printable ASCII that needs no escape: one write */
        size_t run = 0;
        while (s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' && s[run] != '\\')
            run++;
        if (run) {
            fwrite(s, 1, run, out);
            s += run;
            continue;
        }
        unsigned char ch = (unsigned char)*s;
        unsigned cp;
        size_t n = ga_utf8_len(s), h;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            fprintf(out, "\\u%04x", ch);
        else if (n == 0)
            fputs("\\ufffd", out);
        else if ((h = ga_utf8_hidden(s, &cp)) > 0)
            fprintf(out, "\\u%04x", cp);
        else
            fwrite(s, 1, n, out);
        s += n ? n : 1;
    }
    fputc('"', out);
}

/* v as a JSON number: the shortest decimal that reads back as v (1e-05, 0.1); a non-finite
 * value is null (the one encoding of non-finite numbers; an infinite result also says
 * "infinite": true beside it) */
static void ga_json_num(FILE *out, double v)
{
    char b[40];
    if (isfinite(v)) {
        ga_fmt_shortest(b, sizeof b, v);
        fputs(b, out);
    } else
        fputs("null", out);
}

void ga_jw_init(ga_jw *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
}

/* the separator and the key of the next value */
static void jw_key(ga_jw *j, const char *key)
{
    if (j->depth > 0 && j->count[j->depth]++)
        fputs(", ", j->out);
    if (key) {
        ga_json_str(j->out, key);
        fputs(": ", j->out);
    }
}

static void jw_open(ga_jw *j, const char *key, char c)
{
    jw_key(j, key);
    fputc(c, j->out);
    if (j->depth + 1 < GA_JW_MAX_DEPTH)
        j->depth++;
    j->count[j->depth] = 0;
}

static void jw_close(ga_jw *j, char c)
{
    fputc(c, j->out);
    if (j->depth > 0)
        j->depth--;
    if (j->depth == 0)
        fputc('\n', j->out);
}

void ga_jw_obj(ga_jw *j, const char *key) { jw_open(j, key, '{'); }
void ga_jw_obj_end(ga_jw *j) { jw_close(j, '}'); }
void ga_jw_arr(ga_jw *j, const char *key) { jw_open(j, key, '['); }
void ga_jw_arr_end(ga_jw *j) { jw_close(j, ']'); }

void ga_jw_str(ga_jw *j, const char *key, const char *v)
{
    jw_key(j, key);
    if (v)
        ga_json_str(j->out, v);
    else
        fputs("null", j->out);
}

void ga_jw_num(ga_jw *j, const char *key, double v)
{
    jw_key(j, key);
    ga_json_num(j->out, v);
}

void ga_jw_int(ga_jw *j, const char *key, long v)
{
    jw_key(j, key);
    fprintf(j->out, "%ld", v);
}

void ga_jw_bool(ga_jw *j, const char *key, int v)
{
    jw_key(j, key);
    fputs(v ? "true" : "false", j->out);
}

void ga_jw_null(ga_jw *j, const char *key)
{
    jw_key(j, key);
    fputs("null", j->out);
}

void ga_jw_result(ga_jw *j, const char *key, const ga_result *r)
{
    ga_jw_obj(j, key);
    ga_jw_num(j, "value", r->val);
    if (isinf(r->val))
        ga_jw_bool(j, "infinite", 1);
    ga_jw_num(j, "err", r->err);
    ga_jw_obj_end(j);
}

void ga_jw_interval(ga_jw *j, const char *key, const ga_interval *iv, const char *lo_decimal,
                    const char *hi_decimal)
{
    ga_jw_obj(j, key);
    ga_jw_num(j, "lo", iv->lo);
    ga_jw_num(j, "hi", iv->hi);
    if (isinf(iv->hi))
        ga_jw_bool(j, "infinite", 1);
    if (lo_decimal)
        ga_jw_str(j, "lo_decimal", lo_decimal);
    if (hi_decimal)
        ga_jw_str(j, "hi_decimal", hi_decimal);
    ga_jw_obj_end(j);
}

void ga_report_inputs_json(ga_jw *j, const ga_spec *s)
{
    ga_jw_arr(j, "inputs");
    for (size_t i = 0; i < s->ninputs; i++) {
        ga_jw_obj(j, NULL);
        ga_jw_str(j, "key", s->inputs[i].key);
        ga_jw_str(j, "path", s->inputs[i].path);
        ga_jw_str(j, "sha256", s->inputs[i].sha256);
        ga_jw_obj_end(j);
    }
    ga_jw_arr_end(j);
}

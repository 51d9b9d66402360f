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

/* The output goes through the writer's buffer (a report of 10^5 pairs is millions of small
 * pieces: one stdio call each cost as much as formatting them), written out whenever it
 * fills and whenever a top-level value ends, so that the caller's own writes to the stream
 * (between values) keep their order and ferror sees every write. */
static void jw_flush(ga_jw *j)
{
    if (j->len)
        fwrite(j->buf, 1, j->len, j->out);
    j->len = 0;
}

static void jw_write(ga_jw *j, const char *s, size_t n)
{
    if (n > sizeof j->buf - j->len) {
        jw_flush(j);
        if (n >= sizeof j->buf) {
            fwrite(s, 1, n, j->out);
            return;
        }
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
}

static void jw_puts(ga_jw *j, const char *s)
{
    jw_write(j, s, strlen(s));
}

static void jw_putc(ga_jw *j, char c)
{
    if (j->len == sizeof j->buf)
        jw_flush(j);
    j->buf[j->len++] = c;
}

/* a top-level value has ended: out with it */
static void jw_done(ga_jw *j)
{
    if (j->depth == 0)
        jw_flush(j);
}

/* s as a JSON string literal: quotes, backslashes and control characters escaped; bidi and
 * invisible characters as \uXXXX escapes (base/format.c); a byte that is not valid UTF-8
 * (a file name's, say) as U+FFFD, so that the document stays valid JSON */
static void jw_string(ga_jw *j, const char *s)
{
    char e[16];
    jw_putc(j, '"');
    while (s && *s) {
        /* a run of printable ASCII that needs no escape: one copy */
        size_t run = 0;
        while (s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' && s[run] != '\\')
            run++;
        if (run) {
            jw_write(j, s, run);
            s += run;
            continue;
        }
        unsigned char ch = (unsigned char)*s;
        unsigned cp;
        size_t n = ga_utf8_len(s), h;
        if (ch == '"' || ch == '\\') {
            snprintf(e, sizeof e, "\\%c", ch);
            jw_puts(j, e);
        } else if (ch < 0x20 || ch == 0x7f) {
            snprintf(e, sizeof e, "\\u%04x", ch);
            jw_puts(j, e);
        } else if (n == 0) {
            jw_puts(j, "\\ufffd");
        } else if ((h = ga_utf8_hidden(s, &cp)) > 0) {
            snprintf(e, sizeof e, "\\u%04x", cp);
            jw_puts(j, e);
        } else {
            jw_write(j, s, n);
        }
        s += n ? n : 1;
    }
    jw_putc(j, '"');
}

/* v as a JSON number: the shortest decimal that reads back as v (1e-05, 0.1); a non-finite
 * value is null (the one encoding of non-finite numbers; an infinite result also says
 * "infinite": true beside it) */
static void jw_number(ga_jw *j, double v)
{
    char b[40];
    if (isfinite(v)) {
        ga_fmt_shortest(b, sizeof b, v);
        jw_puts(j, b);
    } else {
        jw_puts(j, "null");
    }
}

void ga_jw_init(ga_jw *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
}

void ga_jw_init_inside(ga_jw *sub, FILE *out, const ga_jw *j, size_t before)
{
    ga_jw_init(sub, out);
    sub->depth = j->depth;
    sub->count[sub->depth] = before > 0; /* (only whether a separator is due) */
}

void ga_jw_flush(ga_jw *j)
{
    jw_flush(j);
}

void ga_jw_splice(ga_jw *j, const char *text, size_t len, size_t values)
{
    jw_write(j, text, len);
    if (values) /* (a count is only read for whether a separator is due) */
        j->count[j->depth] = 1;
}

/* the separator and the key of the next value */
static void jw_key(ga_jw *j, const char *key)
{
    if (j->depth > 0 && j->count[j->depth]++)
        jw_write(j, ", ", 2);
    if (key) {
        jw_string(j, key);
        jw_write(j, ": ", 2);
    }
}

static void jw_open(ga_jw *j, const char *key, char c)
{
    jw_key(j, key);
    jw_putc(j, c);
    if (j->depth + 1 < GA_JW_MAX_DEPTH)
        j->depth++;
    j->count[j->depth] = 0;
}

static void jw_close(ga_jw *j, char c)
{
    jw_putc(j, c);
    if (j->depth > 0)
        j->depth--;
    if (j->depth == 0)
        jw_putc(j, '\n');
    jw_done(j);
}

void ga_jw_obj(ga_jw *j, const char *key) { jw_open(j, key, '{'); }
void ga_jw_obj_end(ga_jw *j) { jw_close(j, '}'); }
void ga_jw_arr(ga_jw *j, const char *key) { jw_open(j, key, '['); }
void ga_jw_arr_end(ga_jw *j) { jw_close(j, ']'); }

void ga_jw_str(ga_jw *j, const char *key, const char *v)
{
    jw_key(j, key);
    if (v)
        jw_string(j, v);
    else
        jw_puts(j, "null");
    jw_done(j);
}

void ga_jw_num(ga_jw *j, const char *key, double v)
{
    jw_key(j, key);
    jw_number(j, v);
    jw_done(j);
}

void ga_jw_int(ga_jw *j, const char *key, long v)
{
    char b[32];
    jw_key(j, key);
    snprintf(b, sizeof b, "%ld", v);
    jw_puts(j, b);
    jw_done(j);
}

void ga_jw_bool(ga_jw *j, const char *key, int v)
{
    jw_key(j, key);
    jw_puts(j, v ? "true" : "false");
    jw_done(j);
}

void ga_jw_null(ga_jw *j, const char *key)
{
    jw_key(j, key);
    jw_puts(j, "null");
    jw_done(j);
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

/*
 * describe.c - what was audited, as every report format states it: the mechanism's
 * parameters as the spec wrote them (its kind, sigma, rate, steps, parts, ...) and the spec's
 * source and description. The text is the spec's own (decimals as written, never a rounded
 * double); long lists (outputs, datasets, matrices) are summarised by their length, so a
 * report of a 100,000-row spec states its parameters in a line.
 */
#include "reports/report.h"
#include "specs/doc.h"

#include <stdio.h>
#include <string.h>

#define LIST_ITEMS 8  /* lists longer than this are summarised as "[N items]" */
#define MAX_DEPTH 6   /* deeper nesting is summarised as "{...}" */

typedef struct {
    char *b;
    size_t n, len; /* buffer, size, length written (may exceed n - 1: cut) */
} sbuf;

static void put(sbuf *s, const char *t)
{
    size_t l = strlen(t);
    if (s->len < s->n) {
        size_t room = s->n - 1 - s->len;
        memcpy(s->b + s->len, t, l < room ? l : room);
        s->b[s->len + (l < room ? l : room)] = 0;
    }
    s->len += l;
}

static void text_of(sbuf *s, const ga_node *v, int depth)
{
    char buf[GA_DEC_TEXT_MAX + 32];
    if (!v) {
        put(s, "null");
    } else if (v->kind == GA_NODE_SCALAR) {
        put(s, v->text ? v->text : "");
    } else if (depth >= MAX_DEPTH) {
        put(s, v->kind == GA_NODE_MAP ? "{...}" : "[...]");
    } else if (ga_node_is_list(v) && v->n > LIST_ITEMS) {
        snprintf(buf, sizeof buf, "[%zu items]", v->n);
        put(s, buf);
    } else if (ga_node_is_list(v)) {
        put(s, "[");
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                put(s, ", ");
            if (v->kind == GA_NODE_NUMS) {
                const char *t = ga_node_item_text(v, i, buf);
                put(s, t ? t : "?");
            } else
                text_of(s, v->kids[i], depth + 1);
        }
        put(s, "]");
    } else { /* a mapping */
        if (depth)
            put(s, "{");
        for (size_t i = 0; i + 1 < v->n; i += 2) { /* (kids: key, value, key, ...) */
            if (i)
                put(s, ", ");
            text_of(s, v->kids[i], depth + 1);
            put(s, ": ");
            text_of(s, v->kids[i + 1], depth + 1);
        }
        if (depth)
            put(s, "}");
    }
}

void ga_report_mechanism_text(char *buf, size_t n, const ga_spec *s)
{
    sbuf sb = {buf, n, 0};
    if (!n)
        return;
    buf[0] = 0;
    if (!s->mechanism) {
        put(&sb, s->kind ? s->kind : "(not read)");
        return;
    }
    text_of(&sb, s->mechanism, 0);
    if (sb.len >= n && n > 4)
        memcpy(buf + n - 4, "...", 4); /* (cut: the JSON report has every parameter) */
}

static void json_of(ga_jw *j, const char *key, const ga_node *v, int depth)
{
    char buf[GA_DEC_TEXT_MAX + 32];
    if (!v) {
        ga_jw_null(j, key);
    } else if (v->kind == GA_NODE_SCALAR) {
        ga_jw_str(j, key, v->text ? v->text : "");
    } else if (depth >= MAX_DEPTH || (ga_node_is_list(v) && v->n > LIST_ITEMS)) {
        ga_jw_obj(j, key); /* summarised: its length */
        ga_jw_int(j, "items", (long)v->n);
        ga_jw_obj_end(j);
    } else if (ga_node_is_list(v)) {
        ga_jw_arr(j, key);
        for (size_t i = 0; i < v->n; i++) {
            if (v->kind == GA_NODE_NUMS)
                ga_jw_str(j, NULL, ga_node_item_text(v, i, buf)); /* (NULL: null) */
            else
                json_of(j, NULL, v->kids[i], depth + 1);
        }
        ga_jw_arr_end(j);
    } else {
        ga_jw_obj(j, key);
        for (size_t i = 0; i + 1 < v->n; i += 2) {
            const ga_node *k = v->kids[i];
            json_of(j, k && k->kind == GA_NODE_SCALAR && k->text ? k->text : "?", v->kids[i + 1],
                    depth + 1);
        }
        ga_jw_obj_end(j);
    }
}

void ga_report_mechanism_json(ga_jw *j, const char *key, const ga_spec *s)
{
    if (s->mechanism)
        json_of(j, key, s->mechanism, 0);
    else
        ga_jw_null(j, key);
}

const char *ga_report_spec_text(const ga_spec *s, const char *key)
{
    const ga_node *v = s->doc.root ? ga_node_get(s->doc.root, key) : NULL;
    return v && v->kind == GA_NODE_SCALAR && v->text && v->text[0] ? v->text : NULL;
}

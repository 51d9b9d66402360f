/*
 * doc.c - YAML/JSON text to a ga_node tree with positions, using libyaml's event parser.
 * The tree is built with an explicit stack (no recursion on input depth); freeing is
 * iterative too, so hostile nesting cannot overflow the C stack.
 */
#include "specs/doc.h"
#include "numerics/internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static ga_node *node_new(int kind, const yaml_mark_t *m)
{
    ga_node *n = calloc(1, sizeof *n);
    if (n) {
        n->kind = kind;
        n->line = (int)m->line + 1;
        n->col = (int)m->column + 1;
    }
    return n;
}

static int node_push(ga_node *parent, ga_node *kid)
{
    /* capacity 4, 8, 16, ...: full exactly when n is 0 or a power of two >= 4 */
    size_t n = parent->n;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        size_t cap = n ? 2 * n : 4;
        ga_node **k = realloc(parent->kids, cap * sizeof *k);
        if (!k)
            return -1;
        parent->kids = k;
    }
    parent->kids[parent->n++] = kid;
    return 0;
}

static void node_free(ga_node *root)
{
    /* iterative: use each node's kids array as an explicit stack */
    ga_node **stack = NULL;
    size_t sn = 0, scap = 0;
    if (root) {
        stack = malloc(16 * sizeof *stack);
        if (!stack)
            return;
        scap = 16;
        stack[sn++] = root;
    }
    while (sn) {
        ga_node *n = stack[--sn];
        for (size_t i = 0; i < n->n; i++) {
            if (sn == scap) {
                ga_node **s = realloc(stack, 2 * scap * sizeof *s);
                if (!s)
                    break; /* leak rather than crash on OOM during cleanup */
                stack = s;
                scap *= 2;
            }
            stack[sn++] = n->kids[i];
        }
        free(n->kids);
        free(n->text);
        free(n);
    }
    free(stack);
}

void ga_doc_clear(ga_doc *doc)
{
    node_free(doc->root);
    free(doc->name);
    doc->root = NULL;
    doc->name = NULL;
}

int ga_doc_parse(ga_doc *doc, const char *text, size_t len, const char *name, char *msg,
                 size_t msglen)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    ga_node *stack[GA_DOC_MAX_DEPTH + 1];
    int depth = 0, rc = -1, done = 0, ndocs = 0;
    size_t nodes = 0;
    ga_node *root = NULL;
    doc->root = NULL;
    doc->name = strdup(name ? name : "<input>");
    if (!doc->name) {
        ga_msg(msg, msglen, "%s: out of memory", name);
        return -1;
    }
    if (!yaml_parser_initialize(&parser)) {
        ga_msg(msg, msglen, "%s: cannot initialise the YAML parser", doc->name);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            ga_msg(msg, msglen, "%s:%zu:%zu: YAML syntax error: %s%s%s", doc->name,
                   parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                   parser.problem ? parser.problem : "unknown problem",
                   parser.context ? " " : "", parser.context ? parser.context : "");
            goto cleanup;
        }
        const yaml_mark_t *m = &ev.start_mark;
        ga_node *n = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++ndocs > 1) {
                ga_msg(msg, msglen, "%s:%zu:%zu: more than one YAML document in the file",
                       doc->name, m->line + 1, m->column + 1);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            break;
        case YAML_ALIAS_EVENT:
            ga_msg(msg, msglen, "%s:%zu:%zu: YAML aliases (*name) are not allowed in specs",
                   doc->name, m->line + 1, m->column + 1);
            yaml_event_delete(&ev);
            goto cleanup;
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            const yaml_char_t *anchor = ev.type == YAML_SCALAR_EVENT ? ev.data.scalar.anchor
                                        : ev.type == YAML_SEQUENCE_START_EVENT
                                            ? ev.data.sequence_start.anchor
                                            : ev.data.mapping_start.anchor;
            if (anchor) {
                ga_msg(msg, msglen, "%s:%zu:%zu: YAML anchors (&name) are not allowed in specs",
                       doc->name, m->line + 1, m->column + 1);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            if (++nodes > GA_DOC_MAX_NODES) {
                ga_msg(msg, msglen, "%s:%zu:%zu: document has more than %d nodes", doc->name,
                       m->line + 1, m->column + 1, GA_DOC_MAX_NODES);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            int kind = ev.type == YAML_SCALAR_EVENT ? GA_NODE_SCALAR
                       : ev.type == YAML_SEQUENCE_START_EVENT ? GA_NODE_SEQ
                                                               : GA_NODE_MAP;
            n = node_new(kind, m);
            if (!n) {
                ga_msg(msg, msglen, "%s: out of memory", doc->name);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            if (kind == GA_NODE_SCALAR) {
                n->text = malloc(ev.data.scalar.length + 1);
                if (!n->text) {
                    node_free(n);
                    ga_msg(msg, msglen, "%s: out of memory", doc->name);
                    yaml_event_delete(&ev);
                    goto cleanup;
                }
                memcpy(n->text, ev.data.scalar.value, ev.data.scalar.length);
                n->text[ev.data.scalar.length] = 0;
                n->quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
            }
            if (depth == 0) {
                if (root) {
                    node_free(n);
                    ga_msg(msg, msglen, "%s: unexpected second root node", doc->name);
                    yaml_event_delete(&ev);
                    goto cleanup;
                }
                root = n;
            } else if (node_push(stack[depth - 1], n)) {
                node_free(n);
                ga_msg(msg, msglen, "%s: out of memory", doc->name);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            if (kind != GA_NODE_SCALAR) {
                if (depth >= GA_DOC_MAX_DEPTH) {
                    ga_msg(msg, msglen, "%s:%zu:%zu: nesting deeper than %d levels", doc->name,
                           m->line + 1, m->column + 1, GA_DOC_MAX_DEPTH);
                    yaml_event_delete(&ev);
                    goto cleanup;
                }
                stack[depth++] = n;
            }
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    if (!root) {
        ga_msg(msg, msglen, "%s: empty document", doc->name);
        goto cleanup;
    }
    doc->root = root;
    root = NULL;
    rc = 0;
cleanup:
    node_free(root);
    yaml_parser_delete(&parser);
    if (rc) {
        free(doc->name);
        doc->name = NULL;
    }
    return rc;
}

int ga_doc_load(ga_doc *doc, const char *path, char *msg, size_t msglen)
{
    int rc = -1;
    char *buf = NULL;
    FILE *f = fopen(path, "rb");
    doc->root = NULL;
    doc->name = NULL;
    if (!f) {
        ga_msg(msg, msglen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        ga_msg(msg, msglen, "%s: cannot seek", path);
        goto cleanup;
    }
    long sz = ftell(f);
    if (sz < 0 || fseek(f, 0, SEEK_SET) != 0) {
        ga_msg(msg, msglen, "%s: cannot determine the size", path);
        goto cleanup;
    }
    buf = malloc((size_t)sz + 1);
    if (!buf) {
        ga_msg(msg, msglen, "%s: out of memory for %ld bytes", path, sz);
        goto cleanup;
    }
    if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        ga_msg(msg, msglen, "%s: read error", path);
        goto cleanup;
    }
    buf[sz] = 0;
    rc = ga_doc_parse(doc, buf, (size_t)sz, path, msg, msglen);
cleanup:
    free(buf);
    fclose(f);
    return rc;
}

const ga_node *ga_node_get(const ga_node *map, const char *key)
{
    if (!map || map->kind != GA_NODE_MAP)
        return NULL;
    for (size_t i = 0; i + 1 < map->n; i += 2) {
        const ga_node *k = map->kids[i];
        if (k->kind == GA_NODE_SCALAR && strcmp(k->text, key) == 0)
            return map->kids[i + 1];
    }
    return NULL;
}

int ga_node_double(double *v, const ga_node *n)
{
    if (!n || n->kind != GA_NODE_SCALAR || !n->text[0])
        return -1;
    char *end;
    errno = 0;
    double d = strtod(n->text, &end);
    if (*end != 0 || !isfinite(d))
        return -1;
    *v = d;
    return 0;
}

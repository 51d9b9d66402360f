/*
 * doc.h - a YAML (and JSON) document as a tree with source positions, read with libyaml.
 * Scalars keep their exact text (numbers stay decimal strings for the certified path).
 */
#ifndef GA_SPECS_DOC_H
#define GA_SPECS_DOC_H

#include <stddef.h>

enum ga_node_kind { GA_NODE_SCALAR, GA_NODE_SEQ, GA_NODE_MAP };

typedef struct ga_node ga_node;
struct ga_node {
    int kind;          /* enum ga_node_kind */
    int line, col;     /* 1-based position of the node's start in the source */
    char *text;        /* scalar text (NULL otherwise) */
    int quoted;        /* scalar was quoted (then it is a string, never a number) */
    size_t n;          /* number of children (SEQ: items, MAP: key/value pairs) */
    ga_node **kids;    /* SEQ: items; MAP: keys at 2i, values at 2i+1 */
};

typedef struct {
    ga_node *root;
    char *name;        /* source name for messages */
} ga_doc;

/*
 * Parse a whole YAML/JSON text (one document). Returns 0 and fills doc, or nonzero with a
 * message "NAME:LINE:COL: ..." in msg. Aliases, anchors and tags are rejected (a spec has
 * no need for them, and they allow billion-laughs expansion); nesting deeper than
 * GA_DOC_MAX_DEPTH and more than GA_DOC_MAX_NODES nodes are errors.
 */
#define GA_DOC_MAX_DEPTH 64
#define GA_DOC_MAX_NODES 20000000
int ga_doc_parse(ga_doc *doc, const char *text, size_t len, const char *name, char *msg,
                 size_t msglen);
/* Read a file and parse it. */
int ga_doc_load(ga_doc *doc, const char *path, char *msg, size_t msglen);
void ga_doc_clear(ga_doc *doc);

/* Mapping lookup (NULL if absent or node is not a mapping). */
const ga_node *ga_node_get(const ga_node *map, const char *key);
/* Parse a scalar as a finite double (whole text must be a number). 0 on success. */
int ga_node_double(double *v, const ga_node *n);

#endif

/*
 * doc.h - a YAML (and JSON) document as a tree with source positions, read with libyaml.
 * Scalars keep their exact text (numbers stay decimal strings for the certified path).
 */
#ifndef GA_SPECS_DOC_H
#define GA_SPECS_DOC_H

#include "numerics/numerics.h"

#include <stddef.h>

/* GA_NODE_NUMS is a list of numbers read in one pass (a flow list [a, b, ...] of at least
 * GA_DOC_NUMS_MIN plain decimals): no kids, its values in nums->v and exact decimals in
 * nums->dec. Test for a list with ga_node_is_list; read an item's text with
 * ga_node_item_text. */
enum ga_node_kind { GA_NODE_SCALAR, GA_NODE_SEQ, GA_NODE_MAP, GA_NODE_NUMS };

typedef struct {
    double *v;         /* n values (the one number reader's doubles) */
    ga_dec *dec;       /* n exact decimals in compact form */
    size_t nlong;      /* the decimals that need their text (dec[i].e == GA_DEC_LONG) */
    size_t *long_at;   /* their indices, ascending */
    char **long_txt;
} ga_nums;

typedef struct ga_node ga_node;
struct ga_node {
    int kind;          /* enum ga_node_kind */
    int line, col;     /* 1-based position of the node's start in the source */
    char *text;        /* scalar text (NULL otherwise) */
    int quoted;        /* scalar was quoted (then it is a string, never a number) */
    size_t n;          /* number of children (SEQ: items, MAP: key/value pairs; NUMS: numbers) */
    ga_node **kids;    /* SEQ: items; MAP: keys at 2i, values at 2i+1 */
    ga_nums *nums;     /* NUMS only */
};

typedef struct ga_doc_arena ga_doc_arena; /* the tree's memory (doc.c) */
typedef struct {
    ga_node *root;
    char *name;        /* source name for messages */
    ga_doc_arena *arena;
    size_t pass_read;  /* the flow lists and collections the one-pass reading gave the tree */
    int reread;        /* the file was read a second time (the pass could not decide) */
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
/* Lists of at least this many numbers become NUMS nodes (the default; tests set 1 to read
 * every flow list of numbers in one pass, or SIZE_MAX for none, and compare the trees);
 * shorter ones are read by the pass too, as the lists of scalars libyaml makes. The setting
 * is per process. */
#define GA_DOC_NUMS_MIN 16
void ga_doc_set_nums_min(size_t n);
/* Parse the file open in f (specs/readfile.h) and write the SHA-256 of the bytes parsed into
 * digest. A regular file is parsed as it is read, without holding its text (see doc.c), and
 * read a second time only when the one-pass reading of number lists cannot decide; a pipe is
 * read whole. With jobs > 1, a file of several pieces is read on one thread while it is
 * parsed on another (the same tree). Returns 0, or a GA_ status with the message: the file's (GA_EIO, a cap) or the
 * document's (GA_EINVAL, as ga_doc_parse). */
typedef struct ga_file ga_file;
int ga_doc_read(ga_doc *doc, ga_file *f, const char *name, int jobs, char digest[65],
                char *msg, size_t msglen);
/* Read a file (a regular file of at most 1 GiB) and parse it. */
int ga_doc_load(ga_doc *doc, const char *path, char *msg, size_t msglen);
void ga_doc_clear(ga_doc *doc);

/* Mapping lookup (NULL if absent or node is not a mapping). */
const ga_node *ga_node_get(const ga_node *map, const char *key);
/* Parse a scalar as a finite double (whole text must be a number). 0 on success. */
int ga_node_double(double *v, const ga_node *n);

/* Is n a list (SEQ or NUMS)? */
static inline int ga_node_is_list(const ga_node *n)
{
    return n && (n->kind == GA_NODE_SEQ || n->kind == GA_NODE_NUMS);
}
/* The exact decimal text of item i of a list: a SEQ's scalar text (not checked to be a
 * number), or a NUMS item's decimal written into buf (GA_DEC_TEXT_MAX bytes). NULL for an
 * item that is not a scalar. */
const char *ga_node_item_text(const ga_node *list, size_t i, char *buf);

#endif

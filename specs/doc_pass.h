/*
 * doc_pass.h - what the document reader (doc.c) shares with its one-pass reading of numbers
 * and small flow collections (doc_pass.c): the arena both allocate from, the regions the pass
 * finds and its state. Names shared between the two files carry the dp_ prefix.
 */
#ifndef GA_SPECS_DOC_PASS_H
#define GA_SPECS_DOC_PASS_H

#include "specs/doc.h"

#include <stddef.h>

#define DP_MARK "\xEE\x80\x80" /* U+E000 */

/* A flow collection read whole by the pass (doc_pass.c, read_flow): mappings with word keys
 * and lists whose items are such collections or lists of numbers; short (DP_FLOW_MAX_BYTES)
 * and shallow, so that the window of a file read in pieces stays small and a failed try costs
 * little. */
#define DP_FLOW_MAX_BYTES 4096
#define DP_FLOW_MAX_DEPTH 4
#define DP_FLOW_KEY_MAX 31

typedef struct {
    size_t start, end; /* '[' and ']' (bytes; '{' and '}' for a mapping) */
    int sl, sc;        /* the ']' in the copy (0-based line, column) */
    int ol, oc;        /* the ']' in the original */
    ga_nums *nums;     /* a list of numbers, or */
    size_t n;
    ga_node *tree;     /* a collection or a list shorter than nums_min (read as the list of
                          plain scalars libyaml makes): its nodes, in the arena, cdepth levels
                          of collections */
    int cdepth;
} dp_region;

typedef struct {
    dp_region *r;
    size_t n, cap, next; /* next: the first list not yet taken by the tree */
    size_t seen;         /* the lists ended before the last mark mapped (dp_map_mark) */
    size_t numbers;      /* the nodes the lists and collections stand for, but their roots */
    ga_doc_arena *arena; /* the lists' numbers (and the tree's nodes, when it is built) */
} dp_regions;

/* a growing list being read: values, decimals, long texts; where the first GA_DOC_NUMS_MIN
 * numbers are (offsets in the text, the line breaks before each in the list, the start of
 * its line) and how long */
typedef struct {
    double *v;
    ga_dec *dec;
    size_t n, cap;
    size_t nlong, caplong;
    size_t *long_at;
    char **long_txt;
    size_t tok_at[GA_DOC_NUMS_MIN], tok_len[GA_DOC_NUMS_MIN], tok_ls[GA_DOC_NUMS_MIN];
    int tok_line[GA_DOC_NUMS_MIN];
} dp_scratch;

/* The pass over a text given whole or in pieces. Offsets are from the text's first byte. */
typedef struct {
    dp_regions g;
    dp_scratch w;
    size_t base;          /* the offset of the piece being scanned */
    int line, col, dl, dc;
    char *copy;           /* the copy, up to offset emitted, when it is built as the text */
    size_t clen, ccap;    /* arrives (a file read in pieces) */
    size_t emitted, k;    /* k: the first list not yet in the copy */
    int oom;
    char prev;            /* the byte before the piece (0 at the text's start) */
    ga_node **kids;       /* the kids of the open collections of the one being read */
    size_t kcap;
} dp_scan;

/* ------------------------------------------------------------ the arena (doc.c) */

/* an empty arena (NULL: out of memory) */
ga_doc_arena *dp_arena_new(void);
/* bytes from the arena, aligned for any type (NULL: out of memory) */
void *dp_arena_alloc(ga_doc_arena *a, size_t bytes);
/* the arena, its lists' long texts with it (NULL: nothing) */
void dp_arena_free(ga_doc_arena *a);
/* the long texts of u (a list in the arena) are the arena's to free: 0, or -1 out of memory
 * (they are then the caller's) */
int dp_arena_own(ga_doc_arena *a, ga_nums *u);

/* ------------------------------------------------------------ the pass (doc_pass.c) */

/* Scan the piece t[0, len) at offset s->base for lists and collections (eof: nothing follows
 * it). Returns the bytes scanned: fewer than len when a list, a collection or a comment began
 * and has not ended; the rest must come again, with what follows, at s->base advanced by the
 * return value. */
size_t dp_scan_piece(dp_scan *s, const char *t, size_t len, int eof);
/* Append to the copy the text from s->emitted up to offset upto, t holding the text from
 * offset tbase on: each list and collection as [M]. 0, or -1 out of memory. */
int dp_emit(dp_scan *s, const char *t, size_t tbase, size_t upto);
void dp_scan_clear(dp_scan *s);
/* Bytes that turn the pass off: a NUL, line breaks libyaml counts differently, a byte-order
 * mark, the mark itself. 1 if t has one. */
int dp_unsafe(const char *t, size_t len);
/* a position in the copy as 1-based line and column in the original */
void dp_map_mark(dp_regions *g, size_t line, size_t col, int *ol, int *oc);

#endif

/*
 * doc.c - YAML/JSON text to a ga_node tree with positions, using libyaml's event parser.
 * The tree is built with an explicit stack (no recursion on input depth); freeing is
 * iterative too, so hostile nesting cannot overflow the C stack.
 */
#include "specs/doc.h"
#include "numerics/numerics.h"
#include "specs/readfile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ------------------------------------------------------------ numbers in one pass
 *
 * libyaml makes a token, an event and a string for every number, about 400 ns and 100 bytes
 * apiece; a spec of dimension 2000 has eight million numbers. So before libyaml runs, one
 * pass finds the flow lists that hold only plain decimals ([0.5, -1e-3, ...], commas, spaces
 * and line breaks) and reads them with the one number reader (a double and a 4-byte exact
 * decimal each: base/decimal.c). libyaml then reads a copy of the text in which each
 * such list is replaced by [M], M a private-use character (U+E000) that the text does not
 * contain, and the tree takes the numbers where the event stream shows that one-item list.
 *
 * The pass cannot see whether a '[' is inside a quoted string, a comment or a block scalar;
 * the event stream decides. The text before a list is the same in both texts (every list
 * replaced before it was a flow list in both), so when libyaml reports a flow sequence whose
 * only item is the plain scalar M, the '[' began a flow sequence in the original too, and
 * its items were the plain decimals read. Every list must be found that way, in order, and
 * none may be a mapping key; otherwise (or on any error) the original text is parsed as
 * before and the lists are dropped, so the fast reading never changes a result. Positions
 * in the copy are mapped back to the original's (lines and columns in characters, as
 * libyaml counts them); texts with line breaks libyaml counts differently (CR, NEL, LS, PS)
 * or a byte-order mark are parsed without the pass. */

static size_t nums_min = GA_DOC_NUMS_MIN;

void ga_doc_set_nums_min(size_t n)
{
    nums_min = n ? n : 1;
}

#define MARK "\xEE\x80\x80" /* U+E000 */

typedef struct {
    size_t start, end; /* '[' and ']' (bytes) */
    int sl, sc;        /* the ']' in the copy (0-based line, column) */
    int ol, oc;        /* the ']' in the original */
    ga_nums *nums;
    size_t n;
} region;

typedef struct {
    region *r;
    size_t n, cap, next; /* next: the first list not yet taken by the tree */
    size_t numbers;
} regions;

static void nums_free(ga_nums *u)
{
    if (!u)
        return;
    free(u->v);
    free(u->dec);
    for (size_t i = 0; i < u->nlong; i++)
        free(u->long_txt[i]);
    free(u->long_at);
    free(u->long_txt);
    free(u);
}

static void regions_clear(regions *g)
{
    for (size_t i = 0; i < g->n; i++)
        nums_free(g->r[i].nums);
    free(g->r);
    memset(g, 0, sizeof *g);
}

/* a growing list being read: values, decimals, long texts */
typedef struct {
    double *v;
    ga_dec *dec;
    size_t n, cap;
    size_t nlong, caplong;
    size_t *long_at;
    char **long_txt;
} scratch;

static void scratch_reset(scratch *w)
{
    for (size_t i = 0; i < w->nlong; i++)
        free(w->long_txt[i]);
    w->n = w->nlong = 0;
}

static void scratch_clear(scratch *w)
{
    scratch_reset(w);
    free(w->v);
    free(w->dec);
    free(w->long_at);
    free(w->long_txt);
    memset(w, 0, sizeof *w);
}

/* append one number: 0, or -1 out of memory */
static int scratch_add(scratch *w, double v, ga_dec dec, const char *s, size_t len)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        double *nv = realloc(w->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        w->v = nv;
        ga_dec *nd = realloc(w->dec, cap * sizeof *nd);
        if (!nd)
            return -1;
        w->dec = nd;
        w->cap = cap;
    }
    if (dec.e == GA_DEC_LONG) {
        if (w->nlong == w->caplong) {
            size_t cap = w->caplong ? 2 * w->caplong : 8;
            size_t *na = realloc(w->long_at, cap * sizeof *na);
            if (!na)
                return -1;
            w->long_at = na;
            char **nt = realloc(w->long_txt, cap * sizeof *nt);
            if (!nt)
                return -1;
            w->long_txt = nt;
            w->caplong = cap;
        }
        char *t = malloc(len + 1);
        if (!t)
            return -1;
        memcpy(t, s, len);
        t[len] = 0;
        w->long_at[w->nlong] = w->n;
        w->long_txt[w->nlong++] = t;
    }
    w->v[w->n] = v;
    w->dec[w->n++] = dec;
    return 0;
}

/* the scratch's numbers as a ga_nums of their own (the scratch is left empty) */
static ga_nums *scratch_take(scratch *w)
{
    ga_nums *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->v = malloc(w->n * sizeof *u->v);
    u->dec = malloc(w->n * sizeof *u->dec);
    if (w->nlong) {
        u->long_at = malloc(w->nlong * sizeof *u->long_at);
        u->long_txt = malloc(w->nlong * sizeof *u->long_txt);
    }
    if (!u->v || !u->dec || (w->nlong && (!u->long_at || !u->long_txt))) {
        nums_free(u);
        return NULL;
    }
    memcpy(u->v, w->v, w->n * sizeof *u->v);
    memcpy(u->dec, w->dec, w->n * sizeof *u->dec);
    if (w->nlong) {
        memcpy(u->long_at, w->long_at, w->nlong * sizeof *u->long_at);
        memcpy(u->long_txt, w->long_txt, w->nlong * sizeof *u->long_txt);
    }
    u->nlong = w->nlong;
    w->n = w->nlong = 0; /* (the texts now belong to u) */
    return u;
}

static int is_space(char c)
{
    return c == ' ' || c == '\n';
}

/* the index of the first non-space at or after p, counting line breaks into *lines and
 * the start of the last line into *linestart */
static size_t skip_space(const char *t, size_t len, size_t p, int *lines, size_t *linestart)
{
    for (; p < len && is_space(t[p]); p++)
        if (t[p] == '\n') {
            (*lines)++;
            *linestart = p + 1;
        }
    return p;
}

/* read_list's answer when the text ends inside the list: more text may complete it */
#define RAN_OUT SIZE_MAX

/* Read the flow list of plain decimals that starts with the '[' at t[i], if it is one:
 * returns the index of its ']' with the numbers in w, RAN_OUT when t ends first, or 0 (not
 * such a list, or out of memory: libyaml reads it); *nl and *lastcol: its line breaks and the
 * column of the ']' after the last one (ASCII only inside, so bytes are columns). */
static size_t read_list(scratch *w, const char *t, size_t len, size_t i, int *nl, int *lastcol)
{
    size_t p = i + 1;
    int lines = 0;
    size_t linestart = 0;
    scratch_reset(w);
    for (;;) {
        p = skip_space(t, len, p, &lines, &linestart);
        if (p == len)
            return RAN_OUT;
        if (t[p] == ']') {
            if (w->n == 0)
                return 0; /* [] and [1, ,]: libyaml's */
            break;
        }
        /* a plain decimal has only these characters: the token ends at the first other
         * one, which must then be a separator (so a run of '[' or any other text is left
         * to libyaml at once, and the pass stays linear in the text) */
        size_t q = p;
        while (q < len && ((t[q] >= '0' && t[q] <= '9') || t[q] == '.' || t[q] == '-' ||
                           t[q] == '+' || t[q] == 'e' || t[q] == 'E'))
            q++;
        if (q == len)
            return RAN_OUT; /* the number may go on */
        if (q == p || !(is_space(t[q]) || t[q] == ',' || t[q] == ']'))
            return 0;
        double v;
        ga_dec dec;
        if (w->n >= GA_DOC_MAX_NODES || ga_decimal_scan(&v, &dec, t + p, q - p) ||
            scratch_add(w, v, dec, t + p, q - p))
            return 0;
        p = skip_space(t, len, q, &lines, &linestart);
        if (p == len)
            return RAN_OUT;
        if (t[p] == ',') {
            p++;
            continue;
        }
        if (t[p] == ']')
            break;
        return 0;
    }
    *nl = lines;
    *lastcol = lines ? (int)(p - linestart) : 0;
    return p;
}

static int contains(const char *t, size_t len, const char *what)
{
    size_t w = strlen(what);
    for (const char *p = t; (p = memchr(p, what[0], len - (size_t)(p - t))) != NULL; p++)
        if ((size_t)(t + len - p) >= w && !memcmp(p, what, w))
            return 1;
    return 0;
}

/* Bytes that turn the pass off (see the top of this part): a NUL, line breaks libyaml counts
 * differently, a byte-order mark, the mark itself. 1 if t has one. */
static int unsafe(const char *t, size_t len)
{
    static const char *const seqs[] = {"\r", "\xC2\x85", "\xE2\x80\xA8", "\xE2\x80\xA9",
                                       "\xEF\xBB\xBF", MARK};
    if (memchr(t, 0, len))
        return 1;
    for (size_t k = 0; k < sizeof seqs / sizeof *seqs; k++)
        if (contains(t, len, seqs[k]))
            return 1;
    return 0;
}

/* The pass over a text given whole or in pieces. Offsets are from the text's first byte. */
typedef struct {
    regions g;
    scratch w;
    size_t base;          /* the offset of the piece being scanned */
    int line, col, dl, dc;
    char *copy;           /* the copy, up to offset emitted, when it is built as the text */
    size_t clen, ccap;    /* arrives (a file read in pieces) */
    size_t emitted, k;    /* k: the first list not yet in the copy */
    int oom;
} scan;

static void scan_clear(scan *s)
{
    regions_clear(&s->g);
    scratch_clear(&s->w);
    free(s->copy);
    memset(s, 0, sizeof *s);
}

/* Scan the piece t[0, len) at offset s->base for lists (eof: nothing follows it). Returns
 * the bytes scanned: fewer than len when a list began and has not ended; the rest must come
 * again, with what follows, at s->base advanced by the return value. */
static size_t scan_piece(scan *s, const char *t, size_t len, int eof)
{
    regions *g = &s->g;
    for (size_t i = 0; i < len; i++) {
        char ch = t[i];
        if (ch == '[') {
            int nl = 0, lastcol = 0; /* (set by read_list when it ends a list) */
            size_t e = read_list(&s->w, t, len, i, &nl, &lastcol);
            if (e == RAN_OUT && !eof)
                return i;
            if (e != RAN_OUT && e && s->w.n >= nums_min) {
                if (g->n == g->cap) {
                    region *nr = ga_grow(g->r, &g->cap, sizeof *nr, 64);
                    if (!nr) {
                        s->oom = 1;
                        return len;
                    }
                    g->r = nr;
                }
                region *r = &g->r[g->n];
                r->start = s->base + i;
                r->end = s->base + e;
                r->n = s->w.n;
                r->sl = s->line - s->dl;
                r->sc = s->col - s->dc + 2; /* after '[' and the mark */
                r->ol = s->line + nl;
                r->oc = nl ? lastcol : s->col + (int)(e - i);
                if (!(r->nums = scratch_take(&s->w))) {
                    s->oom = 1;
                    return len;
                }
                g->n++;
                g->numbers += r->n;
                s->dl += nl;
                s->line = r->ol;
                s->dc = r->oc - r->sc;
                s->col = r->oc + 1;
                i = e;
                continue;
            }
        }
        if (ch == '\n') {
            s->line++;
            s->col = 0;
            s->dc = 0;
        } else if (((unsigned char)ch & 0xC0) != 0x80) {
            s->col++;
        }
    }
    return len;
}

/* Append to the copy the text from s->emitted up to offset upto, t holding the text from
 * offset tbase on: each list as [M]. 0, or -1 out of memory. */
static int emit(scan *s, const char *t, size_t tbase, size_t upto)
{
    const size_t ml = 2 + strlen(MARK);
    size_t need = upto - s->emitted, k;
    for (k = s->k; k < s->g.n && s->g.r[k].end < upto; k++)
        need -= s->g.r[k].end - s->g.r[k].start + 1 - ml;
    if (s->clen + need + 1 > s->ccap) {
        size_t cap = s->ccap ? s->ccap : 65536;
        while (cap < s->clen + need + 1)
            cap *= 2;
        char *c = realloc(s->copy, cap);
        if (!c)
            return -1;
        s->copy = c;
        s->ccap = cap;
    }
    char *p = s->copy + s->clen;
    for (; s->k < k; s->k++) {
        const region *r = &s->g.r[s->k];
        memcpy(p, t + (s->emitted - tbase), r->start - s->emitted);
        p += r->start - s->emitted;
        memcpy(p, "[" MARK "]", ml);
        p += ml;
        s->emitted = r->end + 1;
    }
    memcpy(p, t + (s->emitted - tbase), upto - s->emitted);
    p += upto - s->emitted;
    *p = 0;
    s->emitted = upto;
    s->clen = (size_t)(p - s->copy);
    return 0;
}

/* a position in the copy as 1-based line and column in the original */
static void map_mark(const regions *g, size_t line, size_t col, int *ol, int *oc)
{
    size_t lo = 0, hi = g ? g->n : 0; /* the first list ending after the mark */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const region *r = &g->r[mid];
        if ((size_t)r->sl < line || ((size_t)r->sl == line && (size_t)r->sc <= col))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) {
        *ol = (int)line + 1;
        *oc = (int)col + 1;
        return;
    }
    const region *r = &g->r[lo - 1];
    if ((size_t)r->sl == line) {
        *ol = r->ol + 1;
        *oc = r->oc + (int)(col - (size_t)r->sc) + 1;
    } else {
        *ol = (int)line - r->sl + r->ol + 1;
        *oc = (int)col + 1;
    }
}

/* ------------------------------------------------------------ the tree */

/* The tree's memory: its nodes, texts and lists of kids are carved from the blocks of one
 * arena and freed with it (a spec of 10^5 pairs has millions of nodes: a malloc and a free
 * each cost more than reading them, and freeing node by node was a tenth of such an audit);
 * the number lists read in one pass (ga_nums) keep their own arrays and are listed in it. A
 * list of kids grows by doubling into a new piece; the old ones stay in the block, together
 * less than the final list. */
#define ARENA_BLOCK ((size_t)1 << 20)

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    max_align_t data[];
} arena_block;

struct ga_doc_arena {
    arena_block *head;
    ga_nums **nums;
    size_t nnums, capnums;
};

/* bytes from the arena, aligned for any type (NULL: out of memory) */
static void *arena_alloc(ga_doc_arena *a, size_t bytes)
{
    const size_t al = sizeof(max_align_t);
    if (bytes > SIZE_MAX / 2)
        return NULL;
    bytes = (bytes + al - 1) / al * al;
    arena_block *b = a->head;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = bytes > ARENA_BLOCK ? bytes : ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->used = 0;
        b->cap = cap;
        if (a->head && bytes > ARENA_BLOCK) { /* (a large piece: the current block stays on) */
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = (char *)b->data + b->used;
    b->used += bytes;
    return p;
}

static void arena_free(ga_doc_arena *a)
{
    if (!a)
        return;
    for (arena_block *b = a->head, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    for (size_t i = 0; i < a->nnums; i++)
        nums_free(a->nums[i]);
    free(a->nums);
    free(a);
}

/* u now belongs to the arena: 0, or -1 out of memory (u is then the caller's) */
static int arena_own(ga_doc_arena *a, ga_nums *u)
{
    if (a->nnums == a->capnums) {
        ga_nums **nn = ga_grow(a->nums, &a->capnums, sizeof *nn, 64);
        if (!nn)
            return -1;
        a->nums = nn;
    }
    a->nums[a->nnums++] = u;
    return 0;
}

static ga_node *node_new(ga_doc_arena *a, int kind, const yaml_mark_t *m, const regions *g)
{
    ga_node *n = arena_alloc(a, sizeof *n);
    if (n) {
        memset(n, 0, sizeof *n);
        n->kind = kind;
        map_mark(g, m->line, m->column, &n->line, &n->col);
    }
    return n;
}

static int node_push(ga_doc_arena *a, ga_node *parent, ga_node *kid)
{
    /* capacity 4, 8, 16, ...: full exactly when n is 0 or a power of two >= 4 */
    size_t n = parent->n;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        size_t cap = n ? 2 * n : 4;
        ga_node **k = cap <= SIZE_MAX / sizeof *k ? arena_alloc(a, cap * sizeof *k) : NULL;
        if (!k)
            return -1;
        if (n)
            memcpy(k, parent->kids, n * sizeof *k);
        parent->kids = k;
    }
    parent->kids[parent->n++] = kid;
    return 0;
}

void ga_doc_clear(ga_doc *doc)
{
    arena_free(doc->arena);
    free(doc->name);
    doc->root = NULL;
    doc->arena = NULL;
    doc->name = NULL;
}

/* The plain scalar M, the only item of the flow list on top of the stack, stands for the
 * next list read in one pass: turn that list into a NUMS node. 0, or -1 when it does not
 * fit (then the original text is parsed). */
static int take_list(ga_doc_arena *a, ga_node **stack, int depth, const int *flow, regions *g)
{
    if (!g || depth < 1 || g->next >= g->n)
        return -1;
    ga_node *l = stack[depth - 1];
    if (l->kind != GA_NODE_SEQ || l->n != 0 || !flow[depth - 1])
        return -1;
    if (depth >= 2 && stack[depth - 2]->kind == GA_NODE_MAP && (stack[depth - 2]->n & 1))
        return -1; /* a mapping key: libyaml limits their length, so it decides */
    region *r = &g->r[g->next++];
    if (arena_own(a, r->nums))
        return -1;
    l->kind = GA_NODE_NUMS;
    l->nums = r->nums;
    l->n = r->n;
    r->nums = NULL;
    return 0;
}

/* Is the line of text[at] indented with a tab, or is text[at] a tab? (YAML indents with
 * spaces only; libyaml's words for a tab do not mention it) */
static int tab_at(const char *text, size_t len, size_t at)
{
    if (at > len)
        at = len;
    size_t b = at;
    while (b > 0 && text[b - 1] != '\n')
        b--;
    for (size_t i = b; i < len && (text[i] == ' ' || text[i] == '\t'); i++)
        if (text[i] == '\t')
            return 1;
    return at < len && text[at] == '\t';
}

/* Parse text (the copy when g != NULL) into doc->root. 0, or -1 with a message (or, with g,
 * without one when the lists read in one pass do not fit the event stream). One loop over
 * libyaml's events whose state is the stack of open nodes and the caps, kept whole. */
static int parse_events(ga_doc *doc, const char *text, size_t len, regions *g, char *msg,
                        size_t msglen)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    ga_node *stack[GA_DOC_MAX_DEPTH + 1];
    int flow[GA_DOC_MAX_DEPTH + 1];
    int depth = 0, rc = -1, done = 0, ndocs = 0, closing = -1, ol, oc;
    size_t nodes = g ? g->numbers : 0;
    ga_node *root = NULL;
    ga_doc_arena *a = calloc(1, sizeof *a);
    if (!a) {
        ga_msg(msg, msglen, "%s: out of memory", doc->name);
        return -1;
    }
    if (!yaml_parser_initialize(&parser)) {
        ga_msg(msg, msglen, "%s: cannot initialise the YAML parser", doc->name);
        free(a);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            map_mark(g, parser.problem_mark.line, parser.problem_mark.column, &ol, &oc);
            ga_msg(msg, msglen, "%s:%d:%d: YAML syntax error: %s%s%s%s", doc->name, ol, oc,
                   parser.problem ? parser.problem : "unknown problem",
                   parser.context ? " " : "", parser.context ? parser.context : "",
                   tab_at(text, len, parser.problem_mark.index)
                       ? " (a tab character indents this line: YAML indents with spaces only)" : "");
            goto cleanup;
        }
        const yaml_mark_t *m = &ev.start_mark;
        map_mark(g, m->line, m->column, &ol, &oc);
        ga_node *n = NULL;
        if (closing >= 0 && ev.type != YAML_SEQUENCE_END_EVENT) {
            /* a second item beside M */
            yaml_event_delete(&ev);
            goto cleanup;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++ndocs > 1) {
                ga_msg(msg, msglen, "%s:%d:%d: more than one YAML document in the file",
                       doc->name, ol, oc);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            break;
        case YAML_ALIAS_EVENT:
            ga_msg(msg, msglen, "%s:%d:%d: YAML aliases (*name) are not allowed in specs",
                   doc->name, ol, oc);
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
                ga_msg(msg, msglen, "%s:%d:%d: YAML anchors (&name) are not allowed in specs",
                       doc->name, ol, oc);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            if (g && ev.type == YAML_SCALAR_EVENT && ev.data.scalar.length == strlen(MARK) &&
                !memcmp(ev.data.scalar.value, MARK, strlen(MARK))) {
                if (ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
                    take_list(a, stack, depth, flow, g)) {
                    yaml_event_delete(&ev);
                    goto cleanup;
                }
                closing = depth;
                break;
            }
            if (++nodes > GA_DOC_MAX_NODES) {
                ga_msg(msg, msglen, "%s:%d:%d: document has more than %d nodes", doc->name, ol,
                       oc, GA_DOC_MAX_NODES);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            int kind = ev.type == YAML_SCALAR_EVENT ? GA_NODE_SCALAR
                       : ev.type == YAML_SEQUENCE_START_EVENT ? GA_NODE_SEQ
                                                               : GA_NODE_MAP;
            n = node_new(a, kind, m, g);
            if (!n) {
                ga_msg(msg, msglen, "%s: out of memory", doc->name);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            if (kind == GA_NODE_SCALAR) {
                n->text = arena_alloc(a, ev.data.scalar.length + 1);
                if (!n->text) {
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
                    ga_msg(msg, msglen, "%s: unexpected second root node", doc->name);
                    yaml_event_delete(&ev);
                    goto cleanup;
                }
                root = n;
            } else if (node_push(a, stack[depth - 1], n)) {
                ga_msg(msg, msglen, "%s: out of memory", doc->name);
                yaml_event_delete(&ev);
                goto cleanup;
            }
            if (kind != GA_NODE_SCALAR) {
                if (depth >= GA_DOC_MAX_DEPTH) {
                    ga_msg(msg, msglen, "%s:%d:%d: nesting deeper than %d levels", doc->name,
                           ol, oc, GA_DOC_MAX_DEPTH);
                    yaml_event_delete(&ev);
                    goto cleanup;
                }
                flow[depth] = ev.type == YAML_SEQUENCE_START_EVENT &&
                              ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
                stack[depth++] = n;
            }
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            closing = -1;
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
    if (g && g->next != g->n) {
        /* a list that libyaml did not see as one (in a string, a comment) */
        goto cleanup;
    }
    doc->root = root;
    doc->arena = a;
    a = NULL;
    rc = 0;
cleanup:
    arena_free(a); /* (a failed parse: every node it made) */
    yaml_parser_delete(&parser);
    return rc;
}

/* the document's name, set before anything is parsed: 0, or -1 with a message */
static int set_name(ga_doc *doc, const char *name, char *msg, size_t msglen)
{
    doc->root = NULL;
    doc->arena = NULL;
    doc->name = strdup(name ? name : "<input>");
    if (!doc->name)
        ga_msg(msg, msglen, "%s: out of memory", name);
    return doc->name ? 0 : -1;
}

/* the copy of a pass that found lists, parsed: 0, or -1 (then the original text decides) */
static int parse_copy(ga_doc *doc, scan *s, char *msg, size_t msglen)
{
    return s->oom || !s->g.n || !s->copy ? -1
                                         : parse_events(doc, s->copy, s->clen, &s->g, msg, msglen);
}

/* a whole text into doc (its name set): 0, or -1 with a message */
static int parse_text(ga_doc *doc, const char *text, size_t len, char *msg, size_t msglen)
{
    scan s = {0};
    int rc = -1;
    if (len <= INT_MAX && !unsafe(text, len)) {
        scan_piece(&s, text, len, 1);
        if (!s.oom && s.g.n && emit(&s, text, 0, len) == 0 && parse_copy(doc, &s, msg, msglen) == 0)
            rc = 0;
        /* any error: the original text decides, and its message is the one shown */
    }
    scan_clear(&s);
    return rc ? parse_events(doc, text, len, NULL, msg, msglen) : 0;
}

int ga_doc_parse(ga_doc *doc, const char *text, size_t len, const char *name, char *msg,
                 size_t msglen)
{
    if (set_name(doc, name, msg, msglen))
        return -1;
    int rc = parse_text(doc, text, len, msg, msglen);
    if (rc) {
        free(doc->name);
        doc->name = NULL;
    }
    return rc;
}

/* A file read in pieces (a regular file): the pass runs on each piece as it arrives and
 * only the copy is kept, so the text of a spec of large matrices never sits in memory whole
 * (the copy is small: the lists are most of the text). When the pass is off or the copy does
 * not parse, the file is read again from its first byte and parsed as in ga_doc_parse; the
 * digest then describes that second reading, the bytes parsed. */

static int read_pieces(ga_doc *doc, ga_file *f, ga_sha256 *h, int *parsed, char *msg,
                       size_t msglen)
{
    scan s = {0};
    char *win = NULL, tail[2];
    size_t wn = 0, wcap = 0, total = 0, ntail = 0;
    int rc = 0, off = 0;
    const size_t piece = ga_file_piece();
    *parsed = 0;
    for (;;) {
        size_t want = wn > piece ? wn : piece; /* an open list: at least double the window */
        if (wn + want > wcap) {
            char *nw = realloc(win, wn + want);
            if (!nw) {
                off = 1;
                break;
            }
            win = nw;
            wcap = wn + want;
        }
        size_t got;
        if ((rc = ga_file_read(f, win + wn, want, &got, msg, msglen)))
            goto cleanup;
        ga_sha256_update(h, win + wn, got);
        /* the unsafe bytes, also across the boundary with what came before */
        char probe[4];
        size_t np = 0;
        for (size_t i = 0; i < ntail; i++)
            probe[np++] = tail[i];
        for (size_t i = 0; i < got && i < 2; i++)
            probe[np++] = win[wn + i];
        if (unsafe(win + wn, got) || unsafe(probe, np) || (total += got) > INT_MAX) {
            off = 1;
            break;
        }
        for (size_t i = got >= 2 ? got - 2 : 0; i < got; i++) {
            if (ntail == 2) {
                tail[0] = tail[1];
                ntail = 1;
            }
            tail[ntail++] = win[wn + i];
        }
        wn += got;
        size_t used = scan_piece(&s, win, wn, got == 0);
        if (s.oom || emit(&s, win, s.base, s.base + used)) {
            off = 1;
            break;
        }
        memmove(win, win + used, wn - used);
        wn -= used;
        s.base += used;
        if (got == 0)
            break;
        if (wcap > 4 * (wn + piece)) { /* a long list has ended: give its window back */
            char *nw = realloc(win, wn + piece);
            if (nw) {
                win = nw;
                wcap = wn + piece;
            }
        }
    }
    free(win);
    win = NULL;
    if (!off) {
        /* no lists: the copy is the text, and its errors are the original's */
        if (!s.g.n) {
            *parsed = 1;
            rc = parse_events(doc, s.copy ? s.copy : "", s.clen, NULL, msg, msglen) ? GA_EINVAL
                                                                                     : GA_OK;
        } else if (parse_copy(doc, &s, msg, msglen) == 0) {
            *parsed = 1;
        }
    }
cleanup:
    free(win);
    scan_clear(&s);
    return rc;
}

int ga_doc_read(ga_doc *doc, ga_file *f, const char *name, char digest[65], char *msg,
                size_t msglen)
{
    ga_sha256 h;
    char *text = NULL;
    size_t len;
    int parsed = 0, rc;
    if (set_name(doc, name, msg, msglen))
        return GA_ENOMEM;
    ga_sha256_init(&h);
    if (f->regular && (rc = read_pieces(doc, f, &h, &parsed, msg, msglen)))
        goto cleanup;
    if (!parsed) {
        /* a pipe, or the pass could not decide: the whole text */
        if ((f->regular && (rc = ga_file_rewind(f, msg, msglen))) ||
            (rc = ga_file_slurp(&text, &len, f, msg, msglen)))
            goto cleanup;
        ga_sha256_init(&h);
        ga_sha256_update(&h, text, len);
        if (parse_text(doc, text, len, msg, msglen)) {
            rc = GA_EINVAL;
            goto cleanup;
        }
    }
    ga_sha256_final(&h, digest);
    rc = GA_OK;
cleanup:
    free(text);
    if (rc)
        ga_doc_clear(doc);
    return rc;
}

int ga_doc_load(ga_doc *doc, const char *path, char *msg, size_t msglen)
{
    ga_read_policy pol = {.max_bytes = (size_t)1 << 30, .what = "file"};
    ga_file f;
    char digest[65];
    doc->root = NULL;
    doc->arena = NULL;
    doc->name = NULL;
    int rc = ga_file_open(&f, path, &pol, msg, msglen);
    if (rc == GA_OK)
        rc = ga_doc_read(doc, &f, path, digest, msg, msglen);
    ga_file_close(&f);
    return rc ? -1 : 0;
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
    return ga_decimal_to_double(v, n->text) == GA_OK ? 0 : -1; /* (the one reader) */
}

const char *ga_node_item_text(const ga_node *list, size_t i, char *buf)
{
    if (list->kind == GA_NODE_SEQ)
        return list->kids[i]->kind == GA_NODE_SCALAR ? list->kids[i]->text : NULL;
    if (list->kind != GA_NODE_NUMS)
        return NULL;
    const ga_nums *u = list->nums;
    if (u->dec[i].e != GA_DEC_LONG) {
        ga_decimal_text(buf, u->v[i], u->dec[i]);
        return buf;
    }
    size_t lo = 0, hi = u->nlong; /* the long texts by index */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u->long_at[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < u->nlong && u->long_at[lo] == i ? u->long_txt[lo] : NULL;
}

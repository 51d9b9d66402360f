/*
 * doc.c - YAML/JSON text to a ga_node tree with positions, using libyaml's event parser.
 * The tree is built with an explicit stack (no recursion on input depth); freeing is
 * iterative too, so hostile nesting cannot overflow the C stack.
 */
#include "specs/doc.h"
#include "numerics/numerics.h"
#include "specs/doc_pass.h"
#include "specs/readfile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ------------------------------------------------------------ the tree */

/* The tree's memory: its nodes, texts and lists of kids are carved from the blocks of one
 * arena and freed with it (a spec of 10^5 pairs has millions of nodes: a malloc and a free
 * each cost more than reading them, and freeing node by node was a tenth of such an audit);
 * the number lists read in one pass (ga_nums) too, those with long texts listed in it to
 * free them. A list of kids grows by doubling into a new piece; the old ones stay in the
 * block, together less than the final list. The pass allocates its lists before the tree
 * exists: the tree is then built in the pass's arena, and takes it over. */
#define ARENA_FIRST ((size_t)64 << 10)
#define ARENA_MAX ((size_t)16 << 20)

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    max_align_t data[];
} arena_block;

struct ga_doc_arena {
    arena_block *head;
    size_t block;      /* the next block's size: 64 KiB, doubling up to 16 MiB */
    ga_nums **nums;
    size_t nnums, capnums;
};

ga_doc_arena *dp_arena_new(void)
{
    return calloc(1, sizeof(ga_doc_arena));
}

/* Bytes from the arena, aligned for any type (NULL: out of memory). The blocks grow with the
 * document (a small spec takes 64 KiB) and are written in order, so each is faulted in at
 * once (ga_mem_populate: the tree of 10^5 pairs is 200 MB, and one fault per page was a
 * quarter of reading it; the last block's unused rest, under 16 MiB, is committed too). */
void *dp_arena_alloc(ga_doc_arena *a, size_t bytes)
{
    const size_t al = sizeof(max_align_t);
    if (bytes > SIZE_MAX / 2)
        return NULL;
    bytes = (bytes + al - 1) / al * al;
    arena_block *b = a->head;
    if (!b || b->cap - b->used < bytes) {
        size_t block = a->block ? a->block : ARENA_FIRST, cap = bytes > block ? bytes : block;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        ga_mem_populate(b->data, cap);
        b->used = 0;
        b->cap = cap;
        if (a->head && bytes > block) { /* (a large piece: the current block stays on) */
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
            a->block = block < ARENA_MAX ? 2 * block : block;
        }
    }
    void *p = (char *)b->data + b->used;
    b->used += bytes;
    return p;
}

void dp_arena_free(ga_doc_arena *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nnums; i++) { /* (the lists are in the blocks) */
        ga_nums *u = a->nums[i];
        for (size_t k = 0; k < u->nlong; k++)
            free(u->long_txt[k]);
        free(u->long_at);
        free(u->long_txt);
    }
    for (arena_block *b = a->head, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    free(a->nums);
    free(a);
}

/* the long texts of u (a list in the arena) are the arena's to free: 0, or -1 out of memory
 * (they are then the caller's) */
int dp_arena_own(ga_doc_arena *a, ga_nums *u)
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


static ga_node *node_new(ga_doc_arena *a, int kind, const yaml_mark_t *m, dp_regions *g)
{
    ga_node *n = dp_arena_alloc(a, sizeof *n);
    if (n) {
        memset(n, 0, sizeof *n);
        n->kind = kind;
        dp_map_mark(g, m->line, m->column, &n->line, &n->col);
    }
    return n;
}

static int node_push(ga_doc_arena *a, ga_node *parent, ga_node *kid)
{
    /* capacity 4, 8, 16, ...: full exactly when n is 0 or a power of two >= 4 */
    size_t n = parent->n;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        size_t cap = n ? 2 * n : 4;
        ga_node **k = cap <= SIZE_MAX / sizeof *k ? dp_arena_alloc(a, cap * sizeof *k) : NULL;
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
    dp_arena_free(doc->arena);
    free(doc->name);
    doc->root = NULL;
    doc->arena = NULL;
    doc->name = NULL;
}

/* The plain scalar M, the only item of the flow list on top of the stack, stands for the
 * next list or collection read in one pass: that list becomes a NUMS node, or takes the kind
 * and kids of the nodes the pass made (in the arena the tree is built in). 0, or -1 when it
 * does not fit (then the original text is parsed). */
static int take_list(ga_node **stack, int depth, const int *flow, dp_regions *g)
{
    if (!g || depth < 1 || g->next >= g->n)
        return -1;
    ga_node *l = stack[depth - 1];
    if (l->kind != GA_NODE_SEQ || l->n != 0 || !flow[depth - 1])
        return -1;
    if (depth >= 2 && stack[depth - 2]->kind == GA_NODE_MAP && (stack[depth - 2]->n & 1))
        return -1; /* a mapping key: libyaml limits their length, so it decides */
    dp_region *r = &g->r[g->next++];
    /* (l is at depth - 1, its collections below it to depth + cdepth - 2; too deep: libyaml's
     * reading says where) */
    if (r->tree) {
        if (depth + r->cdepth - 2 >= GA_DOC_MAX_DEPTH)
            return -1;
        l->kind = r->tree->kind;
        l->n = r->tree->n;
        l->kids = r->tree->kids;
        return 0;
    }
    l->kind = GA_NODE_NUMS;
    l->nums = r->nums;
    l->n = r->n;
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
static int parse_events(ga_doc *doc, const char *text, size_t len, dp_regions *g, char *msg,
                        size_t msglen)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    ga_node *stack[GA_DOC_MAX_DEPTH + 1];
    int flow[GA_DOC_MAX_DEPTH + 1];
    int depth = 0, rc = -1, done = 0, ndocs = 0, closing = -1, ol, oc;
    size_t nodes = g ? g->numbers : 0;
    ga_node *root = NULL;
    /* (with lists read in one pass, the tree joins their arena: it is the tree's if the
     * parse succeeds, and stays the pass's otherwise) */
    ga_doc_arena *a = g && g->arena ? g->arena : dp_arena_new();
    if (!a) {
        ga_msg(msg, msglen, "%s: out of memory", doc->name);
        return -1;
    }
    if (!yaml_parser_initialize(&parser)) {
        ga_msg(msg, msglen, "%s: cannot initialise the YAML parser", doc->name);
        if (!g || a != g->arena)
            free(a);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            dp_map_mark(g, parser.problem_mark.line, parser.problem_mark.column, &ol, &oc);
            ga_msg(msg, msglen, "%s:%d:%d: YAML syntax error: %s%s%s%s", doc->name, ol, oc,
                   parser.problem ? parser.problem : "unknown problem",
                   parser.context ? " " : "", parser.context ? parser.context : "",
                   tab_at(text, len, parser.problem_mark.index)
                       ? " (a tab character indents this line: YAML indents with spaces only)" : "");
            goto cleanup;
        }
        const yaml_mark_t *m = &ev.start_mark;
        dp_map_mark(g, m->line, m->column, &ol, &oc);
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
            if (g && ev.type == YAML_SCALAR_EVENT && ev.data.scalar.length == strlen(DP_MARK) &&
                !memcmp(ev.data.scalar.value, DP_MARK, strlen(DP_MARK))) {
                if (ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
                    take_list(stack, depth, flow, g)) {
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
                n->text = dp_arena_alloc(a, ev.data.scalar.length + 1);
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
    doc->pass_read = g ? g->n : 0;
    if (g && a == g->arena)
        g->arena = NULL;
    a = NULL;
    rc = 0;
cleanup:
    if (!g || a != g->arena)
        dp_arena_free(a); /* (a failed parse: every node it made) */
    yaml_parser_delete(&parser);
    return rc;
}

/* the document's name, set before anything is parsed: 0, or -1 with a message */
static int set_name(ga_doc *doc, const char *name, char *msg, size_t msglen)
{
    doc->root = NULL;
    doc->arena = NULL;
    doc->pass_read = 0;
    doc->name = strdup(name ? name : "<input>");
    if (!doc->name)
        ga_msg(msg, msglen, "%s: out of memory", name);
    return doc->name ? 0 : -1;
}

/* the copy of a pass that found lists, parsed: 0, or -1 (then the original text decides) */
static int parse_copy(ga_doc *doc, dp_scan *s, char *msg, size_t msglen)
{
    return s->oom || !s->g.n || !s->copy ? -1
                                         : parse_events(doc, s->copy, s->clen, &s->g, msg, msglen);
}

/* a whole text into doc (its name set): 0, or -1 with a message */
static int parse_text(ga_doc *doc, const char *text, size_t len, char *msg, size_t msglen)
{
    dp_scan s = {0};
    int rc = -1;
    if (len <= INT_MAX && !dp_unsafe(text, len)) {
        dp_scan_piece(&s, text, len, 1);
        if (!s.oom && s.g.n && dp_emit(&s, text, 0, len) == 0 &&
            parse_copy(doc, &s, msg, msglen) == 0)
            rc = 0;
        /* any error: the original text decides, and its message is the one shown */
    }
    dp_scan_clear(&s);
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
    dp_scan s = {0};
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
        if (dp_unsafe(win + wn, got) || dp_unsafe(probe, np) || (total += got) > INT_MAX) {
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
        size_t used = dp_scan_piece(&s, win, wn, got == 0);
        if (s.oom || dp_emit(&s, win, s.base, s.base + used)) {
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
    dp_scan_clear(&s);
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

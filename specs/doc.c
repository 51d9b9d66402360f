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
#include <pthread.h>
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
 * exists: the tree is then built in the pass's arena and takes it over, or, where a file is
 * read on two threads, in an arena of its own that takes the pass's over at the end
 * (arena_merge). */
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

/* src's blocks and lists become dst's (src is freed): 0, or -1 out of memory (nothing moved) */
static int arena_merge(ga_doc_arena *dst, ga_doc_arena *src)
{
    if (!src)
        return 0;
    if (dst->nnums + src->nnums > dst->capnums) {
        size_t cap = dst->nnums + src->nnums;
        ga_nums **nn = realloc(dst->nums, cap * sizeof *nn);
        if (!nn)
            return -1;
        dst->nums = nn;
        dst->capnums = cap;
    }
    if (src->nnums)
        memcpy(dst->nums + dst->nnums, src->nums, src->nnums * sizeof *src->nums);
    dst->nnums += src->nnums;
    if (src->head) { /* (after dst's current block, which stays current) */
        arena_block *tail = src->head;
        while (tail->next)
            tail = tail->next;
        if (dst->head) {
            tail->next = dst->head->next;
            dst->head->next = src->head;
        } else {
            dst->head = src->head;
        }
    }
    free(src->nums);
    free(src);
    return 0;
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

/* ------------------------------------------------------------ a file read on two threads
 *
 * With threads to spare, a large file's pieces are read and passed over on one thread while
 * libyaml parses the copy on another (the two halves of reading it take about as long): the
 * reader publishes each piece's copy and lists here, and the parser takes the bytes as its
 * input and the lists as it meets them. The reader never waits for the parser, so the two
 * also run one after the other on one thread. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *copy;               /* the copy published so far */
    size_t clen, ccap, pos;   /* pos: the parser's next byte */
    dp_region *r;             /* the lists published so far */
    size_t nr, capr, numbers;
    int done, fail, stop;     /* the reader has ended (fail: with no copy to parse); the
                                 parser has ended and wants no more */
} feed;

/* the parser's lists, g, brought up to those published: 0, or -1 out of memory */
static int feed_sync(feed *fd, dp_regions *g)
{
    int rc = 0;
    pthread_mutex_lock(&fd->mu);
    while (g->cap < fd->nr) {
        dp_region *nr = ga_grow(g->r, &g->cap, sizeof *nr, 64);
        if (!nr) {
            rc = -1;
            break;
        }
        g->r = nr;
    }
    if (rc == 0 && g->n < fd->nr) {
        memcpy(g->r + g->n, fd->r + g->n, (fd->nr - g->n) * sizeof *g->r);
        g->n = fd->nr;
    }
    g->numbers = fd->numbers;
    pthread_mutex_unlock(&fd->mu);
    return rc;
}

/* libyaml's input: the copy's next bytes, waiting for the reader when it has none yet (0:
 * the reader failed, the parse fails with it) */
static int feed_input(void *data, unsigned char *buf, size_t size, size_t *got)
{
    feed *fd = data;
    pthread_mutex_lock(&fd->mu);
    while (fd->pos == fd->clen && !fd->done)
        pthread_cond_wait(&fd->cv, &fd->mu);
    int ok = !fd->fail;
    size_t n = fd->clen - fd->pos < size ? fd->clen - fd->pos : size;
    if (ok && n)
        memcpy(buf, fd->copy + fd->pos, n);
    fd->pos += ok ? n : 0;
    pthread_mutex_unlock(&fd->mu);
    *got = ok ? n : 0;
    return ok;
}

/* the reader's piece (the copy s->copy[0, s->clen) and the lists s->g) published, and its
 * buffers emptied for the next: 0, or -1 (out of memory, or the parser has ended) */
static int feed_publish(feed *fd, dp_scan *s)
{
    int rc = 0;
    pthread_mutex_lock(&fd->mu);
    if (fd->stop) {
        rc = -1;
    } else if (fd->clen + s->clen > fd->ccap || fd->nr + s->g.n > fd->capr) {
        size_t cc = fd->ccap ? fd->ccap : 1 << 16, cr = fd->capr ? fd->capr : 256;
        while (cc < fd->clen + s->clen)
            cc *= 2;
        while (cr < fd->nr + s->g.n)
            cr *= 2;
        char *c = realloc(fd->copy, cc);
        if (c)
            fd->copy = c, fd->ccap = cc;
        dp_region *r = c ? realloc(fd->r, cr * sizeof *r) : NULL;
        if (r)
            fd->r = r, fd->capr = cr;
        rc = c && r ? 0 : -1;
    }
    if (rc == 0) {
        if (s->clen)
            memcpy(fd->copy + fd->clen, s->copy, s->clen);
        fd->clen += s->clen;
        if (s->g.n)
            memcpy(fd->r + fd->nr, s->g.r, s->g.n * sizeof *s->g.r);
        fd->nr += s->g.n;
        fd->numbers = s->g.numbers;
        s->clen = 0;
        s->g.n = s->k = 0;
        pthread_cond_broadcast(&fd->cv);
    }
    pthread_mutex_unlock(&fd->mu);
    return rc;
}

/* the reader has ended, with a copy to parse or not */
static void feed_end(feed *fd, int fail)
{
    pthread_mutex_lock(&fd->mu);
    fd->done = 1;
    fd->fail = fail;
    pthread_cond_broadcast(&fd->cv);
    pthread_mutex_unlock(&fd->mu);
}

/* The plain scalar M, the only item of the flow list on top of the stack, stands for the
 * next list or collection read in one pass: that list becomes a NUMS node, or takes the kind
 * and kids of the nodes the pass made (in the arena the tree is built in). 0, or -1 when it
 * does not fit (then the original text is parsed). */
static int take_list(ga_node **stack, int depth, const int *flow, dp_regions *g, feed *fd)
{
    if (fd && g->next >= g->n && feed_sync(fd, g))
        return -1;
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
static int parse_events(ga_doc *doc, const char *text, size_t len, dp_regions *g, feed *fd,
                        char *msg, size_t msglen)
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
    if (fd)
        yaml_parser_set_input(&parser, feed_input, fd);
    else
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
                    take_list(stack, depth, flow, g, fd)) {
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
    if (fd && (feed_sync(fd, g) || nodes + g->numbers > GA_DOC_MAX_NODES))
        goto cleanup; /* (the lists' numbers counted as they come: the limit here) */
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
    doc->reread = 0;
    doc->name = strdup(name ? name : "<input>");
    if (!doc->name)
        ga_msg(msg, msglen, "%s: out of memory", name);
    return doc->name ? 0 : -1;
}

/* the copy of a pass that found lists, parsed: 0, or -1 (then the original text decides) */
static int parse_copy(ga_doc *doc, dp_scan *s, char *msg, size_t msglen)
{
    if (s->oom || !s->g.n || !s->copy)
        return -1;
    return parse_events(doc, s->copy, s->clen, &s->g, NULL, msg, msglen);
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
    return rc ? parse_events(doc, text, len, NULL, NULL, msg, msglen) : 0;
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

/* The reading of a file in pieces: the pass over each piece, its copy kept (fd NULL) or
 * published to the parser (feed_publish). rc: the file's failure (its message in msg); off:
 * the pass could not go on (the whole text decides). */
typedef struct {
    ga_file *f;
    ga_sha256 *h;
    feed *fd;
    dp_scan s;
    int rc, off;
    char *msg;
    size_t msglen;
} reader;

static void reader_run(reader *r)
{
    dp_scan *s = &r->s;
    char *win = NULL, tail[2];
    size_t wn = 0, wcap = 0, total = 0, ntail = 0;
    const size_t piece = ga_file_piece();
    for (;;) {
        size_t want = wn > piece ? wn : piece; /* an open list: at least double the window */
        if (wn + want > wcap) {
            char *nw = realloc(win, wn + want);
            if (!nw) {
                r->off = 1;
                break;
            }
            win = nw;
            wcap = wn + want;
        }
        size_t got;
        if ((r->rc = ga_file_read(r->f, win + wn, want, &got, r->msg, r->msglen)))
            break;
        ga_sha256_update(r->h, win + wn, got);
        /* the unsafe bytes, also across the boundary with what came before */
        char probe[4];
        size_t np = 0;
        for (size_t i = 0; i < ntail; i++)
            probe[np++] = tail[i];
        for (size_t i = 0; i < got && i < 2; i++)
            probe[np++] = win[wn + i];
        if (dp_unsafe(win + wn, got) || dp_unsafe(probe, np) || (total += got) > INT_MAX) {
            r->off = 1;
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
        size_t used = dp_scan_piece(s, win, wn, got == 0);
        if (s->oom || dp_emit(s, win, s->base, s->base + used) ||
            (r->fd && feed_publish(r->fd, s))) {
            r->off = 1;
            break;
        }
        memmove(win, win + used, wn - used);
        wn -= used;
        s->base += used;
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
    if (r->fd)
        feed_end(r->fd, r->rc || r->off);
}

/* A file read in pieces (a regular file): the pass runs on each piece as it arrives and
 * only the copy is kept, so the text of a spec of large matrices never sits in memory whole
 * (the copy is small: the lists are most of the text). When the pass is off or the copy does
 * not parse, the file is read again from its first byte and parsed as in ga_doc_parse; the
 * digest then describes that second reading, the bytes parsed. */
static int read_pieces(ga_doc *doc, ga_file *f, ga_sha256 *h, int *parsed, char *msg,
                       size_t msglen)
{
    reader r = {.f = f, .h = h, .msg = msg, .msglen = msglen};
    *parsed = 0;
    reader_run(&r);
    if (!r.rc && !r.off) {
        dp_scan *s = &r.s;
        /* no lists: the copy is the text, and its errors are the original's */
        if (!s->g.n) {
            *parsed = 1;
            r.rc = parse_events(doc, s->copy ? s->copy : "", s->clen, NULL, NULL, msg, msglen)
                       ? GA_EINVAL : GA_OK;
        } else if (parse_copy(doc, s, msg, msglen) == 0) {
            *parsed = 1;
        }
    }
    dp_scan_clear(&r.s);
    return r.rc;
}

/* The same on two threads (see feed): item 0 reads, item 1 parses */
typedef struct {
    ga_doc *doc;
    reader r;
    feed fd;
    dp_regions g;    /* the parser's lists */
    int prc;
    char pmsg[256];  /* (a failed parse is parsed again for its message) */
} piped;

static void piped_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    piped *p = ctx;
    if (i == 0) {
        reader_run(&p->r);
        return;
    }
    p->prc = parse_events(p->doc, NULL, 0, &p->g, &p->fd, p->pmsg, sizeof p->pmsg);
    pthread_mutex_lock(&p->fd.mu);
    p->fd.stop = 1;
    pthread_mutex_unlock(&p->fd.mu);
}

static int read_piped(ga_doc *doc, ga_file *f, ga_sha256 *h, int jobs, int *parsed, char *msg,
                      size_t msglen)
{
    piped p = {.doc = doc, .r = {.f = f, .h = h, .msg = msg, .msglen = msglen}};
    p.r.fd = &p.fd;
    *parsed = 0;
    if (pthread_mutex_init(&p.fd.mu, NULL))
        return read_pieces(doc, f, h, parsed, msg, msglen);
    if (pthread_cond_init(&p.fd.cv, NULL)) {
        pthread_mutex_destroy(&p.fd.mu);
        return read_pieces(doc, f, h, parsed, msg, msglen);
    }
    ga_par_items(2, jobs, 0, piped_item, &p);
    int rc = p.r.rc;
    if (p.prc == 0 && !rc && !p.r.off && arena_merge(doc->arena, p.r.s.g.arena) == 0) {
        p.r.s.g.arena = NULL; /* (the lists and the pass's nodes are the tree's) */
        *parsed = 1;
    } else if (p.prc == 0) { /* (no memory to keep it: read again) */
        dp_arena_free(doc->arena);
        doc->arena = NULL;
        doc->root = NULL;
    }
    pthread_cond_destroy(&p.fd.cv);
    pthread_mutex_destroy(&p.fd.mu);
    free(p.fd.copy);
    free(p.fd.r);
    free(p.g.r);
    dp_scan_clear(&p.r.s);
    return rc;
}

/* files read on two threads: those of a few pieces or more */
#define PIPED_MIN_PIECES 4

int ga_doc_read(ga_doc *doc, ga_file *f, const char *name, int jobs, char digest[65],
                char *msg, size_t msglen)
{
    ga_sha256 h;
    char *text = NULL;
    size_t len;
    int parsed = 0, rc;
    if (set_name(doc, name, msg, msglen))
        return GA_ENOMEM;
    ga_sha256_init(&h);
    if (f->regular &&
        (rc = jobs > 1 && f->size >= PIPED_MIN_PIECES * ga_file_piece()
                  ? read_piped(doc, f, &h, jobs, &parsed, msg, msglen)
                  : read_pieces(doc, f, &h, &parsed, msg, msglen)))
        goto cleanup;
    if (!parsed) {
        /* a pipe, or the pass could not decide: the whole text */
        doc->reread = f->regular;
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
        rc = ga_doc_read(doc, &f, path, 1, digest, msg, msglen);
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

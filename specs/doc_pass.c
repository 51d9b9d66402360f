/*
 * doc_pass.c - the one-pass reading of a document's numbers beside libyaml (doc.c).
 *
 * libyaml makes a token, an event and a string for every number, about 400 ns and 100 bytes
 * apiece; a spec of dimension 2000 has eight million numbers, one of 10^5 explicit pairs a
 * million nodes. So before libyaml runs, one pass finds the flow lists that hold only plain
 * decimals ([0.5, -1e-3, ...], commas, spaces and line breaks) and reads them with the one
 * number reader (a double and a 4-byte exact decimal each: base/decimal.c); and short flow
 * collections built of such lists (a list of them, a mapping of word keys to them or to such
 * collections: {mean: [0, 1], cov: [[1, 0], [0, 1]]}), which it reads whole into the nodes
 * libyaml would make. libyaml then reads a copy of the text in which each such list or
 * collection is replaced by [M], M a private-use character (U+E000) that the text does not
 * contain, and the tree takes the numbers and nodes where the event stream shows that
 * one-item list.
 *
 * The pass cannot see whether a '[' or '{' is inside a quoted string, a comment or a block
 * scalar; the event stream decides (the pass skips what looks like a comment, so that a list
 * quoted in one does not send a large text back to libyaml). The text before a list is the
 * same in both texts (every list replaced before it was a flow collection in both), so when
 * libyaml reports a flow sequence whose only item is the plain scalar M, the '[' or '{'
 * began a flow collection in the original too (libyaml treats the two alike up to there),
 * and its content is what the pass read: decimals, word keys each followed by ": ", commas
 * and spaces, whose meaning in a flow collection is fixed. Every list must be found that way,
 * in order, and none may be a mapping key; otherwise (or on any error) the original text is
 * parsed as before and the lists are dropped, so the fast reading never changes a result.
 * Positions in the copy are mapped back to the original's (lines and columns in characters,
 * as libyaml counts them); texts with line breaks libyaml counts differently (CR, NEL, LS,
 * PS) or a byte-order mark are parsed without the pass. test_doc compares the trees with
 * libyaml's on every bundled spec and on random documents that put lists and collections
 * where the pass cannot tell what they are.
 */
#include "specs/doc_pass.h"
#include "numerics/numerics.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t nums_min = GA_DOC_NUMS_MIN;

void ga_doc_set_nums_min(size_t n)
{
    nums_min = n ? n : 1;
}

static void regions_clear(dp_regions *g)
{
    free(g->r);
    dp_arena_free(g->arena);
    memset(g, 0, sizeof *g);
}

static void scratch_reset(dp_scratch *w)
{
    for (size_t i = 0; i < w->nlong; i++)
        free(w->long_txt[i]);
    w->n = w->nlong = 0;
}

static void scratch_clear(dp_scratch *w)
{
    scratch_reset(w);
    free(w->v);
    free(w->dec);
    free(w->long_at);
    free(w->long_txt);
    memset(w, 0, sizeof *w);
}

/* append one number: 0, or -1 out of memory */
static int scratch_add(dp_scratch *w, double v, ga_dec dec, const char *s, size_t len)
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

/* the scratch's numbers as a list in the arena a (the scratch is left empty): the list, its
 * values and its decimals in one piece; the long texts, if any, owned by the arena. NULL out
 * of memory. */
_Static_assert(sizeof(ga_nums) % _Alignof(double) == 0, "the values follow the list");
static ga_nums *scratch_take(dp_scratch *w, ga_doc_arena *a)
{
    if (w->n > (SIZE_MAX / 2 - sizeof(ga_nums)) / (sizeof(double) + sizeof(ga_dec)))
        return NULL;
    ga_nums *u = dp_arena_alloc(a, sizeof *u + w->n * (sizeof(double) + sizeof(ga_dec)));
    if (!u)
        return NULL;
    memset(u, 0, sizeof *u);
    u->v = (double *)(u + 1);
    u->dec = (ga_dec *)(u->v + w->n);
    memcpy(u->v, w->v, w->n * sizeof *u->v);
    memcpy(u->dec, w->dec, w->n * sizeof *u->dec);
    if (w->nlong) {
        u->long_at = malloc(w->nlong * sizeof *u->long_at);
        u->long_txt = malloc(w->nlong * sizeof *u->long_txt);
        if (!u->long_at || !u->long_txt) {
            free(u->long_at);
            free(u->long_txt);
            return NULL;
        }
        memcpy(u->long_at, w->long_at, w->nlong * sizeof *u->long_at);
        memcpy(u->long_txt, w->long_txt, w->nlong * sizeof *u->long_txt);
        u->nlong = w->nlong;
        if (dp_arena_own(a, u)) {
            free(u->long_at);
            free(u->long_txt);
            return NULL;
        }
    }
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
static size_t read_list(dp_scratch *w, const char *t, size_t len, size_t i, int *nl, int *lastcol)
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
        if (w->n < GA_DOC_NUMS_MIN) {
            w->tok_at[w->n] = p;
            w->tok_len[w->n] = q - p;
            w->tok_line[w->n] = lines;
            w->tok_ls[w->n] = linestart;
        }
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

/* A flow collection being read: the text up to len (at most DP_FLOW_MAX_BYTES past its
 * start), the position of t[p] in the original (0-based). Its nodes are made in the pass's
 * arena (a collection that turns out not to be read whole leaves them there unused); the
 * kids of the collections still open wait on the scan's stack (s->kids) until each closes. */
typedef struct {
    const char *t;
    size_t len, p;
    int line, col;
    dp_scan *s;
    size_t nkids;       /* on s->kids */
    size_t nodes;       /* as libyaml's tree counts them: every number one */
    int ran_out;        /* the text (or the window) ended inside */
} flow_rd;

/* skip spaces and line breaks: 0, or -1 when the text ends first */
static int fr_space(flow_rd *f)
{
    for (; f->p < f->len && is_space(f->t[f->p]); f->p++) {
        if (f->t[f->p] == '\n') {
            f->line++;
            f->col = 0;
        } else {
            f->col++;
        }
    }
    f->ran_out = f->p == f->len;
    return f->ran_out ? -1 : 0;
}

/* a new node at the current position (NULL: out of memory) */
static ga_node *fr_node(flow_rd *f, int kind)
{
    ga_node *n = dp_arena_alloc(f->s->g.arena, sizeof *n);
    if (n) {
        memset(n, 0, sizeof *n);
        n->kind = kind;
        n->line = f->line + 1;
        n->col = f->col + 1;
        f->nodes++;
    }
    return n;
}

/* n waits for its collection to close: 0, or -1 out of memory */
static int fr_push(flow_rd *f, ga_node *n)
{
    dp_scan *s = f->s;
    if (f->nkids == s->kcap) {
        ga_node **nk = ga_grow(s->kids, &s->kcap, sizeof *nk, 64);
        if (!nk)
            return -1;
        s->kids = nk;
    }
    s->kids[f->nkids++] = n;
    return 0;
}

/* the kids pushed since base are c's: 0, or -1 out of memory */
static int fr_close(flow_rd *f, ga_node *c, size_t base)
{
    c->n = f->nkids - base;
    if (!(c->kids = dp_arena_alloc(f->s->g.arena, c->n * sizeof *c->kids)))
        return -1;
    memcpy(c->kids, f->s->kids + base, c->n * sizeof *c->kids);
    f->nkids = base;
    return 0;
}

static int is_word(char c, int first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

/* text[0, len) as a string in the arena (NULL: out of memory) */
static char *arena_text(ga_doc_arena *a, const char *text, size_t len)
{
    char *c = dp_arena_alloc(a, len + 1);
    if (c) {
        memcpy(c, text, len);
        c[len] = 0;
    }
    return c;
}

/* The list of numbers read_list has just read (in s->w; its ']' at t[e], nl and lastcol as
 * read_list's) at t[p]: a NUMS node when it has nums_min numbers or more, else the sequence
 * of plain scalars libyaml makes (their texts and positions). NULL: out of memory, or a
 * short list when the pass reads every list as NUMS or none. */
static ga_node *fr_list(flow_rd *f, size_t e, int nl, int lastcol)
{
    dp_scratch *w = &f->s->w;
    ga_doc_arena *a = f->s->g.arena;
    size_t n = w->n;
    ga_node *l = NULL;
    if (n >= nums_min) {
        if (!(l = fr_node(f, GA_NODE_NUMS)) || !(l->nums = scratch_take(w, a)))
            return NULL;
        l->n = n;
        f->nodes += n;
    } else {
        if (nums_min > GA_DOC_NUMS_MIN) /* (its numbers' places were not all kept) */
            return NULL;
        if (!(l = fr_node(f, GA_NODE_SEQ)) || !(l->kids = dp_arena_alloc(a, n * sizeof *l->kids)))
            return NULL;
        for (size_t k = 0; k < n; k++) {
            ga_node *x = fr_node(f, GA_NODE_SCALAR);
            if (!x || !(x->text = arena_text(a, f->t + w->tok_at[k], w->tok_len[k])))
                return NULL;
            x->line = f->line + w->tok_line[k] + 1;
            x->col = 1 + (w->tok_line[k] ? (int)(w->tok_at[k] - w->tok_ls[k])
                                         : f->col + (int)(w->tok_at[k] - f->p));
            l->kids[l->n++] = x;
        }
        scratch_reset(w);
    }
    f->line += nl;
    f->col = nl ? lastcol + 1 : f->col + (int)(e - f->p) + 1;
    f->p = e + 1;
    return l;
}

static ga_node *fr_value(flow_rd *f, int depth, int *cdepth);

/* the next item of a collection at depth (a collection itself, after spaces), waiting for
 * it to close, *cdepth raised to its levels; then ',' (1: another item follows) or close
 * (0: the collection's end); -1 otherwise (not such an item, f->ran_out, out of memory) */
static int fr_item(flow_rd *f, int depth, int *cdepth, char close)
{
    int kd;
    ga_node *x;
    if (fr_space(f) || (f->t[f->p] != '[' && f->t[f->p] != '{') ||
        !(x = fr_value(f, depth + 1, &kd)) || fr_push(f, x) || fr_space(f))
        return -1;
    *cdepth = kd + 1 > *cdepth ? kd + 1 : *cdepth;
    char c = f->t[f->p++];
    f->col++;
    return c == ',' ? 1 : c == close ? 0 : -1;
}

/* the items of the list at t[p] == '[' whose first item is a collection, each one (NULL: not
 * such a list, or f->ran_out, or out of memory) */
static ga_node *fr_nested(flow_rd *f, int depth, int *cdepth)
{
    ga_node *l = fr_node(f, GA_NODE_SEQ);
    size_t base = f->nkids;
    if (!l)
        return NULL;
    f->p++;
    f->col++;
    for (;;) {
        int more = fr_item(f, depth, cdepth, ']');
        if (more < 0)
            return NULL;
        if (!more)
            return fr_close(f, l, base) ? NULL : l;
    }
}

/* the mapping at t[p] == '{': word keys, each followed by ": " and a collection */
static ga_node *fr_map(flow_rd *f, int depth, int *cdepth)
{
    ga_node *m = fr_node(f, GA_NODE_MAP), *k;
    size_t base = f->nkids;
    if (!m)
        return NULL;
    f->p++;
    f->col++;
    for (;;) {
        if (fr_space(f))
            return NULL;
        size_t q = f->p;
        while (q < f->len && q - f->p <= DP_FLOW_KEY_MAX && is_word(f->t[q], q == f->p))
            q++;
        if (q + 1 >= f->len) {
            f->ran_out = 1;
            return NULL;
        }
        if (q == f->p || q - f->p > DP_FLOW_KEY_MAX || f->t[q] != ':' || f->t[q + 1] != ' ')
            return NULL;
        if (!(k = fr_node(f, GA_NODE_SCALAR)) ||
            !(k->text = arena_text(f->s->g.arena, f->t + f->p, q - f->p)) || fr_push(f, k))
            return NULL;
        f->col += (int)(q - f->p) + 2;
        f->p = q + 2;
        int more = fr_item(f, depth, cdepth, '}');
        if (more < 0)
            return NULL;
        if (!more)
            return fr_close(f, m, base) ? NULL : m;
    }
}

/* the collection at t[p] ('[' or '{'), *cdepth its levels of collections, itself and a list
 * of numbers included (NULL: not one read_flow reads, or f->ran_out, or out of memory) */
static ga_node *fr_value(flow_rd *f, int depth, int *cdepth)
{
    *cdepth = 0;
    if (depth >= DP_FLOW_MAX_DEPTH)
        return NULL;
    if (f->t[f->p] == '{')
        return fr_map(f, depth, cdepth);
    int nl = 0, lastcol = 0;
    size_t e = read_list(&f->s->w, f->t, f->len, f->p, &nl, &lastcol);
    if (e == RAN_OUT) {
        f->ran_out = 1;
        return NULL;
    }
    if (!e)
        return fr_nested(f, depth, cdepth);
    *cdepth = 1;
    return fr_list(f, e, nl, lastcol);
}

/* Read the flow collection that starts at t[i] ('{', or a '[' that read_list found not to be
 * a list of numbers), if it has the shape read_flow reads: returns the index of its last byte
 * with its root in *tree, RAN_OUT when t ends first within DP_FLOW_MAX_BYTES, or 0 (libyaml
 * reads it); *nl, *lastcol as read_list's, *cdepth and *nodes its levels and nodes. */
static size_t read_flow(dp_scan *s, const char *t, size_t len, size_t i, ga_node **tree,
                        int *nl, int *lastcol, int *cdepth, size_t *nodes)
{
    int whole = len - i <= DP_FLOW_MAX_BYTES;
    flow_rd f = {.t = t, .len = whole ? len : i + DP_FLOW_MAX_BYTES, .p = i, .line = s->line,
                 .col = s->col, .s = s};
    *cdepth = 0;
    ga_node *r = t[i] == '{' ? fr_map(&f, 0, cdepth) : fr_nested(&f, 0, cdepth);
    if (!r)
        return f.ran_out && whole ? RAN_OUT : 0;
    *tree = r;
    *nodes = f.nodes;
    *nl = f.line - s->line;
    *lastcol = f.col - 1;
    return f.p - 1;
}

static int contains(const char *t, size_t len, const char *what)
{
    size_t w = strlen(what);
    for (const char *p = t; (p = memchr(p, what[0], len - (size_t)(p - t))) != NULL; p++)
        if ((size_t)(t + len - p) >= w && !memcmp(p, what, w))
            return 1;
    return 0;
}

int dp_unsafe(const char *t, size_t len)
{
    static const char *const seqs[] = {"\r", "\xC2\x85", "\xE2\x80\xA8", "\xE2\x80\xA9",
                                       "\xEF\xBB\xBF", DP_MARK};
    if (memchr(t, 0, len))
        return 1;
    for (size_t k = 0; k < sizeof seqs / sizeof *seqs; k++)
        if (contains(t, len, seqs[k]))
            return 1;
    return 0;
}

void dp_scan_clear(dp_scan *s)
{
    regions_clear(&s->g);
    scratch_clear(&s->w);
    free(s->kids);
    free(s->copy);
    memset(s, 0, sizeof *s);
}

/* the end of the comment that the '#' at t[i] may begin (after a space, a line break or at
 * the text's start: a comment there if it is not inside a quoted scalar), i if it is not one,
 * RAN_OUT when the line goes on past t's end. A list in a comment would not be one in the
 * event stream and would send the whole text back to libyaml; passing over a '#' that is
 * inside a string only leaves the lists after it on its line to libyaml. */
static size_t comment_end(const char *t, size_t len, size_t i, char before, int eof)
{
    char b = i ? t[i - 1] : before;
    if (!(b == ' ' || b == '\t' || b == '\n' || (i == 0 && before == 0)))
        return i;
    const char *nl = memchr(t + i, '\n', len - i);
    return nl ? (size_t)(nl - t) : eof ? len : RAN_OUT;
}

static size_t scan_lists(dp_scan *s, const char *t, size_t len, int eof)
{
    dp_regions *g = &s->g;
    if (!g->arena && !(g->arena = dp_arena_new())) {
        s->oom = 1;
        return len;
    }
    for (size_t i = 0; i < len; i++) {
        char ch = t[i];
        if (ch == '#') {
            size_t e = comment_end(t, len, i, s->prev, eof);
            if (e == RAN_OUT)
                return i;
            for (; i < e; i++) /* (the columns of its characters) */
                s->col += ((unsigned char)t[i] & 0xC0) != 0x80;
            if (i == len)
                break;
            ch = t[i];
        }
        if (ch == '[' || ch == '{') {
            int nl = 0, lastcol = 0, cdepth = 0; /* (set when a list or collection ends) */
            ga_node *tree = NULL;
            size_t nodes = 0;
            size_t e = ch == '[' ? read_list(&s->w, t, len, i, &nl, &lastcol) : 0;
            if (!e)
                e = read_flow(s, t, len, i, &tree, &nl, &lastcol, &cdepth, &nodes);
            if (e == RAN_OUT && !eof)
                return i;
            if (e && e != RAN_OUT && !tree && s->w.n < nums_min) { /* a short list: its nodes */
                flow_rd f = {.t = t, .len = len, .p = i, .line = s->line, .col = s->col, .s = s};
                if (!(tree = fr_list(&f, e, nl, lastcol)))
                    e = 0; /* (libyaml reads it) */
                nodes = f.nodes;
                cdepth = 1;
            }
            if (e != RAN_OUT && e && (tree || s->w.n >= nums_min)) {
                if (g->n == g->cap) {
                    dp_region *nr = ga_grow(g->r, &g->cap, sizeof *nr, 64);
                    if (!nr) {
                        s->oom = 1;
                        return len;
                    }
                    g->r = nr;
                }
                dp_region *r = &g->r[g->n];
                memset(r, 0, sizeof *r);
                r->start = s->base + i;
                r->end = s->base + e;
                r->sl = s->line - s->dl;
                r->sc = s->col - s->dc + 2; /* after '[' and the mark */
                r->ol = s->line + nl;
                r->oc = nl ? lastcol : s->col + (int)(e - i);
                if (tree) { /* (its root is the node libyaml makes for [M]) */
                    r->tree = tree;
                    r->cdepth = cdepth;
                    g->numbers += nodes - 1;
                } else {
                    r->n = s->w.n;
                    if (!(r->nums = scratch_take(&s->w, g->arena))) {
                        s->oom = 1;
                        return len;
                    }
                    g->numbers += r->n;
                }
                g->n++;
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

size_t dp_scan_piece(dp_scan *s, const char *t, size_t len, int eof)
{
    size_t used = scan_lists(s, t, len, eof);
    if (used)
        s->prev = t[used - 1];
    return used;
}

int dp_emit(dp_scan *s, const char *t, size_t tbase, size_t upto)
{
    const size_t ml = 2 + strlen(DP_MARK);
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
        const dp_region *r = &s->g.r[s->k];
        memcpy(p, t + (s->emitted - tbase), r->start - s->emitted);
        p += r->start - s->emitted;
        memcpy(p, "[" DP_MARK "]", ml);
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

/* is the ']' of list r (in the copy) before or at the position (line, col)? */
static int list_ends_by(const dp_region *r, size_t line, size_t col)
{
    return (size_t)r->sl < line || ((size_t)r->sl == line && (size_t)r->sc <= col);
}

/* The events' marks come in order: the lists ended before one are found from those before
 * the previous one (g->seen), a binary search only for a mark behind it (an error's). */
void dp_map_mark(dp_regions *g, size_t line, size_t col, int *ol, int *oc)
{
    size_t lo = 0; /* the first list ending after the mark */
    if (g && g->seen > 0 && !list_ends_by(&g->r[g->seen - 1], line, col)) {
        size_t hi = g->seen;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (list_ends_by(&g->r[mid], line, col))
                lo = mid + 1;
            else
                hi = mid;
        }
    } else if (g) {
        for (lo = g->seen; lo < g->n && list_ends_by(&g->r[lo], line, col); lo++)
            ;
        g->seen = lo;
    }
    if (lo == 0) {
        *ol = (int)line + 1;
        *oc = (int)col + 1;
        return;
    }
    const dp_region *r = &g->r[lo - 1];
    if ((size_t)r->sl == line) {
        *ol = r->ol + 1;
        *oc = r->oc + (int)(col - (size_t)r->sc) + 1;
    } else {
        *ol = (int)line - r->sl + r->ol + 1;
        *oc = (int)col + 1;
    }
}


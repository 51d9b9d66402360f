/*
 * spec_pairs.c - sets of pairs (ga_pairset): room reserved up front, pairs added (moved in,
 * or from laws), products of blocks, row families read on demand; and views of a pair as the
 * pair layer's inputs with their exact decimal texts.
 */
#include "specs/internal.h"

#include <errno.h>
#include <malloc.h> /* malloc_trim */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

int ga_pairset_reserve(ga_pairset *s, size_t n)
{
    if (n > SIZE_MAX / sizeof *s->pairs - s->npairs)
        return GA_ENOMEM;
    if (s->npairs + n <= s->cappairs)
        return GA_OK;
    ga_spec_pair *np = realloc(s->pairs, (s->npairs + n) * sizeof *np);
    if (!np)
        return GA_ENOMEM;
    s->pairs = np;
    s->cappairs = s->npairs + n;
    return GA_OK;
}

/* room for one more pair: GA_OK, GA_EINVAL (the cap), GA_ENOMEM */
static int pair_room(ga_pairset *s)
{
    if (s->npairs >= GA_SPEC_MAX_PAIRS)
        return GA_EINVAL;
    if (s->npairs == s->cappairs) {
        ga_spec_pair *np = ga_grow(s->pairs, &s->cappairs, sizeof *np, 16);
        if (!np)
            return GA_ENOMEM;
        s->pairs = np;
    }
    return GA_OK;
}

/* the one way a pair is appended: the others describe theirs and move it in here */
int ga_pairset_add_moved(ga_pairset *s, const char *name, ga_spec_pair *p)
{
    int rc = pair_room(s);
    char *nm = rc ? NULL : strdup(name);
    if (!nm) {
        ga_spec_pair_free(p);
        return rc ? rc : GA_ENOMEM;
    }
    free(p->name);
    s->pairs[s->npairs] = *p;
    s->pairs[s->npairs++].name = nm;
    memset(p, 0, sizeof *p);
    return GA_OK;
}

int ga_pairset_add(ga_pairset *s, const char *name, size_t d, double columns, double *mu_x,
                     double *s_x, double *mu_y, double *s_y)
{
    ga_spec_pair p = {.d = d, .columns = columns, .mu_x = mu_x, .s_x = s_x, .mu_y = mu_y,
                      .s_y = s_y};
    int given = !!mu_x + !!s_x + !!mu_y + !!s_y;
    if (given != 0 && given != 4) { /* a copy the caller made failed: no memory */
        ga_spec_pair_free(&p);
        return GA_ENOMEM;
    }
    return ga_pairset_add_moved(s, name, &p);
}

int ga_pairset_add_1d(ga_pairset *s, const char *name, double columns, double mu_x, double s_x,
                   double mu_y, double s_y)
{
    double *v = malloc(4 * sizeof *v);
    if (!v)
        return GA_ENOMEM;
    v[0] = mu_x;
    v[1] = s_x;
    v[2] = mu_y;
    v[3] = s_y;
    ga_spec_pair p = {.d = 1, .columns = columns, .mu_x = v, .s_x = v + 1, .mu_y = v + 2,
                      .s_y = v + 3, .laws_block = 1};
    return ga_pairset_add_moved(s, name, &p);
}

int ga_pairset_add_product(ga_pairset *s, const char *name, ga_spec_pair *blocks, size_t n)
{
    ga_spec_pair p = {.columns = 1, .nblocks = n, .blocks = blocks};
    for (size_t b = 0; b < n; b++)
        p.d += blocks[b].d;
    return ga_pairset_add_moved(s, name, &p);
}

const ga_node *ga_spec_pair_src(const ga_spec_pair *p, int w)
{
    /* (parse_law read mean and cov of x and y) */
    const ga_node *law = p->src ? ga_node_get(p->src, w == 0 || w == 2 ? "x" : "y") : NULL;
    return law ? ga_node_get(law, w < 2 ? "mean" : "cov") : NULL;
}

/* free a plain pair's four law arrays (one allocation when laws_block) */
static void free_laws(ga_spec_pair *p)
{
    free(p->mu_x);
    if (!p->laws_block) {
        free(p->mu_y);
        free(p->s_x);
        free(p->s_y);
    }
    p->mu_x = p->mu_y = p->s_x = p->s_y = NULL;
    p->laws_block = 0;
}

void ga_spec_pair_free(ga_spec_pair *p)
{
    free(p->name);
    free_laws(p);
    for (size_t b = 0; b < p->nblocks; b++)
        ga_spec_pair_free(&p->blocks[b]);
    free(p->blocks);
    free(p->sub);
    free(p->masked);
    free(p->synth);
    free(p->shuffle);
    free(p->ptr);
    free(p->envelope);
    free(p->alloc);
    free(p->var_scale_txt);
    memset(p, 0, sizeof *p);
}

void ga_spec_pair_set_laws(ga_spec_pair *p, size_t d, double *mu_x, double *s_x, double *mu_y,
                           double *s_y)
{
    free_laws(p);
    p->src = NULL;
    p->mean_txt = p->sd_txt = NULL;
    p->d = d;
    p->mu_x = mu_x;
    p->mu_y = mu_y;
    p->s_x = s_x;
    p->s_y = s_y;
}

void ga_pairset_reset(ga_pairset *s)
{
    for (size_t i = 0; i < s->npairs; i++)
        ga_spec_pair_free(&s->pairs[i]);
    free(s->fam.v);
    free(s->compare);
    ga_spec_pair *keep = s->pairs;
    size_t cap = s->cappairs;
    memset(s, 0, sizeof *s);
    s->pairs = keep;
    s->cappairs = cap;
}

void ga_pairset_clear(ga_pairset *s)
{
    ga_pairset_reset(s);
    free(s->pairs);
    memset(s, 0, sizeof *s);
}

void ga_spec_drop_data(ga_spec *s)
{
    free(s->data.x);
    s->data.x = NULL;
#ifdef __GLIBC__
    /* the values were read when glibc's mmap threshold had risen (it follows the largest
     * block freed), so they may sit in the brk heap below blocks still in use, where free()
     * keeps their pages resident: hand the free pages back (about 16 MB for a 100k x 20 CSV) */
    malloc_trim(0);
#endif
}

size_t ga_pairset_npairs(const ga_pairset *s)
{
    return s->fam.n + s->npairs;
}

const ga_spec_pair *ga_pairset_pair_at(const ga_pairset *s, size_t i, ga_spec_pair_buf *b, int named)
{
    if (i >= s->fam.n)
        return &s->pairs[i - s->fam.n];
    const ga_spec_family *f = &s->fam;
    f->laws(b->laws, f, i);
    b->p = (ga_spec_pair){.d = 1, .columns = f->columns, .mu_x = b->laws, .s_x = b->laws + 1,
                          .mu_y = b->laws + 2, .s_y = b->laws + 3, .reduced = 1,
                          .laws_block = 1};
    if (named) {
        f->name(b->name, sizeof b->name, f, i);
        b->p.name = b->name;
    }
    return &b->p;
}

int ga_pairset_pair_bound(const ga_pairset *s, size_t i)
{
    return i >= s->fam.n && s->pairs[i - s->fam.n].bound;
}

int ga_pairset_pair_unreleased(const ga_pairset *s, size_t i)
{
    return i >= s->fam.n && ga_spec_pair_unreleased(&s->pairs[i - s->fam.n]);
}

const char *ga_pairset_pair_name(const ga_pairset *s, size_t i, char *buf, size_t len)
{
    if (i >= s->fam.n)
        return s->pairs[i - s->fam.n].name ? s->pairs[i - s->fam.n].name : "";
    s->fam.name(buf, len, &s->fam, i);
    return buf;
}

void ga_spec_pair_input(ga_pair_input *in, const ga_spec_pair *p, char labels[4][200])
{
    memset(in, 0, sizeof *in);
    in->d = p->d;
    in->mu_x = p->mu_x;
    in->mu_y = p->mu_y;
    in->s_x = p->s_x;
    in->s_y = p->s_y;
    in->columns = p->columns;
    static const char *const f[4] = {"x.mean", "y.mean", "x.cov", "y.cov"};
    for (int i = 0; i < 4; i++) {
        if (p->src_pos)
            snprintf(labels[i], 200, "pairs[%zu] (line %d).%s", p->src_pos - 1, p->line, f[i]);
        else if (p->name)
            snprintf(labels[i], 200, "%.160s.%s", p->name, f[i]);
        in->field[i] = p->src_pos || p->name ? labels[i] : f[i]; /* (f: a row family's pair
                                                                     taken without its name) */
    }
}

/* The exact decimal texts of a list (rows = 0: a vector of d numbers) or of a list of d rows
 * of d numbers, row-major, as one allocation: the pointers, then the texts that are not in
 * the doc already (a NUMS item's decimal is written out; a scalar's text is pointed to).
 * NULL when out of memory or (not after a successful parse) when an item has no text. */
static const char **list_texts(const ga_node *n, size_t d, int rows)
{
    size_t nr = rows ? d : 1, total = 0;
    char buf[GA_DEC_TEXT_MAX];
    for (size_t i = 0; i < nr; i++) { /* the written texts' bytes */
        const ga_node *row = rows ? n->kids[i] : n;
        if (row->kind != GA_NODE_NUMS)
            continue;
        for (size_t j = 0; j < d; j++) {
            const char *t = ga_node_item_text(row, j, buf);
            if (!t)
                return NULL;
            if (t == buf)
                total += strlen(t) + 1;
        }
    }
    const char **out = malloc(nr * d * sizeof *out + total);
    if (!out)
        return NULL;
    char *arena = (char *)(out + nr * d);
    for (size_t i = 0; i < nr; i++) {
        const ga_node *row = rows ? n->kids[i] : n;
        for (size_t j = 0; j < d; j++) {
            const char *t = ga_node_item_text(row, j, arena);
            if (!t) {
                free(out);
                return NULL;
            }
            out[i * d + j] = t;
            if (t == arena)
                arena += strlen(t) + 1;
        }
    }
    return out;
}

/* A kind's pair N(mean, sd^2) vs N(0, sd^2): the texts of mean, 0 and the exact decimal
 * sd^2 (written for the view), so the certified path reads the spec's numbers, not the
 * double of the double's square */
static int view_gaussian_texts(ga_spec_pair_view *v, ga_pair_text *txt, const ga_spec_pair *p)
{
    enum { VAR_MAX = 2 * GA_DEC_TEXT_MAX + 32 };
    size_t lm = strlen(p->sd_txt), ls = p->var_scale_txt ? strlen(p->var_scale_txt) : 0;
    size_t vmax = VAR_MAX + 2 * lm + ls;
    const char **t = malloc(4 * sizeof *t + 2 + 2 * vmax);
    if (!t)
        return GA_ENOMEM;
    char *zero = (char *)(t + 4), *var = zero + 2, *sq = var + vmax;
    strcpy(zero, "0");
    if (ga_decimal_mul_text(p->var_scale_txt ? sq : var, vmax, p->sd_txt, p->sd_txt) ||
        (p->var_scale_txt && ga_decimal_mul_text(var, vmax, sq, p->var_scale_txt))) {
        free(t);
        return GA_OK; /* (not plain decimals: the doubles stand, as for any pair) */
    }
    t[0] = p->mean_txt;
    t[1] = zero;
    t[2] = t[3] = var;
    v->owned[v->nowned++] = (void *)t;
    txt->mu_x = t;
    txt->mu_y = t + 1;
    txt->s_x = t + 2;
    txt->s_y = t + 3;
    return GA_OK;
}

static int view_one(ga_spec_pair_view *v, ga_pair_input *in, ga_pair_text *txt,
                    char labels[4][200], const ga_spec_pair *p, int text)
{
    ga_spec_pair_input(in, p, labels);
    memset(txt, 0, sizeof *txt);
    if (!text)
        return GA_OK;
    const ga_node *src[4] = {ga_spec_pair_src(p, 0), ga_spec_pair_src(p, 1),
                             ga_spec_pair_src(p, 2), ga_spec_pair_src(p, 3)};
    const char *const **dst[4] = {&txt->mu_x, &txt->mu_y, &txt->s_x, &txt->s_y};
    if (p->sd_txt && p->mean_txt && p->d == 1 && !p->nblocks)
        return view_gaussian_texts(v, txt, p);
    for (int w = 0; w < 4; w++) {
        if (!src[w])
            continue;
        const char **t = list_texts(src[w], p->d, w >= 2);
        if (!t)
            return GA_ENOMEM;
        v->owned[v->nowned++] = (void *)t;
        *dst[w] = t;
    }
    return GA_OK;
}

int ga_spec_pair_view_init(ga_spec_pair_view *v, const ga_spec_pair *p, int text)
{
    memset(v, 0, sizeof *v);
    size_t nb = p->nblocks ? p->nblocks : 1;
    if (text && !(v->owned = calloc(4 * nb, sizeof *v->owned)))
        return GA_ENOMEM;
    if (!p->nblocks) {
        v->n = 1;
        v->in = &v->in1;
        v->txt = &v->txt1;
        v->labels = &v->labels1;
    } else {
        v->in = calloc(p->nblocks, sizeof *v->in);
        v->txt = calloc(p->nblocks, sizeof *v->txt);
        v->labels = calloc(p->nblocks, sizeof *v->labels);
        if (!v->in || !v->txt || !v->labels) {
            ga_spec_pair_view_clear(v);
            return GA_ENOMEM;
        }
        v->n = p->nblocks;
    }
    for (size_t b = 0; b < v->n; b++)
        if (view_one(v, v->in + b, v->txt + b, v->labels[b], p->nblocks ? &p->blocks[b] : p,
                     text)) {
            ga_spec_pair_view_clear(v);
            return GA_ENOMEM;
        }
    return GA_OK;
}

void ga_spec_pair_view_clear(ga_spec_pair_view *v)
{
    if (v->in != &v->in1) {
        free(v->in);
        free(v->txt);
        free(v->labels);
    }
    for (size_t i = 0; i < v->nowned; i++)
        free(v->owned[i]);
    free(v->owned);
    memset(v, 0, sizeof *v);
}

/*
 * csv.c - a CSV file's table of numbers (RFC 4180: comma-separated decimals, quoted or not,
 * CRLF or LF), read in pieces twice and never held whole: the first pass counts the rows and
 * checks the shape, the values are then allocated, the second pass parses them and hashes the
 * bytes it parses (the SHA-256 recorded among the spec's inputs is that of the values' own
 * text). The second pass checks every record against the first's count and shape: a file
 * changed in between is an error or read whole as it now is, never a mixed table.
 *
 * On several threads (the --jobs of the command), a piece's complete records are read in
 * parallel when none of them holds a quote (numbers written by a program): they are split at
 * line breaks into chunks that are counted (first pass) or parsed into scratch (second pass)
 * while one thread hashes the piece, and the chunks are then taken in file order. A chunk
 * that meets anything else (a ragged row, a field that is not a number, more rows than the
 * first pass counted) hands the whole piece back to the serial reader, which stops at the
 * record at fault and names its line: the table and every message are the same for any
 * number of threads.
 */
#include "specs/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* is the (whitespace-stripped) line empty or a comment? */
static int blank_line(const char *t, const char *e)
{
    while (t < e && (*t == ' ' || *t == '\t' || *t == '\r'))
        t++;
    return t == e || *t == '#';
}

/* One pass's state. The file may change between the passes: a second pass that sees
 * another shape is an error. */
typedef struct {
    ctx_t *c;
    const ga_node *n;
    const char *path, *qfull;
    int header_seen;      /* (reset before each pass) */
    size_t rows, cols;    /* the first pass's count; the second checks against it */
    size_t lineno, r;
    ga_dataset *ds;       /* NULL in the first pass */
    ga_sha256 sha;        /* of the bytes of the second pass */
    char *buf;            /* the pieces' buffer, kept for both passes */
    size_t cap;
    int jobs;             /* threads (1: the serial reader alone) */
    double *scratch;      /* the second pass's parallel chunks' values, kept for both passes */
    size_t scap;
} csv_pass;

/* RFC 4180 fields. A field is quoted ("...", a quote inside written "") or not (no quote, no
 * comma, no line break); blanks around a field are allowed and dropped (spreadsheets do not
 * write them, people do). A quoted field may hold commas and line breaks, so a record may
 * span lines; its content is then handed to the decimal reader as it stands, which takes
 * numbers only. */

/* The field of [p, e) that starts at p: its content [*a, *z) (a quoted field's, without its
 * quotes). Returns where it ends (at its comma, or e); *bad = 1 when a quote is not closed or
 * text follows a closing quote. */
static const char *csv_field(const char *p, const char *e, const char **a, const char **z,
                             int *bad)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    if (p < e && *p == '"') {
        *a = ++p;
        while (p < e && (*p != '"' || (p + 1 < e && p[1] == '"')))
            p += *p == '"' ? 2 : 1;
        *z = p;
        if (p >= e) {
            *bad = 1;
            return e;
        }
        for (p++; p < e && (*p == ' ' || *p == '\t'); p++)
            ;
        if (p < e && *p != ',')
            *bad = 1;
        return p;
    }
    *a = p;
    while (p < e && *p != ',')
        p++;
    const char *end = p;
    while (end > *a && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    *z = end;
    return p;
}

/* The number of bytes c in [p, e), eight at a time: in x = word ^ (c in every byte) a byte
 * is zero exactly when adding 0x7f to its low seven bits and or-ing the byte leaves its top
 * bit clear (no carry crosses a byte); the top bits so found are summed by one multiply. A
 * row of a program's CSV holds a comma every few bytes, where a memchr per comma costs a
 * call each. */
static size_t count_byte(const char *p, const char *e, unsigned char c)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), low7 = UINT64_C(0x7F7F7F7F7F7F7F7F);
    size_t k = 0;
    for (; e - p >= 8; p += 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        x ^= ones * c;
        uint64_t top = ~(((x & low7) + low7) | x) & ~low7; /* 0x80 in each byte that was c */
        k += (size_t)(((top >> 7) * ones) >> 56);
    }
    for (; p < e; p++)
        k += (unsigned char)*p == c;
    return k;
}

/* the number of fields of the record [t, e) in *k; -1, or the index of a malformed field. A
 * record without a quote (the common case) is its commas plus one. */
static long csv_count(const char *t, const char *e, int quoted, size_t *k)
{
    const char *p = t, *a, *z;
    if (!quoted) {
        *k = 1 + count_byte(t, e, ',');
        return -1;
    }
    for (*k = 0;; p++) {
        int bad = 0;
        p = csv_field(p, e, &a, &z, &bad);
        if (bad)
            return (long)*k;
        ++*k;
        if (p >= e)
            return -1;
    }
}

/* the '\n' that ends the record starting at t (not one inside quotes), or NULL when [t, end)
 * holds no complete record. A line without a quote ends at its '\n' (memchr's speed); the
 * quotes are followed only from a line that has one. */
static char *record_end(char *t, char *end)
{
    char *nl = memchr(t, '\n', (size_t)(end - t));
    if (!memchr(t, '"', (size_t)((nl ? nl : end) - t)))
        return nl;
    int in = 0, start = 1; /* inside quotes; at a field's start (blanks allowed) */
    for (char *p = t; p < end; p++) {
        char ch = *p;
        if (in) {
            if (ch == '"' && p + 1 < end && p[1] == '"')
                p++;
            else if (ch == '"')
                in = 0;
        } else if (ch == '\n')
            return p;
        else if (ch == '"' && start)
            in = 1;
        else if (ch == ',')
            start = 1;
        else if (ch != ' ' && ch != '\t')
            start = 0;
    }
    return NULL;
}

/* The values of the cols fields of the record [t, e) into x[0, cols) (RFC 4180 fields; an
 * unquoted record must have exactly cols, a quoted one was counted before): -1, -2 when an
 * unquoted record has fewer or more fields, or the index of the first field that is not a
 * number, its content [*fa, *fz) */
#define ROW_SHAPE (-2L)
static long row_values(double *x, const char *t, const char *e, size_t cols, int quoted,
                       const char **fa, const char **fz)
{
    const char *p = t;
    for (size_t j = 0; j < cols; j++, p++) {
        int unused = 0;
        p = csv_field(p, e, fa, fz, &unused);
        if (!quoted && (j + 1 < cols ? p >= e : p < e))
            return ROW_SHAPE; /* (fewer fields than counted, or more) */
        if (ga_decimal_to_double_n(&x[j], *fa, (size_t)(*fz - *fa)))
            return (long)j;
    }
    return -1;
}

static int csv_changed(csv_pass *q)
{
    return sp_fail(q->c, q->n, q->path, "%s: the file changed while it was read (line %zu)",
                   q->qfull, q->lineno);
}

/* one record t[0, e) (its '\n' excluded; a CRLF's '\r' dropped): counted, or parsed into
 * ds->x. GA_OK, or the failure's status with its message */
static int csv_line(csv_pass *q, char *t, char *e)
{
    ctx_t *c = q->c;
    size_t first = ++q->lineno, k = 0;
    int quoted = memchr(t, '"', (size_t)(e - t)) != NULL;
    for (const char *p = t; quoted && p < e; p++)
        q->lineno += *p == '\n'; /* (a record whose quoted field holds line breaks) */
    if (e > t && e[-1] == '\r')
        e--;
    if (blank_line(t, e))
        return GA_OK;
    if (!q->header_seen) { /* the first non-empty record is the header */
        q->header_seen = 1;
        return GA_OK;
    }
    /* every record is counted in the first pass; in the second (the values), a quoted record
     * is counted first, an unquoted one (the common case, the hot path) only on the way to an
     * error: a record changed in between is told as such first either way */
    long bad = quoted || !q->ds ? csv_count(t, e, quoted, &k) : -1;
    if (bad >= 0)
        return sp_fail(c, q->n, q->path, "%s:%zu: field %ld: a quote is not closed, or text "
                       "follows a closing quote (RFC 4180: a quoted field is \"...\" with \"\" "
                       "for a quote inside)", q->qfull, first, bad + 1);
    if (!q->ds) {
        if (q->cols == 0)
            q->cols = k;
        else if (k != q->cols)
            return sp_fail(c, q->n, q->path, "%s:%zu: row has %zu fields, expected %zu (ragged CSV)",
                           q->qfull, first, k, q->cols);
        if (++q->rows > GA_SPEC_MAX_ROWS || q->cols > GA_SPEC_MAX_COLS)
            return sp_fail(c, q->n, q->path, "%s: more than %d rows or %d columns (caps)", q->qfull,
                           GA_SPEC_MAX_ROWS, GA_SPEC_MAX_COLS);
        return GA_OK;
    }
    if (q->r == q->rows || (quoted && k != q->cols))
        return csv_changed(q);
    const char *a, *z;
    long j = row_values(q->ds->x + q->r * q->cols, t, e, q->cols, quoted, &a, &z);
    if (j == ROW_SHAPE)
        return csv_changed(q);
    if (j >= 0) {
        char tok[64], field[64];
        if (!quoted && (csv_count(t, e, 0, &k), k != q->cols))
            return csv_changed(q);
        snprintf(field, sizeof field, "%.*s", (int)(z - a < 48 ? z - a : 48), a);
        ga_quote_token(tok, sizeof tok, field, 24);
        return sp_fail(c, q->n, q->path, "%s:%zu: field %ld ('%s') is not a finite decimal number",
                       q->qfull, first, j + 1, tok);
    }
    q->r++;
    return GA_OK;
}

/* ------------------------------------------------------- parallel pieces */

/* a piece is split into up to four chunks per thread (the threads take them as they come:
 * chunks of rows of unequal lengths still keep every thread busy), up to this many */
#define CSV_MAX_CHUNKS 64

/* A chunk of a piece: whole records, the last ending in '\n', none holding a quote. */
typedef struct {
    const char *a, *z;
    size_t lines;      /* records (each one line) */
    size_t rows, cols; /* rows that are not blank or comments; fields per row (first pass) */
    double *out;       /* second pass: rows * q->cols values */
    size_t room;       /* values out holds */
    int odd;           /* anything but rows of one shape that parse: read serially */
} csv_chunk;

typedef struct {
    csv_pass *q;
    csv_chunk *ch;
    size_t first;      /* 1 when item 0 hashes the piece's new bytes (the second pass), else 0 */
    const char *fresh;
    size_t nfresh;
} csv_par;

/* One pass over a chunk (the serial reader's rules): the first counts its lines, rows and
 * fields per row; the second (parse) reads the values of its rows of cols fields into out */
static void chunk_pass(csv_chunk *k, int parse, size_t cols)
{
    double *x = k->out;
    for (const char *t = k->a, *nl; t < k->z; t = nl + 1) {
        nl = memchr(t, '\n', (size_t)(k->z - t));
        const char *e = nl > t && nl[-1] == '\r' ? nl - 1 : nl, *a, *z;
        k->lines++;
        if (blank_line(t, e))
            continue;
        if (parse) {
            if ((k->rows + 1) * cols > k->room || row_values(x, t, e, cols, 0, &a, &z) != -1) {
                k->odd = 1;
                return;
            }
            x += cols;
        } else {
            size_t f;
            csv_count(t, e, 0, &f);
            if (k->rows && f != k->cols) {
                k->odd = 1;
                return;
            }
            k->cols = f;
        }
        k->rows++;
    }
}

static void par_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    csv_par *p = ctx;
    if (i < p->first)
        ga_sha256_update(&p->q->sha, p->fresh, p->nfresh);
    else
        chunk_pass(&p->ch[i - p->first], p->q->ds != NULL, p->q->cols);
}

/* The first pass's chunks taken in order: GA_OK, or GA_EDOM when the piece is the serial
 * reader's (another shape, a cap reached: it names the line) */
static int merge_counts(csv_pass *q, const csv_chunk *ch, size_t nch)
{
    size_t rows = q->rows, cols = q->cols, lines = 0;
    for (size_t i = 0; i < nch; i++) {
        if (ch[i].odd)
            return GA_EDOM;
        lines += ch[i].lines;
        if (!ch[i].rows)
            continue;
        if (cols && ch[i].cols != cols)
            return GA_EDOM;
        cols = ch[i].cols;
        rows += ch[i].rows;
    }
    if (rows > GA_SPEC_MAX_ROWS || cols > GA_SPEC_MAX_COLS)
        return GA_EDOM;
    q->rows = rows;
    q->cols = cols;
    q->lineno += lines;
    return GA_OK;
}

/* The second pass's chunks copied in order: GA_OK, or GA_EDOM (more rows than the first
 * pass counted: the serial reader tells the file changed, at its line) */
static int merge_values(csv_pass *q, const csv_chunk *ch, size_t nch)
{
    size_t r = q->r;
    for (size_t i = 0; i < nch; i++) {
        if (ch[i].odd || (r += ch[i].rows) > q->rows)
            return GA_EDOM;
    }
    for (size_t i = 0; i < nch; i++) {
        memcpy(q->ds->x + q->r * q->cols, ch[i].out, ch[i].rows * q->cols * sizeof(double));
        q->r += ch[i].rows;
        q->lineno += ch[i].lines;
    }
    return GA_OK;
}

/* The complete records of [t, end) read on the threads, in the second pass the new bytes
 * fresh[0, nfresh) hashed beside them (*hashed = 1). Returns where the serial reader goes
 * on: t itself when the records are its own (a quote among them, too few for the threads, no
 * memory for the chunks, or a chunk that met a record it must tell about). */
static char *csv_par_read(csv_pass *q, char *t, char *end, const char *fresh, size_t nfresh,
                          int *hashed)
{
    char *last = end;
    while (last > t && last[-1] != '\n')
        last--;
    size_t len = (size_t)(last - t), least = ga_file_piece() / 16, nch;
    least = least < 1 ? 1 : least > (1 << 16) ? (1 << 16) : least;
    nch = 4 * (size_t)q->jobs < CSV_MAX_CHUNKS ? 4 * (size_t)q->jobs : CSV_MAX_CHUNKS;
    if (len / least < nch)
        nch = len / least;
    if (nch < 2 || memchr(t, '"', len))
        return t;
    csv_chunk ch[CSV_MAX_CHUNKS];
    memset(ch, 0, nch * sizeof *ch);
    if (q->ds && q->scap < len / 2 + nch) {
        double *s = realloc(q->scratch, (len / 2 + nch) * sizeof *s);
        if (!s)
            return t;
        q->scratch = s;
        q->scap = len / 2 + nch;
    }
    /* nch chunks of about len / nch bytes each, each ending at a line break; a value takes
     * at least two bytes (a digit and its comma or line break): a chunk of b bytes holds at
     * most b / 2 of them, and the chunks' rooms add up to the scratch's */
    double *out = q->scratch;
    for (size_t i = 0; i < nch; i++) {
        const char *a = i ? ch[i - 1].z : t, *from = t + (i + 1) * (len / nch);
        if (i + 1 == nch)
            from = last - 1;
        if (from < a)
            from = a;
        ch[i].a = a;
        ch[i].z = a == last ? last : (const char *)memchr(from, '\n', (size_t)(last - from)) + 1;
        ch[i].out = out;
        ch[i].room = (size_t)(ch[i].z - a) / 2 + 1;
        out += q->ds ? ch[i].room : 0;
    }
    size_t busy = 0; /* (chunks holding a record: one alone is the serial reader's) */
    for (size_t i = 0; i < nch; i++)
        busy += ch[i].z > ch[i].a;
    if (busy < 2)
        return t;
    csv_par p = {.q = q, .ch = ch, .first = q->ds != NULL, .fresh = fresh, .nfresh = nfresh};
    ga_par_for(nch + p.first, q->jobs, 0, par_item, &p, NULL, NULL);
    *hashed = 1;
    int rc = q->ds ? merge_values(q, ch, nch) : merge_counts(q, ch, nch);
    return rc ? t : last;
}

/* one pass over the file from its first byte, line by line. GA_OK or a failure's status */
static int csv_pass_run(csv_pass *q, ga_file *f, int header)
{
    const size_t piece = ga_file_piece();
    size_t have = 0, got;
    char why[600];
    int rc;
    q->header_seen = !header;
    q->lineno = q->r = 0;
    ga_sha256_init(&q->sha);
    if ((rc = ga_file_rewind(f, why, sizeof why)))
        goto failed;
    do {
        if (!q->buf || q->cap - have - 1 < piece) { /* (a line longer than a piece: under the
                                                        line cap) */
            char *nb = realloc(q->buf, have + piece + 1);
            if (!nb) {
                sp_fail(q->c, q->n, q->path, "%s: out of memory", q->qfull);
                return GA_ENOMEM;
            }
            q->buf = nb;
            q->cap = have + piece + 1;
            ga_mem_prefault(nb, q->cap); /* (read into whole: its pages faulted at once) */
        }
        char *buf = q->buf;
        size_t cap = q->cap;
        if ((rc = ga_file_read(f, buf + have, cap - have - 1, &got, why, sizeof why)))
            goto failed;
        if (memchr(buf + have, 0, got))
            return sp_fail(q->c, q->n, q->path, "%s: contains a NUL byte (not a text CSV file)",
                           q->qfull);
        char *t = buf, *end = buf + have + got, *e;
        int hashed = 0, tried = q->jobs < 2;
        while (t < end) {
            if (!tried && q->header_seen) { /* (past the header: one try per piece) */
                tried = 1;
                if ((t = csv_par_read(q, t, end, buf + have, got, &hashed)) >= end)
                    break;
            }
            e = record_end(t, end);
            if (!e && got)
                break; /* a record not yet complete: kept for the next piece */
            if (!e)
                e = end; /* the last record, without a line break */
            if ((rc = csv_line(q, t, e)))
                return rc;
            t = e + 1;
        }
        if (q->ds && !hashed)
            ga_sha256_update(&q->sha, buf + have, got);
        have = t < end ? (size_t)(end - t) : 0;
        memmove(buf, t < end ? t : end, have);
    } while (got);
    return GA_OK;
failed:
    sp_fail(q->c, q->n, q->path, "%s", why);
    return rc == GA_ENOMEM ? GA_ENOMEM : GA_EINVAL;
}


int sp_csv_read(ctx_t *c, const ga_node *n, const char *path, const char *qfull, ga_file *f,
                int header, ga_dataset *ds, char sha[65])
{
    csv_pass q = {.c = c, .n = n, .path = path, .qfull = qfull,
                  .jobs = c->opts ? ga_par_jobs(c->opts->jobs) : 1};
    int rc;
    if ((rc = csv_pass_run(&q, f, header)))
        goto cleanup;
    if (q.rows == 0) {
        rc = sp_fail(c, n, path, "%s: no data rows (empty dataset)", qfull);
        goto cleanup;
    }
    if ((double)q.rows * (double)q.cols * sizeof(double) > 8.0 * (1 << 30)) {
        rc = sp_fail(c, n, path, "%s: %zu x %zu values need more than the 8 GiB cap", qfull, q.rows,
                     q.cols);
        goto cleanup;
    }
    ds->x = malloc(q.rows * q.cols * sizeof *ds->x);
    if (!ds->x) {
        rc = sp_fail(c, n, path, "%s: %zu x %zu values do not fit in memory", qfull, q.rows, q.cols);
        goto cleanup;
    }
    ga_mem_prefault(ds->x, q.rows * q.cols * sizeof *ds->x); /* (written in full below) */
    q.ds = ds;
    if ((rc = csv_pass_run(&q, f, header)))
        goto cleanup;
    ga_sha256_final(&q.sha, sha);
    if (q.r != q.rows) {
        rc = sp_fail(c, n, path, "%s: the file changed while it was read (fewer rows)", qfull);
        goto cleanup;
    }
    ds->n = q.rows;
    ds->d = q.cols;
cleanup:
    free(q.buf);
    free(q.scratch);
    return rc;
}

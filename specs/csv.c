/*
 * csv.c - a CSV file's table of numbers (RFC 4180: comma-separated decimals, quoted or not,
 * CRLF or LF), read once, in pieces (the text is never held whole): each record is checked
 * (its fields, their count against the first row's) and parsed into the values as it
 * arrives, and the bytes read are hashed (the SHA-256 recorded among the spec's inputs is
 * that of the values' own text). The values' array is sized from the file's size and the
 * bytes per value read so far, grown when a file's later rows are denser, its pages faulted
 * in on the threads as it grows, and trimmed to the table at the end. A file whose size or
 * modification time changed while it was read is an error: the table is the text hashed,
 * read from one version of the file.
 *
 * On several threads (the --jobs of the command), once the first row has set the number of
 * columns, a piece's complete records are read in parallel when none of them holds a quote
 * (numbers written by a program): they are split at line breaks into chunks that are parsed
 * into scratch while one thread hashes the piece, and the chunks are then taken in file
 * order. A chunk that meets anything else (a ragged row, a field that is not a number, a cap
 * reached) hands the whole piece back to the serial reader, which stops at the record at
 * fault and names its line: the table and every message are the same for any number of
 * threads.
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

/* The reader's state */
typedef struct {
    ctx_t *c;
    const ga_node *n;
    const char *path, *qfull;
    ga_file *f;
    int header_seen;
    size_t rows, cols;    /* rows read (their values in x); fields per row (0: no row yet) */
    int pm1;              /* a row's last value is -1 (ga_dataset.labels_pm1) */
    size_t lineno;
    size_t used;          /* bytes of the records read (the room's estimate) */
    double *x;            /* the values, room for xcap, the first `faulted` faulted in */
    size_t xcap, faulted;
    ga_sha256 sha;        /* of the bytes read */
    char *buf[2];         /* the pieces' buffers: the piece being read, the next one */
    size_t cap[2];
    int jobs;             /* threads (1: the serial reader alone) */
    double *scratch;      /* the parallel chunks' values */
    size_t scap;
} csv_reader;

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

/* the caps on the rows and columns read so far (after the row being read): the message */
static int csv_caps(csv_reader *q)
{
    return sp_fail(q->c, q->n, q->path, "%s: more than %d rows or %d columns (caps)", q->qfull,
                   GA_SPEC_MAX_ROWS, GA_SPEC_MAX_COLS);
}

/* the values' most room under the caps: 8 GiB of values, GA_SPEC_MAX_ROWS rows */
static size_t csv_most(const csv_reader *q)
{
    size_t most = ((size_t)8 << 30) / sizeof(double);
    return q->cols && most / q->cols > GA_SPEC_MAX_ROWS ? (size_t)GA_SPEC_MAX_ROWS * q->cols
                                                        : most;
}

/* values faulted in ahead of the rows read, at least (32 MiB) */
#define CSV_AHEAD ((size_t)4 << 20)
/* the records' bytes the room's estimate rests on, at least (fewer: the first rows) */
#define CSV_EST_BYTES ((size_t)1 << 20)

/* Room in x for `need` values (need <= csv_most). Once CSV_EST_BYTES of records are read, the
 * room is the file's size times the values per byte so far, a 32nd more; until then, and when
 * that is less (a file denser further on, or grown), half as much again as it was (at least
 * 4096 values); `need` alone when that much address space cannot be had. Its pages are
 * faulted in on the threads (they are written in full as the rows arrive) in steps ahead of
 * the rows: as many values again as the rows hold, at least CSV_AHEAD, so that a room
 * estimated from a misleading start commits no more memory than the rows use. GA_OK, or
 * GA_ENOMEM (x, xcap as they were). */
static int csv_room(csv_reader *q, size_t need)
{
    if (need > q->xcap) {
        size_t most = csv_most(q), room = q->xcap + q->xcap / 2;
        room = room < 4096 ? 4096 : room;
        if (q->used >= CSV_EST_BYTES && q->f->size > q->used) {
            double est = (double)need * ((double)q->f->size / (double)q->used) * (1 + 1.0 / 32);
            if (est > (double)room)
                room = est < (double)most ? (size_t)est : most;
        }
        room = room < need ? need : room > most ? most : room;
        double *x = realloc(q->x, room * sizeof *x);
        if (!x && room > need)
            x = realloc(q->x, (room = need) * sizeof *x);
        if (!x)
            return GA_ENOMEM;
        q->x = x;
        q->xcap = room;
    }
    if (need > q->faulted) {
        size_t to = need + (need > CSV_AHEAD ? need : CSV_AHEAD);
        to = to < q->xcap ? to : q->xcap;
        ga_par_prefault(q->x + q->faulted, (to - q->faulted) * sizeof *q->x, q->jobs);
        q->faulted = to;
    }
    return GA_OK;
}

/* Room for `more` rows of values more, under the caps: GA_OK, or a failure's status with its
 * message */
static int csv_row_room(csv_reader *q, size_t more)
{
    if (q->rows + more > GA_SPEC_MAX_ROWS)
        return csv_caps(q);
    size_t need = (q->rows + more) * q->cols;
    if (need > csv_most(q))
        return sp_fail(q->c, q->n, q->path, "%s: %zu x %zu values need more than the 8 GiB cap",
                       q->qfull, q->rows + more, q->cols);
    if (csv_room(q, need))
        return sp_fail(q->c, q->n, q->path, "%s: %zu x %zu values do not fit in memory",
                       q->qfull, q->rows + more, q->cols), GA_ENOMEM;
    return GA_OK;
}

/* the record [t, e) has k fields where the table has cols: the message */
static int csv_ragged(csv_reader *q, size_t line, size_t k)
{
    return sp_fail(q->c, q->n, q->path, "%s:%zu: row has %zu fields, expected %zu (ragged CSV)",
                   q->qfull, line, k, q->cols);
}

/* one record t[0, e) (its '\n' excluded; a CRLF's '\r' dropped): checked and parsed into the
 * values. GA_OK, or the failure's status with its message */
static int csv_line(csv_reader *q, char *t, char *e)
{
    ctx_t *c = q->c;
    size_t first = ++q->lineno, k = 0;
    int quoted = memchr(t, '"', (size_t)(e - t)) != NULL, rc;
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
    /* a quoted record, and the first row, are counted first; an unquoted one (the common
     * case, the hot path) only on the way to an error: a ragged row is told as such before
     * a field of it that is not a number */
    long bad = quoted || !q->cols ? csv_count(t, e, quoted, &k) : -1;
    if (bad >= 0)
        return sp_fail(c, q->n, q->path, "%s:%zu: field %ld: a quote is not closed, or text "
                       "follows a closing quote (RFC 4180: a quoted field is \"...\" with \"\" "
                       "for a quote inside)", q->qfull, first, bad + 1);
    if (!q->cols && k > GA_SPEC_MAX_COLS)
        return csv_caps(q);
    if (!q->cols)
        q->cols = k;
    else if (quoted && k != q->cols)
        return csv_ragged(q, first, k);
    if ((rc = csv_row_room(q, 1)))
        return rc;
    const char *a, *z;
    long j = row_values(q->x + q->rows * q->cols, t, e, q->cols, quoted, &a, &z);
    if (j == ROW_SHAPE || (j >= 0 && !quoted && (csv_count(t, e, 0, &k), k != q->cols))) {
        csv_count(t, e, 0, &k);
        return csv_ragged(q, first, k);
    }
    if (j >= 0) {
        char tok[64], field[64];
        snprintf(field, sizeof field, "%.*s", (int)(z - a < 48 ? z - a : 48), a);
        ga_quote_token(tok, sizeof tok, field, 24);
        return sp_fail(c, q->n, q->path, "%s:%zu: field %ld ('%s') is not a finite decimal number",
                       q->qfull, first, j + 1, tok);
    }
    q->pm1 |= q->x[q->rows * q->cols + q->cols - 1] == -1;
    q->rows++;
    return GA_OK;
}

/* Buffer b with room for have bytes kept and a piece read after them (and a NUL): GA_OK or
 * GA_ENOMEM (no message; the buffer as it was) */
static int csv_buffer(csv_reader *q, int b, size_t have)
{
    const size_t piece = ga_file_piece() * (q->jobs > 1 ? 4 : 1);
    if (q->buf[b] && q->cap[b] - have - 1 >= piece)
        return GA_OK;
    char *nb = realloc(q->buf[b], have + piece + 1); /* (a line longer than a piece: under
                                                        the line cap) */
    if (!nb)
        return GA_ENOMEM;
    q->buf[b] = nb;
    q->cap[b] = have + piece + 1;
    ga_par_prefault(nb, q->cap[b], q->jobs); /* (read into whole: its pages faulted at once) */
    return GA_OK;
}

/* The have bytes at tail (NULL: none) moved to the front of buffer b (csv_buffer gave it the
 * room) and up to a piece of the file read after them (*got bytes, 0 at the end), refused
 * when they hold a NUL byte: GA_OK, or a failure's status with its message in why */
static int csv_fill(csv_reader *q, int b, const char *tail, size_t have, size_t *got, char *why,
                    size_t whylen)
{
    char *buf = q->buf[b];
    if (have)
        memmove(buf, tail, have);
    int rc = ga_file_read(q->f, buf + have, q->cap[b] - have - 1, got, why, whylen);
    if (rc == GA_OK && memchr(buf + have, 0, *got)) {
        ga_msg(why, whylen, "%s: contains a NUL byte (not a text CSV file)", q->qfull);
        rc = GA_EINVAL;
    }
    return rc;
}

/* ------------------------------------------------------- parallel pieces */

/* a piece is split into up to four chunks per thread (the threads take them as they come:
 * chunks of rows of unequal lengths still keep every thread busy), up to this many */
#define CSV_MAX_CHUNKS 64

/* A chunk of a piece: whole records, the last ending in '\n', none holding a quote. */
typedef struct {
    const char *a, *z;
    size_t lines;      /* records (each one line) */
    size_t rows;       /* rows that are not blank or comments, parsed into out */
    double *out;       /* rows * q->cols values */
    size_t room;       /* values out holds */
    int pm1;           /* a row's last value is -1 */
    int odd;           /* anything but rows of cols numbers: read serially */
} csv_chunk;

/* The next piece, read beside a piece's records: the tail of the piece (a record not yet
 * complete) copied to the front of the other buffer, the file's next bytes read after it */
typedef struct {
    int read;          /* 1 when it was read (rc, got) */
    int into;          /* the buffer */
    const char *tail;  /* the tail [tail, tail + have) */
    size_t have, got;
    int rc;
    char why[600];
} csv_next;

typedef struct {
    csv_reader *q;
    csv_chunk *ch;
    const char *fresh; /* item 0 hashes the piece's new bytes */
    size_t nfresh;
    csv_next *next;    /* item 1 reads the next piece (NULL: none, the chunks from item 1) */
} csv_par;

/* A chunk's rows of cols fields parsed into its out (the serial reader's rules) */
static void chunk_pass(csv_chunk *k, size_t cols)
{
    double *x = k->out;
    for (const char *t = k->a, *nl; t < k->z; t = nl + 1) {
        nl = memchr(t, '\n', (size_t)(k->z - t));
        const char *e = nl > t && nl[-1] == '\r' ? nl - 1 : nl, *a, *z;
        k->lines++;
        if (blank_line(t, e))
            continue;
        if ((k->rows + 1) * cols > k->room || row_values(x, t, e, cols, 0, &a, &z) != -1) {
            k->odd = 1;
            return;
        }
        k->pm1 |= x[cols - 1] == -1; /* (while the row is at hand) */
        x += cols;
        k->rows++;
    }
}

static void par_item(void *ctx, size_t i, ga_gchisq_work *w)
{
    (void)w;
    csv_par *p = ctx;
    csv_next *x = p->next;
    if (i == 0)
        ga_sha256_update(&p->q->sha, p->fresh, p->nfresh);
    else if (i == 1 && x)
        x->rc = csv_fill(p->q, x->into, x->tail, x->have, &x->got, x->why, sizeof x->why);
    else
        chunk_pass(&p->ch[i - 1 - (x != NULL)], p->q->cols);
}

/* The chunks' rows copied in order: GA_OK, or GA_EDOM (a chunk the serial reader must read,
 * a cap reached, no room: it names the line) */
static int merge_values(csv_reader *q, const csv_chunk *ch, size_t nch)
{
    size_t rows = 0;
    for (size_t i = 0; i < nch; i++) {
        if (ch[i].odd)
            return GA_EDOM;
        rows += ch[i].rows;
    }
    if (q->rows + rows > GA_SPEC_MAX_ROWS || (q->rows + rows) * q->cols > csv_most(q) ||
        csv_room(q, (q->rows + rows) * q->cols))
        return GA_EDOM;
    for (size_t i = 0; i < nch; i++) {
        memcpy(q->x + q->rows * q->cols, ch[i].out, ch[i].rows * q->cols * sizeof(double));
        q->rows += ch[i].rows;
        q->lineno += ch[i].lines;
        q->pm1 |= ch[i].pm1;
    }
    return GA_OK;
}

/* The complete records of [t, end) (a piece in buffer b, not the file's last) read on the
 * threads, the new bytes fresh[0, nfresh) hashed beside them (*hashed = 1) and the next piece
 * read into the other buffer (*next, when there is room for it: next->read). Returns where
 * the serial reader goes on: t itself when the records are its own (a quote among them, too
 * few for the threads, no memory for the chunks, or a chunk that met a record it must tell
 * about); it stops where the next piece's tail starts. */
static char *csv_par_read(csv_reader *q, int b, char *t, char *end, const char *fresh,
                          size_t nfresh, int *hashed, csv_next *next)
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
    if (q->scap < len / 2 + nch) {
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
        out += ch[i].room;
    }
    size_t busy = 0; /* (chunks holding a record: one alone is the serial reader's) */
    for (size_t i = 0; i < nch; i++)
        busy += ch[i].z > ch[i].a;
    if (busy < 2)
        return t;
    *next = (csv_next){.into = !b, .tail = last, .have = (size_t)(end - last)};
    next->read = csv_buffer(q, !b, next->have) == GA_OK;
    csv_par p = {.q = q, .ch = ch, .fresh = fresh, .nfresh = nfresh,
                 .next = next->read ? next : NULL};
    ga_par_for(nch + 1 + (size_t)next->read, q->jobs, 0, par_item, &p, NULL, NULL);
    *hashed = 1;
    q->used += len; /* (the room's estimate counts the records' bytes with their values) */
    if (merge_values(q, ch, nch) == GA_OK)
        return last;
    q->used -= len;
    return t;
}

/* The file from its first byte, record by record: on several threads, each piece's records
 * are read while the next piece is read into the other buffer. GA_OK or a failure's status */
static int csv_read_all(csv_reader *q)
{
    size_t have = 0, got = 0;
    char why[600];
    int rc, b = 0;
    csv_next next = {.read = 0};
    ga_sha256_init(&q->sha);
    for (;;) {
        /* the piece: read beside the last one's records, or now after its tail */
        if (next.read) {
            if ((rc = next.rc)) {
                snprintf(why, sizeof why, "%s", next.why);
                goto failed;
            }
            b = next.into;
            got = next.got;
        } else {
            if (csv_buffer(q, b, have)) {
                sp_fail(q->c, q->n, q->path, "%s: out of memory", q->qfull);
                return GA_ENOMEM;
            }
            if ((rc = csv_fill(q, b, q->buf[b], have, &got, why, sizeof why)))
                goto failed;
        }
        char *buf = q->buf[b], *t = buf, *end = buf + have + got, *e;
        int hashed = 0, tried = q->jobs < 2 || got == 0;
        next = (csv_next){.read = 0};
        while (t < end) {
            if (!tried && q->cols) { /* (past the first row: one try per piece) */
                tried = 1;
                if ((t = csv_par_read(q, b, t, end, buf + have, got, &hashed, &next)) >= end)
                    break;
            }
            e = record_end(t, end);
            if (!e && got)
                break; /* a record not yet complete: kept for the next piece */
            if (!e)
                e = end; /* the last record, without a line break */
            q->used += (size_t)(e - t) + 1;
            if ((rc = csv_line(q, t, e)))
                return rc;
            t = e + 1;
        }
        if (!hashed)
            ga_sha256_update(&q->sha, buf + have, got);
        if (!got)
            break;
        have = t < end ? (size_t)(end - t) : 0;
        if (next.read && next.tail != t) { /* (the next piece's tail is where they stopped) */
            ga_msg(why, sizeof why, "%s: internal error: the next piece does not follow the "
                   "records read", q->qfull);
            rc = GA_EINVAL;
            goto failed;
        }
        if (!next.read)
            memmove(buf, t, have); /* (kept at the front for the next piece) */
    }
    if ((rc = ga_file_changed(q->f, why, sizeof why)))
        goto failed;
    return GA_OK;
failed:
    sp_fail(q->c, q->n, q->path, "%s", why);
    return rc == GA_ENOMEM ? GA_ENOMEM : GA_EINVAL;
}


int sp_csv_read(ctx_t *c, const ga_node *n, const char *path, const char *qfull, ga_file *f,
                int header, ga_dataset *ds, char sha[65])
{
    csv_reader q = {.c = c, .n = n, .path = path, .qfull = qfull, .f = f,
                    .header_seen = !header, .jobs = c->opts ? ga_par_jobs(c->opts->jobs) : 1};
    int rc;
    if ((rc = csv_read_all(&q)))
        goto cleanup;
    if (q.rows == 0) {
        rc = sp_fail(c, n, path, "%s: no data rows (empty dataset)", qfull);
        goto cleanup;
    }
    ga_sha256_final(&q.sha, sha);
    if (q.xcap > q.rows * q.cols) { /* (the room left over given back) */
        double *x = realloc(q.x, q.rows * q.cols * sizeof *x);
        q.x = x ? x : q.x;
    }
    ds->x = q.x;
    q.x = NULL;
    ds->n = q.rows;
    ds->d = q.cols;
    ds->labels_pm1 = q.pm1;
cleanup:
    free(q.x);
    free(q.buf[0]);
    free(q.buf[1]);
    free(q.scratch);
    return rc;
}

/*
 * test_doc.c - reading documents (specs/doc.c and its one-pass reading, specs/doc_pass.c;
 * the one number reader's compact decimals in base/decimal.c; the spec digest in
 * specs/sha256.c).
 *
 * The fast reading of numeric lists and of small flow collections of them must never change
 * a tree: every example and paper spec, and seeded random documents that put lists and
 * collections where the one-pass reader cannot tell what they are (strings, comments, block
 * scalars, mapping keys, several lines, Unicode before them), are parsed with the fast
 * reading for every list (nums_min 1), at the default threshold (short lists as the pass's
 * scalars) and without it, and read from files in pieces on one thread and on two (read and
 * parsed apart); the trees are compared node by node: kinds, positions, texts, and for a
 * NUMS item its double and the exact value of its decimal against the scalar's text. The
 * compact decimals are checked against an independent normal form of the text (digits and
 * exponent), and the SHA-256 with the processor's instructions against the portable code and
 * FIPS vectors.
 */
#include "numerics/numerics.h"
#include "specs/doc.h"
#include "specs/readfile.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_decimal(const char *text)
{
    double v = 0, w = 0;
    ga_dec dec;
    int s1 = ga_decimal_scan(&v, &dec, text, strlen(text));
    int s2 = ga_decimal_to_double(&w, text);
    cr_assert_eq(s1, s2, "'%s': scan status %d, the one reader %d", text, s1, s2);
    if (s1)
        return;
    cr_assert(memcmp(&v, &w, sizeof v) == 0, "'%s': scan %a, the one reader %a", text, v, w);
    /* both take Clinger's exact fast path where they can: the reference is glibc's strtod,
     * correctly rounded for every decimal, bit for bit (the sign of zero too) */
    double ref = strtod(text, NULL);
    cr_assert(memcmp(&v, &ref, sizeof v) == 0, "'%s': the one reader %a, strtod %a", text, v, ref);
    if (dec.e == GA_DEC_LONG) {
        char t[64];
        ga_test_decimal_normal(t, sizeof t, text);
        /* only decimals of more than 19 significant digits, or whose double is too coarse
         * (subnormal), need their text */
        const char *e = strchr(t, 'e');
        long sig = e ? (long)(e - t) - 2 - (t[0] == '-') : 0;
        cr_assert(sig > 19 || fabs(v) < 1e-290, "'%s' kept as text (%s)", text, t);
        return;
    }
    char buf[GA_DEC_TEXT_MAX], a[1300], b[1300];
    ga_decimal_text(buf, v, dec);
    cr_assert(ga_decimal_syntax(buf), "'%s' -> '%s' is not a plain decimal", text, buf);
    ga_test_decimal_normal(a, sizeof a, text);
    ga_test_decimal_normal(b, sizeof b, buf);
    /* (the sign of zero is the double's) */
    cr_assert(!strcmp(a, b) || (!strcmp(a, "0") && !strcmp(b + (b[0] == '-'), "0")),
              "'%s' (%s) came back as '%s' (%s)", text, a, buf, b);
}

/* the one reader against strtod, the compact form against the text; the fast path of the
 * reader (at most 2^53 and 10^+-22: one exact IEEE operation) is hit by most cases below */
Test(doc, compact_decimals_are_exact)
{
    static const char *const edge[] = {
        "0", "-0", "0.000", "+0.0e5", "1", "-1", "1500", "1.50", ".5", "5.", "1e22", "1e23",
        "9007199254740993", "9999999999999999999", "99999999999999999999", "18446744073709551615",
        "0.1", "0.30000000000000004", "1.7976931348623157e308", "1.8e308", "2.2250738585072014e-308",
        "4.9406564584124654e-324", "4.9e-324", "5e-324", "2e-324", "1e-400", "1e400",
        "0.0000000000000000000000000000001", "123456789012345678.9", "1234567890123456789e-300",
        "1e", "e5", "1.2.3", "--1", "", "+", ".", "0x10", "inf", "nan", "1e+05", "1E-05",
        "100000000000000000000000000000000000000000000e-40", "3.141592653589793238462643383279"};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        check_decimal(edge[i]);
    /* seeded random decimals: 1-25 digits, a point anywhere, exponents across the range */
    gsl_rng *r = ga_test_rng(20261123);
    long n = ga_test_count(200000);
    for (long k = 0; k < n; k++) {
        char t[80];
        size_t p = 0;
        if (gsl_rng_uniform(r) < 0.3)
            t[p++] = gsl_rng_uniform(r) < 0.8 ? '-' : '+';
        int nd = 1 + (int)gsl_rng_uniform_int(r, 25), dot = (int)gsl_rng_uniform_int(r, nd + 2) - 1;
        for (int j = 0; j < nd; j++) {
            if (j == dot)
                t[p++] = '.';
            t[p++] = (char)('0' + (gsl_rng_uniform(r) < 0.15 ? 0 : gsl_rng_uniform_int(r, 10)));
        }
        if (gsl_rng_uniform(r) < 0.6)
            p += (size_t)snprintf(t + p, sizeof t - p, "e%d",
                                  (int)gsl_rng_uniform_int(r, 700) - 350);
        t[p] = 0;
        check_decimal(t);
        if (k % 4 == 0) { /* %.17g of a random double, the machine-written case */
            double x = ldexp(gsl_rng_uniform(r) + 0.5, (int)gsl_rng_uniform_int(r, 2100) - 1070);
            snprintf(t, sizeof t, "%.17g", gsl_rng_uniform(r) < 0.5 ? -x : x);
            check_decimal(t);
        }
    }
    gsl_rng_free(r);
}

/* ------------------------------------------------------------ trees */

static void same_tree(const ga_node *a, const ga_node *b, const char *where)
{
    cr_assert(a && b, "%s: a node missing", where);
    cr_assert(a->line == b->line && a->col == b->col,
              "%s: node at %d:%d (fast) and %d:%d (libyaml)", where, a->line, a->col, b->line,
              b->col);
    if (a->kind == GA_NODE_NUMS) {
        cr_assert(b->kind == GA_NODE_SEQ && a->n == b->n, "%s:%d:%d: a NUMS of %zu, the other kind %d n %zu",
                  where, a->line, a->col, a->n, b->kind, b->n);
        for (size_t i = 0; i < a->n; i++) {
            const ga_node *k = b->kids[i];
            double v;
            char buf[GA_DEC_TEXT_MAX], x[1300], y[1300];
            cr_assert(k->kind == GA_NODE_SCALAR && !k->quoted &&
                          ga_decimal_to_double(&v, k->text) == GA_OK,
                      "%s:%d:%d: item %zu is not a plain number in libyaml's tree", where, a->line,
                      a->col, i);
            cr_assert(memcmp(&v, &a->nums->v[i], sizeof v) == 0, "%s:%d:%d: item %zu %a vs %a",
                      where, a->line, a->col, i, a->nums->v[i], v);
            const char *t = ga_node_item_text(a, i, buf);
            cr_assert(t != NULL, "%s: item %zu has no text", where, i);
            ga_test_decimal_normal(x, sizeof x, t);
            ga_test_decimal_normal(y, sizeof y, k->text);
            cr_assert(!strcmp(x, y) || (!strcmp(x + (x[0] == '-'), "0") && !strcmp(y + (y[0] == '-'), "0")),
                      "%s:%d:%d: item %zu: '%s' against '%s'", where, a->line, a->col, i, t, k->text);
        }
        return;
    }
    cr_assert(a->kind == b->kind && a->n == b->n && a->quoted == b->quoted,
              "%s:%d:%d: kinds %d/%d, sizes %zu/%zu", where, a->line, a->col, a->kind, b->kind,
              a->n, b->n);
    if (a->kind == GA_NODE_SCALAR) {
        cr_assert(!strcmp(a->text, b->text), "%s:%d:%d: '%s' against '%s'", where, a->line,
                  a->col, a->text, b->text);
        return;
    }
    for (size_t i = 0; i < a->n; i++)
        same_tree(a->kids[i], b->kids[i], where);
}

static size_t count_nums(const ga_node *n)
{
    if (n->kind == GA_NODE_NUMS)
        return 1;
    size_t c = 0;
    for (size_t i = 0; n->kind != GA_NODE_SCALAR && i < n->n; i++)
        c += count_nums(n->kids[i]);
    return c;
}

/* The same text written to a file and read in pieces (ga_doc_read) of a random size from 1
 * byte up, every list read fast: the same outcome, message and tree as the whole text parsed
 * (want: ga_doc_parse's status, message and, when it succeeded, libyaml's tree), and the
 * digest of the text. */
static gsl_rng *piece_rng;

static size_t count_nums(const ga_node *n);

/* The file at path read with ga_doc_read (as document name) in pieces of piece bytes, every
 * list read fast: its status (0: *c holds the tree, digest its digest) */
static size_t pieces_nums_min = 1; /* (the threshold of read_file_pieces) */
static int pieces_jobs = 1;        /* (and its threads: 2 reads and parses apart) */

static int read_file_pieces(ga_doc *c, const char *path, const char *name, size_t piece,
                            char digest[65], char *msg, size_t msglen)
{
    ga_read_policy pol = {.max_bytes = (size_t)1 << 30, .what = "spec"};
    ga_file f;
    cr_assert(ga_file_open(&f, path, &pol, msg, msglen) == GA_OK, "%s", msg);
    ga_doc_set_nums_min(pieces_nums_min);
    ga_file_set_piece(piece);
    int rc = ga_doc_read(c, &f, name, pieces_jobs, digest, msg, msglen);
    ga_file_set_piece(0);
    ga_doc_set_nums_min(GA_DOC_NUMS_MIN);
    ga_file_close(&f);
    return rc;
}

/* A reading in pieces (status rc, message mc, digest) against the whole text's (want, wmsg):
 * the same status and message, or the digest of the text. 1 when both read a tree. */
static int same_outcome(int rc, const char *mc, const char *digest, int want, const char *wmsg,
                        const char *text, size_t len, const char *what)
{
    cr_assert_eq(rc != 0, want != 0, "%s: pieces %d (%s), whole %d (%s)\n%.*s", what, rc, mc,
                 want, wmsg, (int)len, text);
    if (rc) {
        cr_assert(!strcmp(mc, wmsg), "%s: messages differ:\n%s\n%s", what, mc, wmsg);
        return 0;
    }
    char h[65];
    ga_sha256_hex(h, (const unsigned char *)text, len);
    cr_assert(!strcmp(digest, h), "%s: digest %s, of the text %s", what, digest, h);
    return 1;
}

static void read_in_pieces(const char *text, size_t len, const char *name, int want,
                           const char *wmsg, const ga_doc *a, const ga_doc *b)
{
    char path[] = "/tmp/ga_test_doc_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *fp = fdopen(fd, "wb");
    cr_assert(fp && fwrite(text, 1, len, fp) == len && fclose(fp) == 0);
    if (!piece_rng)
        piece_rng = ga_test_rng(271828);
    size_t piece = 1 + gsl_rng_uniform_int(piece_rng, gsl_rng_uniform(piece_rng) < 0.5 ? 8 : 200);
    /* every list as NUMS, or the short ones as their scalars */
    int every = gsl_rng_uniform(piece_rng) < 0.5, reread = -1;
    pieces_nums_min = every ? 1 : GA_DOC_NUMS_MIN;
    /* on one thread, then read and parsed apart: the same outcome, and a second reading
     * only where one thread needs one */
    for (pieces_jobs = 1; pieces_jobs <= 2; pieces_jobs++) {
        ga_doc c;
        char mc[512] = "", digest[65], what[160];
        int rc = read_file_pieces(&c, path, name, piece, digest, mc, sizeof mc);
        snprintf(what, sizeof what, "%s, pieces of %zu%s%s", name, piece,
                 every ? "" : ", short lists", pieces_jobs > 1 ? ", two threads" : "");
        if (!same_outcome(rc, mc, digest, want, wmsg, text, len, what))
            continue;
        same_tree(c.root, b->root, what);
        if (every)
            cr_assert_eq(count_nums(c.root), count_nums(a->root), "%s: lists read fast", what);
        if (reread < 0)
            reread = c.reread;
        cr_assert_eq(c.reread, reread, "%s: read again %d, on one thread %d", what, c.reread,
                     reread);
        ga_doc_clear(&c);
    }
    pieces_nums_min = 1;
    pieces_jobs = 1;
    unlink(path);
}

/* parse text with and without the fast reading, and read it from a file in pieces; the
 * same outcome and tree. Returns the number of NUMS lists the fast tree has. */
static size_t n_failed; /* documents both readings refused */

static size_t compare(const char *text, size_t len, const char *name)
{
    ga_doc a, b;
    char ma[512] = "", mb[512] = "";
    ga_doc_set_nums_min(1);
    int ra = ga_doc_parse(&a, text, len, name, ma, sizeof ma);
    ga_doc_set_nums_min(SIZE_MAX);
    int rb = ga_doc_parse(&b, text, len, name, mb, sizeof mb);
    cr_assert_eq(ra, rb, "%s: fast %d (%s), libyaml %d (%s)\n%s", name, ra, ma, rb, mb, text);
    /* at the default threshold, the short lists as the scalars libyaml makes: its very tree
     * (NUMS for the long ones) */
    ga_doc dd;
    char md[512] = "";
    ga_doc_set_nums_min(GA_DOC_NUMS_MIN);
    int rd = ga_doc_parse(&dd, text, len, name, md, sizeof md);
    cr_assert_eq(rd, rb, "%s: default %d (%s), libyaml %d (%s)\n%s", name, rd, md, rb, mb, text);
    if (rd == 0) {
        same_tree(dd.root, b.root, name);
        ga_doc_clear(&dd);
    }
    read_in_pieces(text, len, name, ra, ma, &a, &b);
    size_t c = 0;
    if (ra == 0) {
        same_tree(a.root, b.root, name);
        c = count_nums(a.root);
        cr_assert_eq(count_nums(b.root), 0);
        ga_doc_clear(&a);
        ga_doc_clear(&b);
    } else {
        cr_assert(!strcmp(ma, mb), "%s: messages differ:\n%s\n%s", name, ma, mb);
        n_failed++;
    }
    return c;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    cr_assert(t && fread(t, 1, (size_t)n, f) == (size_t)n);
    t[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return t;
}

Test(doc, fast_reading_equals_libyaml_on_every_spec)
{
    const char *dirs[] = {"specs/examples", "specs/papers", "python/examples"};
    size_t files = 0, lists = 0;
    for (int d = 0; d < 3; d++) {
        DIR *dir = opendir(dirs[d]);
        if (!dir)
            continue;
        struct dirent *e;
        while ((e = readdir(dir))) {
            size_t l = strlen(e->d_name);
            if (l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
                continue;
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
            size_t len;
            char *t = slurp(path, &len);
            lists += compare(t, len, path);
            free(t);
            files++;
        }
        closedir(dir);
    }
    cr_assert(files >= 40 && lists >= 100, "%zu files, %zu lists read fast", files, lists);
}

/* a random numeric list's text */
static void put_list(char **p, gsl_rng *r, int multiline)
{
    int n = 1 + (int)gsl_rng_uniform_int(r, 6);
    *p += sprintf(*p, "[");
    for (int i = 0; i < n; i++) {
        if (multiline && gsl_rng_uniform(r) < 0.3)
            *p += sprintf(*p, "\n    ");
        double x = (gsl_rng_uniform(r) - 0.3) * pow(10, (int)gsl_rng_uniform_int(r, 12) - 6);
        *p += sprintf(*p, gsl_rng_uniform(r) < 0.5 ? "%.17g" : "%.3g", x);
        if (i + 1 < n || gsl_rng_uniform(r) < 0.1)
            *p += sprintf(*p, gsl_rng_uniform(r) < 0.5 ? ", " : ",");
    }
    *p += sprintf(*p, gsl_rng_uniform(r) < 0.2 ? " ]" : "]");
}

Test(doc, fast_reading_equals_libyaml_on_random_documents)
{
    /* contexts a one-pass reader cannot see; {L} is a numeric list */
    static const char *const ctx[] = {
        "a: {L}\n", "a: [{L}, {L}]\n", "- {L}\n- {L}\n", "a: \"{L}\"\n", "a: '{L}'\n",
        "a: b {L} c\n", "# {L}\na: 1\n", "a: 1 # {L}\n", "a: |\n  {L}\n  x\n", "a: >\n  {L}\n",
        "{L}: 1\n", "? {L}\n: 2\n", "a: {k: {L}, j: [{L}, [1, {L}]]}\n", "a: [{L}\n  ]\n",
        "\xc3\xa9t\xc3\xa9: {L}  # \xe2\x82\xac\nb: {L}\n", "a: {L} {L}\n", "a: [[{L}], {L}x]\n",
        "a: {L}\nb: *x\n", "a: &x {L}\n", "a: [1, 2]\n  bad: {L}\n", "a: {L}\n---\nb: 1\n",
        "- {L}: {L}\n", "a: !!seq {L}\n", "a: [{L}, \"{L}\", {L}]\n", "a: [\t1, 2]\nb: {L}\n",
        "a: {L}\r\nb: {L}\r\n", "\xef\xbb\xbf" "a: {L}\n", "a: \xc2\x85{L}\n",
        /* flow collections read whole: mappings with word keys, lists of collections */
        "a: {k: {L}, j: {L}}\n", "a: {k: [{L}, {L}], j_2: {L}}\n",
        "a: {k: {L},\n  j: [{L},\n {L}]}\n",
        "a: {k:{L}}\n", "a: {k: {L}, k: {L}}\n", "a: {k1: {L} }\n", "- {k: {L}}: 1\n",
        "a: {k: {L},}\n", "a: {k : {L}}\n", "a: [{k: {L}}, {j: [{L}]}]\n", "a: {k: {L}} x\n",
        "a: {{L}: 1}\n", "a: [[[[{L}]]]]\n", "a: [[[{L}]]]\n", "a: {3k: {L}}\n",
        "a: {k: {L}, \"q\": {L}}\n", "a: {\xc3\xa9: {L}}\n", "a: {k: {L}\n}\n", "a: {\nk: {L}}\n",
        "- {k: {L}, j: {L}}\n- {k: {L}}\n", "a: '{k: {L}}'\n", "a: {k: {L}} # {j: {L}}\n",
        "a: {k: {L}, j: 1}\n", "a: {k: [{L}, 1]}\n", "a: {k: {}}\n", "a: [{L}, {}]\n",
        "a: {kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: {L}}\n", "a: {k: {L}, j: {i: {h: {L}}}}\n"};
    gsl_rng *r = ga_test_rng(112358);
    long n = ga_test_count(3000);
    char *text = malloc(1 << 16);
    cr_assert(text);
    size_t with_lists = 0;
    for (long k = 0; k < n; k++) {
        char *p = text;
        double u = gsl_rng_uniform(r);
        int parts = 1 + (u < 0.3) + (u < 0.1);
        for (int q = 0; q < parts; q++) {
            const char *c = ctx[gsl_rng_uniform_int(r, sizeof ctx / sizeof *ctx)];
            int indent = parts > 1; /* several parts: each under a key of its own */
            if (indent)
                p += sprintf(p, "p%d:\n  ", q);
            for (; *c; c++) {
                if (c[0] == '{' && c[1] == 'L' && c[2] == '}') {
                    put_list(&p, r, gsl_rng_uniform(r) < 0.3);
                    c += 2;
                } else {
                    *p++ = *c;
                    if (*c == '\n' && indent && c[1])
                        p += sprintf(p, "  ");
                }
            }
        }
        *p = 0;
        char name[32];
        snprintf(name, sizeof name, "random %ld", k);
        with_lists += compare(text, (size_t)(p - text), name) > 0;
    }
    /* both outcomes must be common, or the comparison proves little */
    cr_assert(with_lists > (size_t)n / 5 && n_failed > (size_t)n / 20,
              "%zu of %ld documents read lists fast, %zu refused", with_lists, n, n_failed);
    free(text);
    gsl_rng_free(r);
}

Test(doc, numeric_lists_past_the_threshold_only)
{
    const char *t = "a: [1, 2, 3]\nb: [1, 2, 3, 4]\n";
    ga_doc d;
    char msg[256];
    ga_doc_set_nums_min(4);
    int rc = ga_doc_parse(&d, t, strlen(t), "t", msg, sizeof msg);
    ga_doc_set_nums_min(GA_DOC_NUMS_MIN);
    cr_assert(rc == 0, "%s", msg);
    const ga_node *a = ga_node_get(d.root, "a"), *b = ga_node_get(d.root, "b");
    cr_expect(a->kind == GA_NODE_SEQ && b->kind == GA_NODE_NUMS && b->n == 4,
              "kinds %d %d (threshold 4)", a->kind, b->kind);
    cr_expect(b->line == 2 && b->col == 4 && b->nums->v[3] == 4);
    ga_doc_clear(&d);
}

/* the lists the pass gave the tree of text (default threshold), and the text of the scalar
 * at skey (NULL: none) */
static size_t pass_read(const char *text, const char *skey, const char *want)
{
    ga_doc d;
    char msg[256];
    cr_assert(ga_doc_parse(&d, text, strlen(text), "t", msg, sizeof msg) == 0, "%s", msg);
    size_t k = d.pass_read;
    if (skey) {
        const ga_node *s = ga_node_get(d.root, skey);
        cr_expect(s->kind == GA_NODE_SCALAR && !strcmp(s->text, want), "%s: %s", skey, s->text);
    }
    ga_doc_clear(&d);
    return k;
}

Test(doc, lists_in_comments_leave_the_fast_reading_on)
{
    /* a list quoted in a comment is not one; a '#' after a space inside a string only hides
     * the rest of its line from the pass */
    const char *t = "# sigma: [0.5, 1]\na: [1, 2, 3] # [4, 5]\nb: 'x # [6]'\nc: [7]   #[8\n";
    cr_expect_eq(pass_read(t, "b", "x # [6]"), 2, "%s", t);
    compare(t, strlen(t), t);
    /* the same from a file read in pieces that end inside the comments */
    char path[] = "/tmp/ga_test_doc_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *fp = fdopen(fd, "wb");
    cr_assert(fp && fputs(t, fp) >= 0 && fclose(fp) == 0);
    for (size_t piece = 1; piece <= 12; piece++) {
        ga_doc c;
        char msg[256], digest[65];
        cr_assert(read_file_pieces(&c, path, "t", piece, digest, msg, sizeof msg) == 0, "%s", msg);
        cr_expect(ga_node_get(c.root, "a")->kind == GA_NODE_NUMS, "pieces of %zu", piece);
        ga_doc_clear(&c);
    }
    unlink(path);
    /* a list inside a string (no space before its '#'): libyaml reads the whole text */
    const char *u = "b: 'x#[6]'\na: [1, 2, 3]\n";
    cr_expect_eq(pass_read(u, "b", "x#[6]"), 0, "%s", u);
}

/* Flow collections of word keys and lists are read by the pass whole (one region in place
 * of one per list), also from a file read in pieces; too long a collection is read list by
 * list, and a collection in a string leaves the text to libyaml. The trees are libyaml's
 * (compare). */
Test(doc, flow_collections_read_whole)
{
    static const struct {
        const char *text;
        size_t regions;
    } rows[] = {
        {"a: {k: [1, 2], j: [[3], [4, 5]]}\n", 1},
        {"- name: p\n  x: {mean: [0.5, -1], cov: [[1, 0], [0, 1]]}\n", 1},
        {"a: [[1, 2],\n    [3, 4]]\nb: {c: {d: [5]}}\n", 2},
        {"a: {k: [1], j: 2}\n", 1},
        {"a: {k: [1]}\nb: '{k: [2]}'\n", 0},
        {"a: [{k: [1],\n j: [2]}, x, {i: [3]}]\n", 2},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const char *t = rows[i].text;
        compare(t, strlen(t), t);
        ga_doc d;
        char msg[256];
        cr_assert(ga_doc_parse(&d, t, strlen(t), "t", msg, sizeof msg) == 0, "%s", msg);
        cr_expect_eq(d.pass_read, rows[i].regions, "%s: %zu regions", t, d.pass_read);
        ga_doc_clear(&d);
        char path[] = "/tmp/ga_test_doc_XXXXXX";
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        FILE *fp = fdopen(fd, "wb");
        cr_assert(fp && fputs(t, fp) >= 0 && fclose(fp) == 0);
        for (size_t piece = 1; piece <= 9; piece += 4) {
            char digest[65];
            cr_assert(read_file_pieces(&d, path, "t", piece, digest, msg, sizeof msg) == 0, "%s",
                      msg);
            cr_expect_eq(d.pass_read, rows[i].regions, "%s, pieces of %zu: %zu", t, piece,
                         d.pass_read);
            ga_doc_clear(&d);
        }
        unlink(path);
    }
    /* collections near the deepest nesting allowed: libyaml's outcome either way */
    for (int depth = GA_DOC_MAX_DEPTH - 8; depth <= GA_DOC_MAX_DEPTH + 1; depth++) {
        char t[512], *q = t;
        q += sprintf(q, "a: ");
        for (int k = 0; k < depth; k++)
            *q++ = '[';
        q += sprintf(q, "{k: [[1]]}");
        for (int k = 0; k < depth; k++)
            *q++ = ']';
        q += sprintf(q, "\n");
        compare(t, (size_t)(q - t), t);
        ga_doc d;
        char msg[256];
        if (ga_doc_parse(&d, t, (size_t)(q - t), "t", msg, sizeof msg) == 0) {
            cr_expect_eq(d.pass_read, 1, "%s: read whole by the pass where libyaml reads it", t);
            ga_doc_clear(&d);
        }
    }
    /* a matrix longer than a collection read whole: its rows one by one */
    size_t rows_n = 400;
    char *m = malloc(rows_n * 40 + 16), *p = m;
    cr_assert(m);
    p += sprintf(p, "m: [");
    for (size_t r = 0; r < rows_n; r++)
        p += sprintf(p, "%s[%zu.25, -1e-3, 7]", r ? ",\n    " : "", r);
    p += sprintf(p, "]\n");
    size_t got = compare(m, (size_t)(p - m), "matrix");
    cr_expect_eq(got, rows_n, "%zu lists", got);
    ga_doc d;
    char msg[256];
    cr_assert(ga_doc_parse(&d, m, (size_t)(p - m), "m", msg, sizeof msg) == 0, "%s", msg);
    cr_expect_eq(d.pass_read, rows_n, "%zu regions", d.pass_read);
    ga_doc_clear(&d);
    free(m);
}

Test(doc, sha256_instructions_equal_portable_code)
{
    /* FIPS 180-4 examples (NIST's SHA256.pdf): "abc" and the 448-bit message */
    char h[65], g[65];
    ga_sha256_hex(h, (const unsigned char *)"abc", 3);
    cr_expect(!strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "%s", h);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    ga_sha256_hex(h, (const unsigned char *)m, strlen(m));
    cr_expect(!strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"), "%s", h);
    ga_sha256_hex(h, (const unsigned char *)"", 0);
    cr_expect(!strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "%s", h);
    gsl_rng *r = ga_test_rng(65);
    unsigned char *buf = malloc(70000);
    cr_assert(buf);
    long n = ga_test_count(2000);
    for (long k = 0; k < n; k++) {
        size_t len = k < 300 ? (size_t)k : (size_t)gsl_rng_uniform_int(r, 70000);
        for (size_t i = 0; i < len; i++)
            buf[i] = (unsigned char)gsl_rng_uniform_int(r, 256);
        ga_sha256_hex(h, buf, len);
        ga_sha256_hex_portable(g, buf, len);
        cr_assert(!strcmp(h, g), "length %zu: %s against the portable %s", len, h, g);
        /* fed in random pieces (a file read in pieces) */
        ga_sha256 s;
        ga_sha256_init(&s);
        for (size_t at = 0, step; at < len; at += step) {
            step = 1 + gsl_rng_uniform_int(r, k % 2 ? 7 : 300);
            step = step < len - at ? step : len - at;
            ga_sha256_update(&s, buf + at, step);
        }
        ga_sha256_final(&s, g);
        cr_assert(!strcmp(h, g), "length %zu in pieces: %s against %s", len, g, h);
    }
    free(buf);
    gsl_rng_free(r);
}

/* two trees read from the same text, both with NUMS nodes: equal node by node (numbers bit
 * for bit, decimals and their texts byte for byte) */
static void same_doc(const ga_node *a, const ga_node *b, const char *where)
{
    cr_assert(a && b && a->kind == b->kind && a->n == b->n && a->line == b->line &&
                  a->col == b->col && a->quoted == b->quoted,
              "%s: nodes differ (%d:%d kind %d n %zu against %d:%d kind %d n %zu)", where,
              a ? a->line : 0, a ? a->col : 0, a ? a->kind : -1, a ? a->n : 0, b ? b->line : 0,
              b ? b->col : 0, b ? b->kind : -1, b ? b->n : 0);
    if (a->kind == GA_NODE_SCALAR) {
        cr_assert(!strcmp(a->text, b->text), "%s:%d:%d: '%s' against '%s'", where, a->line,
                  a->col, a->text, b->text);
    } else if (a->kind == GA_NODE_NUMS) {
        cr_assert(!memcmp(a->nums->v, b->nums->v, a->n * sizeof *a->nums->v) &&
                      !memcmp(a->nums->dec, b->nums->dec, a->n * sizeof *a->nums->dec) &&
                      a->nums->nlong == b->nums->nlong,
                  "%s:%d:%d: the numbers differ", where, a->line, a->col);
        for (size_t i = 0; i < a->nums->nlong; i++)
            cr_assert(a->nums->long_at[i] == b->nums->long_at[i] &&
                      !strcmp(a->nums->long_txt[i], b->nums->long_txt[i]));
    } else {
        for (size_t i = 0; i < a->n; i++)
            same_doc(a->kids[i], b->kids[i], where);
    }
}

Test(doc, hostile_bytes_read_in_pieces_equal_the_whole_text)
{
    /* documents of "kN: value" lines (numeric lists of 1-40 items, scalars, quoted lists,
     * comments, nested flow lists), with bytes that turn the one-pass reading off (NUL, CR,
     * a byte-order mark, NEL, LS, PS, the private-use mark) or that a piece boundary may
     * split (multi-byte characters, numbers, lists) dropped in at random */
    static const char *const odd[] = {"\r", "\xEF\xBB\xBF", "\xC2\x85", "\xE2\x80\xA8",
                                      "\xE2\x80\xA9", "\xEE\x80\x80", "\xC3\xA9", "[", "]",
                                      ",", "#", "\"", "'", "{", ": ", "\t", "&a ", "*a", "\n"};
    static const char *const val[] = {"x", "\"[1, 2]\"", "'a [3, 4] b'", "1e999", "-0",
                                      "{p: [1, 2, 3], q: [[4, 5], [6]]}", "\xC3\xA9t\xC3\xA9"};
    const size_t nodd = sizeof odd / sizeof *odd, nval = sizeof val / sizeof *val;
    gsl_rng *r = ga_test_rng(31337);
    long n = ga_test_count(2000);
    char *text = malloc(1 << 16);
    char path[] = "/tmp/ga_test_hostile_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(text && fd >= 0);
    close(fd);
    size_t ok = 0, nums = 0;
    for (long k = 0; k < n; k++) {
        size_t len = 0, lines = 1 + gsl_rng_uniform_int(r, 8);
        for (size_t i = 0; i < lines; i++) {
            len += (size_t)sprintf(text + len, "k%zu: ", i);
            if (gsl_rng_uniform(r) < 0.6) {
                size_t items = 1 + gsl_rng_uniform_int(r, 40);
                text[len++] = '[';
                for (size_t j = 0; j < items; j++)
                    len += (size_t)sprintf(text + len, "%s%.*g", j ? (j % 7 ? ", " : ",\n  ") : "",
                                           1 + (int)gsl_rng_uniform_int(r, 17),
                                           (gsl_rng_uniform(r) - 0.5) *
                                               pow(10, (int)gsl_rng_uniform_int(r, 40) - 20));
                text[len++] = ']';
            } else {
                const char *v = val[gsl_rng_uniform_int(r, nval)];
                len += (size_t)sprintf(text + len, "%s", v);
            }
            if (gsl_rng_uniform(r) < 0.2)
                len += (size_t)sprintf(text + len, "  # [9, 8, 7]");
            text[len++] = '\n';
        }
        for (int q = 0; q < 2; q++)
            if (gsl_rng_uniform(r) < 0.15) { /* an odd byte sequence somewhere */
                const char *o = odd[gsl_rng_uniform_int(r, nodd)];
                size_t at = gsl_rng_uniform_int(r, len + 1), ol = strlen(o);
                memmove(text + at + ol, text + at, len - at);
                memcpy(text + at, o, ol);
                len += ol;
            }
        if (gsl_rng_uniform(r) < 0.03)
            text[gsl_rng_uniform_int(r, len)] = 0;
        FILE *fp = fopen(path, "wb");
        cr_assert(fp && fwrite(text, 1, len, fp) == len && fclose(fp) == 0);
        size_t piece = 1 + gsl_rng_uniform_int(r, 16);
        ga_doc a, b;
        char ma[512] = "", mb[512] = "", digest[65], where[64];
        ga_doc_set_nums_min(1);
        int ra = ga_doc_parse(&a, text, len, "t", ma, sizeof ma);
        ga_doc_set_nums_min(GA_DOC_NUMS_MIN);
        pieces_jobs = k % 2 ? 2 : 1; /* (read and parsed apart, or in turn) */
        int rb = read_file_pieces(&b, path, "t", piece, digest, mb, sizeof mb);
        snprintf(where, sizeof where, "document %ld, pieces of %zu%s", k, piece,
                 pieces_jobs > 1 ? ", two threads" : "");
        pieces_jobs = 1;
        if (!same_outcome(rb, mb, digest, ra, ma, text, len, where))
            continue;
        same_doc(a.root, b.root, where);
        nums += count_nums(a.root) > 0;
        ok++;
        ga_doc_clear(&a);
        ga_doc_clear(&b);
    }
    /* both outcomes must be common, and lists read fast among the documents parsed (a list
     * in a comment or a string sends the whole document to libyaml: about 4 in 5) */
    cr_assert(ok > (size_t)n / 2 && ok < (size_t)n && nums > ok / 8,
              "%zu of %ld documents parsed, %zu with lists read fast", ok, n, nums);
    unlink(path);
    free(text);
    gsl_rng_free(r);
}

/* The reading is linear in the text: a run of '[' inside a quoted string (which the list pass
 * once scanned to its end from every '[', quadratically: 64k of them took seconds) read at
 * 1 and 4 MB; the best of three readings of each, whose ratio is about 4 for a linear reader
 * and 16 for a quadratic one (a ratio, not a time limit). Also '[1,' repeated. */
static double parse_seconds(const char *text, size_t len)
{
    double best = INFINITY;
    for (int k = 0; k < 3; k++) {
        ga_doc d;
        char msg[256];
        double t0 = ga_monotonic();
        int rc = ga_doc_parse(&d, text, len, "t", msg, sizeof msg);
        double t = ga_monotonic() - t0;
        if (rc == 0)
            ga_doc_clear(&d);
        best = fmin(best, t);
    }
    return best;
}

Test(doc, reading_time_is_linear_in_the_text)
{
    static const char *const unit[2] = {"[", "[1,"};
    for (int u = 0; u < 2; u++) {
        double t[2];
        for (int s = 0; s < 2; s++) {
            size_t n = (size_t)(s ? 4 : 1) << 20, ul = strlen(unit[u]);
            char *text = malloc(n + 64);
            cr_assert(text != NULL);
            size_t len = (size_t)sprintf(text, "gaussaudit: 1\nname: \"");
            while (len + ul < n + 20) {
                memcpy(text + len, unit[u], ul);
                len += ul;
            }
            len += (size_t)sprintf(text + len, "\"\n");
            t[s] = parse_seconds(text, len);
            free(text);
        }
        cr_expect(t[1] < 10 * fmax(t[0], 1e-4), "'%s' run: 1 MB in %.4f s, 4 MB in %.4f s "
                  "(ratio %.1f; linear about 4, quadratic 16)", unit[u], t[0], t[1],
                  t[1] / fmax(t[0], 1e-9));
    }
}

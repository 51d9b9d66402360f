/*
 * test_base.c - the base layer: the one decimal reader (a table with the expected status;
 * bit for bit against strtod on seeded random decimals of every route),
 * bounds printed so that they read back as bounds (seeded random doubles of every exponent
 * and the extremes), the log10 of a printed decimal beyond the double range (against the
 * double's own log10 and exact powers of ten), and messages into no buffer.
 */
#define _DEFAULT_SOURCE /* mincore */
#include "base/base.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <float.h>
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

/* the one number reader (base/decimal.c): a table with the expected status */
Test(base, decimal_reader)
{
    static const struct {
        const char *s;
        int status;
        double v;
    } rows[] = {{".5", GA_OK, 0.5},        {"+5", GA_OK, 5},          {"-1e-320", GA_OK, -1e-320},
                {"1E3", GA_OK, 1000},      {"0", GA_OK, 0},           {"0e-999", GA_OK, 0},
                {"5.", GA_OK, 5},          {"0x10", GA_EINVAL, 0},    {"inf", GA_EINVAL, 0},
                {"nan", GA_EINVAL, 0},     {"1e", GA_EINVAL, 0},      {".", GA_EINVAL, 0},
                {"", GA_EINVAL, 0},        {" 1", GA_EINVAL, 0},      {"1 ", GA_EINVAL, 0},
                {"1e400", GA_EINVAL, 0},   {"1e-400", GA_EINVAL, 0},  {"--1", GA_EINVAL, 0},
                {"1,5", GA_EINVAL, 0},     {"e5", GA_EINVAL, 0}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        double v = -42;
        int st = ga_decimal_to_double(&v, rows[i].s);
        cr_expect(st == rows[i].status, "'%s': status %d, expected %d", rows[i].s, st, rows[i].status);
        if (st == GA_OK)
            cr_expect(v == rows[i].v, "'%s': %.17g, expected %.17g", rows[i].s, v, rows[i].v);
    }
}

/* the reader against strtod, bit for bit, on seeded random decimals of every kind its
 * routes take: the shortest and 17-digit forms of random doubles (all exponents, subnormals
 * included), 1 to 19 random digits with exponents -345 .. 314 (beyond the double range both
 * refuse or give 0 / inf), and decimals within a few units of the 19th digit of the exact
 * midpoint of two neighbouring doubles (where a product with a truncated power of five is
 * closest to a rounding boundary); strtod's value is taken as the reference wherever the
 * reader accepts, and where it refuses strtod must give inf, or 0 or a subnormal from a
 * nonzero decimal */
Test(base, decimal_reader_matches_strtod)
{
    gsl_rng *r = ga_test_rng(71);
    long n = ga_test_count(300000), bad = 0;
    char buf[96];
    for (long i = 0; i < n; i++) {
        uint64_t b = ((uint64_t)gsl_rng_get(r) << 32) ^ gsl_rng_get(r);
        double d;
        memcpy(&d, &b, sizeof d);
        d = fabs(d);
        if (!isfinite(d))
            d = 1.5;
        switch (i % 4) {
        case 0:
            snprintf(buf, sizeof buf, "%.17g", d);
            break;
        case 1:
            snprintf(buf, sizeof buf, "%.*g", 1 + (int)(i / 4 % 17), d);
            break;
        case 2: {
            int nd = 1 + (int)gsl_rng_uniform_int(r, 19);
            for (int k = 0; k < nd; k++)
                buf[k] = (char)('0' + gsl_rng_uniform_int(r, 10));
            snprintf(buf + nd, sizeof buf - nd, "e%d", (int)gsl_rng_uniform_int(r, 660) - 345);
            break;
        }
        default: {
            /* the midpoint of d and its successor to 21 digits, cut to 19 and moved by a few
             * units of the last digit */
            long double mid = ((long double)d + (long double)nextafter(d, INFINITY)) / 2;
            char m[64];
            snprintf(m, sizeof m, "%.20Le", mid); /* d.dddd...e+X */
            const char *ex = strchr(m, 'e');
            unsigned long long dig = 0; /* 19 digits: below 10^19 < 2^64 */
            for (const char *c = m; c < ex && c - m < 20; c++)
                if (*c >= '0' && *c <= '9')
                    dig = dig * 10 + (unsigned long long)(*c - '0');
            dig = dig + gsl_rng_uniform_int(r, 7) - 3; /* (dig >= 10^18) */
            snprintf(buf, sizeof buf, "%lluE%d", dig, atoi(ex + 1) - 18);
        }
        }
        double v = -42;
        int st = ga_decimal_to_double(&v, buf);
        double ref = strtod(buf, NULL);
        int refuse = !isfinite(ref) || (fabs(ref) < DBL_MIN && ref != 0) ||
                     (ref == 0 && strspn(buf, "0.eE+-") != strlen(buf));
        int ok = st == GA_OK ? memcmp(&v, &ref, sizeof v) == 0 || (fabs(ref) < DBL_MIN && v == ref)
                             : refuse;
        if (!ok && bad++ < 10)
            cr_expect(0, "'%s' (case %ld, seed 71): status %d, %.17g (%a); strtod %.17g (%a)",
                      buf, i, st, v, v, ref, ref);
    }
    cr_expect(bad == 0, "%ld of %ld decimals differ from strtod", bad, n);
    gsl_rng_free(r);
}

/* Decimals of the shapes CSV files and specs hold, with runs of zeros and digits placed
 * about the reader's eight-digit steps: 0 to 24 digits before the point, 0 to 24 after it
 * (each digit a zero with probability 1/2, or within runs of 1 to 12 zeros), signs, optional
 * exponents, a token followed by more text. Each bit for bit against strtod, and its compact
 * exact form (ga_decimal_scan) the same exact decimal as the text (ga_test_decimal_normal);
 * every decimal of up to 19 significant digits with a small exponent has a compact form. */
Test(base, decimal_reader_digit_runs)
{
    gsl_rng *r = ga_test_rng(88);
    long n = ga_test_count(200000), bad = 0, compact = 0;
    char buf[96], txt[GA_DEC_TEXT_MAX], n1[160], n2[160];
    for (long i = 0; i < n; i++) {
        size_t k = 0;
        if (gsl_rng_uniform(r) < 0.3)
            buf[k++] = gsl_rng_uniform(r) < 0.5 ? '-' : '+';
        int zero_p = (int)gsl_rng_uniform_int(r, 3), sig = 0, nint, nfrac;
        nint = (int)gsl_rng_uniform_int(r, 25);
        nfrac = (int)gsl_rng_uniform_int(r, 25);
        if (nint + nfrac == 0)
            nint = 1;
        for (int part = 0; part < 2; part++) {
            int nd = part ? nfrac : nint, run = 0;
            if (part)
                buf[k++] = '.';
            for (int j = 0; j < nd; j++) {
                char c = (char)('1' + gsl_rng_uniform_int(r, 9));
                if (run > 0) {
                    c = '0';
                    run--;
                } else if (zero_p == 1 && gsl_rng_uniform(r) < 0.5) {
                    c = '0';
                } else if (zero_p == 2 && gsl_rng_uniform(r) < 0.3) {
                    run = (int)gsl_rng_uniform_int(r, 12);
                    c = '0';
                }
                sig += sig > 0 || c != '0';
                buf[k++] = c;
            }
        }
        if (gsl_rng_uniform(r) < 0.3)
            k += (size_t)snprintf(buf + k, sizeof buf - k, "e%d",
                                  (int)gsl_rng_uniform_int(r, 41) - 20);
        buf[k] = 0;
        snprintf(buf + k + 1, sizeof buf - k - 1, ",12345678"); /* (text after the token) */
        double v = -42, vs = -42;
        ga_dec dec;
        int st = ga_decimal_to_double(&v, buf), ss = ga_decimal_scan(&vs, &dec, buf, k);
        double ref = strtod(buf, NULL);
        int ok = st == GA_OK && ss == GA_OK && memcmp(&v, &ref, sizeof v) == 0 &&
                 memcmp(&vs, &ref, sizeof v) == 0;
        if (ok && dec.e != GA_DEC_LONG) {
            ga_decimal_text(txt, vs, dec);
            ga_test_decimal_normal(n1, sizeof n1, buf);
            ga_test_decimal_normal(n2, sizeof n2, txt);
            ok = strcmp(n1, n2) == 0;
            compact++;
        } else if (ok && sig <= 19 && ref != 0 && fabs(ref) > 1e-250) {
            ok = 0; /* (no compact form where one must exist) */
        }
        if (!ok && bad++ < 10)
            cr_expect(0, "'%s' (case %ld, seed 88): status %d %d, %.17g %.17g, strtod %.17g; "
                      "compact %s (e %d, low %u)", buf, i, st, ss, v, vs, ref,
                      dec.e != GA_DEC_LONG ? txt : "none", dec.e, dec.low);
    }
    cr_expect(bad == 0, "%ld of %ld decimals wrong", bad, n);
    cr_expect(compact >= n / 3, "only %ld of %ld decimals had a compact form", compact, n);
    gsl_rng_free(r);
}

/* Printed bounds read back as bounds (ga_fmt_bound): at every number of digits, the decimal
 * printed for a lower bound reads as a double <= v, for an upper bound >= v, also at the
 * ends of the double range (a lower bound at DBL_MAX rounds up to inf at 10 digits: it is
 * printed exactly; this was an integer overflow on log10(inf)); seeded random doubles of
 * every exponent, the extremes and their neighbours */
Test(base, printed_bounds_read_back_as_bounds)
{
    gsl_rng *r = ga_test_rng(40);
    long n = ga_test_count(3000);
    const double special[] = {DBL_MAX, -DBL_MAX, nextafter(DBL_MAX, 0), 1.7976931348e308,
                              DBL_MIN, 4.9406564584124654e-324, -4.9406564584124654e-324,
                              1, nextafter(1, 2), nextafter(1, 0), 0.1, 1e-5, 9.9999999995e-6};
    size_t ns = sizeof special / sizeof *special;
    for (long t = 0; t < n + (long)ns; t++) {
        double v = t < (long)ns ? special[t]
                                : ldexp(gsl_rng_uniform_pos(r), (int)gsl_rng_uniform_int(r, 2098) - 1074);
        if (t >= (long)ns && gsl_rng_uniform(r) < 0.5)
            v = -v;
        for (int digits = 1; digits <= 17; digits++)
            for (int upper = 0; upper < 2; upper++) {
                char buf[40], dec[40];
                ga_fmt_bound(buf, sizeof buf, v, upper, digits);
                ga_fmt_bound_decide(dec, sizeof dec, v, upper, 1e-5, digits);
                double b = strtod(buf, NULL), c = strtod(dec, NULL);
                cr_assert(upper ? b >= v && c >= v : b <= v && c <= v,
                          "%s bound of %a (%.17g) at %d digits printed '%s' / '%s'",
                          upper ? "upper" : "lower", v, v, digits, buf, dec);
            }
    }
    gsl_rng_free(r);
}

/* ga_decimal_log10: "m.mmm" and "m.mmme-NNNN" as the certified bounds are printed, beyond the
 * double range too; -inf for zero, NaN for what is not a number */
#define TOL_LOG10 1e-14 /* absolute, on log10 values of size up to 1e5 (relative ~1e-19) */
Test(base, decimal_log10_beyond_the_double_range)
{
    static const struct {
        const char *s;
        double want;
    } rows[] = {{"1", 0},          {"10", 1},           {"2.5e-3", -2.6020599913279625},
                {"1e-400", -400},  {"3.2e-70000", -69999.494850021680},
                {"9.99e+500", 500.99956548822598}, {"0", -INFINITY}, {"0e-999", -INFINITY}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double v = ga_decimal_log10(rows[i].s);
        cr_expect(v == rows[i].want || fabs(v - rows[i].want) <= TOL_LOG10 * fmax(1, fabs(rows[i].want)),
                  "'%s': %.17g, expected %.17g", rows[i].s, v, rows[i].want);
    }
    cr_expect(isnan(ga_decimal_log10("x")) && isnan(ga_decimal_log10("-1e-5")),
              "not a positive number: %g %g", ga_decimal_log10("x"), ga_decimal_log10("-1e-5"));
    gsl_rng *r = ga_test_rng(4242);
    long n = ga_test_count(2000);
    for (long k = 0; k < n; k++) { /* in range: the double's own log10 */
        double x = ldexp(gsl_rng_uniform_pos(r), (int)gsl_rng_uniform_int(r, 2000) - 1000);
        char t[40];
        snprintf(t, sizeof t, "%.17e", x);
        double v = ga_decimal_log10(t);
        cr_assert(fabs(v - log10(x)) <= TOL_LOG10 * fmax(1, fabs(log10(x))), "'%s': %.17g vs %.17g",
                  t, v, log10(x));
    }
    gsl_rng_free(r);
}

/* ga_msg: a NULL or empty buffer is allowed; a long message is cut, terminated */
Test(base, messages_into_any_buffer)
{
    ga_msg(NULL, 10, "%s", "nothing");
    char b[8] = "xxxxxxx";
    ga_msg(b, 0, "%s", "nothing");
    cr_expect(!strcmp(b, "xxxxxxx"), "an empty buffer was written: '%s'", b);
    ga_msg(b, sizeof b, "%s %d", "a long message", 42);
    cr_expect(!strcmp(b, "a long "), "cut to '%s'", b);
}

/* arrays grown by doubling: the first capacity, then twice as many, the contents kept; a size
 * past the address space refused with the array and its capacity untouched */
Test(base, arrays_grow_by_doubling_and_refuse_overflow)
{
    size_t cap = 0;
    int *p = ga_grow(NULL, &cap, sizeof *p, 4);
    cr_assert(p && cap == 4, "first capacity %zu", cap);
    for (int i = 0; i < 4; i++)
        p[i] = i;
    int *q = ga_grow(p, &cap, sizeof *q, 4);
    cr_assert(q && cap == 8, "doubled capacity %zu", cap);
    for (int i = 0; i < 4; i++)
        cr_expect(q[i] == i, "element %d is %d after growing", i, q[i]);
    size_t big = SIZE_MAX / 8;
    cr_expect(ga_grow(q, &big, 8, 4) == NULL && big == SIZE_MAX / 8,
              "a doubling past SIZE_MAX bytes was not refused (capacity %zu)", big);
    free(q);
}

/* the pages of [p, p + len) resident (mincore): how many of them, of *total */
static size_t resident(const char *p, size_t len, size_t *total)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t pg = ps > 0 ? (size_t)ps : 4096, n = (len + pg - 1) / pg, k = 0;
    unsigned char *v = malloc(n ? n : 1);
    cr_assert(v && mincore((void *)p, len, v) == 0, "mincore: %s", strerror(errno));
    for (size_t i = 0; i < n; i++)
        k += v[i] & 1;
    free(v);
    *total = n;
    return k;
}

/* A block faulted in by parts (ga_mem_populate_part, one per thread in ga_par_prefault): on a
 * fresh mapping (no page resident), the n parts together make every whole page of the block
 * resident and none outside it; the first n - 1 parts alone leave the last part's pages (at
 * least one huge page's worth) not resident: the parts cover the block and stop at their
 * bounds. Blocks of 3 to 19 MiB at odd page offsets, 1 to 5 parts (ga_mem_parts: one per 2 MiB
 * at most); skipped where the kernel has no MADV_POPULATE_WRITE. */
Test(base, block_faulted_in_by_parts_covers_it)
{
    gsl_rng *r = ga_test_rng(2024);
    long n = ga_test_count(12);
    long ps = sysconf(_SC_PAGESIZE);
    size_t pg = ps > 0 ? (size_t)ps : 4096, span = (size_t)24 << 20;
    for (long k = 0; k < n; k++) {
        char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        cr_assert(m != MAP_FAILED);
        size_t off = pg * (1 + gsl_rng_uniform_int(r, 256)), len = ((size_t)3 << 20) +
                     pg * gsl_rng_uniform_int(r, ((size_t)16 << 20) / pg);
        size_t parts = ga_mem_parts(len, 1 + gsl_rng_uniform_int(r, 5)), tot, all;
        cr_assert(parts >= 1 && parts <= len / ((size_t)2 << 20), "%zu parts of %zu bytes",
                  parts, len);
        ga_mem_advise_huge(m + off, len);
        for (size_t i = 0; i + 1 < parts; i++)
            ga_mem_populate_part(m + off, len, i, parts);
        size_t before = resident(m, span, &all);
        ga_mem_populate_part(m + off, len, parts - 1, parts);
        size_t inside = resident(m + off, len, &tot), after = resident(m, span, &all);
        if (k == 0 && after == 0) { /* (a kernel without MADV_POPULATE_WRITE: advice only) */
            munmap(m, span);
            gsl_rng_free(r);
            cr_skip_test("MADV_POPULATE_WRITE is not available: the pages fault as written");
        }
        cr_expect(inside == tot && after == tot && before + ((size_t)2 << 20) / pg <= after,
                  "block %ld (%zu bytes at page %zu, %zu parts): %zu of %zu pages inside, %zu of "
                  "the mapping's %zu, %zu before the last part", k, len, off / pg, parts, inside,
                  tot, after, all, before);
        munmap(m, span);
    }
    gsl_rng_free(r);
}

/* ga_fmt_shortest: the text reads back as v and no fewer significant digits do (checked by
 * trying every precision below, the definition), for decimals as people write them, powers
 * of ten, subnormals and seeded random doubles of every exponent */
Test(base, shortest_decimals_read_back_and_are_shortest)
{
    double fixed[] = {0.1, 1e-5, 0.3, 1.0 / 3, 2.5, 100, 1e15, 1e16, 123456789012345678.0,
                      5e-324, 2.2250738585072014e-308, DBL_MAX, -0.0, 0, 0.12693673750664394,
                      0.125, 0.375, 1.5e-7, 9.5, 999.5, 1e14, 99999999999999.98, 1e-4, 1e-5,
                      0.00012345, 1e21, 1.0 / 1024, -2.5e-310};
    gsl_rng *r = ga_test_rng(44);
    long n = ga_test_count(20000);
    for (long i = 0; i < n + (long)(sizeof fixed / sizeof *fixed); i++) {
        double v = i < (long)(sizeof fixed / sizeof *fixed) ? fixed[i]
                   : ldexp(gsl_rng_uniform_pos(r), (int)gsl_rng_uniform_int(r, 2000) - 1000) *
                         (gsl_rng_uniform(r) < 0.5 ? -1 : 1);
        if (i >= (long)(sizeof fixed / sizeof *fixed) && i % 3 == 0) /* short decimals too */
            v = (double)gsl_rng_uniform_int(r, 100000) / 1000;
        if (i >= (long)(sizeof fixed / sizeof *fixed) && i % 7 == 1) /* dyadic: ties in rounding */
            v = ldexp((double)gsl_rng_uniform_int(r, 1u << 20), (int)gsl_rng_uniform_int(r, 60) - 40);
        if (i >= (long)(sizeof fixed / sizeof *fixed) && i % 7 == 2) /* integers, round decimals */
            v = (double)gsl_rng_uniform_int(r, 1000) * pow(10, (int)gsl_rng_uniform_int(r, 40) - 20);
        if (i >= (long)(sizeof fixed / sizeof *fixed) && i % 7 == 3) /* next to a power of ten */
            v = nextafter(pow(10, (int)gsl_rng_uniform_int(r, 60) - 30), i % 2 ? 0 : INFINITY);
        char b[64], t[64];
        ga_fmt_shortest(b, sizeof b, v);
        cr_assert(strtod(b, NULL) == v, "v %.17g printed %s does not read back", v, b);
        int digits = 17;
        for (int p = 1; p <= 17; p++) {
            snprintf(t, sizeof t, "%.*g", p, v);
            if (strtod(t, NULL) == v) {
                digits = p;
                break;
            }
        }
        snprintf(t, sizeof t, "%.*e", digits - 1, v);
        cr_assert(strtod(t, NULL) == strtod(b, NULL), "v %.17g: %s, but %d digits (%s) read "
                  "back", v, b, digits, t);
        /* the text itself: printf's "%.*g" at those digits (at the integer digits for
         * 1 <= |v| < 1e15), byte for byte */
        int e = fabs(v) >= 1 && fabs(v) < 1e15 ? (int)floor(log10(fabs(v))) + 1 : 0;
        snprintf(t, sizeof t, "%.*g", digits > e ? digits : e, v);
        cr_assert(!strcmp(t, b), "v %.17g: printed %s, printf at %d digits %s", v, b,
                  digits > e ? digits : e, t);
        int sig = 0, started = 0;
        for (const char *c = b; *c && *c != 'e' && *c != 'E'; c++)
            if (*c >= '0' && *c <= '9') {
                started |= *c != '0';
                sig += started;
            }
        cr_assert(sig <= (digits > 1 ? digits : 1) || fabs(v) >= 1, "v %.17g: %s has %d "
                  "significant digits, %d suffice", v, b, sig, digits);
    }
    gsl_rng_free(r);
}

/* ga_decimal_digits17: where it answers, the digits and exponent printf's "%.16e" prints,
 * for doubles of every exponent, dyadic numbers whose 17-digit rounding is an exact tie (or
 * near one), values next to powers of ten (the exponent's estimate) and the largest ones;
 * it must answer for almost all (the fast way is the point) */
Test(base, seventeen_digits_equal_printf)
{
    gsl_rng *r = ga_test_rng(1717);
    long n = ga_test_count(300000), answered = 0, ties = 0, plain = 0, plain_answered = 0;
    long knew = 0;
    for (long i = 0; i < n; i++) {
        double v;
        switch (i % 6) {
        case 0: /* m 2^-17 with 131072 <= m < 10 * 131072: 18 digits ending in 5 */
            v = ldexp((double)(131072 + gsl_rng_uniform_int(r, 9 * 131072)), -17);
            break;
        case 1:
            v = nextafter(pow(10, (int)gsl_rng_uniform_int(r, 600) - 300),
                          i % 4 == 1 ? 0 : INFINITY);
            break;
        case 2:
            v = DBL_MAX * gsl_rng_uniform_pos(r);
            break;
        case 3: /* short dyadic fractions of any size */
            v = ldexp((double)gsl_rng_uniform_int(r, 1u << 30),
                      (int)gsl_rng_uniform_int(r, 200) - 100);
            break;
        default:
            v = ldexp(gsl_rng_uniform_pos(r), (int)gsl_rng_uniform_int(r, 2100) - 1075);
        }
        if (!(v > 0))
            continue;
        uint64_t d;
        int x, dir;
        char want[40], got[48];
        snprintf(want, sizeof want, "%.16e", v);
        int ok = ga_decimal_digits17(&d, &x, &dir, v), normal = i % 6 > 3 && v > 1e-290;
        plain += normal;
        plain_answered += normal && ok;
        if (!ok) {
            ties += i % 6 == 0;
            continue;
        }
        answered++;
        char dg[24];
        snprintf(dg, sizeof dg, "%" PRIu64, d);
        snprintf(got, sizeof got, "%c.%se%c%02d", dg[0], dg + 1, x < 0 ? '-' : '+', abs(x));
        cr_assert(strlen(dg) == 17 && !strcmp(got, want), "v %a: %s, printf %s", v, got, want);
        /* the side: printf's first 60 digits (exact) against d's 17 */
        char wide[96];
        snprintf(wide, sizeof wide, "%.59e", v);
        int side = 0;
        for (int k = 0, at = 0; k < 61 && wide[k] != 'e'; k++) {
            if (wide[k] == '.')
                continue;
            if (at < 17 && wide[k] != dg[at] && !side)
                side = wide[k] > dg[at] ? 1 : -1;
            else if (at >= 17 && wide[k] != '0' && !side)
                side = 1;
            at++;
        }
        cr_assert(dir == side || dir == 2, "v %a: side %d, printf's %s against %s", v, dir,
                  wide, got);
        knew += dir != 2;
    }
    cr_assert(answered > n * 8 / 10 && plain_answered > plain - plain / 1000, "answered %ld of "
              "%ld, %ld of %ld random doubles above 1e-290", answered, n, plain_answered, plain);
    cr_assert(ties > 0, "no tie among the dyadic values (the test lost its ties)");
    cr_assert(knew > answered - answered / 100, "the side known for %ld of %ld", knew, answered);
    gsl_rng_free(r);
}

/* ga_fmt_g: byte for byte printf's "%.*g" at every precision 1..17 (beyond 15 and for ties
 * it is printf itself), for seeded random doubles of every exponent, short decimals, dyadic
 * numbers (exact ties at some precision), values next to powers of ten and to halves of the
 * last digit, special values, and buffers too short for the text (cut as snprintf cuts) */
Test(base, g_format_is_printf_byte_for_byte)
{
    double fixed[] = {0, -0.0, INFINITY, -INFINITY, NAN, 5e-324, 1e-300, 9.9999999999999e-301,
                      DBL_MAX, 0.5, 2.5, 1.25, 0.125, 999999.5, 9999995, 0.99999949999999996,
                      1e-5, 1.23672e-05, 0.000621283, 1, 10, 100000, 999999, 1e27, 1e28, -3.5e-20};
    gsl_rng *r = ga_test_rng(45);
    long n = ga_test_count(200000), nf = (long)(sizeof fixed / sizeof *fixed);
    for (long i = 0; i < n + nf; i++) {
        double v = i < nf ? fixed[i]
                   : ldexp(gsl_rng_uniform_pos(r), (int)gsl_rng_uniform_int(r, 2100) - 1050) *
                         (gsl_rng_uniform(r) < 0.5 ? -1 : 1);
        int p = 1 + (int)gsl_rng_uniform_int(r, 17);
        if (i >= nf && i % 5 == 0) { /* short decimals, within the table's exponents */
            v = (double)gsl_rng_uniform_int(r, 10000000);
            v *= pow(10, (int)gsl_rng_uniform_int(r, 40) - 25);
        }
        if (i >= nf && i % 5 == 1) { /* dyadic: exact ties */
            v = (double)gsl_rng_uniform_int(r, 1u << 24);
            v = ldexp(v, (int)gsl_rng_uniform_int(r, 60) - 40);
        }
        if (i >= nf && i % 5 == 2) /* next to a power of ten */
            v = nextafter(pow(10, (int)gsl_rng_uniform_int(r, 60) - 30), i % 2 ? 0 : INFINITY);
        if (i >= nf && i % 5 == 3) { /* next to a half of the p-th digit */
            double m = (double)(2 * gsl_rng_uniform_int(r, 1000000) + 1) / 2;
            v = m * pow(10, (int)gsl_rng_uniform_int(r, 30) - 20);
            v = i % 2 ? nextafter(v, 0) : v;
            p = 6;
        }
        char b[64], t[64];
        for (int k = 0; k < 2; k++) {
            size_t len = k ? 1 + (size_t)gsl_rng_uniform_int(r, 12) : sizeof b;
            memset(b, 'x', sizeof b);
            memset(t, 'x', sizeof t);
            ga_fmt_g(b, len, v, p);
            snprintf(t, len, "%.*g", p, v);
            cr_assert(!memcmp(b, t, sizeof b), "v %.17g at %d digits into %zu bytes: %s, printf %s",
                      v, p, len, b, t);
        }
    }
    gsl_rng_free(r);
}

/* The LAPACK door on row-major matrices (it runs each routine in place on the transposed
 * view): for random SPD matrices of sizes below and above LAPACK's block size, in a buffer
 * with a larger leading dimension, every routine's defining identity holds to a residual of
 * TOL_LAPACK (relative to |A| and the size), and the padding and the triangle a routine must
 * not write are untouched. */
#define TOL_LAPACK 64 /* times n eps */
static double lapack_resid(const double *A, const double *B, size_t n, size_t ld)
{
    double r = 0, m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            r = fmax(r, fabs(A[i * ld + j] - B[i * n + j]));
            m = fmax(m, fabs(B[i * n + j]));
        }
    return r / (m * n * DBL_EPSILON);
}

Test(base, lapack_door_row_major_identities)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 11);
    const size_t sizes[] = {1, 5, 70, 150};
    for (size_t si = 0; si < 4; si++) {
        size_t n = sizes[si], ld = n + 3;
        double *A = calloc(n * n, sizeof *A), *M = calloc(n * ld, sizeof *M), *P = calloc(n * n, sizeof *P),
               *w = calloc(n, sizeof *w);
        cr_assert(A && M && P && w);
        /* A = B B^T / n + I, symmetric exactly */
        double *B = calloc(n * n, sizeof *B);
        for (size_t i = 0; i < n * n; i++)
            B[i] = gsl_rng_uniform(g) - 0.5;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j <= i; j++) {
                double s = 0;
                for (size_t k = 0; k < n; k++)
                    s += B[i * n + k] * B[j * n + k];
                A[i * n + j] = A[j * n + i] = s / n + (i == j);
            }
        for (int lower = 0; lower < 2; lower++) {
            char uplo = lower ? 'L' : 'U';
            /* Cholesky: L L^T = A (lower) or U^T U = A (upper); the other triangle and the
             * padding keep their marker */
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < ld; j++)
                    M[i * ld + j] = j >= n || (lower ? j > i : j < i) ? -7.0 : A[i * n + j];
            cr_assert(ga_lapack_potrf(uplo, n, M, ld) == 0, "potrf %c n %zu", uplo, n);
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < ld; j++)
                    if (j >= n || (lower ? j > i : j < i))
                        cr_assert(M[i * ld + j] == -7.0, "potrf %c n %zu wrote [%zu][%zu]", uplo, n, i, j);
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++) {
                    double s = 0;
                    for (size_t k = 0; k < n; k++) {
                        double a = lower ? (k <= i ? M[i * ld + k] : 0) : (k <= i ? M[k * ld + i] : 0);
                        double b = lower ? (k <= j ? M[j * ld + k] : 0) : (k <= j ? M[k * ld + j] : 0);
                        s += a * b;
                    }
                    P[i * n + j] = s;
                }
            double r = lapack_resid(P, A, n, n);
            cr_expect(r <= TOL_LAPACK, "potrf %c n %zu: residual %.3g n eps", uplo, n, r);
            /* triangular inverse of the factor: T T^{-1} = I */
            double *T = calloc(n * ld, sizeof *T), *Id = calloc(n * n, sizeof *Id);
            cr_assert(T && Id);
            memcpy(T, M, n * ld * sizeof *T);
            cr_assert(ga_lapack_trtri(uplo, 'N', n, T, ld) == 0, "trtri %c n %zu", uplo, n);
            for (size_t i = 0; i < n; i++) {
                Id[i * n + i] = 1;
                for (size_t j = 0; j < n; j++) {
                    double s = 0;
                    for (size_t k = 0; k < n; k++) {
                        int in1 = lower ? k <= i : k >= i, in2 = lower ? j <= k : j >= k;
                        if (in1 && in2)
                            s += M[i * ld + k] * T[k * ld + j];
                    }
                    P[i * n + j] = s;
                }
            }
            r = lapack_resid(P, Id, n, n);
            cr_expect(r <= TOL_LAPACK * 16, "trtri %c n %zu: residual %.3g n eps", uplo, n, r);
            /* the inverse of A from its factor: A A^{-1} = I, from the triangle written */
            memcpy(T, M, n * ld * sizeof *T);
            cr_assert(ga_lapack_potri(uplo, n, T, ld) == 0, "potri %c n %zu", uplo, n);
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++) {
                    double s = 0;
                    for (size_t k = 0; k < n; k++) {
                        size_t a = lower ? (k <= j ? j : k) : (k <= j ? k : j),
                               b = lower ? (k <= j ? k : j) : (k <= j ? j : k);
                        s += A[i * n + k] * T[a * ld + b];
                    }
                    P[i * n + j] = s;
                }
            r = lapack_resid(P, Id, n, n);
            cr_expect(r <= TOL_LAPACK * 16, "potri %c n %zu: residual %.3g n eps", uplo, n, r);
            /* eigenvectors as columns: A v_j = w_j v_j, both drivers, either triangle read */
            for (int divide = 0; divide < 2; divide++) {
                for (size_t i = 0; i < n; i++)
                    for (size_t j = 0; j < ld; j++)
                        M[i * ld + j] = j >= n ? -7.0 : A[i * n + j];
                int info = divide ? ga_lapack_syevd('V', uplo, n, M, ld, w)
                                  : ga_lapack_syev('V', uplo, n, M, ld, w);
                cr_assert(info == 0, "syev%s %c n %zu: %d", divide ? "d" : "", uplo, n, info);
                double worst = 0;
                for (size_t j = 0; j < n; j++) {
                    if (j)
                        cr_expect(w[j] >= w[j - 1], "eigenvalues ascending");
                    for (size_t i = 0; i < n; i++) {
                        double s = 0;
                        for (size_t k = 0; k < n; k++)
                            s += A[i * n + k] * M[k * ld + j];
                        worst = fmax(worst, fabs(s - w[j] * M[i * ld + j]));
                    }
                    cr_expect(M[j * ld + n] == -7.0, "syev wrote the padding");
                }
                r = worst / (w[n - 1] * n * DBL_EPSILON);
                cr_expect(r <= TOL_LAPACK, "syev%s %c n %zu: residual %.3g n eps", divide ? "d" : "",
                          uplo, n, r);
            }
            free(T);
            free(Id);
        }
        free(A);
        free(B);
        free(M);
        free(P);
        free(w);
    }
    gsl_rng_free(g);
}

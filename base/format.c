/*
 * format.c - printing a bound so that it stays a bound, and text so that it cannot hide
 * what is printed beside it.
 *
 * A certified interval [lo, hi] of doubles (rounded outward from the Arb ball) printed with
 * "%.6g" is rounded to nearest: the printed lower bound can exceed lo, and the true value.
 * ga_fmt_bound prints at the given number of significant digits, rounded away from the
 * interval's inside: the decimal printed is <= v for a lower bound and >= v for an upper one,
 * so the printed interval contains [lo, hi]. With 17 digits it is exactly v (round trip).
 */
#include "base/base.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ga_fmt_bound(char *buf, size_t n, double v, int upper, int digits)
{
    if (digits < 1)
        digits = 1;
    if (digits > 17)
        digits = 17;
    if (!isfinite(v) || v == 0) {
        snprintf(buf, n, "%.17g", v);
        return;
    }
    snprintf(buf, n, "%.*g", digits, v);
    /* nearest rounding went the wrong way: step one unit of the last printed digit */
    for (int k = 0; k < 4; k++) {
        double back = strtod(buf, NULL);
        if (upper ? back >= v : back <= v)
            return;
        if (!isfinite(back)) /* rounded past DBL_MAX (a lower bound near it): exactly */
            break;
        int e = (int)floor(log10(fabs(back)));
        double step = pow(10.0, e - (digits - 1));
        snprintf(buf, n, "%.*g", digits, upper ? back + step : back - step);
    }
    snprintf(buf, n, "%.17g", v); /* exact */
}

/*
 * The shortest decimal that reads back, as "%.*g" prints it at the fewest digits p that read
 * back, without printf at each try: the 17 correctly rounded significant digits of |v| are
 * made once (from the reader's table of powers of five, ga_decimal_digits17, else by printf);
 * p digits are those rounded to nearest, which is the correct rounding of v
 * itself unless the digits dropped are exactly 5 followed by zeros (then printf decides the
 * tie on the exact binary value); a try reads the p-digit integer times a power of ten with
 * the one decimal reader (exact, as strtod); the text is laid out as %g lays it out.
 */
typedef struct {
    char d[18]; /* the 17 correctly rounded digits of |v|: d.ddd... 10^x */
    int x;
    int dir;    /* |v| against them: -1 below, 0 equal, 1 above; 2 not known */
} digits17;

static void get_digits17(digits17 *g, double a)
{
    uint64_t d;
    if (ga_decimal_digits17(&d, &g->x, &g->dir, a)) {
        for (int i = 16; i >= 0; i--, d /= 10)
            g->d[i] = (char)('0' + d % 10);
        g->d[17] = 0;
        return;
    }
    char b[40];
    snprintf(b, sizeof b, "%.16e", a); /* d.dddddddddddddddde[+-]xx */
    g->d[0] = b[0];
    memcpy(g->d + 1, b + 2, 16);
    g->d[17] = 0;
    g->x = atoi(b + 19);
    g->dir = 2;
}

/* |v| = a rounded to p significant digits (1 <= p <= 17): the digits in out[0..p) and the
 * exponent of the first */
static void round_digits(char *out, int *x, const digits17 *g, double a, int p)
{
    *x = g->x;
    memcpy(out, g->d, (size_t)p);
    if (p == 17)
        return;
    int up = g->d[p] > '5';
    if (g->d[p] == '5') {
        int rest = 0;
        for (int k = p + 1; k < 17; k++)
            rest |= g->d[k] != '0';
        if (rest) {
            up = 1;
        } else if (g->dir == 1 || g->dir == -1) { /* the 17 digits end in a half: |v| is on
                                                     g->dir's side of it */
            up = g->dir > 0;
        } else { /* a tie, or not known: round the exact value */
            char b[40];
            snprintf(b, sizeof b, "%.*e", p - 1, a);
            out[0] = b[0];
            if (p > 1)
                memcpy(out + 1, b + 2, (size_t)p - 1);
            *x = atoi(b + (p > 1 ? p + 2 : 2));
            return;
        }
    }
    if (!up)
        return;
    int k = p - 1;
    while (k >= 0 && out[k] == '9')
        out[k--] = '0';
    if (k >= 0) {
        out[k]++;
    } else { /* 99.9 -> 100 */
        out[0] = '1';
        (*x)++;
    }
}

/* do the p digits (exponent x of the first) read back as a? */
static int digits_read_back(const char *dg, int x, int p, double a)
{
    uint64_t m = 0;
    for (int k = 0; k < p; k++)
        m = 10 * m + (uint64_t)(dg[k] - '0');
    double r;
    ga_decimal_from_parts(&r, m, x - (p - 1));
    return r == a;
}

void ga_copy_cut(char *buf, size_t n, const char *s, size_t len)
{
    if (!n)
        return;
    size_t l = len < n ? len : n - 1;
    memcpy(buf, s, l);
    buf[l] = 0;
}

/* "%.*g" at precision p of (-1)^neg dg[0].dg[1..p) 10^x */
static void layout_g(char *buf, size_t n, int neg, const char *dg, int x, int p)
{
    char t[64];
    size_t k = 0;
    int len = p;
    if (neg)
        t[k++] = '-';
    if (x < -4 || x >= p) { /* style e, trailing zeros dropped */
        while (len > 1 && dg[len - 1] == '0')
            len--;
        t[k++] = dg[0];
        if (len > 1) {
            t[k++] = '.';
            for (int i = 1; i < len; i++)
                t[k++] = dg[i];
        }
        int ax = abs(x); /* "e%c%02d" */
        t[k++] = 'e';
        t[k++] = x < 0 ? '-' : '+';
        if (ax >= 100)
            t[k++] = (char)('0' + ax / 100);
        t[k++] = (char)('0' + ax / 10 % 10);
        t[k++] = (char)('0' + ax % 10);
        t[k] = 0;
    } else if (x >= 0) { /* style f: x + 1 integer digits, the fraction without trailing zeros */
        while (len > x + 1 && dg[len - 1] == '0')
            len--;
        for (int i = 0; i <= x; i++)
            t[k++] = dg[i];
        if (len > x + 1) {
            t[k++] = '.';
            for (int i = x + 1; i < len; i++)
                t[k++] = dg[i];
        }
        t[k] = 0;
    } else { /* 0.000ddd */
        while (len > 1 && dg[len - 1] == '0')
            len--;
        t[k++] = '0';
        t[k++] = '.';
        for (int i = 0; i < -x - 1; i++)
            t[k++] = '0';
        for (int i = 0; i < len; i++)
            t[k++] = dg[i];
        t[k] = 0;
    }
    ga_copy_cut(buf, n, t, k);
}

/*
 * "%.*g" at precision p without printf, for the many numbers of a large report (a name per
 * pair): with x the decimal exponent of |v| and k = p - 1 - x, s = |v| 10^k lies in
 * [10^(p-1), 10^p); 10^k for |k| <= 27 is exact in an x87 long double (64-bit significand:
 * 5^27 < 2^63; ga_p10l), so s carries one rounding, a relative 2^-64, and its integer part and
 * fraction are exact (s < 2^50). The digits are the integer part, rounded up when the
 * fraction exceeds one half by more than that rounding; a fraction that close to a half (a
 * tie, or a value within 2^-60 of one) and everything outside the table go to snprintf, as
 * do platforms whose long double is not that wide. The text is laid out as %g lays it out.
 */
#define GA_FMT_G_POW 27
void ga_fmt_g(char *buf, size_t n, double v, int p)
{
#if LDBL_MANT_DIG >= 64
    double a = fabs(v);
    if (p >= 1 && p <= 15 && isfinite(v) && a >= 1e-300) {
        int x = (int)floor(log10(a));
        for (int pass = 0; pass < 2; pass++) {
            int k = p - 1 - x;
            if (k > GA_FMT_G_POW || -k > GA_FMT_G_POW)
                break;
            long double s = k >= 0 ? (long double)a * ga_p10l(k) : (long double)a / ga_p10l(-k);
            if (s < ga_p10l(p - 1)) { /* (log10 rounded across a power of ten) */
                x--;
                continue;
            }
            if (s >= ga_p10l(p)) {
                x++;
                continue;
            }
            long double m = floorl(s), f = s - m;
            if (fabsl(f - 0.5L) <= 0x1p-60L * s)
                break; /* a tie or nearly: the exact binary value decides */
            unsigned long long d = (unsigned long long)m + (f > 0.5L);
            if (d == (unsigned long long)ga_p10l(p)) { /* 9.99...5 up to 10.0 */
                d /= 10;
                x++;
            }
            char dg[16];
            for (int i = p - 1; i >= 0; i--, d /= 10)
                dg[i] = (char)('0' + d % 10);
            layout_g(buf, n, signbit(v) != 0, dg, x, p);
            return;
        }
    }
#endif
    snprintf(buf, n, "%.*g", p, v);
}

void ga_fmt_shortest(char *buf, size_t n, double v)
{
    if (v == 0) { /* (a zero reads back at one digit: "0", "-0"; copied, not formatted: a
                     report of many pairs is mostly zeros, and snprintf's format parsing
                     cost a tenth of writing it) */
        const char *z = signbit(v) ? "-0" : "0";
        ga_copy_cut(buf, n, z, strlen(z));
        return;
    }
    if (!isfinite(v)) {
        snprintf(buf, n, "%.1g", v);
        return;
    }
    /* the fewest digits that read back: if p digits do, p + 1 do (the nearest decimal of p + 1
     * digits is at least as near as the one of p). Most doubles of a computation need 16 or
     * 17 digits: those are settled by one or two tries, shorter ones by a bisection over
     * 1..15 */
    double a = fabs(v);
    digits17 g;
    get_digits17(&g, a);
    char dg[18];
    int x, p;
    round_digits(dg, &x, &g, a, 16);
    if (!digits_read_back(dg, x, 16, a)) {
        p = 17;
    } else {
        round_digits(dg, &x, &g, a, 15);
        if (!digits_read_back(dg, x, 15, a)) {
            p = 16;
        } else {
            int lo = 1, hi = 15;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                round_digits(dg, &x, &g, a, mid);
                if (digits_read_back(dg, x, mid, a))
                    hi = mid;
                else
                    lo = mid + 1;
            }
            p = lo;
        }
    }
    /* 10 as "10", not "1e+01": plain digits between 1 and 1e15 */
    int e = a >= 1 && a < 1e15 ? (int)floor(log10(a)) + 1 : 0;
    if (p < e)
        p = e;
    round_digits(dg, &x, &g, a, p);
    layout_g(buf, n, signbit(v) != 0, dg, x, p);
}

/* the order of a and b: -1, 0, 1 */
static int order(double a, double b)
{
    return a < b ? -1 : a > b ? 1 : 0;
}

void ga_fmt_decide(char *buf, size_t n, double v, double ref, int min_digits)
{
    if (!isfinite(v) || !isfinite(ref) || v == ref) {
        ga_fmt_shortest(buf, n, v);
        return;
    }
    /* at p digits, v and ref print differently and in v's order against ref */
    for (int p = min_digits < 1 ? 1 : min_digits; p <= 17; p++) {
        char r[40];
        snprintf(buf, n, "%.*g", p, v);
        snprintf(r, sizeof r, "%.*g", p, ref);
        if (order(strtod(buf, NULL), strtod(r, NULL)) == order(v, ref))
            return;
    }
    snprintf(buf, n, "%.17g", v);
}

void ga_fmt_bound_decide(char *buf, size_t n, double v, int upper, double ref, int min_digits)
{
    int p = min_digits < 1 ? 1 : min_digits;
    if (isfinite(ref) && v == ref)
        p = 17; /* the bound is the claim itself: exactly (rounding outward would cross it) */
    for (; p < 17; p++) {
        ga_fmt_bound(buf, n, v, upper, p);
        double back = strtod(buf, NULL);
        /* outward, and on the same side of ref as v */
        if (!isfinite(ref) || order(back, ref) == order(v, ref))
            return;
    }
    ga_fmt_bound(buf, n, v, upper, 17);
}

size_t ga_utf8_len(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned char c = u[0];
    size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
             : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (size_t k = 1; k < n; k++)
        if ((u[k] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && u[1] < 0xa0) || (c == 0xed && u[1] > 0x9f) || (c == 0xf0 && u[1] < 0x90) ||
        (c == 0xf4 && u[1] > 0x8f))
        return 0;
    return n;
}

size_t ga_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[65];
    if (la > 64 || lb > 64)
        return 99;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

const char *ga_nearest(const char *word, const char *const *cands, size_t n, size_t maxd,
                       int prefixes)
{
    const char *best = NULL;
    size_t lw = strlen(word), bd = maxd + 1;
    for (size_t i = 0; i < n; i++) {
        if (!cands[i])
            continue;
        size_t d = ga_edit_distance(word, cands[i]);
        /* a prefix (--cert for --certified) is as good as one edit */
        if (prefixes && lw >= 3 && strlen(cands[i]) > lw && !strncmp(word, cands[i], lw) && d > 1)
            d = 1;
        if (d < bd) {
            bd = d;
            best = cands[i];
        }
    }
    return best;
}

void ga_join(char *buf, size_t size, const char *const *items, size_t n)
{
    size_t len = 0;
    if (size)
        buf[0] = 0;
    for (size_t i = 0; i < n && len + 1 < size; i++) {
        int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", items[i]);
        len = w < 0 ? size : len + (size_t)w;
    }
}

size_t ga_utf8_hidden(const char *s, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] == 0xd8 && u[1] == 0x9c) { /* U+061C ARABIC LETTER MARK */
        *cp = 0x061c;
        return 2;
    }
    if ((u[0] != 0xe2 && u[0] != 0xef) || (u[1] & 0xc0) != 0x80 || (u[2] & 0xc0) != 0x80)
        return 0;
    unsigned c = ((unsigned)(u[0] & 0x0f) << 12) | ((unsigned)(u[1] & 0x3f) << 6) | (u[2] & 0x3f);
    if ((c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
        (c >= 0x2060 && c <= 0x2064) || (c >= 0x2066 && c <= 0x2069) || c == 0xfeff) {
        *cp = c;
        return 3;
    }
    return 0;
}

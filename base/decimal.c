/*
 * decimal.c - the one number reader: every number gaussaudit reads from text (the
 * command line, a spec, a CSV field, the decimal inputs of the certified path) goes through
 * here. The rule: a plain decimal, [+-] digits [. digits] [(e|E) [+-] digits], with at least
 * one digit before the exponent; no spaces, no hex floats, no inf/nan spellings (strtod would
 * take all three). As a double it must be finite (no overflow) and a nonzero decimal must not
 * underflow to 0; it is rounded to nearest, exactly as strtod rounds (subnormals are kept:
 * x = 1e-320 is a valid point): by one IEEE operation on exact operands where the decimal has
 * at most 15-16 digits and a small exponent (most numbers in a spec or CSV file; several
 * times faster than strtod); else, up to 19 digits, by one 64 x 128-bit product with a
 * truncated power of five wherever the product's error cannot change the rounding (the
 * Eisel-Lemire method); by strtod otherwise (more digits, subnormal results, the rare
 * products too close to a rounding boundary). The digits are taken eight at a time where
 * eight in a row are digits and fit the 19 kept (one 64-bit load, its value by three
 * multiply-adds: numbers of 8 and more digits fill CSV files). The certified path reads the
 * decimal itself.
 */
#include "base/base.h"
#include "base/pow5.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* strtod under the rule's range checks (the syntax is checked by the caller) */
static int strtod_checked(double *v, const char *s)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (*end || !isfinite(d))
        return GA_EINVAL;
    if (d == 0 && errno == ERANGE)
        return GA_EINVAL; /* a nonzero decimal below the subnormal range */
    *v = d;
    return GA_OK;
}

/* A decimal's parts: [+-] digits [. digits] [(e|E) [+-] digits] read as (-1)^neg m 10^e10,
 * m of at most 19 significant digits (toolong: more; m then holds the first 19, and only
 * strtod converts it), trailing zeros held back into e10 (1500 is 15e2). GA_OK, or
 * GA_EINVAL when s[0..len) breaks the rule's syntax: the one place the rule is checked
 * (ga_decimal_syntax, ga_decimal_to_double and ga_decimal_scan all scan with it). */
typedef struct {
    int neg, toolong;
    uint64_t m;
    long e10;
} dec_parts;

/* Eight digits at once (a little-endian 64-bit load; strings of CSV files are mostly 8 and
 * more digits long): their byte values less '0', x (the first digit in the low byte), when
 * all eight are digits, else 0 (a zero digit is 0x00, so a run of '0's returns 0 too: the
 * caller then takes the byte loop, which is right for any input). */
static uint64_t eight_digits(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, p, 8);
    /* each byte in '0'..'9': its high nibble 3, and adding 6 keeps it 3 (no carry out) */
    const uint64_t hi = UINT64_C(0xF0F0F0F0F0F0F0F0), three = UINT64_C(0x3030303030303030);
    if ((x & hi) != three || ((x + UINT64_C(0x0606060606060606)) & hi) != three)
        return 0;
    return x - three;
#else
    (void)p;
    return 0;
#endif
}

/* the value of the eight digits x of eight_digits (the first most significant): pairs, then
 * quadruples, then the whole, each step one multiply-add per lane */
static uint64_t eight_value(uint64_t x)
{
    x = (x * 10 + (x >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
    x = (x * 100 + (x >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
    return (x * 10000 + (x >> 32)) & UINT64_C(0xFFFFFFFF);
}

static const uint64_t pow10_u64[20] = {
    UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
    UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
    UINT64_C(10000000000), UINT64_C(100000000000), UINT64_C(1000000000000),
    UINT64_C(10000000000000), UINT64_C(100000000000000), UINT64_C(1000000000000000),
    UINT64_C(10000000000000000), UINT64_C(100000000000000000),
    UINT64_C(1000000000000000000), UINT64_C(10000000000000000000)};

static int scan_parts(dec_parts *d, const char *s, size_t len)
{
    const char *p = s, *end = s + len;
    int digits = 0, sig = 0, zeros = 0, toolong = 0;
    uint64_t m = 0;
    memset(d, 0, sizeof *d);
    if (p < end && (*p == '+' || *p == '-'))
        d->neg = *p++ == '-';
    /* the digits before the point, then (frac = 1) those after it: leading zeros skipped,
     * zeros after a significant digit held back until a nonzero digit follows */
    for (int frac = 0; frac < 2; frac++) {
        const char *run = p;
        for (; p < end; p++) {
            uint64_t x;
            /* eight digits with a nonzero one, all of which fit: what the byte loop below
             * does to them, at once (lz leading and tz trailing zero digits; the trailing
             * ones held back, the digits between appended after the held-back zeros) */
            if (end - p >= 8 && sig + zeros + 8 <= 19 && (x = eight_digits(p)) != 0) {
                int lz = __builtin_ctzll(x) / 8, tz = __builtin_clzll(x) / 8;
                m = m * pow10_u64[zeros + 8 - tz] + eight_value(x << (8 * tz));
                sig += sig ? zeros + 8 - tz : 8 - tz - lz;
                zeros = tz;
                p += 7;
                continue;
            }
            unsigned c = (unsigned)(unsigned char)*p - '0';
            if (c > 9)
                break;
            if (!c) {
                zeros += sig > 0;
                continue;
            }
            if (sig + zeros < 19) {
                for (; zeros; zeros--, sig++)
                    m *= 10;
                m = m * 10 + c;
                sig++;
            } else {
                toolong = 1;
            }
            zeros = 0;
        }
        digits += (int)(p - run);
        if (frac)
            d->e10 -= (long)(p - run);
        if (frac || p == end || *p != '.')
            break;
        p++; /* the point */
    }
    d->m = m;
    d->toolong = toolong;
    if (!digits)
        return GA_EINVAL;
    d->e10 += zeros;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p == end || *p < '0' || *p > '9')
            return GA_EINVAL;
        long x = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            x = x < 100000 ? 10 * x + (*p - '0') : x; /* (beyond any double: strtod decides) */
        d->e10 += eneg ? -x : x;
    }
    return p == end ? GA_OK : GA_EINVAL;
}

/* ------------------------------------------------------------ Eisel-Lemire
 *
 * m 10^q with m < 2^64 and q in the table's range (D. Lemire, Number parsing at a gigabyte
 * per second, Software: Practice and Experience 51(8), 2021, after M. Eisel): with m
 * normalised, w = m 2^l in [2^63, 2^64), and 5^q = (T + f) 2^e (base/pow5.h: T in [2^127,
 * 2^128), 0 <= f < 1), the value is w (T + f) 2^{e + q - l}, and the 192-bit integer w (T + f)
 * lies in [P, P + w) with P = w T computed exactly. The double is P's top 53 bits rounded to
 * nearest (ties to even; sticky bits below): where the rounding of P and of P + w agree, it
 * is the rounding of every point between them (rounding is monotone), the exact value's
 * included. Otherwise, and for results outside the normal range, no answer (strtod decides). */

__extension__ typedef unsigned __int128 u128;

/* the top 53 bits of the 192-bit x2:x1:x0 (>= 2^190) rounded to nearest even; *lead the
 * position of the leading bit after rounding */
static uint64_t round_top(uint64_t x2, uint64_t x1, uint64_t x0, int *lead)
{
    int top = x2 >> 63 ? 191 : 190, sh = top - 52 - 128; /* x2 >> sh: 53 bits */
    uint64_t m = x2 >> sh, below = x2 & ((UINT64_C(1) << sh) - 1), half = UINT64_C(1) << (sh - 1);
    int sticky = (below & (half - 1)) != 0 || x1 || x0;
    if ((below & half) && (sticky || (m & 1)))
        m++;
    if (m >> 53) { /* 2^53: the next binade */
        m >>= 1;
        top++;
    }
    *lead = top;
    return m;
}

/* P = w T exactly, T the table's truncated 5^q (GA_POW5_QMIN <= q <= GA_POW5_QMAX), as the
 * 192-bit x[2]:x[1]:x[0]; returns the table's exponent e (5^q = (T + f) 2^e) */
static int pow5_times(uint64_t x[3], uint64_t w, long q)
{
    const uint64_t th = ga_pow5[q - GA_POW5_QMIN].hi, tl = ga_pow5[q - GA_POW5_QMIN].lo;
    u128 a = (u128)w * th, b = (u128)w * tl; /* P = a 2^64 + b */
    u128 mid = (u128)(uint64_t)(b >> 64) + (uint64_t)a;
    x[0] = (uint64_t)b;
    x[1] = (uint64_t)mid;
    x[2] = (uint64_t)(a >> 64) + (uint64_t)(mid >> 64);
    return ga_pow5[q - GA_POW5_QMIN].e;
}

static int eisel_lemire(double *v, uint64_t m, long q)
{
    if (m == 0 || q < GA_POW5_QMIN || q > GA_POW5_QMAX)
        return 0;
    int l = __builtin_clzll(m);
    uint64_t w = m << l, x[3];
    int e = pow5_times(x, w, q);
    uint64_t x0 = x[0], x1 = x[1], x2 = x[2];
    /* P + w (below 2^192: w (T + 1) <= w 2^128) */
    uint64_t y0 = x0 + w, c0 = y0 < x0, y1 = x1 + c0, c1 = c0 && y1 == 0, y2 = x2 + c1;
    int e1, e2;
    uint64_t m1 = round_top(x2, x1, x0, &e1), m2 = round_top(y2, y1, y0, &e2);
    if (m1 != m2 || e1 != e2)
        return 0;
    long ex = (long)e1 - 52 + e + q - l; /* m1's unit: 2^ex */
    if (ex + 52 < -1022 || ex + 52 > 1023)
        return 0; /* subnormal or beyond the largest double */
    *v = ldexp((double)m1, (int)ex);
    return 1;
}

/* m 10^e10 rounded to nearest without strtod, or 0: where m < 2^53 and |e10| <= 22 both
 * operands are exact doubles, so one IEEE multiplication or division rounds the exact value
 * to nearest, as strtod does (Clinger's fast path: W. D. Clinger, How to read floating point
 * numbers accurately, PLDI 1990); else Eisel-Lemire where it decides. */
static int fast_double(double *x, uint64_t m, long e10)
{
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (m < (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        *x = e10 >= 0 ? (double)m * p10[e10] : (double)m / p10[-e10];
        return 1;
    }
    return eisel_lemire(x, m, e10);
}

/* The double of a scanned decimal: fast_double, else strtod (on s itself when `terminated`,
 * s[len] == 0; else on a copy of s[0..len)). */
static int parts_to_double(double *v, const dec_parts *d, const char *s, size_t len,
                           int terminated)
{
    double x;
    if (!d->toolong && fast_double(&x, d->m, d->e10)) {
        *v = d->neg ? -x : x;
        return GA_OK;
    }
    if (terminated)
        return strtod_checked(v, s);
    char small[512], *t = len < sizeof small ? small : malloc(len + 1);
    if (!t)
        return GA_ENOMEM;
    memcpy(t, s, len);
    t[len] = 0;
    int rc = strtod_checked(v, t);
    if (t != small)
        free(t);
    return rc;
}

/* The 17 significant digits of a > 0, correctly rounded, from the same table: with a = w
 * 2^E (w normalised to [2^63, 2^64)) and k = 16 - x, x the decimal exponent of a, a 10^k =
 * w (T + f) 2^(E + e + k) lies in [P, P + w) 2^S with P = w T (S = E + e + k, about -136:
 * the integer part is in P's top word). Where every point of that range rounds to the same
 * integer D (all below or all above the half, checked exactly), D is the nearest integer to
 * a 10^k; an exact half (a tie, which printf breaks on the binary value) and a range that
 * straddles it give no answer. The side of D the exact value is on is known too. */
int ga_decimal_digits17(uint64_t *d, int *x, int *dir, double a)
{
    static const uint64_t e16 = UINT64_C(10000000000000000), e17 = 10 * e16;
    if (!(a > 0) || !isfinite(a))
        return 0;
    int be;
    uint64_t m = (uint64_t)ldexp(frexp(a, &be), 53); /* a = m 2^(be - 53), m < 2^53 */
    int l = __builtin_clzll(m);
    uint64_t w = m << l;
    long E = (long)be - 53 - l;
    int xe = (int)floor(log10(a));
    for (int pass = 0; pass < 3; pass++) {
        long k = 16 - xe;
        if (k < GA_POW5_QMIN || k > GA_POW5_QMAX)
            return 0;
        uint64_t pr[3];
        long sh = -(E + pow5_times(pr, w, k) + k); /* a 10^k = P 2^-sh */
        uint64_t x0 = pr[0], x1 = pr[1], x2 = pr[2];
        if (sh < 130 || sh > 191)
            return 0; /* (not in the top word: a 10^k far from [1e16, 1e17)) */
        int b = (int)(sh - 128);                          /* integer part: x2 >> b */
        uint64_t ip = x2 >> b, r2 = x2 & ((UINT64_C(1) << b) - 1), h2 = UINT64_C(1) << (b - 1);
        if (ip < e16) {
            xe--;
            continue;
        }
        if (ip >= e17) {
            xe++;
            continue;
        }
        /* the remainder R = r2:x1:x0 against the half H = h2:0:0, with the table's error
         * below w (none for 0 <= k <= 55, where the table is exact) */
        int exact = k >= 0 && k <= 55, up;
        if (r2 > h2 || (r2 == h2 && (x1 || x0))) {
            up = 1;
        } else if (r2 == h2) {
            return 0; /* a tie, or within w above one */
        } else {
            uint64_t y0 = x0 + (exact ? 0 : w), c0 = y0 < x0, y1 = x1 + c0;
            uint64_t y2 = r2 + (c0 && y1 == 0);
            if (y2 >= h2)
                return 0; /* R + w reaches the half: undecided */
            up = 0;
        }
        /* the exact value against D: rounded down, above it unless exactly D (R = 0 with
         * the exact table: the inexact ones have f > 0); rounded up, below it unless R + w
         * reaches the next integer (the value may then be D itself: not known) */
        int next = r2 == (UINT64_C(1) << b) - 1 && x1 == UINT64_MAX && x0 > UINT64_MAX - w;
        *dir = !up ? ((exact && !r2 && !x1 && !x0) ? 0 : 1) : (exact || !next) ? -1 : 2;
        uint64_t dd = ip + (uint64_t)up;
        if (dd == e17) { /* 9.99...95 up to 10.0 */
            dd = e16;
            xe++;
        }
        *d = dd;
        *x = xe;
        return 1;
    }
    return 0;
}

int ga_decimal_from_parts(double *v, uint64_t m, int e10)
{
    if (fast_double(v, m, e10))
        return GA_OK;
    char t[48]; /* (strtod: also below and beyond the rule's range) */
    snprintf(t, sizeof t, "%" PRIu64 "e%d", m, e10);
    *v = strtod(t, NULL);
    return GA_OK;
}

int ga_decimal_syntax(const char *s)
{
    dec_parts d;
    return s && scan_parts(&d, s, strlen(s)) == GA_OK;
}

int ga_decimal_to_double(double *v, const char *s)
{
    dec_parts d;
    size_t len = s ? strlen(s) : 0;
    if (!s || scan_parts(&d, s, len))
        return GA_EINVAL;
    return parts_to_double(v, &d, s, len, 1);
}

int ga_decimal_to_double_n(double *v, const char *s, size_t len)
{
    dec_parts d;
    if (!s || scan_parts(&d, s, len))
        return GA_EINVAL;
    return parts_to_double(v, &d, s, len, 0);
}

/* ------------------------------------------------------------ compact exact decimals
 *
 * A spec of dimension 2000 holds eight million numbers; keeping each one's text for the
 * certified path cost more than the matrices themselves. The double of a decimal m 10^e
 * (m of at most 19 digits) already pins m down to a few units: |v| 10^-e is within
 * 2^-52 |m| of m plus the double's rounding, so at most about 2000 for 19 digits. The low 16
 * bits of m then select it, and e is the other two bytes. Whether the recovery is right is
 * checked when the form is made (a decimal whose recovery fails, such as a subnormal double
 * with a 19-digit decimal, keeps its text instead), so the decoder may use any rounding of
 * the estimate, as long as it is the same function each time. */

/* (10^k in long double: exact for k <= 27, within a few units in the last place, 2^-64
 * relative, for larger k, which the 2^14 margin absorbs many times over) */
long double ga_p10l(int k)
{
    static const long double small[32] = {
        1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,  1e10L,
        1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L,
        1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L, 1e28L, 1e29L, 1e30L, 1e31L};
    static const long double big[5] = {1e32L, 1e64L, 1e128L, 1e256L, 1e512L};
    long double r = small[k & 31];
    for (int b = 0, q = k >> 5; q && b < 5; b++, q >>= 1)
        if (q & 1)
            r *= big[b];
    return r;
}

/* m from (v, dec): the integer congruent to dec.low mod 2^16 nearest to |v| 10^-e; *ok = 0
 * when the estimate is out of the 64-bit range */
static uint64_t dec_m(double v, ga_dec dec, int *ok, int *dist)
{
    long double a = fabsl((long double)v);
    int k = -(int)dec.e;
    long double est = k >= 0 ? a * ga_p10l(k) : a / ga_p10l(-k);
    *ok = est < 18446744073709486080.0L; /* 2^64 - 2^16 */
    if (!*ok)
        return 0;
    /* rounded to nearest by llrintl (the x87 store in the current rounding mode: no switch
     * of the control word, which a conversion by truncation needs and which stalls) */
    uint64_t r = est >= 9223372036854775808.0L
                     ? (uint64_t)llrintl(est - 9223372036854775808.0L) + (UINT64_C(1) << 63)
                     : (uint64_t)llrintl(est);
    int16_t s = (int16_t)(uint16_t)((uint16_t)r - dec.low);
    *dist = s < 0 ? -s : s;
    return r - (uint64_t)(int64_t)s;
}

int ga_decimal_scan(double *v, ga_dec *dec, const char *s, size_t len)
{
    dec_parts p;
    double d;
    int rc = scan_parts(&p, s, len);
    if (rc || (rc = parts_to_double(&d, &p, s, len, 0)))
        return rc;
    *v = d;
    dec->e = GA_DEC_LONG;
    dec->low = 0;
    if (p.toolong || p.e10 <= GA_DEC_LONG || p.e10 > INT16_MAX)
        return GA_OK;
    ga_dec c = {(int16_t)p.e10, (uint16_t)(p.m & 0xffff)};
    int ok, dist;
    if (dec_m(d, c, &ok, &dist) == p.m && ok && dist <= (1 << 14))
        *dec = c;
    return GA_OK;
}

char *ga_put_digits(char *p, uint64_t x)
{
    char d[24];
    int n = 0;
    do {
        d[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    while (n)
        *p++ = d[--n];
    return p;
}

void ga_decimal_text(char *buf, double v, ga_dec dec)
{
    int ok, dist;
    char *p = buf;
    if (signbit(v))
        *p++ = '-';
    p = ga_put_digits(p, dec_m(v, dec, &ok, &dist));
    if (dec.e) {
        *p++ = 'e';
        if (dec.e < 0)
            *p++ = '-';
        p = ga_put_digits(p, (uint64_t)(dec.e < 0 ? -(int)dec.e : dec.e));
    }
    *p = 0;
}

/* The exact product of two plain decimals as text the reader reads, [-]digits[e[-]digits]:
 * the significant digits multiplied by schoolbook arithmetic, the exponents added. Used where
 * a kind's law is a product of the spec's decimals (a variance sigma^2), so that the
 * certified path reads the exact value, not the double of the double's square. */
int ga_decimal_mul_text(char *out, size_t outlen, const char *a, const char *b)
{
    enum { MAXD = 400 };
    unsigned char da[MAXD], db[MAXD];
    int prod[2 * MAXD];
    size_t na = 0, nb = 0;
    long ea = 0, eb = 0;
    int neg = 0;
    for (int w = 0; w < 2; w++) {
        const char *s = w ? b : a, *p = s;
        unsigned char *dd = w ? db : da;
        size_t *nd = w ? &nb : &na;
        long *ee = w ? &eb : &ea;
        dec_parts chk;
        if (!s || scan_parts(&chk, s, strlen(s)))
            return GA_EINVAL;
        neg ^= chk.neg;
        if (*p == '+' || *p == '-')
            p++;
        int frac = 0;
        for (; *p && *p != 'e' && *p != 'E'; p++) {
            if (*p == '.') {
                frac = 1;
                continue;
            }
            if (*nd == 0 && *p == '0') { /* leading zeros carry no digit */
                *ee -= frac;
                continue;
            }
            if (*nd >= MAXD)
                return GA_EINVAL;
            dd[(*nd)++] = (unsigned char)(*p - '0');
            *ee -= frac;
        }
        if (*p) { /* the exponent (scan_parts checked its syntax) */
            char *end;
            long x = strtol(p + 1, &end, 10);
            if (x > 100000 || x < -100000)
                return GA_EINVAL;
            *ee += x;
        }
    }
    if (na == 0 || nb == 0) { /* a zero factor */
        if (outlen < 2)
            return GA_EINVAL;
        strcpy(out, "0");
        return GA_OK;
    }
    size_t np = na + nb;
    memset(prod, 0, np * sizeof *prod);
    for (size_t i = na; i-- > 0;) {
        int carry = 0;
        for (size_t j = nb; j-- > 0;) {
            int t = prod[i + j + 1] + da[i] * db[j] + carry;
            prod[i + j + 1] = t % 10;
            carry = t / 10;
        }
        prod[i] += carry;
    }
    size_t first = 0;
    while (first + 1 < np && prod[first] == 0)
        first++;
    size_t need = (size_t)neg + (np - first) + 1 + 21 + 1;
    if (outlen < need)
        return GA_EINVAL;
    char *o = out;
    if (neg)
        *o++ = '-';
    for (size_t k = first; k < np; k++)
        *o++ = (char)('0' + prod[k]);
    snprintf(o, outlen - (size_t)(o - out), "e%ld", ea + eb);
    return GA_OK;
}

/* log10 of a decimal "m.mmm" or "m.mmme-NNNN" (exponents beyond the double range); -inf for
 * zero, NaN when unreadable */
double ga_decimal_log10(const char *d)
{
    if (!ga_decimal_syntax(d))
        return NAN;
    /* the mantissa by the one reader, the exponent apart (it may lie beyond the double range) */
    const char *e = strpbrk(d, "eE");
    size_t l = e ? (size_t)(e - d) : strlen(d);
    char mant[80];
    double m;
    if (l >= sizeof mant)
        return NAN;
    memcpy(mant, d, l);
    mant[l] = 0;
    if (ga_decimal_to_double(&m, mant) != GA_OK)
        return NAN;
    double ex = e ? strtod(e + 1, NULL) : 0; /* (digits with a sign: the syntax was checked) */
    return m > 0 ? log10(m) + ex : m == 0 ? -INFINITY : NAN;
}

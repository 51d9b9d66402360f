/*
 * decimal.c - the one number reader (issue 14): every number gaussaudit reads from text (the
 * command line, a spec, a CSV field, the decimal inputs of the certified path) goes through
 * here. The rule: a plain decimal, [+-] digits [. digits] [(e|E) [+-] digits], with at least
 * one digit before the exponent; no spaces, no hex floats, no inf/nan spellings (strtod would
 * take all three). As a double it must be finite (no overflow) and a nonzero decimal must not
 * underflow to 0; it is rounded to nearest by strtod (subnormals are kept: x = 1e-320 is a
 * valid point). The certified path reads the decimal itself.
 */
#include "numerics/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ga_decimal_syntax(const char *s)
{
    if (!s)
        return 0;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        p++;
        digits++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            p++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == 0;
}

int ga_decimal_to_double(double *v, const char *s)
{
    if (!ga_decimal_syntax(s))
        return GA_EINVAL;
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

/* 10^k, k >= 0, in long double: exact for k <= 27, within a few units in the last place
 * (2^-64 relative) for larger k, which the 2^14 margin absorbs many times over */
static long double p10l(int k)
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
    long double est = k >= 0 ? a * p10l(k) : a / p10l(-k);
    *ok = est < 18446744073709486080.0L; /* 2^64 - 2^16 */
    if (!*ok)
        return 0;
    uint64_t r = (uint64_t)(est + 0.5L);
    int16_t s = (int16_t)(uint16_t)((uint16_t)r - dec.low);
    *dist = s < 0 ? -s : s;
    return r - (uint64_t)(int64_t)s;
}

int ga_decimal_scan(double *v, ga_dec *dec, const char *s, size_t len)
{
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *p = s, *end = s + len;
    int neg = 0, digits = 0, sig = 0, zeros = 0, toolong = 0;
    uint64_t m = 0;
    long e10 = 0;
    if (p < end && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    /* the digits, trailing zeros held back (1500 is 15e2: fewer digits to keep) */
    for (int frac = 0; p < end; p++) {
        if (*p == '.' && !frac) {
            frac = 1;
            continue;
        }
        if (*p < '0' || *p > '9')
            break;
        digits++;
        e10 -= frac;
        if (*p == '0') {
            zeros += sig > 0;
            continue;
        }
        if (sig + zeros + 1 > 19) {
            toolong = 1;
        } else {
            for (; zeros; zeros--, sig++)
                m *= 10;
            m = m * 10 + (uint64_t)(*p - '0');
            sig++;
        }
        zeros = 0;
    }
    if (!digits)
        return GA_EINVAL;
    e10 += zeros;
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
        e10 += eneg ? -x : x;
    }
    if (p != end)
        return GA_EINVAL;
    /* the double: exact operands and one rounding where they are exact (m < 2^53, 10^|e|
     * <= 10^22), strtod otherwise */
    double d;
    if (!toolong && m < (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        d = e10 >= 0 ? (double)m * p10[e10] : (double)m / p10[-e10];
        if (neg)
            d = -d;
    } else {
        char small[512], *t = len < sizeof small ? small : malloc(len + 1);
        if (!t)
            return GA_ENOMEM;
        memcpy(t, s, len);
        t[len] = 0;
        int rc = ga_decimal_to_double(&d, t);
        if (t != small)
            free(t);
        if (rc)
            return rc;
    }
    *v = d;
    dec->e = GA_DEC_LONG;
    dec->low = 0;
    if (toolong || e10 <= GA_DEC_LONG || e10 > INT16_MAX)
        return GA_OK;
    ga_dec c = {(int16_t)e10, (uint16_t)(m & 0xffff)};
    int ok, dist;
    if (dec_m(d, c, &ok, &dist) == m && ok && dist <= (1 << 14))
        *dec = c;
    return GA_OK;
}

/* the decimal digits of x at p; returns the end */
static char *put_digits(char *p, uint64_t x)
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
    p = put_digits(p, dec_m(v, dec, &ok, &dist));
    if (dec.e) {
        *p++ = 'e';
        if (dec.e < 0)
            *p++ = '-';
        p = put_digits(p, (uint64_t)(dec.e < 0 ? -(int)dec.e : dec.e));
    }
    *p = 0;
}

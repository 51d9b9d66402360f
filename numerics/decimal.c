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

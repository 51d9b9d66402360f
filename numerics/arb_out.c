/*
 * arb_out.c - certified values leaving ball arithmetic: outward-rounded double bounds and
 * intervals (clipped to [0, 1] for probabilities), decimal strings whose digits keep the
 * bound a bound for a reader that converts them to doubles, and the certified options'
 * defaults.
 */
#include "numerics/arb.h"

#include <gsl/gsl_errno.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ga_arb_bound_str(char *buf, size_t len, const arb_t v, int upper, int digits)
{
    arf_t b;
    mpfr_t m;
    arf_init(b);
    /* the bound rounded outward to a few more bits than printed (never exactly: mid 1 with
     * radius 2^-(10^20) would need 10^20 bits) */
    slong bp = 4 * (slong)digits + 64;
    if (upper)
        arb_get_ubound_arf(b, v, bp);
    else
        arb_get_lbound_arf(b, v, bp);
    if (!arf_is_finite(b)) {
        snprintf(buf, len, "%s", upper ? "inf" : "-inf");
        arf_clear(b);
        return;
    }
    if (arf_is_zero(b)) {
        snprintf(buf, len, "0");
        arf_clear(b);
        return;
    }
    if (fmpz_bits(ARF_EXPREF(b)) > 24) {
        /* beyond MPFR's exponent range (a tail like 10^-(10^40)): |b| = m 10^k with
         * L = log10|b| in ball arithmetic at a precision that resolves its fractional part
         * to the digits asked, k = floor(mid L), m = 10^(L - k) in [1, 10) (about); m is
         * then rounded outward like any other number and k is printed exactly */
        int neg = arf_sgn(b) < 0, away = upper != neg; /* away from zero: |bound| >= |b| */
        slong p = (slong)fmpz_bits(ARF_EXPREF(b)) + 4 * digits + 64;
        fmpz_t k;
        arb_t L, t;
        arf_t u;
        fmpz_init(k);
        arb_init(L);
        arb_init(t);
        arf_init(u);
        arf_abs(u, b);
        arb_set_arf(L, u);
        arb_log(L, L, p);
        arb_const_log10(t, p);
        arb_div(L, L, t, p);
        arf_get_fmpz(k, arb_midref(L), ARF_RND_FLOOR);
        arb_sub_fmpz(L, L, k, p);
        arb_mul(L, L, t, p);
        arb_exp(L, L, p); /* m, a ball around |b| 10^-k */
        if (away)
            arb_get_ubound_arf(u, L, p);
        else
            arb_get_lbound_arf(u, L, p);
        mpfr_init2(m, p);
        arf_get_mpfr(m, u, MPFR_RNDN); /* exact: p bits hold it */
        mpfr_exp_t e;
        char *ms = mpfr_get_str(NULL, &e, 10, (size_t)digits, m, away ? MPFR_RNDU : MPFR_RNDD);
        fmpz_add_si(k, k, (slong)e - 1); /* m = 0.DDD 10^e: D.DD 10^(k + e - 1) */
        char *ks = fmpz_get_str(NULL, 10, k);
        int w = snprintf(buf, len, "%s%c.%se%s", neg ? "-" : "", ms[0], ms + 1, ks);
        if (w < 0 || (size_t)w >= len) {
            /* the exponent does not fit (a tail like 10^-(10^599)): a weaker bound that
             * does. Toward zero: 0. Away from zero (|b| < 10^(k+1), k < 0): 10^-K with
             * K = -(k+1) cut to its leading digits, K' <= K, and 10^-K' >= 10^-K > |b|. */
            if (!away || fmpz_sgn(k) >= 0) {
                snprintf(buf, len, away ? "%sinf" : "0", neg ? "-" : "");
            } else {
                fmpz_add_ui(k, k, 1);
                fmpz_neg(k, k); /* K */
                flint_free(ks);
                ks = fmpz_get_str(NULL, 10, k);
                size_t keep = len > 8 ? len - 8 : 1, kl = strlen(ks);
                if (kl > keep)
                    ks[keep] = 0; /* K' = K div 10^(kl - keep) <= K */
                snprintf(buf, len, "%s1e-%s", neg ? "-" : "", ks);
            }
        }
        flint_free(ks);
        mpfr_free_str(ms);
        mpfr_clear(m);
        fmpz_clear(k);
        arb_clear(L);
        arb_clear(t);
        arf_clear(u);
        arf_clear(b);
        return;
    }
    slong bits = arf_bits(b);
    mpfr_init2(m, bits < 64 ? 64 : bits);
    arf_get_mpfr(m, b, MPFR_RNDN); /* exact: enough bits */
    mpfr_exp_t e;
    char *s = mpfr_get_str(NULL, &e, 10, (size_t)digits, m, upper ? MPFR_RNDU : MPFR_RNDD);
    const char *d = s;
    int neg = 0;
    if (*d == '-') {
        neg = 1;
        d++;
    }
    /* d = digits of the mantissa 0.DDDD times 10^e: print as D.DDDDe(e-1) */
    snprintf(buf, len, "%s%c.%se%ld", neg ? "-" : "", d[0], d + 1, (long)(e - 1));
    mpfr_free_str(s);
    mpfr_clear(m);
    arf_clear(b);
}

void ga_arb_prob_str(char *buf, size_t len, const arb_t v, int upper, int digits)
{
    arf_t b;
    arf_init(b);
    if (upper)
        arb_get_ubound_arf(b, v, 4 * (slong)digits + 64);
    else
        arb_get_lbound_arf(b, v, 4 * (slong)digits + 64);
    if (upper && (!arf_is_finite(b) || arf_cmp_si(b, 1) >= 0))
        snprintf(buf, len, "1"); /* a probability: [0, 1] whatever the ball */
    else if (!upper && (!arf_is_finite(b) || arf_sgn(b) <= 0))
        snprintf(buf, len, "0");
    else
        ga_arb_bound_str(buf, len, v, upper, digits);
    arf_clear(b);
}

void ga_arb_prob_out(ga_interval *iv, char *lo, char *hi, size_t len, const arb_t v, int digits)
{
    ga_arb_interval(iv, v);
    ga_arb_prob_str(lo, len, v, 0, digits);
    ga_arb_prob_str(hi, len, v, 1, digits);
}

ga_cert_opts ga_cert_opts_or_default(const ga_cert_opts *opts)
{
    ga_cert_opts o;
    if (opts)
        o = *opts;
    else
        ga_cert_opts_init(&o);
    return o;
}

void ga_cert_opts_init(ga_cert_opts *o)
{
    o->digits = 17;
    o->max_prec = 4096;
    o->deadline = 0;
}

void ga_arb_bounds(ga_interval *iv, const arb_t v)
{
    arf_t b;
    arf_init(b);
    arb_get_lbound_arf(b, v, 53);
    iv->lo = arf_get_d(b, ARF_RND_FLOOR);
    arb_get_ubound_arf(b, v, 53);
    iv->hi = arf_get_d(b, ARF_RND_CEIL);
    arf_clear(b);
}

void ga_arb_interval(ga_interval *iv, const arb_t v)
{
    ga_arb_bounds(iv, v);
    /* probabilities: clip to [0, 1] (still an enclosure) */
    if (iv->lo < 0)
        iv->lo = 0;
    if (iv->hi > 1)
        iv->hi = 1;
}

/*
 * matmul.c - products of ball matrices on the BLAS, rigorous.
 *
 * Why: the certified delta of a pair of dimension k refines its reference by a few dozen k x k
 * products in ball arithmetic (pair/pair_cert.c). Arb's arb_mat_mul does them through
 * multimodular integer products, 2.75 s each at k = 1000 and 128 bits, and a refined
 * certificate took 100 s at k = 1000 and about 19 minutes at 2000. A floating-point product
 * of integers is exact as long as every partial sum is an integer below 2^53, and the BLAS
 * does it at tens of GFLOPS; this file reduces a ball-matrix product to such products.
 *
 * How (the error-free splitting of Ozaki, Ogita, Oishi and Rump, "Error-free transformations
 * of matrix multiplication by using fast routines of matrix multiplication and its
 * applications", Numer. Algorithms 59 (2012), in a fixed-point form):
 *  1. Each row i of A gets an exponent e_i with |mid A_ij| < 2^e_i for all j, each column j
 *     of B an exponent f_j alike. With beta = floor((53 - ceil(log2 m)) / 2) bits per limb (m
 *     the inner dimension) and L limbs, every midpoint is truncated to an integer X_ij with
 *     |X_ij| < 2^(beta L) in units of 2^(e_i - beta L), and X is cut into L signed limbs of
 *     beta bits: A = sum_p 2^(e_i - beta p) A^(p) + (truncation), |A^(p)_ij| < 2^beta.
 *  2. A^(p) B^(q) has integer entries below m 2^(2 beta) <= 2^53, and so has every partial
 *     sum in any order (FMA or not, any blocking or threading of the BLAS): one dgemm gives
 *     it exactly. The pairs with p + q <= L + 1 are computed (L (L + 1) / 2 dgemms); they are
 *     summed exactly in 64- and 128-bit integers and converted exactly to the midpoints.
 *  3. The rest is bounded, not computed:
 *     - the pairs with p + q >= L + 2: at most L m 2^(e_i + f_j - beta (n - 2)) for each
 *       n = p + q, in all below 2 L m 2^(e_i + f_j - beta L);
 *     - the truncation (below one unit 2^(e_i - beta L), the midpoint's mantissa read
 *       directly) and the radii: with Ar, Br the entrywise radii so extended and Aa, Ba
 *       bounds on the truncated values, |a b - X_a X_b| <= Ar (Ba + Br) + Aa Br, two dgemms
 *       of nonnegative matrices whose rounding is bounded by gamma_m (and by 2^-1022 per
 *       operation where it underflows, flushed or not), every step rounded up (nonneg_up).
 * The result is an enclosure of {a b : a in A, b in B}; its accuracy is relative to the
 * scale 2^(e_i + f_j) of the row and column (about m 2^-(beta L)), not to each entry: L = 5
 * limbs give 100 to 115 bits for 64 <= m <= 4096, and the integers stay within 128 bits.
 * Cost: L (L + 1) / 2 + 2 dgemms (17 for L = 5) and O(k^2) conversions: 0.79 s against Arb's
 * 2.75 s at k = 1000, with radii of 5e-28 against 2e-35 (make bench, section certified).
 */
#include "numerics/arb.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 ga_i128;
__extension__ typedef unsigned __int128 ga_u128;

#define LIMBS_MAX 5
#define EXP_RANGE 900 /* midpoints' exponents kept within +-900: no limb scale underflows */

/* one operand, split: L limb matrices and the bounds of step 3, in the operand's own layout
 * (row-major rows x cols); ex[t] is the exponent of row t (A) or column t (B) */
typedef struct {
    double *limb; /* L blocks of rows x cols */
    double *abs;  /* bound on |truncated value| */
    double *rad;  /* radius, truncation included */
    long *ex;
} split_t;

static void split_free(split_t *s)
{
    free(s->limb);
    free(s->abs);
    free(s->rad);
    free(s->ex);
}

/* Splits the ball matrix X (n1 x n2) by rows (byrow) or by columns into L limbs of beta
 * bits. Each midpoint x is read from its mantissa: |x| < 2^E, and X = floor(|x| 2^(beta L -
 * e)) comes from its two top limbs (the limbs below only lower the floor's argument by less
 * than 2^(E - 128 + beta L - e) < 1, which the floor of the two-limb value absorbs), so the
 * truncation is below one unit 2^(e - beta L). Returns 0, or -1 for a non-finite entry, an
 * exponent out of range or no memory. */
static int split(split_t *s, const arb_mat_t X, int byrow, int beta, int L)
{
    size_t n1 = (size_t)arb_mat_nrows(X), n2 = (size_t)arb_mat_ncols(X), nn = n1 * n2;
    size_t nex = byrow ? n1 : n2;
    int rc = -1;
    memset(s, 0, sizeof *s);
    s->limb = malloc(nn * (size_t)L * sizeof *s->limb);
    s->abs = malloc(nn * sizeof *s->abs);
    s->rad = malloc(nn * sizeof *s->rad);
    s->ex = malloc(nex * sizeof *s->ex);
    if (!s->limb || !s->abs || !s->rad || !s->ex)
        goto cleanup;
    /* (fresh blocks of megabytes: faulted in at once, not page by page) */
    ga_mem_prefault(s->limb, nn * (size_t)L * sizeof *s->limb);
    ga_mem_prefault(s->abs, nn * sizeof *s->abs);
    ga_mem_prefault(s->rad, nn * sizeof *s->rad);
    /* pass 1: the exponents */
    for (size_t t = 0; t < nex; t++)
        s->ex[t] = -EXP_RANGE; /* (an empty row or column: a scale far below the rest) */
    for (size_t i = 0; i < n1; i++)
        for (size_t j = 0; j < n2; j++) {
            const arb_struct *x = arb_mat_entry(X, (slong)i, (slong)j);
            const arf_struct *mid = arb_midref(x);
            if (mag_is_inf(arb_radref(x)))
                goto cleanup;
            if (arf_is_zero(mid))
                continue;
            if (arf_is_special(mid) || !ARF_IS_LAGOM(mid) || ARF_EXP(mid) > EXP_RANGE ||
                ARF_EXP(mid) < -EXP_RANGE)
                goto cleanup;
            long *ex = s->ex + (byrow ? i : j);
            if (ARF_EXP(mid) > *ex)
                *ex = (long)ARF_EXP(mid);
        }
    /* pass 2: X in units of 2^(e - beta L), its limbs, the bounds */
    long bl = (long)beta * L;
    ga_u128 mask = ((ga_u128)1 << beta) - 1;
    for (size_t i = 0; i < n1; i++)
        for (size_t j = 0; j < n2; j++) {
            size_t at = i * n2 + j;
            long e = s->ex[byrow ? i : j];
            const arb_struct *x = arb_mat_entry(X, (slong)i, (slong)j);
            const arf_struct *mid = arb_midref(x);
            ga_u128 a = 0;
            int neg = 0;
            if (!arf_is_zero(mid)) {
                mp_srcptr xp;
                mp_size_t xn;
                ARF_GET_MPN_READONLY(xp, xn, mid);
                ga_u128 top = ((ga_u128)xp[xn - 1] << 64) | (xn > 1 ? xp[xn - 2] : 0);
                long sh = 128 - bl + e - (long)ARF_EXP(mid); /* >= 128 - beta L > 0 */
                a = sh < 128 ? top >> sh : 0;
                neg = ARF_SGNBIT(mid);
            }
            double r = mag_is_zero(arb_radref(x)) ? 0 : mag_get_d(arb_radref(x));
            if (!isfinite(r))
                goto cleanup;
            /* (e - beta L >= -1015: the unit and these products are normal numbers) */
            s->abs[at] = a ? ldexp(ga_up((double)a), (int)(e - bl)) : 0;
            s->rad[at] = ga_up(r + ldexp(1.0, (int)(e - bl)));
            for (int p = L; p >= 1; p--) {
                double d = (double)(uint64_t)(a & mask);
                s->limb[(size_t)(p - 1) * nn + at] = neg ? -d : d;
                a >>= beta;
            }
        }
    rc = 0;
cleanup:
    if (rc)
        split_free(s);
    return rc;
}

/* upper bound on the sum of two products of nonnegative matrices (inner dimension m) from
 * the sum f of their floating values: each value is at least (1 - gamma_m) times the exact
 * one less m 2^-1021 (2m operations, each off by at most 2^-1022 in absolute value where it
 * underflows, flushed to zero or not), and 1 / (1 - gamma_m) <= 1 + 2 m u for m u <= 1/4:
 * (f + m 2^-1019) (1 + 2 (m + 1) u), rounded up */
static double nonneg_up(double f, size_t m)
{
    double fac = ga_up(1 + ldexp(2.0 * (double)(m + 1), -53));
    return ga_up(ga_up(f + ldexp((double)m, -1019)) * fac);
}

int ga_arb_mat_mul_blas(arb_mat_t C, const arb_mat_t A, const arb_mat_t B, slong prec)
{
    size_t r = (size_t)arb_mat_nrows(A), m = (size_t)arb_mat_ncols(A),
           c = (size_t)arb_mat_ncols(B), rc_n = r * c;
    if ((size_t)arb_mat_nrows(B) != m || (size_t)arb_mat_nrows(C) != r ||
        (size_t)arb_mat_ncols(C) != c || m < 2 || r == 0 || c == 0 || m > ((size_t)1 << 24) ||
        r > INT_MAX || c > INT_MAX)
        return -1;
    int lg = 0;
    while (((size_t)1 << lg) < m)
        lg++;
    int beta = (53 - lg) / 2; /* m 2^(2 beta) <= 2^53 */
    /* L limbs for about prec bits after the factor m of the bound, at most LIMBS_MAX: the
     * sums below fit 128 bits while 57 + beta (L - 2) <= 126 */
    int L = (int)((prec + lg + 4 + beta - 1) / beta);
    if (L < 2)
        L = 2;
    if (L > LIMBS_MAX)
        L = LIMBS_MAX;
    if (57 + beta * (L - 2) > 126)
        return -1;
    int rc = -1;
    split_t sa, sb;
    int have_a = split(&sa, A, 1, beta, L) == 0;
    int have_b = have_a && split(&sb, B, 0, beta, L) == 0;
    double *D = malloc(rc_n * sizeof *D), *G = malloc(rc_n * sizeof *G);
    int64_t *top = malloc(rc_n * sizeof *top), *sn = malloc(rc_n * sizeof *sn);
    ga_i128 *rest = malloc(rc_n * sizeof *rest);
    arf_t t, u;
    arf_init(t);
    arf_init(u);
    if (!have_b || !D || !G || !top || !sn || !rest)
        goto cleanup;
    ga_mem_prefault(D, rc_n * sizeof *D);
    ga_mem_prefault(G, rc_n * sizeof *G);
    ga_mem_prefault(top, rc_n * sizeof *top);
    ga_mem_prefault(sn, rc_n * sizeof *sn);
    ga_mem_prefault(rest, rc_n * sizeof *rest);
    memset(top, 0, rc_n * sizeof *top);
    memset(rest, 0, rc_n * sizeof *rest);
    /* step 2: S_n = sum_{p+q=n} A^(p) B^(q), exact; top = S_2, rest = sum_{n>=3} S_n 2^(beta
     * (L + 1 - n)) */
    for (int n = 2; n <= L + 1; n++) {
        memset(sn, 0, rc_n * sizeof *sn);
        for (int p = 1; p <= n - 1; p++) {
            int q = n - p;
            if (p > L || q > L)
                continue;
            ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)c, (int)m, 1.0,
                           sa.limb + (size_t)(p - 1) * r * m, (int)m,
                           sb.limb + (size_t)(q - 1) * m * c, (int)c, 0.0, D, (int)c);
            for (size_t x = 0; x < rc_n; x++)
                sn[x] += (int64_t)D[x];
        }
        if (n == 2)
            memcpy(top, sn, rc_n * sizeof *top);
        else
            for (size_t x = 0; x < rc_n; x++)
                rest[x] += (ga_i128)sn[x] * ((ga_i128)1 << (beta * (L + 1 - n)));
    }
    /* step 3: the radius, Ar (Ba + Br) + Aa Br */
    for (size_t x = 0; x < m * c; x++)
        sb.abs[x] = ga_up(sb.abs[x] + sb.rad[x]);
    ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)c, (int)m, 1.0, sa.rad,
                   (int)m, sb.abs, (int)c, 0.0, D, (int)c);
    ga_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)c, (int)m, 1.0, sa.abs,
                   (int)m, sb.rad, (int)c, 0.0, G, (int)c);
    /* the midpoints 2^(e_i + f_j - beta L - beta) (top 2^(beta (L - 1)) + rest), exact */
    long bl = (long)beta * L;
    double dropped = 2.0 * L * (double)m; /* (times 2^(e_i + f_j - beta L)) */
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < c; j++) {
            size_t x = i * c + j;
            arb_struct *z = arb_mat_entry(C, (slong)i, (slong)j);
            ga_i128 v = rest[x];
            arf_set_si(t, (slong)(int64_t)(v >> 64));
            arf_mul_2exp_si(t, t, 64);
            arf_set_ui(u, (ulong)(uint64_t)v);
            arf_add(t, t, u, ARF_PREC_EXACT, ARF_RND_DOWN);
            arf_set_si(u, (slong)top[x]);
            arf_mul_2exp_si(u, u, (slong)beta * (L - 1));
            arf_add(arb_midref(z), t, u, ARF_PREC_EXACT, ARF_RND_DOWN);
            long e = sa.ex[i] + sb.ex[j];
            arf_mul_2exp_si(arb_midref(z), arb_midref(z), e - bl - beta);
            long de = e - bl;
            double drop = ga_up(ldexp(dropped, (int)(de < -1070 ? -1070 : de)));
            double err = ga_up(nonneg_up(ga_up(D[x] + G[x]), m) + drop);
            if (isfinite(err)) /* (entries near 2^900 can overflow the radius's doubles) */
                mag_set_d(arb_radref(z), err);
            else
                mag_inf(arb_radref(z));
            arb_set_round(z, z, prec);
        }
    rc = 0;
cleanup:
    if (have_a)
        split_free(&sa);
    if (have_b)
        split_free(&sb);
    free(D);
    free(G);
    free(top);
    free(sn);
    free(rest);
    arf_clear(t);
    arf_clear(u);
    return rc;
}

void ga_arb_mat_mul(arb_mat_t C, const arb_mat_t A, const arb_mat_t B, slong prec)
{
    if (arb_mat_nrows(A) >= GA_ARB_MAT_BLAS_MIN && arb_mat_ncols(A) >= GA_ARB_MAT_BLAS_MIN &&
        arb_mat_ncols(B) >= GA_ARB_MAT_BLAS_MIN && ga_arb_mat_mul_blas(C, A, B, prec) == 0)
        return;
    arb_mat_mul(C, A, B, prec);
}

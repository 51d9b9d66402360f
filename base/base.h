/*
 * base.h - what every layer may use and nothing of the project's mathematics: messages
 * (msg.c), the one decimal reader (decimal.c), printing of bounds and text (format.c), the
 * monotonic clock (clock.c), the one door to BLAS and LAPACK (blas.c), large arrays (mem.c)
 * and outward rounding. Not installed.
 */
#ifndef GA_BASE_H
#define GA_BASE_H

#include "gaussaudit.h"

#include <complex.h>
#include <gsl/gsl_cblas.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_SQRT2
#define M_SQRT2 1.41421356237309504880
#endif
#ifndef M_LN2
#define M_LN2 0.69314718055994530942
#endif

/* snprintf into msg (if msg != NULL and msglen > 0). */
void ga_msg(char *msg, size_t msglen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The one number reader (base/decimal.c): is s a plain decimal ([+-] digits [. digits]
 * [e [+-] digits]; no spaces, hex, inf or nan)? And its double (finite, no overflow or
 * underflow): GA_OK or GA_EINVAL. */
int ga_decimal_syntax(const char *s);
int ga_decimal_to_double(double *v, const char *s);
/* the same for the len bytes at s (no NUL needed: a field of a line read in place) */
int ga_decimal_to_double_n(double *v, const char *s, size_t len);

/* The double nearest m 10^e10 (m < 10^19), as strtod would round it (also below and beyond
 * the reader's range: a subnormal, 0 or infinity); always GA_OK. */
int ga_decimal_from_parts(double *v, uint64_t m, int e10);
/* The 17 significant digits of a > 0 as printf's %.16e prints them: a ~ d 10^(x - 16) with
 * 10^16 <= d < 10^17, and *dir the sign of a - d 10^(x - 16) (-1, 0, 1; 2 where not known).
 * 1, or 0 where this fast way cannot decide (ties, values near them, subnormals; printf then
 * decides). */
int ga_decimal_digits17(uint64_t *d, int *x, int *dir, double a);

/* The exact product of the plain decimals a and b as text the reader reads
 * ([-]digits e[-]digits) in out (outlen bytes; 2 * 400 + 25 always suffice): GA_OK, or
 * GA_EINVAL (not plain decimals, more than 400 significant digits, or out too small). */
int ga_decimal_mul_text(char *out, size_t outlen, const char *a, const char *b);

/* A decimal in four bytes beside its double: the exact value is
 * m * 10^e where m is the one integer of at most 19 digits that is congruent to `low`
 * modulo 2^16 and nearest to |v| 10^-e (v the decimal's double: m lies within 2^14 of that
 * estimate, checked when it is made). e == GA_DEC_LONG: the decimal does not fit (more than
 * 19 significant digits, or a subnormal v too coarse to recover m) and its text is kept
 * apart. */
typedef struct {
    int16_t e;
    uint16_t low;
} ga_dec;
#define GA_DEC_LONG INT16_MIN
#define GA_DEC_TEXT_MAX 32 /* "-" 19 digits "e-" 5 digits NUL, rounded up */
/* The token s[0..len) by the one reader's rule (s need not end there: the token must be
 * followed by a character that is not part of a number, or end the buffer's text). GA_OK
 * with its double and compact form, or GA_EINVAL (syntax, overflow or underflow, as
 * ga_decimal_to_double). */
int ga_decimal_scan(double *v, ga_dec *dec, const char *s, size_t len);
/* The exact decimal of a compact form (dec.e != GA_DEC_LONG) as text that the one reader
 * reads: [-]digits[e[-]digits]; buf has GA_DEC_TEXT_MAX bytes. */
void ga_decimal_text(char *buf, double v, ga_dec dec);
/* log10 of a decimal the library printed, "m.mmm" or "m.mmme-NNNN" (exponents beyond the
 * double range): -inf for zero, NaN when unreadable */
double ga_decimal_log10(const char *d);

/* CLOCK_MONOTONIC seconds, and whether a deadline in those units (0: none) has passed */
double ga_monotonic(void);
int ga_expired(double deadline);

/* ------------------------------------------------------- BLAS and LAPACK (blas.c) */

/* The BLAS/LAPACK library (OpenBLAS, or GAUSSAUDIT_BLAS) is opened on the first call of any
 * function here. Its name, and whether it loaded with every symbol needed (*ok); without it
 * the CBLAS functions run on GSL's CBLAS and the LAPACK ones return GA_LAPACK_ENOLIB. */
const char *ga_blas_name(int *ok);
/* OpenBLAS's thread count (1 if the library has no such setting), and setting it
 * (process-wide) */
int ga_blas_threads(void);
void ga_blas_set_threads(int n);

/* CBLAS (the enums are GSL's, the standard values) */
double ga_cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
double ga_cblas_dnrm2(int n, const double *x, int incx);
void ga_cblas_dgemv(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE t, int m, int n, double alpha,
                    const double *a, int lda, const double *x, int incx, double beta, double *y,
                    int incy);
void ga_cblas_dgemm(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m,
                    int n, int k, double alpha, const double *a, int lda, const double *b,
                    int ldb, double beta, double *c, int ldc);
void ga_cblas_dsyrk(enum CBLAS_ORDER o, enum CBLAS_UPLO u, enum CBLAS_TRANSPOSE t, int n, int k,
                    double alpha, const double *a, int lda, double beta, double *c, int ldc);
void ga_cblas_dtrsm(enum CBLAS_ORDER o, enum CBLAS_SIDE s, enum CBLAS_UPLO u,
                    enum CBLAS_TRANSPOSE t, enum CBLAS_DIAG d, int m, int n, double alpha,
                    const double *a, int lda, double *b, int ldb);
void ga_cblas_dtrsv(enum CBLAS_ORDER o, enum CBLAS_UPLO u, enum CBLAS_TRANSPOSE t,
                    enum CBLAS_DIAG d, int n, const double *a, int lda, double *x, int incx);

/* Row-major LAPACK, as LAPACKE's row-major calls (same results to the bit). Each returns 0 on
 * success; > 0 LAPACK's INFO (not positive definite, singular, no convergence); < 0 a
 * refused argument: -i for the i-th argument (a size above INT_MAX, a NaN or infinity in the
 * part the routine reads), GA_LAPACK_ENOMEM, or GA_LAPACK_ENOLIB (no library). The triangle
 * routines read and write only the triangle uplo. */
#define GA_LAPACK_ENOMEM (-1010)
#define GA_LAPACK_ENOLIB (-1011)
/* A wrapper's return as a library status: GA_OK, GA_ENOMEM, GA_EDEP (no library), GA_EINVAL
 * (LAPACK's INFO or a refused argument). ga_lapack_why: the failure as text into buf (returns
 * buf): for GA_LAPACK_ENOMEM, what this thread's last failure could not allocate and how
 * much. */
int ga_lapack_status(int info);
const char *ga_lapack_why(char *buf, size_t n, int info);
int ga_lapack_potrf(char uplo, size_t n, double *a, size_t lda);
int ga_lapack_potri(char uplo, size_t n, double *a, size_t lda);
int ga_lapack_trtri(char uplo, char diag, size_t n, double *a, size_t lda);
int ga_lapack_posv(char uplo, size_t n, size_t nrhs, double *a, size_t lda, double *b,
                   size_t ldb);
/* eigenvalues ascending in w; jobz 'V': a's columns become the eigenvectors */
int ga_lapack_syev(char jobz, char uplo, size_t n, double *a, size_t lda, double *w);
int ga_lapack_syevd(char jobz, char uplo, size_t n, double *a, size_t lda, double *w);

/* ------------------------------------------------------- large arrays (mem.c) */

/* Advice that the bytes at p (a block of the caller's, NULL: nothing) are about to be written
 * in full: a block of 256 KiB or more is faulted in at once, in huge pages where the kernel
 * allows. Nothing else changes; a kernel without the advice faults the pages as they are
 * written. */
void ga_mem_prefault(void *p, size_t bytes);
/* The same in small pages (no huge pages asked: under the "madvise" setting the kernel may
 * compact memory to find them, which can cost more than the faults saved for blocks of a few
 * MiB written bit by bit) */
void ga_mem_populate(void *p, size_t bytes);
/* The huge-page advice of ga_mem_prefault alone, for a block then faulted in by parts */
void ga_mem_advise_huge(void *p, size_t bytes);
/* The parts, at most `most` (>= 1), a block of that many bytes is faulted in by on as many
 * threads: one per 2 MiB at most, >= 1 */
size_t ga_mem_parts(size_t bytes, size_t most);
/* The i-th of n parts of the block faulted in (ga_mem_populate of that part): the parts'
 * boundaries are at multiples of 2 MiB, so that each part, on its own thread, faults in
 * whole huge pages of a block advised by ga_mem_advise_huge; together they cover the block */
void ga_mem_populate_part(void *p, size_t bytes, size_t i, size_t n);

/* A full array grown: p (NULL: none yet) of *cap elements of elem bytes reallocated to twice
 * as many (first when *cap is 0), *cap updated. The new array, or NULL (no memory, or the
 * size would overflow) with p and *cap unchanged and still valid. */
void *ga_grow(void *p, size_t *cap, size_t elem, size_t first);

/* Outward rounding by one unit in the last place: for a correctly rounded r = fl(x) (an IEEE
 * operation or sqrt), the exact x lies in [ga_dn(r), ga_up(r)], so a chain of ga_up over
 * monotone operations on nonnegative upper bounds is an upper bound (and ga_dn below). */
static inline double ga_up(double x)
{
    return nextafter(x, INFINITY);
}

static inline double ga_dn(double x)
{
    return nextafter(x, -INFINITY);
}

/* v printed with digits significant digits (1..17), rounded outward: the text read back is
 * <= v (lower bound, upper = 0) or >= v (upper = 1); 17 digits print v exactly. */
void ga_fmt_bound(char *buf, size_t n, double v, int upper, int digits);
/* The first len bytes of s into buf (n bytes), cut to n - 1 bytes and terminated as
 * snprintf(buf, n, "%s", ...) cuts (nothing written when n is 0). */
void ga_copy_cut(char *buf, size_t n, const char *s, size_t len);
/* The decimal digits of x written at p (no terminator); returns the end. */
char *ga_put_digits(char *p, uint64_t x);
/* 10^k, k >= 0, in long double: exact for k <= 27 where the long double has a 64-bit
 * significand (5^27 < 2^63), within 2^-64 relative beyond. */
long double ga_p10l(int k);
/* snprintf(buf, n, "%.*g", p, v), byte for byte, without printf for most v (1 <= p <= 15;
 * otherwise, and for ties, printf itself). */
void ga_fmt_g(char *buf, size_t n, double v, int p);
/* The shortest decimal that reads back as v (at most 17 significant digits): a number as its
 * writer most likely wrote it (1e-05, 0.3). */
void ga_fmt_shortest(char *buf, size_t n, double v);

/* Does s start with a character that changes how the text around it is shown without being
 * seen itself: a bidirectional control (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)
 * or an invisible one (U+200B-U+200D, U+2060-U+2064, U+FEFF)? Its UTF-8 length (2 or 3) and
 * code point in *cp, or 0. The writers print such characters as the visible text \uXXXX, so
 * that a name cannot reorder or hide a verdict beside it. */
size_t ga_utf8_hidden(const char *s, unsigned *cp);
/* The length (1..4) of the well-formed UTF-8 sequence at s, or 0 when s starts with a byte
 * that is not (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). The writers
 * show such a byte as the text \xNN (Markdown, HTML, XML) or U+FFFD (JSON), so that a report
 * about a file with a Latin-1 name is still a valid document. */
size_t ga_utf8_len(const char *s);
/* The Levenshtein distance of a and b (99 when either is longer than 64 bytes). */
size_t ga_edit_distance(const char *a, const char *b);
/* The candidate closest to word within maxd edits (the first of the closest), or NULL: for
 * "did you mean" in messages. With prefixes, a candidate that word begins (word of at least 3
 * letters) counts as one edit. NULL entries of cands are skipped. */
const char *ga_nearest(const char *word, const char *const *cands, size_t n, size_t maxd,
                       int prefixes);
/* items[0..n) joined with ", " into buf (size bytes, NUL-terminated, cut when it is full):
 * the lists of valid names in messages */
void ga_join(char *buf, size_t size, const char *const *items, size_t n);
/* Digits that decide: v with the fewest significant digits (at least min_digits) whose
 * printed value is on the same side of ref as v (ref the claim v is compared with; v == ref
 * or non-finite: the shortest round trip). Rounded to nearest. */
void ga_fmt_decide(char *buf, size_t n, double v, double ref, int min_digits);
/* The same for a bound: rounded outward (ga_fmt_bound), with the digits that keep it on its
 * side of ref. */
void ga_fmt_bound_decide(char *buf, size_t n, double v, int upper, double ref, int min_digits);

#endif

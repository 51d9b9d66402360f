/*
 * blas.c - the linear-algebra library (BLAS and LAPACK), loaded when a computation first
 * needs it, and the six LAPACK routines the library calls on row-major matrices (Cholesky
 * factor, inverse and solve, triangular inverse, symmetric eigendecomposition).
 *
 * Loading on first use: OpenBLAS is a large shared object (14,000 symbol
 * relocations, a constructor that detects the processor, maps its buffers and starts its
 * threads); linked as a dependency it cost every start-up of the CLI about a third of its
 * time, `gaussaudit version` and `--help` included. It is opened with dlopen on the first
 * BLAS or LAPACK call (RTLD_LOCAL: its symbols stay out of the global scope), once, under
 * pthread_once. GAUSSAUDIT_BLAS names another library with the same CBLAS and Fortran LAPACK
 * symbols (a path or a soname; default libopenblas.so.0); the OpenBLAS thread-count functions
 * are optional. If the library cannot be opened or lacks a symbol, one line on stderr says
 * so; the CBLAS calls then run on GSL's reference CBLAS (which GSL links: same results up to
 * rounding, slower) and the LAPACK calls return GA_LAPACK_ENOLIB, so no result rests on a
 * routine that did not run.
 *
 * Where malloc can fail before the memory runs out (an address-space limit, RLIMIT_AS or
 * RLIMIT_DATA, or strict overcommit), OpenBLAS is dangerous: a buffer it cannot allocate is
 * asked for again, forever (blas_memory_alloc), so a command under `ulimit -v` would spin
 * until its time budget. There the library is opened with one thread (OPENBLAS_NUM_THREADS=1
 * unless the environment sets a count: no server threads, each with its buffer), and every
 * call first checks that a block larger than OpenBLAS's buffer (GA_BLAS_PROBE) can still be
 * allocated: if not, the CBLAS call runs on GSL's CBLAS and the LAPACK call returns
 * GA_LAPACK_ENOMEM. Without such a limit there is no check (malloc does not fail there; the
 * kernel's OOM killer is the only end).
 *
 * Why not LAPACKE: LAPACKE's only job here was the row-major convention, and it pulled in a
 * second copy of the reference LAPACK and BLAS (liblapack.so.3, libblas.so.3, libtmglib):
 * four more shared objects at start-up.
 *
 * Row-major convention: a row-major n x n matrix with leading dimension lda is, in memory,
 * the column-major transpose. The LAPACK wrappers do what LAPACKE's row-major path does, step
 * for step, so the results are the same to the last bit: copy the referenced part transposed
 * into a column-major buffer, call the routine with the same options, copy the result back
 * (only the referenced triangle for the triangular/positive-definite routines, so the other
 * triangle of the caller's matrix is left as it was). Workspace sizes come from LAPACK's own
 * query. Inputs with a NaN or infinity in the part the routine reads are refused before the
 * call (LAPACKE refused NaN; LAPACK's result on either is meaningless).
 *
 * Return values (LAPACK wrappers): 0 on success; > 0 LAPACK's own INFO (not positive definite
 * at that order, singular, no convergence); < 0 an argument refused: -i for the i-th argument
 * of the LAPACKE-style call (a size above INT_MAX, a non-finite entry), GA_LAPACK_ENOMEM when
 * a buffer could not be allocated, GA_LAPACK_ENOLIB when the library could not be loaded.
 *
 * The Fortran routines take the length of each character argument as a trailing hidden
 * argument (gfortran's convention since GCC 8 makes calls without them unsafe); OpenBLAS's
 * C-coded routines (potrf, potri, trtri) ignore them. Integers are 32-bit (OpenBLAS as Debian
 * builds it: openblas_config.h without OPENBLAS_USE64BITINT).
 */
#include "base/base.h"

#include <dlfcn.h>
#include <limits.h>
#include <sys/resource.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- loading */

typedef void potrf_fn(const char *, const int *, double *, const int *, int *, size_t);
typedef void trtri_fn(const char *, const char *, const int *, double *, const int *, int *,
                      size_t, size_t);
typedef void posv_fn(const char *, const int *, const int *, double *, const int *, double *,
                     const int *, int *, size_t);
typedef void syev_fn(const char *, const char *, const int *, double *, const int *, double *,
                     double *, const int *, int *, size_t, size_t);
typedef void syevd_fn(const char *, const char *, const int *, double *, const int *, double *,
                      double *, const int *, int *, const int *, int *, size_t, size_t);
typedef double ddot_fn(int, const double *, int, const double *, int);
typedef double dnrm2_fn(int, const double *, int);
typedef void dgemv_fn(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, int, int, double, const double *,
                      int, const double *, int, double, double *, int);
typedef void dgemm_fn(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int,
                      int, double, const double *, int, const double *, int, double, double *,
                      int);
typedef void dsyrk_fn(enum CBLAS_ORDER, enum CBLAS_UPLO, enum CBLAS_TRANSPOSE, int, int, double,
                      const double *, int, double, double *, int);
typedef void dtrsm_fn(enum CBLAS_ORDER, enum CBLAS_SIDE, enum CBLAS_UPLO, enum CBLAS_TRANSPOSE,
                      enum CBLAS_DIAG, int, int, double, const double *, int, double *, int);
typedef void dtrsv_fn(enum CBLAS_ORDER, enum CBLAS_UPLO, enum CBLAS_TRANSPOSE, enum CBLAS_DIAG,
                      int, const double *, int, double *, int);
typedef void set_threads_fn(int);
typedef int get_threads_fn(void);

/* the CBLAS routines the library calls */
typedef struct {
    ddot_fn *ddot;
    dnrm2_fn *dnrm2;
    dgemv_fn *dgemv;
    dgemm_fn *dgemm;
    dsyrk_fn *dsyrk;
    dtrsm_fn *dtrsm;
    dtrsv_fn *dtrsv;
} cblas_t;

/* GSL's CBLAS (libgslcblas, linked with GSL): the fallback */
static const cblas_t gsl_cblas = {cblas_ddot,  cblas_dnrm2, cblas_dgemv, cblas_dgemm,
                                  cblas_dsyrk, cblas_dtrsm, cblas_dtrsv};

static struct {
    int ok; /* every required symbol found */
    potrf_fn *potrf, *potri;
    trtri_fn *trtri;
    posv_fn *posv;
    syev_fn *syev;
    syevd_fn *syevd;
    cblas_t cb;
    set_threads_fn *set_threads; /* optional (OpenBLAS's own) */
    get_threads_fn *get_threads;
    char name[256];
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

/* more than the buffer OpenBLAS allocates per thread (128 MiB and a page, as Debian builds it) */
#define GA_BLAS_PROBE ((size_t)160 << 20)
static int constrained; /* malloc may fail before the memory runs out (set by load) */

static int memory_constrained(void)
{
    struct rlimit r;
    if ((getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY) ||
        (getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY))
        return 1;
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = 0;
    if (f) {
        if (fscanf(f, "%d", &mode) != 1)
            mode = 0;
        fclose(f);
    }
    return mode == 2;
}

/* can OpenBLAS be called now without the risk of its endless retry? (a block above its buffer
 * size can be had: mapped and unmapped, never touched) */
static int room(void)
{
    if (!constrained)
        return 1;
    void *p = malloc(GA_BLAS_PROBE);
    free(p);
    return p != NULL;
}

/* the library was not opened because the address space had no room for its buffer: the
 * LAPACK calls then fail for want of memory, not of a library */
static int skipped_for_room;

static void use_gsl_cblas(void)
{
    lib.cb = gsl_cblas;
}

static void load(void)
{
    const char *name = getenv("GAUSSAUDIT_BLAS");
    if (!name || !*name)
        name = "libopenblas.so.0";
    snprintf(lib.name, sizeof lib.name, "%s", name);
    constrained = memory_constrained();
    if (constrained && !getenv("OPENBLAS_NUM_THREADS") && !getenv("OMP_NUM_THREADS"))
        setenv("OPENBLAS_NUM_THREADS", "1", 0); /* (read by its constructor, in dlopen) */
    if (!room()) {
        skipped_for_room = 1;
        fprintf(stderr, "gaussaudit: %s not loaded: less than %zu MiB of address space is left "
                        "(ulimit -v); LAPACK routines fail, BLAS runs on GSL's CBLAS\n", name,
                GA_BLAS_PROBE >> 20);
        use_gsl_cblas();
        return;
    }
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    const char *missing = NULL;
    if (!h) {
        const char *e = dlerror();
        fprintf(stderr, "gaussaudit: cannot load the BLAS/LAPACK library %s (%s); LAPACK "
                        "routines fail, BLAS runs on GSL's CBLAS\n", name, e ? e : "dlopen failed");
        use_gsl_cblas();
        return;
    }
    /* a void * to a function pointer through memcpy (ISO C has no direct conversion) */
#define SYM(field, sym)                                                                        \
    do {                                                                                       \
        void *p = dlsym(h, sym);                                                               \
        if (!p && !missing)                                                                    \
            missing = sym;                                                                     \
        memcpy(&lib.field, &p, sizeof p);                                                      \
    } while (0)
    SYM(potrf, "dpotrf_");
    SYM(potri, "dpotri_");
    SYM(trtri, "dtrtri_");
    SYM(posv, "dposv_");
    SYM(syev, "dsyev_");
    SYM(syevd, "dsyevd_");
    SYM(cb.ddot, "cblas_ddot");
    SYM(cb.dnrm2, "cblas_dnrm2");
    SYM(cb.dgemv, "cblas_dgemv");
    SYM(cb.dgemm, "cblas_dgemm");
    SYM(cb.dsyrk, "cblas_dsyrk");
    SYM(cb.dtrsm, "cblas_dtrsm");
    SYM(cb.dtrsv, "cblas_dtrsv");
    const char *required = missing;
    SYM(set_threads, "openblas_set_num_threads");
    SYM(get_threads, "openblas_get_num_threads");
#undef SYM
    if (required) {
        fprintf(stderr, "gaussaudit: the BLAS/LAPACK library %s lacks %s; LAPACK routines "
                        "fail, BLAS runs on GSL's CBLAS\n", name, required);
        use_gsl_cblas();
        return;
    }
    if (!lib.set_threads || !lib.get_threads)
        lib.set_threads = NULL, lib.get_threads = NULL;
    lib.ok = 1;
}

static void need(void)
{
    pthread_once(&lib_once, load);
}

const char *ga_blas_name(int *ok)
{
    need();
    if (ok)
        *ok = lib.ok;
    return lib.name;
}

int ga_blas_threads(void)
{
    need();
    return lib.get_threads ? lib.get_threads() : 1;
}

void ga_blas_set_threads(int n)
{
    need();
    if (lib.set_threads)
        lib.set_threads(n);
}

/* ------------------------------------------------------- CBLAS */

/* the CBLAS to call now: the library's, or GSL's where OpenBLAS could not have its buffer
 * (room) */
static const cblas_t *cblas(void)
{
    need();
    return room() ? &lib.cb : &gsl_cblas;
}

double ga_cblas_ddot(int n, const double *x, int incx, const double *y, int incy)
{
    return cblas()->ddot(n, x, incx, y, incy);
}

double ga_cblas_dnrm2(int n, const double *x, int incx)
{
    return cblas()->dnrm2(n, x, incx);
}

void ga_cblas_dgemv(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE t, int m, int n, double alpha,
                    const double *a, int lda, const double *x, int incx, double beta, double *y,
                    int incy)
{
    cblas()->dgemv(o, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void ga_cblas_dgemm(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m,
                    int n, int k, double alpha, const double *a, int lda, const double *b,
                    int ldb, double beta, double *c, int ldc)
{
    cblas()->dgemm(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void ga_cblas_dsyrk(enum CBLAS_ORDER o, enum CBLAS_UPLO u, enum CBLAS_TRANSPOSE t, int n, int k,
                    double alpha, const double *a, int lda, double beta, double *c, int ldc)
{
    cblas()->dsyrk(o, u, t, n, k, alpha, a, lda, beta, c, ldc);
}

void ga_cblas_dtrsm(enum CBLAS_ORDER o, enum CBLAS_SIDE s, enum CBLAS_UPLO u,
                    enum CBLAS_TRANSPOSE t, enum CBLAS_DIAG d, int m, int n, double alpha,
                    const double *a, int lda, double *b, int ldb)
{
    cblas()->dtrsm(o, s, u, t, d, m, n, alpha, a, lda, b, ldb);
}

void ga_cblas_dtrsv(enum CBLAS_ORDER o, enum CBLAS_UPLO u, enum CBLAS_TRANSPOSE t,
                    enum CBLAS_DIAG d, int n, const double *a, int lda, double *x, int incx)
{
    cblas()->dtrsv(o, u, t, d, n, a, lda, x, incx);
}

/* ------------------------------------------------------- LAPACK, row-major */

/* what the last GA_LAPACK_ENOMEM on this thread could not allocate (bytes; SIZE_MAX: more
 * than size_t counts), and whether it was OpenBLAS's buffer (the probe of room()) */
static _Thread_local size_t failed_bytes;
static _Thread_local int failed_probe;

static void *failed(size_t bytes)
{
    failed_bytes = bytes;
    failed_probe = 0;
    return NULL;
}

/* 0 when a LAPACK routine can be called now, else GA_LAPACK_ENOLIB or GA_LAPACK_ENOMEM */
static int lapack_ready(void)
{
    need();
    if (!lib.ok && skipped_for_room) {
        failed_probe = 1;
        return GA_LAPACK_ENOMEM;
    }
    if (!lib.ok)
        return GA_LAPACK_ENOLIB;
    if (!room()) {
        failed_probe = 1;
        return GA_LAPACK_ENOMEM;
    }
    return 0;
}

/* does the triangle uplo (of a row-major n x n matrix; diagonal excluded when unit) hold a
 * NaN or an infinity? */
static int tri_bad(char uplo, int unit, size_t n, const double *a, size_t lda)
{
    int lower = uplo == 'L' || uplo == 'l';
    for (size_t i = 0; i < n; i++) {
        size_t j0 = lower ? 0 : i + (size_t)unit, j1 = lower ? i + 1 - (size_t)unit : n;
        for (size_t j = j0; j < j1; j++)
            if (!isfinite(a[i * lda + j]))
                return 1;
    }
    return 0;
}

static int ge_bad(size_t m, size_t n, const double *a, size_t lda)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            if (!isfinite(a[i * lda + j]))
                return 1;
    return 0;
}

/* dst (column-major, leading dimension ldd) = the row-major src's triangle uplo, or back
 * (from_col != 0: src column-major, dst row-major); entries outside the triangle are not
 * touched */
static void tri_copy(double *dst, size_t ldd, const double *src, size_t lds, char uplo,
                     size_t n, int from_col)
{
    int lower = uplo == 'L' || uplo == 'l';
    /* in row-major coordinates (i, j): the triangle is j <= i (lower) or j >= i */
    for (size_t i = 0; i < n; i++) {
        size_t j0 = lower ? 0 : i, j1 = lower ? i + 1 : n;
        for (size_t j = j0; j < j1; j++) {
            if (from_col)
                dst[i * ldd + j] = src[j * lds + i];
            else
                dst[j * ldd + i] = src[i * lds + j];
        }
    }
}

/* the whole m x n matrix transposed: dst[j * ldd + i] = src[i * lds + j] */
static void ge_copy(double *dst, size_t ldd, const double *src, size_t lds, size_t m, size_t n)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            dst[j * ldd + i] = src[i * lds + j];
}

/* the leading n x n block of a row-major matrix transposed in place, in tiles */
static void transpose_square(double *a, size_t lda, size_t n)
{
    enum { B = 32 };
    for (size_t ib = 0; ib < n; ib += B)
        for (size_t jb = ib; jb < n; jb += B) {
            size_t ie = ib + B < n ? ib + B : n, je = jb + B < n ? jb + B : n;
            for (size_t i = ib; i < ie; i++)
                for (size_t j = jb > i + 1 ? jb : i + 1; j < je; j++) {
                    double t = a[i * lda + j];
                    a[i * lda + j] = a[j * lda + i];
                    a[j * lda + i] = t;
                }
        }
}

static int size_ok(size_t n)
{
    return n <= INT_MAX;
}

/* a column-major buffer for an n x m matrix (at least one element) */
static double *buffer(size_t n, size_t m)
{
    size_t c = (n ? n : 1) * (m ? m : 1);
    if (c > SIZE_MAX / sizeof(double))
        return failed(SIZE_MAX);
    double *p = malloc(c * sizeof(double));
    return p ? p : failed(c * sizeof(double));
}

int ga_lapack_status(int info)
{
    return info == 0 ? GA_OK : info == GA_LAPACK_ENOMEM ? GA_ENOMEM
                             : info == GA_LAPACK_ENOLIB ? GA_EDEP : GA_EINVAL;
}

const char *ga_lapack_why(char *buf, size_t n, int info)
{
    if (info == GA_LAPACK_ENOMEM && failed_probe)
        snprintf(buf, n, "no memory: the BLAS library needs a buffer of %zu MiB that the "
                 "address-space limit (ulimit -v) does not leave", GA_BLAS_PROBE >> 20);
    else if (info == GA_LAPACK_ENOMEM && failed_bytes == SIZE_MAX)
        snprintf(buf, n, "no memory: a LAPACK buffer larger than the address space");
    else if (info == GA_LAPACK_ENOMEM)
        snprintf(buf, n, "no memory: a LAPACK buffer of %zu bytes could not be allocated",
                 failed_bytes);
    else if (info == GA_LAPACK_ENOLIB)
        snprintf(buf, n, "the BLAS/LAPACK library %s could not be loaded", lib.name);
    else if (info > 0)
        snprintf(buf, n, "LAPACK INFO = %d (not positive definite, singular, or no "
                 "convergence at that order)", info);
    else
        snprintf(buf, n, "argument %d refused (a size above INT_MAX, a NaN or infinity)", -info);
    return buf;
}

/* the three routines of the form routine(uplo[, diag], n, a, lda, info) */
enum tri_routine { TRI_POTRF, TRI_POTRI, TRI_TRTRI };

/* The column-major view of a row-major triangle is the transposed triangle of the other
 * kind, and each of these routines commutes with the transpose (the Cholesky factor of A
 * stored as rows is the transposed factor stored as columns; likewise the inverse of a
 * triangle and of A from its factor): the routine runs in place on a with the other uplo,
 * with no copy. */
static char other_uplo(char uplo)
{
    return uplo == 'L' || uplo == 'l' ? 'U' : 'L';
}

static int tri_call(enum tri_routine r, char uplo, char diag, size_t n, double *a, size_t lda)
{
    int unit = r == TRI_TRTRI && (diag == 'U' || diag == 'u');
    int argn = r == TRI_TRTRI ? 3 : 2, arga = argn + 1, argl = argn + 2;
    int ready = lapack_ready();
    if (ready)
        return ready;
    if (!size_ok(n))
        return -argn;
    if (lda < (n ? n : 1) || !size_ok(lda))
        return -argl;
    if (tri_bad(uplo, unit, n, a, lda))
        return -arga;
    int in = (int)n, ld = (int)lda, info = 0;
    char cu = other_uplo(uplo);
    if (r == TRI_POTRF)
        lib.potrf(&cu, &in, a, &ld, &info, 1);
    else if (r == TRI_POTRI)
        lib.potri(&cu, &in, a, &ld, &info, 1);
    else
        lib.trtri(&cu, &diag, &in, a, &ld, &info, 1, 1);
    return info;
}

int ga_lapack_potrf(char uplo, size_t n, double *a, size_t lda)
{
    return tri_call(TRI_POTRF, uplo, 'N', n, a, lda);
}

int ga_lapack_potri(char uplo, size_t n, double *a, size_t lda)
{
    return tri_call(TRI_POTRI, uplo, 'N', n, a, lda);
}

int ga_lapack_trtri(char uplo, char diag, size_t n, double *a, size_t lda)
{
    return tri_call(TRI_TRTRI, uplo, diag, n, a, lda);
}

int ga_lapack_posv(char uplo, size_t n, size_t nrhs, double *a, size_t lda, double *b,
                   size_t ldb)
{
    int ready = lapack_ready();
    if (ready)
        return ready;
    if (!size_ok(n))
        return -2;
    if (!size_ok(nrhs))
        return -3;
    if (lda < (n ? n : 1) || !size_ok(lda))
        return -5;
    if (ldb < (nrhs ? nrhs : 1) || !size_ok(ldb))
        return -7;
    if (tri_bad(uplo, 0, n, a, lda))
        return -4;
    if (ge_bad(n, nrhs, b, ldb))
        return -6;
    double *t = buffer(n, n), *bt = buffer(n, nrhs);
    int info = GA_LAPACK_ENOMEM;
    if (!t || !bt)
        goto cleanup;
    int in = (int)n, ir = (int)nrhs, ld = n ? (int)n : 1;
    tri_copy(t, (size_t)ld, a, lda, uplo, n, 0);
    ge_copy(bt, (size_t)ld, b, ldb, n, nrhs);
    info = 0;
    lib.posv(&uplo, &in, &ir, t, &ld, bt, &ld, &info, 1);
    if (info >= 0) {
        ge_copy(b, ldb, bt, (size_t)ld, nrhs, n);
        tri_copy(a, lda, t, (size_t)ld, uplo, n, 1);
    }
cleanup:
    free(t);
    free(bt);
    return info;
}

/* dsyev (divide = 0) or dsyevd (divide = 1) */
static int sym_eig(int divide, char jobz, char uplo, size_t n, double *a, size_t lda, double *w)
{
    int ready = lapack_ready();
    if (ready)
        return ready;
    if (!size_ok(n))
        return -3;
    if (lda < (n ? n : 1) || !size_ok(lda))
        return -5;
    if (tri_bad(uplo, 0, n, a, lda))
        return -4;
    /* in place on a, the triangle read as the other uplo (see other_uplo) */
    int in = (int)n, ld = (int)lda, info = 0, lwork = -1, liwork = -1, iq = 0;
    char cu = other_uplo(uplo);
    double q = 0, *work = NULL;
    int *iwork = NULL;
    /* workspace query: the optimal sizes (the blocked algorithms depend on them) */
    if (divide)
        lib.syevd(&jobz, &cu, &in, a, &ld, w, &q, &lwork, &iq, &liwork, &info, 1, 1);
    else
        lib.syev(&jobz, &cu, &in, a, &ld, w, &q, &lwork, &info, 1, 1);
    if (info != 0)
        goto cleanup;
    if (!(q >= 1 && q < (double)INT_MAX) || iq < 0) {
        failed(SIZE_MAX);
        info = GA_LAPACK_ENOMEM;
        goto cleanup;
    }
    lwork = (int)q;
    liwork = iq > 0 ? iq : 1;
    work = malloc((size_t)lwork * sizeof *work);
    iwork = divide ? malloc((size_t)liwork * sizeof *iwork) : NULL;
    if (!work || (divide && !iwork)) {
        failed(!work ? (size_t)lwork * sizeof *work : (size_t)liwork * sizeof *iwork);
        info = GA_LAPACK_ENOMEM;
        goto cleanup;
    }
    if (divide)
        lib.syevd(&jobz, &cu, &in, a, &ld, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    else
        lib.syev(&jobz, &cu, &in, a, &ld, w, work, &lwork, &info, 1, 1);
    if (info >= 0 && (jobz == 'V' || jobz == 'v'))
        transpose_square(a, lda, n); /* the eigenvectors, from rows to columns */
cleanup:
    free(work);
    free(iwork);
    return info;
}

int ga_lapack_syev(char jobz, char uplo, size_t n, double *a, size_t lda, double *w)
{
    return sym_eig(0, jobz, uplo, n, a, lda, w);
}

int ga_lapack_syevd(char jobz, char uplo, size_t n, double *a, size_t lda, double *w)
{
    return sym_eig(1, jobz, uplo, n, a, lda, w);
}

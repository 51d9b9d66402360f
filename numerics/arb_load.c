/*
 * arb_load.c - FLINT/Arb opened on the first certified computation: the table of function
 * pointers that the forwarders (numerics/arb_fwd.c) call through (numerics/arb_api.h).
 *
 * The library is opened with dlopen (RTLD_LOCAL: its symbols stay out of the global scope)
 * once, under pthread_once; dlsym on its handle also finds what its dependencies define
 * (libflint's fmpz_*, MPFR's, GMP's). GAUSSAUDIT_ARB names another library (a path or a
 * soname) with the same symbols; the default is the soname the build linked against (the
 * Makefile reads it off libflint-arb.so: GA_ARB_SONAME). The table's pointer is an atomic,
 * stored after every entry is set (sequentially consistent, so at least release) and read
 * atomically (ga_arb): a thread that sees the pointer sees the entries.
 *
 * A library that cannot be opened or lacks a symbol: every public entry point that needs it
 * asks ga_cert_available() first and returns GA_EDEP (the message: its why), so the
 * library, the command line and Python report it; a forwarder reached without that check
 * (a defect) still prints the message and aborts rather than compute with no library.
 */
#include "numerics/arb.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GA_ARB_SONAME
#define GA_ARB_SONAME "libflint-arb.so.2"
#endif

const struct ga_arb_table *_Atomic ga_arb_loaded;

static struct ga_arb_table table;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

/* ---- FLINT's allocations and aborts, caught inside ga_arb_guarded */

static _Thread_local jmp_buf *guard;     /* the innermost ga_arb_guarded on this thread */
static _Thread_local size_t guard_bytes; /* what could not be allocated (0: an abort) */
static char last_failure[200];
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;

static void no_memory(size_t n)
{
    if (guard) {
        guard_bytes = n;
        longjmp(*guard, 1);
    }
}

static void *g_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p && n)
        no_memory(n);
    return p;
}

static void *g_calloc(size_t k, size_t n)
{
    void *p = calloc(k, n);
    if (!p && k && n)
        no_memory(n > SIZE_MAX / k ? SIZE_MAX : k * n);
    return p;
}

static void *g_realloc(void *q, size_t n)
{
    void *p = realloc(q, n);
    if (!p && n)
        no_memory(n);
    return p;
}

static void g_free(void *p)
{
    free(p);
}

/* FLINT's abort (its exceptions, and an allocation it could not have outside a guard) */
static void g_abort(void)
{
    if (guard) {
        guard_bytes = 0;
        longjmp(*guard, 2);
    }
    abort();
}

/* FLINT's allocator and abort handler, when the library has them (an older one without
 * them still aborts on an allocation failure) */
static void install_guard(void *h)
{
    void (*set_mem)(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t),
                    void (*)(void *));
    void (*set_abort)(void (*)(void));
    void *p = dlsym(h, "__flint_set_memory_functions"), *q = dlsym(h, "flint_set_abort");
    memcpy(&set_mem, &p, sizeof p);
    memcpy(&set_abort, &q, sizeof q);
    if (p)
        set_mem(g_malloc, g_calloc, g_realloc, g_free);
    if (q)
        set_abort(g_abort);
}

int ga_arb_guarded(ga_arb_step step, void *ctx, slong prec)
{
    jmp_buf jb;
    jmp_buf *volatile outer = guard;
    int how = setjmp(jb);
    if (how) { /* (longjmp from inside step: its frames are gone, what they held is lost) */
        guard = outer;
        pthread_mutex_lock(&last_lock);
        if (how == 1)
            snprintf(last_failure, sizeof last_failure, "FLINT/Arb could not allocate %zu "
                     "bytes (working precision %ld bits)", guard_bytes, (long)prec);
        else
            snprintf(last_failure, sizeof last_failure, "FLINT/Arb stopped with an exception "
                     "(working precision %ld bits)", (long)prec);
        pthread_mutex_unlock(&last_lock);
        return how == 1 ? GA_ENOMEM : GA_EDEP;
    }
    guard = &jb;
    int rc = step(ctx, prec);
    guard = outer;
    return rc;
}

void ga_arb_last_failure(char *buf, size_t n)
{
    pthread_mutex_lock(&last_lock);
    snprintf(buf, n, "%s", last_failure);
    pthread_mutex_unlock(&last_lock);
}

static void load(void)
{
    const char *name = getenv("GAUSSAUDIT_ARB");
    if (!name || !*name)
        name = GA_ARB_SONAME;
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(failure, sizeof failure, "gaussaudit: cannot load FLINT/Arb (%s), which "
                 "certified computations need: %s", name, e ? e : "dlopen failed");
        return;
    }
    const char *missing = NULL;
    /* a void * to a function pointer through memcpy (ISO C has no direct conversion) */
#define GA_ARB_SYM(f)                                                                          \
    {                                                                                          \
        void *p = dlsym(h, #f);                                                                \
        if (!p && !missing)                                                                    \
            missing = #f;                                                                      \
        memcpy(&table.f, &p, sizeof p);                                                        \
    }
    GA_ARB_FUNCTIONS(GA_ARB_SYM)
#undef GA_ARB_SYM
    if (missing) {
        snprintf(failure, sizeof failure, "gaussaudit: the FLINT/Arb library %s lacks %s, "
                 "which certified computations need", name, missing);
        return;
    }
    install_guard(h);
    ga_arb_loaded = &table;
}

int ga_cert_available(const char **why)
{
    pthread_once(&once, load);
    int ok = ga_arb_loaded != NULL;
    if (why)
        *why = ok ? "" : failure;
    return ok;
}

const struct ga_arb_table *ga_arb_load(void)
{
    pthread_once(&once, load);
    const struct ga_arb_table *t = ga_arb_loaded;
    if (!t) {
        fprintf(stderr, "%s\n", failure);
        abort();
    }
    return t;
}

void ga_arb_thread_cleanup(void)
{
    const struct ga_arb_table *t = ga_arb_loaded;
    if (t)
        t->flint_cleanup();
}

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
#include "numerics/arb_internal.h"

#include <dlfcn.h>
#include <pthread.h>
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

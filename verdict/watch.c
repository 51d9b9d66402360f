/*
 * watch.c - a running audit's progress, published for a caller that has to report before the
 * audit returns.
 *
 * The audit checks its deadline between steps (pairs, claims, quadrature nodes), but a single
 * step may outlast the time budget: one Arb quadrature at a high precision, one LAPACK
 * factorisation of a law of dimension 20000. The CLI runs the audit on a worker thread and,
 * when the budget ends first, reports from the watch: the audit publishes a snapshot into it
 * (the spec once parsed, again once its pairs are built; a copy of each claim once it is
 * decided; the stage it is in) under the watch's lock. The caller seals the watch by taking
 * the lock for good, so the audit stops at its next publication and never frees what the
 * snapshot points into (the spec's strings and pairs stay the audit's: the snapshot copies
 * only the claims). The report of a sealed watch keeps every decided claim (a claim decided
 * before the step that hung saw every pair it needed) and makes each other claim INCONCLUSIVE,
 * naming the stage the budget ended in.
 */
#include "verdict/audit.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int ga_audit_watch_init(ga_audit_watch *w)
{
    memset(w, 0, sizeof *w);
    w->t0 = mono();
    w->started = (long long)time(NULL);
    snprintf(w->stage, sizeof w->stage, "starting the audit");
    return pthread_mutex_init(&w->lock, NULL) ? GA_ENOMEM : GA_OK;
}

static void inputs_free(ga_spec_input *in, size_t n)
{
    for (size_t i = 0; in && i < n; i++) {
        free(in[i].key);
        free(in[i].path);
    }
    free(in);
}

void ga_audit_watch_clear(ga_audit_watch *w)
{
    inputs_free(w->inputs, w->ninputs);
    free(w->claims);
    pthread_mutex_destroy(&w->lock);
    memset(w, 0, sizeof *w);
}

void ga_audit_watch_spec(ga_audit_watch *w, const ga_audit *a, int built)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    if (a->nclaims > w->cap) {
        ga_claim_result *c = realloc(w->claims, a->nclaims * sizeof *c);
        if (c) {
            w->claims = c;
            w->cap = a->nclaims;
        }
    }
    /* the files read, copied: building the pairs may read more (a release matrix) and move
     * the spec's list */
    ga_spec_input *in = calloc(a->spec.ninputs ? a->spec.ninputs : 1, sizeof *in);
    int ok = in != NULL;
    for (size_t i = 0; ok && i < a->spec.ninputs; i++) {
        in[i] = a->spec.inputs[i];
        in[i].key = strdup(a->spec.inputs[i].key ? a->spec.inputs[i].key : "");
        in[i].path = strdup(a->spec.inputs[i].path ? a->spec.inputs[i].path : "");
        ok = in[i].key && in[i].path;
    }
    if (!ok) {
        inputs_free(in, a->spec.ninputs);
        in = NULL;
    }
    if (in && a->nclaims <= w->cap) { /* (no memory for the copies: the snapshot stays) */
        inputs_free(w->inputs, w->ninputs);
        w->inputs = in;
        w->ninputs = a->spec.ninputs;
        in = NULL;
        w->spec = a->spec;
        w->spec.inputs = w->inputs;
        if (built) /* (the pairs being built are not read) */
            w->set = a->set;
        else
            memset(&w->set, 0, sizeof w->set);
        w->built = built;
        memcpy(w->claims, a->claims, a->nclaims * sizeof *w->claims);
        w->nclaims = a->nclaims;
        memcpy(w->digest, a->digest, sizeof w->digest);
        w->certified_mode = a->certified_mode;
        w->table_eps = a->table_eps;
        memcpy(w->methods, a->methods, sizeof w->methods);
        w->have_spec = 1;
    }
    inputs_free(in, a->spec.ninputs);
    w->incomplete = a->incomplete;
    memcpy(w->timeout_note, a->timeout_note, sizeof w->timeout_note);
    pthread_mutex_unlock(&w->lock);
}

void ga_audit_watch_claim(ga_audit_watch *w, const ga_audit *a, size_t i)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    if (w->have_spec && i < w->nclaims)
        w->claims[i] = a->claims[i];
    w->incomplete = a->incomplete;
    memcpy(w->timeout_note, a->timeout_note, sizeof w->timeout_note);
    pthread_mutex_unlock(&w->lock);
}

void ga_audit_watch_stage(ga_audit_watch *w, const char *fmt, ...)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->stage, sizeof w->stage, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&w->lock);
}

void ga_audit_watch_leave(ga_audit_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->have_spec = 0;
    w->nclaims = 0;
    inputs_free(w->inputs, w->ninputs);
    w->inputs = NULL;
    w->ninputs = 0;
    memset(&w->spec, 0, sizeof w->spec);
    memset(&w->set, 0, sizeof w->set);
    snprintf(w->stage, sizeof w->stage, "starting the audit");
    w->incomplete = 0;
    w->timeout_note[0] = 0;
    pthread_mutex_unlock(&w->lock);
}

void ga_audit_watch_seal(ga_audit_watch *w)
{
    pthread_mutex_lock(&w->lock);
}

ga_audit_result *ga_audit_watch_report(ga_audit_watch *w, const char *path)
{
    ga_audit_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    ga_audit *a = &r->a;
    if (w->have_spec) {
        a->spec = w->spec;
        a->set = w->set; /* (none while the pairs were being built) */
        a->claims = w->claims;
        a->nclaims = w->nclaims;
        memcpy(a->digest, w->digest, sizeof a->digest);
        a->certified_mode = w->certified_mode;
        a->table_eps = w->table_eps;
        memcpy(a->methods, w->methods, sizeof a->methods);
    } else { /* the spec was being read: its file names it */
        const char *slash = strrchr(path, '/');
        a->spec.path = (char *)path;
        a->spec.name = slash ? slash + 1 : path;
    }
    a->timed_out = a->incomplete = 1;
    snprintf(a->timeout_note, sizeof a->timeout_note, "%.150s%sthe time budget (--timeout) "
             "ended while %.120s, inside a step that could not be interrupted", w->timeout_note,
             w->timeout_note[0] ? "; " : "", w->stage);
    a->overall = w->have_spec ? GA_VERDICT_VERIFIED : GA_VERDICT_INCONCLUSIVE;
    for (size_t i = 0; i < a->nclaims; i++) {
        ga_claim_result *c = &a->claims[i];
        if (!c->evaluated)
            ga_claim_not_evaluated(c, a->timeout_note);
        else if (w->incomplete && c->verdict != GA_VERDICT_VIOLATION) {
            /* decided on the pairs built before an earlier deadline: it cannot hold */
            c->verdict = GA_VERDICT_INCONCLUSIVE;
            size_t l = strlen(c->reason);
            snprintf(c->reason + l, sizeof c->reason - l, " (incomplete: %.300s)", w->timeout_note);
        }
        if (c->verdict > a->overall)
            a->overall = c->verdict;
    }
    a->started = w->started;
    a->seconds = mono() - w->t0;
    return r;
}

/*
 * cmd_audit.c - gaussaudit audit and merge: the specs audited on a worker thread each, with a
 * watch so that the budget's end still writes a report (the claims decided so far, the rest
 * not evaluated); reports written atomically in every format asked for, keeping the old
 * file's mode; shards (--shard I/N) and their merge.
 */
#include "cli/internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static const char *usage_audit =
    "usage: gaussaudit audit SPEC.yaml [--format md|html|json|junit] [-o FILE] [--certified]\n"
    "                        [--report FORMAT:FILE] [--claim YAML] [--timeout SECONDS]\n"
    "                        [--jobs N] [--quiet] [--allow-path DIR]\n"
    "       gaussaudit audit SPEC.yaml --shard I/N [-o PART.json] [--certified] ...\n"
    "       gaussaudit audit SPEC.yaml SPEC2.yaml ... --format junit [-o FILE] ...\n"
    "\n"
    "Check the spec's claim on every neighbouring pair and report a verdict:\n"
    "  VIOLATION           a certified lower bound exceeds the claim (exit status 1)\n"
    "  VERIFIED            the claim holds with certified upper bounds on a proven worst\n"
    "                      case (a universe bound), so for every neighbour (exit 0)\n"
    "  NO VIOLATION FOUND  the claim holds on all audited pairs (exit 0)\n"
    "  INCONCLUSIVE        neither could be established; the report says why (exit 2)\n"
    "Estimates decide where they are clear; certified intervals (Arb) are computed where a\n"
    "verdict depends on them, and for every pair (up to 200) with --certified.\n"
    "Claims: (epsilon, delta), profile points, RDP points, zCDP rho, GDP mu (doc/spec.md).\n"
    "For each claim the report gives the exact value, how conservative the claim is, the\n"
    "worst pair and direction, and the distinguishing event.\n"
    "  --format  md (default), html (one self-contained file with plots), json, junit\n"
    "  -o FILE   write the report to FILE instead of standard output (also -oFILE,\n"
    "            --output FILE, --output=FILE)\n"
    "  --report FORMAT:FILE  also write the report in FORMAT (md, html, json, junit) to\n"
    "            FILE, from the same audit (repeatable, up to 4; e.g. junit for the CI and\n"
    "            html for people: --format junit -o audit.xml --report html:audit.html)\n"
    "  --claim YAML  audit this claim instead of the spec's, a claim: mapping in YAML flow\n"
    "            style, e.g. --claim '{epsilon: 1, delta: 1e-5}' (doc/spec.md)\n"
    "  --quiet   no progress on standard error (shown for many pairs when it is a terminal)\n"
    "  --jobs N  read CSV files, build and evaluate the pairs on N threads (default: one per\n"
    "            online core); the report is the same for every N\n"
    "  --shard I/N  evaluate only pairs I, I + N, I + 2N, ... (counting from 1) and write a\n"
    "            partial result (JSON) instead of a report; 'gaussaudit merge' combines the\n"
    "            N parts into the report one run would give (run them anywhere: a job array)\n"
    "  --timeout SECONDS  the time budget (default 600 s; building the pairs gets 60% of the\n"
    "            computing time, the report the last 15% of the budget, at most 15 s): a\n"
    "            violation found stands, every other claim is INCONCLUSIVE, and the report\n"
    "            says how far the audit got; a step that cannot be interrupted ends the run\n"
    "            at SECONDS + 0.8 with exit 2 and no report\n"
    "  --allow-path DIR  also read files (CSV datasets) the spec names inside DIR; by default a\n"
    "            spec reads only regular files inside its own directory tree (repeatable)\n"
    "SPEC.yaml '-' reads the spec from standard input; it has no directory of its own, so\n"
    "the files it names are read only inside --allow-path's directories. '--' ends the\n"
    "options (a spec whose name starts with '-').\n"
    "Several specs (--format junit only): one JUnit document, a testsuite per spec (time,\n"
    "timestamp, hostname, properties with the tool version and the spec's SHA-256), a\n"
    "testcase per claim with classname from the spec's file and name; VIOLATION is a\n"
    "failure whose message carries the witness, INCONCLUSIVE an error (the Ant JUnit schema\n"
    "has no skipped); the specs share the one time budget. The exit status is the worst.\n"
    "Exit status: 0, 1, 2 as above; 64 usage, 65 data error, 66 spec not found, 74 output.\n";

/* the report(s) of an audit command: one result in any format, or several as JUnit (a spec
 * that could not be audited: r[i] NULL, its path and message in paths, errors) */
typedef struct {
    ga_audit_result **r;
    size_t n;
    int fmt;
    const char *const *paths;
    const char *const *errors;
} audit_reports;

static int write_reports(FILE *f, const audit_reports *ar)
{
    return ar->n == 1 && ar->fmt != GA_FORMAT_JUNIT
               ? ga_audit_result_write(f, ar->r[0], ar->fmt)
               : ga_audit_results_write_junit_errors(f, ar->r, ar->paths, ar->errors, ar->n);
}

/* -o to something that is not a regular file (/dev/null, /dev/stdout, a FIFO): written to
 * directly, since renaming a temporary file over it would replace the device or pipe itself
 * (as root, /dev/null became a regular file). Returns 0 or GA_EIO. */
static int write_direct(const char *path, const audit_reports *a, FILE *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        ga_cli_err(err, "gaussaudit: cannot write '%s': %s\n", path, strerror(errno));
        return GA_EIO;
    }
    int wr = write_reports(f, a);
    errno = 0;
    int bad = wr || fflush(f) != 0 || ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    if (bad)
        ga_cli_err(err, "gaussaudit: error writing '%s': %s\n", path, errno ? strerror(errno) : "write error");
    return bad ? GA_EIO : GA_OK;
}

/* -o FILE: the report goes to a temporary file in FILE's directory, is flushed and synced,
 * then renamed over FILE, so a reader sees the old report or the whole new one, never a
 * fragment; every failure is reported and leaves FILE as it was. Returns 0 or GA_EIO. */
static int write_atomic(const char *path, const audit_reports *a, const char *const *inputs,
                        size_t ninputs, FILE *err)
{
    struct stat st, si;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode))
        return write_direct(path, a, err);
    /* never replace one of the command's own inputs (a spec, a part) by its report */
    for (size_t i = 0; exists && i < ninputs; i++)
        if (inputs[i] && stat(inputs[i], &si) == 0 && si.st_dev == st.st_dev &&
            si.st_ino == st.st_ino) {
            ga_cli_err(err, "gaussaudit: -o '%s' is one of the command's inputs: not replaced\n",
                       path);
            return GA_EIO;
        }
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return GA_EIO;
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    snprintf(tmp, n + 16, "%.*s.%s.XXXXXX", (int)dl, path, path + dl);
    ga_cli_temp_guard(tmp);
    int rc = GA_EIO, fd = mkstemp(tmp);
    mode_t mask = umask(0); /* a new report gets the usual 0666 & ~umask, not mkstemp's 0600; */
    umask(mask);            /* a replaced one keeps its mode (a 0600 report stays 0600) */
    if (fd >= 0)
        fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        ga_cli_err(err, "gaussaudit audit: cannot write '%s': %s\n", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        ga_cli_temp_guard(NULL);
        free(tmp);
        return GA_EIO;
    }
    int wr = write_reports(f, a);
    errno = 0;
    if (wr || fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
        ga_cli_err(err, "gaussaudit audit: error writing '%s': %s\n", path,
                   errno ? strerror(errno) : "write error");
        fclose(f);
    } else if (fclose(f) != 0) {
        ga_cli_err(err, "gaussaudit audit: error writing '%s': %s\n", path, strerror(errno));
    } else if (rename(tmp, path) != 0) {
        ga_cli_err(err, "gaussaudit audit: cannot replace '%s': %s\n", path, strerror(errno));
    } else {
        rc = GA_OK;
    }
    if (rc)
        unlink(tmp);
    ga_cli_temp_guard(NULL);
    free(tmp);
    return rc;
}

/* "I/N" with 1 <= I <= N <= 100000: 0, or -1 */
static int parse_shard(size_t *i, size_t *n, const char *s)
{
    char a[16], b[16];
    const char *slash = strchr(s, '/');
    if (!slash || slash - s == 0 || slash - s >= 16 || strlen(slash + 1) == 0 ||
        strlen(slash + 1) >= 16)
        return -1;
    memcpy(a, s, (size_t)(slash - s));
    a[slash - s] = 0;
    strcpy(b, slash + 1);
    double x, y;
    if (strspn(a, "0123456789") != strlen(a) || strspn(b, "0123456789") != strlen(b) ||
        ga_cli_parse_double(&x, a) || ga_cli_parse_double(&y, b) || !(x >= 1 && x <= y && y <= 100000))
        return -1;
    *i = (size_t)x;
    *n = (size_t)y;
    return 0;
}

/* --format md|html|json|junit (NULL: md) as enum ga_format, or -1 */
static int report_format(const char *s)
{
    static const struct {
        const char *name;
        int format;
    } f[] = {{"md", GA_FORMAT_MARKDOWN}, {"html", GA_FORMAT_HTML}, {"json", GA_FORMAT_JSON},
             {"junit", GA_FORMAT_JUNIT}};
    if (!s)
        return GA_FORMAT_MARKDOWN;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!strcmp(s, f[i].name))
            return f[i].format;
    return -1;
}

/* --report FORMAT:FILE: a further report of the same result */
#define MAX_REPORTS 4
typedef struct {
    int fmt;
    const char *path;
} extra_report;

/* the --report values as x[0..n) (FORMAT md, html, json or junit; FILE not empty, none the
 * same as -o's or another's): 0, or -1 with a message on err */
static int parse_reports(extra_report *x, const char *const *v, size_t n, const char *sout,
                         const char *cmd, FILE *err)
{
    for (size_t i = 0; i < n; i++) {
        const char *colon = strchr(v[i], ':');
        char f[8] = "";
        if (colon && colon > v[i] && (size_t)(colon - v[i]) < sizeof f)
            memcpy(f, v[i], (size_t)(colon - v[i]));
        x[i].fmt = *f ? report_format(f) : -1;
        x[i].path = colon ? colon + 1 : "";
        int same = sout && !strcmp(sout, x[i].path);
        for (size_t j = 0; j < i; j++)
            same |= !strcmp(x[j].path, x[i].path);
        if (x[i].fmt < 0 || x[i].fmt == GA_FORMAT_PARTIAL || !*x[i].path || same) {
            ga_cli_err(err, "gaussaudit %s: --report takes FORMAT:FILE, FORMAT md, html, json or "
                       "junit, each FILE once and not -o's (got '%s')\n", cmd, v[i]);
            return -1;
        }
    }
    return 0;
}

/* the report to -o's FILE (or standard output) and to every --report's, each written even
 * when another failed (each failure reported): 0, or GA_EIO */
static int write_outputs(const audit_reports *ar, const char *sout, const extra_report *x,
                         size_t nx, const char *const *inputs, size_t ninputs, FILE *out, FILE *err)
{
    int bad = sout ? write_atomic(sout, ar, inputs, ninputs, err) : write_reports(out, ar);
    for (size_t i = 0; i < nx; i++) {
        audit_reports a = *ar;
        a.fmt = x[i].fmt;
        bad |= write_atomic(x[i].path, &a, inputs, ninputs, err) != GA_OK;
    }
    return bad ? GA_EIO : GA_OK;
}

static const char *usage_merge =
    "usage: gaussaudit merge PART.json... [--format md|html|json|junit] [-o FILE]\n"
    "                        [--report FORMAT:FILE] [--spec SPEC.yaml] [--jobs N]\n"
    "                        [--allow-path DIR] [--quiet] [--timeout SECONDS]\n"
    "\n"
    "Combine the partial results of 'gaussaudit audit SPEC.yaml --shard I/N' (I = 1..N, each\n"
    "once, complete) into the report a single run writes: the spec is read again (the path the\n"
    "parts recorded, or --spec; its bytes must be those the parts audited), its pairs are\n"
    "reduced, and the decisions read the parts' evaluations; only the few pairs the witness,\n"
    "the smallest eps and the plots concern are evaluated again. --certified and --claim are\n"
    "those the parts ran with. --report FORMAT:FILE also writes the report in FORMAT to FILE\n"
    "(repeatable, as audit's).\n"
    "  --timeout SECONDS  the time budget (default 600 s): what is not finished by then is\n"
    "            reported as not computed, with exit status 2\n"
    "Exit status: as audit (0, 1 violation, 2 inconclusive), 64 usage, 65 a part or the spec\n"
    "is invalid or does not match, 66 not found, 74 output.\n";

int ga_cmd_merge(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    size_t nallow = 0;
    const char *parts[GA_CLI_MAX_SPECS], *sfmt = NULL, *sout = NULL, *sspec = NULL,
               *sjobs = NULL, *sreports[MAX_REPORTS];
    size_t nparts = 0, nreports = 0;
    int quiet = 0;
    extra_report reports[MAX_REPORTS];
    ga_cli_opt opts[] = {GA_OPT_VALUE("--format", &sfmt), GA_OPT_VALUE("--output", &sout),
                         GA_OPT_VALUE("-o", &sout), GA_OPT_VALUE("--spec", &sspec),
                         GA_OPT_VALUE("--jobs", &sjobs), GA_OPT_FLAG("--quiet", &quiet),
                         GA_OPT_MULTI("--allow-path", allow, GA_SPEC_MAX_ALLOW, &nallow),
                         GA_OPT_MULTI("--report", sreports, MAX_REPORTS, &nreports),
                         GA_OPT_END};
    int pr = ga_cli_options_multi(argc, argv, opts, parts, GA_CLI_MAX_SPECS, &nparts, "merge",
                                  out, err, usage_merge);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    int fmt = report_format(sfmt);
    if (!nparts || fmt < 0 || fmt == GA_FORMAT_PARTIAL) {
        ga_cli_err(err, "gaussaudit merge: PART.json... is required, --format md, html, json or "
                   "junit (see gaussaudit merge --help)\n");
        return EX_USAGE;
    }
    ga_audit_options o;
    ga_audit_options_init(&o);
    if (ga_cli_parse_jobs(&o.jobs, sjobs)) {
        ga_cli_err(err, "gaussaudit merge: --jobs must be an integer from 1 to 256 (got '%s')\n", sjobs);
        return EX_USAGE;
    }
    if (parse_reports(reports, sreports, nreports, sout, "merge", err))
        return EX_USAGE;
    o.allow_paths = allow;
    o.nallow = nallow;
    o.timeout = ga_cli_remaining();
    if (!quiet && isatty(fileno(err)))
        o.progress = err;
    char msg[1024];
    ga_audit_result *res = NULL;
    int st = ga_audit_merge_files(&res, parts, nparts, sspec, &o, msg, sizeof msg);
    if (st) {
        ga_cli_err(err, "gaussaudit merge: %s\n", msg);
        return ga_cli_exit_status(st);
    }
    int rc = ga_audit_result_exit_status(res);
    if (!quiet)
        ga_cli_err(err, "gaussaudit merge: %s: %s (%zu parts)\n", ga_audit_result_spec_name(res),
                   ga_verdict_name(ga_audit_result_verdict(res)), nparts);
    audit_reports ar = {&res, 1, fmt, NULL, NULL};
    if (write_outputs(&ar, sout, reports, nreports, parts, nparts, out, err))
        rc = EX_IOERR;
    ga_audit_result_free(res);
    return rc;
}

/* The specs of one audit command, audited on a worker thread so that the command reports
 * within its time budget even when one step cannot be interrupted (verdict/watch.c). */
typedef struct {
    const char *const *specs;
    size_t nspecs;
    ga_audit_options *o;
    ga_audit_result **res; /* by spec; NULL where st[i] != GA_OK */
    char **msgs;           /* st[i]'s message (malloc'ed) */
    int *st;
    int keep_going;        /* several specs in one JUnit document: an error does not stop */
    size_t done;           /* specs finished (under watch.lock) */
    int finished;          /* the worker returned (under watch.lock) */
    ga_audit_watch watch;
    pthread_cond_t cv;
    int watched, threaded; /* watch and cv were initialised (else: one thread, no watch) */
} spec_run;

static void *spec_worker(void *v)
{
    spec_run *r = v;
    char msg[1024];
    ga_audit_watch *w = r->watched ? &r->watch : NULL;
    for (size_t k = 0; k < r->nspecs; k++) {
        r->o->timeout = ga_cli_remaining(); /* (the specs share the command's budget) */
        msg[0] = 0;
        ga_audit_result *res = NULL;
        int st = ga_audit_spec_file_watched(&res, r->specs[k], r->o, w, msg, sizeof msg);
        if (w)
            pthread_mutex_lock(&w->lock);
        r->res[k] = res;
        r->st[k] = st;
        r->msgs[k] = st ? strdup(msg) : NULL;
        r->done = k + 1;
        if (w)
            pthread_mutex_unlock(&w->lock);
        ga_audit_watch_leave(w); /* (the next spec's snapshot is its own) */
        if (st && (!r->keep_going || st == GA_ENOMEM))
            break;
    }
    if (r->threaded) {
        ga_arb_thread_cleanup(); /* this thread's Arb/FLINT caches (they die with it) */
        pthread_mutex_lock(&w->lock);
        r->finished = 1;
        pthread_cond_signal(&r->cv);
        pthread_mutex_unlock(&w->lock);
    }
    return NULL;
}

/* Audit the specs: 0 when the worker finished (results in res, st, msgs), 1 when the budget
 * ended first (the watch is then sealed and the worker still runs), -1 when no thread could
 * be started (the specs were audited on this thread, the backstop alone bounding the time). */
static int run_specs(spec_run *r)
{
    pthread_condattr_t ca;
    r->watched = ga_audit_watch_init(&r->watch) == GA_OK;
    if (r->watched && pthread_condattr_init(&ca) == 0) {
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        r->threaded = pthread_cond_init(&r->cv, &ca) == 0;
        pthread_condattr_destroy(&ca);
    }
    pthread_t th;
    if (r->threaded && pthread_create(&th, NULL, spec_worker, r)) {
        pthread_cond_destroy(&r->cv);
        r->threaded = 0;
    }
    if (!r->threaded) {
        spec_worker(r);
        if (r->watched)
            ga_audit_watch_clear(&r->watch);
        return -1;
    }
    /* the budget itself belongs to the audit (its soft deadline leaves the report the last
     * 15%); the watch's report comes half the grace later, the backstop at its end */
    double end = ga_cli_budget_end() + 0.5 * GA_CLI_GRACE;
    struct timespec ts = {(time_t)end, (long)((end - floor(end)) * 1e9)};
    pthread_mutex_lock(&r->watch.lock);
    while (!r->finished)
        if (pthread_cond_timedwait(&r->cv, &r->watch.lock, &ts) == ETIMEDOUT && !r->finished)
            return 1; /* (the lock is kept: the watch is sealed, ga_audit_watch_seal) */
    pthread_mutex_unlock(&r->watch.lock);
    pthread_join(th, NULL);
    pthread_cond_destroy(&r->cv);
    ga_audit_watch_clear(&r->watch);
    return 0;
}

/* The budget ended inside a step that could not be interrupted: the report of what was
 * finished (the specs done, the running one from its watch, the others not audited), then
 * the process ends with status 2 (the worker is still inside that step). */
static void budget_report(spec_run *r, audit_reports *ar, const char *sout,
                          const extra_report *x, size_t nx, FILE *out, FILE *err)
{
    /* (run_specs returned with the watch's lock held: the watch is sealed) */
    size_t k = r->done;
    if (k < r->nspecs) {
        r->res[k] = ga_audit_watch_report(&r->watch, r->specs[k]);
        r->st[k] = r->res[k] ? GA_OK : GA_ENOMEM;
    }
    char **errs = (char **)ar->errors;
    for (size_t i = 0; i < r->nspecs; i++)
        if (!r->res[i] && !errs[i])
            errs[i] = (char *)(r->msgs[i] ? r->msgs[i] : i > k ? "not audited: the time budget "
                               "(--timeout) ended before this spec" : "no memory for its report");
    int ok = k >= r->nspecs || r->res[k];
    int wr = !ok || write_outputs(ar, sout, x, nx, r->specs, r->nspecs, out, err);
    if (!sout && (fflush(out) != 0 || ferror(out)))
        wr = 1;
    ga_cli_err(err, "gaussaudit audit: stopped by the time budget (--timeout) while %s, inside "
               "a step that could not be interrupted; %s\n", r->watch.stage,
               wr ? "no report written" : "the report has what was finished, the rest INCONCLUSIVE");
    fflush(err);
    _exit(wr ? EX_IOERR : GA_CLI_EX_TIMEOUT);
}

int ga_cmd_audit(int argc, char **argv, FILE *out, FILE *err)
{
    const char *allow[GA_SPEC_MAX_ALLOW];
    ga_spec_opts so = {.allow_paths = allow};
    const char *specs[GA_CLI_MAX_SPECS], *sfmt = NULL, *sout = NULL, *sjobs = NULL,
               *sshard = NULL, *sclaim = NULL, *sreports[MAX_REPORTS];
    size_t nspecs = 0, nreports = 0;
    extra_report reports[MAX_REPORTS];
    int certified = 0, quiet = 0;
    ga_cli_opt opts[] = {GA_OPT_VALUE("--format", &sfmt), GA_OPT_VALUE("-o", &sout),
                         GA_OPT_VALUE("--output", &sout), GA_OPT_VALUE("--jobs", &sjobs),
                         GA_OPT_VALUE("--shard", &sshard), GA_OPT_VALUE("--claim", &sclaim),
                         GA_OPT_FLAG("--certified", &certified), GA_OPT_FLAG("--quiet", &quiet),
                         GA_OPT_MULTI("--allow-path", allow, GA_SPEC_MAX_ALLOW, &so.nallow),
                         GA_OPT_MULTI("--report", sreports, MAX_REPORTS, &nreports),
                         GA_OPT_END};
    int pr = ga_cli_options_multi(argc, argv, opts, specs, GA_CLI_MAX_SPECS, &nspecs, "audit",
                                  out, err, usage_audit);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    if (!nspecs) {
        ga_cli_err(err, "gaussaudit audit: SPEC.yaml is required (see gaussaudit audit --help)\n");
        return EX_USAGE;
    }
    int fmt = report_format(sfmt);
    if (fmt < 0 || fmt == GA_FORMAT_PARTIAL) {
        ga_cli_err(err, "gaussaudit audit: --format must be md, html, json or junit (got '%s')\n", sfmt);
        return EX_USAGE;
    }
    ga_audit_options o;
    ga_audit_options_init(&o);
    if (ga_cli_parse_jobs(&o.jobs, sjobs)) {
        ga_cli_err(err, "gaussaudit audit: --jobs must be an integer from 1 to 256 (got '%s')\n", sjobs);
        return EX_USAGE;
    }
    if (sshard && (parse_shard(&o.shard, &o.nshards, sshard) || sfmt || nspecs > 1)) {
        ga_cli_err(err, "gaussaudit audit: --shard takes I/N with 1 <= I <= N <= 100000 (got "
                   "'%s'), one spec, and no --format (it writes a partial result)\n", sshard);
        return EX_USAGE;
    }
    if (sshard && nreports) {
        ga_cli_err(err, "gaussaudit audit: --shard writes a partial result, not reports: no --report\n");
        return EX_USAGE;
    }
    if (sshard)
        fmt = GA_FORMAT_PARTIAL;
    if (parse_reports(reports, sreports, nreports, sout, "audit", err))
        return EX_USAGE;
    o.certified = certified;
    o.claim = sclaim;
    o.allow_paths = allow;
    o.nallow = so.nallow;
    if (!quiet && isatty(fileno(err)))
        o.progress = err;
    int nonjunit = fmt != GA_FORMAT_JUNIT;
    for (size_t i = 0; i < nreports; i++)
        nonjunit |= reports[i].fmt != GA_FORMAT_JUNIT;
    if (nspecs > 1 && nonjunit) {
        ga_cli_err(err, "gaussaudit audit: several specs are reported together with --format junit "
                   "only (and --report junit:FILE)\n");
        return EX_USAGE;
    }
    ga_audit_result **res = calloc(nspecs, sizeof *res);
    char **errs = calloc(nspecs, sizeof *errs);
    spec_run run = {.specs = specs, .nspecs = nspecs, .o = &o, .res = res,
                    .msgs = calloc(nspecs, sizeof *run.msgs), .st = calloc(nspecs, sizeof *run.st),
                    .keep_going = fmt == GA_FORMAT_JUNIT && nspecs > 1};
    if (!res || !errs || !run.msgs || !run.st) {
        free(res);
        free(errs);
        free(run.msgs);
        free(run.st);
        return EX_SOFTWARE;
    }
    if (run_specs(&run) == 1) { /* the budget ended inside a step: reported from the watch */
        audit_reports ar = {res, nspecs, fmt, specs, (const char *const *)errs};
        budget_report(&run, &ar, sout, reports, nreports, out, err);
    }
    int rc = EX_OK, junit_many = fmt == GA_FORMAT_JUNIT && nspecs > 1;
    size_t done = 0;
    for (; done < nspecs; done++) {
        int st = run.st[done];
        if (st) {
            const char *msg = run.msgs[done] ? run.msgs[done] : "no memory for the message";
            ga_cli_err(err, "gaussaudit audit: %s\n", msg);
            int code = ga_cli_exit_status(st);
            if (sclaim && st == GA_EINVAL && !strncmp(msg, "the replacing claim", 19))
                code = EX_USAGE; /* --claim's value: a usage error */
            if (rc == EX_OK || rc == 1 || rc == 2)
                rc = code;
            /* several specs in one JUnit document: the others are still audited, this one
             * is a testsuite with an error */
            if (junit_many && st != GA_ENOMEM && (errs[done] = strdup(msg)))
                continue;
            break;
        }
        int es = ga_audit_result_exit_status(res[done]);
        if ((es == 1 && (rc == EX_OK || rc == 2)) || (es == 2 && rc == EX_OK))
            rc = es; /* the worst: an error, a violation, then inconclusive */
        if (sshard) /* no verdict yet: 2 when the shard did not finish (--timeout) */
            rc = ga_audit_result_exit_status(res[done]);
        if (!quiet && sshard)
            ga_cli_err(err, "gaussaudit audit: %s: shard %zu/%zu %s\n",
                       ga_audit_result_spec_name(res[done]), o.shard, o.nshards,
                       rc == EX_OK ? "done" : "incomplete (the time budget ran out)");
        else if (!quiet)
            ga_cli_err(err, "gaussaudit audit: %s: %s\n", ga_audit_result_spec_name(res[done]),
                       ga_verdict_name(ga_audit_result_verdict(res[done])));
    }
    if (done == nspecs) {
        audit_reports ar = {res, nspecs, fmt, specs, (const char *const *)errs};
        if (write_outputs(&ar, sout, reports, nreports, specs, nspecs, out, err))
            rc = EX_IOERR;
    }
    for (size_t i = 0; i < nspecs; i++) {
        ga_audit_result_free(res[i]);
        free(errs[i]);
        free(run.msgs[i]);
    }
    free(res);
    free(errs);
    free(run.msgs);
    free(run.st);
    return rc;
}

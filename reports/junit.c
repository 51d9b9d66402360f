/*
 * junit.c - JUnit XML (the Ant schema): one test suite per spec and one test case per claim,
 * a VIOLATION a failure, an INCONCLUSIVE a skipped case with its reason, and a spec that
 * could not be audited an error.
 */
#include "reports/internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the JUnit classname of a spec: its path without the extension, '/' as '.', then its name,
 * every character outside [A-Za-z0-9_] as '_' (dashboards split classnames at dots) */
static void junit_classname(FILE *out, const ga_audit *a)
{
    const char *p = a->spec.path;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    size_t n = strlen(p);
    if (n > 5 && !strcmp(p + n - 5, ".yaml"))
        n -= 5;
    else if (n > 4 && !strcmp(p + n - 4, ".yml"))
        n -= 4;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        fputc(c == '/' ? '.' : (isalnum(c) || c == '_' || c == '-') ? c : '_', out);
    }
    fputc('.', out);
    int last = 0;
    for (const unsigned char *q = (const unsigned char *)a->spec.name; *q; q++) {
        int ok = isalnum(*q);
        if (ok || last)
            fputc(ok ? *q : '_', out);
        last = ok;
    }
}

/* one testsuite: properties (tool version, spec path and digest, verdict), a testcase per
 * claim (VIOLATION: failure with the reason and the witness; INCONCLUSIVE: error, since the
 * Ant schema has no skipped element), the passing claims' reasons in system-out */
static void junit_suite(FILE *out, const ga_audit *a, size_t id, const char *host)
{
    size_t fails = 0, errs = 0;
    for (size_t i = 0; i < a->nclaims; i++) {
        fails += a->claims[i].verdict == GA_VERDICT_VIOLATION;
        errs += a->claims[i].verdict == GA_VERDICT_INCONCLUSIVE;
    }
    char stamp[32] = "1970-01-01T00:00:00";
    time_t t = (time_t)a->started;
    struct tm tmv;
    if (gmtime_r(&t, &tmv))
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tmv);
    fprintf(out, "  <testsuite name=\"");
    rp_html_escape(out, a->spec.name);
    fprintf(out, "\" package=\"");
    rp_html_escape(out, a->spec.path);
    fprintf(out, "\" id=\"%zu\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\" "
                 "timestamp=\"%s\" hostname=\"", id, a->nclaims, fails, errs, a->seconds, stamp);
    rp_html_escape(out, host);
    fprintf(out, "\">\n    <properties>\n");
    fprintf(out, "      <property name=\"tool\" value=\"gaussaudit %s\"/>\n", GA_VERSION_STRING);
    fprintf(out, "      <property name=\"spec_path\" value=\"");
    rp_html_escape(out, a->spec.path);
    fprintf(out, "\"/>\n      <property name=\"spec_sha256\" value=\"%s\"/>\n", a->digest);
    for (size_t i = 0; i < a->spec.ninputs; i++) {
        fprintf(out, "      <property name=\"input:");
        rp_html_escape(out, a->spec.inputs[i].key);
        fprintf(out, "\" value=\"%s ", a->spec.inputs[i].sha256);
        rp_html_escape(out, a->spec.inputs[i].path);
        fprintf(out, "\"/>\n");
    }
    char mech[GA_REPORT_MECH_LEN];
    ga_report_mechanism_text(mech, sizeof mech, &a->spec);
    fprintf(out, "      <property name=\"mechanism\" value=\"");
    rp_html_escape(out, mech);
    fprintf(out, "\"/>\n");
    const char *src = ga_report_spec_text(&a->spec, "source");
    if (src) {
        fprintf(out, "      <property name=\"source\" value=\"");
        rp_html_escape(out, src);
        fprintf(out, "\"/>\n");
    }
    fprintf(out, "      <property name=\"verdict\" value=\"%s\"/>\n    </properties>\n",
            ga_verdict_name(a->overall));
    for (size_t i = 0; i < a->nclaims; i++) {
        const ga_claim_result *r = &a->claims[i];
        char c[96];
        ga_claim_text(c, sizeof c, r);
        fprintf(out, "    <testcase classname=\"");
        junit_classname(out, a);
        fprintf(out, "\" name=\"");
        rp_html_escape(out, c);
        fprintf(out, "\" time=\"%.3f\"", r->seconds);
        if (r->verdict != GA_VERDICT_VIOLATION && r->verdict != GA_VERDICT_INCONCLUSIVE) {
            fprintf(out, "/>\n");
            continue;
        }
        int viol = r->verdict == GA_VERDICT_VIOLATION;
        fprintf(out, ">\n      <%s message=\"", viol ? "failure" : "error");
        rp_html_escape(out, r->reason);
        if (viol && ga_claim_row_of(r->type)->profile && r->witness[0]) {
            fprintf(out, "; witness: ");
            rp_html_escape(out, r->witness);
        }
        fprintf(out, "\" type=\"%s\">", ga_verdict_name(r->verdict));
        rp_html_escape(out, r->reason);
        if (ga_claim_row_of(r->type)->profile && r->witness[0]) {
            fprintf(out, "\nwitness: ");
            rp_html_escape(out, r->witness);
            fprintf(out, "\nP_X[S] = %.17g, P_Y[S] = %.17g", r->witness_px, r->witness_py);
        }
        fprintf(out, "</%s>\n    </testcase>\n", viol ? "failure" : "error");
    }
    fprintf(out, "    <system-out>");
    for (size_t i = 0; i < a->nclaims; i++) {
        char c[96];
        ga_claim_text(c, sizeof c, &a->claims[i]);
        rp_html_escape(out, c);
        fprintf(out, ": %s: ", ga_verdict_name(a->claims[i].verdict));
        rp_html_escape(out, a->claims[i].reason);
        fprintf(out, "\n");
    }
    fprintf(out, "</system-out>\n    <system-err/>\n  </testsuite>\n");
}

/* the testsuite of a spec that could not be audited (invalid, unreadable): one testcase
 * "spec" with an error carrying the message */
static void junit_error_suite(FILE *out, const char *path, const char *error, size_t id,
                              const char *host)
{
    fprintf(out, "  <testsuite name=\"");
    rp_html_escape(out, path);
    fprintf(out, "\" package=\"");
    rp_html_escape(out, path);
    fprintf(out, "\" id=\"%zu\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"0.000\" "
                 "timestamp=\"1970-01-01T00:00:00\" hostname=\"", id);
    rp_html_escape(out, host);
    fprintf(out, "\">\n    <properties>\n");
    fprintf(out, "      <property name=\"tool\" value=\"gaussaudit %s\"/>\n", GA_VERSION_STRING);
    fprintf(out, "      <property name=\"spec_path\" value=\"");
    rp_html_escape(out, path);
    fprintf(out, "\"/>\n      <property name=\"verdict\" value=\"ERROR\"/>\n    </properties>\n");
    fprintf(out, "    <testcase classname=\"gaussaudit\" name=\"spec\" time=\"0.000\">\n"
                 "      <error message=\"");
    rp_html_escape(out, error);
    fprintf(out, "\" type=\"ERROR\">");
    rp_html_escape(out, error);
    fprintf(out, "</error>\n    </testcase>\n    <system-out/>\n    <system-err/>\n"
                 "  </testsuite>\n");
}

int ga_report_junit_many(FILE *out, const ga_audit *const *a, const char *const *paths,
                         const char *const *errors, size_t n)
{
    char host[256] = "localhost";
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "localhost");
    host[sizeof host - 1] = 0;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (size_t i = 0; i < n; i++) {
        if (a[i])
            junit_suite(out, a[i], i, host);
        else
            junit_error_suite(out, paths && paths[i] ? paths[i] : "?",
                              errors && errors[i] ? errors[i] : "not audited", i, host);
    }
    fprintf(out, "</testsuites>\n");
    return ferror(out) ? GA_EIO : GA_OK;
}

int ga_report_junit(FILE *out, const ga_audit *a)
{
    return ga_report_junit_many(out, &a, NULL, NULL, 1);
}

int ga_audit_results_write_junit_errors(FILE *out, ga_audit_result *const *r,
                                        const char *const *paths, const char *const *errors,
                                        size_t n)
{
    const ga_audit **a = malloc((n ? n : 1) * sizeof *a);
    if (!a)
        return GA_ENOMEM;
    for (size_t i = 0; i < n; i++)
        a[i] = r[i] ? &r[i]->a : NULL;
    int rc = ga_report_junit_many(out, a, paths, errors, n);
    free(a);
    return rc;
}

int ga_audit_results_write_junit(FILE *out, ga_audit_result *const *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!r[i])
            return GA_EINVAL;
    return ga_audit_results_write_junit_errors(out, r, NULL, NULL, n);
}

/*
 * commands.c - what the spec commands (delta, epsilon, rdp, audit) share: a spec loaded and
 * its pairs reduced within the time budget, statuses and supports as text, the JSON head of a
 * spec's output, and the checks of --format and --digits.
 */
#include "cli/internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cl_out_of_time(void)
{
    return ga_expired(ga_cli_deadline());
}

const ga_gchisq_opts *cl_cli_gopts(void)
{
    static ga_gchisq_opts go;
    ga_gchisq_opts_init(&go);
    go.deadline = ga_cli_deadline();
    return &go;
}

const char *cl_status_text(int st)
{
    static char b[700];
    const char *why;
    if (st != GA_EDEP || ga_cert_available(&why))
        return ga_strerror(st);
    snprintf(b, sizeof b, "%s: %s", ga_strerror(st), why);
    return b;
}

void cl_say_budget(FILE *err, const char *cmd, size_t n, const char *what)
{
    ga_cli_err(err, "gaussaudit %s: the time budget (--timeout) ran out: %zu %s not computed "
               "(exit status 2)\n", cmd, n, what);
}

const ga_pair *cl_use(const loaded_t *l, size_t i, ga_pair **own, FILE *err, const char *cmd)
{
    const ga_pair *p = ga_mech_pair_use(l->pairs[i], &l->set.pairs[i], own);
    if (!p && err)
        ga_cli_err(err, "gaussaudit %s: out of memory\n", cmd);
    return p;
}

const char *cl_support_note(char b[512], const loaded_t *l, size_t i)
{
    ga_pair *own;
    const ga_pair *p = cl_use(l, i, &own, NULL, NULL);
    snprintf(b, 512, "%s", p ? ga_pair_support_reason(p) : "(out of memory)");
    ga_pair_free(own);
    return b;
}

void cl_loaded_clear(loaded_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        ga_pair_free(l->pairs[i]);
    free(l->pairs);
    ga_mech_clear(&l->spec, &l->set);
}

int cl_load_spec(loaded_t *l, const char *path, const char *cmd, const ga_spec_opts *so,
                 FILE *err)
{
    char msg[1024];
    memset(l, 0, sizeof *l);
    /* built once: a builder may free what it no longer needs (the dataset's values, the
     * written pairs); the builders stop at the command's deadline; worst cases are sought at
     * the eps of the spec's claims, which are checked as the audit checks them */
    ga_build_opts bo = {.deadline = ga_cli_deadline(), .drop_data = 1};
    ga_spec_opts o = *so;
    o.kind_at = ga_mech_kind_at;
    ga_claim_list cl = {0};
    int st = ga_spec_load_opts(&l->spec, path, &o, msg, sizeof msg);
    if (st == GA_OK && (st = ga_claim_list_parse(&cl, &l->spec, msg, sizeof msg)) == GA_OK) {
        bo.neps = ga_claim_list_eps(bo.eps, GA_BUILD_MAX_EPS, &cl);
        st = ga_mech_build(&l->set, &l->spec, &bo, msg, sizeof msg);
    }
    free(cl.c);
    if (st) {
        ga_mech_clear(&l->spec, &l->set);
        ga_cli_err(err, "gaussaudit %s: %s\n", cmd, msg);
        return ga_cli_exit_status(st);
    }
    l->pairs = calloc(l->set.npairs, sizeof *l->pairs);
    if (!l->pairs)
        return EX_SOFTWARE;
    if (l->set.truncated)
        l->skipped = l->set.planned > l->set.npairs ? l->set.planned - l->set.npairs : 1;
    for (size_t i = 0; i < l->set.npairs; i++) {
        if (cl_out_of_time()) {
            l->skipped += l->set.npairs - i;
            break;
        }
        st = ga_mech_pair_reduce(&l->pairs[i], &l->set.pairs[i], msg, sizeof msg);
        if (st) {
            ga_cli_err(err, "gaussaudit %s: %s: %s\n", cmd, path, msg);
            return st == GA_ENOMEM ? EX_SOFTWARE : EX_DATAERR;
        }
        if (ga_mech_pair_rebuildable(&l->set.pairs[i])) {
            ga_pair_free(l->pairs[i]); /* checked; reduced again where used */
            l->pairs[i] = NULL;
        }
        l->n = i + 1;
    }
    return EX_OK;
}

const char *cl_support_name(int s)
{
    return s == GA_SUPPORT_FULL ? "full" : s == GA_SUPPORT_COMMON ? "common" : "differ";
}

void cl_print_verified(FILE *out, const loaded_t *l)
{
    if (l->set.verified)
        fprintf(out, "verification: the audited pairs include the proven %s\n",
                l->set.verified_note);
}

void cl_json_head(ga_jw *j, const loaded_t *l)
{
    ga_jw_obj(j, NULL);
    ga_jw_str(j, "spec", l->spec.name);
    ga_jw_bool(j, "verification", l->set.verified);
    if (l->set.verified)
        ga_jw_str(j, "verification_note", l->set.verified_note);
}

void cl_json_status(ga_jw *j, int st)
{
    ga_jw_str(j, "status", st == GA_OK ? "success" : ga_strerror(st));
}

int cl_parse_format(const char *f, const char *cmd, FILE *err)
{
    if (!f || !strcmp(f, "text"))
        return 0;
    if (!strcmp(f, "json"))
        return 1;
    ga_cli_err(err, "gaussaudit %s: --format must be text or json (got '%s')\n", cmd, f);
    return -1;
}

void cl_print_text_value(FILE *out, const ga_result *r)
{
    if (isinf(r->val)) {
        fprintf(out, "inf"); /* exactly infinite: no error to state */
        return;
    }
    ga_cli_print_value(out, r->val, r->err);
    fprintf(out, " (+- %.2g)", r->err);
}

int cl_name_width(const loaded_t *l)
{
    size_t w = 28;
    for (size_t i = 0; i < l->set.npairs; i++)
        if (strlen(l->set.pairs[i].name) > w)
            w = strlen(l->set.pairs[i].name);
    return (int)(w > 1000 ? 1000 : w);
}

int cl_cert_options(ga_cert_opts *co, int certified, const char *sdig, const char *cmd,
                    FILE *err)
{
    ga_cert_opts_init(co);
    if (!sdig)
        return 0;
    if (!certified) {
        ga_cli_err(err, "gaussaudit %s: --digits applies to --certified only\n", cmd);
        return -1;
    }
    char *end;
    long d = strtol(sdig, &end, 10);
    if (*end || end == sdig || d < 1 || d > 300) {
        ga_cli_err(err, "gaussaudit %s: --digits must be an integer from 1 to 300 (got '%s')\n",
                cmd, sdig);
        return -1;
    }
    co->digits = (int)d;
    return 0;
}

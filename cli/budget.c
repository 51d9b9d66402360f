/*
 * budget.c - the time budget every command runs under (--timeout, default
 * GA_CLI_DEFAULT_BUDGET): a soft deadline at which the computation reports what it finished,
 * the end of the budget, and SIGALRM just after it as the backstop for a step that cannot be
 * interrupted (it exits 2 and leaves no temporary report behind); and the exit status of a
 * library status.
 */
#include "cli/cli.h"
#include "base/base.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static double soft_deadline, budget_end;
static char *volatile temp_path;
static char stop_msg[200];
static size_t stop_len;

double ga_cli_deadline(void)
{
    return soft_deadline;
}

double ga_cli_budget_end(void)
{
    return budget_end;
}

double ga_cli_remaining(void)
{
    double r = soft_deadline - ga_monotonic();
    return r > 1e-3 ? r : 1e-3;
}

/* a signal that ends the process: no temporary report is left behind */
static void end_signal(int sig)
{
    char *t = temp_path;
    if (t)
        unlink(t); /* (async-signal-safe) */
    if (sig == SIGALRM) {
        ssize_t w = write(2, stop_msg, stop_len);
        (void)w;
        _exit(GA_CLI_EX_TIMEOUT);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void ga_cli_temp_guard(char *path)
{
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    temp_path = path;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = path ? end_signal : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < 3; k++)
        sigaction(sigs[k], &sa, NULL);
}

/* Take --timeout SECONDS (or --timeout=SECONDS) out of argv and arm the budget: 0, or -1 (a
 * missing value) or -2 (a value out of range) after the message. The soft deadline leaves the output 15% of the budget (at most 15 s). */
int ga_cli_take_budget(int *argc, char **argv, const char *cmd, FILE *err)
{
    const char *v = NULL;
    size_t n = 0;
    if ((*argc = ga_cli_take_multi(*argc, argv, "--timeout", &v, 1, &n, cmd, err)) < 0)
        return -1;
    double b = GA_CLI_DEFAULT_BUDGET;
    if (v && (ga_cli_parse_double(&b, v) || !(b > 0 && b <= GA_CLI_MAX_BUDGET))) {
        ga_cli_err(err, "gaussaudit %s: --timeout must be a number of seconds > 0 and at most "
                   "%g (got '%s')\n", cmd, GA_CLI_MAX_BUDGET, v);
        return -2; /* (a value out of range: a data error, as for the other numbers) */
    }
    double t0 = ga_monotonic();
    soft_deadline = t0 + b - fmin(0.15 * b, 15.0);
    budget_end = t0 + b;
    stop_len = (size_t)snprintf(stop_msg, sizeof stop_msg, "gaussaudit %s: stopped by the time "
                                "budget (--timeout %g s%s) inside a step that could not be "
                                "interrupted; no report written\n", cmd, b,
                                v ? "" : ", the default");
    if (stop_len >= sizeof stop_msg)
        stop_len = sizeof stop_msg - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = end_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    double t = b + GA_CLI_GRACE;
    struct itimerval it = {{0, 0}, {(time_t)t, (suseconds_t)((t - floor(t)) * 1e6)}};
    setitimer(ITIMER_REAL, &it, NULL);
    return 0;
}

int ga_cli_exit_status(int st)
{
    return st == GA_EIO ? EX_NOINPUT : st == GA_ENOMEM ? EX_SOFTWARE
         : st == GA_EDEP ? EX_UNAVAILABLE : st == GA_ETIME ? GA_CLI_EX_TIMEOUT : EX_DATAERR;
}

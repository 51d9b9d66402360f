/*
 * cli.h - the command-line entry point and its helpers (internal to the tool).
 */
#ifndef GA_CLI_H
#define GA_CLI_H

#include <stdio.h>

/* Exit statuses (sysexits), one definition for every command; `audit` adds 1 (violation)
 * and 2 (inconclusive). */
#define GA_CLI_MAX_SPECS 1000 /* specs one audit command reports together (JUnit) */

enum { EX_OK = 0, EX_USAGE = 64, EX_DATAERR = 65, EX_NOINPUT = 66, EX_UNAVAILABLE = 69,
       EX_SOFTWARE = 70, EX_IOERR = 74 };

/* One option: a value option (value != NULL), a flag (flag != NULL), or a repeatable value
 * (multi != NULL: at most max values, their number in *count). A name is "--long" or "-x". */
typedef struct {
    const char *name;
    const char **value;
    int *flag;
    const char **multi;
    size_t max;
    size_t *count;
} ga_cli_opt;
#define GA_OPT_VALUE(n, v) {.name = (n), .value = (v)}
#define GA_OPT_FLAG(n, f) {.name = (n), .flag = (f)}
#define GA_OPT_MULTI(n, vals, mx, cnt) {.name = (n), .multi = (vals), .max = (mx), .count = (cnt)}
#define GA_OPT_END {.name = NULL}

/* Parse argv against a NULL-terminated option table with getopt_long: --name value,
 * --name=value, -xVALUE and -x VALUE, options and operands in any order, "--" ending the
 * options ("-" is an operand). positional (may be NULL) receives the one allowed operand.
 * Returns 0, 1 after printing usage for --help, -1 after printing a usage error (an unknown
 * option with the nearest valid one). */
int ga_cli_options(int argc, char **argv, ga_cli_opt *opts, const char **positional,
                   const char *cmd, FILE *out, FILE *err, const char *usage);
/* The same with up to maxpos positional arguments (their number in *npos). */
int ga_cli_options_multi(int argc, char **argv, ga_cli_opt *opts, const char **positional,
                         size_t maxpos, size_t *npos, const char *cmd, FILE *out, FILE *err,
                         const char *usage);

/* fprintf to err with every control character of the formatted text (terminal escape
 * sequences, C1 controls, embedded newlines from a spec) shown as \xNN: messages quote spec
 * names, paths and tokens, which are untrusted. A final newline is kept. */
void ga_cli_err(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A user string (a spec's or pair's name) for a terminal table, escaped as ga_cli_err
 * escapes messages, in out (n bytes); returns out */
const char *ga_cli_safe(char *out, size_t n, const char *s);

/* Remove every "NAME DIR" and "NAME=DIR" of a repeatable option from argv before "--"
 * (compacting it), collecting at most max values into vals. Returns the new argc, or -1 after printing a usage
 * error (a missing value, more than max). */
int ga_cli_take_multi(int argc, char **argv, const char *name, const char **vals, size_t max,
                      size_t *n, const char *cmd, FILE *err);

/* The time budget of the running command: --timeout SECONDS on every command, default
 * GA_CLI_DEFAULT_BUDGET. The computation stops at the soft deadline (ga_cli_deadline, a
 * CLOCK_MONOTONIC time) and reports what it finished; the output gets the rest of the budget;
 * a step that cannot be interrupted is ended by SIGALRM at the budget plus GA_CLI_GRACE
 * (exit 2, a message, no partial -o file). ga_cli_remaining: seconds to the soft deadline
 * (at least a millisecond, so that a library option of 0, "none", is never passed). */
#define GA_CLI_DEFAULT_BUDGET 600.0
#define GA_CLI_GRACE 0.8
#define GA_CLI_MAX_BUDGET 1e7
/* Take --timeout SECONDS (or --timeout=SECONDS) out of argv and arm the budget: 0, or -1 (a
 * missing value) or -2 (a value out of range) after the message. */
int ga_cli_take_budget(int *argc, char **argv, const char *cmd, FILE *err);
double ga_cli_deadline(void);
/* the end of the budget itself (monotonic seconds): a command that cannot finish by then
 * reports what it has (audit: from its watch) before the backstop */
double ga_cli_budget_end(void);
double ga_cli_remaining(void);
/* The -o temporary file being written (NULL: none): unlinked when a signal (SIGINT, SIGTERM,
 * SIGHUP, or the budget's SIGALRM) ends the process meanwhile. */
void ga_cli_temp_guard(char *path);
/* exit status of a command the budget stopped (what it finished is in its output) */
#define GA_CLI_EX_TIMEOUT 2

/* The commands (cli/cmd_*.c), each taking the arguments after its name. */
int ga_cmd_cdf(int argc, char **argv, FILE *out, FILE *err);
int ga_cmd_delta(int argc, char **argv, FILE *out, FILE *err);
int ga_cmd_epsilon(int argc, char **argv, FILE *out, FILE *err);
int ga_cmd_rdp(int argc, char **argv, FILE *out, FILE *err);
int ga_cmd_audit(int argc, char **argv, FILE *out, FILE *err);
int ga_cmd_merge(int argc, char **argv, FILE *out, FILE *err);
int ga_cmd_calibrate(int argc, char **argv, FILE *out, FILE *err);
int ga_cmd_schema(int argc, char **argv, FILE *out, FILE *err);
int ga_cmd_pld(int argc, char **argv, FILE *out, FILE *err);

/* The exit status of a command whose spec could not be loaded or audited, by library status:
 * GA_EIO 66 (no input), GA_ENOMEM 70 (software: no memory), GA_EDEP 69 (a library it needs
 * is unavailable), GA_ETIME 2 (the budget), anything else 65 (the data). */
int ga_cli_exit_status(int st);

/* Run the command line; returns the process exit status (sysexits codes). */
int ga_cli_main(int argc, char **argv, FILE *out, FILE *err);

/* Strict number parsing: the whole string must be one finite number. 0 on success. */
int ga_cli_parse_double(double *v, const char *s);
/* --jobs N: an integer in [1, 256] (0 on success), or NULL s: 0 (one thread per core). */
int ga_cli_parse_jobs(int *jobs, const char *s);
/* "a,b,c" into a malloc'ed array; returns the count, or -1 with the bad item index. */
long ga_cli_parse_list(double **out, const char *s, long *bad);
/* Split "a,b,c" into a NULL-terminated array of malloc'ed strings; NULL on no memory. */
char **ga_cli_split_list(const char *s, size_t *n);
void ga_cli_free_list(char **v);
/* Print val with as many significant digits as its absolute error err supports. */
void ga_cli_print_value(FILE *out, double val, double err);

#endif

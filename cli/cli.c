/*
 * cli.c - the gaussaudit command line (doc/commands.md). Exit statuses follow sysexits:
 * 0 success, 64 usage error, 65 data error, 66 cannot open input, 69 a library it needs is
 * unavailable, 70 internal error (no memory), 74 output error; `audit` adds 1 (violation) and
 * 2 (inconclusive, or stopped by the time budget).
 */
#include "cli/cli.h"
#include "gaussaudit.h"
#include "base/base.h"

#include <errno.h>
#include <string.h>

static const char *usage_main =
    "usage: gaussaudit COMMAND [OPTIONS]\n"
    "\n"
    "Exact privacy profiles of Gaussian mechanisms, and the generalized chi-square\n"
    "distribution they rest on.\n"
    "\n"
    "commands:\n"
    "  audit      check a spec's claims: verdict, tightness, witness; md/html/json/junit\n"
    "  merge      combine the partial results of audit --shard I/N into one report\n"
    "  calibrate  the smallest noise for (eps, delta)-DP, certified\n"
    "  delta      delta(eps) in both directions for every neighbouring pair of a spec\n"
    "  epsilon    the smallest eps with delta(eps) <= D, per pair and overall\n"
    "  rdp        exact Renyi divergences in both directions\n"
    "  pld        certified privacy-loss distributions of a subsampled step, for accountants\n"
    "  cdf        P[Q <= x] and P[Q > x] of a generalized chi-square Q\n"
    "  schema     the JSON Schema of the spec language (for editors)\n"
    "  help       this text; 'gaussaudit COMMAND --help' for one command\n"
    "  version    print the version\n"
    "\n"
    "Every command takes --timeout SECONDS (default 600: ten minutes): the computation\n"
    "stops in time to report what it finished (the rest is marked as not computed) and the\n"
    "process ends by SECONDS + 1 whatever the input.\n"
    "\n"
    "exit status: 0 success, 64 usage error, 65 data error, 66 input not found,\n"
    "69 a library it needs is unavailable (FLINT/Arb, BLAS/LAPACK), 70 internal\n"
    "error (out of memory: the message names what and how much), 74 output error;\n"
    "audit: 1 violation, 2 inconclusive; any command: 2 when the time budget\n"
    "stopped it (audit: the report has what was finished, the rest INCONCLUSIVE).\n"
    "\n"
    "environment: GAUSSAUDIT_BLAS names the BLAS/LAPACK library opened on the first\n"
    "linear-algebra call (default libopenblas.so.0; CBLAS and Fortran LAPACK symbols);\n"
    "GAUSSAUDIT_ARB names the FLINT/Arb library opened on the first certified\n"
    "computation (default libflint-arb.so.2; without it, certified results are reported as\n"
    "not available, with the reason).\n";

/* The commands: each takes the arguments after its name, the time budget already taken out. */
typedef struct {
    const char *name;
    int (*run)(int argc, char **argv, FILE *out, FILE *err);
} ga_cli_command;

static const ga_cli_command commands[] = {
    {"audit", ga_cmd_audit},         {"merge", ga_cmd_merge},     {"calibrate", ga_cmd_calibrate},
    {"delta", ga_cmd_delta},         {"epsilon", ga_cmd_epsilon}, {"rdp", ga_cmd_rdp},
    {"cdf", ga_cmd_cdf},             {"schema", ga_cmd_schema},   {"pld", ga_cmd_pld},
};

static int dispatch(int argc, char **argv, FILE *out, FILE *err)
{
    if (argc < 2) {
        fputs(usage_main, err);
        return EX_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage_main, out);
        return EX_OK;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        fprintf(out, "gaussaudit %s\n", GA_VERSION_STRING);
        return EX_OK;
    }
    const ga_cli_command *c = NULL;
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (!strcmp(cmd, commands[k].name))
            c = &commands[k];
    if (!c) {
        size_t nc = sizeof commands / sizeof commands[0];
        const char *names[sizeof commands / sizeof commands[0] + 2];
        for (size_t k = 0; k < nc; k++)
            names[k] = commands[k].name;
        names[nc] = "help";
        names[nc + 1] = "version";
        const char *near = ga_nearest(cmd, names, nc + 2, strlen(cmd) / 3 + 1, 1);
        char list[256];
        ga_join(list, sizeof list, names, nc + 2);
        ga_cli_err(err, "gaussaudit: unknown command '%s'%s%s%s; the commands: %s\n", cmd,
                   near ? " (did you mean " : "", near ? near : "", near ? "?)" : "", list);
        return EX_USAGE;
    }
    /* every command: the time budget (argv[0..1] are the program and the command) */
    int rest = argc - 2, tb = ga_cli_take_budget(&rest, argv + 2, cmd, err);
    if (tb)
        return EX_USAGE;
    return c->run(rest, argv + 2, out, err);
}

int ga_cli_main(int argc, char **argv, FILE *out, FILE *err)
{
    int rc = dispatch(argc, argv, out, err);
    /* a full disk or a closed pipe on standard output is an error, not a success */
    errno = 0;
    if (fflush(out) != 0 || ferror(out)) {
        ga_cli_err(err, "gaussaudit: error writing the output: %s\n",
                   errno ? strerror(errno) : "write error");
        rc = EX_IOERR;
    }
    return rc;
}

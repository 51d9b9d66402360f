/*
 * args.c - reading a command's arguments: the option table read by getopt_long (--name value,
 * --name=value, -xVALUE, "--"), the strict number and list readers, and messages that quote
 * untrusted text with every control character shown (a spec name cannot rewrite the terminal).
 */
#include "cli/cli.h"
#include "base/base.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int ga_cli_parse_double(double *v, const char *s)
{
    return ga_decimal_to_double(v, s) == GA_OK ? 0 : -1; /* the one number reader */
}

int ga_cli_parse_jobs(int *jobs, const char *s)
{
    double v;
    *jobs = 0;
    if (!s)
        return 0;
    if (ga_cli_parse_double(&v, s) || v != floor(v) || v < 1 || v > 256)
        return -1;
    *jobs = (int)v;
    return 0;
}

/* Parse "a,b,c" into a new array; returns count or -1 (index of the bad item in *bad). */
long ga_cli_parse_list(double **out, const char *s, long *bad)
{
    *out = NULL;
    if (!s || !*s)
        return -1;
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    double *v = malloc(n * sizeof *v);
    char *buf = strdup(s);
    long count = -1;
    if (!v || !buf)
        goto cleanup;
    char *save = buf;
    for (size_t i = 0; i < n; i++) {
        char *comma = strchr(save, ',');
        if (comma)
            *comma = 0;
        while (*save == ' ')
            save++;
        if (ga_cli_parse_double(&v[i], save)) {
            *bad = (long)i;
            goto cleanup;
        }
        save = comma ? comma + 1 : save + strlen(save);
    }
    *out = v;
    v = NULL;
    count = (long)n;
cleanup:
    free(v);
    free(buf);
    return count;
}

/* Split "a,b,c" into n malloc'ed strings (spaces trimmed); the array is NULL-terminated. */
char **ga_cli_split_list(const char *s, size_t *n)
{
    size_t k = 1;
    for (const char *p = s; *p; p++)
        k += *p == ',';
    char **v = calloc(k + 1, sizeof *v);
    if (!v)
        return NULL;
    const char *p = s;
    for (size_t i = 0; i < k; i++) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ') {
            p++;
            len--;
        }
        while (len && p[len - 1] == ' ')
            len--;
        v[i] = malloc(len + 1);
        if (!v[i]) {
            ga_cli_free_list(v);
            return NULL;
        }
        memcpy(v[i], p, len);
        v[i][len] = 0;
        p = e ? e + 1 : p + len;
    }
    *n = k;
    return v;
}

void ga_cli_free_list(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

/* s[0..n) for a terminal: control bytes as \xNN, C1 controls and bidi or invisible
 * characters as \uXXXX, a final newline kept (keep_nl) */
static void terminal_text(FILE *f, const char *s, size_t n, int keep_nl)
{
    size_t h;
    unsigned cp;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned char c1 = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        if (c == '\n' && i + 1 == n && keep_nl)
            fputc('\n', f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else if (c == 0xc2 && c1 >= 0x80 && c1 <= 0x9f) { /* C1 control in UTF-8 */
            fprintf(f, "\\u%04x", c1);
            i++;
        } else if ((h = ga_utf8_hidden(s + i, &cp)) > 0) { /* bidi, invisible */
            fprintf(f, "\\u%04x", cp);
            i += h - 1;
        } else
            fputc(c, f);
    }
}

void ga_cli_err(FILE *err, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    terminal_text(err, buf, strlen(buf), 1);
}

const char *ga_cli_safe(char *out, size_t n, const char *s)
{
    FILE *f = n > 1 ? fmemopen(out, n, "w") : NULL;
    if (!f)
        return "?";
    setvbuf(f, NULL, _IONBF, 0);
    terminal_text(f, s, strlen(s), 0);
    fclose(f); /* (writes the terminating NUL; a longer text is cut) */
    out[n - 1] = 0;
    return out;
}

int ga_cli_take_multi(int argc, char **argv, const char *name, const char **vals, size_t max,
                      size_t *n, const char *cmd, FILE *err)
{
    size_t ln = strlen(name);
    int k = 0;
    *n = 0;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--")) { /* the end of the options: the rest are operands */
            while (i < argc)
                argv[k++] = argv[i++];
            break;
        }
        if (!strcmp(argv[i], name)) {
            if (i + 1 >= argc) {
                ga_cli_err(err, "gaussaudit %s: option %s needs a value\n", cmd, name);
                return -1;
            }
            v = argv[++i];
        } else if (!strncmp(argv[i], name, ln) && argv[i][ln] == '=') {
            v = argv[i] + ln + 1;
        } else {
            argv[k++] = argv[i];
            continue;
        }
        if (*n >= max) {
            ga_cli_err(err, "gaussaudit %s: at most %zu %s options\n", cmd, max, name);
            return -1;
        }
        vals[(*n)++] = v;
    }
    return k;
}

int ga_cli_options(int argc, char **argv, ga_cli_opt *opts, const char **positional,
                   const char *cmd, FILE *out, FILE *err, const char *usage)
{
    size_t n = 0;
    return ga_cli_options_multi(argc, argv, opts, positional, positional ? 1 : 0, &n, cmd, out,
                                err, usage);
}

/* "unknown option 'X'" with the nearest of the table's names, and where to look */
static void unknown_option(const char *a, const ga_cli_opt *opts, const char *cmd, FILE *err)
{
    const char *names[64];
    size_t n = 0;
    char word[64];
    snprintf(word, sizeof word, "%s", a);
    char *eq = strchr(word, '=');
    if (eq)
        *eq = 0;
    for (const ga_cli_opt *q = opts; q->name && n < 63; q++)
        names[n++] = q->name;
    names[n++] = "--help";
    const char *near = ga_nearest(word, names, n, strlen(word) / 3 + 1, 1);
    ga_cli_err(err, "gaussaudit %s: unknown option '%s'%s%s%s (see gaussaudit %s --help)\n", cmd,
               a, near ? "; did you mean " : "", near ? near : "", near ? "?" : "", cmd);
}

/* store value v of option o: a value, a flag, or one more value of a repeatable option */
static int take_value(ga_cli_opt *o, const char *v, const char *cmd, FILE *err)
{
    if (o->flag) {
        *o->flag = 1;
        return 0;
    }
    if (o->multi) {
        if (*o->count >= o->max) {
            ga_cli_err(err, "gaussaudit %s: at most %zu %s options\n", cmd, o->max, o->name);
            return -1;
        }
        o->multi[(*o->count)++] = v;
        return 0;
    }
    *o->value = v;
    return 0;
}

/* GNU getopt_long over the table: "--name value", "--name=value", "-xVALUE", "-x VALUE",
 * options and operands in any order, "--" ending the options ("-" is an operand: stdin).
 * getopt reads argv[0] as the program, so it gets a copy with the command in front. */
int ga_cli_options_multi(int argc, char **argv, ga_cli_opt *opts, const char **positional,
                         size_t maxpos, size_t *npos_out, const char *cmd, FILE *out, FILE *err,
                         const char *usage)
{
    size_t nopt = 0;
    *npos_out = 0;
    while (opts[nopt].name)
        nopt++;
    struct option *lo = calloc(nopt + 2, sizeof *lo);
    char **av = calloc((size_t)argc + 2, sizeof *av);
    char *shorts = calloc(2 * nopt + 4, 1);
    int rc = -1;
    if (!lo || !av || !shorts) {
        ga_cli_err(err, "gaussaudit %s: no memory for the arguments\n", cmd);
        goto cleanup;
    }
    size_t nl = 0, ns = 0;
    shorts[ns++] = ':'; /* ':' for a missing value, '?' for an unknown option */
    shorts[ns++] = 'h';
    for (size_t i = 0; i < nopt; i++) {
        const char *nm = opts[i].name;
        int has = opts[i].flag ? no_argument : required_argument;
        if (nm[0] == '-' && nm[1] == '-')
            lo[nl++] = (struct option){nm + 2, has, NULL, 256 + (int)i};
        else {
            shorts[ns++] = nm[1];
            if (has == required_argument)
                shorts[ns++] = ':';
        }
    }
    lo[nl] = (struct option){"help", no_argument, NULL, 'h'};
    av[0] = (char *)cmd;
    memcpy(av + 1, argv, (size_t)argc * sizeof *argv);
    optind = 0; /* (glibc: start afresh, a command may parse more than once per process) */
    opterr = 0;
    int c, ac = argc + 1;
    while ((c = getopt_long(ac, av, shorts, lo, NULL)) != -1) {
        ga_cli_opt *o = NULL;
        if (c >= 256)
            o = &opts[c - 256];
        for (size_t i = 0; !o && c > 0 && c < 256 && i < nopt; i++)
            if (opts[i].name[0] == '-' && opts[i].name[1] == c && !opts[i].name[2])
                o = &opts[i];
        if (c == 'h' && !o) {
            fputs(usage, out);
            rc = 1;
            goto cleanup;
        }
        if (c == ':') {
            const char *nm = optopt >= 256 ? opts[optopt - 256].name : NULL;
            char sh[3] = {'-', (char)optopt, 0};
            ga_cli_err(err, "gaussaudit %s: option %s needs a value\n", cmd, nm ? nm : sh);
            goto cleanup;
        }
        if (c == '?') {
            if (optopt >= 256)
                ga_cli_err(err, "gaussaudit %s: option %s takes no value (got '%s')\n", cmd,
                           opts[optopt - 256].name, av[optind - 1]);
            else if (optopt) {
                char sh[3] = {'-', (char)optopt, 0};
                unknown_option(sh, opts, cmd, err);
            } else
                unknown_option(av[optind - 1], opts, cmd, err);
            goto cleanup;
        }
        if (!o || take_value(o, optarg, cmd, err))
            goto cleanup;
    }
    for (int i = optind; i < ac; i++) {
        if (!positional || *npos_out >= maxpos) {
            ga_cli_err(err, "gaussaudit %s: unexpected argument '%s' (see gaussaudit %s --help)\n",
                       cmd, av[i], cmd);
            goto cleanup;
        }
        positional[(*npos_out)++] = av[i];
    }
    rc = 0;
cleanup:
    free(lo);
    free(av);
    free(shorts);
    return rc;
}

/* Print a double with the digits its absolute error supports (at least 2, at most 17). */
void ga_cli_print_value(FILE *out, double val, double err)
{
    int digits = 17;
    if (val != 0 && err > 0 && isfinite(err)) {
        double rel = err / fabs(val);
        digits = (int)ceil(-log10(rel));
        if (digits < 2)
            digits = 2;
        if (digits > 17)
            digits = 17;
    } else if (val == 0 && err > 0) {
        fprintf(out, "0");
        return;
    }
    fprintf(out, "%.*g", digits, val);
}

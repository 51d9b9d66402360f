/*
 * cli.h - the command-line entry point and its helpers (internal to the tool).
 */
#ifndef GA_AUDIT_CLI_H
#define GA_AUDIT_CLI_H

#include <stdio.h>

/* Run the command line; returns the process exit status (sysexits codes). */
int ga_cli_main(int argc, char **argv, FILE *out, FILE *err);

/* Strict number parsing: the whole string must be one finite number. 0 on success. */
int ga_cli_parse_double(double *v, const char *s);
/* "a,b,c" into a malloc'ed array; returns the count, or -1 with the bad item index. */
long ga_cli_parse_list(double **out, const char *s, long *bad);
/* Split "a,b,c" into a NULL-terminated array of malloc'ed strings; NULL on no memory. */
char **ga_cli_split_list(const char *s, size_t *n);
void ga_cli_free_list(char **v);
/* Print val with as many significant digits as its absolute error err supports. */
void ga_cli_print_value(FILE *out, double val, double err);

#endif

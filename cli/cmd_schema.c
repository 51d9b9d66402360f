/*
 * cmd_schema.c - `gaussaudit schema`: the JSON Schema of the spec language on standard output
 * (doc/gaussaudit-spec.schema.json is this output, pretty-printed).
 */
#include "cli/cli.h"
#include "gaussaudit.h"

static const char *usage_schema =
    "usage: gaussaudit schema\n"
    "\n"
    "Print the JSON Schema (draft 2020-12) of the spec language, written from the tables of\n"
    "kinds, keys, relations and claims the parser checks, for editors that check YAML\n"
    "against a schema (doc/gaussaudit-spec.schema.json is a copy).\n";

int ga_cmd_schema(int argc, char **argv, FILE *out, FILE *err)
{
    ga_cli_opt opts[] = {GA_OPT_END};
    int pr = ga_cli_options(argc, argv, opts, NULL, "schema", out, err, usage_schema);
    if (pr)
        return pr > 0 ? EX_OK : EX_USAGE;
    return ga_spec_schema_write(out) == GA_OK ? EX_OK : EX_IOERR;
}

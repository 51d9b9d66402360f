/* main.c - the gaussaudit executable: all logic lives in ga_cli_main (audit/cli.c). */
#include "audit/cli.h"
#include "gaussaudit.h"

int main(int argc, char **argv)
{
    ga_init();
    int rc = ga_cli_main(argc, argv, stdout, stderr);
    ga_cleanup();
    return rc;
}

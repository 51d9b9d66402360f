/* main.c - the gaussaudit executable: all logic lives in ga_cli_main (audit/cli.c). */
#include "audit/cli.h"

int main(int argc, char **argv)
{
    return ga_cli_main(argc, argv, stdout, stderr);
}

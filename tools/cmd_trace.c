/* cmd_trace.c - hpcshim trace (being written). */
#include <stdio.h>

#include "tools/cmd.h"

int trace_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("hpcshim trace: not written yet\n", stderr);
	return 2;
}

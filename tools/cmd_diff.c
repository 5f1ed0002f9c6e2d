/* cmd_diff.c - hpcshim diff (being written). */
#include <stdio.h>

#include "tools/cmd.h"

int diff_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("hpcshim diff: not written yet\n", stderr);
	return 2;
}

/* cmd_html.c - hpcshim html (being written). */
#include <stdio.h>

#include "tools/cmd.h"

int html_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("hpcshim html: not written yet\n", stderr);
	return 2;
}

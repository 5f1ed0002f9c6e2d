/* alias_list.c - hpcshim-list: an alias of `hpcshim list` for one
 * release. */
#include "tools/cmd.h"

int main(int argc, char **argv)
{
	return list_main(argc, argv);
}

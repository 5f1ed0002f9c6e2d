/* alias_merge.c - hpcshim-merge: an alias of `hpcshim merge` for one
 * release. */
#include "tools/cmd.h"

int main(int argc, char **argv)
{
	return merge_main(argc, argv);
}

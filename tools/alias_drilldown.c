/* alias_drilldown.c - hpcshim-drilldown, the standalone `hpcshim
 * drilldown`. */
#include "tools/cmd.h"

int main(int argc, char **argv)
{
	return drilldown_main(argc, argv);
}

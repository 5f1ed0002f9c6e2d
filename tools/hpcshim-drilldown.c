/* hpcshim-drilldown.c - the standalone `hpcshim drilldown`. */
#include "tools/drilldown.h"

int main(int argc, char **argv)
{
	return drilldown_main(argc, argv);
}

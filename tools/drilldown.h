/* drilldown.h - the entry of `hpcshim drilldown` (tools/drilldown.c). */
#ifndef HPCSHIM_TOOLS_DRILLDOWN_H
#define HPCSHIM_TOOLS_DRILLDOWN_H

/* Returns the exit status: 0, or 2 on bad input. */
int drilldown_main(int argc, char **argv);

#endif

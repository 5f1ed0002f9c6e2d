/* cmd_trace.c - hpcshim trace: results as a Chrome trace event file, for
 * Perfetto (ui.perfetto.dev) and chrome://tracing; the same file as
 * hpcshim convert --to chrome (the writer: tools/convert_chrome.c).
 *
 * Usage: hpcshim trace [-o trace.json] FILE|DIR ...
 */
#include <getopt.h>
#include <stdio.h>

#include "tools/cmd.h"
#include "tools/convert.h"
#include "tools/membound.h"
#include "tools/results.h"

static const char usage_line[] = "usage: hpcshim trace [-o trace.json] FILE|DIR ...\n";

static void trace__help(void)
{
	fputs(usage_line, stdout);
	fputs("\nWrites a Chrome trace event file (Perfetto, chrome://tracing): a\n"
	      "process per rank, a track per thread, region spans from HPCSHIM_TRACE\n"
	      "(hpcshim run --trace N), counter tracks from HPCSHIM_INTERVAL series.\n"
	      "Without -o, to stdout.  Other formats: hpcshim convert.\n"
	      "Exit status: 0; 2 for unreadable input.\n",
	      stdout);
}

int trace_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *out = NULL;
	struct results s;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'h') {
			trace__help();
			return 0;
		} else {
			fputs(usage_line, stderr);
			return 2;
		}
	}
	if (optind == argc) {
		fputs(usage_line, stderr);
		return 2;
	}
	if (membound__check("hpcshim trace", MEMBOUND_CHROME, false, argc - optind,
			    argv + optind) < 0 ||
	    results__open(&s, "hpcshim trace", argc - optind, argv + optind) < 0)
		return 2;
	rc = convert_chrome(&s, out, "hpcshim trace") < 0 || s.nbad ? 2 : 0;
	results__free(&s);
	return rc;
}

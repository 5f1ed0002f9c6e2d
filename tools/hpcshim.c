/* hpcshim.c - the one command: hpcshim SUBCOMMAND [ARGS...].
 *
 * Each subcommand is a file of its own (tools/cmd_<name>.c, the former
 * programs' mains); this file only picks one.  hpcshim-report, -merge and
 * -list remain as aliases for one release.
 */
#include <stdio.h>
#include <string.h>

#include "tools/cmd.h"
#include "tools/cmd.h"

static const struct subcommand {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *what;
} subcommands[] = {
	{ "run", run_main, "run a program under the shim, print its totals" },
	{ "report", report_main, "tables of results: regions, threads, ranks" },
	{ "diff", diff_main, "compare two sets of results, with significance" },
	{ "html", html_main, "one self-contained HTML report" },
	{ "trace", trace_main, "Chrome/Perfetto trace of regions and series" },
	{ "convert", convert_main, "results as pprof, speedscope, OTF2, Chrome trace" },
	{ "merge", merge_main, "the files of a job in one job document" },
	{ "drilldown", drilldown_main, "where the cycles went: stall trees, next step" },
	{ "list", list_main, "presets and opcode classes this host can count" },
};
#define NSUB (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *f)
{
	fputs("usage: hpcshim SUBCOMMAND [OPTIONS] [ARGS...]\n", f);
}

static void help(void)
{
	usage(stdout);
	puts("\nsubcommands:");
	for (size_t i = 0; i < NSUB; i++)
		printf("  %-10s %s\n", subcommands[i].name, subcommands[i].what);
	puts("\n'hpcshim SUBCOMMAND --help' for each; hpcshim(1).\n"
	     "Quick start:  hpcshim run -- ./app   then   hpcshim report .   and\n"
	     "              hpcshim html . -o report.html");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			char *sub[] = { argv[2], "--help", NULL };

			for (size_t i = 0; i < NSUB; i++)
				if (strcmp(argv[2], subcommands[i].name) == 0)
					return subcommands[i].main(2, sub);
		}
		help();
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("hpcshim " PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NSUB; i++) {
		static char name[32];

		if (strcmp(argv[1], subcommands[i].name) != 0)
			continue;
		/* getopt's messages name the subcommand as "hpcshim run" */
		snprintf(name, sizeof(name), "hpcshim %s", subcommands[i].name);
		if (subcommands[i].main == merge_main && argc == 3 &&
		    strcmp(argv[2], "--help") == 0) {
			puts("usage: hpcshim merge [-o OUT.json] FILE.json|DIR ...\n\n"
			     "The result files of a job in one job document (docs/schema.md,\n"
			     "\"Job document\"): per region and event the ranks' sum, mean, min,\n"
			     "max, median, sd, imbalance and who was min/max.  Messages say\n"
			     "hpcshim-merge, its former name (an alias for one release).");
			return 0;
		}
		argv[1] = name;
		return subcommands[i].main(argc - 1, argv + 1);
	}
	fprintf(stderr, "hpcshim: '%s' is not a subcommand (hpcshim --help lists them)\n",
		argv[1]);
	usage(stderr);
	return 2;
}

/* cmd_convert.c - hpcshim convert: results in the formats of the viewers
 * HPC users already have (perf's `perf data convert --to-*`), one file
 * per format (tools/convert_<name>.c, the table below).
 *
 * Usage: hpcshim convert --to FORMAT [-o OUTPUT] FILE|DIR ...
 *
 * The inputs are read as every subcommand reads them (tools/results.c):
 * result files, directories of them, job documents; the ranks of a job
 * go into one output.  A format whose library this build lacks is listed
 * as unavailable, with the library (configure.ac).  What the formats
 * share is in tools/convert.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "tools/cmd.h"
#include "tools/convert.h"
#include "tools/membound.h"
#include "tools/results.h"

#ifdef HPCSHIM_HAVE_PPROF
#define PPROF_FN NULL, convert_pprof, NULL
#else
#define PPROF_FN NULL, NULL, "this build has no libprotobuf-c, protoc-c or zlib (configure)"
#endif
#ifdef HPCSHIM_HAVE_OTF2
#define OTF2_FN NULL, convert_otf2, NULL
#else
#define OTF2_FN NULL, NULL, "this build has no OTF2 library, 3.x (configure)"
#endif

const struct convert_format convert_formats[] = {
	{ "chrome", "Chrome trace event JSON (Perfetto, chrome://tracing): hpcshim trace's",
	  MEMBOUND_CHROME, convert_chrome, NULL, NULL },
	{ "pprof", "gzipped profile.proto (go tool pprof, speedscope, Pyroscope)",
	  MEMBOUND_PPROF, PPROF_FN },
	{ "speedscope", "speedscope's JSON: a profile per thread", MEMBOUND_SPEEDSCOPE,
	  convert_speedscope, NULL, NULL },
	{ "otf2", "OTF2 archive, -o DIR: DIR/traces.otf2 (Vampir, Scalasca)", MEMBOUND_OTF2,
	  OTF2_FN },
};
const size_t convert_nformats = sizeof(convert_formats) / sizeof(convert_formats[0]);

static const char usage_line[] =
	"usage: hpcshim convert --to FORMAT [-o OUTPUT] FILE|DIR ...\n";

static void convert__list(FILE *f)
{
	fputs("formats:\n", f);
	for (size_t i = 0; i < convert_nformats; i++) {
		const struct convert_format *c = &convert_formats[i];

		fprintf(f, "  %-11s %s%s%s%s\n", c->name, c->what, c->unavailable ? " [unavailable: " : "",
			c->unavailable ? c->unavailable : "", c->unavailable ? "]" : "");
	}
}

static void convert__help(void)
{
	fputs(usage_line, stdout);
	fputs("\nWrites the results (files, directories, job documents; a job's ranks\n"
	      "in one output) in another tool's format.  Region spans need\n"
	      "HPCSHIM_TRACE (hpcshim run --trace N); pprof reads the region tree\n"
	      "(speedscope too, for a thread without trace records).  -o: the output\n"
	      "file; otf2: a new directory DIR, the archive DIR/traces.otf2.  chrome\n"
	      "and speedscope write to stdout without -o.  docs/formats.md.\n\n",
	      stdout);
	convert__list(stdout);
	fputs("\nExit status: 0; 2 for a usage error, an unknown or unavailable format,\n"
	      "unreadable input or an output that could not be written.\n",
	      stdout);
}

static const struct convert_format *convert__find(const char *name)
{
	for (size_t i = 0; i < convert_nformats; i++)
		if (!strcmp(convert_formats[i].name, name))
			return &convert_formats[i];
	return NULL;
}

int convert_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const struct convert_format *fmt;
	const char *out = NULL, *to = NULL;
	struct results s;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "t:o:h", opts, NULL)) != -1) {
		if (opt == 't')
			to = optarg;
		else if (opt == 'o')
			out = optarg;
		else if (opt == 'h') {
			convert__help();
			return 0;
		} else {
			fputs(usage_line, stderr);
			return 2;
		}
	}
	if (!to) {
		fputs(usage_line, stderr);
		convert__list(stderr);
		return 2;
	}
	fmt = convert__find(to);
	if (!fmt) {
		fprintf(stderr, "hpcshim convert: unknown format '%s'\n", to);
		convert__list(stderr);
		return 2;
	}
	if (fmt->unavailable) {
		fprintf(stderr, "hpcshim convert: %s is unavailable: %s\n", fmt->name,
			fmt->unavailable);
		return 2;
	}
	if (optind == argc) {
		fputs(usage_line, stderr);
		return 2;
	}
	if (!out && strcmp(fmt->name, "chrome") && strcmp(fmt->name, "speedscope")) {
		fprintf(stderr, "hpcshim convert: --to %s needs -o OUTPUT\n", fmt->name);
		return 2;
	}
	/* the writers that read a file at a time hold one file's tree */
	if (membound__check("hpcshim convert", fmt->mem_factor, fmt->stream != NULL,
			    argc - optind, argv + optind) < 0)
		return 2;
	if (fmt->stream)
		return fmt->stream(argc - optind, argv + optind, out, "hpcshim convert") < 0 ? 2 : 0;
	if (results__open(&s, "hpcshim convert", argc - optind, argv + optind) < 0)
		return 2;
	rc = fmt->write(&s, out, "hpcshim convert") < 0 || s.nbad ? 2 : 0;
	results__free(&s);
	return rc;
}

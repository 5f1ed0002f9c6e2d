/* membound.h - the reading tools' memory, bounded before they read.
 *
 * report, html, trace and convert parse whole result files into json-c's
 * object tree, which takes many times the file in memory; under Linux's
 * overcommit a file too large for the machine is not a failed malloc but
 * the OOM killer, without a word.  So the inputs' sizes are weighed
 * first, by factors measured per tool (below), against the memory
 * available: MemAvailable, the memory cgroup's limit less what it holds
 * (v1 or v2, the tightest level), RLIMIT_AS and RLIMIT_DATA less what is
 * mapped, or HPCSHIM_TOOL_MEMORY instead of all of them.  What does not
 * fit gets one line "PROG: FILE: too large to read in memory (N MB
 * needed, M available)" and the tool ends with 2.  And RLIMIT_DATA is
 * lowered to the available memory, so that a file denser than any the
 * factors were measured on (a crafted one: json-c takes 1.7 KB for an
 * empty object "{}") makes malloc fail, which the tools report as "out
 * of memory", instead of the OOM killer.
 */
#ifndef HPCSHIM_TOOLS_MEMBOUND_H
#define HPCSHIM_TOOLS_MEMBOUND_H

#include <stdbool.h>

/* Peak RSS per byte of input (less the tool's peak on a small result),
 * measured by tools/memfactors.py on each shape the shim writes: regions
 * in a tree and flat (bench/bigregions.py), trace records (bench/
 * bigtrace.py), interval series, a job document, a directory of small
 * results; files of 6-95 MB (docs/benchmarks.md, "The tools' memory per
 * byte of input", has the table).  Each factor is the most any shape
 * took, the shape named, plus 10% for the shapes between them and the
 * drift with size (+1 at 4x the size):
 *
 *   tool                  most measured              factor
 *   report (every view)   28.2  regions, flat         31
 *   html                  31.0  regions, flat         34
 *   trace, chrome         31.7  interval series       35
 *   speedscope            36.0  trace records         40
 *   pprof (one file)      27.6  regions, flat         31
 *   otf2 (one file)       26.9  regions, flat         30
 *
 * Most of it is json-c's tree of the file: 26 x for regions, 14 x for
 * trace records, 10 x for series; the rest each tool's own (html's page,
 * speedscope's events, chrome's event texts). */
#define MEMBOUND_REPORT 31.0
#define MEMBOUND_HTML 34.0
#define MEMBOUND_CHROME 35.0
#define MEMBOUND_SPEEDSCOPE 40.0
#define MEMBOUND_PPROF 31.0
#define MEMBOUND_OTF2 30.0
/* What a tool takes on a small result: 14 MB measured, rounded up. */
#define MEMBOUND_BASE (16.0 * 1024 * 1024)

/* The inputs argv[0..argc) (files, directories standing for their
 * hpcshim-*.json files) weighed at factor bytes per byte: their sum, or
 * with one_at_a_time (the writers that read a file at a time,
 * results__each) the largest file.  0 when they fit; -1 after the line.
 * HPCSHIM_VERBOSE >= 1: a line with the estimate and the memory
 * available, in bytes. */
int membound__check(const char *prog, double factor, bool one_at_a_time, int argc,
		    char **argv);

#endif

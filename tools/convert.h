/* convert.h - the formats of hpcshim convert (tools/cmd_convert.c), one
 * file each (tools/convert_<name>.c), and what they share.
 *
 * A writer reads the results only through aggregate/docread.h, writes
 * out (a file, or a directory for an archive; NULL: stdout where the
 * format allows it), prints its own messages as "PROG: ..." and returns
 * 0, or < 0 when the output could not be written.
 */
#ifndef HPCSHIM_TOOLS_CONVERT_H
#define HPCSHIM_TOOLS_CONVERT_H

#include <stddef.h>

struct results;

struct json_object;

typedef int convert_fn(const struct results *s, const char *out, const char *prog);
/* A writer that reads the inputs itself, one file at a time
 * (results__each), so that a job of any size fits in memory: < 0 when the
 * output could not be written or an input not read. */
typedef int convert_stream_fn(int argc, char **argv, const char *out, const char *prog);

struct convert_format {
	const char *name;
	const char *what;
	double mem_factor;         /* its memory per byte of input (membound.h) */
	convert_fn *write;         /* one of write and stream; neither: */
	convert_stream_fn *stream; /* not in this build, */
	const char *unavailable;   /* and why: the library configure did not find */
};

extern const struct convert_format convert_formats[];
extern const size_t convert_nformats;

/* Chrome trace event JSON (hpcshim trace's); out NULL: stdout. */
convert_fn convert_chrome;
#ifdef HPCSHIM_HAVE_PPROF
convert_stream_fn convert_pprof;
#endif
convert_fn convert_speedscope;
#ifdef HPCSHIM_HAVE_OTF2
convert_stream_fn convert_otf2;
#endif

/* The earliest start among the results, in ns since the epoch: time 0 of
 * every format. */
double convert__t0(const struct results *s);

/* The rank a result's threads belong to: a process result's own rank
 * (process.rank, or its order among rankless files). */
int convert__rank(const struct results *s, size_t i);
/* doc as plain JSON to out, written as merge writes its -o
 * (aggregate/result.c: through a device or FIFO, else a new file renamed
 * into place, no link followed), or to stdout when out is NULL: 0, or -1
 * with one "prog: ..." line.  doc stays the caller's. */
int convert__write_json(struct json_object *doc, const char *out, const char *prog);
/* The same of a document already text (a line break added). */
int convert__write_text(const char *text, const char *out, const char *prog);

/* An owner's region tree (a thread's regions, or a job document's summary
 * regions when it keeps no threads): each region's parent as an index
 * into r (-1: a top-level region, or a parent whose name is not written,
 * HPCSHIM_MAX_REGIONS). */
struct convert_tree {
	size_t n;
	const struct dr_region **r;
	long *parent;
};

struct dr_thread;
struct dr_doc;
/* th's regions, or d's summary regions when th is NULL. */
void convert_tree__init(struct convert_tree *t, const struct dr_thread *th,
			const struct dr_doc *d);
void convert_tree__exit(struct convert_tree *t);
/* Region i's path, leaf first, into out (at most max); its length.  The
 * parents have no cycle (docs/schema.md); a damaged file's is cut. */
size_t convert_tree__path(const struct convert_tree *t, size_t i, size_t *out, size_t max);

/* A trace record's begin and end as every format writes them: not before
 * floor (the format's time 0: a negative time, or one before every
 * process began, is a damaged or crafted file's), the end not before the
 * begin.  So no format writes a negative time or duration. */
struct dr_span;
void convert__span_times(const struct dr_span *sp, long long floor, long long *b,
			 long long *e);

/* A thread's trace records as nested open and close events in time
 * order (ns since the epoch), two per record: what OTF2's Enter/Leave and
 * speedscope's O/C need (a close must be the innermost open region's).
 * The times are convert__span_times's, with floor; a record's end past
 * its enclosing record's end (equal readings) is cut to it.  The array
 * is allocated; its length is returned. */
struct convert_ev {
	long long at;
	size_t span; /* the record's index (dr_thread__span) */
	int open;
};
size_t convert__nest(const struct dr_thread *th, long long floor, struct convert_ev **out);

#endif

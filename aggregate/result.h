/* result.h - result files: created unseen, published under a name no other
 * file has, replaced in one step (the process results and the job
 * document share it).
 *
 * The process result is written atomically into dir: an unnamed file
 * (O_TMPFILE) or a hidden temporary, then link(2) to a name that never
 * overwrites another result.  A process that publishes more than once
 * (the periodic flush) renders into a file nobody sees yet
 * (agg_result__create), gives it a name no other file has
 * (link_new) or puts it in place of its own earlier one with one
 * rename(2) (replace); discard closes it and removes what is left of the
 * temporary.
 */
#ifndef HPCSHIM_AGGREGATE_RESULT_H
#define HPCSHIM_AGGREGATE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct agg_process;

struct agg_result_file {
	int fd;
	bool anon; /* O_TMPFILE: no name until linked */
	char tmp[4096];
};

/* Renders p into a file of dir nobody sees yet (tag: which writer of the
 * process, in a temporary name): the view (view.h) and the document
 * (json.h) through the emitter (out.h).  -1 with err. */
int agg_result__create(struct agg_result_file *f, const struct agg_process *p,
		       const char *dir, char tag, char *err, size_t errlen);
/* Writes the process result atomically into dir (agg_result__create, then
 * link(2) to a name that never overwrites another result).  On success
 * path receives the final file name. */
int agg_process__write(const struct agg_process *p, const char *dir, char *path,
		       size_t pathlen, char *err, size_t errlen);
/* Opens f in dir for the writer tag of process (host, pid): unnamed where
 * the file system allows, else under agg_result__tmp_name.  -1 with
 * errno. */
int agg_result__open(struct agg_result_file *f, const char *dir, const char *host,
		     pid_t pid, char tag);
int agg_result__link_new(struct agg_result_file *f, const char *dir, const char *base,
			 char *path, size_t pathlen);
int agg_result__replace(struct agg_result_file *f, const char *path);
void agg_result__discard(struct agg_result_file *f);
/* hpcshim-<host>-<pid>[-j<job>][-r<rank>][-x<exec generation>]. */
void agg_result__base(const struct agg_process *p, char *base, size_t len);
/* "-j<job>" for a job id (sanitized for a file name), "" for none. */
void agg_result__job_suffix(const char *id, char *out, size_t len);
/* The temporary name of a writer (tag) of process (host, pid) in dir. */
void agg_result__tmp_name(char *buf, size_t len, const char *dir, const char *host,
			  pid_t pid, char tag);
/* text and a line break as path, through a temporary beside it (a random
 * name, O_EXCL) that is synced and renamed over path (the job document).
 * named: path is the user's (-o): a device, pipe or FIFO there is written
 * through, a directory refused.  -1 with err. */
int agg_result__write_text(const char *path, const char *text, bool named,
			   char *err, size_t errlen);
/* n bytes of buf as path, as agg_result__write_text writes text (no line
 * break added): the binary formats of hpcshim convert. */
int agg_result__write_bytes(const char *path, const void *buf, size_t n, bool named,
			    char *err, size_t errlen);
/* The mode every result file and job document is created with (before the
 * process's umask): 0600 unless set (common/filemode.h, HPCSHIM_UMASK). */
void agg_result__set_mode(unsigned mode);

#endif

/* results.c - loading the process results the subcommands read (results.h).
 *
 * Every problem with an input is one line "PROG: FILE: what", and the
 * other inputs are still read: a job's directory with one truncated file
 * (a rank killed while writing) still gives a report of the others.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "tools/escape.h"
#include "tools/results.h"

#include "tools/xalloc.h"

static void results__skip(struct results *s, const char *path, const char *why)
{
	fflush(stdout); /* keep the order of the two streams */
	fprintf(stderr, "%s: %s: %s\n", s->prog, esc__t(path), esc__t(why));
	s->bad = xrealloc(s->bad, (s->nbad + 1) * sizeof(*s->bad));
	s->bad[s->nbad].path = xstrdup(path);
	s->bad[s->nbad].why = xstrdup(why);
	s->nbad++;
}

/* 1 when the document can be read (docread.c checks it); a newer or
 * older version of the schema is read for what it has, and the line says
 * so. */
static int check_doc(struct results *s, const char *path, struct dr_doc *doc, char *why,
		     size_t len)
{
	bool known;
	const char *schema;

	if (dr_doc__check(doc, why, len) != DR_OK)
		return 0;
	schema = dr_doc__schema(doc, &known);
	if (!known) {
		fflush(stdout);
		fprintf(stderr,
			"%s: %s: schema \"%.60s\", this tool knows \"%s\": reading the "
			"members it knows, the others are not shown\n",
			s->prog, esc__t(path), esc__t(schema),
			dr_doc__kind(doc) == DR_JOB ? DR_JOB_SCHEMA : RESULTS_SCHEMA);
	}
	return 1;
}

/* in_dir: found in a directory, where a job document (the in-job one
 * lands beside the rank files, preload/mpi/) is left alone: the rank
 * files hold the same job.  Named on the command line, it is read.
 * Returns false for a job document left alone. */
static bool results__add_file(struct results *s, const char *path, bool in_dir)
{
	char why[512];
	struct dr_doc *doc = dr_doc__load(path, why, sizeof(why));
	struct dr_rank rk;

	if (!doc) {
		results__skip(s, path, why);
		return true;
	}
	if (in_dir && dr_doc__kind(doc) == DR_JOB) {
		dr_doc__free(doc);
		return false;
	}
	if (!check_doc(s, path, doc, why, sizeof(why))) {
		dr_doc__free(doc);
		results__skip(s, path, why);
		return true;
	}
	dr_doc__rank(doc, 0, &rk);
	s->r = xrealloc(s->r, (s->n + 1) * sizeof(*s->r));
	s->r[s->n].path = xstrdup(path);
	s->r[s->n].doc = doc;
	s->r[s->n].rank = dr_doc__kind(doc) == DR_JOB ? (rk.rank >= 0 ? rk.rank : 0) : rk.rank;
	s->n++;
	return true;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

ssize_t results__list_dir(const char *dir, const char *prefix, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0, plen = strlen(prefix);

	*names = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len <= 5 || strncmp(e->d_name, prefix, plen) != 0 ||
		    strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		*names = xrealloc(*names, (n + 1) * sizeof(**names));
		(*names)[n] = xrealloc(NULL, strlen(dir) + len + 2);
		sprintf((*names)[n], "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(*names, n, sizeof(**names), str_cmp);
	return (ssize_t)n;
}

/* The ranks a job document covers (its job.ranks), or -1. */
static long long results__job_ranks(const char *path)
{
	char why[512];
	struct dr_doc *doc = dr_doc__load(path, why, sizeof(why));
	json_object *job, *ranks;
	long long n = -1;

	if (doc && dr_doc__kind(doc) == DR_JOB &&
	    json_object_object_get_ex(dr_doc__json(doc), "job", &job) &&
	    json_object_object_get_ex(job, "ranks", &ranks) &&
	    json_object_is_type(ranks, json_type_int))
		n = json_object_get_int64(ranks);
	dr_doc__free(doc);
	return n;
}

/* A directory stands for the result files in it (hpcshim-*.json, the
 * names the shim publishes): a job document next to them is left alone,
 * unless the directory has no process result (HPCSHIM_MPI_FILES=job:
 * the job document is the job) or fewer than the job document covers
 * (HPCSHIM_MPI_FILES=auto above its threshold: only the named ranks'). */
static void results__add_dir(struct results *s, const char *dir)
{
	char **names;
	ssize_t got = results__list_dir(dir, "hpcshim-", &names);
	size_t n = got > 0 ? (size_t)got : 0, before = s->n;
	bool none;

	if (got < 0) {
		results__skip(s, dir, "cannot open directory");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (results__add_file(s, names[i], true)) {
			free(names[i]);
			names[i] = NULL; /* kept: the job documents left alone */
		}
	none = s->n == before;
	/* HPCSHIM_MPI_FILES=auto above its threshold: the job document and
	 * the files of the few ranks it names; the document is the job. */
	for (size_t i = 0; i < n && !none; i++)
		if (names[i] && results__job_ranks(names[i]) > (long long)(s->n - before)) {
			while (s->n > before) {
				s->n--;
				dr_doc__free(s->r[s->n].doc);
				free(s->r[s->n].path);
			}
			none = true;
		}
	for (size_t i = 0; i < n; i++) {
		if (names[i] && none)
			results__add_file(s, names[i], false);
		free(names[i]);
	}
	free(names);
	if (n == 0)
		results__skip(s, dir,
			      "no hpcshim-*.json result files in the directory");
}

static int rank_cmp(const void *a, const void *b)
{
	const struct result *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

size_t results__load(struct results *s, const char *prog, int argc, char **argv)
{
	struct stat st;
	int next = 0;

	memset(s, 0, sizeof(*s));
	s->prog = prog;
	for (int i = 0; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			results__add_dir(s, argv[i]);
		else
			results__add_file(s, argv[i], false);
	}
	/* Files without a rank follow the highest rank seen, in input order. */
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < dr_doc__nranks(s->r[i].doc); k++) {
			struct dr_rank rk;

			dr_doc__rank(s->r[i].doc, k, &rk);
			if (rk.rank >= next)
				next = rk.rank + 1;
		}
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i].rank < 0 && dr_doc__kind(s->r[i].doc) == DR_PROCESS)
			s->r[i].rank = next++;
	qsort(s->r, s->n, sizeof(*s->r), rank_cmp);
	return s->n;
}

/* One file into one (emptied first), its messages on stderr; the bad
 * files counted into *nbad. */
static void results__each_file(struct results *one, const char *prog, const char *path,
			       bool in_dir, bool *job, size_t *nbad)
{
	memset(one, 0, sizeof(*one));
	one->prog = prog;
	if (!results__add_file(one, path, in_dir) && job)
		*job = true;
	*nbad += one->nbad;
}

size_t results__each(const char *prog, int argc, char **argv,
		     int (*cb)(struct results *one, void *arg), void *arg, size_t *nbad)
{
	struct results one;
	struct stat st;
	size_t used = 0;

	*nbad = 0;
	for (int i = 0; i < argc; i++) {
		char **names = NULL;
		ssize_t got;
		bool jobs = false;
		size_t before = used;

		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			results__each_file(&one, prog, argv[i], false, NULL, nbad);
			used += one.n && cb(&one, arg) == 0;
			results__free(&one);
			continue;
		}
		got = results__list_dir(argv[i], "hpcshim-", &names);
		if (got <= 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i],
				got < 0 ? "cannot open directory"
					: "no hpcshim-*.json result files in the directory");
			++*nbad;
		}
		for (ssize_t k = 0; k < got; k++) {
			results__each_file(&one, prog, names[k], true, &jobs, nbad);
			used += one.n && cb(&one, arg) == 0;
			results__free(&one);
		}
		/* only job documents there: those, as results__load reads them */
		for (ssize_t k = 0; k < got && jobs && used == before; k++) {
			results__each_file(&one, prog, names[k], false, NULL, nbad);
			used += one.n && cb(&one, arg) == 0;
			results__free(&one);
		}
		for (ssize_t k = 0; k < got; k++)
			free(names[k]);
		free(names);
	}
	return used;
}

int results__open(struct results *s, const char *prog, int argc, char **argv)
{
	if (results__load(s, prog, argc, argv))
		return 0;
	fprintf(stderr, "%s: no result could be read\n", prog);
	results__free(s);
	return -1;
}

void results__free(struct results *s)
{
	for (size_t i = 0; i < s->n; i++) {
		dr_doc__free(s->r[i].doc);
		free(s->r[i].path);
	}
	for (size_t i = 0; i < s->nbad; i++) {
		free(s->bad[i].path);
		free(s->bad[i].why);
	}
	free(s->r);
	free(s->bad);
	memset(s, 0, sizeof(*s));
}

size_t results__events(const struct results *s, const char ***names)
{
	const char **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		for (size_t k = 0; k < dr_doc__nevents(s->r[i].doc); k++) {
			struct dr_event e;
			size_t j;

			dr_doc__event(s->r[i].doc, k, &e);
			if (!e.name || strcmp(e.status, "ok") != 0)
				continue;
			for (j = 0; j < n && strcmp(v[j], e.name) != 0; j++)
				;
			if (j < n)
				continue;
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = e.name;
		}
	}
	*names = v;
	return n;
}

void results__print_skipped(const struct results *s, void *f)
{
	for (size_t i = 0; i < s->nbad; i++)
		fprintf(f, "skipped: %s (%s)\n", esc__t(s->bad[i].path), esc__t(s->bad[i].why));
}

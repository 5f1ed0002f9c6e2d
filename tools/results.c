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

#include "tools/results.h"

#define TOOL_PROG "hpcshim"
#define TOOL_OOM_STATUS 2
#include "tools/jsonread.h"

static void results__skip(struct results *s, const char *path, const char *why)
{
	fflush(stdout); /* keep the order of the two streams */
	fprintf(stderr, "%s: %s: %s\n", s->prog, path, why);
	s->bad = xrealloc(s->bad, (s->nbad + 1) * sizeof(*s->bad));
	s->bad[s->nbad].path = xstrdup(path);
	s->bad[s->nbad].why = xstrdup(why);
	s->nbad++;
}

/* 1 when doc can be read: an hpcshim process result with the members the
 * subcommands walk.  A newer or older version of the schema is read for
 * what it has; the line says so. */
static int check_doc(struct results *s, const char *path, json_object *doc,
		     char *why, size_t len)
{
	static const struct {
		const char *key;
		json_type type;
	} need[] = {
		{ "process", json_type_object }, { "events", json_type_array },
		{ "totals", json_type_object },  { "threads", json_type_array },
		{ "regions", json_type_array },
	};
	const char *schema = get_str(doc, "schema", NULL);

	if (!json_object_is_type(doc, json_type_object) || !schema) {
		snprintf(why, len, "not an hpcshim result (no \"schema\")");
		return 0;
	}
	if (strncmp(schema, "hpcshim/", 8) != 0) {
		snprintf(why, len,
			 "schema \"%.60s\" is not a process result (\"hpcshim/N\")",
			 schema);
		return 0;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!json_object_is_type(get(doc, need[i].key), need[i].type)) {
			snprintf(why, len,
				 "malformed result: \"%s\" missing or not an %s",
				 need[i].key, json_type_to_name(need[i].type));
			return 0;
		}
	}
	if (strcmp(schema, RESULTS_SCHEMA) != 0) {
		fflush(stdout);
		fprintf(stderr,
			"%s: %s: schema \"%.60s\", this tool knows \"" RESULTS_SCHEMA
			"\": reading the members it knows, the others are not shown\n",
			s->prog, path, schema);
	}
	return 1;
}

/* A job document (hpcshim-job/N: the in-job one lands beside the rank
 * files, preload/mpi/). */
static bool is_job_doc(json_object *doc)
{
	const char *schema = get_str(doc, "schema", "");

	return strncmp(schema, "hpcshim-job/", 12) == 0;
}

/* in_dir: found in a directory, where a job document is left alone. */
static void results__add_file(struct results *s, const char *path, bool in_dir)
{
	char why[512];
	json_object *doc = json_object_from_file(path);

	if (!doc) {
		json_load_error(why, sizeof(why));
		results__skip(s, path, why);
		return;
	}
	if (in_dir && json_object_is_type(doc, json_type_object) && is_job_doc(doc)) {
		json_object_put(doc);
		return;
	}
	if (!check_doc(s, path, doc, why, sizeof(why))) {
		json_object_put(doc);
		results__skip(s, path, why);
		return;
	}
	s->r = xrealloc(s->r, (s->n + 1) * sizeof(*s->r));
	s->r[s->n].path = xstrdup(path);
	s->r[s->n].doc = doc;
	s->r[s->n].rank = (int)get_int(get(doc, "process"), "rank", -1);
	s->n++;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory stands for the result files in it (hpcshim-*.json, the
 * names the shim publishes): a job document or other JSON next to them
 * is not a process result and is left alone. */
static void results__add_dir(struct results *s, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	if (!d) {
		results__skip(s, dir, "cannot open directory");
		return;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "hpcshim-", 8) != 0 || len < 5 ||
		    strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n] = xrealloc(NULL, strlen(dir) + len + 2);
		sprintf(names[n], "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), str_cmp);
	for (size_t i = 0; i < n; i++) {
		results__add_file(s, names[i], true);
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
		if (s->r[i].rank >= next)
			next = s->r[i].rank + 1;
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i].rank < 0)
			s->r[i].rank = next++;
	qsort(s->r, s->n, sizeof(*s->r), rank_cmp);
	return s->n;
}

void results__free(struct results *s)
{
	for (size_t i = 0; i < s->n; i++) {
		json_object_put(s->r[i].doc);
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
		json_object *evs = get(s->r[i].doc, "events");

		for (size_t k = 0; k < arr_len(evs); k++) {
			json_object *e = arr_at(evs, k);
			const char *name = get_str(e, "name", NULL);
			size_t j;

			if (!name || strcmp(get_str(e, "status", ""), "ok") != 0)
				continue;
			for (j = 0; j < n && strcmp(v[j], name) != 0; j++)
				;
			if (j < n)
				continue;
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = name;
		}
	}
	*names = v;
	return n;
}

void results__print_skipped(const struct results *s, void *f)
{
	for (size_t i = 0; i < s->nbad; i++)
		fprintf(f, "skipped: %s (%s)\n", s->bad[i].path, s->bad[i].why);
}

int results__num(json_object *v, double *out)
{
	if (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double)) {
		*out = json_object_get_double(v);
		return 1;
	}
	*out = 0;
	return 0;
}

void results__mux(json_object *owner, const char *key, const char *ev, double *se,
		  double *coverage)
{
	char k[64];
	json_object *m;
	double v;

	snprintf(k, sizeof(k), "%s_multiplexed", key);
	m = get(get(owner, k), ev);
	*se = m && results__num(get(m, "stderr"), &v) ? v : -1;
	*coverage = m && results__num(get(m, "coverage"), &v) ? v : -1;
}

double results__wall(json_object *o)
{
	json_object *w = get(o, "wall_ns");
	double v;

	if (results__num(w, &v))
		return v;
	if (results__num(get(w, "sum"), &v))
		return v;
	return -1;
}

json_object *results__region(json_object *doc, const char *name)
{
	json_object *regs = get(doc, "regions");

	for (size_t i = 0; i < arr_len(regs); i++)
		if (strcmp(get_str(arr_at(regs, i), "name", ""), name) == 0)
			return arr_at(regs, i);
	return NULL;
}

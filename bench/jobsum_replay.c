/* jobsum_replay.c - the summary's own CPU on real rank files, without the
 * reading of the documents (docs/mpi-scale.md, "The summary's own CPU").
 *
 * Usage: jobsum_replay ITER OUT FILE.json...
 *
 * Each rank file is summarised once by agg_jobdoc__summarise while the
 * calls it makes into the summary (agg_jobsum__name, agg_jobsum__add_cell;
 * linked with -Wl,--wrap for both) are recorded; then ITER times a fresh
 * summary is made by replaying one file's calls, packed and freed (the
 * least time of each printed: the run the machine's load disturbed least);
 * then the plugin's binomial tree over the files, every child packed and
 * unpacked, its unpacks and merges timed (all, and rank 0's).  Written
 * for comparing builds: OUT.r0 (the first file's summary packed), OUT.all
 * (the tree's root packed) and OUT.doc (its job document), which cmp
 * equal between builds that must pack alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aggregate/docread.h"
#include "aggregate/jobdoc.h"
#include "aggregate/jobsum.h"

/* One recorded call: a name interned (tab: regions, events, hosts, whys)
 * or a cell's value. */
struct op {
	bool name;
	int tab;
	char *str;
	uint32_t r, e, w;
	double v, err;
	struct agg_who who;
};

static struct op *ops;
static size_t nops, capops;
static bool recording;

static void die(const char *what)
{
	fprintf(stderr, "jobsum_replay: %s\n", what);
	exit(1);
}

static struct op *op__push(void)
{
	if (nops == capops) {
		capops = capops ? 2 * capops : 4096;
		if (!(ops = realloc(ops, capops * sizeof(*ops))))
			die("out of memory");
	}
	return &ops[nops++];
}

int __real_agg_jobsum__add_cell(struct agg_jobsum *s, uint32_t region, uint32_t event,
				enum agg_what what, double v, double err, struct agg_who who);
int __wrap_agg_jobsum__add_cell(struct agg_jobsum *s, uint32_t region, uint32_t event,
				enum agg_what what, double v, double err, struct agg_who who);
uint32_t __real_agg_jobsum__name(struct agg_jobsum *s, struct hs_strtab *t, const char *name);
uint32_t __wrap_agg_jobsum__name(struct agg_jobsum *s, struct hs_strtab *t, const char *name);

int __wrap_agg_jobsum__add_cell(struct agg_jobsum *s, uint32_t region, uint32_t event,
				enum agg_what what, double v, double err, struct agg_who who)
{
	if (recording)
		*op__push() = (struct op){ .r = region, .e = event, .w = what, .v = v,
					   .err = err, .who = who };
	return __real_agg_jobsum__add_cell(s, region, event, what, v, err, who);
}

uint32_t __wrap_agg_jobsum__name(struct agg_jobsum *s, struct hs_strtab *t, const char *name)
{
	if (recording) {
		struct op *o = op__push();

		*o = (struct op){ .name = true,
				  .tab = t == &s->regions ? 0 :
					 t == &s->events  ? 1 :
					 t == &s->hosts	  ? 2 :
							    3,
				  .str = strdup(name) };
		if (!o->str)
			die("out of memory");
	}
	return __real_agg_jobsum__name(s, t, name);
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A file's calls: ops [a, b). */
struct rec {
	size_t a, b;
};

static void replay(struct agg_jobsum *s, const struct rec *rc, int rank)
{
	agg_jobsum__add_rank(s, rank, 0, true);
	for (size_t k = rc->a; k < rc->b; k++) {
		const struct op *o = &ops[k];
		struct hs_strtab *t[4] = { &s->regions, &s->events, &s->hosts, &s->whys };

		if (o->name)
			agg_jobsum__name(s, t[o->tab], o->str);
		else
			agg_jobsum__add_cell(s, o->r, o->e, o->w, o->v, o->err, o->who);
	}
	if (s->oom)
		die("out of memory");
}

static void dump(const char *out, const char *suffix, const void *p, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", out, suffix);
	if (!(f = fopen(path, "wb")) || fwrite(p, 1, len, f) != len || fclose(f))
		die("cannot write the output");
}

static void record(struct rec *rc, int nf, char **files)
{
	char why[256];

	for (int f = 0; f < nf; f++) {
		struct dr_doc *d = dr_doc__load(files[f], why, sizeof(why));
		struct agg_jobsum s = { .size = -1 };

		if (!d)
			die(why);
		rc[f].a = nops;
		recording = true;
		agg_jobdoc__summarise(&s, d, f, NULL, NULL, NULL);
		recording = false;
		rc[f].b = nops;
		agg_jobsum__free(&s);
		dr_doc__free(d);
	}
}

/* The least CPU of a rank's summary made, packed and freed, in ms. */
static void one_rank(const struct rec *rc, int nf, int iter, const char *out, double ms[3])
{
	ms[0] = ms[1] = ms[2] = 1e30;
	for (int i = 0; i < iter; i++) {
		struct agg_jobsum s = { .size = -1 };
		struct agg_buf b = { 0 };
		double t0 = cpu_now(), t1, t2, t3;

		replay(&s, &rc[i % nf], i % nf);
		t1 = cpu_now();
		if (agg_jobsum__pack(&s, &b))
			die("pack failed");
		t2 = cpu_now();
		agg_jobsum__free(&s);
		t3 = cpu_now();
		ms[0] = t1 - t0 < ms[0] ? t1 - t0 : ms[0];
		ms[1] = t2 - t1 < ms[1] ? t2 - t1 : ms[1];
		ms[2] = t3 - t2 < ms[2] ? t3 - t2 : ms[2];
		if (i == 0)
			dump(out, ".r0", b.p, b.len);
		agg_buf__free(&b);
	}
	for (int k = 0; k < 3; k++)
		ms[k] *= 1e3;
}

/* The binomial tree over the files: the root's summary; *all_ms, *root_ms
 * the CPU of every unpack + merge and of rank 0's. */
static struct agg_jobsum *tree(const struct rec *rc, int nf, double *all_ms, double *root_ms)
{
	struct agg_jobsum **sub = calloc((size_t)nf, sizeof(*sub)), *root;

	*all_ms = *root_ms = 0;
	for (int f = 0; sub && f < nf; f++) {
		if (!(sub[f] = calloc(1, sizeof(**sub))))
			die("out of memory");
		replay(sub[f], &rc[f], f);
	}
	if (!sub)
		die("out of memory");
	for (int step = 1; step < nf; step *= 2)
		for (int lo = 0; lo + step < nf; lo += 2 * step) {
			struct agg_buf b = { 0 };
			struct agg_jobsum child;
			double t0, dt;

			if (agg_jobsum__pack(sub[lo + step], &b))
				die("pack failed");
			agg_jobsum__free(sub[lo + step]);
			free(sub[lo + step]);
			t0 = cpu_now();
			if (agg_jobsum__unpack(&child, &b) || agg_jobsum__merge(sub[lo], &child))
				die("unpack/merge failed");
			agg_jobsum__free(&child);
			dt = (cpu_now() - t0) * 1e3;
			*all_ms += dt;
			*root_ms += lo == 0 ? dt : 0;
			agg_buf__free(&b);
		}
	root = sub[0];
	free(sub);
	return root;
}

int main(int argc, char **argv)
{
	int iter, nf = argc - 3;
	struct rec *rc;
	struct agg_jobsum *root = NULL;
	struct agg_buf b = { 0 };
	double ms[3], all = 1e30, r0 = 1e30;
	size_t len;
	char *doc;

	if (argc < 4 || (iter = atoi(argv[1])) < 1)
		die("usage: jobsum_replay ITER OUT FILE.json...");
	if (!(rc = calloc((size_t)nf, sizeof(*rc))))
		die("out of memory");
	record(rc, nf, argv + 3);
	one_rank(rc, nf, iter, argv[2], ms);
	/* the tree three times, the least kept; the last root written */
	for (int k = 0; k < 3; k++) {
		double a, r;

		if (root) {
			agg_jobsum__free(root);
			free(root);
		}
		root = tree(rc, nf, &a, &r);
		all = a < all ? a : all;
		r0 = r < r0 ? r : r0;
	}
	if (agg_jobsum__pack(root, &b))
		die("pack failed");
	dump(argv[2], ".all", b.p, b.len);
	agg_buf__free(&b);
	doc = agg_jobdoc__render(root, NULL, "jobsum_replay", "jobsum_replay", NULL, NULL, &len);
	dump(argv[2], ".doc", doc, len);
	free(doc);
	printf("files=%d calls_per_rank=%zu cells=%zu add_ms=%.3f pack_ms=%.3f free_ms=%.3f "
	       "tree_unpack_merge_ms=%.1f rank0_unpack_merge_ms=%.1f\n",
	       nf, rc[0].b - rc[0].a, root->n, ms[0], ms[1], ms[2], all, r0);
	agg_jobsum__free(root);
	free(root);
	return 0;
}

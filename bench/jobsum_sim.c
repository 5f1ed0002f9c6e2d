/* jobsum_sim.c - the in-job reduction's code (aggregate/jobsum.h) with P
 * simulated ranks in one process (issue 30, docs/mpi-scale.md).
 *
 * Usage: jobsum_sim P [REGIONS [EVENTS]]   (default 10 regions, 4 events)
 *
 * Rank r's summary: per region and event an inclusive and an exclusive
 * value (lognormal around a per-region mean, sigma 0.3), calls, wall
 * times, the process totals and wall time, one thread's extremes; region
 * names shared by all ranks plus one of 8 that differ between ranks
 * (joined by name).  The binomial tree of the plugin
 * (preload/mpi/plugin/hpcshim-mpi.c) is walked as the ranks would: the
 * subtree of rank lo of size 2^k is the merge of its two halves, the
 * upper one packed, "sent" and unpacked.  Per round: messages, their
 * largest and total bytes, and the CPU time of rank 0's unpack + merge;
 * then the rounds, rank 0's peak (its summary and the message it
 * receives, as packed bytes, and the heap it holds: its summary unpacked),
 * and the process's peak RSS; the root's packed bytes as a hash
 * (packed_fnv: equal between builds that must pack alike).  Only
 * O(log P) subtree summaries are alive at once, as on the ranks of one
 * root path.
 */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "aggregate/jobsum.h"

#define MAXROUNDS 40

static int P, R = 10, E = 4;
static struct {
	uint64_t msgs, bytes, max_bytes;
	double root_cpu_s;
} round_[MAXROUNDS];
static size_t root_peak_packed, root_peak_heap;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state;

static double uni(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double lognormal(double mean)
{
	double z = sqrt(-2 * log(uni() + 1e-300)) * cos(6.283185307179586 * uni());

	return floor(mean * exp(0.3 * z));
}

static void die(const char *what)
{
	fprintf(stderr, "jobsum_sim: %s\n", what);
	exit(1);
}

static struct agg_jobsum *rank_summary(int r)
{
	struct agg_jobsum *s = calloc(1, sizeof(*s));
	char reg[32], ev[32];
	struct agg_who w = { .rank = r, .pid = 1000 + r, .tid = -1 };

	if (!s)
		die("out of memory");
	rng_state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)r * 0xbf58476d1ce4e5b9ull);
	agg_jobsum__add_rank(s, r, P, true);
	w.host = agg_jobsum__host(s, "node");
	for (int e = 0; e < E; e++) {
		snprintf(ev, sizeof(ev), "event%d", e);
		agg_jobsum__add_value(s, NULL, ev, AGG_TOTAL, lognormal(1e9), 0, w);
	}
	agg_jobsum__add_value(s, NULL, NULL, AGG_WALL_PROC, lognormal(1e10), 0, w);
	for (int g = 0; g <= R; g++) {
		if (g < R)
			snprintf(reg, sizeof(reg), "region%d", g);
		else
			snprintf(reg, sizeof(reg), "rank_specific%d", r % 8);
		agg_jobsum__add_value(s, reg, NULL, AGG_PRESENT, 1, 0, w);
		agg_jobsum__add_value(s, reg, NULL, AGG_CALLS, 1 + g, 0, w);
		agg_jobsum__add_value(s, reg, NULL, AGG_WALL_IN, lognormal(1e7 * (g + 1)), 0, w);
		agg_jobsum__add_value(s, reg, NULL, AGG_WALL_EX, lognormal(1e7 * (g + 1)), 0, w);
		for (int e = 0; e < E; e++) {
			struct agg_who tw = w;
			double v = lognormal(1e6 * (g + 1) * (e + 1));

			snprintf(ev, sizeof(ev), "event%d", e);
			agg_jobsum__add_value(s, reg, ev, AGG_INCL, v, 0, w);
			agg_jobsum__add_value(s, reg, ev, AGG_EXCL, v / 2, 0, w);
			tw.tid = 5000 + r;
			agg_jobsum__add_value(s, reg, ev, AGG_THREAD, v, 0, tw);
		}
	}
	if (s->oom)
		die("out of memory");
	return s;
}

/* The heap a summary holds (approximately: its arrays). */
static size_t heap_of(const struct agg_jobsum *s)
{
	size_t h = s->cap * sizeof(*s->cell) + s->nslot * sizeof(*s->slot);

	for (size_t k = 0; k < s->n; k++)
		h += s->cell[k].s.q.b ? sizeof(*s->cell[k].s.q.b) : 0;
	return h;
}

/* FNV-1a of the summary packed: two builds that must pack alike (a
 * change of the summary's code) compare by it. */
static uint64_t packed_fnv(const struct agg_jobsum *s)
{
	struct agg_buf b = { 0 };
	uint64_t h = 0xcbf29ce484222325ull;

	if (agg_jobsum__pack(s, &b))
		die("pack failed");
	for (size_t i = 0; i < b.len; i++)
		h = (h ^ b.p[i]) * 0x100000001b3ull;
	agg_buf__free(&b);
	return h;
}

/* The summary of ranks [lo, lo + 2^k) ∩ [0, P) at rank lo after round k. */
static struct agg_jobsum *subtree(int lo, int k)
{
	struct agg_jobsum *a, child;
	struct agg_buf b = { 0 };
	int half;
	double t0;

	if (k == 0)
		return rank_summary(lo);
	half = 1 << (k - 1);
	a = subtree(lo, k - 1);
	if (lo + half >= P)
		return a; /* no child this round */
	{
		struct agg_jobsum *c = subtree(lo + half, k - 1);

		if (agg_jobsum__pack(c, &b))
			die("pack failed");
		agg_jobsum__free(c);
		free(c);
	}
	round_[k].msgs++;
	round_[k].bytes += b.len;
	if (b.len > round_[k].max_bytes)
		round_[k].max_bytes = b.len;
	t0 = cpu_now();
	if (agg_jobsum__unpack(&child, &b) || agg_jobsum__merge(a, &child))
		die("unpack/merge failed");
	if (lo == 0) {
		struct agg_buf mine = { 0 };

		round_[k].root_cpu_s += cpu_now() - t0;
		agg_jobsum__pack(a, &mine);
		if (mine.len + b.len > root_peak_packed)
			root_peak_packed = mine.len + b.len;
		if (heap_of(a) + heap_of(&child) > root_peak_heap)
			root_peak_heap = heap_of(a) + heap_of(&child);
		agg_buf__free(&mine);
	}
	agg_jobsum__free(&child);
	agg_buf__free(&b);
	return a;
}

int main(int argc, char **argv)
{
	struct agg_jobsum *root;
	struct rusage ru;
	int rounds = 0;
	double t0;

	if (argc < 2 || (P = atoi(argv[1])) < 1)
		die("usage: jobsum_sim P [REGIONS [EVENTS]]");
	if (argc > 2)
		R = atoi(argv[2]);
	if (argc > 3)
		E = atoi(argv[3]);
	while ((1 << rounds) < P)
		rounds++;
	t0 = cpu_now();
	root = subtree(0, rounds);
	getrusage(RUSAGE_SELF, &ru);
	printf("P=%d regions=%d events=%d rounds=%d cells=%zu cpu_s=%.2f peak_rss_kb=%ld\n", P,
	       R + 8, E, rounds, root->n, cpu_now() - t0, ru.ru_maxrss);
	for (int k = 1; k <= rounds; k++)
		printf("round %2d: messages %7llu max_bytes %8llu total_bytes %11llu "
		       "root_merge_ms %.2f\n",
		       k, (unsigned long long)round_[k].msgs,
		       (unsigned long long)round_[k].max_bytes,
		       (unsigned long long)round_[k].bytes, round_[k].root_cpu_s * 1e3);
	{
		uint64_t maxmsg = 0;

		for (int k = 1; k <= rounds; k++)
			if (round_[k].max_bytes > maxmsg)
				maxmsg = round_[k].max_bytes;
		printf("summary P=%d rounds=%d max_message_bytes=%llu root_peak_packed_bytes=%zu "
		       "root_peak_heap_bytes=%zu ranks=%llu packed_fnv=%016llx\n",
		       P, rounds, (unsigned long long)maxmsg, root_peak_packed, root_peak_heap,
		       (unsigned long long)root->ranks, (unsigned long long)packed_fnv(root));
	}
	agg_jobsum__free(root);
	free(root);
	return 0;
}

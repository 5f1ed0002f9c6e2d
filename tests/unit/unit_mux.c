/* unit_mux.c - unit tests of the multiplexing pieces that need no kernel:
 * the event list syntax with {groups} (preload/config/speclist.c), the rotation
 * view and its standard error (aggregate/mux.c) against hand-computed
 * values, and the bounded time series (aggregate/series.c).  TAP through
 * tests/unit/tap.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/mux.h"
#include "preload/config/config.h"
#include "tests/unit/tap.h"

/* ---- list syntax ----------------------------------------------------- */

struct list_case {
	int line;
	const char *in;
	const char *items;   /* "a|b|c" */
	const char *groups;  /* one char per item: '-' none, '0'.. group */
	int empty, braces;
};

static const struct list_case list_cases[] = {
	{__LINE__, "a,b", "a|b", "--", 0, 0},
	{__LINE__, " a , b ", "a|b", "--", 0, 0},
	{__LINE__, "{a,b},c", "a|b|c", "00-", 0, 0},
	{__LINE__, "{a,b},{c},d", "a|b|c|d", "001-", 0, 0},
	{__LINE__, " { a , b } , c", "a|b|c", "00-", 0, 0},
	{__LINE__, "a,,b", "a|b", "--", 1, 0},
	{__LINE__, "a,", "a", "-", 1, 0},
	{__LINE__, "{a,b}", "a|b", "00", 0, 0},
	{__LINE__, "{}", "", "", 1, 0},
	{__LINE__, "{a,b", "a|b", "00", 0, 1},          /* unclosed */
	{__LINE__, "a,b}", "a|b", "--", 0, 1},          /* stray } */
	{__LINE__, "{a,{b},c}", "a|b|c", "00-", 0, 2},  /* nested {, stray } */
	{__LINE__, "{a}b", "a|b", "0-", 0, 1},          /* missing comma */
	{__LINE__, "a{b}", "a|b", "-0", 0, 1},
	{__LINE__, "{a},", "a", "0", 1, 0},
	{__LINE__, "cycles:u,{INST_RETIRED:ANY_P,r01c2}", "cycles:u|INST_RETIRED:ANY_P|r01c2", "-00", 0, 0},
};

static void test_lists(void)
{
	for (size_t k = 0; k < sizeof(list_cases) / sizeof(list_cases[0]); k++) {
		const struct list_case *c = &list_cases[k];
		struct hs_speclist l;
		char got[256] = "", grp[64] = "";

		hs_speclist__parse(&l, c->in);
		for (int i = 0; i < l.n; i++) {
			strcat(got, i ? "|" : "");
			strcat(got, l.spec[i]);
			grp[i] = l.group[i] < 0 ? '-' : (char)('0' + l.group[i]);
		}
		TAP_OK(strcmp(got, c->items) == 0 && strcmp(grp, c->groups) == 0 &&
		       l.empty == c->empty && l.braces == c->braces,
		       "row %d: '%s' -> items '%s' groups '%s' empty %d braces %d "
		       "(want '%s' '%s' %d %d)", c->line, c->in, got, grp, l.empty,
		       l.braces, c->items, c->groups, c->empty, c->braces);
		hs_speclist__free(&l);
	}
}

/* ---- the rotation view and its standard error ------------------------- */

/* Events 0, 1 in rotated group 0, event 2 in rotated group 1, event 3 in
 * a pinned group 2. */
static int g0[] = {0, 1}, g1[] = {2}, g2[] = {3};
static struct agg_group groups[] = {
	{.n = 2, .idx = g0, .rotated = true, .why = "a"},
	{.n = 1, .idx = g1, .rotated = true, .why = "b"},
	{.n = 1, .idx = g2, .pinned = true, .why = "c"},
};
static struct agg_event events[] = {
	{.name = "a", .ok = true, .group = 0}, {.name = "b", .ok = true, .group = 0},
	{.name = "c", .ok = true, .group = 1}, {.name = "d", .ok = true, .group = 2},
};
static struct agg_mux mux = {.mode = HS_MUX_ROTATE, .ngroups = 3, .grp = groups};
static struct agg_process proc = {.nev = 4, .ev = events, .mux = &mux};

static void test_view(void)
{
	struct agg_rotation *rot = agg_rotation__new(4, 3);
	struct count raw[4] = {
		{1000, 300, 300}, {50, 300, 300}, /* group 0 ran 300 ns   */
		{7, 100, 100},                    /* group 1 ran 100 ns   */
		{400, 400, 400},                  /* pinned: exact        */
	}, v[4];
	double se, est;

	rot->active = true;
	agg_mux__view(&proc, rot, raw, v);
	TAP_OK(v[0].value == 1000 && v[0].enabled == 400 && v[0].running == 300 &&
	       v[2].enabled == 400 && v[2].running == 100,
	       "view: rotated events get T = sum of the groups' enabled (400), "
	       "running = their group's (got %llu/%llu, %llu/%llu)",
	       (unsigned long long)v[0].enabled, (unsigned long long)v[0].running,
	       (unsigned long long)v[2].enabled, (unsigned long long)v[2].running);
	TAP_OK(hs_count__estimate(&v[0], &est) && fabs(est - 1000.0 * 400 / 300) < 1e-9,
	       "view: estimate v * T / R (%.3f)", est);
	TAP_OK(v[3].enabled == 400 && v[3].running == 400 && v[3].value == 400,
	       "view: a pinned event keeps the kernel's times");

	/* Gaps: 40 ns with no group enabled against 400 ns rotated: +10%. */
	rot->gap_ns = 40;
	rot->rotated_ns = 400;
	agg_mux__view(&proc, rot, raw, v);
	TAP_OK(v[0].enabled == 440 && v[2].enabled == 440,
	       "view: the time base extends over the thread's gap fraction (440, got %llu)",
	       (unsigned long long)v[0].enabled);
	{
		struct count one[4] = {{10, 50, 50}, {1, 50, 50}, {0, 0, 0}, {9, 50, 50}};
		agg_mux__view(&proc, rot, one, v);
		TAP_OK(v[0].enabled == 50 && v[0].running == 50 && v[2].running == 0 &&
		       !hs_count__estimate(&v[2], &est),
		       "view: one group ran all along: no gap share, exact; the other is unknown");
	}

	/* No rotation on this thread: the kernel's own view. */
	rot->active = false;
	agg_mux__view(&proc, rot, raw, v);
	TAP_OK(v[0].enabled == 300 && v[2].enabled == 100, "view: inactive rotation = kernel view");

	/* A sum that wrapped below zero is never reported negative. */
	{
		struct count neg[4] = {{(uint64_t)-5, 10, 10}, {1, 10, (uint64_t)-1},
				       {0, 0, 0}, {3, 2, 5}};
		agg_mux__view(&proc, NULL, neg, v);
		TAP_OK(!hs_count__estimate(&v[0], &est) && v[1].running == 0 &&
		       v[3].running == 2 && hs_count__estimate(&v[3], &est) && est == 3,
		       "view: wrapped value unknown, wrapped time 0, running <= enabled");
	}

	/* Standard error, by hand: group 0 slices of t = 10, 10, 10, 10 with
	 * counts of event 0 = 10, 20, 10, 20: rate r = 60/40 = 1.5, residuals
	 * -5, 5, -5, 5, successive differences 10, -10, 10: s2 = 300 / (2 x 3)
	 * = 50.  Interval T = 400, R = 300: tbar 10, N = 40, n' = 30, f = 0.75,
	 * SE = 40 sqrt(0.25 x 50 / 30) = 25.8199, and with the floor of one
	 * count's extrapolation, (1 - f) / f^2 = 0.4444 in quadrature: 25.8285. */
	memset(rot->grp, 0, 3 * sizeof(*rot->grp));
	memset(rot->ev, 0, 4 * sizeof(*rot->ev));
	rot->active = true;
	rot->gap_ns = 0;
	rot->rotated_ns = 400;
	{
		uint64_t counts[] = {10, 20, 10, 20};
		for (int i = 0; i < 4; i++) {
			struct count c[4] = {{counts[i], 0, 0}, {5, 0, 0}, {0, 0, 0}, {0, 0, 0}};
			agg_rotation__slice(rot, 0, g0, 2, c, 10);
		}
	}
	agg_mux__view(&proc, rot, raw, v);
	TAP_OK(agg_mux__stderr(&proc, rot, 0, &v[0], &se) &&
	       fabs(se - sqrt(40 * 40 * 0.25 * 50.0 / 30 + 0.25 / 0.5625)) < 1e-6,
	       "stderr: successive differences by hand, one-count floor: 25.8285 (got %.4f)", se);
	TAP_OK(agg_mux__stderr(&proc, rot, 1, &v[1], &se) && fabs(se - sqrt(0.25 / 0.5625)) < 1e-9,
	       "stderr: a constant rate has no sampling error but one count's (got %g)", se);
	{
		/* Event 1 (s2 = 0) seen 0 times at coverage 1/4: no proof of none. */
		struct count zero = {0, 400, 100};

		TAP_OK(agg_mux__stderr(&proc, rot, 1, &zero, &se) &&
		       fabs(se - sqrt(0.75 / 0.0625)) < 1e-9,
		       "stderr: a count of 0 seen at coverage 1/4 keeps an error (got %.4f)", se);
	}
	TAP_OK(!agg_mux__stderr(&proc, rot, 2, &v[2], &se),
	       "stderr: unknown with fewer than two slices of the group");
	TAP_OK(!agg_mux__stderr(&proc, rot, 3, &v[3], &se),
	       "stderr: none for a pinned event");
	/* The gap fraction joins as a systematic term: 10% of the estimate. */
	rot->gap_ns = 40;
	agg_mux__view(&proc, rot, raw, v);
	{
		double e0 = 1000.0 * 440 / 300, want;
		double samp = (440.0 / 10) * sqrt((1 - 300.0 / 440) * 50 / 30);
		double f = 300.0 / 440;

		want = sqrt(samp * samp + (1 - f) / (f * f) + (0.1 * e0) * (0.1 * e0));
		TAP_OK(agg_mux__stderr(&proc, rot, 0, &v[0], &se) && fabs(se - want) < 1e-6,
		       "stderr: sampling and gap terms in quadrature (%.4f, want %.4f)", se, want);
	}
	agg_rotation__free(rot);
}

/* ---- series: bounded, merged in pairs -------------------------------- */

static void test_series(void)
{
	static const int leader[] = {0};
	struct agg_series *s = agg_series__new(1, 1, leader, 8, 1000);
	int points = 0;
	bool ok = true;

	for (int tick = 1; tick <= 40; tick++) {
		if (!agg_series__tick(s))
			continue;
		struct count c = {(uint64_t)tick * 3, (uint64_t)tick * 1000, (uint64_t)tick * 1000};
		agg_series__append(s, (uint64_t)tick * 1000, &c);
		points++;
		ok &= s->n <= 8;
	}
	TAP_OK(ok && s->n <= 8 && s->stride == 8,
	       "series: 40 ticks in 8 points, stride 8 after 3 merges (n %u stride %u)",
	       s->n, s->stride);
	/* Cumulative points stay exact: each is 3 x its tick. */
	ok = true;
	for (uint32_t k = 0; k < s->n; k++)
		ok &= s->val[k] == 3 * (s->t[k] / 1000) && s->en[k] == s->t[k] &&
		      (k == 0 || s->t[k] > s->t[k - 1]);
	TAP_OK(ok, "series: merged points are the readings at their ticks, in order");
	TAP_OK(s->t[s->n - 1] == 40000, "series: the latest point is kept (t %llu)",
	       (unsigned long long)s->t[s->n - 1]);
	agg_series__free(s);
}

int main(void)
{
	test_lists();
	test_view();
	test_series();
	return tap_done();
}

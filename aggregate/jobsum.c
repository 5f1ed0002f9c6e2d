/* jobsum.c - a job's results as mergeable summaries (jobsum.h). */
#include <stdlib.h>
#include <string.h>

#include "aggregate/docread.h"
#include "aggregate/jobsum.h"

#define JOBSUM_MAGIC 0x314d534a /* "JSM1" */
/* A packed cell's bytes at least: its key and its statistic's head. */
#define JOBSUM_CELL_MIN (3 * sizeof(uint32_t) + AGG_RSTAT_PACKED_MIN)

/* ---- the cells -------------------------------------------------------------- */

static size_t cell__hash(uint32_t region, uint32_t event, uint32_t what)
{
	uint64_t h = ((uint64_t)region * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)event * 0xc2b2ae3d27d4eb4full) ^ ((uint64_t)what << 56);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 32));
}

static struct agg_jobsum_slot *cell__slot(const struct agg_jobsum *s, uint32_t region,
					   uint32_t event, uint32_t what)
{
	size_t i;

	if (!s->nslot)
		return NULL;
	i = cell__hash(region, event, what) & (s->nslot - 1);
	for (;; i = (i + 1) & (s->nslot - 1)) {
		struct agg_jobsum_slot *x = &s->slot[i];

		if (!x->idx || (x->region == region && x->event == event && x->what == what))
			return x;
	}
}

const struct agg_cell *agg_jobsum__cell(const struct agg_jobsum *s, uint32_t region,
					uint32_t event, enum agg_what what)
{
	const struct agg_jobsum_slot *p = cell__slot(s, region, event, what);

	return p && p->idx ? &s->cell[p->idx - 1] : NULL;
}

static void slot__set(struct agg_jobsum_slot *x, uint32_t region, uint32_t event,
		      uint32_t what, size_t idx)
{
	*x = (struct agg_jobsum_slot){ region, event, what, (uint32_t)idx };
}

static int cell__rehash(struct agg_jobsum *s)
{
	size_t n = s->nslot ? 2 * s->nslot : 64;
	struct agg_jobsum_slot *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -1;
	free(s->slot);
	s->slot = slot;
	s->nslot = n;
	for (size_t k = 0; k < s->n; k++) {
		const struct agg_cell *c = &s->cell[k];

		slot__set(cell__slot(s, c->region, c->event, c->what), c->region, c->event,
			  c->what, k + 1);
	}
	return 0;
}

/* The cell, NULL out of memory.  *added: a new one, its key set, its
 * statistic for the caller to write (a cell is some 280 bytes: cleared
 * and then written whole, it costs a rank's summary twice the stores). */
static struct agg_cell *cell__get(struct agg_jobsum *s, uint32_t region, uint32_t event,
				  uint32_t what, bool *added)
{
	struct agg_jobsum_slot *p;

	*added = false;
	/* idx is 32 bits: at most UINT32_MAX cells */
	if (s->n >= UINT32_MAX || (2 * (s->n + 1) > s->nslot && cell__rehash(s)))
		return NULL;
	p = cell__slot(s, region, event, what);
	if (p->idx)
		return &s->cell[p->idx - 1];
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct agg_cell *c = realloc(s->cell, cap * sizeof(*c));

		if (!c)
			return NULL;
		s->cell = c;
		s->cap = cap;
	}
	s->cell[s->n].region = region;
	s->cell[s->n].event = event;
	s->cell[s->n].what = what;
	*added = true;
	slot__set(p, region, event, what, ++s->n);
	return &s->cell[s->n - 1];
}

/* The capacity the adds' doubling gives n cells.  An unpack allocates
 * that, not n: glibc serves an array of one size alike whichever made it,
 * while an exact 5.6 MB one (1000 regions) came from the heap below its
 * mmap threshold (raised by the freed arrays of the ranks) and stayed
 * there: +10 MB peak RSS in bench/jobsum_sim at 1000 ranks. */
static size_t cap__for(size_t n)
{
	size_t cap = 64;

	while (cap < n)
		cap *= 2;
	return cap;
}

/* The same, cell *at tried first: summaries of one program hold their
 * cells in one order, so a merge that walks b's cells finds a's one after
 * the other, without a probe of the table (a cache miss each, the
 * table being megabytes at 10^4 cells). *at: after the cell returned. */
static struct agg_cell *cell__at(struct agg_jobsum *s, size_t *at, uint32_t region,
				 uint32_t event, uint32_t what, bool *added)
{
	struct agg_cell *c = *at < s->n ? &s->cell[*at] : NULL;

	*added = false;
	if (!c || c->region != region || c->event != event || c->what != what)
		c = cell__get(s, region, event, what, added);
	if (c)
		*at = (size_t)(c - s->cell) + 1;
	return c;
}

/* The index of cells [0, n) built in one pass (the table sized once);
 * -1: two cells with one key, or out of memory. */
static int cell__index(struct agg_jobsum *s)
{
	size_t n = 64;

	if (!s->n)
		return 0;
	while (n < 2 * s->n)
		n *= 2;
	free(s->slot);
	s->nslot = 0;
	if (!(s->slot = calloc(n, sizeof(*s->slot))))
		return -1;
	s->nslot = n;
	for (size_t k = 0; k < s->n; k++) {
		const struct agg_cell *c = &s->cell[k];
		struct agg_jobsum_slot *x = cell__slot(s, c->region, c->event, c->what);

		if (x->idx)
			return -1;
		slot__set(x, c->region, c->event, c->what, k + 1);
	}
	return 0;
}

int agg_jobsum__add_cell(struct agg_jobsum *s, uint32_t region, uint32_t event,
			 enum agg_what what, double v, double err, struct agg_who who)
{
	bool added;
	struct agg_cell *c = cell__at(s, &s->next, region, event, what, &added);
	/* quantiles only where the document shows a median */
	bool noq = what == AGG_THREAD || what == AGG_PRESENT || what == AGG_OMP ||
		   (what >= AGG_DRILL_TOT && what <= AGG_DRILL_WHY_EX);

	if (c && added) {
		agg_rstat__first(&c->s, v, err, who, noq);
		return 0;
	}
	if (!c || (noq ? agg_rstat__add_noq(&c->s, v, err, who) : agg_rstat__add(&c->s, v, err, who))) {
		s->oom = true;
		return -1;
	}
	return 0;
}

uint32_t agg_jobsum__name(struct agg_jobsum *s, struct hs_strtab *t, const char *name)
{
	bool added;
	long i = hs_strtab__intern(t, name, &added);

	if (i < 0) {
		s->oom = true;
		return AGG_NONE;
	}
	return (uint32_t)i;
}

/* ---- ranks present ------------------------------------------------------------ */

/* Adds [lo, hi] to the sorted, disjoint intervals, joining neighbours. */
static void ranks__add(struct agg_jobsum *s, int32_t lo, int32_t hi)
{
	uint32_t i = 0;

	while (i < s->nint && s->hi[i] + 1 < lo)
		i++;
	if (i < s->nint && s->lo[i] <= hi + 1) {
		if (lo < s->lo[i])
			s->lo[i] = lo;
		if (hi > s->hi[i])
			s->hi[i] = hi;
		/* swallow the following ones it now reaches */
		while (i + 1 < s->nint && s->lo[i + 1] <= s->hi[i] + 1) {
			if (s->hi[i + 1] > s->hi[i])
				s->hi[i] = s->hi[i + 1];
			memmove(s->lo + i + 1, s->lo + i + 2, (s->nint - i - 2) * sizeof(*s->lo));
			memmove(s->hi + i + 1, s->hi + i + 2, (s->nint - i - 2) * sizeof(*s->hi));
			s->nint--;
		}
		return;
	}
	if (s->nint == AGG_INTERVALS) {
		s->lost_intervals = true; /* the gaps beyond are not listed */
		return;
	}
	memmove(s->lo + i + 1, s->lo + i, (s->nint - i) * sizeof(*s->lo));
	memmove(s->hi + i + 1, s->hi + i, (s->nint - i) * sizeof(*s->hi));
	s->lo[i] = lo;
	s->hi[i] = hi;
	s->nint++;
}

static void incomplete__add(struct agg_jobsum *s, int32_t rank)
{
	if (s->nincomplete < AGG_INCOMPLETE_LISTED)
		s->incomplete[s->nincomplete] = rank;
	s->nincomplete++;
}

int agg_jobsum__add_value(struct agg_jobsum *s, const char *region, const char *event,
			  enum agg_what what, double v, double err, struct agg_who who)
{
	uint32_t r = region ? agg_jobsum__name(s, &s->regions, region) : AGG_NONE;
	uint32_t e = event ? agg_jobsum__name(s, &s->events, event) : AGG_NONE;

	if (s->oom)
		return -1;
	return agg_jobsum__add_cell(s, r, e, what, v, err, who);
}

int agg_jobsum__add_rank(struct agg_jobsum *s, int rank, int size, bool complete)
{
	if (!s->ranks)
		s->size = -1;
	if (size > s->size)
		s->size = size;
	s->ranks++;
	ranks__add(s, rank, rank);
	if (!complete)
		incomplete__add(s, rank);
	return 0;
}

int agg_jobsum__host(struct agg_jobsum *s, const char *host)
{
	return (int)agg_jobsum__name(s, &s->hosts, host);
}

static bool what__why(uint32_t what)
{
	return what >= AGG_DRILL_WHY_TOT && what <= AGG_DRILL_WHY_EX;
}

static bool what__drill(uint32_t what)
{
	return what >= AGG_DRILL_TOT && what <= AGG_DRILL_WHY_EX;
}

/* A cell whose event is a raw index, not one of the events table's. */
static bool what__raw(uint32_t what)
{
	return what__drill(what) || what == AGG_PART_MAIN || what == AGG_PART_ALL ||
	       what == AGG_OMP;
}

/* ---- ranks[] and the drill-down ------------------------------------------------ */

static void entries__drop(struct agg_jobsum *s)
{
	for (uint32_t i = 0; i < s->nent; i++)
		free(s->etext[i]);
	free(s->etext);
	free(s->erank);
	s->etext = NULL;
	s->erank = NULL;
	s->nent = 0;
	s->ent_dropped = true;
}

/* Inserted by rank (a rank given twice keeps its first entry); named: a
 * rank the document names, listed when the others are not. */
static int entry__put(struct agg_jobsum *s, int32_t rank, char *text, bool named)
{
	uint32_t i = s->nent;
	int32_t *r;
	char **t;

	for (uint32_t k = 0; k < s->nent; k++)
		if (s->erank[k] == rank) {
			free(text);
			return 0;
		}
	if (s->ent_dropped && !named) {
		free(text);
		return 0;
	}
	if (s->nent == AGG_RANKS_LISTED && !named) {
		free(text);
		entries__drop(s);
		return 0;
	}
	r = realloc(s->erank, (s->nent + 1) * sizeof(*r));
	if (r)
		s->erank = r;
	t = realloc(s->etext, (s->nent + 1) * sizeof(*t));
	if (t)
		s->etext = t;
	if (!r || !t) {
		free(text);
		s->oom = true;
		return -1;
	}
	while (i > 0 && s->erank[i - 1] > rank) {
		s->erank[i] = s->erank[i - 1];
		s->etext[i] = s->etext[i - 1];
		i--;
	}
	s->erank[i] = rank;
	s->etext[i] = text;
	s->nent++;
	return 0;
}

int agg_jobsum__add_entry(struct agg_jobsum *s, int rank, const char *text)
{
	char *t = strdup(text);

	if (!t) {
		s->oom = true;
		return -1;
	}
	return entry__put(s, rank, t, false);
}

int agg_jobsum__add_named(struct agg_jobsum *s, int rank, const char *text)
{
	char *t = strdup(text);

	if (!t) {
		s->oom = true;
		return -1;
	}
	return entry__put(s, rank, t, true);
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Adds r to the set list[0..*n) while there is room. */
static void named__add(int *list, int *n, int max, int r)
{
	for (int i = 0; i < *n; i++)
		if (list[i] == r)
			return;
	if (*n < max)
		list[(*n)++] = r;
}

int agg_jobsum__named(const struct agg_jobsum *s, int *ranks, int max)
{
	int n = 0;

	/* the process-level holders first, then the regions' (in order) */
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < s->n; k++) {
			const struct agg_cell *c = &s->cell[k];
			bool proc = c->region == AGG_NONE &&
				    (c->what == AGG_TOTAL || c->what == AGG_WALL_PROC);

			/* the profile's cells name no rank: the document names
			 * the holders of its counts and times, as before them */
			if ((pass == 0) != proc || what__drill(c->what) || c->what == AGG_PRESENT ||
			    c->what >= AGG_PEAK_RSS || !c->s.n)
				continue;
			named__add(ranks, &n, max, c->s.min_at.rank);
			named__add(ranks, &n, max, c->s.max_at.rank);
		}
	qsort(ranks, (size_t)n, sizeof(*ranks), int_cmp);
	return n;
}

static char *xstrdup_or(struct agg_jobsum *s, const char *str)
{
	char *t = str ? strdup(str) : NULL;

	if (str && !t)
		s->oom = true;
	return t;
}

/* b's drill-down (the higher ranks) after a's. */
static void drill__merge(struct agg_jobsum *s, struct agg_jobsum_drill *a,
			 const struct agg_jobsum_drill *b)
{
	if (!b->has)
		return;
	if (!a->has) {
		*a = *b;
		a->name = xstrdup_or(s, b->name);
		a->model = xstrdup_or(s, b->model);
		a->other = xstrdup_or(s, b->other);
		return;
	}
	if (a->kind)
		return;
	if (strcmp(a->name, b->name) != 0) {
		a->kind = 1;
		a->orank = b->first;
		a->other = xstrdup_or(s, b->name);
	} else if (strcmp(a->model, b->model) != 0) {
		a->kind = 2;
		a->orank = b->first;
		a->other = xstrdup_or(s, b->model);
	} else if (b->kind) {
		a->kind = b->kind;
		a->orank = b->orank;
		a->other = xstrdup_or(s, b->other);
	}
}

int agg_jobsum__add_drill(struct agg_jobsum *s, int rank, const char *name,
			  const char *model)
{
	struct agg_jobsum_drill one = { .has = true, .name = (char *)name,
					.model = (char *)model, .first = rank };

	drill__merge(s, &s->drill, &one);
	return s->oom ? -1 : 0;
}

/* ---- merging -------------------------------------------------------------------- */

static uint32_t *remap(struct agg_jobsum *a, struct hs_strtab *ta, const struct hs_strtab *tb)
{
	uint32_t *m = malloc((tb->n + 1) * sizeof(*m));

	if (!m) {
		a->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < tb->n; i++)
		m[i] = agg_jobsum__name(a, ta, tb->name[i]);
	return m;
}

static struct agg_who who__map(struct agg_who w, const uint32_t *hosts)
{
	if (w.host >= 0)
		w.host = (int32_t)hosts[w.host];
	return w;
}

int agg_jobsum__merge(struct agg_jobsum *a, const struct agg_jobsum *b)
{
	uint32_t *mr = NULL, *me = NULL, *mh = NULL, *mw = NULL;
	int rc = -1;

	if (!b->ranks)
		return 0;
	if (!a->ranks) {
		a->size = -1;
		a->job = b->job ? strdup(b->job) : NULL;
		a->mpi_job = b->mpi_job ? strdup(b->mpi_job) : NULL;
	}
	mr = remap(a, &a->regions, &b->regions);
	me = remap(a, &a->events, &b->events);
	mh = remap(a, &a->hosts, &b->hosts);
	mw = remap(a, &a->whys, &b->whys);
	if (!mr || !me || !mh || !mw || a->oom)
		goto out;
	for (size_t k = 0, at = 0; k < b->n; k++) {
		const struct agg_cell *cb = &b->cell[k];
		struct agg_rstat sb = cb->s;
		bool added;
		struct agg_cell *ca = cell__at(
			a, &at, cb->region == AGG_NONE ? AGG_NONE : mr[cb->region],
			cb->event == AGG_NONE || what__raw(cb->what) ? cb->event : me[cb->event],
			cb->what, &added);

		sb.min_at = who__map(sb.min_at, mh);
		sb.max_at = who__map(sb.max_at, mh);
		if (what__why(cb->what)) {
			sb.min_at.tid = mw[sb.min_at.tid];
			sb.max_at.tid = mw[sb.max_at.tid];
		}
		if (ca && added)
			ca->s = (struct agg_rstat){ .n = 0 };
		if (!ca || agg_rstat__merge(&ca->s, &sb))
			goto out;
	}
	a->ranks += b->ranks;
	if (b->size > a->size)
		a->size = b->size;
	for (uint32_t i = 0; i < b->nint; i++)
		ranks__add(a, b->lo[i], b->hi[i]);
	a->lost_intervals |= b->lost_intervals;
	for (uint64_t i = 0; i < b->nincomplete; i++)
		incomplete__add(a, i < AGG_INCOMPLETE_LISTED ? b->incomplete[i] : -1);
	if (b->ent_dropped && !a->ent_dropped)
		entries__drop(a);
	for (uint32_t i = 0; i < b->nent && !a->ent_dropped; i++)
		if (agg_jobsum__add_entry(a, b->erank[i], b->etext[i]))
			goto out;
	drill__merge(a, &a->drill, &b->drill);
	rc = a->oom ? -1 : 0;
out:
	free(mr);
	free(me);
	free(mh);
	free(mw);
	if (rc)
		a->oom = true;
	return rc;
}

void agg_jobsum__free(struct agg_jobsum *s)
{
	/* a cell owns only its buckets: freed without clearing each cell
	 * (agg_rstat__free's memset), the array goes whole */
	for (size_t k = 0; k < s->n; k++)
		free(s->cell[k].s.q.b);
	free(s->cell);
	free(s->slot);
	hs_strtab__free(&s->regions);
	hs_strtab__free(&s->events);
	hs_strtab__free(&s->hosts);
	hs_strtab__free(&s->whys);
	for (uint32_t i = 0; i < s->nent; i++)
		free(s->etext[i]);
	free(s->etext);
	free(s->erank);
	free(s->drill.name);
	free(s->drill.model);
	free(s->drill.other);
	free(s->job);
	free(s->mpi_job);
	memset(s, 0, sizeof(*s));
}

/* ---- serialisation -------------------------------------------------------------- */

static void str__pack(struct agg_buf *b, const char *str)
{
	uint32_t n = str ? (uint32_t)strlen(str) : UINT32_MAX;

	agg_buf__put(b, &n, sizeof(n));
	if (str)
		agg_buf__put(b, str, n);
}

static char *str__unpack(struct agg_buf *b, bool *ok)
{
	uint32_t n;
	char *str;

	if (!agg_buf__get(b, &n, sizeof(n)) || n == UINT32_MAX)
		return NULL;
	if (n > b->len - b->off || !(str = malloc((size_t)n + 1))) {
		*ok = false;
		b->bad = true;
		return NULL;
	}
	agg_buf__get(b, str, n);
	str[n] = '\0';
	return str;
}

static void tab__pack(struct agg_buf *b, const struct hs_strtab *t)
{
	uint32_t n = (uint32_t)t->n;

	agg_buf__put(b, &n, sizeof(n));
	for (size_t i = 0; i < t->n; i++)
		str__pack(b, t->name[i]);
}

static bool tab__unpack(struct agg_buf *b, struct hs_strtab *t)
{
	uint32_t n;
	bool ok = agg_buf__get(b, &n, sizeof(n)), added;

	for (uint32_t i = 0; ok && i < n; i++) {
		char *str = str__unpack(b, &ok);

		ok = ok && str && hs_strtab__intern(t, str, &added) == (long)i;
		free(str);
	}
	return ok && !b->bad;
}

int agg_jobsum__pack(const struct agg_jobsum *s, struct agg_buf *b)
{
	uint32_t magic = JOBSUM_MAGIC, flags = s->lost_intervals | (s->ent_dropped << 1);
	uint64_t n = s->n;

	agg_buf__put(b, &magic, sizeof(magic));
	agg_buf__put(b, &s->ranks, sizeof(s->ranks));
	agg_buf__put(b, &s->size, sizeof(s->size));
	agg_buf__put(b, &flags, sizeof(flags));
	agg_buf__put(b, &s->nint, sizeof(s->nint));
	agg_buf__put(b, s->lo, s->nint * sizeof(*s->lo));
	agg_buf__put(b, s->hi, s->nint * sizeof(*s->hi));
	agg_buf__put(b, &s->nincomplete, sizeof(s->nincomplete));
	agg_buf__put(b, s->incomplete,
		     (s->nincomplete < AGG_INCOMPLETE_LISTED ? s->nincomplete :
							       AGG_INCOMPLETE_LISTED) *
			     sizeof(*s->incomplete));
	str__pack(b, s->job);
	str__pack(b, s->mpi_job);
	tab__pack(b, &s->regions);
	tab__pack(b, &s->events);
	tab__pack(b, &s->hosts);
	tab__pack(b, &s->whys);
	agg_buf__put(b, &s->nent, sizeof(s->nent));
	for (uint32_t i = 0; i < s->nent; i++) {
		agg_buf__put(b, &s->erank[i], sizeof(s->erank[i]));
		str__pack(b, s->etext[i]);
	}
	agg_buf__put(b, &s->drill.has, 1);
	if (s->drill.has) {
		str__pack(b, s->drill.name);
		str__pack(b, s->drill.model);
		str__pack(b, s->drill.other);
		agg_buf__put(b, &s->drill.first, sizeof(int32_t));
		agg_buf__put(b, &s->drill.orank, sizeof(int32_t));
		agg_buf__put(b, &s->drill.kind, sizeof(int32_t));
	}
	agg_buf__put(b, &n, sizeof(n));
	/* room for the cells with one value each (a rank's own): one
	 * allocation, not a doubling's copies */
	agg_buf__reserve(b, s->n * (JOBSUM_CELL_MIN + sizeof(double)));
	for (size_t k = 0; k < s->n; k++) {
		uint32_t key[3] = { s->cell[k].region, s->cell[k].event, s->cell[k].what };

		agg_buf__put(b, key, sizeof(key));
		agg_rstat__pack(b, &s->cell[k].s);
	}
	return b->bad ? -1 : 0;
}

int agg_jobsum__unpack(struct agg_jobsum *s, struct agg_buf *b)
{
	uint32_t magic = 0, flags = 0;
	uint64_t n = 0, ni;
	uint32_t ne = 0;
	uint8_t dh = 0;
	bool ok = true;

	memset(s, 0, sizeof(*s));
	agg_buf__get(b, &magic, sizeof(magic));
	agg_buf__get(b, &s->ranks, sizeof(s->ranks));
	agg_buf__get(b, &s->size, sizeof(s->size));
	agg_buf__get(b, &flags, sizeof(flags));
	agg_buf__get(b, &s->nint, sizeof(s->nint));
	if (magic != JOBSUM_MAGIC || s->nint > AGG_INTERVALS)
		goto bad;
	s->lost_intervals = flags & 1;
	s->ent_dropped = flags & 2;
	agg_buf__get(b, s->lo, s->nint * sizeof(*s->lo));
	agg_buf__get(b, s->hi, s->nint * sizeof(*s->hi));
	agg_buf__get(b, &s->nincomplete, sizeof(s->nincomplete));
	ni = s->nincomplete < AGG_INCOMPLETE_LISTED ? s->nincomplete : AGG_INCOMPLETE_LISTED;
	agg_buf__get(b, s->incomplete, ni * sizeof(*s->incomplete));
	s->job = str__unpack(b, &ok);
	s->mpi_job = str__unpack(b, &ok);
	if (!ok || !tab__unpack(b, &s->regions) || !tab__unpack(b, &s->events) ||
	    !tab__unpack(b, &s->hosts) || !tab__unpack(b, &s->whys) ||
	    !agg_buf__get(b, &ne, sizeof(ne)) || ne > AGG_RANKS_LISTED)
		goto bad;
	for (uint32_t i = 0; i < ne; i++) {
		int32_t r = 0;
		char *t;

		agg_buf__get(b, &r, sizeof(r));
		t = str__unpack(b, &ok);
		if (!ok || !t || entry__put(s, r, t, s->ent_dropped))
			goto bad;
	}
	if (!agg_buf__get(b, &dh, 1))
		goto bad;
	if (dh) {
		s->drill.has = true;
		s->drill.name = str__unpack(b, &ok);
		s->drill.model = str__unpack(b, &ok);
		s->drill.other = str__unpack(b, &ok);
		agg_buf__get(b, &s->drill.first, sizeof(int32_t));
		agg_buf__get(b, &s->drill.orank, sizeof(int32_t));
		agg_buf__get(b, &s->drill.kind, sizeof(int32_t));
		if (!ok || !s->drill.name || !s->drill.model ||
		    (s->drill.kind && !s->drill.other))
			goto bad;
	}
	/* the cells into an array sized once for their number (no cell
	 * packs in fewer bytes than a key and a head), indexed at the end */
	if (!agg_buf__get(b, &n, sizeof(n)) ||
	    n > (b->len - b->off) / JOBSUM_CELL_MIN ||
	    (n && !(s->cell = malloc(cap__for((size_t)n) * sizeof(*s->cell)))))
		goto bad;
	s->cap = cap__for((size_t)n);
	for (uint64_t k = 0; k < n; k++) {
		uint32_t key[3];
		struct agg_cell *c = &s->cell[k];

		if (!agg_buf__get(b, key, sizeof(key)) ||
		    (key[0] != AGG_NONE && key[0] >= s->regions.n) ||
		    (key[1] != AGG_NONE && !what__raw(key[2]) && key[1] >= s->events.n) ||
		    key[2] >= AGG_NWHAT)
			goto bad;
		*c = (struct agg_cell){ .region = key[0], .event = key[1], .what = key[2] };
		s->n++;
		if (!agg_rstat__unpack(b, &c->s) || c->s.min_at.host >= (int32_t)s->hosts.n ||
		    c->s.max_at.host >= (int32_t)s->hosts.n ||
		    (what__why(key[2]) && (c->s.min_at.tid < 0 ||
					   c->s.min_at.tid >= (int64_t)s->whys.n ||
					   c->s.max_at.tid < 0 ||
					   c->s.max_at.tid >= (int64_t)s->whys.n)))
			goto bad;
	}
	if (cell__index(s))
		goto bad;
	return 0;
bad:
	agg_jobsum__free(s);
	b->bad = true;
	return -1;
}

/* ---- the binomial order, offline ------------------------------------------------ */

int agg_jobsum_stack__push(struct agg_jobsum_stack *st, struct agg_jobsum *one)
{
	if (st->depth == 64)
		return -1;
	st->lv[st->depth] = one;
	st->count[st->depth++] = 1;
	while (st->depth >= 2 && st->count[st->depth - 1] == st->count[st->depth - 2]) {
		struct agg_jobsum *top = st->lv[--st->depth];
		int rc = agg_jobsum__merge(st->lv[st->depth - 1], top);

		st->count[st->depth - 1] *= 2;
		agg_jobsum__free(top);
		free(top);
		if (rc)
			return -1;
	}
	return 0;
}

struct agg_jobsum *agg_jobsum_stack__finish(struct agg_jobsum_stack *st)
{
	while (st->depth >= 2) {
		struct agg_jobsum *top = st->lv[--st->depth];

		agg_jobsum__merge(st->lv[st->depth - 1], top);
		st->count[st->depth - 1] += st->count[st->depth];
		agg_jobsum__free(top);
		free(top);
	}
	return st->depth ? st->lv[--st->depth] : NULL;
}

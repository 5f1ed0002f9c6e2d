/* section.c - the features' sections of a process result (section.h).
 */
#include <stddef.h>

#include "aggregate/section.h"

int agg_sections__add(struct agg_sections *ss, const struct agg_section *s,
		      const void *arg)
{
	int i;

	if (ss->n >= AGG_SECTIONS_MAX)
		return -1;
	/* After every section of the same or a smaller order: stable. */
	for (i = ss->n; i > 0 && ss->s[i - 1]->order > s->order; i--) {
		ss->s[i] = ss->s[i - 1];
		ss->arg[i] = ss->arg[i - 1];
	}
	ss->s[i] = s;
	ss->arg[i] = arg;
	ss->n++;
	ss->ncounts += s->counts != NULL;
	ss->nsums += s->sums != NULL;
	return 0;
}

void agg_sections__head(const struct agg_sections *ss, struct agg_out *o, int depth,
			bool *first, const struct agg_process *p)
{
	for (int i = 0; i < ss->n; i++)
		if (ss->s[i]->head)
			ss->s[i]->head(o, depth, first, p, ss->arg[i]);
}

void agg_sections__tail(const struct agg_sections *ss, struct agg_out *o, int depth,
			bool *first, const struct agg_process *p)
{
	for (int i = 0; i < ss->n; i++)
		if (ss->s[i]->tail)
			ss->s[i]->tail(o, depth, first, p, ss->arg[i]);
}

void agg_sections__thread(const struct agg_sections *ss, struct json_object *o,
			  const struct agg_process *p, const struct agg_thread_view *tv)
{
	for (int i = 0; i < ss->n; i++)
		if (ss->s[i]->thread)
			ss->s[i]->thread(o, p, tv, ss->arg[i]);
}

void agg_sections__counts(const struct agg_sections *ss, struct json_object *x,
			  const char *key, const struct agg_process *p,
			  const struct agg_interval_view *iv)
{
	for (int i = 0; i < ss->n; i++)
		if (ss->s[i]->counts)
			ss->s[i]->counts(x, key, p, iv, ss->arg[i]);
}

void agg_sections__sums(const struct agg_sections *ss, struct json_object *x,
			const char *const *key, const struct agg_sum_view *const *sv,
			int n, const struct agg_process *p)
{
	for (int i = 0; i < ss->n; i++)
		if (ss->s[i]->sums)
			ss->s[i]->sums(x, key, sv, n, p, ss->arg[i]);
}

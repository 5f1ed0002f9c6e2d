/* features.c - the loops over the feature table (feature.h).
 *
 * The table is set once by the constructor before any thread exists and
 * never changes, so the loops read it without a lock.
 */
#include <stddef.h>

#include "preload/base/log.h"
#include "preload/core/core.h"
#include "preload/core/feature.h"

static const struct hs_feature *const *features;

void hs_features__set(const struct hs_feature *const *table)
{
	int next = 0;

	features = table;
	for (const struct hs_feature *const *f = features; f && *f; f++) {
		if (!(*f)->slot)
			continue;
		*(*f)->slot = next < HS_THREAD_SLOTS ? next++ : -1;
		if (*(*f)->slot < 0)
			hs_log(HS_LOG_ERROR, "feature %s: no thread slot left (%d)",
			       (*f)->name, HS_THREAD_SLOTS);
	}
}

/* Calls hook h of every feature that has one, with the arguments given. */
#define EACH(h, ...)                                                             \
	do {                                                                     \
		for (const struct hs_feature *const *f = features; f && *f; f++) \
			if ((*f)->h)                                             \
				(*f)->h(__VA_ARGS__);                            \
	} while (0)

void hs_features__config(struct hs_config *cfg)
{
	EACH(config, cfg);
}

void hs_features__select(struct hs_config *cfg)
{
	EACH(select, cfg);
}

void hs_features__configure(struct hs_config *cfg, struct pmu_evlist *el)
{
	EACH(configure, cfg, el);
}

void hs_features__setup(struct pmu_evlist *el, const struct hs_config *cfg)
{
	EACH(setup, el, cfg);
}

void hs_features__start(void)
{
	EACH(start);
}

void hs_features__thread_start(struct hs_thread *t)
{
	EACH(thread_start, t);
}

void hs_features__thread_stop(struct hs_thread *t)
{
	EACH(thread_stop, t);
}

void hs_features__thread_end(struct hs_thread *t)
{
	EACH(thread_end, t);
}

void hs_features__thread_forget(struct hs_thread *t)
{
	EACH(thread_forget, t);
}

void hs_features__fork_child(void)
{
	EACH(fork_child);
}

void hs_features__collect_thread(struct hs_thread *t, bool self)
{
	EACH(collect_thread, t, self);
}

void hs_features__collect(bool in_signal)
{
	EACH(collect, in_signal);
}

void hs_features__result(struct agg_process *p, bool partial)
{
	EACH(result, p, partial);
}

bool hs_features__own_task(pid_t tid)
{
	for (const struct hs_feature *const *f = features; f && *f; f++)
		if ((*f)->own_task && (*f)->own_task(tid))
			return true;
	return false;
}

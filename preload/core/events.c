/* events.c - the process's event list: built from the configuration,
 * probed on this host, described for the results and reported.
 *
 * The features may ask for pinned events and a privilege level (their
 * config hooks), add to the configuration before the list is built, adjust
 * the list before the probe and schedule it after the probe: see
 * process.c for the order.
 */
#include <stdio.h>

#include "preload/base/log.h"
#include "preload/core/core.h"

/* HPCSHIM_EVENTS with its {groups}, then the pinned list: a pinned name
 * already in the list pins that event (with its whole user group), any
 * other is added as a pinned event.  User group numbers of the pinned list
 * follow those of the main list.  Last, every event's privilege level
 * (an event that names its own keeps it). */
void hs_events__build(struct pmu_evlist *el, const struct hs_config *cfg)
{
	const struct hs_speclist *pl = &cfg->pinned;
	int base = 0;

	pmu_evlist__init(el);
	el->user_read = cfg->user_read;
	for (int i = 0; i < cfg->nevents; i++) {
		pmu_evlist__add_grouped(el, cfg->events[i], cfg->event_group[i], false);
		if (cfg->event_group[i] >= base)
			base = cfg->event_group[i] + 1;
	}
	for (int i = 0; i < pl->n; i++) {
		int k = pmu_evlist__find(el, pl->spec[i]);

		if (k < 0) {
			pmu_evlist__add_grouped(
				el, pl->spec[i],
				pl->group[i] >= 0 ? base + pl->group[i] : -1, true);
			continue;
		}
		el->ev[k].pinned = true;
		for (int j = 0; j < el->nevents; j++)
			if (el->ev[k].ugroup >= 0 && el->ev[j].ugroup == el->ev[k].ugroup)
				el->ev[j].pinned = true;
	}
	pmu_evlist__set_privilege(el, cfg->privilege);
}

/* Per-call statistics need an exact per-call delta: a rotated event has
 * none (its raw count covers only its slices). */
static int events__main(const struct pmu_evlist *el)
{
	for (int i = 0; i < el->nevents; i++)
		if (el->ev[i].status == PMU_EV_OK && !el->grp[el->ev[i].group].rotated)
			return i;
	return -1;
}

/* agg_event.times_of of event i: a counted group member shares its
 * leader's times; a derived clock has its own (its value is its times). */
static int events__times_of(const struct pmu_evlist *el, int i)
{
	const struct pmu_event *e = &el->ev[i];
	int lead;

	if (e->status != PMU_EV_OK || e->derived || e->group < 0)
		return 0;
	lead = el->grp[e->group].idx[0];
	return lead == i ? 0 : lead + 1;
}

/* The events that carry times, for the region path's accumulation. */
static void events__timed(void)
{
	hs_proc.ntimed = 0;
	for (int i = 0; i < hs_proc.evlist.nevents; i++)
		if (hs_proc.ev[i].times_of == 0)
			hs_proc.timed[hs_proc.ntimed++] = i;
}

/* The agg_event view of the evlist: what the results say about events. */
static void events__describe(void)
{
	const struct pmu_evlist *el = &hs_proc.evlist;

	for (int i = 0; i < el->nevents; i++) {
		const struct pmu_event *e = &el->ev[i];
		hs_proc.ev[i] = (struct agg_event){
			.name = e->name,
			.ok = e->status == PMU_EV_OK,
			.source = pmu_source__name(e->source),
			.encoding = e->encoding,
			.privilege = pmu_event__privilege(e),
			.downgraded = e->downgraded,
			.group = e->group,
			.group_time = e->derived,
			.times_of = events__times_of(el, i),
			.err = e->err,
			.errname = pmu_errno__name(e->err),
			.reason = e->reason,
			.kernel = hs_taskstat__figure(e),
		};
	}
}

/* Everything wrong with HPCSHIM_EVENTS in one line: the first dropped
 * event with its reason, the others by name (every reason is in the
 * results), items ignored, and whether anything is left to count. */
static void events__report_drops(void)
{
	const struct pmu_evlist *el = &hs_proc.evlist;
	const struct hs_config *cfg = &hs_proc.cfg;
	char line[900];
	int n = 0, len = 0;

	line[0] = '\0';
	/* Only the user's list: preset events are judged per set. */
	for (int i = 0; i < el->nevents && i < cfg->nuser; i++) {
		const struct pmu_event *e = &el->ev[i];

		if (e->status == PMU_EV_OK)
			continue;
		if (n == 0)
			len = snprintf(line, sizeof(line), "event '%.100s' dropped: %s",
				       e->name, e->reason);
		else if (len < (int)sizeof(line) - 300)
			len += snprintf(line + len, sizeof(line) - (size_t)len,
					"%s '%.40s'",
					n == 1 ? "; also dropped:" : ",", e->name);
		n++;
	}
	if (n > 1)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				" (%d in all; reasons in the results)", n);
	if (cfg->events_ignored)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"%s%d events beyond the limit of %d ignored",
				len ? "; " : "", cfg->events_ignored, PMU_MAX_EVENTS);
	if (cfg->events_empty)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"%s%d empty items ignored", len ? "; " : "",
				cfg->events_empty);
	if (cfg->events_braces + cfg->pinned.braces)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"%s%d misplaced braces ignored (a group is {a,b})",
				len ? "; " : "",
				cfg->events_braces + cfg->pinned.braces);
	if (len && pmu_evlist__nok(el) == 0)
		snprintf(line + len, sizeof(line) - (size_t)len,
			 "; no event left to count");
	if (len)
		hs_log(HS_LOG_ERROR, "HPCSHIM_EVENTS: %s", line);
}

static void events__report(void)
{
	const struct pmu_evlist *el = &hs_proc.evlist;
	int hw_total = 0;

	for (int i = 0; i < el->nevents; i++) {
		const struct pmu_event *e = &el->ev[i];
		if (e->status == PMU_EV_OK)
			hs_log(HS_LOG_DEBUG, "event %s: ok (group %d, %s)", e->name,
			       e->group, pmu_event__privilege(e));
		else
			hs_log(HS_LOG_DEBUG, "event '%s' dropped: %s", e->name,
			       e->reason);
		hw_total += e->status != PMU_EV_OK && pmu_event__is_hardware(e);
	}
	/* Drops from the default set are expected on VMs and stay quiet. */
	if (!hs_proc.cfg.events_default)
		events__report_drops();
	if (hs_proc.cfg.events_default && !el->hardware && hw_total) {
		snprintf(hs_proc.fallback, sizeof(hs_proc.fallback),
			 "no hardware PMU available (hardware events failed to "
			 "open); counting software events only");
		hs_log(HS_LOG_INFO, "%s", hs_proc.fallback);
	}
}

/* After the probe and the features' setup: what the results say about
 * the events, the per-call event, one line for what was dropped. */
void hs_events__publish(void)
{
	hs_proc.main_ev = events__main(&hs_proc.evlist);
	events__describe();
	events__timed();
	events__report();
}

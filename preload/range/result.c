/* result.c - the feature's part of the results: the agg_range_info the
 * writer turns into the JSON "ranges" section, and the one-line reports
 * of what never resolved.
 *
 * Built once at exit, after the collection froze the state: the result
 * lives in static storage and points into hs_rng and the configuration,
 * which outlive the writer.
 */
#include <stdio.h>

#include "preload/base/log.h"
#include "preload/range/internal.h"

static struct agg_range_info info;
static struct agg_place places[RNG_MAX_RANGES + RNG_MAX_POINTS + 2];
static struct agg_interval ivs[RNG_MAX_IV + RNG_MAX_POINTS + 2];
static struct agg_sampled sev[PMU_MAX_EVENTS];
static char reasons[RNG_MAX_RANGES][300];

void hs_range_result__report_unresolved(void)
{
	const struct hs_range_config *rc = hs_rng.rc;
	char why[300];

	for (int r = 0; r < rc->nranges; r++)
		if (!hs_range_resolve__range_ok(r)) {
			hs_range_place__why(&rc->range[r], why, sizeof(why));
			hs_log(HS_LOG_ERROR,
			       "HPCSHIM_RANGE: '%.80s' matched nothing: %s; "
			       "it counted nothing",
			       rc->range[r].text, why);
			break;
		}
	for (int i = 0; i < hs_rng.ncp; i++)
		if (!hs_rng.cp[i].dropped && !hs_rng.cp[i].addr) {
			hs_range_place__why(hs_rng.cp[i].pl, why, sizeof(why));
			hs_log(HS_LOG_ERROR,
			       "HPCSHIM_CHECKPOINT: '%.80s' matched nothing: "
			       "%s; not counted",
			       hs_rng.cp[i].pl->text, why);
			break;
		}
	for (int k = 0; k < 2; k++)
		if (hs_rng.has_trig[k] && !hs_rng.trig[k].dropped &&
		    !hs_rng.trig[k].addr) {
			hs_range_place__why(hs_rng.trig[k].pl, why, sizeof(why));
			hs_log(HS_LOG_ERROR,
			       "HPCSHIM_TRIGGER: '%s:%.80s' matched nothing: "
			       "%s; %s",
			       k ? "stop" : "start", hs_rng.trig[k].pl->text, why,
			       k ? "counting was never stopped" :
				   "counting never started");
		}
}

static void result__point(struct agg_place *out, struct rng_point *pt,
			  struct agg_interval *iv)
{
	uint64_t addr = __atomic_load_n(&pt->addr, __ATOMIC_ACQUIRE);

	out->text = pt->pl->text;
	out->definitions = pt->defs;
	if (pt->dropped) {
		out->status = "dropped";
		out->reason = pt->reason;
	} else if (!addr) {
		out->status = "unresolved";
		hs_range_place__why(pt->pl, pt->reason, sizeof(pt->reason));
		out->reason = pt->reason;
	} else {
		out->status = "ok";
	}
	if (addr) {
		iv->start = addr;
		iv->end = addr + 1;
		iv->object = pt->object;
		out->iv = iv;
		out->nintervals = 1;
	}
}

const struct agg_range_info *hs_range_result__build(void)
{
	const struct hs_range_config *rc = hs_rng.rc;
	int niv = 0, np = 0;

	info = (struct agg_range_info){
		.privilege = pmu_plm__name(rc->privilege),
		.nranges = rc->nranges,
		.range = places,
		.nsev = hs_rng.nsev,
		.sev = sev,
		.sampling_note = hs_rng.sampling_note[0] ? hs_rng.sampling_note : NULL,
		.ncp = hs_rng.ncp,
		.bp_limit = hs_rng.bp_limit,
		.method = hs_rng.method >= 0 ? pmu_point__method_name(hs_rng.method) : NULL,
		.method_note = hs_rng.method_note[0] ? hs_rng.method_note : NULL,
		.trigger_state = hs_range_trig__state_name(),
		.started_ns = __atomic_load_n(&hs_rng.started_ns, __ATOMIC_ACQUIRE),
		.stopped_ns = __atomic_load_n(&hs_rng.stopped_ns, __ATOMIC_ACQUIRE),
		.started_tid = __atomic_load_n(&hs_rng.started_tid, __ATOMIC_ACQUIRE),
		.stopped_tid = __atomic_load_n(&hs_rng.stopped_tid, __ATOMIC_ACQUIRE),
	};
	for (int r = 0; r < rc->nranges; r++, np++) {
		struct agg_place *p = &places[np];

		*p = (struct agg_place){ .text = rc->range[r].text,
					 .status = "ok",
					 .iv = &ivs[niv] };
		for (int i = 0; i < hs_rng.niv; i++)
			if (hs_rng.iv[i].range == r) {
				ivs[niv++] = (struct agg_interval){ hs_rng.iv[i].lo,
								    hs_rng.iv[i].hi,
								    hs_rng.iv[i].object };
				p->nintervals++;
			}
		if (!hs_range_resolve__range_ok(r)) {
			p->status = "unresolved";
			hs_range_place__why(&rc->range[r], reasons[r],
					    sizeof(reasons[r]));
			p->reason = reasons[r];
		} else if (hs_rng.iv_full) {
			p->reason = "more than 1024 address intervals: later ones ignored";
		}
	}
	info.cp = &places[np];
	for (int i = 0; i < hs_rng.ncp; i++)
		result__point(&places[np++], &hs_rng.cp[i], &ivs[niv++]);
	for (int k = 0; k < 2; k++) {
		if (!hs_rng.has_trig[k])
			continue;
		result__point(&places[np], &hs_rng.trig[k], &ivs[niv++]);
		if (k == TRIG_START)
			info.start = &places[np++];
		else
			info.stop = &places[np++];
	}
	for (int k = 0; k < hs_rng.nsev; k++)
		sev[k] = (struct agg_sampled){ hs_rng.el->ev[hs_rng.sev_ev[k]].name,
					       hs_rng.sev_period[k] };
	return &info;
}

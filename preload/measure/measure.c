/* measure.c - the measurement's own cost: calibrated once, at the first
 * counted thread's start (before main), told in the document, and kept
 * far below the events it measures at automatic points.
 *
 * A region call whose counters are read costs two readings; software
 * events (task-clock, page faults, context switches) can only be read with
 * a system call (about 0.8 us each on a VM), hardware ones from user space
 * (rdpmc) in tens of ns.  At points whose frequency the program decides
 * (every wrapped call under --profile, every OpenMP construct and its
 * barrier), reading at each call makes the tool's cost the answer: an
 * MPI_Test loop's time was half the shim's.  So an automatic point's
 * region reads its counters on one call in N chosen at random per block
 * (the HPCSHIM_REGION_SAMPLE mechanism: estimates with standard errors)
 * and times every call with the vDSO's clock, exactly.  N is the least
 * that keeps the readings' share of a call under BUDGET_NS: 1 (every
 * call read) when reads are that cheap, or made in user space alone.
 *
 *   HPCSHIM_AUTO_SAMPLE   auto (default: calibrated) | all (every call
 *                         read: the price is in the document) | N
 *
 * HPCSHIM_REGION_SAMPLE still wins for the regions it names, and its
 * N-for-all applies to automatic points too.  The calibration: K readings
 * of the thread's own counters and K clock readings, in 3 rounds, the
 * cheapest round's mean (the least disturbed), about K x 3 readings: a
 * few hundred microseconds with software events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/jsonutil.h"
#include "aggregate/out.h"
#include "aggregate/section.h"
#include "common/clock.h"
#include "preload/base/log.h"
#include "preload/config/varparse.h"
#include "preload/core/core.h"
#include "preload/measure/measure.h"

#define CAL_READS 32      /* readings per round                         */
#define CAL_ROUNDS 3
#define BUDGET_NS 20.0    /* the readings' share of an automatic call    */
#define MAX_EVERY 4096    /* a region still measured often enough        */

static struct {
	uint32_t asked;      /* 0: auto; else N (1: every call read)        */
	int calibrated;      /* atomic: 0, 1 in progress, 2 done            */
	double read_ns;      /* one reading of a thread's counters          */
	double clock_ns;     /* one reading of the clock                    */
	uint32_t every;
} meas;

static void measure__config(struct hs_config *cfg)
{
	const char *v = getenv("HPCSHIM_AUTO_SAMPLE");
	uint64_t n;

	(void)cfg;
	if (!v || !*v || strcmp(v, "auto") == 0)
		meas.asked = 0;
	else if (strcmp(v, "all") == 0)
		meas.asked = 1;
	else if (hs_var__uint(v, 1, 1000000, &n))
		meas.asked = (uint32_t)n;
	else
		hs_var__bad("HPCSHIM_AUTO_SAMPLE", v,
			    "is not auto, all or N (1..1000000); using auto");
}

/* The mean ns of the cheapest of CAL_ROUNDS rounds of fn. */
#define CAL_MEAN(result, stmt)                                                  \
	do {                                                                    \
		double best = -1;                                               \
		for (int r_ = 0; r_ < CAL_ROUNDS; r_++) {                       \
			uint64_t t0_ = hs_clock__monotonic();                   \
			for (int k_ = 0; k_ < CAL_READS; k_++) {                \
				stmt;                                           \
			}                                                       \
			double m_ = (double)(hs_clock__monotonic() - t0_) /     \
				    CAL_READS;                                  \
			if (best < 0 || m_ < best)                              \
				best = m_;                                      \
		}                                                               \
		(result) = best;                                                \
	} while (0)

static void measure__calibrate(struct hs_thread *t)
{
	struct count buf[PMU_MAX_EVENTS];
	volatile uint64_t sink = 0;
	uint64_t clk, sys0 = __atomic_load_n(&t->ctr.syscall_reads, __ATOMIC_RELAXED);
	double call;
	bool user_only;

	CAL_MEAN(meas.read_ns, (void)pmu_counters__read_at(&t->ctr, buf, &clk));
	CAL_MEAN(meas.clock_ns, sink += hs_clock__monotonic());
	(void)sink;
	/* Counters read from user space alone (rdpmc, the mmap page) cost no
	 * system call: read at every call, whatever a slow host's ns say. */
	user_only = __atomic_load_n(&t->ctr.syscall_reads, __ATOMIC_RELAXED) == sys0;
	call = 2 * (meas.read_ns + meas.clock_ns);
	if (meas.asked)
		meas.every = meas.asked;
	else if (user_only || call <= 2 * BUDGET_NS)
		meas.every = 1;
	else
		meas.every = (uint32_t)(call / BUDGET_NS) + 1;
	if (meas.every > MAX_EVERY)
		meas.every = MAX_EVERY;
	__atomic_store_n(&hs_proc.auto_every, meas.every, __ATOMIC_RELEASE);
	hs_log(HS_LOG_DEBUG,
	       "measure: a reading %.0f ns, the clock %.0f ns: automatic points "
	       "read their counters on 1 call in %u",
	       meas.read_ns, meas.clock_ns, meas.every);
}

/* The first counted thread, its counters open: before main. */
static void measure__thread_start(struct hs_thread *t)
{
	int expected = 0;

	if (!__atomic_compare_exchange_n(&meas.calibrated, &expected, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	measure__calibrate(t);
	__atomic_store_n(&meas.calibrated, 2, __ATOMIC_RELEASE);
}

static void measure__head(struct agg_out *o, int depth, bool *first,
			  const struct agg_process *p, const void *arg)
{
	json_object *m = json_object_new_object();

	(void)p;
	(void)arg;
	json_object_object_add(m, "reading_ns", agg_json__dbl(meas.read_ns));
	json_object_object_add(m, "clock_ns", agg_json__dbl(meas.clock_ns));
	json_object_object_add(m, "call_ns", agg_json__dbl(2 * (meas.read_ns + meas.clock_ns)));
	json_object_object_add(m, "timed_call_ns", agg_json__dbl(2 * meas.clock_ns));
	json_object_object_add(m, "auto_sample", json_object_new_int64(meas.every));
	json_object_object_add(m, "auto_sample_from",
			       json_object_new_string(meas.asked ? "HPCSHIM_AUTO_SAMPLE" :
								   "calibration"));
	agg_out__member(o, depth, first, "measurement", m);
}

static const struct agg_section measure_section = {
	.name = "measure",
	.order = 1,
	.head = measure__head,
};

static void measure__result(struct agg_process *p, bool partial)
{
	(void)partial;
	if (__atomic_load_n(&meas.calibrated, __ATOMIC_ACQUIRE) != 2)
		return;
	p->call_cost_ns = 2 * (meas.read_ns + meas.clock_ns);
	p->timed_cost_ns = 2 * meas.clock_ns;
	agg_sections__add(&p->sections, &measure_section, NULL);
}

const struct hs_feature hs_measure_feature = {
	.name = "measure",
	.config = measure__config,
	.thread_start = measure__thread_start,
	.result = measure__result,
};

/* kernel.c - the kernel's own figures of a task in the results.
 *
 * Counters see a thread from the moment they open.  What it did before
 * (the dynamic loader, constructors that ran before ours, our own start)
 * is known to the kernel only, from getrusage(RUSAGE_THREAD) and the
 * thread's CPU clock: each thread's "before_start" bucket, and the sum of
 * the process's threads next to "totals".  It is never added into the
 * totals: the two together make the thread's whole life.  Threads we never
 * covered are listed with the same figures read from /proc.
 */
#include <json-c/json.h>

#include "aggregate/aggregate.h"
#include "aggregate/jsonutil.h"

uint64_t agg_kfigs__value(const struct agg_kfigs *k, enum agg_kfig f)
{
	switch (f) {
	case AGG_KFIG_CPU:
		return k->cpu_ns;
	case AGG_KFIG_FAULTS:
		return k->minor_faults + k->major_faults;
	case AGG_KFIG_MINOR:
		return k->minor_faults;
	case AGG_KFIG_MAJOR:
		return k->major_faults;
	case AGG_KFIG_SWITCHES:
		return k->vol_switches + k->invol_switches;
	case AGG_KFIG_NONE:
		break;
	}
	return 0;
}

static void kfigs__add(struct agg_kfigs *sum, const struct agg_kfigs *k)
{
	sum->known = true;
	sum->cpu_ns += k->cpu_ns;
	if (k->cpu_res_ns > sum->cpu_res_ns)
		sum->cpu_res_ns = k->cpu_res_ns;
	sum->minor_faults += k->minor_faults;
	sum->major_faults += k->major_faults;
	sum->vol_switches += k->vol_switches;
	sum->invol_switches += k->invol_switches;
}

static void kfigs__fields(json_object *o, const struct agg_kfigs *k)
{
	json_object_object_add(o, "cpu_ns", agg_json__u64(k->cpu_ns));
	json_object_object_add(o, "cpu_resolution_ns", agg_json__u64(k->cpu_res_ns));
	json_object_object_add(o, "minor_faults", agg_json__u64(k->minor_faults));
	json_object_object_add(o, "major_faults", agg_json__u64(k->major_faults));
	json_object_object_add(o, "voluntary_switches", agg_json__u64(k->vol_switches));
	json_object_object_add(o, "involuntary_switches",
			       agg_json__u64(k->invol_switches));
}

/* Events the kernel has a figure for, under their names as in "totals";
 * the figures themselves in "<key>_kernel". */
static void kfigs__add_bucket(json_object *o, const struct agg_process *p,
			      const struct agg_kfigs *k, int threads)
{
	json_object *ev = json_object_new_object(), *raw = json_object_new_object();

	for (int i = 0; i < p->nev; i++)
		if (p->ev[i].ok && p->ev[i].kernel != AGG_KFIG_NONE)
			agg_json__add_key(ev, p->ev[i].name,
					  agg_json__u64(agg_kfigs__value(
						  k, p->ev[i].kernel)));
	if (threads >= 0)
		json_object_object_add(raw, "threads", json_object_new_int(threads));
	kfigs__fields(raw, k);
	json_object_object_add(o, "before_start", ev);
	json_object_object_add(o, "before_start_kernel", raw);
}

void agg_kernel__add_before(json_object *o, const struct agg_process *p,
			    const struct agg_kfigs *k)
{
	if (k->known)
		kfigs__add_bucket(o, p, k, -1);
}

void agg_kernel__add_process_before(json_object *o, const struct agg_process *p)
{
	struct agg_kfigs sum = { 0 };
	int n = 0;

	for (const struct agg_thread *t = p->threads; t; t = t->next)
		if (t->before.known) {
			kfigs__add(&sum, &t->before);
			n++;
		}
	if (n)
		kfigs__add_bucket(o, p, &sum, n);
}

json_object *agg_kernel__uncovered(const struct agg_process *p)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < p->nuncovered; i++) {
		const struct agg_uncovered *u = &p->uncovered[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "tid", json_object_new_int(u->tid));
		json_object_object_add(o, "name",
				       u->name[0] ? agg_json__text(u->name) : NULL);
		kfigs__fields(o, &u->k);
		json_object_array_add(a, o);
	}
	return a;
}

/* pairfloor.c - the least a region pair can cost with today's records
 * (issue 34): a BEGIN and an END that do exactly the work the records
 * require, and nothing else, for counting in user instructions against
 * the emulated-PMU bed's pair figures (bench/pairfloor.sh).
 *
 *   pairfloor K        K pairs of the same call site
 *
 * Built for aarch64 with NEV events in one group (-DNEV=1 or 4).  What it
 * keeps is the shim's lean path with every test a feature needs and every
 * record a call updates:
 *   BEGIN  the thread (TLS), not counted / no room / a longjmp's frames /
 *          a sampled region's tests, the site's record, the frame (region,
 *          site, stack position), the children's sums zeroed (values, the
 *          leader's times, wall), the region's open count, the reading
 *          (its wall instant mapped from the perf clock).
 *   END    the thread and the same entry tests, the site's frame, the
 *          reading and its wall instant, the flush's sequence count,
 *          calls, per event the inclusive (or the recursion's sink),
 *          exclusive and parent sums, the leader's enabled and running
 *          likewise, wall inclusive/exclusive/parent and its per-call
 *          min/max/sum/n, the main event's per-call min/max/sum/n (the
 *          multiplexed case out of line), the depth.
 *   read   the rotation's section flag and its deferred test, per event
 *          the mmap page's sequence-locked read (index, the leader's
 *          capabilities and times, width, counter, offset), the clock
 *          counter converted, the user-read tally.
 * What it leaves out, being no record: the trace, the recalibration of
 * the wall clock's mapping, the general path for other configurations.
 *
 * The counter instruction cannot run outside the guest (qemu-user has no
 * PMU): it is replaced by the same number of instructions the shim's
 * table of mrs entries executes (7), and the mmap page is a page in
 * memory set up as the kernel would for an event on a counter.  Only the
 * instruction count is meaningful, not the values.
 */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef NEV
#define NEV 4
#endif
#define CAP_RDPMC (1ull << 2)
#define CAP_TIME (1ull << 3)
#define CAP_TIME_ZERO (1ull << 4)
#define CAP_TIME_SHORT (1ull << 5)

struct count {
	uint64_t value, enabled, running;
};
struct percall {
	uint64_t n, min, max, sum;
};
struct region {
	uint64_t calls;
	int open, every;
	uint64_t wincl, wexcl;
	struct percall wcall, call;
	struct count c[2 * NEV]; /* inclusive, then exclusive */
};
struct frame {
	struct region *region;
	uintptr_t sp;
	int id;
	bool valid, skip;
	uint64_t wstart, wchild;
	struct count start[NEV], child[NEV];
};
struct thread {
	struct frame *top, *end; /* the next free frame, the end of the stack */
	int nsp, skipped;
	uint32_t seq;
	int reading, deferred;
	uint64_t user_reads, wmult, woff;
	unsigned wshift;
	uint64_t wnow;
	struct count now[2 * NEV]; /* the reading, then the sink */
	struct region **rec;       /* by site id */
	struct frame frames[64];
	const volatile struct perf_event_mmap_page *page[NEV];
};
struct site {
	int id;
};

static __thread struct thread *self __attribute__((tls_model("initial-exec")));

/* The shim's counter read executes 7 instructions (bounds test, adr,
 * add, br, mrs, b): as many here, without the PMU register. */
static inline __attribute__((always_inline)) uint64_t counter(uint32_t idx)
{
	uint64_t v;

	__asm__ volatile("cmp %w1, #31\n\tb.hi 1f\n\tmov %0, #5\n\tnop\n\tnop\n\tnop\n\tb 1f\n1:"
			 : "=&r"(v)
			 : "r"(idx - 1)
			 : "cc");
	return v;
}

static inline uint64_t rawclock(void)
{
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
	return v;
}

static inline __attribute__((always_inline)) bool
page_read(const volatile struct perf_event_mmap_page *pc, struct count *out, bool times,
	  uint64_t *clock)
{
	uint64_t caps, d = 0, pmc, now = 0;
	uint32_t seq, idx;
	unsigned w;

	do {
		seq = pc->lock;
		__asm__ volatile("" ::: "memory");
		idx = pc->index;
		if (!idx)
			return false;
		if (times) {
			caps = pc->capabilities;
			if ((caps & (CAP_RDPMC | CAP_TIME)) != (CAP_RDPMC | CAP_TIME))
				return false;
			uint64_t cyc = rawclock(), last = pc->time_cycles;
			unsigned sh = pc->time_shift;
			uint64_t mult = pc->time_mult;

			cyc = last + ((cyc - last) & pc->time_mask);
			d = (cyc >> sh) * mult + (((cyc & ((1ull << sh) - 1)) * mult) >> sh);
			now = pc->time_zero + d;
			d += pc->time_offset;
			out->enabled = pc->time_enabled + d;
			out->running = pc->time_running + d;
		}
		w = (64u - pc->pmc_width) & 63u;
		pmc = counter(idx);
		pmc = (uint64_t)((int64_t)(pmc << w) >> w);
		out->value = (uint64_t)pc->offset + pmc;
		__asm__ volatile("" ::: "memory");
	} while (pc->lock != seq);
	if (times)
		*clock = now;
	return true;
}

static __attribute__((noinline, cold)) void slow(void)
{
	__asm__ volatile("");
}

static __attribute__((noinline)) bool read_all(struct thread *t, struct count *out,
					       uint64_t *clock)
{
	bool ok = true;

	t->reading = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ok = page_read(t->page[0], &out[0], true, clock);
	for (int e = 1; e < NEV && ok; e++)
		ok = page_read(t->page[e], &out[e], false, NULL);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->reading = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(!ok || t->deferred, 0))
		slow();
	t->user_reads++;
	return ok;
}

static inline uint64_t wall_map(const struct thread *t, uint64_t p)
{
	return ((p * t->wmult) >> t->wshift) + t->woff;
}

static inline void percall(struct percall *pc, uint64_t v)
{
	if (pc->n == 0 || v < pc->min)
		pc->min = v;
	if (v > pc->max)
		pc->max = v;
	pc->sum += v;
	pc->n++;
}

__attribute__((noinline)) void floor_begin(struct site *site, uintptr_t sp)
{
	struct thread *t = self;
	uint64_t clock;

	if (__builtin_expect(!t || t->top == t->end || t->nsp, 0)) {
		slow();
		return;
	}
	struct region *r = t->rec[site->id];

	if (__builtin_expect(r->every > 1, 0)) {
		slow();
		return;
	}
	struct frame *f = t->top;

	f->region = r;
	f->id = site->id;
	f->sp = sp;
	f->skip = false;
	r->open++;
	for (int e = 0; e < NEV; e++)
		f->child[e].value = 0;
	f->child[0].enabled = 0;
	f->child[0].running = 0;
	f->wchild = 0;
	t->top = f + 1;
	f->valid = read_all(t, f->start, &clock);
	f->wstart = wall_map(t, clock);
}

__attribute__((noinline)) void floor_end(struct site *site, uintptr_t sp)
{
	struct thread *t = self;
	uint64_t clock;
	(void)sp;

	if (__builtin_expect(!t || t->nsp || t->skipped, 0)) {
		slow();
		return;
	}
	struct frame *f = t->top - 1;
	bool nested = f > t->frames;

	if (__builtin_expect(f < t->frames || f->id != site->id || f->skip, 0)) {
		slow();
		return;
	}
	bool ok = read_all(t, t->now, &clock);

	t->wnow = wall_map(t, clock);
	__atomic_store_n(&t->seq, t->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);

	struct region *r = f->region;
	const struct count *now = t->now, *st = f->start, *ch = f->child;
	struct count *sink = t->now + NEV;
	uint64_t wd = t->wnow - f->wstart;
	bool outermost = --r->open == 0;

	t->top = f;
	if (outermost)
		r->wincl += wd;
	r->wexcl += wd - f->wchild;
	percall(&r->wcall, wd);
	if (nested)
		f[-1].wchild += wd;
	if (__builtin_expect(ok && f->valid, 1)) {
		struct count *inc = outermost ? r->c : sink, *exc = r->c + NEV;
		struct count *parent = nested ? f[-1].child : sink;

		r->calls++;
		for (int e = 0; e < NEV; e++) {
			uint64_t d = now[e].value - st[e].value;

			inc[e].value += d;
			exc[e].value += d - ch[e].value;
			parent[e].value += d;
		}
		uint64_t dv = now[0].value - st[0].value;
		uint64_t de = now[0].enabled - st[0].enabled;
		uint64_t dr = now[0].running - st[0].running;

		inc[0].enabled += de;
		inc[0].running += dr;
		exc[0].enabled += de - ch[0].enabled;
		exc[0].running += dr - ch[0].running;
		parent[0].enabled += de;
		parent[0].running += dr;
		if (__builtin_expect(dr == de, 1))
			percall(&r->call, dv);
		else
			slow();
	}
	__atomic_store_n(&t->seq, t->seq + 1, __ATOMIC_RELEASE);
}

/* One pair, as the bed's guest_loop calls it (its loop and call are the
 * program's part, not the pair's). */
__attribute__((noinline)) void one_pair(struct site *s)
{
	floor_begin(s, 0);
	floor_end(s, 0);
}

int main(int argc, char **argv)
{
	static struct perf_event_mmap_page pages[NEV] __attribute__((aligned(4096)));
	static struct region reg, *recs[1] = { &reg };
	struct thread *t = calloc(1, sizeof(*t));
	struct site s = { 0 };
	long k = argc > 1 ? atol(argv[1]) : 1000;

	if (!t)
		return 1;
	for (int e = 0; e < NEV; e++) {
		pages[e].index = (uint32_t)e + 1;
		pages[e].capabilities = CAP_RDPMC | CAP_TIME | CAP_TIME_ZERO | CAP_TIME_SHORT;
		pages[e].pmc_width = 48;
		pages[e].time_shift = 10;
		pages[e].time_mult = 1000;
		pages[e].time_mask = ~0ull;
		t->page[e] = &pages[e];
	}
	t->top = t->frames;
	t->end = t->frames + 64;
	t->rec = recs;
	t->wmult = 1;
	reg.every = 1;
	self = t;
	for (long i = 0; i < k; i++)
		one_pair(&s);
	return (int)(reg.calls != (uint64_t)k);
}

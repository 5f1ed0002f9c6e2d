/* sample.c - IP sampling into per-thread mmap ring buffers.
 *
 * One sampling fd per (thread, event), separate from the counting group:
 * the event's own attr (same type, config and privilege) with a sample
 * period and PERF_SAMPLE_IP | PERF_SAMPLE_TID.  The kernel writes a 24-byte
 * record per sample into the ring and wakes a poller when half of it is
 * full (wakeup_watermark).  Whoever drains it walks the records between
 * data_tail and data_head and stores data_tail back.  When the ring is
 * full the kernel drops samples and says how many in a PERF_RECORD_LOST:
 * a loss is counted, never silent.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pmu/internal.h"
#include "pmu/sample.h"

static int ring__open_fd(const struct perf_event_attr *ev, uint64_t period,
			 bool disabled, pid_t tid, size_t data_size, int ceiling)
{
	struct perf_event_attr a = *ev;

	a.size = sizeof(a);
	a.read_format = 0;
	a.sample_period = period;
	a.freq = 0;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a.disabled = disabled;
	a.inherit = 0;
	a.pinned = 0;
	a.exclusive = 0;
	a.enable_on_exec = 0;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(data_size / 2);
	return pmu_sys__open_below(&a, tid, ceiling);
}

int pmu_ring__open(struct pmu_ring *r, const struct perf_event_attr *ev,
		   uint64_t period, bool disabled, pid_t tid, int ceiling)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int err = 0;

	r->fd = -1;
	r->base = NULL;
	r->tid = tid ? tid : gettid();
	/* The ring's pages are locked kernel memory, limited for users by
	 * perf_event_mlock_kb (plus RLIMIT_MEMLOCK): settle for less. */
	for (size_t pages = PMU_RING_PAGES; pages >= 1; pages /= 2) {
		int fd = ring__open_fd(ev, period, disabled, tid, pages * page,
				       ceiling);
		void *base;

		if (fd < 0)
			return -errno;
		base = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
		if (base != MAP_FAILED) {
			madvise(base, (pages + 1) * page, MADV_DONTFORK);
			r->fd = fd;
			r->base = base;
			r->len = (pages + 1) * page;
			r->data_size = pages * page;
			return 0;
		}
		err = errno;
		pmu_sys__close(fd);
		if (err != EPERM && err != ENOMEM)
			break;
	}
	return -err;
}

/* Copies len bytes at ring offset pos (the data area wraps). */
static void ring__copy(const struct pmu_ring *r, const unsigned char *data,
		       uint64_t pos, void *dst, size_t len)
{
	size_t off = (size_t)(pos & (r->data_size - 1));
	size_t first = r->data_size - off < len ? r->data_size - off : len;

	memcpy(dst, data + off, first);
	if (first < len)
		memcpy((unsigned char *)dst + first, data, len - first);
}

void pmu_ring__drain(struct pmu_ring *r, pmu_sample_fn fn, void *arg,
		     struct pmu_ring_stats *st)
{
	struct perf_event_mmap_page *pg = r->base;
	const unsigned char *data;
	uint64_t head, tail;

	if (!pg)
		return;
	data = (const unsigned char *)pg +
	       (pg->data_offset ? pg->data_offset : (uint64_t)sysconf(_SC_PAGESIZE));
	/* Acquire pairs with the kernel's store of data_head: the records
	 * before head are complete. */
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t rec[2] = { 0, 0 }; /* SAMPLE and LOST bodies: 16 bytes */

		ring__copy(r, data, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break; /* torn or corrupt: stop, keep the rest */
		if (h.size >= sizeof(h) + sizeof(rec))
			ring__copy(r, data, tail + sizeof(h), rec, sizeof(rec));
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 16) {
			/* { u64 ip; u32 pid, tid; } */
			uint32_t tid = (uint32_t)(rec[1] >> 32);
			uint16_t mode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;

			if ((pid_t)tid == r->tid) {
				st->samples++;
				fn(arg, rec[0],
				   mode == PERF_RECORD_MISC_KERNEL ||
					   mode == PERF_RECORD_MISC_GUEST_KERNEL);
			}
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			st->lost += rec[1]; /* { u64 id; u64 lost; } */
		} else if (h.type == PERF_RECORD_THROTTLE) {
			st->throttled++;
		}
		tail += h.size;
	}
	/* Release: the kernel may overwrite what we read only after this. */
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

void pmu_ring__close(struct pmu_ring *r, bool unmap)
{
	if (r->base && unmap)
		munmap(r->base, r->len);
	r->base = NULL;
	if (r->fd >= 0)
		pmu_sys__close(r->fd);
	r->fd = -1;
}

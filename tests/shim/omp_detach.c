/* omp_detach.c - detachable tasks (OpenMP 5.0: task detach(ev),
 * omp_fulfill_event), for tests/shim/test_openmp.py; built by the test
 * with gcc -fopenmp and clang -fopenmp.
 *
 *   early N       one thread creates N detachable tasks; each body
 *                 fulfills its own event
 *   late N        each body only records its event and says it is done;
 *                 the creating thread fulfills every event after its body
 *                 has ended (the task completes at the fulfill)
 *   undeferred N  early, with if(0): the creating thread runs each body
 *                 at once and waits for the event (libgomp's completion
 *                 semaphore)
 *   vla N         early, each task with a firstprivate variable-length
 *                 array as well: gcc copies the task's data with a copy
 *                 function (GOMP_task's cpyfn), not memcpy
 *
 * Each body compares the event it sees (its firstprivate copy, which the
 * runtime wrote into its data) with the one its creator's variable got:
 * "mismatch M" counts the tasks whose two differ.  stdout, the same with
 * and without the shim: "MODE n=N mismatch=M sum=S"; stderr: "ran T K",
 * the task bodies each thread ran.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 64
#define MAXN 256

static omp_event_handle_t created[MAXN]; /* the creator's variable, per task */
static omp_event_handle_t seen[MAXN];    /* the body's firstprivate event   */
static int done[MAXN];                   /* atomic: the body has ended      */
static long ran[MAXT];                   /* bodies run, per thread          */
static long sum;

/* The body's share of the checks: which thread ran it, its event, a sum
 * of the task numbers (every body ran once). */
static void body(int i, omp_event_handle_t ev)
{
	int t = omp_get_thread_num();

	seen[i] = ev;
	if (t >= 0 && t < MAXT)
		__atomic_fetch_add(&ran[t], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sum, i + 1, __ATOMIC_RELAXED);
}

static void early(int n)
{
	for (int i = 0; i < n; i++) {
		omp_event_handle_t ev = 0; /* the runtime's to set: read by nobody */

#pragma omp task detach(ev) firstprivate(i)
		{
			body(i, ev);
			omp_fulfill_event(ev);
		}
		created[i] = ev;
	}
}

/* The fulfill waits for the body's end (a flag the body sets last, not a
 * sleep): the event is fulfilled after the task's body has finished. */
static void late(int n)
{
	for (int i = 0; i < n; i++) {
		omp_event_handle_t ev = 0; /* the runtime's to set: read by nobody */

#pragma omp task detach(ev) firstprivate(i)
		{
			body(i, ev);
			__atomic_store_n(&done[i], 1, __ATOMIC_RELEASE);
		}
		created[i] = ev;
	}
	for (int i = 0; i < n; i++) {
		while (!__atomic_load_n(&done[i], __ATOMIC_ACQUIRE))
			;
		omp_fulfill_event(created[i]);
	}
}

static void undeferred(int n)
{
	for (int i = 0; i < n; i++) {
		omp_event_handle_t ev = 0; /* the runtime's to set: read by nobody */

#pragma omp task detach(ev) firstprivate(i) if (0)
		{
			body(i, ev);
			omp_fulfill_event(ev);
		}
		created[i] = ev;
	}
}

/* A firstprivate VLA: gcc hands GOMP_task a copy function for it (clang
 * takes no VLA in firstprivate: an array of fixed length there). */
#ifdef __clang__
#define VLA_LEN(i) 4
#else
#define VLA_LEN(i) ((i) % 4 + 1)
#endif
static void vla(int n)
{
	for (int i = 0; i < n; i++) {
		omp_event_handle_t ev = 0; /* the runtime's to set: read by nobody */
		long v[VLA_LEN(i)];

		for (int k = 0; k < VLA_LEN(i); k++)
			v[k] = i;
#pragma omp task detach(ev) firstprivate(i, v)
		{
			body(i, ev);
			if (v[i % 4] != i)
				__atomic_fetch_add(&sum, 1000000, __ATOMIC_RELAXED);
			omp_fulfill_event(ev);
		}
		created[i] = ev;
	}
}

int main(int argc, char **argv)
{
	void (*mode)(int) = NULL;
	int n = argc == 3 ? atoi(argv[2]) : 0, mismatch = 0;

	if (argc == 3 && !strcmp(argv[1], "early"))
		mode = early;
	else if (argc == 3 && !strcmp(argv[1], "late"))
		mode = late;
	else if (argc == 3 && !strcmp(argv[1], "undeferred"))
		mode = undeferred;
	else if (argc == 3 && !strcmp(argv[1], "vla"))
		mode = vla;
	if (!mode || n < 1 || n > MAXN || omp_get_max_threads() > MAXT) {
		fprintf(stderr, "usage: %s early|late|undeferred|vla N (N <= %d)\n", argv[0],
			MAXN);
		return 2;
	}
#pragma omp parallel
#pragma omp single
	{
		mode(n);
#pragma omp taskwait
	}
	for (int i = 0; i < n; i++)
		mismatch += seen[i] != created[i];
	for (int t = 0; t < omp_get_max_threads(); t++)
		fprintf(stderr, "ran %d %ld\n", t, ran[t]);
	printf("%s n=%d mismatch=%d sum=%ld\n", argv[1], n, mismatch, sum);
	return 0;
}

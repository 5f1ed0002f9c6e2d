/* early_prog.c - linked to libearly_lib, whose constructor started a
 * worker before the shim's constructor ran (tests/shim/test_early.py).
 *
 *   early_prog [dl|pre]
 *
 * Joins the worker; with "dl" dlopens libearly_dl, whose constructor
 * starts one more, and joins it too; with "pre" joins the worker of a
 * preloaded libearly_dl.  Then prints what each worker and the main
 * thread measured of themselves, the main thread's getrusage being the
 * last thing it does:
 *   worker TID CPU0_NS CPU_NS FAULTS      (one line per worker)
 *   main FAULTS
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tests/shim/early_lib.h"

static char line[4096];
static size_t len;

static void put(const struct early_result *r)
{
	len += (size_t)snprintf(line + len, sizeof(line) - len,
				"worker %d %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
				(int)r->tid, r->cpu0_ns, r->cpu_ns, r->faults);
}

int main(int argc, char **argv)
{
	struct early_result r;
	struct rusage ru;

	memset(line, 0, sizeof(line)); /* its pages touched before the end */
	if (early_lib__join(&r) == 0)
		put(&r);
	if (argc > 1) {
		bool dl = strcmp(argv[1], "dl") == 0;
		void *h = dl ? dlopen("libearly_dl.so", RTLD_NOW) : RTLD_DEFAULT;
		int (*join)(struct early_result *) =
			h || !dl ? (int (*)(struct early_result *))dlsym(
					   h, "early_dl__join") :
				   NULL;

		if (!join || join(&r) != 0) {
			fprintf(stderr, "early_prog: %s\n", dlerror());
			return 2;
		}
		put(&r);
	}
	/* The last measure: nothing faults after it but the write. */
	getrusage(RUSAGE_THREAD, &ru);
	len += (size_t)snprintf(line + len, sizeof(line) - len, "main %ld\n",
				ru.ru_minflt + ru.ru_majflt);
	return write(1, line, len) == (ssize_t)len ? 0 : 1;
}

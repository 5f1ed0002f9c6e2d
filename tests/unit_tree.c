/* unit_tree.c - every event of every shipped stall tree (data/presets/
 * *.tree) encodes under the model the tree is for, with libpfm4 forced to
 * that model (LIBPFM_FORCE_PMU), the way unit_preset checks the presets.
 *
 * One child per model: libpfm4 reads LIBPFM_FORCE_PMU once, when it is
 * initialised.  A model whose tables this libpfm4 build lacks (the Arm
 * models in an x86 build) is SKIPped with that reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu/pfm.h"
#include "pmu/pmu.h"
#include "presets/tree_file.h"
#include "tests/tap.h"

static const char *const models[] = {
	"skx", "clx", "icx", "spr", "amd64_fam19h_zen4", "arm_v1", "arm_n1",
};

static void collect(void *ctx, const char *msg)
{
	(*(int *)ctx)++;
	fprintf(stderr, "%s\n", msg);
}

/* Child: exit status 0 when every event encodes, 77 when libpfm4 has no
 * tables for the model, 1 otherwise; one line per bad event on stdout. */
static int check_model(const char *model)
{
	const struct tree *t;
	struct tree_table tt;
	char dir[4096];
	const char *src = getenv("HPCSHIM_SRCDIR");
	int errs = 0, bad = 0;

	setenv("LIBPFM_FORCE_PMU", model, 1);
	if (!pmu_pfm__knows_model(model))
		return 77;
	snprintf(dir, sizeof(dir), "%s/data/presets", src && *src ? src : ".");
	pmu_tree_table__init(&tt);
	pmu_tree_table__load_path(&tt, dir, collect, &errs);
	t = pmu_tree_table__find(&tt, "topdown", model);
	if (!t || errs) {
		printf("# %s: no topdown tree, or %d diagnostics\n", model, errs);
		return 1;
	}
	for (int e = 0; e < t->nevents; e++) {
		struct pmu_event ev;

		pmu_event__parse(&ev, t->ev[e].spec);
		if (ev.status != PMU_EV_OK) {
			printf("# %s: %s = %s: %s\n", model, t->ev[e].alias,
			       t->ev[e].spec, ev.reason);
			bad++;
		}
	}
	printf("# %s: %d events of %s checked\n", model, t->nevents, t->file);
	pmu_tree_table__free(&tt);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsetenv("LIBPFM_FORCE_PMU");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2) /* one model in this process (qemu-user, Arm tables) */
		return check_model(argv[1]) == 0 ? 0 : 1;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		int status = -1;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(check_model(models[i]));
		waitpid(pid, &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
			printf("ok %d - # SKIP libpfm4 on this host has no tables for %s\n",
			       ++tap_n, models[i]);
		else
			TAP_OK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			       "%s: every event of its topdown tree encodes under "
			       "LIBPFM_FORCE_PMU=%s",
			       models[i], models[i]);
	}
	return tap_done();
}

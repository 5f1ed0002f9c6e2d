/* publish.c - the results file: HPCSHIM_OUTPUT, else a fallback.
 *
 * agg_process__write writes the whole file under a temporary name and
 * links it into place, so a reader never sees half a file; here only the
 * choice of directory and the one line that says where it went.
 */
#include <stdlib.h>
#include <string.h>

#include "preload/base/log.h"
#include "preload/core/core.h"

/* The fallback when HPCSHIM_OUTPUT cannot take the file (missing,
 * unwritable, full): $TMPDIR, else /tmp.  One line says where it went. */
void hs_publish__results(const struct agg_process *p)
{
	const char *dir = hs_proc.cfg.output, *tmp = getenv("TMPDIR");
	char path[4096] = "", err[4400] = "", err2[4400] = "";

	if (agg_process__write(p, dir, path, sizeof(path), err, sizeof(err)) == 0) {
		hs_log(HS_LOG_INFO, "results written to %s", path);
		return;
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (strcmp(tmp, dir) != 0 &&
	    agg_process__write(p, tmp, path, sizeof(path), err2, sizeof(err2)) == 0)
		hs_log(HS_LOG_ERROR, "%.1000s; results written to %s instead", err,
		       path);
	else
		hs_log(HS_LOG_ERROR, "%.1000s; results lost", err);
}

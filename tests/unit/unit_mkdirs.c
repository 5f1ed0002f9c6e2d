/* unit_mkdirs.c - common/mkdirs.c: nested directories made, an existing one
 * kept, a file in the way refused (ENOTDIR, as a last component or in the
 * middle), trailing and repeated slashes, and 8 processes making the same
 * new tree at once all succeeding. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/mkdirs.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/hpcshim-unit-mkdirs-XXXXXX";

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void at(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", dir, rel);
}

int main(void)
{
	char p[512], q[512], longp[5000];
	int rc, e, ok = 1;
	pid_t kids[8];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	at(p, sizeof(p), "a/b/c");
	rc = hs_mkdirs(p, 0777);
	TAP_OK(rc == 0 && is_dir(p), "nested missing directories made (rc %d)", rc);
	rc = hs_mkdirs(p, 0777);
	TAP_OK(rc == 0, "an existing directory: success");
	at(p, sizeof(p), "a//x///y/");
	at(q, sizeof(q), "a/x/y");
	TAP_OK(hs_mkdirs(p, 0777) == 0 && is_dir(q), "repeated and trailing slashes");
	TAP_OK(hs_mkdirs(dir, 0777) == 0, "an absolute existing path");

	at(p, sizeof(p), "file");
	fclose(fopen(p, "w"));
	errno = 0;
	rc = hs_mkdirs(p, 0777);
	e = errno;
	TAP_OK(rc == -1 && e == ENOTDIR, "a file as the last component: ENOTDIR (%s)",
	       strerror(e));
	at(p, sizeof(p), "file/sub/deeper");
	errno = 0;
	rc = hs_mkdirs(p, 0777);
	e = errno;
	TAP_OK(rc == -1 && e == ENOTDIR, "a file in the middle: ENOTDIR (%s)", strerror(e));
	errno = 0;
	TAP_OK(hs_mkdirs("", 0777) == -1 && errno == ENOENT, "the empty path: ENOENT");
	memset(longp, 'x', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	errno = 0;
	TAP_OK(hs_mkdirs(longp, 0777) == -1 && errno == ENAMETOOLONG,
	       "a path longer than PATH_MAX: ENAMETOOLONG");

	/* Eight makers of one new tree, released together by a pipe. */
	at(p, sizeof(p), "same/new/tree/leaf");
	{
		int go[2];

		if (pipe(go) < 0)
			return 1;
		for (int i = 0; i < 8; i++) {
			kids[i] = fork();
			if (kids[i] == 0) {
				char c;

				close(go[1]);
				if (read(go[0], &c, 1) != 0)
					_exit(3);
				_exit(hs_mkdirs(p, 0777) == 0 ? 0 : 1);
			}
		}
		close(go[0]);
		close(go[1]); /* EOF wakes them all at once */
	}
	for (int i = 0; i < 8; i++) {
		int st;

		ok &= waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) &&
		      WEXITSTATUS(st) == 0;
	}
	TAP_OK(ok && is_dir(p), "8 concurrent makers of one new tree all succeed");

	snprintf(longp, sizeof(longp), "rm -rf '%s'", dir);
	TAP_OK(system(longp) == 0, "test directory removed");
	return tap_done();
}

/* preset_path.c - where the preset files are: the user's directories
 * (HPCSHIM_PRESET_PATH) first, then the data next to the code that runs,
 * then the configured install directory.
 *
 * "Next to the code" is found from this object's own file (the shim's
 * libhpcshim.so, or the executable of hpcshim-list: its real path, from
 * the kernel's mapping, never the program's), so that a build tree
 * and a relocated install find their own data without a variable:
 *   <dir>/../share/hpcshim/presets      installed (lib/ or bin/)
 *   <dir>/../../share/hpcshim/presets   installed in a multiarch libdir
 *   <dir>/../data/presets               build tree, libtool's .libs/
 *   <dir>/data/presets                  build tree, the file itself
 * Only directories that exist are listed, each once.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/dl.h"
#include "presets/preset.h"

#ifndef HPCSHIM_PRESET_DIR
#define HPCSHIM_PRESET_DIR "/usr/local/share/hpcshim/presets"
#endif

static const char *const preset_path__near[] = {
	"../share/hpcshim/presets",
	"../../share/hpcshim/presets",
	"../data/presets",
	"data/presets",
};

/* The real directory of the file this code was loaded from: the shim's
 * libhpcshim.so, or the tool's executable (common/dl.h).  Never the
 * directory of the program the shim is preloaded into, nor the current
 * one: data is read from there only when HPCSHIM_PRESET_PATH names it. */
static bool preset_path__origin(char *dir, size_t len)
{
	return hs_dl__self_dir((const void *)preset_path__origin, dir, len);
}

/* Whether the colon list holds dir as one of its entries. */
static bool preset_path__has(const char *list, const char *dir)
{
	size_t n = strlen(dir);

	while (*list) {
		const char *end = strchr(list, ':');
		size_t k = end ? (size_t)(end - list) : strlen(list);

		if (k == n && !strncmp(list, dir, n))
			return true;
		list += k + (end ? 1 : 0);
	}
	return false;
}

static void preset_path__append(char *buf, size_t len, const char *dir)
{
	size_t used = strlen(buf);

	if (preset_path__has(buf, dir) || used + strlen(dir) + 2 > len)
		return;
	snprintf(buf + used, len - used, "%s%s", used ? ":" : "", dir);
}

/* Appends the directory dir resolves to, if it is one. */
static void preset_path__add_found(char *buf, size_t len, const char *dir)
{
	char real[PATH_MAX];
	struct stat st;

	if (realpath(dir, real) && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
		preset_path__append(buf, len, real);
}

void pmu_preset__search_path(const char *user, char *buf, size_t len)
{
	char origin[PATH_MAX], dir[PATH_MAX + 64];

	if (!len)
		return;
	snprintf(buf, len, "%s", user ? user : "");
	if (preset_path__origin(origin, sizeof(origin)))
		for (size_t i = 0;
		     i < sizeof(preset_path__near) / sizeof(*preset_path__near); i++) {
			snprintf(dir, sizeof(dir), "%s/%s", origin,
				 preset_path__near[i]);
			preset_path__add_found(buf, len, dir);
		}
	/* The configured directory stays in the list even when missing: the
	 * listing then shows where the files were expected. */
	preset_path__append(buf, len, HPCSHIM_PRESET_DIR);
}

/* ---- the files of a search path -------------------------------------- */

static int preset_path__cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file's problems in one message: a garbage file is one line, not one
 * per line of it (the first problem, and how many more). */
struct file_errs {
	preset_err_fn err;
	void *ctx;
	int n;
	char first[1000];
};

static void file_errs__add(void *c, const char *msg)
{
	struct file_errs *f = c;

	if (f->n++ == 0)
		snprintf(f->first, sizeof(f->first), "%s", msg);
}

static void file_errs__flush(struct file_errs *f)
{
	char msg[1100];

	if (!f->err || !f->n)
		return;
	if (f->n == 1) {
		f->err(f->ctx, f->first);
		return;
	}
	snprintf(msg, sizeof(msg), "%s (and %d more problems in this file)", f->first,
		 f->n - 1);
	f->err(f->ctx, msg);
}

/* The files of one directory that end in suffix (not hidden), in byte
 * order of their names, each given to load, its problems reported in one
 * message. */
static int preset_path__dir(const char *dir, const char *suffix, int idx,
			    pmu_preset_load_fn load, void *tbl, preset_err_fn err,
			    void *ctx)
{
	size_t slen = strlen(suffix);
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	int n = 0, files = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **nn;

		if (de->d_name[0] == '.' || len <= slen ||
		    strcmp(de->d_name + len - slen, suffix) != 0)
			continue;
		nn = realloc(names, (size_t)(n + 1) * sizeof(*nn));
		if (!nn)
			break;
		names = nn;
		if ((names[n] = strdup(de->d_name)))
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, (size_t)n, sizeof(*names), preset_path__cmp);
	for (int i = 0; i < n; i++) {
		char path[4096];
		FILE *in;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		in = fopen(path, "re");
		if (!in) {
			char msg[4200];

			snprintf(msg, sizeof(msg), "%s: cannot read: %s", path,
				 strerror(errno));
			if (err)
				err(ctx, msg);
		} else {
			struct file_errs fe = { .err = err, .ctx = ctx };

			load(tbl, in, path, idx, file_errs__add, &fe);
			fclose(in);
			file_errs__flush(&fe);
			files++;
		}
		free(names[i]);
	}
	free(names);
	return files;
}

int pmu_preset__load_files(const char *path, const char *suffix, int *ndirs,
			   pmu_preset_load_fn load, void *tbl, preset_err_fn err,
			   void *ctx)
{
	char *copy = strdup(path ? path : ""), *save = NULL;
	int files = 0, idx = *ndirs;

	if (!copy)
		return 0;
	/* strtok_r skips empty entries ("a::b", a trailing ':'). */
	for (char *dir = strtok_r(copy, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save), idx++) {
		files += preset_path__dir(dir, suffix, idx, load, tbl, err, ctx);
		if (idx >= *ndirs)
			*ndirs = idx + 1;
	}
	free(copy);
	return files;
}

/* preset_path.c - where the preset files are: the user's directories
 * (HPCSHIM_PRESET_PATH) first, then the data next to the code that runs,
 * then the configured install directory.
 *
 * "Next to the code" is found from this object's own file (the shim's
 * libhpcshim.so, or the executable of hpcshim-list), so that a build tree
 * and a relocated install find their own data without a variable:
 *   <dir>/../share/hpcshim/presets      installed (lib/ or bin/)
 *   <dir>/../../share/hpcshim/presets   installed in a multiarch libdir
 *   <dir>/../data/presets               build tree, libtool's .libs/
 *   <dir>/data/presets                  build tree, the file itself
 * Only directories that exist are listed, each once.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The directory of the file this code was loaded from: a shared object
 * as dladdr names it, else (the main program) /proc/self/exe. */
static bool preset_path__origin(char *dir, size_t len)
{
	char file[PATH_MAX], real[PATH_MAX];
	Dl_info info;
	ssize_t n;
	char *slash;

	if (dladdr((void *)preset_path__origin, &info) && info.dli_fname &&
	    strstr(info.dli_fname, ".so") && strchr(info.dli_fname, '/')) {
		snprintf(file, sizeof(file), "%s", info.dli_fname);
	} else {
		n = readlink("/proc/self/exe", file, sizeof(file) - 1);
		if (n <= 0)
			return false;
		file[n] = '\0';
	}
	if (!realpath(file, real) || !(slash = strrchr(real, '/')))
		return false;
	*slash = '\0';
	snprintf(dir, len, "%s", real[0] ? real : "/");
	return true;
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

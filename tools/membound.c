/* membound.c - the reading tools' memory, weighed before they read
 * (membound.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/escape.h"
#include "tools/membound.h"
#include "tools/results.h"

#define NONE ULLONG_MAX
#define MIB (1024.0 * 1024.0)

typedef unsigned long long ull;

struct avail {
	ull bytes;
	const char *from; /* the source of the tightest figure */
};

static void avail__min(struct avail *a, ull bytes, const char *from)
{
	if (bytes < a->bytes) {
		a->bytes = bytes;
		a->from = from;
	}
}

/* "512M", "2G", "1048576": binary suffixes K M G T, as ulimit and
 * Slurm's --mem read them.  False for anything else, 0 included. */
static bool parse_size(const char *s, ull *out)
{
	static const char units[] = "KMGT";
	const char *u = units;
	char *end;
	ull v;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return false;
	if (*end && (end[1] || !(u = strchr(units, toupper((unsigned char)*end)))))
		return false;
	for (int shift = *end ? 10 * (int)(u - units + 1) : 0; shift > 0; shift -= 10) {
		if (v > NONE >> 10)
			return false;
		v <<= 10;
	}
	*out = v;
	return v > 0;
}

/* The number after key (a line "key N") in a file of such lines:
 * /proc/meminfo (kB), a cgroup's memory.stat; NONE when absent. */
static ull keyed(const char *path, const char *key)
{
	FILE *f = fopen(path, "re");
	char line[256];
	size_t n = strlen(key);
	ull v = NONE;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && (line[n] == ' ' || line[n] == ':')) {
			v = strtoull(line + n + 1 + strspn(line + n + 1, " "), NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

/* dir/name's number; NONE when absent or not a number ("max"). */
static ull number(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[64], *end;
	FILE *f;
	ull v = NONE;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (f && fgets(buf, sizeof(buf), f) && isdigit((unsigned char)buf[0])) {
		v = strtoull(buf, &end, 10);
		if (*end && *end != '\n')
			v = NONE;
	}
	if (f)
		fclose(f);
	return v;
}

/* The files of one cgroup version's memory controller. */
struct cg_files {
	const char *limit, *usage, *cache_key; /* cache_key: in memory.stat */
};

static const struct cg_files cg_v2 = { "memory.max", "memory.current", "file" };
static const struct cg_files cg_v1 = { "memory.limit_in_bytes", "memory.usage_in_bytes",
				       "total_cache" };

/* What a cgroup level leaves: its limit less its usage, the page cache
 * not counted as used (the kernel reclaims it first, as MemAvailable
 * counts it available; the input files themselves are in it). */
static ull cg_level(const char *dir, const struct cg_files *c)
{
	char stat[PATH_MAX + 16];
	ull limit = number(dir, c->limit), used = number(dir, c->usage), cache;

	/* v1 writes "no limit" as a page-rounded LLONG_MAX */
	if (limit == NONE || limit >= (ull)LLONG_MAX / 2 || used == NONE)
		return NONE;
	snprintf(stat, sizeof(stat), "%s/memory.stat", dir);
	cache = keyed(stat, c->cache_key);
	if (cache != NONE)
		used -= cache < used ? cache : used;
	return limit > used ? limit - used : 0;
}

/* The tightest level from dir up to the mount point top. */
static ull cg_walk(char *dir, size_t top, const struct cg_files *c)
{
	ull least = NONE, v;
	char *slash;

	for (;;) {
		v = cg_level(dir, c);
		if (v < least)
			least = v;
		slash = strrchr(dir, '/');
		if (strlen(dir) <= top || !slash || (size_t)(slash - dir) < top)
			return least;
		*slash = '\0';
	}
}

/* Our cgroup's path in the hierarchy: "0::PATH" (v2) or
 * "N:...memory...:PATH" (v1); false when there is none. */
static bool cg_path(bool v2, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024], *a, *b;
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!(a = strchr(line, ':')) || !(b = strchr(a + 1, ':')))
			continue;
		*b = '\0';
		if (v2 ? !strcmp(a, ":") : !!strstr(a, "memory")) {
			snprintf(out, len, "%s", b + 1);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* The cgroup mount of the memory controller (/proc/self/mountinfo:
 * "ID PARENT DEV ROOT MOUNTPOINT OPTS ... - TYPE SOURCE SUPEROPTS"),
 * its root in the hierarchy and where it is mounted. */
static bool cg_mount(bool v2, char *root, char *point, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], r[1024], p[1024], type[32], super[1024];
	const char *dash;
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", r, p) != 2 ||
		    sscanf(dash, " - %31s %*s %1023s", type, super) != 2)
			continue;
		found = v2 ? !strcmp(type, "cgroup2")
			   : !strcmp(type, "cgroup") && strstr(super, "memory");
	}
	if (f)
		fclose(f);
	if (found) {
		snprintf(root, len, "%s", r);
		snprintf(point, len, "%s", p);
	}
	return found;
}

/* The memory our cgroup and its ancestors leave, v2 or v1. */
static ull cg_available(bool v2)
{
	char path[1024], root[1024], point[1024], dir[PATH_MAX];
	size_t rl;

	if (!cg_path(v2, path, sizeof(path)) || !cg_mount(v2, root, point, sizeof(root)))
		return NONE;
	/* inside a cgroup namespace or a container, the mount's root is
	 * where our path starts */
	rl = strcmp(root, "/") ? strlen(root) : 0;
	if (rl && !strncmp(path, root, rl))
		memmove(path, path + rl, strlen(path + rl) + 1);
	snprintf(dir, sizeof(dir), "%s%s", point, strcmp(path, "/") ? path : "");
	return cg_walk(dir, strlen(point), v2 ? &cg_v2 : &cg_v1);
}

/* Bytes counted in field of /proc/self/statm (0: the address space, 5:
 * data and stack), what RLIMIT_AS and RLIMIT_DATA weigh. */
static ull statm_bytes(int field)
{
	FILE *f = fopen("/proc/self/statm", "re");
	ull pages[6] = { 0 };

	if (f) {
		if (fscanf(f, "%llu %llu %llu %llu %llu %llu", &pages[0], &pages[1], &pages[2],
			   &pages[3], &pages[4], &pages[5]) != 6)
			pages[field] = 0;
		fclose(f);
	}
	return pages[field] * (ull)sysconf(_SC_PAGESIZE);
}

/* A limit less what already counts against it. */
static ull rlimit_left(int which, int field)
{
	struct rlimit rl;
	ull used;

	if (getrlimit(which, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return NONE;
	used = statm_bytes(field);
	return rl.rlim_cur > used ? rl.rlim_cur - used : 0;
}

static struct avail available(const char *prog)
{
	const char *env = getenv("HPCSHIM_TOOL_MEMORY");
	struct avail a = { NONE, "no limit known" };
	ull kb, v;

	if (env && !*env)
		env = NULL; /* empty: unset */
	if (env && parse_size(env, &v))
		return (struct avail){ v, "HPCSHIM_TOOL_MEMORY" };
	if (env)
		fprintf(stderr,
			"%s: HPCSHIM_TOOL_MEMORY='%s' is not a size (512M, 2G: a number "
			"above 0, K, M, G or T); using the memory available\n",
			prog, esc__t(env));
	kb = keyed("/proc/meminfo", "MemAvailable");
	if (kb != NONE && kb < NONE / 1024)
		avail__min(&a, kb * 1024, "MemAvailable");
	avail__min(&a, cg_available(true), "cgroup memory.max");
	avail__min(&a, cg_available(false), "cgroup memory.limit_in_bytes");
	avail__min(&a, rlimit_left(RLIMIT_AS, 0), "RLIMIT_AS");
	avail__min(&a, rlimit_left(RLIMIT_DATA, 5), "RLIMIT_DATA");
	return a;
}

/* Past the memory available, malloc fails (the tools then say "out of
 * memory" and end with 2) instead of the OOM killer coming: what a file
 * the factors underrate meets (a crafted one: json-c's empty object "{},"
 * takes some 600 times its 3 bytes).  These tools start no
 * program, so no child inherits the limit. */
static void backstop(ull bytes)
{
	struct rlimit rl;
	ull cap = statm_bytes(5);

	if (bytes == NONE || getrlimit(RLIMIT_DATA, &rl) != 0)
		return;
	cap = cap < NONE - bytes ? cap + bytes : NONE;
	if (rl.rlim_cur == RLIM_INFINITY || cap < rl.rlim_cur) {
		rl.rlim_cur = cap;
		setrlimit(RLIMIT_DATA, &rl);
	}
}

/* path's size; 0 for what cannot be read (the loader names it). */
static ull size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (ull)st.st_size : 0;
}

/* What input arg weighs: a file its size, a directory its hpcshim-*.json
 * files' sizes, summed or (one_at_a_time) the largest. */
static ull input_bytes(const char *arg, bool one_at_a_time)
{
	struct stat st;
	char **names;
	ssize_t n;
	ull sum = 0, v;

	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
		return size_of(arg);
	n = results__list_dir(arg, "hpcshim-", &names);
	for (ssize_t i = 0; i < n; i++) {
		v = size_of(names[i]);
		sum = one_at_a_time ? (v > sum ? v : sum) : sum + v;
		free(names[i]);
	}
	free(names);
	return sum;
}

int membound__check(const char *prog, double factor, bool one_at_a_time, int argc,
		    char **argv)
{
	struct avail a = available(prog);
	const char *v = getenv("HPCSHIM_VERBOSE");
	bool verbose = v && atoi(v) >= 1;
	ull bytes = 0, b;
	double need = MEMBOUND_BASE;

	for (int i = 0; i < argc; i++) {
		b = input_bytes(argv[i], one_at_a_time);
		bytes = one_at_a_time ? (b > bytes ? b : bytes) : bytes + b;
		need = MEMBOUND_BASE + factor * (double)bytes;
		if (verbose)
			fprintf(stderr,
				"%s: %s: memory: %.0f bytes needed (%.0f + %g x %llu bytes of "
				"input), %llu available (%s)\n",
				prog, esc__t(argv[i]), need, MEMBOUND_BASE, factor, bytes, a.bytes,
				a.from);
		if (need > (double)a.bytes) {
			fprintf(stderr, "%s: %s: too large to read in memory (%llu MB needed, %llu "
					"available)\n",
				prog, esc__t(argv[i]), (ull)((need + MIB - 1) / MIB), (ull)(a.bytes / MIB));
			return -1;
		}
	}
	backstop(a.bytes);
	return 0;
}

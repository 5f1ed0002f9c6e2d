/* init.c - /init of the pmubed guest: a static aarch64 program.
 *
 * Mounts proc, sys, dev (devtmpfs) and a tmpfs on /out, opens the PMU to
 * user space (perf_event_paranoid=-1, perf_user_access=1), runs every case
 * listed in /cases under LD_PRELOAD=/lib/libhpcshim.so, prints what each
 * left behind between markers on the console, and powers the machine off.
 *
 * /cases: one case per line, blank lines and '#' lines ignored:
 *   NAME [VAR=VALUE ...] PROGRAM [ARG ...]
 * Each case runs with its own output directory /out/NAME
 * (HPCSHIM_OUTPUT), its stdout and stderr captured to files there.
 * VAR=VALUE items are added to the environment (and override the defaults).
 *
 * Console protocol (the host parses it, tests/pmubed/check.py):
 *   @@PMUBED INFO KEY VALUE
 *   @@PMUBED CASE NAME STATUS exit CODE | signal SIG | error ERRNO-TEXT
 *   @@PMUBED FILE NAME BASENAME BEGIN
 *   ... file content ...
 *   @@PMUBED FILE END
 *   @@PMUBED DONE N
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXTOK 64

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

/* First line of a file, newline stripped; "" when unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void do_mount(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) < 0 && errno != EBUSY)
		say("@@PMUBED INFO mount-failed %s %s\n", dir, strerror(errno));
}

static void set_sysctl(const char *path, const char *value)
{
	int rc = write_file(path, value);

	if (rc < 0)
		say("@@PMUBED INFO sysctl-failed %s %s\n", path, strerror(-rc));
}

/* The CPU identification libpfm4 uses to pick its PMU model. */
static void cpuinfo(void)
{
	static const char *const keys[] = { "CPU implementer", "CPU architecture",
					    "CPU variant", "CPU part", "CPU revision" };
	char line[512];
	unsigned seen = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f && fgets(line, sizeof(line), f)) {
		for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i]);
			char *v;
			if ((seen & (1u << i)) || strncmp(line, keys[i], n) != 0)
				continue;
			seen |= 1u << i;
			v = strchr(line, ':');
			v = v ? v + 1 + strspn(v + 1, " \t") : line;
			v[strcspn(v, "\n")] = '\0';
			say("@@PMUBED INFO cpuinfo %.*s %s\n", (int)n, keys[i], v);
		}
	}
	if (f)
		fclose(f);
}

/* The events a PMU lists (for armv8_pmuv3: the common events whose PMCEID
 * bit is set), one line: "@@PMUBED INFO pmu-events PMU name=event=0x11 ...". */
static void pmu_events(const char *pmu)
{
	char path[512], buf[128];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events", pmu);
	d = opendir(path);
	if (!d)
		return;
	say("@@PMUBED INFO pmu-events %s", pmu);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/%s",
			 pmu, de->d_name);
		read_line(path, buf, sizeof(buf));
		say(" %s=%s", de->d_name, buf);
	}
	say("\n");
	closedir(d);
}

static void info(void)
{
	struct utsname u;
	char buf[256], path[512];
	DIR *d;
	struct dirent *de;

	if (uname(&u) == 0)
		say("@@PMUBED INFO kernel %s %s\n", u.release, u.machine);
	read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
	say("@@PMUBED INFO perf_event_paranoid %s\n", buf);
	read_line("/proc/sys/kernel/perf_user_access", buf, sizeof(buf));
	say("@@PMUBED INFO perf_user_access %s\n", buf);
	cpuinfo();
	d = opendir("/sys/bus/event_source/devices");
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
			 de->d_name);
		read_line(path, buf, sizeof(buf));
		say("@@PMUBED INFO pmu %s type=%s", de->d_name, buf);
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/perf_event_mux_interval_ms",
			 de->d_name);
		read_line(path, buf, sizeof(buf));
		say(" mux_interval_ms=%s\n", buf[0] ? buf : "-");
		pmu_events(de->d_name);
	}
	if (d)
		closedir(d);
}

/* Copies a file to the console between markers. */
static void dump(const char *name, const char *dir, const char *base)
{
	char path[512], buf[4096];
	int fd;
	ssize_t n;
	char last = '\n';

	snprintf(path, sizeof(path), "%s/%s", dir, base);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	say("@@PMUBED FILE %s %s BEGIN\n", name, base);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, (size_t)n, stdout);
		last = buf[n - 1];
	}
	close(fd);
	say("%s@@PMUBED FILE END\n", last == '\n' ? "" : "\n");
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_json(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return strncmp(de->d_name, "hpcshim-", 8) == 0 && n > 5 &&
	       strcmp(de->d_name + n - 5, ".json") == 0;
}

static void run_case(char *line)
{
	char *tok[MAXTOK + 1], *env[MAXTOK + 8], dir[256], outvar[300], path[300];
	static const char *const defaults[] = {
		"PATH=/bin", "LD_LIBRARY_PATH=/lib",
		"LD_PRELOAD=/lib/libhpcshim.so",
	};
	int ntok = 0, nenv = 0, first_arg, status, out, err;
	struct dirent **list;
	struct timespec t0, t1;
	pid_t pid;

	for (char *s = strtok(line, " \t\n"); s && ntok < MAXTOK;
	     s = strtok(NULL, " \t\n"))
		tok[ntok++] = s;
	if (ntok == 0 || tok[0][0] == '#')
		return;
	for (first_arg = 1; first_arg < ntok && strchr(tok[first_arg], '=') &&
			    tok[first_arg][0] != '/';
	     first_arg++)
		env[nenv++] = tok[first_arg];
	if (first_arg >= ntok) {
		say("@@PMUBED CASE %s STATUS error no program\n", tok[0]);
		return;
	}
	tok[ntok] = NULL;
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		size_t klen = (size_t)(strchr(defaults[i], '=') - defaults[i]) + 1;
		int given = 0;
		for (int k = 0; k < nenv; k++)
			given |= strncmp(env[k], defaults[i], klen) == 0;
		if (!given)
			env[nenv++] = (char *)defaults[i];
	}
	snprintf(dir, sizeof(dir), "/out/%s", tok[0]);
	mkdir(dir, 0777);
	snprintf(outvar, sizeof(outvar), "HPCSHIM_OUTPUT=%s", dir);
	env[nenv++] = outvar;
	env[nenv] = NULL;

	snprintf(path, sizeof(path), "%s/stdout", dir);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	err = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		dup2(out, 1);
		dup2(err, 2);
		if (chdir(dir) < 0)
			_exit(126);
		execve(tok[first_arg], &tok[first_arg], env);
		dprintf(2, "init: exec %s: %s\n", tok[first_arg], strerror(errno));
		_exit(127);
	}
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	if (pid < 0) {
		say("@@PMUBED CASE %s STATUS error fork %s\n", tok[0], strerror(errno));
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	say("@@PMUBED INFO case-ms %s %ld\n", tok[0],
	    (long)((t1.tv_sec - t0.tv_sec) * 1000 +
		   (t1.tv_nsec - t0.tv_nsec) / 1000000));
	if (WIFEXITED(status))
		say("@@PMUBED CASE %s STATUS exit %d\n", tok[0], WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		say("@@PMUBED CASE %s STATUS signal %d\n", tok[0], WTERMSIG(status));
	else
		say("@@PMUBED CASE %s STATUS error wait %d\n", tok[0], status);
	dump(tok[0], dir, "stdout");
	dump(tok[0], dir, "stderr");
	int n = scandir(dir, &list, is_json, by_name);
	for (int i = 0; i < n; i++) {
		dump(tok[0], dir, list[i]->d_name);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
}

int main(void)
{
	char line[4096];
	FILE *cases;
	int n = 0;

	do_mount("proc", "/proc", "proc");
	do_mount("sysfs", "/sys", "sysfs");
	do_mount("devtmpfs", "/dev", "devtmpfs");
	do_mount("tmpfs", "/out", "tmpfs");
	do_mount("tmpfs", "/tmp", "tmpfs");
	if (fcntl(1, F_GETFD) < 0) { /* no console from the kernel */
		int fd = open("/dev/console", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
	}
	/* Keep kernel messages off the console while the results go out. */
	write_file("/proc/sys/kernel/printk", "1");
	set_sysctl("/proc/sys/kernel/perf_event_paranoid", "-1");
	set_sysctl("/proc/sys/kernel/perf_user_access", "1");
	say("@@PMUBED BOOT\n");
	info();
	cases = fopen("/cases", "re");
	if (!cases) {
		say("@@PMUBED INFO no-cases %s\n", strerror(errno));
	} else {
		while (fgets(line, sizeof(line), cases)) {
			char *p = line + strspn(line, " \t");
			if (*p == '\0' || *p == '\n' || *p == '#')
				continue;
			run_case(p);
			n++;
		}
		fclose(cases);
	}
	say("@@PMUBED DONE %d\n", n);
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

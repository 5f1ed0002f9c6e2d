/* unit_range.c - the HPCSHIM_RANGE / _RANGE_PERIOD / _CHECKPOINT /
 * _TRIGGER / HPCSHIM_PRIVILEGE parsers (preload/range/config.c): every
 * form, every rejection with its reason, and one report line per bad
 * variable.  Table-driven, each row tagged with its line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/log.h"
#include "preload/range/config.h"
#include "tests/unit/tap.h"

struct row {
	int line;
	const char *spec;
	int rc;              /* 0 ok, -1 rejected                   */
	enum rng_form form;
	bool inverse;
	const char *name, *obj;
	uint64_t lo, hi;
	const char *why;     /* substring of the reason when rejected */
};

static const struct row ranges[] = {
	{ __LINE__, "exe", 0, RNG_EXE, false, "", "", 0, 0, NULL },
	{ __LINE__, "!exe", 0, RNG_EXE, true, "", "", 0, 0, NULL },
	{ __LINE__, "kernel", 0, RNG_KERNEL, false, "", "", 0, 0, NULL },
	{ __LINE__, "func:foo", 0, RNG_FUNC, false, "foo", "", 0, 0, NULL },
	{ __LINE__, "func:foo@libm.so.6", 0, RNG_FUNC, false, "foo", "libm.so.6", 0, 0, NULL },
	{ __LINE__, "!func:_ZN1a1bEv@exe", 0, RNG_FUNC, true, "_ZN1a1bEv", "exe", 0, 0, NULL },
	{ __LINE__, "so:libm.so.6", 0, RNG_SO, false, "libm.so.6", "", 0, 0, NULL },
	{ __LINE__, "!so:/lib/x.so", 0, RNG_SO, true, "/lib/x.so", "", 0, 0, NULL },
	{ __LINE__, "addr:0x1000-0x2000", 0, RNG_ADDR, false, "", "", 0x1000, 0x2000, NULL },
	{ __LINE__, "addr:4096-0X2000@exe", 0, RNG_ADDR, false, "", "exe", 4096, 0x2000, NULL },
	{ __LINE__, "addr:0x2000-0x1000", -1, 0, false, NULL, NULL, 0, 0, "inverted range" },
	{ __LINE__, "addr:0x1000-0x1000", -1, 0, false, NULL, NULL, 0, 0, "empty range" },
	{ __LINE__, "addr:0x1000", -1, 0, false, NULL, NULL, 0, 0, "not START-END" },
	{ __LINE__, "addr:zz-0x10", -1, 0, false, NULL, NULL, 0, 0, "not START-END" },
	{ __LINE__, "addr:-1-5", -1, 0, false, NULL, NULL, 0, 0, "not START-END" },
	{ __LINE__, "addr:0x10-0x20x", -1, 0, false, NULL, NULL, 0, 0, "not START-END" },
	{ __LINE__, "addr:0x10-0x20@", -1, 0, false, NULL, NULL, 0, 0, "empty object" },
	{ __LINE__, "func:", -1, 0, false, NULL, NULL, 0, 0, "empty function name" },
	{ __LINE__, "func:@exe", -1, 0, false, NULL, NULL, 0, 0, "empty function name" },
	{ __LINE__, "so:", -1, 0, false, NULL, NULL, 0, 0, "empty object" },
	{ __LINE__, "fnc:foo", -1, 0, false, NULL, NULL, 0, 0, "unknown form" },
	{ __LINE__, "!", -1, 0, false, NULL, NULL, 0, 0, "unknown form" },
	{ __LINE__, "exe:", -1, 0, false, NULL, NULL, 0, 0, "unknown form" },
};

static const struct row points[] = {
	{ __LINE__, "func:main", 0, RNG_FUNC, false, "main", "", 0, 0, NULL },
	{ __LINE__, "func:f@librange_dl.so", 0, RNG_FUNC, false, "f", "librange_dl.so", 0, 0, NULL },
	{ __LINE__, "addr:0x401136", 0, RNG_ADDR, false, "", "", 0x401136, 0, NULL },
	{ __LINE__, "addr:0x1136@exe", 0, RNG_ADDR, false, "", "exe", 0x1136, 0, NULL },
	{ __LINE__, "addr:0x10-0x20", -1, 0, false, NULL, NULL, 0, 0, "not an address" },
	{ __LINE__, "addr:", -1, 0, false, NULL, NULL, 0, 0, "not an address" },
	{ __LINE__, "addr:0", -1, 0, false, NULL, NULL, 0, 0, "address 0" },
	{ __LINE__, "addr:0@exe", 0, RNG_ADDR, false, "", "exe", 0, 0, NULL },
	{ __LINE__, "so:libm", -1, 0, false, NULL, NULL, 0, 0, "unknown form" },
	{ __LINE__, "exe", -1, 0, false, NULL, NULL, 0, 0, "unknown form" },
	{ __LINE__, "!func:main", -1, 0, false, NULL, NULL, 0, 0, "unknown form" },
};

static void check(const struct row *r, bool point)
{
	struct rng_place p;
	char why[300] = "";
	int rc = (point ? rng_place__parse_point : rng_place__parse_range)(
		&p, r->spec, strlen(r->spec), why, sizeof(why));

	if (r->rc < 0) {
		TAP_OK(rc < 0 && strstr(why, r->why), "%s '%s' rejected: %s [row %d]",
		       point ? "point" : "range", r->spec, why, r->line);
		return;
	}
	TAP_OK(rc == 0 && p.form == r->form && p.inverse == r->inverse &&
	       strcmp(p.name, r->name) == 0 && strcmp(p.obj, r->obj) == 0 &&
	       p.lo == r->lo && p.hi == r->hi && strcmp(p.text, r->spec) == 0,
	       "%s '%s' parsed (rc %d, why '%s') [row %d]",
	       point ? "point" : "range", r->spec, rc, why, r->line);
}

/* Lines the parsers logged since the last call. */
static int log_lines(FILE *f)
{
	static long done;
	int n = 0, c;

	fflush(f);
	fseek(f, done, SEEK_SET);
	while ((c = fgetc(f)) != EOF) {
		n += c == '\n';
		done++;
	}
	return n;
}

static void env_reset(void)
{
	static const char *const vars[] = {
		"HPCSHIM_PRIVILEGE", "HPCSHIM_RANGE", "HPCSHIM_RANGE_PERIOD",
		"HPCSHIM_CHECKPOINT", "HPCSHIM_TRIGGER",
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static void test_env(FILE *logf)
{
	static struct hs_range_config rc; /* large: not on the stack */
	char many[400] = "", longname[400];

	env_reset();
	hs_range_config__from_env(&rc);
	TAP_OK(!rng_config__active(&rc) && rc.privilege == PMU_PLM_ALL &&
	       log_lines(logf) == 0, "nothing set: inactive, privilege all, silent");

	setenv("HPCSHIM_RANGE", " func:a, !func:a ,,exe,exe,bad,addr:9-1", 1);
	setenv("HPCSHIM_RANGE_PERIOD", "1000, task-clock=50000,page-faults=0,x=y,=5", 1);
	setenv("HPCSHIM_TRIGGER", "start:func:a,stop:addr:0x10,start:func:b", 1);
	setenv("HPCSHIM_PRIVILEGE", "user", 1);
	hs_range_config__from_env(&rc);
	TAP_OK(rc.nranges == 3 && strcmp(rc.range[1].text, "!func:a") == 0 &&
	       rc.range[1].inverse, "ranges: 3 kept (blanks trimmed, empty, "
	       "duplicate and bad ones out)");
	TAP_OK(rc.nperiods == 3 && rc.period[0].period == 1000 &&
	       !rc.period[0].event[0] && strcmp(rc.period[1].event, "task-clock") == 0 &&
	       rc.period[1].period == 50000 && rc.period[2].period == 0,
	       "periods: N, EVENT=N and EVENT=0 kept; x=y and =5 out");
	TAP_OK(rc.has_start && rc.has_stop && strcmp(rc.start.name, "a") == 0 &&
	       rc.stop.lo == 0x10, "trigger: start and stop, the second start ignored");
	TAP_OK(rc.privilege == PMU_PLM_USER, "privilege user");
	TAP_OK(log_lines(logf) == 3, "one line for each of the 3 bad variables");

	env_reset();
	for (int i = 0; i < 17; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%sfunc:f%d",
			 i ? "," : "", i);
	setenv("HPCSHIM_CHECKPOINT", many, 1);
	setenv("HPCSHIM_PRIVILEGE", "root", 1);
	hs_range_config__from_env(&rc);
	TAP_OK(rc.ncheckpoints == 16 && rc.privilege == PMU_PLM_ALL &&
	       rng_config__active(&rc), "17 checkpoints: 16 kept; bad privilege: all");
	TAP_OK(log_lines(logf) == 2, "one line each for the checkpoint list and "
	       "the privilege");

	env_reset();
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memcpy(longname, "func:", 5);
	setenv("HPCSHIM_RANGE", longname, 1);
	setenv("HPCSHIM_TRIGGER", "begin:func:x,stop:so:x", 1);
	hs_range_config__from_env(&rc);
	TAP_OK(rc.nranges == 0 && !rc.has_start && !rc.has_stop &&
	       log_lines(logf) == 2, "too long a range, malformed triggers: "
	       "ignored, one line each");
	env_reset();
}

int main(void)
{
	FILE *logf = tmpfile();

	hs_log_set_fd(fileno(logf));
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		check(&ranges[i], false);
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		check(&points[i], true);
	test_env(logf);
	return tap_done();
}

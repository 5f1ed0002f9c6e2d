/* unit_varparse.c - unit tests of the bounded integer parser every
 * HPCSHIM_* number goes through (preload/config/varparse.c): the edges of
 * the range, 64-bit overflow, junk, signs and blanks, hexadecimal, and
 * where a number inside a longer value ends; and the one shape of the
 * report of a bad value.  TAP through tests/unit/tap.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/log.h"
#include "preload/config/varparse.h"
#include "tests/unit/tap.h"

/* ---- whole values: hs_var__uint ------------------------------------- */

struct whole_case {
	int line;
	const char *in;
	uint64_t lo, hi;
	bool ok;
	uint64_t want;
};

static const struct whole_case whole_cases[] = {
	{ __LINE__, "0", 0, 2, true, 0 },
	{ __LINE__, "2", 0, 2, true, 2 },          /* the upper edge */
	{ __LINE__, "3", 0, 2, false, 0 },         /* one above */
	{ __LINE__, "16", 16, 1000000, true, 16 }, /* the lower edge */
	{ __LINE__, "15", 16, 1000000, false, 0 }, /* one below */
	{ __LINE__, "1000000", 16, 1000000, true, 1000000 },
	{ __LINE__, "1000001", 16, 1000000, false, 0 },
	{ __LINE__, "007", 0, 10, true, 7 }, /* decimal, not octal */
	{ __LINE__, "18446744073709551615", 0, UINT64_MAX, true, UINT64_MAX },
	{ __LINE__, "18446744073709551616", 0, UINT64_MAX, false, 0 }, /* 2^64 */
	{ __LINE__, "99999999999999999999999", 0, UINT64_MAX, false, 0 },
	{ __LINE__, "36893488147419103232", 0, UINT64_MAX, false, 0 }, /* 2^65: wraps to 0 */
	{ __LINE__, "", 0, 10, false, 0 },
	{ __LINE__, "loud", 0, 10, false, 0 },
	{ __LINE__, "1x", 0, 10, false, 0 },
	{ __LINE__, "1.5", 0, 10, false, 0 },
	{ __LINE__, "-1", 0, UINT64_MAX, false, 0 },
	{ __LINE__, "-0", 0, 10, false, 0 },
	{ __LINE__, "+1", 0, 10, false, 0 },
	{ __LINE__, " 1", 0, 10, false, 0 },
	{ __LINE__, "1 ", 0, 10, false, 0 },
	{ __LINE__, "\t1", 0, 10, false, 0 },
	{ __LINE__, "0x10", 0, 100, false, 0 }, /* hex only where asked */
};

static void test_whole(void)
{
	for (size_t k = 0; k < sizeof(whole_cases) / sizeof(whole_cases[0]); k++) {
		const struct whole_case *c = &whole_cases[k];
		uint64_t n = 12345;
		bool ok = hs_var__uint(c->in, c->lo, c->hi, &n);

		TAP_OK(ok == c->ok && (!ok ? n == 12345 : n == c->want),
		       "row %d: '%s' in [%llu, %llu] -> %s %llu", c->line, c->in,
		       (unsigned long long)c->lo, (unsigned long long)c->hi,
		       ok ? "ok" : "rejected", (unsigned long long)n);
	}
}

/* ---- a number at the start of a longer value: hs_var__uint_at -------- */

struct at_case {
	int line;
	const char *in;
	bool hex;
	uint64_t hi;
	bool ok;
	uint64_t want;
	const char *rest; /* what follows the digits, when ok */
};

static const struct at_case at_cases[] = {
	{ __LINE__, "2000000inst", false, UINT64_MAX, true, 2000000, "inst" },
	{ __LINE__, "5,b:3", false, UINT64_MAX, true, 5, ",b:3" }, /* an item */
	{ __LINE__, "10ms", false, UINT64_MAX, true, 10, "ms" },
	{ __LINE__, "0x1130-0x11a0", true, UINT64_MAX, true, 0x1130, "-0x11a0" },
	{ __LINE__, "0XfF", true, UINT64_MAX, true, 255, "" },
	{ __LINE__, "0xffffffffffffffff", true, UINT64_MAX, true, UINT64_MAX, "" },
	{ __LINE__, "0x10000000000000000", true, UINT64_MAX, false, 0, "" },
	{ __LINE__, "0x", true, UINT64_MAX, false, 0, "" },
	{ __LINE__, "0xg", true, UINT64_MAX, false, 0, "" },
	{ __LINE__, "0x10", false, UINT64_MAX, true, 0, "x10" }, /* decimal 0 */
	{ __LINE__, "ff", true, UINT64_MAX, false, 0, "" },      /* needs 0x */
	{ __LINE__, "4096", true, UINT64_MAX, true, 4096, "" },  /* else decimal */
	{ __LINE__, "1025", false, 1024, false, 0, "" },
	{ __LINE__, "ms", false, UINT64_MAX, false, 0, "" },
	{ __LINE__, "-5", false, UINT64_MAX, false, 0, "" },
	{ __LINE__, " 5", false, UINT64_MAX, false, 0, "" },
};

static void test_at(void)
{
	for (size_t k = 0; k < sizeof(at_cases) / sizeof(at_cases[0]); k++) {
		const struct at_case *c = &at_cases[k];
		const char *end = NULL;
		uint64_t n = 12345;
		bool ok = hs_var__uint_at(c->in, c->hex, 0, c->hi, &end, &n);

		TAP_OK(ok == c->ok && (!ok ? n == 12345 :
					     n == c->want && strcmp(end, c->rest) == 0),
		       "row %d: '%s'%s -> %s %llu, rest '%s'", c->line, c->in,
		       c->hex ? " (hex)" : "", ok ? "ok" : "rejected",
		       (unsigned long long)n, ok ? end : "");
	}
}

/* ---- the shapes built on it ------------------------------------------ */

static void test_duration(void)
{
	uint64_t ns = 0;

	TAP_OK(hs_var__duration("10ms", 1, UINT64_MAX, &ns) && ns == 10000000,
	       "10ms is 10^7 ns");
	TAP_OK(!hs_var__duration("18446744073709551616ns", 1, UINT64_MAX, &ns),
	       "a duration beyond 64 bits is rejected");
	TAP_OK(!hs_var__duration("20000000000s", 1, UINT64_MAX, &ns),
	       "a duration whose ns overflow is rejected");
	TAP_OK(!hs_var__duration(" 1s", 1, UINT64_MAX, &ns) &&
		       !hs_var__duration("-1s", 1, UINT64_MAX, &ns),
	       "a duration with a blank or a sign is rejected");
}

/* ---- the report of a bad value ---------------------------------------- */

static void test_bad(void)
{
	FILE *logf = tmpfile();
	char got[300] = "";
	size_t n;

	if (!logf) {
		SKIP("no temporary file for the log");
		return;
	}
	hs_log_set_fd(fileno(logf));
	hs_var__bad("HPCSHIM_X", "0123456789012345678901234567890123456789ABC",
		    "is not a number %d..%d; using %d", 1, 9, 5);
	hs_var__bad("HPCSHIM_Y", "short", "is not 0 or 1; not listing");
	rewind(logf);
	n = fread(got, 1, sizeof(got) - 1, logf);
	got[n] = '\0';
	TAP_OK(strcmp(got,
		      "hpcshim: HPCSHIM_X='0123456789012345678901234567890123456789...' "
		      "is not a number 1..9; using 5\n"
		      "hpcshim: HPCSHIM_Y='short' is not 0 or 1; not listing\n") == 0,
	       "a bad value: one line, the value cut to 40 characters (got '%s')",
	       got);
	hs_log_set_fd(STDERR_FILENO);
	fclose(logf);
}

int main(void)
{
	test_whole();
	test_at();
	test_duration();
	test_bad();
	return tap_done();
}

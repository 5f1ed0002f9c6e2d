/* config.c - the range feature's variables: HPCSHIM_PRIVILEGE,
 * HPCSHIM_RANGE, HPCSHIM_RANGE_PERIOD, HPCSHIM_CHECKPOINT and
 * HPCSHIM_TRIGGER -> struct hs_range_config (config.h).
 *
 * Pure parsing: nothing is resolved or opened here (symbols may live in
 * objects loaded later).  Each variable is a comma list; blanks around
 * items are trimmed and empty items skipped.  Everything wrong with one
 * variable is reported in one line, and the good items are kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/memclear.h"
#include "preload/base/log.h"
#include "preload/config/varparse.h"
#include "preload/range/config.h"

static const char range_forms[] = "expected func:NAME[@OBJ], so:OBJ, exe, "
				  "kernel or addr:START-END[@OBJ], optionally prefixed with !";
static const char point_forms[] = "expected func:NAME[@OBJ] or addr:ADDRESS[@OBJ]";

/* One report line per variable: the first problem in full, then the
 * other ignored items by name. */
struct problems {
	const char *var;
	char line[700];
	int n, len;
};

static void problem(struct problems *pr, const char *item, size_t len, const char *why)
{
	int room = (int)sizeof(pr->line) - pr->len;

	if (pr->n == 0)
		pr->len = snprintf(pr->line, sizeof(pr->line), "'%.*s%s' ignored: %s",
				   (int)(len > 60 ? 60 : len), item,
				   len > 60 ? "..." : "", why);
	else if (room > 100)
		pr->len += snprintf(pr->line + pr->len, (size_t)room, "%s '%.*s%s'",
				    pr->n == 1 ? "; also ignored:" : ",",
				    (int)(len > 40 ? 40 : len), item,
				    len > 40 ? "..." : "");
	pr->n++;
	if (pr->len >= (int)sizeof(pr->line))
		pr->len = (int)sizeof(pr->line) - 1;
}

static void problems__report(const struct problems *pr)
{
	if (pr->n > 2)
		hs_log(HS_LOG_ERROR, "%s: %s (%d items ignored)", pr->var, pr->line,
		       pr->n);
	else if (pr->n)
		hs_log(HS_LOG_ERROR, "%s: %s", pr->var, pr->line);
}

typedef void (*item_fn)(void *ctx, struct problems *pr, const char *s, size_t len);

/* Calls fn for every non-empty, trimmed item of a comma list. */
struct each_ctx {
	item_fn fn;
	void *ctx;
	struct problems *pr;
};

static void each__item(void *c, const char *s, size_t len)
{
	struct each_ctx *e = c;

	e->fn(e->ctx, e->pr, s, len);
}

static void each_item(const char *v, item_fn fn, void *ctx, struct problems *pr)
{
	struct each_ctx e = { fn, ctx, pr };

	hs_var__each_item(v, each__item, &e);
}

/* An address: 0x... hexadecimal, else decimal. */
static bool parse_addr_number(const char *s, const char **end, uint64_t *v)
{
	return hs_var__uint_at(s, true, 0, UINT64_MAX, end, v);
}

/* Splits "X@OBJ" at the last '@' into p->obj; returns X's length. */
static int split_obj(struct rng_place *p, char *x, char *why, size_t whylen)
{
	char *at = strrchr(x, '@');

	if (!at)
		return (int)strlen(x);
	if (at[1] == '\0') {
		snprintf(why, whylen, "empty object name after '@'");
		return -1;
	}
	snprintf(p->obj, sizeof(p->obj), "%s", at + 1);
	*at = '\0';
	return (int)(at - x);
}

static int parse_func(struct rng_place *p, const char *rest, char *why, size_t whylen)
{
	char x[RNG_TEXT_MAX];

	snprintf(x, sizeof(x), "%s", rest);
	p->form = RNG_FUNC;
	if (split_obj(p, x, why, whylen) < 0)
		return -1;
	if (x[0] == '\0') {
		snprintf(why, whylen, "empty function name");
		return -1;
	}
	snprintf(p->name, sizeof(p->name), "%s", x);
	return 0;
}

/* addr:START-END[@OBJ] (range) or addr:ADDRESS[@OBJ] (point). */
static int parse_addr(struct rng_place *p, const char *rest, bool range, char *why,
		      size_t whylen)
{
	char x[RNG_TEXT_MAX];
	const char *e;

	snprintf(x, sizeof(x), "%s", rest);
	p->form = RNG_ADDR;
	if (split_obj(p, x, why, whylen) < 0)
		return -1;
	if (!parse_addr_number(x, &e, &p->lo) || (range && *e != '-') ||
	    (!range && *e)) {
		snprintf(why, whylen,
			 range ? "not START-END (addresses in hex with "
				 "0x, or decimal)" :
				 "not an address (hex with 0x, or decimal)");
		return -1;
	}
	if (!range && p->lo == 0 && !p->obj[0]) {
		snprintf(why, whylen, "address 0");
		return -1;
	}
	if (!range)
		return 0;
	if (!parse_addr_number(e + 1, &e, &p->hi) || *e) {
		snprintf(why, whylen,
			 "not START-END (addresses in hex with 0x, or "
			 "decimal)");
		return -1;
	}
	if (p->hi <= p->lo) {
		snprintf(why, whylen, "%s range: end 0x%llx is not above start 0x%llx",
			 p->hi < p->lo ? "inverted" : "empty",
			 (unsigned long long)p->hi, (unsigned long long)p->lo);
		return -1;
	}
	return 0;
}

static int place__copy(struct rng_place *p, const char *s, size_t len, char *why,
		       size_t whylen)
{
	memset(p, 0, sizeof(*p));
	if (len >= sizeof(p->text)) {
		snprintf(why, whylen, "longer than %d characters", RNG_TEXT_MAX - 1);
		return -1;
	}
	memcpy(p->text, s, len);
	p->text[len] = '\0';
	if (strlen(p->text) != len) {
		snprintf(why, whylen, "contains a NUL byte");
		return -1;
	}
	return 0;
}

static bool prefix(const char *s, const char *pre, const char **rest)
{
	size_t n = strlen(pre);

	if (strncmp(s, pre, n) != 0)
		return false;
	*rest = s + n;
	return true;
}

int rng_place__parse_range(struct rng_place *p, const char *s, size_t len,
			   char *why, size_t whylen)
{
	const char *t, *rest;

	if (place__copy(p, s, len, why, whylen) < 0)
		return -1;
	t = p->text;
	if (*t == '!') {
		p->inverse = true;
		t++;
	}
	if (strcmp(t, "exe") == 0) {
		p->form = RNG_EXE;
		return 0;
	}
	if (strcmp(t, "kernel") == 0) {
		p->form = RNG_KERNEL;
		return 0;
	}
	if (prefix(t, "func:", &rest))
		return parse_func(p, rest, why, whylen);
	if (prefix(t, "addr:", &rest))
		return parse_addr(p, rest, true, why, whylen);
	if (prefix(t, "so:", &rest)) {
		p->form = RNG_SO;
		if (*rest == '\0') {
			snprintf(why, whylen, "empty object name");
			return -1;
		}
		snprintf(p->name, sizeof(p->name), "%s", rest);
		return 0;
	}
	snprintf(why, whylen, "unknown form (%s)", range_forms);
	return -1;
}

int rng_place__parse_point(struct rng_place *p, const char *s, size_t len,
			   char *why, size_t whylen)
{
	const char *rest;

	if (place__copy(p, s, len, why, whylen) < 0)
		return -1;
	if (prefix(p->text, "func:", &rest))
		return parse_func(p, rest, why, whylen);
	if (prefix(p->text, "addr:", &rest))
		return parse_addr(p, rest, false, why, whylen);
	snprintf(why, whylen, "unknown form (%s)", point_forms);
	return -1;
}

static bool seen_text(const struct rng_place *v, int n, const char *text)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].text, text) == 0)
			return true;
	return false;
}

static void range__item(void *ctx, struct problems *pr, const char *s, size_t len)
{
	struct hs_range_config *rc = ctx;
	struct rng_place p;
	char why[300];

	if (rc->nranges >= RNG_MAX_RANGES)
		problem(pr, s, len, "more than 32 ranges");
	else if (rng_place__parse_range(&p, s, len, why, sizeof(why)) < 0)
		problem(pr, s, len, why);
	else if (seen_text(rc->range, rc->nranges, p.text))
		problem(pr, s, len, "duplicate");
	else
		rc->range[rc->nranges++] = p;
}

static void checkpoint__item(void *ctx, struct problems *pr, const char *s, size_t len)
{
	struct hs_range_config *rc = ctx;
	struct rng_place p;
	char why[300];

	if (rc->ncheckpoints >= RNG_MAX_POINTS)
		problem(pr, s, len, "more than 16 checkpoints");
	else if (rng_place__parse_point(&p, s, len, why, sizeof(why)) < 0)
		problem(pr, s, len, why);
	else if (seen_text(rc->checkpoint, rc->ncheckpoints, p.text))
		problem(pr, s, len, "duplicate");
	else
		rc->checkpoint[rc->ncheckpoints++] = p;
}

static void trigger__item(void *ctx, struct problems *pr, const char *s, size_t len)
{
	struct hs_range_config *rc = ctx;
	bool start = len > 6 && strncmp(s, "start:", 6) == 0;
	bool stop = len > 5 && strncmp(s, "stop:", 5) == 0;
	size_t skip = start ? 6 : 5;
	char why[300];

	if (!start && !stop) {
		problem(pr, s, len,
			"expected start:POINT or stop:POINT (POINT: "
			"func:NAME[@OBJ] or addr:ADDRESS[@OBJ])");
		return;
	}
	if (start ? rc->has_start : rc->has_stop) {
		problem(pr, s, len, start ? "a second start" : "a second stop");
		return;
	}
	if (rng_place__parse_point(start ? &rc->start : &rc->stop, s + skip,
				   len - skip, why, sizeof(why)) < 0) {
		problem(pr, s, len, why);
		return;
	}
	if (start)
		rc->has_start = true;
	else
		rc->has_stop = true;
}

static void period__item(void *ctx, struct problems *pr, const char *s, size_t len)
{
	struct hs_range_config *rc = ctx;
	const char *eq = memrchr(s, '=', len), *num = eq ? eq + 1 : s;
	size_t nlen = eq ? (size_t)(eq - s) : 0;
	char buf[32];
	uint64_t v;

	if (rc->nperiods >= PMU_MAX_EVENTS) {
		problem(pr, s, len, "more than 64 periods");
		return;
	}
	if ((eq && nlen == 0) || nlen >= PMU_NAME_MAX) {
		problem(pr, s, len, "expected N or EVENT=N");
		return;
	}
	if ((size_t)(s + len - num) >= sizeof(buf) || s + len == num) {
		problem(pr, s, len, "the period is not a number");
		return;
	}
	memcpy(buf, num, (size_t)(s + len - num));
	buf[s + len - num] = '\0';
	if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		problem(pr, s, len, "the period is not a decimal number");
		return;
	}
	if (!hs_var__uint(buf, 0, 1ull << 48, &v)) {
		problem(pr, s, len, "the period is not a decimal number up to 2^48");
		return;
	}
	memset(&rc->period[rc->nperiods], 0, sizeof(rc->period[0]));
	memcpy(rc->period[rc->nperiods].event, s, nlen);
	rc->period[rc->nperiods++].period = v;
}

static enum pmu_plm privilege(const char *v)
{
	static const char *const names[] = { "user", "kernel", "all" };
	static const enum pmu_plm plm[] = { PMU_PLM_USER, PMU_PLM_KERNEL, PMU_PLM_ALL };

	return plm[hs_var__choice("HPCSHIM_PRIVILEGE", v, names, 3, 2)];
}

static enum rng_method method(const char *v)
{
	static const char *const names[] = { "auto", "breakpoint", "uprobe" };
	static const enum rng_method m[] = { RNG_METHOD_AUTO, RNG_METHOD_BREAKPOINT,
					     RNG_METHOD_UPROBE };

	return m[hs_var__choice("HPCSHIM_RANGE_METHOD", v, names, 3, 0)];
}

static void parse_var(const char *var, item_fn fn, struct hs_range_config *rc)
{
	struct problems pr = { .var = var };

	each_item(getenv(var), fn, rc, &pr);
	problems__report(&pr);
}

void hs_range_config__from_env(struct hs_range_config *rc)
{
	hs_mem__clear(rc, sizeof(*rc));
	rc->privilege = privilege(getenv("HPCSHIM_PRIVILEGE"));
	parse_var("HPCSHIM_RANGE", range__item, rc);
	parse_var("HPCSHIM_RANGE_PERIOD", period__item, rc);
	parse_var("HPCSHIM_CHECKPOINT", checkpoint__item, rc);
	parse_var("HPCSHIM_TRIGGER", trigger__item, rc);
	rc->method = method(getenv("HPCSHIM_RANGE_METHOD"));
	rc->probe_skip = hs_var__choice("HPCSHIM_DEBUG_POINT_PROBE",
					getenv("HPCSHIM_DEBUG_POINT_PROBE"),
					(const char *const[]){ "execute", "skip" }, 2, 0) == 1;
}

bool rng_config__active(const struct hs_range_config *rc)
{
	return rc->nranges || rc->ncheckpoints || rc->has_start || rc->has_stop;
}

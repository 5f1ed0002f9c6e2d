/* config.h - the range feature's variables: range restriction,
 * checkpoints and start/stop triggers.
 *
 *   HPCSHIM_PRIVILEGE     user | kernel | all
 *   HPCSHIM_RANGE         code ranges whose share of each sampled event is
 *                         measured: func:NAME[@OBJ], so:OBJ, exe, kernel,
 *                         addr:START-END[@OBJ], each optionally !inverted
 *   HPCSHIM_RANGE_PERIOD  sample periods: N (every sampled event) and/or
 *                         EVENT=N; 0 = do not sample that event
 *   HPCSHIM_CHECKPOINT    exact entry counts: func:NAME[@OBJ], addr:A[@OBJ]
 *   HPCSHIM_TRIGGER       start:POINT[,stop:POINT] or stop:POINT
 *   HPCSHIM_RANGE_METHOD  how checkpoints and triggers are watched:
 *                         auto | breakpoint | uprobe
 *   HPCSHIM_DEBUG_POINT_PROBE  skip: the check that breakpoints fire does
 *                         not execute its function (tests: the "opens but
 *                         never fires" path on any host)
 *
 * Parsed once (config.c), by the feature's config hook (range.c), into its
 * own struct hs_range_config.  Documented for users in
 * docs/environment.md.
 */
#ifndef HPCSHIM_PRELOAD_RANGE_CONFIG_H
#define HPCSHIM_PRELOAD_RANGE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/pmu.h"

#define RNG_MAX_RANGES 32 /* HPCSHIM_RANGE items                        */
#define RNG_MAX_POINTS 16 /* HPCSHIM_CHECKPOINT items (before the limit) */
#define RNG_TEXT_MAX 256  /* one item, as written                       */

enum rng_form {
	RNG_FUNC,   /* func:NAME[@OBJ]: a function symbol (symtab, else dynsym) */
	RNG_SO,     /* so:OBJ: the executable segments of a loaded object       */
	RNG_EXE,    /* exe: the main executable's executable segments           */
	RNG_KERNEL, /* kernel: samples taken in kernel mode                      */
	RNG_ADDR,   /* addr:START-END[@OBJ] (a point: addr:A[@OBJ])              */
};

/* One place in the address space: a range, a checkpoint or a trigger. */
struct rng_place {
	char text[RNG_TEXT_MAX]; /* as written: the key in the results      */
	enum rng_form form;
	bool inverse;            /* "!": everything else                    */
	char name[RNG_TEXT_MAX]; /* function name, or object for so:        */
	char obj[RNG_TEXT_MAX];  /* @OBJ: "" = any object, "exe" = the program */
	uint64_t lo, hi;         /* addr: [lo, hi), relative to OBJ if given;
				     a point uses lo                          */
};

struct rng_period {
	char event[PMU_NAME_MAX]; /* "" = every sampled event                */
	uint64_t period;          /* 0 = do not sample                       */
};

/* How checkpoints and triggers are watched (pmu/point.h). */
enum rng_method {
	RNG_METHOD_AUTO,       /* breakpoints if they fire and suffice, else uprobes */
	RNG_METHOD_BREAKPOINT, /* hardware breakpoints only                     */
	RNG_METHOD_UPROBE,     /* uprobes only                                  */
};

struct hs_range_config {
	enum pmu_plm privilege;
	int nranges;
	struct rng_place range[RNG_MAX_RANGES];
	int nperiods;
	struct rng_period period[PMU_MAX_EVENTS];
	int ncheckpoints;
	struct rng_place checkpoint[RNG_MAX_POINTS];
	bool has_start, has_stop;
	struct rng_place start, stop;
	enum rng_method method;
	bool probe_skip; /* HPCSHIM_DEBUG_POINT_PROBE=skip */
};

/* config.c: parses the variables above.  Every bad variable is
 * reported in one "hpcshim:" line (first problem in full, the other
 * ignored items by name); the good items are kept. */
void hs_range_config__from_env(struct hs_range_config *rc);
/* One item of each kind, for tests and the fuzzer: 0, or -1 with a
 * reason. */
int rng_place__parse_range(struct rng_place *p, const char *s, size_t len,
			   char *why, size_t whylen);
int rng_place__parse_point(struct rng_place *p, const char *s, size_t len,
			   char *why, size_t whylen);
bool rng_config__active(const struct hs_range_config *rc);

#endif

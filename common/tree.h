/* tree.h - stall trees (cycle accounting): nodes over events, evaluated
 * with first-order error propagation, thresholds, sum rules and the
 * bottleneck.
 *
 * A plain data type like formula.h: presets/tree_file.c parses the data
 * files (docs/drilldown.md) into it; the offline tool and aggregate/ may
 * evaluate it without knowing perf_event_open.
 */
#ifndef HPCSHIM_COMMON_TREE_H
#define HPCSHIM_COMMON_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/formula.h"

#define TREE_MAX_NODES 64
#define TREE_MAX_EVENTS 64
#define TREE_MAX_CONSTS 32
#define TREE_MAX_SUM 16
#define TREE_TEXT_MAX 256
#define TREE_NOTE_MAX 1024
#define TREE_SPEC_MAX 128

/* What a formula name stands for, resolved when the file is read. */
enum tree_ref { TREE_REF_EVENT, TREE_REF_CONST, TREE_REF_NODE };

struct tree_expr {
	struct formula f;
	char text[TREE_TEXT_MAX];
	unsigned char kind[FORMULA_MAX_VARS]; /* enum tree_ref */
	short idx[FORMULA_MAX_VARS];
};

struct tree_event {
	char alias[FORMULA_NAME_MAX];
	char spec[TREE_SPEC_MAX];
	int level; /* the lowest level of a node that reads it */
};

struct tree_const {
	char name[FORMULA_NAME_MAX];
	double v;
};

struct tree_node {
	char id[FORMULA_NAME_MAX];
	int parent; /* index, -1 for a root */
	int depth;
	int level; /* topdown level: topdown collects level 1, topdown2 adds 2 */
	int line;
	char name[TREE_TEXT_MAX];
	char unit[32];
	struct tree_expr value;
	bool has_threshold;
	struct tree_expr threshold; /* over when value > threshold */
	bool base;                  /* shares below are of this node */
	int nsum;                   /* sum rule: these add up to the node */
	int sum[TREE_MAX_SUM];
	double sum_tol;           /* relative tolerance on top of the error */
	char next[TREE_TEXT_MAX]; /* variable setting to run next */
	char why[TREE_TEXT_MAX];  /* the next step in words */
	char notes[TREE_NOTE_MAX];
};

struct tree {
	char name[48];
	char models[TREE_TEXT_MAX];
	char description[TREE_TEXT_MAX];
	char source[TREE_NOTE_MAX];
	int nevents;
	struct tree_event ev[TREE_MAX_EVENTS];
	int nconsts;
	struct tree_const c[TREE_MAX_CONSTS];
	int nnodes;
	struct tree_node node[TREE_MAX_NODES];
	const char *file;
	int line;
	int dir;
};

/* One event's input: known with value and (when has_err) standard error,
 * or unknown with why. */
struct tree_input {
	double v;
	double err;
	bool has_err;
	const char *why; /* NULL: known */
};

struct tree_result {
	bool known;
	double v;
	double err;      /* first-order propagated standard error */
	bool has_err;    /* every input it depends on had an error figure */
	const char *why; /* unknown: the reason */
	int over;        /* 1 over threshold, 0 not, -1 unknown or none */
	bool has_share;
	double share;  /* v / the nearest base ancestor's v (same unit) */
	int sum_state; /* 0 no rule, 1 holds, -1 fails, -2 unknown */
	double sum_v;  /* the parts' sum */
	double sum_err;
	double grad[TREE_MAX_EVENTS]; /* d value / d event */
};

struct tree_eval {
	struct tree_result r[TREE_MAX_NODES];
	int bottleneck; /* node index or -1 */
};

/* Index of an event alias, constant or node id; -1 if absent. */
int hs_tree__event(const struct tree *t, const char *alias);
int hs_tree__const(const struct tree *t, const char *name);
int hs_tree__node(const struct tree *t, const char *id);

/* Evaluates every node in order (a node's formula names only nodes above
 * it).  in[] is indexed like t->ev. */
void hs_tree__eval(const struct tree *t, const struct tree_input *in,
		   struct tree_eval *out);

#endif

/* tree.c - evaluation of a stall tree.
 *
 * Each node's formula is run over (value, gradient) pairs: forward-mode
 * differentiation with respect to the tree's events, so a node that names
 * another node carries that node's dependence on the counts through the
 * chain rule.  The standard error is then first order,
 * sqrt(sum_i (d value / d event_i * stderr_i)^2), the counts' errors taken
 * as independent (each is its own group's rotation error).
 */
#include <math.h>
#include <string.h>

#include "common/tree.h"

int hs_tree__event(const struct tree *t, const char *alias)
{
	for (int i = 0; i < t->nevents; i++)
		if (strcmp(t->ev[i].alias, alias) == 0)
			return i;
	return -1;
}

int hs_tree__const(const struct tree *t, const char *name)
{
	for (int i = 0; i < t->nconsts; i++)
		if (strcmp(t->c[i].name, name) == 0)
			return i;
	return -1;
}

int hs_tree__node(const struct tree *t, const char *id)
{
	for (int i = 0; i < t->nnodes; i++)
		if (strcmp(t->node[i].id, id) == 0)
			return i;
	return -1;
}

struct slot {
	double v;
	const char *unk;
	bool has_err;
	double g[TREE_MAX_EVENTS];
};

/* The stack is large (gradients): one per evaluation, not per call. */
struct machine {
	struct slot st[FORMULA_MAX_OPS];
};

static void slot__operand(const struct tree *t, const struct tree_expr *e, int var,
			  const struct tree_input *in, const struct tree_eval *out,
			  struct slot *s)
{
	int ne = t->nevents, idx = e->idx[var];

	memset(s->g, 0, sizeof(s->g[0]) * (size_t)ne);
	s->unk = NULL;
	s->has_err = true;
	switch (e->kind[var]) {
	case TREE_REF_EVENT:
		s->v = in[idx].v;
		s->unk = in[idx].why;
		s->has_err = in[idx].has_err;
		s->g[idx] = 1;
		break;
	case TREE_REF_CONST:
		s->v = t->c[idx].v;
		break;
	default: {
		const struct tree_result *r = &out->r[idx];

		s->v = r->v;
		s->unk = r->known ? NULL : r->why;
		s->has_err = r->has_err;
		memcpy(s->g, r->grad, sizeof(s->g[0]) * (size_t)ne);
	}
	}
}

/* Returns true with res->v, ->grad and ->has_err set, else false and
 * res->why. */
static bool expr__eval(const struct tree *t, const struct tree_expr *e,
		       const struct tree_input *in, const struct tree_eval *out,
		       struct machine *m, struct tree_result *res)
{
	struct slot *st = m->st;
	int sp = 0, ne = t->nevents;

	for (int i = 0; i < e->f.n; i++) {
		const struct formula_op_rec *o = &e->f.code[i];
		struct slot *a, *b;

		switch (o->op) {
		case FORMULA_NUM:
			st[sp].v = o->num;
			st[sp].unk = NULL;
			st[sp].has_err = true;
			memset(st[sp].g, 0, sizeof(st[sp].g[0]) * (size_t)ne);
			sp++;
			continue;
		case FORMULA_VAR:
			slot__operand(t, e, o->var, in, out, &st[sp++]);
			continue;
		case FORMULA_NEG:
			st[sp - 1].v = -st[sp - 1].v;
			for (int k = 0; k < ne; k++)
				st[sp - 1].g[k] = -st[sp - 1].g[k];
			continue;
		default:
			break;
		}
		b = &st[--sp];
		a = &st[sp - 1];
		a->has_err = a->has_err && b->has_err;
		if (a->unk || b->unk) {
			a->unk = a->unk ? a->unk : b->unk;
			continue;
		}
		switch (o->op) {
		case FORMULA_ADD:
			for (int k = 0; k < ne; k++)
				a->g[k] += b->g[k];
			a->v += b->v;
			break;
		case FORMULA_SUB:
			for (int k = 0; k < ne; k++)
				a->g[k] -= b->g[k];
			a->v -= b->v;
			break;
		case FORMULA_MUL:
			for (int k = 0; k < ne; k++)
				a->g[k] = a->g[k] * b->v + a->v * b->g[k];
			a->v *= b->v;
			break;
		case FORMULA_MIN:
		case FORMULA_MAX:
			if (o->op == FORMULA_MIN ? b->v < a->v : b->v > a->v) {
				a->v = b->v;
				memcpy(a->g, b->g, sizeof(a->g[0]) * (size_t)ne);
			}
			break;
		default: /* DIV, RATIO */
			if (b->v == 0) {
				a->unk = "division by zero";
				break;
			}
			for (int k = 0; k < ne; k++)
				a->g[k] = (a->g[k] * b->v - a->v * b->g[k]) /
					  (b->v * b->v);
			a->v /= b->v;
			break;
		}
	}
	if (sp != 1) {
		res->why = "malformed formula";
		return false;
	}
	if (st[0].unk) {
		res->why = st[0].unk;
		return false;
	}
	if (!isfinite(st[0].v)) {
		res->why = "not a finite number";
		return false;
	}
	res->v = st[0].v;
	res->has_err = st[0].has_err;
	memcpy(res->grad, st[0].g, sizeof(res->grad[0]) * (size_t)ne);
	return true;
}

static double grad__err(const struct tree *t, const double *g,
			const struct tree_input *in)
{
	double s = 0;

	for (int k = 0; k < t->nevents; k++)
		if (g[k] != 0 && in[k].has_err)
			s += g[k] * in[k].err * g[k] * in[k].err;
	return sqrt(s);
}

/* The parts' sum against the node: the difference's error has the
 * gradient of (sum - node), so shared events cancel as they should. */
static void node__sum_rule(const struct tree *t, int i, const struct tree_input *in,
			   struct tree_eval *out)
{
	const struct tree_node *n = &t->node[i];
	struct tree_result *r = &out->r[i];
	double g[TREE_MAX_EVENTS];

	if (!n->nsum)
		return;
	if (!r->known) {
		r->sum_state = -2;
		return;
	}
	r->sum_v = 0;
	for (int k = 0; k < t->nevents; k++)
		g[k] = -r->grad[k];
	for (int j = 0; j < n->nsum; j++) {
		const struct tree_result *c = &out->r[n->sum[j]];

		if (!c->known) {
			r->sum_state = -2;
			return;
		}
		r->sum_v += c->v;
		for (int k = 0; k < t->nevents; k++)
			g[k] += c->grad[k];
	}
	r->sum_err = grad__err(t, g, in);
	r->sum_state = fabs(r->sum_v - r->v) <= 2 * r->sum_err +
							n->sum_tol * fabs(r->v) +
							1e-9 * fabs(r->v) ?
			       1 :
			       -1;
}

void hs_tree__eval(const struct tree *t, const struct tree_input *in,
		   struct tree_eval *out)
{
	struct machine m;
	int best = -1;

	memset(out, 0, sizeof(*out));
	out->bottleneck = -1;
	for (int i = 0; i < t->nnodes; i++) {
		const struct tree_node *n = &t->node[i];
		struct tree_result *r = &out->r[i], thr = { 0 };

		r->over = -1;
		r->known = expr__eval(t, &n->value, in, out, &m, r);
		if (!r->known)
			continue;
		r->err = grad__err(t, r->grad, in);
		if (n->has_threshold && expr__eval(t, &n->threshold, in, out, &m, &thr))
			r->over = r->v > thr.v;
		for (int p = n->parent; p >= 0; p = t->node[p].parent) {
			if (!t->node[p].base && t->node[p].parent >= 0)
				continue;
			if (out->r[p].known && out->r[p].v != 0 &&
			    strcmp(t->node[p].unit, n->unit) == 0) {
				r->has_share = true;
				r->share = r->v / out->r[p].v;
			}
			break;
		}
	}
	for (int i = 0; i < t->nnodes; i++)
		node__sum_rule(t, i, in, out);
	/* The bottleneck: the deepest node over its threshold whose ancestors
	 * with a threshold are over theirs too; among equals the largest
	 * share (or value), then the first. */
	for (int i = 0; i < t->nnodes; i++) {
		const struct tree_result *r = &out->r[i];
		bool ok = r->over == 1;

		for (int p = t->node[i].parent; ok && p >= 0; p = t->node[p].parent)
			if (t->node[p].has_threshold && out->r[p].over != 1)
				ok = false;
		if (!ok)
			continue;
		if (best < 0 || t->node[i].depth > t->node[best].depth) {
			best = i;
			continue;
		}
		if (t->node[i].depth == t->node[best].depth) {
			double a = r->has_share ? r->share : r->v;
			double b = out->r[best].has_share ? out->r[best].share :
							    out->r[best].v;
			if (a > b)
				best = i;
		}
	}
	out->bottleneck = best;
}

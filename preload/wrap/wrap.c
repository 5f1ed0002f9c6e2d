/* wrap.c - HPCSHIM_WRAP: named library functions become regions, without
 * recompiling or relinking (docs/wrapping.md).  A feature of the shim
 * (core/feature.h):
 *
 *   start   reads the specs and their signatures (spec.c), builds each
 *           call interface, patches the GOT slots of every loaded object
 *           (got.c) and from then on those of every object dlopen loads;
 *   result  the "wrap" array: each spec, its status and slots patched.
 *
 * The calls themselves are regions of the region code (a wrapper's
 * region has the function's name), so they nest with annotated regions
 * and are aggregated like them.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/base/log.h"
#include "preload/core/core.h"
#include "preload/interpose/dlopen.h"
#include "preload/base/real.h"
#include "preload/wrap/internal.h"
#include "preload/wrap/wrap.h"

static void wrap__tell(struct wrap_spec *s)
{
	if (s->told || s->set) /* a set's members: the JSON lists them */
		return;
	s->told = true;
	hs_log(HS_LOG_ERROR, "HPCSHIM_WRAP: %s%s%s not wrapped: %s (%s)", s->name,
	       s->object ? "@" : "", s->object ? s->object : "", s->status,
	       s->reason ? s->reason : "");
}

/* dlopen returned: the slots of what it loaded (the object and its
 * dependencies), and those of names newly resolvable (got.c). */
static void wrap__loaded(void)
{
	if (hs_process__foreign())
		return;
	pthread_mutex_lock(&hs_wrap.lock);
	hs_wrap_got__patch_new();
	pthread_mutex_unlock(&hs_wrap.lock);
}

/* HPCSHIM_WRAP and HPCSHIM_WRAP_PATH, as the environment had them when the
 * feature's variables were read (the constructor): spec.c parses the
 * first at start, once the signature files can be searched. */
static const char *wrap_var, *wrap_path;

/* HPCSHIM_PROFILE=1 (cfg->profile) wraps the mpi and io sets besides
 * what HPCSHIM_WRAP names (a name given twice is wrapped once). */
static char wrap_profile[4096];

static void wrap__config(struct hs_config *cfg)
{
	wrap_var = getenv("HPCSHIM_WRAP");
	wrap_path = getenv("HPCSHIM_WRAP_PATH");
	hs_wrap.in_mpi = cfg->profile;
	if (cfg->profile) {
		int n = snprintf(wrap_profile, sizeof(wrap_profile), "@mpi,@mpistart,@io%s%s",
				 wrap_var && *wrap_var ? "," : "",
				 wrap_var && *wrap_var ? wrap_var : "");

		if (n > 0 && (size_t)n < sizeof(wrap_profile))
			wrap_var = wrap_profile;
		else
			hs_log(HS_LOG_ERROR,
			       "HPCSHIM_PROFILE: HPCSHIM_WRAP too long to add @mpi,@io to "
			       "(%d bytes); wrapping HPCSHIM_WRAP only", n);
	}
}

static void wrap__start(void)
{
	char path[8 * PATH_MAX];
	int pending = 0;

	if (!wrap_var || !*wrap_var)
		return;
	wsig__search_path(wrap_path, path, sizeof(path));
	if (hs_wrap_spec__load(wrap_var, path) == 0)
		return;
	/* Open MPI's handles are pointers to its predefined objects. */
	hs_wrap.handle_is_pointer = hs_real__dlsym()(RTLD_DEFAULT,
						     "ompi_mpi_comm_world") != NULL;
	for (int i = 0; i < hs_wrap.n; i++) {
		struct wrap_spec *s = &hs_wrap.spec[i];

		if (s->state == WS_PENDING && hs_wrap_closure__prepare(s))
			pending++;
		if (s->state == WS_REFUSED)
			wrap__tell(s);
	}
	if (!pending)
		return;
	pthread_mutex_lock(&hs_wrap.lock);
	hs_wrap_got__patch_new();
	pthread_mutex_unlock(&hs_wrap.lock);
	hs_dlopen__observe(wrap__loaded);
	hs_log(HS_LOG_INFO, "HPCSHIM_WRAP: %d of %d functions to wrap", pending,
	       hs_wrap.n);
}

static const char *spec__status(struct wrap_spec *s)
{
	void *def;
	Dl_info di;

	if (s->state == WS_REFUSED)
		return s->status;
	if (__atomic_load_n(&s->slots, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&s->dlsym, __ATOMIC_RELAXED))
		return "wrapped";
	def = hs_real__dlsym()(RTLD_DEFAULT, s->name);
	if (!def) {
		(void)dlerror();
		s->status = "not found";
		s->reason = "no loaded object defines it";
	} else {
		if (!s->defobj[0] && dladdr(def, &di) && di.dli_fname)
			snprintf(s->defobj, sizeof(s->defobj), "%s", di.dli_fname);
		s->status = "no PLT/GOT slot found";
		s->reason = "no other object calls it through a slot: not called, or "
			    "only inside its own object (hidden or protected "
			    "visibility, -Bsymbolic, inlined)";
	}
	wrap__tell(s);
	return s->status;
}

/* The top-level "wrap" after "presets" and "mux". */
static const struct agg_section wrap_section = {
	.name = "wrap",
	.order = 30,
	.head = agg_wrap__head,
};

/* In a flush or the MPI snapshot (partial: other threads run): the
 * counters and bytes as they are, the status only from them (no lookup of
 * the definition, which spec__status records). */
static const char *spec__status_now(const struct wrap_spec *s)
{
	if (s->state == WS_REFUSED)
		return s->status;
	return __atomic_load_n(&s->slots, __ATOMIC_RELAXED) ||
			       __atomic_load_n(&s->dlsym, __ATOMIC_RELAXED) ?
		       "wrapped" :
		       NULL;
}

/* A flush's and the MPI snapshot's part: each thread that writes one (the
 * flusher, a rank's MPI_Finalize) its own, so two at once share nothing;
 * kept for the thread's next one. */
static __thread struct agg_wrap_spec *part_out __attribute__((tls_model("initial-exec")));
static __thread struct agg_wrap part_result __attribute__((tls_model("initial-exec")));

static void wrap__result(struct agg_process *p, bool partial)
{
	struct agg_wrap_spec **out = partial ? &part_out : &hs_wrap.out;
	struct agg_wrap *res = partial ? &part_result : &hs_wrap.result;

	if (!hs_wrap.n)
		return;
	if (!*out) {
		*out = calloc((size_t)hs_wrap.n, sizeof(**out));
		if (!*out)
			return;
	}
	for (int i = 0; i < hs_wrap.n; i++) {
		struct wrap_spec *s = &hs_wrap.spec[i];
		struct agg_wrap_spec *o = &(*out)[i];

		o->status = partial ? spec__status_now(s) : spec__status(s);
		o->name = s->name;
		o->object = s->object;
		o->set = s->set;
		o->signature = s->has_sig ? s->sig.text : NULL;
		o->reason = !o->status || !strcmp(o->status, "wrapped") ? NULL : s->reason;
		o->definition = !partial && s->defobj[0] ? s->defobj : NULL;
		o->path = s->state == WS_REFUSED    ? NULL :
			  s->path == WRAP_REGISTERS ? "registers" :
			  s->path == WRAP_DIRECT    ? "closure" :
						      "ffi_call";
		o->slots = __atomic_load_n(&s->slots, __ATOMIC_RELAXED);
		o->dlsym = __atomic_load_n(&s->dlsym, __ATOMIC_RELAXED);
		o->bytes = s->bkind != WB_NONE && hs_wrap.in_mpi ?
				   (int64_t)__atomic_load_n(&s->bytes, __ATOMIC_RELAXED) :
				   -1;
	}
	res->n = hs_wrap.n;
	res->spec = *out;
	agg_sections__add(&p->sections, &wrap_section, res);
}

/* A fork child has only the forking thread: a lock another thread held
 * (patching after a dlopen) would never be released. */
static void wrap__fork_child(void)
{
	pthread_mutex_init(&hs_wrap.lock, NULL);
}

const struct hs_feature hs_wrap_feature = {
	.name = "wrap",
	.config = wrap__config,
	.start = wrap__start,
	.fork_child = wrap__fork_child,
	.result = wrap__result,
};

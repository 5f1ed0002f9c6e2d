/* dlsym.c - dlsym and dlvsym as the program sees them while functions are
 * wrapped: the same answer, except that a wrapped function's definition
 * comes back as its wrapper, so calls through the pointer are counted.
 *
 * These are not exported by the shim: got.c points the program's own
 * dlsym/dlvsym slots here, so the shim's and its libraries' lookups are
 * untouched.  A call arrives straight from the program's slot, so the
 * return address is the program's: RTLD_NEXT ("the next object after the
 * caller") is answered by walking the link map from the caller's object,
 * as glibc does (without its namespaces: the program's default one).
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "preload/base/real.h"
#include "preload/wrap/internal.h"

/* The definition in lm itself (not in its dependencies).  Looked up
 * through a handle of its own: the link map of an object loaded with the
 * program is no dlopen handle (glibc builds its search list only for
 * dlopen: a dlsym on libc's map read through an empty one and crashed,
 * clang's libomp asking for RTLD_NEXT "omp_get_num_devices").
 * RTLD_NOLOAD opens nothing new; the main program and the vDSO have no
 * name to open by and define nothing a RTLD_NEXT lookup wants. */
static void *next__in(struct link_map *l, const char *name, const char *version)
{
	struct link_map *at = NULL;
	Dl_info di;
	void *h, *v;

	if (!l->l_name || !l->l_name[0])
		return NULL;
	h = hs_real__dlopen()(l->l_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h) {
		(void)dlerror();
		return NULL;
	}
	v = version ? dlvsym(h, name, version) : hs_real__dlsym()(h, name);
	dlclose(h);
	if (!v) {
		(void)dlerror();
		return NULL;
	}
	if (!dladdr1(v, &di, (void **)&at, RTLD_DL_LINKMAP) || at != l)
		return NULL;
	return v;
}

static void *next__find(const void *caller, const char *name, const char *version)
{
	struct link_map *lm = NULL;
	Dl_info di;

	if (!dladdr1(caller, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	for (struct link_map *l = lm->l_next; l; l = l->l_next) {
		void *v = next__in(l, name, version);

		if (v)
			return v;
	}
	return NULL;
}

static bool def__in(void *def, const char *object)
{
	Dl_info di;
	const char *slash;

	if (!dladdr(def, &di) || !di.dli_fname)
		return false;
	slash = strrchr(di.dli_fname, '/');
	return strstr(slash ? slash + 1 : di.dli_fname, object) != NULL;
}

/* def, or its wrapper when name is wrapped. */
static void *answer(const char *name, void *def)
{
	struct wrap_spec *s;

	if (!def || !name || !(s = hs_wrap_spec__find(name)))
		return def;
	for (; s < hs_wrap.spec + hs_wrap.n; s++) {
		struct wrap_target *tg;

		if (s->state != WS_PENDING || strcmp(s->name, name))
			continue;
		for (tg = __atomic_load_n(&s->targets, __ATOMIC_ACQUIRE); tg;
		     tg = tg->next)
			if (tg->orig == def)
				break;
		if (!tg) {
			if (s->object && !def__in(def, s->object))
				continue;
			/* Another thread patching (maybe inside the loader,
			 * whose lock this thread may hold): the plain answer. */
			if (pthread_mutex_trylock(&hs_wrap.lock) != 0)
				return def;
			tg = hs_wrap_closure__target(s, def);
			pthread_mutex_unlock(&hs_wrap.lock);
			if (!tg)
				return def;
		}
		__atomic_fetch_add(&s->dlsym, 1, __ATOMIC_RELAXED);
		return tg->code;
	}
	return def;
}

void *hs_wrap_dlsym__dlsym(void *handle, const char *name)
{
	const void *caller = __builtin_return_address(0);
	void *def = handle == RTLD_NEXT ? next__find(caller, name, NULL) :
					  hs_real__dlsym()(handle, name);

	return answer(name, def);
}

void *hs_wrap_dlsym__dlvsym(void *handle, const char *name, const char *version)
{
	const void *caller = __builtin_return_address(0);
	void *def = handle == RTLD_NEXT ? next__find(caller, name, version) :
					  dlvsym(handle, name, version);

	return answer(name, def);
}

void *hs_wrap_dlsym__resolve(const char *name, void *lm)
{
	void *d = hs_real__dlsym()(RTLD_DEFAULT, name);

	if (!d) {
		(void)dlerror();
		if (lm)
			d = hs_real__dlsym()(lm, name);
		if (!d)
			(void)dlerror();
	}
	return d;
}

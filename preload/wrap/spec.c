/* spec.c - HPCSHIM_WRAP=spec,... into specs with their signatures.
 *
 *   name            signature from the first signature file that has it
 *   name@object     the definition in that object (a file name or soname
 *                   prefix: "dgemm_@libopenblas")
 *   name=SIGNATURE  "double(double)": given here, no file needed
 *   @set            every prototype of SET.sig (the first directory of
 *                   the search path that has the file)
 *
 * A name the shim cannot safely wrap is refused here, before any slot is
 * touched: the shim's own interposed functions (their slots lead to the
 * shim's wrapper, which must stay first), functions that return twice or
 * never return (a closure frame cannot survive them), the allocator (the
 * region code allocates), variadic and vector signatures (the closure sees
 * no variable arguments; libffi has no vector type).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hash.h"
#include "preload/base/log.h"
#include "preload/wrap/internal.h"

#define MAX_SPECS 1024

struct known {
	char set[64];
	struct wsig sig;
};

static struct {
	struct known *k;
	int n, cap;
	char set[64]; /* the file being read */
	bool loaded;
} lib;

static const char *const interposed[] = {
	"pthread_create", "execve",    "execvpe",     "fexecve", "execveat",
	"execv",          "execvp",    "execl",       "execlp",  "execle",
	"_exit",          "_Exit",     "sigaction",   "signal",  "close",
	"close_range",    "closefrom", "dup2",        "dup3",    "getrlimit",
	"getrlimit64",    "setrlimit", "setrlimit64", "prlimit", "prlimit64",
	"dlopen",         "dlsym",     "dlvsym",
};

static const char *const twice[] = {
	"setjmp",
	"_setjmp",
	"sigsetjmp",
	"__sigsetjmp",
	"longjmp",
	"_longjmp",
	"siglongjmp",
	"__longjmp_chk",
	"vfork",
	"fork",
	"_Fork",
	"clone",
	"getcontext",
	"setcontext",
	"swapcontext",
	"makecontext",
	"__libc_start_main",
	"abort",
	"pthread_exit",
	"exit",
	"__cxa_throw",
	"_Unwind_RaiseException",
};

static const char *const alloc[] = {
	"malloc",       "free",           "calloc",           "realloc",
	"reallocarray", "posix_memalign", "aligned_alloc",    "memalign",
	"valloc",       "pvalloc",        "__errno_location", "__tls_get_addr",
};

static bool in_list(const char *const *l, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(l[i], name))
			return true;
	return false;
}
#define IN(l, name) in_list(l, sizeof(l) / sizeof(*l), name)

static void lib__add(void *ctx, const struct wsig *s)
{
	(void)ctx;
	/* The first definition of a name in a set wins. */
	if (lib.n == lib.cap) {
		int cap = lib.cap ? 2 * lib.cap : 256;
		struct known *k = realloc(lib.k, (size_t)cap * sizeof(*k));

		if (!k)
			return;
		lib.k = k;
		lib.cap = cap;
	}
	snprintf(lib.k[lib.n].set, sizeof(lib.k[0].set), "%s", lib.set);
	lib.k[lib.n++].sig = *s;
}

static void lib__bad(void *ctx, const char *msg)
{
	(void)ctx;
	hs_log(HS_LOG_ERROR, "HPCSHIM_WRAP: %s (left out)", msg);
}

/* The sets whose file was read (or looked for, in every directory). */
static struct {
	char (*name)[64];
	int n;
} tried;

static bool lib__tried(const char *set)
{
	for (int i = 0; i < tried.n; i++)
		if (!strcmp(tried.name[i], set))
			return true;
	return false;
}

static void lib__try(const char *set)
{
	char(*nn)[64] = realloc(tried.name, (size_t)(tried.n + 1) * sizeof(*nn));

	if (!nn)
		return;
	tried.name = nn;
	snprintf(tried.name[tried.n++], sizeof(*nn), "%s", set);
}

/* DIR/SET.sig, unless SET was read from an earlier directory (the user's
 * directory overrides the shipped). */
static void lib__load_one(const char *dir, const char *set)
{
	char file[PATH_MAX];

	if (lib__tried(set))
		return;
	snprintf(file, sizeof(file), "%s/%s.sig", dir, set);
	if (access(file, R_OK) != 0)
		return;
	lib__try(set);
	snprintf(lib.set, sizeof(lib.set), "%s", set);
	wsig__load_file(file, lib__add, lib__bad, NULL);
}

/* Only SET.sig, from the first directory of the path that has it: @SET
 * reads no other file. */
static void lib__load_set(const char *path, const char *set)
{
	char *p = strdup(path), *save = NULL;

	if (!p || strlen(set) >= sizeof(lib.set) || strchr(set, '/')) {
		free(p);
		return;
	}
	for (char *d = strtok_r(p, ":", &save); d; d = strtok_r(NULL, ":", &save))
		lib__load_one(d, set);
	free(p);
}

/* Every DIR/SET.sig on the path: a bare name is looked up in all of
 * them. */
static void lib__load(const char *path)
{
	char *p = strdup(path), *save = NULL;

	lib.loaded = true;
	if (!p)
		return;
	for (char *d = strtok_r(p, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		DIR *dir = opendir(d);
		struct dirent *e;

		if (!dir)
			continue;
		while ((e = readdir(dir))) {
			size_t k = strlen(e->d_name);
			char set[64];

			if (k < 5 || k - 4 >= sizeof(lib.set) ||
			    strcmp(e->d_name + k - 4, ".sig"))
				continue;
			snprintf(set, sizeof(set), "%.*s", (int)(k - 4), e->d_name);
			lib__load_one(d, set);
		}
		closedir(dir);
	}
	free(p);
}

static struct wrap_spec *spec__new(const char *name, const char *object, const char *set)
{
	struct wrap_spec *s;

	for (int i = 0; i < hs_wrap.n; i++) /* asked twice: once */
		if (!strcmp(hs_wrap.spec[i].name, name) &&
		    !!hs_wrap.spec[i].object == !!object &&
		    (!object || !strcmp(hs_wrap.spec[i].object, object)))
			return NULL;
	if (hs_wrap.n == MAX_SPECS) {
		hs_log(HS_LOG_ERROR,
		       "HPCSHIM_WRAP: more than %d functions; '%s' and "
		       "later ones are left out",
		       MAX_SPECS, name);
		return NULL;
	}
	s = &hs_wrap.spec[hs_wrap.n++];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	s->mpi = !strncmp(name, "MPI_", 4) || !strncmp(name, "PMPI_", 5);
	hs_wrap_bytes__rule(s);
	s->object = object ? strdup(object) : NULL;
	s->set = set ? strdup(set) : NULL;
	return s;
}

static void spec__refuse(struct wrap_spec *s, const char *status, const char *reason)
{
	s->state = WS_REFUSED;
	s->status = status;
	s->reason = reason;
}

/* The checks that need no object: names and signatures. */
static void spec__judge(struct wrap_spec *s)
{
	if (IN(interposed, s->name))
		spec__refuse(s, "refused: interposed by the shim",
			     "the shim's own wrapper of this function must stay first");
	else if (IN(twice, s->name))
		spec__refuse(s, "refused: returns twice or never returns",
			     "a wrapper frame cannot survive it");
	else if (IN(alloc, s->name))
		spec__refuse(s, "refused: used by the shim",
			     "the region code itself calls it");
	else if (!s->has_sig)
		spec__refuse(s, "no signature",
			     "no signature file declares it: give one, name=TYPE(TYPES)");
	else if (s->sig.variadic)
		spec__refuse(s, "variadic",
			     "a closure cannot see variable arguments: give a fixed "
			     "signature, name=TYPE(TYPES)");
	else if (s->sig.vector)
		spec__refuse(s, "vector args", "libffi has no vector types");
}

static const struct wsig *lib__find(const char *name)
{
	for (int i = 0; i < lib.n; i++)
		if (!strcmp(lib.k[i].sig.name, name))
			return &lib.k[i].sig;
	return NULL;
}

static void spec__one(char *item, const char *path)
{
	char *eq = strchr(item, '='), *at;
	struct wrap_spec *s;
	char err[200];

	if (*item == '@') {
		int found = 0;

		if (!lib.loaded)
			lib__load_set(path, item + 1);
		for (int i = 0; i < lib.n; i++) {
			if (strcmp(lib.k[i].set, item + 1))
				continue;
			found++;
			s = spec__new(lib.k[i].sig.name, NULL, item + 1);
			if (!s)
				continue;
			s->sig = lib.k[i].sig;
			s->has_sig = true;
			spec__judge(s);
		}
		if (!found)
			hs_log(HS_LOG_ERROR,
			       "HPCSHIM_WRAP: no set '%s' (no %s.sig on %s)",
			       item + 1, item + 1, path);
		return;
	}
	if (eq)
		*eq = '\0';
	at = strchr(item, '@');
	if (at)
		*at++ = '\0';
	if (!*item || (at && !*at)) {
		hs_log(HS_LOG_ERROR,
		       "HPCSHIM_WRAP: '%s%s%s' is not NAME[@OBJECT][=SIGNATURE] "
		       "or @SET (left out)",
		       item, at ? "@" : "", at ? at : "");
		return;
	}
	s = spec__new(item, at, NULL);
	if (!s)
		return;
	if (eq) {
		if (wsig__parse(eq + 1, false, NULL, &s->sig, err, sizeof(err)) < 0) {
			hs_log(HS_LOG_ERROR, "HPCSHIM_WRAP: %s=%s: %s (left out)",
			       item, eq + 1, err);
			hs_wrap.n--;
			return;
		}
		snprintf(s->sig.name, sizeof(s->sig.name), "%s", item);
		s->has_sig = true;
	} else {
		const struct wsig *k;

		if (!lib.loaded)
			lib__load(path);
		k = lib__find(item);
		if (k) {
			s->sig = *k;
			s->has_sig = true;
		}
	}
	spec__judge(s);
}

/* Splits at commas outside parentheses and braces. */
int hs_wrap_spec__load(const char *var, const char *path)
{
	char *buf = strdup(var), *p, *start;
	int depth = 0;

	hs_wrap.spec = calloc(MAX_SPECS, sizeof(*hs_wrap.spec));
	if (!buf || !hs_wrap.spec) {
		free(buf);
		return 0;
	}
	for (p = start = buf;; p++) {
		if (*p == '(' || *p == '{')
			depth++;
		else if ((*p == ')' || *p == '}') && depth > 0)
			depth--;
		else if ((*p == ',' && !depth) || !*p) {
			bool end = !*p;

			*p = '\0';
			while (*start == ' ')
				start++;
			if (*start)
				spec__one(start, path);
			if (end)
				break;
			start = p + 1;
		}
	}
	free(buf);
	free(lib.k);
	memset(&lib, 0, sizeof(lib));
	free(tried.name);
	memset(&tried, 0, sizeof(tried));
	/* The name table for the relocation walk: twice the specs, a power
	 * of two. */
	for (hs_wrap.cap = 16; hs_wrap.cap < 2 * (size_t)hs_wrap.n + 2;)
		hs_wrap.cap *= 2;
	hs_wrap.tab = malloc(hs_wrap.cap * sizeof(int));
	if (!hs_wrap.tab)
		return 0;
	for (size_t i = 0; i < hs_wrap.cap; i++)
		hs_wrap.tab[i] = -1;
	for (int i = 0; i < hs_wrap.n; i++) {
		size_t j = hs_hash__str(HS_HASH_INIT, hs_wrap.spec[i].name) &
			   (hs_wrap.cap - 1);

		while (hs_wrap.tab[j] >= 0)
			j = (j + 1) & (hs_wrap.cap - 1);
		hs_wrap.tab[j] = i;
	}
	return hs_wrap.n;
}

/* The first spec of name (name@object specs of one name follow it: the
 * caller goes on through the array). */
struct wrap_spec *hs_wrap_spec__find(const char *name)
{
	size_t j;

	if (!hs_wrap.tab)
		return NULL;
	for (j = hs_hash__str(HS_HASH_INIT, name) & (hs_wrap.cap - 1);
	     hs_wrap.tab[j] >= 0; j = (j + 1) & (hs_wrap.cap - 1))
		if (!strcmp(hs_wrap.spec[hs_wrap.tab[j]].name, name))
			return &hs_wrap.spec[hs_wrap.tab[j]];
	return NULL;
}

/* lines.c - a construct's source location, from its outlined function.
 *
 * GCC names the outlined body of a parallel directive `<caller>._omp_fn.N`
 * (a local symbol: only .symtab has it) and its first line-table row is
 * the directive's line.  libdw (elfutils) reads both: it is loaded when
 * the first construct is named, like libffi for HPCSHIM_WRAP (a linked
 * libdw would cost every process start), with dlmopen in the base
 * namespace (not through the shim's dlopen) and libc's dlsym.  Each
 * lookup reports the process's modules afresh (a library dlopen'ed since
 * is found) and ends the session, so that no descriptor stays open.
 * Without libdw (not installed, or built without its headers) the name is
 * dladdr's symbol, which only the dynamic symbol table gives.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/dl.h"
#include "preload/openmp/internal.h"

#ifdef HAVE_LIBDW
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#ifndef HS_DW_SONAME
#define HS_DW_SONAME "libdw.so.1"
#endif

#define DW_NAMES(X)                                     \
	X(begin, dwfl_begin)                            \
	X(end, dwfl_end)                                \
	X(report_begin, dwfl_report_begin)              \
	X(report_end, dwfl_report_end)                  \
	X(proc_report, dwfl_linux_proc_report)          \
	X(proc_find_elf, dwfl_linux_proc_find_elf)      \
	X(find_debuginfo, dwfl_standard_find_debuginfo) \
	X(addrmodule, dwfl_addrmodule)                  \
	X(getsrc, dwfl_module_getsrc)                   \
	X(lineinfo, dwfl_lineinfo)                      \
	X(addrname, dwfl_module_addrname)               \
	X(getdwarf, dwfl_module_getdwarf)               \
	X(nextcu, dwarf_nextcu)                         \
	X(offdie, dwarf_offdie)                         \
	X(haspc, dwarf_haspc)                           \
	X(getsrc_die, dwarf_getsrc_die)                 \
	X(lineno, dwarf_lineno)                         \
	X(linesrc, dwarf_linesrc)

static struct {
	__typeof__(dwfl_begin) *begin;
	__typeof__(dwfl_end) *end;
	__typeof__(dwfl_report_begin) *report_begin;
	__typeof__(dwfl_report_end) *report_end;
	__typeof__(dwfl_linux_proc_report) *proc_report;
	__typeof__(dwfl_linux_proc_find_elf) *proc_find_elf;
	__typeof__(dwfl_standard_find_debuginfo) *find_debuginfo;
	__typeof__(dwfl_addrmodule) *addrmodule;
	__typeof__(dwfl_module_getsrc) *getsrc;
	__typeof__(dwfl_lineinfo) *lineinfo;
	__typeof__(dwfl_module_addrname) *addrname;
	__typeof__(dwfl_module_getdwarf) *getdwarf;
	__typeof__(dwarf_nextcu) *nextcu;
	__typeof__(dwarf_offdie) *offdie;
	__typeof__(dwarf_haspc) *haspc;
	__typeof__(dwarf_getsrc_die) *getsrc_die;
	__typeof__(dwarf_lineno) *lineno;
	__typeof__(dwarf_linesrc) *linesrc;
} dw;

static pthread_once_t dw_once = PTHREAD_ONCE_INIT;
static bool dw_loaded;

static void dw__load(void)
{
	hs_dlsym_fn sym = hs_dl__dlsym();
	void *h;

	if (!sym || !(h = dlmopen(LM_ID_BASE, HS_DW_SONAME, RTLD_NOW | RTLD_LOCAL)))
		return;
#define X(field, name)                                         \
	if (!(dw.field = (__typeof__(dw.field))sym(h, #name))) \
		return;
	DW_NAMES(X)
#undef X
	dw_loaded = true;
}

/* The line of address a of module m by walking its compile units: clang
 * writes no .debug_aranges, without which dwfl_module_getsrc finds none. */
static const char *dw__cu_line(Dwfl_Module *m, Dwarf_Addr a, int *line)
{
	Dwarf_Addr bias;
	Dwarf *d = dw.getdwarf(m, &bias);
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!d)
		return NULL;
	for (; dw.nextcu(d, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next) {
		Dwarf_Die cu;
		Dwarf_Line *l;

		if (!dw.offdie(d, off + hsize, &cu) || dw.haspc(&cu, a - bias) <= 0)
			continue;
		if (!(l = dw.getsrc_die(&cu, a - bias)) || dw.lineno(l, line) != 0)
			return NULL;
		return dw.linesrc(l, NULL, NULL);
	}
	return NULL;
}

/* true when libdw gave at least the symbol. */
static bool dw__name(struct omp_construct *c)
{
	Dwfl_Callbacks cb = { .find_elf = dw.proc_find_elf,
			      .find_debuginfo = dw.find_debuginfo };
	Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)c->fn - (c->source == OMP_SRC_OMPT);
	Dwfl *d = dw.begin(&cb);
	Dwfl_Module *m;
	Dwfl_Line *l;
	const char *s;
	bool ok = false;

	if (!d)
		return false;
	dw.report_begin(d);
	if (dw.proc_report(d, getpid()) != 0 || dw.report_end(d, NULL, NULL) != 0)
		goto out;
	if (!(m = dw.addrmodule(d, a)))
		goto out;
	if ((s = dw.addrname(m, a))) {
		snprintf(c->function, sizeof(c->function), "%s", s);
		ok = true;
	}
	{
		int line = 0;

		l = dw.getsrc(m, a);
		s = l ? dw.lineinfo(l, NULL, &line, NULL, NULL, NULL) : dw__cu_line(m, a, &line);
		if (s && line > 0) {
			snprintf(c->file, sizeof(c->file), "%s", s);
			c->line = line;
			ok = true;
		}
	}
out:
	dw.end(d);
	return ok;
}
#endif

void hs_omp_lines__name(struct omp_construct *c)
{
	Dl_info di;

#ifdef HAVE_LIBDW
	pthread_once(&dw_once, dw__load);
	if (dw_loaded && dw__name(c))
		return;
#endif
	if (c->source == OMP_SRC_OMPT) /* a call site: the function around it */
		return;
	if (dladdr(c->fn, &di) && di.dli_sname && di.dli_saddr == c->fn)
		snprintf(c->function, sizeof(c->function), "%s", di.dli_sname);
}

/* unit_wrapsig.c - the signature parser of HPCSHIM_WRAP (presets/wrapsig.c):
 * prototypes to normalised signatures, errors with their reasons, and every
 * shipped signature file read without a single bad line.
 *
 * TAP through tests/unit/tap.h; table rows carry their __LINE__.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "presets/wrapsig.h"
#include "tests/unit/tap.h"

struct row {
	int line;
	const char *text;
	bool named;
	const char *want; /* normalised signature, or NULL for an error  */
	const char *err;  /* an error's text contains this               */
};

static const struct row rows[] = {
	{ __LINE__, "double cos(double)", true, "double(double)", NULL },
	{ __LINE__, "double cos(double x);", true, "double(double)", NULL },
	{ __LINE__, "double(double)", false, "double(double)", NULL },
	{ __LINE__, "void f(void)", true, "void()", NULL },
	{ __LINE__, "void f()", true, "void()", NULL },
	{ __LINE__, "unsigned long long f(unsigned, short, signed char, long)",
	  true, "uint64(uint32,int16,int8,int64)", NULL },
	{ __LINE__, "long double f(float, long double)", true,
	  "long double(float,long double)", NULL },
	{ __LINE__, "void dgemm_(char *ta, const double * restrict a, int lda[])",
	  true, "void(pointer,pointer,pointer)", NULL },
	{ __LINE__, "size_t fread(void *p, size_t s, size_t n, FILE *f)", true,
	  "uint64(pointer,uint64,uint64,pointer)", NULL },
	{ __LINE__,
	  "int MPI_Allreduce(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm)",
	  true, "int32(pointer,pointer,int32,handle,handle,handle)", NULL },
	{ __LINE__, "struct{double,long,int}(int,double)", false,
	  "struct{double,int64,int32}(int32,double)", NULL },
	{ __LINE__, "struct { double re; double im; } f(struct s *p)", true,
	  "struct{double,double}(pointer)", NULL },
	{ __LINE__, "int printf(const char *, ...)", true, "int32(pointer,...)", NULL },
	{ __LINE__, "__m256 f(__m256)", true, "vector(vector)", NULL },
	{ __LINE__, "int8_t f(uint16_t, int64_t, ssize_t, off_t, bool)", true,
	  "int8(uint16,int64,int64,int64,uint8)", NULL },
	/* errors */
	{ __LINE__, "double cos double", true, NULL, "expected '('" },
	{ __LINE__, "double cos(double", true, NULL, "expected ')'" },
	{ __LINE__, "foo f(int)", true, NULL, "unknown type 'foo'" },
	{ __LINE__, "void f(void x)", true, NULL, "void argument" },
	{ __LINE__, "void f(int) extra", true, NULL, "unexpected 'extra'" },
	{ __LINE__, "double _Complex f(double)", true, NULL, "complex" },
	{ __LINE__, "void f(void (*cb)(int))", true, NULL, "function pointer" },
	{ __LINE__, "struct s f(int)", true, NULL, "named struct by value" },
	{ __LINE__, "double f(double) $", true, NULL, "unexpected '$'" },
	{ __LINE__, "(double)", true, NULL, "expected a type" },
};

static int n_read, n_bad;
static char bad_first[512];

static void count_good(void *ctx, const struct wsig *s)
{
	(void)ctx;
	n_read += s->name[0] != '\0';
}

static void count_bad(void *ctx, const char *msg)
{
	(void)ctx;
	if (!n_bad++)
		snprintf(bad_first, sizeof(bad_first), "%s", msg);
}

int main(void)
{
	const char *src = getenv("HPCSHIM_SRCDIR");
	char dir[PATH_MAX], file[PATH_MAX + 300];
	struct wsig s;
	char err[200];
	DIR *d;
	struct dirent *e;
	int files = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		const struct row *r = &rows[i];
		int rc = wsig__parse(r->text, r->named, NULL, &s, err, sizeof(err));

		if (r->want)
			TAP_OK(rc == 0 && !strcmp(s.text, r->want),
			       "line %d: '%s' -> %s (got %s%s)", r->line, r->text,
			       r->want, rc ? "error: " : "", rc ? err : s.text);
		else
			TAP_OK(rc < 0 && strstr(err, r->err),
			       "line %d: '%s' is an error: %s (got %s)", r->line,
			       r->text, r->err, rc ? err : s.text);
	}
	wsig__parse("int printf(const char *, ...)", true, NULL, &s, err, sizeof(err));
	TAP_OK(s.variadic && !s.vector && !strcmp(s.name, "printf"),
	       "printf: variadic, named");
	wsig__parse("__m128 f(int)", true, NULL, &s, err, sizeof(err));
	TAP_OK(s.vector && !s.variadic, "a vector result marks the signature vector");

	/* Every shipped file parses without one bad prototype. */
	snprintf(dir, sizeof(dir), "%s/data/wrap", src ? src : ".");
	d = opendir(dir);
	TAP_OK(d != NULL, "%s opens", dir);
	while (d && (e = readdir(d))) {
		size_t k = strlen(e->d_name);

		if (k < 5 || strcmp(e->d_name + k - 4, ".sig"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		n_read = n_bad = 0;
		int n = wsig__load_file(file, count_good, count_bad, NULL);

		TAP_OK(n > 0 && n == n_read && n_bad == 0,
		       "%s: %d prototypes, none bad (first bad: %s)", e->d_name, n,
		       bad_first);
		files++;
	}
	if (d)
		closedir(d);
	TAP_OK(files >= 7,
	       "%d shipped signature files (blas, lapack, fftw, io, mem, mpi, libm)",
	       files);
	return tap_done();
}

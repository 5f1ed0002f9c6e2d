/* wrapsig.h - function signatures for HPCSHIM_WRAP, from text.
 *
 * A signature file (docs/wrapping.md) holds C-like prototypes, one per
 * ';', in the manner of ltrace's prototype libraries:
 *
 *   double cos(double);
 *   void dgemm_(char *, char *, int *, int *, int *, double *, double *,
 *               int *, double *, int *, double *, double *, int *);
 *   int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
 *                     MPI_Datatype type, MPI_Op op, MPI_Comm comm);
 *   typedef pointer fftw_plan;
 *
 * '#' and '//' start comments.  Parameter names are optional.  A type is
 * a C scalar (char ... long long, signed/unsigned, float, double, long
 * double, size_t and the <stdint.h> names), anything with '*' or '[]' (a
 * pointer), 'pointer', an MPI handle (MPI_Comm, MPI_Datatype, ...: the
 * width is the MPI library's, decided at run time), a by-value
 * 'struct { type, type, ... }', a vector type (__m128 ... __m512i:
 * recognised so that it can be refused), or a name made by 'typedef'
 * earlier in the same file.  '...' makes the function variadic.
 *
 * This part only parses: it knows nothing of libffi or of the process.
 */
#ifndef HPCSHIM_PRESETS_WRAPSIG_H
#define HPCSHIM_PRESETS_WRAPSIG_H

#include <stdbool.h>
#include <stddef.h>

#define WSIG_NAME_MAX 128
#define WSIG_MAX_ARGS 32
#define WSIG_MAX_FIELDS 16
#define WSIG_TEXT_MAX 512

enum wsig_kind {
	WSIG_VOID,
	WSIG_S8,
	WSIG_U8,
	WSIG_S16,
	WSIG_U16,
	WSIG_S32,
	WSIG_U32,
	WSIG_S64,
	WSIG_U64,
	WSIG_FLOAT,
	WSIG_DOUBLE,
	WSIG_LDOUBLE,
	WSIG_POINTER,
	WSIG_HANDLE, /* an MPI handle: int (MPICH) or pointer (Open MPI) */
	WSIG_STRUCT, /* by value: fields[] */
	WSIG_VECTOR, /* SIMD vector: no libffi type */
};

struct wsig_type {
	enum wsig_kind kind;
	int nfields;
	enum wsig_kind field[WSIG_MAX_FIELDS]; /* WSIG_STRUCT: scalar fields */
};

struct wsig {
	char name[WSIG_NAME_MAX]; /* "" for an anonymous signature */
	struct wsig_type ret;
	int nargs;
	struct wsig_type arg[WSIG_MAX_ARGS];
	bool variadic;            /* '...' */
	bool vector;              /* a vector type as argument or result */
	char text[WSIG_TEXT_MAX]; /* normalised: "double(double)" */
};

/* A typedef table local to one file (or one parse). */
struct wsig_typedefs {
	int n;
	struct {
		char name[WSIG_NAME_MAX];
		struct wsig_type t;
	} e[64];
};

/* Parses "double cos(double)" (named) or "double(double)" (anonymous,
 * named false).  0, or -1 with a reason in err. */
int wsig__parse(const char *text, bool named, const struct wsig_typedefs *td,
		struct wsig *out, char *err, size_t errlen);

/* Reads every prototype of a file: each good one to fn, each bad one to
 * bad as "FILE:LINE: what".  Returns the number read, -1 when the file
 * cannot be opened. */
typedef void wsig_fn(void *ctx, const struct wsig *s);
typedef void wsig_bad_fn(void *ctx, const char *msg);
int wsig__load_file(const char *file, wsig_fn *fn, wsig_bad_fn *bad, void *ctx);

/* The directories searched for signature files, colon-separated: user's
 * (HPCSHIM_WRAP_PATH) first, then the shipped data next to the code (the
 * presets' places with "wrap" for "presets"). */
void wsig__search_path(const char *user, char *buf, size_t len);

#endif

/* jsonutil.c - the JSON value helpers of aggregate/ (jsonutil.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/jsonutil.h"
#include "aggregate/utf8.h"

json_object *agg_json__u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

json_object *agg_json__dbl(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

json_object *agg_json__text(const char *s)
{
	char *clean = agg_utf8__clean(s);
	json_object *o = json_object_new_string(clean ? clean : "?");

	free(clean);
	return o;
}

json_object *agg_json__hex(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

void agg_json__add_key(json_object *o, const char *key, json_object *v)
{
	char *clean = agg_utf8__clean(key);

	json_object_object_add(o, clean ? clean : "?", v);
	free(clean);
}

void agg_json__add_sibling(json_object *o, const char *key, const char *suffix,
			   json_object *v)
{
	char k[64];

	snprintf(k, sizeof(k), "%s%s", key, suffix);
	json_object_object_add(o, k, v);
}

/* ---- numbers and strings as json-c prints them, without an object ----- */

static const char digits2[] = "00010203040506070809101112131415161718192021222324"
			      "25262728293031323334353637383940414243444546474849"
			      "50515253545556575859606162636465666768697071727374"
			      "75767778798081828384858687888990919293949596979899";

/* v in decimal, at most 20 digits, written from its last digit back:
 * returns the length. */
static size_t fmt__u64(char *buf, uint64_t v)
{
	/* clang-format off */
	static const uint64_t p10[20] = {
		1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
		100000000u, 1000000000u, 10000000000u, 100000000000u,
		1000000000000u, 10000000000000u, 100000000000000u,
		1000000000000000u, 10000000000000000u, 100000000000000000u,
		1000000000000000000u, 10000000000000000000u,
	};
	/* clang-format on */
	size_t t, n;
	char *c;

	if (v < 10) { /* most counts of a region record are 0 */
		buf[0] = (char)('0' + v);
		return 1;
	}
	/* Its digits: t = floor(bits x log10(2)) (1233 / 4096), then one more
	 * when v >= 10^t. */
	t = (size_t)((64 - __builtin_clzll(v)) * 1233) >> 12;
	n = t + (v >= p10[t]);

	c = buf + n;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--c = digits2[d + 1];
		*--c = digits2[d];
	}
	if (v >= 10) {
		*--c = digits2[v * 2 + 1];
		*--c = digits2[v * 2];
	} else {
		*--c = (char)('0' + v);
	}
	return n;
}

size_t agg_json__fmt_i64(char *buf, int64_t v)
{
	if (v >= 0)
		return fmt__u64(buf, (uint64_t)v);
	buf[0] = '-';
	return 1 + fmt__u64(buf + 1, -(uint64_t)v);
}

size_t agg_json__fmt_u64(char *buf, uint64_t v)
{
	return fmt__u64(buf, v > INT64_MAX ? INT64_MAX : v);
}

/* json-c 0.16 prints a double with "%.17g", a locale's ',' made '.', and
 * ".0" appended when the text reads as an integer. */
static size_t fmt__dbl_printf(char *buf, double v)
{
	int n = snprintf(buf, AGG_JSON_NUM_MAX, "%.17g", v);
	char *p;

	if (n < 0 || n > AGG_JSON_NUM_MAX - 3) /* never: 24 at most */
		return 0;
	p = strchr(buf, ',');
	if (p)
		*p = '.';
	else
		p = strchr(buf, '.');
	if (!p && !strchr(buf, 'e') &&
	    ((buf[0] >= '0' && buf[0] <= '9') ||
	     (buf[0] == '-' && buf[1] >= '0' && buf[1] <= '9'))) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	return (size_t)n;
}

/* The values written are mostly sums and means of integer counts: a
 * multiple of 2^-FRAC_BITS below 2^50 has an exact decimal text of at most
 * 17 significant digits, which is what "%.17g" prints, so it is written
 * without printf.  Anything else goes through printf. */
#define FRAC_BITS 10

size_t agg_json__fmt_dbl(char *buf, double v)
{
	double a = fabs(v), ip;
	uint64_t i, k, f;
	size_t n = 0, sig, fd;
	char frac[FRAC_BITS];

	if (!(a < 0x1p50))
		return fmt__dbl_printf(buf, v);
	i = (uint64_t)a;      /* below 2^50: exact, truncated */
	if ((double)i == a) { /* the common case: a whole number, "<digits>.0" */
		if (signbit(v))
			buf[n++] = '-';
		n += fmt__u64(buf + n, i);
		memcpy(buf + n, ".0", 2);
		return n + 2;
	}
	ip = (double)i;
	if ((a - ip) * 0x1p10 != floor((a - ip) * 0x1p10))
		return fmt__dbl_printf(buf, v);
	k = (uint64_t)((a - ip) * 0x1p10); /* exact: a dyadic fraction */
	/* k / 2^10 = k * 5^10 / 10^10: ten decimal digits, zeros stripped */
	f = k * 9765625u;
	for (int d = FRAC_BITS - 1; d >= 0; d--, f /= 10)
		frac[d] = (char)('0' + f % 10);
	fd = FRAC_BITS;
	while (fd > 1 && frac[fd - 1] == '0')
		fd--;
	if (signbit(v))
		buf[n++] = '-';
	n += fmt__u64(buf + n, i);
	sig = i ? n - (buf[0] == '-') + fd : fd;
	if (!i) { /* leading zeros of the fraction are not significant */
		for (size_t z = 0; z < fd && frac[z] == '0'; z++)
			sig--;
	}
	if (sig > 17)
		return fmt__dbl_printf(buf, v);
	buf[n++] = '.';
	memcpy(buf + n, frac, fd);
	return n + fd;
}

/* Bytes json-c writes as they are and agg_utf8__clean leaves alone:
 * printable ASCII but '"' and '\\' (not NUL either: the loop ends there). */
#define P16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
/* clang-format off */
static const unsigned char plain_byte[256] = {
	P16(0), P16(0),
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20: '"' */
	P16(1), P16(1),
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50: '\\' */
	P16(1),
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* 0x70: DEL */
	P16(0), P16(0), P16(0), P16(0), P16(0), P16(0), P16(0), P16(0),
};
/* clang-format on */
#undef P16

bool agg_json__plain(const char *s, size_t *len)
{
	const unsigned char *c = (const unsigned char *)s;

	while (plain_byte[*c])
		c++;
	if (*c)
		return false;
	*len = (size_t)(c - (const unsigned char *)s);
	return true;
}

/* utf8.c - strings from the outside (region names, argv, host, event specs)
 * made valid UTF-8 for JSON.  json-c escapes quotes and control bytes but
 * copies other bytes as they are, and a consumer's JSON parser rejects a
 * document with invalid UTF-8. */
#include <stdlib.h>
#include <string.h>

#include "aggregate/utf8.h"

/* Length of the valid UTF-8 sequence at s, or 0 (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80,
			      hi = c == 0xed ? 0x9f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80,
			      hi = c == 0xf4 ? 0x8f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
				       (s[3] & 0xc0) == 0x80 ?
			       4 :
			       0;
	}
	return 0;
}

char *agg_utf8__clean(const char *in)
{
	static const char repl[] = "\xef\xbf\xbd"; /* U+FFFD */
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strlen(in);
	char *out = malloc(3 * n + 1), *o = out;

	if (!out)
		return NULL;
	while (*s) {
		size_t k = utf8_seq(s);

		if (k == 0) { /* one replacement per invalid byte */
			memcpy(o, repl, 3);
			o += 3;
			s++;
			continue;
		}
		memcpy(o, s, k);
		o += k;
		s += k;
	}
	*o = '\0';
	return out;
}
